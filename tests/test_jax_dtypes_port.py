"""JAX's type-promotion tests, ported to tj.numpy and to tj's operators on Tensors and Variables.

Source: jax-ml/jax tests/dtypes_test.py at tag jax-v0.10.2 (the installed jax), classes DtypesTest,
ExtendedDTypeTest, EArrayTest and TestPromotionTables. JAX checks jax.numpy and jax.dtypes against NumPy and
against tables of its own; here the same facts are checked on tj.numpy and on tj's Tensor operators, with
jax.numpy's dtypes (x64 off: float32/int32 defaults) as the reference: ``jax.eval_shape`` of the jnp expression
on the jax counterparts of the operands (no compile; it keeps jax's weak-type flag; jnp eagerly where a function
needs concrete values) and, for values, NumPy in float64/int64 (the operands are small integers and halves, exact
in every dtype used).

How the tests map:
  * a JAX "value of dtype d" (``jnp.int8(0)``, ``jnp.array(x, dtype=d)``) becomes ``tj.constant(np.zeros(.., d))``
    (a strongly typed Tensor); a weakly typed jax array (``jnp.asarray(0.)``) becomes ``tj.constant`` of it (a
    Tensor keeps jax's weak flag); Python scalars stay Python scalars (weak, as in jax);
  * ``x + y`` on jax arrays becomes the Tensor operator (``__add__`` / ``__radd__``), Python scalars on either
    side, and ``tnp.add`` where both operands are Python scalars; Variables are operands too; a NumPy operand
    takes the Tensor's dtype first where its kind is no wider, as TF's operators convert it (``_tf_converted``);
  * ``jax.jit`` (``_CompileAndCheck``) becomes one ``tj.function`` per test over all its cases, compared with eager;
  * ``jax.dtypes.promote_types`` / ``result_type`` / ``issubdtype`` / ``isdtype`` / ``finfo`` / ``iinfo`` become
    ``tj.numpy``'s (which mirror jax.numpy's), also applied to Tensors and Variables;
  * ``jax.numpy_dtype_promotion('strict')`` is used as is: tj's ops must raise jax's TypePromotionError there.

Ported: testDefaultTypes, testScalarWeakTypes, testDtypeFromScalarType, testDtypeFromScalarValue,
testDtypeFromValue, test_canonicalize_type, testBinaryPromotion (swap x eager/tj.function), testPromoteDtypesStandard,
testPromoteDtypesStrict, testObservedPromotionTable (eager and in one tj.function), testBinaryPromotionJitInvariance
(sampled), testUnaryPromotion (Tensors, weak Tensors, Variables), testResultTypeNone, testBinaryNonPromotion,
testScalarInstantiation, testScalarCastInsideJitWorks, testIsSubdtype, testIsSubdtypeCustomFloats,
testIsSubdtypeIntN, testIsDtype (sampled), testArrayCasts, testEnumPromotion, testUnsupportedType,
test_check_dtype_array, test_check_dtype_non_hashable, testFloat8PromotionError, testFloat4PromotionError,
testArrayRepr (the dtype name only), testSafeToCast (as tnp.can_cast, NumPy's function that jnp exports),
testIsSubdtypeExtended (the prng_key half, on tj.random keys). Added, as the brief asks: the result dtype of every
Tensor operator and of multi-input tj.numpy functions against jax.numpy's on sampled dtype pairs (Python scalars,
NumPy scalars, weak jax arrays and Variables among the operands), finfo/iinfo on dtypes and Tensors, and the
dtypes of gradients (tape against jax.vjp) and tangents (ForwardAccumulator against jax.jvp) of promoting ops.

Left out:
  * JAX internals with no tj counterpart: test_canonicalize_value_preserves_literal_dtypes,
    test_canonicalize_value_float0, testDtypeFromLiteralValue (jax._src.literals), testJaxTypeFromType,
    testJaxTypeFromVal, testJaxTypeWeak (dtypes._jax_type), testResultTypeWeakFlag (the return_weak_type_flag
    argument of jax.dtypes.result_type; jnp.result_type has none), test_itemsize_bits, test_itemsize_none_raises
    (dtypes.itemsize_bits), testDtypeFromNone (dtypes.dtype).
  * extended dtypes (custom tangent dtypes, primal_tangent_dtype, edtype conversions, EArray): test_custom_tangent_
    dtype, test_custom_tangent_dtype_with_scan, test_primal_tangent_dtype, test_primal_tangent_dtype_cond,
    test_edtype_conversion, test_edtype_conversion_errors, test_edtype_conversion_autodiff,
    test_extended_dtypes_at_rest (jax.lax.convert_element_type to user dtypes, custom_vjp internals).
  * x64 and explicit-x64 modes: testDtypeFromDtype (config.explicit_x64_dtypes), testDtypeFromString (the same);
    the x64 tables of testObservedPromotionTable (x64 is off in these tests).
  * already ported: testDefaultDtypes (tests/test_jax_lax_numpy_part3_port.py test_default_dtypes).
  * TPU-only: testIntNPromotionError (run_on_devices('tpu')).

Sanctioned differences (API.md):
  * ``repr`` of a Tensor is TF's ``<tj.Tensor shape=.. dtype=.. numpy=..>``, not ``Array(.., dtype=..,
    weak_type=True)``: testArrayRepr checks the dtype name only.
  * ``tj.constant`` of a Python number is strongly typed (TF's tf.constant: float32/int32), where
    ``jnp.asarray`` of one is weak; tests build weak operands from Python scalars or weak jax arrays instead.
  * ``tj.function`` returns Tensors where the Python function returns Python numbers (TF converts outputs).
  * errors are clear Python exceptions of jax's class or a subclass.

Differences found and fixed in tapejax: an IntEnum operand was refused (now the weakly typed int it is); dtype= given
an array was accepted (now ValueError, as jax.numpy's); copysign of complex raised ValueError (jax: TypeError);
interp of complex xp returned a value (jax: ValueError); power with a concrete NumPy/jax integer exponent promoted
(jax keeps the base's dtype); clip(uint32, int32 array) raised OverflowError; interp, select, float_power and polyval
with a Python number promoted it as strongly typed; bincount's sums of int16/uint8 weights were int32/uint32.

tnp.array/asarray/atleast_1d/atleast_2d/hstack and tnp.power of Python numbers lost jax's weak type (they are weakly
typed now; tj.constant's stay strongly typed, as TF's); trapezoid(int16 y, float16 x) and geomspace(int16, float16)
were float32 and arange(int16 scalar array, 5) int32 (jax: float16, float16, int16).

A weakly typed argument of a tj.function (a jax array or a Tensor of one) was traced as strongly typed, where jax.jit
keeps it weak (float16 + a weak float32 was float32 inside, float16 eagerly); it is traced weakly typed now (the weak
type is part of the signature).

Fixed since: histogram(int16, weights=float16) and cov(float16, aweights=int16) promote their operands together
(float16, as jax.numpy's; they were float32); polyfit of float32 x and float16 y raised TypeError (linalg.lstsq now
checks the promoted dtype for LAPACK: float32, as jax.numpy's); average(float16, weights=a weakly typed float32 array)
was float32 (jax: float16) and cross(int32, a weakly typed float32 array) weakly typed (jax: a strong float32).
"""
import enum
import operator
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy

BOOL, U8, U16, U32, U64 = np.dtype(bool), np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.uint32), \
    np.dtype(np.uint64)
I8, I16, I32, I64 = np.dtype(np.int8), np.dtype(np.int16), np.dtype(np.int32), np.dtype(np.int64)
BF16, F16, F32, F64 = np.dtype(jnp.bfloat16), np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
C64, C128 = np.dtype(np.complex64), np.dtype(np.complex128)
FP8 = [np.dtype(getattr(jnp, n)) for n in ("float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
                                           "float8_e5m2fnuz", "float8_e3m4", "float8_e4m3", "float8_e8m0fnu")]
