"""tj.ForwardAccumulator: forward-mode JVPs, nesting with tapes/accumulators, errors, memory."""
import gc

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from tapejax import numpy as tnp
from conftest import close


# --- the same math written for tapejax (m=tnp) and for jax (m=jnp) ---

def chain_elementwise(m, x):
    return m.sin(x) * m.exp(x) + m.log1p(x * x) / (1.0 + m.tanh(x))


def chain_linear(m, x, w):
    return m.sum(m.tanh(m.matmul(x, w)) ** 2, axis=-1)


def chain_reduce(m, x):
    y = m.sqrt(x * x + 1.0)
    return m.mean(m.cumsum(y, axis=0) * m.cos(y))


KEY = jax.random.PRNGKey(0)


@pytest.mark.parametrize("fn", [chain_elementwise, chain_reduce])
def test_jvp_single_input_chains(fn):
    x0 = jax.random.normal(KEY, (3, 4), jnp.float32)
    v0 = jax.random.normal(jax.random.PRNGKey(1), (3, 4), jnp.float32)
    x = tj.constant(x0)
    with tj.ForwardAccumulator(x, tj.constant(v0)) as acc:
        y = fn(tnp, x)
    want_y, want_t = jax.jit(lambda a, v: jax.jvp(lambda b: fn(jnp, b), (a,), (v,)))(x0, v0)
    close(y, want_y)
    close(acc.jvp(y), want_t, rtol=1e-4, atol=1e-5)


def test_jvp_two_inputs_matmul():
    x0 = jax.random.normal(KEY, (5, 3), jnp.float32)
    w0 = jax.random.normal(jax.random.PRNGKey(2), (3, 4), jnp.float32)
    vx = jax.random.normal(jax.random.PRNGKey(3), (5, 3), jnp.float32)
    vw = jax.random.normal(jax.random.PRNGKey(4), (3, 4), jnp.float32)
    x, w = tj.constant(x0), tj.constant(w0)
    with tj.ForwardAccumulator([x, w], [vx, vw]) as acc:
        y = chain_linear(tnp, x, w)
    _, want = jax.jit(lambda *p: jax.jvp(lambda a, b: chain_linear(jnp, a, b), p[:2], p[2:]))(x0, w0, vx, vw)
    close(acc.jvp(y), want, rtol=1e-4, atol=1e-5)
    # only w has a tangent: a separate accumulator
    with tj.ForwardAccumulator(w, vw) as acc2:
        y2 = chain_linear(tnp, x, w)
    _, want2 = jax.jit(lambda b, t: jax.jvp(lambda c: chain_linear(jnp, x0, c), (b,), (t,)))(w0, vw)
    close(acc2.jvp(y2), want2, rtol=1e-4, atol=1e-5)


def test_python_operators_and_indexing():
    x0 = jnp.array([0.5, 1.5, -2.0], jnp.float32)
    v0 = jnp.array([1.0, -1.0, 0.5], jnp.float32)
    x = tj.constant(x0)

    def f(m, a):
        return a[jnp.array([2, 0, 0])] * a[1] - a ** 2

    with tj.ForwardAccumulator(x, v0) as acc:
        y = f(tnp, x)
    _, want = jax.jit(lambda a, v: jax.jvp(lambda b: f(jnp, b), (a,), (v,)))(x0, v0)
    close(acc.jvp(y), want)


def test_nested_structures_of_primals_and_tangents():
    a0, b0, c0 = jnp.float32(1.5), jnp.array([1.0, 2.0], jnp.float32), jnp.array([[3.0]], jnp.float32)
    ta, tb, tc = jnp.float32(0.5), jnp.array([-1.0, 2.0], jnp.float32), jnp.array([[4.0]], jnp.float32)
    a, b, c = tj.constant(a0), tj.constant(b0), tj.constant(c0)
    primals = {"a": a, "rest": [b, (c,)]}
    tangents = {"a": ta, "rest": [tb, (tc,)]}
    with tj.ForwardAccumulator(primals, tangents) as acc:
        y1 = a * tnp.sum(b)
        y2 = tnp.exp(c) * b
    out = acc.jvp({"first": y1, "second": (y2, [a])})
    assert isinstance(out, dict) and set(out) == {"first", "second"}
    assert isinstance(out["second"], tuple) and isinstance(out["second"][1], list)

    def f(a_, b_, c_):
        return a_ * jnp.sum(b_), jnp.exp(c_) * b_
    _, (w1, w2) = jax.jit(lambda p, t: jax.jvp(f, p, t))((a0, b0, c0), (ta, tb, tc))
    close(out["first"], w1)
    close(out["second"][0], w2)
    close(out["second"][1][0], ta)  # a primal's own tangent


