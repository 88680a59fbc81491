"""TensorFlow's np_test.py (JAX's lax_numpy_test run on tf.experimental.numpy), part 4, ported to tapejax.

Source: tensorflow/python/ops/numpy_ops/tests/np_test.py, the LaxBackedNumpyTests methods whose ``def`` lies in
character offsets [92000, 118000): testFlipud ... testMathSpecialFloatValues. TensorFlow is not imported.

Mapping: ``tnp`` (tf.experimental.numpy) -> ``tj.numpy``; ``_CheckAgainstNumpy`` -> the tj result against NumPy's
(values) and against jax.numpy on the same inputs (dtype; x64 off); ``_CompileAndCheck`` / ``nje.jit`` ->
``tj.function`` (an XLA program) giving the eager result; ``nje.grad`` / ``api.grad`` -> ``tj.GradientTape``.
The grids of shapes and dtypes are sampled down (a scalar, an empty shape and a broadcasting pair kept where the
method has them; float16 and the x64 dtypes once each; dtypes rotate over the cases). Where the method has no
gradient check, the float cases add one: the tape's gradient against ``jax.vjp`` of the jnp function at the
same point. TF 2.21 was run on samples of every method whose op tnp has (flipud/fliplr, rot90 with all k and
axes, roll with array shifts, take with wrap/clip and negative indices, take_along_axis, vander, ix_, sort,
argsort, where, select, the special float values in float32 and float16): its values equal NumPy's, so the NumPy
reference is kept. TF's own values are hard-coded for testIssue347/764/777 (tape gradients), testArangeOnFloats,
testAtLeastNdLiterals, and the tape gradients of testMathSpecialFloatValues's 17 ops at its 13 float32 values
(an addition: TF's tf.GradientTape on tnp's op; tapejax's tape and ForwardAccumulator must agree).

Ported (TF-disabled ones marked *, ported anyway as within API.md's scope; @new_test ones marked +):
  testFlipud, testFliplr, testRot90, testRot90Additional+, testRot90InvalidAxes+, testRavel, testAstype,
  testOnpMean, testArangeOnFloats*, testSortManually, testArgsortManually, testRoll, testTake, testTakeAlongAxis,
  testVander, testNanToNum* (TF's tnp has no nan_to_num: NumPy's values), testIx_, testQuantile* (TF's tnp has no
  percentile/quantile/median: NumPy's values), testWhereOneArgument, testWhereThreeArgument,
  testWhereScalarPromotion, testSelect, testIssue330*, testScalarDtypePromotion*, testSymmetrizeDtypePromotion*,
  testIssue347*, testIssue453, testAtLeastNdLiterals, testLongLong, testArange, testIssue830, testIssue728
  (eye(1050) for both checks: eye(5000) is 100 MB for no more coverage), testIssue746, testIssue764,
  testIssue776* (``.at[].add`` on a Tensor; TF's counterpart tensor_scatter_nd_add gives the same None/zeros),
  testIssue777* (TF 2.21's float32 values are [nan, nan, 0, 0.25], not the [0, 0, 0, 0.25] the disabled test
  wrote; tapejax gives TF's; plus the float64 case under jax.enable_x64, the file's one x64 case, TF's values from
  float64 inputs), testMathSpecialFloatValues.
Left out: none of this range (testIssue883 and later belong to the next part).

Sanctioned differences (API.md: tj.numpy follows jax.numpy/NumPy rules, JAX's x64 off):
  * dtypes are jax.numpy's: Python ints/floats/complex give int32/float32/complex64 (TF: int64, and float64/
    complex128, or float32/complex64 under prefer_float32); argsort, where(x) and ix_ give int32 indices (TF:
    int64); full((1, 1), int scalar) is int32 (TF int64); np.mean of a float64 eye is float32 (TF float64); jit
    of np.longlong(7) is int32 (TF int64); where/select of mixed dtypes promote by jax.numpy's lattice (TF's
    where(c, int32, 2.5) and where(c, int32, float16) give float64; jax.numpy float32 and float16).
  * where(x) of a 0-d x raises ValueError (jax.numpy, NumPy >= 2.1); TF treats it as atleast_1d(x).
  * where(x) inside tj.function (an XLA program) needs jax.numpy's ``size=``: without it the output shape is
    dynamic and tracing raises (TF's own test turns its XLA checks off for this op).
  * rot90's invalid axes raise ValueError (NumPy's AxisError for out-of-range ones) as the @new_test wants; TF
    2.21 raises InvalidArgumentError for those and accepts duplicate axes.

Found by this port and fixed: tj.numpy.roll's ``shift`` and tj.numpy.quantile/percentile's ``q`` were static
arguments, so inside tj.function a traced shift or q raised TracedValueError; jax.numpy takes both traced (jax.jit
works), and so does TF for roll (tf.function(jit_compile=True) of tnp.roll with a Tensor shift; TF's tnp has no
quantile). TF's _CompileAndCheck passes them as arguments of the compiled function.
"""
from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy
nan, inf = float("nan"), float("inf")
PY = "python scalar"  # a shape standing for a Python scalar of the dtype's kind (jtu.PYTHON_SCALAR_SHAPE)
NP0 = "numpy scalar"  # a 0-d NumPy scalar such as np.float32(1.5) (jtu.NUMPY_SCALAR_SHAPE)


