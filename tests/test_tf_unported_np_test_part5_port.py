"""TensorFlow's np_test.py (JAX's lax_numpy_test run on tf.experimental.numpy), last part, ported to tapejax.

Source: tensorflow/python/ops/numpy_ops/tests/np_test.py (TF 2.21), the test methods whose ``def`` lies at
character offsets 118000 to the end: the tail of LaxBackedNumpyTests (from testIssue883) and NumpyGradTests.
TensorFlow is not imported.

Mapping: ``tnp`` (tf.experimental.numpy) -> ``tj.numpy``; ``nje.jit`` and ``_CompileAndCheck`` -> ``tj.function``
(the compiled result must equal the eager one); ``check_grads(..., ["fwd", "rev"])`` -> ``tj.GradientTape`` (nested
for order 2) and ``tj.ForwardAccumulator`` (nested for order 2); ``tnp.ndarray`` -> ``tj.Tensor``; TF's
InvalidArgumentError -> NumPy's exception class (tj raises AxisError, a ValueError and an IndexError, for axes).

References: as in np_test, values are checked against NumPy, which runs at test time (float64 NumPy); dtypes are
checked against jax.numpy on the same arguments (``jax.eval_shape``; x64 off: float32/int32/complex64), and where
np_test promotes with TF's rules (``tnp.promote_types(float32, dtype)`` in testVar) the NumPy input is cast to
``jnp.promote_types`` instead. TF 2.21 was run on np_test's grids for var (float32/int32/bool/complex64 inputs,
float32/complex64 results, every axis and ddof), linspace, logspace and geomspace (every start/stop shape pair, num,
endpoint, base, float32/complex64/None, every axis) and meshgrid, and agrees with NumPy there (np_test's
tolerances). Gradients, second derivatives and JVPs are TF 2.21's, hard-coded (float32 and complex64 where np_test
uses float64), and for the NumpyGradTests ops also checked against closed-form derivatives in float64 NumPy.

Ported (grids sampled: every op and argument kind, not every combination; a scalar and an empty shape added where
the op takes them; linspace/logspace/geomspace on every valid axis of the result for num=5, the last axis otherwise;
added beyond np_test: float16 and int32 cases, meshgrid's sparse=True and empty inputs):
  testIssue883 (a compiled function called twice with the same arguments), testReductionOfOutOfBoundsAxis,
  testVar (plus its gradient, TF's values), testIssue967, testMeshGrid (plus a gradient), testLinspace, testLogspace,
  testGeomspace (plus gradients with respect to start and stop), testStackArrayArgument, testStackInvalidAxis,
  testBroadcastTo (plus its gradient), testBroadcastToIssue1522, testBroadcastToIntIssue1548,
  testBroadcastToOnScalar, testIssue956 (as ``tj.Tensor`` refusing a shape).
  Ported although TF skips them (``@jtu.disable``): testCov and testCorrCoef (TF's tnp has neither function),
  testDisableNumpyRankPromotionBroadcasting (jax's ``jax_numpy_rank_promotion`` option, which tj.numpy honours as
  jax.numpy does), testPrecision (the ``precision=`` argument of dot, matmul, vdot, tensordot, einsum and inner,
  checked in the jaxpr as JAX's assert_dot_precision does), and NumpyGradTests.testOpGrad,
  testOpGradSpecialValue and testTakeAlongAxisIssue1521.

Left out:
  testReluGradientConstants (disabled in TF: which constants JAX's partial evaluation hoists into a jaxpr, a JAX
  internal with no tapejax counterpart); testSortKeyValue (``nje.sort_key_val``, a TF extension like
  ``jax.lax.sort_key_val``: neither jax.numpy nor tj.numpy has it).

Sanctioned differences (API.md: tj.numpy follows jax.numpy's names, signatures and NumPy rules, JAX's x64 off):
  * dtypes are jax.numpy's: Python ints and floats are int32/float32 (TF's tnp: int64/float64 for
    broadcast_to(1, ...) and broadcast_to(10.0, ())), and var of int or bool input is float32 (TF: float64);
  * concatenate of one 2-d array (testStackArrayArgument) joins its rows, shape (4,), as NumPy and jax.numpy; TF's
    tnp returns the (2, 2) array unchanged;
  * out-of-range stack axes raise NumPy's AxisError ("out of bounds", np_test's pattern; TF 2.21 raises ValueError
    "not in range"), and sum over a missing axis raises AxisError (TF: InvalidArgumentError);
  * np_test's testCorrCoef passes bias= and ddof=, which NumPy ignores (deprecated) and jax.numpy's corrcoef does
    not take: left out of the calls.

Found by this port and fixed:
  * test_var_of_complex_with_real_dtype: tj.numpy.var(complex x, dtype=float32) cast x to float32 first and returned
    the variance of the real parts, silently (NumPy and TF 2.21: the variance of the complex values, mean |x - m|^2;
    jax.numpy raises). tj.numpy.std did the same.
  * test_issue956_tensor_is_not_a_shape_constructor: tj.Tensor((1, 1)) wrapped the tuple without a check (TF's
    tnp.ndarray((1, 1)) raises TypeError); the Tensor failed later, on ``.shape``, with AttributeError.
"""
from __future__ import annotations

