"""TensorFlow's linalg_impl tests (tf.linalg.logdet, adjoint, pinv, lu_matrix_inverse, lu_solve) and
tf.experimental.numpy's math tests, ported to tj.numpy.

Sources (TF's method is named at each test):
  tensorflow/python/kernel_tests/linalg/linalg_ops_test.py (TF's tests of linalg_impl; the index holds no
    linalg_impl_test.py): LogdetTest.test_works_with_five_different_random_pos_def_matrices /
    test_works_with_underflow_case / test_works_with_non_spd_positive_determinant_matrix /
    test_negative_determinant_returns_nan / test_gradient_non_spd_positive_determinant_matrix,
    AdjointTest.test_compare_to_numpy, _PinvTest.test_symmetric / test_nonsquare (all four Pinv classes: float32 and
    float64, default and per-matrix rcond), _LUMatrixInverse.test_non_batch / test_batch, _LUSolve.test_non_batch /
    test_batch_broadcast;
  tensorflow/python/ops/numpy_ops/np_math_ops_test.py (the newest version the index holds; several of its methods
    are regression tests of fixes made after TF 2.21), MathTest: testDot, testMinimum, testMaximum, testMatmul,
    testMatmulError, testVDot, testLcm, testLog, testExp, testTanh, testSqrt, testAngle, testHypot,
    testHypotLargeFiniteNoOverflow, testHypotSpecialCases, testLogaddexp, testLogaddexpNonFloatInputs, testArgsort,
    testSort, testConcatenate, testConcatenateAxisNone, testCountNonzero, testArgMaxArgMin, testIsCloseEqualNan,
    testIsCloseIntegerTolerances, testIsCloseSignedIntegerOverflow, testIsCloseMinIntIdenticalValues,
    testIsCloseMinIntNeighborDivergesFromNumPy, testIsCloseUnsignedNoWraparound,
    testIsCloseIntegerFloatTolerancePromotes, testIsinf, testIsneginf, testIsposinf, testIsInf,
    testIsInfFamilyNonFloatInputs, testIsInfFamilyFloatInputs, testCloseNonBroadcastableShapesXla,
    testCrossXlaUnknownBatchDim, testCrossDynamicUnknownBatchDim, testDiffErrorMessage, testDiff,
    testAverageWrongShape, testAverageZeroWeights, testClip, testPtp, testLinSpace, testLogSpace, testLinSpaceDtype,
    testLogSpaceDtype, testGeomSpace, testNumpyMethodsOnTensor, testFlatten, testSignBit, testFabsAlwaysReturnsFloat,
    testKron; plus tape gradients of the differentiable ones against TF 2.21's tf.experimental.numpy.

How TF maps to tj: tf.linalg.logdet(m) of a Hermitian positive definite m is tnp.linalg.slogdet(m).logabsdet (its
sign 1; TF's NaN for a negative determinant is sign -1); tf.linalg.adjoint(m) is tnp.conj(tnp.linalg
.matrix_transpose(m)); tf.linalg.pinv(a, rcond) is tnp.linalg.pinv(a, rcond) (a batch-shaped rtol);
lu_matrix_inverse(*lu(x)) is tnp.linalg.inv(x) and lu_solve(*lu(x), rhs) is tnp.linalg.solve(x, rhs) (the LU
factors have no tj counterpart; their values are the inverse's and the solution's). tf.experimental.numpy.f is
tj.numpy.f. TF's array transforms (a Python value, tf.convert_to_tensor, np.array, np_array_ops.array with and
without a dtype) are here a Python value, tj.constant, np.array and tnp.array; TF's InvalidArgumentError is
ValueError. TF 2.21's tnp values and gradients were computed here with the same programs (eager,
``experimental_enable_numpy_behavior(dtype_conversion_mode='legacy')`` as TF's test sets up) and are hard-coded;
TensorFlow is not imported. Where TF's test compares with NumPy, NumPy computes the expected value in the test (TF
2.21 agrees except where a docstring says otherwise: several of these tests are newer than TF 2.21); the expected
dtype is jax.numpy's (found with jax.eval_shape, nothing run), which tj.numpy follows. int64 / float64 / complex128
cases run under ``jax.enable_x64(True)`` for that test only; elsewhere they come back as 32-bit (x64 off).

Sanctioned differences (tj.numpy follows jax.numpy / NumPy where TF 2.21's tnp does not; asserted, not xfailed):
  * dtypes: jax.numpy's promotion (int32 + float32 is float32; Python ints and floats are int32 / float32; int64 /
    float64 are 32-bit with x64 off) where TF's tnp (and NumPy) give int64 / float64; TF's logaddexp2 and
    geomspace of float32 give float64 (tj float32, as jnp and NumPy); TF's angle of float16 is float32 (tj
    float16, as NumPy);
  * argsort / argmax / argmin of a 0-d array with axis -1 or 0 raise (AxisError, a ValueError / IndexError, as
    jax.numpy's errors), where NumPy and TF 2.21 treat it as a 1-d array of one element (axis=None works);
    ``kind='stable'`` is refused as jax.numpy's (``stable=True`` is its spelling; TF 2.21 has no ``stable``);
    argsort of a complex array sorts it lexicographically as NumPy / jax.numpy (TF raises TypeError);
  * isclose of int8 -127 and -128 with rtol=5 is True (NumPy's and jnp's answer; testIsCloseMinIntNeighbor...
    asserts TF's documented integer-arithmetic False);
  * isposinf / isneginf of a complex array raise ValueError (jax.numpy's error; NumPy: TypeError "ambiguous");
  * average with weights summing to zero gives NaN (jax.numpy's, and TF 2.21's; NumPy raises ZeroDivisionError,
    and the newer TF test asserts InvalidArgumentError): a value-dependent error has no place in a traced op;
  * flatten('A') / flatten('K') raise NotImplementedError, as jax.Array's (NumPy: 'C' order); a Tensor has no
    ``.data`` (testNumpyMethodsOnTensor), as a jax.Array has none;
  * linspace / logspace with dtype=float16 compute in float16, as jax.numpy (within 1e-3 of NumPy, which computes
    in float64 and casts);
  * gradients: logaddexp / logaddexp2 at x1 == x2 give (0.5, 0.5) (the derivative, and jax.numpy's) where TF's tnp,
    built of maximum and abs, gives (1, 0); hypot's at the origin is 0 (tapejax's documented choice; TF's
    sqrt(x^2 + y^2) gives NaN, jax.numpy (0.5, 0.5)): neither op is among API.md's kink conventions;
  * TF 2.21's own bugs the newer TF tests catch, where tj agrees with NumPy: hypot of large float64 (TF inf) and of
    inf with NaN (TF NaN), signbit of -0.0 and -NaN (TF False), linspace / logspace with an integer or complex dtype
    (TF float64), isclose of integers with tolerances (TF exact equality), isinf / isposinf / isneginf of NumPy
    arrays (TF AttributeError), logaddexp of lists (TF TypeError), concatenate with axis=None (TF ValueError),
    tf.linalg.logdet of a non-positive-definite matrix with a positive determinant (TF 2.21's Cholesky gives NaN;
    tj's slogdet gives NumPy's 0, as TF's slogdet).

Differences this port found, fixed in tapejax (each test failed before the fix):
  * fabs of integers stayed integer (jax.numpy and NumPy give floats; TF 2.21 also keeps ints,
    testFabsAlwaysReturnsFloat is newer);
  * clip with a bound of None made an integer array float32 (jax.numpy keeps int32, NumPy / TF int64);
  * tnp.array / tnp.asarray of Python floats with an integer dtype raised TypeError (tj.constant's TF rule), where
    jax.numpy.array and TF's tnp.array cast (testKron's promotion loop builds int arrays from float literals);
  * under x64: logaddexp2 of float32 or int32 was float64 (jnp float32), and dot of a Python int with a list of
    ints raised inside jax (preferred_element_type narrower than the result: jax.numpy's own scalar path);
  * angle of a real tensor had a zero gradient where TF's is None (TF's angle of reals is a select on x < 0: no
    path to x);
  * the out-of-bounds axis errors of sort, concatenate, count_nonzero and diff said only "out of range", where
    TF's test (and NumPy, jax.numpy and tj's argsort) say "out of bounds": they now say both.

Left out, by reason:
  * no tj counterpart: CholeskySolveTest (cholesky_solve), _LUReconstruct (lu / lu_reconstruct), the LU
    permutations of _LUSolve, EighTridiagonalTest (eigh_tridiagonal);
  * already ported (test_tf_unported_linalg_port.py, test_tf_linalg_port.py): SlogdetTest, EyeTest, the
    _MatrixRankTest methods;
  * TF-only behaviour: testArgsortRaisesErrorForComplexDtypes (nested in testArgsort, so never run by TF; tj sorts
    complex numbers as jax.numpy, checked in test_argsort_complex), the XLA unknown-batch-dimension part of the
    cross tests (tj.function shapes are always known: the values under tj.function are kept);
  * to keep the file fast: TF's array transforms are cut for linspace / logspace (Python, Tensor, float32 and float64
    NumPy: 16 pairs of the 64), and _testBinaryOp's dtype-promotion loop runs on each op's first and last operands
    (its transform loop on all of them).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from conftest import D, close_to_tf, tape_gradients

tnp = tj.numpy
L = tnp.linalg

pytestmark = [pytest.mark.filterwarnings("ignore:Explicitly requested dtype"),
              pytest.mark.filterwarnings("ignore::RuntimeWarning"),  # NumPy's log / sqrt of negatives
              pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")]


def _x64(*dtypes):
    """``jax.enable_x64`` on where any of ``dtypes`` is 64-bit."""
    return jax.enable_x64(any(np.dtype(d) in (np.int64, np.float64, np.complex128) for d in dtypes))


def _np(x):
    return x.numpy() if isinstance(x, (tj.Tensor, tj.Variable)) else np.asarray(x)


def _jnp_dtype(jfun, *args, **kwargs):
    """The dtype jax.numpy's ``jfun`` gives these arguments (traced abstractly by jax.eval_shape, nothing run): a
    Tensor as an array of its dtype, a list as the NumPy array of it, Python scalars as they are (weak)."""
    def spec(a):
        if isinstance(a, (tj.Tensor, tj.Variable)):
            return jax.ShapeDtypeStruct(tuple(a.shape), a.dtype)
        return np.asarray(a) if isinstance(a, (list, tuple)) else a
    return np.dtype(jax.eval_shape(lambda *xs: jfun(*xs, **kwargs), *[spec(a) for a in args]).dtype)


def _match(got, want, dtype, rtol=1e-6, atol=0.0, what=""):
    """TF's MathTest.match: an ndarray-like Tensor of the expected dtype and shape, values within rtol (NaN = NaN)."""
    assert isinstance(got, tj.Tensor), what
    want = np.asarray(want)
    assert got.dtype == dtype, f"{what}: dtype {got.dtype} != {dtype}"
    assert tuple(got.shape) == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    g = got.numpy()
    if want.dtype == bool or np.issubdtype(want.dtype, np.integer):
        np.testing.assert_array_equal(g, want, err_msg=what)
    else:
        np.testing.assert_allclose(g, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


# TF's array transforms: a Python value, tf.convert_to_tensor, np.array (as is, float32, float64), np_array_ops.array
# (as is, float32, float64)
TRANSFORMS = {
    "python": lambda v: v,
    "tensor": tj.constant,
    "numpy": np.array,
    "numpy_f32": lambda v: np.array(v, np.float32),
    "numpy_f64": lambda v: np.array(v, np.float64),
    "tnp": tnp.array,
    "tnp_f32": lambda v: tnp.array(v, dtype=np.float32),
    "tnp_f64": lambda v: tnp.array(v, dtype=np.float64),
}


# == linalg_ops_test.py: logdet, adjoint, pinv, lu_matrix_inverse, lu_solve ======================================

def _random_pd_matrix(n, rng, dtype):
    """linalg_ops_test._RandomPDMatrix."""
    temp = rng.randn(n, n).astype(dtype)
    if np.dtype(dtype).kind == "c":
        temp.imag = rng.randn(n, n)
    return np.conj(temp).dot(temp.T)


LOGDET_DTYPES = ((np.float32, 0.05), (np.float64, 1e-5), (np.complex64, 0.05), (np.complex128, 1e-5))


def _slogdet_value_and_gradient(m):
    x = tj.constant(m)
    with tj.GradientTape() as tape:
        tape.watch(x)
        sign, logabs = L.slogdet(x)
    return sign.numpy(), logabs, tape.gradient(logabs, x)


def test_logdet_of_random_positive_definite_matrices():
    """LogdetTest.test_works_with_five_different_random_pos_def_matrices: n = 1..5 in four dtypes, drawn in TF's
    order from RandomState(42); the value (TF's atol) and its real dtype, and the gradient against TF's tape
    gradient of tf.linalg.logdet (through its Cholesky; A^-1 for these Hermitian matrices, conjugated as TF)."""
    rng = np.random.RandomState(42)
    cases = [(n, dt, atol) for n in range(1, 6) for dt, atol in LOGDET_DTYPES]
    for (n, dt, atol), want, want_grad in zip(cases, LOGDET_VALUES, LOGDET_GRADS):
        m = _random_pd_matrix(n, rng, dt)
        with _x64(dt):
            sign, logabs, g = _slogdet_value_and_gradient(m)
        assert logabs.dtype == np.finfo(dt).dtype and g.dtype == dt
        np.testing.assert_allclose(sign, 1, atol=1e-5)
        np.testing.assert_allclose(logabs.numpy(), want, atol=atol)
        g = g.numpy()
        g = np.stack([g.real, g.imag]) if g.dtype.kind == "c" else g
        close_to_tf(g, want_grad, rtol=2e-3 if dt in (np.float32, np.complex64) else 1e-7)


@pytest.mark.parametrize("dt,atol", LOGDET_DTYPES)
def test_logdet_underflow_case(dt, atol):
    """LogdetTest.test_works_with_underflow_case: 1e-6 * I of size 20 (its determinant underflows); TF 2.21 gives
    20 log(1e-6) = -276.3102111592855."""
    with _x64(dt):
        sign, logabs = L.slogdet((np.eye(20) * 1e-6).astype(dt))
    np.testing.assert_allclose(logabs.numpy(), -276.3102111592855, atol=atol)
    np.testing.assert_allclose(sign.numpy(), 1)


def test_logdet_non_spd_positive_determinant_and_negative_determinant():
    """LogdetTest.test_works_with_non_spd_positive_determinant_matrix (-I: NumPy's logdet 0; TF 2.21's logdet, a
    Cholesky, gives NaN, its slogdet (1, 0)) and test_negative_determinant_returns_nan (diag(1, -1): sign -1, so
    logdet = log|det| + log(sign) is NaN)."""
    with jax.enable_x64(True):
        sign, logabs = L.slogdet(np.array([[-1.0, 0.0], [0.0, -1.0]]))
        assert (sign.numpy(), logabs.numpy()) == (1.0, 0.0)
        sign, logabs = L.slogdet(np.array([[1.0, 0.0], [0.0, -1.0]]))
        assert (sign.numpy(), logabs.numpy()) == (-1.0, 0.0)
        assert np.isnan((logabs + tnp.log(sign)).numpy())


def test_logdet_gradient_non_spd_positive_determinant():
    """LogdetTest.test_gradient_non_spd_positive_determinant_matrix: at [[-1, 0.5], [0, -2]] the gradient equals
    the numerical one, A^-T = [[-1, 0], [-0.25, -0.5]] (TF 2.21's slogdet gradient; its logdet's is NaN there)."""
    m = np.array([[-1.0, 0.5], [0.0, -2.0]])
    want = [[-1.0, 0.0], [-0.25, -0.5]]
    with jax.enable_x64(True):
        _, logabs, g = _slogdet_value_and_gradient(m)
        np.testing.assert_allclose(logabs.numpy(), np.log(2.0))
        np.testing.assert_allclose(g.numpy(), want, rtol=1e-12)
        # the numerical Jacobian TF's gradient checker compares with
        eps, num = 1e-6, np.zeros((2, 2))
        for i, j in np.ndindex(2, 2):
            d = np.zeros((2, 2))
            d[i, j] = eps
            num[i, j] = (np.linalg.slogdet(m + d)[1] - np.linalg.slogdet(m - d)[1]) / (2 * eps)
        np.testing.assert_allclose(g.numpy(), num, atol=1e-5, rtol=1e-5)
        x, t = tj.constant(m), tj.constant(np.array([[1.0, 2.0], [3.0, 4.0]]))
        with tj.ForwardAccumulator(x, t) as acc:
            y = L.slogdet(x)[1]
        np.testing.assert_allclose(acc.jvp(y).numpy(), np.sum(np.asarray(want) * t.numpy()), rtol=1e-12)


@pytest.mark.parametrize("dt", [np.float64, np.complex64, np.complex128])
def test_adjoint(dt):
    """AdjointTest.test_compare_to_numpy: the conjugate transpose of [[1+1j, 2+2j, 3+3j], [4+4j, 5+5j, 6+6j]] (its
    real part for float64), shape (3, 2), exactly np.conj(m.T); its gradient for an output gradient w is conj(w)^T
    (TF 2.21: [[0, 2, 4], [1, 3, 5]] for float64, [[-6j, 2-8j, 4-10j], [1-7j, 3-9j, 5-11j]] for complex)."""
    m = np.array([[1 + 1j, 2 + 2j, 3 + 3j], [4 + 4j, 5 + 5j, 6 + 6j]]).astype(dt)
    if dt == np.float64:
        w, want = np.arange(6.0).reshape(3, 2), [[0, 2, 4], [1, 3, 5]]
    else:
        w = (np.arange(6).reshape(3, 2) + 1j * np.arange(6, 12).reshape(3, 2)).astype(dt)
        want = [[-6j, 2 - 8j, 4 - 10j], [1 - 7j, 3 - 9j, 5 - 11j]]
    with _x64(dt):
        y, (g,) = tape_gradients(lambda a: tnp.conj(L.matrix_transpose(a)), [m], output_gradients=w)
        assert y.shape == (3, 2) and y.dtype == dt and g.dtype == dt
        np.testing.assert_array_equal(y.numpy(), np.conj(m.T))
        np.testing.assert_array_equal(g.numpy(), np.asarray(want, dt))


PINV_SYM = np.array([[1., .4, .5], [.4, .2, .25], [.5, .25, .35]])
PINV_NS = np.array([[1., .4, .5, 1.], [.4, .2, .25, 2.], [.5, .25, .35, 3.]])


def _expected_pinv(a, rcond):
    """_PinvTest.expected_pinv: np.linalg.pinv matrix by matrix (NumPy's batch rcond semantics differ), with TF's
    default rcond 10 max(m, n) eps of a's dtype."""
    if rcond is None:
        rcond = np.full(a.shape[:-2], 10. * max(a.shape[-2:]) * np.finfo(a.dtype).eps)
    return np.stack([np.linalg.pinv(m, rcond=r) for m, r in zip(a, rcond)])


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("custom_rcond", [False, True])
@pytest.mark.parametrize("name", ["symmetric", "nonsquare"])
def test_pinv(name, custom_rcond, dt):
    """_PinvTest.test_symmetric / test_nonsquare in PinvTest{Dynamic32,Static64}{Default,Custom}Rcond: the batch
    (a + 1, a) / (a + 0.5, a), rcond None or per matrix ([0, 0.01] / [0, 0.25]: the smallest one / two singular
    values cut); values against NumPy (TF's tolerances), the gradient for an output gradient cos(index) against TF
    2.21's tape gradient (float64's, checked in float32 with a tolerance scaled to its largest entry)."""
    a = np.stack([PINV_SYM + 1., PINV_SYM]) if name == "symmetric" else np.stack([PINV_NS + .5, PINV_NS])
    a = a.astype(dt)
    rcond = None if not custom_rcond else np.array([0., 0.01] if name == "symmetric" else [0., 0.25], dt)
    w = np.cos(np.arange(a.size)).reshape(a.shape[0], a.shape[2], a.shape[1]).astype(dt)
    with _x64(dt):
        y, (g,) = tape_gradients(lambda x: L.pinv(x) if rcond is None else L.pinv(x, rcond), [a], output_gradients=w)
        assert y.dtype == dt and g.dtype == dt
    tol = (2e-5, 2e-5) if name == "symmetric" else (1e-4, 1e-5)
    want = _expected_pinv(a, rcond)
    assert y.shape == want.shape
    np.testing.assert_allclose(y.numpy(), want, rtol=tol[0], atol=tol[1])
    want_g = np.asarray(PINV_GRADS[name, custom_rcond])
    if dt == np.float64:
        np.testing.assert_allclose(g.numpy(), want_g, rtol=1e-7, atol=1e-9 * np.abs(want_g).max())
    else:
        np.testing.assert_allclose(g.numpy(), want_g, rtol=0, atol=1e-5 * np.abs(want_g).max())


LU_X = np.array([[1, 2], [3, 4]], np.float32)
LU_BATCH = np.array([[[1, 2], [3, 4]], [[7, 8], [3, 4]], [[0.25, 0.5], [0.75, -2.]]], np.float32)


@pytest.mark.parametrize("batch", [False, True])
def test_lu_matrix_inverse_as_inv(batch):
    """_LUMatrixInverse.test_non_batch / test_batch: lu_matrix_inverse(*lu(x)) is inv(x) (NumPy's, TF's rtol 1e-3);
    the gradient for an output gradient cos(index) against TF 2.21's tape gradient of tf.linalg.inv."""
    x = LU_BATCH if batch else LU_X
    w = np.cos(np.arange(x.size)).reshape(x.shape).astype(np.float32)
    y, (g,) = tape_gradients(L.inv, [x], output_gradients=w)
    assert y.shape == x.shape
    np.testing.assert_allclose(y.numpy(), np.linalg.inv(x), rtol=1e-3, atol=0)
    np.testing.assert_allclose(g.numpy(), np.asarray(INV_GRAD)[:len(x)] if batch else INV_GRAD[0], rtol=2e-5,
                               atol=1e-6)


@pytest.mark.parametrize("batch", [False, True])
def test_lu_solve_as_solve(batch):
    """_LUSolve.test_non_batch / test_batch_broadcast: lu_solve(*lu(x), rhs) with rhs [[1], [1]] broadcast against
    the batch is solve(x, rhs) (NumPy's solve(x, rhs[None]), TF's rtol 1e-3); the gradients of sum(y * cos(index))
    with respect to x and rhs against TF 2.21's tape gradients (rhs's summed over the batch)."""
    x = LU_BATCH if batch else LU_X
    rhs = np.array([[1, 1]], np.float32).T
    w = np.cos(np.arange(x.size // 2)).reshape(x.shape[:-1] + (1,)).astype(np.float32)
    y, (gx, gr) = tape_gradients(lambda a, b: tnp.sum(L.solve(a, b) * w), [x, rhs])
    want = np.linalg.solve(x, rhs[np.newaxis]) if batch else np.linalg.solve(x, rhs)
    sol = L.solve(x, rhs)
    assert sol.shape == want.shape
    np.testing.assert_allclose(sol.numpy(), want, rtol=1e-3, atol=0)
    want_gx, want_gr = (SOLVE_GRAD_BATCH if batch else SOLVE_GRAD)
    np.testing.assert_allclose(gx.numpy(), want_gx, rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(gr.numpy(), want_gr, rtol=2e-5, atol=1e-6)


# == np_math_ops_test.py: binary and unary ops over TF's array transforms and dtype promotion ====================

BIN_OPERANDS = [(5, 2), (5, [2, 3]), (5, [[2, 3], [6, 7]]), ([1, 2, 3], 7), ([1, 2, 3], [5, 6, 7])]
KRON_OPERANDS = [
    ([1, 2], [3, 4]), ([[1.0, -2.0], [3.0, 4.0]], [[5.0, 6.0], [-7.0, 8.0]]),
    (np.arange(100).reshape(2, 5, 2, 5), np.arange(24).reshape(2, 3, 4)), ([[[0, 1], [2, 3]]], [[1, 2]]),
    ([2, 3], [[[[1, 2]]]]), ([[[1]]], [[1, 2], [3, 4]]), (5, [[1, 2], [3, 4]]), ([[1, 2], [3, 4]], 3.5),
    (np.zeros((2, 0, 2), np.float32), np.ones((1, 3), np.float32)),
    (np.ones((2, 2), np.int32), np.zeros((0, 3, 4), np.int32)), (5, np.zeros((0, 3))), (5, np.array(3.5)),
]
BINARY = {  # TF's method: (op, operands)
    "dot": BIN_OPERANDS + [([1, 2], [[5, 6, 7], [8, 9, 10]]),
                           (np.arange(30).reshape(2, 3, 5).tolist(), np.arange(385).reshape(7, 5, 11).tolist())],
    "minimum": BIN_OPERANDS, "maximum": BIN_OPERANDS,
    "matmul": [([[1, 2]], [[3, 4, 5], [6, 7, 8]])],
    "vdot": [([[1, 2], [3, 4]], [[3, 4], [6, 7]]), ([[1, 2], [3, 4]], [3, 4, 6, 7])],
    "hypot": BIN_OPERANDS, "logaddexp": BIN_OPERANDS, "logaddexp2": BIN_OPERANDS,
    "kron": KRON_OPERANDS,
}
BINARY_CASES = [(op, i) for op, operands in BINARY.items() for i in range(len(operands))]


@pytest.mark.parametrize("op,i", BINARY_CASES)
def test_binary_op_over_array_transforms(op, i):
    """MathTest._testBinaryOp's first loop (testDot, testMinimum, testMaximum, testMatmul, testVDot, testHypot,
    testLogaddexp, testKron): both operands through each transform; NumPy's values, jax.numpy's dtype."""
    a, b = BINARY[op][i]
    for name, fn in TRANSFORMS.items():
        x, y = fn(a), fn(b)
        want = getattr(np, op)(_np(x), _np(y))
        _match(getattr(tnp, op)(x, y), want, _jnp_dtype(getattr(jnp, op), x, y), what=f"{op} {name}")


PROMOTION_TYPES = [np.int32, np.int64, np.float32, np.float64]


# the promotion loop on each op's first and last operands (TF's runs all of them: 16 dtype pairs each, slow here)
PROMOTION_CASES = sorted({(op, i) for op, operands in BINARY.items() for i in (0, len(operands) - 1)})


@pytest.mark.parametrize("op,i", PROMOTION_CASES)
def test_binary_op_dtype_promotion(op, i):
    """MathTest._testBinaryOp's promotion loop: operands as tnp.array(..., dtype) for int32 / int64 / float32 /
    float64 on each side, under x64 (so that the 64-bit types are themselves); NumPy's values, jax.numpy's dtype
    (int32 with float32 is float32; NumPy, and TF's tnp, give float64). The operands go through np.asarray first:
    tnp.array of Python floats with an int dtype raises (test_array_of_python_floats_with_int_dtype)."""
    a, b = BINARY[op][i]
    with jax.enable_x64(True):
        for ta in PROMOTION_TYPES:
            for tb in PROMOTION_TYPES:
                x, y = tnp.array(np.asarray(a), dtype=ta), tnp.array(np.asarray(b), dtype=tb)
                want = getattr(np, op)(np.asarray(a).astype(ta), np.asarray(b).astype(tb))
                _match(getattr(tnp, op)(x, y), want, _jnp_dtype(getattr(jnp, op), x, y),
                       what=f"{op}({np.dtype(ta).name}, {np.dtype(tb).name})")


def test_array_of_python_floats_with_int_dtype():
    """testKron's promotion loop: np_array_ops.array([[1.0, -2.0], [3.0, 4.0]], dtype=int32) and array(3.5,
    dtype=int32) are [[1, -2], [3, 4]] and 3 in TF 2.21 (and jax.numpy, NumPy); then kron of them."""
    a = tnp.array([[1.0, -2.0], [3.0, 4.0]], dtype=np.int32)
    b = tnp.asarray(3.5, dtype=np.int32)
    _match(a, [[1, -2], [3, 4]], np.int32)
    _match(b, 3, np.int32)
    _match(tnp.kron(a, b), [[3, -6], [9, 12]], np.int32)


def test_dot_of_python_int_and_list_under_x64():
    """testDot's first loop under x64: dot(5, [2, 3]) is [10, 15] (NumPy, TF 2.21)."""
    with jax.enable_x64(True):
        got = tnp.dot(5, [2, 3])
    np.testing.assert_array_equal(got.numpy(), [10, 15])


def test_matmul_error():
    """MathTest.testMatmulError: a 0-d operand raises ValueError, on either side."""
    with pytest.raises(ValueError):
        tnp.matmul(tnp.ones([], np.int32), tnp.ones([2, 3], np.int32))
    with pytest.raises(ValueError):
        tnp.matmul(tnp.ones([2, 3], np.int32), tnp.ones([], np.int32))


def test_lcm():
    """MathTest.testLcm: lcm of int8 6 and 22 is int8 66."""
    _match(tnp.lcm(tnp.array(6, dtype=np.int8), tnp.array(22, dtype=np.int8)), np.int8(66), np.int8)


@pytest.mark.parametrize("op", ["log", "exp", "tanh", "sqrt", "argsort"])
def test_unary_op_over_array_transforms(op):
    """MathTest._testUnaryOp (testLog, testExp, testTanh, testSqrt, testArgsort's first part) on 5, [2, 3] and
    [[2, -3], [-6, 7]] through each transform: NumPy's values (NaN for logs and roots of negatives), jax.numpy's
    dtype. (argsort of the 0-d 5 is test_argsort_errors_and_scalars's.)"""
    for v in ([5] if op != "argsort" else []) + [[2, 3], [[2, -3], [-6, 7]]]:
        for name, fn in TRANSFORMS.items():
            x = fn(v)
            _match(getattr(tnp, op)(x), getattr(np, op)(_np(x)), _jnp_dtype(getattr(jnp, op), x), what=f"{op} {name}")


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64, np.complex64, np.complex128, np.int32])
def test_angle(dt):
    """MathTest.testAngle: the angle of reals keeps their dtype (float16 too: TF 2.21 gives float32), with deg=True
    as well; of complex64 / complex128 the real dtype; of int32 jax.numpy's float32 (NumPy float64)."""
    if np.dtype(dt).kind == "c":
        x = np.array([1 + 2j, -1 - 2j, 0j], dt)
    elif np.dtype(dt).kind == "i":
        x = np.array([-3, 0, 3], dt)
    else:
        x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dt)
    rtol = 1e-3 if dt == np.float16 else 1e-6
    with _x64(dt):
        for deg in (False, True):
            if deg and np.dtype(dt).kind != "f":
                continue
            _match(tnp.angle(x, deg=deg), np.angle(x, deg=deg), _jnp_dtype(jnp.angle, x, deg=deg), rtol=rtol)


def test_hypot_large_finite_and_special_values():
    """MathTest.testHypotLargeFiniteNoOverflow (float64 up to 1e308: finite, NumPy's; TF 2.21 overflows to inf),
    the same in float32 up to 3e38, and testHypotSpecialCases (an infinite operand gives inf even with NaN; TF 2.21
    NaN)."""
    with jax.enable_x64(True):
        x = np.array([1e200, 1e300, 1e308, 1e200, 0.0, -1e200])
        y = np.array([1e200, 1e300, 1e308, 1.0, 1e300, -1e200])
        got = tnp.hypot(x, y)
        assert np.all(np.isfinite(got.numpy()))
        _match(got, np.hypot(x, y), np.float64)
        x = np.array([np.inf, -np.inf, np.nan, np.inf, 0.0, -3.0])
        y = np.array([np.nan, np.nan, np.inf, 5.0, 0.0, -4.0])
        np.testing.assert_equal(tnp.hypot(x, y).numpy().tolist(), np.hypot(x, y).tolist())
    x = np.array([1e30, 3e38, 1e30, 0.0, -1e30], np.float32)
    y = np.array([1e30, 1e38, 1.0, 3e38, -1e30], np.float32)
    _match(tnp.hypot(x, y), np.hypot(x, y).astype(np.float32), np.float32)
    assert np.all(np.isfinite(tnp.hypot(x, y).numpy()))


@pytest.mark.parametrize("args", [
    ([1, 2, 3], [4, 5, 6]), (np.array([1, 2], np.int32), np.array([3, 4], np.int32)),
    (np.array([1, 2], np.int64), np.array([3, 4], np.int64)), (1, 2), ([1.0, 2.0], [3.0, 4.0])],
    ids=["int_lists", "int32", "int64", "scalars", "float_lists"])
@pytest.mark.parametrize("op", ["logaddexp", "logaddexp2"])
def test_logaddexp_non_float_inputs(op, args):
    """MathTest.testLogaddexpNonFloatInputs: ints, Python scalars and lists are promoted to float; NumPy's values
    (TF 2.21 raises TypeError for lists), jax.numpy's float32."""
    x1, x2 = args
    _match(getattr(tnp, op)(x1, x2), getattr(np, op)(np.asarray(x1), np.asarray(x2)), np.float32)


# == sorting, joining, counting ====================================================================================

def test_argsort_stability_and_errors():
    """MathTest.testArgsort: a stable argsort of 100 zeros is 0..99 (jax.numpy's stable=True; kind='stable' is
    refused as jax.numpy refuses it); axis 1 of a vector and -3 of a matrix raise ValueError 'out of bounds'."""
    _match(tnp.argsort(np.zeros(100), stable=True), np.arange(100), np.int32)
    with pytest.raises(TypeError, match="kind"):
        tnp.argsort(np.zeros(100), kind="stable")
    with pytest.raises(ValueError, match="out of bounds"):
        tnp.argsort(tnp.array([3, 1, 2]), axis=1)
    with pytest.raises(ValueError, match="out of bounds"):
        tnp.argsort(tnp.array([[3, 1], [6, 5]]), axis=-3)


def test_argsort_of_scalars():
    """testArgsort's 0-d part: NumPy and TF 2.21 give [0] for axis -1 and 0; jax.numpy raises for every integer
    axis and tj.numpy with it (a ValueError); axis=None flattens to [0] everywhere."""
    _match(tnp.argsort(tnp.array(5), axis=None), [0], np.int32)
    for axis in (-1, 0, 1):
        with pytest.raises(ValueError, match="out of bounds"):
            tnp.argsort(tnp.array(5), axis=axis)


def test_argsort_complex():
    """testArgsortRaisesErrorForComplexDtypes (nested in TF's testArgsort, never run): TF raises TypeError for
    complex64; NumPy and jax.numpy sort complex numbers by real, then imaginary part, and so does tj.numpy."""
    z = np.array([3 + 4j, 1 + 2j, 1 - 2j, 5 + 6j], np.complex64)
    _match(tnp.argsort(z), np.argsort(z), np.int32)


A_SORT = [[3, 1, 2], [6, 5, 4]]


def test_sort():
    """MathTest.testSort: axes default, 0 and -1 (and None: flattened); a 0-d array and axes 2 / -3 raise
    ValueError."""
    a = tnp.array(A_SORT)
    for axis in (-1, 0, None):
        _match(tnp.sort(a) if axis == -1 else tnp.sort(a, axis=axis), np.sort(np.array(A_SORT), axis=axis), np.int32)
    for arr, axis in ((tnp.array(5), -1), (a, 2), (a, -3)):
        with pytest.raises(ValueError):
            tnp.sort(arr, axis=axis)


def test_concatenate():
    """MathTest.testConcatenate (axes 0, 1, -1; 2 and -3 raise ValueError) and testConcatenateAxisNone (operands
    flattened: [1, 2] with [[3], [4]] is [1, 2, 3, 4]; one array [[5, 6]] is [5, 6]; TF 2.21 raises ValueError for
    axis=None); an empty operand; int32 with float32 is float32 (jax.numpy; NumPy float64)."""
    a, b = tnp.array([[1, 2], [3, 4]]), tnp.array([[5, 6], [7, 8]])
    for axis in (0, 1, -1):
        _match(tnp.concatenate([a, b], axis=axis), np.concatenate([_np(a), _np(b)], axis=axis), np.int32)
    for axis in (2, -3):
        with pytest.raises(ValueError):
            tnp.concatenate([a, b], axis=axis)
    _match(tnp.concatenate([tnp.array([1, 2]), tnp.array([[3], [4]])], axis=None), [1, 2, 3, 4], np.int32)
    _match(tnp.concatenate(tnp.array([[5, 6]]), axis=None), [5, 6], np.int32)
    _match(tnp.concatenate([tnp.zeros((0, 2)), tnp.ones((1, 2))]), np.ones((1, 2)), np.float32)
    _match(tnp.concatenate([np.array([1, 2], np.int32), np.array([1.5], np.float32)]), [1, 2, 1.5], np.float32)


def test_count_nonzero():
    """MathTest.testCountNonzero: all, axis 0 (and -1, keepdims, an empty array's axis 0); axes 2 and -3 raise
    ValueError."""
    a = np.array([[0, 1, 2], [3, 0, 0]])
    _match(tnp.count_nonzero(a), np.count_nonzero(a), np.int32)
    for axis in (0, -1):
        _match(tnp.count_nonzero(a, axis=axis), np.count_nonzero(a, axis=axis), np.int32)
    _match(tnp.count_nonzero(a, axis=1, keepdims=True), [[2], [1]], np.int32)
    _match(tnp.count_nonzero(np.zeros((0, 3)), axis=0), [0, 0, 0], np.int32)
    for axis in (2, -3):
        with pytest.raises(ValueError):
            tnp.count_nonzero(a, axis=axis)


@pytest.mark.parametrize("call", [
    lambda: tnp.sort(tnp.array(A_SORT), axis=2), lambda: tnp.concatenate([tnp.ones((2, 2))] * 2, axis=-3),
    lambda: tnp.count_nonzero(tnp.ones((2, 3)), axis=2), lambda: tnp.diff(tnp.ones((2, 3)), axis=-3)],
    ids=["sort", "concatenate", "count_nonzero", "diff"])
def test_out_of_bounds_axis_message(call):
    """testSort / testConcatenate / testCountNonzero / testDiff: assertRaisesRegex(ValueError, 'out of bounds')."""
    with pytest.raises(ValueError, match="out of bounds"):
        call()


ARG_DATA = [0, 5, [1], [1, 2, 3], [[1, 2, 3]], [[4, 6], [7, 8]], [[[4, 6], [9, 10]], [[7, 8], [12, 34]]]]


def test_argmax_argmin():
    """MathTest.testArgMaxArgMin: every datum through each transform, flattened and along every axis (NumPy's
    indices, jax.numpy's int32). A 0-d datum with an axis raises, as in jax.numpy (NumPy treats it as 1-d: 0)."""
    for d in ARG_DATA:
        for name, fn in TRANSFORMS.items():
            arr = fn(d)
            nd = np.ndim(_np(arr))
            for axis in [None] + list(range(-nd, nd)):
                for op in ("argmax", "argmin"):
                    _match(getattr(tnp, op)(arr, axis=axis), getattr(np, op)(_np(arr), axis=axis), np.int32,
                           what=f"{op}({d}, {axis}) {name}")
    for op in (tnp.argmax, tnp.argmin):
        for axis in (-1, 0):
            with pytest.raises((ValueError, IndexError)):
                op(tnp.array(5), axis=axis)


# == isclose / allclose and the isinf family ======================================================================

@pytest.mark.parametrize("equal_nan", [False, True])
def test_isclose_equal_nan(equal_nan):
    """MathTest.testIsCloseEqualNan."""
    a = np.asarray([1, 1, np.nan, 1, np.nan], np.float32)
    b = np.asarray([1, 2, 1, np.nan, np.nan], np.float32)
    _match(tnp.isclose(a, b, equal_nan=equal_nan), np.isclose(a, b, equal_nan=equal_nan), np.bool_)


@pytest.mark.parametrize("dt", [np.int32, np.int64])
def test_isclose_integer_tolerances(dt):
    """MathTest.testIsCloseIntegerTolerances: integer inputs honour rtol and atol (TF 2.21 compared them with
    equality: all False)."""
    a = np.array([[-13, -5, -12], [3, 17, -6], [5, 3, -8], [-18, 19, 10]], dt)
    b = np.array([-7], dt)
    c, d = np.array([100, 200, -300, 0], dt), np.array([105, 900, -300, 4], dt)
    with _x64(dt):
        _match(tnp.isclose(a, b, rtol=9, atol=0), np.isclose(a, b, rtol=9, atol=0), np.bool_)
        assert bool(tnp.allclose(a, b, rtol=9, atol=0)) == np.allclose(a, b, rtol=9, atol=0)
        _match(tnp.isclose(c, d, rtol=0, atol=5), np.isclose(c, d, rtol=0, atol=5), np.bool_)


@pytest.mark.parametrize("a,b,rtol,atol", [
    (np.array([127, -128, -128], np.int8), np.array([-128, -128, -127], np.int8), 0, 5),  # SignedIntegerOverflow
    (np.array([-128], np.int8), np.array([-128], np.int8), 5, 0),  # MinIntIdenticalValues
    (np.array([-127], np.int8), np.array([-128], np.int8), 5, 0),  # MinIntNeighborDivergesFromNumPy
    (np.array([1, 250, 7], np.uint8), np.array([2, 5, 7], np.uint8), 0, 3),  # UnsignedNoWraparound
    (np.array([1000000, 1000001, 5], np.int32), np.array([1000001, 1000000, 900], np.int32), None, None),
    (np.array([1000000, 1000001, 5], np.int32), np.array([1000001, 1000000, 900], np.int32), 1e-6, 0.5),
], ids=["int8_overflow", "int8_min_identical", "int8_min_neighbor", "uint8_wraparound", "int_default_tol",
        "int_float_tol"])
def test_isclose_integer_edge_cases(a, b, rtol, atol):
    """MathTest.testIsCloseSignedIntegerOverflow / MinIntIdenticalValues / MinIntNeighborDivergesFromNumPy /
    UnsignedNoWraparound / IntegerFloatTolerancePromotes: NumPy's answers (jax.numpy computes in floats as NumPy;
    TF's integer arithmetic documents [False] for -127 vs -128 with rtol=5, where NumPy and tj say True)."""
    kw = {} if rtol is None else {"rtol": rtol, "atol": atol}
    _match(tnp.isclose(a, b, **kw), np.isclose(a, b, **kw), np.bool_)


@pytest.mark.parametrize("fn", ["isclose", "allclose"])
@pytest.mark.parametrize("dt", [np.int32, np.float32])
def test_close_non_broadcastable_shapes(fn, dt):
    """MathTest.testCloseNonBroadcastableShapesXla: shapes (4,) and (8,) raise ValueError, eagerly and inside a
    compiled tj.function (TF 2.21's allclose of int32 returned False)."""
    a, b = tj.constant(np.arange(4, dtype=dt)), tj.constant(np.arange(8, dtype=dt))
    with pytest.raises(ValueError, match="broadcast"):
        getattr(tnp, fn)(a, b)
    with pytest.raises(ValueError, match="broadcast"):
        tj.function(getattr(tnp, fn), jit_compile=True)(a, b)


def test_isinf_family():
    """MathTest.testIsinf / testIsneginf / testIsposinf / testIsInfFamilyFloatInputs / testIsInfFamilyNonFloatInputs
    / testIsInf: NumPy's answers for float64 / float32 with infinities and NaN, complex (isinf: either part
    infinite), ints, lists, bools and Tensors (all False), int32's extremes; isposinf / isneginf of complex raise
    ValueError (jax.numpy's; NumPy TypeError "ambiguous")."""
    fns = ("isinf", "isposinf", "isneginf")
    with jax.enable_x64(True):
        for fn in fns:
            x = np.array([1.0, np.inf, -np.inf, np.nan], np.float64)
            _match(getattr(tnp, fn)(x), getattr(np, fn)(x), np.bool_)
        c = np.array([1 + 2j, complex(np.inf, 0), complex(0, np.inf), complex(np.nan, 0)])
        _match(tnp.isinf(c), np.isinf(c), np.bool_)
    non_float = [[1, 2, 3], np.array([1, 2, 3], np.int32), np.array([1, 2, 3], np.int64),
                 np.array([[1, 2], [3, 4]], np.int32), np.array([True, False]), tj.constant([1, 2, 3]),
                 np.array([1.0, np.inf, -np.inf], np.float32)]
    for fn in fns:
        for arg in non_float:
            _match(getattr(tnp, fn)(arg), getattr(np, fn)(_np(arg)), np.bool_, what=f"{fn}({arg})")
        for v in (-2147483648, 2147483647):
            assert not bool(getattr(tnp, fn)(tj.constant(v)))
    for fn in ("isposinf", "isneginf"):
        with pytest.raises(ValueError):
            getattr(tnp, fn)(np.array([1 + 2j]))


def test_signbit():
    """MathTest.testSignBit: [-1.5, -0.0, 0.0, 1.5] through each transform is [True, True, False, False] (TF 2.21:
    -0.0 False); NaN False and -NaN True (TF 2.21: False); ints [-3, 3]; bfloat16 -0.0 True."""
    for name, fn in TRANSFORMS.items():
        _match(tnp.signbit(fn([-1.5, -0.0, 0.0, 1.5])), [True, True, False, False], np.bool_, what=name)
    _match(tnp.signbit([np.nan, -np.nan]), [False, True], np.bool_)
    _match(tnp.signbit([-3, 3]), [True, False], np.bool_)
    _match(tnp.signbit(np.array([-0.0], jnp.bfloat16)), [True], np.bool_)


# == cross, diff, average, clip, ptp ==============================================================================

def test_cross_inside_function():
    """MathTest.testCrossXlaUnknownBatchDim / testCrossDynamicUnknownBatchDim: cross of (2, 3) rows inside a compiled
    tj.function (and eagerly) is NumPy's; of 2-vectors it is the z component a0 b1 - a1 b0."""
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(6, 12, dtype=np.float32).reshape(2, 3)
    for f in (tnp.cross, tj.function(tnp.cross, jit_compile=True), tj.function(tnp.cross, jit_compile=False)):
        _match(f(a, b), np.cross(a, b), np.float32)
    a2 = np.arange(4, dtype=np.float32).reshape(2, 2)
    b2 = np.arange(4, 8, dtype=np.float32).reshape(2, 2)
    _match(tj.function(tnp.cross)(a2, b2), a2[..., 0] * b2[..., 1] - a2[..., 1] * b2[..., 0], np.float32)


def test_diff():
    """MathTest.testDiff and testDiffErrorMessage: axes default / 0 / -1, n=2, int32, bool (NumPy: XOR), float32,
    n=0; a 0-d array, axes 2 / -3 and n=-1 raise ValueError (TF's message names n)."""
    a = np.array([[1, 2, 3], [4, 6, 8]])
    for kw in ({}, {"axis": 0}, {"axis": -1}, {"n": 2, "axis": 1}):
        _match(tnp.diff(tnp.array(a), **kw), np.diff(a, **kw), np.int32, what=str(kw))
    for x, kw in ((np.array([1, 3, 6], np.int32), {}), (np.array([True, False, True]), {}),
                  (np.array([1.5, 2.5, 4.0], np.float32), {}), (np.array([1, 3, 6], np.int32), {"n": 0})):
        _match(tnp.diff(tnp.array(x), **kw), np.diff(x, **kw), np.diff(x, **kw).dtype)
    for x, kw in ((tnp.array(5), {}), (tnp.array(a), {"axis": 2}), (tnp.array(a), {"axis": -3})):
        with pytest.raises(ValueError):
            tnp.diff(x, **kw)
    with pytest.raises(ValueError, match=r"\bn\b"):
        tnp.diff(tnp.array([1, 2, 3]), n=-1)


def test_average_wrong_shape_and_zero_weights():
    """MathTest.testAverageWrongShape: weights that fit neither the input nor the axis raise ValueError (TF:
    InvalidArgumentError); testAverageZeroWeights: weights summing to zero give NaN, as jax.numpy and TF 2.21
    (NumPy raises ZeroDivisionError; the newer TF test InvalidArgumentError); and a valid weighted average with
    returned=True and keepdims."""
    for kw in ({"weights": np.ones([2, 4])}, {"axis": 0, "weights": np.ones([2, 4])},
               {"axis": 0, "weights": np.ones([])}, {"axis": 0, "weights": np.ones([5])}):
        with pytest.raises(ValueError):
            tnp.average(np.ones([2, 3]), **kw)
    assert np.isnan(tnp.average(tnp.array([1, 2, 3]), weights=tnp.array([0, 0, 0])).numpy())
    got = tnp.average(tnp.ones([2, 2]), axis=0, weights=tnp.array([[0, 1], [0, 1]]))
    _match(got, [np.nan, 1.0], np.float32)
    x = np.arange(6.0).reshape(2, 3)
    avg, total = tnp.average(x, axis=0, weights=np.array([1.0, 3.0]), returned=True)
    want_avg, want_total = np.average(x, axis=0, weights=np.array([1.0, 3.0]), returned=True)
    _match(avg, want_avg, np.float32)
    _match(total, want_total, np.float32)
    _match(tnp.average(x, axis=-1, keepdims=True), np.average(x, axis=-1, keepdims=True), np.float32)
    _match(tnp.average(tnp.array([1, 2, 4])), 7 / 3, np.float32)


CLIP_CASES = [(0, -1, 5), (-1, -1, 5), (5, -1, 5), (-10, -1, 5), (10, -1, 5), (10, None, 5), (10, -1, None),
              ([0, 20, -5, 4], -1, 5), ([0, 20, -5, 4], None, 5), ([0, 20, -5, 4], -1, None),
              ([0.5, 20.2, -5.7, 4.4], -1.5, 5.1), ([0, 20, -5, 4], [-5, 0, -5, 0], [0, 5, 0, 5]),
              ([[1, 2, 3], [4, 5, 6]], [2, 0, 2], 5), ([[1, 2, 3], [4, 5, 6]], 0, [5, 3, 1])]


@pytest.mark.parametrize("case", range(len(CLIP_CASES)))
def test_clip(case):
    """MathTest.testClip: the array (not the bounds) through each transform; NumPy's values (TF's test leaves the
    dtype unchecked: NumPy's depends on scalar-vs-array bounds)."""
    arr, lo, hi = CLIP_CASES[case]
    for name, fn in TRANSFORMS.items():
        x = fn(arr)
        got = tnp.clip(x, lo, hi)
        want = np.clip(_np(x), lo, hi)
        assert got.shape == want.shape, name
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, err_msg=name)


