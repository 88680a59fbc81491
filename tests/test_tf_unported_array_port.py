"""TensorFlow array-op kernel tests not ported before, ported to tapejax's ``tj.numpy`` and Tensor indexing.

Sources (tensorflow/python/kernel_tests/): array_ops/slice_op_test.py (SliceTest, all of it was unported),
array_ops/reshape_op_test.py (ReshapeTest, all unported), array_ops/gather_op_test.py (testScalar1D,
testScalar2D, testSimpleTwoD32, testUInt32AndUInt64, testEmptySlices, testBatchDimsMatchesPythonBatching),
array_ops/concat_op_test.py (testConcatLargeNumberOfTensors), array_ops/split_op_test.py (testSplitVBigTensors,
testSpecialCasesVariable's _testHugeNumberOfTensorsVariable, testInt8SizeSplits*), array_ops/pad_op_test.py
(testPaddingsDim2, testPaddingsDim4, testIntTypes' uint8/int64 and testFloatTypes' float16/float64/bfloat16),
math_ops/transpose_op_test.py (testRank1, testDouble, testComplex128, testInt64, testBfloat16),
scan_ops_test.py (CumsumTest/CumprodTest testAxisType, test6D, testLarge and the float64/int64/complex128
dtypes of test1D/test2D/test3D) and array_ops/array_ops_test.py (BatchMatrixTransposeTest's
*DynamicallyDefined, ReverseV2Test.testInvalid, MeshgridTest.testCompare, ShapeSizeRankTest.testDenseShape,
SliceAssignTest.testInvalidSlice and testTensorStridedSliceUpdate* as ``Tensor.at[...].set``, PadTest.testEager).

TF ops map to tj.numpy: tf.slice(x, begin, size) -> ``x[begin:begin + size]`` (size -1: to the end),
tf.reshape -> reshape, tf.gather -> take (batch_dims -> advanced indexing), tf.split(x, sizes) ->
split(x, cumulative indices), tf.reverse -> flip, tf.shape/size/rank -> shape/size/ndim,
gen_array_ops.tensor_strided_slice_update -> ``x.at[index].set(updates)``. Expected values are TF 2.21's (the
same programs run in TF), hard-coded; where TF's test asserts an identity with NumPy (``tf.slice(x, b, s) ==
x[b:b+s]``) the identity is kept, on inputs for which TF 2.21 was checked to satisfy it. TensorFlow is not
imported. float64/int64/complex128 cases run under ``jax.enable_x64(True)`` inside their test only.

Left out, by reason:
- TF1 graphs, placeholders, unknown static shapes, TensorSpec(None) signatures: ConcatOpTest.
  testShapeWithUnknownConcatDim; SplitOpTest.testShapeInference, testFailWithoutExplicitNum, testOutputShape,
  testNonexistentDimTensor; ReshapeTest.testPartialShapes; PadOpTest.testShapeFunctionEdgeCases,
  testPartialShapeInformation; GatherTest.testUnknownIndices, testUnknownAxis; SliceTest.testNotIterable's graph
  mode (ported eagerly) and testComputedShape's placeholder half; BooleanMaskTest.
  testWorksWithDimensionsEqualToNoneDuringGraphBuild, testMaskDimensionsSetToNoneRaises,
  testMaskWithAxisNonConstTensor (a boolean mask has a data-dependent shape: no jit); StridedSliceShapeTest.
  testUnknown.
- TF-only arguments or semantics with no jax.numpy counterpart: tf.slice's size checks (SliceTest.
  testOutOfBoundsSizeWithConstantInput; a Python slice clamps in TF and NumPy alike); tf.split's size_splits with
  -1, num= and size checks (SplitOpTest.testExplicitNum, testVariableShapeFunction, testSingleSplitWithMinusOne,
  testNegativeSizes, testBadSplitSizes, testScalarSizeSplitsRaises); cumsum/cumprod exclusive= and reverse=
  (testGradientReverse, testGradientExclusive, testGradientExclusiveReverse, the exclusive/reverse halves of
  _compareAll and testGradient2D); tf.gather's batch_dims bounds (testBatchDimsExtremeBounds); tf.size's out_type
  (ShapeSizeRankTest.testSizeDtype); expand_dims with a list axis (OperatorShapeTest.testExpandDimsWithNonScalarDim:
  jax.numpy takes a tuple of axes); boolean_mask's scalar-mask error (testMaskIsScalarRaises: ``x[True]`` is
  NumPy's new axis); TF's dtype-matching rule for slice bounds (test_int16_indices' raising half); pad_width
  broadcasting, where jax.numpy/NumPy accept what TF rejects (PadOpTest.testInputDims, testPaddingsDim,
  testPaddingsDim3: ``(before, after)`` for every axis) and reflect/symmetric padding wider than the axis
  (testPaddingsMaximum: NumPy's repeated reflection); TF's rank limit of 254
  (OperatorShapeTest.testReshapeWithManyDims, an implementation limit).
- int64 sizes beyond memory or int32: ReshapeTest.testInt64Shape (a 2.5 GB tensor), SplitOpTest.
  testSizeSplitsOverflowRaises, testInputSizeAboveSizeSplitsTypeRaises, testShapeFunctionRejectsSizeSplitsOverflow.
- String tensors, quantized types, TensorList, resources, IndexedSlices, TF types: GatherTest.testString,
  PadOpTest.testString, testQuantizedTypes, BooleanMaskTest.testStringMask, TileVariantTest, ConcatSliceResourceTest,
  ReshapeTest.testTensorShape (TensorShape/Dimension), StridedSliceTest.testSliceWithUndefinedDimension,
  GatherTest.testGatherRefVariable (TF1 RefVariable).
- Raw gen_array_ops kernels without a tj.numpy op: ConcatOffsetTest, StridedSliceGradTypeTest (strided_slice_grad),
  PadTest.testInvalidMirrorPadGrad*, SnapshotOpTest, GuaranteeConstOpTest.
- Variable sliced assignment (``v[...].assign``, not in API.md): SliceAssignTest.testSliceAssign*,
  testTypeError*.
- GPU-only or device/memory specific: TransposeTest.test3DGPU/test4DGPU/test5DGPU/testLargeSizeGPU/
  testRandomizedSmallDimLargeSizeGPU, StridedSliceTest.testInt64GPU, IdentityTest.testEagerIdentity,
  StridedSliceTest.testTensorSliceEagerMemory/testVariableSliceEagerMemory (TF's Python-garbage assertions).
- Outside the brief's array_ops_test parts (not strided slice/getitem/reverse/shape/gradient) and with no
  tj.numpy op: SequenceMaskTest, InvertPermutationTest, UnravelIndexTest, QuantizeAndDequantizeTest,
  SortedSearchTest, BatchGatherNdTest, IdentityTest.testIdentityVariable.
Already ported elsewhere (tests/test_tf_array_ops_port.py, test_tf_tape_array_port.py, test_tf_math_ops_port.py):
the rest of concat/split/pad/gather/transpose/scan and array_ops_test's strided slice, boolean mask (its
testMaskDim1ArrDim2/testMaskDim2ArrDim2/testMaskDim2ArrDim3 shapes are cases there), reverse and repeat tests.
"""
from __future__ import annotations

