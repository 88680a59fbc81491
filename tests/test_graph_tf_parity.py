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
