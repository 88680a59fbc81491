"""A ``tj.custom_gradient`` whose grad_fn returns None, inside a ``tj.function`` differentiated from outside.

Found porting TF's backprop_test.py (custom gradients under tf.function). TF has no gradient path through a
None that grad_fn returns: the gradient of that input is None (zeros with UnconnectedGradients.ZERO), unless
another path reaches it. Expected values are TF 2.21's; where TF's tf.function gives zeros instead (a
persistent or nested outer tape, or forward mode, which make TF build its function's backward as a
function that returns tensors), the value is TF's eager one, which API.md's "one set of rules on every
path" makes ours on every path.
"""
import jax.numpy as jnp
import pytest

import tapejax as tj
from tapejax import numpy as tnp
from conftest import close, mul_second_unconnected


def _ab():
    return tj.constant(1.), tj.constant(2.)


def _grads(f, *xs, **kw):
    with tj.GradientTape() as t:
        t.watch(list(xs))
        y = f(*xs)
    return t.gradient(y, list(xs), **kw)


def test_none_input_gradient_through_function():
    # TF 2.21 (tf.function under an outer tape, and eagerly): [2.0, None]
    a, b = _ab()
    ga, gb = _grads(tj.function(mul_second_unconnected), a, b)
    close(ga, 2.0)
    assert gb is None
    ga, gb = _grads(mul_second_unconnected, a, b)
    close(ga, 2.0)
    assert gb is None


def test_none_input_gradient_unconnected_zero():
    # TF 2.21: UnconnectedGradients.ZERO gives [2.0, 0.0]
    a, b = _ab()
    ga, gb = _grads(tj.function(mul_second_unconnected), a, b, unconnected_gradients=tj.UnconnectedGradients.ZERO)
    close(ga, 2.0)
    close(gb, 0.0)


def test_none_input_also_reached_by_another_path():
    # TF 2.21: g(a, b) + 3b gives [2.0, 3.0]; g(x, 3x) + g(x, x*x) gives 4.0 (b's None does not flow back
    # through 3x or x*x); g(x, 3z) gives [6.0, None]
    a, b = _ab()
    ga, gb = _grads(tj.function(lambda a, b: mul_second_unconnected(a, b) + 3. * b), a, b)
    close(ga, 2.0)
    close(gb, 3.0)
    g, = _grads(tj.function(lambda x: mul_second_unconnected(x, 3. * x) + mul_second_unconnected(x, x * x)), a)
    close(g, 4.0)
    gx, gz = _grads(tj.function(lambda x, z: mul_second_unconnected(x, 3. * z)), a, b)
    close(gx, 6.0)
    assert gz is None


def test_none_input_gradient_nested_function():
    # TF 2.21: a tf.function calling a tf.function of g, times 2: [4.0, None]
    a, b = _ab()
    inner = tj.function(mul_second_unconnected)
    ga, gb = _grads(tj.function(lambda a, b: inner(a, b) * 2.), a, b)
    close(ga, 4.0)
    assert gb is None


def test_none_input_gradient_persistent_tape():
    # TF 2.21 eager: [2.0, None] then [None, 2.0] (TF's tf.function under a persistent tape: 0.0 for None)
    a, b = _ab()
    f = tj.function(mul_second_unconnected)
    with tj.GradientTape(persistent=True) as t:
        t.watch([a, b])
        y = f(a, b)
    ga, gb = t.gradient(y, [a, b])
    close(ga, 2.0)
    assert gb is None
    gb, ga = t.gradient(y, [b, a])
    close(ga, 2.0)
    assert gb is None


def test_none_input_gradient_second_order():
    # TF 2.21 eager: first order [2.0, None] (ga = b), second order of ga [None, 1.0]
    # (TF's tf.function under the outer tape: 0.0 for the first-order None)
    a, b = _ab()
    f = tj.function(mul_second_unconnected)
    with tj.GradientTape(persistent=True) as t2:
        t2.watch([a, b])
        with tj.GradientTape() as t1:
            t1.watch([a, b])
            y = f(a, b)
        ga, gb = t1.gradient(y, [a, b])
    close(ga, 2.0)
    assert gb is None
    gaa, gab = t2.gradient(ga, [a, b])
    assert gaa is None
    close(gab, 1.0)


def test_none_input_jacobian():
    # TF 2.21 (tf.function, non-persistent tape, pfor): [[[3, 0], [0, 4]], None]; ZERO: zeros for b
    av, bv = tj.constant([1., 2.]), tj.constant([3., 4.])
    f = tj.function(mul_second_unconnected)
    with tj.GradientTape(persistent=True) as t:
        t.watch([av, bv])
        y = f(av, bv)
    ja, jb = t.jacobian(y, [av, bv])
    close(ja, [[3., 0.], [0., 4.]])
    assert jb is None
    ja, jb = t.jacobian(y, [av, bv], unconnected_gradients=tj.UnconnectedGradients.ZERO)
    close(jb, [[0., 0.], [0., 0.]])


