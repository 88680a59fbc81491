"""Per-op gradients ported from TensorFlow's own tests, and second-order values compared with TF 2.21.

Sources: tensorflow/python/ops/math_grad_test.py, nn_grad_test.py, kernel_tests/nn_ops/relu_op_test.py,
xent_op_test_base.py, kernel_tests/math_ops/cwise_ops*_test.py and reduction_ops_test.py. Expected values are
TF 2.21's (run eagerly, float32 unless said), hard-coded with the TF expression that gave them; TensorFlow is
not imported here.
"""
from __future__ import annotations

import numpy as np
import pytest

import tapejax as tj
from conftest import nested_tape_gradients

tnp = tj.numpy


def _second(f, x0, output_gradients=None, outer_gradients=None):
    """(first-order gradient, gradient of that gradient) by nested tapes, as TF's nested GradientTapes."""
    return nested_tape_gradients(f, x0, output_gradients, outer_gradients)[1:]


# -- complex abs at second order -------------------------------------------------------------------------

@pytest.mark.parametrize("f", [tnp.abs, lambda z: tnp.linalg.norm(z, ord=1)], ids=["abs", "norm_ord1"])
def test_complex_abs_second_order(f):
    # TF: second(tf.abs, z) and second(lambda z: tf.math.real(tf.norm(z, ord=1)), z): ComplexAbsGrad is
    # div_no_nan(g * z, |z|), whose own gradient is that of z / |z| (JAX's complex sign has derivative 0,
    # which made tapejax's Hessian of |z| zero)
    z = np.array([3 + 4j, -1 + 0.5j], np.complex64)
    g, h = _second(f, z)
    np.testing.assert_allclose(g.numpy(), [0.6 + 0.8j, -0.8944272 + 0.4472136j], rtol=1e-6)
    np.testing.assert_allclose(h.numpy(), [0.128 - 0.096j, 0.17888546 + 0.35777086j], rtol=1e-5)


def test_complex_abs_second_order_forward_over_reverse():
    # the same Hessian by a ForwardAccumulator over the tape (tangent 1): d/dt of z/|z| along 1
    z = tj.constant(np.array([3 + 4j], np.complex64))
    with tj.ForwardAccumulator(z, tj.constant(np.array([1 + 0j], np.complex64))) as acc:
        with tj.GradientTape() as tape:
            tape.watch(z)
            y = tnp.abs(z)
        g = tape.gradient(y, z)
    # d(z/|z|) along real 1 at 3+4i: (1 - Re(z)*z/|z|^2) / |z| = (1 - 3 (3+4i)/25) / 5
    np.testing.assert_allclose(acc.jvp(g).numpy(), [(1 - 3 * (3 + 4j) / 25) / 5], rtol=1e-5)


# -- power at a negative base, second order ---------------------------------------------------------------

def test_power_second_order_at_negative_base_is_tf_pow_grad():
    # TF (math_grad.py PowGrad, log_x = 0 where x <= 0, also inside the gradient's own gradient):
    #   x = [-3, -2, 2], y = [-3, 2, 1.5], z = tf.pow(x, y), gx, gy = tape.gradient(z, [x, y]):
    #   d gx/dy = [0.01234568, -2, 2.8846006], d gx/dx = [-0.04938272, 2, 0.53033006]
    #   d gy/dx = [0, 0, 2.8846006], d gy/dy = [0, 0, 1.3589263]
    # (JAX's derivative of x**(y-1) w.r.t. y is NaN at a negative base)
    x, y = tj.constant([-3.0, -2.0, 2.0]), tj.constant([-3.0, 2.0, 1.5])
    with tj.GradientTape(persistent=True) as outer:
        outer.watch([x, y])
        with tj.GradientTape() as inner:
            inner.watch([x, y])
            z = tnp.power(x, y)
        gx, gy = inner.gradient(z, [x, y])
    np.testing.assert_allclose(gx.numpy(), [-0.03703704, -4.0, 2.1213202], rtol=1e-6)
    np.testing.assert_allclose(gy.numpy(), [0.0, 0.0, 1.9605162], rtol=1e-6)
    np.testing.assert_allclose(outer.gradient(gx, y).numpy(), [0.01234568, -2.0, 2.8846006], rtol=1e-5)
    np.testing.assert_allclose(outer.gradient(gx, x).numpy(), [-0.04938272, 2.0, 0.53033006], rtol=1e-5)
    np.testing.assert_allclose(outer.gradient(gy, x).numpy(), [0.0, 0.0, 2.8846006], rtol=1e-5)
    np.testing.assert_allclose(outer.gradient(gy, y).numpy(), [0.0, 0.0, 1.3589263], rtol=1e-5)


