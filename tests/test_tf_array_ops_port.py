"""TensorFlow's array-op kernel tests (values and gradients), ported to tapejax's ``tj.numpy``.

Sources: tensorflow/python/kernel_tests/array_ops/{concat,split,pad,where,gather_nd}_op_test.py,
array_ops_test.py (matrix transpose, boolean mask, shapes, reverse, strided slices) and broadcast_to_ops_test.py;
kernel_tests/math_ops/transpose_op_test.py, matmul_op_test.py and batch_matmul_op_test.py; kernel_tests/
scan_ops_test.py (cumsum/cumprod); kernel_tests/linalg/einsum_op_test.py; tensorflow/python/ops/sort_ops_test.py. TF ops map to tj.numpy: concat -> concatenate,
split(x, sizes) -> split(x, cumulative indices), gather_nd -> advanced indexing, reverse -> flip, tf.sort -> sort.
Expected values are TF 2.21's, hard-coded with the TF expression that gives them (a test that asserts an identity,
such as "the concatenated gradients are the output gradient", keeps that identity); TensorFlow is not imported.
TF's gradient checker is replaced by ``_check_jacobian``: ``tape.jacobian`` (and ``tape.gradient`` with one-hot
output gradients) against the theoretical Jacobian, which for these linear ops is the op applied to basis vectors.
float64 becomes float32 (JAX's x64 is off, API.md); shapes are smaller than TF's to keep the file fast.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapejax as tj
from conftest import tape_gradients as _grads

tnp = tj.numpy
RNG = np.random.default_rng(7)
# int64 index and paddings Tensors (as TF's tests) are int32 with JAX's x64 off, as API.md says
pytestmark = pytest.mark.filterwarnings("ignore:Explicitly requested dtype int64")


def _rand(*shape, dtype=np.float32):
    x = RNG.random(shape).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        x -= 1j * x  # as TF's _makeData
    return x


def _linear_jacobian(np_f, shapes, dtype=np.float32):
    """The Jacobian of a linear ``np_f`` (one array per input shape): ``np_f`` of each basis vector."""
    cols = [np.zeros(np.size(np_f(*[np.zeros(s, dtype) for s in shapes])), dtype)[:, None][:, :0]]
    for k, shp in enumerate(shapes):
        for j in range(int(np.prod(shp))):
            args = [np.zeros(s, dtype) for s in shapes]
            args[k].reshape(-1)[j] = 1
            cols.append(np.asarray(np_f(*args)).reshape(-1, 1))
    return np.concatenate(cols, axis=1)


def _check_jacobian(f, xs, want):
    """TF's gradient checker: the Jacobian of ``f`` at ``xs`` (all inputs, flattened and side by side) from
    ``tape.jacobian`` equals ``want``, and so do rows of it from ``tape.gradient`` with one-hot output gradients
    (as the checker reads it; at most 6 rows, spread out, to keep the file fast)."""
    ts = [tj.constant(x) for x in xs]
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(ts)
        y = f(*ts)
    jac = tape.jacobian(y, ts)
    got = np.concatenate([np.asarray(j.numpy()).reshape(y.numpy().size, t.numpy().size)
                          for j, t in zip(jac, ts)], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    for i in sorted(set(np.linspace(0, y.numpy().size - 1, 6).astype(int))) if y.numpy().size else ():
        dy = np.zeros(y.shape, y.numpy().dtype)
        dy.reshape(-1)[i] = 1
        row = np.concatenate([g.numpy().reshape(-1) for g in tape.gradient(y, ts, output_gradients=dy)])
        np.testing.assert_allclose(row, want[i], rtol=1e-6, atol=1e-6)


# -- concat_op_test.py ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
@pytest.mark.parametrize("axis", [-2, 1])
def test_concat_gradients_simple(dtype, axis):
    # ConcatOpTest.testGradientsSimple (float32, complex64; axis -2 and 1): the gradients of concat with output
    # gradient grad_inp, concatenated again, are grad_inp (complex values too: no conjugation)
    xs = [_rand(3, x, 2, dtype=dtype) for x in (1, 2, 6)]
    grad_inp = _rand(3, 9, 2, dtype=dtype)
    _, gs = _grads(lambda *a: tnp.concatenate(a, axis), xs, output_gradients=grad_inp)
    assert [g.dtype for g in gs] == [dtype] * 3
    np.testing.assert_array_equal(tnp.concatenate(gs, axis).numpy(), grad_inp)


@pytest.mark.parametrize("axis, shapes", [
    (0, [(1, 4, 2), (2, 4, 2), (6, 4, 2)]),  # testGradientsFirstDim
    (-1, [(4, 2, 1), (4, 2, 2), (4, 2, 6)]),  # testGradientsLastDim (axis -1 and 2)
    (2, [(4, 2, 1), (4, 2, 2), (4, 2, 6)]),
    (3, [(2, 1, 3, 2, 1), (2, 1, 3, 1, 1), (2, 1, 3, 4, 1)]),  # testGradientsRandom (rank 5; fixed shapes)
    (-1, [(2, 3), (2, 3)]),  # testGradientsNegativeAxis (x1, x2 of shape (2, 3); axis -2 below, -1 here)
    (-2, [(2, 3), (2, 3)]),
])
def test_concat_gradients_axes(axis, shapes):
    # ConcatOpTest.testGradientsFirstDim / LastDim / Random / NegativeAxis / WithUnknownInputDim
    xs = [_rand(*s) for s in shapes]
    y = np.concatenate(xs, axis)
    grad_inp = _rand(*y.shape)
    out, gs = _grads(lambda *a: tnp.concatenate(a, axis), xs, output_gradients=grad_inp)
    np.testing.assert_array_equal(out.numpy(), y)
    np.testing.assert_array_equal(tnp.concatenate(gs, axis).numpy(), grad_inp)


def test_concat_indexed_slices_gradient_negative_axis():
    # ConcatOpTest.testGradientsNegativeAxis (_testIndexedSlicesGradientsForAxis): gather(concat(x1, x2, -2),
    # [2, 0]) with output gradient grad_inp; gather(concat(grads, -2), [2, 0]) is grad_inp
    x1 = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    x2 = np.array([[7.0, 8.0, 9.0], [10.0, 11.0, 12.0]], np.float32)
    grad_inp = _rand(2, 3)
    out, gs = _grads(lambda a, b: tnp.take(tnp.concatenate([a, b], -2), np.array([2, 0]), axis=0), [x1, x2],
                     output_gradients=grad_inp)
    np.testing.assert_array_equal(out.numpy(), [[7, 8, 9], [1, 2, 3]])
    np.testing.assert_array_equal(gs[0].numpy(), [grad_inp[1], [0, 0, 0]])
    np.testing.assert_array_equal(gs[1].numpy(), [grad_inp[0], [0, 0, 0]])


@pytest.mark.parametrize("axis, shapes, gather", [
    (0, [(4, 2, 3), (2, 2, 3), (3, 2, 3)], None),  # testTensorConcatDim0Grad
    (1, [(4, 2, 3), (4, 3, 3), (4, 1, 3)], None),  # testTensorConcatDim1Grad
    (0, [(4, 2, 3), (2, 2, 3), (3, 2, 3)], [1, 2, 0, 5]),  # testIndexedSlicesConcatDim0Grad
    (1, [(4, 2, 3), (4, 3, 3), (4, 1, 3)], [1, 2, 0, 3]),  # testIndexedSlicesConcatDim1Grad (+ _UnknownInputDim)
    (2, [(4, 2, 3), (4, 2, 1), (4, 2, 2)], [1, 2, 0, 3]),  # testIndexedSlicesConcatDim2Grad
])
def test_concat_gradient_checker(axis, shapes, gather):
    # ConcatOpTest.testTensorConcatDim{0,1}Grad / testIndexedSlicesConcatDim{0,1,2}Grad: compute_gradient_error
    # of concat (then gather(..., indices) along axis 0) < 1e-11 in float64
    xs = [_rand(*s) for s in shapes]

    def np_f(*a):
        c = np.concatenate(a, axis)
        return c if gather is None else c[gather]

    def f(*a):
        c = tnp.concatenate(a, axis)
        return c if gather is None else tnp.take(c, np.array(gather), axis=0)
    _check_jacobian(f, xs, _linear_jacobian(np_f, shapes))


@pytest.mark.parametrize("shape0", [(), (2,)])
@pytest.mark.parametrize("shape1", [(), (3,)])
def test_concat_zero_size(shape0, shape1):
    # ConcatOpTest.testZeroSize: concat of inputs with 0, 1, 2 rows along the axis, and its gradients
    axis = len(shape0)
    for n0, n1 in ((0, 0), (0, 2), (2, 0), (1, 2)):
            x0, x1 = _rand(*(shape0 + (n0,) + shape1)), _rand(*(shape0 + (n1,) + shape1))
            correct = np.concatenate([x0, x1], axis=axis)
            dc = _rand(*correct.shape)
            c, dxs = _grads(lambda a, b: tnp.concatenate([a, b], axis), [x0, x1], output_gradients=dc)
            np.testing.assert_array_equal(c.numpy(), correct)
            assert [d.shape for d in dxs] == [x0.shape, x1.shape]
            np.testing.assert_array_equal(np.concatenate([d.numpy() for d in dxs], axis=axis), dc)


def test_concat_values():
    # ConcatOpTest.testHStack / testVStack / test4DStack / testInt32GPU / testBfloat16GPU / testRefType /
    # testConcatTuple / testConcatNegativeAxis / testConcatDtype / testConcatAxisType / testConcatEmpty
    p1, p2 = _rand(4, 4), _rand(4, 4)
    np.testing.assert_array_equal(tnp.concatenate([p1, p2], 0).numpy(), np.concatenate([p1, p2], 0))
    np.testing.assert_array_equal(tnp.concatenate((p1, p2), 1).numpy(), np.concatenate([p1, p2], 1))
    a, b = _rand(2, 3, 1, 1), _rand(2, 3, 4, 1)
    np.testing.assert_array_equal(tnp.concatenate([a, b], 2).numpy(), np.concatenate([a, b], 2))
    v1, v2 = tj.Variable(p1), tj.Variable(p2)
    np.testing.assert_array_equal(tnp.concatenate([v1, v2], 0).numpy(), np.concatenate([p1, p2], 0))
    for dtype in (np.int32, np.uint32, "bfloat16"):
        c = tnp.concatenate([tj.constant([[1, 2, 3], [4, 5, 6]], dtype=dtype),
                             tj.constant([[7, 8, 9], [10, 11, 12]], dtype=dtype)], 1)
        assert c.dtype == np.dtype(dtype) and c.shape == (2, 6)
        np.testing.assert_array_equal(c.numpy().astype(np.float32), [[1, 2, 3, 7, 8, 9], [4, 5, 6, 10, 11, 12]])
    t1, t2 = [[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]
    np.testing.assert_array_equal(tnp.concatenate([t1, t2], -2).numpy(), t1 + t2)
    np.testing.assert_array_equal(tnp.concatenate([t1, t2], -1).numpy(), [[1, 2, 3, 7, 8, 9], [4, 5, 6, 10, 11, 12]])
    np.testing.assert_array_equal(tnp.concatenate([t1, t2], tj.constant(1)).numpy(),
                                  [[1, 2, 3, 7, 8, 9], [4, 5, 6, 10, 11, 12]])
    assert tnp.concatenate([[], []], 0).shape == (0,)


def test_concat_shape_errors_raise_value_error():
    # ConcatOpTest.testShapeError: rank mismatch, a non-concat dimension mismatch, axis 3 and -4 of rank 3:
    # ValueError (jax.numpy raised TypeError for the first two)
    with pytest.raises(ValueError, match="rank"):
        tnp.concatenate([tnp.full((4, 4, 4, 4), 10.0), tnp.full((4, 4, 4), 20.0)], 1)
    with pytest.raises(ValueError, match=r"\(3, 2, 1\)"):
        tnp.concatenate([tnp.full((1, 2, 1), 10.0), tnp.full((3, 2, 1), 20.0)], 1)
    for axis in (3, -4):
        with pytest.raises(ValueError):
            tnp.concatenate([tnp.full((4, 4, 4), 10.0), tnp.full((4, 4, 4), 20.0)], axis)
    # testConcatInvalidAxis / testConcatInvalidAxisInTfFunction: axis 1 of rank 1, a huge axis
    with pytest.raises(ValueError):
        tnp.concatenate([[1], [2]], 1)
    with pytest.raises(ValueError):
        tnp.concatenate([[1, 2, 3], [4, 5, 6]], 0xb500005b)
    # testConcatNoScalars / testScalars: "Can't concatenate scalars (use tf.stack instead)"
    with pytest.raises(ValueError):
        tnp.concatenate([tj.constant(7)] * 3, 0)
    arr = tj.constant([0.2, 0.3])
    with pytest.raises(ValueError):
        tnp.concatenate([arr[i] ** 2 for i in range(2)], axis=0)
    # testInvalidConcatDimTypeAndShape: concat([], 0)
    with pytest.raises(ValueError):
        tnp.concatenate([], 0)


# -- split_op_test.py ----------------------------------------------------------------------------------------
# tf.split(x, num) is tnp.split(x, num); tf.split(x, size_splits) is tnp.split(x, cumsum(size_splits)[:-1]).

def _sizes(size_splits):
    return list(np.cumsum(size_splits)[:-1])


@pytest.mark.parametrize("dtype", [np.float32, np.complex64, "bfloat16"])
def test_split_gradients(dtype):
    # SplitOpTest.testGradientsAll (_testGradientsSimple: 4 sections of axis 1; _testGradientsSimpleVariable:
    # sizes [1, 3] of axis 1); each section of the gradient is its output's gradient
    inp = _rand(4, 4, dtype=np.float32 if dtype == "bfloat16" else dtype).astype(dtype)
    grads = [_rand(4, 1, dtype=np.float32 if dtype == "bfloat16" else dtype).astype(dtype) for _ in range(4)]
    x = tj.constant(inp)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        s = tnp.split(x, 4, axis=1)
        v = tnp.split(x, _sizes([1, 3]), axis=1)
    result = tape.gradient(s, x, output_gradients=grads).numpy()
    for i in range(4):
        np.testing.assert_array_equal(result[:, i:i + 1], grads[i])
    gv = [grads[0], np.concatenate(grads[1:], 1)]
    result = tape.gradient(v, x, output_gradients=gv).numpy()
    np.testing.assert_array_equal(result[:, 0:1], gv[0])
    np.testing.assert_array_equal(result[:, 1:4], gv[1])
    # only one output reached: the other sections' gradient is zeros (TF's _SplitGrad fills them)
    result = tape.gradient(s[2], x, output_gradients=grads[2]).numpy()
    want = np.zeros((4, 4), result.dtype)
    want[:, 2:3] = grads[2]
    np.testing.assert_array_equal(result, want)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.int8, "bfloat16"])
def test_split_values(dtype):
    # SplitOpTest.testSplitRows / testSplitCols / testSplitDim0 / testIdentity / testRandom (fixed shapes)
    def data(*shape):
        return _rand(*shape, dtype=np.complex64 if dtype == np.complex64 else np.float32).__mul__(10).astype(dtype)
    for x, axis, num in [(data(4, 4), 0, 4), (data(4, 4), 1, 4), (data(6, 10, 18), 0, 3), (data(6, 7, 9), 0, 3),
                         (data(2, 2, 2), 0, 1), (data(2, 2, 2), 2, 1), (data(2, 3, 4, 1, 6), -1, 3),
                         (data(2, 6, 1), -2, 2)]:
        out = tnp.split(x, num, axis)
        want = np.split(x, num, axis)
        assert len(out) == num
        for o, w in zip(out, want):
            assert o.shape == w.shape and o.dtype == w.dtype
            np.testing.assert_array_equal(o.numpy(), w)
    # _RunAndVerifyVariable: size splits [2, 3, 2] of axis -2
    x = data(3, 7, 2)
    for o, w in zip(tnp.split(x, _sizes([2, 3, 2]), -2), [x[:, 0:2], x[:, 2:5], x[:, 5:7]]):
        np.testing.assert_array_equal(o.numpy(), w)


def test_split_special_and_empty_cases():
    inp = _rand(4, 4)
    # testSpecialCasesVariable: sizes [4] and [-1, 3] (= [1, 3]) of axis 0
    (r,) = tnp.split(inp, _sizes([4]), 0)
    np.testing.assert_array_equal(r.numpy(), inp)
    r = tnp.split(inp, _sizes([1, 3]), 0)
    np.testing.assert_array_equal(r[0].numpy(), inp[0:1])
    np.testing.assert_array_equal(r[1].numpy(), inp[1:4])
    # testDegenerateVariable: sizes [-1, 4] (= [0, 4]) and [4, -1] (= [4, 0]) of axes 0 and 1
    for axis in (0, 1):
        a, b = tnp.split(inp, _sizes([0, 4]), axis)
        assert a.shape == ((0, 4) if axis == 0 else (4, 0))
        np.testing.assert_array_equal(b.numpy(), inp)
        a, b = tnp.split(inp, _sizes([4, 0]), axis)
        np.testing.assert_array_equal(a.numpy(), inp)
        assert b.shape == ((0, 4) if axis == 0 else (4, 0))
    # testListOfScalarTensors: sizes given as scalar int32 Tensors [5, 6]
    value = _rand(11, 11)
    r = tnp.split(value, [tj.constant(5)])
    np.testing.assert_array_equal(r[0].numpy(), value[0:5])
    np.testing.assert_array_equal(r[1].numpy(), value[5:])
    # testEmpty: (8, 0, 21) split in 2 and 4 along 0, 4 along 1, 3 and 7 along 2
    inp = np.zeros((8, 0, 21), np.float32)
    for axis, num, shape in [(0, 2, (4, 0, 21)), (0, 4, (2, 0, 21)), (1, 4, (8, 0, 21)), (2, 3, (8, 0, 7)),
                             (2, 7, (8, 0, 3))]:
        out = tnp.split(inp, num, axis)
        assert len(out) == num and all(o.shape == shape for o in out)
    # testSplitVBigTensorsWithIrregularSplits (smaller): sizes [32, 16, 8, 4, 2, 1, 1] of axis 1
    x = np.linspace(1, 64 * 8, 64 * 8, dtype=np.float32).reshape(1, 64, 8)
    start = 0
    for o, size in zip(tnp.split(x, _sizes([32, 16, 8, 4, 2, 1, 1]), 1), [32, 16, 8, 4, 2, 1, 1]):
        np.testing.assert_array_equal(o.numpy(), x[:, start:start + size])
        start += size


def test_split_errors():
    # SplitOpTest.testShapeFunctionEdgeCases: axis 2 and -3 of a rank-2 value raise ValueError (tapejax raised
    # an IndexError from inside jax); 3 sections of 4 elements: "should evenly divide"
    for axis in (2, -3):
        with pytest.raises(ValueError, match="out of range"):
            tnp.split(tj.constant([[0, 1], [2, 3]]), 4, axis=axis)
    with pytest.raises(ValueError):
        tnp.split(tj.constant([0, 1, 2, 3]), 3, axis=0)


# -- pad_op_test.py ------------------------------------------------------------------------------------------

def test_np_pad():
    # PadOpTest.testNpPad: tf.pad's values in each mode
    x = np.array([[3, 3], [4, 4], [5, 5]])
    np.testing.assert_array_equal(tnp.pad(x, [[1, 2], [1, 3]]).numpy(), [
        [0, 0, 0, 0, 0, 0], [0, 3, 3, 0, 0, 0], [0, 4, 4, 0, 0, 0], [0, 5, 5, 0, 0, 0], [0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0]])
    np.testing.assert_array_equal(tnp.pad(x, [[1, 2], [1, 3]], constant_values=1).numpy(), [
        [1, 1, 1, 1, 1, 1], [1, 3, 3, 1, 1, 1], [1, 4, 4, 1, 1, 1], [1, 5, 5, 1, 1, 1], [1, 1, 1, 1, 1, 1],
        [1, 1, 1, 1, 1, 1]])
    x = np.array([[0, 1, 2], [3, 4, 9]])
    np.testing.assert_array_equal(tnp.pad(x, [[1, 1], [1, 2]], mode="reflect").numpy(), [
        [4, 3, 4, 9, 4, 3], [1, 0, 1, 2, 1, 0], [4, 3, 4, 9, 4, 3], [1, 0, 1, 2, 1, 0]])
    np.testing.assert_array_equal(tnp.pad(x, [[1, 1], [1, 2]], mode="symmetric").numpy(), [
        [0, 0, 1, 2, 2, 1], [0, 0, 1, 2, 2, 1], [3, 3, 4, 9, 9, 4], [3, 3, 4, 9, 9, 4]])


PAD_CASES = [  # (input, paddings, constant_values) of testIntTypes / testFloatTypes / testComplexTypes
    (_rand(2, 5), [[1, 0], [2, 0]], 0.0),
    (_rand(2, 3, 4), [[0, 0], [0, 0], [0, 0]], -12.34),
    (_rand(3, 4, 4), [[0, 0], [2, 2], [1, 3]], 1.41),
    (_rand(0, 3, 4), [[0, 0], [2, 1], [2, 3]], 0.0),
    (_rand(2, 5, dtype=np.complex64), [[1, 0], [2, 0]], 1234.0 - 1234.0j),
    (_rand(3, 2, 1, 1, dtype=np.complex64), [[0, 0], [0, 0], [0, 0], [0, 0]], 0j),
    ((RNG.integers(-100, 100, (4, 4, 3))).astype(np.int32), [[1, 0], [2, 3], [0, 2]], 0),
    ((RNG.integers(-100, 100, (4, 2, 1, 3))).astype(np.int8), [[0, 0], [0, 0], [0, 0], [0, 0]], -123),
]


@pytest.mark.parametrize("case", range(len(PAD_CASES)))
def test_pad_all_modes_and_gradients(case):
    # PadOpTest._testAll (testIntTypes / testFloatTypes / testComplexTypes): each mode's values equal
    # np.pad's, and for float32 inputs gradient_checker_v2's Jacobians agree (the theoretical one is pad's
    # transpose: the padded positions of a reflect/symmetric pad add into the elements they copy)
    x, paddings, cv = PAD_CASES[case]
    for mode in ("CONSTANT", "REFLECT", "SYMMETRIC", "constant", "reflect", "symmetric"):
        if x.size == 0 and mode.lower() == "reflect":
            continue  # zero-sized input is not allowed for REFLECT (as the TF test)
        kw = {"constant_values": cv} if mode.lower() == "constant" else {}
        got = tnp.pad(x, paddings, mode=mode, **kw)
        want = np.pad(x, paddings, mode=mode.lower(), **kw)
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(got.numpy(), want)
        if x.dtype == np.float32 and x.size < 60 and mode.islower():
            _check_jacobian(lambda t: tnp.pad(t, paddings, mode=mode, **kw), [x],
                            _linear_jacobian(lambda a: np.pad(a, paddings, mode=mode.lower()), [x.shape]))


@pytest.mark.parametrize("mode", ["constant", "reflect", "symmetric"])
def test_pad_padding_types(mode):
    # PadOpTest.testPaddingTypes: paddings as an int32 or int64 Tensor; the gradient (not for REFLECT)
    inputs = _rand(2, 5)
    for dtype in (tj.int32, tj.int64):
        paddings = tj.constant([[1, 0], [2, 0]], dtype=dtype)
        np.testing.assert_array_equal(tnp.pad(inputs, paddings, mode=mode).numpy(),
                                      np.pad(inputs, [[1, 0], [2, 0]], mode=mode))
        if mode != "reflect":
            _check_jacobian(lambda t: tnp.pad(t, paddings, mode=mode), [inputs],
                            _linear_jacobian(lambda a: np.pad(a, [[1, 0], [2, 0]], mode=mode), [inputs.shape]))


def test_pad_scalars():
    # PadOpTest.testScalars / testPadTypes: a scalar with paddings of shape (0, 2) (int32, int64) is itself
    for paddings in (np.zeros((0, 2), np.int32), tj.constant(np.zeros((0, 2), np.int32), dtype=tj.int64)):
        x = tj.constant(7.0)
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = tnp.pad(x, paddings)
        assert y.shape == () and y.numpy() == 7.0
        assert tape.gradient(y, x).numpy() == 1.0
    assert tnp.pad(np.asarray(7), np.zeros((0, 2), np.int32)).numpy() == 7


def test_pad_errors():
    # PadOpTest.testPaddingsNonNegative(2): "must be non-negative"
    with pytest.raises(ValueError, match="non-negative|negative"):
        tnp.pad(tj.constant([1]), tj.constant([[-1, 0]]))
    # PadOpTest.testInvalid: mode "weird" raises ValueError naming the mode (jax.numpy: NotImplementedError)
    with pytest.raises(ValueError, match="weird"):
        tnp.pad([[1, 2, 3], [4, 5, 6]], [[1, 0], [2, 1]], mode="weird")


def test_pad_constant_values_of_equal_value_but_other_type_or_sign():
    # PadOpTest.testComplexTypes then testIntTypes/testFloatTypes pad with constant_values 0j, 0 and 0.0 in turn:
    # Python calls those (and -0.0) equal, and the kernel cache keyed by them gave a float pad the kernel traced
    # for 0j (a ComplexWarning) and a 0.0 pad the negative zero of an earlier -0.0 pad. TF: tf.pad(x, p, 0.0)
    # pads with +0.0, tf.pad(x, p, -0.0) with -0.0.
    x = np.ones(2, np.float32)
    for first, second in ((-0.0, 0.0), (0.0, -0.0)):
        for deferred in (False, True):  # eager, and recorded on a tape (deferred ops keyed the same way)
            with tj.GradientTape() as tape:
                t = tj.constant(x)
                if deferred:
                    tape.watch(t)
                a = tnp.pad(t, [[1, 0]], constant_values=first)
                b = tnp.pad(t, [[1, 0]], constant_values=second)
            assert np.signbit(a.numpy()[0]) == np.signbit(first)
            assert np.signbit(b.numpy()[0]) == np.signbit(second)
    assert tnp.pad(np.ones((2,), np.complex64), [[1, 0]], constant_values=0j).dtype == np.complex64
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning from a kernel traced for 0j
        assert tnp.pad(x, [[1, 0]], constant_values=0).numpy().tolist() == [0.0, 1.0, 1.0]
        assert tnp.pad(np.ones(2, np.int32), [[1, 0]], constant_values=False).dtype == np.int32


def test_pad_collapse_adjacent_non_padded_dimensions():
    # PadOpTest.testCollapseAdjacentNonPaddedDimensions (smaller): the middle is the input, the rest zeros
    for paddings in ([[0, 0], [0, 0], [0, 0], [0, 1]], [[0, 0], [2, 3], [0, 0], [0, 0]], [[0, 0]] * 4):
        for dtype in (tj.float32, tj.int32):
            inp = tnp.ones((2, 5, 5, 3), dtype=dtype)
            padded = tnp.pad(inp, paddings).numpy()
            lo = [p[0] for p in paddings]
            np.testing.assert_array_equal(padded[tuple(slice(b, b + s) for b, s in zip(lo, inp.shape))], inp.numpy())
            assert padded.sum() == inp.numpy().sum()


# -- gather_nd_op_test.py: gather_nd(params, indices) is params[tuple(moveaxis(indices, -1, 0))] -------------

def _gather_nd(params, indices):
    indices = np.asarray(indices)
    return params[tuple(np.moveaxis(indices, -1, 0))]


@pytest.mark.parametrize("indices, inputs, grad_vals, expected", [
    # testGradientsRank2Elements
    ([[0, 0], [1, 1]], [[1, 2], [3, 4]], [1, 2], [[1, 0], [0, 2]]),
    # testGradientsRank2Slices
    ([[1], [0]], [[1, 2], [3, 4]], [[1, 2], [3, 4]], [[3, 4], [1, 2]]),
    # testGradientsRank3Elements (and testGradientsInt64Indices: the same with int64 indices)
    ([[[0, 1], [1, 0]], [[0, 0], [1, 1]]], [[[1, 3], [5, 7]], [[2, 4], [6, 8]]],
     [[[1, 2], [3, 4]], [[5, 6], [7, 8]]], [[[5, 6], [1, 2]], [[3, 4], [7, 8]]]),
    # testGradientsRank7Elements
    ([[[[[[[0, 0, 0, 0, 0, 1], [0, 0, 1, 0, 0, 0]]]], [[[[0, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, 1]]]]]]],
     [[[[[[[1, 3], [5, 7]]]], [[[[2, 4], [6, 8]]]]]]], [[[[[[[1, 2], [3, 4]]]], [[[[5, 6], [7, 8]]]]]]],
     [[[[[[[5, 6], [1, 2]]]], [[[[3, 4], [7, 8]]]]]]]),
    # testGradientsRank2SlicesWithEmptySpace
    ([[2], [0], [5]], [list(range(1, 10))] * 6, [[1] * 9, [2] * 9, [3] * 9],
     [[2] * 9, [0] * 9, [1] * 9, [0] * 9, [0] * 9, [3] * 9]),
])
def test_gather_nd_gradients(indices, inputs, grad_vals, expected):
    # GatherNdTest.testGradients*: gradients([gather_nd(inputs, indices)], [inputs], [grad_vals])
    for itype in (np.int32, np.int64):
        idx = np.asarray(indices, itype)
        _, (g,) = _grads(lambda x: _gather_nd(x, idx), [np.asarray(inputs, np.float32)],
                         output_gradients=np.asarray(grad_vals, np.float32))
        np.testing.assert_array_equal(g.numpy(), expected)


def test_gather_nd_values():
    # GatherNdTest.testSimpleDtype / testIndexScalar / testParamsRankLargerThanIndex{IndexScalar,}Slices /
    # testHigherRankParams{LargerThanIndexSlices,AndIndicesLargerThanIndexSlices} /
    # testEmptyIndicesAndParamsOKButJustEmptyParamsFails (the OK half)
    for dtype in (np.float32, np.int32, np.complex64, np.float16):
        params = tj.constant(np.array([8, 1, 2, 3, 7, 5], dtype=dtype))
        got = _gather_nd(params, np.array([[4], [4], [0]]))
        assert got.shape == (3,) and got.dtype == dtype
        np.testing.assert_array_equal(got.numpy(), np.array([7, 7, 8], dtype))
    params = tj.constant(np.array([[-8, -1, -2, -3, -7, -5], [8, 1, 2, 3, 7, 5]], np.float32).T)
    got = _gather_nd(params, [4, 1])
    assert got.shape == () and got.numpy() == 7
    np.testing.assert_array_equal(_gather_nd(params, [4]).numpy(), [-7, 7])
    np.testing.assert_array_equal(_gather_nd(params, [[4], [4], [0]]).numpy(), [[-7, 7], [-7, 7], [-8, 8]])
    p3 = np.array([[[-8, -1, -2, -3, -7, -5], [8, 1, 2, 3, 7, 5]],
                   [[-80, -10, -20, -30, -70, -50], [80, 10, 20, 30, 70, 50]]], np.float32).T
    np.testing.assert_array_equal(_gather_nd(tj.constant(p3), [[4], [4], [0]]).numpy(), p3[[4, 4, 0]])
    got = _gather_nd(tj.constant(p3), [[[3], [2], [1]], [[4], [4], [0]]])
    np.testing.assert_array_equal(got.numpy(), p3[[3, 2, 1, 4, 4, 0]].reshape(2, 3, 2, 2))
    ones = tj.constant(np.ones((3, 3), np.float32))
    assert _gather_nd(ones, np.empty((0, 2), np.int32)).shape == (0,)
    assert _gather_nd(ones, np.empty((0, 1), np.int32)).shape == (0, 3)
    assert _gather_nd(tj.constant(np.empty((0, 3), np.float32)), np.empty((0, 2), np.int32)).shape == (0,)


def test_gather_nd_bad_indices():
    # GatherNdTest.testBadIndicesCPU / testBadIndicesWithSlicesCPU: "indices[0,1] = [7] does not index into
    # param shape [3]" (an error, never a clamped value); API.md: IndexError
    with pytest.raises(IndexError):
        _gather_nd(tj.constant([0, 1, 2]), [[[0], [7]]])
    with pytest.raises(IndexError):
        _gather_nd(tj.constant([[0, 1, 2]]), [[[0], [0], [1]]])
    # testEmptyIndicesAndParamsOKButJustEmptyParamsFails: "Requested more than 0 entries, but params is empty"
    with pytest.raises(IndexError):
        _gather_nd(tj.constant(np.empty((0, 3), np.float32)), np.zeros((1, 2), np.int32))


# -- where_op_test.py: tf.where(x) is stack(tnp.where(x), -1) (the indices of the true elements) ------------

def _where_indices(x):
    return np.stack([i.numpy() for i in tnp.where(x)], axis=-1)


def test_where_indices():
    # WhereOpTest.testBasicVec / testBasicMat / testBasic3Tensor / testRandom* (V1 and V2): row-major indices
    np.testing.assert_array_equal(_where_indices(np.asarray([True, False])), [[0]])
    np.testing.assert_array_equal(_where_indices(np.asarray([False, True, False])), [[1]])
    np.testing.assert_array_equal(_where_indices(np.asarray([False, False, True, False, True])), [[2], [4]])
    np.testing.assert_array_equal(_where_indices(tj.constant([[True, False], [True, False]])), [[0, 0], [1, 0]])
    x = np.asarray([[[True, False], [True, False]], [[False, True], [False, True]], [[False, False], [False, True]]])
    np.testing.assert_array_equal(_where_indices(x), [[0, 0, 0], [0, 1, 0], [1, 0, 1], [1, 1, 1], [2, 1, 1]])
    for dtype in (np.bool_, np.float32, np.complex64):
        x = (RNG.standard_normal((7, 3, 5)) > 0).astype(dtype)
        np.testing.assert_array_equal(_where_indices(tj.constant(x)), np.vstack(np.where(np.abs(x) > 0)).T)


def test_where_three_arguments_and_broadcasting():
    # WhereOpTest.testThreeArgument / testV2Broadcasting / testV2ScalarBroadcasting / testV2VectorBroadcasting /
    # testV2PredBroadcasting / testBatchSelect (smaller)
    x = np.array([[-2, 3, -1], [1, -3, -3]])
    np.testing.assert_array_equal(tnp.where(tj.constant(x) > 0, x * x, -x).numpy(), np.where(x > 0, x * x, -x))
    f = RNG.standard_normal((3, 5, 1, 1)).astype(np.float32)
    zeros, ones = np.zeros((7, 11), np.float32), np.ones((7, 11), np.float32)
    np.testing.assert_array_equal(tnp.where(tj.constant(f) < 0, zeros, ones).numpy(), np.where(f < 0, zeros, ones))
    np.testing.assert_array_equal(tnp.where(tj.constant(True), zeros, ones).numpy(), zeros)
    np.testing.assert_array_equal(tnp.where(tj.constant([True]), np.zeros(7), np.ones(7)).numpy(), np.zeros(7))
    pred = np.array([1, 0, 0]).reshape((3, 1))
    a, b = _rand(3, 4), _rand(3, 4)
    np.testing.assert_array_equal(tnp.where(pred, a, b).numpy(), np.where(pred, a, b))
    x = np.array([[-2, 3, -1] * 4, [1, -3, -3] * 4] * 8)
    c_mat = np.array([[False] * 12, [True] * 12] * 8)
    np.testing.assert_array_equal(tnp.where(c_mat, x * x, -x).numpy(), np.where(c_mat, x * x, -x))


def test_where_wrong_numbers():
    # WhereOpTest.testWrongNumbers / testV2WrongNumbers: x without y (or y without x) raises ValueError (tapejax
    # raised a TypeError about the None argument)
    with pytest.raises(ValueError):
        tnp.where([False, True], [1, 2], None)
    with pytest.raises(ValueError):
        tnp.where([False, True], None, [1, 2])


# -- array_ops_test.py ---------------------------------------------------------------------------------------

def test_batch_matrix_transpose():
    # BatchMatrixTransposeTest.testNonBatchMatrix / testBatchMatrix / testConjugate: matrix_transpose is
    # swapaxes(x, -1, -2) (conjugate=True: conj of it); testTensorWithStaticRankLessThanTwoRaises...: a vector raises
    np.testing.assert_array_equal(tnp.swapaxes(tj.constant([[1, 2, 3], [4, 5, 6]]), -1, -2).numpy(),
                                  [[1, 4], [2, 5], [3, 6]])
    batch = [[[1, 2, 3], [4, 5, 6]], [[11, 22, 33], [44, 55, 66]]]
    np.testing.assert_array_equal(tnp.swapaxes(tj.constant(batch), -1, -2).numpy(),
                                  [[[1, 4], [2, 5], [3, 6]], [[11, 44], [22, 55], [33, 66]]])
    m = tj.constant([[1 + 1j, 2 + 2j, 3 + 3j], [4 + 4j, 5 + 5j, 6 + 6j]])
    np.testing.assert_array_equal(tnp.conj(tnp.swapaxes(m, -1, -2)).numpy(),
                                  [[1 - 1j, 4 - 4j], [2 - 2j, 5 - 5j], [3 - 3j, 6 - 6j]])
    with pytest.raises(ValueError):
        tnp.swapaxes(tj.constant([1, 2, 3]), -1, -2)
    # testNarrowMatrixConjugateTranspose (smaller): tile of a column of i*range(n) along 2 columns
    vector = tnp.array(1j * np.arange(8, dtype=np.float32), dtype=tj.complex64)
    narrow = tnp.tile(tnp.expand_dims(vector, -1), [1, 2])
    want = tnp.tile(tnp.expand_dims(vector, 0), [2, 1]).numpy()
    np.testing.assert_array_equal(tnp.swapaxes(narrow, -1, -2).numpy(), want)
    np.testing.assert_array_equal(tnp.conj(tnp.swapaxes(narrow, -1, -2)).numpy(), -want)


@pytest.mark.parametrize("ndims_mask, arr_shape, axis", [
    (1, (2, 5), 1), (2, (2, 5), 1), (1, (1, 1), 1),  # testMaskDim1ArrDim2Axis1 / testMaskDim2ArrDim2Axis1
    (1, (1,), None), (1, (10,), None),  # testMaskDim1ArrDim1
    (1, (2, 5), None), (2, (2, 2), None), (2, (2, 5), None), (2, (1, 2, 2), None), (2, (2, 2, 1), None),
])
def test_boolean_mask(ndims_mask, arr_shape, axis):
    # BooleanMaskTest.CheckVersusNumpy: boolean_mask(arr, mask, axis) is arr[mask] (arr[:, mask] for axis 1)
    arr = _rand(*arr_shape)
    lead = 0 if axis is None else axis
    for mask in (RNG.integers(0, 2, arr_shape[lead:lead + ndims_mask]).astype(bool),
                 np.zeros(arr_shape[lead:lead + ndims_mask], bool)):  # and testEmptyOutput
        idx = (slice(None),) * lead + (mask,)
        got = tj.constant(arr)[idx]
        np.testing.assert_array_equal(got.numpy(), arr[idx])
        got = tj.constant(arr)[(slice(None),) * lead + (tj.constant(mask),)]
        np.testing.assert_array_equal(got.numpy(), arr[idx])


def test_boolean_mask_empty_input_and_errors():
    # BooleanMaskTest.testEmptyInput2D / testEmptyInput1D
    arr = np.array([[], []], np.float32)
    assert tj.constant(arr)[np.array([True, False])].shape == (1, 0)
    assert tj.constant(np.array([], np.float32))[np.array([], bool)].shape == (0,)
    # testMaskHasMoreDimsThanTensorRaises / testMaskShapeDifferentThanFirstPartOfTensorShapeRaises: the mask's
    # shape does not fit ("incompatible"); API.md: IndexError, as NumPy
    with pytest.raises(IndexError):
        tj.constant([1, 2, 3, 4])[np.array([[True, True], [False, False]])]
    with pytest.raises(IndexError):
        tj.constant([[1, 2], [3, 4]])[np.array([True, True, True])]
    # testMaskWithAxisTensor: boolean_mask([1, 2, 3], [True, False, True], axis=0)
    np.testing.assert_array_equal(tj.constant([1, 2, 3])[tj.constant([True, False, True])].numpy(), [1, 3])


def test_operator_shape():
    # OperatorShapeTest.testExpandScalar / testSqueezeScalar / testSqueezeMatrix / testSqueezeScalarDim
    assert tnp.expand_dims(tj.constant(1.0), [0]).shape == (1,)
    assert tnp.squeeze(tj.constant(1.0), ()).shape == ()
    assert tnp.squeeze(tj.constant([[1, 2, 3]]), [0]).shape == (3,)
    assert tnp.squeeze(tj.constant([[1, 2, 3]]), 0).shape == (3,)
    # "Can not squeeze dim[1], expected a dimension of 1, got 3"
    with pytest.raises(ValueError, match="squeeze"):
        tnp.squeeze(tj.constant([[1, 2, 3]]), [1])


@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.bool_, np.float16, np.complex64, "bfloat16"])
def test_reverse_v2(dtype):
    # ReverseV2Test.testReverse0DimAuto / testReverse1DimAuto / testReverse2DimAuto: reverse_v2(x, axis) with the
    # axis as a list or an int32/int64 Tensor, also negative
    assert tnp.flip(tj.constant(4), []).numpy() == 4
    x1 = np.array([1, 120, 3, 40, 5]).astype(dtype)
    x2 = np.array([[1, 120, 3], [4, 5, 60]]).astype(dtype)
    for axis in ([0], tj.constant([0]), tj.constant([0], dtype=tj.int64)):
        np.testing.assert_array_equal(tnp.flip(x1, axis).numpy(), x1[::-1])
    for axis, want in (([0], x2[::-1, :]), ([-2], x2[::-1, :]), ([1], x2[:, ::-1]), ([-1], x2[:, ::-1]),
                       ([1, 0], x2[::-1, ::-1])):
        got = tnp.flip(tj.constant(x2), tj.constant(axis))
        assert got.dtype == x2.dtype
        np.testing.assert_array_equal(got.numpy(), want)


def test_reverse_rows_and_columns_and_empty():
    # ReverseV2Test.testReverseRowsOf3Channels / RowsOf4Channels / ColumnsOf3Channels (a few sizes) and
    # testReverseInvalidShape (a zero-size input)
    for outer, middle, ch in ((1, 0, 3), (2, 7, 3), (2, 5, 4), (9, 2, 3)):
        x = np.arange(outer * middle * ch, dtype=np.float32).reshape(outer, middle, ch)
        np.testing.assert_array_equal(tnp.flip(x, [1]).numpy(), x[:, ::-1, :])
        np.testing.assert_array_equal(tnp.flip(x, [0]).numpy(), x[::-1, :, :])
    assert tnp.flip(np.ndarray(shape=[0, 1, 1], dtype=np.float32), axis=[1]).shape == (0, 1, 1)


def test_reverse_gradient():
    # reverse_v2's gradient (array_grad._ReverseV2Grad) is the reverse of the output gradient: the Jacobian
    x = _rand(2, 3)
    for axis in ([0], [1], [0, 1]):
        _check_jacobian(lambda t: tnp.flip(t, axis), [x], _linear_jacobian(lambda a: np.flip(a, axis), [x.shape]))


REF_TENSOR = np.arange(1, 19, dtype=np.float32).reshape(3, 2, 3)
RAW5 = np.array([[[[[1, 2, 4, 5], [5, 6, 7, 8], [9, 10, 11, 12]]],
                  [[[13, 14, 15, 16], [17, 18, 19, 20], [21, 22, 23, 24]]]]])


def _check_slices(x, specs):
    """StridedSliceChecker: ``x[spec]`` on a Tensor equals NumPy's, value and shape."""
    t = tj.constant(x)
    for spec in specs:
        got = t[spec]
        want = x[spec]
        assert got.shape == want.shape, spec
        np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.complex64, np.bool_, "bfloat16"])
