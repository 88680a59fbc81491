"""tj.numpy.top_k and tj.numpy.minmax, which jax.numpy has from jax 0.11 and tj.numpy on every jax version.

Expected values are written out here or computed by NumPy (a stable argsort, np.min/np.max with initial/where);
gradients against jax.vjp/jax.jvp of references written with jax.lax.top_k and jnp.min/jnp.max, which every jax
has, and against jax.numpy's own top_k and minmax where the installed jax has them. Each family of references is
one jitted program (a few compiles for the file).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from path_runners import Case, assert_same_on_the_paths

tnp = tj.numpy
HAS_TOP_K, HAS_MINMAX = hasattr(jnp, "top_k"), hasattr(jnp, "minmax")

# ties in every row and column (the lower index is taken first)
T = np.array([[1, 3, 3, 0, -2], [5, -1, 5, 2, 2], [0, 0, 4, -3, 4]], np.float32)
W = np.random.default_rng(5).normal(size=(8, 8)).astype(np.float32)  # cotangent weights (sliced to each shape)


def _stable_top_k(a, k, axis, smallest):
    """NumPy's reference: a stable argsort of ``a`` (of ``-a`` for the largest: ties keep the lower index first)."""
    order = np.argsort(a if smallest else -a, axis=axis, kind="stable")
    idx = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(a, idx, axis=axis), idx.astype(np.int32)


def _lax_top_k(a, k, axis, smallest):
    """A reference written with jax.lax.top_k (every jax has it): the values of ``-a``'s top k for the smallest."""
    if smallest:
        return -jax.lax.top_k(-a, k, axis=axis)[0]
    return jax.lax.top_k(a, k, axis=axis)[0]


def _w(shape, start=0):
    """Weights of ``shape``, from W's entries (``start``: other ones)."""
    size = int(np.prod(shape))
    return W.ravel()[start:start + size].reshape(shape)


# (k, axis, mode)
TOP_K = [(3, -1, "largest"), (2, 1, "smallest"), (1, 0, "largest"), (2, 0, "smallest"), (5, 1, "largest"),
         (3, 0, "smallest"), (0, 1, "largest")]


@pytest.mark.parametrize("k, axis, mode", TOP_K, ids=[f"k{k}-axis{a}-{m}" for k, a, m in TOP_K])
def test_top_k_values_and_indices(k, axis, mode):
    want_v, want_i = _stable_top_k(T, k, axis, mode == "smallest")
    v, i = tnp.top_k(T, k, axis=axis, mode=mode)
    assert isinstance(v, tj.Tensor) and isinstance(i, tj.Tensor)
    assert v.dtype == np.float32 and i.dtype == np.int32 and v.shape == i.shape == want_v.shape
    np.testing.assert_array_equal(v.numpy(), want_v)
    np.testing.assert_array_equal(i.numpy(), want_i)
    # sorted=False allows any order: the same entries, each at its index
    v2, i2 = tnp.top_k(tj.constant(T), k, axis=axis, mode=mode, sorted=False)
    np.testing.assert_array_equal(np.sort(v2.numpy(), axis=axis), np.sort(want_v, axis=axis))
    np.testing.assert_array_equal(np.take_along_axis(T, i2.numpy(), axis=axis), v2.numpy())


def test_top_k_written_out():
    # jax.numpy's docstring example, by hand
    a = np.array([[1, 2, 3, 4, 5], [5, 4, 3, 2, 1]], np.int32)
    v, i = tnp.top_k(a, 2)
    np.testing.assert_array_equal(v.numpy(), [[5, 4], [5, 4]])
    np.testing.assert_array_equal(i.numpy(), [[4, 3], [0, 1]])
    v, i = tnp.top_k(a, 2, axis=0, mode="smallest")
    np.testing.assert_array_equal(v.numpy(), [[1, 2, 3, 2, 1], [5, 4, 3, 4, 5]])
    np.testing.assert_array_equal(i.numpy(), [[0, 0, 0, 1, 1], [1, 1, 1, 0, 0]])
    assert v.dtype == np.int32


