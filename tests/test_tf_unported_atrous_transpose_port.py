"""Transposed and dilated-depthwise convolution tests that earlier TF ports left out because tapejax has no
transposed-convolution op, run on tj.nn.conv and compared with TF 2.21.

Sources (the TF test method is named at each test):
  tensorflow/python/kernel_tests/nn_ops/conv1d_test.py Conv1DTest.testConv1DTranspose (its values, with TF's
    gradients and, inside tj.function, the same again; conv1d_transpose_test's testConv1DTransposeValid has the same
    configuration and is in test_tf_unported_conv_transpose_port.py);
  tensorflow/python/kernel_tests/nn_ops/atrous_conv2d_test.py AtrousConv2DTransposeTest:
    testAtrousConv2DTransposeForward (all 108 configurations: widths 9 and 10, kernels 1..3 x 1..3, rates 1..3, SAME
    and VALID), testAtrousConv2DTransposeInvalid (see below); AtrousDepthwiseConv2DTest
    .testAtrousDepthwiseConv2DForward (all 108 configurations). TF's own tests only compare the dilated op with the
    same op on a filter upsampled by inserting zeros; here each configuration is compared with TF 2.21's output and
    with tj's result for the upsampled filter, and gradients (input and filter) are compared with TF's for seeded
    inputs, where TF's file checks none;
  tensorflow/python/ops/nn_test.py ConvTransposeTest: test1D, test1DTensor, test2D, test2DTensor, test3D,
    test3DTensor (tf.nn.conv_transpose, which TF checks against conv{1,2,3}d_transpose; here TF's values and
    gradients).
The other files' docstrings were searched for "transpose": test_tf_unported_conv3d_port.py and
test_tf_unported_nn_port.py are the ones that left transposed convolutions out, and every such method is here.

Mapping. ``tf.nn.conv{1,2,3}d_transpose`` / ``tf.nn.conv_transpose`` (output_shape, strides, padding) is
``conv_transpose`` of test_tf_unported_conv_transpose_port.py (imported, not copied): one ``tj.nn.conv`` of the
input dilated by the strides (``lhs_dilation``), with TF's ``[*kernel, out, in]`` filter flipped in space and its
channel axes swapped. ``tf.nn.atrous_conv2d_transpose(x, f, output_shape, rate, padding)`` is that call with stride
1 and ``dilations=rate`` (``rhs_dilation``); TF 2.21 computes it by space_to_batch / conv2d_transpose /
batch_to_space (its CPU Conv2DBackpropInput refuses dilations above 1), and agrees with the dilated tj call exactly
on all 108 forward configurations. ``tf.nn.depthwise_conv2d(x, f, strides, padding, dilations=[r, r])`` (the
``rate`` of TF1's signature, which TF's test uses and which gives the same values) is ``tj.nn.conv`` with
``feature_group_count`` = input channels, TF's ``[h, w, in, mult]`` filter reshaped to ``[h, w, 1, in * mult]``,
and ``rhs_dilation=(r, r)``. TF's x and f are np.arange (forward) or NumPy's legacy ``RandomState(1)``
random_sample (gradients). Gradients are tape gradients for the upstream gradient cos(0.7 * index); the forward-mode
tangents (sin(0.3 * index) for x, cos(0.7 * index) for f) are compared with TF's ForwardAccumulator; one gradient
runs through a tape inside ``tj.function`` and one through an outer tape over a ``tj.function`` call. Expected
values are TF 2.21's (CPU), hard-coded; arrays are compared by the digest ``D`` of conftest (the forward outputs
are integers, so their digests are exact). TensorFlow is not imported here.

Left out, by reason:
  argument checks of TF's Python wrapper, which has no tj counterpart (tj has no conv_transpose; the helper here is
    test code): nn_test ConvTransposeTest.testIncorrectSizeInputSmall / testIncorrectSizeInput (output_shape of
    length 2 or 6), testTensorsNoShape (output_shape None);
  testAtrousConv2DTransposeInvalid's error: TF raises InvalidArgumentError for a [10, 1, 1, 1] input, a 1x1 filter,
    rate 1356819205 and output_shape [1, 1, 1, 1]: from its space_to_batch implementation (10 * rate**2 overflows),
    and its conv2d_transpose also refuses the batch mismatch (1 against 10). tj has no op taking an output_shape,
    and the dilated tj.nn.conv with a 1x1 filter is defined; so that test is ported with a consistent output_shape
    [10, 1, 1, 1]: the value and gradients of TF's conv2d_transpose at rate 1 (a 1x1 filter dilated is 1x1).
No sanctioned difference applies: every expected value here is TF's.
"""
from __future__ import annotations

import numpy as np
import pytest

import tapejax as tj
from conftest import D, close_to_tf
from test_tf_unported_conv_transpose_port import conv_transpose

tnp = tj.numpy
DN2 = ("NHWC", "HWIO", "NHWC")


def _arange(shape):
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def _cos(shape):
    """The upstream gradient cos(0.7 * index) TF's gradients were taken with (also the filter's tangent)."""
    return np.cos(np.arange(int(np.prod(shape))) * 0.7).reshape(shape).astype(np.float32)


def _sin(shape):
    """The input's tangent, sin(0.3 * index)."""
    return np.sin(np.arange(int(np.prod(shape))) * 0.3).reshape(shape).astype(np.float32)


def _random(*shapes):
    """TF's ``np.random.seed(1)`` then ``random_sample`` for each shape, as float32."""
    rng = np.random.RandomState(1)
    return [rng.random_sample(s).astype(np.float32) for s in shapes]


def _upsample(f, rate):
    """The filter with rate - 1 zeros between its taps in both spatial axes (TF's _upsample_filters)."""
    kh, kw = f.shape[:2]
    up = np.zeros(((kh - 1) * rate + 1, (kw - 1) * rate + 1) + f.shape[2:], f.dtype)
    up[::rate, ::rate] = f
    return up


def _value_and_grads(f, xs):
    ts = [tj.constant(x) for x in xs]
    with tj.GradientTape() as tape:
        tape.watch(ts)
        y = f(*ts)
    return y, tape.gradient(y, ts, output_gradients=_cos(y.shape))


def atrous_conv2d_transpose(x, f, output_shape, rate, padding):
    """TF's atrous_conv2d_transpose: a stride-1 transposed convolution with the filter dilated by ``rate``."""
    return conv_transpose(x, f, output_shape, [1, 1], padding, dilations=rate)


