"""TensorFlow's np_array_ops_test.py, second pass: the argument grids the first port sampled, out-of-range
arguments and the errors they raise, and gradients, ported to tapejax.

Source: tensorflow/python/ops/numpy_ops/np_array_ops_test.py (TF 2.21). tests/test_tf_unported_np_interop_port.py
already ported every test method of that file that has a tj.numpy counterpart (its docstring lists them); no method
is left to port whole. This file completes them, function by function:

- the grids those methods sweep that the first port cut down: ArrayCreationTest's shapes given as NumPy and tnp
  arrays with every dtype of TF's list (testEmpty/testZeros/testOnes), the *_like functions on Tensors and NumPy
  arrays with Python's int and float16/int64/complex128 (testEmptyLike/testZerosLike/testOnesLike), array/asarray
  with int32/int64/float16/complex128 and copy=False (testArray/testAsArray), testEye and testIdentity with every
  dtype (the whole (N, M, k) grid with four of them), testFullLike on NumPy-built arrays of every dtype,
  testARange's integer grid with the dtypes left out, testDiag/testDiagFlat's Tensor and float64 transforms,
  testIx_'s combinations of index arrays, and the axis given as a Tensor, a NumPy array or a tnp array (1-d for
  tuples of axes) in testAMaxAMin/testMean/testStd/testVar/testSum/testAmax;
- the same functions on argument forms TF's test does not sweep (empty arrays under axes and keepdims, ``axis=()``,
  dtype strings, take's clip/wrap modes, NumPy-style negative axes in tuples...);
- out-of-range arguments: axes past the rank, repeated axes, shapes that do not fit, negative sizes, indices out
  of bounds, floats where integers belong, and the class of the error each raises;
- gradients (GradientTape, ForwardAccumulator, a tape inside tj.function) of these functions under such arguments,
  with TF 2.21's values.

Mapping: ``tnp`` (tf.experimental.numpy) -> ``tj.numpy``; ops.convert_to_tensor -> ``tj.constant``;
tf.GradientTape / tf.autodiff.ForwardAccumulator / tf.function -> tj's. TF's test compares np_array_ops against
NumPy, and so does this file: NumPy runs at test time as the reference, its dtype made 32-bit
(``jax.dtypes.canonicalize_dtype``: JAX's x64 off). TF 2.21 was run on every value case here and agrees with NumPy
unless a comment says otherwise; gradients and JVPs are TF 2.21's, hard-coded. TensorFlow is not imported.

Errors: NumPy's exception class is expected (tj's AxisError is NumPy's, a ValueError and an IndexError; ShapeError
is a TypeError and a ValueError). TF raises InvalidArgumentError for most of them (not a ValueError); where
tj.numpy follows jax.numpy's class instead of NumPy's, the case says so.

Sanctioned differences (API.md: tj.numpy follows jax.numpy's names, signatures and NumPy rules; JAX's x64 off):
- dtypes are NumPy's made 32-bit (TF's numpy gives float64/int64 where NumPy does);
- TF is more lenient than NumPy in places, and tj.numpy raises as NumPy and jax.numpy do: cumprod with axis=-3 on
  a 2-d array (TF returns numbers), swapaxes with axis -3 on 2-d (TF wraps it), eye(2.0) (TF: an identity),
  arange(3, dtype=bool) (TF: [False, True, True]);
- take with an out-of-bounds index raises IndexError and a negative index counts from the end (NumPy); TF's
  tnp.take defaults to mode='clip' (take([4, 3, 5], [3]) is [5], take([4, 3, 5], [-1]) is [4]);
- amax/amin of an empty axis raise ValueError (NumPy, jax.numpy); TF returns -inf/inf;
- eye(2, 0) is 2x0 and squeeze(x, axis=()) leaves x as it is (NumPy); TF 2.21 gives a 2x2 identity and squeezes
  every size-1 axis;
- sum(5, axis=0): NumPy returns 5 (a 0-d array takes axis 0 or -1); jax.numpy and TF raise, tj raises AxisError;
- around of integers with negative decimals: NumPy's result ([15, 25, -35] -> [20, 20, -40]; jax.numpy raises
  NotImplementedError, TF 2.21 returns [19, 29, -39]): fixed after this port, tested in test_numpy_rest.py;
- compress with a condition longer than the axis and True past its end: ValueError (jax.numpy; NumPy IndexError,
  TF ValueError); arange to infinity: OverflowError (jax.numpy; NumPy ValueError); reshape with a size of -2:
  ShapeError (jax.numpy and TF raise; NumPy reads it as -1);
- cumsum/cumprod of int16/uint8 keep the input's dtype (jax.numpy's rule); NumPy and TF widen to the default
  integer (int64, int32 here);
- any/all of complex values with a zero real part (any([1j])): False, as jax.numpy and TF 2.21 (NumPy: True); not
  tested here.

Found by this port and fixed in tapejax (the tests failed before): tj.numpy.reshape (and Tensor.reshape) ignored
``order=``: order='F' gave the C-order result (and gradient), silently, and an unknown order was not refused;
zeros_like/ones_like/full_like/empty_like of a Python list with ``shape=`` raised TypeError (without shape= they took
lists); squeeze with a repeated axis returned a result (NumPy and jax.numpy raise ValueError; TF 2.21 also returns
one). Decided: split into 0 sections raises ValueError, TF's class (NumPy and jax.numpy: ZeroDivisionError).

Left out, as in the first port: testAsAnyArray/testAsContiguousArray (neither jax.numpy nor tj.numpy has them),
testIndexedSlices (IndexedSlices), StringArrayTest (strings), tf.device placement, TensorShape as a shape, float
tensors as axes (_testReduce's float32/float64 axis transforms: a TF-only leniency).
"""
from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

import tapejax as tj
from conftest import numpy_match

tnp = tj.numpy

pytestmark = pytest.mark.filterwarnings("ignore:Explicitly requested dtype", "ignore::RuntimeWarning")

TYPES = ["int", "float", "int16", "int32", "int64", "float16", "float32", "float64", "complex64", "complex128"]
ARRAYS = [1, 5.5, 7, (), (8, 10.0), ((), ()), ((1, 4), (2, 8)), [], [7], [8, 10.0], [[], []], [[1, 4], [2, 8]],
          ([], []), ([1, 4], [2, 8]), [(), ()], [(1, 4), (2, 8)]]
SHAPES = [0, 1, 2, (), (1,), (2,), (1, 2, 3), [], [1], [2], [1, 2, 3]]
A3 = onp.arange(8).reshape((2, 2, 2)).tolist()
M22 = [[1, 2], [3, 4]]


