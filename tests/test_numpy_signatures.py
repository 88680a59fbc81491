"""tj.numpy's reductions and products take jax.numpy's keyword arguments (API.md: "mirrors jax.numpy names and
signatures"): ``where``/``initial``/``dtype``/``promote_integers`` of sum, mean, prod, max, min; ``correction``,
``where`` and ``mean`` of var and std; ``dtype`` (and ``axis=None``) of concatenate, stack, vstack and hstack;
``precision`` and ``preferred_element_type`` of matmul, dot, einsum (and its ``optimize``), tensordot, inner and
vdot; ``where`` of all, any, nansum and nanmean; diff's ``prepend``/``append``; the ``*_like`` constructors'
``shape``; trace's ``dtype``; size's ``axis``; take's and take_along_axis's gather options (``fill_value``...). And jax.nn's ``where`` of softmax, log_softmax and logsumexp (masked
attention: the entries left out are 0 / -inf and get no gradient; a row selecting nothing gives 0s / -inf, not NaN).
Then jax.numpy functions beyond API.md's list, built from tj ops: column_stack, dstack, atleast_1d/2d/3d, fliplr,
flipud, rot90, permute_dims, matrix_transpose, cumulative_sum, average, array_split, hsplit, vsplit, dsplit.

Values, gradients and JVPs are checked against jax.numpy's own functions under jax.grad/jax.jvp (reference values
computed by JAX at test time, not by tapejax), and one case of each kind on the other paths of API.md's "One set
of rules on every path".
"""
from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from path_runners import Case, assert_same, path_eager, path_jax_grad, path_replayed, path_tape_in_function

tnp = tj.numpy

_rng = np.random.default_rng(7)
X = _rng.normal(size=(3, 4)).astype(np.float32)
MASK = np.array([[True, False, True, True], [False, True, True, False], [True, True, False, True]])
ROW_MASK = np.array([True, False, True, True])
A, B = _rng.normal(size=(3, 4)).astype(np.float32), _rng.normal(size=(4, 5)).astype(np.float32)
TAKE = np.array([0, 2, 5, -1])  # 5: out of bounds
ALONG = np.array([[0, 3], [4, 1], [-1, -5]])  # 4 and -5: out of bounds

# (label, tapejax function, jax.numpy function): each of one float32 argument
UNARY = [
    ("sum where", lambda t: tnp.sum(t, where=MASK), lambda v: jnp.sum(v, where=MASK)),
    ("sum where axis initial", lambda t: tnp.sum(t, axis=1, where=ROW_MASK, keepdims=True, initial=2.0),
     lambda v: jnp.sum(v, axis=1, where=ROW_MASK, keepdims=True, initial=2.0)),
    ("sum dtype float16", lambda t: tnp.sum(t, axis=0, dtype=jnp.float16), lambda v: jnp.sum(v, axis=0, dtype=jnp.float16)),
    ("mean where", lambda t: tnp.mean(t, axis=0, where=MASK), lambda v: jnp.mean(v, axis=0, where=MASK)),
    ("prod where initial", lambda t: tnp.prod(t, axis=1, where=MASK, initial=2.0),
     lambda v: jnp.prod(v, axis=1, where=MASK, initial=2.0)),
    ("max where initial", lambda t: tnp.max(t, axis=1, where=MASK, initial=-0.5),
     lambda v: jnp.max(v, axis=1, where=MASK, initial=-0.5)),
    ("min initial", lambda t: tnp.min(t, axis=0, initial=0.0), lambda v: jnp.min(v, axis=0, initial=0.0)),
    ("var where ddof", lambda t: tnp.var(t, axis=1, where=MASK, ddof=1), lambda v: jnp.var(v, axis=1, where=MASK, ddof=1)),
    ("var correction", lambda t: tnp.var(t, axis=0, correction=1), lambda v: jnp.var(v, axis=0, correction=1)),
    ("var mean", lambda t: tnp.var(t, axis=1, mean=tnp.mean(t, axis=1, keepdims=True)),
     lambda v: jnp.var(v, axis=1, mean=jnp.mean(v, axis=1, keepdims=True))),
    ("std where keepdims", lambda t: tnp.std(t, axis=0, where=MASK, keepdims=True),
     lambda v: jnp.std(v, axis=0, where=MASK, keepdims=True)),
    ("std correction", lambda t: tnp.std(t, correction=1), lambda v: jnp.std(v, correction=1)),
    ("concatenate axis None", lambda t: tnp.concatenate([t, t[0]], axis=None),
     lambda v: jnp.concatenate([v, v[0]], axis=None)),
    ("stack dtype", lambda t: tnp.stack([t, 2.0 * t], axis=1, dtype=jnp.float16),
     lambda v: jnp.stack([v, 2.0 * v], axis=1, dtype=jnp.float16)),
    ("diff prepend append", lambda t: tnp.diff(t, axis=1, prepend=0.5, append=t[:, :1]),
     lambda v: jnp.diff(v, axis=1, prepend=0.5, append=v[:, :1])),
    ("tensordot precision", lambda t: tnp.tensordot(t, A, axes=((1,), (1,)), precision="highest"),
     lambda v: jnp.tensordot(v, A, axes=((1,), (1,)), precision="highest")),
    ("inner preferred", lambda t: tnp.inner(t, A, preferred_element_type=jnp.float32),
     lambda v: jnp.inner(v, A, preferred_element_type=jnp.float32)),
    ("trace dtype float16", lambda t: tnp.trace(t, dtype=jnp.float16), lambda v: jnp.trace(v, dtype=jnp.float16)),
    ("nansum where initial", lambda t: tnp.nansum(t, axis=1, where=MASK, initial=1.0),
     lambda v: jnp.nansum(v, axis=1, where=MASK, initial=1.0)),
    ("nanmean where", lambda t: tnp.nanmean(t, axis=0, where=MASK), lambda v: jnp.nanmean(v, axis=0, where=MASK)),
    ("vstack dtype", lambda t: tnp.vstack([t, t[0]], dtype=jnp.float16), lambda v: jnp.vstack([v, v[0]], dtype=jnp.float16)),
    # an explicit mode keeps JAX's out-of-bounds semantics (mode=None raises IndexError, as TF and NumPy)
    ("take fill_value", lambda t: tnp.take(t, TAKE, axis=1, mode="fill", fill_value=-3.0),
     lambda v: jnp.take(v, TAKE, axis=1, mode="fill", fill_value=-3.0)),
    ("take_along_axis mode fill", lambda t: tnp.take_along_axis(t, ALONG, axis=1, mode="fill", fill_value=9.0),
     lambda v: jnp.take_along_axis(v, ALONG, axis=1, mode="fill", fill_value=9.0)),
    ("take_along_axis clip no wrap", lambda t: tnp.take_along_axis(t, ALONG, 1, mode="clip", wrap_negative_indices=False),
     lambda v: jnp.take_along_axis(v, ALONG, 1, mode="clip", wrap_negative_indices=False)),
]