import jax
import ml_dtypes
import numpy as np
import pytest

import tapejax as tj
from conftest import jacobian_matrix as _jacobian, tape_value_and_gradient as _grad

tnp = tj.numpy
# int64 index/shape Tensors (as TF's tests) are int32 with JAX's x64 off, as API.md says
pytestmark = pytest.mark.filterwarnings("ignore:Explicitly requested dtype")


def _linear_jacobian(np_f, x):
    """The Jacobian of a linear ``np_f`` at ``x`` (np_f of each basis vector), as TF's gradient checker's."""
    cols = []
    for j in range(x.size):
        e = np.zeros(x.size, x.dtype)
        e[j] = 1
        cols.append(np.asarray(np_f(e.reshape(x.shape))).reshape(-1))
    return np.stack(cols, axis=1)


# -- slice_op_test.py (SliceTest) ----------------------------------------------------------------------------

def test_slice_empty_and_int32():
    # SliceTest.testEmpty / testInt32: a[2, k:k] of a 4x4 float32 / int32 tensor is empty (shape (0,))
    rng = np.random.RandomState(0)
    for inp in (rng.rand(4, 4).astype("f"), (rng.rand(4, 4) * 10).astype("i")):
        a = tj.constant(inp)
        for k in range(4):
            got = a[2, k:k]
            assert got.shape == (0,) and got.dtype == inp.dtype


def test_slicing_with_int64_index():
    # SliceTest.testSlicingWithInt64Index: an int64 Tensor and an np.int64 as index and slice bounds of an int32
    # tensor; tf.slice(a, int64 [1], int64 [2]) is [1, 2] (int32 and float32). TF: a[i] = 1, a[i:i+1] = [1]
    a = tj.constant([0, 1, 2], dtype=tj.int32)
    for i in (tj.constant(1, dtype=tj.int64), np.asarray(1).astype(np.int64)):
        assert a[i].shape == () and int(a[i].numpy()) == 1
        np.testing.assert_array_equal(a[i:i + 1].numpy(), [1])
    b, s = np.asarray([1]).astype(np.int64), np.asarray([2]).astype(np.int64)
    for dtype, want in ((tj.int32, np.array([1, 2], np.int32)), (tj.float32, np.array([1.0, 2.0], np.float32))):
        got = tj.constant([0, 1, 2], dtype=dtype)[b[0]:b[0] + s[0]]
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.numpy(), want)


def test_slicing_int64_tensor():
    # SliceTest.testSlicingInt64Tensor (int64 tensor, x64 on): int32 Tensor / np.int32 index; tf.slice(a, [1], [2])
    with jax.enable_x64(True):
        a = tj.constant([0, 1, 2], dtype=tj.int64)
        assert a.dtype == np.int64
        for i in (tj.constant(1, dtype=tj.int32), np.asarray(1).astype(np.int32)):
            assert a[i].dtype == np.int64 and int(a[i].numpy()) == 1
            np.testing.assert_array_equal(a[i:i + 1].numpy(), [1])
        got = a[1:1 + 2]
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got.numpy(), [1, 2])


def test_slice_select_all_single_dimension_and_single_element():
    # SliceTest.testSelectAll (tf.slice(a, [0]*4, [-1]*4) and a[:, :, :, :] are a), testSingleDimension (a[hi],
    # a[lo:hi]), testSingleElementAll (a[x, 0:y]), testSliceMatrixDim0 (tf.slice(x, [b, 0], [s, cols]))
    rng = np.random.RandomState(1)
    inp = rng.rand(4, 4, 4, 4).astype("f")
    a = tj.constant(inp)
    for got in (a[0:, 0:, 0:, 0:], a[:, :, :, :]):
        assert got.shape == (4, 4, 4, 4)
        np.testing.assert_array_equal(got.numpy(), inp)
    v = rng.rand(10).astype("f")
    t = tj.constant(v)
    for hi, lo in ((0, 0), (5, 2), (8, 0), (8, 7)):
        assert t[hi].shape == () and t[hi].numpy() == v[hi]
        np.testing.assert_array_equal(t[lo:hi].numpy(), v[lo:hi])
    m = rng.rand(4, 4).astype("f")
    for x, y in ((0, 0), (1, 2), (2, 1), (2, 2)):
        np.testing.assert_array_equal(tj.constant(m)[x, 0:y].numpy(), m[x, 0:y])
    for x in (rng.rand(8, 4).astype("f"), rng.rand(8, 7).astype("f")):  # 7 * sizeof(float) is not aligned
        for begin, size in ((1, 2), (3, 3)):
            got = tj.constant(x)[begin:begin + size, 0:x.shape[1]]
            assert got.shape == (size, x.shape[1])
            np.testing.assert_array_equal(got.numpy(), x[begin:begin + size, :])


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.uint16, np.int16, np.int32, np.bool_, np.float16,
                                   np.float32, np.complex64, ml_dtypes.bfloat16, ml_dtypes.float8_e5m2,
                                   ml_dtypes.float8_e4m3fn])
def test_slice_simple(dtype):
    # SliceTest.testSimple: tf.slice(a, [0, 0], [2, 2]) and a[:2, :2] (TF builds a float32 tensor from the dtype's
    # values; here the tensor has the dtype itself, too)
    inp = np.random.RandomState(2).rand(4, 4).astype(dtype)
    for x in (np.array([float(np.real(v)) for v in inp.ravel()], np.float32).reshape(4, 4), inp):
        a = tj.constant(x)
        for got in (a[0:2, 0:2], a[:2, :2]):
            assert got.shape == (2, 2) and got.dtype == x.dtype
            np.testing.assert_array_equal(got.numpy(), x[:2, :2])


def test_slice_complex_random_and_of_slice():
    # SliceTest.testComplex (a[:, x, y:z, :] of a rank-4 tensor), testRandom (rank-6 slices, fixed seed; TF checked
    # with these shapes and bounds), testSliceOfSlice (2 * d - c[1, :] + a[2, :] - 2 * b[-2, :] == [0, 0, 0])
    rng = np.random.RandomState(3)
    inp = rng.rand(4, 10, 10, 4).astype("f")
    for x, y, z in ((3, 2, 7), (0, 0, 0), (8, 0, 8)):
        np.testing.assert_array_equal(tj.constant(inp)[:, x, y:z, :].numpy(), inp[:, x, y:z, :])
    for shape, begin, size in [((5, 3, 0, 4, 2, 6), (2, 1, 0, 3, 0, 1), (3, 2, 0, 1, 2, 4)),
                               ((2, 7, 3, 1, 5, 4), (1, 0, 2, 0, 4, 3), (1, 7, 1, 1, 0, 1))]:
        x = rng.rand(*shape).astype("f")
        spec = tuple(slice(b, b + s) for b, s in zip(begin, size))
        got = tj.constant(x)[spec]
        assert got.shape == size
        np.testing.assert_array_equal(got.numpy(), x[spec])
    a = tj.constant([[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]])
    b = a[1:, :]
    c = b[:-1, :]
    d = c[1, :]
    np.testing.assert_array_equal((2 * d - c[1, :] + a[2, :] - 2 * b[-2, :]).numpy(), [0, 0, 0])


