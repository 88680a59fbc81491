"""TensorFlow test methods of tensorflow/python/eager/backprop_test.py, tensorflow/python/eager/forwardprop_test.py
and tensorflow/python/ops/gradients_test.py that no other test file ported yet, ported to tapejax.

Each test names the TF test it ports. Expected values are TF 2.21's, computed once with the installed
TensorFlow on the same program and hard-coded here (TF is not imported). ``tf.gradients`` becomes
``tj.gradients`` inside a ``tj.function`` (graph-mode tests become tj.function bodies); TF's old eager helper
``backprop.gradients_function`` becomes a ``tj.GradientTape`` that watches the argument; TF's Keras/compat
``Dense`` layer becomes a ``tj.Variable`` kernel and a matmul.

Ported: backprop_test BackpropTest.testMaxPooling3DGradient; forwardprop_test
ForwardpropTest.testIndexSlicesGradInFunction and .testNumericHigherOrderFloat64 (run under
``jax.enable_x64(True)``: with x64 off, which API.md makes the default, float64 is float32 and the test is
test_tf_forwardprop_port2.py's testNumericHigherOrder); gradients_test PreventGradientTest.testPreventGradient
(TF's PreventGradient op is a ``tj.op`` whose backward kernel raises TF's LookupError),
CustomGradientTest.testCustomGradientWithVariablesEager, and the eager forms of
GetDependentVariablesTest.testVariablesOutsideButDSeparated and .testVariableSamePrefix (which variables a
custom gradient's ``grad_fn`` receives; the other GetDependentVariablesTest cases are in
test_tf_customgrad_port.py).

Left out (out of API.md's scope), by reason:
  * TF internals with no tapejax counterpart: backprop_test testGetAttrType, testGetAttrList, testMakeAttrType,
    testMakeAttrTypeList, testMakeAttrString, testMakeAttrStringList, testMakeAttrShape, testMakeAttrShapeList
    (op-attribute helpers); forwardprop_test testJVPFunction, testJVPFunctionWithBatchOfTangents,
    testJVPFunctionRaisesError, testJVPFunctionUsedByAccumulatorForOps (``_jvp_dispatch`` /
    TFE_Py_RegisterJVPFunction), testPushPopAccumulatorState (``forwardprop_util.push_forwardprop_state``),
    testRecordingWithJVPIndices, testSpecialForwardFunctionUsed (``record_operation`` with packed JVP indices),
    testRunFunctionsEagerly (``tf.config.run_functions_eagerly``); gradients_test testOptimizeIdentityN
    (``gradients_util._GradientsHelper(optimize_identity_n=True)``), testGetVariableByName
    (``custom_gradient.get_variable_by_name``), FunctionGradientsTest.testFunctionGradientWithGradFuncAndRegistration
    (``framework_function.Defun`` gradient registration).
  * Graph op names / colocation / device placement strings: backprop_test testNameScope, testGPU,
    testGPUImplicitGrad, testTensorCopyGPU2CPU2GPU, testTensorCopyCPU2GPU2CPU; gradients_test testColocateGradients,
    testColocateGradientsWithAggregation, testColocateGradientsWithAggregationInMultipleDevices,
    testColocateGradientsWithGateGradients.
  * TF1 sessions, placeholders, ref variables, tf.cond / tf.while_loop internals: backprop_test
    testGradientInsideLoop (a tape inside a graph-mode while_loop body), testUnknownShapes (placeholder of
    unknown shape in a session); gradients_test testHessianInvalidDimension (placeholders given to tf.hessians),
    testRVGradientsDynamicCond (placeholder_with_default feeding tf.cond in a session),
    testCustomGradientErrorsWithNonResourceVariables (TF1 ref variables).
  * String tensors / test ops with string outputs: backprop_test testTapeNoOpGradientStringSourceAndTarget,
    testTapeNoOpGradientWithMultiTargetMultiSourceIncludeString (its float part is
    testTapeNoOpGradientWithMultiTargetMultiSource, already ported); gradients_test
    testNoGradientForStringOutputsWithOpNamespace.
  * Resource handles: backprop_test testResourceHandleOutputWithoutHandleData.
  * IndexedSlices / SparseTensor / RaggedTensor / quantized dtypes: backprop_test testWatchComposite
    (SparseTensor), AggregateIndexedSlicesGradientsTest (testNoGradients, testOneGradient,
    testMultipleGradients, testMultipleGradientsWithNones, testMixedTensorAndIndexedSlices); gradients_test
    testSingletonIndexedSlices, testIndexedSlicesToTensorList, testWarnings, testCustomGradientRaggedTensor,
    testCustomGradientMultipleRaggedTensors, testCustomGradientQuantizedDtypeTraining (qint8).
  * Distribution strategies: forwardprop_test testMirroredVariableWatched.
Superseded: forwardprop_test testCustomGradientRecomputeGrad (old TF versions: forward-mode Jacobians of a
recompute_grad function) is replaced in TF 2.21 by testExceptionCustomGradientRecomputeGradForward
(NotImplementedError, as API.md says), already ported.
"""
import jax
import numpy as np
import pytest

