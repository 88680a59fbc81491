"""TensorFlow's linalg gradient and value tests (tensorflow/python/kernel_tests/linalg/), ported to tj.numpy.linalg.

Second part (the first is tests/test_tf_linalg_port.py). Each test names the TF test it ports. TF's gradient checks
(``gradient_checker_v2.compute_gradient``) compare TF's theoretical Jacobian with finite differences; here tj's
``tape.jacobian`` is compared with the theoretical Jacobian TF 2.21 computes for the same small inputs (hard-coded
at the end of this file; complex inputs in TF's convention: the gradient of each real/complex output entry).
TF's random inputs are rebuilt with the same NumPy seeds, on smaller shapes. TF is not imported."""
import jax
import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy
L = tnp.linalg


def _rin(seed, shape, dt=np.float32):
    """The inputs of TF's gradient tests: uniform(-1, 1) (plus an imaginary part for complex dtypes)."""
    rs = np.random.RandomState(seed)
    a = rs.uniform(-1, 1, size=shape).astype(dt)
    if np.dtype(dt).kind == "c":
        a += 1j * rs.uniform(-1, 1, size=shape).astype(dt)
    return a


def _jac(f, x):
    x = tj.constant(x)
    with tj.GradientTape(persistent=True) as t:
        t.watch(x)
        ys = f(x)
    ys = ys if isinstance(ys, (tuple, list)) else (ys,)
    return [t.jacobian(y, x).numpy() for y in ys]


def _close(got, want, tol=2e-3):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1.0, float(np.abs(want).max(initial=0))))


def _h(x):
    return tnp.conj(tnp.swapaxes(x, -1, -2))


# -- svd_op_test.py ------------------------------------------------------------------------------------------

def _normalizing_svd(a, full_matrices):
    """svd_op_test._NormalizingSvd: TF's (s, u, v), with the signs fixed by the first row of u (m >= n) or v."""
    u, s, vh = L.svd(a, full_matrices=full_matrices)
    v = _h(vh)
    m, n = a.shape[-2], a.shape[-1]
    top = u[..., 0:1, :] if m >= n else v[..., 0:1, :]
    phase = tnp.sign(top)
    return s, u * phase[..., :m], v * phase[..., :n]


@pytest.mark.parametrize("name,shape,full", [
    ("f32_2x3_full", (2, 3), True), ("f32_2x3", (2, 3), False), ("f32_3x2_full", (3, 2), True),
    ("f32_3x2", (3, 2), False), ("f32_2x2x3_full", (2, 2, 3), True)])
def test_svd_grad(name, shape, full):
    """SvdGradOpTest.test_SvdGrad_float32_*_compute_uv_True_full_{True,False} (|m - n| = 1 with full_matrices:
    TF's SvdGrad differentiates the extra singular vector too)."""
    js = _jac(lambda x: _normalizing_svd(x, full), _rin(42, shape))
    for k, j in zip("suv", js):
        _close(j, globals()[f"SVD_{name}_{k}"])


def test_svd_grad_compute_uv_false():
    """SvdGradOpTest.test_SvdGrad_{float32,complex64}_*_compute_uv_False_full_*: the singular values alone (complex:
    TF's convention, the gradient of each real singular value)."""
    _close(_jac(lambda x: L.svd(x, compute_uv=False), _rin(42, (3, 2)))[0], SVDVALS_f32_3x2)
    for full in (False, True):  # full_matrices does not matter without u, v
        _close(_jac(lambda x: L.svd(x, full_matrices=full, compute_uv=False), _rin(42, (2, 3), np.complex64))[0],
               SVDVALS_c64_2x3)


def test_svd_full_matrices_far_from_square_has_no_gradient():
    """SvdGradOpTest only builds full_matrices=True cases with |m - n| <= 1: TF's SvdGrad raises
    NotImplementedError beyond ("svd gradient is not implemented for abs(m - n) > 1"); tj too (a LookupError as
    well, as every missing gradient in tapejax)."""
    x = tj.constant(_rin(42, (2, 5)))
    with tj.GradientTape() as t:
        t.watch(x)
        u, s, vh = L.svd(x)
    assert u.shape == (2, 2) and vh.shape == (5, 5)
    with pytest.raises(NotImplementedError, match="not differentiable") as e:
        t.gradient(vh, x)
    assert isinstance(e.value, LookupError)


def test_svd_values_and_empty_batches():
    """SvdOpTest.testEmptyBatches, and _GetSvdOpTest's checks (a = u diag(s) v^H, u and v unitary) on a few
    shapes with full_matrices True/False (the values are LAPACK's, as TF's)."""
    u, s, vh = L.svd(np.ones([0, 2, 2], np.float32))
    assert s.shape == (0, 2) and u.shape == (0, 2, 2) and vh.shape == (0, 2, 2)
    for shape in ((2, 3), (3, 2), (2, 2, 3)):
        a = _rin(42, shape)
        for full in (False, True):
            u, s, vh = (o.numpy() for o in L.svd(a, full_matrices=full))
            m, n = shape[-2:]
            d = np.zeros(shape[:-2] + ((m, n) if full else (min(m, n),) * 2), np.float32)
            k = min(m, n)
            d[..., np.arange(k), np.arange(k)] = s
            np.testing.assert_allclose(u @ d @ vh, a, atol=3e-4)
            for w in (u, np.swapaxes(vh, -1, -2)):
                np.testing.assert_allclose(np.swapaxes(w, -1, -2) @ w, np.broadcast_to(np.eye(w.shape[-1]),
                                           w.shape[:-2] + (w.shape[-1],) * 2), atol=3e-4)
            np.testing.assert_allclose(s, np.linalg.svd(a.astype(np.float64), compute_uv=False), atol=3e-4)


# -- qr_op_test.py -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name,shape,dt,mode", [
    ("f32_2x3", (2, 3), np.float32, "reduced"), ("f32_3x2", (3, 2), np.float32, "reduced"),
    ("f32_2x3_full", (2, 3), np.float32, "complete"),
    ("c64_3x2", (3, 2), np.complex64, "reduced"), ("f32_2x2x3", (2, 2, 3), np.float32, "reduced")])
def test_qr_grad(name, shape, dt, mode):
    """QrGradOpTest.test_QrGrad_{float32,complex64}_*_full_{False,True} (TF's full_matrices=True is mode='complete';
    complex: TF's convention, the gradient of each output entry)."""
    jq, jr = _jac(lambda x: tuple(L.qr(x, mode=mode)), _rin(42, shape, dt))
    _close(jq, globals()[f"QR_{name}_q"])
    _close(jr, globals()[f"QR_{name}_r"])


def test_qr_grad_not_implemented_for_complete_deep_matrices():
    """QrGradOpTest.testNotImplementedCheck: TF raises NotImplementedError ("QrGrad not implemented when nrows >
    ncols and full_matrices is true"); tj raises LookupError with that reason (JAX would differentiate it by a
    convention of its own)."""
    x = tj.constant(_rin(42, (5, 2)))
    with tj.GradientTape() as t:
        t.watch(x)
        ret = L.qr(x, mode="complete")
    assert ret.Q.shape == (5, 5) and ret.R.shape == (5, 2)
    with pytest.raises(NotImplementedError, match="QrGrad not implemented when nrows > ncols") as e:
        t.gradient(ret, x)
    assert isinstance(e.value, LookupError)  # (tapejax's error for every missing gradient)
    with tj.ForwardAccumulator(x, tj.constant(np.ones((5, 2), np.float32))) as acc:  # TF: forward mode too
        with pytest.raises(NotImplementedError, match="QrGrad not implemented"):
            L.qr(x, mode="complete")
    # mode='reduced' (TF's full_matrices=False) of the same matrix is differentiable
    with tj.GradientTape() as t:
        t.watch(x)
        q, r = L.qr(x)
    assert t.gradient(q, x).shape == (5, 2)


def test_qr_invalid_rank_and_values():
    """QrOpTest.testInvalidRank (ValueError for ranks 0 and 1, every dtype) and _GetQrOpTest's checks (a = q r,
    q unitary) for reduced and complete modes."""
    for dt in (np.float32, np.complex64):
        for bad in ([], [2]):
            with pytest.raises(ValueError):
                L.qr(np.zeros(bad, dt))
    for shape, dt in (((2, 3), np.float32), ((3, 2), np.complex64), ((2, 2, 3), np.float32)):
        a = _rin(1, shape, dt)
        for mode in ("reduced", "complete"):
            q, r = (o.numpy() for o in L.qr(a, mode=mode))
            np.testing.assert_allclose(q @ r, a, atol=1e-5)
            qh_q = np.conj(np.swapaxes(q, -1, -2)) @ q
            np.testing.assert_allclose(qh_q, np.broadcast_to(np.eye(q.shape[-1]), qh_q.shape), atol=1e-5)


# -- self_adjoint_eig_op_test.py -----------------------------------------------------------------------------

def _normalizing_eigh(x):
    """SelfAdjointEigGradTest's Compute: eigenvectors with the phase of their first component removed."""
    e, v = L.eigh(x)
    top = v[..., 0:1, :]
    if np.iscomplexobj(x.numpy()):
        ang = -tnp.angle(top)
        phase = tnp.cos(ang) + 1j * tnp.sin(ang)
    else:
        phase = tnp.sign(top)
    return e, v * phase


@pytest.mark.parametrize("name", ["f32_3", "c64_2", "f32_1", "f32_3x2"])
def test_self_adjoint_eig_grad(name):
    """SelfAdjointEigGradTest.test_SelfAdjointEigGrad_{float32,complex64}_* (compute_v True and False). The inputs
    are Hermitian, but the checker perturbs every entry independently: TF's gradient lies on the lower triangle
    it reads (and the diagonal's imaginary part has none), as tj's."""
    a = globals()[f"EIG_{name}_in"].astype(np.complex64 if name.startswith("c") else np.float32)
    je, jv = _jac(_normalizing_eigh, a)
    _close(je, globals()[f"EIG_{name}_e"])
    _close(jv, globals()[f"EIG_{name}_v"])
    _close(_jac(L.eigvalsh, a)[0], globals()[f"EIGVALS_{name}"])


def test_self_adjoint_eig_values_and_wrong_dimensions():
    """SelfAdjointEigTest.testWrongDimensions (ValueError) and _GetSelfAdjointEigTest (V diag(E) V^H = A, and the
    eigenvalues of numpy.linalg.eigh) on a Hermitian complex batch."""
    for bad in (np.float32(1.0), np.array([1.0, 2.0], np.float32)):
        with pytest.raises(ValueError):
            L.eigh(bad)
    a = _rin(1, (3, 3), np.complex64)
    a = np.tile(a + np.conj(a.T), (2, 1, 1))
    e, v = (o.numpy() for o in L.eigh(a))
    np.testing.assert_allclose((v * e[..., None, :]) @ np.conj(np.swapaxes(v, -1, -2)), a, atol=1e-4)
    np.testing.assert_allclose(e, np.linalg.eigvalsh(a), atol=1e-4)
    np.testing.assert_allclose(L.eigvalsh(a).numpy(), np.linalg.eigvalsh(a), atol=1e-4)


# -- cholesky_op_test.py -------------------------------------------------------------------------------------

def _chol_compute(x, batch):
    """CholeskyGradTest._runOneTest's Compute: the Cholesky factor of x x^H / rows (tiled twice with batch)."""
    a = x @ _h(x) / x.shape[0]
    if batch:
        a = tnp.tile(tnp.expand_dims(a, 0), (2, 1, 1))
    return L.cholesky(a)


@pytest.mark.parametrize("name,batch", [("f32_1", False), ("f32_2", True), ("c64_2", False), ("f32_10", False)])
def test_cholesky_grad(name, batch):
    """CholeskyGradTest.testSmallMatrices / testSmallMatricesComplex (shapes (1, 1), (2, 2), and (4, 4) for
    TF's (10, 12)), with and without a batch."""
    x = globals()[f"CHOL_{name}_in"]
    x = x.astype(np.complex64 if name.startswith("c") else np.float32)
    _close(_jac(lambda t: _chol_compute(t, False), x)[0], globals()[f"CHOL_{name}"])
    if batch:
        _close(_jac(lambda t: _chol_compute(t, True), x)[0], globals()[f"CHOL_{name}_batch"])


def test_cholesky_grad_one_block():
    """CholeskyGradTest.testOneBlockMatrices (scalar_test: the mean of the factor of a 17 x 17 matrix, float32)."""
    x = CHOL_BLOCK_in.astype(np.float32)
    g = _jac(lambda t: tnp.mean(_chol_compute(t, False)), x)[0]
    _close(g, CHOL_BLOCK, tol=5e-3)


def test_cholesky_values():
    """CholeskyOpTest.testBasic / testBatch / testEmpty: L L^H = A, L lower triangular with a positive diagonal."""
    data = np.array([[4., -1., 2.], [-1., 6., 0], [2., 0., 5.]])
    cdata = (np.tril(1j * data, -1) + np.triu(-1j * data, 1) + data).astype(np.complex64)
    mats = np.random.RandomState(0).rand(3, 4, 4)
    mats = np.einsum("bji,bjk->bik", mats, mats) + 1e-1 * np.eye(4)
    for a in (data.astype(np.float32), cdata, mats.astype(np.float32), np.array([[[1., 0.], [0., 5.]]] * 2,
                                                                                np.float32)):
        c = L.cholesky(a).numpy()
        np.testing.assert_allclose(c @ np.conj(np.swapaxes(c, -1, -2)), a, rtol=1e-4, atol=1e-4)
        np.testing.assert_array_equal(c, np.tril(c))
        assert np.all(np.real(np.diagonal(c, axis1=-2, axis2=-1)) > 0)
    assert L.cholesky(np.empty([0, 2, 2], np.float32)).shape == (0, 2, 2)
    assert L.cholesky(np.empty([2, 0, 0], np.float32)).shape == (2, 0, 0)


# -- linalg_grad_test.py -------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(2, 2), (2, 2, 2)])
@pytest.mark.parametrize("adjoint", [False, True])
def test_matrix_solve_gradient(shape, adjoint):
    """MatrixBinaryFunctorGradientTest.test_MatrixSolveGradient_float32_*_adj_{False,True}: the Jacobian of
    solve with respect to each argument (TF's adjoint=True: tj.numpy.linalg.solve of the adjoint matrix)."""
    fixed = _rin(1, shape)

    def solve(a, b):
        return L.solve(_h(a) if adjoint else a, b)
    nm = "x".join(map(str, shape)) + ("_adj" if adjoint else "")
    _close(_jac(lambda x: solve(x, fixed), fixed)[0], globals()[f"SOLVE_{nm}_a"])
    _close(_jac(lambda y: solve(fixed, y), fixed)[0], globals()[f"SOLVE_{nm}_b"])


@pytest.mark.parametrize("shape", [(2, 2), (5, 2), (2, 5)])
def test_matrix_solve_ls_gradient(shape):
    """MatrixBinaryFunctorGradientTest.test_MatrixSolveLsGradient_float32_*: tf.linalg.lstsq(a, b,
    l2_regularizer=0, fast=True) is tj.numpy.linalg.lstsq(a, b)[0] (TF's l2 > 0 cases have no counterpart:
    jnp's lstsq has no regularizer). Overdetermined: the normal equations; underdetermined: the minimum-norm
    solution, in both."""
    fixed = _rin(1, shape)
    nm = "x".join(map(str, shape))
    _close(_jac(lambda x: L.lstsq(x, fixed)[0], fixed)[0], globals()[f"LS_{nm}_a"], tol=5e-3)
    _close(_jac(lambda y: L.lstsq(fixed, y)[0], fixed)[0], globals()[f"LS_{nm}_b"], tol=5e-3)