import itertools
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from conftest import accumulator_jvp, close_to_tf, nested_tape_gradients

tnp = tj.numpy


def _arg(rng, shape, dtype, low=None, high=None):
    """A test argument as np_test's rand_default makes one (normal, scale 3; integers rounded, bools by sign), or
    uniform in [low, high) when given; complex values get an imaginary part of the same kind."""
    def draw():
        return rng.uniform(low, high, shape) if low is not None else rng.standard_normal(shape) * 3
    x = draw()
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * draw()
    if np.issubdtype(dtype, np.integer):
        x = np.round(x)
    if dtype == np.bool_:
        x = x > 0
    return np.asarray(x).astype(dtype)


def _check_values(got, want, rtol, atol=None, dtype=None):
    """``got`` (a Tensor) against NumPy's ``want``: the shape, the dtype (``dtype``, jax.numpy's), and the values."""
    want = np.asarray(want)
    assert isinstance(got, tj.Tensor), type(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    if dtype is not None:
        assert got.dtype == dtype, (got.dtype, dtype)
    np.testing.assert_allclose(np.asarray(got.numpy(), want.dtype), want, rtol=rtol,
                               atol=rtol if atol is None else atol, equal_nan=True)


def _jax_dtype(jnp_fn, *args, **kwargs):
    """The dtype jax.numpy's ``jnp_fn`` gives on these arguments (traced abstractly: nothing compiled)."""
    return jax.eval_shape(lambda *a: jnp_fn(*a, **kwargs), *args).dtype


def _compiled_matches_eager(fn, *args, rtol=1e-6):
    """np_test's _CompileAndCheck: ``fn`` inside tj.function gives the eager result (structure, dtypes, values)."""
    eager, compiled = fn(*args), tj.function(fn)(*args)
    is_tensor = (lambda t: isinstance(t, tj.Tensor))
    e_leaves, c_leaves = (jax.tree_util.tree_leaves(r, is_leaf=is_tensor) for r in (eager, compiled))
    assert len(e_leaves) == len(c_leaves)
    for e, c in zip(e_leaves, c_leaves):
        assert isinstance(c, tj.Tensor) and (c.shape, c.dtype) == (e.shape, e.dtype)
        np.testing.assert_allclose(c.numpy(), e.numpy(), rtol=rtol, atol=rtol, equal_nan=True)


# --- testIssue883 -------------------------------------------------------------------------------------------------

def test_issue883_compiled_function_called_twice():
    # JAX issue 883: a jitted function with an unused second argument, called twice with the same arguments (the
    # second call reuses the first trace). nje.jit's static_argnums has no tj.function counterpart: v is passed as a
    # Tensor and as a Python tuple (a static value for tj.function, as for tf.function).
    traces = []

    @tj.function
    def f(x, v):
        traces.append(1)
        return x

    x = tnp.ones((10, 10))
    for v in (tnp.array([1, 2, 3]), (1, 2, 3)):
        first, second = f(x, v), f(x, v)
        for out in (first, second):
            _check_values(out, np.ones((10, 10)), 0, dtype=jnp.float32)
    assert len(traces) == 2  # one trace per signature, reused by the second call


# --- testReductionOfOutOfBoundsAxis (JAX issue 888) ----------------------------------------------------------------

@pytest.mark.parametrize("axis", [2, -3, (0, 2)])
def test_reduction_of_out_of_bounds_axis(axis):
    x = tnp.ones((3, 4))
    with pytest.raises(ValueError, match="out of"):  # TF: InvalidArgumentError; NumPy and tj: AxisError
        tnp.sum(x, axis=axis)


# --- testIssue956 and testIssue967 ------------------------------------------------------------------------------

def test_issue956_tensor_is_not_a_shape_constructor():
    # tnp.ndarray((1, 1)) must not make an uninitialized 1x1 array (NumPy's ndarray would); TF's tnp.ndarray is
    # tf.Tensor, whose constructor raises TypeError. tj's array type is tj.Tensor.
    with pytest.raises((TypeError, ValueError)):
        tj.Tensor((1, 1))


def test_issue967_zeros_of_float_shape():
    with pytest.raises(TypeError):  # TF: TypeError ("Cannot convert 1.5 to EagerTensor of dtype int32")
        tnp.zeros(1.5)


# --- testVar -------------------------------------------------------------------------------------------------------

_VAR_IN = [np.float32, np.int32, np.bool_, np.complex64]
_VAR_OUT = [np.float32, np.complex64]
_VAR_CASES = [
    (shape, dtype, out, axis, ddof, keepdims)
    for (shape, dtype, out), (axis, ddof, keepdims) in zip(
        [(s, d, o) for s in [(5,), (10, 5)] for d in _VAR_IN for o in _VAR_OUT
         if not (np.issubdtype(d, np.complexfloating) and not np.issubdtype(o, np.complexfloating))],
        itertools.cycle(itertools.product([None, 0, -1], [0, 1, 2], [False, True])))
] + [
    ((), np.float32, np.float32, None, 0, False),
    ((10, 5), np.float16, np.float32, 0, 1, True),
    ((10, 5), np.float32, np.float16, -1, 2, False),
    ((3, 0), np.float32, np.float32, 0, 0, False),  # zero-size result
    ((3, 0), np.float32, np.float32, -1, 0, True),  # no entries: NaN (NumPy warns)
    ((10, 5), np.int32, None, 0, 1, False),  # no dtype=: float32 (jax.numpy; TF's tnp: float64)
    ((5,), np.bool_, None, None, 0, True),
]


@pytest.mark.parametrize("shape,dtype,out_dtype,axis,ddof,keepdims", _VAR_CASES)
def test_var(shape, dtype, out_dtype, axis, ddof, keepdims):
    x = _arg(np.random.RandomState(0), shape, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (the empty reductions)
        want = np.var(x.astype(jnp.promote_types(np.float32, dtype)), axis=axis, ddof=ddof,
                      keepdims=keepdims).astype(out_dtype)
    jax_dtype = _jax_dtype(jnp.var, x, dtype=out_dtype, axis=axis, ddof=ddof, keepdims=keepdims)
    got = tnp.var(x, dtype=out_dtype, axis=axis, ddof=ddof, keepdims=keepdims)
    _check_values(got, want, 1e-1 if np.float16 in (dtype, out_dtype) else 1e-3, dtype=jax_dtype)
    _compiled_matches_eager(lambda a: tnp.var(a, dtype=out_dtype, axis=axis, ddof=ddof, keepdims=keepdims), x,
                            rtol=1e-3)


def test_var_of_complex_with_real_dtype():
    x = _arg(np.random.RandomState(0), (10, 5), np.complex64)
    want = np.var(x, axis=0, ddof=1).astype(np.float32)  # TF 2.21 agrees
    _check_values(tnp.var(x, dtype=np.float32, axis=0, ddof=1), want, 1e-3, dtype=jnp.float32)
    _check_values(tnp.std(x, dtype=np.float32, axis=0, ddof=1), np.sqrt(want), 1e-3, dtype=jnp.float32)
    with pytest.raises(TypeError, match="complex"):  # (an integer dtype cannot hold it; jax.numpy refuses any)
        tnp.var(x, dtype=np.int32)


def test_var_gradient():
    # Not in np_test (no check_grads for var): TF 2.21's tape gradients of tnp.var.
    x = np.array([[1.0, -2.0, 0.5], [3.0, 0.25, -1.5]], np.float32)
    xt = tj.constant(x)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(xt)
        by_column = tnp.var(xt, axis=0, ddof=1)
        whole = tnp.var(xt, keepdims=True)
    close_to_tf(tape.gradient(by_column, xt, output_gradients=[1.0, 2.0, -1.0]),
                [[-2.0, -4.5, -2.0], [2.0, 4.5, 2.0]], 1e-6, 1e-6)
    close_to_tf(tape.gradient(whole, xt), [[0.2638889, -0.7361111, 0.09722223], [0.9305556, 0.013888891, -0.5694445]],
                1e-5, 1e-6)
    got = tj.function(lambda a: _one_gradient(lambda b: tnp.var(b, keepdims=True), a))(x)
    close_to_tf(got, [[0.2638889, -0.7361111, 0.09722223], [0.9305556, 0.013888891, -0.5694445]], 1e-5, 1e-6)


def _one_gradient(f, x):
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x)


# --- testCov and testCorrCoef (disabled in TF: its tnp has neither) ------------------------------------------------

_COV_CASES = [
    (shape, dtype, rowvar, bias, ddof)
    for (shape, dtype), (rowvar, bias, ddof) in zip(
        [(s, d) for s in [(5,), (10, 5), (5, 10)] for d in [np.float32, np.int32, np.bool_, np.complex64]],
        itertools.cycle(itertools.product([True, False], [True, False], [None, 2, 3])))
]


@pytest.mark.parametrize("shape,dtype,rowvar,bias,ddof", _COV_CASES)
def test_cov(shape, dtype, rowvar, bias, ddof):
    x = _arg(np.random.RandomState(1), shape, dtype)
    want = np.cov(x, rowvar=rowvar, ddof=ddof, bias=bias)
    got = tnp.cov(x, rowvar=rowvar, ddof=ddof, bias=bias)
    _check_values(got, want, 1e-4, dtype=_jax_dtype(jnp.cov, x, rowvar=rowvar, ddof=ddof, bias=bias))
    _compiled_matches_eager(lambda a: tnp.cov(a, rowvar=rowvar, ddof=ddof, bias=bias), x, rtol=1e-5)


@pytest.mark.parametrize("shape,dtype,rowvar", [
    ((5,), np.float32, True), ((10, 5), np.float32, False), ((3, 10), np.int32, True), ((10, 5), np.complex64, True),
    ((3, 10), np.float16, False),
])
def test_corrcoef(shape, dtype, rowvar):
    # np_test also passes bias= and ddof=, which NumPy ignores (deprecated) and jax.numpy's signature does not take.
    x = _arg(np.random.RandomState(2), shape, dtype)
    want = np.corrcoef(x.astype(np.float64 if dtype != np.complex64 else np.complex128), rowvar=rowvar)
    got = tnp.corrcoef(x, rowvar=rowvar)
    _check_values(got, want, 1e-2 if dtype == np.float16 else 1e-4, dtype=_jax_dtype(jnp.corrcoef, x, rowvar=rowvar))
    _compiled_matches_eager(lambda a: tnp.corrcoef(a, rowvar=rowvar), x, rtol=1e-4)


# --- testMeshGrid --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("lengths", [(), (5,), (5, 3), (0, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.complex64])
@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid(lengths, dtype, indexing):
    xs = [_arg(np.random.RandomState(3), (n,), dtype) for n in lengths]
    want = np.meshgrid(*xs, indexing=indexing)
    got = tnp.meshgrid(*xs, indexing=indexing)
    assert isinstance(got, list) and len(got) == len(want)
    for g, w in zip(got, want):
        _check_values(g, w, 0, dtype=jnp.dtype(dtype))
    if xs:
        _compiled_matches_eager(lambda *a: tnp.meshgrid(*a, indexing=indexing), *xs)


def test_meshgrid_float16_and_sparse():
    # float16 once; sparse=True (np_test leaves it out: "TODO: make sparse work") gives NumPy's broadcastable pieces.
    u, v = np.linspace(-1, 1, 4).astype(np.float16), np.arange(3, dtype=np.float16)
    for sparse in (False, True):
        for g, w in zip(tnp.meshgrid(u, v, sparse=sparse), np.meshgrid(u, v, sparse=sparse)):
            _check_values(g, w, 0, dtype=jnp.float16)


def test_meshgrid_gradient():
    # Not in np_test: TF 2.21's gradients of sum(X * Y * w) for (X, Y) = meshgrid(u, v).
    weights = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    u, v = tj.constant([1.0, 2.0]), tj.constant([3.0, 4.0, 5.0])
    with tj.GradientTape() as tape:
        tape.watch([u, v])
        big_x, big_y = tnp.meshgrid(u, v)
        s = tnp.sum(big_x * big_y * weights)
    gu, gv = tape.gradient(s, [u, v])
    close_to_tf(gu, [28.0, 40.0], 1e-6)
    close_to_tf(gv, [2.0, 8.0, 14.0], 1e-6)


# --- testLinspace, testLogspace, testGeomspace ----------------------------------------------------------------------

_SHAPE_PAIRS = [((), ()), ((2,), ()), ((), (2, 2)), ((2,), (2, 2)), ((2, 2), (2,))]
_NUMS = [0, 1, 2, 5, 20]


def _space_cases(options):
    """The (start shape, stop shape, num) grid, each with the next combination of ``options`` (cycled)."""
    return [pair + (num,) + opts for (pair, num), opts in zip(itertools.product(_SHAPE_PAIRS, _NUMS),
                                                               itertools.cycle(options))]


def _space_args(rng, start_shape, stop_shape, dtype):
    return _arg(rng, start_shape, dtype or np.float32), _arg(rng, stop_shape, dtype or np.float32)


def _axes(start, stop, num):
    """np_test's loop over every axis of the result, for num=5 (the last axis for the other nums: time)."""
    ndim = np.ndim(start + stop)
    return range(-ndim - 1, ndim + 1) if num == 5 else [-1]


@pytest.mark.parametrize("start_shape,stop_shape,num,endpoint,retstep,dtype", _space_cases(
    list(itertools.product([True, False], [True, False], [np.float32, np.complex64, None]))) + [
    ((2,), (), 5, True, True, np.float16), ((), (), 3, False, False, np.int32)])
def test_linspace(start_shape, stop_shape, num, endpoint, retstep, dtype):
    start, stop = _space_args(np.random.RandomState(4), start_shape, stop_shape, dtype)
    tol = 1e-2 if dtype == np.float16 else 1e-5
    for axis in _axes(start, stop, num):
        kwargs = dict(endpoint=endpoint, retstep=retstep, dtype=dtype, axis=axis)
        want = np.linspace(start.astype(np.complex128 if dtype == np.complex64 else np.float64), stop, num, **kwargs)
        got = tnp.linspace(start, stop, num, **kwargs)
        reference = jax.eval_shape(lambda a, b: jnp.linspace(a, b, num, **kwargs), start, stop)
        if retstep:
            assert isinstance(got, tuple) and len(got) == 2
            _check_values(got[1], np.asarray(want[1]).astype(reference[1].dtype), tol, dtype=reference[1].dtype)
            got, want, reference = got[0], want[0], reference[0]
        _check_values(got, want, tol, dtype=reference.dtype)  # (int32: rounded toward -inf, NumPy 2's rule)
        if dtype != np.int32 and axis == -1:  # (compiled: one axis per case)
            _compiled_matches_eager(lambda a, b: tnp.linspace(a, b, num, **kwargs), start, stop, rtol=tol)


@pytest.mark.parametrize("start_shape,stop_shape,num,endpoint,base,dtype", _space_cases(
    list(itertools.product([True, False], [10.0, 2, np.e], [np.float32, np.complex64, None]))) + [
    ((2,), (), 5, True, 2, np.float16)])
def test_logspace(start_shape, stop_shape, num, endpoint, base, dtype):
    start, stop = _space_args(np.random.RandomState(5), start_shape, stop_shape, dtype)
    tol = {np.float16: 2e-2, np.float32: 1e-2, np.complex64: 1e-3, None: 1e-2}[dtype]
    for axis in _axes(start, stop, num):
        kwargs = dict(endpoint=endpoint, base=base, dtype=dtype, axis=axis)
        want = np.logspace(start.astype(np.complex128 if dtype == np.complex64 else np.float64), stop, num, **kwargs)
        got = tnp.logspace(start, stop, num, **kwargs)
        _check_values(got, want, tol, dtype=_jax_dtype(jnp.logspace, start, stop, num=num, **kwargs))
        if axis == -1:
            _compiled_matches_eager(lambda a, b: tnp.logspace(a, b, num, **kwargs), start, stop, rtol=tol)


@pytest.mark.parametrize("start_shape,stop_shape,num,endpoint,dtype", _space_cases(
    list(itertools.product([True, False], [np.float32, None]))) + [
    ((2,), (), 5, True, np.float16), ((), (2,), 4, True, np.complex64)])
def test_geomspace(start_shape, stop_shape, num, endpoint, dtype):
    start, stop = _space_args(np.random.RandomState(6), start_shape, stop_shape, dtype)
    start, stop = np.broadcast_arrays(start, stop)
    if dtype != np.complex64:  # real start and stop of one sign, element by element (NumPy gives NaN otherwise)
        start = start * np.sign(start) * np.sign(stop)
    tol = {np.float16: 4e-3, np.float32: 2e-3, np.complex64: 2e-3, None: 2e-3}[dtype]
    for axis in _axes(start, stop, num):
        kwargs = dict(endpoint=endpoint, dtype=dtype, axis=axis)
        want = np.geomspace(start.astype(np.complex128 if dtype == np.complex64 else np.float64), stop, num, **kwargs)
        got = tnp.geomspace(start, stop, num, **kwargs)
        _check_values(got, want, tol, dtype=_jax_dtype(jnp.geomspace, start, stop, num=num, **kwargs))
        if axis == -1:
            _compiled_matches_eager(lambda a, b: tnp.geomspace(a, b, num, **kwargs), start, stop, rtol=tol)


def test_spaces_gradients():
    # Not in np_test: TF 2.21's gradients with respect to start and stop.
    def grads(f, upstream=None):
        a, b = tj.constant(1.0), tj.constant([2.0, 5.0])
        with tj.GradientTape() as tape:
            tape.watch([a, b])
            y = f(a, b)
        return y, tape.gradient(y, [a, b], output_gradients=upstream)

    y, (ga, gb) = grads(lambda a, b: tnp.linspace(a, b, 4, axis=-1), np.arange(8.0, dtype=np.float32).reshape(2, 4))
    close_to_tf(y, [[1.0, 1.3333334, 1.6666667, 2.0], [1.0, 2.3333335, 3.6666667, 5.0]], 1e-6)
    close_to_tf(ga, [10.666667], 1e-6)
    close_to_tf(gb, [4.6666665, 12.666666], 1e-6)
    y, (ga, gb) = grads(lambda a, b: tnp.logspace(a, b, 3, base=2.0))
    close_to_tf(y, [[2.0, 2.0], [2.828427, 8.0], [4.0, 32.0]], 1e-6)
    close_to_tf(ga, [6.5254354], 1e-5)
    close_to_tf(gb, [3.7528467, 24.953299], 1e-5)
    y, (ga, gb) = grads(lambda a, b: tnp.geomspace(a, b, 3))
    close_to_tf(y, [[1.0, 1.0], [1.4142135, 2.236068], [1.9999999, 5.0]], 1e-6)
    close_to_tf(ga, [3.825141], 1e-5)
    close_to_tf(gb, [1.3535533, 1.223607], 1e-5)


# --- testDisableNumpyRankPromotionBroadcasting (disabled in TF: jax's option) -----------------------------------------

def test_rank_promotion_option():
    # Allowed first, so that a kernel cached then must not let the same shapes through under "raise".
    with jax.numpy_rank_promotion("allow"):
        _check_values(tnp.ones(2) + tnp.ones((1, 2)), np.full((1, 2), 2.0), 0)
    with jax.numpy_rank_promotion("raise"):
        with pytest.raises(ValueError, match="rank_promotion"):
            tnp.ones(2) + tnp.ones((1, 2))
    with jax.numpy_rank_promotion("warn"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            tnp.ones(2) + tnp.ones((1, 2))
            assert caught and str(caught[-1].message).startswith(
                "Following NumPy automatic rank promotion for add on shapes (2,) (1, 2).")
            count = len(caught)
            tnp.ones(2) + 3  # no warning for a scalar
            assert len(caught) == count


# --- testStackArrayArgument, testStackInvalidAxis ---------------------------------------------------------------------

def test_stack_and_concatenate_of_one_array():
    # JAX issue 1271: an array is a sequence of its rows. NumPy: stack(zeros(2)) is (2,), concatenate(zeros((2, 2)))
    # is (4,) (TF 2.21's tnp.concatenate returns the (2, 2) array as it is).
    for fn, x, want in [(tnp.stack, np.arange(2.0, dtype=np.float32), np.arange(2.0)),
                        (tnp.concatenate, np.arange(4.0, dtype=np.float32).reshape(2, 2), np.arange(4.0))]:
        _check_values(fn(x), want, 0, dtype=jnp.float32)
        _check_values(tj.function(fn)(x), want, 0, dtype=jnp.float32)


def test_stack_invalid_axis():
    a = np.ones((2, 3))
    for axis in (3, -4, 4):  # the result has rank 3: axes -3..2
        with pytest.raises(ValueError, match="out of bounds"):
            tnp.stack([a, a], axis=axis)
    assert tnp.stack([a, a], axis=2).shape == (2, 3, 2)
    assert tnp.stack([a, a], axis=-3).shape == (2, 2, 3)


# --- testBroadcastTo and its issues -----------------------------------------------------------------------------------

@pytest.mark.parametrize("from_shape,to_shape", [((1, 3), (4, 3)), ((3,), (2, 1, 3)), ((3,), (3, 3)), ((1,), (3,)),
                                                 ((), (2, 2)), ((1, 0), (3, 0))])
def test_broadcast_to(from_shape, to_shape):
    x = _arg(np.random.RandomState(7), from_shape, np.float32)
    _check_values(tnp.broadcast_to(x, to_shape), np.broadcast_to(x, to_shape), 0, dtype=jnp.float32)
    _compiled_matches_eager(lambda a: tnp.broadcast_to(a, to_shape), x)


def test_broadcast_to_gradient():
    # Not in np_test: TF 2.21's gradient (the upstream gradient summed over the broadcast rows).
    upstream = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    x = tj.constant([[0.5, -1.0, 2.0]])
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.broadcast_to(x, (4, 3))
    close_to_tf(tape.gradient(y, x, output_gradients=upstream), [[18.0, 22.0, 26.0]], 0)
    close_to_tf(accumulator_jvp(lambda a: tnp.broadcast_to(a, (4, 3)), [[1.0, 2.0, 3.0]], [[0.5, -1.0, 2.0]]),
                np.tile([0.5, -1.0, 2.0], 4), 0)


def test_broadcast_to_incompatible_shape():
    # JAX issue 1522. TF: InvalidArgumentError "Unable to broadcast tensor of shape [2,3] to tensor of shape [1,3]".
    with pytest.raises(ValueError, match="broadcast"):
        tnp.broadcast_to(np.ones((2, 3)), (1, 3))


def test_broadcast_to_python_int():
    # JAX issue 1548 (TF's dtype: int64; jax.numpy's with x64 off: int32).
    _check_values(tnp.broadcast_to(1, (3, 2)), np.ones((3, 2)), 0, dtype=jnp.int32)


def test_broadcast_to_on_scalar():
    got = tnp.broadcast_to(10.0, ())
    assert isinstance(got, tj.Tensor)
    _check_values(got, np.float32(10.0), 0, dtype=jnp.float32)


# --- testPrecision (disabled in TF) -----------------------------------------------------------------------------------

def _dot_precisions(jaxpr):
    """The ``precision`` of every dot_general in ``jaxpr`` and the jaxprs nested in it (tj's ops run as jitted
    kernels: the dot is inside a call)."""
    found = []
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "dot_general":
            found.append(eqn.params["precision"])
        for param in eqn.params.values():
            for sub in param if isinstance(param, (list, tuple)) else [param]:
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    found += _dot_precisions(inner)
    return found


_HIGHEST = jax.lax.Precision.HIGHEST
_PRECISION_CASES = [
    ("dot", (2,), (2,), {}), ("dot", (2, 2, 2), (2, 2, 2), {}), ("matmul", (2, 2), (2, 2), {}),
    ("vdot", (2,), (2,), {}), ("tensordot", (2, 2), (2, 2), {"axes": 2}), ("tensordot", (2,), (2,), {"axes": (0, 0)}),
    ("tensordot", (2,), (2,), {"axes": ((0,), (0,))}), ("einsum", (2,), (2,), {"subscripts": "i,i"}),
    ("einsum", (2, 2), (2, 2), {"subscripts": "ij,ij"}), ("inner", (2,), (2,), {}),
]


@pytest.mark.parametrize("name,a_shape,b_shape,kwargs", _PRECISION_CASES)
def test_precision_argument(name, a_shape, b_shape, kwargs):
    kwargs = dict(kwargs)
    subscripts = kwargs.pop("subscripts", None)
    fn = getattr(tnp, name)

    def call(a, b, **extra):
        args = (subscripts, a, b) if subscripts else (a, b)
        return fn(*args, **kwargs, **extra)

    a, b = np.ones(a_shape, np.float32), np.arange(np.prod(b_shape), dtype=np.float32).reshape(b_shape)
    want = call(jnp.asarray(a), jnp.asarray(b))
    # Default first, then HIGHEST on the same shapes: a kernel cached for the first must not serve the second.
    for precision in (None, _HIGHEST):
        jaxpr = jax.make_jaxpr(lambda u, w: call(u, w, precision=precision).value)(a, b)
        found = _dot_precisions(jaxpr.jaxpr)
        assert found, "no dot_general"
        for p in found:
            assert (p if not isinstance(p, tuple) else p[0]) == precision, (found, precision)
        _check_values(call(a, b, precision=precision), want, 1e-6, dtype=want.dtype)


# --- NumpyGradTests (disabled in TF) ----------------------------------------------------------------------------------

# The closed forms of the first and second derivatives (float64 NumPy): holomorphic, so forward mode gives
# f'(z) t and f''(z) t t, and the tape (TF's convention, API.md) conj(f'(z)) and conj(f''(z)) for an upstream of 1.
_DERIVATIVES = {
    "arcsinh": (lambda z: 1 / np.sqrt(1 + z * z), lambda z: -z / (1 + z * z) ** 1.5),
    "arccosh": (lambda z: 1 / (np.sqrt(z - 1) * np.sqrt(z + 1)), lambda z: -z / ((z - 1) * (z + 1)) ** 1.5),
    "arctanh": (lambda z: 1 / (1 - z * z), lambda z: 2 * z / (1 - z * z) ** 2),
}
_GRAD_RANGE = {"arcsinh": (1.0, 3.0), "arccosh": (1.0, 3.0), "arctanh": (-0.9, 0.9)}  # rand_positive / uniform


def _second_order(name, x, t):
    """(first, second) by nested tapes, and (first, second) by nested forward accumulators along ``t``."""
    f = getattr(tnp, name)
    _, first, second = nested_tape_gradients(f, x)
    x, t = tj.constant(x), tj.constant(t)
    with tj.ForwardAccumulator(x, t) as outer:
        with tj.ForwardAccumulator(x, t) as inner:
            y = f(x)
        jvp = inner.jvp(y)
    return (first, second), (jvp, outer.jvp(jvp))


@pytest.mark.parametrize("name", sorted(_DERIVATIVES))
@pytest.mark.parametrize("shape", ["python scalar", (), (2, 1, 4)])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_op_grad(name, shape, dtype):
    rng = np.random.RandomState(8)
    x = _arg(rng, () if shape == "python scalar" else shape, dtype, *_GRAD_RANGE[name])
    if shape == "python scalar":
        x = x.item()  # a Python float or complex: float32 / complex64
    t = _arg(rng, np.shape(x), dtype, -1.0, 1.0)
    (rev1, rev2), (fwd1, fwd2) = _second_order(name, x, t)
    d1, d2 = (d(np.asarray(x, np.complex128 if dtype == np.complex64 else np.float64)) for d in _DERIVATIVES[name])
    for got, want in [(rev1, np.conj(d1)), (rev2, np.conj(d2)), (fwd1, d1 * t), (fwd2, d2 * t * t)]:
        _check_values(got, want, 1e-4, 1e-5, dtype=jnp.dtype(dtype))


# TF 2.21's values (float32 / complex64; np_test uses float64 / complex64): first and second derivative by nested
# tapes, then by nested forward accumulators (tangents ones / [1, 0.5 - 1j]).
_TF_OP_GRAD = {
    ("arcsinh", "real"): ([0.62469506, 0.44721365, 0.34174305], [-0.30472934, -0.1788855, -0.10975688],
                          [0.62469506, 0.44721365, 0.34174305], [-0.30472934, -0.1788855, -0.10975689]),
    ("arccosh", "real"): ([1.3333334, 0.57735026, 0.39036006], [-2.962963, -0.38490012, -0.16357948],
                          [1.3333334, 0.57735026, 0.39036006], [-2.962963, -0.38490015, -0.16357948]),
    ("arctanh", "real"): ([2.7777781, 1.010101, 1.5625], [-12.345683, 0.2040608, 2.9296875],
                          [2.7777781, 1.010101, 1.5625], [-12.345683, 0.2040608, 2.9296875]),
    ("arcsinh", "complex"): ([0.197256 + 0.29135367j, 0.35928896 + 0.18899694j],
                             [0.040643435 - 0.12031169j, -0.098809056 - 0.123033576j],
                             [0.197256 - 0.29135367j, -0.009352464 - 0.45378745j],
                             [0.040643442 + 0.12031171j, 0.19714038 + 0.006533869j]),
    ("arccosh", "complex"): ([0.15716483 + 0.2936652j, 0.3502313 + 0.2637269j],
                             [0.06407932 - 0.086601816j, -0.038145993 - 0.19505723j],
                             [0.15716483 - 0.2936652j, -0.08861124 - 0.48209473j],
                             [0.06407932 + 0.086601816j, 0.22366676 - 0.108146936j]),
    ("arctanh", "complex"): ([1.1243243 + 0.34594595j, 0.7288379 + 0.20659973j],
                             [-0.7554711 - 1.3501241j, -0.06827375 + 0.7669188j],
                             [1.1243243 - 0.34594595j, 0.15781923 - 0.83213776j],
                             [-0.7554711 + 1.3501241j, -0.7157135 + 0.64346284j]),
}
_TF_OP_GRAD_X = {
    ("arcsinh", "real"): [1.25, 2.0, 2.75], ("arccosh", "real"): [1.25, 2.0, 2.75],
    ("arctanh", "real"): [-0.8, 0.1, 0.6],
    ("arcsinh", "complex"): [1.5 + 2.5j, 2 + 1.25j], ("arccosh", "complex"): [1.5 + 2.5j, 2 + 1.25j],
    ("arctanh", "complex"): [-0.5 + 0.25j, 0.3 - 0.6j],
}


@pytest.mark.parametrize("key", sorted(_TF_OP_GRAD))
def test_op_grad_tf_values(key):
    dtype = np.float32 if key[1] == "real" else np.complex64
    x = np.array(_TF_OP_GRAD_X[key], dtype)
    t = np.ones(3, dtype) if key[1] == "real" else np.array([1, 0.5 - 1j], dtype)
    (rev1, rev2), (fwd1, fwd2) = _second_order(key[0], x, t)
    for got, want in zip((rev1, rev2, fwd1, fwd2), _TF_OP_GRAD[key]):
        got = got.numpy()
        assert got.dtype == dtype
        np.testing.assert_allclose(got, np.array(want, dtype), rtol=2e-6, atol=1e-6)


# TF 2.21 (float32): (first, second) by nested tapes and by nested accumulators along 1.
_TF_SPECIAL = [
    ("arcsinh", 0.0, (1.0, -0.0), (1.0, 0.0)),
    ("arcsinh", 1000.0, (0.0009999996, -9.999987e-07), (0.0009999996, -9.999986e-07)),
    ("arccosh", 1000.0, (0.0010000006, -1.0000017e-06), (0.0010000006, -1.0000017e-06)),
    ("arctanh", 0.0, (1.0, 0.0), (1.0, 0.0)),
]


@pytest.mark.parametrize("name,value,rev,fwd", _TF_SPECIAL)
def test_op_grad_special_value(name, value, rev, fwd):
    got_rev, got_fwd = _second_order(name, np.float32(value), np.float32(1.0))
    d1, d2 = (d(np.float64(value)) for d in _DERIVATIVES[name])
    for got, tf_value, exact in [(got_rev[0], rev[0], d1), (got_rev[1], rev[1], d2), (got_fwd[0], fwd[0], d1),
                                 (got_fwd[1], fwd[1], d2)]:
        close_to_tf(got, [tf_value], 1e-5, 1e-12)
        close_to_tf(got, [exact], 1e-5, 1e-12)


def test_take_along_axis_gradient_issue1521():
    # JAX issue 1521: 30 indices into the 3 columns of a (1, 3) row broadcast against the (30, 1) indices.
    idx = tnp.repeat(tnp.arange(3), 10).reshape((30, 1))

    def f(x):
        y = x * tnp.arange(3.0).reshape((1, 3))
        return tnp.take_along_axis(y, idx, -1).sum()

    y, first, second = nested_tape_gradients(f, 1.0)
    close_to_tf(y, [30.0], 0)
    close_to_tf(first, [30.0], 0)  # TF 2.21
    assert second is None  # TF 2.21: the gradient does not depend on x
    x = tj.constant(1.0)
    with tj.ForwardAccumulator(x, tj.constant(1.0)) as outer:
        with tj.ForwardAccumulator(x, tj.constant(1.0)) as inner:
            y = f(x)
        jvp = inner.jvp(y)
    close_to_tf(jvp, [30.0], 0)
    close_to_tf(outer.jvp(jvp), [0.0], 0)  # TF 2.21: 0.0 (forward over forward), where the tape gives None
    close_to_tf(tj.function(lambda x: _one_gradient(f, x))(tj.constant(1.0)), [30.0], 0)