def dt(m, name):
    """A dtype as TF's test passes it: Python's int/float/complex or the module's own dtype object."""
    return {"int": int, "float": float, "complex": complex}.get(name) or getattr(m, name)


# TF's array_transforms: the value as given, ops.convert_to_tensor, np.array, np_array_ops.array
def as_py(m, x):
    return x


def as_constant(m, x):
    return tj.constant(x) if m is tnp else onp.array(x)


def as_numpy(m, x):
    return onp.array(x)


def as_array(m, x):
    return m.array(x)


ARRAY_FORMS = (as_py, as_constant, as_numpy, as_array)

GRID: dict[str, list] = {}


def case(group, label, fn, values=True):
    """``fn(m)`` runs with m = numpy (the reference) and m = tj.numpy; ``values=False`` compares the shape and
    dtype only (empty, empty_like)."""
    GRID.setdefault(group, []).append((label, fn, values))


# ------------------------------------------------------------------------------------------------
# 1. The grids of TF's methods that the first port sampled (NumPy's values; TF 2.21 agrees: its test asserts it)

SHAPE_FORMS = (("numpy", lambda m, s: onp.array(s, dtype=int)), ("array", lambda m, s: m.array(s, dtype=int)))
for (form, tr), s in itertools.product(SHAPE_FORMS, SHAPES):
    if form == "array" and onp.ndim(s) == 0:
        continue  # (TF's test drops 0-d tnp arrays as shapes: NumPy's empty() crashes on them)
    for d in [None] + TYPES:
        kw = (lambda m: {}) if d is None else (lambda m, d=d: {"dtype": dt(m, d)})
        case("creation", f"empty {form} {s} {d}", lambda m, s=s, tr=tr, kw=kw: m.empty(tr(m, s), **kw(m)), False)
        case("creation", f"zeros {form} {s} {d}", lambda m, s=s, tr=tr, kw=kw: m.zeros(tr(m, s), **kw(m)))
        case("creation", f"ones {form} {s} {d}", lambda m, s=s, tr=tr, kw=kw: m.ones(tr(m, s), **kw(m)))

for tr, a in itertools.product(ARRAY_FORMS[1:], ARRAYS):
    for d in (None, "int", "float16", "int64", "complex128"):
        kw = (lambda m: {}) if d is None else (lambda m, d=d: {"dtype": dt(m, d)})
        lbl = f"{a} {tr.__name__} {d}"
        case("like", f"empty_like {lbl}", lambda m, a=a, tr=tr, kw=kw: m.empty_like(tr(m, a), **kw(m)), False)
        case("like", f"zeros_like {lbl}", lambda m, a=a, tr=tr, kw=kw: m.zeros_like(tr(m, a), **kw(m)))
        case("like", f"ones_like {lbl}", lambda m, a=a, tr=tr, kw=kw: m.ones_like(tr(m, a), **kw(m)))

for tr, a, d in itertools.product(ARRAY_FORMS, ARRAYS, ("int32", "int64", "float16", "complex128")):
    for ndmin, copy in ((0, True), (1, False), (5, False)):
        # (NumPy 2's copy=False refuses to copy: the reference runs without it, as TF's test does)
        case("array", f"array {a} {tr.__name__} {d} ndmin={ndmin} copy={copy}",
             lambda m, a=a, tr=tr, d=d, ndmin=ndmin, copy=copy: m.array(
                 tr(m, a), dtype=dt(m, d), ndmin=ndmin, **({} if m is onp else {"copy": copy})))
    case("array", f"asarray {a} {tr.__name__} {d}", lambda m, a=a, tr=tr, d=d: m.asarray(tr(m, a), dtype=dt(m, d)))

for d in [None] + TYPES:
    kw = (lambda m: {}) if d is None else (lambda m, d=d: {"dtype": dt(m, d)})
    for n in (1, 2, 3):
        case("eye", f"identity {n} {d}", lambda m, n=n, kw=kw: m.identity(n, **kw(m)))
        for k in range(-n, n + 1):
            case("eye", f"eye {n} k={k} {d}", lambda m, n=n, k=k, kw=kw: m.eye(n, k=k, **kw(m)))
        for cols in (1, 2, 3) if d in (None, "int", "int64", "complex128") else ():
            for k in range(-n, cols):
                case("eye", f"eye {n} {cols} {k} {d}", lambda m, n=n, cols=cols, k=k, kw=kw: m.eye(n, cols, k, **kw(m)))

FULL = [(5, ()), (5, (7,)), (5.0, (7,)), ([5, 8], (2,)), ([5, 8], (3, 2)), ([[5], [8]], (2, 3)),
        ([[5], [8]], (3, 2, 5)), ([[5.0], [8.0]], (3, 2, 5))]
for (f, s), arr_dtype in itertools.product(FULL, TYPES):
    # TF's zeros_builders include np.zeros: a NumPy array of each dtype as the prototype
    proto = onp.zeros(s, dt(onp, arr_dtype))
    for tr in ARRAY_FORMS:
        case("full_like", f"{s} {f} {arr_dtype} {tr.__name__}",
             lambda m, f=f, proto=proto, tr=tr: m.full_like(proto, tr(m, f)))
    for d in ("int64", "float16", "complex128"):
        case("full_like", f"{s} {f} {arr_dtype} dtype {d}",
             lambda m, f=f, proto=proto, d=d: m.full_like(proto, f, dtype=dt(m, d)))
for (f, s), d in itertools.product(FULL, ("int16", "int32", "int64", "float32", "float64", "complex128")):
    for tr in ARRAY_FORMS[1:]:
        case("full", f"{s} {f} {d} {tr.__name__}", lambda m, f=f, s=s, d=d, tr=tr: m.full(s, tr(m, f), dtype=dt(m, d)))

INTS = list(range(-3, 3))
for start, stop in itertools.product(INTS, INTS):
    for d in ("int32", "int64", "float64", "float16", "complex128"):
        case("arange", f"{start} {stop} {d}", lambda m, a=start, b=stop, d=d: m.arange(a, b, dtype=dt(m, d)))
        for step in (-1, 2):
            case("arange", f"{start} {stop} {step} {d}",
                 lambda m, a=start, b=stop, step=step, d=d: m.arange(a, b, step, dtype=dt(m, d)))
for start, d in itertools.product(onp.arange(-3.5, 3.5).tolist(), ("int64", "float64", "complex128")):
    case("arange", f"{start} {d}", lambda m, a=start, d=d: m.arange(a, dtype=dt(m, d)))

