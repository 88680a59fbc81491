"""TensorFlow sort, identity, broadcast-args, batch_gather and ops-level array tests not ported elsewhere, ported
to tapejax.

Sources (TF test methods named in each test):
- tensorflow/python/ops/sort_ops_test.py: SortTest.testUIntArray (uint32 with JAX's x64 off, uint64 with
  ``jax.enable_x64``; also testIntArray's int64 edges, which test_tf_array_ops_port.py ported as int32 only) and
  testArgsortTensorShape (a concrete shape, eagerly and in ``tj.function``). tf.sort(direction="DESCENDING") is
  ``tnp.sort(descending=True)``. The other SortTest methods are ported in test_tf_array_ops_port.py
  (test_sort_values, test_sort_errors, test_argsort, test_sort_gradient).
- tensorflow/python/kernel_tests/array_ops/identity_op_py_test.py (the file the brief calls identity_op_test.py):
  IdentityOpTest.testInt32_6, testInt32_2_3, testIdentityShape, testRefIdentityShape (as ``tj.identity`` of a
  ``tj.Variable``: shape, dtype, a snapshot of the value, the gradient reaching the Variable); plus identity's
  dtypes and gradients (TF 2.21: float16/bfloat16/float32/complex64 pass ``dy`` through; integer and bool
  sources give ``None``).
- tensorflow/python/kernel_tests/array_ops/bcast_ops_test.py: BcastOpsTest.testBasic, testZeroDims, testDataTypes
  (gen_array_ops.broadcast_args -> ``tnp.broadcast_shapes``) and testBasicGradient, testZeroDimsGradient
  (broadcast_gradient_args has no tj.numpy counterpart; its reduction axes r0/r1, TF 2.21's values hard-coded,
  are checked where they act: the gradients of ``x + y`` and ``tnp.broadcast_arrays`` are ``dy`` summed over them).
- tensorflow/python/kernel_tests/array_ops/batch_gather_op_test.py: GatherTest.testSimpleGather, test2DArray,
  testHigherRank (tf.compat.v1.batch_gather(params, indices) with indices.ndim == params.ndim is
  ``tnp.take_along_axis(params, indices, axis=-1)``; plus its gradients, TF 2.21's values), testBadIndicesCPU and
  testEmptySlices (1-D indices: batch_gather is tf.gather on axis 0, ``tnp.take(..., axis=0)``).
- tensorflow/python/ops/array_ops_test.py: ArrayOpTest.testGatherGradHasPartialStaticShape (concrete shapes; the
  gradients' shapes and where they are nonzero), testEmptyMeshgrid, testSlicedPartialShapeInference and
  testIdentityOnSlicedPartialShapeInference (``tj.function`` on a concrete (10, 3) input),
  testUpperBoundInputsWrongRank / testLowerBoundInputsWrongRank (``tnp.searchsorted`` side right/left with a
  rank-3 sorted input raises ValueError), testWrapPadOp / testWrapPadConcreteOp (array_ops._wrap_pad is
  ``tnp.pad(mode="wrap")``).

Expected values are TF 2.21's, run here and hard-coded (TensorFlow is not imported), except testWrapPadOp: TF 2.21
has no array_ops._wrap_pad (tf.pad rejects mode "WRAP"), so its values are the TF test's own constants, which TF
2.21 reproduces as tf.gather(tf.gather(t, [1, 0, 1, 0]), [1, 2, 0, 1, 2, 0, 1], axis=1); the wrap-pad gradient is
that TF program's.

Differences sanctioned by API.md / jax.numpy (listed, not xfailed):
- int64/uint64/complex128 need JAX's x64 mode (those parts run under ``jax.enable_x64(True)``); with x64 off
  ``tj.identity(np.array(int64 data))`` is int32 where TF keeps int64, and int64 index arrays become int32.
- Out-of-bounds gather indices raise IndexError (API.md: indexing out of bounds raises IndexError), where TF
  raises InvalidArgumentError "indices[0] = 7 is not in [0, 2)".
- ``tnp.pad``'s pad widths are static (jax.numpy): in ``tj.function`` they are passed as a Python list, not as a
  traced Tensor argument as testWrapPadConcreteOp's TensorSpec(shape=None).
- ``tnp.broadcast_shapes`` of scalar Tensors accepts them (API.md: scalar Tensors as static arguments) and returns
  the dims it took from them as scalar Tensors; compared through ``int``.
- ``tnp.searchsorted`` takes a 1-D sorted array (jax.numpy), so only the rank-3 sorted-input tests map.

Left out: SortTest.testSort_staticallyKnownRank_constantTransposition (graph tensor "sort/transposition:0");
IdentityOpTest.testString (strings), testCompositeTensor (SparseTensor); GatherTest.testString (strings),
testUnknownIndices (placeholder with unknown dims; graph shape inference); ArrayOpTest.testReshapeShapeInference
(partial static shapes through casts of tf.shape; no unknown dims in tapejax), testParallelConcatFailsWithRankZeroShape
(no ParallelConcat), testUpperBoundValuesWrongRank / testLowerBoundValuesWrongRank (TF's raw batched UpperBound /
LowerBound rank rule; tnp.searchsorted takes any rank of values), testShapeDefaultIn32 (tf.shape's int32 shape
tensor and the tf_shape_default_int64 flag; tnp.shape returns Python ints).
"""
from __future__ import annotations

