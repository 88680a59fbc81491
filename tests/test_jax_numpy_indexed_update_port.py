"""JAX's indexed-update tests (``x.at[...]``), ported to tj.Tensor's ``.at``.

Source: jax-ml/jax tests/lax_numpy_indexing_test.py (commit cec06d11), the classes after IndexingTest:
IndexedUpdateTest, ValidateIndicesTest and DSliceTest; run against the installed jax 0.10.2 and NumPy 2.4.

How JAX maps onto tj:
* ``jnp.asarray(x).at[idx].set/add/subtract/multiply/divide/power/min/max(y, **kw)`` ->
  ``tj.constant(x).at[idx].<same>(y, **kw)`` (jax.Array's ``.at``, which tj.Tensor offers), ``.get()`` likewise.
* ``_CheckAgainstNumpy`` -> tj's values against JAX's NumPy reference (``ufunc.at`` / item assignment, computed here
  at test time on the same inputs), tj's shape and dtype against ``jax.eval_shape`` of jax.numpy's call, and on
  every fourth case tj's values against jax.numpy's own result. x64 is off (float32/int32).
* ``_CompileAndCheck`` -> the same call inside ``tj.function`` against eager, on every fourth case (and in the
  wrap, segment and ``.get()`` tests).
* ``check_grads`` (numerical JVP/VJP checks) -> tj.GradientTape's gradients against ``jax.vjp`` of the jax.numpy
  call (a random cotangent) and tj.ForwardAccumulator's JVP against ``jax.jvp``, real inputs. No kinks or ties are
  involved (set/add/subtract/multiply), so API.md's TF conventions do not come in.
* ``jax.ops.segment_sum/prod/min/max`` (jax.ops, not jax.numpy: tj has no counterpart) -> what jax computes them
  with: an identity-filled array ``.at[segment_ids].add/multiply/min/max(data, mode='drop',
  wrap_negative_indices=False)``; checked against the test's NumPy reference (and its hard-coded sums).
* ``jax.jacrev`` -> ``tape.jacobian`` (vectorized and not); ``jax.jacrev(jax.vmap(f))`` kept as is over a function
  of Tensors (API.md: jax transformations of tj code).

JAX's grids (every spec x op x dtype x update dtype x mode) are sampled hard: a subset of each spec list (every
group represented), op, dtype, update dtype, update shape and mode rotating over the cases (dtypes: float32, int32,
bool, complex64, one float16 family).

Ported (JAX method -> test here): testStaticIndexing -> test_static_indexing; testAdvancedIndexing ->
test_advanced_indexing_unique; testAdvancedIndexingSorted -> test_advanced_indexing_sorted;
testMixedAdvancedIndexing -> test_mixed_advanced_indexing; testWrapNegativeIndices1D; testStaticIndexingGrads;
testAdvancedIndexingGrads; testIndexMulGradFailsIfNotUnique (see below); testSegmentSumBehavior; testSegmentSum;
testSegmentSumOutOfBounds; testSegmentReduceBoolean and testSegmentReduce -> test_segment_reduce; testIndexDtypeError
-> test_strided_set_gives_no_warning; testIndexSequenceDeprecation; testIndexedUpdateAliasingBug;
testScatterValuesCastToTargetDType; testGradOfVmapOfScatter; ValidateIndicesTest.test_out_of_bound_indices and
.test_simple_indexing (its ``.at[].get()`` half; the ``x[idx]`` half is test_tf_unported_np_indexing_port's).

Left out: DSliceTest.test_dslice_construction (``jax.ds`` builds JAX's internal Slice object; nothing of tj's);
testSegmentReduce's ``bucket_size`` (a jax.ops tuning knob with no ``.at`` counterpart); the x64 dtypes and the
custom float dtypes of every sweep. Cases test_tf_unported_np_indexing_port.py already runs (set/add/min/max with
default keywords on the same specs) are not repeated: the rotation here starts at subtract/multiply/divide/power and
passes ``unique_indices``/``indices_are_sorted``/``mode``.

Sanctioned differences (API.md), tested as tj's rule:
* A list as the whole index (``x[[0, 0]]``, ``x.at[[0]].set(0)``): jax raises TypeError ("non-tuple sequence");
  API.md makes lists acceptable wherever indices are, and tj reads one as NumPy does (an index array). The lists
  NumPy cannot read as an array (``[0, [0, 1]]``, ``[0, None]``, ``[0, slice(None)]``) raise in tj too (ValueError
  or TypeError, NumPy: ValueError or IndexError; jax: TypeError).
* ``x[idx]`` out of bounds raises IndexError eagerly and in tj.function (API.md; jax's default clamps and raises only
  under ``jax_check_static_indices``). ``x.at[idx].get()`` follows jax's configuration: under
  ``jax_check_static_indices=True`` it raises jax's IndexError (tj re-raises it as numpy's AxisError, a subclass).
* testIndexMulGradFailsIfNotUnique (an extension tj documents, not an API.md rule): jax's ``x.at[y].mul(z)`` with a
  repeated index and no ``unique_indices`` has no derivative in ``z`` (NotImplementedError); tj defines one
  (ops/numpy.py: the product of the other factors), so the port checks tj's value against jax's derivative of the
  same update made one entry at a time.

Difference from jax.numpy found and fixed in tapejax: ``tnp.zeros(1, dtype=uint32).at[0].set(2**32 - 1)`` raised
OverflowError; jax casts a Python int the target's dtype holds to that dtype and gives 4294967295
(testScatterValuesCastToTargetDType).
"""
import itertools
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy
A = np.array
F32, I32, BOOL, C64, F16 = np.float32, np.int32, np.bool_, np.complex64, np.float16
OPS = ["subtract", "multiply", "divide", "power", "set", "add", "min", "max"]
MODES = ["clip", "drop", "promise_in_bounds"]


