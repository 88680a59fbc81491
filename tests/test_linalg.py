"""tj.numpy.linalg: values as jax.numpy.linalg, TF's gradient conventions where TF's differ from JAX's.

VJP/JVP/finite differences/second order of every op are checked by tests/test_ops_registry.py, and every
path by tests/test_path_consistency.py (the ops are registered with samples); here: the surface, and the
conventions themselves against TF's formulas written out in NumPy."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from conftest import nested_tape_gradients

tnp = tj.numpy
rng = np.random.default_rng(3)


def _spd(n=3):
    q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    return (q @ np.diag(1.0 + 1.5 * np.arange(n)) @ q.T).astype(np.float32)


def _general(n=3):
    return (rng.uniform(-1, 1, size=(n, n)) + n * np.eye(n)).astype(np.float32)


def _grad(f, x, ct_seed=0):
    """Gradient of sum(w * f(x)) over f's float outputs, with fixed random weights."""
    x = tj.constant(x)
    with tj.GradientTape() as t:
        t.watch(x)
        outs = f(x)
        outs = outs if isinstance(outs, tuple) else (outs,)
        r = np.random.default_rng(ct_seed)
        ws = [r.normal(size=o.shape).astype(np.float32) for o in outs]
        y = sum(tnp.sum(o * w) for o, w in zip(outs, ws))
    return t.gradient(y, x).numpy(), [np.asarray(o.numpy(), np.float64) for o in outs], ws


def test_values_and_result_names_mirror_jax_numpy_linalg():
    a, s, b = _general(), _spd(), rng.normal(size=(3, 2)).astype(np.float32)
    close = lambda x, y: np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-5, atol=1e-5)
    close(tnp.linalg.solve(a, b), jnp.linalg.solve(a, b))
    close(tnp.linalg.inv(a), jnp.linalg.inv(a))
    close(tnp.linalg.cholesky(s), jnp.linalg.cholesky(s))
    close(tnp.linalg.det(a), jnp.linalg.det(a))
    sign, logabsdet = tnp.linalg.slogdet(-a)
    close(sign, jnp.linalg.slogdet(-a).sign)
    close(tnp.linalg.slogdet(a).logabsdet, jnp.linalg.slogdet(a).logabsdet)
    r = tnp.linalg.eigh(s)
    close(r.eigenvalues, jnp.linalg.eigh(s).eigenvalues)
    close(np.abs(r.eigenvectors.numpy()), np.abs(np.asarray(jnp.linalg.eigh(s).eigenvectors)))
    u, sv, vh = tnp.linalg.svd(a, full_matrices=False)
    close(sv, jnp.linalg.svd(a, compute_uv=False))
    close((u * sv) @ vh, a)
    assert tnp.linalg.svd(a, compute_uv=False).shape == (3,)
    q, rr = tnp.linalg.qr(a)
    close(q @ rr, a)
    close(tnp.linalg.qr(a, mode="r"), jnp.linalg.qr(a, mode="r"))
    x, resid, rank, svals = tnp.linalg.lstsq(rng.normal(size=(5, 3)).astype(np.float32), b[:1].repeat(5, 0))
    assert rank.dtype == jnp.int32 and int(rank.numpy()) == 3 and x.shape == (3, 2)
    close(tnp.linalg.norm(a), jnp.linalg.norm(a))
    close(tnp.linalg.norm(a, ord=1, axis=0), jnp.linalg.norm(a, ord=1, axis=0))
    from tapejax.numpy import linalg
    assert linalg is tnp.linalg and isinstance(r, tuple) and isinstance(tnp.linalg.slogdet(a), tuple)


def _tf_eigh_grad(a, ge, gv):
    """TF's SelfAdjointEigV2 gradient: G = V (diag(ge) + F * (V^T gv)) V^T, then tril(G + G^T), diagonal halved."""
    e, v = np.linalg.eigh(np.asarray(a, np.float64))
    diff = e[None, :] - e[:, None]
    f = np.where(np.eye(len(e)) > 0, 0.0, 1.0 / np.where(diff == 0, 1.0, diff))
    g = v @ (np.diag(ge) + f * (v.T @ gv)) @ v.T
    low = np.tril(g + g.T)
    np.fill_diagonal(low, 0.5 * np.diag(low))
    return low


