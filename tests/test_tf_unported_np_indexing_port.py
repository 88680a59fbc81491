"""TF's NumPy-indexing suite ported to tj.Tensor indexing and ``.at[...]`` indexed updates.

Sources: tensorflow/python/ops/numpy_ops/tests/np_indexing_test.py (TF's copy of JAX's
lax_numpy_indexing_test), classes IndexingTest and IndexedUpdateTest.

How TF maps onto tj:
* ``tnp.asarray(x)[indexer]`` -> ``tj.constant(x)[indexer]`` (API.md: basic and advanced indexing).
  Values and dtypes are compared with NumPy, the test's own reference (TF 2.21's tnp was run here on the
  same specs and agrees). x64 is off, so float64/int64 of TF's grids become float32/int32.
* "Dynamic" indexing (indices as arguments of a compiled function) -> scalar Tensors as indices/slice
  bounds, eagerly and as ``tj.function`` arguments.
* ``nje.jit`` -> ``tj.function``.
* ``nje.index_update / index_add / index_min / index_max`` -> ``t.at[idx].set / add / min / max``
  (jax.Array's indexed updates, which tj.Tensor offers). Values against NumPy's in-place assignment.
* Gradients: TF's file has only ``check_grads`` (numerical) of index_update/index_add; here the tape
  gradients of ``sum(w * x[idx])`` (grid STATIC_INDEXING_GRAD_TESTS, sampled, plus advanced and mixed
  indexers) and of ``sum(w * x.at[idx].set/add(y))`` are compared with TF 2.21's GradientTape gradients
  (tnp indexing and np_array_ops._with_index_update_helper, the op behind tnp's index updates), run here
  and hard-coded (lists, or conftest ``D`` digests for arrays over 16 entries). One ForwardAccumulator
  JVP and one tape inside ``tj.function`` are compared with TF's ForwardAccumulator / tf.function.

Parameter grids are sampled: every index spec of the value tests is kept, dtypes rotate over
float32/int32/bool instead of running the full product; update shapes are one or two of the
broadcastable shapes per spec.

Left out:
* testDynamicSlice, testDynamicSliceAgainstNumpy, testDynamicSliceInDim, testDynamicUpdateSlice,
  testDynamicUpdateSliceAgainstNumpy, testDynamicUpdateSliceInDim: ``nje.dynamic_slice`` /
  ``dynamic_update_slice`` are TF test-extension ops (jax.lax's), with no tj / jax.numpy counterpart.
* The ``_CompileAndCheck`` halves' "incomplete shape" / XLA-forced checks: TF graph shape inference.

Sanctioned differences (not xfailed):
* Float index: tnp raises IndexError (NumPy's); API.md fixes TypeError for a float index (as tf.Tensor's
  ``__getitem__``). Tested as TypeError.
* Slice bounds that are traced arguments of ``tj.function``: TF's tf.function gives a dynamic shape; an
  XLA program needs a static one (TF's own test turns its XLA-forced check off there). tj raises a clear
  TracedValueError (a TypeError); eager Tensor bounds work.
* TF's index_update with an advanced index and a broadcast update (shape (1, 6) into (4, 6)) fails in
  TensorScatterUpdate; jax's ``.at`` broadcasts as NumPy (tested against NumPy).
"""
import numpy as np
import pytest

import tapejax as tj
from conftest import D, close_to_tf

tnp = tj.numpy
A = np.array
DTYPES = [np.float32, np.int32, np.bool_]

