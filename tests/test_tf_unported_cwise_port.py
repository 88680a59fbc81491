"""TensorFlow coefficient-wise, reduction and batch-norm test methods not ported before, ported to tapejax.

Expected values are TF 2.21's: the same programs were run in TF 2.21 here (eager, on the CPU) on the inputs built by
the helpers below, and the results are hard-coded in ``TF`` at the end of this file (TensorFlow is not imported).
A large array is stored as its digest ``D`` (sum, cosine-weighted sum, sum of magnitudes). Where TF's test compares
TF with NumPy, TF 2.21 was checked to agree with NumPy on these exact inputs, and NumPy's value is the expected one
(as tests/test_tf_cwise_port.py does). TF's gradient checkers become gradients for a fixed upstream gradient
(``og_like``), forward-mode tangents along ``tan_like`` and, where cheap, second order by nested tapes, all compared
with TF 2.21's. float64 / int64 / uint64 / complex128 run under ``jax.enable_x64(True)`` inside their test only.
TF's InvalidArgumentError is ValueError here.

Ported (the TF method is named at each test):
  cwise_ops_unary_test.py: UnaryOpTest.testUInt64Basic.
  cwise_ops_binary_test.py: BinaryOpTest.testUint64Basic, testPowNegativeExponentCpu (its int64 case),
    testPowNegativeExponentGpu (its assertions hold on TF 2.21's CPU kernel too), testBCast_* values for float64,
    int64 and complex128.
  cwise_ops_test.py: ComparisonOpTest (scalar, tensor, bcast, shape mismatch, testEqualDType) for the 64-bit dtypes,
    SelectOpTest for float64 / int64 / complex128, BatchSelectOpTest.testBasic / testGradients / testShapeMismatch
    (TF 1's row-selecting where(c, x, y) is where(c[:, None, None], x, y)), MinMaxOpTest.testBasic /
    testDifferentShapes / testNaNPropagation / testGradients for float64, int64, uint64, MathOpsOverloadTest.
    testOverload / testOverloadComparisons for float64, int64, uint64, complex128, IsFiniteInfNanTest.testSqrt and
    RoundingTest.testTypes in float64, ComplexMakeRealImagTest.testRealImag128 / testConj128 / testAngle64,
    PolyvalTest.testSimple / testBroadcast / testEmpty (plus the gradients of polyval), LogicalOpTest.
    testUsingAsPythonValueFails (a graph: tj.function).
  reduction_ops_test.py: Sum/Mean/ProdReductionTest.testFloat32 / testFloat64 / testComplex64 / testComplex128,
    EuclideanNormReductionTest.testTypes (float32, float64, complex64, complex128, int32) / testSingleton /
    testGradient (float64), SumReductionTest.testHighRank, the sums of ones of testFloat32 / testFloat32BFloat16,
    SumReductionTest.testGradient (float64, complex128), MeanReductionTest.testInt32 / testUint8 /
    testSizeOverflowUint8 / Int8 / Uint16 / Int16 / testGradient (float64), ProdReductionTest.testInt64,
    Min/MaxReductionTest.testFloatReduce3D / testDoubleReduce3D, MaxReductionTest.testInt64Reduce3D (int64),
    Min/MaxReductionTest.testGradient..testGradient4 in TF's float64.
  nn_fused_batchnorm_test.py (training mode, tj.nn.batch_norm): testTrainingShape6 / testTrainingShape7 and
    testBatchNormGradTrainingShape6 / 7 (float32, float16, bfloat16), testBatchNormGradGradConfig5 / 6 (the
    is_training=True half).
  nn_batchnorm_test.py (tf.nn.batch_normalization, moments, weighted_moments, sufficient_statistics and
    normalize_moments written in tj.numpy as nn_impl writes them): BatchNormalizationTest.testBatchNorm /
    testBatchNormInputGradient / MeanGradient / VarianceGradient / BetaGradient / GammaGradient /
    testBatchNormGradImpl / testBatchNormKeepDims / testBatchNormArbitraryShapes, SufficientStatisticsTest.
    testSuffStats, NormalizeMomentsTest.testNormalizeMoments, MomentsTest.testBasic / testGlobalNormalization /
    testAxes / testMeanGlobalGradient / testVarGlobalGradient and the same of WeightedMomentsTest.

Sanctioned differences (tj.numpy follows jax.numpy's dtype promotion), asserted as such: an integer truediv is
float32 with x64 off (TF float64); the mean and Euclidean norm of integers are floats (TF keeps the integer dtype,
truncating): the tests check that their floor is TF's value.

Left out, by reason:
  * ops with no tj counterpart: lgamma, erfc, bessel_i0e / i1e (UnaryOpTest), xdivy / xlogy / xlog1py
    (BinaryOpTest.testBFloat16Basic), igamma / igammac / zeta / polygamma (testFloatBasic / testDoubleBasic parts,
    testIgammaDomainEdgeCases), tf.complex (ComplexMakeRealImagTest.testMake; jax.numpy has none),
    math_ops.reduced_shape (ReducedShapeTest.testSimple / testZeros / testNegAxes, a TF-internal helper);
  * SparseTensor halves (_compareBothSparse), strings (testStringComparison, testString, testConjString,
    RealTest.test_real_raises_error_for_non_numeric_tensor, CountNonzeroReductionTest.testStringReduce /
    testStringReduce1D / testStringReduce2D), quantized dtypes (ComparisonOpTest.testEqualQuantizeDType);
  * TF1 placeholders, unknown shapes, graph identities: ReductionUnknownShape.testBasic, SumReductionTest.
    testPartialShapes / testWrongShapeForReductionIndices, ComplexMakeRealImagTest.testRealReal / testConjReal's
    ``y is x`` of a placeholder;
  * TF-only argument checks: PolyvalTest.test_coeffs_raise (jax.numpy's polyval takes any array-like);
  * inference-mode batch norm and arguments tj.nn.batch_norm does not have (mean=, variance=,
    exponential_avg_factor=): testInferenceShape1..7, testBatchNormGradInferenceShape1..7, the is_training=False
    halves of testBatchNormGradGradConfig*, the exponential_avg_factor=0.6 runs of _runtests,
    test5dBatchNormFollowedByRelu, testEagerShapeErrors' mean / variance checks; testEagerShapeGradErrors (the raw
    FusedBatchNormGrad kernel with caller-given shapes, which a tape never builds); the deprecated
    batch_norm_with_global_normalization kernels of nn_batchnorm_test (TF 2.21 refuses to run them: "removed in
    GraphDef version 9");
  * GPU-only parts: the _compareGpu halves, SumReductionTest.testFloat16's GPU mean-overflow check;
  * already ported elsewhere in tests/ (the rest of these files' methods; each names its TF test there).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from conftest import batch_norm_grad_grad, to_numpy

tnp = tj.numpy
BF16 = jnp.bfloat16


def check(got, want, rtol, what=""):
    """``got`` against TF's stored value: the values themselves (12 or fewer) or, for a larger array, its digest
    D (sum, cosine-weighted sum, sum of magnitudes) with an absolute tolerance scaled by the sum of magnitudes."""
    a = to_numpy(got).astype(np.complex128 if np.iscomplexobj(to_numpy(got)) else np.float64)
    if a.size <= 12:
        want = np.asarray(want)
        atol = rtol * max(1.0, np.abs(want).max(initial=0))
        np.testing.assert_allclose(a.ravel(), want.ravel(), rtol=rtol, atol=atol, err_msg=what)
    else:
        d = D(a)
        np.testing.assert_allclose(d, want, rtol=rtol, atol=rtol * max(1.0, abs(want[2])), err_msg=what)

# ---- inputs (NumPy only), shared by the test and the script that ran TF 2.21 on them ----


def D(a):
    """A digest of an array: (sum, sum(a * cos(0.7 * arange(n))), sum(|a|)), in float64."""
    a = np.asarray(a, np.float64).ravel()
    return [float(a.sum()), float((a * np.cos(0.7 * np.arange(a.size))).sum()), float(np.abs(a).sum())]


def og_like(shape, dtype=np.float32, seed=11):
    """A fixed upstream gradient (cotangent) of the given shape."""
    return (np.random.RandomState(seed).random_sample(shape) + 0.5).astype(dtype)


def tan_like(shape, dtype=np.float32):
    return np.cos(np.arange(int(np.prod(shape)))).reshape(shape).astype(dtype)


def fused_bn_inputs(x_shape, axis, dtype, n_upstream=0):
    """nn_fused_batchnorm_test's draws: x, scale, offset (np.random.seed(1)), then upstream arrays of x's shape."""
    np.random.seed(1)
    x = np.random.random_sample(x_shape).astype(dtype)
    c = x_shape[axis]
    scale = np.random.random_sample([c]).astype(np.float32)
    offset = np.random.random_sample([c]).astype(np.float32)
    ups = [np.random.random_sample(x_shape).astype(dtype) for _ in range(n_upstream)]
    return x, scale, offset, ups


def bn_params(x_shape, param_shape, dtype, seed):
    """nn_batchnorm_test's draws: x, m, v, beta, gamma (random_sample), with a fixed seed."""
    rs = np.random.RandomState(seed)
    x = rs.random_sample(x_shape).astype(dtype)
    m, v, beta, gamma = (rs.random_sample(param_shape).astype(dtype) for _ in range(4))
    return x, m, v, beta, gamma


def reduction_incremental(shape, dtype):
    """BaseReductionTest._makeIncremental."""
    data = np.arange(np.prod(shape)).reshape(shape).astype(dtype)
    if np.issubdtype(np.dtype(dtype), np.complexfloating):
        data -= 2j * data
    return data


def powerset(n):
    import itertools
    return [c for r in range(n + 1) for c in itertools.combinations(range(n), r)]


# ==== batch norm: nn_fused_batchnorm_test.py (training mode) =============================================

def _fbn_run(shape, axis, dtype):
    x, s, o, (gy,) = fused_bn_inputs(shape, axis, dtype, 1)
    x, s, o = tj.constant(x), tj.constant(s), tj.constant(o)
    with tj.GradientTape() as tape:
        tape.watch([x, s, o])
        y, mean, var = tj.nn.batch_norm(x, s, o, epsilon=0.001, axis=axis)
    grads = tape.gradient(y, [x, s, o], output_gradients=gy)
    return y, mean, var, grads


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("case", ["S6|3", "S6|1", "S7|4", "S7|1"])
def test_fused_batch_norm_training_shape6_shape7_and_gradients(case, dtype):
    """BatchNormalizationTest.testTrainingShape6 ([1, 1, 1, 1], NHWC and NCHW: one value per channel, so the
    Bessel-corrected variance divides by max(n - 1, 1) = 1 and is 0) and testTrainingShape7 ([1, 2, 6, 1, 3],
    NDHWC and NCDHW), with their gradient twins testBatchNormGradTrainingShape6 / 7 (is_training=True; the x,
    scale and offset gradients for an upstream gradient drawn after the inputs), in float32, float16 and bfloat16
    (the dtypes of _runtests). TF: tf.compat.v1.nn.fused_batch_norm(x, scale, offset, epsilon=0.001,
    data_format=..., is_training=True) and tape.gradient(y, [x, scale, offset], output_gradients=gy)."""
    name, axis = case.split("|")
    shape = {"S6": [1, 1, 1, 1], "S7": [1, 2, 6, 1, 3]}[name]
    y, mean, var, grads = _fbn_run(shape, int(axis), jnp.dtype(dtype))
    want = TF[f"fbn|{case}|{dtype}"]
    assert y.dtype == jnp.dtype(dtype) and mean.dtype == np.float32 and var.dtype == np.float32
    assert grads[0].dtype == jnp.dtype(dtype) and grads[1].dtype == np.float32
    tol = {"float32": 1e-4, "float16": 2e-3, "bfloat16": 2e-2}[dtype]
    check(y, want[0], tol, "y")
    check(mean, want[1], tol, "batch_mean")
    check(var, want[2], tol, "batch_var")
    for g, w, what in zip(grads, want[3:], ("x", "scale", "offset")):
        check(g, w, tol, f"d/d{what}")


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("axis", [4, 1])
def test_fused_batch_norm_grad_grad_5d(axis, dtype):
    """BatchNormalizationTest.testBatchNormGradGradConfig5 (float32) / Config6 (float16): _test_grad_grad on a
    [2, 3, 2, 2, 2] input, NDHWC (axis 4) and NCDHW (axis 1), is_training=True: the x, scale and offset gradients
    for grad_y, then the gradients of each with respect to grad_y, x and scale (nested tapes; TF's zeros where one
    does not depend on the other, unconnected_gradients='zero')."""
    firsts, seconds = batch_norm_grad_grad([2, 3, 2, 2, 2], axis, dtype, unconnected_gradients="zero")
    want = iter(TF[f"fbngg|{axis}|{dtype}"])
    tol = 2e-2 if dtype == "float16" else 1e-4
    for f in firsts:
        check(f, next(want), tol, "first gradient")
    for grads in seconds:
        for g in grads:
            check(g, next(want), tol, "second order")


# ==== nn_batchnorm_test.py: tf.nn.batch_normalization, moments, sufficient statistics, in tj.numpy ========

def batch_normalization(x, mean, variance, offset, scale, variance_epsilon):
    """tf.nn.batch_normalization, as nn_impl writes it, in tj.numpy."""
    inv = tnp.rsqrt(variance + variance_epsilon)
    if scale is not None:
        inv = inv * scale
    return x * inv + (offset - mean * inv if offset is not None else -mean * inv)


def _bn(x, m, v, beta, gamma, scale, shift):
    return batch_normalization(x, m, v, beta if shift else None, gamma if scale else None, 0.001)