def test_power_second_order_forward_over_reverse_at_negative_base():
    x, y = tj.constant([-3.0]), tj.constant([-3.0])
    with tj.ForwardAccumulator(y, tj.constant([1.0])) as acc:
        with tj.GradientTape() as tape:
            tape.watch([x, y])
            z = tnp.power(x, y)
        gx = tape.gradient(z, x)
    np.testing.assert_allclose(acc.jvp(gx).numpy(), [0.01234568], rtol=1e-5)  # TF's d gx/dy above


def test_power_zero_grad_tape():
    # math_grad_test.py PowGradTest.test_zero_grad_tape: tape.gradient(pow(x, 2), x) under check_numerics
    x = tj.constant([-1.0, 0.0, 1.0])
    with tj.debug.check_numerics():
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = tnp.power(x, 2.0)
        g = tape.gradient(y, x)
    np.testing.assert_allclose(g.numpy(), [-2.0, 0.0, 2.0])


# -- softmax_cross_entropy_with_logits (kernel_tests/nn_ops/xent_op_test_base.py) ---------------------------

def _xent_fwd_bwd(labels, logits, axis=-1):
    logits = tj.convert_to_tensor(logits)
    with tj.GradientTape() as tape:
        tape.watch(logits)
        loss = tj.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits, axis=axis)
    return loss.numpy(), tape.gradient(loss, logits).numpy()


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_xent_single_class(dtype):
    # XentOpTestBase.testSingleClass: TF's gradient is its backprop output, softmax - labels = 1 - labels
    loss, grad = _xent_fwd_bwd(np.array([[-1.0], [0.0], [1.0], [1.0]], dtype), np.array([[1.0], [-1.0], [0.0], [1.0]],
                                                                                     dtype))
    np.testing.assert_allclose(loss.astype(np.float32), [0.0, 0.0, 0.0, 0.0])
    np.testing.assert_allclose(grad.astype(np.float32), [[2.0], [1.0], [0.0], [0.0]])


def test_xent_labels_broadcast():
    # XentOpTestBase.testLabelsBroadcast (float16): labels broadcast against the logits
    f16 = np.float16
    loss, grad = _xent_fwd_bwd(np.array([[0.0, 0.0, 0.0, 1.0]], f16), np.array([[1, 1, 1, 1], [1, 2, 3, 4]], f16))
    np.testing.assert_allclose(loss.astype(np.float32), [1.387, 0.4402], rtol=2e-3)
    np.testing.assert_allclose(grad.astype(np.float32), [[0.25, 0.25, 0.25, -0.75], [0.03204, 0.08716, 0.2369, -0.3562]],
                               atol=2e-3)
    loss, grad = _xent_fwd_bwd(np.array([[1.0]], f16), np.array([[1.0], [2.0]], f16))
    np.testing.assert_allclose(loss.astype(np.float32), [0.0, 0.0])
    np.testing.assert_allclose(grad.astype(np.float32), [[0.0], [0.0]])
    loss, grad = _xent_fwd_bwd(np.array([[0.0], [2.0], [0.25]], f16),
                               np.array([[1, 1, 1, 1], [1, 2, 3, 4], [1, 2, 3, 4]], f16))
    np.testing.assert_allclose(loss.astype(np.float32), [0.0, 15.52, 1.94], rtol=2e-3)
    # the test's uniform_labels_gradient
    np.testing.assert_allclose(grad.astype(np.float32), [[0.25, 0.25, 0.25, 0.25], [-1.968, -1.913, -1.763, -1.355],
                                                         [-0.218, -0.163, -0.013, 0.394]], atol=2e-3)


def test_xent_broadcast_labels_gradient_is_summed_back():
    # the gradient w.r.t. broadcast labels is the sum over the broadcast rows of -log_softmax(logits)
    lg = tj.constant([[0.1, 0.2, 0.3], [1.0, 2.0, 3.0]])
    lab = tj.constant([[0.2, 0.3, 0.5]])
    with tj.GradientTape() as tape:
        tape.watch(lab)
        loss = tj.nn.softmax_cross_entropy_with_logits(lab, lg)
    # TF: tf.nn.softmax_cross_entropy_with_logits([[.2, .3, .5], [1, 0, 0]], lg) gives d labels
    # [[1.2019429, 1.1019429, 1.0019429], [2.407606, 1.4076059, 0.40760595]]; broadcast: their sum
    np.testing.assert_allclose(tape.gradient(loss, lab).numpy(), [[3.6095488, 2.5095487, 1.4095488]], rtol=1e-5)