import tapejax as tj
from tapejax import numpy as tnp

ZERO = tj.UnconnectedGradients.ZERO


def close(a, b, rtol=1e-6, atol=0.0):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


# --- backprop_test.py: BackpropTest -------------------------------------------------------------------------

# TF 2.21: max_pooling3d(pool_size=(2, 2, 1), strides=(1, 1, 1), padding='SAME') of arange(1, 25) shaped
# [1, 3, 2, 4, 1] (NDHWC), and its gradient (eagerly and by tf.gradients in a tf.function, the same)
_POOL3D_OUT = [13., 14., 15., 16., 13., 14., 15., 16., 21., 22., 23., 24.,
               21., 22., 23., 24., 21., 22., 23., 24., 21., 22., 23., 24.]
_POOL3D_GRAD = [0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,
                2., 2., 2., 2., 0., 0., 0., 0., 4., 4., 4., 4.]


def _pool3d(a):
    return tj.nn.max_pool(a, window_shape=(2, 2, 1), strides=(1, 1, 1), padding="SAME")


def test_max_pooling_3d_gradient_eager():
    # testMaxPooling3DGradient (eager half: backprop.gradients_function(forward)(aa))
    aa = tj.constant(np.arange(1, 25, dtype=np.float32).reshape(1, 3, 2, 4, 1))
    with tj.GradientTape() as t:
        t.watch(aa)
        r = _pool3d(aa)
    close(r.numpy().reshape(-1), _POOL3D_OUT)
    da = t.gradient(r, aa)
    assert da.shape == (1, 3, 2, 4, 1)
    close(da.numpy().reshape(-1), _POOL3D_GRAD)


def test_max_pooling_3d_gradient_graph():
    # testMaxPooling3DGradient (graph half: tf.gradients(tf_max, [tf_aa]) equals the eager gradient)
    @tj.function
    def f(a):
        return tj.gradients(_pool3d(a), [a])[0]

    da = f(tj.constant(np.arange(1, 25, dtype=np.float32).reshape(1, 3, 2, 4, 1)))
    close(da.numpy().reshape(-1), _POOL3D_GRAD)


# --- forwardprop_test.py: ForwardpropTest -------------------------------------------------------------------

def test_index_slices_grad_in_function():
    # testIndexSlicesGradInFunction: the JVP of gather(a, 0) computed inside a tf.function -> 3.0
    @tj.function
    def f(a):
        return tnp.take(a, 0)

    x = tj.constant([1.])
    with tj.ForwardAccumulator(x, tj.constant([3.])) as acc:
        y = f(x)
    close(y, 1.0)
    close(acc.jvp(y), 3.0)