DIAG_FORMS = (as_constant, lambda m, x: onp.array(x, dtype=onp.float64),
              lambda m, x: m.array(x, dtype=onp.float64))
for fname, arrays in (("diag", [onp.arange(9).reshape((3, 3)).tolist(), onp.arange(6).reshape((2, 3)).tolist(),
                                onp.arange(6).reshape((3, 2)).tolist(), [[0, 1, 2]], [[0], [1], [2]], [[5]], [[]],
                                [[], []], [], [1], [1, 2]]),
                      ("diagflat", [[], [1], [1, 2], [[]], [[5]], [[], []], [[0, 1], [2, 3]], [[0], [1]], [[0, 1]],
                                    A3])):
    for a, (i, tr) in itertools.product(arrays, enumerate(DIAG_FORMS)):
        for k in (None, -2, 1):
            case(fname, f"{a} form{i} k={k}", lambda m, a=a, tr=tr, k=k, fname=fname: getattr(m, fname)(
                tr(m, a), *(() if k is None else (k,))))

# the axis in TF's forms (convert_to_tensor, np.array, tnp.array); the Python form is in the first port
AXIS_FORMS = (as_constant, as_numpy, as_array)
for fname, (a, kw), tr_a, tr_axis in itertools.product(
        ("amax", "amin", "mean", "std", "var", "sum"),
        [(M22, dict(axis=1)), (M22, dict(axis=0)), (M22, dict(axis=-1)), (M22, dict(axis=-2)),
         (M22, dict(axis=(0, 1))), (A3, dict(axis=(0, 2))), (A3, dict(axis=(0, 2), keepdims=True)),
         (A3, dict(axis=(2, 0))), (A3, dict(axis=(2, 0), keepdims=True)),
         ([[2, -3], [-6, 7]], dict(axis=1, keepdims=True)), ([[2, -3], [-6, 7]], dict(axis=(1, 0)))],
        (as_py, as_constant), AXIS_FORMS):
    if tr_a is as_constant and fname not in ("sum", "amax"):  # (TF's _testReduce: sum and amax)
        continue
    case("axis forms", f"{fname} {a} {kw} {tr_a.__name__} {tr_axis.__name__}",
         lambda m, fname=fname, a=a, kw=kw, tr_a=tr_a, tr_axis=tr_axis: getattr(m, fname)(
             tr_a(m, a), **(kw if m is onp else dict(kw, axis=tr_axis(m, kw["axis"])))))

IX = [[True, True], [True, False], [False, False], list(range(5)), "empty"]
for r in range(len(IX)):
    for arys in itertools.combinations_with_replacement(IX, r):
        case("ix_", f"{arys}", lambda m, arys=arys: list(m.ix_(
            *[m.empty(0, dtype=m.int64) if x == "empty" else x for x in arys])))


@pytest.mark.parametrize("group", sorted(GRID))
def test_tf_grid_matches_numpy(group):
    for label, fn, values in GRID[group]:
        numpy_match(f"{group}: {label}", fn(tnp), fn(onp), values)


# ------------------------------------------------------------------------------------------------
# 2. Argument forms TF's test does not sweep (NumPy's values; TF 2.21 checked where it has the argument)

