"""JAX's NumPy-indexing tests (class IndexingTest) ported to tj.Tensor indexing and ``x.at[...]``.

Source: jax-ml/jax tests/lax_numpy_indexing_test.py, class ``IndexingTest`` (the mirror's HEAD; the installed jax
is 0.10.2). TF's older copy of the same class is already ported in test_tf_unported_np_indexing_port.py; this file
takes what that copy lacks: JAX's newer index specs, ``x.at[idx].get/apply``, gradients against jax's own
derivatives, boolean masks with Ellipsis/None/scalars, and the error cases.

How JAX maps onto tj:
* ``jnp.asarray(x)[idx]`` -> ``tj.constant(x)[idx]``; ``x.at[idx].get/apply/set`` -> the same methods of tj.Tensor.
  Each result must have jax.numpy's shape and dtype (x64 off) and NumPy's / jax's values (both are computed here
  at test time; where the JAX test hard-codes an expectation, that value is kept).
* ``_CompileAndCheck`` / ``jax.jit`` -> ``tj.function`` on the same inputs, compared with the eager result.
  A traced argument of ``jax.jit`` -> a Tensor argument of ``tj.function`` (tj.function takes Python scalars as
  static values, as tf.function does).
* ``check_grads`` (numerical JVP/VJP) -> tj.GradientTape's gradient against ``jax.vjp`` of the same jnp function
  (a random cotangent), tj.ForwardAccumulator against ``jax.jvp``; order 2 (testStaticIndexingGrads) by nested
  tapes against the VJP of jax's VJP. No kink or tie of API.md's TF conventions lies on these paths.
* Inputs: a seeded NumPy RNG; dtypes sampled over float32, int32, bool, complex64 and one float16 case (not
  JAX's full sweep); the parameter grids are sampled to keep the file fast (testIndexApply: sin, log, exp of its
  seven functions; testStaticIndexingGrads: four mode/spec pairs; testScalarBoolUpdate: every other index).

Left out (IndexingTest methods):
* testIndicesNormalizationByType, testSimpleIndexingUsesSlice, testTrivialGatherIsntGenerated: jaxpr inspection
  (JAX internals). The values of unsigned/narrow index dtypes are checked instead (test_index_array_dtypes).
* testDynamicIndexingWithIntegers, testAdvancedIndexingManually, testBooleanIndexingArray1D,
  testBooleanIndexingArray2DBroadcast, testBooleanIndexingArray2D, testIssue187, testBooleanIndexingWithEmptyResult:
  already ported (test_tf_unported_np_indexing_port.py); the eager half of testUnpacking and of
  testIndexingEmptyDimension too (their tj.function halves are here).
* testBooleanIndexingList1D / testBooleanIndexingList2DBroadcast: jax raises TypeError for a Python list used as
  an index; API.md makes lists valid indices ("everywhere a Tensor is accepted (... indices), lists are accepted
  too"), and the TF port checks tj gives NumPy's result there. Sanctioned, not repeated.
* The ``jax.vmap`` / ``lax.fori_loop`` parts of testNonStaticSliceErrorMessage (messages naming jax's tracers).
* IndexingStrategyTest, IndexedUpdateTest, ValidateIndicesTest, DSliceTest: other classes (not this port's).

Sanctioned differences (not xfailed):
* Error messages: tj's own wording (API.md: clear exceptions naming the problem); the exception classes are
  jax's (checked).
* testJVPOfGradOfIndexing: the tangent of a gradient that does not depend on x is TF's unconnected ``None``
  (TF 2.21's ForwardAccumulator over GradientTape gives None here, run); zeros with
  ``unconnected_gradients='zero'``, which is jax's answer.
* A Python int given to tj.function is a static value (tf.function's signature rule), so ``x[i:i + 2]`` with a
  Python ``i`` works there where jax.jit raises; the traced case is a Tensor argument.

Differences found and fixed in tapejax: a traced slice bound inside tj.function raised only TypeError (jax:
IndexError; now both); an empty boolean mask (size 0) raised IndexError where jax and NumPy select nothing.
"""
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from conftest import accumulator_jvp

tnp = tj.numpy
A = np.array
IE = np.index_exp
DTYPES = [np.float32, np.int32, np.bool_, np.complex64]