def test_strided_slice_basic(dtype):
    # StridedSliceTest.test_basic_slice (the checker gives complex values an imaginary part, bools are x % 3)
    x = REF_TENSOR.astype(dtype) if dtype != np.bool_ else (REF_TENSOR % 3).astype(bool)
    if dtype == np.complex64:
        x = x - 1j * x
    _check_slices(x, [(slice(None),) * 3, (slice(None, None, 1),) * 3, (slice(None), slice(None, None, 5),
                  slice(None, None, 2)), np.s_[::-1, :, :], np.s_[:, ::-1, :], np.s_[:, :, ::-1], np.s_[-2::-1, :, ::1],
                  np.s_[-2::-1, :, ::2]])
    five = np.array(5).astype(dtype)
    _check_slices(five, [None, Ellipsis, ()])
    # test_int16_indices (the cases TF accepts): int16 Tensors as an index and as slice bounds
    t = tj.constant(x)
    i16 = lambda v: tj.constant(v, dtype=tj.int16)  # noqa: E731
    np.testing.assert_array_equal(t[i16(1)].numpy(), x[1])
    np.testing.assert_array_equal(t[::i16(1), i16(1)::i16(5), ::2].numpy(), x[::1, 1::5, ::2])
    np.testing.assert_array_equal(t[i16(1):i16(5):i16(2), 1:2, :].numpy(), x[1:5:2, 1:2, :])


