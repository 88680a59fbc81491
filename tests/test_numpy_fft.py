"""tj.numpy.fft against jax.numpy.fft: values (real and complex inputs, shapes, axes, n/s, every norm), reverse
mode (GradientTape) against jax.vjp in TF's complex convention (``conj(vjp(conj(ct)))``; numpy_reference's shared
checker for real compositions), forward mode (ForwardAccumulator) against jax.jvp, inside tj.function, a second
order and finite differences; the frequency helpers, the shifts and the errors."""
from __future__ import annotations

import functools
import inspect
import zlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from conftest import close_scaled
from numpy_reference import check_values, check_values_and_gradient

tnp = tj.numpy
tfft = tj.numpy.fft

NAMES = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn", "hfft",
         "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]
REAL_ONLY = {"rfft", "rfft2", "rfftn", "ihfft"}  # jax.numpy.fft refuses complex inputs to these

# (function name, input shape, keyword arguments): each is run on a real and on a complex input
ONE_AXIS = [((4,), {}), ((3, 5), {"axis": 0}), ((2, 3, 5), {"n": 2, "axis": 1}),
            ((3, 4), {"n": 6, "axis": -2, "norm": "ortho"}), ((6,), {"norm": "forward"}),
            ((1, 3), {"axis": 1, "norm": "backward"})]
TWO_AXES = [((3, 4), {}), ((2, 3, 4), {"axes": (0, 2)}), ((3, 4), {"s": (4, 6), "norm": "ortho"}),
            ((2, 3, 4), {"s": (2, 3), "axes": (2, 0), "norm": "forward"})]
N_AXES = [((3, 4), {}), ((2, 3, 4), {"axes": (1,)}), ((2, 3, 4), {"s": (3, 5)}), ((4, 3), {"axes": (1, 0), "norm": "ortho"}),
          ((2, 3, 4), {"s": (5, 2, 3), "axes": (0, 1, 2), "norm": "forward"})]
