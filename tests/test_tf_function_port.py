"""tj.function against TensorFlow's own tests of tf.function
(tensorflow/python/eager/polymorphic_function/polymorphic_function_test.py), eager calls only.

TF is not imported: its values are hard-coded, each test names the TF test it ports."""
import functools
import gc
import weakref

import numpy as np
import pytest

import tapejax as tj


# -- errors -------------------------------------------------------------------------------------------
def test_not_callable_raises_type_error():
    # testPythonFunctionNotCallable: tf.function(1) -> TypeError('1 is not a callable object')
    with pytest.raises(TypeError, match="is not a callable object"):
        tj.function(1)


def test_unhashable_argument_raises_type_error():
    # testNoHash: f(set([])) -> TypeError('Could not generate a generic TraceType for set()...')
    @tj.function
    def f(_):
        return 1.0

    with pytest.raises(TypeError, match="Could not generate a generic TraceType"):
        f(set([]))


def test_weakref_argument_raises_type_error():
    # testWeakrefInputsRejected: f(weakref.ref(o)) -> TypeError('weakref input ... not supported')
    class Dummy:
        pass

    o = Dummy()
    with pytest.raises(TypeError, match="weakref"):
        tj.function(lambda x: x)(weakref.ref(o))


@pytest.mark.parametrize("body", [
    lambda l: l.append(tj.constant(0.)), lambda l: l.extend([tj.constant(0.)]),
    lambda l: l.insert(0, tj.constant(0.)), lambda l: l.pop(), lambda l: l.reverse(),
    lambda l: l.remove(l[0]), lambda l: l.clear()])
def test_function_modifying_its_input_list_raises(body):
    # testFunctionModifiesInputList: ValueError '.*() should not modify'
    with pytest.raises(ValueError, match="should not modify"):
        tj.function(body)([tj.constant(0.), tj.constant(1.)])


@pytest.mark.parametrize("body", [
    lambda m: m.clear(), lambda m: m.pop("t1"), lambda m: m.popitem(),
    lambda m: m.update({"t1": tj.constant(3.)}), lambda m: m.setdefault("t3", tj.constant(3.))])
def test_function_modifying_its_input_dict_raises(body):
    # testFunctionModifiesInputDict (update with the same key still counts: the leaf is another object)
    with pytest.raises(ValueError, match="should not modify"):
        tj.function(body)({"t1": tj.constant(0.), "t2": tj.constant(1.)})


def test_function_modifying_nested_input_or_kwargs_raises():
    # testFunctionModifiesInputNest and the kwargs case of testFunctionModifiesInputList
    def modify_same_flat(n):
        n[0].append(n[1].pop(0))  # same flat leaves, another structure

    with pytest.raises(ValueError, match="modify_same_flat.* should not modify"):
        tj.function(modify_same_flat)([[tj.constant(0.)], [tj.constant(1.), tj.constant(2.)]])

    def kwdappend(**kwargs):
        kwargs["l"].append(tj.constant(0.))

    with pytest.raises(ValueError, match="should not modify"):
        tj.function(kwdappend)(l=[tj.constant(0.), tj.constant(1.)])


def test_first_call_creating_variables_also_checks_its_inputs():
    state = []

    @tj.function
    def f(l):
        if not state:
            state.append(tj.Variable(1.0))
        l.append(1)
        return state[0] * 2.0

    with pytest.raises(ValueError, match="should not modify"):
        f([tj.constant(1.0)])


# -- binding calls to the signature --------------------------------------------------------------------
def test_missing_and_duplicate_arguments_raise_inspects_type_error():
    # testMissingArgsTfFunctionedFunctions / ...Method / ...Object / testWithExtraWrapperMissingArgs:
    # TypeError 'missing a required argument' (inspect.Signature.bind's message, not Python's)
    def func_pos(position_arg1, position_arg2):
        return position_arg1, position_arg2

    with pytest.raises(TypeError, match="missing a required argument: 'position_arg1'"):
        tj.function(func_pos)(position_arg2="foo")

    class A:
        def __call__(self, position_arg1, position_arg2):
            return position_arg1, position_arg2

        @tj.function
        def method(self, x, y):
            return x + y

    with pytest.raises(TypeError, match="missing a required argument"):
        tj.function(A())(position_arg2="bar")
    a = A()
    with pytest.raises(TypeError, match="missing a required argument: 'y'"):
        a.method(2)
    with pytest.raises(TypeError, match="missing a required argument: 'x'"):
        a.method(y=2)
    # testWithExtraWrapperRedundantArgs
    with pytest.raises(TypeError, match="multiple values for argument"):
        a.method(2, x=3)
    assert int(a.method(2, 3)) == 5


