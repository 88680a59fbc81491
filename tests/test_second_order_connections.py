"""Second order: ``None`` exactly where TF 2.21 gives ``None`` (no differentiable path from the gradient back to x).

TF builds a gradient from small ops, so the gradient of ``3 * x`` is ``3 * dy`` and reaches x through no op:
its derivative is ``None``. A tapejax backward op is one kernel of all the forward op's inputs; its
connections are read from its formula (ops/dependence.py). Expected values are TF's (the expressions
beside each case, run in TF 2.21 with nested tapes and with a ForwardAccumulator around a tape).
"""
from __future__ import annotations

import numpy as np
import pytest

import tapejax as tj
from conftest import nested_tape_gradients

tnp = tj.numpy
X = [0.5, -1.5, 2.0]

# name: (f, TF's second derivative at X by nested tapes (None or values), TF's forward-over-reverse JVP)
CASES = {
    "linear": (lambda x: 3.0 * x + 1.0, None, None),
    "reshape_sum": (lambda x: tnp.sum(tnp.reshape(x, (3, 1)) * 2.0), None, None),
    "transpose": (lambda x: tnp.sum(tnp.transpose(tnp.reshape(x, (1, 3)))), None, None),
    "maximum": (lambda x: tnp.maximum(x, 0.5), None, None),  # MaximumGrad: a select on x >= 0.5
    "clip": (lambda x: tnp.clip(x, -1.0, 1.0), None, None),
    "where": (lambda x: tnp.where(x > 0, x, -2.0 * x), None, None),
    "sign_times_2": (lambda x: tnp.sign(x) * 2.0, None, None),
    # _MinOrMaxGrad's weights come from equal(x, y): no path (tapejax's kernel picks its weights in a cond)
    "reduce_max": (lambda x: tnp.max(x), None, None),
    "reduce_min_keepdims": (lambda x: tnp.min(x, keepdims=True), None, None),
    "reduce_max_tie": (lambda x: tnp.max(tnp.stack([x, x])), None, None),
    # TF's ReluGradGrad returns zeros_like(features): zeros, not None, on both second-order paths
    "relu": (lambda x: tj.nn.relu(x), [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
    # TF: grad * sign(x); SignGrad's zeros ignore their output gradient, so TF's forward mode, which transposes
    # gradient functions, gives sign(x) the tangent None, and the product none either
    "abs": (lambda x: tnp.abs(x), [0.0, 0.0, 0.0], None),
    "square": (lambda x: x * x, [2.0, 2.0, 2.0], [2.0, 2.0, 2.0]),
    "power_0": (lambda x: x ** 0, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]),  # PowGrad's grad * 0 * pow(x, -1) reads x
    "tanh": (lambda x: tnp.tanh(x), [-0.7268619537, 0.3271323740, -0.1362186670],
             [-0.7268619537, 0.3271323740, -0.1362186670]),
}


def _nested(f):
    return nested_tape_gradients(f, X)[1:]


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("lazy", [True, False])
def test_nested_tapes(name, lazy):
    f, want, _ = CASES[name]
    with tj.config.override(lazy=lazy):
        g, h = _nested(f)
    assert g is not None
    if want is None:
        assert h is None, f"{name}: second derivative {h}, TF gives None"
    else:
        np.testing.assert_allclose(h.numpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_over_reverse(name):
    f, _, want = CASES[name]
    x = tj.constant(X)
    with tj.ForwardAccumulator(x, tj.constant([1.0, 1.0, 1.0])) as acc:
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        g = tape.gradient(y, x)
    j = acc.jvp(g)
    if want is None:
        assert j is None, f"{name}: {j}, TF gives None"
    else:
        np.testing.assert_allclose(j.numpy(), want, rtol=1e-5, atol=1e-6)


def test_third_derivative_of_square_is_none():
    # TF: d3(x * x)/dx3 at 3.0 by three nested tapes -> None (the 2 comes from the seed's ones)
    x = tj.constant(3.0)
    with tj.GradientTape() as t3:
        t3.watch(x)
        with tj.GradientTape() as t2:
            t2.watch(x)
            with tj.GradientTape() as t1:
                t1.watch(x)
                y = x * x
            g = t1.gradient(y, x)
        h = t2.gradient(g, x)
    assert float(h) == 2.0
    assert t3.gradient(h, x) is None


def test_symbolic_second_order_of_linear_is_none():
    # TF: tf.gradients(tf.gradients(2 * x, x)[0], x) in a tf.function -> [None]
    @tj.function
    def f(x):
        g = tj.gradients(2.0 * x, x)[0]
        return g, tj.gradients(g, x)

    g, h = f(tj.constant(3.0))
    assert float(g) == 2.0 and h == [None]


def test_nested_tapes_in_function_and_outer_tape_over_function():
    # TF (nested tapes inside tf.function): d2(2x)/dx2 -> None; tapejax gives None on every path (API.md:
    # one set of rules), also for an outer tape over a tj.function that returns the inner gradient
    @tj.function
    def inside(x):
        with tj.GradientTape() as outer:
            outer.watch(x)
            with tj.GradientTape() as inner:
                inner.watch(x)
                y = 2.0 * x
            g = inner.gradient(y, x)
        return outer.gradient(g, x)

    assert inside(tj.constant(3.0)) is None

    x = tj.constant(3.0)
    keeps_path = tj.function(lambda x: _first_order(lambda u: 2.0 * u + u * tnp.sin(u) * 0.0, x))
    with tj.GradientTape() as tape:
        tape.watch(x)
        g = keeps_path(x)
    np.testing.assert_allclose(tape.gradient(g, x).numpy(), 0.0, atol=1e-6)  # a path, zero-valued: zeros

    lin = tj.function(lambda x: _first_order(lambda u: 2.0 * u, x))
    with tj.GradientTape() as tape:
        tape.watch(x)
        g = lin(x)
    assert float(g) == 2.0 and tape.gradient(g, x) is None


def test_gradient_taken_in_a_function_through_an_unused_second_output_is_none_at_second_order():
    # tf_function_differential seed 12872. TF 2.21 (eagerly and with tf.function): the second derivative of
    # d(v2 * x * v0)/dv2 = x * v0 with respect to v2 is None. The gradient of the inner product's broadcast
    # (v0's) has a second output nothing uses; the cotangent JAX holds for it as a symbolic zero must not become
    # a dense zero whose transposes read v2 (ops/linear_rule.py, _zeros_as_symbolic): that gave zeros here.
    v0 = tj.Variable(np.array([0.25, -1.13, -1.34], np.float32))
    v2 = tj.Variable(np.array([[0.27, 1.67, 1.43], [-0.09, -0.89, -0.22]], np.float32))
    x = tj.constant(np.array([[0.5, 1.5, -1.0], [2.0, -0.5, 1.0]], np.float32))

    def inner_gradient(x):
        with tj.GradientTape() as tape:
            tape.watch(v2)
            t = tnp.multiply(tnp.multiply(v2, x), v0)
        return tape.gradient(t, v2)

    for f in (inner_gradient, tj.function(inner_gradient)):
        with tj.GradientTape(persistent=True) as t2:
            t2.watch(x)
            with tj.GradientTape(persistent=True) as t1:
                t1.watch(x)
                out = f(x)
            g = t1.gradient(out, [x, v0, v2])
        assert g[2] is None
        np.testing.assert_allclose(g[0].numpy(), np.broadcast_to(v0.numpy(), (2, 3)), rtol=1e-6)
        np.testing.assert_allclose(g[1].numpy(), x.numpy().sum(axis=0), rtol=1e-6)
        gg = t2.gradient([g[0], g[1]], [x, v0, v2])
        assert gg[2] is None, f  # (zeros before the fix, under tj.function)
        np.testing.assert_allclose(gg[0].numpy(), np.ones((2, 3)), rtol=1e-6)
        np.testing.assert_allclose(gg[1].numpy(), [2.0, 2.0, 2.0], rtol=1e-6)


def _first_order(f, x):
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x)


def test_max_pool_second_order_is_zeros():
    # TF: MaxPoolGradGrad gives zeros for the input (not None): tf.nn.max_pool2d(x, 2, 2, "VALID"), nested tapes
    x = tj.constant((np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1) % 5))
    with tj.GradientTape() as outer:
        outer.watch(x)
        with tj.GradientTape() as inner:
            inner.watch(x)
            y = tj.nn.max_pool(x, (2, 2), (2, 2), "VALID")
        g = inner.gradient(y, x)
    h = outer.gradient(g, x)
    assert h is not None
    np.testing.assert_array_equal(h.numpy(), 0.0)


