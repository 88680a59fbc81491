"""tj.gradients (tf.gradients semantics inside a tj.function) and tj.AggregationMethod.

Expected values are from jax.grad / jax.hessian of the same math, or the examples of the tf.gradients /
tf.AggregationMethod docstrings."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from tapejax import numpy as tnp
from conftest import close


ALL_METHODS = [None, tj.AggregationMethod.ADD_N, tj.AggregationMethod.DEFAULT,
               tj.AggregationMethod.EXPERIMENTAL_TREE, tj.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N]


def test_outside_tj_function_raises_runtime_error():
    x = tj.constant(1.0)
    with pytest.raises(RuntimeError, match="GradientTape"):
        tj.gradients(x * 2.0, [x])
    # also under an eager tape: still not a graph
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
        with pytest.raises(RuntimeError):
            tj.gradients(y, x)


def test_gradient_wrt_arguments_matches_jax():
    def jf(x, w):
        return jnp.sum(jnp.tanh(x @ w) ** 2) + jnp.sum(jnp.sin(w))

    @tj.function
    def f(x, w):
        y = tnp.sum(tnp.tanh(x @ w) ** 2) + tnp.sum(tnp.sin(w))
        return tj.gradients(y, [x, w])

    x = jnp.array([[0.5, -1.0, 2.0], [0.1, 0.2, 0.3]])
    w = jnp.array([[0.3, -0.2], [0.8, 0.5], [-1.0, 0.4]])
    gx, gw = f(x, w)
    ex, ew = jax.grad(jf, argnums=(0, 1))(x, w)
    close(gx, ex, rtol=1e-5)
    close(gw, ew, rtol=1e-5)


def test_gradient_wrt_tensor_created_inside():
    @tj.function
    def f(x):
        h = tnp.sin(x) * 3.0   # created inside the trace
        y = tnp.sum(h ** 2 + tnp.exp(h))
        return tj.gradients(y, h)

    x = jnp.array([0.2, -0.7, 1.4])
    (gh,) = f(x)
    h = np.sin(np.asarray(x)) * 3.0
    close(gh, 2 * h + np.exp(h), rtol=1e-5)


def test_gradient_wrt_value_captured_from_outside():
    c = tj.constant([1.0, 2.0, 3.0])      # a closure capture, not an argument
    raw = jnp.array([0.5, 0.5, 0.5])      # a jax array captured and converted inside

    @tj.function
    def f(x):
        r = tj.convert_to_tensor(raw)
        y = tnp.sum(c ** 2 * x + r * c)
        return tj.gradients(y, [c, x, r])

    x = jnp.array([2.0, -1.0, 0.5])
    gc, gx, gr = f(x)
    close(gc, 2 * np.array([1.0, 2.0, 3.0]) * np.asarray(x) + 0.5)
    close(gx, np.array([1.0, 4.0, 9.0]))
    close(gr, np.array([1.0, 2.0, 3.0]))


def test_gradient_wrt_variables_sums_over_reads():
    v = tj.Variable(jnp.array([0.5, -1.5]))

    def jf(vv, x):
        a = vv * x
        b = jnp.sin(vv * 2.0)  # second read, after an assignment would change nothing here
        return jnp.sum(a * b)

    @tj.function
    def f(x):
        a = v * x
        b = tnp.sin(v.read_value() * 2.0)
        y = tnp.sum(a * b)
        return tj.gradients(y, [v, x])

    x = jnp.array([3.0, 0.25])
    gv, gx = f(x)
    vv = v.value().value
    close(gv, jax.grad(jf, 0)(vv, x), rtol=1e-5)
    close(gx, jax.grad(jf, 1)(vv, x), rtol=1e-5)


def test_gradients_of_sum_of_ys_and_always_a_list():
    @tj.function
    def f(x):
        y1 = x ** 2
        y2 = tnp.sin(x)
        g_list = tj.gradients([y1, y2], [x])
        g_single = tj.gradients(y1, x)           # single x: still a list
        g_tuple = tj.gradients((y1, y2), (x,))   # tuple xs: still a list
        return g_list, g_single, g_tuple

    x = jnp.array([0.3, 1.2])
    g_list, g_single, g_tuple = f(x)
    assert isinstance(g_list, list) and len(g_list) == 1
    assert isinstance(g_single, list) and len(g_single) == 1
    assert isinstance(g_tuple, list) and len(g_tuple) == 1
    close(g_list[0], 2 * np.asarray(x) + np.cos(np.asarray(x)), rtol=1e-6)
    close(g_single[0], 2 * np.asarray(x))


def test_grad_ys_default_custom_and_shape_mismatch():
    @tj.function
    def f(x, gy):
        y = x * x
        default = tj.gradients(y, x)
        custom = tj.gradients(y, x, grad_ys=gy)
        scalar_y = tnp.sum(y)
        custom_scalar = tj.gradients(scalar_y, x, grad_ys=3.0)
        two = tj.gradients([y, scalar_y], x, grad_ys=[gy, None])  # None -> ones for that y
        return default, custom, custom_scalar, two

    x = jnp.array([1.0, -2.0, 3.0])
    gy = jnp.array([10.0, 0.5, -1.0])
    default, custom, custom_scalar, two = f(x, gy)
    close(default[0], 2 * np.asarray(x))
    close(custom[0], 2 * np.asarray(x) * np.asarray(gy))
    close(custom_scalar[0], 3.0 * 2 * np.asarray(x))
    close(two[0], 2 * np.asarray(x) * np.asarray(gy) + 2 * np.asarray(x))

    @tj.function
    def bad_shape(x):
        return tj.gradients(x * x, x, grad_ys=tnp.ones(4))

    with pytest.raises(ValueError):
        bad_shape(x)

    @tj.function
    def bad_count(x):
        return tj.gradients([x * x, x * 2.0], x, grad_ys=[tnp.ones(3)])

    with pytest.raises(ValueError):
        bad_count(x)


def test_stop_gradients_docstring_example():
    # tf.gradients docstring: a = 0; b = 2 * a; g = tf.gradients(a + b, [a, b], stop_gradients=[a, b])
    # gives [1.0, 1.0] (total derivative would be [3.0, 1.0]).
    @tj.function
    def f():
        a = tj.constant(0.0)
        b = 2.0 * a
        stopped = tj.gradients(a + b, [a, b], stop_gradients=[a, b])
        total = tj.gradients(a + b, [a, b])
        return stopped, total

    stopped, total = f()
    close(stopped[0], 1.0)
    close(stopped[1], 1.0)
    close(total[0], 3.0)
    close(total[1], 1.0)


def test_stop_gradients_on_intermediate_blocks_the_path():
    @tj.function
    def f(x):
        h = tnp.sin(x)
        y = tnp.sum(h * x)
        return tj.gradients(y, x, stop_gradients=h)

    x = jnp.array([0.4, -1.0])
    (g,) = f(x)
    close(g, np.sin(np.asarray(x)))  # h treated as a constant


@pytest.mark.parametrize("unconnected", [tj.UnconnectedGradients.NONE, "none",
                                         tj.UnconnectedGradients.ZERO, "zero"])
def test_unconnected_none_and_zero(unconnected):
    v = tj.Variable(jnp.ones((2, 2)))

    @tj.function
    def f(x, z):
        y = tnp.sum(x * 2.0)
        return tj.gradients(y, [x, z, v], unconnected_gradients=unconnected)

    x = jnp.ones(3)
    z = jnp.ones((4,))
    gx, gz, gv = f(x, z)
    close(gx, np.full(3, 2.0))
    if unconnected in (tj.UnconnectedGradients.NONE, "none"):
        assert gz is None and gv is None
    else:
        close(gz, np.zeros(4))
        assert tuple(gz.shape) == (4,)
        close(gv, np.zeros((2, 2)))
        assert tuple(gv.shape) == (2, 2)


def test_unknown_unconnected_value_raises():
    @tj.function
    def f(x):
        return tj.gradients(x * 2.0, x, unconnected_gradients="bogus")

    with pytest.raises(ValueError):
        f(jnp.ones(2))


@pytest.mark.parametrize("method", ALL_METHODS + [0, 1, 2])
def test_aggregation_methods_give_the_same_result(method):
    # the tf.AggregationMethod docstring example: x = 1; y = 2x; z = y + y + y + y -> dz/dx = 8, dz/dy = 4
    @tj.function
    def doc_example():
        x = tj.constant(1.0)
        y = x * 2.0
        z = y + y + y + y
        return tj.gradients(z, [x, y], aggregation_method=method)

    gx, gy = doc_example()
    close(gx, 8.0)
    close(gy, 4.0)

    # a multi-path graph: x used by many ops whose results recombine
    def jf(x):
        a = jnp.sin(x)
        b = x * a
        c = jnp.exp(-x) * b + a * a
        return jnp.sum(c + b * x + jnp.tanh(a) + x)

    @tj.function
    def f(x):
        a = tnp.sin(x)
        b = x * a
        c = tnp.exp(-x) * b + a * a
        y = tnp.sum(c + b * x + tnp.tanh(a) + x)
        return tj.gradients(y, [x, a], aggregation_method=method)

    x = jnp.array([0.3, -1.1, 2.2, 0.0])
    gx, ga = f(x)
    close(gx, jax.grad(jf)(x), rtol=1e-5, atol=1e-6)
    xn = np.asarray(x, np.float64)
    an = np.sin(xn)
    # d y / d a (a as an independent node): x * (exp(-x) + x) * [via b] + 2a + sech^2(a)
    close(ga, xn * (np.exp(-xn) + xn) + 2 * an + 1 / np.cosh(an) ** 2, rtol=1e-5)


@pytest.mark.parametrize("bad", [3, -1, "add_n", "EXPERIMENTAL_TREE", object()])
def test_unknown_aggregation_method_raises(bad):
    @tj.function
    def f(x):
        return tj.gradients(x * 2.0, x, aggregation_method=bad)

    with pytest.raises(ValueError):
        f(jnp.ones(2))


def test_aggregation_method_enum_values_match_tf():
    assert tj.AggregationMethod.ADD_N.value == 0
    assert tj.AggregationMethod.DEFAULT.value == tj.AggregationMethod.ADD_N.value
    assert tj.AggregationMethod.EXPERIMENTAL_TREE.value == 1
    assert tj.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N.value == 2


def test_second_order_gradients_of_gradients():
    def jf(x):
        return jnp.sum(jnp.sin(x) * x ** 3)

    @tj.function
    def f(x):
        y = tnp.sum(tnp.sin(x) * x ** 3)
        (g,) = tj.gradients(y, x)
        (h,) = tj.gradients(g, x)          # sum over rows of the Hessian
        (h2,) = tj.gradients(tnp.sum(g * g), x)
        return g, h, h2

    x = jnp.array([0.5, -1.3, 2.0])
    g, h, h2 = f(x)
    H = jax.hessian(jf)(x)
    close(g, jax.grad(jf)(x), rtol=1e-5)
    close(h, H.sum(axis=0), rtol=1e-5, atol=1e-5)
    close(h2, jax.grad(lambda z: jnp.sum(jax.grad(jf)(z) ** 2))(x), rtol=1e-5, atol=1e-4)


def test_second_order_wrt_variable():
    v = tj.Variable(jnp.array([0.7, -0.2]))

    def jf(vv):
        return jnp.sum(jnp.exp(vv) * vv ** 2)

    @tj.function
    def f():
        y = tnp.sum(tnp.exp(v) * v ** 2)
        (g,) = tj.gradients(y, v)
        (h,) = tj.gradients(g, v)
        return g, h

    g, h = f()
    vv = v.value().value
    close(g, jax.grad(jf)(vv), rtol=1e-5)
    close(h, jax.hessian(jf)(vv).sum(axis=0), rtol=1e-5)


def test_gradients_result_usable_in_training_update():
    w = tj.Variable(jnp.array([1.0, -2.0, 0.5]))

    @tj.function
    def step(x):
        loss = tnp.sum((w * x - 1.0) ** 2)
        (g,) = tj.gradients(loss, w)
        w.assign_sub(0.1 * g)
        return loss

    x = jnp.array([0.5, 1.0, 2.0])
    wv = jnp.array([1.0, -2.0, 0.5])
    for _ in range(3):
        loss, g = jax.value_and_grad(lambda ww: jnp.sum((ww * x - 1.0) ** 2))(wv)
        close(step(x), loss, rtol=1e-6)
        wv = wv - 0.1 * g
    close(w, wv, rtol=1e-6)


def test_gradients_under_outer_eager_tape():
    # tj.gradients inside a tj.function, the tj.function differentiated by an outer tape
    @tj.function
    def grad_f(x):
        return tj.gradients(tnp.sum(tnp.sin(x) * x), x)[0]

    x = tj.constant([0.2, 1.0])
    with tj.GradientTape() as tape:
        tape.watch(x)
        g = grad_f(x)
        s = tnp.sum(g)
    h = tape.gradient(s, x)
    jf = lambda z: jnp.sum(jnp.sin(z) * z)  # noqa: E731
    close(g, jax.grad(jf)(x.value), rtol=1e-6)
    close(h, jax.hessian(jf)(x.value).sum(axis=0), rtol=1e-5)


_while_op = tj.op(
    lambda x: jax.lax.while_loop(lambda c: c[1] < 3, lambda c: (c[0] * 1.5, c[1] + 1), (x, 0))[0],
    name="my_while_loop")


def test_op_without_gradient_on_path_raises_lookup_error():
    @tj.function
    def f(x):
        y = _while_op(x) * x
        return tj.gradients(y, x)

    with pytest.raises(LookupError, match="my_while_loop"):
        f(jnp.float32(2.0))


def test_op_without_gradient_off_path_is_fine():
    @tj.function
    def f(x):
        h = tnp.sin(x)
        side = _while_op(h)                    # not an ancestor of y
        blocked = tj.stop_gradient(_while_op(x))  # on a stopped path
        y = tnp.sum(h * x + blocked)
        return tj.gradients(y, x), side

    x = jnp.array([0.5, 2.0])
    (g,), side = f(x)
    xn = np.asarray(x)
    close(g, np.cos(xn) * xn + np.sin(xn), rtol=1e-5)
    close(side, np.sin(xn) * 1.5 ** 3, rtol=1e-5)


def test_op_without_gradient_stopped_via_stop_gradients_argument():
    @tj.function
    def f(x):
        w = _while_op(x)
        y = tnp.sum(w * x)
        return tj.gradients(y, x, stop_gradients=[w])

    x = jnp.array([1.0, 2.0])
    (g,) = f(x)
    close(g, np.asarray(x) * 1.5 ** 3, rtol=1e-5)


def test_integer_xs_and_ys():
    @tj.function
    def f(x, n):
        y = tnp.sum(x * 2.0)
        k = n * 2
        return tj.gradients(y, [x, n]), tj.gradients(k, x)

    (gx, gn), (gk,) = f(jnp.ones(2), jnp.array([1, 2], jnp.int32))
    close(gx, [2.0, 2.0])
    assert gn is None   # integer x: no gradient (as tf.gradients for non-trainable dtypes)
    assert gk is None   # integer y: nothing flows


def test_grad_ys_list_is_one_entry_per_y_never_flattened():
    """tools/tf_gradients_differential.py seed 8419: grad_ys=[[[a], [b]]] for two ys is one entry (a nested
    list value) for two ys: TF 2.21 raises ValueError ('Length mismatch. Passed 1 grad_ys for 2 ys'), where
    tapejax flattened it into two scalars and gave a gradient."""
    @tj.function
    def f(x):
        return tj.gradients([x * 2.0, x[:, 0] * 3.0], [x], grad_ys=[[[-0.07], [1.15]]])
    with pytest.raises(ValueError, match="Passed 1 grad_ys for 2 ys"):
        f(tj.constant([[1.0], [2.0]]))

    @tj.function
    def g(x):
        return tj.gradients([x * 2.0, x[:, 0] * 3.0], [x], grad_ys=[[[-0.07], [1.15]], [1.0, 2.0]])
    np.testing.assert_allclose(g(tj.constant([[1.0], [2.0]]))[0].numpy(), [[2.86], [8.3]], rtol=1e-6)


def test_a_list_of_numbers_among_xs_is_one_constant():
    """TF converts each entry of xs to one tensor: a Python list of numbers is one unconnected constant, so
    tf.gradients(y, [[0.5, 1.5]]) is [None] (zeros of shape (2,) with 'zero'); tapejax flattened it into two.
    TF 2.21's values (tf_function_differential seed 1199)."""
    c = tj.constant(1.0)
    none = tj.function(lambda x: tj.gradients(c * 2.0, [x]))([0.5, 1.5])
    zero = tj.function(lambda x: tj.gradients(c * 2.0, [x], unconnected_gradients="zero"))([0.5, 1.5])
    assert none == [None]
    assert len(zero) == 1 and zero[0].shape == (2,) and not np.any(zero[0].numpy())


