"""tj.numpy's polynomial functions (poly, polyadd, polysub, polymul, polydiv, polyder, polyint, polyfit, roots) and
tj.numpy.linalg.eig/eigvals: values and dtypes against jax.numpy's, gradients against JAX's (tapes, forward mode,
tj.function) and finite differences, and the errors for bad input."""
from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from conftest import tape_value_and_gradient
from numpy_reference import check_values, check_values_and_gradient

tnp = tj.numpy
_rng = np.random.default_rng(11)

P = np.array([2.0, -3.0, 0.5, 1.0, -0.25], np.float32)
P0 = np.array([0.0, 0.0, 1.5, -2.0, 0.75, 0.5], np.float32)  # two leading zeros
Q = np.array([1.0, -2.0, 0.75], np.float32)
Z = np.array([0.5, -1.25, 2.0, 0.3], np.float32)  # distinct real roots
PC = np.array([1 - 0.5j, 0.25 + 2j, -1.5, 0.5j], np.complex64)
QC = np.array([0.5j, 2 - 1j], np.complex64)
MAT = (_rng.normal(size=(4, 4)) + 2 * np.eye(4)).astype(np.float32)
CUBIC = np.array([1.0, -2.0, -5.0, 6.0], np.float32)  # roots 3, 1, -2
XS = np.linspace(-1.5, 2.0, 9).astype(np.float32)
YS = (0.5 * XS ** 3 - XS + np.cos(3 * XS)).astype(np.float32)


def _sorted(r):
    r = np.asarray(r)
    return r[np.lexsort((np.round(r.imag, 4), np.round(r.real, 4)))]


# -- values ----------------------------------------------------------------------------------------------------

VALUES = [
    ("poly roots", lambda m: m.poly(Z)),
    ("poly complex", lambda m: m.poly(PC)),
    ("poly empty", lambda m: m.poly(np.zeros((0,), np.float32))),
    ("polyadd", lambda m: [m.polyadd(P, Q), m.polyadd(Q, P0), m.polyadd(PC, Q)]),
    ("polyadd int", lambda m: m.polyadd(np.array([1, 2, 3]), np.array([4]))),
    ("polysub", lambda m: [m.polysub(P, Q), m.polysub(Q, P0), m.polysub(QC, PC)]),
    ("polymul", lambda m: [m.polymul(P, Q), m.polymul(P0, Q), m.polymul(PC, QC), m.polymul(Q, np.array([3]))]),
    ("polymul trim", lambda m: [m.polymul(P0, Q, trim_leading_zeros=True),
                                m.polymul(np.zeros(3, np.float32), Q, trim_leading_zeros=True)]),
    ("polydiv", lambda m: [*m.polydiv(P, Q), *m.polydiv(P0, Q), *m.polydiv(Q, P), *m.polydiv(PC, QC)]),
    ("polydiv trim", lambda m: [*m.polydiv(m.polymul(P, Q), Q, trim_leading_zeros=True),
                                *m.polydiv(P, Q, trim_leading_zeros=True)]),
    ("polyder", lambda m: [m.polyder(P), m.polyder(P, 3), m.polyder(P, 0), m.polyder(Q, 5), m.polyder(PC, 2),
                           m.polyder(np.array([1, 2, 3]))]),
    ("polyint", lambda m: [m.polyint(P), m.polyint(P, 3), m.polyint(Q, 2, 0.5), m.polyint(Q, 0),
                           m.polyint(Q, 3, np.array([1.0, -2.0, 0.5], np.float32)), m.polyint(PC, 2, 1j)]),
    ("polyfit", lambda m: [m.polyfit(XS, YS, 3), *m.polyfit(XS, YS, 2, full=True), *m.polyfit(XS, YS, 3, cov=True),
                           *m.polyfit(XS, YS, 2, cov="unscaled"), m.polyfit(XS, YS, 2, w=np.abs(XS) + 0.5),
                           m.polyfit(XS, np.stack([YS, 2 * YS - 1], 1), 2),
                           *m.polyfit(XS, np.stack([YS, YS * YS], 1), 2, cov=True), m.polyfit(XS, YS, 1, rcond=1e-3)]),
]


# The jax references run under one jax.jit where they can: one XLA program per reference instead of one per
# primitive of the op-by-op eager computation. (Trimming leading zeros and roots' strip_zeros need concrete values:
# those stay eager.)
EAGER_VALUES = {"polymul trim", "polydiv trim"}


@pytest.mark.parametrize("label, f", VALUES, ids=[v[0] for v in VALUES])
def test_values_as_jax_numpy(label, f):
    want = f(jnp) if label in EAGER_VALUES else jax.jit(lambda: f(jnp))()
    check_values(want, f(tnp), tol=(2e-5, 2e-5) if label != "polyfit" else (2e-4, 2e-4))