def moments(x, axes, keepdims=False):
    """tf.nn.moments (nn_impl): float16 computed in float32; the variance around stop_gradient(mean)."""
    y = x.astype(np.float32) if x.dtype == np.float16 else x
    mean = tnp.mean(y, axis=tuple(axes), keepdims=True)
    variance = tnp.mean(tnp.square(y - tj.stop_gradient(mean)), axis=tuple(axes), keepdims=True)
    if not keepdims:
        mean, variance = tnp.squeeze(mean, tuple(axes)), tnp.squeeze(variance, tuple(axes))
    if x.dtype == np.float16:
        mean, variance = mean.astype(np.float16), variance.astype(np.float16)
    return mean, variance


def weighted_moments(x, axes, frequency_weights, keepdims=False):
    """tf.nn.weighted_moments (nn_impl), in tj.numpy."""
    axes = tuple(axes)
    frequency_weights = tj.convert_to_tensor(frequency_weights).astype(x.dtype)
    weighted_input_sum = tnp.sum(frequency_weights * x, axis=axes, keepdims=True)
    broadcasted_weights = frequency_weights + tnp.zeros_like(x)
    divisor = tnp.reciprocal(tnp.sum(broadcasted_weights, axis=axes, keepdims=True))
    weighted_mean = weighted_input_sum * divisor
    weighted_distsq = tnp.sum(frequency_weights * tnp.square(x - weighted_mean), axis=axes, keepdims=True)
    weighted_variance = weighted_distsq * divisor
    if not keepdims:
        weighted_mean, weighted_variance = tnp.squeeze(weighted_mean, axes), tnp.squeeze(weighted_variance, axes)
    return weighted_mean, weighted_variance


def sufficient_statistics(x, axes, shift=None, keepdims=False):
    """tf.nn.sufficient_statistics (nn_impl), in tj.numpy."""
    counts = float(np.prod([x.shape[d] for d in axes]))
    if shift is not None:
        m_ss, v_ss = x - shift, tnp.square(x - shift)
    else:
        m_ss, v_ss = x, tnp.square(x)
    axes = tuple(axes)
    return counts, tnp.sum(m_ss, axis=axes, keepdims=keepdims), tnp.sum(v_ss, axis=axes, keepdims=keepdims), shift


def normalize_moments(counts, mean_ss, variance_ss, shift):
    """tf.nn.normalize_moments (nn_impl), in tj.numpy."""
    divisor = tnp.reciprocal(counts)
    shifted_mean = mean_ss * divisor
    mean = shifted_mean + shift if shift is not None else shifted_mean
    return mean, variance_ss * divisor - tnp.square(shifted_mean)


SCALE_SHIFT = [(True, True), (True, False), (False, True), (False, False)]


def test_batch_normalization_values_and_keepdims():
    """BatchNormalizationTest.testBatchNorm (tf.nn.batch_normalization with and without scale and shift, float32
    [3, 5, 4, 2]; the deprecated batch_norm_with_global_normalization kernels are not public TF 2 API) and
    testBatchNormKeepDims (parameters of shape (1, 1, 1, 2) give the same result as of shape (2,))."""
    x, m, v, beta, gamma = bn_params([3, 5, 4, 2], [2], np.float32, 0)
    for sc, sh in SCALE_SHIFT:
        y = _bn(x, m, v, beta, gamma, sc, sh)
        assert y.shape == (3, 5, 4, 2) and y.dtype == np.float32
        check(y, TF[f"bn|{sc}|{sh}"], 1e-5, f"scale {sc} shift {sh}")
        yk = _bn(x, *(p.reshape(1, 1, 1, 2) for p in (m, v, beta, gamma)), sc, sh)
        check(yk, TF[f"bnk|{sc}|{sh}"], 1e-5, f"keepdims, scale {sc} shift {sh}")
        np.testing.assert_allclose(to_numpy(yk), to_numpy(y), atol=1e-6)


@pytest.mark.parametrize("sc,sh", SCALE_SHIFT)
def test_batch_normalization_gradients_float64(sc, sh):
    """BatchNormalizationTest.testBatchNormInputGradient / MeanGradient / VarianceGradient / BetaGradient /
    GammaGradient (float64 [3, 5, 4, 5], parameters [5], np.random.seed(1)-style draws; TF compares the
    theoretical Jacobian with finite differences): here the gradients with respect to x, mean, variance, beta and
    gamma for a fixed upstream gradient (None for beta without shift and gamma without scale, as TF), and the
    tangent along x (forward mode), as TF 2.21's. Under jax.enable_x64."""
    with jax.enable_x64(True):
        ps = [tj.constant(p) for p in bn_params([3, 5, 4, 5], [5], np.float64, 1)]
        with tj.GradientTape() as tape:
            tape.watch(ps)
            y = _bn(*ps, sc, sh)
        grads = tape.gradient(y, ps, output_gradients=og_like([3, 5, 4, 5], np.float64))
        for g, w, what in zip(grads, TF[f"bng|{sc}|{sh}"], ("x", "mean", "variance", "beta", "gamma")):
            if w is None:
                assert g is None, what
            else:
                assert g.dtype == np.float64
                check(g, w, 1e-10, what)
        t = tan_like([3, 5, 4, 5], np.float64)
        with tj.ForwardAccumulator(ps[0], t) as acc:
            y = _bn(*ps, sc, sh)
        check(acc.jvp(y), TF[f"bnjvp|{sc}|{sh}"], 1e-10, "jvp")


@pytest.mark.parametrize("sc", [True, False])
def test_batch_normalization_grad_impl(sc):
    """BatchNormalizationTest.testBatchNormGradImpl: the gradients of (x - m) * rsqrt(v + eps) [* gamma] + beta for
    a given backprop, float32 [7, 5, 4, 6] (TF compares them with the removed BatchNormWithGlobalNormalizationGrad
    kernel, which TF 2.21 no longer runs: "removed in GraphDef version 9"; here with TF 2.21's tape gradients)."""
    rs = np.random.RandomState(1)
    x = rs.random_sample([7, 5, 4, 6]).astype(np.float32)
    m, v, beta, gamma = (rs.random_sample([6]).astype(np.float32) for _ in range(4))
    bp = rs.random_sample([7, 5, 4, 6]).astype(np.float32)
    ts = [tj.constant(a) for a in (x, m, v, beta, gamma)]
    with tj.GradientTape() as tape:
        tape.watch(ts)
        y = (ts[0] - ts[1]) * tnp.rsqrt(ts[2] + 0.001)
        if sc:
            y = ts[4] * y
        y = y + ts[3]
    for g, w, what in zip(tape.gradient(y, ts, output_gradients=bp), TF[f"bnimpl|{sc}"], "x m v beta gamma".split()):
        if w is None:
            assert g is None, what
        else:
            check(g, w, 2e-5, what)


def test_batch_normalization_arbitrary_shapes():
    """BatchNormalizationTest.testBatchNormArbitraryShapes: the depth axis anywhere, parameters broadcast: x (3, 3)
    with (1, 3) and (3, 1) parameters, (3, 2, 4, 5) with (1, 2, 1, 1), (2, 3, 2, 4, 5) with (1, 1, 1, 4, 5)."""
    for i, (xs, ps) in enumerate((((3, 3), (1, 3)), ((3, 3), (3, 1)), ((3, 2, 4, 5), (1, 2, 1, 1)),
                                  ((2, 3, 2, 4, 5), (1, 1, 1, 4, 5)))):
        params = bn_params(xs, ps, np.float32, 10 + i)
        for sc, sh in SCALE_SHIFT:
            y = _bn(*params, sc, sh)
            assert y.shape == xs
            check(y, TF[f"bnarb|{i}|{sc}|{sh}"], 1e-5, f"{xs} {ps} {sc} {sh}")


def test_sufficient_statistics():
    """SufficientStatisticsTest.testSuffStats: count, sum(x - shift) and sum((x - shift)**2) over axes, with and
    without shift and keepdims (TF's placeholder half, has_shape=False, is the same computation eagerly)."""
    for i, (xs, axes) in enumerate((([2, 3], [1]), ([2, 3], [0]), ([1, 2, 3], [0, 2]))):
        x = tj.constant(np.random.RandomState(20 + i).random_sample(xs).astype(np.float32))
        for kd in (True, False):
            for shift in (None, 1.0):
                c, m_ss, v_ss, s = sufficient_statistics(x, axes, shift, kd)
                wc, wm, wv, ws = TF[f"ss|{i}|{kd}|{shift}"]
                assert c == wc
                assert m_ss.shape == tuple(np.sum(np.zeros(xs), axis=tuple(axes), keepdims=kd).shape)
                check(m_ss, wm, 1e-6)
                check(v_ss, wv, 1e-6)
                assert (s is None) == (ws is None)


def test_normalize_moments():
    """NormalizeMomentsTest.testNormalizeMoments: mean = mean_ss / counts (+ shift), variance = variance_ss /
    counts - (mean_ss / counts)**2, shapes [3] and [2, 3], shift None and given."""
    for i, shape in enumerate(([3], [2, 3])):
        for shift in (None, 4.0):
            rs = np.random.RandomState(30 + i)
            counts = tj.constant(np.ones([1], np.float32))
            mss = rs.random_sample(shape).astype(np.float32)
            vss = rs.random_sample(shape).astype(np.float32) ** 2
            sv = rs.random_sample(shape).astype(np.float32) if shift else None
            mm, vv = normalize_moments(counts, mss, vss, sv)
            wm, wv = TF[f"nm|{i}|{shift}"]
            check(mm, wm, 1e-6)
            check(vv, wv, 1e-6)


@pytest.mark.parametrize("axes", [[0], [0, 1, 2], [1, 2, 3]], ids=str)
def test_moments(axes):
    """MomentsTest.testBasic (axes [0]), testGlobalNormalization ([0, 1, 2]), testAxes ([1, 2, 3]): float32 and
    float16 (computed in float32, as tf.nn.moments does), keepdims False and True (the dynamic-shape placeholder
    twins are the same computation eagerly)."""
    xn = np.random.RandomState(40).normal(size=[2, 3, 5, 4]).astype(np.float32)
    for dt in ("float32", "float16"):
        for kd in (False, True):
            mm, vv = moments(tj.constant(xn).astype(dt), axes, keepdims=kd)
            shape, wm, wv = TF[f"mom|{axes}|{dt}|{kd}"]
            assert list(mm.shape) == shape and mm.dtype == np.dtype(dt) and vv.dtype == np.dtype(dt)
            tol = 2e-3 if dt == "float16" else 1e-5
            check(mm, wm, tol)
            check(vv, wv, tol)


@pytest.mark.parametrize("which", [0, 1], ids=["mean", "var"])
def test_moments_global_gradient(which):
    """MomentsTest.testMeanGlobalGradient / testVarGlobalGradient (float64 [3, 5, 4, 2], axes [0, 1, 2]): the
    gradient for an upstream gradient [0.5, 2], the gradient of that gradient along a fixed direction (second
    order, nested tapes) and the forward-mode tangent, as TF 2.21's."""
    xg = np.random.RandomState(50).random_sample([3, 5, 4, 2])
    with jax.enable_x64(True):
        x = tj.constant(xg)
        t = tan_like([3, 5, 4, 2], np.float64)
        with tj.GradientTape(persistent=True) as t2:
            t2.watch(x)
            with tj.GradientTape() as t1:
                t1.watch(x)
                y = moments(x, [0, 1, 2])[which]
            g = t1.gradient(y, x, output_gradients=np.array([0.5, 2.0]))
            gs = tnp.sum(g * t)
        hv = t2.gradient(gs, x)
        with tj.ForwardAccumulator(x, t) as acc:
            y2 = moments(x, [0, 1, 2])[which]
        wy, wg, whv, wt = TF[f"momg|{which}"]
        check(y, wy, 1e-12)
        check(g, wg, 1e-10)
        if whv is None:
            assert hv is None
        else:
            check(hv, whv, 1e-10)
        check(acc.jvp(y2), wt, 1e-10)


WEIGHT_SHAPES = [[2, 3, 5, 4], [1, 3, 1, 1], [4], [5, 4], [1, 1, 1, 4]]


@pytest.mark.parametrize("axes", [[0], [0, 1, 2], [1, 2, 3]], ids=str)
def test_weighted_moments(axes):
    """WeightedMomentsTest (MomentsTest's tests with tf.nn.weighted_moments, RunWeightedMomentTest): 1:1 weights,
    weights broadcast in one position and as a suffix, keepdims False and True, float32."""
    for kd in (False, True):
        for wi, ws in enumerate(WEIGHT_SHAPES):
            rs = np.random.RandomState(60 + wi)
            xn = rs.normal(size=[2, 3, 5, 4]).astype(np.float32)
            wn = np.abs(rs.normal(size=ws, loc=1.0)).astype(np.float32)
            mm, vv = weighted_moments(tj.constant(xn), axes, wn, keepdims=kd)
            shape, wm, wv = TF[f"wm|{axes}|{kd}|{wi}"]
            assert list(mm.shape) == shape
            check(mm, wm, 2e-5)
            check(vv, wv, 2e-5)


@pytest.mark.parametrize("which", [0, 1], ids=["mean", "var"])
def test_weighted_moments_global_gradient(which):
    """WeightedMomentsTest.testMeanGlobalGradient / testVarGlobalGradient: the gradients with respect to x and to
    the (scalar, 1.0) weights, float64, as TF 2.21's."""
    xg = np.random.RandomState(50).random_sample([3, 5, 4, 2])
    with jax.enable_x64(True):
        x, w = tj.constant(xg), tj.constant(1.0, dtype="float64")
        with tj.GradientTape() as tape:
            tape.watch([x, w])
            y = weighted_moments(x, [0, 1, 2], w)[which]
        gx, gw = tape.gradient(y, [x, w], output_gradients=np.array([0.5, 2.0]))
        wy, wgx, wgw = TF[f"wmg|{which}"]
        check(y, wy, 1e-12)
        check(gx, wgx, 1e-10)
        np.testing.assert_allclose(float(gw), wgw, atol=1e-12)


# ==== cwise_ops_unary_test.py / cwise_ops_binary_test.py / cwise_ops_test.py ============================