import warnings

import jax
import ml_dtypes
import numpy as np
import pytest

import tapejax as tj
from conftest import tape_gradients as _grads

tnp = tj.numpy
pytestmark = pytest.mark.filterwarnings("ignore:Explicitly requested dtype int64")


# -- sort_ops_test.py ----------------------------------------------------------------------------------------

# TF 2.21: the (4, 6) uint64 array of RandomState(3) and tf.sort of it along axis 0 / axis 1 DESCENDING
_U64 = [[10160427981146574328, 1304643767884582426, 13063021643319406929, 15494325019849885146, 5366245357864815254,
         2238117252586890050],
        [9423106023159417090, 10501940326842638271, 16471964002837310780, 8062369756433166977, 16533689269362954163,
         345839751632323418],
        [2316640184447163973, 749504818883664744, 3822956344777118318, 4572732063291176545, 949402414624348573,
         1725720497958528618],
        [8131506278476381336, 12817234182554827259, 551118849420923710, 2681605906665384455, 8427085543231749112,
         8359553432958348459]]
_U64_SORT0 = [[2316640184447163973, 749504818883664744, 551118849420923710, 2681605906665384455,
               949402414624348573, 345839751632323418],
              [8131506278476381336, 1304643767884582426, 3822956344777118318, 4572732063291176545,
               5366245357864815254, 1725720497958528618],
              [9423106023159417090, 10501940326842638271, 13063021643319406929, 8062369756433166977,
               8427085543231749112, 2238117252586890050],
              [10160427981146574328, 12817234182554827259, 16471964002837310780, 15494325019849885146,
               16533689269362954163, 8359553432958348459]]
_U64_SORT1_DESC = [[15494325019849885146, 13063021643319406929, 10160427981146574328, 5366245357864815254,
                    2238117252586890050, 1304643767884582426],
                   [16533689269362954163, 16471964002837310780, 10501940326842638271, 9423106023159417090,
                    8062369756433166977, 345839751632323418],
                   [4572732063291176545, 3822956344777118318, 2316640184447163973, 1725720497958528618,
                    949402414624348573, 749504818883664744],
                   [12817234182554827259, 8427085543231749112, 8359553432958348459, 8131506278476381336,
                    2681605906665384455, 551118849420923710]]
_U32 = [[2339249697, 3254147451, 3351426383, 3511439536, 1315821349],
        [1106320404, 953301854, 3835685425, 1666323861, 3085599103],
        [4021737166, 88538612, 4191868444, 612966263, 2887865910]]


def test_sort_uint32():
    # SortTest.testUIntArray with JAX's x64 off (uint32): random values (ascending along -1, descending along 0),
    # the linspace edges of the dtype's range, and tf.argsort(stable=True); TF 2.21's values
    a = np.asarray(_U32, np.uint32)
    got = tnp.sort(a, axis=-1)
    assert got.dtype == np.uint32
    np.testing.assert_array_equal(got.numpy(), [[1315821349, 2339249697, 3254147451, 3351426383, 3511439536],
                                                [953301854, 1106320404, 1666323861, 3085599103, 3835685425],
                                                [88538612, 612966263, 2887865910, 4021737166, 4191868444]])
    np.testing.assert_array_equal(tnp.sort(tj.constant(a), axis=0, descending=True).numpy(),
                                  [[4021737166, 3254147451, 4191868444, 3511439536, 3085599103],
                                   [2339249697, 953301854, 3835685425, 1666323861, 2887865910],
                                   [1106320404, 88538612, 3351426383, 612966263, 1315821349]])
    np.testing.assert_array_equal(tnp.argsort(a, axis=-1, stable=True).numpy(),
                                  [[4, 0, 1, 2, 3], [1, 0, 3, 4, 2], [1, 3, 4, 0, 2]])
    edges = [0, 477218588, 954437176, 1431655765, 1908874353, 2386092941, 2863311530, 3340530118, 3817748706,
             4294967295]
    e = np.asarray(edges, np.uint32)
    np.testing.assert_array_equal(tnp.sort(e[::-1].copy(), 0).numpy(), edges)
    np.testing.assert_array_equal(tnp.sort(e, 0, descending=True).numpy(), edges[::-1])


