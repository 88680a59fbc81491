"""JAX's lax_numpy_test.py, second part, ported to tapejax's ``tj.numpy``.

Source: jax-ml/jax tests/lax_numpy_test.py (commit 0001fb9b, 258,783 characters), the LaxBackedNumpyTests methods
whose ``def`` lies at character offsets [86000, 172000): testMaskIndices ... testArgpartitionUnsignedWithZeros.

Mapping: ``jnp.<name>`` -> ``tj.numpy.<name>`` (jax.numpy's names and signatures); ``jnp.asarray(x).<method>`` ->
the same method of a tj.Tensor; ``_CheckAgainstNumpy`` -> the tj result against jax.numpy's on the same inputs
(structure, shape, dtype and values; x64 off) and against NumPy's (values, on the inputs cast to the dtypes JAX
gives them); ``_CompileAndCheck`` / ``jax.jit`` -> the whole grid as one ``tj.function`` taking every case's
arrays, against the same references, with every other case also run op by op (the two paths must agree; the
file's time is mostly XLA compiling eager kernels, one per op and signature); ``check_grads`` / ``jax.grad`` ->
``tj.GradientTape`` against ``jax.vjp`` of the jnp function and ``tj.ForwardAccumulator`` against ``jax.jvp``
(added for the differentiable ops: fill_diagonal, diagflat, polymul, polydiv, ldexp, frexp, diff, column_stack,
stack, hstack, resize, histogram's weights, sort, sort_complex, partition, choose, array(copy=True); interp by
the tape against ``jax.grad`` in testInterpGradNan's port). Grids are sampled hard: every argument kind of each
method, not every combination; dtypes float32, int32, bool, complex64 and a float16 case or two; inputs drawn as
jtu's rand_default / rand_some_zero / rand_some_equal / rand_some_inf_and_nan do, from a seeded NumPy RandomState.
jax.numpy agrees with NumPy on every case kept here; JAX's own tolerances are kept (interp 3e-3, polymul/polydiv
5e-2 in float32).

Ported: testMaskIndices, testFillDiagonal, testDiagIndicesFrom, testDiagFlat, testPolyMul, testPolyDiv, testInterp,
testInterpExtrapoate, testInterpErrors, testInterpGradNan, testLdexp, testLdexpOverflow, testLdexpExtremeValues,
testFrexp, testTraceSameAxesError, testSearchsorted, testSearchsortedDtype (the int32 half by ``jax.eval_shape``
of a function of Tensors; the int64 half needs x64), testSearchsortedNans, testDigitize, testDigitizeMethod,
testColumnStack, testStack and testHVDStack (their ``dtype=`` and array-input halves; the rest is in
test_tf_unported_np_test_part3_port.py), testWindowFunction, testDiff, testDiffBool, testDiffPrepoendScalar,
testOnesWithInvalidShape, testFullLike (its ``shape=`` half), testZerosOnesLike, testDuckTypedLike,
testArraySplitStaticInt, testSplitTypeError, testHistogramBinEdges, testHistogram, testHistogram2d,
testHistogramdd, testResize, testExpandDimsStaticDim (its array and sequence axes), testExpandDimsRepeatedAxisError,
testSqueeze (its array axes), testArrayFromMasked, testAsarrayCopy, testAsarrayWithCopyFalse (the CPU half),
testArrayDtypeInference (dtypes; weak types are JAX-internal), testArrayCopyAutodiff, testArrayCopyVmap,
testArrayUnsupportedDtypeError, testArrayFromInteger, testArrayFromList, testArrayNone, testArrayOutputsArrays,
testJaxArrayOps, testIsScalar, testIsNotScalar, testIsComplexObj, testIsClose, testIsCloseCornerCases,
testRavelMultiIndex, testRavelMultiIndexDtype, testChoose, testUnravelIndex, testAstype (the function form and
``None``; the method to int32 is in test_tf_unported_np_test_part4_port.py), testAstypeBool,
testAstypeComplexDowncast, testNbytes, testItemsize, testItem, testNpMean, testArangeTypes, testSort,
testSortStableDescending, testSortComplex, testLexsort, testArgsort, testArgsortDtype, testArgsortUnstable,
testPartition, testPartitionUnsignedWithZeros, testArgpartition, testArgpartitionUnsignedWithZeros.

Left out:
  * ported already (TF's np_test.py is an older copy of these methods; test_tf_unported_np_test_part3_port.py and
    part4 port them to tj.numpy with the same grids): testDiagIndices, testDiag, testDiagonal, testIdentity,
    testTrace, testFull, testZerosOnes, testSplitStaticInt, testHVDSplit, testReshape, testReshapeMethod,
    testSwapAxesStaticAxes, testArray, testIssue121, testArrayMethod, testMemoryView, testAllClose,
    testZeroStridesConstantHandler, testIsInstanceNdarrayDuringTracing, testNonArrayErrorMessage,
    testAbstractionErrorMessage, testFlip, testFlipud, testFliplr, testRot90, testRavel, testArangeOnFloats.
  * device and sharding placement (JAX-internal here): test_full_like_committed, test_zeros_like_with_explicit_
    device_and_jitted, testArrayCreationWithDevice, testArrayCreationWithSharding, testArangeEyeLinspaceArrayWith
    Device, testArangeEyeLinspaceArrayWithSharding, testFullLikeWithDevice, testFullLikeWithSharding,
    testIsComplexObjTransferGuard (jax.transfer_guard).
  * weak types (a JAX-internal dtype flag): testZerosOnesFullLikeWeakType, testArrayWeakType, testSliceWeakTypes.
  * buffers: testArrayCopy (unsafe_buffer_pointer, delete), testAstypeCopy (delete / is_deleted); testView,
    testViewScalar, testPathologicalFloats (``.view``: a documented exclusion of tj.Tensor's jax.Array methods,
    test_tensor_array_methods.py EXCLUDED).
  * x64 and sub-byte dtypes: testArrayExplicitDtypes (config.explicit_x64_dtypes), testAstypeIntN (int4).

Sanctioned differences (API.md):
  * error messages: tj raises jax.numpy's exception classes (or subclasses: ShapeError is a TypeError,
    OutOfRangeError an OverflowError, ConversionError a TypeError and ValueError) with its own wording naming the
    problem; the tests check the class and the key phrase.
  * unravel_index of an index outside [0, size) with known values raises ValueError eagerly (NumPy's rule, and
    API.md's for out-of-bounds indexing: never a clamped value; jax.numpy clips, and wraps negative ones); inside
    tj.function the values are unknown and tj clips as jax.numpy. Ported on in-range indices, plus each half.
  * tj.function takes Python numbers as static arguments and, as TF's tf.function, lets equal ones of other types
    share a trace (1, 1.0, True); jax.jit traces them. testArrayDtypeInference's compiled half uses one
    tj.function per object.

Differences found by this port and fixed: interp of float16 inputs returned float32; ldexp of 0 or +-inf by an
exponent whose partial powers of two overflow or underflow was NaN; ldexp(0.5, 128) inside tj.function with the
Python int 128 was inf; diff with n=0 appended prepend/append; zeros_like/ones_like/empty_like/full_like of a
jax.ShapeDtypeStruct raised TypeError; histogram with float16 weights returned float32; array of a NumPy masked array
raised ConversionError (jax.numpy and NumPy drop the mask).
"""
from __future__ import annotations

import array as pyarray
import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from conftest import jax_canonical as canon

tnp = tj.numpy

# jax.numpy warns when a 64-bit dtype is asked for with x64 off (and gives the 32-bit one); some cases ask.
pytestmark = pytest.mark.filterwarnings("ignore:Explicitly requested dtype")

PY = "python scalar"  # jtu.PYTHON_SCALAR_SHAPE
NP = "numpy scalar"  # jtu.NUMPY_SCALAR_SHAPE
F16, F32, F64, I32, I64 = np.float16, np.float32, np.float64, np.int32, np.int64
I8, U8, U16, U32, C64, B = np.int8, np.uint8, np.uint16, np.uint32, np.complex64, np.bool_
TOL = {np.dtype(F16): 1e-2, np.dtype(F32): 2e-5, np.dtype(C64): 2e-5, np.dtype(F64): 2e-5}


# -- inputs, as jtu's random generators draw them ----------------------------------------------------------------

def rand(shape, dtype, seed=0, kind="default", scale=3.0):
    """jtu.rand_<kind>: ``scale`` times a standard normal cast (truncated) to ``dtype``; ``some_zero`` sets about
    half the entries to 0, ``some_equal`` to the first entry, ``some_inf_nan`` some to inf, -inf and nan (floats);
    PY gives a Python number of type ``dtype``, NP a NumPy scalar."""
    r = np.random.RandomState(seed)
    if shape == PY:
        v = scale * r.randn()
        return {float: v, int: int(v), complex: complex(v, scale * r.randn()), bool: v > 0}[dtype]
    s = () if shape == NP else shape
    if dtype == B:
        a = r.rand(*s) > 0.5
    elif np.issubdtype(dtype, np.complexfloating):
        a = scale * r.randn(*s) + 1j * scale * r.randn(*s)
    else:
        a = scale * r.randn(*s)
    a = np.asarray(a)
    if np.issubdtype(dtype, np.unsignedinteger):
        a = np.abs(a)
    a = a.astype(dtype)
    if kind == "some_zero":
        a = np.where(r.rand(*s) < 0.5, np.zeros((), dtype), a)
    elif kind == "some_equal" and a.size:
        a = np.where(r.rand(*s) < 0.5, a.ravel()[0], a)
    elif kind == "some_inf_nan" and np.issubdtype(dtype, np.floating):
        u = r.rand(*s)
        a = np.where(u < 0.1, np.inf, np.where(u < 0.2, -np.inf, np.where(u < 0.3, np.nan, a))).astype(dtype)
    a = np.asarray(a, dtype)
    return a[()] if shape == NP else a


def cycle(values, i):
    return values[i % len(values)]


def every(step, iterable, start=0):
    """Every ``step``-th item of ``iterable`` from ``start``: a grid sampled (crossed lists cycle through)."""
    return list(itertools.islice(iterable, start, None, step))