def test_a_list_of_numbers_among_ys_is_one_unconnected_y():
    """As among xs, a Python list of numbers among ys is one constant (TF converts each y to one tensor), taking
    one of grad_ys: it was flattened into 4 ys, so two grad_ys raised 'Length mismatch' (tf_function_differential
    seed 2220). TF 2.21: [10.], [2.], and ValueError for one grad_ys; a list of Tensors among ys still takes its
    grad_ys as the same structure."""
    ys = lambda x: [x * 2.0, [[1.0, 2.0], [3.0, 4.0]]]  # noqa: E731
    x = tj.constant([1.0])
    got = tj.function(lambda x: tj.gradients(ys(x), [x], grad_ys=[[5.0], np.ones((2, 2), np.float32)]))(x)
    np.testing.assert_array_equal(got[0].numpy(), [10.0])
    np.testing.assert_array_equal(tj.function(lambda x: tj.gradients(ys(x), [x]))(x)[0].numpy(), [2.0])
    with pytest.raises(ValueError, match="Passed 1 grad_ys for 2 ys"):
        tj.function(lambda x: tj.gradients(ys(x), [x], grad_ys=[[5.0]]))(x)
    nested = tj.function(lambda x: tj.gradients([x * 2.0, [x * 3.0]], [x], grad_ys=[[5.0], [[7.0]]]))(x)
    np.testing.assert_array_equal(nested[0].numpy(), [31.0])


