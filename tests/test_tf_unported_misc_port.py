"""TensorFlow kernel tests for division, bincount, unique, band parts, searchsorted and unravel_index, ported to
tapejax (Tensor operators and ``tj.numpy``).

Sources (tensorflow/python/kernel_tests/): math_ops/zero_division_test.py (ZeroDivisionTest.testZeros),
math_ops/division_past_test.py and division_future_test.py (DivisionTestCase.testDivision: the same test; Python 3
has no classic division), math_ops/bincount_op_test.py (the dense ``tf.math.bincount`` parts), array_ops/
unique_op_test.py (UniqueTest, UniqueWithCountsTest), array_ops/matrix_band_part_op_test.py (MatrixBandPartTest,
MatrixBandPartGradTest) and array_ops/array_ops_test.py (SortedSearchTest, UnravelIndexTest).

TF ops map to tj: ``x / y``, ``x // y``, ``x % y`` are the Tensor operators; tf.math.bincount(arr, weights,
minlength) -> tnp.bincount(x, weights, minlength) (raw DenseBincount's ``size`` -> ``minlength``, or ``length``,
jax's static size, inside tj.function); tf.unique / unique_with_counts / UniqueV2(axis) -> tnp.unique(...,
return_index, return_inverse, return_counts, axis) (jax's ``size=`` inside tj.function); tf.linalg.band_part(x,
lower, upper) -> tnp.tril(tnp.triu(x, -lower), upper) with a negative bound meaning "keep all" (the oracle TF's test
uses, checked against TF 2.21 on the whole grid, values and gradients); tf.searchsorted -> tnp.searchsorted;
tf.unravel_index(indices, dims) -> tnp.unravel_index(indices, shape).

Expected values are TF 2.21's (run here), hard-coded; where TF's test compares against NumPy (random inputs), the
NumPy reference is kept, as in TF, and TF 2.21 was checked to agree on the same seeded inputs. TensorFlow is not
imported.

Differences that API.md sanctions (tapejax follows jax.numpy/NumPy), asserted as such or listed here:
- dtypes: no int64/float64 with JAX's x64 off (int64/float64 parts run under ``jax.enable_x64(True)``); ``int32 /
  int32`` is float32 (jax.numpy's promotion; TF gives float64), int8/int16 give float32 as TF; the values agree.
- tnp.unique returns sorted unique values (jax.numpy/NumPy); TF's are in order of first appearance. The TF order is
  recovered from ``return_index`` and compared with TF's values (testOrderedByAppearance, testInt32Axis).
  TF's NaN rule (each NaN its own key, UniqueWithCountsTest.testFloat) is jax.numpy's ``equal_nan=False``; the
  default ``equal_nan=True`` merges NaNs, as NumPy.
- tnp.searchsorted needs a 1-D sorted array (jax.numpy); TF's batched N-D form (search along the last axis) is
  ``jax.vmap`` of tnp.searchsorted over the leading rows (API.md: jax.vmap of tj ops works).
- tnp.unravel_index returns a tuple of arrays (NumPy); TF stacks them into one tensor.
- tnp.bincount of the list ``[]``: a float32 array, as ``tj.constant([])`` (jax.numpy rejects float input); the
  empty inputs here are int32 arrays. UnravelIndexTest.testUnravelIndexIntegerOverflow: TF raises because the product
  of its int32 ``dims`` tensor overflows; tj's shape is static Python ints and jax.numpy documents accepting negative
  indices, so tj returns the exact unravelled index (checked below against Python integer arithmetic).

Left out (no tapejax counterpart, or TF-only): bincount's ``maxlength``, ``dtype=``, ``binary_output`` and ``axis``
arguments and 2-D (per-row) DenseBincount (BincountTest.test_maxlength, the dtype/binary_output parts of test_empty,
the dense_bincount half of test_negative, test_invalid_inputs, BincountOpTest.test_bincount_all_binary*,
test_col_reduce_*); raw-kernel shape functions and graph placeholders (BincountTest.test_shape_function,
BincountOpTest.test_size_is_not_scalar: jax's ``minlength`` is a static int, a list raises TypeError as NumPy);
GPU-only tests (test_bincount_determinism_error, test_bincount_all_binary_with_negative_input_on_gpu,
test_col_reduce_{shared,global}_memory_with_negative_input); SparseBincountOpTest and RaggedBincountOpTest (sparse
and ragged inputs); unique's ``out_idx`` (UniqueTest/UniqueWithCountsTest.testInt32OutIdxInt64) and string inputs
(testString); the TF1 placeholder and axis-tensor parts of UniqueTest.testShapeInferenceV2 (``axis=[[0]]``,
``axis=[]``, ``axis=[1, 2]``); SortedSearchTest.testInt64 and testInt64UnspecifiedOutType (graph-only concrete
functions of 1e10 elements, TF's ``out_type``); MatrixBandPartBenchmark (a benchmark); ZeroDivisionTest's GPU/XLA
branch (TF accepts -1, 1, 2, 0xFF or 0xFFFFFFFF only where a GPU is available).
Known and kept: integer division by zero is checked where the divisor's values are known (eagerly); inside a
``tj.function`` it is a compiled program's, which cannot raise (TF's ``tf.function(jit_compile=False)`` raises
as eagerly, its XLA programs return numbers, as tapejax's: 1 // 0 is -2 here, -1 in TF's XLA).
Shapes and sample counts are smaller than TF's to keep the file fast.
"""
from __future__ import annotations

