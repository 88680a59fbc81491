"""JAX's jax.nn tests (tests/nn_test.py in jax-ml/jax, class NNFunctionsTest and NNInitializersTest.testIdentity)
ported to tj.nn.

Source: jax-ml/jax tests/nn_test.py. jax.nn.X maps to tj.nn.X (same names and defaults); jax's check_grads /
jax.grad checks become tj.GradientTape gradients against jax.vjp / jax.grad of the jax.nn function, and
tj.ForwardAccumulator JVPs against jax.jvp; check_grads' ``order=n`` becomes n nested tapes against n nested
jax.grad calls. The reference values are JAX's own (NumPy / SciPy where the JAX test uses them: gelu against
x * norm.cdf(x), logmeanexp against log(mean(exp(x)))), and jax.nn's result on the same inputs. Each function also
runs inside tj.function (JAX's _CompileAndCheck analogue). tests/test_nn_jax_mirror.py already compares every
tj.nn function with jax.nn on random inputs; this file adds JAX's specific points and cases.

Ported (JAX's names): testSoftplusGrad, testSoftplusGradZero, testSoftplusGradInf, testSoftplusGradNegInf,
testSoftplusGradNan, testSoftplusZero, testSparseplusGradZero, testSparseplusGrad, testSparseplusAndSparseSigmoid,
testSquareplusGrad, testSquareplusGradZero, testSquareplusGradNegInf, testSquareplusGradNan, testSquareplusZero,
testMishGrad, testMishGradZero, testMishGradNegInf, testMishGradNan, testMishZero, testReluGrad (but its jaxpr
count), testReluGradAtZero, testRelu6Grad, testSoftplusValue, testSparseplusValue, testSparsesigmoidValue,
testSquareplusValue, testMishValue, testEluGrad, testEluValue, testGluValue, testGeluIntType, testGelu,
testDtypeMatchesInput, testSoftmaxEmptyArray, testSoftmaxEmptyMask, testSoftmaxWhereMask, testSoftmaxWhereGrad,
testSoftmaxGrad, testStandardizeWhereMask, testOneHot, testOneHotOutOfBound, testOneHotNonArrayInput,
testOneHotCustomDtype, testOneHotConcretizationError, testOneHotAxis, testOneHotNonInteger, testTanhExists,
testLogMeanExp (4 of its 12 grid points), testLog1mExp, testLog1mExpGrad, testIdentity, testDotProductAttention
(implementation None / 'xla', bfloat16 and float32; tj against jax with K and V repeated per group, as JAX's
reference), testDotProductAttentionMask (its 8 mask modes, tj against jax.nn in float32 where JAX compares cuDNN
with its XLA path in bfloat16), testDotProductAttentionBiasGradient (batch 2 for JAX's 1 and 16, with and without
jax.vmap), testEluMemory and testHardTanhMemory (jax.make_jaxpr of a 10**12-element tj op: nothing materialized).

Left out: testScaledMatmul, testScaledDotGeneral (cuDNN-only; scaled_matmul / scaled_dot_general are tj.nn's
documented exclusions); testSoftmaxGradResiduals, testSoftmaxGradFlag (jax's saved residuals and
softmax_custom_jvp flag: jax internals); testCustomJVPLeak, testCustomJVPLeak2 (jax's custom_jvp leak checker);
the jaxpr equation count in testReluGrad; the cuDNN backend assertions of the attention tests (no cuDNN here);
every NNInitializersTest method but testIdentity (test_jax_nn_initializers_port.py ports them); testSoftmaxWhereMask's ``initial``
argument (the installed jax 0.10.2's softmax has none).

Sanctioned differences (API.md):
- tj.function follows tf.function: a Python number argument is static, so ``tj.function(tj.nn.one_hot)(3, 5)``
  works where ``jax.jit(jax.nn.one_hot)(3, 5)`` raises ConcretizationTypeError; a traced Tensor as num_classes
  raises a TypeError naming one_hot and num_classes (JAX's check, ported).
- relu's third derivative is None in tj (TF: relu's second derivative is an unconnected zeros_like) where jax
  gives 0: compared with unconnected_gradients="zero".

Found by this port and fixed:
- dot_product_attention on float16 inputs raised on the CPU (XLA:CPU rejects the F16_F16_F32 dot algorithm once
  compiled; tj compiles every op) where jax.nn's eager call works: computed in float32 there, given in float16.
- one_hot's DeprecationWarning for non-integer input came only on the first call of a signature (raised while
  tracing a cached kernel); jax.nn warns on every call, and now tj.nn too.
- one_hot's ``dtype`` default was float32, not jax's None (under x64 jax gives float64).
"""
from __future__ import annotations

import functools
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.stats

import tapejax as tj
from conftest import forward_over_reverse, nested_tape_gradients

tnp = tj.numpy
INF, NAN = float("inf"), float("nan")


def _np(x):
    return np.asarray(x.numpy() if isinstance(x, tj.Tensor) else x)