@pytest.mark.parametrize("p", [P, P0, Q, CUBIC, PC, np.array([0.0, 0.0], np.float32), np.array([3.0], np.float32),
                               np.array([2.0, 0.0, 0.0, 1.0], np.float32)], ids=range(8))
def test_roots_as_jax_numpy(p):
    got, want = tnp.roots(p), jnp.roots(p)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(_sorted(got.numpy()), _sorted(want), rtol=1e-4, atol=1e-4)
    got, want = tnp.roots(p, strip_zeros=False), jnp.roots(p, strip_zeros=False)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(_sorted(got.numpy()), _sorted(want), rtol=1e-4, atol=1e-4)  # (NaN where jnp's)


def test_poly_of_a_matrix_and_polyval_of_roots():
    check_values(jax.jit(jnp.poly)(MAT), tnp.poly(MAT), tol=(1e-4, 1e-4))
    r = tnp.roots(CUBIC)
    np.testing.assert_allclose(np.abs(tnp.polyval(CUBIC.astype(np.complex64), r).numpy()), 0, atol=1e-4)
    np.testing.assert_allclose(tnp.poly(r).numpy().real, CUBIC, atol=1e-4)


def test_signatures_as_jax_numpy():
    for name in ("poly", "polyadd", "polysub", "polymul", "polydiv", "polyder", "polyint", "polyfit", "roots"):
        ours = inspect.signature(getattr(tnp, name)).parameters
        for p in inspect.signature(getattr(jnp, name)).parameters.values():
            assert p.name in ours, (name, p.name)
            assert ours[p.name].kind == p.kind and ours[p.name].default == p.default, (name, p.name)
    for name in ("eig", "eigvals"):
        assert list(inspect.signature(getattr(tnp.linalg, name)).parameters)[0] == "a"


# -- gradients against JAX's ----------------------------------------------------------------------------------

def _re_im(m, z):
    return [m.real(z), m.imag(z)]


GRADIENTS = [
    ("poly", lambda m, a: m.poly(a), Z, True),
    ("poly matrix", lambda m, a: _re_im(m, m.poly(a.reshape(2, 2) + np.eye(2, dtype=np.float32) * 3)), Z, True),
    ("polyadd polysub", lambda m, a: [m.polyadd(a, Q), m.polyadd(Q[:2], a), m.polysub(a[1:], a * a)], P, True),
    ("polymul", lambda m, a: [m.polymul(a, Q), m.polymul(a[:2], a)], P, True),
    ("polymul trim", lambda m, a: m.polymul(a, a[2:], trim_leading_zeros=True), P0, False),
    ("polydiv", lambda m, a: [*m.polydiv(a, Q), *m.polydiv(Q, a[:2] + 2.0), *m.polydiv(a, a[:3])], P, True),
    ("polyder polyint", lambda m, a: [m.polyder(a), m.polyder(a, 3), m.polyint(a), m.polyint(a, 2, a[:2])], P, True),
    ("polyfit", lambda m, a: [m.polyfit(XS, a, 3), m.polyfit(XS * 0.5, a, 2, w=a * a + 1.0),
                              *m.polyfit(XS, a, 2, cov=True)], YS, True),
    ("polyfit x", lambda m, a: [m.polyfit(a, YS, 2), *m.polyfit(a, YS, 3, full=True)[:1]], XS, True),
    ("roots", lambda m, a: _re_im(m, m.roots(a)), CUBIC, False),
    ("roots leading zeros", lambda m, a: _re_im(m, m.roots(a)), np.array([0.0, 1.0, -2.0, -5.0, 6.0], np.float32),
     False),
    ("roots no strip", lambda m, a: _re_im(m, m.roots(a, strip_zeros=False)), CUBIC, True),
    ("roots complex pair", lambda m, a: _re_im(m, m.roots(a)), np.array([1.0, 0.5, 2.0], np.float32), False),
]


@pytest.mark.parametrize("label, f, arg, jit", GRADIENTS, ids=[g[0] for g in GRADIENTS])
def test_values_and_gradients_as_jax_numpy(label, f, arg, jit):
    check_values_and_gradient(label, f, arg, value_tol=(1e-4, 1e-4), grad_tol=(2e-3, 2e-3), jit=jit)