import jax
import ml_dtypes
import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy
pytestmark = pytest.mark.filterwarnings("ignore:Explicitly requested dtype")


# -- division_past_test.py / division_future_test.py -----------------------------------------------------------

# TF 2.21: tf.constant(x) / tf.constant(y) and // for x, y in [1, 2, 7, 11] (rows x, columns y), float64 division
# (int32/int64/float64 inputs; int8/int16/float32 give the float32 rounding of the same numbers).
_VALUES = [1, 2, 7, 11]
_TF_DIV = [[1.0, 0.5, 0.14285714285714285, 0.09090909090909091],
           [2.0, 1.0, 0.2857142857142857, 0.18181818181818182],
           [7.0, 3.5, 1.0, 0.6363636363636364],
           [11.0, 5.5, 1.5714285714285714, 1.0]]
_TF_FLOORDIV = [[1, 0, 0, 0], [2, 1, 0, 0], [7, 3, 1, 0], [11, 5, 1, 1]]
# tapejax's dtype of x / y (jax.numpy's promotion; TF: float32 for int8/int16/float32, float64 for the others)
_DIV_DTYPE = {np.int8: np.float32, np.int16: np.float32, np.int32: np.float32, np.int64: np.float64,
              np.float32: np.float32, np.float64: np.float64}


def _check_division(dtype):
    for i, x in enumerate(map(dtype, _VALUES)):
        for j, y in enumerate(map(dtype, _VALUES)):
            # (fx, fy) over {identity, constant}; numpy/numpy is NumPy alone, not tapejax
            for tx, ty in ((x, tj.constant(y)), (tj.constant(x), y), (tj.constant(x), tj.constant(y))):
                div, floordiv = tx / ty, tx // ty
                assert isinstance(div, tj.Tensor) and isinstance(floordiv, tj.Tensor)
                assert div.dtype == _DIV_DTYPE[dtype], (dtype, div.dtype)
                assert floordiv.dtype == dtype, (dtype, floordiv.dtype)
                rtol = 1e-6 if div.dtype == np.float32 else 1e-15
                np.testing.assert_allclose(div.numpy(), _TF_DIV[i][j], rtol=rtol)
                assert floordiv.numpy() == _TF_FLOORDIV[i][j]


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.float32])
def test_division(dtype):
    # DivisionTestCase.testDivision (division_past_test.py: int8..float64; division_future_test.py: int32..float64):
    # x / y and x // y with numpy scalars and Tensors on either side (TF skips int8/int16 true division only for
    # NumPy's own float64 result, so it is checked here against TF's values)
    _check_division(dtype)


@pytest.mark.parametrize("dtype", [np.int64, np.float64])
def test_division_x64(dtype):
    # DivisionTestCase.testDivision, int64 and float64 (JAX's x64 on for this test)
    with jax.enable_x64(True):
        _check_division(dtype)