CASES = ([(f, shape, kw) for f in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft") for shape, kw in ONE_AXIS]
         + [(f, shape, kw) for f in ("fft2", "ifft2", "rfft2", "irfft2") for shape, kw in TWO_AXES]
         + [(f, shape, kw) for f in ("fftn", "ifftn", "rfftn", "irfftn") for shape, kw in N_AXES])
COMPLEX_CASES = [c for c in CASES if c[0] not in REAL_ONLY]


def per_function(cases, count, offset=0):
    """``count`` configurations of each transform (rotating from ``offset``): every transform is covered while
    the gradient checks stay within make test's time (the values run on every configuration)."""
    by_name = {}
    for c in cases:
        by_name.setdefault(c[0], []).append(c)
    return [cs[(offset + j) % len(cs)] for cs in by_name.values() for j in range(min(count, len(cs)))]


def _id(case):
    f, shape, kw = case
    return f"{f}-{'x'.join(map(str, shape))}-" + "-".join(f"{k}={v}" for k, v in kw.items())


def _rng(label):
    return np.random.default_rng(zlib.crc32(label.encode()))


def _input(label, shape, complex_: bool):
    rng = _rng(label)
    x = rng.standard_normal(shape)
    return (x + 1j * rng.standard_normal(shape)).astype(np.complex64) if complex_ else x.astype(np.float32)


def _like(rng, y):
    y = np.asarray(y)
    v = rng.standard_normal(y.shape)
    return (v + 1j * rng.standard_normal(y.shape)).astype(y.dtype) if np.iscomplexobj(y) else v.astype(y.dtype)


# The jax references run under one jax.jit (the transform's name and keyword arguments static): one XLA program per
# case instead of one per primitive of the op-by-op eager computation.
@functools.partial(jax.jit, static_argnums=(0, 2))
def _jax_fft(f, x, kw_items):
    return getattr(jnp.fft, f)(x, **dict(kw_items))


@functools.partial(jax.jit, static_argnums=(0, 2))
def _jax_fft_vjp(f, x, kw_items, ct):
    """``jax.vjp`` of the transform for the cotangent ``conj(ct)`` (conjugated back by the caller: TF's convention)."""
    _, vjp = jax.vjp(lambda u: getattr(jnp.fft, f)(u, **dict(kw_items)), x)
    return vjp(jnp.conj(ct))[0]


@functools.partial(jax.jit, static_argnums=(0, 2))
def _jax_fft_jvp(f, x, kw_items, t):
    return jax.jvp(lambda u: getattr(jnp.fft, f)(u, **dict(kw_items)), (x,), (t,))[1]


def _tol(y):
    return 1e-4 * max(1.0, float(np.max(np.abs(np.asarray(y))))) if np.size(y) else 1e-6


# -- the surface -----------------------------------------------------------------------------------------------

def test_all_lists_every_function_with_jax_signature():
    assert sorted(tfft.__all__) == sorted(NAMES)
    assert tnp.fft is tfft
    import tapejax.numpy.fft as by_import
    assert by_import is tfft
    for name in NAMES:
        ours = inspect.signature(getattr(tfft, name)).parameters
        theirs = inspect.signature(getattr(jnp.fft, name)).parameters
        for p in theirs.values():
            assert p.name in ours, (name, p.name)
            assert ours[p.name].default == p.default and ours[p.name].kind == p.kind, (name, p.name)


# -- values ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES, ids=_id)
def test_values_real_input(case):
    f, shape, kw = case
    x = _input(_id(case), shape, False)
    want = _jax_fft(f, x, tuple(kw.items()))
    got = getattr(tfft, f)(tj.constant(x), **kw)
    assert isinstance(got, tj.Tensor)
    check_values(want, got, (1e-5, _tol(want)))
    check_values(want, getattr(tfft, f)(x, **kw), (1e-5, _tol(want)))  # a NumPy array as the input


@pytest.mark.parametrize("case", COMPLEX_CASES, ids=_id)
def test_values_complex_input(case):
    f, shape, kw = case
    x = _input(_id(case), shape, True)
    want = _jax_fft(f, x, tuple(kw.items()))
    check_values(want, getattr(tfft, f)(tj.constant(x), **kw), (1e-5, _tol(want)))


def test_positional_arguments_and_default_lengths():
    x = _input("positional", (3, 4), True)
    check_values(jnp.fft.fft(x, 5, 0, "ortho"), tfft.fft(x, 5, 0, "ortho"), (1e-5, 1e-5))
    check_values(jnp.fft.irfft(x, None, 0), tfft.irfft(x, None, 0), (1e-5, 1e-5))  # n = 2 * (m - 1)
    check_values(jnp.fft.fftn(x, (2, 3), (1, 0)), tfft.fftn(x, [2, 3], [1, 0]), (1e-5, 1e-5))  # lists as tuples
    check_values(jnp.fft.fft(x, tj.constant(6)), tfft.fft(x, tj.constant(6)), (1e-5, 1e-5))  # a concrete scalar Tensor
    r = np.arange(6.0, dtype=np.float32)
    assert tfft.rfft(r).shape == (4,) and tfft.irfft(tfft.rfft(r)).shape == (6,)
    np.testing.assert_allclose(tfft.irfft(tfft.rfft(r)).numpy(), r, atol=1e-5)
    np.testing.assert_allclose(tfft.ifft(tfft.fft(x)).numpy(), x, atol=1e-5)


# -- reverse mode: the tape against jax.vjp in TF's convention -------------------------------------------------

def _tape_vs_vjp(f, x, kw, label):
    """The tape's gradient for a random cotangent equals ``conj(jax_vjp(conj(ct)))``, TF's convention (for a real
    input, the real part: what a cast's gradient keeps)."""
    out = _jax_fft(f, x, tuple(kw.items()))
    ct = _like(_rng(label + "ct"), out)
    want = np.conj(np.asarray(_jax_fft_vjp(f, x, tuple(kw.items()), ct)))
    t = tj.constant(x)
    with tj.GradientTape() as tape:
        tape.watch(t)
        y = getattr(tfft, f)(t, **kw)
    g = tape.gradient(y, t, output_gradients=tj.constant(ct))
    assert g.dtype == t.dtype and g.shape == t.shape
    close_scaled(g, want, f"{label}: tape vs conj(jax.vjp(conj(ct)))", dtype=want.dtype)


@pytest.mark.parametrize("case", per_function(CASES, 2), ids=_id)
def test_tape_gradient_real_input(case):
    _tape_vs_vjp(case[0], _input(_id(case), case[1], False), case[2], _id(case))


# (complex inputs: one configuration per transform here; test_complex.py differentiates every transform's samples
# at complex inputs)
@pytest.mark.parametrize("case", per_function(COMPLEX_CASES, 1, offset=2), ids=_id)
def test_tape_gradient_complex_input(case):
    _tape_vs_vjp(case[0], _input(_id(case), case[1], True), case[2], _id(case) + "-complex")


@pytest.mark.parametrize("case", per_function(CASES, 1, offset=3)[::2], ids=_id)
def test_real_parts_gradient_shared_checker(case):
    """numpy_reference's checker (values and the gradient of a weighted sum, against jax.grad) on a real
    parametrization: real input, or a complex one made of two real planes (TF's and JAX's conventions agree on
    real inputs)."""
    f, shape, kw = case

    def split(m, y):
        return [m.real(y), m.imag(y)] if jnp.iscomplexobj(jnp.zeros((), y.dtype)) else [y]

    def real_input(m, a):
        return split(m, getattr(m.fft, f)(a, **kw))

    check_values_and_gradient(_id(case), real_input, _input(_id(case), shape, False),
                              value_tol=(1e-5, 1e-4), grad_tol=(1e-4, 1e-4))
    if f not in REAL_ONLY:
        def complex_input(m, a):
            return split(m, getattr(m.fft, f)(a[0] + 1j * a[1], **kw))
        check_values_and_gradient(_id(case) + "-planes", complex_input, _input(_id(case), (2,) + shape, False),
                                  value_tol=(1e-5, 1e-4), grad_tol=(1e-4, 1e-4))


def test_complex_loss_gradient_is_conj_of_jax_grad():
    x = _input("loss", (3, 4), True)
    w = _input("loss-w", (3, 4), True)

    def loss_jax(u):
        return jnp.sum(jnp.abs(jnp.fft.fft2(u, norm="ortho") - w) ** 2) + jnp.sum(jnp.real(jnp.fft.hfft(u, n=5)))
    want = np.conj(jax.jit(jax.grad(loss_jax))(x))
    t = tj.constant(x)
    with tj.GradientTape() as tape:
        tape.watch(t)
        loss = tnp.sum(tnp.abs(tfft.fft2(t, norm="ortho") - w) ** 2) + tnp.sum(tnp.real(tfft.hfft(t, n=5)))
    close_scaled(tape.gradient(loss, t), want, "fft2 + hfft loss", dtype=np.complex128)


# -- forward mode --------------------------------------------------------------------------------------------

def _accumulator_vs_jvp(f, x, kw, label):
    t = _like(_rng(label + "t"), x)
    want = _jax_fft_jvp(f, x, tuple(kw.items()), t)
    src = tj.constant(x)
    with tj.ForwardAccumulator(src, tj.constant(t)) as acc:
        y = getattr(tfft, f)(src, **kw)
    got = acc.jvp(y)
    assert got.dtype == want.dtype and got.shape == want.shape
    close_scaled(got, want, f"{label}: ForwardAccumulator vs jax.jvp", dtype=want.dtype)


# (forward mode: one configuration per transform with real inputs and another with complex ones; the JVP kernel
# is jax's for every op)
@pytest.mark.parametrize("case", per_function(CASES, 1, offset=1), ids=_id)
def test_forward_mode_real_input(case):
    _accumulator_vs_jvp(case[0], _input(_id(case), case[1], False), case[2], _id(case))


@pytest.mark.parametrize("case", per_function(COMPLEX_CASES, 1, offset=4), ids=_id)
def test_forward_mode_complex_input(case):
    _accumulator_vs_jvp(case[0], _input(_id(case), case[1], True), case[2], _id(case) + "-complex")


# -- tj.function -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", per_function(CASES, 1, offset=5)[1::2], ids=_id)
def test_inside_tj_function(case):
    """Values and the tape's gradient inside tj.function equal the eager ones (jax's, in TF's convention)."""
    f, shape, kw = case
    x = _input(_id(case), shape, f not in REAL_ONLY)
    want = _jax_fft(f, x, tuple(kw.items()))
    ct = _like(_rng(_id(case) + "fn"), want)
    want_g = np.conj(np.asarray(_jax_fft_vjp(f, x, tuple(kw.items()), ct)))

    @tj.function
    def step(u):
        with tj.GradientTape() as tape:
            tape.watch(u)
            y = getattr(tfft, f)(u, **kw)
        return y, tape.gradient(y, u, output_gradients=tj.constant(ct))

    y, g = step(tj.constant(x))
    check_values(want, y, (1e-5, _tol(want)))
    close_scaled(g, want_g, f"{_id(case)} in tj.function", dtype=want_g.dtype)
    # an outer tape over the tj.function call
    src = tj.constant(x)
    with tj.GradientTape() as tape:
        tape.watch(src)
        y = tj.function(lambda u: getattr(tfft, f)(u, **kw))(src)
    close_scaled(tape.gradient(y, src, output_gradients=tj.constant(ct)), want_g, f"{_id(case)} over tj.function",
                 dtype=want_g.dtype)


# -- second order and finite differences -------------------------------------------------------------------------

def _power(m, x):
    """A real-to-real composition: the energy of the spectrum, weighted."""
    w = np.linspace(0.5, 1.5, 5, dtype=np.float32)
    return m.sum(m.abs(m.fft.rfft(x, n=8, norm="ortho")) ** 2 * w) + m.sum(m.fft.irfft(m.fft.fft(x), n=6) ** 3)


def test_second_order_nested_tapes():
    x = _input("second", (3, 4), False)
    v = _input("second-v", (3, 4), False)
    _, want = jax.jit(lambda u, w: jax.jvp(jax.grad(lambda a: _power(jnp, a)), (u,), (w,)))(x, v)
    t = tj.constant(x)
    with tj.GradientTape() as outer:
        outer.watch(t)
        with tj.GradientTape() as inner:
            inner.watch(t)
            loss = _power(tnp, t)
        g = inner.gradient(loss, t)
    close_scaled(outer.gradient(g, t, output_gradients=tj.constant(v)), want, "Hessian-vector product")
    # forward over reverse: the accumulator's tangent of the gradient
    with tj.ForwardAccumulator(t, tj.constant(v)) as acc:
        with tj.GradientTape() as tape:
            tape.watch(t)
            loss = _power(tnp, t)
        g = tape.gradient(loss, t)
    close_scaled(acc.jvp(g), want, "forward over reverse")


def test_second_order_complex_input():
    z = _input("second-complex", (4,), True)

    def inner_jax(u):
        return jnp.sum(jnp.abs(jnp.fft.fft(u * u)) ** 2)

    want = np.conj(jax.jit(jax.grad(lambda u: jnp.sum(jnp.abs(jnp.conj(jax.grad(inner_jax)(u))) ** 2)))(z))
    t = tj.constant(z)
    with tj.GradientTape() as outer:
        outer.watch(t)
        with tj.GradientTape() as inner:
            inner.watch(t)
            loss = tnp.sum(tnp.abs(tfft.fft(t * t)) ** 2)
        loss2 = tnp.sum(tnp.abs(inner.gradient(loss, t)) ** 2)
    close_scaled(outer.gradient(loss2, t), want, "second order, complex", dtype=np.complex128)


def test_finite_differences_of_a_real_composition():
    x = _input("fd", (2, 5), False).astype(np.float64)
    t = tj.constant(x.astype(np.float32))
    with tj.GradientTape() as tape:
        tape.watch(t)
        energy = tnp.sum(tnp.abs(tfft.fft(t)) ** 2)  # Parseval: n * sum(x ** 2), gradient 2 * n * x
        loss = energy + _power(tnp, t)
    g = tape.gradient(loss, t).numpy().astype(np.float64)

    def f(u):
        return float(np.sum(np.abs(np.fft.fft(u)) ** 2) + _power(np, u))
    eps = 1e-4
    fd = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[k] = eps
        fd[k] = (f(x + d) - f(x - d)) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=2e-3, atol=2e-3)
    with tj.GradientTape() as tape:
        tape.watch(t)
        energy = tnp.sum(tnp.abs(tfft.fft(t)) ** 2)
    np.testing.assert_allclose(tape.gradient(energy, t).numpy(), 2 * 5 * x, rtol=1e-4, atol=1e-4)