def test_sort_uint64_int64_x64():
    # SortTest.testUIntArray (uint64) and testIntArray's int64 edges, under JAX's x64 mode; the edges are
    # np.linspace(iinfo.min, iinfo.max, 10, dtype) as TF's test builds them (whose last element overflows, to 0
    # for uint64 and to int64 min for int64); TF 2.21's tf.sort values
    with jax.enable_x64(True):
        a = np.asarray(_U64, np.uint64)
        got = tnp.sort(a, axis=0)
        assert got.dtype == np.uint64
        np.testing.assert_array_equal(got.numpy(), np.asarray(_U64_SORT0, np.uint64))
        np.testing.assert_array_equal(tnp.sort(tj.constant(a), axis=1, descending=True).numpy(),
                                      np.asarray(_U64_SORT1_DESC, np.uint64))
        u_edges = np.asarray([0, 2049638230412172288, 4099276460824344576, 6148914691236516864,
                              8198552921648689152, 10248191152060862464, 12297829382473033728,
                              14347467612885204992, 16397105843297378304, 0], np.uint64)
        np.testing.assert_array_equal(
            tnp.sort(u_edges[::-1].copy(), 0).numpy(),
            np.asarray([0, 0, 2049638230412172288, 4099276460824344576, 6148914691236516864, 8198552921648689152,
                        10248191152060862464, 12297829382473033728, 14347467612885204992, 16397105843297378304],
                       np.uint64))
        np.testing.assert_array_equal(
            tnp.sort(u_edges, 0, descending=True).numpy(),
            np.asarray([16397105843297378304, 14347467612885204992, 12297829382473033728, 10248191152060862464,
                        8198552921648689152, 6148914691236516864, 4099276460824344576, 2049638230412172288, 0, 0],
                       np.uint64))
        i_edges = np.asarray([-9223372036854775808, -7173733806442603520, -5124095576030431232,
                              -3074457345618258944, -1024819115206086656, 1024819115206086656,
                              3074457345618257920, 5124095576030429184, 7173733806442602496,
                              -9223372036854775808], np.int64)
        got = tnp.sort(tj.constant(i_edges), 0, descending=True)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(
            got.numpy(), [7173733806442602496, 5124095576030429184, 3074457345618257920, 1024819115206086656,
                          -1024819115206086656, -3074457345618258944, -5124095576030431232, -7173733806442603520,
                          -9223372036854775808, -9223372036854775808])


def test_argsort_shape():
    # SortTest.testArgsortTensorShape: argsort's result has the input's shape along every axis (TF: [1, None, 5]
    # placeholder; here a concrete (1, 3, 5), eagerly and traced by tj.function); int32 indices, as TF 2.21
    x = tj.constant(np.random.RandomState(0).random_sample((1, 3, 5)).astype(np.float32))
    f = tj.function(lambda t, axis: tnp.argsort(t, axis=axis))
    for axis in range(3):
        for got in (tnp.argsort(x, axis=axis), f(x, axis)):
            assert got.shape == (1, 3, 5)
            assert got.dtype == np.int32


def test_gather_by_argsort_gradient():
    # sort through argsort (TF 2.21: tape.gradient(tf.gather(x, tf.argsort(x, direction="DESCENDING")), x,
    # output_gradients=[1, 2, 3]) with x = [3, 1, 2]): values [3, 2, 1], gradient [1, 3, 2]
    y, (g,) = _grads(lambda t: tnp.take(t, tnp.argsort(t, descending=True)), [np.asarray([3., 1., 2.], np.float32)],
                     output_gradients=np.asarray([1., 2., 3.], np.float32))
    np.testing.assert_array_equal(y.numpy(), [3., 2., 1.])
    np.testing.assert_array_equal(g.numpy(), [1., 3., 2.])


