"""Registry-wide gradient test: every registered op, on each of its sample inputs, checked against JAX.

For each ``(op, sample)``, in one test (ids ``op-name-sampleN``; all failures of a case are reported
together): (a) the recorded forward equals ``op.fn``; (b) the tape gradient equals
``jax.vjp`` of ``op.fn`` (random cotangents on every float output, and on the first output alone, which
exercises the ops that take ``None`` for the others); (c) the JVP kernel, and ``tj.ForwardAccumulator``,
equal ``jax.jvp``; (d) central finite differences of ``op.fn`` agree with the tape gradient; (e) nested
tapes give jax's Hessian-vector product of a scalarized version (``v^T H``, the VJP of its gradient).

All of JAX's reference values for a case are computed by one jitted function (one compile per case), which
keeps the file fast; the tapejax side runs through its ordinary paths.
"""
from __future__ import annotations

import zlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from tapejax.ops.core import registry
from conftest import close_scaled

# The built-in op surface (ops users define with tj.op, e.g. in other test modules, are not part of it).
_REGISTRY = {n: op for n, op in registry().items() if not getattr(op, "user_defined", False)}


def is_float(a) -> bool:
    if isinstance(a, (np.ndarray, np.generic, jax.Array)):
        dt = a.dtype
        return not jax.dtypes.issubdtype(dt, jax.dtypes.prng_key) and jnp.issubdtype(dt, jnp.floating)
    return isinstance(a, float)


def _cases():
    out = []
    for name in sorted(_REGISTRY):
        op = _REGISTRY[name]
        if op.samples is None:
            continue
        for i, (args, static) in enumerate(op.samples()):
            out.append(pytest.param(op, tuple(args), dict(static), id=f"{name}-sample{i}"))
    return out


CASES = _cases()


def test_every_registered_op_has_samples():
    missing = sorted(n for n, op in _REGISTRY.items() if op.samples is None)
    assert not missing, f"registered ops without samples: {missing}"
    empty = sorted(n for n, op in _REGISTRY.items() if not list(op.samples()))
    assert not empty, f"registered ops with an empty sample list: {empty}"
    assert len(CASES) >= len(_REGISTRY)


def test_registry_covers_nn():
    for name in ("relu", "gelu", "softplus", "silu", "softmax", "log_softmax", "logsumexp", "conv", "max_pool",
                 "avg_pool", "layer_norm", "dropout", "batch_norm", "softmax_cross_entropy_with_logits",
                 "sparse_softmax_cross_entropy_with_logits", "sigmoid"):
        assert name in _REGISTRY, name


# -- helpers -------------------------------------------------------------------------------------------

def _rng(op, static, salt):
    return np.random.default_rng(zlib.crc32(f"{op.name}|{sorted(static.items())!r}|{salt}".encode()))


def _diff(args):
    return tuple(i for i, a in enumerate(args) if is_float(a))


def _raw(args):
    return tuple(jax.device_put(a) if isinstance(a, (np.ndarray, np.generic)) else a for a in args)


def _substituting(raw, positions, fn):
    """``fn(full)`` as a function of the values at ``positions`` of the argument list ``raw`` (the rest fixed)."""
    def f(*values):
        full = list(raw)
        for i, v in zip(positions, values):
            full[i] = v
        return fn(full)
    return f


def _forward(op, args, static):
    """``op.fn(*args, **static)`` as a function of the array arguments, and those arrays: compiled as one
    program (run op by op, each primitive and shape would be an XLA program of its own)."""
    raw = _raw(args)
    pos = [i for i, a in enumerate(raw) if isinstance(a, jax.Array)]
    return _substituting(raw, pos, lambda full: op.fn(*full, **static)), [raw[i] for i in pos]


def _tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def _float_outs(outs):
    return [o for o in outs if jnp.issubdtype(o.dtype, jnp.floating)]


def _fn_of_diff(op, args, static, diff):
    """op.fn as a function of the float arguments, returning its float outputs (a tuple)."""
    return _substituting(_raw(args), diff, lambda full: tuple(
        o for o in _tuple(op.fn(*full, **static)) if jnp.issubdtype(o.dtype, jnp.floating)))


def _random_like(rng, x):
    return np.asarray(rng.standard_normal(x.shape), dtype=x.dtype)


def _tol(dtype):
    dt = jnp.dtype(dtype)
    if dt.itemsize <= 2:
        return dict(rtol=2e-2, atol=2e-2)
    return dict(rtol=2e-4, atol=2e-5)


def _close(actual, expected, what, dtype=np.float32):
    close_scaled(actual, expected, what, **_tol(dtype))


