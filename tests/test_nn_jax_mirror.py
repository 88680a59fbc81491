"""tj.nn mirrors jax.nn: every public function of jax.nn is in tj.nn (but for the documented block-scaled
quantized matmuls), with jax's signature, and the functions added to complete the mirror (celu, glu,
hard_sigmoid, hard_silu/hard_swish, hard_tanh, identity, log1mexp, logmeanexp, mish, soft_sign, sparse_plus,
sparse_sigmoid, squareplus, standardize, dot_product_attention) give jax.nn's values, gradients (tape vs
jax.vjp), JVPs (ForwardAccumulator vs jax.jvp) and second derivatives (nested tapes vs jax.vjp of jax.grad),
eagerly and inside tj.function, with each optional argument given (as a Tensor) and left None.

Every expected value is computed by jax (or, at the kinks where tapejax follows TF's convention and jax does
not, written out by hand from API.md's rule, with jax's own value beside it).
"""
from __future__ import annotations

import functools
import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from conftest import assert_same_signature, nested_tape_gradients
from tapejax.ops.core import registry

RTOL, ATOL = 2e-5, 2e-6

NEW = ("celu", "glu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "identity", "log1mexp", "logmeanexp",
       "mish", "soft_sign", "sparse_plus", "sparse_sigmoid", "squareplus", "standardize", "dot_product_attention")
EXCLUDED = {"scaled_matmul", "scaled_dot_general", "get_scaled_dot_general_config"}

_rng = np.random.default_rng(20240611)


def _r(*shape, lo=-1.5, hi=1.5):
    return np.asarray(_rng.uniform(lo, hi, size=shape), np.float32)


def _away(*shape, kinks=(0.0,), margin=0.15, lo=-4.0, hi=4.0):
    """Random values at least ``margin`` from every kink."""
    x = _rng.uniform(lo, hi, size=shape)
    for k in kinks:
        near = np.abs(x - k) < margin
        x = np.where(near, k + np.where(x >= k, margin, -margin) * 2, x)
    return np.asarray(x, np.float32)


# -- the mirror --------------------------------------------------------------------------------------------

def _public_callables(mod):
    return {n for n in dir(mod) if not n.startswith("_") and callable(getattr(mod, n))
            and not inspect.ismodule(getattr(mod, n))}


def test_every_public_jax_nn_function_is_in_tj_nn_but_the_documented_exclusions():
    missing = _public_callables(jax.nn) - set(dir(tj.nn))
    assert missing <= EXCLUDED, sorted(missing - EXCLUDED)
    doc = tj.nn.__doc__
    for name in EXCLUDED:  # each exclusion is documented in the module docstring
        assert f"``{name}``" in doc, name


@pytest.mark.parametrize("name", NEW)
def test_signature_names_kinds_and_defaults_are_jax_nn_s(name):
    assert_same_signature(getattr(tj.nn, name), getattr(jax.nn, name))
    assert name in tj.nn.__all__
    assert (getattr(tj.nn, name).__doc__ or "").strip()


def test_each_new_op_is_a_registered_op_with_samples():
    # the registry-wide tests (test_ops_registry.py, test_path_consistency.py) check every registered op's samples
    ops = registry()
    for name in NEW:
        if name == "hard_swish":  # (an alias of hard_silu, as in jax.nn)
            assert tj.nn.hard_swish is tj.nn.hard_silu
            continue
        assert name in ops and ops[name].samples is not None and list(ops[name].samples()), name


# -- cases: (id, tapejax function of Tensors, jax function of arrays, float inputs) --------------------------

MASK_34 = np.array([[True, False, True, True], [False, True, False, False], [True, True, True, True]])
MASK_35 = np.array([[True, True, False, True, False], [True, False, True, True, True],
                    [False, True, True, False, True]])


def _case(id_, name, inputs, tj_kw=None, jax_kw=None, tj_extra=(), jax_extra=()):
    """``tj.nn.<name>(*floats, *tj_extra, **tj_kw)`` against ``jax.nn.<name>(*floats, *jax_extra, **jax_kw)``."""
    tj_kw = tj_kw or {}
    jax_kw = dict(tj_kw) if jax_kw is None else jax_kw
    return pytest.param(lambda *t: getattr(tj.nn, name)(*t, *tj_extra, **tj_kw),
                        lambda *a: getattr(jax.nn, name)(*a, *jax_extra, **jax_kw), inputs, id=id_)


