"""JAX's lax_numpy_test.py, first part, ported to tj.numpy.

Source: jax-ml/jax tests/lax_numpy_test.py, LaxBackedNumpyTests, the methods whose ``def test`` line lies before
offset 86000 (testUnstack ... testTrilIndicesFrom), checked against the installed jax 0.10.2 and NumPy. JAX and NumPy
are the references here (TensorFlow is not imported).

Mapping: ``jnp.f`` -> ``tj.numpy.f`` (``tnp``), jax arrays -> ``tj.Tensor``. ``_CheckAgainstNumpy`` -> ``check``:
tj's values against NumPy's (run at test time on the same inputs; jax.numpy's values where a test says ``ref="jax"``)
and tj's shapes and dtypes against jax.numpy's (``jax.eval_shape``, or jax.numpy run where the shape depends on the
values). On every case of this file jax.numpy's values were also checked to agree with tj's to 1e-5.
``_CompileAndCheck`` -> test_inside_tj_function: one tj.function holding one call of each ported function, against
jax.jit of the same jax.numpy calls; plus the traced-argument calls JAX's tests compile (eye/tri's ``k``, repeat's
``repeats``, insert's and delete's indices, round). ``jtu.sample_product`` grids (every dtype x every shape) are
sampled hard: float32 on a few shapes (0-d, empty, broadcasting), int32, bool, complex64, uint8 and one float16 case
where the test takes them, each case a different corner of JAX's grid; x64 is off. jtu's rand_* -> ``rand``, a NumPy
generator seeded per test. Gradients (none of these JAX methods checks one; the functions are differentiable):
tj.GradientTape's gradient for a random output gradient against ``jax.vjp`` of the jax.numpy function (complex
inputs: conj of JAX's cotangent, API.md), tj.ForwardAccumulator against ``jax.jvp``, the references computed in one
jitted JAX program; inputs keep away from the kinks where API.md takes TF's convention (clip's bounds, ties).

Ported: testUnstack, testDtypeWrappers (the wrappers, not the jaxpr), testBoolDtypeAlias, testArrayEqualExamples,
testArrayEquivExamples, testUnwrap, testCountNonzero, testNonzero, testNonzeroSize, testFlatNonzero,
testFlatNonzeroSize, testArgWhere, testArgWhereSize, testArgMinMax, testArgMinMaxEmpty, testCross, testDot,
testMatmul, testVecdot, testMatvec, testVecmat, testTensordot, testTensordotErrors, testInner, testPolyfit,
testClipStaticBounds, testClipNone, testClipComplexInputError, testClipDeprecatedArgs, testClipUpperPrecedence,
testHypotComplexInputError, testRoundStaticDecimals, testRoundLargeDecimals, testOperatorRound, testRoundMethod,
testOperatorReversed, testPad, testPadStatValues, testPadSymmetricAndReflect, testPadLinearRamp, testPadEmpty,
testPadKwargs, testPadFunction, testPadWithNumpyPadWidth, testTile, testExtract, testExtractSize, testPiecewise,
testTransposeTuple, testPermuteDims, testMatrixTranspose, testTrimZeros, testTrimZerosAxis, testPoly, testPolyAdd,
testPolySub, testPolyInt, testPolyDer, testIntegerPowerOverflow, testCompress, testCompressSize,
testCompressMismatchedShapes, testCompressMethod, testConcatenate, testConcatenateArray, testConcatenateAxisNone,
testConcatenateScalarAxisNone, testConcat, testAppend, testDeleteInteger, testDeleteSlice, testDeleteIndexArray,
testDeleteUniqueIndices, testDeleteMaskArray, testInsertInteger, testInsertSlice, testInsertExamples,
testApplyAlongAxis, testApplyOverAxes, testRepeat, testNonScalarRepeats, testIssue2330, testConvolutions,
testConvolutionsPreferredElementType, testCumSumProd, testNanCumSumProd, testEye, testEyeDynamicK, testTri,
testTriLU, testTrilIndices, testTriuIndices, testTriuIndicesFrom, testTrilIndicesFrom.

Not ported (why):
- testMixedPrecisionDot, testIntegerPower, testRepeatScalarFastPath, testDtypeWrappers' second half: jaxpr contents;
- testArrayModule: needs numpy_dispatch (not installed; JAX skips it too);
- testLoad: jnp.save/jnp.load are file I/O, which tj.numpy leaves out on purpose (test_numpy_index_tricks LEFT_OUT);
- testPadWeakType: JAX's weak types are JAX internals (a tj.Tensor carries none);
- testPiecewiseRecompile: counts jax.jit cache misses;
- test_tri_bug_22751: jax.jit's error for a traced ``N``; tj.function takes Python numbers as static arguments (as
  tf.function), so that call traces no ``N``;
- float64/complex128/int64, bfloat16 and the int8/int16/uint16.. sweeps (x64 off; the samples above instead).

Sanctioned differences and notes:
- ``round`` has no gradient (None: TF registers none, API.md), where jax.grad gives zeros (test_round_has_no_gradient).
- tj's error messages are its own (the classes are jax.numpy's; tj's ``ShapeError`` subclasses TypeError and
  ValueError): tnp.unstack of a 0-d array says "rank > 0", not "Unstack requires arrays with".
- ``tnp.round`` of an integer array with ``decimals < 0`` returns NumPy's values where jax.numpy raises
  NotImplementedError (JAX skips the case); tested against NumPy.
- ``tnp.delete`` accepts a Python list of indices (API.md: lists are accepted wherever arrays are) where
  jax.numpy.delete raises TypeError (not tested).

Differences found by this port and fixed: hypot of complex inputs returned a value (jax.numpy: ValueError); pad
raised ValueError only for an unknown mode name (now an error that is both TF's ValueError and jax.numpy's
NotImplementedError); delete rejected a boolean mask (jax.numpy deletes the True entries, as NumPy);
convolve/correlate of int32 or bool inputs kept the input dtype (jax.numpy: float32); cumsum/cumprod with
``dtype=bool`` gave int32 (jax.numpy: bool); inside tj.function, eye/tri with a traced ``k`` and repeat with a traced
scalar ``repeats`` and ``total_repeat_length`` raised (jax.jit traces them).

Sanctioned (tested as tj behaves): clip takes the ``a_min``/``a_max`` keywords jax.numpy 0.10.2 removed (TF's
tnp.clip and NumPy take them); pad accepts a keyword given as None for a mode that does not take it (None is the
keyword's default: tj.numpy.pad names its keywords, jax.numpy's takes ``**kwargs``).

Fixed after this port found them: insert with a traced index and delete with traced indices and
``assume_unique_indices=True`` raised inside tj.function (jax.jit traces them).
"""
import functools
import itertools
import math
import zlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from numpy_reference import jax_cross, numpy_cross

tnp = tj.numpy
pytestmark = [pytest.mark.filterwarnings("ignore:.*encountered in:RuntimeWarning"),
              pytest.mark.filterwarnings("ignore:Arrays of 2-dimensional vectors are deprecated:DeprecationWarning")]

F32, F16, I32, U8, BOOL, C64 = np.float32, np.float16, np.int32, np.uint8, np.bool_, np.complex64


# -- inputs, references and comparison --------------------------------------------------------------------------

def rng_for(label):
    return np.random.default_rng(zlib.crc32(label.encode()))