def test_xent_shape_mismatch_raises():
    # XentOpTestBase.testShapeMismatch
    with pytest.raises(ValueError):
        _xent_fwd_bwd([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], [[0.0, 1.0], [2.0, 3.0]])


def test_xent_float_and_zero_dimension():
    # XentOpTestBase.testFloat (against _npXent) and testZeroDimension
    labels = np.array([[0.0, 0.0, 0.0, 1.0], [0.0, 0.5, 0.5, 0.0]], np.float32)
    logits = np.array([[1.0, 1.0, 1.0, 1.0], [1.0, 2.0, 3.0, 4.0]], np.float32)
    loss, grad = _xent_fwd_bwd(labels, logits)
    np.testing.assert_allclose(loss, [1.3862944, 1.9401897], rtol=1e-5)
    np.testing.assert_allclose(grad, [[0.25, 0.25, 0.25, -0.75], [0.0320586, -0.4128522, -0.2631075, 0.6439142]],
                               rtol=1e-4, atol=1e-6)
    loss, grad = _xent_fwd_bwd(np.zeros([0, 2, 4], np.float32), np.zeros([0, 2, 4], np.float32))
    assert loss.shape == (0, 2) and grad.shape == (0, 2, 4)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_xent_second_gradient(mode):
    # XentOpTestBase.testSecondGradient's inputs; TF: the gradient of reduce_sum(xent) w.r.t. the logits, then the
    # gradient of that with output_gradients w = linspace(-1, 1, 12) (its Jacobian is symmetric, so the
    # forward-over-reverse product along w is the same)
    labels = tj.constant([0.0, 0.0, 1 / 3, 0.0, 1 / 3, 0.0, 0.0, 0.0, 0.0, 0.5 / 3, 0.0, 0.5 / 3])
    logits = tj.constant([0.1, 0.2, 0.3, 0.4, 0.1, 0.4, 0.9, 1.6, 0.1, 0.8, 2.7, 6.4])
    w = tj.constant(np.linspace(-1, 1, 12).astype(np.float32))
    want_h = [-0.00341987, -0.00342995, -0.00340432, -0.00333536, -0.00215457, -0.00248137, -0.00338709, -0.0054031,
              -0.00088927, -0.00115377, -0.00345506, 0.03251374]
    if mode == "reverse":
        with tj.GradientTape() as outer:
            outer.watch(logits)
            with tj.GradientTape() as inner:
                inner.watch(logits)
                loss = tnp.sum(tj.nn.softmax_cross_entropy_with_logits(labels, logits))
            g = inner.gradient(loss, logits)
        h = outer.gradient(g, logits, output_gradients=w)
    else:
        with tj.ForwardAccumulator(logits, w) as acc:
            with tj.GradientTape() as inner:
                inner.watch(logits)
                loss = tnp.sum(tj.nn.softmax_cross_entropy_with_logits(labels, logits))
            g = inner.gradient(loss, logits)
        h = acc.jvp(g)
    np.testing.assert_allclose(g.numpy(), [0.00173979, 0.00192276, -0.33120835, 0.00234847, -0.33159354, 0.00234847,
                                           0.00387197, 0.00779718, 0.00173979, -0.16316317, 0.02342404, 0.78077257],
                               rtol=1e-4, atol=1e-7)
    np.testing.assert_allclose(h.numpy(), want_h, rtol=1e-3, atol=1e-7)


def test_xent_forward_mode_is_tf_backprop():
    # the tangent of the loss along the logits is sum((softmax - labels) * t), TF's backprop (also for labels
    # that do not sum to 1); along the labels it is -sum(log_softmax * t)
    labels = tj.constant([[2.0, 0.0, 1.0]])
    logits = tj.constant([[0.5, -1.0, 2.0]])
    t = tj.constant([[1.0, 2.0, -1.0]])
    with tj.ForwardAccumulator(logits, t) as acc:
        loss = tj.nn.softmax_cross_entropy_with_logits(labels, logits)
    z = np.array([0.5, -1.0, 2.0])
    sm = np.exp(z) / np.exp(z).sum()
    np.testing.assert_allclose(acc.jvp(loss).numpy(), [np.sum((sm - [2.0, 0.0, 1.0]) * [1.0, 2.0, -1.0])], rtol=1e-5)
    with tj.ForwardAccumulator(labels, t) as acc:
        loss = tj.nn.softmax_cross_entropy_with_logits(labels, logits)
    lsm = z - np.log(np.exp(z).sum())
    np.testing.assert_allclose(acc.jvp(loss).numpy(), [-np.sum(lsm * [1.0, 2.0, -1.0])], rtol=1e-5)


