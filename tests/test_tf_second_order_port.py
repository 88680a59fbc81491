"""Second-order derivatives of unary ops where the first derivative is infinite, compared with TF 2.21.

TF writes these gradients with ops whose own gradients are no-NaN kernels (math_grad.py: LogGrad is
``grad * reciprocal(x)``, AsinGrad ``grad * reciprocal(sqrt(1 - square(x)))``, ReciprocalGrad, RsqrtGrad and
SqrtGrad return 0 for a zero incoming gradient, and ``_ReciprocalGradGrad``, ``_RsqrtGradGrad``,
``_SqrtGradGrad`` differentiate them), so a zero gradient of the gradient gives 0 where JAX's derivative of the
same formula gives ``0 * inf = NaN``; and the derivative with respect to the incoming gradient at a zero
gradient is the derivative itself, not 0. Expected values are TF 2.21's (eager, float32 unless said), from::

    x, g = tf.constant(x0), tf.constant(g0)
    with tf.GradientTape(persistent=True) as outer:
        outer.watch([x, g])
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        d = inner.gradient(y, x, output_gradients=g)
    rr_x, rr_g = outer.gradient(d, [x, g], output_gradients=w)           # reverse over reverse
    with tf.autodiff.ForwardAccumulator([x, g], [tx, tg]) as acc:         # forward over reverse
        ... the same inner tape ...
    fr = acc.jvp(d)

(``fr_x``: tangents ``tx = 1.1``, ``tg = 0``; ``fr_g``: ``tx = 0``, ``tg = 1.1``). TensorFlow is not imported here.
"""
from __future__ import annotations

import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy
nan, inf = np.nan, np.inf


def _second(f, x0, g0, w0, dtype=np.float32):
    """{"rr_x", "rr_g", "fr_x", "fr_g"} of the gradient ``d = g * f'(x)``, as the TF snippet above."""
    x0, g0, w0 = (np.asarray(a, dtype) for a in (x0, g0, w0))
    out = {}
    x, g = tj.constant(x0), tj.constant(g0)
    with tj.GradientTape(persistent=True) as outer:
        outer.watch(x)
        outer.watch(g)
        with tj.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        d = inner.gradient(y, x, output_gradients=g)
    out["rr_x"], out["rr_g"] = (h.numpy() for h in outer.gradient(d, [x, g], output_gradients=tj.constant(w0)))
    for name, (tx, tg) in (("fr_x", (1.1, 0.0)), ("fr_g", (0.0, 1.1))):
        x, g = tj.constant(x0), tj.constant(g0)
        with tj.ForwardAccumulator([x, g], [tj.constant(np.full(x0.shape, tx, dtype)),
                                            tj.constant(np.full(x0.shape, tg, dtype))]) as acc:
            with tj.GradientTape() as inner:
                inner.watch(x)
                y = f(x)
            d = inner.gradient(y, x, output_gradients=g)
        out[name] = acc.jvp(d).numpy()
    return out


def _check(got, want, rtol=1e-5):
    for k, v in want.items():
        np.testing.assert_allclose(got[k], np.asarray(v, got[k].dtype), rtol=rtol, atol=0, equal_nan=True,
                                   err_msg=k)


# -- log and log1p at their poles (TF: grad * reciprocal(x); its gradient is ReciprocalGrad, 0 for 0) ----------

def test_log_second_order_at_zero():
    # f = tf.math.log, x0 = [0, -0, 1e-30, 1e-45, nan, 0, 0, 1e-30, 0.5], g0 = [0, 0, 0, 0, 0, 1.3, 0, 1.3, 1.3],
    # w = [0, 0, 0, 0, 0, 0, 0.7, 0.7, 0.7]: rr_x was NaN in tapejax (0 * inf), fr_g NaN at 1e-30
    got = _second(tnp.log, [0, -0.0, 1e-30, 1e-45, nan, 0, 0, 1e-30, 0.5], [0, 0, 0, 0, 0, 1.3, 0, 1.3, 1.3],
                  [0, 0, 0, 0, 0, 0, 0.7, 0.7, 0.7])
    _check(got, {"rr_x": [0, 0, 0, 0, 0, 0, 0, -inf, -3.6399998664855957],
                 "rr_g": [nan, nan, 0, nan, nan, nan, inf, 6.999999349753626e+29, 1.399999976158142],
                 "fr_x": [nan, nan, nan, nan, nan, nan, nan, -inf, -5.71999979019165],
                 "fr_g": [inf, -inf, 1.0999999409943491e+30, inf, nan, inf, inf, 1.0999999409943491e+30,
                          2.200000047683716]})


def test_log1p_second_order_at_minus_one():
    # f = tf.math.log1p, x0 = [-1, nan, -1, -1, 0.5], g0 = [0, 0, 1.3, 0, 1.3], w = [0, 0, 0, 0.7, 0.7]
    got = _second(tnp.log1p, [-1, nan, -1, -1, 0.5], [0, 0, 1.3, 0, 1.3], [0, 0, 0, 0.7, 0.7])
    _check(got, {"rr_x": [0, 0, 0, 0, -0.40444445610046387], "rr_g": [nan, nan, nan, inf, 0.46666666865348816],
                 "fr_x": [nan, nan, nan, nan, -0.635555624961853], "fr_g": [inf, nan, inf, inf, 0.7333333492279053]})