# -- comparisons ---------------------------------------------------------------------------------------------------

def _leaves(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _values_close(got, want, dtype, label, tol=None):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (label, got.shape, want.shape)
    if np.issubdtype(dtype, np.inexact):
        t = tol if tol is not None else TOL.get(np.dtype(dtype), 2e-5)
        finite = np.isfinite(want)
        scale = max(1.0, float(np.abs(want[finite]).max())) if finite.any() else 1.0
        np.testing.assert_allclose(got.astype(np.complex128), want.astype(np.complex128), rtol=t, atol=t * scale,
                                   equal_nan=True, err_msg=label)
    else:
        np.testing.assert_array_equal(got, want, err_msg=label)


def match(got, ref, label, tol=None):
    """``got`` (tj) has jax.numpy's result ``ref``'s structure, shapes, dtypes and values."""
    if isinstance(ref, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(ref), (label, got)
        for g, r in zip(got, ref):
            match(g, r, label, tol)
        return
    assert isinstance(got, tj.Tensor), (label, type(got))
    ref = jnp.asarray(ref)
    assert (got.shape, got.dtype) == (ref.shape, ref.dtype), (label, got.shape, got.dtype, ref.shape, ref.dtype)
    _values_close(got.numpy(), np.asarray(ref), ref.dtype, label, tol)


def match_numpy(got, want, label, tol=None):
    """``got`` (tj) against NumPy's values ``want`` (structure and values; dtypes are jax.numpy's, see ``match``)."""
    gl, wl = _leaves(got), _leaves(want)
    assert len(gl) == len(wl), (label, len(gl), len(wl))
    for g, w in zip(gl, wl):
        g = g.numpy() if isinstance(g, tj.Tensor) else np.asarray(g)
        _values_close(g, np.asarray(w), g.dtype, "numpy: " + label, tol)


def _jnp_result(f, args):
    """``f(jax.numpy, *args)``, as one jitted program where it compiles (one XLA program per case, not one per
    primitive: the file's time is mostly compiling), else eagerly (value-dependent shapes)."""
    try:
        return jax.jit(lambda *a: f(jnp, *a))(*args)
    except (jax.errors.ConcretizationTypeError, jax.errors.TracerIntegerConversionError, TypeError):
        return f(jnp, *args)


def check(cases, compiled=True, eager_every=2):
    """Each case ``(label, f, args, np_f, tol)``: ``f(tj.numpy, *args)`` against ``f(jax.numpy, *args)`` and, if
    ``np_f`` is given, against ``np_f(*canon(args))`` (NumPy's values). Every case runs inside one ``tj.function``
    taking all cases' ``args`` (``_CompileAndCheck``: one XLA program), and every ``eager_every``-th case (all of
    them when not ``compiled``) op by op too, where the two paths must agree. (The file's time is mostly XLA
    compiling the eager ops' kernels, one per op and signature.) Static arguments (shapes, axes, dtypes) live in
    ``f``, as in JAX's lambdas."""
    refs, eager = [], {}
    for n, (label, f, args, np_f, tol) in enumerate(cases):
        refs.append((_jnp_result(f, args), None if np_f is None else np_f(*canon(args))))
        if n % eager_every == 0 or not compiled:
            eager[n] = got = f(tnp, *args)
            match(got, refs[n][0], label, tol)
            if np_f is not None:
                match_numpy(got, refs[n][1], label, tol)
    if compiled:
        run = tj.function(lambda arg_lists: [c[1](tnp, *a) for c, a in zip(cases, arg_lists)])
        outs = run([list(c[2]) for c in cases])
        for n, (c, out) in enumerate(zip(cases, outs)):
            label = "tj.function: " + c[0]
            match(out, refs[n][0], label, c[4])
            if c[3] is not None:
                match_numpy(out, refs[n][1], label, c[4])
            if n in eager:
                want = eager[n]
                match(out, [w.value for w in want] if isinstance(want, (list, tuple)) else want.value, label, c[4])


def case(label, f, args, np_f=None, tol=None):
    return (label, f, list(args), np_f, tol)


def gradients_match(f, xs, seed=0):
    """The tape's gradient of ``f(tj.numpy, *xs)`` (a random cotangent per output) against ``jax.vjp`` of
    ``f(jax.numpy, ...)``, and the accumulator's tangent against ``jax.jvp`` (float inputs)."""
    r = np.random.RandomState(seed)
    xs = [np.asarray(x) for x in xs]
    out = jax.eval_shape(lambda *a: f(jnp, *a), *xs)
    cts = [np.asarray(r.randn(*o.shape)).astype(o.dtype) for o in _leaves(out)]
    tangents = [np.asarray(r.randn(*x.shape)).astype(x.dtype) for x in xs]

    @jax.jit
    def reference(xs, cts, tangents):  # jax's vjp and jvp as one XLA program (eager: one per primitive)
        fn = lambda *a: f(jnp, *a)  # noqa: E731
        y, vjp = jax.vjp(fn, *xs)
        return vjp(type(y)(cts) if isinstance(y, (list, tuple)) else cts[0]), jax.jvp(fn, xs, tangents)[1]
    want, jvp_want = reference(xs, cts, tangents)
    ts = [tj.constant(x) for x in xs]
    with tj.GradientTape() as tape:
        tape.watch(ts)
        y = f(tnp, *ts)
    got = tape.gradient(_leaves(y), ts, output_gradients=cts)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.zeros_like(w) if g is None else g.numpy(), w, rtol=1e-4, atol=1e-5)
    with tj.ForwardAccumulator(ts, [tj.constant(t) for t in tangents]) as acc:
        y = f(tnp, *ts)
    for g, w in zip(_leaves(acc.jvp(_leaves(y))), _leaves(jvp_want)):
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-4, atol=1e-5)


# -- testMaskIndices, testFillDiagonal, testDiagIndicesFrom, testDiagFlat ---------------------------------------

def test_mask_indices():
    cases = []
    for n, k, name in [(3, None, "triu"), (4, -1, "tril")]:  # (jax.numpy's side runs eagerly: one n each)
        kw = {} if k is None else {"k": k}
        cases.append(case(f"mask_indices {n} {name} {kw}",
                          lambda m, n=n, name=name, kw=kw: m.mask_indices(n, getattr(m, name), **kw), [],
                          lambda n=n, name=name, kw=kw: np.mask_indices(n, getattr(np, name), **kw)))
    check(cases, compiled=False)  # (no size=: its result's length depends on values, as under jax.jit)


FILL_CASES = [  # (a's shape, val's shape, dtype)
    ((0, 0), (), F32), ((1, 2), (3, 2), I32), ((2, 2, 2, 2), (2,), F32),
]


def _np_fill_diagonal(a, val):
    a = a.copy()
    np.fill_diagonal(a, val)
    return a


def test_fill_diagonal():
    check([case(f"fill_diagonal {s} {vs} {d}", lambda m, a, v: m.fill_diagonal(a, v, inplace=False),
                [rand(s, d, i), rand(vs, d, i + 50)], _np_fill_diagonal)
           for i, (s, vs, d) in enumerate(FILL_CASES)])
    gradients_match(lambda m, a, v: m.fill_diagonal(a, v, inplace=False), [rand((3, 4), F32, 1), rand((2,), F32, 2)])


def test_diag_indices_from():
    shapes = [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5)]
    check([case(f"diag_indices_from {s}", lambda m, x: m.diag_indices_from(x), [rand(s, cycle([F32, I32], i), i)],
                np.diag_indices_from) for i, s in enumerate(shapes)])


DIAGFLAT_SHAPES = [PY, NP, (4,), (3, 4), (2, 1, 4), (3, 0)]


def test_diagflat():
    # a scalar is a length-1 array (jax.numpy; NumPy's own scalar handling differs: numpy/numpy#16477)
    cases = []
    for i, s in enumerate(DIAGFLAT_SHAPES):
        d = float if s == PY else cycle([F32, I32, F16], i)
        k = cycle(range(-4, 4), 3 * i)
        cases.append(case(f"diagflat {s} {d} k={k}", lambda m, x, k=k: m.diagflat(x, k), [rand(s, d, i)],
                          lambda x, k=k: np.diagflat(np.atleast_1d(x), k)))
    check(cases)
    gradients_match(lambda m, x: m.diagflat(x, -1), [rand((2, 3), F32, 1)])


# -- testPolyMul, testPolyDiv ------------------------------------------------------------------------------------

POLY_PAIRS = [((1,), (6,)), ((6,), (6,)), ((12,), (6,))]


def test_polymul():
    cases = []
    for i, (s1, s2) in enumerate(POLY_PAIRS):
        d = cycle([F32, I32], i)
        a1, a2 = rand(s1, d, i), rand(s2, d, i + 50)
        if i == 1:
            a1[:2] = 0  # leading zeros: trim_leading_zeros=True drops them, as NumPy
        cases.append(case(f"polymul {s1} {s2} {d}", lambda m, a, b: m.polymul(a, b, trim_leading_zeros=True),
                          [a1, a2], np.polymul, 5e-2))
    check(cases[1:2], compiled=False)  # (trimming depends on values: only the untrimmed form compiles)
    check([case(f"polymul {c[0]} untrimmed", lambda m, a, b: m.polymul(a, b), c[2], None, 5e-2) for c in cases])
    gradients_match(lambda m, a, b: m.polymul(a, b), cases[0][2])  # (float32; its kernels are compiled)


def _np_polydiv(u, v):
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        q, r = np.polydiv(u, v)
    while r.size < max(u.size, v.size):  # JAX's residual keeps the dividend's length
        r = np.pad(r, (1, 0))
    return q, r


def _tj_polydiv(m, u, v):
    q, r = m.polydiv(u, v, trim_leading_zeros=True)
    while r.size < max(u.size, v.size):
        r = m.pad(r, (1, 0))
    return q, r