@pytest.mark.parametrize("lo,hi", [(None, 5), (-1, None)])
def test_clip_with_none_bound_keeps_int_dtype(lo, hi):
    """testClip's run_test(10, None, 5) / ([0, 20, -5, 4], -1, None): an int32 input stays int32 (jax.numpy)."""
    x = np.array([0, 20, -5, 4], np.int32)
    _match(tnp.clip(x, lo, hi), np.clip(x, lo, hi), _jnp_dtype(jnp.clip, x, lo, hi))


@pytest.mark.parametrize("arr,kw", [
    ([1, 2, 3], {}), ([1., 2., 3.], {}), ([[1, 2], [3, 4]], {"axis": 1}), ([[1, 2], [3, 4]], {"axis": 0}),
    ([[1, 2], [3, 4]], {"axis": -1}), ([[1, 2], [3, 4]], {"axis": -2}),
    ([[1, 2], [3, 4]], {"axis": -2, "keepdims": True})])
def test_ptp(arr, kw):
    """MathTest.testPtp (and keepdims): each transform; NumPy's values, jax.numpy's dtype."""
    for name, fn in TRANSFORMS.items():
        x = fn(arr)
        _match(tnp.ptp(x, **kw), np.ptp(_np(x), **kw), _jnp_dtype(jnp.ptp, x, **kw), what=name)


