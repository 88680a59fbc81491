"""Complex gradients follow TensorFlow's convention on every op (API.md, "Derivative conventions").

For a real loss ``L`` of a complex ``z``, ``tape.gradient(L, z) == conj(jax.grad(L)(z))`` (TF's
``math_grad.py`` rules are written as ``grad * conj(dy/dx)``; JAX's VJPs as ``ct * dy/dx``). Equivalently,
each op's backward kernel is ``conj(jax_vjp(conj(ct)))``. Forward mode is the same in both conventions
(a tangent is a tangent), so JVPs must equal ``jax.jvp``.

The registry-wide loop builds complex inputs from every op's float samples and compares the tape's
gradient of ``sum(abs(op(...) + c)**2)`` (a real loss whose cotangent is not proportional to the output)
with ``conj(jax.grad)`` of the same loss written with ``op.fn``.

TF counterparts: math_grad_test's AbsOpTest.testComplexAbs and ProdGradientTest.testProdGradientComplex /
testProdGradientForNegativeAxisComplex (checked here against finite differences in TF's convention).
"""
from __future__ import annotations

import zlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from tapejax.ops import complex_c99
from tapejax.ops.core import registry
from conftest import close_scaled, nested_tape_gradients

tnp = tj.numpy

_REGISTRY = {n: op for n, op in registry().items() if not getattr(op, "user_defined", False)}

# Ops whose JAX function rejects complex inputs (as TF's kernels do): skipped by name, with the reason.
NO_COMPLEX = {
    "nextafter": "jnp.nextafter is real-only",
    "cbrt": "jnp.cbrt is real-only",
    "erf": "jax.scipy.special.erf is real-only",
    "clip": "jnp.clip rejects complex values",
    "sparse_sigmoid": "jax.nn.sparse_sigmoid is a jnp.clip, which rejects complex values",
    "random_lognormal": "jax.random.lognormal takes real parameters only",
    "random_pareto": "jax.random.pareto takes real parameters only",
    "random_rayleigh": "jax.random.rayleigh takes real parameters only",
    "random_triangular": "jax.random.triangular takes real parameters only",
    "random_wald": "jax.random.wald takes real parameters only",
    "random_multivariate_normal": "jax.random.multivariate_normal takes real parameters only",
    "mod": "jnp.mod rejects complex values",
    "ldexp": "jnp.ldexp is real-only",
    "fmod": "jnp.fmod rejects complex values",
    "i0": "jnp.i0 is real-only",
    "max_pool": "reduce_window max has no complex init value",
    "astype": "the sample casts to float16 (complex -> real cast); covered by test_cast_between_real_and_complex",
    "gelu-sample1": "approximate=False uses erf, which is real-only",
    "fft_rfft": "jnp.fft.rfft takes real inputs only (real-input gradients: test_numpy_fft.py)",
    "fft_rfft2": "jnp.fft.rfft2 takes real inputs only",
    "fft_rfftn": "jnp.fft.rfftn takes real inputs only",
    "fft_ihfft": "jnp.fft.ihfft takes real inputs only",
    "random_truncated_normal_bounds": "a draw's parameters are real (as TF's kernels; jax.random.truncated_normal "
                                      "dropped the imaginary part): test_random_draws_refuse_complex_parameters",
    "random_parameterized_truncated_normal": "a draw's parameters are real: test_random_draws_refuse_complex_parameters",
    "dot_product_attention": "refused for complex arguments (jax drops the logits' imaginary part): "
                             "test_dot_product_attention_refuses_complex_arguments",
}


def _complex_args(op, args, static):
    rng = np.random.default_rng(zlib.crc32(f"{op.name}|{sorted(static.items())!r}".encode()))
    out = []
    for a in args:
        if isinstance(a, (np.ndarray, np.generic)) and np.asarray(a).dtype.kind == "f":
            a = np.asarray(a)
            im = rng.uniform(-1.0, 1.0, a.shape)
            out.append(np.asarray(a + 1j * im, np.complex64))
        else:
            out.append(a)
    return out


def _tuple(o):
    return tuple(o) if isinstance(o, (tuple, list)) else (o,)


def _inexact(o):
    return jnp.issubdtype(o.dtype, jnp.inexact)


def _cases():
    out = []
    for name in sorted(_REGISTRY):
        op = _REGISTRY[name]
        if op.samples is None or name in NO_COMPLEX:
            continue
        # one sample per op (the first that supports complex values): every op, within make test's time
        for i, (args, static) in enumerate(op.samples()):
            if f"{name}-sample{i}" not in NO_COMPLEX:
                out.append(pytest.param(op, tuple(args), dict(static), id=f"{name}-sample{i}"))
                break
    return out


def test_no_complex_list_names_registered_ops():
    for name in NO_COMPLEX:
        assert name.split("-sample")[0] in _REGISTRY, name


@pytest.mark.parametrize("op,args,static", _cases())
def test_op_complex_gradient_is_tf_convention(op, args, static):
    cargs = _complex_args(op, args, static)
    diff = tuple(i for i, a in enumerate(cargs) if isinstance(a, np.ndarray) and a.dtype.kind == "c")
    if not diff:
        pytest.skip("no float input")
    raw = [jax.device_put(a) if isinstance(a, np.ndarray) else a for a in cargs]
    outs = [o for o in _tuple(op.fn(*raw, **static)) if _inexact(o)]
    if not outs:
        pytest.skip("no float output")
    rng = np.random.default_rng(7)
    shifts = [np.asarray(rng.standard_normal(o.shape) + 1j * rng.standard_normal(o.shape), np.complex64)
              for o in outs]

    def f_raw(*d):  # op.fn's inexact outputs as a function of the differentiated arguments
        full_raw = list(raw)
        for i, v in zip(diff, d):
            full_raw[i] = v
        return tuple(o for o in _tuple(op.fn(*full_raw, **static)) if _inexact(o))

    def loss_raw(*d):
        return sum(jnp.sum(jnp.abs(o + s) ** 2) for o, s in zip(f_raw(*d), shifts))

    primals = tuple(raw[i] for i in diff)
    tangents = [np.asarray(rng.standard_normal(p.shape) + 1j * rng.standard_normal(p.shape), np.complex64)
                for p in primals]

    # JAX's references as one compiled program (run op by op, each primitive and shape would be a program)
    def references(primals, tangents):
        return (jax.grad(loss_raw, argnums=tuple(range(len(diff))))(*primals),
                jax.jvp(f_raw, primals, tangents)[1])
    try:
        grads_jax, expected_t = jax.jit(references)(primals, tuple(jax.device_put(t) for t in tangents))
        expected = [np.conj(g) for g in grads_jax]
    except TypeError as e:
        if "complex" not in str(e):
            raise
        # jax 0.11+ has no complex derivative for maximum, minimum, relu, relu6, softmax, log_softmax and sparse
        # softmax cross-entropy (their comparisons refuse complex values; tapejax's rules do not compare them)
        expected, expected_t = _differences(f_raw, loss_raw, primals, tangents)

    srcs = [tj.constant(cargs[i]) for i in diff]
    full = list(cargs)
    for i, s in zip(diff, srcs):
        full[i] = s
    with tj.GradientTape() as tape:
        tape.watch(srcs)
        got_outs = [o for o in _tuple(op(*full, **static)) if _inexact(o)]
        loss = sum(tnp.sum(tnp.abs(o + s) ** 2) for o, s in zip(got_outs, shifts))
    grads = tape.gradient(loss, srcs)
    for i, (g, e) in enumerate(zip(grads, expected)):
        assert g is not None, f"{op.name}: no gradient for argument {diff[i]}"
        assert g.dtype == srcs[i].dtype
        close_scaled(g, e, f"{op.name}: gradient of arg {diff[i]} vs conj(jax.grad)", dtype=np.complex128)

    # Forward mode is the same in both conventions: the accumulator's tangents equal jax.jvp's.
    with tj.ForwardAccumulator(srcs, [tj.constant(t) for t in tangents]) as acc:
        res = [o for o in _tuple(op(*full, **static)) if _inexact(o)]
    for k, (t, e) in enumerate(zip(acc.jvp(res), expected_t)):
        if t is None:  # (an output TF's gradient function ignores, batch_norm's moments: a None tangent, as TF's)
            assert not np.any(np.asarray(e)), (op.name, k)
            continue
        assert t.dtype == e.dtype, (op.name, k, t, e.dtype)
        close_scaled(t, e, f"{op.name}: tangent of output {k} vs jax.jvp", dtype=np.complex128)


