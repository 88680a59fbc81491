"""TF's derivative conventions at kinks and ties, in reverse mode (tape) and forward mode (JVP kernel and
ForwardAccumulator).

Expected values are worked out by hand from TF's registered gradients (tensorflow/python/ops/math_grad.py,
nn_grad.py and the *Grad kernels), not from tapejax:
  MaximumGrad: xmask = x >= y  -> dx = g * xmask, dy = g * !xmask        (tie: all to x)
  MinimumGrad: xmask = x <= y  -> same pattern                            (tie: all to x)
  ClipByValueGrad: dx = g where !(x < lo or x > hi)                       (bounds: pass to x)
  AbsGrad: g * sign(x)                                                    (0 at 0)
  ReluGrad: g * (y > 0)                                                   (0 at 0)
  SqrtGrad: 0 if g == 0 else g * 0.5 / y                                  (no NaN from a zero g)
  PowGrad: dx = mul_no_nan(y * x**(y-1), g), dy = mul_no_nan(z * log_x, g), log_x = 0 where x <= 0
"""
from __future__ import annotations

import numpy as np
import pytest

import tapejax as tj
tnp = tj.numpy


def _np(t):
    return None if t is None else np.asarray(t.numpy() if isinstance(t, tj.Tensor) else t, np.float64)


def grads(f, *xs):
    """Reverse mode: gradient of sum(f(*xs)) w.r.t. each x."""
    ts = [tj.constant(np.asarray(x, np.float32)) for x in xs]
    with tj.GradientTape() as tape:
        tape.watch(ts)
        y = f(*ts)
    return [_np(g) for g in tape.gradient(y, ts)]


def jvp(f, xs, tangents):
    """Forward mode through the ForwardAccumulator (the ops' JVP kernels)."""
    ts = [tj.constant(np.asarray(x, np.float32)) for x in xs]
    tans = [tj.constant(np.asarray(t, np.float32)) for t in tangents]
    with tj.ForwardAccumulator(ts, tans) as acc:
        y = f(*ts)
    return _np(acc.jvp(y, unconnected_gradients=tj.UnconnectedGradients.ZERO))


def kernel_jvp(op_name, args, tangents, static=None):
    """Forward mode through the op's JVP kernel directly."""
    import jax.numpy as jnp
    from tapejax.ops.core import registry
    op = registry()[op_name]
    static = static or {}
    raw = tuple(jnp.asarray(np.asarray(a, np.float32)) for a in args)
    out = op.fn(*raw, **static)
    t = tuple(jnp.asarray(np.asarray(x, np.float32)) for x in tangents)
    return _np(op.kernels(static).jvp(tuple(range(len(raw))), raw, t, out))


# -- maximum / minimum ties --------------------------------------------------------------------------

X = [1.0, 2.0, 3.0]
Y = [1.0, 5.0, 0.0]  # tie, y larger, x larger


