"""Mismatches with TensorFlow 2.21 found by tools/tf_differential.py, pinned with hand-worked values.

Expected values come from TF's registered gradients (tensorflow/python/ops/math_grad.py), not from tapejax:
  FloorGrad, CeilGrad, RoundGrad, RintGrad, FloorDivGrad: None      (the gradient is None, not zeros)
  SignGrad: zeros for real x; tf.math.sign of a complex z is div_no_nan(z, |z|), so its gradient is that of
    z / |z| (0 at 0) in TF's complex convention (grad * conj(ds/dz) + conj(grad) * ds/dz-bar)
  PowGrad: the exponent's gradient is grad * conj(z) * log(conj(x)), masked to 0 only where x == 0 for a
    complex x (x <= 0 for a real one)
  RsqrtGrad: -0.5 * grad * y**3
  tf.norm (euclidean) is sqrt(sum(x * conj(x))): SqrtGrad gives 0 where the incoming gradient is 0, also at a
    zero vector; tf.norm(ord=1 / inf) is built from abs, whose gradient sign(x) is 0 at 0 (AbsGrad)
  SoftsignGrad: grad / (1 + |x|)**2;  Expm1Grad: grad * exp(x)
sinc's derivatives are pinned to float64 closed forms instead: TF's tf.experimental.numpy.sinc is a composite whose
gradient near 0 is rounding (NaN at 0), as jax.numpy's was.
"""
from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special

import tapejax as tj
from conftest import forward_over_reverse, nested_tape_gradients, to_numpy

tnp = tj.numpy


def _grad(f, x, output_gradients=None, unconnected="none"):
    x = tj.constant(x)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x, output_gradients=output_gradients, unconnected_gradients=unconnected)


def _jvp(f, x, t):
    x = tj.constant(x)
    with tj.ForwardAccumulator(x, tj.constant(t)) as acc:
        y = f(x)
    return acc.jvp(y)


# -- rounding ops and floor division: TF registers their gradients as None ---------------------------------

NO_GRADIENT = {
    "floor": tnp.floor, "ceil": tnp.ceil, "round": tnp.round, "rint": tnp.rint, "trunc": tnp.trunc,
    "floor_divide": lambda x: tnp.floor_divide(x, 0.7), "operator //": lambda x: x // 0.7,
}


@pytest.mark.parametrize("name", sorted(NO_GRADIENT))
def test_rounding_gradient_is_none(name):
    f = NO_GRADIENT[name]
    x = [0.4, 1.6, -2.3]
    assert _grad(f, x) is None
    np.testing.assert_array_equal(to_numpy(_grad(f, x, unconnected="zero")), [0.0, 0.0, 0.0])
    assert _jvp(f, x, [1.0, 1.0, 1.0]) is None


def test_rounding_gradient_is_none_inside_function_and_beside_other_ops():
    seen = []

    @tj.function
    def step(x):
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = tnp.sum(tnp.floor(x) * 3.0 + tnp.round(x))
        seen.append(tape.gradient(y, x, unconnected_gradients="none"))  # while tracing
        return tnp.sum(x)

    step(tj.constant([0.4, 1.6]))
    assert seen and all(g is None for g in seen)
    # a path through another op still gives its gradient (the rounding op adds nothing)
    np.testing.assert_array_equal(to_numpy(_grad(lambda x: tnp.floor(x) + x * 2.0, [0.4, 1.6])), [2.0, 2.0])