# -- named cases -------------------------------------------------------------------------------------------

def _z():
    return tj.constant(np.array([1 + 2j, 3 - 1j], np.complex64))


def _fd_gradient(f, z, eps=1e-3):
    """TF's convention by central differences: dL/dx + i dL/dy, element by element (float64)."""
    z = np.asarray(z, np.complex128)
    g = np.zeros_like(z)
    for k in np.ndindex(z.shape):
        for unit, part in ((1.0, 1.0), (1j, 1j)):
            dz = np.zeros_like(z)
            dz[k] = unit * eps
            g[k] += part * (f(z + dz) - f(z - dz)) / (2 * eps)
    return g


def _differences(f, loss, primals, tangents, eps=1e-6):
    """What the test asks of jax.grad (in TF's convention) and jax.jvp, by central differences in complex128."""
    with jax.enable_x64(True):
        p = [np.asarray(a, np.complex128) for a in primals]
        grads = [_fd_gradient(lambda z, i=i: float(loss(*p[:i], z, *p[i + 1:])), p[i], eps) for i in range(len(p))]
        ahead = f(*[a + eps * t for a, t in zip(p, tangents)])
        behind = f(*[a - eps * t for a, t in zip(p, tangents)])
        tangents_out = [((np.asarray(y1) - np.asarray(y0)) / (2 * eps)).astype(np.asarray(y).dtype)
                        for y1, y0, y in zip(ahead, behind, f(*primals))]
    return grads, tangents_out


def test_issue_example_abs_of_square():
    """Issue 13: sum(abs(z*z)) gave 2z^3/|z|^2 (abs used TF's rule, multiply JAX's); TF gives 2z."""
    z = _z()
    with tj.GradientTape() as tape:
        tape.watch(z)
        loss = tnp.sum(tnp.abs(z * z))
    np.testing.assert_allclose(tape.gradient(loss, z).numpy(), 2 * z.numpy(), rtol=1e-6)
    ref = np.conj(jax.grad(lambda v: jnp.sum(jnp.abs(v * v)))(z.value))
    np.testing.assert_allclose(ref, 2 * z.numpy(), rtol=1e-6)


def test_abs_squared_gives_2z():
    """API.md's example: sum(abs(z)**2) has gradient 2*z."""
    z = _z()
    with tj.GradientTape() as tape:
        tape.watch(z)
        loss = tnp.sum(tnp.abs(z) ** 2)
    np.testing.assert_allclose(tape.gradient(loss, z).numpy(), 2 * z.numpy(), rtol=1e-6)


def test_complex_abs_matches_finite_differences():
    """math_grad_test.AbsOpTest.testComplexAbs: the tape's gradient of abs on complex64 agrees with
    numerical differentiation (TF's convention: dL/dx + i dL/dy), away from 0 and near it."""
    rng = np.random.default_rng(7)
    for sigma, bias in ((1.0, 0.1), (0.1, 0.0)):
        re, im = rng.standard_normal((2, 3, 3)) * sigma
        v = (re + np.sign(re) * bias) + 1j * (im + np.sign(im) * bias)
        w = rng.standard_normal((3, 3))  # a random real weighting of the outputs
        z = tj.constant(v.astype(np.complex64))
        with tj.GradientTape() as tape:
            tape.watch(z)
            loss = tnp.sum(tnp.abs(z) * w.astype(np.float32))
        expected = _fd_gradient(lambda u: np.sum(np.abs(u) * w), v, eps=1e-5 * sigma)
        np.testing.assert_allclose(tape.gradient(loss, z).numpy(), expected, rtol=2e-3, atol=2e-4)


@pytest.mark.parametrize("axis", [None, -1])
def test_complex_prod_matches_finite_differences(axis):
    """math_grad_test.ProdGradientTest.testProdGradientComplex / testProdGradientForNegativeAxisComplex."""
    v = np.array([[1 + 3j, 2 - 1j], [3j, 4]], np.complex128)
    c = np.array([0.5 - 1j, 2 + 0.25j])[: 1 if axis is None else 2]  # random-ish complex output weights

    def loss_np(u):
        p = np.prod(u) if axis is None else np.prod(u, axis=axis)
        return float(np.sum(np.abs(p + c) ** 2))
    for dtype in (np.complex64, np.complex128):
        if dtype == np.complex128 and not jax.config.jax_enable_x64:
            continue
        z = tj.constant(v.astype(dtype))
        with tj.GradientTape() as tape:
            tape.watch(z)
            p = tnp.prod(z, axis=axis)
            loss = tnp.sum(tnp.abs(p + c.astype(dtype)) ** 2)
        np.testing.assert_allclose(tape.gradient(loss, z).numpy(), _fd_gradient(loss_np, v), rtol=1e-3, atol=1e-3)


def test_holomorphic_target_gets_conjugate_derivative():
    """A complex target's default output gradient is 1 (as TF), so d(z*z) gives conj(2z)."""
    z = _z()
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(z)
        y = z * z
        e = tnp.exp(z)
    np.testing.assert_allclose(tape.gradient(y, z).numpy(), np.conj(2 * z.numpy()), rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(e, z).numpy(), np.conj(np.exp(z.numpy())), rtol=1e-6)


def test_real_input_of_complex_product_gets_real_gradient():
    """multiply(real x, complex y): x's gradient is real (the real part of TF's complex gradient)."""
    x = tj.constant([0.5, -2.0])
    y = _z()
    with tj.GradientTape() as tape:
        tape.watch([x, y])
        loss = tnp.sum(tnp.abs(x * y) ** 2)
    gx, gy = tape.gradient(loss, [x, y])
    assert gx.dtype == jnp.float32 and gy.dtype == jnp.complex64
    xv, yv = x.numpy(), y.numpy()
    np.testing.assert_allclose(gx.numpy(), 2 * xv * np.abs(yv) ** 2, rtol=1e-6)
    np.testing.assert_allclose(gy.numpy(), 2 * xv ** 2 * yv, rtol=1e-6)