def test_slice_partial_and_computed_shapes():
    # SliceTest.testPartialShapeInference: slices of zeros((1, 2, 3)) (sizes -1, and a bound computed from a
    # Tensor, constant(1) + 0) have shape [1, 2, 3]; testComputedShape: tf.slice(a, [begin, 0], [size, 2]) with
    # begin = constant(0), size = constant(1) has shape [1, 2] (values [[1, 2]])
    z = tnp.zeros((1, 2, 3))
    assert z[0:, 0:, 0:].shape == (1, 2, 3)
    assert z[0:tj.constant(1) + 0, 0:2, 0:].shape == (1, 2, 3)
    a = tj.constant([[1, 2, 3], [4, 5, 6]])
    begin, size = tj.constant(0), tj.constant(1)
    got = a[begin:begin + size, 0:2]
    assert got.shape == (1, 2)
    np.testing.assert_array_equal(got.numpy(), [[1, 2]])


def test_slice_3d_of_conv3d():
    # SliceTest.test3Dimension: tf.slice(conv3d(a, f, strides 1, VALID), [0, 1, 1, 1, 0], [1, 1, 1, 1, 8]) with
    # a = i / N (i = 1..N) of shape [8, 16, 16, 16, 8] (NDHWC) and f = j / 64 of shape [1, 1, 1, 8, 8] (DHWIO);
    # tj.nn.conv is NCDHW / OIDHW (jax.lax's defaults)
    shape = (8, 16, 16, 16, 8)
    n = int(np.prod(shape))
    a = (np.arange(1, n + 1, dtype=np.float64) / n).astype(np.float32).reshape(shape)
    f = (np.arange(1, 65, dtype=np.float64) / 64).astype(np.float32).reshape(1, 1, 1, 8, 8)
    out = tj.nn.conv(np.transpose(a, (0, 4, 1, 2, 3)), np.transpose(f, (4, 3, 0, 1, 2)), (1, 1, 1), "VALID")
    got = tnp.transpose(out, (0, 2, 3, 4, 1))[0:1, 1:2, 1:2, 1:2, 0:8]
    want = [0.03028321, 0.03132677, 0.03237033, 0.03341389, 0.03445745, 0.035501, 0.03654456, 0.03758812]
    np.testing.assert_allclose(got.numpy().ravel(), want, rtol=1e-6)


def test_slice_scalar_input_and_invalid_index():
    # SliceTest.testScalarInput: constant(0)[:] raises ("Attempting to slice scalar input", InvalidArgumentError);
    # testInvalidIndex: constant([1, 2])[1:, 1:] raises ("Index out of range using input dim 1"). ValueError is
    # TF's class; IndexError (too many indices) is NumPy's, which API.md's indexing follows
    for fn in (lambda t: t[:], tj.function(lambda t: t[:])):
        with pytest.raises((ValueError, IndexError)):
            fn(tj.constant(0))
    for fn in (lambda t: t[1:, 1:], tj.function(lambda t: t[1:, 1:])):
        with pytest.raises((ValueError, IndexError)):
            fn(tj.constant([1, 2]))


def test_slice_not_iterable_scalar():
    # SliceTest.testNotIterable (eagerly: TF raises TypeError "Cannot iterate over a scalar tensor.")
    with pytest.raises(TypeError):
        for _ in tj.constant(5.0):
            pass


@pytest.mark.parametrize("shape, begin, size", [((4, 4), (1, 1), (2, 2)), ((4, 4), (0, 0), (2, 2)),
                                                ((4, 4), (2, 1), (1, 2)), ((3, 3, 3), (0, 1, 0), (2, 1, 1))])
def test_slice_gradients_all(shape, begin, size):
    # SliceTest.testGradientsAll / testGradientsAllTape (_testGradientSlice[Tape]): the gradient of tf.slice with
    # output gradient `grads` is `grads` placed at the slice in zeros (tape, and tj.gradients in tj.function as the
    # graph-mode test); and its Jacobian is the slice of the identity
    rng = np.random.RandomState(4)
    inp = rng.rand(*shape).astype("f")
    grads = rng.rand(*size).astype("f")
    spec = tuple(slice(b, b + s) for b, s in zip(begin, size))
    want = np.zeros(shape, np.float32)
    want[spec] = grads
    y, g = _grad(lambda t: t[spec], inp, grads)
    np.testing.assert_array_equal(y.numpy(), inp[spec])
    np.testing.assert_array_equal(g.numpy(), want)
    g2 = tj.function(lambda t, dy: tj.gradients(t[spec], [t], [dy])[0])(tj.constant(inp), tj.constant(grads))
    np.testing.assert_array_equal(g2.numpy(), want)
    np.testing.assert_array_equal(_jacobian(lambda t: t[spec], inp), _linear_jacobian(lambda e: e[spec], inp))


def test_slice_gradient_variable_size():
    # SliceTest._testGradientVariableSize[Tape]: tf.slice([1., 2., 3.], [1], [-1]) -> gradient [0, 1, 1];
    # _testGradientVariableSize2D[Tape]: x[:-1, :-1] * 1.0 and x[:-1][:, :-1] have the same gradient
    # (TF: [[1, 1, 0], [1, 1, 0], [0, 0, 0]])
    _, g = _grad(lambda t: t[1:], np.array([1.0, 2.0, 3.0], np.float32))
    np.testing.assert_array_equal(g.numpy(), [0.0, 1.0, 1.0])
    x = tj.constant([[1., 2., 3.], [4., 5., 6.], [7., 8., 7]])
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        loss1 = tnp.sum(x[:-1, :-1] * 1.0)
        loss2 = tnp.sum(x[:-1][:, :-1])
    want = [[1, 1, 0], [1, 1, 0], [0, 0, 0]]
    np.testing.assert_array_equal(tape.gradient(loss1, x).numpy(), want)
    np.testing.assert_array_equal(tape.gradient(loss2, x).numpy(), want)
    g = tj.function(lambda t: tj.gradients(tnp.sum(t[:-1][:, :-1]), [t])[0])(x)
    np.testing.assert_array_equal(g.numpy(), want)


# -- reshape_op_test.py (ReshapeTest) ------------------------------------------------------------------------