def test_det_gradients():
    """ShapeTest.testBatchGradientUnknownSize (the gradient of the sum of the determinants of a batch of
    identities is the batch), DetGradSingularMatrixTest.testDetGradInvertible2x2 / testDetGradSingularFloat32 /
    testDetGradNearSingularNumerical / testDetGradComplexSingular (the adjugate; TF 2.21 raises "Input is not
    invertible" at the singular ones: tj keeps JAX's adjugate, decided earlier) and
    testSlogdetGradInvertibleUnchanged (A^-H)."""
    # (TF's 4x4 identities, as 2x2 ones here: the gradient is the batch itself, TF's BATCH_ID_DET_GRAD)
    _close(_jac(lambda m: tnp.sum(L.det(m)), np.tile(np.eye(2, dtype=np.float32), (3, 1, 1)))[0],
           np.tile(np.eye(2), (3, 1, 1)))
    np.testing.assert_array_equal(BATCH_ID_DET_GRAD, np.tile(np.eye(4), (3, 1, 1)))
    _close(_jac(L.det, np.array([[1., 2.], [3., 4.]], np.float32))[0], DET_INV2.reshape(2, 2))
    _close(_jac(L.det, np.array([[1., 2.], [2., 4.]], np.float32))[0], [[4., -2.], [-2., 1.]])
    a = np.array([[1.0 + 1.0j, 2.0 + 2.0j], [2.0 - 1.0j, 4.0 - 2.0j]], np.complex64)
    # conj(cofactor matrix): TF's convention for the holomorphic det
    _close(_jac(L.det, a)[0].reshape(2, 2), np.conj([[4.0 - 2.0j, -(2.0 - 1.0j)], [-(2.0 + 2.0j), 1.0 + 1.0j]]))
    _close(_jac(lambda m: L.slogdet(m)[1], np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))[0], SLOG_REAL)
    c = np.array([[1.0 + 1.0j, 2.0 - 1.0j], [3.0 + 0.5j, 4.0 + 2.0j]], np.complex64)
    _close(_jac(lambda m: L.slogdet(m)[1], c)[0], SLOG_CPLX)


def test_det_in_float64():
    """DetGradSingularMatrixTest.testDetGradNearSingular / testDetGradNearSingularNumerical (float64: JAX's x64
    mode): [[1 + eps, -1], [-1, 1]] for eps = 1e-6, 1e-9, 1e-12 (TF 2.21's A^-1 det(A) agrees to 1e-9)."""
    with jax.enable_x64(True):
        for eps, want in ((1e-6, DET_NEAR_6), (1e-9, DET_NEAR_9), (1e-12, DET_NEAR_12)):
            m = tj.constant(np.array([[1.0, 1.0], [1.0, 1.0 + eps]], np.float64))
            with tj.GradientTape() as t:
                t.watch(m)
                d = L.det(m)
            g = t.gradient(d, m).numpy()
            assert g.dtype == np.float64
            np.testing.assert_allclose(g, want, atol=1e-9)
            np.testing.assert_allclose(g, [[1.0 + eps, -1.0], [-1.0, 1.0]], atol=1e-9)
        np.testing.assert_allclose(_jac(L.det, np.array([[1.0, 1.0], [1.0, 1.0 + 1e-6]]))[0],
                                   DET_NEAR_NUM.reshape(2, 2), atol=1e-9)
        # DeterminantOpTest.testInfiniteDeterminant: float64's max on the diagonal: det inf, log|det| finite
        huge = np.array([[np.finfo("d").max, 0.0], [0.0, np.finfo("d").max]])
        assert L.det(huge).numpy() == DET_HUGE64
        s, l = L.slogdet(huge)
        np.testing.assert_allclose([s.numpy(), l.numpy()], SLOG_HUGE64, rtol=1e-8)


# -- determinant_op_test.py ----------------------------------------------------------------------------------

_M5 = np.array([[2., 3., 4., 5., 6.], [3., 4., 9., 2., 0.], [2., 5., 8., 3., 8.], [1., 6., 7., 4., 7.],
                [2., 3., 4., 5., 6.]])


def test_determinant_values():
    """DeterminantOpTest.testBasic / testBasicComplex64 (2x2, 5x5 by LU, a complex 2x2, a random batch),
    testInfAndNans (the 5x5 with a NaN), testInfiniteDeterminant (float32's max on the diagonal: inf, and
    slogdet's finite log), testNonSquareMatrix / testWrongDimensions (ValueError)."""
    nan5 = np.where(np.arange(25).reshape(5, 5) == 0, np.nan, _M5)
    for nm, m in (("2", np.array([[2., 3.], [3., 4.]])), ("5", _M5), ("5nan", nan5)):
        for dt in (np.float32, np.complex64):
            a = m.astype(dt)
            want, (sign, logabs) = globals()[f"DETV_{nm}_{np.dtype(dt).name}"], globals()[
                f"SLOGV_{nm}_{np.dtype(dt).name}"]
            np.testing.assert_allclose(L.det(a).numpy(), want, rtol=1e-5, atol=5e-5)
            s, l = L.slogdet(a)
            np.testing.assert_allclose(s.numpy(), sign, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(l.numpy(), np.real(logabs), rtol=1e-5, atol=1e-5)
    c2 = np.array([[1. + 1.j, 1. - 1.j], [-1. + 1.j, -1. - 1.j]], np.complex64)
    np.testing.assert_allclose(L.det(c2).numpy(), DETV_c2_complex64, atol=5e-5)
    s, l = L.slogdet(c2)
    np.testing.assert_allclose(s.numpy() * np.exp(l.numpy()), DETV_c2_complex64, atol=5e-5)
    batch = np.random.RandomState(0).rand(3, 4, 5, 2, 2).astype(np.float32)
    np.testing.assert_allclose(L.det(batch).numpy(), np.linalg.det(batch.astype(np.float64)), atol=5e-5)
    huge = np.array([[np.finfo("f").max, 0.0], [0.0, np.finfo("f").max]], np.float32)
    assert L.det(huge).numpy() == DET_HUGE32
    s, l = L.slogdet(huge)
    np.testing.assert_allclose([s.numpy(), l.numpy()], SLOG_HUGE32, rtol=1e-6)
    for bad in (np.ones((2, 3), np.float32), np.array([1., 2.], np.float32)):
        with pytest.raises(ValueError):
            L.det(bad)


def test_det_and_slogdet_with_non_finite_entries():
    """DeterminantOpTest.testInfAndNans, extended to 3x3 and complex matrices: TF's LU carries a nan into the
    sign (jnp's stayed +-1), a 3x3 takes the LU value (jnp's expanded 3x3 gave nan for +-inf), and a complex
    matrix with an inf or nan entry has det, sign and log|det| nan (jnp's gave inf, or 0 for a nan entry)."""
    nan, inf = np.nan, np.inf
    cn = complex(nan, nan)
    m5 = np.where(np.arange(25).reshape(5, 5) == 0, nan, _M5)
    m5i = np.where(np.arange(25).reshape(5, 5) == 3, -inf, _M5)
    # matrix, TF's (det, sign, logabsdet) for float32
    cases = [(np.array([[inf, 1], [1, 1.]]), (inf, 1., inf)), (np.array([[nan, 1], [1, 1.]]), (nan, nan, nan)),
             (np.array([[inf, inf, 0], [1, 1, 0], [0, 2, 1.]]), (nan, nan, nan)),
             (np.array([[1, 2, 3], [4, inf, 6], [7, 8, 10.]]), (-inf, -1., inf)),
             (np.array([[inf, 0, 0], [0, 1, 0], [0, 0, 1.]]), (inf, 1., inf)),
             (np.array([[inf, -inf, 1], [1, 1, 1], [0, 1, 2.]]), (nan, nan, nan)),
             (np.array([[1, 2, 3, 0], [4, inf, 6, 1], [7, 8, 10, 2], [0, 0, 1, 1.]]), (-inf, -1., inf)),
             (m5, (nan, nan, nan)), (m5i, (nan, nan, nan))]
    for m, want in cases:
        a = m.astype(np.float32)
        s, l = L.slogdet(a)
        np.testing.assert_array_equal([L.det(a).numpy(), s.numpy(), l.numpy()], want)
        c = m.astype(np.complex64)  # TF: (nan+nanj, nan+nanj, nan) for every one
        s, l = L.slogdet(c)
        np.testing.assert_array_equal([L.det(c).numpy(), s.numpy()], [cn, cn])
        assert np.isnan(l.numpy())
    # finite matrices in the same batch keep their values (and derivative)
    batch = np.stack([np.array([[1, 2, 3], [4, inf, 6], [7, 8, 10.]]), np.eye(3) * 2]).astype(np.float32)
    np.testing.assert_array_equal(L.det(batch).numpy(), [-inf, 8.])
    g = _jac(lambda x: L.det(x), np.eye(3, dtype=np.float32) * 2)[0]
    np.testing.assert_allclose(g, 4 * np.eye(3))  # det(A) A^-T


# -- matrix_inverse_op_test.py -------------------------------------------------------------------------------

def _verify_inverse(x, dt):
    """InverseOpTest._verifyInverse: inv(y) y = I, and for TF's adjoint=True inv(y^H) y^H = I."""
    y = x.astype(dt)
    for adjoint in (False, True):
        yy = np.conj(np.swapaxes(y, -1, -2)) if adjoint else y
        inv = L.inv(yy).numpy()
        assert inv.shape == y.shape and inv.dtype == dt
        prod = inv.astype(np.complex128) @ yy.astype(np.complex128)
        np.testing.assert_allclose(prod, np.broadcast_to(np.eye(y.shape[-1]), y.shape), atol=1e-3)


def test_matrix_inverse():
    """InverseOpTest.testNonsymmetric / testSymmetricPositiveDefinite (2x2, their batch, complex), testEmpty,
    testRandomSmallAndLarge (sizes 8 and 31, a batch), testNonSquareMatrix / testWrongDimensions (ValueError).
    (testNotInvertible: TF raises "Input is not invertible"; tj gives JAX's inf/nan, decided earlier.)"""
    for m1, m2 in ((np.array([[1., 2.], [3., 4.]]), np.array([[1., 3.], [3., 5.]])),
                   (np.array([[2., 1.], [1., 2.]]), np.array([[3., -1.], [-1., 3.]]))):
        batch = np.tile(np.stack([m1, m2]), [2, 3, 1, 1])
        for m in (m1, m2, batch):
            _verify_inverse(m, np.float32)
            _verify_inverse(m + 1j * m, np.complex64)
    assert L.inv(np.empty([0, 2, 2], np.float32)).shape == (0, 2, 2)
    assert L.inv(np.empty([2, 0, 0], np.float32)).shape == (2, 0, 0)
    rs = np.random.RandomState(42)
    for shape in ((8, 8), (31, 31), (2, 2, 8, 8)):
        _verify_inverse(rs.uniform(-1, 1, size=shape), np.float32)
    for bad in (np.ones((2, 3), np.float32), np.array([1., 2.], np.float32)):
        with pytest.raises(ValueError):
            L.inv(bad)


# -- matrix_solve_op_test.py ---------------------------------------------------------------------------------

def test_matrix_solve():
    """MatrixSolveOpTest.testSolve / testSolveBatch (float32 and complex64, TF's adjoint=True as the solve of the
    adjoint), testNonSquareMatrix / testWrongDimensions (ValueError). (testNotInvertible: TF raises "Input matrix
    is not invertible"; tj gives JAX's inf/nan, decided earlier.)"""
    rs = np.random.RandomState(0)

    def gen(m, n):
        return rs.normal(-5, 5, (m, n)) + 1j * rs.normal(-5, 5, (m, n))
    for n, nrhs, batch in ((1, 1, ()), (4, 1, ()), (5, 5, (2, 2))):
        x, y = gen(n, n), gen(n, nrhs)
        for dt in (np.float32, np.complex64):
            a, b = (x.real, y.real) if dt == np.float32 else (x, y)
            a, b = a.astype(dt), b.astype(dt)
            for adjoint in (False, True):
                a_np = np.conj(a.T) if adjoint else a
                a_b, a_np_b, b_b = (np.tile(z, batch + (1, 1)) for z in (a, a_np, b))
                want = np.linalg.solve(a_np_b.astype(np.complex128), b_b.astype(np.complex128))
                got = L.solve(_h(tj.constant(a_b)) if adjoint else a_b, b_b).numpy()
                assert got.shape == want.shape and got.dtype == dt
                np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3 * np.abs(want).max())
    with pytest.raises(ValueError):
        m = np.array([[1., 2., 3.], [3., 4., 5.]], np.float32)
        L.solve(m, m)
    with pytest.raises(ValueError):
        L.solve(np.eye(2, dtype=np.float32), np.array([[1., 0.]], np.float32))
    with pytest.raises(ValueError):
        L.solve(np.ones((2, 6, 2, 2), np.float32), np.ones((2, 3, 2, 2), np.float32))


# -- matrix_solve_ls_op_test.py ------------------------------------------------------------------------------

_LS_CASES = {
    "square": (np.array([[1., 2.], [3., 4.]]), np.array([[1., 0., 1.], [0., 1., 1.]])),
    "over": (np.array([[1., 2.], [3., 4.], [5., 6.]]), np.array([[1., 0., 1.], [0., 1., 1.], [1., 1., 0.]])),
    "under": (np.array([[1., 2., 3], [4., 5., 6.]]), np.array([[1., 0., 1.], [0., 1., 1.]])),
}


@pytest.mark.parametrize("case", ["square", "over", "under"])
def test_matrix_solve_ls(case):
    """MatrixSolveLsOpTest.test_MatrixSolveLsOpTest_{Square,Overdetermined,Underdetermined}_*_fast_{True,False}_
    regu_0 (float32 and complex64 with imag = real, batch shapes () and (2, 3)): TF's fast and slow paths give
    the same answers, and A^H (b - A x) = 0."""
    a, b = _LS_CASES[case]
    for dt, sfx in ((np.float32, ""), (np.complex64, "_c")):
        aa, bb = (a + 1j * a, b + 1j * b) if sfx else (a, b)
        aa, bb = aa.astype(dt), bb.astype(dt)
        for fast in (True, False):
            want = globals()[f"LSV_{case}_{fast}{sfx}"]
            for batch in ((), (2, 3)):
                got = L.lstsq(np.tile(aa, batch + (1, 1)), np.tile(bb, batch + (1, 1)))[0].numpy()
                assert got.shape == batch + want.shape and got.dtype == dt
                np.testing.assert_allclose(got, np.broadcast_to(want, got.shape), rtol=2e-3, atol=2e-3)
            r = np.conj(aa.T) @ (bb - aa @ got[0, 0])
            np.testing.assert_allclose(r, 0, atol=5e-3)  # A^H (b - A x) = 0