def _tensors(args, diff):
    srcs = [tj.constant(np.asarray(args[i])) for i in diff]
    full = list(args)
    for i, s in zip(diff, srcs):
        full[i] = s
    return srcs, full



def _reference(op, args, static, diff, eps):
    """One jitted function computing all of JAX's reference values for a case, op.fn's outputs among them."""
    f = _fn_of_diff(op, args, static, diff)
    forward, _ = _forward(op, args, static)

    def ref(arrays, primals, cts, tangents, vs, cts_first):
        outs, vjp = jax.vjp(f, *primals)
        grads = vjp(cts)
        grads_first = vjp(cts_first)
        _, jvp_out = jax.jvp(f, primals, tangents)

        def scalar(*d):
            return sum(jnp.sum(o * c) for o, c in zip(f(*d), cts))
        argnums = tuple(range(len(primals)))
        # nested tapes compute v^T H, the VJP of the gradient: the same as H v where the gradient is a true one,
        # but not for a TF convention that is not (softmax_cross_entropy_with_logits' softmax - labels)
        _, grad_vjp = jax.vjp(lambda *d: jax.grad(scalar, argnums=argnums)(*d), *primals)
        hvp = grad_vjp(tuple(vs))
        # finite differences along vs (the values of f at primals +/- eps * vs)
        plus = f(*[p + (eps * v).astype(p.dtype) for p, v in zip(primals, vs)])
        minus = f(*[p - (eps * v).astype(p.dtype) for p, v in zip(primals, vs)])
        return forward(*arrays), outs, grads, grads_first, jvp_out, hvp, plus, minus
    return jax.jit(ref)


_FAST_COMPILE = {"xla_backend_optimization_level": 0, "xla_llvm_disable_expensive_passes": True}


def _run_reference(ref, *args):
    """Compile the reference with cheap LLVM settings (tiny arrays: compile time dominates)."""
    try:
        compiled = ref.lower(*args).compile(_FAST_COMPILE)
    except Exception:  # a backend without these options
        compiled = ref.lower(*args).compile()
    return compiled(*args)


_FD_EPS = {name: 1e-4 for name in ("floor", "ceil", "round", "trunc", "sign", "floor_divide", "mod")}
# ops whose TF gradient is a derivative along symmetric directions only: TF's Cholesky reads the lower triangle
# but its gradient (CholeskyGrad) is symmetrized, (X + X^T) / 2 (TF's own gradient checks perturb A = x x^T)
_FD_SYMMETRIC = {"linalg_cholesky"}
# ops whose TF gradient reads only the first output's: FusedBatchNorm's batch_mean and batch_var carry none (API.md),
# so finite differences of op.fn are taken along that output alone
_FD_FIRST_OUTPUT = {"batch_norm"}


def _same_bits(got, want, what):
    """The same values bit for bit (signed zeros told apart)."""
    g, w = np.atleast_1d(np.asarray(got.value)), np.atleast_1d(np.asarray(want.value))
    assert g.dtype == w.dtype and g.shape == w.shape, f"{what}: {g.dtype}{g.shape} vs {w.dtype}{w.shape}"
    if not g.size:
        return
    differ = g.view(np.uint8).reshape(g.shape + (-1,)) != w.view(np.uint8).reshape(w.shape + (-1,))
    n = int(np.any(differ, axis=-1).sum())
    assert n == 0, f"{what}: {n} of {g.size} values differ in their bits:\n{g}\nvs\n{w}"


class _Errors(list):
    def check(self, fn, *a, **kw):
        try:
            fn(*a, **kw)
        except AssertionError as e:
            self.append(str(e))


