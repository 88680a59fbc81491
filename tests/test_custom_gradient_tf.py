"""tj.custom_gradient / tj.recompute_grad against TF's behaviour (issue 13 items 4, 5, 8, 9 and 13).

Expected values are TF's eager results, worked out by hand in each test.
"""
import numpy as np
import pytest

import tapejax as tj
from tapejax import numpy as tnp
from conftest import close, to_numpy


# ----------------- item 4: outputs that are Python / NumPy values -------------------------------------

@pytest.mark.parametrize("to_host", [lambda t: 2.0 * t.numpy(), lambda t: float(2.0 * t.numpy())],
                         ids=["numpy", "python_float"])
def test_numpy_or_python_output_is_converted_and_recorded(to_host):
    # TF converts f's outputs to Tensors (identity) and records the op, so grad_fn decides the gradient
    ran = []

    @tj.custom_gradient
    def f(x):
        def grad(dy):
            ran.append(True)
            return 5.0 * dy
        return to_host(x), grad

    x = tj.constant(3.0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert isinstance(y, tj.Tensor)
    close(y, 6.0)
    close(tape.gradient(y, x), 5.0)
    assert ran == [True]


def test_numpy_output_forward_mode_uses_grad_fn():
    @tj.custom_gradient
    def f(x):
        return 2.0 * x.numpy(), lambda dy: 5.0 * dy

    x = tj.constant([1.0, 2.0])
    with tj.ForwardAccumulator(x, tj.constant([1.0, 3.0])) as acc:
        y = f(x)
    assert isinstance(y, tj.Tensor)
    close(acc.jvp(y), [5.0, 15.0])


def test_nested_mixed_outputs_are_all_tensors():
    # outputs: tuple of (Tensor, [numpy, float], {'a': Tensor, 'b': float}); grad_fn gets one dy per leaf
    seen = []

    @tj.custom_gradient
    def f(x):
        out = (x * 2.0, [np.float32(3.0) * x.numpy(), 7.0], {"a": x * x, "b": 1.0})

        def grad(*dys):
            seen.append([to_numpy(d).tolist() for d in dys])
            d0, d1, d2, d3, d4 = dys
            return d0 * 2.0 + d1 * 3.0 + d3 * 2.0 * x
        return out, grad

    x = tj.constant(2.0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y0, (y1, y2), d = f(x)
        loss = y0 + y1 + y2 + d["a"] + d["b"]
    for t in (y0, y1, y2, d["a"], d["b"]):
        assert isinstance(t, tj.Tensor)
    close(y1, 6.0)
    close(y2, 7.0)
    close(d["b"], 1.0)
    assert sorted(d) == ["a", "b"]
    close(tape.gradient(loss, x), 2.0 + 3.0 + 4.0)  # d0*2 + d1*3 + d3*2x with all dys 1
    assert seen == [[1.0, 1.0, 1.0, 1.0, 1.0]]


def test_int_and_none_outputs():
    # an int output becomes an int32 Tensor (its dy is a zero); None stays None
    @tj.custom_gradient
    def f(x):
        return (x * 2.0, 3, None), lambda dy, di: dy * 4.0

    x = tj.constant(1.0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y, i, n = f(x)
    assert isinstance(i, tj.Tensor) and i.dtype == np.int32 and n is None
    close(tape.gradient(y, x), 4.0)


def test_numpy_inputs_give_tensor_outputs():
    # TF testWithNumpyInputs: numpy inputs are accepted; the output is a Tensor
    @tj.custom_gradient
    def f(x):
        return x, lambda dy: None

    y = f(np.ones((3, 2), np.float32))
    assert isinstance(y, tj.Tensor) and y.shape == (3, 2)


def test_unconvertible_output_names_the_function():
    @tj.custom_gradient
    def weird(x):
        return (x, object()), lambda dy, _: dy

    with pytest.raises(TypeError, match=r"custom_gradient 'weird'.*output 1"):
        weird(tj.constant(1.0))


# ----------------- item 5: recompute_grad with a Variable argument ------------------------------------

def test_recompute_grad_variable_argument_first_order():
    # TF testFnRecompute (the test_var case): d sum(c * v) / dv = c
    c = tj.constant([3.0, 4.0])
    v = tj.Variable([1.0, 2.0])
    rf = tj.recompute_grad(lambda x, w: x * w)
    with tj.GradientTape() as tape:
        y = rf(c, v)
    close(y, [3.0, 8.0])
    close(tape.gradient(y, v), [3.0, 4.0])


def test_recompute_grad_variable_argument_both_inputs_explicit_watch():
    c = tj.constant([3.0, 4.0])
    v = tj.Variable([1.0, 2.0])
    rf = tj.recompute_grad(lambda x, w: x * w * w)
    with tj.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch([c, v])
        y = rf(c, v)
    gc, gv = tape.gradient(y, [c, v])
    close(gc, [1.0, 4.0])   # w^2
    close(gv, [6.0, 16.0])  # 2xw


def test_recompute_grad_variable_argument_second_order():
    # L = sum(x w^2); g = dL/dw = 2xw; d sum(g^2)/dw = 8x^2 w; d sum(g)/dx = 2w
    c = tj.constant([3.0, 4.0])
    v = tj.Variable([1.0, 2.0])
    rf = tj.recompute_grad(lambda x, w: x * w * w)
    with tj.GradientTape(persistent=True) as outer:
        outer.watch(c)
        with tj.GradientTape() as inner:
            loss = tnp.sum(rf(c, v))
        gv = inner.gradient(loss, v)
        z = tnp.sum(gv * gv)
        s = tnp.sum(gv)
    close(gv, [6.0, 16.0])
    close(outer.gradient(z, v), [72.0, 256.0])
    close(outer.gradient(s, c), [2.0, 4.0])


def test_variable_argument_is_watched_like_a_read():
    # TF converts a Variable argument to a tensor (a read), so a tape watching accessed variables
    # watches it even when f never reads it; grad_fn's gradient for it comes back
    @tj.custom_gradient
    def f(x, w):
        return x * 2.0, lambda dy: (dy * 2.0, dy * 7.0)

    c = tj.constant(1.0)
    v = tj.Variable(3.0)
    with tj.GradientTape() as tape:
        y = f(c, v)
    assert [u.name for u in tape.watched_variables()] == [v.name]
    close(tape.gradient(y, v), 7.0)


def test_recompute_grad_variable_argument_inside_function():
    v = tj.Variable([1.0, 2.0])

    @tj.function
    def step(c):
        with tj.GradientTape() as tape:
            y = tj.recompute_grad(lambda x, w: x * w * w)(c, v)
        return tape.gradient(y, v)
    close(step(tj.constant([3.0, 4.0])), [6.0, 16.0])


# ----------------- item 8: custom_gradient on a method -----------------------------------------------

class _Model:
    def __init__(self):
        self.w = tj.Variable(2.0)

    @tj.custom_gradient
    def multiply(self, x1, x2):
        def grad(dy):  # switched on purpose, as TF testCustomGradientClass
            return dy * x1, dy * x2
        return x1 * x2, grad

    @tj.custom_gradient
    def scale(self, x):
        y = x * self.w

        def grad(dy, variables=None):
            return dy * 10.0, [dy * 100.0 for _ in variables]
        return y, grad


def test_custom_gradient_method_binds_self():
    # TF testCustomGradientClass: grad_fn returns one gradient per non-self input
    m = _Model()
    x1, x2 = tj.constant(3.0), tj.constant(5.0)
    with tj.GradientTape() as tape:
        tape.watch([x1, x2])
        y = m.multiply(x1, x2)
    close(y, 15.0)
    g1, g2 = tape.gradient(y, [x1, x2])
    close(g1, 3.0)
    close(g2, 5.0)
    assert _Model.multiply.__name__ == "multiply" and m.multiply.__name__ == "multiply"


def test_custom_gradient_method_reading_attribute_variable():
    m = _Model()
    x = tj.constant(3.0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = m.scale(x)
    gx, gw = tape.gradient(y, [x, m.w])
    close(y, 6.0)
    close(gx, 10.0)
    close(gw, 100.0)


# ----------------- item 9: dicts keyed by v.ref() ----------------------------------------------------

def test_recompute_grad_dict_with_ref_keys():
    v1, v2 = tj.Variable(1.0), tj.Variable(2.0)
    x1, x2 = tj.constant(3.0), tj.constant(4.0)

    def f(xs):
        return sum(k.deref() * x * x for k, x in xs.items())

    rf = tj.recompute_grad(f)
    with tj.GradientTape() as tape:
        tape.watch([x1, x2])
        y = rf({v1.ref(): x1, v2.ref(): x2})
    close(y, 1.0 * 9.0 + 2.0 * 16.0)
    g1, g2 = tape.gradient(y, [x1, x2])
    close(g1, 6.0)   # 2 v1 x1
    close(g2, 16.0)  # 2 v2 x2


def test_custom_gradient_dict_with_ref_keys_in_and_out():
    # inputs and outputs keyed by v.ref(): flattened in insertion order, dys and gradients in that order
    v1, v2 = tj.Variable(1.0), tj.Variable(2.0)
    x1, x2 = tj.constant(3.0), tj.constant(4.0)

    @tj.custom_gradient
    def f(xs):
        out = {k: x * 2.0 for k, x in xs.items()}

        def grad(dy_a, dy_b):
            return {v1.ref(): dy_a * 10.0, v2.ref(): dy_b * 20.0}
        return out, grad

    with tj.GradientTape() as tape:
        tape.watch([x1, x2])
        out = f({v1.ref(): x1, v2.ref(): x2})
        loss = out[v1.ref()] + 3.0 * out[v2.ref()]
    assert list(out) == [v1.ref(), v2.ref()]
    close(out[v2.ref()], 8.0)
    g1, g2 = tape.gradient(loss, [x1, x2])
    close(g1, 10.0)
    close(g2, 60.0)


# ----------------- item 13: error texts --------------------------------------------------------------

def _wrong_count_fn():
    @tj.custom_gradient
    def f(a, b):
        return a * b, lambda dy: dy  # one gradient for two inputs
    return f


def test_wrong_count_error_says_op_once_with_tf_wording():
    f = _wrong_count_fn()
    x = tj.constant(2.0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = f(x, x)
    with pytest.raises(ValueError) as ei:
        tape.gradient(y, x)
    msg = str(ei.value)
    assert msg.count("'f'") == 1, msg
    assert "custom_gradient function expected 2 gradients" in msg and "returned 1" in msg


def test_wrong_count_error_under_accumulator_names_op():
    f = _wrong_count_fn()
    x = tj.constant(2.0)
    with tj.ForwardAccumulator(x, tj.constant(1.0)):
        with pytest.raises(ValueError) as ei:
            f(x, x)
    msg = str(ei.value)
    assert msg.count("'f'") == 1, msg
    assert "custom_gradient function expected 2 gradients" in msg


def test_wrong_variable_gradient_count_tf_wording():
    v = tj.Variable(2.0)

    @tj.custom_gradient
    def g(x):
        return x * v, lambda dy, variables=None: (dy, [])

    x = tj.constant(1.0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = g(x)
    with pytest.raises(ValueError) as ei:
        tape.gradient(y, x)
    msg = str(ei.value)
    assert msg.count("'g'") == 1, msg
    assert "Must return gradient for each variable from @custom_gradient grad_fn" in msg


def test_f_not_returning_a_pair_names_the_function():
    @tj.custom_gradient
    def plain(x):
        return x * 2.0

    with pytest.raises(TypeError, match=r"custom_gradient 'plain'.*pair \(outputs, grad_fn\).*Tensor"):
        plain(tj.constant(1.0))


def test_missing_variables_kwarg_tf_wording():
    v = tj.Variable(2.0)

    @tj.custom_gradient
    def h(x):
        return x * v, lambda dy: dy

    with pytest.raises(TypeError, match=r"grad_fn must accept keyword argument 'variables', since function "
                                        r"'h' uses variables"):
        h(tj.constant(1.0))


def test_keyword_arguments_reach_f_but_are_not_inputs():
    # TF: only positional arguments are inputs; grad_fn returns one gradient per positional argument, a Tensor or
    # Variable given by keyword gets None (TF 2.21: [5.0, None] and [7.0, None] below)
    @tj.custom_gradient
    def f(x, scale=None):
        def grad(dy):
            return dy * scale
        return x * scale, grad
    x, s = tj.constant(1.0), tj.constant(5.0)
    with tj.GradientTape() as tape:
        tape.watch([x, s])
        y = f(x, scale=s)
    gx, gs = tape.gradient(y, [x, s])
    assert float(gx) == 5.0 and gs is None
    assert float(f(x, scale=2.0)) == 2.0  # a Python number by keyword

    v = tj.Variable(2.0)

    @tj.custom_gradient
    def g(x, w=None):
        def grad(dy):  # no `variables`: a Variable passed by keyword is not one grad_fn answers for
            return dy * 7.0
        return x * w, grad
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = g(x, w=v)
    gx, gv = tape.gradient(y, [x, v])
    assert float(gx) == 7.0 and gv is None
