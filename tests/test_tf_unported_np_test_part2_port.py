"""TensorFlow's np_test.py (JAX's lax_numpy_test run on tf.experimental.numpy), second part, ported to tj.numpy.

Source: tensorflow/python/ops/numpy_ops/tests/np_test.py, LaxBackedNumpyTests: the methods whose ``def`` lies at
character offsets [36000, 64000) of the file: testCross, testDot, testMatmul, testVDot, testTensordot, testInner,
testClipStaticBounds, testClipAsMethodStaticBounds, testRoundStaticDecimals, testOperatorRound, testPad, testTile,
testConcatenate, testAppend, testRepeat, testIssue1233. All are ported; none is left out. Several are skipped in
TF and ported anyway: testCross (skipped under NumPy 2), testVDot and testClipAsMethodStaticBounds (@new_test,
off without its flag), testPad (jtu.disable), testRoundStaticDecimals' integers with decimals < 0 (skipTest) and
testClipStaticBounds' two-sided bounds (left out under NumPy 2).

How TF maps to tj: tnp.f (np_wrapper over tf.experimental.numpy) is tj.numpy.f; tnp.array(x).__matmul__ /
__rmatmul__ / .clip are Tensor methods; _CompileAndCheck is the op run inside tj.function against eager (on a
few cases of each method); the rng factories are a seeded RandomState (normal draws times 3, as rand_default). The
grids are sampled: every shape entry of each method's list, a few dtypes (float32, int32, complex64 and bool where
the method's dtypes allow, float16 and the x64 types once or twice), a NumPy scalar and a Python scalar, empty
shapes and broadcasting pairs. NumPy computes each expected value at test time, as np_test does; where np_test
promotes its NumPy inputs like tnp (_promote_like_lnp, tnp.promote_types), they are cast to jax.numpy's result
dtype instead, and the expected shape and dtype are jax.numpy's (jax.eval_shape of the jnp function: traced,
nothing run). TF 2.21's tnp was run here on every value case (numpy behaviour on, legacy dtype mode) and agrees
with NumPy wherever it accepts the arguments. np_test checks no gradients for these ops; this file checks tape
gradients (and a few JVPs, one tape inside tj.function) against TF 2.21's, hard-coded, or against jax.vjp of the
jnp function (real inputs, where TF's and JAX's conventions agree). Beyond np_test: misshapen arguments raise
NumPy's ValueError (TF: InvalidArgumentError). TensorFlow is not imported.

Sanctioned differences (API.md: tj.numpy follows jax.numpy's signatures and NumPy's rules; JAX's x64 off):
- dtypes: TF's tnp gives float64 / int64 / complex128 where jax.numpy gives 32-bit types (Python floats, float64
  and int64 inputs), and float64 for int32 with float16 and for int64 with float16 (concatenate, append, cross),
  where JAX's promotion gives float16;
- pad: TF 2.21's tnp.pad takes widths only as an [ndim, 2] matrix and constant_values only as a scalar, has no
  'wrap' mode (ValueError) and refuses reflect widths past the axis size (InvalidArgumentError), and ``mode`` has
  no default; tj.numpy takes NumPy's forms (a scalar, a pair, per-axis widths and constant values; mode
  'constant' by default);
- round of integers with decimals < 0: NumPy's multiples, halves to even; TF 2.21 rounds [-250, -150, -50, -49,
  49, 50, 51, 150, 250, 12345, 2**31 - 1] to hundreds as [-200, -100, 0, 0, 0, 0, 100, 100, 200, 12300,
  -2147483648] (halves up, 2**31 - 1 wraps) and jax.numpy raises NotImplementedError;
- clip with a_min > a_max gives a_max (NumPy, jax.numpy); TF 2.21's clip gives a_min;
- clip's bound keywords: jax.numpy's are min= / max= (it dropped a_min / a_max); tj.numpy takes both spellings;
- tnp.float32(x) is jax.numpy's scalar type called as tj.numpy's (a Tensor, its cast recorded), where TF's is
  NumPy's np.float32 (a NumPy value); round() of a float32 Tensor without digits gives a float32 Tensor (TF too;
  NumPy a Python int);
- a tj.function given a Tensor of repeats as an argument raises (XLA needs the result's shape, as jax.jit); TF
  2.21's tf.function runs it as a dynamic-shape graph. Closed-over Tensors of repeats work.

Differences from TF that are tapejax bugs: none found (no xfail here).
"""
from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from conftest import D, close_to_tf
from numpy_reference import jax_cross, numpy_cross

tnp = tj.numpy

PY = "py"  # np_test's PYTHON_SCALAR_SHAPE: a Python number
NPS = "nps"  # np_test's NUMPY_SCALAR_SHAPE: a NumPy scalar
F16, F32, F64, I32, I64, C64, BOOL = (np.float16, np.float32, np.float64, np.int32, np.int64, np.complex64,
                                      np.bool_)
TOL = {np.dtype(F16): 2e-2, np.dtype(F32): 2e-5, np.dtype(C64): 2e-5}


def rand(shape, dtype, seed):
    """np_test's rand_default (normal draws scaled by 3, rounded for integers) from a seeded RandomState."""
    rng = np.random.RandomState(seed)
    dims = () if shape in (PY, NPS) else shape
    x = rng.standard_normal(dims) * 3
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        x = x + 3j * rng.standard_normal(dims)
    elif dtype.kind == "i":
        x = np.round(x)
    elif dtype.kind == "b":
        x = x > 0
    x = np.asarray(x).astype(dtype)
    if shape == PY:
        return x.item()
    return x[()] if shape == NPS else x


def jax_struct(fn, *args):
    """jax.numpy's result shape and dtype for ``fn`` on ``args`` (traced, nothing run): the reference for dtypes."""
    return jax.eval_shape(fn, *args)


def ref_dtype(*args):
    """jax.numpy's promoted dtype of ``args`` (x64 off), to cast NumPy's inputs to before NumPy computes."""
    return np.dtype(jnp.result_type(*args))