# == linspace, logspace, geomspace ================================================================================

SPACE_TRANSFORMS = ["python", "tensor", "numpy_f32", "numpy_f64"]


@pytest.mark.parametrize("op,stop,kw", [
    ("linspace", 1, {}), ("linspace", 1, {"num": 10}), ("linspace", 1, {"endpoint": False}),
    ("linspace", -1, {}), ("linspace", -1, {"num": 10}), ("linspace", -1, {"endpoint": False}),
    ("logspace", 5, {}), ("logspace", 5, {"num": 10}), ("logspace", 5, {"endpoint": False}),
    ("logspace", 5, {"base": 2.0}), ("logspace", -5, {}), ("logspace", -5, {"num": 10}),
    ("logspace", -5, {"endpoint": False}), ("logspace", -5, {"base": 2.0})])
def test_linspace_logspace(op, stop, kw):
    """MathTest.testLinSpace / testLogSpace: start 0 and stop through pairs of transforms; NumPy's values,
    jax.numpy's dtype (float32 with x64 off; NumPy float64)."""
    for n1 in SPACE_TRANSFORMS:
        for n2 in SPACE_TRANSFORMS:
            a, b = TRANSFORMS[n1](0), TRANSFORMS[n2](stop)
            _match(getattr(tnp, op)(a, b, **kw), getattr(np, op)(_np(a), _np(b), **kw),
                   _jnp_dtype(getattr(jnp, op), a, b, **kw), rtol=2e-6, atol=1e-7, what=f"{n1}, {n2}")


