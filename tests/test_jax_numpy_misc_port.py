"""JAX's tests of jax.numpy.vectorize, jax.numpy.roots and jax.numpy.einsum, ported to tj.numpy.

Sources: jax-ml/jax tests/lax_numpy_vectorize_test.py (VectorizeTest), tests/polynomial_test.py (TestPolynomial) and
tests/lax_numpy_einsum_test.py (EinsumTest), at commit cec06d11, run against the installed jax 0.10.2 and NumPy.
``jnp.vectorize`` / ``jnp.roots`` / ``jnp.einsum`` -> ``tj.numpy.vectorize`` / ``.roots`` / ``.einsum`` (same names
and signatures). Values: NumPy's (the tests' own reference: np.roots, np.einsum, np.vectorize) computed at test time,
and jax.numpy's result on the same inputs, whose shape and dtype tj must give (x64 off). ``_CompileAndCheck`` -> the
same call inside ``tj.function`` against eager. Gradients (none in these JAX files; added where cheap): tape
gradients against ``jax.vjp`` and ForwardAccumulator JVPs against ``jax.jvp`` of the jax.numpy function, real inputs.
JAX's zeros-filled inputs are replaced by seeded random ones, so values are checked too, not only shapes. Errors: the
class is checked, and the words JAX's regex matches where tj's message shares them (tj's messages name tj.numpy).

Ported (JAX method -> test here):
  vectorize: test_matmat, test_matvec, test_vecmat, test_magnitude, test_mean, test_stack_plus_minus ->
  test_vectorize_core_shapes (a sample of each grid) and test_vectorize_gradients_and_compiled; test_center;
  test_exclude_first / test_exclude_second -> test_vectorize_exclude_position (also under tj.function and jax.jit with
  the string static); test_exclude_kwargs; test_exclude_errors, test_bad_inputs, test_wrong_output_type,
  test_wrong_num_outputs, test_wrong_output_shape, test_inconsistent_output_size -> test_vectorize_errors;
  test_expand_dims_multiple_outputs_no_signature; test_none_arg; test_none_arg_bad_signature;
  test_rank_promotion_error (split: the raise, the warning, and the cases that must pass);
  test_non_scalar_outputs_and_default_signature.
  polynomial: testRoots, testRootsNoStrip -> test_roots / test_roots_no_strip (float32, int32, complex64 on a sample
  of the length x leading x trailing zeros grid; NoStrip's _CompileAndCheck under tj.function; roots gradients are
  test_numpy_polynomial.py's).
  einsum: test_from_dask for bool (float32/int32/complex64 are in test_tf_unported_np_einsum_port.py) on a sample of
  its subscripts; test_inf_nan; test_preferred_element_type (the result dtype and values; its jaxpr part left out);
  test_einsum_mixed_precision (sampled dtype pairs; its jaxpr part left out); test_einsum_optimization_modes and
  test_einsum_path_optimization_modes (each optimize value on a sample of the signatures; the paths from
  jax.numpy.einsum_path, as tj.numpy has none); test_einsum_unsupported_optimization; gradients of an explicit path.

Left out: the einsum methods test_tf_unported_np_einsum_port.py already ports from TF's copy of this file
(three/two/one_operand_*, tf_unsupported_*, from_dask float32/int32/complex64, ordered_front_batch_dim_case,
kpmurphy_example, contraction/batch broadcasting, broadcasting_issue_2189); test_einsum_path (it checks only
np.einsum_path's output, nothing of jax or tj); test_no_unnecessary_transpose and the jaxpr halves of
test_preferred_element_type / test_einsum_mixed_precision (jaxpr inspection, JAX-internal); testRoots' float16 and x64
dtypes (the installed jax.numpy.roots raises NotImplementedError for float16: its eig has no float16 kernel; tj raises
TypeError saying so: both refuse, only the class differs; the x64 dtypes are x64-only) and bfloat16 (the same).

Sanctioned differences: none met. tj.numpy.roots(strip_zeros=True) needs its argument's values (inside tj.function it
raises TypeError; jax.numpy's raises under jit too), so the compiled check uses strip_zeros=False, as JAX's test.

Differences from jax.numpy found and fixed in tapejax: vectorize did not accept None arguments (jax passes them
through, as excluded); vectorize ignored jax_numpy_rank_promotion ('raise': jax raises ValueError, 'warn': jax warns);
``tj.function(tnp.vectorize(tnp.dot, signature=...))`` raised TypeError (tj.function passed dot's keyword defaults, read
through vectorize's __wrapped__; vectorize now shows its own signature); tj.numpy had no einsum_path; einsum's
interleaved operand/sublist form (``einsum(x, [0, 1], y, [1, 2])``, which jax.numpy accepts) raised TypeError.
"""
import itertools
import warnings
from collections import defaultdict

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy
FAILED = pytest.fail.Exception  # what pytest.raises raises when nothing was raised


