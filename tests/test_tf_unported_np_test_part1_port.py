"""TensorFlow's np_test.py (JAX's lax_numpy_test run on tf.experimental.numpy), first part, ported to tapejax.

Source: tensorflow/python/ops/numpy_ops/tests/np_test.py (TF 2.21), LaxBackedNumpyTests, the methods whose ``def``
lies before offset 36000: testOp, testOperatorOverload, testRightOperatorOverload, testBitwiseOp, testReducer,
testReducerNoDtype, testCountNonzero, testNonzero, testArgMinMax, all ported. (Methods of the same names in other
files of tests/ port other TF sources: np_math_ops_test, xla tests, variables_test.) TensorFlow is not imported.

Mapping: ``tnp`` -> ``tj.numpy``; tnp arrays -> ``tj.Tensor`` (``tj.constant``); np_test's op_record tables are kept
as tables (names, dtypes, shape classes, input generators and "rev" marks), their shape x dtype grids sampled down:
each op gets float32 on a 2-d shape or a broadcasting pair, one more shape in turn over the ops (0-d array, Python
number, empty (0,)/(3, 0), equal shapes, a Python float with an int32 array), then int32, bool, complex64 and a
mixed int32/float32 pair where the record takes them, float16 for ten ops and float64/int64 (32-bit here, JAX's x64
being off) for six. ``_CheckAgainstNumpy`` -> values against NumPy run at test time, on the arguments cast to
``jnp.result_type(...)`` (np_test's ``_promote_like_lnp`` with JAX's lattice), shapes and dtypes against jax.numpy
(``jax.eval_shape``); ``_CompileAndCheck`` -> the op inside ``tj.function`` against eager (once or twice per op).
The tables' "rev" marks (np_test's check_grads, modes=["rev"]) -> tape gradients with a random output gradient
against float64 central differences of NumPy's function, the ForwardAccumulator JVP likewise (complex64: jax.vjp /
jax.jvp of jax.numpy's function, in TF's convention, API.md: conj of JAX's cotangent), a tape recorded under an
accumulator, and TF 2.21's tape gradients hard-coded for 31 cases (eagerly; five also inside tj.function).

TF 2.21 agrees with NumPy on every value case of this file's grids (its tnp, numpy behaviour on, run on the same
arguments), except these, where NumPy's answer (which jax.numpy and tapejax give) is kept: tnp.logical_and/or/xor
and tnp.nonzero of complex arrays look at the real part only (1j counts as False); tnp.argmax/argmin skip NaNs
(NumPy: the first NaN's index); tnp.isinf/isneginf/isposinf of a Python float raise AttributeError; tnp.all/any of
complex values look at the real part only (so does jax.numpy; tj.numpy follows NumPy: 1j is true).

Not ported: ``fix`` of testOp's compound table (jax.numpy has no ``fix`` in the installed jax, nor has tj.numpy);
np_test's float64/complex128/int64 sweeps (x64 off; one 64-bit case per few ops instead); bfloat16 (np_test has it
commented out). Ported although TF skips them: testOp (skipIf NumPy >= 2.0); testRightOperatorOverload's Python-number
receivers stay skipped (a Python number has no tj method).

Sanctioned differences (API.md: tj.numpy follows jax.numpy's names and NumPy rules with JAX's dtype lattice, x64 off;
tests check jax.numpy's dtype):
- dtypes: TF's tnp promotes int32 with float32, int arguments of inexact functions (exp/log/sin... of int32) and a
  Python float with an int32 array to float64, keeps float64/int64 arguments, and gives int64 for sum/prod/nansum of
  int32/bool, count_nonzero and argmin/argmax; jax.numpy and tj.numpy give float32 / int32. TF's logaddexp2 of
  float16 is float32 (jax.numpy: float16).
- tnp.nonzero of a 0-d array is nonzero(atleast_1d(x)) in TF; NumPy 2, jax.numpy and tj.numpy raise ValueError.
- gradients at points where TF's tnp formula gives an artifact, not the derivative (tested: tj gives the
  derivative, jax.numpy's): sinc'(0) (TF NaN in reverse mode, 0 forward; tj 0), cbrt'(0) (TF NaN; tj +inf, as
  jax.grad), logaddexp/logaddexp2 at x1 == x2 (TF (1, 0) from its maximum; tj (1/2, 1/2), also forward mode; a
  smooth function has no tie to break, unlike maximum, whose tie convention API.md takes from TF).
- a zero output gradient where the derivative is infinite (API.md's rule): arcsin/arccos/arctanh at 1, cbrt at 0,
  power/float_power(0, 0.5) give 0 here, NaN in TF 2.21 (sqrt gives 0 in both).

Found by this port and fixed: a tape recorded while a ForwardAccumulator is active could not differentiate ``where``
(so sinc) or logaddexp(2) ("Triggering __jax_array__() during abstractification" from the backward kernel; TF: the
same gradient as without the accumulator); tj.numpy.all/any of complex arrays ignored the imaginary part.
"""
import contextlib
import operator
import zlib
from collections import namedtuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy
# NumPy's references meet NaN, inf and 0 on purpose (the rand_some_nan/inf inputs)
pytestmark = [pytest.mark.filterwarnings("ignore:.*encountered in:RuntimeWarning"),
              pytest.mark.filterwarnings("ignore:Mean of empty slice:RuntimeWarning")]

# -- dtypes and shape classes of np_test's tables -------------------------------------------------------------------
F16, F32, F64 = np.float16, np.float32, np.float64
C64, C128 = np.complex64, np.complex128
I32, I64 = np.int32, np.int64
BOOL = np.bool_
FLOAT = [F16, F32, F64]
COMPLEX = [C64, C128]
INT = [I32, I64]
DEFAULT = FLOAT + INT
INEXACT = FLOAT + COMPLEX
NUMBER = FLOAT + COMPLEX + INT
ALL = NUMBER + [BOOL]
PY = "py"  # np_test's PYTHON_SCALAR_SHAPE: the argument is a Python number


def minus(a, b):
    return [x for x in a if x not in b]


# One row per op of np_test's tables: shapes is the class of shapes swept ("all", "nonempty", "nonzerodim",
# "nonempty_nonscalar"), draw how inputs are drawn, rev whether the table marks the op reverse-differentiable,
# tol a tolerance for float32/complex64 where XLA's kernel is less accurate than NumPy's.
Rec = namedtuple("Rec", "name nargs dtypes shapes draw rev tol")


def rec(name, nargs, dtypes, shapes, draw, rev=False, tol=None):
    return Rec(name, nargs, dtypes, shapes, draw, rev, tol)