def atrous_depthwise_conv2d(x, f, rate, padding):
    """TF's depthwise_conv2d with strides 1 and dilations [rate, rate]: each input channel c with its own ``mult``
    filters, TF's output channel c * mult + m."""
    h, w, c, mult = np.shape(f)
    return tj.nn.conv(x, tnp.reshape(f, (h, w, 1, c * mult)), (1, 1), padding, rhs_dilation=(rate, rate),
                      dimension_numbers=DN2, feature_group_count=c)


def _transpose_output_shape(width, kh, kw, rate, padding, height=9):
    """testAtrousConv2DTransposeForward's output_shape: the input's for SAME, grown by the dilated kernel for VALID."""
    if padding == "SAME":
        return [2, height, width, 2]
    return [2, height + (kh - 1) * rate, width + (kw - 1) * rate, 2]


# -- conv1d_test ---------------------------------------------------------------------------------------------------
# TF's conv1d_transpose of ones: x [2, 4, 3], filter [3, 2, 3] (width, out, in), output_shape [2, 9, 2], stride 2,
# VALID. Its output along the width, the same in every batch entry and output channel (TF's test computes it by
# hand: 3 input channels, 6 where two taps overlap), and its gradients for the upstream cos.
_CONV1D_T_Y = [3, 3, 6, 3, 6, 3, 6, 3, 3]
_CONV1D_T_GX = [-0.44871569, -0.44871569, -0.44871569, -0.40700293, -0.40700293, -0.40700293, 1.2156905, 1.2156905,
                1.2156905, -1.8838983, -1.8838983, -1.8838983, -0.53174931, -0.53174931, -0.53174931, -0.32324392,
                -0.32324392, -0.32324392, 1.1408844, 1.1408844, 1.1408844, -1.8266896, -1.8266896, -1.8266896]
_CONV1D_T_GF = [0.60915971, 0.60915971, 0.60915971, -0.26004797, -0.26004797, -0.26004797, -1.006951, -1.006951,
                -1.006951, -1.2802694, -1.2802694, -1.2802694, -0.95145702, -0.95145702, -0.95145702, -0.17515957,
                -0.17515957, -0.17515957]


def _conv1d_transpose(x, f):
    return conv_transpose(x, f, [2, 9, 2], 2, "VALID")


def _check_conv1d_transpose(y, gx, gf):
    assert y.dtype == "float32" and y.shape == (2, 9, 2)
    np.testing.assert_array_equal(y.numpy(), np.broadcast_to(np.array(_CONV1D_T_Y, np.float32)[None, :, None],
                                                              (2, 9, 2)))
    close_to_tf(gx, _CONV1D_T_GX, 1e-5, 1e-6)
    close_to_tf(gf, _CONV1D_T_GF, 1e-5, 1e-6)


def test_conv1d_transpose():
    """Conv1DTest.testConv1DTranspose: values, and TF's gradients for the input and filter."""
    y, (gx, gf) = _value_and_grads(_conv1d_transpose, [np.ones([2, 4, 3], np.float32), np.ones([3, 2, 3], np.float32)])
    _check_conv1d_transpose(y, gx, gf)


def test_conv1d_transpose_in_function():
    """Conv1DTest.testConv1DTranspose with the tape inside tj.function (one traced program): the same values."""
    @tj.function
    def value_and_grads(x, f):
        with tj.GradientTape() as tape:
            tape.watch([x, f])
            y = _conv1d_transpose(x, f)
        return y, tape.gradient(y, [x, f], output_gradients=_cos((2, 9, 2)))

    y, (gx, gf) = value_and_grads(tj.constant(np.ones([2, 4, 3], np.float32)),
                                  tj.constant(np.ones([3, 2, 3], np.float32)))
    _check_conv1d_transpose(y, gx, gf)


# -- nn_test ConvTransposeTest -------------------------------------------------------------------------------------
# tf.nn.conv_transpose of ones, stride 2, SAME (its default), each spatial size doubled by a kernel of 2: every
# output element gets exactly one tap from each of the 3 input channels, so TF's output is 3 everywhere.
# rank: (x shape, filter shape [*kernel, out, in], output_shape, TF's gradients for x and the filter)
_CONV_T = {
    1: ([2, 4, 3], [2, 5, 3], [2, 8, 5],
        [1.0229603, 1.0229603, 1.0229603, 0.76556146, 0.76556146, 0.76556146, 0.13135687, 0.13135687, 0.13135687,
         -0.56750107, -0.56750107, -0.56750107, -0.9870373, -0.9870373, -0.9870373, -0.92075843, -0.92075843,
         -0.92075843, -0.40128639, -0.40128639, -0.40128639, 0.31569692, 0.31569692, 0.31569692],
        [-0.6227808, -0.6227808, -0.6227808, -0.7705422, -0.7705422, -0.7705422, -0.55590558, -0.55590558,
         -0.55590558, -0.079817772, -0.079817772, -0.079817772, 0.43380928, 0.43380928, 0.43380928, 0.74340916,
         0.74340916, 0.74340916, 0.70337224, 0.70337224, 0.70337224, 0.33252835, 0.33252835, 0.33252835,
         -0.19470882, -0.19470882, -0.19470882, -0.63037133, -0.63037133, -0.63037133]),
    2: ([2, 4, 4, 3], [2, 2, 5, 3], [2, 8, 8, 5],
        D(5.872894048690796, 0.06721235466832187, 17.00932002067566),
        D(5.872891902923584, 20.10184223672019, 318.84224939346313)),
    3: ([2, 4, 4, 4, 3], [2, 2, 2, 5, 3], [2, 8, 8, 8, 5],
        D(4.946204088628292, -0.393850606736997, 62.82461806386709),
        D(4.946185827255249, 48.328634751216626, 823.2057874202728)),
}


@pytest.mark.parametrize("rank", list(_CONV_T))
@pytest.mark.parametrize("shape_as_tensor", [False, True])
def test_conv_transpose(rank, shape_as_tensor):
    """ConvTransposeTest.test1D / test2D / test3D, and test1DTensor / test2DTensor / test3DTensor (output_shape an
    int32 Tensor; its elements, scalar Tensors, set the static padding: API.md accepts a scalar Tensor wherever a
    Python number is expected as a static argument)."""
    x_shape, f_shape, y_shape, want_gx, want_gf = _CONV_T[rank]
    output_shape = list(tj.constant(y_shape)) if shape_as_tensor else y_shape
    y, (gx, gf) = _value_and_grads(lambda x, f: conv_transpose(x, f, output_shape, 2),
                                   [np.ones(x_shape, np.float32), np.ones(f_shape, np.float32)])
    assert y.dtype == "float32" and y.shape == tuple(y_shape)
    np.testing.assert_array_equal(y.numpy(), np.full(y_shape, 3.0, np.float32))
    close_to_tf(gx, want_gx, 1e-5, 1e-6)
    close_to_tf(gf, want_gf, 1e-5, 1e-6)