def rand(rng, shape, dtype=F32, kind="default"):
    """jtu.rand_default and friends: normal floats (scale 2), small ints, random bools; ``some_zero`` zeroes ~40%,
    ``some_nan`` puts NaNs in ~25% of a float array, ``some_equal`` repeats the first element in ~40%."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        x = rng.random(shape) > 0.5
    elif np.issubdtype(dtype, np.complexfloating):
        x = 2 * rng.normal(size=shape) + 2j * rng.normal(size=shape)
    elif np.issubdtype(dtype, np.unsignedinteger):
        x = rng.integers(0, 10, size=shape)
    elif np.issubdtype(dtype, np.integer):
        x = rng.integers(-5, 6, size=shape)
    else:
        x = 2 * rng.normal(size=shape)
    x = np.asarray(x).astype(dtype)
    if kind == "some_zero":
        x = np.where(rng.random(shape) < 0.4, np.zeros((), dtype), x).astype(dtype)
    elif kind == "some_nan" and np.issubdtype(dtype, np.inexact):
        x = np.where(rng.random(shape) < 0.25, np.array(np.nan, dtype), x).astype(dtype)
    elif kind == "some_equal" and x.size:
        x = np.where(rng.random(shape) < 0.4, x.ravel()[0], x).astype(dtype)
    return x


def jax_like(fn, *args):
    """The shapes and dtypes of jax.numpy's ``fn(*args)``: jax.eval_shape, or jax.numpy itself where the result's
    shape depends on the values (nonzero, extract...)."""
    try:
        return jax.eval_shape(fn, *args)
    except (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
            jax.errors.TracerIntegerConversionError, jax.errors.TracerBoolConversionError):
        return jax.tree.map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype), fn(*args))


def agree(got, want, like, rtol=1e-5, atol=1e-5, label=""):
    """``got`` (Tensors, in ``like``'s structure) has ``like``'s shapes and dtypes and ``want``'s values."""
    if isinstance(like, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(like), (label, type(got), like)
        assert len(want) == len(like), label
        for g, w, s in zip(got, want, like):
            agree(g, w, s, rtol, atol, label)
        return
    assert isinstance(got, tj.Tensor), (label, type(got))
    assert (got.shape, got.dtype) == (tuple(like.shape), like.dtype), (label, got.shape, got.dtype, like)
    g, w = got.numpy(), np.asarray(want)
    assert g.shape == w.shape, (label, g.shape, w.shape)
    if got.dtype == F16:
        rtol, atol = max(rtol, 1e-2), max(atol, 1e-2)
    if np.issubdtype(g.dtype, np.inexact) or np.issubdtype(w.dtype, np.inexact):
        wide = np.complex128 if np.iscomplexobj(g) or np.iscomplexobj(w) else np.float64
        np.testing.assert_allclose(g.astype(wide), w.astype(wide), rtol=rtol, atol=atol, err_msg=label)
    else:
        np.testing.assert_array_equal(g, w, err_msg=label)


def check(label, call, *args, np_call=None, ref="numpy", rtol=1e-5, atol=1e-5):
    """``call(tnp, *args)`` against NumPy's values (``np_call(*args)``, default ``call(np, *args)``; ``ref="jax"``:
    jax.numpy's values) and jax.numpy's shapes and dtypes (``call(jnp, *args)``)."""
    like = jax_like(lambda *a: call(jnp, *a), *args)
    if ref == "jax":
        want = jax.tree.map(np.asarray, call(jnp, *args))
    else:
        want = np_call(*args) if np_call is not None else call(np, *args)
    got = call(tnp, *args)
    agree(got, want, like, rtol, atol, label)
    return got


def raises_as_jax(call, *args, match=None):
    """``call(tnp, ...)`` raises the class jax.numpy raises (its message may be tj's own)."""
    with pytest.raises(Exception) as jax_error:
        call(jnp, *args)
    with pytest.raises(type(jax_error.value), match=match):
        call(tnp, *args)


# -- testUnstack, testDtypeWrappers, testBoolDtypeAlias, testArrayEqualExamples, testArrayEquivExamples ------------
# -- testUnstack, testDtypeWrappers, testBoolDtypeAlias, testArrayEqualExamples, testArrayEquivExamples ------------

def test_unstack():
    rng = rng_for("unstack")
    for shape, axis, dtype in [((3, 4), 0, F32), ((3, 4), -1, I32), ((2, 1, 4), 1, BOOL), ((3, 0), 1, F32),
                               ((0, 2), 1, F32)]:
        x = rand(rng, shape, dtype)
        got = tnp.unstack(x, axis=axis)
        assert type(got) is tuple
        agree(got, tuple(np.moveaxis(x, axis, 0)), jax.eval_shape(lambda v: jnp.unstack(v, axis=axis), x),
              label=f"{shape} {axis}")
    raises_as_jax(lambda m: m.unstack(np.float32(1.0)), match="rank > 0")  # (jax: "Unstack requires arrays with")


@pytest.mark.parametrize("name", ["bool", "uint8", "int32", "float16", "complex64"])
def test_dtype_wrappers(name):
    wrapper = getattr(tnp, name)
    x = wrapper(0)
    assert isinstance(x, (jax.Array, tj.Tensor)) and np.dtype(x.dtype) == np.dtype(getattr(jnp, name))
    np.testing.assert_array_equal(np.asarray(x), 0)
    assert tnp.zeros(2, dtype=wrapper).dtype == np.dtype(getattr(jnp, name))  # usable as a dtype


def test_bool_dtype_alias():
    assert tnp.bool is tnp.bool_


def test_array_equal_examples():
    def eq(*a, **kw):
        r = tnp.array_equal(*a, **kw)
        assert isinstance(r, tj.Tensor) and r.shape == () and r.dtype == np.bool_
        return bool(r)
    assert eq([1, 2], [1, 2]) and eq(np.array([1, 2]), np.array([1, 2]))
    assert not eq([1, 2], [1, 2, 3]) and not eq([1, 2], [1, 4])
    a = np.array([1, np.nan])
    assert not eq(a, a) and eq(a, a, equal_nan=True)
    a = np.array([1 + 1j])
    b = a.copy()
    a.real, b.imag = np.nan, np.nan
    assert eq(a, b, equal_nan=True)  # a NaN in either part counts as NaN


def test_array_equiv_examples():
    assert bool(tnp.array_equiv([1, 2], [1, 2])) and not bool(tnp.array_equiv([1, 2], [1, 3]))
    assert bool(tnp.array_equiv([1, 2], [[1, 2], [1, 2]]))
    assert not bool(tnp.array_equiv([1, 2], [[1, 2, 1, 2], [1, 2, 1, 2]]))
    assert not bool(tnp.array_equiv([1, 2], [[1, 2], [1, 3]]))


# -- testUnwrap, testCountNonzero, testNonzero*, testFlatNonzero*, testArgWhere* ----------------------------------

@pytest.mark.parametrize("shape,axis,discont,period,dtype", [
    ((5,), 0, None, 2 * np.pi, F32), ((3, 4), -1, np.pi, np.pi, F32), ((3, 4), 0, 2, 4, I32),
    ((3, 4), 1, None, 2 * np.pi, F16)])
def test_unwrap(shape, axis, discont, period, dtype):
    x = rand(rng_for(f"unwrap{shape}{dtype}"), shape, dtype) * 3
    check("unwrap", lambda m, v: m.unwrap(v, axis=axis, discont=discont, period=period), x, rtol=1e-5, atol=1e-4)


def test_count_nonzero():
    rng = rng_for("count_nonzero")
    for shape, dtype, axis in [((), F32, None), ((3, 4), F32, 0), ((2, 1, 4), I32, -1), ((3, 4), BOOL, None),
                               ((3, 4), C64, 1), ((0, 3), F32, 1)]:
        check(f"{shape} {dtype} {axis}", lambda m, v: m.count_nonzero(v, axis), rand(rng, shape, dtype, "some_zero"))
    check("keepdims", lambda m, v: m.count_nonzero(v, axis=1, keepdims=True), rand(rng, (3, 4), F32, "some_zero"))


def test_nonzero_flatnonzero_argwhere():
    rng = rng_for("nonzero")
    for shape, dtype in [((3, 4), I32), ((2, 1, 4), BOOL), ((4,), C64), ((3, 0), F32)]:
        x = rand(rng, shape, dtype, "some_zero")
        for name in ("nonzero", "flatnonzero", "argwhere"):
            check(f"{name} {shape} {dtype}", lambda m, v: getattr(m, name)(v), x)
    raises_as_jax(lambda m: m.nonzero(np.float32(1)))  # a 0-d array: NumPy 2 and jax.numpy raise ValueError
    check("argwhere 0-d", lambda m, v: m.argwhere(v), np.float32(0))


def _pad_found(found, size, fill):
    """NumPy's result cut or padded to ``size`` entries with ``fill`` (testNonzeroSize's reference)."""
    if size <= len(found):
        return found[:size]
    return np.concatenate([found, np.full(size - len(found), fill, found.dtype)])


def test_nonzero_flatnonzero_argwhere_size():
    rng = rng_for("size")
    for shape, dtype, size, fill in [((3, 4), F32, 1, None), ((3, 4), F32, 10, (7, 8)), ((2, 1, 4), BOOL, 5, -1)]:
        x = rand(rng, shape, dtype, "some_zero")

        def nonzero_ref(v):
            fills = fill if np.ndim(fill) else [fill or 0] * v.ndim
            return tuple(_pad_found(f, size, fv) for f, fv in zip(np.nonzero(v), fills))
        check(f"nonzero {size} {fill}", lambda m, v: m.nonzero(v, size=size, fill_value=fill), x, np_call=nonzero_ref)
        check(f"argwhere {size} {fill}", lambda m, v: m.argwhere(v, size=size, fill_value=fill), x,
              np_call=lambda v: np.stack(nonzero_ref(v), axis=-1))
        flat_fill = fill if fill is None or np.ndim(fill) == 0 else fill[:1]
        check(f"flatnonzero {size} {flat_fill}", lambda m, v: m.flatnonzero(v, size=size, fill_value=flat_fill), x,
              np_call=lambda v: _pad_found(np.flatnonzero(v), size, np.ravel(flat_fill or 0)[0]))


# -- testArgMinMax, testArgMinMaxEmpty ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["argmin", "argmax", "nanargmin", "nanargmax"])
def test_argminmax(name):
    rng = rng_for(name)
    kind = "some_nan" if name.startswith("nan") else "some_equal"
    for shape, dtype, axis, keepdims in [((), F32, None, False), ((4,), F16, 0, True), ((3, 4), F32, 1, False),
                                         ((3, 4), F32, None, True), ((2, 1, 4), I32, -3, False)]:
        x = rand(rng, shape, dtype, kind)
        if name.startswith("nan"):  # no all-NaN slice (NumPy raises, jax.numpy gives -1)
            clean = rand(rng, shape, dtype)
            for ax in range(x.ndim):
                sel = (slice(None),) * ax + (0,)
                x[sel] = clean[sel]
            x = clean if x.ndim == 0 else x
        check(f"{shape} {dtype} {axis} {keepdims}", lambda m, v: getattr(m, name)(v, axis, keepdims=keepdims), x)


@pytest.mark.parametrize("name", ["argmin", "argmax", "nanargmin", "nanargmax"])
def test_argminmax_empty(name):
    base = name[3:] if name.startswith("nan") else name
    for args, kw in [((np.array([]),), {}), ((np.zeros((2, 0)),), {"axis": 1})]:
        raises_as_jax(lambda m: getattr(m, name)(*args, **kw), match=f"attempt to get {base} of an empty sequence")
    check("axis 0 of (2, 0)", lambda m, v: getattr(m, name)(v, axis=0), np.zeros((2, 0), F32))


# -- testCross, testDot, testMatmul, testVecdot, testMatvec, testVecmat, testTensordot(Errors), testInner -------------

CROSS = [((2,), (2,), (-1, -1, -1, None), F32, F32), ((2, 4), (2, 4), (-1, -1, -1, 0), I32, F32),
         ((3, 4), (3, 4), (-1, -1, -1, 0), C64, C64), ((3, 4), (3, 6, 5, 4), (-1, -1, -1, 0), F32, F32),
         ((4, 3), (3, 6, 5, 4), (1, 0, -1, None), I32, I32), ((6, 1, 3), (5, 3), (-1, -1, -1, None), F32, F32),
         ((6, 1, 2), (5, 3), (-1, -1, -1, None), F32, F32), ((10, 5, 2, 8), (1, 5, 1, 3), (-2, -1, -3, None), F32, F32),
         ((4, 5, 2), (4, 5, 2), (-1, -1, 0, None), F32, F32)]


def test_cross():
    # (jax.numpy's shapes and dtypes from jax_cross: jax 0.12's jnp.cross refuses 2-component vectors)
    rng = rng_for("cross")
    for lhs, rhs, axes, ld, rd in CROSS:
        check(f"{lhs} {rhs} {axes} {ld} {rd}", lambda m, a, b: (jax_cross if m is jnp else m.cross)(a, b, *axes),
              rand(rng, lhs, ld), rand(rng, rhs, rd), np_call=lambda a, b: numpy_cross(a, b, *axes), rtol=1e-5, atol=1e-4)


PAIRS = [(F32, F32), (I32, I32), (C64, C64), (I32, F32), (BOOL, I32), (F16, F16), (F32, C64)]
DOT = [((3, 3), ()), ((), (3, 3)), ((4, 5), (5,)), ((6,), (6, 4)), ((3, 4), (4, 5)), ((4, 3, 2), (2, 5)),
       ((2, 3, 4), (5, 4, 1))]
MATMUL = [((3,), (3,)), ((3, 3), (3,)), ((3,), (5, 3, 2)), ((5, 3, 2), (2,)), ((5, 2), (3, 2, 4)),
          ((5, 3, 4), (5, 4, 1)), ((3, 1, 3, 4), (5, 4, 1))]


@pytest.mark.parametrize("name,shapes", [("dot", DOT), ("matmul", MATMUL)])
def test_dot_matmul(name, shapes):
    rng = rng_for(name)
    for (lhs, rhs), (ld, rd) in zip(shapes, PAIRS):
        check(f"{lhs} {ld} {rhs} {rd}", lambda m, a, b: getattr(m, name)(a, b), rand(rng, lhs, ld), rand(rng, rhs, rd),
              rtol=1e-4, atol=1e-4)


def _vecdot_shapes(lb, rb, axis, size=2):
    if axis >= 0:
        return (*lb[:axis], size, *lb[axis:]), (*rb[:axis], size, *rb[axis:])
    la, ra = axis + len(lb) + 1, axis + len(rb) + 1
    return (*lb[:la], size, *lb[la:]), (*rb[:ra], size, *rb[ra:])


def test_vecdot():
    rng = rng_for("vecdot")
    for lb, rb, axis, dtype in [((), (), -1, F32), ((1,), (4, 3), 0, C64), ((4, 1), (3,), -2, I32),
                                ((4, 3), (1, 3), 1, F32), ((1, 3), (4, 1), -1, C64)]:
        size = min(len(lb), len(rb))
        axis = int(np.clip(axis, -size - 1, size))
        ls, rs = _vecdot_shapes(lb, rb, axis)
        check(f"{ls} {rs} {axis} {dtype}", lambda m, a, b: m.vecdot(a, b, axis=axis), rand(rng, ls, dtype),
              rand(rng, rs, dtype), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("name", ["matvec", "vecmat"])
def test_matvec_vecmat(name):
    rng = rng_for(name)
    for lb, rb, mat, vec, dtype in [((), (), 1, 2, F32), ((4, 1), (3,), 3, 4, C64), ((1,), (4, 3), 2, 3, I32)]:
        ls, rs = ((*lb, mat, vec), (*rb, vec)) if name == "matvec" else ((*lb, vec), (*rb, vec, mat))
        check(f"{ls} {rs} {dtype}", lambda m, a, b: getattr(m, name)(a, b), rand(rng, ls, dtype), rand(rng, rs, dtype),
              rtol=1e-5, atol=1e-4)


TENSORDOT = [((3,), (), 0, F32, F32), ((2, 3, 4), (5, 6, 7), 0, I32, F32), ((2, 3, 4), (3, 4, 5, 6), 2, F32, F32),
             ((2, 3, 4), (5, 4, 3, 6), [1, 2], C64, C64), ((2, 3, 4), (5, 4, 3, 6), [[1, 2], [2, 1]], F32, F32),
             ((1, 2, 3, 4), (4, 5, 3, 6), [[2, 3], [2, 0]], I32, I32)]


def test_tensordot():
    rng = rng_for("tensordot")
    for lhs, rhs, axes, ld, rd in TENSORDOT:
        check(f"{lhs} {rhs} {axes} {ld}", lambda m, a, b: m.tensordot(a, b, axes), rand(rng, lhs, ld),
              rand(rng, rhs, rd), rtol=1e-4, atol=1e-4)


def test_tensordot_errors():
    rng = rng_for("tensordot errors")
    a, b = rng.random((3, 2, 2)), rng.random((2,))
    for axes, match in [(2, "Number of tensordot axes.*exceeds input ranks"),
                        (([0], [0, 1]), "tensordot requires axes lists to have equal length"),
                        (("bad", "axes"), "tensordot requires both axes lists to be either ints, tuples or lists"),
                        ("badaxes", "tensordot axes argument must be an int, a pair of ints, or a pair of lists")]:
        raises_as_jax(lambda m: m.tensordot(a, b, axes=axes), match=match)  # TypeError (tj's ShapeError is one)


def test_inner():
    rng = rng_for("inner")
    for lhs, rhs, ld, rd in [((), (3, 4), F32, F32), ((4,), (4,), F32, C64), ((3, 4), (2, 4), F32, F32),
                             ((2, 1, 4), (4,), C64, C64), ((0,), (5, 0), F32, F32)]:
        check(f"{lhs} {rhs} {ld} {rd}", lambda m, a, b: m.inner(a, b), rand(rng, lhs, ld), rand(rng, rhs, rd),
              rtol=1e-4, atol=1e-4)


# -- testPolyfit ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n,num_rhs,deg,rcond,full,w,cov", [
    (12, 5, 2, None, False, True, True), (12, 1, 3, 1e-2, False, True, "unscaled"), (6, 1, 2, -1, True, False, False)])
def test_polyfit(n, num_rhs, deg, rcond, full, w, cov):
    rng = rng_for(f"polyfit{n}{num_rhs}{deg}")
    x, y = rand(rng, (n,)), rand(rng, (n, num_rhs) if num_rhs > 1 else (n,))
    weights = np.abs(rand(rng, (n,))) + 0.5 if w else None

    def call(m, x, y):
        out = m.polyfit(x, y, deg, rcond=rcond, full=full, w=weights, cov=cov)
        return (out[0], *out[2:]) if full else out  # (JAX leaves lstsq's residuals out of the comparison)
    # float32 least squares against NumPy's float64 (JAX's tolerance), then jax.numpy's own float32 values
    got = check("numpy", call, x, y, rtol=1e-3, atol=1e-3)
    agree(got, jax.tree.map(np.asarray, call(jnp, x, y)), jax_like(lambda *a: call(jnp, *a), x, y), 1e-4, 1e-4, "jax")


# -- testClip*, testHypotComplexInputError ------------------------------------------------------------------------

@pytest.mark.parametrize("a_min,a_max,shape,dtype", [
    (-1, None, (3, 4), F32), (None, 1, (), I32), (-0.9, 1, (3, 4), U8), (-np.ones(1), None, (4,), F32),
    (None, np.ones(1), (2, 1, 4), F16), (np.full(1, -0.9), np.ones(1), (0,), F32)])
def test_clip_static_bounds(a_min, a_max, shape, dtype):
    if dtype == U8:
        a_min, a_max = (None if a_min is None else abs(a_min)), (None if a_max is None else abs(a_max))
    check(f"{shape} {dtype}", lambda m, v: m.clip(v, min=a_min, max=a_max) if m is not np else np.clip(v, a_min, a_max),
          rand(rng_for(f"clip{shape}"), shape, dtype))


def test_clip_none():
    rng = rng_for("clip none")
    for shape, dtype in [((), F32), ((4,), U8)]:
        x = rand(rng, shape, dtype)
        agree(tnp.clip(x), x, jax.eval_shape(jnp.clip, x))


def test_clip_of_bools_keeps_bool_with_an_open_side():
    # jnp.clip(bools, max=True), (min=False) and clip(bools) are bool [True, False]; tapejax filled the open side with
    # an infinite float bound and gave float32 [1., 0.]
    b = np.array([True, False])
    for kw in ({"max": True}, {"min": False}, {}):
        out = tnp.clip(b, **kw)
        assert out.dtype == np.bool_ == jnp.clip(b, **kw).dtype, kw
        np.testing.assert_array_equal(out.numpy(), [True, False])
    assert tnp.clip(b, min=0.5).dtype == jnp.clip(b, min=0.5).dtype == np.float32  # a float bound promotes, as jnp


def test_clip_complex_input_error():
    x = rand(rng_for("clip complex"), (5,), C64)
    xi = rand(rng_for("clip complex"), (5,), I32)
    for call in (lambda m: m.clip(x), lambda m: m.clip(x, max=x), lambda m: m.clip(xi, min=-1 + 5j),
                 lambda m: m.clip(xi, max=np.array([-1 + 5j]))):
        raises_as_jax(call, match="Complex values have no ordering and cannot be clipped")


def test_clip_deprecated_args():
    # jax.numpy 0.10.2 removed a_min/a_max (TypeError); tj.numpy keeps them, as TF's tnp.clip and NumPy
    with pytest.raises(TypeError):
        jnp.clip(np.arange(4), a_min=2, a_max=3)
    np.testing.assert_array_equal(tnp.clip(np.arange(4), a_min=2, a_max=3).numpy(), np.clip(np.arange(4), 2, 3))


def test_clip_upper_precedence():
    x, lo, hi = 4 * np.ones(1), 3 * np.ones(1), 2 * np.ones(1)
    assert float(tnp.clip(x, min=lo, max=hi).numpy()[0]) == 2.0 == float(np.clip(x, lo, hi)[0])  # max wins


def test_hypot_complex_input_error():
    x = rand(rng_for("hypot"), (5,), C64)
    raises_as_jax(lambda m: m.hypot(x, x), match="not well defined for complex-valued inputs")
    raises_as_jax(lambda m: m.hypot(x, np.ones_like(x)), match="not well defined for complex-valued inputs")


# -- testRound*, testOperatorRound, testRoundMethod, testOperatorReversed ---------------------------------------------

@pytest.mark.parametrize("decimals", [0, 1, -2])
def test_round_static_decimals(decimals):
    rng = rng_for(f"round{decimals}")
    for shape, dtype in [((3, 4), F32), ((4,), I32), ((2, 3), C64), ((4,), F16)][decimals % 2:][:3]:
        x = rand(rng, shape, dtype) * (50 if dtype != I32 else 60)
        if dtype == I32 and decimals < 0:
            # jax.numpy raises NotImplementedError here (JAX skips the case); tj gives NumPy's values
            np.testing.assert_array_equal(tnp.round(x, decimals=decimals).numpy(), np.round(x, decimals))
            continue
        check(f"{shape} {dtype}", lambda m, v: m.round(v, decimals=decimals), x, rtol=1e-6, atol=1e-6)
    check("python float", lambda m, v: m.round(v, decimals=decimals), 12.3456)


@pytest.mark.parametrize("dtype", [F32, I32, C64])
def test_round_large_decimals(dtype):
    x = rand(rng_for("round large"), (10,), dtype)
    for decimals in [10, 1000]:  # (NumPy gives NaN there: only closeness to x is checked, as JAX)
        got = tnp.round(x, decimals)
        assert got.dtype == jax.eval_shape(lambda v: jnp.round(v, decimals), x).dtype
        np.testing.assert_allclose(got.numpy(), x, atol=2 * 10.0 ** -decimals)


@pytest.mark.parametrize("compiled", [False, True])
def test_operator_round(compiled):
    rnd = tj.function(round) if compiled else round
    for value, ndigits in [(7.532, 1), (1.234, 2), (1.234, None)]:
        t = tj.constant(np.float32(value))
        got = rnd(t) if ndigits is None else rnd(t, ndigits)
        want = round(np.float32(value)) if ndigits is None else round(np.float32(value), ndigits)
        jax_got = round(jnp.float32(value)) if ndigits is None else round(jnp.float32(value), ndigits)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(got), np.asarray(jax_got), rtol=1e-6)