# -- helpers ---------------------------------------------------------------------------------------------------

def _op_dtypes(op):
    # UpdateOps.dtypes, sampled: bool only for set, inexact for divide/power
    if op == "set":
        return [F32, I32, BOOL, C64, F16]
    if op in ("divide", "power"):
        return [F32, C64, F16]
    return [F32, I32, F16]


def _update_dtypes(op, dtype):
    # _compatible_dtypes: the update dtype is the target's for add/subtract, else any that casts to it safely
    if op in ("add", "subtract"):
        return [dtype]
    return [d for d in (dtype, BOOL, I32, F16, F32, C64) if jnp.result_type(d, dtype) == dtype][:3]


def _broadcastable_shapes(shape):
    """Every shape that broadcasts to ``shape`` (JAX's helper of the same name): trailing dimensions of it, each
    kept or 1; the full shape first."""
    out = [tuple(shape)]
    for n in range(len(shape) + 1):
        tail = shape[len(shape) - n:]
        for combo in itertools.product(*[(d, 1) if d != 1 else (d,) for d in tail]):
            if combo not in out:
                out.append(combo)
    return out


def _rand(rng, shape, dtype, positive=False):
    """rand_default's kind of values: small signed ints, normals times 2, complex with both parts; ``positive``:
    in [0.5, 2) (bases of power, divisors)."""
    dtype = np.dtype(dtype)
    shape = tuple(shape)
    if dtype == np.bool_:
        return np.asarray(rng.random(shape) < 0.5)
    if dtype.kind in "iu":
        return np.asarray(rng.integers(1 if positive else -4, 5, size=shape), dtype)

    def draw():
        return rng.uniform(0.5, 2.0, shape) if positive else rng.standard_normal(shape) * 2
    v = draw()
    if dtype.kind == "c":
        v = v + 1j * draw()
    return np.asarray(v).astype(dtype)


def _np_update(op, idx, x, y):
    """UpdateOps.np_fn: the NumPy reference (``ufunc.at``, so a repeated index accumulates)."""
    x = x.copy()
    with np.errstate(all="ignore"):
        if op == "set":
            x[idx] = y
        elif op in ("min", "max"):
            getattr(np, op + "imum").at(x, idx, y.astype(x.dtype))
        else:
            getattr(np, op).at(x, idx, y)
    return x


def _jax_update(op, idx, x, y, **kw):
    return getattr(jnp.asarray(x).at[idx], op)(y, **kw)


def _tol(*dtypes):
    return 1e-2 if F16 in dtypes else 1e-5


def _values(got, want, tol):
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got.astype(np.complex128), want.astype(np.complex128), rtol=tol, atol=tol)


def _check_update(k, shape, idx, update_shape, op, dtype, update_dtype, **kw):
    """tj's ``x.at[idx].op(y, **kw)`` against NumPy's reference and jax.numpy's shape/dtype; on every fourth case
    also against jax.numpy's values and inside tj.function."""
    rng = np.random.default_rng(k)
    x = _rand(rng, shape, dtype, positive=(op == "power"))
    y = _rand(rng, update_shape, update_dtype, positive=op in ("divide", "power"))
    tol = _tol(dtype, update_dtype) * (10 if op == "power" else 1)
    want = _np_update(op, idx, x, y)
    spec = jax.eval_shape(lambda a, b: _jax_update(op, idx, a, b, **kw), x, y)
    got = getattr(tj.constant(x).at[idx], op)(tj.constant(y), **kw)
    assert isinstance(got, tj.Tensor)
    assert (got.shape, got.dtype) == (spec.shape, spec.dtype) == (want.shape, want.dtype)
    _values(got.numpy(), want, tol)
    if k % 4 == 0:
        _values(got.numpy(), _jax_update(op, idx, x, y, **kw), tol)
        compiled = tj.function(lambda a, b: getattr(a.at[idx], op)(b, **kw))(tj.constant(x), tj.constant(y))
        _values(compiled.numpy(), got.numpy(), tol)