def numpy_ref(fn, *args, dtype):
    """NumPy's result of ``fn`` on ``args`` cast to ``dtype`` (NumPy's DeprecationWarnings ignored)."""
    cast = [np.asarray(a).astype(dtype) for a in args]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return np.asarray(fn(*cast)).astype(dtype)


def check(label, got, want, struct):
    """``got`` (a Tensor) has jax.numpy's shape and dtype (``struct``) and NumPy's values ``want``."""
    assert isinstance(got, tj.Tensor), (label, type(got))
    assert (tuple(got.shape), np.dtype(got.dtype)) == (tuple(struct.shape), np.dtype(struct.dtype)), \
        (label, got.shape, got.dtype, struct.shape, struct.dtype)
    want = np.asarray(want)
    assert want.shape == tuple(struct.shape), (label, want.shape)
    g = np.asarray(got.numpy())
    if np.issubdtype(g.dtype, np.inexact):
        tol = TOL.get(np.dtype(got.dtype), 1e-6)
        scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
        np.testing.assert_allclose(g.astype(np.complex128), want.astype(np.complex128), rtol=tol,
                                   atol=tol * scale, err_msg=label)
    else:
        np.testing.assert_array_equal(g, want, err_msg=label)


def compiled_matches(fn, args, eager):
    """np_test's _CompileAndCheck: the op inside tj.function gives the eager result (dtype and values)."""
    out = tj.function(fn)(*args)
    outs, eagers = (out, eager) if isinstance(out, (tuple, list)) else ((out,), (eager,))
    for o, e in zip(outs, eagers):
        assert (o.shape, o.dtype) == (e.shape, e.dtype)
        np.testing.assert_allclose(np.asarray(o.numpy()), np.asarray(e.numpy()), rtol=1e-5, atol=1e-5)


def tape_grads(fn, args, upstream):
    """Tape gradients of ``sum(fn(*args) * upstream)`` with respect to each float arg."""
    ts = [tj.constant(a) for a in args]
    with tj.GradientTape() as tape:
        tape.watch(ts)
        loss = tnp.sum(fn(*ts) * upstream)
    return tape.gradient(loss, ts)


def jax_grads(jfn, args, upstream):
    """The same gradients by jax.vjp of the jax.numpy function (for real inputs TF's convention is JAX's)."""
    out, vjp = jax.vjp(jfn, *[jnp.asarray(a) for a in args])
    return vjp(jnp.asarray(upstream, out.dtype))


def case_id(*parts):
    return "-".join(np.dtype(p).name if isinstance(p, type) else str(p).replace(" ", "") for p in parts)


# -- testCross -------------------------------------------------------------------------------------------------

CROSS_SHAPES = [  # np_test's (lhs shape, rhs shape, (axisa, axisb, axisc, axis)) list, every entry
    ((2,), (2,), (-1, -1, -1, None)),  # 2-d vectors: a scalar
    ((2, 4), (2, 4), (-1, -1, -1, 0)),
    ((3, 4), (3, 4), (-1, -1, -1, 0)),
    ((3, 4), (3, 6, 5, 4), (-1, -1, -1, 0)),  # broadcasting
    ((4, 3), (3, 6, 5, 4), (1, 0, -1, None)),  # other axes
    ((6, 1, 3), (5, 3), (-1, -1, -1, None)),
    ((6, 1, 2), (5, 3), (-1, -1, -1, None)),  # a 2-d vector with a 3-d one
    ((10, 5, 2, 8), (1, 5, 1, 3), (-2, -1, -3, None)),
    ((4, 5, 2), (4, 5, 2), (-1, -1, 0, None)),  # axisc unused (2-d vectors give scalars)
    ((4, 5, 2), (4, 5, 2), (-1, -1, -1, None)),
]
CROSS_CASES = [(s, F32, F32) for s in CROSS_SHAPES] + [
    (CROSS_SHAPES[2], a, b) for a, b in [(I32, I32), (I32, F32), (F64, I64)]] + [(CROSS_SHAPES[5], I32, F16)]


@pytest.mark.parametrize("shapes,da,db", CROSS_CASES, ids=[case_id(s[0], s[1], a, b) for s, a, b in CROSS_CASES])
def test_cross(shapes, da, db):
    sa, sb, (axisa, axisb, axisc, axis) = shapes
    a, b = rand(sa, da, 1), rand(sb, db, 2)
    got = tnp.cross(a, b, axisa, axisb, axisc, axis)
    struct = jax_struct(lambda x, y: jax_cross(x, y, axisa, axisb, axisc, axis), a, b)
    want = numpy_ref(lambda x, y: numpy_cross(x, y, axisa, axisb, axisc, axis), a, b, dtype=ref_dtype(a, b))
    check("cross", got, want, struct)
    if da is F32 and db is F32 and sa in ((6, 1, 2), (10, 5, 2, 8)):
        compiled_matches(lambda x, y: tnp.cross(x, y, axisa, axisb, axisc, axis), (a, b), got)


# -- testDot / testMatmul / testVDot ---------------------------------------------------------------------------

DOT_SHAPES = {
    "matrix-scalar": ((3, 3), ()), "scalar-matrix": ((), (3, 3)), "matrix-vector": ((4, 5), (5,)),
    "vector-matrix": ((6,), (6, 4)), "matrix-matrix": ((3, 4), (4, 5)), "tensor-vector": ((4, 3, 2), (2,)),
    "vector-tensor": ((2,), (3, 2, 4)), "tensor-matrix": ((4, 3, 2), (2, 5)), "matrix-tensor": ((5, 2), (3, 2, 4)),
    "tensor-tensor": ((2, 3, 4), (5, 4, 1)),
}
DOT_CASES = [(n, F32, F32) for n in DOT_SHAPES] + [
    ("matrix-vector", a, b) for a, b in [(I32, I32), (I32, F32), (F32, C64), (C64, C64), (F16, F16), (F64, I64)]] + [
    ("scalar-matrix", I32, F32), ("tensor-tensor", I32, C64)]


