"""JAX's tests/polynomial_test.py (TestPolynomial), the rest of its grid, ported to tj.numpy, with the derivatives
of roots and polyfit that no other test here checks.

Source: jax-ml/jax tests/polynomial_test.py at commit cec06d11 (its only test methods: testRoots and
testRootsNoStrip; polyfit, poly, polyval... are tested in JAX's lax_numpy_test.py), run against the installed jax
0.10.2 and NumPy. ``jnp.roots`` / ``jnp.polyfit`` -> ``tj.numpy.roots`` / ``tj.numpy.polyfit`` (same names and
signatures). Values: NumPy's (np.roots, the test's own reference, cast to complex64 and padded with one NaN per
leading zero for strip_zeros=False, as JAX's np_fun) computed at test time, and jax.numpy's on the same input, whose
shape and dtype tj must give (x64 off). JAX's assertSetsAllClose (roots come in no defined order) -> _same_set, a
one-to-one match of the two sets (JAX's complex branch compares x with itself; this one compares both sets).
``_CompileAndCheck`` -> the same call inside ``tj.function`` against eager. Gradients (none in the JAX file): tape
gradients against ``jax.vjp`` of the jax.numpy function and ForwardAccumulator JVPs against ``jax.jvp`` (real
coefficients; simple, well separated roots).

Already covered elsewhere, so not repeated here:
  tests/test_jax_numpy_misc_port.py ports testRoots / testRootsNoStrip on float32, int32 and complex64 at the grid
  points (f32, 0,2,0) (f32, 5,2,2) (i32, 3,2,0) (i32, 5,0,2) (c64, 3,0,2), no-strip (f32, 3,2,2; under tj.function)
  (i32, 3,0,2) (c64, 0,2,0).
  tests/test_numpy_polynomial.py checks every polynomial function's values, dtypes and signatures against
  jax.numpy, the gradient of one weighted sum of outputs against JAX's (roots of a cubic, with leading zeros, no-strip,
  a complex pair; polyfit in y with w = f(y) and cov, polyfit in x with full=True's coefficients), complex
  coefficients (TF's conj convention), one ForwardAccumulator (polyval at a root; polyfit in y), one tj.function
  with a tape inside, finite differences, and the errors for bad input.

Ported / added here:
  testRoots, testRootsNoStrip -> test_roots_grid (the grid points above leave out: int8, int16, a full polynomial
  with no zeros around it, an all-zero one, complex64 with zeros on both sides; each with strip_zeros True and
  False), test_roots_no_strip_compiled (_CompileAndCheck for int16 and complex64), test_roots_float16_as_jax (the
  one float16 case).
  Derivatives: test_roots_vjp_complex_cotangent (a complex output_gradients on a complex pair: TF's convention,
  tape.gradient(y, x, g) = jax.vjp(f, x)(conj(g)) for real x, checked against TF 2.21 on tf.complex), test_roots_
  trailing_zero_gradient (the root at 0 a trailing zero gives: jax keeps it in the companion matrix in both modes,
  so it is differentiated; checked against central differences of np.roots), test_roots_jacobian (tape.jacobian,
  vectorized and not), test_roots_forward_mode (the complex tangent of each root), test_roots_variable_coefficients,
  test_polyfit_full_vjp (coefficients, residuals and singular values in x, y and w, 2-d y),
  test_polyfit_forward_mode_in_x_and_w (cov=True), test_polyfit_in_tj_function (full=True under tj.function against
  eager and jax.jit, and a tape inside it).

Left out: testRoots' bfloat16 (as float16: jax.numpy.roots refuses it; one float16 case stands for both) and x64
dtypes (x64-only); second derivatives of roots (jax.hessian of jax.numpy.roots raises NotImplementedError: its eig's
derivative needs eigenvector derivatives, opt-in only; test_numpy_polynomial.py checks eigvals' second order against
that opt-in).

Sanctioned differences (API.md): tj.numpy accepts Python lists wherever an array is accepted, where jax.numpy's
roots and polyfit raise TypeError ("requires ndarray or scalar arguments"): test_list_arguments.

Differences from jax.numpy this port found: float16 coefficients: jax.numpy.roots raises NotImplementedError
("Unsupported dtype float16", from its eig), tj.numpy.roots raised TypeError only (fixed: tapejax's NoKernelError is
both). Sanctioned: integer x in polyfit: jax.numpy.polyfit raises ValueError (finfo of an integer dtype: "not
inexact", a side effect of its rcond default), tj.numpy.polyfit returns a float32 fit, as NumPy's.
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy

CUBIC_PAIR = np.array([1.0, -0.5, 2.0, 7.5], np.float32)  # (x^2 - 2x + 5)(x + 1.5): roots 1 +- 2i and -1.5
QUARTIC = np.array([2.0, -5.0, -7.0, 17.0, -6.0], np.float32)  # roots 3, 1, -2, 0.5
XS = np.linspace(-1.0, 1.5, 7).astype(np.float32)
YS = np.stack([np.sin(2 * XS), XS ** 2 - 0.5 * XS + 0.3 * np.cos(5 * XS)], 1).astype(np.float32)
WS = np.linspace(0.5, 2.0, 7).astype(np.float32)


def _coeffs(dtype, length, leading, trailing, seed):
    """``length`` random coefficients (about a third of them zero, as JAX's rand_some_zero) between ``leading`` and
    ``trailing`` zeros."""
    r = np.random.default_rng(seed)
    v = r.normal(size=length) * 3
    if dtype == np.complex64:
        v = v + 3j * r.normal(size=length)
    v[r.random(length) < 0.3] = 0
    if length:
        v[0] = v[0] or 1.5  # keep ``length`` the degree's count (a leading zero here would be one more ``leading``)
    p = np.round(v) if np.issubdtype(dtype, np.integer) else v
    return np.concatenate([np.zeros(leading), p, np.zeros(trailing)]).astype(dtype)


def _same_set(got, want, tol):
    """``got`` holds ``want``'s values in some order (NaN matches NaN), each within tol * max(1, |w|)."""
    got, want = list(np.asarray(got).ravel()), np.asarray(want).ravel()
    assert len(got) == len(want), (got, want)
    for w in want:
        if np.isnan(w):
            d = [0.0 if np.isnan(g) else np.inf for g in got]
        else:
            d = [np.inf if np.isnan(g) else abs(g - w) for g in got]
        k = int(np.argmin(d))
        assert d[k] <= tol * max(1.0, 0.0 if np.isnan(w) else abs(w)), (w, got)
        got.pop(k)


def _numpy_roots(p, strip_zeros):
    want = np.roots(p).astype(np.complex64)
    if not strip_zeros and len(want) < len(p) - 1:  # one NaN root per leading zero, as JAX's np_fun
        want = np.pad(want, (0, len(p) - 1 - len(want)), constant_values=complex(np.nan, np.nan))
    return want


def _by_value(r):
    """The order that sorts roots by value (real part, then imaginary), to pair jax's with tj's."""
    r = np.asarray(r)
    return np.lexsort((np.round(r.imag, 3), np.round(r.real, 3)))


# -- testRoots / testRootsNoStrip ---------------------------------------------------------------------------------

# (dtype, length, leading, trailing): points of JAX's dtype x [0, 3, 5] x [0, 2] x [0, 2] grid (int8/int16 are in
# JAX's integer dtypes) that test_jax_numpy_misc_port.py leaves out
GRID = [(np.int8, 3, 2, 2), (np.int16, 5, 0, 0), (np.float32, 3, 0, 0), (np.float32, 0, 2, 2),
        (np.complex64, 5, 2, 2)]


@pytest.mark.parametrize("dtype, length, leading, trailing", GRID,
                         ids=[f"{np.dtype(d).name}-{n}-{a}-{b}" for d, n, a, b in GRID])
@pytest.mark.parametrize("strip_zeros", [True, False], ids=["strip", "nostrip"])
def test_roots_grid(dtype, length, leading, trailing, strip_zeros):
    p = _coeffs(dtype, length, leading, trailing, seed=length + 10 * leading + 100 * trailing)
    want = _numpy_roots(p, strip_zeros)
    jax_out = jnp.roots(p, strip_zeros=strip_zeros)
    got = tnp.roots(p, strip_zeros=strip_zeros)
    assert (got.shape, got.dtype) == (jax_out.shape, jax_out.dtype) == (want.shape, np.complex64)
    _same_set(jax_out, want, 2e-3)
    _same_set(got.numpy(), want, 2e-3)


@pytest.mark.parametrize("dtype", [np.int16, np.complex64], ids=["int16", "complex64"])
def test_roots_no_strip_compiled(dtype):
    # testRootsNoStrip's _CompileAndCheck: the traced call gives the eager call's roots (and jax.jit's)
    p = _coeffs(dtype, 3, 2, 2, seed=7)
    eager = tnp.roots(p, strip_zeros=False)
    compiled = tj.function(lambda q: tnp.roots(q, strip_zeros=False))(p)
    assert (compiled.shape, compiled.dtype) == (eager.shape, eager.dtype)
    _same_set(compiled.numpy(), eager.numpy(), 1e-5)
    _same_set(compiled.numpy(), jax.jit(lambda q: jnp.roots(q, strip_zeros=False))(p), 1e-4)


def test_roots_float16_as_jax():
    # (jax.numpy's class, NotImplementedError, TypeError from jax 0.12; tj's error is both: TypeError is TF's and
    # NumPy's class for a dtype)
    p = np.array([1.0, -3.0, 2.0], np.float16)
    with pytest.raises((NotImplementedError, TypeError)):
        jnp.roots(p)
    for fn in (lambda: tnp.roots(p), lambda: tnp.polyfit(np.arange(3.0, dtype=np.float16), p, 1)):
        with pytest.raises(NotImplementedError, match="no kernel for dtype float16") as e:
            fn()
        assert isinstance(e.value, TypeError)


def test_list_arguments():
    # sanctioned (API.md): lists are accepted wherever an array is; jax.numpy's roots and polyfit refuse them
    np.testing.assert_array_equal(tnp.roots([1.0, -3.0, 2.0]).numpy(), tnp.roots(np.array([1.0, -3.0, 2.0])).numpy())
    np.testing.assert_allclose(tnp.polyfit([0.0, 1.0, 2.0, 3.0], [1.0, 2.0, 0.0, 4.0], 1).numpy(),
                               jnp.polyfit(jnp.arange(4.0), jnp.array([1.0, 2.0, 0.0, 4.0]), 1), rtol=1e-5)


# -- roots: derivatives -------------------------------------------------------------------------------------------

def _cotangent(r):
    """A complex cotangent that is a function of each root's value, so it does not depend on the roots' order."""
    r = np.asarray(r)
    return ((0.7 - 1.3j) * r + (0.2 + 0.5j) * r * r + 0.25).astype(np.complex64)


@pytest.mark.parametrize("p, strip_zeros", [(CUBIC_PAIR, True), (QUARTIC, False)], ids=["pair", "real-nostrip"])
def test_roots_vjp_complex_cotangent(p, strip_zeros):
    # TF's convention for a real source and a complex output: tape.gradient(y, x, g) is jax.vjp(f, x)(conj(g))
    r_jax, vjp = jax.vjp(lambda a: jnp.roots(a, strip_zeros=strip_zeros), jnp.asarray(p))
    want, = vjp(np.conj(_cotangent(r_jax)))
    x = tj.constant(p)
    with tj.GradientTape() as tape:
        tape.watch(x)
        r = tnp.roots(x, strip_zeros=strip_zeros)
    got = tape.gradient(r, x, output_gradients=_cotangent(r.numpy()))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-3, atol=1e-3)