def _kw_case(id_, name, inputs, keys, tj_kw=None, jax_kw=None):
    """As _case, the float inputs after the first given as the keyword arguments ``keys``."""
    tj_kw, jax_kw = tj_kw or {}, jax_kw if jax_kw is not None else dict(tj_kw or {})

    def ours(x, *rest):
        return getattr(tj.nn, name)(x, **dict(zip(keys, rest)), **tj_kw)

    def theirs(x, *rest):
        return getattr(jax.nn, name)(x, **dict(zip(keys, rest)), **jax_kw)
    return pytest.param(ours, theirs, inputs, id=id_)


def _attention_inputs(b, t, s, n, k, h, bias=False, three_d=False):
    q, kk, v = _r(b, t, n, h), _r(b, s, k, h), _r(b, s, k, h)
    if three_d:
        q, kk, v = q[0], kk[0], v[0]
    return [q, kk, v] + ([_r(1, n, t, s)] if bias else [])


CAUSAL = np.tril(np.ones((4, 5), bool), 1)[None, None]

CASES = [
    _case("celu", "celu", [_away(3, 4)]),
    _case("celu alpha", "celu", [_away(3, 4)], {"alpha": 0.5}),
    _case("glu", "glu", [_r(3, 4)]),
    _case("glu axis 0", "glu", [_r(4, 2, 3)], {"axis": 0}),
    _case("hard_sigmoid", "hard_sigmoid", [_away(3, 4, kinks=(-3.0, 3.0), lo=-5, hi=5)]),
    _case("hard_silu", "hard_silu", [_away(3, 4, kinks=(-3.0, 3.0), lo=-5, hi=5)]),
    _case("hard_swish", "hard_swish", [_away(3, 4, kinks=(-3.0, 3.0), lo=-5, hi=5)]),
    _case("hard_tanh", "hard_tanh", [_away(3, 4, kinks=(-1.0, 1.0), lo=-2.5, hi=2.5)]),
    _case("identity", "identity", [_r(3, 4)]),
    _case("log1mexp", "log1mexp", [_r(3, 4, lo=0.05, hi=3.0)]),
    _case("mish", "mish", [_r(3, 4, lo=-4, hi=4)]),
    _case("soft_sign", "soft_sign", [_away(3, 4)]),
    _case("sparse_plus", "sparse_plus", [_away(3, 4, kinks=(-1.0, 1.0), lo=-2.5, hi=2.5)]),
    _case("sparse_sigmoid", "sparse_sigmoid", [_away(3, 4, kinks=(-1.0, 1.0), lo=-2.5, hi=2.5)]),
    _case("squareplus", "squareplus", [_r(3, 4, lo=-4, hi=4)]),
    _case("squareplus b", "squareplus", [_r(3, 4, lo=-4, hi=4)], {"b": 0.5}),
    _case("logmeanexp", "logmeanexp", [_r(3, 4)]),
    _case("logmeanexp axis keepdims", "logmeanexp", [_r(2, 3, 4)], {"axis": 1, "keepdims": True}),
    _case("logmeanexp axes", "logmeanexp", [_r(2, 3, 4)], {"axis": (0, 2)}),
    _case("logmeanexp where numpy", "logmeanexp", [_r(3, 4)], {"axis": 1, "where": MASK_34}),
    _case("logmeanexp where Tensor", "logmeanexp", [_r(3, 4)], {"axis": -1, "where": tj.constant(MASK_34)},
          {"axis": -1, "where": jnp.asarray(MASK_34)}),
    _case("logmeanexp where broadcast", "logmeanexp", [_r(2, 3, 4)],
          {"axis": (0, 2), "keepdims": True, "where": tj.constant(MASK_34[:1])},
          {"axis": (0, 2), "keepdims": True, "where": jnp.asarray(MASK_34[:1])}),
    _case("standardize", "standardize", [_r(3, 5)]),
    _case("standardize axis None stable", "standardize", [_r(2, 3, 4)], {"axis": None, "algorithm": "stable"}),
    _case("standardize axes epsilon", "standardize", [_r(2, 3, 4)], {"axis": (0, 2), "epsilon": 1e-2}),
    _kw_case("standardize mean variance", "standardize", [_r(3, 5), _r(3, 1), _r(3, 1, lo=0.5, hi=1.5)],
             ("mean", "variance"), {"axis": 1}),
    _kw_case("standardize mean", "standardize", [_r(4, 3), _r(1, 3)], ("mean",), {"axis": 0}),
    _kw_case("standardize variance stable", "standardize", [_r(4, 3), _r(1, 3, lo=0.5, hi=1.5)], ("variance",),
             {"axis": 0, "algorithm": "stable"}),
    _case("standardize where", "standardize", [_r(3, 5)], {"axis": 1, "where": tj.constant(MASK_35)},
          {"axis": 1, "where": jnp.asarray(MASK_35)}),
    _kw_case("standardize mean where", "standardize", [_r(3, 5), _r(3, 1)], ("mean",),
             {"axis": 1, "where": MASK_35, "algorithm": "stable"}),
    _case("attention", "dot_product_attention", _attention_inputs(2, 3, 4, 2, 2, 4)),
    _case("attention 3-d", "dot_product_attention", _attention_inputs(1, 3, 4, 2, 2, 4, three_d=True)),
    _case("attention gqa bias mask scale", "dot_product_attention", _attention_inputs(1, 4, 5, 4, 2, 3, bias=True),
          {"mask": tj.constant(CAUSAL), "scale": 0.5}, {"mask": jnp.asarray(CAUSAL), "scale": 0.5}),
    _case("attention mask numpy", "dot_product_attention", _attention_inputs(1, 4, 5, 2, 2, 3), {"mask": CAUSAL}),
    _case("attention causal window", "dot_product_attention", _attention_inputs(2, 4, 4, 2, 1, 3),
          {"is_causal": True, "local_window_size": 1}),
    _case("attention seq lengths", "dot_product_attention", _attention_inputs(2, 3, 5, 2, 2, 2, bias=True),
          {"query_seq_lengths": tj.constant([2, 3]), "key_value_seq_lengths": tj.constant([5, 2])},
          {"query_seq_lengths": jnp.asarray([2, 3], jnp.int32),
           "key_value_seq_lengths": jnp.asarray([5, 2], jnp.int32)}),
    _case("attention kv lengths window pair xla", "dot_product_attention", _attention_inputs(2, 4, 4, 2, 1, 3),
          {"key_value_seq_lengths": [3, 4], "local_window_size": (1, 2), "is_causal": True,
           "implementation": "xla"},
          {"key_value_seq_lengths": jnp.asarray([3, 4], jnp.int32), "local_window_size": (1, 2), "is_causal": True,
           "implementation": "xla"}),
]