@pytest.mark.parametrize("name,da,db", DOT_CASES, ids=[case_id(*c) for c in DOT_CASES])
def test_dot(name, da, db):
    sa, sb = DOT_SHAPES[name]
    a, b = rand(sa, da, 3), rand(sb, db, 4)
    got = tnp.dot(a, b)
    check("dot", got, numpy_ref(np.dot, a, b, dtype=ref_dtype(a, b)), jax_struct(jnp.dot, a, b))
    if name == "tensor-tensor" and da is F32:
        compiled_matches(tnp.dot, (a, b), got)


MATMUL_SHAPES = {
    "vector-vector": ((3,), (3,)), "matrix-vector": ((3, 3), (3,)), "vector-matrix": ((3,), (3, 3)),
    "matrix-matrix": ((3, 3), (3, 3)), "vector-tensor": ((3,), (5, 3, 2)), "tensor-vector": ((5, 3, 2), (2,)),
    "matrix-tensor": ((5, 2), (3, 2, 4)), "tensor-matrix": ((5, 2, 3), (3, 2)), "tensor-tensor": ((5, 3, 4), (5, 4, 1)),
    "tensor-tensor-broadcast": ((3, 1, 3, 4), (5, 4, 1)),
}
MATMUL_CASES = [(n, F32, F32) for n in MATMUL_SHAPES] + [
    ("matrix-matrix", a, b) for a, b in [(I32, I32), (I32, F32), (C64, F32), (F16, F16)]] + [
    ("tensor-tensor-broadcast", C64, C64)]


@pytest.mark.parametrize("name,da,db", MATMUL_CASES, ids=[case_id(*c) for c in MATMUL_CASES])
def test_matmul(name, da, db):
    sa, sb = MATMUL_SHAPES[name]
    a, b = rand(sa, da, 5), rand(sb, db, 6)
    want = numpy_ref(np.matmul, a, b, dtype=ref_dtype(a, b))
    struct = jax_struct(jnp.matmul, a, b)
    got = tnp.matmul(a, b)
    check("matmul", got, want, struct)
    check("a @ b", tj.constant(a) @ b, want, struct)  # np_test: tnp.array(x).__matmul__(y)
    check("b.__rmatmul__(a)", tj.constant(b).__rmatmul__(a), want, struct)
    if name in ("vector-vector", "tensor-tensor-broadcast") and da is F32:
        compiled_matches(lambda x, y: (tnp.matmul(x, y), x @ y), (a, b), (got, got))


VDOT_SHAPES = {"vector-vector": ((3,), (3,)), "vector-matrix": ((9,), (3, 3)), "matrix-matrix": ((3, 3), (3, 3)),
               "tensor-vector": ((5, 3, 2), (30,))}
VDOT_CASES = [(n, F32, F32) for n in VDOT_SHAPES] + [
    ("vector-vector", a, b) for a, b in [(C64, C64), (I32, F32), (C64, F32), (I32, I32), (F16, F16)]] + [
    ("tensor-vector", C64, C64)]


@pytest.mark.parametrize("name,da,db", VDOT_CASES, ids=[case_id(*c) for c in VDOT_CASES])
def test_vdot(name, da, db):  # a @new_test in np_test (skipped without its flag)
    sa, sb = VDOT_SHAPES[name]
    a, b = rand(sa, da, 7), rand(sb, db, 8)
    got = tnp.vdot(a, b)  # conjugates its first argument
    check("vdot", got, numpy_ref(np.vdot, a, b, dtype=ref_dtype(a, b)), jax_struct(jnp.vdot, a, b))
    if name == "tensor-vector":
        compiled_matches(tnp.vdot, (a, b), got)


# -- testTensordot / testInner ---------------------------------------------------------------------------------

TENSORDOT_SHAPES = [
    ((2, 3, 4), (5, 6, 7), 0),  # an outer product
    ((2, 3, 4), (3, 4, 5, 6), 2),
    ((2, 3, 4), (5, 4, 3, 6), [1, 2]),
    ((2, 3, 4), (5, 4, 3, 6), [[1, 2], [2, 1]]),
    ((1, 2, 3, 4), (4, 5, 3, 6), [[2, 3], [2, 0]]),
]
TENSORDOT_CASES = [(s, F32, F32) for s in TENSORDOT_SHAPES] + [
    (TENSORDOT_SHAPES[1], a, b) for a, b in [(I32, I32), (C64, F32), (F16, F32)]] + [
    (TENSORDOT_SHAPES[3], I32, C64)]


@pytest.mark.parametrize("shapes,da,db", TENSORDOT_CASES,
                         ids=[case_id(s[0], s[1], s[2], a, b) for s, a, b in TENSORDOT_CASES])
def test_tensordot(shapes, da, db):
    sa, sb, axes = shapes
    a, b = rand(sa, da, 9), rand(sb, db, 10)
    got = tnp.tensordot(a, b, axes)
    struct = jax_struct(lambda x, y: jnp.tensordot(x, y, axes), a, b)
    check("tensordot", got, numpy_ref(lambda x, y: np.tensordot(x, y, axes), a, b, dtype=ref_dtype(a, b)), struct)
    if da is F32 and db is F32 and isinstance(axes, list):
        compiled_matches(lambda x, y: tnp.tensordot(x, y, axes), (a, b), got)


INNER_CASES = [  # np_test pairs inexact dtypes over all shapes where a side is a scalar or the last sizes agree
    ((), (3, 4), F32, F32), (PY, (4,), F64, F32), (NPS, (2, 1, 4), F32, F32), ((4,), (4,), F32, C64),
    ((3, 4), (2, 1, 4), F32, F32), ((3, 4), (3, 4), C64, C64), ((0, 4), (3, 4), F32, F32),
    ((3, 0), (3, 0), F32, F32), ((4,), (3, 4), F16, F16), ((1, 4), (4,), F64, F32), ((3, 4), PY, F32, C64),
]