def _rand(shape, dtype, seed=0):
    r = np.random.RandomState(seed)
    if dtype == np.bool_:
        return r.rand(*shape) > 0.5
    x = r.randn(*shape) * 3
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * r.randn(*shape)
    return np.asarray(x).astype(dtype)


def _same(got, want, exact=True):
    """``got`` (a Tensor) has ``want``'s shape, dtype and values (``want``: a jax array or NumPy's result, cast
    to the dtype jax gives it)."""
    want = np.asarray(want)
    dtype = jax.dtypes.canonicalize_dtype(want.dtype)
    assert isinstance(got, tj.Tensor), type(got)
    assert (got.shape, got.dtype) == (want.shape, dtype), (got.shape, got.dtype, want.shape, dtype)
    if exact:
        np.testing.assert_array_equal(got.numpy(), want.astype(dtype))
    else:
        np.testing.assert_allclose(got.numpy(), want.astype(dtype), rtol=1e-6, atol=1e-6)


def _check_vs_numpy_and_jax(x, f):
    """``f`` (an indexing function) on a Tensor against NumPy's and jax.numpy's results on the same array."""
    want_jax = f(jnp.asarray(x))
    np.testing.assert_array_equal(np.asarray(want_jax), f(x).astype(want_jax.dtype))  # (jax agrees with NumPy)
    got = f(tj.constant(x))
    _same(got, want_jax)
    return got


# -- testStaticIndexing: JAX's specs that TF's copy lacks, and x.at[idx].get() ------------------------------

NEW_STATIC = [
    ((10, 8), slice(12, 12, -4)), ((10, 8), slice(12, 4, -4)),  # OneSliceIndexNegativeStride
    ((10,), slice(2, 11, 1)), ((10,), slice(11, 12, 1)), ((10,), slice(-11, -2, 1)),  # SliceIndexClamping
    ((10,), slice(-2, -12, -1)), ((10,), slice(12, -12, -1)),
    ((3, 4, 5), (1, None, slice(None), None)),  # NoneIndex
    ((3, 2, 3), (0, slice(None), np.arange(3))),  # TupleOfIntAndSliceAndIntArray
    ((3, 2, 3), (np.int32(1), slice(None), np.arange(3))),
    ((3, 2, 3), (np.array(2), slice(None), np.arange(3))),
]

# a sample of JAX's older STATIC_INDEXING_TESTS specs, for x.at[idx].get() (TF's copy has no .at[].get())
OLD_STATIC_SAMPLE = [
    ((3, 4, 5), (-1, 2)), ((10,), slice(1, 8, -1)), ((10, 8), slice(None, 1, -2)),
    ((10, 8, 3), (slice(1, None), slice(0, 2))), ((3, 4, 5), (0, Ellipsis)), ((3, 4), (0, None, Ellipsis)),
    ((), (Ellipsis, None)),
]


def _static_cases():
    cases = [pytest.param(s, i, DTYPES[k % 4], id=f"new{k}-{np.dtype(DTYPES[k % 4]).name}")
             for k, (s, i) in enumerate(NEW_STATIC)]
    cases.append(pytest.param((10, 8), slice(12, 4, -4), np.float16, id="new-float16"))
    return cases


@pytest.mark.parametrize("shape,indexer,dtype", _static_cases())
def test_static_indexing_new_specs(shape, indexer, dtype):
    x = _rand(shape, dtype)
    got = _check_vs_numpy_and_jax(x, lambda a: a[indexer])
    _same(tj.constant(x).at[indexer].get(), got.numpy())  # (jax's at[].get() is its getitem)
    _same(tj.function(lambda t: t[indexer])(tj.constant(x)), got.numpy())  # _CompileAndCheck


@pytest.mark.parametrize("shape,indexer", OLD_STATIC_SAMPLE)
def test_static_indexing_at_get(shape, indexer):
    x = _rand(shape, np.float32, 1)
    _same(tj.constant(x).at[indexer].get(), x[indexer])  # (float32: NumPy's dtype is jax's)


def test_static_indexing_with_array_slice_bounds():
    # slice bounds given as 0-d jax/NumPy arrays, or as scalar Tensors
    x = _rand((10,), np.int32)
    want = x[2:11:1]
    idx = slice(jnp.array(2, np.int32), np.array(11, np.int32), jnp.array(1, np.int32))
    _same(tj.constant(x)[idx], jnp.asarray(x)[idx])
    _same(tj.constant(x).at[idx].get(), want)
    _same(tj.function(lambda t: t[idx])(tj.constant(x)), want)  # (as jax.jit: concrete closure values)
    _same(tj.constant(x)[tj.constant(2):tj.constant(11):tj.constant(1)], want)


