"""jax.numpy functions beyond API.md's list, composed of tj ops (so every path differentiates them with tapejax's
rules): values, dtypes and gradients against jax.numpy's own, NaN handling of the nan* reductions (a zero gradient
for the NaNs and for NaN results, as jax.numpy's), and the functions of values with no gradient (indices, counts,
booleans) value for value."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from numpy_reference import check_values, check_values_and_gradient, jax_cross

tnp = tj.numpy
_rng = np.random.default_rng(1)
X = _rng.normal(size=(3, 4)).astype(np.float32)
XN = X.copy()
XN[0, 1] = np.nan
XN[2, :] = np.nan  # an all-NaN row
V3, W3 = _rng.normal(size=(2, 5, 3)).astype(np.float32)
P = np.abs(X) + 0.5
M = _rng.normal(size=(2, 3, 4)).astype(np.float32)
INF = np.array([1, np.inf, -np.inf, np.nan], np.float32)
Q = np.array([0.1, 0.5, 0.9], np.float32)
XN5 = _rng.normal(size=(3, 5)).astype(np.float32)
XN5[0, 1] = XN5[1, 0] = XN5[1, 3] = np.nan
XN5[2, :] = np.nan
XP = np.array([0.0, 1.0, 1.0, 2.5, 4.0], np.float32)  # (a zero-width interval at 1)
FP = np.array([1.0, 3.0, 2.0, -1.0, 0.5], np.float32)
XI = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, 3.9, 4.0, 5.0], np.float32)


def _cross(m, a, b):
    """``m.cross``; for jax.numpy, which refuses 2-component vectors from jax 0.12, jax_cross."""
    return jax_cross(a, b) if m is jnp else m.cross(a, b)


# (label, f(module, x), x): f applied to jax.numpy with a jax array and to tj.numpy with a Tensor
DIFFERENTIABLE = [
    ("ptp", lambda m, a: m.ptp(a, 1), X),
    ("nanmax", lambda m, a: m.nanmax(a, 1), XN), ("nanmin", lambda m, a: m.nanmin(a, 0), XN),
    ("nanprod", lambda m, a: m.nanprod(a, 1), XN), ("nanvar", lambda m, a: m.nanvar(a, 1), XN),
    ("nanstd ddof", lambda m, a: m.nanstd(a, 0, ddof=1), XN[:2]),
    ("nancumsum", lambda m, a: m.nancumsum(a, 1), XN), ("nancumprod", lambda m, a: m.nancumprod(a, 1), XN),
    ("cumulative_prod", lambda m, a: m.cumulative_prod(a, axis=1, include_initial=True), X),
    ("median", lambda m, a: m.median(a, 1), X), ("quantile q vector", lambda m, a: m.quantile(a, Q, 1), X),
    ("quantile axes tuple", lambda m, a: m.quantile(a, 0.3, (0, 1), keepdims=True), X),
    ("quantile nearest", lambda m, a: m.quantile(a, 0.37, 0, method="nearest"), X),
    ("quantile midpoint", lambda m, a: m.quantile(a, 0.37, 1, method="midpoint"), X),
    ("percentile", lambda m, a: m.percentile(a, np.array([25, 75], np.float32), axis=0), X),
    ("quantile with NaN", lambda m, a: m.quantile(a, Q, 1), XN), ("median with NaN", lambda m, a: m.median(a, 0), XN),
    ("nanquantile", lambda m, a: m.nanquantile(a, Q, 1), XN5), ("nanmedian", lambda m, a: m.nanmedian(a, 1), XN5),
    ("nanpercentile keepdims", lambda m, a: m.nanpercentile(a, 30.0, 1, keepdims=True), XN5),
    ("nanquantile lower", lambda m, a: m.nanquantile(a, 0.37, 1, method="lower"), XN5),
    ("cross", lambda m, a: m.cross(a, W3), V3), ("cross 2-d", lambda m, a: _cross(m, a[:, :2], W3[:, :2]), V3),
    ("cross 2x3", lambda m, a: _cross(m, a[:, :2], W3), V3), ("cross 3x2", lambda m, a: _cross(m, a, W3[:, :2]), V3),
    ("hypot", lambda m, a: m.hypot(a, X[::-1]), X), ("hypot tie", lambda m, a: m.hypot(a, -a), X),
    ("sinc", lambda m, a: m.sinc(a), X), ("nan_to_num", lambda m, a: m.nan_to_num(a * INF), X),
    ("cov", lambda m, a: m.cov(a), X), ("cov rowvar bias", lambda m, a: m.cov(a, rowvar=False, bias=True), X),
    ("cov y", lambda m, a: m.cov(a[0], a[1]), X), ("cov one variable", lambda m, a: m.cov(a[0]), X),
    ("corrcoef", lambda m, a: m.corrcoef(a), X), ("logaddexp2", lambda m, a: m.logaddexp2(a, a[::-1] * 2), X),
    ("fmax", lambda m, a: m.fmax(a, XN), X), ("fmin", lambda m, a: m.fmin(XN, a), X),
    ("float_power", lambda m, a: m.float_power(a, 2.5), P), ("vecdot", lambda m, a: m.vecdot(a, W3), V3),
    ("matvec", lambda m, a: m.matvec(a, X[0]), M), ("vecmat", lambda m, a: m.vecmat(a[0, :, 0], a[1]), M),
    ("append", lambda m, a: m.append(a, a[:1]), X), ("diagflat", lambda m, a: m.diagflat(a[:2, :2], 1), X),
    ("polyval", lambda m, a: m.polyval(a[0], a[1]), X), ("trapezoid", lambda m, a: m.trapezoid(a), X),
    ("trapezoid x", lambda m, a: m.trapezoid(a, np.array([0, 1, 3, 4.5], np.float32)), X),
    ("trapezoid 2-d x", lambda m, a: m.trapezoid(a, np.cumsum(P, 0), axis=0), X),
    ("logspace", lambda m, a: m.logspace(0.0, 2.0, 5) * a[0, 0], X),
    ("geomspace", lambda m, a: m.geomspace(1.0, 1000.0, 4) * a[0, 0], X),
    ("select", lambda m, a: m.select([a > 0.5, a < -0.5], [a * 2, a * 3], -1.0), X),
    ("broadcast_arrays", lambda m, a: list(m.broadcast_arrays(a, a[0], 1.0)), X),
    ("copysign", lambda m, a: m.copysign(a, X[::-1]), X),
    ("interp", lambda m, a: m.interp(a, XP, FP), XI),
    ("interp extrapolate", lambda m, a: m.interp(a, XP, FP, "extrapolate", "extrapolate"), XI),
    ("interp period", lambda m, a: m.interp(a, XP, FP, period=3.0), XI),
    ("interp in xp and fp", lambda m, a: m.interp(XI, a[0], a[1]), np.stack([XP, FP])),
    ("convolve", lambda m, a: m.convolve(a[0], a[1, :3]), X),
    ("convolve same", lambda m, a: m.convolve(a[0], a[1], "same"), X),
    ("convolve valid longer v", lambda m, a: m.convolve(a[0, :2], a[1], "valid"), X),
    ("correlate", lambda m, a: m.correlate(a[0], a[1, :3]), X),
    ("correlate same longer v", lambda m, a: m.correlate(a[0, :2], a[1], "same"), X),
    ("bincount weights", lambda m, a: m.bincount(np.array([0, 1, 1, 3, 4]), a[0], length=5),
     np.linspace(0.5, 2.5, 5, dtype=np.float32)[None]),
    ("partition", lambda m, a: m.partition(a, 2, 1), X), ("delete", lambda m, a: m.delete(a, 1, 1), X),
    ("delete slice", lambda m, a: m.delete(a, slice(0, 2), 0), X),
    ("block", lambda m, a: m.block([[a, a[:, :2]], [a[:1], a[:1, :2]]]), X),
    ("divmod", lambda m, a: list(m.divmod(a * 3, 1.5)), X),
    ("linalg.vector_norm", lambda m, a: m.linalg.vector_norm(a), M),
    ("linalg.vector_norm axis ord 1", lambda m, a: m.linalg.vector_norm(a, axis=1, ord=1), M),
    ("linalg.vector_norm inf", lambda m, a: m.linalg.vector_norm(a, axis=(-1,), ord=np.inf), M),
    ("linalg.vector_norm all axes", lambda m, a: m.linalg.vector_norm(a, axis=(0, 1, 2), ord=3), M),
    ("linalg.matrix_norm", lambda m, a: m.linalg.matrix_norm(a), M),
    ("linalg.matrix_norm 2 keepdims", lambda m, a: m.linalg.matrix_norm(a, ord=2, keepdims=True), M),
    ("linalg.svdvals", lambda m, a: m.linalg.svdvals(a), M),
]


@pytest.mark.parametrize("label, f, arg", DIFFERENTIABLE, ids=[c[0] for c in DIFFERENTIABLE])
def test_values_and_gradients_as_jax_numpy(label, f, arg):
    # (float32: a formula written with other ops, sinc's or hypot's, rounds differently in its last digits)
    check_values_and_gradient(label, f, arg, value_tol=(2e-5, 2e-6), grad_tol=(1e-4, 1e-5))


def test_composed_functions_on_the_other_paths():
    # tj.function, jax.grad and jax.vmap of tj code run the same tj ops
    def f(m, a):
        return m.sum(m.median(a, 1) * m.hypot(a[:, 0], a[:, 1])) + m.nanmax(a) + m.sum(m.cross(a[:, :3], a[:, 1:]))
    # (jax.numpy's side in one jax.jit each: one program per reference instead of one per primitive)
    want = jax.jit(lambda a: f(jnp, a))(X)
    np.testing.assert_allclose(tj.function(lambda a: f(tnp, a))(X).numpy(), want, rtol=1e-5)
    np.testing.assert_allclose(jax.grad(lambda a: f(tnp, tj.constant(a)).value)(X),
                               jax.jit(jax.grad(lambda a: f(jnp, a)))(X), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(jax.vmap(lambda a: f(tnp, tj.constant(a)).value)(M),
                               jax.jit(jax.vmap(lambda a: f(jnp, a)))(M), rtol=1e-5)


S = np.sort(X[0])
BINS = np.array([-1.0, 0.0, 1.0], np.float32)
IDS = np.array([3, 1, 2, 3, 1, 7])
VALUES_ONLY = [
    ("signbit", lambda m: m.signbit(np.array([-0.0, 0.0, -1.0, 2.0], np.float32))),
    ("heaviside", lambda m: m.heaviside(np.array([-1.0, 0.0, 2.0], np.float32), np.float32(0.5))),
    ("allclose", lambda m: m.allclose(X, X + 1e-7)), ("allclose not", lambda m: m.allclose(X, X + 1)),
    ("array_equal", lambda m: m.array_equal(X, X)), ("array_equal shapes", lambda m: m.array_equal(X, X[0])),
    ("array_equal nan", lambda m: m.array_equal(XN, XN, equal_nan=True)),
    ("searchsorted", lambda m: m.searchsorted(S, X[1])),
    ("searchsorted right", lambda m: m.searchsorted(S, S, side="right")),
    ("searchsorted sorter", lambda m: m.searchsorted(X[0], X[1], sorter=np.argsort(X[0]))),
    ("digitize", lambda m: m.digitize(X, BINS)), ("digitize right", lambda m: m.digitize(X, BINS, right=True)),
    ("isin", lambda m: m.isin(IDS, np.array([1, 7]))), ("isin invert", lambda m: m.isin(IDS, np.array([1, 7]), invert=True)),
    ("nanargmax", lambda m: m.nanargmax(XN[:2], 1)), ("nanargmin", lambda m: m.nanargmin(XN)),
    ("nanargmax keepdims", lambda m: m.nanargmax(XN[:2], 0, keepdims=True)),
    ("nonzero", lambda m: m.nonzero(X > 0)), ("nonzero size", lambda m: m.nonzero(X > 0, size=8, fill_value=-1)),
    ("flatnonzero", lambda m: m.flatnonzero(X > 0)), ("argwhere", lambda m: m.argwhere(X > 0)),
    ("argwhere 0-d", lambda m: m.argwhere(np.float32(2.0))), ("argwhere size", lambda m: m.argwhere(X > 0, size=3)),
    ("unique", lambda m: m.unique(IDS)),
    ("unique all", lambda m: m.unique(IDS, return_index=True, return_inverse=True, return_counts=True)),
    ("unique size", lambda m: m.unique(IDS, size=6, fill_value=0)),
    ("tri", lambda m: m.tri(3, 4, 1)), ("triu_indices", lambda m: m.triu_indices(3, 1)),
    ("tril_indices", lambda m: m.tril_indices(4, -1, 3)), ("identity", lambda m: m.identity(3)),
    ("identity int", lambda m: m.identity(2, jnp.int32)), ("empty", lambda m: m.empty((2, 3))),
    ("empty_like", lambda m: m.empty_like(X, dtype=jnp.int32)),
    ("broadcast_shapes", lambda m: m.broadcast_shapes((3, 1), (1, 4))),
    ("argmax out keepdims", lambda m: m.argmax(X, 1, None, True)), ("argmin out", lambda m: m.argmin(X, 0, None)),
    ("unravel_index", lambda m: m.unravel_index(np.array([5, 7, 11]), (3, 4))),
    ("ravel_multi_index", lambda m: m.ravel_multi_index((np.array([1, 2]), np.array([0, 3])), (3, 4))),
    ("ravel_multi_index wrap", lambda m: m.ravel_multi_index((np.array([1, 5]), np.array([0, 3])), (3, 4), mode="wrap")),
    ("indices", lambda m: m.indices((2, 3))), ("indices sparse", lambda m: m.indices((2, 3), sparse=True)),
    ("lexsort", lambda m: m.lexsort((np.array([1, 0, 1, 0]), np.array([3, 3, 1, 2])))),
    ("argpartition", lambda m: m.argpartition(X, 2)),
    ("iscomplexobj", lambda m: np.bool_(m.iscomplexobj(X))), ("isscalar", lambda m: np.bool_(m.isscalar(X))),
    ("iscomplexobj list", lambda m: np.bool_(m.iscomplexobj([0.5, 1j]))),
    ("isrealobj list", lambda m: np.bool_(m.isrealobj([0.5, 2.0]))),
    ("bincount", lambda m: m.bincount(np.array([0, 1, 1, 3, 2, 1, 7]))),
    ("bincount minlength", lambda m: m.bincount(np.array([0, 1, 1, 3]), minlength=6)),
    ("linalg.matrix_rank", lambda m: m.linalg.matrix_rank(M)),
    ("linalg.matrix_rank low", lambda m: m.linalg.matrix_rank(np.ones((3, 3), np.float32))),
    ("linalg.matrix_rank tol", lambda m: m.linalg.matrix_rank(np.diag(np.float32([3, 1, 0.1])), tol=0.5)),
]


EAGER_ONLY = {"nonzero", "flatnonzero", "argwhere", "argwhere 0-d", "unique", "unique all", "broadcast_shapes",
              "ravel_multi_index", "iscomplexobj", "isscalar", "iscomplexobj list", "isrealobj list", "bincount",
              "bincount minlength"}


@pytest.mark.parametrize("label, f", VALUES_ONLY, ids=[c[0] for c in VALUES_ONLY])
def test_functions_of_values_as_jax_numpy(label, f):
    # (jax.numpy's values in one jax.jit, one program per reference instead of one per primitive, but for the
    # functions jax.jit cannot trace: shapes or checks that depend on the values, Python results)
    want = f(jnp) if label in EAGER_ONLY else jax.jit(lambda: f(jnp))()
    got = f(tnp)
    if label.startswith("broadcast_shapes"):
        assert got == want
        return
    if label.startswith("empty"):  # (JAX has no uninitialized memory: zeros, as jax.numpy's)
        want = np.zeros_like(want)
    check_values(*((want, got) if isinstance(want, tuple) else ([want], [got])))


def test_value_dependent_shapes_need_size_when_traced():
    # unique/nonzero: eagerly any length; inside a trace only with size=, as jax.numpy's under jit
    sized = tj.function(lambda a: tnp.unique(a, size=5, fill_value=0, return_counts=True))(IDS[:4])
    want = jax.jit(lambda a: jnp.unique(a, size=5, fill_value=0, return_counts=True))(IDS[:4])  # (one program)
    np.testing.assert_array_equal(sized[0].numpy(), want[0])
    np.testing.assert_array_equal(sized[1].numpy(), want[1])
    np.testing.assert_array_equal(tj.function(lambda a: tnp.nonzero(a > 0, size=4)[1])(X).numpy(),
                                  jax.jit(lambda a: jnp.nonzero(a > 0, size=4)[1])(X))
    for fn in (tnp.unique, tnp.nonzero, tnp.argwhere):
        with pytest.raises(TypeError, match="depends on the input's values.*size="):
            tj.function(fn)(X)
        with pytest.raises(TypeError, match="depends on the input's values.*size="):
            jax.jit(lambda a: fn(tj.constant(a)))(X)


def test_bad_arguments_say_what_to_fix():
    with pytest.raises(ValueError, match=r"q must be in \[0, 1\]"):
        tnp.quantile(X, 1.5)
    with pytest.raises(ValueError, match="q must be a scalar or 1-d"):
        tnp.quantile(X, np.full((1, 2), 0.5))
    with pytest.raises(ValueError, match="at most 2 dimensions"):
        tnp.cov(np.ones((2, 3, 4), np.float32))
    with pytest.raises(ValueError, match="method must be one of"):
        tnp.quantile(X, 0.5, method="bogus")
    with pytest.raises(ValueError, match="2 or 3 components"):
        tnp.cross(X, X)
    with pytest.raises(RuntimeError, match="incompatible numbers of samples and aweights"):  # (jax.numpy's class)
        tnp.cov(X, aweights=np.ones(7))
    with pytest.raises(TypeError, match="fweights must be integer"):
        tnp.cov(X, fweights=np.ones(X.shape[-1]))
    with pytest.raises(ValueError, match="one condition per choice"):
        tnp.select([X > 0], [X, X])
    with pytest.raises(ValueError, match="invalid entry in coordinates array"):
        tnp.ravel_multi_index((np.array([1, 5]), np.array([0, 3])), (3, 4))
    with pytest.raises(TypeError, match="use mode='wrap' or mode='clip'"):
        tj.function(lambda i: tnp.ravel_multi_index((i, i), (3, 4)))(np.array([1, 2]))
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 1 of size 4"):
        tnp.delete(X, 4, 1)
    with pytest.raises(np.exceptions.AxisError, match="axis 5 is out of range"):
        tnp.linalg.vector_norm(M, axis=(0, 1, 5))
    with pytest.raises(NotImplementedError, match="'out' argument to tj.numpy.nanmax"):
        tnp.nanmax(X, out=np.zeros(4))


def test_logaddexp_gradient_at_infinities_is_the_limit():
    """d/dx logaddexp(x, y) = sigmoid(x - y): 1 and 0 where one argument is +inf (TF's composite gives these; the
    rule exp(x - out) gave inf - inf = NaN), 1/2 each at a tie, NaN where both are +inf or both -inf."""
    x0 = np.array([np.inf, 0.0, np.inf, -np.inf, 1.5, -np.inf, np.inf], np.float32)
    y0 = np.array([0.0, np.inf, -np.inf, 3.0, 1.5, -np.inf, np.inf], np.float32)
    x, y = tj.constant(x0), tj.constant(y0)
    with tj.GradientTape() as tape:
        tape.watch([x, y])
        out = tnp.logaddexp(x, y)
    gx, gy = tape.gradient(out, [x, y])
    np.testing.assert_array_equal(gx.numpy(), [1.0, 0.0, 1.0, 0.0, 0.5, np.nan, np.nan])
    np.testing.assert_array_equal(gy.numpy(), [0.0, 1.0, 0.0, 1.0, 0.5, np.nan, np.nan])
    with tj.ForwardAccumulator([x, y], [tnp.ones_like(x), tnp.zeros_like(y)]) as acc:
        out = tnp.logaddexp(x, y)
    np.testing.assert_array_equal(acc.jvp(out).numpy(), gx.numpy())


def test_quantile_of_a_tensor_q_is_differentiable_and_may_be_traced():
    """A Tensor ``q`` stays a Tensor (as jax.numpy's q is an operand): its gradient is jax.grad's eagerly, inside a
    tj.function, and a traced q works there (it was turned into NumPy eagerly, so q got no gradient, and raised
    TracedValueError when traced)."""
    a = np.random.RandomState(0).rand(5, 3).astype(np.float32)
    want = jax.jit(jax.grad(lambda q: jnp.sum(jnp.percentile(a, q, axis=0))))(30.0)  # (one program, not one per op)
    want_y = jax.jit(lambda q: jnp.sum(jnp.percentile(a, q, axis=0)))(30.0)

    def loss(q):
        return tnp.sum(tnp.percentile(a, q, axis=0))

    for f in (loss, tj.function(loss)):
        q = tj.constant(30.0)
        with tj.GradientTape() as tape:
            tape.watch(q)
            y = f(q)
        np.testing.assert_allclose(y.numpy(), want_y, rtol=1e-6)
        np.testing.assert_allclose(tape.gradient(y, q).numpy(), want, rtol=1e-5)
    with pytest.raises(ValueError, match=r"q must be in \[0, 1\]"):
        tnp.quantile(a, tj.constant([0.5, 1.5]))


def test_a_masked_array_is_refused_as_an_op_argument_and_converted_by_asarray():
    """An op would drop a NumPy masked array's mask silently (sum of [--, 2] was 3, NumPy's is 2): refused, as
    jax.numpy's functions refuse it; tj.numpy.array/asarray take its data, as jax.numpy's."""
    m = np.ma.array([1, 2], mask=[True, False])
    with pytest.raises(tj.tensor.ConversionError, match="masked"):
        tnp.sum(m)
    with pytest.raises(ValueError, match="masked"):
        jnp.sum(m)
    np.testing.assert_array_equal(tnp.asarray(m).numpy(), [1, 2])
    np.testing.assert_array_equal(tnp.array(m).numpy(), [1, 2])


def test_hypot_second_derivatives_on_the_axes():
    """hypot is smooth where one operand is 0 and the other not: d2/da2 there is 1/|b| (it was 0: abs of the
    smaller operand has second derivative 0), as jax.numpy's hypot and the formula b**2 / r**3."""
    a0 = np.array([0.0, 3.0, -2.0, -4.0], np.float32)
    b0 = np.array([2.0, 0.0, -2.0, 3.0], np.float32)
    a, b = tj.constant(a0), tj.constant(b0)
    with tj.GradientTape(persistent=True) as outer:
        outer.watch([a, b])
        with tj.GradientTape() as inner:
            inner.watch([a, b])
            y = tj.numpy.hypot(a, b)
        ga, gb = inner.gradient(y, [a, b])
    r3 = np.hypot(a0.astype(np.float64), b0) ** 3
    np.testing.assert_allclose(outer.gradient(ga, a).numpy(), b0.astype(np.float64) ** 2 / r3, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(outer.gradient(gb, b).numpy(), a0.astype(np.float64) ** 2 / r3, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(outer.gradient(ga, b).numpy(), -a0.astype(np.float64) * b0 / r3, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_hypot_of_zero_and_nan_is_nan(dtype):
    """hypot with NaN is NaN unless the other operand is infinite (C's and NumPy's hypot: inf): with 0 beside a NaN
    it was 0, the larger magnitude taken by a comparison a NaN never wins."""
    x1 = np.array([0.0, -0.0, np.nan, np.nan, 2.0, np.nan, np.inf, np.nan], dtype)
    x2 = np.array([np.nan, np.nan, 0.0, np.nan, np.nan, -np.inf, np.nan, 3.0], dtype)
    got = tj.numpy.hypot(tj.constant(x1), tj.constant(x2)).numpy()
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, np.hypot(x1, x2))


def test_heaviside_is_differentiable_in_its_value_at_zero():
    """heaviside(x1, x2) is x2 where x1 == 0: its gradient in x2 is 1 there and 0 elsewhere, in both modes (as
    jax.grad of jnp.heaviside and TF's tnp.heaviside); x1's is None."""
    x1 = tj.constant([1.0, 0.0, -1.0, np.nan])
    x2 = tj.constant([0.5, 0.25, 0.75, 2.0])
    with tj.GradientTape() as tape:
        tape.watch([x1, x2])
        y = tj.numpy.heaviside(x1, x2)
    np.testing.assert_array_equal(y.numpy(), np.heaviside(x1.numpy(), x2.numpy()))
    g1, g2 = tape.gradient(y, [x1, x2])
    expected = jax.grad(lambda b: jnp.sum(jnp.heaviside(x1.numpy(), b)))(x2.numpy())
    assert g1 is None
    np.testing.assert_array_equal(g2.numpy(), expected)
    np.testing.assert_array_equal(expected, [0.0, 1.0, 0.0, 0.0])
    with tj.ForwardAccumulator(x2, tj.constant(np.ones(4, np.float32))) as acc:
        y = tj.numpy.heaviside(x1, x2)
    np.testing.assert_array_equal(acc.jvp(y).numpy(), expected)


@pytest.mark.parametrize("name", ["hypot", "logaddexp2"])
def test_hypot_logaddexp2_keep_a_half_precision_dtype_with_a_python_number(name):
    """jax.numpy.hypot(x, 1.0) and logaddexp2(x, 1.0) for float16 x = [0.5, -1.25] are float16 ([1.118, 1.601]
    and [1.585, 1.777]): a Python number is weakly typed. tapejax converted the number to a float32 Tensor first
    and returned float32 (and a float32 gradient for a float16 source)."""
    x = jnp.array([0.5, -1.25], jnp.float16)
    want = getattr(jnp, name)(x, 1.0)
    assert want.dtype == jnp.float16
    for args in ((x, 1.0), (1.0, x)):
        xt = tj.constant(x)
        with tj.GradientTape() as tape:
            tape.watch(xt)
            y = getattr(tnp, name)(*(xt if a is x else a for a in args))
        assert y.dtype == jnp.float16
        np.testing.assert_allclose(np.asarray(y, np.float32), np.asarray(want, np.float32), rtol=1e-3)
        assert tape.gradient(y, xt).dtype == jnp.float16


def test_logaddexp2_is_computed_in_base_2():
    # logaddexp2 was logaddexp(x ln 2, y ln 2) / ln 2: three roundings, an ulp off NumPy's float64 value (rounded) on
    # 19% of these float32 pairs (jax.numpy's base-2 formula: 2%); its derivative at an infinite argument is the
    # limit, 1 for the infinite one and 0 for the other (jax.numpy's own rule gives 2 at (inf, 1))
    rng = np.random.default_rng(3)
    x, y = (rng.standard_normal((2, 20000)) * 30).astype(np.float32)
    got = tnp.logaddexp2(tj.constant(x), tj.constant(y)).numpy().astype(np.float64)
    want = np.logaddexp2(x.astype(np.float64), y.astype(np.float64)).astype(np.float32)
    ulps = np.abs(got - want) / np.spacing(np.abs(want))
    assert np.mean(ulps > 0) < 0.03 and np.mean(ulps > 2) < 0.002, (np.mean(ulps > 0), np.max(ulps))
    a, b = tj.constant(np.float32([np.inf, 1.0, -1.0])), tj.constant(np.float32([1.0, np.inf, 2.0]))
    with tj.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        z = tnp.logaddexp2(a, b)
    np.testing.assert_allclose(tape.gradient(z, a).numpy(), [1, 0, 1 / 9], rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(z, b).numpy(), [0, 1, 8 / 9], rtol=1e-6)


@pytest.mark.parametrize("name", ["copysign", "float_power", "trapezoid", "cov", "corrcoef", "convolve", "geomspace",
                                  "linalg.det", "linalg.pinv", "hypot"])
def test_integer_inputs_take_jax_numpy_float_under_x64(name):
    """jax.numpy promotes int32 (int8, bool) inputs of a float function to float32 also under x64, where the default
    float is float64 (its promote_dtypes_inexact). tapejax cast them to the default float: float64 for copysign,
    float_power, trapezoid, cov, corrcoef, convolve, geomspace, linalg.det and linalg.pinv of int32."""
    def call(m, a):
        if name == "geomspace":
            return m.geomspace(a[0], a[2], 3)
        f = functools.reduce(getattr, name.split("."), m)
        if name.startswith("linalg."):
            return f(a.reshape(2, 2) + (m.eye(2, dtype=a.dtype) * 2).astype(a.dtype))
        return f(a) if name in ("trapezoid", "cov", "corrcoef") else f(a, a)

    with jax.enable_x64(True):
        for dtype in (np.int32, np.int8, np.bool_):
            a = np.array([1, 2, 3, 1], dtype)
            want = call(jnp, jnp.asarray(a)).dtype
            got = call(tj.numpy, tj.numpy.asarray(a)).dtype
            assert got == want, (name, dtype, got, want)


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("name", ["nonzero", "flatnonzero", "argwhere", "cumulative_sum", "gradient",
                                  "histogram_bin_edges"])
def test_index_and_integer_results_have_jax_numpy_dtypes_with_and_without_x64(name, x64):
    """Under x64 jax.numpy's indices (nonzero, flatnonzero, argwhere) are int64 and cumulative_sum of an integer
    or bool sums in the default (unsigned) int, int64/uint64; gradient and histogram_bin_edges of int32 are float32
    (of int64: float64). tapejax gave int32 indices and sums and float64 for int32, a dtype jax.numpy does not."""
    def values(r):
        return [(str(np.asarray(x).dtype), np.asarray(x).tolist()) for x in (r if isinstance(r, tuple) else (r,))]

    with jax.enable_x64(x64):
        for dtype in (np.bool_, np.int8, np.uint8, np.int32, np.uint32, np.int64, np.float16, np.float32):
            a = np.array([0, 3, 1, 0, 2]).astype(dtype)
            if name == "gradient" and dtype == np.bool_:
                continue  # (jax.numpy refuses a bool difference)
            want = values(getattr(jnp, name)(jnp.asarray(a)))
            got = values(getattr(tj.numpy, name)(tj.constant(a)))
            assert got == want, (name, dtype, got, want)


X64_FLOAT_CASES = {
    "polyint": lambda m, a: m.polyint(a, m=2, k=np.array([0, 1], a.dtype)), "polyder": lambda m, a: m.polyder(a),
    "polymul": lambda m, a: m.polymul(a, a), "polydiv": lambda m, a: m.polydiv(a, a[1:])[0],
    "poly": lambda m, a: m.poly(a), "roots": lambda m, a: m.roots(a),
    "average": lambda m, a: m.average(a, weights=a), "ldexp of a Python number": lambda m, a: m.ldexp(3, a),
    "kaiser": lambda m, a: m.kaiser(4, a[1]), "kaiser of a Python number": lambda m, a: m.kaiser(4, 0.1),
}


@pytest.mark.parametrize("x64", [False, True], ids=["x64 off", "x64 on"])
@pytest.mark.parametrize("name", list(X64_FLOAT_CASES))
def test_integer_and_python_number_inputs_take_jax_numpy_s_float(name, x64):
    """jax.numpy makes an int32 (int8, bool...) input float32 also under x64 (int64: float64), a Python number the
    default float (float64 under x64), and its Kaiser window is in the default float promoted with beta's dtype.
    tapejax's polynomial functions and average of int32 gave float64 under x64, kaiser gave beta's dtype (float16
    for a float16 beta) and float32 for a Python number under x64, ldexp of a Python number float32 under x64."""
    case = X64_FLOAT_CASES[name]
    with jax.enable_x64(x64):
        for dtype in (np.bool_, np.int8, np.int32, np.int64, np.float16, np.float32):
            a = np.array([1, 3, 2, 1]).astype(dtype)
            try:
                want = case(jnp, jnp.asarray(a))
            except (TypeError, ValueError, NotImplementedError):  # (jax.numpy refuses it: roots of float16)
                continue
            got = case(tj.numpy, tj.constant(a))
            assert np.dtype(got.dtype) == np.dtype(want.dtype), (name, dtype, got.dtype, want.dtype)
            np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-3 if dtype == np.float16 else 1e-5,
                                       atol=1e-5, err_msg=f"{name} {np.dtype(dtype).name}")


X64_EXACT_CASES = {
    "sum of bools, not promoted": lambda m: m.sum(np.array([[True, False], [True, True]]), 0, promote_integers=False),
    "prod of bools, not promoted": lambda m: m.prod(np.array([True, True]), promote_integers=False),
    "cov of no variables": lambda m: m.cov(np.zeros((0, 5), np.float32)),
    "cov of no complex variables": lambda m: m.cov(np.zeros((3, 0), np.complex64), rowvar=False),
    "intersect1d indices, sized": lambda m: m.intersect1d(np.array([3, 1, 2, 3], np.int16), np.array([1, 3, 5]),
                                                         return_indices=True, size=3),
}


@pytest.mark.parametrize("x64", [False, True], ids=["x64 off", "x64 on"])
@pytest.mark.parametrize("name", list(X64_EXACT_CASES))
def test_dtypes_jax_numpy_fixes_whatever_x64(name, x64):
    """Bools summed without promotion count in int32, an empty covariance is of the default float, a sized
    intersect1d's indices are of the index dtype (int64 under x64), as jax.numpy's; tapejax gave int64 sums under
    x64, the input's inexact dtype for the empty covariance and int32 indices."""
    with jax.enable_x64(x64):
        got, want = X64_EXACT_CASES[name](tj.numpy), X64_EXACT_CASES[name](jnp)
        for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            assert (g.dtype, tuple(g.shape)) == (w.dtype, w.shape), (name, g.dtype, w.dtype)
            np.testing.assert_array_equal(g.numpy(), np.asarray(w))