def test_round_method():
    got = (tnp.arange(3.0) / 5.0).round()
    agree(got, np.round(np.arange(3.0) / 5.0), jax.eval_shape(lambda: (jnp.arange(3.0) / 5.0).round()))


@pytest.mark.parametrize("shape", [(5,), (5, 2)])
def test_operator_reversed(shape):
    x = rand(rng_for(f"reversed{shape}"), shape)
    got = tnp.array(list(reversed(tj.constant(x))))
    agree(got, np.array(list(reversed(x))), jax.eval_shape(lambda v: jnp.array(list(reversed(v))), x))


# -- testPad* ---------------------------------------------------------------------------------------------------------

# (shape, dtype, pad_width): testPad's shapes x dtypes x the forms of pad_width (per axis, ((b, a),), (b, a), (p,), p)
PAD_CASES = [((), F32, 1), ((4,), F32, ((1, 2),)), ((3, 4), I32, ((0, 1), (1, 2))), ((2, 1, 3), BOOL, (2, 0)),
             ((3, 4), C64, (2,)), ((4,), U8, (0, 0)), ((0,), F32, 1), ((3, 0), I32, ((2, 0),))]


def test_pad_constant():
    rng = rng_for("pad constant")
    values = [0, 1, (0,), (2.718,), (0, 2), (-1, 3.14), None]
    for (shape, dtype, pw), cv in zip(PAD_CASES, values + values):
        if cv is None:  # per-axis (before, after) values
            cv = tuple((i / 2, -3.14 * i) for i in range(len(shape))) or 0
        if dtype == U8:
            cv = jax.tree.map(abs, cv)
        check(f"{shape} {dtype} {pw} {cv}", lambda m, v: m.pad(v, pw, mode="constant", constant_values=cv),
              rand(rng, shape, dtype))