def test_maximum_tie_reverse():
    gx, gy = grads(tnp.maximum, X, Y)
    np.testing.assert_array_equal(gx, [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(gy, [0.0, 1.0, 0.0])


def test_minimum_tie_reverse():
    gx, gy = grads(tnp.minimum, X, Y)
    np.testing.assert_array_equal(gx, [1.0, 1.0, 0.0])
    np.testing.assert_array_equal(gy, [0.0, 0.0, 1.0])


def test_maximum_minimum_tie_swapped_arguments():
    # the first argument wins the tie, whichever it is
    gy, gx = grads(tnp.maximum, Y, X)
    np.testing.assert_array_equal(gy, [1.0, 1.0, 0.0])
    np.testing.assert_array_equal(gx, [0.0, 0.0, 1.0])
    gy, gx = grads(tnp.minimum, Y, X)
    np.testing.assert_array_equal(gy, [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(gx, [0.0, 1.0, 0.0])


@pytest.mark.parametrize("mode", ["accumulator", "kernel"])
def test_maximum_minimum_tie_forward(mode):
    tx, ty = [10.0, 20.0, 30.0], [100.0, 200.0, 300.0]
    if mode == "accumulator":
        mx = jvp(tnp.maximum, [X, Y], [tx, ty])
        mn = jvp(tnp.minimum, [X, Y], [tx, ty])
    else:
        mx = kernel_jvp("maximum", [X, Y], [tx, ty])
        mn = kernel_jvp("minimum", [X, Y], [tx, ty])
    # tie -> tangent of x; otherwise the tangent of the selected argument
    np.testing.assert_array_equal(mx, [10.0, 200.0, 30.0])
    np.testing.assert_array_equal(mn, [10.0, 20.0, 300.0])


def test_maximum_tie_with_broadcast_scalar():
    # relu written as maximum(x, 0): at 0 the gradient goes to x (TF), summed per broadcast for y
    gx, gy = grads(tnp.maximum, [-1.0, 0.0, 2.0], 0.0)
    np.testing.assert_array_equal(gx, [0.0, 1.0, 1.0])
    np.testing.assert_array_equal(gy, 1.0)


# -- clip at its bounds ----------------------------------------------------------------------------------

def test_clip_bounds_pass_gradient_reverse():
    x = [-2.0, -1.0, 0.0, 1.0, 2.0]
    (gx,) = grads(lambda t: tnp.clip(t, -1.0, 1.0), x)
    np.testing.assert_array_equal(gx, [0.0, 1.0, 1.0, 1.0, 0.0])


def test_clip_bounds_gradient_to_tensor_bounds():
    x, lo, hi = [-2.0, -1.0, 0.0, 1.0, 2.0], [-1.0] * 5, [1.0] * 5
    gx, glo, ghi = grads(tnp.clip, x, lo, hi)
    np.testing.assert_array_equal(gx, [0.0, 1.0, 1.0, 1.0, 0.0])
    np.testing.assert_array_equal(glo, [1.0, 0.0, 0.0, 0.0, 0.0])  # only strictly below
    np.testing.assert_array_equal(ghi, [0.0, 0.0, 0.0, 0.0, 1.0])  # only strictly above


@pytest.mark.parametrize("mode", ["accumulator", "kernel"])
def test_clip_bounds_forward(mode):
    x, lo, hi = [-2.0, -1.0, 0.0, 1.0, 2.0], [-1.0] * 5, [1.0] * 5
    tx, tlo, thi = [1.0, 2.0, 3.0, 4.0, 5.0], [10.0] * 5, [100.0] * 5
    if mode == "accumulator":
        t = jvp(tnp.clip, [x, lo, hi], [tx, tlo, thi])
    else:
        t = kernel_jvp("clip", [x, lo, hi], [tx, tlo, thi])
    np.testing.assert_array_equal(t, [10.0, 2.0, 3.0, 4.0, 100.0])


# -- abs and relu at 0 -------------------------------------------------------------------------------------

def test_abs_at_zero():
    (g,) = grads(tnp.abs, [-2.0, 0.0, 3.0])
    np.testing.assert_array_equal(g, [-1.0, 0.0, 1.0])
    np.testing.assert_array_equal(jvp(tnp.abs, [[-2.0, 0.0, 3.0]], [[5.0, 5.0, 5.0]]), [-5.0, 0.0, 5.0])
    np.testing.assert_array_equal(kernel_jvp("abs", [[-2.0, 0.0, 3.0]], [[5.0, 5.0, 5.0]]), [-5.0, 0.0, 5.0])


def test_relu_at_zero():
    (g,) = grads(tj.nn.relu, [-2.0, 0.0, 3.0])
    np.testing.assert_array_equal(g, [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(jvp(tj.nn.relu, [[-2.0, 0.0, 3.0]], [[5.0, 5.0, 5.0]]), [0.0, 0.0, 5.0])
    np.testing.assert_array_equal(kernel_jvp("relu", [[-2.0, 0.0, 3.0]], [[5.0, 5.0, 5.0]]), [0.0, 0.0, 5.0])


def test_relu6_kinks():
    (g,) = grads(tj.nn.relu6, [-1.0, 0.0, 3.0, 6.0, 7.0])
    np.testing.assert_array_equal(g, [0.0, 0.0, 1.0, 0.0, 0.0])


def test_leaky_relu_at_zero():
    # TF LeakyReluGrad: x > 0 ? g : alpha * g
    (g,) = grads(lambda t: tj.nn.leaky_relu(t, 0.2), [-1.0, 0.0, 2.0])
    np.testing.assert_allclose(g, [0.2, 0.2, 1.0], rtol=1e-6)


def test_abs_second_order_at_zero():
    x = tj.constant([0.0, 2.0])
    with tj.GradientTape() as outer:
        outer.watch(x)
        with tj.GradientTape() as inner:
            inner.watch(x)
            y = tnp.abs(x)
        g = inner.gradient(y, x)
    h = outer.gradient(g, x, unconnected_gradients="zero")
    np.testing.assert_array_equal(_np(g), [0.0, 1.0])
    np.testing.assert_array_equal(_np(h), [0.0, 0.0])


# -- sqrt at 0 -----------------------------------------------------------------------------------------------

def test_sqrt_zero_incoming_gradient_gives_zero():
    x = tj.constant([0.0, 4.0])
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.sqrt(x)
    g = tape.gradient(y, x, output_gradients=tj.constant([0.0, 1.0]))
    np.testing.assert_array_equal(_np(g), [0.0, 0.25])


def test_sqrt_at_zero_nonzero_gradient_is_inf():
    # TF: 0.5 * g / sqrt(0) = inf (only a zero incoming gradient is special)
    (g,) = grads(tnp.sqrt, [0.0])
    assert np.isinf(g[0]) and g[0] > 0


def test_std_of_equal_values_with_zero_incoming_gradient_gives_zero():
    # TF's reduce_std is sqrt(reduce_variance): SqrtGrad's 0 where the incoming gradient is 0, so a row of equal
    # values (std 0) given no gradient gets 0, and one given a gradient NaN (0 * inf), as TF 2.21 (TF program
    # differential seed 12181: a std clipped to a bound, then log_softmax). jax.numpy.std's derivative gave NaN
    # for both rows; forward mode keeps the same rule.
    x = tj.constant([[1.0, 1.0], [1.0, 0.0]])
    for lazy in (True, False):
        with tj.config.override(lazy=lazy):
            with tj.GradientTape() as tape:
                tape.watch(x)
                s = tnp.std(x, axis=-1, keepdims=True)
            g = tape.gradient(s, x, output_gradients=tj.constant([[0.0], [1.0]]))
            np.testing.assert_array_equal(_np(g), [[0.0, 0.0], [0.5, -0.5]])
            with tj.GradientTape() as tape:
                tape.watch(x)
                s = tnp.std(x, axis=-1, keepdims=True)
            g = _np(tape.gradient(s, x))
            assert np.all(np.isnan(g[0])) and np.array_equal(g[1], [0.5, -0.5])
    with tj.ForwardAccumulator(x, tj.constant([[1.0, 1.0], [1.0, 0.0]])) as acc:
        s = tnp.std(x, axis=-1, keepdims=True)
    np.testing.assert_array_equal(_np(acc.jvp(s)), [[0.0], [0.5]])


def test_where_sqrt_has_no_nan_gradient():
    u = tj.constant([0.0, 4.0, -1.0])
    with tj.GradientTape() as tape:
        tape.watch(u)
        y = tnp.where(u > 0, tnp.sqrt(tnp.maximum(u, 0.0)), 0.0)
    g = _np(tape.gradient(y, u))
    assert not np.any(np.isnan(g)), g
    np.testing.assert_array_equal(g, [0.0, 0.25, 0.0])


def test_where_sqrt_no_nan_tangent():
    t = jvp(lambda u: tnp.where(u > 0, tnp.sqrt(u), 0.0), [[0.0, 4.0]], [[0.0, 1.0]])
    np.testing.assert_array_equal(t, [0.0, 0.25])
    np.testing.assert_array_equal(kernel_jvp("sqrt", [[0.0, 4.0]], [[0.0, 1.0]]), [0.0, 0.25])


def test_where_sqrt_second_order_away_from_zero():
    # At u = 0 TF's SqrtGradGrad gives NaN too (mul_no_nan(0, grad / 0)), so only u > 0 is pinned down.
    u = tj.constant([0.0, 4.0])
    with tj.GradientTape() as outer:
        outer.watch(u)
        with tj.GradientTape() as inner:
            inner.watch(u)
            y = tnp.where(u > 0, tnp.sqrt(u), 0.0)
        g = inner.gradient(y, u)
    np.testing.assert_array_equal(_np(g), [0.0, 0.25])
    h = _np(outer.gradient(g, u))
    # d2/du2 sqrt(u) = -1/4 u^(-3/2) = -1/32 at 4
    np.testing.assert_allclose(h[1], -1.0 / 32.0, rtol=1e-6)


# -- power --------------------------------------------------------------------------------------------------

def test_power_gradients_positive_base():
    x, y = [2.0, 3.0], [3.0, 0.5]
    gx, gy = grads(tnp.power, x, y)
    np.testing.assert_allclose(gx, [3.0 * 4.0, 0.5 / np.sqrt(3.0)], rtol=1e-6)
    np.testing.assert_allclose(gy, [8.0 * np.log(2.0), np.sqrt(3.0) * np.log(3.0)], rtol=1e-6)


def test_power_gradient_exponent_zero_where_base_not_positive():
    # TF: log_x = where(x > 0, log(x), 0): the exponent gets 0 where x <= 0 (JAX would give NaN at x < 0)
    x, y = [-2.0, 0.0], [3.0, 2.0]
    gx, gy = grads(tnp.power, x, y)
    np.testing.assert_allclose(gx, [3.0 * 4.0, 0.0], rtol=1e-6)  # y * x**(y-1)
    np.testing.assert_array_equal(gy, [0.0, 0.0])


def test_power_forward_mode_matches_tf_rule():
    x, y = [-2.0, 2.0], [3.0, 3.0]
    t = jvp(tnp.power, [x, y], [[1.0, 1.0], [1.0, 1.0]])
    # tx * y x^(y-1) + ty * x^y log_x with log_x = 0 at x <= 0
    np.testing.assert_allclose(t, [12.0, 12.0 + 8.0 * np.log(2.0)], rtol=1e-6)


def test_power_zero_incoming_gradient_at_zero_base():
    # mul_no_nan: 0.5 * 0**-0.5 = inf times a zero gradient is 0, not NaN
    x = tj.constant([0.0, 4.0])
    with tj.GradientTape() as tape:
        tape.watch(x)
        z = tnp.power(x, 0.5)
    g = _np(tape.gradient(z, x, output_gradients=tj.constant([0.0, 1.0])))
    np.testing.assert_array_equal(g, [0.0, 0.25])


def test_power_integer_exponent_at_zero():
    # x**2 at 0: 2 * 0**1 = 0; x**1 at 0: 1 * 0**0 = 1
    (g2,) = grads(lambda t: tnp.power(t, 2.0), [0.0])
    (g1,) = grads(lambda t: tnp.power(t, 1.0), [0.0])
    np.testing.assert_array_equal(g2, [0.0])
    np.testing.assert_array_equal(g1, [1.0])


# -- the reduction max: ties share the gradient (TF's reduce_max) ----------------------------------------

def test_reduce_max_ties_share_gradient():
    (g,) = grads(lambda t: tnp.max(t), [1.0, 3.0, 3.0])
    np.testing.assert_allclose(g, [0.0, 0.5, 0.5])


@pytest.mark.parametrize("kind", ["max", "min"])
def test_reduce_max_min_weights_without_the_conditional_are_the_same(kind, monkeypatch):
    """On accelerators the reduction's backward computes the search for elements near a result no element
    equals (a fused program's rounding, path fuzz seed 349) always, not under ``lax.cond`` (XLA:GPU reads a
    conditional's predicate back to the host): the same weights, bit for bit, as the conditional gives on the
    CPU: for ties, NaN, and a result a few units off every element."""
    import jax
    import jax.numpy as jnp
    from tapejax.ops import numpy as ops_numpy
    bwd = ops_numpy._min_max_bwd
    x = jnp.asarray([[1.0, 3.0, 3.0, -2.0], [0.5, np.nan, 0.25, 0.5], [2.0, 1.0 + 2 ** -20, 1.0, 7.0]], jnp.float32)
    reduce = jnp.max if kind == "max" else jnp.min
    y = reduce(x, axis=1)
    # The last row's result a few units in the last place off every element (as fused rounding leaves it).
    y = y.at[2].set(jnp.nextafter(jnp.nextafter(y[2], jnp.inf), jnp.inf))
    g = jnp.asarray([1.0, -2.0, 0.5], jnp.float32)

    def run():
        return np.asarray(jax.jit(lambda x, y, g: bwd(((x,), y), g, axis=1))(x, y, g)[0])
    with_cond = run()
    monkeypatch.setattr(ops_numpy, "_conditionals_are_cheap", lambda: False)
    without = run()
    np.testing.assert_array_equal(without, with_cond)
    assert np.isnan(with_cond[1]).all() and np.isfinite(with_cond[[0, 2]]).all()
    assert with_cond[2].sum() == pytest.approx(0.5)  # (the near elements share the last row's gradient)


def test_clip_gradient_follows_the_value_where_lo_exceeds_hi_or_x_is_nan():
    """jnp.clip is minimum(maximum(x, lo), hi): where lo > hi the value is hi, so hi alone gets the gradient (it
    went to lo and hi both). Where x or a bound is NaN, lo gets it, as TF 2.21's clip_by_value (maximum(minimum(x,
    hi), lo)): for x = NaN, lo = -1, hi = 1 TF's gradients are x 0, lo 1, hi 0, and likewise for a NaN lo or hi,
    in reverse and forward mode (tapejax gave x 1; jax.grad gives 0 to all three). Forward mode's one-hot
    tangents give the same three columns."""
    nan = float("nan")
    x0 = np.array([0.0, 5.0, nan, 2.0, -1.5, 0.3, 0.5, 0.5], np.float32)
    lo0 = np.array([2.0, 2.0, -1.0, 2.0, -1.0, -1.0, nan, -1.0], np.float32)
    hi0 = np.array([-1.0, -1.0, 1.0, 2.0, 1.0, 1.0, 1.0, nan], np.float32)
    expected = {0: [0, 0, 0, 1, 0, 1, 0, 0], 1: [0, 0, 1, 0, 1, 0, 1, 1], 2: [1, 1, 0, 0, 0, 0, 0, 0]}  # x, lo, hi
    args = [tj.constant(a) for a in (x0, lo0, hi0)]
    with tj.GradientTape() as tape:
        tape.watch(args)
        y = tj.numpy.clip(*args)
    for k, g in enumerate(tape.gradient(y, args)):
        np.testing.assert_array_equal(g.numpy(), expected[k])
    for k in range(3):
        tangents = [tj.constant(np.full(8, float(j == k), np.float32)) for j in range(3)]
        with tj.ForwardAccumulator(args, tangents) as acc:
            y = tj.numpy.clip(*args)
        np.testing.assert_array_equal(acc.jvp(y).numpy(), expected[k])
