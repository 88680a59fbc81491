"""tj.nn tests ported from TensorFlow test methods that no other file in tests/ ports: values, gradients, second
order and forward mode of activations, softmax, pooling and convolution, compared with TF 2.21.

Sources (the TF test method is named at each test):
  tensorflow/python/kernel_tests/nn_ops/relu_op_test.py: ReluTest.testNumbersCPU / testNoElement /
    testNaNPropagation / testGradientFloat32 / testGradientFloat16 / testGradientFloat64 / testGradGradFloat32 /
    testGradGradFloat64 / testGradientNoElement; Relu6Test.testNumbersCPU / testNaNPropagation / testGradientFloat32 /
    testGradientFloat64; LeakyReluTest.testNumbersCPU (float dtypes) / testNaNPropagation / testGradientFloat32 /
    testGradientFloat64 / testGradGradFloat32 / testGradGradFloat64; EluTest.testNumbersCPU / testNaNPropagation /
    testGradientFloat32 / testGradientFloat64 / testGradGradFloat32 / testGradGradFloat64; SeluTest.testGradientFloat32
    / testGradientFloat64 / testGradGradFloat32 / testGradGradFloat64;
  softmax_op_test.py: testDouble, test1DTensorAsInput / test1DTensorAsInputNoReshape and _testOverflow in float64,
    test3DTensorAsInputNoReshape, testSoftmaxDoubleGradientPreservesSmallComponent in float64;
  softplus_op_test.py: testNumbers (float64), testGradient (float64);
  softsign_op_test.py: testNumbers, testGradient;
  pooling_ops_test.py (gradients): testMaxPoolGrad (its 15 configurations), testMaxPoolGradGrad (8 configurations),
    testAvgPoolGrad (the 8 configurations not in test_tf_nn_ops_port.py), testAvgPoolGradOutputWithZeroDim,
    testMaxPoolGradDirect's _testMaxPoolGradZeroExplicitPadding and
    _testMaxPoolGradExplicitPadding_3, testMaxPoolingGradWithArgmax and testMaxPoolingGradGradWithArgmax (as the
    gradient and second-order derivative of max_pool, which is what the argmax kernels compute),
    testMaxPoolGradEagerShapeErrors (a wrong-shaped upstream gradient);
  conv_ops_test.py (a handful of forward configurations, with their gradients): testConv2D1x1Filter (also int32),
    testConv2D2x2FilterStride2Same, testConv2DKernelSmallerThanStrideSame, testConv2DKernelSmallerThanStrideValid,
    testConv2dOnlyPaddingReturnsZeros, testConv2D2x2FilterDilation, testConv2D1x2FilterDilation,
    testConv2D2x2Filter2x1Dilation;
  tensorflow/python/ops/nn_test.py: SoftmaxTest.testSoftmax / testSoftmaxAxes / testGradient, LogSoftmaxTest
    .testLogSoftmax / testLogSoftmaxAxes / testGradient, ReluTest.test / testNaNs, LeakyReluTest.testRange /
    testValues, SwishTest.testValues / testGradients, DropoutTest.testDropout / testLargeRate,
    MaxPoolTest.test1DNumpyWithGolden, AvgPoolTest / MaxPoolTest .test1DNumpy / test2DNumpy / test3DNumpy.

TF's ``tf.nn.conv2d`` (NHWC/HWIO) is ``tj.nn.conv`` with ``dimension_numbers=('NHWC', 'HWIO', 'NHWC')``; TF's pooling
``ksize``/``strides`` ``[1, h, w, 1]`` are ``window_shape=(h, w)``; ``tf.nn.softsign`` is ``tj.nn.soft_sign``,
``tf.nn.leaky_relu(x)`` (alpha 0.2) is ``tj.nn.leaky_relu(x, 0.2)`` (tj.nn keeps jax.nn's default slope 0.01).
TF's gradient-checker tests become vector-Jacobian products (and, for elementwise ops, the Jacobian's diagonal)
compared with TF's tape gradients. Expected values are TF 2.21's, computed with the same program run eagerly in TF
and hard-coded (an array too large to list is compared by the digest ``D`` of test_tf_nn_port2.py); TensorFlow is
not imported here. float64 cases run under ``jax.enable_x64(True)`` for that test only.

Left out, by reason:
  NaN windows, where TF's own kernels disagree: pooling_ops_test _testMaxPoolGradDirectWithNans2_1 / _2_2 (TF's CPU
    max pool skips NaN: an all-NaN window gives -3.4e38 and sends its gradient to the window's first element,
    [1, nan, 2, 3] gives 3; its cuDNN kernel, TF_ENABLE_MAXPOOL_NANPROP, propagates NaN). tj.nn.max_pool propagates
    NaN, as jax's reduce_window max and NumPy's max do, and an all-NaN window's gradient goes to its last element;
  already ported elsewhere in tests/: relu_op_test LeakyReluTest.testNumbersCPU int32, testUnexpectedAlphaValue,
    Relu/LeakyReluTest.testGradientScalar, EluTest.testGradGrad (test_tf_opgrad_port.py), SeluTest.testNumbers and the
    elu/selu derivatives at 0 (test_tf_nn_ops_port.py); softmax_op_test testFloat / testHalf / testBfloat16 /
    test3DTensorAsInput / testAlong*Dimension / testShapeInference / testEmptyInput / testLargeDims / testDimTooLarge /
    testInvalidAxis / the float32 _testOverflow (test_tf_nn_port2.py, test_tf_nn_ops_port.py); softplus testNumbers
    (float16/32, bfloat16) / testGradGrad / testGradGradGrad (test_tf_nn_port2.py); pooling_ops_test
    testMaxPoolGradDirect 1_1 / 1_2 / 1_3 / ExplicitPadding_1 / _2, testAvgPoolGrad's SamePadding2_1 shape,
    testOpEdgeCases, testMaxPool*ExplicitPadding values and the testAvgPoolSamePadding* values
    (test_tf_nn_ops_port.py); conv_ops_test's Backprop{Input,Filter} tests, ConstructAndTestGradient's
    test{Input,Filter}Gradient* (group convolution included), testOpEdgeCases' zero-size filter and
    testShapeFunctionEdgeCases' depth mismatch (test_tf_nn_port2.py, test_tf_nn_ops_port.py); nn_test DropoutTest
    .testInvalidRate / testNoDropoutFast / testDropoutWithIntegerInputs, AvgPoolTest.test1DNumpyWithGolden
    (test_tf_nn_ops_port.py);
  NumPy-only reference checks (no TF op): testNpRelu, testNpRelu6, testNpLeakyRelu, testNpElu, testNpSelu,
    testNpSoftmax;
  ops tj.nn has no counterpart for: CreluTest.* and nn_test CReluTest (crelu), nn_test ZeroFractionTest,
    LogPoissonLossTest, L2LossTest, L2NormalizeTest, MomentsTest, ComputeSampledLogitsTest (NCE / sampled softmax),
    DataFormatDimMapTest, DataFormatVectorPermuteTest, ConvTransposeTest, RaggedEmbeddingTest, ConvolutionTest
    .testUnknownSize (tf.nn.convolution over a TensorSpec); conv_ops_test DepthwiseConv2DTest, SeparableConv2DTest,
    testConvolutionClass2DExpandedBatch / testConvolutionWith2SpatialDimensionsAndExpandedBatch /
    testConv2DExpandedBatch
    (conv2d over several batch dimensions); pooling_ops_test testMaxPoolingWithArgmax /
    testDepthwiseMaxPoolingWithArgmax (max_pool_with_argmax's indices), testDepthwiseMaxPool1x1DepthWindow /
    2x2DepthWindow / testDepthwiseMaxPoolInvalidConfigs (pooling across depth);
  raw gradient kernels with caller-supplied shapes, which a tape never builds:
    testMaxPoolGradWithArgmaxEagerShapeErrors,
    testMaxPoolGradWithArgmaxInvalidArgmaxIndices, testAvgPoolGradOutputMemoryOutOfBounds,
    testAvgPoolGradInvalidInputShapeRaiseError, testAvgPoolGradInvalidStrideRaiseErrorProperly,
    testRawAvgPoolLargeKsizeRaiseError, testMaxPoolWithArgmaxKsizeOverflow, conv_ops_test
    testConv2DBackpropInputInvalidOutBackpropRaiseError, testConv2DInputSizesContainsOnlySpatialDimensionsBackpropInput;
  GPU / cuDNN / layout specific: testNumbersGPU (every class), testReluInt8x4GoodShape / BadShape (qint8),
    softmax testFloatGPU / testHalfGPU / testDoubleGPU / testBfloat16GPU, pooling GetMaxPoolFwdTest /
    GetMaxPoolGradTest / GetMaxPoolGradGradTest (testMaxPool{Fwd,Grad,GradGrad}_maxpool2..5: CUDA-only comparisons),
    the TF_ENABLE_MAXPOOL_NANPROP (cuDNN) halves of _testMaxPoolGradDirectWithNans*, NCHW_VECT_C configurations,
    testEdgeCasesRaiseErrors (NCHW_VECT_C / rank-5 data formats), testMaxPoolingGradThrowDeterminismError
    (deterministic GPU ops), conv testConv2DExplicitPaddingWithLayoutOptimizer (Grappler), DeepConv2DTest
    (TF_USE_DEEP_CONV2D), Conv2DBenchmark;
  TF1 graphs / placeholders / op names: pooling testShapeFunctionEdgeCases (unknown shapes),
    testEdgeCasesExcessPadding /
    testNegativePadding / testExplicitPaddingBatch (gen_nn_ops "EXPLICIT" padding attr with explicit_paddings lists),
    nn_test LeakyReluTest.testName (graph op names), DropoutTest.testDropoutPlaceholderKeepProb /
    testShapedDropoutUnknownShape / testInvalidKeepProb (keep_prob placeholders);
  arguments tj.nn does not take: DropoutTest.testShapedDropout / testShapedDropoutCorrelation / testPartialShapedDropout
    / testShapedDropoutShapeError (noise_shape), MaxPoolTest.testIncorrectSizeInputSmall / testIncorrectSizeInput and
    the v2-vs-v1 halves of AvgPoolTest / MaxPoolTest test{1,2,3}D{Tensor,Numpy} (TF infers the window rank from
    the input's rank given an int ksize; tj.nn's pools take an explicit window_shape, as flax's, so a rank-2 input
    with a 1-d window is an unbatched one);
  dtype promotion as jax.nn: softplus_op_test / softsign_op_test testNoInts (TF 2.21 eagerly raises
    InvalidArgumentError for int32 features; tj.nn, mirroring jax.nn, promotes integers to float, as
    tests/test_errors.py::test_relus_of_bool_as_jax_nn pins for relu6 / leaky_relu); relu_op_test's int64 cases of
    leaky_relu (TF casts integer features to float32; jax.nn to the default float, float64 under x64);
  no TF 2.21 value to port: pooling_ops_test testMaxPoolInvalidFilterSize (a [1, 1, 2, 1] window on a 1x1 input:
    TF's test expects InvalidArgumentError on CPU and an empty output on GPU; TF 2.21's CPU kernel dies with SIGFPE.
    tj.nn gives the empty (1, 1, 0, 1) output, TF GPU's, as test_tf_nn_ops_port.py pins for a window one larger);
  forward-only pooling value tests (only pooling's gradient parts were to be ported) and conv forward tests beyond
    the handful above (testConv2D*Padding, testConv2D2x2Filter, testConv2DGroupConvFwd ...): their gradients are
    covered by the ported backprop tests.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from conftest import D, close_to_tf as _close, forward_over_reverse, nested_tape_gradients

tnp = tj.numpy

# relu_op_test's inputs
_NUMBERS = np.array([[-9, 7, -5, 3, -1], [1, -3, 5, -7, 9]])
_GRAD_X = np.array([[-0.9, -0.7, -0.5, -0.3, -0.1], [0.1, 0.3, 0.5, 0.7, 0.9]])
_GRAD_X6 = np.array([[-0.9, -0.7, -0.5, -0.3, -0.1], [6.1, 6.3, 6.5, 6.7, 6.9]])
_NAN_IN = np.array([-1, np.nan, 1, 7, np.nan])


def _cos(shape, dtype=np.float32):
    """The upstream gradient cos(0.7 * index) used for TF's values."""
    return np.cos(np.arange(int(np.prod(shape))) * 0.7).reshape(shape).astype(dtype)


