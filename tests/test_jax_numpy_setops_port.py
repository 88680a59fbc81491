"""JAX's set-operation tests for jax.numpy, ported to tj.numpy.

Source: jax-ml/jax tests/lax_numpy_setops_test.py (LaxNumpySetopsTest), run against the installed jax 0.10.2 and
NumPy 2.4. ``jnp.<name>`` -> ``tj.numpy.<name>`` (same names and signatures). JAX's ``_CheckAgainstNumpy`` becomes:
tj's values against NumPy's reference (JAX's np_fun adjustments kept: ``with_size_argument`` padding, the ravel for
``assume_unique``, int64 indices cast to int32 as ``with_jax_dtype_defaults``), computed at test time on the same
inputs, and tj's shape, dtype and values against jax.numpy's own result on those inputs (x64 off). ``_CompileAndCheck``
becomes the same call inside ``tj.function`` (with ``size=``, which tracing needs) against eager. JAX's grids (every
shape x shape x dtype x dtype x size x fill_value x overlap) are sampled down to a few cases per method, on float32,
int32, int8/int16, bool, complex64 and one float16 case; inputs are drawn as JAX draws them (``rand_default``: 3 *
normal cast to the dtype, ``rand_some_equal``, ``rand_some_nan``, ``arrays_with_overlapping_values``) from seeded
NumPy generators. JAX's test has no gradient checks; here the sized set functions' tape gradients (inside
tj.function) and ForwardAccumulator JVPs are checked against jax.vjp / jax.jvp of the jnp function (the unsized
gradients are test_numpy_rest.py's).

Ported (JAX method -> test here): testIsin -> test_isin; testSetdiff1d, testSetdiff1dSize -> test_setdiff1d;
testSetdiff1dAssumeUnique; testUnion1d, testUnion1dSize -> test_union1d; testSetxor1d -> test_setxor1d (and
test_setxor1d_assume_unique_with_repeats for its repeated values under assume_unique=True); testIntersect1d;
testUnique; testUniqueAll, testUniqueCounts, testUniqueInverse, testUniqueValues -> test_unique_array_api;
testUniqueSize (fill_value None, 0 and JAX's "slice": a 0-d array, or one slice along ``axis``); testUniqueNans;
testUniqueEqualNan. Every method's _CompileAndCheck -> test_compiled_matches_eager.

Left out: ``in1d`` (removed from the installed jax.numpy; tj.numpy has none either); bfloat16 and the x64 dtypes of
the sweeps (one float16 case instead); the rest of each grid (sampled). testIsin's draws are rounded here (3 *
normal floats rarely coincide, which leaves isin all False).

Not duplicated (already in the suite): the IDS cases of test_numpy_more.py (isin, unique with return_* and size),
test_numpy_rest.py (the set functions' values and tape gradients against jax.grad, sized and unsized; the
named-tuple results; TypeError without size= under tracing), test_tf_unported_misc_port.py (TF's unique_op_test:
first-appearance order, axis, empty input, equal_nan=False).

Sanctioned differences (API.md: Python lists are accepted wherever a Tensor is): tj.numpy's set functions take lists
(``tnp.isin([1, 2, 5], [1, 2])``), where jax.numpy raises TypeError ("requires ndarray or scalar arguments").
Not a tj difference: jnp.intersect1d with return_indices and size= on an empty ``ar1`` or ``ar2`` crashes inside
jax (TypeError "Slice size at index 0 in gather op is out of range"), outside JAX's grid (non-empty shapes there);
tj returns the padded result. With size= and an empty ``ar2`` jnp.intersect1d pads with ``ar1``'s smallest value
(an empty intersection elsewhere pads with 0), also outside JAX's grid; not asserted.

Differences from jax.numpy found and fixed in tapejax: setxor1d(assume_unique=True) kept values repeated inside one
input (jax and NumPy drop every value seen twice: JAX's own grid draws such inputs); unique(size=, axis=...,
fill_value=<array slice>) raised TypeError; unique(size=2.5) was accepted (jax: TypeError); unique's values had no
gradient (jax.vjp: the gather's from each value's first entry); union1d/intersect1d/setxor1d with a Python scalar
operand ignored its weak type (int32 where jax gives the array's int8); intersect1d/setxor1d with size= cast
fill_value to the inputs' dtype, where jax.numpy's result takes the dtype promoted with it (int32 with 1.5: float32;
bool with 7: int32; union1d/setdiff1d/unique cast it, in both).

unique_all/unique_values/unique_counts of complex NaNs followed NumPy's order, not jax.numpy's (which equals its
unique(..., equal_nan=False)). Its complex NaN values were the input's own entries (0+nanj), where jax.numpy's unique
makes each nan+0j (whose entries then get no gradient).
"""
import itertools
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from conftest import jax_raises