SPACE_DTYPES = [np.int32, np.int64, np.float16, np.float32, np.float64, np.complex64, np.complex128]


@pytest.mark.parametrize("dt", SPACE_DTYPES)
def test_linspace_logspace_dtype(dt):
    """MathTest.testLinSpaceDtype / testLogSpaceDtype: dtype= is the result's, the samples computed in floats and
    then cast (ints truncated as NumPy; TF 2.21 returns float64 for every dtype); float16 within 1e-3 (jax.numpy
    computes in float16)."""
    rtol = 3e-3 if dt == np.float16 else 2e-6
    with _x64(dt):
        for args, kw in (((0, 10), {}), ((0, 10), {"num": 0}), ((0, 10), {"num": 1}), ((0, 10), {"num": 5}),
                         ((0, 10), {"num": 5, "endpoint": False}), ((0, -10), {"num": 5}),
                         ((0, -10), {"num": 5, "endpoint": False}), ((-5, 5), {"num": 4})):
            _match(tnp.linspace(*args, dtype=dt, **kw), np.linspace(*args, dtype=dt, **kw), dt, rtol=rtol,
                   what=f"linspace{args} {kw}")
        for args, kw in (((0, 3), {"num": 4}), ((0, 3), {"num": 4, "endpoint": False}),
                         ((0, 3), {"num": 4, "base": 2.0}), ((0, -3), {"num": 4}), ((1, 3), {"num": 5})):
            _match(tnp.logspace(*args, dtype=dt, **kw), np.logspace(*args, dtype=dt, **kw), dt, rtol=rtol,
                   what=f"logspace{args} {kw}")