def test_keyword_positional_and_default_calls_share_one_trace():
    # TF binds each call to the signature: f(t), f(x=t), f(t, 2), f(t, y=2) -> experimental_get_tracing_count 1;
    # testSameConcreteFunctionDifferentKwargOrder: foo(a=, b=) and foo(b=, a=) -> 1 concrete function
    runs = []

    @tj.function
    def f(x, y=2):
        runs.append(1)
        return x + y

    t = tj.constant(1.0)
    for out in (f(t), f(x=t), f(t, 2), f(t, y=2)):
        assert float(out) == 3.0
    assert f.experimental_get_tracing_count() == 1 and len(runs) == 1

    @tj.function
    def foo(**kwargs):
        return kwargs["a"] + kwargs["b"]

    foo(a=tj.constant(1.0), b=tj.constant(1.0))
    foo(b=tj.constant(1.0), a=tj.constant(1.0))
    assert foo.experimental_get_tracing_count() == 1


def test_tensor_default_argument_of_a_method():
    # testDefuningInstanceMethod / ...WithDefaultArgument: a Tensor default is an input of the program
    integer = tj.constant(2)

    class Foo:
        def one(self, tensor):
            return tensor

        @tj.function
        def two(self, tensor, other=integer):
            return self.one(tensor), other

        @tj.function
        def func(self, other=integer):
            return other

    foo = Foo()
    for _ in range(2):  # the second call takes the cached program
        one, two = foo.two(tj.constant(1.0))
        assert one.numpy() == 1.0 and two.numpy() == 2 and two.dtype == np.int32
    assert foo.func().numpy() == 2  # (only the default: int32 here, TF's int64 with x64 off)


def test_functools_partial():
    # test_functools_partial*, test_complicated_partial_with_defaults
    assert float(tj.function(functools.partial(lambda x, y: x + y, 1.))(tj.constant(2.))) == 3.

    def f(x=3, y=7):
        return x + y

    func = tj.function(functools.partial(f, y=6))
    assert func().numpy() == 9 and func(y=8).numpy() == 11


# -- outputs -------------------------------------------------------------------------------------------
def test_python_number_outputs_are_tensors():
    # testZipStrictBuiltin: foo(2)[0][0].numpy() == 2; test_recursive_tf_function: recursive_fn(5).numpy() == 1;
    # testWithExtraWrapper: foo.add(2, 3).numpy() == 6. TF 2.21: return (x, 3, None, (1.5,)) gives
    # (Tensor, <tf.Tensor 3 int32>, None, (<tf.Tensor 1.5 float32>,))
    @tj.function
    def foo(x):
        return list(zip([x], [x]))

    out = foo(2)
    assert isinstance(out, list) and isinstance(out[0], tuple)
    assert isinstance(out[0][0], tj.Tensor) and out[0][0].numpy() == 2

    @tj.function
    def recursive_fn(n):
        if n > 0:
            return recursive_fn(n - 1)
        return 1

    assert recursive_fn(5).numpy() == 1

    @tj.function
    def h(x):
        return x, 3, None, (1.5,), True

    a, three, none, (half,), yes = h(tj.constant(1.0))
    assert none is None
    assert three.dtype == np.int32 and three.numpy() == 3
    assert half.dtype == np.float32 and half.numpy() == 1.5
    assert yes.dtype == np.bool_ and bool(yes)
    a, three, _, _, _ = h(tj.constant(2.0))  # cached program: same types
    assert isinstance(three, tj.Tensor) and float(a) == 2.0


def test_python_number_output_of_first_call_creating_variables():
    state = []

    @tj.function
    def f():
        if not state:
            state.append(tj.Variable(2.0))
        return state[0] * 1.0, 7

    for _ in range(2):
        v, seven = f()
        assert float(v) == 2.0 and isinstance(seven, tj.Tensor) and int(seven) == 7