def test_strided_slice_cases():
    # StridedSliceTest.testDegenerateSlices / testEllipsis / testShrink / testExpand / testOptimizedCases /
    # testTensorIndexing / testMasks / testExpandVariable / testBothNewAxisAndShrink
    _check_slices(REF_TENSOR, [np.s_[0:-1:-1, :, :], np.s_[-1:0, :, :], np.s_[-1:0, 2:2, 2:3:-1]])
    aligned = np.arange(1, 97, dtype=np.float32).reshape(3, 4, 8)
    _check_slices(aligned, [np.s_[1:0], np.s_[:], np.s_[...], np.s_[None, ..., None], np.s_[1:], np.s_[None, 1:]])
    raw = RAW5.astype(np.int32)
    _check_slices(raw, [np.s_[0:], np.s_[0:, ...], np.s_[...], np.s_[0:1, ...], np.s_[..., 0:1],
                        np.s_[0:1, ..., 0:1], np.s_[:, :, :, :, 3], np.s_[..., 3], np.s_[:, 0], np.s_[:, :, 0],
                        np.s_[None], np.s_[..., None], np.s_[..., None, :], np.s_[:, ..., None, :, :],
                        np.s_[:, :, None, :, 2::-1], np.s_[None, ..., None], raw >= 4, raw < 19, np.array(0)])
    t = tj.constant(raw)
    bar, bar2 = tj.constant(2), tj.constant(3)
    np.testing.assert_array_equal(t[..., bar:bar2].numpy(), raw[..., 2:3])
    np.testing.assert_array_equal(t[..., bar].numpy(), raw[..., 2])
    np.testing.assert_array_equal(t[..., 2 ** 64 // 2 ** 63].numpy(), raw[..., 2])
    ref = tj.constant(REF_TENSOR)
    np.testing.assert_array_equal(ref[ref > 2].numpy(), REF_TENSOR[REF_TENSOR > 2])
    np.testing.assert_array_equal(ref[ref <= 5].numpy(), REF_TENSOR[REF_TENSOR <= 5])
    np.testing.assert_array_equal(ref[tj.constant(np.array(0))].numpy(), REF_TENSOR[0])
    raw1 = np.array([[1, 2, 4, 5], [5, 6, 7, 8], [9, 10, 11, 12]])
    mask = np.array([True, False, True])
    np.testing.assert_array_equal(tj.constant(raw1)[mask].numpy(), raw1[mask])
    np.testing.assert_array_equal(tj.constant(raw1)[tj.constant(mask)].numpy(), raw1[mask])
    y = tj.Variable(7, dtype=tj.int32)[None]
    assert y.shape == (1,) and y.numpy().tolist() == [7]
    ones = tj.constant([[1, 1], [1, 1]], dtype=tj.int16)
    np.testing.assert_array_equal(tj.function(lambda v: v[None, :, 0])(ones).numpy(), [[1, 1]])


def test_strided_slice_errors():
    # StridedSliceTest.testTensorIndexingTypeError: a string, a float, a float Tensor or a list of floats as an
    # index raise TypeError
    ref = tj.constant(REF_TENSOR)
    for bad in ("foo", 0.0, tj.constant(0.0), [2.1, -0.7, 1.5]):
        with pytest.raises(TypeError):
            ref[bad]
    # testEllipsis: multiple ellipses ("Multiple ellipses"; NumPy's IndexError here)
    with pytest.raises((ValueError, IndexError)):
        tj.constant(RAW5)[..., :, ...]
    # StridedSliceShapeTest.testScalarInput: "Attempting to slice scalar input" (NumPy's IndexError here)
    with pytest.raises((ValueError, IndexError)):
        tj.constant(3)[0:1]


def test_strided_slice_shapes():
    # StridedSliceShapeTest.testTensorShapeUncertain (with the unknown dimension known, 3) and
    # testTensorValuedIndexShape: the static shapes of the results
    x = tj.constant(np.zeros((5, 3, 7), np.float32))
    for spec, shape in [(np.s_[3:5], (2, 3, 7)), (np.s_[3:5, :, 4], (2, 3)), (np.s_[3:5, 3:4, 4], (2, 0)),
                        (np.s_[3:5, :, 5:10], (2, 3, 2)), (np.s_[3:5, :, 50:3], (2, 3, 0)),
                        (np.s_[3:5, :, None, 50:3], (2, 3, 1, 0)), (np.s_[1:5:2, :, None, 50:3], (2, 3, 1, 0)),
                        (np.s_[:5:3, :, None, 50:3], (2, 3, 1, 0)), (np.s_[:2:3, :, None, 50:3], (1, 3, 1, 0)),
                        (np.s_[::-1, :, None, ::-2], (5, 3, 1, 4))]:
        assert x[spec].shape == shape, spec
    y = tj.constant(1)
    assert x[y].shape == (3, 7) and x[y, ::-1].shape == (3, 7) and x[y, ::-2].shape == (2, 7)


# -- transpose_op_test.py ------------------------------------------------------------------------------------

@pytest.mark.parametrize("x", [
    np.arange(0, 21).reshape([3, 7]).astype(np.float32),  # testFloat / testHalf / testInt* (3 x 7)
    np.arange(0, 210).reshape([2, 3, 5, 7]).astype(np.float32),
    np.arange(0, 16).reshape([1, 2, 1, 2, 1, 2, 1, 2]).astype(np.float16),
    (1 + 2j) * np.arange(0, 21).reshape([3, 7]).astype(np.complex64),  # testComplex64
    np.array(1 + 2j).astype(np.complex64),
    np.arange(0, 210).reshape([2, 3, 5, 7]).astype(np.int8),  # testInt8 / testInt16 / testInt32
    np.arange(0, 2).reshape((1, 1, 1, 2, 1)).astype(np.float32),  # test1D
    np.arange(8).reshape([2, 1, 2, 1, 2]).astype(np.float32),  # testSingletonDims
])
def test_transpose(x):
    # TransposeTest._compare: two permutations and the default (reversed) one, conjugated too for complex values
    # (transpose(x, p, conjugate=True) is conj(transpose(x, p))), with the gradient checker for float32/complex64
    n = x.ndim
    perms = [None] + ([tuple(RNG.permutation(n)) for _ in range(2)] if n else [])
    for p in perms:
        want = np.transpose(x, p)
        got = tnp.transpose(x, p)
        assert got.shape == want.shape and got.dtype == x.dtype
        np.testing.assert_array_equal(got.numpy(), want)
        if np.iscomplexobj(x):
            np.testing.assert_array_equal(tnp.conj(tnp.transpose(x, p)).numpy(), np.conj(want))
        if x.dtype == np.float32 and x.size <= 16:
            _check_jacobian(lambda t: tnp.transpose(t, p), [x], _linear_jacobian(lambda a: np.transpose(a, p),
                                                                                  [x.shape]))


def test_transpose_complex_gradient():
    # TransposeTest.testComplex64's gradient check: transpose (and its conjugate) of a complex input; the tape's
    # gradient with output gradient dy is dy transposed back (conjugated for conjugate=True: TF's convention)
    x = (1 + 2j) * np.arange(0, 6).reshape([2, 3]).astype(np.complex64)
    dy = (_rand(3, 2) + 1j * _rand(3, 2)).astype(np.complex64)
    _, (g,) = _grads(lambda t: tnp.transpose(t), [x], output_gradients=dy)
    np.testing.assert_array_equal(g.numpy(), dy.T)
    _, (g,) = _grads(lambda t: tnp.conj(tnp.transpose(t)), [x], output_gradients=dy)
    np.testing.assert_array_equal(g.numpy(), np.conj(dy.T))


def test_transpose_shapes_and_perm_types():
    # TransposeTest.testNop / testSimple / testPermType / testTranspose2DAuto / testTransposeShapes /
    # testNullTensor / testScalar / testNegativePerm
    x = np.arange(0, 8).reshape([2, 4]).astype(np.float32)
    np.testing.assert_array_equal(tnp.transpose(x, [0, 1]).numpy(), x)
    for p in (np.array([1, 0], np.int32), tj.constant([1, 0]), tj.constant([1, 0], dtype=tj.int64)):
        np.testing.assert_array_equal(tnp.transpose(x, p).numpy(), x.T)
    np.testing.assert_array_equal(tnp.transpose([[1, 2, 3], [4, 5, 6]]).numpy(), [[1, 4], [2, 5], [3, 6]])
    assert tnp.transpose(tnp.ones((), dtype=tj.int32)).shape == ()
    assert tnp.transpose(tnp.ones((100,), dtype=tj.int32)).shape == (100,)
    assert tnp.transpose(tnp.ones((100, 37), dtype=tj.int32)).shape == (37, 100)
    assert tnp.transpose(tnp.ones((100, 37), dtype=tj.int32), [0, 1]).shape == (100, 37)
    assert tnp.transpose(tnp.ones((100, 37, 15), dtype=tj.int32)).shape == (15, 37, 100)
    assert tnp.transpose(tnp.ones((100, 37, 15), dtype=tj.int32), [2, 0, 1]).shape == (15, 100, 37)
    assert tnp.transpose(tnp.ones((100, 37, 15), dtype=tj.int32), [-1, -3, -2]).shape == (15, 100, 37)
    assert tnp.transpose(tnp.zeros((1, 4, 0)), [0, 2, 1]).shape == (1, 0, 4)
    assert tnp.transpose(tj.constant(42.0)).numpy() == 42.0
    # testTransposeDynamicShapes (inside tj.function)
    np.testing.assert_array_equal(tj.function(lambda v: tnp.transpose(v))(tj.constant([[1, 2, 3], [4, 5, 6]]))
                                  .numpy(), [[1, 4], [2, 5], [3, 6]])


def test_transpose_errors():
    # TransposeTest.testError: a rank-2 perm ("must be rank 1"), an axis out of range ("3 is out of range"), a
    # repeated axis ("2 is missing"): ValueError. tapejax wrapped 3 around to 0, so [1, 2, 3] was the valid
    # permutation (1, 2, 0) and gave a wrong result silently.
    x = np.arange(0.0, 30).reshape([2, 3, 5]).astype(np.float32)
    with pytest.raises(ValueError, match="rank 1"):
        tnp.transpose(x, [[0, 1], [2, 3]])
    for perm in ([0, 1, 3], [1, 2, 3]):
        with pytest.raises(ValueError, match="3 is out of range"):
            tnp.transpose(x, perm)
    with pytest.raises(ValueError, match="permutation"):
        tnp.transpose(x, [0, 1, 1])


# -- scan_ops_test.py: cumsum / cumprod (tj.numpy has no exclusive/reverse forms) ----------------------------

def _cumprod_jacobian(x):
    """d cumprod(x)_i / d x_j = prod_{k <= i, k != j} x_k for j <= i (checked against TF's tape.jacobian)."""
    n = x.size
    return np.array([[np.prod([x[k] for k in range(i + 1) if k != j]) if j <= i else 0.0 for j in range(n)]
                     for i in range(n)])


@pytest.mark.filterwarnings("ignore:overflow encountered")  # float16 cumprod of 1..20 is inf, in TF too
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", [np.int32, np.float16, np.float32, np.complex64])
def test_scan_values(name, dtype):
    # CumsumTest / CumprodTest.testEmpty / test1D / test2D / test3D (exclusive=False, reverse=False)
    f, np_f = getattr(tnp, name), getattr(np, name)
    start = 0 if name == "cumsum" else 1
    for shape, axes in (((0,), (-1, 0)), ((5,), (-1, 0)), ((2, 5), (-2, -1, 0, 1)), ((2, 2, 5), (-3, -1, 1, 2))):
        x = (np.arange(int(np.prod(shape))) + start).reshape(shape).astype(dtype)
        for axis in axes:
            got = f(x, axis)
            assert got.dtype == dtype
            np.testing.assert_allclose(got.numpy(), np_f(x, axis=axis))


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scan_invalid_axis(name):
    # CumsumTest / CumprodTest.testInvalidAxis: "Expected scan axis in the range [-2, 2)" and "axis must be a
    # scalar" (a list gave an unhashable-type error from the kernel cache)
    x = np.arange(0, 10).reshape([2, 5]).astype(np.float32)
    for axis in (-3, 2):
        with pytest.raises(ValueError, match="out of range"):
            getattr(tnp, name)(x, axis)
    with pytest.raises(TypeError, match="axis must be one integer"):
        getattr(tnp, name)(x, [0])


def test_cumsum_gradient():
    # CumsumTest.testGradient / testGradient2D (exclusive=False, reverse=False; reverse via flip): the Jacobian of
    # a cumulative sum is lower triangular ones (x = arange, float64 in TF)
    x = np.arange(0, 8).astype(np.float32)
    for axis in (-1, 0):
        _check_jacobian(lambda t: tnp.cumsum(t, axis), [x], np.tril(np.ones((8, 8))))
    _check_jacobian(lambda t: tnp.flip(tnp.cumsum(tnp.flip(t, 0), 0), 0), [x], np.triu(np.ones((8, 8))))
    x = np.arange(0, 10).reshape([2, 5]).astype(np.float32)
    for axis in (-1, 0, 1):
        _check_jacobian(lambda t: tnp.cumsum(t, axis), [x], _linear_jacobian(lambda a: np.cumsum(a, axis),
                                                                             [x.shape]))


def test_cumprod_gradient():
    # CumprodTest.testGradient / testGradient2D (x = 1..8, exclusive=False, reverse=False)
    x = np.arange(1, 9).astype(np.float32)
    for axis in (-1, 0):
        _check_jacobian(lambda t: tnp.cumprod(t, axis), [x], _cumprod_jacobian(x))
    x = np.arange(1, 9).reshape([2, 4]).astype(np.float32)
    want = np.zeros((8, 8))  # along axis 1: one block per row; along axis 0: pairs (x[0, j], x[1, j])
    want[:4, :4], want[4:, 4:] = _cumprod_jacobian(x[0]), _cumprod_jacobian(x[1])
    for axis in (-1, 1):
        _check_jacobian(lambda t: tnp.cumprod(t, axis), [x], want)
    want = np.zeros((8, 8))
    for j in range(4):
        want[j, j] = 1
        want[4 + j, j], want[4 + j, 4 + j] = x[1, j], x[0, j]
    for axis in (-2, 0):
        _check_jacobian(lambda t: tnp.cumprod(t, axis), [x], want)


# -- einsum_op_test.py ---------------------------------------------------------------------------------------

def _complex_or_real(shape, dtype, r):
    x = np.array(r.randn(*shape), dtype)
    return x + 1j * np.array(r.randn(*shape), dtype) if np.issubdtype(dtype, np.complexfloating) else x


def _check_multilinear_gradient(f, np_f, xs, antilinear=()):
    """The gradient of a function linear in each input (einsum, matmul) with a random output gradient ``dy``:
    TF's is ``conj(J_k)^T dy`` for each input k, J_k the Jacobian with the others fixed, and ``J_k^T conj(dy)``
    for an input the function conjugates (``antilinear``: an adjoint operand). Both checked against TF 2.21 for
    complex einsum and matmul: its complex convention."""
    r = np.random.RandomState(1)
    y = np.asarray(np_f(*xs))
    dy = _complex_or_real(y.shape, y.dtype, r).astype(y.dtype)
    out, gs = _grads(f, xs, output_gradients=dy)
    np.testing.assert_allclose(out.numpy(), y, rtol=1e-4, atol=1e-4)
    for k, (x, g) in enumerate(zip(xs, gs)):
        jac = _linear_jacobian(lambda v: np_f(*[v if i == k else xs[i] for i in range(len(xs))]), [x.shape],
                               dtype=x.dtype)
        assert g.dtype == x.dtype and g.shape == x.shape
        want = jac.T @ np.conj(dy.reshape(-1)) if k in antilinear else np.conj(jac).T @ dy.reshape(-1)
        np.testing.assert_allclose(g.numpy(), want.reshape(x.shape), rtol=1e-4, atol=1e-4)


EINSUM_GRAD_CASES = [  # EinsumGradTest (the subscripts tf.einsum accepts; a few per test, shapes as TF's)
    ("->", [()]), ("aaa->a", [(3, 3, 3)]), ("abcd->da", [(3, 5, 4, 2)]),  # testUnary
    ("a...a->a...", [(2, 1, 2)]), ("...ijk->...ki", [(1, 3, 4, 5)]), ("ab...cd->da...", [(3, 5, 2, 3, 4, 2)]),
    (",->", [(), ()]), ("ab,b->a", [(3, 4), (4,)]), ("nij,jk->nik", [(5, 2, 3), (3, 4)]),
    ("sa,shb->shab", [(2, 1), (2, 3, 4)]),  # testBinarySimple
    ("ibnd,ijbn->jnd", [(1, 0, 5, 10), (1, 1, 0, 5)]),  # testEmpty
    ("ijkm,ijln->ijmn", [(2, 3, 3, 4), (2, 3, 3, 2)]), ("abce,badf->abcd", [(1, 2, 3, 4), (2, 1, 4, 3)]),
    ("aba,a->b", [(3, 4, 3), (3,)]), ("aab,bcc->ac", [(2, 2, 3), (3, 4, 4)]),  # testRepeatedLabels
    ("aaab,bc->c", [(0, 0, 0, 3), (3, 4)]),  # testEmptyWithRepeatedLabels
    ("...ij,...jk->...ik", [(3, 1, 3, 2), (1, 5, 2, 4)]), ("i...j,j...k->i...k", [(3, 1, 2, 2), (2, 2, 3, 1, 4)]),
    ("aab,b...c->a...c", [(1, 1, 3), (3, 1, 1, 4)]),  # testBroadcasting*
]


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_einsum_gradients(dtype):
    # EinsumGradTest._check_gradient (float32 and complex64, each on half the cases, to keep the file fast)
    r = np.random.RandomState(0)
    for s, shapes in EINSUM_GRAD_CASES[::2] if dtype == np.float32 else EINSUM_GRAD_CASES[1::2]:
        xs = [_complex_or_real(shape, dtype, r) for shape in shapes]
        _check_multilinear_gradient(lambda *a: tnp.einsum(s, *a), lambda *a: np.einsum(s, *a), xs)


EINSUM_VALUE_CASES = [  # EinsumOpTest (np.einsum's value)
    ("ab->", [(3, 3)]), ("abc->b", [(3, 4, 5)]), ("abc->cab", [(3, 4, 5)]),  # testUnary
    ("aa->", [(3, 3)]), ("aa->a", [(3, 3)]), ("aabcc->ac", [(3, 3, 5, 4, 4)]), ("aabcd->ad", [(3, 3, 5, 4, 4)]),
    ("...ijk->...ki", [(2, 2, 3, 4, 5)]), ("i...ii->...i", [(3, 2, 3, 3)]),  # testUnaryEllipsis
    ("ab,bc->ac", [(3, 4), (4, 5)]), ("ba,b->", [(3, 2), (3,)]), ("aab,bcc->ac", [(2, 2, 3), (3, 4, 4)]),
    ("...mk,...kn->...mn", [(5, 1, 2, 3), (5, 1, 3, 4)]), ("...mk,...kn->...mn", [(2, 3), (3, 4)]),
    ("...ija,aijb...->ba...ij", [(1, 2, 2, 3, 1), (1, 2, 3, 4, 1, 2)]), ("...mk,...kn->mn", [(2, 3), (3, 4)]),
    ("...mk,kn->mn", [(2, 3), (3, 4)]), ("mk,...kn->mn", [(2, 3), (3, 4)]),  # testEllipsis
    ("...ij,...jk->...ik", [(3, 1, 2, 3), (1, 1, 7, 3, 5)]), ("i...j,j...k->...ik", [(2, 1, 3, 1, 3), (3, 1, 7, 5)]),
    ("...abc,...abcd->...d", [(1, 1, 2, 3, 4), (5, 2, 3, 4, 6)]), ("ab...,b->ab...", [(2, 3, 1, 1, 5), (3,)]),
    ("i...j,j...k->i...k", [(3, 1, 2, 2), (2, 2, 3, 1, 4)]),  # testBroadcasting
    ("ij,jk...k->...i", [(3, 2), (2, 4, 5, 4)]), ("ijj,jk...k->i...", [(3, 2, 2), (2, 4, 1, 4)]),
    ("i...jj,jk...k->i...", [(3, 3, 1, 2, 2), (2, 4, 1, 5, 4)]),  # testBroadcastingWithRepeatedIndices
    ("bijl,bjkm->bik", [(9, 2, 3, 5), (9, 3, 4, 7)]), ("...ij,...->...i", [(4, 3, 1, 2), (4, 3)]),  # testPlaceholder
]


def test_einsum_values():
    # EinsumOpTest.testUnary* / testBinarySimple / testReducedIndices / testRepeatedIndices / testEllipsis /
    # testBroadcasting* / testPlaceholder
    r = np.random.RandomState(0)
    for s, shapes in EINSUM_VALUE_CASES:
        xs = [np.array(r.randn(*shape), np.float32) for shape in shapes]
        np.testing.assert_allclose(tnp.einsum(s, *xs).numpy(), np.einsum(s, *xs), rtol=1e-4, atol=1e-4)
    # testDtypes: "ij,jk->ik" of 2 x 2 inputs
    for dtype in (np.float32, np.complex64, np.int32, "bfloat16"):
        a, b = (_complex_or_real((2, 2), np.complex64 if dtype == np.complex64 else np.float32, r).__mul__(3)
                .astype(dtype) for _ in range(2))
        got = tnp.einsum("ij,jk->ik", a, b)
        assert got.dtype == np.dtype(dtype)
        want = np.einsum("ij,jk->ik", a.astype(np.float32), b.astype(np.float32)) if dtype == "bfloat16" else \
            np.einsum("ij,jk->ik", a, b)
        np.testing.assert_allclose(np.asarray(got.numpy(), want.dtype), want, rtol=2e-2, atol=2e-2)
    # testEmpty / testEmptyWithRepeatedLabels (the ones with unrepeated output labels): zeros
    for s, shapes, out in (("ab,bc->ac", [(0, 10), (10, 10)], (0, 10)), ("ibnd,ijbn->jnd", [(1, 0, 5, 10),
                           (1, 1, 0, 5)], (1, 5, 10)), ("aab,bc->ac", [(0, 0, 10), (10, 10)], (0, 10)),
                           ("aaab,bc->c", [(0, 0, 0, 3), (3, 4)], (4,))):
        np.testing.assert_array_equal(tnp.einsum(s, *[r.randn(*sh).astype(np.float32) for sh in shapes]).numpy(),
                                      np.zeros(out))


def test_einsum_invalid():
    # EinsumOpTest.testInvalid: a wrong rank, an ellipsis of the wrong length, inconsistent dimensions, invalid
    # broadcasting: ValueError
    r = np.random.RandomState(0)
    for s, a, b in (("ij,jk->ik", (1, 2, 3), (3, 4)), ("...ij,jk->ik", (3,), (3, 4)), ("ij,jk->ik", (2, 3), (4, 4)),
                    ("...ij,...jk->...ik", (5, 2, 3), (7, 3, 4))):
        with pytest.raises(ValueError):
            tnp.einsum(s, r.randn(*a).astype(np.float32), r.randn(*b).astype(np.float32))
    # testOutputRepeatedLabels / the gradient tests with repeated output labels ("aabcd->add", "abce,badf->bcba")
    # run gen_linalg_ops.einsum (a raw op); tf.einsum rejects them with ValueError ("Output subscripts contain a
    # label appearing more than once"), as here
    with pytest.raises(ValueError, match="more than once"):
        tnp.einsum("a->aa", np.ones(2, np.float32))


# -- matmul_op_test.py / batch_matmul_op_test.py --------------------------------------------------------------

def _adjoint(x, transpose, adjoint):
    """TF's transpose_a/adjoint_a: matmul(a, b, transpose_a=True) is matmul(swapaxes(a, -1, -2), b)."""
    if transpose:
        return tnp.swapaxes(x, -1, -2)
    return tnp.conj(tnp.swapaxes(x, -1, -2)) if adjoint else x


def _np_adjoint(x, transpose, adjoint):
    if transpose:
        return np.swapaxes(x, -1, -2)
    return np.conj(np.swapaxes(x, -1, -2)) if adjoint else x


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_matmul_gradients(dtype):
    # MatMulGradientTest: gradient_checker_v2 of matmul(x, b) and matmul(a, x) for sizes m, n, k in {1, 3, 5}
    # (here {1, 3}) and each transpose/adjoint option of a and b
    r = np.random.RandomState(3)
    options = [(False, False), (True, False), (False, True)]  # (adjoint, transpose)
    for m, n, k in ((1, 3, 3), (3, 3, 1)) if dtype == np.float32 else ((3, 1, 3), (3, 3, 3)):
        a_np = (_complex_or_real((m, k), dtype, r) * 5 - 5).astype(dtype)
        b_np = (_complex_or_real((k, n), dtype, r) * 5 - 5).astype(dtype)
        for adj_a, tr_a in options:
            for adj_b, tr_b in options:
                # the operands as TF's test passes them: effective_a is a (or its transpose/adjoint)
                eff_a, eff_b = _np_adjoint(a_np, tr_a, adj_a), _np_adjoint(b_np, tr_b, adj_b)
                _check_multilinear_gradient(
                    lambda x, y: tnp.matmul(_adjoint(x, tr_a, adj_a), _adjoint(y, tr_b, adj_b)),
                    lambda x, y: np.matmul(_np_adjoint(x, tr_a, adj_a), _np_adjoint(y, tr_b, adj_b)),
                    [eff_a, eff_b], antilinear=[k for k, adj in enumerate((adj_a, adj_b)) if adj])


def test_matmul_values_and_errors():
    # MatVecTest.testTwoByTwoCase / testEmpty, MatMulInfixOperatorTest.testInfixMatmulDoesDotProduct,
    # testMismatchedShape / testMismatchedDimensions (any exception)
    np.testing.assert_array_equal(tnp.matmul(np.array([[1, 2], [3, 4]]), np.array([5, 6])).numpy(),
                                  [5 + 2 * 6, 3 * 5 + 4 * 6])
    full, empty = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32), np.empty([3, 0], np.float32)
    assert tnp.matmul(tnp.swapaxes(full, -1, -2), empty).shape == (2, 0)
    assert tnp.matmul(tnp.swapaxes(empty, -1, -2), full).shape == (0, 2)
    a, b = tj.constant([[10.0, 20.0, 30.0]]), tj.constant([[40.0, 50.0], [60.0, 70.0], [80.0, 90.0]])
    np.testing.assert_array_equal((a @ b).numpy(), tnp.matmul(a, b).numpy())
    np.testing.assert_array_equal((a @ b).numpy(), [[10 * 40 + 20 * 60 + 30 * 80, 10 * 50 + 20 * 70 + 30 * 90]])
    with pytest.raises(Exception):
        tj.constant([10.0, 20.0, 30.0]) @ tj.constant([[40.0, 50.0], [60.0, 70.0]])
    with pytest.raises(Exception):
        tj.constant([[10.0, 20.0, 30.0]]) @ tj.constant([[40.0, 50.0], [60.0, 70.0]])


BATCH_SHAPES = [((7, 2, 3), (7, 3, 1)), ((5, 1, 2, 3), (1, 7, 3, 5)), ((2, 3), (5, 2, 3, 5)),
                ((1, 2, 1, 4, 2, 1, 3, 4), (3, 2, 1, 1, 1, 2, 4, 2)), ((3, 0, 2), (3, 2, 5)), ((3, 3, 2), (3, 2, 0))]


@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.int32, np.float16])
def test_batch_matmul_values(dtype):
    # BatchMatmulOpTest._testNonEmpty / _testBroadcasting / _testEmpty (a few of each), each adjoint_a/adjoint_b
    # for float32 and complex64 (as TF's test: an adjoint operand is the input reshaped to the transposed shape,
    # then adjointed)
    r = np.random.RandomState(42)
    for a_shape, b_shape in BATCH_SHAPES:
        for adj_a in (False, True) if dtype in (np.float32, np.complex64) else (False,):
            for adj_b in (False, True) if dtype in (np.float32, np.complex64) else (False,):
                x = (_complex_or_real(a_shape, np.complex64 if dtype == np.complex64 else np.float32, r) * 3)
                y = (_complex_or_real(b_shape, np.complex64 if dtype == np.complex64 else np.float32, r) * 3)
                x, y = x.astype(dtype), y.astype(dtype)
                if adj_a:
                    x = x.reshape(a_shape[:-2] + (a_shape[-1], a_shape[-2]))
                if adj_b:
                    y = y.reshape(b_shape[:-2] + (b_shape[-1], b_shape[-2]))
                got = tnp.matmul(_adjoint(x, False, adj_a), _adjoint(y, False, adj_b))
                want = np.matmul(_np_adjoint(x, False, adj_a), _np_adjoint(y, False, adj_b))
                assert got.dtype == dtype and got.shape == want.shape
                tol = 0 if dtype == np.int32 else (0.2 if dtype == np.float16 else 1e-4)
                np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol * 10)


