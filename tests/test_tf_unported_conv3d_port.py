"""tj.nn.conv / max_pool / avg_pool tests ported from TensorFlow's 3-D convolution and pooling, conv1d and atrous
(dilated) convolution tests that no other file in tests/ ports, compared with TF 2.21.

Sources (the TF test method is named at each test), all under tensorflow/python/kernel_tests/nn_ops/:
  conv_ops_3d_test.py Conv3DTest: testConv3D1x1x1Filter (its three shapes), testConv3D2x2x2Filter,
    testConv3DStrides, testConv3D2x2x2FilterStride2, testConv3DStride3, testConv3D2x2x2FilterStride2Same,
    testKernelSmallerThanStride (its four configurations), testKernelSizeMatchesInputSize (each in float64, float32,
    float16 and bfloat16, the dtypes DtypesToTest gives the CPU; TF runs each through both its Conv3D and its generic
    Conv op, which tj.nn.conv both is), testConv3D1x1x1Filter2x1x1Dilation, testConv3D2x2x2Filter1x2x1Dilation,
    testConv3D2x2Depth3ValidBackpropFilterStride1x1Dilation2x1 / ...BackpropInputStride1x1Dilation2x1 (GPU-only in
    TF's file; TF 2.21's CPU conv3d and its reference tf.nn.convolution both compute them, and agree),
    testZeroSizedFilterThrowsIllegalArgument, _TestConv3DEmptyTensorOutputShape (not collected by TF: a leading
    underscore), and the gradient tests test{Input,Filter}Gradient{Valid,Same}PaddingStride{One,Two,Three},
    testInputGradientSamePaddingDifferentStrides, test{Input,Filter}GradientKernelSizeMatchesInputSize,
    test{Input,Filter}GradientValidPaddingStrideOneFastPath and disabledtestFilterGradientSamePaddingDifferentStrides
    (disabled in TF; TF 2.21's gradient is ported all the same);
  pooling_ops_3d_test.py PoolingTest: testAvgPool3dValidPadding, testAvgPool3dSamePadding,
    testAvgPool3dSamePaddingDifferentStrides, testMaxPool3dValidPadding, testMaxPool3dSamePadding,
    testMaxPool3dSamePaddingDifferentStrides (both of its inputs), testKernelSmallerThanStride (float32, and bfloat16
    with inputs scaled by 0.1 as TF's _VerifyValues does), testMaxPool3DEmptyTensorOutputShape,
    DISABLED_testAvgPool3dEmptyOutTensor (TF 2.21 gives the shape that test expects), testMaxPool3DZeroPoolSize,
    testMaxPoolGrad{Valid,Same}Padding*_3d and testAvgPoolGrad{Valid,Same}Padding*_3d (all 19 configurations),
    testAvgPool3dGradEmptyInput (as the tape gradient of an empty input's pool), testAvgPool3dGradInvalidKsize (as
    the pool it is the gradient of, with the same negative window), testAvgPool3dGradInvalidGrad and the grad-shape
    half of testMaxPoolGradEagerShapeErrors (as a tape gradient given a wrong-shaped upstream gradient);
  conv1d_test.py Conv1DTest.testBasic;
  atrous_conv2d_test.py AtrousConv2DTest: testAtrousConv2DForward (24 of its 108 configurations), testAtrousSequence
    (two configurations), testGradient, testAtrousConv2DInvalid;
  atrous_convolution_test.py AtrousConvolutionTest: testAtrousConvolution2D / 3D / 1D (four configurations each),
    testAtrousConvolutionNC (CUDA-only in TF: tj.nn.conv's default layout is channels first, so it is ported, with
    TF's values computed channels-last and transposed), testAtrousSequence (three configurations), testGradient,
    testInvalidInputRank, testDilatedConvolutionFailsWhenFilterExceedsInput,
    testDilatedConvolutionFitsWithExplicitPadding.

TF's ``tf.nn.conv3d`` (NDHWC/DHWIO) is ``tj.nn.conv`` with ``dimension_numbers=('NDHWC', 'DHWIO', 'NDHWC')``,
``tf.nn.conv1d`` (NWC/WIO) with ``('NWC', 'WIO', 'NWC')``; TF's ``dilations`` / ``dilation_rate`` / the ``rate`` of
``tf.nn.atrous_conv2d`` are ``rhs_dilation``; TF's pooling ``ksize``/``strides`` ``[1, d, h, w, 1]`` are
``window_shape=(d, h, w)``. TF's gradient checkers (Jacobians against finite differences) become vector-Jacobian
products with the upstream gradient cos(0.7 * index), compared with TF's tape gradients, and for pooling also the
derivative of that gradient with respect to the upstream gradient (TF's pool_grad_function), which is the forward-
mode tangent. TF's random inputs are drawn here by NumPy's legacy RandomState (a stable stream). Expected values are
TF 2.21's, computed on the CPU with the same programs and hard-coded (an array too large to list is compared by the
digest ``D`` of test_tf_unported_nn_port.py); TensorFlow is not imported here. float64 cases run under
``jax.enable_x64(True)`` for that test only.

Left out, by reason:
  ops tj.nn has no counterpart for: conv1d_test testConv1DTranspose (conv1d_transpose), atrous_conv2d_test
    AtrousConv2DTransposeTest.testAtrousConv2DTransposeForward / testAtrousConv2DTransposeInvalid
    (atrous_conv2d_transpose), AtrousDepthwiseConv2DTest.testAtrousDepthwiseConv2DForward (depthwise_conv2d);
  several batch dimensions (tj.nn.conv takes jax.lax.conv_general_dilated's one batch dimension;
    test_tf_unported_nn_port.py leaves out the 2-D ones alike): conv_ops_3d_test testConv3DExpandedBatch,
    testConvExpandedBatch (gen_nn_ops.conv's batch_dims), testConvolutionClass3DExpandedBatch
    (nn_ops.Convolution's num_batch_dims), testConvolutionWith2SpatialDimensionsAndExpandedBatch; conv1d_test
    testExpandedBatch;
  raw gradient kernels with caller-supplied shapes, which a tape never builds: pooling_ops_3d_test testAvgPool3dGrad
    (AvgPool3DGrad asked for an input of 1879048192 elements per dimension: ResourceExhausted), the orig_output half
    of testMaxPoolGradEagerShapeErrors (MaxPool3DGrad / MaxPool3DGradGrad given a wrong orig_output);
  shapes unknown until run time: atrous_convolution_test test_unknown_spatial_dims_for_channel_last_format /
    _channel_first_format (TF1 placeholders of unknown spatial size),
    testDilatedConvolutionFailsAtRuntimeForUnknownShapes
    (a concrete function over TensorSpecs with unknown dimensions: tj.function traces concrete shapes; the known-shape
    failure is testDilatedConvolutionFailsWhenFilterExceedsInput, below, eagerly and in tj.function);
  GPU / layout specific: the NCDHW configurations of conv_ops_3d_test and pooling_ops_3d_test (CUDA-only; the
    channels-first layout of tj.nn.conv is covered by testAtrousConvolutionNC), pooling_ops_3d_test's bfloat16
    gradient runs (GPU-only in TF);
  no value to hard-code: the float16 / bfloat16 halves of conv_ops_3d_test's gradient tests compare the
    low-precision Jacobian with the same kernel's float32 one, not with a value; the rounding error of a
    low-precision gradient depends on the kernel's summation order (TF 2.21's own float16 filter gradients are off
    the float64 ones by up to 5e-3 of their magnitude, bfloat16 ones by 3.5e-2), so float64 and float32 are ported
    (float16 and bfloat16 forward values are);
  size: the rest of testAtrousConv2DForward's / testAtrousConvolution{1,2,3}D's / the testAtrousSequence grids (the
    same code paths, each a new compilation).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from conftest import D, close_to_tf as _close

DN3 = ("NDHWC", "DHWIO", "NDHWC")
DN2 = ("NHWC", "HWIO", "NHWC")
DN1 = ("NWC", "WIO", "NWC")
_DN = {3: DN1, 4: DN2, 5: DN3}


def _count(shape, dtype=np.float32):
    """1, 2, 3, ... (TF's conv and pooling tests' inputs)."""
    return np.arange(1, int(np.prod(shape)) + 1).astype(dtype).reshape(shape)


def _arange(shape, dtype=np.float32):
    """0, 1, 2, ... (the atrous tests' and pooling gradient tests' inputs)."""
    return np.arange(int(np.prod(shape))).astype(dtype).reshape(shape)


def _frac(shape, start=1, dtype=np.float64):
    """start / n, (start + 1) / n, ... (conv_ops_3d_test's inputs: from 1 for values, from 0 for gradients)."""
    n = int(np.prod(shape))
    return (np.arange(start, n + start, dtype=np.float64) / n).astype(dtype).reshape(shape)


def _cos(shape, dtype=np.float32):
    """The upstream gradient cos(0.7 * index) used for TF's values."""
    return np.cos(np.arange(int(np.prod(shape))) * 0.7).reshape(shape).astype(dtype)


def _sin(shape, dtype=np.float32):
    return np.sin(np.arange(int(np.prod(shape))) * 0.3).reshape(shape).astype(dtype)


def _rand(shape, seed, scale=1.0):
    """TF's random_sample inputs, drawn from NumPy's legacy (stable) RandomState."""
    return (scale * np.random.RandomState(seed).random_sample(shape)).astype(np.float32)


def _strides(s, n=3):
    return tuple(s) if isinstance(s, (tuple, list)) else (s,) * n


def _conv(x, w, strides, padding, dilation=None, dimension_numbers=None):
    rank = len(np.shape(x))
    return tj.nn.conv(x, w, _strides(strides, rank - 2), padding, rhs_dilation=dilation,
                      dimension_numbers=dimension_numbers or _DN[rank])


def _value_and_grads(f, xs, output_gradients):
    """f(*xs) and its gradients with respect to every x, on one tape."""
    xs = [tj.constant(x) for x in xs]
    with tj.GradientTape() as tape:
        tape.watch(xs)
        y = f(*xs)
    return y, tape.gradient(y, xs, output_gradients=output_gradients(y.shape) if output_gradients else None)


# -- conv_ops_3d_test: forward values ------------------------------------------------------------------------------
# name: (input shape, filter shape, stride, padding, output shape, TF's float64 output for inputs _frac from 1)

_CONV3D = {
    "testConv3D1x1x1Filter_a": ([1, 2, 3, 1, 3], [1, 1, 1, 3, 3], 1, "VALID", [1, 2, 3, 1, 3],
        [0.185185185185, 0.222222222222, 0.259259259259, 0.407407407407, 0.5, 0.592592592593, 0.62962962963,
         0.777777777778, 0.925925925926, 0.851851851852, 1.05555555556, 1.25925925926, 1.07407407407, 1.33333333333,
         1.59259259259, 1.2962962963, 1.61111111111, 1.92592592593]),
    "testConv3D1x1x1Filter_b": ([1, 2, 1, 3, 3], [1, 1, 1, 3, 3], 1, "VALID", [1, 2, 1, 3, 3],
        [0.185185185185, 0.222222222222, 0.259259259259, 0.407407407407, 0.5, 0.592592592593, 0.62962962963,
         0.777777777778, 0.925925925926, 0.851851851852, 1.05555555556, 1.25925925926, 1.07407407407, 1.33333333333,
         1.59259259259, 1.2962962963, 1.61111111111, 1.92592592593]),
    "testConv3D1x1x1Filter_c": ([1, 1, 2, 3, 3], [1, 1, 1, 3, 3], 1, "VALID", [1, 1, 2, 3, 3],
        [0.185185185185, 0.222222222222, 0.259259259259, 0.407407407407, 0.5, 0.592592592593, 0.62962962963,
         0.777777777778, 0.925925925926, 0.851851851852, 1.05555555556, 1.25925925926, 1.07407407407, 1.33333333333,
         1.59259259259, 1.2962962963, 1.61111111111, 1.92592592593]),
    "testConv3D2x2x2Filter": ([1, 4, 2, 3, 3], [2, 2, 2, 3, 3], 1, "VALID", [1, 3, 1, 2, 3],
        [3.77199074074, 3.85069444444, 3.92939814815, 4.2650462963, 4.35763888889, 4.45023148148, 6.73032407407,
         6.89236111111, 7.05439814815, 7.22337962963, 7.39930555556, 7.57523148148, 9.68865740741, 9.93402777778,
         10.1793981481, 10.181712963, 10.4409722222, 10.7002314815]),
    "testConv3DStrides": ([1, 5, 8, 7, 1], [1, 2, 3, 1, 1], (2, 3, 1), "SAME", [1, 3, 3, 7, 1],
        [0.0607142857143, 0.089880952381, 0.102380952381, 0.114880952381, 0.127380952381, 0.139880952381,
         0.0845238095238, 0.260714285714, 0.352380952381, 0.364880952381, 0.377380952381, 0.389880952381,
         0.402380952381, 0.234523809524, 0.460714285714, 0.614880952381, 0.627380952381, 0.639880952381,
         0.652380952381, 0.664880952381, 0.384523809524, 1.12738095238, 1.48988095238, 1.50238095238, 1.51488095238,
         1.52738095238, 1.53988095238, 0.884523809524, 1.32738095238, 1.75238095238, 1.76488095238, 1.77738095238,
         1.78988095238, 1.80238095238, 1.03452380952, 1.52738095238, 2.01488095238, 2.02738095238, 2.03988095238,
         2.05238095238, 2.06488095238, 1.18452380952, 2.19404761905, 2.88988095238, 2.90238095238, 2.91488095238,
         2.92738095238, 2.93988095238, 1.68452380952, 2.39404761905, 3.15238095238, 3.16488095238, 3.17738095238,
         3.18988095238, 3.20238095238, 1.83452380952, 2.59404761905, 3.41488095238, 3.42738095238, 3.43988095238,
         3.45238095238, 3.46488095238, 1.98452380952]),
    "testConv3D2x2x2FilterStride2": ([1, 4, 2, 3, 3], [2, 2, 2, 3, 3], 2, "VALID", [1, 2, 1, 1, 3],
        [3.77199074074, 3.85069444444, 3.92939814815, 9.68865740741, 9.93402777778, 10.1793981481]),
    "testConv3DStride3": ([1, 6, 7, 8, 2], [3, 2, 1, 2, 3], 3, "VALID", [1, 2, 2, 3, 3],
        [1.51140873016, 1.5716765873, 1.63194444444, 1.56349206349, 1.62673611111, 1.68998015873, 1.61557539683,
         1.68179563492, 1.74801587302, 1.92807539683, 2.01215277778, 2.09623015873, 1.98015873016, 2.06721230159,
         2.15426587302, 2.03224206349, 2.1222718254, 2.2123015873, 4.42807539683, 4.65500992063, 4.88194444444,
         4.48015873016, 4.71006944444, 4.93998015873, 4.53224206349, 4.76512896825, 4.99801587302, 4.84474206349,
         5.09548611111, 5.34623015873, 4.89682539683, 5.15054563492, 5.40426587302, 4.94890873016, 5.20560515873,
         5.4623015873]),
    "testConv3D2x2x2FilterStride2Same": ([1, 4, 2, 3, 3], [2, 2, 2, 3, 3], 2, "SAME", [1, 2, 1, 2, 3],
        [3.77199074074, 3.85069444444, 3.92939814815, 2.0162037037, 2.06597222222, 2.11574074074, 9.68865740741,
         9.93402777778, 10.1793981481, 4.59953703704, 4.73263888889, 4.86574074074]),
    "testKernelSmallerThanStride_a": ([1, 3, 3, 3, 1], [1, 1, 1, 1, 1], 2, "SAME", [1, 2, 2, 2, 1],
        [0.037037037037, 0.111111111111, 0.259259259259, 0.333333333333, 0.703703703704, 0.777777777778,
         0.925925925926, 1.0]),
    "testKernelSmallerThanStride_b": ([1, 3, 3, 3, 1], [1, 1, 1, 1, 1], 2, "VALID", [1, 2, 2, 2, 1],
        [0.037037037037, 0.111111111111, 0.259259259259, 0.333333333333, 0.703703703704, 0.777777777778,
         0.925925925926, 1.0]),
    "testKernelSmallerThanStride_c": ([1, 7, 7, 7, 1], [2, 2, 2, 1, 1], 3, "SAME", [1, 3, 3, 3, 1],
        [0.540816326531, 0.580174927114, 0.280612244898, 0.816326530612, 0.855685131195, 0.40306122449,
         0.418731778426, 0.434037900875, 0.196428571429, 2.4693877551, 2.50874635569, 1.13775510204, 2.74489795918,
         2.78425655977, 1.26020408163, 1.16873177843, 1.18403790087, 0.517857142857, 1.09511661808, 1.10604956268,
         0.446428571429, 1.17164723032, 1.18258017493, 0.477040816327, 0.36916909621, 0.372448979592, 0.125]),
    "testKernelSmallerThanStride_d": ([1, 7, 7, 7, 1], [2, 2, 2, 1, 1], 3, "VALID", [1, 2, 2, 2, 1],
        [0.540816326531, 0.580174927114, 0.816326530612, 0.855685131195, 2.4693877551, 2.50874635569, 2.74489795918,
         2.78425655977]),
    "testKernelSizeMatchesInputSize": ([1, 2, 1, 2, 1], [2, 1, 2, 1, 2], 1, "VALID", [1, 1, 1, 1, 2],
        [1.5625, 1.875]),
}
# assertAllCloseAccordingToType's tolerances (rtol = atol), as TF's _VerifyValues compares every dtype
_TOL = {"float64": 1e-10, "float32": 1e-6, "float16": 1e-3, "bfloat16": 1e-2}


@pytest.mark.parametrize("name", list(_CONV3D))
def test_conv3d_values(name):
    """Conv3DTest.<name> (suffixes _a.. are one TF test's successive configurations): TF's output, NDHWC on the
    CPU, in each dtype DtypesToTest gives the CPU; the output keeps the inputs' dtype."""
    xs, ws, stride, padding, y_shape, want = _CONV3D[name]
    for dtype in ("float32", "float16", "bfloat16", "float64"):
        with jax.enable_x64(dtype == "float64"):
            y = _conv(_frac(xs).astype(jnp.dtype(dtype)), _frac(ws).astype(jnp.dtype(dtype)), stride, padding)
            assert y.shape == tuple(y_shape) and y.dtype == jnp.dtype(dtype), (dtype, y.shape, y.dtype)
            _close(y, want, _TOL[dtype], _TOL[dtype])


@pytest.mark.parametrize("name,xs,ws,dilation,y_shape,want", [
    ("testConv3D1x1x1Filter2x1x1Dilation", [1, 3, 6, 1, 1], [1, 1, 1, 1, 1], (2, 1, 1), [1, 3, 6, 1, 1],
     [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0]),
    ("testConv3D2x2x2Filter1x2x1Dilation", [1, 4, 6, 3, 1], [2, 2, 2, 1, 1], (1, 2, 1), [1, 3, 4, 2, 1],
     [656.0, 692.0, 764.0, 800.0, 872.0, 908.0, 980.0, 1016.0, 1304.0, 1340.0, 1412.0, 1448.0, 1520.0, 1556.0, 1628.0,
      1664.0, 1952.0, 1988.0, 2060.0, 2096.0, 2168.0, 2204.0, 2276.0, 2312.0]),
])
def test_conv3d_dilated_values(name, xs, ws, dilation, y_shape, want):
    """Conv3DTest.<name> (_VerifyDilatedConvValues: conv3d with dilations against tf.nn.convolution with
    dilation_rate; inputs 1, 2, 3, ..., VALID, stride 1): TF 2.21's value, which both give on the CPU."""
    y = _conv(_count(xs), _count(ws), 1, "VALID", dilation)
    assert y.shape == tuple(y_shape)
    _close(y, want, 1e-6)


def test_conv3d_dilated_backprop_input_and_filter():
    """Conv3DTest.testConv3D2x2Depth3ValidBackpropFilterStride1x1Dilation2x1 and
    testConv3D2x2Depth3ValidBackpropInputStride1x1Dilation2x1 (_RunAndVerifyBackprop: tf.gradients of conv3d with
    dilations [2, 1, 1], against those of tf.nn.convolution): the input and filter gradients for an upstream of ones,
    TF 2.21's (the same from both); and forward mode pairs with them."""
    x0, w0 = _count([1, 3, 6, 1, 1]), _count([2, 2, 1, 1, 1])
    y, (dx, dw) = _value_and_grads(lambda x, w: _conv(x, w, 1, "VALID", (2, 1, 1)), [x0, w0], None)
    assert y.shape == (1, 1, 5, 1, 1)
    _close(y, [100.0, 110.0, 120.0, 130.0, 140.0], 1e-6)
    _close(dx, [1.0, 3.0, 3.0, 3.0, 3.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 7.0, 7.0, 7.0, 7.0, 4.0], 1e-6)
    _close(dw, [15.0, 20.0, 75.0, 80.0], 1e-6)
    t = _sin(x0.shape)
    x = tj.constant(x0)
    with tj.ForwardAccumulator(x, tj.constant(t)) as acc:
        y = _conv(x, w0, 1, "VALID", (2, 1, 1))
    np.testing.assert_allclose(np.sum(acc.jvp(y).numpy()), np.sum(t * dx.numpy()), rtol=1e-5)


def test_conv3d_zero_sized_filter_raises():
    """Conv3DTest.testZeroSizedFilterThrowsIllegalArgument: a filter of shape (1, 1, 0, 1, 1) (TF:
    InvalidArgumentError "filter must not have zero elements")."""
    with pytest.raises(ValueError):
        _conv(_count([1, 1, 1, 1, 1]), np.ones((1, 1, 0, 1, 1), np.float32), 1, "SAME")


def test_conv3d_empty_tensor_output_shape():
    """Conv3DTest._TestConv3DEmptyTensorOutputShape: a batch of 0 of 112^3 x 32 inputs, a 3x3x3x32x64 filter, SAME:
    an output of shape (0, 112, 112, 112, 64), in every CPU dtype. (TF 2.21's default oneDNN kernel answers
    (0, 112, 112, 112, 32); its Eigen kernel, TF_ENABLE_ONEDNN_OPTS=0, gives the 64 channels the test asserts.)"""
    for dtype in ("float32", "float16", "bfloat16", "float64"):
        with jax.enable_x64(dtype == "float64"):
            y = _conv(jnp.ones((0, 112, 112, 112, 32), dtype), jnp.ones((3, 3, 3, 32, 64), dtype), 1, "SAME")
            assert y.shape == (0, 112, 112, 112, 64) and y.dtype == jnp.dtype(dtype)


# -- conv_ops_3d_test: gradients -----------------------------------------------------------------------------------
# name: ((batch, input dims, filter dims, in depth, out depth, stride, padding, test_input), output shape,
#        TF's float64 input gradient, filter gradient) for inputs _frac from 0 and the upstream gradient _cos

_CONV3D_GRAD = {
    "testInputGradientValidPaddingStrideOne":
        ((2, (3, 5, 4), (3, 3, 3), 2, 3, 1, "VALID", True), [2, 1, 3, 2, 3],
         D(2.505752241859832, -2.53095203695964, 161.5576129457741),
         D(-2.389709261152893, -0.003936905054862244, 8.978746040817349)),
    "testFilterGradientValidPaddingStrideOne":
        ((4, (4, 6, 5), (2, 2, 2), 2, 3, 1, "VALID", False), [4, 3, 5, 4, 3],
         D(13.400487105924814, 3.414951586430746, 866.0547513018294),
         D(17.88049807435309, 0.6518034122574683, 17.88049807435309)),
    "testInputGradientValidPaddingStrideTwo":
        ((2, (6, 3, 5), (3, 3, 3), 2, 3, 2, "VALID", True), [2, 2, 1, 2, 3],
         D(-13.440225556492805, 4.722907817002261, 266.8869529504467),
         D(-53.11626687347889, -0.214411963321752, 53.13809324039353)),
    "testFilterGradientValidPaddingStrideTwo":
        ((2, (7, 6, 5), (2, 2, 2), 2, 3, 2, "VALID", False), [2, 3, 3, 2, 3],
         D(2.2421041541965665, -5.895951791158549, 464.9033429636232),
         D(-0.3391913931218124, -0.14845196740815395, 5.303461188865117)),
    "testInputGradientValidPaddingStrideThree":
        ((2, (3, 7, 6), (3, 3, 3), 2, 3, 3, "VALID", True), [2, 1, 2, 2, 3],
         D(-13.440225556492813, 0.3373548991045019, 373.3328816741705),
         D(-64.74621541372368, -0.22829413268079818, 64.74621541372368)),
    "testFilterGradientValidPaddingStrideThree":
        ((2, (4, 4, 7), (4, 4, 4), 2, 3, 3, "VALID", False), [2, 1, 1, 2, 3],
         D(122.9326553568244, 0.7361569375600059, 363.6820868686773),
         D(211.27359694029604, -0.8962318061875785, 211.27359694029604)),
    "testInputGradientSamePaddingStrideOne":
        ((2, (3, 2, 2), (3, 2, 1), 2, 1, 1, "SAME", True), [2, 3, 2, 2, 1],
         D(-1.5305012899140513, -0.6871279515011254, 17.310597100605566),
         D(-1.9008223287140333, 1.7473376330867594, 5.7026799932743115)),
    "testFilterGradientSamePaddingStrideOne":
        ((2, (3, 6, 5), (2, 2, 2), 2, 3, 1, "SAME", False), [2, 3, 6, 5, 3],
         D(44.399113667818426, -10.138324655922043, 397.8781980705777),
         D(37.79113787119795, 2.5795938917090777, 50.95703478393972)),
    "testInputGradientSamePaddingStrideTwo":
        ((2, (6, 3, 4), (3, 3, 3), 2, 3, 2, "SAME", True), [2, 3, 2, 2, 3],
         D(1.5004946080806825, -1.2918779526823823, 247.80255030302538),
         D(-20.48445291387745, -1.2311754800308077, 77.334178720187)),
    "testFilterGradientSamePaddingStrideTwo":
        ((4, (7, 3, 5), (2, 2, 2), 2, 3, 2, "SAME", False), [4, 4, 2, 3, 3],
         D(-84.32139282157489, -6.907177049522003, 606.5588565706663),
         D(-103.80357078903887, -16.808309589642107, 136.44254917909524)),
    "testInputGradientSamePaddingStrideThree":
        ((2, (9, 3, 6), (3, 3, 3), 2, 3, 3, "SAME", True), [2, 3, 1, 2, 3],
         D(2.505752241859825, 0.7716960005262186, 519.5716793499887),
         D(-22.038664376052722, -0.04412604226648148, 47.327920886067055)),
    "testFilterGradientSamePaddingStrideThree":
        ((2, (9, 4, 7), (4, 4, 4), 2, 3, 3, "SAME", False), [2, 3, 2, 3, 3],
         D(-303.91645662536575, 10.747071320628184, 1160.0105377361792),
         D(-356.59975951220554, -0.1200322766121662, 530.2765014744117)),
    "testInputGradientSamePaddingDifferentStrides":
        ((1, (5, 8, 7), (1, 2, 3), 2, 3, (2, 3, 1), "SAME", True), [1, 3, 3, 7, 3],
         D(1.0029171809372985, 19.470100479579038, 139.57332815104422),
         D(0.3508680191780753, 0.35931318016769065, 2.3161469562519637)),
    "testFilterGradientKernelSizeMatchesInputSize":
        ((2, (5, 4, 3), (5, 4, 3), 2, 3, 1, "VALID", False), [2, 1, 1, 1, 3],
         D(-27.268708422780037, 5.710464613997947, 258.24753956496716),
         D(-156.3608023300767, -0.6462508435412295, 156.3608023300767)),
    "testInputGradientKernelSizeMatchesInputSize":
        ((2, (5, 4, 3), (5, 4, 3), 2, 3, 1, "VALID", True), [2, 1, 1, 1, 3],
         D(-27.268708422780037, 5.710464613997947, 258.24753956496716),
         D(-156.3608023300767, -0.6462508435412295, 156.3608023300767)),
    "disabledtestFilterGradientSamePaddingDifferentStrides":
        ((1, (5, 8, 7), (1, 2, 3), 2, 3, (2, 3, 1), "SAME", False), [1, 3, 3, 7, 3],
         D(1.0029171809372985, 19.470100479579038, 139.57332815104422),
         D(0.3508680191780753, 0.35931318016769065, 2.3161469562519637)),
    "testInputGradientValidPaddingStrideOneFastPath":
        ((2, (3, 5, 4), (2, 2, 2), 8, 2, 1, "VALID", True), [2, 2, 4, 3, 2],
         D(-19.915872137411498, -0.1815541776620111, 889.427884550707),
         D(-76.95279562463207, -1.1083474879227293, 76.95279562463207)),
    "testFilterGradientValidPaddingStrideOneFastPath":
        ((2, (4, 6, 5), (2, 2, 2), 8, 2, 1, "VALID", False), [2, 3, 5, 4, 2],
         D(-26.478926704614423, -1.7872772465696865, 2442.7455919020867),
         D(-88.19375973733065, -1.2857164809204669, 88.19375973733065)),
}


@pytest.mark.parametrize("name", list(_CONV3D_GRAD))
def test_conv3d_gradient(name):
    """Conv3DTest.<name> (ConstructAndTestGradient, NDHWC): the output's shape, and the gradient TF checks (input's
    for testInput*, filter's for testFilter*) and the other one, for the upstream gradient cos(0.7 * index): float64
    (TF's tolerance there is 1e-8) and float32. The upstream gradient is the float32 cos, in either dtype, as TF's
    values were computed."""
    (batch, in_dims, f_dims, in_depth, out_depth, stride, padding, test_input), y_shape, want_dx, want_dw = \
        _CONV3D_GRAD[name]
    xs, ws = [batch, *in_dims, in_depth], [*f_dims, in_depth, out_depth]
    for dtype, rtol in (("float64", 1e-10), ("float32", 1e-5)):
        with jax.enable_x64(dtype == "float64"):
            y, (dx, dw) = _value_and_grads(lambda x, w: _conv(x, w, stride, padding),
                                           [_frac(xs, 0, dtype), _frac(ws, 0, dtype)], lambda s: _cos(s).astype(dtype))
            assert y.shape == tuple(y_shape) and dx.dtype == dw.dtype == jnp.dtype(dtype)
            _close(dx if test_input else dw, want_dx if test_input else want_dw, rtol)
            _close(dw if test_input else dx, want_dw if test_input else want_dx, rtol)


# -- pooling_ops_3d_test: values -----------------------------------------------------------------------------------
# name: (pool, input shape, window, strides, padding, output shape, TF's float32 output for inputs 1, 2, 3, ...)

_POOL_VALUES = {
    "testAvgPool3dValidPadding": ("avg", [1, 3, 3, 3, 3], (2, 2, 2), (2, 2, 2), "VALID", [1, 1, 1, 1, 3],
        [20.5, 21.5, 22.5]),
    "testAvgPool3dSamePadding": ("avg", [1, 2, 2, 4, 3], (2, 2, 2), (2, 2, 2), "SAME", [1, 1, 1, 2, 3],
        [20.5, 21.5, 22.5, 26.5, 27.5, 28.5]),
    "testAvgPool3dSamePaddingDifferentStrides": ("avg", [1, 5, 8, 1, 1], (1, 2, 3), (2, 3, 1), "SAME", [1, 3, 3, 1, 1],
        [1.5, 4.5, 7.5, 17.5, 20.5, 23.5, 33.5, 36.5, 39.5]),
    "testMaxPool3dValidPadding": ("max", [1, 3, 3, 3, 3], (2, 2, 2), (2, 2, 2), "VALID", [1, 1, 1, 1, 3],
        [40.0, 41.0, 42.0]),
    "testMaxPool3dSamePadding": ("max", [1, 2, 2, 3, 3], (2, 2, 2), (2, 2, 2), "SAME", [1, 1, 1, 2, 3],
        [31.0, 32.0, 33.0, 34.0, 35.0, 36.0]),
    "testMaxPool3dSamePaddingDifferentStrides_a": ("max", [1, 5, 8, 1, 1], (1, 2, 3), (2, 3, 1), "SAME",
        [1, 3, 3, 1, 1],
        [2.0, 5.0, 8.0, 18.0, 21.0, 24.0, 34.0, 37.0, 40.0]),
    "testMaxPool3dSamePaddingDifferentStrides_b": ("max", [1, 5, 27, 27, 64], (1, 2, 2), (1, 2, 2), "SAME",
        [1, 5, 14, 14, 64],
        D(7420058240.0, 38733.21908394626, 7420058240.0)),
    "testKernelSmallerThanStride_max_a": ("max", [1, 3, 3, 3, 1], (1, 1, 1), (2, 2, 2), "SAME", [1, 2, 2, 2, 1],
        [1.0, 3.0, 7.0, 9.0, 19.0, 21.0, 25.0, 27.0]),
    "testKernelSmallerThanStride_max_b": ("max", [1, 7, 7, 7, 1], (2, 2, 2), (3, 3, 3), "VALID", [1, 2, 2, 2, 1],
        [58.0, 61.0, 79.0, 82.0, 205.0, 208.0, 226.0, 229.0]),
    "testKernelSmallerThanStride_avg_a": ("avg", [1, 3, 3, 3, 1], (1, 1, 1), (2, 2, 2), "SAME", [1, 2, 2, 2, 1],
        [1.0, 3.0, 7.0, 9.0, 19.0, 21.0, 25.0, 27.0]),
    "testKernelSmallerThanStride_avg_b": ("avg", [1, 7, 7, 7, 1], (2, 2, 2), (3, 3, 3), "VALID", [1, 2, 2, 2, 1],
        [29.5, 32.5, 50.5, 53.5, 176.5, 179.5, 197.5, 200.5]),
}


@pytest.mark.parametrize("name", list(_POOL_VALUES))
def test_pool3d_values(name):
    """PoolingTest.<name> (_VerifyValues, NDHWC on the CPU; suffixes _a.. are one TF test's successive
    configurations; SAME average windows average only their real elements): float32, and bfloat16 for inputs scaled
    by 0.1 against TF's expected values scaled alike, at TF's tolerance 2e-2."""
    pool, xs, window, strides, padding, y_shape, want = _POOL_VALUES[name]
    f = tj.nn.max_pool if pool == "max" else tj.nn.avg_pool
    y = f(_count(xs), window, strides, padding)
    assert y.shape == tuple(y_shape) and y.dtype == np.float32
    _close(y, want, 1e-6)
    yb = f((_count(xs, np.float64) * 0.1).astype(jnp.bfloat16), window, strides, padding)
    assert yb.shape == tuple(y_shape) and yb.dtype == jnp.bfloat16
    want_b = D(*(0.1 * np.asarray(want))) if isinstance(want, D) else 0.1 * np.asarray(want)
    _close(yb, want_b, 2e-2, 2e-2)


def test_pool3d_empty_shapes():
    """PoolingTest.testMaxPool3DEmptyTensorOutputShape (a batch of 0: (0, 56, 56, 56, 64)) and
    DISABLED_testAvgPool3dEmptyOutTensor (a window of 20 over 19 columns, VALID: (30, 1, 1, 0, 17), TF 2.21's
    shape too)."""
    y = tj.nn.max_pool(jnp.ones((0, 112, 112, 112, 64)), (2, 2, 2), (2, 2, 2), "VALID")
    assert y.shape == (0, 56, 56, 56, 64)
    y = tj.nn.avg_pool(jnp.ones((30, 19, 4, 19, 17)), (13, 3, 20), (14, 4, 1), "VALID")
    assert y.shape == (30, 1, 1, 0, 17)


@pytest.mark.parametrize("pool", ["max_pool", "avg_pool"])
@pytest.mark.parametrize("window", [(2, 2, 0), (-3, 1, 1)])
def test_pool3d_nonpositive_window_raises(pool, window):
    """PoolingTest.testMaxPool3DZeroPoolSize (ksize [2, 2, 0] on a [3, 4, 10, 11, 12] input, both pools) and
    testAvgPool3dGradInvalidKsize's window [1, -3, 1, 1, 1] (TF: InvalidArgumentError "Sliding window ksize must be
    positive", from the forward pools as from AvgPool3DGrad)."""
    x = np.ones([3, 4, 10, 11, 12] if 0 in window else [1, 1, 1, 1, 1], np.float32)
    with pytest.raises(ValueError):
        getattr(tj.nn, pool)(x, window, (1, 1, 1), "VALID" if 0 in window else "SAME")


# -- pooling_ops_3d_test: gradients --------------------------------------------------------------------------------
# name: (pool, input shape, output shape, window, strides, padding, TF's gradient for inputs 0, 1, 2, ... and the
#        upstream gradient cos(0.7 * index), and the gradient of that gradient with respect to the upstream gradient
#        along sin(0.3 * index))

_POOL_GRAD = {
    "testMaxPoolGradValidPadding1_1_3d": ("max", [1, 3, 3, 3, 1], [1, 3, 3, 3, 1], (1, 1, 1), (1, 1, 1), "VALID",
        D(0.06970266997814178, 13.531165137234659, 17.305919036269188),
        D(3.6290669552981853, -1.365970618168619, 16.953032921999693)),
    "testMaxPoolGradValidPadding2_1_6_3d": ("max", [1, 2, 3, 4, 2], [1, 1, 2, 3, 2], (2, 2, 2), (1, 1, 1), "VALID",
        D(1.9302363842725754, 3.5219909072728157, 7.67780826985836),
        D(-1.5364109501242638, 2.7146214249954017, 8.93633184581995)),
    "testMaxPoolGradValidPadding2_1_7_3d": ("max", [1, 3, 2, 7, 1], [1, 2, 1, 6, 1], (2, 2, 2), (1, 1, 1), "VALID",
        D(1.9302363842725754, -5.236237765738902, 7.67780826985836),
        D(0.13347643613815308, -3.0581551778249643, 9.046687722206116)),
    "testMaxPoolGradValidPadding1_2_3d": ("max", [1, 3, 3, 3, 1], [1, 2, 2, 2, 1], (1, 1, 1), (2, 2, 2), "VALID",
        D(-0.7524642199277878, -0.04022744382391036, 4.995107665657997),
        D(2.953984498977661, 1.0432924398011467, 5.058344483375549)),
    "testMaxPoolGradValidPadding2_2_3d": ("max", [2, 2, 2, 2, 1], [2, 1, 1, 1, 1], (2, 2, 2), (2, 2, 2), "VALID",
        D(1.7648422122001648, -0.1771983465687505, 1.7648422122001648),
        D(-0.11432075500488281, 0.11555309030190497, 1.8407394886016846)),
    "testMaxPoolGradSamePadding1_1_3d": ("max", [1, 3, 2, 4, 1], [1, 3, 2, 4, 1], (1, 1, 1), (1, 1, 1), "SAME",
        D(-0.4854111671447754, 12.63660924467101, 15.82944804430008),
        D(0.8988558165729046, -2.0013719516075903, 14.222821783274412)),
    "testMaxPoolGradSamePadding1_2_3d": ("max", [1, 3, 2, 4, 1], [1, 2, 1, 2, 1], (1, 1, 1), (2, 2, 2), "SAME",
        D(1.4299632608890533, 0.659941553909915, 2.43965545296669),
        D(-1.2042866349220276, 0.6526742915758019, 2.3335716128349304)),
    "testMaxPoolGradSamePadding2_1_3d": ("max", [1, 3, 2, 4, 1], [1, 3, 2, 4, 1], (2, 2, 2), (1, 1, 1), "SAME",
        D(-0.48541104793548584, 0.3858109070760123, 2.4022507667541504),
        D(-1.0878651291131973, 0.4725460070598798, 12.969743475317955)),
    "testMaxPoolGradSamePadding2_2_3d": ("max", [1, 5, 2, 4, 2], [1, 3, 1, 2, 2], (2, 2, 2), (2, 2, 2), "SAME",
        D(1.9302363842725754, 2.663520382238507, 7.67780826985836),
        D(-2.268698778003454, 2.124096874331207, 7.379556272178888)),
    "testMaxPoolGradSamePadding3_1_3d": ("max", [1, 3, 4, 2, 1], [1, 3, 4, 2, 1], (3, 3, 3), (1, 1, 1), "SAME",
        D(-0.4854109585285187, 7.021921952292095, 14.843014508485794),
        D(-3.1091124564409256, -2.369686769619224, 12.498660013079643)),
    "testAvgPoolGradValidPadding1_1_3d": ("avg", [1, 3, 3, 3, 1], [1, 3, 3, 3, 1], (1, 1, 1), (1, 1, 1), "VALID",
        D(0.06970266997814178, 13.531165137234659, 17.305919036269188),
        D(3.6290669552981853, -1.365970618168619, 16.953032921999693)),
    "testAvgPoolGradValidPadding1_2_3d": ("avg", [1, 3, 3, 3, 1], [1, 2, 2, 2, 1], (1, 1, 1), (2, 2, 2), "VALID",
        D(-0.7524642199277878, -0.04022744382391036, 4.995107665657997),
        D(2.953984498977661, 1.0432924398011467, 5.058344483375549)),
    "testAvgPoolGradValidPadding2_1_3d": ("avg", [1, 3, 3, 3, 2], [1, 2, 2, 2, 2], (2, 2, 2), (1, 1, 1), "VALID",
        D(-0.9427371863275766, 1.5590595373953045, 5.5061086397618055),
        D(4.539055667817593, -0.8775670005311382, 5.0252648666501045)),
    "testAvgPoolGradValidPadding2_2_3d": ("avg", [2, 2, 2, 2, 2], [2, 1, 1, 1, 2], (2, 2, 2), (2, 2, 2), "VALID",
        D(1.4299632608890533, -0.10475062213529618, 2.43965545296669),
        D(0.8316371738910675, 0.307842634107347, 0.8316371738910675)),
    "testAvgPoolGradSamePadding1_1_3d": ("avg", [1, 3, 2, 4, 2], [1, 3, 2, 4, 2], (1, 1, 1), (1, 1, 1), "SAME",
        D(1.907915323972702, 24.05497380014826, 30.61328485608101),
        D(3.6850194670259953, 0.9534994612490159, 30.345063004642725)),
    "testAvgPoolGradSamePadding1_2_3d": ("avg", [1, 3, 2, 4, 2], [1, 2, 1, 2, 2], (1, 1, 1), (2, 2, 2), "SAME",
        D(-0.7524642199277878, 2.824637492164207, 4.995107665657997),
        D(-0.38229721784591675, 0.7689962534335326, 4.8324058055877686)),
    "testAvgPoolGradSamePadding2_1_3d": ("avg", [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], (2, 2, 2), (1, 1, 1), "SAME",
        D(-0.7524641826748848, 0.8399500592080498, 2.182427518069744),
        D(6.684410452842712, -1.0897484307016108, 6.684410452842712)),
    "testAvgPoolGradSamePadding2_2_3d": ("avg", [1, 5, 2, 4, 1], [1, 3, 1, 2, 1], (2, 2, 2), (2, 2, 2), "SAME",
        D(-0.44871577620506287, -0.28875950873546785, 4.318334490060806),
        D(-0.6354213505983353, 1.6703215495163533, 2.2986957281827927)),
    "testAvgPoolGradSamePadding3_1_3d": ("avg", [1, 3, 6, 2, 1], [1, 3, 6, 2, 1], (3, 3, 3), (1, 1, 1), "SAME",
        D(0.09318864345550537, 0.34217437928841443, 3.4457455575466156),
        D(0.9529644586145878, 0.4672725462104509, 4.864552307873964)),
}


@pytest.mark.parametrize("name", list(_POOL_GRAD))
def test_pool3d_gradient(name):
    """PoolingTest.<name> (_ConstructAndTestGradient, NDHWC, float32): the output's shape and the input gradient
    for the upstream gradient cos(0.7 * index); TF's pool_grad_function half (the gradient's own derivative with
    respect to the upstream gradient, by nested tapes, along sin(0.3 * index)); and the forward-mode tangent along
    sin(0.3 * index), which TF's ForwardAccumulator gives equal to that derivative."""
    pool, xs, y_shape, window, strides, padding, want_g, want_gg = _POOL_GRAD[name]
    f = tj.nn.max_pool if pool == "max" else tj.nn.avg_pool
    x, u = tj.constant(_arange(xs)), tj.constant(_cos(y_shape))
    with tj.GradientTape() as outer:
        outer.watch(u)
        with tj.GradientTape() as inner:
            inner.watch(x)
            y = f(x, window, strides, padding)
            z = y * u
        g = inner.gradient(z, x)
    assert y.shape == tuple(y_shape)
    _close(g, want_g, 1e-6)
    _close(outer.gradient(g, u, output_gradients=_sin(xs)), want_gg, 1e-6)
    with tj.ForwardAccumulator(x, tj.constant(_sin(xs))) as acc:
        y = f(x, window, strides, padding)
    _close(acc.jvp(y), want_gg, 1e-6)


def test_avg_pool3d_grad_empty_input():
    """PoolingTest.testAvgPool3dGradEmptyInput (AvgPool3DGrad for an input of shape [5, 6, 7, 0, 8], window 1,
    SAME): as the tape gradient of that pool, an empty gradient of the input's shape (TF 2.21's tape gives the
    same)."""
    y, (g,) = _value_and_grads(lambda a: tj.nn.avg_pool(a, (1, 1, 1), (1, 1, 1), "SAME"),
                               [np.ones([5, 6, 7, 0, 8], np.float32)], lambda s: np.ones(s, np.float32))
    assert y.shape == (5, 6, 7, 0, 8) and g.shape == (5, 6, 7, 0, 8)


@pytest.mark.parametrize("pool,x_shape,upstream_shape", [
    ("max_pool", [1, 1, 1, 1, 1], [1, 1, 1, 1, 2]),  # testMaxPoolGradEagerShapeErrors (grad [1, 1, 1, 1, 2])
    ("avg_pool", [2, 2, 1, 1, 1], [2, 2]),  # testAvgPool3dGradInvalidGrad (grad of shape [2, 2])
])
def test_pool3d_grad_wrong_upstream_shape_raises(pool, x_shape, upstream_shape):
    """PoolingTest.testMaxPoolGradEagerShapeErrors ("Expected grad shape to be [1,1,1,1,1], but got [1,1,1,1,2]")
    and testAvgPool3dGradInvalidGrad (InvalidArgumentError): the tape's form of a wrong-shaped gradient is a
    wrong-shaped output_gradients, a ValueError."""
    x = tj.constant(np.ones(x_shape, np.float32))
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = getattr(tj.nn, pool)(x, (1, 1, 1), (1, 1, 1), "VALID")
    with pytest.raises(ValueError):
        tape.gradient(y, x, output_gradients=np.ones(upstream_shape, np.float32))


# -- conv1d_test -------------------------------------------------------------------------------------------------


def test_conv1d_basic():
    """Conv1DTest.testBasic: [1, 2, 3, 4] (NWC) by the filter [2, 1] (WIO), VALID, strides 1 and 2, in float16,
    float32 and float64 (TF: [4, 7, 10] and [4, 10], keeping the dtype)."""
    for dtype in ("float16", "float32", "float64"):
        with jax.enable_x64(dtype == "float64"):
            x = np.array([1, 2, 3, 4], dtype).reshape(1, 4, 1)
            w = np.array([2, 1], dtype).reshape(2, 1, 1)
            for stride, want in ((1, [4.0, 7.0, 10.0]), (2, [4.0, 10.0])):
                y = tj.nn.conv(x, w, (stride,), "VALID", dimension_numbers=DN1)
                assert y.shape == (1, len(want), 1) and y.dtype == jnp.dtype(dtype)
                np.testing.assert_array_equal(y.numpy().ravel(), want)


# -- atrous_conv2d_test --------------------------------------------------------------------------------------------
# (width, kernel height, kernel width, rate, padding): (output shape, TF's tf.nn.atrous_conv2d output) for the input
# arange of [2, 9, width, 2] and the filter arange of [kernel height, kernel width, 2, 2]

_ATROUS2D = {
    (9, 3, 3, 1, "SAME"): ([2, 9, 9, 2], D(14492150.0, -815193.4688281678, 14492150.0)),
    (9, 3, 3, 1, "VALID"): ([2, 7, 7, 2], D(10499622.0, -125138.00856667757, 10499622.0)),
    (9, 3, 3, 2, "SAME"): ([2, 9, 9, 2], D(12539830.0, -271226.9655500739, 12539830.0)),
    (9, 3, 3, 2, "VALID"): ([2, 5, 5, 2], D(5625750.0, 83552.48886253999, 5625750.0)),
    (9, 3, 3, 3, "SAME"): ([2, 9, 9, 2], D(10650150.0, 648593.1631138364, 10650150.0)),
    (9, 3, 3, 3, "VALID"): ([2, 3, 3, 2], D(2122038.0, -9437.324526247, 2122038.0)),
    (10, 2, 3, 1, "SAME"): ([2, 9, 10, 2], D(7944712.0, -22571.369839345833, 7944712.0)),
    (10, 2, 3, 1, "VALID"): ([2, 8, 8, 2], D(6543616.0, 12198.52485306577, 6543616.0)),
    (10, 2, 3, 2, "SAME"): ([2, 9, 10, 2], D(7087552.0, -6573.575659640888, 7087552.0)),
    (10, 2, 3, 2, "VALID"): ([2, 7, 6, 2], D(4425960.0, -66921.20170970827, 4425960.0)),
    (10, 2, 3, 3, "SAME"): ([2, 9, 10, 2], D(6145776.0, -45455.86534316462, 6145776.0)),
    (10, 2, 3, 3, "VALID"): ([2, 6, 4, 2], D(2604384.0, -57790.46215569513, 2604384.0)),
    (9, 1, 2, 1, "SAME"): ([2, 9, 9, 2], D(672390.0, -50053.66621833404, 672390.0)),
    (9, 1, 2, 1, "VALID"): ([2, 9, 8, 2], D(654048.0, 1577.7276852114628, 654048.0)),
    (9, 1, 2, 2, "SAME"): ([2, 9, 9, 2], D(654048.0, -60037.64367129699, 654048.0)),
    (9, 1, 2, 2, "VALID"): ([2, 9, 7, 2], D(574308.0, 1147.4128913215523, 574308.0)),
    (9, 1, 2, 3, "SAME"): ([2, 9, 9, 2], D(592434.0, -34165.251944711876, 592434.0)),
    (9, 1, 2, 3, "VALID"): ([2, 9, 6, 2], D(493992.0, 711.6680081919985, 493992.0)),
    (10, 3, 1, 1, "SAME"): ([2, 9, 10, 2], D(2026700.0, -11723.317152459244, 2026700.0)),
    (10, 3, 1, 1, "VALID"): ([2, 7, 10, 2], D(1749020.0, 14201.81691408977, 1749020.0)),
    (10, 3, 1, 2, "SAME"): ([2, 9, 10, 2], D(1907060.0, -4365.239483942062, 1907060.0)),
    (10, 3, 1, 2, "VALID"): ([2, 5, 10, 2], D(1313300.0, 14997.065896527278, 1313300.0)),
    (10, 3, 1, 3, "SAME"): ([2, 9, 10, 2], D(1774620.0, 15617.426175214954, 1774620.0)),
    (10, 3, 1, 3, "VALID"): ([2, 3, 10, 2], D(826380.0, 20003.203578545283, 826380.0)),
}


@pytest.mark.parametrize("key", list(_ATROUS2D))
def test_atrous_conv2d_forward(key):
    """AtrousConv2DTest.testAtrousConv2DForward (odd and even widths, kernels 1..3, rates 1..3, both paddings):
    tf.nn.atrous_conv2d(x, f, rate, padding), which TF checks against conv2d with the upsampled filter."""
    width, kh, kw, rate, padding = key
    y_shape, want = _ATROUS2D[key]
    y = _conv(_arange([2, 9, width, 2]), _arange([kh, kw, 2, 2]), 1, padding, (rate, rate))
    assert y.shape == tuple(y_shape)
    _close(y, want, 1e-6)


_ATROUS2D_SEQUENCE = {  # (height, width, kernel, rate): (output shape, TF's output of three atrous_conv2d in a row)
    (15, 16, 3, 2): ([3, 15, 16, 2], D(0.16552120238702628, 0.00010711550135141722, 0.16552120238702628)),
    (16, 15, 5, 3): ([3, 16, 15, 2], D(2.1113975028856657, 0.0058658733868270085, 2.1113975028856657)),
}


@pytest.mark.parametrize("key", list(_ATROUS2D_SEQUENCE))
def test_atrous_conv2d_sequence(key):
    """AtrousConv2DTest.testAtrousSequence: three tf.nn.atrous_conv2d(net, f, rate, "SAME") in a row (which TF
    checks against space_to_batch, three conv2d, batch_to_space), x random of [3, height, width, 2], f 1e-2 times
    random of [kernel, kernel, 2, 2]."""
    height, width, kernel, rate = key
    y_shape, want = _ATROUS2D_SEQUENCE[key]
    f = _rand([kernel, kernel, 2, 2], 2, 1e-2)
    y = _rand([3, height, width, 2], 1)
    for _ in range(3):
        y = _conv(y, f, 1, "SAME", (rate, rate))
    assert y.shape == tuple(y_shape)
    _close(y, want, 1e-5)


_ATROUS2D_GRAD = {  # rate: (output shape, TF's output, x gradient, filter gradient for the upstream cos)
    1: ([2, 5, 6, 2], D(331.75597405433655, 4.714732833664463, 331.75597405433655),
        D(4.739081439562142, 5.945083458647601, 61.86344356555492),
        D(8.415355876088142, -3.026203568763808, 42.93653090298176)),
    2: ([2, 5, 6, 2], D(248.0189682841301, -1.1480034224218993, 248.0189682841301),
        D(2.711663596332073, 31.221279179217763, 52.608825854957104),
        D(4.758440062403679, 4.340416497772902, 40.15038315951824)),
    3: ([2, 5, 6, 2], D(179.5211167484522, 0.046854324125424895, 179.5211167484522),
        D(9.31094977259636, 61.529759375624494, 128.5005057156086),
        D(4.812092259526253, -0.9955717598714127, 22.69630555808544)),
}


@pytest.mark.parametrize("rate", list(_ATROUS2D_GRAD))
def test_atrous_conv2d_gradient(rate):
    """AtrousConv2DTest.testGradient (x random of [2, 5, 6, 2], f of [3, 3, 2, 2], rates 1..3, SAME; TF's gradient
    checker): the output and the x and f gradients for the upstream gradient cos(0.7 * index)."""
    y_shape, want_y, want_dx, want_df = _ATROUS2D_GRAD[rate]
    y, (dx, df) = _value_and_grads(lambda x, f: _conv(x, f, 1, "SAME", (rate, rate)),
                                   [_rand([2, 5, 6, 2], 1), _rand([3, 3, 2, 2], 2)], _cos)
    assert y.shape == tuple(y_shape)
    _close(y, want_y, 1e-5)
    _close(dx, want_dx, 1e-5)
    _close(df, want_df, 1e-5)


def test_atrous_conv2d_huge_rate():
    """AtrousConv2DTest.testAtrousConv2DInvalid: rate 2147483647 for a 1x1 filter over a 1x1 input of five
    channels, SAME. TF 2.21's tf.nn.atrous_conv2d raises InvalidArgumentError there from its space_to_batch
    implementation ("Encountered overflow when multiplying ... [Op:SpaceToBatchND]"), but the convolution itself is
    defined: TF's Conv2D kernel with dilations=2147483647 (tf.nn.conv2d) gives [5.0], and so must
    tj.nn.conv (its dilated 1x1 kernel is 1x1)."""
    y = tj.nn.conv(np.ones((1, 1, 1, 5)), np.ones((1, 1, 5, 1)), (1, 1), "SAME", rhs_dilation=(2147483647,) * 2,
                   dimension_numbers=DN2)
    assert y.shape == (1, 1, 1, 1)
    _close(y, [5.0], 1e-6)


# -- atrous_convolution_test ---------------------------------------------------------------------------------------
# name: (input shape, filter shape, dilation, padding, output shape, TF's tf.nn.convolution output with that
#        dilation_rate) for the input and filter aranges

_ATROUS_ND = {
    "testAtrousConvolution2D_0": ([2, 9, 9, 2], [1, 1, 2, 2], [1, 1], "SAME", [2, 9, 9, 2],
        D(157302.0, 524.1596957648683, 157302.0)),
    "testAtrousConvolution2D_1": ([2, 9, 10, 2], [2, 3, 2, 2], [3, 2], "SAME", [2, 9, 10, 2],
        D(6651444.0, -13436.85476082225, 6651444.0)),
    "testAtrousConvolution2D_2": ([2, 9, 10, 2], [2, 2, 2, 2], [2, 1], "VALID", [2, 7, 9, 2],
        D(2880360.0, 5827.994168353389, 2880360.0)),
    "testAtrousConvolution2D_3": ([2, 9, 9, 2], [2, 3, 2, 2], [3, 2], "VALID", [2, 6, 5, 2],
        D(2923800.0, 64987.669807742146, 2923800.0)),
    "testAtrousConvolution3D_0": ([2, 9, 9, 10, 2], [3, 3, 3, 2, 2], [3, 3, 3], "SAME", [2, 9, 9, 10, 2],
        D(7824603024.0, -9525272.488091419, 7824603024.0)),
    "testAtrousConvolution3D_1": ([2, 9, 10, 9, 2], [3, 2, 2, 2, 2], [3, 2, 3], "VALID", [2, 3, 8, 6, 2],
        D(606828672.0, 1670399.786577478, 606828672.0)),
    "testAtrousConvolution3D_2": ([2, 9, 9, 10, 2], [2, 1, 3, 2, 2], [3, 1, 2], "SAME", [2, 9, 9, 10, 2],
        D(538795476.0, 9608.942621506343, 538795476.0)),
    "testAtrousConvolution3D_3": ([2, 9, 10, 9, 2], [3, 3, 3, 2, 2], [1, 1, 1], "VALID", [2, 7, 8, 7, 2],
        D(7714726992.0, -10944787.714140184, 7714726992.0)),
    "testAtrousConvolution1D_0": ([2, 9, 2], [3, 2, 2], [3], "SAME", [2, 9, 2],
        D(17406.0, 1495.1787843718298, 17406.0)),
    "testAtrousConvolution1D_1": ([2, 10, 2], [2, 2, 2], [2], "VALID", [2, 8, 2],
        D(9312.0, -34.33169906169405, 9312.0)),
    "testAtrousConvolution1D_2": ([2, 10, 2], [3, 2, 2], [3], "VALID", [2, 4, 2],
        D(11880.0, -1188.1003287442227, 11880.0)),
    "testAtrousConvolution1D_3": ([2, 9, 2], [1, 2, 2], [2], "SAME", [2, 9, 2],
        D(1926.0, -25.518566971573364, 1926.0)),
}


@pytest.mark.parametrize("name", list(_ATROUS_ND))
def test_atrous_convolution(name):
    """AtrousConvolutionTest.testAtrousConvolution2D / 3D / 1D (_test_atrous_convolution: convolution with
    dilation_rate, which TF checks against the upsampled filter)."""
    xs, fs, dilation, padding, y_shape, want = _ATROUS_ND[name]
    y = _conv(_arange(xs), _arange(fs), 1, padding, tuple(dilation))
    assert y.shape == tuple(y_shape)
    _close(y, want, 1e-6)


_ATROUS_NC = {  # (layout, padding): (output shape, TF's output)
    ("NCW", "SAME"): ([2, 2, 9], D(18986.0, -2617.8734828733423, 18986.0)),
    ("NCHW", "SAME"): ([2, 2, 9, 5], D(3890594.0, -80523.0824549692, 3890594.0)),
    ("NCW", "VALID"): ([2, 2, 5], D(12730.0, 1373.6110632272373, 12730.0)),
    ("NCHW", "VALID"): ([2, 2, 5, 3], D(1805130.0, -83610.19403920724, 1805130.0)),
}


@pytest.mark.parametrize("layout,padding", list(_ATROUS_NC))
def test_atrous_convolution_channels_first(layout, padding):
    """AtrousConvolutionTest.testAtrousConvolutionNC: NCW input [2, 2, 9] with a [3, 2, 2] filter and dilation [2],
    NCHW input [2, 2, 9, 5] with a [3, 3, 2, 2] filter and dilation [2, 1] (TF runs these on CUDA only; its values
    here are the channels-last results transposed). tj.nn.conv's default input layout is channels first."""
    xs, fs, dilation = ([2, 2, 9], [3, 2, 2], (2,)) if layout == "NCW" else ([2, 2, 9, 5], [3, 3, 2, 2], (2, 1))
    y_shape, want = _ATROUS_NC[(layout, padding)]
    dn = (layout, "WIO", layout) if layout == "NCW" else (layout, "HWIO", layout)
    y = _conv(_arange(xs), _arange(fs), 1, padding, dilation, dimension_numbers=dn)
    assert y.shape == tuple(y_shape)
    _close(y, want, 1e-6)


_ATROUS_SEQUENCE = {  # (padding, height, width, kernel, rate height, rate width): (output shape, TF's output)
    ("SAME", 15, 16, 3, 2, 3): ([3, 15, 16, 2], D(3.668860961915925, -0.002513334143327329, 3.668860961915925)),
    ("VALID", 16, 15, 2, 3, 2): ([3, 10, 11, 2], D(0.5758587860909756, 0.0018659565397514018, 0.5758587860909756)),
    ("SAME", 16, 16, 1, 3, 3): ([3, 16, 16, 2], D(0.1370921944139809, -0.000719906673778983, 0.1370921944139809)),
}


@pytest.mark.parametrize("key", list(_ATROUS_SEQUENCE))
def test_atrous_convolution_sequence(key):
    """AtrousConvolutionTest.testAtrousSequence: two convolutions with the same dilation_rate (which TF checks
    against with_space_to_batch over two undilated ones), x random of [3, height, width, 2], f1 and f2 1e-2 times
    random of [kernel, kernel, 2, 2]."""
    padding, height, width, kernel, rh, rw = key
    y_shape, want = _ATROUS_SEQUENCE[key]
    y = _rand([3, height, width, 2], 3)
    for seed in (4, 5):
        y = _conv(y, _rand([kernel, kernel, 2, 2], seed, 1e-2), 1, padding, (rh, rw))
    assert y.shape == tuple(y_shape)
    _close(y, want, 1e-5)


_ATROUS_GRAD = {  # (padding, rate height, rate width): (output shape, TF's output, x and filter gradients)
    ("SAME", 1, 1): ([2, 5, 6, 2], D(434.88740277290344, -0.48017159613984717, 434.88740277290344),
        D(6.424503454007208, 23.266427080364878, 80.10799754504114),
        D(4.282537162303925, -7.70073967187618, 54.41537940502167)),
    ("SAME", 2, 1): ([2, 5, 6, 2], D(364.8995579481125, 2.3333174168640234, 364.8995579481125),
        D(2.834946822375059, 22.040819530353623, 86.07704375311732),
        D(0.8654126673936844, -1.626713945758812, 42.8632557541132)),
    ("SAME", 1, 2): ([2, 5, 6, 2], D(379.3052388429642, -2.216100022344886, 379.3052388429642),
        D(2.670763447880745, 0.29400225737431773, 65.39474506676197),
        D(3.7786616683006287, -5.73991586850485, 45.67487835884094)),
    ("SAME", 2, 2): ([2, 5, 6, 2], D(317.32523572444916, -0.6297755574711204, 317.32523572444916),
        D(1.136439673602581, -21.094450502236523, 69.90068811923265),
        D(-0.12444347143173218, -14.54223236264301, 36.68253135681152)),
    ("VALID", 1, 1): ([2, 3, 4, 2], D(230.25167322158813, 4.650340247994581, 230.25167322158813),
        D(17.034985702484846, -1.7157638584710018, 158.54502402618527),
        D(12.191060185432434, 3.884596945968038, 31.613849937915802)),
    ("VALID", 2, 1): ([2, 1, 4, 2], D(77.34136724472046, -1.3014714875015372, 77.34136724472046),
        D(-8.816994916647673, 1.0571853953498067, 62.96999878808856),
        D(-2.7043325023259968, -0.2279037175424654, 16.77271788404323)),
    ("VALID", 1, 2): ([2, 3, 2, 2], D(112.22713088989258, -5.458445600327273, 112.22713088989258),
        D(-4.80628182226792, 2.107667117832701, 66.11929839896038),
        D(-6.98262283205986, 4.390851006059639, 19.396920144557953)),
    ("VALID", 2, 2): ([2, 1, 2, 2], D(37.70452690124512, -6.418657213928688, 37.70452690124512),
        D(-6.933014256879687, -1.9974528407986942, 39.66580062918365),
        D(-11.66160524636507, -1.5236386302785307, 15.09190597385168)),
}


@pytest.mark.parametrize("key", list(_ATROUS_GRAD))
def test_atrous_convolution_gradient(key):
    """AtrousConvolutionTest.testGradient (x random of [2, 5, 6, 2], f of [3, 3, 2, 2], rates 1..2 each way, both
    paddings; TF's gradient checker): the output and the gradients for the upstream gradient cos(0.7 * index)."""
    padding, rh, rw = key
    y_shape, want_y, want_dx, want_df = _ATROUS_GRAD[key]
    y, (dx, df) = _value_and_grads(lambda x, f: _conv(x, f, 1, padding, (rh, rw)),
                                   [_rand([2, 5, 6, 2], 6), _rand([3, 3, 2, 2], 7)], _cos)
    assert y.shape == tuple(y_shape)
    _close(y, want_y, 1e-5)
    _close(dx, want_dx, 1e-5)
    _close(df, want_df, 1e-5)


def test_convolution_invalid_input_rank_raises():
    """AtrousConvolutionTest.testInvalidInputRank: a rank-1 input with a [5, 5, 1, 8] filter (the test expects
    ValueError "rank at least 3"; TF 2.21's eager kernel aborts the process on a failed check instead)."""
    with pytest.raises(ValueError):
        tj.nn.conv(np.zeros([10], np.float32), np.zeros([5, 5, 1, 8], np.float32), (1, 1), "VALID",
                   dimension_numbers=DN2)


def test_dilated_convolution_fits_with_explicit_padding():
    """AtrousConvolutionTest.testDilatedConvolutionFitsWithExplicitPadding: ones [1, 4, 4, 2] by ones [2, 2, 2, 3],
    padding [[0, 0], [1, 1], [1, 1], [0, 0]], dilation 2: shape [1, 4, 4, 3] and TF 2.21's values."""
    y = _conv(np.ones([1, 4, 4, 2], np.float32), np.ones([2, 2, 2, 3], np.float32), 1, ((1, 1), (1, 1)), (2, 2))
    assert y.shape == (1, 4, 4, 3)
    _close(y, [2.0, 2.0, 2.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 2.0, 2.0, 2.0, 4.0, 4.0, 4.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0,
              4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 4.0, 4.0, 4.0, 2.0, 2.0, 2.0, 4.0, 4.0, 4.0,
              4.0, 4.0, 4.0, 2.0, 2.0, 2.0], 0)


@pytest.mark.parametrize("padding", ["VALID", ((0, 0), (0, 0))])
@pytest.mark.parametrize("compiled", [False, True])
def test_dilated_convolution_fails_when_filter_exceeds_input(padding, compiled):
    """AtrousConvolutionTest.testDilatedConvolutionFailsWhenFilterExceedsInput: zeros [2, 5, 5, 3] by a
    [3, 3, 3, 4] filter with dilation 3 (extent 7 > 5), VALID and zero explicit padding, eagerly and compiled, must
    raise (ValueError)."""
    def conv(a, b):
        return _conv(a, b, 1, padding, (3, 3))

    f = tj.function(conv) if compiled else conv
    with pytest.raises(ValueError):
        f(tj.constant(np.zeros([2, 5, 5, 3], np.float32)), tj.constant(np.zeros([3, 3, 3, 4], np.float32)))
