"""JAX's FFT tests, ported to tj.numpy.fft (which mirrors jax.numpy.fft).

Source: jax-ml/jax tests/fft_test.py (FftTest; helpers _get_fftn_test_axes, _get_fftn_test_s, _zero_for_irfft),
against the installed jax 0.10.2 with x64 off.

Mapping: jnp.fft.<name> -> tj.numpy.fft.<name>, same arguments. JAX's _CheckAgainstNumpy -> the values of tj
against NumPy's computed here (JAX's tolerance, 1e-4; NumPy's complex128 results are compared by value only);
shapes and dtypes against jax.numpy's (jax.eval_shape; where jax raises, tj raises the same class); _CompileAndCheck ->
the same call inside tj.function equals the eager one (and jax.jit's). jtu.check_grads (which JAX runs only
with x64) -> the tape's gradient for a random cotangent against jax.vjp in TF's complex convention (API.md:
conj(vjp(conj(ct)))), the ForwardAccumulator against jax.jvp, and second order: the outer gradient of the
first gradient with respect to the cotangent is the transform itself applied to the outer cotangent (NumPy's).
One gradient is also checked against TF 2.21's tf.signal.fft gradient (values computed once with TF and
hard-coded). JAX's grids (every axes combination, every length s, every dtype) are sampled by hand to stay
within the test-time budget; a full sweep of the grids (1,256 fftn cases, the 1-D, 2-D, frequency and shift
grids) was run once while porting and agreed with jax.numpy everywhere except the difference below.

Ported (JAX method -> pytest function here):
  testFftn -> test_fftn_values, test_fftn_compiled, test_fftn_gradients, test_fftn_second_order,
    test_fftn_empty_axes, test_real_fftn_empty_axes_as_jax;
  testIrfftnNonSymmetricOuterAxes -> test_irfftn_non_symmetric_outer_axes;
  testIrfftTranspose -> test_irfft_transpose;
  testLaxIrfftDoesNotMutateInputs (its jnp.fft.irfft2 part, float32) -> test_irfft2_does_not_mutate_inputs;
  testFftnErrors -> test_fftn_errors; testFftEmpty -> test_fft_empty;
  testFft -> test_fft_values (+ test_fft_compiled); testFftErrors -> test_fft_errors;
  testFft2_ -> test_fft2_values; testFft2Errors -> test_fft2_errors;
  testFftfreq / testRfftfreq -> test_frequencies; testFftfreqErrors / testRfftfreqErrors ->
    test_frequency_errors;
  testFftshift / testIfftshift -> test_shifts;
  testFftNormalizationPrecision -> test_normalization_precision_x64 (one case under jax.enable_x64).
  Added: test_tf_fft_gradient (TF 2.21's tf.signal.fft gradient, complex and real sources).

Left out:
  * testLaxFftAcceptsStringTypes, testLaxFftErrors, and testLaxIrfftDoesNotMutateInputs' float64 case: jax.lax.fft
    has no tj counterpart (tj.numpy mirrors jax.numpy); float64 needs x64.
  * testFftnormOverflow: it calls the private jax._src.numpy.fft._fft_norm on a shape of 3 * 900 ** 3
    elements; the public-level equivalent needs an array of that size.
  * testFftfreq/testRfftfreq's check_grads: the frequencies do not depend on the differentiated argument
    (vacuous); tj's frequencies have no gradient (test_numpy_fft.py checks that).
  * The error messages' wording: JAX's regexes name jax.numpy.fft; tj's errors name tj's function (checked
    here) and are of JAX's class (ValueError; tj's ShapeError is both a TypeError and a ValueError).

Sanctioned differences: none found. Difference found and fixed in tapejax:
  * rfftn/irfftn with axes=[] (an empty axes list): jax.numpy returns the input untransformed (rfftn: cast to
    float32, irfftn: to complex64); NumPy raises IndexError; tj raised ValueError ("needs at least one axis").
Rounding (compared within 2e-7, not bit for bit): tj.numpy.fft.fftfreq(9, 0.1) rounds d * n in float32 (d is
an operand of its op, as in jax.jit(jnp.fft.fftfreq), whose values it equals); jax eager rounds the Python product
once, 1 ulp away on some entries.
Not repeated here: hfft/ihfft gradients and the other 1-d and 2-d transforms' gradients (test_numpy_fft.py).
"""
from __future__ import annotations

import itertools
import zlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from conftest import close_scaled

