"""Registry-wide gradient test: every registered op, on each of its sample inputs, checked against JAX.

For each ``(op, sample)``: (a) the recorded forward equals ``op.fn``; (b) the tape gradient equals
``jax.vjp`` of ``op.fn`` (random cotangents on every float output, and on the first output alone, which
exercises the ops that take ``None`` for the others); (c) the JVP kernel, and ``tj.ForwardAccumulator``,
equal ``jax.jvp``; (d) central finite differences of ``op.fn`` agree with the tape gradient; (e) nested
tapes give jax's Hessian-vector product of a scalarized version.
"""
from __future__ import annotations

import zlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from tapejax.ops.core import registry

_REGISTRY = registry()


def _is_float(a) -> bool:
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
    return tuple(i for i, a in enumerate(args) if _is_float(a))


def _raw(args):
    return tuple(jnp.asarray(a) if isinstance(a, (np.ndarray, np.generic)) else a for a in args)


def _tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def _float_outs(outs):
    return [o for o in outs if jnp.issubdtype(o.dtype, jnp.floating)]


def _fn_of_diff(op, args, static, diff):
    """op.fn as a function of the float arguments, returning its float outputs (a tuple)."""
    raw = _raw(args)

    def f(*d):
        full = list(raw)
        for i, v in zip(diff, d):
            full[i] = v
        return tuple(o for o in _tuple(op.fn(*full, **static)) if jnp.issubdtype(o.dtype, jnp.floating))
    return f


def _random_like(rng, x):
    return np.asarray(rng.standard_normal(np.shape(x)), dtype=np.asarray(x).dtype)


def _tol(dtype):
    dt = jnp.dtype(dtype)
    if dt.itemsize <= 2:
        return dict(rtol=2e-2, atol=2e-2)
    return dict(rtol=2e-4, atol=2e-5)


def _close(actual, expected, what, dtype=np.float32):
    if actual is None:
        actual = np.zeros_like(np.asarray(expected))
    actual = np.asarray(actual.numpy() if isinstance(actual, tj.Tensor) else actual, np.float64)
    expected = np.asarray(expected, np.float64)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    tol = _tol(dtype)
    scale = max(1.0, float(np.max(np.abs(expected)))) if expected.size else 1.0
    np.testing.assert_allclose(actual, expected, rtol=tol["rtol"], atol=tol["atol"] * scale, err_msg=what)


def _tensors(args, diff):
    srcs = [tj.constant(np.asarray(args[i])) for i in diff]
    full = list(args)
    for i, s in zip(diff, srcs):
        full[i] = s
    return srcs, full


def _setup(op, args, static):
    diff = _diff(args)
    f = _fn_of_diff(op, args, static, diff)
    primals = tuple(jnp.asarray(args[i]) for i in diff)
    outs = f(*primals)
    rng = _rng(op, static, len(args))
    cts = tuple(_random_like(rng, o) for o in outs)
    return diff, f, primals, outs, cts, rng


# -- (a) forward -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("op,args,static", CASES)
def test_forward(op, args, static):
    expected = _tuple(op.fn(*_raw(args), **static))
    got = _tuple(op(*args, **static))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert isinstance(g, tj.Tensor)
        assert g.dtype == e.dtype and tuple(g.shape) == tuple(e.shape)
        _close(g, e, f"{op.name} forward", e.dtype)
        if jnp.issubdtype(e.dtype, jnp.floating):
            assert np.all(np.isfinite(np.asarray(e, np.float64))), f"{op.name}: sample outside the op's domain"
    # also recorded (forward_res path): same values
    diff = _diff(args)
    if diff:
        srcs, full = _tensors(args, diff)
        with tj.GradientTape() as tape:
            tape.watch(srcs)
            got = _tuple(op(*full, **static))
        for g, e in zip(got, expected):
            _close(g, e, f"{op.name} recorded forward", e.dtype)


# -- (b) reverse mode ----------------------------------------------------------------------------------

def _tape_grads(op, args, static, diff, cts, only_first=False):
    srcs, full = _tensors(args, diff)
    with tj.GradientTape() as tape:
        tape.watch(srcs)
        out = _float_outs(_tuple(op(*full, **static)))
    if only_first:
        out, cts = out[:1], cts[:1]
    return tape.gradient(out, srcs, output_gradients=list(cts))


@pytest.mark.parametrize("op,args,static", CASES)
def test_vjp_matches_jax(op, args, static):
    diff, f, primals, outs, cts, _ = _setup(op, args, static)
    if not diff or not outs:
        pytest.skip("no float input or output")
    _, vjp = jax.vjp(f, *primals)
    expected = vjp(tuple(jnp.asarray(c) for c in cts))
    got = _tape_grads(op, args, static, diff, cts)
    for i, (g, e) in enumerate(zip(got, expected)):
        _close(g, e, f"{op.name} grad of arg {diff[i]}", primals[i].dtype)
    if len(outs) > 1:
        # only the first output gets a gradient: the others come in as None (accepts_none) or zeros
        zero_rest = (jnp.asarray(cts[0]),) + tuple(jnp.zeros_like(o) for o in outs[1:])
        expected = vjp(zero_rest)
        got = _tape_grads(op, args, static, diff, cts, only_first=True)
        for i, (g, e) in enumerate(zip(got, expected)):
            _close(g, e, f"{op.name} grad of arg {diff[i]} (first output only)", primals[i].dtype)