@pytest.mark.parametrize("sa,sb,da,db", INNER_CASES, ids=[case_id(*c) for c in INNER_CASES])
def test_inner(sa, sb, da, db):
    a, b = rand(sa, da, 11), rand(sb, db, 12)
    got = tnp.inner(a, b)
    check("inner", got, numpy_ref(np.inner, a, b, dtype=ref_dtype(a, b)), jax_struct(jnp.inner, a, b))
    if (sa, sb) in (((3, 4), (2, 1, 4)), ((3, 0), (3, 0))):
        compiled_matches(tnp.inner, (a, b), got)


# -- testClipStaticBounds / testClipAsMethodStaticBounds -------------------------------------------------------

CLIP_BOUNDS = [(-1, None), (None, 1), (-np.ones(1), None), (None, np.ones(1)),
               (-1, 1), (-np.ones(1), np.ones(1))]  # the last two: np_test leaves them out under NumPy 2
CLIP_CASES = [(s, d, k) for s in (NPS, (), (3, 4), (3, 0)) for d in (F32, I32) for k in range(6)] + [
    (PY, d, k) for d in (F64, I64) for k in (0, 1, 4, 5)] + [((4,), F16, 4), ((2, 3), F64, 5), ((2, 3), I64, 2)]


def clip_reference(x, a_min, a_max):
    struct = jax_struct(lambda v: jnp.clip(v, min=a_min, max=a_max), x)
    return numpy_ref(lambda v: np.clip(v, a_min, a_max), x, dtype=struct.dtype), struct


@pytest.mark.parametrize("shape,dtype,k", CLIP_CASES, ids=[case_id(*c) for c in CLIP_CASES])
def test_clip_static_bounds(shape, dtype, k):
    a_min, a_max = CLIP_BOUNDS[k]
    x = rand(shape, dtype, 13)
    want, struct = clip_reference(x, a_min, a_max)
    got = tnp.clip(x, a_min=a_min, a_max=a_max)  # TF's (and NumPy 1's) keyword names
    check("clip", got, want, struct)
    check("clip min/max", tnp.clip(x, min=a_min, max=a_max), want, struct)  # jax.numpy's names
    if shape == (3, 4) and k in (0, 5):
        compiled_matches(lambda v: tnp.clip(v, a_min=a_min, a_max=a_max), (x,), got)


@pytest.mark.parametrize("shape,dtype,k", [c for c in CLIP_CASES if c[0] != PY],
                         ids=[case_id(*c) for c in CLIP_CASES if c[0] != PY])
def test_clip_as_method_static_bounds(shape, dtype, k):  # a @new_test in np_test
    a_min, a_max = CLIP_BOUNDS[k]
    x = rand(shape, dtype, 13)
    want, struct = clip_reference(x, a_min, a_max)
    check("Tensor.clip", tnp.asarray(x).clip(a_min=a_min, a_max=a_max), want, struct)
    if shape == (3, 4) and k == 4:
        compiled_matches(lambda v: v.clip(a_min=a_min, a_max=a_max), (tnp.asarray(x),), tnp.clip(x, -1, 1))


# -- testRoundStaticDecimals / testOperatorRound ---------------------------------------------------------------

ROUND_CASES = [(s, d, k) for s in (NPS, (), (4,), (3, 0), (2, 3, 4)) for d in (F32, I32) for k in (0, 1, -2)
               if d is F32 or k != 1 or s == (4,)] + [
    (PY, F64, k) for k in (0, 1, -2)] + [(PY, I64, k) for k in (0, -2)] + [((3, 4), F16, 1), ((3, 4), F64, -2)]


@pytest.mark.parametrize("shape,dtype,decimals", ROUND_CASES, ids=[case_id(*c) for c in ROUND_CASES])
def test_round_static_decimals(shape, dtype, decimals):
    # np_test skips integers with decimals < 0 ("not implemented"); tj.numpy gives NumPy's result there (jax.numpy
    # raises NotImplementedError). The inputs are scaled so that rounding to hundreds has something to round.
    x = rand(shape, dtype, 14)
    if decimals < 0:
        x = x * dtype(100) if shape != PY else x * 100
    struct = jax_struct(lambda v: jnp.round(v, max(decimals, 0)), x)  # (the shape and dtype: decimals aside)
    want = numpy_ref(lambda v: np.round(v, decimals), x, dtype=struct.dtype)
    got = tnp.round(x, decimals=decimals)
    check("round", got, want, struct)
    if shape == (2, 3, 4) and decimals == 1:
        compiled_matches(lambda v: tnp.round(v, decimals=decimals), (x,), got)


def test_round_negative_decimals_integer_ties():
    # NumPy rounds integer halves to even; TF 2.21's tnp.round([15, 25, -35], -1) gives [19, 29, -39] (np_test
    # skips the case); tj.numpy follows NumPy.
    x = np.array([-250, -150, -50, -49, 49, 50, 51, 150, 250, 12345, 2 ** 31 - 1], np.int32)
    want = [-200, -200, 0, 0, 0, 0, 100, 200, 200, 12300, 2147483600]
    np.testing.assert_array_equal(np.round(x, -2), want)
    got = tnp.round(x, -2)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got.numpy(), want)


def test_operator_round():
    # Python's round() on a float32 scalar: NumPy's values and float32; round(x) without digits compares values
    # only (NumPy gives a Python int).
    for make in (tnp.float32, lambda v: tnp.array(v, tnp.float32), lambda v: tj.constant(np.float32(v))):
        r = round(make(7.5), 1)
        assert np.dtype(r.dtype) == np.float32 and float(r) == float(round(np.float32(7.532), 1)) == 7.5
        r = round(make(1.234), 2)
        assert np.dtype(r.dtype) == np.float32 and np.float32(r) == round(np.float32(1.234), 2)
        assert float(round(make(1.234))) == round(np.float32(1.234)) == 1
    assert isinstance(round(tj.constant(np.float32(7.532)), 1), tj.Tensor)


