"""TF tf.function tests not ported before, from the older eager/function_test.py and five smaller files.

Sources (TF 2.21's values, from the same programs run in TF 2.21 and hard-coded here; TF is not imported;
each test names the TF method it comes from):
- tensorflow/python/eager/function_test.py (FunctionTest, MultiDeviceTest; the stored copy is the older, large
  file whose methods mostly moved to polymorphic_function_test.py and are ported elsewhere),
- tensorflow/python/eager/polymorphic_function/quarantine_test.py (DefunTest, MultiDeviceDefunTest,
  FunctionCallbackTest; `quarantine.defun` is run as tf.function / tj.function),
- tensorflow/python/eager/polymorphic_function/polymorphic_function_test_cpu_only.py and
  tensorflow/python/eager/def_function_test_cpu_only.py (FunctionCpuOnlyTest / DefFunctionCpuOnlyTest),
- tensorflow/python/eager/polymorphic_function/concrete_function_test.py and argument_naming_test.py (only what
  a caller of the function sees).
Methods whose names already appear in tests/ were dropped (ported before, often from the same files).

How TF maps to tj: tf.function / defun -> tj.function; tf.Variable / ResourceVariable -> tj.Variable; the number
of cached concrete functions (total_function_cache / _list_all_concrete_functions) ->
experimental_get_tracing_count() (one trace per cached signature, as TF); Keras layers and models (Dense,
Conv2D, MiniModel) -> small tj.Modules creating their Variables on the first call with the same initial values;
tf.keras.optimizers.Adam -> tj.optimizers.Adam; tf.data loops -> a Python loop over the batches;
math_ops.add_n -> Python sum; tf_inspect -> inspect.

Ported here: testCacheKeyVariables, testCacheTensorDtypeCollision, testDefunNumpyArraysConvertedToTensors,
testDefunNumpyArraysConvertedToTensorsInKwargs, testDecoratedMethod, testDecoratedMethodUniqueFunctionPerInstance,
testDecoratedMethodInspect, testDecoratedMethodVariableCleanup, testDefunKerasModelCall, testLayerInDefun
(testDefuningInstanceMethodWithDefaultArgument: in test_tf_function_port.py's
test_tensor_default_argument_of_a_method),
testReferenceCycles (the weak reference; not the no-garbage check:
a plain jax.jit call already leaves cyclic garbage), testStandardTrainingLoopInFunction,
testInputShapeFunctionRelaxation and testNestedInputShapeFunctionRelaxation (values, and TF's trace count as xfail),
testJitCompileRaisesExceptionWhenXlaIsUnsupported (both files: TF 2.21 has XLA, so the test's call runs; what it
returns is checked), testVariadic,
testDictReturned, test_generate_from_atomic / test_generate_from_def (the call of add_dicts; the same program in
both). Where cheap, gradients (tape) and JVPs (ForwardAccumulator) through the call are added, with TF's values.

Adapted, sanctioned by API.md (JAX's x64 off): float64 NumPy inputs become float32 in tapejax, so the NumPy-input
tests feed float32 arrays (TF keeps float64 and traces them separately); complex128 does not exist, so
testCacheTensorDtypeCollision's second dtype is float32; the int64 default argument is int32. The training loop
uses 8 input features and linspace inputs, not 784 ones, and a constant kernel in place of Keras's random one.

Left out, by reason:
  input_signature tests, ported elsewhere since tapejax has input_signature: test_function_input_signature.py
    (testInputSignatureWithPartialFunction, testInputSignatureWithKeywordOnlyArgs) and
    test_tf_input_signature_port.py (testInputSignatureWithMatchingInputs, ...WithCompatibleInputs,
    testNestedInputSignatures, ...WithDict, testInputsIncompatibleWithNestedSignatureRaisesError,
    testUnderspecifiedInputSignature, testInputSignatureWithKeywordPositionalArgs, ...WithKeywordArgs,
    ...WithVariableArgs, ...WithKeywordOnlyArgsNoDefaults, testCacheTensorSpecIdenticalToTensor,
    testCallingFunctionWithNonTensorsFails, testMethodSignature, testVariadicInputSignature: their call parts);
  get_concrete_function / ConcreteFunction / composite-tensor APIs: testInputSignatureWithCompositeTensors,
    testDecoratedMethodGetConcreteFunction, test_parses_func_attr_scalar_values, test_parses_func_attr_list_values,
    test_raises_value_error_for_invalid_attr (and the ConcreteFunction / atomic-function rebuilding of
    test_generate_from_atomic / test_generate_from_def);
  TF1 graphs, sessions, placeholders: testExternalControlDependency, testGraphEagerIsolation,
    testDefunFunctionSeparateGraphs, testCacheTensorUnknownShapesCollisionRelaxedShapes,
    testDefunShapeInferenceWithCapturedTensorListInGraphMode, testImplementsAttributeAssertsOnSideInput,
    testImplementsAttributeSpecializes, testImplementsAttributeWorksOnConstants,
    testImplementsAttributeWorksOnVariables (also experimental_implements);
  function attributes, registration, callbacks, executors, grappler: testFuncName, testFunctionWithExtraAttributes,
    testFunctionWithInvalidAttribute, testRegisterFunction, testRegisterFunctionWithCache,
    testRegisterFunctionWithInputSignature, testAddFunctionCallback, testRemoveFunctionCallback,
    testClearFunctionCallbacks, testFunctionCallbackAddOps, testExecutorType, testCallOptionsMemory,
    testSwapImplementationWithGrapplerPlugin, testSwapImplementationInEager, testFuncGraphCaptureByValue,
    testFuncGraphCaptureByValueNested (private function.Function(capture_by_value=));
  device placement / GPU only: testDeviceAnnotationsRespected, testMultipleDeviceCheck,
    testFunctionWithResourcesOnDifferentDevices, testMultiDeviceOutput, testEmptyBody, testMultiDeviceInt32,
    testMultiDeviceColocateWith, testMultiDeviceResources, testOutputResources,
    testPassResourceThroughNestedFunctionCall, testReturnResourceFromNestedFunctionCall,
    testComplexInputOutputDevicePattern, testArgumentPruning / testArgumentPrunning;
  TF-only ops and classes: testFuncListAttr (gen_functional_ops.case), testVariableInLoopInFunction
    (variable_scope.get_variable in tf.while_loop), testDefunForcesResourceVariables (ResourceVariable class),
    testDatasetIteratorCaching (tf.data iterators as arguments);
  autograph (no counterpart in tapejax): testEarlyStoppingTrainingLoopInFunction (`if optimizer.iterations > 3:
    break` on a tensor inside a tf.data loop); testFunctionRelaxationLosesInnerDimWithKerasLayer (shape relaxation
    to [None, None] inside a Keras layer: tapejax's shapes are always static).

Differences this port found, fixed in tapejax (each test failed before the fix): a dict argument was rebuilt inside
the trace with its keys sorted (JAX's pytree order), not in the caller's order as TF's (silent wrong values from
`list(d.values())`); inspect.getfullargspec of a tj.function raised TypeError; the Variables a tj.function method
created outlived their object until the garbage collector ran (a reference cycle of the traced program).

Differences kept (xfail strict, TF's expectation written):
  - reduce_retracing=True changes nothing (tj.function's docstring: XLA programs have static shapes), so TF's
    relaxed trace counts (2 for shapes [0], [1], [2]) are not met (tapejax: 3).
"""
import gc
import inspect
import sys
import weakref

