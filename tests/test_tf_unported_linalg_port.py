"""TensorFlow linalg kernel tests (tensorflow/python/kernel_tests/linalg/) not ported elsewhere in tests/, ported to
tj.numpy.linalg.

Ported (the TF test is named at each test):
  eig_op_test.py: EigTest.testWrongDimensions, testConcurrentExecutesWithoutError, testAcceptsNonTensorInput (lists,
    tuples, arrays), testUnsupportedDtype (half / bfloat16), _GetEigTest (test_Eig_{float32,float64,complex64,
    complex128}_*_{True,False}), EigGradTest (test_EigGrad_{complex64,complex128}_*_{True,False});
  svd_op_test.py: SvdGradGradOpTest (test_SvdGradGrad_float64_*, _complex128_*_compute_uv_False: second order),
    _GetSvdOpTest in float64 / complex128;
  qr_op_test.py: QrGradOpTest test_QrGrad_{float64,complex128}_*, _GetQrOpTest in float64 / complex128;
  self_adjoint_eig_op_test.py: SelfAdjointEigGradTest test_SelfAdjointEigGrad_{float64,complex128}_*,
    _GetSelfAdjointEigTest in float64;
  cholesky_op_test.py: CholeskyGradTest.testTwoBlockMatrixFloat / Double / ComplexFloat / ComplexDouble,
    CholeskyOpTest.testBasic / testBatch in float64 / complex128;
  determinant_op_test.py: DeterminantOpTest.testBasicDouble, testBasicComplex128;
  matrix_inverse_op_test.py: InverseOpTest.testNonsymmetric / testSymmetricPositiveDefinite /
    testRandomSmallAndLarge in float64 / complex128;
  matrix_solve_op_test.py: MatrixSolveOpTest.testSolve / testSolveBatch in float64 / complex128 (TF's tol 1e-12);
  matrix_solve_ls_op_test.py: test_MatrixSolveLsOpTest_LargeBatch{Square,Overdetermined,Underdetermined}_*;
  norm_op_test.py: NormOpTest.testBadOrder (matrix norms, and 'fro' as a vector norm), testInvalidAxis;
  linalg_ops_test.py: SlogdetTest.test_works_with_five_different_random_pos_def_matrices /
    test_works_with_underflow_case, MatrixRankStatic32Test / MatrixRankDynamic64Test (test_batch_default_tolerance,
    test_custom_tolerance_broadcasts, test_nonsquare), EyeTest.test_eye_no_placeholder (batch_shape=None),
    EyeTest.testShapeInferenceNoBatch.

Expected values are TF 2.21's, computed here with the same programs in TF (eager; tape.jacobian for the
gradient-checker tests, taken at the inputs TF's RandomInput draws, in the same order) and hard-coded at the end of
this file; TensorFlow is not imported. (EigGradTest differentiates functions that depend on the order eig returns
its eigenpairs in, Eigen's in TF, LAPACK's here: both programs sort them first; see _eig_compute.) Where TF's test
compares against NumPy or an identity (V diag(E) V^-1 = A, a = q r, unitary factors, inv(A) A = I, theoretical ==
numerical Jacobian), the identity is kept. float64 and complex128 cases run under ``jax.enable_x64(True)`` for
that test only. Large TF shapes are reduced (batch (2,) for (16, 8); a few sizes per dtype).

Left out, by reason:
  no tj counterpart (not in tj.numpy.linalg, and tj has no jax.scipy.linalg): matrix_exponential_op_test,
    matrix_logarithm_op_test, matrix_square_root_op_test, matrix_triangular_solve_op_test, lu_op_test,
    tridiagonal_matmul_op_test, tridiagonal_solve_op_test, normalize_op_test, linear_operator_*_test, sparse/*;
    linalg_ops_test CholeskySolveTest (cholesky_solve), LogdetTest (tf.linalg.logdet), AdjointTest
    (tf.linalg.adjoint), _LUReconstruct / _LUMatrixInverse / _LUSolve (lu), EighTridiagonalTest;
    EyeTest's batch_shape cases (jnp.eye has no batch_shape); linalg_grad_test's banded / triangular solve and
    l2_regularizer > 0 lstsq cases, and its MatrixUnaryFunctorGradientTest (commented out in TF itself);
  jax.numpy's argument conventions, decided before: NormOpTest.testBadOrder's vector orders -7, -1.1 and 0
    (jnp computes any p-norm and ord=0's count; tf.norm rejects them), eig_op_test testUnsupportedDtype's int32 /
    int64 and testAcceptsNonTensorInput's integer list (jnp promotes integers to float; the TF of the index raises
    "must have dtype", TF 2.21 crashes with UnboundLocalError / AttributeError);
  raw-op attributes: EigTest.testMismatchedDtypes (gen_linalg_ops.eig's Tout);
  TF1 sessions and placeholders: EyeTest.test_eye_with_placeholder, testShapeInferenceStaticBatchWith, the
    use_static_shape=False variants;
  GPU-specific: SvdOpTest.testThrowDeterminismError, DISABLED_testBadInputs (disabled in TF);
  benchmarks: *Benchmark;
  test data not in this repository: EigTest / SelfAdjointEigTest.testMatrixThatFailsWhenFlushingDenormsToZero (a
    32 x 32 matrix in TF's testdata/);
  already ported elsewhere in tests/ (test_tf_linalg_port.py, test_tf_linalg_port2.py,
    test_tf_unported_opgrad_port.py, test_tf_array_ops_port.py for einsum_op_test): the float32 / complex64 cases
    of the files above and the remaining methods of linalg_grad_test, _PinvTest and einsum_op_test.
"""
import jax
import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy
L = tnp.linalg


def _h(x):
    return tnp.conj(tnp.swapaxes(x, -1, -2))


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


def _uniform_draws(seed, shape, dt, count, hermitian=False, square_n=None):
    """TF's RandomInput (np.random.seed(seed); uniform(-1, 1), plus an imaginary part for complex dtypes), called
    count times in a row, as TF's loops over funcs do."""
    rs = np.random.RandomState(seed)
    out = []
    for _ in range(count):
        size = int(np.prod(shape))
        a = rs.uniform(-1, 1, size=size).reshape(shape).astype(dt)
        if np.dtype(dt).kind == "c":
            a += 1j * rs.uniform(-1, 1, size=size).reshape(shape).astype(dt)
        if hermitian:
            a = a + np.conj(a.T)
        out.append(a)
    return out


# == eig_op_test.py ===========================================================================================

def _sort_eig(e, v=None):
    """eig_op_test.SortEigenValues / SortEigenDecomposition: order by real + imag."""
    perm = np.argsort(e.real + e.imag, -1)
    return np.take(e, perm, -1) if v is None else (np.take(e, perm, -1), np.take(v, perm, -1))


def test_eig_wrong_dimensions():
    """EigTest.testWrongDimensions: rank 0 and 1 raise (TF 2.21 eager: InvalidArgumentError "must have rank >= 2",
    ValueError here)."""
    for bad in (tj.constant(1.0), tj.constant([1.0, 2.0])):
        with pytest.raises(ValueError):
            L.eig(bad)
        with pytest.raises(ValueError):
            L.eigvals(bad)


def test_eig_concurrent_executes_identically():
    """EigTest.testConcurrentExecutesWithoutError: the same input twice gives the same eigenvalues and vectors, bit
    for bit, and eigvals agrees with eig's eigenvalues."""
    m = np.random.RandomState(42).normal(size=(5, 5)).astype(np.float32)
    e1, v1 = L.eig(m)
    e2, v2 = L.eig(m)
    np.testing.assert_array_equal(e1.numpy(), e2.numpy())
    np.testing.assert_array_equal(v1.numpy(), v2.numpy())
    w1, w2 = L.eigvals(m).numpy(), L.eigvals(m).numpy()
    np.testing.assert_array_equal(w1, w2)
    np.testing.assert_allclose(_sort_eig(w1), _sort_eig(e1.numpy()), atol=1e-5)