STATIC = [
    ((3,), 1), ((3, 3), 0), ((3, 4, 5), 2), ((3,), -1), ((3,), -2),
    ((3, 3), (2, 1)), ((3, 4, 5), (1, 2)), ((3, 4, 5), (-1, 2)), ((3, 4, 5), (1, 2, 3)),
    ((10,), slice(1, 3)), ((10,), slice(1, -1)), ((10,), slice(None, -1)), ((10,), slice(None)),
    ((10, 8), slice(1, 3)), ((10, 8), slice(1, None)), ((10, 8), slice(None, 3)), ((10, 8), slice(-3, None)),
    ((10,), slice(3, 1, -1)), ((10,), slice(1, 8, -1)), ((10,), slice(None, 1, -2)), ((10,), slice(None, None, -1)),
    ((10, 8), slice(3, 1, -1)), ((10, 8), slice(0, 8, -1)), ((10, 8), slice(None, None, -1)),
    ((10,), slice(0, 8, 2)), ((10,), slice(0, 8, 3)), ((10,), slice(1, 3, 2)), ((10,), slice(1, None, 2)),
    ((10, 8), slice(1, 8, 3)), ((10, 8), slice(None, None, 2)), ((10, 8), slice(None, 1, -2)),
    ((10, 8), slice(None, None, -2)),
    ((10, 8), (slice(1, 3), slice(0, 2))), ((10, 8), (slice(1, None), slice(None, 2))),
    ((10, 8), (slice(None, None, -1), slice(None, 2))), ((10, 8, 3), (slice(1, 3), slice(0, 2))),
    ((10, 8, 3), (slice(1, 3), slice(0, None))), ((10, 8, 3), (slice(1, None), slice(0, 2))),
    ((3,), slice(None)), ((3, 4), slice(None)), ((3, 4), (slice(None), slice(None))),
    ((3, 4, 5), (slice(None), slice(None))), ((10, 4), (slice(None), slice(0, 2))), ((10, 4), (1, slice(None))),
    ((3,), Ellipsis), ((3, 4), Ellipsis), ((3, 4, 5), (0, Ellipsis)), ((3, 4, 5), (Ellipsis, 2, 3)),
    ((), None), ((), (None, None)), ((), (Ellipsis, None)), ((3,), None), ((3, 4), None),
    ((3, 4), (Ellipsis, None)), ((3, 4), (0, None, Ellipsis)), ((3, 4, 5), (1, None, Ellipsis)),
    ((), ()), ((3,), ()), ((3, 4), ()),
]

ADVANCED = [
    ((3,), A([0, 1])), ((3, 3), A([1, 2, 1])), ((3, 4, 5), A([0, 2, 0, 1])), ((3,), A([-1, 1])),
    ((3,), A([-2, -1])), ((0,), A([], dtype=np.int32)),
    ((3,), A([[0, 0]])), ((3, 3), A([[1, 2, 1], [0, 1, -1]])), ((3, 4, 5), A([[0, 2, 0, 1], [-1, -2, 1, 0]])),
    ((3, 3), (A([0, 1]), A([1, 2]))), ((3, 4, 5), (A([0, 2, 0, 1]), A([-1, 0, -1, 2]))),
    ((3, 3), (A([[0, 1]]), A([1, 2]))), ((3, 4, 5), (A([[0, 2, 0, 1]]), A([-1, 0, -1, 2]))),
    ((3, 4, 5), [0, 1]), ((3, 4, 5), ([[0], [-1]], [[2, 3, 0, 3]])),
    ((3, 4, 5), (0, A([0, 1]))), ((3, 4, 5), (0, 1, A([[2, 3, 0, 3]]))),
    ((3, 4, 5), ([0, 1], A([0]))), ((3, 4, 5), ([[0], [-1]], A([[2, 3, 0, 3]]))),
]

MIXED_NO_REPEATS = [
    ((2, 3), (A([0, 1]), slice(1, 2))), ((2, 3), (slice(0, 2), A([0, 2]))),
    ((3, 4, 5), (Ellipsis, A([0, 2]), slice(None))), ((3, 4, 5), (Ellipsis, A([[0, 2], [1, 3]]), slice(None))),
    ((3, 4, 5), (Ellipsis, A([0, 2]), A([-1, 2]))), ((3, 4, 5), (A([0, 2]), Ellipsis, A([-1, 2]))),
    ((3, 4, 5), (A([0, 2]), A([-1, 2]), Ellipsis)), ((3, 4, 5), (A([0, 2]), A([-1, 2]), slice(1, 3))),
    ((3, 4, 5), (A([0, 2]), slice(1, 3), A([-1, 2]))),
    ((3, 4, 5), (A([0, 2, -2]), slice(None, None, 2), A([-1, 2, 1]))),
    ((3, 4, 5), (A([0, 2]), None, A([-1, 2]))), ((3, 4, 5), (A([0, 2]), None, None, A([-1, 2]))),
    ((3, 4, 5), (Ellipsis, A([0, 2]), None, None, A([-1, 2]))),
    ((3, 4), (Ellipsis, A(1, dtype=np.int32))),
]
MIXED = MIXED_NO_REPEATS + [
    ((3, 4, 5), (Ellipsis, A([[0, 2], [1, 1]]), slice(None))),
    ((3, 4, 5), (A([0, 2, -2]), slice(None, None, 2), A([-1, 2, -1]))),
    ((3, 4, 5), (A([[0, 2], [2, 0]]), Ellipsis, A([[1, 0], [1, 0]]))),
]