FP4 = [np.dtype(jnp.float4_e2m1fn)]
FP6 = [np.dtype(jnp.float6_e2m3fn), np.dtype(jnp.float6_e3m2fn)]
INTN = [np.dtype(jnp.int2), np.dtype(jnp.uint2), np.dtype(jnp.int4), np.dtype(jnp.uint4)]
SMALL_FLOATS = FP8 + FP4 + FP6
SIGNED = [I8, I16, I32, I64, np.dtype(jnp.int2), np.dtype(jnp.int4)]
UNSIGNED = [U8, U16, U32, U64, np.dtype(jnp.uint2), np.dtype(jnp.uint4)]
FLOATS = [BF16, F16, F32, F64] + SMALL_FLOATS
COMPLEX = [C64, C128]
ALL_DTYPES = [BOOL] + SIGNED + UNSIGNED + FLOATS + COMPLEX
X64 = {I64: I32, U64: U32, F64: F32, C128: C64}


def python_result_dtype(p1, p2):
    """The dtype of Python's ``p1(0) + p2(0)`` as JAX reads it (an int as int64), canonicalized."""
    result = type(p1(0) + p2(0))
    return canonical(I64 if result is int else np.dtype(result))


def canonical(dtype):
    dtype = np.dtype(dtype)
    return X64.get(dtype, dtype)


def is_weak(x):
    """jax's weak-type flag of a Tensor (its jax value), a jax array or a ShapeDtypeStruct."""
    x = x.value if isinstance(x, tj.Tensor) else x
    return bool(getattr(x, "weak_type", False))


def to_jax(x):
    """The operand jax.numpy is given in place of ``x``: a Tensor's or Variable's jax value, else ``x``."""
    if isinstance(x, tj.Variable):
        return x.read_value().value
    return x.value if isinstance(x, tj.Tensor) else x


def to_numpy64(x):
    """``x`` for the NumPy reference, in float64/complex128/int64 (its values are exact there)."""
    if isinstance(x, (tj.Tensor, tj.Variable)):
        x = x.numpy()
    if isinstance(x, jax.Array):
        x = np.asarray(x)
    if isinstance(x, (np.ndarray, np.generic)):
        kind = x.dtype.kind
        return x.astype({"b": bool, "i": np.int64, "u": np.int64, "f": np.float64, "c": np.complex128}.get(
            kind, np.float64))
    return x


def jax_outcome(fn, *args):
    """``fn`` on the jax counterparts of ``args`` by ``jax.eval_shape`` (nothing compiled; concrete operands stay
    concrete, as eagerly): its ShapeDtypeStruct, or the exception jax raises."""
    jargs = [to_jax(a) for a in args]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return jax.eval_shape(lambda: fn(*jargs))
        except Exception:  # noqa: BLE001 (some functions need concrete values: then eagerly)
            pass
        try:
            out = fn(*jargs)
        except Exception as e:  # noqa: BLE001 (any error jax raises is the expectation)
            return e
        return jax.tree.map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type), out)


def check_like_jax(label, got, want, rtol=None, reference=None):
    """``got`` (a Tensor) has jax's shape, dtype and weak flag (``want``, a ShapeDtypeStruct) and, given a NumPy
    ``reference``, its values."""
    assert isinstance(got, tj.Tensor), (label, type(got))
    assert (got.shape, got.dtype) == (want.shape, want.dtype), (label, got.shape, got.dtype, want.shape, want.dtype)
    assert is_weak(got) == bool(want.weak_type), (label, "weak type", is_weak(got), want.weak_type)
    if reference is not None:
        if rtol is None:
            rtol = 1e-2 if want.dtype in (F16, BF16) else 1e-5
        ours = got.numpy()
        if want.dtype.kind in "fcV" or want.dtype == BF16:
            np.testing.assert_allclose(np.asarray(ours, np.complex128 if want.dtype.kind == "c" else np.float64),
                                       reference, rtol=rtol, atol=rtol, err_msg=label)
        else:
            np.testing.assert_array_equal(ours, reference, err_msg=label)


# -- default dtypes of Python scalars (testDefaultTypes, testDtypeFromScalarType/Value, testScalarWeakTypes) ----

@pytest.mark.parametrize("typ, want", [(bool, BOOL), (int, I32), (float, F32), (complex, C64)])
def test_default_types(typ, want):
    assert jnp.array(typ(0)).dtype == want  # (jax's default, x64 off)
    for make in (tnp.array, tnp.asarray, tj.constant, tj.function(tnp.array), tj.function(lambda x: x)):
        got = make(typ(0))
        assert isinstance(got, tj.Tensor) and got.dtype == want, (make, got)
    assert tnp.result_type(typ) == want and tnp.result_type(typ(0)) == want
    # testScalarWeakTypes: x / 2 eagerly (Python arithmetic, then converted) and traced give one dtype
    half = lambda x: x / 2  # noqa: E731
    assert tnp.array(half(typ(0))).dtype == tj.function(half)(typ(0)).dtype == jax.jit(half)(typ(0)).dtype


@pytest.mark.parametrize("dtype", [BOOL, I8, I16, I32, I64, U8, U16, U32, U64, BF16, F16, F32, F64, C64, C128])
def test_64_bit_dtypes_canonicalize_to_32_bits(dtype):
    # test_canonicalize_type / testDtypeFromValue with x64 off: NumPy values of a 64-bit dtype become 32-bit
    want = canonical(dtype)
    values = np.zeros(2, dtype)
    assert jnp.asarray(values).dtype == want
    assert tj.constant(values).dtype == want and tj.Variable(values).dtype == want
    assert tnp.result_type(dtype.type(0)) == want and tnp.result_type(values) == want
    assert (tj.constant(values) + tj.constant(values)).dtype == want


def test_explicit_64_bit_dtype_requests_warn_as_jax():
    # jax warns that an explicitly requested 64-bit dtype is truncated (x64 off); tj.numpy passes that on
    for make in (lambda m: m.zeros(2, dtype=np.float64), lambda m: m.array([1, 2], dtype=np.int64)):
        with pytest.warns(UserWarning, match="Explicitly requested dtype"):
            want = make(jnp)
        with pytest.warns(UserWarning, match="Explicitly requested dtype"):
            got = make(tnp)
        assert got.dtype == want.dtype == canonical(want.dtype)


# -- testBinaryPromotion -----------------------------------------------------------------------------------------

def _binary_promotion_cases():
    w = lambda v: jnp.array(v)  # noqa: E731 (a weakly typed float32 array, as JAX's jnp.array(1.))
    s = lambda v, d: jnp.array(v, dtype=d)  # noqa: E731
    dfloat = F32
    return [
        (w(1.), 0., dfloat), (w(1.), w(0.), dfloat), (w(1.), s(0., F16), F16), (w(1.), s(0., F32), F32),
        (w(1.), s(0., F64), F32), (s(1., F16), 0., F16), (s(1., F32), 0., F32), (s(1., F64), 0., F32),
        (s(1., F16), s(0., F16), F16), (s(1., F16), s(0., F32), F32), (s(1., F16), s(0., F64), F32),
        (s(1., F32), s(0., F32), F32), (s(1., F32), s(0., F64), F32), (s(1., F64), s(0., F64), F32),
        (w([1.]), 0., dfloat), (w([1.]), w(0.), dfloat), (w([1.]), s(0., F16), dfloat), (w([1.]), s(0., F32), dfloat),
        (w([1.]), s(0., F64), F32), (s([1.], F32), s(0., F16), F32), (s([1.], F16), s(0., F32), F32),
        (s([1.], F16), 0., F16),
    ]