# -- identity_op_py_test.py ----------------------------------------------------------------------------------

def test_identity_int32_values():
    # IdentityOpTest.testInt32_6 / testInt32_2_3 (tf.constant([...], shape=[2, 3]) is a reshape here)
    got = tj.identity([1, 2, 3, 4, 5, 6])
    assert isinstance(got, tj.Tensor) and got.dtype == np.int32
    np.testing.assert_array_equal(got.numpy(), [1, 2, 3, 4, 5, 6])
    got = tj.identity(tnp.reshape(tj.constant([10, 20, 30, 40, 50, 60]), (2, 3)))
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got.numpy(), [[10, 20, 30], [40, 50, 60]])


def test_identity_shape():
    # IdentityOpTest.testIdentityShape: identity of a Tensor, a list and a NumPy array keeps the shape [2, 3]
    # (TF keeps a NumPy int64 array int64; with JAX's x64 off it is int32, API.md)
    array_2x3 = [[1, 2, 3], [6, 5, 4]]
    tensor = tj.constant(array_2x3)
    assert tensor.shape == (2, 3)
    for x in (tensor, array_2x3, np.array(array_2x3)):
        got = tj.identity(x)
        assert got.shape == (2, 3)
        assert got.dtype == np.int32
        np.testing.assert_array_equal(got.numpy(), array_2x3)


def test_identity_of_variable():
    # IdentityOpTest.testRefIdentityShape (TF1's ref_identity of a VariableV1; in TF2 tf.identity(v)): the
    # identity of an int32 Variable is a Tensor of shape [2, 3] and dtype int32; TF 2.21: it is a snapshot (an
    # assign afterwards leaves it), and tape.gradient(identity(v) ** 2, v) is 2 * v
    v = tj.Variable(tj.constant([[1, 2, 3], [6, 5, 4]], dtype=np.int32))
    got = tj.identity(v)
    assert isinstance(got, tj.Tensor) and not isinstance(got, tj.Variable)
    assert got.shape == (2, 3) and got.dtype == np.int32
    vf = tj.Variable([[1., 2., 3.], [6., 5., 4.]])
    with tj.GradientTape() as tape:
        y = tj.identity(vf)
        z = y * y
    np.testing.assert_array_equal(tape.gradient(z, vf).numpy(), [[2., 4., 6.], [12., 10., 8.]])
    snap = tj.identity(vf)
    vf.assign(vf * 10.)
    np.testing.assert_array_equal(snap.numpy(), [[1., 2., 3.], [6., 5., 4.]])
    np.testing.assert_array_equal(vf.numpy(), [[10., 20., 30.], [60., 50., 40.]])


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float32, np.complex64])
def test_identity_float_dtypes_gradient(dtype):
    # identity keeps the dtype and its gradient is the output gradient, in that dtype (TF 2.21:
    # tape.gradient(tf.identity(x), x, output_gradients=[2, 3, 4]) for each dtype)
    x = np.array([1, 0, 1]).astype(dtype)
    y, (g,) = _grads(tj.identity, [x], output_gradients=np.array([2, 3, 4]).astype(dtype))
    assert y.dtype == dtype and g.dtype == dtype
    np.testing.assert_array_equal(y.numpy(), x)
    np.testing.assert_array_equal(g.numpy().astype(np.complex64), [2, 3, 4])


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.uint32, np.bool_])
def test_identity_int_dtypes_no_gradient(dtype):
    # identity keeps integer and bool dtypes; TF 2.21's gradient with respect to such a source is None (API.md: a
    # UserWarning when it is watched)
    x = tj.constant(np.array([1, 0, 1]).astype(dtype))
    with pytest.warns(UserWarning):
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = tj.identity(x)
    assert y.dtype == dtype
    np.testing.assert_array_equal(y.numpy(), np.array([1, 0, 1]).astype(dtype))
    assert tape.gradient(y, x) is None


# -- bcast_ops_test.py ---------------------------------------------------------------------------------------