def _close(got, want, rtol=2e-5, atol=1e-6, what=""):
    got = np.zeros(np.shape(want), np.float32) if got is None else _np(got)
    np.testing.assert_allclose(got.astype(np.float64), np.asarray(want, np.float64), rtol=rtol, atol=atol,
                               equal_nan=True, err_msg=what)


def _same_dtype(got, want):
    assert got.dtype == jnp.asarray(want).dtype, (got.dtype, jnp.asarray(want).dtype)


# -- gradients at JAX's points (check_grads order 1) -----------------------------------------------------------

def _tape_grad_and_jvp(f, x):
    """Elementwise derivative of f at the points ``x`` by the tape (the gradient of sum(f)) and by a
    ForwardAccumulator (tangent ones)."""
    t = tj.constant(x)
    with tj.GradientTape() as tape:
        tape.watch(t)
        y = f(t)
    g = tape.gradient(y, t)
    with tj.ForwardAccumulator(t, tnp.ones_like(t)) as acc:
        y2 = f(t)
    return y, g, acc.jvp(y2)


POINTS = [  # (JAX method(s), name, points): check_grads(nn.<name>, (point,), order=1)
    ("testSoftplusGradZero/Inf/NegInf/Nan", "softplus", [0.0, INF, -INF, NAN]),
    ("testSparseplusGradZero/Grad", "sparse_plus", [-2.0, 0.0]),
    ("testSquareplusGradZero/Nan", "squareplus", [0.0, NAN]),  # (-inf: test_squareplus_at_negative_infinity)
    ("testMishGradZero/NegInf/Nan", "mish", [0.0, -INF, NAN]),
    ("testReluGradAtZero", "relu", [0.0, 1.0, -1.0]),  # (0 at 0: jax's and TF's)
    ("testRelu6Grad", "relu6", [0.0, 6.0, 1.0, -1.0]),
    ("testLog1mExpGrad", "log1mexp", [1e-2, 1e-1, 1e0, 1e1, 1e2]),
    ("testIdentity", "identity", [6.0, -1.0]),
]


# The jax references below run under one jax.jit (a jax function static): one XLA program per case instead of one
# per primitive of the op-by-op eager computation.
@functools.partial(jax.jit, static_argnums=0)
def _jax_first_derivatives(f, x):
    _, t = jax.jvp(f, (x,), (jnp.ones_like(x),))
    return jax.vmap(f)(x), jax.vmap(jax.grad(f))(x), t


@pytest.mark.parametrize("name,points", [p[1:] for p in POINTS], ids=[p[0] for p in POINTS])
def test_first_derivative_at_jax_s_points(name, points):
    x = np.asarray(points, np.float32)
    want_y, want_g, want_t = _jax_first_derivatives(getattr(jax.nn, name), x)
    np.testing.assert_allclose(want_g, want_t, equal_nan=True)  # jax's own forward and reverse agree here
    f = getattr(tj.nn, name)
    y, g, t = _tape_grad_and_jvp(f, x)
    _close(y, want_y, what="value")
    _close(g, want_g, what="tape gradient vs jax.grad")
    _close(t, want_t, what="ForwardAccumulator vs jax.jvp")
    # the same inside tj.function
    y_f, g_f, t_f = tj.function(lambda a: _tape_grad_and_jvp(f, a))(tj.constant(x))
    _close(y_f, want_y, what="value in tj.function")
    _close(g_f, want_g, what="gradient in tj.function")
    _close(t_f, want_t, what="JVP in tj.function")


# -- higher order (check_grads order 3 and 4) ----------------------------------------------------------------

def _tape_derivatives(f, x, order):
    """[f(x), f'(x), ..., f^(order)(x)] elementwise at the points ``x`` by ``order`` nested tapes (unconnected as
    zero)."""
    x = tj.constant(np.asarray(x, np.float32))
    tapes = [tj.GradientTape() for _ in range(order)]
    for tape in tapes:
        tape.__enter__()
        tape.watch(x)
    y = f(x)
    out = [y]
    for tape in reversed(tapes):
        tape.__exit__(None, None, None)
        y = tape.gradient(y, x, unconnected_gradients="zero")
        out.append(y)
    return np.stack([v.numpy() for v in out])


@functools.partial(jax.jit, static_argnums=(0, 2))
def _jax_derivatives_jit(f, x, order):
    out, g = [], f
    for _ in range(order + 1):
        out.append(jax.vmap(g)(x))
        g = jax.grad(g)
    return out


def _jax_derivatives(f, x, order):
    return np.stack(_jax_derivatives_jit(f, np.asarray(x, np.float32), order))


HIGHER = [  # (JAX method, name, points, order)
    ("testSoftplusGrad", "softplus", [1e-8], 4),
    ("testSquareplusGrad", "squareplus", [1e-8], 4),
    ("testMishGrad", "mish", [1e-8], 4),
    ("testEluGrad", "elu", [1e4], 4),
    ("testReluGrad", "relu", [1.0, -1.0], 3),
    ("testRelu6Grad", "relu6", [1.0, -1.0], 3),
]