def _check_binary_promotion(cases, swap, compiled):
    # jax arrays become Tensors (keeping their weak flag); Python floats stay Python floats
    pairs = [tuple(tj.constant(v) if isinstance(v, jax.Array) else v for v in (x, y)) for x, y, _ in cases]
    pairs = [(y, x) if swap else (x, y) for x, y in pairs]

    def add_all(*flat):
        return [flat[2 * i] + flat[2 * i + 1] for i in range(len(pairs))]
    flat = [v for p in pairs for v in p]
    got = tj.function(add_all)(*flat) if compiled else add_all(*flat)
    wrong = []
    for (x, y, want), (a, b), z in zip(cases, pairs, got):
        jz = jax_outcome(operator.add, *((y, x) if swap else (x, y)))
        assert jz.dtype == want, (x, y)  # JAX's own expectation holds for the installed jax (jit too: see below)
        assert isinstance(z, tj.Tensor) and z.shape == jz.shape, (a, b, z)
        np.testing.assert_array_equal(z.numpy(), np.ones(jz.shape))
        if z.dtype != want:
            wrong.append((a, b, z.dtype, want))
    assert not wrong, wrong


def _weak_operand(case):
    return any(isinstance(v, jax.Array) and v.weak_type for v in case[:2])


@pytest.mark.filterwarnings("ignore:Explicitly requested dtype")
@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("compiled", [False, True])
def test_binary_promotion(swap, compiled):
    _check_binary_promotion(_binary_promotion_cases(), swap, compiled)


@pytest.mark.filterwarnings("ignore:Explicitly requested dtype")
@pytest.mark.parametrize("swap", [False, True])
def test_binary_promotion_weak_tensor_arguments_of_a_function(swap):
    cases = [c for c in _binary_promotion_cases() if _weak_operand(c)]
    jitted = [jax.jit(operator.add)(*((y, x) if swap else (x, y))).dtype for x, y, _ in cases]
    assert jitted == [want for _, _, want in cases]  # testBinaryPromotion's jit=True
    _check_binary_promotion(cases, swap, compiled=True)


@pytest.mark.parametrize("make", [jnp.asarray, lambda v: tj.constant(jnp.asarray(v))], ids=["jax_array", "Tensor"])
def test_weak_arguments_of_a_function(make):
    h = tj.constant(np.array([1., 2.], F16))
    w = make(2.)
    assert is_weak(w) and (h + w).dtype == F16 == jax.jit(operator.add)(h.value, to_jax(w)).dtype
    assert tj.function(operator.add)(h, w).dtype == F16


# -- promote_types: the lattice (testPromoteDtypesStandard / testPromoteDtypesStrict) ---------------------------

def test_promote_types_standard():
    no_path = pytest.raises(jax.dtypes.TypePromotionError, match="no available implicit dtype promotion path")
    implicit_ints = set(SIGNED + UNSIGNED) - set(INTN)
    with jax.numpy_dtype_promotion("standard"):
        for t1 in ALL_DTYPES:
            assert tnp.promote_types(t1, t1) == t1 and tnp.promote_types(t1, BOOL) == t1
            if t1 in SMALL_FLOATS or t1 in INTN:
                with no_path:
                    tnp.promote_types(t1, C128)
            else:
                assert tnp.promote_types(t1, C128) == C128
            for t2 in ALL_DTYPES:
                refused = t1 != t2 and BOOL not in (t1, t2) and (
                    t1 in INTN or t2 in INTN or (t1 in SMALL_FLOATS and t2 not in implicit_ints)
                    or (t2 in SMALL_FLOATS and t1 not in implicit_ints))
                if refused:
                    with no_path:
                        tnp.promote_types(t1, t2)
                else:
                    assert tnp.promote_types(t1, t2) == tnp.promote_types(t2, t1), (t1, t2)
        assert tnp.promote_types(F16, BF16) == F32
        for t in FLOATS + COMPLEX:  # an inexact type wins over any exact one
            for i in [BOOL] + SIGNED + UNSIGNED:
                if i in INTN:
                    with no_path:
                        tnp.promote_types(t, i)
                else:
                    assert tnp.promote_types(t, i) == t
        exact = [BOOL, I8, I16, I32, I64, U8, U16, U32, U64]
        for group in (exact, [F16, F32, F64, C64, C128]):  # within a group: NumPy's answer...
            for i, t1 in enumerate(group):
                for t2 in group[i + 1:]:
                    want = np.promote_types(t1, t2)
                    if t1.kind == "i" and t1 != I64 and t2 == U32:  # ...except signed with uint32: int32 (x64 off)
                        want = I32
                    assert tnp.promote_types(t1, t2) == want, (t1, t2)
        # Python types among themselves: Python's result type, canonicalized (weak)
        for p1 in (int, float, complex):
            for p2 in (int, float, complex):
                assert tnp.result_type(p1, p2) == python_result_dtype(p1, p2)


def test_promote_types_strict():
    no_path = pytest.raises(jax.dtypes.TypePromotionError, match="when jax_numpy_dtype_promotion=strict")
    with jax.numpy_dtype_promotion("strict"):
        for t1 in ALL_DTYPES:  # strong types: only the diagonal
            for t2 in ALL_DTYPES:
                if t1 == t2:
                    assert tnp.promote_types(t1, t2) == t1
                else:
                    with no_path:
                        tnp.promote_types(t1, t2)
        for p1 in (int, float, complex):
            for p2 in (int, float, complex):
                assert tnp.result_type(p1, p2) == python_result_dtype(p1, p2)
        # a weak type joins a strong one only when the strong value need not change kind
        for t in [BOOL]:
            for p in (int, float, complex):
                with no_path:
                    tnp.promote_types(t, p)
        for t in SIGNED + UNSIGNED:
            assert tnp.promote_types(t, int) == t
            for p in (float, complex):
                with no_path:
                    tnp.promote_types(t, p)
        for t in FLOATS:
            assert tnp.promote_types(t, int) == t and tnp.promote_types(t, float) == t
            with no_path:
                tnp.promote_types(t, complex)
        for t in COMPLEX:
            assert all(tnp.promote_types(t, p) == t for p in (int, float, complex))


# -- strict promotion on tj's ops ----------------------------------------------------------------------------------

def _strict_cases():
    """(label, fn(module, x, y), x, y): operators ignore the module; tj.numpy functions take tnp or jnp."""
    h = tj.constant(np.array([1., 2., 3.], F16))
    f = tj.constant(np.array([.5, 1.5, 2.5], F32))
    i8 = tj.constant(np.array([1, 2, 3], I8))
    b = tj.constant(np.array([True, False, True]))
    c = tj.constant(np.array([1j, 2., 3.], C64))
    v = tj.Variable(np.array([1., 2., 3.], F16))
    op = lambda o: lambda m, x, y: o(x, y)  # noqa: E731
    return [
        ("f16 + f32", op(operator.add), h, f), ("f32 * f16", op(operator.mul), f, h),
        ("int8 + 2.0", op(operator.add), i8, 2.), ("2.0 - int8", op(operator.sub), 2., i8),
        ("int8 + 2", op(operator.add), i8, 2), ("f32 + 2", op(operator.add), f, 2),
        ("f16 * 2.5", op(operator.mul), h, 2.5), ("c64 + 2.0", op(operator.add), c, 2.),
        ("f32 + 1j", op(operator.add), f, 1j), ("bool + 1", op(operator.add), b, 1),
        ("bool & bool", op(operator.and_), b, b), ("int8 + int8", op(operator.add), i8, i8),
        ("Variable f16 + f32", op(operator.add), v, f), ("Variable f16 + 0.5", op(operator.add), v, .5),
        ("maximum(f16, f32)", lambda m, x, y: m.maximum(x, y), h, f),
        ("where(b, f16, f32)", lambda m, x, y: m.where(to_jax(b) if m is jnp else b, x, y), h, f),
        ("matmul(f16, f32)", lambda m, x, y: m.matmul(x, y), h, f),
        ("concatenate(int8, f32)", lambda m, x, y: m.concatenate([x, y]), i8, f),
    ]