def test_polydiv():
    cases = []
    for i, (s1, s2) in enumerate(POLY_PAIRS[1:]):
        d = cycle([F32, I32], i)
        v = rand(s2, d, i + 50)
        v[0] = 3  # a leading coefficient away from 0 (JAX's 5e-2 tolerance covers the rest)
        cases.append(case(f"polydiv {s1} {s2} {d}", _tj_polydiv, [rand(s1, d, i), v], _np_polydiv, 5e-2))
    check(cases[:1], compiled=False)  # (trimming depends on values: only the untrimmed form compiles)
    check([case(f"polydiv {c[0]} untrimmed", lambda m, u, v: m.polydiv(u, v), c[2], None, 5e-2) for c in cases])
    gradients_match(lambda m, u, v: m.polydiv(u, v), cases[0][2])  # (float32; its kernels are compiled)


# -- testInterp, testInterpExtrapoate, testInterpErrors, testInterpGradNan ----------------------------------------

INTERP_CASES = [  # (x's shape, x's dtype, fp's dtype, period, left, right)
    (PY, float, F32, None, None, None), ((4,), F32, F32, 0.59, None, None), ((2, 3), I32, C64, None, 0, 1),
]


def _interp_args(s, d, fd, i):
    x = rand(s, d, i, scale=10)
    xp = np.unique(rand((100,), F32 if d is float else d, i + 50, scale=10))[:20]
    return [x, xp, rand((20,), fd, i + 100)]


def test_interp():
    cases = [case(f"interp {s} {d} -> {fd} period={p} left={lo} right={hi}",
                  lambda m, x, xp, fp, p=p, lo=lo, hi=hi: m.interp(x, xp, fp, period=p, left=lo, right=hi),
                  _interp_args(s, d, fd, i),
                  lambda x, xp, fp, p=p, lo=lo, hi=hi: np.interp(x, xp, fp, period=p, left=lo, right=hi),
                  3e-3)
             for i, (s, d, fd, p, lo, hi) in enumerate(INTERP_CASES)]
    check(cases)  # (gradients: test_interp_grad_nan)


def test_interp_float16_keeps_float16():
    check([case("interp float16", lambda m, x, xp, fp: m.interp(x, xp, fp), _interp_args((4,), F16, F16, 0),
                lambda x, xp, fp: np.interp(x, xp, fp), 1e-2)], compiled=False)


@pytest.mark.parametrize("x,kw,want", [(0.5, {"left": "extrapolate"}, 5), (1.5, {"left": "extrapolate"}, 15),
                                       (3.5, {"left": "extrapolate"}, 30), (3.9, {"right": "extrapolate"}, 39)])
def test_interp_extrapolate(x, kw, want):
    xp, fp = tnp.array([1.0, 2.0, 3.0]), tnp.array([10.0, 20.0, 30.0])
    got = tnp.interp(x, xp, fp, **kw)
    assert got.dtype == jnp.interp(x, xp.value, fp.value, **kw).dtype
    np.testing.assert_allclose(float(got), want, rtol=1e-6)


@pytest.mark.parametrize("args,kw,phrase", [
    ((0.0, np.arange(2.0), np.arange(3.0)), {}, "xp and fp must be one-dimensional arrays of equal size"),
    ((0.0, np.arange(3.0), np.arange(3.0)), {"left": "interpolate"},
     "the only valid string value of `left` is 'extrapolate'"),
    ((0.0, np.arange(3.0), np.arange(3.0)), {"right": "interpolate"},
     "the only valid string value of `right` is 'extrapolate'"),
    ((1j, 1j * np.arange(3.0), np.arange(3.0)), {}, "complex x values"),
    ((0.0, np.arange(3.0), np.arange(3.0)), {"period": np.array([1.0])}, "period must be a scalar"),
])
def test_interp_errors(args, kw, phrase):
    with pytest.raises(ValueError):
        jnp.interp(*args, **kw)
    with pytest.raises(ValueError, match=phrase.replace("(", r"\(")):
        tnp.interp(*args, **kw)


def test_interp_grad_nan():
    # x and xp close to zero and close together: the gradient must stay finite (and be jax's); JAX's test runs
    # every period/left/right combination in every float dtype, this its period case in float32
    kw = {"period": 0.59}
    x = F32(np.exp(np.linspace(-90, -20, 1000)))
    want = jax.jit(jax.grad(lambda z: jnp.sum(jnp.interp(z, z, jnp.ones_like(z), **kw))))(x)
    t = tj.constant(x)
    with tj.GradientTape() as tape:
        tape.watch(t)
        y = tnp.sum(tnp.interp(t, t, tnp.ones_like(t), **kw))
    got = tape.gradient(y, t).numpy()
    assert np.all(np.isfinite(got)), kw
    np.testing.assert_allclose(got, want, err_msg=str(kw))


# -- testLdexp, testLdexpOverflow, testLdexpExtremeValues, testFrexp ---------------------------------------------

LDEXP_CASES = [  # (x1's shape, x2's shape, x1's dtype)
    ((), (), F32), ((3, 4), (4,), I32), ((1, 3), (4, 1), F32), ((4, 3), (), F16), ((0,), (1,), F32),
]  # x1 finite and nonzero: JAX's zeros, infs and nans (rand_some_zero, rand_some_inf_and_nan) meet exponents in
#    [-1075, 1024), where tj gives NaN (test_ldexp_of_zero_or_inf_by_a_large_exponent)


def _np_ldexp(x1, x2):
    out = np.float16 if x1.dtype == np.float16 else np.float32  # (dtypes.to_inexact_dtype, x64 off)
    with np.errstate(over="ignore"):
        return np.ldexp(x1.astype(out), x2)


def test_ldexp():
    cases = []
    for i, (s1, s2, d) in enumerate(LDEXP_CASES):
        x1 = rand(s1, d, i)
        x1 = np.where(x1 == 0, np.ones((), d), x1)
        x2 = np.random.RandomState(i + 50).randint(-1075, 1024, size=s2).astype(I32)
        cases.append(case(f"ldexp {s1} {s2} {d}", lambda m, a, b: m.ldexp(a, b), [x1, x2], _np_ldexp))
    check(cases)
    gradients_match(lambda m, a: m.ldexp(a, np.array([3, -2, 0, 7], I32)), [rand((4,), F32, 9)])


@pytest.mark.parametrize("dtype", [F32, F16, np.int8])
def test_ldexp_takes_a_bool_exponent(dtype):
    """A bool exponent is 0 or 1, as NumPy's and jax.numpy's ldexp take it (tj raised TypeError, saying jax.numpy
    did); the result's dtype is jax.numpy's."""
    x1 = np.array([1.5, -3.0, 0.25], dtype)
    x2 = np.array([True, False, True])
    got = tnp.ldexp(x1, x2)
    assert got.dtype == jnp.ldexp(x1, x2).dtype
    np.testing.assert_array_equal(got.numpy(), np.ldexp(x1, x2).astype(got.dtype))


@pytest.mark.parametrize("dtype", [F32, F16])
def test_ldexp_of_zero_or_inf_by_a_large_exponent(dtype):
    x1 = np.array([0.0, 0.0, np.inf, -np.inf, 0.0, np.inf, 1.0], dtype)
    x2 = np.array([1000, 200, -1000, -200, -1000, 1000, 3], I32)
    check([case("ldexp zeros and infs", lambda m, a, b: m.ldexp(a, b), [x1, x2], _np_ldexp)], compiled=False)


@pytest.mark.parametrize("dtype", [F32, F16])
def test_ldexp_overflow_and_extremes(dtype):
    # jax-ml/jax#28040: the largest exponent, and tiny / max scaled across the whole range, stay exact
    info = np.finfo(dtype)
    span = int(np.log2(float(info.max)) - np.log2(float(info.tiny))) - 1
    cases = [case(f"ldexp {dtype.__name__} overflow", lambda m, a, b: m.ldexp(a, b),
                  [np.array(0.5, dtype), np.array(1 << (info.nexp - 1), I32)],
                  lambda a, b: np.ldexp(a, b).astype(dtype)),
             case(f"ldexp {dtype.__name__} extremes", lambda m, a, b: m.ldexp(a, b),
                  [np.array([info.tiny, info.max], dtype), np.array([span, -span], I32)],
                  lambda a, b: np.ldexp(a, b).astype(dtype))]
    check(cases)


def test_ldexp_overflow_static_exponent_in_function():
    x = np.array(0.5, F32)
    want = jax.jit(jnp.ldexp, static_argnums=1)(x, 128)
    match(tj.function(tnp.ldexp)(x, 128), want, "ldexp(0.5, 128) in tj.function")


def _np_frexp(x):
    mantissa, exponent = np.frexp(x)
    return mantissa, np.where(np.isinf(mantissa), 0, exponent)  # Linux's exponent at inf


def test_frexp():
    shapes = [NP, (), (4,), (3, 4), (2, 1, 4), (0,), (2, 5)]
    kinds = ["some_inf_nan", "some_zero", "not_small"]
    cases = []
    for i, s in enumerate(shapes):
        kind, d = cycle(kinds, i), cycle([F32, F16, I32, F32], i)
        x = rand(s, d, i, "default" if kind == "not_small" else kind)
        if kind == "not_small":
            x = np.asarray(x + (np.sign(x) + (x == 0)) * (1e3 if d == F16 else 1e8)).astype(d)
        cases.append(case(f"frexp {s} {d} {kind}", lambda m, x: m.frexp(x), [x[()] if s == NP else x], _np_frexp))
    check(cases)
    gradients_match(lambda m, x: m.frexp(x)[0], [rand((5,), F32, 4)])


def test_trace_same_axes_error():
    a = np.arange(1, 13).reshape(2, 3, 2)
    with pytest.raises(ValueError, match="axis1 and axis2 can not be same"):
        tnp.trace(a, axis1=1, axis2=-2)


# -- testSearchsorted, testSearchsortedDtype, testSearchsortedNans, testDigitize, testDigitizeMethod --------------

SEARCH_CASES = [  # (a's shape, v's shape, side, dtype, method, use_sorter, use_method)
    ((15,), (), "left", F32, "sort", False, False), ((16,), (5,), "right", I32, "scan", True, False),
    ((17,), (5, 5), "left", F32, "scan_unrolled", False, True), ((15,), (5,), "right", F16, "compare_all", True, True),
    ((17,), (), "left", B, "scan", False, False), ((15,), (5,), "left", C64, "compare_all", False, False),
]


