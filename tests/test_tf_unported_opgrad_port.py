"""Per-op gradient tests from TensorFlow not ported elsewhere in tests/, ported to tapejax.

Sources (the test method is named at each test):
  tensorflow/python/ops/math_grad_test.py (the version the reference index holds): SquaredDifferenceOpTest.testGrad,
    ProdGradientTest.testProdGradient / testProdGradientForNegativeAxis, EuclideanNormGradientTest.testBasic /
    testNegative / testKeepdims / testGradientChain / testTwoElements / test2D_1..4 / test3D_1..4,
    PowGradTest.test_zero_grad_tf_gradients, NextAfterTest.testBasic / testDynamicShapes / testWithGradientChecker /
    testBroadcastingWithGradientChecker;
  tensorflow/python/ops/nn_grad_test.py: SoftmaxOpTest.testSoftmaxGradGradExtendType, Relu6OpTest.testRelu6GradGrad,
    Conv2dOpTest.testConv2dGradWRTInput / testConv2dGradWRTFilter / testConv2dBackpropFilterGrad,
    DepthwiseConv2dTest.testDepthwiseConv2dGradWRTInput / testDepthwiseConv2dGradWRTFilter /
    testDepthwiseConv2dBackpropFilterGrad, EluGradOpTest and SeluGradOpTest .testXxxGradGradWRTgrad_ys /
    testXxxGradGradWRTinputs, SwishGradOpTest.testSwishGrad;
  tensorflow/python/kernel_tests/linalg/linalg_grad_test.py: MatrixBinaryFunctorGradientTest
    .test_MatrixSolveGradient_float64_5_5_adj_{False,True} (and _float64_3_5_5_*, by finite differences);
  tensorflow/python/kernel_tests/nn_ops/xent_op_test_base.py: testNpXent, testHalf, testBfloat16, testDouble,
    testGradient, testGradientLabelWithV2, test3D; xent_op_test.py: testSmallGradientAcrossDtypes,
    testRejectsZeroClasses, testDoublePreservesMultiClassTailGradient, testDoublePreservesSoftLabelsAndPositiveZero,
    testDoublePreservesGeneralLabelGradients;
  tensorflow/python/kernel_tests/sparse_ops/sparse_xent_op_test_base.py: testSingleClass, testNpXent,
    testShapeMismatch, testFloat, testDouble, testHalf, testBfloat16, testEmpty, testGradient, testHighDim,
    testHighDim2.

Expected values are TF 2.21's, computed here with the same program in TF (eager; tf.test.compute_gradient's
theoretical Jacobian for the gradient-checker tests) and hard-coded; TensorFlow is not imported. TF's
gradient-checker tests become: tapejax's Jacobian (tape.jacobian, or a VJP along a fixed cotangent) equals TF's
theoretical one, and, where TF compares against numbers, tapejax's Jacobian against central differences. The
float64 tests run under ``jax.enable_x64(True)`` for the test only. Where the index's TF test asserts a newer TF's
behaviour (xent_op_test.py's "Double preserves ..." tests), TF 2.21's value is pinned.

Left out, by reason:
  ops tapejax does not have (tj.numpy / tj.numpy.linalg / tj.nn have no counterpart):
    math_grad_test SegmentMinOrMaxGradientTest.* (segment_min/max), DivNoNanGradientTest.* (div_no_nan),
    MulNoNanGradientTest.* (mul_no_nan), XlogyTest.*, Xlog1pyTest.*, XdivyTest.* (xlogy/xlog1py/xdivy);
    linalg_grad_test test_MatrixTriangularSolveGradient_* (matrix_triangular_solve),
    test_BandedTriangularSolveGradient_* (banded_triangular_solve), test_MatrixSolveLsGradient_* with
    l2_regularization > 0 (jnp.linalg.lstsq has no regularizer; l2 = 0 is ported in test_tf_linalg_port2.py);
    xent_op_test testRankTooLarge / testNotMatrix / testFeaturesBroadcast (properties of the raw
    gen_nn_ops.softmax_cross_entropy_with_logits kernel: the public tf.nn function, which tj.nn mirrors, accepts
    any rank and, in TF 2.21, rejects logits broadcast against labels);
  TF1 sessions and placeholders fed at run time: xent_op_test testRejectsDynamicallyZeroClasses,
    sparse_xent testLabelsPlaceholderScalar / testScalarHandling;
  device-specific kernel behaviour: sparse_xent testInvalidLabelCPU (the CPU kernel raises; tapejax follows
    the GPU/XLA kernels' NaN rows, ported from testInvalidLabelGPU in test_tf_nn_ops_port.py);
  graph op names: the BatchMatMul checks inside testGradient / testSecondGradient (the values are ported);
  decided differently before: linalg_grad_test DetGradSingularMatrixTest.testSlogdetGradSingularDoesNotCrash /
    testSlogdetGradComplexSingularDoesNotCrash (TF 2.21 raises "Input is not invertible", the index's newer TF
    gives a finite gradient; tapejax keeps jax.numpy's inf / NaN at a singular matrix, as for det in
    test_tf_linalg_port2.py and the README: a check would cost a device sync per call);
  already ported elsewhere in tests/: the rest of these files' methods (each names its TF test).
"""
from __future__ import annotations

import jax
import ml_dtypes
import numpy as np
import pytest

import tapejax as tj
from conftest import jacobian_matrix as _jacobian

tnp = tj.numpy
L = tj.numpy.linalg


def _numerical_jacobian(f, x, delta):
    x = np.asarray(x)
    y0 = np.asarray(f(tj.constant(x)).numpy())
    out = np.zeros((y0.size, x.size))
    for j in range(x.size):
        step = np.zeros(x.size, x.dtype)
        step[j] = delta
        hi = np.asarray(f(tj.constant(x + step.reshape(x.shape))).numpy(), np.float64)
        lo = np.asarray(f(tj.constant(x - step.reshape(x.shape))).numpy(), np.float64)
        out[:, j] = (hi - lo).reshape(-1) / (2 * delta)
    return out


def _vjp(f, xs, w):
    xs = [tj.constant(x) for x in xs]
    with tj.GradientTape() as tape:
        tape.watch(xs)
        y = f(*xs)
    return [g.numpy() for g in tape.gradient(y, xs, output_gradients=tj.constant(np.asarray(w, y.dtype)))]


# == math_grad_test.py ========================================================================================