def test_eigh_gradient_is_tfs_lower_triangle():
    a = _spd(4)
    g, _, (ge, gv) = _grad(lambda x: tuple(tnp.linalg.eigh(x)), a)
    np.testing.assert_allclose(g, _tf_eigh_grad(a, ge, gv), rtol=1e-3, atol=1e-4)
    assert np.all(np.triu(g, 1) == 0), "TF's eigh gradient lies on the lower triangle it reads"
    # only the lower triangle is read, as tf.linalg.eigh / numpy.linalg.eigh: the upper one can be garbage
    junk = a + np.triu(np.full_like(a, 5.0), 1)
    np.testing.assert_allclose(tnp.linalg.eigh(junk).eigenvalues, np.linalg.eigvalsh(a), rtol=1e-5, atol=1e-5)
    # UPLO='U' reads (and puts the gradient on) the upper triangle; symmetrize_input=True is JAX's: symmetric
    gu, _, _ = _grad(lambda x: tuple(tnp.linalg.eigh(x, UPLO="U")), a)
    np.testing.assert_allclose(gu, _tf_eigh_grad(a, ge, gv).T, rtol=1e-3, atol=1e-4)
    gs, _, _ = _grad(lambda x: tuple(tnp.linalg.eigh(x, symmetrize_input=True)), a)
    full = _tf_eigh_grad(a, ge, gv)
    np.testing.assert_allclose(gs, (full + full.T) / 2, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(gs, gs.T, rtol=1e-5, atol=1e-6)
    # on symmetric perturbations both conventions give the same directional derivative
    d = rng.normal(size=(4, 4)); d = d + d.T
    assert abs(np.sum(g * d) - np.sum(gs * d)) < 1e-3 * (1 + abs(np.sum(g * d)))


def test_cholesky_gradient_is_tfs_symmetrized_formula():
    a = _spd(4)
    g, outs, (gl,) = _grad(tnp.linalg.cholesky, a)
    # TF (after Murray 2016): X = L^-T Phi(L^T gl) L^-1, Phi = lower triangle with halved diagonal; (X + X^T)/2
    l = np.linalg.cholesky(np.asarray(a, np.float64))
    mid = np.tril(l.T @ gl)
    np.fill_diagonal(mid, 0.5 * np.diag(mid))
    li = np.linalg.inv(l)
    x = li.T @ mid @ li
    np.testing.assert_allclose(g, 0.5 * (x + x.T), rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(g, g.T, rtol=1e-5, atol=1e-6)


def test_svd_gradient_matches_the_decomposition_it_returns_and_full_rectangular_has_none():
    a = rng.normal(size=(4, 3)).astype(np.float32)
    g, _, ws = _grad(lambda x: tuple(tnp.linalg.svd(x, full_matrices=False)), a)
    want = jax.grad(lambda x: sum(jnp.sum(o * w) for o, w in zip(jnp.linalg.svd(x, full_matrices=False), ws)))(a)
    np.testing.assert_allclose(g, want, rtol=1e-3, atol=1e-4)
    x = tj.constant(rng.normal(size=(5, 3)).astype(np.float32))
    with tj.GradientTape() as t:
        t.watch(x)
        u, s, vh = tnp.linalg.svd(x)  # full_matrices=True, |m - n| > 1: runs, but has no gradient (TF raises)
        y = tnp.sum(u)
    assert u.shape == (5, 5) and vh.shape == (3, 3)
    with pytest.raises(LookupError, match="full_matrices=False"):
        t.gradient(y, x)


def test_slogdet_and_det_gradients_are_the_inverse_transpose():
    a = _general()
    x = tj.constant(a)
    with tj.GradientTape(persistent=True) as t:
        t.watch(x)
        sign, logabsdet = tnp.linalg.slogdet(x)
        d = tnp.linalg.det(x)
    inv_t = np.linalg.inv(a.astype(np.float64)).T
    np.testing.assert_allclose(t.gradient(logabsdet, x).numpy(), inv_t, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(t.gradient(d, x).numpy(), np.linalg.det(a) * inv_t, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(t.gradient(sign, x).numpy(), np.zeros_like(a))


def test_det_of_huge_finite_entries_is_the_lu_value_as_tf():
    """jnp expands 2x2 and 3x3 determinants: products of finite entries past the float32 range are inf there and
    inf - inf nan, where TF's LU (and NumPy's) gives the determinant. Values TF 2.21 gives: -9.999987e19 for ``a``,
    +inf for ``b`` (whose determinant, 8e38, is past the range: jnp's expanded form gives nan or -inf)."""
    a = np.array([[1e20, 1e20, 0], [1e20, 1e20, 1], [0, 1, 1]], np.float32)  # det = -1e20 (+ rounding)
    b = np.array([[1e20, 3e19], [4e19, 2e19]], np.float32)
    assert np.isnan(jnp.linalg.det(a)) and not jnp.linalg.det(b) > 0  # (what is fixed: jnp's nan, and nan or -inf)
    x = tj.constant(a)
    with tj.GradientTape() as t:
        t.watch(x)
        d = tnp.linalg.det(x)
    a64 = a.astype(np.float64)
    np.testing.assert_allclose(d.numpy(), np.linalg.det(a64), rtol=1e-6)
    # TF's det * inv(a)^T: JAX's cofactor solve overflows here (a00 a11 - a01 a10 = 1e40 - 1e40 in float32: nan)
    g = t.gradient(d, x).numpy()
    want = np.linalg.det(a64) * np.linalg.inv(a64).T
    np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-6)
    s = np.array([[1, 2, 3], [2, 4, 6], [1, 0, 1]], np.float32)  # singular, small: JAX's adjugate, as before
    xs = tj.constant(s)
    with tj.GradientTape() as t:
        t.watch(xs)
        ds = tnp.linalg.det(xs)
    np.testing.assert_array_equal(t.gradient(ds, xs).numpy(), jax.grad(jnp.linalg.det)(s))
    assert tnp.linalg.det(tj.constant(b)).numpy() == np.inf
    c = (a * (1 + 1j)).astype(np.complex64)  # det = (1 + 1j)**3 * det(a) = (-2 + 2j) * det(a)
    assert np.isnan(jnp.linalg.det(c))
    np.testing.assert_allclose(tnp.linalg.det(tj.constant(c)).numpy(), (-2 + 2j) * np.linalg.det(a64), rtol=1e-6)
    for m in (a, b, c):  # every path: the same values (tj.function, a replayed step, jax.jit over tj code)
        np.testing.assert_array_equal(tj.function(tnp.linalg.det)(m).numpy(), tnp.linalg.det(tj.constant(m)).numpy())
        np.testing.assert_array_equal(np.asarray(jax.jit(lambda v: tnp.linalg.det(v).value)(m)),
                                      tnp.linalg.det(tj.constant(m)).numpy())


def test_lstsq_rank_is_an_int_output_and_x_is_differentiable():
    a = rng.normal(size=(5, 3)).astype(np.float32)
    b = rng.normal(size=(5,)).astype(np.float32)
    xa, xb = tj.constant(a), tj.constant(b)
    with tj.GradientTape() as t:
        t.watch([xa, xb])
        x, resid, rank, s = tnp.linalg.lstsq(xa, xb)
        y = tnp.sum(x * x)
    ga, gb = t.gradient(y, [xa, xb])
    f = lambda a_, b_: jnp.sum(jnp.linalg.lstsq(a_, b_)[0] ** 2)
    wa, wb = jax.grad(f, argnums=(0, 1))(a, b)
    np.testing.assert_allclose(ga, wa, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(gb, wb, rtol=1e-3, atol=1e-4)
    assert not jnp.issubdtype(rank.dtype, jnp.floating)


def test_inside_function_and_under_accumulator():
    a = _spd()

    @tj.function
    def f(x):
        with tj.GradientTape() as t:
            t.watch(x)
            w, v = tnp.linalg.eigh(x)
            y = tnp.sum(w * w) + tnp.linalg.slogdet(x).logabsdet
        return t.gradient(y, x)
    x = tj.constant(a)
    with tj.GradientTape() as t:
        t.watch(x)
        y = tnp.sum(tnp.linalg.eigh(x)[0] ** 2) + tnp.linalg.slogdet(x)[1]
    eager = t.gradient(y, x).numpy()
    np.testing.assert_allclose(f(tj.constant(a)).numpy(), eager, rtol=1e-4, atol=1e-5)
    # eigh's part lies on the lower triangle: above it only slogdet's A^-T
    np.testing.assert_allclose(np.triu(eager, 1), np.triu(np.linalg.inv(a).T, 1), rtol=1e-4, atol=1e-5)
    x, tan = tj.constant(a), tj.constant(np.eye(3, dtype=np.float32))
    with tj.ForwardAccumulator(x, tan) as acc:
        y = tnp.linalg.inv(x)
    np.testing.assert_allclose(acc.jvp(y).numpy(), -np.linalg.inv(a) @ np.linalg.inv(a), rtol=1e-4, atol=1e-5)


def test_clear_errors():
    with pytest.raises(ValueError, match="mode must be"):
        tnp.linalg.qr(_general(), mode="economic")
    with pytest.raises(ValueError, match="UPLO must be"):
        tnp.linalg.eigh(_spd(), UPLO="X")
    with pytest.raises(TypeError, match="numpy_resid"):  # (NumPy's residuals need the rank now: eagerly only)
        tj.function(lambda a, b: tnp.linalg.lstsq(a, b, numpy_resid=True))(_general(), _general())
    with pytest.raises((TypeError, ValueError), match="linalg_solve"):
        tnp.linalg.solve(_general(3), np.ones((4, 2), np.float32))


def test_eigh_of_a_non_finite_matrix_is_nan():
    """LAPACK returns numbers for eigh([[nan, 1], [1, 2]]) ([-1.41, 1.41]); TF raises InvalidArgumentError.
    tapejax gives NaN (no host check: see inv), only for the matrices of a batch whose read triangle holds one."""
    a = np.array([[[np.nan, 1], [1, 2]], [[2, np.inf], [0, 3]], [[2, 0], [0, 3]]], np.float32)
    w, v = tnp.linalg.eigh(a)
    assert np.all(np.isnan(w.numpy()[0])) and np.all(np.isnan(v.numpy()[0]))
    np.testing.assert_allclose(w.numpy()[1:], [[2, 3], [2, 3]])  # (the upper triangle's inf is not read)
    assert np.all(np.isnan(tnp.linalg.eigh(a[1], UPLO="U").eigenvalues.numpy()))


@pytest.mark.parametrize("lazy", [True, False])
def test_second_derivative_at_equal_eigen_and_singular_values_is_tfs(lazy):
    """TF 2.21 (this host): nested tapes over eigh's eigenvalues and svd's S alone of diag(1, 1, 2), output
    gradients [0.3, 0.7, 1.1], then W = arange(9).reshape(3, 3) / 10: finite values (its _SafeReciprocal of the
    gaps). tapejax gave NaN everywhere: the derivative of that safe reciprocal squared 1e-20 (0 in float32) and
    svd's S alone used JAX's rule, with 1 / 0 between the equal values."""
    a = tj.constant(np.diag([1.0, 1.0, 2.0]).astype(np.float32))
    og = tj.constant([0.3, 0.7, 1.1])
    w = tj.constant(np.arange(9, dtype=np.float32).reshape(3, 3) / 10)
    want = {"eigh": [[0, 0, 0], [0, 0, 0], [0.96, 0.56, 0]],
            "svd": [[0, 0, -0.41333333], [0, 0, -0.27333328], [-0.22666666, -0.20666663, 0]]}
    for name, f in [("eigh", lambda a: tnp.linalg.eigh(a)[0]), ("svd", lambda a: tnp.linalg.svd(a, compute_uv=False))]:
        with tj.config.override(lazy=lazy):
            _, _, h = nested_tape_gradients(f, a, og, w)
        np.testing.assert_allclose(h.numpy(), want[name], atol=1e-6, err_msg=name)


def test_pinv_second_derivative_at_a_rank_deficient_matrix_is_tfs():
    """TF 2.21 (this host) differentiates pinv through its SVD; JAX's pseudo-inverse rule has the same first
    derivative but, at a rank-deficient matrix, another second one. a = [[1, 2], [2, 4]], output gradients
    linspace(0.3, 1.2, 4), then linspace(-1, 1, 4) (both 2x2): TF's values."""
    a = tj.constant([[1.0, 2.0], [2.0, 4.0]])
    og = tj.constant(np.linspace(0.3, 1.2, 4).reshape(2, 2).astype(np.float32))
    w = tj.constant(np.linspace(-1, 1, 4).reshape(2, 2).astype(np.float32))
    y, g, h = nested_tape_gradients(tnp.linalg.pinv, a, og, w)
    np.testing.assert_allclose(y.numpy().ravel(), [0.04, 0.08, 0.08, 0.16], rtol=1e-5)
    np.testing.assert_allclose(g.numpy().ravel(), [-0.01008, -0.01776, -0.02976, -0.05472], rtol=1e-4)
    np.testing.assert_allclose(h.numpy().ravel(), [0.019776, 0.027648, 0.012448, -0.000672], rtol=1e-3, atol=1e-6)


# -- equal singular values: lstsq, pinv, the spectral norm (values from TF 2.21, run side by side) ----------------

def _tape_grad_and_jvp(f, a, tangent):
    a = tj.constant(a)
    with tj.GradientTape() as tape:
        tape.watch(a)
        loss = f(a)
    with tj.ForwardAccumulator(a, tj.constant(tangent)) as acc:
        lj = f(a)
    return tape.gradient(loss, a).numpy(), float(acc.jvp(lj).numpy())


def test_lstsq_at_equal_singular_values_is_tfs():
    """TF's MatrixSolveLs differentiates the normal equations; JAX's lstsq rule, through the SVD, gives NaN wherever
    two singular values are equal, and tj's did: at the identity (TF: gradient all -1, JVP -9 along ones), at
    diag(2, 2, 5) and at a 3x2 permutation-like matrix; and a wrong JVP where two are a tie rounded apart (TF's and
    solve's there)."""
    tnp = tj.numpy
    b3 = np.ones((3, 1), np.float32)
    f = lambda a: tnp.sum(tnp.linalg.lstsq(a, b3)[0])  # noqa: E731
    g, jvp = _tape_grad_and_jvp(f, np.eye(3, dtype=np.float32), np.ones((3, 3), np.float32))
    np.testing.assert_allclose(g, -np.ones((3, 3)), atol=1e-6)
    assert abs(jvp + 9.0) < 1e-5
    g, jvp = _tape_grad_and_jvp(f, np.diag([2.0, 2.0, 5.0]).astype(np.float32), np.ones((3, 3), np.float32))
    np.testing.assert_allclose(g, [[-0.25, -0.25, -0.1], [-0.25, -0.25, -0.1], [-0.1, -0.1, -0.04]], atol=1e-6)
    assert abs(jvp + 1.44) < 1e-5
    wide = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 0.0]], np.float32)
    g, jvp = _tape_grad_and_jvp(lambda a: tnp.sum(tnp.linalg.lstsq(a, b3)[0]), wide, np.ones((3, 2), np.float32))
    np.testing.assert_allclose(g, [[-1.0, -1.0], [-1.0, -1.0], [1.0, 1.0]], atol=1e-6)
    assert abs(jvp + 2.0) < 1e-5
    tie = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 3.0]], np.float32)
    _, jvp = _tape_grad_and_jvp(f, tie, np.ones((3, 3), np.float32))
    _, want = _tape_grad_and_jvp(lambda a: tnp.sum(tnp.linalg.solve(a, b3)), tie, np.ones((3, 3), np.float32))
    assert abs(jvp - want) < 1e-5  # (the old rule: off by a quarter of it here)
    bt = tj.constant(np.array([[1.0], [2.0]], np.float32))  # (the gradient w.r.t. b: TF [1, 1], tj's NaN)
    with tj.GradientTape() as tape:
        tape.watch(bt)
        loss = tnp.sum(tnp.linalg.lstsq(np.eye(2, dtype=np.float32), bt)[0])
    np.testing.assert_allclose(tape.gradient(loss, bt).numpy(), [[1.0], [1.0]])