ONE_TO_ONE = [
    rec("abs", 1, NUMBER, "all", "default", True),
    rec("add", 2, ALL, "all", "default", True),
    rec("ceil", 1, FLOAT, "all", "default"),
    rec("conj", 1, NUMBER, "all", "default", True),
    rec("equal", 2, ALL, "all", "some_equal"),
    rec("exp", 1, NUMBER, "all", "default", True),
    rec("fabs", 1, FLOAT, "all", "default", True),
    rec("float_power", 2, INEXACT, "all", "default1", True, 1e-3),
    rec("floor", 1, FLOAT, "all", "default"),
    rec("greater", 2, minus(ALL, COMPLEX), "all", "some_equal"),
    rec("greater_equal", 2, minus(ALL, COMPLEX), "all", "some_equal"),
    rec("less", 2, minus(ALL, COMPLEX), "all", "some_equal"),
    rec("less_equal", 2, minus(ALL, COMPLEX), "all", "some_equal"),
    rec("log", 1, NUMBER, "all", "positive", True),
    rec("logical_and", 2, ALL, "all", "bool"),
    rec("logical_not", 1, ALL, "all", "bool"),
    rec("logical_or", 2, ALL, "all", "bool"),
    rec("logical_xor", 2, ALL, "all", "bool"),
    rec("maximum", 2, minus(ALL, COMPLEX), "all", "some_inf"),
    rec("minimum", 2, minus(ALL, COMPLEX), "all", "some_inf"),
    rec("multiply", 2, ALL, "all", "default", True),
    rec("negative", 1, NUMBER, "all", "default", True),
    rec("nextafter", 2, [F32, F64], "all", "default", True, 0.0),
    rec("not_equal", 2, ALL, "all", "some_equal", True),
    rec("array_equal", 2, NUMBER, "all", "some_equal", True),
    rec("reciprocal", 1, INEXACT, "all", "default"),
    rec("subtract", 2, NUMBER, "all", "default", True),
    rec("signbit", 1, DEFAULT + [BOOL], "all", "some_inf_and_nan", True),
    rec("sin", 1, NUMBER, "all", "default", True),
    rec("cos", 1, NUMBER, "all", "default", True),
    rec("tan", 1, NUMBER, "all", "uniform", True, 3e-5),
    rec("sinh", 1, minus(NUMBER, [F16]), "all", "default", True),
    rec("cosh", 1, minus(NUMBER, [F16]), "all", "default", True),
    rec("tanh", 1, NUMBER, "all", "default", True),
    rec("arcsin", 1, [F32, F64], "all", "small", True),
    rec("arccos", 1, [F32, F64], "all", "small", True),
    rec("arctan", 1, [F32, F64], "all", "small", True),
    rec("arctan2", 2, [F32, F64], "all", "small", True),
    rec("arcsinh", 1, minus(NUMBER, [F16]), "all", "positive", True),
    rec("arccosh", 1, minus(NUMBER, [F16]), "all", "positive", True),
    rec("arctanh", 1, minus(NUMBER, [F16]), "all", "small", True),
]

# np_test's compound table, less ``fix`` (jax.numpy has none, and neither has tj.numpy: see the docstring).
COMPOUND = [
    rec("angle", 1, NUMBER, "all", "default"),
    rec("atleast_1d", 1, DEFAULT, "all", "default"),
    rec("atleast_2d", 1, DEFAULT, "all", "default"),
    rec("atleast_3d", 1, DEFAULT, "all", "default"),
    rec("cbrt", 1, DEFAULT, "all", "default", True),
    rec("conjugate", 1, NUMBER, "all", "default", True),
    rec("deg2rad", 1, FLOAT, "all", "default"),
    rec("divide", 2, NUMBER, "all", "nonzero", True),
    rec("divmod", 2, minus(INT + FLOAT, [F16]), "all", "nonzero"),
    rec("exp2", 1, NUMBER, "all", "default", True),
    rec("expm1", 1, NUMBER, "all", "positive"),
    rec("floor_divide", 2, minus(NUMBER, COMPLEX), "all", "nonzero", True),
    rec("heaviside", 2, DEFAULT, "all", "default"),
    rec("hypot", 2, DEFAULT, "all", "default"),
    rec("kron", 2, NUMBER, "nonempty", "default"),
    rec("outer", 2, NUMBER, "all", "default"),
    rec("imag", 1, NUMBER, "all", "some_inf"),
    rec("iscomplex", 1, NUMBER, "all", "some_inf"),
    rec("isfinite", 1, FLOAT, "all", "some_inf_and_nan"),
    rec("isinf", 1, FLOAT, "all", "some_inf_and_nan"),
    rec("isnan", 1, FLOAT, "all", "some_inf_and_nan"),
    rec("isneginf", 1, FLOAT, "all", "some_inf_and_nan"),
    rec("isposinf", 1, FLOAT, "all", "some_inf_and_nan"),
    rec("isreal", 1, NUMBER, "all", "some_inf"),
    rec("isrealobj", 1, NUMBER, "all", "some_inf"),
    rec("log2", 1, NUMBER, "all", "positive", True),
    rec("log10", 1, NUMBER, "all", "positive", True),
    rec("log1p", 1, NUMBER, "all", "small_positive"),
    rec("logaddexp", 2, FLOAT, "all", "some_inf_and_nan", True),
    rec("logaddexp2", 2, FLOAT, "all", "some_inf_and_nan", True),
    rec("polyval", 2, NUMBER, "nonempty_nonscalar", "default"),
    rec("positive", 1, NUMBER, "all", "default", True),
    rec("power", 2, NUMBER, "all", "positive", True),
    rec("rad2deg", 1, FLOAT, "all", "default"),
    rec("ravel", 1, ALL, "all", "default", True),
    rec("real", 1, NUMBER, "all", "some_inf"),
    rec("remainder", 2, minus(DEFAULT, [F16]), "all", "nonzero"),
    rec("mod", 2, minus(DEFAULT, [F16]), "all", "nonzero"),
    rec("sinc", 1, NUMBER, "all", "default", True, 1e-5),
    rec("square", 1, NUMBER, "all", "default", True),
    rec("sqrt", 1, NUMBER, "all", "positive", True),
    rec("transpose", 1, ALL, "all", "default", True),
    rec("true_divide", 2, ALL, "all", "nonzero", True),
    rec("diff", 1, NUMBER, "nonzerodim", "default", True),
    rec("isclose", 2, ALL, "all", "small_positive"),
    rec("gcd", 2, INT, "all", "default"),
    rec("lcm", 2, INT, "all", "default"),
]
OP_RECORDS = {r.name: r for r in ONE_TO_ONE + COMPOUND}
assert len(OP_RECORDS) == len(ONE_TO_ONE) + len(COMPOUND)

BITWISE = [rec("bitwise_and", 2, INT, "all", "default"), rec("bitwise_not", 1, INT, "all", "default"),
           rec("bitwise_or", 2, INT, "all", "default"), rec("bitwise_xor", 2, INT, "all", "default")]

