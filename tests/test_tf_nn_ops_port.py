"""tj.nn ops ported from TensorFlow's own tests: values, gradients and errors compared with TF 2.21.

Sources: tensorflow/python/kernel_tests/nn_ops/pooling_ops_test.py, softmax_op_test.py, relu_op_test.py,
conv_ops_test.py, xent_op_test_base.py, sparse_xent_op_test_base.py, tensorflow/python/ops/nn_test.py and
nn_fused_batchnorm_test.py. TF's NHWC/HWIO convolutions map to tj.nn.conv's NCHW/OIHW by transposes; TF's
``ksize``/``strides`` of ``[1, h, w, 1]`` map to ``window_shape=(h, w)``. Expected values are TF 2.21's (run
eagerly, float32), hard-coded beside the TF expression or test that gave them; TensorFlow is not imported here.
"""
from __future__ import annotations

import jax
import numpy as np
import pytest

import tapejax as tj
from conftest import accumulator_jvp

tnp = tj.numpy


def _grad(f, x0, output_gradients=None):
    x = tj.constant(x0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x, output_gradients=output_gradients)


# -- pooling (kernel_tests/nn_ops/pooling_ops_test.py) -------------------------------------------------------

def _counting(shape):
    """pooling_ops_test's input: 1, 2, 3, ... wrapping round to -127 after 127."""
    n = int(np.prod(shape))
    return np.array([((f + 128) % 255) - 127 for f in range(n)], np.float32).reshape(shape)


@pytest.mark.parametrize("shape,window,strides,want", [
    # testAvgPoolSamePaddingNonSquareWindow: [avg(1, 2), avg(2, padded), ...]: the padding is not counted
    ([1, 2, 2, 1], (1, 2), (1, 1), [1.5, 2.0, 3.5, 4.0]),
    ([1, 2, 2, 1], (2, 1), (1, 1), [2.0, 3.0, 3.0, 4.0]),  # ..._2
    ([2, 2, 2, 2], (1, 2), (1, 1), [2, 3, 3, 4, 6, 7, 7, 8, 10, 11, 11, 12, 14, 15, 15, 16]),  # ...MultiBatch
    ([2, 2, 2, 2], (2, 1), (1, 1), [3, 4, 5, 6, 5, 6, 7, 8, 11, 12, 13, 14, 13, 14, 15, 16]),  # ...MultiBatch_2
    ([1, 4, 4, 4], (3, 3), (2, 2), [21, 22, 23, 24, 27, 28, 29, 30, 45, 46, 47, 48, 51, 52, 53, 54]),  # Packet_4
    ([1, 2, 4, 3], (2, 2), (2, 2), [8.5, 9.5, 10.5, 14.5, 15.5, 16.5]),  # testAvgPoolSamePadding
    ([1, 3, 3, 1], (1, 1), (2, 2), [1, 3, 7, 9]),  # testKernelSmallerThanStrideSame1_
])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_avg_pool_same_excludes_padding(shape, window, strides, want, dtype):
    # TF: tf.nn.avg_pool(x, [1, *window, 1], [1, *strides, 1], "SAME") averages only the real elements
    out = tj.nn.avg_pool(_counting(shape).astype(dtype), window, strides, "SAME")
    assert out.dtype == dtype
    np.testing.assert_allclose(out.numpy().ravel().astype(np.float32), want, rtol=1e-3 if dtype == np.float16 else 1e-6)


def test_avg_pool_1d_same_golden_and_count_include_pad():
    # nn_test.py AvgPoolTest.test1DNumpyWithGolden: tf.nn.avg_pool1d(x, 2, 1, "SAME")
    x = np.array([[[3], [6], [5]], [[1], [0], [1]]], np.float32)
    np.testing.assert_array_equal(tj.nn.avg_pool(x, (2,), (1,), "SAME").numpy().ravel(), [4.5, 5.5, 5.0, 0.5, 0.5, 1.0])
    # flax's convention stays available
    np.testing.assert_array_equal(tj.nn.avg_pool(x, (2,), (1,), "SAME", count_include_pad=True).numpy().ravel(),
                                  [4.5, 5.5, 2.5, 0.5, 0.5, 0.5])