tnp = tj.numpy

NP_SCALAR, PY_SCALAR = "np_scalar", "py_scalar"  # (JAX's NUMPY_SCALAR_SHAPE / PYTHON_SCALAR_SHAPE)


def _dims(shape):
    return () if shape in (NP_SCALAR, PY_SCALAR) else shape


def _as_shape(x, shape):
    if shape == NP_SCALAR:
        return x.dtype.type(x.item())
    if shape == PY_SCALAR:
        return x.item()
    return x


def rand_default(rng, shape, dtype):
    """jtu.rand_default: 3 * normal, cast (complex: two draws)."""
    x = rng.randn(*_dims(shape)) * 3
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.randn(*_dims(shape)) * 3
    return _as_shape(np.asarray(x).astype(dtype), shape)


def rand_some_equal(rng, shape, dtype):
    """jtu.rand_some_equal: 100 * normal with about half the entries set to the first one."""
    x = np.asarray(rng.randn(*_dims(shape)) * 100)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.randn(*_dims(shape)) * 100
    if x.size:
        x = np.where(rng.rand(*_dims(shape)) < 0.5, x.ravel()[0], x)
    return _as_shape(np.asarray(x).astype(dtype), shape)


def rand_some_nan(rng, shape, dtype):
    """jtu.rand_some_nan: rand_default with a tenth of the entries NaN (half of those -NaN); complex per part."""
    if np.dtype(dtype).kind == "c":
        part = np.finfo(dtype).dtype
        return rand_some_nan(rng, shape, part) + 1j * rand_some_nan(rng, shape, part).astype(dtype)
    r = rng.rand(*shape)
    x = rand_default(rng, shape, dtype)
    x = np.where(r < 0.1, np.array(np.nan, dtype), x)
    return np.where(r < 0.05, np.array(-np.nan, dtype), x).astype(dtype)


def overlapping(seed, shapes, dtypes, unique=False, overlap=0.5):
    """JAX's arrays_with_overlapping_values: windows of one int32 draw (unique ints with ``unique``), shifted so
    that about ``overlap`` of the values are shared, permuted and cast."""
    rng = np.random.RandomState(seed)
    sizes = [math.prod(_dims(s)) for s in shapes]
    total = int(sum(sizes) * (1 - overlap)) + max(sizes)
    vals = (rng.choice(np.arange(total, dtype=np.int32), size=total, replace=False) if unique
            else (rng.randn(total) * 3).astype(np.int32))
    offsets = [int(sum(sizes[:i]) * (1 - overlap)) for i in range(len(sizes))]
    return [rng.permutation(vals[o:o + n]).reshape(_dims(s)).astype(d)
            for o, n, s, d in zip(offsets, sizes, shapes, dtypes)]


def _jax_default(x):
    """with_jax_dtype_defaults: NumPy's int64 indices as jax's int32."""
    x = np.asarray(x)
    return x.astype(np.int32) if x.dtype == np.int64 else x