I23 = [[1, 2, 3], [4, 5, 6]]
B23 = [[True, False, True], [False, False, True]]
F23 = onp.arange(6.0).reshape(2, 3)
MORE = {
    # empty arrays under axes and keepdims
    "sum (0, 3) axis 0": lambda m: m.sum(m.zeros((0, 3)), axis=0),
    "sum (0, 3) axis 1 keepdims": lambda m: m.sum(m.zeros((0, 3)), axis=1, keepdims=True),
    "prod (0, 3) axis 0": lambda m: m.prod(m.zeros((0, 3)), axis=0),
    "mean (0, 3) axis 0": lambda m: m.mean(m.zeros((0, 3)), axis=0),  # nan, nan, nan
    "var (0, 3) axis 1": lambda m: m.var(m.zeros((0, 3)), axis=1),
    "all (0, 3) axis 0": lambda m: m.all(m.zeros((0, 3)), axis=0),
    "any (0, 3)": lambda m: m.any(m.zeros((0, 3))),
    "all (2, 0) keepdims": lambda m: m.all(m.zeros((2, 0)), axis=1, keepdims=True),
    "amax (0, 3) axis 1": lambda m: m.amax(m.zeros((0, 3)), axis=1),
    "cumsum (0, 3) axis 0": lambda m: m.cumsum(m.zeros((0, 3)), axis=0),
    "cumprod (0, 3) flat": lambda m: m.cumprod(m.zeros((0, 3))),
    "mean []": lambda m: m.mean([]),
    "prod []": lambda m: m.prod([]),
    "sign []": lambda m: m.sign([]),
    "imag []": lambda m: m.imag([]),
    "diag k past the end": lambda m: m.diag(M22, 5),
    "diag 1-d k=-4": lambda m: m.diag([1, 2], -4),
    "diagflat k=5": lambda m: m.diagflat([1, 2], 5),
    "eye k past the end": lambda m: m.eye(2, 2, 5),
    "eye 0": lambda m: m.eye(0),
    "eye 2 0": lambda m: m.eye(2, 0),  # TF 2.21: a 2x2 identity (M=0 taken for None)
    "identity 0": lambda m: m.identity(0),
    "arange empty": lambda m: m.arange(5, 2),
    "repeat []": lambda m: m.repeat([], 3),
    "repeat zero counts": lambda m: m.repeat(I23, [0, 2], axis=0),
    "take empty indices": lambda m: m.take(I23, onp.zeros(0, int), axis=0),
    "compress empty condition": lambda m: m.compress(onp.zeros(0, bool), I23, axis=0),
    "reshape (0, 3) to (-1, 3)": lambda m: m.reshape(m.zeros((0, 3)), (-1, 3)),
    "broadcast_to (0, 1)": lambda m: m.broadcast_to([1.0], (0, 1)),
    "vander of []": lambda m: m.vander(onp.zeros(0)),
    # axes: empty tuples, None with keepdims, negative axes in tuples
    "sum axis ()": lambda m: m.sum(I23, axis=()),
    "all axis ()": lambda m: m.all(B23, axis=()),
    "amax axis () keepdims": lambda m: m.amax(I23, axis=(), keepdims=True),
    "sum axis None keepdims": lambda m: m.sum(I23, axis=None, keepdims=True),
    "mean ints axis -1": lambda m: m.mean(I23, axis=-1),
    "mean ints (-1, -2) keepdims": lambda m: m.mean(I23, axis=(-1, -2), keepdims=True),
    "amax (-1, -3) keepdims": lambda m: m.amax(onp.arange(24).reshape(2, 3, 4), axis=(-1, -3), keepdims=True),
    # (TF's tnp.std/var take no ddof)
    "std (0, 2) ddof 1 keepdims": lambda m: m.std(onp.arange(24.0).reshape(2, 3, 4), axis=(0, 2), ddof=1,
                                                  keepdims=True),
    "var ddof 1 axis 0 keepdims": lambda m: m.var(I23, axis=0, ddof=1, keepdims=True),
    "cumsum flat 2-d": lambda m: m.cumsum(I23),
    "cumprod axis -1": lambda m: m.cumprod(I23, axis=-1),
    "squeeze axis ()": lambda m: m.squeeze(m.zeros((1, 3, 1)), axis=()),  # TF: squeezes all, (3,)
    "squeeze (-1, 0)": lambda m: m.squeeze(m.zeros((1, 3, 1)), axis=(-1, 0)),
    "expand_dims (-1, 0)": lambda m: m.expand_dims([1, 2], (-1, 0)),  # TF: one axis only
    "expand_dims 0-d -1": lambda m: m.expand_dims(5.0, -1),
    "transpose 0-d ()": lambda m: m.transpose(5.0, ()),  # TF: InvalidArgumentError (() is a float array)
    "transpose (-1, -2)": lambda m: m.transpose(I23, (-1, -2)),
    "swapaxes 1 -1": lambda m: m.swapaxes(I23, 1, -1),
    "moveaxis lists": lambda m: m.moveaxis(F23[None], [0, -1], [-1, 0]),
    "repeat flat 2-d": lambda m: m.repeat(I23, 2),
    "repeat 0-d array": lambda m: m.repeat(I23, m.array(2), axis=1),
    "take flat 2-d": lambda m: m.take(I23, [5, 0]),
    "take scalar index": lambda m: m.take(I23, 1, axis=1),
    "take negative": lambda m: m.take([4, 3, 5], [-1, -3]),  # TF: [4, 4] (tnp.take clips by default)
    "take mode clip": lambda m: m.take([4, 3, 5], [-1, 3, 7], mode="clip"),  # TF: [4, 5, 5]
    "take mode wrap": lambda m: m.take([4, 3, 5], [-1, 3, 7], mode="wrap"),  # TF: [5, 4, 3]
    "take_along_axis flat": lambda m: m.take_along_axis(F23, onp.array([5, 0]), axis=None),
    "take_along_axis negative": lambda m: m.take_along_axis(F23, onp.array([[-1], [0]]), axis=1),
    "compress flat": lambda m: m.compress([True, False, True], I23),
    "compress short axis 1": lambda m: m.compress([False, True], I23, axis=1),
    "compress False past the end": lambda m: m.compress([True, False, False, False], [1, 2, 3]),  # TF: ValueError
    "split axis -1 indices": lambda m: m.split(onp.array(I23), [1], axis=-1)[1],
    "split negative index": lambda m: m.split(onp.arange(6), [-2])[0],  # TF: ValueError
    "hsplit 2-d": lambda m: m.hsplit(onp.array(I23), [1])[1],
    "vsplit": lambda m: m.vsplit(onp.array(I23), 2)[1],
    "ix_ float indices": lambda m: list(m.ix_([1.0, 2.0])),  # TF: ValueError (ints and bools only)
    "reshape int shape": lambda m: m.reshape(I23, 6),
    "reshape to ()": lambda m: m.reshape([7], ()),
    "ravel order F": lambda m: m.ravel(I23, order="F"),  # (TF's ravel has no order)
    "where scalars": lambda m: m.where(True, 1, 2.5),
    "where int and float": lambda m: m.where([True, False], [1, 2], 0.5),
    "broadcast_to int shape": lambda m: m.broadcast_to(2.0, 3),
    # dtypes
    "sum bools": lambda m: m.sum(B23, axis=0),
    "mean bools": lambda m: m.mean(B23, axis=0),
    "var bools": lambda m: m.var(B23),
    "amax bools": lambda m: m.amax(B23, axis=1),
    "prod bools": lambda m: m.prod(B23, axis=1),
    "cumsum bools dtype float": lambda m: m.cumsum(B23, axis=1, dtype=float),
    "cumprod bools axis 0": lambda m: m.cumprod(B23, axis=0),  # TF: InvalidArgumentError
    "sum ints dtype float32": lambda m: m.sum(I23, dtype=m.float32),
    "sum floats dtype int": lambda m: m.sum([1.5, 2.5], dtype=int),
    "sum uint8": lambda m: m.sum(m.array([200, 100], dtype=m.uint8)),
    "prod uint8": lambda m: m.prod(onp.array([2, 3], onp.uint8)),
    "mean int8": lambda m: m.mean(onp.array([2, 3], onp.int8)),
    "mean float16": lambda m: m.mean(m.array([1, 2], dtype=m.float16)),
    "std float16": lambda m: m.std(onp.array([2, 3], onp.float16)),
    "var ints dtype float32": lambda m: m.var(I23, dtype=m.float32),
    "around half to even": lambda m: m.around([0.5, 1.5, 2.5, -0.5]),
    "around complex": lambda m: m.around([1.25 + 2.75j]),  # TF: NotFoundError (no complex Round kernel)
    "around float16": lambda m: m.around(m.array([1.23456], dtype=m.float16), 2),
    "imag ints": lambda m: m.imag([1, 2]),
    "real bools": lambda m: m.real([True]),  # TF: TypeError
    "sign ints": lambda m: m.sign([-3, 0, 2]),
    "sign nan and -0": lambda m: m.sign([onp.nan, -0.0]),
    "sign complex 0": lambda m: m.sign([0j, 3 + 4j]),
    "eye bool": lambda m: m.eye(2, dtype=bool),
    "identity bool": lambda m: m.identity(2, dtype=bool),
    "diag bools": lambda m: m.diag([True, False]),
    "vander ints": lambda m: m.vander([2, 3]),
    "vander N=3 increasing": lambda m: m.vander([1, 2, 3], N=3, increasing=True),
    "full True": lambda m: m.full((2,), True),
    "full dtype bool": lambda m: m.full((2,), 1, dtype=bool),
    "ones_like bools": lambda m: m.ones_like(B23),
    "array True ndmin 2": lambda m: m.array(True, ndmin=2),
    "array tuples float16": lambda m: m.array(((1, 2), (3, 4)), dtype=m.float16),
    "array uint8": lambda m: m.array([1, 2], dtype=m.uint8),
    "arange float16": lambda m: m.arange(3, dtype=m.float16),
    "arange float step": lambda m: m.arange(0, 1, 0.25),
    "arange negative float step": lambda m: m.arange(1, 0, -0.3),
    "arange int start float stop": lambda m: m.arange(1, 3.5),
    # (TF's tnp.pad needs mode= and has constant, reflect and symmetric only, reflect_type even only)
    "pad int width": lambda m: m.pad([1, 2], 2),
    "pad tuple widths": lambda m: m.pad(I23, ((0, 1), (2, 0))),
    "pad (1,)": lambda m: m.pad(I23, (1,)),
    "pad constant_values pair": lambda m: m.pad([1.0, 2.0], (1, 2), constant_values=(-1, 9)),
    "pad edge": lambda m: m.pad(I23, 1, mode="edge"),
    "pad wrap": lambda m: m.pad(I23, (1, 2), mode="wrap"),
    "pad reflect odd": lambda m: m.pad([1, 2, 3], 2, mode="reflect", reflect_type="odd"),
    "pad maximum": lambda m: m.pad([1, 5, 2], 1, mode="maximum"),
    "pad mean": lambda m: m.pad([1.0, 5.0], 1, mode="mean"),
}
for dstr in ("f4", "f8", "float32", "i2", "u1", "int8", "bool", "?", "complex", "c8", "int64", "uint32"):
    MORE[f"zeros dtype {dstr!r}"] = lambda m, d=dstr: m.zeros(2, dtype=d)
    MORE[f"full dtype {dstr!r}"] = lambda m, d=dstr: m.full(2, 1, d)
    MORE[f"asarray dtype {dstr!r}"] = lambda m, d=dstr: m.asarray([[1], [0]], dtype=d)
    MORE[f"eye dtype {dstr!r}"] = lambda m, d=dstr: m.eye(2, dtype=d)
    if dstr not in ("bool", "?"):
        MORE[f"arange dtype {dstr!r}"] = lambda m, d=dstr: m.arange(3, dtype=d)
        MORE[f"cumsum dtype {dstr!r}"] = lambda m, d=dstr: m.cumsum([1, 2], dtype=d)
        MORE[f"prod dtype {dstr!r}"] = lambda m, d=dstr: m.prod([[1, 2]], axis=1, dtype=d)