def _sum_to_shape(g, shape):
    """``g`` summed over the axes broadcasting added or stretched (the transpose of a broadcast to g's shape)."""
    g = np.sum(g, axis=tuple(range(g.ndim - len(shape))))
    return np.sum(g, axis=tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1), keepdims=True)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_batch_matmul_gradients(dtype):
    # BatchMatmulGradientTest (and ...WithBroadcasting): loss = reduce_sum(matmul(x, y, adjoint_a, adjoint_b)),
    # its gradients with respect to x and y
    r = np.random.RandomState(42)
    for a_shape, b_shape in (((3, 4, 7), (3, 7, 10)), ((1, 5, 2, 3), (7, 1, 3, 2))) if dtype == np.float32 else \
            (((1, 5, 2, 3), (7, 1, 3, 2)), ((5, 2, 5), (5, 3))):
        for adj_a in (False, True):
            for adj_b in (False, True):
                x = _complex_or_real(a_shape, dtype, r).astype(dtype)
                y = _complex_or_real(b_shape, dtype, r).astype(dtype)
                if adj_a:
                    x = x.reshape(a_shape[:-2] + (a_shape[-1], a_shape[-2]))
                if adj_b:
                    y = y.reshape(b_shape[:-2] + (b_shape[-1], b_shape[-2]))
                xa, ya = _np_adjoint(x, False, adj_a), _np_adjoint(y, False, adj_b)
                _, (gx, gy) = _grads(lambda p, q: tnp.sum(tnp.matmul(_adjoint(p, False, adj_a),
                                                                     _adjoint(q, False, adj_b))), [x, y])
                ones = np.ones(np.broadcast_shapes(xa.shape[:-2], ya.shape[:-2]) + (xa.shape[-2], ya.shape[-1]))
                # d sum / d xa = ones @ conj(ya)^T (TF's complex convention), summed over broadcast batch axes
                dxa = _sum_to_shape(np.matmul(ones, np.conj(np.swapaxes(ya, -1, -2))), xa.shape)
                dya = _sum_to_shape(np.matmul(np.conj(np.swapaxes(xa, -1, -2)), ones), ya.shape)
                np.testing.assert_allclose(gx.numpy(), _np_adjoint(dxa, False, adj_a), rtol=1e-4, atol=1e-3)
                np.testing.assert_allclose(gy.numpy(), _np_adjoint(dya, False, adj_b), rtol=1e-4, atol=1e-3)