def test_polydiv_trimmed_remainder_keeps_its_gradient():
    # (jax.numpy's trimmed remainder is a constant: its gradient is lost; tapejax's is a slice of the remainder)
    u = np.array([1.0, -3.0, 3.0, -1.0 + 1e-6], np.float32)  # (x - 1)^3: by (x - 1) the remainder is ~0
    for num, den in ((u, np.array([1.0, -1.0], np.float32)), (P, Q)):
        _, full = jnp.polydiv(num, den)
        q, r = tnp.polydiv(num, den, trim_leading_zeros=True)
        k = full.shape[0] - r.shape[0]
        assert r.shape == jnp.polydiv(num, den, trim_leading_zeros=True)[1].shape
        want = jax.jit(jax.grad(lambda a: jnp.sum(jnp.polydiv(a, den)[1][k:] * 2.0)
                                + jnp.sum(jnp.polydiv(a, den)[0])))(num)
        got = _tape_grad(lambda t: tnp.sum(tnp.polydiv(t, den, trim_leading_zeros=True)[1] * 2.0)
                         + tnp.sum(tnp.polydiv(t, den, trim_leading_zeros=True)[0]), num)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def _complex_grad(f_tj, f_jax, z, jit=True):
    """The tape's gradient of a real loss of complex ``z`` against TF's convention, conj(jax.grad) (under jax.jit
    unless ``jit`` is False)."""
    want = np.conj(jax.jit(jax.grad(f_jax))(z) if jit else jax.grad(f_jax)(jnp.asarray(z)))
    t = tj.constant(z)
    with tj.GradientTape() as tape:
        tape.watch(t)
        loss = f_tj(t)
    np.testing.assert_allclose(tape.gradient(loss, t).numpy(), want, rtol=1e-3, atol=1e-3)


def test_complex_coefficients_gradient_is_tf_convention():
    for f, jit in ((lambda m, a: m.polymul(a, QC), True),
                   (lambda m, a: m.polydiv(a, QC)[0] + m.polydiv(a, QC)[1][-1], True),
                   (lambda m, a: m.polyint(m.polyder(a) * a[1:], 2), True),
                   (lambda m, a: m.roots(a), False),  # (strip_zeros: concrete values, eager)
                   (lambda m, a: m.poly(a), True)):
        _complex_grad(lambda t: tnp.sum(tnp.abs(f(tnp, t) + 0.5) ** 2),
                      lambda u: jnp.sum(jnp.abs(f(jnp, u) + 0.5) ** 2), PC, jit=jit)


def test_forward_mode_matches_jax_jvp():
    def f(m, a):
        return m.polymul(a, Q)[1:] * m.polyder(a)[0] + m.real(m.polyval(a, m.roots(a)[:1] + 0.5))
    t = np.linspace(-1, 1, CUBIC.size).astype(np.float32)
    _, want = jax.jvp(lambda a: f(jnp, a), (jnp.asarray(CUBIC),), (jnp.asarray(t),))
    x = tj.constant(CUBIC)
    with tj.ForwardAccumulator(x, tj.constant(t)) as acc:
        y = f(tnp, x)
    np.testing.assert_allclose(acc.jvp(y).numpy(), want, rtol=1e-4, atol=1e-4)
    _, want = jax.jit(lambda a, t: jax.jvp(lambda b: jnp.polyfit(XS, b, 2), (a,), (t,)))(YS, YS[::-1].copy())
    y0 = tj.constant(YS)
    with tj.ForwardAccumulator(y0, tj.constant(YS[::-1].copy())) as acc:
        c = tnp.polyfit(XS, y0, 2)
    np.testing.assert_allclose(acc.jvp(c).numpy(), want, rtol=1e-4, atol=1e-4)


def test_inside_tj_function():
    def f(m, a):
        q, r = m.polydiv(m.polymul(a, Q), a[:2] + 3.0)
        fit = m.polyfit(XS, m.polyval(a, XS), 2)
        return m.sum(q * q) + m.sum(r) + m.sum(m.polyint(fit, 1, a[0])) + m.sum(m.real(m.roots(a, strip_zeros=False)))

    @tj.function
    def value_and_gradient(a):
        with tj.GradientTape() as tape:
            tape.watch(a)
            y = f(tnp, a)
        return y, tape.gradient(y, a)
    want, want_g = jax.jit(jax.value_and_grad(lambda a: f(jnp, a)))(CUBIC)
    y, g = value_and_gradient(tj.constant(CUBIC))
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-4)
    np.testing.assert_allclose(g.numpy(), want_g, rtol=1e-3, atol=1e-3)
    with pytest.raises(TypeError, match="tj.numpy.roots: .*strip_zeros=False"):
        tj.function(lambda a: tnp.roots(a))(tj.constant(CUBIC))


# -- finite differences --------------------------------------------------------------------------------------