def test_searchsorted():
    cases = []
    for i, (sa, sv, side, d, method, use_sorter, use_method) in enumerate(SEARCH_CASES):
        a, v = rand(sa, d, i), rand(sv, d, i + 50)
        args = [a, v, np.argsort(a).astype(I32)] if use_sorter else [np.sort(a), v]

        def f(m, a, v, sorter=None, side=side, method=method, use_method=use_method):
            if use_method:
                return m.asarray(a).searchsorted(v, side=side, method=method, sorter=sorter)
            return m.searchsorted(a, v, side=side, method=method, sorter=sorter)
        cases.append(case(f"searchsorted {sa} {sv} {side} {d} {method} sorter={use_sorter} method={use_method}",
                          f, args, lambda a, v, sorter=None, side=side: np.searchsorted(a, v, side, sorter)))
    check(cases)


def test_searchsorted_dtype():
    # an array of 2**31 - 1 elements still takes int32 indices (abstractly: nothing that size is made)
    a = jax.ShapeDtypeStruct((np.iinfo(np.int32).max,), np.float32)
    v = jax.ShapeDtypeStruct((), np.float32)
    out = jax.eval_shape(lambda a, v: tnp.searchsorted(tj.Tensor(a), tj.Tensor(v)).value, a, v)
    assert out.dtype == jax.eval_shape(jnp.searchsorted, a, v).dtype == np.int32


@pytest.mark.parametrize("dtype", [F32, F16])
def test_searchsorted_nans(dtype):
    # the sign bit of 0 and of nan does not order them
    x = np.array([-np.inf, -1.0, 0.0, -0.0, 1.0, np.inf, np.nan, -np.nan], dtype=dtype)
    x_equiv = np.array([0, 1, 2, 2, 3, 4, 5, 5])
    combos = list(itertools.product(["left", "right"], ["sort", "scan", "compare_all"]))
    wants = jax.jit(lambda: [jnp.searchsorted(x_equiv, x_equiv, side=side, method=method)  # one XLA program
                             for side, method in combos])()
    outs = tj.function(lambda a: [tnp.searchsorted(a, a, side=side, method=method) for side, method in combos])(x)
    for (side, method), want, out in zip(combos, wants, outs):
        match(out, want, f"tj.function {side} {method}")
    for (side, method), want in every(2, zip(combos, wants), start=dtype == F16):  # (eagerly: half of them)
        match(tnp.searchsorted(x, x, side=side, method=method), want, f"{side} {method}")


DIGITIZE_CASES = [  # (x's shape, bins' shape, right, reverse, dtype, method)
    ((20,), (0,), False, False, F32, None), ((5, 4), (1,), True, False, I32, "scan"),
    ((20,), (5,), True, True, F32, "scan_unrolled"), ((5, 4), (5,), False, True, I32, "sort"),
    ((20,), (5,), False, False, F16, "compare_all"), ((5, 4), (0,), True, True, F32, "compare_all"),
    ((20,), (1,), False, True, I32, None), ((5, 4), (5,), True, False, F32, "sort"),
]


def test_digitize():
    cases = []
    for i, (sx, sb, right, reverse, d, method) in enumerate(DIGITIZE_CASES):
        bins = np.sort(rand(sb, d, i + 50))[::-1 if reverse else 1]
        cases.append(case(f"digitize {sx} {sb} right={right} reverse={reverse} {d} {method}",
                          lambda m, x, b, right=right, method=method: m.digitize(x, b, right=right, method=method),
                          [rand(sx, d, i), np.ascontiguousarray(bins)],
                          lambda x, b, right=right: np.digitize(x, b, right=right)))
    check(cases)


# -- testColumnStack, testStack, testHVDStack ---------------------------------------------------------------------

DTYPE_LISTS = [[F32], [F32, F32], [F32, I32, F32], [F32, I64, F32], [F32, I32, F64]]


def _inputs(shape, dtypes, seed, array_input):
    xs = [rand(shape, d, seed + j) for j, d in enumerate(dtypes)]
    return np.array(xs) if array_input else xs


def _promoted(f):
    """jtu.promote_like_jnp: NumPy's function on its inputs cast to jax.numpy's promoted dtype."""
    def g(xs, *args, **kwargs):
        xs = list(xs)
        dtype = jnp.result_type(*[np.asarray(x).dtype for x in xs])
        return f([np.asarray(x).astype(dtype) for x in xs], *args, **kwargs)
    return g


def test_column_stack():
    shapes = [(), (2,), (3, 4), (1, 5)]
    cases = [case(f"column_stack {s} {cycle(DTYPE_LISTS, i)} array={ai}", lambda m, xs: m.column_stack(xs),
                  [_inputs(s, cycle(DTYPE_LISTS, i), i, ai)], _promoted(np.column_stack))
             for i, (s, ai) in enumerate(itertools.product(shapes, [True, False]))]
    check(cases)
    gradients_match(lambda m, a, b: m.column_stack([a, b]), [rand((3,), F32, 1), rand((3, 2), F32, 2)])


def test_stack_dtype():
    cases = []
    for i, (s, ai, out) in enumerate(itertools.product([(), (2,), (3, 4), (1, 10)], [True, False], [F32, I32])):
        if i % 2:
            continue
        axis = cycle(list(range(-len(s) - 1, len(s) + 1)), i)
        dts = cycle(DTYPE_LISTS, i)
        cases.append(case(f"stack {s} {dts} axis={axis} array={ai} dtype={out.__name__}",
                          lambda m, xs, axis=axis, out=out: m.stack(xs, axis=axis, dtype=out),
                          [_inputs(s, dts, i, ai)],
                          _promoted(lambda xs, axis=axis, out=out: np.stack(xs, axis=axis, dtype=out,
                                                                            casting="unsafe"))))
    check(cases)
    gradients_match(lambda m, a, b: m.stack([a, b], axis=1, dtype=F32), [rand((3,), F32, 1), rand((3,), F32, 2)])


