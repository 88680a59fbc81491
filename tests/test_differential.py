"""Property-based differential testing: hypothesis writes random programs (sequences of ops over 2-3
inputs, with fan-out, broadcasting, reductions, indexing and stop_gradient); each runs on tapejax
(tj.numpy under GradientTape / ForwardAccumulator / nested tapes) and on raw jax.numpy, and tapejax's
gradients, JVPs and second derivatives (Hessian-vector products) must equal jax.grad / jax.jvp of the
raw program.

Sensitivity (checked when this file was last changed): replacing the backward kernel of any op the
programs use (add, subtract, multiply, divide, negative, tanh, sin, exp, sum, mean, max, getitem) with
one 1% off makes the test fail (sum, mean, add, subtract, negative, multiply and tanh are in every
program's output). Time goes into compiling each new (op, shapes) kernel once (~500 XLA
compiles for these examples, most of the run; each further example adds ~15), so the examples are few
but each one a different program."""
from __future__ import annotations

import types

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

import tapejax as tj
from conftest import close_scaled

SHAPES = [(3, 4), (4,), (3, 1), ()]
UNARY = ["tanh", "sin", "square", "neg", "exp_tanh", "sum_all", "sum_last", "mean_first", "max_last",
         "slice_last", "perm_first", "flip_last", "stop_gradient", "scale"]
BINARY = ["add", "subtract", "multiply", "mul_add", "divide"]

TJ = types.SimpleNamespace(np=tj.numpy, stop_gradient=tj.stop_gradient)
JX = types.SimpleNamespace(np=jnp, stop_gradient=jax.lax.stop_gradient)


def _unary(kind, v, shape, lib):
    n = lib.np
    if kind == "tanh":
        return n.tanh(v), shape
    if kind == "sin":
        return n.sin(v), shape
    if kind == "square":
        return v * v, shape
    if kind == "neg":
        return -v, shape
    if kind == "exp_tanh":
        return n.exp(n.tanh(v)), shape
    if kind == "scale":
        return v * 0.5 + 1.0, shape
    if kind == "stop_gradient":
        return lib.stop_gradient(v), shape
    if kind == "sum_all":
        return n.sum(v), ()
    if not shape:
        return v * 2.0, shape
    if kind == "sum_last":
        return n.sum(v, axis=-1, keepdims=True), shape[:-1] + (1,)
    if kind == "mean_first":
        return n.mean(v, axis=0, keepdims=True), (1,) + shape[1:]
    if kind == "max_last":
        return n.max(v, axis=-1, keepdims=True), shape[:-1] + (1,)
    if kind == "slice_last":
        return v[..., :1], shape[:-1] + (1,)
    if kind == "perm_first" and shape[0] == 3:
        return v[np.array([2, 0, 1])], shape
    if kind == "flip_last":
        return v[..., ::-1], shape
    return n.cos(v), shape


def _binary(kind, a, b, sa, sb):
    shape = np.broadcast_shapes(sa, sb)
    if kind == "add":
        return a + b, shape
    if kind == "subtract":
        return a - b, shape
    if kind == "multiply":
        return a * b, shape
    if kind == "divide":
        return a / (1.0 + b * b), shape
    return a * 0.5 + b * b, shape


def run(program, inputs, shapes, lib):
    """The program's scalar output; every value computed is kept (fan-out: later ops reuse any of them)."""
    vals, vshapes = list(inputs), list(shapes)
    for kind, i, j in program:
        i %= len(vals)
        j %= len(vals)
        if kind in BINARY:
            v, s = _binary(kind, vals[i], vals[j], vshapes[i], vshapes[j])
        else:
            v, s = _unary(kind, vals[i], vshapes[i], lib)
        vals.append(v)
        vshapes.append(s)
    # the last value plus a little of every other: all inputs and branches reach the output (through
    # sum and mean, added, subtracted and negated, so every program also checks those ops)
    out = lib.np.sum(vals[-1])
    for k, v in enumerate(vals[:-1]):
        if k % 3 == 0:
            out = out + 0.1 * lib.np.sum(lib.np.tanh(v))
        elif k % 3 == 1:
            out = out - 0.1 * lib.np.mean(lib.np.tanh(v))
        else:
            out = out + -(0.1 * lib.np.sum(lib.np.tanh(v)))
    return out


@st.composite
def programs(draw):
    """(input shapes, [(op, i, j), ...], seed). The ops are 3-5 distinct ones drawn uniformly (through
    hypothesis's own ``randoms``), so the examples spread over all ops instead of hypothesis's near-copies
    of one short program; i and j pick any earlier value (fan-out)."""
    n_inputs = draw(st.integers(2, 3))
    shape_idx = draw(st.lists(st.sampled_from(range(len(SHAPES) - 1)), min_size=n_inputs, max_size=n_inputs))
    rnd = draw(st.randoms(use_true_random=False))
    kinds = rnd.sample(UNARY + BINARY, draw(st.integers(2, 4)))
    program = [(k, draw(st.integers(0, 50)), draw(st.integers(0, 50))) for k in kinds]
    return shape_idx, program, draw(st.integers(0, 2**31 - 1))


@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs())
def test_random_programs_match_jax(spec):
    shape_idx, program, seed = spec
    shapes = [SHAPES[k] for k in shape_idx]
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(-1, 1, size=s).astype(np.float32) for s in shapes]
    tangents = [rng.uniform(-1, 1, size=s).astype(np.float32) for s in shapes]
    weights = [rng.uniform(-1, 1, size=s).astype(np.float32) for s in shapes]
    n = len(arrays)

    def f(*xs):
        return run(program, xs, shapes, JX)

    jx = [jnp.asarray(a) for a in arrays]
    want_out = f(*jx)
    want_grads = jax.grad(f, argnums=tuple(range(n)))(*jx)
    _, want_jvp = jax.jvp(f, tuple(jx), tuple(jnp.asarray(t) for t in tangents))

    def hvp_target(*xs):
        g = jax.grad(f, argnums=tuple(range(n)))(*xs)
        return sum(jnp.sum(gi * w) for gi, w in zip(g, weights))
    want_hvp = jax.grad(hvp_target, argnums=tuple(range(n)))(*jx)

    xs = [tj.constant(a) for a in arrays]
    # reverse mode
    with tj.GradientTape() as tape:
        tape.watch(xs)
        out = run(program, xs, shapes, TJ)
    close_scaled(out.numpy(), want_out, "output")
    grads = tape.gradient(out, xs, unconnected_gradients="zero")
    for k, (g, w) in enumerate(zip(grads, want_grads)):
        close_scaled(g.numpy(), w, f"gradient of input {k}")
    # forward mode
    with tj.ForwardAccumulator(xs, [tj.constant(t) for t in tangents]) as acc:
        out = run(program, xs, shapes, TJ)
    close_scaled(acc.jvp(out, unconnected_gradients="zero").numpy(), want_jvp, "jvp")
    # second order: nested tapes (a Hessian-vector product)
    with tj.GradientTape() as outer:
        outer.watch(xs)
        with tj.GradientTape() as inner:
            inner.watch(xs)
            out = run(program, xs, shapes, TJ)
        g = inner.gradient(out, xs, unconnected_gradients="zero")
        target = tj.numpy.add_n([tj.numpy.sum(gi * w) for gi, w in zip(g, weights)])
    hvp = outer.gradient(target, xs, unconnected_gradients="zero")
    for k, (h, w) in enumerate(zip(hvp, want_hvp)):
        close_scaled(h.numpy(), w, f"second derivative (HVP) w.r.t. input {k}")
