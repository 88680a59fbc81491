"""JAX's tests of jax.numpy's ufuncs (``jnp.add``, ``jnp.maximum``... as ``jnp.ufunc`` objects, ``jnp.frompyfunc``
and the methods reduce/accumulate/reduceat/outer/at), ported to tj.numpy's (src/tapejax/ops/ufunc.py).

Source: jax-ml/jax tests/lax_numpy_ufuncs_test.py (LaxNumpyUfuncTests, all of it), run against the installed
jax 0.10.2 and NumPy 2.4, x64 off.

How JAX maps onto tj:
* ``jnp.<name>`` / ``jnp.frompyfunc(f, nin, nout, identity=...)`` -> ``tnp.<name>`` / ``tnp.frompyfunc(...)``, the
  same names, signatures and methods. frompyfunc's ``f`` takes tj Tensors here (jax arrays there); the test's
  scalar functions use only Python operators and ``np.shape``, so the one definition serves NumPy, jax and tj.
* ``_CheckAgainstNumpy`` -> tj's values against the test's NumPy reference (``np.<name>.<method>``, or
  ``np.frompyfunc(...)`` with its object results cast to the input dtype), computed at test time, and tj's shape
  and dtype against ``jax.eval_shape`` of jax.numpy's call. Where NumPy's rule and jax's differ (a bool
  ``add``/``multiply`` reduceat, which JAX's test skips too) the case is left out. A sample of cases also checks
  tj's values against jax.numpy's own result.
* ``_CompileAndCheck`` -> the same call inside ``tj.function`` against eager, once per method for a built-in ufunc
  and for a frompyfunc ufunc (test_methods_in_function).
* Gradients (none in JAX's file; asked for here): tape gradients against ``jax.vjp`` and ForwardAccumulator JVPs
  against ``jax.jvp`` of the jax.numpy method, for add, multiply, maximum, subtract, logaddexp and a frompyfunc
  ufunc, each method; real inputs without ties. At ties API.md's TF convention is tested on its own
  (test_maximum_method_gradients_at_ties).

JAX's grids (every ufunc x NumPy loop dtype x shape pair / shape x axis / index shape) are sampled hard: every
(ufunc, dtype) pair for ``__call__`` and ``outer``; one case per ufunc for each other method, the dtype, shape and
axis rotating over the cases. Dtypes: float32, int32, bool, complex64 (NumPy's ``FfIi?`` loops less uint32), one
float16 case (frompyfunc call).

Ported (JAX method -> test here): test_frompyfunc_properties; test_ufunc_properties;
test_frompyfunc_properties_readonly and test_ufunc_properties_readonly (the public attributes; ``_func`` in
test_ufunc_func_attribute_readonly); test_frompyfunc_hash; test_frompyfunc_call; test_unary_ufunc_call;
test_binary_ufunc_call; test_frompyfunc_outer; test_binary_ufunc_outer; test_frompyfunc_reduce;
test_binary_ufunc_reduce; test_frompyfunc_reduce_where; test_binary_ufunc_reduce_where;
test_binary_ufunc_reduce_initial; test_binary_ufunc_reduce_where_initial; test_frompyfunc_accumulate;
test_binary_ufunc_accumulate; test_frompyfunc_at; test_unary_ufunc_at; test_binary_ufunc_at;
test_frompyfunc_at_broadcasting; test_frompyfunc_reduceat; test_binary_ufunc_reduceat.
Added: test_frompyfunc_reduce_initial, test_binary_ufunc_reduce_keepdims_and_dtype and
test_binary_ufunc_at_repeated_index (arguments and cases JAX's grid does not reach); test_method_errors (the
refusals of jax.numpy's methods: tj raises the same class); test_reduceat_index_out_of_bounds_raises; the gradient
tests; test_methods_in_function; test_jax_transformations_of_ufunc_code.

Left out: no method entirely. Within the grids: uint32 (NumPy's ``I`` loop), bfloat16 and the x64 dtypes;
frompyfunc on int32 (outside JAX's grid, which is floating only: jax's scan-based ``reduceat`` of ``x / y`` on
int32 fails inside jax with a scan carry-type TypeError, tj gives float32 values); the cases JAX's test skips
(identity-less reduce over several axes, bool ``add``/``multiply`` reduceat).

Sanctioned differences (API.md), tested as tj's rule:
* At ties, ``maximum``'s methods that fold the binary op (accumulate, at) give the whole gradient to the first
  argument (the running value), as TF's Maximum, where jax.numpy splits it; ``maximum.reduce`` is ``max`` in both
  (a tie shares the gradient equally, as jax's max and TF's reduce_max).
* ``reduceat`` with an index out of bounds raises IndexError, as NumPy (jax.numpy's fills that row with NaN).
* Lists are accepted wherever arrays are (``tnp.add.reduce([1, 2])``; jax.numpy's methods raise TypeError): not
  tested here. Error messages name tj.numpy; only the class is compared.
* ``multiply.at`` with a repeated index: jax has no derivative in the values (scatter-multiply, NotImplementedError);
  tj's is checked against jax's derivative of the same updates made one at a time (jnp.frompyfunc's scan).
Where jax.numpy itself differs from NumPy, tj follows jax.numpy: a frompyfunc ``at`` whose values have as many
entries as there are indices pairs them with the indices, where NumPy broadcasts them against each indexed row
(test_frompyfunc_at_broadcasting).

Difference from jax.numpy found and fixed in tapejax: ``ufunc._func`` could be reassigned on a tj ufunc (jax's is a
read-only property, and JAX's readonly tests set it; tj's hash and == read it).
"""
import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy


# -- the test's scalar functions (frompyfunc runs them on one element at a time: the shape assertions) ------------

def scalar_add(x, y):
    assert np.shape(x) == np.shape(y) == ()
    return x + y


def scalar_div(x, y):
    assert np.shape(x) == np.shape(y) == ()
    return x / y


def scalar_mul(x, y):
    assert np.shape(x) == np.shape(y) == ()
    return x * y