tnp = tj.numpy
tfft = tj.numpy.fft


def _rng(label):
    return np.random.default_rng(zlib.crc32(label.encode()))


def _input(label, shape, dtype):
    """A seeded input of ``dtype`` (JAX's rand_default analogue)."""
    rng = _rng(label)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) > 0.5
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-5, 6, shape).astype(dtype)
    x = rng.standard_normal(shape) * 2
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 2j * rng.standard_normal(shape)
    return x.astype(dtype)


def _like(label, y):
    """A seeded cotangent or tangent of ``y``'s shape and dtype."""
    return _input(label, np.shape(y), y.dtype)


def _zero_for_irfft(z, axes):
    """As JAX's helper: the imaginary part of the first (and for an odd length the last) entry along the last
    transformed axis set to 0, where an inverse real transform's derivative is well defined."""
    if not np.iscomplexobj(z) or (axes is not None and not axes):
        return z
    axis = z.ndim - 1 if axes is None else axes[-1]
    z = z.copy()
    ends = [0, z.shape[axis] - 1] if z.shape[axis] % 2 else [0]
    for k in ends:
        idx = [slice(None)] * z.ndim
        idx[axis] = k
        z[tuple(idx)] = z[tuple(idx)].real
    return z


def _check_numpy(label, got, want, tol=1e-4):
    """tj's result against NumPy's (JAX's _CheckAgainstNumpy with check_dtypes=False, tol 1e-4)."""
    want = np.asarray(want)
    assert isinstance(got, tj.Tensor), label
    close_scaled(got, want, label, rtol=tol, atol=tol, dtype=np.complex128 if np.iscomplexobj(want) else np.float64)


def _check_jax_dtype(label, got, jax_fn, x):
    want = jax.eval_shape(jax_fn, jax.ShapeDtypeStruct(x.shape, jax.dtypes.canonicalize_dtype(x.dtype)))
    assert (got.shape, got.dtype) == (want.shape, want.dtype), (label, got.shape, got.dtype, want)


# -- testFftn: the n-dimensional transforms ----------------------------------------------------------------------
# (name, input shape, axes, s, dtype, norm): JAX's grid sampled by hand; every transform over 1 to 5 axes
# (more than 3 is split into XLA transforms of at most 3), negative axes, cropping and padding s (down to 1),
# every norm, and float32/int32/bool/complex64/float16 inputs.
FFTN_CASES = [
    ("fftn", (10,), None, None, np.float32, None),
    ("fftn", (9,), (0,), (5,), np.complex64, "ortho"),
    ("fftn", (10, 10), (1,), (17,), np.int32, "forward"),
    ("fftn", (2, 3, 4), (0, 2), (1, 8), np.bool_, "backward"),
    ("fftn", (2, 3, 4, 5), None, None, np.complex64, "ortho"),
    ("fftn", (2, 3, 4, 5, 6), (0, 1, 2, 3, 4), None, np.float32, "forward"),
    ("fftn", (2, 3, 4, 5), (-3,), None, np.float16, None),
    ("ifftn", (10,), (-1,), (3,), np.complex64, "forward"),
    ("ifftn", (10, 10), (0, 1), (1, 20), np.complex64, None),
    ("ifftn", (2, 3, 4, 5), (1, 2, 3), (5, 1, 4), np.float32, "ortho"),
    ("ifftn", (2, 3, 4, 5, 6), (0, 1, 3, 4), (4, 2, 9, 1), np.int32, "backward"),
    ("rfftn", (9,), None, None, np.float32, "ortho"),
    ("rfftn", (10, 10), (0,), (4,), np.int32, None),
    ("rfftn", (2, 3, 4), (2, 0), (5, 3), np.float32, "forward"),
    ("rfftn", (2, 3, 4, 5), None, None, np.bool_, "backward"),
    ("rfftn", (2, 3, 4, 5, 6), (1, 2, 3, 4), (3, 1, 5, 7), np.float32, None),
    ("rfftn", (2, 3, 4), (-2,), None, np.float16, "ortho"),
    ("irfftn", (10,), None, None, np.complex64, None),
    ("irfftn", (9,), (0,), (1,), np.complex64, "ortho"),
    ("irfftn", (10, 10), (1, 0), (7, 11), np.float32, "forward"),
    ("irfftn", (2, 3, 4), (0, 1), (4, 6), np.complex64, "backward"),
    ("irfftn", (2, 3, 4, 5), (0, 1, 2, 3), None, np.complex64, "ortho"),
    ("irfftn", (2, 3, 4, 5, 6), (-1,), (11,), np.int32, None),
    ("irfftn", (2, 3, 4), None, None, np.bool_, "forward"),
]