@pytest.mark.parametrize("x, shape", [
    (np.arange(1., 7.).reshape([1, 6]) > 3, [2, 3]),  # testBoolBasic
    (np.arange(1., 7.).reshape([1, 6]).astype(np.float32), [2, 3]),  # testFloatBasic
    (np.arange(1., 7.).reshape([1, 6]).astype(np.float16), [2, 3]),  # testFloat16Basic
    (np.arange(1., 7.).reshape([1, 6]).astype(ml_dtypes.bfloat16), [2, 3]),  # testBfloat16Basic
    (np.arange(1., 7.).reshape([1, 6]).astype(np.int32), [2, 3]),  # testInt32Basic
    (np.arange(1., 7.).reshape([1, 6]).astype(np.complex64), [2, 3]),  # testComplex64Basic
    (np.arange(1., 28.).reshape([1, 27]).astype(np.float32), [3, 3, 3]),  # testFloatReshapeThreeDimensions
    (np.arange(1., 7.).reshape([6]).astype(np.float32), [-1]),  # testFloatUnspecifiedDimOnly
    (np.arange(1., 7.).reshape([6]).astype(np.float32), [-1, 2]),  # testFloatUnspecifiedDimBegin
    (np.arange(1., 7.).reshape([6]).astype(np.float32), [3, -1]),  # testFloatUnspecifiedDimEnd
    (np.zeros([0, 6]).astype(np.float32), [0, 2, 3]),  # testZeroDimBasic
    (np.zeros([0, 6]).astype(np.float32), [-1]),  # testZeroDimReshapeR1: TF (0,)
    (np.zeros([0, 6]).astype(np.float32), [-1, 2, 3]),  # testZeroDimReshapeR3: TF (0, 2, 3)
])
def test_reshape_basic(x, shape):
    # ReshapeTest._testReshape: reshape(x, y) == x.reshape(y), the shape given as a list and as an int64 Tensor
    want = x.reshape(shape)
    for s in (shape, tj.constant(shape, dtype=tj.int64)):
        got = tnp.reshape(x, s)
        assert got.shape == want.shape and got.dtype == x.dtype
        np.testing.assert_array_equal(got.numpy(), want)
    got = tj.function(lambda t: tnp.reshape(t, shape))(tj.constant(x))
    np.testing.assert_array_equal(got.numpy(), want)


def test_reshape_x64_basic():
    # ReshapeTest.testDoubleBasic / testComplex128Basic (x64 on)
    with jax.enable_x64(True):
        for dtype in (np.float64, np.complex128):
            x = np.arange(1., 7.).reshape([1, 6]).astype(dtype)
            got = tnp.reshape(x, [2, 3])
            assert got.dtype == dtype
            np.testing.assert_array_equal(got.numpy(), [[1, 2, 3], [4, 5, 6]])


@pytest.mark.parametrize("shape, want", [([1, 2, 3, 0], (1, 2, 3, 0)), ([1, 0, 0, 4], (1, 0, 0, 4)),
                                         ([0, 0, 0, 0], (0, 0, 0, 0)), ([1, 2, 0], (1, 2, 0)),
                                         ([0, 0, 0], (0, 0, 0)), ([1, -1, 5], (1, 0, 5))])
def test_reshape_float_empty(shape, want):
    # ReshapeTest.testFloatEmpty: reshapes of an empty (0, 0, 0, 0) tensor; TF: [1, -1, 5] gives (1, 0, 5)
    assert tnp.reshape(np.empty((0, 0, 0, 0), np.float32), shape).shape == want


def test_reshape_zero_dim_with_unspecified_dim():
    # ReshapeTest.testZeroDimWithUnspecifiedDim: TF infers the -1 from the non-zero sizes (6 / 3 = 2)
    assert tnp.reshape(np.zeros([0, 6], np.float32), [0, -1, 3]).shape == (0, 2, 3)


def test_reshape_gradient_three_dimensions():
    # ReshapeTest.testFloatReshapeGradThreeDimensions: gradient checker of reshape(x, [1, 8, 3]) (x = 1..24 of
    # shape (2, 3, 4)): the Jacobian is the identity; with an output gradient dy the gradient is dy reshaped back
    x = np.arange(1., 25.).reshape([2, 3, 4]).astype(np.float32)
    np.testing.assert_array_equal(_jacobian(lambda t: tnp.reshape(t, [1, 8, 3]), x), np.eye(24))
    dy = np.arange(24, dtype=np.float32).reshape(1, 8, 3) / 4
    _, g = _grad(lambda t: tnp.reshape(t, [1, 8, 3]), x, dy)
    np.testing.assert_array_equal(g.numpy(), dy.reshape(2, 3, 4))
    g = tj.function(lambda t, d: tj.gradients(tnp.reshape(t, [1, 8, 3]), [t], [d])[0])(tj.constant(x), dy)
    np.testing.assert_array_equal(g.numpy(), dy.reshape(2, 3, 4))


def test_reshape_errors():
    # ReshapeTest.testErrors: [23, 29, 31] to [17, -1] ("must be evenly divisible by 17") and [32, 128] to [4095]
    # ("Cannot reshape a tensor with 4096 elements"): ValueError in graph mode, InvalidArgumentError eagerly;
    # testTooLargeShape: reshape([1], [21943, 45817, 30516, 61760, 38987]) ("too many elements")
    with pytest.raises(ValueError):
        tnp.reshape(tnp.zeros([23, 29, 31]), [17, -1])
    with pytest.raises(ValueError):
        tnp.reshape(tnp.zeros([32, 128]), [4095])
    for shape in (np.array([21943, 45817, 30516, 61760, 38987]), tj.constant([21943, 45817, 30516, 61760, 38987])):
        with pytest.raises(ValueError):
            tnp.reshape(tj.constant([1]), shape)


# -- gather_op_test.py (GatherTest) --------------------------------------------------------------------------

GATHER_DTYPES = [np.int32, ml_dtypes.bfloat16, np.float32, np.complex64, ml_dtypes.float8_e5m2,
                 ml_dtypes.float8_e4m3fn]  # TF's _TEST_TYPES with int64 -> int32 (x64 off); int64 and
INDEX_DTYPES = [np.int16, np.int32, np.int64]  # complex128 are in test_gather_x64_dtypes


def _build_params(data, dtype):
    data = data.astype(dtype)
    return data + 10j * data if np.dtype(dtype).kind == "c" else data


def _as_f64(x):
    return np.asarray(x).astype(np.complex128 if np.iscomplexobj(x) else np.float64)


@pytest.mark.parametrize("dtype", GATHER_DTYPES)
def test_gather_scalar_1d_2d_and_simple_two_d(dtype):
    # GatherTest.testScalar1D (indices 4 and [1, 2, 2, 4, 5]), testScalar2D (a scalar index 2 along each axis),
    # testSimpleTwoD32 (indices [0, 1, 0, 2] along each axis), for each index dtype; tf.gather is take
    data1 = _build_params(np.array([0, 1, 2, 3, 7, 5]), dtype)
    data2 = _build_params(np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11], [12, 13, 14]]), dtype)
    for itype in INDEX_DTYPES:
        params = tj.constant(data1)
        got = tnp.take(params, tj.constant(4, dtype=itype))
        assert got.shape == () and got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(_as_f64(got.numpy()), _as_f64(data1[4]))
        got = tnp.take(params, tj.constant([1, 2, 2, 4, 5], dtype=itype))
        assert got.shape == (5,)
        np.testing.assert_array_equal(_as_f64(got.numpy()), _as_f64(data1[[1, 2, 2, 4, 5]]))
        params = tj.constant(data2)
        for axis in range(2):
            got = tnp.take(params, tj.constant(2, dtype=itype), axis=axis)
            assert got.shape == data2.shape[:axis] + data2.shape[axis + 1:]
            np.testing.assert_array_equal(_as_f64(got.numpy()), _as_f64(np.take(data2, 2, axis=axis)))
            got = tnp.take(params, tj.constant([0, 1, 0, 2], dtype=itype), axis=axis)
            assert got.shape == data2.shape[:axis] + (4,) + data2.shape[axis + 1:]
            np.testing.assert_array_equal(_as_f64(got.numpy()), _as_f64(np.take(data2, [0, 1, 0, 2], axis=axis)))