def test_strict_promotion_on_tj_ops():
    cases = _strict_cases()
    for label, fn, x, y in cases:  # first in standard mode: the eager kernels are compiled and cached
        fn(tnp, x, y)
    with jax.numpy_dtype_promotion("strict"):
        for label, fn, x, y in cases:
            want = jax_outcome(lambda a, b: fn(jnp, a, b), x, y)
            if isinstance(want, Exception):
                assert isinstance(want, jax.dtypes.TypePromotionError), (label, want)
                for run in (lambda: fn(tnp, x, y), lambda: tj.function(lambda a, b: fn(tnp, a, b))(x, y)):
                    with pytest.raises(jax.dtypes.TypePromotionError, match="no available implicit dtype promotion"):
                        run()
            else:
                got = fn(tnp, x, y)
                assert got.dtype == want.dtype and got.shape == want.shape, label
        with tj.GradientTape() as tape:  # recording changes nothing
            h = tj.constant(np.ones(3, F16))
            tape.watch(h)
            with pytest.raises(jax.dtypes.TypePromotionError):
                h * tj.constant(np.ones(3, F32))


@pytest.mark.parametrize("dtype", [BOOL, I8, U16, I32, BF16, F16, F32, C64])
@pytest.mark.parametrize("promotion", ["standard", "strict"])
def test_binary_non_promotion(dtype, promotion):
    # testBinaryNonPromotion: x + x keeps x's dtype (and weak flag), in either mode
    strong = tj.constant(np.ones(3, dtype))
    with jax.numpy_dtype_promotion(promotion):
        y = strong + strong
        assert y.dtype == dtype and not is_weak(y)
    if dtype in (I32, F32, C64):  # the weakly typed ones jax makes of Python scalars
        weak = tj.constant(jnp.asarray(dtype.type(1).item()))
        assert is_weak(weak) and weak.dtype == dtype
        with jax.numpy_dtype_promotion(promotion):
            y = weak + weak
            want = jax_outcome(operator.add, weak, weak)
        assert y.dtype == want.dtype == dtype and is_weak(y) and want.weak_type


# -- testObservedPromotionTable ----------------------------------------------------------------------------------

CODES = ["b1", "u1", "u2", "u4", "u8", "i1", "i2", "i4", "i8", "bf", "f2", "f4", "f8", "c4", "c8", "i*", "f*", "c*"]
CODE_DTYPE = {"b1": BOOL, "u1": U8, "u2": U16, "u4": U32, "u8": U64, "i1": I8, "i2": I16, "i4": I32, "i8": I64,
              "bf": BF16, "f2": F16, "f4": F32, "f8": F64, "c4": C64, "c8": C128}
# JAX's observed table with x64 off and explicit x64 dtypes not allowed (the table JAX asserts never changes)
OBSERVED_X32 = [row.split() for row in """
b1 u1 u2 u4 u4 i1 i2 i4 i4 bf f2 f4 f4 c4 c4 i* f* c*
u1 u1 u2 u4 u4 i2 i2 i4 i4 bf f2 f4 f4 c4 c4 u1 f* c*
u2 u2 u2 u4 u4 i4 i4 i4 i4 bf f2 f4 f4 c4 c4 u2 f* c*
u4 u4 u4 u4 u4 i4 i4 i4 i4 bf f2 f4 f4 c4 c4 u4 f* c*
u4 u4 u4 u4 u4 i4 i4 i4 i4 bf f2 f4 f4 c4 c4 u4 f* c*
i1 i2 i4 i4 i4 i1 i2 i4 i4 bf f2 f4 f4 c4 c4 i1 f* c*
i2 i2 i4 i4 i4 i2 i2 i4 i4 bf f2 f4 f4 c4 c4 i2 f* c*
i4 i4 i4 i4 i4 i4 i4 i4 i4 bf f2 f4 f4 c4 c4 i4 f* c*
i4 i4 i4 i4 i4 i4 i4 i4 i4 bf f2 f4 f4 c4 c4 i4 f* c*
bf bf bf bf bf bf bf bf bf bf f4 f4 f4 c4 c4 bf bf c4
f2 f2 f2 f2 f2 f2 f2 f2 f2 f4 f2 f4 f4 c4 c4 f2 f2 c4
f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 c4 c4 f4 f4 c4
f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 c4 c4 f4 f4 c4
c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4
c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4
i* u1 u2 u4 u4 i1 i2 i4 i4 bf f2 f4 f4 c4 c4 i* f* c*
f* f* f* f* f* f* f* f* f* bf f2 f4 f4 c4 c4 f* f* c*
c* c* c* c* c* c* c* c* c* c4 c4 c4 c4 c4 c4 c* c* c*
""".strip().splitlines()]
DTYPE_CODE = {v: k for k, v in CODE_DTYPE.items() if v not in X64}


def table_value(code):
    """A strongly typed Tensor for a dtype code, a Python scalar (weak) for ``i*``, ``f*``, ``c*``."""
    if code.endswith("*"):
        return {"i*": 0, "f*": 0.0, "c*": 0j}[code]
    return tj.constant(np.zeros((), CODE_DTYPE[code]))


def result_code(z):
    code = DTYPE_CODE[np.dtype(z.dtype)]
    return code[0] + "*" if is_weak(z) else code


def _add(x, y):
    return tnp.add(x, y) if not isinstance(x, tj.Tensor) and not isinstance(y, tj.Tensor) else x + y


def test_observed_promotion_table_eager():
    # eagerly: the dtypes x64-off jax keeps (its 64-bit rows repeat the 32-bit ones: tj.constant canonicalizes,
    # test_64_bit_dtypes_canonicalize_to_32_bits), two strong operands in one order (the table is symmetric; the
    # function below does both), a strong and a weak one in both (__add__ and __radd__)
    index = [i for i, c in enumerate(CODES) if CODE_DTYPE.get(c) not in X64]
    values = {i: table_value(CODES[i]) for i in index}
    diffs = []
    for i in index:
        for j in index:
            strong_pair = not CODES[i].endswith("*") and not CODES[j].endswith("*")
            if strong_pair and j < i:
                continue
            got = result_code(_add(values[i], values[j]))
            if got != OBSERVED_X32[i][j]:
                diffs.append((CODES[i], CODES[j], OBSERVED_X32[i][j], got))
    assert not diffs, diffs


def test_observed_promotion_table_in_a_function():
    strong = [c for c in CODES if not c.endswith("*")]

    @tj.function
    def table(*tensors):
        vals = dict(zip(strong, tensors))
        vals.update({c: table_value(c) for c in CODES if c.endswith("*")})  # Python scalars: constants of the trace
        return [[_add(vals[a], vals[b]) for b in CODES] for a in CODES]
    got = table(*[table_value(c) for c in strong])
    diffs = [(a, b, OBSERVED_X32[i][j], result_code(got[i][j])) for i, a in enumerate(CODES)
             for j, b in enumerate(CODES) if result_code(got[i][j]) != OBSERVED_X32[i][j]]
    assert not diffs, diffs


def test_observed_promotion_table_is_jaxs():
    # the hard-coded table is what the installed jax gives (jnp.add on jax's values, by eval_shape)
    for i, a in enumerate(CODES):
        for j, b in enumerate(CODES):
            x, y = (table_value(c) for c in (a, b))
            want = jax_outcome(jnp.add, x, y)
            code = DTYPE_CODE[np.dtype(want.dtype)]
            assert (code[0] + "*" if want.weak_type else code) == OBSERVED_X32[i][j], (a, b)


# -- testBinaryPromotionJitInvariance (sampled) --------------------------------------------------------------------

JIT_TYPES = [int, float, I16, I32, F16, F32]


def _jit_value(t):
    return t(1) if t in (int, float) else tj.constant(np.ones((), t))


def identity(x):
    return x