def _data(shape, dtype, seed=0):
    r = np.asarray(np.random.RandomState(seed).randn(*shape) * 3)
    return (r > 0) if dtype == np.bool_ else r.astype(dtype)


def _cases(specs):
    # dtypes rotate over the specs instead of the full product (run time)
    return [pytest.param(s, i, DTYPES[k % 3], id=f"{k}-{np.dtype(DTYPES[k % 3]).name}")
            for k, (s, i) in enumerate(specs)]


def _check_index(shape, dtype, indexer):
    x = _data(shape, dtype)
    got = tj.constant(x)[indexer]
    want = x[indexer]
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got.numpy(), want)


# -- IndexingTest ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape,indexer,dtype", _cases(STATIC))
def test_static_indexing(shape, indexer, dtype):
    _check_index(shape, dtype, indexer)


@pytest.mark.parametrize("shape,indexer", [
    ((5,), slice(1, 3)), ((5, 4), slice(1, 3)), ((5, 4), (slice(1, 3), slice(0, 2))),
    ((5, 4, 3), (slice(1, 3), slice(0, 2))), ((3,), slice(None, None, -1)), ((3, 3), slice(0, 3, -2)),
    ((3, 4, 5), slice(0, 4, 2)), ((5, 4), (slice(None, 3), slice(0, 2))), ((5, 4, 3), (slice(1, 3), slice(0, None)))])
def test_dynamic_indexing_with_slices(shape, indexer):
    # slice bounds given as scalar Tensors (TF: as arguments of a compiled function)
    x = _data(shape, np.float32)

    def as_tensors(s):
        if isinstance(s, tuple):
            return tuple(as_tensors(e) for e in s)
        return slice(*(None if b is None else tj.constant(b) for b in (s.start, s.stop, s.step)))
    got = tj.constant(x)[as_tensors(indexer)]
    np.testing.assert_array_equal(got.numpy(), x[indexer])


def test_dynamic_slice_bounds_traced_in_function_raise_clearly():
    # sanctioned: an XLA program has static shapes (TF's own XLA-forced check is off for this case)
    f = tj.function(lambda x, a, b: x[a:b])
    with pytest.raises(TypeError, match="slice bound"):
        f(tj.constant(np.ones((5, 4), np.float32)), tj.constant(1), tj.constant(3))


INT_SPECS = [((3,), 1), ((3, 3), 0), ((3, 4, 5), 2), ((3,), -1), ((3,), -2),
             ((3, 3), (2, 1)), ((3, 4, 5), (1, 2)), ((3, 4, 5), (-1, 2)), ((3, 4, 5), (1, 2, 3))]


@pytest.mark.parametrize("shape,indexer,dtype", _cases(INT_SPECS))
def test_dynamic_indexing_with_integers(shape, indexer, dtype):
    x = _data(shape, dtype)
    idx = indexer if isinstance(indexer, tuple) else (indexer,)
    want = x[indexer]
    eager = tj.constant(x)[tuple(tj.constant(i) for i in idx)]
    compiled = tj.function(lambda t, *ii: t[ii])(tj.constant(x), *(tj.constant(i) for i in idx))
    for got in (eager, compiled):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("shape,indexer,dtype", _cases(ADVANCED))
def test_advanced_integer_indexing(shape, indexer, dtype):
    _check_index(shape, dtype, indexer)


@pytest.mark.parametrize("shape,indexer,dtype", _cases(MIXED))
def test_mixed_advanced_integer_indexing(shape, indexer, dtype):
    _check_index(shape, dtype, indexer)


@pytest.mark.parametrize("op", [
    lambda x, i: x[..., i, :],
    lambda x, i: x[..., i, :, i, None],
    lambda x, i: x[i, ..., i[:, None], None]], ids=["ell-arr-colon", "arr-colon-arr-none", "arr-ell-arr2d-none"])
def test_advanced_indexing_manually(op):
    x = np.random.RandomState(0).randn(3, 4, 5).astype(np.float32)
    index_array = A([0, 2, -1, 0])
    want = op(x, index_array)
    eager = op(tj.constant(x), index_array)
    compiled = tj.function(op)(tj.constant(x), tj.constant(index_array))
    for got in (eager, compiled):
        assert got.shape == want.shape
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