def check(got, want_jnp, want_np=None):
    """tj's result (a Tensor or a tuple of them) against jax.numpy's: shape, dtype and values; and against NumPy's
    reference ``want_np`` (values and shapes; NaNs equal)."""
    if isinstance(want_jnp, tuple):
        assert isinstance(got, tuple) and len(got) == len(want_jnp), (type(got), len(want_jnp))
        for i, (g, w) in enumerate(zip(got, want_jnp)):
            check(g, w, None if want_np is None else want_np[i])
        return
    assert isinstance(got, tj.Tensor), type(got)
    w = np.asarray(want_jnp)
    assert (got.shape, got.dtype) == (w.shape, w.dtype), (got.shape, got.dtype, w.shape, w.dtype)
    np.testing.assert_array_equal(got.numpy(), w)
    if want_np is not None:
        np.testing.assert_array_equal(got.numpy(), np.asarray(want_np).astype(w.dtype), strict=False)
        assert got.shape == np.shape(want_np), (got.shape, np.shape(want_np))


def jnp_ref(f, *args, **kwargs):
    """jax.numpy's ``f(*args, **kwargs)``, the reference: of a static shape (isin, or size= given) as one jitted
    program (the inputs constants in it), not one program per primitive; else eagerly (its shape depends on the
    values)."""
    if kwargs.get("size") is None and f is not jnp.isin:
        return f(*args, **kwargs)
    return jax.jit(lambda: f(*args, **kwargs))()


def with_size(result, size, fill_value):
    """JAX's with_size_argument: NumPy's result cut or padded to ``size`` (padding: fill_value, else its minimum)."""
    if size is None or size == len(result):
        return result
    if size < len(result):
        return result[:size]
    if fill_value is None:
        fill_value = result.min() if result.size else 0
    return np.pad(result, (0, size - len(result)), constant_values=fill_value)


# -- isin ------------------------------------------------------------------------------------------------------

ISIN = [  # (element shape, test shape, dtype, invert, method)
    ((3, 4), (5,), np.int32, False, "auto"),
    (PY_SCALAR, (2, 3, 4), np.float32, True, "compare_all"),
    ((2, 1, 4), NP_SCALAR, np.int8, False, "binary_search"),
    ((0, 4), (3, 1), np.float32, True, "sort"),
    ((1, 4), (0,), np.float16, False, "sort"),
    ((3, 1), (1, 4), np.bool_, True, "binary_search"),
]


@pytest.mark.parametrize("eshape, tshape, dtype, invert, method", ISIN)
def test_isin(eshape, tshape, dtype, invert, method):
    rng = np.random.RandomState(0)
    # (rounded draws: JAX's float draws rarely coincide, and then isin is all False)
    e = _as_shape(np.round(np.asarray(rand_default(rng, _dims(eshape), np.float32))).astype(dtype), eshape)
    t = _as_shape(np.round(np.asarray(rand_default(rng, _dims(tshape), np.float32))).astype(dtype), tshape)
    want = np.isin(e, t, invert=invert)
    check(tnp.isin(e, t, invert=invert, method=method), jnp_ref(jnp.isin, e, t, invert=invert, method=method), want)


# -- setdiff1d, union1d, setxor1d, intersect1d -------------------------------------------------------------------

SETDIFF = [  # (shape1, shape2, dtype1, dtype2, overlap, size, fill_value)
    ((3, 4), (4,), np.int32, np.int32, 0.5, None, None),
    ((3, 1), (1, 4), np.float32, np.int32, 0.9, 5, -1),
    ((2, 3, 4), NP_SCALAR, np.int8, np.float32, 0.1, 10, None),
    ((4,), (0,), np.int16, np.int32, 0.5, None, None),
    ((0, 4), (4,), np.float32, np.float32, 0.5, 1, None),
]


@pytest.mark.parametrize("shape1, shape2, dtype1, dtype2, overlap, size, fill_value", SETDIFF)
def test_setdiff1d(shape1, shape2, dtype1, dtype2, overlap, size, fill_value):
    a, b = overlapping(1, [shape1, shape2], [dtype1, dtype2], overlap=overlap)
    want = np.setdiff1d(a, b)
    if size is not None:  # (testSetdiff1dSize pads with fill_value or 0)
        want = want[:size] if size <= len(want) else np.pad(want, (0, size - len(want)),
                                                              constant_values=fill_value or 0)
    check(tnp.setdiff1d(a, b, size=size, fill_value=fill_value),
          jnp_ref(jnp.setdiff1d, a, b, size=size, fill_value=fill_value), want)