# -- sort_ops_test.py ----------------------------------------------------------------------------------------

def test_sort_values():
    # SortTest.testRandom_lowDimensionality(_negative) / testRandom_highDimensionality / testIntArray /
    # testDescending (direction="DESCENDING" is descending=True)
    r = np.random.RandomState(42)
    for shape, axis in (((7,), 0), ((5, 0), 1), ((6, 4), -2), ((3, 2, 1, 3, 2, 2), 3), ((4, 5), -1)):
        arr = r.random_sample(shape).astype(np.float32)
        np.testing.assert_array_equal(tnp.sort(arr, axis=axis).numpy(), np.sort(arr, axis=axis))
        np.testing.assert_array_equal(tnp.sort(arr, axis=axis, descending=True).numpy(),
                                      np.flip(np.sort(arr, axis=axis), axis=axis))
    edges = np.linspace(np.iinfo(np.int32).min, np.iinfo(np.int32).max, 10, dtype=np.int32)
    np.testing.assert_array_equal(tnp.sort(edges[::-1], 0).numpy(), edges)
    np.testing.assert_array_equal(tnp.sort(edges, 0, descending=True).numpy(), edges[::-1])
    arr = r.random_sample((10, 5, 5)).astype(np.float32)
    np.testing.assert_array_equal(tnp.sort(arr, axis=0, descending=True).numpy(), np.sort(arr, axis=0)[::-1])