def test_unpacking():
    a, b, c = tnp.arange(3)
    np.testing.assert_array_equal((a + b + c).numpy(), 3)


@pytest.mark.parametrize("x,idx", [
    (np.arange(3), A([True, True, False])),
    (np.arange(3), [True, True, False]),
    (np.arange(8).reshape(4, 2), A([True, True, False, True])),
    (np.arange(8).reshape(4, 2), [True, True, False, True]),
    (np.arange(8).reshape(4, 2), A([[True, False], [False, True], [False, False], [True, True]])),
    (np.zeros(3), A([True, True, False])),
    (A([-1]), A([False])),
], ids=["array1d", "list1d", "array2d-broadcast", "list2d-broadcast", "array2d", "dynamic-shape", "empty-result"])
def test_boolean_indexing(x, idx):
    got = tj.constant(x)[idx]
    want = np.asarray(x)[idx]
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.numpy(), want)


def test_boolean_mask_tensor_with_empty_result():
    got = tj.constant([-1])[tj.constant([False])]
    assert got.shape == (0,)


def test_issue187_repeated_pairs():
    x = np.arange(25).reshape(5, 5)
    assert tnp.ones((5, 5))[[0, 2, 4], [0, 2, 4]].shape == (3,)
    got = tj.function(lambda t: t[[0, 2, 4], [0, 2, 4]])(tj.constant(x))
    np.testing.assert_array_equal(got.numpy(), [0, 12, 24])


def test_indexing_empty_dimension():
    # TF disables this test (XLA error); API.md requires IndexError out of bounds, never a clamped value
    x = tnp.ones((2, 0))
    n = np.ones((2, 0), np.float32)
    want = n[0, :] + n[0, None] + n[0, 1:] + n[0, 1:3:2]
    assert (x[0, :] + x[0, None] + x[0, 1:] + x[0, 1:3:2]).shape == want.shape
    with pytest.raises(IndexError, match="out of bounds"):
        x[0, 0]


@pytest.mark.parametrize("shape,idx", [((2,), 0.0), ((2, 2), (0, 0.0))])
def test_float_indexing_error(shape, idx):
    with pytest.raises(IndexError):  # NumPy's (and tnp's) error
        np.zeros(shape)[idx]
    with pytest.raises(TypeError, match="float"):  # sanctioned: API.md fixes TypeError
        tnp.zeros(shape)[idx]
    with pytest.raises(TypeError, match="float"):
        tj.function(lambda t: t[idx])(tnp.zeros(shape))


def test_slice_past_the_end_is_clamped():
    # a slice (not an index) past the end is NumPy's clamped slice, not an error
    a = tnp.ones(5)
    np.testing.assert_array_equal(a[:10].numpy(), np.ones(5, np.float32))


# -- IndexedUpdateTest: x.at[idx].set/add/min/max against NumPy ---------------------------------------------

def _broadcastable(shape):
    # the full shape, and the shape with its leading dimension dropped or set to 1 (a sample of TF's list)
    out = [tuple(shape)]
    if shape:
        out.append(tuple(shape[1:]))
        if shape[0] != 1:
            out.append((1,) + tuple(shape[1:]))
    return out


def _np_update(op, x, idx, y):
    x = x.copy()
    x[idx] = {"set": lambda: y, "add": lambda: x[idx] + y,
              "min": lambda: np.minimum(x[idx], y), "max": lambda: np.maximum(x[idx], y)}[op]()
    return x


def _update_cases(specs, every):
    cases = []
    for k, (shape, idx) in enumerate(specs[::every]):
        op = ["set", "add", "min", "max"][k % 4]
        dtype = DTYPES[k % 3] if op == "set" else DTYPES[k % 2]
        ushapes = _broadcastable(np.zeros(shape)[idx].shape)
        ushape = ushapes[k % len(ushapes)]
        cases.append(pytest.param(shape, idx, op, dtype, ushape, id=f"{k}-{op}-{np.dtype(dtype).name}-{ushape}"))
    return cases