# -- reciprocal and rsqrt near 0 (ReciprocalGrad / RsqrtGrad and their gradients) -------------------------------

def test_reciprocal_second_order_near_zero():
    # f = tf.math.reciprocal, x0 = [1e-30, -1e-30, 1e-30, 0.5], g0 = [0, 0, 1.3, 1.3], w = [0, 0, 0, 0.7]
    got = _second(tnp.reciprocal, [1e-30, -1e-30, 1e-30, 0.5], [0, 0, 1.3, 1.3], [0, 0, 0, 0.7])
    _check(got, {"rr_x": [0, 0, 0, 14.559999465942383], "rr_g": [0, 0, 0, -2.799999952316284],
                 "fr_x": [nan, nan, inf, 22.8799991607666], "fr_g": [-inf, -inf, -inf, -4.400000095367432]})


def test_rsqrt_second_order_near_zero():
    # f = tf.math.rsqrt, x0 = [1e-30, 1e-30, 1e-30, 0.5], g0 = [0, 0, 1.3, 1.3], w = [0, 0.7, 0, 0.7]
    got = _second(tnp.rsqrt, [1e-30, 1e-30, 1e-30, 0.5], [0, 0, 1.3, 1.3], [0, 0.7, 0, 0.7])
    _check(got, {"rr_x": [0, 0, 0, 3.860802173614502], "rr_g": [0, -inf, 0, -0.9899494051933289],
                 "fr_x": [nan, nan, inf, 6.066975116729736], "fr_g": [-inf, -inf, -inf, -1.55563485622406]})


def test_sqrt_second_order_at_zero():
    # f = tf.math.sqrt, x0 = [0, -0, 1e-30, 0.5, 88, 0], g0 = [1.3, 1.3, 0, 0, 0, 0], w = [0.7, 0, 0.7, 0.7, 0.7, 0.7]:
    # fr_x at 0 is TF's forward mode of SqrtGrad, (0.5 * t_g - t_y * out) / y summed before the division (-inf,
    # not -inf + 0 / 0 = NaN)
    got = _second(tnp.sqrt, [0, -0.0, 1e-30, 0.5, 88, 0], [1.3, 1.3, 0, 0, 0, 0], [0.7, 0, 0.7, 0.7, 0.7, 0.7])
    _check(got, {"rr_x": [-inf, nan, 0, 0, 0, nan],
                 "rr_g": [inf, nan, 350000005513216.0, 0.4949747323989868, 0.037310123443603516, inf],
                 "fr_x": [-inf, inf, 0, 0, 0, nan]})
    # fr_g at 0 with g = 0: TF NaN (its first-order forward mode of sqrt is 0 / 0 for a zero tangent), tapejax inf
    # (API.md: sqrt's zero tangent gives 0 in forward mode too)
    np.testing.assert_allclose(got["fr_g"][2:5], [550000023044096.0, 0.7778174877166748, 0.05863019824028015],
                               rtol=1e-5)


# -- asin, acos, atanh at +-1 (AsinGrad: grad * reciprocal(sqrt(1 - square(x)))) --------------------------------

@pytest.mark.parametrize("name,sign", [("arcsin", 1), ("arccos", -1)])
def test_asin_acos_second_order_at_one(name, sign):
    # f = tf.math.asin / tf.math.acos, x0 = [1, -1, -2, 88, 0.5], g0 = [0, 0, 0, 0, 1.3], w = [0, 0, 0, 0, 0.7]:
    # rr_x was NaN in tapejax (rsqrt's derivative 0 * inf); TF's ReciprocalGrad and SqrtGrad give 0
    got = _second(getattr(tnp, name), [1, -1, -2, 88, 0.5], [0, 0, 0, 0, 1.3], [0, 0, 0, 0, 0.7])
    _check(got, {"rr_x": [0, 0, 0, 0, sign * 0.7005183100700378],
                 "fr_x": [nan, nan, nan, nan, sign * 1.1008144617080688]})
    # (the first-order gradient at x = +-1 with g = 0 is API.md's 0, TF's NaN, and so are its derivatives in g)


def test_atanh_second_order_at_one():
    # f = tf.math.atanh, x0 = [1, -1, 0.5], g0 = [0, 0, 1.3], w = [0, 0, 0.7]
    got = _second(tnp.arctanh, [1, -1, 0.5], [0, 0, 1.3], [0, 0, 0.7])
    _check(got, {"rr_x": [0, 0, 1.6177778244018555], "fr_x": [nan, nan, 2.542222499847412],
                 "fr_g": [inf, inf, 1.4666666984558105]})


# -- the derivative with respect to a zero incoming gradient is the derivative, not 0 ----------------------------

