"""TensorFlow's np_test.py (its copy of JAX's lax_numpy_test), third part, ported to tapejax's ``tj.numpy``.

Source: tensorflow/python/ops/numpy_ops/tests/np_test.py (TF 2.21), the methods whose ``def`` lies at character
offsets [64000, 92000): testCumSumProd through testFlip. TF's methods compare ``tnp`` (tf.experimental.numpy)
with NumPy over grids of shapes and dtypes (``_CheckAgainstNumpy``) and run the op again inside ``nje.jit``
(``_CompileAndCheck``).

Mapping: ``tnp.<name>`` -> ``tj.numpy.<name>`` (jax.numpy's names and signatures); ``nje.jit`` and
``_CompileAndCheck`` -> ``tj.function`` (each grid runs once more as one ``tj.function`` whose arguments are the
grid's arrays, and must give the eager results); ``tnp.ndarray`` -> ``tj.Tensor`` (tj.numpy leaves jax.numpy's
``ndarray`` out on purpose, test_numpy_index_tricks.py LEFT_OUT); ``x.reshape``/``x.ravel``-style methods -> the
Tensor's methods. JAX's x64 is off, as in every test here.

References: values are NumPy's (the test's own reference, NumPy run here on the inputs cast to the dtypes JAX
gives them: float64 -> float32, int64 -> int32, complex128 -> complex64). Result dtypes and shapes are
jax.numpy's (the same call on the same inputs). TF 2.21's tnp was run here on a sample of every method (cumsum/
cumprod with and without ``dtype``, tri, tril/triu, diag_indices, diag, diagonal, identity, trace, stack/hstack/
vstack/dstack, full, zeros/ones, full_like, split/vsplit/dsplit, reshape with order='F', the reshape method,
expand_dims, swapaxes, moveaxis, squeeze, average, array, allclose under tf.function, the zero-stride constant,
flip) and gives NumPy's values. Gradients (TF's methods check none here) of the differentiable ops are TF 2.21's
``tf.GradientTape`` values, hard-coded, checked eagerly and by a tape inside ``tj.function``; JVPs are checked
against ``jax.jvp`` of the jax.numpy function. Grids are sampled: every op and shape of TF's lists, with the
dtypes, axes and offsets cycled through rather than crossed; float16, float64 and int64 appear a few times each
(the 64-bit ones come back 32-bit, as jax.numpy). Inputs are drawn as ``jtu.rand_default`` draws them (3 * a
standard normal, truncated to the dtype), from a seeded ``np.random.RandomState``; average's weights are kept
positive (TF's test skips the cases whose weights sum to 0). TensorFlow is not imported.

Ported: testCumSumProd, testTri, testTriLU, testDiagIndices, testDiag, testDiagonal, testIdentity, testTrace,
testStack, testHVDStack, testFull, testZerosOnes, testFullLike, testSplitStaticInt, testHVDSplit, testReshape,
testReshapeMethod, testExpandDimsStaticDim, testSwapAxesStaticAxes, testMoveaxisStaticAxes (``@new_test``, run
in TF only under a flag), testSqueeze, testAverage, testArray, testIssue121, testAllClose,
testZeroStridesConstantHandler, testIsInstanceNdarrayDuringTracing, testFlip; and these, ``@jtu.disable``d in
TF, within API.md's scope:
  * testArrayMethod: TF 2.21 and jax.numpy both raise ValueError for its object (``dtype = np.float32``, a type,
    not a dtype); ported as that ValueError, and with ``np.dtype(np.float32)`` (jax.numpy and NumPy give 3.0).
  * testMemoryView: ``array(bytearray(b"\\x2a"))`` is uint8 [42] (NumPy, jax.numpy); TF 2.21 gives int64.
  * testNonArrayErrorMessage expects TypeError for a Python list argument (old JAX's rule; jax.numpy still raises
    it); API.md makes tj accept lists wherever a Tensor is, as TF's tnp does (TF 2.21: add -> [4, 6], dot -> 11),
    so the port checks those values.
  * testAbstractionErrorMessage expects TypeError from ``jax.jit`` of a Python loop over a traced int and of a
    Python ``if`` on a traced float. Ported with TF 2.21's ``tf.function`` answers: Python numbers are static
    (f(3., 3) = 6561, g(3.) = 6, g(-3.) = -1, one trace per value); with a Tensor argument tj raises a TypeError
    naming tj.numpy.where, where TF's autograph turns the ``if`` into tf.cond (g(tf.constant(-3.)) = -1): API.md
    promises no autograph for tj.function, so that half checks the error's class and message only.

Left out: testOnesBroadcastingConstantHandler (disabled; patches XLA's builder to see a Broadcast emitted, XLA
introspection), testTracingPrimitiveWithNoTranslationErrorMessage (disabled; tests the private
``tnp._not_implemented`` helper, which has no tj counterpart).

Sanctioned differences (API.md: tj.numpy follows jax.numpy / NumPy rules, x64 off), where TF 2.21's tnp gives
another dtype: cumsum/cumprod of int32 without ``dtype`` (TF int64, jax int32); tri, identity, zeros, ones with no
dtype (TF float64, jax float32); array of Python floats / ints / complex (TF float64 / int64 / complex128, jax
float32 / int32 / complex64); stack/hstack of float32 with int64 or float64 (TF float64, jax float32); average of
int32 (TF float64, jax float32); full with a Python float (TF float64); array(bytearray) (TF int64, jax uint8); the
zero-stride float64 constant times 3. (TF float64, jax float32).

Found by this port and fixed: average with integer weights and ``returned=True`` returned the sum of weights in the
weights' integer dtype (jax.numpy, NumPy and TF: the average's floating dtype); trace with ``dtype`` summed in the
input's dtype and cast the sum (NumPy, jax.numpy and TF cast the elements, then sum: trace of a float32
[[0.6, 0.6], [0.6, 0.6]] with dtype int32 is 0, tj gave 1).
"""
import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from conftest import close_to_tf, jax_canonical as canon, tape_gradients