def test_eig_accepts_non_tensor_input():
    """EigTest.testAcceptsNonTensorInput: lists, tuples and arrays give numpy's eigenvalues, complex64 (a complex
    list gives complex128 with x64, as TF's complex128)."""
    matrix = [[1., 2.], [3., 4.]]
    want = _sort_eig(np.linalg.eigvals(np.array(matrix, np.float32)).astype(np.complex64))
    for arg in (matrix, tuple(tuple(r) for r in matrix), np.array(matrix, np.float32)):
        e, _ = L.eig(arg)
        assert e.dtype == np.complex64
        np.testing.assert_allclose(_sort_eig(e.numpy()), want, atol=1e-5)
        np.testing.assert_allclose(_sort_eig(L.eigvals(arg).numpy()), want, atol=1e-5)
    with jax.enable_x64(True):
        cm = [[1j, 2j], [3j, 4j]]
        cwant = _sort_eig(np.linalg.eigvals(np.array(cm, np.complex128)))
        e, _ = L.eig(cm)
        assert e.dtype == np.complex128
        np.testing.assert_allclose(_sort_eig(e.numpy()), cwant, atol=1e-5)
        e = L.eigvals(cm)
        assert e.dtype == np.complex128
        np.testing.assert_allclose(_sort_eig(e.numpy()), cwant, atol=1e-5)


def test_eig_unsupported_half_dtypes():
    """EigTest.testUnsupportedDtype (half, bfloat16): no eig kernel. The index's TF raises ValueError "must have
    dtype" (TF 2.21 crashes with UnboundLocalError); tj raises its TypeError for every LAPACK op in half precision
    (decided before, see test_tf_linalg_port.py)."""
    import ml_dtypes
    for dt in (np.float16, ml_dtypes.bfloat16):
        x = np.array([[0, 1], [2, 3]], dt)
        with pytest.raises(TypeError, match="no kernel"):
            L.eig(x)
        with pytest.raises(TypeError, match="no kernel"):
            L.eigvals(x)


@pytest.mark.parametrize("dt,shape", [
    (np.float32, (1, 1)), (np.float32, (2, 2)), (np.float32, (3, 5, 5)), (np.float32, (3, 2, 2, 2)),
    (np.complex64, (2, 2)), (np.complex64, (3, 5, 5)), (np.float64, (5, 5)), (np.float64, (3, 2, 2)),
    (np.complex128, (5, 5)), (np.complex128, (3, 2, 2, 2))])
def test_eig_values(dt, shape):
    """_GetEigTest (test_Eig_<dtype>_<shape>_{True,False}): V diag(E) V^-1 = A, eigenvalues and (phase-equilibrated)
    eigenvectors equal numpy.linalg.eig's, and eigvals' sorted eigenvalues numpy's; TF's atol (1e-4 single,
    1e-12 double)."""
    x64 = dt in (np.float64, np.complex128)
    atol = 1e-12 if x64 else 1e-4
    n, batch = shape[-1], shape[:-2]
    (a,) = _uniform_draws(1, (n, n), dt, 1)
    a = np.tile(a, batch + (1, 1))
    np_e, np_v = np.linalg.eig(a)
    with jax.enable_x64(x64):
        e, v = (o.numpy() for o in L.eig(a))
        vals = L.eigvals(a).numpy()
    cdt = np.complex128 if x64 else np.complex64
    assert e.dtype == cdt and v.dtype == cdt and vals.dtype == cdt and e.shape == batch + (n,)
    np.testing.assert_allclose((v * e[..., None, :]) @ np.linalg.inv(v), a, atol=atol * 10 if x64 else atol)
    for i in np.ndindex(*batch):
        xe, xv = _sort_eig(np_e[i], np_v[i])
        ye, yv = _sort_eig(e[i], v[i])
        np.testing.assert_allclose(ye, xe, atol=atol, rtol=atol)
        phases = np.sum(np.conj(xv) * yv, -2, keepdims=True)
        phases /= np.abs(phases)
        np.testing.assert_allclose(phases * xv, yv, atol=atol * 10 if x64 else atol)
        np.testing.assert_allclose(_sort_eig(vals[i]), _sort_eig(np_e[i]), atol=atol)


def _eig_compute(x):
    """EigGradTest's Compute: eigenpairs sorted by real + imag, eigenvectors with the phase of their first
    component removed. (TF's ``gather(v, idx, batch_dims=rank(e) - 1)`` permutes the rows of v, not its columns,
    which makes the function depend on the order eig happens to return, Eigen's in TF and LAPACK's here: the
    columns are sorted, as the comment there intends, here and in the TF program the values come from.)"""
    e, v = L.eig(x)
    idx = tnp.argsort(tnp.real(e) + tnp.imag(e), axis=-1)
    e = tnp.take_along_axis(e, idx, axis=-1)
    v = tnp.take_along_axis(v, tnp.broadcast_to(idx[..., None, :], v.shape), axis=-1)
    ang = -tnp.angle(v[..., 0:1, :])
    return e, v * (tnp.cos(ang) + 1j * tnp.sin(ang))


def _sorted_eigvals(x):
    """eigvals, sorted by real + imag (TF's test differentiates them in the order Eigen returns; LAPACK's differs)."""
    w = L.eigvals(x)
    return tnp.take_along_axis(w, tnp.argsort(tnp.real(w) + tnp.imag(w), axis=-1), axis=-1)


@pytest.mark.parametrize("name,n,batch,dt", [
    ("c64_2", 2, (), np.complex64), ("c64_1", 1, (), np.complex64), ("c64_3x2", 2, (3,), np.complex64),
    ("c128_3", 3, (), np.complex128)])
def test_eig_grad(name, n, batch, dt):
    """EigGradTest.test_EigGrad_{complex64,complex128}_<shape>_{True,False} (TF runs complex dtypes only): the
    Jacobians of Compute's eigenvalues and eigenvectors, and of eigvals, at TF's inputs (np.random.seed(1), one
    draw discarded, then one per function), against TF 2.21's theoretical Jacobian (complex: TF's convention).
    The (3,) batch tiles one matrix: TF's Jacobian is block diagonal with the unbatched blocks. Eigenpairs are
    sorted by columns and eigvals sorted too (see _eig_compute; TF's values were computed so), since eig's order
    is the implementation's."""
    x64 = dt == np.complex128
    tol = 1e-7 if x64 else 2e-3
    _, xe, xv = (np.tile(a, batch + (1, 1)) for a in _uniform_draws(1, (n, n), dt, 3))
    key = "c64_2" if name == "c64_3x2" else name
    want = {k: globals()[f"EIGG_{key}_{k}"] for k in ("e", "v", "vals")}
    if batch:  # block diagonal
        for k in ("e", "vals"):
            blk = want[k]
            full = np.zeros((3,) + blk.shape[:1] + (3,) + blk.shape[1:], blk.dtype)
            for i in range(3):
                full[i, :, i] = blk
            want[k] = full
    with jax.enable_x64(x64):
        _close(_jac(lambda x: _eig_compute(x)[0], xe)[0], want["e"], tol)
        if not batch:
            _close(_jac(lambda x: _eig_compute(x)[1], xv)[0], want["v"], tol)
        _close(_jac(_sorted_eigvals, xe)[0], want["vals"], tol)


# == svd_op_test.py ===========================================================================================

def _normalizing_svd(a, full_matrices):
    """svd_op_test._NormalizingSvd: TF's (s, u, v), signs (phases) fixed by the first row of u (m >= n) or v."""
    u, s, vh = L.svd(a, full_matrices=full_matrices)
    v = _h(vh)
    m, n = a.shape[-2], a.shape[-1]
    top = u[..., 0:1, :] if m >= n else v[..., 0:1, :]
    phase = tnp.sign(top)
    return s, u * phase[..., :m], v * phase[..., :n]


@pytest.mark.parametrize("name,shape,dt,uv,full", [
    ("f64_3x2", (3, 2), np.float64, True, False), ("f64_2x3", (2, 3), np.float64, True, False),
    ("f64_2x2_full", (2, 2), np.float64, True, True), ("f64_3x2_full", (3, 2), np.float64, True, True),
    ("f64_3x2_s", (3, 2), np.float64, False, False), ("c128_2x3_s", (2, 3), np.complex128, False, False)])