@pytest.mark.parametrize("mode", ["wrap", "edge"])
def test_pad_wrap_edge(mode):
    rng = rng_for(f"pad{mode}")
    for shape, dtype, pw in PAD_CASES[:6][::-1 if mode == "wrap" else 1][:4]:
        check(f"{shape} {dtype} {pw}", lambda m, v: m.pad(v, pw, mode=mode), rand(rng, shape, dtype))
    check("wider than the array", lambda m, v: m.pad(v, ((5, 7),), mode=mode), rand(rng, (3,)))


@pytest.mark.parametrize("mode", ["maximum", "minimum", "mean", "median"])
def test_pad_stat_values(mode):
    rng = rng_for(f"pad{mode}")
    cases = [((4,), F32, ((1, 2),), None), ((3, 4), I32, ((0, 1), (1, 2)), ((1, 2), (2, 1))),
             ((2, 1, 3), BOOL, 1, (3, 4)), ((3, 4), C64, (2,), 2), ((), F32, 1, 1)]
    for shape, dtype, pw, sl in cases:
        if (dtype == BOOL and mode == "mean") or (dtype == C64 and mode == "median"):
            continue
        check(f"{shape} {dtype} {pw} {sl}", lambda m, v: m.pad(v, pw, mode=mode, stat_length=sl),
              rand(rng, shape, dtype))


@pytest.mark.parametrize("mode", ["symmetric", "reflect"])
def test_pad_symmetric_and_reflect(mode):
    rng = rng_for(f"pad{mode}")
    for shape, dtype, pw, rt in [((4,), F32, 10, "odd"), ((3, 4), I32, ((0, 1), (1, 2)), "even"),
                                 ((2, 1, 3), BOOL, (2, 1), "even"), ((3, 4), C64, ((2, 3),), "odd"),
                                 ((), F32, 5, "odd")]:
        check(f"{shape} {dtype} {pw} {rt}", lambda m, v: m.pad(v, pw, mode=mode, reflect_type=rt),
              rand(rng, shape, dtype), rtol=1e-5, atol=1e-4)


def test_pad_linear_ramp():
    rng = rng_for("pad linear_ramp")
    for shape, dtype, pw, ev in [((4,), F32, ((1, 2),), ((2.0, 3.14),)),
                                 ((3, 4), I32, ((0, 1), (1, 2)), ((0, 1), (1, 2))),
                                 ((2, 1, 3), F32, 2, (-8.0, 2.0)), ((3, 4), C64, (2, 0), 3.5), ((), F32, 1, -5)]:
        check(f"{shape} {dtype} {pw} {ev}", lambda m, v: m.pad(v, pw, mode="linear_ramp", end_values=ev),
              rand(rng, shape, dtype), rtol=1e-5, atol=1e-4)


def test_pad_empty():
    arr = np.arange(6).reshape(2, 3)
    got = tnp.pad(arr, pad_width=((2, 3), (3, 1)), mode="empty")
    assert got.shape == np.pad(arr, ((2, 3), (3, 1)), mode="empty").shape
    assert got.dtype == jax.eval_shape(lambda: jnp.pad(arr, ((2, 3), (3, 1)), mode="empty")).dtype
    np.testing.assert_array_equal(got.numpy()[2:-3, 3:-1], arr)


PAD_MODE_KWARGS = {
    "constant": {"constant_values": 0}, "edge": {}, "linear_ramp": {"end_values": 0}, "maximum": {"stat_length": None},
    "mean": {"stat_length": None}, "median": {"stat_length": None}, "minimum": {"stat_length": None},
    "reflect": {"reflect_type": "even"}, "symmetric": {"reflect_type": "even"}, "wrap": {}, "empty": {}}


def test_pad_kwargs():
    arr = np.array([1, 2, 3], I32)
    for mode, allowed in PAD_MODE_KWARGS.items():
        got = tnp.pad(arr, 1, mode, **allowed)
        if mode != "empty":
            np.testing.assert_array_equal(got.numpy(), jnp.pad(arr, 1, mode, **allowed))
        for key, value in [(k, v) for kw in PAD_MODE_KWARGS.values() if kw != allowed for k, v in kw.items()]:
            if key == "stat_length":
                continue  # (test_pad_kwargs_stat_length_none)
            raises_as_jax(lambda m: m.pad(arr, 1, mode, **{key: value}),
                          match=f"unsupported keyword arguments for mode '{mode}'")
    for mode in [1, None]:
        raises_as_jax(lambda m: m.pad(arr, 1, mode), match=f"Unimplemented padding mode '{mode}'")


def test_pad_kwargs_stat_length_none():
    # jax.numpy raises ValueError ('unsupported keyword arguments') for any keyword a mode does not take, None too;
    # tj.numpy's named keywords default to None, which stands for "not given"
    for mode in ["constant", "edge", "wrap", "reflect"]:
        with pytest.raises(ValueError, match=f"unsupported keyword arguments for mode '{mode}'"):
            jnp.pad(np.array([1, 2, 3]), 1, mode, stat_length=None)
        np.testing.assert_array_equal(tnp.pad(np.array([1, 2, 3]), 1, mode, stat_length=None).numpy(),
                                      np.pad(np.array([1, 2, 3]), 1, mode))


def test_pad_unknown_mode_name():
    raises_as_jax(lambda m: m.pad(np.array([1, 2, 3]), 1, "foo"), match="Unimplemented padding mode 'foo'")


def _np_pad_with(vector, pad_width, iaxis, kwargs):
    vector[:pad_width[0]] = kwargs.get("padder", 10)
    vector[-pad_width[1]:] = kwargs.get("padder", 10)


def _jnp_pad_with(vector, pad_width, iaxis, kwargs):
    vector = vector.at[:pad_width[0]].set(kwargs.get("padder", 10))
    return vector.at[-pad_width[1]:].set(kwargs.get("padder", 10))