def test_reverse_over_forward():
    # TF: a tape over ForwardAccumulator.jvp: 3x -> zeros ([0, 0, 0]: the zero tangent of the constant times
    # x), x * x -> [2, 2, 2], relu -> zeros
    for f, want in [(lambda x: 3.0 * x, 0.0), (lambda x: x * x, 2.0), (tj.nn.relu, 0.0)]:
        x = tj.constant(X)
        with tj.GradientTape() as tape:
            tape.watch(x)
            with tj.ForwardAccumulator(x, tj.constant([1.0, 1.0, 1.0])) as acc:
                y = f(x)
            j = acc.jvp(y)
        g = tape.gradient(j, x)
        assert g is not None
        np.testing.assert_allclose(g.numpy(), want)


@pytest.mark.parametrize("assign", [False, True])
def test_tapes_over_function_that_takes_a_gradient(assign):
    # TF eager (nested tapes over the body run eagerly): d/dv of d/dv [d(v^2)/dv] is 2.0 then None; tapejax gives
    # None over the tj.function too: the inner tape's backward kernel, differentiated under JAX's trace
    # (ops/linear_rule.py), reads the cotangent and the seed, not v (ops/dependence.py follows the rule's code)
    v = tj.Variable(1.5)

    def body(x):
        if assign:
            v.assign_add(v * 0.5)
        with tj.GradientTape() as tape:
            tape.watch(v)
            y = tnp.square(v)
        return tape.gradient(y, v) + x * 0.0

    for f in (body, tj.function(body)):
        v.assign(1.5)
        with tj.GradientTape() as outer:
            with tj.GradientTape() as inner:
                out = f(tj.constant(1.0))
            first = inner.gradient(out, v)
        assert float(out) == (4.5 if assign else 3.0)
        assert float(first) == 2.0
        assert outer.gradient(first, v) is None, f