# (x shape, y shape, broadcast_args, broadcast_gradient_args r0, r1): TF 2.21's values
_BCAST = [
    ([2, 3, 5], [1], [2, 3, 5], [], [0, 1, 2]),
    ([1], [2, 3, 5], [2, 3, 5], [0, 1, 2], []),
    ([2, 3, 5], [5], [2, 3, 5], [], [0, 1]),
    ([5], [2, 3, 5], [2, 3, 5], [0, 1], []),
    ([2, 3, 5], [3, 5], [2, 3, 5], [], [0]),
    ([3, 5], [2, 3, 5], [2, 3, 5], [0], []),
    ([2, 3, 5], [3, 1], [2, 3, 5], [], [0, 2]),
    ([3, 1], [2, 3, 5], [2, 3, 5], [0, 2], []),
    ([2, 1, 5], [3, 1], [2, 3, 5], [1], [0, 2]),
    ([3, 1], [2, 1, 5], [2, 3, 5], [0, 2], [1]),
]
_BCAST_ZERO = [
    ([2, 0, 3, 0, 5], [3, 0, 5], [2, 0, 3, 0, 5], [], [0, 1]),
    ([3, 0, 5], [2, 0, 3, 0, 5], [2, 0, 3, 0, 5], [0, 1], []),
    ([2, 0, 3, 0, 5], [3, 1, 5], [2, 0, 3, 0, 5], [], [0, 1, 3]),
    ([3, 1, 5], [2, 0, 3, 0, 5], [2, 0, 3, 0, 5], [0, 1, 3], []),
]


@pytest.mark.parametrize("xs, ys, want, r0, r1", _BCAST + _BCAST_ZERO)
def test_broadcast_shapes(xs, ys, want, r0, r1):
    # BcastOpsTest.testBasic / testZeroDims: broadcast_args(xs, ys)
    assert tnp.broadcast_shapes(tuple(xs), tuple(ys)) == tuple(want)


@pytest.mark.parametrize("xs, ys, want, r0, r1", _BCAST + _BCAST_ZERO)
def test_broadcast_gradient_reduction_axes(xs, ys, want, r0, r1):
    # BcastOpsTest.testBasicGradient / testZeroDimsGradient: TF's broadcast_gradient_args (r0, r1) are the axes of
    # the broadcast output over which each input's gradient is summed; the gradients of x + y and of
    # broadcast_arrays(x, y) are reduce_sum(dy, r0) reshaped to x's shape (and r1 for y)
    x = np.ones(xs, np.float32)
    y = np.ones(ys, np.float32)
    dy = np.arange(int(np.prod(want)), dtype=np.float32).reshape(want)
    gx_want = np.sum(dy, axis=tuple(r0)).reshape(xs)
    gy_want = np.sum(dy, axis=tuple(r1)).reshape(ys)
    z, (gx, gy) = _grads(lambda a, b: a + b, [x, y], output_gradients=dy)
    assert z.shape == tuple(want)
    assert gx.shape == tuple(xs) and gy.shape == tuple(ys)
    np.testing.assert_array_equal(gx.numpy(), gx_want)
    np.testing.assert_array_equal(gy.numpy(), gy_want)
    _, (gx, gy) = _grads(lambda a, b: tnp.broadcast_arrays(a, b), [x, y], output_gradients=[dy, 2 * dy])
    np.testing.assert_array_equal(gx.numpy(), gx_want)
    np.testing.assert_array_equal(gy.numpy(), 2 * gy_want)


def test_broadcast_gradient_values():
    # BcastOpsTest.testBasicGradient ([2, 1, 5] with [3, 1]) and testZeroDimsGradient ([2, 0, 3, 0, 5] with
    # [3, 1, 5]): TF 2.21's tape.gradient(x + y, [x, y], output_gradients=range(size))
    dy = np.arange(30, dtype=np.float32).reshape(2, 3, 5)
    _, (gx, gy) = _grads(lambda a, b: a + b, [np.ones((2, 1, 5), np.float32), np.ones((3, 1), np.float32)],
                         output_gradients=dy)
    np.testing.assert_array_equal(gx.numpy(), [[[15., 18., 21., 24., 27.]], [[60., 63., 66., 69., 72.]]])
    np.testing.assert_array_equal(gy.numpy(), [[95.], [145.], [195.]])
    _, (gx, gy) = _grads(lambda a, b: a + b, [np.ones((2, 0, 3, 0, 5), np.float32), np.ones((3, 1, 5), np.float32)],
                         output_gradients=np.zeros((2, 0, 3, 0, 5), np.float32))
    assert gx.shape == (2, 0, 3, 0, 5)
    np.testing.assert_array_equal(gy.numpy(), np.zeros((3, 1, 5), np.float32))