@pytest.mark.parametrize("start,stop,endpoint", [(1, 1000, True), (1, 1000, False), (-1, -1000, True),
                                                 (-1, -1000, False)])
def test_geomspace(start, stop, endpoint):
    """MathTest.testGeomSpace: NumPy's values; float32 (TF 2.21 and NumPy float64)."""
    _match(tnp.geomspace(start, stop, num=5, endpoint=endpoint), np.geomspace(start, stop, num=5, endpoint=endpoint),
           np.float32, rtol=2e-6)


# == Tensor methods ===============================================================================================

@pytest.mark.parametrize("method", ["T", "ndim", "size", "data", "__pos__", "__round__", "tolist", "flatten",
                                    "transpose", "reshape", "ravel", "clip", "astype", "max", "mean", "min"])
def test_numpy_methods_on_tensor(method):
    """MathTest.testNumpyMethodsOnTensor: a Tensor has the NumPy method wherever a jax.Array has it ('data' is
    neither's)."""
    assert hasattr(tj.constant([1, 2]), method) == hasattr(jnp.asarray([1, 2]), method)
    if method != "data":
        assert hasattr(tj.constant([1, 2]), method)


def test_flatten():
    """MathTest.testFlatten: 'C' and 'F' are NumPy's; 'A' and 'K' raise NotImplementedError as jax.Array's (NumPy:
    'C' for a C-contiguous array); an unknown order raises ValueError."""
    a1 = np.array([[[1, 2], [3, 4]], [[5, 6], [7, 8]]])
    a2 = tj.constant(a1)
    for order in "CF":
        np.testing.assert_array_equal(a2.flatten(order).numpy(), a1.flatten(order))
    for order in "AK":
        with pytest.raises(NotImplementedError):
            a2.flatten(order)
    with pytest.raises(ValueError):
        a2.flatten("invalid")


