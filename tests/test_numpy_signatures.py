"""tj.numpy's reductions and products take jax.numpy's keyword arguments (API.md: "mirrors jax.numpy names and
signatures"): ``where``/``initial``/``dtype``/``promote_integers`` of sum, mean, prod, max, min; ``correction``,
``where`` and ``mean`` of var and std; ``dtype`` (and ``axis=None``) of concatenate, stack, vstack and hstack;
``precision`` and ``preferred_element_type`` of matmul, dot, einsum (and its ``optimize``), tensordot, inner and
vdot; ``where`` of all, any, nansum and nanmean; diff's ``prepend``/``append``; the ``*_like`` constructors'
``shape``; trace's ``dtype``; size's ``axis``; take's and take_along_axis's gather options (``fill_value``...). And jax.nn's ``where`` of softmax, log_softmax and logsumexp (masked
attention: the entries left out are 0 / -inf and get no gradient; a row selecting nothing gives 0s / -inf, not NaN).
Then jax.numpy functions beyond API.md's list, built from tj ops: column_stack, dstack, atleast_1d/2d/3d, fliplr,
flipud, rot90, permute_dims, matrix_transpose, cumulative_sum, average, array_split, hsplit, vsplit, dsplit.
And (the second half of the file) every parameter name of jax.numpy's functions, with jax.numpy's results, gradients
and errors for each keyword tj.numpy took on for it (placements on four simulated devices in a process of its own).

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
from conftest import jax_reference
from path_runners import Case, assert_same_on_the_paths

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
    want = jax_reference(jnp_fn, X)
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
    t = np.cos(X)
    want_g, want_t = jax_reference(lambda v, u: (jax.grad(lambda v: jnp.sum(jnp.where(finite, jnp_fn(v), 0.0) * w))(v),
                                                 jax.jvp(jnp_fn, (v,), (u,))[1]), X, t)
    _check(tape.gradient(loss, x).numpy(), want_g, tol)
    with tj.ForwardAccumulator(x, tj.constant(t)) as acc:
        y = tj_fn(x)
    _check(np.where(finite, acc.jvp(y).numpy(), 0), np.where(finite, want_t, 0), tol)


@pytest.mark.parametrize("label, tj_fn, jnp_fn", BINARY, ids=[c[0] for c in BINARY])
def test_product_options_as_jax_numpy(label, tj_fn, jnp_fn):
    tol = 3e-2 if "bfloat16" in label else 1e-4
    want = jax_reference(jnp_fn, A, B)
    w = _weights(want.shape)
    a, b = tj.constant(A), tj.constant(B)
    with tj.GradientTape() as tape:
        tape.watch([a, b])
        y = tj_fn(a, b)
        loss = tnp.sum(y * w)
    assert y.dtype == want.dtype
    _check(y.numpy(), want, tol)
    ga, gb = tape.gradient(loss, [a, b])
    ta, tb = np.cos(A), np.sin(B)
    (ja, jb), want_t = jax_reference(
        lambda x, z, u, s: (jax.grad(lambda x, z: jnp.sum(jnp_fn(x, z) * w), (0, 1))(x, z),
                            jax.jvp(jnp_fn, (x, z), (u, s))[1]), A, B, ta, tb)
    _check(ga.numpy(), ja, tol)
    _check(gb.numpy(), jb, tol)
    with tj.ForwardAccumulator([a, b], [tj.constant(ta), tj.constant(tb)]) as acc:
        y = tj_fn(a, b)
    _check(acc.jvp(y).numpy(), want_t, tol)


def test_masked_reductions_on_every_path():
    # one program using where= (also a masked softmax), initial=, correction= and precision=: the same gradient
    # eagerly, replayed, by a tape inside tj.function and under jax.grad of the tj code
    def prog(x, y):
        m = tnp.sum(x, axis=1, where=MASK) + tnp.max(x, axis=1, where=MASK, initial=-1.0)
        v = tnp.var(x, axis=1, correction=1, where=MASK) + tnp.mean(x, axis=1, where=MASK)
        attention = tnp.sum(tj.nn.softmax(x, where=ROWS) * x, axis=1)
        return tnp.sum(tnp.matmul(tnp.stack([m, v, attention]), y[:3], precision="highest"))
    case = Case("masked reductions", prog, [X, B])
    assert_same_on_the_paths(case)


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
    want = as_list(jax_reference(jnp_fn, arg))
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
    want_g = jax_reference(jax.grad(lambda u: sum(jnp.sum(y * w) for y, w in zip(as_list(jnp_fn(u)), weights))), arg)
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


# ---------------------------------------------------------------------------------------------------------------
# Every parameter name of jax.numpy's functions (jax 0.10) is one of tj.numpy's: the positional names (x1/x2 of
# divide, power, mod, arctan2...; x/y of float_power; a of copy; object of array), NumPy's options jax.numpy refuses
# but for a trivial value (out=/where= of the ufuncs, kind=/order= of sort and argsort, order= of array/asarray/copy,
# out= of cumsum/cumprod/outer), and the options jax.numpy implements: device=/out_sharding= of the constructors
# and products, copy=/ndmin= of array and asarray, where's one-argument size=/fill_value=, sort's stable=,
# argsort's dtype=, repeat's total_repeat_length=, nanvar's and nanstd's mean=, the quantiles' weights= (with
# method='inverted_cdf'), ravel's order=, cov's and corrcoef's dtype=, pad's keywords of each mode; and those of later
# jax releases: histogram's out_sharding= (jax 0.11), lexsort's batch_size= (jax 0.12). Expected values are jax.numpy's
# own (computed here by jax), gradients jax.grad's.

# Parameters of jax.numpy's functions tj.numpy does not take by name, and why. (A ``*args`` of jax.numpy, the ufuncs'
# arguments and jnp.array's deprecated positional copy/order/ndmin, has no name a caller can pass: the test checks
# that tj.numpy takes the same positional arguments instead.)
SIGNATURE_EXCEPTIONS = {
    ("einsum", "_dot_general"): "jax.numpy's internal hook (the dot_general einsum calls), not part of NumPy's API",
}


def _jax_parameters_tj_lacks():
    """The check of the task: {function: [jax.numpy parameter names tj.numpy's function lacks]} (functions whose
    tj.numpy version takes ``**kwargs`` are left out, as pad: test_pad_keywords_of_each_mode checks them)."""
    missing = {}
    for n in dir(jnp):
        if n.startswith("_"):
            continue
        f, g = getattr(jnp, n), getattr(tnp, n, None)
        if g is None or not callable(f) or inspect.isclass(f) or inspect.ismodule(f):
            continue
        try:
            sf, sg = inspect.signature(f), inspect.signature(g)
        except (TypeError, ValueError):
            continue
        if any(q.kind == q.VAR_KEYWORD for q in sg.parameters.values()):
            continue
        names = [p for p in sf.parameters if p not in sg.parameters]
        if names:
            missing[n] = (names, sf)
    return missing


def test_every_parameter_name_of_jax_numpy_is_accepted():
    left = {}
    for n, (names, sf) in _jax_parameters_tj_lacks().items():
        names = [p for p in names if (n, p) not in SIGNATURE_EXCEPTIONS
                 and sf.parameters[p].kind != inspect.Parameter.VAR_POSITIONAL]
        if names:
            left[n] = names
    assert not left, f"jax.numpy parameters tj.numpy lacks: {left}"
    # jax.numpy's *args: the ufuncs take their nin arguments positionally, as tj.numpy's (with name= after them)
    for n in dir(jnp):
        f = getattr(jnp, n)
        if isinstance(f, jnp.ufunc) and hasattr(tnp, n):
            args = (np.float32(0.5), np.float32(2.0))[:f.nin] if "bitwise" not in n and "logical" not in n else \
                (np.int32(5), np.int32(3))[:f.nin]
            np.testing.assert_allclose(np.asarray(getattr(tnp, n)(*args)), np.asarray(f(*args)), rtol=1e-6)
    # and jnp.array's deprecated positional copy, order, ndmin are tj.numpy.array's positional parameters
    assert tnp.array(X, None, True, "K", 3).shape == jnp.array(X, ndmin=3).shape == (1, 3, 4)


DEV = jax.devices()[0]
MESH1 = jax.make_mesh((1,), ("x",))
NS = jax.sharding.NamedSharding(MESH1, jax.sharding.PartitionSpec())  # (one device here: see the 4-device test)
Y = _rng.normal(size=(3, 4)).astype(np.float32)
POS = np.abs(_rng.normal(size=(3, 4))).astype(np.float32) + 0.5
XN = X.copy()
XN[0, 1] = XN[2, 3] = np.nan
W34 = _rng.uniform(0.2, 2.0, size=(3, 4)).astype(np.float32)
NEG_W = W34.copy()
NEG_W[1, 2] = -1.0  # a negative weight: that slice's quantiles are NaN, as jax.numpy's
Q = np.array([0.0, 0.2, 0.5, 0.75, 1.0], np.float32)
REPEATS = np.array([2, 0, 1, 3])
BINS = np.array([0, 3, 1, 3])
V3 = _rng.normal(size=(3,)).astype(np.float32)
KEYS = np.arange(30).reshape(5, 6) * 7 % 3  # (five keys, with ties that only the later keys break)
HISTOGRAM_PLACES = "out_sharding" in inspect.signature(jnp.histogram).parameters  # (jax 0.11 and later)


def _jnp_histogram(a, *args, out_sharding, **kw):
    """jax.numpy.histogram with out_sharding; before jax 0.11, which has none, its results given to jax.device_put
    (what jax 0.11's does for a replicated sharding)."""
    if HISTOGRAM_PLACES:
        return jnp.histogram(a, *args, out_sharding=out_sharding, **kw)
    return tuple(jax.device_put(r, out_sharding) for r in jnp.histogram(a, *args, **kw))


def _ufunc_cases():
    cases = []
    for n in ("add", "subtract", "multiply", "maximum", "minimum", "logaddexp", "logaddexp2"):
        cases += [(f"{n} out=None where=None", lambda t, n=n: getattr(tnp, n)(t, Y, out=None, where=None),
                   lambda v, n=n: getattr(jnp, n)(v, Y, out=None, where=None), X, True),
                  (f"{n} second operand", lambda t, n=n: getattr(tnp, n)(Y, t, where=None),
                   lambda v, n=n: getattr(jnp, n)(Y, v, where=None), X, True)]
    cases.append(("negative out=None where=None", lambda t: tnp.negative(t, out=None, where=None),
                  lambda v: jnp.negative(v, out=None, where=None), X, True))
    return cases


def _renamed_cases():
    # jax.numpy's are positional-only (x1, x2, /): tj.numpy takes them by position and by those names
    cases = []
    for n, grad in (("arctan2", True), ("atan2", True), ("divide", True), ("true_divide", True), ("power", True),
                    ("pow", True), ("mod", True), ("remainder", True), ("fmod", True), ("floor_divide", False)):
        cases += [(f"{n} x1= x2=", lambda t, n=n: getattr(tnp, n)(x1=t, x2=POS), lambda v, n=n: getattr(jnp, n)(v, POS),
                   POS, grad),
                  (f"{n} positional, second operand", lambda t, n=n: getattr(tnp, n)(POS, t),
                   lambda v, n=n: getattr(jnp, n)(POS, v), POS, grad)]
    cases += [("float_power x= y=", lambda t: tnp.float_power(x=t, y=Y), lambda v: jnp.float_power(v, Y), POS, True),
              ("float_power positional", lambda t: tnp.float_power(POS, t), lambda v: jnp.float_power(POS, v), Y, True),
              ("copy a= order='K'", lambda t: tnp.copy(a=t, order="K"), lambda v: jnp.copy(v, order="K"), X, True),
              ("copy order=None positional", lambda t: tnp.copy(t, None), lambda v: jnp.copy(v, None), X, True)]
    return cases


CASES = _ufunc_cases() + _renamed_cases() + [
    # where: the one-argument form's size and fill_value (jnp.nonzero's), and the selection, unchanged
    ("where size fill_value", lambda t: tnp.where(t > 0, size=9, fill_value=-1),
     lambda v: jnp.where(v > 0, size=9, fill_value=-1), X, False),
    ("where size truncates", lambda t: tnp.where(t > 0, size=2), lambda v: jnp.where(v > 0, size=2), X, False),
    ("where fill_value per axis", lambda t: tnp.where(t > 0, size=8, fill_value=(-1, -2)),
     lambda v: jnp.where(v > 0, size=8, fill_value=(-1, -2)), X, False),
    ("where selection", lambda t: tnp.where(t > 0, t, Y), lambda v: jnp.where(v > 0, v, Y), X, True),
    # sort and argsort
    ("sort stable=False", lambda t: tnp.sort(t, axis=0, stable=False), lambda v: jnp.sort(v, axis=0, stable=False),
     X, True),
    ("sort kind=None order=None descending", lambda t: tnp.sort(t, -1, kind=None, order=None, stable=True,
                                                                descending=True),
     lambda v: jnp.sort(v, -1, kind=None, order=None, stable=True, descending=True), X, True),
    ("sort axis None unstable descending", lambda t: tnp.sort(t, None, stable=False, descending=True),
     lambda v: jnp.sort(v, None, stable=False, descending=True), X, True),
    ("argsort dtype int16 descending", lambda t: tnp.argsort(t, 0, descending=True, dtype=jnp.int16),
     lambda v: jnp.argsort(v, 0, descending=True, dtype=jnp.int16), X, False),
    ("argsort kind=None order=None stable=False", lambda t: tnp.argsort(t, kind=None, order=None, stable=False),
     lambda v: jnp.argsort(v, kind=None, order=None, stable=False), X, False),
    # out=None of the scans and outer, by position and by keyword
    ("cumsum out=None positional", lambda t: tnp.cumsum(t, 1, None, None), lambda v: jnp.cumsum(v, 1, None, None), X,
     True),
    ("cumprod out=None keyword", lambda t: tnp.cumprod(t, axis=0, dtype=jnp.float32, out=None),
     lambda v: jnp.cumprod(v, axis=0, dtype=jnp.float32, out=None), X, True),
    ("outer out=None", lambda t: tnp.outer(t[0], V3, None), lambda v: jnp.outer(v[0], V3, None), X, True),
    # repeat's total_repeat_length (longer and shorter than the repeats ask for; repeats as an input array)
    ("repeat total_repeat_length longer", lambda t: tnp.repeat(t, REPEATS, axis=1, total_repeat_length=9),
     lambda v: jnp.repeat(v, REPEATS, axis=1, total_repeat_length=9), X, True),
    ("repeat total_repeat_length shorter", lambda t: tnp.repeat(t, REPEATS, 1, total_repeat_length=4),
     lambda v: jnp.repeat(v, REPEATS, 1, total_repeat_length=4), X, True),
    ("repeat Tensor repeats total_repeat_length", lambda t: tnp.repeat(t, tj.constant(REPEATS), axis=1,
                                                                        total_repeat_length=6),
     lambda v: jnp.repeat(v, REPEATS, axis=1, total_repeat_length=6), X, True),
    ("repeat scalar flattened total_repeat_length", lambda t: tnp.repeat(t, 2, total_repeat_length=30),
     lambda v: jnp.repeat(v, 2, total_repeat_length=30), X, True),
    ("repeat out_sharding", lambda t: tnp.repeat(t, REPEATS, axis=1, out_sharding=NS),
     lambda v: jnp.repeat(v, REPEATS, axis=1, out_sharding=NS), X, True),
    # array, asarray, astype: copy, order, ndmin, device, out_sharding
    ("array object= ndmin", lambda t: tnp.array(object=t, ndmin=4), lambda v: jnp.array(v, ndmin=4), X, True),
    ("array positional copy order ndmin", lambda t: tnp.array(t, None, False, None, 3),
     lambda v: jnp.array(v, None, copy=False, order=None, ndmin=3), X, True),
    ("array dtype copy=False order=K device", lambda t: tnp.array(t, jnp.float32, copy=False, order="K", device=DEV),
     lambda v: jnp.array(v, jnp.float32, copy=False, order="K", device=DEV), X, True),
    ("array float16 out_sharding", lambda t: tnp.array(t, dtype=jnp.float16, out_sharding=NS),
     lambda v: jnp.array(v, dtype=jnp.float16, out_sharding=NS), X, True),
    ("array of a list device", lambda t: tnp.array([[1.5, 2.0]], device=DEV),
     lambda v: jnp.array([[1.5, 2.0]], device=DEV), X, False),
    ("asarray order=K copy=True", lambda t: tnp.asarray(t, None, "K", copy=True),
     lambda v: jnp.asarray(v, None, "K", copy=True), X, True),
    ("asarray copy=False device", lambda t: tnp.asarray(t, copy=False, device=DEV),
     lambda v: jnp.asarray(v, copy=False, device=DEV), X, True),
    ("asarray out_sharding", lambda t: tnp.asarray(t, out_sharding=NS), lambda v: jnp.asarray(v, out_sharding=NS), X,
     True),
    ("asarray of numpy copy=False", lambda t: tnp.asarray(POS, copy=False), lambda v: jnp.asarray(POS, copy=False), X,
     False),
    ("astype copy device", lambda t: tnp.astype(t, jnp.float16, copy=True, device=DEV),
     lambda v: jnp.astype(v, jnp.float16, copy=True, device=DEV), X, True),
    ("astype dtype None", lambda t: tnp.astype(t * 3, None), lambda v: jnp.astype(v * 3, None), X, True),
    # constructors' device and out_sharding (jax.numpy's own placement)
    ("zeros device", lambda t: tnp.zeros((2, 3), device=DEV), lambda v: jnp.zeros((2, 3), device=DEV), X, False),
    ("ones out_sharding", lambda t: tnp.ones((2, 3), jnp.int32, out_sharding=NS),
     lambda v: jnp.ones((2, 3), jnp.int32, out_sharding=NS), X, False),
    ("empty device", lambda t: tnp.empty(4, device=DEV), lambda v: jnp.empty(4, device=DEV), X, False),
    ("empty out_sharding", lambda t: tnp.empty((1, 2), out_sharding=NS), lambda v: jnp.empty((1, 2), out_sharding=NS),
     X, False),
    ("full device", lambda t: tnp.full((2, 2), 3.5, device=DEV), lambda v: jnp.full((2, 2), 3.5, device=DEV), X, False),
    ("full Tensor fill device", lambda t: tnp.full((2, 3, 4), t[0], device=DEV),
     lambda v: jnp.full((2, 3, 4), v[0], device=DEV), X, True),
    ("full Tensor fill out_sharding", lambda t: tnp.full((2, 2), t[1, 1], out_sharding=NS),
     lambda v: jnp.full((2, 2), v[1, 1], out_sharding=NS), X, True),
    ("arange device", lambda t: tnp.arange(2, 9, 3, device=DEV), lambda v: jnp.arange(2, 9, 3, device=DEV), X, False),
    ("arange out_sharding", lambda t: tnp.arange(5, dtype=jnp.float32, out_sharding=NS),
     lambda v: jnp.arange(5, dtype=jnp.float32, out_sharding=NS), X, False),
    ("linspace device", lambda t: tnp.linspace(0.0, 2.0, 5, device=DEV),
     lambda v: jnp.linspace(0.0, 2.0, 5, device=DEV), X, False),
    ("linspace Tensor retstep device", lambda t: tnp.linspace(t[0], t[1], 5, True, True, device=DEV),
     lambda v: jnp.linspace(v[0], v[1], 5, True, True, device=DEV), X, True),
    ("eye device", lambda t: tnp.eye(3, 4, 1, device=DEV), lambda v: jnp.eye(3, 4, 1, device=DEV), X, False),
    ("zeros_like device", lambda t: tnp.zeros_like(t, device=DEV), lambda v: jnp.zeros_like(v, device=DEV), X, False),
    ("ones_like out_sharding", lambda t: tnp.ones_like(t, out_sharding=NS), lambda v: jnp.ones_like(v, out_sharding=NS),
     X, False),
    ("ones_like of numpy dtype shape device", lambda t: tnp.ones_like(POS, jnp.int32, (2,), device=DEV),
     lambda v: jnp.ones_like(POS, jnp.int32, (2,), device=DEV), X, False),
    ("empty_like device", lambda t: tnp.empty_like(t, device=DEV), lambda v: jnp.empty_like(v, device=DEV), X, False),
    ("full_like device", lambda t: tnp.full_like(t, 2.5, device=DEV), lambda v: jnp.full_like(v, 2.5, device=DEV), X,
     False),
    ("full_like Tensor fill out_sharding", lambda t: tnp.full_like(POS, t[0, 0], out_sharding=NS),
     lambda v: jnp.full_like(POS, v[0, 0], out_sharding=NS), X, True),
    # nanvar's and nanstd's mean
    ("nanvar mean", lambda t: tnp.nanvar(t, axis=1, mean=np.ones((3, 1), np.float32)),
     lambda v: jnp.nanvar(v, axis=1, mean=np.ones((3, 1), np.float32)), XN, True),
    ("nanstd positional mean of the input", lambda t: tnp.nanstd(t, 0, None, None, 1, True, None,
                                                                   tnp.nanmean(t, axis=0, keepdims=True)),
     lambda v: jnp.nanstd(v, 0, None, None, 1, True, None, jnp.nanmean(v, axis=0, keepdims=True)), XN, True),
    ("nanvar mean where", lambda t: tnp.nanvar(t, axis=0, where=MASK, mean=0.25),
     lambda v: jnp.nanvar(v, axis=0, where=MASK, mean=0.25), XN, True),
    # the quantiles' weights (method='inverted_cdf'; jax.numpy's other methods take none)
    ("quantile weights", lambda t: tnp.quantile(t, Q, axis=1, method="inverted_cdf", weights=W34),
     lambda v: jnp.quantile(v, Q, axis=1, method="inverted_cdf", weights=W34), X, True),
    ("quantile weights of the axis keepdims", lambda t: tnp.quantile(t, 0.3, 0, None, False, "inverted_cdf", True,
                                                                      weights=W34[:, 0]),
     lambda v: jnp.quantile(v, 0.3, 0, None, False, "inverted_cdf", True, weights=W34[:, 0]), X, True),
    ("quantile inverted_cdf no weights", lambda t: tnp.quantile(t, Q, method="inverted_cdf"),
     lambda v: jnp.quantile(v, Q, method="inverted_cdf"), X, True),
    ("quantile a negative weight", lambda t: tnp.quantile(t, Q, axis=1, method="inverted_cdf", weights=NEG_W),
     lambda v: jnp.quantile(v, Q, axis=1, method="inverted_cdf", weights=NEG_W), X, True),
    ("quantile weights axes reversed", lambda t: tnp.quantile(t, 0.6, axis=(1, 0), method="inverted_cdf",
                                                               weights=W34.T),
     lambda v: jnp.quantile(v, 0.6, axis=(1, 0), method="inverted_cdf", weights=W34.T), X, True),
    ("quantile NaN input weights", lambda t: tnp.quantile(t, Q, axis=1, method="inverted_cdf", weights=W34),
     lambda v: jnp.quantile(v, Q, axis=1, method="inverted_cdf", weights=W34), XN, True),
    ("nanquantile weights", lambda t: tnp.nanquantile(t, Q, axis=1, method="inverted_cdf", weights=W34),
     lambda v: jnp.nanquantile(v, Q, axis=1, method="inverted_cdf", weights=W34), XN, True),
    ("nanquantile inverted_cdf keepdims", lambda t: tnp.nanquantile(t, 0.5, axis=0, method="inverted_cdf",
                                                                     keepdims=True),
     lambda v: jnp.nanquantile(v, 0.5, axis=0, method="inverted_cdf", keepdims=True), XN, True),
    ("percentile weights", lambda t: tnp.percentile(t, 40.0, axis=1, method="inverted_cdf", weights=W34),
     lambda v: jnp.percentile(v, 40.0, axis=1, method="inverted_cdf", weights=W34), X, True),
    ("percentile out_sharding", lambda t: tnp.percentile(t, Q * 100, axis=0, out_sharding=NS),
     lambda v: jnp.percentile(v, Q * 100, axis=0, out_sharding=NS), X, True),
    ("nanpercentile weights", lambda t: tnp.nanpercentile(t, Q * 100, None, None, False, "inverted_cdf",
                                                          weights=W34),
     lambda v: jnp.nanpercentile(v, Q * 100, None, None, False, "inverted_cdf", weights=W34), XN, True),
    # ravel's order and out_sharding
    ("ravel order F", lambda t: tnp.ravel(t, "F"), lambda v: jnp.ravel(v, "F"), X, True),
    ("ravel order C out_sharding", lambda t: tnp.ravel(t, order="C", out_sharding=NS),
     lambda v: jnp.ravel(v, order="C", out_sharding=NS), X, True),
    ("ravel order F out_sharding", lambda t: tnp.ravel(t, "F", out_sharding=NS),
     lambda v: jnp.ravel(v, "F", out_sharding=NS), X, True),
    # cov's and corrcoef's dtype
    ("cov dtype float16", lambda t: tnp.cov(t, dtype=jnp.float16), lambda v: jnp.cov(v, dtype=jnp.float16), X, True),
    ("cov positional dtype", lambda t: tnp.cov(t, Y, False, False, None, None, None, jnp.float32),
     lambda v: jnp.cov(v, Y, False, False, None, None, None, jnp.float32), X, True),
    ("corrcoef dtype", lambda t: tnp.corrcoef(t, Y, False, jnp.float32),
     lambda v: jnp.corrcoef(v, Y, False, jnp.float32), X, True),
    # out_sharding of the products, broadcast_to and bincount
    ("matmul out_sharding", lambda t: tnp.matmul(t, B, out_sharding=NS), lambda v: jnp.matmul(v, B, out_sharding=NS), X,
     True),
    ("dot out_sharding", lambda t: tnp.dot(t, B, precision="highest", out_sharding=NS),
     lambda v: jnp.dot(v, B, precision="highest", out_sharding=NS), X, True),
    ("tensordot out_sharding", lambda t: tnp.tensordot(t, Y, 2, out_sharding=NS),
     lambda v: jnp.tensordot(v, Y, 2, out_sharding=NS), X, True),
    ("einsum out_sharding", lambda t: tnp.einsum("ij,jk->ik", t, B, out_sharding=NS),
     lambda v: jnp.einsum("ij,jk->ik", v, B, out_sharding=NS), X, True),
    ("broadcast_to out_sharding", lambda t: tnp.broadcast_to(t[0], (2, 4), out_sharding=NS),
     lambda v: jnp.broadcast_to(v[0], (2, 4), out_sharding=NS), X, True),
    ("bincount weights out_sharding", lambda t: tnp.bincount(BINS, t[0], 0, length=5, out_sharding=NS),
     lambda v: jnp.bincount(BINS, v[0], 0, length=5, out_sharding=NS), X, True),
    ("histogram out_sharding", lambda t: tnp.histogram(t, 4, weights=POS, out_sharding=NS),
     lambda v: _jnp_histogram(v, 4, weights=POS, out_sharding=NS), X, True),
    ("histogram positional density out_sharding", lambda t: tnp.histogram(t[0], 3, (-2.0, 2.0), None, True, NS),
     lambda v: _jnp_histogram(v[0], 3, (-2.0, 2.0), None, True, out_sharding=NS), X, False),
    # lexsort's batch_size (jax 0.12: more keys than that are sorted batch by batch, with the same result); the
    # reference is jax.numpy's lexsort of all keys at once, which every jax has
    ("lexsort batch_size", lambda t: tnp.lexsort(KEYS, batch_size=2), lambda v: jnp.lexsort(KEYS), X, False),
    ("lexsort batch_size keys of three dtypes",
     lambda t: tnp.lexsort([KEYS[0], KEYS[1] > 0, KEYS[2].astype(np.float32), KEYS[3]], axis=0, batch_size=1),
     lambda v: jnp.lexsort([KEYS[0], KEYS[1] > 0, KEYS[2].astype(np.float32), KEYS[3]], axis=0), X, False),
]


def _as_list(y):
    return list(y) if isinstance(y, (list, tuple)) else [y]


def _is_float(y) -> bool:
    return jnp.issubdtype(y.dtype, jnp.inexact)


def _loss_weights(want):
    return [np.where(np.isfinite(np.asarray(w, np.float32)), _weights(np.shape(w)), 0).astype(np.float32) for w in want]


@pytest.mark.parametrize("label, tj_fn, jnp_fn, x, grad", CASES, ids=[c[0] for c in CASES])
def test_jax_numpy_keywords_give_jax_numpy_results(label, tj_fn, jnp_fn, x, grad):
    tol = 2e-3 if "float16" in label else 1e-5
    want = _as_list(jnp_fn(jnp.asarray(x)))
    weights = _loss_weights(want)
    t = tj.constant(x)
    with tj.GradientTape() as tape:
        tape.watch(t)
        got = _as_list(tj_fn(t))
        terms = [tnp.sum(tnp.where(w != 0, y, 0.0) * w) for y, w in zip(got, weights) if _is_float(y)]
        loss = terms[0] if len(terms) == 1 else tnp.sum(tnp.stack([tnp.astype(s, jnp.float32) for s in terms])) \
            if terms else None
    assert len(got) == len(want)
    for y, w in zip(got, want):
        assert isinstance(y, tj.Tensor) and y.shape == w.shape and y.dtype == w.dtype, (y, w)
        _check(np.where(np.isfinite(np.asarray(w, np.float32)), y.numpy(), 0),
               np.where(np.isfinite(np.asarray(w, np.float32)), w, 0), tol)
        np.testing.assert_array_equal(np.isnan(np.asarray(y.numpy(), np.float32)), np.isnan(np.asarray(w, np.float32)))
        have, should = y.value.sharding, w.sharding  # (placed as jax.numpy places it)
        assert have == should or have.is_equivalent_to(should, w.ndim), (have, should)
    if grad:
        def jax_loss(v):
            outs = _as_list(jnp_fn(v))
            return sum(jnp.sum(jnp.where(w != 0, y, 0.0) * w) for y, w in zip(outs, weights) if _is_float(y))
        _check(tape.gradient(loss, t).numpy(), jax_reference(jax.grad(jax_loss), x), tol)


def test_pad_keywords_of_each_mode():
    # jax.numpy.pad's **kwargs: constant_values, end_values, stat_length, reflect_type (each mode's own)
    cases = [("constant", {"constant_values": ((1.0, 2.0), (3.0, 4.0))}), ("linear_ramp", {}),
             ("linear_ramp", {"end_values": ((1.0, -1.0), (0.5, 2.0))}), ("mean", {"stat_length": 2}),
             ("maximum", {"stat_length": ((1, 2), (2, 1))}), ("minimum", {}), ("median", {"stat_length": 3}),
             ("reflect", {"reflect_type": "odd"}), ("symmetric", {"reflect_type": "odd"}), ("wrap", {}), ("edge", {})]
    widths = ((1, 2), (2, 1))
    for mode, kw in cases:
        want = jax_reference(lambda v: jnp.pad(v, widths, mode, **kw), X)
        w = _weights(want.shape)
        t = tj.constant(X)
        with tj.GradientTape() as tape:
            tape.watch(t)
            got = tnp.pad(t, widths, mode, **kw)
            loss = tnp.sum(got * w)
        assert got.dtype == want.dtype, (mode, kw)
        _check(got.numpy(), want, 1e-6)
        _check(tape.gradient(loss, t).numpy(),
               jax_reference(jax.grad(lambda v: jnp.sum(jnp.pad(v, widths, mode, **kw) * w)), X), 1e-5)
    # a callable mode receives every keyword, as jax.numpy's
    def edges(vector, widths, axis, kw):
        vector = vector.at[:widths[0]].set(kw.get("padder", 10.0))
        return vector.at[vector.shape[0] - widths[1]:].set(kw.get("padder", 10.0)) if widths[1] else vector
    np.testing.assert_array_equal(tnp.pad(X, 2, edges, padder=-4.0).numpy(), jnp.pad(X, 2, edges, padder=-4.0))
    with pytest.raises(ValueError, match="unsupported keyword arguments for mode 'constant'"):
        tnp.pad(X, 1, stat_length=2)
    with pytest.raises(ValueError, match="unsupported keyword arguments for mode 'reflect'"):
        tnp.pad(X, 1, "reflect", end_values=1.0)
    for call in (lambda: jnp.pad(X, 1, stat_length=2), lambda: jnp.pad(X, 1, "reflect", end_values=1.0)):
        with pytest.raises(ValueError):  # (as jax.numpy's)
            call()


# (label, tapejax call, the jax.numpy call (None: see its comment), the exception both raise, tapejax's message)
P = jax.sharding.PartitionSpec
ERRORS = [
    ("add out", lambda: tnp.add(X, Y, out=np.zeros((3, 4))), lambda: jnp.add(X, Y, out=np.zeros((3, 4))),
     NotImplementedError, "'out' argument to tj.numpy.add"),
    ("multiply where", lambda: tnp.multiply(X, Y, where=MASK), lambda: jnp.multiply(X, Y, where=MASK),
     NotImplementedError, "'where' argument to tj.numpy.multiply"),
    ("maximum out", lambda: tnp.maximum(X, Y, out=X), lambda: jnp.maximum(X, Y, out=X), NotImplementedError,
     "'out' argument to tj.numpy.maximum"),
    ("negative where", lambda: tnp.negative(X, where=MASK), lambda: jnp.negative(X, where=MASK), NotImplementedError,
     "'where' argument to tj.numpy.negative"),
    ("logaddexp2 out", lambda: tnp.logaddexp2(X, Y, out=X), lambda: jnp.logaddexp2(X, Y, out=X), NotImplementedError,
     "'out' argument to tj.numpy.logaddexp2"),
    ("copy order C", lambda: tnp.copy(X, "C"), lambda: jnp.copy(X, "C"), NotImplementedError,
     "tj.numpy.copy: only order='K'"),
    ("array order F", lambda: tnp.array(X, order="F"), lambda: jnp.array(X, order="F"), NotImplementedError,
     "tj.numpy.array: only order='K'"),
    ("asarray order C", lambda: tnp.asarray(X, order="C"), lambda: jnp.asarray(X, order="C"), NotImplementedError,
     "tj.numpy.asarray: only order='K'"),
    ("array device and out_sharding", lambda: tnp.array(tj.constant(X), device=DEV, out_sharding=NS),
     lambda: jnp.array(X, device=DEV, out_sharding=NS), ValueError, "Only one of `device` or `out_sharding`"),
    ("zeros device and out_sharding", lambda: tnp.zeros(3, device=DEV, out_sharding=NS),
     lambda: jnp.zeros(3, device=DEV, out_sharding=NS), ValueError, "device"),
    ("matmul PartitionSpec without a mesh", lambda: tnp.matmul(A, B, out_sharding=P()),
     lambda: jnp.matmul(A, B, out_sharding=P()), ValueError, "tj.numpy.matmul: out_sharding=.* is a PartitionSpec"),
    ("percentile PartitionSpec without a mesh", lambda: tnp.percentile(X, 50.0, out_sharding=P()),
     lambda: jnp.percentile(X, 50.0, out_sharding=P()), ValueError, "tj.numpy.percentile: out_sharding"),
    ("where selection size", lambda: tnp.where(X > 0, X, Y, size=3), lambda: jnp.where(X > 0, X, Y, size=3),
     ValueError, "size and fill_value belong to the one-argument form"),
    ("where selection fill_value", lambda: tnp.where(X > 0, X, Y, fill_value=0),
     lambda: jnp.where(X > 0, X, Y, fill_value=0), ValueError, "size and fill_value"),
    ("sort kind", lambda: tnp.sort(X, kind="quicksort"), lambda: jnp.sort(X, kind="quicksort"), TypeError,
     "'kind' argument to tj.numpy.sort"),
    ("sort order", lambda: tnp.sort(X, order="f0"), lambda: jnp.sort(X, order="f0"), TypeError,
     "'order' argument to tj.numpy.sort"),
    ("argsort kind", lambda: tnp.argsort(X, kind="stable"), lambda: jnp.argsort(X, kind="stable"), TypeError,
     "'kind' argument to tj.numpy.argsort"),
    ("argsort order", lambda: tnp.argsort(X, order="f0"), lambda: jnp.argsort(X, order="f0"), TypeError,
     "'order' argument to tj.numpy.argsort"),
    ("cumsum out", lambda: tnp.cumsum(X, 0, None, X), lambda: jnp.cumsum(X, 0, None, X), NotImplementedError,
     "'out' argument to tj.numpy.cumsum"),
    ("cumprod out", lambda: tnp.cumprod(X, out=X), lambda: jnp.cumprod(X, out=X), NotImplementedError,
     "'out' argument to tj.numpy.cumprod"),
    ("outer out", lambda: tnp.outer(V3, V3, np.zeros((3, 3))), lambda: jnp.outer(V3, V3, np.zeros((3, 3))),
     NotImplementedError, "'out' argument to tj.numpy.outer"),
    ("quantile weights with method linear", lambda: tnp.quantile(X, 0.5, axis=1, weights=W34),
     lambda: jnp.quantile(X, 0.5, axis=1, weights=W34), NotImplementedError, "only method='inverted_cdf'"),
    ("quantile complex weights", lambda: tnp.quantile(X, 0.5, method="inverted_cdf", weights=W34 + 1j),
     lambda: jnp.quantile(X, 0.5, method="inverted_cdf", weights=W34 + 1j), ValueError, "weights cannot be complex"),
    ("quantile weights of another shape", lambda: tnp.quantile(X, 0.5, axis=1, method="inverted_cdf", weights=V3),
     lambda: jnp.quantile(X, 0.5, axis=1, method="inverted_cdf", weights=V3), ValueError, "weights of shape"),
    ("quantile axis None partial weights", lambda: tnp.quantile(X, 0.5, method="inverted_cdf", weights=W34[0]),
     lambda: jnp.quantile(X, 0.5, method="inverted_cdf", weights=W34[0]), ValueError, "when axis is None"),
    ("nanquantile out", lambda: tnp.nanquantile(X, 0.5, out=X), lambda: jnp.nanquantile(X, 0.5, out=X), ValueError,
     "does not support overwrite_input=True or out != None"),
    ("percentile overwrite_input", lambda: tnp.percentile(X, 50.0, overwrite_input=True),
     lambda: jnp.percentile(X, 50.0, overwrite_input=True), ValueError, "overwrite_input"),
    ("ravel order K", lambda: tnp.ravel(X, "K"), lambda: jnp.ravel(X, "K"), NotImplementedError,
     "order='K' is not implemented"),
    ("ravel order A", lambda: tnp.ravel(X, order="A"), lambda: jnp.ravel(X, order="A"), NotImplementedError,
     "order='A' is not implemented"),
    ("ravel order X", lambda: tnp.ravel(X, order="X"), lambda: jnp.ravel(X, order="X"), ValueError,
     "order must be 'C' or 'F'"),
    ("cov integer dtype", lambda: tnp.cov(X, dtype=jnp.int32), lambda: jnp.cov(X, dtype=jnp.int32), ValueError,
     "tj.numpy.cov: dtype must be a float or complex dtype"),
    ("corrcoef integer dtype", lambda: tnp.corrcoef(X, dtype=np.int16), lambda: jnp.corrcoef(X, dtype=np.int16),
     ValueError, "tj.numpy.corrcoef: dtype must be"),
]


@pytest.mark.parametrize("label, tj_call, jnp_call, error, match", ERRORS, ids=[e[0] for e in ERRORS])
def test_unsupported_values_raise_as_jax_numpy(label, tj_call, jnp_call, error, match):
    with pytest.raises(error, match=match):
        tj_call()
    with pytest.raises(error):
        jnp_call()


def test_lexsort_batch_size_and_histogram_out_sharding_are_checked():
    # batch_size is a positive int, as jax 0.12's (before, jax.numpy.lexsort takes none: checked all the same);
    # histogram's PartitionSpec needs a mesh, as jax.numpy's from jax 0.11
    np.testing.assert_array_equal(tnp.lexsort(KEYS, batch_size=tj.constant(3)).numpy(), np.lexsort(KEYS))
    with pytest.raises(ValueError, match=r"tj.numpy.lexsort: batch_size must be a positive integer .* got 0"):
        tnp.lexsort(KEYS, batch_size=0)
    with pytest.raises(TypeError, match=r"tj.numpy.lexsort: batch_size must be a positive integer .* got 2.5"):
        tnp.lexsort(KEYS, batch_size=2.5)
    with pytest.raises(ValueError, match=r"tj.numpy.histogram: out_sharding=.* is a PartitionSpec"):
        tnp.histogram(X, 3, out_sharding=P())
    if "batch_size" in inspect.signature(jnp.lexsort).parameters:
        with pytest.raises(ValueError):
            jnp.lexsort(KEYS, batch_size=0)
    if HISTOGRAM_PLACES:
        with pytest.raises(ValueError):
            jnp.histogram(X, 3, out_sharding=P())


def test_partition_spec_out_sharding_under_a_mesh():
    # a PartitionSpec names axes of the mesh jax.set_mesh sets (resolved when the op is called: a deferred op runs
    # at the gradient, outside the block)
    a = tj.constant(A)
    with tj.GradientTape() as tape:
        tape.watch(a)
        with jax.set_mesh(MESH1):
            y = tnp.matmul(a, B, out_sharding=P())
            z = tnp.ravel(y, out_sharding=P("x"))
            want = jnp.ravel(jnp.matmul(A, B, out_sharding=P()), out_sharding=P("x"))
        loss = tnp.sum(z * _weights(z.shape))
    assert z.value.sharding.is_equivalent_to(want.sharding, 1)
    _check(z.numpy(), want, 1e-5)
    _check(tape.gradient(loss, a).numpy(),
           jax_reference(jax.grad(lambda v: jnp.sum(jnp.ravel(v @ B) * _weights(z.shape))), A), 1e-5)


def test_repeat_total_repeat_length_with_traced_repeats():
    # jax.numpy's reason for total_repeat_length: repeats whose values are not known when the program is traced
    @tj.function
    def f(x, r):
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = tnp.repeat(x, r, axis=1, total_repeat_length=7)
            loss = tnp.sum(y * _weights((3, 7)))
        return y, tape.gradient(loss, x)
    y, g = f(X, REPEATS)
    want, want_g = jax_reference(lambda v: (jnp.repeat(v, REPEATS, axis=1, total_repeat_length=7),
                                            jax.grad(lambda v: jnp.sum(jnp.repeat(v, REPEATS, axis=1,
                                                                                  total_repeat_length=7)
                                                                       * _weights((3, 7))))(v)), X)
    _check(y.numpy(), want, 1e-6)
    _check(g.numpy(), want_g, 1e-6)
    y2, _ = f(X, np.array([0, 1, 4, 1]))  # (the same trace: other values of the repeats)
    _check(y2.numpy(), jnp.repeat(X, np.array([0, 1, 4, 1]), axis=1, total_repeat_length=7), 1e-6)


def test_new_keywords_on_every_path():
    # one program using the new keywords: the same gradients eagerly, replayed, by a tape inside tj.function and
    # under jax.grad of the tj code (placements and the quantiles' weights included)
    def prog(x, y):
        p = tnp.quantile(x, Q, axis=1, method="inverted_cdf", weights=W34)
        s = tnp.sort(x, axis=0, stable=False, descending=True)
        v = tnp.nanvar(y, axis=1, mean=tnp.mean(y, axis=1, keepdims=True))
        r = tnp.repeat(tnp.ravel(x, "F"), 2, total_repeat_length=20)
        placed = tnp.astype(tnp.asarray(y, device=DEV), jnp.float32, device=DEV)
        padded = tnp.pad(placed, 1, "linear_ramp", end_values=0.5)
        return (tnp.sum(p * p) + tnp.sum(s[0] * y[1]) + tnp.sum(v) + tnp.sum(r * r) + tnp.sum(padded * padded)
                + tnp.sum(tnp.array(x, ndmin=3) * y) + tnp.sum(tnp.cov(y, dtype=jnp.float32)))
    case = Case("new jax.numpy keywords", prog, [X, Y])
    assert_same_on_the_paths(case)


_PLACEMENT_WORKER = r'''
import inspect, json, sys
import jax, jax.numpy as jnp, numpy as np
import tapejax as tj
tnp = tj.numpy
P, NamedSharding = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
devs = jax.devices()
mesh = jax.make_mesh((4,), ("x",))  # (explicit axes, jax's default: sharding in types)
auto = jax.make_mesh((4,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
s, rep, sa = NamedSharding(mesh, P("x")), NamedSharding(mesh, P()), NamedSharding(auto, P("x"))
x = np.arange(16, dtype=np.float32).reshape(4, 4) / 7 - 1
a, b = jax.device_put(x, rep), jax.device_put(x.T * 0.5, rep)
out = {}


def outcome(call):
    try:
        return "ok", call()
    except Exception as e:  # (jax.numpy's own errors for some placements: tapejax must raise where jax.numpy does)
        return "raises", type(e).__name__


def same(name, tj_call, jnp_call):
    (g_how, got), (w_how, want) = outcome(tj_call), outcome(jnp_call)
    if g_how != w_how or g_how == "raises":
        out[name] = [g_how == w_how and got == want, f"tapejax {g_how} {got!r}, jax.numpy {w_how} {want!r}"]
        return
    have = got.value.sharding
    out[name] = [bool(have == want.sharding or have.is_equivalent_to(want.sharding, want.ndim)),
                 bool(np.allclose(np.asarray(got.value), np.asarray(want), atol=1e-5)), f"{have} / {want.sharding}"]


same("zeros device", lambda: tnp.zeros((2, 3), device=devs[2]), lambda: jnp.zeros((2, 3), device=devs[2]))
same("arange device", lambda: tnp.arange(8, device=devs[3]), lambda: jnp.arange(8, device=devs[3]))
same("eye device", lambda: tnp.eye(3, device=devs[1]), lambda: jnp.eye(3, device=devs[1]))
same("asarray device", lambda: tnp.asarray(x, device=devs[1]), lambda: jnp.asarray(x, device=devs[1]))
same("asarray device sharding", lambda: tnp.asarray(x, device=sa), lambda: jnp.asarray(x, device=sa))
same("asarray out_sharding", lambda: tnp.asarray(a, out_sharding=s), lambda: jnp.asarray(a, out_sharding=s))
same("array Tensor device explicit sharding", lambda: tnp.array(tj.constant(x), device=s),
     lambda: jnp.array(x, device=s))
same("astype device", lambda: tnp.astype(tj.constant(x), jnp.float16, device=devs[3]),
     lambda: jnp.astype(x, jnp.float16, device=devs[3]))
same("astype device sharding", lambda: tnp.astype(tj.constant(x), jnp.float16, device=sa),
     lambda: jnp.astype(x, jnp.float16, device=sa))
same("full Tensor fill device", lambda: tnp.full((4, 4), tj.constant(2.0), device=devs[2]),
     lambda: jnp.full((4, 4), 2.0, device=devs[2]))
same("full_like Tensor fill device sharding", lambda: tnp.full_like(x, tj.constant(2.0), device=s),
     lambda: jnp.full_like(x, 2.0, device=s))
same("zeros_like Tensor device sharding", lambda: tnp.zeros_like(tj.constant(x), device=sa),
     lambda: jnp.zeros_like(x, device=sa))
same("matmul out_sharding", lambda: tnp.matmul(a, b, out_sharding=s), lambda: jnp.matmul(a, b, out_sharding=s))
same("einsum out_sharding", lambda: tnp.einsum("ij,jk->ik", a, b, out_sharding=s),
     lambda: jnp.einsum("ij,jk->ik", a, b, out_sharding=s))
same("ravel out_sharding", lambda: tnp.ravel(a, out_sharding=s), lambda: jnp.ravel(a, out_sharding=s))
same("broadcast_to out_sharding", lambda: tnp.broadcast_to(a[0], (4, 4), out_sharding=s),
     lambda: jnp.broadcast_to(a[0], (4, 4), out_sharding=s))
same("repeat out_sharding", lambda: tnp.repeat(a, 2, axis=0, out_sharding=s),
     lambda: jnp.repeat(a, 2, axis=0, out_sharding=s))
same("percentile out_sharding", lambda: tnp.percentile(a, 50.0, axis=0, out_sharding=s),
     lambda: jnp.percentile(a, 50.0, axis=0, out_sharding=s))
if "out_sharding" in inspect.signature(jnp.histogram).parameters:  # (jax 0.11 and later: both results placed)
    for i, result in enumerate(("counts", "edges")):
        same(f"histogram out_sharding {result}", lambda: tnp.histogram(a[0], 4, out_sharding=rep)[i],
             lambda: jnp.histogram(a[0], 4, out_sharding=rep)[i])
    same("histogram sharded out_sharding raises", lambda: tnp.histogram(a[0], 4, out_sharding=s),
         lambda: jnp.histogram(a[0], 4, out_sharding=s))  # (5 edges in 4 shards)
with jax.set_mesh(mesh):
    same("matmul PartitionSpec", lambda: tnp.matmul(a, b, out_sharding=P("x")),
         lambda: jnp.matmul(a, b, out_sharding=P("x")))
    same("zeros PartitionSpec", lambda: tnp.zeros(8, out_sharding=P("x")), lambda: jnp.zeros(8, out_sharding=P("x")))
# a placed result stays differentiable; its gradient comes back placed as the source, as every gradient
t = tj.constant(x)
with tj.GradientTape() as tape:
    tape.watch(t)
    y = tnp.asarray(t, device=devs[2])
    loss = tnp.sum(tnp.matmul(y, y) * y)
g = tape.gradient(loss, t)
out["gradient through device="] = [bool(np.allclose(g.numpy(), np.asarray(jax.grad(lambda v: jnp.sum((v @ v) * v))(x)),
                                                   atol=1e-4)), str(y.value.sharding)]
ta = tj.constant(a)
with jax.set_mesh(mesh):  # (explicit-axes shardings in a backward pass: inside the mesh's context, as in JAX)
    with tj.GradientTape() as tape:
        tape.watch(ta)
        y = tnp.matmul(ta, b, out_sharding=s)
        loss = tnp.sum(y * y)
    g = tape.gradient(loss, ta)
    want = jax.grad(lambda v: jnp.sum(jnp.matmul(v, b, out_sharding=s) * jnp.matmul(v, b, out_sharding=s)))(a)
out["gradient through out_sharding"] = [bool(np.allclose(g.numpy(), np.asarray(want), atol=1e-4)),
                                        str(y.value.sharding), str(g.value.sharding)]
# bincount: a sharded (not replicated) out_sharding raises, as jax.numpy's (whose ShardingTypeError jax does not
# export: tapejax's is a ValueError)
how, what = outcome(lambda: tnp.bincount(np.array([0, 1, 1, 3]), length=4, out_sharding=s))
out["bincount sharded out_sharding raises"] = [what == "ValueError", what]
out["jax bincount sharded out_sharding raises"] = [outcome(lambda: jnp.bincount(np.array([0, 1, 1, 3]), length=4,
                                                                                out_sharding=s))[0] == "raises"]
json.dump(out, open(sys.argv[1], "w"))
'''


def test_placement_on_four_devices(tmp_path):
    # device= and out_sharding= on several (simulated CPU) devices, in a process of its own: each result placed as
    # jax.numpy places it, with jax.numpy's values; gradients through a placed result
    import os
    import subprocess
    import sys
    from pathlib import Path

    from conftest import xla_flags
    script, result = tmp_path / "placement.py", tmp_path / "placement.json"
    script.write_text(_PLACEMENT_WORKER)
    src = str(Path(__file__).resolve().parents[1] / "src")
    env = dict(os.environ, XLA_FLAGS=xla_flags("--xla_force_host_platform_device_count=4"),
               PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, str(script), str(result)], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-6000:]
    out = __import__("json").loads(result.read_text())
    bad = {k: v for k, v in out.items() if not all(x is True for x in v if isinstance(x, bool))}
    assert not bad, bad
    assert "id=2" in out["gradient through device="][1]