def test_broadcast_shapes_data_types():
    # BcastOpsTest.testDataTypes: the shapes given as int32 and int64 values (NumPy integers, and scalar Tensors,
    # which API.md accepts as static arguments; int64 Tensors under JAX's x64 mode) broadcast to [2, 3, 5]
    for dtype in (np.int32, np.int64):
        got = tnp.broadcast_shapes(tuple(np.array([2, 3, 5], dtype)), tuple(np.array([1], dtype)))
        assert tuple(int(d) for d in got) == (2, 3, 5)
    got = tnp.broadcast_shapes(tuple(tj.constant([2, 3, 5])), tuple(tj.constant([1])))
    assert tuple(int(d) for d in got) == (2, 3, 5)
    with jax.enable_x64(True):
        xs = tj.constant(np.array([2, 3, 5], np.int64))
        assert xs.dtype == np.int64
        got = tnp.broadcast_shapes(tuple(xs), tuple(tj.constant(np.array([1], np.int64))))
        assert tuple(int(d) for d in got) == (2, 3, 5)


def test_broadcast_incompatible_raises():
    # broadcast_args([2, 3], [4]) and tf.add of such shapes raise InvalidArgumentError "Incompatible shapes:
    # [2,3] vs. [4]" in TF 2.21 (ValueError here)
    with pytest.raises(ValueError, match="[Ii]ncompatible shapes"):
        tnp.broadcast_shapes((2, 3), (4,))
    with pytest.raises(ValueError, match="[Ii]ncompatible shapes"):
        tnp.add(tnp.zeros((2, 3)), tnp.zeros((4,)))


# -- batch_gather_op_test.py ---------------------------------------------------------------------------------

def _build(data, dtype):
    data = np.asarray(data).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        return data + 10j * data
    return data


_GATHER_CASES = [
    # (TF test, params, indices, TF 2.21's batch_gather result before _build)
    ("testSimpleGather", [0, 1, 2, 3, 7, 5, 8, 9, 10, 11, 15, 13], [3, 4], [3, 7]),
    ("test2DArray", [[0, 1, 2, 3, 7, 5], [8, 9, 10, 11, 15, 13]], [[3], [4]], [[3], [15]]),
    ("testHigherRank", [[[0, 1, 2], [3, 7, 5]], [[8, 9, 10], [11, 15, 13]]],
     [[[2, 0], [1, 2]], [[2, 0], [0, 1]]], [[[2, 0], [7, 5]], [[10, 8], [11, 15]]]),
]


@pytest.mark.parametrize("name, data, indices, want", _GATHER_CASES)
def test_batch_gather_values(name, data, indices, want):
    # GatherTest.testSimpleGather / test2DArray / testHigherRank: batch_gather(params, indices) ==
    # take_along_axis(params, indices, axis=-1) for int32/float32/complex64 params and int32/int64 indices
    for dtype in (np.int32, np.float32, np.complex64):
        for itype in (np.int32, np.int64):
            params = _build(data, dtype)
            got = tnp.take_along_axis(tj.constant(params), np.asarray(indices, itype), axis=-1)
            assert got.dtype == dtype
            assert got.shape == np.asarray(want).shape
            np.testing.assert_array_equal(got.numpy(), _build(want, dtype))


@pytest.mark.parametrize("name, data, indices, want", _GATHER_CASES)
def test_batch_gather_values_x64(name, data, indices, want):
    # GatherTest.testSimpleGather / test2DArray / testHigherRank with TF's int64 and complex128 params and int64
    # indices, under JAX's x64 mode
    with jax.enable_x64(True):
        for dtype in (np.int64, np.complex128):
            params = _build(data, dtype)
            got = tnp.take_along_axis(tj.constant(params), tj.constant(np.asarray(indices, np.int64)), axis=-1)
            assert got.dtype == dtype
            np.testing.assert_array_equal(got.numpy(), _build(want, dtype))