@pytest.mark.parametrize("label", sorted(MORE))
def test_argument_forms_match_numpy(label):
    fn = MORE[label]
    numpy_match(label, fn(tnp), fn(onp))


def test_cumsum_of_small_ints_keeps_their_dtype_as_jax_numpy():
    for d in (onp.int16, onp.uint8):
        a = onp.array([1, 2, 3], d)
        for fname in ("cumsum", "cumprod"):
            got = getattr(tnp, fname)(a)
            onp.testing.assert_array_equal(got.numpy(), getattr(onp, fname)(a))
            # sanctioned: jax.numpy's dtype (the input's); NumPy and TF widen to the default integer
            assert got.dtype == getattr(jnp, fname)(a).dtype == d


# ------------------------------------------------------------------------------------------------
# 3. Out-of-range arguments: the error each raises

ERRORS = [
    # (label, call, exception NumPy raises (or jax.numpy's, where the comment says so), message fragment)
    ("sum axis 2", lambda: tnp.sum(F23, axis=2), onp.exceptions.AxisError, "axis 2"),
    ("sum axis -3", lambda: tnp.sum(F23, axis=-3), onp.exceptions.AxisError, "axis -3"),
    ("sum axis (0, 0)", lambda: tnp.sum(F23, axis=(0, 0)), ValueError, "duplicate"),
    ("sum axis (0, -2)", lambda: tnp.sum(F23, axis=(0, -2)), ValueError, "duplicate"),
    ("amax axis 2", lambda: tnp.amax(F23, axis=2), onp.exceptions.AxisError, "axis 2"),
    ("amin axis (0, 2)", lambda: tnp.amin(F23, axis=(0, 2)), onp.exceptions.AxisError, "axis 2"),
    ("mean axis 2", lambda: tnp.mean(F23, axis=2), onp.exceptions.AxisError, "axis 2"),
    ("std axis -3", lambda: tnp.std(F23, axis=-3), onp.exceptions.AxisError, "axis -3"),
    ("var axis 2", lambda: tnp.var(F23, axis=2), onp.exceptions.AxisError, "axis 2"),
    ("prod axis 2", lambda: tnp.prod(F23, axis=2), onp.exceptions.AxisError, "axis 2"),
    ("all axis 2", lambda: tnp.all(F23, axis=2), onp.exceptions.AxisError, "axis 2"),
    ("any axis -3", lambda: tnp.any(F23, axis=-3), onp.exceptions.AxisError, "axis -3"),
    ("cumsum axis 2", lambda: tnp.cumsum(F23, axis=2), onp.exceptions.AxisError, "axis 2"),
    ("cumprod axis -3", lambda: tnp.cumprod(F23, axis=-3), onp.exceptions.AxisError, "axis -3"),  # TF: numbers
    ("Tensor.min axis 2", lambda: tj.constant(F23).min(axis=2), onp.exceptions.AxisError, "axis 2"),
    ("sum of a scalar axis 0", lambda: tnp.sum(5, axis=0), onp.exceptions.AxisError, "axis 0"),  # NumPy: 5
    ("amax of []", lambda: tnp.amax([]), ValueError, None),  # TF: -inf
    ("amin of an empty axis", lambda: tnp.amin(tnp.zeros((0, 3)), axis=0), ValueError, None),  # TF: inf
    ("sum axis 1.0", lambda: tnp.sum(F23, axis=1.0), TypeError, None),
    ("expand_dims axis 3", lambda: tnp.expand_dims([1, 2], 3), onp.exceptions.AxisError, "axis 3"),
    ("expand_dims axis 2 of 1-d", lambda: tnp.expand_dims([1, 2], 2), onp.exceptions.AxisError, "axis 2"),
    ("expand_dims axis -3", lambda: tnp.expand_dims([1, 2], -3), onp.exceptions.AxisError, "axis -3"),
    ("expand_dims axis (0, 0)", lambda: tnp.expand_dims([1, 2], (0, 0)), ValueError, None),
    ("expand_dims axis 0.0", lambda: tnp.expand_dims([1, 2], 0.0), TypeError, None),
    ("squeeze a size-3 axis", lambda: tnp.squeeze(onp.zeros((1, 3)), axis=1), ValueError, None),
    ("squeeze (0, 1) of (1, 3, 1)", lambda: tnp.squeeze(onp.zeros((1, 3, 1)), axis=(0, 1)), ValueError, None),
    ("squeeze axis 2 of 2-d", lambda: tnp.squeeze(onp.zeros((1, 3)), axis=2), onp.exceptions.AxisError, "axis 2"),
    ("transpose too few axes", lambda: tnp.transpose(F23, [0]), ValueError, None),
    ("transpose a repeated axis", lambda: tnp.transpose(F23, [0, 0]), ValueError, None),
    ("transpose axis 2 of 2-d", lambda: tnp.transpose(F23, [0, 2]), onp.exceptions.AxisError, "axis 2"),
    ("transpose float axes", lambda: tnp.transpose(F23, [1.0, 0.0]), TypeError, None),
    ("swapaxes axis 2", lambda: tnp.swapaxes(F23, 0, 2), onp.exceptions.AxisError, "axis 2"),
    ("swapaxes axis -3", lambda: tnp.swapaxes(F23, -3, 0), onp.exceptions.AxisError, "axis -3"),  # TF wraps it
    ("swapaxes axis 0.0", lambda: tnp.swapaxes(F23, 0.0, 1), TypeError, None),
    ("moveaxis axis 2", lambda: tnp.moveaxis(F23, 0, 2), onp.exceptions.AxisError, "axis 2"),
    ("moveaxis a repeated source", lambda: tnp.moveaxis(F23, (0, 0), (0, 1)), ValueError, None),
    ("moveaxis unequal lengths", lambda: tnp.moveaxis(F23, (0, 1), (0,)), ValueError, None),
    ("reshape 6 values to (4, 2)", lambda: tnp.reshape(F23, (4, 2)), ValueError, None),
    ("reshape two -1", lambda: tnp.reshape(F23, (-1, -1)), ValueError, None),
    ("reshape -2", lambda: tnp.reshape(F23, (-2, 3)), ValueError, None),  # jax.numpy, TF; NumPy: as -1
    ("reshape float size", lambda: tnp.reshape(F23, (3.0, 2)), TypeError, None),
    ("broadcast_to (2,) to (3,)", lambda: tnp.broadcast_to([1, 2], (3,)), ValueError, None),
    ("broadcast_to fewer dims", lambda: tnp.broadcast_to(F23, (3,)), ValueError, None),
    ("broadcast_to a negative size", lambda: tnp.broadcast_to(1, (-1,)), ValueError, None),
    ("repeat 3 counts for 2 values", lambda: tnp.repeat([1, 2], [1, 2, 3]), ValueError, None),
    ("repeat -1", lambda: tnp.repeat([1, 2], -1), ValueError, None),
    ("repeat axis 2", lambda: tnp.repeat(M22, 2, axis=2), onp.exceptions.AxisError, "axis 2"),
    ("repeat 1.5", lambda: tnp.repeat([1, 2], 1.5), TypeError, None),  # jax.numpy, TF; NumPy casts to 1
    ("compress True past the end", lambda: tnp.compress([True, False, True, True], [1, 2, 3]),
     ValueError, None),  # jax.numpy, TF; NumPy: IndexError
    ("compress axis 2", lambda: tnp.compress([True], M22, axis=2), onp.exceptions.AxisError, "axis 2"),
    ("compress a 2-d condition", lambda: tnp.compress([[True]], [1, 2]), ValueError, None),
    ("take index 3 of 3", lambda: tnp.take([4, 3, 5], [3]), IndexError, None),  # TF: [5] (clip)
    ("take index -4 of 3", lambda: tnp.take([4, 3, 5], [-4]), IndexError, None),  # TF: [4] (clip)
    ("take axis 2", lambda: tnp.take(M22, [0], axis=2), onp.exceptions.AxisError, "axis 2"),
    ("take_along_axis index 2 of 2", lambda: tnp.take_along_axis(onp.array(M22), onp.array([[2], [0]]), axis=1),
     IndexError, None),
    ("take_along_axis axis 2", lambda: tnp.take_along_axis(onp.array(M22), onp.array([[1], [0]]), axis=2),
     onp.exceptions.AxisError, "axis 2"),
    ("split 5 into 2", lambda: tnp.split(tnp.arange(5), 2), ValueError, None),
    ("split axis 1 of 1-d", lambda: tnp.split(tnp.arange(4), 2, axis=1), IndexError, None),
    ("hsplit of 0-d", lambda: tnp.hsplit(tnp.asarray(1.0), 1), ValueError, None),
    ("diag of 3-d", lambda: tnp.diag(onp.zeros((2, 2, 2))), ValueError, None),
    ("diag of 0-d", lambda: tnp.diag(5), ValueError, None),
    ("eye -1", lambda: tnp.eye(-1), ValueError, None),
    ("eye 2.0", lambda: tnp.eye(2.0), TypeError, None),  # TF: the identity
    ("identity -2", lambda: tnp.identity(-2), ValueError, None),
    ("zeros (2, -1)", lambda: tnp.zeros((2, -1)), ValueError, None),
    ("empty -3", lambda: tnp.empty(-3), ValueError, None),
    ("ones 2.5", lambda: tnp.ones(2.5), TypeError, None),
    ("zeros dtype 'foo'", lambda: tnp.zeros(2, dtype="foo"), TypeError, "foo"),
    ("sum dtype 'foo'", lambda: tnp.sum([1, 2], dtype="foo"), TypeError, "foo"),
    ("cumsum dtype 'foo'", lambda: tnp.cumsum([1, 2], dtype="foo"), TypeError, "foo"),
    ("full of an unbroadcastable fill", lambda: tnp.full((2, 3), [1, 2]), ValueError, None),
    ("full_like of an unbroadcastable fill", lambda: tnp.full_like(tnp.zeros((2, 3)), [1, 2]), ValueError, None),
    ("array of a ragged list", lambda: tnp.array([[1, 2], [3]]), ValueError, None),
    ("arange to nan", lambda: tnp.arange(0, float("nan")), ValueError, None),
    ("arange to inf", lambda: tnp.arange(0, float("inf")), OverflowError, None),  # jax.numpy; NumPy ValueError
    ("arange dtype bool", lambda: tnp.arange(3, dtype=bool), TypeError, None),  # TF: [False, True, True]
    ("pad -1", lambda: tnp.pad(M22, -1), ValueError, None),
    ("pad mode 'nope'", lambda: tnp.pad(M22, 1, mode="nope"), ValueError, None),
    ("ix_ of 2-d", lambda: tnp.ix_(M22), ValueError, None),
    ("vander N=-1", lambda: tnp.vander([1.0, 2.0], N=-1), ValueError, None),
    ("vander of 2-d", lambda: tnp.vander(onp.ones((2, 2))), ValueError, None),
    ("where unbroadcastable", lambda: tnp.where([True, False, True], [1, 2], 0), ValueError, None),
    ("around decimals 1.5", lambda: tnp.around([1.234], decimals=1.5), TypeError, None),
    ("mean out=", lambda: tnp.mean(F23, out=onp.zeros(3)), NotImplementedError, None),  # jax.numpy; NumPy: ValueError
]