# -- atrous_conv2d_test AtrousConv2DTransposeTest ------------------------------------------------------------------
# (width, kernel height, kernel width, rate, padding): TF's tf.nn.atrous_conv2d_transpose output for the input
# arange of [2, 9, width, 2], the filter arange of [kernel height, kernel width, 2, 2] and the output_shape of
# _transpose_output_shape
_ATROUS_T = {
    (9, 1, 1, 1, "SAME"): D(157140.0, 690.2063061216663, 157140.0),
    (9, 1, 1, 1, "VALID"): D(157140.0, 690.2063061216663, 157140.0),
    (9, 1, 1, 2, "SAME"): D(157140.0, 690.2063061216663, 157140.0),
    (9, 1, 1, 2, "VALID"): D(157140.0, 690.2063061216663, 157140.0),
    (9, 1, 1, 3, "SAME"): D(157140.0, 690.2063061216663, 157140.0),
    (9, 1, 1, 3, "VALID"): D(157140.0, 690.2063061216663, 157140.0),
    (9, 1, 2, 1, "SAME"): D(665748.0, -36281.35172898664, 665748.0),
    (9, 1, 2, 1, "VALID"): D(732888.0, 191.81114640245346, 732888.0),
    (9, 1, 2, 2, "SAME"): D(649152.0, -52629.93607783338, 649152.0),
    (9, 1, 2, 2, "VALID"): D(732888.0, 145.8562988265685, 732888.0),
    (9, 1, 2, 3, "SAME"): D(582804.0, -18707.708734306092, 582804.0),
    (9, 1, 2, 3, "VALID"): D(732888.0, 92.80121765261902, 732888.0),
    (9, 1, 3, 1, "SAME"): D(1594692.0, -79933.53756630415, 1594692.0),
    (9, 1, 3, 1, "VALID"): D(1727244.0, 332.20610872535326, 1727244.0),
    (9, 1, 3, 2, "SAME"): D(1463292.0, -19791.8714217881, 1463292.0),
    (9, 1, 3, 2, "VALID"): D(1727244.0, 121.05271639544753, 1727244.0),
    (9, 1, 3, 3, "SAME"): D(1333044.0, 85452.09763304587, 1333044.0),
    (9, 1, 3, 3, "VALID"): D(1727244.0, 294.0688042001798, 1727244.0),
    (9, 2, 1, 1, "SAME"): D(640404.0, 2147.7899053090587, 640404.0),
    (9, 2, 1, 1, "VALID"): D(732888.0, 2591.1200198694287, 732888.0),
    (9, 2, 1, 2, "SAME"): D(630720.0, 2073.8569524685395, 630720.0),
    (9, 2, 1, 2, "VALID"): D(732888.0, 2841.634159026497, 732888.0),
    (9, 2, 1, 3, "SAME"): D(545364.0, 1889.9378245044313, 545364.0),
    (9, 2, 1, 3, "VALID"): D(732888.0, 3082.674292748273, 732888.0),
    (9, 2, 2, 1, "SAME"): D(2547668.0, -111763.86302760412, 2547668.0),
    (9, 2, 2, 1, "VALID"): D(3140208.0, 491.5970677221194, 3140208.0),
    (9, 2, 2, 2, "SAME"): D(2403328.0, -202833.2868609613, 2403328.0),
    (9, 2, 2, 2, "VALID"): D(3140208.0, 152.41886816613624, 3140208.0),
    (9, 2, 2, 3, "SAME"): D(1911156.0, -87521.29953464624, 1911156.0),
    (9, 2, 2, 3, "VALID"): D(3140208.0, -5.024898322480112, 3140208.0),
    (9, 2, 3, 1, "SAME"): D(5860996.0, -306527.8411818631, 5860996.0),
    (9, 2, 3, 1, "VALID"): D(7221960.0, 67.9719879050972, 7221960.0),
    (9, 2, 3, 2, "SAME"): D(5295168.0, -90381.27547223412, 5295168.0),
    (9, 2, 3, 2, "VALID"): D(7221960.0, 2259.745773833394, 7221960.0),
    (9, 2, 3, 3, "SAME"): D(4196916.0, 263568.59940927924, 4196916.0),
    (9, 2, 3, 3, "VALID"): D(7221960.0, 515.9597275317683, 7221960.0),
    (9, 3, 1, 1, "SAME"): D(1557828.0, 4560.652429562586, 1557828.0),
    (9, 3, 1, 1, "VALID"): D(1727244.0, 6103.066669410821, 1727244.0),
    (9, 3, 1, 2, "SAME"): D(1398780.0, 4195.5302375843785, 1398780.0),
    (9, 3, 1, 2, "VALID"): D(1727244.0, 7201.408885138225, 1727244.0),
    (9, 3, 1, 3, "SAME"): D(1250100.0, 3829.9849666285736, 1250100.0),
    (9, 3, 1, 3, "VALID"): D(1727244.0, 8207.935595461502, 1727244.0),
    (9, 3, 2, 1, "SAME"): D(6072628.0, -248917.8673780075, 6072628.0),
    (9, 3, 2, 1, "VALID"): D(7221960.0, 123.22841160133612, 7221960.0),
    (9, 3, 2, 2, "SAME"): D(5204544.0, -444061.9494490718, 5204544.0),
    (9, 3, 2, 2, "VALID"): D(7221960.0, -174.85278598603327, 7221960.0),
    (9, 3, 2, 3, "SAME"): D(4296612.0, -221091.0363590756, 4296612.0),
    (9, 3, 2, 3, "VALID"): D(7221960.0, -415.64892171661086, 7221960.0),
    (9, 3, 3, 1, "SAME"): D(13774100.0, -736223.8703210701, 13774100.0),
    (9, 3, 3, 1, "VALID"): D(16484148.0, -388.92561111270334, 16484148.0),
    (9, 3, 3, 2, "SAME"): D(11384724.0, -205772.9552180067, 11384724.0),
    (9, 3, 3, 2, "VALID"): D(16484148.0, -27.70234160383552, 16484148.0),
    (9, 3, 3, 3, "SAME"): D(9294516.0, 576457.846302152, 9294516.0),
    (9, 3, 3, 3, "VALID"): D(16484148.0, 639.181945722492, 16484148.0),
    (10, 1, 1, 1, "SAME"): D(194040.0, 860.9626051288319, 194040.0),
    (10, 1, 1, 1, "VALID"): D(194040.0, 860.9626051288319, 194040.0),
    (10, 1, 1, 2, "SAME"): D(194040.0, 860.9626051288319, 194040.0),
    (10, 1, 1, 2, "VALID"): D(194040.0, 860.9626051288319, 194040.0),
    (10, 1, 1, 3, "SAME"): D(194040.0, 860.9626051288319, 194040.0),
    (10, 1, 1, 3, "VALID"): D(194040.0, 860.9626051288319, 194040.0),
    (10, 1, 2, 1, "SAME"): D(830376.0, 1088.8841026427176, 830376.0),
    (10, 1, 2, 1, "VALID"): D(905040.0, 3481.0321775503385, 905040.0),
    (10, 1, 2, 2, "SAME"): D(811944.0, 204.05752783713888, 811944.0),
    (10, 1, 2, 2, "VALID"): D(905040.0, 3486.636102387748, 905040.0),
    (10, 1, 2, 3, "SAME"): D(738072.0, -5222.056291556022, 738072.0),
    (10, 1, 2, 3, "VALID"): D(905040.0, 2517.137736626589, 905040.0),
    (10, 1, 3, 1, "SAME"): D(1985616.0, 2549.3684263095756, 1985616.0),
    (10, 1, 3, 1, "VALID"): D(2133000.0, 8935.88707554407, 2133000.0),
    (10, 1, 3, 2, "SAME"): D(1839384.0, -5734.049418571651, 1839384.0),
    (10, 1, 3, 2, "VALID"): D(2133000.0, 1538.3274909504107, 2133000.0),
    (10, 1, 3, 3, "SAME"): D(1694304.0, -4561.2001075948665, 1694304.0),
    (10, 1, 3, 3, "VALID"): D(2133000.0, 3789.344036079077, 2133000.0),
    (10, 2, 1, 1, "SAME"): D(790840.0, 223.13735832993166, 790840.0),
    (10, 2, 1, 1, "VALID"): D(905040.0, 2429.2786707987543, 905040.0),
    (10, 2, 1, 2, "SAME"): D(778880.0, -2830.0002495331164, 778880.0),
    (10, 2, 1, 2, "VALID"): D(905040.0, 774.6538761875372, 905040.0),
    (10, 2, 1, 3, "SAME"): D(673480.0, -686.4370998228414, 673480.0),
    (10, 2, 1, 3, "VALID"): D(905040.0, -2909.2912041126174, 905040.0),
    (10, 2, 2, 1, "SAME"): D(3171496.0, -1187.0428844859816, 3171496.0),
    (10, 2, 2, 1, "VALID"): D(3877920.0, 1783.1001422586487, 3877920.0),
    (10, 2, 2, 2, "SAME"): D(3005568.0, -1197.6767932246448, 3005568.0),
    (10, 2, 2, 2, "VALID"): D(3877920.0, -690.0990160550355, 3877920.0),
    (10, 2, 2, 3, "SAME"): D(2414136.0, -24241.303249759265, 2414136.0),
    (10, 2, 2, 3, "VALID"): D(3877920.0, 18803.804509931986, 3877920.0),
    (10, 2, 3, 1, "SAME"): D(7296976.0, -2226.777738681478, 7296976.0),
    (10, 2, 3, 1, "VALID"): D(8918640.0, -10908.852126254702, 8918640.0),
    (10, 2, 3, 2, "SAME"): D(6654592.0, -18390.39676983229, 6654592.0),
    (10, 2, 3, 2, "VALID"): D(8918640.0, 6660.794460711473, 8918640.0),
    (10, 2, 3, 3, "SAME"): D(5332896.0, -25057.33062152277, 5332896.0),
    (10, 2, 3, 3, "VALID"): D(8918640.0, 1672.1228453258082, 8918640.0),
    (10, 3, 1, 1, "SAME"): D(1923800.0, -1457.9661250791069, 1923800.0),
    (10, 3, 1, 1, "VALID"): D(2133000.0, 1355.7224245866728, 2133000.0),
    (10, 3, 1, 2, "SAME"): D(1727400.0, 2506.310001000835, 1727400.0),
    (10, 3, 1, 2, "VALID"): D(2133000.0, -3294.5738034363485, 2133000.0),
    (10, 3, 1, 3, "SAME"): D(1543800.0, 11234.910284611422, 1543800.0),
    (10, 3, 1, 3, "VALID"): D(2133000.0, -837.7061774336653, 2133000.0),
    (10, 3, 2, 1, "SAME"): D(7554440.0, -2704.698696569554, 7554440.0),
    (10, 3, 2, 1, "VALID"): D(8918640.0, -6330.95533185593, 8918640.0),
    (10, 3, 2, 2, "SAME"): D(6508440.0, -3384.7595870872374, 6508440.0),
    (10, 3, 2, 2, "VALID"): D(8918640.0, -524.89085846544, 8918640.0),
    (10, 3, 2, 3, "SAME"): D(5422296.0, -34608.78014114096, 5422296.0),
    (10, 3, 2, 3, "VALID"): D(8918640.0, -259.9965946552402, 8918640.0),
    (10, 3, 3, 1, "SAME"): D(17147920.0, -9746.56810317596, 17147920.0),
    (10, 3, 3, 1, "VALID"): D(20356920.0, -3116.4423404912377, 20356920.0),
    (10, 3, 3, 2, "SAME"): D(14306504.0, -1456.6839241648122, 14306504.0),
    (10, 3, 3, 2, "VALID"): D(20356920.0, 15705.517624742053, 20356920.0),
    (10, 3, 3, 3, "SAME"): D(11808864.0, 90493.23466414852, 11808864.0),
    (10, 3, 3, 3, "VALID"): D(20356920.0, -290.76153497092673, 20356920.0),
}