def xfail(reason, raises=AssertionError):
    """A strict xfail that only tj's way of failing (``raises``) satisfies."""
    return pytest.mark.xfail(strict=True, reason=reason, raises=raises)


def _rand(shape, dtype=np.float32, seed=0):
    r = np.random.RandomState(seed)
    v = np.asarray(r.randn(*shape) * 2)
    if dtype == np.bool_:
        return v > 0
    if dtype == np.complex64:
        return (v + 2j * r.randn(*shape)).astype(dtype)
    if np.dtype(dtype).kind in "iu":
        return np.round(np.abs(v) if np.dtype(dtype).kind == "u" else v).astype(dtype)
    return v.astype(dtype)


def _same(got, want, rtol=1e-5, atol=1e-5):
    """tj's result against jax.numpy's (shape, dtype, values); a tuple of results compared one by one."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), (type(got), got)
        for g, w in zip(got, want):
            _same(g, w, rtol, atol)
        return
    assert isinstance(got, tj.Tensor), type(got)
    want = np.asarray(want)
    assert (got.shape, got.dtype) == (want.shape, want.dtype), (got.shape, got.dtype, want.shape, want.dtype)
    np.testing.assert_allclose(got.numpy(), want, rtol=rtol, atol=atol)


def _tape_vs_vjp(tj_fn, jnp_fn, args, seed=1):
    """tape.gradient of tj_fn (with a random output gradient per output) against jax.vjp of jnp_fn."""
    want_out, vjp = jax.vjp(jnp_fn, *args)
    cts = jax.tree.map(lambda o: _rand(o.shape, np.float32, seed), want_out)
    ts = [tj.constant(a) for a in args]
    with tj.GradientTape() as tape:
        tape.watch(ts)
        out = tj_fn(*ts)
    if isinstance(out, tuple):
        got = tape.gradient(list(out), ts, output_gradients=list(cts))
    else:
        got = tape.gradient(out, ts, output_gradients=cts)
    for g, w in zip(got, vjp(cts)):
        np.testing.assert_allclose(g.numpy(), np.asarray(w), rtol=1e-5, atol=1e-5)


def _accumulator_vs_jvp(tj_fn, jnp_fn, args, seed=2):
    """ForwardAccumulator JVP of tj_fn along random tangents against jax.jvp of jnp_fn."""
    tangents = [_rand(np.shape(a), np.float32, seed + k) for k, a in enumerate(args)]
    _, want = jax.jvp(jnp_fn, tuple(args), tuple(tangents))
    ts = [tj.constant(a) for a in args]
    with tj.ForwardAccumulator(ts, [tj.constant(t) for t in tangents]) as acc:
        out = tj_fn(*ts)
    got = acc.jvp(out)
    for g, w in zip(got if isinstance(out, tuple) else [got], want if isinstance(out, tuple) else [want]):
        np.testing.assert_allclose(g.numpy(), np.asarray(w), rtol=1e-5, atol=1e-5)


# -- vectorize ----------------------------------------------------------------------------------------------------

def _magnitude(m):
    return lambda x: m.dot(x, x)


def _stack_plus_minus(m):
    return lambda x: m.stack([x, -x])


# (JAX method, function of the module, signature, input shapes, JAX's result shape): each grid sampled
CORE = [
    ("matmat", lambda m: m.dot, "(n,m),(m,k)->(n,k)", [(2, 3), (1, 3, 4)], (1, 2, 4)),
    ("matmat", lambda m: m.dot, "(n,m),(m,k)->(n,k)", [(3, 2, 3), (1, 3, 4)], (3, 2, 4)),
    ("matmat", lambda m: m.dot, "(n,m),(m,k)->(n,k)", [(2, 1, 2, 3), (3, 4)], (2, 1, 2, 4)),
    ("matvec", lambda m: m.dot, "(n,m),(m)->(n)", [(2, 3), (3,)], (2,)),
    ("matvec", lambda m: m.dot, "(n,m),(m)->(n)", [(2, 1, 2, 3), (1, 3)], (2, 1, 2)),
    ("vecmat", lambda m: m.dot, "(m),(m)->()", [(3,), (3,)], ()),
    ("vecmat", lambda m: m.dot, "(m),(m)->()", [(2, 2, 3), (3,)], (2, 2)),
    ("magnitude", _magnitude, "(n)->()", [(2, 3)], (2,)),
    ("magnitude", _magnitude, "(n)->()", [(1, 2, 3)], (1, 2)),
    ("mean", lambda m: m.mean, "(n)->()", [(3,)], ()),
    ("mean", lambda m: m.mean, "(n)->()", [(1, 2, 1, 4)], (1, 2, 1)),
    ("stack_plus_minus", _stack_plus_minus, "()->(n)", [()], (2,)),
    ("stack_plus_minus", _stack_plus_minus, "()->(n)", [(3,)], (3, 2)),
    # (the rest of JAX's grids but its two largest, added with test_jax_numpy_vectorize_port.py)
    ("matmat", lambda m: m.dot, "(n,m),(m,k)->(n,k)", [(2, 3), (3, 4)], (2, 4)),
    ("matmat", lambda m: m.dot, "(n,m),(m,k)->(n,k)", [(1, 2, 3), (1, 3, 4)], (1, 2, 4)),
    ("matmat", lambda m: m.dot, "(n,m),(m,k)->(n,k)", [(5, 2, 3), (1, 3, 4)], (5, 2, 4)),
    ("matvec", lambda m: m.dot, "(n,m),(m)->(n)", [(2, 3), (1, 3)], (1, 2)),
    ("matvec", lambda m: m.dot, "(n,m),(m)->(n)", [(4, 2, 3), (1, 3)], (4, 2)),
    ("vecmat", lambda m: m.dot, "(m),(m)->()", [(2, 3), (3,)], (2,)),
    ("vecmat", lambda m: m.dot, "(m),(m)->()", [(4, 2, 3), (3,)], (4, 2)),
    ("magnitude", _magnitude, "(n)->()", [(3,)], ()),
    ("mean", lambda m: m.mean, "(n)->()", [(2, 3)], (2,)),
    ("mean", lambda m: m.mean, "(n)->()", [(1, 2, 3, 4)], (1, 2, 3)),
]


@pytest.mark.parametrize("name, fn, sig, shapes, result_shape", CORE, ids=[f"{c[0]}-{c[3]}" for c in CORE])
def test_vectorize_core_shapes(name, fn, sig, shapes, result_shape):
    # (magnitude runs on arange ints in JAX's test: int32 here too)
    dtype = np.int32 if name == "magnitude" else np.float32
    args = [_rand(s, dtype, seed=k) for k, s in enumerate(shapes)]
    want = jnp.vectorize(fn(jnp), signature=sig)(*args)
    assert want.shape == result_shape
    np.testing.assert_allclose(np.asarray(want), np.vectorize(fn(np), signature=sig)(*args), rtol=1e-5, atol=1e-6)
    _same(tnp.vectorize(fn(tnp), signature=sig)(*args), want)


def test_vectorize_gradients_and_compiled():
    # matmat with a broadcast batch: tape vs jax.vjp, accumulator vs jax.jvp, tj.function vs eager (dot behind a
    # lambda: tnp.dot itself is test_vectorize_of_dot_in_function's)
    sig = "(n,m),(m,k)->(n,k)"
    args = [_rand((2, 2, 3), seed=0), _rand((1, 3, 4), seed=1)]
    tj_fn = tnp.vectorize(lambda a, b: tnp.dot(a, b), signature=sig)
    jnp_fn = jnp.vectorize(jnp.dot, signature=sig)
    _tape_vs_vjp(tj_fn, jnp_fn, args)
    _accumulator_vs_jvp(tj_fn, jnp_fn, args)
    _same(tj.function(tj_fn)(*args), tj_fn(*args).numpy())


def test_vectorize_of_dot_in_function():
    sig = "(n,m),(m,k)->(n,k)"
    args = [_rand((2, 3), seed=0), _rand((3, 4), seed=1)]
    want = jax.jit(jnp.vectorize(jnp.dot, signature=sig))(*args)
    _same(tj.function(tnp.vectorize(tnp.dot, signature=sig))(*args), np.asarray(want))


def _center(m):
    def center(a):
        bias = m.mean(a)
        return bias, a - bias
    return center


def test_center():
    f = tnp.vectorize(_center(tnp), signature="(n)->(),(n)")
    b, a = f(tnp.arange(3.0))
    assert (b.shape, a.shape) == ((), (3,))
    np.testing.assert_allclose(b.numpy(), 1.0)
    b, a = f(tnp.arange(6.0).reshape(2, 3))
    assert (b.shape, a.shape) == ((2,), (2, 3))
    np.testing.assert_allclose(b.numpy(), [1.0, 4.0])
    np.testing.assert_allclose(a.numpy(), [[-1.0, 0.0, 1.0]] * 2)
    # two outputs: a gradient from both (one output gradient each)
    _tape_vs_vjp(f, jnp.vectorize(_center(jnp), signature="(n)->(),(n)"), [_rand((2, 3))])


@pytest.mark.parametrize("position", [0, 1])
def test_vectorize_exclude_position(position):
    # test_exclude_first / test_exclude_second: the excluded argument reaches the function as it is
    def f(*xy):
        assert xy[position] == "foo"
        assert xy[1 - position].ndim == 0
        return xy[1 - position]
    g = tnp.vectorize(f, excluded={position})
    x = np.arange(3, dtype=np.int32)
    args = ("foo", x) if position == 0 else (x, "foo")
    _same(g(*args), x)
    _same(tj.function(g)(*args), x)
    _same(jax.jit(g, static_argnums=position)(*args), x)


def test_exclude_kwargs():
    def body(m, add):
        def f(x, y, func=add):
            assert np.ndim(x) == np.ndim(y) == 0
            return func(x, y)
        return f
    f_np = np.vectorize(body(np, np.add), excluded=(2, "func"))
    f_tj = tnp.vectorize(body(tnp, tnp.add), excluded=(2, "func"))
    x, y = np.arange(4, dtype=np.int32), np.int32(2)
    for want, got in [(f_np(x, y), f_tj(x, y)), (f_np(x, y, np.power), f_tj(x, y, tnp.power)),
                      (f_np(x, y, func=np.power), f_tj(x, y, func=tnp.power))]:
        assert got.dtype == np.int32
        np.testing.assert_array_equal(got.numpy(), want)


def _z(*shape):
    return np.zeros(shape, np.float32)


VECTORIZE_ERRORS = [  # (JAX method, call, exception, words of JAX's message that tj's shares)
    ("exclude_errors float", lambda m: m.vectorize(lambda x: x, excluded={1.5}), TypeError,
     "vectorize can only exclude"),
    ("exclude_errors negative", lambda m: m.vectorize(lambda x: x, excluded={-1}), ValueError,
     r"excluded=\{-1\} contains negative numbers"),
    ("bad_inputs count", lambda m: m.vectorize(m.dot, signature="(n,m),(m,k)->(n,k)")(_z(3, 2)), TypeError,
     "wrong number of positional arguments"),
    ("bad_inputs rank", lambda m: m.vectorize(m.dot, signature="(n,m),(m,k)->(n,k)")(_z(2), _z(2, 2)), ValueError,
     r"with shape \(2,\) does not have enough dimensions"),
    ("bad_inputs size", lambda m: m.vectorize(m.dot, signature="(n,m),(m,k)->(n,k)")(_z(2, 3), _z(4, 5)),
     ValueError, "inconsistent size for core dimension 'm'"),
    ("wrong_output_type", lambda m: m.vectorize(m.dot, signature="(n,m),(m,k)->(n,k),()")(_z(2, 2), _z(2, 2)),
     TypeError, "output must be a tuple"),
    ("wrong_num_outputs", lambda m: m.vectorize(lambda *a: a, signature="(),()->(),(),()")(1, 2), TypeError,
     "wrong number of output arguments"),
    ("wrong_output_shape", lambda m: m.vectorize(m.dot, signature="(n,m),(m,k)->(n)")(_z(2, 2), _z(2, 2)),
     ValueError, r"shape \(2, 2\) does not match"),
    ("inconsistent_output_size", lambda m: m.vectorize(m.dot, signature="(n,m),(m,k)->(n,n)")(_z(2, 3), _z(3, 4)),
     ValueError, "inconsistent size for core dimension 'n'"),
]


@pytest.mark.parametrize("name, call, exc, words", VECTORIZE_ERRORS, ids=[e[0] for e in VECTORIZE_ERRORS])
def test_vectorize_errors(name, call, exc, words):
    with pytest.raises(exc, match=words):  # (jax.numpy's side: the same class and words)
        call(jnp)
    with pytest.raises(exc, match=words):
        call(tnp)


def test_expand_dims_multiple_outputs_no_signature():
    x = np.arange(1, dtype=np.int32)
    xx = tnp.vectorize(lambda u: (u, u))(x)
    assert isinstance(xx, tuple) and len(xx) == 2
    _same(xx, (x, x))


def _add_unless_none(x, y):
    return x if y is None else x + y


def test_none_arg():
    x, y = np.arange(10, dtype=np.int32), np.arange(10, 20, dtype=np.int32)
    _same(tnp.vectorize(_add_unless_none)(x, y), x + y)  # (this half passes)
    _same(tnp.vectorize(_add_unless_none)(x, None), np.asarray(jnp.vectorize(_add_unless_none)(x, None)))


def test_none_arg_bad_signature():
    # None where the signature asks for a core dimension: jax raises ValueError "Cannot pass None at locations {1}
    # with signature=..."; tj's ConversionError is a ValueError too (its message names None, not the signature)
    args = np.arange(10, dtype=np.int32), None
    with pytest.raises(ValueError, match="Cannot pass None"):
        jnp.vectorize(_add_unless_none, signature="(k),(k)->(k)")(*args)
    with pytest.raises(ValueError, match="None"):
        tnp.vectorize(_add_unless_none, signature="(k),(k)->(k)")(*args)


RANK2, RANK1, RANK0 = _z(2, 2), _z(2), _z()  # (JAX's 10 x 10: the same rule, fewer calls)


def test_rank_promotion_raise():
    with jax.numpy_rank_promotion("raise"):
        with pytest.raises(ValueError, match="require rank promotion"):
            jnp.vectorize(jnp.add, signature="(),()->()")(RANK2, RANK1)
        with pytest.raises(ValueError, match="require rank promotion"):
            tnp.vectorize(tnp.add, signature="(),()->()")(RANK2, RANK1)


def test_rank_promotion_warn():
    with jax.numpy_rank_promotion("warn"):
        with pytest.warns(UserWarning, match="require rank promotion"):
            jnp.vectorize(jnp.add, signature="(),()->()")(RANK2, RANK1)
        with pytest.warns(UserWarning, match="require rank promotion"):
            tnp.vectorize(tnp.add, signature="(),()->()")(RANK2, RANK1)


def test_rank_promotion_allowed_cases():
    # scalar operands and matching broadcast ranks need no promotion: no error, no warning
    f = tnp.vectorize(tnp.add, signature="(),()->()")
    f2 = tnp.vectorize(tnp.add, signature="(n),()->(n)")
    for mode in ("raise", "warn"):
        with jax.numpy_rank_promotion(mode), warnings.catch_warnings():
            warnings.simplefilter("error")
            assert f(RANK1, RANK0).shape == (2,)
            assert f2(RANK2, RANK1).shape == (2, 2)


def test_non_scalar_outputs_and_default_signature():
    def body(m):
        def f(x):
            assert np.shape(x) == ()
            return x + m.linspace(-1, 1, 5)
        return f
    _same(tnp.vectorize(body(tnp))(0.5), np.asarray(jnp.vectorize(body(jnp))(0.5)))
    x = _rand((3,))
    _same(tnp.vectorize(body(tnp))(x), np.asarray(jnp.vectorize(body(jnp))(x)))


# -- roots --------------------------------------------------------------------------------------------------------

def _poly(dtype, length, leading, trailing, seed=0):
    """JAX's args_maker: ``length`` random coefficients with some zeros (rand_some_zero), between ``leading`` and
    ``trailing`` zeros."""
    r = np.random.RandomState(seed)
    v = r.randn(length) * 3
    if dtype == np.complex64:
        v = v + 3j * r.randn(length)
    v[r.rand(length) < 0.3] = 0
    p = np.round(v) if dtype == np.int32 else v
    return np.concatenate([np.zeros(leading), p, np.zeros(trailing)]).astype(dtype)


def _same_set(got, want, tol=1e-4):
    """``got`` holds ``want``'s values in any order (NaNs matched to NaNs), each within tol relative to max(1, |w|)."""
    got, want = list(np.asarray(got).ravel()), np.asarray(want).ravel()
    assert len(got) == len(want), (got, want)
    for w in want:
        d = [(0.0 if np.isnan(g) else np.inf) if np.isnan(w) else (np.inf if np.isnan(g) else abs(g - w))
             for g in got]
        k = int(np.argmin(d))
        assert d[k] <= tol * max(1.0, abs(w) if not np.isnan(w) else 1.0), (w, got)
        got.pop(k)