# -- activations (kernel_tests/nn_ops/relu_op_test.py) -----------------------------------------------------

def test_leaky_relu_of_integers_gives_floats():
    # LeakyReluTest.testNumbersCPU (int32, alpha=0.2): TF computes in float32 (-9 * 0.2 = -1.8), as
    # jax.nn.leaky_relu; the result is not cast back to int32
    out = tj.nn.leaky_relu(np.array([[-9, 7, -5, 3, -1], [1, -3, 5, -7, 9]], np.int32), 0.2)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.numpy(), [[-1.8, 7, -1.0, 3, -0.2], [1, -0.6, 5, -1.4, 9]], rtol=1e-6)
    assert tj.nn.leaky_relu(np.array([-1.0, 2.0], np.float16), 0.2).dtype == np.float16


def test_leaky_relu_unexpected_alpha():
    # LeakyReluTest.testUnexpectedAlphaValue: where(x > 0, x, alpha * x) for alpha 10 and -10
    x = np.array([[-0.9, 0.7, -0.5, 0.3, -0.01], [0.1, -0.3, 0.5, -2.7, 0.9]], np.float32)
    np.testing.assert_allclose(tj.nn.leaky_relu(x, 10).numpy(), [[-9.0, 0.7, -5.0, 0.3, -0.1], [0.1, -3.0, 0.5, -27.0, 0.9]],
                               rtol=1e-6)
    np.testing.assert_allclose(tj.nn.leaky_relu(x, -10).numpy(), [[9.0, 0.7, 5.0, 0.3, 0.1], [0.1, 3.0, 0.5, 27.0, 0.9]],
                               rtol=1e-6)


@pytest.mark.parametrize("x", [-1.0, -0.5, 0.5, 1.0])
def test_elu_grad_grad_on_one_persistent_tape(x):
    # EluTest.testGradGrad: the first gradient taken inside the persistent tape's context is recorded by it
    t = tj.constant(x)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(t)
        y = tj.nn.elu(t)
        dy = tape.gradient(y, t)
    np.testing.assert_allclose(tape.gradient(dy, t).numpy(), np.exp(x) if x < 0 else 0.0, atol=1e-6)


@pytest.mark.parametrize("start,rate,alpha,want", [(100.0, 0.25, None, 50.0), (-100.0, 0.2, 0.05, -99.9)])
def test_relu_leaky_relu_gradient_scalar(start, rate, alpha, want):
    # ReluTest / LeakyReluTest.testGradientScalar: one SGD step on relu(x)**2 (leaky_relu(x, 0.05)**2)
    v = tj.Variable(start)
    f = tj.nn.relu if alpha is None else (lambda t: tj.nn.leaky_relu(t, alpha))
    tj.optimizers.SGD(rate).minimize(lambda: f(v) ** 2, [v])
    np.testing.assert_allclose(v.numpy(), want, rtol=1e-6)


# -- linalg at a degenerate spectrum ------------------------------------------------------------------------

def test_eigh_gradient_at_degenerate_eigenvalues_is_tfs():
    # TF's SelfAdjointEigV2Grad uses _SafeReciprocal(e_j - e_i) = x / (x^2 + 1e-20): 0 between equal
    # eigenvalues. TF: tape.gradient(tf.linalg.eigh(a)[0], a) at a = eye(3) is eye(3) (JAX's rule gave NaN),
    # tape.gradient(tf.linalg.eigh(a)[1], a) is zeros, and at a = diag(1, 1, 3) the gradient of the
    # eigenvector of 3, tape.gradient(tf.linalg.eigh(a)[1][:, 2], a), is [[0, 0, 0], [0, 0, 0], [.5, .5, 0]]
    def grad(f, a):
        a = tj.constant(np.asarray(a, np.float32))
        with tj.GradientTape() as tape:
            tape.watch(a)
            y = f(a)
        return tape.gradient(y, a).numpy()
    np.testing.assert_allclose(grad(lambda a: tnp.linalg.eigh(a)[0], np.eye(3)), np.eye(3), atol=1e-6)
    np.testing.assert_allclose(grad(lambda a: tnp.linalg.eigh(a)[1], np.eye(3)), np.zeros((3, 3)), atol=1e-6)
    np.testing.assert_allclose(grad(lambda a: tnp.linalg.eigh(a)[1][:, 2], np.diag([1.0, 1.0, 3.0])),
                               [[0, 0, 0], [0, 0, 0], [0.5, 0.5, 0]], atol=1e-6)
    # the same rule forward: the eigenvalues' tangent along a symmetric direction is diag(v^T da v)
    a = tj.constant(np.eye(3, dtype=np.float32))
    da = np.array([[1.0, 2.0, 0.0], [2.0, -1.0, 0.0], [0.0, 0.0, 3.0]], np.float32)
    with tj.ForwardAccumulator(a, tj.constant(np.tril(da))) as acc:
        w = tnp.linalg.eigh(a)[0]
    assert np.all(np.isfinite(acc.jvp(w).numpy()))
    np.testing.assert_allclose(np.sum(acc.jvp(w).numpy()), np.trace(da), rtol=1e-5)