@pytest.mark.parametrize("key", list(_ATROUS_T))
def test_atrous_conv2d_transpose_forward(key):
    """AtrousConv2DTransposeTest.testAtrousConv2DTransposeForward: TF's output, and (TF's own check) the same as the
    stride-1 transposed convolution with the upsampled filter."""
    width, kh, kw, rate, padding = key
    y_shape = _transpose_output_shape(width, kh, kw, rate, padding)
    x, f = _arange([2, 9, width, 2]), _arange([kh, kw, 2, 2])
    y = atrous_conv2d_transpose(x, f, y_shape, rate, padding)
    assert y.dtype == "float32" and y.shape == tuple(y_shape)
    close_to_tf(y, _ATROUS_T[key], 1e-9)
    np.testing.assert_array_equal(y.numpy(), conv_transpose(x, _upsample(f, rate), y_shape, [1, 1], padding).numpy())


# (kernel height, kernel width, rate, padding): (output_shape, TF's output and its x and filter gradients for the
# upstream cos); x [2, 5, 6, 2] then f [kernel height, kernel width, 2, 2] from RandomState(1)
_ATROUS_T_GRAD = {
    (3, 3, 1, "SAME"): ([2, 5, 6, 2], D(359.2353663444519, -0.607162268815177, 359.2353663444519),
                        D(6.62853332888335, 53.97790425665987, 112.64585602749139),
                        D(8.415355876088142, -2.1957263814905215, 42.93653090298176)),
    (3, 3, 2, "SAME"): ([2, 5, 6, 2], D(274.69511246681213, 4.450693848935408, 274.69511246681213),
                        D(1.8307054629549384, 25.76531736085702, 64.56300705578178),
                        D(4.758440062403679, -11.775250717151016, 40.15038315951824)),
    (3, 3, 3, "SAME"): ([2, 5, 6, 2], D(203.38455659151077, 1.1226063102972557, 203.38455659151077),
                        D(10.751836927607656, 87.77536725452177, 138.4783777948469),
                        D(4.812092259526253, 0.4936070114055452, 22.69630555808544)),
    (3, 3, 1, "VALID"): ([2, 7, 8, 2], D(445.3303548693657, -5.034103337287403, 445.3303548693657),
                         D(-0.2755135032348335, -0.15539624949521702, 142.62445401819423),
                         D(-3.0196745693683624, -2.1746852290409855, 70.7394771873951)),
    (3, 3, 2, "VALID"): ([2, 9, 10, 2], D(445.3303521499038, 3.8777643203183723, 445.3303521499038),
                         D(1.6981412502937019, -1.0533414911984103, 76.17552974028513),
                         D(5.745909005403519, 34.338295015301426, 59.80206021666527)),
    (3, 3, 3, "VALID"): ([2, 11, 12, 2], D(445.33035207143985, 0.8956197503957424, 445.33035207143985),
                         D(0.4362324960529804, 3.628736000910555, 125.16508025862277),
                         D(0.176763653755188, -0.502572005036924, 90.22855454683304)),
    (2, 3, 2, "SAME"): ([2, 5, 6, 2], D(214.44317269325256, 1.1907497595840102, 214.44317269325256),
                        D(1.952327555976808, -23.6558552391026, 57.92980379704386),
                        D(-2.208120808005333, 5.36338710375014, 26.71393074095249)),
    (2, 3, 2, "VALID"): ([2, 7, 10, 2], D(308.25461748987436, 1.2360840553356027, 308.25461748987436),
                         D(-0.13818450830876827, -11.726311306898962, 58.43629959411919),
                         D(-1.5007853507995605, 6.302406131528392, 19.62511658668518)),
}