@pytest.mark.parametrize("xfun, yfun", [(identity, identity), (abs, identity), (identity, abs)])
def test_binary_promotion_jit_invariance(xfun, yfun):
    pairs = [(a, b) for a in JIT_TYPES for b in JIT_TYPES if not (a in (int, float) and b in (int, float))]
    args = [v for a, b in pairs for v in (_jit_value(a), _jit_value(b))]

    def f(*flat):
        return [xfun(flat[2 * i]) + yfun(flat[2 * i + 1]) for i in range(len(pairs))]
    eager = f(*args)
    traced = tj.function(f)(*args)
    jitted = jax.jit(lambda *flat: [xfun(flat[2 * i]) + yfun(flat[2 * i + 1]) for i in range(len(pairs))])(
        *[to_jax(a) for a in args])
    for (a, b), e, t, j in zip(pairs, eager, traced, jitted):
        want = jax_outcome(lambda x, y: xfun(x) + yfun(y), *[_jit_value(a), _jit_value(b)])
        assert e.dtype == t.dtype == j.dtype == want.dtype, (a, b, e.dtype, t.dtype, j.dtype, want.dtype)
        assert is_weak(e) == is_weak(t) == bool(want.weak_type), (a, b)
        np.testing.assert_array_equal(e.numpy(), t.numpy())


# -- Python scalars made into arrays keep jax's weak type ------------------------------------------------------

def _weak_case(label, make, other, xfail=None):
    marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
    return pytest.param(make, other, id=label, marks=marks)


WEAK_CASES = [
    _weak_case("full", lambda m: m.full((), 2.), F16),
    _weak_case("full_like", lambda m: m.full_like(2., 3.), F16),
    _weak_case("zeros_like", lambda m: m.zeros_like(2), I8),
    _weak_case("exp", lambda m: m.exp(1.), F16),
    _weak_case("add", lambda m: m.add(1, 2), I8),
    _weak_case("where", lambda m: m.where(True, 1., 2.), BF16),
    _weak_case("broadcast_to", lambda m: m.broadcast_to(2., (3,)), F16),
    _weak_case("array", lambda m: m.array(2.), F16),
    _weak_case("asarray", lambda m: m.asarray(2), I8),
    _weak_case("atleast_1d", lambda m: m.atleast_1d(2.), F16),
    _weak_case("atleast_2d", lambda m: m.atleast_2d(2), I8),
    _weak_case("power", lambda m: m.power(2, 3), I8),
]


@pytest.mark.parametrize("make, other", WEAK_CASES)
def test_python_numbers_made_arrays_promote_as_weak_types(make, other):
    # testBinaryPromotion's jnp.array(1.) + float16: jax.numpy keeps float16 (its array of a Python number is weak)
    want_w = make(jnp)
    x = tj.constant(np.array([1, 2, 3], other))
    want = jax_outcome(operator.add, want_w, x)
    got = make(tnp)
    assert got.dtype == want_w.dtype and want.dtype == other
    z = got + x
    assert z.dtype == want.dtype, (z.dtype, want.dtype)
    assert is_weak(got) == is_weak(want_w)


# -- operators on Tensors and Variables against jax.numpy's dtypes ---------------------------------------------

def operand(name):
    """Operands by name: Tensors (``i8`` ...), Variables (``v...``), Python scalars (``py...``), a NumPy scalar,
    a weakly typed jax array."""
    ints, halves = np.array([1, 2, 3]), np.array([.5, 1.5, 2.5])
    return {
        "i8": lambda: tj.constant(ints.astype(I8)), "u8": lambda: tj.constant(ints.astype(U8)),
        "i32": lambda: tj.constant(ints.astype(I32)), "u32": lambda: tj.constant(ints.astype(U32)),
        "f16": lambda: tj.constant(halves.astype(F16)), "bf16": lambda: tj.constant(halves.astype(BF16)),
        "c64": lambda: tj.constant((halves + 1j * ints).astype(C64)),
        "b": lambda: tj.constant(np.array([True, False, True])),
        "vi16": lambda: tj.Variable(ints.astype(I16)), "vf16": lambda: tj.Variable(halves.astype(F16)),
        "py2": lambda: 2, "py2.5": lambda: 2.5, "pyTrue": lambda: True,
        "np_f32": lambda: np.float32(2.), "np_i64": lambda: np.int64(2), "jweak": lambda: jnp.asarray(2.),
    }[name]()


ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "//": operator.floordiv,
         "%": operator.mod, "**": operator.pow, "@": operator.matmul, "<": operator.lt, "==": operator.eq}
BITS = {"&": operator.and_, "|": operator.or_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift}
ARITH_PAIRS = [("i8", "u8"), ("f16", "py2.5"), ("py2", "i8"), ("vi16", "py2"), ("np_f32", "f16"),
               ("bf16", "vf16"), ("c64", "i32"), ("f16", "jweak")]
BIT_PAIRS = [("i8", "u8"), ("py2", "i8"), ("vi16", "u8"), ("b", "pyTrue"), ("u32", "np_i64"), ("f16", "i8")]
OPS = {**ARITH, **BITS}


def _tf_converted(numpy_operand, tensor):
    """A NumPy operand as tj's operators take it, as TF's: of the Tensor's dtype where its kind (bool < int <
    float < complex) is no wider (``np.float32(2.) * f16`` is float16, where jax.Array's is float32)."""
    kind = lambda d: {"b": 0, "i": 1, "u": 1, "f": 2, "V": 2, "c": 3}[np.dtype(d).kind]  # noqa: E731 (bf16: V)
    if kind(numpy_operand.dtype) <= kind(tensor.dtype):
        return numpy_operand.astype(tensor.dtype)
    return numpy_operand


def _operator_expectation(o, pair):
    x, y = (operand(n) for n in pair)
    if pair[0].startswith("np_"):
        return x, y, jax_outcome(OPS[o], _tf_converted(x, y), y)
    if pair[1].startswith("np_"):
        return x, y, jax_outcome(OPS[o], x, _tf_converted(y, x))
    return x, y, jax_outcome(OPS[o], x, y)


@pytest.mark.parametrize("o", list(ARITH) + list(BITS))
def test_operator_result_dtypes(o):
    pairs = ARITH_PAIRS if o in ARITH else BIT_PAIRS
    ok = []
    for pair in pairs:
        x, y, want = _operator_expectation(o, pair)
        label = f"{pair[0]} {o} {pair[1]}"
        if isinstance(want, Exception):
            with pytest.raises(type(want)):
                OPS[o](x, y)
            continue
        with np.errstate(all="ignore"):
            reference = OPS[o](to_numpy64(x), to_numpy64(y))
        got = OPS[o](x, y)
        check_like_jax(label, got, want, reference=reference)
        ok.append((pair, got))
    # _CompileAndCheck: the same expressions in one tj.function (a weakly typed jax array argument stays weakly
    # typed there, as under jax.jit); a NumPy operand is a Tensor argument there (its dtype no longer yields)
    ok = [(pair, got) for pair, got in ok if not any(n.startswith("np_") for n in pair)]
    traced = tj.function(lambda *flat: [OPS[o](flat[2 * i], flat[2 * i + 1]) for i in range(len(ok))])(
        *[operand(n) for pair, _ in ok for n in pair])
    for (pair, eager), t in zip(ok, traced):
        assert t.dtype == eager.dtype and is_weak(t) == is_weak(eager), pair
        np.testing.assert_allclose(np.asarray(t.numpy(), np.complex128), np.asarray(eager.numpy(), np.complex128),
                                   rtol=1e-6)


@pytest.mark.parametrize("exponent", [np.int64(3), np.int8(3), jnp.int32(3)], ids=["np_int64", "np_int8", "jnp_int32"])
def test_power_with_a_concrete_integer_exponent_keeps_the_base_dtype(exponent):
    base = tj.constant(np.array([1, 2, 16], U8))
    want = jax_outcome(jnp.power, base, exponent)
    assert want.dtype == U8
    for got in (base ** exponent, tnp.power(base, exponent)):
        assert got.dtype == U8
        np.testing.assert_array_equal(got.numpy(), np.array([1, 8, 0], U8))  # 16 ** 3 wraps in uint8, as jax's