ADVANCED_NO_REPEATS = [
    ((3,), A([0, 1])), ((3, 3), A([1, 2, 0])), ((3, 4, 5), A([0, 2, 1])), ((3,), A([-1, 1])), ((3,), A([-2, -1])),
    ((3,), A([[0, 1]])), ((6, 6), A([[1, 2, 0], [3, 4, -1]])),
    ((3, 3), (A([0, 1]), A([1, 2]))), ((4, 5, 6), (A([0, 2, 1, 3]), A([-1, 0, -2, 1]))),
    ((3, 3), (A([[0, 1]]), A([1, 2]))), ((4, 5, 6), (A([[0, 2, -1, 1]]), A([-1, 0, -2, 2]))),
    ((3, 4, 5), [0, 1]), ((3, 4, 5), ([[0], [-1]], [[2, 3, 0]])),
    ((3, 4, 5), (0, A([0, 1]))), ((3, 4, 5), (0, 1, A([[2, 3, 0]]))),
    ((3, 4, 5), ([0, 1], A([0]))), ((3, 4, 5), ([[0], [-1]], A([[2, 3, 0]]))),
]


@pytest.mark.parametrize("shape,idx,op,dtype,ushape",
                         _update_cases(STATIC, 2) + _update_cases(ADVANCED_NO_REPEATS, 1)
                         + _update_cases(MIXED_NO_REPEATS, 1))
def test_indexed_update(shape, idx, op, dtype, ushape):
    x, y = _data(shape, dtype, 1), _data(ushape, dtype, 2)
    want = _np_update(op, x, idx, y)
    got = getattr(tj.constant(x).at[idx], op)(tj.constant(y))
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got.numpy(), want)


# -- gradients against TF 2.21's GradientTape -----------------------------------------------------------------

def _x(shape):
    return np.linspace(-2, 3, int(np.prod(shape)), dtype=np.float32).reshape(shape)


def _w(shape):
    # integer weights, so every gradient is exact
    return (np.arange(int(np.prod(shape))) % 7 - 3).astype(np.float32).reshape(shape)


