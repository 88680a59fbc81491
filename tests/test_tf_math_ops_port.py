"""Reductions, scans and elementwise math ported from TensorFlow's own tests, compared with TF 2.21.

Sources: tensorflow/python/kernel_tests/math_ops/reduction_ops_test.py, scan_ops_test.py,
cwise_ops_binary_test.py, cwise_ops_unary_test.py and tensorflow/python/ops/math_ops_test.py. Only the
cases where tapejax differed (now fixed) or that tools/tf_differential.py does not cover are here. Expected
values are TF 2.21's (eager, float32 unless said), hard-coded with the TF expression that gave them;
TensorFlow is not imported.
"""
from __future__ import annotations

import jax
import numpy as np
import pytest

import tapejax as tj
from conftest import accumulator_jvp, tape_value_and_gradient

tnp = tj.numpy

NAN = np.nan

_grad = tape_value_and_gradient
_jvp = accumulator_jvp


# -- reduce_max / reduce_min: TF's _MinOrMaxGrad at a NaN ------------------------------------------------

X_NAN = np.array([[1.0, 3.0, 3.0], [NAN, 1.0, 2.0]], np.float32)
# TF: tape.gradient(tf.reduce_max(x, axis), x) and the ForwardAccumulator's jvp along 2 * ones_like(x)
MINMAX_NAN = {
    ("max", 1): ([[0.0, 0.5, 0.5], [NAN, NAN, NAN]], [2.0, NAN]),
    ("max", 0): ([[NAN, 1.0, 1.0], [NAN, 0.0, 0.0]], [NAN, 2.0, 2.0]),
    ("max", None): ([[NAN] * 3] * 2, NAN),
    ("min", 1): ([[1.0, 0.0, 0.0], [NAN, NAN, NAN]], [2.0, NAN]),
    ("min", 0): ([[NAN, 0.0, 0.0], [NAN, 1.0, 1.0]], [NAN, 2.0, 2.0]),
    ("min", None): ([[NAN] * 3] * 2, NAN),
}


@pytest.mark.parametrize("name,axis", sorted(MINMAX_NAN, key=str))
@pytest.mark.parametrize("path", ["eager", "function", "jax.jit"])
def test_reduce_max_min_gradient_at_nan_is_tfs(name, axis, path):
    # reduction_ops_test.py Max/MinReductionTest.testSpecialValues' inputs, differentiated. TF's _MinOrMaxGrad:
    # indicators = equal(y, x), grad * indicators / num_selected: where y is NaN nothing is selected and 0 / 0
    # makes the whole row NaN. JAX's rule gave NaN eagerly but 0 once compiled into a larger program
    # (replay, tj.function, jax.jit), so the answer depended on the path.
    f = getattr(tnp, name)
    want_g, want_t = MINMAX_NAN[(name, axis)]

    def grad(x):
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = f(x, axis=axis)
        return tape.gradient(y, x)

    x = tj.constant(X_NAN)
    if path == "eager":
        g = grad(x)
    elif path == "function":
        g = tj.function(grad)(x)
    else:
        g = tj.constant(jax.jit(lambda v: grad(tj.constant(v)).value)(X_NAN))
    np.testing.assert_array_equal(g.numpy(), np.asarray(want_g, np.float32))
    if path == "eager":
        np.testing.assert_array_equal(_jvp(lambda v: f(v, axis=axis), X_NAN, 2 * np.ones_like(X_NAN)).numpy(),
                                      np.asarray(want_t, np.float32))


def test_reduce_max_gradient_at_nan_replayed():
    # the same gradient after the tape's structure has recurred (replayed as one compiled program)
    x = tj.constant(np.array([1.0, NAN, 2.0], np.float32))
    for _ in range(tj.config.replay_warmup + 3):
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = tnp.max(x)
        g = tape.gradient(y, x)
        # TF: tape.gradient(tf.reduce_max([1., nan, 2.]), x) = [nan, nan, nan]
        assert np.isnan(g.numpy()).all()


def test_reduce_max_min_ties_keepdims():
    # MaxReductionTest / MinReductionTest.testGradient*: ties share equally (TF: [[0, .5, .5], [.5, .5, 0]])
    x = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 1.0]], np.float32)
    y, g = _grad(lambda v: tnp.max(v, axis=1, keepdims=True), x)
    assert y.shape == (2, 1)
    np.testing.assert_array_equal(g.numpy(), [[0.0, 0.5, 0.5], [0.5, 0.5, 0.0]])
    # TF: tape.gradient(tf.reduce_min(x, axis=[0, 1], keepdims=True), x, output_gradients=[[4.]]) is
    # [[2, 0, 0], [0, 0, 2]] (the minimum 1 twice)
    y, g = _grad(lambda v: tnp.min(v, axis=(0, 1), keepdims=True), x, output_gradients=[[4.0]])
    np.testing.assert_array_equal(g.numpy(), [[2.0, 0.0, 0.0], [0.0, 0.0, 2.0]])


