"""JAX's lax_numpy_operators_test.py ported to tj.numpy and tj.Tensor's Python operators.

Source: jax-ml/jax tests/lax_numpy_operators_test.py (JaxNumpyOperatorTests), checked against the installed jax 0.10.2
and NumPy. TensorFlow's copy of the older op tables (np_test.py) is already ported in
test_tf_unported_np_test_part1_port.py; this file takes only what JAX's newer file adds: ops, aliases, dtypes (uint8,
uint32, int8), input kinds (inf/NaN, zero divisors) and methods that copy lacks.

Mapping: ``jnp.f`` -> ``tj.numpy.f`` (``tnp``); jax arrays -> ``tj.Tensor``. ``_CheckAgainstNumpy`` -> NumPy's values
computed at test time on the arguments cast as jax.numpy casts them (jtu.promote_like_jnp), and jax.numpy's shape and
dtype (``jax.eval_shape``, nothing compiled); on every case below jax.numpy's values were also checked to equal
NumPy's (so tj agrees with both; no case needed jax.numpy's values as the reference). ``_CompileAndCheck`` ->
test_ops_inside_tj_function: one tj.function calling a third of the op cases, against the eager results (and a
tj.function call in the operator, bitwise, shift, sign, spacing, divmod and heaviside tests).
``jtu.sample_product`` grids are sampled hard (x64 off): float32 on a 2-d shape or a broadcasting pair, then one other
shape (0-d, Python number, empty), then the new dtype kinds (int32, uint8/uint32, int8, bool, complex64, one float16
case). jtu's rand_* -> ``draw`` (a NumPy generator seeded per case). The tables' "rev" marks are not used by JAX's file;
gradients of the ops it adds that are differentiable (i0, the complex inverse trigonometric functions under their
array-API names, float16 sinh) are checked anyway: tj.GradientTape against jax.vjp (complex: conj of JAX's cotangent,
API.md), tj.ForwardAccumulator against jax.jvp.

Ported: testOp (JAX_ONE_TO_ONE_OP_RECORDS and JAX_COMPOUND_OP_RECORDS: abs of uint8/bool, add of uint32, ceil/floor/
trunc of integers and of inf/NaN, complex greater/less_equal/maximum (with infs), minimum/negative of uint8, i0,
ldexp, float16 nextafter/sinh/cosh, spacing, array_equiv broadcasting, tan of integers, asin/acos/atan/atan2/asinh/
acosh/atanh, angle(deg=True), cbrt of infs, expm1 (small inputs), log1p (large), floor_divide/hypot/gcd of uint8,
fmin/fmax (NaNs, complex, int32), fmod (NaNs; int32 with zero divisors), complex isfinite/isinf/isnan, pow, remainder/
mod with zero divisors, modf/rint of integers, rint of inf/NaN and complex, sign of inf/NaN and uint8, copysign, lcm
of large int8 (wrapping)),
testOperatorOverload (__le__, __lshift__, __rshift__, unsigned dtypes), testRightOperatorOverload (__rlshift__,
__rrshift__, unsigned dtypes), testOperatorOverloadErrors, testRightOperatorOverloadErrors, testBinaryOperatorDefers,
testBitwiseOp (bitwise_invert, invert, bitwise_count; unsigned and int8 operands), testBitwiseCount,
testShiftOpAgainstNumpy, testSignComplex, testDeferToNamedTuple, testI0Grad, testSpacingIntegerInputs,
testSpacingSubnormals, test_float_divmod_zero, test_float_floor_divide_zero, test_heaviside_nan.

Left out (why):
- op-table cases the np_test port already runs (the same op, dtype kind and input kind), and ``unwrap``/``ediff1d``
  (testUnwrap / testEdiff1d, ported in test_jax_lax_numpy_part1/part3);
- bfloat16, float64/complex128/int64 and the int16/uint16/uint64 sweeps (x64 off; samples above instead);
- testShiftOpAgainstNumpy's 32-bit mixed-signedness pairs (JAX skips them with x64 off: NumPy promotes to int64);
- testRightOperatorOverload with a Python-number receiver (JAX skips it too: a number has no such method);
- gradients of spacing/nextafter (jax.grad raises NotImplementedError, tj gives None; neither is a derivative) and
  of the piecewise-constant ops (no "rev" mark in JAX's tables; tj gives None, as TF's Floor/Rint, jax.vjp zeros).

Sanctioned differences and notes:
- testOperatorOverloadErrors: jax.numpy refuses every builtin collection; tj converts lists and tuples (API.md: lists
  are accepted wherever a Tensor is; tf.Tensor's operators convert tuples too), so only dict and set raise TypeError
  (tj's ConversionError, a TypeError; tj's message names the argument and its type instead of both types).
- Integer ``%``/``remainder``/``//`` by zero raise ValueError (TF's "Integer division by zero", API.md: no silent
  wrong numbers; test_tf_unported_misc_port and test_bad_input_fuzz rely on it) where NumPy and jax.numpy return 0 for
  the remainder. JAX's remainder/mod records draw zero divisors (rand_some_zero): the float cases are compared with
  NumPy (NaN), the integer case checks the error.

Differences found and fixed in tapejax: copysign of integer arguments kept the integer dtype (jax.numpy and NumPy:
float); tj.Tensor's comparison operators did not try an unknown operand's reflected comparison (the arithmetic operators
did). Sanctioned: a Tensor times a NamedTuple that defines __rmul__ converts the tuple (as TF's tensors do) instead of
deferring to it (jax.Array's).
"""
import operator
import warnings
import zlib
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy
# NumPy's references meet NaN, inf and zero divisors on purpose
pytestmark = pytest.mark.filterwarnings("ignore:.*encountered in:RuntimeWarning")