import numpy as np
import pytest

import tapejax as tj
from conftest import close

tnp = tj.numpy


# ------------------------------------------------------------------------------------------------------------
# Retracing rules
# ------------------------------------------------------------------------------------------------------------

def test_cache_key_variables():
    # testCacheKeyVariables: Variables are keyed by shape, dtype and aliasing, not identity (TF 2.21 counts)
    @tj.function
    def defined(a, b, c):
        return a + b + c

    x, y, z = tj.Variable(0.0), tj.Variable(0.0), tj.Variable(0.0)
    counts = []
    for args in [(x, y, z), (x, y, z), (z, y, x), (x, x, z), (y, y, z), (z, y, y)]:
        defined(*args)
        counts.append(defined.experimental_get_tracing_count())
    assert counts == [1, 1, 1, 2, 2, 3]


def test_cache_tensor_dtype_collision():
    # testCacheTensorDtypeCollision: same shape, new dtype -> a new trace (complex128 -> float32, x64 off)
    @tj.function
    def func(t):
        return t + t

    r1 = func(tj.constant([[1.0]], dtype=tnp.complex64))
    assert func.experimental_get_tracing_count() == 1
    r2 = func(tj.constant([[1.0]], dtype=tnp.float32))
    assert func.experimental_get_tracing_count() == 2
    assert r1.dtype == np.complex64 and r2.dtype == np.float32
    np.testing.assert_array_equal(r1.numpy(), [[2 + 0j]])
    np.testing.assert_array_equal(r2.numpy(), [[2.0]])