class AnEnum(enum.IntEnum):
    A = 42
    B = 101


def test_enum_values():
    # testEnumPromotion: an IntEnum is an int
    assert tnp.array(AnEnum.A).dtype == I32 and int(tnp.array(AnEnum.A)) == 42
    assert tnp.int32(AnEnum.B) == 101 and tnp.int32(AnEnum.B).dtype == I32


@pytest.mark.parametrize("op", [operator.add, tnp.add], ids=["operator", "tnp.add"])
def test_enum_operand_is_a_weak_int(op):
    x = tj.constant(np.array([1, 2, 3], I8))
    want = jax_outcome(jnp.add, x, AnEnum.A)
    got = op(x, AnEnum.A)
    check_like_jax("int8 + IntEnum", got, want, reference=np.array([43, 44, 45]))


# -- multi-input tj.numpy functions: result dtypes against jax.numpy's -------------------------------------------

def _fn_case(label, fn, args, xfail=None, ref=None):
    """``fn(module, *operands)`` run with tnp and jnp (and with NumPy, or ``ref(*operands)``, for the values)."""
    marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
    return pytest.param(fn, args, ref, id=label, marks=marks)


def _arr(dtype, values=(1, 2, 3)):
    return lambda: tj.constant(np.array(values).astype(dtype))