def _fftn_id(case):
    name, shape, axes, s, dtype, norm = case
    return f"{name}-{'x'.join(map(str, shape))}-axes{axes}-s{s}-{np.dtype(dtype).name}-{norm}"


def _kw(axes, s, norm):
    return {"s": s, "axes": axes, "norm": norm}


@pytest.mark.parametrize("case", FFTN_CASES, ids=_fftn_id)
def test_fftn_values(case):
    name, shape, axes, s, dtype, norm = case
    label = _fftn_id(case)
    x = _input(label, shape, dtype)
    kw = _kw(axes, s, norm)
    if dtype == np.float16 and name == "rfftn":  # jax's RFFT takes float32/float64 only: tj raises as jax does
        with pytest.raises(ValueError, match="float32 or float64"):
            jnp.fft.rfftn(x, **kw)
        with pytest.raises(ValueError, match="rfftn.*float32 or float64"):
            tfft.rfftn(tj.constant(x), **kw)
        return
    got = getattr(tfft, name)(tj.constant(x), **kw)
    _check_numpy(label, got, getattr(np.fft, name)(x, **kw))
    _check_jax_dtype(label, got, lambda u: getattr(jnp.fft, name)(u, **kw), x)


# (_CompileAndCheck: a third of the grid; tj.function against eager tj, and against jax.jit)
@pytest.mark.parametrize("case", FFTN_CASES[::3], ids=_fftn_id)
def test_fftn_compiled(case):
    name, shape, axes, s, dtype, norm = case
    label = _fftn_id(case)
    x = _input(label, shape, dtype)
    kw = _kw(axes, s, norm)
    eager = getattr(tfft, name)(tj.constant(x), **kw)
    compiled = tj.function(lambda u: getattr(tfft, name)(u, **kw))(tj.constant(x))
    want = jax.jit(lambda u: getattr(jnp.fft, name)(u, **kw))(x)
    assert (compiled.shape, compiled.dtype) == (want.shape, want.dtype)
    close_scaled(compiled, eager.numpy(), label + " tj.function vs eager", rtol=3e-6, atol=3e-6, dtype=want.dtype)
    close_scaled(eager, want, label + " eager vs jax.jit", rtol=3e-6, atol=3e-6, dtype=want.dtype)


@pytest.mark.parametrize("name", ["fftn", "ifftn"])
def test_fftn_empty_axes(name):
    """axes=[]: JAX's test expects the input back (NumPy's too), as a complex array."""
    x = _input(name + "empty", (2, 3), np.float32)
    got = getattr(tfft, name)(tj.constant(x), axes=[])
    _check_jax_dtype(name, got, lambda u: getattr(jnp.fft, name)(u, axes=[]), x)
    assert got.dtype == np.complex64
    np.testing.assert_array_equal(got.numpy(), x.astype(np.complex64))


@pytest.mark.parametrize("name", ["rfftn", "irfftn"])
def test_real_fftn_empty_axes_as_jax(name):
    x = _input(name + "empty", (2, 3), np.float32)
    want = getattr(jnp.fft, name)(x, axes=[])
    got = getattr(tfft, name)(tj.constant(x), axes=[])
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    np.testing.assert_array_equal(got.numpy(), np.asarray(want))
    np.testing.assert_array_equal(np.asarray(want), x.astype(want.dtype))  # jax's value: the input itself


# -- gradients (jtu.check_grads's analogue): tape vs jax.vjp, accumulator vs jax.jvp --------------------------
GRAD_CASES = [
    ("fftn", (2, 3, 4, 5), None, None, np.complex64, "ortho"),
    ("ifftn", (2, 3, 4), (0, 2), (1, 6), np.complex64, "forward"),
    ("rfftn", (2, 3, 4, 5), (1, 2, 3), (5, 1, 4), np.float32, None),
    ("irfftn", (3, 4), (1, 0), (5, 3), np.complex64, "ortho"),
]


def _transform(m, name, kw):
    return lambda u: getattr(m.fft, name)(u, **kw)