REDUCERS = [  # testReducer: these take dtype=
    rec("mean", 1, NUMBER, "nonempty", "default"),
    rec("prod", 1, ALL, "all", "small_positive"),
    rec("sum", 1, ALL, "all", "default"),
    rec("nanmean", 1, FLOAT, "nonempty", "some_nan"),
    rec("nanprod", 1, FLOAT, "all", "some_nan"),
    rec("nansum", 1, minus(NUMBER, COMPLEX), "all", "some_nan"),
]
REDUCERS_NO_DTYPE = [  # testReducerNoDtype
    rec("all", 1, ALL, "all", "some_zero"),
    rec("any", 1, ALL, "all", "some_zero"),
    rec("max", 1, minus(ALL, COMPLEX), "nonempty", "default"),
    rec("min", 1, minus(ALL, COMPLEX), "nonempty", "default"),
    rec("var", 1, ALL, "nonempty", "default"),
    rec("std", 1, ALL, "nonempty", "default"),
    rec("ptp", 1, minus(NUMBER, COMPLEX), "nonempty", "default"),
]

OPERATORS = [  # testOperatorOverload: operator.<name without underscores>(x, y)
    rec("__add__", 2, NUMBER, "all", "default"), rec("__sub__", 2, NUMBER, "all", "default"),
    rec("__mul__", 2, NUMBER, "all", "default"), rec("__eq__", 2, NUMBER, "all", "default"),
    rec("__ne__", 2, NUMBER, "all", "default"), rec("__lt__", 2, DEFAULT, "all", "default"),
    rec("__gt__", 2, DEFAULT, "all", "default"), rec("__ge__", 2, DEFAULT, "all", "default"),
    rec("__pos__", 1, NUMBER, "all", "default"), rec("__neg__", 1, NUMBER, "all", "default"),
    rec("__pow__", 2, INEXACT, "all", "positive", tol=2e-4), rec("__mod__", 2, minus(DEFAULT, [F16]), "all", "nonzero"),
    rec("__floordiv__", 2, DEFAULT, "all", "nonzero"), rec("__truediv__", 2, NUMBER, "all", "nonzero"),
    rec("__abs__", 1, NUMBER, "all", "default"), rec("__invert__", 1, INT, "all", "default"),
]
RIGHT_OPERATORS = [  # testRightOperatorOverload: getattr(second, name)(first)
    rec("__radd__", 2, NUMBER, "all", "default"), rec("__rsub__", 2, NUMBER, "all", "default"),
    rec("__rmul__", 2, NUMBER, "all", "default"), rec("__rpow__", 2, INEXACT, "all", "positive", tol=2e-4),
    rec("__rmod__", 2, minus(DEFAULT, [F16]), "all", "nonzero"),
    rec("__rfloordiv__", 2, DEFAULT, "all", "nonzero"), rec("__rtruediv__", 2, NUMBER, "all", "nonzero"),
]


# -- inputs: np_test's jtu.rand_* generators, seeded per case --------------------------------------------------------
def _real(g, draw, shape):
    if draw == "default":
        return g.standard_normal(shape) * 3
    if draw == "default1":
        return g.standard_normal(shape)
    if draw == "positive":
        return g.uniform(1.0, 3.0, shape)
    if draw == "small":
        return np.clip(g.standard_normal(shape) * 0.3, -0.9, 0.9)
    if draw == "small_positive":
        return g.uniform(1e-3, 0.1, shape)
    if draw == "uniform":
        return g.uniform(-1.5, 1.5, shape)
    if draw == "nonzero":
        x = g.standard_normal(shape) * 3
        return np.where(np.abs(x) < 1, np.sign(x) + (x == 0), x)  # no zero, also once truncated to an int
    if draw == "some_equal":
        return g.integers(-2, 3, shape).astype(np.float64)
    if draw == "bool":
        return (g.random(shape) < 0.5).astype(np.float64)
    if draw == "some_zero":
        x = g.standard_normal(shape) * 3
        return np.where(g.random(shape) < 0.3, 0.0, x)
    if draw in ("some_inf", "some_nan", "some_inf_and_nan"):
        x = g.standard_normal(shape) * 3
        specials = {"some_inf": [np.inf, -np.inf], "some_nan": [np.nan],
                    "some_inf_and_nan": [np.inf, -np.inf, np.nan]}[draw]
        pick = g.integers(0, len(specials), shape)
        return np.where(g.random(shape) < 0.35, np.asarray(specials)[pick], x)
    raise ValueError(draw)


def draw_value(g, draw, shape, dtype):
    """One argument: a NumPy array of ``shape`` and ``dtype``, or a Python number for the shape ``PY``."""
    s = () if shape == PY else shape
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        cut = {"bool": 0.5, "some_equal": 0.5, "nonzero": None}.get(draw, 0.0)
        x = _real(g, draw, s)
        x = np.asarray(x != 0 if cut is None else x > cut)
    elif dtype.kind in "iu":
        if draw == "small_positive":
            x = g.integers(1, 4, s)  # a float in (0, 0.1) truncates to 0
        else:
            x = np.trunc(np.nan_to_num(_real(g, draw, s), posinf=7, neginf=-7))
            x = np.where((x == 0) & (draw == "nonzero"), 1, x)
        x = x.astype(dtype)
    elif dtype.kind == "c":
        x = np.empty(s, dtype)
        x.real, x.imag = _real(g, draw, s), _real(g, draw, s)  # (not re + 1j * im: 1j * inf has a NaN real part)
    else:
        x = _real(g, draw, s).astype(dtype)
    return x.item() if shape == PY else x