def test_top_k_order_of_nan_signed_zeros_and_integer_extremes():
    # a NaN above every number (in both modes), -0.0 below 0.0, as jax 0.12's top_k (lax.top_k's total order)
    x = np.array([1.0, np.nan, -np.inf, 0.0, -0.0, np.inf], np.float32)
    v, i = tnp.top_k(x, 6)
    np.testing.assert_array_equal(i.numpy(), [1, 5, 0, 3, 4, 2])
    np.testing.assert_array_equal(np.signbit(v.numpy()), [False, False, False, False, True, True])
    v, i = tnp.top_k(x, 6, mode="smallest")
    np.testing.assert_array_equal(i.numpy(), [2, 4, 3, 0, 5, 1])
    np.testing.assert_array_equal(np.signbit(v.numpy()), [True, True, False, False, False, False])
    assert np.isnan(v.numpy()[-1])
    # integers: the lowest value is the smallest (its negation would overflow), unsigned and bool too
    small = np.array([-128, 127, 0, -1, -128], np.int8)
    v, i = tnp.top_k(small, 3, mode="smallest")
    assert v.dtype == np.int8
    np.testing.assert_array_equal(v.numpy(), [-128, -128, -1])
    np.testing.assert_array_equal(i.numpy(), [0, 4, 3])
    v, i = tnp.top_k(small, 2)
    np.testing.assert_array_equal(v.numpy(), [127, 0])
    np.testing.assert_array_equal(i.numpy(), [1, 2])
    v, i = tnp.top_k(np.array([0, 255, 7], np.uint8), 2, mode="smallest")
    np.testing.assert_array_equal(v.numpy(), [0, 7])
    np.testing.assert_array_equal(i.numpy(), [0, 2])
    flags = np.array([True, False, True, False])
    v, i = tnp.top_k(flags, 2)
    assert v.dtype == np.bool_ and v.numpy().all()
    np.testing.assert_array_equal(i.numpy(), [0, 2])
    v, i = tnp.top_k(flags, 2, mode="smallest")
    assert not v.numpy().any()
    np.testing.assert_array_equal(i.numpy(), [1, 3])


def test_top_k_sizes_at_the_edges():
    v, i = tnp.top_k(T, 0)
    assert v.shape == i.shape == (3, 0) and v.dtype == np.float32 and i.dtype == np.int32
    v, i = tnp.top_k(np.zeros((0, 3), np.float32), 2)  # (another axis of size 0)
    assert v.shape == i.shape == (0, 2)
    v, i = tnp.top_k(np.zeros((4, 0), np.float32), 0, axis=1)
    assert v.shape == (4, 0)
    v, i = tnp.top_k(T[0], np.int64(5), mode="smallest")  # k = the axis' size: the whole axis sorted
    np.testing.assert_array_equal(v.numpy(), [-2, 0, 1, 3, 3])
    np.testing.assert_array_equal(i.numpy(), [4, 3, 0, 1, 2])
    v, _ = tnp.top_k(T, tj.constant(2), axis=0)  # (a concrete scalar Tensor k)
    np.testing.assert_array_equal(v.numpy(), _stable_top_k(T, 2, 0, False)[0])