@pytest.mark.parametrize("shape1, shape2", [((3, 4), (2, 1, 4)), ((), (3,)), ((0,), (2, 3))])
def test_setdiff1d_assume_unique(shape1, shape2):
    # (JAX issue 32335: N-d inputs with assume_unique=True)
    a = np.arange(math.prod(shape1), dtype=np.int32).reshape(shape1)
    b = np.arange(math.prod(shape2), dtype=np.int32).reshape(shape2)
    check(tnp.setdiff1d(a, b, assume_unique=True), jnp.setdiff1d(a, b, assume_unique=True),
          np.setdiff1d(a, b, assume_unique=True))


UNION = [  # (shape1, shape2, dtype1, dtype2, overlap, size, fill_value)
    ((3, 4), (4,), np.int32, np.int32, 0.5, None, None),
    ((0,), (3, 0), np.float32, np.float32, 0.5, None, None),
    ((3, 1), (2, 1, 4), np.float32, np.int8, 0.1, 5, None),
    (NP_SCALAR, (1, 4), np.int16, np.int32, 0.9, 10, -1),
]


@pytest.mark.parametrize("shape1, shape2, dtype1, dtype2, overlap, size, fill_value", UNION)
def test_union1d(shape1, shape2, dtype1, dtype2, overlap, size, fill_value):
    a, b = overlapping(2, [shape1, shape2], [dtype1, dtype2], overlap=overlap)
    want = np.union1d(a, b).astype(jnp.promote_types(a.dtype, b.dtype))
    if size is not None:  # (testUnion1dSize pads with fill_value, else the smallest value)
        fv = want.min() if fill_value is None else fill_value
        want = want[:size] if size <= len(want) else np.concatenate([want, np.full(size - len(want), fv, want.dtype)])
    check(tnp.union1d(a, b, size=size, fill_value=fill_value),
          jnp_ref(jnp.union1d, a, b, size=size, fill_value=fill_value), want)


SETXOR = [  # (shape1, dtype1, shape2, dtype2, assume_unique, size, fill_value, overlap)
    ((3, 4), np.int32, (4,), np.int32, False, None, None, 0.5),
    ((3, 1), np.float32, (2, 1, 4), np.int32, False, 5, 99, 0.1),
    (NP_SCALAR, np.int8, (1, 4), np.int8, False, 2, None, 0.9),
    ((0, 4), np.float32, (3, 0), np.float32, False, 5, None, 0.5),
    ((4,), np.int32, (1, 4), np.int32, True, None, None, 0.5),  # (values unique: see the test below for repeats)
]


def _np_setxor(a, b, assume_unique, size, fill_value):
    if assume_unique:  # (NumPy wants 1-d inputs there)
        a, b = np.ravel(a), np.ravel(b)
    return with_size(np.setxor1d(a, b, assume_unique), size, fill_value)


@pytest.mark.parametrize("shape1, dtype1, shape2, dtype2, assume_unique, size, fill_value, overlap", SETXOR)
def test_setxor1d(shape1, dtype1, shape2, dtype2, assume_unique, size, fill_value, overlap):
    a, b = overlapping(3, [shape1, shape2], [dtype1, dtype2], unique=assume_unique, overlap=overlap)
    kw = dict(assume_unique=assume_unique, size=size, fill_value=fill_value)
    check(tnp.setxor1d(a, b, **kw), jnp_ref(jnp.setxor1d, a, b, **kw),
          _np_setxor(a, b, assume_unique, size, fill_value))


@pytest.mark.parametrize("size", [None, 5])
def test_setxor1d_assume_unique_with_repeats(size):
    # testSetxor1d draws its inputs without `unique` also when assume_unique=True, so values repeat within one input
    a, b = np.array([4, -1, -1, -3, 2, -6], np.int32), np.array([5, -2, 0, 0, 4], np.int32)
    kw = dict(assume_unique=True, size=size)
    check(tnp.setxor1d(a, b, **kw), jnp_ref(jnp.setxor1d, a, b, **kw), _np_setxor(a, b, True, size, None))