def test_python_number_output_under_a_tape_has_no_gradient():
    x = tj.Variable(3.0)

    @tj.function
    def f():
        return x * x, 1.0

    with tj.GradientTape(persistent=True) as tape:
        y, one = f()
    assert float(tape.gradient(y, x)) == 6.0
    assert tape.gradient(one, x) is None


# -- tracing counts and the cache --------------------------------------------------------------------
def test_experimental_get_tracing_count():
    # test_experimental_get_tracing_count_function / _method ('a' string tensors replaced by another dtype)
    @tj.function
    def double(a):
        return a + a

    double(tj.constant(1))
    double(tj.constant(2))
    assert double.experimental_get_tracing_count() == 1
    double(tj.constant(1.5))
    assert double.experimental_get_tracing_count() == 2

    class TestClass:
        @tj.function
        def double(self, a):
            return a + a

    obj1, obj2 = TestClass(), TestClass()
    obj1.double(tj.constant(1))
    obj1.double(tj.constant(2))
    obj1.double(tj.constant(1.1))
    assert obj1.double.experimental_get_tracing_count() == 2
    obj2.double(tj.constant(1))
    obj2.double(tj.constant(1.1))
    obj2.double(tj.constant([1.0]))
    assert obj2.double.experimental_get_tracing_count() == 3
    assert obj1.double.experimental_get_tracing_count() == 2


def test_clear_cache():
    # test_clear_cache, test_clear_cache_method_descriptor
    @tj.function
    def double(a):
        return a + a

    assert int(double(tj.constant(1))) == 2
    double(tj.constant(1.5))
    assert double.experimental_get_tracing_count() == 2
    double.clear_cache()
    assert double.experimental_get_tracing_count() == 0
    assert int(double(tj.constant(1))) == 2
    assert double.experimental_get_tracing_count() == 1

    class Model:
        @tj.function
        def call(self, x):
            return x + 1

    m1 = Model()
    assert int(m1.call(tj.constant(1))) == 2
    assert m1.call.experimental_get_tracing_count() == 1
    Model.call.clear_cache()
    assert m1.call.experimental_get_tracing_count() == 0
    assert int(m1.call(tj.constant(1))) == 2
    assert m1.call.experimental_get_tracing_count() == 1


def test_clear_cache_with_variable_created_on_first_call():
    # test_clear_cache_with_variable: a Variable-creating function traces twice (TF: count 2), and after
    # clear_cache it may create its Variable again
    v = None

    @tj.function
    def f(x):
        nonlocal v
        if v is None:
            v = tj.Variable(1.0)
        return v * x

    assert float(f(tj.constant(2.0))) == 2.0
    assert f.experimental_get_tracing_count() == 2
    f.clear_cache()
    v = None
    assert f.experimental_get_tracing_count() == 0
    assert float(f(tj.constant(3.0))) == 3.0
    assert f.experimental_get_tracing_count() == 2


def test_function_is_freed_without_garbage_collection():
    # testFunctionReferenceCycles (run under assert_no_garbage_created): no reference cycle
    fn = tj.function(lambda x: 2. * x)
    fn(tj.constant(4.0))
    weak_fn = weakref.ref(fn)
    gc.disable()
    try:
        del fn
        assert weak_fn() is None
    finally:
        gc.enable()


# -- Variables as arguments: traced by shape and dtype (TF's VariableSpec), not by identity ------------
def test_variable_arguments_of_the_same_kind_share_one_trace():
    # testVariableUpdate: double_variable(v1); double_variable(v2) (same shape and dtype) does not
    # retrace; an int32 Variable does. v1 -> 2.0, v2 -> 4.0, v3 -> 8
    v1, v2, v3 = tj.Variable(1.0), tj.Variable(2.0), tj.Variable(4, dtype=tj.int32)
    trace_count = [0]

    @tj.function
    def double_variable(x):
        trace_count[0] += 1
        x.assign_add(x.read_value())

    double_variable(v1)
    assert trace_count[0] == 1 and float(v1.numpy()) == 2.0
    double_variable(v2)
    assert trace_count[0] == 1 and float(v2.numpy()) == 4.0
    assert float(v1.numpy()) == 2.0  # the assignment went to v2 only
    double_variable(v3)
    assert trace_count[0] == 2 and int(v3.numpy()) == 8
    assert double_variable.experimental_get_tracing_count() == 2