# (shape, indexer, TF's gradient of sum(w * x[indexer]) with respect to x)
GETITEM_GRADS = [
    ((3,), 1, [0.0, -3.0, 0.0]),
    ((3, 4, 5), 2, D(-3.0, 7.319751596621452, 33.0)),
    ((3,), -2, [0.0, -3.0, 0.0]),
    ((3, 4, 5), (-1, 2), D(-5.0, 4.268315353935224, 7.0)),
    ((3, 4, 5), (1, 2, 3), D(-3.0, 1.337070001333009, 3.0)),
    ((5, 4), slice(-3, None, None), D(-5.0, -9.309047904420945, 19.0)),
    ((5,), slice(1, -1, None), [0.0, -3.0, -2.0, -1.0, 0.0]),
    ((5, 4, 3), (slice(1, None, None), slice(0, 2, None)), D(-6.0, 2.240862112975284, 42.0)),
    ((5, 4), (1, slice(None, None, None)), D(-6.0, 5.189841217928268, 6.0)),
    ((3, 4, 5), (Ellipsis, 2, 3), D(-6.0, 2.9087080268385126, 6.0)),
    ((3, 4), (0, None, Ellipsis), [-3.0, -2.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    ((), (None, None), [-3.0]),
    ((10,), slice(None, 1, -2), [0.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, -2.0, 0.0, -3.0]),
    ((10, 8), slice(None, None, -2), D(-5.0, -6.03212629845197, 67.0)),
    ((3, 3), A([1, 2, 1]), [0.0, 0.0, 0.0, 0.0, -5.0, -3.0, 0.0, 1.0, 2.0]),
    ((3, 4, 5), A([[ 0, 2, 0, 1], [-1, -2, 1, 0]]), D(-3.0, -26.91711600049518, 143.0)),
    ((3, 3), (A([[0, 1]]), A([1, 2])), [0.0, -3.0, 0.0, 0.0, 0.0, -2.0, 0.0, 0.0, 0.0]),
    ((3, 4, 5), ([[0], [-1]], A([[2, 3, 0, 3]])), D(-5.0, -0.8748945302476129, 47.0)),
    ((3, 4, 5), (Ellipsis, A([[0, 2], [1, 1]]), slice(None, None, None)), D(-6.0, -3.9942608898082845, 88.0)),
    ((3, 4, 5), (A([0, 2, -2]), slice(None, None, 2), A([-1, 2, -1])), D(-3.0, 5.129042425481785, 9.0)),
    ((3, 4, 5), (A([[0, 2], [2, 0]]), Ellipsis, A([[1, 0], [1, 0]])), D(-5.0, -6.1730002153463355, 29.0)),
    ((3, 4, 5), (A([0, 2]), None, A([-1, 2])), D(-6.0, -5.527773906054051, 18.0)),
    ((3, 4), (Ellipsis, A(1, dtype=np.int32)), [0.0, -3.0, 0.0, 0.0, 0.0, -2.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0]),]


@pytest.mark.parametrize("shape,indexer,want", GETITEM_GRADS)
def test_indexing_gradient_as_tf(shape, indexer, want):
    x = tj.constant(_x(shape))
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = x[indexer]
        loss = tnp.sum(y * _w(y.shape))
    close_to_tf(tape.gradient(loss, x), want, rtol=1e-6)


# (shape, indexer, update shape, TF update method, TF's gradients of sum(w * updated) for x and for y)
UPDATE_GRADS = [
    ((3, 4, 5), 2, (4, 5), 'UPDATE', D(-5.0, -8.835166259428412, 67.0), D(-1.0, -4.130527743386337, 35.0)),
    ((3, 4, 5), 2, (1, 5), 'ADD', D(-6.0, -2.3990737396120565, 102.0), [3.0, 0.0, -3.0, 1.0, -2.0]),
    ((10, 8), slice(None, None, -2), (8,), 'UPDATE',
     D(-2.0, -8.836384889001781, 70.0), [-4.0, 1.0, -1.0, 4.0, 2.0, 0.0, -2.0, -4.0]),
    ((10,), slice(1, 3, None), (), 'ADD', [-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, -3.0, -2.0, -1.0], [-3.0]),
    ((3, 4), (0, None, Ellipsis), (1, 4), 'UPDATE',
     [0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, -3.0, -2.0, -1.0, 0.0, 1.0], [-3.0, -2.0, -1.0, 0.0]),
    ((3, 4, 5), (Ellipsis, 2, 3), (3,), 'ADD', D(-6.0, -2.3990737396120565, 102.0), [3.0, 2.0, 1.0]),
    ((5, 4), (slice(1, 3, None), slice(0, 2, None)), (2, 1), 'UPDATE', D(-3.0, -4.43405860295204, 27.0), [3.0, -3.0]),
    ((3, 3), A([1, 2, 0]), (3, 3), 'ADD',
     [-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, -3.0, -2.0], [0.0, 1.0, 2.0, 3.0, -3.0, -2.0, -3.0, -2.0, -1.0]),
    ((4, 5, 6), (A([0, 2, 1, 3]), A([-1, 0, -2, 1])), (4, 6), 'UPDATE',
     D(-1.0, -5.125386298289655, 163.0), D(-2.0, 12.083311165978202, 44.0)),
    ((3, 4, 5), (A([0, 2]), slice(1, 3, None), A([-1, 2])), (2, 2), 'ADD',
     D(-6.0, -2.3990737396120565, 102.0), [-1.0, -3.0, 2.0, 0.0]),]


@pytest.mark.parametrize("shape,indexer,ushape,op,want_x,want_y", UPDATE_GRADS)
def test_indexed_update_gradient_as_tf(shape, indexer, ushape, op, want_x, want_y):
    x = tj.constant(_x(shape))
    y = tj.constant(np.linspace(1, 2, int(np.prod(ushape)), dtype=np.float32).reshape(ushape))
    with tj.GradientTape() as tape:
        tape.watch([x, y])
        out = getattr(x.at[indexer], {"UPDATE": "set", "ADD": "add"}[op])(y)
        loss = tnp.sum(out * _w(out.shape))
    gx, gy = tape.gradient(loss, [x, y])
    close_to_tf(gx, want_x, rtol=1e-6)
    close_to_tf(gy, want_y, rtol=1e-6)


def test_mixed_indexing_forward_accumulator_as_tf():
    x = tj.constant(_x((3, 4, 5)))
    with tj.ForwardAccumulator(x, tj.constant(_w((3, 4, 5)))) as acc:
        y = x[A([0, 2]), 1:3, A([-1, 2])]
    close_to_tf(acc.jvp(y), [-1.0, -3.0, 2.0, 0.0], rtol=0)  # TF's ForwardAccumulator


def test_advanced_indexing_gradient_inside_function_as_tf():
    @tj.function
    def grad(x):
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = x[..., A([0, 2, -1, 0]), :]  # repeated index 0: its gradient accumulates
            loss = tnp.sum(y * y)
        return tape.gradient(loss, x)
    # TF's tape inside tf.function
    close_to_tf(grad(tj.constant(_x((3, 4, 5)))),
                D(47.28813587129116, -15.330061271184004, 157.05084727704525), rtol=1e-5)