def test_avg_pool_same_gradient_excludes_padding():
    # testAvgPoolGrad (_testAvgPoolGradSamePadding2_1's shape): TF's AvgPoolGrad spreads each output's gradient
    # over the real elements of its window. TF: tape.gradient(tf.nn.avg_pool(x, [1, 2, 2, 1], [1, 1, 1, 1],
    # "SAME"), x) for x of shape [1, 2, 3, 1]
    g = _grad(lambda x: tj.nn.avg_pool(x, (2, 2), (1, 1), "SAME"), np.arange(6, dtype=np.float32).reshape(1, 2, 3, 1))
    np.testing.assert_allclose(g.numpy().ravel(), [0.25, 0.5, 0.75, 0.75, 1.5, 2.25], rtol=1e-6)


@pytest.mark.parametrize("window", [(20, 22), (22, 20)])
@pytest.mark.parametrize("pool", ["max_pool", "avg_pool"])
def test_pool_negative_output_size_raises(pool, window):
    # testOpEdgeCases: "A filter one larger gives an empty output; two larger is invalid" (ValueError
    # "Negative dimension size"); XLA alone would give an empty output
    x = np.ones([2, 20, 20, 3], np.float32)
    with pytest.raises(ValueError, match="negative output size"):
        getattr(tj.nn, pool)(x, window, (1, 1), "VALID")
    assert getattr(tj.nn, pool)(x, (20, 21), (1, 1), "VALID").shape == (2, 1, 0, 3)


@pytest.mark.parametrize("padding,neg,want", [
    ([(0, 0), (0, 0)], False, [9.0]),  # testMaxPoolZeroExplicitPadding
    ([(2, 1), (2, 1)], True, [-1, -1, -1, -1]),  # testMaxPoolNegativeInputExpPadding: padding never wins
    ([(0, 2), (0, 1)], False, [9.0, 9.0]),  # testMaxPoolExplicitPadding
])
def test_max_pool_explicit_padding(padding, neg, want):
    x = _counting([1, 3, 3, 1]) * (-1 if neg else 1)
    np.testing.assert_array_equal(tj.nn.max_pool(x, (3, 3), (2, 2), padding).numpy().ravel(), want)


def _max_pool_grad(data, backprop, in_shape, out_shape, window, strides, padding):
    g = _grad(lambda x: tj.nn.max_pool(x, window, strides, padding), np.array(data, np.float32).reshape(in_shape),
              output_gradients=np.array(backprop, np.float32).reshape(out_shape))
    return g.numpy().ravel()


_ALT = [1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0]
_BP9 = [11.0, 12.0, 13.0, 15.0, 16.0, 17.0, 19.0, 20.0, 21.0]


@pytest.mark.parametrize("data,backprop,out_shape,window,padding,want", [
    # testMaxPoolGradDirect: ties give the whole gradient to the first maximum of each window (TF's argmax)
    ([1.0] * 16, _BP9, [1, 3, 3, 1], (2, 2), "VALID", [11, 12, 13, 0, 15, 16, 17, 0, 19, 20, 21, 0, 0, 0, 0, 0]),
    (_ALT, _BP9, [1, 3, 3, 1], (2, 2), "VALID", [11, 0, 25, 0, 0, 31, 0, 17, 19, 0, 41, 0, 0, 0, 0, 0]),
    (_ALT, list(range(11, 27)), [1, 4, 4, 1], (3, 3), "SAME", [54, 0, 62, 0, 0, 60, 0, 22, 47, 0, 51, 0, 0, 0, 0, 0]),
    (_ALT, list(range(11, 23)), [1, 3, 4, 1], (2, 2), [(0, 0), (0, 1)],  # _testMaxPoolGradExplicitPadding_1
     [11, 0, 25, 0, 0, 31, 0, 49, 19, 0, 41, 0, 0, 0, 0, 22]),
])
def test_max_pool_grad_direct(data, backprop, out_shape, window, padding, want):
    np.testing.assert_array_equal(_max_pool_grad(data, backprop, [1, 4, 4, 1], out_shape, window, (1, 1), padding), want)


def test_max_pool_grad_explicit_padding_strided():
    # _testMaxPoolGradExplicitPadding_2: 3x3 windows, strides 2, padding [[2, 1], [2, 1]]
    got = _max_pool_grad(_ALT, _BP9, [1, 4, 4, 1], [1, 3, 3, 1], (3, 3), (2, 2), [(2, 1), (2, 1)])
    np.testing.assert_array_equal(got, [54, 0, 30, 0, 0, 0, 0, 0, 39, 0, 21, 0, 0, 0, 0, 0])