def test_gather_x64_dtypes_and_unsigned():
    # GatherTest's int64 / complex128 params and int64 indices (x64 on), and testUInt32AndUInt64:
    # gather([[1, 2, 3], [7, 8, 9]], 1, axis=0) = [7, 8, 9], gather(..., 0, axis=1) = [1, 7]
    with jax.enable_x64(True):
        for dtype in (np.int64, np.complex128):
            data = _build_params(np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11], [12, 13, 14]]), dtype)
            got = tnp.take(tj.constant(data), tj.constant([0, 1, 0, 2], dtype=tj.int64), axis=1)
            assert got.dtype == dtype
            np.testing.assert_array_equal(got.numpy(), np.take(data, [0, 1, 0, 2], axis=1))
        for dtype in (np.uint32, np.uint64):
            params = tj.constant(np.array([[1, 2, 3], [7, 8, 9]], dtype))
            assert tnp.take(params, 1, axis=0).dtype == dtype
            np.testing.assert_array_equal(tnp.take(params, 1, axis=0).numpy(), [7, 8, 9])
            np.testing.assert_array_equal(tnp.take(params, 0, axis=1).numpy(), [1, 7])


@pytest.mark.parametrize("dtype", GATHER_DTYPES + [np.uint32])
def test_gather_empty_slices(dtype):
    # GatherTest.testEmptySlices: indices [3, 4] along the axis of size 7 of (7, 0, 0), (0, 7, 0), (0, 0, 7)
    for itype in INDEX_DTYPES:
        indices = np.array([3, 4], dtype=itype)
        assert tnp.take(np.zeros((7, 0, 0), dtype), indices, axis=0).shape == (2, 0, 0)
        assert tnp.take(np.zeros((0, 7, 0), dtype), indices, axis=1).shape == (0, 2, 0)
        assert tnp.take(np.zeros((0, 0, 7), dtype), indices, axis=2).shape == (0, 0, 2)


def _batch_gather(params, indices, axis, batch_dims):
    """tf.gather(params, indices, axis=axis, batch_dims=batch_dims) by advanced indexing: the batch axes index
    themselves (aranges), the gathered axis takes ``indices`` past its batch axes."""
    indices = np.asarray(indices)
    rest = indices.ndim - batch_dims
    nd = batch_dims + (axis - batch_dims) + rest
    parts = []
    for k in range(axis):
        shape = [1] * nd
        shape[k] = params.shape[k]
        parts.append(np.arange(params.shape[k]).reshape(shape))
    parts.append(indices.reshape(indices.shape[:batch_dims] + (1,) * (axis - batch_dims) + indices.shape[batch_dims:]))
    return params[tuple(parts)]


def _batch_numpy_gather(params, indices, axis, batch_dims):
    """GatherTest._batchNumpyGather: repeated np.take over the batch axes."""
    if batch_dims == 0:
        return np.take(params, indices, axis=axis)
    return np.stack([_batch_numpy_gather(params[i], indices[i], axis - 1, batch_dims - 1)
                     for i in range(params.shape[0])])


@pytest.mark.parametrize("axis, output_shape", [
    (2, [2, 3, 2, 3, 5, 6, 7]), (3, [2, 3, 4, 2, 3, 6, 7]), (4, [2, 3, 4, 5, 2, 3, 7]), (5, [2, 3, 4, 5, 6, 2, 3]),
    (-4, [2, 3, 2, 3, 5, 6, 7]), (-3, [2, 3, 4, 2, 3, 6, 7]), (-2, [2, 3, 4, 5, 2, 3, 7]),
    (-1, [2, 3, 4, 5, 6, 2, 3]),
])
def test_gather_batch_dims_matches_python_batching(axis, output_shape):
    # GatherTest.testBatchDimsMatchesPythonBatching (batch_dims=2, params [2, 3, 4, 5, 6, 7]; indices [2, 3, 2, 3]
    # instead of [2, 3, 8, 9, 10] to keep it small): the result is params.shape[:axis] + indices.shape[2:] +
    # params.shape[axis + 1:], and equals repeated gathers
    params_shape = [2, 3, 4, 5, 6, 7]
    params = np.arange(np.prod(params_shape)).reshape(params_shape).astype(np.int32)
    indices = np.arange(2 * 3 * 2 * 3).reshape([2, 3, 2, 3]) % params_shape[axis]
    a = axis % 6
    got = _batch_gather(tj.constant(params), indices, a, 2)
    assert list(got.shape) == output_shape
    np.testing.assert_array_equal(got.numpy(), _batch_numpy_gather(params, indices, a, 2))


# -- concat_op_test.py / split_op_test.py --------------------------------------------------------------------

@pytest.mark.parametrize("concat_dim", [0, 1])
def test_concat_large_number_of_tensors(concat_dim):
    # ConcatOpTest.testConcatLargeNumberOfTensors (500 tensors of shape [7, 13] on CPU): each input is its block of
    # the result; and the gradient of each input is its block of the output gradient
    rng = np.random.RandomState(5)
    xs = [rng.rand(7, 13).astype(np.float32) for _ in range(500)]
    c = tnp.concatenate(xs, concat_dim)
    assert c.shape == ((3500, 13) if concat_dim == 0 else (7, 6500))
    out = c.numpy()
    for i, x in enumerate(xs):
        block = out[7 * i:7 * (i + 1)] if concat_dim == 0 else out[:, 13 * i:13 * (i + 1)]
        np.testing.assert_array_equal(block, x)
    ts = [tj.constant(x) for x in xs[:50]]
    dy = rng.rand(*np.concatenate(xs[:50], concat_dim).shape).astype(np.float32)
    with tj.GradientTape() as tape:
        tape.watch(ts)
        y = tnp.concatenate(ts, concat_dim)
    gs = tape.gradient(y, ts, output_gradients=dy)
    np.testing.assert_array_equal(np.concatenate([g.numpy() for g in gs], concat_dim), dy)


def test_split_v_big_tensors():
    # SplitOpTest.testSplitVBigTensors ([1, 64, 8] instead of [1, 64, 32768]): size_splits [1] * 64 along axis 1;
    # y[i] == x[:, i:i + 1, :]
    x = np.linspace(1, 64 * 8, 64 * 8, dtype=np.float32).reshape(1, 64, 8)
    ys = tnp.split(x, list(range(1, 64)), axis=1)
    assert len(ys) == 64
    for i, y in enumerate(ys):
        np.testing.assert_array_equal(y.numpy(), x[:, i:i + 1, :])