def test_sort_errors():
    # SortTest.testScalar ("out of bounds") / testNegativeOutOfBounds_staticShape (axis -4 of a vector)
    with pytest.raises(ValueError, match="out of range"):
        tnp.sort(tj.constant(3.0))
    with pytest.raises(ValueError, match="out of range"):
        tnp.sort(tj.constant([3, 4, 5]), axis=-4)


def test_argsort():
    # SortTest.testArgsort_1d / testArgsort / testArgsortStable: ascending [0, 2, 3, 4, 1], descending (stable)
    # [1, 4, 2, 3, 0]
    arr = np.random.RandomState(0).random_sample(42).astype(np.float32)
    np.testing.assert_array_equal(tnp.take(arr, tnp.argsort(arr)).numpy(), np.sort(arr))
    arr = np.random.RandomState(1).random_sample((3, 4, 5)).astype(np.float32)
    for axis in range(3):
        np.testing.assert_array_equal(tnp.argsort(arr, axis=axis).numpy(), np.argsort(arr, axis=axis))
    arr = tj.constant([1, 5, 2, 2, 3])
    np.testing.assert_array_equal(tnp.argsort(arr).numpy(), [0, 2, 3, 4, 1])
    np.testing.assert_array_equal(tnp.argsort(arr, descending=True).numpy(), [1, 4, 2, 3, 0])