def _cotangent(like):
    return np.asarray(_np_rng(like).standard_normal(np.shape(like)), np.float32)


def _np_rng(x):
    return np.random.default_rng(int(np.abs(np.asarray(x, np.float64)).sum() * 1000) % (2 ** 31))


# The jax references run under one jax.jit (the jax function static): one XLA program per case instead of one
# per primitive of the op-by-op eager computation.
@functools.partial(jax.jit, static_argnums=0)
def _jax_value(jf, *xs):
    return jf(*xs)


@functools.partial(jax.jit, static_argnums=0)
def _jax_reference(jf, xs, ct, tangents, vs):
    y, vjp = jax.vjp(jf, *xs)
    grads = vjp(ct)
    _, jvp = jax.jvp(jf, tuple(xs), tuple(tangents))

    def scalar(*a):
        return jnp.sum(jf(*a) * ct)
    _, grad_vjp = jax.vjp(jax.grad(scalar, argnums=tuple(range(len(xs)))), *xs)
    hvp = grad_vjp(tuple(vs))
    return y, grads, jvp, hvp


def _close(got, want, what):
    got = np.zeros(np.shape(want), np.float32) if got is None else np.asarray(got)
    np.testing.assert_allclose(got, np.asarray(want), rtol=RTOL, atol=ATOL, err_msg=what)