# TF 2.21 (float64): gradient_checker_v2's symbolic Jacobians of f, grad f and grad grad f at [[2, 3], [1, 4]]
_F64_JACOBIANS = [
    [[-41.54987538872389, -2.4838298463925623, -19.18710553005256, 13.025868045476539],
     [-16.70034957452097, -0.7729607943065081, -19.215777242403547, 7.516916255209282]],
    [[471.30973824298826, 12.29372344881003, 137.63577584182752, -93.43907822075349],
     [12.29372344881003, 23.803840012393096, 6.370349204067072, -4.324744449120506],
     [137.63577584182752, 6.370349204067069, -34.04034842889886, -65.90250536854175],
     [-93.43907822075349, -4.324744449120505, -65.90250536854177, 89.42112348822992]],
    [[-4755.064574252728, -139.43396837857537, -155.46956893846044, 158.52015510611716],
     [-139.4339683785754, -119.94601634631002, -26.15764299016125, 20.20992449855445],
     [-155.46956893846044, -26.15764299016125, 428.0210502380904, -365.04842488154077],
     [158.5201551061172, 20.20992449855445, -365.04842488154077, 60.71047695634177]],
]


def test_numeric_higher_order_float64():
    # testNumericHigherOrderFloat64: TF's _test_gradients(f, [float64 [[2, 3], [1, 4]]], order=3): for f and
    # its first two tape gradients, the forward-mode Jacobian (one JVP per one-hot tangent, TF's _jacfwd) and
    # the reverse-mode Jacobian equal TF's float64 Jacobians (float64 needs JAX's x64, on for this test only)
    def f(x):
        pointwise = tnp.sin(x) * tnp.tan(x)
        return tnp.prod(pointwise + tnp.sum(pointwise), axis=1)

    def grad_of(f):
        def g(x):
            with tj.GradientTape() as tape:
                tape.watch(x)
                out = f(x)
            return tape.gradient(out, x, unconnected_gradients=ZERO)
        return g

    with jax.enable_x64(True):
        x = tj.constant([[2.0, 3.0], [1.0, 4.0]], dtype=np.float64)
        assert x.dtype == np.float64
        for want in _F64_JACOBIANS:
            cols = []
            for e in range(4):
                tangent = tj.constant(np.eye(4)[e].reshape(2, 2), dtype=np.float64)
                with tj.ForwardAccumulator(x, tangent) as acc:
                    out = f(x)
                jvp = acc.jvp(out, unconnected_gradients=ZERO)
                assert jvp.dtype == np.float64
                cols.append(np.asarray(jvp).reshape(-1))
            fwd = np.stack(cols, axis=1)
            with tj.GradientTape() as tape:
                tape.watch(x)
                out = f(x)
            back = np.asarray(tape.jacobian(out, x)).reshape(fwd.shape)
            assert out.dtype == np.float64 and back.dtype == np.float64
            close(fwd, want, rtol=1e-10, atol=1e-9)
            close(back, want, rtol=1e-10, atol=1e-9)
            f = grad_of(f)


# --- gradients_test.py: PreventGradientTest, CustomGradientTest, GetDependentVariablesTest -------------------

def _prevent_gradient_vjp(primals, cotangents):
    raise LookupError("Gradient explicitly disabled. Reason: b''")


# TF's PreventGradient: the identity, whose registered gradient raises LookupError
prevent_gradient = tj.op(lambda x: x, name="PreventGradient", vjp=_prevent_gradient_vjp)


def test_prevent_gradient_graph():
    # testPreventGradient: tf.gradients through PreventGradient raises LookupError "explicitly disabled"
    @tj.function
    def f():
        inp = tnp.ones((100, 32))
        out = prevent_gradient(inp)
        return tj.gradients(out, inp)

    with pytest.raises(LookupError, match="explicitly disabled"):
        f()


def test_prevent_gradient_eager():
    # testPreventGradient, eagerly (TF 2.21: tape.gradient raises the same LookupError); the forward is the
    # identity
    inp = tnp.ones((2, 3))
    with tj.GradientTape() as t:
        t.watch(inp)
        out = prevent_gradient(inp)
    close(out, np.ones((2, 3)))
    with pytest.raises(LookupError, match="explicitly disabled"):
        t.gradient(out, inp)