def test_pad_function():
    check("2-d", lambda m, v: m.pad(v, 2, _np_pad_with if m is np else _jnp_pad_with), np.arange(6).reshape(2, 3))
    check("3-d padder", lambda m, v: m.pad(v, 1, _np_pad_with if m is np else _jnp_pad_with, padder=100),
          np.arange(24).reshape(2, 3, 4))


def test_pad_with_numpy_pad_width():
    a = np.array([1, 2, 3, 4, 5], I32)
    compiled = tj.function(lambda v: tnp.pad(v, pad_width=np.asarray((2, 3)), mode="constant", constant_values=(4, 6)))
    np.testing.assert_array_equal(compiled(tj.constant(a)).numpy(),
                                  np.pad(a, np.asarray((2, 3)), mode="constant", constant_values=(4, 6)))


# -- testTile, testExtract(Size), testPiecewise ---------------------------------------------------------------------

def test_tile():
    rng = rng_for("tile")
    for shape, dtype, reps in [((), F32, (2, 3, 4)), ((4,), F32, ()), ((3, 4), I32, (2,)), ((0,), F32, (3, 4)),
                               ((2, 1, 3), BOOL, (1, 0, 2)), ((3, 4), F32, (2, 3, 4))]:
        check(f"{shape} {reps}", lambda m, v: m.tile(v, reps), rand(rng, shape, dtype))
    check("python float", lambda m, v: m.tile(v, (2, 3)), 2.0)


def test_extract():
    rng = rng_for("extract")
    for shape, dtype in [((), F32), ((3, 4), I32), ((2, 1, 4), BOOL), ((3, 0), C64)]:
        check(f"{shape} {dtype}", lambda m, c, a: m.extract(c, a), rand(rng, shape, F32, "some_zero"),
              rand(rng, shape, dtype))
    for shape, dtype in [((3, 4), F32), ((5,), I32)]:  # testExtractSize: size = a.size - 1, zero-filled
        def ref(c, a):
            out = np.zeros(a.size - 1, dtype)
            found = np.extract(c, a)[:a.size - 1]
            out[:len(found)] = found
            return out
        check(f"size {shape} {dtype}", lambda m, c, a: m.extract(c, a, size=a.size - 1),
              rand(rng, shape, F32, "some_zero"), rand(rng, shape, dtype), np_call=ref)


@pytest.mark.parametrize("ncond,nfunc,shape,dtype", [(1, 1, (3, 4), F32), (1, 2, (), F32), (2, 2, (4,), I32),
                                                     (2, 3, (3, 4), F32), (3, 3, (0,), F32), (3, 4, (2, 3), I32)])
def test_piecewise(ncond, nfunc, shape, dtype):
    rng = rng_for(f"piecewise{ncond}{nfunc}")
    funcs = [lambda v: v - 1, 1, lambda v: v, 0][:nfunc]
    x, conds = rand(rng, shape, dtype), [rng.random(shape) > 0.5 for _ in range(ncond)]
    check(f"{shape} {dtype}", lambda m, v, *c: m.piecewise(v, list(c), funcs), x, *conds)


# -- testTransposeTuple, testPermuteDims, testMatrixTranspose, testTrimZeros(Axis) -----------------------------------

def test_transpose_tuple():
    rng = rng_for("transpose")
    for shape, dtype in [((3, 4), I32), ((2, 1, 4), F32), ((3, 0), F32)]:
        x = rand(rng, shape, dtype)
        perm = tuple(int(i) for i in np.random.RandomState(0).permutation(len(shape)))
        negative = tuple(i - len(shape) for i in perm)
        check(f"value {shape} {perm}", lambda m, v: m.asarray(v).transpose(perm), x)
        check(f"splat {shape} {negative}", lambda m, v: m.asarray(v).transpose(*negative), x)
    check("None", lambda m, v: m.asarray(v).transpose(None), rand(rng, (2, 3, 4)))


def test_permute_dims_and_matrix_transpose():
    rng = rng_for("permute")
    for shape in [(4,), (3, 0), (2, 3, 4)]:
        x = rand(rng, shape)
        axes = tuple(int(i) for i in rng.permutation(len(shape)))
        check(f"permute_dims {shape}", lambda m, v: m.permute_dims(v, axes=axes), x)
        if len(shape) >= 2:
            check(f"matrix_transpose {shape}", lambda m, v: m.matrix_transpose(v), x)
            check(f".mT {shape}", lambda m, v: m.asarray(v).mT, x, np_call=np.matrix_transpose)


@pytest.mark.parametrize("trim", ["f", "b", "fb"])
def test_trim_zeros(trim):
    rng = rng_for(f"trim{trim}")
    for shape, dtype in [((6,), I32), ((12,), F32), ((0,), F32)]:
        x = rand(rng, shape, dtype, "some_zero")
        if x.size > 3:
            x[[0, 1, -1]] = 0
        check(f"{shape}", lambda m, v: m.trim_zeros(v, trim), x)
    check("all zero", lambda m, v: m.trim_zeros(v, trim), np.zeros(4, F32))
    x = rand(rng, (3, 4), F32, "some_zero")
    x[0], x[:, -1] = 0, 0
    for axis in [None, -1]:  # testTrimZerosAxis (n-dimensional, NumPy >= 2.2)
        check(f"axis {axis}", lambda m, v: m.trim_zeros(v, trim, axis=axis), x)


# -- testPoly, testPolyAdd, testPolySub, testPolyInt, testPolyDer, testIntegerPowerOverflow ------------------------

def test_poly():
    rng = rng_for("poly")
    for shape, dtype in [((6,), F32), ((6,), I32), ((3, 3), F32)]:
        check(f"{shape} {dtype}", lambda m, v: m.poly(v), rand(rng, shape, dtype), rtol=1e-3, atol=1e-3)


def test_polyadd_polysub():
    rng = rng_for("polyadd")
    for a, b, dtype in [((1,), (6,), F32), ((12,), (6,), I32)]:
        x, y = rand(rng, a, dtype), rand(rng, b, dtype)
        check(f"add {a} {b}", lambda m, u, v: m.polyadd(u, v), x, y)
        check(f"sub {a} {b}", lambda m, u, v: m.polysub(u, v), y, x)


def test_polyint_polyder():
    rng = rng_for("polyint")
    for shape, dtype, order, k in [((6,), F32, 0, None), ((6,), I32, 2, np.arange(2, dtype=I32)),
                                   ((12,), F32, 3, np.ones(1, F32)), ((1,), F32, 4, None)]:
        x = rand(rng, shape, dtype)
        check(f"polyint {shape} {order} {k}", lambda m, v: m.polyint(v, m=order, k=k), x, rtol=1e-5, atol=1e-4)
        check(f"polyder {shape} {order}", lambda m, v: m.polyder(v, m=order), x)


def test_integer_power_overflow():
    for x, y in itertools.product([-1, 0, 1], [0, 32, 64, 128]):
        check(f"{x} ** {y}", lambda m, a, b: m.power(a, b), x, y)
    check("int32 arrays", lambda m, a, b: m.power(a, b), np.array([-1, 0, 1, -1], I32), np.array([0, 32, 64, 129], I32))


# -- testCompress* -----------------------------------------------------------------------------------------------------

def test_compress():
    rng = rng_for("compress")
    for shape, dtype, axis in [((), F32, None), ((3, 4), I32, None), ((3, 4), F32, 1), ((2, 1, 4), BOOL, 0)]:
        c = rand(rng, (0,) if not shape else ((math.prod(shape),) if axis is None else (shape[axis],)), F32,
                 "some_zero")
        x = rand(rng, shape, dtype)
        check(f"{shape} {axis}", lambda m, cc, v: m.compress(cc, v, axis=axis), c, x)
        if shape:  # testCompressMethod
            check(f"method {shape} {axis}", lambda m, cc, v: m.asarray(v).compress(cc, axis=axis), c, x)
    for cond, axis in [([1], 0), ([1, 0, 0, 0, 0, 0, 0], None)]:  # testCompressMismatchedShapes
        check(f"mismatched {cond} {axis}", lambda m, cc, v: m.compress(cc, v, axis=axis), np.array(cond),
              rand(rng, (2, 3), I32))


def test_compress_size():
    rng = rng_for("compress size")
    for shape, dtype, axis in [((4,), F32, 0), ((3, 4), I32, 1), ((2, 1, 4), BOOL, 0)]:
        x, c = rand(rng, shape, dtype), rng.random(shape[axis]) > 0.5

        def ref(cc, v):
            out = np.compress(cc, v, axis=axis)
            result = np.full_like(v, 1)
            result[tuple(slice(s) for s in out.shape)] = out
            return result
        check(f"{shape} {axis}", lambda m, cc, v: m.compress(cc, v, axis=axis, size=v.shape[axis], fill_value=1),
              c, x, np_call=ref)


# -- testConcatenate*, testConcat, testAppend ---------------------------------------------------------------------

def _along(base, axis, sizes):
    a = 0 if axis is None else axis % max(len(base), 1)
    return [base[:a] + (s,) + base[a + 1:] for s in sizes]


def test_concatenate():
    rng = rng_for("concatenate")
    for base, axis, dtypes, dtype in [((4,), None, (F32, F32, F32), None), ((3, 4), -1, (I32, F32, F16), None),
                                      ((3, 4), 0, (F32,) * 3, F16), ((2, 3, 4), 1, (I32, I32, BOOL), F32)]:
        args = [rand(rng, s, d) for s, d in zip(_along(base, axis, [3, 1, 4]), dtypes)]
        check(f"{base} {axis} {dtypes} {dtype}", lambda m, *a: m.concatenate(a, axis=axis, dtype=dtype), *args,
              np_call=lambda *a: np.concatenate(a, axis=axis, dtype=dtype, casting="unsafe"), rtol=1e-3, atol=1e-3)


