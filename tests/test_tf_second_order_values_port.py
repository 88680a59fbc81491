"""Second-order values of fused and reduction ops against TF 2.21 (tools/tf_second_order.py's cases).

Expected values are TF 2.21's (eager, float32), from nested tapes and a ForwardAccumulator around a tape::

    xs = [tf.constant(a) for a in args]
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(xs)
        with tf.GradientTape() as inner:
            inner.watch(xs)
            y = f(*xs)
        g = inner.gradient(y, xs, output_gradients=og)
    rr = outer.gradient(g, xs, output_gradients=ws)                    # reverse over reverse
    with tf.autodiff.ForwardAccumulator(xs, tans) as acc:              # forward over reverse
        ... the same inner tape ...
    fr = [acc.jvp(gi) for gi in g]

Where TF's second order comes from a gradient kernel that is not a derivative (TF's ``CumprodGrad`` divides by
``x`` with ``div_no_nan`` and does not conjugate: tensorflow/tensorflow#119430), tapejax keeps the exact
derivative in TF's complex convention, and the tests pin it to TF's own value for the same function written
with ``multiply``. TensorFlow is not imported here.
"""
from __future__ import annotations

import numpy as np
import pytest

import tapejax as tj
from conftest import nested_tape_gradients

tnp = tj.numpy
f32 = np.float32


def _second(f, args, og, ws, tans):
    """(g, rr, fr) of ``f(*args)`` as the TF snippet above."""
    xs = [tj.constant(a) for a in args]
    with tj.GradientTape(persistent=True) as outer:
        outer.watch(xs)
        with tj.GradientTape() as inner:
            inner.watch(xs)
            y = f(*xs)
        g = inner.gradient(y, xs, output_gradients=tj.constant(og))
    rr = outer.gradient(g, xs, output_gradients=[tj.constant(w) for w in ws])
    xs = [tj.constant(a) for a in args]
    with tj.ForwardAccumulator(xs, [tj.constant(t) for t in tans]) as acc:
        with tj.GradientTape() as inner:
            inner.watch(xs)
            y = f(*xs)
        g2 = inner.gradient(y, xs, output_gradients=tj.constant(og))
    fr = [acc.jvp(gi) for gi in g2]
    return g, rr, fr


def _close(got, want, rtol=1e-5, atol=1e-6):
    assert got is not None, "tapejax gave None where TF gives an array"
    np.testing.assert_allclose(np.asarray(got), np.asarray(want, np.asarray(got).dtype), rtol=rtol, atol=atol)


# -- softmax_cross_entropy_with_logits (nn_grad.py _SoftmaxCrossEntropyWithLogitsGrad) --------------------------

_LAB = np.array([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]], f32)
_LG = np.array([[0.5, -1.0, 2.0], [0.1, 0.2, -0.3]], f32)
_OG = np.array([0.7, -1.3], f32)
_W = [np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]], f32), np.array([[-0.5, 0.9, 0.2], [0.8, -0.1, 0.3]], f32)]
_T = [np.array([[0.6, 1.1, 0.9], [1.2, 0.7, 1.4]], f32), np.array([[1.3, 0.8, 0.5], [0.9, 1.0, 0.6]], f32)]


def test_xent_second_order_labels_get_zeros():
    # f = tf.nn.softmax_cross_entropy_with_logits(labels, logits), args (labels, logits) above: TF's gradient for
    # the logits is grad_loss * backprop (its second output), whose own gradient reaches only the logits, so
    # rr w.r.t. the labels is zeros (an array, not None); tapejax gave -og * w (the exact derivative) there
    g, rr, fr = _second(tj.nn.softmax_cross_entropy_with_logits, [_LAB, _LG], _OG, _W, _T)
    _close(g[0], [[1.2189178466796875, 2.2689177989959717, 0.1689179241657257],
                  [-1.3270758390426636, -1.1970758438110352, -1.8470758199691772]])
    _close(g[1], [[-0.017296727746725082, -0.18262121081352234, 0.19991791248321533],
                  [0.8316143751144409, -0.5176461338996887, -0.3139682710170746]])
    _close(rr[0], np.zeros((2, 3)))
    _close(rr[1], [[-0.2105737030506134, 0.1782023012638092, 0.032371390610933304],
                   [-0.047577813267707825, 0.7896276712417603, -0.7420498728752136]])


def test_xent_forward_over_reverse_ignores_label_tangents_in_logits_gradient():
    # the same f and args, tangents _T: TF's tangent of grad_loss * backprop has no -t_labels term
    _, _, fr = _second(tj.nn.softmax_cross_entropy_with_logits, [_LAB, _LG], _OG, _W, _T)
    _close(fr[0], [[-0.4536236822605133, -0.10362374037504196, 0.1063762679696083],
                   [0.04242577403783798, 0.17242580652236938, -0.3475741446018219]])
    _close(fr[1], [[0.07951587438583374, 0.004052991513162851, -0.08356889337301254],
                   [-0.01528590265661478, -0.06865812838077545, 0.08394403010606766]])