def rng_for(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def fmt(shape, dtype):
    name = {BOOL: "bool"}.get(dtype, np.dtype(dtype).name)
    if shape == PY:
        return f"py{ {'b': 'bool', 'i': 'int', 'f': 'float', 'c': 'complex'}[np.dtype(dtype).kind] }"
    return f"{name}{list(shape)}".replace(" ", "")


# -- the sampled grids ---------------------------------------------------------------------------------------------
# Every op gets a float32 case of a 2-d shape (unary) or a broadcasting pair (binary), then one more shape, in turn
# over the ops (a 0-d array, a Python number, an empty array...), then each other dtype kind the record takes
UNARY_MORE = [(), PY, (0,)]
BINARY_MORE = [(((), (2, 3)), None), ((PY, (3,)), None), (((3, 0), (3, 0)), None), (((2, 3), (2, 3)), None),
               ((PY, (2, 3)), (F32, I32))]  # (a Python float with an int32 array: float32, weakly typed)
BINARY_PAIRS = {"nonempty": [((3, 1), (1, 4)), ((), (3,))],
                "nonempty_nonscalar": [((3, 1), (3, 4)), ((2, 1, 4), (3, 4))]}
# float16 and the 64-bit dtypes (made 32-bit: JAX's x64 is off) for a few ops each
F16_OPS = {"exp", "add", "tanh", "floor", "sqrt", "logaddexp2", "exp2", "multiply", "sin", "square"}
X64_OPS = {"sin": F64, "subtract": F64, "log1p": F64, "power": F64, "add": I64, "floor_divide": I64}


def op_cases(r, k=None):
    """(shapes, dtypes) pairs for one record (the k-th of its table): float32 (int32 where the op takes no floats)
    on two shapes, then int32, bool and complex64 (and a mixed int32/float32 pair) where the record takes them, and
    float16/x64 for a few ops."""
    k = list(OP_RECORDS).index(r.name) if k is None else k
    main = F32 if F32 in r.dtypes else I32
    extra = [d for d in (I32, BOOL, C64) if d in r.dtypes and d != main]
    extra += [d for d in (F16,) if r.name in F16_OPS and d in r.dtypes] + \
        [X64_OPS[r.name] for _ in (1,) if r.name in X64_OPS and X64_OPS[r.name] in r.dtypes]
    if r.nargs == 1:
        shapes = [(2, 3), (3, 0)] if r.shapes == "nonzerodim" else [(2, 3), UNARY_MORE[k % len(UNARY_MORE)]]
        base = (4,) if r.shapes == "nonzerodim" else (3,)
        return [((s,), (main,)) for s in shapes] + [((base,), (d,)) for d in extra]
    if r.shapes == "all":
        more, dtypes = BINARY_MORE[k % len(BINARY_MORE)]
        cases = [(((3, 1), (1, 4)), (main, main)), (more, dtypes if dtypes and main == F32 else (main, main))]
    else:
        cases = [(p, (main, main)) for p in BINARY_PAIRS[r.shapes]]
    base = cases[0][0]
    cases += [(base, (d, d)) for d in extra]
    if I32 in r.dtypes and F32 in r.dtypes:
        cases.append((base, (I32, F32)))
    return cases


def case_id(name, shapes, dtypes):
    return name + "-" + "-".join(fmt(s, d) for s, d in zip(shapes, dtypes))


def make_args(name, draw, shapes, dtypes):
    g = rng_for(name, shapes, tuple(np.dtype(d).name for d in dtypes))
    return [draw_value(g, draw, s, d) for s, d in zip(shapes, dtypes)]


# -- references: NumPy's values, jax.numpy's dtypes ------------------------------------------------------------------
def jnp_result(fn, *args):
    """jax.numpy's result (dtypes and shapes only: traced, never compiled)."""
    return jax.eval_shape(lambda: fn(*args))


def promoted(args, dtype=None):
    """The arguments as NumPy arrays of jax.numpy's result dtype (np_test's _promote_like_lnp, with JAX's lattice)."""
    dtype = jnp.result_type(*args) if dtype is None else dtype
    return [np.asarray(a, dtype) for a in args]


def tol_for(dtype, tol):
    """The tolerance for a result of ``dtype``: 1e-2 for float16; the record's (0 for nextafter: exact), at least
    2e-5, for float32 and complex64; exact otherwise."""
    if np.dtype(dtype) == F16:
        return 1e-2
    if np.dtype(dtype).kind not in "fc" or tol == 0.0:
        return 0.0
    return max(tol or 0.0, 2e-5)


def assert_like(label, got, want_values, want_shape_dtype, tol=None):
    """``got`` (Tensor, tuple of them, or a Python bool) has jax.numpy's shape and dtype and NumPy's values."""
    if isinstance(want_shape_dtype, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want_shape_dtype), (label, type(got))
        for g, v, s in zip(got, want_values, want_shape_dtype):
            assert_like(label, g, v, s, tol)
        return
    if isinstance(want_shape_dtype, bool):  # isrealobj: a Python bool, as jax.numpy and NumPy
        assert type(got) is bool and got == want_shape_dtype == bool(want_values), (label, got)
        return
    assert isinstance(got, tj.Tensor), (label, type(got))
    assert (tuple(got.shape), got.dtype) == (want_shape_dtype.shape, want_shape_dtype.dtype), \
        (label, got.shape, got.dtype, want_shape_dtype)
    want = np.asarray(want_values)
    assert want.shape == tuple(got.shape), (label, want.shape, got.shape)
    t = tol_for(got.dtype, tol)
    if got.dtype.kind in "fc" and t:
        np.testing.assert_allclose(got.numpy().astype(np.complex128), want.astype(np.complex128), rtol=t, atol=t,
                                   equal_nan=True, err_msg=label)
    else:
        np.testing.assert_array_equal(got.numpy(), want.astype(got.dtype), err_msg=label)


def assert_same(label, a, b, tol):
    """A compiled result against the eager one."""
    if isinstance(a, (tuple, list)):
        for x, y in zip(a, b):
            assert_same(label, x, y, tol)
        return
    if not isinstance(a, tj.Tensor):
        assert a == b, label
        return
    assert isinstance(b, tj.Tensor) and (a.shape, a.dtype) == (b.shape, b.dtype), (label, b)
    t = tol_for(a.dtype, tol)
    np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=t, atol=t, equal_nan=True, err_msg=label)


# -- testOp ---------------------------------------------------------------------------------------------------------
OP_CASES = [(r.name, shapes, dtypes) for r in OP_RECORDS.values() for shapes, dtypes in op_cases(r)]
# _CompileAndCheck on each op's first case, and on every other op's last (another dtype): compiles are most of this
# file's time
COMPILED = {(r.name,) + c for k, r in enumerate(OP_RECORDS.values()) for c in op_cases(r)[:1] + op_cases(r)[-(k % 2):]}


def op_reference(name, args):
    """NumPy's values on the arguments promoted as jax.numpy promotes them; jax.numpy's shapes and dtypes."""
    if name == "isrealobj":  # a Python bool, no array
        return np.isrealobj(np.asarray(args[0])), jnp.isrealobj(args[0])
    return getattr(np, name)(*promoted(args)), jnp_result(getattr(jnp, name), *args)


@pytest.mark.parametrize("name, shapes, dtypes", OP_CASES, ids=[case_id(*c) for c in OP_CASES])
def test_op_matches_numpy(name, shapes, dtypes):
    r = OP_RECORDS[name]
    args = make_args(name, r.draw, shapes, dtypes)
    label = case_id(name, shapes, dtypes)
    got = getattr(tnp, name)(*args)
    want, want_sd = op_reference(name, args)
    assert_like(label, got, want, want_sd, r.tol)
    # _CompileAndCheck: the same op in a tj.function
    if (name, shapes, dtypes) in COMPILED:
        assert_same(label, got, tj.function(getattr(tnp, name))(*args), r.tol)