tnp = tj.numpy

# jax.numpy warns when a 64-bit dtype is asked for with x64 off (and gives the 32-bit one); some cases ask.
pytestmark = pytest.mark.filterwarnings("ignore:Explicitly requested dtype")

PY = "python scalar"  # jtu.PYTHON_SCALAR_SHAPE
NP = "numpy scalar"  # jtu.NUMPY_SCALAR_SHAPE
F16, F32, F64, I32, I64 = np.float16, np.float32, np.float64, np.int32, np.int64
C64, C128, B = np.complex64, np.complex128, np.bool_
DEFAULT = [F32, I32, F16, F64, I64]  # TF's default_dtypes, the common ones first (cycled through)
ARRAY_SHAPES = [(), (4,), (3, 4), (3, 1), (1, 4), (2, 1, 4), (2, 3, 4), (0,), (0, 4), (3, 0)]
MATRIX_SHAPES = [s for s in ARRAY_SHAPES if len(s) >= 2]
TOL = {np.dtype(F16): 1e-2, np.dtype(F32): 2e-5, np.dtype(C64): 2e-5}


def rand(shape, dtype, seed=0):
    """jtu.rand_default: 3 * a standard normal, cast (truncated) to ``dtype``; PY gives a Python number of the
    type ``dtype`` (float, int, complex, bool), NP a NumPy scalar."""
    r = np.random.RandomState(seed)
    if shape == PY:
        v = 3 * r.randn()
        return {float: v, int: int(v), complex: complex(v, 3 * r.randn()), bool: v > 0}[dtype]
    s = () if shape == NP else shape
    if dtype == B:
        a = r.rand(*s) > 0.5
    elif np.issubdtype(dtype, np.complexfloating):
        a = 3 * r.randn(*s) + 3j * r.randn(*s)
    else:
        a = 3 * r.randn(*s)
    a = np.asarray(a).astype(dtype)
    return a[()] if shape == NP else a


