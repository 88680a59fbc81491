"""The paths of API.md's "One set of rules on every path", as functions of a ``Case`` (shared by
test_path_consistency.py's hand-written cases and test_path_fuzz.py's random programs).

A ``Case`` is ``prog(*xs) -> scalar Tensor`` plus the Tensors/Variables it closes over (``extras``). Each
reverse-mode path returns one gradient (or None) per x, then per extra; forward paths return the JVP of
``prog`` along ``case.tangents``; second-order paths return d/dx sum(grad(x) . case.v). The reference is
eager with lazy=False; ``assert_same`` compares a path with it (``None`` exactly where the reference has
``None``; zeros on the JAX transforms, which have no ``None``).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import tapejax as tj
from tapejax.deferred import replay
from conftest import to_numpy

tnp = tj.numpy
RTOL, ATOL = 2e-4, 2e-5  # float32 rounding of fused programs (XLA may reassociate sums)

def as_f64(t):
    return to_numpy(t, np.float64)


class Case:
    """``prog(*xs) -> Tensor``: the differentiated function; ``extras``: Tensors/Variables it closes over
    (sources on the tape paths, constants for JAX transforms). ``jax_ok``: JAX transforms apply (the
    program reads no Variable)."""

    def __init__(self, name, prog, xs, extras=(), jax_ok=True, differentiate_ok=True, forward_ok=True,
                 second_order=False, python_backward=False, tol=(RTOL, ATOL), replay_exact=True):
        self.name, self.prog = name, prog
        # what each x belongs to, for failure messages (a Bundle's programs)
        self.input_names = prog.input_names() if isinstance(prog, Bundle) else None
        self.xs = [np.asarray(x, np.float32) for x in xs]
        self.extras = list(extras)
        self.jax_ok, self.differentiate_ok, self.forward_ok = jax_ok, differentiate_ok, forward_ok
        self.second_order = second_order
        # a custom gradient's backward is Python: replay runs such a step op by op (said in last_replay)
        self.python_backward = python_backward
        self.tol = tol
        self.replay_exact = replay_exact  # False: see REPLAY_EXACT_KNOWN_DIFFERENT
        rng = np.random.default_rng(len(name))
        self.tangents = [rng.normal(size=x.shape).astype(np.float32) for x in self.xs]
        self.v = [rng.normal(size=x.shape).astype(np.float32) for x in self.xs]

    def tensors(self):
        return [tj.constant(x) for x in self.xs]

    def __repr__(self):
        return self.name


class Bundle:
    """Several scalar programs on disjoint inputs as one: the sum of their values, ``targets[k]`` taking the
    next ``arity[k]`` inputs. Each compiled path then compiles one program for all of them, while every
    input's gradient is still its own program's (``input_names`` says whose in a failure message)."""

    def __init__(self, targets, arity, names):
        self.targets, self.arity, self.names = list(targets), list(arity), list(names)

    def __call__(self, *ts):
        total, start = None, 0
        for f, n in zip(self.targets, self.arity):
            y = f(*ts[start:start + n])
            start += n
            total = y if total is None else total + y
        return total

    def input_names(self):
        return [name for name, n in zip(self.names, self.arity) for _ in range(n)]

    def __repr__(self):
        return " | ".join(self.names)


def weights(shape, salt=0):
    rng = np.random.default_rng(salt + 7)
    return np.asarray(rng.normal(size=tuple(shape)), np.float32)


def scalarize(f):
    """sum(w * out) over the float outputs (of ``real((1 - 0.5j) out)`` for a complex one), with fixed weights: a
    scalar target that sees every output."""
    def g(*ts):
        out = f(*ts)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        total = None
        for k, o in enumerate(outs):
            if not jnp.issubdtype(o.dtype, jnp.inexact):
                continue
            if jnp.issubdtype(o.dtype, jnp.complexfloating):  # (eig's): a real target, seeing both parts
                o = tnp.real(o * (1.0 - 0.5j))
            term = tnp.sum(o * weights(o.shape, k))
            total = term if total is None else total + term
        return total
    return g


# -- reverse-mode paths: each returns one gradient (or None) per x, then per extra ---------------------

def _sources(case, ts):
    return ts + case.extras


def eager(case):
    ts = case.tensors()
    with tj.GradientTape() as t:
        t.watch(ts + case.extras)
        y = case.prog(*ts)
    return [as_f64(g) for g in t.gradient(y, _sources(case, ts))]


def path_eager(case):
    with tj.config.override(lazy=False, replay=False):
        return eager(case)


def path_deferred(case):
    with tj.config.override(lazy=True, replay=False):
        return eager(case)


def path_replayed(case, exact=False):
    # one op-by-op warm-up pass, then the compiled program
    with tj.config.override(lazy=True, replay=True, replay_background=False, replay_exact=exact, replay_warmup=1):
        for _ in range(2):
            ts = case.tensors()
            with tj.GradientTape() as t:
                t.watch(ts + case.extras)
                y = case.prog(*ts)
            g = t.gradient(y, _sources(case, ts))
            replay.wait()
        return [as_f64(x) for x in g], t.last_replay


def path_tape_in_function(case):
    @tj.function
    def step(*ts):
        with tj.GradientTape() as t:
            t.watch(list(ts) + case.extras)
            y = case.prog(*ts)
        return t.gradient(y, list(ts) + case.extras)
    return [as_f64(g) for g in step(*case.tensors())]


def path_outer_tape_over_function(case):
    f = tj.function(case.prog)
    ts = case.tensors()
    with tj.GradientTape() as t:
        t.watch(ts + case.extras)
        y = f(*ts)
    return [as_f64(g) for g in t.gradient(y, _sources(case, ts))]


def path_tj_gradients(case):
    @tj.function
    def step(*ts):
        return tj.gradients(case.prog(*ts), list(ts) + case.extras)
    return [as_f64(g) for g in step(*case.tensors())]


def path_differentiate(case):
    d = tj.differentiate(case.prog, *case.tensors())
    _, res = d.forward(*case.tensors())
    return [as_f64(g) for g in d.backward([tj.constant(1.0)], res)]


def _vector_prog(case):
    """The same target as a vector (its sum is ``prog``), for the Jacobian paths."""
    def vec(*ts):
        y = case.prog(*ts)
        return tnp.stack([y * 0.25, y * 0.75])
    return vec


def path_jacobian(case, pfor=True):
    ts = case.tensors()
    with tj.GradientTape(persistent=not pfor) as t:
        t.watch(ts)
        y = _vector_prog(case)(*ts)
    jac = t.jacobian(y, ts, experimental_use_pfor=pfor)
    return [None if j is None else as_f64(j).sum(axis=0) for j in jac]


def _raw_fn(case):
    def f(*xs):
        return case.prog(*[tj.Tensor(x) for x in xs]).value
    return f


def _maybe_jit(f, jit):
    """``jit=True``: the JAX transform compiled as one program (one compile instead of one per primitive)."""
    return jax.jit(f) if jit else f


def path_jax_grad(case, jit=False):
    return [np.asarray(g, np.float64) for g in
            _maybe_jit(jax.grad(_raw_fn(case), argnums=tuple(range(len(case.xs)))), jit)(*map(jnp.asarray, case.xs))]


# -- forward mode --------------------------------------------------------------------------------------

def fwd_eager(case):
    ts = case.tensors()
    with tj.ForwardAccumulator(ts, [tj.constant(t) for t in case.tangents]) as acc:
        y = case.prog(*ts)
    return as_f64(acc.jvp(y))


def fwd_in_function(case):
    @tj.function
    def step(*ts):
        n = len(ts) // 2
        with tj.ForwardAccumulator(list(ts[:n]), list(ts[n:])) as acc:
            y = case.prog(*ts[:n])
        return acc.jvp(y)
    return as_f64(step(*case.tensors(), *[tj.constant(t) for t in case.tangents]))


def fwd_outer_over_function(case):
    f = tj.function(case.prog)
    ts = case.tensors()
    with tj.ForwardAccumulator(ts, [tj.constant(t) for t in case.tangents]) as acc:
        y = f(*ts)
    return as_f64(acc.jvp(y))


def fwd_jax(case, jit=False):
    _, t = _maybe_jit(lambda xs, ts: jax.jvp(_raw_fn(case), xs, ts), jit)(
        tuple(map(jnp.asarray, case.xs)), tuple(map(jnp.asarray, case.tangents)))
    return np.asarray(t, np.float64)


# -- second order: d/dx sum(grad(x) . v) ----------------------------------------------------------------

def _inner_grad_dot(case, ts):
    with tj.GradientTape() as inner:
        inner.watch(ts)
        y = case.prog(*ts)
    gs = inner.gradient(y, ts, unconnected_gradients=tj.UnconnectedGradients.ZERO)
    return sum(tnp.sum(g * v) for g, v in zip(gs, case.v))


def so_eager(case):
    with tj.config.override(lazy=False):
        ts = case.tensors()
        with tj.GradientTape() as outer:
            outer.watch(ts)
            z = _inner_grad_dot(case, ts)
        return [as_f64(g) for g in outer.gradient(z, ts)]


def so_in_function(case):
    @tj.function
    def step(*ts):
        with tj.GradientTape() as outer:
            outer.watch(list(ts))
            z = _inner_grad_dot(case, list(ts))
        return outer.gradient(z, list(ts))
    return [as_f64(g) for g in step(*case.tensors())]


def so_outer_over_function(case):
    f = tj.function(lambda *ts: _inner_grad_dot(case, list(ts)))
    ts = case.tensors()
    with tj.GradientTape() as outer:
        outer.watch(ts)
        z = f(*ts)
    return [as_f64(g) for g in outer.gradient(z, ts)]


def so_forward_over_reverse(case):
    """The JVP of the gradient (an accumulator around the tape), contracted with ``v``: H v . t, one
    number per case, to compare with the reverse-over-reverse result contracted with the tangents."""
    ts = case.tensors()
    with tj.ForwardAccumulator(ts, [tj.constant(t) for t in case.tangents]) as acc:
        z = _inner_grad_dot(case, ts)
    return acc.jvp(z)


def so_jax(case, jit=False):
    def gdot(*xs):
        gs = jax.grad(_raw_fn(case), argnums=tuple(range(len(xs))))(*xs)
        return sum(jnp.sum(g * v) for g, v in zip(gs, case.v))
    return [np.asarray(g, np.float64) for g in
            _maybe_jit(jax.grad(gdot, argnums=tuple(range(len(case.xs)))), jit)(*map(jnp.asarray, case.xs))]


# -- comparison ----------------------------------------------------------------------------------------

def assert_same(path, got, want, *, none_as_zero=False, exact=False, tol=(RTOL, ATOL), names=None):
    """``names[k]``: what gradient k belongs to (a Bundle's program), said in a failure message; ``tol``:
    (rtol, atol), or a list of them, one per gradient."""
    assert len(got) == len(want), f"{path}: {len(got)} gradients, expected {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        where = f"{path} [{names[k]}]" if names is not None and k < len(names) else path
        if w is None and not none_as_zero:
            assert g is None, f"{where}: gradient {k} is {g}, expected None (as TF)"
            continue
        if w is None:
            w = np.zeros_like(g)
        assert g is not None, f"{where}: gradient {k} is None, expected {w}"
        if exact:
            np.testing.assert_array_equal(g, w, err_msg=f"{where}: gradient {k} (bit for bit)")
        else:
            rtol, atol = tol[k] if isinstance(tol, list) else tol
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"{where}: gradient {k}")


def assert_same_on_the_paths(case):
    """``case``'s gradient replayed, by a tape inside tj.function and under jax.grad of the tj code, as eagerly."""
    want = path_eager(case)
    got, how = path_replayed(case)
    assert "replayed" in how
    assert_same("replayed", got, want)
    assert_same("tape inside tj.function", path_tape_in_function(case), want)
    assert_same("jax.grad", path_jax_grad(case, jit=True), want, none_as_zero=True)