def test_none_input_forward_mode():
    # TF 2.21: tangents for a and b through the tf.function: 2.0 (the transpose of grad_fn: b's None adds
    # nothing). A tangent for b alone gets no tangent: the same through the function as eagerly (TF's
    # tf.function gives 0.0 there, its eager forwardprop 1.0 from the visible a * b, see API.md).
    a, b = _ab()
    f = tj.function(mul_second_unconnected)
    with tj.ForwardAccumulator([a, b], [tj.constant(1.), tj.constant(1.)]) as acc:
        y = f(a, b)
    close(acc.jvp(y), 2.0)
    results = []
    for fn in (mul_second_unconnected, f):
        with tj.ForwardAccumulator(b, tj.constant(1.)) as acc:
            y = fn(a, b)
        results.append(acc.jvp(y))
    assert results == [None, None]


def test_none_variable_gradient_through_function():
    # TF 2.21 (tf.function and eager): grad_fn returns [None] for the variable: [2.0, None];
    # with a None input too: [2.0, None, None], ZERO: [2.0, 0.0, 0.0]
    a, b = _ab()
    v = tj.Variable(2.)

    @tj.custom_gradient
    def gv(a):
        def grad_fn(dy, variables=None):
            return dy * v, [None]
        return a * v, grad_fn

    @tj.custom_gradient
    def gv2(a, b):
        def grad_fn(dy, variables=None):
            return (dy * v, None), [None]
        return a * v * b, grad_fn
    with tj.GradientTape() as t:
        t.watch(a)
        y = tj.function(gv)(a)
    ga, gv_ = t.gradient(y, [a, v])
    close(ga, 2.0)
    assert gv_ is None
    f2 = tj.function(gv2)
    for zero in (False, True):
        with tj.GradientTape() as t:
            t.watch([a, b])
            y = f2(a, b)
        kw = {"unconnected_gradients": tj.UnconnectedGradients.ZERO} if zero else {}
        ga, gb, g_v = t.gradient(y, [a, b, v], **kw)
        close(ga, 2.0)
        if zero:
            close(gb, 0.0)
            close(g_v, 0.0)
        else:
            assert gb is None and g_v is None


def test_multiple_outputs_and_all_none():
    # TF 2.21: two outputs, grad_fn (dy1 * b + dy2, None): [2.0, None] for y1, [1.0, None] for y2;
    # grad_fn returning None alone: None, and g(x) + x gives 1.0
    a, b = _ab()

    @tj.custom_gradient
    def g2(a, b):
        def grad_fn(dy1, dy2):
            return dy1 * b + dy2, None
        return (a * b, a + b), grad_fn

    @tj.custom_gradient
    def gn(a):
        def grad_fn(dy):
            return None
        return a * 2., grad_fn
    f = tj.function(g2)
    with tj.GradientTape(persistent=True) as t:
        t.watch([a, b])
        y1, y2 = f(a, b)
    ga, gb = t.gradient(y1, [a, b])
    close(ga, 2.0)
    assert gb is None
    ga, gb = t.gradient(y2, [a, b])
    close(ga, 1.0)
    assert gb is None
    g, = _grads(tj.function(gn), a)
    assert g is None
    g, = _grads(tj.function(lambda x: gn(x) + x), a)
    close(g, 1.0)


def test_computed_zeros_stay_zeros():
    # TF 2.21: sign's gradient is zeros, not None: 0.0 through the tf.function; recompute_grad's unconnected
    # argument gets zeros ([2.0, 0.0]); grad_pass_through's variable read gets None ([1.0, None])
    a, b = _ab()
    g, = _grads(tj.function(lambda x: tnp.sign(x) * 3.), a)
    close(g, 0.0)
    ga, gb = _grads(tj.function(lambda a, b: tj.recompute_grad(lambda x, z: x * 2.)(a, b)), a, b)
    close(ga, 2.0)
    close(gb, 0.0)
    w = tj.Variable(5.)
    with tj.GradientTape() as t:
        t.watch(a)
        y = tj.function(lambda a: tj.grad_pass_through(lambda x: x * w)(a))(a)
    ga, gw = t.gradient(y, [a, w])
    close(ga, 1.0)
    assert gw is None


def test_gradients_inside_function_and_differentiate():
    # TF 2.21: tf.gradients inside the tf.function: [2.0, None]; tj.differentiate's backward program of
    # 2 * g(a, b) gives the same None for b
    a, b = _ab()

    @tj.function
    def h(a, b):
        return tj.gradients(mul_second_unconnected(a, b), [a, b])
    ga, gb = h(a, b)
    close(ga, 2.0)
    assert gb is None
    d = tj.differentiate(lambda a, b: mul_second_unconnected(a, b) * 2., jnp.float32(1.), jnp.float32(2.))
    _, res = d.forward(jnp.float32(1.), jnp.float32(2.))
    ga, gb = d.backward([jnp.float32(1.)], res)
    close(ga, 4.0)
    assert gb is None