# -- testPad (disabled in np_test with jtu.disable) -------------------------------------------------------------

PAD_MODES = [("constant", 0), ("constant", 1), ("constant", 2), ("symmetric", None), ("reflect", None),
             ("wrap", None)]
PAD_SHAPES = [(), (4,), (3, 1), (2, 1, 4), (3, 4)]
PAD_DTYPES = [F32, I32, BOOL, C64, F32]
PAD_CASES = [(m, cv, r, PAD_SHAPES[(i + r) % 5], PAD_DTYPES[(2 * i + r) % 5])
             for i, (m, cv) in enumerate(PAD_MODES) for r in range(3)] + [
    ("constant", 0, 2, (3, 0), F32), ("constant", 2, 1, (0, 4), I32), ("reflect", None, 2, (2, 1, 4), F16),
    ("wrap", None, 0, NPS, F32), ("symmetric", None, 1, PY, F64), ("constant", 1, 2, PY, I64)]


def pad_args(shape, dtype, mode, cv_rank, width_rank):
    """np_test's arguments: pad widths in [0, 3) of shape [ndim, 2][2 - rank:], constant values likewise."""
    ndim = 0 if shape in (PY, NPS) else len(shape)
    width = np.random.RandomState(15).randint(0, 3, size=[ndim, 2][2 - width_rank:]).astype(np.int32)
    kwargs = {}
    if cv_rank:
        kwargs["constant_values"] = rand([ndim, 2][2 - cv_rank:], dtype, 16)
    elif cv_rank == 0:
        kwargs["constant_values"] = rand((), dtype, 16)
    return rand(shape, dtype, 17), width, kwargs


@pytest.mark.parametrize("mode,cv_rank,width_rank,shape,dtype", PAD_CASES, ids=[case_id(*c) for c in PAD_CASES])
def test_pad(mode, cv_rank, width_rank, shape, dtype):
    x, width, kwargs = pad_args(shape, dtype, mode, cv_rank, width_rank)
    got = tnp.pad(x, width, mode=mode, **kwargs)
    struct = jax_struct(lambda v: jnp.pad(v, width, mode=mode, **kwargs), x)
    if width.size == 0:  # np_test's reference: no widths (a 0-d array's [0, 2]) leave x as it is
        want = np.asarray(x).astype(struct.dtype)
    else:
        want = numpy_ref(lambda v: np.pad(v, width, mode=mode, **kwargs), x, dtype=struct.dtype)
    check(f"pad {mode}", got, want, struct)
    if shape == (2, 1, 4) and dtype is not F16:
        compiled_matches(lambda v: tnp.pad(v, width, mode=mode, **kwargs), (x,), got)


# -- testTile --------------------------------------------------------------------------------------------------

TILE_REPS = [(), (2,), (3, 4), (2, 3, 4)]
TILE_SHAPES = [PY, NPS, (), (3, 1), (3, 0), (2, 1, 4)]
TILE_CASES = [(s, (F32, I32)[(i + j) % 2], reps) for i, s in enumerate(TILE_SHAPES)
              for j, reps in enumerate(TILE_REPS)] + [((3, 1), F16, (2,)), ((2, 1, 4), F64, (3, 4)), (PY, I64, (2,))]


@pytest.mark.parametrize("shape,dtype,reps", TILE_CASES, ids=[case_id(*c) for c in TILE_CASES])
def test_tile(shape, dtype, reps):
    x = rand(shape, dtype, 18)
    got = tnp.tile(x, reps)
    struct = jax_struct(lambda v: jnp.tile(v, reps), x)
    check("tile", got, numpy_ref(lambda v: np.tile(v, reps), x, dtype=struct.dtype), struct)
    if shape == (2, 1, 4) and dtype is not F64:
        compiled_matches(lambda v: tnp.tile(v, reps), (x,), got)


# -- testConcatenate / testAppend ------------------------------------------------------------------------------

BASE_AXES = [((4,), 0), ((3, 4), -1), ((3, 4), 0), ((3, 4), 1), ((2, 3, 4), -2), ((2, 3, 4), -1), ((2, 3, 4), 0),
             ((2, 3, 4), 1), ((2, 3, 4), 2)]  # np_test's base shapes and axes in range(1 - ndim, ndim)
CONCAT_DTYPES = [(F32, F32, F32), (F32, I32, F32), (I32, I32, I32), (F16, F32, I32), (F64, I64, I32),
                 (I64, I64, F16), (F16, F16, F16)]
APPEND_DTYPES = [(F32, F32), (I32, F32), (I32, I32), (F16, I32), (F64, I64), (F16, F16), (I64, F32)]


def pieces(base, axis, dtypes, seed):
    """One array per dtype, sized 3, 1, 4, 3... along ``axis``, the rest of ``base`` (np_test's arguments)."""
    ax = axis % len(base)
    sizes = [3, 1, 4, 3]
    return [rand(base[:ax] + (n,) + base[ax + 1:], d, seed + i) for i, (n, d) in enumerate(zip(sizes, dtypes))]


@pytest.mark.parametrize("base,axis,dtypes", [(b, a, CONCAT_DTYPES[i % 7]) for i, (b, a) in enumerate(BASE_AXES)])
def test_concatenate(base, axis, dtypes):
    args = pieces(base, axis, dtypes, 19)
    got = tnp.concatenate(args, axis=axis)
    struct = jax_struct(lambda *v: jnp.concatenate(v, axis=axis), *args)
    check("concatenate", got, numpy_ref(lambda *v: np.concatenate(v, axis=axis), *args, dtype=struct.dtype), struct)
    if base == (2, 3, 4) and axis == 1:
        compiled_matches(lambda *v: tnp.concatenate(v, axis=axis), args, got)