def test_roots_trailing_zero_gradient():
    # a trailing zero coefficient gives a root at 0; jax.numpy keeps it in the companion matrix (NumPy strips it and
    # appends 0), so it carries the derivative -1 / p'(0) with respect to the last coefficient in both modes
    p = np.append(QUARTIC[1:], 0.0).astype(np.float32)  # roots 0 and those of -5x^3 - 7x^2 + 17x - 6

    def loss(m, r):
        return m.sum(m.exp(m.real(r)))  # symmetric in the roots: their order does not matter
    eps, p64 = 1e-6, p.astype(np.float64)
    fd = [(loss(np, np.roots(p64 + eps * e)) - loss(np, np.roots(p64 - eps * e))) / (2 * eps) for e in np.eye(5)]
    for strip_zeros in (True, False):
        want = jax.grad(lambda a: loss(jnp, jnp.roots(a, strip_zeros=strip_zeros)))(jnp.asarray(p))
        np.testing.assert_allclose(want, fd, rtol=1e-3, atol=1e-4)
        x = tj.constant(p)
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = loss(tnp, tnp.roots(x, strip_zeros=strip_zeros))
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), want, rtol=1e-3, atol=1e-4)


def test_roots_jacobian():
    # tape.jacobian of the real roots (rows paired by root value) against jax.jacrev, vectorized and row by row
    f = lambda m, a: m.real(m.roots(a, strip_zeros=False))  # noqa: E731
    r_jax = jnp.roots(QUARTIC, strip_zeros=False)
    want = np.asarray(jax.jacrev(lambda a: f(jnp, a))(jnp.asarray(QUARTIC)))[_by_value(r_jax)]
    for pfor in (True, False):
        x = tj.constant(QUARTIC)
        with tj.GradientTape(persistent=not pfor) as tape:
            tape.watch(x)
            r = tnp.roots(x, strip_zeros=False)
            y = f(tnp, x)
        j = tape.jacobian(y, x, experimental_use_pfor=pfor)
        assert j.shape == (4, 5)
        np.testing.assert_allclose(j.numpy()[_by_value(r.numpy())], want, rtol=1e-3, atol=1e-3)