# (dtype, length, leading, trailing): a sample of JAX's dtype x [0, 3, 5] x [0, 2] x [0, 2] grid
ROOTS = [(np.float32, 0, 2, 0), (np.float32, 5, 2, 2), (np.int32, 3, 2, 0), (np.int32, 5, 0, 2),
         (np.complex64, 3, 0, 2)]


@pytest.mark.parametrize("dtype, length, leading, trailing", ROOTS, ids=[f"{d.__name__}-{n}-{a}-{b}"
                                                                         for d, n, a, b in ROOTS])
def test_roots(dtype, length, leading, trailing):
    p = _poly(dtype, length, leading, trailing)
    want, jax_out = np.roots(p).astype(np.complex64), jnp.roots(p)
    got = tnp.roots(p)
    assert (got.shape, got.dtype) == (jax_out.shape, jax_out.dtype) == (want.shape, np.complex64)
    _same_set(jax_out, want)
    _same_set(got.numpy(), want)


NO_STRIP = [(np.float32, 3, 2, 2, True), (np.int32, 3, 0, 2, False), (np.complex64, 0, 2, 0, False)]


@pytest.mark.parametrize("dtype, length, leading, trailing, compiled", NO_STRIP,
                         ids=[f"{d.__name__}-{n}-{a}-{b}" for d, n, a, b, _ in NO_STRIP])