@pytest.mark.parametrize("label, call, error, fragment", ERRORS, ids=[e[0] for e in ERRORS])
def test_out_of_range_arguments_raise(label, call, error, fragment):
    with pytest.raises(error) as info:
        call()
    if fragment is not None:
        assert fragment in str(info.value), str(info.value)


# ------------------------------------------------------------------------------------------------
# 4. Gradients under these arguments: TF 2.21's (tnp ops under tf.GradientTape, eager and in tf.function,
#    and tf.autodiff.ForwardAccumulator with tangent T6), hard-coded

X6 = onp.array([0.5, -1.0, 2.0, 2.0, -3.0, 1.5], onp.float32)
T6 = onp.array([1.0, -2.0, 0.5, 3.0, -1.0, 2.0], onp.float32)
W = onp.arange(1.0, 29.0, dtype=onp.float32)


def _w(*shape):
    return W[:int(onp.prod(shape))].reshape(shape)


GRADS = {
    # label: (f(m, x) of x = X6, TF's gradient, TF's JVP along T6)
    "take clip": (lambda m, x: m.sum(m.take(x, [-1, 3, 7, 7], mode="clip") * _w(4)), [1, 0, 0, 2, 0, 7], 21.0),
    "take wrap": (lambda m, x: m.sum(m.take(x, [-1, 3, 7, 7], mode="wrap") * _w(4)), [0, 7, 0, 2, 0, 1], -6.0),
    "take negative": (lambda m, x: m.sum(m.take(x, [5, 0, 0]) * _w(3)), [5, 0, 0, 0, 0, 1], 7.0),
    "amax tuple keepdims": (lambda m, x: m.sum(m.amax(m.reshape(x, (1, 2, 3)), axis=(-1, 0), keepdims=True)
                                               * onp.array([[[1.0], [3.0]]], onp.float32)), [0, 0, 1, 3, 0, 0],
                            9.5),
    "amax ties": (lambda m, x: m.amax(x), [0, 0, 0.5, 0.5, 0, 0], 1.75),
    "amin axis 0": (lambda m, x: m.sum(m.amin(m.reshape(x, (3, 2)), axis=0) * _w(2)), [0, 2, 0, 0, 1, 0], -5.0),
    "repeat axis -1": (lambda m, x: m.sum(m.repeat(m.reshape(x, (2, 3)), [1, 0, 2], axis=-1) * _w(2, 3)),
                       [1, 0, 5, 4, 0, 11], 37.5),
    "repeat flat": (lambda m, x: m.sum(m.repeat(x, 2) * onp.arange(12, dtype=onp.float32)), [1, 5, 9, 13, 17, 21],
                    59.5),
    "compress axis 1": (lambda m, x: m.sum(m.compress([False, True, True], m.reshape(x, (2, 3)), axis=1)
                                           * _w(2, 2)), [0, 1, 2, 0, 3, 4], 4.0),
    "compress flat": (lambda m, x: m.sum(m.compress([1, 0, 1, 1], x) * _w(3)), [1, 0, 2, 3, 0, 0], 11.0),
    "diag k=1": (lambda m, x: m.sum(m.diag(m.reshape(x, (2, 3)), 1) * _w(2)), [0, 1, 0, 0, 0, 2], 2.0),
    "diag of 1-d k=-1": (lambda m, x: m.sum(m.diag(x[:2], -1) * onp.arange(9, dtype=onp.float32).reshape(3, 3)),
                         [3, 7, 0, 0, 0, 0], -11.0),
    "diagflat k=1": (lambda m, x: m.sum(m.diagflat(m.reshape(x[:4], (2, 2)), 1)
                                        * onp.arange(25, dtype=onp.float32).reshape(5, 5)), [1, 7, 13, 19, 0, 0],
                     50.5),
    "cumprod axis -2": (lambda m, x: m.sum(m.cumprod(m.reshape(x, (2, 3)), axis=-2) * _w(2, 3)),
                        [9, -13, 12, 2, -5, 12], 76.0),
    "cumsum flat": (lambda m, x: m.sum(m.cumsum(m.reshape(x, (2, 3))) * _w(6)), [21, 20, 18, 15, 11, 6], 36.0),
    "std tuple keepdims": (lambda m, x: m.sum(m.std(m.reshape(x, (1, 2, 3)), axis=(0, 2), keepdims=True)
                                              * onp.array([[[1.0], [2.0]]], onp.float32)),
                           [0, -0.408248, 0.408248, 0.543583, -0.938916, 0.395333], 4.38095),
    "var axis -1": (lambda m, x: m.sum(m.var(m.reshape(x, (2, 3)), axis=-1) * _w(2)),
                    [0, -1, 1, 2.444445, -4.222222, 1.777778], 17.61111),
    "mean tuple": (lambda m, x: m.sum(m.mean(m.reshape(x, (2, 3, 1)), axis=(0, -1)) * _w(3)),
                   [0.5, 1, 1.5, 0.5, 1, 1.5], 2.75),
    "prod axis 1 keepdims": (lambda m, x: m.sum(m.prod(m.reshape(x, (2, 3)), axis=1, keepdims=True)
                                                * onp.array([[1.0], [2.0]], onp.float32)),
                             [-2, 1, -0.5, -9, 6, -12], -61.25),
    "where with a scalar": (lambda m, x: m.sum(m.where(x > 0, x, 0.5) * _w(6)), [1, 0, 3, 4, 0, 6], 26.5),
    "broadcast_to": (lambda m, x: m.sum(m.broadcast_to(x[:3], (4, 3)) * onp.arange(12, dtype=onp.float32)
                                        .reshape(4, 3)), [18, 22, 26, 0, 0, 0], -13.0),
    "swapaxes negative": (lambda m, x: m.sum(m.swapaxes(m.reshape(x, (2, 3)), -1, -2) * _w(3, 2)),
                          [1, 3, 5, 2, 4, 6], 11.5),
    "moveaxis lists": (lambda m, x: m.sum(m.moveaxis(m.reshape(x, (1, 2, 3)), [0, -1], [-1, 0]) * _w(3, 2, 1)),
                       [1, 3, 5, 2, 4, 6], 11.5),
    "squeeze axis -1": (lambda m, x: m.sum(m.squeeze(m.reshape(x, (1, 6, 1)), axis=-1) * _w(6)),
                        [1, 2, 3, 4, 5, 6], 17.5),
    "transpose": (lambda m, x: m.sum(m.transpose(m.reshape(x, (1, 2, 3)), [2, 0, 1]) * _w(3, 1, 2)),
                  [1, 3, 5, 2, 4, 6], 11.5),
    "take_along_axis": (lambda m, x: m.sum(m.take_along_axis(m.reshape(x, (2, 3)), onp.array([[2, 2], [0, 1]]),
                                                             axis=1) * _w(2, 2)), [0, 0, 3, 3, 4, 0], 6.5),
    "pad reflect": (lambda m, x: m.sum(m.pad(m.reshape(x, (2, 3)), [[1, 1], [2, 2]], "reflect")
                                       * onp.arange(28, dtype=onp.float32).reshape(4, 7)), [72, 102, 64, 44, 60, 36],
                    44.0),
    "pad symmetric": (lambda m, x: m.sum(m.pad(m.reshape(x, (2, 3)), [[1, 1], [2, 2]], "symmetric")
                                         * onp.arange(28, dtype=onp.float32).reshape(4, 7)),
                      [20, 39, 32, 76, 123, 88], 239.0),
    "split indices": (lambda m, x: m.sum(m.split(x, [1, 4])[1] * _w(3)), [0, 1, 2, 3, 0, 0], 8.0),
    "hsplit": (lambda m, x: m.sum(m.hsplit(m.reshape(x, (2, 3)), [2])[0] * _w(2, 2)), [1, 2, 0, 3, 4, 0], 2.0),
    "sign": (lambda m, x: m.sum(m.sign(x) * x), [1, -1, 1, 1, -1, 1], 9.5),  # sign itself: gradient 0
    "array copy ndmin": (lambda m, x: m.sum(m.array(x, copy=True, ndmin=2) * _w(6)), [1, 2, 3, 4, 5, 6], 17.5),
}