@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.complex64, ml_dtypes.bfloat16, ml_dtypes.float8_e5m2])
def test_split_huge_number_of_tensors_variable(dtype):
    # SplitOpTest.testSpecialCasesVariable's _testHugeNumberOfTensorsVariable (64 random sizes of 1 or 2 instead of
    # 1000: jax.numpy's split of 1000 sections takes over 10 s to compile here) along axis 1 of [3, sum(sizes)]
    rng = np.random.RandomState(6)
    sizes = rng.randint(1, 3, 64)
    inp = rng.rand(3, int(sizes.sum())).astype(dtype)
    if np.dtype(dtype).kind == "c":
        inp -= 1j * inp
    ys = tnp.split(inp, list(np.cumsum(sizes)[:-1]), 1)
    offset = 0
    for y, s in zip(ys, sizes):
        assert y.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(y.numpy().astype(np.complex64), inp[:, offset:offset + s].astype(np.complex64))
        offset += s


def test_split_int8_size_splits():
    # SplitOpTest.testInt8SizeSplitsShapeFunction / testInt8SizeSplitsExecution / testInt8SizeSplitsInt32Value:
    # split([1., 2., 3.], int8 [1, 2]) is [1.], [2., 3.] (float32 and int32 values); here the split index [1] is
    # an int8 Tensor
    for value, dtype in (([1.0, 2.0, 3.0], np.float32), ([1, 2, 3], np.int32)):
        a, b = tnp.split(tj.constant(value), tj.constant([1], dtype=tj.int8), axis=0)
        assert a.shape == (1,) and b.shape == (2,) and a.dtype == dtype
        np.testing.assert_array_equal(a.numpy(), [1])
        np.testing.assert_array_equal(b.numpy(), [2, 3])


# -- pad_op_test.py ------------------------------------------------------------------------------------------

def test_pad_paddings_shape_errors():
    # PadOpTest.testPaddingsDim2 (paddings of shape [2, 1] for a rank-2 input: "paddings must be a matrix with 2
    # columns") and testPaddingsDim4 (shape [3, 2] for rank 2: "The first dimension of paddings must be the rank
    # of inputs"): InvalidArgumentError in TF 2.21, ValueError here
    x = tnp.reshape(tj.constant([1, 2]), [1, 2])
    with pytest.raises(ValueError):
        tnp.pad(x, tnp.reshape(tj.constant([1, 2]), [2, 1]))
    with pytest.raises(ValueError):
        tnp.pad(x, tnp.reshape(tj.constant([1, 2, 3, 4, 5, 6]), [3, 2]))


def test_pad_eager():
    # PadTest.testEager (array_ops_test.py): pad([[1, 2, 3], [4, 5, 6]], [[1, 1], [2, 2]], "CONSTANT")
    got = tnp.pad(tj.constant([[1, 2, 3], [4, 5, 6]]), tj.constant([[1, 1], [2, 2]]), "constant")
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got.numpy(), [[0, 0, 0, 0, 0, 0, 0], [0, 0, 1, 2, 3, 0, 0], [0, 0, 4, 5, 6, 0, 0],
                                                [0, 0, 0, 0, 0, 0, 0]])


@pytest.mark.parametrize("dtype", [np.uint8, np.int64, np.float16, np.float64, ml_dtypes.bfloat16])
def test_pad_remaining_dtypes(dtype):
    # PadOpTest.testIntTypes (uint8, int64) and testFloatTypes (float16, float64, bfloat16; skipped in TF, whose
    # values TF 2.21 gives all the same): each mode's values are np.pad's; float64 gradients as the checker's
    with jax.enable_x64(True):
        rng = np.random.RandomState(7)
        if np.dtype(dtype).kind in "iu":
            cases = [(rng.randint(0 if dtype == np.uint8 else -100, 100, (4, 4, 3)).astype(dtype),
                      [[1, 0], [2, 3], [0, 2]], 0),
                     (rng.randint(0 if dtype == np.uint8 else -100, 100, (4, 2, 1, 3)).astype(dtype),
                      [[0, 0], [0, 0], [0, 0], [0, 0]], 123 if dtype == np.uint8 else -123)]
        else:
            cases = [(rng.rand(2, 5).astype(dtype), [[1, 0], [2, 0]], 0.0),
                     (rng.rand(2, 3, 4).astype(dtype), [[0, 0], [0, 0], [0, 0]], -12.34),
                     (rng.rand(0, 3, 4).astype(dtype), [[0, 0], [2, 1], [2, 3]], 0.0)]
        for x, paddings, cv in cases:
            for mode in ("constant", "reflect", "symmetric"):
                if x.size == 0 and mode == "reflect":
                    continue
                kw = {"constant_values": cv} if mode == "constant" else {}
                got = tnp.pad(x, paddings, mode=mode, **kw)
                want = np.pad(x, paddings, mode=mode, **({"constant_values": np.asarray(cv).astype(dtype)}
                                                         if mode == "constant" else {}))
                assert got.dtype == np.dtype(dtype)
                np.testing.assert_array_equal(got.numpy().astype(np.float64), want.astype(np.float64))
                if dtype == np.float64 and x.size and x.size < 30:
                    np.testing.assert_array_equal(
                        _jacobian(lambda t: tnp.pad(t, paddings, mode=mode, **kw), x),
                        _linear_jacobian(lambda e: np.pad(e, paddings, mode=mode), x))


# -- transpose_op_test.py ------------------------------------------------------------------------------------

def test_transpose_rank1_and_bfloat16():
    # TransposeTest.testRank1 (transpose(arange(0., 2), [0]), its gradient checker: the identity) and
    # testBfloat16 (the three shapes, default perm and two others)
    x = np.arange(0.0, 2).astype(np.float32)
    np.testing.assert_array_equal(tnp.transpose(x, [0]).numpy(), x)
    np.testing.assert_array_equal(_jacobian(lambda t: tnp.transpose(t, [0]), x), np.eye(2))
    for shape, perm in (([3, 7], [1, 0]), ([2, 3, 5, 7], [2, 0, 3, 1]),
                        ([1, 2, 1, 2, 1, 2, 1, 2], [7, 6, 5, 4, 3, 2, 1, 0])):
        x = np.arange(0, int(np.prod(shape))).reshape(shape).astype(ml_dtypes.bfloat16)
        for p in (None, perm):
            got = tnp.transpose(x, p)
            assert got.dtype == x.dtype
            np.testing.assert_array_equal(got.numpy().astype(np.float32), np.transpose(x, p).astype(np.float32))