# -- x.at[idx].apply ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("funcname", ["sin", "log", "exp"])  # (of negative, sin, cos, square, sqrt, ...)
def test_index_apply(funcname):
    x = _rand((10,), np.float32)
    idx = np.random.RandomState(1).randint(-10, 10, size=10)
    jfunc = getattr(jnp, funcname)

    def np_op(x, idx):
        y = x.copy()
        with np.errstate(invalid="ignore", divide="ignore"):
            getattr(np, funcname).at(y, idx)  # applied once per occurrence of an index
        return y
    for index in (idx, slice(1, 5))[:1 if funcname == "exp" else 2]:
        got = tj.constant(x).at[index].apply(jfunc)
        want = jnp.asarray(x).at[index].apply(jfunc)
        _same(got, want, exact=False)
        np.testing.assert_allclose(got.numpy(), np_op(x, index), rtol=2e-6, atol=1e-6)
    if funcname == "sin":  # _CompileAndCheck with the index array as an argument
        compiled = tj.function(lambda t, i: t.at[i].apply(jnp.sin))(tj.constant(x), tj.constant(idx))
        _same(compiled, jnp.asarray(x).at[idx].apply(jnp.sin), exact=False)


def test_index_apply_batching_bug():
    # jax issue 16655: jax.vmap of a function of Tensors built from tj ops
    arr, ind = jnp.array([[1, 2, 3, 4, 5, 6]]), jnp.array([3])

    def func(a, i):
        return tj.constant(a).at[i].apply(lambda v: v - 1).value
    want = jnp.array(list(map(func, arr, ind)))
    np.testing.assert_array_equal(want, [[1, 2, 3, 3, 5, 6]])
    np.testing.assert_array_equal(jax.vmap(func)(arr, ind), want)


def test_index_update_scalar_bug():
    # jax issue 14923: cos applied to one entry of a float array
    a = tnp.arange(10.0)
    out = a.at[0].apply(jnp.cos)
    _same(out, a.at[0].set(1).numpy())
    _same(out, np.r_[1.0, np.arange(1.0, 10.0)].astype(np.float32))


# -- gradients (check_grads -> tape / accumulator against jax.vjp / jax.jvp) --------------------------------