@pytest.mark.parametrize("op,args,static", CASES)
def test_op_sample(op, args, static):
    errors = _Errors()
    forward_fn, arrays = _forward(op, args, static)
    float_outs = [o for o in _tuple(jax.eval_shape(forward_fn, *arrays)) if jnp.issubdtype(o.dtype, jnp.floating)]
    diff = _diff(args)

    def check_forward(forward):
        """(a) forward, unrecorded, equals op.fn; samples must lie inside the op's domain"""
        expected_outs = _tuple(forward)
        got = _tuple(op(*args, **static))
        assert len(got) == len(expected_outs)
        for g, e in zip(got, expected_outs):
            assert isinstance(g, tj.Tensor)
            assert g.dtype == e.dtype and tuple(g.shape) == tuple(e.shape), (g.dtype, e.dtype, g.shape, e.shape)
            errors.check(_close, g, e, f"(a) {op.name} forward", e.dtype)
            if jnp.issubdtype(e.dtype, jnp.floating):
                assert np.all(np.isfinite(np.asarray(e, np.float64))), f"{op.name}: sample outside the op's domain"

    if not diff or not float_outs:
        check_forward(jax.jit(forward_fn)(*arrays))
        assert not errors, "\n".join(errors)
        pytest.skip("no float input or output")

    rng = _rng(op, static, len(args))
    primals = tuple(jax.device_put(args[i]) for i in diff)
    cts = tuple(jax.device_put(_random_like(rng, o)) for o in float_outs)
    cts_first = (cts[0],) + tuple(jax.device_put(np.zeros(c.shape, c.dtype)) for c in cts[1:])
    tangents = tuple(jax.device_put(_random_like(rng, p)) for p in primals)
    vs = [_random_like(rng, p).astype(np.float32) for p in primals]
    vs = tuple(jax.device_put(v / max(1.0, float(np.sqrt(np.sum(v.astype(np.float64) ** 2))))) for v in vs)
    if op.name in _FD_SYMMETRIC:
        vs = tuple((v + jnp.swapaxes(v, -1, -2)) / 2 for v in vs)
    low = min(jnp.dtype(o.dtype).itemsize for o in float_outs) <= 2
    eps = _FD_EPS.get(op.name, 5e-2 if low else 1e-2)
    forward, r_outs, r_grads, r_grads_first, r_jvp, r_hvp, r_plus, r_minus = _run_reference(
        _reference(op, args, static, diff, eps), arrays, primals, cts, tangents, vs, cts_first)
    check_forward(forward)

    # (a) recorded forward
    srcs, full = _tensors(args, diff)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(srcs)
        out = _float_outs(_tuple(op(*full, **static)))
    for g, e in zip(out, r_outs):
        errors.check(_close, g, e, f"(a) {op.name} recorded forward", e.dtype)

    # (b) reverse mode: random cotangents on every float output, then on the first output alone (the other
    # outputs' gradients arrive as None: the accepts_none path)
    grads = tape.gradient(out, srcs, output_gradients=list(cts))
    for i, (g, e) in enumerate(zip(grads, r_grads)):
        errors.check(_close, g, e, f"(b) {op.name} tape gradient of arg {diff[i]} vs jax.vjp", primals[i].dtype)
    if len(out) > 1:
        grads_first = tape.gradient(out[0], srcs, output_gradients=cts[0])
        for i, (g, e) in enumerate(zip(grads_first, r_grads_first)):
            errors.check(_close, g, e, f"(b) {op.name} gradient of arg {diff[i]}, first output only",
                         primals[i].dtype)
    del tape

    # (c) forward mode: the JVP kernel, then tj.ForwardAccumulator
    raw = _raw(args)
    k = op.kernels(static)
    kernel_out = _float_outs_or_none(forward, k.jvp(diff, tuple(raw), tangents, forward))
    assert len(kernel_out) == len(r_jvp)
    for g, e in zip(kernel_out, r_jvp):
        errors.check(_close, g, e, f"(c) {op.name} JVP kernel vs jax.jvp", e.dtype)
    with tj.ForwardAccumulator(srcs, [tj.Tensor(t) for t in tangents]) as acc:
        res = _float_outs(_tuple(op(*full, **static)))
    for g, e in zip(acc.jvp(res), r_jvp):
        errors.check(_close, g, e, f"(c) {op.name} ForwardAccumulator vs jax.jvp", e.dtype)

    # (d) central finite differences of op.fn along vs agree with the tape gradient
    def dot(xs, ys):
        return sum(float(np.sum(np.asarray(x, np.float64) * np.asarray(y, np.float64)))
                   for x, y in zip(xs, ys) if x is not None)
    fd_cts, fd_grads = (cts_first, grads_first) if op.name in _FD_FIRST_OUTPUT else (cts, grads)
    fd = (dot(r_plus, fd_cts) - dot(r_minus, fd_cts)) / (2 * eps)
    analytic = dot([None if g is None else g.numpy() for g in fd_grads], vs)
    scale = sum(float(np.sum(np.abs(np.asarray(o, np.float64) * np.asarray(c, np.float64))))
                for o, c in zip(r_outs, cts))
    tol = (5e-2 if low else 1e-2) * (1.0 + abs(analytic)) + (1e-2 if low else 2e-3) * scale
    if not (np.isfinite(fd) and abs(fd - analytic) <= tol):
        errors.append(f"(d) {op.name}: finite differences {fd} vs tape {analytic} (tol {tol})")

    # (e) second order: nested tapes give jax's Hessian-vector product of sum(cts * f)
    if not low:
        with tj.GradientTape() as outer:
            outer.watch(srcs)
            with tj.GradientTape() as inner:
                inner.watch(srcs)
                out = _float_outs(_tuple(op(*full, **static)))
            g = inner.gradient(out, srcs, output_gradients=list(cts))
        keep = [(gi, v) for gi, v in zip(g, vs) if gi is not None]
        if keep:
            hvp = outer.gradient([gi for gi, _ in keep], srcs, output_gradients=[v for _, v in keep],
                                 unconnected_gradients=tj.UnconnectedGradients.ZERO)
        else:
            hvp = [None] * len(srcs)
        for i, (h, e) in enumerate(zip(hvp, r_hvp)):
            errors.check(_close, h, e, f"(e) {op.name} Hessian-vector product, arg {diff[i]}", primals[i].dtype)

    assert not errors, "\n\n".join(errors)