def test_svd_grad_grad(name, shape, dt, uv, full):
    """SvdGradGradOpTest.test_SvdGradGrad_{float64,complex128}_<shape>_compute_uv_<uv>_full_<full> (TF builds
    complex cases only without u, v): the gradient of sum(s) + sum(u) + sum(v) (TF's _NormalizingSvd), and the
    Jacobian of that gradient (second order, nested tapes), at TF's x_init (the second draw of seed 42), against
    TF 2.21's; TF's tolerance 1e-5."""
    _, x0 = _uniform_draws(42, shape, dt, 2)
    with jax.enable_x64(True):
        x = tj.constant(x0)
        with tj.GradientTape(persistent=True) as outer:
            outer.watch(x)
            with tj.GradientTape() as inner:
                inner.watch(x)
                outs = list(_normalizing_svd(x, full)) if uv else [L.svd(x, compute_uv=False)]
                tot = sum(tnp.sum(o) for o in outs)
            g = inner.gradient(tot, x)
        hess = outer.jacobian(g, x).numpy()
        np.testing.assert_allclose(g.numpy(), globals()[f"SVDGG_{name}_g"], rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(hess, globals()[f"SVDGG_{name}"], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dt", [np.float64, np.complex128])
def test_svd_values_double(dt):
    """_GetSvdOpTest (test_Svd_{float64,complex128}_*_static_shape_True_*): singular values equal numpy's, the
    first min(m, n) singular vectors numpy's up to phase, a = u diag(s) v^H, u and v unitary; TF's tol 1e-12."""
    tol = 1e-12
    with jax.enable_x64(True):
        for shape in ((5, 2), (2, 5), (3, 3), (3, 2, 4)):
            (x,) = _uniform_draws(42, shape, dt, 1)
            for full in (False, True):
                np.testing.assert_allclose(L.svd(x, full_matrices=full, compute_uv=False).numpy(),
                                           np.linalg.svd(x, compute_uv=False), atol=2 * tol)
                u, s, vh = (o.numpy() for o in L.svd(x, full_matrices=full))
                nu, ns, nvh = np.linalg.svd(x, full_matrices=full)
                np.testing.assert_allclose(s, ns, atol=(s[..., :1] + ns[..., :1]).max() * tol)
                k = min(shape[-2:])
                for got, ref in ((u, nu), (np.conj(np.swapaxes(vh, -1, -2)), np.conj(np.swapaxes(nvh, -1, -2)))):
                    r = np.sum(got[..., :k] / ref[..., :k], -2, keepdims=True)
                    np.testing.assert_allclose(ref[..., :k] * (r / np.abs(r)), got[..., :k], atol=2 * tol * 100)
                m, n = shape[-2:]
                d = np.zeros(shape[:-2] + ((m, n) if full else (k, k)), dt)
                d[..., np.arange(k), np.arange(k)] = s
                np.testing.assert_allclose(u @ d @ vh, x, rtol=tol * 100, atol=tol * 100)
                for w in (u, np.conj(np.swapaxes(vh, -1, -2))):
                    ww = np.conj(np.swapaxes(w, -1, -2)) @ w
                    np.testing.assert_allclose(ww, np.broadcast_to(np.eye(ww.shape[-1]), ww.shape), atol=tol * 100)


# == qr_op_test.py ============================================================================================

@pytest.mark.parametrize("name,shape,dt,mode", [
    ("f64_3x2", (3, 2), np.float64, "reduced"), ("f64_2x3_full", (2, 3), np.float64, "complete"),
    ("c128_2x2", (2, 2), np.complex128, "reduced")])
def test_qr_grad_double(name, shape, dt, mode):
    """QrGradOpTest.test_QrGrad_{float64,complex128}_<shape>_full_<full> (TF's full_matrices=True is mode=
    'complete'): the Jacobians of q (at the first draw of seed 42) and r (at the second), against TF 2.21's
    (TF's tol 1e-6)."""
    xq, xr = _uniform_draws(42, shape, dt, 2)
    with jax.enable_x64(True):
        _close(_jac(lambda a: L.qr(a, mode=mode)[0], xq)[0], globals()[f"QRG_{name}_q"], 1e-6)
        _close(_jac(lambda a: L.qr(a, mode=mode)[1], xr)[0], globals()[f"QRG_{name}_r"], 1e-6)


@pytest.mark.parametrize("dt", [np.float64, np.complex128])
def test_qr_values_double(dt):
    """_GetQrOpTest (test_Qr_{float64,complex128}_*_full_{False,True}_static_True): q equals numpy's up to phase
    (first min(m, n) columns, atol 5e-14), a = q r (1e-14), q unitary (1e-14), per TF's tolerances (x 10 here:
    XLA's and numpy's LAPACK calls order their sums differently)."""
    with jax.enable_x64(True):
        for shape in ((5, 2), (2, 5), (3, 3), (3, 2, 4)):
            (x,) = _uniform_draws(1, shape, dt, 1)
            for mode in ("reduced", "complete"):
                q, r = (o.numpy() for o in L.qr(x, mode=mode))
                nq = np.stack([np.linalg.qr(m, mode=mode)[0] for m in x.reshape((-1,) + shape[-2:])])
                nq = nq.reshape(q.shape)
                k = min(shape[-2:])
                ratio = np.sum(q[..., :k] / nq[..., :k], -2, keepdims=True)
                np.testing.assert_allclose(nq[..., :k] * (ratio / np.abs(ratio)), q[..., :k], atol=5e-13)
                np.testing.assert_allclose(q @ r, x, rtol=1e-13, atol=1e-13)
                qq = np.conj(np.swapaxes(q, -1, -2)) @ q
                np.testing.assert_allclose(qq, np.broadcast_to(np.eye(qq.shape[-1]), qq.shape), atol=1e-13)


# == self_adjoint_eig_op_test.py ==============================================================================

def _normalizing_eigh(x):
    """SelfAdjointEigGradTest's Compute: eigenvectors with the phase of their first component removed."""
    e, v = L.eigh(x)
    top = v[..., 0:1, :]
    if np.dtype(x.dtype).kind == "c":
        ang = -tnp.angle(top)
        phase = tnp.cos(ang) + 1j * tnp.sin(ang)
    else:
        phase = tnp.sign(top)
    return e, v * phase


@pytest.mark.parametrize("name,n,dt", [("f64_3", 3, np.float64), ("c128_2", 2, np.complex128)])
def test_self_adjoint_eig_grad_double(name, n, dt):
    """SelfAdjointEigGradTest.test_SelfAdjointEigGrad_{float64,complex128}_<n>_<n>_{True,False}: the Jacobians of
    the eigenvalues (second draw of seed 1), eigenvectors (third) and eigvalsh (second) against TF 2.21's (TF's
    tol 1e-7; the checker perturbs every entry: the gradient lies on the lower triangle LAPACK reads, in both)."""
    _, xe, xv = _uniform_draws(1, (n, n), dt, 3, hermitian=True)
    with jax.enable_x64(True):
        _close(_jac(lambda x: _normalizing_eigh(x)[0], xe)[0], globals()[f"SAEG_{name}_e"], 1e-7)
        _close(_jac(lambda x: _normalizing_eigh(x)[1], xv)[0], globals()[f"SAEG_{name}_v"], 1e-7)
        _close(_jac(L.eigvalsh, xe)[0], globals()[f"SAEG_{name}_vals"], 1e-7)


def test_self_adjoint_eig_values_double():
    """_GetSelfAdjointEigTest (test_SelfAdjointEig_{float64,complex128}_*): V diag(E) V^H = A and numpy's eigh
    (phase-equilibrated eigenvectors), TF's atol 1e-12."""
    with jax.enable_x64(True):
        for dt, n, batch in ((np.float64, 5, ()), (np.float64, 2, (3, 2)), (np.complex128, 5, (3,))):
            (a,) = _uniform_draws(1, (n, n), dt, 1, hermitian=True)
            a = np.tile(a, batch + (1, 1))
            ne, nv = np.linalg.eigh(a)
            e, v = (o.numpy() for o in L.eigh(a))
            np.testing.assert_allclose((v * e[..., None, :]) @ np.conj(np.swapaxes(v, -1, -2)), a, atol=1e-12)
            np.testing.assert_allclose(e, ne, atol=1e-12, rtol=1e-12)
            ph = np.sum(np.conj(nv) * v, -2, keepdims=True)
            np.testing.assert_allclose(nv * (ph / np.abs(ph)), v, atol=1e-12)
            np.testing.assert_allclose(L.eigvalsh(a).numpy(), ne, atol=1e-12)


# == cholesky_op_test.py ======================================================================================

def _chol_mean(x):
    """CholeskyGradTest._runOneTest's Compute with scalar_test: the mean of the factor of x x^H / rows."""
    return tnp.mean(L.cholesky(x @ _h(x) / x.shape[0]))


def _np_chol_mean(xs):
    """The same in numpy (float64 / complex128), over a batch of inputs."""
    return np.mean(np.linalg.cholesky(xs @ np.conj(np.swapaxes(xs, -1, -2)) / xs.shape[-2]), axis=(-2, -1))


@pytest.mark.parametrize("name,dt", [("f32", np.float32), ("f64", np.float64), ("c64", np.complex64),
                                     ("c128", np.complex128)])
def test_cholesky_grad_two_block_matrices(name, dt):
    """CholeskyGradTest.testTwoBlockMatrixFloat / Double / ComplexFloat / ComplexDouble (a (33, 39) input, past
    TF's backprop block size 16; scalar_test: the mean of the factor): tj's gradient against TF 2.21's (its sum,
    its absolute sum and a few entries; complex: TF's convention, the gradient of the real part) and, in double
    precision, against central differences (TF's theoretical == numerical, tol 1e-5 / 5e-5)."""
    rs = np.random.RandomState(0)
    x = rs.randn(33, 39).astype(dt)
    if np.dtype(dt).kind == "c":
        x += 1j * rs.randn(33, 39).astype(dt)
    x64 = dt in (np.float64, np.complex128)
    with jax.enable_x64(x64):
        xt = tj.constant(x)
        with tj.GradientTape() as t:
            t.watch(xt)
            y = _chol_mean(xt)
        g = t.gradient(y, xt).numpy()
    tol = 1e-6 if x64 else 2e-3
    np.testing.assert_allclose(y.numpy(), globals()[f"CHOL2_{name}_val"], rtol=tol, atol=tol)
    np.testing.assert_allclose(g.sum(), globals()[f"CHOL2_{name}_sum"], rtol=tol, atol=tol)
    np.testing.assert_allclose(np.abs(g).sum(), globals()[f"CHOL2_{name}_abs"], rtol=tol, atol=tol)
    np.testing.assert_allclose(g[0, :4], globals()[f"CHOL2_{name}_row0"], rtol=tol, atol=tol)
    np.testing.assert_allclose(g[-1, -4:], globals()[f"CHOL2_{name}_last"], rtol=tol, atol=tol)
    if x64:
        delta = np.finfo(np.float64).eps ** (1.0 / 3.0)
        eye = np.eye(x.size).reshape((x.size,) + x.shape)
        num = (_np_chol_mean(x + delta * eye) - _np_chol_mean(x - delta * eye)).real / (2 * delta)
        if np.dtype(dt).kind == "c":
            num = num + 1j * (_np_chol_mean(x + 1j * delta * eye) -
                              _np_chol_mean(x - 1j * delta * eye)).real / (2 * delta)
        np.testing.assert_allclose(g, num.reshape(x.shape), atol=5e-5, rtol=5e-5)


def test_cholesky_values_double():
    """CholeskyOpTest.testBasic / testBatch in float64 and complex128: L L^H = A (TF's assertAllClose: rtol 1e-6),
    L lower triangular with a positive diagonal."""
    data = np.array([[4., -1., 2.], [-1., 6., 0], [2., 0., 5.]])
    cdata = np.tril(1j * data, -1) + np.triu(-1j * data, 1) + data
    rs = np.random.RandomState(0)
    mats = rs.rand(10, 5, 5)
    mats = np.einsum("bji,bjk->bik", mats, mats)
    cm = rs.rand(10, 5, 5) + 1j * rs.rand(10, 5, 5)
    cm = np.einsum("bji,bjk->bik", np.conj(cm), cm)
    simple = np.array([[[1., 0.], [0., 5.]]])
    with jax.enable_x64(True):
        for a in (data, cdata, mats, cm, simple, np.vstack((simple, simple)), np.stack([data, data])):
            c = L.cholesky(a).numpy()
            assert c.dtype == a.dtype
            np.testing.assert_allclose(c @ np.conj(np.swapaxes(c, -1, -2)), a, rtol=1e-6, atol=1e-6)
            np.testing.assert_array_equal(c, np.tril(c))
            assert np.all(np.real(np.diagonal(c, axis1=-2, axis2=-1)) > 0)


# == determinant_op_test.py ===================================================================================

@pytest.mark.parametrize("dt", [np.float64, np.complex128])
def test_determinant_double(dt):
    """DeterminantOpTest.testBasicDouble / testBasicComplex128: det equals numpy's and sign * exp(log|det|)
    numpy's slogdet (atol 5e-5), for 2x2, zero, 5x5 (LU) and a (3, 4, 5) batch of 2x2 matrices."""
    mats = [np.array([[2., 3.], [3., 4.]]), np.zeros((2, 2)),
            np.array([[2., 3., 4., 5., 6.], [3., 4., 9., 2., 0.], [2., 5., 8., 3., 8.], [1., 6., 7., 4., 7.],
                      [2., 3., 4., 5., 6.]]), np.random.RandomState(0).rand(3, 4, 5, 2, 2)]
    if dt == np.complex128:
        mats.insert(2, np.array([[1. + 1.j, 1. - 1.j], [-1. + 1.j, -1. - 1.j]]))
    with jax.enable_x64(True):
        for m in mats:
            m = m.astype(dt)
            d = L.det(m).numpy()
            assert d.dtype == dt and d.shape == m.shape[:-2]
            np.testing.assert_allclose(d, np.linalg.det(m), atol=5e-5)
            sign, logabs = (o.numpy() for o in L.slogdet(m))
            ns, nl = np.linalg.slogdet(m)
            np.testing.assert_allclose(sign * np.exp(logabs), ns * np.exp(nl), atol=5e-5)


# == matrix_inverse_op_test.py ================================================================================

def test_matrix_inverse_double():
    """InverseOpTest.testNonsymmetric / testSymmetricPositiveDefinite (2x2, their (2, 3, 2) batch; complex with
    imag = real) and testRandomSmallAndLarge (seed 42, sizes 8, 31, 32, batches) in float64 / complex128:
    inv(y) y = I and, for TF's adjoint=True, inv(y^H) y^H = I (atol 1e-3)."""
    def verify(y):
        for adjoint in (False, True):
            yy = np.conj(np.swapaxes(y, -1, -2)) if adjoint else y
            inv = L.inv(yy).numpy()
            assert inv.shape == y.shape and inv.dtype == y.dtype
            np.testing.assert_allclose(inv @ yy, np.broadcast_to(np.eye(y.shape[-1]), y.shape), atol=1e-3)
    with jax.enable_x64(True):
        for m1, m2 in ((np.array([[1., 2.], [3., 4.]]), np.array([[1., 3.], [3., 5.]])),
                       (np.array([[2., 1.], [1., 2.]]), np.array([[3., -1.], [-1., 3.]]))):
            batch = np.tile(np.stack([m1, m2]), [2, 3, 1, 1])
            for m in (m1, m2, batch):
                verify(m.astype(np.float64))
                verify((m + 1j * m).astype(np.complex128))
        rs = np.random.RandomState(42)
        for batch in ((), (3,), (2, 2)):
            for size in (8, 31, 32):
                shape = batch + (size, size)
                verify(rs.uniform(-1, 1, size=shape).astype(np.float64))
        verify((rs.uniform(-1, 1, (2, 8, 8)) + 1j * rs.uniform(-1, 1, (2, 8, 8))).astype(np.complex128))


# == matrix_solve_op_test.py ==================================================================================

def test_matrix_solve_double():
    """MatrixSolveOpTest.testSolve (n 1, 2, 4, 9; nrhs 1, 2, n) / testSolveBatch (n 2, 5; batches [2], [2, 2]) in
    float64 and complex128, adjoint False / True (TF's adjoint=True: the solve of a^H): numpy's solution with TF's
    tol 1e-12 (scaled by the solution's size here)."""
    rs = np.random.RandomState(0)

    def gen(m, n):
        return rs.normal(-5, 5, (m, n)) + 1j * rs.normal(-5, 5, (m, n))
    cases = [(n, nrhs, ()) for n in (1, 2, 4, 9) for nrhs in sorted({1, 2, n})]
    cases += [(n, nrhs, b) for n in (2, 5) for nrhs in sorted({1, n}) for b in ((2,), (2, 2))]
    with jax.enable_x64(True):
        for n, nrhs, batch in cases:
            x, y = gen(n, n), gen(n, nrhs)
            for dt in (np.float64, np.complex128):
                a, b = (x.real, y.real) if dt == np.float64 else (x, y)
                for adjoint in (False, True):
                    a_np = np.conj(a.T) if adjoint else a
                    a_b, a_np_b, b_b = (np.tile(z, batch + (1, 1)) for z in (a, a_np, b))
                    want = np.linalg.solve(a_np_b, b_b)
                    got = L.solve(_h(tj.constant(a_b)) if adjoint else a_b, b_b).numpy()
                    assert got.shape == want.shape and got.dtype == dt
                    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(want).max()))