def _cases(specs, ops=OPS, modes=(None,)):
    """One case per (shape, index, index result shape) of ``specs``; op, dtype, update dtype, update shape and mode
    rotate with the case's number."""
    out = []
    for k, (shape, idx, idx_shape) in enumerate(specs):
        op = ops[k % len(ops)]
        dtypes = _op_dtypes(op)
        dtype = dtypes[(k // len(ops) + k) % len(dtypes)]
        udtypes = _update_dtypes(op, dtype)
        udtype = udtypes[k % len(udtypes)]
        ushapes = _broadcastable_shapes(tuple(idx_shape))
        ushape = ushapes[k % len(ushapes)]
        mode = modes[k % len(modes)]
        out.append(pytest.param(k, shape, idx, ushape, op, dtype, udtype, mode,
                                id=f"{k}-{op}-{np.dtype(dtype).name}-{np.dtype(udtype).name}-{ushape}-{mode}"))
    return out


# -- IndexedUpdateTest: values ---------------------------------------------------------------------------------

# (shape, indexer, shape of x[indexer]): a sample of STATIC_INDEXING_TESTS, each of its groups represented
STATIC = [
    ((3,), 1, ()), ((3, 4, 5), 2, (4, 5)), ((3,), -2, ()),
    ((3, 4, 5), (-1, 2), (5,)), ((3, 4, 5), (1, 2, 3), ()),
    ((10,), slice(1, -1), (8,)), ((10, 8), slice(-3, None), (3, 8)),
    ((10,), slice(3, 1, -1), (2,)), ((10, 8), slice(12, 4, -4), (2, 8)), ((10,), slice(1, 8, -1), (0,)),
    ((10, 8), slice(1, 8, 3), (3, 8)), ((10,), slice(None, 1, -2), (4,)),
    ((10, 8, 3), (slice(1, None), slice(0, 2)), (9, 2, 3)), ((10, 8), (slice(None, None, -1), slice(None, 2)), (10, 2)),
    ((3, 4), slice(None), (3, 4)), ((3, 4, 5), (slice(None), slice(None)), (3, 4, 5)),
    ((10, 4), (1, slice(None)), (4,)),
    ((3,), Ellipsis, (3,)), ((3, 4, 5), (Ellipsis, 2, 3), (3,)),
    ((10,), slice(-2, -12, -1), (9,)), ((10,), slice(11, 12, 1), (0,)),
    ((), None, (1,)), ((3, 4, 5), (1, None, slice(None), None), (1, 4, 1, 5)), ((3, 4), (Ellipsis, None), (3, 4, 1)),
    ((), (), ()), ((3, 4), (), (3, 4)),
    ((3, 2, 3), (0, slice(None), np.arange(3)), (3, 2)), ((3, 2, 3), (np.int32(1), slice(None), np.arange(3)), (3, 2)),
    ((3, 2, 3), (A(2), slice(None), np.arange(3)), (3, 2)),
]

ADVANCED_NO_REPEATS = [
    ((3,), A([0, 1]), (2,)), ((3, 3), A([1, 2, 0]), (3, 3)), ((3, 4, 5), A([0, 2, 1]), (3, 4, 5)),
    ((3,), A([-1, 1]), (2,)), ((0,), A([], dtype=np.int32), (0,)),
    ((6, 6), A([[1, 2, 0], [3, 4, -1]]), (2, 3, 6)),
    ((4, 5, 6), (A([0, 2, 1, 3]), A([-1, 0, -2, 1])), (4, 6)),
    ((4, 5, 6), (A([[0, 2, -1, 1]]), A([-1, 0, -2, 2])), (1, 4, 6)),
    ((3, 4, 5), ([[0], [-1]], [[2, 3, 0]]), (2, 3, 5)),
    ((3, 4, 5), (0, 1, A([[2, 3, 0]])), (1, 3)),
    ((3, 4, 5), ([[0], [-1]], A([[2, 3, 0]])), (2, 3, 5)),
]

ADVANCED_SORTED = [
    ((3,), A([0, 1]), (2,)), ((3, 4, 5), A([0, 1, 2]), (3, 4, 5)), ((3,), A([-2, -1]), (2,)),
    ((6, 6), A([[-1, 0, 1], [2, 3, 4]]), (2, 3, 6)),
    ((3, 3), (A([0, 1]), A([1, 2])), (2,)),
    ((4, 5, 6), (A([[-1, 0, 1, 2]]), A([-2, -1, 0, 2])), (1, 4, 6)),
    ((3, 4, 5), ([0, 1],), (2, 4, 5)),
    ((3, 4, 5), (0, A([0, 1])), (2, 5)),
    ((3, 4, 5), ([0, 1], A([0])), (2, 5)),
]

MIXED_NO_REPEATS = [
    ((2, 3), (A([0, 1]), slice(1, 2)), (2, 1)), ((2, 3), (slice(0, 2), A([0, 2])), (2, 2)),
    ((3, 4, 5), (Ellipsis, A([[0, 2], [1, 3]]), slice(None)), (3, 2, 2, 5)),
    ((3, 4, 5), (Ellipsis, A([0, 2]), A([-1, 2])), (3, 2)),
    ((3, 4, 5), (A([0, 2]), Ellipsis, A([-1, 2])), (2, 4)),
    ((3, 4, 5), (A([0, 2]), slice(1, 3), A([-1, 2])), (2, 2)),
    ((3, 4, 5), (A([0, 2, -2]), slice(None, None, 2), A([-1, 2, 1])), (3, 2)),
    ((3, 4, 5), (A([0, 2]), None, None, A([-1, 2])), (2, 1, 1, 5)),
    ((3, 4, 5), (Ellipsis, A([0, 2]), None, None, A([-1, 2])), (2, 3, 1, 1)),
    ((3, 4), (Ellipsis, A(1, dtype=np.int32)), (3,)),
    ((3, 4, 5), (slice(None), A([0, 1]), Ellipsis, A([0, 1])), (2, 3)),
]


def _pick(specs, *which):
    return [specs[i] for i in which]


@pytest.mark.parametrize("k,shape,idx,ushape,op,dtype,udtype,mode",
                         _cases(_pick(STATIC, 0, 1, 3, 4, 6, 8, 9, 11, 12, 16, 18, 19, 22, 24, 26, 28), modes=MODES))
def test_static_indexing(k, shape, idx, ushape, op, dtype, udtype, mode):
    _check_update(k, shape, idx, ushape, op, dtype, udtype, mode=mode)


@pytest.mark.parametrize("k,shape,idx,ushape,op,dtype,udtype,mode",
                         _cases(_pick(ADVANCED_NO_REPEATS, 0, 2, 4, 5, 6, 8, 10)))
def test_advanced_indexing_unique(k, shape, idx, ushape, op, dtype, udtype, mode):
    _check_update(k, shape, idx, ushape, op, dtype, udtype, unique_indices=True)


@pytest.mark.parametrize("k,shape,idx,ushape,op,dtype,udtype,mode",
                         _cases(_pick(ADVANCED_SORTED, 0, 1, 3, 4, 5, 8), OPS[3:] + OPS[:3]))
def test_advanced_indexing_sorted(k, shape, idx, ushape, op, dtype, udtype, mode):
    _check_update(k, shape, idx, ushape, op, dtype, udtype, indices_are_sorted=True, unique_indices=True)


@pytest.mark.parametrize("k,shape,idx,ushape,op,dtype,udtype,mode",
                         _cases(_pick(MIXED_NO_REPEATS, 0, 2, 3, 5, 6, 7, 9, 10), OPS[1:] + OPS[:1]))
def test_mixed_advanced_indexing(k, shape, idx, ushape, op, dtype, udtype, mode):
    _check_update(k, shape, idx, ushape, op, dtype, udtype)


# (op, mode, wrap_negative_indices, size): each op once, the four mode/wrap pairs twice over the ops
_MODE_WRAP = [("clip", False), ("fill", True), ("fill", False), ("clip", True)]
WRAP_CASES = [(op, *_MODE_WRAP[i % 4], [5, 10][(i // 4 + i) % 2]) for i, op in enumerate(OPS)]


@pytest.mark.parametrize("op,mode,wrap,size", WRAP_CASES)
def test_wrap_negative_indices_1d(op, mode, wrap, size):
    rng = np.random.default_rng(size + len(op) + 7 * wrap)
    data = (rng.standard_normal(size) * 3).round(1).astype(F32)
    values = (rng.standard_normal(5) * 3).round(1).astype(F32)
    if op in ("divide", "power"):  # (NaN and inf from x / 0 and a negative base, where JAX's random draws give them)
        data, values = np.abs(data) + 0.5, np.abs(values) + 0.5
    # unique indices in [0, size), half of them shifted below 0; the top and the bottom pushed out of bounds
    idx = rng.permutation(size)[:5].astype(I32)
    idx = np.where(rng.random(5) < 0.5, idx, idx - size)
    idx[idx == size - 1] = size + 2
    idx[idx == -size] = -(size + 2)

    # the test's NumPy reference: wrap, then drop (fill) or clamp (clip)
    ref_idx, ref_vals = (np.where(idx < 0, idx + size, idx) if wrap else idx), values
    if mode == "fill":
        ok = (ref_idx >= 0) & (ref_idx < size)
        ref_idx, ref_vals = ref_idx[ok], values[ok]
    else:
        ref_idx = np.clip(ref_idx, 0, size - 1)
    want = _np_update(op, ref_idx, data, ref_vals)

    def f(d, i, v):
        return getattr(d.at[i], op)(v, mode=mode, wrap_negative_indices=wrap)
    got = f(tj.constant(data), tj.constant(idx), tj.constant(values))
    _values(got.numpy(), want, 1e-5)
    if op == "set" and mode == "clip" and not wrap:
        # several negative indices clamp to 0: which write lands is jax's scatter's choice (tj must agree with jax)
        _values(got.numpy(), f(jnp.asarray(data), idx, values), 0)
    compiled = tj.function(f)(tj.constant(data), tj.constant(idx), tj.constant(values))
    _values(compiled.numpy(), got.numpy(), 1e-6)


# -- IndexedUpdateTest: gradients ------------------------------------------------------------------------------

STATIC_OOB = [((3,), -4, ()), ((3, 3), 3, (3,)), ((3, 4, 5), (-4, 4), (5,)), ((3, 3), (2, -4), ())]


def _check_grads(k, shape, idx, ushape, op, dtype, udtype, **kw):
    """tape.gradient against jax.vjp of the jax.numpy update (a random cotangent), and ForwardAccumulator's JVP
    against jax.jvp (every other case)."""
    rng = np.random.default_rng(100 + k)
    x, y = _rand(rng, shape, dtype), _rand(rng, ushape, udtype)
    def f(a, b):
        return _jax_update(op, idx, a, b, **kw)
    ct = _rand(rng, jax.eval_shape(f, x, y).shape, dtype)
    # jax's references, each one compiled program (cheaper than jax's op-by-op dispatch of the vjp)
    want = jax.jit(lambda a, b, c: jax.vjp(f, a, b)[1](c))(x, y, ct)
    tol = _tol(dtype, udtype)
    xt, yt = tj.constant(x), tj.constant(y)
    with tj.GradientTape() as tape:
        tape.watch([xt, yt])
        got = getattr(xt.at[idx], op)(yt, **kw)
    grads = tape.gradient(got, [xt, yt], output_gradients=tj.constant(ct))
    for g, w in zip(grads, want):
        assert g is not None and (g.shape, g.dtype) == (w.shape, w.dtype)
        _values(g.numpy(), w, tol)
    if k % 2 == 0:
        tx, ty = _rand(rng, shape, dtype), _rand(rng, ushape, udtype)
        want_t = jax.jit(lambda a, b, ta, tb: jax.jvp(f, (a, b), (ta, tb))[1])(x, y, tx, ty)
        with tj.ForwardAccumulator([xt, yt], [tj.constant(tx), tj.constant(ty)]) as acc:
            got = getattr(xt.at[idx], op)(yt, **kw)
        _values(acc.jvp(got).numpy(), want_t, tol)


GRAD_OPS = ["multiply", "set", "add", "subtract"]


def _grad_cases(specs, modes, ops=GRAD_OPS):
    out = []
    for k, (shape, idx, idx_shape) in enumerate(specs):
        op, mode = ops[k % len(ops)], modes[k % len(modes)]
        if any(shape == o[0] and idx is o[1] for o in STATIC_OOB) and mode == "promise_in_bounds":
            mode = "clip"
        dtype, udtype = (F16, F16) if k == 6 else (F32, F16 if k == 1 else F32)  # (one float16 family)
        ushapes = _broadcastable_shapes(tuple(idx_shape))
        ushape = ushapes[(k // 2) % len(ushapes)]
        out.append(pytest.param(k, shape, idx, ushape, op, dtype, udtype, mode,
                                id=f"{k}-{op}-{np.dtype(dtype).name}-{np.dtype(udtype).name}-{ushape}-{mode}"))
    return out


GRAD_STATIC = [STATIC[i] for i in (3, 12, 22, 26)] + STATIC_OOB


@pytest.mark.parametrize("k,shape,idx,ushape,op,dtype,udtype,mode",
                         _grad_cases(GRAD_STATIC, [None, "clip", "drop", "promise_in_bounds"]))
def test_static_indexing_grads(k, shape, idx, ushape, op, dtype, udtype, mode):
    _check_grads(k, shape, idx, ushape, op, dtype, udtype, mode=mode, unique_indices=True)


# ADVANCED_INDEXING_TESTS (repeats allowed: add and subtract only), then the unique specs with all four ops
GRAD_ADVANCED_REPEATS = [
    ((3, 3), A([1, 2, 1]), (3, 3)), ((3, 4, 5), (A([[0, 2, 0, 1]]), A([-1, 0, -1, 2])), (1, 4, 5)),
    ((3, 4), ([], 0), (0,)),
]


@pytest.mark.parametrize("unique", [False, True])
def test_advanced_indexing_grads(unique):
    specs = [ADVANCED_NO_REPEATS[i] for i in (5, 6, 9)] if unique else GRAD_ADVANCED_REPEATS
    for case in _grad_cases(specs, [None], ["multiply", "set", "subtract"] if unique else ["add", "subtract"]):
        k, shape, idx, ushape, op, dtype, udtype, _ = case.values
        _check_grads(k, shape, idx, ushape, op, F32, F32, unique_indices=unique)


def test_index_mul_grad_with_repeated_index():
    # jax: jax.jvp of x.at[y].mul(z) with y all ones raises NotImplementedError (scatter_mul wants
    # unique_indices=True). tj defines the derivative (ops/numpy.py); it must equal jax's of the same update made
    # one entry at a time.
    y = np.ones(10, I32)
    x, z = np.ones(100, F32), np.ones(10, F32)

    def one_by_one(a, c):
        for k in range(10):
            a = a.at[y[k]].multiply(c[k])
        return a
    want = jax.jit(lambda a, c: jax.jvp(one_by_one, (a, c), (a, c))[1])(x, z)
    xt, zt = tj.constant(x), tj.constant(z)
    with tj.ForwardAccumulator([xt, zt], [tj.constant(x), tj.constant(z)]) as acc:
        out = xt.at[y].mul(zt)
    _values(acc.jvp(out).numpy(), want, 1e-6)
    assert float(want[1]) == 11.0  # 1 (from x) + 10 products of the other nine ones
    with tj.GradientTape() as tape:
        tape.watch([xt, zt])
        out = xt.at[y].mul(zt)
    gx, gz = tape.gradient(out, [xt, zt])
    wx, wz = jax.jit(jax.grad(lambda a, c: jnp.sum(one_by_one(a, c)), (0, 1)))(x, z)
    _values(gx.numpy(), wx, 1e-6)
    _values(gz.numpy(), wz, 1e-6)


# -- segment reductions through .at ----------------------------------------------------------------------------

def _segment(op, data, ids, num_segments, identity):
    """jax.ops.segment_<op> as jax builds it: an identity-filled array, out-of-range ids (negative ones too)
    dropped."""
    data = tj.constant(data)
    size = num_segments if num_segments is not None else int(np.max(ids)) + 1
    base = tnp.full((size,) + tuple(data.shape[1:]), identity, data.dtype)
    return getattr(base.at[ids], op)(data, mode="drop", wrap_negative_indices=False)


def test_segment_sum_behavior():
    data = np.array([5, 1, 7, 2, 3, 4, 1, 3], dtype=float)
    segment_ids = np.array([0, 0, 0, 1, 2, 2, 3, 3])
    got = tnp.zeros_like(data, shape=np.max(segment_ids) + 1).at[segment_ids].add(data)
    assert (got.shape, got.dtype) == ((4,), jnp.float32)  # (float64 data: float32 with x64 off, as jnp)
    np.testing.assert_array_equal(got.numpy(), [13, 2, 7, 4])


@pytest.mark.parametrize("ids,num_segments,want", [
    ([0, 0, 0, 1, 2, 2, 3, 3], 4, [13, 2, 7, 4]),
    ([0, 0, 0, 1, 2, 2, 3, 3], 5, [13, 2, 7, 4, 0]),
    ([0, 0, 0, 1, 2, 2, 3, 3], None, [13, 2, 7, 4]),
    ([0, 4, 8, 1, 2, -6, -1, 3], 4, [5, 2, 3, 3]),  # ids out of range, negative ones included, dropped
    ([3, 3, 3, 4, 5, 5, -7, -6], None, [0, 0, 0, 13, 2, 7]),
])
def test_segment_sum(ids, num_segments, want):
    data = np.array([5, 1, 7, 2, 3, 4, 1, 3], I32)
    ids = np.array(ids, I32)
    got = _segment("add", data, ids, num_segments, 0)
    np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_array_equal(got.numpy(), jax.ops.segment_sum(data, ids, num_segments))


def test_segment_sum_out_of_bounds():
    data = tj.constant(np.array([0, 0], F32))
    with tj.GradientTape() as tape:
        tape.watch(data)
        val = tnp.sum(_segment("add", data, np.array([2, 3]), 2, 0))
    np.testing.assert_array_equal(val.numpy(), np.float32(0))
    np.testing.assert_array_equal(tape.gradient(val, data).numpy(), [0.0, 0.0])


SEGMENT_CASES = [  # (reducer, dtype, shape, num_segments); sampled from JAX's product
    ("add", F32, (8,), None), ("multiply", I32, (7, 4), 3), ("min", F32, (6, 4, 2), 1), ("max", I32, (8,), 3),
    ("add", I32, (6, 4, 2), 3), ("multiply", F32, (8,), None), ("min", I32, (7, 4), None), ("max", F32, (7, 4), 1),
    ("min", BOOL, (7, 4), 3), ("max", BOOL, (8,), None),  # testSegmentReduceBoolean
]


@pytest.mark.parametrize("op,dtype,shape,num_segments", SEGMENT_CASES)
def test_segment_reduce(op, dtype, shape, num_segments):
    rng = np.random.default_rng(len(shape) * 10 + len(op))
    data = _rand(rng, shape, dtype)
    ids = rng.integers(-2, 3, size=shape[:1]).astype(I32)
    identity = {"add": 0, "multiply": 1, "min": np.inf, "max": -np.inf}[op]
    if dtype == BOOL:
        identity = op == "min"
    elif np.issubdtype(dtype, np.integer) and np.isinf(identity):
        identity = np.iinfo(dtype).max if identity > 0 else np.iinfo(dtype).min
    size = num_segments if num_segments is not None else ids.max() + 1
    ufunc = {"add": np.add, "multiply": np.multiply, "min": np.minimum, "max": np.maximum}[op]
    want = np.full((size,) + shape[1:], identity, dtype)
    for i, v in zip(ids, data):
        if 0 <= i < size:
            want[i] = ufunc(want[i], v).astype(dtype)
    got = _segment(op, data, ids, num_segments, identity)
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    _values(got.numpy(), want, 1e-5)
    if num_segments is not None and op in ("multiply", "max"):
        compiled = tj.function(lambda d, i: _segment(op, d, i, num_segments, identity))(data, ids)
        _values(compiled.numpy(), got.numpy(), 1e-6)


# -- the regressions -------------------------------------------------------------------------------------------

def test_strided_set_gives_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = tnp.zeros(5).at[::2].set(1)
    np.testing.assert_array_equal(got.numpy(), [1, 0, 1, 0, 1])


@pytest.mark.parametrize("idx,kind", [
    ([0], "array"), ([0, 0], "array"), ([[0, 0]], "tuple"), ([0, [0, 1]], "tuple"), ([0, np.arange(2)], "tuple"),
    ([0, None], "tuple"), ([0, slice(None)], "tuple"),
])
def test_index_sequence(idx, kind):
    x = np.arange(6, dtype=I32).reshape(3, 2)
    t = tj.constant(x)
    normal = np.array(idx) if kind == "array" else tuple(idx)
    # the normalized index: no warning, jax's result (NumPy's: JAX's test has jax agree with it)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got, got_set = t[normal], t.at[normal].set(0)
    ref = x.copy()
    ref[normal] = 0
    np.testing.assert_array_equal(got.numpy(), x[normal])
    np.testing.assert_array_equal(got_set.numpy(), ref)
    spec = jax.eval_shape(lambda a: a[normal], x)
    assert (got.shape, got.dtype) == (spec.shape, spec.dtype)
    # the bare list: NumPy's reading (API.md: a list is accepted where an index array is), or an error where NumPy
    # cannot make it an array (jax: TypeError for all of them)
    try:
        want = x[np.array(idx)]
    except (ValueError, IndexError, TypeError):
        want = None
    if want is None or want.dtype == object:
        with pytest.raises((TypeError, ValueError, IndexError)):
            t[idx]
        with pytest.raises((TypeError, ValueError, IndexError)):
            t.at[idx].set(0)
    else:
        np.testing.assert_array_equal(t[idx].numpy(), want)
        ref = x.copy()
        ref[np.array(idx)] = 0
        np.testing.assert_array_equal(t.at[idx].set(0).numpy(), ref)


def test_indexed_update_aliasing_bug():
    def fn(x):
        return x.at[1:].set(1 + x[:-1])
    y = tnp.zeros(8)
    np.testing.assert_array_equal(fn(y).numpy(), tj.function(fn)(y).numpy())
    np.testing.assert_array_equal(fn(y).numpy(), fn(jnp.zeros(8)))


def test_scatter_values_cast_to_target_dtype():
    a = tnp.zeros(1, dtype=jnp.uint32)
    b = a.at[0].set(jnp.uint32(2 ** 32 - 1))
    assert b.dtype == jnp.uint32 and int(b[0]) == 2 ** 32 - 1


def test_scatter_python_int_cast_to_target_dtype():
    a = tnp.zeros(1, dtype=jnp.uint32)
    c = a.at[0].set(2 ** 32 - 1)
    assert c.dtype == jnp.uint32 and int(c[0]) == 2 ** 32 - 1


def test_grad_of_vmap_of_scatter():
    x, i = np.array([1.0], F32), np.array([1])  # i is out of bounds: clipped to 0

    xt = tj.constant(x)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(xt)
        out = xt.at[i].get(mode="clip")
    for pfor in (True, False):
        np.testing.assert_array_equal(tape.jacobian(out, xt, experimental_use_pfor=pfor).numpy(), [[1.0]])

    def f(a, j):  # a function of Tensors, under jax's own transformations
        return tj.Tensor(a).at[tj.Tensor(j)].get(mode="clip").value
    np.testing.assert_array_equal(jax.jacrev(f)(jnp.asarray(x), jnp.asarray(i)), [[1.0]])
    np.testing.assert_array_equal(jax.jacrev(jax.vmap(f, (None, 0)))(jnp.asarray(x), jnp.asarray(i)), [[1.0]])


# -- ValidateIndicesTest ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,idx,msg", [
    ((2,), -4, "index -4 out of bounds for axis 0 with size 2"),
    ((2,), 4, "index 4 out of bounds for axis 0 with size 2"),
    ((2, 3), np.index_exp[:, 4], "index 4 out of bounds for axis 1 with size 3"),
    ((2, 3), np.index_exp[..., -4], "index -4 out of bounds for axis 1 with size 3"),
    ((2, 3, 5), np.index_exp[3, :, 0], "index 3 out of bounds for axis 0 with size 2"),
    ((2, 3, 5), np.index_exp[:5, :, 6], "index 6 out of bounds for axis 2 with size 5"),
    ((2, 3, 5), np.index_exp[:, [1, 2], 6], "index 6 out of bounds for axis 2 with size 5"),
    ((2, 3, 5), np.index_exp[np.arange(3), 6, None], "index 6 out of bounds for axis 1 with size 3"),
    ((2, 3), (1, 2, 3), "Too many indices: array is 2-dimensional, but 3 were indexed"),
])
def test_out_of_bound_indices(shape, idx, msg):
    arr = tnp.zeros(shape)
    # x[idx]: IndexError always (API.md), eagerly and traced; tj's words name the index, the axis and the shape
    # (for the index array it names arange(3)'s 2, also out of bounds, where jax's check sees only static ints)
    words = "too many indices" if msg.startswith("Too") else "out of bounds for axis"
    with pytest.raises(IndexError, match=words):
        arr[idx]
    with pytest.raises(IndexError, match=words):
        tj.function(lambda x: x[idx])(arr)
    # x.at[idx].get(): jax's check, under the configuration JAX's class sets
    old = jax.config.jax_check_static_indices
    jax.config.update("jax_check_static_indices", True)
    try:
        with pytest.raises(IndexError, match=msg if not msg.startswith("Too") else words):
            arr.at[idx].get()
    finally:
        jax.config.update("jax_check_static_indices", old)


@pytest.mark.parametrize("k", range(0, len(STATIC), 3))
def test_simple_indexing_at_get(k):
    shape, idx, _ = STATIC[k]
    dtype = [F32, I32, BOOL, C64, F16][k % 5]
    x = _rand(np.random.default_rng(k), shape, dtype)
    got = tj.constant(x).at[idx].get()
    want = x[idx]
    spec = jax.eval_shape(lambda a: jnp.asarray(a).at[idx].get(), x)
    assert (got.shape, got.dtype) == (spec.shape, spec.dtype) == (want.shape, want.dtype)
    _values(got.numpy(), want, 0)
    if k % 9 == 0:
        _values(tj.function(lambda a: a.at[idx].get())(tj.constant(x)).numpy(), want, 0)