def _float_outs_or_none(out, tan):
    outs, tans = _tuple(out), _tuple(tan)
    assert len(outs) == len(tans)
    return [t for o, t in zip(outs, tans) if jnp.issubdtype(o.dtype, jnp.floating)]


_X = np.random.default_rng(3).uniform(0.5, 1.5, size=(16, 9)).astype(np.float32)
_SCALE, _OFFSET = (np.random.default_rng(k).uniform(0.5, 1.5, size=9).astype(np.float32) for k in (4, 5))
# ops whose recorded value came from another computation than the unrecorded one's: (the op on x, the reference)
_SAME_VALUE = {
    # JAX's derivative of prod and cumprod recomputes the value as a tree of products (most entries' last bits differ
    # on an axis of 9; the registry's samples are too short to show it); the reference is NumPy's left-to-right
    # product (jax.numpy's bytes; TF 2.21's cumprod gives them too, its reduce_prod differs in 5 of the 16)
    "prod": (lambda x: tj.numpy.prod(x, axis=1), lambda x: np.prod(x, axis=1)),
    "cumprod": (lambda x: tj.numpy.cumprod(x, axis=1), lambda x: np.cumprod(x, axis=1)),
    # batch_norm's reverse rule computed y as xhat * scale + offset, the op as (x - mean) * (inv * scale) + offset
    # (TF's FusedBatchNorm's order); the reference is the unrecorded op
    "batch_norm": (lambda x: tj.nn.batch_norm(x, _SCALE, _OFFSET, axis=1)[0], None),
}


@pytest.mark.parametrize("name", sorted(_SAME_VALUE))
def test_recorded_ops_have_the_unrecorded_value_on_every_path(name, replay_now):
    """Recording changes no value: the op's value bit for bit on a tape (strictly eager and deferred), replayed,
    under an accumulator, in a tj.function and in JAX transforms of tapejax code."""
    f, reference = _SAME_VALUE[name]
    want = f(_X) if reference is None else tj.Tensor(jnp.asarray(reference(_X)))
    got = {"unrecorded": f(_X)}
    xt = tj.constant(_X)
    for lazy in (False, True):
        with tj.config.override(lazy=lazy):
            with tj.GradientTape() as tape:
                tape.watch(xt)
                got[f"on a tape, lazy={lazy}"] = y = f(xt)
                total = tj.numpy.sum(y)
            assert tape.gradient(total, xt) is not None
    for step in range(3):  # (warm-up twice, then replayed)
        with tj.GradientTape() as tape:
            tape.watch(xt)
            y = f(xt) * 1.0
            total = tj.numpy.sum(y)
        got[f"step {step}"] = y
        tape.gradient(total, xt)
    assert tape.last_replay.startswith("replayed"), tape.last_replay
    with tj.ForwardAccumulator(xt, np.ones_like(_X)):
        got["under an accumulator"] = f(xt)
    got["tj.function"] = tj.function(f)(xt)
    got["jax.jit of tj code"] = tj.Tensor(jax.jit(lambda a: f(tj.Tensor(a)).value)(_X))
    got["jax.vjp of tj code"] = tj.Tensor(jax.vjp(lambda a: f(tj.Tensor(a)).value, _X)[0])
    for path, y in got.items():
        _same_bits(y, want, f"{name}, {path}")


@pytest.mark.parametrize("name", ["prod", "cumprod"])
def test_a_zero_product_keeps_its_sign_on_a_tape(name):
    """tf_complex_differential seed 901768: angle(prod(z)) was pi on a tape, where the product's zero came out as
    -0 + 0j, and 0 in TF (and unrecorded)."""
    f = getattr(tj.numpy, name)
    z = tj.constant(np.array([[-1, 1 + 1j, 0]], np.complex64))
    with tj.GradientTape() as tape:
        tape.watch(z)
        angle = tj.numpy.angle(f(z, axis=1))
    _same_bits(angle, tj.numpy.angle(f(z.value, axis=1)), f"{name}: angle of a complex product on a tape")
    assert abs(float(angle.numpy().ravel()[-1])) == 0.0