def test_fabs_always_returns_float():
    """MathTest.testFabsAlwaysReturnsFloat: ints (lists, scalars, int32 / int64 arrays, empty, 2-d) become floats;
    float16 / float32 keep their dtype."""
    for dt in (np.float16, np.float32):
        arg = np.array([1.5, -2.5], dt)
        _match(tnp.fabs(arg), np.fabs(arg), dt)
    for arg in ([1, -2, 3], -5, np.array([1, -2, 3], np.int32), np.array([1, -2, 3], np.int64),
                np.array([], np.int32), np.array([[1, -2], [3, -4]], np.int32)):
        _match(tnp.fabs(arg), np.fabs(arg), _jnp_dtype(jnp.fabs, arg), what=str(arg))


# == gradients against TF 2.21's tape gradients of tf.experimental.numpy =========================================

def _f32(v):
    return np.array(v, np.float32)


def _sqrt_masked(x):
    return tnp.sqrt(x) * tnp.array([1.0, 0.0, 1.0])


GRADIENTS = {  # name: (function, inputs, output gradient or None, TF 2.21's gradients)
    "dot": (tnp.dot, [[1, 2], [[5, 6, 7], [8, 9, 10]]], [1, -1, 2], [[13, 19], [[1, -1, 2], [2, -2, 4]]]),
    "vdot": (tnp.vdot, [[[1, 2], [3, 4]], [3, 4, 6, 7]], None, [[[3, 4], [6, 7]], [1, 2, 3, 4]]),
    "matmul": (tnp.matmul, [[[1, 2]], [[3, 4, 5], [6, 7, 8]]], [[1, -1, 2]], [[[9, 15]], [[1, -1, 2], [2, -2, 4]]]),
    # ties: the whole gradient to the first argument (TF's Maximum / Minimum)
    "maximum": (tnp.maximum, [[1, 2, 3], [1, 3, 2]], None, [[1, 0, 1], [0, 1, 0]]),
    "minimum": (tnp.minimum, [[1, 2, 3], [1, 3, 2]], None, [[1, 1, 0], [0, 0, 1]]),
    "hypot": (tnp.hypot, [[3, 0, -5], [4, 2, 12]], None, [[0.6, 0, -0.3846154], [0.8, 1, 0.923077]]),
    "logaddexp": (tnp.logaddexp, [[1, 0, -np.inf, 80], [4, -3, -np.inf, 1]], None,
                  [[0.047425874, 0.95257413, np.nan, 1.0], [0.95257413, 0.047425874, np.nan, 4.906095e-35]]),
    "logaddexp2": (tnp.logaddexp2, [[1, 0, -np.inf, 80], [4, -3, -np.inf, 1]], None,
                   [[0.11111111, 0.8888889, np.nan, 1.0], [0.8888889, 0.11111111, np.nan, 1.6543612e-24]]),
    # the bounds pass the gradient through (TF's clip_by_value), also for array bounds
    "clip": (lambda x: tnp.clip(x, -1, 5), [[-2, -1, 0, 5, 7]], None, [[0, 1, 1, 1, 0]]),
    "clip_arrays": (tnp.clip, [[0, 20, -5, 4], [-5, 0, -5, 0], [0, 5, 0, 5]], None,
                    [[1, 0, 1, 1], [0, 0, 0, 0], [0, 1, 0, 0]]),
    # ties of max / min share the gradient equally (TF's reduce_max / reduce_min)
    "ptp_axis": (lambda x: tnp.ptp(x, axis=1), [[[1, 3, 3], [2, 2, 0]]], None, [[[-1, .5, .5], [.5, .5, -1]]]),
    "ptp": (tnp.ptp, [[[1, 3, 3], [2, 2, 0]]], None, [[[0, .5, .5], [0, 0, -1]]]),
    "diff": (lambda x: tnp.diff(x, n=2, axis=1), [[[1, 2, 4, 7], [0, 1, 0, 1]]], [[1, 2], [3, 4]],
             [[[1, 0, -3, 2], [3, -2, -5, 4]]]),
    "kron": (tnp.kron, [[[1, 2], [3, 4]], [[0, 1, 2]]], np.arange(12).reshape(2, 6),
             [[[5, 14], [23, 32]], [[60, 70, 80]]]),
    "sort": (lambda x: tnp.sort(x, axis=0), [[[3, 1], [1, 2], [2, 2]]], [[1, 2], [3, 4], [5, 6]],
             [[[5, 2], [1, 4], [3, 6]]]),
    "cross": (tnp.cross, [[[1, 2, 3], [0, 1, 0]], [[4, 5, 6], [1, 0, 0]]], [[1, 2, 3], [4, 5, 6]],
              [[[3, -6, 3], [0, -6, 5]], [[0, 0, 0], [-6, 0, 4]]]),
    "average": (lambda a, w: tnp.average(a, axis=1, weights=w), [[[1, 2, 3], [4, 6, 5]], [1, 2, 3]], [1, 2],
                [[[1 / 6, 1 / 3, 1 / 2], [1 / 3, 2 / 3, 1]], [-0.6111111640930176, 0.22222232818603516,
                                                              0.05555558204650879]]),
    "average_2d_weights": (lambda a, w: tnp.average(a, weights=w), [[[1, 2, 3], [4, 6, 5]], [[1, 2, 3], [3, 1, 1]]],
                           None, [[[1 / 11, 2 / 11, 3 / 11], [3 / 11, 1 / 11, 1 / 11]],
                                  [[-0.21487602591514587, -0.12396693229675293, -0.033057838678359985],
                                   [0.05785125494003296, 0.23966944217681885, 0.1487603485584259]]]),
    # abs at 0 has derivative 0; sqrt at 0 under a zero incoming gradient gives 0 (API.md's conventions)
    "fabs": (tnp.fabs, [[-1.5, 0, 2]], None, [[-1, 0, 1]]),
    "sqrt": (_sqrt_masked, [[4, 0, 0.25]], None, [[0.25, 0, 1]]),
    "linspace": (lambda a, b: tnp.linspace(a, b, num=5), [1, 3], [1, 2, 3, 4, 5], [5, 10]),
    "linspace_no_endpoint": (lambda a, b: tnp.linspace(a, b, num=4, endpoint=False), [1, 3], [1, 2, 3, 4], [5, 5]),
    "logspace": (lambda a, b: tnp.logspace(a, b, num=4, base=2.0), [0, 3], None, [2.5415397, 7.855668]),
    "geomspace": (lambda a, b: tnp.geomspace(a, b, num=4), [1, 1000], None, [41.0, 1.07]),
    "exp": (tnp.exp, [[[2, -3], [-6, 7]]], None, [[[7.3890562, 4.9787067e-02], [2.4787523e-03, 1.0966332e+03]]]),
    "log": (tnp.log, [[[2, 3], [6, 7]]], None, [[[0.5, 0.33333334], [0.16666667, 0.14285715]]]),
    "tanh": (tnp.tanh, [[[2, -3], [-6, 7]]], None, [[[7.0650816e-02, 9.8661184e-03], [2.4557114e-05, 3.3378601e-06]]]),
    "concatenate": (lambda a, b: tnp.concatenate([a, b]), [[1, 2], [3]], [1, 2, 3], [[1, 2], [3]]),
}