@pytest.mark.parametrize("name,x,order", [h[1:] for h in HIGHER], ids=[h[0] for h in HIGHER])
def test_higher_derivatives_by_nested_tapes_equal_nested_jax_grad(name, x, order):
    got = _tape_derivatives(getattr(tj.nn, name), x, order)
    want = _jax_derivatives(getattr(jax.nn, name), x, order)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


# -- values -----------------------------------------------------------------------------------------------------

def test_saturated_values():
    # testSoftplusValue, testSparseplusValue, testSparsesigmoidValue, testSquareplusValue, testMishValue, testEluValue
    cases = [("softplus", 89.0, 89.0, 0.0), ("sparse_plus", 89.0, 89.0, 0.0), ("sparse_sigmoid", -2.0, 0.0, 0.0),
             ("sparse_sigmoid", 2.0, 1.0, 0.0), ("sparse_sigmoid", 0.0, 0.5, 0.0), ("squareplus", 1e3, 1e3, 1e-3),
             ("mish", 1e3, 1e3, 1e-3), ("elu", 1e4, 1e4, 0.0)]
    for name, x, want, atol in cases:
        for run in (getattr(tj.nn, name), tj.function(getattr(tj.nn, name))):
            got = run(tj.constant(x))
            np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=atol, err_msg=name)
            np.testing.assert_allclose(got.numpy(), getattr(jax.nn, name)(np.float32(x)), rtol=1e-6, err_msg=name)


def test_squareplus_at_negative_infinity():
    # testSquareplusGradNegInf: jax.nn's (x + sqrt(x**2 + b)) / 2 is inf - inf there, NaN, value and derivative
    # (check_grads passes comparing NaN with NaN); tapejax's b / (2 (sqrt(x**2 + b) - x)) below 0 has the limits,
    # 0 and 0, and its values far out are b / (4 |x|) where jax's cancel to 0
    y, g, t = _tape_grad_and_jvp(tj.nn.squareplus, np.asarray([-INF, -1e6, -1e20], np.float32))
    np.testing.assert_allclose(y.numpy(), [0, 1e-6, 1e-20], rtol=1e-6)
    np.testing.assert_allclose(g.numpy(), [0, 1e-12, 0], rtol=1e-5, atol=1e-30)
    np.testing.assert_allclose(t.numpy(), g.numpy(), rtol=1e-6, atol=1e-30)
    assert float(jax.nn.squareplus(np.float32(-1e6))) == 0  # (jax's cancellation, which this avoids)


def test_squareplus_second_derivative_far_out():
    # b / (2 (x**2 + b)**1.5), 2e-12 at |x| = 1e4 and below float32's range further out: reverse over reverse was
    # NaN at all of these (the unused side's b / (2 root (root - x)), root - x rounding to 0), forward over reverse
    # NaN at 1e38 (root * (root + x) overflowing)
    x = np.asarray([-1e38, -1e20, -1e4, 1e4, 1e20, 1e38], np.float32)
    want = 4 / (2 * (x.astype(np.float64) ** 2 + 4) ** 1.5)
    _, _, h = nested_tape_gradients(tj.nn.squareplus, x)
    np.testing.assert_allclose(h.numpy(), want, rtol=1e-5, atol=1e-30)
    fr = forward_over_reverse(tj.nn.squareplus, x, np.ones(6, np.float32))
    np.testing.assert_allclose(fr.numpy(), want, rtol=1e-5, atol=1e-30)


def test_sparse_plus_derivative_is_sparse_sigmoid():
    # testSparseplusAndSparseSigmoid (at 0, 2 and -2: away from sparse_sigmoid's clip bounds)
    x = np.asarray([0.0, 2.0, -2.0], np.float32)
    _, g, t = _tape_grad_and_jvp(tj.nn.sparse_plus, x)
    _close(g, tj.nn.sparse_sigmoid(x).numpy())
    _close(t, tj.nn.sparse_sigmoid(x).numpy())
    _close(g, [0.5, 1.0, 0.0])


SOFTPLUS_ZERO_DTYPES = [int, float, np.float16, jnp.bfloat16, np.float32, np.int8, np.int16, np.int32, np.uint8]


@pytest.mark.parametrize("dtype", SOFTPLUS_ZERO_DTYPES, ids=lambda d: getattr(d, "__name__", str(d)))
def test_softplus_of_zero_is_log_2(dtype):
    # testSoftplusZero: exactly log(2) in jax's result dtype
    got, want = tj.nn.softplus(dtype(0)), jax.nn.softplus(dtype(0))
    _same_dtype(got, want)
    assert np.asarray(got.numpy()) == jnp.log(dtype(2)), (got, jnp.log(dtype(2)))