def _fd(loss, x, eps=1e-4):
    x = np.asarray(x, np.float64)
    g = np.zeros_like(x)
    for i in range(x.size):
        d = np.zeros_like(x)
        d.flat[i] = eps
        g.flat[i] = (loss(x + d) - loss(x - d)) / (2 * eps)
    return g


def _tape_grad(loss, x):
    return tape_value_and_gradient(loss, np.asarray(x, np.float32))[1].numpy()


def test_roots_gradient_matches_finite_differences():
    # a symmetric function of the roots (their order does not matter); distinct real roots 3, 1, -2 (and 0.5)
    def loss(m, r):
        re = m.real(r)
        return m.sum(re ** 3 + m.sin(re))
    for p in (CUBIC, np.array([2.0, -5.0, -7.0, 17.0, -6.0], np.float32)):  # roots 3, 1, -2, 0.5
        want = _fd(lambda u: float(loss(np, np.roots(u))), p)
        np.testing.assert_allclose(_tape_grad(lambda t: loss(tnp, tnp.roots(t)), p), want, rtol=2e-3, atol=2e-3)


def test_polyfit_gradient_matches_finite_differences():
    w = np.array([0.5, -1.0, 2.0, 0.25], np.float32)
    want_y = _fd(lambda u: float(np.polyfit(XS.astype(np.float64), u, 3) @ w), YS)
    np.testing.assert_allclose(_tape_grad(lambda t: tnp.sum(tnp.polyfit(XS, t, 3) * w), YS), want_y, rtol=2e-3,
                               atol=2e-3)
    want_x = _fd(lambda u: float(np.polyfit(u, YS.astype(np.float64), 3) @ w), XS)
    np.testing.assert_allclose(_tape_grad(lambda t: tnp.sum(tnp.polyfit(t, YS, 3) * w), XS), want_x, rtol=5e-3,
                               atol=5e-3)


# -- eig and eigvals ------------------------------------------------------------------------------------------

A3 = np.array([[1.0, 2.0, 0.5], [-1.5, 0.25, 1.0], [0.75, -2.0, 3.0]], np.float32)  # a complex pair and a real one
AC = (_rng.normal(size=(3, 3)) + 1j * _rng.normal(size=(3, 3))).astype(np.complex64)


@pytest.mark.parametrize("a", [A3, MAT, AC, np.stack([A3, A3.T * 0.5])], ids=["real", "real4", "complex", "batch"])
def test_eig_values(a):
    w, v = tnp.linalg.eig(a)
    want = jnp.linalg.eigvals(a)
    assert w.dtype == want.dtype and v.dtype == want.dtype and v.shape == a.shape
    for got, exp in zip(np.reshape(w.numpy(), (-1, a.shape[-1])), np.reshape(np.asarray(want), (-1, a.shape[-1]))):
        np.testing.assert_allclose(_sorted(got), _sorted(exp), rtol=1e-4, atol=1e-4)
    wn, vn = w.numpy(), v.numpy()
    np.testing.assert_allclose(a @ vn, vn * wn[..., None, :], rtol=1e-4, atol=1e-4)  # A v = w v
    np.testing.assert_allclose(np.linalg.norm(vn, axis=-2), 1, rtol=1e-5)
    ev = tnp.linalg.eigvals(a)
    assert ev.dtype == want.dtype
    np.testing.assert_allclose(ev.numpy(), want, rtol=1e-5, atol=1e-5)  # (the same LAPACK call: the same order)


def _phase_invariant_loss(m, w, v, c):
    # |w|^2, real(w) and |v_ij|^2 (a column's phase does not change it)
    return m.sum(m.abs(w) ** 2) + m.sum(m.real(w) * c[0]) + m.sum(m.abs(v) ** 2 * c[1])


@pytest.mark.parametrize("a", [A3, MAT, AC], ids=["real", "real4", "complex"])
def test_eig_gradient_of_phase_invariant_loss(a):
    n = a.shape[-1]
    c = (np.linspace(-1, 1, n).astype(np.float32), np.arange(n * n, dtype=np.float32).reshape(n, n) / (n * n))

    def ref(u):  # JAX's eigenvector derivative (opt-in): another phase convention, the same derivative here
        w, v = jax.lax.linalg.eig(u, compute_left_eigenvectors=False, enable_eigvec_derivs=True)
        return _phase_invariant_loss(jnp, w, v, c)
    want = np.conj(jax.jit(jax.grad(ref))(a))
    got = _tape_grad_any(lambda t: _phase_invariant_loss(tnp, *tnp.linalg.eig(t), c), a)
    assert got.dtype == a.dtype
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3)
    if a.dtype == np.float32:  # and central differences of the same loss (NumPy's eig, float64)
        fd = _fd(lambda u: float(_phase_invariant_loss(np, *np.linalg.eig(u), c)), a)
        np.testing.assert_allclose(got, fd, rtol=2e-3, atol=2e-3)
    # eigvals: the eigenvalues' part, as JAX's own eigvals derivative
    want = np.conj(jax.jit(jax.grad(lambda u: jnp.sum(jnp.abs(jnp.linalg.eigvals(u)) ** 2
                                                      + jnp.real(jnp.linalg.eigvals(u)) * c[0])))(a))
    got = _tape_grad_any(lambda t: tnp.sum(tnp.abs(tnp.linalg.eigvals(t)) ** 2 + tnp.real(tnp.linalg.eigvals(t))
                                           * c[0]), a)
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3)