# -- frequencies and shifts -------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_frequencies(name):
    ours, theirs = getattr(tfft, name), getattr(jnp.fft, name)
    for args, kw in [((4,), {}), ((7, 0.5), {}), ((8,), {"d": 2}), ((5, 0.1), {"dtype": jnp.float16}),
                     ((6, 3), {"dtype": "float32"}), ((1,), {}), ((0,), {}), ((5, np.float32(0.25)), {}),
                     ((4,), {"device": jax.devices()[0]})]:
        got = ours(*args, **kw)
        assert isinstance(got, tj.Tensor)
        check_values(theirs(*args, **kw), got, (1e-6, 1e-6))
    check_values(theirs(6, 0.5), ours(6, tj.constant(0.5)), (1e-6, 1e-6))  # a Tensor spacing
    d = tj.constant(0.5)
    with tj.GradientTape() as tape:  # frequencies have no gradient
        tape.watch(d)
        y = tnp.sum(ours(6, d))
    assert tape.gradient(y, d) is None
    check_values(theirs(5, 0.5), tj.function(lambda s: ours(5, s))(tj.constant(0.5)), (1e-6, 1e-6))


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
@pytest.mark.parametrize("shape,axes", [((5,), None), ((4, 5), None), ((4, 5), 1), ((2, 3, 4), (0, -1)), ((3, 4), (-2,)),
                                        ((), None)])