def test_concatenate_array_and_axis_none():
    rng = rng_for("concatenate array")
    for shape, axis in [((4, 1), None), ((4, 5, 6), -1)]:
        check(f"{shape} {axis}", lambda m, v: m.concatenate(v, axis=axis), rand(rng, shape))
    check("issue 3419", lambda m, a, b: m.concatenate((a, b), axis=None), np.array([[1, 2], [3, 4]], I32),
          np.array([[5]], I32))
    check("scalars", lambda m, a, b: m.concatenate([a, b], axis=None), np.int32(0), np.int32(1))


def test_concat_and_append():
    rng = rng_for("concat")
    for base, axis, dtype in [((), None, F32), ((2, 3, 4), 1, I32)]:
        args = [rand(rng, s, dtype) for s in _along(base, axis, [3, 1, 4])]
        check(f"concat {base} {axis}", lambda m, *a: m.concat(a, axis=axis), *args)
    for base, axis, dtypes in [((3, 4), -1, (I32, F32)), ((2, 3, 4), 1, (F16, I32))]:
        a, b = (rand(rng, s, d) for s, d in zip(_along(base, axis, [3, 1]), dtypes))
        check(f"append {base} {axis} {dtypes}", lambda m, u, v: m.append(u, v, axis=axis), a, b, rtol=1e-3, atol=1e-3)
    check("append axis None", lambda m, u, v: m.append(u, v), rand(rng, (3, 4)), rand(rng, (2,)))


# -- testDelete*, testInsert* ------------------------------------------------------------------------------------------

def test_delete():
    rng = rng_for("delete")
    x = {F32: rand(rng, (4,), F32), I32: rand(rng, (3, 4), I32), BOOL: rand(rng, (2, 1, 4), BOOL)}
    cases = [(F32, None, -4), (I32, None, 11), (I32, -1, -1), (BOOL, 0, 1),  # testDeleteInteger
             (F32, 0, slice(1, 5, 2)), (I32, None, slice(None)), (BOOL, -1, slice(1, 3)),  # testDeleteSlice
             (I32, 1, np.array([0, -1, 0])), (F32, None, np.array([[1, 2], [-1, 2]])), (BOOL, 2, np.zeros(0, int))]
    for dtype, axis, obj in cases:  # the last three: testDeleteIndexArray
        check(f"{x[dtype].shape} {axis} {obj}", lambda m, v: m.delete(v, obj, axis=axis), x[dtype])
    for dtype, axis, obj in [(I32, 0, np.array([2, 0])), (F32, None, np.array(3))]:  # testDeleteUniqueIndices
        check(f"unique {axis} {obj}", lambda m, v, i: np.delete(v, i, axis=axis) if m is np else
              m.delete(v, i, axis=axis, assume_unique_indices=True), x[dtype], obj)


def test_delete_mask_array():
    rng = rng_for("delete mask")
    x = rand(rng, (3, 4), F32)
    for axis in [None, -1]:
        mask = rng.random(x.size if axis is None else x.shape[axis]) > 0.5
        check(f"{axis}", lambda m, v: m.delete(v, mask, axis=axis), x)


def test_delete_unique_indices_traced():
    x, idx = rand(rng_for("delete traced"), (3, 4)), np.array([2, 0])
    want = jax.jit(lambda v, i: jnp.delete(v, i, axis=1, assume_unique_indices=True))(x, idx)
    got = tj.function(lambda v, i: tnp.delete(v, i, axis=1, assume_unique_indices=True))(tj.constant(x),
                                                                                          tj.constant(idx))
    np.testing.assert_array_equal(got.numpy(), want)


def test_insert_integer_and_slice():
    rng = rng_for("insert")
    for shape, dtype, axis, obj in [((4,), F32, None, np.int32(-2)), ((3, 4), I32, -1, np.int32(4)),
                                    ((2, 1, 4), BOOL, 1, slice(-1, 1)), ((3, 4), F32, 0, slice(0, 3))]:
        check(f"{shape} {axis} {obj}", lambda m, v, val: m.insert(v, obj, val, axis=axis), rand(rng, shape, dtype),
              rand(rng, (), dtype))


INSERT_EXAMPLES = [([[1, 1], [2, 2], [3, 3]], 1, 5, None), ([[1, 1], [2, 2], [3, 3]], 1, 5, 1),
                   ([[1, 1], [2, 2], [3, 3]], 1, [1, 2, 3], 1), ([[1, 1], [2, 2], [3, 3]], [1], [[1], [2], [3]], 1),
                   ([1, 1, 2, 2, 3, 3], [2, 2], [5, 6], None), ([1, 1, 2, 2, 3, 3], slice(2, 4), [5, 6], None),
                   ([1, 1, 2, 2, 3, 3], [2, 2], [7.13, False], None), ([[0, 1, 2, 3], [4, 5, 6, 7]], (1, 3), 999, 1)]


def test_insert_examples():
    for arr, index, values, axis in INSERT_EXAMPLES:  # np.insert's docstring examples
        index = index if isinstance(index, slice) else np.array(index)
        check(f"{arr} {index} {values} {axis}", lambda m, a, v: m.insert(a, index, v, axis), np.asarray(arr),
              np.asarray(values))


def test_insert_traced_index():
    x = rand(rng_for("insert traced"), (3, 4))
    want = jax.jit(lambda v, i, val: jnp.insert(v, i, val, axis=1))(x, np.int32(-1), np.float32(9))
    got = tj.function(lambda v, i, val: tnp.insert(v, i, val, axis=1))(tj.constant(x), tj.constant(np.int32(-1)),
                                                                        tj.constant(np.float32(9)))
    np.testing.assert_array_equal(got.numpy(), want)


# -- testApplyAlongAxis, testApplyOverAxes ----------------------------------------------------------------------------

def _along_axis_fn(out_dims):
    if out_dims == 0:
        return lambda v: v.sum(dtype=v.dtype)
    if out_dims == 1:
        return lambda v: v * v[0]
    return lambda v: v[:, None] + v[None, :]


def test_apply_along_axis():
    rng = rng_for("apply_along_axis")
    for shape, dtype, axis, out_dims in [((4,), F32, 0, 2), ((3, 4), I32, -1, 0), ((3, 4), F32, 0, 1),
                                         ((2, 1, 4), F32, 1, 2)]:
        f = _along_axis_fn(out_dims)
        check(f"{shape} {axis} {out_dims}", lambda m, v: m.apply_along_axis(f, axis, v), rand(rng, shape, dtype),
              rtol=1e-5, atol=1e-5)


def test_apply_over_axes():
    rng = rng_for("apply_over_axes")
    for shape, dtype, axes, keepdims in [((3, 4), F32, (0, 1), True), ((2, 1, 4), I32, (0, 2), False)]:
        def f(v, axis):
            return v.sum(axis=axis, keepdims=keepdims, dtype=dtype)
        check(f"{shape} {axes} {keepdims}", lambda m, v: m.apply_over_axes(f, v, axes), rand(rng, shape, dtype),
              rtol=1e-5, atol=1e-5)


# -- testRepeat, testNonScalarRepeats, testIssue2330 -------------------------------------------------------------------

def test_repeat():
    rng = rng_for("repeat")
    for shape, dtype, axis, repeats in [((), F32, None, 2), ((4,), F32, 0, 0), ((3, 4), I32, -1, 2),
                                        ((3, 4), F32, None, 1), ((0,), F32, 0, 2), ((2, 1, 4), F32, 1, 2)]:
        x = rand(rng, shape, dtype)
        check(f"{shape} {axis} {repeats}", lambda m, v: m.repeat(v, repeats=repeats, axis=axis), x)
    length = 5  # total_repeat_length: cut or padded with the last entry
    check("fixed size", lambda m, v: m.repeat(v, 2, axis=0, total_repeat_length=length) if m is not np
          else np.repeat(v, 2, 0)[:length], rand(rng, (3, 2)))


def test_non_scalar_repeats():
    m1 = np.array([1, 2, 3, 4, 5, 6], I32)
    m2 = m1.reshape(2, 3)
    cases = [(m1, 2, None), (m1, np.array([1, 3, 0, 1, 1, 2]), 0), (m1, np.array([2]), None),
             (m2, np.array([2, 1]), 0), (m2, np.array([1, 3, 2]), 1), (m2, np.array([2]), 1)]
    for a, reps, axis in cases:
        check(f"{a.shape} {reps} {axis}", lambda m, v: m.repeat(v, reps, axis), a)
    for a, reps, axis in cases[1::3]:  # the fixed size, repeats traced inside tj.function (JAX's fixed_size)
        length = np.repeat(a, reps, axis).shape[axis or 0]
        got = tj.function(lambda v, r: tnp.repeat(v, r, axis, total_repeat_length=length))(tj.constant(a),
                                                                                         tj.constant(reps))
        np.testing.assert_array_equal(got.numpy(), np.repeat(a, reps, axis))


def test_repeat_traced_scalar_repeats():
    a = np.arange(6, dtype=I32).reshape(2, 3)
    got = tj.function(lambda v, r: tnp.repeat(v, r, 0, total_repeat_length=4))(tj.constant(a), tj.constant(2))
    np.testing.assert_array_equal(got.numpy(), np.repeat(a, 2, 0))


def test_issue2330():
    # concatenate returns a new Tensor; in-place-looking ops on it never touch the input
    assert isinstance(tnp.concatenate([np.ones(1)]), tj.Tensor)

    def attempt_side_effect(x):
        x = tnp.concatenate([x])
        x -= 1.0
        return x
    np_input, tj_input = np.ones(1), tnp.ones(1)
    attempt_side_effect(np_input)
    attempt_side_effect(tj_input)
    np.testing.assert_array_equal(np_input, np.ones(1))
    np.testing.assert_array_equal(tj_input.numpy(), np.ones(1))


# -- testConvolutions, testConvolutionsPreferredElementType --------------------------------------------------------

