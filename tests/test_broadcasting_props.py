"""Property tests: broadcasting binary ops and where, tape gradients (and tangents) against jax.vjp/jax.jvp
on random broadcast-compatible shapes."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tapejax as tj

tnp = tj.numpy

# (derandomized: the same shapes every run, so CI and a local run check the same cases)
SETTINGS = settings(max_examples=10, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])

# (tj op, jax reference, keep y away from 0?) -- maximum is checked off ties (generated values are distinct
# with probability 1; ties follow TF's convention, tested in test_op_conventions.py)
BINARY = {
    "add": (tnp.add, jnp.add),
    "subtract": (tnp.subtract, jnp.subtract),
    "multiply": (tnp.multiply, jnp.multiply),
    "divide": (tnp.divide, jnp.divide),
    "maximum": (tnp.maximum, jnp.maximum),
}


@st.composite
def broadcast_pair(draw, n=2):
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=n, min_dims=0, max_dims=3, min_side=1, max_side=3))
    seed = draw(st.integers(0, 2 ** 31 - 1))
    return shapes.input_shapes, shapes.result_shape, seed


def _vals(rng, shape, positive=False):
    v = rng.uniform(0.5, 2.0, size=shape) if positive else rng.uniform(-2.0, 2.0, size=shape)
    if positive:
        v = v * np.where(rng.uniform(size=shape) < 0.5, -1.0, 1.0)  # |v| >= 0.5: away from division by 0
    return np.asarray(v, np.float32)


def _check(got, expected, what):
    assert got is not None, what
    got = np.asarray(got.numpy())
    assert got.shape == np.shape(expected), f"{what}: shape {got.shape} vs {np.shape(expected)}"
    np.testing.assert_allclose(got, np.asarray(expected), rtol=1e-5, atol=1e-5, err_msg=what)


@pytest.mark.parametrize("name", sorted(BINARY))
@SETTINGS
@given(case=broadcast_pair())
def test_binary_broadcast_gradients(name, case):
    (sx, sy), out_shape, seed = case
    f, ref = BINARY[name]
    rng = np.random.default_rng(seed)
    x = _vals(rng, sx)
    y = _vals(rng, sy, positive=(name == "divide"))
    ct = np.asarray(rng.standard_normal(out_shape), np.float32)

    out, vjp = jax.vjp(ref, jnp.asarray(x), jnp.asarray(y))
    ex, ey = vjp(jnp.asarray(ct))

    tx, ty = tj.constant(x), tj.constant(y)
    with tj.GradientTape() as tape:
        tape.watch([tx, ty])
        z = f(tx, ty)
    assert tuple(z.shape) == tuple(out_shape)
    np.testing.assert_allclose(z.numpy(), np.asarray(out), rtol=1e-6, atol=1e-6)
    gx, gy = tape.gradient(z, [tx, ty], output_gradients=tj.constant(ct))
    _check(gx, ex, f"{name} d/dx {sx} {sy}")
    _check(gy, ey, f"{name} d/dy {sx} {sy}")

    # forward mode: tangents of both arguments
    vx = np.asarray(rng.standard_normal(sx), np.float32)
    vy = np.asarray(rng.standard_normal(sy), np.float32)
    _, et = jax.jvp(ref, (jnp.asarray(x), jnp.asarray(y)), (jnp.asarray(vx), jnp.asarray(vy)))
    with tj.ForwardAccumulator([tx, ty], [tj.constant(vx), tj.constant(vy)]) as acc:
        z = f(tx, ty)
    _check(acc.jvp(z), et, f"{name} jvp {sx} {sy}")


@SETTINGS
@given(case=broadcast_pair(n=3))
def test_where_broadcast_gradients(case):
    (sc, sx, sy), out_shape, seed = case
    rng = np.random.default_rng(seed)
    cond = rng.uniform(size=sc) < 0.5
    x, y = _vals(rng, sx), _vals(rng, sy)
    ct = np.asarray(rng.standard_normal(out_shape), np.float32)

    out, vjp = jax.vjp(lambda a, b: jnp.where(jnp.asarray(cond), a, b), jnp.asarray(x), jnp.asarray(y))
    ex, ey = vjp(jnp.asarray(ct))

    tx, ty = tj.constant(x), tj.constant(y)
    with tj.GradientTape() as tape:
        tape.watch([tx, ty])
        z = tnp.where(tj.constant(cond), tx, ty)
    assert tuple(z.shape) == tuple(out_shape)
    np.testing.assert_array_equal(z.numpy(), np.asarray(out))
    gx, gy = tape.gradient(z, [tx, ty], output_gradients=tj.constant(ct))
    _check(gx, ex, f"where d/dx {sc} {sx} {sy}")
    _check(gy, ey, f"where d/dy {sc} {sx} {sy}")


@SETTINGS
@given(case=broadcast_pair())
def test_binary_mixed_argument_kinds(case):
    """Tensors, Variables, numpy arrays and Python numbers mix under broadcasting; gradients reach the
    Variable and the Tensor only."""
    (sx, sy), out_shape, seed = case
    rng = np.random.default_rng(seed)
    x, y = _vals(rng, sx), _vals(rng, sy)
    v = tj.Variable(x)
    t = tj.constant(y)
    with tj.GradientTape() as tape:
        tape.watch(t)
        z = tnp.multiply(tnp.add(v, np.float32(2.0)), t) - 3.0 * tnp.maximum(t, np.zeros(sy, np.float32))
    gv, gt = tape.gradient(z, [v, t])
    ev, et = jax.grad(lambda a, b: jnp.sum((a + 2.0) * b - 3.0 * jnp.maximum(b, 0.0)), argnums=(0, 1))(
        jnp.asarray(x), jnp.asarray(y))
    _check(gv, ev, "variable")
    _check(gt, et, "tensor")