@pytest.mark.parametrize("key", list(_ATROUS_T_GRAD))
def test_atrous_conv2d_transpose_gradient(key):
    """AtrousConv2DTransposeTest (rates 1..3, both paddings, an even kernel height too): TF's input and filter
    gradients of atrous_conv2d_transpose, for seeded inputs."""
    kh, kw, rate, padding = key
    y_shape, want_y, want_gx, want_gf = _ATROUS_T_GRAD[key]
    y, (gx, gf) = _value_and_grads(lambda x, f: atrous_conv2d_transpose(x, f, y_shape, rate, padding),
                                   _random([2, 5, 6, 2], [kh, kw, 2, 2]))
    assert y.shape == tuple(y_shape)
    close_to_tf(y, want_y, 1e-5)
    close_to_tf(gx, want_gx, 1e-5)
    close_to_tf(gf, want_gf, 1e-5)


def test_atrous_conv2d_transpose_huge_rate():
    """AtrousConv2DTransposeTest.testAtrousConv2DTransposeInvalid's inputs: ones [10, 1, 1, 1], a 1x1 filter of one,
    rate 1356819205, SAME, with the output_shape [10, 1, 1, 1] that matches the input (see the docstring: TF's error
    is its space_to_batch's overflow and the batch mismatch). A 1x1 filter dilated is 1x1, so TF's value and
    gradients are those of conv2d_transpose at rate 1: the input, the upstream gradient, and its sum."""
    y, (gx, gf) = _value_and_grads(lambda x, f: atrous_conv2d_transpose(x, f, [10, 1, 1, 1], 1356819205, "SAME"),
                                   [np.ones((10, 1, 1, 1), np.float32), np.ones((1, 1, 1, 1), np.float32)])
    assert y.shape == (10, 1, 1, 1)
    np.testing.assert_array_equal(y.numpy(), np.ones((10, 1, 1, 1), np.float32))
    close_to_tf(gx, [1, 0.76484221, 0.16996714, -0.5048461, -0.94222236, -0.93645668, -0.49026081, 0.18651237,
                     0.77556586, 0.99985862], 1e-6, 1e-7)
    close_to_tf(gf, [1.0229603], 1e-6)