@pytest.mark.parametrize("name", list(GRADIENTS))
def test_gradient_matches_tf(name):
    """Tape gradients of float32 inputs against TF 2.21's of tf.experimental.numpy (same inputs, same output
    gradient)."""
    f, xs, og, want = GRADIENTS[name]
    _, grads = tape_gradients(f, [_f32(x) for x in xs], output_gradients=None if og is None else _f32(og))
    assert len(grads) == len(want)
    for g, w in zip(grads, want):
        assert g is not None and g.dtype == np.float32
        np.testing.assert_allclose(g.numpy(), _f32(w), rtol=2e-5, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("name", ["dot", "kron", "clip_arrays", "cross", "average"])
def test_gradient_matches_tf_inside_function(name):
    """The same gradients taken on a tape inside a compiled tj.function."""
    f, xs, og, want = GRADIENTS[name]

    @tj.function
    def grads(*ts):
        with tj.GradientTape() as tape:
            tape.watch(list(ts))
            y = f(*ts)
        return tape.gradient(y, list(ts), output_gradients=None if og is None else _f32(og))
    for g, w in zip(grads(*[tj.constant(_f32(x)) for x in xs]), want):
        np.testing.assert_allclose(g.numpy(), _f32(w), rtol=2e-5, atol=1e-6)


def test_gradient_of_angle_of_complex():
    """angle of complex64 (and deg=True): TF 2.21's AngleGrad, conjugated as TF's convention."""
    z = np.array([1 + 2j, -1 - 2j, 3 - 1j], np.complex64)
    for deg, want in ((False, [-0.4 + 0.2j, 0.4 - 0.2j, 0.10000001 + 0.3j]),
                      (True, [-22.918312 + 11.459156j, 22.918312 - 11.459156j, 5.7295785 + 17.188734j])):
        _, (g,) = tape_gradients(lambda x: tnp.angle(x, deg=deg), [z])
        assert g.dtype == np.complex64
        np.testing.assert_allclose(g.numpy(), np.asarray(want, np.complex64), rtol=1e-5, atol=1e-6)


def test_gradient_of_angle_of_real_is_none():
    _, (g,) = tape_gradients(tnp.angle, [_f32([-2, 0.5, 3])])
    assert g is None


def test_gradient_at_ties_and_origin_sanctioned():
    """Sanctioned differences from TF 2.21's tnp: logaddexp / logaddexp2 at x1 == x2 = 2 give (0.5, 0.5), the
    derivative and jax.numpy's (TF: (1, 0), from its maximum's tie rule and abs'(0) = 0); hypot at the origin gives
    (0, 0), tapejax's documented choice (TF: NaN from sqrt(x^2 + y^2); jax.numpy (0.5, 0.5))."""
    for f in (tnp.logaddexp, tnp.logaddexp2):
        _, grads = tape_gradients(f, [_f32([2]), _f32([2])])
        np.testing.assert_allclose([g.numpy() for g in grads], [[0.5], [0.5]], rtol=1e-6)
    _, grads = tape_gradients(tnp.hypot, [_f32([0]), _f32([0])])
    np.testing.assert_array_equal([g.numpy() for g in grads], [[0.0], [0.0]])


# == TF 2.21's values ============================================================================================
# LogdetTest: tf.linalg.logdet of the 20 matrices in test order (n = 1..5, float32 / float64 / complex64 /
# complex128), and the digests of its tape gradients (complex ones as [real, imag])
LOGDET_VALUES = [-1.399481177330017, -3.957176399306966, 1.0076367855072021, -2.2104807965124618,
                 0.3929562568664551, -0.0013265482498585612, 2.461350202560425, 0.8777065622803506,
                 0.006403684616088867, -0.8570065819985905, 3.5154857635498047, 3.6162194465947946,
                 -0.937624454498291, -1.6670619119892185, 6.332670211791992, 4.599700414260968,
                 -0.5653425455093384, 4.060452934993966, 9.047042846679688, 2.166969367154437]
LOGDET_GRADS = [
    D(4.053096294403076, 4.053096294403076, 4.053096294403076),
    D(52.30941632432415, 52.30941632432415, 52.30941632432415),
    D(0.36508068442344666, 0.36508068442344666, 0.36508068442344666),
    D(9.120100251478144, 9.120100251478144, 9.120100251478144),
    D(2.86743625998497, -0.49803407774106134, 2.86743625998497),
    D(2.596405291813515, 2.77678398784971, 5.716309007620482),
    D(0.7096507400274277, -0.13369050758179143, 1.3911470621824265),
    D(1.447183659853916, -0.6257693499319525, 2.3344570876441164),
    D(19.53818368911743, 16.101561594179103, 94.40224695205688),
    D(28.134613992425695, 3.5992138704298107, 28.134613992425695),
    D(1.9105989560484886, -0.23032675797537652, 3.1050745099782944),
    D(1.0092205345855445, 0.9389348142569649, 5.113009168349658),
    D(23.181630484759808, -8.40777086432001, 23.617069847881794),
    D(1216.2189371353536, 178.14920800932276, 1545.181619720961),
    D(1.942955307662487, -0.03773352538756225, 3.8950748899951577),
    D(5.065492546761562, 0.266879737724107, 8.425314846515356),
    D(198.12418484687805, -55.86862853383932, 474.9486439228058),
    D(12.32501549408186, -2.4747022316369023, 55.45112477775241),
    D(1.227297406643629, 0.30024632051994854, 8.140304390341043),
    D(22.97249930447908, 95.33263727440479, 336.400115607645),
]
# _PinvTest: float64 tape gradients of tf.linalg.pinv(a, rcond) for the output gradient cos(index), by (matrices,
# custom rcond)
PINV_GRADS = {
    ("symmetric", False): [
        [[-6.640980058444812, -26.11591402461049, 32.37540990031788],
         [136.03852197588233, 930.4152030785943, -1020.1383683804833],
         [-120.5779034939264, -847.4117347794705, 924.7242299346228]],
        [[-67.72730011510494, 709.8716652868807, -406.4543502057978],
         [554.6356825007215, -5205.576073506479, 2873.8071665444622],
         [-315.9240737330502, 2838.666173403128, -1542.3111719884346]]],
    ("symmetric", True): [
        [[-6.640980058444812, -26.11591402461049, 32.37540990031788],
         [136.03852197588233, 930.4152030785943, -1020.1383683804833],
         [-120.5779034939264, -847.4117347794705, 924.7242299346228]],
        [[11.15231631265444, -5.165898210564733, -13.822920965389555],
         [-12.839586991030156, 7.530419726955485, 16.313141170430445],
         [-8.411214126450098, 4.584023119465293, 10.493582186794722]]],
    ("nonsquare", False): [
        [[35.46226874782102, -22.45188900642243, -47.75455212090971, 6.760319378470018],
         [-151.20004639670896, 69.14663898699246, 225.90808741582782, -28.574607565811814],
         [91.29163443859483, -37.087736968783986, -140.39811443661722, 17.24923749012293]],
        [[-142.6982262766124, -39.01283991717696, 331.73853953696346, -12.543112635707534],
         [1739.0577060773817, 108.2505814304759, -3757.4832251100656, 149.50673498123862],
         [-1109.4712799746046, -51.73832978826772, 2383.541544157636, -95.17049599634475]]],
    ("nonsquare", True): [
        [[35.462268747821021, -22.45188900642243, -47.754552120909707, 6.760319378470018],
         [-151.20004639670896, 69.146638986992457, 225.90808741582782, -28.574607565811814],
         [91.291634438594826, -37.087736968783986, -140.39811443661722, 17.24923749012293]],
        [[0.031799682050770793, -0.015389560608086479, 0.030911435474686964, 0.022928797790689535],
         [0.039858650910897873, -0.028937353176387338, 0.042412829489033702, -0.004492456129552516],
         [0.067956556659867148, -0.038851553618207128, 0.068325469272223383, 0.028456635464990436]]],
}
# _LUMatrixInverse: tape gradients of tf.linalg.inv for the output gradient cos(index) of the batch (the non-batch
# matrix is the batch's first, with the same output gradient)
INV_GRAD = [[[-2.6828477, 2.6535342], [1.3808485, -1.2944611]],
            [[0.8102425, -0.5372408], [-1.4835764, 0.92468125]],
            [[3.5919385, 0.30758202], [-0.05968956, -0.28333881]]]
# _LUSolve: tape gradients of sum(tf.linalg.solve(x, rhs) * cos(index)) with respect to x and rhs
SOLVE_GRAD = ([[-1.1895466, 1.1895466], [0.72984886, -0.72984886]], [[-1.1895466], [0.72984886]])
SOLVE_GRAD_BATCH = ([[[-1.1895466, 1.1895466], [0.72984886, -0.72984886]],
                     [[0.32634753, -0.32634753], [-0.90019315, 0.90019315]],
                     [[3.5740104, 0.71480197], [1.2987343, 0.25974682]]], [[-2.1141026], [-0.6249013]])