@pytest.mark.parametrize("descending, axis, x, dy, want_y, want_g", [
    # TF: tape.gradient(tf.sort(x, axis, direction), x, output_gradients=dy); ties reach their elements in their
    # original order, in both directions (jnp.sort(descending=True) reversed them: [2, 5, 3, 4, 1] below)
    (False, -1, [3., 1., 2., 1., 3.], [1., 2., 3., 4., 5.], [1., 1., 2., 3., 3.], [4., 1., 3., 2., 5.]),
    (True, -1, [3., 1., 2., 1., 3.], [1., 2., 3., 4., 5.], [3., 3., 2., 1., 1.], [1., 4., 3., 5., 2.]),
    (False, 0, [[2., 1., 2.], [2., 0., 1.], [1., 1., 2.]], np.arange(1, 10).reshape(3, 3),
     [[1., 0., 1.], [2., 1., 2.], [2., 1., 2.]], [[4., 5., 6.], [7., 2., 3.], [1., 8., 9.]]),
    (False, -1, [[2., 1., 2.], [2., 0., 1.], [1., 1., 2.]], np.arange(1, 10).reshape(3, 3),
     [[1., 2., 2.], [0., 1., 2.], [1., 1., 2.]], [[2., 1., 3.], [6., 4., 5.], [7., 8., 9.]]),
])
def test_sort_gradient(descending, axis, x, dy, want_y, want_g):
    # sort's gradient (TF's sort is top_k, whose gradient scatters dy back to the sorted elements' positions)
    y, (g,) = _grads(lambda t: tnp.sort(t, axis=axis, descending=descending), [np.asarray(x, np.float32)],
                     output_gradients=np.asarray(dy, np.float32))
    np.testing.assert_array_equal(y.numpy(), want_y)
    np.testing.assert_array_equal(g.numpy(), want_g)