# -- atrous_conv2d_test AtrousDepthwiseConv2DTest ------------------------------------------------------------------
# (width, kernel height, kernel width, rate, padding): (output shape, TF's tf.nn.depthwise_conv2d output with
# dilations [rate, rate]) for the input arange of [2, 9, width, 2] and the filter arange of [kh, kw, 2, 2]
_ATROUS_DW = {
    (9, 1, 1, 1, "SAME"): ([2, 9, 9, 4], D(157302.0, 852.038039924895, 157302.0)),
    (9, 1, 1, 1, "VALID"): ([2, 9, 9, 4], D(157302.0, 852.038039924895, 157302.0)),
    (9, 1, 1, 2, "SAME"): ([2, 9, 9, 4], D(157302.0, 852.038039924895, 157302.0)),
    (9, 1, 1, 2, "VALID"): ([2, 9, 9, 4], D(157302.0, 852.038039924895, 157302.0)),
    (9, 1, 1, 3, "SAME"): ([2, 9, 9, 4], D(157302.0, 852.038039924895, 157302.0)),
    (9, 1, 1, 3, "VALID"): ([2, 9, 9, 4], D(157302.0, 852.038039924895, 157302.0)),
    (9, 1, 2, 1, "SAME"): ([2, 9, 9, 4], D(672390.0, -32249.329215577167, 672390.0)),
    (9, 1, 2, 1, "VALID"): ([2, 9, 8, 4], D(654048.0, 2921.5508820578316, 654048.0)),
    (9, 1, 2, 2, "SAME"): ([2, 9, 9, 4], D(654048.0, -21767.76278569025, 654048.0)),
    (9, 1, 2, 2, "VALID"): ([2, 9, 7, 4], D(574308.0, 2634.8709210960897, 574308.0)),
    (9, 1, 2, 3, "SAME"): ([2, 9, 9, 4], D(592434.0, 21938.64619514346, 592434.0)),
    (9, 1, 2, 3, "VALID"): ([2, 9, 6, 4], D(493992.0, 2343.656303118212, 493992.0)),
    (9, 1, 3, 1, "SAME"): ([2, 9, 9, 4], D(1604358.0, -38749.58433643807, 1604358.0)),
    (9, 1, 3, 1, "VALID"): ([2, 9, 7, 4], D(1351854.0, 5529.111375854327, 1351854.0)),
    (9, 1, 3, 2, "SAME"): ([2, 9, 9, 4], D(1479834.0, 26328.916718338805, 1479834.0)),
    (9, 1, 3, 2, "VALID"): ([2, 9, 5, 4], D(971370.0, 3859.945929433542, 971370.0)),
    (9, 1, 3, 3, "SAME"): ([2, 9, 9, 4], D(1354158.0, -51578.37695230679, 1354158.0)),
    (9, 1, 3, 3, "VALID"): ([2, 9, 3, 4], D(586278.0, 1890.5900273879997, 586278.0)),
    (9, 2, 1, 1, "SAME"): ([2, 9, 9, 4], D(697734.0, 2919.2474573788645, 697734.0)),
    (9, 2, 1, 1, "VALID"): ([2, 8, 9, 4], D(672480.0, 2805.4297713319843, 672480.0)),
    (9, 2, 1, 2, "SAME"): ([2, 9, 9, 4], D(672480.0, 2817.7813213755, 672480.0)),
    (9, 2, 1, 2, "VALID"): ([2, 7, 9, 4], D(606564.0, 2452.505392776525, 606564.0)),
    (9, 2, 1, 3, "SAME"): ([2, 9, 9, 4], D(629874.0, 2592.0957183542077, 629874.0)),
    (9, 2, 1, 3, "VALID"): ([2, 6, 9, 4], D(535464.0, 2082.380399894325, 535464.0)),
    (9, 2, 2, 1, "SAME"): ([2, 9, 9, 4], D(2791318.0, -91736.70176236928, 2791318.0)),
    (9, 2, 2, 1, "VALID"): ([2, 8, 8, 4], D(2559488.0, 683.7326594278165, 2559488.0)),
    (9, 2, 2, 2, "SAME"): ([2, 9, 9, 4], D(2559488.0, -57012.35022289732, 2559488.0)),
    (9, 2, 2, 2, "VALID"): ([2, 7, 7, 4], D(2019192.0, -9168.039081256824, 2019192.0)),
    (9, 2, 2, 3, "SAME"): ([2, 9, 9, 4], D(2218134.0, 65266.09276381386, 2218134.0)),
    (9, 2, 2, 3, "VALID"): ([2, 6, 6, 4], D(1527264.0, 4640.573780271317, 1527264.0)),
    (9, 2, 3, 1, "SAME"): ([2, 9, 9, 4], D(6383254.0, -96945.07745385694, 6383254.0)),
    (9, 2, 3, 1, "VALID"): ([2, 8, 7, 4], D(5153120.0, -22475.65138727614, 5153120.0)),
    (9, 2, 3, 2, "SAME"): ([2, 9, 9, 4], D(5642528.0, 110730.72727771415, 5642528.0)),
    (9, 2, 3, 2, "VALID"): ([2, 7, 5, 4], D(3320380.0, 27936.517054749267, 3320380.0)),
    (9, 2, 3, 3, "SAME"): ([2, 9, 9, 4], D(4839930.0, -149359.25726514868, 4839930.0)),
    (9, 2, 3, 3, "VALID"): ([2, 6, 3, 4], D(1758888.0, 2040.387396475482, 1758888.0)),
    (9, 3, 1, 1, "SAME"): ([2, 9, 9, 4], D(1641222.0, 6389.337239106374, 1641222.0)),
    (9, 3, 1, 1, "VALID"): ([2, 7, 9, 4], D(1416366.0, 5230.656271746313, 1416366.0)),
    (9, 3, 1, 2, "SAME"): ([2, 9, 9, 4], D(1544346.0, 5918.836320384032, 1544346.0)),
    (9, 3, 1, 2, "VALID"): ([2, 5, 9, 4], D(1063530.0, 3537.612104757948, 1063530.0)),
    (9, 3, 1, 3, "SAME"): ([2, 9, 9, 4], D(1437102.0, 5432.502489852433, 1437102.0)),
    (9, 3, 1, 3, "VALID"): ([2, 3, 9, 4], D(669222.0, 1925.460327064222, 669222.0)),
    (9, 3, 2, 1, "SAME"): ([2, 9, 9, 4], D(6430022.0, -186277.59084883454, 6430022.0)),
    (9, 3, 2, 1, "VALID"): ([2, 7, 8, 4], D(5257056.0, -20639.272357931575, 5257056.0)),
    (9, 3, 2, 2, "SAME"): ([2, 9, 9, 4], D(5733152.0, -109477.14397207869, 5733152.0)),
    (9, 3, 2, 2, "VALID"): ([2, 5, 7, 4], D(3450300.0, 28891.886703200267, 3450300.0)),
    (9, 3, 2, 3, "SAME"): ([2, 9, 9, 4], D(4957290.0, 134635.17272841843, 4957290.0)),
    (9, 3, 2, 3, "VALID"): ([2, 3, 6, 4], D(1859112.0, 3659.773520574612, 1859112.0)),
    (9, 3, 3, 1, "SAME"): ([2, 9, 9, 4], D(14492150.0, -180203.55937382483, 14492150.0)),
    (9, 3, 3, 1, "VALID"): ([2, 7, 7, 4], D(10499622.0, -43546.8497222158, 10499622.0)),
    (9, 3, 3, 2, "SAME"): ([2, 9, 9, 4], D(12539830.0, 252928.30137585674, 12539830.0)),
    (9, 3, 3, 2, "VALID"): ([2, 5, 5, 4], D(5625750.0, 63144.3054831762, 5625750.0)),
    (9, 3, 3, 3, "SAME"): ([2, 9, 9, 4], D(10650150.0, -303428.5142093448, 10650150.0)),
    (9, 3, 3, 3, "VALID"): ([2, 3, 3, 4], D(2122038.0, 156.58909731800668, 2122038.0)),
    (10, 1, 1, 1, "SAME"): ([2, 9, 10, 4], D(194220.0, 952.2742774330839, 194220.0)),
    (10, 1, 1, 1, "VALID"): ([2, 9, 10, 4], D(194220.0, 952.2742774330839, 194220.0)),
    (10, 1, 1, 2, "SAME"): ([2, 9, 10, 4], D(194220.0, 952.2742774330839, 194220.0)),
    (10, 1, 1, 2, "VALID"): ([2, 9, 10, 4], D(194220.0, 952.2742774330839, 194220.0)),
    (10, 1, 1, 3, "SAME"): ([2, 9, 10, 4], D(194220.0, 952.2742774330839, 194220.0)),
    (10, 1, 1, 3, "VALID"): ([2, 9, 10, 4], D(194220.0, 952.2742774330839, 194220.0)),
    (10, 1, 2, 1, "SAME"): ([2, 9, 10, 4], D(837846.0, 859.2161864746845, 837846.0)),
    (10, 1, 2, 1, "VALID"): ([2, 9, 9, 4], D(817452.0, 3302.99767918436, 817452.0)),
    (10, 1, 2, 2, "SAME"): ([2, 9, 10, 4], D(817452.0, -66.46457378644863, 817452.0)),
    (10, 1, 2, 2, "VALID"): ([2, 9, 8, 4], D(728928.0, 3252.8907183320734, 728928.0)),
    (10, 1, 2, 3, "SAME"): ([2, 9, 10, 4], D(749106.0, 2909.7473645974615, 749106.0)),
    (10, 1, 2, 3, "VALID"): ([2, 9, 7, 4], D(639828.0, 2924.6955546848885, 639828.0)),
    (10, 1, 3, 1, "SAME"): ([2, 9, 10, 4], D(1996488.0, 2556.6774612272334, 1996488.0)),
    (10, 1, 3, 1, "VALID"): ([2, 9, 8, 4], D(1716048.0, 6971.820121610992, 1716048.0)),
    (10, 1, 3, 2, "SAME"): ([2, 9, 10, 4], D(1858284.0, 8486.968784721295, 1858284.0)),
    (10, 1, 3, 2, "VALID"): ([2, 9, 6, 4], D(1293948.0, 5309.446831537063, 1293948.0)),
    (10, 1, 3, 3, "SAME"): ([2, 9, 10, 4], D(1718928.0, 2929.7804047026693, 1718928.0)),
    (10, 1, 3, 3, "VALID"): ([2, 9, 4, 4], D(867240.0, 3246.4790937299376, 867240.0)),
    (10, 2, 1, 1, "SAME"): ([2, 9, 10, 4], D(861580.0, -3770.032619873633, 861580.0)),
    (10, 2, 1, 1, "VALID"): ([2, 8, 10, 4], D(830400.0, 3838.749014547293, 830400.0)),
    (10, 2, 1, 2, "SAME"): ([2, 9, 10, 4], D(830400.0, -3195.18580556907, 830400.0)),
    (10, 2, 1, 2, "VALID"): ([2, 7, 10, 4], D(749000.0, 2256.0758535058967, 749000.0)),
    (10, 2, 1, 3, "SAME"): ([2, 9, 10, 4], D(777780.0, 4876.741026791677, 777780.0)),
    (10, 2, 1, 3, "VALID"): ([2, 6, 10, 4], D(661200.0, 1535.4640311266103, 661200.0)),
    (10, 2, 2, 1, "SAME"): ([2, 9, 10, 4], D(3471942.0, -6185.60790784072, 3471942.0)),
    (10, 2, 2, 1, "VALID"): ([2, 8, 9, 4], D(3199680.0, 11336.883253748041, 3199680.0)),
    (10, 2, 2, 2, "SAME"): ([2, 9, 10, 4], D(3199680.0, 60.45508392063584, 3199680.0)),
    (10, 2, 2, 2, "VALID"): ([2, 7, 8, 4], D(2563904.0, -9674.615400047665, 2563904.0)),
    (10, 2, 2, 3, "SAME"): ([2, 9, 10, 4], D(2798638.0, 11691.775641185319, 2798638.0)),
    (10, 2, 2, 3, "VALID"): ([2, 6, 7, 4], D(1979376.0, 11427.245939162367, 1979376.0)),
    (10, 2, 3, 1, "SAME"): ([2, 9, 10, 4], D(7944712.0, -10546.101865824621, 7944712.0)),
    (10, 2, 3, 1, "VALID"): ([2, 8, 8, 4], D(6543616.0, 33.509065165873835, 6543616.0)),
    (10, 2, 3, 2, "SAME"): ([2, 9, 10, 4], D(7087552.0, -28685.99152098278, 7087552.0)),
    (10, 2, 3, 2, "VALID"): ([2, 7, 6, 4], D(4425960.0, 27206.651904517516, 4425960.0)),
    (10, 2, 3, 3, "SAME"): ([2, 9, 10, 4], D(6145776.0, 18339.59940829409, 6145776.0)),
    (10, 2, 3, 3, "VALID"): ([2, 6, 4, 4], D(2604384.0, 35953.00207996747, 2604384.0)),
    (10, 3, 1, 1, "SAME"): ([2, 9, 10, 4], D(2026700.0, -3417.536131088671, 2026700.0)),
    (10, 3, 1, 1, "VALID"): ([2, 7, 10, 4], D(1749020.0, 5813.072561849071, 1749020.0)),
    (10, 3, 1, 2, "SAME"): ([2, 9, 10, 4], D(1907060.0, 9591.915732416037, 1907060.0)),
    (10, 3, 1, 2, "VALID"): ([2, 5, 10, 4], D(1313300.0, -3488.5799654651782, 1313300.0)),
    (10, 3, 1, 3, "SAME"): ([2, 9, 10, 4], D(1774620.0, -4476.870927803462, 1774620.0)),
    (10, 3, 1, 3, "VALID"): ([2, 3, 10, 4], D(826380.0, -9748.589510631082, 826380.0)),
    (10, 3, 2, 1, "SAME"): ([2, 9, 10, 4], D(7993110.0, -7051.547735690531, 7993110.0)),
    (10, 3, 2, 1, "VALID"): ([2, 7, 9, 4], D(6572412.0, 21528.963759351092, 6572412.0)),
    (10, 3, 2, 2, "SAME"): ([2, 9, 10, 4], D(7167636.0, 75.66405509184733, 7167636.0)),
    (10, 3, 2, 2, "VALID"): ([2, 5, 8, 4], D(4381600.0, -11958.791608153493, 4381600.0)),
    (10, 3, 2, 3, "SAME"): ([2, 9, 10, 4], D(6250218.0, -9933.106402513564, 6250218.0)),
    (10, 3, 2, 3, "VALID"): ([2, 3, 7, 4], D(2409876.0, -39100.35148511482, 2409876.0)),
    (10, 3, 3, 1, "SAME"): ([2, 9, 10, 4], D(18038280.0, -10681.19671992139, 18038280.0)),
    (10, 3, 3, 1, "VALID"): ([2, 7, 8, 4], D(13334160.0, -53438.67126579804, 13334160.0)),
    (10, 3, 3, 2, "SAME"): ([2, 9, 10, 4], D(15752564.0, 85497.90127037787, 15752564.0)),
    (10, 3, 3, 2, "VALID"): ([2, 5, 6, 4], D(7500420.0, -84440.03952000345, 7500420.0)),
    (10, 3, 3, 3, "SAME"): ([2, 9, 10, 4], D(13525200.0, -20612.471268361678, 13525200.0)),
    (10, 3, 3, 3, "VALID"): ([2, 3, 4, 4], D(3143016.0, -78051.3714140389, 3143016.0)),
}