def test_unary_uint64_square():
    """UnaryOpTest.testUInt64Basic: square of arange(6) as uint64 (x64 on), dtype kept."""
    with jax.enable_x64(True):
        y = tnp.square(np.arange(6).reshape(1, 3, 2).astype(np.uint64))
        assert y.dtype == np.uint64
        np.testing.assert_array_equal(to_numpy(y).ravel(), TF["u64sq"])


def test_binary_uint64_basic():
    """BinaryOpTest.testUint64Basic (which, as written in TF, uses uint32): truediv and floordiv, function and
    operator forms. Values as TF's; truediv of two uint32 is float32 here (jax.numpy's promotion; TF float64)."""
    x = np.arange(1, 13, 2).reshape(1, 3, 2).astype(np.uint32)
    y = np.arange(1, 7, 1).reshape(1, 3, 2).astype(np.uint32)
    want_div, want_fdiv, _, _ = TF["u32div"]
    for z in (tnp.true_divide(x, y), tj.constant(x) / y):
        np.testing.assert_allclose(to_numpy(z).ravel(), want_div, rtol=1e-6)
    for z in (tnp.floor_divide(x, y), tj.constant(x) // y):
        assert z.dtype == np.uint32
        np.testing.assert_array_equal(to_numpy(z).ravel(), want_fdiv)


def test_pow_negative_integer_exponent_int64_and_gpu_cases():
    """BinaryOpTest.testPowNegativeExponentCpu's int64 case (x64 on) and testPowNegativeExponentGpu's cases (its
    assertions hold for TF 2.21's CPU kernel too): an integer to a negative integer power raises (TF's
    InvalidArgumentError), also for bases -1 and 1 and a broadcast exponent; [[2], [3]] ** [[0, 2]] is
    [[1, 4], [1, 9]]."""
    with jax.enable_x64(True):
        for dtype in (np.int8, np.int16, np.int64):
            cases = [([5, 2], [-2, 3]), ([5, 2], [2, -3]), ([5, 2], -3), ([2, 3, 1, -1, -1], [-1, 0, -2, -2, -3]),
                     ([-1, 1], -1), ([[2], [3]], [[1, -1]])]
            for x, y in ((np.array(a, dtype), np.array(b, dtype)) for a, b in cases):
                with pytest.raises(ValueError, match="negative integer powers"):
                    tnp.power(x, y)
            z = tnp.power(np.array([[2], [3]], dtype), np.array([[0, 2]], dtype))
            assert z.dtype == dtype
            np.testing.assert_array_equal(to_numpy(z), [[1, 4], [1, 9]])


def test_pow_negative_integer_exponent_empty_base():
    """BinaryOpTest.testPowNegativeExponentGpu's last assertion (TF 2.21's CPU kernel agrees): pow of an empty
    (0, 1) int base and exponents [[1, -1]] is an empty (0, 2) tensor, not an error."""
    z = tnp.power(np.empty((0, 1), np.int16), np.array([[1, -1]], np.int16))
    assert z.shape == (0, 2) and z.dtype == np.int16


CMP = {"less": (tnp.less, np.less), "less_equal": (tnp.less_equal, np.less_equal), "greater": (tnp.greater, np.greater),
       "greater_equal": (tnp.greater_equal, np.greater_equal), "equal": (tnp.equal, np.equal),
       "not_equal": (tnp.not_equal, np.not_equal)}


def test_comparisons_64bit_dtypes():
    """ComparisonOpTest.testScalarCompareScalar / testTensorCompareTensor / testBCast* / testShapeMismatch and
    testEqualDType for the 64-bit dtypes test_tf_cwise_port.py leaves out (float64, int64, uint64, complex128;
    x64 on). TF 2.21 gives NumPy's answer on each of these inputs (checked when the values were taken)."""
    with jax.enable_x64(True):
        for t in (np.float64, np.int64):
            for x in (-1, 0, 1):
                for y in (-1, 0, 1):
                    for name, (f, npf) in CMP.items():
                        r = f(np.array([x], t), np.array([y], t))
                        assert r.dtype == np.bool_ and bool(to_numpy(r)[0]) == npf(x, y), (t, x, y, name)
        data = [-1, 0, 1, -1j, 1j, 1 + 1j, 1 - 1j]
        for x in data:
            for y in data:
                a, b = np.array([x], np.complex128), np.array([y], np.complex128)
                assert bool(to_numpy(tnp.equal(a, b))[0]) == (x == y)
                assert bool(to_numpy(tnp.not_equal(a, b))[0]) == (x != y)
        for xs, ys in (([1, 3, 2], [2]), ([2, 1, 5], [2, 3, 1]), ([2, 0, 5], [2, 0, 1])):
            for t in (np.float64, np.int64, np.complex128):
                x = np.linspace(-15, 15, int(np.prod(xs))).astype(t).reshape(xs)
                y = np.linspace(20, -10, int(np.prod(ys))).astype(t).reshape(ys)
                names = ("equal", "not_equal") + (() if t == np.complex128 else ("less", "greater_equal"))
                for name in names:
                    f, npf = CMP[name]
                    np.testing.assert_array_equal(to_numpy(f(x, y)), npf(x, y))
                    np.testing.assert_array_equal(to_numpy(f(y, x)), npf(y, x))
        for t in (np.float64, np.int64, np.uint64, np.complex128):
            xt = np.arange(5).astype(t)
            np.testing.assert_array_equal(to_numpy(tnp.equal(xt, xt.copy())), [True] * 5)
            np.testing.assert_array_equal(to_numpy(tnp.not_equal(xt, xt.copy())), [False] * 5)
        for t in (np.float64, np.int64):
            with pytest.raises(ValueError):
                tnp.less(np.arange(10).reshape(2, 5).astype(t), np.arange(10).reshape(5, 2).astype(t))


def test_bcast_values_64bit_dtypes():
    """BinaryOpTest.testBCast_1*, _8*, _9* (values) for float64, int64 and complex128 (x64 on): add, subtract,
    multiply, truediv (not for int64: its dtype follows jax.numpy) of broadcast pairs both ways round equal
    NumPy's, as TF 2.21's did on these inputs."""
    with jax.enable_x64(True):
        for xs, ys in (([1, 3, 2], [2]), ([2, 1, 5], [2, 3, 1]), ([2, 0, 5], [2, 0, 1])):
            for t in (np.float64, np.int64, np.complex128):
                x = (1 + np.linspace(0, 5, int(np.prod(xs)))).astype(t).reshape(xs)
                y = (1 + np.linspace(0, 5, int(np.prod(ys)))).astype(t).reshape(ys)
                for f, npf in ((tnp.add, np.add), (tnp.subtract, np.subtract), (tnp.multiply, np.multiply),
                               (tnp.true_divide, np.true_divide)):
                    if t == np.int64 and npf is np.true_divide:
                        continue
                    for a, b in ((x, y), (y, x)):
                        z = f(a, b)
                        assert z.shape == npf(a, b).shape and z.dtype == t
                        np.testing.assert_allclose(to_numpy(z), npf(a, b), rtol=1e-12)


def test_min_max_64bit_dtypes_and_gradients():
    """MinMaxOpTest.testBasic / testDifferentShapes for float64, int64 and uint64, testNaNPropagation in float64,
    and testGradients in float64 (TF's dtype there: rand(1, 3, 2) * 100 and y = x +- 1): values as NumPy's, the
    gradients for a fixed upstream gradient as TF 2.21's (the whole gradient to the larger / smaller operand)."""
    rng = np.random.default_rng(4)
    x = rng.random((1, 3, 2)) * 100.0
    with jax.enable_x64(True):
        for y in (rng.random((1, 3, 2)) * 100.0, rng.random(2) * 100.0):
            for t in (np.float64, np.int64, np.uint64):
                a, b = x.astype(t), y.astype(t)
                for f, npf in ((tnp.maximum, np.maximum), (tnp.minimum, np.minimum)):
                    z = f(a, b)
                    assert z.dtype == t
                    np.testing.assert_array_equal(to_numpy(z), npf(a, b))
        nx, ny = np.array([1.0, np.nan, 1.0, np.nan]), np.array([1.0, 1.0, np.nan, np.nan])
        np.testing.assert_array_equal(to_numpy(tnp.maximum(nx, ny)), TF["mmnan"][0])
        np.testing.assert_array_equal(to_numpy(tnp.minimum(nx, ny)), TF["mmnan"][1])
        rs = np.random.RandomState(7)
        xm = rs.random_sample((1, 3, 2)) * 100.0
        ym = xm + (rs.randint(2, size=xm.shape) - 0.5) * 2
        for name, f in (("maximum", tnp.maximum), ("minimum", tnp.minimum)):
            a, b = tj.constant(xm), tj.constant(ym)
            with tj.GradientTape() as tape:
                tape.watch([a, b])
                z = f(a, b)
            ga, gb = tape.gradient(z, [a, b], output_gradients=og_like((1, 3, 2), np.float64))
            wz, wa, wb = TF[f"mmg|{name}"]
            np.testing.assert_array_equal(to_numpy(z).ravel(), wz)
            np.testing.assert_array_equal(to_numpy(ga).ravel(), wa)
            np.testing.assert_array_equal(to_numpy(gb).ravel(), wb)
            t = tan_like((1, 3, 2), np.float64)
            with tj.ForwardAccumulator([a, b], [t, 2 * t]) as acc:
                z = f(a, b)
            t = t.ravel()
            want_t = (np.asarray(wa) > 0) * t + (np.asarray(wb) > 0) * 2 * t  # each tangent where TF sends its gradient
            np.testing.assert_allclose(to_numpy(acc.jvp(z)).ravel(), want_t)


OVERLOAD = {"add": lambda a, b: a + b, "subtract": lambda a, b: a - b, "multiply": lambda a, b: a * b,
            "power": lambda a, b: a ** b, "divide": lambda a, b: a / b, "floor_divide": lambda a, b: a // b,
            "mod": lambda a, b: a % b, "less": lambda a, b: a < b, "less_equal": lambda a, b: a <= b,
            "greater": lambda a, b: a > b, "greater_equal": lambda a, b: a >= b}


def test_overload_64bit_dtypes():
    """MathOpsOverloadTest.testOverload and testOverloadComparisons for float64, int64, uint64 and complex128 (the
    dtypes test_tf_cwise_port.py leaves out; x64 on): a tensor of 10 op 3 (5 for comparisons) with the Python
    number on the right and on the left, values as TF 2.21's; the dtype kept (an integer truediv's dtype follows
    jax.numpy, float64 here as in TF)."""
    with jax.enable_x64(True):
        for key, (left, right, tf_dtype) in ((k, v) for k, v in TF.items() if k.startswith("ov|")):
            _, dt, name = key.split("|")
            f = OVERLOAD[name]
            b = 5 if name.startswith(("less", "greater")) else 3
            ten, other = tj.convert_to_tensor(10, dtype=dt), tj.convert_to_tensor(b, dtype=dt)
            for got, want in ((f(ten, b), left), (f(10, other), right)):
                assert np.dtype(got.dtype) == np.dtype(tf_dtype), key
                g = to_numpy(got).item()
                if isinstance(want, list):
                    np.testing.assert_allclose([g.real, g.imag], want, rtol=1e-15, err_msg=key)
                else:
                    assert g == want, (key, g, want)


def test_sqrt_special_values_and_rounding_float64():
    """IsFiniteInfNanTest.testSqrt and RoundingTest.testTypes in float64 (x64 on): sqrt of negatives is NaN and
    of the rest as NumPy (as TF 2.21's, checked), at sizes that exercise vectorized kernels; floor, ceil and rint
    (half to even, signed zeros) as TF 2.21's."""
    with jax.enable_x64(True):
        fi = np.finfo(np.float64)
        for size in (1, 7, 8, 65):
            for value in (fi.min, -2, -1, 0, fi.tiny, 1, 2, 1000, fi.max / 100):
                x = np.full((size,), value, np.float64)
                y = to_numpy(tnp.sqrt(x))
                with np.errstate(invalid="ignore"):
                    want = np.sqrt(x)
                if value < 0:
                    assert np.isnan(y).all()
                else:
                    np.testing.assert_allclose(y, want, rtol=1e-15)
        d = (np.arange(-3, 3) / 4.0).reshape(1, 3, 2)
        floor, ceil, rint, r0, r1 = TF["round64"]
        for f, want in ((tnp.floor, floor), (tnp.ceil, ceil), (tnp.rint, rint)):
            got = to_numpy(f(d)).ravel()
            assert got.dtype == np.float64
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
        np.testing.assert_array_equal(to_numpy(tnp.rint(np.array([0.5, 0.5000001]))), r0)
        got = to_numpy(tnp.rint(np.array([-1.7, -1.5, -0.2, 0.2, 1.5, 1.7, 2.0])))
        np.testing.assert_array_equal(got, r1)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(r1))


def test_real_imag_conj_angle_complex128():
    """ComplexMakeRealImagTest.testRealImag128, testConj128, testAngle64 (x64 on): real, imag, real of real,
    imag of real (zeros), conj as NumPy's (TF 2.21 agreed exactly), angle as TF 2.21's."""
    with jax.enable_x64(True):
        real = (np.arange(-3, 3) / 4.0).reshape([1, 3, 2])
        imag = (np.arange(-3, 3) / 5.0).reshape([1, 3, 2])
        c = real + 1j * imag
        tr = tnp.real(c)
        assert tr.dtype == np.float64
        np.testing.assert_array_equal(to_numpy(tr), real)
        np.testing.assert_array_equal(to_numpy(tnp.imag(c)), imag)
        np.testing.assert_array_equal(to_numpy(tnp.real(tr)), real)
        np.testing.assert_array_equal(to_numpy(tnp.imag(tr)), real * 0)
        cj = tnp.conj(c)
        assert cj.dtype == np.complex128
        np.testing.assert_array_equal(to_numpy(cj), np.conj(c))
        rs = np.random.RandomState(13)
        mag, ang = rs.rand(10), 2 * np.pi * np.arange(10) / 100.0
        ca = np.append(mag * np.exp(1j * ang), [1.0, 1.0j, -1.0, -1.0j])
        np.testing.assert_allclose(to_numpy(tnp.angle(ca)), TF["angle128"], rtol=1e-14, atol=1e-15)
        np.testing.assert_allclose(to_numpy(tnp.angle(np.arange(-2, 2) / 2.0)), TF["angle_real64"], rtol=0, atol=0)