@pytest.mark.parametrize("case", GRAD_CASES, ids=_fftn_id)
def test_fftn_gradients(case):
    name, shape, axes, s, dtype, norm = case
    label = _fftn_id(case)
    kw = _kw(axes, s, norm)
    x = _input(label, shape, dtype)
    if name.startswith("irfft"):
        x = _zero_for_irfft(x, axes)
    y, vjp = jax.vjp(_transform(jnp, name, kw), jnp.asarray(x))
    ct = _like(label + "ct", y)
    want = np.conj(np.asarray(vjp(np.conj(ct))[0]))  # TF's convention (API.md)
    t = tj.constant(x)
    with tj.GradientTape() as tape:
        tape.watch(t)
        out = _transform(tnp, name, kw)(t)
    g = tape.gradient(out, t, output_gradients=ct)
    assert (g.shape, g.dtype) == (t.shape, t.dtype), label
    close_scaled(g, want, label + " tape vs jax.vjp", dtype=want.dtype)
    tangent = _like(label + "tangent", x)
    _, want_t = jax.jvp(_transform(jnp, name, kw), (jnp.asarray(x),), (jnp.asarray(tangent),))
    with tj.ForwardAccumulator(t, tangent) as acc:
        out = _transform(tnp, name, kw)(t)
    jv = acc.jvp(out)
    assert (jv.shape, jv.dtype) == (want_t.shape, want_t.dtype), label
    close_scaled(jv, want_t, label + " accumulator vs jax.jvp", dtype=want_t.dtype)


# check_grads(order=2): the first gradient is the adjoint applied to the cotangent, so its gradient with respect
# to the cotangent, for an outer cotangent v, is the transform applied to v (NumPy's).
@pytest.mark.parametrize("case", [GRAD_CASES[1], GRAD_CASES[3]], ids=_fftn_id)
def test_fftn_second_order(case):
    name, shape, axes, s, dtype, norm = case
    label = _fftn_id(case)
    kw = _kw(axes, s, norm)
    x = _zero_for_irfft(_input(label, shape, dtype), axes)
    out_shape = getattr(np.fft, name)(x, **kw).shape
    ct = tj.constant(_input(label + "ct", out_shape, np.float32 if name.startswith("irfft") else np.complex64))
    v = _input(label + "v", shape, dtype)
    t = tj.constant(x)
    with tj.GradientTape() as outer:
        outer.watch(ct)
        with tj.GradientTape() as inner:
            inner.watch(t)
            y = getattr(tfft, name)(t, **kw)
        g = inner.gradient(y, t, output_gradients=ct)
    h = outer.gradient(g, ct, output_gradients=v)
    want = getattr(np.fft, name)(v, **kw)
    assert (h.shape, h.dtype) == (ct.shape, ct.dtype), label
    close_scaled(h, want, label + " second order", dtype=np.complex128)


def test_tf_fft_gradient():
    """One gradient against TF 2.21 itself: tf.signal.fft of a complex source (an output gradient, and the real
    loss sum(|fft(z)|^2 * w)) and of a real source cast to complex64."""
    z = (np.arange(5) * 0.5 - 1 + 1j * np.linspace(-1, 1, 5)).astype(np.complex64)
    ct = (np.array([1, -2, 0.5, 3, -1]) + 1j * np.array([0.25, 1, -1, 2, 0])).astype(np.complex64)
    w = np.arange(1.0, 6.0, dtype=np.float32)
    zt = tj.constant(z)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(zt)
        y = tfft.fft(zt)
        loss = tnp.sum(tnp.abs(y) ** 2 * w)
    np.testing.assert_allclose(y.numpy(), [0, -2.9704776 + 0.47047746j, -1.6561496 - 0.8438504j,
                                           -0.8438504 - 1.6561496j, 0.47047746 - 2.9704776j], atol=1e-5)
    np.testing.assert_allclose(tape.gradient(y, zt, output_gradients=ct).numpy(),
                               [1.5 + 2.25j, -1.9463112 - 2.6705196j, 1.0676558 + 1.5398562j,
                                7.9495664 - 2.0398562j, -3.5709097 + 2.1705196j], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(loss.numpy(), 87.50001, rtol=1e-5)
    np.testing.assert_allclose(tape.gradient(loss, zt).numpy(),
                               [-23.86484 - 46.13517j, -23.569613 - 11.430393j, -10.13111 + 10.13111j,
                                11.430391 + 23.569613j, 46.135174 + 23.86484j], rtol=1e-5, atol=1e-4)
    x = tj.constant(np.linspace(-1, 1, 5).astype(np.float32))
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tfft.fft(x)
    g = tape.gradient(y, x, output_gradients=ct)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g.numpy(), [1.5, -1.9463112, 1.0676558, 7.9495664, -3.5709097], rtol=1e-5, atol=1e-5)