@pytest.mark.parametrize("name,rr_g,fr_g", [
    ("reciprocal", [-2.799999952316284, -9.039256838150322e-05, -0.17499999701976776],
     [-4.400000095367432, -0.00014204546459950507, -0.2750000059604645]),
    ("rsqrt", [-0.9899494051933289, -0.0004239786940161139, nan], [-1.55563485622406, -0.000666252279188484, nan]),
    ("arcsin", [0.8082903623580933, nan, nan], [1.2701705694198608, nan, nan]),
    ("arccos", [-0.8082903623580933, nan, nan], [-1.2701705694198608, nan, nan]),
    ("arctanh", [0.9333333373069763, -9.040423174155876e-05, -0.23333333432674408],
     [1.4666666984558105, -0.0001420638000126928, -0.36666667461395264]),
])
def test_second_order_wrt_zero_output_gradient(name, rr_g, fr_g):
    # x0 = [0.5, 88, -2], g0 = [0, 0, 0], w = [0.7, 0.7, 0.7]: rr_g = w * f'(x), fr_g = 1.1 * f'(x) (tapejax gave 0:
    # the derivative of where(g == 0, 0, g * d) in g is 0 at g = 0)
    got = _second(getattr(tnp, name), [0.5, 88, -2], [0, 0, 0], [0.7, 0.7, 0.7])
    _check(got, {"rr_x": [0, 0, 0] if name != "rsqrt" else [0, 0, nan], "rr_g": rr_g, "fr_g": fr_g})


@pytest.mark.parametrize("name,rr_g,fr_g", [
    ("reciprocal", [-1.087999939918518 + 1.9840000867843628j, 0.06800000369548798 - 0.024000002071261406j],
     [-2.1120002269744873 - 2.81600022315979j, 0.13200001418590546 + 0.17600001394748688j]),
    ("sqrt", [0.4402310848236084 - 0.17263661324977875j, 0.10962308198213577 - 0.05017191544175148j],
     [0.7159359455108643 + 0.16900955140590668j, 0.19336767494678497 + 0.3128754496574402j]),
    ("rsqrt", [-0.5662604570388794 + 0.6284034252166748j, 0.04199337959289551 + 0.03381485119462013j],
     [-1.0102899074554443 - 0.8431640863418579j, 0.1638237088918686 - 0.014771975576877594j]),
])
def test_second_order_wrt_zero_output_gradient_complex(name, rr_g, fr_g):
    # complex64: x0 = [0.5+0.25j, -1+2j], g0 = [0, 0], w = [0.7-0.1j, 0.3+0.2j] (TF's convention, conj(f'(x)))
    got = _second(getattr(tnp, name), [0.5 + 0.25j, -1 + 2j], [0, 0], [0.7 - 0.1j, 0.3 + 0.2j], np.complex64)
    _check(got, {"rr_x": [0, 0], "fr_x": [0, 0], "rr_g": rr_g, "fr_g": fr_g})


# -- asinh at a huge x (AsinhGrad: grad / cosh(y), finite where x * x overflows) -------------------------------

def test_asinh_second_order_at_huge_x():
    # f = tf.math.asinh, x0 = [3e38, 3e38, 0.5], g0 = [0, 1.3, 1.3], w = [0.7, 0.7, 0.7]: fr_x was NaN
    # (rsqrt(x * x + 1)'s derivative at x * x = inf)
    got = _second(tnp.arcsinh, [3e38, 3e38, 0.5], [0, 1.3, 1.3], [0.7, 0.7, 0.7])
    _check(got, {"rr_x": [0, 0, -0.3255714476108551], "rr_g": [0, 0, 0.6260989904403687],
                 "fr_x": [0, 0, -0.5116122961044312], "fr_g": [0, 0, 0.9838699102401733]})


# -- the tools/tf_second_order.py form: a constant output gradient with zeros, every op's Hessian diagonal -------

@pytest.mark.parametrize("name,x0,want", [
    ("log", [0.0, 2.0, -0.0], [0.0, -0.26249998807907104, -inf]),
    ("log1p", [-1.0, 1.0, 0.5], [0.0, -0.26249998807907104, -1.244444489479065]),
    ("reciprocal", [1e-30, 2.0, 0.5], [0.0, 0.26249998807907104, 44.79999923706055]),
    ("arctanh", [1.0, 0.5, -1.0], [0.0, 1.8666666746139526, -inf]),
    ("arcsin", [-1.0, 0.5, 0.25], [0.0, 0.8082903027534485, 0.7711539268493652]),
])
def test_hessian_diagonal_with_zero_output_gradient(name, x0, want):
    # TF: the nested tapes above with g0 = [0, 1.5, 2], w = [0, 0.7, 1.4], tf.math.<name> (g = 0 at the pole: 0)
    got = _second(getattr(tnp, name), x0, [0, 1.5, 2], [0, 0.7, 1.4])
    np.testing.assert_allclose(got["rr_x"], want, rtol=1e-5, equal_nan=True)