# -- testReducer / testReducerNoDtype -------------------------------------------------------------------------------
def reducer_cases(r, with_dtype):
    """(shape, dtype, axis, keepdims, out_dtype): float32 over axes and keepdims (and 3-d, scalar and empty
    shapes), then the record's other dtypes, then (testReducer) an out_dtype of each kind."""
    main = F32
    cases = [((2, 3), main, None, False, None), ((2, 3), main, 0, True, None), ((2, 1, 4), main, -2, False, None),
             ((), main, None, False, None)]
    if r.shapes == "all":
        cases += [((3, 0), main, 0, False, None)]
    cases += [((2, 3), d, -1, d == C64, None) for d in (I32, BOOL, C64) if d in r.dtypes]
    if with_dtype:
        cases += [((2, 3), main, 0, False, d) for d in [d for d in (I32, C64, BOOL) if d in r.dtypes][:2]]
        if I32 in r.dtypes:
            cases.append(((2, 3), I32, -1, True, F32))
    return cases


REDUCER_CASES = [(r, with_dtype) + c for rs, with_dtype in ((REDUCERS, True), (REDUCERS_NO_DTYPE, False))
                 for r in rs for c in reducer_cases(r, with_dtype)]


def reducer_id(r, with_dtype, shape, dtype, axis, keepdims, out_dtype):
    out = "" if out_dtype is None else f"-dtype={np.dtype(out_dtype).name}"
    return f"{r.name}-{fmt(shape, dtype)}-axis={axis}-keepdims={keepdims}{out}"


@pytest.mark.parametrize("r, with_dtype, shape, dtype, axis, keepdims, out_dtype", [
    pytest.param(*c, id=reducer_id(*c)) for c in REDUCER_CASES])
def test_reducer_matches_numpy(r, with_dtype, shape, dtype, axis, keepdims, out_dtype):
    label = reducer_id(r, with_dtype, shape, dtype, axis, keepdims, out_dtype)
    (x,) = make_args(r.name, r.draw, (shape,), (dtype,))
    kw = {"keepdims": keepdims, **({"dtype": out_dtype} if with_dtype else {})}
    got = getattr(tnp, r.name)(x, axis, **kw)
    want = getattr(np, r.name)(*promoted([x]), axis, **kw)
    assert_like(label, got, want, jnp_result(lambda v: getattr(jnp, r.name)(v, axis, **kw), x), 1e-5)
    if shape == (2, 3) and dtype == F32 and axis == 0 and out_dtype is None:  # _CompileAndCheck, once per record
        assert_same(label, got, tj.function(lambda v: getattr(tnp, r.name)(v, axis, **kw))(x), 1e-5)


# -- testCountNonzero / testNonzero / testArgMinMax ------------------------------------------------------------------
COUNT_CASES = [((2, 3), F32, None), ((2, 3), F32, 0), ((2, 3), F32, -1), ((2, 1, 4), F32, 2), ((), F32, None),
               (PY, F32, None), (PY, I32, None), ((3, 0), F32, 1), ((0,), F32, None), ((2, 3), I32, 1),
               ((2, 3), BOOL, 0), ((2, 3), C64, None), ((2, 3), C64, 1), ((2, 3), F16, -2)]


@pytest.mark.parametrize("shape, dtype, axis", COUNT_CASES, ids=[f"{fmt(s, d)}-axis={a}" for s, d, a in COUNT_CASES])
def test_count_nonzero_matches_numpy(shape, dtype, axis):
    (x,) = make_args("count_nonzero", "some_zero", (shape,), (dtype,))
    got = tnp.count_nonzero(x, axis)
    want_sd = jnp_result(lambda v: jnp.count_nonzero(v, axis), x)
    assert_like(fmt(shape, dtype), got, np.count_nonzero(x, axis), want_sd)
    if shape == (2, 3) and axis in (None, 1):  # _CompileAndCheck
        assert_same("count_nonzero", got, tj.function(lambda v: tnp.count_nonzero(v, axis))(x), None)


NONZERO_CASES = [((2, 3), F32), ((3,), F32), ((2, 1, 4), F32), ((0,), F32), ((3, 0), F32), ((2, 3), I32),
                 ((2, 3), BOOL), ((2, 3), C64)]


@pytest.mark.parametrize("shape, dtype", NONZERO_CASES, ids=[fmt(*c) for c in NONZERO_CASES])
def test_nonzero_matches_numpy(shape, dtype):
    (x,) = make_args("nonzero", "some_zero", (shape,), (dtype,))
    got = tnp.nonzero(x)
    want_sd = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in jnp.nonzero(x)]  # (value-dependent: not traced)
    assert_like(fmt(shape, dtype), list(got), np.nonzero(x), want_sd)
    # compiled (np_test's _CompileAndCheck without XLA): inside tj.function the result needs a static size
    padded = tj.function(lambda v: tnp.nonzero(v, size=x.size, fill_value=-1))(x)
    want_padded = [np.concatenate([i, -np.ones(x.size - i.size, i.dtype)]) for i in np.nonzero(x)]
    for p, w in zip(padded, want_padded):
        np.testing.assert_array_equal(p.numpy(), w)


@pytest.mark.parametrize("x", [np.float32(2.0), 0, True], ids=["float32[]", "pyint", "pybool"])
def test_nonzero_of_a_scalar_raises_as_numpy(x):
    # np_test compares tnp.nonzero(x) with onp.nonzero(onp.atleast_1d(x)): TF's tnp accepts a 0-d array. NumPy 2 and
    # jax.numpy refuse one with a ValueError, and so does tj.numpy (jax.numpy's rule; see the docstring).
    with pytest.raises(ValueError, match="0d"):
        np.nonzero(x)
    with pytest.raises(ValueError, match="0d"):
        tnp.nonzero(x)


ARG_CASES = [(name, shape, dtype, axis) for name in ("argmin", "argmax")
             for shape, dtype, axes in [((2, 3), F32, (-2, -1, 0, 1)), ((4,), F32, (0,)), ((2, 1, 4), F32, (1, -1)),
                                        ((2, 3), I32, (1,)), ((2, 3), BOOL, (0,)), ((3, 4), F16, (1,))]
             for axis in axes]


@pytest.mark.parametrize("name, shape, dtype, axis", ARG_CASES,
                         ids=[f"{n}-{fmt(s, d)}-axis={a}" for n, s, d, a in ARG_CASES])
def test_argminmax_matches_numpy(name, shape, dtype, axis):
    (x,) = make_args(name, "some_equal", (shape,), (dtype,))  # ties: the first index wins, as NumPy
    got = getattr(tnp, name)(x, axis)
    want_sd = jnp_result(lambda v: getattr(jnp, name)(v, axis), x)
    assert_like(name, got, getattr(np, name)(x, axis), want_sd)
    if shape == (2, 3) and axis in (0, 1):
        assert_same(name, got, tj.function(lambda v: getattr(tnp, name)(v, axis))(x), None)


