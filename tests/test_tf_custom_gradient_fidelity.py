"""custom_gradient, recompute_grad and grad_pass_through where tools/tf_custom_gradient_differential.py found
tapejax apart from TF 2.21 (expected values: TF's, from that tool's twin runs)."""
from __future__ import annotations

import numpy as np
import pytest

import tapejax as tj
import tapejax.numpy as tnp


def test_a_variable_assigned_in_f_is_one_of_its_variables():
    """TF: an assignment that returns the variable (read_value=True) is a read, so grad_fn receives it in
    ``variables`` and gives its gradient; without the keyword, calling f raises TypeError."""
    v = tj.Variable([1.0, 2.0])

    @tj.custom_gradient
    def f(x):
        v.assign_add(x)

        def grad(dy, variables=None):
            return dy * 3.0, [dy * 7.0]
        return x * 2.0, grad
    x = tj.constant([1.0, 1.0])
    with tj.GradientTape() as t:
        t.watch(x)
        y = f(x)
    gx, gv = t.gradient(y, [x, v])
    np.testing.assert_allclose(gx.numpy(), [3.0, 3.0])
    np.testing.assert_allclose(gv.numpy(), [7.0, 7.0])

    @tj.custom_gradient
    def g(x):
        v.assign_add(x)
        return x * 2.0, lambda dy: dy * 3.0
    with pytest.raises(TypeError):
        g(x)

    @tj.custom_gradient
    def h(x):  # read_value=False: no read, as TF
        v.assign_add(x, read_value=False)
        return x * 2.0, lambda dy: dy * 3.0
    with tj.GradientTape() as t:
        t.watch(x)
        y = h(x)
    assert t.gradient(y, v) is None


def test_custom_gradient_inside_another_ones_f_before_a_variable_read():
    """TF: [5.0, 7.0]; tapejax raised ValueError ('list.remove(x): x not in list') at the call."""
    w = tj.Variable(2.0)

    @tj.custom_gradient
    def inner(x):
        return x * 2.0, lambda dy: dy * 3.0

    @tj.custom_gradient
    def outer(x):
        return inner(x) * w, lambda dy, variables=None: (dy * 5.0, [dy * 7.0])
    x = tj.constant(1.0)
    with tj.GradientTape() as t:
        t.watch(x)
        y = outer(x)
    gx, gw = t.gradient(y, [x, w])
    assert (float(gx), float(gw)) == (5.0, 7.0)


def test_gradient_of_another_shape_through_a_function_call():
    """grad_fn giving a () gradient for a (3,) input: eagerly (and with the tape inside tj.function) the gradient
    as given, 3.0, as TF eager; a tape over the tj.function call raises a ValueError naming the shapes when the
    gradient is asked for (TF's tf.function raises ValueError too), not JAX's lowering error, and not at the
    call."""
    @tj.custom_gradient
    def f(x):
        return x * 2.0, lambda dy: tnp.sum(dy)
    x = tj.constant([1.0, 2.0, 3.0])
    with tj.GradientTape() as t:
        t.watch(x)
        y = f(x)
    assert float(t.gradient(y, x)) == 3.0

    @tj.function
    def inside(x):
        with tj.GradientTape() as t:
            t.watch(x)
            y = f(x)
        return t.gradient(y, x)
    assert float(inside(x)) == 3.0
    with tj.GradientTape() as t:
        t.watch(x)
        y = tj.function(f)(x)  # (the call itself works)
    with pytest.raises(ValueError, match=r"shape \(\) .* shape \(3,\)"):
        t.gradient(y, x)


def test_grad_fn_that_raises_raises_where_the_gradient_is_asked_for():
    """TF runs grad_fn only when a gradient is computed: a tape over a tj.function call of f records the call
    and raises grad_fn's error from gradient()."""
    @tj.custom_gradient
    def f(x):
        def grad(dy):
            raise RuntimeError("no gradient here")
        return x * 2.0, grad
    x = tj.constant([1.0, 2.0])
    with tj.GradientTape() as t:
        t.watch(x)
        y = tj.function(f)(x)
    np.testing.assert_allclose(y.numpy(), [2.0, 4.0])
    with pytest.raises(RuntimeError, match="no gradient here"):
        t.gradient(y, x)


def test_traced_grad_fn_that_assigns():
    """TF: a recompute_grad of a body that assigns, in tf.function with no tape, gives [2, 2] and v = [2, 3]; a
    grad_fn that assigns, a tape inside the function: the gradient and the assignment. tapejax raised JAX's
    UnexpectedTracerError at the call. From outside the trace (a tape over the call) grad_fn can no longer
    assign: NotImplementedError, not a Variable silently left as it was."""
    v = tj.Variable([1.0, 2.0])
    r = tj.recompute_grad(lambda x: (v.assign_add(x), x * 2.0)[1])
    np.testing.assert_allclose(tj.function(lambda x: r(x))(tj.constant([1.0, 1.0])).numpy(), [2.0, 2.0])
    np.testing.assert_allclose(v.numpy(), [2.0, 3.0])

    v.assign([1.0, 2.0])

    @tj.custom_gradient
    def k(x):
        def grad(dy):
            v.assign_add(dy)
            return dy * 2.0
        return x * 2.0, grad

    @tj.function
    def inside(x):
        with tj.GradientTape() as t:
            t.watch(x)
            y = k(x)
        return t.gradient(y, x)
    np.testing.assert_allclose(inside(tj.constant([1.0, 1.0])).numpy(), [2.0, 2.0])
    np.testing.assert_allclose(v.numpy(), [2.0, 3.0])

    s = tj.recompute_grad(lambda x: (v.assign_add(x), tnp.sin(x))[1])
    x = tj.constant([0.5, 0.5])
    with tj.GradientTape() as t:
        t.watch(x)
        y = tj.function(lambda x: s(x))(x)
    with pytest.raises(NotImplementedError, match="assigns Variable"):
        t.gradient(y, x)