# -- softmax, log_softmax (kernel_tests/nn_ops/softmax_op_test.py, ops/nn_test.py) ----------------------------

@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("axis", [2, -3, 100])
def test_softmax_axis_out_of_range_raises(fn, axis):
    # testInvalidAxis / testDimTooLarge: TF raises InvalidArgumentError ("`dim` must be in the range [-2, 2)");
    # the axis was taken modulo the rank (axis 2 of a matrix silently meant axis 0)
    with pytest.raises(ValueError, match="out of bounds"):
        getattr(tj.nn, fn)(np.ones([2, 3], np.float32), axis=axis)


def test_log_softmax_overflow_and_small_gradient_component():
    # softmax_op_test._testOverflow (float32): log_softmax([max, 1, 2, 3]) = [0, -max, -max, -max]
    big = np.finfo(np.float32).max
    out = tj.nn.log_softmax(np.array([[1.0, 1.0, 1.0, 1.0], [big, 1.0, 2.0, 3.0]], np.float32)).numpy()
    np.testing.assert_allclose(out, [[-1.386294] * 4, [0.0, -big, -big, -big]], rtol=1e-5)
    # testSoftmaxDoubleGradientPreservesSmallComponent, in float32 (x64 is off). TF (float32):
    # tape.gradient(reduce_sum(softmax([37.43, 0.]) * [1., 0.]), logits) = [0, -5.551115e-17]
    g = _grad(lambda z: tnp.sum(tj.nn.softmax(z) * tj.constant([1.0, 0.0])), np.array([37.42994775023705, 0.0],
                                                                                      np.float32))
    np.testing.assert_allclose(g.numpy(), [0.0, -5.551115e-17], rtol=1e-5, atol=0)


# -- dropout (ops/nn_test.py DropoutTest) -------------------------------------------------------------------

def test_dropout_invalid_rate_and_integer_input_raise_value_error():
    t = tj.constant(np.ones([4, 3], np.float32))
    key = jax.random.key(0)
    for rate in (-1.0, 1.1, [0.0, 1.0]):  # testInvalidRate: ValueError (a list was numpy's TypeError)
        with pytest.raises(ValueError):
            tj.nn.dropout(t, rate, key)
    with pytest.raises(ValueError, match="floating point"):  # testDropoutWithIntegerInputs
        tj.nn.dropout(tj.constant([1, 1, 1, 1, 1]), 0.5, key)
    x = tj.constant(np.zeros(5, np.float32))
    assert tj.nn.dropout(x, 0, key) is x  # testNoDropoutFast


# -- sparse_softmax_cross_entropy_with_logits (kernel_tests/nn_ops/sparse_xent_op_test_base.py) ----------------

def _sparse_xent_fwd_bwd(labels, logits):
    z = tj.constant(logits)
    with tj.GradientTape() as tape:
        tape.watch(z)
        loss = tj.nn.sparse_softmax_cross_entropy_with_logits(labels, z)
    return loss.numpy(), tape.gradient(loss, z).numpy()