INTERSECT = [  # (shape1, dtype1, shape2, dtype2, assume_unique, return_indices, size, fill_value, overlap)
    ((3, 4), np.int32, (4,), np.int32, False, True, None, None, 0.5),
    ((2, 3, 4), np.float32, (3, 1), np.int8, True, False, 5, -1, 0.9),
    ((1, 4), np.int16, (3, 4), np.int32, False, True, 3, None, 0.1),
    (NP_SCALAR, np.float32, (2, 1, 4), np.float32, True, True, 5, -1, 0.5),
    ((4,), np.int32, (3, 4), np.int32, False, False, 3, None, 0.9),
]


@pytest.mark.parametrize("shape1, dtype1, shape2, dtype2, assume_unique, return_indices, size, fill_value, overlap",
                         INTERSECT)
def test_intersect1d(shape1, dtype1, shape2, dtype2, assume_unique, return_indices, size, fill_value, overlap):
    a, b = overlapping(4, [shape1, shape2], [dtype1, dtype2], unique=assume_unique, overlap=overlap)
    kw = dict(assume_unique=assume_unique, return_indices=return_indices, size=size, fill_value=fill_value)
    want = np.intersect1d(a, b, assume_unique=assume_unique, return_indices=return_indices)
    if return_indices:  # (index padding: the inputs' sizes)
        want = tuple(_jax_default(with_size(r, size, f)) for r, f in zip(want, [fill_value, a.size, b.size]))
    else:
        want = with_size(want, size, fill_value)
    check(tnp.intersect1d(a, b, **kw), jnp_ref(jnp.intersect1d, a, b, **kw), want)


# -- unique and the array-API unique_* ----------------------------------------------------------------------------

UNIQUE = [  # (shape, axis, dtype, (return_index, return_inverse, return_counts))
    ((3, 4), None, np.float32, (True, True, True)),
    ((2, 3, 4), 1, np.int32, (False, True, False)),
    ((3, 1), 0, np.complex64, (True, False, True)),
    (NP_SCALAR, None, np.bool_, (False, False, False)),
    ((0, 4), 1, np.float32, (True, True, True)),
    ((4,), 0, np.float16, (False, True, True)),
]


@pytest.mark.parametrize("shape, axis, dtype, flags", UNIQUE)
def test_unique(shape, axis, dtype, flags):
    x = rand_some_equal(np.random.RandomState(5), shape, dtype)
    want = np.unique(x, *flags, axis=axis)
    if any(flags):
        want = (want[0],) + tuple(_jax_default(w) for w in want[1:])
    check(tnp.unique(x, *flags, axis=axis), jnp.unique(x, *flags, axis=axis), want)


@pytest.mark.parametrize("name", ["unique_all", "unique_counts", "unique_inverse", "unique_values"])
@pytest.mark.parametrize("shape, dtype", [((3, 4), np.float32), ((2, 1, 4), np.int32), ((0,), np.complex64)])
def test_unique_array_api(name, shape, dtype):
    x = rand_some_equal(np.random.RandomState(6), shape, dtype)
    want = tuple(_jax_default(w) for w in getattr(np, name)(x)) if name != "unique_values" else \
        np.sort(np.unique_values(x))  # (NumPy's unique_values need not sort)
    got, ref = getattr(tnp, name)(x), getattr(jnp, name)(x)
    if name != "unique_values":
        assert type(got).__name__ == type(ref).__name__ and got._fields == ref._fields
        got, ref = tuple(got), tuple(ref)
    check(got, ref, want)


def _np_unique_size(x, axis, size, fill_value):
    """testUniqueSize's reference: NumPy's unique with every return_*, cut or padded to ``size`` along ``axis``
    (values: fill_value, else the first unique value; indices: the first index; counts: 0)."""
    u, ind, inv, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True, axis=axis)
    ax = 0 if axis is None else axis
    n = u.shape[ax]
    if size <= n:
        u, ind, counts = u[(slice(None),) * ax + (slice(size),)], ind[:size], counts[:size]
    else:
        pads = [(0, 0)] * u.ndim
        pads[ax] = (0, size - n)
        u = np.pad(u, pads)
        first = u[(slice(None),) * ax + (slice(1),)]
        fill = first if fill_value is None else (np.expand_dims(fill_value, ax) if np.ndim(fill_value) else fill_value)
        u[(slice(None),) * ax + (slice(n, None),)] = fill
        ind = np.pad(ind, (0, size - n), constant_values=ind[0])
        counts = np.pad(counts, (0, size - n))
    return u, _jax_default(ind), _jax_default(inv), _jax_default(counts)


