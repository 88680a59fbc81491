"""JAX's jax.numpy reduction tests, ported to tj.numpy: the cases and arguments that
test_tf_unported_np_test_part1_port.py (TF's older copy of testReducer / testReducerNoDtype) does not cover.

Source: jax-ml/jax tests/lax_numpy_reducers_test.py (JaxNumpyReducerTests; commit 048c603d), run against the installed
jax 0.10.2 and NumPy 2.4. JAX is the reference here: ``jnp.<name>`` -> ``tj.numpy.<name>`` (same names and
signatures); ``_CheckAgainstNumpy`` -> tj's values against NumPy's, computed at test time on the same inputs (JAX's
np_fun adjustments kept: inexact casts, NumPy 2.x keywords ``mean=``/``correction=``/``weights=``), and tj's values,
shape and dtype against jax.numpy's own result (x64 off: float32/int32); ``_CompileAndCheck`` -> the same call inside
``tj.function`` against eager, once per method. JAX's grids (every shape x dtype x axis x keepdims) are sampled down
to float32 on a few shapes plus int32, bool, complex64, small ints and one float16/bfloat16 case where the record
takes them. JAX's only gradient test (testNanStdGrad) is kept, and tape gradients and ForwardAccumulator JVPs of the
new arguments (where, initial, mean=, correction, weights, include_initial, quantile methods...) are checked against
jax.vjp / jax.jvp of the jax.numpy function (real inputs; one complex case in API.md's conj convention).

Ported (JAX method -> test here): testReducer (the nan*/complex/out_dtype cases TF's copy lacks) and
testReducerNoDtype (nanmax, nanmin, nanvar, nanstd, complex ptp) -> test_reducer_more; testReducerInitial;
testReducerBadInitial; testReducerPromoteInt; testReducerNoInitialZeroDims; testReducerWhere;
testReducerWhereNonBooleanErrorInitial / ...NoInitial -> test_where_must_be_boolean; testReducerWhereNoInitial;
testReductionOfOutOfBoundsAxis; testReductionWithRepeatedAxisError; testAverage (keepdims, the new argument) and
testAverageNDWeights; testStdOrVar; testStdOrVarLargeDdofReturnsNan; testNanVar; testNanStdGrad;
testReducerWithMean; testCov (y, fweights, aweights), testEmptyCov, testCovTransposeBehavior, testCovDtype;
testQuantile (nan variants, methods, q shapes, tuple axes), testPercentilePrecision (one case under
jax.enable_x64), testMedian, testWeightedQuantile; testMeanVeryLargeArray (jax.eval_shape over tj.numpy.mean);
test_f16_mean; testCumulativeSum / testCumulativeProd -> test_cumulative (and the signature of both),
testCumulativeSumErrors, testCumulativeSumBool. The _CompileAndCheck of the functions whose cases above run eagerly
only: test_compiled_matches_eager (one tj.function for all of them).

Left out: testMeanLargeArray and testStdLargeArray (JAX skips them itself: 2.7e9-element arrays);
testReducerF16Casts and testMeanF16Casts (jaxpr inspection, JAX-internal); the x64 dtypes of every sweep, bfloat16
and the custom float dtypes (one float16 case per method instead, bfloat16 in test_f16_mean and testCovDtype).

Not a tj difference: at q = 10 percent (0.1 in float32) jax.numpy's percentile/nanpercentile with method 'lower' or
'midpoint' pick the element below NumPy's (its index 0.1 * (n - 1) rounds under an integer); tj.numpy agrees with
NumPy there. The cases below use q values whose index is far from an integer or a half, where all three agree.
Errors: tj's messages differ from jax's; the exception classes are checked (and the shared words where JAX's test
matches a message).

Differences from jax.numpy left: none (nanmean with an integer ``dtype`` casts the input first, as mean's fix below).

Fixed after this port found them: average rejected N-d weights for a tuple axis; max/min/nanmax/nanmin of a bool
array with an int ``initial`` gave int32 (jax: the input's dtype, bool); nansum with ``dtype=bool``/int8 gave int32;
cov took no fweights/aweights (NotImplementedError), gave a scalar for one (1, N) row with rowvar=False (jax and
NumPy >= 2.2: (N, N)) and -0.0 for no observations (jax and NumPy: NaN); var/std with ``where`` and nanvar/nanstd of
complex input gave complex64 (jax: float32), and nanvar/nanstd of complex input with a real ``dtype`` dropped the
imaginary parts silently; mean with an integer ``dtype`` cast the float mean, not the input (jax and NumPy: the input
is cast first); mean with ``dtype=bool`` did not raise (jax: TypeError); nanmax/nanmin with ``initial`` gave NaN for
an empty, all-NaN or all-masked slice (jax and NumPy: the initial value); cumulative_sum/cumulative_prod with
``dtype=bool`` gave int32; a non-scalar ``initial`` was accepted (jax: ValueError); nanvar/nanstd accepted a
non-boolean ``where``; cumulative_sum did not promote int8/int16/uint8 (jax: int32/uint32);
cumulative_sum/cumulative_prod took ``axis`` and ``dtype`` positionally (jax: keyword-only).

Sanctioned: var/std of complex input with a real ``dtype`` give TF's tnp value, the real variance in that dtype
(jax.numpy raises ValueError; TF's np_test testVar expects the value).
"""
import functools
import zlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from conftest import assert_same_signature, jax_raises