@pytest.mark.parametrize("base,axis,dtypes", [(b, a, APPEND_DTYPES[i % 7]) for i, (b, a) in enumerate(BASE_AXES)])
def test_append(base, axis, dtypes):
    arr, values = pieces(base, axis, dtypes, 20)
    got = tnp.append(arr, values, axis=axis)
    struct = jax_struct(lambda u, v: jnp.append(u, v, axis=axis), arr, values)
    check("append", got, numpy_ref(lambda u, v: np.append(u, v, axis=axis), arr, values, dtype=struct.dtype), struct)
    if base == (3, 4) and axis == -1:
        compiled_matches(lambda u, v: tnp.append(u, v, axis=axis), (arr, values), got)


def test_append_no_axis_flattens():
    # np.append without an axis ravels both arguments (the default of np_test's onp reference)
    a, b = rand((2, 3), F32, 21), rand((4,), I32, 22)
    got = tnp.append(a, b)
    check("append flat", got, np.append(a, b).astype(np.float32), jax_struct(jnp.append, a, b))


# -- testRepeat / testIssue1233 --------------------------------------------------------------------------------

REPEAT_CASES = [(r, s, (F32, I32)[i % 2], ax) for r in (0, 1, 2)
                for i, (s, ax) in enumerate([(PY, None), (NPS, None), ((), 0), ((), None), ((4,), -1), ((3, 4), None),
                                             ((3, 4), -2), ((3, 4), 1), ((3, 0), 0), ((3, 0), 1), ((2, 1, 4), 1)])
                if (r + i) % 2 == 0 or s == (3, 4)] + [(2, (2, 1, 4), F16, 2), (2, (3, 4), F64, 0), (1, PY, I64, 0)]


@pytest.mark.parametrize("repeats,shape,dtype,axis", REPEAT_CASES, ids=[case_id(*c) for c in REPEAT_CASES])
def test_repeat(repeats, shape, dtype, axis):
    x = rand(shape, dtype, 23)
    got = tnp.repeat(x, repeats=repeats, axis=axis)
    struct = jax_struct(lambda v: jnp.repeat(v, repeats=repeats, axis=axis), x)
    check("repeat", got, numpy_ref(lambda v: np.repeat(v, repeats, axis=axis), x, dtype=struct.dtype), struct)
    if shape == (3, 4) and repeats == 2:
        compiled_matches(lambda v: tnp.repeat(v, repeats=repeats, axis=axis), (x,), got)


M = np.array([1, 2, 3, 4, 5, 6], np.int32)
ISSUE1233_CASES = [  # (m, repeats, axis, repeats given as a tnp array)
    *[(M, r, None, t) for r, t in [(2, False), ([1, 3, 2, 1, 1, 2], False), ([1, 3, 0, 1, 1, 2], False),
                                   ([2], False), ([1, 3, 2, 1, 1, 2], True), ([2], True)]],
    *[(M.reshape(2, 3), r, 0, t) for r, t in [(2, False), ([2, 1], False), ([2], False), ([2, 1], True),
                                              ([2], True)]],
    *[(M.reshape(2, 3), r, 1, t) for r, t in [(2, False), ([1, 3, 2], False), ([2], False), ([1, 3, 2], True),
                                              ([2], True)]],
]


@pytest.mark.parametrize("m,repeats,axis,as_tensor", ISSUE1233_CASES, ids=[case_id(*c) for c in ISSUE1233_CASES])
def test_issue1233(m, repeats, axis, as_tensor):
    # NumPy's test_repeat cases: repeats as an int, a list, a one-element list (broadcast) or a tnp array, on a
    # tnp array m
    reps = tnp.array(repeats) if as_tensor else repeats
    want = np.repeat(m, repeats, axis)
    got = tnp.repeat(tnp.array(m), reps, axis)
    assert got.dtype == np.int32 and got.shape == want.shape
    np.testing.assert_array_equal(got.numpy(), want)
    if as_tensor and len(repeats) > 1:  # compiled, the repeats closed over (a Tensor's value fixes the shape)
        compiled_matches(lambda v: tnp.repeat(v, reps, axis), (tnp.array(m),), got)


def test_repeat_traced_repeats_raise_clearly():
    # inside tj.function a Tensor of repeats given as an argument is traced: the result's shape is unknown, and
    # XLA needs it (as jax.jit; TF 2.21's tf.function runs it as a dynamic-shape graph, its XLA path cannot)
    fn = tj.function(lambda v, r: tnp.repeat(v, r, axis=1))
    with pytest.raises((TypeError, ValueError), match="repeats"):
        fn(tnp.array(M.reshape(2, 3)), tnp.array([1, 3, 2]))


BAD_INPUTS = {  # beyond np_test: misshapen arguments raise NumPy's class (ValueError; AxisError is one)
    "cross-4-vectors": lambda: tnp.cross(np.ones((3, 4), F32), np.ones((3, 4), F32)),
    "dot-mismatch": lambda: tnp.dot(np.ones((3, 4), F32), np.ones(5, F32)),
    "matmul-mismatch": lambda: tnp.matmul(np.ones((3, 4), F32), np.ones((5, 2), F32)),
    "matmul-scalar": lambda: tnp.matmul(np.ones((3, 4), F32), 2.0),
    "vdot-sizes": lambda: tnp.vdot(np.ones(3, F32), np.ones(4, F32)),
    "tensordot-mismatch": lambda: tnp.tensordot(np.ones((2, 3), F32), np.ones((4, 5), F32), 1),
    "inner-mismatch": lambda: tnp.inner(np.ones((2, 3), F32), np.ones((4, 5), F32)),
    "concatenate-shapes": lambda: tnp.concatenate([np.ones((2, 3), F32), np.ones((4, 5), F32)], axis=0),
    "concatenate-axis": lambda: tnp.concatenate([np.ones((2, 3), F32)] * 2, axis=2),
    "append-ranks": lambda: tnp.append(np.ones((2, 3), F32), np.ones((2, 3, 1), F32), axis=0),
    "repeat-count": lambda: tnp.repeat(np.ones((2, 3), F32), [1, 2], axis=1),
    "repeat-negative": lambda: tnp.repeat(np.ones((2, 3), F32), -1),
    "repeat-axis": lambda: tnp.repeat(np.ones((2, 3), F32), 2, axis=2),
    "tile-negative": lambda: tnp.tile(np.ones((2, 3), F32), -1),
    "pad-negative": lambda: tnp.pad(np.ones((2, 3), F32), -1),
    "pad-mode": lambda: tnp.pad(np.ones((2, 3), F32), 1, mode="nope"),
    "pad-widths": lambda: tnp.pad(np.ones((2, 3), F32), [[1, 2], [3, 4], [5, 6]]),
    "pad-reflect-empty": lambda: tnp.pad(np.ones((0, 3), F32), 1, mode="reflect"),
}