def test_sparse_xent_invalid_label_is_nan():
    # testInvalidLabelGPU: TF on GPU (and under XLA) gives NaN loss and gradient rows for labels outside
    # [0, classes); its CPU kernel raises. A zero one-hot row silently gave loss 0 and gradient softmax.
    logits = np.array([[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]],
                      np.float32)
    loss, grad = _sparse_xent_fwd_bwd(np.array([4, 3, 0, -1], np.int32), logits)
    np.testing.assert_allclose(loss, [np.nan, 1.3862, 3.4420, np.nan], rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(grad, [[np.nan] * 4, [0.25, 0.25, 0.25, -0.75], [-0.968, 0.087, 0.237, 0.6439],
                                      [np.nan] * 4], rtol=1e-3, atol=1e-3)


def test_sparse_xent_scalar_logits_and_vector():
    # testScalar: ValueError "`logits` cannot be a scalar"; testVector: labels 0, logits [1.] -> 0
    with pytest.raises(ValueError, match="cannot be a scalar"):
        tj.nn.sparse_softmax_cross_entropy_with_logits(tj.constant(0), tj.constant(1.0))
    np.testing.assert_allclose(tj.nn.sparse_softmax_cross_entropy_with_logits(tj.constant(0), tj.constant([1.0])).numpy(),
                               0.0)


def test_sparse_xent_second_gradient():
    # testSecondGradient's inputs (float32). TF: the gradient of the logits' gradient with output_gradients
    # linspace(-1, 1, 12) by nested tapes
    z = np.array([0.3, 0.4, 0.1, 1.2, 0.1, 1.9, 0.1, 0.7, 0.8, 0.2, 1.3, 1.3], np.float32).reshape(3, 4)
    x = tj.constant(z)
    with tj.GradientTape() as outer:
        outer.watch(x)
        with tj.GradientTape() as inner:
            inner.watch(x)
            loss = tj.nn.sparse_softmax_cross_entropy_with_logits(tj.constant([3, 0, 1]), x)
        g = inner.gradient(loss, x)
    h = outer.gradient(g, x, output_gradients=np.linspace(-1, 1, 12).astype(np.float32).reshape(3, 4))
    np.testing.assert_allclose(h.numpy(), [[-0.06349645, -0.03284927, 0.00331582, 0.09302991],
                                           [-0.02521714, -0.04113243, 0.01161885, 0.05473071],
                                           [-0.06806648, -0.01676577, 0.01148836, 0.07334387]], rtol=1e-4, atol=1e-7)


# -- batch_norm (ops/nn_fused_batchnorm_test.py, training mode) ---------------------------------------------

@pytest.mark.parametrize("shape,axis", [([5, 7, 11, 4], 3), ([5, 7, 11, 4], 1), ([2, 3, 4, 5], 3)])
def test_batch_norm_float16_input_float32_params(shape, axis):
    # testTrainingShape* / testBatchNormGradShape* with x float16, scale/offset float32: TF's FusedBatchNorm
    # normalizes in float32; y and the x gradient are float16, the moments and the scale/offset gradients
    # float32 (tf.compat.v1.nn.fused_batch_norm(x16, s, o, data_format=..., is_training=True)). The moments
    # were float16, y float32 and the scale gradient summed in float16 (off by 0.09 on [5, 7, 11, 4]).
    rng = np.random.default_rng(1)
    c = shape[axis]
    x32 = rng.random(shape).astype(np.float16).astype(np.float32)
    scale, offset = rng.random(c).astype(np.float32), rng.random(c).astype(np.float32)
    gy = rng.random(shape).astype(np.float16)

    def run(x, g):
        x, s, o = tj.constant(x), tj.constant(scale), tj.constant(offset)
        with tj.GradientTape() as tape:
            tape.watch([x, s, o])
            y, mean, var = tj.nn.batch_norm(x, s, o, epsilon=0.001, axis=axis)
        return (y, mean, var) + tuple(tape.gradient(y, [x, s, o], output_gradients=g))
    got = run(x32.astype(np.float16), gy)
    want = run(x32, gy.astype(np.float32))  # the same computation in float32
    assert [t.dtype for t in got] == [np.float16, np.float32, np.float32, np.float16, np.float32, np.float32]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy().astype(np.float32), w.numpy(), rtol=2e-3, atol=2e-3)


# -- conv (kernel_tests/nn_ops/conv_ops_test.py): TF's NHWC/HWIO by transposes to NCHW/OIHW ---------------------

def _conv_nhwc(x, w, strides, padding):
    y = tj.nn.conv(tnp.transpose(x, (0, 3, 1, 2)), tnp.transpose(w, (3, 2, 0, 1)), window_strides=strides,
                   padding=padding)
    return tnp.transpose(y, (0, 2, 3, 1))


def _counting_from_1(shape):
    return np.arange(1, int(np.prod(shape)) + 1, dtype=np.float32).reshape(shape)