@pytest.mark.parametrize("op", ["convolve", "correlate"])
def test_convolutions(op):
    rng = rng_for(op)
    for xs, ys, dtype, mode in [((1,), (6,), F32, "full"), ((12,), (6,), C64, "same"), ((6,), (12,), F32, "valid"),
                                ((6,), (1,), F16, "same")]:
        check(f"{xs} {ys} {dtype} {mode}", lambda m, a, b: getattr(m, op)(a, b, mode=mode), rand(rng, xs, dtype),
              rand(rng, ys, dtype), rtol=1e-4, atol=1e-4)
    for xs, ys, dtype, mode in [((12,), (6,), F32, "full"), ((6,), (12,), I32, "same")]:
        check(f"preferred {xs} {ys} {dtype}",
              lambda m, a, b: getattr(m, op)(a, b, mode=mode, preferred_element_type=dtype) if m is not np
              else getattr(np, op)(a, b, mode=mode), rand(rng, xs, dtype), rand(rng, ys, dtype), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [I32, BOOL])
def test_convolutions_integer_inputs(dtype):
    rng = rng_for("convolve int")
    x, y = rand(rng, (6,), dtype), rand(rng, (3,), dtype)
    for op in ("convolve", "correlate"):
        check(op, lambda m, a, b: getattr(m, op)(a, b, mode="full"), x, y)


