"""Pass-through gradients (``OpDef.passthrough``): the strictly eager backward pass hands an add's (and a
subtract's first operand's) cotangent on without calling the backward kernel when the operand has the
cotangent's shape and dtype, and calls the kernel in every other case, with the same values as before."""
import numpy as np
import pytest

import tapejax as tj
from tapejax.ops import core

tnp = tj.numpy


@pytest.fixture(autouse=True)
def strictly_eager():
    with tj.config.override(lazy=False, replay=False):
        yield


@pytest.fixture
def kernels_run(monkeypatch):
    """The names of the ops whose backward kernel ran: by way of ``_run_backward``, or by the strictly eager
    inline route of ``BackwardFunction.__call__``, which calls the kernel its residual plan asked for last
    without ``_run_backward`` (so whether it is taken depends on what ran earlier in the process): a call
    that returns a gradient that is not one of its cotangents ran a kernel there."""
    ran = []
    run_backward = core.BackwardFunction._run_backward
    call = core.BackwardFunction.__call__

    def counting_run(self, cts, diff, needed):
        ran.append(self.op.name)
        return run_backward(self, cts, diff, needed)

    def counting_call(self, cts, needed_idx, recording):
        before = len(ran)
        grads = call(self, cts, needed_idx, recording)
        if len(ran) == before and any(g is not None and all(g is not c for c in cts) for g in grads):
            ran.append(self.op.name)
        return grads
    monkeypatch.setattr(core.BackwardFunction, "_run_backward", counting_run)
    monkeypatch.setattr(core.BackwardFunction, "__call__", counting_call)
    return ran


def _gradient(f, *xs, output_gradients=None):
    with tj.GradientTape() as tape:
        tape.watch(list(xs))
        y = f(*xs)
    return tape.gradient(y, list(xs), output_gradients=output_gradients)


def test_same_shape_add_and_subtract_run_no_backward_kernel(kernels_run):
    x = tj.constant(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))
    y = tj.constant(np.full((2, 3), 0.25, np.float32))
    gx, gy = _gradient(lambda a, b: tnp.sum(tnp.tanh((a + b) - 0.5) * 2.0), x, y)
    want = 2 * (1 - np.tanh(np.linspace(-1, 1, 6).reshape(2, 3) - 0.25) ** 2)  # in float64
    np.testing.assert_allclose(gx.numpy(), want, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(gy.numpy(), want, rtol=1e-5, atol=1e-7)
    assert "add" not in kernels_run and "subtract" not in kernels_run
    assert {"tanh", "multiply"} <= set(kernels_run)


def test_the_kernel_runs_for_a_broadcast_operand(kernels_run):
    x = tj.constant(np.zeros((3, 4), np.float32))
    b = tj.constant(np.zeros((4,), np.float32))
    gx, gb = _gradient(lambda a, c: a + c, x, b)
    np.testing.assert_array_equal(gx.numpy(), np.ones((3, 4)))
    np.testing.assert_array_equal(gb.numpy(), np.full((4,), 3.0))
    assert kernels_run == ["add"]


def test_subtracts_second_operand_gets_the_negated_cotangent(kernels_run):
    x = tj.constant([1.0, 2.0])
    y = tj.constant([3.0, 5.0])
    gx, gy = _gradient(lambda a, b: a - b, x, y)
    np.testing.assert_array_equal(gx.numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(gy.numpy(), [-1.0, -1.0])
    assert kernels_run == ["subtract"]


def test_an_operand_of_another_dtype_gets_its_own_dtype(kernels_run):
    x = tj.constant(np.array([1.0, 2.0], np.float16))
    y = tj.constant(np.array([3.0, 4.0], np.float32))
    gx, gy = _gradient(lambda a, b: a + b, x, y)
    assert gx.dtype == np.float16 and gy.dtype == np.float32
    np.testing.assert_array_equal(gx.numpy(), [1.0, 1.0])
    assert kernels_run == ["add"]


def test_an_output_gradient_of_another_dtype_is_refused_or_converted_before_the_pass_through(kernels_run):
    """A float16 Tensor as the output gradient of a float32 add raises ValueError naming both dtypes (as
    tape.gradient does on every path); a float16 NumPy array is a value, converted to float32 first, so the
    pass-through hands on a float32 gradient and no kernel runs."""
    x = tj.constant([1.0, 2.0])
    with pytest.raises(ValueError, match="float16.*float32"):
        _gradient(lambda a: a + 1.0, x, output_gradients=tj.constant(np.array([2.0, 3.0], np.float16)))
    (gx,) = _gradient(lambda a: a + 1.0, x, output_gradients=np.array([2.0, 3.0], np.float16))
    assert gx.dtype == np.float32
    np.testing.assert_array_equal(gx.numpy(), [2.0, 3.0])
    assert kernels_run == []


def test_a_registered_gradient_for_add_replaces_the_pass_through(kernels_run):
    op = core.registry()["add"]
    saved = (op.fwd, op.bwd, op.jvp_rule, op.passthrough)
    try:
        @tj.RegisterGradient("add")
        def _(primals, outputs, cts):
            return (cts * 10, cts * 20)
        gx, gy = _gradient(lambda a, b: a + b, tj.constant([1.0]), tj.constant([2.0]))
        np.testing.assert_array_equal(gx.numpy(), [10.0])
        np.testing.assert_array_equal(gy.numpy(), [20.0])
        assert kernels_run == ["add"]
    finally:
        op.set_backward(saved[0], saved[1])
        op.jvp_rule, op.passthrough = saved[2], saved[3]
    kernels_run.clear()
    gx, gy = _gradient(lambda a, b: a + b, tj.constant([1.0]), tj.constant([2.0]))
    np.testing.assert_array_equal(gx.numpy(), [1.0])
    assert kernels_run == []


def test_second_order_through_an_add_is_unchanged():
    x = tj.constant([1.0, 2.0])
    with tj.GradientTape() as outer:
        outer.watch(x)
        with tj.GradientTape() as inner:
            inner.watch(x)
            y = tnp.sum((x * x) + x)
        g = inner.gradient(y, x)
    np.testing.assert_array_equal(g.numpy(), [3.0, 5.0])
    np.testing.assert_array_equal(outer.gradient(g, x).numpy(), [2.0, 2.0])