def test_argminmax_of_nan_is_its_first_index():
    # (beyond np_test) NumPy and jax.numpy give the first NaN's index; TF 2.21's tnp skips NaNs (argmax [2, 2],
    # argmin [0, 1]): a TF defect, NumPy's answer is kept
    x = np.float32([[1.0, np.nan, 3.0, np.nan], [np.nan, -1.0, 5.0, 2.0]])
    for name, want in (("argmax", [1, 0]), ("argmin", [1, 0])):
        np.testing.assert_array_equal(getattr(tnp, name)(x, 1).numpy(), want)
        np.testing.assert_array_equal(getattr(np, name)(x, 1), want)


# -- testBitwiseOp -------------------------------------------------------------------------------------------------
BITWISE_CASES = []
for _r in BITWISE:
    _shapes = ([(2, 3), (), PY, (0,)] if _r.nargs == 1
               else [((3, 1), (1, 4)), ((), (2, 3)), (PY, (3,)), ((3, 0), (3, 0))])
    BITWISE_CASES += [(_r, s if _r.nargs == 2 else (s,), (I32,) * _r.nargs) for s in _shapes]
    BITWISE_CASES.append((_r, ((2, 3),) * _r.nargs, (I64,) * _r.nargs))  # int64 is int32 here (x64 off)
    if _r.nargs == 2:
        BITWISE_CASES.append((_r, ((2, 3), (2, 3)), (I32, I64)))


@pytest.mark.parametrize("r, shapes, dtypes", BITWISE_CASES, ids=[case_id(c[0].name, *c[1:]) for c in BITWISE_CASES])
def test_bitwise_op_matches_numpy(r, shapes, dtypes):
    args = make_args(r.name, r.draw, shapes, dtypes)
    got = getattr(tnp, r.name)(*args)
    want = getattr(np, r.name)(*promoted(args))
    assert_like(r.name, got, want, jnp_result(getattr(jnp, r.name), *args))
    if PY not in shapes and () not in shapes:
        assert_same(r.name, got, tj.function(getattr(tnp, r.name))(*args), None)


# -- testOperatorOverload / testRightOperatorOverload ----------------------------------------------------------------
OPERATOR_CASES = [(r, right, shapes, dtypes) for rs, right in ((OPERATORS, False), (RIGHT_OPERATORS, True))
                  for r in rs for shapes, dtypes in op_cases(r, (OPERATORS + RIGHT_OPERATORS).index(r))
                  if not (right and shapes[1] == PY)]  # (as np_test: the receiver is an array)


def apply_operator(name, right, args, wrap):
    """``operator.<name>(*args)`` (testOperatorOverload), or ``getattr(args[1], name)(args[0])``
    (testRightOperatorOverload), with the array arguments wrapped by ``wrap`` (Python numbers stay numbers)."""
    xs = [a if isinstance(a, (bool, int, float, complex)) else wrap(a) for a in args]
    if right:
        return getattr(xs[1], name)(xs[0])
    return getattr(operator, name.strip("_"))(*xs)


@pytest.mark.parametrize("r, right, shapes, dtypes", OPERATOR_CASES,
                         ids=[case_id(c[0].name, *c[2:]) for c in OPERATOR_CASES])
def test_operator_overload_matches_jax_numpy(r, right, shapes, dtypes):
    args = make_args(r.name, r.draw, shapes, dtypes)
    label = case_id(r.name, shapes, dtypes)
    got = apply_operator(r.name, right, args, tj.constant)
    want_sd = jax.eval_shape(lambda: apply_operator(r.name, right, args, jnp.asarray))
    want = apply_operator(r.name, right, promoted(args), np.asarray)
    assert_like(label, got, want, want_sd, r.tol)
    # _CompileAndCheck: the operator on Tensors inside a tj.function
    arrays = [i for i, a in enumerate(args) if not isinstance(a, (bool, int, float, complex))]

    def compiled(*ts):
        full = list(args)
        for i, t in zip(arrays, ts):
            full[i] = t
        return apply_operator(r.name, right, full, lambda t: t)
    if (shapes, dtypes) == op_cases(r, 0)[0]:  # (once per operator)
        assert_same(label, got, tj.function(compiled)(*[tj.constant(args[i]) for i in arrays]), r.tol)


# -- the tables' "rev" marks: tape gradients ----------------------------------------------------------------------
NO_GRADIENT = ("not_equal", "array_equal", "signbit", "floor_divide")  # TF 2.21: None (bool results; FloorDiv)
GRAD_DRAW = {"float_power": "positive", "logaddexp": "default", "logaddexp2": "default"}  # (away from NaN/inf)
GRAD_RECORDS = [r for r in OP_RECORDS.values() if r.rev and r.name not in NO_GRADIENT + ("nextafter",)]
GRAD_CASES = [(r.name, ((2, 3),) if r.nargs == 1 else ((3, 1), (1, 4)), F32) for r in GRAD_RECORDS]
GRAD_CASES += [(r.name, ((3,),) if r.nargs == 1 else ((3,), (3,)), C64) for r in GRAD_RECORDS if C64 in r.dtypes]


def grad_inputs(name, shapes, dtype):
    r = OP_RECORDS[name]
    args = make_args(name + "-grad", GRAD_DRAW.get(name, r.draw), shapes, (dtype,) * len(shapes))
    g = rng_for(name, "cotangent")
    out_shape = np.shape(getattr(np, name)(*args))
    out_dtype = F32 if name == "abs" or dtype == F32 else C64
    w = draw_value(g, "default1", out_shape, out_dtype)
    tangents = [draw_value(g, "default1", np.shape(a), dtype) for a in args]
    return args, w, tangents


def finite_difference_vjp(fn, args, w, h=1e-6):
    """The gradient of sum(w * fn(*args)) for real float64 arguments, by central differences."""
    args = [np.asarray(a, np.float64) for a in args]
    grads = []
    for i, a in enumerate(args):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            step = h * max(1.0, abs(a[idx]))
            plus, minus_ = [a.copy(), a.copy()]
            plus[idx] += step
            minus_[idx] -= step
            f = [fn(*[p if j == i else x for j, x in enumerate(args)]) for p in (plus, minus_)]
            g[idx] = np.sum(w * (f[0] - f[1])) / (2 * step)
        grads.append(g)
    return grads


def tape_gradient(fn, args, w, under_accumulator=False):
    """The tape gradients of fn at args with output_gradients w; recorded while a ForwardAccumulator (tangents of
    ones) is active when ``under_accumulator``."""
    ts = [tj.constant(a) for a in args]
    with tj.ForwardAccumulator(ts, [tj.constant(np.ones_like(a)) for a in args]) if under_accumulator else \
            contextlib.nullcontext():
        with tj.GradientTape() as tape:
            tape.watch(ts)
            y = fn(*ts)
    return tape.gradient(y, ts, output_gradients=w)


def accumulator_jvp(fn, args, tangents):
    ts = [tj.constant(a) for a in args]
    with tj.ForwardAccumulator(ts, [tj.constant(t) for t in tangents]) as acc:
        y = fn(*ts)
    return acc.jvp(y)