def test_mismatched_structures_raise():
    a, b = tj.constant(1.0), tj.constant(2.0)
    with pytest.raises(ValueError):
        tj.ForwardAccumulator([a, b], [1.0])


def test_variable_as_primal_reads_carry_tangent():
    v = tj.Variable([1.0, 2.0, 3.0])
    tan = jnp.array([0.1, 0.2, 0.3], jnp.float32)
    with tj.ForwardAccumulator(v, tan) as acc:
        y = tnp.sum(v * v)           # read through an operator
        z = tnp.exp(v.read_value())  # explicit read
    close(acc.jvp(y), 2.0 * jnp.sum(jnp.array([1.0, 2.0, 3.0]) * tan))
    close(acc.jvp(z), jnp.exp(jnp.array([1.0, 2.0, 3.0])) * tan)
    close(acc.jvp(v), tan)


def test_unwatched_inputs_are_zero_tangents():
    x0, c0 = jnp.float32(0.7), jnp.float32(2.5)
    x, c = tj.constant(x0), tj.constant(c0)
    with tj.ForwardAccumulator(x, 1.0) as acc:
        y = x * c + tnp.sin(c) * x ** 2
    want = jax.jit(jax.grad(lambda a: a * c0 + jnp.sin(c0) * a ** 2))(x0)
    close(acc.jvp(y), want)


def test_unconnected_none_and_zero():
    x = tj.constant([1.0, 2.0])
    other = tj.constant([[3.0, 4.0, 5.0]])
    with tj.ForwardAccumulator(x, [1.0, 1.0]) as acc:
        u = other * 2.0
    assert acc.jvp(u) is None
    assert acc.jvp(u, unconnected_gradients=tj.UnconnectedGradients.NONE) is None
    z = acc.jvp(u, unconnected_gradients=tj.UnconnectedGradients.ZERO)
    assert z.shape == (1, 3) and z.dtype == jnp.float32
    close(z, np.zeros((1, 3)))
    z2 = acc.jvp([u], unconnected_gradients="zero")
    assert isinstance(z2, list) and z2[0].shape == (1, 3)
    with pytest.raises(ValueError):
        acc.jvp(u, unconnected_gradients="sometimes")


def test_tangent_shape_mismatch_raises():
    x = tj.constant([1.0, 2.0, 3.0])
    with pytest.raises(ValueError):
        tj.ForwardAccumulator(x, [1.0, 2.0])
    with pytest.raises(ValueError):
        tj.ForwardAccumulator(x, jnp.ones((3, 1), jnp.float32))


def test_tangent_dtype_mismatch_raises():
    x = tj.constant([1.0, 2.0])
    with pytest.raises(ValueError):
        tj.ForwardAccumulator(x, tj.constant(jnp.array([1.0, 2.0], jnp.float16)))
    v = tj.Variable([1.0, 2.0])
    with pytest.raises(ValueError):
        tj.ForwardAccumulator(v, tj.constant([1, 2]))


def test_same_primal_twice_raises():
    x = tj.constant(1.0)
    with pytest.raises(ValueError):
        tj.ForwardAccumulator([x, x], [1.0, 2.0])
    v = tj.Variable(1.0)
    with pytest.raises(ValueError):
        tj.ForwardAccumulator((v, v), (1.0, 1.0))


def test_forward_over_forward_second_derivative():
    def f(m, x):
        return m.sin(x) * x ** 3

    x0 = jnp.float32(0.8)
    x = tj.constant(x0)
    with tj.ForwardAccumulator(x, 1.0) as outer:
        with tj.ForwardAccumulator(x, 1.0) as inner:
            y = f(tnp, x)
        dy = inner.jvp(y)
    d2y = outer.jvp(dy)
    g = lambda a: f(jnp, a)
    want1 = jax.jit(jax.grad(g))(x0)
    want2 = jax.jit(jax.grad(jax.grad(g)))(x0)
    close(dy, want1, rtol=1e-5)
    close(d2y, want2, rtol=1e-4)
    # the outer accumulator also sees the primal computation
    close(outer.jvp(y), want1, rtol=1e-5)


def f_sin(m, x):
    return m.sum(m.sin(x) * x ** 2)