@pytest.mark.parametrize("key", list(_ATROUS_DW))
def test_atrous_depthwise_conv2d_forward(key):
    """AtrousDepthwiseConv2DTest.testAtrousDepthwiseConv2DForward: TF's output, and (TF's own check) the same as the
    undilated depthwise convolution with the upsampled filter."""
    width, kh, kw, rate, padding = key
    y_shape, want = _ATROUS_DW[key]
    x, f = _arange([2, 9, width, 2]), _arange([kh, kw, 2, 2])
    y = atrous_depthwise_conv2d(x, f, rate, padding)
    assert y.dtype == "float32" and y.shape == tuple(y_shape)
    close_to_tf(y, want, 1e-9)
    np.testing.assert_array_equal(y.numpy(), atrous_depthwise_conv2d(x, _upsample(f, rate), 1, padding).numpy())


# (kernel height, kernel width, rate, padding): (output shape, TF's output and its x and filter gradients for the
# upstream cos); x [2, 7, 8, 2] then f [kernel height, kernel width, 2, 2] from RandomState(1)
_ATROUS_DW_GRAD = {
    (3, 3, 1, "SAME"): ([2, 7, 8, 4], D(936.5002715140581, -1.9559498741843102, 936.5002715140581),
                        D(0.5654449313879013, 0.0475830057754405, 121.69660853222013),
                        D(-1.7297706007957458, -14.144330099311073, 68.9775041937828)),
    (3, 3, 2, "SAME"): ([2, 7, 8, 4], D(744.8758372366428, -2.9202579589926714, 744.8758372366428),
                        D(-8.409790496807545, -0.14453920961839728, 721.189753098879),
                        D(-8.600714445114136, 1.6036364435735377, 68.35459625720978)),
    (3, 3, 3, "SAME"): ([2, 7, 8, 4], D(584.9164291471243, 2.953435408458051, 584.9164291471243),
                        D(3.6805391425732523, 0.11907323730153763, 143.24502246151678),
                        D(6.807480752468109, 2.0792144303204982, 56.636938631534576)),
    (3, 3, 1, "VALID"): ([2, 5, 6, 4], D(604.0633106827736, -1.5947557445917022, 604.0633106827736),
                         D(-4.169245661934838, 8.829519578855766, 112.93589733564295),
                         D(-5.006327077746391, -4.640708127705947, 40.392504170536995)),
    (3, 3, 2, "VALID"): ([2, 3, 4, 4], D(243.7711507678032, -2.470265244470209, 243.7711507678032),
                         D(-3.0745885595679283, -0.6148349491782374, 197.12285239994526),
                         D(0.9716471433639526, -2.634292735294418, 39.77616935968399)),
    (2, 3, 2, "SAME"): ([2, 7, 8, 4], D(526.0844364501536, 2.990437041026568, 526.0844364501536),
                        D(1.4120008535683155, 0.0762387824919184, 550.7248807735741),
                        D(11.464441359043121, -1.5304589469520131, 42.432848155498505)),
    (2, 3, 2, "VALID"): ([2, 5, 4, 4], D(253.56806978583336, 1.9019476267158508, 253.56806978583336),
                         D(-3.072685930877924, 0.041578530223151056, 169.91500443033874),
                         D(3.223842203617096, 14.620911887160645, 34.89515572786331)),
}