# jax.nn's where=: the masked entries of log_softmax and logsumexp are -inf (the test compares the finite ones
# and weights only those in the loss); row 1 of ROWS selects nothing
ROWS = np.array([[True, False, True, True], [False] * 4, [True, True, False, True]])
UNARY += [
    ("softmax where", lambda t: tj.nn.softmax(t, where=ROWS), lambda v: jax.nn.softmax(v, where=ROWS)),
    ("softmax where axis 0 broadcast", lambda t: tj.nn.softmax(t, axis=0, where=ROW_MASK),
     lambda v: jax.nn.softmax(v, axis=0, where=ROW_MASK)),
    ("log_softmax where", lambda t: tj.nn.log_softmax(t, where=ROWS), lambda v: jax.nn.log_softmax(v, where=ROWS)),
    ("logsumexp where", lambda t: tj.nn.logsumexp(t, axis=1, where=ROWS), lambda v: jax.nn.logsumexp(v, axis=1, where=ROWS)),
    ("logsumexp where b keepdims", lambda t: tj.nn.logsumexp(t, axis=0, b=1.5, keepdims=True, where=ROWS),
     lambda v: jax.nn.logsumexp(v, axis=0, b=1.5, keepdims=True, where=ROWS)),
]

# (label, tapejax function, jax.numpy function): each of A (3, 4) and B (4, 5)
BINARY = [
    ("matmul precision", lambda x, y: tnp.matmul(x, y, precision="highest"),
     lambda x, y: jnp.matmul(x, y, precision="highest")),
    ("matmul bfloat16 preferred float32",
     lambda x, y: tnp.matmul(x.astype(jnp.bfloat16), y.astype(jnp.bfloat16), preferred_element_type=jnp.float32),
     lambda x, y: jnp.matmul(x.astype(jnp.bfloat16), y.astype(jnp.bfloat16), preferred_element_type=jnp.float32)),
    ("dot precision pair", lambda x, y: tnp.dot(x, y, precision=(jax.lax.Precision.HIGHEST, jax.lax.Precision.HIGH)),
     lambda x, y: jnp.dot(x, y, precision=(jax.lax.Precision.HIGHEST, jax.lax.Precision.HIGH))),
    ("einsum options", lambda x, y: tnp.einsum("ij,jk->ik", x, y, precision="highest", optimize="greedy",
                                               preferred_element_type=jnp.float32),
     lambda x, y: jnp.einsum("ij,jk->ik", x, y, precision="highest", optimize="greedy",
                             preferred_element_type=jnp.float32)),
]