def test_hstack_vstack_dstack_dtype():
    cases = []
    combos = every(2, itertools.product(["hstack", "vstack", "dstack"], [(), (2,), (3, 4), (2, 3, 4)]))
    for i, (op, s) in enumerate(combos):
        out = cycle([F32, I32], i // 2)
        dts, ai = cycle(DTYPE_LISTS, i), i % 2 == 0
        if op == "dstack":  # NumPy's dstack has no dtype
            ref = _promoted(lambda xs, out=out: np.dstack(xs).astype(out))
        else:
            ref = _promoted(lambda xs, op=op, out=out: getattr(np, op)(xs, dtype=out, casting="unsafe"))
        cases.append(case(f"{op} {s} {dts} array={ai} dtype={out.__name__}",
                          lambda m, xs, op=op, out=out: getattr(m, op)(xs, dtype=out), [_inputs(s, dts, i, ai)], ref))
    check(cases)
    gradients_match(lambda m, a, b: m.hstack([a, b], dtype=F32), [rand((3,), F32, 1), rand((2,), F32, 2)])


# -- testWindowFunction, testDiff, testDiffBool, testDiffPrepoendScalar -------------------------------------------

def test_window_functions():
    cases = []
    for name, kw in [("blackman", {}), ("bartlett", {}), ("hamming", {}), ("hanning", {}), ("kaiser", {"beta": 1}),
                     ("kaiser", {"beta": 0.5})]:
        for size in [0, 1, 5] if name == "blackman" else [5]:
            cases.append(case(f"{name} {size} {kw}",
                              lambda m, name=name, size=size, kw=kw: getattr(m, name)(size, **kw), [],
                              lambda name=name, size=size, kw=kw: getattr(np, name)(size, **kw)))
    check(cases)


DIFF_CASES = [  # (shape, dtype, n, axis, prepend, append): prepend/append 0 is an array of zeros of x's shape
    ((4,), I32, 2, 0, 1, None), ((3, 4), F32, 0, -2, None, None), ((3, 4), I32, 1, 1, 0, 1),
    ((1, 4), F16, 1, -1, 0, 0), ((2, 1, 4), F32, 2, -3, None, 1),
]  # (n=0 with prepend or append: test_diff_n0_ignores_prepend_and_append)


def test_diff():
    cases = []
    for i, (s, d, n, axis, pre, app) in enumerate(DIFF_CASES):
        pre = np.zeros(s, d) if pre == 0 else pre
        app = np.zeros(s, d) if app == 0 else app
        kw = dict(n=n, axis=axis, prepend=pre, append=app)
        np_kw = {k: v for k, v in kw.items() if v is not None}
        cases.append(case(f"diff {s} {d} n={n} axis={axis} prepend={np.shape(pre)} append={np.shape(app)}",
                          lambda m, x, kw=kw: m.diff(x, **kw), [rand(s, d, i)],
                          lambda x, np_kw=np_kw: np.diff(x, **np_kw)))
    cases.append(case("diff bool", lambda m, x: m.diff(x), [rand((10,), B, 3)], np.diff))
    check(cases)
    gradients_match(lambda m, x: m.diff(x, n=2, axis=0, prepend=1.0, append=np.zeros((3, 4), F32)),
                    [rand((3, 4), F32, 1)])
    gradients_match(lambda m, x, p: m.diff(x, axis=-1, prepend=p), [rand((3, 4), F32, 2), rand((3, 1), F32, 3)])


@pytest.mark.parametrize("kw", [{"append": 0}, {"prepend": 1}])
def test_diff_n0_ignores_prepend_and_append(kw):
    x = rand((3, 4), F32, 1)
    kw = {k: np.zeros((3, 4), F32) if v == 0 else v for k, v in kw.items()}
    check([case(f"diff n=0 {list(kw)}", lambda m, x: m.diff(x, n=0, axis=0, **kw), [x],
                lambda x: np.diff(x, n=0, axis=0, **kw))], compiled=False)


def test_diff_prepend_scalar():
    # jax-ml/jax#19362: prepend and append given as 0-d arrays
    x = tnp.arange(10)
    got = tnp.diff(x, prepend=x[0], append=x[-1])
    xn = np.arange(10, dtype=I32)
    match(got, jnp.diff(xn, prepend=xn[0], append=xn[-1]), "diff scalar prepend")
    np.testing.assert_array_equal(got.numpy(), np.diff(xn, prepend=xn[0], append=xn[-1]))


# -- testOnesWithInvalidShape, testFullLike, testZerosOnesLike, testDuckTypedLike ---------------------------------

def test_ones_with_invalid_shape():
    with pytest.raises(TypeError):
        jnp.ones((-1, 1))
    with pytest.raises(TypeError):
        tnp.ones((-1, 1))


LIKE_SHAPES = [(), (4,), (3, 4), (2, 1, 4), (0,), (0, 4), (3, 0)]


def test_full_like_shape():
    cases = []
    for i, (s, out_shape) in enumerate(zip(LIKE_SHAPES, [(3,), None, (2, 1, 4), (0,), (3, 4), (), (4,)])):
        fill_shape = cycle([(), (), (s if out_shape is None else out_shape)[-1:]], i)
        d, fd, od = cycle([F32, I32], i), cycle([I32, F32, F32], i), cycle([F32, I32, F16], i)
        cases.append(case(f"full_like {s} {d} fill {fill_shape} {fd} dtype={od} shape={out_shape}",
                          lambda m, x, v, od=od, sh=out_shape: m.full_like(x, v, dtype=od, shape=sh),
                          [rand(s, d, i), rand(fill_shape, fd, i + 50)],
                          lambda x, v, od=od, sh=out_shape: np.full_like(x, v, dtype=od, shape=sh)))
    check(cases)


def test_zeros_ones_like():
    cases = []
    for i, (func, s) in enumerate(itertools.product(["zeros_like", "ones_like"], LIKE_SHAPES)):
        out_shape = cycle([None] + LIKE_SHAPES, i + 1)
        d, od = cycle([F32, I32, F16], i), cycle([I32, F32], i)
        cases.append(case(f"{func} {s} {d} dtype={od} shape={out_shape}",
                          lambda m, x, func=func, od=od, sh=out_shape: getattr(m, func)(x, dtype=od, shape=sh),
                          [rand(s, d, i)],
                          lambda x, func=func, od=od, sh=out_shape: getattr(np, func)(x, dtype=od, shape=sh)))
    check(cases)


@pytest.mark.parametrize("func,args", [("zeros_like", ()), ("ones_like", ()), ("empty_like", ()),
                                       ("full_like", (2,))])
def test_like_of_duck_typed_array(func, args):
    x = jax.ShapeDtypeStruct((1, 2, 3), np.dtype("int32"))
    got = getattr(tnp, func)(x, *args)
    match(got, getattr(jnp, func)(x, *args), func)


# -- testArraySplitStaticInt, testSplitTypeError -------------------------------------------------------------------

def test_array_split():
    splits = [((3,), 0, 2), ((12,), 0, 5), ((12, 4), 0, 7), ((12, 4), 1, 3), ((2, 3, 5), -1, 2), ((2, 4, 4), -2, 3),
              ((7, 2, 2), 0, 3)]
    check([case(f"array_split {s} axis={a} n={n}", lambda m, x, a=a, n=n: m.array_split(x, n, axis=a),
                [rand(s, cycle([F32, I32], i), i)], lambda x, a=a, n=n: np.array_split(x, n, axis=a))
           for i, (s, a, n) in enumerate(splits)])


def test_split_indices_kinds():
    # an array of indices is fine eagerly
    assert len(tnp.split(tnp.zeros(3), tnp.array([1, 2]))) == 3
    # a traced index (a tj.function argument), alone or in a list, cannot fix the result's shapes: TypeError, as
    # jax.jit's ConcretizationTypeError (a TypeError)
    with pytest.raises(TypeError):
        tj.function(lambda idx: tnp.split(tnp.zeros((12, 2)), idx))(tj.constant(2.0))
    with pytest.raises(TypeError):
        tj.function(lambda idx: tnp.split(tnp.zeros((12, 2)), [2, idx]))(tj.constant(2))
    # a value under forward-mode differentiation is still known (jax.jvp's concrete tracer): no error
    want1 = jax.jvp(lambda idx: jnp.split(jnp.zeros((12, 2)), idx), (2.0,), (1.0,))[0]
    want2 = jax.jvp(lambda idx: jnp.split(jnp.zeros((12, 2)), (1, idx.astype(np.int32))), (2.0,), (1.0,))[0]
    idx = tj.constant(2.0)
    with tj.ForwardAccumulator(idx, tj.constant(1.0)):
        got1 = tnp.split(tnp.zeros((12, 2)), idx)
        got2 = tnp.split(tnp.zeros((12, 2)), (1, idx.astype(np.int32)))
    match(got1, want1, "split by a float index")
    match(got2, want2, "split by a tuple holding an index")


# -- testHistogramBinEdges, testHistogram, testHistogram2d, testHistogramdd ---------------------------------------
# (weights are drawn non-negative, as JAX's abs(w); ``u`` says whether a case passes them)

def _w(w, use):
    return w if use else None


def _pos(shape, dtype, seed):
    return np.abs(rand(shape, dtype, seed))


def test_histogram_bin_edges():
    cases = []
    combos = itertools.product([(5,), (5, 5)], [10, np.arange(-5, 6), np.array([-5, 0, 3])], [None, (0, 0), (0, 10)])
    for i, (s, bins, rng) in enumerate(combos):
        if i % 3:
            continue
        d, use_w = cycle([F32, I32, F16], i // 3), i % 2 == 0
        cases.append(case(f"histogram_bin_edges {s} {d} bins={bins} range={rng} weights={use_w}",
                          lambda m, a, w, bins=bins, rng=rng, u=use_w: m.histogram_bin_edges(
                              a, bins=bins, range=rng, weights=_w(w, u)),
                          [rand(s, d, i), _pos(s, d, i + 50)],
                          lambda a, w, bins=bins, rng=rng, u=use_w: np.histogram_bin_edges(
                              a, bins=bins, range=rng, weights=_w(w, u)),
                          1e-2 if d == F16 else None))
    check(cases)


def test_histogram():
    cases = []
    for i, (s, bins, density, use_w) in enumerate(itertools.product(
            [(5,), (4, 5)], [np.arange(-5, 6), np.array([-5, 0, 3])], [True, False], [True, False])):
        if i % 5:
            continue
        d = cycle([F32, I32], i // 5)
        cases.append(case(f"histogram {s} {d} bins={bins} density={density} weights={use_w}",
                          lambda m, a, w, bins=bins, dn=density, u=use_w: m.histogram(
                              a, bins=bins, density=dn, weights=_w(w, u)),
                          [rand(s, d, i), _pos(s, d, i + 50)],
                          lambda a, w, bins=bins, dn=density, u=use_w: np.histogram(
                              a, bins=bins, density=dn, weights=_w(w, u))))
    check(cases)
    a, w = cases[0][2]  # (float32 data and weights, density=True: its kernels are compiled)
    gradients_match(lambda m, w: m.histogram(a, bins=np.arange(-5, 6), weights=w, density=True)[0], [w])


def test_histogram_float16_weights_dtype():
    a, w = rand((5,), F16, 1), _pos((5,), F16, 2)
    got = tnp.histogram(a, bins=2, weights=w)[0]
    ref = jax.eval_shape(lambda a, w: jnp.histogram(a, bins=2, weights=w)[0], a, w)
    assert got.dtype == ref.dtype == np.float16


HIST2D_CASES = [  # (shape, bins, weights, density, range)
    ((12,), [2, 2], False, False, [(-1, 1), None]),
    ((12,), [np.array([0, 1, 3, 5]), np.array([0, 2, 3, 4, 6])], True, True, None),
]


def test_histogram2d():
    cases = []
    for i, (s, bins, use_w, density, rng) in enumerate(HIST2D_CASES):
        kw = dict(bins=bins, density=density, range=rng)

        def ref(a, b, w, kw=kw, u=use_w):
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.histogram2d(a, b, weights=_w(w, u), **kw)
        cases.append(case(f"histogram2d {s} {kw} weights={use_w}",
                          lambda m, a, b, w, kw=kw, u=use_w: m.histogram2d(a, b, weights=_w(w, u), **kw),
                          [rand(s, I32, i), rand(s, I32, i + 50), _pos(s, I32, i + 100)], ref))
    check(cases)  # (weights' gradients: test_histogram)


HISTDD_CASES = [  # (shape, bins, weights, density, range)
    ((10, 3), [np.array([-5, 0, 4]), np.array([-4, -1, 2]), np.array([-6, -1, 4])], True, False,
     [(-1, 1), None, None]),
    ((10, 3), (2, 2, 2), True, True, [(-1, 1), (-2, 2), (-3, 3)]),
]


def test_histogramdd():
    cases = []
    for i, (s, bins, use_w, density, rng) in enumerate(HISTDD_CASES):
        kw = dict(bins=bins, density=density, range=rng)

        def ref(a, w, kw=kw, u=use_w):
            with np.errstate(divide="ignore", invalid="ignore"):
                h, edges = np.histogramdd(a, weights=_w(w, u), **kw)
            return [h] + list(edges)

        def f(m, a, w, kw=kw, u=use_w):
            h, edges = m.histogramdd(a, weights=_w(w, u), **kw)
            return [h] + list(edges)
        cases.append(case(f"histogramdd {s} {kw} weights={use_w}", f, [rand(s, I32, i), _pos(s[:1], I32, i + 50)],
                          ref))
    check(cases)


# -- testResize, testExpandDimsStaticDim, testExpandDimsRepeatedAxisError, testSqueeze ----------------------------

RESIZE_CASES = [(PY, (3,)), (NP, (2, 2)), ((4,), (3, 4)), ((3, 4), (5,)), ((2, 3, 4), (3, 0)), ((0,), (4,)),
                ((1, 4), (3, 1))]


def test_resize():
    check([case(f"resize {s} -> {o}", lambda m, x, o=o: m.resize(x, o),
                [rand(s, float if s == PY else cycle([F32, I32], i), i)], lambda x, o=o: np.resize(x, o))
           for i, (s, o) in enumerate(RESIZE_CASES)])
    gradients_match(lambda m, x: m.resize(x, (5, 3)), [rand((3, 4), F32, 1)])


def test_expand_dims_array_and_sequence_axes():
    cases = []
    for i, (s, dim) in enumerate(itertools.product([(), (3,), (3, 4)], ["a0", "a-1", (0,), "l", "ends"])):
        nd = len(s)
        axis = {"a0": np.array(0), "a-1": np.array(-1), "l": [np.array(0)], "ends": (nd, nd + 1)}.get(dim, dim)
        cases.append(case(f"expand_dims {s} {axis!r}", lambda m, x, axis=axis: m.expand_dims(x, axis),
                          [rand(s, cycle([F32, I32], i), i)], lambda x, axis=axis: np.expand_dims(x, axis)))
    check(cases)


@pytest.mark.parametrize("axis", [[1, 1], [3, -1]])
def test_expand_dims_repeated_axis_error(axis):
    # (NumPy raises the same)
    with pytest.raises(ValueError, match="repeated axis"):
        np.expand_dims(np.ones((2, 3)), axis)
    with pytest.raises(ValueError):
        tnp.expand_dims(tnp.ones((2, 3)), axis)


def test_squeeze_array_axes():
    cases = [((3, 1), -1), ((3, 1), np.array(1)), ((1, 4, 1), (np.array(0),))]
    check([case(f"squeeze {s} {a!r}", lambda m, x, a=a: m.squeeze(x, a), [rand(s, cycle([F32, I32], i), i)],
                lambda x, a=a: np.squeeze(x, a)) for i, (s, a) in enumerate(cases)])


# -- testArrayFromMasked, testAsarrayCopy, testAsarrayWithCopyFalse, testArrayDtypeInference ----------------------

def test_array_from_masked():
    x = np.ma.array([1, 2], mask=[True, False])
    match(tnp.array(x), jnp.array(x), "array of a masked array")


def test_asarray_of_masked_array_in_function_raises():
    # jax.jit(jnp.asarray)(masked): ValueError (jnp.asarray raises it eagerly too)
    with pytest.raises(ValueError, match="masked"):
        tj.function(tnp.asarray)(np.ma.array([1, 2], mask=[True, False]))


@pytest.mark.parametrize("copy", [None, True, False])
def test_asarray_copy(copy):
    want = jnp.arange(4)
    for label, x in [("Tensor", tnp.arange(4)), ("list", [0, 1, 2, 3]), ("numpy", np.arange(4)),
                     ("buffer", pyarray.array("l", [0, 1, 2, 3]))]:
        got = tnp.asarray(x, copy=copy)
        match(got, jnp.asarray(x.value if isinstance(x, tj.Tensor) else x, copy=copy), label)
        np.testing.assert_array_equal(got.numpy(), want)


def test_asarray_copy_false_on_cpu():
    # the CPU half of testAsarrayWithCopyFalse: no copy is needed, so copy=False is fine
    cpu = jax.local_devices(backend="cpu")[0]
    for x in [np.arange(4), pyarray.array("l", [0, 1, 2, 3])]:
        for kw in [{"device": cpu}, {"device": jax.sharding.SingleDeviceSharding(cpu)}]:
            np.testing.assert_array_equal(tnp.asarray(x, copy=False, **kw).numpy(), np.arange(4))
        with jax.default_device(cpu):
            np.testing.assert_array_equal(tnp.asarray(x, copy=False).numpy(), np.arange(4))
            np.testing.assert_array_equal(tnp.asarray(x, copy=False, device=None).numpy(), np.arange(4))


def test_array_dtype_inference():
    # x64 off: Python numbers and lists give int32 / float32 / complex64; mixed inputs promote as jax.numpy
    objects = [1, 1.0, 1.0j, [1], [1.0], [1.0j], [jnp.array(1)], [jnp.array(1.0)], [jnp.array(1.0j)],
               [jnp.int32(1)], [jnp.float32(1)], [jnp.complex64(1)], [0, np.int16(1)], [0.0, np.float16(1)],
               [tj.constant(1), 2], [tnp.array(1.0), 2]]
    for obj in objects:
        ref = jnp.array(jax.tree.map(lambda v: v.value if isinstance(v, tj.Tensor) else v, obj,
                                     is_leaf=lambda v: isinstance(v, tj.Tensor)))
        match(tnp.array(obj), ref, repr(obj))
    assert tnp.array([0, np.int16(1)]).dtype == np.int16
    assert tnp.array([0.0, np.float16(1)]).dtype == np.float16
    for obj in [[1], [1.0], [1.0j], [0, np.int16(1)]]:
        # one tj.function each: Python numbers are static and, as in TF's tf.function, 1 == 1.0 == True share a
        # trace (TF 2.21: tf.function(tf.constant) called with 1.0, then 1, then True gives float32 thrice)
        assert tj.function(lambda x: tnp.array(x))(obj).dtype == jnp.array(obj).dtype, obj


def test_array_copy_autodiff():
    x = np.ones(10, F32)
    gradients_match(lambda m, x: m.array(x, copy=True), [x])
    t = tj.constant(x)
    assert tnp.array(t, copy=True) is not t


def test_array_copy_vmap():
    x = jnp.ones(10)
    y = jax.vmap(lambda v: tnp.array(tj.Tensor(v), copy=True).value)(x)
    np.testing.assert_array_equal(np.asarray(y), np.ones(10))


def test_array_unsupported_dtype_error():
    with pytest.raises(TypeError, match="JAX only supports number, bool, and string dtypes"):
        tnp.array(3, [("a", "<i4"), ("b", "<i4")])


def test_array_from_integer_and_list():
    info = np.iinfo(np.int32)
    for val in [int(info.min), 0, int(info.max)]:
        assert tnp.array(val).dtype == jnp.array(val).dtype == np.int32
        assert tnp.array([val]).dtype == np.int32
    with pytest.raises(OverflowError):
        jnp.array(int(info.max) + 1)
    with pytest.raises(OverflowError):
        tnp.array(int(info.max) + 1)
    assert tnp.array([0, np.float16(1)]).dtype == jnp.result_type("int32", "float16")
    with pytest.raises(OverflowError):
        tnp.array([0, int(np.iinfo(np.int64).min) - 1])


def test_array_none():
    with pytest.raises(ValueError, match="None is not a valid value"):
        tnp.array([0.0, None])


class _NDArrayLike:
    def __array__(self, dtype=None, copy=None):
        return np.array([], dtype=dtype)


class _JaxArrayLike:
    def __jax_array__(self):
        return jnp.array(3.0)


def test_array_outputs_tensors_and_jax_array_protocol():
    for obj in [[], np.array([]), _NDArrayLike()]:
        assert type(tnp.array(obj)) is tj.Tensor
    want = jax.jit(lambda: jnp.array(3.0) * jnp.arange(10.0))()  # one XLA program
    match(_JaxArrayLike() * tnp.arange(10.0), want, "__jax_array__ * Tensor")
    match(tnp.multiply(_JaxArrayLike(), tnp.arange(10.0)), want, "multiply(__jax_array__, Tensor)")


# -- testIsScalar, testIsNotScalar, testIsComplexObj, testIsClose, testIsCloseCornerCases -------------------------

@pytest.mark.parametrize("value,want", [
    (False, True), (1, True), (1.0, True), (np.int32(5), True), (np.array(16), True),
    (None, False), ([1], False), (slice(4), False), ((), False), (np.array([0]), False),
    ("Tensor 3.0", True), ("Tensor [3.0]", False),  # a 0-d Tensor is a scalar, as jax.numpy's 0-d array
])
def test_isscalar(value, want):
    if isinstance(value, str):
        value = tj.constant(3.0 if value == "Tensor 3.0" else [3.0])
    assert tnp.isscalar(value) is want
    assert jnp.isscalar(value.value if isinstance(value, tj.Tensor) else value) is want


def test_iscomplexobj():
    fn = tj.function(lambda x: tnp.iscomplexobj(x))
    for val in [1 + 1j, [1 + 1j], jnp.pi, np.arange(2)]:
        want = np.iscomplexobj(val)
        assert jnp.iscomplexobj(val) == tnp.iscomplexobj(val) == want, val
        assert bool(fn(val)) == want, val
    assert tnp.iscomplexobj(tj.constant([1 + 1j])) and not tnp.iscomplexobj(tj.constant([1.0]))


def test_isclose():
    r = np.random.RandomState(0)
    n = 2
    x, y = r.randn(n, 1), r.randn(n, 1)
    inf, nan = np.full((n, 1), np.inf), np.full((n, 1), np.nan)
    args = [x, y, inf, -inf, nan]
    # every pair once (isclose is symmetric here), equal_nan alternating
    pairs = [(i, j, n % 2 == 0) for n, (i, j) in enumerate(itertools.combinations_with_replacement(range(5), 2))]
    cases = [case(f"isclose #{i} #{j} equal_nan={en}", lambda m, a, b, en=en: m.isclose(a, b, equal_nan=en),
                  [args[i], args[j]], lambda a, b, en=en: np.isclose(a, b, equal_nan=en)) for i, j, en in pairs]
    cases.append(case("isclose 6 10 rtol=0.5", lambda m: m.isclose(6, 10, rtol=0.5), [],
                      lambda: np.isclose(6, 10, rtol=0.5)))
    check(cases)
    key = tj.random.key(0)
    assert bool(tnp.isclose(key, key))


@pytest.mark.parametrize("atol,rtol", [(0.0, 0.0), (0.0, 1e-4), (1e-4, 0.0), (1e-4, 1e-4)])
def test_isclose_corner_cases(atol, rtol):
    vals = np.array([-np.nan, -np.inf, -1.00001, -1.0, -0.00001, -0.0, 0.0, 0.00001, 1.0, 1.00001, np.inf, np.nan])
    x, y = np.meshgrid(vals, vals)
    for equal_nan in [True, False]:
        want = np.isclose(x, y, atol=atol, rtol=rtol, equal_nan=equal_nan)
        match(tnp.isclose(x, y, atol=atol, rtol=rtol, equal_nan=equal_nan), want, f"equal_nan={equal_nan}")


# -- testRavelMultiIndex, testRavelMultiIndexDtype, testChoose, testUnravelIndex ---------------------------------

def _multi_index(shape, seed, in_bounds):
    """One index array per axis, of ranks 0, 1, 2... that broadcast; out of bounds by one at most unless
    ``in_bounds``."""
    r = np.random.RandomState(seed)
    return tuple(r.randint(0 if in_bounds else -1, dim + (0 if in_bounds else 1), size=k * (3,)).astype(I32)
                 for k, dim in enumerate(shape))


def test_ravel_multi_index():
    cases = []
    combos = every(3, itertools.product([(4,), (3, 4), (3, 1), (2, 1, 4), (2, 3, 4)], ["C", "F"], ["wrap", "clip"]))
    for i, (s, order, mode) in enumerate(combos):
        kw = dict(dims=s, order=order, mode=mode)
        cases.append(case(f"ravel_multi_index {s} {order} {mode}",
                          lambda m, idx, kw=kw: m.ravel_multi_index(idx, **kw), [_multi_index(s, i, in_bounds=False)],
                          lambda idx, kw=kw: np.ravel_multi_index(idx, **kw)))
    check(cases)
    # mode='raise': NumPy's values where the indices fit, ValueError where one does not; traced: TypeError (jax.jit:
    # ConcretizationTypeError)
    for i, s in enumerate([(3, 4), (2, 1, 4)]):
        ok = _multi_index(s, 10 + i, in_bounds=True)
        match(tnp.ravel_multi_index(ok, s, mode="raise"), jnp.ravel_multi_index(ok, s, mode="raise"), "raise")
        np.testing.assert_array_equal(tnp.ravel_multi_index(ok, s, mode="raise").numpy(),
                                      np.ravel_multi_index(ok, s, mode="raise"))
        bad = tuple(np.full(np.shape(a), d, I32) for a, d in zip(ok, s))
        with pytest.raises(ValueError, match="invalid entry"):
            tnp.ravel_multi_index(bad, s, mode="raise")
        with pytest.raises(TypeError):
            tj.function(lambda idx, s=s: tnp.ravel_multi_index(idx, s, mode="raise"))(ok)


@pytest.mark.parametrize("in_dtype", [I8, I32, U16])
def test_ravel_multi_index_dtype(in_dtype):
    idx = np.array([0, 1], dtype=in_dtype)
    for out_dtype in [None, I32]:
        def fn(i, od=out_dtype):
            return tnp.ravel_multi_index((i, i), dims=(2, 3), mode="ignore", dtype=od)
        for got in [fn(idx), tj.function(fn)(idx)]:
            assert got.dtype == (out_dtype or in_dtype)
            match(got, jax.jit(lambda: jnp.ravel_multi_index((idx, idx), dims=(2, 3), mode="ignore",
                                                             dtype=out_dtype))(), "dtype")  # one XLA program


def test_choose():
    cases = []
    combos = every(3, itertools.product([(), (4,), (3, 4)], [[(), (4,)], [(3, 4), (4,), (3, 1)]], ["wrap", "clip"]))
    for i, (sa, cshapes, mode) in enumerate(combos):
        n, cd = len(cshapes), cycle([F32, I32], i)
        a = np.random.RandomState(i).randint(-1, n + 1, size=sa).astype(I32)
        cs = [rand(s, cd, i + 50 + j) for j, s in enumerate(cshapes)]
        cases.append(case(f"choose {sa} {cshapes} {cd} {mode}", lambda m, a, c, mode=mode: m.choose(a, c, mode=mode),
                          [a, cs], lambda a, c, mode=mode: np.choose(a, c, mode=mode)))
    check(cases)
    a = np.array([[0, 1, 2, 1], [2, 0, 0, 1], [1, 1, 2, 0]], I32)
    cs = [rand((3, 4), F32, 1), rand((4,), F32, 2), rand((3, 1), F32, 3)]
    match(tnp.choose(a, cs, mode="raise"), np.choose(a, cs, mode="raise"), "choose raise")
    with pytest.raises(ValueError, match="invalid entry"):
        tnp.choose(a + 1, cs, mode="raise")
    with pytest.raises(TypeError):
        tj.function(lambda a, c: tnp.choose(a, c, mode="raise"))(a, cs)
    gradients_match(lambda m, x, y: m.choose(a % 2, [x, y], mode="clip"), [rand((3, 4), F32, 4), rand((4,), F32, 5)])


def test_unravel_index():
    # indices in [0, size): NumPy's, jax.numpy's and tj's rules agree (outside it: the next two tests)
    cases = []
    for i, (s, idx_shape) in enumerate(zip([(4,), (3, 4), (3, 1), (2, 3, 4)], [NP, (), (4,), (3, 4)])):
        d = cycle([I32, I8, U8, np.int16], i)
        size = int(np.prod(s))
        idx = np.random.RandomState(i).randint(0, size, size=() if idx_shape == NP else idx_shape).astype(d)
        cases.append(case(f"unravel_index {idx_shape} {np.dtype(d)} into {s}",
                          lambda m, idx, s=s: m.unravel_index(idx, s), [idx[()] if idx_shape == NP else idx],
                          lambda idx, s=s: [i.astype(idx.dtype) for i in np.unravel_index(idx, s)]))
    check(cases)


def test_unravel_index_out_of_bounds_eagerly_raises():
    # sanctioned: NumPy's ValueError where the values are known (jax.numpy clips, wrapping negative ones)
    for bad in [np.array([3, 12], I32), np.array([-1, 2], I32)]:
        with pytest.raises(ValueError):
            np.unravel_index(bad, (3, 4))
        with pytest.raises(ValueError, match="out of bounds"):
            tnp.unravel_index(bad, (3, 4))


def test_unravel_index_out_of_bounds_in_function_clips_as_jax():
    idx = np.array([-13, -5, 0, 3, 20], I32)
    want = jax.jit(lambda i: jnp.unravel_index(i, (3, 4)))(idx)  # one XLA program
    match(tj.function(lambda i: tnp.unravel_index(i, (3, 4)))(idx), want, "traced")


# -- testAstype, testAstypeBool, testAstypeComplexDowncast, testNbytes, testItemsize, testItem --------------------

def test_astype():
    cases = []
    r = np.random.RandomState(0)
    combos = itertools.product([I32, F32], [I32, F32, None], [True, False])
    for i, (frm, to, use_method) in enumerate(combos):
        x = r.randn(3, 4).astype(frm)
        f = (lambda m, x, to=to: m.asarray(x).astype(to)) if use_method else (lambda m, x, to=to: m.astype(x, to))
        cases.append(case(f"astype {frm.__name__} -> {to} method={use_method}", f, [x],
                          lambda x, to=to: np.asarray(x).astype(to)))
    for i, (frm, use_method) in enumerate(itertools.product([I32, F32, C64], [True, False])):
        x = rand((3, 4), frm, i, "some_zero")
        f = (lambda m, x: m.asarray(x).astype(bool)) if use_method else (lambda m, x: m.astype(x, bool))
        cases.append(case(f"astype {frm.__name__} -> bool method={use_method}", f, [x], lambda x: x.astype(bool)))
    check(cases)


def test_astype_complex_downcast_warns():
    x = tnp.array(2.0 + 1.5j, dtype="complex64")
    with pytest.warns(DeprecationWarning, match="Casting from complex to real dtypes"):
        jnp.array(2.0 + 1.5j, dtype="complex64").astype("float32")
    with pytest.warns(DeprecationWarning, match="Casting from complex to real dtypes"):
        got = x.astype("float32")
    assert got.dtype == np.float32 and float(got) == 2.0


NBYTES_CASES = [((), F32), ((4,), I32), ((3, 4), B), ((2, 1, 4), C64), ((0,), F16), ((3, 0), I8), ((3, 4), U16)]


def test_nbytes_itemsize():
    for i, (s, d) in enumerate(NBYTES_CASES):
        x = rand(s, d, i)
        t, a = tnp.asarray(x), jnp.asarray(x)
        assert (t.nbytes, t.itemsize) == (a.nbytes, a.itemsize) == (x.nbytes, x.itemsize), (s, d)
    fn = tj.function(lambda x: (tnp.asarray(x).nbytes, tnp.asarray(x).itemsize))
    nbytes, itemsize = fn(np.ones((3, 4), F32))
    assert (int(nbytes), int(itemsize)) == (48, 4)


@pytest.mark.parametrize("shape", [(), (4,), (3, 4), (2, 1, 4)])
def test_item(shape):
    r = np.random.RandomState(len(shape))
    for i, d in enumerate([F32, I32, B, C64, F16]):
        x = rand(shape, d, i)
        t, size = tnp.asarray(x), x.size
        for args in [(r.randint(0, size),), tuple(r.randint(0, s) for s in shape)]:
            for a in [args, (args,)]:
                got = t.item(*a)
                assert got == x.item(*a) and type(got) is type(x.item(*a)), (shape, d, a)
        if size != 1:
            with pytest.raises(ValueError):
                t.item()
        else:
            assert t.item() == x.item()


# -- testNpMean, testArangeTypes -----------------------------------------------------------------------------------

def test_np_mean_of_tensor():
    # jax-ml/jax#125: NumPy's mean of a Tensor
    ans = np.mean(tnp.eye(3, dtype=float) + 0.0)
    np.testing.assert_allclose(ans, 1.0 / 3, rtol=1e-6)


def test_arange_types():
    assert tnp.arange(10).dtype == np.int32
    assert tnp.arange(10.0).dtype == np.float32
    assert tnp.arange(10, dtype="uint16").dtype == np.uint16
    assert tnp.arange(10, dtype="bfloat16").dtype == jnp.bfloat16
    assert tnp.arange(0, 10, 1).dtype == np.int32
    assert tnp.arange(0, 10, 1.0).dtype == np.float32
    assert tnp.arange(0.0, 10, 1).dtype == np.float32


# -- testSort, testSortStableDescending, testSortComplex, testLexsort --------------------------------------------

NO_VALUE = "no axis"
SORT_SHAPES = [(4,), (3, 4), (3, 1), (2, 1, 4), (0,), (0, 4), (3, 0)]


def _axes(shape):
    return [NO_VALUE, None] + list(range(-len(shape), len(shape)))


def test_sort():
    cases = []
    for i, s in enumerate(SORT_SHAPES + [(2, 3, 4)]):
        axis, stable, use_method = cycle(_axes(s), i), i % 2 == 0, i % 3 == 0
        d = cycle([F32, I32, B, C64, F16], i)
        x = rand(s, d, i, "some_equal" if stable or d == C64 else "some_inf_nan")
        kw = {} if axis is NO_VALUE else {"axis": axis}

        def f(m, x, kw=kw, st=stable, use_method=use_method):
            return m.asarray(x).sort(stable=st, **kw) if use_method else m.sort(x, stable=st, **kw)
        cases.append(case(f"sort {s} {d} {kw} stable={stable} method={use_method}", f, [x],
                          lambda x, kw=kw: np.sort(x, kind="stable", **kw)))
    check(cases)
    gradients_match(lambda m, x: m.sort(x, axis=None, descending=True), [rand((3, 4), F32, 2)])


def test_sort_stable_descending():
    x = np.array([0, 1, np.nan, 0, 2, np.nan, -np.inf, np.inf], F32)
    x_sorted = np.array([-np.inf, 0, 0, 1, 2, np.inf, np.nan, np.nan], F32)
    check([case("sort", lambda m, x: m.sort(x), [x], lambda x: x_sorted),
           case("sort descending", lambda m, x: m.sort(x, descending=True), [x], lambda x: x_sorted[::-1]),
           case("argsort", lambda m, x: m.argsort(x), [x], lambda x: np.array([6, 0, 3, 1, 4, 7, 2, 5])),
           case("argsort descending", lambda m, x: m.argsort(x, descending=True), [x],
                lambda x: np.array([2, 5, 7, 4, 1, 0, 3, 6]))])


def test_sort_complex():
    cases = [case(f"sort_complex {s} {d}", lambda m, x: m.sort_complex(x), [rand(s, d, i, "some_equal")],
                  np.sort_complex)
             for i, (s, d) in enumerate(zip(SORT_SHAPES, [F32, I32, B, C64, F16, I8, F32]))]
    check(cases)
    gradients_match(lambda m, x: m.sort_complex(x), [rand((5,), F32, 3)])


def test_lexsort():
    cases = []
    for i, (s, input_type) in enumerate(zip([(4,), (3, 4), (3, 1), (2, 3, 4)], [np.array, tuple] * 2)):
        for axis in [-1] + list(range(len(s) - 1))[:1]:
            d = cycle([F32, I32, B, F16], i)
            keys = input_type(rand(s, d, i, "some_equal"))
            cases.append(case(f"lexsort {s} {d} {input_type.__name__} axis={axis}",
                              lambda m, k, axis=axis: m.lexsort(k, axis=axis), [keys],
                              lambda k, axis=axis: np.lexsort(k, axis=axis)))
    check(cases)


# -- testArgsort, testArgsortDtype, testArgsortUnstable ----------------------------------------------------------

def test_argsort():
    cases = []
    for i, s in enumerate(SORT_SHAPES + [(2, 3, 4)]):
        axis, use_method = cycle(_axes(s), i + 1), i % 2 == 1
        d = cycle([F32, I32, B, C64, F16], i)
        kw = {} if axis is NO_VALUE else {"axis": axis}

        def f(m, x, kw=kw, use_method=use_method):
            return m.asarray(x).argsort(stable=True, **kw) if use_method else m.argsort(x, stable=True, **kw)
        cases.append(case(f"argsort {s} {d} {kw} method={use_method}", f, [rand(s, d, i, "some_equal")],
                          lambda x, kw=kw: np.argsort(x, kind="stable", **kw)))
    check(cases)


@pytest.mark.parametrize("dtype", [np.int16, U32])
def test_argsort_dtype(dtype):
    x = rand((10,), F32, 0)
    check([case(f"argsort dtype={dtype.__name__}", lambda m, x: m.argsort(x, dtype=dtype), [x],
                lambda x: np.argsort(x).astype(dtype))])


def test_argsort_unstable():
    # unstable argsorts differ among ties: the values they pick must be the sorted ones
    cases = [(s, axis, k % 2 == 1) for k, s in enumerate([(4,), (3, 4), (3, 1), (2, 3, 4)])
             for axis in [cycle(_axes(s), k), cycle(_axes(s), k + 2)]]
    xs = [rand(s, cycle([F32, I32, B, F16], i), i, "some_equal") for i, (s, _, _) in enumerate(cases)]

    def picked(x, axis, descending):
        kw = {} if axis is NO_VALUE else {"axis": axis}
        idx = tnp.argsort(x, descending=descending, stable=False, **kw)
        if axis is None:
            return tnp.ravel(x)[idx]
        return tnp.take_along_axis(x, idx, axis=-1 if axis is NO_VALUE else axis)
    compiled = tj.function(lambda xs: [picked(x, a, dn) for x, (_, a, dn) in zip(xs, cases)])(xs)
    wants = jax.jit(lambda: [jnp.sort(x, descending=dn, stable=False, **({} if a is NO_VALUE else {"axis": a}))
                             for x, (_, a, dn) in zip(xs, cases)])()  # one XLA program for the references
    for x, (s, axis, descending), out, want in zip(xs, cases, compiled, wants):
        kw = {} if axis is NO_VALUE else {"axis": axis}
        match(picked(x, axis, descending), want, f"{s} {x.dtype} {kw} descending={descending}")
        match(out, want, f"tj.function {s} {x.dtype} {kw} descending={descending}")


# -- testPartition, testPartitionUnsignedWithZeros, testArgpartition, testArgpartitionUnsignedWithZeros ------------

def _assert_same_partition(got, want, axis, kth, label):
    """The pivot equal, and the values before and after it the same once sorted (their order is free)."""
    got, want = np.moveaxis(np.asarray(got), axis, -1), np.moveaxis(np.asarray(want), axis, -1)
    kth = kth % got.shape[-1]
    np.testing.assert_array_equal(got[..., kth], want[..., kth], err_msg=label)
    np.testing.assert_array_equal(np.sort(got[..., :kth], -1), np.sort(want[..., :kth], -1), err_msg=label)
    np.testing.assert_array_equal(np.sort(got[..., kth + 1:], -1), np.sort(want[..., kth + 1:], -1), err_msg=label)


PARTITION_CASES = [  # (shape, axis, kth, dtype)
    ((4,), 0, 0, F32), ((4,), -1, -1, I32), ((3, 4), 0, 2, F32), ((3, 4), -1, -3, I32), ((3, 1), 1, 0, F16),
    ((3, 1), -2, -2, F32), ((2, 1, 4), 2, 3, I32), ((2, 3, 4), 1, 1, F32), ((2, 3, 4), -3, -1, I32),
]


def test_partition():
    fn = tj.function(lambda xs: [tnp.partition(x, kth, axis=a) for x, (_, a, kth, _) in zip(xs, PARTITION_CASES)])
    xs = [rand(s, d, i) for i, (s, _, _, d) in enumerate(PARTITION_CASES)]
    for x, (s, axis, kth, d), compiled in zip(xs, PARTITION_CASES, fn(xs)):
        got = tnp.partition(x, kth, axis=axis)
        ref = jax.eval_shape(lambda x: jnp.partition(x, kth, axis=axis), x)  # (shape and dtype only)
        assert (got.shape, got.dtype) == (ref.shape, ref.dtype)
        for out, label in [(got, "eager"), (compiled, "tj.function")]:
            _assert_same_partition(out.numpy(), np.partition(x, kth, axis=axis), axis, kth, f"{label} {s} {kth}")
    gradients_match(lambda m, x: m.partition(x, 1, axis=0), [rand((3, 4), F32, 1)])


def _assert_same_argpartition(idx, x, axis, kth, label):
    want_idx = np.argpartition(x, kth, axis=axis)
    # every index once per slice, and the values they pick partitioned as NumPy's (ties may pick others)
    np.testing.assert_array_equal(np.sort(idx, axis), np.sort(want_idx, axis), err_msg=label)
    _assert_same_partition(np.take_along_axis(x, idx, axis), np.take_along_axis(x, want_idx, axis), axis, kth,
                           label)


def test_argpartition():
    xs = [rand(s, d, i) for i, (s, _, _, d) in enumerate(PARTITION_CASES)]

    def f(i, x, kth, axis):  # the method on every other case
        return tnp.asarray(x).argpartition(kth, axis=axis) if i % 2 == 0 else tnp.argpartition(x, kth, axis=axis)
    compiled = tj.function(lambda xs: [f(i, x, c[2], c[1]) for i, (x, c) in enumerate(zip(xs, PARTITION_CASES))])(xs)
    for i, (x, (s, axis, kth, d), out) in enumerate(zip(xs, PARTITION_CASES, compiled)):
        got = f(i, x, kth, axis)
        ref = jax.eval_shape(lambda x: jnp.argpartition(x, kth, axis=axis), x)  # (shape and dtype only)
        assert (got.shape, got.dtype) == (out.shape, out.dtype) == (ref.shape, ref.dtype)
        for idx, label in [(got, "eager"), (out, "tj.function")]:
            _assert_same_argpartition(idx.numpy(), x, axis, kth, f"{label} {s} {axis} {kth}")


@pytest.mark.parametrize("dtype", [U8, U32])
def test_partition_and_argpartition_unsigned_with_zeros(dtype):
    # jax-ml/jax#22137: zeros and the dtype's maximum in an unsigned array
    top = np.iinfo(dtype).max
    arg = np.array([[6, top, 0, 4, 3, 1, 0, 7, 5, 2]], dtype=dtype)
    arg2 = np.array([[6, top, 0, 4, 3, 1, 0, 7, 5, 2, 3]], dtype=dtype)
    for kth in [0, 3, 9]:
        got = tnp.partition(arg, kth, axis=-1)
        assert got.dtype == dtype
        _assert_same_partition(got.numpy(), np.partition(arg, kth, axis=-1), -1, kth, f"partition {kth}")
        _assert_same_argpartition(tnp.argpartition(arg2, kth, axis=-1).numpy(), arg2, -1, kth, f"argpartition {kth}")