@pytest.mark.parametrize("x_shape,w_shape,strides,padding,want_dx,want_dw", [
    # testConv2D2x2Depth3ValidBackpropInput / ...BackpropFilter (output_backprop 1, 2, 3, ...)
    ([1, 2, 3, 3], [2, 2, 3, 3], (1, 1), "VALID",
     [14, 32, 50, 100, 163, 226, 167, 212, 257, 122, 140, 158, 478, 541, 604, 437, 482, 527],
     [17, 22, 27, 22, 29, 36, 27, 36, 45, 32, 43, 54, 37, 50, 63, 42, 57, 72, 62, 85, 108, 67, 92, 117, 72, 99, 126, 77,
      106, 135, 82, 113, 144, 87, 120, 153]),
    # testConv2DStrideTwoFilterOneSameBackpropInput / ...BackpropFilter
    ([1, 4, 4, 1], [1, 1, 1, 1], (2, 2), "SAME", [1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4, 0, 0, 0, 0, 0], [78]),
    # testConv2DKernelSizeMatchesInputSizeBackpropInput / ...BackpropFilter
    ([1, 2, 2, 1], [2, 2, 1, 2], (1, 1), "VALID", [5, 11, 17, 23], [1, 2, 2, 4, 3, 6, 4, 8]),
])
def test_conv_backprop_input_and_filter(x_shape, w_shape, strides, padding, want_dx, want_dw):
    x, w = tj.constant(_counting_from_1(x_shape)), tj.constant(_counting_from_1(w_shape))
    with tj.GradientTape() as tape:
        tape.watch([x, w])
        y = _conv_nhwc(x, w, strides, padding)
    dx, dw = tape.gradient(y, [x, w], output_gradients=_counting_from_1(y.shape))
    np.testing.assert_allclose(dx.numpy().ravel(), want_dx, rtol=1e-6)
    np.testing.assert_allclose(dw.numpy().ravel(), want_dw, rtol=1e-6)


def test_conv_kernel_with_empty_window_raises_value_error():
    # testOpEdgeCases: TF raises InvalidArgumentError "filter must not have zero elements" for a [1, 0, 1, 1]
    # filter; XLA failed to lower the convolution ("Cannot lower jaxpr with verifier errors")
    with pytest.raises(ValueError, match="empty spatial dimension"):
        tj.nn.conv(np.ones([1, 1, 1, 1], np.float32), np.ones([1, 1, 0, 1], np.float32), (1, 1), "SAME")
    with pytest.raises(ValueError, match="empty spatial dimension"):
        tj.nn.conv(np.ones([1, 1, 1, 1], np.float32), np.ones([1, 0, 1, 1], np.float32), (1, 1), "SAME",
                   dimension_numbers=("NHWC", "HWIO", "NHWC"))
    # an empty output depth is fine, as TF (testConv2DEmptyBackpropFilter's shapes)
    assert tj.nn.conv(np.ones([1, 1, 2, 3], np.float32), np.ones([0, 1, 2, 2], np.float32), (1, 1), "VALID").shape == (
        1, 0, 1, 2)


def test_conv_shape_error_under_a_tape_names_shapes():
    # testShapeFunctionEdgeCases (depth mismatch: ValueError). Under a tape the arguments were deferred and the
    # message showed "<tapejax.deferred.lazy.Node object at 0x...>" instead of their shapes
    x, w = tj.constant(np.ones([2, 20, 20, 3], np.float32)), tj.constant(np.ones([4, 4, 2, 2], np.float32))
    with tj.GradientTape() as tape:
        tape.watch([x, w])
        with pytest.raises(ValueError, match=r"float32\[2, 3, 20, 20\], float32\[2, 2, 4, 4\]") as info:
            _conv_nhwc(x, w, (1, 1), "SAME")
    assert "object at 0x" not in str(info.value)


# -- elu, selu (kernel_tests/nn_ops/relu_op_test.py EluTest, SeluTest) ----------------------------------------