def test_xent_second_order_through_jax_grad_matches_tape():
    # one set of rules: jax.grad over tj ops gives the same labels-constant logits gradient
    import jax
    import jax.numpy as jnp

    def g_logits(lab, lg):
        loss = lambda z: jnp.sum(jnp.asarray(_OG) * tj.nn.softmax_cross_entropy_with_logits(lab, z).value)
        return jax.grad(loss)(lg)
    _, vjp = jax.vjp(g_logits, jnp.asarray(_LAB), jnp.asarray(_LG))
    d_lab, _ = vjp(jnp.asarray(_W[1]))
    _close(d_lab, np.zeros((2, 3)))


# -- layer_norm: TF's formula is tf.nn.moments (variance around stop_gradient(mean)) + batch_normalization -----

def test_layer_norm_second_order_as_tf_moments():
    # m, v = tf.nn.moments(x, axes=[-1], keepdims=True); f = tf.nn.batch_normalization(x, m, v, o, s, 1e-5)
    x = np.array([[0.5, -1.0, 2.0, 0.3], [1.5, 0.2, -0.7, -0.4]], f32)
    s = np.array([1.2, 0.8, 1.5, 0.6], f32)
    o = np.array([0.1, -0.2, 0.3, 0.0], f32)
    og = np.array([[0.3, -0.8, 0.5, 1.1], [-0.6, 0.9, 0.2, -0.4]], f32)
    ws = [np.array([[0.2, -0.5, 0.7, 0.1], [0.4, 0.3, -0.9, 0.6]], f32), np.array([0.5, -0.3, 0.2, 0.8], f32),
          np.array([0.1, 0.2, -0.4, 0.3], f32)]
    tans = [np.array([[1.1, 0.6, 0.9, 1.3], [0.7, 1.2, 0.5, 1.0]], f32), np.array([0.9, 1.1, 0.6, 1.4], f32),
            np.array([1.0, 0.5, 1.2, 0.8], f32)]
    g, rr, fr = _second(lambda x, s, o: tj.nn.layer_norm(x, s, o), [x, s, o], og, ws, tans)
    _close(g[0], [[0.05198325589299202, -0.26244109869003296, -0.20679593086242676, 0.4172537326812744],
                  [-0.2764773964881897, 0.857215940952301, -0.036533087491989136, -0.5442054867744446]], atol=1e-5)
    _close(g[1], [-0.945503294467926, 1.1433371305465698, 0.526853084564209, 0.10558485984802246], atol=1e-5)
    _close(g[2], [-0.30000001192092896, 0.09999996423721313, 0.699999988079071, 0.7000000476837158])
    # rr and fr w.r.t. x were the exact Hessian's (rr[0][0, 0] -0.2217 where TF gives -0.2738)
    _close(rr[0], [[-0.27379634976387024, -0.10730385780334473, -0.09094101190567017, 0.2636234164237976],
                   [0.186854749917984, -0.2331438958644867, -0.0959385335445404, 0.3183076083660126]], atol=1e-5)
    _close(rr[1], [0.13561192154884338, 0.23024243116378784, -0.18699464201927185, -0.29153433442115784],
           atol=1e-5)
    _close(fr[0], [[-0.5150309205055237, -0.8548465967178345, -0.8871538639068604, 0.6313722729682922],
                   [-0.2013394832611084, 1.6939232349395752, 0.277641624212265, -0.2735469937324524]], atol=1e-5)
    _close(fr[1], [0.15076299011707306, 0.5618800520896912, -0.17793887853622437, 0.27528709173202515], atol=1e-5)


# -- prod / cumprod: exact derivatives in TF's convention (TF's own multiply chain), not TF's CumprodGrad ---------

_Z = np.array([0.3 + 0.7j, -1.1 + 0.2j, 0.5 - 0.4j], np.complex64)
_ZOG = np.complex64(0.8 - 0.3j)
_ZW = np.array([0.2 + 0.5j, -0.7 + 0.1j, 0.3 + 0.3j], np.complex64)
# TF: f = x[0] * x[1] * x[2] (TF's MulGrad: grad * conj(other)); TF's reduce_prod gives the same g but
# rr [-0.446+0.222j, 0.097-0.228j, -0.005+0.960j], its second order running through CumprodGrad (no conj)
_Z_G = [-0.5379999876022339 - 0.29100000858306885j, 0.2750000059604645 - 0.31299999356269836j,
        -0.16300001740455627 + 0.7090000510215759j]
_Z_RR = [-0.578000009059906 + 0.16200003027915955j, 0.003000006079673767 - 0.4300000071525574j,
         -0.18900001049041748 + 0.9559999704360962j]


def _rr1(f, x0, og=None, w=None):
    """(g, rr) of ``f(x0)`` by nested tapes; output gradients ``og`` and ``w`` (None: ones, the default)."""
    return nested_tape_gradients(f, x0, og, w)[1:]


@pytest.mark.parametrize("f", [lambda x: tnp.prod(x), lambda x: tnp.cumprod(x)[2], lambda x: x[0] * x[1] * x[2]],
                         ids=["prod", "cumprod", "multiply"])