# -- testCumSumProd, testNanCumSumProd ------------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_cumsum_cumprod(op):
    rng = rng_for(op)
    for shape, dtype, axis, out in [((), F32, None, None), ((4,), I32, 0, F32), ((3, 4), F32, -1, I32),
                                    ((0,), F32, None, None), ((2, 1, 4), BOOL, 2, None), ((3, 4), C64, 0, None),
                                    ((2, 3), U8, 1, F16)]:
        check(f"{shape} {dtype} {axis} {out}", lambda m, v: getattr(m, op)(v, axis=axis, dtype=out),
              rand(rng, shape, dtype), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_cumsum_cumprod_bool_dtype(op):
    check(op, lambda m, v: getattr(m, op)(v, axis=0, dtype=bool), np.array([1, 0, 2], I32))


@pytest.mark.parametrize("op", ["nancumsum", "nancumprod"])
def test_nan_cumsum_cumprod(op):
    rng = rng_for(op)
    for shape, dtype, axis, out in [((), F32, None, None), ((3, 4), F32, 1, None), ((4,), F32, None, I32),
                                    ((2, 1, 4), I32, -1, F32), ((3, 4), C64, 0, None)]:
        check(f"{shape} {dtype} {axis} {out}", lambda m, v: getattr(m, op)(v, axis=axis, dtype=out),
              rand(rng, shape, dtype, "some_nan"), rtol=1e-5, atol=1e-4)


# -- testEye, testEyeDynamicK, testTri, testTriLU, testTril/TriuIndices(From) -------------------------------------

@pytest.mark.parametrize("name", ["eye", "tri"])
def test_eye_tri(name):
    for dtype, n, m, k in [(F32, 4, None, 0), (I32, 4, 3, -2), (BOOL, 0, 1, 1), (F32, 4, 1, 3), (I32, 0, None, -4)]:
        check(f"{dtype} {n} {m} {k}", lambda mod: getattr(mod, name)(n, M=m, k=k, dtype=dtype))
    if name == "eye":  # a k beyond every diagonal (testEye's +-2**100)
        check("huge k", lambda mod: mod.eye(4, M=3, k=2 ** 100, dtype=F32))
        check("huge -k", lambda mod: mod.eye(4, k=-2 ** 100, dtype=I32))
    else:  # testTri: a k beyond int32 (x64 off) raises OverflowError, as jax.numpy
        for k in (-2 ** 33, 2 ** 33):
            raises_as_jax(lambda mod: mod.tri(4, M=3, k=k))


@pytest.mark.parametrize("name", ["eye", "tri"])
def test_eye_tri_dynamic_k(name):
    want = jax.jit(lambda kk: getattr(jnp, name)(4, M=3, k=kk))(np.int32(-1))
    got = tj.function(lambda kk: getattr(tnp, name)(4, M=3, k=kk))(tj.constant(np.int32(-1)))
    np.testing.assert_array_equal(got.numpy(), want)


def test_identity():
    for dtype, n in [(F32, 0), (I32, 3), (BOOL, 2)]:
        check(f"{dtype} {n}", lambda m: m.identity(n, dtype))


@pytest.mark.parametrize("op", ["tril", "triu"])
def test_tril_triu(op):
    rng = rng_for(op)
    for shape, dtype, k in [((3, 4), F32, -3), ((2, 1, 4), I32, 0), ((0, 4), F32, 2), ((4, 3), BOOL, 1)]:
        check(f"{shape} {k}", lambda m, v: getattr(m, op)(v, k=k), rand(rng, shape, dtype))


@pytest.mark.parametrize("op", ["tril_indices", "triu_indices"])
def test_tril_triu_indices(op):
    for n, k, m in [(0, 0, None), (1, -3, 2), (3, 0, None), (4, 1, 2), (4, -2, 5), (2, 2, 4)]:
        check(f"{n} {k} {m}", lambda mod: getattr(mod, op)(n, k=k, m=m))


@pytest.mark.parametrize("op", ["tril_indices_from", "triu_indices_from"])
def test_tril_triu_indices_from(op):
    rng = rng_for(op)
    for shape, dtype, k in [((1, 1), F32, 0), ((2, 3), I32, -1), ((3, 2), F32, 1), ((4, 4), I32, 0)]:
        check(f"{shape} {k}", lambda m, v: getattr(m, op)(v, k=k), rand(rng, shape, dtype))


# -- _CompileAndCheck: one tj.function holding a call of each function, against jax.jit of jax.numpy's -------------

_R = np.random.default_rng(11)


def _f(*shape):
    return (2 * _R.normal(size=shape)).astype(F32)


def _z(*shape):
    x = _f(*shape)
    x[_R.random(shape) < 0.4] = 0
    return x


def _n(*shape):
    return np.where(_R.random(shape) < 0.3, np.nan, _f(*shape)).astype(F32)


COMPILED = [
    ("unwrap", lambda m, x: m.unwrap(3 * x, axis=0, period=4), (_f(3, 4),)),
    ("count_nonzero", lambda m, x: m.count_nonzero(x, 1), (_z(3, 4),)),
    ("nonzero size", lambda m, x: m.nonzero(x, size=5, fill_value=-1), (_z(3, 4),)),
    ("flatnonzero size", lambda m, x: m.flatnonzero(x, size=6), (_z(3, 4),)),
    ("argwhere size", lambda m, x: m.argwhere(x, size=6), (_z(3, 4),)),
    ("argmax", lambda m, x: m.argmax(x, axis=1, keepdims=True), (_f(3, 4),)),
    ("nanargmin", lambda m, x: m.nanargmin(x, axis=0), (_n(3, 4),)),
    ("cross", lambda m, a, b: m.cross(a, b, 1, 0, -1), (_f(4, 3), _f(3, 6, 4))),
    ("dot", lambda m, a, b: m.dot(a, b), (_f(4, 3, 2), _f(2, 5))),
    ("matmul", lambda m, a, b: m.matmul(a, b), (_f(3, 1, 3, 4), _f(5, 4, 1))),
    ("vecdot", lambda m, a, b: m.vecdot(a, b, axis=0), (_f(2, 4, 3), _f(2, 1, 3))),
    ("matvec", lambda m, a, b: m.matvec(a, b), (_f(4, 2, 3), _f(3,))),
    ("vecmat", lambda m, a, b: m.vecmat(a, b), (_f(3,), _f(4, 3, 2))),
    ("tensordot", lambda m, a, b: m.tensordot(a, b, [[1, 2], [2, 1]]), (_f(2, 3, 4), _f(5, 4, 3, 6))),
    ("inner", lambda m, a, b: m.inner(a, b), (_f(3, 4), _f(2, 4))),
    ("polyfit", lambda m, x, y: m.polyfit(x, y, 2, cov=True), (_f(8), _f(8))),
    ("clip", lambda m, x: m.clip(x, min=-0.9, max=np.ones(1)), (_f(3, 4),)),
    ("round", lambda m, x: m.round(x, decimals=1), (_f(3, 4),)),
    ("pad constant", lambda m, x: m.pad(x, ((1, 2), (0, 1)), constant_values=(-1, 3.14)), (_f(3, 4),)),
    ("pad wrap", lambda m, x: m.pad(x, 2, mode="wrap"), (_f(3, 4),)),
    ("pad median", lambda m, x: m.pad(x, 1, mode="median", stat_length=2), (_f(3, 4),)),
    ("pad reflect", lambda m, x: m.pad(x, 5, mode="reflect", reflect_type="odd"), (_f(3, 4),)),
    ("pad linear_ramp", lambda m, x: m.pad(x, 2, mode="linear_ramp", end_values=(-8.0, 2.0)), (_f(3, 4),)),
    ("pad callable", lambda m, x: m.pad(x, 1, _jnp_pad_with), (_f(3, 4),)),
    ("tile", lambda m, x: m.tile(x, (2, 1, 2)), (_f(3, 4),)),
    ("extract size", lambda m, c, x: m.extract(c, x, size=5), (_z(3, 4), _f(3, 4))),
    ("piecewise", lambda m, x: m.piecewise(x, [x < 0, x > 1], [lambda v: v - 1, 1, lambda v: v]), (_f(3, 4),)),
    ("transpose", lambda m, x: m.asarray(x).transpose(2, 0, 1), (_f(2, 3, 4),)),
    ("permute_dims", lambda m, x: m.permute_dims(x, (1, 2, 0)), (_f(2, 3, 4),)),
    ("poly", lambda m, x: m.poly(x), (_f(4),)),
    ("polyadd", lambda m, a, b: m.polyadd(a, b), (_f(6), _f(3))),
    ("polyint", lambda m, x: m.polyint(x, m=2, k=np.ones(1, F32)), (_f(6),)),
    ("polyder", lambda m, x: m.polyder(x, m=2), (_f(6),)),
    ("power", lambda m, a, b: m.power(a, b), (np.array([-1, 0, 1], I32), np.array([32, 64, 129], I32))),
    ("compress size", lambda m, c, x: m.compress(c, x, axis=1, size=4, fill_value=1),
     (np.array([True, False, True, True]), _f(3, 4))),
    ("concatenate", lambda m, a, b: m.concatenate([a, b], axis=None), (_f(3, 4), _f(2))),
    ("append", lambda m, a, b: m.append(a, b, axis=0), (_f(3, 4), _f(1, 4))),
    ("delete", lambda m, x: m.delete(x, np.array([0, -1]), axis=1), (_f(3, 4),)),
    ("insert", lambda m, x, v: m.insert(x, slice(1, 3), v, axis=0), (_f(3, 4), _f())),
    ("apply_along_axis", lambda m, x: m.apply_along_axis(_along_axis_fn(2), 1, x), (_f(3, 4),)),
    ("apply_over_axes", lambda m, x: m.apply_over_axes(lambda v, a: v.sum(axis=a, keepdims=True), x, (0, 2)),
     (_f(2, 3, 4),)),
    ("repeat", lambda m, x: m.repeat(x, np.array([2, 0, 1]), axis=0, total_repeat_length=3), (_f(3, 4),)),
    ("convolve", lambda m, a, b: m.convolve(a, b, mode="same"), (_f(12), _f(6))),
    ("correlate", lambda m, a, b: m.correlate(a, b, mode="valid"), (_f(12), _f(6))),
    ("cumsum", lambda m, x: m.cumsum(x, axis=-1, dtype=I32), (_f(3, 4),)),
    ("cumprod", lambda m, x: m.cumprod(x, axis=None), (_f(3, 4),)),
    ("nancumsum", lambda m, x: m.nancumsum(x, axis=0), (_n(3, 4),)),
    ("nancumprod", lambda m, x: m.nancumprod(x, axis=1), (_n(3, 4),)),
    ("eye", lambda m: m.eye(4, M=3, k=-1), ()),
    ("tri", lambda m: m.tri(3, M=4, k=1, dtype=I32), ()),
    ("tril", lambda m, x: m.tril(x, k=-1), (_f(2, 3, 4),)),
    ("triu", lambda m, x: m.triu(x, k=1), (_f(3, 4),)),
]


def test_inside_tj_function():
    @tj.function
    def run(groups):
        return [call(tnp, *g) for (_, call, _), g in zip(COMPILED, groups)]
    got = run([[tj.constant(a) for a in args] for _, _, args in COMPILED])
    want = jax.jit(lambda groups: [call(jnp, *g) for (_, call, _), g in zip(COMPILED, groups)])(
        [list(args) for _, _, args in COMPILED])
    for (label, _, _), g, w in zip(COMPILED, got, want):
        flat_got, flat_want = jax.tree.leaves(g, is_leaf=lambda t: isinstance(t, tj.Tensor)), jax.tree.leaves(w)
        assert len(flat_got) == len(flat_want), label
        for t, a in zip(flat_got, flat_want):
            assert isinstance(t, tj.Tensor) and (t.shape, t.dtype) == (a.shape, a.dtype), (label, t, a.dtype)
            np.testing.assert_allclose(t.numpy(), a, rtol=1e-5, atol=1e-5, err_msg=label)


# -- gradients: tape against jax.vjp, ForwardAccumulator against jax.jvp ------------------------------------------

def _c(*shape):
    return (_R.normal(size=shape) + 1j * _R.normal(size=shape)).astype(C64)


def _away(*shape):  # values kept away from clip's bounds, piecewise's conditions and the medians' ties
    return (np.sign(_R.normal(size=shape)) * _R.uniform(0.2, 0.7, size=shape) + _R.choice([-2, 0, 2], size=shape)
            ).astype(F32)


GRADS = [
    ("unwrap", lambda m, x: m.unwrap(3 * x, axis=-1), (_f(3, 5),)),
    ("cross", lambda m, a, b: m.cross(a, b), (_f(4, 3), _f(4, 3))),
    ("matmul complex", lambda m, a, b: m.matmul(a, b), (_c(3, 4), _c(4, 2))),
    ("vecdot complex", lambda m, a, b: m.vecdot(a, b, axis=0), (_c(4, 3), _c(4, 1))),
    ("vecmat", lambda m, a, b: m.vecmat(a, b), (_f(3), _f(2, 3, 4))),
    ("tensordot", lambda m, a, b: m.tensordot(a, b, [[1, 2], [2, 1]]), (_f(2, 3, 4), _f(5, 4, 3))),
    ("clip", lambda m, x: m.clip(x, min=-1.0, max=1.0), (_away(3, 4),)),
    ("pad maximum", lambda m, x: m.pad(x, (1, 2), mode="maximum", stat_length=2), (_f(3, 4),)),
    ("pad median", lambda m, x: m.pad(x, 1, mode="median", stat_length=(3, 2)), (_away(3, 4),)),
    ("pad reflect odd", lambda m, x: m.pad(x, 5, mode="reflect", reflect_type="odd"), (_f(3, 4),)),
    ("pad linear_ramp", lambda m, x: m.pad(x, 2, mode="linear_ramp", end_values=(-1.0, 2.0)), (_f(3, 4),)),
    ("extract size", lambda m, x: m.extract(np.arange(12).reshape(3, 4) % 3 == 0, x, size=6), (_f(3, 4),)),
    ("piecewise", lambda m, x: m.piecewise(x, [x < -1, x > 1], [lambda v: v * v, 1.0, lambda v: 2 * v]),
     (_away(3, 4),)),
    ("poly", lambda m, x: m.poly(x), (_f(4),)),
    ("polyint", lambda m, x, k: m.polyint(x, m=2, k=k), (_f(5), _f(2))),
    ("insert", lambda m, x, v: m.insert(x, np.array([1, 1, 3]), v, axis=1), (_f(3, 4), _f(3))),
    ("apply_along_axis", lambda m, x: m.apply_along_axis(_along_axis_fn(1), 0, x), (_f(3, 4),)),
    ("repeat", lambda m, x: m.repeat(x, np.array([1, 0, 2]), axis=0), (_f(3, 4),)),
    ("convolve", lambda m, a, b: m.convolve(a, b, mode="full"), (_f(6), _f(4))),
    ("cumprod", lambda m, x: m.cumprod(x, axis=None), (_away(3, 4) + 2,)),
    ("nancumprod", lambda m, x: m.nancumprod(x, axis=1), (np.where(_z(3, 4) == 0, np.nan, _away(3, 4)).astype(F32),)),
    ("triu", lambda m, x: m.triu(x, k=-1), (_f(2, 3, 4),)),
]
FORWARD = ["unwrap", "matmul complex", "pad median", "piecewise", "insert", "cumprod"]


def _cotangent(label, like):
    r = np.random.default_rng(zlib.crc32(label.encode()))
    w = r.normal(size=like.shape)
    return (w + 1j * r.normal(size=like.shape) if np.issubdtype(like.dtype, np.complexfloating) else w).astype(
        like.dtype)


@functools.lru_cache(maxsize=None)
def _jax_references():
    """{label: ((TF-convention gradients, JVP), output gradient, tangents)} for GRADS, from one jitted program: the
    gradient for the output gradient w is conj(vjp(conj(w))) (API.md: tape.gradient = conj of JAX's cotangent; the
    same for real values)."""
    cotangents = [_cotangent(label, jax.eval_shape(functools.partial(call, jnp), *args)) for label, call, args in GRADS]
    tangents = [[_cotangent(label + " tangent", a) for a in args] for label, _, args in GRADS]

    def all_references(inputs, cts, tans):
        out = []
        for (_, call, _), xs, w, t in zip(GRADS, inputs, cts, tans):
            fn = functools.partial(call, jnp)
            _, vjp = jax.vjp(fn, *xs)
            out.append(([jnp.conj(g) for g in vjp(jnp.conj(w))], jax.jvp(fn, tuple(xs), tuple(t))[1]))
        return out
    refs = jax.jit(all_references)([list(a) for _, _, a in GRADS], cotangents, tangents)
    return {label: (jax.tree.map(np.asarray, r), w, t)
            for (label, _, _), r, w, t in zip(GRADS, refs, cotangents, tangents)}


@pytest.mark.parametrize("label", [g[0] for g in GRADS])
def test_tape_gradient_as_jax_vjp(label):
    _, call, args = next(g for g in GRADS if g[0] == label)
    (want, _), w, _ = _jax_references()[label]
    xs = [tj.constant(a) for a in args]
    with tj.GradientTape() as tape:
        tape.watch(xs)
        y = call(tnp, *xs)
    grads = tape.gradient(y, xs, output_gradients=w)
    for g, e in zip(grads, want):
        assert g is not None and g.dtype == e.dtype and g.shape == e.shape, (label, g, e.dtype, e.shape)
        np.testing.assert_allclose(g.numpy(), e, rtol=1e-4, atol=1e-4, err_msg=label)


@pytest.mark.parametrize("label", FORWARD)
def test_forward_as_jvp(label):
    _, call, args = next(g for g in GRADS if g[0] == label)
    (_, want), _, tangents = _jax_references()[label]
    xs = [tj.constant(a) for a in args]
    with tj.ForwardAccumulator(xs, [tj.constant(t) for t in tangents]) as acc:
        y = call(tnp, *xs)
    got = acc.jvp(y)
    assert got is not None and got.dtype == want.dtype
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-4, err_msg=label)


def test_round_has_no_gradient():
    # TF registers no gradient for Round (API.md's TF conventions): None, where jax.grad gives zeros
    x = tj.constant(_f(3, 4))
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.round(x, 1)
    assert tape.gradient(y, x) is None
    np.testing.assert_array_equal(jax.grad(lambda v: jnp.sum(jnp.round(v, 1)))(x.numpy()), 0)