@pytest.mark.parametrize("fn,want_y,want_g,want_h", [
    # TF: nested tapes over tf.nn.elu / tf.nn.selu at [-1, 0, 0.5]. EluGrad/SeluGrad branch on output < 0, so at
    # 0 the derivative is the linear side's and the second derivative 0 (jax.nn.elu's gave 1 there)
    ("elu", [-0.63212055, 0.0, 0.5], [0.36787945, 1.0, 1.0], [0.36787945, 0.0, 0.0]),
    ("selu", [-1.1113307, 0.0, 0.5253505], [0.64676857, 1.050701, 1.050701], [0.64676857, 0.0, 0.0]),
])
def test_elu_selu_derivatives_at_zero(fn, want_y, want_g, want_h):
    x = tj.constant([-1.0, 0.0, 0.5])
    with tj.GradientTape() as outer:
        outer.watch(x)
        with tj.GradientTape() as inner:
            inner.watch(x)
            y = getattr(tj.nn, fn)(x)
        g = inner.gradient(y, x)
    h = outer.gradient(g, x)
    np.testing.assert_allclose(y.numpy(), want_y, rtol=1e-6)
    np.testing.assert_allclose(g.numpy(), want_g, rtol=1e-6)
    np.testing.assert_allclose(h.numpy(), want_h, rtol=1e-6, atol=1e-7)
    with tj.ForwardAccumulator(x, tnp.ones_like(x)) as acc:  # forward over reverse: the same rule
        with tj.GradientTape() as inner:
            inner.watch(x)
            y = getattr(tj.nn, fn)(x)
        g = inner.gradient(y, x)
    np.testing.assert_allclose(acc.jvp(g).numpy(), want_h, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("fn,want", [
    # TF 2.21 (tf.nn.selu / tf.nn.elu under a GradientTape, checked side by side): its forward is exp(x) - 1, so at a
    # negative x too small for exp(x) to round below 1, and at -0 and NaN, the output is not < 0 and the gradient is
    # the linear side's; from -1e-6 on it is the exponential side's
    ("selu", [1.050701, 1.050701, 1.050701, 1.7580975, 1.050701, 0.23793282]),
    ("elu", [1.0, 1.0, 1.0, 0.999999, 1.0, 0.13533527]),
])
def test_elu_selu_gradient_at_tiny_negative_inputs_as_tf(fn, want):
    x0 = np.array([-1e-30, -1e-8, -0.0, -1e-6, np.nan, -2.0], np.float32)
    np.testing.assert_allclose(_grad(getattr(tj.nn, fn), x0).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(accumulator_jvp(getattr(tj.nn, fn), x0, np.ones(6, np.float32)).numpy(), want,
                               rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_selu_numbers(dtype):
    # SeluTest.testNumbers: where(x < 0, scale * alpha * (exp(x) - 1), scale * x)
    a = np.array([[-9, 7, -5, 3, -1], [1, -3, 5, -7, 9]])
    want = np.where(a < 0, 1.7580993408473768599402175208123 * np.expm1(a), 1.0507009873554804934193349852946 * a)
    out = tj.nn.selu(a.astype(dtype))
    assert out.dtype == dtype
    np.testing.assert_allclose(out.numpy().astype(np.float64), want, rtol=1e-3 if dtype == np.float16 else 1e-6)
    # large inputs: no overflow on the unused exponential side, no NaN gradient
    g = _grad(tj.nn.selu, np.array([-100.0, 100.0], np.float32))
    np.testing.assert_allclose(g.numpy(), [0.0, 1.050701], rtol=1e-6)


def test_cross_entropy_of_float16_logits_is_float16_computed_in_float32():
    """TF 2.21 (nn_ops: labels cast to the logits' dtype, float16 logits computed in float32 and the loss cast
    back), labels [[0.2, 0.3, 0.5], [0, 1, 0]] float32, logits [[1, 2, 3], [0, 1, -1]] float16: loss float16
    [1.1074, 0.4077]; labels gradient float32 [[2.408, 1.408, 0.408], [1.408, 0.408, 2.408]] (-log_softmax);
    logits gradient float16 [[-0.11, -0.055, 0.165], [0.245, -0.335, 0.09]]. tapejax returned a float32 loss
    [1.1075, 0.4075] (computed in float16, then promoted) and a float16 gradient for the float32 labels. The
    sparse loss with labels [2, 1] is float16 [0.4077, 0.4077] in TF (tapejax: 0.4075)."""
    import jax.numpy as jnp
    labels = tj.constant([[0.2, 0.3, 0.5], [0.0, 1.0, 0.0]])
    logits = tj.constant(np.array([[1.0, 2.0, 3.0], [0.0, 1.0, -1.0]]), jnp.float16)
    with tj.GradientTape() as tape:
        tape.watch([labels, logits])
        loss = tj.nn.softmax_cross_entropy_with_logits(labels, logits)
    g_labels, g_logits = tape.gradient(loss, [labels, logits])
    assert loss.dtype == jnp.float16 and g_labels.dtype == jnp.float32 and g_logits.dtype == jnp.float16
    np.testing.assert_array_equal(np.asarray(loss, np.float32), np.float16([1.1074, 0.4077]).astype(np.float32))
    np.testing.assert_allclose(g_labels, [[2.408, 1.408, 0.408], [1.408, 0.408, 2.408]], atol=1e-3)
    np.testing.assert_allclose(np.asarray(g_logits, np.float32), [[-0.11, -0.055, 0.165], [0.245, -0.335, 0.09]],
                               atol=1e-3)
    sparse = tj.nn.sparse_softmax_cross_entropy_with_logits(tj.constant([2, 1]), logits)
    assert sparse.dtype == jnp.float16
    np.testing.assert_array_equal(np.asarray(sparse, np.float32), np.float16([0.4077, 0.4077]).astype(np.float32))