# -- (c) forward mode ----------------------------------------------------------------------------------

@pytest.mark.parametrize("op,args,static", CASES)
def test_jvp_matches_jax(op, args, static):
    diff, f, primals, outs, _, rng = _setup(op, args, static)
    if not diff or not outs:
        pytest.skip("no float input or output")
    tangents = tuple(jnp.asarray(_random_like(rng, p)) for p in primals)
    _, expected = jax.jvp(f, primals, tangents)

    raw = _raw(args)
    out = op.fn(*raw, **static)
    k = op.kernels(static)
    got = _float_outs_or_none(out, k.jvp(diff, tuple(raw), tangents, out))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        _close(g, e, f"{op.name} jvp kernel", e.dtype)

    srcs, full = _tensors(args, diff)
    with tj.ForwardAccumulator(srcs, [tj.constant(t) for t in tangents]) as acc:
        res = _float_outs(_tuple(op(*full, **static)))
    got = acc.jvp(res)
    for g, e in zip(got, expected):
        _close(g, e, f"{op.name} ForwardAccumulator", e.dtype)


def _float_outs_or_none(out, tan):
    outs, tans = _tuple(out), _tuple(tan)
    assert len(outs) == len(tans)
    return [t for o, t in zip(outs, tans) if jnp.issubdtype(o.dtype, jnp.floating)]


# -- (d) finite differences ------------------------------------------------------------------------------

_FD_EPS = {name: 1e-4 for name in ("floor", "ceil", "round", "trunc", "sign", "floor_divide", "mod")}


@pytest.mark.parametrize("op,args,static", CASES)
def test_finite_differences(op, args, static):
    diff, f, primals, outs, cts, rng = _setup(op, args, static)
    if not diff or not outs:
        pytest.skip("no float input or output")
    low = builtins_min(jnp.dtype(o.dtype).itemsize for o in outs) <= 2
    # piecewise-constant ops (and mod, with jumps): a step small enough not to cross a jump
    eps = _FD_EPS.get(op.name, 5e-2 if low else 1e-2)
    vs = [_random_like(rng, p).astype(np.float32) for p in primals]
    vs = [v / max(1.0, float(np.sqrt(np.sum(v.astype(np.float64) ** 2)))) for v in vs]
    fj = jax.jit(f)

    def s(h):
        pts = tuple(jnp.asarray((np.asarray(p, np.float64) + h * v).astype(np.asarray(p).dtype))
                    for p, v in zip(primals, vs))
        return sum(float(np.sum(np.asarray(o, np.float64) * np.asarray(c, np.float64)))
                   for o, c in zip(fj(*pts), cts))

    fd = (s(eps) - s(-eps)) / (2 * eps)
    assert np.isfinite(fd), f"{op.name}: finite differences are not finite"
    grads = _tape_grads(op, args, static, diff, cts)
    analytic = sum(float(np.sum(np.asarray(g.numpy(), np.float64) * v)) for g, v in zip(grads, vs) if g is not None)
    scale = sum(float(np.sum(np.abs(np.asarray(o, np.float64) * np.asarray(c, np.float64)))) for o, c in zip(outs, cts))
    tol = (5e-2 if low else 1e-2) * (1.0 + abs(analytic)) + (1e-2 if low else 2e-3) * scale
    assert abs(fd - analytic) <= tol, f"{op.name}: finite differences {fd} vs tape {analytic} (tol {tol})"


def builtins_min(it):
    return min(it)


# -- (e) second order ------------------------------------------------------------------------------------

@pytest.mark.parametrize("op,args,static", CASES)
def test_hessian_vector_product(op, args, static):
    diff, f, primals, outs, cts, rng = _setup(op, args, static)
    if not diff or not outs:
        pytest.skip("no float input or output")
    if any(jnp.dtype(o.dtype).itemsize <= 2 for o in outs):
        pytest.skip("low-precision output")
    vs = tuple(jnp.asarray(_random_like(rng, p)) for p in primals)
    jcts = tuple(jnp.asarray(c) for c in cts)

    def scalar(*d):
        return sum(jnp.sum(o * c) for o, c in zip(f(*d), jcts))

    argnums = tuple(range(len(primals)))
    _, expected = jax.jvp(lambda *d: jax.grad(scalar, argnums=argnums)(*d), primals, vs)

    srcs, full = _tensors(args, diff)
    with tj.GradientTape() as outer:
        outer.watch(srcs)
        with tj.GradientTape() as inner:
            inner.watch(srcs)
            out = _float_outs(_tuple(op(*full, **static)))
        g = inner.gradient(out, srcs, output_gradients=list(cts))
    keep = [(gi, v) for gi, v in zip(g, vs) if gi is not None]
    if keep:
        got = outer.gradient([gi for gi, _ in keep], srcs, output_gradients=[v for _, v in keep],
                             unconnected_gradients=tj.UnconnectedGradients.ZERO)
    else:
        got = [None] * len(srcs)
    for i, (h, e) in enumerate(zip(got, expected)):
        _close(h, e, f"{op.name} Hessian-vector product, arg {diff[i]}", primals[i].dtype)