def _rand(rng, shape, dtype, kind="default"):
    """Inputs as jtu's generators make them: ``default`` normal * 3 (ints truncated, bools at random), ``some_zero``
    with about a third zeros, ``some_inf_and_nan`` with infinities and NaNs mixed in."""
    dtype = np.dtype(dtype)
    dims = () if shape in (PY, NP0) else shape
    if dtype == np.bool_:
        x = np.asarray(rng.rand(*dims) > 0.5)
    else:
        x = np.asarray(rng.randn(*dims)) * 3
        if dtype.kind == "c":
            x = x + 1j * np.asarray(rng.randn(*dims)) * 3
        if kind == "some_zero":
            x = np.where(rng.rand(*dims) < 0.35, 0, x)
        if kind == "some_inf_and_nan":
            pick = rng.rand(*dims)
            x = np.where(pick < 0.2, nan, np.where(pick < 0.35, inf, np.where(pick < 0.5, -inf, x)))
        x = x.astype(dtype)
    if shape == PY:
        return x.item()
    if shape == NP0:
        return dtype.type(x)
    return np.asarray(x, dtype)


def _tol(dtype):
    return {np.dtype(np.float16): 1e-2}.get(np.dtype(dtype), 1e-5)


def _match(got, want, dtype, rtol=None, label=""):
    """``got`` (a Tensor) has NumPy's value ``want`` (cast to ``dtype``), ``dtype`` (jax.numpy's) and shape."""
    assert isinstance(got, tj.Tensor), (label, type(got))
    dtype = np.dtype(dtype)
    want = np.asarray(want)
    assert got.shape == want.shape, (label, got.shape, want.shape)
    assert got.dtype == dtype, (label, got.dtype, dtype)
    if dtype.kind in "fc":
        tol = _tol(dtype) if rtol is None else rtol
        np.testing.assert_allclose(got.numpy(), want.astype(dtype), rtol=tol, atol=tol, err_msg=label)
    else:
        np.testing.assert_array_equal(got.numpy(), want.astype(dtype), err_msg=label)


def _jnp_dtype(f, *args, **kwargs):
    """The dtype of jax.numpy's ``f(*args, **kwargs)``, by tracing it (jax.eval_shape): no XLA program compiled for
    a reference whose value is not used."""
    return jax.eval_shape(lambda: f(*args, **kwargs)).dtype