def test_cast_between_real_and_complex():
    """astype float -> complex -> float: gradients are the real part, in TF's convention both ways."""
    x = tj.constant([0.5, -2.0])
    with tj.GradientTape() as tape:
        tape.watch(x)
        z = x.astype(jnp.complex64) * tj.constant(np.array([1j, 1 + 1j], np.complex64))
        loss = tnp.sum(tnp.abs(z) ** 2)
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), 2 * x.numpy() * np.array([1.0, 2.0]), rtol=1e-6)


def _loss_fn(z, w):
    return tnp.sum(tnp.abs(tnp.sin(z) * w + tnp.exp(z) @ tnp.transpose(w)) ** 2)


def _loss_raw(z, w):
    return jnp.sum(jnp.abs(jnp.sin(z) * w + jnp.exp(z) @ w.T) ** 2)


def _zw():
    rng = np.random.default_rng(3)
    z = (rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))).astype(np.complex64)
    w = (rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))).astype(np.complex64)
    return z, w


def test_every_path_agrees_on_complex_gradients():
    """Eager tape, a tape inside tj.function, tj.gradients inside tj.function, an outer tape over a
    tj.function call: all give conj(jax.grad) (gradients_test / function_gradients_test analogues)."""
    zv, wv = _zw()
    expected = [np.conj(g) for g in jax.grad(_loss_raw, argnums=(0, 1))(jnp.asarray(zv), jnp.asarray(wv))]
    z, w = tj.constant(zv), tj.constant(wv)

    with tj.GradientTape() as tape:
        tape.watch([z, w])
        loss = _loss_fn(z, w)
    eager = tape.gradient(loss, [z, w])

    @tj.function
    def with_tape(z, w):
        with tj.GradientTape() as t:
            t.watch([z, w])
            loss = _loss_fn(z, w)
        return t.gradient(loss, [z, w])

    @tj.function
    def with_gradients(z, w):
        return tj.gradients(_loss_fn(z, w), [z, w])

    loss_fn = tj.function(_loss_fn)
    with tj.GradientTape() as outer:
        outer.watch([z, w])
        loss = loss_fn(z, w)
    over_function = outer.gradient(loss, [z, w])

    for name, got in (("eager", eager), ("tape in tj.function", with_tape(z, w)),
                      ("tj.gradients", with_gradients(z, w)), ("outer tape over tj.function", over_function)):
        for g, e in zip(got, expected):
            close_scaled(g, e, name, dtype=np.complex128)


def test_second_order_complex():
    """Differentiating a complex gradient again (nested tapes) follows the convention at each level."""
    zv = np.array([0.3 + 0.7j, -1.1 + 0.2j], np.complex64)

    def inner_raw(v):
        return jnp.sum(jnp.abs(jnp.sin(v) * v) ** 2)

    def outer_raw(v):
        return jnp.sum(jnp.abs(jnp.conj(jax.grad(inner_raw)(v))) ** 2)
    expected = np.conj(jax.grad(outer_raw)(jnp.asarray(zv)))
    z = tj.constant(zv)
    with tj.GradientTape() as outer:
        outer.watch(z)
        with tj.GradientTape() as inner:
            inner.watch(z)
            loss = tnp.sum(tnp.abs(tnp.sin(z) * z) ** 2)
        g = inner.gradient(loss, z)
        loss2 = tnp.sum(tnp.abs(g) ** 2)
    close_scaled(outer.gradient(loss2, z), expected, "second order", dtype=np.complex128)


def test_custom_vjp_op_tangent_is_unchanged():
    """A tj.op with only a (TF-convention) vjp: its JVP, the transpose of that vjp, is the true tangent."""
    c = np.complex64(0.5 - 2j)

    @tj.op(vjp=lambda primals, cts: (cts * np.conj(c),))  # TF: grad * conj(d(c*z)/dz)
    def scale(z):
        return z * c

    z = _z()
    t = np.array([1 - 1j, 0.5j], np.complex64)
    with tj.ForwardAccumulator(z, tj.constant(t)) as acc:
        y = scale(z)
    np.testing.assert_allclose(acc.jvp(y).numpy(), c * t, rtol=1e-6)
    with tj.GradientTape() as tape:
        tape.watch(z)
        loss = tnp.sum(tnp.abs(scale(z)) ** 2)
    np.testing.assert_allclose(tape.gradient(loss, z).numpy(), 2 * abs(c) ** 2 * z.numpy(), rtol=1e-5)


def test_abs_tangent_is_real():
    """Forward mode of abs on complex: d|z| = real(conj(z) dz)/|z| (a real tangent for a real output)."""
    z = _z()
    t = np.array([1 - 1j, 0.5j], np.complex64)
    with tj.ForwardAccumulator(z, tj.constant(t)) as acc:
        y = tnp.abs(z)
    tangent = acc.jvp(y)
    assert tangent.dtype == jnp.float32
    zv = z.numpy()
    np.testing.assert_allclose(tangent.numpy(), np.real(np.conj(zv) * t) / np.abs(zv), rtol=1e-6)


def test_tf_gradients_of_complex_target_needs_grad_ys():
    """As TF's tf.gradients: a complex target without grad_ys is a TypeError; with grad_ys it follows
    the convention (d(z*z) with grad_ys 1 is conj(2z))."""
    z = _z()

    @tj.function
    def no_grad_ys(z):
        return tj.gradients(z * z, [z])

    @tj.function
    def with_grad_ys(z):
        return tj.gradients(z * z, [z], grad_ys=[tj.constant(np.ones(2, np.complex64))])

    with pytest.raises(TypeError, match="complex tensors.*must set grad_ys"):  # TF's wording
        no_grad_ys(z)
    np.testing.assert_allclose(with_grad_ys(z)[0].numpy(), np.conj(2 * z.numpy()), rtol=1e-6)


def test_custom_gradient_complex_both_modes():
    """tj.custom_gradient's grad_fn is TF-convention (grad * conj(c) for z * c); its forward mode (the
    transpose of grad_fn) still gives the true tangent c * t."""
    c = np.complex64(0.5 - 2j)

    @tj.custom_gradient
    def scale(z):
        return z * c, lambda dy: dy * np.conj(c)

    z = _z()
    t = np.array([1 - 1j, 0.5j], np.complex64)
    with tj.ForwardAccumulator(z, tj.constant(t)) as acc:
        y = scale(z)
    np.testing.assert_allclose(acc.jvp(y).numpy(), c * t, rtol=1e-6)
    with tj.GradientTape() as tape:
        tape.watch(z)
        loss = tnp.sum(tnp.abs(scale(z)) ** 2)
    np.testing.assert_allclose(tape.gradient(loss, z).numpy(), 2 * abs(c) ** 2 * z.numpy(), rtol=1e-5)