# -- testIrfftnNonSymmetricOuterAxes, testIrfftTranspose, testLaxIrfftDoesNotMutateInputs, testFftEmpty ---------

def test_irfftn_non_symmetric_outer_axes():
    a = np.array([[1.0, 2.0], [3.0, 4.0]], np.complex64)  # jax-ml/jax#29325: s=(5, 1) over both axes
    got = tfft.irfftn(tj.constant(a), s=(5, 1), axes=(0, 1))
    _check_numpy("irfftn s=(5, 1)", got, np.fft.irfftn(a, s=(5, 1), axes=(0, 1)))
    assert (got.shape, got.dtype) == ((5, 1), np.float32)
    compiled = tj.function(lambda u: tfft.irfftn(u, s=(5, 1), axes=(0, 1)))(tj.constant(a))
    np.testing.assert_allclose(compiled.numpy(), got.numpy(), atol=2e-6)


def _irfft_of_four(m, x):
    """JAX's linear map R^4 -> R^4 of jax-ml/jax#6223: irfft of [0, x0 + i x2, x1 + i x3]."""
    xc = x.astype(np.complex64)
    return m.fft.irfft(m.concatenate([m.zeros((1,), np.complex64), xc[:2] + 1j * xc[2:]]))


def test_irfft_transpose():
    """The transpose of the map (the tape's Jacobian, one output gradient per row, and jax.linear_transpose of the
    function built from tj ops) is the transpose of its matrix (jax's vmap over the identity)."""
    matrix = np.asarray(jax.vmap(lambda e: _irfft_of_four(jnp, e))(jnp.eye(4)))  # row i: map(e_i)
    t = tj.constant(np.array([0.5, -1.0, 2.0, 0.25], np.float32))
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(t)
        y = _irfft_of_four(tnp, t)
    np.testing.assert_allclose(tape.jacobian(y, t).numpy(), matrix.T, atol=1e-6)
    e = np.eye(4, dtype=np.float32)[2]
    np.testing.assert_allclose(tape.gradient(y, t, output_gradients=e).numpy(), matrix[:, 2], atol=1e-6)
    v = np.array([1.0, -2.0, 0.5, 3.0], np.float32)
    (tr,) = jax.linear_transpose(lambda u: _irfft_of_four(tnp, tj.Tensor(u)).value, jnp.zeros(4, jnp.float32))(v)
    np.testing.assert_allclose(np.asarray(tr), matrix @ v, atol=1e-6)


def test_irfft2_does_not_mutate_inputs():
    x = (1 + 1j) * np.array([[1.0, 2.0], [3.0, 4.0]], np.complex64)
    kept = x.copy()
    for arg in (x, tj.constant(x)):
        y, z = tfft.irfft2(arg), tfft.irfft2(arg)
        np.testing.assert_array_equal(y.numpy(), z.numpy())
        _check_numpy("irfft2", y, np.fft.irfft2(kept))
        np.testing.assert_array_equal(np.asarray(arg.numpy() if isinstance(arg, tj.Tensor) else arg), kept)


def test_fft_empty():
    out = tfft.fft(tj.constant(np.zeros((0,), np.complex64)))
    assert (out.shape, out.dtype) == ((0,), np.complex64)


def test_normalization_precision_x64():
    """jax-ml/jax#23827: with x64 on, ifft of complex128 with n=31 is exact to 1e-14 (the one x64 case)."""
    a = np.ones((31, 15), np.complex128)
    with jax.enable_x64(True):
        got = tfft.ifft(tj.constant(a), n=31, axis=1)
        assert got.dtype == np.complex128
        np.testing.assert_allclose(got.numpy(), np.fft.ifft(a, n=31, axis=1), rtol=0, atol=1e-14)


# -- testFftnErrors / testFftErrors / testFft2Errors --------------------------------------------------------

X23 = _input("errors", (2, 3), np.float32)


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn"])
def test_fftn_errors(name):
    func = getattr(tfft, name)
    with pytest.raises(ValueError, match=name):
        func(X23, axes=[1, 1])  # repeated axes
    for axes in ([2], [-3]):
        with pytest.raises(ValueError):
            func(X23, axes=axes)


ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]