def test_roots_no_strip(dtype, length, leading, trailing, compiled):
    p = _poly(dtype, length, leading, trailing)
    want = np.roots(p).astype(np.complex64)
    if len(want) < len(p) - 1:  # (one NaN root per stripped leading zero, as JAX's np_fun)
        want = np.pad(want, (0, len(p) - len(want) - 1), constant_values=complex(np.nan, np.nan))
    jax_out = jnp.roots(p, strip_zeros=False)
    got = tnp.roots(p, strip_zeros=False)
    assert (got.shape, got.dtype) == (jax_out.shape, jax_out.dtype) == (want.shape, np.complex64)
    _same_set(jax_out, want)
    _same_set(got.numpy(), want)
    if compiled:  # _CompileAndCheck (once: a trace of roots is costly): the same inside tj.function
        _same_set(tj.function(lambda q: tnp.roots(q, strip_zeros=False))(p).numpy(), got.numpy(), 1e-5)


# -- einsum -------------------------------------------------------------------------------------------------------

DASK_BOOL = ["abc,bad->abcd", "ea,fb,abcd,gc,hd->efgh", "ab,b", "aa", "a,a->", "a,b,c", "ba,b->",
             "ab...,bc...->ac...", "a...a->a...", "...abc,...abcd->...d", "ab,ab,c->c", "aab,bcc->ac",
             "fff,fae,bef,def->abd"]