F16, F32, C64 = np.float16, np.float32, np.complex64
I8, I32, U8, U32, BOOL = np.int8, np.int32, np.uint8, np.uint32, np.bool_
PY = "py"  # the argument is a Python number (jtu.PYTHON_SCALAR_SHAPE)


# -- inputs: jtu's rand_* generators ------------------------------------------------------------------------------
def _real(g, kind, shape):
    if kind == "default":
        return g.standard_normal(shape) * 3
    if kind == "positive":
        return g.uniform(1.0, 3.0, shape)
    if kind == "small":
        return np.clip(g.standard_normal(shape) * 0.3, -0.9, 0.9)
    if kind == "small_positive":
        return g.uniform(1e-3, 0.1, shape)
    if kind == "nonzero":
        x = g.standard_normal(shape) * 3
        return np.where(np.abs(x) < 1, np.sign(x) + (x == 0), x)  # no zero, also once truncated to an integer
    if kind == "some_zero":
        return with_one(g, np.where(g.random(shape) < 0.35, 0.0, g.standard_normal(shape) * 3), [0.0])
    if kind == "some_equal":
        return g.integers(-2, 3, shape).astype(np.float64)
    if kind == "not_small":  # |x| >= 10 (jtu.rand_not_small)
        x = g.standard_normal(shape) * 3
        return x + np.where(x < 0, -10.0, 10.0)
    if isinstance(kind, tuple):  # ("uniform", low, high)
        return g.uniform(kind[1], kind[2], shape)
    specials = {"some_inf": [np.inf, -np.inf], "some_nan": [np.nan],
                "some_inf_and_nan": [np.inf, -np.inf, np.nan]}[kind]
    pick = np.asarray(specials)[g.integers(0, len(specials), shape)]
    return with_one(g, np.where(g.random(shape) < 0.4, pick, g.standard_normal(shape) * 3), specials)


def with_one(g, x, specials):
    """``x`` with one entry (at random) set to one of ``specials``, so that a small draw holds at least one."""
    x = np.array(x, np.float64)
    if x.size:
        x.flat[g.integers(x.size)] = specials[g.integers(len(specials))]
    return x


def draw(g, kind, shape, dtype):
    """One argument of ``shape`` and ``dtype`` drawn as jtu's rand_<kind>; a Python number for the shape ``PY``."""
    s = () if shape == PY else shape
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        x = g.random(s) < 0.5
    elif dtype.kind in "iu":
        if kind == "fullrange":
            info = np.iinfo(dtype)
            x = g.integers(info.min, int(info.max) + 1, s, dtype=dtype)
        else:
            x = np.trunc(np.nan_to_num(_real(g, kind, s), posinf=7, neginf=-7))
            if dtype.kind == "u":
                x = np.abs(x) + (kind == "nonzero")
            x = x.astype(dtype)
    elif dtype.kind == "c":
        x = np.empty(s, dtype)
        x.real, x.imag = _real(g, kind, s), _real(g, kind, s)
    else:
        x = _real(g, kind, s).astype(dtype)
    return x.item() if shape == PY else x