# -- zero_division_test.py -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "int64"])
@pytest.mark.parametrize("op", ["//", "%"])
def test_zero_division(dtype, op):
    # ZeroDivisionTest.testZeros: integer 1 // 0 raises ("Integer division by zero", InvalidArgumentError on CPU ->
    # ValueError); TF's test checks % for int32/int64, TF 2.21 raises for uint8/int16 % 0 too.
    bad = (lambda a, b: a // b) if op == "//" else (lambda a, b: a % b)
    with jax.enable_x64(dtype == "int64"):
        one, zero = tj.constant(1, dtype=dtype), tj.constant(0, dtype=dtype)
        with pytest.raises(ValueError, match="(?i)integer division by zero"):
            bad(one, zero)
        with pytest.raises(ValueError, match="(?i)integer division by zero"):  # a Python 0 on the right
            bad(one, 0)


# -- bincount_op_test.py ---------------------------------------------------------------------------------------

_EMPTY = np.zeros(0, np.int32)


def test_bincount_empty():
    # BincountTest.test_empty (the minlength parts; TF 2.21 values)
    for minlength, want in ((5, [0, 0, 0, 0, 0]), (1, [0]), (0, [])):
        out = tnp.bincount(_EMPTY, minlength=minlength)
        np.testing.assert_array_equal(out.numpy(), want)
        assert out.shape == (len(want),)


def test_bincount_values():
    # BincountTest.test_values (TF 2.21 values)
    np.testing.assert_array_equal(tnp.bincount([1, 1, 1, 2, 2, 3]).numpy(), [0, 3, 2, 1])
    arr = [1, 1, 2, 1, 2, 3, 1, 2, 3, 4, 1, 2, 3, 4, 5]
    np.testing.assert_array_equal(tnp.bincount(arr).numpy(), [0, 5, 4, 3, 2, 1])
    arr += [0, 0, 0, 0, 0, 0]
    np.testing.assert_array_equal(tnp.bincount(arr).numpy(), [6, 5, 4, 3, 2, 1])
    assert tnp.bincount(_EMPTY).shape == (0,)
    np.testing.assert_array_equal(tnp.bincount([0, 0, 0]).numpy(), [3])
    np.testing.assert_array_equal(tnp.bincount([5]).numpy(), [0, 0, 0, 0, 0, 1])
    np.testing.assert_array_equal(tnp.bincount(np.arange(10000)).numpy(), np.ones(10000))


# 200 samples in [0, 20) and their weights (TF: 10000 in [0, 1000)); TF 2.21's tf.math.bincount of them
def _bincount_inputs():
    rng = np.random.default_rng(42)
    arr = rng.integers(0, 20, 200)
    return arr, rng.integers(-100, 100, 200), rng.random(200)


_TF_COUNTS = [6, 13, 8, 11, 8, 6, 10, 8, 16, 13, 8, 10, 8, 15, 9, 17, 11, 8, 7, 8]
_TF_INT_WEIGHTED = [168, -49, -152, -99, 358, -83, -285, -64, 251, -72, -346, -83, -60, 255, -80, -247, -163, 27,
                    -223, 225]
_TF_FLOAT_WEIGHTED = [4.209810733795166, 6.276001930236816, 4.813796520233154, 5.774035453796387,
                      3.6526622772216797, 2.9429731369018555, 4.798450469970703, 3.673602819442749,
                      7.5888872146606445, 3.9644341468811035, 4.165043830871582, 5.913879871368408,
                      3.4780936241149902, 7.846145153045654, 3.84564471244812, 9.006119728088379,
                      5.919135570526123, 5.146048545837402, 2.9312551021575928, 3.8986127376556396]


def test_bincount_random_with_weights():
    # BincountTest.test_random_with_weights (int and float weights; int64/float64 are int32/float32 with x64 off)
    arr, wi, wf = _bincount_inputs()
    out = tnp.bincount(arr, wi)
    assert np.issubdtype(out.dtype, np.integer)
    np.testing.assert_array_equal(out.numpy(), _TF_INT_WEIGHTED)
    out = tnp.bincount(arr, wf)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.numpy(), _TF_FLOAT_WEIGHTED, rtol=1e-6)


