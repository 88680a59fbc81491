"""tj.numpy's index helpers (index_tricks.py): ``r_``, ``c_``, ``mgrid``, ``ogrid``, ``s_``, ``index_exp``,
``fromfunction``, ``mask_indices``, ``isdtype``, ``iterable`` and jax.numpy's scalar-type aliases.

Values and dtypes are compared with jax.numpy's own helpers on the same inputs (computed by JAX at test time);
gradients of ``r_``/``c_`` with respect to Tensor pieces with ``jax.grad`` of the same composition written with
jax.numpy's ``r_``/``c_``, eagerly, by a tape inside tj.function and under jax.grad of the tj code.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from conftest import jax_reference
from path_runners import Case, assert_same, path_eager, path_jax_grad, path_tape_in_function

tnp = tj.numpy

_rng = np.random.default_rng(11)
V = _rng.normal(size=(3,)).astype(np.float32)
W = _rng.normal(size=(2,)).astype(np.float32)
M = _rng.normal(size=(2, 3)).astype(np.float32)
N = _rng.normal(size=(2, 2)).astype(np.float32)
I8 = np.array([1, 2], np.int8)
F16 = np.array([0.5, 1.5], np.float16)


def _same_value(got, want):
    assert isinstance(got, tj.Tensor), type(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape, got.dtype, want.dtype)
    np.testing.assert_allclose(np.asarray(got.numpy(), np.float64), np.asarray(want, np.float64), rtol=1e-6,
                               atol=1e-6)


# (label, expression of m: tj.numpy or jax.numpy, and T: how a piece becomes a Tensor there (tj.constant or
# jnp.asarray)); both sides run the same expression
CASES = [
    ("r_ scalars", lambda m, T: m.r_[1, 2, 3]),
    ("r_ mixed scalars promote", lambda m, T: m.r_[1, 2.5, np.array([1, 2], np.int32)]),
    ("r_ weak int keeps int8", lambda m, T: m.r_[2, I8]),
    ("r_ weak float keeps float16", lambda m, T: m.r_[2.5, F16]),
    ("r_ lists", lambda m, T: m.r_[[1, 2], [3.5]]),
    ("r_ arrays", lambda m, T: m.r_[V, W]),
    ("r_ tensors", lambda m, T: m.r_[T(V), T(W), 0.5]),
    ("r_ 2-d along axis 0", lambda m, T: m.r_[M, T(M)]),
    ("r_ slice", lambda m, T: m.r_[0:5]),
    ("r_ slice step", lambda m, T: m.r_[-1:5:2, 0, 0, 1:4]),
    ("r_ slice float step", lambda m, T: m.r_[0:2.5:0.5]),
    ("r_ slice stop only", lambda m, T: m.r_[:4]),
    ("r_ slice start only", lambda m, T: m.r_[3:]),
    ("r_ slice start and step", lambda m, T: m.r_[5::2]),
    ("r_ slice zero step", lambda m, T: m.r_[0:3:0]),
    ("r_ slice complex step", lambda m, T: m.r_[-1:1:6j, T(V)]),
    ("r_ slice negative complex step", lambda m, T: m.r_[0:1:-3j]),
    ("r_ slice complex step with real part", lambda m, T: m.r_[0:1:(3 + 4j)]),
    ("r_ slice zero complex step", lambda m, T: m.r_[0:1:0j]),
    ("r_ slice scalar tensor bounds", lambda m, T: m.r_[T(1):T(7):T(2)]),
    ("r_ numpy scalar bounds", lambda m, T: m.r_[np.float32(0.5):3]),
    ("r_ directive axis", lambda m, T: m.r_["0", V, W]),
    ("r_ directive axis ndmin", lambda m, T: m.r_["0,2", [1, 2, 3], [4, 5, 6]]),
    ("r_ directive axis 1 ndmin", lambda m, T: m.r_["1,2", [1, 2, 3], [4, 5, 6]]),
    ("r_ directive trans1d 0", lambda m, T: m.r_["0,2,0", [1, 2, 3], [4, 5, 6]]),
    ("r_ directive trans1d 1", lambda m, T: m.r_["1,2,1", [1, 2, 3], [4, 5, 6]]),
    ("r_ directive negative trans1d", lambda m, T: m.r_["0,2,-2", [1, 2, 3], [4, 5, 6]]),
    ("r_ directive ndmin 3", lambda m, T: m.r_["-1,3,-1", [1, 2], T(W)]),
    ("r_ directive ndmin 3 trans1d 0", lambda m, T: m.r_["0,3,0", M, T(M)]),
    ("r_ directive with slices", lambda m, T: m.r_["0,2,0", 0:3, 1:1:3j]),
    ("r_ directive extra fields", lambda m, T: m.r_["1,2,3,4", [1, 2], [3, 4]]),
    ("r_ directive negative ndmin", lambda m, T: m.r_["0,-1", [1, 2]]),
    ("r_ directive r", lambda m, T: m.r_["r", 1:4, T(V)]),
    ("r_ directive c", lambda m, T: m.r_["c", 1:4, T(V)]),
    ("r_ directive r on 2-d", lambda m, T: m.r_["r", M, M]),
    ("c_ vectors", lambda m, T: m.c_[V, T(V)]),
    ("c_ scalars", lambda m, T: m.c_[1, 2, 3]),
    ("c_ matrices", lambda m, T: m.c_[M, T(N), 0:2]),
    ("c_ matrix and slice", lambda m, T: m.c_[np.ones((2, 3)), 1:3]),
    ("c_ directive", lambda m, T: m.c_["0,3,0", M]),
    ("c_ directive axis 0", lambda m, T: m.c_["0", V, W]),
    ("c_ directive c", lambda m, T: m.c_["c", V]),
    ("c_ complex step", lambda m, T: m.c_[0:1:3j, T(V)]),
    ("c_ int8 and weak int list", lambda m, T: m.c_[I8, [7, 8]]),
    ("c_ scalar rows", lambda m, T: m.c_[I8[:1], 7, 8.5]),
    ("mgrid one slice", lambda m, T: m.mgrid[0:4]),
    ("mgrid two slices", lambda m, T: m.mgrid[0:2, 0:3]),
    ("mgrid complex step promotes", lambda m, T: m.mgrid[0:3, 0:1:3j]),
    ("mgrid three slices", lambda m, T: m.mgrid[-1:1:0.5, 0:2, 5:2:-1]),
    ("mgrid float steps", lambda m, T: m.mgrid[0:1:0.25, -1:1:4j]),
    ("mgrid empty", lambda m, T: m.mgrid[()]),
    ("mgrid empty slice", lambda m, T: m.mgrid[3:1, 0:2]),
    ("mgrid tuple of one", lambda m, T: m.mgrid[0:3,]),
    ("ogrid one slice", lambda m, T: m.ogrid[1:7:2]),
    ("ogrid complex step", lambda m, T: m.ogrid[0:1:5j]),
]

LIST_CASES = [
    ("ogrid two slices", lambda m: m.ogrid[0:2, 0:3]),
    ("ogrid three slices promote", lambda m: m.ogrid[0:2, 0:1:3j, -2:0]),
    ("ogrid empty", lambda m: m.ogrid[()]),
]


@pytest.mark.parametrize("label, expr", CASES, ids=[c[0] for c in CASES])
def test_values_as_jax_numpy(label, expr):
    got = expr(tnp, tj.constant)
    if label == "r_ slice scalar tensor bounds":  # (slice bounds must be known: not under jax.jit)
        want = expr(jnp, jnp.asarray)
    else:
        want = jax_reference(lambda: expr(jnp, jnp.asarray))
    _same_value(got, want)


@pytest.mark.parametrize("label, expr", LIST_CASES, ids=[c[0] for c in LIST_CASES])
def test_ogrid_lists_as_jax_numpy(label, expr):
    got, want = expr(tnp), jax_reference(lambda: expr(jnp))
    assert isinstance(got, list) and len(got) == len(want)
    for g, w in zip(got, want):
        _same_value(g, w)


def test_index_builders_are_jax_numpys():
    assert tnp.s_ is jnp.s_ and tnp.index_exp is jnp.index_exp
    assert tnp.s_[1:3, ::2, ..., None] == jnp.s_[1:3, ::2, ..., None] == (slice(1, 3), slice(None, None, 2), Ellipsis,
                                                                          None)
    assert tnp.s_[2] == 2 and tnp.index_exp[2] == (2,)
    assert tnp.index_exp[1:2, 3] == (slice(1, 2), 3)
    x = tj.constant(M)
    np.testing.assert_array_equal(x[tnp.s_[:, 1:]].numpy(), M[:, 1:])
    np.testing.assert_array_equal(x[tnp.index_exp[1]].numpy(), M[1])


# -- gradients ----------------------------------------------------------------------------------------------------

# (label, tj composition of (a, b), jax.numpy composition of (a, b)); a is V (3,), b is M (2, 3)
GRAD_CASES = [
    ("r_ vectors and slices", lambda a, b: tnp.r_[a, 0:2, b[0], 0.5 * a, 0:1:4j],
     lambda a, b: jnp.r_[a, 0:2, b[0], 0.5 * a, 0:1:4j]),
    ("r_ matrices", lambda a, b: tnp.r_[b, a[None], tnp.sin(b)], lambda a, b: jnp.r_[b, a[None], jnp.sin(b)]),
    ("r_ directive 0,2,0", lambda a, b: tnp.r_["0,2,0", a, b[1]], lambda a, b: jnp.r_["0,2,0", a, b[1]]),
    ("r_ directive 1,2", lambda a, b: tnp.r_["1,2", a[None], b[:1]], lambda a, b: jnp.r_["1,2", a[None], b[:1]]),
    ("r_ directive ndmin 3", lambda a, b: tnp.r_["0,3,0", b, a[:2, None]], lambda a, b: jnp.r_["0,3,0", b, a[:2, None]]),
    ("r_ directive r", lambda a, b: tnp.r_["r", a, b[0] * a], lambda a, b: jnp.r_["r", a, b[0] * a]),
    ("r_ directive c", lambda a, b: tnp.r_["c", a, 1:3, b[1]], lambda a, b: jnp.r_["c", a, 1:3, b[1]]),
    ("c_ vectors", lambda a, b: tnp.c_[a, a * a, b[1]], lambda a, b: jnp.c_[a, a * a, b[1]]),
    ("c_ matrices and slice", lambda a, b: tnp.c_[b, a[:2, None] * 2.0, 0:2],
     lambda a, b: jnp.c_[b, a[:2, None] * 2.0, 0:2]),
    ("c_ directive", lambda a, b: tnp.c_["0,2,0", a, b[0]], lambda a, b: jnp.c_["0,2,0", a, b[0]]),
]


def _loss_weights(shape):
    return np.arange(1, int(np.prod(shape)) + 1, dtype=np.float32).reshape(shape) / 7


@pytest.mark.parametrize("label, tj_fn, jnp_fn", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradients_through_pieces_as_jax(label, tj_fn, jnp_fn):
    want = jax_reference(jnp_fn, V, M)
    w = _loss_weights(want.shape)
    a, b = tj.constant(V), tj.constant(M)
    with tj.GradientTape() as tape:
        tape.watch([a, b])
        y = tj_fn(a, b)
        loss = tnp.sum(y * w)
    _same_value(y, want)
    ga, gb = tape.gradient(loss, [a, b])
    ja, jb = jax_reference(jax.grad(lambda u, v: jnp.sum(jnp_fn(u, v) * w), (0, 1)), V, M)
    np.testing.assert_allclose(ga.numpy(), ja, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(gb.numpy(), jb, rtol=1e-6, atol=1e-6)

    @tj.function
    def grads_in_function(u, v):
        with tj.GradientTape() as t:
            t.watch([u, v])
            inner = tnp.sum(tj_fn(u, v) * w)
        return t.gradient(inner, [u, v])
    fa, fb = grads_in_function(a, b)
    np.testing.assert_allclose(fa.numpy(), ja, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(fb.numpy(), jb, rtol=1e-6, atol=1e-6)


def test_gradients_on_every_path():
    # one program of r_, c_ and mgrid: the same gradient eagerly, by a tape inside tj.function and under jax.grad
    # of the tj code
    def prog(x, y):
        grid = tnp.mgrid[0:2, 0:3].astype(jnp.float32)
        stacked = tnp.r_["0,2", x, y[0], 0:1:3j]
        side = tnp.c_[y, x[:2], 1:3]
        return tnp.sum(stacked * tnp.sin(grid[1][:1])) + tnp.sum(side * side)
    case = Case("index tricks", prog, [V, M])
    want = path_eager(case)
    assert_same("tape inside tj.function", path_tape_in_function(case), want)
    assert_same("jax.grad", path_jax_grad(case, jit=True), want, none_as_zero=True)


def test_variable_pieces_and_none_gradients():
    v = tj.Variable(V)
    c = tj.constant(W)
    with tj.GradientTape() as tape:
        y = tnp.sum(tnp.r_[v, c, 0:2] * 2.0)
    gv, gc = tape.gradient(y, [v, c])
    np.testing.assert_allclose(gv.numpy(), np.full(3, 2.0, np.float32))
    assert gc is None  # not watched


# -- fromfunction, mask_indices, isdtype, iterable ----------------------------------------------------------------

FROMFUNCTION = [
    ("elementwise", lambda m: m.fromfunction(lambda i, j: m.sin(i) * j + 1.0, (3, 4))),
    ("1-d int shape", lambda m: m.fromfunction(lambda i: i * i, 5)),
    ("int dtype", lambda m: m.fromfunction(lambda i, j: i * 10 + j, (2, 3), dtype=jnp.int32)),
    ("comparison", lambda m: m.fromfunction(lambda i, j: i == j, (3, 3), dtype=int)),
    ("constant broadcast", lambda m: m.fromfunction(lambda i, j: 1.5, (2, 2))),
    ("three axes", lambda m: m.fromfunction(lambda i, j, k: m.maximum(i, j) - k, (2, 3, 2))),
    ("empty axis", lambda m: m.fromfunction(lambda i, j: i + j, (0, 3))),
]


@pytest.mark.parametrize("label, expr", FROMFUNCTION, ids=[c[0] for c in FROMFUNCTION])
def test_fromfunction_as_jax_numpy(label, expr):
    _same_value(expr(tnp), jax_reference(lambda: expr(jnp)))


def test_fromfunction_tuple_results_and_gradient():
    got = tnp.fromfunction(lambda i, j: (i, j + 1), (2, 3))
    want = jax_reference(lambda: jnp.fromfunction(lambda i, j: (i, j + 1), (2, 3)))
    assert isinstance(got, tuple) and len(got) == 2
    for g, w in zip(got, want):
        _same_value(g, w)
    # a Tensor the function closes over is differentiated: d/dw sum(w * i + j) = sum(i)
    w = tj.constant(2.0)
    with tj.GradientTape() as tape:
        tape.watch(w)
        y = tnp.sum(tnp.fromfunction(lambda i, j: w * tnp.cos(i) + j, (3, 2)))
    want_g = jax_reference(jax.grad(lambda s: jnp.sum(jnp.fromfunction(lambda i, j: s * jnp.cos(i) + j, (3, 2)))), 2.0)
    np.testing.assert_allclose(tape.gradient(y, w).numpy(), want_g, rtol=1e-6)
    want_y = jax_reference(lambda: jnp.sum(jnp.fromfunction(lambda i, j: 2.0 * jnp.cos(i) + j, (3, 2))))
    np.testing.assert_allclose(float(y), float(want_y), rtol=1e-6)
    # keyword arguments go to the function (jax.numpy would map them too: compared with the values written out)
    _same_value(tnp.fromfunction(lambda i, j, scale: scale * (i - j), (3, 3), scale=0.5),
                jax_reference(lambda: jnp.fromfunction(lambda i, j: 0.5 * (i - j), (3, 3))))
    # inside tj.function
    f = tj.function(lambda s: tnp.fromfunction(lambda i, j: s * i - j, (2, 2)))
    _same_value(f(tj.constant(3.0)), jax_reference(lambda: jnp.fromfunction(lambda i, j: 3.0 * i - j, (2, 2))))


@pytest.mark.parametrize("k", [-1, 0, 1, 2])
def test_mask_indices_as_jax_numpy(k):
    for tj_mask, jnp_mask in ((tnp.triu, jnp.triu), (tnp.tril, jnp.tril), (jnp.triu, jnp.triu)):
        got, want = tnp.mask_indices(4, tj_mask, k), jnp.mask_indices(4, jnp_mask, k)
        assert isinstance(got, tuple) and len(got) == 2
        for g, w in zip(got, want):
            _same_value(g, w)
    got = tnp.mask_indices(3, tnp.triu, k, size=8)
    want = jax_reference(lambda: jnp.mask_indices(3, jnp.triu, k, size=8))
    for g, w in zip(got, want):
        _same_value(g, w)


def test_isdtype_and_iterable():
    for dt in (tnp.float32, tnp.int8, tnp.bool, tnp.complex64, tnp.uint):
        for kind in ("real floating", "integral", "bool", "complex floating", "numeric", ("integral", "bool")):
            assert tnp.isdtype(dt, kind) == jnp.isdtype(dt, kind)
    assert tnp.iterable([1, 2]) and tnp.iterable(tj.constant([1.0])) and not tnp.iterable(tj.constant(1.0))
    assert not tnp.iterable(3) and tnp.iterable(jnp.zeros(2)) == jnp.iterable(jnp.zeros(2))


# -- scalar types and the rest of jax.numpy's names ---------------------------------------------------------------

SCALAR_TYPES = ["bool", "cdouble", "character", "complex_", "csingle", "double", "flexible", "float_", "generic",
                "int_", "object_", "single", "uint", "int4", "uint4", "float8_e4m3fn", "float8_e5m2"]


@pytest.mark.parametrize("name", SCALAR_TYPES)
def test_scalar_types_are_jax_numpys(name):
    # NumPy's abstract types are jax.numpy's own objects; the concrete ones equal jax.numpy's (a dtype alike) and,
    # called, give Tensors
    ours, theirs = getattr(tnp, name), getattr(jnp, name)
    if name in ("character", "flexible", "generic", "object_"):
        assert ours is theirs
    else:
        assert ours == theirs and hash(ours) == hash(theirs) and np.dtype(ours) == np.dtype(theirs)
        one = ours(1)
        assert isinstance(one, tj.Tensor) and one.dtype == theirs(1).dtype and one.shape == ()  # (x64 off: float32)
    assert name in dir(tnp)


def test_scalar_types_as_dtypes():
    x = tnp.zeros((2,), dtype=tnp.single)
    assert x.dtype == jnp.float32
    assert tnp.ones((1,), dtype=tnp.bool).dtype == jnp.bool_
    assert tnp.issubdtype(tnp.float32, tnp.generic) and tnp.issubdtype(tnp.csingle, tnp.complexfloating)
    assert tnp.euler_gamma == jnp.euler_gamma and tnp.ComplexWarning is jnp.ComplexWarning
    assert tnp.array_str(tj.constant([1.0, 2.0])) == np.array_str(np.array([1.0, 2.0], np.float32))
    # tj.numpy's own functions still see Python's bool (tj.numpy.bool is answered by its module __getattr__)
    assert "bool" not in vars(tnp)
    _same_value(tnp.linspace(0.0, 1.0, 4, endpoint=False),
                jax_reference(lambda: jnp.linspace(0.0, 1.0, 4, endpoint=False)))


# names of jax.numpy that tj.numpy leaves out on purpose: file I/O, printing options, ndarray; the polynomial
# functions are polynomial.py's
LEFT_OUT = {"load", "save", "savez", "fromfile", "frombuffer", "fromstring", "fromiter", "get_printoptions",
            "printoptions", "set_printoptions", "ndarray"}
POLYNOMIAL = {"poly", "polyadd", "polyder", "polydiv", "polyfit", "polyint", "polymul", "polysub", "roots"}


def test_every_other_jax_numpy_name_is_on_tj_numpy():
    missing = {n for n in dir(jnp) if not n.startswith("_") and not hasattr(tnp, n)}
    assert not missing - LEFT_OUT - POLYNOMIAL, sorted(missing - LEFT_OUT - POLYNOMIAL)


# -- errors -------------------------------------------------------------------------------------------------------

ERRORS = [
    ("unknown directive", lambda: tnp.r_["x", 1], ValueError, r"tj.numpy.r_: could not understand directive 'x'"),
    ("non-integer directive field", lambda: tnp.c_["0,a", 1], ValueError, r"tj.numpy.c_: could not understand"),
    ("empty directive", lambda: tnp.r_["", 1], ValueError, r"tj.numpy.r_: could not understand directive ''"),
    ("directive not first", lambda: tnp.r_[1, "0", 2], ValueError, r"tj.numpy.r_: a string directive must come first"),
    ("nothing", lambda: tnp.r_[()], ValueError, r"tj.numpy.r_: nothing to concatenate"),
    ("directive alone", lambda: tnp.c_["r"], ValueError, r"tj.numpy.c_: nothing to concatenate"),
    ("non-integer step count", lambda: tnp.r_[0:1:2.5j], ValueError,
     r"tj.numpy.r_: the imaginary step 2.5j .* must be a whole number"),
    ("non-integer step count mgrid", lambda: tnp.mgrid[0:1:3.5j, 0:2], ValueError, r"tj.numpy.mgrid: the imaginary"),
    ("non-integer step count ogrid", lambda: tnp.ogrid[0:1:1.5j], ValueError, r"tj.numpy.ogrid: the imaginary"),
    ("complex step with no stop", lambda: tnp.r_[:: 3j], ValueError, r"tj.numpy.r_: .* needs a stop"),
    ("complex start", lambda: tnp.r_[1j:3], ValueError, r"tj.numpy.r_: the slice start must be real"),
    ("real complex step", lambda: tnp.c_[0:3:(2 + 0j)], ValueError, r"tj.numpy.c_: a complex slice step must be"),
    ("string bound", lambda: tnp.r_["a":3], TypeError, r"tj.numpy.r_: the slice start must be a number"),
    ("array bound", lambda: tnp.mgrid[0:np.ones(2)], TypeError, r"tj.numpy.mgrid: the slice stop must be a number"),
    ("shapes that do not fit", lambda: tnp.r_[np.ones((2, 2)), [1, 2]], ValueError,
     r"tj.numpy.r_: the pieces cannot be concatenated along axis 0"),
    ("scalars with ndmin 0", lambda: tnp.r_["0,0", 1, 2], ValueError, r"tj.numpy.r_: the pieces cannot be"),
    ("axis out of range", lambda: tnp.r_["5", [1, 2]], ValueError, r"tj.numpy.r_: .* along axis 5"),
    ("mgrid non-slice", lambda: tnp.mgrid[0:2, 3], TypeError, r"tj.numpy.mgrid: index it with slices"),
    ("ogrid non-slice", lambda: tnp.ogrid[1], TypeError, r"tj.numpy.ogrid: index it with slices"),
    ("fromfunction float shape", lambda: tnp.fromfunction(lambda i: i, (2.5,)), TypeError,
     r"tj.numpy.fromfunction: shape must be"),
    ("fromfunction negative shape", lambda: tnp.fromfunction(lambda i: i, (-1,)), ValueError,
     r"tj.numpy.fromfunction: shape \(-1,\) has a negative"),
    ("mask_indices float n", lambda: tnp.mask_indices(2.0, tnp.triu), TypeError, r"tj.numpy.mask_indices: n must"),
]


@pytest.mark.parametrize("label, call, exc, match", ERRORS, ids=[c[0] for c in ERRORS])
def test_bad_input_raises_naming_the_helper(label, call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_traced_slice_bound_names_the_helper():
    with pytest.raises(tj.tensor.TracedValueError, match=r"tj.numpy.r_: argument `slice stop`"):
        tj.function(lambda n: tnp.r_[0:n])(tj.constant(3))
    with pytest.raises(tj.tensor.TracedValueError, match=r"tj.numpy.fromfunction: argument `shape`"):
        tj.function(lambda n: tnp.fromfunction(lambda i: i, (n,)))(tj.constant(3))
    # a known scalar Tensor stands for its value
    _same_value(tnp.mgrid[0:tj.constant(3)], jax_reference(lambda: jnp.mgrid[0:3]))