def scalar_sub(x, y):
    assert np.shape(x) == np.shape(y) == ()
    return x - y


SCALAR_FUNCS = [(scalar_add, 0), (scalar_div, None), (scalar_mul, 1), (scalar_sub, None)]
SCALAR_IDS = [f.__name__ for f, _ in SCALAR_FUNCS]

UFUNC_NAMES = ["add", "bitwise_and", "bitwise_or", "bitwise_xor", "logaddexp", "logaddexp2", "logical_and",
               "logical_or", "logical_xor", "maximum", "minimum", "multiply", "negative", "subtract"]
BINARY_NAMES = [n for n in UFUNC_NAMES if n != "negative"]


def _loop_dtypes(name):
    """NumPy's same-dtype loops of the ufunc among F, f, i, ? (JAX's grid less uint32)."""
    types = getattr(np, name).types
    return [np.dtype(c) for c in "Ffi?" if f"{c}{c}->{c}" in types or f"{c}->{c}" in types]


BINARY_WITH_DTYPES = [(n, d) for n in BINARY_NAMES for d in _loop_dtypes(n)]

SHAPE_PAIRS = [((), (4, 3)), ((1,), (3,)), ((3,), (4, 1)), ((1, 3), (4, 1)), ((4, 1), ()), ((4, 3), (1, 3))]
ALL_SHAPES = [(3,), (4,), (4, 3), (0, 3), (4, 0)]
SHAPE_AXES = [(s, a) for s in ALL_SHAPES for a in [None, *range(-len(s), len(s))]]


def _make(shape, dtype, seed):
    """Seeded inputs in the spirit of jtu.rand_default: floats ~ 3 * normal, small integers, random bools."""
    r = np.random.RandomState(seed)
    dtype = np.dtype(dtype)
    if dtype == bool:
        return np.asarray(r.rand(*shape) < 0.5)
    if dtype.kind == "i":
        return r.randint(-3, 4, size=shape).astype(dtype)
    v = 3 * np.asarray(r.randn(*shape))
    if dtype.kind == "c":
        v = v + 3j * r.randn(*shape)
    return v.astype(dtype)