SQD_CASES = {
    # TF (float64): gx, gy = tape.gradient(tf.math.squared_difference(l, r), [l, r], output_gradients=w) with
    # l = linspace(-1, 1, size(left)), r = cos(arange(size(right))), w = linspace(-2, 3, size(output))
    "left_4d": ([1, 2, 3, 2], [3, 2],
                [8.0, 4.198950928881688, 0.4804730177814413, -0.6814780535245339, -0.1385150356859416,
                 -0.20431160529399095, -1.3223140495867767, -0.6324500783329584, 2.849538407212135, 6.801125646940706,
                 7.492929507867643, 4.298026887220643],
                [-6.677685950413223, -3.5665008505487297, -3.330011424993576, -6.119647593416172, -7.354414472181702,
                 -4.093715281926652]),
    "right_3d": ([2, 4], [3, 2, 4],
                 [8.320645402447253, 2.966564487441607, -3.9845036786946078, -7.220284158677904, -3.89957573066365,
                  3.9530447677371536, 11.087573536282264, 13.399074145537964],
                 [-8.0, -4.47287902837461, -0.03889437503254809, 2.2835822579167284, 1.800784335368663,
                  0.26461687871932565, -0.3421002745942981, 0.23539784367162175, -0.44582606931724517,
                  0.01711691718251848, -0.14278264365392124, 0.11526483196580374, 0.8533874280221645,
                  0.7911853656257904, -1.2053186005103593, -4.437473867209201, 0.12518066686999318, 1.489197623750485,
                  4.166180697381077, 4.8214370687953725, 1.245403967272822, -5.00884701208227, -9.540154661177606,
                  -9.196998122000386]),
}