def _dask_operands(einstr, dtype, seed=0):
    """test_from_dask's operands: each label a size from the cycle 2, 3, 4 ('...' as two labels)."""
    names = einstr.split("->")[0].split(",")
    dims = itertools.cycle([2, 3, 4])
    sizes = defaultdict(lambda: next(dims))
    return [_rand(tuple(sizes[c] for c in n.replace("...", "01")), dtype, seed + k) for k, n in enumerate(names)]


@pytest.mark.parametrize("einstr", DASK_BOOL)
def test_from_dask_bool(einstr):
    ops = _dask_operands(einstr, np.bool_)
    want = np.einsum(einstr, *ops)
    got = tnp.einsum(einstr, *ops)
    _same(got, np.asarray(jnp.einsum(einstr, *ops)))
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(got.numpy(), want)


def test_inf_nan():
    # a diagonal of infs: the diagonal extraction must not multiply by a 0/1 mask (inf * 0 = nan)
    x = np.array([[[np.inf, np.inf], [1.0, 1.0]]], np.float32)
    got = tnp.einsum("baa->ba", x)
    _same(got, np.einsum("baa->ba", x))
    _same(tj.function(lambda u: tnp.einsum("baa->ba", u))(x), np.einsum("baa->ba", x))


def test_preferred_element_type():
    x, y = _rand((2, 2)).astype(jnp.bfloat16), _rand((2,), seed=1).astype(jnp.bfloat16)
    want = np.einsum("ij,j->i", x.astype(np.float32), y.astype(np.float32))
    got = tnp.einsum("ij,j->i", x, y)
    assert got.dtype == jnp.einsum("ij,j->i", x, y).dtype == jnp.bfloat16
    np.testing.assert_allclose(got.numpy().astype(np.float32), want, rtol=2e-2, atol=2e-2)
    for pet in ("float32", jnp.float32):
        got = tnp.einsum("ij,j->i", x, y, preferred_element_type=pet)
        assert got.dtype == jnp.einsum("ij,j->i", x, y, preferred_element_type=pet).dtype == np.float32
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)


