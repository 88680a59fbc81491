"""TensorFlow math, matmul, einsum and random tests not ported elsewhere in tests/, ported to tapejax.

Sources (the TF test method is named at each test):
  tensorflow/python/kernel_tests/math_ops/argmax_op_test.py: ArgMaxTest.testTypes (_testBasic, _testTieBreaking,
    _testDim), testFloatInt32Output, testEmpty, testDefaultAxis, testOutputEmpty;
  tensorflow/python/ops/math_ops_test.py (the newest version the reference index holds): ReduceTest
    .testReduceExtendType / testReduceVarComplex / testReduceStdComplex, RoundTest.testRounding, MatMulTest
    .testMatMul2D / testBatchMatMul / testInt8MatMul2D / testMixPrecMatMul2D / testInt8BatchMatmul /
    testMixPrecBatchMatmul, ModTest.testFloat / testFixed, DivAndModTest.testFloorModInt / testFloorModFloat /
    testFloorModBfloat16 / testTruncateModInt / testTruncateModFloat / testFloorDivideInt (and the older
    testDivideInt) / testRealDiv / testDivideType / testComplexDiv / testFloorDivGrad / testConsistent /
    testWithPythonValue / testFloorDivModIntEdges / testTruncateDivModIntEdges (its truncatemod half),
    NextAfterTest.testBasic / testBroadcasting, BinaryOpsTest.testRHSDispatchingAndErrorRaising,
    SignTest.test_complex_sign_gradient, EqualityTest.testEqualityNone / testEqualityNoDowncast, RangeTest
    .testConvertToTensorRange / testInputsNearInt64Max, ArgMaxMinTest.testArgMax / testArgMin /
    testArgMaxReturnsFirstOccurence / testArgMinReturnsFirstOccurence;
  tensorflow/python/kernel_tests/math_ops/matmul_op_test.py: MatMulMixedType.testBatchMatMulV3OutputType /
    testBatchMatMulV3MixedPrec, MatMulTest and MatMulGradientTest for the dtypes test_tf_array_ops_port.py leaves
    out (int32, int64, float16, float64, complex128, bfloat16; complex128 gradients);
  tensorflow/python/kernel_tests/math_ops/batch_matmul_op_test.py: BatchMatmulOpTest.testBatchMatmulOp_* /
    testBatchMatmulBroadcasting_* and BatchMatmulGradientTest.testBatchMatmulGradient(WithBroadcasting)_* for
    float64, complex128 and bfloat16 (float32/complex64/int32/float16 are in test_tf_array_ops_port.py);
  tensorflow/python/ops/special_math_ops_test.py, EinsumTest: test_unary, test_unary_ellipsis,
    test_binary_simple, test_repeated_indices, test_binary_ellipsis, test_broadcasting, test_dtypes,
    test_multiple_inputs, test_numpy_input, test_long_cases, test_long_cases_with_repeated_labels,
    test_invalid_equation, test_invalid_keyword_arguments, test_empty; EinsumGradTest: test_unary,
    test_unary_ellipsis, test_binary_simple, test_empty, test_reduced_indices, test_repeated_indices,
    test_empty_with_repeated_indices, test_broadcasting, test_long_cases, test_long_cases_with_repeated_labels
    (the cases einsum_op_test.py's port in test_tf_array_ops_port.py does not already have);
  tensorflow/python/kernel_tests/random/random_gamma_test.py: testNpDtypes, testEmptySamplingNoError,
    testMomentsFloat32 / testMomentsFloat64, testNonZeroSmallShape / testNonZeroSmallishShape, testDistinct,
    testSeed, testNoCSE, testShape, testPositive, testSizeTooLarge;
  random_poisson_test.py: testMoments, testSeed, testNoCSE, testZeroShape, testShape, testDTypeCombinationsV2;
  multinomial_op_test.py (random_ops.multinomial is tf.random.categorical's kernel): testSmallEntropy,
    testOneOpMultipleStepsIndependent, testEagerOneOpMultipleStepsIndependent, testTwoOpsIndependent,
    testTwoOpsSameSeedDrawSameSequences, testLargeLogits, testSamplingCorrectness, testEmpty, testEmptyClasses,
    testNegativeMinLogits;
  stateless_random_ops_test.py: testDeterminismFloat / testDeterminismInt / testDeterminismMultinomial /
    testDeterminismGamma / testDeterminismPoisson (on TF-style seeds; test_tf_random_port.py has them on JAX keys),
    testExplicitAlgFloat / testExplicitAlgInt, testSplit / testFoldIn (the int64 seed dtype), testErrors.

Expected values are TF 2.21's, obtained by running the same program in TF here and hard-coded; TensorFlow is not
imported. Where TF's test compares TF with NumPy (argmax, einsum, the batch matmuls), TF 2.21 was run on these
exact inputs and agreed with NumPy (exactly, for the integer-valued matmul inputs), so NumPy's value is TF's.
Random numbers are JAX's, not TF's (TF's Philox is not reproduced): the random tests port shapes, dtypes, error
classes, determinism and statistics. TF's InvalidArgumentError is ValueError here. int64/float64/complex128 run
under ``jax.enable_x64(True)`` for that test only; elsewhere 64-bit dtypes come back as 32-bit ones (x64 off).

Sanctioned differences (tj.numpy follows jax.numpy/NumPy), listed rather than xfailed:
  * argmax/argmin return int32 with x64 off (TF int64), int64 under x64; TF's ``output_type`` has no counterpart
    (testFloatInt32Output's int32 is tapejax's default; ArgMaxMinTest.testArgMaxUint16 is left out);
  * matmul's ``output_type`` is ``preferred_element_type``; int8 x int8 without it is an int8 matmul (TF raises:
    MatMulTest.testUnsupportedtypeMatmul) and an int8 -> float32 output is allowed (TF: NotFoundError,
    testInvalidOutputTypeMatmul): both left out;
  * ``divide`` of int32 by a Python int is float32 even under x64 (jax.numpy's promotion; TF float64:
    DivAndModTest.testDivideType / testWithPythonValue assert tapejax's dtype); ``int32 Tensor + 1.0`` is float32
    (weak-type promotion; TF raises InvalidArgumentError: BinaryOpsTest.testErrorReceivedIfDtypeMismatchFromOp);
  * reduce_variance of an int list is a float (NumPy; TF TypeError), already noted in test_tf_reduction_port.py;
  * einsum accepts three equations TF and NumPy reject, because jax.numpy (opt_einsum) does: ``'a0->a'`` ('0' a
    label), ``'...ij,jk...->...ik...'`` and ``'...ij,...jk->ik'`` with a non-empty broadcast shape (the ellipsis
    dimensions summed); test_invalid_equation asserts ValueError for the other eleven.

Left out, by reason:
  * ops tapejax has no counterpart for: squared_difference (SquaredDifferenceTest.*), approximate_equal
    (ApproximateEqualTest.*), scalar_mul (ScalarMulTest.*),
    truncatediv (DivAndModTest.testTruncateDivideInt / testTruncateDivideFloat, the truncatediv halves of
    testConsistent and testTruncateDivModIntEdges), div_no_nan (DivNoNanTest.*), multiply_no_nan
    (MultiplyNoNanTest.testBasic), xlogy / xlog1py / xdivy (XlogyTest.*, Xlog1pyTest.*, XdivyTest.*),
    reciprocal_no_nan (ReciprocalNoNanTest.*), erfcinv (ErfcinvTest.testErfcinv), TF's raw
    gen_stateless_random_ops_v2 (StatelessOpsTest.testGetKeyCounterAlg), BatchMatMulV3's ``Tout`` beyond
    preferred_element_type;
  * TF-only arguments or types: matmul's a_is_sparse/b_is_sparse (no tj flag; transpose/adjoint are written as a
    swapaxes/conj here), ragged tensors (ReduceTest testReduceVar/testReduceStd ragged parts,
    LogSumExpTest.testRaggedTensor), IndexedSlices (ScalarMulTest.testAcceptsIndexedSlices,
    AddNTest.testIndexedSlices), TensorArray/variant full types (CastTest.testCastWithFullType), ArgMaxMinTest
    .testArgMaxUint16 (uint16 output_type);
  * TF1 graphs, placeholders, op names and internals: ReduceTest.testReduceInvalidAxis (graph-only shape check),
    DivAndModTest.testDivideName, MatMulInfixOperatorTest.testInfixMatmulIsTfMatmul (op type),
    ApproximateEqualTest.testApproximateEqualShapeXla, EinsumTest.test_placeholder (unknown static shapes; the
    einsum_op_test port has its shapes), EinsumTest.test_opt_einsum_cached (TF's opt_einsum cache), RandomGammaTest
    .testShape / RandomPoissonTest.testShape's partially known and unknown shapes (their fully known shapes are
    ported), StatelessOpsTest.testOldAndNewStatelessMatch* (TF's forward-compatibility horizon);
  * TF's exact random bits: StatelessOpsTest.testMatchFloat / testMatchInt / testMatchMultinomial / testMatchGamma /
    testMatchPoisson (stateless == stateful after Philox seed inversion);
  * GPU-specific: RandomGammaTest / RandomPoissonTest / RandomNormalTest / RandomUniformTest .testCPUGPUMatch,
    StatelessOpsTest.testStatelessGammaCpuGpuMatch;
  * size: TruncatedNormalTest.testLargeShape (a 2**33-element Variable);
  * benchmarks: BatchMatMulBenchmark, EinsumBenchmark, MultinomialBenchmark;
  * already ported elsewhere: the rest of argmax/matmul/batch_matmul/einsum (test_tf_array_ops_port.py), ReduceTest
    and LogSumExpTest (test_tf_reduction_port.py), random_ops_test.py and the key-based StatelessOpsTest tests
    (test_tf_random_port.py), math_grad_test NextAfterTest (test_tf_unported_opgrad_port.py), AddNTest and
    AccumulateNTest (test_tf_unported_tensordot_port.py).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy
R = tj.random
BF16 = jnp.bfloat16
pytestmark = pytest.mark.filterwarnings("ignore:Explicitly requested dtype")


def _np(t):
    return np.asarray(t.numpy() if hasattr(t, "numpy") else t)


# -- argmax_op_test.py / math_ops_test ArgMaxMinTest ----------------------------------------------------------

ARG_DTYPES = [np.float16, np.float32, np.int16, np.int32, np.bool_, BF16]


def test_argmax_types():
    """ArgMaxTest.testTypes: _testBasic (a shuffled arange(200)), _testTieBreaking (TF 2.21: argmax of zeros(200)
    is 0; of [[0,0,1,1],[1,1,0,0],[0,1,0,1]] along 1 is [2, 0, 1], argmin [0, 2, 0]: the first occurrence) and
    _testDim (shape (3, 2, 4, 5, 6, 3, 7), every axis in float32; int16 and bfloat16 on one axis, to keep it fast)."""
    r = np.random.RandomState(1)
    x200 = np.arange(200, dtype=np.float32)
    r.shuffle(x200)
    shape = (3, 2, 4, 5, 6, 3, 7)
    xd = np.arange(np.prod(shape), dtype=np.float32)
    r.shuffle(xd)
    xd = xd.reshape(shape)
    ties = np.array([[0, 0, 1, 1], [1, 1, 0, 0], [0, 1, 0, 1]])
    for dt in ARG_DTYPES:
        if dt not in (np.bool_, np.int16, BF16):  # (bool has no 200 distinct values; bf16/int16 keep arange(200))
            x = x200.astype(dt)
            assert int(tnp.argmax(x, 0)) == x.argmax() and int(tnp.argmin(x, 0)) == x.argmin()
        assert int(tnp.argmax(np.zeros(200, dt), 0)) == 0 and int(tnp.argmin(np.zeros(200, dt), 0)) == 0
        np.testing.assert_array_equal(_np(tnp.argmax(ties.astype(dt), 1)), [2, 0, 1])
        np.testing.assert_array_equal(_np(tnp.argmin(ties.astype(dt), 1)), [0, 2, 0])
        got = tnp.argmax(ties.astype(dt), 1)
        assert got.dtype == jnp.int32  # (TF: int64; x64 off)
        xdt = xd.astype(dt) if dt not in (np.bool_, np.int16, BF16) else (xd % 100).astype(dt)
        for axis in range(-7, 7) if dt == np.float32 else ((-3,) if dt in (np.int16, BF16) else ()):
            np.testing.assert_array_equal(_np(tnp.argmax(xdt, axis)), np.asarray(xdt).argmax(axis))
            np.testing.assert_array_equal(_np(tnp.argmin(xdt, axis)), np.asarray(xdt).argmin(axis))


def test_argmax_int64_output_under_x64():
    """ArgMaxTest._testArg's ``assertEqual(np.int64, tf_ans.dtype)``: int64 once JAX's x64 is on (also float64 and
    int64 inputs, testTypes' other dtypes)."""
    with jax.enable_x64(True):
        for dt in (np.float64, np.int64):
            x = np.array([[0, 0, 1, 1], [1, 1, 0, 0], [0, 1, 0, 1]], dt)
            got = tnp.argmax(x, 1)
            assert got.dtype == jnp.int64
            np.testing.assert_array_equal(_np(got), [2, 0, 1])
            np.testing.assert_array_equal(_np(tnp.argmin(x, 1)), [0, 2, 0])


def test_argmax_float_int32_output_empty_default_axis():
    """ArgMaxTest.testFloatInt32Output (TF 2.21 with output_type=int32: 144 and 20 for 100 * randn(200) of
    RandomState(0)), testEmpty (TF: InvalidArgumentError "Reduction axis 0 is empty in shape [0]"),
    testDefaultAxis (op([1]) is 0) and testOutputEmpty (zeros [1, 0, 2] along -1: shape (1, 0))."""
    x = np.asarray(100 * np.random.RandomState(0).randn(200), np.float32)
    amax, amin = tnp.argmax(x, axis=0), tnp.argmin(x, axis=0)
    assert amax.dtype == jnp.int32 and int(amax) == 144 and int(amin) == 20
    for op in (tnp.argmin, tnp.argmax):
        with pytest.raises(ValueError):
            op(tj.constant([]), 0)
        assert int(op(tj.constant([1]))) == 0
        assert op(tnp.zeros([1, 0, 2]), axis=-1).shape == (1, 0)


def test_argmax_argmin_math_ops():
    """math_ops_test ArgMaxMinTest.testArgMax / testArgMin (random (24, 8) tensors of each valid dtype, both axes,
    against NumPy) and testArgMaxReturnsFirstOccurence / testArgMinReturnsFirstOccurence (TF 2.21:
    [[10,11,15,15,10],[12,12,10,10,12]] gives argmax [2, 0], argmin [0, 2]; zeros(193681) gives 0)."""
    rng = np.random.default_rng(3)
    for dt in (BF16, np.float32, np.int32):  # (float16 is like float32 here; float64/int64 are x64 dtypes)
        if np.issubdtype(dt, np.integer):
            v = rng.integers(np.iinfo(dt).min, np.iinfo(dt).max, size=(24, 8), endpoint=True).astype(dt)
        else:
            v = rng.uniform(-1.0, 1.0, size=(24, 8)).astype(dt)
        for axis in (0, 1):
            np.testing.assert_array_equal(_np(tnp.argmax(v, axis=axis)), np.argmax(v, axis=axis))
            np.testing.assert_array_equal(_np(tnp.argmin(v, axis=axis)), np.argmin(v, axis=axis))
        values = np.array([[10, 11, 15, 15, 10], [12, 12, 10, 10, 12]]).astype(dt)
        np.testing.assert_array_equal(_np(tnp.argmax(values, axis=1)), [2, 0])
        np.testing.assert_array_equal(_np(tnp.argmin(values, axis=1)), [0, 2])
        assert int(tnp.argmax(tnp.zeros((193681,), dt))) == 0 and int(tnp.argmin(tnp.zeros((193681,), dt))) == 0


# -- math_ops_test: reductions, round, mod, division ----------------------------------------------------------

def test_reduce_extend_type():
    """ReduceTest.testReduceExtendType: reduce_sum of a bfloat16 copy of randn(1000, 1000) (RandomState(0)) is the
    float32 sum cast to bfloat16 (TF 2.21: both 1512.0); TF's assertAllClose tolerance for bfloat16 is 1e-2."""
    in_f32 = np.random.RandomState(0).randn(1000, 1000).astype(np.float32)
    out = tnp.sum(in_f32.astype(BF16))
    assert out.dtype == BF16
    np.testing.assert_allclose(float(out), 1512.0, rtol=1e-2, atol=1e-2)


def test_reduce_var_std_complex():
    """ReduceTest.testReduceVarComplex / testReduceStdComplex: variance and std of [-1j, 1j] are 1.0 of the real
    dtype (TF 2.21: float64 for a Python list and complex128, float32 for complex64)."""
    for y in ([0 - 1j, 0 + 1j], np.array([0 - 1j, 0 + 1j], "complex64")):
        for f in (tnp.var, tnp.std):
            got = f(y)
            assert got.dtype == jnp.float32 and float(got) == 1.0  # (a Python list: float32 with x64 off)
    with jax.enable_x64(True):
        for y in ([0 - 1j, 0 + 1j], np.array([0 - 1j, 0 + 1j], "complex128")):
            for f in (tnp.var, tnp.std):
                got = f(y)
                assert got.dtype == jnp.float64 and float(got) == 1.0


def test_rounding():
    """RoundTest.testRounding: round half to even (TF 2.21's values for arange(-5, 5, .25); int32 unchanged)."""
    want = [-5.0, -5.0, -4.0, -4.0, -4.0, -4.0, -4.0, -3.0, -3.0, -3.0, -2.0, -2.0, -2.0, -2.0, -2.0, -1.0, -1.0,
            -1.0, -0.0, -0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0, 4.0, 4.0, 4.0,
            4.0, 4.0, 5.0]
    x = np.arange(-5.0, 5.0, .25)
    np.testing.assert_array_equal(_np(tnp.round(x.astype(np.float32))), want)
    with jax.enable_x64(True):
        got = tnp.round(x)
        assert got.dtype == jnp.float64
        np.testing.assert_array_equal(_np(got), want)
    xi = x.astype(np.int32)
    got = tnp.round(xi)
    assert got.dtype == jnp.int32
    np.testing.assert_array_equal(_np(got), xi)


def test_mod():
    """ModTest.testFloat (TF 2.21: mod([0.5, 0.7, 0.3], 0.5) = [0, 0.19999999, 0.3], scalar and vector divisor)
    and testFixed (int32/int64: [5, 10, 23] mod 5 = [0, 0, 3], mod itself = 0)."""
    x = np.array([0.5, 0.7, 0.3], np.float32)
    for denom in (0.5, [0.5] * 3):
        np.testing.assert_allclose(_np(tnp.mod(x, denom)), [0.0, 0.19999998807907104, 0.30000001192092896],
                                   rtol=1e-6)
    with jax.enable_x64(True):
        for dt in (np.int32, np.int64):
            xi = np.array([5, 10, 23], dt)
            got = tnp.mod(xi, 5)
            assert got.dtype == dt
            np.testing.assert_array_equal(_np(got), [0, 0, 3])
            np.testing.assert_array_equal(_np(tnp.mod(xi, xi)), [0, 0, 0])


def _int_data():
    return np.arange(-10, 10, 1).reshape(20, 1), np.arange(-3, 4, 2).reshape(1, 4)


def _float_data():
    return np.arange(-10, 10, .25).reshape(80, 1), np.arange(-3, 0, .25).reshape(1, 12)


def test_floor_mod_and_floor_div():
    """DivAndModTest.testFloorModInt (int32, int64; also the ``%`` operator), testFloorModFloat (float16, float32,
    float64), testFloorModBfloat16, testFloorDivideInt / testDivideInt (also ``//``): TF 2.21 equals NumPy's
    ``%`` and ``//`` on these inputs, exactly."""
    nums, divs = _int_data()
    with jax.enable_x64(True):
        for dt in (np.int32, np.int64):
            x, y = nums.astype(dt), divs.astype(dt)
            got = tnp.mod(x, y)
            assert got.dtype == dt
            np.testing.assert_array_equal(_np(got), x % y)
            np.testing.assert_array_equal(_np(tj.constant(x) % tj.constant(y)), x % y)
        fn, fd = _float_data()
        for dt in (np.float16, np.float32, np.float64):
            x, y = fn.astype(dt), fd.astype(dt)
            np.testing.assert_array_equal(_np(tnp.mod(x, y)), x % y)
            np.testing.assert_array_equal(_np(tj.constant(x) % tj.constant(y)), x % y)
    fn, fd = _float_data()
    got = tnp.mod(fn.astype(BF16), fd.astype(BF16))
    assert got.dtype == BF16
    np.testing.assert_array_equal(np.asarray(_np(got), np.float64), fn % fd)
    n32, d32 = nums.astype(np.int32), divs.astype(np.int32)
    np.testing.assert_array_equal(_np(tnp.floor_divide(n32, d32)), nums // divs)
    np.testing.assert_array_equal(_np(tj.constant(n32) // tj.constant(d32)), nums // divs)


def test_truncate_mod_real_div_and_consistency():
    """DivAndModTest.testTruncateModInt / testTruncateModFloat (truncatemod is fmod: TF 2.21 equals np.fmod),
    testRealDiv (true division of floats), testComplexDiv (dividing a complex Tensor by a Python float runs: TF
    [1+3j] / 1 and / 2 = [1+3j], [0.5+1.5j]) and testConsistent's floor half
    (floor_div(x, y) * y + floormod(x, y) == x, also with the operators)."""
    nums, divs = _int_data()
    fn, fd = _float_data()
    n32, d32 = nums.astype(np.int32), divs.astype(np.int32)
    np.testing.assert_array_equal(_np(tnp.fmod(n32, d32)), np.fmod(nums, divs))
    np.testing.assert_array_equal(_np(tnp.fmod(fn.astype(np.float32), fd.astype(np.float32))),
                                  np.fmod(fn, fd).astype(np.float32))
    np.testing.assert_allclose(_np(tnp.true_divide(fn.astype(np.float32), fd.astype(np.float32))), fn / fd,
                               rtol=1e-6)
    c = tj.constant([1. + 3.j])
    np.testing.assert_array_equal(_np(tnp.divide(c, 1.)), [1 + 3j])
    np.testing.assert_array_equal(_np(tnp.divide(c, 2.)), [0.5 + 1.5j])
    expanded = np.broadcast_to(nums, (20, 4))
    np.testing.assert_array_equal(_np(tnp.floor_divide(n32, d32) * d32 + tnp.mod(n32, d32)), expanded)
    t_n, t_d = tj.constant(n32), tj.constant(d32)
    np.testing.assert_array_equal(_np(t_n // t_d * t_d + t_n % t_d), expanded)


def test_divide_type_and_python_values():
    """DivAndModTest.testDivideType and testWithPythonValue: int32 [2] / 1 is [2.0] and / 4 is [0.5]; divide(5, 2)
    and divide(5, Tensor(2.0)) are Tensors (2.5). TF 2.21 gives float64 for the int32 cases; jax.numpy's promotion
    gives float32 (also under x64): sanctioned, asserted as tapejax's."""
    a = tj.constant(np.array([2], np.int32))
    for b, want in ((tnp.divide(a, 1), 2.0), (tnp.divide(a, 4), 0.5), (a / 4, 0.5)):
        assert b.dtype == jnp.float32 and _np(b).tolist() == [want]
    for x in (tnp.divide(5, 2), tnp.divide(5, tj.constant(2.0))):
        assert isinstance(x, tj.Tensor) and float(x) == 2.5


def test_floor_div_grad():
    """DivAndModTest.testFloorDivGrad: d(a / b)/d[a, b] at (2, 4) is [0.25, -0.125]; floordiv's gradient is
    [None, None] (TF 2.21, GradientTape on Variables)."""
    a, b = tj.Variable(2.), tj.Variable(4.)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        q = tnp.divide(a, b)
        f = tnp.floor_divide(a, b)
        f2 = a // b
    assert [float(g) for g in tape.gradient(q, [a, b])] == [0.25, -0.125]
    assert tape.gradient(f, [a, b]) == [None, None]
    assert tape.gradient(f2, [a, b]) == [None, None]


INT_EDGES = {  # TF 2.21: floor_div, floormod, truncatemod of nums = [MIN, -1, 1, MAX] (column) by its row
    np.int32: ([[1, -2147483648, -2147483648, -2], [0, 1, -1, -1], [-1, -1, 1, 0], [-1, -2147483647, 2147483647, 1]],
               [[0, 0, 0, 2147483646], [-1, 0, 0, 2147483646], [-2147483647, 0, 0, 1], [-1, 0, 0, 0]],
               [[0, 0, 0, -1], [-1, 0, 0, -1], [1, 0, 0, 1], [2147483647, 0, 0, 0]]),
    np.int64: ([[1, -9223372036854775808, -9223372036854775808, -2], [0, 1, -1, -1], [-1, -1, 1, 0],
                [-1, -9223372036854775807, 9223372036854775807, 1]],
               [[0, 0, 0, 9223372036854775806], [-1, 0, 0, 9223372036854775806], [-9223372036854775807, 0, 0, 1],
                [-1, 0, 0, 0]],
               [[0, 0, 0, -1], [-1, 0, 0, -1], [1, 0, 0, 1], [9223372036854775807, 0, 0, 0]]),
}


@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=["int32", "int64"])
def test_floor_and_truncate_div_mod_int_edges(dtype):
    """DivAndModTest.testFloorDivModIntEdges and testTruncateDivModIntEdges (truncatemod = fmod): INT_MIN // -1
    overflows to INT_MIN and INT_MIN % -1 is 0, so floor_div(x, y) * y + floormod(x, y) == x everywhere."""
    with jax.enable_x64(True):
        x = np.array([np.iinfo(dtype).min, -1, 1, np.iinfo(dtype).max], dtype).reshape(4, 1)
        y = x.reshape(1, 4)
        want_div, want_mod, want_tmod = INT_EDGES[dtype]
        fdiv, fmod = tnp.floor_divide(x, y), tnp.mod(x, y)
        np.testing.assert_array_equal(_np(fdiv), want_div)
        np.testing.assert_array_equal(_np(fmod), want_mod)
        np.testing.assert_array_equal(_np(tnp.fmod(x, y)), want_tmod)
        np.testing.assert_array_equal(_np(tnp.add(tnp.multiply(fdiv, y), fmod)), np.broadcast_to(x, (4, 4)))


def test_nextafter_values():
    """math_ops_test NextAfterTest.testBasic / testBroadcasting (TF 2.21: nextafter(1, 2) - 1 is float32's eps
    1.1920929e-07 / float64's 2.220446049250313e-16, towards 0 is negative, NaN in either argument gives NaN,
    nextafter(1, 1) is 1; [1, 1] towards [2] broadcasts)."""
    for dt, eps in ((np.float32, 1.1920929e-07), (np.float64, 2.220446049250313e-16)):
        with jax.enable_x64(dt == np.float64):
            one, two, zero, nan = (tj.constant(np.array([v], dt)) for v in (1, 2, 0, np.nan))
            np.testing.assert_array_equal(_np(tnp.nextafter(one, two) - one), np.array([eps], dt))
            assert np.all(_np(tnp.nextafter(one, zero) - one) < 0)
            assert np.isnan(_np(tnp.nextafter(nan, one))).all() and np.isnan(_np(tnp.nextafter(one, nan))).all()
            np.testing.assert_array_equal(_np(tnp.nextafter(one, one)), [1.0])
            ones = tj.constant(np.array([1, 1], dt))
            np.testing.assert_array_equal(_np(tnp.nextafter(ones, two) - ones), np.array([eps, eps], dt))


class _RHSReturnsTrue:
    def __radd__(self, other):
        return True


class _RHSRaisesError:
    def __radd__(self, other):
        raise TypeError("RHS not implemented")


class _RHSReturnsNotImplemented:
    def __radd__(self, other):
        return NotImplemented


class _RHSNotImplemented:
    pass


def test_rhs_dispatching_errors():
    """BinaryOpsTest.testRHSDispatchingAndErrorRaising, the error cases: an RHS whose __radd__ raises or returns
    NotImplemented, or that has none, makes ``ones([1], int32) + rhs`` raise ValueError in TF 2.21 eager ("Attempt
    to convert a value ... with an unsupported type"); tapejax's ConversionError is a ValueError (and TypeError)."""
    for rhs in (_RHSRaisesError(), _RHSReturnsNotImplemented(), _RHSNotImplemented()):
        with pytest.raises(ValueError):
            tnp.ones([1], jnp.int32) + rhs


def test_rhs_dispatching_returns_rhs_result():
    """BinaryOpsTest.testRHSDispatchingAndErrorRaising, the first case: TF 2.21 gives True."""
    assert (tnp.ones([1], jnp.int32) + _RHSReturnsTrue()) is True


def test_complex_sign_gradient():
    """SignTest.test_complex_sign_gradient: TF 2.21's tape.gradient(sign(1+1j), x) is 0.35355338-0.35355338j."""
    x = tj.constant(1. + 1.j)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.sign(x)
    g = tape.gradient(y, x)
    np.testing.assert_allclose(_np(g), 0.35355338 - 0.35355338j, rtol=1e-6)


def test_equality_none_and_no_downcast():
    """EqualityTest.testEqualityNone (TF 2.21: ``x == None`` is False, ``x != None`` True, ``None == x`` False) and
    testEqualityNoDowncast for Python floats (TF 2.21 raises TypeError for constant(4) == 4.6, which the test
    accepts; otherwise 4 must not be equal to 4.6 or 4.4: no downcast of the float to int)."""
    x = tj.constant([1.0, 2.0, 0.0, 4.0])
    assert not bool(x == None)  # noqa: E711
    assert bool(x != None)  # noqa: E711
    assert not bool(None == x)  # noqa: E711
    for lit in (4.6, 4.4):
        for is_equals in (True, False):
            try:
                result = (tj.constant(4) == lit) if is_equals else (tj.constant(4) != lit)
            except TypeError:
                continue
            assert bool(result) == (not is_equals)


def test_range_conversion_and_int64_range():
    """RangeTest.testConvertToTensorRange (a Python range converts: shape (5,), values 0..4) and
    testInputsNearInt64Max (TF 2.21: range(0, 201 or 202, 2**63 - 201, int64) is [0], no overflow)."""
    t = tj.constant(range(5))
    assert t.shape == (5,) and t.dtype == jnp.int32
    np.testing.assert_array_equal(_np(t), [0, 1, 2, 3, 4])
    with jax.enable_x64(True):
        for stop in (201, 202):
            got = tnp.arange(0, stop, 2 ** 63 - 1 - 200, dtype=jnp.int64)
            np.testing.assert_array_equal(_np(got), [0])


# -- matmul: math_ops_test MatMulTest, matmul_op_test, batch_matmul_op_test ------------------------------------

MM2 = [[58, 64], [139, 154]]  # TF 2.21 for every SUPPORTED_DTYPE
MMB = [[[94, 100], [229, 244]], [[508, 532], [697, 730]]]
MMB_BF16 = [[[94, 100], [229, 244]], [[508, 532], [696, 728]]]  # bfloat16 rounds 697 and 730 (TF 2.21 as well)


def test_matmul_2d_and_batch_dtypes():
    """math_ops_test MatMulTest.testMatMul2D / testBatchMatMul for float16, float32, float64, int32, int64,
    bfloat16, complex64, complex128 (TF 2.21's values; the result keeps the input dtype)."""
    a, b = np.arange(1, 7).reshape(2, 3), np.arange(7, 13).reshape(3, 2)
    a3, b3 = np.arange(1, 13).reshape(2, 2, 3), np.arange(13, 25).reshape(2, 3, 2)
    with jax.enable_x64(True):
        for dt in (np.float16, np.float32, np.float64, np.int32, np.int64, BF16, np.complex64, np.complex128):
            c = tnp.matmul(a.astype(dt), b.astype(dt))
            assert c.dtype == dt
            np.testing.assert_array_equal(np.asarray(_np(c), np.complex128), MM2)
            c3 = tnp.matmul(a3.astype(dt), b3.astype(dt))
            assert c3.dtype == dt
            np.testing.assert_array_equal(np.asarray(_np(c3), np.complex128), MMB_BF16 if dt == BF16 else MMB)


def test_matmul_int8_and_mixed_precision_output_type():
    """MatMulTest.testInt8MatMul2D / testInt8BatchMatmul ((int8, int8), (int8, uint8), (uint8, int8) with
    output_type=int32) and testMixPrecMatMul2D / testMixPrecBatchMatmul (bfloat16 x int8/uint8 with
    output_type=bfloat16); matmul_op_test MatMulMixedType.testBatchMatMulV3OutputType (int8/uint8, adj_y,
    Tout=int32: [[5, 11], [11, 25]]) and testBatchMatMulV3MixedPrec (int8 x bfloat16 -> bfloat16). TF's
    output_type/Tout is jax.numpy's preferred_element_type, adj_y a transpose (real inputs)."""
    a, b = np.arange(1, 7).reshape(2, 3), np.arange(7, 13).reshape(3, 2)
    a3, b3 = np.arange(1, 13).reshape(2, 2, 3), np.arange(13, 25).reshape(2, 3, 2)
    for da, db in ((np.int8, np.int8), (np.int8, np.uint8), (np.uint8, np.int8)):
        c = tnp.matmul(a.astype(da), b.astype(db), preferred_element_type=jnp.int32)
        assert c.dtype == jnp.int32
        np.testing.assert_array_equal(_np(c), MM2)
        c3 = tnp.matmul(a3.astype(da), b3.astype(db), preferred_element_type=jnp.int32)
        assert c3.dtype == jnp.int32
        np.testing.assert_array_equal(_np(c3), MMB)
    for db in (np.int8, np.uint8):
        c = tnp.matmul(a.astype(BF16), b.astype(db), preferred_element_type=BF16)
        assert c.dtype == BF16
        np.testing.assert_array_equal(np.asarray(_np(c), np.float32), MM2)
        c3 = tnp.matmul(a3.astype(BF16), b3.astype(db), preferred_element_type=BF16)
        np.testing.assert_array_equal(np.asarray(_np(c3), np.float32), MMB_BF16)
    m = np.array([[1, 2], [3, 4]])
    for dt in (np.int8, np.uint8):
        c = tnp.matmul(m.astype(dt), tnp.swapaxes(m.astype(dt), -1, -2), preferred_element_type=jnp.int32)
        assert c.dtype == jnp.int32
        np.testing.assert_array_equal(_np(c), [[5, 11], [11, 25]])
    c = tnp.matmul(m.astype(np.int8), tnp.swapaxes(m.astype(BF16), -1, -2), preferred_element_type=BF16)
    assert c.dtype == BF16
    np.testing.assert_array_equal(np.asarray(_np(c), np.float32), [[5, 11], [11, 25]])


def _ints(shape, off=0, cplx=False):
    """Small integer-valued inputs (exact in every dtype, so TF's products are exact)."""
    n = int(np.prod(shape))
    v = ((np.arange(n) * 5 + 3 + off) % 7 - 3).astype(np.float64).reshape(shape)
    if cplx:
        v = v + 1j * (((np.arange(n) * 3 + 1 + off) % 5) - 2).reshape(shape)
    return v


OPTIONS = [(False, False), (True, False), (False, True)]  # (adjoint, transpose), as matmul_op_test's trans_options


def _np_eff(x, adjoint, transpose):
    """The operand matmul_op_test passes: transposed (or adjointed) so that matmul(..., transpose_x=True) is the
    plain product."""
    return x.T if transpose else (np.conj(x.T) if adjoint else x)


def _tj_op(x, adjoint, transpose):
    """TF's transpose_a/adjoint_a written with tj.numpy."""
    if transpose:
        return tnp.swapaxes(x, -1, -2)
    return tnp.conj(tnp.swapaxes(x, -1, -2)) if adjoint else x


MM_WANT = {  # TF 2.21: tf.matmul(eff_a, eff_b, adjoint_a/transpose_a, adjoint_b/transpose_b), the same for all 9
    "real": [[10, -6], [-18, -4], [10, 5]],
    "complex": [[5 - 11j, -6 + 1j], [-23 - 11j, -4 + 8j], [5 - 25j, 5 + 1j]],
}


def test_matmul_op_test_other_dtypes():
    """matmul_op_test MatMulTest (m, k, n = 3, 5, 2; each transpose/adjoint option of a and b) for int32, int64,
    float16, float64, complex128 and bfloat16 (float32 and complex64 are in test_tf_array_ops_port.py)."""
    with jax.enable_x64(True):
        for dt in (np.int32, np.int64, np.float16, np.float64, np.complex128, BF16):
            c = dt == np.complex128
            a, b = _ints((3, 5), 0, c).astype(dt), _ints((5, 2), 1, c).astype(dt)
            for adj_a, tr_a in OPTIONS:
                for adj_b, tr_b in OPTIONS:
                    got = tnp.matmul(_tj_op(_np_eff(a, adj_a, tr_a), adj_a, tr_a),
                                     _tj_op(_np_eff(b, adj_b, tr_b), adj_b, tr_b))
                    assert got.dtype == dt
                    np.testing.assert_array_equal(np.asarray(_np(got), np.complex128),
                                                  MM_WANT["complex" if c else "real"])


GA = {  # TF 2.21: tape.gradient(matmul(eff_a, eff_b, ...), eff_a, output_gradients=dy), complex128, per a-option
    (False, False): [[-9 + 1j, 8 + 13j, -11j], [-3 - 4j, -8 + 8j, 6 - 1j]],
    (True, False): [[-9 - 1j, -3 + 4j], [8 - 13j, -8 - 8j], [11j, 6 + 1j]],
    (False, True): [[-9 + 1j, -3 - 4j], [8 + 13j, -8 + 8j], [-11j, 6 - 1j]],
}
GB = {  # ... and with respect to eff_b, per b-option
    (False, False): [[4 - 4j, -7], [1 + 11j, 2 - 6j], [-8 - 3j, 10 - 5j]],
    (True, False): [[4 + 4j, 1 - 11j, -8 + 3j], [-7, 2 + 6j, 10 + 5j]],
    (False, True): [[4 - 4j, 1 + 11j, -8 - 3j], [-7, 2 - 6j, 10 - 5j]],
}


def test_matmul_gradient_complex128():
    """matmul_op_test MatMulGradientTest for complex128 (TF checks its theoretical Jacobian against numbers; here
    TF 2.21's tape.gradient along a fixed dy is pinned: a (2, 3), b (3, 2), each option of a and b). Also float64 on the
    inputs' real parts, against ``d @ op(b)^T`` / ``op(a)^T @ d`` mapped back through the option (TF 2.21's float64
    gradients on these inputs equal it exactly, checked)."""
    a, b, dy = _ints((2, 3), 0, True), _ints((3, 2), 2, True), _ints((2, 2), 4, True)
    with jax.enable_x64(True):
        for real in (False, True):
            for adj_a, tr_a in OPTIONS:
                for adj_b, tr_b in OPTIONS:
                    ea, eb = _np_eff(a, adj_a, tr_a), _np_eff(b, adj_b, tr_b)
                    d = dy
                    if real:
                        ea, eb, d = ea.real, eb.real, d.real
                    xa, xb = tj.constant(ea), tj.constant(eb)
                    with tj.GradientTape() as tape:
                        tape.watch([xa, xb])
                        y = tnp.matmul(_tj_op(xa, adj_a, tr_a), _tj_op(xb, adj_b, tr_b))
                    ga, gb = tape.gradient(y, [xa, xb], output_gradients=tj.constant(d))
                    assert ga.dtype == (jnp.float64 if real else jnp.complex128)
                    want_a, want_b = np.array(GA[(adj_a, tr_a)]), np.array(GB[(adj_b, tr_b)])
                    if real:  # (float64: the gradient of real inputs, d @ op(b)^T and op(a)^T @ d, mapped back)
                        op_a = ea.T if (adj_a or tr_a) else ea
                        op_b = eb.T if (adj_b or tr_b) else eb
                        want_a, want_b = d @ op_b.T, op_a.T @ d
                        want_a = want_a.T if (adj_a or tr_a) else want_a
                        want_b = want_b.T if (adj_b or tr_b) else want_b
                    np.testing.assert_allclose(_np(ga), want_a, rtol=1e-12, atol=1e-12)
                    np.testing.assert_allclose(_np(gb), want_b, rtol=1e-12, atol=1e-12)


BATCH_SHAPES = [((7, 2, 3), (7, 3, 1)), ((5, 1, 2, 3), (1, 7, 3, 5)), ((2, 3), (5, 2, 3, 5)),
                ((1, 2, 1, 4, 2, 1, 3, 4), (3, 2, 1, 1, 1, 2, 4, 2)), ((3, 0, 2), (3, 2, 5))]


def _np_adj(x, adj):
    return np.conj(np.swapaxes(x, -1, -2)) if adj else x


def _batch_operands(sa, sb, adj_a, adj_b, dt):
    """TF's batch-matmul test inputs: integer-valued operands of shapes ``sa``, ``sb`` (complex for complex128), an
    adjoint one reshaped to the transposed shape, as TF's test makes them."""
    c = dt == np.complex128
    x, y = _ints(sa, 0, c), _ints(sb, 1, c)
    if adj_a:
        x = x.reshape(sa[:-2] + (sa[-1], sa[-2]))
    if adj_b:
        y = y.reshape(sb[:-2] + (sb[-1], sb[-2]))
    return x.astype(dt), y.astype(dt)


def test_batch_matmul_other_dtypes():
    """BatchMatmulOpTest testBatchMatmulOp_* / testBatchMatmulBroadcasting_* (_testNonEmpty, _testBroadcasting,
    _testEmpty shapes) for float64, complex128 and bfloat16, each adjoint_a/adjoint_b (an adjoint operand is the
    input reshaped to the transposed shape, as TF's test). Integer-valued inputs: TF 2.21's products equal
    NumPy's exactly (checked), so NumPy's is the expected value."""
    with jax.enable_x64(True):
        for dt in (np.float64, np.complex128, BF16):
            for sa, sb in BATCH_SHAPES:
                for adj_a in (False, True):
                    for adj_b in (False, True) if dt != BF16 else (adj_a,):  # (bfloat16: two of the four)
                        x, y = _batch_operands(sa, sb, adj_a, adj_b, dt)
                        got = tnp.matmul(_tj_op(x, adj_a, False), _tj_op(y, adj_b, False))
                        want = np.matmul(_np_adj(x, adj_a).astype(np.complex128),
                                         _np_adj(y, adj_b).astype(np.complex128))
                        assert got.dtype == dt and got.shape == want.shape
                        np.testing.assert_array_equal(np.asarray(_np(got), np.complex128), want)


def _sum_to(g, shape):
    g = np.sum(g, axis=tuple(range(g.ndim - len(shape))))
    return np.sum(g, axis=tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1), keepdims=True)


def test_batch_matmul_gradients_float64_complex128():
    """BatchMatmulGradientTest.testBatchMatmulGradient_* / testBatchMatmulGradientWithBroadcasting_* for float64
    and complex128: the gradient of reduce_sum(matmul(x, y, adjoint_a, adjoint_b)). TF 2.21's gradients on these
    inputs were checked equal to ``ones @ conj(y)^T`` (resp. ``conj(x)^T @ ones``) summed over broadcast axes, the
    formula used here."""
    with jax.enable_x64(True):
        for dt in (np.float64, np.complex128):
            for sa, sb in (((1, 5, 2, 3), (7, 1, 3, 2)), ((2, 3), (5, 3, 5)), ((5, 2, 2, 3), (3, 5))):
                for adj_a in (False, True):
                    for adj_b in (False, True):
                        x, y = _batch_operands(sa, sb, adj_a, adj_b, dt)
                        tx, ty = tj.constant(x), tj.constant(y)
                        with tj.GradientTape() as tape:
                            tape.watch([tx, ty])
                            loss = tnp.sum(tnp.matmul(_tj_op(tx, adj_a, False), _tj_op(ty, adj_b, False)))
                        gx, gy = tape.gradient(loss, [tx, ty])
                        xa, ya = _np_adj(x, adj_a), _np_adj(y, adj_b)
                        ones = np.ones(np.broadcast_shapes(xa.shape[:-2], ya.shape[:-2]) + (xa.shape[-2], ya.shape[-1]))
                        dxa = _sum_to(np.matmul(ones, np.conj(np.swapaxes(ya, -1, -2))), xa.shape)
                        dya = _sum_to(np.matmul(np.conj(np.swapaxes(xa, -1, -2)), ones), ya.shape)
                        np.testing.assert_allclose(_np(gx), _np_adj(dxa, adj_a), rtol=1e-12, atol=1e-12)
                        np.testing.assert_allclose(_np(gy), _np_adj(dya, adj_b), rtol=1e-12, atol=1e-12)


# -- special_math_ops_test EinsumTest / EinsumGradTest ---------------------------------------------------------

def _einsum_inputs(shapes, dtype=np.float32):
    r = np.random.RandomState(0)
    out = []
    for s in shapes:
        a = np.array(r.randn(*s)).astype(dtype)
        if np.issubdtype(dtype, np.complexfloating):
            a += 1j * np.array(r.randn(*s)).astype(dtype)
        out.append(a)
    return out


def _long_shapes(eq, dim):
    return [tuple(dim(c) for c in s) for s in eq.split('->')[0].replace(' ', '').split(',')]


EINSUM_VALUES = [  # (equation, shapes): the EinsumTest cases einsum_op_test's port does not have
    # test_unary
    ('a', [(3,)]), ('aa', [(3, 3)]), ('ab->ab', [(3, 3)]), ('abc->ca', [(3, 4, 5)]), ('', [()]), ('->', [()]),
    ('aaa->', [(3, 3, 3)]), ('aaa->a', [(3, 3, 3)]), ('aab->a', [(3, 3, 4)]), ('aabcc->a', [(3, 3, 5, 4, 4)]),
    # test_unary_ellipsis
    ('...->', [()]), ('...ijk->...ki', [(3, 4, 5)]), ('...ij->...ji', [(5, 2, 3)]), ('...ij->...', [(5, 2, 3)]),
    ('...->...', [()]), ('->...', [()]), ('i...i->i...', [(2, 2)]), ('i...i->', [(2, 2)]),
    ('i...i->...', [(2, 5, 1, 2)]), ('i...i->i...', [(2, 1, 2)]), ('i...i->i...', [(2, 3, 4, 5, 2)]),
    # test_binary_simple
    ('a,a->', [(3,), (3,)]), ('a,a->a', [(3,), (3,)]), ('ab,ab->', [(3, 4), (3, 4)]),
    ('abc,bad->abcd', [(1, 2, 3), (2, 1, 4)]), ('ab,b', [(3, 4), (4,)]), ('cab,b', [(1, 3, 4), (4,)]),
    # test_repeated_indices
    ('ijj,k->ik', [(2, 3, 3), (4,)]), ('aab,bc->ac', [(2, 2, 3), (3, 4)]),
    # test_binary_ellipsis
    ('...,...->...', [(2, 3), (2, 3)]), ('...i,...j->...ij', [(5, 2), (5, 3)]),
    # test_broadcasting
    ('...ij,...jk->...ik', [(1, 2, 3), (3, 5)]), ('...ij,...jk->...ik', [(2, 3), (1, 3, 5)]),
    ('...ij,...jk->...ik', [(5, 2, 3), (3, 5)]), ('...ij,...jk->...ik', [(2, 3), (5, 3, 5)]),
    ('ij,jk...k->i...', [(3, 2), (2, 4, 1, 4)]),
    # test_multiple_inputs
    ('ijk,ijl,ikl->i', [(1, 2, 3), (1, 2, 4), (1, 3, 4)]), ('i,ijk,j->k', [(1,), (1, 2, 4), (2,)]),
    ('ij,ij,jk,kl->il', [(1, 2), (1, 2), (2, 3), (3, 4)]), ('a,b,c', [(5,), (7,), (9,)]),
    ('ab,ab,c->c', [(5, 6), (5, 6), (2,)]),
]
VALUE_DIM = lambda c: ord(c) - ord('a') + 1  # noqa: E731  (test_long_cases' dimension_map)
GRAD_DIM = lambda c: ((ord(c) - ord('a')) % 3) + 1  # noqa: E731  (EinsumGradTest's)
EINSUM_LONG = ['efc,dbc,acf,fd->abe', 'ea,fb,gc,hd,abcd->efgh', 'abhe,hidj,jgba,hiab,gab->ed',
               'efc, dbc, acf, fd -> abe', 'abhe, hidj, jgba, hiab, gab', 'ea,fb,abcd,gc,hd->efgh']
EINSUM_LONG_REPEATED = ['fdf,cdd,ccd,afe->ae', 'fff,fae,bef,def->abd']


def test_einsum_values():
    """EinsumTest.test_unary / test_unary_ellipsis / test_binary_simple (with implicit outputs) /
    test_repeated_indices / test_binary_ellipsis / test_broadcasting / test_multiple_inputs / test_long_cases /
    test_long_cases_with_repeated_labels: np.einsum's value (TF 2.21 agrees on every case, atol/rtol 1e-4)."""
    cases = EINSUM_VALUES + [(e, _long_shapes(e, VALUE_DIM)) for e in EINSUM_LONG + EINSUM_LONG_REPEATED]
    for s, shapes in cases:
        xs = _einsum_inputs(shapes)
        np.testing.assert_allclose(_np(tnp.einsum(s, *xs)), np.einsum(s, *xs), atol=1e-4, rtol=1e-4, err_msg=s)


def test_einsum_dtypes_and_numpy_input():
    """EinsumTest.test_dtypes (float64, float32, complex64, complex128; five 2 x 2 equations; the dtype is kept)
    and test_numpy_input (float64 NumPy arrays: TF 2.21 gives float64)."""
    with jax.enable_x64(True):
        for dt in (np.float64, np.float32, np.complex64, np.complex128):
            for s in ('ij,jk->ik', 'ji,jk->ik', 'ji,kj->ik', 'ij,jk->ki', 'ji,kj->ki'):
                xs = _einsum_inputs([(2, 2), (2, 2)], dt)
                got = tnp.einsum(s, *xs)
                assert got.dtype == dt
                np.testing.assert_allclose(_np(got), np.einsum(s, *xs), atol=1e-4, rtol=1e-4)
        r = np.random.RandomState(0)
        x, y, z = r.randn(1, 2, 3), r.randn(1, 2, 4), r.randn(1, 3, 4)
        got = tnp.einsum('ijk,ijl,ikl->i', x, y, z)
        assert got.dtype == jnp.float64
        np.testing.assert_allclose(_np(got), np.einsum('ijk,ijl,ikl->i', x, y, z), atol=1e-4, rtol=1e-4)


EINSUM_INVALID = [  # TF 2.21 raises ValueError or InvalidArgumentError for each (test_invalid_equation)
    ('a->a,a', (5,)), ('a->a->a', (5,)), ('ijk ijk', (1, 2, 3), (1, 2, 3)), ('ij.jk->ik', (2, 3), (3, 4)),
    ('a->b', (5,)), ('ij,jk->im', (2, 3), (3, 4)), ('ij,jk->ik', (1, 2, 3), (3, 4)), ('ij,jk->ik', (2, 3), (4, 4)),
    ('ij,jk->iik', (2, 3), (3, 4)), ('...ij...,jk...->ik...', (2, 3), (3, 4)),
    ('...ij,...jk->...ik', (5, 2, 3), (7, 3, 4)),
]


def test_einsum_invalid():
    """EinsumTest.test_invalid_equation (all but the three equations jax.numpy accepts, see the module docstring):
    ValueError; test_invalid_keyword_arguments: unknown keywords raise TypeError (TF 2.21 as well)."""
    for s, *shapes in EINSUM_INVALID:
        with pytest.raises(ValueError):
            tnp.einsum(s, *_einsum_inputs(shapes))
    with pytest.raises(TypeError):
        tnp.einsum('ij,jk->ik', *_einsum_inputs([(2, 3), (3, 4)]), invalid1='value1', invalid2='value2')


def test_einsum_empty():
    """EinsumTest.test_empty: contractions along zero-sized dimensions give zeros of TF 2.21's shapes."""
    for s, shapes, out in (('ab,bc->ac', [(0, 10), (10, 10)], (0, 10)),
                           ('ibnd,ijbn->jnd', [(1, 0, 5, 10), (1, 1, 0, 5)], (1, 5, 10)),
                           ('aab,bc->ac', [(0, 0, 10), (10, 10)], (0, 10)),
                           ('aaab,bc->c', [(0, 0, 0, 3), (3, 4)], (4,))):
        np.testing.assert_array_equal(_np(tnp.einsum(s, *_einsum_inputs(shapes))), np.zeros(out))


EINSUM_GRADS = [  # EinsumGradTest cases einsum_op_test's port does not have (TF 2.21's checker passes on each)
    ('aabcd->ad', [(3, 3, 5, 4, 4)]), ('...->...', [()]), ('...->', [()]), ('->...', [()]),  # test_unary(_ellipsis)
    ('a...a->a...', [(2, 2)]), ('a...a->', [(2, 2)]), ('a...a->...', [(2, 5, 1, 2)]),
    ('a...a->a...', [(2, 3, 4, 5, 2)]), ('...ijk->...ki', [(3, 4, 5)]),
    ('a,a->', [(3,), (3,)]), ('a,a->a', [(3,), (3,)]), ('ab,ab->', [(3, 4), (3, 4)]),  # test_binary_simple
    ('ab,bc->ac', [(3, 4), (4, 5)]), ('abc,bad->abcd', [(1, 2, 3), (2, 1, 4)]),
    ('ba,b->', [(3, 2), (3,)]),  # test_reduced_indices
    ('ijj,k->ik', [(2, 3, 3), (4,)]), ('ill,k->ik', [(2, 3, 3), (4,)]), ('aab,bc->ac', [(1, 1, 3), (3, 4)]),
    ('aab,bc->ac', [(0, 0, 10), (10, 10)]), ('aab,bc->ac', [(1, 1, 0), (0, 10)]),  # test_empty_with_repeated_indices
    ('ij...,jk...->ik...', [(3, 2, 1), (2, 4)]), ('ij,jk...k->i...', [(3, 2), (2, 4, 1, 4)]),  # test_broadcasting
    ('...i,...j,...k->...ijk', [(1, 4, 1, 2), (5, 1, 1, 3), (1, 1, 1, 1, 9)]),
    ('...i,...j,...k->...ijk', [(1,), (1,), (1,)]),
] + [(e, _long_shapes(e, GRAD_DIM)) for e in ['abhe,hidj,jgba,hiab,gab->ed', 'ea,fb,abcd,gc,hd->efgh']
     + EINSUM_LONG_REPEATED]  # test_long_cases, test_long_cases_with_repeated_labels


def test_einsum_gradients():
    """EinsumGradTest (the cases above): TF's gradient checker compares the theoretical Jacobian with central
    differences in float64; here the gradient of sum(w * einsum(...)) for a fixed random w, in float64, against
    central differences of np.einsum (exact up to rounding: einsum is linear in each input)."""
    r = np.random.RandomState(1)
    with jax.enable_x64(True):
        for s, shapes in EINSUM_GRADS:
            xs = _einsum_inputs(shapes, np.float64)
            w = r.randn(*np.shape(np.einsum(s, *xs)))
            ts = [tj.constant(x) for x in xs]
            with tj.GradientTape() as tape:
                tape.watch(ts)
                loss = tnp.sum(tnp.einsum(s, *ts) * w)
            grads = tape.gradient(loss, ts)
            for k, (x, g) in enumerate(zip(xs, grads)):
                want = np.zeros_like(x)
                entries = list(np.ndindex(x.shape))
                if len(entries) > 24:  # (a random subset of the entries, to keep the file fast)
                    entries = [entries[i] for i in r.choice(len(entries), 24, replace=False)]
                for idx in entries:
                    e = np.zeros_like(x)
                    e[idx] = 1e-3
                    plus = [xx + e if i == k else xx for i, xx in enumerate(xs)]
                    minus = [xx - e if i == k else xx for i, xx in enumerate(xs)]
                    want[idx] = np.sum(w * (np.einsum(s, *plus) - np.einsum(s, *minus))) / 2e-3
                assert g.shape == x.shape, s
                rows = tuple(np.array(entries, dtype=int).reshape(len(entries), x.ndim).T)
                np.testing.assert_allclose(_np(g)[rows], want[rows], rtol=1e-6, atol=1e-6, err_msg=s)


# -- random_gamma_test.py ---------------------------------------------------------------------------------------

def test_gamma_np_dtypes_empty_and_shapes():
    """RandomGammaTest.testNpDtypes (NumPy alpha [2, 1, 3] and beta [3]: TF 2.21 shape [5, 2, 1, 3]),
    testEmptySamplingNoError ([5, 2, 0, 3]) and testShape's fully known shapes ([150], [150, 2] with two betas,
    [150, 1, 2, 3], [20, 30, 1, 2, 3])."""
    assert R.gamma([5], alpha=np.ones([2, 1, 3]), beta=np.ones([3]), dtype=np.float32).shape == (5, 2, 1, 3)
    assert R.gamma([5], alpha=np.ones([2, 0, 3]), beta=np.ones([3]), dtype=jnp.float32).shape == (5, 2, 0, 3)
    assert R.gamma([150], 2.0).shape == (150,)
    assert R.gamma([150], 2.0, beta=[3.0, 4.0]).shape == (150, 2)
    assert R.gamma([150], tnp.ones([1, 2, 3])).shape == (150, 1, 2, 3)
    assert R.gamma([20, 30], tnp.ones([1, 2, 3])).shape == (20, 30, 1, 2, 3)


def test_gamma_size_too_large():
    """RandomGammaTest.testSizeTooLarge: TF 2.21 raises InvalidArgumentError ("Encountered overflow ...")."""
    with pytest.raises(ValueError):
        R.gamma(shape=[46902, 51188, 34063, 59195], alpha=tnp.ones((4, 4, 4, 4, 4)))


def _moment_z_scores(x, max_moment, dist_moment):
    """TF's kernel_tests/random/util.py test_moment_matching with stride 0: z-scores of the sample moments."""
    x = np.asarray(x, np.float64).ravel()
    z = []
    for i in range(1, max_moment + 1):
        mean, sq = dist_moment(i), dist_moment(2 * i)
        var = sq - mean ** 2
        z.append(abs((np.mean(x ** i) - mean) / np.sqrt(var / len(x) + i * 1e-6)))
    return np.array(z)


def test_gamma_moments():
    """RandomGammaTest.testMomentsFloat32 / testMomentsFloat64: z-scores of the first moments below 6 (stride 0,
    scale 9 so max_moment 4; 20000 draws per alpha; float64 adds alpha 0.01)."""
    from math import lgamma, exp

    def moment(alpha, scale):
        return lambda k: exp(lgamma(alpha + k) - lgamma(alpha)) * scale ** k
    R.set_seed(137)
    for dt, alphas in ((jnp.float32, (0.2, 1.0, 3.0)), (jnp.float64, (0.01, 1.0))):
        with jax.enable_x64(dt == jnp.float64):
            for alpha in alphas:
                x = R.gamma([20000], alpha, beta=1 / 9, dtype=dt, seed=12345)
                assert x.dtype == dt
                assert np.all(_moment_z_scores(_np(x), 4, moment(alpha, 9)) < 6.0), alpha


def test_gamma_zero_density_positive_distinct_seed_nocse():
    """RandomGammaTest.testNonZeroSmallShape / testNonZeroSmallishShape (no more zeros than the CDF at the dtype's
    tiny allows: alpha 0.01 and 0.35, float16 and float32), testPositive (alpha 0.001, seed 0: TF 2.21 draws no
    zero in float16/32/64), testDistinct (two samplers, float16 fewer than 20 equal values, else 10),
    testSeed (op seed 345 twice after the same global seed: equal) and testNoCSE (two ops differ)."""
    from math import lgamma, exp, log
    for alpha in (0.01, 0.35):
        for dt in (jnp.float16, jnp.float32):
            x = np.asarray(_np(R.gamma([10000], alpha, 1.0, dtype=dt, seed=12345)), np.float64)
            tiny = float(jnp.finfo(dt).tiny)
            allowable = exp(alpha * log(tiny) - lgamma(alpha + 1)) * x.size  # gamma CDF at tiny (leading term)
            allowable = allowable * 2 if allowable < 10 else allowable * 1.05
            assert np.sum(x <= 0) <= allowable, (alpha, dt)
    for dt in (jnp.float16, jnp.float32, jnp.float64):
        with jax.enable_x64(dt == jnp.float64):
            x = R.gamma(shape=[10000], alpha=0.001, dtype=dt, seed=0)
            assert int(np.sum(np.asarray(_np(x), np.float64) <= 0)) == 0
    for dt, limit in ((jnp.float16, 20), (jnp.float32, 10)):
        x, y = _np(R.gamma([1000], 2.0, 1.0, dtype=dt)), _np(R.gamma([1000], 2.0, 1.0, dtype=dt))
        assert (x == y).sum() < limit
        R.set_seed(137)
        sx = _np(R.gamma([1000], 0.5, 1.0, dtype=dt, seed=345))
        R.set_seed(137)
        sy = _np(R.gamma([1000], 0.5, 1.0, dtype=dt, seed=345))
        np.testing.assert_array_equal(sx, sy)
        rnd1, rnd2 = R.gamma([24], 2.0, dtype=dt), R.gamma([24], 2.0, dtype=dt)
        assert np.linalg.norm(np.asarray(_np(rnd2 - rnd1), np.float64)) > 0.1


# -- random_poisson_test.py -------------------------------------------------------------------------------------

def test_poisson_moments():
    """RandomPoissonTest.testMoments (stride 0; lam 3 and 20; float32 and int32 here, 10000 draws each)."""
    from scipy import stats
    R.set_seed(137)
    for dt in (jnp.float32, jnp.int32):
        for lam in (3.0, 20):
            x = R.poisson([10000], lam, dtype=dt, seed=12345)
            assert x.dtype == dt
            assert np.all(_moment_z_scores(_np(x), 5, stats.poisson(lam).moment) < 6.0), (dt, lam)


def test_poisson_seed_nocse_zero_shape_shapes_dtypes():
    """RandomPoissonTest.testSeed (same global and op seed 345: the same draws), testNoCSE (two ops: norm of the
    difference at least 1), testZeroShape (poisson([], []) has shape [0], float32), testShape's fully known shapes
    and testDTypeCombinationsV2 (every lam dtype with a float32 output and a float16 lam with the other output dtypes,
    under x64; TF 2.21 returns the requested dtype for all 25 combinations)."""
    for dt in (jnp.float16, jnp.float32):
        R.set_seed(1)
        sx = _np(R.poisson([1000], 1.0, dtype=dt, seed=345))
        R.set_seed(1)
        np.testing.assert_array_equal(sx, _np(R.poisson([1000], 1.0, dtype=dt, seed=345)))
        rnd1, rnd2 = R.poisson([24], 2.0, dtype=dt), R.poisson([24], 2.0, dtype=dt)
        assert np.linalg.norm(np.asarray(_np(rnd2 - rnd1), np.float64)) >= 1
    z = R.poisson([], [], seed=12345)
    assert z.shape == (0,) and z.dtype == jnp.float32
    assert R.poisson([150], 2.0, seed=12345).shape == (150,)
    assert R.poisson([150], tnp.ones([1, 2, 3]), seed=12345).shape == (150, 1, 2, 3)
    assert R.poisson([20, 30], tnp.ones([1, 2, 3]), seed=12345).shape == (20, 30, 1, 2, 3)
    outs = (jnp.float16, jnp.float32, jnp.float64, jnp.int32, jnp.int64)
    with jax.enable_x64(True):
        for lam_dt, out_dt in [(lam, jnp.float32) for lam in outs] + [(jnp.float16, out) for out in outs[2:]]:
            if True:
                got = R.poisson([10], tj.constant(np.array([1], lam_dt)), dtype=out_dt)
                assert got.dtype == out_dt and got.shape == (10, 1)


# -- multinomial_op_test.py (tf.random.categorical) -------------------------------------------------------------

def _categorical_probs():
    return tnp.log(tj.constant([[0.15, 0.5, 0.3, 0.05]]))


def test_categorical_small_entropy_large_logits_negative_min():
    """MultinomialTest.testSmallEntropy (global seed 1618, int32/int64 outputs: TF 2.21 draws only class 1 and 2),
    testLargeLogits (+-1000 logits: classes in range) and testNegativeMinLogits (1023 logits at float32's min and
    one 0: TF 2.21 draws only 1023)."""
    R.set_seed(1618)
    logits = tj.constant([[-10.0, 10.0, -10.0], [-10.0, -10.0, 10.0]])
    for dt in (jnp.int32, jnp.int64):
        s = R.categorical(logits, 1000, dtype=dt)
        assert s.shape == (2, 1000)
        np.testing.assert_array_equal(_np(s), [[1] * 1000, [2] * 1000])
    for sign in (-1, 1):
        s = _np(R.categorical(np.array([[1000.0] * 5]) * sign, 10))
        assert (s >= 0).all() and (s < 5).all()
    R.set_seed(78844)
    s = R.categorical(tj.constant([[np.finfo(np.float32).min] * 1023 + [0]]), 1000)
    np.testing.assert_array_equal(_np(s), [[1023] * 1000])


def test_categorical_independence():
    """MultinomialTest.testOneOpMultipleStepsIndependent (the same traced op run twice: a tj.function called
    twice), testEagerOneOpMultipleStepsIndependent (two eager draws) and testTwoOpsIndependent (two ops in one
    step): the draws differ (TF 2.21 as well)."""
    logits = _categorical_probs()

    @tj.function
    def one():
        return R.categorical(logits, 10)

    assert not np.array_equal(_np(one()), _np(one()))
    assert not np.array_equal(_np(R.categorical(logits, 10)), _np(R.categorical(logits, 10)))

    @tj.function
    def two():
        return R.categorical(logits, 32), R.categorical(logits, 32)

    a, b = two()
    assert not np.array_equal(_np(a), _np(b))


def test_categorical_two_ops_same_seed_in_function():
    """MultinomialTest.testTwoOpsSameSeedDrawSameSequences (a TF1 graph test; in TF 2.21 the same holds in a
    tf.function, with or without a global seed): both ops with seed=1 give equal samples."""
    logits = _categorical_probs()

    @tj.function
    def two():
        return R.categorical(logits, 1000, seed=1), R.categorical(logits, 1000, seed=1)

    a, b = two()
    np.testing.assert_array_equal(_np(a), _np(b))


def test_categorical_sampling_correctness():
    """MultinomialTest.testSamplingCorrectness: with 21000 samples the squared frequency error chi2 =
    sum((f - p)**2 / p) is below 1e-3, for the native sampler and for TF's composed one (Gumbel noise from
    -log(-log(uniform)) and argmax), and between the two."""
    np.random.seed(1618)
    rand_probs = np.random.random_sample((10,))
    rand_probs /= rand_probs.sum()
    rand_probs2 = np.random.random_sample((3, 5))
    rand_probs2 /= rand_probs2.sum(axis=1, keepdims=True)
    n = 21000

    def composed(logits, num_samples):
        unif = R.uniform(tuple(logits.shape) + (num_samples,))
        noise = -tnp.log(-tnp.log(unif))
        return tnp.argmax(tnp.expand_dims(logits, -1) + noise, axis=1)

    def freqs(d, num_classes):
        d = _np(d)
        assert d.min() >= 0 and d.max() < num_classes
        return np.stack([np.bincount(row, minlength=num_classes) / n for row in d])

    def chi2(expected, actual):
        return np.sum((actual - expected) ** 2 / expected, axis=0)

    R.set_seed(1618)
    for probs in ([[0.5, 0.5]], [[0.85, 0.05, 0.1]], rand_probs.reshape(1, -1), rand_probs2):
        probs = np.asarray(probs)
        logits = tj.constant(np.log(probs).astype(np.float32))
        native = freqs(R.categorical(logits, n), probs.shape[1])
        comp = freqs(composed(logits, n), probs.shape[1])
        for c in (chi2(probs, native), chi2(probs, comp), chi2(comp, native)):
            assert np.all(c < 1e-3)


def test_categorical_empty_and_empty_classes():
    """MultinomialTest.testEmpty (batch 0 or 3, 0 or 7 samples: shape (batch, samples)) and testEmptyClasses
    (zeros [5, 0]: TF 2.21 raises InvalidArgumentError "num_classes should be positive")."""
    for batch in (0, 3):
        for samples in (0, 7):
            assert R.categorical(tnp.zeros([batch, 5]), samples).shape == (batch, samples)
    with pytest.raises(ValueError):
        R.categorical(tnp.zeros([5, 0]), 7)


# -- stateless_random_ops_test.py (TF-style seeds) --------------------------------------------------------------

def _stateless_cases(shape):
    return [
        ("uniform", lambda s: R.stateless_uniform(shape, seed=s)),
        ("uniform2", lambda s: R.stateless_uniform(shape, seed=s, minval=2.2, maxval=7.1)),
        ("normal", lambda s: R.stateless_normal(shape, seed=s, dtype=jnp.float16)),
        ("normal2", lambda s: R.stateless_normal(shape, seed=s, mean=2, stddev=3)),
        ("trnorm2", lambda s: R.stateless_truncated_normal(shape, seed=s, mean=3, stddev=4)),
        ("int", lambda s: R.stateless_uniform(shape, seed=s, minval=2, maxval=11111, dtype=jnp.int32)),
        ("multinomial", lambda s: R.stateless_categorical(tj.constant([[0.5, 0.5], [0.8, 0.2], [0.25, 0.75]]), 10,
                                                          seed=s, dtype=jnp.int32)),
        ("gamma", lambda s: R.stateless_gamma((10, 1, 3), seed=s, alpha=tj.constant([[.5, 1., 2.]]))),
        ("poisson", lambda s: R.stateless_poisson((10, 1, 3), seed=s, lam=tj.constant([[5.5, 1., 2.]]),
                                                  dtype=jnp.int32)),
    ]


def test_stateless_determinism_on_tf_seeds():
    """StatelessOpsTest.testDeterminismFloat / testDeterminismInt / testDeterminismMultinomial /
    testDeterminismGamma / testDeterminismPoisson: on seeds (x, y) for x, y in range(3), each twice, as int32 and
    int64 seed arrays (and the shape as an int32 / int64 array), the draws are equal iff the seeds are."""
    seeds = [(x, y) for x in range(3) for y in range(3)] * 2
    for seed_type, shape in ((np.int32, np.array([2, 5], np.int32)), (np.int64, np.array([2, 5], np.int64))):
        for name, op in _stateless_cases(shape):
            values = [(s, _np(op(np.array(s, seed_type)))) for s in seeds]
            for s0, v0 in values:
                for s1, v1 in values:
                    assert (s0 == s1) == bool(np.all(v0 == v1)), (name, s0, s1)


def test_stateless_explicit_alg():
    """StatelessOpsTest.testExplicitAlgFloat / testExplicitAlgInt: alg='philox' and the default give the same
    numbers (seed (7, 17); TF 2.21 as well), also for the full-range int draw (minval=maxval=None)."""
    ops = [lambda **k: R.stateless_uniform([2, 5], seed=(7, 17), **k),
           lambda **k: R.stateless_normal([3], seed=(7, 17), **k),
           lambda **k: R.stateless_truncated_normal([3], seed=(7, 17), **k),
           lambda **k: R.stateless_uniform([3], seed=(7, 17), minval=2, maxval=11111, dtype=jnp.int32, **k),
           lambda **k: R.stateless_uniform([3], seed=(7, 17), minval=None, maxval=None, dtype=jnp.int32, **k)]
    for op in ops:
        np.testing.assert_array_equal(_np(op()), _np(op(alg="philox")))


def test_stateless_split_fold_in_int64_seed():
    """StatelessOpsTest.testSplit / testFoldIn with int64 seeds (int32 is in test_random_mirror.py): TF 2.21's
    split of an int64 seed is [3, 2] int64, fold_in with an int64 value gives an int64 [2] seed; all differ."""
    with jax.enable_x64(True):
        seed = tj.constant(np.array([1, 2], np.int64))
        new = R.split(seed, 3)
        assert new.shape == (3, 2) and new.dtype == jnp.int64
        rows = [tuple(_np(seed).tolist())] + [tuple(r) for r in _np(new).tolist()]
        assert len(set(rows)) == 4
        orig = tj.constant(np.array([1, 2], np.int32))
        s1 = R.fold_in(orig, tj.constant(np.int64(3)))
        s2 = R.fold_in(s1, tj.constant(np.int64(4)))
        for s in (s1, s2):
            assert s.shape == (2,) and s.dtype == jnp.int64
        assert len({tuple(_np(s).tolist()) for s in (orig, s1, s2)}) == 3


def test_stateless_errors():
    """StatelessOpsTest.testErrors: integer stateless_uniform with a non-scalar minval or maxval raises ValueError
    "minval must be a scalar; got a tensor of shape ..." inside a function (TF 2.21; eagerly it is an
    InvalidArgumentError, ValueError here too)."""
    shape = [2, 3]

    @tj.function
    def f():
        return R.stateless_uniform(shape=shape, seed=[1, 2], minval=tnp.zeros(shape, "int32"), maxval=100,
                                   dtype="int32")

    with pytest.raises(ValueError, match="minval must be a scalar; got a tensor of shape "):
        f()

    @tj.function
    def f2():
        return R.stateless_uniform(shape=shape, seed=[1, 2], minval=0, maxval=tnp.ones(shape, "int32") * 100,
                                   dtype="int32")

    with pytest.raises(ValueError, match="maxval must be a scalar; got a tensor of shape "):
        f2()