def test_select_64bit_dtypes():
    """SelectOpTest.testScalar / testBasic / testShapeMismatch for float64, int64 and complex128 (x64 on): as
    np.where (TF 2.21 agreed on these inputs); mismatched shapes raise ValueError."""
    rs = np.random.RandomState(14)
    c = rs.randint(0, 2, 6).astype(np.bool_).reshape(1, 3, 2)
    x, y = rs.rand(1, 3, 2) * 100, rs.rand(1, 3, 2) * 100
    with jax.enable_x64(True):
        for t in (np.float64, np.int64, np.complex128):
            for cond in (c, True):
                z = tnp.where(cond, x.astype(t), y.astype(t))
                assert z.dtype == t
                np.testing.assert_array_equal(to_numpy(z), np.where(cond, x.astype(t), y.astype(t)))
            with pytest.raises(ValueError):
                tnp.where(c, x.astype(t), np.ones((2, 5, 3), t))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_batch_select(dtype):
    """BatchSelectOpTest.testBasic / testGradients / testShapeMismatch: TF 1's where(c, x, y) with a vector c
    selects whole rows of rank-3 x and y; in tj.numpy (NumPy's broadcasting) that is where(c[:, None, None], x, y).
    Values and gradients for an upstream gradient as TF 2.21's tf.compat.v1.where (it gave exactly np.where(c, .)
    of the values and of the upstream gradient; checked), and the forward-mode tangent. A condition of length 8
    against 16 rows raises (TF: InvalidArgumentError)."""
    rs = np.random.RandomState(8)
    c = rs.randint(0, 2, 16).astype(np.bool_)
    xb, yb = rs.random_sample((16, 2, 8)) * 100, rs.random_sample((16, 2, 8)) * 100
    cc = c[:, None, None]
    with jax.enable_x64(dtype == "float64"):
        x, y = tj.constant(xb.astype(dtype)), tj.constant(yb.astype(dtype))
        with tj.GradientTape() as tape:
            tape.watch([x, y])
            z = tnp.where(cc, x, y)
        og = og_like((16, 2, 8), dtype)
        gx, gy = tape.gradient(z, [x, y], output_gradients=og)
        np.testing.assert_array_equal(to_numpy(z), np.where(cc, xb.astype(dtype), yb.astype(dtype)))
        np.testing.assert_array_equal(to_numpy(gx), np.where(cc, og, 0))
        np.testing.assert_array_equal(to_numpy(gy), np.where(cc, 0, og))
        with tj.ForwardAccumulator(y, og) as acc:
            z = tnp.where(cc, x, y)
        np.testing.assert_array_equal(to_numpy(acc.jvp(z)), np.where(cc, 0, og))
        with pytest.raises(ValueError):
            tnp.where(np.ones(8, np.bool_)[:, None, None], np.ones((16, 3, 2), dtype), np.ones((16, 3, 2), dtype))


def test_polyval():
    """PolyvalTest.testSimple (int32, float32, float64, complex64, complex128; degrees 0 to 4), testBroadcast
    (x and coefficients of shapes (1,), (2, 1), (1, 2), (2, 2)) and testEmpty (no coefficients: zeros):
    tf.math.polyval(coeffs, x) with a list of coefficient arrays is tnp.polyval(coeffs, x) (jax.numpy stacks them
    along the first axis). Values as TF 2.21's. (test_coeffs_raise, TF's check that coeffs is a list, has no
    counterpart: jax.numpy takes any array-like.)"""
    rs = np.random.RandomState(9)
    for dt in ("int32", "float32", "float64", "complex64", "complex128"):
        for deg in range(5):
            xp = rs.rand(2, 2).astype(dt)
            cs = [rs.rand(2, 2).astype(dt) for _ in range(deg + 1)]
            with jax.enable_x64(dt in ("float64", "complex128")):
                got = to_numpy(tnp.polyval(cs, xp))
            assert got.dtype == np.dtype(dt), (dt, deg)
            want = TF[f"pv|{dt}|{deg}"]
            if "complex" in dt:
                want = np.array([complex(*v) for v in want])
            np.testing.assert_allclose(got.ravel(), want, rtol=1e-6 if dt.endswith("64") and dt != "float64" else 1e-12)
    for i, xs in enumerate([(1,), (2, 1), (1, 2), (2, 2)]):
        for j, cs_ in enumerate([(1,), (2, 1), (1, 2), (2, 2)]):
            rs = np.random.RandomState(100 + 4 * i + j)
            xp = rs.rand(*xs).astype(np.float32)
            cs = [rs.rand(*cs_).astype(np.float32) for _ in range(4)]
            np.testing.assert_allclose(to_numpy(tnp.polyval(cs, xp)).ravel(), TF[f"pvb|{i}|{j}"], rtol=1e-6)
    got = tnp.polyval(np.zeros((0, 2, 2), np.float32), np.ones((2, 2), np.float32))
    np.testing.assert_array_equal(to_numpy(got).ravel(), TF["pvempty"])


def test_polyval_gradients():
    """PolyvalTest's polynomial, differentiated (TF's tests check values only): the gradients of a degree-3
    polyval with respect to x and each coefficient for an upstream gradient, and the second derivative in x
    (nested tapes), as TF 2.21's."""
    rs = np.random.RandomState(12)
    x = tj.constant(rs.rand(2, 2).astype(np.float32))
    cs = [tj.constant(rs.rand(2, 2).astype(np.float32)) for _ in range(4)]
    with tj.GradientTape(persistent=True) as t2:
        t2.watch([x] + cs)
        with tj.GradientTape() as t1:
            t1.watch([x] + cs)
            z = tnp.polyval(tnp.stack(cs), x)
        gs = t1.gradient(z, [x] + cs, output_gradients=og_like((2, 2)))
    hx = t2.gradient(gs[0], x)
    want = TF["pvgrad"]
    for got, w in zip([z] + gs + [hx], want):
        np.testing.assert_allclose(to_numpy(got).ravel(), w, rtol=2e-6)


def test_tensor_as_python_bool_in_a_traced_function_raises():
    """LogicalOpTest.testUsingAsPythonValueFails (graph mode): ``if b:`` on a tensor in a graph raises TypeError.
    In TF 2.21 that is tf.function(autograph=False) (OperatorNotAllowedInGraphError, a TypeError); in tapejax,
    tj.function (eagerly, as TF 2, bool() of a size-1 tensor works: API.md)."""
    def use_as_bool(b):
        if b:
            pass
        return b

    def compare(x, y):
        if x > y:
            pass
        return x

    def chained(x, y, z):
        return x < y < z

    with pytest.raises(TypeError):
        tj.function(use_as_bool)(tj.constant(False))
    with pytest.raises(TypeError):
        tj.function(compare)(tj.constant(3), tj.constant(4))
    with pytest.raises(TypeError):
        tj.function(chained)(tj.constant(3), tj.constant(4), tj.constant(7))
    assert not bool(tj.constant(False)) and bool(tj.constant(3) < tj.constant(4))


# ==== reduction_ops_test.py ================================================================================

NP_RED = {"sum": np.sum, "mean": np.mean, "prod": np.prod, "max": np.max, "min": np.min,
          "norm": lambda x, axis=None, keepdims=False: np.sqrt(np.sum(x * np.conj(x), axis=axis, keepdims=keepdims))}


def tj_red(name, x, axis=None, keepdims=False):
    """tf.reduce_X(x, axis, keepdims) in tj.numpy. reduce_euclidean_norm over any set of axes is
    tnp.linalg.norm over one axis (jax.numpy's takes one or two) of x with those axes moved last and merged."""
    if name != "norm":
        return getattr(tnp, name)(x, axis=axis, keepdims=keepdims)
    x = tj.convert_to_tensor(x)
    axes = tuple(range(x.ndim)) if axis is None else tuple(a % x.ndim for a in axis)
    rest = [d for d in range(x.ndim) if d not in axes]
    merged = tnp.reshape(tnp.transpose(x, rest + list(axes)), [x.shape[d] for d in rest] + [-1])
    y = tnp.linalg.norm(merged, axis=-1)
    return tnp.reshape(y, [1 if d in axes else x.shape[d] for d in range(x.ndim)]) if keepdims else y


def _values_as_numpy(name, x, axes_list, keepdims=(False, True)):
    tol = 1e-6 if np.dtype(x.dtype) in (np.float32, np.complex64) else 1e-12
    for axes in axes_list:
        for kd in keepdims:
            got, want = tj_red(name, x, axes, kd), NP_RED[name](x, axis=axes, keepdims=kd)
            assert got.shape == np.shape(want), (name, axes, kd)
            if name != "norm":
                assert got.dtype == x.dtype, (name, x.dtype, axes)
            np.testing.assert_allclose(to_numpy(got), want, rtol=tol, atol=tol, err_msg=f"{name} {x.dtype} {axes} {kd}")


@pytest.mark.parametrize("name", ["sum", "mean", "prod"])
def test_reduction_values_float32_all_ranks_and_axes(name):
    """Sum/Mean/ProdReductionTest.testFloat32 (and testFloat32BFloat16's float32 half): _makeIncremental inputs of
    shape (2,) * rank for rank 1 to 5, every subset of axes (and None), keepdims False and True, as NumPy's (TF 2.21
    agreed on every one of them; checked when this file was made)."""
    for rank in range(1, 6):
        _values_as_numpy(name, reduction_incremental((2,) * rank, np.float32), [None] + powerset(rank))


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "norm"])
def test_reduction_values_64bit_and_complex(name):
    """Sum/Mean/ProdReductionTest.testFloat64 / testComplex64 / testComplex128 and EuclideanNormReductionTest.
    testTypes (float32, float64, complex64, complex128), rank 3, every subset of axes, as NumPy's (TF 2.21
    agreed). x64 on for the 64-bit dtypes."""
    for dt in (np.float32, np.float64, np.complex64, np.complex128):
        if name != "norm" and dt == np.float32:
            continue
        with jax.enable_x64(dt in (np.float64, np.complex128)):
            _values_as_numpy(name, reduction_incremental((2,) * 3, dt), [None] + powerset(3),
                             (False,) if name == "norm" else (False, True))


def test_min_max_reduce_3d_float_double_int64():
    """MinReductionTest.testFloatReduce3D / testDoubleReduce3D, MaxReductionTest.testFloatReduce3D /
    testDoubleReduce3D / testInt64Reduce3D (x64 on for float64 and int64): every subset of axes, keepdims, as
    NumPy's (TF 2.21 agreed)."""
    axes = [None, (), (0,), (1,), (2,), (0, 1), (1, 2), (0, 2), (0, 1, 2)]
    for name in ("max", "min"):
        for dt in (np.float32, np.float64, np.int64):
            with jax.enable_x64(dt != np.float32):
                x = (np.arange(-31, -1) if name == "max" else np.arange(1, 31)).reshape(2, 3, 5).astype(dt)
                _values_as_numpy(name, x, axes)


def test_sum_high_rank():
    """SumReductionTest.testHighRank: random int inputs of rank 4 to 10 (np.random.seed(42), TF's draws, eight of
    its twenty) reduced over random axes; TF 2.21's sums (equal to NumPy's)."""
    np.random.seed(42)
    for shape, axes, want in TF["highrank"]:
        rank = np.random.randint(4, 10 + 1)
        (ax,) = np.nonzero(np.random.randint(2, size=rank))
        sh = tuple(np.random.randint(1, 3 + 1, size=rank))
        data = np.random.randint(1024, size=sh).astype(np.int32)
        assert list(sh) == shape and list(ax) == axes
        got = tnp.sum(data, axis=tuple(int(a) for a in ax))
        np.testing.assert_allclose(D(to_numpy(got)), want, rtol=1e-12, err_msg=f"{shape} {axes}")  # TF's digest


def test_sum_of_ones_large_shapes():
    """SumReductionTest.testFloat32's and testFloat32BFloat16's sums of ones over rows, columns, axis 1 and axes
    (0, 2) of a few sizes (TF: equal to NumPy's, the count of ones)."""
    for shape in ((1, 33, 16), (33, 3, 16), (16, 1, 33)):
        for dt in (np.float32, BF16):
            a = np.ones(shape, dt)
            n, m, k = shape
            np.testing.assert_array_equal(to_numpy(tnp.sum(a, axis=1)).astype(np.float32), np.full((n, k), m))
            np.testing.assert_array_equal(to_numpy(tnp.sum(a, axis=(0, 2))).astype(np.float32), np.full(m, n * k))
    a = np.ones((4096, 300), np.float32)
    np.testing.assert_array_equal(to_numpy(tnp.sum(a, axis=0)), np.full(300, 4096.0))
    np.testing.assert_array_equal(to_numpy(tnp.sum(a, axis=1)), np.full(4096, 300.0))