FN_CASES = [
    _fn_case("where_int8_py", lambda m, c, x: m.where(c, x, 2), [_arr(BOOL, (1, 0, 1)), _arr(I8)]),
    _fn_case("clip_uint8_int8", lambda m, x, lo: m.clip(x, lo), [_arr(U8), _arr(I8, (2, 2, 2))],
             ref=lambda x, lo: np.clip(x, lo, None)),
    _fn_case("clip_int8_halves", lambda m, x: m.clip(x, 0.5, 2.5), [_arr(I8)]),
    _fn_case("clip_uint32_int32", lambda m, x, lo: m.clip(x, lo), [_arr(U32), _arr(I32, (2, 2, 2))],
             ref=lambda x, lo: np.clip(x, lo, None)),
    _fn_case("stack_int8_py", lambda m, x: m.stack([x, 2]), [_arr(I8, 1)]),
    _fn_case("append_f16_py", lambda m, x: m.append(x, 2.), [_arr(F16)]),
    _fn_case("concatenate_int8_uint8", lambda m, x, y: m.concatenate([x, y]), [_arr(I8), _arr(U8)]),
    _fn_case("average_int8_w_f16", lambda m, x, w: m.average(x, weights=w), [_arr(I8), _arr(F16)]),
    _fn_case("trapezoid_f16_x_int16", lambda m, y, x: m.trapezoid(y, x), [_arr(F16), _arr(I16)]),
    _fn_case("outer_int16_f16", lambda m, x, y: m.outer(x, y), [_arr(I16), _arr(F16)]),
    _fn_case("einsum_bf16_f16", lambda m, x, y: m.einsum("i,i->", x, y), [_arr(BF16), _arr(F16)]),
    _fn_case("cross_int32_f16", lambda m, x, y: m.cross(x, y), [_arr(I32), _arr(F16, (3, 1, 2))]),
    _fn_case("hstack_f16_py", lambda m, x: m.hstack([x, 2.]), [_arr(F16)]),
    _fn_case("trapezoid_int16_x_f16", lambda m, y, x: m.trapezoid(y, x), [_arr(I16), _arr(F16)]),
    _fn_case("interp_py_f16", lambda m, xp, fp: m.interp(2.5, xp, fp), [_arr(F16), _arr(F16)]),
    _fn_case("select_int8_py_default", lambda m, c, x: m.select([c], [x], 2), [_arr(BOOL, (1, 0, 1)), _arr(I8)]),
    _fn_case("polyval_f16_py", lambda m, p: m.polyval(p, 2.5), [_arr(F16)]),
    _fn_case("average_f16_w_weak", lambda m, x: m.average(x, weights=m.broadcast_to(2., (3,))), [_arr(F16)]),
    _fn_case("histogram_int16_w_f16", lambda m, x, w: m.histogram(x, bins=3, weights=w)[0],
             [_arr(I16), _arr(F16)]),
    _fn_case("bincount_w_int16", lambda m, x, w: m.bincount(x, weights=w, length=4), [_arr(I32), _arr(I16)],
             ref=lambda x, w: np.bincount(x, weights=w, minlength=4)),
    _fn_case("bincount_w_uint8", lambda m, x, w: m.bincount(x, weights=w, length=4), [_arr(I32), _arr(U8)],
             ref=lambda x, w: np.bincount(x, weights=w, minlength=4)),
    _fn_case("cov_f16_aweights_int16", lambda m, x, w: m.cov(x, aweights=w), [_arr(F16, (1, 2, 4)), _arr(I16)]),
    _fn_case("geomspace_int16_f16", lambda m, a, b: m.geomspace(a, b, 3), [_arr(I16, 1), _arr(F16, 4)]),
    _fn_case("float_power_f16_py", lambda m, x: m.float_power(x, 2.5), [_arr(F16)]),
    _fn_case("cross_int32_weak", lambda m, x: m.cross(x, m.broadcast_to(2., (3,))) + np.float16(1), [_arr(I32)]),
    _fn_case("polyfit_f16_y", lambda m, x, y: m.polyfit(x, y, 1), [_arr(F32), _arr(F16, (1, 3, 5))]),
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("fn, args, ref", FN_CASES)
def test_function_result_dtypes(fn, args, ref):
    operands = [a() for a in args]
    want = jax_outcome(lambda *xs: fn(jnp, *xs), *operands)
    assert not isinstance(want, Exception), want
    with np.errstate(all="ignore"):
        numpy_args = [to_numpy64(x) for x in operands]
        reference = ref(*numpy_args) if ref is not None else fn(np, *numpy_args)
    got = fn(tnp, *operands)
    check_like_jax("", got, want, reference=np.asarray(reference))
    traced = tj.function(lambda *xs: fn(tnp, *xs))(*operands)
    assert traced.dtype == got.dtype
    np.testing.assert_allclose(np.asarray(traced.numpy(), np.complex128), np.asarray(got.numpy(), np.complex128),
                               rtol=1e-3)


def test_arange_takes_its_bounds_dtype():
    # (eagerly: a traced bound cannot fix the length, under tj.function as under jax.jit)
    for bounds in [(np.int16(1), 5), (1, jnp.int16(5)), (np.float16(1), 5), (1, 5, np.int8(1)),
                   (tj.constant(np.int16(2)), 6), (5,), (0.5, 3)]:
        want = jnp.arange(*[b.value if isinstance(b, tj.Tensor) else b for b in bounds])
        check_like_jax("", tnp.arange(*bounds), want, reference=np.asarray(want))


def test_copysign_of_complex_raises_type_error():
    x, c = tj.constant(np.ones(3, F32)), tj.constant(np.ones(3, C64))
    assert isinstance(jax_outcome(jnp.copysign, x, c), TypeError)
    with pytest.raises(TypeError):
        tnp.copysign(x, c)


def test_interp_of_complex_xp_raises_value_error():
    x, xp, fp = (tj.constant(np.array([1., 2., 3.], d)) for d in (F32, C64, F32))
    assert isinstance(jax_outcome(jnp.interp, x, xp, fp), ValueError)
    with pytest.raises(ValueError, match="complex"):
        tnp.interp(x, xp, fp)


# -- promotion errors of small floats (testFloat8PromotionError, testFloat4PromotionError) ----------------------

@pytest.mark.parametrize("dtype, bits", [(FP8[1], 8), (FP8[3], 8), (FP4[0], 4)], ids=["e4m3fn", "e5m2", "e2m1fn"])
def test_small_float_promotion_error(dtype, bits):
    x = tj.constant(np.ones(2, dtype))
    y = tj.constant(np.ones(2, F32))
    assert x.dtype == dtype
    msg = f"{bits}-bit floats do not support implicit promotion"
    for op in (operator.add, tnp.add, tj.function(lambda a, b: a * b)):
        with pytest.raises(jax.dtypes.TypePromotionError, match=msg):
            op(x, y)
    if bits == 8:  # the same dtype needs no promotion (JAX leaves 4-bit arithmetic out: XLA's support is partial)
        assert (x + x).dtype == dtype and (x + x).numpy().astype(np.float32).tolist() == [2., 2.]


# -- unary result_type (testUnaryPromotion, testResultTypeNone) -------------------------------------------------

@pytest.mark.parametrize("dtype", [BOOL, I8, U16, I32, BF16, F16, F32, C64, FP8[1]])
def test_unary_result_type(dtype):
    t = tj.constant(np.zeros((), dtype))
    assert tnp.result_type(t) == jnp.result_type(t.value) == dtype
    assert tnp.result_type(tj.Variable(np.zeros(2, dtype))) == dtype


def test_unary_result_type_of_weak_values():
    # a weakly typed value's result type is its kind's default dtype; result_type(None) is the default float
    for value, want in [(0, I32), (0., F32), (0j, C64), (True, BOOL)]:
        weak = tj.constant(jnp.asarray(value))
        assert tnp.result_type(weak) == jnp.result_type(jnp.asarray(value)) == want
        assert tnp.result_type(value) == want
    assert tnp.result_type(None) == F32


# -- issubdtype / isdtype ----------------------------------------------------------------------------------------

SCALAR_TYPES = [tnp.bool_, tnp.int4, tnp.int8, tnp.int16, tnp.int32, tnp.int64, tnp.uint4, tnp.uint8, tnp.uint16,
                tnp.uint32, tnp.uint64, tnp.bfloat16, tnp.float16, tnp.float32, tnp.float64, tnp.complex64,
                tnp.complex128]
CATEGORIES = [np.generic, tnp.inexact, tnp.integer, tnp.signedinteger, tnp.unsignedinteger, tnp.floating,
              tnp.complexfloating]


def test_is_subdtype():
    for t in SCALAR_TYPES:
        assert tnp.issubdtype(t, t) and tnp.issubdtype(np.dtype(t).type, t)
        assert tnp.issubdtype(t, np.dtype(t).type) and tnp.issubdtype(t, np.dtype(t))
        if t in (tnp.int4, tnp.uint4, tnp.bfloat16):
            continue  # (no NumPy counterpart)
        for category in CATEGORIES:
            assert tnp.issubdtype(t, category) == np.issubdtype(np.dtype(t).type, category), (t, category)
    # on a Tensor's and a Variable's dtype
    for dtype in (I8, BF16, C64):
        for x in (tj.constant(np.zeros(2, dtype)), tj.Variable(np.zeros(2, dtype))):
            for category in CATEGORIES:
                assert tnp.issubdtype(x.dtype, category) == jnp.issubdtype(dtype, category)


@pytest.mark.parametrize("dtype", [BF16] + FP8[:2] + FP4 + FP6[:1], ids=lambda d: str(d))
def test_is_subdtype_custom_floats(dtype):
    for dt in (dtype, np.dtype(dtype), str(np.dtype(dtype))):
        assert tnp.issubdtype(dt, dt) and tnp.issubdtype(dt, np.dtype(dtype)) and tnp.issubdtype(dt, str(dtype))
        for category in (np.floating, np.inexact, np.number, np.generic):
            assert tnp.issubdtype(dt, category)
        assert not tnp.issubdtype(dt, object) and not tnp.issubdtype(dt, np.float64)
        assert not tnp.issubdtype(np.generic, dt)


@pytest.mark.parametrize("dtype", INTN, ids=lambda d: str(d))
def test_is_subdtype_intn(dtype):
    kind = np.signedinteger if str(dtype).startswith("int") else np.unsignedinteger
    for dt in (dtype, str(dtype)):
        assert tnp.issubdtype(dt, dt) and tnp.issubdtype(dt, kind) and tnp.issubdtype(dt, np.integer)
        assert tnp.issubdtype(dt, np.number) and tnp.issubdtype(dt, np.generic)
        assert not tnp.issubdtype(dt, object) and not tnp.issubdtype(dt, np.int64)
        assert not tnp.issubdtype(np.generic, dt)


def test_is_subdtype_of_key_dtypes():
    # testIsSubdtypeExtended, on a tj.random key
    key = tj.random.key(0)
    assert tnp.issubdtype(key.dtype, jax.dtypes.prng_key) and tnp.issubdtype(key.dtype, jax.dtypes.extended)
    assert tnp.issubdtype(key.dtype, np.generic) and not tnp.issubdtype(key.dtype, np.number)


KINDS = {"bool": [BOOL], "signed integer": SIGNED, "unsigned integer": UNSIGNED, "integral": SIGNED + UNSIGNED,
         "real floating": FLOATS, "complex floating": COMPLEX, "numeric": SIGNED + UNSIGNED + FLOATS + COMPLEX}


def test_isdtype_of_every_family():
    # testIsDtype, sampled: one or two dtypes of each family against each kind and against dtypes
    for dtype in [BOOL, I8, U32, np.dtype(jnp.int4), np.dtype(jnp.uint2), BF16, F16, FP8[1], FP4[0], C64]:
        for kind in KINDS:
            assert tnp.isdtype(dtype, kind) == (dtype in KINDS[kind]), (dtype, kind)
        for other in (BOOL, I8, F16, C64):
            assert tnp.isdtype(dtype, other) == (dtype == other)
        assert tnp.isdtype(tj.constant(np.zeros(1, dtype)).dtype, "numeric") == (dtype != BOOL)
        assert tnp.isdtype(tj.constant(np.zeros(1, dtype)).dtype, dtype)


# -- scalar types and casts (testScalarInstantiation, testScalarCastInsideJitWorks, testArrayCasts) -------------

@pytest.mark.parametrize("scalar_type", [tnp.bool_, tnp.int32, tnp.bfloat16, tnp.float32, tnp.complex64])
def test_scalar_instantiation(scalar_type):
    a = scalar_type(1)
    assert a.dtype == tnp.dtype(scalar_type) and tnp.ndim(a) == 0
    assert isinstance(np.dtype(scalar_type).type(1), scalar_type)
    # on a Tensor: a cast (a Tensor under tj.function)
    t = tj.constant(np.array(1.5, F32))
    assert scalar_type(t).dtype == np.dtype(scalar_type)
    traced = tj.function(lambda x: scalar_type(x))(t)
    assert traced.dtype == np.dtype(scalar_type) and traced.numpy() == scalar_type(1.5)


def test_scalar_type_call_is_a_recorded_cast():
    # jax's jnp.float32(x) is differentiable by jax.grad: tj.numpy's is by a tape (jax's would give a jax.Array the
    # tape cannot see, the gradient None); still the dtype jax's is, equal and hashing alike
    x = tj.constant(np.array([1.5, -2.0], F32))
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tnp.float32(x) * 3.0
        z = tnp.complex64(x)
        re = tnp.real(z * (2 - 1j))
    assert isinstance(y, tj.Tensor) and z.dtype == np.complex64
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(tape.gradient(re, x).numpy(), [2.0, 2.0])
    assert tnp.float32 == jnp.float32 and jnp.float32 == tnp.float32 and tnp.float32 == np.float32
    assert tnp.float32 != tnp.int32 and {jnp.float32: 1}[tnp.float32] == 1 and np.dtype(tnp.bfloat16) == BF16
    assert jnp.zeros(2, tnp.float16).dtype == F16 and isinstance(np.float32(1), tnp.float32)


def test_scalar_cast_inside_function():
    got = tj.function(lambda x: tnp.int32(x))(tj.constant(np.float32(101.4)))
    assert isinstance(got, tj.Tensor) and got.dtype == I32 and int(got) == 101


@pytest.mark.parametrize("t", [tnp.bool_, tnp.int32, tnp.bfloat16, tnp.float32, tnp.complex64])
def test_array_casts(t):
    a = np.array([1, 2.5, -3.7])
    want = jnp.array(a).astype(t)
    for got in (tnp.array(a).astype(t), tnp.astype(tnp.array(a), t), tj.Variable(a).read_value().astype(t)):
        assert got.dtype == np.dtype(t) == want.dtype
        np.testing.assert_array_equal(np.asarray(got.numpy()), np.asarray(want))


# -- dtype arguments (testUnsupportedType, test_check_dtype_array, test_check_dtype_non_hashable) --------------

def test_unsupported_dtype_raises_type_error():
    for make in (lambda: tnp.zeros(2, dtype="nonsense"), lambda: tj.constant(1., dtype="nonsense"),
                 lambda: tnp.array([1.], dtype="nonsense"), lambda: tnp.astype(tj.constant([1.]), "nonsense")):
        with pytest.raises(TypeError, match="nonsense.* not understood"):
            make()


def test_object_with_a_dtype_attribute_is_a_dtype():
    class MyDtype:  # not hashable, as JAX's regression test
        __hash__ = None
        dtype = np.dtype("float32")
    assert tnp.zeros(2, dtype=MyDtype()).dtype == jnp.zeros(2, dtype=MyDtype()).dtype == F32


@pytest.mark.parametrize("make", [lambda m, d: m.zeros(2, dtype=d), lambda m, d: m.array([1, 2], dtype=d),
                                  lambda m, d: m.astype(m.arange(3), d)], ids=["zeros", "array", "astype"])
def test_array_as_dtype_raises(make):
    with pytest.raises(ValueError, match="Passing an array as a dtype argument"):
        make(jnp, jnp.arange(4.))
    with pytest.raises(ValueError, match="array as a dtype"):
        make(tnp, tnp.arange(4.))


# -- repr (testArrayRepr) ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [BOOL, I8, U32, BF16, F16, F32, C64, FP8[1]], ids=str)
def test_repr_names_the_dtype(dtype):
    t = tj.constant(np.zeros(2, dtype))
    assert f"dtype={np.dtype(dtype).name}" in repr(t) and repr(t).startswith("<tj.Tensor")


# -- can_cast (testSafeToCast, as NumPy's can_cast that jax.numpy exports) --------------------------------------

def test_can_cast():
    dts = [BOOL, I8, U8, I32, U32, F16, F32, C64]
    for a in dts:
        for b in dts:
            for casting in ("safe", "same_kind", "unsafe"):
                assert tnp.can_cast(a, b, casting) == np.can_cast(a, b, casting), (a, b, casting)
        # a Tensor and its dtype
        t = tj.constant(np.zeros(1, a))
        assert tnp.can_cast(t.dtype, F16) == tnp.can_cast(t, F16) == np.can_cast(a, F16)
    # bfloat16 (ml_dtypes' casts): float16 and bfloat16 do not hold each other; both go to float32 safely
    assert tnp.can_cast(BF16, F32) and tnp.can_cast(BF16, C64) and tnp.can_cast(I8, BF16)
    assert not tnp.can_cast(F32, BF16) and not tnp.can_cast(BF16, F16) and not tnp.can_cast(F16, BF16)
    assert tnp.can_cast(F32, BF16, "same_kind") and not tnp.can_cast(BF16, I32, "same_kind")


# -- finfo / iinfo -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [F16, BF16, F32, C64, FP8[1], FP8[3]], ids=str)
def test_finfo(dtype):
    want = jnp.finfo(dtype)
    for arg in (dtype, tj.constant(np.zeros(2, dtype)).dtype, tj.Variable(np.zeros(2, dtype)).dtype):
        got = tnp.finfo(arg)
        assert (got.bits, got.eps, got.max, got.min, got.tiny, got.dtype) == \
            (want.bits, want.eps, want.max, want.min, want.tiny, want.dtype)
    if dtype in (F16, F32):
        np_info = np.finfo(dtype)
        assert (want.eps, want.max, want.tiny) == (np_info.eps, np_info.max, np_info.tiny)
    # the values are representable in the dtype: eps added to 1 changes it, eps/2 does not
    one = tj.constant(np.ones((), dtype))
    if dtype not in (C64,):
        assert (one + tnp.asarray(want.eps, dtype)).numpy() != 1 and (one + tnp.asarray(want.eps / 2, dtype)) == 1


@pytest.mark.parametrize("dtype", [I8, U8, I16, U32, I32, np.dtype(jnp.int4), np.dtype(jnp.uint4)], ids=str)
def test_iinfo(dtype):
    want = jnp.iinfo(dtype)
    got = tnp.iinfo(tj.constant(np.zeros(1, dtype)).dtype)
    assert (got.bits, got.min, got.max) == (want.bits, want.min, want.max)
    if dtype.kind in "iu":
        assert (want.min, want.max) == (np.iinfo(dtype).min, np.iinfo(dtype).max)


def test_finfo_iinfo_wrong_kind_raises():
    with pytest.raises(ValueError):
        tnp.finfo(I32)
    with pytest.raises(ValueError):
        tnp.iinfo(F32)


# -- gradients and tangents of promoting ops ---------------------------------------------------------------------

GRAD_CASES = [
    ("f16 * f32", lambda m, x, y: x * y, F16, F32),
    ("bf16 + f16", lambda m, x, y: m.sin(x) + y * y, BF16, F16),
    ("f32 * c64 (real loss)", lambda m, x, y: m.real(x * y), F32, C64),
    ("maximum(f16, f32)", lambda m, x, y: m.maximum(x, y * 3), F16, F32),
]


@pytest.mark.parametrize("label, f, dx, dy", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradients_of_promoting_ops_have_the_sources_dtypes(label, f, dx, dy):
    xs = np.array([.5, 1.5, -2.]).astype(dx)
    ys = (np.array([1., -.5, 2.]) + (1j * np.array([1., 0., -1.]) if dy == C64 else 0)).astype(dy)
    x, y = tj.constant(xs), tj.constant(ys)
    with tj.GradientTape() as tape:
        tape.watch([x, y])
        out = f(tnp, x, y)
    gx, gy = tape.gradient(out, [x, y])
    jout, vjp = jax.vjp(lambda a, b: f(jnp, a, b), jnp.asarray(xs), jnp.asarray(ys))
    assert out.dtype == jout.dtype and out.shape == jout.shape
    wx, wy = vjp(jnp.ones_like(jout))
    tol = 1e-2 if F16 in (dx, dy) or BF16 in (dx, dy) else 1e-6
    assert gx.dtype == wx.dtype == dx and gy.dtype == wy.dtype == dy
    np.testing.assert_allclose(np.asarray(gx.numpy(), np.float64), np.asarray(wx, np.float64), rtol=tol)
    # TF's convention for complex sources: the conjugate of jax's cotangent
    np.testing.assert_allclose(np.asarray(gy.numpy(), np.complex128), np.conj(np.asarray(wy, np.complex128)), rtol=tol)
    tx = np.array([1., -1., .5]).astype(dx)
    with tj.ForwardAccumulator(x, tj.constant(tx)) as acc:
        out = f(tnp, x, y)
    _, jt = jax.jvp(lambda a: f(jnp, a, jnp.asarray(ys)), (jnp.asarray(xs),), (jnp.asarray(tx),))
    t = acc.jvp(out)
    assert t.dtype == jt.dtype == out.dtype
    np.testing.assert_allclose(np.asarray(t.numpy(), np.complex128), np.asarray(jt, np.complex128), rtol=tol)