def test_shifts(name, shape, axes):
    x = _input(f"{name}{shape}{axes}", shape, False)
    check_values_and_gradient(f"{name}{shape}{axes}", lambda m, a: getattr(m.fft, name)(a, axes), x,
                              value_tol=(0, 0), grad_tol=(0, 0))
    if shape:
        z = _input(f"{name}{shape}", shape, True)
        check_values(getattr(jnp.fft, name)(z, axes), getattr(tfft, name)(z, axes))
        _accumulator_vs_shift(name, z, axes)
    inverse = tfft.ifftshift if name == "fftshift" else tfft.fftshift
    np.testing.assert_array_equal(inverse(getattr(tfft, name)(x, axes), axes).numpy(), x)


def _accumulator_vs_shift(name, z, axes):
    t = _like(_rng(name), z)
    src = tj.constant(z)
    with tj.ForwardAccumulator(src, tj.constant(t)) as acc:
        y = getattr(tfft, name)(src, axes)
    np.testing.assert_array_equal(acc.jvp(y).numpy(), getattr(jnp.fft, name)(t, axes))


def test_spectrum_pipeline_in_tj_function_matches_eager():
    x = _input("pipeline", (8,), False)

    def band(m, u):
        spectrum = m.fft.fftshift(m.fft.fft(u))
        mask = m.abs(m.fft.fftshift(m.fft.fftfreq(8))) < 0.3
        return m.real(m.fft.ifft(m.fft.ifftshift(m.where(mask, spectrum, 0))))

    want, want_g = jax.jit(jax.value_and_grad(lambda u: jnp.sum(band(jnp, u) ** 2)))(x)

    @tj.function
    def step(u):
        with tj.GradientTape() as tape:
            tape.watch(u)
            loss = tnp.sum(band(tnp, u) ** 2)
        return loss, tape.gradient(loss, u)

    loss, g = step(tj.constant(x))
    close_scaled(loss, want, "band-pass loss")
    close_scaled(g, want_g, "band-pass gradient")