def test_roots_forward_mode():
    # the complex tangent of each root (paired by value) against jax.jvp, for a complex pair and a real root
    t = np.array([0.5, -1.0, 0.25, 2.0], np.float32)
    r_jax, t_jax = jax.jvp(jnp.roots, (jnp.asarray(CUBIC_PAIR),), (jnp.asarray(t),))
    x = tj.constant(CUBIC_PAIR)
    with tj.ForwardAccumulator(x, tj.constant(t)) as acc:
        r = tnp.roots(x)
    got = acc.jvp(r)
    assert got.dtype == np.complex64 and got.shape == (3,)
    np.testing.assert_allclose(got.numpy()[_by_value(r.numpy())], np.asarray(t_jax)[_by_value(r_jax)],
                               rtol=1e-3, atol=1e-3)


def test_roots_variable_coefficients():
    v = tj.Variable(QUARTIC)
    with tj.GradientTape() as tape:
        y = tnp.sum(tnp.real(tnp.roots(v)) ** 2)  # a read of v, recorded
    want = jax.grad(lambda a: jnp.sum(jnp.real(jnp.roots(a)) ** 2))(jnp.asarray(QUARTIC))
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), want, rtol=1e-3, atol=1e-3)


# -- polyfit: derivatives and compiled ----------------------------------------------------------------------------