MIXED = [(np.float32, np.int32), (np.int32, np.bool_), (np.bool_, np.bool_), (np.complex64, np.float16),
         (np.float16, np.int8), (np.uint8, np.int8), (np.int32, np.complex64), (np.float16, np.float32),
         (np.uint8, np.bool_)]


@pytest.mark.parametrize("lhs, rhs", MIXED, ids=[f"{a.__name__}-{b.__name__}" for a, b in MIXED])
def test_einsum_mixed_precision(lhs, rhs):
    x, y = _rand((10,), lhs, 0), _rand((10,), rhs, 1)
    want_dtype = jnp.einsum("a,a->a", x, y).dtype
    got = tnp.einsum("a,a->a", x, y)
    assert got.dtype == want_dtype
    # NumPy's reference in jax's promoted dtype (jtu.promote_like_jnp)
    want = np.einsum("a,a->a", x.astype(want_dtype), y.astype(want_dtype))
    np.testing.assert_allclose(got.numpy().astype(np.complex128), want.astype(np.complex128), rtol=2e-3)


SIGNATURES = {"i->": [(3,)], "ii->i": [(4, 4)], "ij,jk": [(3, 4), (4, 3)],
              "ij,jkl,klm": [(2, 2), (2, 3, 4), (3, 4, 2)]}