def match(got, ref, want, label):
    """``got`` (tj) has jax.numpy's result ``ref``'s structure, shapes and dtypes (``ref``: jax.eval_shape's
    ShapeDtypeStructs), and NumPy's values ``want``."""
    if isinstance(ref, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(ref), (label, got)
        for g, r, w in zip(got, ref, want):
            match(g, r, w, label)
        return
    assert isinstance(got, tj.Tensor), (label, type(got))
    assert (got.shape, got.dtype) == (ref.shape, ref.dtype), (label, got.shape, got.dtype, ref.shape, ref.dtype)
    g, w = got.numpy(), np.asarray(want)
    assert g.shape == w.shape, (label, g.shape, w.shape)
    if np.issubdtype(ref.dtype, np.inexact):
        tol = TOL[np.dtype(ref.dtype)]
        scale = max(1.0, float(np.abs(w).max())) if w.size else 1.0
        np.testing.assert_allclose(g.astype(C128), w.astype(C128), rtol=tol, atol=tol * scale, err_msg=label)
    else:
        np.testing.assert_array_equal(g, w, err_msg=label)


def check_grid(cases, compiled=True):
    """Each case ``(label, f, args)``: ``f(tj.numpy, *args)`` against ``f(jax.numpy, *args)`` (dtype, shape) and
    ``f(numpy, *canon(args))`` (values); then all cases once more inside one ``tj.function`` taking every case's
    ``args`` (``_CompileAndCheck``). Static arguments (shapes, axes, dtypes) live in ``f``, as in TF's lambdas.
    jax.numpy's shapes and dtypes come from jax.eval_shape of the same call (its values are not used): no XLA
    program, where running it eagerly compiled one per primitive."""
    refs = []
    for label, f, args in cases:
        ref, want = jax.eval_shape(lambda: f(jnp, *args)), f(np, *canon(args))
        match(f(tnp, *args), ref, want, label)
        refs.append((ref, want))
    if compiled:
        run = tj.function(lambda arg_lists: [f(tnp, *a) for (_, f, _), a in zip(cases, arg_lists)])
        outs = run([list(args) for _, _, args in cases])
        for (label, _, _), out, (ref, want) in zip(cases, outs, refs):
            match(out, ref, want, "tj.function: " + label)


def cycle(values, i):
    return values[i % len(values)]


# -- testCumSumProd --------------------------------------------------------------------------------------------

CUM_CASES = [  # (shape, dtype, out_dtype, axis)
    (PY, float, None, None), (NP, F32, None, None), ((), I32, F32, None), ((0,), F32, None, 0),
    ((4,), F16, None, 0), ((4,), F32, F16, -1), ((3, 4), F32, None, None), ((3, 4), F32, I32, 0),
    ((3, 4), I32, None, 1), ((3, 4), I32, F32, -1), ((3, 4), I64, None, 0), ((3, 4), F64, None, 1),
    ((3, 4), F32, I64, 1), ((2, 1, 4), F32, F32, -2), ((2, 3, 4), I32, None, 0), ((3, 0), I32, F32, 1),
]


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_cumsum_cumprod(op):
    check_grid([(f"{op} {s} {d} out={o} axis={a}", lambda m, x, a=a, o=o: getattr(m, op)(x, axis=a, dtype=o),
                 [rand(s, d, i)]) for i, (s, d, o, a) in enumerate(CUM_CASES)])


# -- testTri, testTriLU, testDiagIndices, testDiag, testDiagonal, testIdentity, testTrace ------------------------

def test_tri():
    check_grid([(f"tri n={n} m={m} k={k} {d}", lambda mod, n=n, m=m, k=k, d=d: mod.tri(n, M=m, k=k, dtype=d), [])
                for i, (n, m, k) in enumerate(itertools.product([0, 4], [None, 0, 1, 3, 4], [-4, -1, 0, 3]))
                for d in [cycle(DEFAULT, i)]])


@pytest.mark.parametrize("op", ["tril", "triu"])
def test_tril_triu(op):
    cases = []
    for i, s in enumerate(MATRIX_SHAPES):
        for j, k in enumerate([cycle(range(-3, 3), 2 * i), cycle(range(-3, 3), 2 * i + 1)]):
            d = cycle([F32, I32, F16, B], i + j)
            cases.append((f"{op} {s} {d} k={k}", lambda m, x, k=k: getattr(m, op)(x, k=k), [rand(s, d, i)]))
    check_grid(cases)


def test_diag_indices():
    # NumPy gives int64 index arrays, jax.numpy int32 (x64 off); ndim 0 gives an empty tuple
    check_grid([(f"diag_indices n={n} ndim={nd}", lambda m, n=n, nd=nd: m.diag_indices(n, nd), [])
                for nd in [0, 1, 4] for n in [0, 1, 7]])


def test_diag():
    shapes = [s for s in ARRAY_SHAPES if len(s) in (1, 2)]
    check_grid([(f"diag {s} {d} k={k}", lambda m, x, k=k: m.diag(x, k), [rand(s, d, i)])
                for i, s in enumerate(shapes) for j in range(3)
                for k, d in [(cycle(range(-4, 4), 3 * i + j), cycle(DEFAULT[:3], i + j))]])


DIAGONAL_CASES = [  # (shape, offset, axis1, axis2)
    ((3, 4), 0, 0, 1), ((3, 4), 2, -1, 0), ((3, 4), -4, 1, 0), ((3, 1), 0, 1, 0), ((1, 4), 1, -2, -1),
    ((2, 1, 4), -1, 2, 0), ((2, 3, 4), -1, 0, 2), ((2, 3, 4), 1, -1, -2), ((2, 3, 4), 3, 1, 0),
    ((0, 4), 0, 0, 1), ((3, 0), -1, 1, 0),
]


def test_diagonal():
    check_grid([(f"diagonal {s} {d} offset={o} axes={a1},{a2}",
                 lambda m, x, o=o, a1=a1, a2=a2: m.diagonal(x, o, a1, a2), [rand(s, d, i)])
                for i, (s, o, a1, a2) in enumerate(DIAGONAL_CASES) for d in [cycle(DEFAULT, i)]])


def test_identity():
    cases = [(n, d) for n in range(4) for d in (F32, I32)] + [(2, F16), (3, I64), (1, F64)]
    check_grid([(f"identity {n} {d}", lambda m, n=n, d=d: m.identity(n, d), []) for n, d in cases])


TRACE_CASES = [  # (shape, dtype, out_dtype, offset, axis1, axis2)
    ((3, 4), F32, None, 0, 0, 1), ((3, 4), I32, None, 1, 1, 0), ((3, 4), F32, C64, -1, 0, 1),
    ((3, 4), I32, F16, 0, -1, -2), ((2, 3, 4), F32, I32, 1, -1, 0), ((2, 3, 4), F16, F32, -1, 2, 1),
    ((2, 1, 4), I32, C128, 0, 0, 2), ((3, 1), F32, F64, 3, 0, 1), ((0, 4), F32, None, 0, 0, 1),
    ((3, 0), I32, I64, -2, 1, 0), ((1, 4), F64, None, 2, 0, 1), ((2, 3, 4), I64, None, -3, 0, 2),
]


def test_trace():
    check_grid([(f"trace {s} {d} out={od} offset={o} axes={a1},{a2}",
                 lambda m, x, o=o, a1=a1, a2=a2, od=od: m.trace(x, o, a1, a2, od), [rand(s, d, i)])
                for i, (s, d, od, o, a1, a2) in enumerate(TRACE_CASES)])


@pytest.mark.parametrize("x,dtype,want", [
    (np.full((2, 2), 0.6, F32), I32, 0),  # TF 2.21: 0 (0 + 0); casting the sum would give int(1.2) = 1
    (np.diag(np.array([0.1, 0.2, 0.3], F16)), F32, 0.5999755859375),  # TF 2.21; a float16 sum would round first
])
def test_trace_casts_before_summing(x, dtype, want):
    # testTrace's out_dtype cases whose input dtype differs: the sum is taken in ``dtype``
    got = tnp.trace(x, dtype=dtype)
    assert got.dtype == dtype
    assert float(got) == want


# -- testStack, testHVDStack -----------------------------------------------------------------------------------

DTYPE_LISTS = [[F32], [F32, F32], [F32, I32, F32], [F32, I64, F32], [F32, I32, F64]]


def _arrays(shape, dtypes, seed):
    return [rand(shape, d, seed + j) for j, d in enumerate(dtypes)]


def test_stack():
    cases = [((), 0, 0), ((), -1, 4), ((2,), -2, 1), ((2,), 1, 2), ((3, 4), -1, 3), ((3, 4), 1, 4),
             ((3, 4), 0, 0), ((1, 10), -3, 2), ((1, 10), 2, 1)]
    check_grid([(f"stack {s} {DTYPE_LISTS[dl]} axis={a}", lambda m, xs, a=a: m.stack(xs, axis=a),
                 [_arrays(s, DTYPE_LISTS[dl], i)]) for i, (s, a, dl) in enumerate(cases)])


def test_hstack_vstack_dstack():
    shapes = [(), (2,), (3, 4), (1, 10), (2, 3, 4)]
    check_grid([(f"{op} {s} {cycle(DTYPE_LISTS, i)}", lambda m, xs, op=op: getattr(m, op)(xs),
                 [_arrays(s, cycle(DTYPE_LISTS, i), i)])
                for i, (op, s) in enumerate(itertools.product(["hstack", "vstack", "dstack"], shapes))])


# -- testFull, testZerosOnes, testFullLike -----------------------------------------------------------------------

def test_full():
    shapes = ARRAY_SHAPES + [3, np.array(7, dtype=np.int32)]
    outs = [None, F32, I32, None, F16, I32, F64, None, I64, F32, None, I32]
    check_grid([(f"full {s} fill {cycle(DEFAULT, i)} out={o}", lambda m, v, s=s, o=o: m.full(s, v, dtype=o),
                 [rand((), cycle(DEFAULT, i), i)]) for i, (s, o) in enumerate(zip(shapes, outs))])


def test_zeros_ones():
    shapes = [2, (), (2,), (3, 0), np.array((4, 5, 6), dtype=np.int32), np.array(4, dtype=np.int32)]
    all_dtypes = [F32, I32, B, C64, F16, F64, I64, C128]
    check_grid([(f"{op} {s} {d}", lambda m, op=op, s=s, d=d: getattr(m, op)(s, d), [])
                for i, (op, s) in enumerate(itertools.product(["zeros", "ones"], shapes))
                for d in [cycle(all_dtypes, 2 * i), cycle(all_dtypes, 2 * i + 1)]])


def test_full_like():
    cases = [((), F32, I32, F32), ((4,), I32, F32, F32), ((3, 4), F32, F32, I32), ((3, 1), F16, F32, F16),
             ((1, 4), I32, I32, F32), ((2, 1, 4), F32, F16, F64), ((2, 3, 4), I64, F32, I32),
             ((0,), F32, I32, I32), ((0, 4), F64, F64, F32), ((3, 0), I32, F32, I64)]
    check_grid([(f"full_like {s} {d} fill {fd} out={o}", lambda m, x, v, o=o: m.full_like(x, v, dtype=o),
                 [rand(s, d, i), rand((), fd, i + 50)]) for i, (s, d, fd, o) in enumerate(cases)])


# -- testSplitStaticInt, testHVDSplit, testReshape, testReshapeMethod --------------------------------------------

def test_split():
    cases = [((3,), 0, 3), ((12,), 0, 3), ((12, 4), 0, 4), ((12, 4), 1, 2), ((2, 3, 4), -1, 2), ((2, 3, 4), -2, 3)]
    check_grid([(f"split {s} {cycle(DEFAULT, i)} axis={a} n={n}", lambda m, x, a=a, n=n: m.split(x, n, axis=a),
                 [rand(s, cycle(DEFAULT, i), i)]) for i, (s, a, n) in enumerate(cases)])


def test_vsplit_hsplit_dsplit():
    cases = [((12, 4), 0, 4), ((12, 4), 1, 2), ((2, 3, 4), 2, 2), ((4, 3, 4), 0, 2)]
    name = {0: "vsplit", 1: "hsplit", 2: "dsplit"}
    check_grid([(f"{name[a]} {s} n={n}", lambda m, x, a=a, n=n: getattr(m, name[a])(x, n),
                 [rand(s, cycle(DEFAULT, i), i)]) for i, (s, a, n) in enumerate(cases)])


RESHAPES = [(NP, (1, 1, 1)), ((), (1, 1, 1)), ((7, 0), (0, 42, 101)), ((3, 4), 12), ((3, 4), (12,)),
            ((3, 4), -1), ((2, 1, 4), (-1,)), ((2, 2, 4), (2, 8))]


def test_reshape():
    check_grid([(f"reshape {s} -> {o} order={order}", lambda m, x, o=o, order=order: m.reshape(x, o, order=order),
                 [rand(s, cycle(DEFAULT, i), i)])
                for i, ((s, o), order) in enumerate(itertools.product(RESHAPES, ["C", "F"]))])


def test_reshape_method():
    # x.reshape(*shape): the Tensor's method with the sizes as separate arguments
    cases = [((7, 0), (0, 42, 101)), ((2, 1, 4), (-1,)), ((2, 2, 4), (2, 8))]
    check_grid([(f"method reshape {s} -> {o}", lambda m, x, o=o: m.asarray(x).reshape(*o),
                 [rand(s, cycle(DEFAULT, i), i)]) for i, (s, o) in enumerate(cases)])


# -- testExpandDimsStaticDim, testSwapAxesStaticAxes, testMoveaxisStaticAxes, testSqueeze, testFlip -------------

def test_expand_dims():
    # TF's cases ((3,): 0; (3, 4): -1, 0, 1) and the ends of the valid range, a scalar's included
    cases = [((3,), 0), ((3, 4), -1), ((3, 4), 0), ((3, 4), 1), ((), 0), ((), -1), ((3, 4), 2), ((3, 4), -3)]
    check_grid([(f"expand_dims {s} {d}", lambda m, x, d=d: m.expand_dims(x, d), [rand(s, cycle(DEFAULT, i), i)])
                for i, (s, d) in enumerate(cases)])


def test_swapaxes():
    cases = [((3, 4), 0, 1), ((3, 4), 1, 0), ((3, 4, 5), 1, 2), ((3, 4, 5), -1, -2), ((3, 4, 5), 0, 1)]
    check_grid([(f"swapaxes {s} {a} {b}", lambda m, x, a=a, b=b: m.swapaxes(x, a, b),
                 [rand(s, cycle(DEFAULT, i), i)]) for i, (s, a, b) in enumerate(cases)])


def test_moveaxis():
    # TF's shape is tuple(range(6)): (0, 1, 2, 3, 4, 5), an empty array of rank 6
    r6 = tuple(range(6))
    cases = [((0, 2), (3, 5)), ((0, 2), (-1, -3)), ((-6, -4), (3, 5)), ((-6, -4), (-1, -3)), (0, 4), (-6, -2),
             (r6, r6), (r6, tuple(reversed(r6))), ((), ())]
    check_grid([(f"moveaxis {src} -> {dst}", lambda m, x, src=src, dst=dst: m.moveaxis(x, src, dst),
                 [rand(r6, cycle(DEFAULT, i), i)]) for i, (src, dst) in enumerate(cases)])


def test_squeeze():
    cases = [((3, 1), None), ((3, 1), 1), ((1, 3, 1), (0, 2)), ((1, 4, 1), (0,))]
    check_grid([(f"squeeze {s} {a}", lambda m, x, a=a: m.squeeze(x, a), [rand(s, cycle(DEFAULT, i), i)])
                for i, (s, a) in enumerate(cases)])


def test_flip():
    cases = [(s, a) for s in [(3,), (2, 3)] for a in list(range(-len(s), len(s))) + [None]]
    check_grid([(f"flip {s} axis={a}", lambda m, x, a=a: m.flip(x, a), [rand(s, cycle(DEFAULT, i), i)])
                for i, (s, a) in enumerate(cases)])


# -- testAverage -------------------------------------------------------------------------------------------------

def _weights(shape, dtype, seed):
    # positive weights: TF's test skips the draws whose weights sum to zero (ZeroDivisionError)
    w = np.abs(3 * np.random.RandomState(seed).randn(*shape)) + 0.5
    return (np.round(w) if np.issubdtype(dtype, np.integer) else w).astype(dtype)


AVERAGE_CASES = [  # (shape, dtype, axis, weights' shape or None, returned)
    (PY, float, None, None, False), (NP, F32, None, None, True), ((), F32, None, (), True),
    ((4,), F32, 0, (4,), True), ((4,), C64, None, None, False), ((3, 4), F32, 1, (4,), True),
    ((3, 4), I32, 0, None, True), ((3, 4), F16, None, (3, 4), False), ((3, 1), F32, -1, None, True),
    ((2, 3, 4), C64, -2, (3,), True), ((2, 1, 4), F32, None, (2, 1, 4), True), ((2, 3, 4), I32, 2, None, False),
    ((1, 4), F64, 1, (1, 4), False), ((3, 4), I32, 1, (4,), False), ((2, 3, 4), F32, -3, (2,), False),
]


def _average_cases(cases):
    out = []
    for i, (s, d, a, ws, ret) in enumerate(cases):
        x = rand(s, d, i)
        if ws is None:
            out.append((f"average {s} {d} axis={a} returned={ret}",
                        lambda m, x, a=a, ret=ret: m.average(x, a, returned=ret), [x]))
        else:
            out.append((f"average {s} {d} axis={a} weights {ws} returned={ret}",
                        lambda m, x, w, a=a, ret=ret: m.average(x, a, w, ret), [x, _weights(ws, d, i + 50)]))
    return out


def test_average():
    check_grid(_average_cases(AVERAGE_CASES))


@pytest.mark.parametrize("dtype", [I32, F32])
def test_average_integer_weights_returned(dtype):
    # testAverage's cases with int32 weights and returned=True (TF 2.21: (5.5, 12.0), float64 both)
    x = np.arange(12).reshape(3, 4).astype(dtype)
    check_grid([("average int weights", lambda m, x, w: m.average(x, 0, w, True), [x, np.array([1, 2, 3], I32)])],
               compiled=False)


# -- testArray, testIssue121, testArrayMethod, testMemoryView --------------------------------------------------

ARRAY_ARGS = [[True, False, True], 3., [1, 2, 3], [1., 2., 3.], [[1, 2], [3, 4], [5, 6]], [[1, 2.], [3, 4], [5, 6]],
              [[1., 2j], [3., 4.], [5., 6.]],
              [[3, np.array(2, dtype=np.float64), 1], np.arange(3., dtype=np.float64)]]


def test_array():
    # the argument is static (TF: static_argnums=[0]); NumPy's value, jax.numpy's dtype (float32, int32, complex64)
    cases = []
    for i, arg in enumerate(ARRAY_ARGS):
        for ndmin in [None, np.ndim(arg), np.ndim(arg) + 1, np.ndim(arg) + 2]:
            kw = {} if ndmin is None else {"ndmin": ndmin}
            cases.append((f"array #{i} ndmin={ndmin}", lambda m, arg=arg, kw=kw: m.array(arg, **kw), []))
    check_grid(cases)


def test_array_is_not_a_numpy_scalar():
    # testIssue121
    assert not np.isscalar(tnp.array(3))


class _ArrayLike:
    dtype = np.dtype(np.float32)

    def __array__(self, dtype=None, copy=None):
        return np.asarray(3.0, dtype or self.dtype)


class _ArrayLikeDtypeType(_ArrayLike):
    dtype = np.float32  # testArrayMethod's own class: a type where NumPy reads a dtype


def test_array_of_array_like_object():
    # testArrayMethod (disabled in TF): an object with __array__ converts through it (jax.numpy, NumPy: 3.0)
    ans = tnp.array(_ArrayLike())
    assert ans.dtype == jnp.array(_ArrayLike()).dtype == np.float32
    assert float(ans) == 3.0
    # TF's class, whose ``dtype`` is a type: TF 2.21 and jax.numpy both raise ValueError
    with pytest.raises(ValueError):
        tnp.array(_ArrayLikeDtypeType())


def test_array_of_bytearray():
    # testMemoryView (disabled in TF): NumPy and jax.numpy give uint8 [42] (TF 2.21: int64)
    ans = tnp.array(bytearray(b"\x2a"))
    assert ans.dtype == jnp.array(bytearray(b"\x2a")).dtype == np.uint8
    np.testing.assert_array_equal(ans.numpy(), [42])


# -- testAllClose, testZeroStridesConstantHandler, testIsInstanceNdarrayDuringTracing ------------------------------

def test_allclose_compiled():
    r = np.random.RandomState(0)
    x, y = r.randn(2, 2), r.randn(2)

    def same(list1, list2):
        close = [tnp.allclose(a, b, atol=1e-3, rtol=1e-3) for a, b in zip(list1, list2)]
        return tnp.all(tnp.array(close))

    csame = tj.function(same)
    assert bool(same((x, y), (x, y)))
    assert bool(csame((x, y), (x, y)))
    assert not bool(csame((x, y), (x, 2 * y)))


def test_zero_strides_constant_in_function():
    raw = np.random.RandomState(0).randn(1, 2, 1, 1, 5, 1)
    const = np.broadcast_to(raw, (3, 2, 3, 4, 5, 6))  # strides of 0 along the broadcast axes
    out = tj.function(lambda x: x * const)(3.)
    assert out.dtype == (jnp.asarray(3.) * const).dtype == np.float32  # (TF 2.21: float64)
    np.testing.assert_allclose(out.numpy(), 3. * const, rtol=1e-6)


def test_is_tensor_during_tracing():
    # testIsInstanceNdarrayDuringTracing: tnp.ndarray (tf.Tensor) -> tj.Tensor
    seen = []

    @tj.function
    def f(x):
        seen.append(isinstance(x, tj.Tensor))
        return tnp.sum(x)

    assert float(f(np.ones(3))) == 3.0
    assert seen == [True]


# -- disabled error-message methods, ported with TF's answers ---------------------------------------------------

def test_lists_are_arrays():
    # testNonArrayErrorMessage (disabled): tj takes Python lists as arrays (API.md), as TF 2.21's tnp does
    x, y = [1., 2.], np.array([3., 4.])
    for op, want in [(tnp.add, [4., 6.]), (tnp.dot, 11.)]:
        np.testing.assert_array_equal(op(x, y).numpy(), want)
        np.testing.assert_array_equal(tj.function(op)(x, y).numpy(), want)
        assert op(x, y).dtype == np.float32


def test_python_numbers_are_static_in_function():
    # testAbstractionErrorMessage (disabled): TF 2.21's tf.function takes Python numbers as constants
    @tj.function
    def f(x, n):
        for _ in range(n):
            x = x * x
        return x

    @tj.function
    def g(x):
        if x > 0.:
            return x * 2
        return x + 2

    assert float(f(3., 3)) == 6561.0
    assert float(g(3.)) == 6.0 and float(g(-3.)) == -1.0  # one trace per value, as tf.function
    # a traced Tensor cannot steer a Python if (TF's autograph would make it a tf.cond): a clear TypeError
    with pytest.raises(TypeError, match="where"):
        g(tj.constant(-3.))


# -- gradients (TF 2.21's tape) --------------------------------------------------------------------------------

X = np.linspace(-1.5, 2.0, 12, dtype=np.float32).reshape(3, 4)
X3 = np.linspace(-1.0, 1.0, 24, dtype=np.float32).reshape(2, 3, 4)
X3B = X3.reshape(3, 2, 4)
W = np.array([0.5, 1.0, 1.5, 2.0], np.float32)
CT = np.arange(12, dtype=np.float32).reshape(3, 4) / 10 + 0.5

GRADIENTS = [  # (label, f(module, *xs), xs, output gradient, TF 2.21's gradients)
    ("cumprod axis=1", lambda m, a: m.cumprod(a, axis=1), [X], CT,
     [[0.059992433, -0.55847114, 0.46735534, -1.2247934, 1.064275, -0.41068745, -0.040758833, -0.01014275,
       13.988017, 9.727479, 6.7004137, 3.8362134]]),
    ("cumprod axis=0", lambda m, a: m.cumprod(a, axis=0), [X], CT,
     [[-0.013429721, 0.86446291, 2.1820247, 4, -3.3886361, -3.4380167, -3.1287189, -2.4000001, 0.44318181,
       -0.15041322, -0.52995867, -0.63471079]]),
    ("cumsum axis=None", lambda m, a: m.cumsum(a), [X], CT.ravel(),
     [[12.6, 12.1, 11.5, 10.8, 10.0, 9.1, 8.1, 7.0, 5.8, 4.5, 3.1, 1.6]]),
    ("cumsum dtype=float64", lambda m, a: m.cumsum(a, dtype=F64), [X], None,
     [[12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]]),
    ("trace offset=1 axes=-1,0", lambda m, a: m.trace(a, 1, -1, 0), [X3], np.array([1.5, -2., 0.5], F32),
     [[0] * 12 + [1.5, 0, 0, 0, -2, 0, 0, 0, 0.5, 0, 0, 0]]),
    ("diagonal offset=-1 axes=0,2", lambda m, a: m.diagonal(a, -1, 0, 2), [X3B], np.array([[1., 2.], [3., 4.]], F32),
     [[0] * 8 + [1, 0, 0, 0, 3, 0, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0]]),
    ("average weights axis=1", lambda m, a, w: m.average(a, 1, w), [X, W], np.array([1., -1., 2.], F32),
     [[0.1, 0.2, 0.3, 0.4, -0.1, -0.2, -0.3, -0.4, 0.2, 0.4, 0.6, 0.8],
      [-0.25454548, -0.12727273, -2.9802322e-08, 0.12727267]]),
    ("average weights returned", lambda m, a, w: m.average(a, 1, w, returned=True), [X, W], None,
     [[0.1, 0.2, 0.3, 0.4] * 3, [2.6181817, 2.8090909, 3, 3.1909091]]),
    ("average axis=None", lambda m, a: m.average(a), [X], None, [[1 / 12] * 12]),
    ("tril k=-1", lambda m, a: m.tril(a, -1), [X], CT, [[0, 0, 0, 0, 0.9, 0, 0, 0, 1.3, 1.4, 0, 0]]),
    ("triu k=1", lambda m, a: m.triu(a, 1), [X], CT, [[0, 0.6, 0.7, 0.8, 0, 0, 1.1, 1.2, 0, 0, 0, 1.6]]),
    ("flip axis=-1", lambda m, a: m.flip(a, -1), [X], CT,
     [[0.8, 0.7, 0.6, 0.5, 1.2, 1.1, 1.0, 0.9, 1.6, 1.5, 1.4, 1.3]]),
    ("reshape order=F", lambda m, a: m.reshape(a, (2, 6), order="F"), [X], CT.reshape(2, 6),
     [[0.5, 1.2, 0.8, 1.5, 1.1, 0.7, 1.4, 1.0, 0.6, 1.3, 0.9, 1.6]]),
    ("moveaxis 0 -> -1", lambda m, a: m.moveaxis(a, 0, -1), [X3], np.arange(24, dtype=F32).reshape(3, 4, 2),
     [list(range(0, 24, 2)) + list(range(1, 24, 2))]),
    ("stack axis=1", lambda m, a, b: m.stack([a, b], axis=1), [X[0], X[1]], np.arange(8, dtype=F32).reshape(4, 2),
     [[0, 2, 4, 6], [1, 3, 5, 7]]),
    ("diag of a matrix k=1", lambda m, a: m.diag(a, 1), [X], np.array([1., 2., 3.], F32),
     [[0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3]]),
    ("diag of a vector k=-1", lambda m, a: m.diag(a, -1), [X[0]], np.arange(25, dtype=F32).reshape(5, 5),
     [[5, 11, 17, 23]]),
]


@pytest.mark.parametrize("label,f,xs,ct,want", GRADIENTS, ids=[g[0] for g in GRADIENTS])
def test_gradient_matches_tf(label, f, xs, ct, want):
    _, grads = tape_gradients(lambda *a: f(tnp, *a), xs, output_gradients=ct)
    for g, w in zip(grads, want):
        close_to_tf(g, w, rtol=1e-5, atol=1e-6)

    @tj.function
    def compiled(*vals):
        with tj.GradientTape() as tape:
            tape.watch(list(vals))
            y = f(tnp, *vals)
        return tape.gradient(y, list(vals), output_gradients=None if ct is None else tj.constant(ct))

    for g, w in zip(compiled(*[tj.constant(x) for x in xs]), want):
        close_to_tf(g, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("label,f,xs", [g[:3] for g in GRADIENTS[:9:2]], ids=[g[0] for g in GRADIENTS[:9:2]])
def test_jvp_matches_jax(label, f, xs):
    tangents = [np.cos(np.arange(x.size, dtype=F32)).reshape(x.shape) for x in xs]
    ts = [tj.constant(x) for x in xs]
    with tj.ForwardAccumulator(ts, [tj.constant(t) for t in tangents]) as acc:
        y = f(tnp, *ts)
    # (jax.jvp in one jax.jit: one program per reference instead of one per primitive)
    _, want = jax.jit(lambda p, t: jax.jvp(lambda *a: f(jnp, *a), p, t))(tuple(xs), tuple(tangents))
    got, want = jax.tree_util.tree_leaves(acc.jvp(y)), jax.tree_util.tree_leaves(want)
    assert len(got) == len(want) > 0
    for got, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(got), np.asarray(w), rtol=1e-5, atol=1e-6)