def test_complex_product_second_order_is_tf_multiply_chain(f):
    g, rr = _rr1(f, _Z, _ZOG, _ZW)
    _close(g, _Z_G)
    _close(rr, _Z_RR)


def test_real_prod_and_cumprod_second_order_at_zero_are_exact():
    # x = [2, 0, 3]. TF: f = x[0] * x[1] * x[2], og 0.7, w [0.5, 0.3, -0.8] gives rr [0.63, -0.07, 0.42];
    # tf.reduce_prod gives [0.63, 0, 0.42] (its second order runs through CumprodGrad's div_no_nan(out, x))
    x0, w = np.array([2.0, 0.0, 3.0], f32), np.array([0.5, 0.3, -0.8], f32)
    g, rr = _rr1(tnp.prod, x0, f32(0.7), w)
    _close(g, [0.0, 4.199999809265137, 0.0])
    _close(rr, [0.6299999952316284, -0.0700000524520874, 0.42000001668930054])
    # cumprod, og [0.7, -1.1, 0.4]. TF: the stacked multiply chain gives g [0.7, 0.2, 0] and rr [0.03, -0.59, 0.24];
    # tf.math.cumprod gives g [0.7, 0, 0] and rr zeros (tensorflow/tensorflow#119430)
    g, rr = _rr1(tnp.cumprod, x0, np.array([0.7, -1.1, 0.4], f32), w)
    _close(g, [0.699999988079071, 0.20000004768371582, 0.0])
    _close(rr, [0.030000001192092896, -0.5900000333786011, 0.24000000953674316])


# -- max / min over a zero-size axis: jax.numpy raises (tj.numpy mirrors it); TF returns -inf / +inf -------------

@pytest.mark.parametrize("name", ["max", "min"])
def test_reduce_empty_axis_raises_clearly(name):
    # TF: tf.reduce_max(tf.zeros((2, 0)), axis=1) -> [-inf, -inf]; tf.reduce_min -> [inf, inf]. API.md: tj.numpy
    # mirrors jax.numpy, whose max/min of an empty axis raise ValueError: the message names the axis and TF's value
    f = getattr(tnp, name)
    with pytest.raises(ValueError, match=rf"tj.numpy.{name}: axis 1 .*shape \(2, 0\).*reduce_{name}"):
        f(np.zeros((2, 0), f32), axis=1)
    with pytest.raises(ValueError, match="axis 0"):
        getattr(tj.constant(np.zeros((0,), f32)), name)()
    assert f(np.zeros((2, 0), f32), axis=0).shape == (0,)  # a non-empty reduced axis: an empty result, no error


def test_power_mixed_second_derivative_at_a_zero_exponent_as_tf():
    """d/dy (d x**y / dx) at y = 0 is x**-1 (TF 2.21's PowGrad differentiated: y * pow(x, y - 1)); the rule's
    guard against 0 * inf at x = y = 0 had made it 0 for every x (a Hessian that was not symmetric)."""
    x, y = tj.constant(np.array([1.0, 2.0, -2.0, 0.5], f32)), tj.constant(np.array([0.0, 0.0, 0.0, 1.0], f32))
    with tj.GradientTape(persistent=True) as outer:
        outer.watch([x, y])
        with tj.GradientTape() as inner:
            inner.watch([x, y])
            z = x ** y
        gx, gy = inner.gradient(z, [x, y])
    hxx, hxy = outer.gradient(gx, [x, y])
    hyx, hyy = outer.gradient(gy, [x, y])
    np.testing.assert_allclose(hxx.numpy(), [0.0, 0.0, 0.0, 0.0])
    np.testing.assert_allclose(hxy.numpy(), [1.0, 0.5, -0.5, 0.30685282], rtol=1e-6)
    np.testing.assert_allclose(hyx.numpy(), [1.0, 0.5, 0.0, 0.30685282], rtol=1e-6)  # log_x masked at x <= 0
    np.testing.assert_allclose(hyy.numpy(), [0.0, 0.48045301, 0.0, 0.24022651], rtol=1e-6)
    x0, y0 = tj.constant(0.0), tj.constant(0.0)  # 0 * inf at x = y = 0: still 0, no NaN
    with tj.GradientTape() as tape:
        tape.watch(x0)
        z = x0 ** y0
    assert tape.gradient(z, x0).numpy() == 0.0


@pytest.mark.parametrize("f", [lambda x: tnp.prod(x, axis=-1), lambda x: tnp.cumprod(x, axis=-1)], ids=["prod", "cumprod"])
def test_product_over_a_length_one_axis_has_a_zero_second_derivative_as_tf(f):
    """TF's ProdGrad and CumprodGrad read x whatever the axis' length, so over one element the second derivative
    is zeros (TF 2.21), not None (JAX's derivative of a one-element product reads no x)."""
    _, h = _rr1(f, np.array([[0.5], [2.0]], f32))
    assert h is not None
    np.testing.assert_array_equal(h.numpy(), np.zeros((2, 1), f32))