def _grad_check(f, x, order=1, seed=0):
    """tape and accumulator derivatives of ``f`` (one function on tj Tensors and jax arrays) at ``x`` against jax's
    VJP and JVP; ``order=2`` also nested tapes against the VJP of jax's VJP."""
    r = np.random.RandomState(seed)
    xj = jnp.asarray(x)
    y, vjp = jax.vjp(f, xj)
    ct = np.asarray(r.randn(*y.shape), np.float32)
    tangent = np.asarray(r.randn(*x.shape), np.float32)
    xt = tj.constant(x)
    with tj.GradientTape() as outer:
        outer.watch(xt)
        with tj.GradientTape() as tape:
            tape.watch(xt)
            out = f(xt)
        g = tape.gradient(out, xt, output_gradients=tj.constant(ct))
    _same(out, y, exact=False)
    np.testing.assert_allclose(g.numpy(), vjp(ct)[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(accumulator_jvp(f, x, tangent).numpy(), jax.jvp(f, (xj,), (jnp.asarray(tangent),))[1],
                               rtol=1e-5, atol=1e-5)
    if order == 2:
        u = np.asarray(r.randn(*x.shape), np.float32)
        want = jax.vjp(lambda v: jax.vjp(f, v)[1](jnp.asarray(ct))[0], xj)[1](jnp.asarray(u))[0]
        np.testing.assert_allclose(outer.gradient(g, xt, output_gradients=tj.constant(u)).numpy(), want,
                                   rtol=1e-5, atol=1e-5)


STATIC_GRADS = [  # (mode, shape, indexer, order); clip/drop include JAX's out-of-bounds specs
    ("promise_in_bounds", (3, 4, 5), (1, None, slice(None), None), 2),
    ("clip", (3, 4, 5), (-4, 4), 1),
    ("drop", (3,), -4, 1),
    ("drop", (10, 8), slice(None, None, -2), 1),
]


@pytest.mark.parametrize("mode,shape,indexer,order", STATIC_GRADS)
def test_static_indexing_grads(mode, shape, indexer, order):
    x = _rand(shape, np.float32, 2)
    _grad_check(lambda a: a.at[indexer].get(mode=mode, fill_value=7) ** 2, x, order=order)


@pytest.mark.parametrize("shape,indexer", [((3,), (-2,)), ((3, 4, 5), (-1, 2))])
def test_dynamic_indexing_with_integers_grads(shape, indexer):
    # integer indices as Tensor arguments of a tj.function, differentiated by an outer tape
    x = _rand(shape, np.float32, 3)
    f = tj.function(lambda a, *ii: a[ii])
    ii = [tj.constant(i) for i in indexer]
    _grad_check(lambda a: f(a, *ii) if isinstance(a, tj.Tensor) else a[indexer], x)


ADVANCED_GRADS = [((3,), A([[0, 0]])), ((3, 4, 5), ([0, 1], A([0])))]


@pytest.mark.parametrize("shape,indexer", ADVANCED_GRADS)
def test_advanced_integer_indexing_grads(shape, indexer):
    _grad_check(lambda a: a[indexer], _rand(shape, np.float32, 4))


def test_jvp_of_grad_of_indexing():
    # forward over reverse through an integer index: the gradient is constant in x
    x, i = tj.constant(np.ones((3, 4), np.float32)), tj.constant(np.ones(3, np.int32))
    with tj.ForwardAccumulator(x, tj.constant(np.ones((3, 4), np.float32))) as acc:
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = tnp.sum(x[i])
        g = tape.gradient(y, x)
    np.testing.assert_array_equal(g.numpy(), np.broadcast_to(A([0, 3, 0], np.float32)[:, None], (3, 4)))
    assert acc.jvp(g) is None  # TF's unconnected tangent (jax: zeros)
    np.testing.assert_array_equal(acc.jvp(g, unconnected_gradients="zero").numpy(), np.zeros((3, 4), np.float32))


# -- advanced and mixed indexing: JAX's specs that TF's copy lacks ------------------------------------------

NEW_ADVANCED = [
    ((3,), A([0, 1, 0])), ((3, 4, 5), A([0, -1])),  # ArrayOfInts
    ((3, 4), ([],)), ((3, 4), ([], 0)), ((3, 4), ([], [])),  # TupleOfEmptyList
]


@pytest.mark.parametrize("k,shape,indexer", [(k, s, i) for k, (s, i) in enumerate(NEW_ADVANCED)])
def test_advanced_integer_indexing_new_specs(k, shape, indexer):
    x = _rand(shape, DTYPES[k % 4])
    got = _check_vs_numpy_and_jax(x, lambda a: a[indexer])
    _same(tj.function(lambda t, i: t[i])(tj.constant(x), indexer), got.numpy())  # the index as an argument


NEW_MIXED = [  # EllipsisWithArrayIndices
    ((3, 4, 5), (A([0, 1]), ..., A([0, 1]))),
    ((3, 4, 5), (slice(None), A([0, 1]), ..., A([0, 1]))),
    ((3, 4, 5), (slice(None), ..., A([0, 1]), A([0, 1]))),
]


@pytest.mark.parametrize("k,shape,indexer", [(k, s, i) for k, (s, i) in enumerate(NEW_MIXED)])
def test_mixed_advanced_integer_indexing_new_specs(k, shape, indexer):
    x = _rand(shape, DTYPES[(k + 1) % 4])
    got = _check_vs_numpy_and_jax(x, lambda a: a[indexer])
    arrays = [e for e in indexer if isinstance(e, np.ndarray)]

    def compiled(t, *arrs):  # the index arrays as traced arguments, the rest static (JAX's substitutes)
        it = iter(arrs)
        return t[tuple(next(it) if isinstance(e, np.ndarray) else e for e in indexer)]
    _same(tj.function(compiled)(tj.constant(x), *(tj.constant(a) for a in arrays)), got.numpy())


@pytest.mark.parametrize("dtype", [np.uint8, np.int16])
def test_index_array_dtypes(dtype):
    # (testIndicesNormalizationByType's inputs: unsigned and narrow index arrays select as NumPy's)
    x = np.arange(10, dtype=np.float32)
    _check_vs_numpy_and_jax(x, lambda a: a[np.array([3, 0, 9], dtype=dtype)])


def test_unpacking_in_function():
    def foo(v):
        a, b, c = v
        return a + b + c
    x = tj.constant(np.arange(3))
    _same(tj.function(foo)(x), foo(x).numpy())
    _same(foo(x), np.int32(3))


# -- boolean masks ------------------------------------------------------------------------------------------

BOOL_SPECS = [  # (x, index); testBoolean*IndexingWith{Ellipsis,None}*
    (np.arange(24).reshape(4, 3, 2), (..., A([True, False]))),
    (np.arange(3), (..., A([True, False, True]))),
    (np.arange(6).reshape(2, 3), (0, ..., A([True, False, True]))),
    (np.arange(24).reshape(4, 3, 2), (..., A([[True, False], [True, False], [False, False]]))),
    (np.arange(24).reshape(4, 3, 2), (A([True, False, True, False]), ...)),
    (np.arange(6).reshape(2, 3), (None, A([True, False]))),
    (np.arange(6).reshape(2, 3), (None, ..., A([True, False, False]))),
    (np.arange(6).reshape(2, 3), (..., None, A([True, False, False]))),
]


@pytest.mark.parametrize("x,idx", BOOL_SPECS)
def test_boolean_indexing_with_ellipsis_and_none(x, idx):
    _check_vs_numpy_and_jax(x, lambda a: a[idx])


def test_boolean_indexing_with_none_values():
    # JAX's own expected values (issue 18542)
    x = tnp.arange(6).reshape(2, 3)
    _same(x[None, tj.constant([True, False])], np.arange(3).reshape(1, 1, 3))
    _same(x[None, ..., tj.constant([True, False, False])], A([0, 3]).reshape(1, 2, 1))
    _same(x[..., None, tj.constant([True, False, False])], A([0, 3]).reshape(2, 1, 1))


def test_boolean_indexing_traced_mask_raises_index_error():
    # a traced mask has a data-dependent result shape (jax: NonConcreteBooleanIndexError, an IndexError)
    f = tj.function(lambda x, i: x[i])
    with pytest.raises(IndexError):
        f(tnp.zeros(3), tj.constant(A([True, True, False])))


def test_boolean_indexing_shape_mismatch():
    with pytest.raises(IndexError, match="(?i)boolean"):
        tnp.arange(4)[tj.constant(A([True, False]))]


def test_nontrivial_boolean_indexing():
    # two masks over (2, 3) and (6,), each with four True entries (they broadcast together)
    index = (A([[True, False, True], [False, True, True]]), A([True, True, False, False, True, True]))
    x = _rand((2, 3, 6), np.int32)
    got = _check_vs_numpy_and_jax(x, lambda a: a[index])
    _same(tj.function(lambda t: t[index])(tj.constant(x)), got.numpy())


@pytest.mark.parametrize("x_shape,m_shape", [((3,), (0,)), ((3, 4), (0,)), ((3, 4), (0, 4)), ((3, 4), (3, 0)),
                                             ((3, 4, 5), (3, 0))])
def test_empty_boolean_indexing(x_shape, m_shape):
    # jax issue 22886: a size-0 mask array indexes as NumPy does
    x, m = _rand(x_shape, np.int32), np.empty(m_shape, dtype=bool)
    _check_vs_numpy_and_jax(x, lambda a: a[m])


SCALAR_BOOL = [IE[True], IE[False], IE[..., True], IE[..., False], IE[0, :2, True], IE[0, :2, False],
               IE[:2, 0, True], IE[:2, 0, False], IE[:2, A([0, 2]), True], IE[A([1, 0]), :, True],
               IE[True, :, True, :, A(True)]]


@pytest.mark.parametrize("idx", SCALAR_BOOL)
def test_scalar_boolean_indexing(idx):
    _check_vs_numpy_and_jax(_rand((2, 3, 4, 5), np.int32), lambda a: a[idx])


@pytest.mark.parametrize("k,idx", list(enumerate(SCALAR_BOOL))[1::2])
def test_scalar_bool_update(k, idx):
    # every other index; update_ndim rotates over 0, 1, 2 (JAX: the full product)
    x = _rand((2, 3, 4, 5), np.int32)
    ndim = k % 3
    ushape = np.zeros(x.shape)[idx].shape[-ndim:] if ndim else ()
    u = _rand(ushape, np.int32, 5)
    want = x.copy()
    want[idx] = u
    _same(tj.constant(x).at[idx].set(u), want)  # (jax's .at[].set gives NumPy's result on these, checked)


# -- slices past the ends, empty dimensions -----------------------------------------------------------------

def test_oob_empty_slice():
    x = tnp.arange(4, dtype="float32")
    for got in (x[1:0], x[-2:-10], x[5:10]):
        _same(got, np.empty(0, np.float32))
    x = tnp.arange(6, dtype="float32").reshape(2, 3)
    _same(x[-1:-4], np.empty((0, 3), np.float32))
    _same(x[:, 3:2], np.empty((2, 0), np.float32))


def test_indexing_empty_dimension_traced_index():
    # a traced index into a size-0 axis: jax raises IndexError under jit too
    x = tnp.ones((2, 0))
    with pytest.raises(IndexError, match="out of bounds for axis .* with size 0"):
        tj.function(lambda i: x[0, i])(tj.constant(0))


def test_index_out_of_bounds_modes():
    # JAX's own expected values (issue 2245)
    x = tnp.arange(5, dtype=jnp.int32) + 1
    _same(x[:10], np.arange(1, 6))
    idx = A([-10, -6, -5, -4, 0, 3, 4, 5, 6, 100])
    _same(x.at[idx].get(mode="clip"), A([1, 1, 1, 2, 1, 4, 5, 5, 5, 5], np.int32))
    nan = np.nan
    _same(x.astype(jnp.float32).at[idx].get(mode="fill"), A([nan, nan, 1, 2, 1, 4, 5, nan, nan, nan], np.float32))
    imin = np.iinfo(np.int32).min
    _same(x.at[idx].get(mode="fill"), A([imin, imin, 1, 2, 1, 4, 5, imin, imin, imin], np.int32))
    umax = np.iinfo(np.uint32).max
    _same(x.astype(np.uint32).at[idx].get(mode="fill"), A([umax, umax, 1, 2, 1, 4, 5, umax, umax, umax], np.uint32))
    _same(x.at[idx].get(mode="fill", fill_value=7), A([7, 7, 1, 2, 1, 4, 5, 7, 7, 7], np.int32))


def _wrap_reference(data, idx, mode, wrap, fill_value):
    # the JAX test's NumPy model of .at[idx].get(mode, fill_value, wrap_negative_indices)
    if wrap:
        idx = np.where(idx < 0, idx + len(data), idx)
    out = (idx < 0) | (idx >= len(data))
    result = data[np.where(out, 0, idx)]
    if mode in ("fill", "drop"):
        return np.where(out, fill_value, result).astype(data.dtype)
    return np.where(idx < 0, data[0], np.where(idx >= len(data), data[-1], result))


@pytest.mark.parametrize("k,mode,wrap", [(k, m, w) for k, (m, w) in enumerate(
    [(m, w) for m in ("promise_in_bounds", "fill", "clip", "drop") for w in (True, False)])])
def test_wrap_negative_indices_1d(k, mode, wrap):
    shape = [(5,), (10,)][k % 2]
    data = _rand(shape, np.float32, k)
    idx = np.random.RandomState(k).randint(-12, 12, size=5).astype(np.int32)

    def get(d, i):
        return d.at[i].get(mode=mode, fill_value=99, wrap_negative_indices=wrap)
    got = get(tj.constant(data), idx)
    _same(got, _wrap_reference(data, idx, mode, wrap, 99))
    _same(got, get(jnp.asarray(data), idx))
    if k < 2:  # _CompileAndCheck with the index as an argument
        _same(tj.function(get)(tj.constant(data), tj.constant(idx)), got.numpy())


# -- dtypes of updates --------------------------------------------------------------------------------------

def test_indexing_weak_types():
    # an update keeps a weakly typed array's dtype and weak type, as jax's
    x = tj.constant(jnp.arange(5) * 1.0)
    assert x.value.weak_type
    for out in (x.at[0].set(1.0), x.at[0].add(1.0), x.at[0].mul(1.0)):
        assert out.dtype == x.dtype and out.value.weak_type


def _update_dtype(x_type, y_type):
    x = tnp.arange(7, dtype=x_type)  # (7: a shape of its own, so the kernels are traced here, warnings and all)
    out = x.at[0].set(y_type(0))
    assert out.dtype == x.dtype


@pytest.mark.parametrize("x_type,y_type", [
    (jnp.int32, jnp.int32), (jnp.float32, jnp.float32), (jnp.complex64, jnp.complex64),
    (jnp.int32, int), (jnp.float32, int), (jnp.float32, float), (jnp.complex64, int), (jnp.complex64, float),
    (jnp.complex64, complex)])
def test_indexing_type_promotion_keeps_dtype(x_type, y_type):
    _update_dtype(x_type, y_type)


def test_indexing_type_promotion_modes():
    with jax.numpy_dtype_promotion("standard"):
        for x_type, y_type in [(jnp.int32, jnp.int16), (jnp.float32, jnp.float16), (jnp.complex64, jnp.float32)]:
            _update_dtype(x_type, y_type)
        with pytest.warns(FutureWarning, match="scatter inputs have incompatible types"):
            _update_dtype(jnp.int16, jnp.int32)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            with pytest.warns(FutureWarning, match="scatter inputs have incompatible types"):
                _update_dtype(jnp.float32, jnp.complex64)
    with jax.numpy_dtype_promotion("strict"):
        for x_type, y_type in [(jnp.int32, jnp.int16), (jnp.float32, jnp.int32), (jnp.float16, jnp.float32)]:
            with pytest.raises(ValueError, match="no available implicit dtype promotion path"):
                _update_dtype(x_type, y_type)


@pytest.mark.parametrize("shape", [(), (1,)])
def test_index_dtype_promotion(shape):
    # jax issue 31396: an int8 index next to an int one reaches entry 999
    numbers = tnp.arange(1000)[:, None]
    idx = jnp.int8(0).reshape(shape)
    _same(numbers[999, idx], np.array(999).reshape(shape))
    _same(numbers[999, tj.constant(idx)], np.array(999).reshape(shape))


def test_indexing_typed_ndarray():
    x = tnp.arange(4)
    i = np.array([2, 0, 1])  # int64: NumPy's default
    _same(x[i], x[jnp.asarray(i)].numpy())
    _same(x[i], np.array([2, 0, 1], np.int32))


# -- errors -------------------------------------------------------------------------------------------------

def test_float_indexing_error_new_cases():
    # (the plain x[0.] and x[0, 0.] cases are in the TF port)
    with pytest.raises(TypeError):
        tnp.zeros(2).at[0.].add(1.)
    with pytest.raises(TypeError):
        tnp.zeros(2).at[0.].set(1.)
    with pytest.raises(TypeError):
        tnp.zeros((2, 2))[jnp.arange(2), 1.0]
    with pytest.raises(TypeError):
        tnp.zeros((2, 2))[jnp.arange(2), 1 + 1j]
    with pytest.raises(TypeError):
        tj.function(lambda idx: tnp.zeros((2, 2))[idx])((0, 0.))


def test_str_indexing_error():
    with pytest.raises(TypeError):
        tnp.zeros(2)["abc"]
    with pytest.raises(TypeError):
        tnp.zeros((2, 3))[:, "abc"]


def test_wrong_number_of_indices():
    with pytest.raises(IndexError, match="(?i)too many indices"):
        tj.constant(1)[0]
    with pytest.raises(IndexError, match="(?i)too many indices"):
        tnp.zeros(3)[:, 5]


@pytest.mark.parametrize("case", ["getitem-two-bounds", "getitem-start", "at-set"])
def test_dynamic_slice_bounds_raise_index_error(case):
    # testDynamicIndexingWithSlicesErrors / testNonStaticSliceErrorMessage: slice bounds traced by the compiled
    # function cannot fix the result's shape; jax raises IndexError
    x = tnp.arange(5)
    f = {"getitem-two-bounds": tj.function(lambda x, a, b: x[a:b]),
         "getitem-start": tj.function(lambda x, i: x[i:i + 2]),
         "at-set": tj.function(lambda x, i: x.at[i:i + 2].set(0))}[case]
    with pytest.raises(IndexError):
        f(x, tj.constant(1), tj.constant(3)) if case == "getitem-two-bounds" else f(x, tj.constant(2))