@pytest.mark.parametrize("name", list(BAD_INPUTS))
def test_bad_inputs_raise_value_error(name):
    with pytest.raises(ValueError):
        BAD_INPUTS[name]()


def test_round_float_decimals_raise_type_error():
    with pytest.raises(TypeError):  # NumPy: TypeError ('float' object cannot be interpreted as an integer)
        tnp.round(np.ones(3, F32), 1.5)


def test_clip_crossed_bounds_numpy_value():
    # a_min > a_max: NumPy's (and jax.numpy's) minimum(maximum(x, a_min), a_max) gives a_max; TF 2.21's clip
    # (maximum(minimum(x, a_max), a_min)) gives a_min, [2, 2] here. np_test does not cover it.
    x = np.array([0., 5.], F32)
    got = tnp.clip(x, np.full(2, 2, F32), np.ones(2, F32))
    np.testing.assert_array_equal(got.numpy(), np.clip(x, 2, 1))
    np.testing.assert_array_equal(got.numpy(), [1, 1])


# -- gradients (np_test checks none for these ops; tj's tape against TF 2.21's tape and against jax.vjp) --------

P = np.array([[1., 2., 3.], [4., 5., 6.]], np.float32)


def test_cross_gradient_and_jvp_tf_values():
    a = np.array([[1., -2., 3.], [0.5, 4., -1.]], np.float32)
    b = np.array([[2., 1., -1.], [3., -2., 0.5]], np.float32)
    u = np.array([[1., 2., -1.], [0.5, -1., 3.]], np.float32)
    ga, gb = tape_grads(tnp.cross, (a, b), u)
    close_to_tf(ga, [1.0, 1.0, 3.0, -5.5, -8.75, -2.0], 1e-6)  # TF 2.21: cross(b, u)
    close_to_tf(gb, [4.0, -4.0, -4.0, -11.0, 2.0, 2.5], 1e-6)
    x = tj.constant(a)
    with tj.ForwardAccumulator(x, tj.constant(u)) as acc:
        y = tnp.cross(x, b)
    close_to_tf(acc.jvp(y), [-1.0, -1.0, -3.0, 5.5, 8.75, 2.0], 1e-6)


def test_tensordot_gradient_tf_values():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10
    b = np.linspace(-1, 1, 120, dtype=np.float32).reshape(5, 4, 3, 2)
    u = np.linspace(-2, 3, 20, dtype=np.float32).reshape(2, 5, 2)
    ga, gb = tape_grads(lambda x, y: tnp.tensordot(x, y, [[1, 2], [2, 1]]), (a, b), u)
    close_to_tf(ga, [5.765148162841797, 4.942502975463867, 4.119858741760254, 3.2972137928009033, 5.490933418273926,
                     4.668288707733154, 3.8456437587738037, 3.022998809814453, 5.216718673706055, 4.394073486328125,
                     3.5714287757873535, 2.748783826828003, 0.9000444412231445, 2.731092691421509, 4.562140464782715,
                     6.393188953399658, 1.510393738746643, 3.3414418697357178, 5.172489643096924, 7.003538131713867,
                     2.1207432746887207, 3.951791286468506, 5.782839775085449, 7.613887786865234], 1e-5)
    close_to_tf(gb, D(327.4736765027046, 8.491710607371196, 332.33683532476425), 1e-5)


@pytest.mark.parametrize("name", ["dot", "matmul", "vdot", "inner"])
def test_products_gradient_against_jax(name):
    shapes = {"dot": ((4, 5), (5,)), "matmul": ((3, 1, 3, 4), (5, 4, 1)), "vdot": ((5, 3, 2), (30,)),
              "inner": ((3, 4), (2, 1, 4))}[name]
    a, b = rand(shapes[0], F32, 24), rand(shapes[1], F32, 25)
    out_shape = jax_struct(getattr(jnp, name), a, b).shape
    u = rand(out_shape, F32, 26)
    for got, want in zip(tape_grads(getattr(tnp, name), (a, b), u), jax_grads(getattr(jnp, name), (a, b), u)):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)


def test_vdot_complex_gradient_tf_values():
    # TF's complex convention: the gradient of the real loss is conj(jax.grad) (API.md); TF 2.21's values
    v = np.array([1 + 2j, -0.5 + 1j, 3 - 1j], np.complex64)
    w = np.array([2 - 1j, 1j, 0.5 + 0.5j], np.complex64)
    ts = [tj.constant(v), tj.constant(w)]
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(ts)
        z = tnp.vdot(*ts)
        re, sq = tnp.real(z), tnp.abs(z) ** 2
    gv, gw = tape.gradient(re, ts)
    np.testing.assert_allclose(gv.numpy(), [2 - 1j, 1j, 0.5 + 0.5j], atol=1e-6)
    np.testing.assert_allclose(gw.numpy(), [1 + 2j, -0.5 + 1j, 3 - 1j], atol=1e-6)
    gv, gw = tape.gradient(sq, ts)
    np.testing.assert_allclose(gv.numpy(), [15 + 10j, -7 + 4j, -1.5 + 5.5j], atol=1e-5)
    np.testing.assert_allclose(gw.numpy(), [18 + 1j, 5 + 7.5j, 5 - 25j], atol=1e-5)