def test_a_source_that_is_not_a_tensor_is_a_type_error():
    """TF raises TypeError for a Python number or None among a tape's sources (tapejax raised ValueError; the
    class is both)."""
    x = tj.constant(1.0)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * 2.0
    for sources in (1.5, [x, 1.5], None):
        with pytest.raises(TypeError):
            tape.gradient(y, sources)


def test_grad_ys_of_another_dtype_is_a_type_error():
    """TF 2.21 (tf.gradients in a tf.function, y = x * 2. with x float32 of shape (3,)): grad_ys=tf.constant([1, 1,
    1]) (int32) raises TypeError ("Input 'y' of 'Mul' Op has type float32 that does not match type int32"), so does
    a float16 one; grad_ys=[[1., 2., 3.]] (a Python list of y's shape) gives [2, 4, 6], grad_ys=3.0 for a scalar y
    gives 6; a wrong shape is ValueError. tapejax converted the int32 / float16 grad_ys to float32 and gave
    [2, 2, 2]. (Python numbers and lists keep taking y's dtype.)"""
    x = tj.constant([1.0, 2.0, 3.0])
    for gy in (tj.constant([1, 1, 1]), jnp.ones(3, jnp.float16), np.ones(3, np.int32)):
        with pytest.raises(TypeError, match=r"grad_ys entry of dtype (int32|float16) .* dtype float32"):
            tj.function(lambda x: tj.gradients(x * 2.0, x, grad_ys=gy))(x)
    close(tj.function(lambda x: tj.gradients(x * 2.0, x, grad_ys=[[1.0, 2.0, 3.0]]))(x)[0], [2.0, 4.0, 6.0])
    close(tj.function(lambda x: tj.gradients(x[0] * 2.0, x, grad_ys=3.0))(x)[0], [6.0, 0.0, 0.0])
    close(tj.function(lambda x: tj.gradients(x * 2.0, x, grad_ys=np.ones(3, np.float32)))(x)[0], [2.0] * 3)
    with pytest.raises(ValueError, match=r"shape \(2,\) does not match its y .* of shape \(3,\)"):
        tj.function(lambda x: tj.gradients(x * 2.0, x, grad_ys=tnp.ones(2)))(x)