def test_forward_mode_with_a_gradient_of_another_shape():
    """The tangent is the transpose of grad_fn (API.md), its gradient paired with the input's tangent broadcast
    against it: grad_fn dy -> 0.5 * sum(dy) (a () gradient for a (3,) x) has tangent 0.5 * sum(t) in each
    element; grad_pass_through of outputs and inputs of other shapes pairs them the same way. A shape that
    does not broadcast is a ValueError saying so."""
    x = tj.constant([1.0, 2.0, 3.0])

    @tj.custom_gradient
    def f(x):
        return x * 2.0, lambda dy: tnp.sum(dy) * 0.5
    with tj.ForwardAccumulator(x, tj.constant([1.0, 1.0, 2.0])) as acc:
        y = f(x)
    np.testing.assert_allclose(acc.jvp(y).numpy(), [2.0, 2.0, 2.0])

    a = tj.constant(1.5)
    p = tj.grad_pass_through(lambda u, b: (u * u, u))  # output 1 (3,) pairs with input b ()
    with tj.ForwardAccumulator([x, a], [tj.constant([1.0, 1.0, 1.0]), tj.constant(2.0)]) as acc:
        _, z = p(x, a)
    np.testing.assert_allclose(acc.jvp(z).numpy(), [2.0, 2.0, 2.0])

    q = tj.grad_pass_through(lambda u: tnp.reshape(u, (3, 1)))  # a (3, 1) gradient for a (3,) input
    with tj.ForwardAccumulator(x, tj.constant([1.0, 1.0, 2.0])) as acc:
        z = q(x)
    np.testing.assert_allclose(acc.jvp(z).numpy(), [[4.0], [4.0], [4.0]])  # (sum(t) each: both broadcast)

    @tj.custom_gradient
    def h(x):
        return x * 2.0, lambda dy: dy[:2]
    with pytest.raises(ValueError, match=r"shape \(2,\) for an input of shape \(3,\)"):
        with tj.ForwardAccumulator(x, tj.constant([1.0, 1.0, 2.0])):
            h(x)


def test_wrong_shaped_gradient_of_an_output_made_from_constants_raises_under_a_trace():
    """A grad_fn whose gradient has another shape than its input raises ValueError where JAX differentiates (a
    tape over a tj.function call), also when the output does not depend on the inputs (sin of a Python float):
    the gradient was a silent 0 there (custom gradient differential, seed 5547). TF's tf.function raises
    ValueError too; a correctly shaped gradient is still grad_fn's (7.0, as TF)."""
    def make(shape):
        @tj.custom_gradient
        def f(a0, a1):
            def grad_fn(dy):
                return [tj.numpy.ones(shape) * tj.numpy.sum(dy) * 7.0, None]
            return tj.numpy.sin(a1), grad_fn
        return tj.function(lambda a0: f(a0, -1.76))
    a0 = tj.constant(-0.625)
    with tj.GradientTape() as tape:
        tape.watch(a0)
        y = make((3,))(a0)
    with pytest.raises(ValueError, match=r"gradient of shape \(3,\)"):
        tape.gradient(y, a0)
    with tj.GradientTape() as tape:
        tape.watch(a0)
        y = make(())(a0)
    assert float(tape.gradient(y, a0).numpy()) == 7.0


def test_custom_gradient_of_a_closed_over_tensor_inside_a_function():
    """cg(c) inside a tj.function, c a Tensor closed over (not an argument): an outer tape or accumulator over
    the call used the visible sin's derivative, cos(c), instead of grad_fn's (the rule was attached to c's
    concrete value, not to the trace's input). TF 2.21: [3, 3] for both (tf_function_differential seed 131)."""
    @tj.custom_gradient
    def cg(x):
        return tj.numpy.sin(x), lambda dy: dy * 3.0
    c = tj.constant([0.5, 1.0])
    f = tj.function(lambda: cg(c))
    with tj.GradientTape() as tape:
        tape.watch(c)
        y = f()
    np.testing.assert_allclose(tape.gradient(y, c).numpy(), [3.0, 3.0])
    with tj.ForwardAccumulator(c, tj.constant([1.0, 1.0])) as acc:
        y = f()
    np.testing.assert_allclose(acc.jvp(y).numpy(), [3.0, 3.0])