@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.int64])
def test_transpose_x64(dtype):
    # TransposeTest.testDouble / testComplex128 / testInt64 (x64 on): values for the default and two permutations,
    # conj for conjugate=True, and the gradient checker (tolerance 1e-6 in TF; exact for a permutation) for the
    # float64 and complex128 cases (a complex output gradient comes back permuted, unconjugated)
    with jax.enable_x64(True):
        shapes = ([3, 7], [2, 3, 5, 7]) if dtype != np.complex128 else ([21], [3, 7], [2, 3, 5, 7])
        for shape in shapes:
            x = np.arange(0, int(np.prod(shape))).reshape(shape).astype(dtype)
            if dtype == np.complex128:
                x = (1 + 2j) * x
            n = x.ndim
            for p in (None, tuple(range(n))[::-1], tuple(np.roll(np.arange(n), 1))):
                got = tnp.transpose(x, p)
                assert got.dtype == dtype
                np.testing.assert_array_equal(got.numpy(), np.transpose(x, p))
                if dtype == np.complex128:
                    np.testing.assert_array_equal(tnp.conj(tnp.transpose(x, p)).numpy(), np.conj(np.transpose(x, p)))
                if dtype != np.int64 and x.size <= 21:
                    dy = np.transpose(x, p) * 0.5 + (1j if dtype == np.complex128 else 0)
                    _, g = _grad(lambda t: tnp.transpose(t, p), x, dy.astype(dtype))
                    assert g.dtype == dtype
                    inv = np.argsort(p) if p is not None else None
                    np.testing.assert_array_equal(g.numpy(), np.transpose(dy, inv))


# -- scan_ops_test.py (CumsumTest / CumprodTest) -------------------------------------------------------------

@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scan_axis_type(name):
    # CumsumTest / CumprodTest.testAxisType: the axis as an int32 or int64 scalar Tensor (TF: [1, 3, 6, 10, 15] and
    # [1, 2, 6, 24, 120] for float32; every valid dtype runs)
    want = {"cumsum": [1, 3, 6, 10, 15], "cumprod": [1, 2, 6, 24, 120]}[name]
    for dtype in (np.int32, np.float16, np.float32, np.complex64):
        x = np.arange(1, 6).reshape([5]).astype(dtype)
        for axis in (tj.constant(0, dtype=tj.int32), tj.constant(0, dtype=tj.int64)):
            got = getattr(tnp, name)(x, axis)
            assert got.dtype == dtype
            np.testing.assert_array_equal(got.numpy(), np.array(want, dtype))
    # inside a traced function, the axis a constant made there (concrete, as TF's graph constants)
    f = tj.function(lambda t: getattr(tnp, name)(t, tj.constant(0, dtype=tj.int64)))
    got = f(np.arange(1., 6., dtype=np.float32))
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scan_6d(name):
    # CumsumTest / CumprodTest.test6D: x = 1..144 of shape [2, 2, 3, 3, 2, 2], axes -6, -3, 0, 3 (products along
    # axis -6 and 0 overflow: inf in float32, wrapped in int32; TF 2.21 equals NumPy there too)
    x = np.arange(1, 145).reshape([2, 2, 3, 3, 2, 2])
    for dtype in (np.int32, np.float32, np.complex64):
        xd = x.astype(dtype)
        for axis in range(-6, 6, 3):
            got = getattr(tnp, name)(xd, axis)
            assert got.dtype == dtype
            np.testing.assert_allclose(got.numpy(), getattr(np, name)(xd, axis=axis), rtol=1e-6)


def test_cumsum_large():
    # CumsumTest.testLarge (exclusive=False, reverse=False): cumsum of ones([1000000]) / 1024 along 0 is
    # k / 1024 exactly (float32 and complex64; TF 2.21 gives 976.5625 last); int32 ones / 1024 are zeros
    for dtype in (np.float32, np.complex64):
        x = np.ones([1000000], dtype=dtype) / 1024
        got = tnp.cumsum(x, 0).numpy()
        assert got[-1] == 976.5625
        np.testing.assert_array_equal(got, np.arange(1, 1000001, dtype=np.float64) / 1024)
    assert not tnp.cumsum((np.ones([1000000], dtype=np.int32) / 1024).astype(np.int32), 0).numpy().any()


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scan_x64_dtypes(name):
    # CumsumTest / CumprodTest.test1D / test2D / test3D with the int64, float64 and complex128 dtypes (x64 on);
    # the gradient checker in float64 (testGradient / testGradient2D, exclusive=False, reverse=False): cumsum's
    # Jacobian is lower-triangular ones, cumprod's prod of the other earlier entries
    with jax.enable_x64(True):
        start = 0 if name == "cumsum" else 1
        for dtype in (np.int64, np.float64, np.complex128):
            for shape, axes in (((5,), (-1, 0)), ((2, 5), (-2, -1, 0, 1)), ((2, 2, 5), (-3, -2, -1, 0, 1, 2))):
                x = (np.arange(int(np.prod(shape))) + start).reshape(shape).astype(dtype)
                for axis in axes:
                    got = getattr(tnp, name)(x, axis)
                    assert got.dtype == dtype
                    np.testing.assert_array_equal(got.numpy(), getattr(np, name)(x, axis=axis))
        x = np.arange(1, 9).astype(np.float64)
        jac = _jacobian(lambda t: getattr(tnp, name)(t, 0), x)
        if name == "cumsum":
            want = np.tril(np.ones((8, 8)))
        else:
            want = np.array([[np.prod([x[k] for k in range(i + 1) if k != j]) if j <= i else 0.0 for j in range(8)]
                             for i in range(8)])
        np.testing.assert_allclose(jac, want, rtol=1e-12)


# -- array_ops_test.py ---------------------------------------------------------------------------------------

def test_matrix_transpose_dynamically_defined():
    # BatchMatrixTransposeTest.testNonBatchMatrixDynamicallyDefined / testBatchMatrixDynamicallyDefined: the
    # matrix transpose inside a traced function
    f = tj.function(tnp.matrix_transpose)
    np.testing.assert_array_equal(f(tj.constant([[1, 2, 3], [4, 5, 6]])).numpy(), [[1, 4], [2, 5], [3, 6]])
    batch = tj.constant([[[1, 2, 3], [4, 5, 6]], [[11, 22, 33], [44, 55, 66]]])
    np.testing.assert_array_equal(f(batch).numpy(), [[[1, 4], [2, 5], [3, 6]], [[11, 44], [22, 55], [33, 66]]])


def test_reverse_invalid_in_function():
    # ReverseV2Test.testInvalid: reverse_v2(x, ax) inside tf.function with ax = [-30] and [2] ("is out of range")
    # and [0, -2] ("axis 0 specified more than once"): ValueError in TF 2.21
    x_np = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)
    f = tj.function(lambda ax: tnp.flip(x_np, ax))
    for ax in ([-30], [2]):
        with pytest.raises(ValueError, match="out of range"):
            f(ax)
    with pytest.raises(ValueError, match="more than once"):
        f([0, -2])
    np.testing.assert_array_equal(f([1, 0]).numpy(), [[6, 5, 4], [3, 2, 1]])