def _weights(shape):
    return np.arange(1, int(np.prod(shape)) + 1, dtype=np.float32).reshape(shape) / 10


def _check(got, want, tol):
    np.testing.assert_allclose(np.asarray(got, np.float32), np.asarray(want, np.float32), rtol=tol, atol=tol)


@pytest.mark.parametrize("label, tj_fn, jnp_fn", UNARY, ids=[c[0] for c in UNARY])
def test_reduction_keywords_as_jax_numpy(label, tj_fn, jnp_fn):
    tol = 2e-3 if "float16" in label or "dtype" in label else 1e-5
    want = jnp_fn(jnp.asarray(X))
    finite = np.isfinite(np.asarray(want, np.float32))
    w = np.where(finite, _weights(want.shape), 0).astype(np.float32)
    x = tj.constant(X)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tj_fn(x)
        loss = tnp.sum(tnp.where(finite, y, 0.0) * w)
    assert y.dtype == want.dtype and y.shape == want.shape
    np.testing.assert_array_equal(np.isfinite(np.asarray(y.numpy(), np.float32)), finite)
    _check(np.where(finite, y.numpy(), 0), np.where(finite, want, 0), tol)
    want_g = jax.grad(lambda v: jnp.sum(jnp.where(finite, jnp_fn(v), 0.0) * w))(jnp.asarray(X))
    _check(tape.gradient(loss, x).numpy(), want_g, tol)
    t = np.cos(X)
    with tj.ForwardAccumulator(x, tj.constant(t)) as acc:
        y = tj_fn(x)
    want_t = jax.jvp(jnp_fn, (jnp.asarray(X),), (jnp.asarray(t),))[1]
    _check(np.where(finite, acc.jvp(y).numpy(), 0), np.where(finite, want_t, 0), tol)


@pytest.mark.parametrize("label, tj_fn, jnp_fn", BINARY, ids=[c[0] for c in BINARY])
def test_product_options_as_jax_numpy(label, tj_fn, jnp_fn):
    tol = 3e-2 if "bfloat16" in label else 1e-4
    want = jnp_fn(A, B)
    w = _weights(want.shape)
    a, b = tj.constant(A), tj.constant(B)
    with tj.GradientTape() as tape:
        tape.watch([a, b])
        y = tj_fn(a, b)
        loss = tnp.sum(y * w)
    assert y.dtype == want.dtype
    _check(y.numpy(), want, tol)
    ga, gb = tape.gradient(loss, [a, b])
    ja, jb = jax.grad(lambda x, z: jnp.sum(jnp_fn(x, z) * w), (0, 1))(A, B)
    _check(ga.numpy(), ja, tol)
    _check(gb.numpy(), jb, tol)
    ta, tb = np.cos(A), np.sin(B)
    with tj.ForwardAccumulator([a, b], [tj.constant(ta), tj.constant(tb)]) as acc:
        y = tj_fn(a, b)
    _check(acc.jvp(y).numpy(), jax.jvp(jnp_fn, (A, B), (ta, tb))[1], tol)


def test_masked_reductions_on_every_path():
    # one program using where= (also a masked softmax), initial=, correction= and precision=: the same gradient
    # eagerly, replayed, by a tape inside tj.function and under jax.grad of the tj code
    def prog(x, y):
        m = tnp.sum(x, axis=1, where=MASK) + tnp.max(x, axis=1, where=MASK, initial=-1.0)
        v = tnp.var(x, axis=1, correction=1, where=MASK) + tnp.mean(x, axis=1, where=MASK)
        attention = tnp.sum(tj.nn.softmax(x, where=ROWS) * x, axis=1)
        return tnp.sum(tnp.matmul(tnp.stack([m, v, attention]), y[:3], precision="highest"))
    case = Case("masked reductions", prog, [X, B])
    want = path_eager(case)
    got, how = path_replayed(case)
    assert "replayed" in how
    assert_same("replayed", got, want)
    assert_same("tape inside tj.function", path_tape_in_function(case), want)
    assert_same("jax.grad", path_jax_grad(case, jit=True), want, none_as_zero=True)