def _same(got, want, label=""):
    """Compiled against eager: the same structure, dtypes and values."""
    leaves = lambda t: jax.tree_util.tree_leaves(t, is_leaf=lambda v: isinstance(v, tj.Tensor))  # noqa: E731
    got, want = leaves(got), leaves(want)
    assert len(got) == len(want), label
    for g, w in zip(got, want):
        assert isinstance(g, tj.Tensor), (label, type(g))
        assert (g.shape, g.dtype) == (w.shape, w.dtype), (label, g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(np.asarray(g.numpy()), np.asarray(w.numpy()), rtol=1e-5, atol=1e-6,
                                   err_msg=label)


def _vjp_check(tj_fn, jnp_fn, args, wrt, seed=0):
    """The tape's gradient of ``sum(tj_fn(*args) * w)`` with respect to ``args[i]`` for i in ``wrt`` equals the
    cotangents ``jax.vjp`` of ``jnp_fn`` gives for ``w`` (a seeded random cotangent)."""
    ts = [tj.constant(a) for a in args]
    with tj.GradientTape() as tape:
        tape.watch([ts[i] for i in wrt])
        y = tj_fn(*ts)
    w = np.asarray(np.random.RandomState(seed).randn(*y.shape)).astype(y.dtype)
    grads = tape.gradient(y, [ts[i] for i in wrt], output_gradients=w)

    def f(*picked):
        full = list(args)
        for i, p in zip(wrt, picked):
            full[i] = p
        return jnp_fn(*full)
    # (jax.vjp jitted: one XLA program for the reference, not one per primitive)
    wants = jax.jit(lambda w, *picked: jax.vjp(f, *picked)[1](w))(w, *[args[i] for i in wrt])
    for g, want in zip(grads, wants):
        assert g is not None
        np.testing.assert_allclose(g.numpy(), np.asarray(want), rtol=1e-5, atol=1e-5)


# testFlipud (shapes (3,), (2, 3), (3, 2, 4)) and testFliplr ((3, 2), (2, 3), (3, 2, 4)); default_dtypes.
FLIP_CASES = ([("flipud", s, d) for s in [(3,), (2, 3), (3, 2, 4)] for d in (np.float32, np.int32)]
              + [("fliplr", s, d) for s in [(3, 2), (2, 3), (3, 2, 4)] for d in (np.float32, np.int32)]
              + [("flipud", (2, 3), np.float16), ("fliplr", (3, 2, 4), np.int64), ("flipud", (3, 2), np.float64)])


@pytest.mark.parametrize("op,shape,dtype", FLIP_CASES)
def test_flipud_fliplr(op, shape, dtype):
    x = _rand(np.random.RandomState(0), shape, dtype)
    fn = getattr(tnp, op)
    got = fn(x)
    _match(got, getattr(np, op)(x), _jnp_dtype(getattr(jnp, op), x))
    _same(tj.function(fn)(x), got)
    if dtype == np.float32:
        _vjp_check(fn, getattr(jnp, op), [x], [0])


# testRot90's and testRot90Additional's (shape, axes) pairs, every k in [-3, 3] each.
ROT90_CASES = [((2, 3), (0, 1)), ((2, 3), (1, 0)), ((4, 3, 2), (0, 2)), ((4, 3, 2), (2, 1)),
               ((2, 3), (-2, -1)), ((2, 3), (-2, 1)), ((4, 3, 2), (-1, -2)), ((4, 3, 2), (2, -2))]


@pytest.mark.parametrize("shape,axes", ROT90_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_rot90(shape, axes, dtype):
    x = _rand(np.random.RandomState(1), shape, dtype)
    ks = range(-3, 4)
    got = [tnp.rot90(x, k, axes) for k in ks]
    for k, g in zip(ks, got):
        _match(g, np.rot90(x, k, axes), _jnp_dtype(jnp.rot90, x, k, axes), label=f"k={k}")
    _same(tj.function(lambda v: tuple(tnp.rot90(v, k, axes) for k in ks))(x), got)
    if dtype == np.float32:
        k = 1 if axes[0] >= 0 else -3
        _vjp_check(lambda v: tnp.rot90(v, k, axes), lambda v: jnp.rot90(v, k, axes), [x], [0])


def test_rot90_invalid_axes():
    a = tnp.ones((2, 3))
    for axes in [(0, 3), (0, -5)]:  # out of range: NumPy's AxisError, a ValueError
        with pytest.raises(ValueError, match="out of (range|bounds)"):
            tnp.rot90(a, axes=axes)
    for axes in [(0, 0), (0, -2)]:  # the same axis twice, also after normalising -2
        with pytest.raises(ValueError, match="differ"):
            tnp.rot90(a, axes=axes)
    for axes in [(0,), (0, 1, 2)]:
        with pytest.raises(ValueError, match="two axes|2"):
            tnp.rot90(a, axes=axes)
    with pytest.raises(ValueError, match="out of (range|bounds)"):  # a scalar: axis 0 is already out of range
        tnp.rot90(tnp.ones(()))
    with pytest.raises(ValueError):  # a vector's default axes (0, 1): axis 1 out of range
        tnp.rot90(tnp.ones(3))
    _match(tnp.rot90(a, axes=(-2, -1)), np.rot90(np.ones((2, 3), np.float32), axes=(-2, -1)), np.float32)


def test_ravel_method():
    x = np.random.RandomState(0).randn(3, 4).astype(np.float32)
    got = tj.constant(x).ravel()
    _match(got, x.ravel(), np.float32)
    _same(tj.function(lambda v: v.ravel())(tj.constant(x)), got)


def test_astype_method():
    x = np.random.RandomState(0).randn(3, 4).astype(np.float32)
    got = tj.constant(x).astype(tnp.int32)
    _match(got, x.astype(np.int32), np.int32)  # truncation toward zero, as NumPy
    _same(tj.function(lambda v: v.astype(tnp.int32))(tj.constant(x)), got)


def test_onp_mean():
    # NumPy's mean of a Tensor (jax issue 125): float32 here (a float64 eye is float32 with x64 off)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # jax: float64 requested, float32 given
        ans = np.mean(tnp.add(tnp.eye(3, dtype=tnp.float64), 0.))
    assert np.asarray(ans).dtype == np.float32
    np.testing.assert_allclose(ans, 1.0 / 3, rtol=1e-6)


def test_arange_on_floats():
    # TF 2.21's tnp.arange(0.0, 1.0, 0.1) under prefer_float32 (jax issue 145): float32, ten values
    tf_values = [0.0, 0.10000000149011612, 0.20000000298023224, 0.30000001192092896, 0.4000000059604645, 0.5,
                 0.6000000238418579, 0.699999988079071, 0.800000011920929, 0.9000000357627869]
    got = tnp.arange(0.0, 1.0, 0.1)
    assert (got.shape, got.dtype) == ((10,), np.float32)
    np.testing.assert_allclose(got.numpy(), tf_values, rtol=1e-7, atol=1e-7)


SORT_CASES = [((np.array([16, 15, 23, 42, 8, 4]),), {}),
              ((np.array([[1, 4], [3, 1]]), None), {}),
              ((np.array([[1, 4], [3, 1]]),), {}),
              ((np.array([[1, 4], [3, 1]]), 0), {}),
              ((np.array([[3.5, -1.0, 2.0], [0.5, 7.0, -2.5]], np.float32),), {"axis": 0})]


@pytest.mark.parametrize("args,kwargs", SORT_CASES)
def test_sort_manually(args, kwargs):
    got = tnp.sort(*args, **kwargs)
    _match(got, np.sort(*args, **kwargs), _jnp_dtype(jnp.sort, *args, **kwargs))
    _same(tj.function(lambda v: tnp.sort(v, *args[1:], **kwargs))(args[0]), got)  # the axis static, as in TF


ARGSORT_CASES = [((np.array([16, 15, 23, 42, 8, 4]),), {}),
                 ((np.array([[16, 15, 23], [42, 8, 4]]), 0), {}),
                 ((np.array([[16, 15, 23], [42, 8, 4]]), 1), {}),
                 ((np.array([[16, 15, 23], [42, 8, 4]]), None), {}),
                 ((np.array([[16, 15, 23], [42, 8, 4]]),), {})]


@pytest.mark.parametrize("args,kwargs", ARGSORT_CASES)
def test_argsort_manually(args, kwargs):
    got = tnp.argsort(*args, **kwargs)
    _match(got, np.argsort(*args, **kwargs), _jnp_dtype(jnp.argsort, *args, **kwargs))  # int32 (TF: int64)
    _same(tj.function(lambda v: tnp.argsort(v, *args[1:], **kwargs))(args[0]), got)


ROLL_SHIFTS = [(3, None), (1, 1), ((3,), (0,)), ((-2,), (-2,)), ((1, 2), (0, -1))]
ROLL_DTYPES = [np.float32, np.int32, np.bool_, np.complex64]


@pytest.mark.parametrize("index", range(15))
def test_roll(index):
    shape = [(3, 4), (3, 4, 5), (7, 4, 0)][index // 5]
    shifts, axis = ROLL_SHIFTS[index % 5]
    dtype = ROLL_DTYPES[index % 4] if index != 13 else np.float16
    x = _rand(np.random.RandomState(index), shape, dtype)
    want = np.roll(x, np.array(shifts), axis=axis)
    got = tnp.roll(x, np.array(shifts), axis=axis)  # the shifts as an array, as TF's test passes them
    _match(got, want, _jnp_dtype(jnp.roll, x, np.array(shifts), axis=axis))
    _match(tnp.roll(tj.constant(x), shifts, axis=axis), want, got.dtype, label="Python shifts")
    _same(tj.function(lambda v: tnp.roll(v, shifts, axis=axis))(x), got)
    if dtype == np.float32:
        _vjp_check(lambda v: tnp.roll(v, shifts, axis=axis), lambda v: jnp.roll(v, shifts, axis=axis), [x], [0])


def test_roll_traced_shift():
    # _CompileAndCheck passes the shifts as an argument of the compiled function
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    got = tj.function(lambda v, s: tnp.roll(v, s, axis=(0, -1)))(x, np.array([1, 2]))
    _match(got, np.roll(x, [1, 2], axis=(0, -1)), np.float32)


TAKE_CASES = [(shape, axis, mode) for shape in [(3,), (3, 4), (3, 4, 5)]
              for axis in list(range(-len(shape), len(shape))) + [None] for mode in ["wrap", "clip"]]
TAKE_DTYPES = [np.float32, np.int32, np.bool_, np.complex64, np.float32, np.int64]


@pytest.mark.parametrize("index", range(len(TAKE_CASES)))
def test_take(index):
    shape, axis, mode = TAKE_CASES[index]
    dtype = TAKE_DTYPES[index % len(TAKE_DTYPES)] if index != 7 else np.float16
    rng = np.random.RandomState(index)
    x = _rand(rng, shape, dtype)
    index_dtype = (np.int32, np.int64)[index % 2]
    # jtu.rand_int(-5, 5): out-of-range indices too; a NumPy scalar, a Python int, (3,) and (2, 1, 3)
    indices = [index_dtype(rng.randint(-5, 5)), int(rng.randint(-5, 5)),
               rng.randint(-5, 5, size=(3,)).astype(index_dtype),
               rng.randint(-5, 5, size=(2, 1, 3)).astype(index_dtype)]
    for i in indices:
        want = np.take(x, i, axis=axis, mode=mode)
        _match(tnp.take(x, i, axis=axis, mode=mode), want, _jnp_dtype(jnp.take, x, i, axis=axis, mode=mode),
               label=f"indices {i!r}")
    arrays = indices[2:]  # traced in the compiled program
    _same(tj.function(lambda v, *ii: tuple(tnp.take(v, i, axis=axis, mode=mode) for i in ii))(x, *arrays),
          tuple(tnp.take(x, i, axis=axis, mode=mode) for i in arrays))
    if dtype == np.float32:  # repeated and wrapped/clipped indices: the gradient adds up their cotangents
        _vjp_check(lambda v, i: tnp.take(v, i, axis=axis, mode=mode),
                   lambda v, i: jnp.take(v, i, axis=axis, mode=mode), [x, indices[3]], [0])


# testTakeAlongAxis: equal-rank, broadcast-compatible (x shape, index shape) pairs; every axis, -1 and None; the
# index array 3 times longer along the axis; indices in [-(n - 1), n - 1].
TAL_PAIRS = [((4,), (4,)), ((3, 4), (3, 4)), ((3, 4), (3, 1)), ((3, 4), (1, 4)), ((3, 1), (3, 1)),
             ((3, 1), (1, 4)), ((1, 4), (1, 4)), ((2, 1, 4), (2, 1, 4)), ((2, 1, 4), (2, 3, 4)), ((2, 3, 4), (2, 3, 4))]
TAL_DTYPES = [np.float32, np.int32, np.float32, np.int64, np.float32, np.float16]


@pytest.mark.parametrize("index", range(len(TAL_PAIRS)))
def test_take_along_axis(index):
    x_shape, i_shape = TAL_PAIRS[index]
    dtype = TAL_DTYPES[index % len(TAL_DTYPES)]
    rng = np.random.RandomState(index)
    x = _rand(rng, x_shape, dtype)
    cases = []
    for axis in list(range(len(x_shape))) + [-1, None]:
        if axis is None:
            shape, n = [int(np.prod(i_shape))], int(np.prod(x_shape))
        else:
            shape, n = list(i_shape), x_shape[axis]
            shape[axis] *= 3
        i = rng.randint(-(n - 1), n, size=shape).astype(np.int32)
        cases.append((axis, i))
        got = tnp.take_along_axis(x, i, axis=axis)
        _match(got, np.take_along_axis(x, i, axis=axis), _jnp_dtype(jnp.take_along_axis, x, i, axis=axis),
               label=f"axis {axis}")
        if dtype == np.float32 and axis in (0, None):
            _vjp_check(lambda v, j: tnp.take_along_axis(v, j, axis=axis),
                       lambda v, j: jnp.take_along_axis(v, j, axis=axis), [x, i], [0])
    _same(tj.function(lambda v, *ii: tuple(tnp.take_along_axis(v, j, axis=a) for (a, _), j in zip(cases, ii)))(
        x, *[i for _, i in cases]), tuple(tnp.take_along_axis(x, i, axis=a) for a, i in cases))


@pytest.mark.parametrize("dtype,length", [(np.float32, 5), (np.float32, 0), (np.complex64, 5), (np.complex64, 0),
                                          (np.float16, 5), (np.float64, 5)])
def test_vander(dtype, length):
    x = _rand(np.random.RandomState(length), (length,), dtype)
    settings = [(n, inc) for n in (2, 4) for inc in (False, True)]
    got = [tnp.vander(x, N=n, increasing=inc) for n, inc in settings]
    for (n, inc), g in zip(settings, got):
        _match(g, np.vander(x, N=n, increasing=inc), _jnp_dtype(jnp.vander, x, N=n, increasing=inc),
               rtol=1e-3 if dtype != np.float16 else 1e-2, label=f"N={n} increasing={inc}")
    _same(tj.function(lambda v: tuple(tnp.vander(v, N=n, increasing=inc) for n, inc in settings))(x), got)
    if dtype == np.float32 and length:
        _vjp_check(lambda v: tnp.vander(v, N=4), lambda v: jnp.vander(v, N=4), [x], [0])


@pytest.mark.parametrize("shape,dtype", [((), np.float32), ((4,), np.float32), ((3, 4), np.complex64),
                                         ((0,), np.float32), ((3, 0), np.complex64), (PY, np.float64),
                                         (NP0, np.float32), ((2, 3), np.float16), ((5,), np.float64)])
def test_nan_to_num(shape, dtype):
    x = _rand(np.random.RandomState(3), shape, dtype, "some_inf_and_nan")
    if shape == PY:
        x = nan  # a Python float NaN becomes 0.0
    jdtype = _jnp_dtype(jnp.nan_to_num, x)
    want = np.nan_to_num(np.asarray(x, jdtype))  # NumPy's at the dtype the result has (finfo(float32).max for inf)
    got = tnp.nan_to_num(x)
    _match(got, want, jdtype)
    _same(tj.function(tnp.nan_to_num)(x), got)


@pytest.mark.parametrize("shapes", [(), ((7,),), ((3,), (4,)), ((3,), (1,), (4,))])
def test_ix_(shapes):
    rng = np.random.RandomState(0)
    args = [_rand(rng, s, np.int32) for s in shapes]
    got = tnp.ix_(*args)
    want = np.ix_(*args)
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w, j in zip(got, want, jax.eval_shape(lambda: jnp.ix_(*args))):  # (dtypes only: traced, not run)
        _match(g, w, j.dtype)
    if args:
        _same(tj.function(tnp.ix_)(*args), got)


QUANTILE_CASES = [(op, a_shape, axis) for op in ("percentile", "quantile", "median")
                  for a_shape, axis in (((7,), None), ((47, 7), 0), ((4, 101), 1))]


@pytest.mark.parametrize("op,a_shape,axis", QUANTILE_CASES)
def test_quantile(op, a_shape, axis):
    rng = np.random.RandomState(len(a_shape) + a_shape[-1])
    a = _rand(rng, a_shape, np.float32)
    high = 100.0 if op == "percentile" else 1.0
    qs = [()] if op == "median" else [(np.float32(rng.uniform(0, high)),), (float(rng.uniform(0, high)),),
                                      (rng.uniform(0, high, size=(4,)).astype(np.float32),)]
    settings = list(zip(qs, (False, True, False))) if op != "median" else [((), False), ((), True)]
    fn, jfn, nfn = getattr(tnp, op), getattr(jnp, op), getattr(np, op)
    got = [fn(a, *q, axis=axis, keepdims=kd) for q, kd in settings]
    for (q, kd), g in zip(settings, got):
        _match(g, nfn(a, *q, axis=axis, keepdims=kd), _jnp_dtype(jfn, a, *q, axis=axis, keepdims=kd), rtol=2e-4,
               label=f"q={q!r} keepdims={kd}")
    _same(tj.function(lambda v: tuple(fn(v, *q, axis=axis, keepdims=kd) for q, kd in settings))(a), got)
    if axis == 0:
        q = qs[-1]
        _vjp_check(lambda v: fn(v, *q, axis=axis), lambda v: jfn(v, *q, axis=axis), [a], [0])


@pytest.mark.parametrize("op,q", [("quantile", np.float32(0.3)), ("percentile", np.array([10.0, 50.0], np.float32))])
def test_quantile_traced_q(op, q):
    # _CompileAndCheck passes q as an argument of the compiled function
    a = _rand(np.random.RandomState(0), (5, 3), np.float32)
    got = tj.function(lambda v, w: getattr(tnp, op)(v, w, axis=0))(a, q)
    _match(got, getattr(np, op)(a, q, axis=0), np.float32, rtol=2e-4)


@pytest.mark.parametrize("shape,dtype", [((4,), np.float32), ((3, 4), np.int32), ((3, 1), np.bool_),
                                         ((2, 1, 4), np.complex64), ((2, 3, 4), np.float32), ((0,), np.int32),
                                         ((0, 4), np.float32), ((3, 0), np.bool_), ((1, 4), np.float16)])
def test_where_one_argument(shape, dtype):
    x = _rand(np.random.RandomState(5), shape, dtype, "some_zero")
    got = tnp.where(x)
    want = np.nonzero(x)
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w, j in zip(got, want, jnp.where(x)):
        _match(g, w, j.dtype)  # int32 indices
    # Inside an XLA program the number of indices must be given (jax.numpy's size=, padded with fill_value; an
    # empty x gives zeros there, as jax.numpy)
    padded = tj.function(lambda v: tnp.where(v, size=x.size + 1, fill_value=-1))(x)
    for p, j in zip(padded, jax.jit(lambda v: jnp.where(v, size=x.size + 1, fill_value=-1))(x)):  # (one program)
        _match(p, j, j.dtype)


def test_where_one_argument_scalar_and_traced():
    # Sanctioned: a 0-d condition raises ValueError (jax.numpy, NumPy >= 2.1); TF's test takes atleast_1d.
    with pytest.raises(ValueError):
        tnp.where(np.float32(2.0))
    with pytest.raises(TypeError):  # no size=: a dynamic shape cannot be traced (jax's ConcretizationTypeError)
        tj.function(lambda v: tnp.where(v))(np.array([0.0, 1.0, 2.0], np.float32))


# testWhereThreeArgument: (condition, x, y) shapes that broadcast, dtypes from all_dtypes; NumPy's where on the
# operands cast to jax.numpy's result dtype (the test's _promote_like_lnp, with jax's rules).
WHERE3_CASES = [
    (((4,), (4,), (4,)), (np.float32, np.float32, np.float32)),
    (((3, 4), (3, 1), (1, 4)), (np.bool_, np.float32, np.int32)),
    (((2, 1, 4), (3, 1), ()), (np.int32, np.float32, np.complex64)),
    ((PY, (3, 4), (4,)), (np.bool_, np.int32, np.bool_)),
    (((3, 4), PY, (3, 4)), (np.bool_, np.float64, np.int32)),
    (((3, 4), (4,), PY), (np.float32, np.int32, np.float64)),
    (((1, 4), PY, (3, 1)), (np.bool_, np.int64, np.float16)),
    ((NP0, (2, 3, 4), (3, 4)), (np.float32, np.float32, np.float32)),
    (((0,), (0,), ()), (np.bool_, np.float32, np.float32)),
    (((3, 0), (1, 0), (3, 1)), (np.bool_, np.int32, np.float32)),
    (((4,), (4,), (1,)), (np.complex64, np.int64, np.float64)),
    (((3, 4), (3, 4), NP0), (np.bool_, np.bool_, np.int32)),
]


@pytest.mark.parametrize("index", range(len(WHERE3_CASES)))
def test_where_three_argument(index):
    shapes, dtypes = WHERE3_CASES[index]
    rng = np.random.RandomState(index)
    cond, x, y = (_rand(rng, s, d, "some_zero" if i == 0 else "default")
                  for i, (s, d) in enumerate(zip(shapes, dtypes)))
    result_dtype = jnp.result_type(x, y)
    want = np.where(cond, np.asarray(x, result_dtype), np.asarray(y, result_dtype))
    got = tnp.where(cond, x, y)
    _match(got, want, _jnp_dtype(jnp.where, cond, x, y))
    assert got.dtype == result_dtype
    _same(tj.function(tnp.where)(cond, x, y), got)  # Python scalars stay weakly typed in the program too
    if result_dtype == np.float32 and all(isinstance(v, np.ndarray) and v.dtype == np.float32 for v in (x, y)):
        _vjp_check(lambda c, u, v: tnp.where(c, u, v), jnp.where, [cond, x, y], [1, 2])


def test_where_scalar_promotion():
    x = tnp.where(tnp.array([True, False]), 3, tnp.ones((2,), dtype=tnp.float32))
    assert x.dtype == np.float32
    np.testing.assert_array_equal(x.numpy(), [3.0, 1.0])


# testSelect: n conditions (bool), n choices and a default; shapes broadcast; NumPy's select at jax's result dtype.
SELECT_CASES = [
    ([(4,)], [(4,)], (), [np.float32], np.float32),
    ([(3, 4)], [(3, 1)], (1, 4), [np.int32], np.float32),
    ([(3, 4), (4,)], [(3, 4), (1, 4)], (3, 1), [np.float32, np.int32], np.float32),
    ([(2, 1, 4), (3, 1)], [(4,), ()], (2, 3, 4), [np.complex64, np.float32], np.int32),
    ([(0,), (0,)], [(0,), ()], (), [np.bool_, np.int32], np.int32),
    ([(4,), (4,)], [(4,), (4,)], PY, [np.float32, np.float32], np.float64),
]


@pytest.mark.parametrize("index", range(len(SELECT_CASES)))
def test_select(index):
    cond_shapes, choice_shapes, default_shape, choice_dtypes, default_dtype = SELECT_CASES[index]
    rng = np.random.RandomState(index)
    conds = [_rand(rng, s, np.bool_) for s in cond_shapes]
    choices = [_rand(rng, s, d) for s, d in zip(choice_shapes, choice_dtypes)]
    default = _rand(rng, default_shape, default_dtype)
    dtype = jnp.result_type(default, *choices)
    want = np.select(conds, [np.asarray(c, dtype) for c in choices], np.asarray(default, dtype))
    got = tnp.select(conds, choices, default)
    _match(got, want, _jnp_dtype(jnp.select, conds, choices, default))
    _same(tj.function(tnp.select)(conds, choices, default), got)
    if all(np.asarray(c).dtype == np.float32 for c in choices) and dtype == np.float32:
        n = len(choices)
        _vjp_check(lambda *cs: tnp.select(conds, list(cs[:n]), cs[n]),
                   lambda *cs: jnp.select(conds, list(cs[:n]), cs[n]), choices + [default], list(range(n + 1)))


def test_select_empty_condlist():
    # NumPy, jax.numpy and TF's tnp all refuse an empty condlist with ValueError
    with pytest.raises(ValueError):
        tnp.select([], [], np.float32(3.0))


def test_issue330():
    x = tnp.full((1, 1), tnp.array([1])[0])  # a 0-d Tensor as the fill value
    _match(x, [[1]], np.int32)  # TF: int64


def test_scalar_dtype_promotion():
    assert (1 + tnp.eye(1, dtype=tnp.float32)).dtype == (1 + np.eye(1, dtype=np.float32)).dtype == np.float32


def test_symmetrize_dtype_promotion():
    x = tnp.eye(3, dtype=tnp.float32)
    assert ((x + x.T) / 2).dtype == np.float32


def _issue347(x):
    norms = tnp.sqrt(tnp.sum(x ** 2, axis=1))
    return tnp.sum(tnp.where(norms > 0.5, norms, tnp.ones_like(norms)))


def test_issue347():
    # jax issue 347: a zero row's sqrt(0) is masked by where; TF 2.21's tape gradient (float32) has no NaN
    tf_grad = [[0.4472135901451111, 0.8944271802902222], [0.6000000238418579, 0.800000011920929], [0.0, 0.0]]
    x = np.array([[1, 2], [3, 4], [0, 0]], np.float32)
    _, (g,) = _tape(_issue347, [x])
    np.testing.assert_allclose(g.numpy(), tf_grad, rtol=1e-6)

    @tj.function
    def compiled(v):
        with tj.GradientTape() as tape:
            tape.watch(v)
            y = _issue347(v)
        return tape.gradient(y, v)
    np.testing.assert_allclose(compiled(tj.constant(x)).numpy(), tf_grad, rtol=1e-6)


def _tape(f, xs):
    ts = [tj.constant(x) for x in xs]
    with tj.GradientTape() as tape:
        tape.watch(ts)
        y = f(*ts)
    return y, tape.gradient(y, ts)


def test_issue453():
    a = np.arange(6) + 1
    _match(tnp.reshape(a, (3, 2), order="F"), np.reshape(a, (3, 2), order="F"), np.int32)


@pytest.mark.parametrize("op", ["atleast_1d", "atleast_2d", "atleast_3d"])
@pytest.mark.parametrize("pytype,dtype", [(int, np.int32), (float, np.float32), (bool, np.bool_),
                                          (complex, np.complex64)])
def test_at_least_nd_literals(op, pytype, dtype):
    # jax issue 634. jax.numpy's dtypes for Python literals (TF: int64, float32 under prefer_float32, bool,
    # complex64); TF's shapes: (1,), (1, 1), (1, 1, 1).
    got = getattr(tnp, op)(pytype(2))
    assert getattr(jnp, op)(pytype(2)).dtype == dtype
    _match(got, getattr(np, op)(pytype(2)).astype(dtype), dtype)
    assert got.shape == {"atleast_1d": (1,), "atleast_2d": (1, 1), "atleast_3d": (1, 1, 1)}[op]
    _same(tj.function(getattr(tnp, op))(pytype(2)), got)


def test_long_long():
    got = tj.function(lambda x: x)(np.longlong(7))
    assert isinstance(got, tj.Tensor)
    _match(got, 7, jax.jit(lambda x: x)(np.longlong(7)).dtype)  # int32 (TF: int64)


def test_arange():
    # dask's cases (jax's testArange): ints are int32, the explicit dtype=float is float32 (x64 off)
    for args, kwargs in [((77,), {}), ((2, 13), {}), ((4, 21, 9), {}), ((53, 5, -3), {}), ((77,), {"dtype": float}),
                         ((2, 13), {"dtype": int}), ((0, 1, -0.5), {})]:
        got = tnp.arange(*args, **kwargs)
        _match(got, np.arange(*args, **kwargs), jnp.arange(*args, **kwargs).dtype, label=f"{args} {kwargs}")
    assert tnp.arange(77).dtype == np.int32 and tnp.arange(77, dtype=float).dtype == np.float32
    assert tnp.arange(0, 1, -0.5).shape == (0,)
    with pytest.raises(TypeError):
        tnp.arange()


def test_issue830():
    a = tnp.arange(4, dtype=tnp.complex64)
    assert a.dtype == np.complex64
    np.testing.assert_array_equal(a.numpy(), [0, 1, 2, 3])


def test_issue728():
    # eye(1050) where the TF test also uses eye(5000): the same op, 25x less memory
    assert bool(tnp.allclose(tnp.eye(1050), np.eye(1050)))
    assert np.sum(tnp.eye(1050) - np.eye(1050)) == 0


def test_issue746():
    got = tnp.arange(12).reshape(3, 4)
    _match(got, np.arange(12).reshape(3, 4), np.int32)


def test_issue764():
    # d/dx sum(tanh(x)) at 190..200: TF 2.21's tape gives exactly 0 (1 - tanh^2 with tanh = 1), float32 and float64
    _, (g,) = _tape(lambda v: tnp.sum(tnp.tanh(v)), [tnp.linspace(190, 200, 4)])
    assert g.dtype == np.float32
    np.testing.assert_array_equal(g.numpy(), [0.0, 0.0, 0.0, 0.0])


def test_issue776():
    # jax issue 776: a scatter-add whose result is unused. TF's tensor_scatter_nd_add: None, zeros with ZERO.
    u = tj.constant(np.ones(3, np.float32))
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(u)
        s = tnp.ones(10).at[np.array([2, 4, 5])].add(u)
        seven = tj.constant(7.0)
        weighted = tnp.sum(s * tnp.arange(10, dtype=tnp.float32))
    assert tape.gradient(seven, u) is None
    zeros = tape.gradient(seven, u, unconnected_gradients=tj.UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(zeros.numpy(), [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(tape.gradient(weighted, u).numpy(), [2.0, 4.0, 5.0])  # TF's values


def _logistic_sum(v):
    return tnp.sum(1 / (1 + tnp.exp(-v)))


def test_issue777():
    # TF 2.21's float32 tape gradient: exp(200) overflows, 0 * inf gives NaN in the first two (the disabled JAX
    # test wanted 0): [nan, nan, 0, 0.25]
    x = np.linspace(-200, 0, 4).astype(np.float32)
    _, (g,) = _tape(_logistic_sum, [x])
    np.testing.assert_allclose(g.numpy(), [nan, nan, 0.0, 0.25], rtol=1e-6, atol=0)


def test_issue777_float64():
    # TF 2.21's float64 tape gradient (no overflow): e^-x / (1 + e^-x)^2
    tf_grad = [1.3838965267367373e-87, 1.2418498224782354e-58, 1.1143831578403522e-29, 0.25]
    with jax.enable_x64(True):
        _, (g,) = _tape(_logistic_sum, [np.linspace(-200, 0, 4)])
        assert g.dtype == np.float64
        np.testing.assert_allclose(g.numpy(), tf_grad, rtol=1e-12, atol=0)


SPECIAL_OPS = ("sqrt", "arccos", "arcsin", "arctan", "sin", "cos", "tan", "sinh", "cosh", "tanh", "arccosh", "arcsinh",
               "arctanh", "exp", "log", "expm1", "log1p")


def _special_values(dtype):
    big = np.finfo(dtype).max
    return np.array([nan, -inf, -100.0, -2.0, -1.0, 0.0, 1.0, 2.0, 100.0, inf, big, np.sqrt(big), np.sqrt(big) * 2.0],
                    dtype)


# TF's test leaves some float16 cases out (b/158006398)
SPECIAL_F16_SKIPPED = ("cosh", "arccosh", "arcsinh", "arcsin", "sinh", "arccos", "arctan", "arctanh")


@pytest.mark.parametrize("op,dtype", [(op, np.float32) for op in SPECIAL_OPS]
                         + [(op, np.float16) for op in SPECIAL_OPS if op not in SPECIAL_F16_SKIPPED])
def test_math_special_float_values(op, dtype):
    xs = _special_values(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = getattr(np, op)(xs)
        want0 = getattr(np, op)(xs[3])
    _match(getattr(tnp, op)(xs), want, dtype, rtol=1e-3)  # TF 2.21 agrees with NumPy on all of these
    _match(getattr(tnp, op)(xs[3]), want0, dtype, rtol=1e-3)  # a NumPy scalar in, a 0-d result of its dtype out


# TF 2.21's tf.GradientTape gradient of tnp.<op> at _special_values(float32), elementwise (an addition to the TF
# test: tapejax's tape and ForwardAccumulator must give TF's derivative at NaN, +-inf, 0, +-1 and overflow).
TF_SPECIAL_GRADS = {
    "sqrt": [nan, nan, nan, nan, nan, inf, 0.5, 0.3535533845424652, 0.05000000074505806, 0.0, 2.710505754331188e-20,
             1.1641533570472262e-10, 8.231806208902626e-11],
    "arccos": [nan, nan, nan, nan, -inf, -0.9999999403953552, -inf, nan, nan, nan, nan, nan, nan],
    "arcsin": [nan, nan, nan, nan, inf, 0.9999999403953552, inf, nan, nan, nan, nan, nan, nan],
    "arctan": [nan, 0.0, 9.999000030802563e-05, 0.19999998807907104, 0.4999999701976776, 0.9999999403953552,
               0.4999999701976776, 0.19999998807907104, 9.999000030802563e-05, 0.0, 0.0, 0.0, 0.0],
    "sin": [nan, nan, 0.8623188734054565, -0.41614681482315063, 0.5403022766113281, 1.0, 0.5403022766113281,
            -0.41614681482315063, 0.8623188734054565, nan, 0.8530210256576538, 0.9041755199432373, 0.6350666880607605],
    "cos": [nan, nan, -0.5063656568527222, 0.9092974066734314, 0.8414709568023682, -0.0, -0.8414709568023682,
            -0.9092974066734314, 0.5063656568527222, nan, 0.5218765139579773, 0.42716115713119507, 0.7724573016166687],
    "tan": [nan, nan, 1.3448201417922974, 5.774399280548096, 3.4255189895629883, 0.9999998807907104,
            3.4255189895629883, 5.774399280548096, 1.3448201417922974, nan, 1.37429678440094, 1.2231916189193726,
            2.4794840812683105],
    "sinh": [nan, inf, inf, 3.7621958255767822, 1.5430805683135986, 1.0, 1.5430805683135986, 3.7621958255767822,
             inf, inf, inf, inf, inf],
    "cosh": [nan, -inf, -inf, -3.6268603801727295, -1.175201177597046, 0.0, 1.175201177597046, 3.6268603801727295,
             inf, inf, inf, inf, inf],
    "tanh": [nan, 0.0, 0.0, 0.07065081596374512, 0.41997432708740234, 1.0, 0.41997432708740234, 0.07065081596374512,
             0.0, 0.0, 0.0, 0.0, 0.0],
    "arccosh": [nan, nan, nan, nan, nan, nan, inf, 0.5773502588272095, 0.0100005017593503, 0.0, 0.0,
                5.421017971010911e-20, 2.710512862914577e-20],
    "arcsinh": [nan, 0.0, 0.009999501518905163, 0.44721364974975586, 0.7071067094802856, 1.0, 0.7071067094802856,
                0.44721364974975586, 0.009999501518905163, 0.0, 0.0, 5.421017971010911e-20, 2.710512862914577e-20],
    "arctanh": [nan, -0.0, -0.00010001000191550702, -0.3333333432674408, inf, 0.9999999403953552, inf,
                -0.3333333432674408, -0.00010001000191550702, -0.0, -0.0, -0.0, -0.0],
    "exp": [nan, 0.0, 0.0, 0.1353352814912796, 0.3678794503211975, 1.0, 2.7182817459106445, 7.389056205749512, inf,
            inf, inf, inf, inf],
    "log": [nan, -0.0, -0.009999999776482582, -0.4999999701976776, -0.9999999403953552, inf, 0.9999999403953552,
            0.4999999701976776, 0.009999999776482582, 0.0, 0.0, 5.421011508662376e-20, 2.710505754331188e-20],
    "expm1": [nan, 0.0, 0.0, 0.1353352814912796, 0.3678794503211975, 1.0, 2.7182817459106445, 7.389056205749512,
              inf, inf, inf, inf, inf],
    "log1p": [nan, -0.0, -0.010101010091602802, -0.9999999403953552, inf, 0.9999999403953552, 0.4999999701976776,
              0.3333333432674408, 0.009900989942252636, 0.0, 0.0, 5.421011508662376e-20, 2.710505754331188e-20],
}


@pytest.mark.parametrize("op", SPECIAL_OPS)
def test_math_special_float_gradients(op):
    xs = _special_values(np.float32)
    fn = getattr(tnp, op)
    _, (g,) = _tape(fn, [xs])
    want = np.array(TF_SPECIAL_GRADS[op], np.float32)
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-5, atol=0, err_msg="tape")
    t = tj.constant(xs)
    with tj.ForwardAccumulator(t, tj.constant(np.ones_like(xs))) as acc:
        y = fn(t)
    np.testing.assert_allclose(acc.jvp(y).numpy(), want, rtol=1e-5, atol=0, err_msg="forward")