def test_polyfit_full_vjp():
    # coefficients, residuals and singular values of a weighted fit of two columns, in x, y and w at once
    def fit(m, x, y, w):
        c, res, _, sv, _ = m.polyfit(x, y, 2, w=w, full=True)
        return c, res, sv
    out, vjp = jax.vjp(lambda *a: fit(jnp, *a), jnp.asarray(XS), jnp.asarray(YS), jnp.asarray(WS))
    cts = [np.linspace(-1.0, 1.5, o.size).reshape(o.shape).astype(np.float32) for o in out]
    want = vjp(tuple(cts))
    ts = [tj.constant(a) for a in (XS, YS, WS)]
    with tj.GradientTape() as tape:
        tape.watch(ts)
        got_out = fit(tnp, *ts)
    got = tape.gradient(list(got_out), ts, output_gradients=cts)
    for g, o in zip(got_out, out):
        np.testing.assert_allclose(g.numpy(), o, rtol=1e-4, atol=1e-5)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-3, atol=1e-4)


def test_polyfit_forward_mode_in_x_and_w():
    tx = np.linspace(-0.3, 0.2, XS.size).astype(np.float32)
    tw = np.linspace(0.4, -0.1, WS.size).astype(np.float32)
    _, want = jax.jvp(lambda x, w: jnp.polyfit(x, YS[:, 1], 3, w=w, cov=True), (jnp.asarray(XS), jnp.asarray(WS)),
                      (jnp.asarray(tx), jnp.asarray(tw)))
    x, w = tj.constant(XS), tj.constant(WS)
    with tj.ForwardAccumulator([x, w], [tj.constant(tx), tj.constant(tw)]) as acc:
        out = tnp.polyfit(x, YS[:, 1], 3, w=w, cov=True)
    for o, t in zip(out, want):
        np.testing.assert_allclose(acc.jvp(o).numpy(), t, rtol=1e-3, atol=1e-4)