@pytest.mark.parametrize("tf,jf,xs", CASES)
def test_values_gradients_jvps_and_second_order_equal_jax(tf, jf, xs):
    ref_y = _jax_value(jf, *xs)
    ct = _cotangent(np.asarray(ref_y))
    tangents = [_cotangent(x + 1) for x in xs]
    vs = [_cotangent(x + 2) for x in xs]
    y_want, g_want, jvp_want, hvp_want = _jax_reference(jf, xs, ct, tangents, vs)

    ts = [tj.constant(x) for x in xs]
    # values (eager, unrecorded)
    y = tf(*ts)
    assert isinstance(y, tj.Tensor) and y.dtype == y_want.dtype and y.shape == y_want.shape
    _close(y.numpy(), y_want, "value")
    # reverse mode
    with tj.GradientTape() as tape:
        tape.watch(ts)
        y = tf(*ts)
    for i, g in enumerate(tape.gradient(y, ts, output_gradients=tj.constant(ct))):
        _close(g, g_want[i], f"tape gradient of input {i} vs jax.vjp")
    # forward mode
    with tj.ForwardAccumulator(ts, [tj.constant(t) for t in tangents]) as acc:
        y = tf(*ts)
    _close(acc.jvp(y, unconnected_gradients="zero"), jvp_want, "ForwardAccumulator vs jax.jvp")
    # second order: nested tapes give v^T H of sum(ct * f), jax's vjp of its gradient
    with tj.GradientTape() as outer:
        outer.watch(ts)
        with tj.GradientTape() as inner:
            inner.watch(ts)
            y = tf(*ts)
        gs = inner.gradient(y, ts, output_gradients=tj.constant(ct))
    kept = [(g, tj.constant(v)) for g, v in zip(gs, vs) if g is not None]
    hvp = outer.gradient([g for g, _ in kept], ts, output_gradients=[v for _, v in kept],
                         unconnected_gradients="zero")
    for i, h in enumerate(hvp):
        _close(h, hvp_want[i], f"nested tapes vs jax.vjp of jax.grad, input {i}")


@pytest.mark.parametrize("tf,jf,xs", CASES)
def test_under_tj_function(tf, jf, xs):
    ref_y = _jax_value(jf, *xs)
    ct = _cotangent(np.asarray(ref_y))
    tangents = [_cotangent(x + 1) for x in xs]
    y_want, g_want, jvp_want, _ = _jax_reference(jf, xs, ct, tangents, [np.zeros_like(x) for x in xs])
    ct_t = tj.constant(ct)
    tan_t = [tj.constant(t) for t in tangents]

    @tj.function
    def step(*ts):
        with tj.GradientTape() as tape:
            tape.watch(ts)
            y = tf(*ts)
        with tj.ForwardAccumulator(list(ts), tan_t) as acc:
            y2 = tf(*ts)
        return y, tape.gradient(y, list(ts), output_gradients=ct_t), acc.jvp(y2, unconnected_gradients="zero")

    y, grads, jvp = step(*[tj.constant(x) for x in xs])
    _close(y.numpy(), y_want, "value in tj.function")
    for i, g in enumerate(grads):
        _close(g, g_want[i], f"gradient in tj.function, input {i}")
    _close(jvp, jvp_want, "JVP in tj.function")


# -- the residual output of dot_product_attention -------------------------------------------------------------

@pytest.mark.parametrize("kw", [{}, {"is_causal": True}, {"key_value_seq_lengths": [3, 5]}], ids=repr)
def test_attention_return_residual_values_and_gradients_equal_jax(kw):
    q, k, v = _attention_inputs(2, 4, 5, 2, 2, 3)
    jkw = {n: (np.asarray(a, np.int32) if isinstance(a, list) else a) for n, a in kw.items()}
    out_want, res_want = jax.jit(lambda q, k, v: jax.nn.dot_product_attention(q, k, v, return_residual=True,
                                                                              **jkw))(q, k, v)
    ct = _cotangent(np.asarray(out_want))
    ct_res = _cotangent(np.asarray(res_want) + 3)

    def loss(q, k, v):
        out, res = jax.nn.dot_product_attention(q, k, v, return_residual=True, **jkw)
        return jnp.sum(out * ct) + jnp.sum(res * ct_res)
    g_want = jax.jit(jax.grad(loss, argnums=(0, 1, 2)))(q, k, v)

    ts = [tj.constant(a) for a in (q, k, v)]
    with tj.GradientTape() as tape:
        tape.watch(ts)
        out, res = tj.nn.dot_product_attention(*ts, return_residual=True, **kw)
        target = tj.numpy.sum(out * ct) + tj.numpy.sum(res * ct_res)
    assert res.shape == res_want.shape == (2, 4, 2)
    _close(out.numpy(), out_want, "output")
    _close(res.numpy(), res_want, "residual (logsumexp)")
    for i, g in enumerate(tape.gradient(target, ts)):  # (the residual is a stop_gradient in jax: adds nothing)
        _close(g, g_want[i], f"gradient of input {i}")

    @tj.function
    def f(*ts):
        return tj.nn.dot_product_attention(*ts, return_residual=True, **kw)
    out, res = f(*ts)
    _close(out.numpy(), out_want, "output in tj.function")
    _close(res.numpy(), res_want, "residual in tj.function")