def test_integer_mean_and_norm():
    """MeanReductionTest.testInt32, testUint8 and testSizeOverflowUint8 / Int8 / Uint16 / Int16 (a sum that does not
    fit the input type: here arange(n) % max, TF's own draws are all zeros) and EuclideanNormReductionTest.testTypes
    (int32), testSingleton. TF keeps the integer dtype (a truncated mean, a floored norm); tj.numpy follows
    jax.numpy and returns floats (a sanctioned dtype difference), whose floor is TF's value."""
    x = reduction_incremental((2, 2, 2), np.int32)
    for axes in [None] + powerset(3):
        m, n = tnp.mean(x, axis=axes), tj_red("norm", x.astype(np.float32), axes)
        assert np.issubdtype(np.dtype(m.dtype), np.floating)
        np.testing.assert_array_equal(np.floor(to_numpy(m)).ravel(), TF["mean_int32"][str(axes)], err_msg=str(axes))
        np.testing.assert_array_equal(np.floor(to_numpy(n)).ravel(), TF["norm_int32"][str(axes)], err_msg=str(axes))
    for dt, size in (("uint8", 2 ** 8), ("int8", 2 ** 7), ("uint16", 2 ** 16), ("int16", 2 ** 15)):
        v = (np.arange(size) % np.iinfo(dt).max).astype(dt)
        assert np.floor(float(tnp.mean(v))) == TF[f"mean_overflow|{dt}"], dt
    check(tj_red("norm", np.array([-1.0], np.float32)), TF["norm_singleton"][0], 0)
    with jax.enable_x64(True):
        check(tj_red("norm", np.array([-1.0]), keepdims=True), TF["norm_singleton"][1], 0)
        p = reduction_incremental((2, 2, 2, 2), np.int64) % 11 + 1
        for axes in [None, (0,), (1, 3), (0, 1, 2, 3)]:
            got = tnp.prod(p, axis=axes)  # ProdReductionTest.testInt64
            assert got.dtype == np.int64
            np.testing.assert_array_equal(to_numpy(got).ravel(), TF["prod_int64"][str(axes)])


GRAD_AXES = [None, (), (0,), (1,), (2,), (1, 2), (0, 1, 2, 3)]


@pytest.mark.parametrize("case", ["sum|float64", "mean|float64", "norm|float64", "sum|complex128"])
def test_reduction_gradients_float64_complex128(case):
    """SumReductionTest.testGradient (float64, complex128), MeanReductionTest.testGradient and
    EuclideanNormReductionTest.testGradient (float64; the input + 1) on TF's [2, 3, 4, 2] _makeIncremental input
    and _compareGradientAxes' axes (test_tf_reduction_port.py has float32 and complex64 on a smaller input): the
    value, the gradient for a fixed upstream gradient (times 1 + 1j for complex128) and the forward-mode tangent,
    as TF 2.21's. x64 on."""
    name, dt = case.split("|")
    with jax.enable_x64(True):
        x = reduction_incremental([2, 3, 4, 2], np.dtype(dt)) + (1.0 if name == "norm" else 0.0)
        for axes in GRAD_AXES:
            if name == "norm" and axes == ():
                continue  # a norm over no axes is abs, whose gradient TF's test avoids at 0; not in TF's values
            xt = tj.constant(x)
            with tj.GradientTape() as tape:
                tape.watch(xt)
                y = tj_red(name, xt, axes)
            og = og_like(y.shape, np.float64) * (1 + 1j if dt == "complex128" else 1)
            g = tape.gradient(y, xt, output_gradients=og.astype(dt))
            with tj.ForwardAccumulator(xt, tan_like([2, 3, 4, 2], np.float64).astype(dt)) as acc:
                y2 = tj_red(name, xt, axes)
            assert g.dtype == np.dtype(dt)
            wy, wg, wt = TF[f"rg|{name}|{dt}|{axes}"]
            for got, want, what in ((y, wy, "value"), (g, wg, "gradient"), (acc.jvp(y2), wt, "tangent")):
                if dt == "complex128":  # TF's stored form: the digests of the real and imaginary parts
                    a = to_numpy(got)
                    atol = 1e-12 * max(1.0, abs(want[2]) + abs(want[5]))
                    np.testing.assert_allclose(D(a.real) + D(a.imag), want, rtol=1e-12, atol=atol, err_msg=what)
                else:
                    check(got, want, 1e-12, f"{axes} {what}")


@pytest.mark.parametrize("name", ["min", "max"])
def test_min_max_gradient_float64(name):
    """MinReductionTest / MaxReductionTest .testGradient, testGradient2, testGradient3, testGradient4 in TF's dtype,
    float64 (x64 on; test_tf_reduction_port.py has them in float32): arange(1, 49) (max: -49 .. -2) of shape
    [2, 3, 4, 2] reduced over [1, 2], [1], [2] and everything; the gradient for a fixed upstream gradient as
    TF 2.21's."""
    x = np.arange(1.0, 49.0) if name == "min" else np.arange(-49.0, -1.0)
    with jax.enable_x64(True):
        for axes in [(1, 2), (1,), (2,), None]:
            xt = tj.constant(x.reshape(2, 3, 4, 2))
            with tj.GradientTape() as tape:
                tape.watch(xt)
                y = tj_red(name, xt, axes)
            g = tape.gradient(y, xt, output_gradients=og_like(y.shape, np.float64))
            wy, wg = TF[f"rg|{name}|float64|{axes}"]
            check(y, wy, 1e-15)
            np.testing.assert_array_equal(to_numpy(g).ravel(), wg)