# -- broadcast_to_ops_test.py, and the gradients of tile / squeeze / expand_dims / reshape -------------------

def test_broadcast_to_values():
    # BroadcastToTest.testBroadcastToBasic / Bool / Shape / ShapeInnerDim / ShapeLargerDim(2) / Scalar /
    # BroadcastScalarToNonScalar / ShapeTypeAndInference
    for dtype in (np.uint8, np.int8, np.int16, np.int32, np.bool_):
        x = np.array([1, 2, 3]).astype(dtype)
        np.testing.assert_array_equal(tnp.broadcast_to(tj.constant(x), [3, 3]).numpy(), np.broadcast_to(x, [3, 3]))
    for input_shape, output_shape in (([2, 2], [2, 2, 2, 2]), ([2, 1, 3], [2, 5, 3]),
                                      ([2, 1, 3, 2, 2, 2], [1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 15, 3, 2, 2, 2]),
                                      ([2, 1, 3, 2, 2, 2, 1, 1, 1], [1, 1, 1, 2, 5, 3, 2, 2, 2, 3, 3, 3]), ([], [3, 3])):
        x = RNG.integers(0, 5, input_shape).astype(np.int32)
        np.testing.assert_array_equal(tnp.broadcast_to(x, output_shape).numpy(), np.broadcast_to(x, output_shape))
    assert tnp.broadcast_to(tj.constant(1.0), [2, 3, 4, 1, 1, 1]).shape == (2, 3, 4, 1, 1, 1)
    for dtype in (tj.int32, tj.int64):
        v = tnp.broadcast_to(tj.constant([1, 2, 3]), tj.constant([3, 3], dtype=dtype))
        assert v.shape == (3, 3)


def test_broadcast_to_bad_shapes():
    # BroadcastToTest.testBroadcastToBadOutputShape ("Unable to broadcast tensor of shape") /
    # testBroadcastToInvalidShape (the message names the shape)
    with pytest.raises(ValueError):
        tnp.broadcast_to(tj.constant([0, 1]), tj.constant([2, 1]))
    with pytest.raises(ValueError, match="110,53,104,147,157,123,5,24,188,40,5,2"):
        tnp.broadcast_to(tj.constant([1, 2, 3]), [110, 53, 104, 147, 157, 123, 5, 24, 188, 40, 5, 2])


@pytest.mark.parametrize("x, shape", [
    (np.float32(1), [2, 4, 3]),  # testGradientForScalar
    (np.reshape(np.arange(6), (2, 1, 3)).astype(np.float32), [2, 5, 3]),  # testGradientWithSameRank
    (np.array([[1], [2]], np.float32), [5, 2, 3]),  # testGradientWithIncreasingRank
    (np.array([1], np.float32), [5, 2, 3]),  # testGradientWithBroadcastAllDimensions
    (np.arange(12, dtype=np.float32).reshape([2, 1, 3, 2, 1, 1]), [1, 2, 2, 3, 2, 2, 1]),  # ...WithLargeDim
])
def test_broadcast_to_gradient(x, shape):
    # BroadcastToTest.testGradient*: gradient_checker_v2 of 2 * broadcast_to(x, shape)
    _check_jacobian(lambda t: 2 * tnp.broadcast_to(t, shape), [x],
                    _linear_jacobian(lambda a: 2 * np.broadcast_to(a, shape), [np.shape(x)]))


@pytest.mark.parametrize("name", ["tile", "squeeze", "expand_dims", "reshape"])
def test_shape_op_gradients(name):
    # array_grad's _TileGrad (the tiles' gradients summed), _SqueezeGrad / _ExpandDimsGrad / _ReshapeGrad (a
    # reshape of the gradient): the gradient checker's Jacobians
    x = np.arange(6, dtype=np.float32).reshape(2, 1, 3)
    f, np_f = {"tile": (lambda t: tnp.tile(t, [2, 2, 1]), lambda a: np.tile(a, [2, 2, 1])),
               "squeeze": (lambda t: tnp.squeeze(t, 1), lambda a: np.squeeze(a, 1)),
               "expand_dims": (lambda t: tnp.expand_dims(t, -1), lambda a: np.expand_dims(a, -1)),
               "reshape": (lambda t: tnp.reshape(t, [3, -1]), lambda a: np.reshape(a, [3, -1]))}[name]
    _check_jacobian(f, [x], _linear_jacobian(np_f, [x.shape]))


def test_where_gradient_with_broadcasting():
    # where_v2's gradient (array_grad's _SelectGradV2): the output gradient where the condition picks each
    # branch, summed over the axes that branch was broadcast along. TF 2.21:
    # tf.where([[True], [False]], x (2, 3), y (3,)) with dy = [[1, 2, 3], [4, 5, 6]]
    x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    y = np.array([7.0, 8.0, 9.0], np.float32)
    dy = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    z, (gx, gy) = _grads(lambda a, b: tnp.where(np.array([[True], [False]]), a, b), [x, y], output_gradients=dy)
    np.testing.assert_array_equal(z.numpy(), [[1.0, 2.0, 3.0], [7.0, 8.0, 9.0]])
    np.testing.assert_array_equal(gx.numpy(), [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    np.testing.assert_array_equal(gy.numpy(), [4.0, 5.0, 6.0])
    # tf.where([[True, False], [False, True], [True, True]], x (2,), 0.): gradient [2, 2]
    z, (g,) = _grads(lambda a: tnp.where(np.array([[True, False], [False, True], [True, True]]), a, 0.0),
                     [np.array([1.0, 2.0], np.float32)])
    np.testing.assert_array_equal(z.numpy(), [[1.0, 0.0], [0.0, 2.0], [1.0, 2.0]])
    np.testing.assert_array_equal(g.numpy(), [2.0, 2.0])


def test_concat_of_variables_gradient():
    # ConcatOpTest.testRefType with a gradient: concat([v1 * v1, reshape(v2, [1]) * 3]) with output gradient
    # [1, 2, 3]; TF 2.21: [[2, 8], [[9]]]
    v1, v2 = tj.Variable([1.0, 2.0]), tj.Variable([[3.0]])
    with tj.GradientTape() as tape:
        z = tnp.concatenate([v1 * v1, tnp.reshape(v2, [1]) * 3.0], 0)
    g1, g2 = tape.gradient(z, [v1, v2], output_gradients=tj.constant([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(g1.numpy(), [2.0, 8.0])
    np.testing.assert_array_equal(g2.numpy(), [[9.0]])