@pytest.mark.parametrize("label", sorted(GRADS))
def test_gradient_as_tf(label):
    f, want, _ = GRADS[label]
    x = tj.constant(X6)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = f(tnp, x)
    onp.testing.assert_allclose(tape.gradient(y, x).numpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("label", ["take clip", "repeat axis -1", "compress axis 1", "cumprod axis -2",
                                   "std tuple keepdims", "pad symmetric", "diagflat k=1", "amax ties"])
def test_jvp_and_gradient_in_function_as_tf(label):
    f, want_grad, want_jvp = GRADS[label]
    x = tj.constant(X6)
    with tj.ForwardAccumulator(x, tj.constant(T6)) as acc:
        y = f(tnp, x)
    onp.testing.assert_allclose(acc.jvp(y).numpy(), want_jvp, rtol=1e-5)

    @tj.function
    def grad_in_function(v):
        with tj.GradientTape() as tape:
            tape.watch(v)
            out = f(tnp, v)
        return tape.gradient(out, v)
    onp.testing.assert_allclose(grad_in_function(tj.constant(X6)).numpy(), want_grad, rtol=1e-5, atol=1e-6)


def test_gradient_of_around_is_none_as_tf():
    x = tj.constant(X6)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.sum(tnp.around(x, 1))
    assert float(y) == 2.0  # TF: 2.0
    assert tape.gradient(y, x) is None  # TF: None (Round has no gradient)


def test_gradient_of_real_and_imag_as_tf():
    z = tj.constant(onp.array([1 + 2j, -0.5 + 1j], onp.complex64))
    weights = onp.array([1.0, 3.0], onp.float32)
    for fname, want in (("real", [1, 3]), ("imag", [1j, 3j])):  # TF: [1+0j, 3+0j] and [1j, 3j]
        with tj.GradientTape() as tape:
            tape.watch(z)
            y = tnp.sum(getattr(tnp, fname)(z) * weights)
        g = tape.gradient(y, z)
        assert g.dtype == onp.complex64
        onp.testing.assert_allclose(g.numpy(), want)


# ------------------------------------------------------------------------------------------------
# 5. Differences from NumPy and jax.numpy (tapejax bugs)

I23_ARRAY = onp.array(I23)


def test_reshape_order_f():
    want = [[1, 5], [4, 3], [2, 6]]  # NumPy == jax.numpy == TF 2.21
    onp.testing.assert_array_equal(tnp.reshape(I23_ARRAY, (3, 2), order="F").numpy(), want)
    onp.testing.assert_array_equal(tj.constant(I23_ARRAY).reshape((3, 2), order="F").numpy(), want)


def test_reshape_order_f_gradient():
    x = tj.constant(X6)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.sum(tnp.reshape(x, (3, 2), order="F") * _w(3, 2))
    onp.testing.assert_allclose(tape.gradient(y, x).numpy(), [1, 3, 5, 2, 4, 6])  # TF 2.21


def test_reshape_unknown_order_raises():
    for order in ("K", "Q"):
        with pytest.raises(ValueError):  # NumPy and jax.numpy: ValueError
            tnp.reshape(I23_ARRAY, (3, 2), order=order)


def test_like_of_a_list_with_shape():
    # NumPy: int arrays of the new shape; tj takes the list without shape= (and jax.numpy takes the array)
    onp.testing.assert_array_equal(tnp.zeros_like(I23, shape=(1, 2)).numpy(), [[0, 0]])
    onp.testing.assert_array_equal(tnp.ones_like(I23, shape=(2,)).numpy(), [1, 1])
    onp.testing.assert_array_equal(tnp.full_like(I23, 7, shape=(3,)).numpy(), [7, 7, 7])
    assert tnp.empty_like([1.0], shape=(2,)).shape == (2,)


def test_squeeze_repeated_axis_raises():
    for call in (lambda: tnp.squeeze(onp.zeros((1, 3, 1)), axis=(0, 0)),
                 lambda: tnp.squeeze(onp.zeros((1, 3, 1)), axis=(0, -3)),
                 lambda: tj.constant(onp.zeros((1, 3, 1))).squeeze((0, 0))):
        with pytest.raises(ValueError):  # NumPy: "duplicate value in 'axis'"; jax.numpy: "not unique"
            call()


def test_split_into_zero_sections():
    # NumPy and jax.numpy: ZeroDivisionError; TF: InvalidArgumentError (num_split >= 1), which tapejax raises as
    # ValueError (a zero count is a bad value: README, as for arange's step 0)
    with pytest.raises(ValueError):
        tnp.split(tnp.arange(4), 0)