@pytest.mark.parametrize("name", ONE_D)
def test_fft_errors(name):
    """An axis given as a list or tuple raises ValueError (jax: 'does not support multiple axes')."""
    func = getattr(tfft, name)
    for axis in ([1, 1], (1, 1), [2], [-3]):
        with pytest.raises(ValueError, match=name):
            func(X23, axis=axis)


@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2"])
def test_fft2_errors(name):
    func = getattr(tfft, name)
    with pytest.raises(ValueError, match=name):
        func(X23, axes=[0])
    with pytest.raises(ValueError, match=name):
        func(_input("errors3", (2, 3, 3), np.float32), axes=(0, 1, 2))
    for axes in ([2, 3], [-3, -4]):
        with pytest.raises(ValueError):
            func(X23, axes=axes)


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_frequency_errors(name):
    func = getattr(tfft, name)
    with pytest.raises(ValueError, match=name):
        func(n=[0, 1, 2])
    with pytest.raises(ValueError, match=name):
        func(n=10, d=[0, 1, 2])


# -- testFft: the one-axis transforms, lengths n of 1 to 20 on a length-10 input -----------------------------
# (name, n, axis, dtype): every transform twice, JAX's n and axis values and its dtypes (hermitian inverse and real
# forward transforms take real inputs)
FFT_CASES = [
    ("fft", None, -1, np.complex64), ("fft", 13, 0, np.int32),
    ("ifft", 1, -1, np.float32), ("ifft", 20, 0, np.complex64),
    ("rfft", 7, 0, np.float32), ("rfft", None, -1, np.bool_),
    ("irfft", 13, -1, np.complex64), ("irfft", 1, 0, np.int32),
    ("hfft", None, 0, np.complex64), ("hfft", 7, -1, np.float32),
    ("ihfft", 20, -1, np.float32), ("ihfft", 1, 0, np.int32),
]


def _fft_id(case):
    name, n, axis, dtype = case
    return f"{name}-n{n}-axis{axis}-{np.dtype(dtype).name}"


@pytest.mark.parametrize("case", FFT_CASES, ids=_fft_id)
def test_fft_values(case):
    name, n, axis, dtype = case
    label = _fft_id(case)
    x = _input(label, (10,), dtype)
    got = getattr(tfft, name)(tj.constant(x), n=n, axis=axis)
    _check_numpy(label, got, getattr(np.fft, name)(x, n=n, axis=axis))
    _check_jax_dtype(label, got, lambda u: getattr(jnp.fft, name)(u, n=n, axis=axis), x)


@pytest.mark.parametrize("name", ["fft", "irfft", "hfft", "ihfft"])
def test_fft_compiled(name):
    """_CompileAndCheck(jnp_op): the default arguments, inside tj.function, against eager tj and jax.jit."""
    x = _input(name + "compiled", (10,), np.float32 if name == "ihfft" else np.complex64)
    eager = getattr(tfft, name)(tj.constant(x))
    compiled = tj.function(getattr(tfft, name))(tj.constant(x))
    want = jax.jit(getattr(jnp.fft, name))(x)
    assert (compiled.shape, compiled.dtype) == (want.shape, want.dtype)
    np.testing.assert_allclose(compiled.numpy(), eager.numpy(), rtol=3e-6, atol=3e-5)
    np.testing.assert_allclose(eager.numpy(), want, rtol=3e-6, atol=3e-5)


# -- testFft2_: the two-axis transforms on 4-d and 5-d inputs ------------------------------------------------
FFT2_CASES = [
    ("fft2", (16, 8, 4, 8), (-2, -1), np.complex64, "ortho"),
    ("fft2", (16, 8, 4, 8, 4), (-1, 2), np.int32, None),
    ("ifft2", (16, 8, 4, 8), (1, 3), np.float32, "forward"),
    ("ifft2", (16, 8, 4, 8, 4), (0, 1), np.complex64, "backward"),
    ("rfft2", (16, 8, 4, 8), (0, 1), np.float32, None),
    ("rfft2", (16, 8, 4, 8, 4), (-1, 2), np.bool_, "ortho"),
    ("irfft2", (16, 8, 4, 8), (-1, 2), np.complex64, "forward"),
    ("irfft2", (16, 8, 4, 8, 4), (1, 3), np.float32, None),
]