# ==== TF 2.21's values (run on the same inputs; see each test) ================================================
TF = {
    'fbn|S6|3|float32': [[0.00011437481589382514], [0.4170219898223877], [0.0], [0.0], [0.0], [0.3023325800895691]],
    'fbn|S6|3|float16': [[0.00011438131332397461], [0.4169921875], [0.0], [0.0], [0.0], [0.30224609375]],
    'fbn|S6|3|bfloat16': [[0.00011444091796875], [0.41796875], [0.0], [0.0], [0.0], [0.302734375]],
    'fbn|S6|1|float32': [[0.00011437481589382514], [0.4170219898223877], [0.0], [0.0], [0.0], [0.3023325800895691]],
    'fbn|S6|1|float16': [[0.00011438131332397461], [0.4169921875], [0.0], [0.0], [0.0], [0.30224609375]],
    'fbn|S6|1|bfloat16': [[0.00011444091796875], [0.41796875], [0.0], [0.0], [0.0], [0.302734375]],
    'fbn|S7|4|float32': [[29.846052199602127, -1.8237852704195239, 30.20358243584633], [0.41457968950271606,
        0.4680171012878418, 0.4575147032737732], [0.09453637897968292, 0.07045111805200577, 0.12295421957969666],
        [3.9139558793976903e-07, 2.385402154815976, 16.725117624497216], [0.5620422959327698, -0.4938666820526123,
        -0.15279510617256165], [4.4047441482543945, 6.299399375915527, 5.0134382247924805]],
    'fbn|S7|4|float16': [[29.844253540039062, -1.8235655247200806, 30.201797485351562], [0.4145558774471283,
        0.4679768979549408, 0.4574820399284363], [0.0945366695523262, 0.0704304650425911, 0.12294863164424896],
        [0.0016504526138305664, 2.3835263154973303, 16.725453734397888], [0.5614288449287415, -0.4941619634628296,
        -0.1528177261352539], [4.40435791015625, 6.29949951171875, 5.0139312744140625]],
    'fbn|S7|4|bfloat16': [[29.8382568359375, -1.8221158624025278, 30.1981201171875], [0.4145914912223816,
        0.468017578125, 0.45732563734054565], [0.09449341148138046, 0.07042089849710464, 0.1228218600153923],
        [-0.007881402969360352, 2.3783067562316713, 16.72522759437561], [0.5616722106933594, -0.4979267716407776,
        -0.15128470957279205], [4.4052734375, 6.30078125, 5.0140380859375]],
    'fbn|S7|1|float32': [[13.831788513809443, -2.3141553791935254, 26.059879560023546], [0.38928475975990295,
        0.5041228532791138], [0.06370728462934494, 0.11675777286291122], [2.534128725528717e-06, 0.334263699769751,
        21.420412133447826], [-0.26767444610595703, -2.681478977203369], [7.419041633605957, 8.760292053222656]],
    'fbn|S7|1|float16': [[13.830154418945312, -2.314834961396483, 26.057662963867188], [0.38921990990638733,
        0.5041232705116272], [0.06367921084165573, 0.1167604997754097], [0.000152587890625, 0.33349652481448544,
        21.42303466796875], [-0.2678429186344147, -2.6811273097991943], [7.4189910888671875, 8.760223388671875]],
    'fbn|S7|1|bfloat16': [[13.8258056640625, -2.3051296463033917, 26.0540771484375], [0.389356404542923,
        0.5039333701133728], [0.06369983404874802, 0.11666054278612137], [0.00469970703125, 0.327800311929638,
        21.42791748046875], [-0.2700830399990082, -2.685149669647217], [7.4219970703125, 8.762939453125]],
    'fbngg|4|float32': [[4.1667954064905643e-07, -1.805927573206042, 27.195953686343273], [1.2544846534729004,
        2.629305839538574], [11.716023445129395, 11.843717575073242], [1.4901161193847656e-07, -0.10883170173216028,
        35.414199978113174], [2.0563602447509766e-06, -1.23273042073214, 16.767948165535927], [-3.342482328414917,
        -1.805674433708191], [2.208573278039694e-06, -0.7712012335635632, 11.628645483928267],
        [2.384185791015625e-07, -0.7127140781720511, 10.294168144464493], [0.0, 0.0], [24.942014694213867,
        0.7055665025993223, 24.942014694213867], [0.0, 0.0, 0.0], [0.0, 0.0]],
    'fbngg|1|float32': [[-2.679662429727614e-07, -2.8094152984002774, 18.304154497942363], [0.1365984082221985,
        1.618337869644165, 1.1741951704025269], [6.399899959564209, 8.800444602966309, 8.359397888183594],
        [1.132808392867446e-06, 0.8398376376761947, 21.3156168993155], [-1.1923839338123798e-07, 0.9430247236938629,
        6.648768233921146], [-0.6232595443725586, 0.6040844321250916, -0.6087918281555176], [1.8978025764226913e-06,
        -3.5796728640043805, 21.942746452754363], [2.7045607566833496e-06, -1.7520704068167103, 18.624440856277943],
        [0.0, 0.0, 0.0], [19.19111728668213, 0.9720221902300736, 19.19111728668213], [0.0, 0.0, 0.0], [0.0, 0.0,
        0.0]],
    'fbngg|4|float16': [[0.00037384033203125, -1.8026916378856264, 27.19988250732422], [1.2553285360336304,
        2.6294941902160645], [11.716720581054688, 11.843902587890625], [0.00061798095703125, -0.10771412031085958,
        35.41393280029297], [-0.000213623046875, -1.2307138528972876, 16.767547607421875], [-3.342181444168091,
        -1.8039168119430542], [-6.175041198730469e-05, -0.7720420370683838, 11.627533674240112],
        [1.6927719116210938e-05, -0.7121311355005211, 10.294145822525024], [0.0, 0.0], [24.94189453125,
        0.7055544951548551, 24.94189453125], [0.0, 0.0, 0.0], [0.0, 0.0]],
    'fbngg|1|float16': [[-4.762411117553711e-05, -2.8081113254775483, 18.305459082126617], [0.13646933436393738,
        1.618971586227417, 1.174728274345398], [6.4004974365234375, 8.80035400390625, 8.359771728515625],
        [0.00024580955505371094, 0.8398954271682608, 21.318212747573853], [0.00041979551315307617,
        0.9424515296673972, 6.64961451292038], [-0.6234684586524963, 0.6039028167724609, -0.6092076301574707],
        [0.0001354217529296875, -3.58162923069435, 21.941030502319336], [0.0001983642578125, -1.7488833479900647,
        18.625518798828125], [0.0, 0.0, 0.0], [19.189453125, 0.9719261554443372, 19.189453125], [0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0]],
    'bn|True|True': [60.95040148496628, 1.2474562591398244, 60.95040148496628],
    'bnk|True|True': [60.95040148496628, 1.2474562591398244, 60.95040148496628],
    'bn|True|False': [-0.8644951656460762, 0.3618643810567882, 6.06517962180078],
    'bnk|True|False': [-0.8644951656460762, 0.3618643810567882, 6.06517962180078],
    'bn|False|True': [47.1675203666091, 3.649581141907197, 51.96081195399165],
    'bnk|False|True': [47.1675203666091, 3.649581141907197, 51.96081195399165],
    'bn|False|False': [-14.647374719381332, 2.7639893804760858, 36.357255190610886],
    'bnk|False|False': [-14.647374719381332, 2.7639893804760858, 36.357255190610886],
    'bng|True|True': [[258.539426084261, 2.110203789724677, 258.539426084261], [-45.031995865619834,
        -75.79960977412743, -26.707543955171086, -17.938912301043963, -93.06136418829865], [16.68775791211845,
        40.852241050849535, 9.139226644297318, 0.8970594966084606, -54.97836579891576], [61.65662916104,
        61.211404784987636, 60.98983196019143, 55.71862197174121, 61.15844012498542], [-31.257469752015542,
        -38.82015444573074, -19.845202599255302, -4.293092125997316, 40.44530349726481]],
    'bnjvp|True|True': [-0.05192204846627724, 2.064402491239145, 162.74317610269412],
    'bng|True|False': [[258.539426084261, 2.110203789724677, 258.539426084261], [-45.031995865619834,
        -75.79960977412743, -26.707543955171086, -17.938912301043963, -93.06136418829865], [16.68775791211845,
        40.852241050849535, 9.139226644297318, 0.8970594966084606, -54.97836579891576], None, [-31.257469752015542,
        -38.82015444573074, -19.845202599255302, -4.293092125997316, 40.44530349726481]],
    'bnjvp|True|False': [-0.05192204846627724, 2.064402491239145, 162.74317610269412],
    'bng|False|True': [[504.0509116433442, 2.204259687401577, 504.0509116433442], [-90.1389565734754,
        -104.0366467609, -128.2817358585276, -72.32453712477457, -109.26903532566669], [33.40329596400426,
        56.070607543537285, 43.89755420052274, 3.6166859939336735, -64.55345939775631], [61.65662916104,
        61.211404784987636, 60.98983196019143, 55.71862197174121, 61.15844012498542], None],
    'bnjvp|False|True': [-0.7182415691660755, 3.480965233010327, 319.475011096102],
    'bng|False|False': [[504.0509116433442, 2.204259687401577, 504.0509116433442], [-90.1389565734754,
        -104.0366467609, -128.2817358585276, -72.32453712477457, -109.26903532566669], [33.40329596400426,
        56.070607543537285, 43.89755420052274, 3.6166859939336735, -64.55345939775631], None, None],
    'bnjvp|False|False': [-0.7182415691660755, 3.480965233010327, 319.475011096102],
    'bnimpl|True': [[344.1824294801627, -4.601146356463502, 344.1824294801627], [-13.185457229614258,
        -129.90541076660156, -55.065650939941406, -63.57710647583008, -29.9272518157959, -52.521568298339844],
        [-3.5008673667907715, -87.93113708496094, -14.29557991027832, 35.323036193847656, 4.817882537841797,
        -1.8582637310028076], [67.76346588134766, 77.78717041015625, 69.5616226196289, 74.04692077636719,
        64.86322784423828, 71.87753295898438], [28.058439254760742, 40.301509857177734, 25.808732986450195,
        -44.91212844848633, -19.374542236328125, 4.1712965965271]],
    'bnimpl|False': [[680.7209635635372, -10.433715173796998, 680.7209635635372], [-86.90373992919922,
        -203.2545166015625, -97.34721374511719, -135.65553283691406, -69.9173583984375, -87.64261627197266],
        [-23.07378578186035, -137.58006286621094, -25.27229118347168, 75.36934661865234, 11.255745887756348,
        -3.1008825302124023], [67.76346588134766, 77.78717041015625, 69.5616226196289, 74.04692077636719,
        64.86322784423828, 71.87753295898438], None],
    'bnarb|0|True|True': [9.52334976196289, 0.05881606414914131, 0.09955447912216187, 9.229574203491211,
        0.5353716611862183, -0.1463632732629776, 2.0440783500671387, 0.7967374324798584, -0.17985740303993225],
    'bnarb|0|True|False': [8.910823822021484, -0.6629392504692078, -0.19232159852981567, 8.617048263549805,
        -0.1863836944103241, -0.43823933601379395, 1.4315524101257324, 0.07498210668563843, -0.4717334806919098],
    'bnarb|0|False|True': [10.321694374084473, -0.20598287880420685, -0.06260484457015991, 10.001598358154297,
        0.46092408895492554, -0.5158723592758179, 2.172335147857666, 0.8266876935958862, -0.5776076316833496],
    'bnarb|0|False|False': [9.70916748046875, -0.9277381896972656, -0.35448092222213745, 9.38907241821289,
        -0.26083123683929443, -0.8077484369277954, 1.5598089694976807, 0.10493236780166626, -0.8694837093353271],
    'bnarb|1|True|True': [0.4080911874771118, 0.35431694984436035, 0.5027173757553101, 0.019626080989837646,
        -0.03231954574584961, -0.02120126783847809, -0.06196562200784683, 0.8218915462493896, 1.6682114601135254],
    'bnarb|1|True|False': [-0.22424280643463135, -0.2780170440673828, -0.1296166479587555, -0.0008575320243835449,
        -0.0528031587600708, -0.04168488085269928, -0.17870289087295532, 0.705154299736023, 1.5514742136001587],
    'bnarb|1|False|True': [-0.07647131383419037, -0.246445432305336, 0.22263091802597046, 0.015053153038024902,
        -0.3138991892337799, -0.24349123239517212, -0.11871425062417984, 1.0458192825317383, 2.160895347595215],
    'bnarb|1|False|False': [-0.7088053226470947, -0.878779411315918, -0.4097030758857727, -0.005430459976196289,
        -0.3343828022480011, -0.2639748454093933, -0.23545151948928833, 0.9290819764137268, 2.0441582202911377],
    'bnarb|2|True|True': [72.50332506000996, 2.7395563399773564, 72.50332506000996],
    'bnarb|2|True|False': [10.093637336976826, 2.4726035764449037, 20.166747408919036],
    'bnarb|2|False|True': [95.53799246251583, 4.449279503718718, 96.96941159665585],
    'bnarb|2|False|False': [33.12830378115177, 4.182326378914436, 52.88713647425175],
    'bnarb|3|True|True': [102.43933391571045, 0.9484944262964374, 121.69180318713188],
    'bnarb|3|True|False': [19.39840937059489, 0.6466990608982767, 67.81071581944707],
    'bnarb|3|False|True': [131.53980389982462, -3.138283684302515, 175.06237513571978],
    'bnarb|3|False|False': [48.49887952581048, -3.440079633048411, 136.32964504882693],
    'ss|0|True|None': [3.0, [2.3773751258850098, 1.5434846878051758], [1.9466148614883423, 1.1454074382781982], None],
    'ss|0|True|1.0': [3.0, [-0.6226247549057007, -1.4565154314041138], [0.19186432659626007, 1.0584381818771362],
        [1.0]],
    'ss|0|False|None': [3.0, [2.3773751258850098, 1.5434846878051758], [1.9466148614883423, 1.1454074382781982],
        None],
    'ss|0|False|1.0': [3.0, [-0.6226247549057007, -1.4565154314041138], [0.19186432659626007, 1.0584381818771362],
        [1.0]],
    'ss|1|True|None': [2.0, [0.07034113258123398, 0.4950324296951294, 0.7717396020889282], [0.002841376466676593,
        0.12598857283592224, 0.5223703384399414], None],
    'ss|1|True|1.0': [2.0, [-1.9296588897705078, -1.5049675703048706, -1.2282603979110718], [1.8621591329574585,
        1.1359236240386963, 0.978891134262085], [1.0]],
    'ss|1|False|None': [2.0, [0.07034113258123398, 0.4950324296951294, 0.7717396020889282], [0.002841376466676593,
        0.12598857283592224, 0.5223703384399414], None],
    'ss|1|False|1.0': [2.0, [-1.9296588897705078, -1.5049675703048706, -1.2282603979110718], [1.8621591329574585,
        1.1359236240386963, 0.978891134262085], [1.0]],
    'ss|2|True|None': [3.0, [1.1106796264648438, 1.369207501411438], [0.45232468843460083, 0.8823187351226807], None],
    'ss|2|True|1.0': [3.0, [-1.8893202543258667, -1.630792498588562], [1.230965256690979, 1.1439037322998047], [1.0]],
    'ss|2|False|None': [3.0, [1.1106796264648438, 1.369207501411438], [0.45232468843460083, 0.8823187351226807],
        None],
    'ss|2|False|1.0': [3.0, [-1.8893202543258667, -1.630792498588562], [1.230965256690979, 1.1439037322998047],
        [1.0]],
    'nm|0|None': [[0.6441435217857361, 0.3807484805583954, 0.6630479097366333], [-0.3881393074989319,
        0.7816444039344788, -0.31945809721946716]],
    'nm|0|4.0': [[1.635894536972046, 0.6158063411712646, 1.2487421035766602], [-0.3881393074989319,
        0.7816444039344788, -0.31945809721946716]],
    'nm|1|None': [[0.2860538363456726, 0.9581055641174316, 0.7703129053115845, 0.9868699908256531,
        0.2081654667854309, 0.13691705465316772], [0.743316113948822, -0.913254976272583, -0.587706983089447,
        -0.6784824132919312, -0.035340551286935806, 0.12747833132743835]],
    'nm|1|4.0': [[0.9546142816543579, 1.3872746229171753, 0.8142691850662231, 1.1811559200286865, 0.65482497215271,
        0.19949033856391907], [0.743316113948822, -0.913254976272583, -0.587706983089447, -0.6784824132919312,
        -0.035340551286935806, 0.12747833132743835]],
    'mom|[0]|float32|False': [[3, 5, 4], [-6.03639180213213, -3.332682395414774, 33.37364184111357],
        [26.781874691921985, -7.936222836011112, 26.781874691921985]],
    'mom|[0]|float32|True': [[1, 3, 5, 4], [-6.03639180213213, -3.332682395414774, 33.37364184111357],
        [26.781874691921985, -7.936222836011112, 26.781874691921985]],
    'mom|[0]|float16|False': [[3, 5, 4], [-6.03704833984375, -3.33276159528069, 33.37371826171875],
        [26.78340792655945, -7.936433717022317, 26.78340792655945]],
    'mom|[0]|float16|True': [[1, 3, 5, 4], [-6.03704833984375, -3.33276159528069, 33.37371826171875],
        [26.78340792655945, -7.936433717022317, 26.78340792655945]],
    'mom|[0, 1, 2]|float32|False': [[4], [-0.13548484444618225, -0.06530392169952393, -0.05906277149915695,
        -0.14257460832595825], [0.9350150227546692, 0.6837520599365234, 1.4122421741485596, 0.7722119688987732]],
    'mom|[0, 1, 2]|float32|True': [[1, 1, 1, 4], [-0.13548484444618225, -0.06530392169952393, -0.05906277149915695,
        -0.14257460832595825], [0.9350150227546692, 0.6837520599365234, 1.4122421741485596, 0.7722119688987732]],
    'mom|[0, 1, 2]|float16|False': [[4], [-0.135498046875, -0.06536865234375, -0.058990478515625, -0.142578125],
        [0.93505859375, 0.68359375, 1.412109375, 0.7724609375]],
    'mom|[0, 1, 2]|float16|True': [[1, 1, 1, 4], [-0.135498046875, -0.06536865234375, -0.058990478515625,
        -0.142578125], [0.93505859375, 0.68359375, 1.412109375, 0.7724609375]],
    'mom|[1, 2, 3]|float32|False': [[2], [0.04131840541958809, -0.24253147840499878], [0.8291986584663391,
        1.0351014137268066]],
    'mom|[1, 2, 3]|float32|True': [[2, 1, 1, 1], [0.04131840541958809, -0.24253147840499878], [0.8291986584663391,
        1.0351014137268066]],
    'mom|[1, 2, 3]|float16|False': [[2], [0.04132080078125, -0.2425537109375], [0.8291015625, 1.03515625]],
    'mom|[1, 2, 3]|float16|True': [[2, 1, 1, 1], [0.04132080078125, -0.2425537109375], [0.8291015625, 1.03515625]],
    'momg|0': [[0.5332136589703625, 0.5285154630561658], [2.4999999999999996, 0.029595566774735904,
        2.4999999999999996], None, [0.004655209863208774, 0.005749962413982955]],
    'momg|1': [[0.07858410403916324, 0.077907382426834], [7.216449660063518e-16, -0.18552304681187906,
        1.1762483282120821], [0.027655059519140573, -0.053058281642898525, 3.1964768602500886],
        [0.008394298119020366, 0.031792483211969175]],
    'wm|[0]|False|0': [[3, 5, 4], [5.789384267060086, 0.46687453324477196, 43.08073660847731], [17.29754868336022,
        -2.3174059617958367, 17.29754868336022]],
    'wm|[0]|False|1': [[3, 5, 4], [-6.482961034402251, -3.3010124464120434, 34.09573579765856], [32.3631217382499,
        -1.4131865753859023, 32.3631217382499]],
    'wm|[0]|False|2': [[3, 5, 4], [-4.323312512598932, 1.8271620163716311, 33.57193745765835], [24.169457910692472,
        -0.1533617229594535, 24.169457910692472]],
    'wm|[0]|False|3': [[3, 5, 4], [1.7301649115979671, 1.3096778070920745, 36.613790828734636], [29.364015465012926,
        -1.9222722243422607, 29.364015465012926]],
    'wm|[0]|False|4': [[3, 5, 4], [-8.733919136226177, 1.7289360634576565, 41.0371075225994], [26.75593607572955,
        1.8338769688417713, 26.75593607572955]],
    'wm|[0]|True|0': [[1, 3, 5, 4], [5.789384267060086, 0.46687453324477196, 43.08073660847731], [17.29754868336022,
        -2.3174059617958367, 17.29754868336022]],
    'wm|[0]|True|1': [[1, 3, 5, 4], [-6.482961034402251, -3.3010124464120434, 34.09573579765856], [32.3631217382499,
        -1.4131865753859023, 32.3631217382499]],
    'wm|[0]|True|2': [[1, 3, 5, 4], [-4.323312512598932, 1.8271620163716311, 33.57193745765835], [24.169457910692472,
        -0.1533617229594535, 24.169457910692472]],
    'wm|[0]|True|3': [[1, 3, 5, 4], [1.7301649115979671, 1.3096778070920745, 36.613790828734636],
        [29.364015465012926, -1.9222722243422607, 29.364015465012926]],
    'wm|[0]|True|4': [[1, 3, 5, 4], [-8.733919136226177, 1.7289360634576565, 41.0371075225994], [26.75593607572955,
        1.8338769688417713, 26.75593607572955]],
    'wm|[0, 1, 2]|False|0': [[4], [0.2723626494407654, -0.002380646299570799, 0.4350343346595764,
        -0.23970021307468414], [1.0869193077087402, 1.4586564302444458, 1.0231001377105713, 0.8077099919319153]],
    'wm|[0, 1, 2]|False|1': [[4], [-0.319713830947876, 0.15914319455623627, -0.3013315498828888,
        -0.03869973123073578], [0.8881363272666931, 1.366478443145752, 0.5952853560447693, 1.233985424041748]],
    'wm|[0, 1, 2]|False|2': [[4], [-0.15121273696422577, 0.11517579108476639, -0.053873661905527115,
        -0.19831018149852753], [0.9184073209762573, 0.8832688331604004, 1.0484203100204468, 0.5311266183853149]],
    'wm|[0, 1, 2]|False|3': [[4], [0.23825344443321228, -0.1042182594537735, 0.1854758858680725,
        -0.21172331273555756], [1.4519948959350586, 0.8061992526054382, 0.6952173709869385, 0.7911999821662903]],
    'wm|[0, 1, 2]|False|4': [[4], [-0.31285956501960754, -0.055854447185993195, -0.41502705216407776,
        0.20147979259490967], [1.1090283393859863, 0.9861199855804443, 0.9415594935417175, 1.3666629791259766]],
    'wm|[0, 1, 2]|True|0': [[1, 1, 1, 4], [0.2723626494407654, -0.002380646299570799, 0.4350343346595764,
        -0.23970021307468414], [1.0869193077087402, 1.4586564302444458, 1.0231001377105713, 0.8077099919319153]],
    'wm|[0, 1, 2]|True|1': [[1, 1, 1, 4], [-0.319713830947876, 0.15914319455623627, -0.3013315498828888,
        -0.03869973123073578], [0.8881363272666931, 1.366478443145752, 0.5952853560447693, 1.233985424041748]],
    'wm|[0, 1, 2]|True|2': [[1, 1, 1, 4], [-0.15121273696422577, 0.11517579108476639, -0.053873661905527115,
        -0.19831018149852753], [0.9184073209762573, 0.8832688331604004, 1.0484203100204468, 0.5311266183853149]],
    'wm|[0, 1, 2]|True|3': [[1, 1, 1, 4], [0.23825344443321228, -0.1042182594537735, 0.1854758858680725,
        -0.21172331273555756], [1.4519948959350586, 0.8061992526054382, 0.6952173709869385, 0.7911999821662903]],
    'wm|[0, 1, 2]|True|4': [[1, 1, 1, 4], [-0.31285956501960754, -0.055854447185993195, -0.41502705216407776,
        0.20147979259490967], [1.1090283393859863, 0.9861199855804443, 0.9415594935417175, 1.3666629791259766]],
    'wm|[1, 2, 3]|False|0': [[2], [0.009900745004415512, 0.2313990592956543], [1.2315177917480469,
        1.0305923223495483]],
    'wm|[1, 2, 3]|False|1': [[2], [-0.14645099639892578, -0.10384997725486755], [0.9855843782424927,
        1.134047031402588]],
    'wm|[1, 2, 3]|False|2': [[2], [-0.3656630516052246, 0.1595303863286972], [0.7348862886428833,
        1.0520132780075073]],
    'wm|[1, 2, 3]|False|3': [[2], [-0.027802513912320137, 0.08780527859926224], [1.1222422122955322,
        0.8827994465827942]],
    'wm|[1, 2, 3]|False|4': [[2], [-0.01457611471414566, -0.10296200215816498], [1.2254027128219604,
        1.0213176012039185]],
    'wm|[1, 2, 3]|True|0': [[2, 1, 1, 1], [0.009900745004415512, 0.2313990592956543], [1.2315177917480469,
        1.0305923223495483]],
    'wm|[1, 2, 3]|True|1': [[2, 1, 1, 1], [-0.14645099639892578, -0.10384997725486755], [0.9855843782424927,
        1.134047031402588]],
    'wm|[1, 2, 3]|True|2': [[2, 1, 1, 1], [-0.3656630516052246, 0.1595303863286972], [0.7348862886428833,
        1.0520132780075073]],
    'wm|[1, 2, 3]|True|3': [[2, 1, 1, 1], [-0.027802513912320137, 0.08780527859926224], [1.1222422122955322,
        0.8827994465827942]],
    'wm|[1, 2, 3]|True|4': [[2, 1, 1, 1], [-0.01457611471414566, -0.10296200215816498], [1.2254027128219604,
        1.0213176012039185]],
    'wmg|0': [[0.5332136589703625, 0.5285154630561658], [2.4999999999999996, 0.029595566774735904,
        2.4999999999999996], 2.220446049250313e-16],
    'wmg|1': [[0.07858410403916324, 0.077907382426834], [-4.163336342344337e-17, -0.185523046811879,
        1.1762483282120824], -2.7755575615628914e-17],
    'u64sq': [0, 1, 4, 9, 16, 25],
    'u32div': [[1.0, 1.5, 1.6666666666666667, 1.75, 1.8, 1.8333333333333333], [1, 1, 1, 1, 1, 1], [1.0, 1.5,
        1.6666666666666667, 1.75, 1.8, 1.8333333333333333], [1, 1, 1, 1, 1, 1]],
    'ov|float64|add': [13.0, 13.0, 'float64'],
    'ov|float64|subtract': [7.0, 7.0, 'float64'],
    'ov|float64|multiply': [30.0, 30.0, 'float64'],
    'ov|float64|power': [1000.0, 1000.0, 'float64'],
    'ov|float64|divide': [3.3333333333333335, 3.3333333333333335, 'float64'],
    'ov|float64|floor_divide': [3.0, 3.0, 'float64'],
    'ov|float64|mod': [1.0, 1.0, 'float64'],
    'ov|float64|less': [False, False, 'bool'],
    'ov|float64|less_equal': [False, False, 'bool'],
    'ov|float64|greater': [True, True, 'bool'],
    'ov|float64|greater_equal': [True, True, 'bool'],
    'ov|int64|add': [13, 13, 'int64'],
    'ov|int64|subtract': [7, 7, 'int64'],
    'ov|int64|multiply': [30, 30, 'int64'],
    'ov|int64|power': [1000, 1000, 'int64'],
    'ov|int64|divide': [3.3333333333333335, 3.3333333333333335, 'float64'],
    'ov|int64|floor_divide': [3, 3, 'int64'],
    'ov|int64|mod': [1, 1, 'int64'],
    'ov|int64|less': [False, False, 'bool'],
    'ov|int64|less_equal': [False, False, 'bool'],
    'ov|int64|greater': [True, True, 'bool'],
    'ov|int64|greater_equal': [True, True, 'bool'],
    'ov|uint64|add': [13, 13, 'uint64'],
    'ov|uint64|subtract': [7, 7, 'uint64'],
    'ov|uint64|multiply': [30, 30, 'uint64'],
    'ov|uint64|divide': [3.3333333333333335, 3.3333333333333335, 'float64'],
    'ov|uint64|floor_divide': [3, 3, 'uint64'],
    'ov|uint64|mod': [1, 1, 'uint64'],
    'ov|uint64|less': [False, False, 'bool'],
    'ov|uint64|less_equal': [False, False, 'bool'],
    'ov|uint64|greater': [True, True, 'bool'],
    'ov|uint64|greater_equal': [True, True, 'bool'],
    'ov|complex128|add': [[13.0, 0.0], [13.0, 0.0], 'complex128'],
    'ov|complex128|subtract': [[7.0, 0.0], [7.0, 0.0], 'complex128'],
    'ov|complex128|multiply': [[30.0, 0.0], [30.0, 0.0], 'complex128'],
    'ov|complex128|power': [[1000.0000000000007, 0.0], [1000.0000000000007, 0.0], 'complex128'],
    'ov|complex128|divide': [[3.3333333333333335, 0.0], [3.3333333333333335, 0.0], 'complex128'],
    'round64': [[-1.0, -1.0, -1.0, 0.0, 0.0, 0.0], [-0.0, -0.0, -0.0, 0.0, 1.0, 1.0], [-1.0, -0.0, -0.0, 0.0, 0.0,
        0.0], [0.0, 1.0], [-2.0, -2.0, -0.0, 0.0, 2.0, 2.0, 2.0]],
    'mmg|maximum': [[7.630828937395718, 78.99187922401146, 43.84092314408935, 72.34651778309413, 97.79895119966027,
        53.849587041043364], [0.6802696888767692, 0.0, 0.9632185264983446, 1.2249339291921477, 0.9202036045877274,
        0.9854270981677824], [0.0, 0.5194752414876246, 0.0, 0.0, 0.0, 0.0]],
    'mmg|minimum': [[6.630828937395718, 77.99187922401146, 42.84092314408935, 71.34651778309413, 96.79895119966027,
        52.849587041043364], [0.0, 0.5194752414876246, 0.0, 0.0, 0.0, 0.0], [0.6802696888767692, 0.0,
        0.9632185264983446, 1.2249339291921477, 0.9202036045877274, 0.9854270981677824]],
    'mmnan': [[1.0, float('nan'), float('nan'), float('nan')], [1.0, float('nan'), float('nan'), float('nan')]],
    'bsel_err': 'InvalidArgumentError',
    'pv|int32|0': [0.0, 0.0, 0.0, 0.0],
    'pv|int32|1': [0.0, 0.0, 0.0, 0.0],
    'pv|int32|2': [0.0, 0.0, 0.0, 0.0],
    'pv|int32|3': [0.0, 0.0, 0.0, 0.0],
    'pv|int32|4': [0.0, 0.0, 0.0, 0.0],
    'pv|float32|0': [0.2248426079750061, 0.13876914978027344, 0.6149324774742126, 0.49192893505096436],
    'pv|float32|1': [0.5189825892448425, 0.13717132806777954, 1.132379412651062, 0.7690204977989197],
    'pv|float32|2': [0.5707342028617859, 1.0243799686431885, 1.5161995887756348, 1.4588748216629028],
    'pv|float32|3': [0.8742343187332153, 1.5332660675048828, 1.1590033769607544, 1.9953765869140625],
    'pv|float32|4': [1.3738905191421509, 1.330730676651001, 2.116179943084717, 1.1432740688323975],
    'pv|float64|0': [0.15642290217843435, 0.47689815017362713, 0.7347218410133316, 0.35630947732495777],
    'pv|float64|1': [0.8076266458063595, 0.8896476792760878, 0.8454663578407584, 0.6810160549086918],
    'pv|float64|2': [1.5013632268004957, 0.7955957197737826, 1.4750467777411043, 0.2826639175035681],
    'pv|float64|3': [0.7735147427430302, 2.1929303772824924, 0.10968273122163591, 0.08497124621739915],
    'pv|float64|4': [0.4243780920610729, 0.565479715263314, 0.5952387294868728, 0.970117964344279],
    'pv|complex64|0': [[0.844410240650177, 0.0], [0.33329686522483826, 0.0], [0.9213069677352905, 0.0],
        [0.13138669729232788, 0.0]],
    'pv|complex64|1': [[0.8023658394813538, 0.0], [0.14434848725795746, 0.0], [0.20443487167358398, 0.0],
        [1.1696542501449585, 0.0]],
    'pv|complex64|2': [[0.7525434494018555, 0.0], [0.25289392471313477, 0.0], [0.3181627690792084, 0.0],
        [1.088205337524414, 0.0]],
    'pv|complex64|3': [[1.08857262134552, 0.0], [2.1672728061676025, 0.0], [0.688869833946228, 0.0],
        [0.9881485104560852, 0.0]],
    'pv|complex64|4': [[1.1539658308029175, 0.0], [1.5618736743927002, 0.0], [2.407353401184082, 0.0],
        [2.1593799591064453, 0.0]],
    'pv|complex128|0': [[0.2978368339072497, 0.0], [0.7173350651198127, 0.0], [0.615056797777001, 0.0],
        [0.8413230223487724, 0.0]],
    'pv|complex128|1': [[0.3302268495126827, 0.0], [0.4270191674948189, 0.0], [0.5005804255373414, 0.0],
        [0.2481602815572288, 0.0]],
    'pv|complex128|2': [[0.9291644579735252, 0.0], [1.0042023570370695, 0.0], [1.8939423477885646, 0.0],
        [0.3222906529435904, 0.0]],
    'pv|complex128|3': [[1.2391880865231464, 0.0], [0.7471944089536213, 0.0], [1.4497859853347743, 0.0],
        [0.6813949089332059, 0.0]],
    'pv|complex128|4': [[2.7100810325079623, 0.0], [1.5444544354604697, 0.0], [2.117974685782942, 0.0],
        [0.5896676710458044, 0.0]],
    'pvb|0|0': [0.633797287940979],
    'pvb|0|1': [1.448560357093811, 1.0667229890823364],
    'pvb|0|2': [1.2010444402694702, 0.7285304665565491],
    'pvb|0|3': [0.795610785484314, 1.0140087604522705, 0.63775235414505, 0.7340551614761353],
    'pvb|1|0': [0.8087514638900757, 0.8396986722946167],
    'pvb|1|1': [0.4802335500717163, 0.8953728079795837],
    'pvb|1|2': [0.8638191223144531, 0.8669242858886719, 2.952000617980957, 2.880976676940918],
    'pvb|1|3': [0.6653483510017395, 0.3256952166557312, 1.6210724115371704, 1.3748044967651367],
    'pvb|2|0': [0.8584305047988892, 0.7074494361877441],
    'pvb|2|1': [0.7658100128173828, 0.5425201654434204, 1.3173209428787231, 1.0855321884155273],
    'pvb|2|2': [0.6335206627845764, 0.9765888452529907],
    'pvb|2|3': [1.336188554763794, 0.3301754891872406, 0.6731230616569519, 0.24194952845573425],
    'pvb|3|0': [0.9963628649711609, 1.3981456756591797, 2.287477970123291, 0.826930820941925],
    'pvb|3|1': [1.982595443725586, 0.7567206621170044, 2.1536359786987305, 1.2093268632888794],
    'pvb|3|2': [0.4621773064136505, 1.1538138389587402, 1.7365100383758545, 0.6096649765968323],
    'pvb|3|3': [0.1954224407672882, 1.1668410301208496, 1.4818363189697266, 1.1359050273895264],
    'pvempty': [0.0, 0.0, 0.0, 0.0],
    'pvgrad': [[0.7203985452651978, 1.5639634132385254, 0.8048524856567383, 0.6166569590568542], [0.8437496423721313,
        1.3326302766799927, 0.3266124129295349, 1.4659643173217773], [0.0024924143217504025, 0.21054627001285553,
        0.017585378140211105, 0.18625178933143616], [0.01616741344332695, 0.28450286388397217, 0.0667845606803894,
        0.348956435918808], [0.10487230867147446, 0.3844375014305115, 0.2536298930644989, 0.6537955403327942],
        [0.680269718170166, 0.5194752216339111, 0.9632185101509094, 1.2249339818954468], [1.311138391494751,
        2.26175856590271, 1.9174667596817017, 1.6159285306930542]],
    'angle128': [0.0, 0.06283185307179585, 0.12566370614359174, 0.18849555921538755, 0.25132741228718347,
        0.3141592653589793, 0.37699111843077515, 0.439822971502571, 0.5026548245743669, 0.5654866776461628, 0.0,
        1.5707963267948966, 3.141592653589793, -1.5707963267948966],
    'angle_real64': [3.141592653589793, 3.141592653589793, 0.0, 0.0],
    'mean_int32': {'None': [3], '()': [0, 1, 2, 3, 4, 5, 6, 7], '(0,)': [2, 3, 4, 5], '(1,)': [1, 2, 5, 6],
        '(2,)': [0, 2, 4, 6], '(0, 1)': [3, 4], '(0, 2)': [2, 4], '(1, 2)': [1, 5], '(0, 1, 2)': [3]},
    'mean_overflow|uint8': 126,
    'mean_overflow|int8': 62,
    'mean_overflow|uint16': 32766,
    'mean_overflow|int16': 16382,
    'norm_int32': {'None': [11], '()': [0, 1, 2, 3, 4, 5, 6, 7], '(0,)': [4, 5, 6, 7], '(1,)': [2, 3, 7, 8],
        '(2,)': [1, 3, 6, 9], '(0, 1)': [7, 9], '(0, 2)': [6, 9], '(1, 2)': [3, 11], '(0, 1, 2)': [11]},
    'norm_singleton': [[1.0], [1.0]],
    'prod_int64': {'None': [4790016000], '(0,)': [9, 20, 33, 4, 10, 18, 28, 40], '(1, 3)': [60, 672, 540, 220],
        '(0, 1, 2, 3)': [4790016000]},
    'highrank': [[[3, 3, 3, 1, 3, 2, 1, 2, 2, 2], [0, 4, 8], [664656.0, 260.62101773817267, 664656.0]], [[2, 3, 2, 2,
        2, 3, 3, 1, 3], [4, 6, 7], [668538.0, -4815.504341306321, 668538.0]], [[2, 1, 1, 3, 1, 3, 3], [4], [31075.0,
        -1200.0354054979769, 31075.0]], [[1, 3, 1, 2, 1, 3, 1], [0, 2, 5, 6], [10189.0, -675.0561315968353,
        10189.0]], [[2, 3, 2, 1, 3, 1, 1, 2, 3], [0, 1, 4, 5, 8], [110852.0, 38817.356276669285, 110852.0]], [[2, 2,
        2, 1, 3, 1, 2], [0, 1, 4, 5, 6], [25094.0, 22398.621150654806, 25094.0]], [[3, 2, 2, 2, 2, 1, 1, 2, 1], [1,
        2, 4, 5], [48279.0, 7967.175946809614, 48279.0]], [[1, 2, 3, 2], [0, 1], [6707.0, -585.6770768737834,
        6707.0]]],
    'rg|sum|float64|None': [[1128.0], [32.65294506608492, 1.2978971093584608, 32.65294506608492],
        [0.11693180738393472]],
    'rg|sum|float64|()': [[1128.0, 64.22996041917595, 1128.0], [46.17492827650932, 1.70150241129532,
        46.17492827650932], [0.11693180738393494, 1.8952638141034743, 30.924131420644287]],
    'rg|sum|float64|(0,)': [[1128.0, -65.16107763422002, 1128.0], [45.65128115402495, 2.6639503750465163,
        45.65128115402495], [0.11693180738393583, 3.529071783868977, 26.584834061443374]],
    'rg|sum|float64|(1,)': [[1128.0, -106.09395432950657, 1128.0], [47.92038552992234, 0.6605084082320762,
        47.92038552992234], [0.11693180738393494, -3.3038159997799545, 6.567260976092509]],
    'rg|sum|float64|(2,)': [[12.0, 16.0, 44.0, 48.0, 76.0, 80.0, 108.0, 112.0, 140.0, 144.0, 172.0, 176.0],
        [45.69993117812325, 2.1052653656643985, 45.69993117812325], [0.8903798292396117, 0.5878742490742253,
        -0.0039803859447402334, -0.7589456953052512, -0.8892215366605496, -0.36702100042259367, 0.2627439132396548,
        0.8657488312451683, 0.8127630401417952, 0.11508803199071443, -0.4992580128777003, -0.8992394563363998]],
    'rg|sum|float64|(1, 2)': [[132.0, 144.0, 420.0, 432.0], [40.65476863265864, 2.4322513025163555,
        40.65476863265864], [-0.00282209336567818, -0.5380924466536195, 0.5762489405037499, 0.08159740689948314]],
    'rg|sum|float64|(0, 1, 2, 3)': [[1128.0], [32.65294506608492, 1.2978971093584608, 32.65294506608492],
        [0.11693180738393472]],
    'rg|mean|float64|None': [[23.5], [0.6802696888767692, 0.027039523111634614, 0.6802696888767692],
        [0.0024360793204986405]],
    'rg|mean|float64|()': [[1128.0, 64.22996041917595, 1128.0], [46.17492827650932, 1.70150241129532,
        46.17492827650932], [0.11693180738393494, 1.8952638141034743, 30.924131420644287]],
    'rg|mean|float64|(0,)': [[564.0, -32.58053881711001, 564.0], [22.825640577012475, 1.3319751875232582,
        22.825640577012475], [0.05846590369196791, 1.7645358919344885, 13.292417030721687]],
    'rg|mean|float64|(1,)': [[376.0, -35.36465144316885, 376.0], [15.973461843307447, 0.22016946941069238,
        15.973461843307447], [0.038977269127978165, -1.1012719999266514, 2.1890869920308362]],
    'rg|mean|float64|(2,)': [[3.0, 4.0, 11.0, 12.0, 19.0, 20.0, 27.0, 28.0, 35.0, 36.0, 43.0, 44.0],
        [11.424982794530813, 0.5263163414160996, 11.424982794530813], [0.22259495730990292, 0.1469685622685563,
        -0.0009950964861850584, -0.1897364238263128, -0.2223053841651374, -0.09175525010564842, 0.0656859783099137,
        0.21643720781129208, 0.2031907600354488, 0.02877200799767861, -0.12481450321942507, -0.22480986408409995]],
    'rg|mean|float64|(1, 2)': [[11.0, 12.0, 35.0, 36.0], [3.387897386054886, 0.2026876085430296, 3.387897386054886],
        [-0.00023517444713985758, -0.044841037221134986, 0.048020745041979146, 0.006799783908290252]],
    'rg|mean|float64|(0, 1, 2, 3)': [[23.5], [0.6802696888767692, 0.027039523111634614, 0.6802696888767692],
        [0.0024360793204986405]],
    'rg|norm|float64|None': [[194.99743588057768], [4.102603454791185, 0.2307291482941996, 4.102603454791185],
        [-0.10284381081349271]],
    'rg|norm|float64|(0,)': [[932.258569097927, -45.233916333230866, 932.258569097927], [28.455813417975087,
        2.885761293081515, 28.455813417975087], [0.2118800385278865, 2.131419800281576, 17.090975472341988]],
    'rg|norm|float64|(1,)': [[709.8246283598371, -63.04141100416649, 709.8246283598371], [26.01835996541646,
        0.7228977172977982, 26.01835996541646], [-1.0850751365956328, -3.5299860912232743, 6.3867749333982395]],
    'rg|norm|float64|(2,)': [[9.16515138991168, 10.954451150103322, 24.413111231467404, 26.38181191654584,
        40.24922359499622, 42.23742416388575, 56.178287620752556, 58.172158288995945, 72.13875518748573,
        74.13501197140255, 88.11356308764276, 90.11104260855048], [22.47171468725668, -0.09807255558352224,
        22.47171468725668], [0.3496432580612239, 0.44309164433258813, 0.10166146334197584, -0.32253076230492006,
        -0.45127751035956726, -0.23715660063133157, 0.08789021379668999, 0.41981278916373876, 0.42061478330233054,
        0.09128106004828987, -0.22542776499598827, -0.44956260908780354]],
    'rg|norm|float64|(1, 2)': [[47.958315233127195, 50.99019513592785, 126.98031343479981, 130.38404810405297],
        [11.080136970074363, 0.48337664095382127, 11.080136970074363], [-0.2601668418102053, -0.26813005977429033,
        0.12141177306071023, -0.07149660603314441]],
    'rg|norm|float64|(0, 1, 2, 3)': [[194.99743588057768], [4.102603454791185, 0.2307291482941996,
        4.102603454791185], [-0.10284381081349271]],
    'rg|sum|complex128|None': [[1128.0, 1128.0, 1128.0, -2256.0, -2256.0, 2256.0], [32.65294506608492,
        1.2978971093584608, 32.65294506608492, 32.65294506608492, 1.2978971093584608, 32.65294506608492],
        [0.11693180738393516, 0.11693180738393516, 0.11693180738393516, 0.0, 0.0, 0.0]],
    'rg|sum|complex128|()': [[1128.0, 64.22996041917595, 1128.0, -2256.0, -128.4599208383519, 2256.0],
        [46.17492827650932, 1.70150241129532, 46.17492827650932, 46.17492827650932, 1.70150241129532,
        46.17492827650932], [0.11693180738393494, 1.8952638141034743, 30.924131420644287, 0.0, 0.0, 0.0]],
    'rg|sum|complex128|(0,)': [[1128.0, -65.16107763422002, 1128.0, -2256.0, 130.32215526844004, 2256.0],
        [45.65128115402495, 2.6639503750465163, 45.65128115402495, 45.65128115402495, 2.6639503750465163,
        45.65128115402495], [0.11693180738393583, 3.529071783868977, 26.584834061443374, 0.0, 0.0, 0.0]],
    'rg|sum|complex128|(1,)': [[1128.0, -106.09395432950657, 1128.0, -2256.0, 212.18790865901315, 2256.0],
        [47.92038552992234, 0.6605084082320762, 47.92038552992234, 47.92038552992234, 0.6605084082320762,
        47.92038552992234], [0.11693180738393494, -3.3038159997799545, 6.567260976092509, 0.0, 0.0, 0.0]],
    'rg|sum|complex128|(2,)': [[1128.0, 238.12305415617973, 1128.0, -2256.0, -476.24610831235947, 2256.0],
        [45.69993117812325, 2.1052653656643985, 45.69993117812325, 45.69993117812325, 2.1052653656643985,
        45.69993117812325], [0.11693180738393505, 3.167800060057104, 6.952263982478404, 0.0, 0.0, 0.0]],
    'rg|sum|complex128|(1, 2)': [[1128.0, 95.4299577999293, 1128.0, -2256.0, -190.8599155998586, 2256.0],
        [40.65476863265864, 2.4322513025163555, 40.65476863265864, 40.65476863265864, 2.4322513025163555,
        40.65476863265864], [0.11693180738393527, -0.35762864422743473, 1.1987608874225308, 0.0, 0.0, 0.0]],
    'rg|sum|complex128|(0, 1, 2, 3)': [[1128.0, 1128.0, 1128.0, -2256.0, -2256.0, 2256.0], [32.65294506608492,
        1.2978971093584608, 32.65294506608492, 32.65294506608492, 1.2978971093584608, 32.65294506608492],
        [0.11693180738393516, 0.11693180738393516, 0.11693180738393516, 0.0, 0.0, 0.0]],
    'rg|min|float64|(1, 2)': [[1.0, 2.0, 25.0, 26.0], [0.6802696888767692, 0.5194752414876246, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.9632185264983446,
        1.2249339291921477, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0]],
    'rg|min|float64|(1,)': [[264.0, -28.765491887603943, 264.0], [0.6802696888767692, 0.5194752414876246,
        0.9632185264983446, 1.2249339291921477, 0.9202036045877274, 0.9854270981677824, 0.5127808145906086,
        0.9873716073198716, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        1.4418066523433661, 1.3507950893767786, 1.2299644702208186, 0.6087360718689749, 1.3939041702850812,
        1.3571542470728297, 0.6650866175952271, 1.132334013823496, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
    'rg|min|float64|(2,)': [[1.0, 2.0, 9.0, 10.0, 17.0, 18.0, 25.0, 26.0, 33.0, 34.0, 41.0, 42.0],
        [0.6802696888767692, 0.5194752414876246, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.9632185264983446,
        1.2249339291921477, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.9202036045877274, 0.9854270981677824, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.5127808145906086, 0.9873716073198716, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.4418066523433661,
        1.3507950893767786, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.2299644702208186, 0.6087360718689749, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0]],
    'rg|min|float64|None': [[1.0], [0.6802696888767692, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
    'rg|max|float64|(1, 2)': [[-27.0, -26.0, -3.0, -2.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.6802696888767692, 0.5194752414876246, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.9632185264983446, 1.2249339291921477]],
    'rg|max|float64|(1,)': [[-280.0, 3.2875688108541823, 280.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.6802696888767692, 0.5194752414876246, 0.9632185264983446, 1.2249339291921477,
        0.9202036045877274, 0.9854270981677824, 0.5127808145906086, 0.9873716073198716, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.4418066523433661, 1.3507950893767786, 1.2299644702208186,
        0.6087360718689749, 1.3939041702850812, 1.3571542470728297, 0.6650866175952271, 1.132334013823496]],
    'rg|max|float64|(2,)': [[-43.0, -42.0, -35.0, -34.0, -27.0, -26.0, -19.0, -18.0, -11.0, -10.0, -3.0, -2.0], [0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.6802696888767692, 0.5194752414876246, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.9632185264983446, 1.2249339291921477, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.9202036045877274, 0.9854270981677824,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5127808145906086, 0.9873716073198716, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        1.4418066523433661, 1.3507950893767786, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.2299644702208186,
        0.6087360718689749]],
    'rg|max|float64|None': [[-2.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.6802696888767692]],
}