@pytest.mark.parametrize("dtype", [float, np.float16, jnp.bfloat16, np.float32], ids=lambda d: d.__name__)
def test_squareplus_and_mish_of_zero(dtype):
    # testSquareplusZero (squareplus(0, b=4) == 1), testMishZero (mish(0) == 0)
    got = tj.nn.squareplus(dtype(0), dtype(4))
    _same_dtype(got, jax.nn.squareplus(dtype(0), dtype(4)))
    assert got.numpy() == dtype(1)
    got = tj.nn.mish(dtype(0))
    _same_dtype(got, jax.nn.mish(dtype(0)))
    assert got.numpy() == dtype(0)


def test_glu_value():
    # testGluValue
    got = tj.nn.glu(jnp.array([1.0, 0.0]), axis=0)
    np.testing.assert_allclose(got.numpy(), [0.5])
    assert got.shape == (1,)


@pytest.mark.parametrize("approximate", [False, True])
def test_gelu_of_an_integer_equals_gelu_of_the_float(approximate):
    # testGeluIntType
    got_int = tj.nn.gelu(tj.constant(-1), approximate=approximate)
    got_float = tj.nn.gelu(tj.constant(-1.0), approximate=approximate)
    _same_dtype(got_int, jax.nn.gelu(jnp.array(-1), approximate=approximate))
    np.testing.assert_allclose(got_int.numpy(), got_float.numpy(), rtol=1e-6)
    np.testing.assert_allclose(got_int.numpy(), jax.nn.gelu(jnp.array(-1.0), approximate=approximate), rtol=1e-6)


@pytest.mark.parametrize("approximate", [False, True])
def test_gelu_against_the_normal_cdf(approximate):
    # testGelu: x * Phi(x) on 10000 points of [-12, 5]; the tanh approximation within atol 1e-3
    x = np.linspace(-12, 5, 10000, dtype=np.float32)
    want = x.astype(np.float64) * scipy.stats.norm.cdf(x.astype(np.float64))
    for run in (tj.nn.gelu, tj.function(tj.nn.gelu)):
        got = run(x, approximate=approximate).numpy()
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-3 if approximate else 0)
        # (the tanh form's 1 + tanh(z) near z = -11 is a few ulps of 1, which two XLA programs may round apart:
        # jax 0.12 at the tests' optimization level 0 gives -6.6e-7 against -0.0, scaled by x / 2)
        np.testing.assert_allclose(got, jax.nn.gelu(x, approximate=approximate), rtol=2e-6,
                                   atol=2e-6 if approximate else 1e-7)


DTYPE_FNS = [("gelu exact", lambda m, x: m.gelu(x, approximate=False)),
             ("gelu approximate", lambda m, x: m.gelu(x, approximate=True))] + \
    [(n, lambda m, x, n=n: getattr(m, n)(x))
     for n in ("relu", "identity", "softplus", "sparse_plus", "sigmoid", "squareplus", "mish")]


@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16, np.float16], ids=lambda d: d.__name__)
def test_result_dtype_matches_input(dtype):
    # testDtypeMatchesInput
    x = np.zeros((), dtype)
    for label, fn in DTYPE_FNS:
        got = fn(tj.nn, x)
        assert got.dtype == dtype, (label, got.dtype)
        assert fn(jax.nn, jnp.asarray(x)).dtype == dtype, label