def test_complex_parts_are_recorded_ops_with_tf_gradients():
    # TF 2.21 (tf.math.real / imag / angle, RealGrad / ImagGrad / AngleGrad) for sum(part(z) * w):
    z = tj.constant(np.array([1 + 2j, -0.5 + 0.25j], np.complex64))
    w = tj.constant([0.5, -2.0])
    expected = {"real": [0.5, -2.0], "imag": [0.5j, -2j], "angle": [-0.2 + 0.1j, 1.6 + 3.2j]}
    for name, want in expected.items():
        with tj.GradientTape() as tape:
            tape.watch(z)
            y = tnp.sum(getattr(tnp, name)(z) * w)
        np.testing.assert_allclose(tape.gradient(y, z).numpy(), np.asarray(want, np.complex64), rtol=1e-6, atol=1e-7)
    # conj was jax.numpy's function on the raw array: no op recorded, the gradient None
    with tj.GradientTape() as tape:
        tape.watch(z)
        y = tnp.sum(tnp.abs(tnp.conj(z)) ** 2)
    np.testing.assert_allclose(tape.gradient(y, z).numpy(), 2 * z.numpy(), rtol=1e-6)
    assert tnp.conjugate is tnp.conj
    with tj.GradientTape() as tape:  # the jax.Array-style attributes are the same ops
        tape.watch(z)
        y = tnp.sum(z.real * w + z.imag * w + tnp.abs(z.conj()) ** 2)
    np.testing.assert_allclose(tape.gradient(y, z).numpy(), np.asarray([0.5, -2.0]) + np.asarray([0.5j, -2j])
                               + 2 * z.numpy(), rtol=1e-6)
    # forward mode: the tangent's part
    t = tj.constant(np.array([0.5 - 1j, 2 + 0.5j], np.complex64))
    with tj.ForwardAccumulator(z, t) as acc:
        parts = [tnp.real(z), tnp.imag(z), tnp.conj(z)]
    for got, want in zip(acc.jvp(parts), [t.numpy().real, t.numpy().imag, np.conj(t.numpy())]):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


def test_abs_at_zero_meeting_an_infinite_gradient():
    """TF's complex abs gradient is div_no_nan(g * z, |z|): 0 at z = 0 even where g is inf (sqrt(|z|)'s
    gradient there); tapejax gave NaN. TF 2.21 values: [0, 0.2973018+0.2973018j], also through norm(ord=1). In
    forward mode |z|'s tangent at 0 is 0 whatever the tangent, so sqrt's is 0 (API.md's rule: TF gives NaN)."""
    z = tj.constant(np.array([0j, 1 + 1j], np.complex64))
    want = np.array([0, 0.2973018 + 0.2973018j], np.complex64)
    for loss in (lambda z: tnp.sum(tnp.sqrt(tnp.abs(z))), lambda z: tnp.sqrt(tnp.linalg.norm(z, ord=1))):
        with tj.GradientTape() as tape:
            tape.watch(z)
            y = loss(z)
        np.testing.assert_allclose(tape.gradient(y, z).numpy(), want, rtol=1e-6)
    with tj.ForwardAccumulator(z, tj.constant(np.array([1, 1j], np.complex64))) as acc:
        y = tnp.sqrt(tnp.abs(z))
    np.testing.assert_allclose(acc.jvp(y).numpy(), [0, 0.2973018], rtol=1e-6)
    x = tj.constant(np.array([0.0, 1.0], np.float32))  # float abs is TF's g * sign(x): inf * 0 is NaN there too
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.sum(tnp.sqrt(tnp.abs(x)))
    np.testing.assert_array_equal(np.isnan(tape.gradient(y, x).numpy()), [True, False])


def _second_order(loss, z0, weights):
    """The gradient of ``sum(real(g * weights))``, ``g`` the gradient of ``loss(z)`` at ``z0``: nested tapes whose
    outer output gradients are ``conj(weights)`` (TF's convention for a complex target)."""
    weights = np.full(np.shape(z0), np.conj(weights), np.complex64)
    return nested_tape_gradients(loss, z0, outer_gradients=weights)[2].numpy()


def _abs_second_order(z0, scale, weights):
    """``_second_order`` of ``sum(3 * |scale * z|)``."""
    return _second_order(lambda z: tnp.sum(tnp.abs(z * scale) * 3.0), z0, weights)


def test_second_order_of_abs_of_a_tiny_complex_value_is_finite():
    """The complex sign in abs's gradient was z / |z| with JAX's derivative of the quotient, which takes |z| ** 2:
    below |z| ~ 1e-19 that underflows to 0 in float32, and the second order of abs was NaN (tf_complex_differential
    seed 901226: the second order through |z ** z| ** 2 where z ** z is 1e-23, NaN where TF gives 0). Its derivative
    is now TF's (div_no_nan(z, |z|): each quotient by |z| taken once). |scale * z| is homogeneous, so the second
    order at scale c is c times the one at scale 1; that one equals TF 2.21's values (at 0: 0, as div_no_nan)."""
    z0 = np.array([-13.158356 + 8.260051j, -6.4382557 + 14.347303j, 3.6596088 - 2.2948191j, 0j], np.complex64)
    weights = np.complex64(1 + 2j)
    at_one = _abs_second_order(z0, 1.0, weights)
    tf_2_21 = np.array([-0.1193203 - 0.19007865j, 0.01627856 + 0.00730494j, -0.42916423 - 0.6843998j, 0], np.complex64)
    np.testing.assert_allclose(at_one, tf_2_21, rtol=2e-6, atol=1e-7)
    for scale in (1e-25, 1e20):
        got = _abs_second_order(z0, scale, weights)
        assert np.all(np.isfinite(got)), (scale, got)
        np.testing.assert_allclose(got, at_one * np.float32(scale), rtol=1e-5, atol=0)
    # the campaign's program, reduced: z ** z of about 1e-23 to 1e-26 (TF: 0 at both)
    np.testing.assert_array_equal(_second_order(lambda z: tnp.sum(tnp.abs(tnp.power(z, z)) ** 2), z0[:2], 1.0),
                                  [0, 0])


def test_complex_zero_to_a_power_with_positive_real_part_is_zero():
    """0j ** w is 0 for real(w) > 0, as TF and NumPy (JAX's exp(w log 0) is NaN for a non-real w), and its
    gradients are TF 2.21's: d/dw 0 there, d/dz 0 where real(w) > 1."""
    x = tj.constant(np.array([0j, 0j, 2], np.complex64))
    w = tj.constant(np.array([0.5 + 0.5j, 3 + 1j, 3 + 1j], np.complex64))
    with tj.GradientTape(persistent=True) as tape:
        tape.watch([x, w])
        p = x ** w
        loss = tnp.sum(tnp.real(p))
    np.testing.assert_allclose(p.numpy(), [0, 0, 6.153911 + 5.11169j], rtol=1e-5)
    np.testing.assert_allclose(tape.gradient(loss, x).numpy()[1:], [0, 6.675021 - 10.744491j], rtol=1e-5)
    np.testing.assert_allclose(tape.gradient(loss, w).numpy(), [0, 0, 4.2655663 - 3.5431535j], rtol=1e-5)
    inverse = complex(tnp.power(tj.constant(np.complex64(0)), -1.0 + 0j).numpy())  # TF's inf+nanj (NumPy: NaN)
    assert inverse.real == np.inf and np.isnan(inverse.imag)