def _check(got, want, like, rtol=1e-5, atol=1e-5):
    """tj's result ``got``: jax.numpy's shape and dtype (``like``: jax's result or its eval_shape) and the
    reference values ``want`` (NumPy's, cast to that dtype as JAX's test does)."""
    assert isinstance(got, tj.Tensor), type(got)
    assert (got.shape, got.dtype) == (tuple(like.shape), like.dtype), (got.shape, got.dtype, like.shape, like.dtype)
    want = np.asarray(want).astype(like.dtype)
    if np.issubdtype(like.dtype, np.inexact):
        np.testing.assert_allclose(got.numpy(), want, rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(got.numpy(), want)


def _cast_outputs(fn):
    """NumPy's frompyfunc gives object arrays: cast them to the first argument's dtype (JAX's cast_outputs)."""
    def wrapped(*args, **kwargs):
        return np.asarray(fn(*args, **kwargs), dtype=np.asarray(args[0]).dtype)
    return wrapped


def _rotate(items, k):
    return items[k % len(items)]


# -- properties, read-only attributes, hashing ---------------------------------------------------------------------

@pytest.mark.parametrize("func,identity", SCALAR_FUNCS, ids=SCALAR_IDS)
def test_frompyfunc_properties(func, identity):
    u = tnp.frompyfunc(func, nin=2, nout=1, identity=identity)
    assert isinstance(u, tnp.ufunc)
    assert (u.identity, u.nin, u.nout, u.nargs) == (identity, 2, 1, 2)


@pytest.mark.parametrize("name", UFUNC_NAMES)
def test_ufunc_properties(name):
    u, npu, ju = getattr(tnp, name), getattr(np, name), getattr(jnp, name)
    assert isinstance(u, tnp.ufunc)
    # NumPy counts ``out`` among the arguments; jax.numpy (and tj) do not
    want = (npu.identity, npu.nin, npu.nout, npu.nargs - 1)
    assert (u.identity, u.nin, u.nout, u.nargs) == want == (ju.identity, ju.nin, ju.nout, ju.nargs)
    assert u.__name__ == name


PUBLIC_ATTRS = ["nargs", "nin", "nout", "identity"]


@pytest.mark.parametrize("func,identity", SCALAR_FUNCS, ids=SCALAR_IDS)
def test_frompyfunc_properties_readonly(func, identity):
    u = tnp.frompyfunc(func, nin=2, nout=1, identity=identity)
    for attr in PUBLIC_ATTRS:
        before = getattr(u, attr)
        with pytest.raises(AttributeError):
            setattr(u, attr, None)
        assert getattr(u, attr) == before or (before is None and getattr(u, attr) is None)


@pytest.mark.parametrize("name", UFUNC_NAMES)
def test_ufunc_properties_readonly(name):
    u = getattr(tnp, name)
    for attr in PUBLIC_ATTRS:
        getattr(u, attr)
        with pytest.raises(AttributeError):
            setattr(u, attr, None)


@pytest.mark.parametrize("which", ["frompyfunc", "add"])
def test_ufunc_func_attribute_readonly(which):
    # JAX's readonly tests include ``_func`` (hash and == are computed from it)
    u = tnp.frompyfunc(scalar_add, 2, 1, identity=0) if which == "frompyfunc" else tnp.add
    original = u._func
    assert original is not None
    with pytest.raises(AttributeError):
        u._func = None
    assert u._func is original


@pytest.mark.parametrize("func,identity", SCALAR_FUNCS, ids=SCALAR_IDS)
def test_frompyfunc_hash(func, identity):
    u1 = tnp.frompyfunc(func, nin=2, nout=1, identity=identity)
    u2 = tnp.frompyfunc(func, nin=2, nout=1, identity=identity)
    assert u1 == u2 and hash(u1) == hash(u2)
    assert u1 != tnp.frompyfunc(tnp.add, nin=2, nout=1, identity=0)
    assert u1 != tnp.frompyfunc(func, nin=2, nout=1, identity=7)


# -- __call__ and outer --------------------------------------------------------------------------------------------

CALL_CASES = [(f, i, *_rotate(SHAPE_PAIRS, k), np.float32) for k, (f, i) in enumerate(SCALAR_FUNCS)]
CALL_CASES.append((scalar_div, None, (3,), (4, 1), np.float16))


@pytest.mark.parametrize("func,identity,lhs_shape,rhs_shape,dtype", CALL_CASES,
                         ids=[f"{c[0].__name__}-{c[2]}-{c[3]}-{np.dtype(c[4])}" for c in CALL_CASES])
def test_frompyfunc_call(func, identity, lhs_shape, rhs_shape, dtype):
    x, y = _make(lhs_shape, dtype, 0), _make(rhs_shape, dtype, 1)
    got = tnp.frompyfunc(func, nin=2, nout=1, identity=identity)(x, y)
    jfun = jnp.frompyfunc(func, nin=2, nout=1, identity=identity)
    want = _cast_outputs(np.frompyfunc(func, 2, 1))(x, y)
    tol = 2e-3 if dtype == np.float16 else 1e-5
    _check(got, want, jax.eval_shape(jfun, x, y), rtol=tol, atol=tol)
    _check(got, jfun(x, y), jax.eval_shape(jfun, x, y), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", _loop_dtypes("negative"), ids=str)
@pytest.mark.parametrize("shape", [(), (4, 3)], ids=str)
def test_unary_ufunc_call(shape, dtype):
    x = _make(shape, dtype, 2)
    _check(tnp.negative(x), np.negative(x), jax.eval_shape(jnp.negative, x))


@pytest.mark.parametrize("name,dtype", BINARY_WITH_DTYPES, ids=[f"{n}-{d}" for n, d in BINARY_WITH_DTYPES])
def test_binary_ufunc_call(name, dtype):
    k = BINARY_WITH_DTYPES.index((name, dtype))
    lhs_shape, rhs_shape = _rotate(SHAPE_PAIRS, k)
    x, y = _make(lhs_shape, dtype, k), _make(rhs_shape, dtype, k + 100)
    _check(getattr(tnp, name)(x, y), getattr(np, name)(x, y), jax.eval_shape(getattr(jnp, name), x, y))


@pytest.mark.parametrize("func,identity", SCALAR_FUNCS, ids=SCALAR_IDS)
def test_frompyfunc_outer(func, identity):
    k = SCALAR_FUNCS.index((func, identity))
    lhs_shape, rhs_shape = _rotate(SHAPE_PAIRS, k + 2)
    x, y = _make(lhs_shape, np.float32, k), _make(rhs_shape, np.float32, k + 1)
    got = tnp.frompyfunc(func, nin=2, nout=1, identity=identity).outer(x, y)
    want = _cast_outputs(np.frompyfunc(func, 2, 1, identity=identity).outer)(x, y)
    _check(got, want, jax.eval_shape(jnp.frompyfunc(func, 2, 1, identity=identity).outer, x, y))


@pytest.mark.parametrize("name,dtype", BINARY_WITH_DTYPES, ids=[f"{n}-{d}" for n, d in BINARY_WITH_DTYPES])
def test_binary_ufunc_outer(name, dtype):
    k = BINARY_WITH_DTYPES.index((name, dtype))
    lhs_shape, rhs_shape = _rotate(SHAPE_PAIRS, k + 3)
    x, y = _make(lhs_shape, dtype, k), _make(rhs_shape, dtype, k + 50)
    got = getattr(tnp, name).outer(x, y)
    _check(got, getattr(np, name).outer(x, y), jax.eval_shape(getattr(jnp, name).outer, x, y))


# -- reduce --------------------------------------------------------------------------------------------------------

def _one_per_name(names, offset, stride=3):
    """One (name, dtype, shape, axis) case per ufunc, dtype and (shape, axis) rotating; passing over what JAX's
    test skips (an identity-less reduction over several axes: NumPy refuses it)."""
    cases = []
    for k, name in enumerate(names):
        j = offset + stride * k
        while getattr(jnp, name).identity is None and _rotate(SHAPE_AXES, j)[1] is None \
                and len(_rotate(SHAPE_AXES, j)[0]) > 1:
            j += 1
        cases.append((name, _rotate(_loop_dtypes(name), k + offset), *_rotate(SHAPE_AXES, j)))
    return cases


def _ids(cases):
    return [f"{n}-{d}-{s}-{a}" for n, d, s, a in cases]


FROMPYFUNC_REDUCE = [(f, i, *_rotate(SHAPE_AXES, 5 * k + j)) for k, (f, i) in enumerate(SCALAR_FUNCS)
                     for j in range(2)]
# the empty reductions: an identity fills them, its absence raises ValueError
FROMPYFUNC_REDUCE += [(scalar_add, 0, (4, 0), 1), (scalar_sub, None, (0, 3), 0), (scalar_div, None, (4, 0), -1)]


@pytest.mark.parametrize("func,identity,shape,axis", FROMPYFUNC_REDUCE,
                         ids=[f"{c[0].__name__}-{c[2]}-{c[3]}" for c in FROMPYFUNC_REDUCE])
def test_frompyfunc_reduce(func, identity, shape, axis):
    x = _make(shape, np.float32, 3)
    u = tnp.frompyfunc(func, nin=2, nout=1, identity=identity)
    along_zero_dim = (0 in shape) if axis is None else shape[axis] == 0
    if identity is None and along_zero_dim:
        with pytest.raises(ValueError):
            u.reduce(x, axis=axis)
        return
    want = _cast_outputs(np.frompyfunc(func, 2, 1, identity=identity).reduce)(x, axis=axis)
    jfun = jnp.frompyfunc(func, 2, 1, identity=identity)
    _check(u.reduce(x, axis=axis), want, jax.eval_shape(lambda a: jfun.reduce(a, axis=axis), x))


BINARY_REDUCE = _one_per_name(BINARY_NAMES, 0)
BINARY_REDUCE += [("maximum", np.dtype("float32"), (4, 0), 1), ("subtract", np.dtype("int32"), (0, 3), -2),
                  ("minimum", np.dtype("bool"), (4, 3), None)]


@pytest.mark.parametrize("name,dtype,shape,axis", BINARY_REDUCE, ids=_ids(BINARY_REDUCE))
def test_binary_ufunc_reduce(name, dtype, shape, axis):
    u, npu, ju = getattr(tnp, name), getattr(np, name), getattr(jnp, name)
    x = _make(shape, dtype, 4)
    if ju.identity is None and axis is not None and shape[axis] == 0:
        with pytest.raises(ValueError):
            u.reduce(x, axis=axis)
        return
    _check(u.reduce(x, axis=axis), npu.reduce(x, axis=axis), jax.eval_shape(lambda a: ju.reduce(a, axis=axis), x))


@pytest.mark.parametrize("func,identity", [SCALAR_FUNCS[0], SCALAR_FUNCS[3]], ids=["scalar_add", "scalar_sub"])
def test_frompyfunc_reduce_initial(func, identity):
    # (not in JAX's grid) an explicit initial replaces the identity, or the first element where there is none
    x = _make((4, 3), np.float32, 29)
    got = tnp.frompyfunc(func, 2, 1, identity=identity).reduce(x, axis=0, initial=2.5)
    want = _cast_outputs(np.frompyfunc(func, 2, 1, identity=identity).reduce)(x, axis=0, initial=2.5)
    jfun = jnp.frompyfunc(func, 2, 1, identity=identity)
    _check(got, want, jfun.reduce(x, axis=0, initial=2.5))
    _check(got, jfun.reduce(x, axis=0, initial=2.5), jfun.reduce(x, axis=0, initial=2.5))


FROMPYFUNC_WHERE = [(f, i, *_rotate(SHAPE_AXES, 7 * k + 2)) for k, (f, i) in enumerate(SCALAR_FUNCS)]


@pytest.mark.parametrize("func,identity,shape,axis", FROMPYFUNC_WHERE,
                         ids=[f"{c[0].__name__}-{c[2]}-{c[3]}" for c in FROMPYFUNC_WHERE])
def test_frompyfunc_reduce_where(func, identity, shape, axis):
    initial = 1 if identity is None else None  # a where mask needs an initial value where there is no identity
    x, where = _make(shape, np.float32, 5), _make(shape, bool, 6)
    got = tnp.frompyfunc(func, 2, 1, identity=identity).reduce(x, where=where, axis=axis, initial=initial)
    # NumPy needs initial also where there is an identity (numpy/numpy#24530)
    want = _cast_outputs(np.frompyfunc(func, 2, 1, identity=identity).reduce)(
        x, where=where, axis=axis, initial=identity if initial is None else initial)
    jfun = jnp.frompyfunc(func, 2, 1, identity=identity)
    like = jax.eval_shape(lambda a, w: jfun.reduce(a, where=w, axis=axis, initial=initial), x, where)
    _check(got, want, like)


WITH_IDENTITY = [n for n in BINARY_NAMES if getattr(jnp, n).identity is not None]
BINARY_WHERE = _one_per_name(WITH_IDENTITY, 1, stride=4)


@pytest.mark.parametrize("name,dtype,shape,axis", BINARY_WHERE, ids=_ids(BINARY_WHERE))
def test_binary_ufunc_reduce_where(name, dtype, shape, axis):
    u, npu, ju = getattr(tnp, name), getattr(np, name), getattr(jnp, name)
    x, where = _make(shape, dtype, 7), _make(shape, bool, 8)
    like = jax.eval_shape(lambda a, w: ju.reduce(a, axis=axis, where=w), x, where)
    _check(u.reduce(x, axis=axis, where=where), npu.reduce(x, axis=axis, where=where), like)


BINARY_INITIAL = _one_per_name(BINARY_NAMES, 2, stride=5)


@pytest.mark.parametrize("name,dtype,shape,axis", BINARY_INITIAL, ids=_ids(BINARY_INITIAL))
def test_binary_ufunc_reduce_initial(name, dtype, shape, axis):
    u, npu, ju = getattr(tnp, name), getattr(np, name), getattr(jnp, name)
    x, initial = _make(shape, dtype, 9), _make((), dtype, 10)
    like = jax.eval_shape(lambda a, i: ju.reduce(a, axis=axis, initial=i), x, initial)
    _check(u.reduce(x, axis=axis, initial=initial), npu.reduce(x, axis=axis, initial=initial), like)


BINARY_WHERE_INITIAL = _one_per_name(BINARY_NAMES, 3, stride=7)


@pytest.mark.parametrize("name,dtype,shape,axis", BINARY_WHERE_INITIAL, ids=_ids(BINARY_WHERE_INITIAL))
def test_binary_ufunc_reduce_where_initial(name, dtype, shape, axis):
    u, npu, ju = getattr(tnp, name), getattr(np, name), getattr(jnp, name)
    x, where, initial = _make(shape, dtype, 11), _make(shape, bool, 12), _make((), dtype, 13)
    got = u.reduce(x, axis=axis, where=where, initial=initial)
    like = jax.eval_shape(lambda a, w, i: ju.reduce(a, axis=axis, where=w, initial=i), x, where, initial)
    _check(got, npu.reduce(x, axis=axis, where=where, initial=initial), like)


def test_binary_ufunc_reduce_keepdims_and_dtype():
    # (JAX's grid passes neither; jax.numpy's signature has both) against jax.numpy's results
    x = _make((4, 3), np.float32, 14)
    i = _make((4, 3), np.int32, 15)
    for got, want in [
            (tnp.subtract.reduce(x, axis=1, keepdims=True), jnp.subtract.reduce(x, axis=1, keepdims=True)),
            (tnp.add.reduce(x, axis=None, keepdims=True), jnp.add.reduce(x, axis=None, keepdims=True)),
            (tnp.logaddexp.reduce(x, axis=0, keepdims=True), jnp.logaddexp.reduce(x, axis=0, keepdims=True)),
            (tnp.add.reduce(i, axis=0, dtype=np.float32), jnp.add.reduce(i, axis=0, dtype=np.float32)),
            (tnp.subtract.reduce(i, axis=0, dtype=np.float32), jnp.subtract.reduce(i, axis=0, dtype=np.float32)),
            (tnp.bitwise_or.reduce(i, axis=(0, 1)), jnp.bitwise_or.reduce(i, axis=(0, 1))),
            (tnp.add.reduce(x, axis=(0, 1)), jnp.add.reduce(x, axis=(0, 1)))]:
        _check(got, want, want)


# -- accumulate ----------------------------------------------------------------------------------------------------

AXIS_CASES = [(s, a) for s in ALL_SHAPES for a in range(-len(s), len(s))]
FROMPYFUNC_ACCUMULATE = [(f, i, *_rotate(AXIS_CASES, 3 * k + 1)) for k, (f, i) in enumerate(SCALAR_FUNCS)]


@pytest.mark.parametrize("func,identity,shape,axis", FROMPYFUNC_ACCUMULATE,
                         ids=[f"{c[0].__name__}-{c[2]}-{c[3]}" for c in FROMPYFUNC_ACCUMULATE])
def test_frompyfunc_accumulate(func, identity, shape, axis):
    x = _make(shape, np.float32, 16)
    got = tnp.frompyfunc(func, 2, 1, identity=identity).accumulate(x, axis=axis)
    want = _cast_outputs(np.frompyfunc(func, 2, 1, identity=identity).accumulate)(x, axis=axis)
    jfun = jnp.frompyfunc(func, 2, 1, identity=identity)
    _check(got, want, jax.eval_shape(lambda a: jfun.accumulate(a, axis=axis), x))


BINARY_ACCUMULATE = [(n, _rotate(_loop_dtypes(n), k), *_rotate(AXIS_CASES, 2 * k)) for k, n in enumerate(BINARY_NAMES)]


@pytest.mark.parametrize("name,dtype,shape,axis", BINARY_ACCUMULATE, ids=_ids(BINARY_ACCUMULATE))
def test_binary_ufunc_accumulate(name, dtype, shape, axis):
    u, npu, ju = getattr(tnp, name), getattr(np, name), getattr(jnp, name)
    x = _make(shape, dtype, 17)
    like = jax.eval_shape(lambda a: ju.accumulate(a, axis=axis), x)
    # (NumPy's accumulate may widen the dtype: JAX's test casts its result to the input's, bools aside)
    _check(u.accumulate(x, axis=axis), npu.accumulate(x, axis=axis), like)


# -- at ------------------------------------------------------------------------------------------------------------

def _np_at(npu, x, idx, *values):
    x = x.copy()
    npu.at(x, idx, *values)
    return x


AT_SHAPES = [((3,), ()), ((4,), (2,)), ((4, 3), (2,)), ((4, 3), ())]


def _at_args(shape, idx_shape, dtype, seed):
    idx = np.random.RandomState(seed).randint(-shape[0], shape[0], size=idx_shape).astype(np.int32)
    return _make(shape, dtype, seed), idx, _make(idx_shape[1:], dtype, seed + 1)


@pytest.mark.parametrize("func,identity", SCALAR_FUNCS, ids=SCALAR_IDS)
def test_frompyfunc_at(func, identity):
    k = SCALAR_FUNCS.index((func, identity))
    x, idx, y = _at_args(*_rotate(AT_SHAPES, k), np.float32, 18 + k)
    got = tnp.frompyfunc(func, 2, 1, identity=identity).at(x, idx, y, inplace=False)
    want = _np_at(np.frompyfunc(func, 2, 1, identity=identity), x, idx, y)
    jfun = jnp.frompyfunc(func, 2, 1, identity=identity)
    _check(got, want, jax.eval_shape(lambda a, i, b: jfun.at(a, i, b, inplace=False), x, idx, y))


@pytest.mark.parametrize("shape,idx_shape,dtype", [((4, 3), (), np.float32), ((4,), (2,), np.int32),
                                                   ((3,), (2,), np.complex64)], ids=["f32", "i32", "c64"])
def test_unary_ufunc_at(shape, idx_shape, dtype):
    x, idx, _ = _at_args(shape, idx_shape, dtype, 22)
    like = jax.eval_shape(lambda a, i: jnp.negative.at(a, i, inplace=False), x, idx)
    _check(tnp.negative.at(x, idx, inplace=False), _np_at(np.negative, x, idx), like)


BINARY_AT = [(n, _rotate(_loop_dtypes(n), k + 1), *_rotate(AT_SHAPES, k)) for k, n in enumerate(BINARY_NAMES)]


@pytest.mark.parametrize("name,dtype,shape,idx_shape", BINARY_AT, ids=_ids(BINARY_AT))
def test_binary_ufunc_at(name, dtype, shape, idx_shape):
    u, npu, ju = getattr(tnp, name), getattr(np, name), getattr(jnp, name)
    x, idx, y = _at_args(shape, idx_shape, dtype, 23)
    like = jax.eval_shape(lambda a, i, b: ju.at(a, i, b, inplace=False), x, idx, y)
    _check(u.at(x, idx, y, inplace=False), _np_at(npu, x, idx, y), like)


def test_binary_ufunc_at_repeated_index():
    # a repeated index applies the ufunc once per occurrence (NumPy's unbuffered at), for a frompyfunc and built-ins
    x, idx, y = np.arange(4.0, dtype=np.float32), np.array([1, 1, -1, 1], np.int32), np.float32([2, 3, 4, 5])
    for u, npu in [(tnp.subtract, np.subtract), (tnp.multiply, np.multiply), (tnp.maximum, np.maximum),
                   (tnp.frompyfunc(scalar_div, 2, 1), np.divide)]:
        _check(u.at(x, idx, y, inplace=False), _np_at(npu, x, idx, y), jnp.zeros(4, np.float32))


def test_frompyfunc_at_broadcasting():
    # jax-ml/jax#18004: the values broadcast against the indexed rows
    x, idx, y = np.ones((5, 3), np.float32), np.array([0, 4, 2]), np.arange(9.0, dtype=np.float32).reshape(3, 3)
    got = tnp.frompyfunc(tnp.add, nin=2, nout=1, identity=0).at(x, idx, y, inplace=False)
    jfun = jnp.frompyfunc(jnp.add, nin=2, nout=1, identity=0)
    want = jfun.at(x, idx, y, inplace=False)
    _check(got, _np_at(np.add, x, idx, y), want)
    _check(got, want, want)
    # values of one dimension with as many entries as indices: jax.numpy's folded at pairs them with the indices (one
    # scalar per index), where NumPy broadcasts them against each indexed row; tj follows jax.numpy
    x, y = np.zeros((3, 3), np.float32), np.float32([1, 2, 3])
    got = tnp.frompyfunc(tnp.add, 2, 1, identity=0).at(x, idx[:3] % 3, y, inplace=False)
    want = jfun.at(x, idx[:3] % 3, y, inplace=False)
    _check(got, want, want)
    assert not np.allclose(want, _np_at(np.add, x, idx[:3] % 3, y))


# -- reduceat ------------------------------------------------------------------------------------------------------

REDUCEAT_AXES = [(s, a) for s, a in AXIS_CASES if s[a] != 0]
IDX_SHAPES = [(0,), (3,), (5,)]


def _reduceat_indices(n, idx_shape, seed):
    return np.random.RandomState(seed).randint(0, n, size=idx_shape).astype(np.int32)


FROMPYFUNC_REDUCEAT = [(f, i, *_rotate(REDUCEAT_AXES, 2 * k + 1), _rotate(IDX_SHAPES, k + 1))
                       for k, (f, i) in enumerate(SCALAR_FUNCS)]


@pytest.mark.parametrize("func,identity,shape,axis,idx_shape", FROMPYFUNC_REDUCEAT,
                         ids=[f"{c[0].__name__}-{c[2]}-{c[3]}-{c[4]}" for c in FROMPYFUNC_REDUCEAT])
def test_frompyfunc_reduceat(func, identity, shape, axis, idx_shape):
    x, idx = _make(shape, np.float32, 24), _reduceat_indices(shape[axis], idx_shape, 25)
    got = tnp.frompyfunc(func, 2, 1, identity=identity).reduceat(x, idx, axis=axis)
    want = _cast_outputs(np.frompyfunc(func, 2, 1, identity=identity).reduceat)(x, idx, axis=axis)
    jfun = jnp.frompyfunc(func, 2, 1, identity=identity)
    _check(got, want, jax.eval_shape(lambda a, i: jfun.reduceat(a, i, axis=axis), x, idx))




def _reduceat_dtypes(name):
    # (bool add/multiply reduceat: jax.numpy's result is not NumPy's, JAX's test skips it)
    return [d for d in _loop_dtypes(name) if not (name in ("add", "multiply") and d == bool)]


BINARY_REDUCEAT = [(n, _rotate(_reduceat_dtypes(n), k), *_rotate(REDUCEAT_AXES, k), _rotate(IDX_SHAPES, k))
                   for k, n in enumerate(BINARY_NAMES)]


@pytest.mark.parametrize("name,dtype,shape,axis,idx_shape", BINARY_REDUCEAT,
                         ids=[f"{c[0]}-{c[1]}-{c[2]}-{c[3]}-{c[4]}" for c in BINARY_REDUCEAT])
def test_binary_ufunc_reduceat(name, dtype, shape, axis, idx_shape):
    u, npu, ju = getattr(tnp, name), getattr(np, name), getattr(jnp, name)
    x, idx = _make(shape, dtype, 26), _reduceat_indices(shape[axis], idx_shape, 27)
    like = jax.eval_shape(lambda a, i: ju.reduceat(a, i, axis=axis), x, idx)
    _check(u.reduceat(x, idx, axis=axis), npu.reduceat(x, idx, axis=axis), like)


def test_reduceat_index_out_of_bounds_raises():
    # API.md: an index out of bounds raises IndexError, as NumPy's reduceat (jax.numpy's fills the row with NaN)
    x = _make((4, 3), np.float32, 28)
    for u in (tnp.add, tnp.subtract, tnp.frompyfunc(scalar_mul, 2, 1)):
        with pytest.raises(IndexError):
            u.reduceat(x, np.array([0, 4]), axis=0)
    with pytest.raises(IndexError):
        np.add.reduceat(x, np.array([0, 4]), axis=0)
    with pytest.raises(IndexError):
        tj.function(lambda a: tnp.maximum.reduceat(a, np.array([5]), axis=0))(x)


# -- errors: jax.numpy's refusals, the same class ------------------------------------------------------------------

F32 = np.ones((4, 3), np.float32)
ERROR_CASES = [
    ("reduce-empty-no-identity", lambda m: m.maximum.reduce(np.ones((4, 0), np.float32), axis=1), ValueError),
    ("reduce-where-no-identity", lambda m: m.subtract.reduce(F32, where=F32 > 0), ValueError),
    ("reduce-where-not-bool", lambda m: m.add.reduce(F32, where=np.ones((4, 3), np.int32)), ValueError),
    ("reduce-unary", lambda m: m.negative.reduce(F32), ValueError),
    ("call-out", lambda m: m.add(F32, F32, out=F32), NotImplementedError),
    ("reduce-fold-axis-tuple", lambda m: m.subtract.reduce(F32, axis=(0, 1)), NotImplementedError),
    ("accumulate-unary", lambda m: m.negative.accumulate(F32), ValueError),
    ("accumulate-axis-out-of-range", lambda m: m.subtract.accumulate(F32, axis=2), ValueError),
    ("outer-unary", lambda m: m.negative.outer(F32, F32), ValueError),
    ("at-inplace", lambda m: m.add.at(F32, 0, 1.0), NotImplementedError),
    ("at-inplace-frompyfunc", lambda m: m.frompyfunc(scalar_add, 2, 1).at(F32, 0, 1.0), NotImplementedError),
    ("reduceat-0d", lambda m: m.add.reduceat(np.float32(1), np.array([0])), ValueError),
    ("reduceat-2d-indices", lambda m: m.add.reduceat(F32, np.zeros((1, 1), np.int32)), ValueError),
    ("reduceat-unary", lambda m: m.negative.reduceat(F32, np.array([0])), ValueError),
    ("call-argument-count", lambda m: m.add(F32, F32, F32), TypeError),
    ("bitwise-on-float", lambda m: m.bitwise_and.outer(F32, F32), TypeError),
]


@pytest.mark.parametrize("what,call,error", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_method_errors(what, call, error):
    with pytest.raises(error):
        call(jnp)  # (jax.numpy's own class, so the expectation is jax's)
    with pytest.raises(error):
        call(tnp)


# -- gradients: tape vs jax.vjp, ForwardAccumulator vs jax.jvp -------------------------------------------------------

def _poly(x, y):
    """A frompyfunc ufunc nonlinear in both arguments (Python operators only: one definition for jax and tj)."""
    return x * y + x - 0.25 * y * y


GRAD_UFUNCS = {
    "add": (tnp.add, jnp.add), "multiply": (tnp.multiply, jnp.multiply), "maximum": (tnp.maximum, jnp.maximum),
    "subtract": (tnp.subtract, jnp.subtract), "logaddexp": (tnp.logaddexp, jnp.logaddexp),
    "frompyfunc": (tnp.frompyfunc(_poly, 2, 1), jnp.frompyfunc(_poly, 2, 1)),
}

AT_INDEX = np.array([2, 0, -1, 0], np.int32)  # repeated: the ufunc applied twice at row 0 and at row 2
REDUCEAT_INDEX = np.array([0, 2, 1, 3], np.int32)  # one decreasing pair: a lone element there

# method -> (inputs' shapes, call of a ufunc u on the inputs, which inputs are differentiated)
METHODS = {
    "call": ([(3, 2), (2,)], lambda u, x, y: u(x, y)),
    "outer": ([(3,), (2,)], lambda u, x, y: u.outer(x, y)),
    "reduce": ([(2, 4)], lambda u, x: u.reduce(x, axis=1)),
    "reduce_where_initial": ([(4, 2)], lambda u, x: u.reduce(x, axis=0, where=np.array([[1, 0], [1, 1], [0, 1],
                                                                                          [1, 1]], bool), initial=0.5)),
    "accumulate": ([(4, 2)], lambda u, x: u.accumulate(x, axis=0)),
    "reduceat": ([(5, 2)], lambda u, x: u.reduceat(x, REDUCEAT_INDEX, axis=0)),
    "at": ([(3, 2), (4, 2)], lambda u, x, y: u.at(x, AT_INDEX, y, inplace=False)),
}


def _real(shape, seed):
    # distinct values (no ties for maximum), away from logaddexp's flat tails
    return np.asarray(np.random.RandomState(seed).randn(*shape) * 1.5, np.float32)


# every method of every ufunc; a built-in's __call__ is its plain op (tested with the op), and where/initial are
# checked on an op-based reduce (add: sum) and a folded one (frompyfunc)
GRAD_CASES = [(u, m) for u, m in itertools.product(GRAD_UFUNCS, METHODS)
              if (m != "call" or u == "frompyfunc") and (m != "reduce_where_initial" or u in ("add", "frompyfunc"))]


def _grad_case(ufunc, method):
    """(tj ufunc, jax ufunc, call, inputs, tangents) of a gradient case."""
    tu, ju = GRAD_UFUNCS[ufunc]
    if (ufunc, method) == ("multiply", "at"):
        # jax's multiply.at (a scatter-multiply) has no gradient for a repeated index (NotImplementedError); tj
        # defines one: jax's derivative of the same updates made one at a time (the scan of jnp.frompyfunc's at)
        ju = jnp.frompyfunc(jnp.multiply, 2, 1, identity=1)
    shapes, call = METHODS[method]
    args = [_real(s, 30 + k) for k, s in enumerate(shapes)]
    tangents = [_real(s, 40 + k) for k, s in enumerate(shapes)]
    return tu, ju, call, args, tangents


def _one_reference(ufunc, method):
    """jax's value, a random cotangent, jax.vjp's gradients and jax.jvp's tangent for a gradient case (one jitted
    program per case: one program for all cases compiled slower)."""
    _, ju, call, args, tangents = _grad_case(ufunc, method)

    def reference(*a):
        out, vjp = jax.vjp(lambda *b: call(ju, *b), *a)
        ct = jnp.asarray(_real(out.shape, 50))
        _, jvp_out = jax.jvp(lambda *b: call(ju, *b), tuple(a), tuple(jnp.asarray(t) for t in tangents))
        return out, ct, vjp(ct), jvp_out
    return jax.tree.map(np.asarray, jax.jit(reference)(*args))


@pytest.mark.parametrize("ufunc,method", GRAD_CASES, ids=[f"{u}-{m}" for u, m in GRAD_CASES])
def test_method_gradients(ufunc, method):
    tu, _, call, args, tangents = _grad_case(ufunc, method)
    out, ct, want_grads, want_jvp = _one_reference(ufunc, method)
    ts = [tj.constant(a) for a in args]
    with tj.GradientTape() as tape:
        tape.watch(ts)
        got = call(tu, *ts)
    np.testing.assert_allclose(got.numpy(), out, rtol=1e-5, atol=1e-5)
    grads = tape.gradient(got, ts, output_gradients=ct)
    assert len(grads) == len(want_grads)
    for g, w in zip(grads, want_grads):
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-5, atol=1e-5)
    with tj.ForwardAccumulator(ts, [tj.constant(t) for t in tangents]) as acc:
        got = call(tu, *ts)
    np.testing.assert_allclose(acc.jvp(got).numpy(), want_jvp, rtol=1e-5, atol=1e-5)


def test_maximum_method_gradients_at_ties():
    # API.md: maximum at a tie gives the whole gradient to its first argument (TF 2.21's Maximum, checked here);
    # accumulate and at fold the binary op, so the running value (first argument) takes it. maximum.reduce is max,
    # whose tie shares the gradient equally (jax's max and TF's reduce_max alike: [0.5, 0.5]).
    x = tj.constant([[1.0, 2.0], [1.0, 3.0], [0.5, 3.0]])
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        acc = tnp.maximum.accumulate(x, axis=0)
        red = tnp.maximum.reduce(x, axis=0)
    np.testing.assert_array_equal(tape.gradient(acc, x).numpy(), [[3, 1], [0, 2], [0, 0]])
    np.testing.assert_array_equal(tape.gradient(red, x).numpy(), [[0.5, 0], [0.5, 0.5], [0, 0.5]])
    a, b = tj.constant([1.0, 2.0]), tj.constant([1.0, 1.0])
    with tj.GradientTape() as tape:
        tape.watch([a, b])
        at = tnp.maximum.at(a, np.array([0, 0]), b, inplace=False)
    ga, gb = tape.gradient(at, [a, b])
    np.testing.assert_array_equal(ga.numpy(), [1, 1])
    np.testing.assert_array_equal(gb.numpy(), [0, 0])
    with tj.ForwardAccumulator(x, tj.constant([[1.0, 1.0], [10.0, 10.0], [100.0, 100.0]])) as fwd:
        acc = tnp.maximum.accumulate(x, axis=0)
    np.testing.assert_array_equal(fwd.jvp(acc).numpy(), [[1, 1], [1, 10], [1, 10]])


# -- tj.function against eager, once per method (JAX's _CompileAndCheck) --------------------------------------------

FUNCTION_CASES = [
    ("call", lambda u, x: u(x, x[::-1])),
    ("outer", lambda u, x: u.outer(x[0], x[:, 1])),
    ("reduce", lambda u, x: u.reduce(x, axis=0)),
    ("reduce_where_initial", lambda u, x: u.reduce(x, axis=1, where=x > 0, initial=2.0)),
    ("accumulate", lambda u, x: u.accumulate(x, axis=1)),
    ("at", lambda u, x: u.at(x, np.array([1, -1, 1]), x[0], inplace=False)),
    ("reduceat", lambda u, x: u.reduceat(x, np.array([0, 2, 2]), axis=0)),
]
FUNCTION_UFUNCS = {"subtract": tnp.subtract, "frompyfunc": tnp.frompyfunc(scalar_mul, 2, 1, identity=1)}


@pytest.mark.parametrize("ufunc", FUNCTION_UFUNCS)
@pytest.mark.parametrize("method,call", FUNCTION_CASES, ids=[c[0] for c in FUNCTION_CASES])
def test_methods_in_function(method, call, ufunc):
    u = FUNCTION_UFUNCS[ufunc]
    x = _make((3, 3), np.float32, 60)
    eager = call(u, tj.constant(x))
    compiled = tj.function(lambda a: call(u, a))(x)
    assert (compiled.shape, compiled.dtype) == (eager.shape, eager.dtype)
    np.testing.assert_allclose(compiled.numpy(), eager.numpy(), rtol=1e-6, atol=1e-6)


def test_gradient_inside_function():
    # a tape inside tj.function over a frompyfunc reduce: the same gradient as jax.grad of jax.numpy's
    u, ju = GRAD_UFUNCS["frompyfunc"]
    x = _real((3, 2), 70)

    @tj.function
    def grad(a):
        with tj.GradientTape() as tape:
            tape.watch(a)
            y = tnp.sum(u.reduce(a, axis=0) ** 2)
        return tape.gradient(y, a)
    want = jax.grad(lambda a: jnp.sum(ju.reduce(a, axis=0) ** 2))(x)
    np.testing.assert_allclose(grad(tj.constant(x)).numpy(), want, rtol=1e-5, atol=1e-5)


def test_jax_transformations_of_ufunc_code():
    # API.md: jax.grad / jax.vmap of a function of Tensors built from tj ops give jax.numpy's results
    u, ju = GRAD_UFUNCS["frompyfunc"]
    x = _real((4, 3), 80)

    def loss(m, uf, a):
        return m.sum(uf.reduce(a, axis=0) ** 2) + m.sum(m.maximum.accumulate(a, axis=1) * a)
    got = jax.grad(lambda a: loss(tnp, u, tj.Tensor(a)).value)(x)
    np.testing.assert_allclose(got, jax.grad(lambda a: loss(jnp, ju, a))(x), rtol=1e-5, atol=1e-5)
    batch = np.stack([x, 2 * x])
    got = jax.vmap(lambda a: tnp.subtract.reduceat(tj.Tensor(a), np.array([0, 2]), axis=1).value)(batch)
    want = jax.vmap(lambda a: jnp.subtract.reduceat(a, jnp.array([0, 2]), axis=1))(batch)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "maximum", "minimum", "logaddexp"])
def test_at_with_an_index_out_of_bounds_changes_nothing_as_jax(name):
    """jax.numpy's ufunc.at drops an update at an index out of bounds, for every ufunc; tj's add/subtract/multiply.at
    did, while maximum/minimum/logaddexp.at (applied one index at a time) raised IndexError."""
    x = np.arange(4.0, dtype=np.float32)
    got = getattr(tnp, name).at(x, np.array([5, 1]), np.float32(9.0), inplace=False)
    want = getattr(jnp, name).at(jnp.asarray(x), np.array([5, 1]), np.float32(9.0), inplace=False)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