def test_batch_gather_gradients():
    # gradients of GatherTest.testHigherRank's batch_gather, and with repeated indices (summed); TF 2.21's
    # tape.gradient(batch_gather(x, indices), x, output_gradients=reshape(range(1, 9), [2, 2, 2]))
    x = np.array([[[0, 1, 2], [3, 7, 5]], [[8, 9, 10], [11, 15, 13]]], np.float32)
    dy = np.arange(1., 9., dtype=np.float32).reshape(2, 2, 2)
    _, (g,) = _grads(lambda t: tnp.take_along_axis(t, tj.constant([[[2, 0], [1, 2]], [[2, 0], [0, 1]]]), axis=-1),
                     [x], output_gradients=dy)
    np.testing.assert_array_equal(g.numpy(), [[[2., 0., 1.], [0., 3., 4.]], [[6., 0., 5.], [7., 8., 0.]]])
    y, (g,) = _grads(lambda t: tnp.take_along_axis(t, tj.constant([[[2, 2], [1, 1]], [[0, 0], [0, 2]]]), axis=-1),
                     [x], output_gradients=dy)
    np.testing.assert_array_equal(y.numpy(), [[[2., 2.], [7., 7.]], [[8., 8.], [11., 13.]]])
    np.testing.assert_array_equal(g.numpy(), [[[0., 0., 3.], [0., 7., 0.]], [[11., 0., 0.], [7., 0., 8.]]])
    # test2DArray's complex64 params: the output gradient lands unchanged on the gathered elements
    xc = _build([[0, 1, 2, 3, 7, 5], [8, 9, 10, 11, 15, 13]], np.complex64)
    _, (g,) = _grads(lambda t: tnp.take_along_axis(t, tj.constant([[3], [4]]), axis=-1), [xc],
                     output_gradients=np.asarray([[1 + 2j], [3 - 1j]], np.complex64))
    np.testing.assert_array_equal(g.numpy(), [[0, 0, 0, 1 + 2j, 0, 0], [0, 0, 0, 0, 3 - 1j, 0]])


def test_batch_gather_bad_indices():
    # GatherTest.testBadIndicesCPU: batch_gather([[0, 1, 2], [3, 4, 5]], [7]) (1-D indices: tf.gather on axis 0)
    # raises InvalidArgumentError "indices[0] = 7 is not in [0, 2)" in TF 2.21; IndexError here (API.md); and
    # with 2-D indices [[7], [0]] ("indices[0] = 7 is not in [0, 6)" in TF) through take_along_axis
    params = tj.constant([[0, 1, 2], [3, 4, 5]])
    with pytest.raises(IndexError):
        tnp.take(params, [7], axis=0)
    with pytest.raises(IndexError):
        tnp.take_along_axis(params, tj.constant([[7], [0]]), axis=-1)


def test_batch_gather_empty_slices():
    # GatherTest.testEmptySlices: batch_gather(zeros((7, 0, 0)), [3, 4]) is zeros((2, 0, 0)) for each params
    # dtype and int32/int64 indices (1-D indices: tf.gather on axis 0)
    for dtype in (np.int32, np.float32, np.complex64):
        for itype in (np.int32, np.int64):
            got = tnp.take(np.zeros((7, 0, 0), dtype), np.array([3, 4], itype), axis=0)
            assert got.shape == (2, 0, 0) and got.dtype == dtype


# -- ops/array_ops_test.py -----------------------------------------------------------------------------------

def test_gather_grad_shape():
    # ArrayOpTest.testGatherGradHasPartialStaticShape: with x of shape [4, n, 10] (n data-dependent: the columns
    # of x[0, :, 0] > 0.5), the gradients of gather(gather(x, [0, 1]), [0, 1]) and of
    # gather(gather(x, [2, 3], axis=2), [0, 1]) have x's shape; TF 2.21 (x = arange(120).reshape(4, 3, 10)
    # masked to (4, 2, 10)): ones on x[:2] and on x[:2, :, 2:4], zeros elsewhere
    x0 = np.arange(4 * 3 * 10, dtype=np.float32).reshape(4, 3, 10)
    x = tj.constant(x0)[:, x0[0, :, 0] > 0.5]
    assert x.shape == (4, 2, 10)
    with tj.GradientTape() as tape:
        tape.watch(x)
        a = tnp.take(tnp.take(x, [0, 1], axis=0), [0, 1], axis=0)
    grad_a = tape.gradient(a, x)
    with tj.GradientTape() as tape:
        tape.watch(x)
        b = tnp.take(tnp.take(x, [2, 3], axis=2), [0, 1], axis=0)
    grad_b = tape.gradient(b, x)
    assert grad_a.shape == (4, 2, 10) and grad_b.shape == (4, 2, 10)
    want_a = np.zeros((4, 2, 10), np.float32)
    want_a[:2] = 1
    want_b = np.zeros((4, 2, 10), np.float32)
    want_b[:2, :, 2:4] = 1
    np.testing.assert_array_equal(grad_a.numpy(), want_a)
    np.testing.assert_array_equal(grad_b.numpy(), want_b)