tnp = tj.numpy
pytestmark = [pytest.mark.filterwarnings("ignore::RuntimeWarning"),
              pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")]

F16, F32, F64, C64 = np.float16, np.float32, np.float64, np.complex64
I8, I16, I32, U8, BOOL = np.int8, np.int16, np.int32, np.uint8, np.bool_
NAN_OPS_WITH_INITIAL = ["prod", "sum", "max", "min", "nanprod", "nansum", "nanmax", "nanmin"]  # JAX's INITIAL records
WHERE_NO_INITIAL_OPS = ["all", "any", "mean", "var", "std", "nanmean", "nanvar", "nanstd"]


# -- inputs: JAX's rand_default / rand_some_nan / rand_small_positive / rand_some_zero, seeded per case ------------
def rng_for(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def draw(kind, shape, dtype, *key):
    """One NumPy argument of ``shape`` and ``dtype``: ``kind`` is default (normal * 3), some_nan (30% NaN),
    small_positive (0.5..1.5; ints 1..3), positive (0.5..2.5), or some_zero (30% zeros)."""
    g = rng_for(kind, shape, np.dtype(dtype).name, *key)
    x = g.standard_normal(shape) * 3
    if kind == "some_nan":
        x = np.where(g.random(shape) < 0.3, np.nan, x)
    elif kind in ("small_positive", "positive"):
        x = g.uniform(0.5, 1.5 if kind == "small_positive" else 2.5, shape)
    elif kind == "some_zero":
        x = np.where(g.random(shape) < 0.3, 0.0, x)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return np.asarray(x > 0)
    if dt.kind in "iu":
        if kind in ("small_positive", "positive"):
            return g.integers(1, 4, shape).astype(dt)
        x = np.trunc(np.nan_to_num(x))
        return (np.abs(x) if dt.kind == "u" else x).astype(dt)
    if dt.kind == "c":
        return (x + 1j * g.standard_normal(shape) * 3).astype(dt)
    return x.astype(dt)


def sh(shape):
    return str(list(shape)).replace(" ", "")


def mask(shape, *key):
    return rng_for("mask", shape, *key).random(shape) < 0.6


# -- comparisons ----------------------------------------------------------------------------------------------------
def _leaves(x):
    return list(x) if isinstance(x, (tuple, list)) else [x]


def _wide(a):
    a = np.asarray(a)
    return a.astype(np.complex128) if a.dtype.kind == "c" else a.astype(np.float64)


def _tol(dtype, tol):
    dtype = jnp.dtype(dtype)
    if not jnp.issubdtype(dtype, jnp.inexact):
        return 0.0
    return max(tol, 1e-2) if dtype.itemsize <= 2 else tol


def assert_like_jax(label, got, want, tol=2e-5):
    """``got`` (Tensors) has jax.numpy's result's shapes and dtypes, and its values within ``tol``."""
    got, want = _leaves(got), _leaves(want)
    assert len(got) == len(want), (label, got)
    for g, w in zip(got, want):
        w = jnp.asarray(w)
        assert isinstance(g, tj.Tensor), (label, type(g))
        assert (tuple(g.shape), g.dtype) == (w.shape, w.dtype), (label, g.shape, g.dtype, w.shape, w.dtype)
        t = _tol(w.dtype, tol)
        np.testing.assert_allclose(_wide(g.numpy()), _wide(w), rtol=t, atol=t, equal_nan=True, err_msg=label)


def assert_values(label, got, want, tol=2e-5):
    """``got``'s values against NumPy's ``want`` (NumPy's dtypes may be 64-bit: values only)."""
    for g, w in zip(_leaves(got), _leaves(want)):
        w = np.asarray(w)
        assert tuple(g.shape) == w.shape, (label, g.shape, w.shape)
        t = _tol(g.dtype, tol)
        np.testing.assert_allclose(_wide(g.numpy()), _wide(w), rtol=t, atol=t, equal_nan=True, err_msg=label)


def jax_ref(fn, *args):
    """jax.numpy's ``fn(jnp, *args)`` as one jitted XLA program (op by op, jax compiles one per primitive); eager
    for the few cases whose ``fn`` runs NumPy on its input (no tracers there)."""
    try:
        return jax.jit(lambda *a: fn(jnp, *a))(*args)
    except (jax.errors.TracerArrayConversionError, jax.errors.ConcretizationTypeError):
        return fn(jnp, *args)


@functools.partial(jax.jit, static_argnums=0)
def jax_vjp_jvp(fn, args, ct, tangents):
    """jax.vjp's cotangents and jax.jvp's tangent of ``fn(jnp, *args)``, in one XLA program."""
    f = lambda *a: fn(jnp, *a)  # noqa: E731
    return jax.vjp(f, *args)[1](ct), jax.jvp(f, tuple(args), tuple(tangents))[1]


def check(label, fn, args, np_fn="same", tol=2e-5, compiled=False):
    """``fn(tnp, *args)`` against ``fn(jnp, *args)`` (values, shapes, dtypes) and NumPy's values (``np_fn(*args)``,
    by default ``fn(np, *args)``; None: no NumPy reference); with ``compiled``, also inside tj.function."""
    got = fn(tnp, *args)
    assert_like_jax(label, got, jax_ref(fn, *args), tol)
    if np_fn is not None:
        assert_values(label, got, fn(np, *args) if np_fn == "same" else np_fn(*args), tol)
    if compiled:  # _CompileAndCheck
        again = tj.function(lambda *a: fn(tnp, *a))(*args)
        for e, c in zip(_leaves(got), _leaves(again)):
            assert (c.shape, c.dtype) == (e.shape, e.dtype), label
            np.testing.assert_allclose(_wide(c.numpy()), _wide(e.numpy()), rtol=1e-5, atol=1e-5, equal_nan=True)
    return got


FAILED = pytest.fail.Exception  # what pytest.raises raises when nothing was raised


def xfail(reason, raises=AssertionError):
    """A strict xfail that only tj's failure satisfies: ``raises`` is how tj fails (an assertion against jax's
    result; FAILED: tj raises nothing); jax's side failing (see jax_raises) fails the test."""
    return pytest.mark.xfail(strict=True, reason=reason, raises=raises)


def params(cases, xfails=()):
    """pytest params from ``(id, ...)`` tuples; the ids in ``xfails`` (id -> reason, or (reason, raises)) are
    strict xfails."""
    def marks(key):
        if key not in xfails:
            return []
        reason = xfails[key]
        return [xfail(*reason) if isinstance(reason, tuple) else xfail(reason)]
    return [pytest.param(*c[1:], id=c[0], marks=marks(c[0])) for c in cases]


def _inexact(x):
    x = np.asarray(x)
    return x.astype(F32) if x.dtype.kind in "biu" else x


# -- testReducer / testReducerNoDtype: what TF's copy leaves out ------------------------------------------------------
# (id, fn(m, x), input kind, shape, dtype, NumPy reference or "same")
REDUCER_MORE = [
    ("nanmean-complex64-axis1", lambda m, x: m.nanmean(x, 1), "some_nan", (3, 4), C64),
    ("nansum-complex64-keepdims", lambda m, x: m.nansum(x, None, keepdims=True), "some_nan", (3, 4), C64),
    ("nanprod-bool-axis0", lambda m, x: m.nanprod(x, 0), "some_zero", (3, 4), BOOL),
    ("nanprod-int32-dtype=float32", lambda m, x: m.nanprod(x, 1, dtype=F32), "small_positive", (3, 4), I32),
    ("sum-float32-dtype=float16", lambda m, x: m.sum(x, 0, dtype=F16), "default", (3, 4), F32),
    ("prod-int32-dtype=complex64", lambda m, x: m.prod(x, -1, dtype=C64, keepdims=True), "small_positive", (3, 4),
     I32),
    ("mean-int32-dtype=complex64", lambda m, x: m.mean(x, 0, dtype=C64), "default", (3, 4), I32),
    ("nanmax-float32-axis1-keepdims", lambda m, x: m.nanmax(x, 1, keepdims=True), "some_nan", (3, 4), F32),
    ("nanmin-int32", lambda m, x: m.nanmin(x), "default", (3, 4), I32),
    ("nanmax-bool-axis0", lambda m, x: m.nanmax(x, 0), "default", (2, 3), BOOL),
    ("nanmin-float16-axis0", lambda m, x: m.nanmin(x, 0), "some_nan", (3, 4), F16),
    ("nanvar-float32-axis-1-keepdims", lambda m, x: m.nanvar(x, -1, keepdims=True), "some_nan", (2, 1, 4), F32),
    ("nanstd-int32-axis0", lambda m, x: m.nanstd(x, 0), "default", (3, 4), I32),
    ("nanvar-bool", lambda m, x: m.nanvar(x), "default", (3, 4), BOOL),
    ("ptp-complex64-axis1", lambda m, x: m.ptp(x, 1), "default", (2, 3), C64),
    # (JAX's testReducer: an integer dtype casts the input, then takes the mean in it; so does NumPy)
    ("mean-float32-dtype=int8", lambda m, x: m.mean(x, 1, dtype=I8), "default", (6, 4), F32),
    ("nansum-float32-dtype=int8", lambda m, x: m.nansum(x, 1, dtype=I8), "default", (3, 4), F32),
    ("nansum-float32-dtype=bool", lambda m, x: m.nansum(x, 1, dtype=BOOL, keepdims=True), "default", (3, 4), F32),
    ("nanvar-complex64", lambda m, x: m.nanvar(x, 1), "some_nan", (3, 4), C64),
    ("nanstd-complex64-keepdims", lambda m, x: m.nanstd(x, keepdims=True), "some_nan", (3, 4), C64),
]
@pytest.mark.parametrize("fn, kind, shape, dtype", params(REDUCER_MORE))
def test_reducer_more(request, fn, kind, shape, dtype):
    label = request.node.callspec.id
    x = draw(kind, shape, dtype, label)
    check(label, fn, [x], lambda v: fn(np, _inexact(v) if "var" in label or "std" in label else v),
          tol=1e-1 if "float16" in label else 2e-5, compiled=label.startswith("nanvar-float32"))


def test_mean_to_bool_raises_as_jax():
    x = np.arange(4.0, dtype=F32)
    jax_raises(TypeError, lambda: jnp.mean(x, dtype=BOOL))
    with pytest.raises(TypeError):
        tnp.mean(x, dtype=BOOL)


# -- testReducerInitial / testReducerNoInitialZeroDims / testReducerWhere ------------------------------------------
def _with_negative_row(x):
    """(max with initial=1 must then pick the initial value on the first row)"""
    x = np.array(x)
    x[0] = -np.abs(x[0]) - 1
    return x


# (id, fn(m, x), input kind, shape, dtype)
INITIAL = [
    ("sum-float32-axis-1-keepdims-initial1", lambda m, x: m.sum(x, -1, keepdims=True, initial=1), "default", (3, 4),
     F32),
    ("sum-int32-initial1", lambda m, x: m.sum(x, None, initial=1), "default", (3, 4), I32),
    ("sum-float16-axis0-initial1", lambda m, x: m.sum(x, 0, initial=1), "default", (3, 4), F16),
    ("prod-float32-axis-1-keepdims-initial1", lambda m, x: m.prod(x, -1, keepdims=True, initial=1), "small_positive",
     (3, 4), F32),
    ("prod-empty-axis0-initial0", lambda m, x: m.prod(x, 0, initial=0), "default", (0, 4), F32),
    ("prod-bool-axis1-initial1", lambda m, x: m.prod(x, 1, initial=1), "default", (3, 4), BOOL),
    ("max-float32-axis1-initial1", lambda m, x: m.max(_with_negative_row(x), 1, initial=1), "default", (3, 4), F32),
    ("max-empty-axis0-keepdims-initial1", lambda m, x: m.max(x, 0, keepdims=True, initial=1), "default", (0, 4), F32),
    ("min-int32-axis0-keepdims-initial0", lambda m, x: m.min(x, 0, keepdims=True, initial=0), "default", (3, 4), I32),
    ("min-0d-initial0", lambda m, x: m.min(x, None, initial=0), "positive", (), F32),
    ("nanprod-float32-axis1-initial1", lambda m, x: m.nanprod(x, 1, initial=1), "some_nan", (3, 4), F32),
    ("nanprod-empty-axis0-initial0", lambda m, x: m.nanprod(x, 0, initial=0), "default", (0, 4), F32),
    ("nansum-complex64-initial1", lambda m, x: m.nansum(x, None, initial=1), "some_nan", (3, 4), C64),
    ("nanmax-float32-axis1-initial0", lambda m, x: m.nanmax(x[:2], 1, initial=0), "some_nan", (3, 4), F32),
    ("nanmin-float16-axis0-initial1", lambda m, x: m.nanmin(x, 0, initial=1), "default", (3, 4), F16),
    ("max-bool-axis1-initial1", lambda m, x: m.max(x, 1, initial=1), "default", (3, 4), BOOL),
    ("nanmin-bool-initial0", lambda m, x: m.nanmin(x, None, initial=0), "default", (3, 4), BOOL),
    ("nanmax-empty-axis0-initial1", lambda m, x: m.nanmax(x, 0, initial=1), "default", (0, 4), F32),
    ("nanmin-all-nan-row-initial1", lambda m, x: m.nanmin(np.where(np.arange(3)[:, None] == 1, np.nan, x), 1,
                                                          initial=1), "default", (3, 4), F32),
]
@pytest.mark.parametrize("fn, kind, shape, dtype", params(INITIAL))
def test_reducer_initial(request, fn, kind, shape, dtype):
    label = request.node.callspec.id
    x = draw(kind, shape, dtype, label)
    # (NumPy on the same values; the seeded nanmax case keeps a non-NaN entry above 0 in each of its two rows)
    check(label, fn, [x], tol=5e-2 if "float16" in label else 2e-5, compiled=label.startswith("sum-float32"))


@pytest.mark.parametrize("name", NAN_OPS_WITH_INITIAL)
def test_reducer_bad_initial(name):
    arr, initial = np.ones((2, 3, 4), F32), np.zeros((1, 2, 3), F32)
    jax_raises(ValueError, lambda: getattr(jnp, name)(arr, axis=-1, initial=initial),
               r"initial value must be a scalar. Got array of shape \(1, 2, 3\)")
    with pytest.raises(ValueError):
        getattr(tnp, name)(arr, axis=-1, initial=initial)


# (id, name, dtype, axis, keepdims, initial, promote_integers): JAX's np_fun casts NumPy's result to
# _reducer_output_dtype; the dtypes are jax.numpy's here, NumPy gives the values (small ints: no overflow)
PROMOTE = [
    ("sum-int8-promote", "sum", I8, 0, False, None, True),
    ("sum-int8-no-promote", "sum", I8, 0, True, 1, False),
    ("prod-uint8-promote", "prod", U8, 1, False, None, True),
    ("prod-uint8-no-promote", "prod", U8, None, False, 1, False),
    ("sum-bool-no-promote", "sum", BOOL, -1, False, None, False),
    ("prod-int16-promote-initial", "prod", I16, 1, True, 1, True),
    ("sum-float32-no-promote", "sum", F32, None, False, 0, False),
]


@pytest.mark.parametrize("name, dtype, axis, keepdims, initial, promote", params(PROMOTE))
def test_reducer_promote_integers(request, name, dtype, axis, keepdims, initial, promote):
    label = request.node.callspec.id
    x = draw("small_positive" if name == "prod" else "default", (3, 4), dtype, label)
    kw = dict(keepdims=keepdims, initial=initial)
    fn = lambda m, v: getattr(m, name)(v, axis, **kw, **({} if m is np else {"promote_integers": promote}))  # noqa
    # (as JAX's np_fun: NumPy's 64-bit result cast to the result dtype, so an overflow wraps as it does in 8 bits)
    out_dtype = jax.eval_shape(lambda: fn(jnp, x)).dtype
    check(label, fn, [x], lambda v: np.asarray(fn(np, v)).astype(out_dtype), compiled=label == "sum-int8-no-promote")


# testReducerNoInitialZeroDims: a zero-size array reduced along a non-empty axis needs no initial value
ZERO_DIMS = [(f"{name}-{sh(shape)}-axis{axis}", name, shape, axis, k % 2 == 1)
             for k, (name, (shape, axis)) in enumerate(
                 zip(NAN_OPS_WITH_INITIAL, [((0, 4), 1), ((3, 0), 0), ((0, 4), -1), ((3, 0), -2)] * 2))]


@pytest.mark.parametrize("name, shape, axis, keepdims", params(ZERO_DIMS))
def test_reducer_no_initial_zero_dims(request, name, shape, axis, keepdims):
    label = request.node.callspec.id
    check(label, lambda m, v: getattr(m, name)(v, axis, keepdims=keepdims), [np.zeros(shape, F32)],
          compiled=name == "max")


# testReducerWhere: where masks of the input's shape or a trailing part of it, with initial 0 or 1
WHERE_INITIAL = [(f"{name}-{np.dtype(dt).name}-where{sh(ws)}-initial{init}", name, dt, ws, init)
                 for name, dt, ws, init in [
                     ("sum", F32, (3, 4), 0), ("prod", F32, (4,), 1), ("max", F32, (3, 4), 1), ("min", I32, (4,), 0),
                     ("nanprod", F32, (3, 4), 1), ("nansum", C64, (4,), 0), ("nanmax", F32, (4,), 0),
                     ("nanmin", F32, (3, 4), 1), ("sum", BOOL, (4,), 1)]]


@pytest.mark.parametrize("name, dtype, whereshape, initial", params(WHERE_INITIAL))
def test_reducer_where(request, name, dtype, whereshape, initial):
    label = request.node.callspec.id
    kind = {"prod": "small_positive", "nanprod": "small_positive"}.get(name, "some_nan" if "nan" in name else "default")
    x, where = draw(kind, (3, 4), dtype, label), mask(whereshape, label)
    if name == "nanprod":
        x[0, 1] = np.nan
    if name in ("nanmax", "nanmin"):  # (each row keeps a selected number: an empty slice is test_reducer_initial's)
        x[:, 0], where[..., 0] = 0.5, True
    check(label, lambda m, v: getattr(m, name)(v, 1, keepdims=name == "max", initial=initial, where=where), [x],
          compiled=name == "prod")


@pytest.mark.parametrize("name", NAN_OPS_WITH_INITIAL + WHERE_NO_INITIAL_OPS)
def test_where_must_be_boolean(name):
    x, where = np.zeros((10,), F32), np.ones(10, I32)
    kw = {"initial": F32(0)} if name in NAN_OPS_WITH_INITIAL else {}
    jax_raises(ValueError, lambda: getattr(jnp, name)(x, where=where, **kw),
               f"jnp.{name}: where must be None or a boolean array")
    with pytest.raises(ValueError, match="where must be None or a boolean array"):
        getattr(tnp, name)(x, where=where, **kw)


# testReducerWhereNoInitial
WHERE_NO_INITIAL = [(f"{name}-{np.dtype(dt).name}-{sh(shape)}-axis{axis}-where{sh(ws)}", name, dt, shape, axis,
                     ws, kd) for name, dt, shape, axis, ws, kd in [
    ("all", BOOL, (3, 4), 1, (3, 4), False), ("any", F32, (3, 4), 0, (4,), True),
    ("mean", I32, (3, 4), -1, (3, 4), False), ("var", F32, (3, 4), None, (4,), False),
    ("std", BOOL, (2, 1, 4), 0, (1, 4), True), ("nanmean", C64, (3, 4), 1, (4,), False),
    ("nanvar", F32, (3, 4), (0, 1), (3, 4), True), ("nanstd", F32, (3, 4), 0, (3, 4), False),
    ("var", C64, (3, 4), 1, (3, 4), False), ("std", C64, (3, 4), None, (4,), True)]]
WHERE_NO_INITIAL_XFAIL = {}  # (var/std of complex64 with where gave complex64: fixed)


@pytest.mark.parametrize("name, dtype, shape, axis, whereshape, keepdims",
                         params(WHERE_NO_INITIAL, WHERE_NO_INITIAL_XFAIL))
def test_reducer_where_no_initial(request, name, dtype, shape, axis, whereshape, keepdims):
    label = request.node.callspec.id
    x, where = draw("some_nan" if "nan" in name else "some_zero", shape, dtype, label), mask(whereshape, label)
    fn = lambda m, v: getattr(m, name)(v, axis, keepdims=keepdims, where=where)  # noqa: E731
    inexact = name not in ("all", "any")
    check(label, fn, [x], lambda v: fn(np, _inexact(v) if inexact else v), compiled=name == "nanstd")


def test_reduction_of_out_of_bounds_axis():
    jax_raises(ValueError, lambda: jnp.sum(jnp.ones((3, 4)), axis=2))
    with pytest.raises(ValueError):
        tnp.sum(np.ones((3, 4), F32), axis=2)


def test_reduction_with_repeated_axis_error():
    jax_raises(ValueError, lambda: jnp.sum(jnp.arange(3), (0, 0)), r"duplicate value in 'axis': \(0, 0\)")
    with pytest.raises(ValueError, match=r"duplicate value in 'axis': \(0, 0\)"):
        tnp.sum(np.arange(3, dtype=I32), (0, 0))


# -- testAverage (keepdims) / testAverageNDWeights -----------------------------------------------------------------
AVERAGE = [
    ("float32-axisNone-keepdims", F32, (3, 4), None, None, False),
    ("float32-axis1-weights1d-keepdims-returned", F32, (3, 4), 1, (4,), True),
    ("int32-axis0-weights-full-keepdims", I32, (3, 4), 0, (3, 4), False),
    ("complex64-axis-tuple-weights-full-keepdims-returned", C64, (2, 3, 4), (0, 2), (2, 3, 4), True),
    ("float32-axis(1,2)-weights(3,4)", F32, (2, 3, 4), (1, 2), (3, 4), False),
    ("float32-axis(2,0)-weights(4,2)", F32, (2, 3, 4), (2, 0), (4, 2), False),
    ("float32-axis(3,0,2,1)-weights(5,2,4,3)", F32, (2, 3, 4, 5), (3, 0, 2, 1), (5, 2, 4, 3), False),
]


@pytest.mark.parametrize("dtype, shape, axis, wshape, returned", params(AVERAGE))
def test_average(request, dtype, shape, axis, wshape, returned):
    label = request.node.callspec.id
    keepdims = "keepdims" in label
    x = draw("default", shape, dtype, label)
    if wshape is None:
        check(label, lambda m, v: m.average(v, axis, returned=returned, keepdims=keepdims), [x], compiled=True)
        return
    w = draw("positive", wshape, dtype, label)
    check(label, lambda m, v, u: m.average(v, axis, u, returned=returned, keepdims=keepdims), [x, w], tol=1e-5)


# -- testStdOrVar / testStdOrVarLargeDdofReturnsNan / testNanVar -----------------------------------------------------
# (id, name, input dtype, dtype=, shape, axis, ddof, correction, keepdims)
STD_VAR = [
    ("var-float32-ddof1", "var", F32, F32, (10, 5), 0, 1, None, False),
    ("std-int32-correction2", "std", I32, F32, (10, 5), None, 0, 2, True),
    ("var-bool-dtype-float16", "var", BOOL, F16, (10, 5), -1, 0, 1, False),
    ("std-complex64-dtype-complex64", "std", C64, C64, (5,), 0, 0, 1, False),
    ("var-int32-correction0", "var", I32, F32, (10, 5), -1, 0, 0, True),
    ("nanvar-float32-ddof2", "nanvar", F32, F32, (10, 5), 0, 2, None, True),
    ("nanvar-int32-dtype-float16", "nanvar", I32, F16, (5,), None, 1, None, False),
    ("nanvar-complex64-dtype-complex64", "nanvar", C64, C64, (10, 5), -1, 0, None, False),
]


@pytest.mark.parametrize("name, dtype, out_dtype, shape, axis, ddof, correction, keepdims", params(STD_VAR))
def test_std_or_var(request, name, dtype, out_dtype, shape, axis, ddof, correction, keepdims):
    label = request.node.callspec.id
    x = draw("some_nan" if name == "nanvar" else "default", shape, dtype, label)
    kw = dict(dtype=out_dtype, axis=axis, ddof=ddof, keepdims=keepdims)

    def np_fun(v):  # (NumPy's correction= is ddof's alias: given alone)
        return getattr(np, name)(v, **{**kw, "dtype": out_dtype, "ddof": ddof if correction is None else correction})
    check(label, lambda m, v: getattr(m, name)(v, **kw, **({} if correction is None else {"correction": correction})),
          [x], None if out_dtype == F16 else np_fun, tol=1e-1 if out_dtype == F16 else 1e-4,
          compiled=label == "var-float32-ddof1")


@pytest.mark.parametrize("name", ["var", "std"])
def test_std_or_var_correction_with_ddof_raises(name):
    x = np.arange(5.0, dtype=F32)
    jax_raises(ValueError, lambda: getattr(jnp, name)(x, ddof=1, correction=0))
    with pytest.raises(ValueError):
        getattr(tnp, name)(x, ddof=1, correction=0)


@pytest.mark.parametrize("name", ["var", "std"])
def test_std_or_var_complex_to_real_is_tf_s(name):
    # jax.numpy raises ValueError ("does not yet support real dtype parameters"); tj gives TF's tnp value, the (real)
    # variance of the complex values in the real dtype (TF's np_test testVar: test_tf_unported_np_test_part5_port)
    z = draw("default", (5,), C64, name)
    jax_raises(ValueError, lambda: getattr(jnp, name)(z, dtype=F32), "does not yet support real dtype parameters")
    got = getattr(tnp, name)(z, dtype=F32)
    assert got.dtype == F32
    np.testing.assert_allclose(got.numpy(), getattr(np, name)(z).astype(F32), rtol=1e-5)


@pytest.mark.parametrize("name", ["var", "std"])
def test_std_or_var_large_ddof_returns_nan(name):
    for size in (0, 1, 2):
        for ddof in (size, size + 1, size + 2):
            assert np.isnan(getattr(jnp, name)(np.arange(size, dtype=I32), ddof=ddof)), (size, ddof)
            assert np.isnan(getattr(tnp, name)(np.arange(size, dtype=I32), ddof=ddof).numpy()), (size, ddof)


def test_nanstd_grad():
    # the gradient of nanvar/nanstd skips the NaN entry (jax issue 8128): the tape's gradient, no NaN
    x = np.arange(5.0, dtype=F32)
    x[0] = np.nan
    for name in ("nanvar", "nanstd"):
        xt = tj.constant(x)
        with tj.GradientTape() as tape:
            tape.watch(xt)
            y = getattr(tnp, name)(xt)
        g = tape.gradient(y, xt).numpy()
        assert not np.isnan(g).any(), (name, g)
        np.testing.assert_allclose(g, jax.jit(jax.grad(getattr(jnp, name)))(x), rtol=1e-6, atol=1e-7)
        if name == "nanvar":
            np.testing.assert_allclose(g, [0.0, -0.75, -0.25, 0.25, 0.75], rtol=1e-6)


# testReducerWithMean: a mean given beforehand (mean=, of the keepdims shape)
WITH_MEAN = [
    ("var-float32-(10,5)-axis0", "var", F32, (10, 5), 0, 1, False),
    ("std-int32-(5,)-axisNone", "std", I32, (5,), None, 0, True),
    ("nanvar-float32-(5,4,3)-axis(0,2)", "nanvar", F32, (5, 4, 3), (0, 2), 1, False),
    ("nanstd-float32-(10,5)-axis(0,1)", "nanstd", F32, (10, 5), (0, 1), 0, True),
    ("var-complex64-(5,4,3)-axis(1,-1)", "var", C64, (5, 4, 3), (1, -1), 0, True),
]


@pytest.mark.parametrize("name, dtype, shape, axis, ddof, keepdims", params(WITH_MEAN))
def test_reducer_with_mean(request, name, dtype, shape, axis, ddof, keepdims):
    label = request.node.callspec.id
    x = draw("some_nan" if "nan" in name else "default", shape, dtype, label)
    mean_shape = np.mean(np.zeros(shape), axis=axis, keepdims=True).shape
    mu = draw("default", mean_shape, C64 if dtype == C64 else F32, "mean", label)
    check(label, lambda m, v, u: getattr(m, name)(v, axis=axis, ddof=ddof, keepdims=keepdims, mean=u), [x, mu],
          lambda v, u: getattr(np, name)(_inexact(v), axis=axis, ddof=ddof, keepdims=keepdims, mean=u), tol=1e-4,
          compiled=name == "nanvar")


# -- testCov / testEmptyCov / testCovTransposeBehavior / testCovDtype --------------------------------------------------
# (id, m shape, dtype, y shape, rowvar, bias, ddof, fweights, aweights)
COV = [
    ("float32-y-rowvar", (3, 5), F32, (2, 5), True, False, None, False, False),
    ("float32-y-not-rowvar-bias", (5, 3), F32, (5, 2), False, True, None, False, False),
    ("complex64-ddof2", (3, 5), C64, None, True, False, 2, False, False),
    ("int32-1d-y-ddof3", (5,), I32, (5,), True, False, 3, False, False),
    ("float32-fweights", (3, 5), F32, None, True, False, None, True, False),
    ("float32-aweights-not-rowvar", (5, 3), F32, None, False, False, None, False, True),
    ("int32-fweights-aweights-ddof2", (3, 5), I32, None, True, False, 2, True, True),
]


@pytest.mark.parametrize("shape, dtype, y_shape, rowvar, bias, ddof, fw, aw", params(COV))
def test_cov(request, shape, dtype, y_shape, rowvar, bias, ddof, fw, aw):
    label = request.node.callspec.id
    m = draw("default", shape, dtype, label)
    y = None if y_shape is None else draw("default", y_shape, dtype, "y", label)
    n = shape[-1] if rowvar or shape[0] == 1 else shape[0]
    f = rng_for("fweights", label).integers(1, 4, n) if fw else None
    a = draw("positive", (n,), F32, "aweights", label) if aw else None
    kw = dict(rowvar=rowvar, bias=bias, ddof=ddof, fweights=f, aweights=a)
    check(label, lambda mod, v: mod.cov(v, y, **kw), [m], tol=1e-4, compiled=label == "float32-y-rowvar")


@pytest.mark.parametrize("shape, rowvar", [((0,), True), ((3, 0), True), ((3, 0), False), ((0, 5), False),
                                           ((0, 5), True)])
def test_empty_cov(shape, rowvar):
    check(f"cov{sh(shape)}-rowvar={rowvar}", lambda m, v: m.cov(v, rowvar=rowvar), [np.zeros(shape, F32)])


@pytest.mark.parametrize("shape, rowvar", [
    ((1, 3), False), ((1, 3), True), ((3, 1), True), ((3, 1), False)])
def test_cov_transpose_behavior(shape, rowvar):
    x = draw("default", shape, F32, shape, rowvar)
    check(f"cov{sh(shape)}-rowvar={rowvar}", lambda m, v: m.cov(v, rowvar=rowvar, ddof=0), [x])


def test_cov_dtype():
    x = np.arange(5, dtype=I32)
    assert tnp.cov(x, dtype="bfloat16").dtype == jnp.cov(x, dtype="bfloat16").dtype == jnp.bfloat16
    jax_raises(ValueError, lambda: jnp.cov(x, dtype=int), "cov: dtype must be a subclass of float or complex")
    with pytest.raises(ValueError):
        tnp.cov(x, dtype=int)


# -- testQuantile / testPercentilePrecision / testMedian / testWeightedQuantile ---------------------------------------
# q values whose index (n - 1) * q is far from an integer and a half for every count n <= 12 of a slice
Q = np.array([0.37, 0.81], F32)
QUANTILE = [
    ("nanquantile-float32-(7,)-linear", "nanquantile", F32, (7,), None, Q[:1], "linear", False),
    ("nanpercentile-float32-(6,7)-lower-keepdims", "nanpercentile", F32, (6, 7), None, Q * 100, "lower", True),
    ("nanquantile-int32-(9,7)-axis0-higher", "nanquantile", I32, (9, 7), 0, Q, "higher", False),
    ("nanpercentile-float32-(4,11)-axis1-nearest", "nanpercentile", F32, (4, 11), 1, F32(37.0), "nearest", True),
    ("quantile-float32-(4,9,7)-axis(1,2)-midpoint", "quantile", F32, (4, 9, 7), (1, 2), Q, "midpoint", True),
    ("percentile-int32-(4,9,7)-axis(0,2)-lower", "percentile", I32, (4, 9, 7), (0, 2), Q[1:] * 100, "lower", False),
    ("nanquantile-float32-(4,9,7)-axis(1,0,2)-nearest", "nanquantile", F32, (4, 9, 7), (1, 0, 2), Q, "nearest", True),
    ("quantile-float32-(9,7)-axis()-linear", "quantile", F32, (9, 7), (), Q[:1], "linear", False),
]


@pytest.mark.parametrize("op, dtype, shape, axis, q, method, keepdims", params(QUANTILE))
def test_quantile(request, op, dtype, shape, axis, q, method, keepdims):
    label = request.node.callspec.id
    a = draw("some_nan", shape, dtype, label)
    check(label, lambda m, v, w: getattr(m, op)(v, w, axis=axis, keepdims=keepdims, method=method), [a, q],
          tol=2e-4, compiled=op == "quantile" and method == "midpoint")


def test_percentile_precision():
    # (x64-only in JAX: jax issue 8513) float64 under jax.enable_x64, for this one case
    with jax.enable_x64(True):
        got = tnp.percentile(np.array([1, 2, 3, 4, 7, 10], F64), 50)
        assert got.dtype == F64 and got.numpy() == 3.5


MEDIAN = [("median-float32-(7,)", "median", F32, (7,), None, False),
          ("nanmedian-int32-(6,7)-keepdims", "nanmedian", I32, (6, 7), None, True),
          ("median-int32-(9,7)-axis0-keepdims", "median", I32, (9, 7), 0, True),
          ("nanmedian-float32-(4,11)-axis1", "nanmedian", F32, (4, 11), 1, False)]


@pytest.mark.parametrize("op, dtype, shape, axis, keepdims", params(MEDIAN))
def test_median(request, op, dtype, shape, axis, keepdims):
    label = request.node.callspec.id
    a = draw("some_nan" if op == "nanmedian" else "default", shape, dtype, label)
    check(label, lambda m, v: getattr(m, op)(v, axis=axis, keepdims=keepdims), [a], tol=2e-4,
          compiled=op == "nanmedian" and axis == 1)


WEIGHTED = [("quantile-(10,)-axis0", "quantile", (10,), 0, False),
            ("nanquantile-(4,3,5)-axis-1-keepdims", "nanquantile", (4, 3, 5), -1, True),
            ("nanpercentile-(2,3,4,5)-axis0", "nanpercentile", (2, 3, 4, 5), 0, True)]


@pytest.mark.parametrize("op, shape, axis, keepdims", params(WEIGHTED))
def test_weighted_quantile(request, op, shape, axis, keepdims):
    label = request.node.callspec.id
    a = draw("some_nan" if op.startswith("nan") else "default", shape, F32, label)
    w = draw("positive", shape, F32, "weights", label)
    q = np.array([0.25, 0.5, 0.75], F32) * (100 if "percentile" in op else 1)
    check(label, lambda m, v, u: getattr(m, op)(v, q, axis=axis, weights=u, method="inverted_cdf", keepdims=keepdims),
          [a, w], compiled=op == "quantile")


# -- testMeanVeryLargeArray / test_f16_mean ---------------------------------------------------------------------------
def test_mean_very_large_array():
    # 2**32 elements: the divisor must not overflow int32 while tracing (jax pull 30769); shapes only, nothing runs
    out = jax.eval_shape(lambda v: tnp.mean(v).value, jax.ShapeDtypeStruct((1 << 32,), jnp.float32))
    assert (out.shape, out.dtype) == ((), jnp.float32)


@pytest.mark.parametrize("dtype", [np.dtype(F16), np.dtype(jnp.bfloat16)], ids=["float16", "bfloat16"])
def test_f16_mean(dtype):
    # accumulated in float32: 100000 x 1e-5 in float16 would saturate
    x = np.full(100_000, 1e-5, dtype=dtype)
    want = np.mean(x.astype(F64)).astype(dtype)
    got = tnp.mean(x)
    assert got.dtype == dtype == jnp.mean(x).dtype
    assert got.numpy() == want == jnp.mean(x)


# -- testCumulativeSum / testCumulativeSumErrors / testCumulativeSumBool / testCumulativeProd --------------------------
# (id, op, input dtype, shape, axis, dtype=, include_initial)
CUMULATIVE = [
    ("sum-float32-(3,4)-axis1-initial", "cumulative_sum", F32, (3, 4), 1, None, True),
    ("sum-int32-(4,)-to-float32", "cumulative_sum", I32, (4,), None, F32, False),
    ("sum-bool-(4,)-initial", "cumulative_sum", BOOL, (4,), None, None, True),
    ("sum-empty-(0,)-initial", "cumulative_sum", F32, (0,), None, None, True),
    ("sum-(3,0)-axis1-initial", "cumulative_sum", F32, (3, 0), 1, None, True),
    ("sum-complex64-(3,4)-axis-2", "cumulative_sum", C64, (3, 4), -2, C64, False),
    ("prod-float32-(3,4)-axis-2-initial", "cumulative_prod", F32, (3, 4), -2, None, True),
    ("prod-int32-(3,4)-axis1-to-int8", "cumulative_prod", I32, (3, 4), 1, I8, False),
    ("prod-uint8-(4,)-initial", "cumulative_prod", U8, (4,), None, None, True),
    ("prod-bool-(3,4)-axis0-to-float32", "cumulative_prod", BOOL, (3, 4), 0, F32, True),
    ("sum-int8-(4,)", "cumulative_sum", I8, (4,), None, None, False),
    ("sum-uint8-(3,4)-axis1-initial", "cumulative_sum", U8, (3, 4), 1, None, True),
    ("sum-float32-(3,4)-axis0-to-bool", "cumulative_sum", F32, (3, 4), 0, BOOL, False),
    ("prod-int32-(4,)-to-bool-initial", "cumulative_prod", I32, (4,), None, BOOL, True),
]
CUMULATIVE_XFAIL = {}  # (cumulative_sum of int8/uint8 gave int8/uint8: fixed)


@pytest.mark.parametrize("op, dtype, shape, axis, out_dtype, include_initial", params(CUMULATIVE, CUMULATIVE_XFAIL))
def test_cumulative(request, op, dtype, shape, axis, out_dtype, include_initial):
    label = request.node.callspec.id
    x = draw("small_positive" if op == "cumulative_prod" else "some_zero", shape, dtype, label)
    check(label, lambda m, v: getattr(m, op)(v, axis=axis, dtype=out_dtype, include_initial=include_initial), [x],
          compiled=label.startswith(("sum-float32-(3,4)-axis1", "prod-float32")))


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
def test_cumulative_signature(name):
    jax_raises(TypeError, lambda: getattr(jnp, name)(jnp.ones(3), 0))
    assert_same_signature(getattr(tnp, name), getattr(jnp, name))


@pytest.mark.parametrize("shape", [(), (3, 4)])
@pytest.mark.parametrize("include_initial", [False, True])
def test_cumulative_sum_errors(shape, include_initial):
    # a scalar, or an array of rank > 1 without an axis
    x = draw("some_zero", shape, F32, shape)
    jax_raises(ValueError, lambda: jnp.cumulative_sum(x, include_initial=include_initial),
               r"The input must be non-scalar" if x.ndim == 0 else r"The input array has rank \d*, however")
    with pytest.raises(ValueError):
        tnp.cumulative_sum(x, include_initial=include_initial)


def test_cumulative_sum_bool():
    out = tnp.cumulative_sum(np.array([[0.1], [0.1], [0.0]], F32), axis=-1, dtype=BOOL)
    assert out.dtype == BOOL
    np.testing.assert_array_equal(out.numpy(), [[True], [True], [False]])


# -- gradients of the new arguments: tape against jax.vjp, ForwardAccumulator against jax.jvp -------------------------
WHERE34 = mask((3, 4), "grad")
ROW4 = mask((4,), "grad-row")
# (id, fn(m, *args), [(kind, shape), ...]: float32 arguments, all differentiated)
GRADS = [
    ("sum-where-initial", lambda m, x: m.sum(x, 1, initial=2.0, where=WHERE34), [("default", (3, 4))]),
    ("prod-where-initial-keepdims", lambda m, x: m.prod(x, 0, keepdims=True, initial=0.5, where=ROW4),
     [("small_positive", (3, 4))]),
    ("max-where-initial", lambda m, x: m.max(x, 1, initial=-10.0, where=WHERE34), [("default", (3, 4))]),
    ("nanmax-axis0", lambda m, x: m.nanmax(x, 0), [("some_nan", (3, 4))]),
    ("mean-where", lambda m, x: m.mean(x, 0, where=WHERE34), [("default", (3, 4))]),
    ("var-mean-ddof1", lambda m, x, u: m.var(x, 1, ddof=1, mean=u, keepdims=True),
     [("default", (3, 4)), ("default", (3, 1))]),
    ("std-correction-where", lambda m, x: m.std(x, 1, correction=1, where=WHERE34), [("default", (3, 4))]),
    ("nanvar-ddof1", lambda m, x: m.nanvar(x, 0, ddof=1), [("some_nan", (5, 3))]),
    ("average-weights-keepdims", lambda m, x, w: m.average(x, 1, w, keepdims=True), [("default", (3, 4)),
                                                                                     ("positive", (4,))]),
    ("cumulative_sum-initial", lambda m, x: m.cumulative_sum(x, axis=0, include_initial=True), [("default", (3, 4))]),
    ("cumulative_prod-initial", lambda m, x: m.cumulative_prod(x, axis=1, include_initial=True),
     [("positive", (3, 4))]),
    ("quantile-linear-keepdims", lambda m, x: m.quantile(x, Q, axis=(1, 2), keepdims=True), [("default", (2, 3, 4))]),
    ("nanpercentile-midpoint", lambda m, x: m.nanpercentile(x, 37.0, axis=1, method="midpoint"),
     [("some_nan", (3, 7))]),
    ("median-axis0", lambda m, x: m.median(x, 0), [("default", (5, 3))]),
    ("cov-y", lambda m, x, y: m.cov(x, y), [("default", (2, 5)), ("default", (5,))]),
]


@pytest.mark.parametrize("fn, arg_specs", params(GRADS))
def test_gradient_matches_jax(request, fn, arg_specs):
    label = request.node.callspec.id
    args = [draw(kind, shape, F32, label, k) for k, (kind, shape) in enumerate(arg_specs)]
    g = rng_for("cotangent", label)
    ct = g.standard_normal(jax.eval_shape(lambda *a: fn(jnp, *a), *args).shape).astype(F32)
    tangents = [g.standard_normal(a.shape).astype(F32) for a in args]
    want_g, want_t = jax_vjp_jvp(fn, args, ct, tangents)
    xs = [tj.constant(a) for a in args]
    with tj.GradientTape() as tape:
        tape.watch(xs)
        y = fn(tnp, *xs)
    grads = tape.gradient(y, xs, output_gradients=tj.constant(ct))
    for got, want in zip(grads, want_g):
        np.testing.assert_allclose(got.numpy(), want, rtol=2e-4, atol=2e-5, err_msg=label)
    primals = [tj.constant(a) for a in args]
    with tj.ForwardAccumulator(primals, [tj.constant(t) for t in tangents]) as acc:
        y = fn(tnp, *primals)
    np.testing.assert_allclose(acc.jvp(y).numpy(), want_t, rtol=2e-4, atol=2e-5, err_msg=label)


def test_complex_var_gradient_in_tf_convention():
    # API.md: for a real loss of a complex z, tape.gradient is conj(jax.grad); var(z) gives 2 (z - mean) / n
    z = draw("default", (6,), C64, "complex-var")
    zt = tj.constant(z)
    with tj.GradientTape() as tape:
        tape.watch(zt)
        y = tnp.var(zt, where=np.arange(6) != 2)
    want = np.conj(jax.jit(jax.grad(lambda v: jnp.var(v, where=np.arange(6) != 2)))(z))
    got = tape.gradient(y, zt).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    sel = np.arange(6) != 2
    np.testing.assert_allclose(got[sel], 2 * (z[sel] - z[sel].mean()) / 5, rtol=1e-5, atol=1e-6)
    assert got[2] == 0


def test_compiled_matches_eager():
    # _CompileAndCheck for the functions the cases above run eagerly only: one tj.function computing all of them
    x, xn = draw("default", (3, 4), F32, "compiled"), draw("some_nan", (3, 4), F32, "compiled")
    z = draw("default", (3, 4), C64, "compiled")
    fns = [lambda m, a, b, c: m.nanmean(b, 1), lambda m, a, b, c: m.nansum(b, 0, initial=1.0),
           lambda m, a, b, c: m.nanprod(b, 1, where=WHERE34), lambda m, a, b, c: m.nanmax(b, 0, initial=-1.0),
           lambda m, a, b, c: m.nanmin(b, None, keepdims=True), lambda m, a, b, c: m.ptp(c, 1),
           lambda m, a, b, c: m.mean(a, 0, where=WHERE34), lambda m, a, b, c: m.min(a, 1, initial=0.0, where=ROW4),
           lambda m, a, b, c: m.all(a > 0, 1, where=WHERE34), lambda m, a, b, c: m.any(a > 2, 0, keepdims=True),
           lambda m, a, b, c: m.std(a, 1, correction=1), lambda m, a, b, c: m.var(a, where=WHERE34),
           lambda m, a, b, c: m.nanstd(b, 0, mean=m.nanmean(b, 0, keepdims=True)),
           lambda m, a, b, c: m.median(a, 1, keepdims=True), lambda m, a, b, c: m.percentile(a, 81.0, 0),
           lambda m, a, b, c: m.nanpercentile(b, Q * 100, 1, method="higher"),
           lambda m, a, b, c: m.nanquantile(b, Q, None, method="lower")]
    eager = [f(tnp, x, xn, z) for f in fns]
    compiled = tj.function(lambda a, b, c: [f(tnp, a, b, c) for f in fns])(x, xn, z)
    want = jax.jit(lambda a, b, c: [f(jnp, a, b, c) for f in fns])(x, xn, z)  # (one XLA program)
    for k, (e, c, j) in enumerate(zip(eager, compiled, want)):
        assert_like_jax(f"function {k}", e, j, 1e-5)
        assert (c.shape, c.dtype) == (e.shape, e.dtype), k
        np.testing.assert_allclose(_wide(c.numpy()), _wide(e.numpy()), rtol=1e-5, atol=1e-6, equal_nan=True,
                                   err_msg=str(k))
