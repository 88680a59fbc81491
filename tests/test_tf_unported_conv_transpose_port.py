"""Transposed, separable and unified-pooling tests ported from TensorFlow's kernel tests that no other file in tests/
ports, run on tj.nn.conv / max_pool / avg_pool and compared with TF 2.21.

Sources (the TF test method is named at each test), all under tensorflow/python/kernel_tests/nn_ops/:
  conv1d_transpose_test.py Conv1DTransposeTest: testConv1DTransposeSingleStride, testConv1DTransposeSame,
    testConv1DTransposeValid, testGradient, and the NCW variants testConv1DTransposeSingleStrideNCW / SameNCW /
    ValidNCW (CUDA-only in TF's file; TF 2.21's CPU kernel computes them too, equal to the NWC values transposed);
  conv2d_transpose_test.py Conv2DTransposeTest: testConv2DTransposeSingleStride / Same / Valid (float32 and int32),
    their NCHW variants (as the NCW ones), testGradient (skipped in TF for a GPU nightly build; TF 2.21's CPU
    gradients are ported all the same), testConv2DTransposeShapeInference (the output's shape, and its values for
    seeded inputs), testConv2DTransposeInvalidOutputShape, testConv2DTransposeLargeOutputShape;
  conv3d_transpose_test.py Conv3DTransposeTest: testConv3DTransposeSingleStride, testConv3DTransposeSame,
    testConv3DTransposeValid, testGradient, testConv3DTransposeShapeMismatch (TF's test only builds the NCDHW op in a
    graph; its values are TF's NDHWC result transposed: TF 2.21's eager CPU kernel refuses NCDHW in float64),
    testConv3DTransposeOutputShapeType (the output shape given as int32 / int64 scalar Tensors);
  conv3d_backprop_filter_v2_grad_test.py Conv3DBackpropFilterV2GradTest.testGradient (all four configurations);
  separable_conv2d_patch_test.py SeparableConv2DTest: testSeparableConv2DForward (both configurations, with seeded
    inputs and TF's values and gradients, where TF checks only the output's shape), testNegativeStride;
  pool_test.py PoolingTest: testPoolSimple, testPool1D, testPool2D, testPool3D and the value and gradient checks of
    testGradient1D / 2D / 3D, for every configuration of dilation rate 1.

Mapping. tapejax has no transposed-convolution op; ``conv_transpose`` below writes TF's conv{1,2,3}d_transpose
(output_shape, strides, padding SAME/VALID, data_format NWC/NCW/NHWC/NCHW/NDHWC/NCDHW, dilations) as the input
gradient of the convolution it transposes: ``tj.nn.conv`` of x dilated by the strides (``lhs_dilation``), stride 1,
with TF's filter (``[*kernel, out, in]``) flipped in space and read with its channel axes swapped (kernel spec
``...OI``). TF's conv3d_backprop_filter_v2 is the tape gradient of ``tj.nn.conv`` with respect to its filter
(output_gradients = out_backprop), so its gradient is a second-order tape gradient. TF's separable_conv2d is a
depthwise ``tj.nn.conv`` (``feature_group_count`` = input channels, TF's ``[h, w, in, mult]`` filter reshaped to
``[h, w, 1, in * mult]``) followed by a 1x1 ``tj.nn.conv``. ``tf.nn.pool(x, window, 'MAX'|'AVG', strides, padding)``
is ``tj.nn.max_pool`` / ``tj.nn.avg_pool(x, window, strides, padding)`` (channels last). TF's gradient checkers
(Jacobians against finite differences) become vector-Jacobian products with the upstream gradient cos(0.7 * index),
compared with TF 2.21's tape gradients, plus forward-mode tangents compared with TF's ForwardAccumulator. TF's random
inputs come from NumPy's legacy seeded generators. pool_test compares TF with a NumPy pooling reference; that
reference is kept here (``_pool_reference``, written afresh), and TF 2.21 agrees with it on all 284 configurations
ported. Other expected values are TF 2.21's (CPU, its default oneDNN kernels), hard-coded; arrays too large to list are
compared by the digest ``D`` of conftest. TensorFlow is not imported here. The dilation test (TF's ``dilations``
argument, which no TF test of these files uses) is checked against TF's own atrous_conv2d_transpose and a NumPy
scatter as well.

Left out, by reason:
  pooling with a dilation rate above 1 (the dilation loops of pool_test's testPool1D/2D/3D and testGradient1D/2D/3D):
    tj.nn.max_pool / avg_pool take no dilation;
  pool_test testPoolNC (NCW/NCHW/NCDHW pooling, CUDA-only in TF): tj.nn's pools are channels-last only;
  raw gradient kernels given caller-made shapes, which a tape never builds: conv3d_backprop_filter_v2_grad_test
    testBadFilterShape (a scalar filter_sizes);
  strides tj.nn.conv has no place for, or that are valid there: separable_conv2d_patch_test testInvalidStridesFormat
    (strides in the batch and depth dimensions: window_strides are spatial only), testLargeStride (TF: a stride of
    2**31 is out of range for its int32 attribute; XLA's strides are 64-bit, so the tj call is valid and gives the
    one window it has room for), testNonIntegerStride (skipped in TF, which truncates);
  a transposed convolution whose output_shape does not match the input (TF's "Size of out_backprop doesn't match
    computed"): the tj call this port makes is then a valid convolution with other padding, not an error.
No sanctioned difference applies: every expected value here is TF's.
"""
from __future__ import annotations