def test_complex_power_with_infinite_or_overflowing_arguments_is_c99():
    """TF's complex Pow is C99's cpow (cexp(w * clog(z)) with Annex G's infinities); XLA's plain complex
    arithmetic gave NaN. Expected values: TF 2.21's, complex64; tf_complex_differential
    seeds 1594, 1853 ((log 0) ** (log 0), TF 0) and 1812 (an overflow, TF inf)."""
    inf = np.inf
    z = [complex(-inf, 0), complex(-inf, -0.0), complex(0.5, 0), complex(2, 0), complex(1e30, 1e30), complex(-inf, 0),
         complex(inf, 0)]
    w = [complex(-inf, 0), complex(-inf, 0), complex(inf, 0), complex(inf, 0), complex(3, 0), complex(0.5, 0),
         complex(2, 0)]
    want = [0, 0, 0, complex(inf, np.nan), complex(-inf, inf), complex(inf, np.nan), complex(inf, np.nan)]
    got = tnp.power(tj.constant(np.array(z, np.complex64)), tj.constant(np.array(w, np.complex64))).numpy()
    np.testing.assert_array_equal(got, np.array(want, np.complex64))
    # finite arguments keep their value (to float32 rounding) and TF's z ** 0 == 1 for every z
    x = np.array([1 + 2j, -3 + 0.5j, 0.25j], np.complex64)
    y = np.array([0.5 - 1j, 2 + 0j, -1.5 + 2j], np.complex64)
    np.testing.assert_allclose(tnp.power(tj.constant(x), tj.constant(y)).numpy(),
                               np.power(x.astype(np.complex128), y.astype(np.complex128)), rtol=2e-6)
    np.testing.assert_array_equal(tnp.power(tj.constant(np.array([complex(inf, 0), complex(np.nan, 0), 0j],
                                                                  np.complex64)), 0j).numpy(), [1, 1, 1])


def test_complex_zero_to_a_power_has_tf_s_signs_of_zero():
    """TF's complex Pow is glibc's cpow at every size: cexp of w * log(0) = -inf + (+-inf) i is +0 +- 0i, and
    inf + NaN i for real(w) < 0 (the signs of glibc's cexp, where TF's Exp kernel on whole vector packets gives
    -0 -+ 0i and +-inf + NaN i). Expected values: TF 2.21's, complex64; tf_complex_differential seed 914488
    (the angle of 0j ** (0.5 + 0.5j): TF -0, tapejax pi before)."""
    inf, nan = np.inf, np.nan
    w = np.array([0.5 + 0.5j, 0.5 - 0.5j, 2 + 1j, 1.5 - 1.5j, -1.5 + 0.5j, -1.5 - 1.5j], np.complex64)
    want = np.array([complex(0, -0.0), 0j, complex(0, -0.0), 0j, complex(inf, nan), complex(inf, nan)],
                    np.complex64)
    for base in (0j, complex(-0.0, 0), complex(0, -0.0)):
        got = tnp.power(tj.constant(np.full(w.shape, base, np.complex64)), tj.constant(w)).numpy()
        assert _same_bits(got, want).all(), (base, got)
    angle = tnp.angle(tnp.power(tj.constant(np.zeros(4, np.complex64)), 0.5 + 0.5j)).numpy()
    assert np.all(angle == 0) and np.all(np.signbit(angle)), angle


def _same_bits(got, want) -> np.ndarray:
    """Elementwise: the same value in each part, NaN where the other is NaN, and the same sign of zero."""
    ok = np.ones(got.shape, bool)
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        ok &= np.where(np.isnan(w), np.isnan(g), (g == w) & (np.signbit(g) == np.signbit(w)))
    return ok


# TF 2.21's exp (Eigen's) where C99 leaves a sign unspecified and glibc's (NumPy's) chooses another
TF_EXP = {complex(np.inf, -np.inf): complex(-np.inf, np.nan), complex(-np.inf, np.inf): complex(-0.0, -0.0),
          complex(-np.inf, -np.inf): complex(-0.0, 0.0)}


def gradient_at_a_finite_point_is_jax_s_conjugate(name):
    """First order of ``tnp.<name>`` at a finite point: the derivative of the same function (sin' = cos),
    conjugated as TF."""
    x = tj.constant(np.array([0.5 - 1.25j], np.complex64))
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.real(getattr(tnp, name)(x))
    want_grad = np.conj(jax.grad(lambda v: jnp.real(getattr(jnp, name)(v)).sum())(x.value))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), want_grad, rtol=1e-5)


@pytest.mark.parametrize("name", ["exp", "sin", "cos", "tan", "sinh", "cosh", "tanh", "abs"])
def test_elementary_functions_at_infinite_and_nan_parts_are_c99s(name):
    """C99 Annex G's special values (glibc's, which TF's kernels call through std::complex; NumPy's too), signs of
    zeros included: cos(inf + 0i) is NaN + 0i, cosh(0 + inf i) NaN + 0i, tanh(inf + NaN i) 1 + 0i, sinh(-inf + inf
    i) inf + NaN i, abs(inf + NaN i) inf, where XLA's formulas gave NaN in both parts (tf_complex_differential's
    FOUND cases of sessions 89-103). Finite arguments keep their values; the derivatives read the same functions."""
    parts = [0.0, -0.0, 1.5, -1.5, 1e-30, np.inf, -np.inf, np.nan]
    z = np.array([complex(a, b) for a in parts for b in parts], np.complex64)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(z)
    if name == "exp":
        want = np.array([TF_EXP.get(complex(v), w) for v, w in zip(z, want)], np.complex64)
    got = getattr(tnp, name)(tj.constant(z)).numpy()
    finite = np.isfinite(z)
    assert got.dtype == want.dtype
    special = _same_bits(np.asarray(got[~finite], np.complex64), np.asarray(want[~finite], np.complex64))
    assert special.all(), [(z[~finite][i], got[~finite][i], want[~finite][i]) for i in np.flatnonzero(~special)]
    np.testing.assert_allclose(got[finite], want[finite], rtol=3e-7, atol=0)
    gradient_at_a_finite_point_is_jax_s_conjugate(name)


@pytest.mark.parametrize("name", ["arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh"])
def test_inverse_functions_take_the_side_of_a_branch_cut_from_the_sign_of_zero(name):
    """C99 (NumPy, and TF 2.21's kernels: checked on this grid) puts an argument on a branch cut on the side its zero
    part's sign says: arcsin(1.5 - 0i) is pi/2 - 0.962i, arcsin(1.5 + 0i) pi/2 + 0.962i, arcsinh(-0 + 1.5i) is
    -0.962 + pi/2 i, arccosh(-1.5 - 0i) 0.962 - pi i; XLA's formulas read -0 as +0 (session 105's grid against TF:
    4 such values per function). Finite arguments, signs of zero included; the derivative is the op's own rule."""
    parts = [0.0, -0.0, 0.5, -0.5, 1.5, -1.5]
    z = np.zeros(len(parts) ** 2, np.complex64)
    z.real[:] = [a for a in parts for _ in parts]  # (set part by part: complex(a, b) arithmetic would lose -0.0)
    z.imag[:] = [b for _ in parts for b in parts]
    want = getattr(np, name)(z.astype(np.complex128)).astype(np.complex64)
    got = getattr(tnp, name)(tj.constant(z)).numpy()
    assert got.dtype == want.dtype
    for part in (np.real, np.imag):
        g, w = part(got), part(want)
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=0, err_msg=f"{part.__name__} of {name}")
        side = np.signbit(g) == np.signbit(w)
        assert side.all(), [(z[i], got[i], want[i]) for i in np.flatnonzero(~side)]
    gradient_at_a_finite_point_is_jax_s_conjugate(name)