def test_lstsq_vector_b_and_residuals_differentiate():
    a = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], np.float32)
    b = np.array([1.0, 2.0, 0.5], np.float32)
    at, bt = tj.constant(a), tj.constant(b)
    with tj.GradientTape() as tape:
        tape.watch([at, bt])
        x, resid, _, _ = tj.numpy.linalg.lstsq(at, bt)
        loss = tj.numpy.sum(x) + tj.numpy.sum(resid)
    ga, gb = tape.gradient(loss, [at, bt])

    def ref(a, b):
        x = jnp.linalg.solve(a.T @ a, a.T @ b)
        return jnp.sum(x) + jnp.sum((b - a @ x) ** 2)
    want_a, want_b = jax.grad(ref, argnums=(0, 1))(a, b)
    np.testing.assert_allclose(ga.numpy(), want_a, atol=1e-5)
    np.testing.assert_allclose(gb.numpy(), want_b, atol=1e-5)


def test_pinv_gradient_near_equal_singular_values():
    """[[2, 1, 0], [1, 2, 0], [0, 0, 3]] is invertible and well conditioned, singular values 3, 3 and 1 (3 and
    2.9999998 in float32): the gradient of sum(pinv(a) * w) is -a^-T w a^-T (about -0.33 in each entry of two
    columns). tj gave 1.57e6 in four entries, and a JVP of 1.57e6 (TF 2.21: bounded but inexact, -0.53 and -0.34;
    JVP -0.652 against the exact -0.767). At exact ties tj keeps TF's values (test_jax_linalg_port)."""
    a0 = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 3.0]], np.float32)
    w = np.array([[1.0, 2.0, 3.0]] * 3, np.float32)
    inv = np.linalg.inv(a0.astype(np.float64))
    want = -inv.T @ w @ inv.T
    g, jvp = _tape_grad_and_jvp(lambda a: tj.numpy.sum(tj.numpy.linalg.pinv(a) * w), a0, np.ones((3, 3), np.float32))
    np.testing.assert_allclose(g, want, atol=1e-4)
    assert abs(jvp - want.sum()) < 1e-4