@pytest.mark.parametrize("case", FFT2_CASES, ids=lambda c: f"{c[0]}-{len(c[1])}d-axes{c[2]}-{np.dtype(c[3]).name}"
                                                          f"-{c[4]}")
def test_fft2_values(case):
    name, shape, axes, dtype, norm = case
    label = str(case)
    x = _input(label, shape, dtype)
    got = getattr(tfft, name)(tj.constant(x), axes=axes, norm=norm)
    _check_numpy(label, got, getattr(np.fft, name)(x, axes=axes, norm=norm))
    _check_jax_dtype(label, got, lambda u: getattr(jnp.fft, name)(u, axes=axes, norm=norm), x)


# -- testFftfreq / testRfftfreq ---------------------------------------------------------------------------------
FREQ_CASES = [
    ("fftfreq", 9, 0.1, np.float32, None), ("fftfreq", 10, 2.0, np.complex64, -1),
    ("fftfreq", 101, 2.0, np.float16, None), ("rfftfreq", 102, 0.1, None, -1),
    ("rfftfreq", 9, 2.0, np.float16, None), ("rfftfreq", 101, 0.1, np.float32, -1),
]


@pytest.mark.parametrize("case", FREQ_CASES, ids=lambda c: f"{c[0]}-{c[1]}-d{c[2]}-{c[3] and np.dtype(c[3]).name}"
                                                          f"-device{c[4]}")
def test_frequencies(case):
    name, size, d, dtype, device = case
    kw = {} if dtype is None else {"dtype": dtype}
    if device is not None:
        kw["device"] = jax.devices()[device]
    got = getattr(tfft, name)(size, d=d, **kw)
    want = getattr(jnp.fft, name)(size, d=d, **kw)
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    # (jax's value to 1 ulp: tj's d is a traced float32 operand, so d * n rounds in float32; jax eager rounds a
    # Python float's d * n once)
    np.testing.assert_allclose(got.numpy(), np.asarray(want), rtol=2e-7 if want.dtype != np.float16 else 1e-3)
    # NumPy's frequencies cast to the dtype (JAX's check; float16 to float16's precision)
    ref = getattr(np.fft, name)(size, d=d).astype(want.dtype)
    tol = 1e-3 if want.dtype == np.float16 else 1e-4
    np.testing.assert_allclose(got.numpy().astype(np.complex128), ref.astype(np.complex128), rtol=tol, atol=tol)
    if device is not None:
        assert got.value.devices() == {kw["device"]}
    if size % 2:  # (_CompileAndCheck on half of the cases)
        return
    compiled = tj.function(lambda a: getattr(tfft, name)(size, d=d, **kw))(tj.constant(np.zeros(size, np.float32)))
    np.testing.assert_allclose(compiled.numpy(), got.numpy(), rtol=2e-7)


# -- testFftshift / testIfftshift ------------------------------------------------------------------------------
def _shift_cases():
    """JAX's shapes and axes (every combination, [] and None and each negative axis), sampled: a fixed stride
    through the grid, each with one of JAX's dtypes."""
    cases = []
    for shape in [(9,), (10,), (101,), (102,), (3, 5), (3, 17), (5, 7, 11)]:
        nd = len(shape)
        axes = [[], None] + [c for k in range(1, nd + 1) for c in itertools.combinations(range(nd), k)]
        cases += [(shape, a) for a in axes + [(-i,) for i in range(1, nd + 1)]]
    dtypes = [np.float32, np.int32, np.bool_, np.complex64, np.float16]
    return [(shape, axes, dtypes[i % len(dtypes)]) for i, (shape, axes) in enumerate(cases)][::3]


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
def test_shifts(name):
    for shape, axes, dtype in _shift_cases():
        x = _input(f"{name}{shape}{axes}", shape, dtype)
        got = getattr(tfft, name)(tj.constant(x), axes=axes)
        want = getattr(np.fft, name)(x, axes=axes)
        label = (name, shape, axes, np.dtype(dtype).name)
        assert (got.shape, got.dtype) == (want.shape, want.dtype), label  # (x64 off: no 64-bit dtype here)
        np.testing.assert_array_equal(got.numpy(), want, err_msg=str(label))
    # an int axis, as jax and NumPy accept
    x = _input(name + "int", (3, 17), np.float32)
    np.testing.assert_array_equal(getattr(tfft, name)(x, axes=-1).numpy(), getattr(np.fft, name)(x, axes=-1))