@pytest.mark.parametrize("key", list(_ATROUS_DW_GRAD))
def test_atrous_depthwise_conv2d_gradient(key):
    """AtrousDepthwiseConv2DTest (rates 1..3, both paddings, an even kernel height too): TF's input and filter
    gradients of depthwise_conv2d with dilations, for seeded inputs."""
    kh, kw, rate, padding = key
    y_shape, want_y, want_gx, want_gf = _ATROUS_DW_GRAD[key]
    y, (gx, gf) = _value_and_grads(lambda x, f: atrous_depthwise_conv2d(x, f, rate, padding),
                                   _random([2, 7, 8, 2], [kh, kw, 2, 2]))
    assert y.shape == tuple(y_shape)
    close_to_tf(y, want_y, 1e-5)
    close_to_tf(gx, want_gx, 1e-5)
    close_to_tf(gf, want_gf, 1e-5)


def test_atrous_depthwise_conv2d_gradient_over_function():
    """The (3, 3, 2, SAME) depthwise gradient again, by an outer tape over a tj.function call (one recorded op)."""
    y_shape, want_y, want_gx, want_gf = _ATROUS_DW_GRAD[(3, 3, 2, "SAME")]
    y, (gx, gf) = _value_and_grads(tj.function(lambda x, f: atrous_depthwise_conv2d(x, f, 2, "SAME")),
                                   _random([2, 7, 8, 2], [3, 3, 2, 2]))
    assert y.shape == tuple(y_shape)
    close_to_tf(y, want_y, 1e-5)
    close_to_tf(gx, want_gx, 1e-5)
    close_to_tf(gf, want_gf, 1e-5)


# -- forward mode: TF's ForwardAccumulator tangent along (sin for x, cos for f), rate 2, SAME ----------------------
_JVP = {
    "atrous_conv2d_transpose": ([2, 5, 6, 2], lambda x, f: atrous_conv2d_transpose(x, f, [2, 5, 6, 2], 2, "SAME"),
                                D(35.9674976170063, -15.147095058708633, 260.97664430737495)),
    "atrous_depthwise_conv2d": ([2, 7, 8, 2], lambda x, f: atrous_depthwise_conv2d(x, f, 2, "SAME"),
                                D(5.047646940220147, 2.5393016343391976, 331.5212141345255)),
}


@pytest.mark.parametrize("name", list(_JVP))
def test_atrous_forward_mode(name):
    """AtrousConv2DTransposeTest / AtrousDepthwiseConv2DTest by forward mode: the tangent against TF's."""
    x_shape, fn, want = _JVP[name]
    x, f = [tj.constant(a) for a in _random(x_shape, [3, 3, 2, 2])]
    with tj.ForwardAccumulator([x, f], [_sin(x.shape), _cos(f.shape)]) as acc:
        y = fn(x, f)
    close_to_tf(acc.jvp(y), want, 1e-5)