# == matrix_solve_ls_op_test.py ===============================================================================

@pytest.mark.parametrize("shape", [(127, 127), (127, 64), (64, 127)])
@pytest.mark.parametrize("dt", [np.float64, np.complex128])
def test_matrix_solve_ls_large_batch(shape, dt):
    """test_MatrixSolveLsOpTest_LargeBatch{Square,Overdetermined,Underdetermined}_{float64,complex128} (TF's
    (16, 8) batch as (2,)): lstsq equals numpy's lstsq solution (atol 2 * maxdim * 5e-7) and |A^H (b - A x)|_F
    numpy's (atol maxdim * 5e-7). Complex: imag = real, as TF's."""
    rs = np.random.RandomState(1)
    x = rs.uniform(-1, 1, size=int(np.prod(shape))).reshape(shape).astype(np.float32)
    y = np.ones([shape[0], 1], np.float32)
    tol = max(shape) * 5e-7
    a, b = x.astype(dt), y.astype(dt)
    if dt == np.complex128:
        a.imag, b.imag = a.real, b.real
    np_ans = np.linalg.lstsq(x.astype(np.float64), y.astype(np.float64), rcond=None)[0]
    np_r = np.conj(a.T) @ (b - a @ np_ans)
    np_r_norm = np.sqrt(np.sum(np.conj(np_r) * np_r)).real
    with jax.enable_x64(True):
        ans = L.lstsq(np.tile(a, (2, 1, 1)), np.tile(b, (2, 1, 1)))[0]
        r = _h(tj.constant(a)) @ (b - tj.constant(a) @ ans)
        r_norm = L.norm(r, ord="fro", axis=(-2, -1)).numpy()
    assert ans.shape == (2,) + np_ans.shape and ans.dtype == dt
    np.testing.assert_allclose(ans.numpy(), np.tile(np_ans, (2, 1, 1)), atol=2 * tol, rtol=2 * tol)
    np.testing.assert_allclose(r_norm, [np_r_norm] * 2, atol=tol, rtol=tol)