def test_attention_optional_arguments_none_and_given_agree_with_jax_defaults():
    q, k, v = _attention_inputs(1, 3, 4, 2, 2, 4)
    base = tj.nn.dot_product_attention(q, k, v).numpy()
    none = tj.nn.dot_product_attention(q, k, v, None, None, scale=None, query_seq_lengths=None,
                                       key_value_seq_lengths=None, local_window_size=None,
                                       implementation=None).numpy()
    np.testing.assert_array_equal(base, none)
    ones = tj.nn.dot_product_attention(q, k, v, bias=tj.numpy.zeros((1, 2, 3, 4)), mask=np.ones((1, 1, 3, 4), bool),
                                       scale=1 / np.sqrt(4)).numpy()
    want = _jax_value(jax.nn.dot_product_attention, q, k, v)
    _close(ones, want, "zero bias, all-True mask, default scale")
    _close(base, want, "defaults")


# -- kinks: API.md's conventions ---------------------------------------------------------------------------

def _grad_at(f, points):
    x = tj.constant(np.asarray(points, np.float32))
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    g = tape.gradient(y, x).numpy()
    with tj.ForwardAccumulator(x, tj.numpy.ones_like(x)) as acc:
        y = f(x)
    np.testing.assert_array_equal(acc.jvp(y).numpy(), g)  # forward and reverse: one rule
    return g


def _second_at(f, points):
    return nested_tape_gradients(f, np.asarray(points, np.float32))[2]


@functools.partial(jax.jit, static_argnums=0)
def _jax_vmap_grad(f, x):
    return jax.vmap(jax.grad(f))(x)


def _jax_grad_at(f, points):
    return np.asarray(_jax_vmap_grad(f, np.asarray(points, np.float32)))


def test_kinks_where_jax_agrees_with_tf_s_convention():
    # hard_tanh is clip(x, -1, 1): the gradient passes at the bounds (TF's clip), as jax's where(x > 1, ...)
    for name, points in [("hard_tanh", [-1.0, 1.0, -2.0, 0.0, 2.0]),
                         # hard_sigmoid is relu6(x + 3) / 6: relu6's derivative 0 at its kinks (TF's Relu6Grad), as
                         # jax's relu6
                         ("hard_sigmoid", [-3.0, 3.0, 0.0, -4.0, 4.0]),
                         ("hard_silu", [-3.0, 3.0, 0.0, -4.0, 4.0]),
                         # sparse_plus and celu have a continuous derivative: their kinks only show at second order
                         ("sparse_plus", [-1.0, 1.0, 0.0]), ("celu", [0.0, -1.0, 1.0])]:
        want = _jax_grad_at(getattr(jax.nn, name), points)
        np.testing.assert_array_equal(_grad_at(getattr(tj.nn, name), points), want, err_msg=name)
    np.testing.assert_array_equal(_jax_grad_at(jax.nn.hard_sigmoid, [-3.0, 3.0]), [0.0, 0.0])
    np.testing.assert_array_equal(_jax_grad_at(jax.nn.hard_silu, [-3.0, 3.0]), [0.0, 1.0])


def test_sparse_sigmoid_passes_the_gradient_at_its_bounds_as_tf_s_clip():
    # 0.5 * clip(x + 1, 0, 2): TF's clip passes the gradient at its bounds (API.md), so the derivative at -1 and 1
    # is 0.5; jax's clip splits the tie (0.25). Away from the bounds they agree.
    np.testing.assert_allclose(_jax_grad_at(jax.nn.sparse_sigmoid, [-1.0, 1.0]), [0.25, 0.25])
    np.testing.assert_array_equal(_grad_at(tj.nn.sparse_sigmoid, [-1.0, 1.0, -2.0, 0.0, 2.0]),
                                  [0.5, 0.5, 0.0, 0.5, 0.0])