def test_polyfit_in_tj_function():
    # full=True traced (jax.jit's outputs: rank and rcond included) and a tape inside the trace, against eager
    def fit_and_grad(x, y, w):
        with tj.GradientTape() as tape:
            tape.watch(y)
            c, res, rank, sv, rcond = tnp.polyfit(x, y, 2, w=w, full=True)
            loss = tnp.sum(c * c) + tnp.sum(res)
        return (c, res, rank, sv, rcond), tape.gradient(loss, y)
    out, g = tj.function(fit_and_grad)(XS, YS, WS)
    eager_out, eager_g = fit_and_grad(tj.constant(XS), tj.constant(YS), tj.constant(WS))
    jit_out = jax.jit(lambda x, y, w: jnp.polyfit(x, y, 2, w=w, full=True))(XS, YS, WS)
    for a, b, j in zip(out, eager_out, jit_out):
        assert a.shape == b.shape == j.shape and a.dtype == b.dtype == j.dtype
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(a.numpy(), j, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(g.numpy(), eager_g.numpy(), rtol=1e-4, atol=1e-5)
    want_g = jax.grad(lambda y: jnp.sum(jnp.polyfit(XS, y, 2, w=WS) ** 2)
                      + jnp.sum(jnp.polyfit(XS, y, 2, w=WS, full=True)[1]))(jnp.asarray(YS))
    np.testing.assert_allclose(g.numpy(), want_g, rtol=1e-3, atol=1e-4)


def test_polyfit_integer_x_fits_as_numpy():
    # sanctioned: jax.numpy.polyfit raises ValueError for an integer x (its rcond default takes finfo of the int dtype:
    # "not inexact", a side effect, not a documented rule); tj fits in float32, as NumPy's polyfit accepts integers
    x, y = np.arange(5, dtype=np.int32), np.arange(5, dtype=np.float32) ** 2
    with pytest.raises(ValueError, match="not inexact|not compatible with finfo"):  # (NumPy 2.5's words: the latter)
        jnp.polyfit(x, y, 2)
    got = tnp.polyfit(x, y, 2)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got.numpy(), np.polyfit(x, y, 2), atol=1e-4)