def test_empty_meshgrid():
    # ArrayOpTest.testEmptyMeshgrid: tf.meshgrid() == []
    assert tnp.meshgrid() == []


def test_sliced_shape_in_function():
    # ArrayOpTest.testSlicedPartialShapeInference: zeros([shape(x)[0]]) in a function of x of shape [10, ...]
    # has shape [10]
    g = tj.function(lambda x: tnp.zeros([tnp.shape(x)[0]]))
    assert g(tnp.zeros((10, 3))).shape == (10,)


def test_identity_on_sliced_shape_eager():
    # ArrayOpTest.testIdentityOnSlicedPartialShapeInference, eagerly: zeros([identity(shape(x)[0])]) has shape [10]
    # (a scalar Tensor as a shape entry, API.md)
    x = tnp.zeros((10, 3))
    assert tnp.zeros([tj.identity(tnp.shape(x)[0])]).shape == (10,)


def test_identity_on_sliced_shape_in_function():
    # ArrayOpTest.testIdentityOnSlicedPartialShapeInference: in a tf.function, zeros([identity(shape(x)[0])]) has
    # shape [10] (TF 2.21, also with a concrete [10, 3] input)
    g = tj.function(lambda x: tnp.zeros([tj.identity(tnp.shape(x)[0])]))
    assert g(tnp.zeros((10, 3))).shape == (10,)


@pytest.mark.parametrize("side", ["right", "left"])
def test_searchsorted_sorted_input_wrong_rank(side):
    # ArrayOpTest.testUpperBoundInputsWrongRank / testLowerBoundInputsWrongRank (upper_bound is side="right",
    # lower_bound side="left"): a rank-3 sorted input raises (TF 2.21: InvalidArgumentError "Shape must be rank 2
    # but is rank 3 for `sorted_inputs`"; used to segfault) -- a ValueError, never a crash
    with pytest.raises(ValueError):
        tnp.searchsorted(tnp.zeros((2, 1, 0)), tnp.zeros((2, 3)), side=side)


_WRAP = [[5, 6, 4, 5, 6, 4, 5], [2, 3, 1, 2, 3, 1, 2], [5, 6, 4, 5, 6, 4, 5], [2, 3, 1, 2, 3, 1, 2]]


def test_wrap_pad():
    # ArrayOpTest.testWrapPadOp: _wrap_pad([[1, 2, 3], [4, 5, 6]], [[1, 1], [2, 2]])
    t = tj.constant([[1, 2, 3], [4, 5, 6]])
    got = tnp.pad(t, [[1, 1], [2, 2]], mode="wrap")
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got.numpy(), _WRAP)
    # paddings as a Tensor (eagerly: a static argument, API.md)
    np.testing.assert_array_equal(tnp.pad(t, tj.constant([[1, 1], [2, 2]]), mode="wrap").numpy(), _WRAP)


def test_wrap_pad_function():
    # ArrayOpTest.testWrapPadConcreteOp: the same under tf.function (pad widths static here: a Python list)
    f = tj.function(lambda t, p: tnp.pad(t, p, mode="wrap"))
    np.testing.assert_array_equal(f(tj.constant([[1, 2, 3], [4, 5, 6]]), [[1, 1], [2, 2]]).numpy(), _WRAP)


def test_wrap_pad_gradient():
    # wrap pad's gradient sums the output gradient over the copies of each element: TF 2.21's
    # tape.gradient(tf.gather(tf.gather(t, [1, 0, 1, 0]), [1, 2, 0, 1, 2, 0, 1], axis=1), t,
    # output_gradients=reshape(range(1, 29), [4, 7])) for t = [[1., 2., 3.], [4., 5., 6.]]
    t = np.array([[1., 2., 3.], [4., 5., 6.]], np.float32)
    dy = np.arange(1., 29., dtype=np.float32).reshape(4, 7)
    y, (g,) = _grads(lambda a: tnp.pad(a, [[1, 1], [2, 2]], mode="wrap"), [t], output_gradients=dy)
    np.testing.assert_array_equal(y.numpy(), _WRAP)
    np.testing.assert_array_equal(g.numpy(), [[74., 108., 70.], [46., 66., 42.]])
    f = tj.function(lambda a: tnp.pad(a, [[1, 1], [2, 2]], mode="wrap"))
    _, (g,) = _grads(f, [t], output_gradients=dy)
    np.testing.assert_array_equal(g.numpy(), [[74., 108., 70.], [46., 66., 42.]])