# == norm_op_test.py ==========================================================================================

def test_norm_bad_order():
    """NormOpTest.testBadOrder: 'foo', -7, -1.1 and 1.1 are no matrix norms and 'fro' no vector norm: ValueError,
    as TF 2.21. (TF also rejects the vector orders -7, -1.1 and 0: jnp computes them, decided before.)"""
    matrix = [[0.0, 1.0], [2.0, 3.0]]
    for o in ("foo", -7, -1.1, 1.1):
        with pytest.raises(ValueError):
            L.norm(matrix, ord=o, axis=(-2, -1))
    with pytest.raises(ValueError):
        L.norm(matrix, ord="fro", axis=-1)


@pytest.mark.parametrize("axis", [[], [1, 2, 3], [1, 1]])
def test_norm_invalid_axis(axis):
    """NormOpTest.testInvalidAxis: TF 2.21 raises ValueError ("'axis' must be None, an integer, or a tuple of 2
    unique integers")."""
    with pytest.raises(ValueError):
        L.norm([[0.0, 1.0], [2.0, 3.0]], axis=axis)


@pytest.mark.parametrize("axis", [[[1]], [[1], [2]], [3.1415]])
def test_norm_invalid_axis_nested_or_float(axis):
    """NormOpTest.testInvalidAxis, the axes [[1]], [[1], [2]] and [3.1415]: TF 2.21 raises ValueError."""
    with pytest.raises(ValueError):
        L.norm([[0.0, 1.0], [2.0, 3.0]], axis=axis)


# == linalg_ops_test.py =======================================================================================

def _random_pd_matrix(n, rng, dtype):
    """linalg_ops_test._RandomPDMatrix."""
    temp = rng.randn(n, n).astype(dtype)
    if np.dtype(dtype).kind == "c":
        temp.imag = rng.randn(n, n)
    return np.conj(temp).dot(temp.T)


def test_slogdet_of_random_positive_definite_matrices():
    """SlogdetTest.test_works_with_five_different_random_pos_def_matrices (n = 1..5, float32 / float64 / complex64 /
    complex128 with TF's atol 0.05 / 1e-5, the inputs drawn in TF's order from RandomState(42)) and
    test_works_with_underflow_case (1e-6 * I of size 20, whose determinant underflows): numpy's slogdet."""
    rng = np.random.RandomState(42)
    cases = [(n, dt, atol) for n in range(1, 6) for dt, atol in
             ((np.float32, 0.05), (np.float64, 1e-5), (np.complex64, 0.05), (np.complex128, 1e-5))]
    cases = [(_random_pd_matrix(n, rng, dt), dt, atol) for n, dt, atol in cases]
    cases += [((np.eye(20) * 1e-6).astype(dt), dt, atol) for dt, atol in
              ((np.float32, 0.05), (np.float64, 1e-5), (np.complex64, 0.05), (np.complex128, 1e-5))]
    for m, dt, atol in cases:
        ns, nl = np.linalg.slogdet(m)
        with jax.enable_x64(dt in (np.float64, np.complex128)):
            sign, logabs = (o.numpy() for o in L.slogdet(m))
        assert sign.dtype == dt and logabs.dtype == np.finfo(dt).dtype
        np.testing.assert_allclose(logabs, nl, atol=atol)
        np.testing.assert_allclose(sign, ns, atol=atol)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_matrix_rank(dt):
    """MatrixRankStatic32Test / MatrixRankDynamic64Test.test_batch_default_tolerance ([2, 1, 3]) and
    test_nonsquare ([2, 1])."""
    x = np.array([[[2, 3, -2], [-1, 1, -2], [3, 2, 0]], [[0, 2, 0], [0, 1, 0], [0, 3, 0]],
                  [[1, 0, 0], [0, 1, 0], [0, 0, 1]]], dt)
    ns = np.array([[[2, 3, -2, 2], [-1, 1, -2, 4], [3, 2, 0, -2]], [[0, 2, 0, 6], [0, 1, 0, 3], [0, 3, 0, 9]]], dt)
    with jax.enable_x64(dt == np.float64):
        np.testing.assert_array_equal(L.matrix_rank(x).numpy(), [2, 1, 3])
        np.testing.assert_array_equal(L.matrix_rank(ns).numpy(), [2, 1])


@pytest.mark.parametrize("kw", ["tol", "rtol"])
def test_matrix_rank_custom_tolerance_broadcasts(kw):
    """MatrixRankStatic32Test.test_custom_tolerance_broadcasts: a = q diag(0.1, 0.2, 0.3) q^T (TF's solve(q,
    (e q)^T, adjoint=True), q orthogonal), and TF's tolerances [[0.09], [0.19], [0.29], [0.31]] give ranks
    [3, 2, 1, 0]. jnp's tol (alias of rtol, compared with the singular values as TF's absolute tol) is batch-shaped
    (jnp appends the singular-value axis itself): TF's (4, 1) tolerance is jnp's (4,)."""
    q = np.linalg.qr(np.random.RandomState(0).uniform(size=(3, 3)))[0].astype(np.float32)
    e = np.array([0.1, 0.2, 0.3], np.float32)
    a = L.solve(_h(tj.constant(q)), (e * q).T)
    got = L.matrix_rank(a, **{kw: np.array([0.09, 0.19, 0.29, 0.31], np.float32)})
    np.testing.assert_array_equal(got.numpy(), [3, 2, 1, 0])


def test_eye():
    """EyeTest.test_eye_no_placeholder with batch_shape=None (num_rows 0, 1, 2, 5; num_columns None, 0, 1, 2, 5;
    int32, int64, float32, float64, complex64, complex128): np.eye; testShapeInferenceNoBatch."""
    assert tnp.eye(2).shape == (2, 2) and tnp.eye(2, 3).shape == (2, 3)
    for dt in (np.int32, np.int64, np.float32, np.float64, np.complex64, np.complex128):
        with jax.enable_x64(dt in (np.int64, np.float64, np.complex128)):
            for n in (0, 1, 2, 5):
                for m in (None, 0, 1, 2, 5):
                    got = tnp.eye(n, M=m, dtype=dt)
                    assert got.dtype == dt
                    np.testing.assert_array_equal(got.numpy(), np.eye(n, M=m, dtype=dt))


# == TF 2.21's values (computed with the TF programs above on the same inputs; Jacobians of shape out + in) ======
EIGG_c64_2_e = np.array([[[ 0.7098551 -0.29498166j,  0.14651836-0.61623j   ],
  [-0.08316717+0.49520558j,  0.29014492+0.29498166j]],

 [[ 0.2901449 +0.29498166j, -0.1465184 +0.61623j   ],
  [ 0.08316717-0.49520558j,  0.70985514-0.29498166j]]])
EIGG_c64_2_v = np.array([[[[-0.17816164+0.11521094j,  0.07431468+0.21320678j],
   [ 0.14476702+0.13707969j,  0.17816165-0.11521095j]],

  [[ 0.15031374-0.09720264j, -0.02227136+0.14267218j],
   [ 0.21398656+0.05873671j, -0.15031374+0.09720264j]]],


 [[[-0.18475167-0.37248644j, -0.43163833+0.09733896j],
   [-0.29906148+0.251425j  ,  0.18475169+0.37248647j]],

  [[-0.02426441-0.30969346j,  0.19938646+0.15179138j],
   [ 0.2663323 -0.27813324j,  0.02426441+0.3096935j ]]]])