def test_defun_numpy_arrays_converted_to_tensors():
    # testDefunNumpyArraysConvertedToTensors (quarantine_test's version): NumPy arrays are traced by shape and
    # dtype, arrive as Tensors, and their current values are used on every call
    def f(x):
        assert isinstance(x, tj.Tensor), type(x)
        return x

    rng = np.random.RandomState(0)
    defined = tj.function(f)
    defined(rng.rand(2, 2).astype(np.float32))
    assert defined.experimental_get_tracing_count() == 1
    defined(rng.rand(2, 2).astype(np.float32))  # same shape and dtype, other values: no new trace
    assert defined.experimental_get_tracing_count() == 1

    np_ones, np_zeros = np.ones([], np.float32), np.zeros([], np.float32)
    assert defined(np_ones).numpy() == 1.0
    assert defined.experimental_get_tracing_count() == 2
    assert defined(np_zeros).numpy() == 0.0
    assert defined(tnp.ones([])).numpy() == 1.0
    assert defined(tnp.zeros([])).numpy() == 0.0
    assert defined.experimental_get_tracing_count() == 2

    mutable = np.ones([], np.float32)
    assert defined(mutable).numpy() == 1.0
    mutable.fill(0)  # the array's new value is read on the next call
    assert defined(mutable).numpy() == 0.0

    class MyNdarray(np.ndarray):
        pass

    assert defined(np_ones.view(MyNdarray)).numpy() == 1.0
    assert defined(np_zeros.view(MyNdarray)).numpy() == 0.0
    assert defined.experimental_get_tracing_count() == 2


def test_defun_numpy_arrays_converted_to_tensors_in_kwargs():
    # testDefunNumpyArraysConvertedToTensorsInKwargs (float32 arrays: TF traces float64 ones apart, x64 is off here)
    def f(**kwargs):
        x = kwargs.pop("x")
        assert isinstance(x, tj.Tensor), type(x)
        return x

    rng = np.random.RandomState(1)
    defined = tj.function(f)
    defined(x=rng.rand(2, 2).astype(np.float32))
    defined(x=rng.rand(2, 2).astype(np.float32))
    assert defined.experimental_get_tracing_count() == 1
    assert defined(x=np.ones([], np.float32)).numpy() == 1.0
    assert defined(x=np.zeros([], np.float32)).numpy() == 0.0
    assert defined(x=tnp.ones([])).numpy() == 1.0
    assert defined(x=tnp.zeros([])).numpy() == 0.0
    assert defined.experimental_get_tracing_count() == 2


def test_input_shape_function_relaxation_values():
    # testInputShapeFunctionRelaxation: the values of a reduce_retracing function over three shapes
    @tj.function(reduce_retracing=True)
    def func(a):
        return a + 1

    assert func(tj.constant([])).numpy().tolist() == []
    assert func(tj.constant([1.0])).numpy().tolist() == [2.0]
    assert func(tj.constant([1.0, 2.0])).numpy().tolist() == [2.0, 3.0]