@pytest.mark.parametrize("label, call, error, match", [
    ("k past the axis", lambda: tnp.top_k(T, 6), ValueError,
     r"tj.numpy.top_k: k=6 is out of range for axis 1 of size 5"),
    ("k along axis 0", lambda: tnp.top_k(T, 4, axis=0), ValueError,
     r"tj.numpy.top_k: k=4 .* axis 0 of size 3 .*\(3, 5\)"),
    ("negative k", lambda: tnp.top_k(T, -1), ValueError, r"tj.numpy.top_k: k=-1 .* between 0 and 5"),
    ("float k", lambda: tnp.top_k(T, 2.0), TypeError, r"tj.numpy.top_k: k must be an integer"),
    ("complex", lambda: tnp.top_k(T + 1j, 2), ValueError, r"tj.numpy.top_k: complex values have no order"),
    ("mode", lambda: tnp.top_k(T, 2, mode="biggest"), ValueError, r"tj.numpy.top_k: mode must be 'largest' or"),
    ("axis", lambda: tnp.top_k(T, 1, axis=2), ValueError, r"top_k.*axis 2 is out of range"),
    ("scalar", lambda: tnp.top_k(np.float32(3), 1), ValueError, r"top_k.*axis -1 is out of range"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_top_k_bad_arguments_say_what_to_fix(label, call, error, match):
    with pytest.raises(error, match=match):
        call()


def _tape_and_accumulator(f, x, w, t):
    """tj's ``f``'s output, the gradient of ``sum(f(x) * w)`` by a tape and the JVP along ``t`` by an accumulator."""
    xt = tj.constant(x)
    with tj.GradientTape() as tape:
        tape.watch(xt)
        y = f(xt)
        loss = tnp.sum(y * w)
    with tj.ForwardAccumulator(xt, tj.constant(t)) as acc:
        yj = f(xt)
    return y, tape.gradient(loss, xt), acc.jvp(yj)


def test_top_k_gradient_of_the_values_as_jax():
    # the gradient reaches the entries taken (the first of tied ones), as jax.vjp of lax.top_k's and jax.numpy's
    tangent = np.cos(T)

    @jax.jit
    def references(a, u):
        out = []
        for k, axis, mode in TOP_K:
            f = (lambda v, k=k, axis=axis, mode=mode: _lax_top_k(v, k, axis, mode == "smallest"))
            y, vjp = jax.vjp(f, a)
            out.append((vjp(_w(y.shape))[0], jax.jvp(f, (a,), (u,))[1]))
            if HAS_TOP_K:
                g = (lambda v, k=k, axis=axis, mode=mode: jnp.top_k(v, k, axis=axis, mode=mode)[0])
                y, vjp = jax.vjp(g, a)
                out.append((vjp(_w(y.shape))[0], jax.jvp(g, (a,), (u,))[1]))
        return out
    want = iter(references(T, tangent))
    for k, axis, mode in TOP_K:
        y, grad, jvp = _tape_and_accumulator(lambda x: tnp.top_k(x, k, axis=axis, mode=mode)[0], T,
                                             _w(_stable_top_k(T, k, axis, False)[0].shape), tangent)
        for source in ("lax.top_k",) + (("jnp.top_k",) if HAS_TOP_K else ()):
            want_g, want_t = next(want)
            np.testing.assert_allclose(grad.numpy(), want_g, err_msg=f"{source} k={k} axis={axis} {mode}")
            np.testing.assert_allclose(jvp.numpy(), want_t, err_msg=f"{source} k={k} axis={axis} {mode}")
    # the indices have none
    x = tj.constant(T)
    with tj.GradientTape() as tape:
        tape.watch(x)
        _, i = tnp.top_k(x, 2)
        through = tnp.sum(tnp.astype(i, jnp.float32))
    assert tape.gradient(through, x) is None


@pytest.mark.skipif(not HAS_TOP_K, reason="jax.numpy.top_k: jax 0.11 and later")
def test_top_k_as_jax_numpys():
    rng = np.random.default_rng(2)
    cases = [(T, 3, -1, "largest"), (T, 2, 0, "smallest"),
             (rng.integers(-4, 4, size=(4, 6)).astype(np.int32), 3, 1, "smallest"),
             (rng.integers(0, 3, size=(5, 3)).astype(np.uint8), 2, 0, "largest"),
             (np.array([1.0, np.nan, -np.inf, 0.0, -0.0, np.inf, 2.0], np.float32), 7, 0, "smallest"),
             (np.array([True, False, True]), 2, 0, "smallest")]
    for a, k, axis, mode in cases:
        want_v, want_i = jnp.top_k(a, k, axis=axis, mode=mode)
        v, i = tnp.top_k(a, k, axis=axis, mode=mode)
        assert v.dtype == want_v.dtype and i.dtype == want_i.dtype, (a.dtype, mode)
        np.testing.assert_array_equal(i.numpy(), want_i)
        np.testing.assert_array_equal(v.numpy(), want_v)
        np.testing.assert_array_equal(np.signbit(v.numpy()), np.signbit(want_v))


# -- minmax --------------------------------------------------------------------------------------------------------

MASK = np.array([[True, False, True, True, False], [False, True, True, False, True], [True, True, False, True, True]])

# (label, keyword arguments, NumPy's min and max keyword arguments (None: those of minmax))
MINMAX = [
    ("all", {}, None),
    ("axis 1", {"axis": 1}, None),
    ("axis 0 keepdims", {"axis": 0, "keepdims": True}, None),
    ("axes tuple", {"axis": (0, 1)}, None),
    ("initial", {"axis": 1, "initial": 2.5}, None),
    ("initial pair", {"axis": 0, "initial": (-0.5, 1.5)}, ({"axis": 0, "initial": -0.5}, {"axis": 0, "initial": 1.5})),
    ("where", {"axis": 1, "initial": (10.0, -10.0), "where": MASK},
     ({"axis": 1, "initial": 10.0, "where": MASK}, {"axis": 1, "initial": -10.0, "where": MASK})),
    ("where keepdims", {"axis": 0, "keepdims": True, "initial": (9.0, -9.0), "where": MASK[0]},
     ({"axis": 0, "keepdims": True, "initial": 9.0, "where": MASK[0]},
      {"axis": 0, "keepdims": True, "initial": -9.0, "where": MASK[0]})),
]


@pytest.mark.parametrize("label, kw, numpy_kw", MINMAX, ids=[c[0] for c in MINMAX])
def test_minmax_values_as_numpys_min_and_max(label, kw, numpy_kw):
    low_kw, high_kw = numpy_kw or (kw, kw)
    lo, hi = tnp.minmax(T, **kw)
    for got, want in ((lo, np.min(T, **low_kw)), (hi, np.max(T, **high_kw))):
        assert isinstance(got, tj.Tensor) and got.dtype == np.float32 and got.shape == np.shape(want), label
        np.testing.assert_array_equal(got.numpy(), want)
    if HAS_MINMAX:
        for got, want in zip((lo, hi), jnp.minmax(T, **kw)):
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got.numpy(), want)


def test_minmax_dtypes_and_empty_axes():
    small = np.array([[3, -7, 2], [1, 5, -1]], np.int8)
    lo, hi = tnp.minmax(small, axis=1, initial=(0, 4))
    assert lo.dtype == hi.dtype == np.int8
    np.testing.assert_array_equal(lo.numpy(), [-7, -1])
    np.testing.assert_array_equal(hi.numpy(), [4, 5])
    lo, hi = tnp.minmax(small, initial=2.7)  # (the initial value in the input's dtype, as jax.numpy's: 2)
    assert (int(lo), int(hi)) == (-7, 5)
    lo, hi = tnp.minmax(np.array([True, False]))
    assert lo.dtype == np.bool_ and (bool(lo), bool(hi)) == (False, True)
    # nothing but the initial values over a zero-size axis
    lo, hi = tnp.minmax(np.zeros((0, 3), np.float32), axis=0, initial=(1.0, -1.0))
    np.testing.assert_array_equal(lo.numpy(), [1, 1, 1])
    np.testing.assert_array_equal(hi.numpy(), [-1, -1, -1])
    lo, hi = tnp.minmax(np.array([1.0, np.nan, 3.0], np.float32))
    assert np.isnan(lo.numpy()) and np.isnan(hi.numpy())


@pytest.mark.parametrize("label, call, error, match", [
    ("empty axis", lambda: tnp.minmax(np.zeros((2, 0), np.float32), axis=1), ValueError,
     r"tj.numpy.minmax: axis 1 of the input, shape \(2, 0\), has size 0"),
    ("empty, one initial of two", lambda: tnp.minmax(np.zeros((0,), np.float32), initial=(None, 1.0)), ValueError,
     r"tj.numpy.minmax: axis 0"),
    ("where without initial", lambda: tnp.minmax(T, where=MASK), ValueError,
     r"minmax does not have an identity.*'initial'"),
    ("where with half an initial", lambda: tnp.minmax(T, where=MASK, initial=(1.0, None)), ValueError,
     r"minmax does not have an identity"),
    ("initial triple", lambda: tnp.minmax(T, initial=(1.0, 2.0, 3.0)), ValueError,
     r"tj.numpy.minmax: a tuple initial is \(initial of the min, initial of the max\)"),
    ("initial array", lambda: tnp.minmax(T, initial=np.zeros(2)), ValueError,
     r"tj.numpy.minmax: initial value must be a scalar"),
    ("out", lambda: tnp.minmax(T, out=np.zeros(())), NotImplementedError, r"'out' argument to tj.numpy.minmax"),
    ("axis", lambda: tnp.minmax(T, axis=2), ValueError, r"minmax.*axis 2"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_minmax_bad_arguments_say_what_to_fix(label, call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_minmax_gradients_as_jax_numpys_min_and_max():
    # tied extremes share the gradient equally (T has ties in rows and columns), as jnp.min's and jnp.max's; the
    # entries where= leaves out get none (no tie with the initial values here: tapejax gives such a tie's gradient
    # to the input, TF's maximum convention, where jax splits it)
    configs = [({}, {}), ({"axis": 1}, {"axis": 1}), ({"axis": 0, "keepdims": True}, {"axis": 0, "keepdims": True}),
               ({"axis": 1, "initial": (10.0, -10.0), "where": MASK},
                ({"axis": 1, "initial": 10.0, "where": MASK}, {"axis": 1, "initial": -10.0, "where": MASK}))]
    tangent = np.sin(T)

    @jax.jit
    def references(a, u):
        out = []
        for kw, ref_kw in configs:
            low_kw, high_kw = ref_kw if isinstance(ref_kw, tuple) else (ref_kw, ref_kw)
            fns = [lambda v, low_kw=low_kw, high_kw=high_kw: (jnp.min(v, **low_kw), 2 * jnp.max(v, **high_kw))]
            if HAS_MINMAX:
                fns.append(lambda v, kw=kw: (lambda lo, hi: (lo, 2 * hi))(*jnp.minmax(v, **kw)))
            for f in fns:
                (lo, hi), vjp = jax.vjp(f, a)
                out.append((vjp((_w(lo.shape), _w(hi.shape, 20)))[0], jax.jvp(f, (a,), (u,))[1]))
        return out
    want = iter(references(T, tangent))
    for kw, _ in configs:
        x = tj.constant(T)
        with tj.GradientTape() as tape:
            tape.watch(x)
            lo, hi = tnp.minmax(x, **kw)
            loss = tnp.sum(lo * _w(lo.shape)) + tnp.sum(2 * hi * _w(hi.shape, 20))
        grad = tape.gradient(loss, x)
        with tj.ForwardAccumulator(x, tj.constant(tangent)) as acc:
            lo, hi = tnp.minmax(x, **kw)
            lo_t, hi_t = acc.jvp(lo), acc.jvp(hi)
        for source in ("jnp.min, jnp.max",) + (("jnp.minmax",) if HAS_MINMAX else ()):
            want_g, (want_lo_t, want_hi_t) = next(want)
            np.testing.assert_allclose(grad.numpy(), want_g, rtol=1e-6, err_msg=f"{source} {kw}")
            np.testing.assert_allclose(lo_t.numpy(), want_lo_t, rtol=1e-6, err_msg=f"{source} {kw}")
            np.testing.assert_allclose(2 * hi_t.numpy(), want_hi_t, rtol=1e-6, err_msg=f"{source} {kw}")


def test_listed_as_public_names_on_every_jax():
    # (jax.numpy has them from jax 0.11: tj.numpy lists them before too, for star imports and tab completion)
    assert {"top_k", "minmax"} <= set(tnp.__all__) and {"top_k", "minmax"} <= set(dir(tnp))
    names: dict = {}
    exec("from tapejax.numpy import *", names)
    assert names["top_k"] is tnp.top_k and names["minmax"] is tnp.minmax


def test_top_k_and_minmax_on_every_path():
    # the same gradients eagerly, replayed, by a tape inside tj.function and under jax.grad of the tj code
    def prog(x):
        big, _ = tnp.top_k(x, 2)
        small, idx = tnp.top_k(x, 2, axis=0, mode="smallest")
        lo, hi = tnp.minmax(x, axis=1, initial=(9.0, -9.0), where=MASK)
        return (tnp.sum(big * _w((3, 2))) + tnp.sum(small * small) + tnp.sum(lo * hi)
                + tnp.sum(tnp.astype(idx, jnp.float32)))
    case = Case("top_k and minmax", prog, [T + np.linspace(0, 0.01, 15, dtype=np.float32).reshape(3, 5)])
    assert_same_on_the_paths(case)