def test_sqrt_of_a_negative_real_with_negative_zero_imaginary_part():
    """C99's csqrt, as NumPy and TF's vectorized kernel: sqrt(-1 - 0j) is -1j (the root takes the sign of the
    imaginary part, also of -0); XLA's gives +1j (and so does TF's scalar path: TF 2.21 gives -1j for the first
    4 elements of an array, +1j past them). tf_complex_differential seeds 1186 and 1395."""
    z = np.array([complex(-1, -0.0), complex(-1, 0.0), complex(-np.inf, -0.0), -3 - 4j], np.complex64)
    got = tnp.sqrt(tj.constant(z)).numpy()
    np.testing.assert_array_equal(got, np.sqrt(z))
    assert np.signbit(tnp.sqrt(tj.constant(np.complex64(complex(0, -0.0)))).numpy().imag)
    x = tj.constant(z[:2])
    # the gradient is TF's SqrtGrad of the root returned, (1 + 1j) * 0.5 / conj(y): 0.5-0.5j at y = -1j (TF 2.21's
    # raw_ops.SqrtGrad gives that for y = -1j, and -0.5+0.5j for its scalar path's y = +1j)
    with tj.GradientTape() as tape:
        tape.watch(x)
        root = tnp.sqrt(x)
        loss = tnp.sum(tnp.real(root) + tnp.imag(root))
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), [0.5 - 0.5j, -0.5 + 0.5j], rtol=1e-6)


def test_dot_product_attention_refuses_complex_arguments():
    """jax.nn.dot_product_attention casts complex logits to real (dropping the imaginary part, with a
    DeprecationWarning that it will raise): tapejax refuses complex arguments with a TypeError naming them, eagerly,
    under a tape and inside tj.function, and real ones still work."""
    rng = np.random.default_rng(0)
    real = rng.standard_normal((1, 3, 2, 4)).astype(np.float32)
    z = (real + 1j * rng.standard_normal(real.shape)).astype(np.complex64)
    with pytest.raises(TypeError, match=r"dot_product_attention.*query, key complex"):
        tj.nn.dot_product_attention(z, z, real)
    with pytest.raises(TypeError, match=r"dot_product_attention.*value complex"):
        with tj.GradientTape() as tape:
            v = tj.constant(z)
            tape.watch(v)
            tj.nn.dot_product_attention(real, real, v)
    with pytest.raises(TypeError, match=r"dot_product_attention.*bias complex"):
        tj.function(lambda q, b: tj.nn.dot_product_attention(q, q, q, bias=b))(
            tj.constant(real), tj.constant(np.ones((1, 2, 3, 3), np.complex64)))
    np.testing.assert_allclose(tj.nn.dot_product_attention(real, real, real).numpy(),
                               jax.nn.dot_product_attention(real, real, real), rtol=1e-6, atol=1e-6)


def test_random_draws_refuse_complex_parameters():
    """A random draw's parameters are real, as TF's kernels (which raise for a complex one); jax.random's truncated
    normal cast complex bounds to real, dropping the imaginary part, with a ComplexWarning. A TypeError naming the op,
    for the bounds of both truncated normals and for an implicitly differentiated draw's parameter; complex draws
    themselves (a complex dtype) and draws affine in their parameters (double_sided_maxwell) stay jax's."""
    k = tj.random.key(0)
    z = np.complex64(-1 + 1j)
    for name, f in (("random_truncated_normal_bounds", lambda: tj.random.truncated_normal(k, z, 1.0)),
                    ("random_truncated_normal_bounds", lambda: tj.random.truncated_normal(k, -1.0, tj.constant(z))),
                    ("random_gamma", lambda: tj.random.gamma(k, np.complex64(2 + 1j)))):
        with pytest.raises(TypeError, match=f"'{name}'.*parameters are real numbers, and one is complex"):
            f()
    op = tj.ops.core.registry()["random_parameterized_truncated_normal"]
    with pytest.raises(TypeError, match="parameters are real numbers"):
        op(np.complex64(-1), np.float32(1), jax.random.key(0), shape=None, dtype=None, out_sharding=None)
    draws = tj.random.normal(k, (3,), dtype="complex64")
    np.testing.assert_array_equal(draws.numpy(), jax.random.normal(jax.random.key(0), (3,), "complex64"))
    np.testing.assert_allclose(tj.random.double_sided_maxwell(k, z, 2.0, (2,)).numpy(),
                               jax.random.double_sided_maxwell(jax.random.key(0), z, 2.0, (2,)), rtol=1e-6)


@pytest.mark.parametrize("join", ["concatenate", "hstack", "append", "stack"])
def test_joining_mixed_dtypes_gives_each_input_its_own_dtype_of_gradient(join):
    """conj(jax.grad) of sum(3 imag(y) + real(y)) w.r.t. the real half of concatenate([complex, real]) is float32 [1, 1];
    tj's concatenate (and all joins built on it) gave complex64 [1+3j, 1+3j], and a float32 gradient for the float16
    input of concatenate([float16, float32]) (TF's and jax's: float16). stack was right."""
    tnp = tj.numpy
    c = np.array([1 + 2j, 3 - 1j], np.complex64)
    r = tj.constant(np.float32([0.5, -1.5]))
    fn = getattr(tnp, join)
    with tj.GradientTape() as tape:
        tape.watch(r)
        y = fn(c, r) if join == "append" else fn([c, r])
        loss = tnp.sum(tnp.imag(y) * 3.0 + tnp.real(y))
    g = tape.gradient(loss, r)
    want = jax.grad(lambda x: jnp.sum(jnp.imag(jnp.concatenate([c, x])) * 3.0 + jnp.real(jnp.concatenate([c, x]))))(
        np.float32([0.5, -1.5]))
    assert g.dtype == np.float32
    np.testing.assert_allclose(g.numpy(), np.conj(want))
    h = tj.constant(np.float16([1.0, 2.0]))
    with tj.GradientTape() as tape:
        tape.watch(h)
        y = fn(h, np.float32([3.0])) if join == "append" else fn([h, np.float32([3.0, 4.0])])
        loss = tnp.sum(y * 2.0)
    assert tape.gradient(loss, h).dtype == np.float16