def test_bincount_random_without_weights():
    # BincountTest.test_random_without_weights
    arr, _, _ = _bincount_inputs()
    for weights in (None, np.ones(200, np.int32), np.ones(200, np.float32)):
        np.testing.assert_array_equal(tnp.bincount(arr, weights).numpy(), _TF_COUNTS)


def test_bincount_zero_weights():
    # BincountTest.test_zero_weights: float64 zeros in TF, float32 here
    out = tnp.bincount(np.arange(1000), np.zeros(1000))
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out.numpy(), np.zeros(1000))


def test_bincount_negative():
    # BincountTest.test_negative (the tf.math.bincount half)
    with pytest.raises(ValueError):
        tnp.bincount([1, 2, 3, -1, 6, 8]).numpy()


@pytest.mark.parametrize("weighted", [False, True])
def test_bincount_all_count(weighted):
    # BincountOpTest.test_bincount_all_count / test_bincount_all_count_with_weights: DenseBincount(input, weights,
    # size) of a 1-D input == bincount(input, weights, minlength=size); also with jax's static length= inside
    # tj.function (TF 2.21 values)
    arr, _, wf = _bincount_inputs()
    want = _TF_FLOAT_WEIGHTED + [0.0] * 5 if weighted else _TF_COUNTS + [0] * 5
    w = wf if weighted else None
    np.testing.assert_allclose(tnp.bincount(arr, w, minlength=25).numpy(), want, rtol=1e-6)
    f = tj.function(lambda a, ww: tnp.bincount(a, ww, length=25))
    np.testing.assert_allclose(f(arr, w).numpy(), want, rtol=1e-6)


def test_bincount_invalid_rank():
    # BincountOpTest.test_invalid_rank: a rank-3 input raises (TF: "at most rank 2"; tnp.bincount takes 1-D only)
    with pytest.raises(ValueError):
        tnp.bincount(np.array([[[1, 2, 3], [0, 3, 2]]], np.int32), length=10)


# -- unique_op_test.py -----------------------------------------------------------------------------------------