# -- reduction axes ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "prod", "var", "std"])
@pytest.mark.parametrize("axis", [[-3], [2], [0, 2]])
def test_reduce_invalid_axis_raises_value_error(name, axis):
    # SumReductionTest.testInvalidIndex: tf.reduce_sum(x, [-3]) of a (2, 5) x raises ValueError ("Invalid
    # reduction dimension"); jax.numpy's mean, var and std raised a bare IndexError
    x = np.arange(0, 10).reshape([2, 5]).astype(np.float32)
    with pytest.raises(ValueError):
        getattr(tnp, name)(x, axis=axis)


@pytest.mark.parametrize("name", ["sum", "mean", "max"])
def test_reduce_repeated_axis_raises(name):
    # SumReductionTest.testInvalidRepeatedReductionIndices: tf.reduce_sum([1., 2.], [0, 0]) raises
    # InvalidArgumentError ("Axes contains duplicate dimension"; TF 2.21 eager also for axis=(0, 0) of 2-d x)
    with pytest.raises(ValueError):
        getattr(tnp, name)(tj.constant([1.0, 2.0]), axis=[0, 0])


# -- cumsum / cumprod (scan_ops_test.py) ----------------------------------------------------------------------

@pytest.mark.parametrize("name,want", [("cumsum", [0.0, 1.0, 3.0, 6.0, 10.0]), ("cumprod", [1.0, 2.0, 6.0, 24.0, 120.0])])
def test_cumsum_cumprod_dtype_argument(name, want):
    # jax.numpy's cumsum(a, axis, dtype) accumulates in dtype: tapejax ignored dtype (int32 stayed int32)
    a = np.arange(5, dtype=np.int32) + (name == "cumprod")
    out = getattr(tnp, name)(a, axis=0, dtype=np.float32)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out.numpy(), want)


# -- power of integers (cwise_ops_binary_test.py testPowNegativeExponentCpu) --------------------------------

@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32])
def test_integer_power_negative_exponent_raises(dtype):
    # TF: tf.pow([5, 2], [-2, 3]) raises InvalidArgumentError ("Integers to negative integer powers are not
    # allowed"), also for [2, -3] and for a scalar -3; NumPy raises ValueError. JAX returned a wrong number
    # (5 ** -2 gave -558738647 for int32)
    x = np.array([5, 2]).astype(dtype)
    for y in (np.array([-2, 3]).astype(dtype), np.array([2, -3]).astype(dtype)):
        with pytest.raises(ValueError, match="negative integer powers"):
            tnp.power(x, y)
        with pytest.raises(ValueError, match="negative integer powers"):
            tj.constant(x) ** tj.constant(y)
    with pytest.raises(ValueError, match="negative integer powers"):
        tnp.power(x, -3)
    with pytest.raises(ValueError, match="negative integer powers"):
        tj.constant(x) ** -3
    # non-negative integer exponents (and float bases) are unaffected: TF [[1, 4], [1, 9]]
    np.testing.assert_array_equal(tnp.power(np.array([[2], [3]], dtype), np.array([[0, 2]], dtype)).numpy(),
                                  [[1, 4], [1, 9]])
    np.testing.assert_allclose(tnp.power(np.array([5.0, 2.0], np.float32), np.array([-2, 3])).numpy(),
                               [0.04, 8.0])


def test_power_exponent_gradient_float16_in_tfs_order():
    # cwise_ops_binary_test.py testBCast_*B (np.power, float16): TF's PowGrad multiplies grad * z * log(x) in
    # that order; z * log(x) alone overflows float16 at x = 6, y = 6 (46656 * 1.79). TF:
    # x = [1, 6], y = 1 + linspace(0, 5, 6) of shape (1, 3, 2), tape.gradient(tf.pow(x, y), y, output_gradients=0.5)
    # is [0, 32.25, 0, 1161, 0, 41790] (tapejax gave inf for the last)
    x = np.array([1.0, 6.0], np.float16)
    y = tj.constant((1 + np.linspace(0, 5, 6)).reshape(1, 3, 2).astype(np.float16))
    with tj.GradientTape() as tape:
        tape.watch(y)
        z = tnp.power(x, y)
    g = tape.gradient(z, y, output_gradients=np.full((1, 3, 2), 0.5, np.float16))
    assert g.dtype == np.float16
    np.testing.assert_allclose(g.numpy().astype(np.float32).ravel(), [0, 32.25, 0, 1161, 0, 41790], rtol=2e-3)