def test_variable_argument_retracing_on_dtype_and_shape():
    # testVariableRetracingOnDtypeChanges / testVariableRetracingDtypeShape: 1, 2, 3 concrete functions
    @tj.function
    def defined(a, b):
        return a + b

    defined(tj.Variable(0.0), tj.Variable(0.0))
    defined(tj.Variable(1.0), tj.Variable(2.0))
    assert defined.experimental_get_tracing_count() == 1
    defined(tj.Variable(0), tj.Variable(1))
    assert defined.experimental_get_tracing_count() == 2
    defined(tj.Variable([0.0, 1.0]), tj.Variable([0.0, 1.0]))
    assert defined.experimental_get_tracing_count() == 3


def test_aliased_variable_arguments_are_their_own_signature():
    # testSameVariableTwice: add(v, v) == 2.0; TF's alias_id keeps add(v, v) and add(v1, v2) apart
    @tj.function
    def add_to_first(a, b):
        a.assign_add(b)
        return a.read_value()

    v = tj.Variable(1.0)
    assert float(add_to_first(v, v)) == 2.0
    v1, v2 = tj.Variable(1.0), tj.Variable(10.0)
    assert float(add_to_first(v1, v2)) == 11.0
    assert float(v2.numpy()) == 10.0
    w = tj.Variable(3.0)
    assert float(add_to_first(w, w)) == 6.0
    assert add_to_first.experimental_get_tracing_count() == 2


def test_variable_argument_that_is_also_closed_over():
    # testVariable: lambda x, v: x + v1 + v, called with v1 itself and with another Variable
    v1 = tj.Variable(1.0)

    @tj.function
    def add(x, v):
        v.assign_add(1.0)
        return x + v1 + v

    assert float(add(tj.constant(1.0), v1)) == 5.0  # v1 is 2 after the assignment: 1 + 2 + 2
    v2 = tj.Variable(1.0)
    assert float(add(tj.constant(1.0), v2)) == 5.0  # 1 + 2 + 2
    assert float(v1.numpy()) == 2.0 and float(v2.numpy()) == 2.0
    v3 = tj.Variable(5.0)
    assert float(add(tj.constant(1.0), v3)) == 9.0
    assert float(v1.numpy()) == 2.0 and float(v3.numpy()) == 6.0


def test_gradients_through_a_variable_argument_of_a_reused_trace():
    # testImplementsAttributeWorksWithGradientTape: add(x, y) = x + y**2 -> dg/dy 4, dg/dx 1; the second
    # pair of Variables reuses the program and gets its own gradients
    add = tj.function(lambda x, y: x + y ** 2)
    for xv, yv in [(3.0, 2.0), (5.0, 3.0)]:
        x, y = tj.Variable(xv), tj.Variable(yv)
        with tj.GradientTape() as tape:
            g = add(x, y)
        dg_dy, dg_dx = tape.gradient(g, [y, x])
        assert float(dg_dy) == 2 * yv and float(dg_dx) == 1.0
        assert tape.watched_variables() == (x, y)
    assert add.experimental_get_tracing_count() == 1


def test_nested_functions_assigning_variable_arguments():
    # testReduceTracingWithNestedTFFunction (without reduce_retracing): y [4, 5] then [7, 8], grad [1, 1];
    # testFunctionWithNestedFunctionCallAndSideEffects: 4.0
    @tj.function
    def inner(x):
        x.assign_add([2., 2.])
        return x

    @tj.function
    def outer(x):
        x.assign_add([1., 1.])
        return inner(x)

    v = tj.Variable([1., 2.])
    for expected in ([4., 5.], [7., 8.]):
        with tj.GradientTape() as tape:
            y = outer(v)
        np.testing.assert_allclose(y.numpy(), expected)
        np.testing.assert_allclose(tape.gradient(y, v).numpy(), [1., 1.])
    w = tj.Variable([0., 0.])
    np.testing.assert_allclose(outer(w).numpy(), [3., 3.])
    np.testing.assert_allclose(v.numpy(), [7., 8.])

    @tj.function
    def add_one(a):
        a.assign_add(1.0)

    @tj.function
    def side_effecting_function(a, b):
        add_one(a)
        add_one(b)
        return a + b

    assert float(side_effecting_function(tj.Variable(1.0), tj.Variable(1.0))) == 4.0