def _first_appearance(y, first_index, inverse, counts=None):
    """TF's order (first appearance) from tnp.unique's sorted result: (y, idx[, count]) as TF returns them."""
    order = np.argsort(first_index, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    out = (y[order], rank[inverse])
    return out if counts is None else out + (counts[order],)


@pytest.mark.parametrize("kind", ["int32", "bool"])
@pytest.mark.parametrize("with_counts", [False, True])
def test_unique_invariants(kind, with_counts):
    # UniqueTest.testInt32, testInt32V2, testBool, testBoolV2; UniqueWithCountsTest.testInt32, testInt32V2, testBool,
    # testBoolV2 (axis=[] of UniqueV2 is the default axis=None): x[i] == y[idx[i]], len(y) == len(np.unique(x)),
    # count == sum(x == value)
    rng = np.random.default_rng(3)
    x = rng.integers(2, 10, 700).astype(np.int32) if kind == "int32" else rng.choice([True, False], 700)
    out = tnp.unique(x, return_inverse=True, return_counts=with_counts)
    y, idx = out[0].numpy(), out[1].numpy()
    assert len(idx) == len(x) and len(y) == len(np.unique(x))
    np.testing.assert_array_equal(y[idx], x)
    if with_counts:
        for value, count in zip(y, out[2].numpy()):
            assert count == np.sum(x == value)


_APPEARANCE_X = np.array([3, 5, 3, 4, 1, 4, 9, 8, 6, 3, 5, 7, 8, 8, 4, 6, 4, 2, 5, 6], np.int32)
# TF 2.21: tf.unique_with_counts(_APPEARANCE_X)
_TF_Y = [3, 5, 4, 1, 9, 8, 6, 7, 2]
_TF_IDX = [0, 1, 0, 2, 3, 2, 4, 5, 6, 0, 1, 7, 5, 5, 2, 6, 2, 8, 1, 6]
_TF_COUNT = [3, 3, 4, 1, 1, 3, 3, 1, 1]


@pytest.mark.parametrize("in_function", [False, True])
def test_unique_ordered_by_appearance(in_function):
    # UniqueTest.testOrderedByAppearance, UniqueWithCountsTest.testOrderedByAppearance (eagerly, and in tj.function
    # with jax's size=)
    def f(x):
        return tnp.unique(x, return_index=True, return_inverse=True, return_counts=True,
                          **({"size": 9} if in_function else {}))
    out = (tj.function(f) if in_function else f)(_APPEARANCE_X)
    y, first, inv, cnt = (np.asarray(t.numpy()) for t in out)
    assert inv.shape == (20,) and y.shape == first.shape == cnt.shape == (9,)
    got_y, got_idx, got_cnt = _first_appearance(y, first, inv, cnt)
    np.testing.assert_array_equal(got_y, _TF_Y)
    np.testing.assert_array_equal(got_idx, _TF_IDX)
    np.testing.assert_array_equal(got_cnt, _TF_COUNT)


def test_unique_axis():
    # UniqueTest.testInt32Axis, UniqueWithCountsTest.testInt32Axis (UniqueV2/UniqueWithCountsV2 with axis 0 and 1;
    # TF 2.21 values, in TF's first-appearance order)
    x = np.array([[1, 0, 0], [1, 0, 0], [2, 0, 0]], np.int32)
    y, first, inv, cnt = (t.numpy() for t in tnp.unique(x, True, True, True, axis=0))
    order = np.argsort(first, kind="stable")
    rank = np.argsort(order)
    np.testing.assert_array_equal(y[order], [[1, 0, 0], [2, 0, 0]])
    np.testing.assert_array_equal(rank[inv.reshape(-1)], [0, 0, 1])
    np.testing.assert_array_equal(cnt[order], [2, 1])
    y, first, inv, cnt = (t.numpy() for t in tnp.unique(x, True, True, True, axis=1))
    order = np.argsort(first, kind="stable")
    rank = np.argsort(order)
    np.testing.assert_array_equal(y[:, order], [[1, 0], [1, 0], [2, 0]])
    np.testing.assert_array_equal(rank[inv.reshape(-1)], [0, 1, 1])
    np.testing.assert_array_equal(cnt[order], [1, 2])


def test_unique_shape_inference():
    # UniqueTest.testShapeInferenceV2 (the eager parts): idx has x.shape[axis] entries (TF 2.21: 3, 2, 1, 1, 2, 3),
    # and an axis outside [-3, 3) raises (TF: ValueError in graph, InvalidArgumentError eagerly -> ValueError)
    x = np.arange(6, dtype=np.int32).reshape(3, 2, 1)
    for axis, n in ((0, 3), (1, 2), (2, 1), (-1, 1), (-2, 2), (-3, 3)):
        _, idx = tnp.unique(x, return_inverse=True, axis=axis)
        assert idx.size == n, (axis, idx.shape)
    assert tnp.unique(np.array([0, 1, 2], np.int32), return_inverse=True)[1].shape == (3,)
    for axis in (3, -4):
        with pytest.raises(ValueError):
            tnp.unique(x, axis=axis)


def test_unique_empty():
    # UniqueTest.testEmpty, UniqueWithCountsTest.testEmpty
    y, idx, count = tnp.unique(_EMPTY, return_inverse=True, return_counts=True)
    assert y.shape == (0,) and idx.shape == (0,) and count.shape == (0,)


def test_unique_with_counts_float_nan():
    # UniqueWithCountsTest.testFloat: every NaN is its own key (TF 2.21: y [0, 1, nan, nan], idx [0, 1, 2, 3],
    # count [1, 1, 1, 1]); jax.numpy's equal_nan=False
    x = np.array([0.0, 1.0, np.nan, np.nan], np.float32)
    y, idx, count = (t.numpy() for t in tnp.unique(x, return_inverse=True, return_counts=True, equal_nan=False))
    assert len(idx) == len(x)
    for i in range(len(x)):
        assert np.isnan(y[idx[i]]) if np.isnan(x[i]) else y[idx[i]] == x[i]
    for value, c in zip(y, count):
        assert c == (1 if np.isnan(value) else np.sum(x == value))
    np.testing.assert_array_equal(y, [0.0, 1.0, np.nan, np.nan])
    np.testing.assert_array_equal(idx, [0, 1, 2, 3])
    np.testing.assert_array_equal(count, [1, 1, 1, 1])


# -- matrix_band_part_op_test.py -------------------------------------------------------------------------------

def _band_mask(shape, lower, upper):
    """tf.linalg.band_part's kept entries (TF's test: triu(., -lower) if lower >= 0, tril(., upper) if upper >= 0)."""
    i = np.arange(shape[-2])[:, None]
    j = np.arange(shape[-1])[None, :]
    keep = np.ones(shape[-2:], bool)
    if lower >= 0:
        keep &= (i - j) <= lower
    if upper >= 0:
        keep &= (j - i) <= upper
    return np.broadcast_to(keep, shape)


def _band_part(x, lower, upper):
    if lower >= 0:
        x = tnp.triu(x, tj.constant(-lower))  # a scalar Tensor bound, as TF's index tensors
    if upper >= 0:
        x = tnp.tril(x, tj.constant(upper))
    return x


_BAND_SIZES = (1, 2, 7, 23)


def _check_band_values(dtype, batch_shape, sizes):
    for rows in sizes:
        for cols in sizes:
            shape = batch_shape + (rows, cols)
            x = tj.constant(np.ones(shape, dtype))
            for lower in -1, 0, 1, rows - 1:
                for upper in -1, 0, 1, cols - 1:
                    band = _band_part(x, lower, upper)
                    assert band.dtype == dtype and band.shape == shape
                    # (in the band's own dtype: a complex one cast to float32 would drop its imaginary part)
                    np.testing.assert_array_equal(np.asarray(band.numpy()),
                                                  _band_mask(shape, lower, upper).astype(dtype))


@pytest.mark.parametrize("batch_shape", [(), (2,), (1, 3, 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.bool_])
def test_matrix_band_part(dtype, batch_shape):
    # MatrixBandPartTest.test_MatrixBandPart_<dtype>_<batch>_<rows>_<cols> (rows, cols in 1, 2, 7, 23)
    _check_band_values(dtype, batch_shape, _BAND_SIZES)


@pytest.mark.parametrize("dtype", [np.int32, np.float16, ml_dtypes.bfloat16, np.complex64])
def test_matrix_band_part_dtypes(dtype):
    # MatrixBandPartTest for the other dtypes (rows, cols in 2, 7; batch (1, 3, 2) only, to keep the file fast)
    _check_band_values(np.dtype(dtype), (1, 3, 2), (2, 7))


@pytest.mark.parametrize("dtype", [np.int64, np.float64, np.complex128])
def test_matrix_band_part_x64(dtype):
    # MatrixBandPartTest, 64-bit dtypes (JAX's x64 on; rows, cols in 2, 7; batch (2,))
    with jax.enable_x64(True):
        _check_band_values(dtype, (2,), (2, 7))


@pytest.mark.parametrize("batch_shape", [(), (2,)])
def test_matrix_band_part_grad(batch_shape):
    # MatrixBandPartGradTest.test_MatrixBandPartGrad_float32_<batch>_<rows>_<cols> (rows, cols in 1, 2, 7): TF's
    # gradient checker against the theoretical Jacobian, which for band_part is diag(mask); here the Jacobian of all
    # 16 (lower, upper) bands of one input, stacked, from one tape.jacobian
    rng = np.random.default_rng(1)
    for rows in 1, 2, 7:
        for cols in 1, 2, 7:
            shape = batch_shape + (rows, cols)
            combos = [(lo, up) for lo in (-1, 0, 1, rows - 1) for up in (-1, 0, 1, cols - 1)]
            x = tj.constant(rng.random(shape).astype(np.float32))
            with tj.GradientTape() as tape:
                tape.watch(x)
                y = tnp.stack([_band_part(x, lo, up) for lo, up in combos])
            jac = tape.jacobian(y, x).numpy().reshape(len(combos), x.numpy().size, x.numpy().size)
            for k, (lo, up) in enumerate(combos):
                np.testing.assert_array_equal(jac[k], np.diag(_band_mask(shape, lo, up).reshape(-1).astype(np.float32)))


def test_matrix_band_part_grad_float64():
    # MatrixBandPartGradTest.test_MatrixBandPartGrad_float64_2_7_7 (JAX's x64 on): gradient with a random output
    # gradient w is w * mask
    rng = np.random.default_rng(2)
    with jax.enable_x64(True):
        x = tj.constant(rng.random((2, 7, 7)))
        for lower in -1, 0, 1, 6:
            for upper in -1, 0, 1, 6:
                w = rng.random((2, 7, 7))
                with tj.GradientTape() as tape:
                    tape.watch(x)
                    y = _band_part(x, lower, upper)
                g = tape.gradient(y, x, output_gradients=w)
                assert g.dtype == np.float64
                np.testing.assert_array_equal(g.numpy(), w * _band_mask((2, 7, 7), lower, upper))


# -- array_ops_test.py: SortedSearchTest -----------------------------------------------------------------------

_CDF = np.array([0, 0.2, 0.5, 0.6, 0.8, 1.0], dtype=np.float32)
_ARR = np.array([0.04, 0.99, 0.53, 0.58, 0.31, 0.01, 0.79, 0.8, 0.21], dtype=np.float32)
_CDF_INT = np.array([0, 20, 50, 60, 80, 100], dtype=np.int32)  # int64 in TF
_ARR_INT = np.array([4, 99, 53, 58, 31, 1, 79, 8, 21], dtype=np.int32)


@pytest.mark.parametrize("case, side, want", [
    # TF 2.21's tf.searchsorted values
    ("float", "right", [1, 5, 3, 3, 2, 1, 4, 5, 2]),  # testUpperBoundFloatHandCoded
    ("float", "left", [1, 5, 3, 3, 2, 1, 4, 4, 2]),  # testLowerBoundFloatHandCoded
    ("int", "right", [1, 5, 3, 3, 2, 1, 4, 1, 2]),  # testUpperBoundIntHandCoded
    ("int", "left", [1, 5, 3, 3, 2, 1, 4, 1, 2]),  # testLowerBoundIntHandCoded
])
def test_searchsorted_hand_coded(case, side, want):
    cdf, arr = (_CDF, _ARR) if case == "float" else (_CDF_INT, _ARR_INT)
    np.testing.assert_array_equal(tnp.searchsorted(cdf, arr, side=side).numpy(), want)
    np.testing.assert_array_equal(tnp.searchsorted(tj.constant(cdf), tj.constant(arr), side=side).numpy(), want)


def _batched_searchsorted(cdf, arr, side):
    """TF's N-D searchsorted (along the last axis): jax.vmap of tnp.searchsorted over the leading rows."""
    n = int(np.prod(arr.shape[:-1]))
    rows = jax.vmap(lambda a, v: tnp.searchsorted(a, v, side=side))(
        cdf.reshape(n, cdf.shape[-1]), arr.reshape(n, arr.shape[-1]))
    return np.asarray(rows).reshape(arr.shape)


def _numpy_rows(cdf, arr, side):
    n = int(np.prod(arr.shape[:-1]))
    c, a = cdf.reshape(n, cdf.shape[-1]), arr.reshape(n, arr.shape[-1])
    return np.stack([np.searchsorted(c[i], a[i], side=side) for i in range(len(c))]).reshape(arr.shape)


def _sorted_inputs(kind, cdf_shape, arr_shape, scale, seed):
    rng = np.random.default_rng(seed)
    if kind == "float":
        cdf = np.cumsum(rng.uniform(size=cdf_shape).astype(np.float32), axis=-1)
        arr = rng.uniform(size=arr_shape).astype(np.float32) * scale
    else:
        cdf = np.cumsum(rng.integers(0, 10, size=cdf_shape), axis=-1).astype(np.int32)
        arr = rng.integers(0, 10 * scale, size=arr_shape).astype(np.int32)
    return cdf, arr


@pytest.mark.parametrize("kind", ["float", "int"])
@pytest.mark.parametrize("side", ["right", "left"])
def test_searchsorted_random_nd(kind, side):
    # SortedSearchTest.test{Upper,Lower}Bound{Float,Int}RandomNd: shapes [7] * d, d = 1..4 (d = 1 is the plain 1-D
    # tnp.searchsorted), against NumPy row by row, as TF
    for d in range(1, 5):
        cdf, arr = _sorted_inputs(kind, [7] * d, [7] * d, 7, seed=d)
        want = _numpy_rows(cdf, arr, side)
        got = tnp.searchsorted(cdf, arr, side=side).numpy() if d == 1 else _batched_searchsorted(cdf, arr, side)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("kind", ["float", "int"])
@pytest.mark.parametrize("side", ["right", "left"])
def test_searchsorted_uneven(kind, side):
    # SortedSearchTest.test{Upper,Lower}Bound{Float,Int}Uneven: 7 rows, sorted length 1000, 47 values
    cdf, arr = _sorted_inputs(kind, [7, 1000], [7, 47], 1000, seed=5)
    np.testing.assert_array_equal(_batched_searchsorted(cdf, arr, side), _numpy_rows(cdf, arr, side))


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_zero_sizes(side):
    # SortedSearchTest.testZeroSequenceSize / testZeroInputSize (ones([2, 0]) searched for ones([2, 3]) -> zeros
    # [2, 3]) and testZeroValueSize (ones([2, 3]) searched for ones([2, 0]) -> shape [2, 0]); TF 2.21 values
    out = _batched_searchsorted(np.ones([2, 0], np.float32), np.ones([2, 3], np.float32), side)
    np.testing.assert_array_equal(out, np.zeros([2, 3], np.int32))
    out = _batched_searchsorted(np.ones([2, 3], np.float32), np.ones([2, 0], np.float32), side)
    assert out.shape == (2, 0)
    np.testing.assert_array_equal(tnp.searchsorted(np.ones(0, np.float32), np.ones(3, np.float32), side=side).numpy(),
                                  [0, 0, 0])
    assert tnp.searchsorted(np.ones(3, np.float32), np.ones(0, np.float32), side=side).shape == (0,)


def test_searchsorted_invalid_values():
    # SortedSearchTest.testInvalidValuesLowerBound: a [3, 3] sorted input with [3] values raises (TF: "Shape must be
    # rank 2 but is rank 1 for `values`", InvalidArgumentError -> ValueError; tnp.searchsorted: 1-D sorted input only)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError):
        tnp.searchsorted(rng.random((3, 3)).astype(np.float32), rng.random(3).astype(np.float32))


# -- array_ops_test.py: UnravelIndexTest -----------------------------------------------------------------------

@pytest.mark.parametrize("x64", [False, True])
def test_unravel_index(x64):
    # UnravelIndexTest.testUnravelIndex (skipped inside Google; TF 2.21 values: [3, 1, 4, 1], [[3], [1], [4], [1]],
    # [[3, 6, 6], [4, 5, 1]]), int32 and int64 (x64) indices; TF stacks the coordinates, NumPy returns a tuple
    dtype = "int64" if x64 else "int32"
    with jax.enable_x64(x64):
        for indices, dims, want in ((1621, (6, 7, 8, 9), [3, 1, 4, 1]),
                                    ([1621], (6, 7, 8, 9), [[3], [1], [4], [1]]),
                                    ([22, 41, 37], (7, 6), [[3, 6, 6], [4, 5, 1]])):
            out = tnp.unravel_index(tj.constant(indices, dtype=dtype), dims)
            assert isinstance(out, tuple) and len(out) == len(dims)
            assert all(o.dtype == np.dtype(dtype) for o in out)
            np.testing.assert_array_equal(np.stack([o.numpy() for o in out]), want)


def test_unravel_index_zero_dim():
    # UnravelIndexTest.testUnravelIndexZeroDim
    with pytest.raises(ValueError):
        tnp.unravel_index(tj.constant([2, 5, 7]), (3, 0))


@pytest.mark.parametrize("x64", [False, True])
def test_unravel_index_integer_overflow(x64):
    # UnravelIndexTest.testUnravelIndexIntegerOverflow: TF raises InvalidArgumentError (its dims' product
    # overflows); tapejax raises ValueError too: the index -0x100000 is out of bounds (as NumPy says)
    dim = 0x7FFFFFFFFFFFFFFF if x64 else 0x10000000
    with jax.enable_x64(x64):
        with pytest.raises(ValueError):
            tnp.unravel_index(tj.constant(-0x100000, dtype="int64" if x64 else "int32"), (dim, dim))