@pytest.mark.parametrize("name", sorted(SQD_CASES))
def test_squared_difference_grad(name):
    """SquaredDifferenceOpTest.testGrad: the gradient of (l - r)**2 with broadcasting, w.r.t. both sides,
    float64 (TF's gradient-checker error < 1e-10)."""
    ls, rs, want_l, want_r = SQD_CASES[name]
    with jax.enable_x64(True):
        l = np.linspace(-1, 1, int(np.prod(ls))).reshape(ls)
        r = np.cos(np.arange(int(np.prod(rs)), dtype=np.float64)).reshape(rs)
        out = np.broadcast_shapes(tuple(ls), tuple(rs))
        w = np.linspace(-2, 3, int(np.prod(out))).reshape(out)
        gl, gr = _vjp(lambda a, b: tnp.square(a - b), [l, r], w)
        assert gl.dtype == np.float64 and gl.shape == tuple(ls) and gr.shape == tuple(rs)
        np.testing.assert_allclose(gl.ravel(), want_l, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(gr.ravel(), want_r, rtol=1e-12, atol=1e-12)
        # and the Jacobian against central differences (exact for a quadratic, up to rounding)
        np.testing.assert_allclose(_jacobian(lambda a: tnp.square(a - r), l),
                                   _numerical_jacobian(lambda a: tnp.square(a - r), l, 1e-3), atol=1e-10)
        np.testing.assert_allclose(_jacobian(lambda b: tnp.square(l - b), r),
                                   _numerical_jacobian(lambda b: tnp.square(l - b), r, 1e-3), atol=1e-10)


def test_prod_gradient_and_negative_axis():
    """ProdGradientTest.testProdGradient / testProdGradientForNegativeAxis: TF's theoretical Jacobians of
    reduce_prod([[1, 2], [3, 4]]) and of reduce_prod(x, -1)."""
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    np.testing.assert_allclose(_jacobian(tnp.prod, x), [[24.0, 12.0, 8.0, 6.0]], rtol=1e-6)
    np.testing.assert_allclose(_jacobian(lambda t: tnp.prod(t, axis=-1), x),
                               [[2.0, 1.0, 0.0, 0.0], [0.0, 0.0, 4.0, 3.0]], rtol=1e-6)


_X2 = [[-3, 5], [7, 11]]
_X3 = [[[-3, 5], [7, 11]], [[13, 17], [19, 23]]]
EUCLID_CASES = {
    # test name: (x, axis, TF's gradient of sum(reduce_euclidean_norm(x, axis)) in float64). Each input feeds one
    # output, so this VJP holds every nonzero of TF's theoretical Jacobian.
    "testBasic": ([3.0], None, [1.0]),
    "testNegative": ([-3.0], None, [-1.0]),
    "testTwoElements": ([3.0, -4.0], None, [0.6, -0.8]),
    "test2D_1": (_X2, None, [-0.21004201260420147, 0.3500700210070024, 0.4900980294098034, 0.7701540462154054]),
    "test2D_2": (_X2, 0, [-0.39391929857916763, 0.413802944301184, 0.9191450300180578, 0.9103664774626047]),
    "test2D_3": (_X2, 1, [-0.5144957554275265, 0.8574929257125441, 0.5368754921931592, 0.8436614877321075]),
    "test2D_4": ([[3], [4]], 1, [1.0, 1.0]),
    "test3D_1": (_X3, None, [-0.07615096238502143, 0.12691827064170239, 0.17768557889838335, 0.27922019541174525,
                             0.3299875036684262, 0.43152212018178815, 0.48228942843846906, 0.583824044951831]),
    "test3D_2": (_X3, 0, [-0.22485950669875843, 0.28216632399155017, 0.34570535882735637, 0.43145549730400484,
                          0.9743911956946198, 0.9593655015712707, 0.9383431168171101, 0.9021342216356465]),
    "test3D_3": (_X3, 1, [-0.39391929857916763, 0.413802944301184, 0.9191450300180578, 0.9103664774626047,
                          0.5646839155919902, 0.5943910610838058, 0.8253072612498318, 0.8041761414663255]),
    "test3D_4": (_X3, 2, [-0.5144957554275265, 0.8574929257125441, 0.5368754921931592, 0.8436614877321075,
                          0.6074501075707971, 0.7943578329771962, 0.6368814469962913, 0.7709617516270895]),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", list(EUCLID_CASES))
def test_euclidean_norm_gradient(name, dtype):
    """EuclideanNormGradientTest: tf.math.reduce_euclidean_norm(x, axis) is tj.numpy.linalg.norm(x, axis=axis)
    for the full reduction and one axis; float32 and float64 as TF. TF's theoretical Jacobian (pinned through
    its one-nonzero-per-column VJP) and the Jacobian against central differences (TF's max error < 3e-3)."""
    x, axis, want = EUCLID_CASES[name]
    with jax.enable_x64(dtype == np.float64):
        x = np.asarray(x, dtype)

        def f(t):
            return L.norm(t) if axis is None else L.norm(t, axis=axis)
        jac = _jacobian(f, x)
        assert np.all((jac != 0).sum(axis=0) == 1)
        np.testing.assert_allclose(jac.sum(axis=0), want, rtol=1e-6 if dtype == np.float32 else 1e-12)
        np.testing.assert_allclose(jac, _numerical_jacobian(f, x, 1e-2 if dtype == np.float32 else 1e-5),
                                   atol=3e-3 if dtype == np.float32 else 1e-6)


def test_euclidean_norm_keepdims_and_gradient_chain():
    """EuclideanNormGradientTest.testKeepdims (TF's test calls it without keepdims; both are checked) and
    testGradientChain (reduce_euclidean_norm(x) * 5): TF's Jacobians [[1]] and [[5]] at x = [3]."""
    x = np.array([3.0], np.float32)
    np.testing.assert_allclose(_jacobian(L.norm, x), [[1.0]])
    np.testing.assert_allclose(_jacobian(lambda t: L.norm(t, keepdims=True), x), [[1.0]])
    np.testing.assert_allclose(_jacobian(lambda t: L.norm(t) * 5, x), [[5.0]])


def test_pow_zero_grad_tf_gradients():
    """PowGradTest.test_zero_grad_tf_gradients: tf.gradients(pow(x, 2), x) in a graph at x = [-1, 0, 1] is
    [-2, 0, 2] (no NaN from log(0) at 0); here tj.gradients inside a tj.function."""
    @tj.function
    def f():
        x = tj.constant([-1.0, 0.0, 1.0])
        return tj.gradients(tnp.power(x, 2.0), x)[0]
    np.testing.assert_allclose(f().numpy(), [-2.0, 0.0, 2.0])


@pytest.mark.parametrize("compiled", [False, True], ids=["testBasic", "testDynamicShapes"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nextafter_gradient(dtype, compiled):
    """NextAfterTest.testBasic / testDynamicShapes (TF's placeholder_with_default of unknown shape: here inside a
    tj.function). TF: tape.gradient(tf.math.nextafter(0.1, 3.1), [x1, x2]) is [1.0, 0.0] in float32 and
    float64."""
    def grads(x1, x2):
        with tj.GradientTape() as tape:
            tape.watch([x1, x2])
            y = tnp.nextafter(x1, x2)
        return tape.gradient(y, [x1, x2])
    with jax.enable_x64(dtype == np.float64):
        x1, x2 = tj.constant(dtype(0.1)), tj.constant(dtype(3.1))
        dx1, dx2 = (tj.function(grads) if compiled else grads)(x1, x2)
        assert dx1 is not None and dx2 is not None
        assert dx1.dtype == dtype
        np.testing.assert_allclose([dx1.numpy(), dx2.numpy()], [1.0, 0.0])


@pytest.mark.parametrize("x2", [[2.0, 2.0, 2.0, 2.0, 2.0], [2.0]],
                         ids=["testWithGradientChecker", "testBroadcastingWithGradientChecker"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nextafter_jacobian(dtype, x2):
    """NextAfterTest.testWithGradientChecker / testBroadcastingWithGradientChecker: TF's theoretical Jacobian
    of nextafter(x, x2) at x = [-1, 0, 1, 2, 3] is the identity (its numerical one agrees to 2e-4), in float32
    and float64; the tangent along ones is ones."""
    with jax.enable_x64(dtype == np.float64):
        x = np.array([-1.0, 0.0, 1.0, 2.0, 3.0], dtype)
        other = np.array(x2, dtype)
        np.testing.assert_allclose(_jacobian(lambda t: tnp.nextafter(t, other), x), np.eye(5))
        xt = tj.constant(x)
        with tj.ForwardAccumulator(xt, tj.constant(np.ones(5, dtype))) as acc:
            y = tnp.nextafter(xt, other)
        assert acc.jvp(y) is not None
        np.testing.assert_allclose(acc.jvp(y).numpy(), np.ones(5))


# == nn_grad_test.py ==========================================================================================

# TF: the theoretical Jacobian of f(x) = tape.gradient(tf.nn.softmax(x), x) at [[-2, -1, 1, 3], [5, 7, 8, 9]]
# (float32): rounding-level values (the exact Jacobian is 0: the rows of softmax sum to 1)
SOFTMAX_GRADGRAD_TF = [
    [6.840921717987669e-10, -2.205006316424729e-11, -1.6292915627769133e-10, -1.203892763257386e-09, 0, 0, 0, 0],
    [-2.163137377553248e-11, 1.8228051290591907e-09, -4.344777593257021e-10, -3.2103806280048275e-09, 0, 0, 0, 0],
    [-1.2978823571430098e-10, -3.5280101062795666e-10, 1.12964215759348e-08, -1.9262284212118175e-08, 0, 0, 0, 0],
    [-1.0383058857144079e-09, -2.8224080850236533e-09, -2.085493200354449e-08, -5.136609004807724e-08, 0, 0, 0, 0],
    [0, 0, 0, 0, -1.1210927151894534e-11, -8.283817382048753e-11, -2.2517752940043323e-10, -6.120959294975137e-10],
    [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0]]


def test_softmax_grad_grad():
    """SoftmaxOpTest.testSoftmaxGradGradExtendType: the Jacobian of the gradient of softmax (float32) against
    TF's theoretical one and central differences (TF's max error < 1e-4)."""
    x = np.array([[-2, -1, 1, 3], [5, 7, 8, 9]], np.float32)

    def f(t):
        with tj.GradientTape() as tape:
            tape.watch(t)
            y = tj.nn.softmax(t)
        return tape.gradient(y, t)
    np.testing.assert_allclose(f(tj.constant(x)).numpy(), np.zeros((2, 4)), atol=1e-6)
    jac = _jacobian(f, x)
    np.testing.assert_allclose(jac, SOFTMAX_GRADGRAD_TF, atol=1e-6)
    np.testing.assert_allclose(jac, _numerical_jacobian(f, x, 1e-3), atol=1e-4)


def test_relu6_grad_grad():
    """Relu6OpTest.testRelu6GradGrad: at [[-3.5, -1.5, 2, 4], [4.5, 7.5, 8.5, 11]] the gradient of relu6 is
    [[0, 0, 1, 1], [1, 0, 0, 0]] and TF's theoretical Jacobian of that gradient is zeros (a tensor, not None)."""
    x = tj.constant(np.array([[-3.5, -1.5, 2, 4], [4.5, 7.5, 8.5, 11]], np.float32))
    with tj.GradientTape() as outer:
        outer.watch(x)
        with tj.GradientTape() as inner:
            inner.watch(x)
            y = tj.nn.relu6(x)
        g = inner.gradient(y, x)
    np.testing.assert_array_equal(g.numpy(), [[0, 0, 1, 1], [1, 0, 0, 0]])
    jac = outer.jacobian(g, x)
    assert jac is not None
    np.testing.assert_array_equal(np.asarray(jac.numpy()), np.zeros((2, 4, 2, 4)))


_GG_INPUTS = np.array([[-2, -1, 1, 3], [5, 7, 8, 9]], np.float32)
_GG_DUMMY = np.array([[3, 1, -1, -2], [9, 8, 7, 6]], np.float32)
GRAD_GRAD_TF = {
    # TF: tf.test.compute_gradient's theoretical Jacobians of tape.gradient(fn(inputs), inputs,
    # output_gradients=dummy) w.r.t. dummy and w.r.t. inputs: both diagonal, these are their diagonals
    "elu": ([0.1353352665901184, 0.3678794503211975, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
            [0.4060057997703552, 0.3678794503211975, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    "selu": ([0.23793280124664307, 0.6467685699462891, 1.0507010221481323, 1.0507010221481323, 1.0507010221481323,
              1.0507010221481323, 1.0507010221481323, 1.0507010221481323],
             [0.7137984037399292, 0.6467685699462891, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
}


@pytest.mark.parametrize("name", sorted(GRAD_GRAD_TF))
def test_elu_selu_grad_grad(name):
    """EluGradOpTest / SeluGradOpTest .testXxxGradGradWRTgrad_ys and .testXxxGradGradWRTinputs: the Jacobian
    of the first gradient (with grad_ys = dummy) w.r.t. dummy and w.r.t. the inputs, against TF's theoretical
    Jacobians and central differences (TF's max error < 1e-4 in float32; 2e-3 here for the differences)."""
    fn = getattr(tj.nn, name)
    want_dy, want_dx = GRAD_GRAD_TF[name]

    def grad(x, dy):
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        return tape.gradient(y, x, output_gradients=dy)
    wrt_dy = _jacobian(lambda d: grad(tj.constant(_GG_INPUTS), d), _GG_DUMMY)
    wrt_x = _jacobian(lambda x: grad(x, tj.constant(_GG_DUMMY)), _GG_INPUTS)
    for jac, want in ((wrt_dy, want_dy), (wrt_x, want_dx)):
        np.testing.assert_allclose(jac, np.diag(want), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(wrt_dy, _numerical_jacobian(lambda d: grad(tj.constant(_GG_INPUTS), d), _GG_DUMMY,
                                                           1e-2), atol=2e-3)
    np.testing.assert_allclose(wrt_x, _numerical_jacobian(lambda x: grad(x, tj.constant(_GG_DUMMY)), _GG_INPUTS,
                                                          1e-3), atol=2e-3)


def test_swish_grad():
    """SwishGradOpTest.testSwishGrad: TF's theoretical Jacobian of tf.nn.silu(features, beta) at features
    [[-2, -1, 1, 3]]. tj.nn.swish mirrors jax.nn.swish (no beta): beta = 1 against tf.nn.silu(x, 1.0); the
    test's beta = 0.25 (both Jacobians, w.r.t. features and beta) through x * sigmoid(beta * x)."""
    feat = np.array([[-2.0, -1.0, 1.0, 3.0]], np.float32)
    np.testing.assert_allclose(_jacobian(tj.nn.swish, feat),
                               np.diag([-0.09078425168991089, 0.07232948392629623, 0.9276705384254456,
                                        1.0881041288375854]), rtol=1e-5, atol=1e-7)
    beta = np.float32(0.25)
    np.testing.assert_allclose(_jacobian(lambda x: x * tj.nn.sigmoid(beta * x), feat),
                               np.diag([0.260038822889328, 0.3762899935245514, 0.623710036277771, 0.8425999283790588]),
                               rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(_jacobian(lambda b: tj.constant(feat) * tj.nn.sigmoid(b * feat), beta).ravel(),
                               [0.9400148391723633, 0.24613407254219055, 0.24613407254219055, 1.9610549211502075],
                               rtol=1e-5)


def _conv_nhwc(x, w, depthwise=False):
    """tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME") (NHWC, HWIO) and tf.nn.depthwise_conv2d (w: H, W, C, M; output
    channel c * M + m) by tj.nn.conv on NCHW / OIHW."""
    if depthwise:
        c, m = w.shape[2], w.shape[3]
        w = tnp.reshape(w, (w.shape[0], w.shape[1], 1, c * m))
    y = tj.nn.conv(tnp.transpose(x, (0, 3, 1, 2)), tnp.transpose(w, (3, 2, 0, 1)), window_strides=(1, 1),
                   padding="SAME", feature_group_count=x.shape[3] if depthwise else 1)
    return tnp.transpose(y, (0, 2, 3, 1))


_CX = np.linspace(-1, 1, 48).astype(np.float32).reshape(1, 4, 4, 3)
_CF = np.linspace(-1, 1, 24).astype(np.float32).reshape(2, 2, 3, 2)
_CX05 = np.full((1, 4, 4, 3), 0.5, np.float32)
_CF05 = np.full((2, 2, 3, 2), 0.5, np.float32)
CONV_TF = {
    # TF: tape.gradient(op(x, f05), x, output_gradients=W) at x = _CX, and tape.gradient(op(x05, f), f, W) at
    # f = _CF, with W = arange(size) / 8 - 2 (conv2d) and arange(size) / 24 - 2 (depthwise), op(x, f) =
    # tf.nn.conv2d / tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "SAME"). Linear ops: TF's theoretical and
    # numerical Jacobians agree exactly.
    "conv2d": ([-1.9375, -1.9375, -1.9375, -3.625, -3.625, -3.625, -3.125, -3.125, -3.125, -2.625, -2.625, -2.625,
                -2.875, -2.875, -2.875, -5.25, -5.25, -5.25, -4.25, -4.25, -4.25, -3.25, -3.25, -3.25, -0.875, -0.875,
                -0.875, -1.25, -1.25, -1.25, -0.25, -0.25, -0.25, 0.75, 0.75, 0.75, 1.125, 1.125, 1.125, 2.75, 2.75,
                2.75, 3.75, 3.75, 3.75, 4.75, 4.75, 4.75],
               [-1.0, 0.0, -1.0, 0.0, -1.0, 0.0, -1.5, -0.75, -1.5, -0.75, -1.5, -0.75, -3.75, -3.0, -3.75, -3.0,
                -3.75, -3.0, -3.375, -2.8125, -3.375, -2.8125, -3.375, -2.8125]),
    "depthwise": ([-1.979167, -1.895833, -1.8125, -3.708333, -3.541667, -3.375, -3.208333, -3.041667, -2.875,
                   -2.708333, -2.541667, -2.375, -2.958333, -2.791667, -2.625, -5.416667, -5.083333, -4.75,
                   -4.416667, -4.083333, -3.75, -3.416667, -3.083333, -2.75, -0.958333, -0.791667, -0.625, -1.416667,
                   -1.083333, -0.75, -0.416667, -0.083333, 0.25, 0.583333, 0.916667, 1.25, 1.041667, 1.208333,
                   1.375, 2.583333, 2.916667, 3.25, 3.583334, 3.916667, 4.25, 4.583334, 4.916667, 5.25],
                  [-1.0, -0.666666, -0.333334, 0.0, 0.333334, 0.666666, -1.5, -1.25, -1.0, -0.75, -0.5, -0.25,
                   -3.75, -3.5, -3.25, -3.0, -2.75, -2.5, -3.375, -3.1875, -3.0, -2.8125, -2.625, -2.4375]),
}


@pytest.mark.parametrize("name", sorted(CONV_TF))
def test_conv2d_grad_wrt_input_and_filter(name):
    """Conv2dOpTest.testConv2dGradWRTInput / testConv2dGradWRTFilter and DepthwiseConv2dTest
    .testDepthwiseConv2dGradWRTInput / testDepthwiseConv2dGradWRTFilter (input [1, 4, 4, 3], filter [2, 2, 3, 2]
    of 0.5, SAME): TF's VJPs, and the Jacobians against central differences (TF's max error < 1e-3)."""
    dw = name == "depthwise"
    want_dx, want_df = CONV_TF[name]
    out_c = 6 if dw else 2
    w = (np.arange(16 * out_c, dtype=np.float32) / (4 * out_c) - 2).reshape(1, 4, 4, out_c)
    (dx,) = _vjp(lambda x: _conv_nhwc(x, tj.constant(_CF05), dw), [_CX], w)
    (df,) = _vjp(lambda f: _conv_nhwc(tj.constant(_CX05), f, dw), [_CF], w)
    np.testing.assert_allclose(dx.ravel(), want_dx, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(df.ravel(), want_df, rtol=1e-5, atol=1e-5)
    fx = lambda x: _conv_nhwc(x, tj.constant(_CF05), dw)  # noqa: E731
    ff = lambda f: _conv_nhwc(tj.constant(_CX05), f, dw)  # noqa: E731
    np.testing.assert_allclose(_jacobian(fx, _CX), _numerical_jacobian(fx, _CX, 0.25), atol=1e-3)
    np.testing.assert_allclose(_jacobian(ff, _CF), _numerical_jacobian(ff, _CF, 0.25), atol=1e-3)


def test_depthwise_conv2d_backprop_filter_grad():
    """Conv2dOpTest.testConv2dBackpropFilterGrad and DepthwiseConv2dTest.testDepthwiseConv2dBackpropFilterGrad
    (both on depthwise_conv2d): the gradient w.r.t. the input (a function of the filter) differentiated w.r.t.
    the filter, and the gradient w.r.t. the filter differentiated w.r.t. the input. TF: tape.gradient(gin(f), f,
    output_gradients=linspace(-1, 2, 48)) at f = _CF and tape.gradient(gfi(x), x,
    output_gradients=linspace(-1, 2, 24)) at x = _CX (filter 0.5)."""
    def gin(f):
        x = tj.constant(_CX)
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = _conv_nhwc(x, f, True)
        return tape.gradient(y, x)

    def gfi(x):
        f = tj.constant(_CF05)
        with tj.GradientTape() as tape:
            tape.watch(f)
            y = _conv_nhwc(x, f, True)
        return tape.gradient(y, f)
    (d_f,) = _vjp(gin, [_CF], np.linspace(-1, 2, 48).reshape(1, 4, 4, 3))
    (d_x,) = _vjp(gfi, [_CX], np.linspace(-1, 2, 24).reshape(2, 2, 3, 2))
    np.testing.assert_allclose(d_f.ravel(), [
        6.978724, 6.978724, 8.0, 8.0, 9.021276, 9.021276, 6.382978, 6.382978, 7.148936, 7.148936, 7.914894, 7.914894,
        9.829787, 9.829787, 10.595744, 10.595744, 11.361702, 11.361702, 8.234042, 8.234042, 8.808511, 8.808511,
        9.382978, 9.382978], rtol=1e-5)
    np.testing.assert_allclose(d_x.ravel(), [
        -1.869565, -1.347826, -0.826087, -2.173913, -1.130435, -0.086957, -2.173913, -1.130435, -0.086957, -2.173913,
        -1.130435, -0.086957, -0.608696, 0.434783, 1.478261, 1.913043, 4.0, 6.086956, 1.913043, 4.0, 6.086956,
        1.913043, 4.0, 6.086956, -0.608696, 0.434783, 1.478261, 1.913043, 4.0, 6.086956, 1.913043, 4.0, 6.086956,
        1.913043, 4.0, 6.086956, -0.608696, 0.434783, 1.478261, 1.913043, 4.0, 6.086956, 1.913043, 4.0, 6.086956,
        1.913043, 4.0, 6.086956], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(_jacobian(gin, _CF), _numerical_jacobian(gin, _CF, 0.25), atol=1e-3)


# == linalg_grad_test.py ======================================================================================

def _rand_input(shape):
    """linalg_grad_test's RandomInput: np.random.seed(1); uniform(-1, 1), float64 (the same matrix every call)."""
    return np.random.RandomState(1).uniform(low=-1.0, high=1.0, size=int(np.prod(shape))).reshape(shape)


SOLVE_TF = {
    # TF (float64): tape.gradient(tf.linalg.solve(x, A, adjoint=adj), x, output_gradients=linspace(-1, 2, 25)) at
    # x = A = RandomInput((5, 5)) ("a"), and the same w.r.t. the right-hand side ("b")
    (False, "a"): [-0.014064520836, -0.029422508443, -0.04478049605, -0.060138483657, -0.075496471264,
                   -0.083618254071, 0.206799325276, 0.497216904623, 0.787634483969, 1.078052063316, 0.607834284661,
                   0.690840339102, 0.773846393544, 0.856852447985, 0.939858502427, 2.14959338251, 2.376123945308,
                   2.602654508106, 2.829185070904, 3.055715633702, 0.49020181036, 0.565710761674, 0.641219712988,
                   0.716728664301, 0.792237615615],
    (True, "a"): [-0.008432114889, 1.175802774339, 2.50077744859, 0.358092883149, 0.144909531966, -36.485675868385,
                  35.446559487348, 25.143236256397, -12.415794419321, -4.639943203111, 13.729970866809,
                  -14.601365727254, -12.159252241594, 4.281929284942, 1.588226657765, 0.633826210708, -2.010971045212,
                  -3.418060659225, -0.215633239923, -0.093831270154, -10.705370211056, 9.7544726987, 5.996954231251,
                  -3.842665613872, -1.44218726756],
    (True, "b"): [8.681943358852, 9.659525614377, 10.637107869901, 11.614690125426, 12.59227238095, -8.499718061606,
                  -9.581426053996, -10.663134046386, -11.744842038775, -12.826550031165, -6.121927868192,
                  -7.077595168549, -8.033262468907, -8.988929769264, -9.944597069622, 2.934292360895, 3.226158872503,
                  3.518025384111, 3.809891895719, 4.101758407327, 1.095965583001, 1.203786948322, 1.311608313644,
                  1.419429678966, 1.527251044288],
}
SOLVE_TF[(False, "b")] = [-v for v in SOLVE_TF[(False, "a")]]  # TF's values: x = A^-1 A = I makes them opposite


@pytest.mark.parametrize("adjoint", [False, True])
def test_matrix_solve_gradient_float64(adjoint):
    """MatrixBinaryFunctorGradientTest.test_MatrixSolveGradient_float64_5_5_adj_{False,True} (TF's adjoint=True:
    solve of the adjoint matrix): TF's VJPs w.r.t. each argument, and the full Jacobians against central
    differences with TF's step eps**(1/3) and tolerance 1e-6; _float64_3_5_5_adj_* by the differences only."""
    def solve(a, b):
        return L.solve(tnp.swapaxes(a, -1, -2) if adjoint else a, b)
    with jax.enable_x64(True):
        a = _rand_input((5, 5))
        w = np.linspace(-1, 2, 25).reshape(5, 5)
        (ga,) = _vjp(lambda x: solve(x, tj.constant(a)), [a], w)
        (gb,) = _vjp(lambda y: solve(tj.constant(a), y), [a], w)
        np.testing.assert_allclose(ga.ravel(), SOLVE_TF[(adjoint, "a")], rtol=1e-9, atol=1e-10)
        np.testing.assert_allclose(gb.ravel(), SOLVE_TF[(adjoint, "b")], rtol=1e-9, atol=1e-10)
        delta = np.finfo(np.float64).eps ** (1.0 / 3.0)
        for shape in ((5, 5), (3, 5, 5)):
            fixed = _rand_input(shape)
            for f in (lambda x: solve(x, tj.constant(fixed)), lambda y: solve(tj.constant(fixed), y)):
                np.testing.assert_allclose(_jacobian(f, fixed), _numerical_jacobian(f, fixed, delta), rtol=1e-6,
                                           atol=1e-6)


# == xent_op_test_base.py / xent_op_test.py ===================================================================

def _xent(labels, logits, axis=-1, sparse=False):
    z = tj.constant(logits)
    with tj.GradientTape() as tape:
        tape.watch(z)
        if sparse:
            loss = tj.nn.sparse_softmax_cross_entropy_with_logits(labels, z)
        else:
            loss = tj.nn.softmax_cross_entropy_with_logits(labels, z, axis=axis)
    return loss.numpy(), tape.gradient(loss, z).numpy()


_XL = [[0.0, 0.0, 0.0, 1.0], [0.0, 0.5, 0.5, 0.0]]
_XZ = [[1.0, 1.0, 1.0, 1.0], [1.0, 2.0, 3.0, 4.0]]
XENT_DTYPES = {
    # TF: loss, tape.gradient(loss, logits) of tf.nn.softmax_cross_entropy_with_logits(_XL, _XZ) in each dtype
    "float16": (np.float16, [1.38671875, 1.9404296875],
                [[0.25, 0.25, 0.25, -0.75], [0.03204345703125, -0.412841796875, -0.26318359375, 0.64404296875]], 1e-3),
    "bfloat16": (ml_dtypes.bfloat16, [1.3828125, 1.9375],
                 [[0.25, 0.25, 0.25, -0.75], [0.031982421875, -0.412109375, -0.263671875, 0.64453125]], 1e-2),
    "float64": (np.float64, [1.3862943611198906, 1.9401896985611953],
                [[0.25, 0.25, 0.25, -0.75], [0.03205860328008499, -0.41285568125796746, -0.2631171819100899,
                                             0.6439142598879724]], 1e-12),
}


@pytest.mark.parametrize("name", list(XENT_DTYPES))
def test_xent_half_bfloat16_double(name):
    """XentOpTestBase.testHalf / testBfloat16 / testDouble (and testNpXent's hand-computed numbers: loss
    [1.3862, 1.9401], gradient [[.25, .25, .25, -.75], [.0321, -.4129, -.2632, .6439]] to 1e-3): TF's loss and
    gradient, in the input dtype."""
    dtype, want_loss, want_grad, tol = XENT_DTYPES[name]
    with jax.enable_x64(dtype == np.float64):
        loss, grad = _xent(np.array(_XL).astype(dtype), np.array(_XZ).astype(dtype))
    assert loss.dtype == dtype and grad.dtype == dtype
    np.testing.assert_allclose(loss.astype(np.float64), want_loss, rtol=tol, atol=tol)
    np.testing.assert_allclose(grad.astype(np.float64), want_grad, rtol=tol, atol=tol)
    np.testing.assert_allclose(loss.astype(np.float64), [1.3862, 1.9401], rtol=1e-2 if name == "bfloat16" else 1e-3)


_GL = np.array([0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.5]).reshape(3, 4)
_GZ = np.array([0.1, 0.2, 0.3, 0.4, 0.1, 0.4, 0.9, 1.6, 0.1, 0.8, 2.7, 6.4]).reshape(3, 4)


def _block_rows(rows):
    """(3, 12) Jacobian with row i's 4 values in columns 4i..4i+3 (each loss depends on its own row)."""
    out = np.zeros((3, 12))
    for i, r in enumerate(rows):
        out[i, 4 * i:4 * i + 4] = r
    return out


def test_xent_gradient_wrt_logits_and_labels():
    """XentOpTestBase.testGradient / testGradientLabelWithV2 (float64): TF's theoretical Jacobians of the loss
    w.r.t. the logits and w.r.t. the labels (TF's error against numerical < 5e-8), and central differences."""
    want_logits = _block_rows([[0.2138382203659844, 0.23632778232153764, -0.7388174078449244, 0.28865140515740234],
                               [-0.8895892464593425, 0.14903892811795988, 0.24572365095042792, 0.4948266673909546],
                               [0.0017823742409352609, -0.496410739046591, 0.02399741986028735, 0.4706309449453685]])
    want_labels = _block_rows([[1.5425355294551628, 1.4425355294551627, 1.3425355294551629, 1.2425355294551628],
                               [2.2035477446231475, 1.9035477446231477, 1.4035477446231475, 0.7035477446231474],
                               [6.329808960234717, 5.629808960234717, 3.729808960234717, 0.0298089602347167]])
    with jax.enable_x64(True):
        f_z = lambda z: tj.nn.softmax_cross_entropy_with_logits(tj.constant(_GL), z)  # noqa: E731
        f_l = lambda y: tj.nn.softmax_cross_entropy_with_logits(y, tj.constant(_GZ))  # noqa: E731
        for f, x, want in ((f_z, _GZ, want_logits), (f_l, _GL, want_labels)):
            jac = _jacobian(f, x)
            np.testing.assert_allclose(jac, want, rtol=1e-12, atol=1e-14)
            np.testing.assert_allclose(jac, _numerical_jacobian(f, x, 1e-5), atol=5e-8)


_L3 = np.array([[[0., 0., 0., 1.], [0., 1., 0., 0.]], [[0., 0.5, 0.5, 0.], [0.5, 0.5, 0., 0.]],
                [[0., 1., 0., 0.], [0., 0., 1., 0.]]], np.float32)
_Z3 = np.array([[[1., 1., 1., 1.], [1., 2., 3., 4.]], [[2., 3., 4., 5.], [6., 7., 8., 9.]],
                [[5., 4., 3., 2.], [1., 2., 3., 4.]]], np.float32)
XENT_3D_TF = {
    # TF: loss and tape.gradient(loss, logits) of tf.nn.softmax_cross_entropy_with_logits(_L3, _Z3, axis=axis)
    0: ([[0.0, 1.0235183238983154, 0.1745060831308365, 4.065884113311768],
         [0.006692951079457998, 5.020078659057617, 5.013385772705078, 0.0]],
        [0.01714782603085041, 0.03511902689933777, 0.03511903062462807, -0.9828521609306335, 0.006648354697972536,
         -0.9933516383171082, 0.006648354697972536, 0.006648354697972536, 0.04661262407898903, -0.24050354957580566,
         0.20538455247879028, 0.9362395405769348, 0.4867032766342163, 0.4867032766342163, 0.9867032766342163,
         0.9867032766342163, 0.9362395405769348, -0.2946155071258545, 0.2594964802265167, 0.04661262407898903,
         0.006648354697972536, 0.006648354697972536, -0.9933516383171082, 0.006648354697972536]),
    1: ([[0.0, 0.31326162815093994, 0.0, 3.0485873222351074], [0.009074981324374676, 2.0181498527526855,
                                                                2.0090749263763428, 0.0],
         [0.0, 0.12692804634571075, 0.6931471824645996, 0.0]],
        [0.5, 0.2689414322376251, 0.11920291930437088, -0.9525741338729858, 0.5, -0.26894140243530273,
         0.8807970285415649, 0.9525741338729858, 0.01798621006309986, -0.4820137917995453, -0.4820137917995453,
         0.01798621006309986, 0.4820137619972229, 0.4820137619972229, 0.9820137619972229, 0.9820137619972229,
         0.9820137619972229, -0.11920297145843506, 0.5, 0.11920291930437088, 0.01798621006309986, 0.11920291930437088,
         -0.5, 0.8807970285415649]),
    -1: ([[1.3862943649291992, 2.4401895999908447], [1.9401895999908447, 2.9401895999908447],
          [1.4401897192001343, 1.4401897192001343]],
         [0.25, 0.25, 0.25, -0.75, 0.032058604061603546, -0.9128556847572327, 0.23688283562660217, 0.6439142823219299,
          0.032058604061603546, -0.41285568475723267, -0.2631171643733978, 0.6439142823219299, -0.46794140338897705,
          -0.41285568475723267, 0.23688283562660217, 0.6439142823219299, 0.6439142823219299, -0.7631171941757202,
          0.08714432269334793, 0.032058604061603546, 0.032058604061603546, 0.08714432269334793, -0.7631171941757202,
          0.6439142823219299]),
}


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_xent_3d(axis):
    """XentOpTestBase.test3D: losses along axis 0, 1 and -1 of a [3, 2, 4] input (TF's test compares the loss
    with _npXent; TF's gradient is pinned too)."""
    want_loss, want_grad = XENT_3D_TF[axis]
    loss, grad = _xent(_L3, _Z3, axis=axis)
    np.testing.assert_allclose(loss, want_loss, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grad.ravel(), want_grad, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_xent_small_gradient_across_dtypes(dtype):
    """XentOpTest.testSmallGradientAcrossDtypes: a logit of 37.43 for the target class. TF 2.21's gradient (its
    raw kernel's backprop, the same as the tape's) is exp(-37.43) = 5.55e-17 for the other class and exactly 0
    for the target, in float32 and float64 (the index's newer TF keeps -5.55e-17 in float64), positive for the
    other class; batch sizes 0, 1, 4 and labels broadcast from one row."""
    tail = float(np.exp(-dtype(37.42994775023705)))
    with jax.enable_x64(dtype == np.float64):
        for batch in (0, 1, 4):
            for target in (0, 1):
                for broadcast in (False, True):
                    logits = np.zeros((batch, 2), dtype)
                    logits[:, target] = 37.42994775023705
                    labels = np.zeros((1 if broadcast else batch, 2), dtype)
                    labels[:, target] = 1.0
                    _, grad = _xent(labels, logits)
                    want = np.full((batch, 2), tail)
                    want[:, target] = 0.0
                    np.testing.assert_allclose(grad, want, rtol=1e-6, atol=0.0)
                    assert np.all(grad[:, 1 - target] > 0.0)
                    np.testing.assert_array_equal(grad[:, target], np.zeros(batch))


def test_xent_zero_classes():
    """XentOpTest.testRejectsZeroClasses, as TF 2.21 behaves (the index's newer TF raises "Must have at least one
    class"): tf.nn.softmax_cross_entropy_with_logits of [1, 0] labels and logits gives loss [0.] and a gradient of
    shape [1, 0]. (At batch 0, [0, 0], TF 2.21 raises from an internal reshape of the empty logits, an accident of
    its implementation; tapejax returns the empty loss and gradient.)"""
    loss, grad = _xent(np.zeros((1, 0), np.float32), np.zeros((1, 0), np.float32))
    np.testing.assert_array_equal(loss, [0.0])
    assert grad.shape == (1, 0)


def test_xent_double_tail_soft_labels_and_general_labels():
    """XentOpTest.testDoublePreservesMultiClassTailGradient / testDoublePreservesSoftLabelsAndPositiveZero /
    testDoublePreservesGeneralLabelGradients (float64), with TF 2.21's gradients (the raw kernel's backprop and
    the tape's agree): the confident rows' target entries are 0.0 in TF 2.21 (the newer TF's test wants
    -9 exp(-40))."""
    with jax.enable_x64(True):
        logits = np.zeros((3, 10))
        logits[0, 0] = logits[1, 9] = 40.0
        logits[2, 4] = 3.0
        labels = np.zeros_like(logits)
        labels[np.arange(3), [0, 9, 4]] = 1.0
        _, grad = _xent(labels, logits)
        want = np.full((3, 10), 4.248354255291589e-18)
        want[0, 0] = want[1, 9] = 0.0
        want[2] = 0.034381349144109376
        want[2, 4] = -0.30943214229698435
        np.testing.assert_allclose(grad, want, rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(grad.sum(axis=-1), [4.248354255291589e-18 * 9] * 2 + [0.0], atol=1e-15)

        _, grad = _xent(np.array([[0.5, 0.5]]), np.array([[37.42994775023705, 0.0]]))
        np.testing.assert_allclose(grad, [[0.5, -0.49999999999999994]], rtol=1e-15)
        assert grad[0, 0] == 0.5  # TF 2.21 (the newer TF's test wants < 0.5)
        _, grad = _xent(np.array([[1.0]]), np.array([[0.0]]))
        assert grad[0, 0] == 0.0 and not np.signbit(grad[0, 0])

        lo = np.array([[0., 0.], [0., 0.], [0., 0.], [np.inf, 0.], [np.nan, 0.], [-np.inf, -np.inf]])
        la = np.array([[0., 0.], [2., 0.], [np.nan, 0.], [1., 0.], [1., 0.], [1., 0.]])
        loss, grad = _xent(la, lo)
        np.testing.assert_allclose(loss, [0.0, 1.3862943611198906, np.nan, np.nan, np.nan, np.nan], rtol=1e-15)
        np.testing.assert_allclose(grad, [[0.5, 0.5], [-1.5, 0.5], [np.nan, 0.5], [np.nan, np.nan], [np.nan, np.nan],
                                          [np.nan, np.nan]], rtol=1e-15)


# == sparse_xent_op_test_base.py ==============================================================================

SPARSE_DTYPES = {
    # TF: loss, tape.gradient(loss, logits) of tf.nn.sparse_softmax_cross_entropy_with_logits(labels, _XZ)
    "float32": (np.float32, [3, 0], [1.3862943649291992, 3.4401895999908447],
                [[0.25, 0.25, 0.25, -0.75], [-0.967941403388977, 0.08714432269334793, 0.23688283562660217,
                                             0.6439142823219299]], 1e-6),
    "float16": (np.float16, [3, 0], [1.38671875, 3.439453125],
                [[0.25, 0.25, 0.25, -0.75], [-0.9677734375, 0.087158203125, 0.2369384765625, 0.64404296875]], 1e-3),
    "bfloat16": (ml_dtypes.bfloat16, [3, 0], [1.3828125, 3.4375],
                 [[0.25, 0.25, 0.25, -0.75], [-0.96875, 0.08740234375, 0.236328125, 0.64453125]], 1e-2),
    "float64": (np.float64, [0, 3], [1.3862943611198906, 0.44018969856119533],
                [[-0.75, 0.25, 0.25, 0.25], [0.03205860328008499, 0.08714431874203257, 0.2368828180899101,
                                             -0.35608574011202765]], 1e-12),
}


@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("name", list(SPARSE_DTYPES))
def test_sparse_xent_float_double_half_bfloat16(name, label_dtype):
    """SparseXentOpTestBase.testFloat / testDouble / testHalf / testBfloat16 (labels int32 and int64) and
    testNpXent's hand-computed numbers (loss [1.3862, 3.4420], gradient row 2 [-.968, .087, .237, .6439])."""
    dtype, labels, want_loss, want_grad, tol = SPARSE_DTYPES[name]
    with jax.enable_x64(dtype == np.float64):
        loss, grad = _xent(np.array(labels, label_dtype), np.array(_XZ).astype(dtype), sparse=True)
    assert loss.dtype == dtype and grad.dtype == dtype
    np.testing.assert_allclose(loss.astype(np.float64), want_loss, rtol=tol, atol=tol)
    np.testing.assert_allclose(grad.astype(np.float64), want_grad, rtol=tol, atol=tol)
    if labels == [3, 0]:
        np.testing.assert_allclose(grad.astype(np.float64)[1], [-0.968, 0.087, 0.237, 0.6439], atol=2e-3)


@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
def test_sparse_xent_single_class(label_dtype):
    """SparseXentOpTestBase.testSingleClass: one class: loss 0 and gradient 0."""
    loss, grad = _xent(np.array([0, 0, 0], label_dtype), np.array([[1.0], [-1.0], [0.0]], np.float32), sparse=True)
    np.testing.assert_allclose(loss, [0.0, 0.0, 0.0])
    np.testing.assert_allclose(grad, [[0.0], [0.0], [0.0]])


def test_sparse_xent_shape_mismatch_and_empty():
    """SparseXentOpTestBase.testShapeMismatch (ValueError: labels' rank must be logits' rank - 1) and testEmpty
    (labels [0], logits [0, 3]: empty loss and gradient)."""
    with pytest.raises(ValueError):
        tj.nn.sparse_softmax_cross_entropy_with_logits(tj.constant([[0, 2]]),
                                                       tj.constant([[0., 1.], [2., 3.], [2., 3.]]))
    loss, grad = _xent(np.zeros((0,), np.int32), np.zeros((0, 3), np.float32), sparse=True)
    assert loss.shape == (0,) and grad.shape == (0, 3)


def test_sparse_xent_gradient():
    """SparseXentOpTestBase.testGradient (float64, labels [3, 0, 1]): TF's theoretical Jacobian (its numerical
    one agrees to 1.5e-8) and central differences (TF's tolerance 5e-8)."""
    want = _block_rows([[0.2138382203659844, 0.23632778232153764, 0.26118259215507555, -0.7113485948425977],
                        [-0.8895892464593425, 0.14903892811795988, 0.24572365095042792, 0.4948266673909546],
                        [0.0017823742409352609, -0.9964107390465909, 0.02399741986028735, 0.9706309449453685]])
    with jax.enable_x64(True):
        f = lambda z: tj.nn.sparse_softmax_cross_entropy_with_logits(tj.constant([3, 0, 1]), z)  # noqa: E731
        jac = _jacobian(f, _GZ)
        np.testing.assert_allclose(jac, want, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(jac, _numerical_jacobian(f, _GZ, 1e-5), atol=5e-8)


@pytest.mark.parametrize("labels,logits,want_loss,want_grad", [
    # testHighDim
    ([[3], [0]], [[[1., 1., 1., 1.]], [[1., 2., 3., 4.]]], [[1.3862943649291992], [3.4401895999908447]],
     [[[0.25, 0.25, 0.25, -0.75]], [[-0.967941403388977, 0.08714432269334793, 0.23688283562660217,
                                     0.6439142823219299]]]),
    # testHighDim2
    ([[3, 2], [0, 3]], [[[1., 1., 1., 1.], [2., 2., 2., 2.]], [[1., 2., 3., 4.], [5., 6., 7., 8.]]],
     [[1.3862943649291992, 1.3862943649291992], [3.4401895999908447, 0.4401896893978119]],
     [[[0.25, 0.25, 0.25, -0.75], [0.25, 0.25, -0.75, 0.25]],
      [[-0.967941403388977, 0.08714432269334793, 0.23688283562660217, 0.6439142823219299],
       [0.032058604061603546, 0.08714432269334793, 0.23688283562660217, -0.35608571767807007]]]),
], ids=["testHighDim", "testHighDim2"])
def test_sparse_xent_high_dim(labels, logits, want_loss, want_grad):
    """SparseXentOpTestBase.testHighDim / testHighDim2: labels of rank 2, logits of rank 3."""
    loss, grad = _xent(np.array(labels), np.array(logits, np.float32), sparse=True)
    np.testing.assert_allclose(loss, want_loss, rtol=1e-6)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-5, atol=1e-7)