@pytest.mark.xfail(strict=True, reason="reduce_retracing changes nothing in tapejax (documented: XLA programs have "
                                       "static shapes): TF relaxes [1] to [None] and reuses it for [2]")
def test_input_shape_function_relaxation_trace_count():
    # testInputShapeFunctionRelaxation's cache sizes: TF 2.21 sees shapes [0] then [None], 2 traces
    @tj.function(reduce_retracing=True)
    def func(a):
        return a + 1

    for v in ([], [1.0], [1.0, 2.0]):
        func(tj.constant(v))
    assert func.experimental_get_tracing_count() == 2


def test_nested_input_shape_function_relaxation_values():
    # testNestedInputShapeFunctionRelaxation: a string argument and a nested list of Tensors
    @tj.function(reduce_retracing=True)
    def func(a_, b_=None):
        del a_
        assert tuple(b_[0].shape) == ()
        return b_[0] + 1

    b0 = tj.constant(1.0)
    outs = [func(a, b_=[b0, tj.constant(b1)]).numpy()
            for a, b1 in [("hi", []), ("hi", [1.0]), ("hi", [1.0, 1.0]), ("bye", []), ("bye", [1.0])]]
    assert outs == [2.0] * 5


# ------------------------------------------------------------------------------------------------------------
# Argument handling and nested structures
# ------------------------------------------------------------------------------------------------------------

def test_jit_compile_list_argument():
    # testJitCompileRaisesExceptionWhenXlaIsUnsupported (both *_cpu_only files): with XLA present the call runs;
    # a list of Python ints is static, `x + x` concatenates it and TF returns a list of eight int32 Tensors
    @tj.function(jit_compile=True)
    def fn(x):
        return x + x

    out = fn([1, 1, 2, 3])
    assert isinstance(out, list) and len(out) == 8
    assert all(isinstance(t, tj.Tensor) and t.dtype == np.int32 for t in out)
    assert [int(t.numpy()) for t in out] == [1, 1, 2, 3, 1, 1, 2, 3]


def test_variadic():
    # testVariadic (argument_naming_test): *args and **kwargs; the order of keywords makes no new trace
    @tj.function
    def variadic_fn(x, *args, **kwargs):
        return x + sum(list(args) + list(kwargs.values()))

    assert variadic_fn(tnp.ones([]), tnp.ones([])).numpy() == 2.0
    xs = [tj.constant(float(i)) for i in range(1, 5)]
    kz, kzz = tj.constant(5.0), tj.constant(6.0)
    assert variadic_fn(*xs, z=kz, zz=kzz).numpy() == 21.0
    assert variadic_fn.experimental_get_tracing_count() == 2
    assert variadic_fn(*xs, zz=kzz, z=kz).numpy() == 21.0
    assert variadic_fn.experimental_get_tracing_count() == 2
    with tj.GradientTape() as tape:
        tape.watch(xs + [kz, kzz])
        out = variadic_fn(*xs, z=kz, zz=kzz)
        out = out * out
    assert out.numpy() == 441.0
    assert [float(g.numpy()) for g in tape.gradient(out, xs + [kz, kzz])] == [42.0] * 6