UNIQUE_SIZE = [  # (shape, axis, dtype, size, fill_value)
    ((3, 4), None, np.float32, 5, None),
    ((3, 4), 1, np.int32, 10, 0),
    ((2, 1, 4), 0, np.complex64, 1, None),
    ((4,), None, np.int32, 10, "slice"),
    ((3, 4), None, np.float32, 10, "slice"),
    ((3, 4), 0, np.float32, 5, "slice"),
]


@pytest.mark.parametrize("shape, axis, dtype, size, fill_value", UNIQUE_SIZE)
def test_unique_size(shape, axis, dtype, size, fill_value):
    rng = np.random.RandomState(7)
    x = rand_some_equal(rng, shape, dtype)
    if fill_value == "slice":  # (an array: one value, or one slice along axis)
        fill_value = np.asarray(rand_some_equal(rng, () if axis is None else shape[:axis] + shape[axis + 1:], dtype))
    elif fill_value is not None:
        fill_value = np.array(fill_value).astype(dtype)
    kw = dict(axis=axis, return_index=True, return_inverse=True, return_counts=True, size=size, fill_value=fill_value)
    check(tnp.unique(x, **kw), jnp_ref(jnp.unique, x, **kw), _np_unique_size(x, axis, size, fill_value))


def _nan_cases(dtype):
    x = [-0.0, 0.0, 1.0, 1.0, np.nan, -np.nan]
    if np.dtype(dtype).kind == "c":
        x = [complex(i, j) for i, j in itertools.product(x, repeat=2)]
    return np.array(x, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.complex64])
def test_unique_nans(dtype):
    # one NaN (equal_nan=True), -0.0 and 0.0 one value; jax writes a complex NaN as nan+0j (NaN-equal to NumPy's)
    x = _nan_cases(dtype)
    kw = dict(return_index=True, return_inverse=True, return_counts=True)
    want = np.unique(x, **kw)
    check(tnp.unique(x, **kw), jnp.unique(x, **kw), (want[0],) + tuple(_jax_default(w) for w in want[1:]))


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
@pytest.mark.parametrize("equal_nan", [True, False])
def test_unique_equal_nan(dtype, equal_nan):
    x = rand_some_nan(np.random.RandomState(8), (20,), dtype)
    check(tnp.unique(x, equal_nan=equal_nan), jnp.unique(x, equal_nan=equal_nan), np.unique(x, equal_nan=equal_nan))


def test_unique_array_api_complex_nans_order():
    x = _nan_cases(np.complex64)
    ref = jnp.unique(x, return_index=True, return_inverse=True, return_counts=True, equal_nan=False)
    for r, w in zip(jnp.unique_all(x), ref):  # (jax's own: the same)
        np.testing.assert_array_equal(np.asarray(r).view(np.float32), np.asarray(w).view(np.float32))
    got = tnp.unique_all(x)  # (jax.numpy's order of complex NaNs, not NumPy's)
    np.testing.assert_array_equal(got.indices.numpy(), ref[1])
    np.testing.assert_array_equal(got.inverse_indices.numpy(), ref[2])
    np.testing.assert_array_equal(got.counts.numpy(), ref[3])


def test_unique_array_api_complex_nans_bits():
    x = _nan_cases(np.complex64)
    ref = jnp.unique(x, equal_nan=False)
    # (complex NaNs compared bit for bit: check() takes any two NaNs as equal, and jax's are nan+0j)
    got = tnp.unique_all(x)
    np.testing.assert_array_equal(got.values.numpy().view(np.float32), np.asarray(ref).view(np.float32))