def test_second_order_through_a_traced_gradient_is_none_on_every_path():
    # d/db of sum(d(b * t1 - t1)/dt1) is 2 per entry; its derivative with respect to b, v0 and v2 is None eagerly
    # (the inner gradient b - 1 reaches no Variable) and so over a tj.function of the body and with tj.gradients:
    # JAX's transposes gave zeros, the dense zero cotangent of sub's unread input reaching the transpose of
    # b * t1, which reads t1 (tf_function_differential seed 1546); ops/linear_rule.py now gives JAX symbolic
    # zeros there
    v0 = tj.Variable([0.5, -1.0, 2.0])
    v2 = tj.Variable(np.full((2, 3), 0.3, np.float32))
    b = tj.constant([0.2, 0.4, -0.6])

    def taped(b):
        t1 = v2 * v0 * 3.0
        with tj.GradientTape() as inner:
            inner.watch(t1)
            t3 = b * t1 - t1
        return inner.gradient(t3, t1)

    def graph(b):
        t1 = v2 * v0 * 3.0
        return tj.gradients([b * t1 - t1], [t1])[0]

    for f in (taped, tj.function(taped), tj.function(graph)):
        with tj.GradientTape(persistent=True) as outer:
            outer.watch(b)
            with tj.GradientTape() as tape:
                tape.watch(b)
                s = tnp.sum(f(b))
            g = tape.gradient(s, b)
        np.testing.assert_array_equal(g.numpy(), [2.0, 2.0, 2.0])
        assert outer.gradient(g, [v0, b, v2]) == [None, None, None], f


@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 3)])
def test_second_order_of_an_empty_tensor_is_none_as_for_any_other(shape):
    # The gradient of -x, x + y or x * 2's gradient does not depend on x: TF 2.21 gives None for the second
    # order whatever the sizes (tools/tf_second_order.py's empty cases); tapejax gave an empty array, its
    # connection analysis taking every output of a backward op on empty arrays as reading every input
    x = tj.constant(np.zeros(shape, np.float32))
    y = tj.constant(np.zeros(shape, np.float32))
    # (reshape's gradient has the shape written in: its paths are read at the real sizes; TF: None too)
    for f in (lambda x: -x, lambda x: x + y, lambda x: x * 2.0, lambda x: tnp.reshape(x, shape[::-1])):
        with tj.GradientTape() as outer:
            outer.watch(x)
            with tj.GradientTape() as inner:
                inner.watch(x)
                z = f(x)
            g = inner.gradient(z, x, output_gradients=tj.constant(np.zeros(z.shape, np.float32)))
        assert g.shape == shape
        assert outer.gradient(g, x, output_gradients=tj.constant(np.zeros(shape, np.float32))) is None
    with tj.GradientTape() as outer:  # (a second order that is connected stays an empty array)
        outer.watch(x)
        with tj.GradientTape() as inner:
            inner.watch(x)
            z = x * x
        g = inner.gradient(z, x, output_gradients=tj.constant(np.zeros(shape, np.float32)))
    h = outer.gradient(g, x, output_gradients=tj.constant(np.zeros(shape, np.float32)))
    assert h is not None and h.shape == shape