EIGG_c64_2_vals = np.array([[[ 0.7098551 -0.29498166j,  0.14651836-0.61623j   ],
  [-0.08316717+0.49520558j,  0.29014492+0.29498166j]],

 [[ 0.2901449 +0.29498166j, -0.1465184 +0.61623j   ],
  [ 0.08316717-0.49520558j,  0.70985514-0.29498166j]]])
EIGG_c64_1_e = np.array([[[1.+0.j]]])
EIGG_c64_1_v = np.array([[[[0.+0.j]]]])
EIGG_c64_1_vals = np.array([[[1.+0.j]]])
EIGG_c128_3_e = np.array([[[ 0.417208443529-0.151999040439j,  0.118360403062-0.272317261541j,
   -0.327347769043-0.082806184648j],
  [ 0.417647849477+0.134053868641j,  0.257293421007-0.140835346314j,
   -0.205314315207-0.262874925889j],
  [-0.570496411108-0.077767272918j, -0.300364873522+0.240877872023j,
    0.325498135464+0.292834386752j]],

 [[ 0.624447406616+0.436717510577j,  0.059557897334-0.894208536871j,
    0.746397841449-0.58937935054j ],
  [-0.236400705393-0.253547599857j, -0.111332197138+0.392205147063j,
   -0.388005103119+0.191418739886j],
  [ 0.7483693039  +0.182323576712j, -0.271879980641-0.864131482296j,
    0.486884790523-0.82892265764j ]],

 [[-0.041655850145-0.284718470138j, -0.177918300395+1.166525798412j,
   -0.419050072406+0.672185535188j],
  [-0.181247144084+0.119493731216j,  0.854038776131-0.251369800749j,
    0.593319418326+0.071456186003j],
  [-0.177872892792-0.104556303794j,  0.572244854162+0.623253610273j,
    0.187617074014+0.536088270888j]]])
EIGG_c128_3_v = np.array([[[[-0.154737340723+0.018683317326j,  0.067102965395+0.076365657562j,
    -0.158240759507-0.065416912219j],
   [-0.039611845472+0.007757716382j,  0.018778561362+0.018452331288j,
    -0.042110348762-0.013897477392j],
   [ 0.091310880009-0.090114003479j, -0.082150223538-0.015903964877j,
     0.135958779361-0.037135648614j]],

  [[-0.072066637188-0.246829671827j,  0.164263282498+0.304695789649j,
     0.02323932639 +0.254134340636j],
   [-0.175788404525-0.159228432178j,  0.27618866842 +0.160210240505j,
     0.14093481079 +0.188538541764j],
   [ 0.185129993602-0.125084778973j, -0.208563349292+0.216717894248j,
    -0.204122031232+0.086619431322j]],

  [[ 0.112826849337+0.073836848188j, -0.026624770934+0.077403476082j,
    -0.037426624756-0.02504681059j ],
   [-0.222757812581+0.200125988912j, -0.150981585924-0.101239494492j,
     0.075081468598-0.066069792733j],
   [-0.115079399258-0.080867773749j,  0.030426226903-0.079777431751j,
     0.038154736586+0.027402646304j]]],


 [[[-0.027382559462-0.137588351381j, -0.063931547713+0.065460735593j,
     0.047853405627-0.146501854317j],
   [-0.15076329612 +0.0430991659j  ,  0.078774337099+0.065225512448j,
    -0.167580272604-0.039895864461j],
   [-0.008497028829+0.080341193899j,  0.046359162513-0.025049598228j,
    -0.051391777637+0.072362838933j]],

  [[-0.17922310845 -0.168466267654j,  0.283307361204+0.171406439339j,
     0.142522966514+0.198190072095j],
   [-0.149727797821-0.114870175554j,  0.229409929067+0.109137938005j,
     0.123989253552+0.140373608466j],
   [ 0.038171709769-0.068364246503j, -0.031035602141+0.100732933581j,
    -0.050186820617+0.059328329649j]],

  [[ 0.162593508632-0.199762427306j,  0.14179603637 +0.065889983256j,
    -0.054987354039+0.066155153224j],
   [ 0.458693480483+0.506100911363j, -0.229415731355+0.345387501004j,
    -0.151448867726-0.170597253059j],
   [-0.19557845349 +0.438059603875j, -0.286940835605-0.049765475782j,
     0.066822222723-0.145625073697j]]],


 [[[ 0.117680959217+0.113122472673j,  0.017475597391-0.105024003869j,
     0.051791631966+0.171688038211j],
   [-0.022094615104+0.105613910371j,  0.064970109409-0.02705151563j ,
    -0.07801982614 +0.089244100104j],
   [-0.183319081553+0.013184372606j,  0.074682250668+0.093771056344j,
    -0.182651068626-0.086070957043j]],

  [[ 0.059944818334+0.02219817712j , -0.085158304978-0.012373030859j,
    -0.054166212282-0.033026088861j],
   [-0.069280066363+0.035980732247j,  0.081093536183-0.066844517371j,
     0.074327223714-0.02186709821j ],
   [ 0.130852258783-0.071392488874j, -0.152199499664+0.13077320065j ,
    -0.141038354517+0.044646340252j]],

  [[ 0.156267670459-0.046393902734j,  0.050602925672+0.08503762572j ,
    -0.052347625417+0.014956937344j],
   [ 0.143595087034+0.166688650603j, -0.076675362502+0.109354988802j,
    -0.047383065816-0.056161953681j],
   [ 0.240238881181+0.186052801276j, -0.073658831168+0.169112647606j,
    -0.079592307957-0.062961086068j]]]])
EIGG_c128_3_vals = np.array([[[ 0.417208443529-0.151999040439j,  0.118360403062-0.272317261541j,
   -0.327347769043-0.082806184648j],
  [ 0.417647849477+0.134053868641j,  0.257293421007-0.140835346314j,
   -0.205314315207-0.262874925889j],
  [-0.570496411108-0.077767272918j, -0.300364873522+0.240877872023j,
    0.325498135464+0.292834386752j]],

 [[ 0.624447406616+0.436717510577j,  0.059557897334-0.894208536871j,
    0.746397841449-0.58937935054j ],
  [-0.236400705393-0.253547599857j, -0.111332197138+0.392205147063j,
   -0.388005103119+0.191418739886j],
  [ 0.7483693039  +0.182323576712j, -0.271879980641-0.864131482296j,
    0.486884790523-0.82892265764j ]],

 [[-0.041655850145-0.284718470138j, -0.177918300395+1.166525798412j,
   -0.419050072406+0.672185535188j],
  [-0.181247144084+0.119493731216j,  0.854038776131-0.251369800749j,
    0.593319418326+0.071456186003j],
  [-0.177872892792-0.104556303794j,  0.572244854162+0.623253610273j,
    0.187617074014+0.536088270888j]]])
SVDGG_f64_3x2 = np.array([[[[ 0.53532100534 ,  1.562222076674],
   [ 0.783123372271,  1.472882352449],
   [ 0.477044770902, -1.43955659529 ]],

  [[ 1.562222076674,  3.157127638328],
   [ 1.684367060786,  0.962191833207],
   [-1.040582981233, -2.980969779729]]],


 [[[ 0.783123372271,  1.684367060786],
   [-0.561850046714,  0.284012677157],
   [-0.331126011662,  0.328700482524]],

  [[ 1.472882352449,  0.962191833207],
   [ 0.284012677157,  1.417647367036],
   [ 0.095681254924, -1.145175061077]]],


 [[[ 0.477044770902, -1.040582981233],
   [-0.331126011662,  0.095681254924],
   [ 1.205814189302,  1.572691651152]],

  [[-1.43955659529 , -2.980969779729],
   [ 0.328700482524, -1.145175061077],
   [ 1.572691651152,  2.04377568848 ]]]])
SVDGG_f64_3x2_g = np.array([[-0.220887003909,  0.450839999672],
 [-0.552082920579,  1.885218969034],
 [ 0.370929087539,  1.463857738003]])