def test_unique_complex_nan_values_have_jax_s_gradient():
    """A complex NaN value is jax.numpy's nan+0j, not a gathered entry: its entries get no gradient (jax.vjp)."""
    x = np.array([1 + 1j, complex(0, np.nan), 2, complex(np.nan, 1), 1 + 1j], np.complex64)
    ct = (np.arange(1, 7) * (1 + 0.5j)).astype(np.complex64)
    y, want_g = jax.jit(lambda a, ct: (lambda y, vjp: (y, vjp(ct)[0]))(  # (one program)
        *jax.vjp(lambda a: jnp.unique(a, size=6, equal_nan=False), a)))(x, ct)
    xt = tj.constant(x)
    with tj.GradientTape() as tape:
        tape.watch(xt)
        got = tnp.unique(xt, size=6, equal_nan=False)
    np.testing.assert_array_equal(got.numpy().view(np.float32), np.asarray(y).view(np.float32))
    np.testing.assert_array_equal(tape.gradient(got, xt, output_gradients=tj.constant(ct)).numpy(),
                                  np.asarray(want_g))


# -- compiled, gradients, errors -------------------------------------------------------------------------------

A, B = overlapping(9, [(3, 4), (6,)], [np.float32, np.float32], overlap=0.5)


def _sized(m, a, b):
    """Every traceable set function once (size= where the length depends on the values)."""
    return [m.isin(a, b), m.isin(a, b, invert=True, method="sort"), m.setdiff1d(a, b, size=6, fill_value=-7.0),
            m.union1d(a, b, size=9), m.setxor1d(a, b, size=7), *m.intersect1d(a, b, return_indices=True, size=4),
            *m.unique(a, True, True, True, size=10, fill_value=0.5), *m.unique(a, False, True, True, axis=1, size=5),
            *m.unique_all(b, size=7), m.unique_values(a, size=3)]


def test_compiled_matches_eager():
    # _CompileAndCheck: the same results inside tj.function as eagerly, and as jax.jit of the jnp calls
    eager = _sized(tnp, A, B)
    compiled = tj.function(lambda a, b: _sized(tnp, a, b))(A, B)
    want = jax.jit(lambda a, b: _sized(jnp, a, b))(A, B)
    assert len(eager) == len(compiled) == len(want)
    for e, c, w in zip(eager, compiled, want):
        check(e, w)
        check(c, w)


def _differentiable(m, a, b):
    """The sized set functions whose values carry gradients (each value is gathered from an input)."""
    return [m.unique_values(a, size=14, fill_value=-9.0), m.union1d(a, b, size=12),
            m.setdiff1d(a, b, size=6, fill_value=-3.0), m.setxor1d(a, b, size=7), m.intersect1d(a, b, size=4)]


def test_gradients_and_jvps_as_jax():
    # tape.gradient inside tj.function against jax.vjp; ForwardAccumulator against jax.jvp (values repeat: each
    # unique value's gradient goes to the entry it is gathered from, as jax's)
    a = A.ravel() + np.float32(0.25)  # (A's values shifted off B's, then two shared again)
    a[:2] = B[:2]
    cts = [np.random.RandomState(i).randn(*y.shape).astype(np.float32)
           for i, y in enumerate(jax.eval_shape(lambda u, v: _differentiable(jnp, u, v), a, B))]

    def reference(u, v, cts, tu, tv):  # (one compiled program: jax's values, VJP and JVP)
        ys, vjp = jax.vjp(lambda p, q: _differentiable(jnp, p, q), u, v)
        return ys, vjp(cts), jax.jvp(lambda p, q: _differentiable(jnp, p, q), (u, v), (tu, tv))[1]
    ta, tb = np.linspace(-1, 1, a.size, dtype=np.float32), np.linspace(2, 3, B.size, dtype=np.float32)
    want, (want_ga, want_gb), want_t = jax.jit(reference)(a, B, cts, ta, tb)

    @tj.function
    def grads(u, v):
        with tj.GradientTape() as tape:
            tape.watch([u, v])
            ys = _differentiable(tnp, u, v)
        return ys, tape.gradient(ys, [u, v], output_gradients=cts)
    ys, (ga, gb) = grads(tj.constant(a), tj.constant(B))
    for y, w in zip(ys, want):
        check(y, w)
    np.testing.assert_allclose(ga.numpy(), want_ga, rtol=1e-6)
    np.testing.assert_allclose(gb.numpy(), want_gb, rtol=1e-6)
    u, v = tj.constant(a), tj.constant(B)
    with tj.ForwardAccumulator([u, v], [tj.constant(ta), tj.constant(tb)]) as acc:
        ys = _differentiable(tnp, u, v)
    for t, w in zip(acc.jvp(ys), want_t):
        np.testing.assert_allclose(t.numpy(), w, rtol=1e-6)