def test_matrix_solve_ls_errors_empty_and_batches():
    """MatrixSolveLsOpTest.testWrongDimensions (ValueError), testEmpty (TF's result shapes, zeros for the
    (0, 2) system), testBatchResultSize (a (3, 3, 3) batch and (3, 3, 1) right-hand sides give (3, 3, 1))."""
    with pytest.raises(ValueError):
        L.lstsq(np.eye(2, dtype=np.float32), np.array([[1., 0.]], np.float32))
    full = np.array([[1., 2.], [3., 4.], [5., 6.]], np.float32)
    e0, e1 = np.empty([3, 0], np.float32), np.empty([0, 2], np.float32)
    assert L.lstsq(e0, e0)[0].shape == (0, 0)
    assert L.lstsq(e0, full)[0].shape == (0, 2)
    assert L.lstsq(full, e0)[0].shape == (2, 0)
    np.testing.assert_array_equal(L.lstsq(e1, e1)[0].numpy(), np.zeros((2, 2)))
    m = np.array([1., 0., 0., 0., 1., 0., 0., 0., 1.] * 3, np.float32).reshape(3, 3, 3)
    rhs = np.array([1., 2., 3.] * 3, np.float32).reshape(3, 3, 1)
    x = L.lstsq(m, rhs)[0]
    assert x.shape == (3, 3, 1) and L.solve(m, rhs).shape == (3, 3, 1)
    np.testing.assert_allclose(x.numpy(), rhs, atol=1e-6)


# -- norm_op_test.py -----------------------------------------------------------------------------------------

def _norm_key(o, ax, kd):
    return f"NORM_{o}_{ax}_{kd}".replace("(", "").replace(")", "").replace(", ", "_").replace("-", "m").replace(
        ".", "p")