def test_svd_gradient_at_equal_singular_values_is_tfs():
    # TF's SvdGrad: f = _SafeReciprocal(s_j^2 - s_i^2), s_inv = _SafeReciprocal(s). TF at a = eye(3):
    # tape.gradient(tf.linalg.svd(a, full_matrices=False)[0], a) (the singular values) is eye(3), the gradient of
    # its u output zeros; at a = zeros((3, 2)), tape.gradient(tf.linalg.svd(a, compute_uv=False), a) is eye(3, 2)
    def grad(f, a):
        a = tj.constant(np.asarray(a, np.float32))
        with tj.GradientTape() as tape:
            tape.watch(a)
            y = f(a)
        return tape.gradient(y, a).numpy()
    np.testing.assert_allclose(grad(lambda a: tnp.linalg.svd(a, full_matrices=False)[1], np.eye(3)), np.eye(3), atol=1e-6)
    np.testing.assert_allclose(grad(lambda a: tnp.linalg.svd(a)[0], np.eye(3)), np.zeros((3, 3)), atol=1e-6)
    np.testing.assert_allclose(grad(lambda a: tnp.linalg.svd(a, compute_uv=False), np.zeros((3, 2))), np.eye(3, 2),
                               atol=1e-6)


# -- ops/math_grad_test.py cases that already matched (pinned) ----------------------------------------------

def _grads(f, *xs):
    ts = [tj.constant(np.asarray(x, np.float32)) for x in xs]
    with tj.GradientTape() as tape:
        tape.watch(ts)
        y = f(*ts)
    return [g.numpy() for g in tape.gradient(y, ts)]


def test_euclidean_norm_negative_zero_and_zeros():
    # EuclideanNormGradientTest.testNegativeZero ([1, -0] -> [1, -0], 1/dx = [1, -inf]) and testZeros (NaN)
    (dx,) = _grads(tnp.linalg.norm, [1.0, -0.0])
    np.testing.assert_array_equal(dx, [1.0, -0.0])
    assert np.signbit(dx[1])
    (dx,) = _grads(tnp.linalg.norm, [0.0, -0.0])
    assert np.all(np.isnan(dx))


def test_min_max_of_tied_copies_and_maximum_tie():
    # MinOrMaxGradientTest: reduce_min/max(concat([x, x])) has gradient 1 w.r.t. x (the halves add up);
    # MaximumOrMinimumGradientTest: maximum(x, 3.0) at x = 3 gives the gradient to x
    assert _grads(lambda x: tnp.min(tnp.concatenate([x, x])), [1.0])[0].tolist() == [1.0]
    assert _grads(lambda x: tnp.max(tnp.concatenate([x, x])), [1.0])[0].tolist() == [1.0]
    assert _grads(lambda x: tnp.maximum(x, 3.0), [1.0, 2.0, 3.0, 4.0])[0].tolist() == [0.0, 0.0, 1.0, 1.0]
    assert _grads(lambda x: tnp.minimum(x, 2.0), [1.0, 2.0, 3.0, 4.0])[0].tolist() == [1.0, 1.0, 0.0, 0.0]


def test_floor_mod_gradient():
    # FloorModGradientTest: d/dx floormod(x, n) = 1, d/dn = -floor(x / n)
    gx, gn = _grads(tnp.mod, [131.0], [17.0])
    assert gx.tolist() == [1.0] and gn.tolist() == [-7.0]