SVDGG_f64_2x3 = np.array([[[[-1.432783539887, -1.210012365446,  1.771997861181],
   [-0.404735900175,  1.530824972905,  1.304018889008]],

  [[-1.210012365446,  2.066565068772, -0.238719134053],
   [-0.033135614609, -0.722473045937, -0.755531074312]],

  [[ 1.771997861181, -0.238719134053,  0.64285666555 ],
   [ 0.957399677506,  0.015708100891,  2.260669356095]]],


 [[[-0.404735900175, -0.033135614609,  0.957399677506],
   [ 0.778237310126,  0.462334454824, -0.197331288277]],

  [[ 1.530824972905, -0.722473045937,  0.015708100891],
   [ 0.462334454824, -0.438984636017,  2.251299690525]],

  [[ 1.304018889008, -0.755531074312,  2.260669356095],
   [-0.197331288277,  2.251299690525,  2.578034680235]]]])
SVDGG_f64_2x3_g = np.array([[-1.09018972339 , -2.030150770209, -0.45567548853 ],
 [-0.115902543856, -1.431325530498,  1.873370260634]])
SVDGG_f64_2x2_full = np.array([[[[-11.524870664634, -14.215087258177],
   [ 16.596268154415,  -8.787261229824]],

  [[-14.215087258177,   7.195226214749],
   [ -7.333177250006, -14.460273618942]]],


 [[[ 16.596268154415,  -7.333177250006],
   [  8.487907438938,  17.781674914418]],

  [[ -8.787261229824, -14.460273618942],
   [ 17.781674914418,  -5.213898785852]]]])
SVDGG_f64_2x2_full_g = np.array([[ 2.724441098194, -1.462308699521],
 [ 0.109782646662,  4.210741332507]])
SVDGG_f64_3x2_full = np.array([[[[-0.377751528743,  0.445582585907],
   [ 1.421009511218,  3.551700903751],
   [ 0.906103168262, -1.48990325153 ]],

  [[ 0.445582585907,  2.682870218075],
   [ 2.294798313606,  3.228052199821],
   [ 0.117462695141, -2.065908380129]]],


 [[[ 1.421009511218,  2.294798313606],
   [-0.240271957744,  0.92346319799 ],
   [-0.970589662733, -0.430120555213]],

  [[ 3.551700903751,  3.228052199821],
   [ 0.92346319799 ,  2.42829040204 ],
   [-1.6856669244  , -3.020645577768]]],


 [[[ 0.906103168262,  0.117462695141],
   [-0.970589662733, -1.6856669244  ],
   [ 1.154621178852,  1.459054972678]],

  [[-1.48990325153 , -2.065908380129],
   [-0.430120555213, -3.020645577768],
   [ 1.459054972678,  0.804727629736]]]])
SVDGG_f64_3x2_full_g = np.array([[-0.745495667857, -1.004756040646],
 [-0.666468567636,  1.567840880627],
 [ 0.830378264987,  2.738660175286]])
SVDGG_f64_3x2_s = np.array([[[[ 0.793069288133,  0.543215584119],
   [ 0.273405576148,  0.010631605764],
   [-0.574246473399, -0.326876506638]],

  [[ 0.543215584119,  0.949963080614],
   [ 0.303707721573,  0.008357282377],
   [-0.253911524244, -0.557501406822]]],


 [[[ 0.273405576148,  0.303707721573],
   [ 0.301039562507, -0.192808096275],
   [ 0.049633049119,  0.091688211164]],

  [[ 0.010631605764,  0.008357282377],
   [-0.192808096275,  0.211175005796],
   [-0.242952217193, -0.296399300767]]],


 [[[-0.574246473399, -0.253911524244],
   [ 0.049633049119, -0.242952217193],
   [ 0.712274462914,  0.481402729972]],

  [[-0.326876506638, -0.557501406822],
   [ 0.091688211164, -0.296399300767],
   [ 0.481402729972,  0.729682672138]]]])
SVDGG_f64_3x2_s_g = np.array([[-0.588949396386,  0.319436741856],
 [ 0.620297682943,  0.767483397972],
 [-0.518043813815,  0.555814179191]])
SVDGG_c128_2x3_s = np.array([[[[ 0.383788044696+0.008920222823j,  0.040846234229+0.12272328718j ,
     0.175972435954-0.137145396201j],
   [ 0.113001061487+0.137587393644j, -0.075063247678-0.216479208077j,
    -0.163365757705-0.085687464324j]],

  [[ 0.040846234229-0.015285719193j,  0.477296871312-0.144866603523j,
    -0.316772575015+0.048031956017j],
   [ 0.071822991355+0.074513993149j, -0.007870193354-0.099528045567j,
    -0.127481369822-0.125744496302j]],

  [[ 0.175972435954+0.056538141475j, -0.316772575015-0.110962450394j,
     0.534214731858+0.092548242911j],
   [-0.01649917617 +0.078407420115j,  0.058253449757-0.112920349859j,
    -0.022681768741-0.01658906342j ]]],


 [[[ 0.113001061487+0.066529404946j,  0.071822991355+0.102361364965j,
    -0.01649917617 +0.054065094451j],
   [ 0.482330667607-0.259002376257j, -0.032667164578-0.108505833512j,
     0.14873081025 -0.18255574186j ]],

  [[-0.075063247678-0.190840961407j, -0.007870193354-0.207133600367j,
     0.058253449757-0.053828074693j],
   [-0.032667164578-0.253726970187j,  0.652837102651-0.118852202385j,
    -0.087090756789+0.041513081164j]],

  [[-0.163365757705-0.106608376019j, -0.127481369822-0.069398974683j,
    -0.022681768741-0.159261479839j],
   [ 0.14873081025 +0.022297685137j, -0.087090756789-0.126448650858j,
     0.742858787281+0.000782609838j]]]])
SVDGG_c128_2x3_s_g = np.array([[ 0.490023113571-0.052524357498j, -0.540032142872-0.318331318729j,
  -0.574298662736+0.185283680329j],
 [-0.545852800055-0.571379294665j, -0.306700893718-0.433806189271j,
   0.01696048635 -0.305007403427j]])
QRG_f64_3x2_q = np.array([[[[ 1.05688132329 ,  0.            ],
   [ 0.178696040148,  0.            ],
   [-0.264955655125,  0.            ]],

  [[-0.296941760765, -0.035295306605],
   [ 0.072362498588, -0.152503127296],
   [ 0.157107173979, -0.089980621938]]],


 [[[ 0.178696040148,  0.            ],
   [ 0.823082758931,  0.            ],
   [ 0.489942332744,  0.            ]],

  [[ 0.647230536067, -0.152503127296],
   [ 0.290236947464, -0.658931911133],
   [-0.040316872547, -0.388786146421]]],


 [[[-0.264955655125,  0.            ],
   [ 0.489942332744,  0.            ],
   [ 0.427072438533,  0.            ]],

  [[-0.817204534585, -0.089980621938],
   [ 0.185177719545, -0.388786146421],
   [ 0.422948769859, -0.229393454915]]]])
QRG_f64_3x2_r = np.array([[[[-0.669759764121,  0.            ],
   [ 0.153247918111,  0.            ],
   [-0.726592687797,  0.            ]],

  [[-0.008190461178, -0.669759764121],
   [ 0.444207448761,  0.153247918111],
   [ 0.101238987556, -0.726592687797]]],


 [[[ 0.            ,  0.            ],
   [ 0.            ,  0.            ],
   [ 0.            ,  0.            ]],

  [[ 0.015113634766,  0.017974479563],
   [-0.819683897545, -0.974841042028],
   [-0.186813544292, -0.222175293095]]]])
QRG_f64_2x3_full_q = np.array([[[[ 1.197019959729e+00,  0.000000000000e+00,  0.000000000000e+00],
   [ 1.522200377466e+00,  0.000000000000e+00,  0.000000000000e+00]],

  [[ 1.522200377466e+00,  1.351688527823e-14,  0.000000000000e+00],
   [ 1.935718757507e+00, -3.379221319559e-15,  0.000000000000e+00]]],


 [[[ 1.522200377466e+00,  0.000000000000e+00,  0.000000000000e+00],
   [ 1.935718757507e+00,  0.000000000000e+00,  0.000000000000e+00]],

  [[-1.197019959729e+00, -3.379221319559e-15,  0.000000000000e+00],
   [-1.522200377466e+00,  0.000000000000e+00,  0.000000000000e+00]]]])
QRG_f64_2x3_full_r = np.array([[[[-0.904730401353,  0.            ,  0.            ],
   [ 0.425984625154,  0.            ,  0.            ]],

  [[-0.242235079798, -0.904730401353,  0.            ],
   [-0.514472654707,  0.425984625154,  0.            ]],

  [[ 0.408336763025,  0.            , -0.904730401353],
   [ 0.867248866941,  0.            ,  0.425984625154]]],


 [[[ 0.            ,  0.            ,  0.            ],
   [ 0.            ,  0.            ,  0.            ]],

  [[ 0.467029264737,  0.425984625154,  0.            ],
   [ 0.991903343874,  0.904730401353,  0.            ]],

  [[-0.094792235975,  0.            ,  0.425984625154],
   [-0.201325147986,  0.            ,  0.904730401353]]]])