def test_integer_dtypes_as_jax_numpy():
    x = np.array([0.5, 0.5, 1.7], np.float32)
    for f in ("sum", "prod"):
        got = getattr(tnp, f)(x, dtype=jnp.int32)  # jax.numpy casts first: sum is 0 + 0 + 1
        want = getattr(jnp, f)(x, dtype=jnp.int32)
        assert got.dtype == want.dtype and int(got) == int(want)
    small = np.array([100, 3], np.int8)
    for f in ("sum", "prod"):
        got = getattr(tnp, f)(small, promote_integers=False)
        want = getattr(jnp, f)(small, promote_integers=False)
        assert got.dtype == want.dtype == np.int8 and int(got) == int(want)
        assert getattr(tnp, f)(small).dtype == getattr(jnp, f)(small).dtype  # widened by default
    empty = np.zeros((0, 3), np.float32)
    np.testing.assert_array_equal(tnp.max(empty, axis=0, initial=-1.0).numpy(), jnp.max(empty, axis=0, initial=-1.0))
    np.testing.assert_array_equal(tnp.min(empty.T, axis=1, keepdims=True, initial=2.0).numpy(),
                                  jnp.min(empty.T, axis=1, keepdims=True, initial=2.0))
    assert np.isnan(float(tnp.mean(np.ones(3, np.float32), where=np.zeros(3, bool))))  # no entry selected
    b = X > 0
    assert tnp.all(b, axis=1, where=MASK).numpy().tolist() == jnp.all(b, axis=1, where=MASK).tolist()
    assert tnp.any(b, axis=0, where=MASK).numpy().tolist() == jnp.any(b, axis=0, where=MASK).tolist()
    for f in ("zeros_like", "ones_like"):
        got, want = getattr(tnp, f)(X, shape=(2, 1)), getattr(jnp, f)(X, shape=(2, 1))
        assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(tnp.full_like(X, 3, shape=(2,)).numpy(), jnp.full_like(X, 3, shape=(2,)))
    assert tnp.size(X, 1) == jnp.size(X, 1) and tnp.size(X, (0, 1)) == jnp.size(X, (0, 1))


def test_bad_keyword_arguments_raise_as_jax_numpy():
    with pytest.raises(NotImplementedError, match="'out' argument to tj.numpy.sum"):
        tnp.sum(X, out=np.zeros(()))
    with pytest.raises(ValueError, match="does not have an identity"):
        tnp.max(X, where=MASK)
    with pytest.raises(ValueError, match="where must be None or a boolean array"):
        tnp.sum(X, where=MASK.astype(np.int32))
    with pytest.raises(ValueError, match=r"where mask of shape \(3, 4\) does not broadcast to the input's shape \(4,\)"):
        tnp.mean(X[0], where=MASK)
    with pytest.raises(ValueError, match="ddof and correction"):
        tnp.var(X, ddof=1, correction=1)


API_FUNCTIONS = ["sum", "mean", "prod", "max", "min", "var", "std", "concatenate", "stack", "matmul", "dot", "einsum",
                 "all", "any", "diff", "tensordot", "inner", "vdot", "trace", "nansum", "nanmean", "vstack", "hstack",
                 "zeros_like", "ones_like", "full_like", "size", "take", "take_along_axis"]
NOT_MIRRORED = {"out_sharding", "_dot_general", "device"}  # jax's sharding-in-types, placement and an internal hook


@pytest.mark.parametrize("name", API_FUNCTIONS + ["nn." + n for n in ("softmax", "log_softmax", "logsumexp")])
def test_keyword_parameters_of_jax_numpy_are_accepted(name):
    ours_f, theirs_f = (getattr(tj.nn, name[3:]), getattr(jax.nn, name[3:])) if name.startswith("nn.") else \
        (getattr(tnp, name), getattr(jnp, name))
    ours = inspect.signature(ours_f).parameters
    for p in inspect.signature(theirs_f).parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.name in NOT_MIRRORED:
            continue
        assert p.name in ours, f"tj.numpy.{name} lacks jax.numpy.{name}'s parameter {p.name!r}"