def _tape_grad_any(loss, x):
    return tape_value_and_gradient(loss, x)[1].numpy()


def test_eig_forward_mode_and_second_order():
    t = np.ones((3, 3), np.float32) * 0.1 + np.eye(3, dtype=np.float32)
    x = tj.constant(A3)
    with tj.ForwardAccumulator(x, tj.constant(t)) as acc:
        w = tnp.linalg.eigvals(x)
    _, want = jax.jit(lambda a, v: jax.jvp(jnp.linalg.eigvals, (a,), (v,)))(A3, t)
    np.testing.assert_allclose(acc.jvp(w).numpy(), want, rtol=1e-4, atol=1e-4)

    def loss(m, a, eigvals):
        return m.sum(m.real(eigvals(a)) ** 3)
    # (jnp.linalg.eigvals has no second derivative: the eigenvalues of JAX's opt-in differentiable eig)
    ref_eigvals = lambda a: jax.lax.linalg.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False,
                                               enable_eigvec_derivs=True)[0]  # noqa: E731
    want = jax.jit(jax.hessian(lambda a: loss(jnp, a, ref_eigvals)))(A3).reshape(9, 9) @ t.reshape(9)
    with tj.GradientTape() as outer:
        outer.watch(x)
        with tj.GradientTape() as inner:
            inner.watch(x)
            y = loss(tnp, x, tnp.linalg.eigvals)
        g = inner.gradient(y, x)
    hvp = outer.gradient(g, x, output_gradients=tj.constant(t))
    np.testing.assert_allclose(hvp.numpy().reshape(9), want, rtol=1e-3, atol=1e-3)


# -- errors ----------------------------------------------------------------------------------------------------

def test_bad_input_raises_naming_the_function():
    m2 = np.ones((2, 2), np.float32)
    for name, call in (("polyadd", lambda: tnp.polyadd(m2, Q)), ("polysub", lambda: tnp.polysub(Q, m2)),
                       ("polymul", lambda: tnp.polymul(m2, Q)), ("polydiv", lambda: tnp.polydiv(Q, m2)),
                       ("polyder", lambda: tnp.polyder(m2)), ("polyint", lambda: tnp.polyint(m2)),
                       ("roots", lambda: tnp.roots(m2)), ("poly", lambda: tnp.poly(np.ones((2, 3), np.float32)))):
        with pytest.raises(ValueError, match=f"tj.numpy.{name}: "):
            call()
    with pytest.raises(TypeError, match="tj.numpy.polyfit: deg must be an integer"):
        tnp.polyfit(XS, YS, 2.5)
    with pytest.raises(TypeError, match="tj.numpy.polyfit: x and y must have the same length"):
        tnp.polyfit(XS, YS[:-1], 2)
    with pytest.raises(TypeError, match="tj.numpy.polyfit: x must be"):
        tnp.polyfit(m2, YS, 2)
    with pytest.raises(TypeError, match="tj.numpy.polyfit: w must be"):
        tnp.polyfit(XS, YS, 2, w=XS[:3])
    with pytest.raises(ValueError, match="tj.numpy.polyfit: deg must be nonnegative"):
        tnp.polyfit(XS, YS, -1)
    with pytest.raises(TypeError, match="tj.numpy.polyder: the order m must be an integer"):
        tnp.polyder(P, 1.5)
    with pytest.raises(ValueError, match="tj.numpy.polyint: the order m must be nonnegative"):
        tnp.polyint(P, -1)
    with pytest.raises(ValueError, match="tj.numpy.polyint: k must be"):
        tnp.polyint(P, 2, np.ones(3, np.float32))
    with pytest.raises(ValueError, match="tnp.linalg.eig: the input must be square"):
        tnp.linalg.eig(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="tnp.linalg.eigvals: the input must have rank at least 2"):
        tnp.linalg.eigvals(Q)