def test_rounding_values_unchanged():
    np.testing.assert_array_equal(to_numpy(tnp.round(tj.constant([0.5, 1.5, -2.5]))), [0.0, 2.0, -2.0])
    np.testing.assert_array_equal(to_numpy(tnp.floor_divide(tj.constant([7.0, -7.0]), 2.0)), [3.0, -4.0])
    np.testing.assert_array_equal(to_numpy(tj.constant([7, -7]) // 2), [3, -4])


# -- sign -------------------------------------------------------------------------------------------------

def test_sign_real_gradient_is_zeros():
    np.testing.assert_array_equal(to_numpy(_grad(tnp.sign, [-2.0, 0.0, 3.0])), [0.0, 0.0, 0.0])


def test_complex_sign_gradient_is_that_of_z_over_abs_z():
    # s = z/|z| at z = 3+4i, r = 5: ds/dz = 1/(2r) = 0.1, ds/dz-bar = -z^2/(2 r^3) = (7 - 24i)/250.
    # TF: grad * conj(ds/dz) + conj(grad) * ds/dz-bar; with grad = 1: 0.128 - 0.096i (= d(x/r)/dx + i d(x/r)/dy).
    z = np.asarray([3 + 4j, 0j], np.complex64)
    g = to_numpy(_grad(tnp.sign, z, output_gradients=tj.constant(np.ones(2, np.complex64))))
    np.testing.assert_allclose(g, [0.128 - 0.096j, 0.0], atol=1e-6)
    # forward: ds = ds/dz t + ds/dz-bar conj(t); t = 1: 0.128 - 0.096i; t = i: -0.096 + 0.072i
    t = to_numpy(_jvp(tnp.sign, z[:1], np.asarray([1j], np.complex64)))
    np.testing.assert_allclose(t, [-0.096 + 0.072j], atol=1e-6)


# -- power with a complex base: only x == 0 masks the exponent's gradient ---------------------------------

def test_complex_power_exponent_gradient_at_negative_real_part():
    # x = -1 + i, y = 2: z = x**2 = -2i. TF: gy = grad * conj(z) * log(conj(x)) = 2i * (ln(sqrt 2) - 3pi/4 i)
    # = 3pi/2 + i ln 2 for grad = 1.
    x = tj.constant(np.asarray([-1 + 1j], np.complex64))
    y = tj.constant(np.asarray([2 + 0j], np.complex64))
    with tj.GradientTape() as tape:
        tape.watch(y)
        z = tnp.power(x, y)
    gy = to_numpy(tape.gradient(z, y, output_gradients=tj.constant(np.ones(1, np.complex64))))
    np.testing.assert_allclose(gy, [1.5 * np.pi + 1j * np.log(2.0)], rtol=1e-5)
    # forward: z * log(x) * t_y = -2i (ln(sqrt 2) + 3pi/4 i) = 3pi/2 - i ln 2
    with tj.ForwardAccumulator(y, tj.constant(np.ones(1, np.complex64))) as acc:
        z = tnp.power(x, y)
    np.testing.assert_allclose(to_numpy(acc.jvp(z)), [1.5 * np.pi - 1j * np.log(2.0)], rtol=1e-5)


def test_complex_power_exponent_gradient_zero_at_zero_base():
    x = tj.constant(np.asarray([0j], np.complex64))
    y = tj.constant(np.asarray([2 + 0j], np.complex64))
    with tj.GradientTape() as tape:
        tape.watch(y)
        z = tnp.power(x, y)
    np.testing.assert_array_equal(to_numpy(tape.gradient(z, y)), [0j])


# -- rsqrt at -0.0 ----------------------------------------------------------------------------------------

def test_rsqrt_gradient_at_negative_zero():
    # y = rsqrt(-0.0) = -inf; RsqrtGrad: -0.5 * grad * y**3 = +inf for grad = 1
    g = to_numpy(_grad(tnp.rsqrt, [-0.0, 4.0]))
    assert g[0] == np.inf
    np.testing.assert_allclose(g[1], -0.5 * 0.5 ** 3)
    t = to_numpy(_jvp(tnp.rsqrt, [-0.0, 4.0], [1.0, 1.0]))
    assert t[0] == np.inf


# -- float16 tangents stay float16 ------------------------------------------------------------------------

def test_erf_float16_tangent_dtype():
    t = _jvp(tnp.erf, np.asarray([0.5], np.float16), np.asarray([1.0], np.float16))
    assert t.dtype == np.float16
    np.testing.assert_allclose(to_numpy(t, np.float32), [2 / np.sqrt(np.pi) * np.exp(-0.25)], rtol=1e-3)


# -- norms --------------------------------------------------------------------------------------------------

ZERO_ROW = np.asarray([[0.0, 0.0], [3.0, 4.0]], np.float32)


def test_euclidean_norm_zero_vector_with_zero_incoming_gradient():
    # SqrtGrad: 0.5 * g / y is 0 where g is 0 (y = 0 here); row 2: g * x / |x| = 2 * (0.6, 0.8)
    g = _grad(lambda x: tnp.linalg.norm(x, axis=1), ZERO_ROW, output_gradients=tj.constant([0.0, 2.0]))
    np.testing.assert_allclose(to_numpy(g), [[0.0, 0.0], [1.2, 1.6]], rtol=1e-6)


def test_euclidean_norm_of_masked_rows_has_no_nan():
    mask = tj.constant([False, True])
    g = _grad(lambda x: tnp.sum(tnp.where(mask, tnp.linalg.norm(x, axis=1), 0.0)), ZERO_ROW)
    np.testing.assert_allclose(to_numpy(g), [[0.0, 0.0], [0.6, 0.8]], rtol=1e-6)


def test_euclidean_norm_zero_vector_with_nonzero_gradient_is_nan():
    # as TF: 0.5 * g / 0 = inf, times 2x = 0: NaN (the derivative is undefined there)
    g = to_numpy(_grad(lambda x: tnp.linalg.norm(x, axis=1), ZERO_ROW))
    assert np.isnan(g[0]).all()


def test_euclidean_norm_zero_vector_tangent():
    # tangent of |x|^2 is 2 x.t = 0 at x = 0: the tangent is 0 (the same rule as tj.numpy.sqrt forward)
    t = to_numpy(_jvp(lambda x: tnp.linalg.norm(x, axis=1), ZERO_ROW, np.ones((2, 2), np.float32)))
    np.testing.assert_allclose(t, [0.0, 0.6 + 0.8], rtol=1e-6)


def test_euclidean_norm_complex_gradient():
    # TF: g * z / |z|
    g = to_numpy(_grad(lambda z: tnp.linalg.norm(z), np.asarray([3 + 4j], np.complex64)))
    np.testing.assert_allclose(g, [0.6 + 0.8j], rtol=1e-6)


@pytest.mark.parametrize("ord,axis", [(None, None), (2, 1), ("fro", (0, 1)), (None, (0, 1))])
def test_euclidean_norm_values_as_jax(ord, axis):
    x = np.asarray([[1.0, -2.0, 2.0], [0.5, 0.0, 3.0]], np.float32)
    want = np.linalg.norm(x.astype(np.float64), ord=ord, axis=axis)
    np.testing.assert_allclose(to_numpy(tnp.linalg.norm(tj.constant(x), ord=ord, axis=axis)), want, rtol=1e-6)


def test_l1_norm_gradient_zero_at_zero():
    # AbsGrad: sign(x), 0 at 0
    g = _grad(lambda x: tnp.linalg.norm(x, ord=1), [0.0, -2.0, 3.0])
    np.testing.assert_array_equal(to_numpy(g), [0.0, -1.0, 1.0])
    np.testing.assert_allclose(to_numpy(_jvp(lambda x: tnp.linalg.norm(x, ord=1), [0.0, -2.0, 3.0],
                                             [5.0, 1.0, 2.0])), 1.0)


def test_inf_norm_ties_share_gradient():
    # reduce_max of |x| = (1, 3, 3): ties share the gradient equally, times sign(x)
    g = _grad(lambda x: tnp.linalg.norm(x, ord=np.inf), [1.0, -3.0, 3.0])
    np.testing.assert_allclose(to_numpy(g), [0.0, -0.5, 0.5])


def test_matrix_one_norm_gradient():
    # column sums of |x| = (0, 4, 3): the max is column 1, gradient sign(x) there
    x = [[0.0, 1.0, -2.0], [0.0, -3.0, 1.0]]
    g = _grad(lambda t: tnp.linalg.norm(t, ord=1), x)
    np.testing.assert_array_equal(to_numpy(g), [[0.0, 1.0, 0.0], [0.0, -1.0, 0.0]])
    np.testing.assert_allclose(to_numpy(tnp.linalg.norm(tj.constant(x), ord=np.inf)), 4.0)  # row sums (3, 4)


@pytest.mark.parametrize("ord,axis", [(1, 0), (np.inf, 1), (-np.inf, 1), (3, 1), (0.5, 0), (1, (0, 1)),
                                      (np.inf, (0, 1)), (-1, (0, 1)), (-np.inf, (0, 1)), (0, 1)])
def test_other_norm_values_as_numpy(ord, axis):
    x = np.asarray([[1.0, -2.0, 2.0], [0.5, 0.0, 3.0]], np.float32)
    want = np.linalg.norm(x.astype(np.float64), ord=ord, axis=axis)
    for keepdims in (False, True):
        got = tnp.linalg.norm(tj.constant(x), ord=ord, axis=axis, keepdims=keepdims)
        want_k = np.linalg.norm(x.astype(np.float64), ord=ord, axis=axis, keepdims=keepdims)
        np.testing.assert_allclose(to_numpy(got), want_k, rtol=1e-5)
    assert np.shape(want) == tuple(tnp.linalg.norm(tj.constant(x), ord=ord, axis=axis).shape)


def test_the_exponents_second_derivative_through_a_zero_gradient():
    # TF 2.21: with tf.GradientTape nested, tf.reduce_sum(tf.math.reduce_variance(tf.abs(x) ** y, axis=0)) at
    # x = [[2], [-0.5]], y = [0]: first derivative [0.] (equal rows: a zero gradient reaches pow), second
    # [0.960906] (PowGrad's grad * z * log_x is a plain product: its derivative in grad stays z * log_x). Path
    # fuzz seed 10908 found the 0 a `where(grad == 0, ...)` gave; JAX gives TF's value too.
    x = tj.constant([[2.0], [-0.5]])
    y = tj.constant([0.0])
    with tj.GradientTape() as outer:
        outer.watch(y)
        with tj.GradientTape() as inner:
            inner.watch(y)
            out = tnp.sum(tnp.var(tnp.abs(x) ** y, axis=0))
        g = inner.gradient(out, y)
    np.testing.assert_array_equal(g.numpy(), [0.0])
    np.testing.assert_allclose(outer.gradient(g, y).numpy(), [0.960906], rtol=1e-5)
    # and in forward mode over it: the same second derivative along a unit tangent
    with tj.ForwardAccumulator(y, tj.constant([1.0])) as acc:
        with tj.GradientTape() as tape:
            tape.watch(y)
            out = tnp.sum(tnp.var(tnp.abs(x) ** y, axis=0))
        g = tape.gradient(out, y)
    np.testing.assert_allclose(acc.jvp(g).numpy(), [0.960906], rtol=1e-5)


def test_soft_sign_gradient_is_softsign_grad_also_at_infinities():
    # TF's SoftsignGrad, g / (1 + |x|)**2: 0 at +-inf and for huge |x|, where the quotient rule of x / (|x| + 1)
    # gave inf / inf = NaN (tools/tf_differential.py, soft_sign f32 corner); 1 at 0, 1/9 at 2, 4/9 at -0.5.
    x = np.array([np.inf, -np.inf, 1e30, -3e38, 0.0, -0.0, 2.0, -0.5], np.float32)
    want = np.array([0, 0, 0, 0, 1, 1, 1 / 9, 4 / 9], np.float32)
    np.testing.assert_allclose(_grad(tj.nn.soft_sign, x).numpy(), want, rtol=1e-6, atol=0)
    np.testing.assert_allclose(_jvp(tj.nn.soft_sign, x, np.ones_like(x)).numpy(), want, rtol=1e-6, atol=0)
    # the second derivative, -2 sign(x) / (1 + |x|)**3: 0 at 0 (|x|'s derivative 0 there, TF's), -2 at 1e-30
    x2 = np.array([0.0, 1e-30, 2.0, -0.5, 1e30], np.float32)
    np.testing.assert_allclose(nested_tape_gradients(tj.nn.soft_sign, x2)[2].numpy(), [0, -2, -2 / 27, 16 / 27, 0],
                               rtol=1e-6, atol=0)


def _sinc_derivatives_float64(x):
    """sinc'(x) and sinc''(x) in float64: from sin and cos away from 0, the Maclaurin series within |x| < 1e-3
    (where float64's cancellation would cost more than float32's rounding)."""
    x = x.astype(np.float64)
    y = np.pi * x
    small = np.abs(x) < 1e-3
    xs = np.where(small, 1.0, x)
    s = np.sin(np.pi * xs) / (np.pi * xs)
    d1 = (np.cos(np.pi * xs) - s) / xs
    d2 = (-np.pi * np.sin(np.pi * xs) - 2 * d1) / xs  # ((x sinc)'' = -pi sin(pi x))
    return (np.where(small, np.pi * (-y / 3 + y ** 3 / 30), d1),
            np.where(small, np.pi ** 2 * (-1 / 3 + y ** 2 / 10), d2))


def test_sinc_derivatives_are_accurate_near_zero():
    # tools/tf_differential.py (sinc, f32 corner): jax.numpy's derivative of sinc, the quotient rule of
    # sin(pi x) / (pi x), cancels to rounding for small x in float32: -inf at 1e-30, -8.6e11 at 1e-19, -6.1e-3 at
    # 1e-5 (the derivative is -3.3e-5). TF's composite is no better (0 at 1e-5, NaN at 0). tapejax's rule
    # (ops/numpy.py, _sinc_derivative) is the series there: within float32 rounding of the float64 derivatives.
    x = np.array([0.0, 1e-30, -1e-19, 1e-10, 1e-5, -1e-3, 0.05, 0.3, 0.33, -0.7, 2.5], np.float32)
    d1, d2 = _sinc_derivatives_float64(x)
    np.testing.assert_allclose(_grad(tnp.sinc, x).numpy(), d1, rtol=2e-5, atol=0)
    np.testing.assert_allclose(_jvp(tnp.sinc, x, np.ones_like(x)).numpy(), d1, rtol=2e-5, atol=0)
    np.testing.assert_allclose(nested_tape_gradients(tnp.sinc, x)[2].numpy(), d2, rtol=2e-5, atol=0)
    np.testing.assert_array_equal(tnp.sinc(tj.constant(x)).numpy(), np.asarray(jax.numpy.sinc(x)))  # (jax's values)


def test_expm1_gradient_is_exp_of_x_as_tf():
    # TF's Expm1Grad, grad * exp(x): jax's derivative y + 1 rounds -1 + exp(x) in float32, 3% off at x = -15 and 0
    # at -20 and -30 (a scan of the elementwise ops' derivatives against float64 found it; TF's values are exp(x))
    x = np.array([-50.0, -30.0, -20.0, -15.0, -5.0, -1e-3, 0.0, 0.5, 3.0], np.float32)
    want = np.exp(x.astype(np.float64))
    np.testing.assert_allclose(_grad(tnp.expm1, x).numpy(), want, rtol=1e-6, atol=0)
    np.testing.assert_allclose(_jvp(tnp.expm1, x, np.ones_like(x)).numpy(), want, rtol=1e-6, atol=0)


def test_sinc_derivative_in_half_precision_warns_of_nothing():
    # the series' coefficients must not be divisors past float16's 65504 (a RuntimeWarning: overflow in cast)
    x = np.array([0.0, 1e-3, 0.1, 0.3, 0.5, 2.5], np.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = _grad(tnp.sinc, x).numpy()
    np.testing.assert_allclose(got, _sinc_derivatives_float64(x)[0], rtol=4e-3, atol=2e-3)  # (float16 rounding of pi x)


@pytest.mark.parametrize("f, alpha, scale", [(lambda x: tj.nn.selu(x), 1.6732632423543772, 1.0507009873554805),
                                             (lambda x: tj.nn.elu(x, 2.0), 2.0, 1.0),
                                             (lambda x: tj.nn.elu(x), 1.0, 1.0)], ids=["selu", "elu 2", "elu"])
def test_elu_values_below_exp_rounding_are_jax_nns(f, alpha, scale):
    """At a negative x too small for exp(x) to round below 1, the value is scale * alpha * expm1(x) (jax.nn's; the
    float64 closed form): selu(-1e-10) was -1.0507e-10, x times the scale, where the value is -1.7581e-10 (TF's
    exp(x) - 1 gives 0). The derivative there stays TF's EluGrad/SeluGrad branch on its output being < 0: the linear
    side's, the scale, with second derivative 0."""
    x = np.array([-1e-10, -1e-20, -3e-8, -1e-6, -0.5], np.float32)
    y, g, h = nested_tape_gradients(f, x)
    np.testing.assert_allclose(y.numpy(), scale * alpha * np.expm1(x.astype(np.float64)), rtol=1e-6)
    np.testing.assert_allclose(g.numpy()[:2], [scale, scale], rtol=1e-6)
    np.testing.assert_array_equal(h.numpy()[:2], [0.0, 0.0])
    np.testing.assert_allclose(g.numpy()[3:], scale * alpha * np.exp(x[3:].astype(np.float64)), rtol=1e-6)


@pytest.mark.parametrize("scale", [1.0, 1e13, 1e18])
def test_layer_norm_gradient_keeps_the_variance_term_at_large_values(scale):
    """layer_norm's gradient at values of 1e13 and 1e18 (variances past 1e25): TF's Rsqrt gradient, RsqrtGrad,
    multiplies the incoming gradient by y before y * y; JAX's rule for rsqrt, g * y / x, underflowed to 0 there,
    dropping the variance's part of the gradient (up to 50% off at 1e18; TF 2.21 matches the float64 values).
    Expected: the float64 gradient of (x - mean) / sqrt(var + 1e-5)."""
    x = (np.array([[0.3, -1.2, 0.8, 2.0, -0.4, 0.1], [1.0, 2.0, 3.0, -1.0, 0.5, -2.5]]) * scale).astype(np.float32)
    w = np.array([[1.3, 0.6, 0.9, 1.1, 0.7, 1.4], [0.5, 1.5, 1.0, 0.8, 1.2, 0.6]], np.float32)
    xt = tj.constant(x)
    with tj.GradientTape() as tape:
        tape.watch(xt)
        loss = tnp.sum(tj.constant(w) * tj.nn.layer_norm(xt))
    got = tape.gradient(loss, xt).numpy()
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    c = x64 - x64.mean(-1, keepdims=True)
    s = np.sqrt((c * c).mean(-1, keepdims=True) + 1e-5)
    gy = w64 / s  # d loss / d x: (w - mean(w)) / s - c * mean(w * c) / s**3
    want = gy - gy.mean(-1, keepdims=True) - c * (w64 * c).mean(-1, keepdims=True) / s ** 3
    np.testing.assert_allclose(got, want, rtol=2e-4, atol=1e-6 * np.abs(want).max())


# -- found by tools/forward_reverse_scan.py ---------------------------------------------------------------------

def test_arctan2_rules_are_atan2grads_order():
    # TF's Atan2Grad: grad_inv = grad / (x1**2 + x2**2), then x2 * grad_inv and -x1 * grad_inv; its forward mode,
    # that transposed, (t1 * x2 - t2 * x1) / (x1**2 + x2**2). Hand-worked (and TF 2.21's) values: at (1e20, 1e20)
    # the squares overflow, so grad / inf = 0 (g * x2 first gave 1e50 = inf, inf / inf = NaN); at (1e-30, 0) they
    # underflow to 0, and -t2 * 1e-30 / 0 = -inf; at (1, 2): (1 * 2 - (-1) * 1) / 5 = 0.6
    a, b = tj.constant(np.array([1e-30, 1e20, 1.0], np.float32)), tj.constant(np.array([0.0, 1e20, 2.0], np.float32))
    with tj.ForwardAccumulator([a, b], [tj.constant(np.ones(3, np.float32)),
                                        tj.constant(np.array([1.0, 0.5, -1.0], np.float32))]) as acc:
        y = tnp.arctan2(a, b)
    np.testing.assert_array_equal(acc.jvp(y).numpy(), np.array([-np.inf, 0.0, 0.6], np.float32))
    with tj.GradientTape() as tape:
        tape.watch([a, b])
        y = tnp.arctan2(a, b)
    ga, gb = tape.gradient(y, [a, b], output_gradients=tj.constant(np.full(3, 1e30, np.float32)))
    # (at (1e-30, 0): 0 * (1e30 / 0) = NaN and -1e-30 * inf = -inf, as TF's)
    np.testing.assert_array_equal(ga.numpy(), np.array([np.nan, 0.0, 4e29], np.float32))
    np.testing.assert_array_equal(gb.numpy(), np.array([-np.inf, 0.0, -2e29], np.float32))
    # forward over reverse at (1e20, 1e20): d/dx1 of x2 * (g / (x1**2 + x2**2)) is 0 there (TF: 0; it was NaN)
    x1, x2 = tj.constant(np.float32(1e20)), tj.constant(np.float32(1e20))
    with tj.ForwardAccumulator(x1, tj.constant(np.float32(1.0))) as acc:
        with tj.GradientTape() as tape:
            tape.watch(x1)
            y = tnp.arctan2(x1, x2)
        g = tape.gradient(y, x1)
    assert float(acc.jvp(g)) == 0.0


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_det_second_derivative_scales_with_the_matrix(n):
    # det is homogeneous of degree n, so its Hessian-vector product at s * M is s**(n - 2) times that at M: JAX's
    # rule (its cofactor solve) divides by the product of n - 1 pivots and, differentiated, squares it, which
    # overflowed float32 for entries of 1e-7 (n = 4): NaN, where TF 2.21's det * A^-T gives -3.4065551e-14 for the
    # first entry of tools/forward_reverse_scan.py's case. s a power of two: both sides are the same rounding.
    rng = np.random.default_rng(n)
    m = rng.standard_normal((n, n)).astype(np.float32)
    v = tj.constant(rng.uniform(0.5, 1.5, (n, n)).astype(np.float32))

    def hvp(a):
        x = tj.constant(a)
        with tj.GradientTape() as outer:
            outer.watch(x)
            with tj.GradientTape() as inner:
                inner.watch(x)
                d = tnp.linalg.det(x)
            s = tnp.sum(inner.gradient(d, x) * v)
        return outer.gradient(s, x).numpy()
    s = np.float32(2.0 ** -24)  # (6e-8)
    want = hvp(m)
    np.testing.assert_allclose(hvp(m * s) / s ** (n - 2), want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_det_second_derivative_of_a_badly_scaled_matrix_is_finite(dtype):
    # One large entry among small ones (a 9x9 matrix of 4 on the diagonal, 4000 at the corner): the product p of the
    # LU's first 8 pivots is ~2**26, and at the matrix scaled by its largest magnitude (2**12) 2**-70, whose square,
    # in the second derivative of JAX's cofactor rule, underflowed: NaN (tf_complex_differential seed 914982, a
    # complex 9x9 of entries up to 4e3). Reference: the float64 Hessian-vector product of det,
    # det * tr(A^-1 V) * A^-T - det * (A^-1 V A^-1)^T (for real A; for complex A, its conjugate for L = Re(det)).
    n = 9
    rng = np.random.default_rng(0)
    a = 4 * np.eye(n) + 0.1 * rng.standard_normal((n, n))
    if dtype == np.complex64:
        a = a + 0.1j * rng.standard_normal((n, n))
    a[0, 0] = 4000
    a = a.astype(dtype)
    v = rng.uniform(0.5, 1.5, (n, n)).astype(dtype)
    _, _, got = nested_tape_gradients(lambda x: tnp.real(tnp.linalg.det(x)), a, outer_gradients=tj.constant(v))
    got = got.numpy()
    A, V = a.astype(np.complex128), v.astype(np.complex128)
    inv = np.linalg.inv(A)
    want = np.conj(np.linalg.det(A) * (np.trace(inv @ V) * inv.T - (inv @ V @ inv).T))
    want = want if dtype == np.complex64 else want.real
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * np.abs(want).max())


def test_det_gradient_overflowing_is_signed_infinities_as_tf():
    # a 4x4 matrix of entries near 1e15: det and its gradient det * A^-T pass float32's range; TF 2.21 gives
    # +-inf with the signs of det * A^-T (JAX's cofactor rule gave 0, then NaN)
    m = np.random.default_rng(7).standard_normal((4, 4)).astype(np.float32)
    a = m * np.float32(1e15)
    g = _grad(tnp.linalg.det, a).numpy()
    want = np.sign(np.linalg.det(m.astype(np.float64))) * np.sign(np.linalg.inv(m.astype(np.float64)).T) * np.inf
    np.testing.assert_array_equal(g, want.astype(np.float32))


def test_cbrt_second_derivative_is_zero_at_infinities():
    # cbrt''(x) = -2/9 * x**(-5/3): 0 at +-inf, as TF 2.21's (tf.experimental.numpy.cbrt, a PowGrad of |x|**(1/3):
    # nested tapes give [0, 0]); the quotient 1 / (3 * y * y) differentiated there met 0 * inf (NaN). At 8 and -8:
    # -2/9 * 2**-5 = -1/144 and +1/144; the first derivatives 1/12 and 0 at the infinities.
    x = [np.inf, -np.inf, 8.0, -8.0]
    _, g, h = nested_tape_gradients(tnp.cbrt, x)
    np.testing.assert_allclose(g.numpy(), [0, 0, 1 / 12, 1 / 12], rtol=1e-6)
    np.testing.assert_allclose(h.numpy(), [0, 0, -1 / 144, 1 / 144], rtol=1e-6)
    fr = forward_over_reverse(tnp.cbrt, x, np.ones(4, np.float32))
    np.testing.assert_allclose(fr.numpy(), [0, 0, -1 / 144, 1 / 144], rtol=1e-6)


def _finite_half_values(dtype: str) -> np.ndarray:
    """Every finite value of float16, or of bfloat16 from 2**-120 on (XLA's CPU flushes float32 subnormals, which
    intermediates below that reach)."""
    bits = np.arange(0, 0x7C00 if dtype == "float16" else 0x7F80, dtype=np.uint16)
    x = np.concatenate([bits, bits | 0x8000]).view(jnp.dtype(dtype))
    return x if dtype == "float16" else x[np.abs(x.astype(np.float64)) >= 2.0 ** -120]


_HALF_REFERENCES = {  # numpy's float64 functions: the exact value, rounded once to the half type below
    "expm1": np.expm1, "arcsin": np.arcsin, "arccos": np.arccos, "arcsinh": np.arcsinh, "arccosh": np.arccosh,
    "arctanh": np.arctanh, "exp2": np.exp2, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
}


@pytest.mark.parametrize("name", sorted(_HALF_REFERENCES))
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_functions_are_the_exact_value_rounded_once(name, dtype):
    # TF's float16 kernels compute in float32 and round once: asinh, atanh, asin, expm1 are correctly rounded on
    # all but 0-8 of the 63,488 finite float16 values (TF 2.21). XLA's half-precision expansions were off on
    # 500-11,000 of them, by up to 100%: expm1(2e-7) gave 2.4e-7, arcsin(6e-8) gave 0, arcsinh(65504) 11.79 (TF's
    # 11.78, as ln(2 * 65504)). bfloat16 below 2**-120 is left out: XLA's CPU flushes subnormals to 0, its float32
    # arcsin's intermediates too.
    half, x = jnp.dtype(dtype), _finite_half_values(dtype)
    with np.errstate(all="ignore"):
        want = _HALF_REFERENCES[name](x.astype(np.float64)).astype(half).astype(np.float64)
    if dtype == "bfloat16":
        keep = ~(np.abs(want) < 1.2e-38) | (want == 0)
        x, want = x[keep], want[keep]
    got = np.asarray(getattr(tnp, name)(tj.constant(x)).numpy()).astype(np.float64)
    wrong = ~((got == want) | (np.isnan(got) & np.isnan(want)))
    assert wrong.sum() <= 10, (name, dtype, int(wrong.sum()), x[wrong][:5], got[wrong][:5], want[wrong][:5])
    np.testing.assert_allclose(got[wrong], want[wrong], rtol=2 * float(jnp.finfo(half).eps))
    if (name, dtype) == ("arcsinh", "float16"):
        assert tnp.arcsinh(tj.constant(np.float16(65504))).numpy() == np.float16(11.78125)


def _stable_squareplus(x):
    root = np.hypot(x, 2.0)
    return np.where(x < 0, 4 / (2 * (root - x)), (x + root) / 2)


_HALF_ACTIVATIONS = {  # float64 references: the exact value, rounded once to the half type below
    "silu": lambda x: x * scipy.special.expit(x), "log_sigmoid": lambda x: -np.logaddexp(0, -x),
    "softplus": lambda x: np.logaddexp(x, 0), "mish": lambda x: x * np.tanh(np.logaddexp(x, 0)),
    "gelu": lambda x: x * scipy.special.ndtr(x), "elu": lambda x: np.where(x > 0, x, np.expm1(x)),
    "selu": lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
    "celu": lambda x: np.where(x > 0, x, np.expm1(x)), "soft_sign": lambda x: x / (1 + np.abs(x)),
    "squareplus": _stable_squareplus,
    "sparse_plus": lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4)),
    "log1mexp": lambda x: np.where(x > np.log(2), np.log1p(-np.exp(-x)), np.log(-np.expm1(-x))),
    "hard_sigmoid": lambda x: np.clip(x + 3, 0, 6) / 6, "hard_silu": lambda x: x * np.clip(x + 3, 0, 6) / 6,
}


@pytest.mark.parametrize("name", sorted(_HALF_ACTIVATIONS))
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_activations_are_the_exact_value_rounded_once(name, dtype):
    # tj.nn's activations compute float16 and bfloat16 in float32 and round once; jax.nn's formulas, rounding at
    # every step in the half type, were off on up to 80% of the values: selu by 1-2 ulps on 51,000 of the bfloat16
    # ones, mish on 12,000 float16 ones, elu(-2e-7) 33% in float16, squareplus 300% at -122 (and 0 in float32 past
    # -4e3, its cancellation: now b / (2 (root - x)) below 0). (gelu's tanh approximation is left out: its own
    # formula cancels below -3.)
    half, x = jnp.dtype(dtype), _finite_half_values(dtype)
    if name == "log1mexp":
        x = x[x > 0]
    with np.errstate(all="ignore"):
        want = _HALF_ACTIVATIONS[name](x.astype(np.float64)).astype(half).astype(np.float64)
    keep = ~(np.abs(want) < float(jnp.finfo(half).tiny)) | (want == 0)  # (subnormal results: XLA's CPU flushes)
    x, want = x[keep], want[keep]
    f = (lambda t: tj.nn.gelu(t, approximate=False)) if name == "gelu" else getattr(tj.nn, name)
    got = np.asarray(f(tj.constant(x)).numpy()).astype(np.float64)
    wrong = ~((got == want) | (np.isnan(got) & np.isnan(want)))
    assert wrong.sum() <= 10, (name, dtype, int(wrong.sum()), x[wrong][:5], got[wrong][:5], want[wrong][:5])
    # (bfloat16 values below 1e-36 of x * sigmoid(x) and the like: a float32 factor below its smallest normal,
    # flushed to 0 by XLA's CPU)
    atol = 2.0 ** -119 if dtype == "bfloat16" else float(jnp.finfo(half).smallest_subnormal)
    np.testing.assert_allclose(got[wrong], want[wrong], rtol=float(jnp.finfo(half).eps), atol=atol)


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_running_sums_and_products_are_accumulated_in_float32(name, dtype):
    # each prefix the exact value rounded once, as jax.numpy's sum in half precision (accumulated in the half type,
    # prefixes of 64 x 32 normal draws were off by up to 25,600 ulps where they cancel; TF's and NumPy's alike)
    half = jnp.dtype(dtype)
    rng = np.random.default_rng(11)
    x = (rng.standard_normal((64, 32)) * 3 if name == "cumsum" else rng.uniform(0.5, 1.8, (64, 32))).astype(half)
    exact = getattr(np, name)(x.astype(np.float64), axis=1)
    want = exact.astype(np.float32).astype(half).astype(np.float64)  # (within an ulp of float32's rounding)
    got = getattr(tnp, name)(tj.constant(x), axis=1).numpy().astype(np.float64)
    np.testing.assert_allclose(got, want, rtol=float(jnp.finfo(half).eps), atol=float(jnp.finfo(half).eps))
    assert np.mean(got == want) > 0.99


def _normalized(x, axis):
    mean = x.mean(axis=axis, keepdims=True)
    return (x - mean) / np.sqrt(((x - mean) ** 2).mean(axis=axis, keepdims=True) + 1e-5)


_HALF_NORMALIZATIONS = {  # (tapejax function, float64 reference)
    "layer_norm": (lambda x: tj.nn.layer_norm(x), lambda x: _normalized(x, -1)),
    "standardize": (lambda x: tj.nn.standardize(x, algorithm="stable"), lambda x: _normalized(x, -1)),
    "batch_norm": (lambda x: tj.nn.batch_norm(x, tnp.ones(96, x.dtype), tnp.zeros(96, x.dtype), epsilon=1e-5)[0],
                   lambda x: _normalized(x, 0)),
    "avg_pool": (lambda x: tj.nn.avg_pool(tnp.reshape(x, (4, 16, 12, 8)), (3, 3), (1, 1)),
                 lambda x: np.lib.stride_tricks.sliding_window_view(x.reshape(4, 16, 12, 8), (3, 3), axis=(1, 2))
                 .mean(axis=(-2, -1))),
}


@pytest.mark.parametrize("name", sorted(_HALF_NORMALIZATIONS))
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_normalizations_are_computed_in_float32(name, dtype):
    # the moments and the window sums in float32, the result rounded once, as Keras's LayerNormalization and TF's
    # FusedBatchNorm compute (its parameters float32): in the half type x - mean cancelled, 100-200 ulps off (of the
    # largest result) on two thirds of these values; TF's and jax's pooling sum in the half type, as tapejax did
    half = jnp.dtype(dtype)
    rng = np.random.default_rng(12)
    x = (rng.standard_normal((64, 96)) * 3 + 5).astype(half)
    f, reference = _HALF_NORMALIZATIONS[name]
    got = np.asarray(f(tj.constant(x)).numpy()).astype(np.float64)
    want = reference(x.astype(np.float64))
    assert got.shape == want.shape
    rounded = want.astype(half).astype(np.float64)
    assert np.mean(got == rounded) > 0.99
    np.testing.assert_allclose(got, want, rtol=float(jnp.finfo(half).eps), atol=float(jnp.finfo(half).eps))


@pytest.mark.parametrize("name", ["floor_divide", "hypot"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_binary_functions_are_numpys(name, dtype):
    # NumPy's (and ml_dtypes') half floor_divide and hypot compute in float32 and round once; jax.numpy's
    # floor_divide, in the half type, was off by one on 1.5% of these pairs (-0.501 // -0.0008183 gave 613 in
    # float16; NumPy and TF: 612), tapejax's scaled hypot 1.5 ulps off on 15% (hypot(-5.84, 0.961) 5.875 in
    # bfloat16, where the value rounds to 5.9375). hypot in float32 is a few float32 ulps off: rounded again, a
    # value within those of a half-way point may round the other way (2 of these 20,000 bfloat16 pairs).
    half = jnp.dtype(dtype)
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.standard_normal(4000) * s for s in (1e-3, 1, 10, 100, 1e4)]).astype(half)
    y = rng.permutation(x)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(x, y).astype(np.float64)
    got = np.asarray(getattr(tnp, name)(tj.constant(x), tj.constant(y)).numpy()).astype(np.float64)
    wrong = ~((got == want) | (np.isnan(got) & np.isnan(want)))
    assert wrong.sum() <= (0 if name == "floor_divide" else 3), (
        dtype, int(wrong.sum()), x[wrong][:4], y[wrong][:4], got[wrong][:4], want[wrong][:4])
    np.testing.assert_allclose(got[wrong], want[wrong], rtol=float(jnp.finfo(half).eps))
    assert np.isfinite(want).mean() > 0.9


def test_integer_power_second_derivative_through_a_zero_gradient_at_overflow():
    # x ** 3 at x = -3e38 with a zero output gradient: TF 2.21's nested tapes give a gradient 0 and a second
    # derivative -0 (PowGrad's (grad * 3) * x ** 2 and its own PowGrad: 0 before any overflowing factor); JAX's
    # rule of x ** 2 formed 0 * (2 * x), 2 * x = -inf: NaN. At x = 2 with gradient 1: 3 * 4 = 12 and 6 * 2 = 12.
    _, g, h = nested_tape_gradients(lambda x: x ** 3, [-3e38, 2.0], output_gradients=tj.constant([0.0, 1.0]))
    np.testing.assert_array_equal(g.numpy(), [0, 12])
    np.testing.assert_array_equal(h.numpy(), [0, 12])


def test_power_exponent_second_derivative_agrees_forward_and_reverse_at_masked_bases():
    # d/dy of TF's PowGrad for the exponent, g * z * log_x, with log_x masked to 0 at a base <= 0 where z = x**y is
    # infinite ((-0.5)**-1e20, 0**-1e20): reverse over reverse gives 0 (the zero cotangent log_x leaves meets the
    # no-NaN rules); forward over reverse formed inf * 0 = NaN there (forward_reverse_scan, 84 points). At (2, 3):
    # z * log(2)**2 = 8 * 0.480453 = 3.843624 both ways.
    x = tj.constant([-0.5, 0.0, 2.0])
    y = [-1e20, -1e20, 3.0]
    want = [0.0, 0.0, 8 * np.log(2.0) ** 2]
    fr = forward_over_reverse(lambda y: tnp.power(x, y), y, np.ones(3, np.float32))
    np.testing.assert_allclose(fr.numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(nested_tape_gradients(lambda y: tnp.power(x, y), y)[2].numpy(), want, rtol=1e-6)