def _count(shape, dtype=np.float32):
    """1, 2, 3, ... (TF's conv and pooling tests' inputs)."""
    return np.arange(1, int(np.prod(shape)) + 1).astype(dtype).reshape(shape)


def _jvp(f, x0, t0):
    x = tj.constant(x0)
    with tj.ForwardAccumulator(x, tj.constant(t0)) as acc:
        y = f(x)
    return acc.jvp(y)


# -- relu, relu6, leaky_relu, elu, selu values (kernel_tests/nn_ops/relu_op_test.py, ops/nn_test.py) ---------------

_LEAKY = [-1.8, 7.0, -1.0, 3.0, -0.2, 1.0, -0.6, 5.0, -1.4, 9.0]
_VALUES = {  # TF: tf.nn.<fn>(_NUMBERS.astype(dtype)) (leaky_relu with alpha=0.2), float32 values
    "relu": [0.0, 7.0, 0.0, 3.0, 0.0, 1.0, 0.0, 5.0, 0.0, 9.0],
    "relu6": [0.0, 6.0, 0.0, 3.0, 0.0, 1.0, 0.0, 5.0, 0.0, 6.0],
    "leaky_relu": _LEAKY,
    "elu": [-0.9998766183853149, 7.0, -0.9932620525360107, 3.0, -0.6321205496788025, 1.0, -0.9502129554748535, 5.0,
            -0.9990881085395813, 9.0],
}
_VALUES_LOW = {  # TF's float16 and bfloat16 outputs (rounded results, where they differ from float32's)
    ("leaky_relu", "float16"): [-1.7998046875, 7.0, -1.0, 3.0, -0.199951171875, 1.0, -0.599609375, 5.0, -1.3994140625,
                                9.0],
    ("leaky_relu", "bfloat16"): [-1.8046875, 7.0, -1.0, 3.0, -0.2001953125, 1.0, -0.6015625, 5.0, -1.3984375, 9.0],
    ("elu", "float16"): [-1.0, 7.0, -0.9931640625, 3.0, -0.6318359375, 1.0, -0.9501953125, 5.0, -0.9990234375, 9.0],
    ("elu", "bfloat16"): [-1.0, 7.0, -0.9921875, 3.0, -0.6328125, 1.0, -0.94921875, 5.0, -1.0, 9.0],
}
_NAN_OUT = {  # TF: tf.nn.<fn>([-1, nan, 1, 7, nan]) in float16 / float32 / float64
    "relu": [0.0, np.nan, 1.0, 7.0, np.nan],
    "relu6": [0.0, np.nan, 1.0, 6.0, np.nan],
    "leaky_relu": [-0.2, np.nan, 1.0, 7.0, np.nan],
    "elu": [-0.6321205588285577, np.nan, 1.0, 7.0, np.nan],
}


def _act(name):
    return (lambda x: tj.nn.leaky_relu(x, 0.2)) if name == "leaky_relu" else getattr(tj.nn, name)


@pytest.mark.parametrize("name,dtype", [(n, d) for n in ("relu", "relu6", "leaky_relu", "elu")
                                        for d in ("int32", "float16", "float32", "bfloat16")
                                        if (n, d) != ("elu", "int32")])