def test_identity_and_tanh():
    # testIdentity (value; its gradient 1 is in test_first_derivative_at_jax_s_points), testTanhExists
    x = np.asarray([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_array_equal(tj.nn.identity(x).numpy(), x)
    np.testing.assert_allclose(tj.nn.tanh(x).numpy(), jax.nn.tanh(x), rtol=1e-6)


@pytest.mark.parametrize("name", ["elu", "hard_tanh"])
def test_a_traced_huge_input_is_not_materialized(name):
    # testEluMemory, testHardTanhMemory: tracing the op on 10**12 elements builds no constant of that size
    with jax.enable_checks(False):
        jaxpr = jax.make_jaxpr(lambda: getattr(tj.nn, name)(tj.Tensor(jnp.ones((10 ** 12,)))).value)()
    assert jaxpr.out_avals[0].shape == (10 ** 12,)


# -- softmax / log_softmax --------------------------------------------------------------------------------------

X4 = np.asarray([5.5, 1.3, -4.2, 0.9], np.float32)
M4 = np.asarray([True, False, True, True])


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_of_an_empty_array(name):
    # testSoftmaxEmptyArray
    x = np.asarray([], np.float32)
    got = getattr(tj.nn, name)(x)
    assert got.shape == (0,) and got.dtype == getattr(jax.nn, name)(x).dtype


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_with_an_all_false_mask(name):
    # testSoftmaxEmptyMask: 0 (softmax) or -inf (log_softmax) everywhere
    want = np.full(4, 0.0 if name == "softmax" else -np.inf, np.float32)
    for run in (getattr(tj.nn, name), tj.function(getattr(tj.nn, name))):
        got = run(X4, where=np.zeros(4, bool))
        np.testing.assert_array_equal(got.numpy(), want)
        np.testing.assert_array_equal(got.numpy(), getattr(jax.nn, name)(X4, where=np.zeros(4, bool)))


@functools.partial(jax.jit, static_argnums=0)
def _jax_vjp_jvp_hvp(jax_fn, x, ct, tangent, v):
    y_want, vjp = jax.vjp(jax_fn, x)
    g_want, = vjp(ct)
    _, t_want = jax.jvp(jax_fn, (x,), (tangent,))
    _, hvp = jax.vjp(jax.grad(lambda a: jnp.sum(jax_fn(a) * ct)), x)
    h_want, = hvp(v)
    return y_want, g_want, t_want, h_want


def _check_vjp_jvp_and_second_order(tf_fn, jax_fn, x, ct, tangent, v):
    """The tape's gradient for cotangent ``ct`` (jax.vjp), the accumulator's JVP for ``tangent`` (jax.jvp), and
    v^T H of sum(ct * f) by nested tapes (jax.vjp of jax.grad), eagerly and in tj.function."""
    y_want, g_want, t_want, h_want = _jax_vjp_jvp_hvp(jax_fn, x, ct, tangent, v)

    def ours(xt):
        y, g, h = nested_tape_gradients(tf_fn, xt, ct, v)
        with tj.ForwardAccumulator(xt, tj.constant(tangent)) as acc:
            t = acc.jvp(tf_fn(xt))
        return y, g, t, h
    for label, run in (("eager", ours), ("tj.function", tj.function(ours))):
        y, g, t, h = run(tj.constant(x))
        _close(y, y_want, what=f"value ({label})")
        _close(g, g_want, what=f"tape gradient vs jax.vjp ({label})")
        _close(t, t_want, what=f"ForwardAccumulator vs jax.jvp ({label})")
        _close(h, h_want, rtol=1e-4, atol=1e-5, what=f"second order vs jax ({label})")


CT3 = np.asarray([0.3, -1.0, 2.0], np.float32)
CT4 = np.asarray([0.3, 0.5, -1.0, 2.0], np.float32)
TAN4 = np.asarray([1.0, -0.5, 0.25, 2.0], np.float32)
V4 = np.asarray([-0.7, 1.1, 0.4, 0.9], np.float32)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_where_mask(name):
    # testSoftmaxWhereMask: the kept entries are fn of the kept entries alone, the probabilities sum to 1, and
    # (check_grads order 2 of take(fn(x, where=m), [0, 2, 3])) derivatives equal jax's
    out = getattr(tj.nn, name)(X4, where=M4)
    _close(out.numpy()[M4], getattr(tj.nn, name)(X4[M4]).numpy())
    _close(out.numpy(), getattr(jax.nn, name)(X4, where=M4))
    probs = out.numpy() if name == "softmax" else np.exp(out.numpy())
    np.testing.assert_allclose(probs.sum(), 1.0, rtol=1e-6)
    keep = np.asarray([0, 2, 3])
    _check_vjp_jvp_and_second_order(lambda a: tnp.take(getattr(tj.nn, name)(a, where=M4), keep),
                                    lambda a: jnp.take(getattr(jax.nn, name)(a, where=M4), keep),
                                    X4, CT3, TAN4, V4)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_where_gradient_has_no_nan_from_masked_out_entries(name):
    # testSoftmaxWhereGrad (jax issue 19490): 10000 masked out must not give NaN through exp
    x = np.asarray([36.0, 10000.0], np.float32)
    mask = x < 1000
    _, g, t = _tape_grad_and_jvp(lambda a: getattr(tj.nn, name)(a, where=mask)[0], x)
    np.testing.assert_array_equal(g.numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(g.numpy(), jax.jit(jax.grad(lambda a: getattr(jax.nn, name)(a, where=mask)[0]))(x))
    np.testing.assert_array_equal(t.numpy(), 0.0)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_derivatives_to_second_order(name):
    # testSoftmaxGrad (check_grads order 2), log_softmax alongside
    _check_vjp_jvp_and_second_order(getattr(tj.nn, name), getattr(jax.nn, name), X4, CT4, TAN4, V4)


def test_standardize_where_mask():
    # testStandardizeWhereMask: the kept entries standardized as if the others were absent
    keep = np.asarray([0, 2, 3])
    for run in (tj.nn.standardize, tj.function(tj.nn.standardize)):
        got = run(X4, where=M4).numpy()[keep]
        _close(got, tj.nn.standardize(X4[keep]).numpy(), rtol=1e-5, atol=1e-6)
        _close(got, jax.nn.standardize(X4[keep]), rtol=1e-5, atol=1e-6)
        _close(run(X4, where=M4), jax.nn.standardize(X4, where=M4))


# -- one_hot ------------------------------------------------------------------------------------------------------

def _one_hot_matches(got, want, want_jax):
    assert got.dtype == want_jax.dtype and got.shape == want_jax.shape, (got.dtype, got.shape)
    np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_array_equal(got.numpy(), want_jax)


def test_one_hot():
    # testOneHot, testOneHotNonArrayInput (a list), testOneHotCustomDtype (bool)
    for idx in ([0, 1, 2], [1, 2, 0]):
        want = np.eye(3, dtype=np.float32)[idx]
        _one_hot_matches(tj.nn.one_hot(jnp.array(idx), 3), want, jax.nn.one_hot(jnp.array(idx), 3))
        _one_hot_matches(tj.nn.one_hot(tj.constant(idx), 3), want, jax.nn.one_hot(jnp.array(idx), 3))
    _one_hot_matches(tj.nn.one_hot([0, 1, 2], 3), np.eye(3), jax.nn.one_hot([0, 1, 2], 3))
    _one_hot_matches(tj.nn.one_hot(jnp.array([0, 1, 2]), 3, dtype=jnp.bool_), np.eye(3, dtype=bool),
                     jax.nn.one_hot(jnp.array([0, 1, 2]), 3, dtype=jnp.bool_))


def test_one_hot_out_of_bounds_gives_zero_rows():
    # testOneHotOutOfBound
    x = jnp.array([-1, 3])
    _one_hot_matches(tj.nn.one_hot(x, 3), np.zeros((2, 3)), jax.nn.one_hot(x, 3))
    _one_hot_matches(tj.function(lambda a: tj.nn.one_hot(a, 3))(x), np.zeros((2, 3)), jax.nn.one_hot(x, 3))


def test_one_hot_axis():
    # testOneHotAxis: axis 0 and -2 of a 1-d input both give the transpose
    x = jnp.array([1, 2, 0])
    want = np.eye(3, dtype=np.float32)[[1, 2, 0]].T
    for axis in (0, -2):
        _one_hot_matches(tj.nn.one_hot(x, 3, axis=axis), want, jax.nn.one_hot(x, 3, axis=axis))


def test_one_hot_traced_num_classes_raises_a_clear_type_error():
    # testOneHotConcretizationError: jax.jit(nn.one_hot)(3, 5) raises ConcretizationTypeError (a TypeError)
    # naming num_classes. tj.function keeps Python numbers static (tf.function's rule: sanctioned), so the
    # traced case is a Tensor num_classes.
    with pytest.raises(TypeError, match="num_classes"):
        jax.jit(jax.nn.one_hot)(3, 5)
    with pytest.raises(TypeError, match="one_hot.*num_classes"):
        tj.function(tj.nn.one_hot)(3, tj.constant(5))
    np.testing.assert_array_equal(tj.function(tj.nn.one_hot)(3, 5).numpy(), [0, 0, 0, 1, 0])


def test_one_hot_float_input_warns_as_jax():
    # testOneHotNonInteger (first call of a signature; the repeat is the test below)
    with pytest.warns(DeprecationWarning, match="one_hot input should be integer-typed"):
        jax.nn.one_hot(jnp.array([1.0, 0.0, 2.0, 1.0, 0.0]), 7)
    with pytest.warns(DeprecationWarning, match="one_hot input should be integer-typed"):
        got = tj.nn.one_hot(np.asarray([[2.0], [1.0]], np.float32), 9, axis=0)
    np.testing.assert_array_equal(got.numpy(), jax.nn.one_hot(jnp.asarray([[2], [1]]), 9, axis=0))


def test_one_hot_float_input_warns_on_every_call():
    x = np.asarray([1.0, 0.0], np.float32)
    for _ in range(2):
        with pytest.warns(DeprecationWarning, match="one_hot input should be integer-typed"):
            jax.nn.one_hot(x, 3)
        with pytest.warns(DeprecationWarning, match="one_hot input should be integer-typed"):
            tj.nn.one_hot(x, 3)


def test_one_hot_dtype_default_is_jax_s():
    import inspect
    assert inspect.signature(tj.nn.one_hot).parameters["dtype"].default is None
    with jax.enable_x64(True):
        assert tj.nn.one_hot([0, 1], 3).dtype == jax.nn.one_hot(jnp.array([0, 1]), 3).dtype


# -- logmeanexp, log1mexp ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,use_where,keepdims", [((5,), False, False), ((3, 5), True, False),
                                                     ((2, 3, 5), True, True), ((2, 3, 5), False, True)])
def test_logmeanexp_is_log_of_mean_of_exp(shape, use_where, keepdims):
    # testLogMeanExp (4 of its 12 grid points; a fully masked slice gives NaN in both)
    rng = np.random.RandomState(sum(shape) + 10 * use_where + 100 * keepdims)
    x = (rng.rand(*shape) * 2 - 1).astype(np.float32)
    axis = int(rng.randint(0, x.ndim))
    where = rng.randint(0, 2, size=shape).astype(bool) if use_where else None
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # (a fully masked slice: NumPy's "mean of empty slice")
        want = np.log(np.mean(np.exp(x.astype(np.float64)), axis=axis, where=True if where is None else where,
                               keepdims=keepdims))
    for run in (tj.nn.logmeanexp, tj.function(tj.nn.logmeanexp)):
        got = run(x, axis=axis, where=where, keepdims=keepdims)
        assert got.shape == want.shape
        _close(got, want, rtol=1e-3, atol=1e-3)
        _close(got, jax.nn.logmeanexp(x, axis=axis, where=where, keepdims=keepdims))


def test_log1mexp_values():
    # testLog1mExp: JAX's table (nan below 0, -inf at 0, 0 at +inf)
    table = np.asarray([[0.1, np.log(1 - np.exp(-0.1))], [1.1, np.log(1 - np.exp(-1.1))], [0.0, -np.inf],
                        [1.0, -0.45867515], [1e2, 0.0], [1e-5, np.log(1e-5)], [-1.0, np.nan], [-1e-2, np.nan],
                        [-1e2, np.nan], [np.inf, 0.0]]).T
    x = table[0].astype(np.float32)
    for run in (tj.nn.log1mexp, tj.function(tj.nn.log1mexp)):
        got = run(x)
        np.testing.assert_allclose(got.numpy(), table[1], rtol=1e-3, atol=1e-3)
        np.testing.assert_allclose(got.numpy(), jax.nn.log1mexp(x), rtol=1e-6)


# -- dot_product_attention -------------------------------------------------------------------------------------

def _normal(rng, shape, dtype):
    return rng.standard_normal(shape).astype(dtype)


def _tj_attention_vjp(args, ct, use_vmap=False, in_axes=0, **kw):
    """tj.nn.dot_product_attention's output and gradients (for the float arguments, None skipped) by the tape, or
    (use_vmap) by jax.vmap + jax.vjp of the function of Tensors."""
    idx = [i for i, a in enumerate(args) if a is not None and jnp.issubdtype(np.asarray(a).dtype, jnp.floating)]
    if use_vmap:
        def f(*floats):
            full = list(args)
            for i, a in zip(idx, floats):
                full[i] = tj.Tensor(a)
            return tj.nn.dot_product_attention(*full, **kw).value
        axes = tuple(in_axes if isinstance(in_axes, int) else in_axes[i] for i in idx)
        out, vjp = jax.vjp(jax.vmap(f, in_axes=axes), *[jnp.asarray(args[i]) for i in idx])
        return out, vjp(jnp.asarray(ct))
    ts = list(args)
    for i in idx:
        ts[i] = tj.constant(args[i])
    with tj.GradientTape() as tape:
        tape.watch([ts[i] for i in idx])
        out = tj.nn.dot_product_attention(*ts, **kw)
    return out.value, tape.gradient(out, [ts[i] for i in idx], output_gradients=ct)


GQA = [  # (dtype, groups, use_vmap, implementation)
    (jnp.bfloat16, 1, False, "xla"), (jnp.bfloat16, 2, False, None), (jnp.bfloat16, 4, True, "xla"),
    (np.float32, 2, True, None),
    (np.float16, 2, False, "xla"),  # (raised on the CPU: XLA:CPU compiles no F16_F16_F32 dot)
]


def _jax_gqa_reference(q, k, v, ct, groups):
    B, S, N, H = k.shape
    out_ref, vjp_ref = jax.vjp(lambda *a: jax.nn.dot_product_attention(*a), q, k, v)
    dq_ref, dk_ref, dv_ref = vjp_ref(jnp.asarray(ct))
    dk_ref = dk_ref.reshape(B, S, N // groups, groups, H).sum(axis=3)
    dv_ref = dv_ref.reshape(B, S, N // groups, groups, H).sum(axis=3)
    return out_ref, dq_ref, dk_ref, dv_ref


# (float16 stays eager: XLA:CPU compiles no F16_F16_F32 dot, so jax.nn's float16 attention fails in one program)
_jax_gqa_reference_jit = jax.jit(_jax_gqa_reference, static_argnums=4)


@pytest.mark.parametrize("dtype,groups,use_vmap,impl", GQA)
def test_dot_product_attention_grouped_query_equals_repeated_heads(dtype, groups, use_vmap, impl):
    # testDotProductAttention: K and V with N // G heads against jax.nn on K, V repeated G times per head;
    # the repeated heads' gradients summed per group (smaller B, S, T, H than JAX's)
    B, S, T, N, H = 2, 6, 5, 4, 8
    rng = np.random.default_rng(groups + 10 * use_vmap)
    q, k, v = _normal(rng, (B, T, N, H), dtype), _normal(rng, (B, S, N // groups, H), dtype), \
        _normal(rng, (B, S, N // groups, H), dtype)
    ct = _normal(rng, (B, T, N, H), dtype)
    reference = _jax_gqa_reference if dtype == np.float16 else _jax_gqa_reference_jit
    out_ref, dq_ref, dk_ref, dv_ref = reference(q, np.repeat(k, groups, 2), np.repeat(v, groups, 2), ct, groups)
    out, grads = _tj_attention_vjp([q, k, v], ct, use_vmap=use_vmap, implementation=impl)
    tol = 1e-2 if dtype != np.float32 else 2e-5
    assert out.dtype == out_ref.dtype and out.shape == out_ref.shape
    for label, got, want in zip(("out", "dq", "dk", "dv"), (out,) + tuple(grads), (out_ref, dq_ref, dk_ref, dv_ref)):
        assert got.dtype == want.dtype, label
        _close(np.asarray(got, np.float32), np.asarray(want, np.float32), rtol=tol, atol=tol, what=label)


@functools.partial(jax.jit, static_argnums=0)
def _jax_vjp(f, xs, ct):
    out, vjp = jax.vjp(f, *xs)
    return out, vjp(ct)


MASK_MODES = ["bias", "causal", "padding", "custom", ("causal", "padding"), ("custom", "padding"),
              ("bias", "causal"), ("causal", "sliding_window")]


@pytest.mark.parametrize("mode", MASK_MODES, ids=str)
def test_dot_product_attention_mask_modes(mode):
    # testDotProductAttentionMask: each mode's output and q, k, v (and bias) gradients equal jax.nn's
    modes = (mode,) if isinstance(mode, str) else mode
    B, S, T, N, H = 2, 8, 8, 2, 4
    rng = np.random.default_rng(len(str(mode)))
    q, k, v, ct = (_normal(rng, (B, n, N, H), np.float32) for n in (T, S, S, T))
    bias = _normal(rng, (1, N, T, S), np.float32) if "bias" in modes else None
    mask = np.tril(np.ones((T, S), bool))[None, None] if "custom" in modes else None
    kw = {"is_causal": "causal" in modes}
    if "padding" in modes:
        kw.update(query_seq_lengths=np.asarray([T // 2, T // 4], np.int32),
                  key_value_seq_lengths=np.asarray([S // 4, S // 2], np.int32))
    if "sliding_window" in modes:
        kw["local_window_size"] = (3, 2) if kw["is_causal"] else (3, 0)
    args = [q, k, v, bias, mask]
    floats = [a for a in args if a is not None and a.dtype == np.float32]

    def ref(*fl):
        it = iter(fl)
        full = [next(it) if (a is not None and a.dtype == np.float32) else a for a in args]
        return jax.nn.dot_product_attention(*full, **kw)
    out_ref, grads_ref = _jax_vjp(ref, floats, ct)
    out, grads = _tj_attention_vjp(args, ct, **kw)
    _close(out, out_ref, what="output")
    for i, (g, w) in enumerate(zip(grads, grads_ref)):
        _close(g, w, rtol=1e-4, atol=1e-5, what=f"gradient of float argument {i}")
    if len(modes) > 1:  # (each mode alone runs in tj.function in test_nn_jax_mirror.py's cases)
        got_f = tj.function(lambda *a: tj.nn.dot_product_attention(*a, **kw))(*args)
        _close(got_f, out_ref, what="output in tj.function")


@pytest.mark.parametrize("batch,use_vmap", [(2, False), (2, True)])
def test_dot_product_attention_bias_gradient(batch, use_vmap):
    # testDotProductAttentionBiasGradient: x as query, key and value, a per-batch bias (B, N, S, S) and a (1, 1, S)
    # mask; the x and bias gradients for cotangent x equal jax's (batch 2 for JAX's 1 and 16: tj has no cuDNN limit)
    S, N, H = 6, 2, 4
    rng = np.random.default_rng(batch + 2 * use_vmap)
    x = _normal(rng, (batch, S, N, H), np.float32)
    bias = _normal(rng, (batch, N, S, S), np.float32)
    mask = np.ones((1, 1, S), bool)

    def ref(x, bias):
        return jax.nn.dot_product_attention(x, x, x, bias=bias, mask=mask)
    if use_vmap:
        ref = jax.vmap(ref, in_axes=(0, 0))
    out_ref, (dx_ref, dbias_ref) = _jax_vjp(ref, (x, bias), x)

    def ours(xv, b):
        return tj.nn.dot_product_attention(xv, xv, xv, bias=b, mask=mask)
    if use_vmap:  # (jax.vmap and jax.vjp over a function of tj ops: API.md's "one set of rules on every path")
        out, vjp = jax.vjp(jax.vmap(lambda a, b: ours(tj.Tensor(a), tj.Tensor(b)).value), x, bias)
        dx, dbias = vjp(jnp.asarray(x))
    else:
        xt, bt = tj.constant(x), tj.constant(bias)
        with tj.GradientTape() as tape:
            tape.watch([xt, bt])
            out = ours(xt, bt)
        dx, dbias = tape.gradient(out, [xt, bt], output_gradients=x)
    _close(out, out_ref, what="output")
    _close(dx, dx_ref, rtol=1e-4, atol=1e-5, what="x gradient")
    _close(dbias, dbias_ref, rtol=1e-4, atol=1e-5, what="bias gradient")