def test_dict_returned():
    # testDictReturned (argument_naming_test): defaults holding a tuple of Python floats, a dict result,
    # Tensors by keyword; gradient and JVP through the call (TF 2.21 values)
    @tj.function
    def fn(x, z=(1.0, 2.0), y=3.0):
        z1, z2 = z
        return {"alpha": x + y + z1, "beta": x * y + z2}

    r = fn(tnp.ones([]))
    assert set(r) == {"alpha", "beta"}
    assert r["alpha"].numpy() == 5.0 and r["beta"].numpy() == 5.0
    x, y = tj.constant([1.0, 2.0]), tj.constant(2.0)
    r = fn(x, y=y)
    close(r["alpha"], [4.0, 5.0])
    close(r["beta"], [4.0, 6.0])
    r = fn(4.0, z=(tj.constant([1.0, 2.0]), tj.constant(3.0)), y=tj.constant(2.0))
    close(r["alpha"], [7.0, 8.0])
    close(r["beta"], 11.0)
    assert fn.experimental_get_tracing_count() == 3

    with tj.GradientTape() as tape:
        tape.watch([x, y])
        r = fn(x, y=y)
        s = tnp.sum(r["alpha"]) + tnp.sum(r["beta"] * tj.constant([1.0, 3.0]))
    gx, gy = tape.gradient(s, [x, y])
    close(gx, [3.0, 7.0])
    close(gy, 9.0)
    with tj.ForwardAccumulator([x, y], [tj.constant([1.0, 1.0]), tj.constant(0.5)]) as acc:
        r = fn(x, y=y)
    close(acc.jvp(r["alpha"]), [1.5, 1.5])
    close(acc.jvp(r["beta"]), [2.5, 3.0])


def _add_dicts_inputs():
    dict_a = {"tensor": tj.constant(1), "variable": tj.Variable(2), "python_int": 4}
    dict_b = {"tensor": tj.constant(2), "variable": tj.Variable(5), "python_int": 5}
    return dict_a, dict_b


@tj.function
def _add_dicts(dict_a, dict_b):
    result = {}
    for key in dict_a.keys():
        result[key] = dict_a[key] + dict_b[key]
    return result


def test_generate_from_atomic_values():
    # test_generate_from_atomic / test_generate_from_def (concrete_function_test), the call of add_dicts without
    # the ragged entry: a Tensor, a Variable and a Python int per key; every result an int32 Tensor
    result = _add_dicts(*_add_dicts_inputs())
    assert set(result) == {"tensor", "variable", "python_int"}
    for key, want in [("tensor", 3), ("variable", 7), ("python_int", 9)]:
        assert isinstance(result[key], tj.Tensor) and result[key].dtype == np.int32, key
        assert int(result[key].numpy()) == want, key


def test_generate_from_atomic_key_order():
    # add_dicts builds its result by iterating dict_a: TF 2.21 returns the keys in dict_a's order
    result = _add_dicts(*_add_dicts_inputs())
    assert list(result) == ["tensor", "variable", "python_int"]


def test_dict_argument_iteration_order_values():
    # the same rule seen in values: stacking a dict argument's values in the order the function iterates them
    @tj.function
    def stack_values(d):
        return tnp.stack(list(d.values()))

    out = stack_values({"b": tj.constant(1.0), "a": tj.constant(2.0)})
    assert out.numpy().tolist() == [1.0, 2.0]
    # as TF 2.21, another insertion order is the same signature: the first trace's order stays ([1., 2.], 1 trace)
    out = stack_values({"a": tj.constant(2.0), "b": tj.constant(1.0)})
    assert out.numpy().tolist() == [1.0, 2.0] and stack_values.experimental_get_tracing_count() == 1
    x = tj.constant(3.0)  # and a tape over the call sees the same order
    with tj.GradientTape() as tape:
        tape.watch(x)
        out = stack_values({"b": x * 2.0, "a": x * 3.0})
    assert out.numpy().tolist() == [6.0, 9.0]
    assert float(tape.gradient(out, x, output_gradients=[1.0, 10.0])) == 32.0


# ------------------------------------------------------------------------------------------------------------
# Methods, modules and Variables created on the first call
# ------------------------------------------------------------------------------------------------------------

class _DefunnedMiniModel(tj.Module):
    """function_test's DefunnedMiniModel: a Dense(1) with ones initializers whose call is a tj.function."""

    def __init__(self):
        super().__init__()
        self.kernel = None

    @tj.function
    def call(self, inputs, training=True):
        if self.kernel is None:
            self.kernel = tj.Variable(tnp.ones([2, 1]))
            self.bias = tj.Variable(tnp.ones([1]))
        return tnp.matmul(inputs, self.kernel) + self.bias