def test_a_constant_gradient_of_a_users_backward_is_kept_on_every_path():
    # A user's backward need not be linear in its cotangents: a grad_fn or tj.op vjp returning 0.5 whatever dy
    # gives 0.5, as TF 2.21 (tools/tf_custom_gradient_differential.py seed 9769). Differentiated over a
    # tj.function call, JAX's transposition took such a result, computed from no cotangent, for a zero of a
    # linear rule: 0.0 (the symbolic zeros that fix seed 1546 are for tapejax's own rules only)
    @tj.custom_gradient
    def half(a0, a1):
        def grad_fn(dy):
            return None, 0.5
        return tnp.sin(a1), grad_fn

    @tj.custom_gradient
    def half_tensor(a1):
        return tnp.sin(a1), lambda dy: tj.constant(0.5)

    sq = tj.op(lambda a: a * a, vjp=lambda primals, ct: (np.float32(0.5) + 0 * primals[0],))
    a0, a1, x = tj.constant(-0.946), tj.constant(0.215), tj.constant([1.0, 2.0])
    for f, args, want in ((half, (a0, a1), [None, 0.5]), (half_tensor, (a1,), [0.5]), (sq, (x,), [[0.5, 0.5]])):
        for g in (f, tj.function(f)):
            with tj.GradientTape() as tape:
                tape.watch(list(args))
                y = g(*args)
            got = tape.gradient(y, list(args))
            assert [None if v is None else v.numpy().tolist() for v in got] == want, (f, g)


@pytest.mark.parametrize("path", ["eager", "strict", "function"])
def test_sign_has_no_tangent_as_in_tf_forward_mode(path):
    # TF 2.21: under a ForwardAccumulator, sign(x)'s tangent is None (SignGrad's zeros ignore the output
    # gradient its forward mode transposes), sign(x) * 3 and sign(sign(x)) have none either, sign(x) + x has x's;
    # its reverse mode gives zeros (tests above). Same through a tf.function and for a Variable.
    x = tj.constant(X)

    def f(x):
        s = tnp.sign(x)
        return s, s * 3.0, tnp.sign(s), s + x

    run = tj.function(f) if path == "function" else f
    with tj.config.override(lazy=path != "strict"):
        with tj.ForwardAccumulator(x, tj.constant([1.0, 2.0, 3.0])) as acc:
            s, s3, ss, sx = run(x)
    assert acc.jvp(s) is None and acc.jvp(s3) is None and acc.jvp(ss) is None
    np.testing.assert_array_equal(acc.jvp(sx).numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(acc.jvp(s, unconnected_gradients="zero").numpy(), [0.0, 0.0, 0.0])
    v = tj.Variable(X)
    with tj.ForwardAccumulator(v, tj.constant([1.0, 1.0, 1.0])) as acc:
        y = tnp.sign(v)
    assert acc.jvp(y) is None


def test_a_complex_sign_keeps_its_tangent():
    # TF's complex sign is div_no_nan(z, |z|), differentiable: d sign(z) along t at z = 3+4j is
    # (t - sign(z) * Re(conj(sign(z)) * t)) / |z|; t = 1: (1 - 0.6 * (0.6 + 0.8j)) / 5 = 0.128 - 0.096j
    z = tj.constant([3 + 4j], dtype="complex64")
    with tj.ForwardAccumulator(z, tj.constant([1 + 0j], dtype="complex64")) as acc:
        y = tnp.sign(z)
    np.testing.assert_allclose(acc.jvp(y).numpy(), [0.128 - 0.096j], rtol=1e-5)