import jax
import numpy as np
import pytest

import tapejax as tj
from conftest import D, close_to_tf

tnp = tj.numpy


def conv_transpose(x, w, output_shape, strides, padding="SAME", data_format=None, dilations=1):
    """TF's conv{1,2,3}d_transpose as one tj.nn.conv. ``w`` is TF's filter ``[*kernel, out, in]``; ``output_shape``
    the full output shape or its spatial sizes only (as TF takes either), its sizes ints or scalar Tensors.

    The forward convolution TF transposes takes an input of ``output_shape`` to x's shape; on each spatial axis it
    pads ``low`` before (half of SAME's total, 0 for VALID) and slides a dilated kernel of ``keff`` at stride ``s``.
    Its transpose puts ``s - 1`` zeros between x's elements and slides the flipped kernel at stride 1, padded by
    ``keff - 1 - low`` before and whatever makes the output ``n_out`` long after."""
    nd = len(np.shape(w)) - 2
    data_format = data_format or "N" + "DHW"[3 - nd:] + "C"
    space = data_format.replace("N", "").replace("C", "")
    first = data_format.index(space[0])
    strides = (strides,) * nd if np.ndim(strides) == 0 else tuple(strides)
    dilations = (dilations,) * nd if np.ndim(dilations) == 0 else tuple(dilations)
    out_sizes = list(output_shape)
    out_sizes = out_sizes[first:first + nd] if len(out_sizes) == nd + 2 else out_sizes
    pads = []
    for n_in, n_out, k, s, d in zip(np.shape(x)[first:first + nd], out_sizes, np.shape(w)[:nd], strides, dilations):
        keff = (k - 1) * d + 1
        total = max((-(-n_out // s) - 1) * s + keff - n_out, 0) if padding == "SAME" else 0
        before = keff - 1 - total // 2
        pads.append((before, n_out + keff - 1 - ((n_in - 1) * s + 1) - before))
    return tj.nn.conv(x, tnp.flip(w, axis=tuple(range(nd))), (1,) * nd, tuple(pads), lhs_dilation=strides,
                      rhs_dilation=dilations, dimension_numbers=(data_format, space + "OI", data_format))


def _cos(shape, dtype=np.float32):
    """The upstream gradient cos(0.7 * index) TF's gradients were taken with."""
    return np.cos(np.arange(int(np.prod(shape))) * 0.7).reshape(shape).astype(dtype)


def _sin(shape, dtype=np.float32):
    """A tangent, sin(0.3 * index)."""
    return np.sin(np.arange(int(np.prod(shape))) * 0.3).reshape(shape).astype(dtype)


def _seeded_random_sample(*shapes, seed=1):
    """TF's ``np.random.seed(seed)`` then ``random_sample`` for each shape, as float32."""
    rng = np.random.RandomState(seed)
    return [rng.random_sample(s).astype(np.float32) for s in shapes]


def _value_and_grads(f, xs, upstream=_cos):
    """f(*xs) and its gradients with respect to each of xs for the upstream gradient ``upstream(f's shape)``."""
    ts = [tj.constant(x) for x in xs]
    with tj.GradientTape() as tape:
        tape.watch(ts)
        y = f(*ts)
    return y, tape.gradient(y, ts, output_gradients=upstream(y.shape))


def _jvp(f, xs, tangents):
    ts = [tj.constant(x) for x in xs]
    with tj.ForwardAccumulator(ts, [tj.constant(t) for t in tangents]) as acc:
        y = f(*ts)
    return acc.jvp(y)


# -- conv{1,2,3}d_transpose of ones --------------------------------------------------------------------------------
# TF's output for all-ones inputs and filters is, at every batch entry and output channel, the input channel count
# times the outer product of one profile per spatial axis: how many kernel taps land on each output position. The
# profiles are TF 2.21's conv1d_transpose of ones along that axis; TF's N-d outputs equal the product exactly.
# name: (x shape, filter shape, output shape, stride, padding, TF's profile per spatial axis)
_ONES = {
    "testConv1DTransposeSingleStride": ([2, 6, 3], [3, 2, 3], [2, 6, 2], 1, "SAME", [(2, 3, 3, 3, 3, 2)]),
    "testConv1DTransposeSame": ([2, 4, 3], [3, 2, 3], [2, 8, 2], 2, "SAME", [(1, 1, 2, 1, 2, 1, 2, 1)]),
    "testConv1DTransposeValid": ([2, 4, 3], [3, 2, 3], [2, 9, 2], 2, "VALID", [(1, 1, 2, 1, 2, 1, 2, 1, 1)]),
    "testConv2DTransposeSingleStride": ([2, 6, 4, 3], [3, 3, 2, 3], [2, 6, 4, 2], 1, "SAME",
                                        [(2, 3, 3, 3, 3, 2), (2, 3, 3, 2)]),
    "testConv2DTransposeSame": ([2, 6, 4, 3], [3, 3, 2, 3], [2, 12, 8, 2], 2, "SAME",
                                [(1, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1), (1, 1, 2, 1, 2, 1, 2, 1)]),
    "testConv2DTransposeValid": ([2, 6, 4, 3], [3, 3, 2, 3], [2, 13, 9, 2], 2, "VALID",
                                 [(1, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 1), (1, 1, 2, 1, 2, 1, 2, 1, 1)]),
    "testConv3DTransposeSingleStride": ([2, 5, 6, 4, 3], [3, 3, 3, 2, 3], [2, 5, 6, 4, 2], 1, "SAME",
                                        [(2, 3, 3, 3, 2), (2, 3, 3, 3, 3, 2), (2, 3, 3, 2)]),
    "testConv3DTransposeSame": ([2, 5, 6, 4, 3], [3, 3, 3, 2, 3], [2, 10, 12, 8, 2], 2, "SAME",
                                [(1, 1, 2, 1, 2, 1, 2, 1, 2, 1), (1, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1),
                                 (1, 1, 2, 1, 2, 1, 2, 1)]),
    "testConv3DTransposeValid": ([2, 5, 6, 4, 3], [3, 3, 3, 2, 3], [2, 11, 13, 9, 2], 2, "VALID",
                                 [(1, 1, 2, 1, 2, 1, 2, 1, 2, 1, 1), (1, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 1),
                                  (1, 1, 2, 1, 2, 1, 2, 1, 1)]),
}
_NC = {1: "NCW", 2: "NCHW"}  # the channels-first variants TF's 1-D and 2-D files test (as ...NCW / ...NCHW)


def _ones_expected(x_shape, y_shape, profiles):
    outer = np.ones(())
    for p in profiles:
        outer = np.multiply.outer(outer, np.asarray(p, np.float64))
    return x_shape[-1] * np.broadcast_to(outer[None, ..., None], y_shape)


@pytest.mark.parametrize("name, dtype, channels_first", [
    (n, dt, cf) for n in _ONES for dt in ("float32", "int32") for cf in (False, True)
    if (dt == "float32" or n.startswith("testConv2D")) and not (cf and (dt == "int32" or n.startswith("testConv3D")))])
def test_conv_transpose_of_ones(name, dtype, channels_first):
    """Conv{1,2,3}DTransposeTest.<name> (int32 as well for 2-D, as TF; channels first: <name>NCW / <name>NCHW)."""
    x_shape, f_shape, y_shape, stride, padding, profiles = _ONES[name]
    nd = len(f_shape) - 2
    want = _ones_expected(x_shape, y_shape, profiles)
    x, data_format = np.ones(x_shape, dtype), None
    if channels_first:  # the same values, channels moved to axis 1
        perm = [0, nd + 1, *range(1, nd + 1)]
        x, y_shape, want, data_format = x.transpose(perm), [y_shape[i] for i in perm], want.transpose(perm), _NC[nd]
    y = conv_transpose(x, np.ones(f_shape, dtype), y_shape, [stride] * nd, padding, data_format)
    assert y.dtype == dtype and y.shape == tuple(y_shape)
    np.testing.assert_array_equal(y.numpy(), want)


@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
def test_conv3d_transpose_output_shape_type(index_dtype):
    """Conv3DTransposeTest.testConv3DTransposeOutputShapeType: output_shape as an int32 or int64 Tensor. Here its
    sizes (scalar Tensors) set the padding given to tj.nn.conv (API.md: a scalar Tensor serves where a Python
    number is expected as a static argument); TF's output is that of testConv3DTransposeSingleStride."""
    x_shape, f_shape, y_shape, stride, padding, profiles = _ONES["testConv3DTransposeSingleStride"]
    with jax.enable_x64(index_dtype == "int64"):
        shape = tj.constant(np.array(y_shape, index_dtype))
        assert shape.dtype == index_dtype
        y = conv_transpose(np.ones(x_shape, np.float32), np.ones(f_shape, np.float32), [shape[i] for i in range(5)],
                           [stride] * 3, padding)
        assert y.dtype == "float32" and y.shape == tuple(y_shape)
        np.testing.assert_array_equal(y.numpy(), _ones_expected(x_shape, y_shape, profiles))


# -- conv{1,2,3}d_transpose gradients ------------------------------------------------------------------------------
# testGradient of each file: stride 2, SAME, inputs from np.random.seed(1). name: (x shape, filter shape, output
# shape, TF's output, its gradients for x and the filter for the upstream cos, and its forward-mode tangent along
# (sin for x, cos for the filter))
_GRAD = {
    "conv1d_transpose_test": ([2, 4, 3], [3, 2, 3], [2, 8, 2], D(29.19982694, -2.70610942, 29.19982694),
        [-0.69550496, -0.96564537, 0.042351153, 0.47136465, 0.55666232, -0.5509975, -0.19275582, -0.083354041,
         0.99597293, -0.8371563, -1.3463337, -1.9176821, 0.39651528, 0.83635229, 1.5025343, -0.6390841, -1.1764735,
         -1.5055841, 0.80780333, 1.3806468, 1.3346555, 0.08107347, -0.21871927, -0.65926963],
        [0.77349561, 1.0056661, 0.084426224, -0.33855906, 0.9104327, -0.35681224, -1.2913841, 0.38700837,
         -0.63023639, -1.6368511, -0.318432, -0.60725045, -0.43340814, -0.67161608, 0.197492, -0.20986603,
         -1.2085049, -0.079682469],
        D(3.620897621, -0.909889301, 46.05446205)),
    "conv2d_transpose_test": ([2, 6, 4, 3], [3, 3, 2, 3], [2, 12, 8, 2], D(495.2022041, -0.7733937667, 495.2022041),
        D(-4.007410092, -6.560238939, 177.8886445),
        [0.49677706, 1.5438347, 2.3131015, -1.5083983, 1.2751485, 1.367802, -2.8041496, 0.40674028, -0.22079593,
         -2.7810659, -0.65296435, -1.7055498, -1.2462592, -1.184956, -1.8347507, 0.53598297, -1.8514826,
         -0.80019706, 2.9710491, 0.16998559, 1.0796101, 2.2024071, 1.1230237, 2.203367, 0.39793956, 1.5478865,
         2.2908459, -1.5936866, 1.2447538, 1.3009043, -2.5164649, 1.1960701, -1.2891409, -2.4085336, -0.02454558,
         -2.020925, 0.95267963, -0.7661556, -1.447502, 1.8089006, -0.2825301, -0.17190373, 1.8143665, 0.33397391,
         1.1845436, 0.96650791, 0.7934047, 1.9838815, -0.26282358, 1.3652616, 0.84764636, -1.504837, 0.95995951,
         -0.49124587],
        D(43.30941008, 14.06664908, 532.390101)),
    "conv3d_transpose_test": ([2, 3, 4, 3, 2], [3, 3, 3, 2, 2], [2, 6, 8, 6, 2],
        D(1441.871192, 2.220877854, 1441.871192), D(3.347876577, -1.608059472, 125.0175453),
        D(-0.7291011214, 2.370931273, 153.4521331), D(-9.406916454, 3.280729102, 1802.073622)),
}


@pytest.mark.parametrize("source", list(_GRAD))
def test_conv_transpose_gradient(source):
    """<source>.testGradient (conv2d_transpose_test's is skipped in TF for a GPU build; the CPU values are TF's)."""
    x_shape, f_shape, y_shape, want_y, want_gx, want_gf, want_jvp = _GRAD[source]
    xs = _seeded_random_sample(x_shape, f_shape)

    def f(x, w):
        return conv_transpose(x, w, y_shape, 2, "SAME")
    y, (gx, gf) = _value_and_grads(f, xs)
    assert y.shape == tuple(y_shape)
    close_to_tf(y, want_y, 1e-5)
    close_to_tf(gx, want_gx, 1e-5, 1e-6)
    close_to_tf(gf, want_gf, 1e-5, 1e-6)
    close_to_tf(_jvp(f, xs, [_sin(x_shape), _cos(f_shape)]), want_jvp, 1e-5)


def test_conv1d_transpose_gradient_in_function():
    """Conv1DTransposeTest.testGradient's gradients taken by a tape inside a tj.function (one compiled program)."""
    x_shape, f_shape, y_shape, _, want_gx, want_gf, _ = _GRAD["conv1d_transpose_test"]

    @tj.function
    def grads(x, w):
        with tj.GradientTape() as tape:
            tape.watch([x, w])
            y = conv_transpose(x, w, y_shape, 2, "SAME")
        return tape.gradient(y, [x, w], output_gradients=_cos(y_shape))
    gx, gf = grads(*[tj.constant(a) for a in _seeded_random_sample(x_shape, f_shape)])
    close_to_tf(gx, want_gx, 1e-5, 1e-6)
    close_to_tf(gf, want_gf, 1e-5, 1e-6)


# TF's conv2d_transpose with dilations=2, stride 1 (no test of these files uses dilations; TF 2.21's CPU kernel takes
# them, and agrees with tf.nn.atrous_conv2d_transpose and a NumPy scatter). Inputs uniform(-1, 1) from
# RandomState(5): x [1, 4, 5, 2], filter [3, 3, 3, 2]. padding: (output shape, TF's output, x and filter gradients)
_DILATED = {
    "SAME": ([1, 4, 5, 3], D(-1.311344242, -0.1566034549, 53.55802699),
             [1.9268503, -3.3557169, -2.1493468, 1.1618375, 0.10267376, 2.8103569, 0.074903168, -3.7039866,
              0.25039899, 2.8079486, 0.28276688, 2.1382167, 1.8799314, -3.374553, -1.2844746, 2.5232329, -0.32933748,
              0.80546218, 0.08608707, -3.6653562, 1.3698105, 0.15184116, -3.0240746, 0.61297441, 0.21004039,
              -0.95663762, 2.2842224, 0.38280073, -1.3555937, 1.1235695, 1.7256846, -0.77500808, 1.2781812,
              0.17861722, -2.5226347, 1.0754911, -0.87995338, -1.5240109, 2.2750468, 0.43387625],
             D(-8.338271692, -9.926873439, 53.59227303)),
    "VALID": ([1, 8, 9, 3], D(-14.55588102, 4.601197513, 142.2152159),
              [0.58726603, 6.5327978, 2.241811, -3.7681966, -2.8508048, -2.7280793, 0.63662493, 6.5227165, 2.2080102,
               -3.8578563, 0.73478854, 6.4970264, 2.1385455, -4.0338821, -2.8940601, -2.4240475, 0.78356552,
               6.4814229, 2.1029007, -4.1201954, 0.88044119, 6.4447255, 2.029839, -4.2893033, -2.9299543, -2.1138487,
               0.92851263, 6.4236407, 1.9924417, -4.3720503, 1.0238541, 6.3760281, 1.9159685, -4.5338135,
               -2.9583919, -1.798272, 1.0710976, 6.3495145, 1.876914, -4.6127834],
              D(0.03555173799, -20.18860706, 82.5887918)),
}


@pytest.mark.parametrize("padding", list(_DILATED))
def test_conv2d_transpose_dilations(padding):
    """TF's conv2d_transpose(dilations=2): rhs_dilation alongside the transpose's padding."""
    y_shape, want_y, want_gx, want_gf = _DILATED[padding]
    rng = np.random.RandomState(5)
    xs = [rng.uniform(-1, 1, s).astype(np.float32) for s in ([1, 4, 5, 2], [3, 3, 3, 2])]
    y, (gx, gf) = _value_and_grads(lambda x, w: conv_transpose(x, w, y_shape, 1, padding, dilations=2), xs)
    assert y.shape == tuple(y_shape)
    close_to_tf(y, want_y, 1e-5)
    close_to_tf(gx, want_gx, 1e-5, 1e-6)
    close_to_tf(gf, want_gf, 1e-5)


def test_conv2d_transpose_shape_inference():
    """Conv2DTransposeTest.testConv2DTransposeShapeInference: x [3, 10, 5, 1], filter [3, 3, 5, 1] (normal, and
    0.01 * normal, from RandomState(8972)), output_shape [3, 10, 5, 5], stride 1, SAME: TF's shape and values."""
    rng = np.random.RandomState(8972)
    x = rng.standard_normal([3, 10, 5, 1]).astype(np.float32)
    w = (0.01 * rng.standard_normal([3, 3, 5, 1])).astype(np.float32)
    y = conv_transpose(x, w, [tnp.shape(x)[0], 10, 5, 5], 1, "SAME")
    assert y.shape == (3, 10, 5, 5)
    close_to_tf(y, D(-0.3955273762, 0.05866827312, 16.52461959), 1e-5)


def test_conv3d_transpose_ncdhw_values():
    """Conv3DTransposeTest.testConv3DTransposeShapeMismatch (GitHub issue 18460): x [2, 2, 3, 4, 3] and filter
    [3, 3, 3, 2, 2] (np.random.seed(1)), output_shape [2, 2, 6, 8, 6], strides [1, 1, 2, 2, 2], NCDHW, SAME. TF's
    test builds it in float64 without running it; TF's values (NDHWC, float64, transposed) at float32 precision."""
    rng = np.random.RandomState(1)
    x, w = rng.random_sample([2, 2, 3, 4, 3]), rng.random_sample([3, 3, 3, 2, 2])
    y = conv_transpose(x.astype(np.float32), w.astype(np.float32), [2, 2, 6, 8, 6], [2, 2, 2], "SAME", "NCDHW")
    assert y.shape == (2, 2, 6, 8, 6)
    close_to_tf(y, D(1411.723592, -0.9068669525, 1411.723592), 1e-5)


def test_conv2d_transpose_negative_output_size_raises():
    """Conv2DTransposeTest.testConv2DTransposeInvalidOutputShape: output_shape [2, -2] (spatial sizes) for a
    [1, 1, 1, 1] input and filter, stride 1 (TF: InvalidArgumentError "elements of input_sizes must be >= 0, not
    2x-2"). The tj call is a convolution padded to a negative output size: tj.nn.conv's ValueError."""
    with pytest.raises(ValueError, match="tj.nn.conv: negative output size"):
        conv_transpose(np.ones((1, 1, 1, 1), np.float32), np.ones((1, 1, 1, 1), np.float32), [2, -2], [1, 1])


def test_conv2d_transpose_large_output_shape_raises():
    """Conv2DTransposeTest.testConv2DTransposeLargeOutputShape: a [2, 2, 2, 2] input (2 channels), filter [[[[1]]]]
    (1 input channel), output_shape [114078056, 179835296], strides [10] (TF: InvalidArgumentError "filter and
    out_backprop must have the same out_depth", before allocating anything). tj.nn.conv refuses the channel mismatch
    the same way: a ValueError naming the op, at the call."""
    with pytest.raises(ValueError, match="tj op 'conv'.*feature"):
        conv_transpose(np.ones((2, 2, 2, 2), np.float32), [[[[1.0]]]], [114078056, 179835296], [10, 10])


# -- conv3d_backprop_filter_v2 gradient ----------------------------------------------------------------------------
# (padding, stride): (out_backprop's shape, TF's filter gradient, and its gradients for the input and out_backprop for
# the upstream cos); in_val = 2 * random_sample([2, 4, 3, 3, 2]) - 1 after np.random.seed(1), then out_backprop alike
_BACKPROP_FILTER = {
    ("SAME", 1): ([2, 4, 3, 3, 3], D(22.59716237, 5.165765831, 259.8751649),
                  D(-26.84215696, 4.252999711, 349.4083365), D(-84.97533041, 194.7180306, 346.6345975)),
    ("SAME", 2): ([2, 2, 2, 2, 3], D(7.093163159, -5.177634767, 114.9297042),
                  D(-3.832283609, -2.634509117, 125.9437098), D(13.2234346, -2.583267714, 66.58096174)),
    ("VALID", 1): ([2, 2, 1, 1, 3], D(13.03544492, 3.611589998, 102.6486772),
                   D(-0.3850091244, -0.3777745349, 138.4320723), D(-35.0910393, -10.23152609, 35.0910393)),
    ("VALID", 2): ([2, 1, 1, 1, 3], D(9.56611738, 9.822981918, 84.28136363),
                   D(-0.3980671763, -0.3952250508, 99.53612411), D(-24.18268454, 8.101701611, 24.18268454)),
}


@pytest.mark.parametrize("padding, stride", list(_BACKPROP_FILTER))
def test_conv3d_backprop_filter_gradient(padding, stride):
    """Conv3DBackpropFilterV2GradTest.testGradient: the filter gradient of conv3d (TF's Conv3DBackpropFilterV2, here
    an inner tape's gradient with output_gradients=out_backprop) and its gradients with respect to the input and
    out_backprop (an outer tape: second order)."""
    dy_shape, want_dw, want_gx, want_gdy = _BACKPROP_FILTER[(padding, stride)]
    rng = np.random.RandomState(1)
    x = tj.constant((2 * rng.random_sample([2, 4, 3, 3, 2]) - 1).astype(np.float32))
    dy = tj.constant((2 * rng.random_sample(dy_shape) - 1).astype(np.float32))
    w = tj.constant(np.zeros([3, 3, 3, 2, 3], np.float32))  # the filter gradient does not depend on the filter
    with tj.GradientTape() as outer:
        outer.watch([x, dy])
        with tj.GradientTape() as inner:
            inner.watch(w)
            y = tj.nn.conv(x, w, (stride,) * 3, padding, dimension_numbers=("NDHWC", "DHWIO", "NDHWC"))
        assert y.shape == tuple(dy_shape)
        dw = inner.gradient(y, w, output_gradients=dy)
    gx, gdy = outer.gradient(dw, [x, dy], output_gradients=_cos(dw.shape))
    close_to_tf(dw, want_dw, 1e-5)
    close_to_tf(gx, want_gx, 1e-5)
    close_to_tf(gdy, want_gdy, 1e-5)


# -- separable_conv2d ----------------------------------------------------------------------------------------------

def separable_conv2d(x, depthwise, pointwise, stride, padding):
    """TF's separable_conv2d: a depthwise convolution (each input channel with its own ``mult`` filters, TF's output
    channel c * mult + m) then a 1x1 convolution mixing the channels."""
    h, w, c, mult = np.shape(depthwise)
    y = tj.nn.conv(x, tnp.reshape(depthwise, (h, w, 1, c * mult)), (stride, stride), padding,
                   dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=c)
    return tj.nn.conv(y, pointwise, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"))


# config: (x, depthwise and pointwise filter shapes, stride, TF's output shape and output, and its gradients for
# x, depthwise and pointwise filters for the upstream cos); inputs rand from RandomState(config), SAME
_SEPARABLE = {
    0: ((1, 5, 5, 3), (3, 3, 3, 1), (1, 1, 3, 2), 1, [1, 5, 5, 2],
        [1.472459, 1.9249769, 2.4051311, 3.0406704, 2.8454907, 3.7482319, 2.0836687, 2.9013953, 1.3241197, 1.823844,
         2.007333, 2.3880143, 3.2912476, 4.0931206, 3.3520708, 4.1415372, 2.7899294, 3.6869018, 1.8335371,
         2.3886502, 1.9000778, 2.3329241, 3.0015512, 3.8166344, 2.55618, 3.2172153, 2.6444094, 3.3623471, 1.6485273,
         1.9977065, 1.4028918, 1.6986104, 2.471422, 3.1179783, 2.6026561, 3.3918653, 2.7186565, 3.4599459, 1.8327345,
         2.2673888, 0.99379873, 1.1398525, 1.2124393, 1.4648111, 1.4906797, 1.8776848, 1.8466485, 2.4720693,
         0.98929507, 1.2517886],
        D(0.4835794186, -1.209492381, 83.70435687),
        [1.923528, 1.1372141, 0.76508784, -0.59055734, 0.77422321, -1.7278467, -0.092579201, -0.69480288,
         -1.7218826, 0.89212644, 0.4645732, -0.29770359, -0.13397938, 0.29208994, -1.4612157, 0.064469971,
         -0.70417511, -0.26511604, 0.10663772, 0.29881495, -0.51098228, 0.13384658, 0.20615894, 0.14076184,
         -0.10970107, -0.34833336, 0.12779395],
        [-0.057471037, 0.59468472, -0.23223543, 0.17842078, -1.8933738, -3.5297396]),
    1: ((2, 7, 7, 2), (3, 3, 2, 1), (1, 1, 2, 4), 2, [2, 4, 4, 4], D(157.0610656, 1.148452142, 157.0610656),
        D(1.915444652, -19.91102805, 80.19024977),
        [0.24660125, 1.1080307, 0.031576745, -0.93509865, -0.18877965, -0.93208665, 1.1286199, -0.29002967,
         1.4518094, 2.0345271, -0.94701284, 0.61942214, -0.077305734, -0.10222223, -0.29931867, 0.49372613,
         0.16257326, 0.48248571],
        [0.18088195, 0.52580869, 0.62343925, 0.42785668, 0.17697524, 0.56727558, 0.69077849, 0.48939657]),
}


@pytest.mark.parametrize("config", list(_SEPARABLE))
def test_separable_conv2d_forward(config):
    """SeparableConv2DTest.testSeparableConv2DForward (TF checks the output's batch and channel sizes; here also
    TF's values and gradients, for seeded inputs)."""
    x_shape, dw_shape, pw_shape, stride, y_shape, want_y, want_gx, want_gdw, want_gpw = _SEPARABLE[config]
    rng = np.random.RandomState(config)
    xs = [rng.rand(*s).astype(np.float32) for s in (x_shape, dw_shape, pw_shape)]
    y, (gx, gdw, gpw) = _value_and_grads(lambda x, d, p: separable_conv2d(x, d, p, stride, "SAME"), xs)
    assert y.shape == tuple(y_shape)
    close_to_tf(y, want_y, 1e-5)
    close_to_tf(gx, want_gx, 1e-5)
    close_to_tf(gdw, want_gdw, 1e-5, 1e-6)
    close_to_tf(gpw, want_gpw, 1e-5, 1e-6)


def test_separable_conv2d_negative_stride_raises():
    """SeparableConv2DTest.testNegativeStride: strides [1, -2, 1, 1] (TF: InvalidArgumentError "Stride must be > 0,
    but got -2", from the depthwise step); the depthwise tj.nn.conv with window_strides (-2, 1) raises at the call."""
    rng = np.random.RandomState(2)
    x, dw = rng.rand(1, 8, 8, 3).astype(np.float32), rng.rand(3, 3, 1, 3).astype(np.float32)
    with pytest.raises(ValueError, match=r"tj op 'conv'.*stride.*-2"):
        tj.nn.conv(x, dw, (-2, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=3)


# -- pool_test -----------------------------------------------------------------------------------------------------

def _pool_reference(x, window, kind, padding, strides):
    """Pooling in NumPy, one spatial axis (1, 2, ...) at a time: windows start at i * stride - low (SAME's low is
    half its total padding) and are cut to the input, so MAX and AVG see only real elements (TF's rule)."""
    for axis, (k, s) in enumerate(zip(window, strides), start=1):
        n = x.shape[axis]
        if padding == "SAME":
            m = -(-n // s)
            low = max(0, (m - 1) * s + k - n) // 2
        else:
            m, low = -(-(n - k + 1) // s), 0
        parts = [np.take(x, range(max(i * s - low, 0), min(i * s - low + k, n)), axis=axis) for i in range(m)]
        x = np.stack([p.max(axis) if kind == "MAX" else p.mean(axis) for p in parts], axis)
    return x


def _pool_configs(shapes, windows, strides_list):
    """TF's loops with dilation rate 1: every padding, pooling type, shape and window, with strides no larger than
    the window."""
    return [(shape, w, kind, padding, s) for padding in ("SAME", "VALID") for kind in ("MAX", "AVG")
            for shape in shapes for w in windows for s in strides_list if all(a <= b for a, b in zip(s, w))]


_POOL_CONFIGS = {
    "testPoolSimple": [([1, 1, 10, 1], [1, 3], k, p, [1, 2]) for p in ("SAME", "VALID") for k in ("MAX", "AVG")],
    "testPool1D": _pool_configs([[2, 9, 2], [2, 10, 2]], [[1], [2], [3]], [[1], [2], [3]]),
    "testPool2D": _pool_configs([[2, 9, 10, 2], [2, 10, 9, 2]], [[1, 1], [2, 1], [2, 3]],
                                [[1, 1], [2, 1], [1, 2], [2, 3]]),
    "testPool3D": _pool_configs([[2, 9, 10, 11, 2], [2, 10, 9, 11, 2]], [[1, 1, 1], [2, 1, 2], [2, 3, 2]],
                                [[1, 1, 1], [2, 1, 2], [1, 2, 2], [2, 3, 3]]),
    "testGradient1D": _pool_configs([[2, 5, 2], [1, 4, 1]], [[1], [2]], [[1], [2]]),
    "testGradient2D": _pool_configs([[2, 4, 5, 2], [1, 5, 4, 1]], [[1, 1], [2, 1], [2, 2]],
                                    [[1, 1], [2, 1], [1, 2], [2, 2]]),
    "testGradient3D": _pool_configs([[1, 3, 5, 4, 1], [1, 5, 4, 3, 1]], [[1, 1, 1], [2, 1, 2], [2, 2, 2]],
                                    [[1, 1, 1], [2, 1, 2], [2, 2, 2]]),
}


def _negative_count(shape):
    """-1, -2, -3, ... (pool_test's input: negative, so zero padding would show)."""
    return -np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) - 1


def _pool(x, window, kind, padding, strides):
    return (tj.nn.max_pool if kind == "MAX" else tj.nn.avg_pool)(x, tuple(window), tuple(strides), padding)


@pytest.mark.parametrize("name", list(_POOL_CONFIGS))
def test_pool_values(name):
    """PoolingTest.<name>: tf.nn.pool against the NumPy reference, every configuration of dilation rate 1 (for the
    testGradient methods, the strided value checks they make)."""
    for shape, window, kind, padding, strides in _POOL_CONFIGS[name]:
        x = _negative_count(shape)
        want = _pool_reference(x, window, kind, padding, strides)
        got = _pool(x, window, kind, padding, strides).numpy()
        assert got.shape == want.shape, (shape, window, kind, padding, strides)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-5, err_msg=str((shape, window, kind, padding,
                                                                                  strides)))


# (method, pooling type, input shape, window): TF's gradient (VALID, stride 1, dilation 1) for the upstream cos
_POOL_GRAD = {
    ("testGradient1D", "AVG", (2, 5, 2), (1,)): D(1.788521782, 10.57105915, 13.28204067),
    ("testGradient1D", "AVG", (2, 5, 2), (2,)): D(-0.9427371398, 0.2063741029, 9.016793601),
    ("testGradient1D", "AVG", (1, 4, 1), (1,)): [1, 0.76484221, 0.16996714, -0.5048461],
    ("testGradient1D", "AVG", (1, 4, 1), (2,)): [0.5, 0.88242114, 0.46740466, 0.084983572],
    ("testGradient1D", "MAX", (2, 5, 2), (1,)): D(1.788521782, 10.57105915, 13.28204067),
    ("testGradient1D", "MAX", (2, 5, 2), (2,)): D(-0.9427371174, 4.480972926, 10.55078177),
    ("testGradient1D", "MAX", (1, 4, 1), (1,)): [1, 0.76484221, 0.16996714, -0.5048461],
    ("testGradient1D", "MAX", (1, 4, 1), (2,)): [1, 0.76484221, 0.16996714, 0],
    ("testGradient2D", "AVG", (2, 4, 5, 2), (1, 1)): D(-0.6410078295, 39.87184772, 50.89235223),
    ("testGradient2D", "AVG", (2, 4, 5, 2), (2, 1)): D(-0.5554185584, 20.21117881, 37.33044606),
    ("testGradient2D", "AVG", (2, 4, 5, 2), (2, 2)): D(1.907915352, -3.126705833, 24.40749431),
    ("testGradient2D", "AVG", (1, 5, 4, 1), (1, 1)): D(1.788521782, 10.57105915, 13.28204067),
    ("testGradient2D", "AVG", (1, 5, 4, 1), (2, 1)): D(-0.9427371174, 0.1295734151, 3.910667971),
    ("testGradient2D", "AVG", (1, 5, 4, 1), (2, 2)): D(1.93023634, -0.6192809375, 4.697123706),
    ("testGradient2D", "MAX", (2, 4, 5, 2), (1, 1)): D(-0.6410078295, 39.87184772, 50.89235223),
    ("testGradient2D", "MAX", (2, 4, 5, 2), (2, 1)): D(-0.5554184988, 27.02477898, 38.78667258),
    ("testGradient2D", "MAX", (2, 4, 5, 2), (2, 2)): D(1.907915324, 4.678928991, 30.61328486),
    ("testGradient2D", "MAX", (1, 5, 4, 1), (1, 1)): D(1.788521782, 10.57105915, 13.28204067),
    ("testGradient2D", "MAX", (1, 5, 4, 1), (2, 1)): D(-0.9427371174, 8.361395851, 10.55078177),
    ("testGradient2D", "MAX", (1, 5, 4, 1), (2, 2)): D(1.930236384, 2.44555767, 7.67780827),
    ("testGradient3D", "AVG", (1, 3, 5, 4, 1), (1, 1, 1)): D(-0.5554184988, 30.63762442, 38.78667258),
    ("testGradient3D", "AVG", (1, 3, 5, 4, 1), (2, 1, 2)): D(1.919878753, 0.1576780993, 13.99034912),
    ("testGradient3D", "AVG", (1, 3, 5, 4, 1), (2, 2, 2)): D(-0.4854111373, -0.9601391867, 6.905775972),
    ("testGradient3D", "AVG", (1, 5, 4, 3, 1), (1, 1, 1)): D(-0.5554184988, 30.63762442, 38.78667258),
    ("testGradient3D", "AVG", (1, 5, 4, 3, 1), (2, 1, 2)): D(0.4142348375, -0.8854853372, 19.06275503),
    ("testGradient3D", "AVG", (1, 5, 4, 3, 1), (2, 2, 2)): D(-0.4854110703, -1.130528321, 8.384441204),
    ("testGradient3D", "MAX", (1, 3, 5, 4, 1), (1, 1, 1)): D(-0.5554184988, 30.63762442, 38.78667258),
    ("testGradient3D", "MAX", (1, 3, 5, 4, 1), (2, 1, 2)): D(1.919878684, 1.603837275, 19.15609505),
    ("testGradient3D", "MAX", (1, 3, 5, 4, 1), (2, 2, 2)): D(-0.4854111671, 6.09815743, 15.82944804),
    ("testGradient3D", "MAX", (1, 5, 4, 3, 1), (1, 1, 1)): D(-0.5554184988, 30.63762442, 38.78667258),
    ("testGradient3D", "MAX", (1, 5, 4, 3, 1), (2, 1, 2)): D(0.414234601, -0.9941113311, 20.66173913),
    ("testGradient3D", "MAX", (1, 5, 4, 3, 1), (2, 2, 2)): D(-0.4854111671, 3.077513704, 15.82944804),
}


@pytest.mark.parametrize("name", ["testGradient1D", "testGradient2D", "testGradient3D"])
def test_pool_gradient(name):
    """PoolingTest.<name>'s gradient checks (VALID, stride 1, dilation rate 1), as tape gradients for the upstream
    cos against TF's."""
    for (method, kind, shape, window), want in _POOL_GRAD.items():
        if method != name:
            continue
        _, (g,) = _value_and_grads(lambda x: _pool(x, window, kind, "VALID", (1,) * len(window)),
                                   [_negative_count(shape)])
        close_to_tf(g, want, 1e-6, 1e-7)