def _dense_custom_gradient():
    """testCustomGradientWithVariablesEager's F: a Dense(4, use_bias=False) layer (kernel w, here a Variable of
    deterministic values) inside a custom gradient whose grad_fn returns ones for x and for the variable."""
    w = tj.Variable(np.arange(8, dtype=np.float32).reshape(2, 4) / 10.)
    seen = []

    @tj.custom_gradient
    def F(x):
        out = tnp.matmul(x, w)

        def Grad(out_grad, variables=None):
            del out_grad
            seen.append(variables)
            return tnp.ones((3, 2)), [tnp.ones((2, 4))]
        return out, Grad
    return F, w, seen


def test_custom_gradient_with_variables_eager():
    # testCustomGradientWithVariablesEager: sum(dx) = 6., sum(dw) = 8. (TF 2.21; y rows [1.2, 1.8, 2.4, 3.0])
    F, w, seen = _dense_custom_gradient()
    x = tnp.ones((3, 2)) + 2.
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = F(x)
    close(y, [[1.2, 1.8, 2.4, 3.0]] * 3, rtol=1e-6)
    dx, dw = tape.gradient(y, [x, w])
    assert len(seen[0]) == 1 and seen[0][0] is w
    close(tnp.sum(dx), 6.)
    close(tnp.sum(dw), 8.)


def test_custom_gradient_with_variables_in_function():
    # testCustomGradientWithVariablesEager, the same tape inside a tf.function (TF 2.21: 6., 8.)
    F, w, seen = _dense_custom_gradient()

    @tj.function
    def f(x):
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = F(x)
        dx, dw = tape.gradient(y, [x, w])
        return tnp.sum(dx), tnp.sum(dw)

    sdx, sdw = f(tnp.ones((3, 2)) + 2.)
    close(sdx, 6.)
    close(sdw, 8.)


def test_variables_outside_but_d_separated():
    # testVariablesOutsideButDSeparated, eager form: the variable is read outside F (it reaches F only through
    # its input), so grad_fn gets no variables (TF 2.21: variables=None) and the variable's gradient flows
    # through the input: y = identity(5 * var) + 5 = 505, dy/dvar = 2 * 5 = 10
    var = tj.Variable(100.0)
    seen = []

    @tj.custom_gradient
    def G(x):
        def grad(dy, variables=None):
            seen.append(variables)
            return 2. * dy
        return tj.identity(x) + 5.0, grad

    with tj.GradientTape() as tape:
        input_t = tj.identity(var) * 5.0
        y = G(input_t)
    close(y, 505.0)
    close(tape.gradient(y, var), 10.0)
    assert seen == [None]


def test_variable_same_prefix():
    # testVariableSamePrefix, eager form: variables named "my_variable" and "my_variable_ones" read inside F
    # are both found, in order of first read (TF 2.21: ['my_variable:0', 'my_variable_ones:0']); grad_fn's
    # variable gradients 2 dy and 3 dy reach them: [dx, dv_z, dv_o] = [1, 2, 3], y = 2 + 5 + 0.5 + 1.5 = 9
    v_z = tj.Variable(0.5, name="my_variable")
    v_o = tj.Variable(1.5, name="my_variable_ones")
    seen = []

    @tj.custom_gradient
    def H(x):
        out = tj.identity(x) + 5.0 + v_z + v_o

        def grad(dy, variables=None):
            seen.append(list(variables))
            return dy, [2. * dy, 3. * dy]
        return out, grad

    x = tj.constant(2.0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = H(x)
    close(y, 9.0)
    dx, dvz, dvo = tape.gradient(y, [x, v_z, v_o])
    close(dx, 1.0)
    close(dvz, 2.0)
    close(dvo, 3.0)
    assert len(seen[0]) == 2 and seen[0][0] is v_z and seen[0][1] is v_o