def test_celu_at_zero_takes_the_linear_side_at_second_order_as_elu():
    # first derivative 1 at 0 (jax's too); the second derivative is the linear side's 0 (as tj.nn.elu, TF's
    # EluGrad), where jax's maximum/minimum split the tie: 1 / (4 alpha)
    for alpha in (1.0, 0.5):
        np.testing.assert_allclose(jax.grad(jax.grad(lambda x: jax.nn.celu(x, alpha)))(0.0), 0.25 / alpha)
        np.testing.assert_array_equal(_grad_at(lambda x: tj.nn.celu(x, alpha), [0.0]), [1.0])
        np.testing.assert_array_equal(_second_at(lambda x: tj.nn.celu(x, alpha), [0.0]).numpy(), [0.0])
    np.testing.assert_array_equal(_second_at(tj.nn.celu, [0.0]).numpy(), _second_at(tj.nn.elu, [0.0]).numpy())


def test_soft_sign_at_zero_uses_abs_derivative_zero():
    # x / (|x| + 1): derivative 1 at 0 either way; with abs's derivative 0 at 0 (TF's, API.md) the second derivative
    # there is 0, where jax's abs (derivative 1 at 0) gives -2
    np.testing.assert_allclose(jax.grad(jax.grad(jax.nn.soft_sign))(0.0), -2.0)
    np.testing.assert_array_equal(_grad_at(tj.nn.soft_sign, [0.0]), [1.0])
    np.testing.assert_array_equal(_second_at(tj.nn.soft_sign, [0.0]).numpy(), [0.0])


def test_hard_sigmoid_second_order_is_zeros_not_none_as_relu6():
    # TF's Relu6GradGrad gives zeros for the features, not None (tj.nn.relu6's backward_connected)
    h = _second_at(tj.nn.hard_sigmoid, [-4.0, 0.5, 4.0])
    assert h is not None
    np.testing.assert_array_equal(h.numpy(), [0.0, 0.0, 0.0])


# -- dtypes and plain inputs --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["celu", "hard_sigmoid", "hard_silu", "hard_tanh", "identity", "mish", "soft_sign",
                                  "sparse_plus", "sparse_sigmoid", "squareplus"])
@pytest.mark.parametrize("dtype", [np.int32, np.float16, jnp.bfloat16])
def test_activation_dtypes_are_jax_s(name, dtype):
    x = np.asarray([-3, -1, 0, 2, 5]).astype(dtype)
    got, want = getattr(tj.nn, name)(x), getattr(jax.nn, name)(jnp.asarray(x))
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(np.asarray(got.numpy(), np.float32), np.asarray(want, np.float32), rtol=1e-2)


INT_ACTIVATIONS = {
    "elu": lambda m, x: m.elu(x), "selu": lambda m, x: m.selu(x), "celu": lambda m, x: m.celu(x, 2),
    "leaky_relu int slope": lambda m, x: m.leaky_relu(x, 0), "leaky_relu": lambda m, x: m.leaky_relu(x, 0.1),
    "squareplus": lambda m, x: m.squareplus(x), "squareplus float b": lambda m, x: m.squareplus(x, 2.0),
}


@pytest.mark.parametrize("x64", [False, True], ids=["x64 off", "x64 on"])
@pytest.mark.parametrize("name", list(INT_ACTIVATIONS))
def test_activations_of_integers_with_number_parameters_as_jax_nn(name, x64):
    # (elu of int32 was float32 under x64, jax.nn's float64; squareplus's int b was made a float, float64 under x64
    # where jax.nn's is float32; leaky_relu of int32 with an int slope was float32, jax.nn's int32)
    with jax.enable_x64(x64):
        for dtype in (np.int32, np.bool_, np.uint8, np.float32):
            x = np.asarray([-3, -1, 0, 2, 5]).astype(dtype)
            got, want = INT_ACTIVATIONS[name](tj.nn, x), INT_ACTIVATIONS[name](jax.nn, jnp.asarray(x))
            assert got.dtype == want.dtype, (name, dtype, got.dtype, want.dtype)
            np.testing.assert_allclose(np.asarray(got.numpy(), np.float64), np.asarray(want, np.float64), rtol=1e-6)