def assert_scaled(got, want, what):
    want = np.asarray(want)
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-4 * max(1.0, np.max(np.abs(want), initial=0.0)),
                               err_msg=what)


@pytest.mark.parametrize("name, shapes, dtype", GRAD_CASES,
                         ids=[case_id(n, s, (d,) * len(s)) for n, s, d in GRAD_CASES])
def test_op_gradient(name, shapes, dtype):
    args, w, tangents = grad_inputs(name, shapes, dtype)
    grads = tape_gradient(getattr(tnp, name), args, w)
    jvp = accumulator_jvp(getattr(tnp, name), args, tangents)
    if dtype == F32:  # np_test's check_grads(..., modes=["rev"]): float64 central differences of NumPy's function
        want = finite_difference_vjp(getattr(np, name), args, w)
        args64 = [np.asarray(a, np.float64) for a in args]
        h = 1e-6
        want_jvp = (getattr(np, name)(*[a + h * t for a, t in zip(args64, tangents)])
                    - getattr(np, name)(*[a - h * t for a, t in zip(args64, tangents)])) / (2 * h)
    else:  # complex: jax.vjp/jax.jvp of jax.numpy's function, in TF's convention (API.md: conj of JAX's cotangent)
        jfn = getattr(jnp, name)
        out, vjp = jax.vjp(jfn, *args)
        want = [np.conj(g) for g in vjp(np.conj(np.asarray(w, out.dtype)))]
        want_jvp = jax.jvp(jfn, tuple(args), tuple(tangents))[1]
    assert len(grads) == len(args)
    for i, (g, wg) in enumerate(zip(grads, want)):
        assert g is not None and g.shape == np.shape(args[i]) and g.dtype == np.asarray(args[i]).dtype, (i, g)
        assert_scaled(g.numpy(), wg, f"{name} gradient {i}")
    assert_scaled(jvp.numpy(), want_jvp, f"{name} jvp")


# forward-over-reverse (API.md: accumulators nest with tapes): a tape recording while an accumulator is active
# (where, sinc and logaddexp's backward kernels raised 'Triggering __jax_array__() during abstractification' there)
UNDER_ACCUMULATOR_CASES = [pytest.param(n, s, d, id=case_id(n, s, (d,) * len(s)))
                           for i, (n, s, d) in enumerate(GRAD_CASES)
                           if d == F32 and (i % 3 == 0 or n in ("logaddexp", "logaddexp2", "sinc"))]


@pytest.mark.parametrize("name, shapes, dtype", UNDER_ACCUMULATOR_CASES)
def test_op_gradient_recorded_under_an_accumulator(name, shapes, dtype):
    args, w, _ = grad_inputs(name, shapes, dtype)
    for g, want in zip(tape_gradient(getattr(tnp, name), args, w, under_accumulator=True),
                       tape_gradient(getattr(tnp, name), args, w)):
        np.testing.assert_allclose(g.numpy(), want.numpy(), rtol=1e-6, atol=1e-7, err_msg=name)


def test_where_gradient_recorded_under_an_accumulator():
    # (the reduced case of the three above) TF 2.21: [1, 0], as without the accumulator
    x = tj.constant([0.5, -1.5])
    with tj.ForwardAccumulator(x, tj.constant([1.0, 1.0])):
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = tnp.where(x > 0, x, 0.0)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [1.0, 0.0])


# TF 2.21's tape gradients (tnp.<name>, tf.GradientTape), hard-coded: float32 arguments, the gradient of the sum of
# the result (of 0.5 * real + 0.25 * imag for a complex result) unless output_gradients are given
TF_GRADS = {
    "abs": ([[-1.5, 0.0, 2.0]], None, [[-1.0, 0.0, 1.0]]),
    "sqrt": ([[0.0, 4.0, 9.0]], [0.0, 1.0, 2.0], [[0.0, 0.25, 0.3333333432674408]]),
    "power": ([[0.0, -2.0, 3.0, 2.0], [2.0, 2.0, 0.5, 0.0]], None,
              [[0.0, -4.0, 0.28867512941360474, 0.0], [0.0, 0.0, 1.9028522968292236, 0.6931471824645996]]),
    "float_power": ([[0.0, -2.0, 3.0, 2.0], [2.0, 2.0, 0.5, 0.0]], None,
                    [[0.0, -4.0, 0.28867512941360474, 0.0], [0.0, 0.0, 1.9028522968292236, 0.6931471824645996]]),
    "arctan2": ([[1.0, -0.5, 0.25], [0.5, 2.0, -1.0]], None,
                [[0.4000000059604645, 0.47058823704719543, -0.9411764740943909],
                 [-0.800000011920929, 0.11764705926179886, -0.23529411852359772]]),
    "sinc": ([[0.5, 1.5]], None, [[-1.2732396125793457, 0.14147107303142548]]),
    "logaddexp": ([[-2.0, 0.5], [3.0, -1.0]], None,
                  [[0.006692850962281227, 0.8175745010375977], [0.9933071732521057, 0.18242551386356354]]),
    "logaddexp2": ([[-2.0, 0.5], [3.0, -1.0]], None,
                   [[0.03030303120613098, 0.7387961149215698], [0.9696969985961914, 0.2612038850784302]]),
    "cbrt": ([[8.0, -27.0]], None, [[0.0833333432674408, 0.037037044763565063]]),
    "floor_divide": ([[5.0, -7.0, 2.5], [2.0, 2.0, -1.0]], None, [None, None]),
    "nextafter": ([[1.0, 2.0, -1.0], [2.0, 0.0, 0.0]], None, [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]),
    "not_equal": ([[1.0, 2.0], [1.0, 3.0]], None, [None, None]),
    "array_equal": ([[1.0, 2.0], [1.0, 3.0]], None, [None, None]),
    "signbit": ([[1.0, -2.0]], None, [None]),
    "exp2": ([[0.0, 1.0, -1.5]], None, [[0.6931471824645996, 1.3862943649291992, 0.24506452679634094]]),
    "log10": ([[1.0, 10.0, 0.5]], None, [[0.4342944622039795, 0.04342944547533989, 0.868588924407959]]),
    "log2": ([[1.0, 8.0, 0.5]], None, [[1.4426950216293335, 0.1803368777036667, 2.885390043258667]]),
    "diff": ([[1.0, 4.0, 9.0, 16.0]], None, [[-1.0, 0.0, 0.0, 1.0]]),
    "arctanh": ([[0.0, 0.5, -0.25]], None, [[1.0, 1.3333333730697632, 1.0666667222976685]]),
    "arccosh": ([[1.5, 2.0, 3.0]], None, [[0.8944270610809326, 0.5773502588272095, 0.3535533547401428]]),
    "tan": ([[0.0, 1.0, -1.2]], None, [[1.0, 3.4255189895629883, 7.615965366363525]]),
    "divide": ([[1.0, 2.0, -3.0], [2.0, -4.0, 0.5]], None, [[0.5, -0.25, 2.0], [-0.25, -0.125, 12.0]]),
    "true_divide": ([[1.0, 2.0, -3.0], [2.0, -4.0, 0.5]], None, [[0.5, -0.25, 2.0], [-0.25, -0.125, 12.0]]),
    "abs-complex": ([[3 + 4j, 0j, -1j]], None, [[0.6000000238418579 + 0.800000011920929j, 0j, -1j]]),
    "exp-complex": ([[1 + 1j, -0.5j]], None,
                    [[1.3061857223510742 - 0.7765041589736938j, 0.3189348876476288 + 0.4591084122657776j]]),
    "log-complex": ([[1 + 1j, -2 + 0.5j]], None, [[0.125 + 0.375j, -0.2647058963775635 - 0.05882352963089943j]]),
    "sin-complex": ([[1 + 1j, -0.5j]], None,
                    [[0.16964054107666016 + 0.7028813362121582j, 0.5638129711151123 + 0.28190648555755615j]]),
    "sqrt-complex": ([[1 + 1j, -2 + 0.5j]], None,
                     [[0.15399710834026337 + 0.17756015062332153j, -0.065132275223732 + 0.18345019221305847j]]),
    "arcsinh-complex": ([[1 + 1j, -2 + 0.5j]], None,
                        [[0.1965378075838089 + 0.31800493597984314j, 0.2376834601163864 + 0.06434658169746399j]]),
    "conj-complex": ([[1 + 1j, -2 + 0.5j]], None, [[0.5 - 0.25j, 0.5 - 0.25j]]),
    "square-complex": ([[1 + 1j, -2 + 0.5j]], None, [[1.5 - 0.5j, -1.75 - 1.5j]]),
}