# jax.numpy functions beyond API.md's list, built from tj ops: (label, tapejax function, jax.numpy function, input);
# list results compared element by element
V = _rng.normal(size=(4,)).astype(np.float32)
X3 = _rng.normal(size=(2, 3, 4)).astype(np.float32)
WEIGHTS = np.abs(_rng.normal(size=(4,))).astype(np.float32) + 0.1
MORE = [
    ("column_stack", lambda t: tnp.column_stack([t, t * 2.0]), lambda u: jnp.column_stack([u, u * 2.0]), V),
    ("dstack", lambda t: tnp.dstack([t, t]), lambda u: jnp.dstack([u, u]), X),
    ("atleast_2d", lambda t: tnp.atleast_2d(t), lambda u: jnp.atleast_2d(u), V),
    ("atleast_3d several", lambda t: tnp.atleast_3d(t, t[0], t[0, 0]), lambda u: jnp.atleast_3d(u, u[0], u[0, 0]), X),
    ("atleast_1d scalar", lambda t: tnp.atleast_1d(t[0, 0]), lambda u: jnp.atleast_1d(u[0, 0]), X),
    ("fliplr", tnp.fliplr, jnp.fliplr, X),
    ("flipud", tnp.flipud, jnp.flipud, X),
    ("rot90", lambda t: [tnp.rot90(t, k) for k in (0, 1, 2, 3, -1)], lambda u: [jnp.rot90(u, k) for k in (0, 1, 2, 3, -1)],
     X),
    ("rot90 axes", lambda t: tnp.rot90(t, 1, axes=(2, 0)), lambda u: jnp.rot90(u, 1, axes=(2, 0)), X3),
    ("permute_dims", lambda t: tnp.permute_dims(t, (2, 0, 1)), lambda u: jnp.permute_dims(u, (2, 0, 1)), X3),
    ("matrix_transpose", tnp.matrix_transpose, jnp.matrix_transpose, X3),
    ("cumulative_sum", lambda t: tnp.cumulative_sum(t, axis=1, include_initial=True),
     lambda u: jnp.cumulative_sum(u, axis=1, include_initial=True), X),
    ("average 1-d weights", lambda t: tnp.average(t, axis=1, weights=WEIGHTS),
     lambda u: jnp.average(u, axis=1, weights=WEIGHTS), X),
    ("average returned keepdims", lambda t: list(tnp.average(t, 0, np.abs(X) + 0.1, returned=True, keepdims=True)),
     lambda u: list(jnp.average(u, 0, np.abs(X) + 0.1, returned=True, keepdims=True)), X),
    ("array_split", lambda t: tnp.array_split(t, 3, axis=1), lambda u: jnp.array_split(u, 3, axis=1), X),
    ("hsplit vsplit dsplit", lambda t: tnp.hsplit(t[0], 2) + tnp.vsplit(t, 2) + tnp.dsplit(t, [1]),
     lambda u: jnp.hsplit(u[0], 2) + jnp.vsplit(u, 2) + jnp.dsplit(u, [1]), X3),
]


@pytest.mark.parametrize("label, tj_fn, jnp_fn, arg", MORE, ids=[c[0] for c in MORE])
def test_more_jax_numpy_functions(label, tj_fn, jnp_fn, arg):
    def as_list(y):
        return list(y) if isinstance(y, (list, tuple)) else [y]
    want = as_list(jnp_fn(jnp.asarray(arg)))
    weights = [_weights(w.shape) for w in want]
    x = tj.constant(arg)
    with tj.GradientTape() as tape:
        tape.watch(x)
        got = as_list(tj_fn(x))
        loss = tnp.sum(tnp.stack([tnp.sum(y * w) for y, w in zip(got, weights)]))
    assert len(got) == len(want)
    for y, w in zip(got, want):
        assert y.shape == w.shape and y.dtype == w.dtype
        _check(y.numpy(), w, 1e-5)
    want_g = jax.grad(lambda u: sum(jnp.sum(y * w) for y, w in zip(as_list(jnp_fn(u)), weights)))(jnp.asarray(arg))
    _check(tape.gradient(loss, x).numpy(), want_g, 1e-5)


def test_round_takes_decimals_as_jax_numpy():
    # decimals positional or by keyword (a scalar Tensor too), halves to even; around and rint as jax.numpy's;
    # no gradient (None, as TF's RoundGrad), also inside tj.function
    u = np.array([-2.55, 0.5, 1.5, 2.5, 3.14159, 1234.5], np.float32)
    for decimals in (0, 1, 2, -1):
        np.testing.assert_array_equal(tnp.round(u, decimals).numpy(), jnp.round(u, decimals))
        np.testing.assert_array_equal(tnp.around(tj.constant(u), decimals=decimals).numpy(), jnp.around(u, decimals))
    np.testing.assert_array_equal(tnp.round(u, decimals=tj.constant(1)).numpy(), jnp.round(u, 1))
    np.testing.assert_array_equal(tnp.rint(u).numpy(), jnp.rint(u))
    np.testing.assert_array_equal(tj.function(lambda a: tnp.round(a, 2))(u).numpy(), jnp.round(u, 2))
    x = tj.constant(u)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.round(x, 1)
    assert tape.gradient(y, x) is None
    with pytest.raises(NotImplementedError, match="'out' argument to tj.numpy.round"):
        tnp.round(u, 1, np.zeros(6))