def test_plain_inputs_variables_and_scalar_tensor_parameters():
    x = np.asarray([[0.3, -1.2, 2.0, 0.7]], np.float32)
    v = tj.Variable(x)
    np.testing.assert_allclose(tj.nn.celu(v, tj.constant(0.5)).numpy(), jax.nn.celu(x, 0.5), rtol=RTOL)
    np.testing.assert_allclose(tj.nn.squareplus(x.tolist(), b=np.float32(2.0)).numpy(), jax.nn.squareplus(x, 2.0),
                               rtol=RTOL)
    np.testing.assert_allclose(tj.nn.glu(v, axis=tj.constant(1)).numpy(), jax.nn.glu(x, axis=1), rtol=RTOL)
    np.testing.assert_allclose(tj.nn.standardize(v, epsilon=tj.constant(1e-3)).numpy(),
                               jax.nn.standardize(x, epsilon=1e-3), rtol=RTOL, atol=ATOL)
    with tj.GradientTape() as tape:
        y = tj.numpy.sum(tj.nn.mish(v) * tj.nn.identity(v))
    np.testing.assert_allclose(tape.gradient(y, v).numpy(),
                               jax.grad(lambda a: jnp.sum(jax.nn.mish(a) * a))(jnp.asarray(x)), rtol=RTOL)
    assert tj.nn.identity(x, name="an_op").numpy().tolist() == x.tolist()


def test_logmeanexp_fully_masked_slice_is_nan_as_jax():
    x = _r(2, 3)
    mask = np.array([[True, False, True], [False, False, False]])
    want = jax.nn.logmeanexp(x, axis=1, where=mask)
    got = tj.nn.logmeanexp(x, axis=1, where=mask).numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got[0], want[0], rtol=RTOL)


def test_complex_inputs_give_jax_nn_s_values():
    z = np.asarray([-1.5 + 0.3j, -0.5 - 0.7j, 0.3 + 1.1j, 1.2 - 0.2j, 2.5 + 0.5j, -2.2 - 1.5j], np.complex64)
    with pytest.raises(ValueError):
        jax.nn.sparse_sigmoid(z)  # (tested to raise in BAD below, as here)
    for name in ("celu", "soft_sign", "hard_tanh", "hard_sigmoid", "hard_silu", "sparse_plus", "squareplus", "mish",
                 "log1mexp", "glu", "identity", "logmeanexp"):
        np.testing.assert_allclose(getattr(tj.nn, name)(z).numpy(), getattr(jax.nn, name)(z), rtol=RTOL, atol=ATOL,
                                   err_msg=name)


# -- bad input: a clear exception naming the op ---------------------------------------------------------------

F23 = np.arange(6, dtype=np.float32).reshape(2, 3)
Q = _r(1, 3, 2, 4)