def test_meshgrid_compare():
    # MeshgridTest.testCompare: meshgrid of 2 and 3 inputs (linspace(-10, 10, 5), + 1j for complex) with indexing
    # "ij" and "xy" equals np.meshgrid's, for each dtype (float64/int64/complex128 with x64 on); and of lists
    with jax.enable_x64(True):
        for dtype in (np.float16, np.float32, np.float64, np.int32, np.int64, np.complex64, np.complex128):
            for n in (2, 3):
                x = np.linspace(-10, 10, 5).astype(dtype)
                if np.dtype(dtype).kind == "c":
                    x += 1j
                for indexing in ("ij", "xy"):
                    got = tnp.meshgrid(*([x] * n), indexing=indexing)
                    for g, w in zip(got, np.meshgrid(*([x] * n), indexing=indexing)):
                        assert g.dtype == dtype
                        np.testing.assert_array_equal(g.numpy(), w)
        for indexing, want in (("ij", ([[1, 1], [2, 2], [3, 3]], [[4, 5], [4, 5], [4, 5]])),
                               ("xy", ([[1, 2, 3], [1, 2, 3]], [[4, 4, 4], [5, 5, 5]]))):
            for g, w in zip(tnp.meshgrid([1, 2, 3], [4, 5], indexing=indexing), want):
                np.testing.assert_array_equal(g.numpy(), w)


def test_meshgrid_of_a_2d_input():
    # MeshgridTest.testCompare's _compareDiff(x, a, ...) with a = [[1, 1], [1, 1]] (TF 2.21's values)
    ij = tnp.meshgrid([1, 2, 3], [[1, 1], [1, 1]], indexing="ij")
    np.testing.assert_array_equal(ij[0].numpy(), [[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]])
    np.testing.assert_array_equal(ij[1].numpy(), [[1, 1, 1, 1]] * 3)
    xy = tnp.meshgrid([1, 2, 3], [[1, 1], [1, 1]], indexing="xy")
    np.testing.assert_array_equal(xy[0].numpy(), [[1, 2, 3]] * 4)
    np.testing.assert_array_equal(xy[1].numpy(), [[1, 1, 1]] * 4)


def test_dense_shape_size_rank():
    # ShapeSizeRankTest.testDenseShape: shape (2, 2), size 4, rank 2 of a list and of a Tensor
    for t in ([[0, 42], [24, 0]], tj.constant([[0, 42], [24, 0]])):
        assert tuple(tnp.shape(t)) == (2, 2)
        assert int(tnp.size(t)) == 4
        assert int(tnp.ndim(t)) == 2


def test_slice_of_tensor_has_no_assign():
    # SliceAssignTest.testInvalidSlice: constant([1, 2, 3])[:2].assign(...) raises AttributeError
    with pytest.raises(AttributeError, match="assign"):
        tj.constant([1, 2, 3])[:2].assign(tj.constant([1, 2]))


def test_tensor_strided_slice_update_values():
    # SliceAssignTest.testTensorStridedSliceUpdateWithInputForward[Int32] (in a traced function: (x + 1) with
    # [0:1] set to 0 is [0, 1]) and testTensorStridedSliceUpdateNoInputForward (y + z = [1.6, 2.6])
    for dtype in (tj.float32, tj.int32):
        f = tj.function(lambda x: (x + 1).at[0:1].set(0))
        got = f(tnp.zeros([2], dtype=dtype))
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(got.numpy(), [0, 1])
    y = tj.constant([0.2, 0.3]) + 1
    z = y.at[0:1].set(0.4)
    np.testing.assert_allclose((y + z).numpy(), [1.6, 2.6], rtol=1e-6)


def test_tensor_strided_slice_update_grad_simple():
    # SliceAssignTest.testTensorStridedSliceUpdateGradSimple: d/d(original) = [0, 3], d/d(updates) = [2] for the
    # output gradient [2, 3] (TF 2.21); also inside tj.function
    original, updates = tj.constant([0.2, 0.3]), tj.constant([0.4])
    with tj.GradientTape() as tape:
        tape.watch([original, updates])
        updated = original.at[0:1].set(updates)
    d1, d2 = tape.gradient(updated, [original, updates], output_gradients=tj.constant([2.0, 3.0]))
    np.testing.assert_allclose(d1.numpy(), [0.0, 3.0])
    np.testing.assert_allclose(d2.numpy(), [2.0])

    @tj.function
    def f(o, u):
        with tj.GradientTape() as tape:
            tape.watch([o, u])
            up = o.at[0:1].set(u)
        return tape.gradient(up, [o, u], output_gradients=tj.constant([2.0, 3.0]))

    d1, d2 = f(original, updates)
    np.testing.assert_allclose(d1.numpy(), [0.0, 3.0])
    np.testing.assert_allclose(d2.numpy(), [2.0])


@pytest.mark.parametrize("shape, index, updates_shape", [
    # tensor_strided_slice_update(a, begin, end, strides, b, masks) as indices: ([2, 5], [0, 1], [1, 0], [1, 2],
    # end_mask 2, shrink 1) is a[0, 1::2]; ([4], [5], [3], [1], begin_mask 1) is a[:3]; ([2, 2, 3, 2], [0, 0, 1],
    # [1, 0, 2], [1, 0, 1], ellipsis 2, shrink 5) is a[0, ..., 1]. The Jacobians (TF 2.21's gradient checker,
    # theoretical): d out / d a keeps the entries not updated, d out / d b places b (summed over a broadcast)
    ((2, 5), (0, slice(1, None, 2)), (2,)),
    ((4,), (slice(None, 3),), (3,)),
    ((2, 2, 3, 2), (0, Ellipsis, 1), (2, 3)),
    ((2, 5), (0, slice(1, None, 2)), (1,)),  # ...WithBroadcastingGrad: updates [1], [], [2, 1]
    ((4,), (slice(None, 3),), ()),
    ((2, 2, 3, 2), (0, Ellipsis, 1), (2, 1)),
])
def test_tensor_strided_slice_update_grad(shape, index, updates_shape):
    # SliceAssignTest.testTensorStridedSliceUpdateGrad / testTensorStridedSliceUpdateWithBroadcastingGrad:
    # gradient_checker_v2 of f(a, b) = update(a, index, b) at a = zeros(shape), b = ones(updates_shape)
    a0, b0 = np.zeros(shape, np.float32), np.ones(updates_shape, np.float32)
    a, b = tj.constant(a0), tj.constant(b0)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        y = a.at[index].set(b)
    ja, jb = tape.jacobian(y, [a, b])
    n = int(np.prod(shape))
    mask = np.ones(shape, np.float32)
    mask[index] = 0
    np.testing.assert_array_equal(np.asarray(ja.numpy()).reshape(n, n), np.diag(mask.reshape(-1)))

    def put(v):
        z = np.zeros(shape, np.float32)
        z[index] = v
        return z

    np.testing.assert_array_equal(np.asarray(jb.numpy()).reshape(n, b0.size), _linear_jacobian(put, b0))
    # the same gradients from tj.gradients inside tj.function, with a ones output gradient: d/da = the mask,
    # d/db = the number of places each update entry lands
    ga, gb = tj.function(lambda u, v: tj.gradients(u.at[index].set(v), [u, v]))(a, b)
    np.testing.assert_array_equal(ga.numpy(), mask)
    np.testing.assert_array_equal(gb.numpy(), _linear_jacobian(put, b0).sum(0).reshape(b0.shape))