def test_norm_values():
    """NormOpTest.test_Norm_* with an explicit axis: TF's vector norms (ord 'euclidean', 1, 2, inf, 0.5) along one
    axis and matrix norms ('fro', 'euclidean', 1, 2, inf) over two, keepdims False/True, float32 and complex64.
    TF's 'euclidean' is jnp's ord=None. (axis=None: tf.norm flattens, jnp's 2-D norm is a matrix norm; TF's
    own test runs only in TF1 graph mode.)"""
    for o in ("fro", "euclidean", 1, 2, np.inf, 0.5):
        for ax, kd in ((2, False), (-3, True), ((-2, -1), False), ((-1, -2), True)):
            key = _norm_key(o, ax, kd)
            if key in globals():
                jo = None if o == "euclidean" else o
                got = L.norm(NORM_X.astype(np.float32), ord=jo, axis=ax, keepdims=kd).numpy()
                np.testing.assert_allclose(got, globals()[key], rtol=1e-5, atol=1e-5, err_msg=key)
    xc = NORM_XC.astype(np.complex64)
    for o in ("euclidean", 1, 2, np.inf):
        got = L.norm(xc, ord=None if o == "euclidean" else o, axis=-1).numpy()
        np.testing.assert_allclose(got, globals()[f"NORMC_{o}"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(L.norm(xc, ord="fro", axis=(-2, -1)).numpy(), NORMC_fro, rtol=1e-5)


# -- the *ConcurrentExecutesWithoutError / testExecuteMultipleWithoutError tests -----------------------------

def test_repeated_decompositions_are_identical():
    """SvdOpTest.testExecuteMultipleWithoutError, QrOpTest / CholeskyOpTest / SelfAdjointEigTest
    .testConcurrentExecutesWithoutError, MatrixSolveOpTest.testConcurrent: the same input twice gives the same
    outputs, bit for bit."""
    m = np.random.RandomState(42).normal(size=(3, 2)).astype(np.float32)
    sq = np.random.RandomState(24).normal(size=(2, 2)).astype(np.float32)
    spd = sq @ sq.T + np.eye(2, dtype=np.float32)
    runs = [lambda: L.svd(m, full_matrices=True), lambda: L.svd(m, full_matrices=False),
            lambda: L.svd(m, compute_uv=False), lambda: L.qr(m, mode="complete"), lambda: L.qr(m),
            lambda: L.eigh(spd), lambda: L.eigvalsh(spd), lambda: L.cholesky(spd), lambda: L.solve(sq, sq),
            lambda: L.solve(_h(tj.constant(sq)), sq)]
    for run in runs:
        first, second = run(), run()
        for x, y in zip(*(o if isinstance(o, tuple) else (o,) for o in (first, second))):
            np.testing.assert_array_equal(x.numpy(), y.numpy())


# == TF 2.21's values (computed with the TF cases above on the same inputs; Jacobians of shape out + in) ======
SVD_f32_2x3_full_s = np.array([[[-0.16194126,  0.57444763,  0.4127363 ],
  [ 0.15355377, -0.54469502, -0.39135927]],

 [[-0.0926234 ,  0.38041681, -0.56580698],
  [-0.09768271,  0.40119612, -0.59671277]]])
SVD_f32_2x3_full_u = np.array([[[[ 0.08340584, -0.30002108, -0.14826503],
   [ 0.07308401, -0.2553044 , -0.24724658]],

  [[-0.08796168,  0.31640899,  0.15636364],
   [-0.07707604,  0.26924977,  0.26075181]]],


 [[[ 0.08796168, -0.31640899, -0.15636364],
   [ 0.07707604, -0.26924977, -0.26075181]],

  [[ 0.08340584, -0.30002108, -0.14826503],
   [ 0.07308401, -0.2553044 , -0.24724658]]]])
SVD_f32_2x3_full_v = np.array([[[[-0.48662838, -0.08098972, -0.06021404],
   [ 0.45684877,  0.0930255 ,  0.06875685]],

  [[-2.91038799, -0.86709338,  0.03506618],
   [-3.1007576 , -0.78550464, -0.15481251]],

  [[ 0.51829135,  0.13962278,  0.00902948],
   [ 0.32674465,  0.0880219 ,  0.00569242]]],


 [[[-0.07971067, -0.22725445,  0.21109885],
   [ 0.09437441,  0.14882331, -0.24806066]],

  [[-0.8583166 ,  0.06342229, -0.31920111],
   [-0.79382688, -0.39053807,  0.34370673]],

  [[-2.06723332, -0.55689305, -0.03601455],
   [-1.40026069, -0.37721694, -0.02439481]]],


 [[[-0.07999197,  0.28451616, -0.31743371],
   [ 0.0478986 , -0.17063309,  0.37222913]],

  [[-0.10064928,  0.18458605, -0.22035344],
   [-0.02612622, -0.13398759,  0.25643194]],

  [[ 2.21573067,  0.59689689,  0.03860162],
   [ 2.8971045 ,  0.78045255,  0.05047226]]]])
SVD_f32_2x3_s = np.array([[[-0.16194126,  0.57444763,  0.4127363 ],
  [ 0.15355377, -0.54469502, -0.39135927]],

 [[-0.0926234 ,  0.38041681, -0.56580698],
  [-0.09768271,  0.40119612, -0.59671277]]])
SVD_f32_2x3_u = np.array([[[[ 0.08340584, -0.30002108, -0.14826503],
   [ 0.07308401, -0.2553044 , -0.24724658]],

  [[-0.08796168,  0.31640899,  0.15636364],
   [-0.07707604,  0.26924977,  0.26075181]]],


 [[[ 0.08796168, -0.31640899, -0.15636364],
   [ 0.07707604, -0.26924977, -0.26075181]],

  [[ 0.08340584, -0.30002108, -0.14826503],
   [ 0.07308401, -0.2553044 , -0.24724658]]]])
SVD_f32_2x3_v = np.array([[[[-0.48662838, -0.08098972, -0.06021404],
   [ 0.45684877,  0.0930255 ,  0.06875685]],

  [[-2.91038799, -0.86709338,  0.03506618],
   [-3.1007576 , -0.78550464, -0.15481251]]],


 [[[-0.07971067, -0.22725445,  0.21109885],
   [ 0.09437441,  0.14882331, -0.24806066]],

  [[-0.8583166 ,  0.06342229, -0.31920111],
   [-0.79382688, -0.39053807,  0.34370673]]],


 [[[-0.07999197,  0.28451616, -0.31743371],
   [ 0.0478986 , -0.17063309,  0.37222913]],

  [[-0.10064928,  0.18458605, -0.22035344],
   [-0.02612622, -0.13398759,  0.25643194]]]])
SVD_f32_3x2_full_s = np.array([[[ 0.24612845,  0.53077298],
  [ 0.12931551,  0.2788673 ],
  [-0.3157146 , -0.68083465]],

 [[-0.71403903,  0.33111203],
  [ 0.39760876, -0.18437794],
  [-0.39379981,  0.18261167]]])
SVD_f32_3x2_full_u = np.array([[[[ 0.00774018,  0.96770877],
   [-0.33270237, -0.21780556],
   [ 0.69639695,  0.28187996]],

  [[-0.04090056, -0.67731613],
   [ 0.09544821,  0.34346014],
   [-0.60726154, -0.10240936]],

  [[ 0.14151189, -0.16918232],
   [ 0.61144125, -0.73099905],
   [ 0.36076552, -0.43130755]]],


 [[[ 0.06010345, -0.39995635],
   [ 0.46358007,  0.72147012],
   [-0.2235712 ,  0.19716144]],

  [[-0.19214259, -0.27672589],
   [-0.68720734,  0.52237779],
   [-0.75411242,  0.14793815]],

  [[-0.12157464,  0.00196552],
   [-0.52529687,  0.00849258],
   [-0.30993816,  0.00501082]]],


 [[[ 0.03065232,  0.59059703],
   [-0.06949136,  0.12571199],
   [ 0.45133135,  0.30050778]],

  [[-0.11983992,  0.94870925],
   [-0.86692119, -0.09533261],
   [ 0.33968219,  0.33505797]],

  [[ 0.15054139,  0.06303127],
   [ 0.65045571,  0.27234408],
   [ 0.38378501,  0.16068974]]]])
SVD_f32_3x2_full_v = np.array([[[[ 0.39954048, -0.86909783],
   [ 0.49236301,  0.15246664],
   [-0.99120009,  0.08250032]],

  [[ 0.18527371, -0.40301543],
   [ 0.2283171 ,  0.07070138],
   [-0.4596363 ,  0.0382568 ]]],


 [[[-0.18527371,  0.40301543],
   [-0.2283171 , -0.07070138],
   [ 0.4596363 , -0.0382568 ]],

  [[ 0.39954048, -0.86909783],
   [ 0.49236301,  0.15246664],
   [-0.99120009,  0.08250032]]]])
SVD_f32_3x2_s = np.array([[[ 0.24612845,  0.53077298],
  [ 0.12931551,  0.2788673 ],
  [-0.3157146 , -0.68083465]],

 [[-0.71403903,  0.33111203],
  [ 0.39760876, -0.18437794],
  [-0.39379981,  0.18261167]]])
SVD_f32_3x2_u = np.array([[[[ 0.00774018,  0.96770877],
   [-0.33270237, -0.21780556],
   [ 0.69639695,  0.28187996]],

  [[-0.04090056, -0.67731613],
   [ 0.09544821,  0.34346014],
   [-0.60726154, -0.10240936]]],


 [[[ 0.06010345, -0.39995635],
   [ 0.46358007,  0.72147012],
   [-0.2235712 ,  0.19716144]],

  [[-0.19214259, -0.27672589],
   [-0.68720734,  0.52237779],
   [-0.75411242,  0.14793815]]],


 [[[ 0.03065232,  0.59059703],
   [-0.06949136,  0.12571199],
   [ 0.45133135,  0.30050778]],

  [[-0.11983992,  0.94870925],
   [-0.86692119, -0.09533261],
   [ 0.33968219,  0.33505797]]]])
SVD_f32_3x2_v = np.array([[[[ 0.39954048, -0.86909783],
   [ 0.49236301,  0.15246664],
   [-0.99120009,  0.08250032]],

  [[ 0.18527371, -0.40301543],
   [ 0.2283171 ,  0.07070138],
   [-0.4596363 ,  0.0382568 ]]],


 [[[-0.18527371,  0.40301543],
   [-0.2283171 , -0.07070138],
   [ 0.4596363 , -0.0382568 ]],

  [[ 0.39954048, -0.86909783],
   [ 0.49236301,  0.15246664],
   [-0.99120009,  0.08250032]]]])
SVD_f32_2x2x3_full_s = np.array([[[[[-0.16194126,  0.57444763,  0.4127363 ],
    [ 0.15355377, -0.54469502, -0.39135927]],

   [[ 0.        ,  0.        ,  0.        ],
    [ 0.        ,  0.        ,  0.        ]]],


  [[[-0.0926234 ,  0.38041681, -0.56580698],
    [-0.09768271,  0.40119612, -0.59671277]],

   [[ 0.        ,  0.        ,  0.        ],
    [ 0.        ,  0.        ,  0.        ]]]],



 [[[[ 0.        ,  0.        ,  0.        ],
    [ 0.        ,  0.        ,  0.        ]],

   [[-0.30512738,  0.43250588, -0.23306166],
    [ 0.43040258, -0.61007845,  0.32874903]]],


  [[[ 0.        ,  0.        ,  0.        ],
    [ 0.        ,  0.        ,  0.        ]],

   [[-0.45721409,  0.04084669,  0.67439228],
    [-0.32413501,  0.02895764,  0.47810018]]]]])
SVD_f32_2x2x3_full_u = np.array([[[[[[ 0.08340584, -0.30002108, -0.14826503],
     [ 0.07308401, -0.2553044 , -0.24724658]],

    [[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]]],


   [[[-0.08796168,  0.31640899,  0.15636364],
     [-0.07707604,  0.26924977,  0.26075181]],

    [[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]]]],



  [[[[ 0.08796168, -0.31640899, -0.15636364],
     [ 0.07707604, -0.26924977, -0.26075181]],

    [[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]]],


   [[[ 0.08340584, -0.30002108, -0.14826503],
     [ 0.07308401, -0.2553044 , -0.24724658]],

    [[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]]]]],




 [[[[[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]],

    [[ 0.42505926, -0.44111618,  0.0526147 ],
     [ 0.04378552, -0.28971323,  0.41719311]]],


   [[[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]],

    [[-0.30133933,  0.31272265, -0.0373004 ],
     [-0.03104109,  0.20538783, -0.29576275]]]],



  [[[[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]],

    [[ 0.30133933, -0.31272265,  0.0373004 ],
     [ 0.03104109, -0.20538783,  0.29576275]]],


   [[[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]],

    [[ 0.42505926, -0.44111618,  0.0526147 ],
     [ 0.04378552, -0.28971323,  0.41719311]]]]]])
SVD_f32_2x2x3_full_v = np.array([[[[[[-0.48662838, -0.08098972, -0.06021404],
     [ 0.45684877,  0.0930255 ,  0.06875684]],

    [[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]]],


   [[[-2.91038799, -0.86709338,  0.03506618],
     [-3.1007576 , -0.78550464, -0.15481251]],

    [[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]]],


   [[[ 0.51829135,  0.13962278,  0.00902948],
     [ 0.32674465,  0.0880219 ,  0.00569242]],

    [[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]]]],



  [[[[-0.07971067, -0.22725448,  0.21109883],
     [ 0.09437441,  0.14882334, -0.24806066]],

    [[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]]],


   [[[-0.8583166 ,  0.06342211, -0.31920117],
     [-0.79382688, -0.39053828,  0.3437067 ]],

    [[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]]],


   [[[-2.06723332, -0.55689305, -0.03601455],
     [-1.40026069, -0.37721694, -0.02439481]],

    [[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]]]],



  [[[[-0.07999197,  0.28451616, -0.31743371],
     [ 0.0478986 , -0.17063309,  0.37222913]],

    [[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]]],


   [[[-0.10064928,  0.18458602, -0.22035344],
     [-0.02612621, -0.13398762,  0.25643194]],

    [[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]]],


   [[[ 2.21573067,  0.59689689,  0.03860162],
     [ 2.8971045 ,  0.78045255,  0.05047226]],

    [[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]]]]],




 [[[[[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]],

    [[-0.41408497,  0.01956791,  0.05704794],
     [ 0.34914386,  0.30543128, -0.25992936]]],


   [[[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]],

    [[-0.13572454, -0.56337774, -0.37698433],
     [-0.40956295, -0.37140459,  0.19492479]]],


   [[[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]],

    [[ 0.46136889,  0.47842699,  0.28381428],
     [ 0.07101754,  0.07364323,  0.04368693]]]],



  [[[[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]],

    [[-0.12765682, -0.17248626, -0.10638244],
     [ 0.20105855,  0.21355082,  0.16609213]]],


   [[[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]],

    [[-0.75972474, -0.18874577, -0.05133627],
     [-0.09444401, -0.17348814, -0.69151878]]],


   [[[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]],

    [[-0.201672  , -0.20912838, -0.12405994],
     [ 0.21998669,  0.22812024,  0.13532634]]]],



  [[[[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]],

    [[ 0.30522531, -0.34571111, -0.27210796],
     [-0.08398776, -0.00357632,  0.64852971]]],


   [[[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]],

    [[-0.0460013 , -0.37051821, -0.2524727 ],
     [-0.2719489 , -0.24129131,  0.17403609]]],


   [[[ 0.        ,  0.        ,  0.        ],
     [ 0.        ,  0.        ,  0.        ]],

    [[-0.41004241, -0.42520282, -0.25224042],
     [-0.48627874, -0.50425786, -0.29913774]]]]]])
SVDVALS_f32_3x2 = np.array([[[ 0.24612845,  0.53077298],
  [ 0.12931551,  0.2788673 ],
  [-0.3157146 , -0.68083465]],

 [[-0.71403903,  0.33111203],
  [ 0.39760876, -0.18437794],
  [-0.39379981,  0.18261167]]])
SVDVALS_c64_2x3 = np.array([[[-0.08111494-0.27989611j,  0.30526662+0.39017668j,  0.283075  -0.14967385j],
  [ 0.14003229+0.30273262j, -0.41267949-0.38888177j, -0.29451185+0.21815771j]],

 [[-0.08588326-0.31651074j,  0.27520049-0.11830752j, -0.16122921+0.58637667j],
  [-0.1158222 -0.26207179j,  0.22212577-0.13839184j, -0.06210276+0.52766967j]]])
QR_f32_2x3_q = np.array([[[[ 1.19702005e+00,  0.00000000e+00,  0.00000000e+00],
   [ 1.52220035e+00,  0.00000000e+00,  0.00000000e+00]],

  [[ 1.52221310e+00,  3.62842070e-06,  0.00000000e+00],
   [ 1.93571734e+00, -3.64068399e-07,  0.00000000e+00]]],


 [[[ 1.52220023e+00,  0.00000000e+00,  0.00000000e+00],
   [ 1.93571866e+00,  0.00000000e+00,  0.00000000e+00]],

  [[-1.19702113e+00, -3.64068399e-07,  0.00000000e+00],
   [-1.52220035e+00,  0.00000000e+00,  0.00000000e+00]]]])
QR_f32_2x3_r = np.array([[[[-7.86066055e-01,  0.00000000e+00,  0.00000000e+00],
   [ 6.18142486e-01,  0.00000000e+00,  0.00000000e+00]],

  [[ 3.18108462e-02, -7.86066055e-01,  0.00000000e+00],
   [ 4.04525287e-02,  6.18142486e-01,  0.00000000e+00]],

  [[-4.91887569e-01,  0.00000000e+00, -7.86066055e-01],
   [-6.25513256e-01,  0.00000000e+00,  6.18142486e-01]]],


 [[[ 3.68441633e-08,  0.00000000e+00,  0.00000000e+00],
   [ 4.68531880e-08,  0.00000000e+00,  0.00000000e+00]],

  [[ 2.19565964e+00,  6.18142486e-01,  0.00000000e+00],
   [ 2.79212904e+00,  7.86066055e-01,  0.00000000e+00]],

  [[ 1.52985168e+00,  1.81421035e-06,  6.18142486e-01],
   [ 1.94542766e+00, -3.62842070e-06,  7.86066055e-01]]]])
QR_f32_3x2_q = np.array([[[[ 1.05688143,  0.        ],
   [ 0.17869604,  0.        ],
   [-0.26495564,  0.        ]],

  [[-0.29694179, -0.03529527],
   [ 0.0723624 , -0.15250303],
   [ 0.1571072 , -0.08998068]]],


 [[[ 0.17869604,  0.        ],
   [ 0.8230828 ,  0.        ],
   [ 0.48994228,  0.        ]],

  [[ 0.64723051, -0.15250303],
   [ 0.29023704, -0.65893197],
   [-0.04031689, -0.38878617]]],


 [[[-0.26495564,  0.        ],
   [ 0.48994228,  0.        ],
   [ 0.42707258,  0.        ]],

  [[-0.81720454, -0.08998068],
   [ 0.18517758, -0.38878617],
   [ 0.42294881, -0.22939357]]]])
QR_f32_3x2_r = np.array([[[[-0.28944051,  0.        ],
   [ 0.53521848,  0.        ],
   [-0.79357749,  0.        ]],

  [[ 1.1702553 , -0.28944051],
   [-0.0135956 ,  0.53521848],
   [-0.43599522, -0.79357749]]],


 [[[ 0.        ,  0.        ],
   [ 0.        ,  0.        ],
   [ 0.        ,  0.        ]],

  [[ 0.42228338, -0.93702197],
   [-0.00490594,  0.01088598],
   [-0.15732767,  0.34910083]]]])
QR_f32_2x3_full_q = np.array([[[[ 1.19702005e+00,  0.00000000e+00,  0.00000000e+00],
   [ 1.52220035e+00,  0.00000000e+00,  0.00000000e+00]],

  [[ 1.52221310e+00,  3.62842070e-06,  0.00000000e+00],
   [ 1.93571734e+00, -3.64068399e-07,  0.00000000e+00]]],


 [[[ 1.52220023e+00,  0.00000000e+00,  0.00000000e+00],
   [ 1.93571866e+00,  0.00000000e+00,  0.00000000e+00]],

  [[-1.19702113e+00, -3.64068399e-07,  0.00000000e+00],
   [-1.52220035e+00,  0.00000000e+00,  0.00000000e+00]]]])
QR_f32_2x3_full_r = np.array([[[[-7.86066055e-01,  0.00000000e+00,  0.00000000e+00],
   [ 6.18142486e-01,  0.00000000e+00,  0.00000000e+00]],

  [[ 3.18108462e-02, -7.86066055e-01,  0.00000000e+00],
   [ 4.04525287e-02,  6.18142486e-01,  0.00000000e+00]],

  [[-4.91887569e-01,  0.00000000e+00, -7.86066055e-01],
   [-6.25513256e-01,  0.00000000e+00,  6.18142486e-01]]],


 [[[ 3.68441633e-08,  0.00000000e+00,  0.00000000e+00],
   [ 4.68531880e-08,  0.00000000e+00,  0.00000000e+00]],

  [[ 2.19565964e+00,  6.18142486e-01,  0.00000000e+00],
   [ 2.79212904e+00,  7.86066055e-01,  0.00000000e+00]],

  [[ 1.52985168e+00,  1.81421035e-06,  6.18142486e-01],
   [ 1.94542766e+00, -3.62842070e-06,  7.86066055e-01]]]])
QR_c64_3x2_q = np.array([[[[ 0.61735332-0.05634221j,  0.        +0.j        ],
   [ 0.02957812+0.01289167j,  0.        +0.j        ],
   [-0.04385598-0.06112316j,  0.        +0.j        ]],

  [[-0.0551439 -0.17764506j, -0.16034387+0.07872788j],
   [ 0.18698364-0.01021053j,  0.02425118+0.26679561j],
   [ 0.15839761+0.15285993j,  0.0470336 +0.00365041j]]],


 [[[ 0.02957811+0.10418513j,  0.        +0.j        ],
   [ 0.57865453-0.02383863j,  0.        +0.j        ],
   [ 0.0810962 +0.11302581j,  0.        +0.j        ]],

  [[ 0.1021199 +0.05170868j,  0.02425117-0.06603049j],
   [-0.22459194+0.24305615j, -0.55463386+0.06358211j],
   [-0.22455554+0.0293122j , -0.21865094-0.04358086j]]],


 [[[-0.04385598-0.15447704j,  0.        +0.j        ],
   [ 0.0810962 +0.03534596j,  0.        +0.j        ],
   [ 0.51310617-0.16758531j,  0.        +0.j        ]],

  [[-0.07913575-0.29462609j,  0.0470336 +0.03379133j],
   [-0.02290154-0.18162288j, -0.21865094-0.0575272j ],
   [ 0.16714004+0.12297808j, -0.11129649-0.08154181j]]]])
QR_c64_3x2_r = np.array([[[[-0.15891969-0.55977452j,  0.        +0.j        ],
   [ 0.29386619+0.12808216j,  0.        +0.j        ],
   [-0.43572038-0.60727453j,  0.        +0.j        ]],

  [[ 0.49916732+0.21109909j, -0.15891969-0.55977452j],
   [ 0.25764957+0.32139349j,  0.29386619+0.12808216j],
   [-0.63247657+0.32105225j, -0.43572038-0.60727453j]]],


 [[[ 0.        +0.j        ,  0.        +0.j        ],
   [ 0.        +0.j        ,  0.        +0.j        ],
   [ 0.        +0.j        ,  0.        +0.j        ]],

  [[-0.33203745+0.05699897j, -0.6470111 -0.18423241j],
   [-0.19524083-0.12935522j, -0.2397432 -0.40154833j],
   [ 0.18463236-0.21988434j,  0.52235377-0.23635501j]]]])
QR_f32_2x2x3_q = np.array([[[[[[ 1.19702005e+00,  0.00000000e+00,  0.00000000e+00],
     [ 1.52220035e+00,  0.00000000e+00,  0.00000000e+00]],

    [[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
     [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00]]],


   [[[ 1.52221310e+00,  3.62842070e-06,  0.00000000e+00],
     [ 1.93571734e+00, -3.64068399e-07,  0.00000000e+00]],

    [[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
     [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00]]]],



  [[[[ 1.52220023e+00,  0.00000000e+00,  0.00000000e+00],
     [ 1.93571866e+00,  0.00000000e+00,  0.00000000e+00]],

    [[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
     [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00]]],


   [[[-1.19702113e+00, -3.64068399e-07,  0.00000000e+00],
     [-1.52220035e+00,  0.00000000e+00,  0.00000000e+00]],

    [[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
     [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00]]]]],




 [[[[[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
     [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00]],

    [[ 1.85753614e-01,  0.00000000e+00,  0.00000000e+00],
     [ 3.94513756e-01,  0.00000000e+00,  0.00000000e+00]]],


   [[[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
     [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00]],

    [[ 3.94513547e-01, -2.14593285e-07,  0.00000000e+00],
     [ 8.37890804e-01,  6.43191385e-08,  0.00000000e+00]]]],



  [[[[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
     [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00]],

    [[ 3.94513786e-01,  0.00000000e+00,  0.00000000e+00],
     [ 8.37890804e-01,  0.00000000e+00,  0.00000000e+00]]],


   [[[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
     [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00]],

    [[-1.85753420e-01,  6.43191385e-08,  0.00000000e+00],
     [-3.94513786e-01,  0.00000000e+00,  0.00000000e+00]]]]]])
QR_f32_2x2x3_r = np.array([[[[[[-7.86066055e-01,  0.00000000e+00,  0.00000000e+00],
     [ 6.18142486e-01,  0.00000000e+00,  0.00000000e+00]],

    [[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
     [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00]]],


   [[[ 3.18108462e-02, -7.86066055e-01,  0.00000000e+00],
     [ 4.04525287e-02,  6.18142486e-01,  0.00000000e+00]],

    [[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
     [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00]]],


   [[[-4.91887569e-01,  0.00000000e+00, -7.86066055e-01],
     [-6.25513256e-01,  0.00000000e+00,  6.18142486e-01]],

    [[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
     [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00]]]],



  [[[[ 3.68441633e-08,  0.00000000e+00,  0.00000000e+00],
     [ 4.68531880e-08,  0.00000000e+00,  0.00000000e+00]],

    [[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
     [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00]]],


   [[[ 2.19565964e+00,  6.18142486e-01,  0.00000000e+00],
     [ 2.79212904e+00,  7.86066055e-01,  0.00000000e+00]],

    [[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
     [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00]]],


   [[[ 1.52985168e+00,  1.81421035e-06,  6.18142486e-01],
     [ 1.94542766e+00, -3.62842070e-06,  7.86066055e-01]],

    [[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
     [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00]]]]],




 [[[[[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
     [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00]],

    [[-9.04730320e-01,  0.00000000e+00,  0.00000000e+00],
     [ 4.25984651e-01,  0.00000000e+00,  0.00000000e+00]]],


   [[[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
     [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00]],

    [[-2.42235065e-01, -9.04730320e-01,  0.00000000e+00],
     [-5.14472544e-01,  4.25984651e-01,  0.00000000e+00]]],


   [[[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
     [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00]],

    [[ 4.08336788e-01,  0.00000000e+00, -9.04730320e-01],
     [ 8.67248833e-01,  0.00000000e+00,  4.25984651e-01]]]],



  [[[[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
     [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00]],

    [[ 2.53906638e-08,  0.00000000e+00,  0.00000000e+00],
     [ 5.39261329e-08,  0.00000000e+00,  0.00000000e+00]]],


   [[[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
     [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00]],

    [[ 4.67029333e-01,  4.25984651e-01,  0.00000000e+00],
     [ 9.91903365e-01,  9.04730380e-01,  0.00000000e+00]]],


   [[[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
     [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00]],

    [[-9.47922692e-02,  0.00000000e+00,  4.25984651e-01],
     [-2.01325193e-01,  0.00000000e+00,  9.04730380e-01]]]]]])
EIG_f32_3_in = np.array([[ 0.15526694, -0.75270647,  0.71137404],
 [-0.75270647,  1.51246977, -1.11061525],
 [ 0.71137404, -1.11061525,  0.23475932]])
EIG_f32_3_e = np.array([[[ 0.30208957,  0.        ,  0.        ],
  [-0.25253484,  0.05277727,  0.        ],
  [-0.88292259,  0.36904407,  0.64513344]],

 [[ 0.54849666,  0.        ,  0.        ],
  [ 0.85739762,  0.3350662 ,  0.        ],
  [ 0.50543207,  0.39504004,  0.11643717]],

 [[ 0.14941405,  0.        ,  0.        ],
  [-0.60486281,  0.61215633,  0.        ],
  [ 0.37749013, -0.76408392,  0.23842941]]])
EIG_f32_3_v = np.array([[[[-0.67523611,  0.        ,  0.        ],
   [-0.17230961,  0.18999068,  0.        ],
   [ 0.6547116 ,  0.80304366,  0.48524511]],

  [[ 0.44050118,  0.        ,  0.        ],
   [ 0.22641936, -0.09212695,  0.        ],
   [-0.55315554, -0.64527816, -0.34837401]],

  [[ 0.11613306,  0.        ,  0.        ],
   [-0.18880656, -0.09363615,  0.        ],
   [ 0.12889442,  0.09448496, -0.02249688]]],


 [[[-0.45454478,  0.        ,  0.        ],
   [-0.31346631,  0.210435  ,  0.        ],
   [ 0.49721023,  0.80555195,  0.24410962]],

  [[-0.11787139,  0.        ,  0.        ],
   [-0.1769554 , -0.06630095,  0.        ],
   [ 0.34542036,  0.27333945,  0.18417229]],

  [[ 0.04626026,  0.        ,  0.        ],
   [-0.03887617, -0.11084054,  0.        ],
   [ 0.10956053, -0.03430407,  0.06458031]]],


 [[[-0.33205062,  0.        ,  0.        ],
   [-0.02825235,  0.0698206 ,  0.        ],
   [ 0.30580264,  0.31911302,  0.26222989]],

  [[-0.75611335,  0.        ,  0.        ],
   [-0.19124094,  0.31242356,  0.        ],
   [ 0.61461282,  0.93683195,  0.44368947]],

  [[-0.01780894,  0.        ,  0.        ],
   [ 0.08717032, -0.1034788 ,  0.        ],
   [ 0.0735167 , -0.12976235,  0.12128773]]]])
EIGVALS_f32_3 = np.array([[[ 0.30208957,  0.        ,  0.        ],
  [-0.25253484,  0.05277727,  0.        ],
  [-0.88292259,  0.36904407,  0.64513344]],

 [[ 0.54849666,  0.        ,  0.        ],
  [ 0.85739762,  0.3350662 ,  0.        ],
  [ 0.50543207,  0.39504004,  0.11643717]],

 [[ 0.14941405,  0.        ,  0.        ],
  [-0.60486281,  0.61215633,  0.        ],
  [ 0.37749013, -0.76408392,  0.23842941]]])
EIG_c64_2_in = np.array([[-0.4129301 +0.j        , -0.08397751+1.70145965j],
 [-0.08397751-1.70145965j,  0.74087799+0.j        ]])
EIG_c64_2_e = np.array([[[ 0.66037905+0.j        ,  0.        +0.j        ],
  [ 0.0466915 +0.94600958j,  0.33962095+0.j        ]],

 [[ 0.33962092+0.j        ,  0.        +0.j        ],
  [-0.0466915 -0.94600964j,  0.66037911+0.j        ]]])
EIG_c64_2_v = np.array([[[[-0.07672467+0.j        ,  0.        +0.j        ],
   [ 0.00256173+0.05190277j,  0.07672469+0.j        ]],

  [[ 0.10698785+0.j        ,  0.        +0.j        ],
   [-0.00357217-0.07237523j, -0.10698786+0.j        ]]],


 [[[ 0.00527411+0.j        ,  0.        +0.j        ],
   [-0.34144023+0.01327569j, -0.00527411+0.j        ]],

  [[ 0.00378223+0.j        ,  0.        +0.j        ],
   [ 0.47574562-0.02604587j, -0.00378223+0.j        ]]]])
EIGVALS_c64_2 = np.array([[[ 0.66037905+0.j        ,  0.        +0.j        ],
  [ 0.0466915 +0.94600958j,  0.33962095+0.j        ]],

 [[ 0.33962092+0.j        ,  0.        +0.j        ],
  [-0.0466915 -0.94600964j,  0.66037911+0.j        ]]])
EIG_f32_1_in = np.array([[0.88129795]])
EIG_f32_1_e = np.array([[[1.]]])
EIG_f32_1_v = np.array([[[[0.]]]])
EIGVALS_f32_1 = np.array([[[1.]]])
EIG_f32_3x2_in = np.array([[[-1.41297638, -1.44280243],
  [-1.44280243, -0.61775708]],

 [[-1.41297638, -1.44280243],
  [-1.44280243, -0.61775708]],

 [[-1.41297638, -1.44280243],
  [-1.44280243, -0.61775708]]])
EIG_f32_3x2_e = np.array([[[[[ 0.6328389 ,  0.        ],
    [ 0.96406198,  0.36716118]],

   [[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]],

   [[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]]],


  [[[ 0.36716118,  0.        ],
    [-0.96406198,  0.6328389 ]],

   [[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]],

   [[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]]]],



 [[[[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]],

   [[ 0.6328389 ,  0.        ],
    [ 0.96406198,  0.36716118]],

   [[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]]],


  [[[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]],

   [[ 0.36716118,  0.        ],
    [-0.96406198,  0.6328389 ]],

   [[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]]]],



 [[[[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]],

   [[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]],

   [[ 0.6328389 ,  0.        ],
    [ 0.96406198,  0.36716118]]],


  [[[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]],

   [[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]],

   [[ 0.36716118,  0.        ],
    [-0.96406198,  0.6328389 ]]]]])
EIG_f32_3x2_v = np.array([[[[[[-0.09758238,  0.        ],
     [ 0.05378382,  0.09758238]],

    [[ 0.        ,  0.        ],
     [ 0.        ,  0.        ]],

    [[ 0.        ,  0.        ],
     [ 0.        ,  0.        ]]],


   [[[ 0.12811194,  0.        ],
     [-0.07061059, -0.12811194]],

    [[ 0.        ,  0.        ],
     [ 0.        ,  0.        ]],

    [[ 0.        ,  0.        ],
     [ 0.        ,  0.        ]]]],



  [[[[ 0.12811194,  0.        ],
     [-0.07061059, -0.12811194]],

    [[ 0.        ,  0.        ],
     [ 0.        ,  0.        ]],

    [[ 0.        ,  0.        ],
     [ 0.        ,  0.        ]]],


   [[[ 0.09758238,  0.        ],
     [-0.05378382, -0.09758238]],

    [[ 0.        ,  0.        ],
     [ 0.        ,  0.        ]],

    [[ 0.        ,  0.        ],
     [ 0.        ,  0.        ]]]]],




 [[[[[ 0.        ,  0.        ],
     [ 0.        ,  0.        ]],

    [[-0.09758238,  0.        ],
     [ 0.05378382,  0.09758238]],

    [[ 0.        ,  0.        ],
     [ 0.        ,  0.        ]]],


   [[[ 0.        ,  0.        ],
     [ 0.        ,  0.        ]],

    [[ 0.12811194,  0.        ],
     [-0.07061059, -0.12811194]],

    [[ 0.        ,  0.        ],
     [ 0.        ,  0.        ]]]],



  [[[[ 0.        ,  0.        ],
     [ 0.        ,  0.        ]],

    [[ 0.12811194,  0.        ],
     [-0.07061059, -0.12811194]],

    [[ 0.        ,  0.        ],
     [ 0.        ,  0.        ]]],


   [[[ 0.        ,  0.        ],
     [ 0.        ,  0.        ]],

    [[ 0.09758238,  0.        ],
     [-0.05378382, -0.09758238]],

    [[ 0.        ,  0.        ],
     [ 0.        ,  0.        ]]]]],




 [[[[[ 0.        ,  0.        ],
     [ 0.        ,  0.        ]],

    [[ 0.        ,  0.        ],
     [ 0.        ,  0.        ]],

    [[-0.09758238,  0.        ],
     [ 0.05378382,  0.09758238]]],


   [[[ 0.        ,  0.        ],
     [ 0.        ,  0.        ]],

    [[ 0.        ,  0.        ],
     [ 0.        ,  0.        ]],

    [[ 0.12811194,  0.        ],
     [-0.07061059, -0.12811194]]]],



  [[[[ 0.        ,  0.        ],
     [ 0.        ,  0.        ]],

    [[ 0.        ,  0.        ],
     [ 0.        ,  0.        ]],

    [[ 0.12811194,  0.        ],
     [-0.07061059, -0.12811194]]],


   [[[ 0.        ,  0.        ],
     [ 0.        ,  0.        ]],

    [[ 0.        ,  0.        ],
     [ 0.        ,  0.        ]],

    [[ 0.09758238,  0.        ],
     [-0.05378382, -0.09758238]]]]]])
EIGVALS_f32_3x2 = np.array([[[[[ 0.6328389 ,  0.        ],
    [ 0.96406198,  0.36716118]],

   [[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]],

   [[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]]],


  [[[ 0.36716118,  0.        ],
    [-0.96406198,  0.6328389 ]],

   [[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]],

   [[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]]]],



 [[[[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]],

   [[ 0.6328389 ,  0.        ],
    [ 0.96406198,  0.36716118]],

   [[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]]],


  [[[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]],

   [[ 0.36716118,  0.        ],
    [-0.96406198,  0.6328389 ]],

   [[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]]]],



 [[[[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]],

   [[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]],

   [[ 0.6328389 ,  0.        ],
    [ 0.96406198,  0.36716118]]],


  [[[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]],

   [[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]],

   [[ 0.36716118,  0.        ],
    [-0.96406198,  0.6328389 ]]]]])
CHOL_f32_1_in = np.array([[1.76405239]])
CHOL_f32_1 = np.array([[[[1.]]]])
CHOL_f32_2_in = np.array([[0.40015721, 0.97873801],
 [2.24089313, 1.867558  ]])
CHOL_f32_2 = np.array([[[[ 0.26759887,  0.65451568],
   [ 0.        ,  0.        ]],

  [[ 0.        ,  0.        ],
   [ 0.        ,  0.        ]]],


 [[[ 0.84645677, -0.34607354],
   [ 0.26759884,  0.65451562]],

  [[-1.5949738 ,  0.65210485],
   [ 0.65451562, -0.26759869]]]])
CHOL_f32_2_batch = np.array([[[[[ 0.26759887,  0.65451568],
    [ 0.        ,  0.        ]],

   [[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]]],


  [[[ 0.84645677, -0.34607354],
    [ 0.26759884,  0.65451562]],

   [[-1.5949738 ,  0.65210485],
    [ 0.65451562, -0.26759869]]]],



 [[[[ 0.26759887,  0.65451568],
    [ 0.        ,  0.        ]],

   [[ 0.        ,  0.        ],
    [ 0.        ,  0.        ]]],


  [[[ 0.84645677, -0.34607354],
    [ 0.26759884,  0.65451562]],

   [[-1.5949738 ,  0.65210485],
    [ 0.65451562, -0.26759869]]]]])
CHOL_c64_2_in = np.array([[-0.97727787+0.41059852j,  0.95008844+0.14404356j],
 [-0.1513572 +1.45427346j, -0.10321885+0.76103771j]])
CHOL_c64_2 = np.array([[[[-0.48298728+0.20292474j,  0.4695498 +0.07118877j],
   [ 0.        +0.j        ,  0.        +0.j        ]],

  [[ 0.        +0.j        ,  0.        +0.j        ],
   [ 0.        +0.j        ,  0.        +0.j        ]]],


 [[[ 0.10370776+0.64372605j, -0.2245571 +0.34980652j],
   [-0.48298728+0.20292474j,  0.4695498 +0.07118877j]],

  [[ 0.12877057-0.18706962j,  0.22877887-0.10208721j],
   [ 0.04010309+0.47321945j, -0.23430027+0.46857077j]]]])
CHOL_f32_10_in = np.array([[ 0.12167501,  0.44386324,  0.33367434,  1.49407911],
 [-0.20515826,  0.3130677 , -0.85409576, -2.55298972],
 [ 0.65361857,  0.86443621, -0.74216503,  2.26975465],
 [-1.45436573,  0.04575852, -0.18718386,  1.53277922]])
CHOL_f32_10 = np.array([[[[ 3.80574241e-02,  1.38831228e-01,  1.04366422e-01,  4.67316985e-01],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00]],

  [[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00]],

  [[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00]],

  [[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00]]],


 [[[-4.81620571e-03,  3.14437509e-01, -1.04377180e-01, -6.97107837e-02],
   [ 3.80574241e-02,  1.38831228e-01,  1.04366422e-01,  4.67316985e-01],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00]],

  [[-1.10916058e-02,  7.24142432e-01, -2.40378261e-01, -1.60542369e-01],
   [-7.11198710e-03,  4.64323133e-01, -1.54131532e-01, -1.02940425e-01],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00]],

  [[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00]],

  [[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00]]],


 [[[ 1.50723532e-01,  7.44292885e-02, -3.79438162e-01,  5.03541231e-02],
   [ 7.37282457e-10,  2.68956279e-09,  2.02187977e-09,  9.05328257e-09],
   [ 3.80574241e-02,  1.38831228e-01,  1.04366422e-01,  4.67316985e-01],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00]],

  [[ 3.62836689e-01, -8.55158091e-01, -5.33069730e-01,  3.43554258e-01],
   [ 2.26216033e-01, -1.28116161e-01, -4.81296301e-01,  1.27126873e-01],
   [-7.11198710e-03,  4.64323133e-01, -1.54131532e-01, -1.02940425e-01],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00]],

  [[-4.45279598e-01,  2.52181649e-01,  9.47375178e-01, -2.50234216e-01],
   [-1.03244469e-01,  5.84719256e-02,  2.19662517e-01, -5.80204353e-02],
   [ 2.01402932e-01, -1.14063427e-01, -4.28504050e-01,  1.13182604e-01],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00]],

  [[ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00],
   [ 0.00000000e+00,  0.00000000e+00,  0.00000000e+00,  0.00000000e+00]]],


 [[[-4.85738158e-01, -9.82000083e-02, -1.43128410e-01,  1.00696117e-01],
   [-1.31972298e-11, -4.81427120e-11, -3.61913000e-11, -1.62052219e-10],
   [-3.23415461e-11, -1.17980042e-10, -8.86915333e-11, -3.97130245e-10],
   [ 3.80574241e-02,  1.38831228e-01,  1.04366422e-01,  4.67316985e-01]],

  [[-1.11487484e+00, -4.72220123e-01, -2.47939557e-01,  2.86453962e-01],
   [-7.18558192e-01, -6.15049154e-02, -2.39074051e-01,  1.30182698e-01],
   [ 6.04383384e-12, -3.94586031e-10,  1.30982392e-10,  8.74797110e-11],
   [-7.11198710e-03,  4.64323133e-01, -1.54131532e-01, -1.02940425e-01]],

  [[ 1.27511537e+00,  1.99946687e-01,  7.66924620e-01, -3.34521890e-01],
   [ 3.56622219e-01,  1.18313879e-02,  4.81063128e-02, -4.33011502e-02],
   [-6.25019372e-01, -6.30962551e-02, -2.44172871e-01,  1.24176562e-01],
   [ 2.01402932e-01, -1.14063427e-01, -4.28504050e-01,  1.13182604e-01]],

  [[ 3.15352023e-01,  3.18350680e-02,  1.23196840e-01, -6.26529753e-02],
   [-6.49214610e-02, -6.55387901e-03, -2.53625084e-02,  1.28983604e-02],
   [-3.33323032e-02, -3.36492574e-03, -1.30217467e-02,  6.62233867e-03],
   [-4.56002086e-01, -4.60338145e-02, -1.78143829e-01,  9.05968323e-02]]]])
CHOL_BLOCK_in = np.array([[ 1.76405239,  0.40015721,  0.97873801,  2.24089313,  1.867558  , -0.97727787,  0.95008844, -0.1513572 ,
  -0.10321885,  0.41059852,  0.14404356,  1.45427346,  0.76103771,  0.12167501,  0.44386324,  0.33367434,
   1.49407911, -0.20515826,  0.3130677 , -0.85409576],
 [-2.55298972,  0.65361857,  0.86443621, -0.74216503,  2.26975465, -1.45436573,  0.04575852, -0.18718386,
   1.53277922,  1.4693588 ,  0.15494743,  0.37816253, -0.88778573, -1.98079646, -0.34791216,  0.15634897,
   1.23029065,  1.20237982, -0.38732681, -0.30230275],
 [-1.04855299, -1.42001796, -1.70627022,  1.95077538, -0.5096522 , -0.43807429, -1.25279534,  0.77749038,
  -1.6138978 , -0.21274029, -0.89546657,  0.38690251, -0.51080513, -1.18063223, -0.02818223,  0.42833188,
   0.06651722,  0.30247191, -0.63432211, -0.36274117],
 [-0.67246044, -0.35955316, -0.81314629, -1.7262826 ,  0.17742614, -0.40178093, -1.63019836,  0.46278226,
  -0.90729839,  0.0519454 ,  0.72909057,  0.12898292,  1.13940072, -1.23482585,  0.40234163, -0.6848101 ,
  -0.87079716, -0.57884967, -0.31155252,  0.05616534],
 [-1.16514981,  0.90082651,  0.46566245, -1.53624368,  1.48825216,  1.89588916,  1.1787796 , -0.17992483,
  -1.07075262,  1.0544517 , -0.40317693,  1.22244501,  0.20827498,  0.97663903,  0.3563664 ,  0.70657319,
   0.01050002,  1.78587055,  0.12691209,  0.40198937],
 [ 1.8831507 , -1.34775901, -1.27048504,  0.96939671, -1.17312336,  1.94362116, -0.41361898, -0.74745482,
   1.92294204,  1.48051476,  1.86755896,  0.90604466, -0.86122566,  1.91006494, -0.26800337,  0.80245638,
   0.94725198, -0.15501009,  0.61407936,  0.9222067 ],
 [ 0.37642553, -1.09940076,  0.29823819,  1.32638586, -0.69456786, -0.14963454, -0.43515354,  1.84926379,
   0.67229474,  0.40746182, -0.76991606,  0.53924918, -0.67433268,  0.03183056, -0.63584608,  0.67643327,
   0.57659084, -0.20829876,  0.3960067 , -1.09306157],
 [-1.49125755,  0.4393917 ,  0.1666735 ,  0.63503146,  2.38314486,  0.94447947, -0.91282225,  1.11701632,
  -1.31590736, -0.4615846 , -0.0682416 ,  1.71334267, -0.74475485, -0.82643855, -0.09845252, -0.66347831,
   1.12663591, -1.0799315 , -1.14746869, -0.43782005],
 [-0.49803245,  1.92953205,  0.94942081,  0.08755124, -1.2254355 ,  0.84436297, -1.00021529, -1.54477108,
   1.18802977,  0.3169426 ,  0.9208588 ,  0.31872764,  0.8568306 , -0.65102559, -1.03424287,  0.68159449,
  -0.80340964, -0.6895498 , -0.45553249,  0.01747916],
 [-0.35399392, -1.37495124, -0.6436184 , -2.22340322,  0.62523144, -1.6020577 , -1.10438335,  0.05216508,
  -0.73956299,  1.54301465, -1.29285693,  0.26705086, -0.03928282, -1.16809344,  0.52327669, -0.17154633,
   0.77179056,  0.82350415,  2.1632359 ,  1.33652794],
 [-0.36918184, -0.23937918,  1.09965956,  0.65526372,  0.64013153, -1.616956  , -0.02432613, -0.73803091,
   0.2799246 , -0.09815039,  0.9101789 ,  0.31721821,  0.78632796, -0.4664191 , -0.94444627, -0.41004971,
  -0.01702041,  0.37915173,  2.25930905, -0.04225715],
 [-0.95594501, -0.34598178, -0.46359599,  0.48148146, -1.540797  ,  0.06326199,  0.15650654,  0.23218104,
  -0.59731609, -0.23792173, -1.42406094, -0.49331987, -0.54286146,  0.41605005, -1.15618241,  0.78119808,
   1.49448454, -2.06998491,  0.42625874,  0.67690802],
 [-0.63743705, -0.39727181, -0.13288058, -0.29779088, -0.30901298, -1.67600381,  1.15233159,  1.07961857,
  -0.81336427, -1.46642435,  0.52106488, -0.57578796,  0.14195317, -0.31932843,  0.69153875,  0.69474912,
  -0.72559738, -1.38336396, -1.58293843,  0.6103794 ],
 [-1.18885922, -0.50681633, -0.59631401, -0.0525673 , -1.93627977,  0.18877859,  0.52389103,  0.08842209,
  -0.31088617,  0.09740017,  0.39904633, -2.77259278,  1.95591235,  0.39009333, -0.6524086 , -0.39095336,
   0.49374178, -0.11610394, -2.03068447,  2.06449294],
 [-0.11054066,  1.02017272, -0.69204986,  1.53637707,  0.28634369,  0.60884386, -1.0452534 ,  1.21114528,
   0.68981814,  1.30184627, -0.62808758, -0.48102713,  2.30391669, -1.0600158 , -0.1359497 ,  1.13689137,
   0.09772497,  0.58295369, -0.39944902,  0.37005588],
 [-1.3065269 ,  1.65813065, -0.11816405, -0.68017823,  0.66638309, -0.46071979, -1.33425844, -1.34671748,
   0.69377315, -0.15957344, -0.13370156,  1.07774377, -1.12682581, -0.73067772, -0.3848798 ,  0.09435159,
  -0.04217145, -0.2868872 , -0.0616264 , -0.10730527],
 [-0.71960437, -0.81299299,  0.27451634, -0.8909151 , -1.15735531, -0.31229225, -0.15766701,  2.2567234 ,
  -0.70470029,  0.94326073,  0.74718833, -1.18894494,  0.77325296, -1.18388069, -2.6591723 ,  0.60631955,
  -1.75589061,  0.45093447, -0.68401092,  1.65955079]])
CHOL_BLOCK = np.array([[-2.14308989e-03, -1.27141902e-04, -3.72656388e-04,  5.61950903e-04,  1.32242264e-03, -4.65082150e-04,
  -2.25273264e-03,  1.22916722e-03, -6.03757333e-04,  1.96562079e-03,  4.27741732e-04,  2.48153741e-03,
   7.72564614e-04, -1.57577917e-03, -1.84035604e-03,  1.10607326e-03,  1.31807744e-03, -3.68078909e-04,
   1.27629755e-04,  4.61124873e-04],
 [-9.07630747e-05, -2.18809873e-04, -2.70453689e-04,  4.61795862e-04,  2.55424064e-04, -8.18693603e-04,
  -5.25509677e-05, -1.01137604e-03,  4.77763941e-04, -2.07670273e-05, -3.23318382e-04,  5.53435893e-05,
  -3.50757095e-04, -5.76527847e-04,  1.20363373e-03, -3.39387712e-04,  3.50077869e-04,  6.98261487e-04,
   8.58713393e-05, -1.72209810e-03],
 [-1.38165606e-05, -3.40041268e-04, -3.58930090e-04,  5.82458160e-04,  3.28595488e-04, -7.52223539e-04,
  -1.05964264e-05, -2.14025640e-04,  3.86270374e-04,  3.95002891e-04, -1.55809830e-04, -3.24463836e-05,
  -1.15696515e-04, -5.99126099e-04,  7.09688640e-04, -2.63385446e-05,  6.59432495e-04,  3.94475792e-04,
  -5.38825174e-04, -8.68785137e-04],
 [-4.86147241e-04,  1.66775455e-04, -6.60377380e-04,  2.61696754e-04,  2.49779623e-05, -5.77424827e-04,
  -7.45465048e-04, -4.87351994e-04, -1.06318286e-04,  1.29972037e-03,  8.36751642e-05,  8.20237212e-04,
   1.06688507e-03, -4.99684946e-04, -7.48377934e-04,  5.94753015e-04,  8.74555029e-04, -2.79540196e-04,
   4.24015481e-04, -9.96151939e-04],
 [-9.05526627e-04,  2.30112073e-05,  2.40943933e-04,  6.27106230e-04,  4.65453631e-04,  3.74535710e-04,
  -7.58151873e-04,  1.17305107e-03, -5.35965024e-04,  1.66055106e-03,  5.26123215e-04,  1.24543242e-03,
   1.46368053e-03, -4.41663520e-04, -1.91462669e-03,  1.15854642e-03,  1.22120173e-03, -8.78792838e-04,
   2.32386403e-04,  1.30749831e-03],
 [-8.26438481e-04,  9.18467777e-05,  1.88203776e-04,  6.30289200e-04,  7.21415097e-04,  3.56286582e-05,
  -5.79760643e-04,  8.93962861e-04, -6.02895394e-04,  1.09385129e-03,  3.72953975e-04,  1.05448265e-03,
   1.23635866e-03, -5.08576282e-04, -1.20048190e-03,  9.12497926e-04,  7.89780286e-04, -4.14809852e-04,
   2.25942465e-04,  1.22548849e-03],
 [-6.88432541e-04,  9.88463289e-05,  5.65924158e-04,  5.75431506e-04,  2.94505153e-04,  8.43528032e-05,
  -2.97892984e-04,  1.06661825e-03, -9.46796557e-04,  1.75423711e-03,  3.47148161e-04,  9.27882851e-04,
   1.57645624e-03, -8.75821221e-04, -1.88855105e-03,  1.31835125e-03,  9.94073576e-04, -7.58175971e-04,
  -2.42319729e-04,  1.55546772e-03],
 [-1.49810326e-03,  2.68935604e-04,  1.11366482e-03,  1.13561354e-03,  3.95995594e-04,  1.65007688e-04,
  -3.96138465e-04,  1.82039733e-03, -8.96448968e-04,  1.36342680e-03,  5.46872790e-04,  9.86522762e-04,
   2.26302026e-03, -7.79018155e-04, -2.18471722e-03,  1.88562367e-03,  1.34632085e-03, -1.53745385e-03,
  -5.39896973e-05,  3.45228193e-03],
 [-9.10465838e-04, -3.68051464e-04,  7.91652652e-04,  5.43166534e-04,  4.10795794e-04,  8.00542999e-04,
  -5.30810503e-04,  1.05525402e-03, -3.43104737e-04,  1.14573212e-03,  1.26115861e-04,  8.98861152e-04,
   1.21994794e-03, -8.02861119e-04,  1.22427999e-04,  6.58416771e-04,  1.44248828e-03, -7.28248851e-04,
  -6.54345204e-04,  8.83869710e-04],
 [-7.48273043e-04, -2.27944009e-04,  8.22377566e-04,  6.55870652e-04,  7.29560677e-04,  3.88971006e-04,
  -5.48797369e-04,  1.40606705e-03, -5.87991613e-04,  1.03711965e-03,  3.66724358e-04,  1.09315594e-03,
   1.01929239e-03, -7.86316814e-04, -7.71984167e-04,  8.81762244e-04,  9.69064131e-04, -6.73120725e-04,
  -2.64600996e-04,  1.79742172e-03],
 [-1.18924154e-03, -1.14145296e-04,  3.42756073e-04,  7.47214071e-04,  9.09165363e-04,  9.05336710e-05,
  -5.66589079e-05,  1.78031658e-03, -8.94487777e-04,  1.22351246e-03,  6.89527311e-04,  7.15611735e-04,
   1.62483298e-03, -4.19727527e-04, -1.97764579e-03,  1.15292228e-03,  1.27133005e-03, -1.14558975e-03,
   5.66936251e-06,  2.19604699e-03],
 [-1.04164984e-03,  1.41272700e-04, -1.62840675e-04,  3.23956890e-04,  8.29809287e-04,  3.41114763e-04,
  -9.94513277e-04,  3.46724497e-04, -4.08058288e-04,  6.60739839e-04,  1.08094158e-04,  1.46153383e-03,
   6.22796535e-04, -1.11737449e-04, -7.78217684e-04,  2.71521072e-04,  9.64646810e-04, -5.58410480e-04,
   7.97626155e-04, -4.33318957e-04],
 [-7.03372061e-04, -1.75540481e-04,  7.11947388e-04,  8.36555730e-04,  9.95224924e-04,  5.05669275e-04,
  -6.81959558e-04,  1.38746307e-03, -6.25197543e-04,  9.78517695e-04,  5.17049688e-04,  9.76469368e-04,
   1.00917288e-03, -7.85102253e-04, -1.25003001e-03,  5.28717123e-04,  7.10606109e-04, -3.72410286e-04,
   1.84292498e-04,  1.61274627e-03],
 [-6.70999696e-04, -1.92549953e-04,  5.47571166e-04,  4.11555637e-04,  7.95233413e-04,  1.58402210e-04,
  -5.98296232e-04,  8.49389762e-04, -8.24656337e-04,  8.68528907e-04,  5.56238636e-04,  1.52070611e-03,
   4.13326023e-04, -5.84467140e-04, -1.25809445e-03,  6.13030279e-04,  5.97888778e-04, -5.51320380e-04,
   2.26915159e-04,  8.09011457e-04],
 [-7.35285692e-04,  8.89899893e-05,  2.22397721e-04,  5.68169286e-04,  1.05670607e-03,  2.18671747e-04,
  -6.90242625e-04,  1.11157016e-03, -5.50089113e-04,  7.42760429e-04,  4.58105584e-04,  1.36103993e-03,
   5.91017422e-04, -5.46020921e-04, -1.15852908e-03,  8.00276408e-04,  4.85781755e-04, -5.80617110e-04,
   4.64701181e-04,  1.00518367e-03],
 [-1.30482193e-04,  5.86540613e-04, -2.72185745e-04,  3.61309736e-04,  1.35072845e-03, -3.45468463e-04,
  -7.17160932e-04,  1.34748593e-03, -9.15491197e-04,  1.03978254e-03,  4.96507681e-04,  1.45332085e-03,
   2.65677751e-04, -2.52987520e-04, -2.57848110e-03,  7.73372070e-04,  1.69179300e-04, -3.83977836e-04,
   8.00865164e-05,  1.20653247e-03],
 [-7.67701480e-04,  3.17148137e-04,  4.69507686e-05,  5.08221565e-04,  1.05801236e-03, -1.39633514e-04,
  -9.49515088e-04,  1.16635871e-03, -4.62701835e-04,  6.15068479e-04,  3.61842103e-04,  1.57147530e-03,
   6.39811158e-04, -7.23192934e-05, -1.32987357e-03,  7.55248591e-04,  5.30006830e-04, -4.18984360e-04,
   3.12743505e-04,  1.05879770e-03]])
SOLVE_2x2_a = np.array([[[[ 0.78105283, -0.        ],
   [ 0.87057871, -0.        ]],

  [[-0.        ,  0.78105289],
   [-0.        ,  0.87057877]]],


 [[[-1.97522199, -0.        ],
   [ 0.32787493, -0.        ]],

  [[-0.        , -1.97522211],
   [-0.        ,  0.32787496]]]])
SOLVE_2x2_b = np.array([[[[-0.78105289,  0.        ],
   [-0.87057877, -0.        ]],

  [[ 0.        , -0.78105289],
   [-0.        , -0.87057877]]],


 [[[ 1.97522211,  0.        ],
   [-0.32787496, -0.        ]],

  [[ 0.        ,  1.97522211],
   [-0.        , -0.32787496]]]])
SOLVE_2x2_adj_a = np.array([[[[-1.44115937,  3.6445806 ],
   [ 0.36887378, -0.93285322]],

  [[-0.87871897,  2.22221231],
   [-0.19838683,  0.50170493]]],


 [[[-1.60634828, -0.60497838],
   [ 0.41115493,  0.15484801]],

  [[-0.97943974, -0.36887383],
   [-0.22112636, -0.08327999]]]])
SOLVE_2x2_adj_b = np.array([[[[-0.78105277, -0.        ],
   [ 1.97522199,  0.        ]],

  [[-0.        , -0.78105277],
   [ 0.        ,  1.97522199]]],


 [[[-0.87057877, -0.        ],
   [-0.32787493,  0.        ]],

  [[-0.        , -0.87057877],
   [ 0.        , -0.32787493]]]])
SOLVE_2x2x2_a = np.array([[[[[[ 7.81052828e-01, -0.00000000e+00],
     [ 8.70578706e-01, -0.00000000e+00]],

    [[-0.00000000e+00, -0.00000000e+00],
     [-0.00000000e+00, -0.00000000e+00]]],


   [[[-0.00000000e+00,  7.81052887e-01],
     [-0.00000000e+00,  8.70578766e-01]],

    [[-0.00000000e+00, -0.00000000e+00],
     [-0.00000000e+00, -0.00000000e+00]]]],



  [[[[-1.97522199e+00, -0.00000000e+00],
     [ 3.27874929e-01, -0.00000000e+00]],

    [[-0.00000000e+00, -0.00000000e+00],
     [-0.00000000e+00, -0.00000000e+00]]],


   [[[-0.00000000e+00, -1.97522211e+00],
     [-0.00000000e+00,  3.27874959e-01]],

    [[-0.00000000e+00, -0.00000000e+00],
     [-0.00000000e+00, -0.00000000e+00]]]]],




 [[[[[-0.00000000e+00, -0.00000000e+00],
     [-0.00000000e+00, -0.00000000e+00]],

    [[-1.05282974e+00, -0.00000000e+00],
     [ 2.77907348e+00, -0.00000000e+00]]],


   [[[-0.00000000e+00, -0.00000000e+00],
     [-0.00000000e+00, -0.00000000e+00]],

    [[-8.88246205e-08, -1.05282974e+00],
     [ 2.34463499e-07,  2.77907348e+00]]]],



  [[[[-0.00000000e+00, -0.00000000e+00],
     [-0.00000000e+00, -0.00000000e+00]],

    [[ 2.13879895e+00, -0.00000000e+00],
     [-2.40810442e+00, -0.00000000e+00]]],


   [[[-0.00000000e+00, -0.00000000e+00],
     [-0.00000000e+00, -0.00000000e+00]],

    [[ 1.80445141e-07,  2.13879895e+00],
     [-2.03165769e-07, -2.40810442e+00]]]]]])
SOLVE_2x2x2_b = np.array([[[[[[-0.78105289,  0.        ],
     [-0.87057877, -0.        ]],

    [[-0.        , -0.        ],
     [-0.        , -0.        ]]],


   [[[ 0.        , -0.78105289],
     [-0.        , -0.87057877]],

    [[-0.        , -0.        ],
     [-0.        , -0.        ]]]],



  [[[[ 1.97522211,  0.        ],
     [-0.32787496, -0.        ]],

    [[-0.        , -0.        ],
     [-0.        , -0.        ]]],


   [[[ 0.        ,  1.97522211],
     [-0.        , -0.32787496]],

    [[-0.        , -0.        ],
     [-0.        , -0.        ]]]]],




 [[[[[ 0.        ,  0.        ],
     [-0.        , -0.        ]],

    [[ 1.05282986, -0.        ],
     [-2.77907372, -0.        ]]],


   [[[ 0.        ,  0.        ],
     [-0.        , -0.        ]],

    [[-0.        ,  1.05282986],
     [-0.        , -2.77907372]]]],



  [[[[ 0.        ,  0.        ],
     [-0.        , -0.        ]],

    [[-2.13879919, -0.        ],
     [ 2.40810466, -0.        ]]],


   [[[ 0.        ,  0.        ],
     [-0.        , -0.        ]],

    [[-0.        , -2.13879919],
     [-0.        ,  2.40810466]]]]]])
SOLVE_2x2x2_adj_a = np.array([[[[[[-1.44115937,  3.6445806 ],
     [ 0.36887378, -0.93285322]],

    [[-0.        , -0.        ],
     [-0.        , -0.        ]]],


   [[[-0.87871897,  2.22221231],
     [-0.19838683,  0.50170493]],

    [[-0.        , -0.        ],
     [-0.        , -0.        ]]]],



  [[[[-1.60634828, -0.60497838],
     [ 0.41115493,  0.15484801]],

    [[-0.        , -0.        ],
     [-0.        , -0.        ]]],


   [[[-0.97943974, -0.36887383],
     [-0.22112636, -0.08327999]],

    [[-0.        , -0.        ],
     [-0.        , -0.        ]]]]],




 [[[[[-0.        , -0.        ],
     [-0.        , -0.        ]],

    [[-0.62984574,  1.27951717],
     [-0.47624356,  0.9674778 ]]],


   [[[-0.        , -0.        ],
     [-0.        , -0.        ]],

    [[ 0.20821494, -0.42298388],
     [-1.60243857,  3.25531697]]]],



  [[[[-0.        , -0.        ],
     [-0.        , -0.        ]],

    [[ 1.66255534, -1.44062662],
     [ 1.25710344, -1.08929706]]],


   [[[-0.        , -0.        ],
     [-0.        , -0.        ]],

    [[-0.54960895,  0.47624356],
     [ 4.2298336 , -3.66520762]]]]]])
SOLVE_2x2x2_adj_b = np.array([[[[[[-0.78105277, -0.        ],
     [ 1.97522199,  0.        ]],

    [[-0.        , -0.        ],
     [ 0.        ,  0.        ]]],


   [[[-0.        , -0.78105277],
     [ 0.        ,  1.97522199]],

    [[-0.        , -0.        ],
     [ 0.        ,  0.        ]]]],



  [[[[-0.87057877, -0.        ],
     [-0.32787493,  0.        ]],

    [[-0.        , -0.        ],
     [ 0.        ,  0.        ]]],


   [[[-0.        , -0.87057877],
     [ 0.        , -0.32787493]],

    [[-0.        , -0.        ],
     [ 0.        ,  0.        ]]]]],




 [[[[[-0.        , -0.        ],
     [ 0.        ,  0.        ]],

    [[ 1.05282962, -0.        ],
     [-2.13879919,  0.        ]]],


   [[[-0.        , -0.        ],
     [ 0.        ,  0.        ]],

    [[-0.        ,  1.05282962],
     [ 0.        , -2.13879919]]]],



  [[[[-0.        , -0.        ],
     [ 0.        ,  0.        ]],

    [[-2.77907324, -0.        ],
     [ 2.40810442,  0.        ]]],


   [[[-0.        , -0.        ],
     [ 0.        ,  0.        ]],

    [[-0.        , -2.77907324],
     [ 0.        ,  2.40810442]]]]]])
LS_2x2_a = np.array([[[[ 7.81053066e-01,  0.00000000e+00],
   [ 8.70578766e-01,  0.00000000e+00]],

  [[-2.38418579e-07,  7.81053424e-01],
   [-1.19209290e-07,  8.70578945e-01]]],


 [[[-1.97522283e+00,  5.96046448e-08],
   [ 3.27874780e-01,  4.76837158e-07]],

  [[ 1.49011612e-07, -1.97522283e+00],
   [ 0.00000000e+00,  3.27874780e-01]]]])
LS_2x2_b = np.array([[[[-0.78105307,  0.        ],
   [-0.87057871,  0.        ]],

  [[ 0.        , -0.78105307],
   [ 0.        , -0.87057871]]],


 [[[ 1.97522247,  0.        ],
   [-0.32787484,  0.        ]],

  [[ 0.        ,  1.97522247],
   [ 0.        , -0.32787484]]]])
LS_5x2_a = np.array([[[[ 6.37799859e-01,  0.00000000e+00],
   [ 6.68388605e-01,  0.00000000e+00],
   [-8.54287148e-02,  0.00000000e+00],
   [ 3.56269181e-01,  0.00000000e+00],
   [ 3.03779781e-01,  0.00000000e+00]],

  [[-2.23517418e-07,  6.37799978e-01],
   [-1.19209290e-07,  6.68388844e-01],
   [ 5.96046448e-08, -8.54286253e-02],
   [-8.94069672e-08,  3.56269389e-01],
   [-8.94069672e-08,  3.03779840e-01]]],


 [[[-1.00915611e+00,  0.00000000e+00],
   [-2.89972901e-01,  0.00000000e+00],
   [ 8.12466502e-01,  0.00000000e+00],
   [-6.66623116e-02,  0.00000000e+00],
   [-3.62223923e-01,  0.00000000e+00]],

  [[ 2.08616257e-07, -1.00915647e+00],
   [ 1.19209290e-07, -2.89973080e-01],
   [-1.19209290e-07,  8.12466502e-01],
   [ 8.94069672e-08, -6.66624308e-02],
   [ 8.94069672e-08, -3.62223983e-01]]]])
LS_5x2_b = np.array([[[[-0.63779986,  0.        ],
   [-0.66838861,  0.        ],
   [ 0.08542872,  0.        ],
   [-0.35626921,  0.        ],
   [-0.30377975,  0.        ]],

  [[ 0.        , -0.63779986],
   [ 0.        , -0.66838861],
   [ 0.        ,  0.08542872],
   [ 0.        , -0.35626921],
   [ 0.        , -0.30377975]]],


 [[[ 1.00915611,  0.        ],
   [ 0.28997287,  0.        ],
   [-0.8124665 ,  0.        ],
   [ 0.06666233,  0.        ],
   [ 0.36222392,  0.        ]],

  [[ 0.        ,  1.00915611],
   [ 0.        ,  0.28997287],
   [ 0.        , -0.8124665 ],
   [ 0.        ,  0.06666233],
   [ 0.        ,  0.36222392]]]])
LS_2x5_a = np.array([[[[ 1.97775103e-03,  1.53789250e-02,  8.40414036e-03,  5.43055963e-03, -1.45591132e-03],
   [ 7.21183419e-02,  5.60790241e-01,  3.06455791e-01,  1.98024586e-01, -5.30895516e-02]],

  [[ 1.38882101e-01, -1.13023080e-01, -6.88687041e-02, -4.30656113e-02,  6.89261546e-03],
   [ 2.61650085e-02,  5.64979136e-01,  4.96681854e-02,  8.44484195e-02, -1.92314684e-01]],

  [[-2.25674689e-01,  2.11643174e-01,  1.27368525e-01,  7.99359009e-02, -1.37603264e-02],
   [ 7.56818652e-02, -7.42894784e-03,  4.23001707e-01,  1.87033638e-01,  2.29547992e-01]],

  [[-8.48847702e-02,  8.15090314e-02,  4.89588492e-02,  3.07435840e-02, -5.34977298e-03],
   [ 3.64995450e-02,  5.90916947e-02,  1.93338886e-01,  9.23868492e-02,  8.07043016e-02]],

  [[-1.74746662e-01,  1.57207444e-01,  9.49382484e-02,  5.95223345e-02, -1.00444909e-02],
   [ 3.04158218e-02, -2.22910732e-01,  2.07422823e-01,  6.74998313e-02,  1.97527453e-01]]],


 [[[-1.54890060e-01, -1.31534234e-01, -6.88687041e-02, -4.30656113e-02,  6.89261546e-03],
   [ 5.95447838e-01, -1.10027611e-01,  4.96681854e-02,  8.44484195e-02, -1.92314684e-01]],

  [[-2.44063571e-01,  7.83562660e-03,  6.92513511e-02, -8.21744557e-04,  1.47909582e-01],
   [ 4.72955644e-01, -1.51842237e-02, -1.34197846e-01,  1.59244053e-03, -2.86624759e-01]],

  [[ 1.47138134e-01, -2.29614094e-01, -2.27612406e-01, -6.95944428e-02, -2.32458472e-01],
   [ 2.01359540e-01, -1.56236872e-01,  3.03037941e-01,  1.36500731e-01,  1.55640170e-01]],

  [[ 3.83916460e-02, -1.01105779e-01, -9.34346467e-02, -3.09974626e-02, -8.69005099e-02],
   [ 1.41651988e-01, -7.10611939e-02,  1.19758897e-01,  6.07954971e-02,  3.74673307e-02]],

  [[ 1.73420131e-01, -1.26077071e-01, -1.48803100e-01, -3.69743742e-02, -1.81880027e-01],
   [-7.53703713e-02, -7.78370351e-02,  2.14387402e-01,  7.25280792e-02,  1.94468513e-01]]],


 [[[ 2.89075136e-01,  2.11643174e-01,  1.08857363e-01,  7.99359009e-02, -1.37603264e-02],
   [ 2.49326244e-01, -7.42894784e-03, -2.52005041e-01,  1.87033638e-01,  2.29547992e-01]],

  [[ 1.47138134e-01,  2.85135716e-01,  6.61597550e-02, -6.95944428e-02, -2.32458472e-01],
   [ 2.01359540e-01,  1.74075197e-02, -2.66244888e-01,  1.36500731e-01,  1.55640170e-01]],

  [[ 2.33698532e-01, -1.21342674e-01,  7.02809691e-02,  2.46410787e-01,  3.60514373e-01],
   [ 7.88352489e-02, -4.09334376e-02,  2.37084031e-02,  8.31235871e-02,  1.21614985e-01]],

  [[ 1.20033450e-01, -2.24003345e-02,  3.85176241e-02,  1.01745076e-01,  1.34433046e-01],
   [ 5.72467595e-02, -1.62561089e-02, -1.88727044e-02,  5.19888066e-02,  7.11963177e-02]],

  [[ 6.82132840e-02, -1.75512850e-01,  1.20237172e-02,  1.59009323e-01,  2.83262640e-01],
   [-3.57824042e-02, -2.86799669e-02,  1.15874454e-01, -8.35162587e-03,  4.85778367e-03]]],


 [[[ 1.11272976e-01,  8.15090314e-02,  4.89588492e-02,  1.22324266e-02, -5.34977298e-03],
   [ 1.76480725e-01,  5.90916947e-02,  1.93338886e-01, -5.82619905e-01,  8.07043016e-02]],

  [[ 3.83916460e-02,  9.50519815e-02, -9.34346467e-02,  2.62774706e-01, -8.69005099e-02],
   [ 1.41651988e-01,  6.89199865e-02,  1.19758897e-01, -5.08487284e-01,  3.74673307e-02]],

  [[ 1.20033450e-01, -2.24003345e-02,  2.34675378e-01, -4.13004756e-01,  1.34433046e-01],
   [ 5.72467595e-02, -1.62561089e-02,  1.21108480e-01, -1.21655568e-01,  7.11963177e-02]],

  [[ 5.75461648e-02,  5.48693759e-04,  9.39007252e-02, -1.54396087e-01,  5.01049310e-02],
   [ 4.10658345e-02,  3.91566224e-04,  6.70090020e-02, -1.10179402e-01,  3.57556380e-02]],

  [[ 4.94442098e-02, -4.88361269e-02,  1.61958888e-01, -3.23137671e-01,  1.05711162e-01],
   [-2.42140610e-02, -3.54175307e-02,  1.84904020e-02,  1.31849006e-01,  2.36325655e-02]]],


 [[[ 2.14923546e-01,  1.57207444e-01,  9.49382484e-02,  5.95223345e-02, -2.85556503e-02],
   [-9.71328244e-02, -2.22910732e-01,  2.07422823e-01,  6.74998313e-02, -4.77479309e-01]],

  [[ 1.73420131e-01,  2.63593167e-01, -1.48803100e-01, -3.69743742e-02,  1.11892134e-01],
   [-7.53703713e-02, -2.05385685e-01,  2.14387402e-01,  7.25280792e-02, -3.74814332e-01]],

  [[ 6.82132840e-02, -1.75512850e-01,  4.01693940e-01,  1.59009323e-01, -2.31487200e-01],
   [-3.57824042e-02, -2.86799669e-02, -1.16742011e-02, -8.35162587e-03, -1.68786600e-01]],

  [[ 4.94442098e-02, -4.88361269e-02,  1.61958888e-01,  6.65325448e-02, -9.04465914e-02],
   [-2.42140610e-02, -3.54175307e-02,  1.84904020e-02,  4.30036755e-03, -1.16348617e-01]],

  [[-3.06477323e-02, -1.96192712e-01,  2.72912592e-01,  9.95341688e-02, -1.67402759e-01],
   [ 1.00317551e-02,  6.42186925e-02, -8.93310085e-02, -3.25799808e-02,  5.47950380e-02]]]])
LS_2x5_b = np.array([[[[-0.01851116,  0.        ,  0.        ,  0.        ,  0.        ],
   [-0.67500675,  0.        ,  0.        ,  0.        ,  0.        ]],

  [[ 0.        , -0.01851116,  0.        ,  0.        ,  0.        ],
   [ 0.        , -0.67500675,  0.        ,  0.        ,  0.        ]],

  [[ 0.        ,  0.        , -0.01851116,  0.        ,  0.        ],
   [ 0.        ,  0.        , -0.67500675,  0.        ,  0.        ]],

  [[ 0.        ,  0.        ,  0.        , -0.01851116,  0.        ],
   [ 0.        ,  0.        ,  0.        , -0.67500675,  0.        ]],

  [[ 0.        ,  0.        ,  0.        ,  0.        , -0.01851116],
   [ 0.        ,  0.        ,  0.        ,  0.        , -0.67500675]]],


 [[[ 0.29377216,  0.        ,  0.        ,  0.        ,  0.        ],
   [-0.56928283,  0.        ,  0.        ,  0.        ,  0.        ]],

  [[ 0.        ,  0.29377216,  0.        ,  0.        ,  0.        ],
   [ 0.        , -0.56928283,  0.        ,  0.        ,  0.        ]],

  [[ 0.        ,  0.        ,  0.29377216,  0.        ,  0.        ],
   [ 0.        ,  0.        , -0.56928283,  0.        ,  0.        ]],

  [[ 0.        ,  0.        ,  0.        ,  0.29377216,  0.        ],
   [ 0.        ,  0.        ,  0.        , -0.56928283,  0.        ]],

  [[ 0.        ,  0.        ,  0.        ,  0.        ,  0.29377216],
   [ 0.        ,  0.        ,  0.        ,  0.        , -0.56928283]]],


 [[[-0.51474983,  0.        ,  0.        ,  0.        ,  0.        ],
   [-0.17364438,  0.        ,  0.        ,  0.        ,  0.        ]],

  [[ 0.        , -0.51474983,  0.        ,  0.        ,  0.        ],
   [ 0.        , -0.17364438,  0.        ,  0.        ,  0.        ]],

  [[ 0.        ,  0.        , -0.51474983,  0.        ,  0.        ],
   [ 0.        ,  0.        , -0.17364438,  0.        ,  0.        ]],

  [[ 0.        ,  0.        ,  0.        , -0.51474983,  0.        ],
   [ 0.        ,  0.        ,  0.        , -0.17364438,  0.        ]],

  [[ 0.        ,  0.        ,  0.        ,  0.        , -0.51474983],
   [ 0.        ,  0.        ,  0.        ,  0.        , -0.17364438]]],


 [[[-0.19615775,  0.        ,  0.        ,  0.        ,  0.        ],
   [-0.13998118,  0.        ,  0.        ,  0.        ,  0.        ]],

  [[ 0.        , -0.19615775,  0.        ,  0.        ,  0.        ],
   [ 0.        , -0.13998118,  0.        ,  0.        ,  0.        ]],

  [[ 0.        ,  0.        , -0.19615775,  0.        ,  0.        ],
   [ 0.        ,  0.        , -0.13998118,  0.        ,  0.        ]],

  [[ 0.        ,  0.        ,  0.        , -0.19615775,  0.        ],
   [ 0.        ,  0.        ,  0.        , -0.13998118,  0.        ]],

  [[ 0.        ,  0.        ,  0.        ,  0.        , -0.19615775],
   [ 0.        ,  0.        ,  0.        ,  0.        , -0.13998118]]],


 [[[-0.38967022,  0.        ,  0.        ,  0.        ,  0.        ],
   [ 0.12754865,  0.        ,  0.        ,  0.        ,  0.        ]],

  [[ 0.        , -0.38967022,  0.        ,  0.        ,  0.        ],
   [ 0.        ,  0.12754865,  0.        ,  0.        ,  0.        ]],

  [[ 0.        ,  0.        , -0.38967022,  0.        ,  0.        ],
   [ 0.        ,  0.        ,  0.12754865,  0.        ,  0.        ]],

  [[ 0.        ,  0.        ,  0.        , -0.38967022,  0.        ],
   [ 0.        ,  0.        ,  0.        ,  0.12754865,  0.        ]],

  [[ 0.        ,  0.        ,  0.        ,  0.        , -0.38967022],
   [ 0.        ,  0.        ,  0.        ,  0.        ,  0.12754865]]]])
LSV_square_True = np.array([[-2. ,  1. , -1. ],
 [ 1.5, -0.5,  1. ]])
LSV_square_True_c = np.array([[-2. +0.j,  1. +0.j, -1. +0.j],
 [ 1.5+0.j, -0.5+0.j,  1. +0.j]])
LSV_square_False = np.array([[-2. ,  1. , -1. ],
 [ 1.5, -0.5,  1. ]])
LSV_square_False_c = np.array([[-2. +3.51083347e-16j,  1. -2.63312510e-16j, -1. -0.00000000e+00j],
 [ 1.5-3.15975012e-16j, -0.5+2.01872924e-16j,  1. -5.26625020e-17j]])
LSV_over_True = np.array([[-0.66666667,  0.33333333, -1.66666667],
 [ 0.66666667, -0.08333333,  1.41666667]])
LSV_over_True_c = np.array([[-0.66666667+0.j,  0.33333333+0.j, -1.66666667+0.j],
 [ 0.66666667+0.j, -0.08333333+0.j,  1.41666667+0.j]])
LSV_over_False = np.array([[-0.66666667,  0.33333333, -1.66666667],
 [ 0.66666667, -0.08333333,  1.41666667]])
LSV_over_False_c = np.array([[-0.66666667-9.59342339e-16j,  0.33333333+2.39835585e-16j, -1.66666667+8.39424546e-16j],
 [ 0.66666667+8.02725214e-16j, -0.08333333-1.91939119e-16j,  1.41666667-5.68629138e-16j]])
LSV_under_True = np.array([[-9.44444444e-01,  4.44444444e-01, -5.00000000e-01],
 [-1.11111111e-01,  1.11111111e-01, -4.44089210e-16],
 [ 7.22222222e-01, -2.22222222e-01,  5.00000000e-01]])
LSV_under_True_c = np.array([[-9.44444444e-01+0.j,  4.44444444e-01+0.j, -5.00000000e-01+0.j],
 [-1.11111111e-01+0.j,  1.11111111e-01+0.j,  2.22044605e-16+0.j],
 [ 7.22222222e-01+0.j, -2.22222222e-01+0.j,  5.00000000e-01+0.j]])
LSV_under_False = np.array([[-9.44444444e-01,  4.44444444e-01, -5.00000000e-01],
 [-1.11111111e-01,  1.11111111e-01, -2.77555756e-17],
 [ 7.22222222e-01, -2.22222222e-01,  5.00000000e-01]])
LSV_under_False_c = np.array([[-9.44444444e-01-3.43281495e-16j,  4.44444444e-01+1.26780097e-16j, -5.00000000e-01-2.14550934e-16j],
 [-1.11111111e-01-5.85138911e-18j,  1.11111111e-01+1.23259516e-32j,  2.77555756e-17-9.75231519e-18j],
 [ 7.22222222e-01+2.10650008e-16j, -2.22222222e-01-7.60680585e-17j,  5.00000000e-01+1.24829634e-16j]])
DET_INV2 = np.array([[ 4., -3.],
 [-2.,  1.]])
DET_NEAR_6 = np.array([[ 1.000001, -1.      ],
 [-1.      ,  1.      ]])
DET_NEAR_9 = np.array([[ 1., -1.],
 [-1.,  1.]])
DET_NEAR_12 = np.array([[ 1., -1.],
 [-1.,  1.]])
DET_NEAR_NUM = np.array([[ 1.000001, -1.      ],
 [-1.      ,  1.      ]])
SLOG_REAL = np.array([[-2. ,  1.5],
 [ 1. , -0.5]])
SLOG_CPLX = np.array([[-0.02373887+0.48664688j,  0.11275964-0.3115727j ],
 [ 0.20178042-0.13649852j,  0.04154303+0.14836795j]])
BATCH_ID_DET_GRAD = np.array([[[1., 0., 0., 0.],
  [0., 1., 0., 0.],
  [0., 0., 1., 0.],
  [0., 0., 0., 1.]],

 [[1., 0., 0., 0.],
  [0., 1., 0., 0.],
  [0., 0., 1., 0.],
  [0., 0., 0., 1.]],

 [[1., 0., 0., 0.],
  [0., 1., 0., 0.],
  [0., 0., 1., 0.],
  [0., 0., 0., 1.]]])
DETV_2_float32 = np.array(-0.99999976)
SLOGV_2_float32 = np.array([-1.00000000e+00, -2.38418579e-07])
DETV_2_complex64 = np.array(-0.99999976+0.j)
SLOGV_2_complex64 = np.array([-1.00000000e+00+0.j, -2.38418579e-07+0.j])
DETV_5_float32 = np.array(0.)
SLOGV_5_float32 = np.array([  0., -np.inf])
DETV_5_complex64 = np.array(0.-0.j)
SLOGV_5_complex64 = np.array([  0.-0.j, complex(-np.inf, 0)])
DETV_c2_complex64 = np.array(0.-3.99999976j)
SLOGV_c2_complex64 = np.array([0.        -0.99999994j, 1.38629436+0.j        ])
DETV_5nan_float32 = np.array(np.nan)
SLOGV_5nan_float32 = np.array([np.nan, np.nan])
DETV_5nan_complex64 = np.array(complex(np.nan, np.nan))
SLOGV_5nan_complex64 = np.array([complex(np.nan, np.nan), complex(np.nan, 0)])
DET_HUGE64 = np.array(np.inf)
SLOG_HUGE64 = np.array([1.00000000e+00, 1.41956543e+03])
DET_HUGE32 = np.array(np.inf)
SLOG_HUGE32 = np.array([  1.        , 177.44567871])
NORM_X = np.array([[[ 1.69052565e+00, -4.65937376e-01,  3.28201652e-02,  4.07516271e-01],
  [-7.88923025e-01,  2.06557289e-03, -8.90385883e-04, -1.75472426e+00],
  [ 1.01765800e+00,  6.00498497e-01, -6.25428975e-01, -1.71548262e-01]],

 [[ 5.05299389e-01, -2.61356413e-01, -2.42749080e-01, -1.45324147e+00],
  [ 5.54580331e-01,  1.23880908e-01,  2.74459928e-01, -1.52652454e+00],
  [ 1.65069973e+00,  1.54335529e-01, -3.87139946e-01,  2.02907228e+00]]])
NORM_XC = np.array([[ 0.09120472+1.10855466e-03j,  1.09128273-2.89544076e-01j, -1.94697034-1.11606634e+00j,
  -1.38634956-1.28827570e-02j],
 [-2.29649162-3.78361464e-01j,  2.40983438-4.81135368e-01j,  1.72783613-1.51733112e+00j,
   2.20455623-4.90871996e-01j],
 [ 0.79482764-2.40680575e-01j,  0.97642112-6.47947431e-01j, -1.1834271 +6.35891080e-01j,
   1.9163636 +1.74011731e+00j]])
NORM_fro_m2_m1_False = np.array([2.95979714, 3.49837446])
NORM_fro_m1_m2_True = np.array([[[2.95979714]],

 [[3.49837446]]])
NORM_euclidean_2_False = np.array([[1.80058908, 1.92391837, 1.34789336],
 [1.57938993, 1.65182066, 2.64870548]])
NORM_euclidean_m3_True = np.array([[[1.76442754, 0.53423291, 0.24495772, 1.50929797],
  [0.96434379, 0.12389813, 0.27446136, 2.32579756],
  [1.93918478, 0.62001443, 0.73555338, 2.03631115]]])
NORM_euclidean_m2_m1_False = np.array([2.95979714, 3.49837446])
NORM_euclidean_m1_m2_True = np.array([[[2.95979714]],

 [[3.49837446]]])
NORM_1_2_False = np.array([[2.59679961, 2.5466032 , 2.41513371],
 [2.46264648, 2.4794457 , 4.22124767]])
NORM_1_m3_True = np.array([[[2.1958251 , 0.72729379, 0.27556926, 1.86075771],
  [1.34350336, 0.12594648, 0.2753503 , 3.28124881],
  [2.66835785, 0.75483406, 1.01256895, 2.20062065]]])
NORM_1_m2_m1_False = np.array([3.49710679, 5.00883818])
NORM_1_m1_m2_True = np.array([[[2.59679961]],

 [[4.22124767]]])
NORM_2_2_False = np.array([[1.80058908, 1.92391837, 1.34789336],
 [1.57938993, 1.65182066, 2.64870548]])
NORM_2_m3_True = np.array([[[1.76442754, 0.53423291, 0.24495772, 1.50929797],
  [0.96434379, 0.12389813, 0.27446136, 2.32579756],
  [1.93918478, 0.62001443, 0.73555338, 2.03631115]]])
NORM_2_m2_m1_False = np.array([2.43665433, 3.03957343])
NORM_2_m1_m2_True = np.array([[[2.43665433]],

 [[3.03957367]]])
NORM_inf_2_False = np.array([[1.69052565, 1.75472426, 1.017658  ],
 [1.45324147, 1.52652454, 2.02907228]])
NORM_inf_m3_True = np.array([[[1.69052565, 0.46593738, 0.24274908, 1.45324147],
  [0.78892303, 0.12388091, 0.27445993, 1.75472426],
  [1.65069973, 0.6004985 , 0.62542897, 2.02907228]]])
NORM_inf_m2_m1_False = np.array([2.59679961, 4.22124767])
NORM_inf_m1_m2_True = np.array([[[3.49710679]],

 [[5.00883818]]])
NORM_0p5_2_False = np.array([[ 7.85306311,  5.23568201,  8.93252563],
 [ 8.52800465,  8.15721607, 13.87049866]])
NORM_0p5_m3_True = np.array([[[4.04430771, 1.42522132, 0.45408612, 3.39987373],
  [2.66641116, 0.15793929, 0.30661532, 6.55455351],
  [5.26053667, 1.36369598, 1.99670005, 3.38059306]]])
NORMC_euclidean = np.array([2.87079811+0.j, 4.6738162 +0.j, 3.25088096+0.j])
NORMC_1 = np.array([4.85083151, 9.3428936 , 5.93429327])
NORMC_2 = np.array([2.87079811+0.j, 4.6738162 +0.j, 3.25088096+0.j])
NORMC_inf = np.array([2.24416971, 2.45739555, 2.58852434])
NORMC_fro = np.array(6.37607002+0.j)