def test_unique_values_gradient_under_size():
    x = np.array([0.5, -1.0, 2.0, 0.5, 3.0, -1.0], np.float32)
    ct = np.arange(1, 5, dtype=np.float32)
    want_g = jax.jit(lambda u, ct: jax.vjp(lambda u: jnp.unique(u, size=4), u)[1](ct)[0])(x, ct)  # (one program)
    t = tj.constant(x)
    with tj.GradientTape() as tape:
        tape.watch(t)
        y = tnp.unique(t, size=4)
    g = tape.gradient(y, t, output_gradients=ct)
    assert g is not None
    np.testing.assert_allclose(g.numpy(), want_g)  # (jax: [1, 2, 3, 0, 4, 0]: each value's first entry)
    # rows (axis=0), padded with fill_value rows, which take no gradient
    m = np.array([[3, 1, 3], [7, 1, 2], [3, 1, 3]], np.float32)
    ct = np.arange(12, dtype=np.float32).reshape(4, 3)
    kw = dict(axis=0, size=4, fill_value=np.float32([9, 9, 9]))
    want, want_g = jax.jit(lambda u, ct: (lambda y, vjp: (y, vjp(ct)[0]))(*jax.vjp(lambda u: jnp.unique(u, **kw), u)))(
        m, ct)
    t = tj.constant(m)
    with tj.GradientTape() as tape:
        tape.watch(t)
        y = tnp.unique(t, **kw)
    np.testing.assert_array_equal(y.numpy(), want)
    np.testing.assert_allclose(tape.gradient(y, t, output_gradients=ct).numpy(), want_g)


def test_size_errors_as_jax():
    # a zero-size input has no smallest value to pad with: size= needs fill_value (ValueError, as jax.numpy's)
    empty = np.zeros((0,), np.float32)
    jax_raises(ValueError, lambda: jnp.unique(empty, size=3), match="fill_value must be specified")
    with pytest.raises(ValueError, match="fill_value"):
        tnp.unique(empty, size=3)
    check(tnp.unique(empty, size=3, fill_value=2.0), jnp.unique(empty, size=3, fill_value=2.0))
    jax_raises(ValueError, lambda: jnp.isin(A, B, method="bogus"), match="bogus")
    with pytest.raises(ValueError, match="bogus"):
        tnp.isin(A, B, method="bogus")


def test_unique_float_size_raises():
    jax_raises(TypeError, lambda: jnp.unique(A, size=2.5))
    with pytest.raises(TypeError):
        tnp.unique(A, size=2.5)


@pytest.mark.parametrize("name", ["union1d", "intersect1d", "setxor1d"])
def test_python_scalar_operand_is_weakly_typed(name):
    b = np.array([1, 2, 3], np.int8)
    check(getattr(tnp, name)(1, b), getattr(jnp, name)(1, b))


@pytest.mark.parametrize("name, a, b, fill_value", [
    ("intersect1d", np.array([4, 2, 5], np.int32), np.array([2], np.int32), 1.5),
    ("setxor1d", np.array([4, 2, 5], np.int32), np.array([2], np.int32), 1.5),
    ("setxor1d", np.array([True]), np.array([False]), 7),
])
def test_fill_value_dtype_as_jax(name, a, b, fill_value):
    check(getattr(tnp, name)(a, b, size=4, fill_value=fill_value),
          getattr(jnp, name)(a, b, size=4, fill_value=fill_value))