# each optimize value on two signatures, the three-operand one (where a path matters) on all
OPTIMIZE = [("i->", True), ("ii->i", False), ("ij,jk", "optimal"), ("i->", "auto"), ("ij,jk", "greedy"),
            ("ii->i", "eager")] + [("ij,jkl,klm", o) for o in (True, False, "optimal", "auto", "greedy", "eager")]


@pytest.mark.parametrize("signature, optimize", OPTIMIZE, ids=[f"{s}-{o}" for s, o in OPTIMIZE])
def test_einsum_optimization_modes(signature, optimize):
    ops = [_rand(s, seed=k) for k, s in enumerate(SIGNATURES[signature])]
    want = np.einsum(signature, *ops)
    got = tnp.einsum(signature, *ops, optimize=optimize)
    _same(got, np.asarray(jnp.einsum(signature, *ops, optimize=optimize)), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-4)
    _same(tj.function(lambda *o: tnp.einsum(signature, *o, optimize=optimize))(*ops), got.numpy(), 1e-5, 1e-5)


PATHS = [("ij,jk", "greedy"), ("ii->i", "optimal")] + [("ij,jkl,klm", o) for o in (True, "optimal", "eager")]


@pytest.mark.parametrize("signature, optimize", PATHS, ids=[f"{s}-{o}" for s, o in PATHS])
def test_einsum_path_optimization_modes(signature, optimize):
    # the contraction path comes from jax.numpy.einsum_path (plain data; tj.numpy has no einsum_path)
    ops = [_rand(s, seed=k) for k, s in enumerate(SIGNATURES[signature])]
    path, _ = jnp.einsum_path(signature, *ops, optimize=optimize)
    got = tnp.einsum(signature, *ops, optimize=path)
    _same(got, np.asarray(jnp.einsum(signature, *ops, optimize=path)), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got.numpy(), np.einsum(signature, *ops), rtol=1e-4, atol=1e-4)
    _same(tj.function(lambda *o: tnp.einsum(signature, *o, optimize=path))(*ops), got.numpy(), 1e-5, 1e-5)