CLIP_X = np.array([-2., -1., -0.5, 0., 1., 2., 3.], np.float32)
CLIP_U = np.arange(1, 8, dtype=np.float32)


@pytest.mark.parametrize("bounds,want", [
    ((-1, 1), [0, 2, 3, 4, 5, 0, 0]),  # values at a bound pass their gradient (TF's convention)
    ((-1, None), [0, 2, 3, 4, 5, 6, 7]),
    ((None, 1), [1, 2, 3, 4, 5, 0, 0]),
])
def test_clip_gradient_at_bounds_tf_values(bounds, want):
    (g,) = tape_grads(lambda v: tnp.clip(v, *bounds), (CLIP_X,), CLIP_U)
    close_to_tf(g, want, 0)
    x = tj.constant(CLIP_X)
    with tj.ForwardAccumulator(x, tj.constant(CLIP_U)) as acc:
        y = tnp.clip(x, *bounds)
    close_to_tf(acc.jvp(y), want, 0)


def test_clip_gradient_array_bounds_tf_values():
    lo = np.array([-1., -1., -1., 0., 0.5, 0., -1.], np.float32)
    hi = np.array([1., 1., 1., 0., 1., 1., 2.5], np.float32)
    gx, glo, ghi = tape_grads(lambda v, a, b: tnp.clip(v, a, b), (CLIP_X, lo, hi), CLIP_U)
    close_to_tf(gx, [0, 2, 3, 4, 5, 0, 0], 0)  # TF 2.21 (a tie with a bound goes to x)
    close_to_tf(glo, [1, 0, 0, 0, 0, 0, 0], 0)
    close_to_tf(ghi, [0, 0, 0, 0, 0, 6, 7], 0)


def test_round_gradient_is_none():
    # TF 2.21: tnp.round has no gradient (None), with or without decimals
    for decimals in (0, 1):
        (g,) = tape_grads(lambda v: tnp.round(v, decimals), (CLIP_X,), CLIP_U)
        assert g is None


@pytest.mark.parametrize("mode,want", [
    ("reflect", [76.0, 108.0, 68.0, 48.0, 66.0, 40.0]),
    ("symmetric", [24.0, 45.0, 36.0, 80.0, 129.0, 92.0]),
    ("constant", [10.0, 11.0, 12.0, 17.0, 18.0, 19.0]),
])
def test_pad_gradient_tf_values(mode, want):
    u = np.arange(1, 29, dtype=np.float32).reshape(4, 7)
    (g,) = tape_grads(lambda v: tnp.pad(v, [[1, 1], [2, 2]], mode=mode), (P,), u)
    close_to_tf(g, want, 0)


def test_pad_constant_value_gradient_is_none():
    # TF 2.21's PadV2 gradient gives None for constant_values (and the x gradient below); tj follows TF
    x, c = tj.constant(P), tj.constant(np.float32(2.5))
    with tj.GradientTape() as tape:
        tape.watch([x, c])
        loss = tnp.sum(tnp.pad(x, [[1, 1], [2, 2]], constant_values=c) * np.arange(1, 29, dtype=F32).reshape(4, 7))
    gx, gc = tape.gradient(loss, [x, c])
    close_to_tf(gx, [10.0, 11.0, 12.0, 17.0, 18.0, 19.0], 0)
    assert gc is None


def test_tile_gradient_tf_values_in_function():
    u = (np.arange(48, dtype=np.float32) % 5 - 2).reshape(2, 1, 4, 6)

    @tj.function
    def grad(v):
        with tj.GradientTape() as tape:
            tape.watch(v)
            loss = tnp.sum(tnp.tile(v, (2, 1, 2, 2)) * u)
        return tape.gradient(loss, v)
    want = [0.0, -2.0, 1.0, -2.0, 1.0, -1.0]  # TF 2.21
    close_to_tf(grad(tj.constant(P)), want, 0)
    close_to_tf(tape_grads(lambda v: tnp.tile(v, (2, 1, 2, 2)), (P,), u)[0], want, 0)


def test_repeat_and_append_gradients_tf_values():
    (g,) = tape_grads(lambda v: tnp.repeat(v, [1, 3, 2], axis=1), (P,), np.arange(1, 13, dtype=np.float32)
                      .reshape(2, 6))
    close_to_tf(g, [1.0, 9.0, 11.0, 7.0, 27.0, 23.0], 0)
    (g,) = tape_grads(lambda v: tnp.repeat(v, 2), (P,), np.arange(12, dtype=np.float32))
    close_to_tf(g, [1.0, 5.0, 9.0, 13.0, 17.0, 21.0], 0)
    w = np.array([[7., 8.], [9., 10.]], np.float32)
    gp, gw = tape_grads(lambda v, x: tnp.append(v, x, axis=1), (P, w), np.arange(1, 11, dtype=np.float32)
                        .reshape(2, 5))
    close_to_tf(gp, [1.0, 2.0, 3.0, 6.0, 7.0, 8.0], 0)
    close_to_tf(gw, [4.0, 5.0, 9.0, 10.0], 0)


def test_concatenate_gradient_against_jax():
    args = pieces((2, 3, 4), 1, (F32, F32, F32), 27)
    u = rand((2, 8, 4), F32, 28)
    got = tape_grads(lambda *v: tnp.concatenate(v, axis=1), args, u)
    for g, w in zip(got, jax_grads(lambda *v: jnp.concatenate(v, axis=1), args, u)):
        np.testing.assert_allclose(g.numpy(), w, rtol=0, atol=0)