# -- errors: they name the function, before any kernel runs ------------------------------------------------------

X = np.ones((3, 4), np.float32)


@pytest.mark.parametrize("call,error,match", [
    (lambda: tfft.fft(X, axis=2), np.exceptions.AxisError, "'fft'.*axis 2 is out of range"),
    (lambda: tfft.ifft(X, axis=-3), IndexError, "'ifft'.*axis -3"),
    (lambda: tfft.rfft(X, axis=1.0), TypeError, "'rfft'.*axis must be an integer"),
    (lambda: tfft.fft(X, n=2.0), TypeError, "'fft'.*n must be an integer"),
    (lambda: tfft.irfft(X, n=0), ValueError, "'irfft'.*n must be a positive length"),
    (lambda: tfft.hfft(X, n=-2), ValueError, "'hfft'.*positive"),
    (lambda: tfft.fft(X, norm="bad"), ValueError, "'fft'.*norm must be None, 'backward', 'ortho' or 'forward'"),
    (lambda: tfft.fftn(X, norm=1), ValueError, "'fftn'.*norm"),
    (lambda: tfft.fft2(X, axes=(0,)), ValueError, "'fft2'.*exactly 2 axes"),
    (lambda: tfft.ifft2(X, axes=None), ValueError, "'ifft2'.*exactly 2 axes"),
    (lambda: tfft.irfft2(np.ones((2, 3, 4)), axes=(0, 1, 2)), ValueError, "'irfft2'.*exactly 2 axes"),
    (lambda: tfft.fft2(np.ones(3)), np.exceptions.AxisError, "'fft2'.*axis -2"),
    (lambda: tfft.fftn(X, axes=(0, 0)), ValueError, "'fftn'.*same axis more than once"),
    (lambda: tfft.fftn(X, axes=(0, -2)), ValueError, "'fftn'.*same axis more than once"),
    (lambda: tfft.ifftn(X, s=(2,), axes=(0, 1)), ValueError, "'ifftn'.*same length"),
    (lambda: tfft.fftn(X, s=(2, 3, 4)), ValueError, "'fftn'.*more lengths than the tensor has axes"),
    (lambda: tfft.rfftn(X, s=(2, 2.5)), TypeError, "'rfftn'.*s must be an integer"),
    (lambda: tfft.fftn(X, s=3), TypeError, "'fftn'.*s must be a sequence"),
    (lambda: tfft.fftn(X, axes=1), TypeError, "'fftn'.*axes must be a sequence"),
    (lambda: tfft.fft(np.float32(1.0)), np.exceptions.AxisError, "'fft'.*rank 0"),
    (lambda: tfft.irfft(np.ones((1, 3)), axis=0), ValueError, "'irfft'.*default output length"),
    (lambda: tfft.hfft(np.ones(1)), ValueError, "'hfft'.*pass the output length"),
    (lambda: tfft.irfftn(np.ones((3, 1))), ValueError, "'irfftn'.*default output length"),
    (lambda: tfft.irfft2(np.ones((1, 3)), axes=(1, 0)), ValueError, "'irfft2'.*default output length"),
    (lambda: tfft.rfft(X.astype(np.complex64)), ValueError, "fft_rfft.*only real valued inputs"),
    (lambda: tfft.ihfft(X.astype(np.complex64)), ValueError, "fft_ihfft"),
    (lambda: tfft.rfft(np.zeros(0, np.float32)), ValueError, "'rfft'.*length 0.*no transform of 0 points"),
    (lambda: tfft.ihfft(np.zeros((2, 0), np.float32)), ValueError, "'ihfft'.*length 0"),
    (lambda: tfft.rfftn(np.zeros((3, 0), np.float32)), ValueError, "'rfftn'.*length 0"),
    (lambda: tfft.rfft2(np.zeros((0, 0), np.float32)), ValueError, "'rfft2'.*length 0"),
    (lambda: tfft.fftfreq(4.5), TypeError, "'fftfreq'.*n must be an integer"),
    (lambda: tfft.rfftfreq(-1), ValueError, "'rfftfreq'.*n must not be negative"),
    (lambda: tfft.fftfreq(4, np.ones(2)), ValueError, "'fftfreq'.*d must be a scalar"),
    (lambda: tfft.fftfreq(4, dtype="nope"), TypeError, "'fftfreq'.*not a data type"),
    (lambda: tfft.fftshift(X, axes=2), np.exceptions.AxisError, "'fftshift'.*axis 2"),
    (lambda: tfft.ifftshift(X, axes=(0.5,)), TypeError, "'ifftshift'.*axis must be an integer"),
], ids=lambda v: "" if callable(v) or isinstance(v, type) else v[:40])
def test_bad_arguments_raise_naming_the_function(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_bad_arguments_raise_under_a_tape():
    x = tj.constant(X)
    with tj.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(np.exceptions.AxisError, match="'fft'"):
            tfft.fft(x, axis=5)
        with pytest.raises(ValueError, match="'fftn'.*norm"):
            tfft.fftn(x, norm="ortho ")


def test_traced_static_argument_names_the_argument():
    @tj.function
    def f(x, n):
        return tfft.fft(x, n=n)

    with pytest.raises(TypeError, match=r"tj.numpy.fft.fft: argument `n`"):
        f(X, tj.constant(4))

    @tj.function
    def g(x, a):
        return tfft.fftn(x, axes=(a,))

    with pytest.raises(TypeError, match=r"tj.numpy.fft.fftn: argument `axes`"):
        g(X, tj.constant(0))
    # outside tj.function a concrete scalar Tensor stands for its value
    check_values(_jax_fft("fft", X, (("n", 3), ("axis", 0))), tfft.fft(X, n=tj.constant(3), axis=tj.constant(0)),
                 (1e-6, 1e-6))


def test_functions_accept_name():
    np.testing.assert_array_equal(tfft.fft(X, name="f").numpy(), tfft.fft(X).numpy())
    np.testing.assert_array_equal(tfft.fftfreq(4, name="q").numpy(), tfft.fftfreq(4).numpy())