def test_spectral_norm_of_a_zero_matrix_has_gradient_zero_as_tf():
    """TF's ord=2 matrix norm is max(|svd(x)|), and |s| has derivative 0 at 0: its gradient at a zero matrix is 0
    (JVP 0). tj's (jnp's) picked singular vectors: 0.25 * I at 2x2, a JVP of 0.5."""
    for shape in ((2, 2), (2, 3)):
        for order in (2, -2):
            g, jvp = _tape_grad_and_jvp(lambda a: tj.numpy.linalg.norm(a, ord=order), np.zeros(shape, np.float32),
                                        np.ones(shape, np.float32))
            np.testing.assert_array_equal(g, np.zeros(shape))
            assert jvp == 0.0
    x = np.array([[3.0, 0.0], [0.0, 1.0]], np.float32)  # (elsewhere the largest / smallest singular value's)
    g, _ = _tape_grad_and_jvp(lambda a: tj.numpy.linalg.norm(a, ord=2), x, np.ones((2, 2), np.float32))
    np.testing.assert_allclose(g, [[1.0, 0.0], [0.0, 0.0]], atol=1e-6)
    got = tj.numpy.linalg.norm(tj.constant(np.ones((2, 3, 4), np.float32)), ord=-2, axis=(2, 0), keepdims=True)
    want = jnp.linalg.norm(jnp.ones((2, 3, 4)), ord=-2, axis=(2, 0), keepdims=True)
    assert got.shape == want.shape
    np.testing.assert_allclose(got.numpy(), want, atol=1e-6)