def rng_for(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def make_args(key, kind, shapes, dtypes):
    g = rng_for(key, shapes, tuple(np.dtype(d).name for d in dtypes))
    return [draw(g, kind, s, d) for s, d in zip(shapes, dtypes)]


def fmt(shape, dtype):
    return "py" if shape == PY else f"{np.dtype(dtype).name}{list(shape)}".replace(" ", "")


# -- references ----------------------------------------------------------------------------------------------------
def promoted(args, inexact=False):
    """The arguments as NumPy arrays of jax.numpy's result dtype (jtu.promote_like_jnp; ``inexact``: integers and
    bools to float32, as jax.numpy's inexact functions compute)."""
    dtype = jnp.result_type(*args)
    if inexact and not jnp.issubdtype(dtype, jnp.inexact):
        dtype = jnp.float32
    return [np.asarray(a, dtype) for a in args]


def quietly(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(*args, **kw)


def assert_like(label, got, want, want_sd, tol=0.0):
    """``got`` (a Tensor or a tuple of them) has jax.numpy's shape and dtype (``want_sd``) and the values ``want``
    (within ``tol`` for inexact results, NaNs equal)."""
    if isinstance(want_sd, tuple):
        assert isinstance(got, tuple) and len(got) == len(want_sd), (label, type(got))
        for g, w, s in zip(got, want, want_sd):
            assert_like(label, g, w, s, tol)
        return
    assert isinstance(got, tj.Tensor), (label, type(got))
    assert (tuple(got.shape), got.dtype) == (want_sd.shape, want_sd.dtype), (label, got.shape, got.dtype, want_sd)
    want = np.asarray(want)
    assert want.shape == tuple(got.shape), (label, want.shape)
    if got.dtype.kind in "fc":
        np.testing.assert_allclose(got.numpy().astype(np.complex128), want.astype(np.complex128), rtol=tol, atol=tol,
                                   equal_nan=True, err_msg=label)
    else:
        np.testing.assert_array_equal(got.numpy(), want.astype(got.dtype), err_msg=label)


# -- testOp: the op records' cases the np_test port lacks ----------------------------------------------------------
class Case(NamedTuple):
    name: str
    kind: object  # jtu.rand_<kind>
    shapes: tuple
    dtypes: tuple
    tol: float = None  # None: 2e-5 for float32/complex64 results (XLA's kernels against NumPy's), 1e-2 for float16
    inexact: bool = False  # the record's inexact=True (integer arguments computed in float32)
    kwargs: dict = {}


BCAST = ((3, 1), (1, 4))
OP_CASES = [
    # one-to-one records
    Case("abs", "default", ((2, 3),), (U8,)),
    Case("abs", "default", ((3,),), (BOOL,)),
    Case("add", "default", BCAST, (U32, U32)),
    Case("ceil", "default", ((2, 3),), (I32,)),  # (integer inputs: check_dtypes=False in JAX, jax keeps int32)
    Case("floor", "default", ((3,),), (U8,)),
    Case("trunc", "some_inf_and_nan", ((2, 3),), (F32,)),
    Case("trunc", "default", ((),), (I32,)),
    Case("greater", "some_equal", BCAST, (C64, C64)),  # complex: ordered by real part, then imaginary (as NumPy)
    Case("less_equal", "some_equal", ((), (2, 3)), (C64, C64)),
    Case("maximum", "some_inf", BCAST, (C64, C64)),
    Case("minimum", "some_inf", ((3,), (3,)), (U8, U8)),
    Case("i0", "default", ((2, 3),), (F32,), tol=1e-5),
    Case("i0", "default", ((3,),), (F16,), tol=3e-3),
    Case("ldexp", "default", ((2, 3), (3,)), (I32, I32)),  # int32 mantissas: float32, as jax.numpy
    Case("ldexp", "default", ((3,), (3,)), (I8, I8)),
    Case("negative", "default", ((3,),), (U8,)),
    Case("nextafter", "default", BCAST, (F16, F16), tol=0.0),
    Case("spacing", "default", ((2, 3),), (F32,), tol=0.0),
    Case("spacing", "default", (PY,), (F32,), tol=0.0),
    Case("array_equiv", "some_equal", ((3,), (2, 3)), (F32, F32)),
    Case("tan", ("uniform", -1.5, 1.5), ((2, 3),), (I32,), inexact=True),
    Case("tan", ("uniform", 0.0, 1.5), ((3,),), (U8,), inexact=True),
    Case("sinh", "default", ((3,),), (F16,)),
    Case("cosh", "default", ((3,),), (F16,)),
    Case("asin", "small", ((3,),), (C64,)),  # the array-API names (aliases of arcsin...)
    Case("acos", "small", ((),), (F32,)),
    Case("atan", "small", ((2, 3),), (C64,)),
    Case("atan2", "small", BCAST, (F32, F32)),
    Case("asinh", "default", ((3,),), (C64,), tol=2e-4),
    Case("acosh", "default", ((3,),), (C64,), tol=2e-4),
    Case("atanh", "small", ((2, 3),), (F32,)),
    # compound records
    Case("angle", "default", ((2, 3),), (C64,), kwargs={"deg": True}, tol=1e-5),
    Case("angle", "default", ((3,),), (I32,), kwargs={"deg": True}, inexact=True),
    Case("cbrt", "some_inf", ((2, 3),), (F32,)),
    Case("expm1", "small_positive", ((2, 3),), (C64,), inexact=True),  # (the small-input record)
    Case("log1p", "positive", ((2, 3),), (F32,), inexact=True),  # (log1p_large)
    Case("floor_divide", "nonzero", BCAST, (U8, U8)),
    Case("fmin", "some_nan", BCAST, (F32, F32)),
    Case("fmax", "some_nan", ((), (2, 3)), (F32, F32)),
    Case("fmax", "some_nan", ((3,), (3,)), (C64, C64)),
    Case("fmin", "default", BCAST, (I32, I32)),
    Case("fmod", "some_nan", BCAST, (F32, F32)),
    Case("fmod", "default", ((2, 3), (2, 3)), (I32, I32)),  # (zero divisors included: 0, as NumPy and jax.numpy)
    Case("hypot", "default", BCAST, (U8, U8), inexact=True),
    Case("isfinite", "some_inf_and_nan", ((2, 3),), (C64,)),
    Case("isinf", "some_inf_and_nan", ((2, 3),), (C64,)),
    Case("isnan", "some_inf_and_nan", ((2, 3),), (C64,)),
    Case("pow", "positive", BCAST, (F32, F32), tol=1e-5),
    Case("pow", "positive", ((), (3,)), (I32, I32)),
    Case("remainder", "some_zero", BCAST, (F32, F32)),  # a zero divisor: NaN, as NumPy
    Case("mod", "some_zero", ((3,), (3,)), (F16, F16)),
    Case("modf", "default", ((2, 3),), (I32,)),
    Case("modf", "default", ((3,),), (U8,)),
    Case("rint", "some_inf_and_nan", ((2, 3),), (F32,)),
    Case("rint", "some_inf_and_nan", ((3,),), (C64,)),
    Case("rint", "default", ((2, 3),), (I32,)),
    Case("sign", "some_inf_and_nan", ((2, 3),), (F32,)),
    Case("sign", "default", ((2, 3),), (U8,)),
    Case("copysign", "some_inf_and_nan", BCAST, (F32, F32), tol=0.0),
    Case("copysign", "default", ((3,), PY), (F16, F32), tol=0.0),
    Case("gcd", "default", BCAST, (U8, U8)),
    Case("lcm", "not_small", ((2, 3), (2, 3)), (I8, I8)),  # (int8 overflow wraps, as NumPy)
]
COPYSIGN_INT = [Case("copysign", "default", BCAST, (I32, I32)), Case("copysign", "default", ((3,), (3,)), (U8, I8))]


def case_id(c):
    kw = "".join(f"-{k}={v}" for k, v in c.kwargs.items())
    return f"{c.name}-" + "-".join(fmt(s, d) for s, d in zip(c.shapes, c.dtypes)) + kw


def op_args(c):
    return make_args(c.name, c.kind, c.shapes, c.dtypes)


def check_op(c):
    args = op_args(c)
    label = case_id(c)
    got = getattr(tnp, c.name)(*args, **c.kwargs)
    jnp_fn = getattr(jnp, c.name)
    want_sd = jax.eval_shape(lambda *a: jnp_fn(*a, **c.kwargs), *args)
    want = quietly(getattr(np, c.name), *promoted(args, c.inexact), **c.kwargs)  # (NumPy 2 has asin, pow...)
    f16 = any(s.dtype == F16 for s in jax.tree.leaves(want_sd))
    tol = c.tol if c.tol is not None else (1e-2 if f16 else 2e-5)
    assert_like(label, got, want, want_sd, tol)


@pytest.mark.parametrize("c", OP_CASES, ids=[case_id(c) for c in OP_CASES])
def test_op_matches_numpy(c):
    check_op(c)


@pytest.mark.parametrize("c", COPYSIGN_INT, ids=[case_id(c) for c in COPYSIGN_INT])
def test_copysign_of_integers_is_float(c):
    check_op(c)


def test_copysign_of_integers_values():
    # the values are right (only the dtype differs, xfail above): sign of the second argument on the first's magnitude
    got = tnp.copysign(np.int32([3, -2, 0, 5]), np.int32([-1, 4, -7, 0]))
    np.testing.assert_array_equal(np.asarray(got.numpy(), np.float32), [-3.0, 2.0, -0.0, 5.0])


def test_integer_remainder_by_zero_raises():
    # JAX's remainder/mod records draw zero divisors: NumPy and jax.numpy give 0 for an integer x % 0; tj raises
    # ValueError, as TF ("Integer division by zero"; see the module docstring). Nonzero divisors: NumPy's values.
    x, y = np.int32([7, -7, 5]), np.int32([2, 0, -3])
    assert np.array_equal(np.asarray(jnp.remainder(x, y)), quietly(np.remainder, x, y))
    for fn in (tnp.remainder, tnp.mod, lambda a, b: tj.constant(a) % b):
        with pytest.raises(ValueError, match="division by zero"):
            fn(x, y)
    np.testing.assert_array_equal(tnp.mod(x, np.int32([2, 4, -3])).numpy(), np.mod(x, [2, 4, -3]))


# -- _CompileAndCheck: a sample of the ops inside one tj.function ---------------------------------------------------
def as_list(result):
    return list(result) if isinstance(result, (tuple, list)) else [result]


COMPILED = [c for c in OP_CASES[::3] if PY not in c.shapes]


def test_ops_inside_tj_function():
    arglists = [op_args(c) for c in COMPILED]

    def run(*flat):
        out, k = [], 0
        for c, args in zip(COMPILED, arglists):
            out.append(getattr(tnp, c.name)(*flat[k:k + len(args)], **c.kwargs))
            k += len(args)
        return out
    flat = [tj.constant(a) for args in arglists for a in args]
    compiled = tj.function(run)(*flat)
    for c, got, args in zip(COMPILED, compiled, arglists):
        eager = getattr(tnp, c.name)(*args, **c.kwargs)
        for e, g in zip(as_list(eager), as_list(got)):
            assert (g.shape, g.dtype) == (e.shape, e.dtype), case_id(c)
            np.testing.assert_allclose(np.asarray(g.numpy()), np.asarray(e.numpy()), rtol=1e-6, atol=0,
                                       equal_nan=True, err_msg=case_id(c))


# -- gradients of the differentiable ops JAX's tables add ----------------------------------------------------------
GRAD_CASES = [("i0", F32, [0.0, 0.7, -1.3, 2.5]),  # i0'(0) = 0 (testI0Grad)
              ("asin", C64, [0.3 + 0.2j, -0.4j, 0.5 - 0.1j]), ("acos", C64, [0.2 - 0.3j, 0.6 + 0.1j]),
              ("atan", C64, [0.3 + 0.2j, -0.4 + 0.5j]), ("sinh", F16, [0.3, -1.2, 2.0])]


@pytest.mark.parametrize("name, dtype, x", GRAD_CASES, ids=[f"{n}-{np.dtype(d).name}" for n, d, _ in GRAD_CASES])
def test_gradient_matches_jax(name, dtype, x):
    x = np.asarray(x, dtype)
    g = rng_for(name, "cotangent")
    w, t = (draw(g, "default", x.shape, dtype) for _ in range(2))
    tol = 1e-2 if dtype == F16 else 1e-5
    xt = tj.constant(x)
    with tj.GradientTape() as tape:
        tape.watch(xt)
        y = getattr(tnp, name)(xt)
    grad = tape.gradient(y, xt, output_gradients=w)
    with tj.ForwardAccumulator(xt, tj.constant(t)) as acc:
        y2 = getattr(tnp, name)(xt)
    jfn = getattr(jnp, name)
    _, vjp = jax.vjp(jfn, x)
    want = np.conj(vjp(np.conj(w))[0])  # TF's convention for complex inputs (API.md): conj of JAX's cotangent
    want_jvp = jax.jvp(jfn, (x,), (t,))[1]
    assert grad.dtype == dtype and acc.jvp(y2).dtype == dtype
    np.testing.assert_allclose(grad.numpy(), want, rtol=tol, atol=tol)
    np.testing.assert_allclose(acc.jvp(y2).numpy(), want_jvp, rtol=tol, atol=tol)
    if name == "i0":
        assert grad.numpy()[0] == 0.0 and jax.grad(jnp.i0)(0.0) == 0.0


# -- testOperatorOverload / testRightOperatorOverload ---------------------------------------------------------------
OPERATOR_CASES = [  # (dunder name, input kind, shapes, dtypes)
    ("__le__", "default", BCAST, (F32, F32)), ("__le__", "default", ((), (3,)), (I32, I32)),
    ("__le__", "default", (PY, (2, 3)), (F32, F32)),
    ("__lshift__", ("int", 0, 8), BCAST, (I32, I32)), ("__lshift__", ("int", 0, 8), ((3,), PY), (U8, I32)),
    ("__rshift__", ("int", 0, 8), ((2, 3), (2, 3)), (I8, I8)), ("__rshift__", ("int", 0, 8), ((3,), (3,)), (U32, U32)),
    ("__add__", "default", BCAST, (U8, U8)), ("__mul__", "default", ((), (3,)), (U32, U32)),
    ("__sub__", "default", ((3,), (3,)), (U8, U8)), ("__floordiv__", "nonzero", BCAST, (U8, U8)),
    ("__mod__", "nonzero", ((3,), (3,)), (U32, U32)), ("__truediv__", "nonzero", ((3,), (3,)), (U8, U8)),
    ("__invert__", "default", ((2, 3),), (I8,)), ("__invert__", "default", ((3,),), (U8,)),
    ("__neg__", "default", ((3,),), (U8,)), ("__abs__", "default", ((3,),), (I8,)),
    ("__rlshift__", ("int", 0, 8), BCAST, (I32, I32)), ("__rlshift__", ("int", 0, 8), (PY, (3,)), (I32, U8)),
    ("__rrshift__", ("int", 0, 8), ((2, 3), (2, 3)), (U8, U8)), ("__rrshift__", ("int", 0, 8), ((3,), (3,)), (I8, I8)),
    ("__radd__", "default", BCAST, (U32, U32)), ("__rsub__", "default", ((3,), (3,)), (U8, U8)),
    ("__rfloordiv__", "nonzero", ((3,), (3,)), (U8, U8)), ("__rmod__", "nonzero", ((3,), (3,)), (U8, U8)),
    ("__rtruediv__", "nonzero", ((3,), (3,)), (U32, U32)),
]


def operator_args(name, kind, shapes, dtypes):
    if isinstance(kind, tuple):  # jtu.rand_int(low, high)
        g = rng_for(name, shapes, tuple(np.dtype(d).name for d in dtypes))
        xs = [g.integers(kind[1], kind[2], () if s == PY else s).astype(d) for s, d in zip(shapes, dtypes)]
        return [x.item() if s == PY else x for x, s in zip(xs, shapes)]
    return make_args(name, kind, shapes, dtypes)


def apply(name, args, wrap):
    """``operator.<name>(*args)``, or for a reflected name ``getattr(args[1], name)(args[0])`` (the second argument is
    the receiver), with the array arguments wrapped by ``wrap``."""
    xs = [a if isinstance(a, (int, float, complex)) else wrap(a) for a in args]
    if name.startswith("__r") and name not in ("__rshift__",):
        return getattr(xs[1], name)(xs[0])
    return getattr(operator, name.strip("_"))(*xs)


@pytest.mark.parametrize("name, kind, shapes, dtypes", OPERATOR_CASES,
                         ids=[f"{c[0]}-" + "-".join(fmt(s, d) for s, d in zip(c[2], c[3])) for c in OPERATOR_CASES])
def test_operator_overload_matches_jax_numpy(name, kind, shapes, dtypes):
    args = operator_args(name, kind, shapes, dtypes)
    got = apply(name, args, tj.constant)
    want_sd = jax.eval_shape(lambda: apply(name, args, jnp.asarray))
    want = quietly(apply, name, promoted(args, name in ("__truediv__", "__rtruediv__")), np.asarray)
    assert_like(name, got, want, want_sd, 1e-6)


def test_operators_inside_tj_function():
    # _CompileAndCheck of the operators JAX's tables add: each on Tensors inside one tj.function, against eager
    x, y = np.int32([[5, -3, 7]]), np.int32([[1], [2]])
    u = np.uint8([200, 3, 17])

    def ops(a, b, c):
        return [a <= b, a << b, a >> b, b.__rlshift__(a), b.__rrshift__(a), c + c, c - 7, ~c, -c, c // 3, c % 5]
    compiled = tj.function(ops)(tj.constant(x), tj.constant(y), tj.constant(u))
    eager = ops(tj.constant(x), tj.constant(y), tj.constant(u))
    want = [x <= y, x << y, x >> y, x << y, x >> y, u + u, u - np.uint8(7), ~u, -u, u // 3, u % 5]
    for g, e, w in zip(compiled, eager, want):
        assert g.dtype == e.dtype == w.dtype and g.shape == e.shape == w.shape
        np.testing.assert_array_equal(g.numpy(), w)
        np.testing.assert_array_equal(e.numpy(), w)


# -- testOperatorOverloadErrors / testRightOperatorOverloadErrors ---------------------------------------------------
BINARY = ["__add__", "__sub__", "__mul__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__pow__",
          "__mod__", "__floordiv__", "__truediv__", "__lshift__", "__rshift__"]
RIGHT = ["__radd__", "__rsub__", "__rmul__", "__rpow__", "__rmod__", "__rfloordiv__", "__rtruediv__", "__rlshift__",
         "__rrshift__"]
DATA = [(1, 2), (2, 3)]


@pytest.mark.parametrize("othertype", [dict, set])
@pytest.mark.parametrize("name", BINARY)
def test_operator_with_a_collection_raises(name, othertype):
    op = getattr(operator, name.strip("_"))
    with pytest.raises(TypeError, match=othertype.__name__):
        op(tj.constant(DATA), othertype(DATA))
    with pytest.raises(TypeError):
        op(jnp.array(DATA), othertype(DATA))


@pytest.mark.parametrize("othertype", [dict, set])
@pytest.mark.parametrize("name", RIGHT)
def test_right_operator_with_a_collection_raises(name, othertype):
    op = getattr(operator, name.strip("_")[1:])
    with pytest.raises(TypeError, match=r"argument 0 is a " + othertype.__name__):  # (the collection is on the left)
        op(othertype(DATA), tj.constant(DATA))
    with pytest.raises(TypeError):
        op(othertype(DATA), jnp.array(DATA))


@pytest.mark.parametrize("othertype", [list, tuple])
def test_operator_with_a_list_or_tuple_converts_it(othertype):
    # sanctioned (module docstring): jax.numpy raises TypeError; tj, as tf.Tensor, converts the sequence
    t = tj.constant(DATA)
    np.testing.assert_array_equal((t * othertype(DATA)).numpy(), np.multiply(DATA, DATA))
    np.testing.assert_array_equal((othertype(DATA) - t).numpy(), np.zeros((2, 2)))


# -- testBinaryOperatorDefers ---------------------------------------------------------------------------------------
class OverrideEverything:
    """Every binary operator and its reflection returns the object itself."""


class OverrideNothing:
    """Every binary operator and its reflection returns NotImplemented."""


for _name in BINARY + RIGHT:
    setattr(OverrideEverything, _name, lambda self, other: self)
    setattr(OverrideNothing, _name, lambda self, other: NotImplemented)

DEFER_OPS = [n for n in BINARY if n not in ("__eq__", "__ne__")]


@pytest.mark.parametrize("name", DEFER_OPS)
def test_binary_operator_defers(name):
    op = getattr(operator, name)
    arg = tj.constant(3 if name in ("__lshift__", "__rshift__") else 2.0)
    other = OverrideEverything()
    assert op(jnp.asarray(arg.numpy()), other) is other  # (jax.numpy defers, comparisons included)
    other = OverrideNothing()
    with pytest.raises(TypeError):
        op(other, arg)
    with pytest.raises(TypeError):
        op(arg, other)
    other = OverrideEverything()
    assert op(other, arg) is other
    assert op(arg, other) is other


# -- testDeferToNamedTuple ------------------------------------------------------------------------------------------
class MyArray(NamedTuple):
    arr: object

    def __mul__(self, other):
        return MyArray(self.arr * other)

    def __rmul__(self, other):
        return MyArray(other * self.arr)


def test_named_tuple_on_the_left_multiplies():
    a, b = MyArray(tnp.ones(4)), tnp.ones(4)
    for r in (a * b, tj.function(operator.mul)(a, b)):
        assert isinstance(r, MyArray) and isinstance(r.arr, tj.Tensor) and r.arr.shape == (4,)
    # jax.Array defers to the tuple's __rmul__ on either side (the reference of the xfail below)
    assert isinstance(jnp.ones(4) * MyArray(jnp.ones(4)), MyArray)


def test_named_tuple_on_the_right_converts_as_tf():
    # Sanctioned difference: jax.Array defers to the tuple's __rmul__; tj.Tensor converts a tuple on the right, as
    # TF 2.21's tensors do (tf.ones(4) * MyArray(tf.ones(4)) has shape (1, 4)), tuples being tensors (API.md).
    a, b = MyArray(tnp.ones(4)), tnp.ones(4)
    r = b * a
    assert isinstance(r, tj.Tensor) and r.shape == (1, 4)


# -- testBitwiseOp / testBitwiseCount -------------------------------------------------------------------------------
BITWISE_CASES = [
    ("bitwise_invert", ((2, 3),), (I32,)), ("bitwise_invert", ((3,),), (U8,)), ("invert", ((),), (I8,)),
    ("invert", ((3,),), (U32,)), ("bitwise_count", ((2, 3),), (I32,)), ("bitwise_count", ((0,),), (I8,)),
    ("bitwise_and", BCAST, (U8, U8)), ("bitwise_or", ((3,), (3,)), (I8, U8)), ("bitwise_xor", ((), (2, 3)), (U32, U32)),
    ("bitwise_and", ((3,), (3,)), (I8, I32)), ("bitwise_or", ((2, 3), (2, 3)), (U8, U32)),
]


@pytest.mark.parametrize("name, shapes, dtypes", BITWISE_CASES,
                         ids=[f"{n}-" + "-".join(fmt(s, d) for s, d in zip(ss, ds)) for n, ss, ds in BITWISE_CASES])
def test_bitwise_op_matches_numpy(name, shapes, dtypes):
    args = make_args(name, "fullrange", shapes, dtypes)
    got = getattr(tnp, name)(*args)
    assert_like(name, got, getattr(np, name)(*promoted(args)), jax.eval_shape(getattr(jnp, name), *args))


@pytest.mark.parametrize("shape, dtype", [((2, 3), U32), ((4,), I8), ((), U8), ((3, 0), I32)],
                         ids=["uint32[2,3]", "int8[4]", "uint8[]", "int32[3,0]"])
def test_bitwise_count_matches_numpy(shape, dtype):
    (x,) = make_args("bitwise_count", "fullrange", (shape,), (dtype,))
    got = tnp.bitwise_count(x)
    assert_like("bitwise_count", got, np.bitwise_count(x), jax.eval_shape(jnp.bitwise_count, x))
    if shape == (2, 3):  # _CompileAndCheck
        np.testing.assert_array_equal(tj.function(tnp.bitwise_count)(x).numpy(), got.numpy())


# -- testShiftOpAgainstNumpy ----------------------------------------------------------------------------------------
SHIFT_CASES = [("left_shift", I8, I8, BCAST), ("right_shift", U8, I8, ((3,), (3,))),
               ("bitwise_left_shift", U32, U8, ((2, 3), (3,))), ("bitwise_right_shift", I32, I8, BCAST),
               ("left_shift", U8, U32, ((3,), (3,))), ("right_shift", I8, U8, ((3, 0), (0,))),
               ("bitwise_left_shift", I8, I32, ((2, 1, 4), (3, 4))), ("bitwise_right_shift", U32, U32, ((4,), (4,)))]


@pytest.mark.parametrize("op, dtype, shift_dtype, shapes", SHIFT_CASES,
                         ids=[f"{o}-{np.dtype(d).name}-{np.dtype(s).name}" for o, d, s, _ in SHIFT_CASES])
def test_shift_op_matches_numpy(op, dtype, shift_dtype, shapes):
    info, shift_info = np.iinfo(dtype), np.iinfo(shift_dtype)
    g = rng_for(op, np.dtype(dtype).name, np.dtype(shift_dtype).name)
    x = g.integers(info.min, int(info.max) + 1, shapes[0]).astype(dtype)
    s = g.integers(0, max(info.bits, shift_info.bits), shapes[1]).astype(shift_dtype)  # NumPy's defined range
    got = getattr(tnp, op)(x, s)
    assert_like(op, got, getattr(np, op)(x, s), jax.eval_shape(getattr(jnp, op), x, s))
    if op == "left_shift" and dtype == I8:  # _CompileAndCheck
        np.testing.assert_array_equal(tj.function(getattr(tnp, op))(x, s).numpy(), got.numpy())


# -- testSignComplex ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(2, 3), (), PY, (0,)], ids=["2x3", "0d", "py", "empty"])
def test_sign_of_complex_matches_numpy(shape):
    (z,) = make_args("sign", "default", (shape,), (C64 if shape != PY else np.complex128,))
    got = tnp.sign(z)
    assert_like("sign", got, np.sign(np.asarray(z, C64)), jax.eval_shape(jnp.sign, z), 1e-6)
    if shape == (2, 3):
        np.testing.assert_allclose(tj.function(tnp.sign)(z).numpy(), got.numpy(), rtol=1e-6)


# -- testSpacingIntegerInputs / testSpacingSubnormals ----------------------------------------------------------------
@pytest.mark.parametrize("shape, dtype", [((2, 3), I32), ((), I8), ((4,), F16)], ids=["int32", "int8", "float16"])
def test_spacing_of_integers_matches_numpy(shape, dtype):
    x = rng_for("spacing", shape).integers(-64, 64, shape).astype(dtype)
    want_sd = jax.eval_shape(jnp.spacing, x)  # integers: computed in float32 (float16 stays float16)
    got = tnp.spacing(x)
    assert_like("spacing", got, np.spacing(x.astype(want_sd.dtype)), want_sd)


@pytest.mark.parametrize("dtype", [F32, F16], ids=lambda d: np.dtype(d).name)
def test_spacing_of_subnormals_matches_numpy(dtype):
    below = [np.array(0, dtype)]
    for _ in range(5):
        below.append(np.nextafter(below[-1], np.array(-np.inf, dtype)))
    above = [below[0]]
    for _ in range(5):
        above.append(np.nextafter(above[-1], np.array(np.inf, dtype)))
    x = np.array(below[::-1] + above[1:], dtype)  # the five subnormals on each side of 0 (and 0)
    got = tnp.spacing(x)
    assert_like("spacing", got, np.spacing(x), jax.eval_shape(jnp.spacing, x))
    np.testing.assert_array_equal(tj.function(tnp.spacing)(x).numpy(), got.numpy())


# -- test_float_divmod_zero / test_float_floor_divide_zero / test_heaviside_nan -------------------------------------
@pytest.mark.parametrize("dtype", [F32, F16], ids=lambda d: np.dtype(d).name)
def test_float_divmod_and_floor_divide_by_zero_match_numpy(dtype):
    x, y = np.arange(-2, 3, dtype=dtype), np.zeros(5, dtype)
    want = quietly(np.divmod, x, y)  # (-inf, -inf, nan, inf, inf) and NaN remainders
    got = tnp.divmod(x, y)
    assert_like("divmod", tuple(got), want, jax.eval_shape(jnp.divmod, x, y))
    assert_like("floor_divide", tnp.floor_divide(x, y), want[0], jax.eval_shape(jnp.floor_divide, x, y))
    assert_like("//", tj.constant(x) // tj.constant(y), want[0], jax.eval_shape(jnp.floor_divide, x, y))
    if dtype == F32:  # _CompileAndCheck
        for g, e in zip(tj.function(tnp.divmod)(x, y), got):
            np.testing.assert_array_equal(g.numpy(), e.numpy())


@pytest.mark.parametrize("dtype", [F32, F16], ids=lambda d: np.dtype(d).name)
def test_heaviside_of_nan_and_inf_matches_numpy(dtype):
    x = np.array([np.nan, -np.inf, -1, 0, 1, np.inf], dtype)
    got = tnp.heaviside(x[:, None], x[None, :])
    assert_like("heaviside", got, np.heaviside(x[:, None], x[None, :]),
                jax.eval_shape(jnp.heaviside, x[:, None], x[None, :]))
    if dtype == F32:
        np.testing.assert_array_equal(tj.function(tnp.heaviside)(x[:, None], x[None, :]).numpy(), got.numpy())