QRG_c128_2x2_q = np.array([[[[ 0.774559436507-0.090973446285j,  0.            +0.j            ],
   [ 0.061355907282-0.116874521406j,  0.            +0.j            ]],

  [[ 0.274269737496+0.64460171842j ,  0.662462184972+0.285792307616j],
   [ 0.214641470455-0.46693290636j , -0.171682947376-0.500658186289j]]],


 [[[ 0.061355907282+0.168223405043j,  0.            +0.j            ],
   [ 0.694283885769+0.216118337345j,  0.            +0.j            ]],

  [[ 0.358826057979+0.24698868168j , -0.171682947376-0.074065609815j],
   [-0.042943508449-0.31666716773j ,  0.04449315763 +0.129750006868j]]]])
QRG_c128_2x2_r = np.array([[[[-0.150429975487-0.494578771681j,  0.            +0.j            ],
   [ 0.713232007077+0.473352685803j,  0.            +0.j            ]],

  [[-0.375854817513+0.20996815427j , -0.150429975487-0.494578771681j],
   [-0.384729445621+0.679635555425j,  0.713232007077+0.473352685803j]]],


 [[[ 0.            +0.j            ,  0.            +0.j            ],
   [ 0.            +0.j            ,  0.            +0.j            ]],

  [[-0.504165861685-0.19010493084j , -0.776475542103+0.360344825956j],
   [-0.307938414313+0.10513938843j , -0.223315809029+0.466226756376j]]]])
SAEG_f64_3_e = np.array([[[ 0.302089356707,  0.            ,  0.            ],
  [-0.2525347614  ,  0.052777269622,  0.            ],
  [-0.882922252166,  0.369044051595,  0.645133373671]],

 [[ 0.548496579776,  0.            ,  0.            ],
  [ 0.857397677066,  0.335066253713,  0.            ],
  [ 0.505432043267,  0.395040074808,  0.116437166512]],

 [[ 0.149414063517,  0.            ,  0.            ],
  [-0.604862915666,  0.612156476665,  0.            ],
  [ 0.377490208899, -0.764084126402,  0.238429459817]]])
SAEG_f64_3_v = np.array([[[[-0.180022451491,  0.            ,  0.            ],
   [ 0.012837275138,  0.059034180336,  0.            ],
   [ 0.157775632104, -0.197654870582,  0.120988271154]],

  [[ 0.042841414791,  0.            ,  0.            ],
   [-0.08119715805 ,  0.037697620038,  0.            ],
   [-0.25066757004 ,  0.274791178984, -0.080539034828]],

  [[ 0.147987085871,  0.            ,  0.            ],
   [ 0.095016043853, -0.118437629619,  0.            ],
   [ 0.158223358985, -0.145209975229, -0.029549456252]]],


 [[[ 0.1097079244  ,  0.            ,  0.            ],
   [-0.167909408641, -0.122119061417,  0.            ],
   [-0.159130429583,  0.305526633293,  0.012411137017]],

  [[-0.034834444902,  0.            ,  0.            ],
   [-0.054650506051,  0.099938568801,  0.            ],
   [-0.223840461683,  0.202527777942, -0.065104123899]],

  [[-0.093148480988,  0.            ,  0.            ],
   [ 0.018421186848,  0.174015009615,  0.            ],
   [-0.180370750589,  0.085014688969, -0.080866528627]]],


 [[[-0.088455820505,  0.            ,  0.            ],
   [-0.056672271327, -0.004882702385,  0.            ],
   [ 0.052747477661, -0.024309449316,  0.09333852289 ]],

  [[-0.263749694023,  0.            ,  0.            ],
   [ 0.072224922617,  0.230727351674,  0.            ],
   [ 0.027602721641, -0.182134461459,  0.03302234235 ]],

  [[-0.023997950281,  0.            ,  0.            ],
   [-0.096187220812, -0.083504020446,  0.            ],
   [ 0.057755938695,  0.030141658741,  0.107501970727]]]])
SAEG_f64_3_vals = np.array([[[ 0.302089356707,  0.            ,  0.            ],
  [-0.2525347614  ,  0.052777269622,  0.            ],
  [-0.882922252166,  0.369044051595,  0.645133373671]],

 [[ 0.548496579776,  0.            ,  0.            ],
  [ 0.857397677066,  0.335066253713,  0.            ],
  [ 0.505432043267,  0.395040074808,  0.116437166512]],

 [[ 0.149414063517,  0.            ,  0.            ],
  [-0.604862915666,  0.612156476665,  0.            ],
  [ 0.377490208899, -0.764084126402,  0.238429459817]]])
SAEG_c128_2_e = np.array([[[ 0.660378995439+0.j            ,  0.            +0.j            ],
  [ 0.046691395375+0.946009632554j,  0.339621004561+0.j            ]],

 [[ 0.339621004561+0.j            ,  0.            +0.j            ],
  [-0.046691395375-0.946009632554j,  0.660378995439+0.j            ]]])
SAEG_c128_2_v = np.array([[[[-0.127553770618+0.j            ,  0.            +0.j            ],
   [-0.032400516849-0.070506587093j,  0.127553770618+0.j            ]],

  [[ 0.094526232086+0.j            ,  0.            +0.j            ],
   [ 0.024011040681+0.052250293996j, -0.094526232086+0.j            ]]],


 [[[ 0.039470349294+0.j            ,  0.            +0.j            ],
   [-0.45020310776 +0.233310800403j, -0.039470349294+0.j            ]],

  [[ 0.053261319837+0.j            ,  0.            +0.j            ],
   [ 0.354591022157-0.127290471681j, -0.053261319837+0.j            ]]]])
SAEG_c128_2_vals = np.array([[[ 0.660378995439+0.j            ,  0.            +0.j            ],
  [ 0.046691395375+0.946009632554j,  0.339621004561+0.j            ]],

 [[ 0.339621004561+0.j            ,  0.            +0.j            ],
  [-0.046691395375-0.946009632554j,  0.660378995439+0.j            ]]])
CHOL2_f32_val = np.array(0.0244495)
CHOL2_f32_sum = np.array(-0.01872301)
CHOL2_f32_abs = np.array(0.17760473)
CHOL2_f32_row0 = np.array([-1.8436712e-04,  1.2301648e-04, -3.2158594e-05, -1.7716431e-04])
CHOL2_f32_last = np.array([-9.3892144e-05, -3.1950945e-05, -2.5032772e-04, -1.3160307e-05])
CHOL2_f64_val = np.array(0.024449505443)
CHOL2_f64_sum = np.array(-0.018723018624)
CHOL2_f64_abs = np.array(0.17760469001)
CHOL2_f64_row0 = np.array([-1.843670973290e-04,  1.230164724272e-04, -3.215872243350e-05, -1.771643613409e-04])
CHOL2_f64_last = np.array([-9.389212823698e-05, -3.195095905380e-05, -2.503277954778e-04, -1.316046669488e-05])
CHOL2_c64_val = np.array(0.03164352-0.00315669j)
CHOL2_c64_sum = np.array(-0.00824376-0.0196422j)
CHOL2_c64_abs = np.array(0.18894425)
CHOL2_c64_row0 = np.array([-2.4153730e-04+1.7240120e-04j,  1.7617656e-05+6.2770501e-05j,  4.1976768e-05+2.1762779e-04j,
 -4.5911625e-06+2.0774853e-04j])
CHOL2_c64_last = np.array([-2.2874156e-06-2.5731621e-05j, -2.6762145e-05+9.8033328e-05j, -2.0465278e-04-2.1888874e-04j,
 -1.0407758e-04-2.3548280e-05j])
CHOL2_c128_val = np.array(0.031643524155-0.003156688503j)
CHOL2_c128_sum = np.array(-0.008243759213-0.019642207725j)
CHOL2_c128_abs = np.array(0.18894429851)
CHOL2_c128_row0 = np.array([-2.415372653864e-04+1.724012774344e-04j,  1.761770404194e-05+6.277043051393e-05j,
  4.197666819425e-05+2.176277219677e-04j, -4.591173439177e-06+2.077484712284e-04j])
CHOL2_c128_last = np.array([-2.287407087756e-06-2.573163972427e-05j, -2.676206968147e-05+9.803335335534e-05j,
 -2.046528205535e-04-2.188887045512e-04j, -1.040774650959e-04-2.354829817729e-05j])