def test_gradients_at_complex_zero_are_tf_infinities():
    """TF 2.21 at z = [0j, 1+1j] (complex64), gradient with output_gradients ones / JVP with tangent ones:
    sqrt [inf+nanj, 0.3884435+0.16089854j] / [inf+nanj, 0.3884435-0.16089854j]; log [inf+nanj, 0.5+0.5j] /
    [inf+nanj, 0.5-0.5j]; reciprocal [-inf+nanj, 0-0.5j] / [-inf+nanj, 0+0.5j]; rsqrt [-inf+nanj,
    -0.1137725-0.27467108j] / [-inf+nanj, -0.1137725+0.27467108j]; log1p at -1+0j: inf+nanj. TF's kernels multiply
    with std::complex (C99: 1 * (inf+nanj) is inf+nanj); tapejax gave nan+nanj at 0j (XLA's plain product)."""
    z = tj.constant(np.array([0j, 1 + 1j], np.complex64))
    cases = [(tnp.sqrt, np.inf, [0.3884435 + 0.16089854j, 0.3884435 - 0.16089854j]),
             (tnp.log, np.inf, [0.5 + 0.5j, 0.5 - 0.5j]),
             (tnp.reciprocal, -np.inf, [-0.5j, 0.5j]),
             (tnp.rsqrt, -np.inf, [-0.1137725 - 0.27467108j, -0.1137725 + 0.27467108j]),
             (lambda v: tnp.log1p(v - 1), np.inf, [0.5 + 0.5j, 0.5 - 0.5j])]
    for f, at_zero, (grad_one, jvp_one) in cases:
        with tj.GradientTape() as tape:
            tape.watch(z)
            y = f(z)
        g = tape.gradient(y, z, output_gradients=tnp.ones_like(y)).numpy()
        with tj.ForwardAccumulator(z, tnp.ones_like(z)) as acc:
            t = acc.jvp(f(z)).numpy()
        for got, one in ((g, grad_one), (t, jvp_one)):
            assert got[0].real == at_zero and np.isnan(got[0].imag), (f, got)
            np.testing.assert_allclose(got[1], one, rtol=2e-6)


# Where XLA's complex formulas cancel or underflow (complex_c99.py): the point, and the function there. The values
# of TF 2.21 (std::complex) agree with NumPy's complex128 to float32's rounding at each; jax.numpy's gave the
# values in the comments.
_XLA_INACCURATE = [
    (tnp.sinh, [1e-10 + 0.5j, 1e-6 + 1e10j, -1e-20 + 2j, 0.3 + 1e-20j]),  # real part 0; 1% off at 1e-6 + 1e10i
    (tnp.cosh, [1e-10 + 0.5j, 1e-10 + 1e-10j, -1e-20 - 3j, 0.3 - 1e-20j]),  # imaginary part 0 (1e-20 needs it)
    (tnp.log1p, [-1 + 1e-20j, -1 - 1e-25j, -0.8 + 1e-20j]),  # -inf real part (was |1 + z| squared: underflow)
    (tnp.arctanh, [1 + 1e-20j, -1 - 1e-20j, 1.2 + 1e-25j]),  # +-inf real part
    (tnp.arctan, [1e-20 + 1j, -1e-20 - 1j, 1e-25 + 0.8j]),  # +-inf imaginary part
]


@pytest.mark.parametrize("f, points", _XLA_INACCURATE, ids=[f.__name__ for f, _ in _XLA_INACCURATE])
def test_complex_values_where_xla_formulas_cancel_are_c99s(f, points):
    """Each part of the value within float32 rounding of complex128 NumPy's (TF's, to rounding): jax.numpy's
    formulas lost the small part entirely or overflowed to an infinity there."""
    z = np.array(points, np.complex64)
    want = getattr(np, f.__name__)(z.astype(np.complex128))
    got = f(tj.constant(z)).numpy().astype(np.complex128)
    for part in (np.real, np.imag):
        np.testing.assert_allclose(part(got), part(want), rtol=2e-6, atol=0, err_msg=f.__name__)


@pytest.mark.parametrize("f", [tnp.sinh, tnp.cosh, tnp.log1p, tnp.arctanh, tnp.arctan], ids=lambda f: f.__name__)
def test_complex_values_away_from_those_regions_are_jax_numpys(f):
    """Elsewhere (no cancellation), and at special values, real inputs and on the branch cuts, the values are
    jax.numpy's bit for bit: only the regions where its formulas fail take C99's."""
    z = np.array([2 + 0.5j, -1.5 - 3j, -2.5 + 0.7j, 1e10 + 1j, 0j, 1 + 0j, -1 + 0j, 1j, -1j, 2 + 0j, 2 - 0j, -3 + 0j,
                  complex(np.inf, 0), complex(-np.inf, 1), complex(0, np.inf), complex(np.nan, 1), complex(1, np.nan),
                  complex(89, 1), complex(-100, 0.5)], np.complex64)
    jf = getattr(jnp, f.__name__)
    if f in (tnp.sinh, tnp.cosh):  # (by parts wherever the real sinh and cosh are finite: within 4 ulps of |value|)
        by_parts = np.isfinite(z) & (np.abs(z.real) < 87.7)
        want = getattr(np, f.__name__)(z[by_parts].astype(np.complex128))
        got = f(tj.constant(z[by_parts])).numpy()
        assert np.all(np.abs(got - want) <= 4 * 2.0 ** -24 * np.abs(want)), (z[by_parts], got, want)
        z = z[~by_parts]
    np.testing.assert_array_equal(f(tj.constant(z)).numpy(), np.asarray(jf(z)))
    x = np.array([0.0, 1e-10, -0.5, 0.9, 3.0, -20.0], np.float32)
    if f in (tnp.sinh, tnp.cosh):  # (real sinh and cosh: within 3 ulps, where jax.numpy's lose up to 24)
        np.testing.assert_allclose(f(tj.constant(x)).numpy(), getattr(np, f.__name__)(x.astype(np.float64)),
                                   rtol=3 * 2.0 ** -23)
    else:
        np.testing.assert_array_equal(f(tj.constant(x)).numpy(), np.asarray(jf(x)))


def _real_samples(name, dtype):
    rng = np.random.default_rng(3)
    tiny = 10.0 ** rng.uniform(-30, 0, 5000)
    if name in ("sinh", "cosh"):
        return np.concatenate([rng.uniform(-89.4, 89.4, 20000), tiny, -tiny, [43.664787, 572.54, 0.0, 1.0]])
    if name == "exp2":
        top = 128 if dtype == np.float32 else 1024
        return np.concatenate([rng.uniform(-126, top, 20000), rng.uniform(-2, 2, 5000), [-118.030075, -1018.0761]])
    if name == "log1p":
        return np.concatenate([rng.uniform(-1, 1, 20000), rng.uniform(-0.5, -0.25, 5000), tiny, -tiny, 1e5 * tiny])
    return np.concatenate([rng.uniform(-1, 1, 20000), rng.uniform(0.3, 0.45, 5000), tiny, -tiny])  # arctanh