def test_decorated_method():
    # testDecoratedMethod: by position, by keyword and through the class, the same result ([[3.]] in TF)
    m = _DefunnedMiniModel()
    one = m.call(tnp.ones([1, 2]), training=True)
    two = m.call(inputs=tnp.ones([1, 2]), training=True)
    via_class = _DefunnedMiniModel.call(m, tnp.ones([1, 2]), training=True)
    for out in (one, two, via_class):
        assert out.numpy().tolist() == [[3.0]]
    assert m.call.experimental_get_tracing_count() == 2  # TF traces a Variable-creating function twice
    # gradient through the method call (TF 2.21: [[6.]], kernel [[2.], [3.]], bias [1.]; training=False traces)
    with tj.GradientTape() as tape:
        y = m.call(tj.constant([[2.0, 3.0]]), training=False)
    gk, gb = tape.gradient(y, [m.kernel, m.bias])
    assert y.numpy().tolist() == [[6.0]]
    close(gk, [[2.0], [3.0]])
    close(gb, [1.0])
    assert m.call.experimental_get_tracing_count() == 3


def test_decorated_method_unique_function_per_instance():
    # testDecoratedMethodUniqueFunctionPerInstance
    m, n = _DefunnedMiniModel(), _DefunnedMiniModel()
    assert _DefunnedMiniModel.call == _DefunnedMiniModel.call
    assert m.call == m.call
    assert n.call == n.call
    assert m.call != n.call


def test_decorated_method_inspect():
    # testDecoratedMethodInspect: the bound method's argument list names `training` (self dropped, as TF)
    m = _DefunnedMiniModel()
    spec = inspect.getfullargspec(m.call)
    assert spec.args == ["inputs", "training"] and spec.defaults == (True,)
    assert list(inspect.signature(m.call).parameters) == ["inputs", "training"]
    assert list(inspect.signature(_DefunnedMiniModel.call).parameters) == ["self", "inputs", "training"]


def test_decorated_method_inspect_unbound():
    # testDecoratedMethodInspect through the class, and on a plain function (TF 2.21: the wrapped function's args)
    assert inspect.getfullargspec(_DefunnedMiniModel.call).args == ["self", "inputs", "training"]

    def plain(a, b=1):
        return a

    spec = inspect.getfullargspec(tj.function(plain))
    assert spec.args == ["a", "b"] and spec.defaults == (1,)


def _module_variables_after_delete():
    m = _DefunnedMiniModel()
    m.call(tnp.ones([1, 2]))
    variables = list(m.variables)
    assert len(variables) == 2
    del m
    return variables


def test_decorated_method_variable_cleanup():
    # testDecoratedMethodVariableCleanup: once the object is gone, only our list refers to its Variables
    # (getrefcount 2: the list and getrefcount's argument). The collector is off, as it may not run here.
    gc.disable()
    try:
        variables = _module_variables_after_delete()
        counts = [sys.getrefcount(variables[0]), sys.getrefcount(variables[1])]
        assert counts == [2, 2]
    finally:
        gc.enable()


def test_decorated_method_variable_cleanup_after_collection():
    # the same, once the garbage collector has run: nothing keeps the Variables alive
    variables = _module_variables_after_delete()
    gc.collect()
    # (counted outside the assert: pytest's rewritten assert would hold variables[0] in a temporary)
    counts = [sys.getrefcount(variables[0]), sys.getrefcount(variables[1])]
    assert counts == [2, 2]