def tf_style_gradient(name, args, output_gradients, compiled=False):
    def run(*ts):
        with tj.GradientTape() as tape:
            tape.watch(ts)
            y = getattr(tnp, name)(*ts)
            if y.dtype.kind == "c":
                y = tnp.real(y) * 0.5 + tnp.imag(y) * 0.25
        return tape.gradient(y, list(ts), output_gradients=output_gradients)
    ts = [tj.constant(np.asarray(a, C64 if np.iscomplexobj(a) else F32)) for a in args]
    return tj.function(run)(*ts) if compiled else run(*ts)


@pytest.mark.parametrize("key", sorted(TF_GRADS))
def test_op_gradient_as_tf(key):
    args, og, want = TF_GRADS[key]
    name = key.split("-")[0]
    for compiled in (False, True) if key in ("power", "sqrt", "nextafter", "sin-complex", "floor_divide") else (False,):
        grads = tf_style_gradient(name, args, og, compiled)
        for g, w in zip(grads, want):
            if w is None:
                assert g is None, (key, g)
            else:
                np.testing.assert_allclose(g.numpy(), np.asarray(w, g.dtype), rtol=2e-6, atol=1e-7, err_msg=key)


# -- where TF 2.21's gradient differs from the derivative (see the docstring) ---------------------------------------
# TF 2.21's values there come from how its tnp builds the function (a where/maximum/sign formula), not from the
# derivative: tj.numpy gives the derivative (jax.numpy's). The points away from the artifact are TF's values.

def test_sinc_gradient_at_zero_is_the_derivative():
    # TF 2.21: [nan, -1.2732396] in reverse mode (its where formula), 0 at 0 in forward mode
    (g,) = tf_style_gradient("sinc", [[0.0, 0.5]], None)
    np.testing.assert_allclose(g.numpy(), [0.0, -1.2732396125793457], rtol=1e-6)
    np.testing.assert_allclose(jax.grad(jnp.sinc)(0.0), 0.0)


def test_cbrt_gradient_at_zero_is_the_derivative():
    # TF 2.21: [nan, 0.083333343]; jax.grad(jnp.cbrt)(0.) = inf
    (g,) = tf_style_gradient("cbrt", [[0.0, 8.0]], None)
    np.testing.assert_allclose(g.numpy(), [np.inf, 0.0833333432674408], rtol=1e-6)


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
def test_logaddexp_gradient_at_equal_arguments_is_the_derivative(name):
    # TF 2.21 gives all of the gradient at x1 == x2 to x1 ([1, ...], [0, ...]), as its maximum does; logaddexp is
    # smooth there, its partials 1/2 each. Away from the tie, TF's values.
    ga, gb = tf_style_gradient(name, [[1.0, -2.0], [1.0, 3.0]], None)
    want_b = {"logaddexp": 0.9933071732521057, "logaddexp2": 0.9696969985961914}[name]
    np.testing.assert_allclose(ga.numpy()[0], 0.5, rtol=1e-6)
    np.testing.assert_allclose(gb.numpy(), [0.5, want_b], rtol=1e-6)


@pytest.mark.parametrize("name, x, argument", [("arcsin", 1.0, None), ("arccos", 1.0, None), ("arctanh", 1.0, None),
                                               ("cbrt", 0.0, None), ("power", 0.0, 0.5), ("float_power", 0.0, 0.5),
                                               ("sqrt", 0.0, None)])
def test_zero_upstream_gradient_where_the_derivative_is_infinite(name, x, argument):
    # API.md: ops whose derivative is infinite somewhere give gradient 0 where the incoming gradient is 0. TF 2.21
    # does so for sqrt only here: arcsin/arccos/arctanh(1), cbrt(0) and power(0, 0.5) give NaN (0 * inf). Sanctioned.
    fn = getattr(tnp, name) if argument is None else (lambda t: getattr(tnp, name)(t, argument))
    (g,) = tf_style_gradient_of(fn, [[x, 0.5]], [0.0, 1.0])
    assert g.numpy()[0] == 0.0
    want = finite_difference_vjp(getattr(np, name) if argument is None else (lambda t: getattr(np, name)(t, argument)),
                                 [np.float64([0.5])], np.ones(1))[0]
    np.testing.assert_allclose(g.numpy()[1], want[0], rtol=1e-5)


def tf_style_gradient_of(fn, args, output_gradients):
    ts = [tj.constant(np.asarray(a, F32)) for a in args]
    with tj.GradientTape() as tape:
        tape.watch(ts)
        y = fn(*ts)
    return tape.gradient(y, ts, output_gradients=output_gradients)


@pytest.mark.parametrize("name, want", [("all", [True, False]), ("any", [True, True])])
def test_all_any_of_imaginary_values_as_numpy(name, want):
    z = np.complex64([[1j, 2.0], [0.0, 0.5j]])
    np.testing.assert_array_equal(getattr(np, name)(z, 1), want)
    np.testing.assert_array_equal(getattr(tnp, name)(z, 1).numpy(), want)