def test_activation_numbers(name, dtype):
    """ReluTest / Relu6Test / LeakyReluTest / EluTest .testNumbersCPU (float64 and int64 in
    test_activation_numbers_float64): the dtype is kept (TF's elu has no integer kernel and its test no integer
    case; TF's leaky_relu computes integer features in float32)."""
    dt = jnp.dtype(dtype)
    out = _act(name)(_NUMBERS.astype(dt))
    want_dtype = np.float32 if (name == "leaky_relu" and dtype == "int32") else dt
    assert out.dtype == want_dtype and out.shape == (2, 5)
    want = _VALUES_LOW.get((name, dtype), _VALUES[name])
    if name == "elu" and dtype == "float16":
        # tj.nn's activations compute float16 in float32 and round once: expm1(-1) rounded, -0.63232; TF's
        # exp(x) - 1 rounds twice in float16, giving the neighbouring -0.63184: an ulp apart
        x = _NUMBERS.astype(np.float64)
        _close(out.numpy(), np.where(x > 0, x, np.expm1(x)).astype(np.float16), rtol=0)
        _close(out.numpy().astype(np.float32), want, rtol=float(jnp.finfo(dt).eps))
        return
    _close(out.numpy().astype(np.float32), want, rtol=1e-6)


def test_activation_numbers_float64():
    """testNumbersCPU's float64 and int64 cases (x64 on): relu and relu6 keep int64; float64 values as TF's
    (TF's leaky_relu alpha is a float32 attribute: -0.20000000298 for x = -1)."""
    with jax.enable_x64(True):
        for name in ("relu", "relu6"):
            out = _act(name)(_NUMBERS.astype(np.int64))
            assert out.dtype == np.int64
            np.testing.assert_array_equal(out.numpy().ravel(), _VALUES[name])
        for name, want in [("relu", _VALUES["relu"]), ("relu6", _VALUES["relu6"]),
                           ("leaky_relu", [-1.8000000268220901, 7.0, -1.0000000149011612, 3.0, -0.20000000298023224,
                                           1.0, -0.6000000089406967, 5.0, -1.4000000208616257, 9.0]),
                           ("elu", [-0.9998765901959134, 7.0, -0.9932620530009145, 3.0, -0.6321205588285577, 1.0,
                                    -0.950212931632136, 5.0, -0.9990881180344455, 9.0])]:
            out = _act(name)(_NUMBERS.astype(np.float64))
            assert out.dtype == np.float64
            _close(out, want, rtol=1e-7)