BAD = [
    ("glu odd axis", "glu", ValueError, lambda: tj.nn.glu(F23)),
    ("glu scalar", "glu", ValueError, lambda: tj.nn.glu(tj.constant(1.0))),
    ("glu axis 5", "glu", ValueError, lambda: tj.nn.glu(F23, axis=5)),
    ("glu axis 1.5", "glu", TypeError, lambda: tj.nn.glu(F23, axis=1.5)),
    ("glu axis tuple", "glu", TypeError, lambda: tj.nn.glu(F23, axis=(0,))),
    ("glu int", "glu", TypeError, lambda: tj.nn.glu(np.ones((2, 4), np.int32))),
    ("celu alpha str", "celu", TypeError, lambda: tj.nn.celu(F23, "a")),
    ("squareplus b None", "squareplus", TypeError, lambda: tj.nn.squareplus(F23, None)),
    ("logmeanexp axis 3", "logmeanexp", ValueError, lambda: tj.nn.logmeanexp(F23, axis=3)),
    ("logmeanexp axis str", "logmeanexp", TypeError, lambda: tj.nn.logmeanexp(F23, axis="a")),
    ("logmeanexp where int", "logmeanexp", ValueError, lambda: tj.nn.logmeanexp(F23, where=np.ones((2, 3), int))),
    ("logmeanexp where shape", "logmeanexp", ValueError, lambda: tj.nn.logmeanexp(F23, where=np.ones((4,), bool))),
    ("standardize axis 2", "standardize", ValueError, lambda: tj.nn.standardize(F23, axis=2)),
    ("standardize algorithm", "standardize", ValueError, lambda: tj.nn.standardize(F23, algorithm="exact")),
    ("standardize where int", "standardize", ValueError, lambda: tj.nn.standardize(F23, where=np.ones((2, 3)))),
    ("standardize mean shape", "standardize", ValueError,
     lambda: tj.nn.standardize(F23, mean=np.ones((4,), np.float32))),
    ("standardize epsilon str", "standardize", TypeError, lambda: tj.nn.standardize(F23, epsilon="x")),
    ("attention rank 5", "dot_product_attention", ValueError,
     lambda: tj.nn.dot_product_attention(Q[None], Q[None], Q[None])),
    ("attention head dims", "dot_product_attention", ValueError,
     lambda: tj.nn.dot_product_attention(Q, Q[..., :3], Q[..., :3])),
    ("attention value shape", "dot_product_attention", ValueError,
     lambda: tj.nn.dot_product_attention(Q, Q, Q[:, :2])),
    ("attention heads multiple", "dot_product_attention", ValueError,
     lambda: tj.nn.dot_product_attention(_r(1, 3, 3, 4), Q, Q)),
    ("attention mask dtype", "dot_product_attention", ValueError,
     lambda: tj.nn.dot_product_attention(Q, Q, Q, mask=np.ones((1, 1, 3, 3), np.float32))),
    ("attention bias heads", "dot_product_attention", ValueError,
     lambda: tj.nn.dot_product_attention(Q, Q, Q, bias=np.ones((1, 3, 3, 3), np.float32))),
    ("attention mask heads", "dot_product_attention", ValueError,
     lambda: tj.nn.dot_product_attention(Q, Q, Q, mask=np.ones((1, 3, 3, 3), bool))),
    ("attention seq lengths float", "dot_product_attention", ValueError,
     lambda: tj.nn.dot_product_attention(Q, Q, Q, query_seq_lengths=np.ones((1,), np.float32))),
    ("attention implementation", "dot_product_attention", ValueError,
     lambda: tj.nn.dot_product_attention(Q, Q, Q, implementation="flash")),
    ("attention window", "dot_product_attention", ValueError,
     lambda: tj.nn.dot_product_attention(Q, Q, Q, local_window_size=(1, 2, 3))),
    ("attention window float", "dot_product_attention", TypeError,
     lambda: tj.nn.dot_product_attention(Q, Q, Q, local_window_size=1.5)),
    # jax.nn.sparse_sigmoid is a clip, and jnp.clip rejects complex values
    ("sparse_sigmoid complex", "sparse_sigmoid", ValueError,
     lambda: tj.nn.sparse_sigmoid(np.asarray([0.5 + 1j], np.complex64))),
]


@pytest.mark.parametrize("label,op,kind,call", BAD, ids=[b[0] for b in BAD])
@pytest.mark.parametrize("mode", ["eager", "tape", "function"])
def test_bad_input_raises_a_clear_error_naming_the_op(label, op, kind, call, mode):
    if mode == "eager":
        run = call
    elif mode == "tape":
        def run():
            with tj.GradientTape() as tape:
                tape.watch(tj.constant(1.0))
                call()
    else:
        run = tj.function(lambda: call())
    with pytest.raises(kind) as info:
        run()
    assert op in str(info.value), str(info.value)


@pytest.mark.skipif(jax.default_backend() == "gpu", reason="cuDNN may be present on a GPU")
def test_attention_cudnn_without_a_gpu_raises_naming_the_op():
    # jax's own error is a RuntimeError: 'cuDNN is not detected', or, where the cuDNN library is installed but
    # the backend is the CPU (JAX_PLATFORMS=cpu on a GPU machine), jax 0.11.2's check of Q's float32 dtype
    with pytest.raises(RuntimeError, match="cuDNN is not detected|Q must be fp16"):
        jax.nn.dot_product_attention(Q, Q, Q, implementation="cudnn")
    with pytest.raises(RuntimeError, match="dot_product_attention.*cudnn"):
        tj.nn.dot_product_attention(Q, Q, Q, implementation="cudnn")


@pytest.mark.parametrize("module", ["nn", "numpy.linalg", "numpy.fft"])
def test_dir_and_star_import_show_only_the_public_api(module):
    mod = tj.nn if module == "nn" else getattr(tj.numpy, module.split(".")[1])
    public = set(mod.__all__)
    assert set(dir(mod)) == public  # (tab completion: no jax, jnp, np, OpDef... imported by the module)
    for leaked in ("jax", "jnp", "np", "OpDef", "annotations", "freeze"):
        assert leaked not in dir(mod), leaked
    ns = {}
    exec(f"from tapejax.{module} import *", ns)
    assert set(ns) - {"__builtins__"} == public
    assert all(callable(getattr(mod, n)) or inspect.ismodule(getattr(mod, n)) for n in public)  # (nn.initializers)