def test_forward_over_reverse_hvp():
    f = f_sin

    x0 = jnp.array([0.3, -1.2, 2.0], jnp.float32)
    v0 = jnp.array([1.0, 0.5, -2.0], jnp.float32)
    x = tj.constant(x0)
    with tj.ForwardAccumulator(x, v0) as acc:
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = f(tnp, x)
        g = tape.gradient(y, x)
    hvp = acc.jvp(g)
    g_fn = jax.grad(lambda a: f(jnp, a))
    want_g, want_hvp, hess = jax.jit(lambda a, v: jax.jvp(g_fn, (a,), (v,)) + (jax.hessian(lambda b: f(jnp, b))(a),))(x0, v0)
    close(g, want_g, rtol=1e-5)
    close(hvp, want_hvp, rtol=1e-4, atol=1e-5)
    close(hvp, hess @ v0, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("f", [lambda x: tnp.where(x > 0, x, 0.0), tnp.sinc, lambda x: tnp.logaddexp(x, 1.0)],
                         ids=["where", "sinc", "logaddexp"])
def test_tape_under_accumulator_differentiates_derived_kernels(f):
    """Ops whose backward kernel JAX derives (where, and what is built on it) took the recorded arguments as
    Tensors under an accumulator and failed ('Triggering __jax_array__() during abstractification'); the gradient
    and the tangent are those without the other."""
    x0 = np.array([0.5, -1.5, 2.0], np.float32)
    x = tj.constant(x0)
    with tj.ForwardAccumulator(x, tj.constant(np.ones(3, np.float32))) as acc:
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        g = tape.gradient(y, x)
    with tj.GradientTape() as plain:
        plain.watch(x)
        y_plain = f(x)
    close(g, plain.gradient(y_plain, x).numpy(), rtol=1e-6)
    close(acc.jvp(y), g.numpy(), rtol=1e-6)  # (elementwise: the tangent along ones is the gradient)


def test_forward_over_reverse_with_variable():
    v = tj.Variable([0.5, -0.25, 1.0])
    tan = jnp.array([1.0, 2.0, -1.0], jnp.float32)
    with tj.ForwardAccumulator(v, tan) as acc:
        with tj.GradientTape() as tape:
            y = f_sin(tnp, v)
        g = tape.gradient(y, v)
    x0 = jnp.array([0.5, -0.25, 1.0], jnp.float32)
    _, want = jax.jit(lambda p, t: jax.jvp(jax.grad(lambda a: jnp.sum(jnp.sin(a) * a ** 2)), (p,), (t,)))(x0, tan)
    close(acc.jvp(g), want, rtol=1e-4)


def test_reverse_over_forward():
    f = f_sin
    x0 = jnp.array([0.4, 1.1, -0.6], jnp.float32)
    v0 = jnp.array([2.0, -1.0, 0.5], jnp.float32)
    x = tj.constant(x0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        with tj.ForwardAccumulator(x, v0) as acc:
            y = f(tnp, x)
        jvp = acc.jvp(y)
    g = tape.gradient(jvp, x)
    want = jax.jit(jax.grad(lambda a: jax.jvp(lambda b: f(jnp, b), (a,), (v0,))[1]))(x0)
    close(jvp, jax.jit(lambda a: jax.jvp(lambda b: f(jnp, b), (a,), (v0,))[1])(x0), rtol=1e-5)
    close(g, want, rtol=1e-4)


def test_reverse_over_forward_wrt_tangent():
    # the JVP is linear in the tangent: gradient w.r.t. the tangent tensor is the gradient of f
    x0 = jnp.array([0.4, 1.1, -0.6], jnp.float32)
    x = tj.constant(x0)
    t = tj.constant([1.0, 1.0, 1.0])
    with tj.GradientTape() as tape:
        tape.watch(t)
        with tj.ForwardAccumulator(x, t) as acc:
            y = f_sin(tnp, x)
        jvp = acc.jvp(y)
    g = tape.gradient(jvp, t)
    close(g, jax.jit(jax.grad(lambda a: f_sin(jnp, a)))(x0), rtol=1e-5)


def test_accumulator_does_not_see_its_own_jvp_computations():
    x = tj.constant(1.5)
    with tj.ForwardAccumulator(x, 1.0) as acc:
        y = x * x * x
        dy = acc.jvp(y)
        # dy was computed by acc's own JVP kernels: acc must not have recorded a tangent for it
        assert acc.jvp(dy) is None
        # and a tensor computed from dy inside the accumulator has the JVP through dy only if dy
        # had a tangent, so it has none either
        z = dy * 2.0
        assert acc.jvp(z) is None
    close(dy, 3 * 1.5 ** 2)


def test_inner_accumulator_jvp_not_visible_to_itself_but_to_outer():
    x = tj.constant(0.5)
    with tj.ForwardAccumulator(x, 1.0) as outer:
        with tj.ForwardAccumulator(x, 1.0) as inner:
            y = tnp.exp(2.0 * x)
            d = inner.jvp(y)
            assert inner.jvp(d) is None
    close(outer.jvp(d), 4.0 * np.exp(1.0), rtol=1e-5)


def test_stop_recording_and_stop_gradient_under_accumulator():
    x = tj.constant(2.0)
    with tj.ForwardAccumulator(x, 1.0) as acc:
        with tj.stop_recording():
            a = x * 3.0
        b = tj.stop_gradient(x) * 3.0
        c = x * 3.0
    assert acc.jvp(a) is None
    assert acc.jvp(b) is None
    close(acc.jvp(c), 3.0)


def test_int_outputs_have_no_tangent():
    x = tj.constant([1.5, 2.5])
    with tj.ForwardAccumulator(x, [1.0, 1.0]) as acc:
        i = x.astype(jnp.int32)
        b = x > 2.0
    assert acc.jvp(i) is None
    assert acc.jvp(b) is None


def test_tangents_freed_when_tensor_dies():
    x = tj.constant(jnp.ones((16,), jnp.float32))
    with tj.ForwardAccumulator(x, jnp.ones((16,), jnp.float32)) as acc:
        base = len(acc._acc.tangents)
        ys = [tnp.sin(x) * float(i) for i in range(10)]
        gc.collect()
        grown = len(acc._acc.tangents)
        assert grown >= base + 10
        del ys
        gc.collect()
        assert len(acc._acc.tangents) <= grown - 10
        # the watched primal keeps its tangent
        assert acc.jvp(x) is not None


def test_reentering_active_accumulator_raises():
    x = tj.constant(1.0)
    acc = tj.ForwardAccumulator(x, 1.0)
    with acc:
        with pytest.raises(ValueError):
            acc.__enter__()


def test_batched_tangents_identity_basis_gives_jacobian():
    def f(m, x):
        return m.tanh(m.matmul(W0, x))

    W0 = jax.random.normal(KEY, (3, 4), jnp.float32)
    x0 = jax.random.normal(jax.random.PRNGKey(5), (4,), jnp.float32)
    x = tj.constant(x0)
    basis = jnp.eye(4, dtype=jnp.float32)
    with tj.ForwardAccumulator._batch_accumulator(x, basis) as acc:
        y = f(tnp, x)
    jt = acc.jvp(y)  # (4, 3): tangent k is J[:, k]
    assert jt.shape == (4, 3)
    want = jax.jit(jax.jacfwd(lambda a: f(jnp, a)))(x0)  # (3, 4)
    close(jt, want.T, rtol=1e-4, atol=1e-5)
    close(y, f(jnp, x0), rtol=1e-5)


def test_batched_tangent_shape_mismatch_raises():
    x = tj.constant(jnp.ones((4,), jnp.float32))
    with pytest.raises(ValueError):
        tj.ForwardAccumulator._batch_accumulator(x, jnp.ones((4, 3), jnp.float32))


def test_tangents_as_python_lists_inside_structure():
    a = tj.constant([1.0, 2.0])
    b = tj.constant(3.0)
    with tj.ForwardAccumulator([a, b], [[0.5, -1.0], 2.0]) as acc:
        y = tnp.sum(a * a) * b
    # d/dt [sum(a^2) b] = 2 a.ta b + sum(a^2) tb = 2*(0.5 - 2)*3 + 5*2
    close(acc.jvp(y), 2.0 * (0.5 - 2.0) * 3.0 + 5.0 * 2.0)


@pytest.mark.parametrize("exponent", [0.5, "tensor", "float_power"])
def test_power_with_a_broadcast_exponent_at_second_order_forward(exponent):
    """x ** p with a scalar exponent broadcast against x: forward over forward and a tape over an accumulator give
    p (p - 1) x ** (p - 2) (the exponent's rule once failed to lower, its tangent of the unbroadcast shape)."""
    x0 = np.array([1.0, 4.0], np.float32)
    p = 0.5 if exponent == 0.5 else 0.7
    f = {0.5: lambda x: x ** 0.5, "tensor": lambda x: tj.numpy.power(x, tj.constant(0.7)),
         "float_power": lambda x: tj.numpy.float_power(x, 0.7)}[exponent]
    expected = p * (p - 1) * x0.astype(np.float64) ** (p - 2)
    x = tj.constant(x0)
    ones = tj.constant(np.ones(2, np.float32))
    with tj.ForwardAccumulator(x, ones) as outer:
        with tj.ForwardAccumulator(x, ones) as inner:
            y = f(x)
        j = inner.jvp(y)
    np.testing.assert_allclose(outer.jvp(j).numpy(), expected, rtol=1e-5)
    with tj.GradientTape() as tape:
        tape.watch(x)
        with tj.ForwardAccumulator(x, ones) as inner:
            y = f(x)
        j = inner.jvp(y)
    np.testing.assert_allclose(tape.gradient(j, x).numpy(), expected, rtol=1e-5)


# --- nested forward mode: zeros, not None, through ops of piecewise constant derivative (as TF) --------------
#
# TF runs each op's JVP as a function call of the op's inputs, outputs and tangents (forwardprop._jvp_dispatch);
# an outer accumulator fills the arguments without a tangent with zeros, and each output tangent reads the tangent
# arguments, so forward over forward gives the inner JVP a tangent whenever the op took a value with an outer
# tangent: zeros where the derivative is piecewise constant (relu: ReluGrad(t, relu(x)), whose gradient with
# respect to the features is zeros), never None. A tape over an accumulator follows the ops of the JVP instead:
# 3 * x's JVP is 3 t + 0 * x (the zero-filled tangent of the constant times x): zeros; x + 1's is t + 0: no x,
# None; maximum(x, 0)'s a select on x >= 0: None. Values at X = [0.5, -1.5, 2.0] by hand: first derivative
# (along ones), then forward over forward, then a tape over the accumulator (TF 2.21 gives the same).
FX = [0.5, -1.5, 2.0]
Z3 = [0.0, 0.0, 0.0]
FF_CASES = {
    # name: (f, jvp, forward over forward, reverse over forward)
    "relu": (tj.nn.relu, [1.0, 0.0, 1.0], Z3, Z3),
    "leaky_relu": (lambda x: tj.nn.leaky_relu(x, 0.2), [1.0, 0.2, 1.0], Z3, Z3),
    "abs": (tnp.abs, [1.0, -1.0, 1.0], Z3, Z3),
    "maximum": (lambda x: tnp.maximum(x, 0.0), [1.0, 0.0, 1.0], Z3, None),
    "maximum_of_x_and_2x": (lambda x: tnp.maximum(x, 2.0 * x), [2.0, 1.0, 2.0], Z3, Z3),
    "minimum": (lambda x: tnp.minimum(x, 0.5), [1.0, 1.0, 0.0], Z3, None),  # (a tie at 0.5: the first argument)
    "clip": (lambda x: tnp.clip(x, -1.0, 1.0), [1.0, 0.0, 0.0], Z3, None),
    "reduce_max": (tnp.max, 1.0, 0.0, None),
    "reduce_min": (tnp.min, 1.0, 0.0, None),
    "sign_times_x": (lambda x: tnp.sign(x) * x, [1.0, -1.0, 1.0], Z3, Z3),
    "where": (lambda x: tnp.where(x > 0, x, -2.0 * x), [1.0, -2.0, 1.0], Z3, Z3),
    "where_constant": (lambda x: tnp.where(x > 0, x, 0.0), [1.0, 0.0, 1.0], Z3, None),
    "times_3": (lambda x: x * 3.0, [3.0, 3.0, 3.0], Z3, Z3),
    "plus_1": (lambda x: x + 1.0, [1.0, 1.0, 1.0], Z3, None),
    "negative": (lambda x: -x, [-1.0, -1.0, -1.0], Z3, None),
    "identity": (tj.identity, [1.0, 1.0, 1.0], Z3, None),
    "reshape": (lambda x: tnp.reshape(x, (3, 1)), [[1.0], [1.0], [1.0]], [[0.0], [0.0], [0.0]], None),
    "sort": (tnp.sort, [1.0, 1.0, 1.0], Z3, None),
    "take": (lambda x: tnp.take(x, tj.constant([2, 0])), [1.0, 1.0], [0.0, 0.0], None),
    "sum": (tnp.sum, 3.0, 0.0, None),
    "square": (lambda x: x * x, [1.0, -3.0, 4.0], [2.0, 2.0, 2.0], [2.0, 2.0, 2.0]),
    # no first derivative (TF: Sign's gradient ignores its output gradient, Floor/Round have none, a bool
    # condition and an int cast carry none, stop_gradient records nothing): None at every level
    "sign": (tnp.sign, None, None, None),
    "floor": (tnp.floor, None, None, None),
    "round": (tnp.round, None, None, None),
    "where_on_condition_only": (lambda x: tnp.where(x > 0, 1.0, 2.0), None, None, None),
    "stop_gradient": (tj.stop_gradient, None, None, None),
    "cast_to_int": (lambda x: x.astype(tj.int32), None, None, None),
    "cast_to_int_and_back": (lambda x: x.astype(tj.int32).astype(tj.float32), None, None, None),
}


def _check(got, want, what):
    if want is None:
        assert got is None, f"{what}: {got}, TF gives None"
    else:
        assert got is not None, f"{what}: None, TF gives {want}"
        close(got, want)


def _forward_over_forward(f, x):
    with tj.ForwardAccumulator(x, tj.constant(np.ones(3, np.float32))) as outer:
        with tj.ForwardAccumulator(x, tj.constant(np.ones(3, np.float32))) as inner:
            y = f(x)
        d = inner.jvp(y)
    return d, (None if d is None else outer.jvp(d))


@pytest.mark.parametrize("name", sorted(FF_CASES))
def test_nested_forward_mode_connects_piecewise_constant_derivatives(name):
    f, first, ff, bf = FF_CASES[name]
    x = tj.constant(FX)
    d, dd = _forward_over_forward(f, x)
    _check(d, first, f"{name}: jvp")
    _check(dd, ff, f"{name}: forward over forward")
    with tj.GradientTape() as tape:
        tape.watch(x)
        with tj.ForwardAccumulator(x, tj.constant(np.ones(3, np.float32))) as acc:
            y = f(x)
        d = acc.jvp(y)
    _check(None if d is None else tape.gradient(d, x), bf, f"{name}: reverse over forward")


def test_forward_over_forward_with_different_primals():
    # outer x, inner w (x = [1, 2], w = [3, -4], tangents ones): the JVP call of an op that took x has a tangent
    # (x + w: d = t_w, zeros; maximum(x, w): zeros; x * w: d = x t_w, tangent t_x t_w = 1); w * 3 never read x: None
    cases = [(lambda x, w: x + w, [0.0, 0.0]), (lambda x, w: tnp.maximum(x, w), [0.0, 0.0]),
             (lambda x, w: x * w, [1.0, 1.0]), (lambda x, w: w * 3.0, None),
             (lambda x, w: tnp.concatenate([x, w]), [0.0] * 4)]
    for f, want in cases:
        x, w = tj.constant([1.0, 2.0]), tj.constant([3.0, -4.0])
        with tj.ForwardAccumulator(x, tj.constant([1.0, 1.0])) as outer:
            with tj.ForwardAccumulator(w, tj.constant([1.0, 1.0])) as inner:
                y = f(x, w)
            d = inner.jvp(y)
        _check(outer.jvp(d), want, "outer x, inner w")


def test_third_order_forward_through_relu_and_square():
    # x * x: d1 = 2 x, d2 = 2, d3 = zeros (2 t1 t2's JVP call took x); relu: zeros at the second and third level
    x = tj.constant(FX)
    ones = tj.constant(np.ones(3, np.float32))
    with tj.ForwardAccumulator(x, ones) as a3:
        with tj.ForwardAccumulator(x, ones) as a2:
            with tj.ForwardAccumulator(x, ones) as a1:
                sq, r = x * x, tj.nn.relu(x)
            d1s, d1r = a1.jvp(sq), a1.jvp(r)
        d2s, d2r = a2.jvp(d1s), a2.jvp(d1r)
    close(d2s, [2.0, 2.0, 2.0])
    close(a3.jvp(d2s), Z3)
    close(d2r, Z3)
    close(a3.jvp(d2r), Z3)


@pytest.mark.parametrize("f,want", [(tj.nn.relu, Z3), (lambda x: x * 3.0, Z3), (lambda x: x * x, Z3),
                                    (lambda x: tnp.maximum(x, 0.0), None)],
                         ids=["relu", "times_3", "square", "maximum"])
def test_forward_over_reverse_over_forward(f, want):
    # an accumulator over a tape's gradient of an inner JVP: TF's gradient of the JVP call is a call too, so the
    # gradient has a tangent (zeros) wherever it is not None (maximum's: None, its select reads x only as a condition)
    x = tj.constant(FX)
    ones = tj.constant(np.ones(3, np.float32))
    with tj.ForwardAccumulator(x, ones) as outer:
        with tj.GradientTape() as tape:
            tape.watch(x)
            with tj.ForwardAccumulator(x, ones) as inner:
                y = f(x)
            d = inner.jvp(y)
        g = tape.gradient(d, x)
    if want is None:
        assert g is None
    else:
        close(outer.jvp(g), want)


def test_forward_over_forward_batched():
    x = tj.constant(FX)
    basis = tj.constant([[1.0, 1.0, 1.0], [2.0, 0.0, 1.0]])
    with tj.ForwardAccumulator(x, tj.constant(np.ones(3, np.float32))) as outer:
        with tj.ForwardAccumulator._batch_accumulator(x, basis) as inner:
            y = tj.nn.relu(x)
        d = inner.jvp(y)
    close(d, [[1.0, 0.0, 1.0], [2.0, 0.0, 1.0]])
    close(outer.jvp(d), np.zeros((2, 3)))
    with tj.ForwardAccumulator._batch_accumulator(x, basis) as outer:
        with tj.ForwardAccumulator(x, tj.constant(np.ones(3, np.float32))) as inner:
            y = tnp.maximum(x, 0.0)
        d = inner.jvp(y)
    close(outer.jvp(d), np.zeros((2, 3)))


@pytest.mark.parametrize("name", ["relu", "abs", "maximum", "identity", "plus_1", "times_3", "square", "sign"])
def test_forward_over_forward_through_function_as_eagerly(name):
    # one set of rules (API.md): a tj.function call's JVP gives the tangents its ops give eagerly (TF's tf.function
    # path gives None for identity and maximum here, zeros for relu: its JVP runs inside the function, not matched)
    f, first, ff, _ = FF_CASES[name]
    d, dd = _forward_over_forward(tj.function(f), tj.constant(FX))
    _check(d, first, f"{name}: jvp")
    _check(dd, ff, f"{name}: forward over forward")


def test_forward_over_forward_through_function_output_by_output():
    # outer x, inner w, one call returning (x + w, w * 3): eagerly the first JVP call took x (zeros), the second
    # never did (None); so through the call
    g = tj.function(lambda x, w: (x + w, w * 3.0))
    x, w = tj.constant([1.0, 2.0]), tj.constant([3.0, -4.0])
    with tj.ForwardAccumulator(x, tj.constant([1.0, 1.0])) as outer:
        with tj.ForwardAccumulator(w, tj.constant([1.0, 1.0])) as inner:
            a, b = g(x, w)
        da, db = inner.jvp(a), inner.jvp(b)
    close(da, [1.0, 1.0])
    close(db, [3.0, 3.0])
    close(outer.jvp(da), [0.0, 0.0])
    assert outer.jvp(db) is None


def test_forward_over_forward_through_custom_gradients():
    # TF computes a custom gradient's JVP as one call of its inputs, outputs and tangents: under an outer
    # accumulator each inner tangent has a tangent, zeros where its ops read nothing with one (TF 2.21 gives these)
    @tj.custom_gradient
    def times3(x):
        return x * 3.0, lambda dy: dy * 3.0

    @tj.custom_gradient
    def square(x):
        return x * x, lambda dy: dy * 2.0 * x

    @tj.custom_gradient
    def relu(x):
        return tj.nn.relu(x), lambda dy: dy * (x > 0).astype(x.dtype)

    @tj.custom_gradient
    def constant(x):
        return x * 0.0 + 1.0, lambda dy: dy * 0.0

    for f, first, second in [(times3, [3.0, 3.0, 3.0], Z3), (square, [1.0, -3.0, 4.0], [2.0, 2.0, 2.0]),
                             (relu, [1.0, 0.0, 1.0], Z3), (constant, Z3, Z3)]:
        d, dd = _forward_over_forward(f, tj.constant(FX))
        close(d, first)
        close(dd, second)
    w = tj.constant([1.0, 2.0, 3.0])  # an outer accumulator on another primal: no tangent reaches the call
    with tj.ForwardAccumulator(w, tj.constant([1.0, 1.0, 1.0])) as outer:
        x = tj.constant(FX)
        with tj.ForwardAccumulator(x, tj.constant([1.0, 1.0, 1.0])) as inner:
            y = times3(x)
        assert outer.jvp(inner.jvp(y)) is None


def test_tangent_structure_errors_and_recompute_grad_over_a_variable_as_tf():
    """TF 2.21: a tensor or number where the primals have a list or tuple is nest's ValueError (TypeError only for
    containers of different types); recompute_grad under an accumulator that follows a Variable read inside f
    raises NotImplementedError, as for an argument (it gave a tangent, grad_fn transposed)."""
    x, y = tj.constant(1.0), tj.constant(2.0)
    for primals, tangents, kind in (([x], tj.constant(1.0), ValueError), ([x], 1.0, ValueError),
                                    ([x, (y,)], [1.0, 2.0], ValueError), ([x, y], (1.0, 2.0), TypeError)):
        with pytest.raises(kind, match="nested structure"):
            tj.ForwardAccumulator(primals, tangents)
    v = tj.Variable(2.0)
    f = tj.recompute_grad(lambda a: a * v)
    with tj.ForwardAccumulator(v, tj.constant(1.0)):
        with pytest.raises(NotImplementedError, match="recompute_grad"):
            f(tj.constant(3.0))
    with tj.ForwardAccumulator(y, tj.constant(1.0)) as acc:  # (an unrelated primal: f runs, no tangent)
        out = f(tj.constant(3.0))
    assert float(out.numpy()) == 6.0 and acc.jvp(out) is None


def test_prod_tangent_is_the_transpose_of_its_gradient_at_infinities():
    """TF 2.21: reduce_prod([inf, inf, 1]) has gradient [inf, inf, inf] and, under a ForwardAccumulator with tangent
    ones, JVP inf (its forward mode transposes ProdGrad). tapejax's JVP was JAX's, NaN (its product tree pads with
    ones of tangent 0, inf * 0); now sum(gradient * tangent) on every path: the accumulator, a tj.function under it,
    and jax.jvp of tj code. Where the gradient itself is NaN the tangent stays NaN, as TF's."""
    x0 = np.array([[np.inf, np.inf, 1.0], [2.0, 3.0, 4.0]], np.float32)
    x = tj.constant(x0)
    f = tj.function(lambda a: tnp.prod(a, axis=1))
    with tj.ForwardAccumulator(x, tnp.ones_like(x)) as acc:
        eager, compiled = tnp.prod(x, axis=1), f(x)
    expected = [np.inf, 2 * 3 + 2 * 4 + 3 * 4]
    np.testing.assert_array_equal(acc.jvp(eager).numpy(), expected)
    np.testing.assert_array_equal(acc.jvp(compiled).numpy(), expected)
    _, jvp = jax.jvp(lambda a: tnp.prod(a, axis=1), (jnp.asarray(x0),), (jnp.ones_like(x0),))
    np.testing.assert_array_equal(np.asarray(jvp), expected)
    y = tj.constant(np.array([np.inf, 2.0, 0.0], np.float32))  # TF: gradient [0, nan, inf], JVP of ones nan
    with tj.ForwardAccumulator(y, tnp.ones_like(y)) as acc:
        p = tnp.prod(y)
    assert np.isnan(acc.jvp(p).numpy())


@pytest.mark.parametrize("dtype", [jnp.float16, jnp.bfloat16])
def test_half_precision_tangent_keeps_its_dtype_with_a_python_scalar_operand(dtype):
    """A tangent has its primal's dtype. TF 2.21, x = [0.5, -1.25, 2.0] in float16 (bfloat16 alike), tangent
    ones: jvp of x * 2.0 is float16 [2, 2, 2]; of 1.0 / x, float16 [-4, -0.64, -0.25]; of maximum(x, 0.3),
    [1, 0, 1]; of x ** 2.0, [1, -2.5, 4]; of clip(x, -1, 1), [1, 0, 0]. tapejax gave these values as float32
    (the Python scalar's zero tangent, float32, promoted the JVP), alone and under an outer tape."""
    x = tj.constant(np.array([0.5, -1.25, 2.0]), dtype=dtype)
    fns = [lambda a: a * 2.0, lambda a: 1.0 / a, lambda a: tnp.maximum(a, 0.3), lambda a: a ** 2.0,
           lambda a: tnp.clip(a, -1.0, 1.0)]
    expected = [[2, 2, 2], [-4, -0.64, -0.25], [1, 0, 1], [1, -2.5, 4], [1, 0, 0]]
    for outer in (False, True):
        tape = tj.GradientTape()
        with tape:
            tape.watch(x)
            with tj.ForwardAccumulator(x, tnp.ones_like(x)) as acc:
                ys = [f(x) for f in fns]
        for y, want in zip(ys, expected):
            t = acc.jvp(y)
            assert y.dtype == dtype and t.dtype == dtype, (outer, y.dtype, t.dtype)
            np.testing.assert_allclose(np.asarray(t, np.float32), want, rtol=1e-2)