def test_einsum_explicit_path_gradients():
    # three operands contracted along a given path: tape vs jax.vjp, accumulator vs jax.jvp
    ops = [_rand(s, seed=k) for k, s in enumerate(SIGNATURES["ij,jkl,klm"])]
    path = [(1, 2), (0, 1)]
    _tape_vs_vjp(lambda *o: tnp.einsum("ij,jkl,klm", *o, optimize=path),
                 lambda *o: jnp.einsum("ij,jkl,klm", *o, optimize=path), ops)
    _accumulator_vs_jvp(lambda *o: tnp.einsum("ij,jkl,klm", *o, optimize=path),
                        lambda *o: jnp.einsum("ij,jkl,klm", *o, optimize=path), ops)


def test_einsum_unsupported_optimization():
    arrs = [_rand(s, seed=k) for k, s in enumerate([(2, 3), (2, 4), (2, 5)])]
    msg = "does not support simultaneous contraction of 3 or more operands"
    with pytest.raises(NotImplementedError, match=msg):
        jnp.einsum("ij,ik,il->jkl", *arrs, optimize=[(0, 1, 2)])
    with pytest.raises(NotImplementedError, match=msg):
        tnp.einsum("ij,ik,il->jkl", *arrs, optimize=[(0, 1, 2)])


def test_einsum_path_is_mirrored():
    a, b, c = _rand((2, 2)), _rand((2, 5), seed=1), _rand((5, 2), seed=2)
    path, _ = tnp.einsum_path("ij,jk,kl->il", a, b, c, optimize="greedy")
    assert path == jnp.einsum_path("ij,jk,kl->il", a, b, c, optimize="greedy")[0] == [(1, 2), (0, 1)]


def test_einsum_interleaved_sublists():
    # (not a JAX test method: found while porting; np.einsum documents this form, jax.numpy.einsum accepts it)
    x, y = _rand((2, 3)), _rand((3, 4), seed=1)
    want = jnp.einsum(x, [0, 1], y, [1, 2], [0, 2])
    np.testing.assert_allclose(np.asarray(want), x @ y, rtol=1e-5, atol=1e-5)
    _same(tnp.einsum(x, [0, 1], y, [1, 2], [0, 2]), np.asarray(want))