@pytest.mark.parametrize("name", ["relu", "relu6", "leaky_relu", "elu"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_activation_nan_propagation(name, dtype):
    """testNaNPropagation (relu6 with its input [-1, nan, 1, 7, nan]; the others on the same values)."""
    with jax.enable_x64(dtype == "float64"):
        out = _act(name)(_NAN_IN.astype(dtype))
        assert out.dtype == np.dtype(dtype)
        _close(out, _NAN_OUT[name], rtol={"float16": 1e-3, "float32": 1e-6, "float64": 1e-7}[dtype])


def test_relu_nans_of_every_small_size_and_no_element():
    """nn_test ReluTest.testNaNs (relu(nan) is nan for sizes 0..17), ReluTest.testNoElement and
    testGradientNoElement (a [2, 0] input: an empty output and an empty float32 gradient)."""
    for i in range(18):
        assert np.isnan(tj.nn.relu(np.zeros(i, np.float32) + np.nan).numpy()).all()
    x = tj.constant(np.zeros([2, 0], np.float32))
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tj.nn.relu(x)
    g = tape.gradient(y, x)
    assert y.shape == (2, 0) and g.shape == (2, 0) and g.dtype == np.float32


def test_relu_random_and_leaky_relu_range_and_values():
    """nn_test ReluTest.test (relu of np.random.seed(1) randn(3, 4) is max(x, 0) exactly), LeakyReluTest.testRange
    (uniform [0, 1) inputs are unchanged) and testValues (TF's default alpha 0.2 on [-2, -1, 0, 1, 2], int32 giving
    float32)."""
    np.random.seed(1)
    x = np.random.randn(3, 4).astype(np.float32)
    np.testing.assert_array_equal(tj.nn.relu(x).numpy(), np.maximum(x, 0.0))
    np.random.seed(1)
    u = np.random.uniform(size=(3, 4, 4, 3)).astype(np.float32)
    np.testing.assert_array_equal(tj.nn.leaky_relu(u, 0.2).numpy(), u)
    for dtype, want_dtype, tol in [(np.int32, np.float32, 1e-6), (np.float16, np.float16, 2e-3),
                                   (np.float32, np.float32, 1e-6)]:
        out = tj.nn.leaky_relu(np.array([-2, -1, 0, 1, 2], dtype=dtype), 0.2)
        assert out.dtype == want_dtype
        _close(out.numpy().astype(np.float32), [-0.4, -0.2, 0.0, 1.0, 2.0], rtol=tol, atol=tol)


# -- activation gradients (relu_op_test testGradient*, testGradGrad*) ------------------------------------------

_ELU_G = [0.4065696597405991, 0.4965853037914095, 0.6065306597126334, 0.7408182206817179, 0.9048374180359595, 1.0,
          1.0, 1.0, 1.0, 1.0]
_SELU_G = [0.7147898507984896, 0.8730462952701715, 1.0663411530445055, 1.3024320254682547, 1.5907940682230628,
           1.0507009873554805, 1.0507009873554805, 1.0507009873554805, 1.0507009873554805, 1.0507009873554805]
_GRADS = {  # TF: nested tapes at _GRAD_X (relu6 at _GRAD_X6): (gradient, gradient of the gradient), float64 values
    "relu": ([0.0] * 5 + [1.0] * 5, [0.0] * 10),
    "relu6": ([0.0] * 10, [0.0] * 10),
    "leaky_relu": ([0.20000000298023224] * 5 + [1.0] * 5, [0.0] * 10),
    "elu": (_ELU_G, _ELU_G[:5] + [0.0] * 5),
    "selu": (_SELU_G, _SELU_G[:5] + [0.0] * 5),
}
_GRADS_F16 = {  # TF's float16 values
    "relu": ([0.0] * 5 + [1.0] * 5, [0.0] * 10),
    "leaky_relu": ([0.199951171875] * 5 + [1.0] * 5, [0.0] * 10),
}


@pytest.mark.parametrize("name,dtype", [(n, d) for n in ("relu", "relu6", "leaky_relu", "elu", "selu")
                                        for d in ("float16", "float32", "float64")
                                        if d != "float16" or n in _GRADS_F16])
def test_activation_gradient_and_grad_grad(name, dtype):
    """testGradientFloat32 / Float16 (relu) / Float64 and testGradGradFloat32 / Float64 of ReluTest, Relu6Test,
    LeakyReluTest, EluTest, SeluTest: TF's gradient checkers compare the Jacobian (diagonal here) and the Jacobian of
    the gradient with finite differences; here both are TF's tape values, the second order by nested tapes and by
    a ForwardAccumulator over the tape. TF's ReluGrad / Relu6Grad / LeakyReluGrad second derivatives are zeros, not
    None. float16: TF tests relu's (leaky_relu's float16 values are checked too)."""
    tol = {"float16": 1e-3, "float32": 1e-6, "float64": 1e-12}[dtype]
    with jax.enable_x64(dtype == "float64"):
        x0 = (_GRAD_X6 if name == "relu6" else _GRAD_X).astype(dtype)
        want_g, want_h = (_GRADS_F16 if dtype == "float16" else _GRADS)[name]
        y, g, h = nested_tape_gradients(_act(name), x0)
        assert g.dtype == h.dtype == np.dtype(dtype)
        # leaky_relu's alpha: a float32 attribute in TF, exact in float64 here
        _close(g, want_g, rtol=1e-7 if (name == "leaky_relu" and dtype == "float64") else tol)
        _close(h, want_h, rtol=tol, atol=tol)
        _close(_jvp(_act(name), x0, np.ones_like(x0)), want_g, rtol=1e-7 if name == "leaky_relu" else tol)
        x = tj.constant(x0)
        with tj.ForwardAccumulator(x, tj.constant(np.ones_like(x0))) as acc:
            with tj.GradientTape() as tape:
                tape.watch(x)
                y = _act(name)(x)
            g = tape.gradient(y, x)
        _close(acc.jvp(g), want_h, rtol=tol, atol=tol)


# -- softsign, softplus (softsign_op_test.py, softplus_op_test.py) ----------------------------------------------

_SOFTSIGN = {  # TF: tf.nn.softsign(_NUMBERS.astype(dtype))
    "float16": [-0.89990234375, 0.875, -0.83349609375, 0.75, -0.5, 0.5, -0.75, 0.83349609375, -0.875, 0.89990234375],
    "float32": [-0.8999999761581421, 0.875, -0.8333333134651184, 0.75, -0.5, 0.5, -0.75, 0.8333333134651184, -0.875,
                0.8999999761581421],
    "bfloat16": [-0.8984375, 0.875, -0.83203125, 0.75, -0.5, 0.5, -0.75, 0.83203125, -0.875, 0.8984375],
    "float64": [-0.9, 0.875, -0.8333333333333334, 0.75, -0.5, 0.5, -0.75, 0.8333333333333334, -0.875, 0.9],
}


@pytest.mark.parametrize("dtype", ["float16", "float32", "bfloat16", "float64"])
def test_softsign_numbers(dtype):
    """SoftsignTest.testNumbers (TF's tolerance 1e-6, bfloat16 1e-2; here TF's own outputs)."""
    with jax.enable_x64(dtype == "float64"):
        dt = jnp.dtype(dtype)
        out = tj.nn.soft_sign(_NUMBERS.astype(dt))
        assert out.dtype == dt and out.shape == (2, 5)
        _close(out.numpy().astype(np.float64), _SOFTSIGN[dtype], rtol=1e-7 if dtype == "float64" else 1e-6)


_SOFT_GRADS = {  # TF: tape.gradient(tf.nn.<fn>(x), x) at _GRAD_X
    ("soft_sign", "float32"): [0.2770083248615265, 0.34602075815200806, 0.4444444477558136, 0.5917160511016846,
                               0.8264462351799011, 0.8264462351799011, 0.5917160511016846, 0.4444444477558136,
                               0.34602075815200806, 0.2770083248615265],
    ("soft_sign", "float64"): [0.2770083102493075, 0.34602076124567477, 0.4444444444444444, 0.5917159763313609,
                               0.8264462809917354, 0.8264462809917354, 0.5917159763313609, 0.4444444444444444,
                               0.34602076124567477, 0.2770083102493075],
    ("softplus", "float64"): [0.289050497374996, 0.33181222783183395, 0.37754066879814546, 0.425557483188341,
                              0.47502081252106, 0.52497918747894, 0.574442516811659, 0.6224593312018546,
                              0.6681877721681662, 0.710949502625004],
}


@pytest.mark.parametrize("name,dtype", list(_SOFT_GRADS))
def test_softsign_softplus_gradient(name, dtype):
    """SoftsignTest.testGradient (float32, and float64) and SoftplusTest.testGradient in float64 (its float32 case is
    in test_tf_nn_port2.py): the Jacobian's diagonal, reverse and forward mode."""
    tol = {"float32": 1e-6, "float64": 1e-12}[dtype]
    with jax.enable_x64(dtype == "float64"):
        x0 = _GRAD_X.astype(dtype)
        x = tj.constant(x0)
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = getattr(tj.nn, name)(x)
        g = tape.gradient(y, x)
        assert g.dtype == np.dtype(dtype)
        _close(g, _SOFT_GRADS[name, dtype], rtol=tol)
        _close(_jvp(getattr(tj.nn, name), x0, np.ones_like(x0)), _SOFT_GRADS[name, dtype], rtol=tol)


def test_softplus_numbers_float64():
    """SoftplusTest.testNumbers in float64 (x64 on): the numbers and the log(eps) +- 1, +- 10 inputs."""
    with jax.enable_x64(True):
        log_eps = np.log(np.finfo(np.float64).eps)
        eps_in = np.array([log_eps, log_eps - 1, log_eps + 1, log_eps - 10, log_eps + 10, -log_eps, -log_eps - 1,
                           -log_eps + 1, -log_eps - 10, -log_eps + 10])
        for inp, want in [(_NUMBERS.astype(np.float64),
                           [0.00012340218972325883, 7.000911466453775, 0.006715348489118069, 3.048587351573742,
                            0.3132616875182228, 1.3132616875182228, 0.048587351573742055, 5.006715348489117,
                            0.0009114664537742447, 9.000123402189724]),
                          (eps_in, [2.2204460492503185e-16, 8.168564517495441e-17, 6.03579814675082e-16,
                                    1.0080809467735145e-20, 4.890857895290626e-12, 36.04365338911715,
                                    35.04365338911715, 37.04365338911715, 26.043653389122046, 46.04365338911715])]:
            out = tj.nn.softplus(inp)
            assert out.dtype == np.float64 and np.all(out.numpy() > 0)
            _close(out, want, rtol=1e-12)


# -- softmax, log_softmax in float64 (kernel_tests/nn_ops/softmax_op_test.py) -----------------------------------

def test_softmax_float64_values_and_overflow():
    """testDouble, test1DTensorAsInput / test1DTensorAsInputNoReshape and _testOverflow (float64, x64 on), and
    test3DTensorAsInputNoReshape (float32, the same values as test3DTensorAsInput)."""
    a = np.array([[1., 1., 1., 1.], [1., 2., 3., 4.]])
    with jax.enable_x64(True):
        for x, want_sm, want_lsm in [
            (a, [0.25, 0.25, 0.25, 0.25, 0.03205860328008499, 0.08714431874203257, 0.23688281808991013,
                 0.6439142598879724],
             [-1.3862943611198906] * 4 + [-3.4401896985611953, -2.4401896985611953, -1.4401896985611953,
                                          -0.44018969856119533]),
            (np.array([3., 2., 3., 9.]), [0.002464288316535491, 0.000906561008772391, 0.002464288316535491,
                                         0.9941648623581566],
             [-6.005852228575223, -7.005852228575223, -6.005852228575223, -0.005852228575222356]),
        ]:
            sm, lsm = tj.nn.softmax(x), tj.nn.log_softmax(x)
            assert sm.dtype == lsm.dtype == np.float64 and sm.shape == x.shape
            _close(sm, want_sm, rtol=1e-13)
            _close(lsm, want_lsm, rtol=1e-13)
            np.testing.assert_allclose(np.sum(sm.numpy(), axis=-1), 1.0, rtol=1e-15)
        big = np.finfo(np.float64).max
        out = tj.nn.log_softmax(np.array([[1., 1., 1., 1.], [big, 1., 2., 3.]]))
        _close(out, [-1.3862943611198906] * 4 + [0.0, -big, -big, -big], rtol=1e-13)
    b3 = np.array([[[1., 1., 1., 1.], [1., 2., 3., 4.]], [[2., 3., 4., 5.], [6., 7., 8., 9.]],
                   [[5., 4., 3., 2.], [1., 2., 3., 4.]]], np.float32)
    row = [0.0320586, 0.087144315, 0.23688284, 0.6439142]
    _close(tj.nn.softmax(b3), [0.25] * 4 + row * 3 + row[::-1] + row, rtol=1e-6)


def test_softmax_double_gradient_preserves_small_component():
    """testSoftmaxDoubleGradientPreservesSmallComponent in float64 (x64 on). TF 2.21:
    tape.gradient(reduce_sum(softmax([37.42994775023705, 0.]) * [1., 0.]), logits) = [0, -5.551115123125776e-17]
    (the index's newer TF asserts [tail, -tail]; TF 2.21's value is pinned)."""
    with jax.enable_x64(True):
        z = tj.constant(np.array([37.42994775023705, 0.0]))
        with tj.GradientTape() as tape:
            tape.watch(z)
            obj = tnp.sum(tj.nn.softmax(z) * tj.constant(np.array([1.0, 0.0])))
        g = tape.gradient(obj, z).numpy()
        assert g.dtype == np.float64
        np.testing.assert_allclose(g, [0.0, -5.551115123125776e-17], rtol=1e-14, atol=0.0)


# -- softmax, log_softmax, swish (ops/nn_test.py) ------------------------------------------------------------

def test_nn_softmax_log_softmax_random_and_axes():
    """nn_test SoftmaxTest.testSoftmax / LogSoftmaxTest.testLogSoftmax (np.random.seed(5) randn(5, 10) float32;
    softmax's axis 1 is its default) and testSoftmaxAxes / testLogSoftmaxAxes (linspace(0, 1, 12) as (3, 4) float64,
    axis -2 equals axis 0)."""
    np.random.seed(5)
    x = np.random.randn(5, 10).astype(np.float32)
    _close(tj.nn.softmax(x), D(4.999999978579581, 0.607772575553302, 4.999999978579581), 1e-6)
    np.testing.assert_array_equal(tj.nn.softmax(x, 1).numpy(), tj.nn.softmax(x).numpy())
    _close(tj.nn.log_softmax(x), D(-133.58976757526398, 4.207919338157084, 133.58976757526398), 1e-6)
    arr = np.linspace(0., 1, 12).reshape(3, 4)
    with jax.enable_x64(True):
        sm, lsm = tj.nn.softmax(arr, axis=-2), tj.nn.log_softmax(arr, axis=-2)
        assert sm.dtype == np.float64
        _close(sm, [0.22182884491230562] * 4 + [0.3191121088020474] * 4 + [0.45905904628564703] * 4, rtol=1e-13)
        _close(lsm, [-1.5058491633226812] * 4 + [-1.1422127996863176] * 4 + [-0.778576436049954] * 4, rtol=1e-13)
        np.testing.assert_array_equal(tj.nn.softmax(arr, axis=0).numpy(), sm.numpy())
        np.testing.assert_array_equal(tj.nn.log_softmax(arr, axis=0).numpy(), lsm.numpy())


@pytest.mark.parametrize("name,shape,want_y,want_g", [
    ("softmax", (5, 10), D(5.0, 0.1570894709020845, 5.0), D(-1.249000902703301e-16, 2.0177198604239703,
                                                            2.7618748413397096)),
    ("softmax", (2, 3, 4), D(6.0, 0.07401199592048857, 6.0), D(3.3306690738754696e-16, 0.9191566548971466,
                                                               1.945118650470676)),
    ("log_softmax", (5, 10), D(-142.14073289449635, -4.881062373757489, 142.14073289449635),
     D(-4.440892098500626e-16, 24.657502856405543, 31.886522434576275)),
    ("log_softmax", (2, 3, 4), D(-39.86848863140702, 1.1827952238918744, 39.86848863140702),
     D(3.3306690738754696e-16, 3.322910181190026, 10.119231723214957)),
])
def test_nn_softmax_log_softmax_gradient_float64(name, shape, want_y, want_g):
    """nn_test SoftmaxTest.testGradient / LogSoftmaxTest.testGradient (float64, x64 on; np.random.seed(7) randn
    inputs): the VJP along cos(0.7 * index), reverse mode, and the JVP's pairing with it (<J t, u> = <t, J^T u>)."""
    with jax.enable_x64(True):
        np.random.seed(7)
        x0 = np.random.randn(*shape)
        u = _cos(shape, np.float64)
        x = tj.constant(x0)
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = getattr(tj.nn, name)(x)
        g = tape.gradient(y, x, output_gradients=u)
        assert g.dtype == np.float64
        _close(y, want_y, 1e-12)
        _close(g, want_g, 1e-12, atol=1e-14)
        t = np.sin(np.arange(x0.size) * 0.3).reshape(shape)
        jvp = _jvp(getattr(tj.nn, name), x0, t).numpy()
        np.testing.assert_allclose(np.sum(jvp * u), np.sum(t * g.numpy()), rtol=1e-12, atol=1e-14)


def test_swish_values_and_gradients():
    """nn_test SwishTest.testValues (float32: x * sigmoid(x) on linspace(-7, 0) and linspace(0, 7)) and
    testGradients (float64, np.random.seed(3) randn(5, 3, 4) * 5, x64 on; the VJP along cos(0.7 * index))."""
    v = np.array([np.linspace(-7.0, 0.0, 100), np.linspace(0.0, 7.0, 100)], dtype=np.float32)
    for f in (tj.nn.swish, tj.nn.silu):
        _close(f(v), D(326.94176672259346, 10.18286883576621, 349.9999967976473), 1e-6)
    with jax.enable_x64(True):
        np.random.seed(3)
        x0 = np.random.randn(5, 3, 4) * 5
        x = tj.constant(x0)
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = tj.nn.swish(x)
        g = tape.gradient(y, x, output_gradients=_cos(x0.shape, np.float64))
        _close(y, D(94.90892446121279, -5.7673449813620925, 103.2112597957952), 1e-12)
        _close(g, D(-1.4613598314068035, 11.69205126358251, 15.712120529975671), 1e-12)


# -- dropout (ops/nn_test.py DropoutTest) ----------------------------------------------------------------------

def test_dropout_statistics_and_large_rate():
    """DropoutTest.testDropout: on ones(40, 30), 10 draws per keep probability give only 0 and 1 / keep_prob, and
    a count of kept values within 15% of its expectation; testLargeRate: rate 0.9 runs."""
    t = tj.constant(np.ones([40, 30], np.float32))
    for keep_prob in (0.1, 0.5, 0.8):
        count = 0
        for i in range(10):
            value = tj.nn.dropout(t, 1 - keep_prob, jax.random.key(100 * i + int(10 * keep_prob))).numpy()
            assert value.shape == (40, 30)
            count += np.count_nonzero(value)
            kept = np.unique(value)
            assert kept[0] == 0
            np.testing.assert_allclose(kept[1], 1 / keep_prob, rtol=1e-6)
        expected = 40 * 30 * keep_prob * 10
        assert abs(count - expected) / expected < 0.15
    assert tj.nn.dropout(t, 0.9, jax.random.key(1)).shape == (40, 30)


# -- pooling gradients (kernel_tests/nn_ops/pooling_ops_test.py) -------------------------------------------------
# _ConstructAndTestGradient's input is 1, 2, 3, ... (no ties); TF checks the Jacobian against finite differences.
# Here the VJP along cos(0.7 * index) against TF's tape gradient (tape.gradient(tf.nn.max_pool2d(x, [1, wr, wc, 1],
# [1, sr, sc, 1], padding), x, output_gradients=u)); explicit paddings are TF's [[0, 0], rows, cols, [0, 0]].

_MAX_POOL_GRAD = {  # name: (input shape, output shape, window, strides, padding, TF's gradient digest)
    "ValidPadding1_1": ([1, 3, 3, 1], [1, 3, 3, 1], (1, 1), (1, 1), "VALID",
                        D(0.023101642727851868, 4.510121030690275, 5.770673528313637)),
    "ValidPadding1_2": ([1, 3, 3, 1], [1, 2, 2, 1], (1, 1), (2, 2), "VALID",
                        D(1.4299632608890533, 0.6551284076152066, 2.43965545296669)),
    "ValidPadding2_1_6": ([2, 6, 6, 3], [2, 5, 5, 3], (2, 2), (1, 1), "VALID",
                          D(-0.7089169800747186, -4.934569525946165, 95.87101494963281)),
    "ValidPadding2_1_7": ([2, 7, 7, 3], [2, 6, 6, 3], (2, 2), (1, 1), "VALID",
                          D(0.5780510872136801, -0.07022868173638042, 137.79128502006643)),
    "ValidPadding2_2": ([2, 2, 2, 3], [2, 1, 1, 3], (2, 2), (2, 2), "VALID",
                        D(-0.44871577620506287, 3.635225293637416, 4.318334490060806)),
    "SamePadding1_1": ([2, 2, 4, 3], [2, 2, 4, 3], (1, 1), (1, 1), "SAME",
                       D(1.907915323972702, 24.05497380014826, 30.61328485608101)),
    "SamePadding1_2": ([2, 2, 4, 3], [2, 1, 2, 3], (1, 1), (2, 2), "SAME",
                       D(1.9302363842725754, 0.4332049756481158, 7.67780826985836)),
    "SamePadding2_1": ([2, 2, 4, 3], [2, 2, 4, 3], (2, 2), (1, 1), "SAME",
                       D(1.9079152345657349, -6.866066762134162, 10.433463215827942)),
    "SamePadding2_2": ([2, 2, 4, 3], [2, 1, 2, 3], (2, 2), (2, 2), "SAME",
                       D(1.9302363842725754, 2.778917926908961, 7.67780826985836)),
    "SamePadding3_1": ([1, 7, 7, 1], [1, 7, 7, 1], (3, 3), (1, 1), "SAME",
                       D(1.3323650434613228, 17.29326380284618, 28.55939144641161)),
    "ExplicitPadding_1": ([1, 7, 7, 1], [1, 7, 7, 1], (3, 3), (1, 1), [(1, 1), (1, 1)],
                          D(1.3323650434613228, 17.29326380284618, 28.55939144641161)),
    "ExplicitPadding_2": ([1, 7, 7, 1], [1, 6, 8, 1], (3, 5), (1, 1), [(0, 1), (2, 3)],
                          D(1.9079153388738632, -12.386645526428659, 26.668824717402458)),
    "ExplicitPaddingLeftGreater": ([1, 7, 7, 1], [1, 6, 8, 1], (3, 5), (1, 1), [(0, 1), (3, 2)],
                                   D(1.9079149067401886, -11.248627522471455, 28.405071824789047)),
    "ExplicitPaddingBatchChannel": ([4, 7, 7, 3], [4, 6, 8, 3], (3, 5), (1, 1), [(0, 1), (3, 2)],
                                    D(1.4682018305175006, 12.688870742627099, 193.4673867453821)),
    "ExplicitPaddingStrides": ([1, 7, 7, 1], [1, 4, 3, 1], (3, 3), (2, 3), [(1, 1), (1, 1)],
                               D(1.9302363842725754, -0.5318138189951405, 7.67780826985836)),
}


@pytest.mark.parametrize("name", list(_MAX_POOL_GRAD))
def test_max_pool_grad(name):
    """PoolingTest.testMaxPoolGrad: _testMaxPoolGrad<name> and _testMaxPool<name> (NHWC, float32)."""
    in_shape, out_shape, window, strides, padding, want = _MAX_POOL_GRAD[name]
    x = tj.constant(_count(in_shape))
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tj.nn.max_pool(x, window, strides, padding)
    assert y.shape == tuple(out_shape)
    _close(tape.gradient(y, x, output_gradients=_cos(out_shape)), want, 1e-6)


_MAX_POOL_GRAD_GRAD = {  # name: TF's (gradient of sum(y ** 2), its gradient along cos(0.7 * index))
    "ValidPadding1_1": (D(90.0, -8.538568659259704, 90.0),
                        D(0.046203285455703735, 9.02024206138055, 11.541347056627274)),
    "ValidPadding2_1_6": (D(35700.0, -3100.591566673134, 35700.0),
                          D(-30.21803580597043, 153.50585644023357, 195.83642588183284)),
    "ValidPadding2_1_7": (D(68904.0, -8.173164698220035, 68904.0),
                          D(-0.005402004811912775, 216.00836233896118, 274.72027548542246)),
    "ValidPadding2_2": (D(204.0, -71.40792657811195, 204.0),
                        D(-1.0070708394050598, 7.276924921635156, 8.635609805583954)),
    "SamePadding1_1": (D(2352.0, 132.27575191411694, 2352.0),
                       D(3.815830647945404, 48.10994760029652, 61.22656971216202)),
    "SamePadding2_1": (D(3144.0, 122.81259309351651, 3144.0),
                       D(-2.5757510662078857, 50.154343762572736, 62.72458267211914)),
    "SamePadding2_2": (D(768.0, -125.51775620073552, 768.0),
                       D(-5.082192108035088, 13.011020672540873, 16.202992513775826)),
    "SamePadding3_1": (D(3122.0, 154.42911292849118, 3122.0),
                       D(6.174487426877022, 47.96276031239967, 61.154488041996956)),
}


@pytest.mark.parametrize("name", list(_MAX_POOL_GRAD_GRAD))
def test_max_pool_grad_grad(name):
    """PoolingTest.testMaxPoolGradGrad (_ConstructAndTestSecondGradient: the gradient of sum(max_pool(x) ** 2), then
    its Jacobian; square windows of the first window size): nested tapes, and forward over reverse (whose tangent
    pairs with the reverse value: <H t, u> = <t, H u>)."""
    in_shape, _, window, strides, padding, _ = _MAX_POOL_GRAD[name]
    window = (window[0], window[0])

    def f(x):
        return tj.nn.max_pool(x, window, strides, padding) ** 2

    x0 = _count(in_shape)
    _, g, h = nested_tape_gradients(f, x0, outer_gradients=_cos(in_shape))
    want_g, want_h = _MAX_POOL_GRAD_GRAD[name]
    _close(g, want_g, 1e-6)
    _close(h, want_h, 1e-5)
    t = np.sin(np.arange(x0.size) * 0.3).reshape(in_shape).astype(np.float32)
    np.testing.assert_allclose(np.sum(forward_over_reverse(f, x0, t).numpy() * _cos(in_shape), dtype=np.float64),
                               np.sum(t * h.numpy(), dtype=np.float64), rtol=1e-4)


_AVG_POOL_GRAD = {  # name: (input shape, output shape, window, strides, padding, TF's gradient digest)
    "ValidPadding1_1": ([2, 3, 3, 3], [2, 3, 3, 3], (1, 1), (1, 1), "VALID",
                        D(0.14050009846687317, 27.064555708127365, 34.56908264756203)),
    "ValidPadding1_2": ([2, 3, 3, 3], [2, 2, 2, 3], (1, 1), (2, 2), "VALID",
                        D(-0.4854111671447754, 0.8474912139166054, 15.82944804430008)),
    "ValidPadding2_1": ([2, 3, 3, 3], [2, 2, 2, 3], (2, 2), (1, 1), "VALID",
                        D(-0.48541121184825897, 0.7567960717532727, 8.647409290075302)),
    "ValidPadding2_2": ([2, 2, 2, 3], [2, 1, 1, 3], (2, 2), (2, 2), "VALID",
                        D(-0.44871577620506287, 0.9138268585356734, 4.318334490060806)),
    "SamePadding1_1": ([2, 2, 4, 3], [2, 2, 4, 3], (1, 1), (1, 1), "SAME",
                       D(1.907915323972702, 24.05497380014826, 30.61328485608101)),
    "SamePadding1_2": ([2, 2, 4, 3], [2, 1, 2, 3], (1, 1), (2, 2), "SAME",
                       D(1.9302363842725754, 0.4332049756481158, 7.67780826985836)),
    "SamePadding2_1": ([2, 2, 4, 3], [2, 2, 4, 3], (2, 2), (1, 1), "SAME",
                       D(1.90791529789567, 5.1027330201801915, 12.498456303030252)),
    "SamePadding2_2": ([2, 2, 4, 3], [2, 1, 2, 3], (2, 2), (2, 2), "SAME",
                       D(1.9302363842725754, -0.7650714389269686, 7.67780826985836)),
    "SamePadding3_1": ([1, 7, 7, 1], [1, 7, 7, 1], (3, 3), (1, 1), "SAME",
                       D(1.3323647379875183, 10.745092562646173, 15.129678174853325)),
}


@pytest.mark.parametrize("name", list(_AVG_POOL_GRAD))
def test_avg_pool_grad(name):
    """PoolingTest.testAvgPoolGrad: _testAvgPoolGrad<name> (NHWC, float32); SAME windows average only the real
    elements, as TF's AvgPoolGrad spreads them. Reverse mode, and the JVP pairing with it."""
    in_shape, out_shape, window, strides, padding, want = _AVG_POOL_GRAD[name]
    x0 = _count(in_shape)
    x = tj.constant(x0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tj.nn.avg_pool(x, window, strides, padding)
    assert y.shape == tuple(out_shape)
    g = tape.gradient(y, x, output_gradients=_cos(out_shape))
    _close(g, want, 1e-6)
    t = np.sin(np.arange(x0.size) * 0.3).reshape(in_shape).astype(np.float32)
    jvp = _jvp(lambda a: tj.nn.avg_pool(a, window, strides, padding), x0, t).numpy()
    np.testing.assert_allclose(np.sum(jvp * _cos(out_shape), dtype=np.float64), np.sum(t * g.numpy(), dtype=np.float64),
                               rtol=1e-5, atol=1e-6)


def test_avg_pool_grad_output_with_zero_dim():
    """testAvgPoolGradOutputWithZeroDim (NHWC): a [1, 2, 1, 1] input pooled by a (1, 2) VALID window has a
    [1, 2, 0, 1] output; the gradient for an upstream of 0.1s of that shape is zeros of the input's shape."""
    x = tj.constant(np.ones([1, 2, 1, 1], np.float32))
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tj.nn.avg_pool(x, (1, 2), (1, 1), "VALID")
    assert y.shape == (1, 2, 0, 1)
    g = tape.gradient(y, x, output_gradients=np.full([1, 2, 0, 1], 0.1, np.float32))
    np.testing.assert_array_equal(g.numpy(), np.zeros([1, 2, 1, 1], np.float32))


def _max_pool_grad_direct(data, backprop, out_shape, window, strides, padding):
    x = tj.constant(np.array(data, np.float32).reshape(1, 4, 4, 1))
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tj.nn.max_pool(x, window, strides, padding)
    return tape.gradient(y, x, output_gradients=np.array(backprop, np.float32).reshape(out_shape)).numpy().ravel()


_ALT = [1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0]
_NEG = [-1.0, -5.0, -1.0, -5.0, -5.0, -1.0, -5.0, -1.0, -1.0, -5.0, -1.0, -5.0, -5.0, -1.0, -5.0, -1.0]
_BP9 = [11.0, 12.0, 13.0, 15.0, 16.0, 17.0, 19.0, 20.0, 21.0]


@pytest.mark.parametrize("data,backprop,out_shape,padding,want", [
    # _testMaxPoolGradZeroExplicitPadding: explicit zero padding is VALID
    (_ALT, _BP9, [1, 3, 3, 1], [(0, 0), (0, 0)], [11, 0, 25, 0, 0, 31, 0, 17, 19, 0, 41, 0, 0, 0, 0, 0]),
    # _testMaxPoolGradExplicitPadding_3: negative inputs; the padding never wins the maximum
    (_NEG, list(range(11, 23)), [1, 3, 4, 1], [(0, 0), (0, 1)],
     [11, 0, 25, 0, 0, 31, 0, 49, 19, 0, 41, 0, 0, 0, 0, 22]),
])
def test_max_pool_grad_direct_explicit_padding(data, backprop, out_shape, padding, want):
    """testMaxPoolGradDirect's explicit-padding cases not in test_tf_nn_ops_port.py (2x2 windows, stride 1)."""
    np.testing.assert_array_equal(_max_pool_grad_direct(data, backprop, out_shape, (2, 2), (1, 1), padding), want)


_ARGMAX_IN = np.array([1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0],
                      np.float32).reshape(2, 3, 3, 1)


def test_max_pooling_grad_and_grad_grad_with_argmax():
    """testMaxPoolingGradWithArgmax: max_pool_grad_with_argmax for argmax [0, 1, 3, 5 | 0, 2, 6, 8] (the first
    maximum of each 2x2 window) is the tape gradient of max_pool (TF: the same values); testMaxPoolingGradGradWithArgmax
    (a CUDA-only kernel): the gradient gathered at the argmax, which is the derivative of that gradient with respect
    to the upstream gradient and the JVP of max_pool (TF on CPU, by tapes and a ForwardAccumulator: the same
    values)."""
    x = tj.constant(_ARGMAX_IN)
    u = tj.constant(np.array([11.0, 12.0, 13.0, 14.0, 21.0, 22.0, 23.0, 24.0], np.float32).reshape(2, 2, 2, 1))
    v = np.array([11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0,
                  29.0], np.float32).reshape(2, 3, 3, 1)
    with tj.GradientTape() as outer:
        outer.watch(u)
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = tj.nn.max_pool(x, (2, 2), (1, 1), "VALID")
        g = tape.gradient(y, x, output_gradients=u)
    np.testing.assert_array_equal(g.numpy().ravel(), [11, 12, 0, 13, 0, 14, 0, 0, 0, 21, 0, 22, 0, 0, 0, 23, 0, 24])
    want = [11.0, 12.0, 14.0, 16.0, 21.0, 23.0, 27.0, 29.0]
    np.testing.assert_array_equal(outer.gradient(g, u, output_gradients=v).numpy().ravel(), want)
    jvp = _jvp(lambda a: tj.nn.max_pool(a, (2, 2), (1, 1), "VALID"), _ARGMAX_IN, v)
    np.testing.assert_array_equal(jvp.numpy().ravel(), want)


def test_max_pool_grad_wrong_upstream_shape_raises_value_error():
    """testMaxPoolGradEagerShapeErrors: TF raises InvalidArgumentError ("Expected grad shape to be [1,1,1,1], but got
    [1,1,1,2]") for tape.gradient(tf.nn.max_pool2d(x, 1, 1, "VALID"), x, output_gradients=ones((1, 1, 1, 2)))."""
    x = tj.constant(np.ones((1, 1, 1, 1), np.float32))
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tj.nn.max_pool(x, (1, 1), (1, 1), "VALID")
    with pytest.raises(ValueError):
        tape.gradient(y, x, output_gradients=np.ones((1, 1, 1, 2), np.float32))


def test_pool_1d_golden_and_nd_ones():
    """nn_test MaxPoolTest.test1DNumpyWithGolden (float64, x64 on: max_pool1d(x, 2, 1, "SAME")), and AvgPoolTest /
    MaxPoolTest .test1DNumpy / test2DNumpy / test3DNumpy: pooling ones by 2-windows with strides 2 ("SAME") gives
    ones of TF's output shapes."""
    with jax.enable_x64(True):
        x = np.array([[[3], [6], [5]], [[1], [0], [1]]], dtype=np.float64)
        out = tj.nn.max_pool(x, (2,), (1,), "SAME")
        assert out.dtype == np.float64
        np.testing.assert_array_equal(out.numpy().ravel(), [6.0, 6.0, 5.0, 1.0, 1.0, 1.0])
    for shape, want in [([3, 6, 5], (3, 3, 5)), ([3, 6, 6, 5], (3, 3, 3, 5)), ([3, 7, 6, 6, 5], (3, 4, 3, 3, 5))]:
        k = len(shape) - 2
        for pool in (tj.nn.max_pool, tj.nn.avg_pool):
            y = pool(np.ones(shape, np.float32), (2,) * k, (2,) * k, "SAME")
            assert y.shape == want
            np.testing.assert_array_equal(y.numpy(), np.ones(want, np.float32))


# -- conv2d forward configurations and their gradients (kernel_tests/nn_ops/conv_ops_test.py) --------------------
# x = 1, 2, 3, ..., w = 1, 2, 3, ... (_CreateNumpyTensor); gradients for the upstream 1, 2, 3, ... (TF:
# tape.gradient(tf.nn.conv2d(x, w, [1, *s, 1], padding, dilations=[1, *d, 1]), [x, w], output_gradients=...)).

_CONV = {  # name: (x shape, w shape, strides, padding, dilations, y shape, y, dx, dw)
    "1x1Filter": ([1, 2, 3, 3], [1, 1, 3, 3], (1, 1), "VALID", (1, 1), [1, 2, 3, 3],
                  [30.0, 36.0, 42.0, 66.0, 81.0, 96.0, 102.0, 126.0, 150.0, 138.0, 171.0, 204.0, 174.0, 216.0, 258.0,
                   210.0, 261.0, 312.0],
                  [14.0, 32.0, 50.0, 32.0, 77.0, 122.0, 50.0, 122.0, 194.0, 68.0, 167.0, 266.0, 86.0, 212.0, 338.0,
                   104.0, 257.0, 410.0],
                  [591.0, 642.0, 693.0, 642.0, 699.0, 756.0, 693.0, 756.0, 819.0]),
    "2x2FilterStride2Same": ([1, 2, 3, 3], [2, 2, 3, 3], (2, 2), "SAME", (1, 1), [1, 1, 2, 3],
                             [2271.0, 2367.0, 2463.0, 1230.0, 1305.0, 1380.0],
                             [14.0, 32.0, 50.0, 68.0, 86.0, 104.0, 32.0, 77.0, 122.0, 122.0, 140.0, 158.0, 176.0, 194.0,
                              212.0, 302.0, 347.0, 392.0],
                             [29.0, 37.0, 45.0, 34.0, 44.0, 54.0, 39.0, 51.0, 63.0, 4.0, 8.0, 12.0, 5.0, 10.0, 15.0,
                              6.0, 12.0, 18.0, 74.0, 100.0, 126.0, 79.0, 107.0, 135.0, 84.0, 114.0, 144.0, 13.0,
                              26.0, 39.0, 14.0, 28.0, 42.0, 15.0, 30.0, 45.0]),
    "KernelSmallerThanStrideSame_a": ([1, 3, 3, 1], [1, 1, 1, 1], (2, 2), "SAME", (1, 1), [1, 2, 2, 1],
                                      [1.0, 3.0, 7.0, 9.0], [1.0, 0.0, 2.0, 0.0, 0.0, 0.0, 3.0, 0.0, 4.0], [64.0]),
    "KernelSmallerThanStrideSame_b": ([1, 4, 4, 1], [1, 1, 1, 1], (2, 2), "SAME", (1, 1), [1, 2, 2, 1],
                                      [1.0, 3.0, 9.0, 11.0],
                                      [1.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                                      [78.0]),
    "KernelSmallerThanStrideSame_c": ([1, 4, 4, 1], [2, 2, 1, 1], (3, 3), "SAME", (1, 1), [1, 2, 2, 1],
                                      [44.0, 28.0, 41.0, 16.0],
                                      [1.0, 2.0, 0.0, 2.0, 3.0, 4.0, 0.0, 6.0, 0.0, 0.0, 0.0, 0.0, 3.0, 6.0, 0.0, 4.0],
                                      [112.0, 44.0, 21.0, 6.0]),
    "KernelSmallerThanStrideValid": ([1, 7, 7, 1], [2, 2, 1, 1], (3, 3), "VALID", (1, 1), [1, 2, 2, 1],
                                     [65.0, 95.0, 275.0, 305.0],
                                     [1.0, 2.0, 0.0, 2.0, 4.0, 0.0, 0.0, 3.0, 4.0, 0.0, 6.0, 8.0, 0.0, 0.0] + [0.0] * 7
                                     + [3.0, 6.0, 0.0, 4.0, 8.0, 0.0, 0.0, 9.0, 12.0, 0.0, 12.0, 16.0, 0.0, 0.0]
                                     + [0.0] * 14,
                                     [175.0, 185.0, 245.0, 255.0]),
    "OnlyPaddingReturnsZeros": ([1, 0, 2, 1], [1, 1, 1, 1], (1, 1), [(1, 1), (1, 1)], (1, 1), [1, 2, 4, 1],
                                [0.0] * 8, [], [0.0]),
    "2x2FilterDilation": ([1, 2, 3, 3], [2, 2, 3, 3], (1, 1), "VALID", (1, 2), [1, 1, 1, 3],
                          [2667.0, 2781.0, 2895.0],
                          [14.0, 32.0, 50.0, 0.0, 0.0, 0.0, 68.0, 86.0, 104.0, 122.0, 140.0, 158.0, 0.0, 0.0, 0.0,
                           176.0, 194.0, 212.0],
                          [1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 3.0, 6.0, 9.0, 7.0, 14.0, 21.0, 8.0, 16.0, 24.0, 9.0, 18.0,
                           27.0, 10.0, 20.0, 30.0, 11.0, 22.0, 33.0, 12.0, 24.0, 36.0, 16.0, 32.0, 48.0, 17.0, 34.0,
                           51.0, 18.0, 36.0, 54.0]),
    "1x2FilterDilation": ([1, 2, 3, 3], [1, 2, 3, 3], (1, 1), "VALID", (2, 1), [1, 2, 2, 3],
                          [231.0, 252.0, 273.0, 384.0, 423.0, 462.0, 690.0, 765.0, 840.0, 843.0, 936.0, 1029.0],
                          [14.0, 32.0, 50.0, 100.0, 163.0, 226.0, 167.0, 212.0, 257.0, 50.0, 122.0, 194.0, 334.0,
                           505.0, 676.0, 365.0, 464.0, 563.0],
                          [217.0, 245.0, 273.0, 239.0, 271.0, 303.0, 261.0, 297.0, 333.0, 283.0, 323.0, 363.0, 305.0,
                           349.0, 393.0, 327.0, 375.0, 423.0]),
    "2x2Filter2x1Dilation": ([1, 4, 4, 1], [2, 2, 1, 1], (1, 1), "VALID", (2, 1), [1, 2, 3, 1],
                             [72.0, 82.0, 92.0, 112.0, 122.0, 132.0],
                             [1.0, 4.0, 7.0, 6.0, 4.0, 13.0, 16.0, 12.0, 3.0, 10.0, 17.0, 12.0, 12.0, 31.0, 38.0, 24.0],
                             [106.0, 127.0, 274.0, 295.0]),
}


@pytest.mark.parametrize("name", list(_CONV))
def test_conv2d_values_and_gradients(name):
    """Conv2DTest.testConv2D<name> (KernelSmallerThanStrideSame's three configurations as _a, _b, _c;
    testConv2dOnlyPaddingReturnsZeros: an input of 0 rows padded by 1 on every side gives zeros): TF's output, and
    its x and w gradients for the upstream 1, 2, 3, ...; the dilated ones also by the forward mode's pairing."""
    xs, ws, strides, padding, dilations, y_shape, want_y, want_dx, want_dw = _CONV[name]
    x, w = tj.constant(_count(xs)), tj.constant(_count(ws))

    def conv(a, b):
        return tj.nn.conv(a, b, strides, padding if isinstance(padding, str) else tuple(padding),
                          rhs_dilation=dilations, dimension_numbers=("NHWC", "HWIO", "NHWC"))

    with tj.GradientTape() as tape:
        tape.watch([x, w])
        y = conv(x, w)
    assert y.shape == tuple(y_shape) and y.dtype == np.float32
    _close(y, want_y, 1e-6)
    dx, dw = tape.gradient(y, [x, w], output_gradients=_count(y_shape))
    assert dx.shape == tuple(xs) and dw.shape == tuple(ws)
    _close(dx, want_dx, 1e-6)
    _close(dw, want_dw, 1e-6)
    if dilations != (1, 1):
        tx = np.sin(np.arange(int(np.prod(xs))) * 0.3).reshape(xs).astype(np.float32)
        with tj.ForwardAccumulator(x, tj.constant(tx)) as acc:
            y = conv(x, w)
        want_dx = np.asarray(want_dx, np.float32).reshape(xs)
        np.testing.assert_allclose(np.sum(acc.jvp(y).numpy() * _count(y_shape), dtype=np.float64),
                                   np.sum(tx * want_dx, dtype=np.float64), rtol=1e-5)


def test_conv2d_1x1_filter_int32():
    """testConv2D1x1Filter's int32 case (_VerifyValues adds int32 for NHWC): TF's conv2d keeps int32."""
    out = tj.nn.conv(_count([1, 2, 3, 3], np.int32), _count([1, 1, 3, 3], np.int32), (1, 1), "VALID",
                     dimension_numbers=("NHWC", "HWIO", "NHWC"))
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out.numpy().ravel(), _CONV["1x1Filter"][6])
