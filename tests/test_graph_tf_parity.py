"""Compiled-mode parity with TensorFlow 2.21 (tf.gradients inside tf.function, tf.function tracing), in the
cases TF's own gradients_test.py / def_function_test.py exercise. Expected values are from the math (and agree
with TF 2.21 run on the same programs)."""
import numpy as np
import pytest

import tapejax as tj


def test_scalar_grad_ys_is_broadcast_to_its_y():
    # TF: tf.gradients(x * x, x, grad_ys=2.0) with x of shape (2,) gives 2 * 2x = [4, 8].
    @tj.function
    def f(x):
        return tj.gradients(x * x, x, grad_ys=tj.constant(2.0))

    (g,) = f(tj.constant([1.0, 2.0]))
    np.testing.assert_allclose(g.numpy(), [4.0, 8.0])


def test_scalar_grad_ys_second_order_stays_differentiable():
    # d/dx of (grad of x^3 seeded with c * x) = d/dx (3x^2 * c x) = 9 c x^2 with c = 1: 9 * [1, 4].
    @tj.function
    def f(x):
        (g,) = tj.gradients(x * x * x, x, grad_ys=tj.numpy.sum(x) * 0.0 + 1.0)
        return tj.gradients(g * x, x)

    (h,) = f(tj.constant([1.0, 2.0]))
    np.testing.assert_allclose(h.numpy(), [9.0, 36.0])


def test_grad_ys_of_another_shape_still_raises():
    @tj.function
    def f(x):
        return tj.gradients(x * x, x, grad_ys=tj.constant([1.0, 2.0, 3.0]))

    with pytest.raises(ValueError):
        f(tj.constant([1.0, 2.0]))


@pytest.mark.parametrize("unconnected, expected", [("none", None), ("zero", 0.0)])
def test_python_number_among_xs_is_an_unconnected_constant(unconnected, expected):
    # TF converts xs with convert_to_tensor: a fresh constant, which ys do not depend on.
    @tj.function
    def f(x):
        return tj.gradients(x * 2.0, [x, 2.0], unconnected_gradients=unconnected)

    gx, gc = f(tj.constant(3.0))
    np.testing.assert_allclose(gx.numpy(), 2.0)
    if expected is None:
        assert gc is None
    else:
        np.testing.assert_allclose(np.asarray(gc), expected)


def test_none_among_xs_raises_type_error():
    @tj.function
    def f(x):
        return tj.gradients(x * 2.0, [x, None])

    with pytest.raises(TypeError):
        f(tj.constant(3.0))


def test_grad_ys_list_holds_one_nested_list_per_y():
    # TF: grad_ys is a list with one entry per y; an entry may be a nested list of numbers.
    @tj.function
    def f(x):
        return tj.gradients(x * x, x, grad_ys=[[2.0, 3.0]])

    (g,) = f(tj.constant([1.0, 2.0]))
    np.testing.assert_allclose(g.numpy(), [4.0, 12.0])


def test_gradients_work_in_the_first_call_that_creates_variables():
    # The lazy build (Variables created on the first call) must not lose tj.gradients: d(x v^2) = [v^2, 2xv].
    class Layer:
        v = None

    layer = Layer()

    @tj.function
    def f(x):
        if layer.v is None:
            layer.v = tj.Variable(2.0)
        (gv,) = tj.gradients(x * layer.v * layer.v, layer.v)
        return tj.gradients(x * layer.v * layer.v, [x, layer.v]) + tj.gradients(gv, layer.v)

    for _ in range(2):  # the first call (which creates the Variable) and the second agree
        gx, gv, gvv = f(tj.constant(1.0))
        np.testing.assert_allclose([gx.numpy(), gv.numpy(), gvv.numpy()], [4.0, 4.0, 2.0])


def _assign_then_read(v):
    def f(x):
        a = v * x
        v.assign(a)
        return v * 1.0 + a
    return f


def test_read_after_assignment_in_a_function_differentiates_as_a_fresh_read():
    # TF: an assignment is not differentiable; the read after it is a read of the Variable. With v = 2, x = 3:
    # y = v_new + v x, so dy/dx = v = 2 and dy/dv = 1 (the later read) + x = 4 (TF 2.21 gives the same).
    v = tj.Variable(2.0)
    x = tj.constant(3.0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tj.function(_assign_then_read(v))(x)
    gx, gv = tape.gradient(y, [x, v])
    np.testing.assert_allclose([y.numpy(), gx.numpy(), gv.numpy(), v.numpy()], [12.0, 2.0, 4.0, 6.0])


def test_read_after_assignment_has_the_variables_tangent():
    # TF: y = v_new^2 with v_new = v x assigned; the read after it carries v's tangent 1: dy = 2 v_new = 12.
    v = tj.Variable(2.0)

    @tj.function
    def f(x):
        v.assign(v * x)
        return v * v

    with tj.ForwardAccumulator(v, tj.constant(1.0)) as acc:
        y = f(tj.constant(3.0))
    np.testing.assert_allclose([y.numpy(), acc.jvp(y).numpy()], [36.0, 12.0])


def test_read_after_assignment_under_tj_gradients_inside_an_outer_function():
    # The same rule when the whole thing is differentiated by tj.gradients in an enclosing trace.
    v = tj.Variable(2.0)
    inner = tj.function(_assign_then_read(v))

    @tj.function
    def outer(x):
        return tj.gradients(inner(x), [x, v])

    gx, gv = outer(tj.constant(3.0))
    np.testing.assert_allclose([gx.numpy(), gv.numpy()], [2.0, 4.0])


def test_function_assigning_a_variable_called_inside_another_function():
    # TF: the inner call's assignment is seen by the outer trace and written back once the outer call returns.
    v = tj.Variable(2.0)
    inner = tj.function(_assign_then_read(v))

    @tj.function
    def outer(x):
        y = inner(x)
        return y, v * 1.0

    for expected_y, expected_v in [(12.0, 6.0), (36.0, 18.0)]:
        y, seen = outer(tj.constant(3.0))
        np.testing.assert_allclose([y.numpy(), seen.numpy(), v.numpy()], [expected_y, expected_v, expected_v])
