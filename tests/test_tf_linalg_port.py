"""TensorFlow's linalg kernel tests (tensorflow/python/kernel_tests/linalg/), ported to tj.numpy.linalg.

Each test names the TF test it comes from and hard-codes the values TF 2.21 gives (TF is not imported). Ported
from: cholesky_op_test.py, self_adjoint_eig_op_test.py, determinant_op_test.py, matrix_inverse_op_test.py,
svd_op_test.py, qr_op_test.py, linalg_grad_test.py (DetGradSingularMatrixTest)."""
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy
L = tnp.linalg


def _grad(f, x):
    x = tj.constant(x)
    with tj.GradientTape() as t:
        t.watch(x)
        y = f(x)
    return t.gradient(y, x).numpy()


# -- cholesky: only the lower triangle is read; the gradient is symmetrized (CholeskyGrad) -------------------

_A = np.array([[4., 7., -3.], [-1., 6., 9.], [2., 0., 5.]], np.float32)  # the upper triangle is garbage
_W = np.array([[1., 0., 0.], [2., -1., 0.], [0.5, 3., 1.]], np.float32)
# TF: l = tf.linalg.cholesky(a); tape.gradient(tf.reduce_sum(l * w), a)
_TF_CHOL = [[2., 0., 0.], [-0.5, 2.39791576, 0.], [1., 0.20851441, 1.98910074]]
_TF_CHOL_GRAD = [[0.20810817, 0.13290531, 0.15023631], [0.13290531, -0.26100876, 0.60368499],
                 [0.15023631, 0.60368499, 0.25136987]]