def test_defun_keras_model_call():
    # testDefunKerasModelCall: an instance's bound method wrapped by tj.function and assigned back to it
    class MiniModel(tj.Module):
        def __init__(self):
            super().__init__()
            self.kernel = None

        def call(self, inputs, training=True):
            if self.kernel is None:
                self.kernel = tj.Variable(tnp.ones([2, 1]))
                self.bias = tj.Variable(tnp.ones([1]))
            return tnp.matmul(inputs, self.kernel) + self.bias

        def __call__(self, inputs):
            return self.call(inputs)

    model = MiniModel()
    model.call = tj.function(model.call)
    assert model(tnp.ones([1, 2])).numpy().tolist() == [[3.0]]
    assert len(model.trainable_variables) == 2
    del model.call  # (TF breaks the model <-> function cycle the same way)


def test_layer_in_defun():
    # testLayerInDefun: a Conv2D(filters=1, kernel_size=2) with ones / zeros initializers built inside the call
    class Conv2D(tj.Module):
        def __init__(self):
            super().__init__()
            self.kernel = None

        def __call__(self, x):
            if self.kernel is None:
                self.kernel = tj.Variable(tnp.ones([2, 2, 1, 1]))
                self.bias = tj.Variable(tnp.zeros([1]))
            y = tj.nn.conv(x, self.kernel, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"))
            return y + self.bias

    conv = Conv2D()

    @tj.function
    def model(x):
        return conv(x)

    assert model(tnp.ones([1, 2, 2, 1])).numpy().tolist() == [[[[4.0]]]]
    assert model(tnp.ones([1, 2, 2, 1])).numpy().tolist() == [[[[4.0]]]]


def test_reference_cycles():
    # testReferenceCycles: a called tj.function is freed as soon as its last reference goes (no collector needed)
    gc.disable()
    try:
        fn = tj.function(lambda x: 2.0 * x)
        assert fn(tj.constant(4.0)).numpy() == 8.0
        weak_fn = weakref.ref(fn)
        del fn
        assert weak_fn() is None
    finally:
        gc.enable()


# ------------------------------------------------------------------------------------------------------------
# Training loop inside a function
# ------------------------------------------------------------------------------------------------------------

def test_standard_training_loop_in_function():
    # testStandardTrainingLoopInFunction: Dense(2) built on the first call, Adam with Keras's defaults, sparse
    # softmax cross-entropy, one batch of 10 examples (the dataset's repeat(10).batch(32)); train() run twice.
    kernel0 = np.linspace(-0.5, 0.5, 16, dtype=np.float32).reshape(8, 2)
    x = tj.constant(np.linspace(-1, 1, 80, dtype=np.float32).reshape(10, 8))
    y = tj.constant(np.ones([10], np.int32))
    batches = [(x, y)]

    class Dense(tj.Module):
        def __init__(self):
            super().__init__()
            self.kernel = None

        def __call__(self, inputs):
            if self.kernel is None:
                self.kernel = tj.Variable(kernel0)
                self.bias = tj.Variable(tnp.zeros([2]))
            return tnp.matmul(inputs, self.kernel) + self.bias

    layer = Dense()
    optimizer = tj.optimizers.Adam()

    @tj.function
    def train():
        loss = None
        for xb, yb in batches:
            with tj.GradientTape() as tape:
                out = layer(xb)
                loss = tnp.mean(tj.nn.sparse_softmax_cross_entropy_with_logits(labels=yb, logits=out))
            variables = layer.trainable_variables
            grads = tape.gradient(loss, variables)
            optimizer.apply_gradients(zip(grads, variables))
        return loss

    l1, l2 = train(), train()
    close(l1, 0.70509493, rtol=1e-5)
    close(l2, 0.70339394, rtol=1e-5)
    close(layer.kernel, np.array([
        -0.4980005, -0.43533283, -0.36466727, -0.30199942, -0.23133403, -0.16866598, -0.09800089, -0.035332453,
        0.03533213, 0.098001204, 0.16866477, 0.23133524, 0.30199555, 0.36467114, 0.4337013, 0.49963203],
        np.float32).reshape(8, 2), rtol=1e-5, atol=2e-6)
    close(layer.bias, [-0.001999947, 0.001999947], rtol=1e-4, atol=1e-7)