@pytest.mark.parametrize("name", ["sinh", "cosh", "exp2", "log1p", "arctanh"])
def test_real_functions_are_within_three_ulps(name):
    # XLA's expansions lose many ulps where TF's (C's) are within about 1: sinh and cosh 24 ulps in float32 at
    # x = 43.664787 and everywhere past |x| = 10 (495 in float64 at 572.54); exp2 64 ulps in float32 at -118.03
    # (685 in float64 at -1018.08); log1p 128 ulps in float64 in [-0.4142, -0.35], arctanh with it near +-0.414.
    # tapejax's within 3 ulps in both precisions (against NumPy's float64, itself within 1 ulp), with derivatives.
    for dtype in (np.float32, np.float64):
        with jax.enable_x64(dtype == np.float64):
            xs = _real_samples(name, dtype).astype(dtype)
            xs = xs[np.isfinite(xs)]
            got = np.asarray(getattr(complex_c99, name)(jnp.asarray(xs))).astype(np.float64)
            assert np.asarray(getattr(complex_c99, name)(jnp.asarray(xs))).dtype == dtype
        want = getattr(np, name)(xs.astype(np.float64))
        keep = np.isfinite(want) & (np.abs(want) >= np.finfo(dtype).tiny) & (np.abs(want) <= np.finfo(dtype).max)
        ulps = np.abs(got - want)[keep] / np.spacing(np.abs(want[keep]).astype(dtype)).astype(np.float64)
        assert np.max(ulps) <= 3.0, (dtype, xs[keep][np.argmax(ulps)], np.max(ulps))
    x = tj.constant(np.float32([0.4, -0.3]))
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = getattr(tnp, name)(x)
    x64 = np.float64([0.4, -0.3])
    want = {"sinh": np.cosh(x64), "cosh": np.sinh(x64), "exp2": np.exp2(x64) * np.log(2), "log1p": 1 / (1 + x64),
            "arctanh": 1 / (1 - x64 * x64)}[name]
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), want, rtol=4e-7)


def test_complex_derivatives_where_xla_formulas_cancel():
    """arccosh's derivative 1 / sinh(y) (TF's AcoshGrad) at z = 1 + 1e-20i, where y = 1e-10 + 1e-10i: XLA's sinh(y)
    lost its real part, so the gradient was 1e10i (TF: 5e9 + 5e9i, the exact conj(1 / sqrt(z^2 - 1))); and sinh's
    own derivative cosh(z) at 1e-10 + 0.5i, whose imaginary part (4.8e-11) was 0. Second order too."""
    z = np.array([1 + 1e-20j, 1 - 1e-20j, 1 + 1e-6j], np.complex64)
    z2 = z.astype(np.complex128)
    _, g, h = nested_tape_gradients(tnp.arccosh, z)
    np.testing.assert_allclose(g.numpy(), np.conj(1 / np.sqrt(z2 * z2 - 1)), rtol=2e-6)
    np.testing.assert_allclose(h.numpy(), np.conj(-z2 / (z2 * z2 - 1) ** 1.5), rtol=2e-5)
    w = np.array([1e-10 + 0.5j, -1e-8 + 2j], np.complex64)
    _, g, _ = nested_tape_gradients(tnp.sinh, w)
    want = np.conj(np.cosh(w.astype(np.complex128)))
    for part in (np.real, np.imag):
        np.testing.assert_allclose(part(g.numpy()), part(want), rtol=2e-6)


@pytest.mark.parametrize("name", ["tanh", "tan", "expm1", "sinh", "cosh"])
def test_complex_functions_within_eight_ulps_of_their_magnitude(name):
    # XLA's complex formulas cancel next to tanh's and tan's poles (cosh 2x + cos 2y: 1.9e4 ulps off at
    # 1.6e-6 - 4.712i, tan 941 at 92.68 - 0.000347i), in expm1's e^x cos y - 1 (1800 at 6.1e-5 + 113.1i), and
    # round exp(|x| + log(1/2)) in sinh and cosh (26 at -48.73 + 18.72i); TF's (C99's, Eigen's) are within 6
    # ulps of |value| on these samples, as tapejax's now (against NumPy's complex128).
    rng = np.random.default_rng(11)
    n = 20000
    sign = lambda: np.where(rng.uniform(size=n) < 0.5, -1, 1)  # noqa: E731
    mag = lambda: sign() * 10.0 ** rng.uniform(-8, 2, n)  # noqa: E731
    worst = [1.613e-6 - 4.712j, 92.68 - 0.000347j, 6.097e-5 + 113.1j, -48.73 + 18.72j]
    box = rng.uniform(-3, 3, n) + 1j * rng.uniform(-3, 3, n)
    z = np.concatenate([mag() + 1j * mag(), box, worst]).astype(np.complex64)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(z.astype(np.complex128))
    keep = np.isfinite(want) & (np.abs(want) > 1e-30) & (np.abs(want) < 1e30)
    got = getattr(tnp, name)(tj.constant(z[keep])).numpy().astype(np.complex128)
    err = np.abs(got - want[keep]) / np.abs(want[keep]) / 2.0 ** -24
    assert np.all(err <= 8), (z[keep][np.argmax(err)], np.max(err))


def test_complex_log_is_accurate_next_to_the_unit_circle_and_c99_at_infinities():
    # log |z| cancels where |z| is near 1: XLA's complex128 log was 240 ulps off at 0.7654 + 0.000245i (45 on this
    # sample), log(abs(z)) 690 ulps; glibc's (NumPy's, TF's) log1p((b - 1)(b + 1) + s^2) / 2 within 3 ulps of |value|.
    # And C99's clog(inf + NaN i) is inf + NaN i (TF's std::log; jax.numpy's NaN + NaN i).
    rng = np.random.default_rng(5)
    r = 1 + np.where(rng.uniform(size=3000) < 0.5, -1, 1) * 10.0 ** rng.uniform(-7, -1, 3000)
    z = np.concatenate([r * np.exp(1j * rng.uniform(0, 2 * np.pi, 3000)), [0.7654 + 0.0002449j]])
    for dtype, eps in ((np.complex64, 2.0 ** -24), (np.complex128, 2.0 ** -53)):
        with jax.enable_x64(dtype == np.complex128):
            zs = z.astype(dtype)
            got = np.asarray(complex_c99.log(jnp.asarray(zs))).astype(np.complex128)
        want = np.log(zs.astype(np.complex128))
        err = np.abs(got - want) / np.abs(want) / eps
        assert np.max(err) <= 4, (dtype, zs[np.argmax(err)], np.max(err))
    got = tnp.log(tj.constant(np.array([complex(np.inf, np.nan), complex(np.nan, -np.inf), 1 + 0j], np.complex64)))
    np.testing.assert_array_equal(np.real(got.numpy()), [np.inf, np.inf, 0])
    assert np.isnan(np.imag(got.numpy()[:2])).all()
    # log2 and log10 by it, each part over the real constant: log2(0) is -inf + 0i (a complex division gave NaN i)
    for f, base in ((tnp.log2, 2), (tnp.log10, 10)):
        z = np.array([0j, 8 + 0j, 0.7654 + 0.0002449j], np.complex64)
        np.testing.assert_array_equal(f(tj.constant(z[:1])).numpy(), [complex(-np.inf, 0)])
        np.testing.assert_allclose(f(tj.constant(z[1:])).numpy(), np.log(z[1:].astype(np.complex128)) / np.log(base),
                                   rtol=3e-7)