def test_tensor_escaping_a_trace_is_out_of_scope():
    # testSymbolicTensorIllegalCaptureCallTimeError: TypeError '... out of scope'
    x = None

    @tj.function
    def f1(a):
        nonlocal x
        x = a
        return a

    @tj.function
    def f2(b):
        return b + x

    f1(tj.constant(1))
    with pytest.raises(TypeError, match="out of scope"):
        f2(tj.constant(2))


def test_nested_function_closing_over_the_outer_traces_tensor():
    # the legitimate case: an inner tj.function traced inside the outer one uses the outer trace's Tensor
    @tj.function
    def outer(x):
        y = x * 2.0

        @tj.function
        def inner(z):
            return z + y

        return inner(x)

    assert float(outer(tj.constant(1.0))) == 3.0
    x = tj.Variable(1.0)
    with tj.GradientTape() as tape:
        out = outer(x)
    assert float(out) == 3.0 and float(tape.gradient(out, x)) == 3.0


def test_method_is_freed_without_garbage_collection():
    # testMethodReferenceCycles: the instance's Function dies with the instance, no cycle
    class HasDecoratedMethod:
        @tj.function
        def f(self, x):
            return x * 3.

    obj = HasDecoratedMethod()
    obj.f(tj.constant(5.))
    weak_fn = weakref.ref(obj.f)
    gc.disable()
    try:
        del obj
        assert weak_fn() is None
    finally:
        gc.enable()


# -- the frequent-retracing warning ------------------------------------------------------------------
def _retracing_warnings(caplog):
    return [r for r in caplog.records if "Tracing is expensive" in r.getMessage()]


def test_frequent_retracing_warning(caplog):
    # test_frequent_retracing_warning: f(1)..f(4) log nothing, f(5) logs once; test_retracing_warning_limits:
    # ten traces log twice
    @tj.function
    def f(x):
        return x

    with caplog.at_level("WARNING"):
        for i in range(1, 5):
            f(i)
        assert not _retracing_warnings(caplog)
        f(5)
        assert len(_retracing_warnings(caplog)) == 1
        for i in range(6, 11):
            f(i)
        assert len(_retracing_warnings(caplog)) == 2
        for _ in range(3):
            f(1)  # cached: no tracing, no warning
        assert len(_retracing_warnings(caplog)) == 2


def test_frequent_retracing_warning_counts_eager_calls_per_python_function(caplog):
    # test_frequent_retracing_warning_nested: traces of inner made inside outer1/outer2 do not count;
    # test_frequent_retracing_warning_on_reinstantiation: a tj.function re-created in a loop counts as one
    @tj.function
    def inner(x):
        return x + 1

    @tj.function
    def outer1(x):
        return inner(x) * 2

    @tj.function
    def outer2(x):
        return inner(x) * 3

    with caplog.at_level("WARNING"):
        for i in range(1, 5):
            inner(i)
        for i in range(5, 9):
            outer1(i)
        for i in range(9, 13):
            outer2(i)
        assert not _retracing_warnings(caplog)
        outer2(13)
        assert len(_retracing_warnings(caplog)) == 1

    caplog.clear()
    with caplog.at_level("WARNING"):
        for i in range(5):
            @tj.function
            def g(x):
                return x

            g(i)
            assert len(_retracing_warnings(caplog)) == (1 if i == 4 else 0)


def test_default_arguments_with_repeated_tensor_calls():
    # the cached path for calls with positional Tensors only must still pass the defaults' arrays and
    # Variables (and bake static defaults)
    v = tj.Variable(10.0)
    w = tj.constant(100.0)

    @tj.function
    def f(x, scale=2.0, *, var=v, offset=w):
        var.assign_add(1.0)
        return x * scale + var + offset

    for i in range(3):
        assert float(f(tj.constant(1.0))) == 2.0 + 11.0 + i + 100.0
    assert float(v.numpy()) == 13.0
    other = tj.Variable(0.0)
    assert float(f(tj.constant(1.0), var=other, offset=tj.constant(0.0))) == 3.0
    assert float(other.numpy()) == 1.0 and float(v.numpy()) == 13.0

    @tj.function
    def g(x, training=False):
        return x * 2.0 if training else x

    for _ in range(3):
        assert float(g(tj.constant(3.0))) == 3.0
        assert float(g(tj.constant(3.0), True)) == 6.0
    assert g.experimental_get_tracing_count() == 2