def test_cholesky_reads_the_lower_triangle_and_has_tfs_symmetric_gradient():
    np.testing.assert_allclose(L.cholesky(_A).numpy(), _TF_CHOL, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_grad(lambda x: tnp.sum(L.cholesky(x) * _W), _A), _TF_CHOL_GRAD, rtol=1e-4, atol=1e-5)
    # jnp's convention on request: (a + a^T) / 2 is factored
    b = np.array([[4., 1.], [0.5, 3.]], np.float32)
    np.testing.assert_allclose(L.cholesky(b, symmetrize_input=True).numpy(), np.linalg.cholesky((b + b.T) / 2),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(L.cholesky(b).numpy(), np.linalg.cholesky(np.tril(b) + np.tril(b, -1).T), rtol=1e-5,
                               atol=1e-6)


def test_cholesky_tf_convention_on_every_path():
    want = np.asarray(_TF_CHOL_GRAD, np.float32)
    f = tj.function(lambda x: tnp.sum(L.cholesky(x) * _W))
    np.testing.assert_allclose(_grad(f, _A), want, rtol=1e-4, atol=1e-5)
    # forward mode: the tangent along d is <grad, d> (the symmetric gradient: TF's ForwardAccumulator, which
    # transposes CholeskyGrad twice, gives the same)
    d = np.array([[0.3, -1., 2.], [0.5, 0.2, -0.7], [1.1, 0.4, -0.2]], np.float32)
    x = tj.constant(_A)
    with tj.ForwardAccumulator(x, tj.constant(d)) as acc:
        y = tnp.sum(L.cholesky(x) * _W)
    np.testing.assert_allclose(acc.jvp(y).numpy(), np.sum(want * d), rtol=1e-4, atol=1e-5)


def test_cholesky_complex_hermitian_gradient():
    # TF (cholesky_op_test testSmallMatricesComplex's convention): l = cholesky(h) with imaginary parts on h's
    # diagonal (ignored, as LAPACK); tape.gradient(real(reduce_sum(l * w)), h), a Hermitian gradient
    h = np.array([[2.0 + 0.5j, 1.0 + 1.0j], [1.0 - 1.0j, 3.0 - 0.25j]], np.complex64)
    w = np.array([[1., 0.], [2., -1.]], np.complex64)
    np.testing.assert_allclose(L.cholesky(h).numpy(), [[1.41421356, 0], [0.70710678 - 0.70710678j, 1.41421356]],
                               rtol=1e-5, atol=1e-6)
    g = _grad(lambda x: tnp.real(tnp.sum(L.cholesky(x) * w)), h)
    np.testing.assert_allclose(g, [[-0.1767767, 0.88388348 + 0.1767767j], [0.88388348 - 0.1767767j, -0.35355339]],
                               rtol=1e-4, atol=1e-5)


def test_cholesky_not_positive_definite_gives_lower_nans_and_bad_ranks_raise():
    # CholeskyOpTest.testNotInvertibleCpu: the lower triangle is all NaN (no error)
    c = L.cholesky(np.array([[1., -1., 0.], [-1., 1., -1.], [0., -1., 1.]], np.float32)).numpy()
    assert np.all(np.isnan(c[np.tril_indices(3)]))
    # testNonSquareMatrix / testWrongDimensions / testInvalidRank: ValueError (or TF's InvalidArgumentError)
    for bad in (np.zeros((2, 3), np.float32), np.zeros((2, 2, 3), np.float32), np.zeros((2,), np.float32),
                np.float32(0)):
        with pytest.raises(ValueError, match="tnp.linalg.cholesky"):
            L.cholesky(bad)


# -- eigh: the diagonal's imaginary part is not read, and has zero gradient -------------------------------

def test_eigh_complex_gradient_has_a_real_diagonal():
    # TF: e, v = tf.linalg.eigh(h); tape.gradient(reduce_sum(real(e) * [1, 2]), h), h with imaginary diagonal
    # parts (LAPACK ignores them: SelfAdjointEigGradTest's numerical Jacobian is 0 there)
    h = np.array([[2.0 + 0.5j, 1.0 + 1.0j], [1.0 - 1.0j, 3.0 - 0.25j]], np.complex64)
    np.testing.assert_allclose(L.eigh(h).eigenvalues.numpy(), [1., 4.], rtol=1e-5, atol=1e-5)
    g = _grad(lambda x: tnp.sum(L.eigh(x).eigenvalues * np.array([1., 2.], np.float32)), h)
    np.testing.assert_allclose(g, [[1.33333333, 0], [0.66666667 - 0.66666667j, 1.66666667]], rtol=1e-4, atol=1e-5)
    # tf.linalg.eigvalsh (SelfAdjointEigTest with compute_v=False): the same values and gradient
    np.testing.assert_allclose(L.eigvalsh(h).numpy(), [1., 4.], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(_grad(lambda x: tnp.sum(L.eigvalsh(x) * np.array([1., 2.], np.float32)), h), g,
                               rtol=1e-5, atol=1e-6)


def test_eigh_svd_qr_reject_rank_below_two():
    # SvdOpTest / QrOpTest.testWrongDimensions: assertRaisesRegex((ValueError, ...), "rank.* 2.*0") (and 1)
    for fn in (L.svd, L.qr, L.eigh, L.eigvalsh):
        with pytest.raises(ValueError, match="rank.* 2.*0"):
            fn(np.float32(1.))
        with pytest.raises(ValueError, match="rank.* 2.*1"):
            fn(np.array([1., 2.], np.float32))
    with pytest.raises(ValueError, match="square"):
        L.eigh(np.zeros((2, 3), np.float32))


# -- determinants ------------------------------------------------------------------------------------------

def test_det_and_slogdet_of_non_finite_matrices():
    # DeterminantOpTest.testInfAndNans: TF's LU gives nan for [[inf, -inf], [1, 1]] (not inf + inf)
    cases = [([[np.inf, 1], [1, 1]], np.inf, (1., np.inf)),
             ([[np.inf, np.inf], [1, 1]], np.nan, (np.nan, np.nan)),
             ([[np.inf, -np.inf], [1, 1]], np.nan, (np.nan, np.nan)),
             ([[np.nan, 1], [1, 1]], np.nan, (np.nan, np.nan))]
    for m, det, (sign, logabsdet) in cases:
        a = np.array(m, np.float32)
        np.testing.assert_array_equal(L.det(a).numpy(), det)
        s, l = L.slogdet(a)
        np.testing.assert_array_equal(s.numpy(), sign)
        np.testing.assert_array_equal(l.numpy(), logabsdet)
    a5 = np.array([[np.inf, 3., 4., 5., 6.], [3., 4., 9., 2., 0.], [2., 5., 8., 3., 8.], [1., 6., 7., 4., 7.],
                   [2., 3., 4., 5., 6.]], np.float32)
    assert L.det(a5).numpy() == -np.inf
    # finite matrices keep jnp's values and derivative (a batch mixing both: per matrix)
    batch = np.array([[[np.inf, -np.inf], [1, 1]], [[2., 3.], [3., 4.]]], np.float32)
    np.testing.assert_array_equal(L.det(batch).numpy(), [np.nan, jnp.linalg.det(batch[1])])  # (-1 within an ulp)
    g = _grad(lambda x: tnp.sum(L.det(x)), np.array([[2., 3.], [3., 4.]], np.float32))
    np.testing.assert_allclose(g, [[4., -3.], [-3., 2.]])
    # testBasic / testEmpty: a singular matrix has determinant 0 (no error); empty matrices have 1
    np.testing.assert_array_equal(L.det(np.zeros((2, 2), np.float32)).numpy(), 0.)
    s, l = L.slogdet(np.zeros((2, 2), np.float32))
    assert s.numpy() == 0 and l.numpy() == -np.inf
    np.testing.assert_array_equal(L.det(np.empty([2, 0, 0], np.float32)).numpy(), [1., 1.])
    assert L.det(np.empty([0, 2, 2], np.float32)).shape == (0,)


def test_det_gradient_at_singular_and_complex_matrices():
    # linalg_grad_test DetGradSingularMatrixTest.testDetGradSingular2x2 / testDetGradBatchWithSingular: the
    # adjugate, also where det is 0 (TF 2.21 raised "Input is not invertible" here; TF since computes this)
    m = np.array([[[1., 2.], [2., 4.]], [[1., 2.], [3., 4.]]], np.float32)
    np.testing.assert_allclose(_grad(lambda x: tnp.sum(L.det(x)), m), [[[4., -2.], [-2., 1.]], [[4., -3.], [-2., 1.]]],
                               atol=1e-5)
    # testDetGradComplexInvertible: tape.gradient(det(a), a) == conj(det(a)) * inv(a)^H (TF's complex convention)
    a = np.array([[1.0 + 1.0j, 2.0 - 1.0j], [3.0 + 0.5j, 4.0 + 2.0j]], np.complex64)
    np.testing.assert_allclose(_grad(L.det, a), np.conj(np.linalg.det(a)) * np.linalg.inv(a).conj().T, rtol=1e-5,
                               atol=1e-5)


# -- inverse -----------------------------------------------------------------------------------------------

def test_inverse_of_half_precision_matrices():
    # InverseOpTest._verifyInverseReal runs float16 too: TF gives [[-2, 1], [1.5, -0.5]]
    for dt in (np.float16, jnp.bfloat16):
        got = L.inv(np.array([[1., 2.], [3., 4.]], dt))
        assert got.dtype == dt
        np.testing.assert_allclose(np.asarray(got.numpy(), np.float32), [[-2., 1.], [1.5, -0.5]], atol=1e-2)
    g = _grad(lambda x: tnp.sum(L.inv(x)), np.array([[2., 1.], [1., 2.]], np.float16))
    assert g.dtype == np.float16 and np.all(np.isfinite(g))


# -- pinv (linalg_ops_test _PinvTest) and matrix_power --------------------------------------------------------

def _np_batch_pinv(a, rcond):
    """_PinvTest.expected_pinv: np.linalg.pinv per matrix (numpy's batch semantics for rcond differ)."""
    return np.stack([np.linalg.pinv(m, rcond=r) for m, r in zip(a, rcond)])


def test_pinv_symmetric_and_nonsquare_batches_with_per_matrix_rtol():
    sym = np.array([[1., .4, .5], [.4, .2, .25], [.5, .25, .35]], np.float32)
    ns = np.array([[1., .4, .5, 1.], [.4, .2, .25, 2.], [.5, .25, .35, 3.]], np.float32)
    for a, rcond in ((np.stack([sym + 1., sym]), np.array([0., 0.01], np.float32)),
                     (np.stack([ns + .5, ns]), np.array([0., 0.25], np.float32))):
        want = _np_batch_pinv(a.astype(np.float64), rcond.astype(np.float64))
        got = L.pinv(a, rcond)
        assert got.shape == want.shape
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-3, atol=1e-3)
    # differentiable (TF differentiates the SVD it computes pinv with): compare with float64 finite differences
    b = ns.astype(np.float64) + 0.5
    g = _grad(lambda x: tnp.sum(L.pinv(x)), b.astype(np.float32))
    eps, fd = 1e-6, np.zeros_like(b)
    for i, j in np.ndindex(*b.shape):
        d = np.zeros_like(b)
        d[i, j] = eps
        fd[i, j] = (np.sum(np.linalg.pinv(b + d)) - np.sum(np.linalg.pinv(b - d))) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=1e-2, atol=1e-2 * np.abs(fd).max())


def test_matrix_power():
    a = np.array([[1., 2.], [3., 4.]], np.float32)
    np.testing.assert_allclose(L.matrix_power(a, 3).numpy(), np.linalg.matrix_power(a, 3))
    np.testing.assert_allclose(L.matrix_power(a, -1).numpy(), np.linalg.inv(a), rtol=1e-5)
    ones = np.ones((2, 2), np.float32)
    np.testing.assert_allclose(_grad(lambda x: tnp.sum(L.matrix_power(x, 2)), a), ones @ a.T + a.T @ ones)
