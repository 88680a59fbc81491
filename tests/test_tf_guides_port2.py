"""TensorFlow's guide notebooks (tensorflow/docs ``site/en/guide/``), second batch, ported to tapejax.

Sources: ``checkpoint.ipynb``, ``core/optimizers_core.ipynb``, ``core/logistic_regression_core.ipynb``,
``core/matrix_core.ipynb``, ``basics.ipynb``, ``tensor.ipynb`` and ``tensor_slicing.ipynb``. Each test names
the notebook cells it ports by cell id; every expected value is what the TF 2.21 original printed for the same
(deterministic) inputs.

Not a rename, and said where used:

* the Keras ``Net`` of the checkpoint guide is a ``Module`` of the same structure (``l1`` holding a lazily built
  ``kernel`` (1, 5) and ``bias`` (5,)) and the TF reference ran the same ``tf.Module``. (Keras 3's Dense names
  its kernel ``_kernel`` and, restored into an unbuilt model, trains a kernel the checkpoint no longer tracks:
  the guide's second run printed a loss of 22.77 after restoring, not a continuation.) ``tf.keras.optimizers.
  Adam(0.1)`` -> ``tj.optimizers.Adam(0.1)``. The ``tf.data`` iterator (checkpointed in the guide) becomes a
  batch index derived from the checkpointed ``step``, which is where the restored iterator resumes.
* random draws (``tf.random.uniform`` initial weights, noise, datasets downloaded from URLs) are small
  deterministic arrays, built the same way for the TF run; ``tf.data`` batching is slicing, unshuffled.
* TF names mapped: ``tf.reduce_*`` -> ``tnp.*``, ``tf.cast`` -> ``astype``, ``tf.concat`` -> ``concatenate``,
  ``tf.gather`` -> ``tnp.take``, ``tf.gather_nd`` -> advanced indexing, ``tf.slice`` -> basic slicing,
  ``tf.linalg.svd`` (returns ``s, U, V``) -> ``tnp.linalg.svd(full_matrices=False)`` (``U, s, Vh``),
  ``tf.nn.sigmoid_cross_entropy_with_logits`` -> TF's documented formula in tnp ops.

Deliberate differences (API.md), asserted as tapejax's: ``argmax`` gives int32 (TF int64) with x64 off;
checkpoint keys have no ``/.ATTRIBUTES/VARIABLE_VALUE`` suffix and the optimizer's state is named by
tapejax's own layout; ``Module.variables`` in order of creation (tf.Module sorts by attribute name).
"""
from __future__ import annotations

import os

import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy


def _np(t):
    return np.asarray(t.numpy() if hasattr(t, "numpy") else t)


# =====================================================================================================
# guide/checkpoint -- Training checkpoints
# =====================================================================================================

_KINIT = np.array([[0.1, -0.2, 0.3, -0.4, 0.5]], np.float32)


class _Dense(tj.Module):
    """Keras ``Dense(5)``'s structure: kernel and bias created on the first call."""

    def __init__(self, units):
        super().__init__()
        self.units = units
        self.built = False

    def __call__(self, x):
        if not self.built:
            self.kernel = tj.Variable(_KINIT)
            self.bias = tj.Variable(tnp.zeros([self.units]))
            self.built = True
        return x @ self.kernel + self.bias


class _Net(tj.Module):
    """A simple linear model (cell OEQCseyeC4Ev)."""

    def __init__(self):
        super().__init__()
        self.l1 = _Dense(5)

    def __call__(self, x):
        return self.l1(x)


def _toy_batch(step):
    # cell tSNyP4IJ9nkU: range(10) inputs, labels = 5 x + range(5), repeated, batches of 2; batch number
    # step - 1 (the checkpointed iterator's position)
    inputs = tnp.arange(10.0)[:, None]
    labels = inputs * 5.0 + tnp.arange(5.0)[None, :]
    b = (step - 1) % 5
    return dict(x=inputs[2 * b:2 * b + 2], y=labels[2 * b:2 * b + 2])


def _train_step(net, example, optimizer):
    # cell ICm1cufh_JH8
    with tj.GradientTape() as tape:
        output = net(example["x"])
        loss = tnp.mean(tnp.abs(output - example["y"]))
    variables = net.trainable_variables
    gradients = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(gradients, variables))
    return loss


def _train_and_checkpoint(directory):
    # cells ou5qarOQOWYl, BbCS5A6K1VSH (and UjilkTOV2PBK: a fresh model, optimizer and manager)
    opt = tj.optimizers.Adam(0.1)
    net = _Net()
    ckpt = tj.train.Checkpoint(step=tj.Variable(1), optimizer=opt, net=net)
    manager = tj.train.CheckpointManager(ckpt, directory, max_to_keep=3)
    ckpt.restore(manager.latest_checkpoint)
    restored = manager.latest_checkpoint
    saved, losses = [], []
    for _ in range(50):
        loss = _train_step(net, _toy_batch(int(ckpt.step)), opt)
        ckpt.step.assign_add(1)
        if int(ckpt.step) % 10 == 0:
            save_path = manager.save()
            saved.append((int(ckpt.step), os.path.basename(save_path)))
            losses.append(float(loss.numpy()))
    return restored, saved, losses, net, manager


@pytest.fixture(scope="module")
def trained_checkpoints(tmp_path_factory):
    directory = str(tmp_path_factory.mktemp("guide") / "tf_ckpts")
    first = _train_and_checkpoint(directory)
    second = _train_and_checkpoint(directory)
    return directory, first, second


def test_checkpoint_train_and_checkpoint_from_scratch(trained_checkpoints):
    # cell Ik3IBMTdPW41 ("Initializing from scratch.", then a save every 10 steps)
    _, (restored, saved, losses, net, _), _ = trained_checkpoints
    assert restored is None
    assert saved == [(10, "ckpt-1"), (20, "ckpt-2"), (30, "ckpt-3"), (40, "ckpt-4"), (50, "ckpt-5")]
    np.testing.assert_allclose(losses, [28.745508193969727, 22.161460876464844, 15.601255416870117,
                                        9.139924049377441, 2.9762511253356934], rtol=1e-4)
    np.testing.assert_allclose(_np(net.l1.kernel), [[4.298138618469238, 4.07712984085083, 4.571978569030762,
                                                     3.9254369735717773, 4.825436592102051]], rtol=1e-4)
    np.testing.assert_allclose(_np(net.l1.bias), [4.0234599113464355, 4.33197021484375, 4.512928009033203,
                                                  4.8433308601379395, 4.963687896728516], rtol=1e-4)


def test_checkpoint_restore_and_continue_training(trained_checkpoints):
    # cell UjilkTOV2PBK: "Restored from ./tf_ckpts/ckpt-5", training picks up where it left off (model and
    # Adam's state restored before either is built)
    directory, _, (restored, saved, losses, net, manager) = trained_checkpoints
    assert os.path.basename(restored) == "ckpt-5"
    assert saved == [(60, "ckpt-6"), (70, "ckpt-7"), (80, "ckpt-8"), (90, "ckpt-9"), (100, "ckpt-10")]
    np.testing.assert_allclose(losses, [1.2031043767929077, 0.8526323437690735, 0.5607643127441406,
                                        0.3843131959438324, 0.277662456035614], rtol=1e-3)
    np.testing.assert_allclose(_np(net.l1.kernel), [[4.646411895751953, 4.647586345672607, 4.8373799324035645,
                                                     4.825069427490234, 4.92497444152832]], rtol=1e-4)
    np.testing.assert_allclose(_np(net.l1.bias), [2.3198328018188477, 2.9943745136260986, 2.97861909866333,
                                                  4.252803325653076, 4.129669189453125], rtol=1e-4)
    # cell 3zmM0a-F5XqC: the three remaining checkpoints
    assert [os.path.basename(p) for p in manager.checkpoints] == ["ckpt-8", "ckpt-9", "ckpt-10"]
    assert manager.checkpoints[0] == os.path.join(directory, "ckpt-8")
    # cell t1feej9JntV_ (`ls`): TF keeps ckpt-{8,9,10}.index/.data and a `checkpoint` state file; tapejax's
    # layout differs, but only the three newest checkpoints remain
    listed = sorted(os.listdir(directory))
    assert [n for n in listed if n.startswith("ckpt-")] == ["ckpt-10", "ckpt-8", "ckpt-9"]


def test_checkpoint_loading_mechanics_partial_and_deferred(trained_checkpoints):
    # cells wmX2AuyH7TVt, P9TQXl81Dq5r, TXYUCO3v-I72
    directory = trained_checkpoints[0]
    to_restore = tj.Variable(tnp.zeros([5]))
    np.testing.assert_array_equal(_np(to_restore), np.zeros(5))  # All zeros
    fake_layer = tj.train.Checkpoint(bias=to_restore)
    fake_net = tj.train.Checkpoint(l1=fake_layer)
    new_root = tj.train.Checkpoint(net=fake_net)
    status = new_root.restore(tj.train.latest_checkpoint(directory))
    np.testing.assert_allclose(_np(to_restore), [2.3198328018188477, 2.9943745136260986, 2.97861909866333,
                                                 4.252803325653076, 4.129669189453125], rtol=1e-4)
    status.assert_existing_objects_matched()
    # the guide: kernel and optimizer values are unmatched, so assert_consumed raises (TF: AssertionError)
    with pytest.raises(AssertionError):
        status.assert_consumed()
    deferred_restore = tj.Variable(tnp.zeros([1, 5]))
    np.testing.assert_array_equal(_np(deferred_restore), np.zeros((1, 5)))  # Not restored; still zeros
    fake_layer.kernel = deferred_restore
    np.testing.assert_allclose(_np(deferred_restore), [[4.646411895751953, 4.647586345672607, 4.8373799324035645,
                                                        4.825069427490234, 4.92497444152832]], rtol=1e-4)


def test_checkpoint_manually_inspecting(trained_checkpoints):
    # cells RlRsADTezoBD, lYhX_XWCgl92 (tf.train.load_checkpoint's shape map; tapejax has list_variables):
    # TF: net/l1/kernel [1, 5] float32, net/l1/bias [5], step [] int32, save_counter [] int64 (= 10)
    directory = trained_checkpoints[0]
    shapes = dict(tj.train.list_variables(tj.train.latest_checkpoint(directory)))
    assert tuple(shapes["net/l1/kernel"]) == (1, 5)
    assert tuple(shapes["net/l1/bias"]) == (5,)
    assert tuple(shapes["step"]) == ()
    assert tuple(shapes["save_counter"]) == ()
    # the saved step and counter read back through a checkpoint of their own
    step, counter = tj.Variable(0), tj.Variable(0, dtype=tj.int64)
    tj.train.Checkpoint(step=step).restore(tj.train.latest_checkpoint(directory))
    assert int(step) == 100
    root = tj.train.Checkpoint()
    root.restore(tj.train.latest_checkpoint(directory))
    assert int(root.save_counter) == 10
    del counter


def test_checkpoint_list_and_dictionary_tracking(tmp_path):
    # cells rfaIbDtDHAr_, s0Uq1Hv5JCmm
    save = tj.train.Checkpoint()
    save.listed = [tj.Variable(1.0)]
    save.listed.append(tj.Variable(2.0))
    save.mapped = {"one": save.listed[0]}
    save.mapped["two"] = save.listed[1]
    save_path = save.save(str(tmp_path / "tf_list_example"))
    assert os.path.basename(save_path) == "tf_list_example-1"

    restore = tj.train.Checkpoint()
    v2 = tj.Variable(0.0)
    assert 0.0 == v2.numpy()  # Not restored yet
    restore.mapped = {"two": v2}
    restore.restore(save_path)
    assert 2.0 == v2.numpy()

    restore.listed = []
    assert list(restore.listed) == []
    v1 = tj.Variable(0.0)
    restore.listed.append(v1)  # Restores v1, from restore() in the previous cell
    assert 1.0 == v1.numpy()


# =====================================================================================================
# guide/core/optimizers_core -- Optimizers with Core APIs (hand-written GD, momentum and Adam)
# =====================================================================================================

class _GradientDescent(tj.Module):
    # cell MWjmUmeOQFFN

    def __init__(self, learning_rate=1e-3):
        self.learning_rate = learning_rate
        self.title = f"Gradient descent optimizer: learning rate={self.learning_rate}"

    def apply_gradients(self, grads, vars):
        for grad, var in zip(grads, vars):
            var.assign_sub(self.learning_rate * grad)


class _Momentum(tj.Module):
    # cell rOBY8Tz4S0dX

    def __init__(self, learning_rate=1e-3, momentum=0.7):
        self.learning_rate = learning_rate
        self.momentum = momentum
        self.change = 0.0

    def apply_gradients(self, grads, vars):
        for grad, var in zip(grads, vars):
            curr_change = self.learning_rate * grad + self.momentum * self.change
            var.assign_sub(curr_change)
            self.change = curr_change


class _Adam(tj.Module):
    # cell hm5vffRJRsEc

    def __init__(self, learning_rate=1e-3, beta_1=0.9, beta_2=0.999, ep=1e-7):
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.learning_rate = learning_rate
        self.ep = ep
        self.t = 1.0
        self.v_dvar, self.s_dvar = [], []
        self.built = False

    def apply_gradients(self, grads, vars):
        if not self.built:
            for var in vars:
                self.v_dvar.append(tj.Variable(tnp.zeros(shape=var.shape)))
                self.s_dvar.append(tj.Variable(tnp.zeros(shape=var.shape)))
            self.built = True
        for i, (d_var, var) in enumerate(zip(grads, vars)):
            self.v_dvar[i] = self.beta_1 * self.v_dvar[i] + (1 - self.beta_1) * d_var
            self.s_dvar[i] = self.beta_2 * self.s_dvar[i] + (1 - self.beta_2) * tnp.square(d_var)
            v_dvar_bc = self.v_dvar[i] / (1 - (self.beta_1 ** self.t))
            s_dvar_bc = self.s_dvar[i] / (1 - (self.beta_2 ** self.t))
            var.assign_sub(self.learning_rate * (v_dvar_bc / (tnp.sqrt(s_dvar_bc) + self.ep)))
        self.t += 1.0


def _loss(x):
    # cell VCtJaUo6Ry8V
    return 2 * (x ** 4) + 3 * (x ** 3) + 2


def _grad(f, x):
    with tj.GradientTape() as tape:
        tape.watch(x)
        result = f(x)
    return tape.gradient(result, x)


def _convergence_test(optimizer, loss_fn, grad_fn=_grad, init_val=2.0, max_iters=2000):
    # cell SLQTc41ouv0F, returning what it prints: ("exploded" | "converged" | "exceeded", iteration, path)
    x_star = tj.Variable(init_val)
    param_path = []
    for iter in range(1, max_iters + 1):
        x_grad = grad_fn(loss_fn, x_star)
        if tnp.isnan(x_grad):
            return "exploded", iter, param_path
        x_old = x_star.numpy()
        optimizer.apply_gradients([x_grad], [x_star])
        param_path.append(x_star.numpy())
        if x_star == x_old:
            return "converged", iter, param_path
    return "exceeded", max_iters, param_path


def test_optimizers_sample_loss_and_gradient():
    # cell VCtJaUo6Ry8V: the loss and its gradient on tf.linspace(-2, 2, 201) cast to float32
    x_vals = tnp.astype(tnp.linspace(-2, 2, 201), tj.float32)
    assert x_vals.dtype == np.float32 and x_vals.shape == (201,)
    np.testing.assert_allclose(_np(x_vals[:3]), [-2.0, -1.9800000190734863, -1.9600000381469727])
    assert float(_loss(x_vals)[0]) == 10.0
    g = _grad(_loss, x_vals)
    np.testing.assert_allclose(_np(tnp.take(g, [0, 50, 100, 150, 200])), [-28.0, 1.0, 0.0, 17.0, 100.0], atol=1e-5)
    assert float(_loss(0)) == 2.0
    np.testing.assert_allclose(float(_loss(-9 / 8)), 0.93212890625, rtol=1e-6)


def test_optimizers_gradient_descent():
    # cell lWRn8c91mqB0, learning rate 0.1: "Gradient exploded at iteration 6"
    status, it, path = _convergence_test(_GradientDescent(learning_rate=1e-1), loss_fn=_loss)
    assert (status, it, len(path)) == ("exploded", 6, 5)
    np.testing.assert_allclose(path[:3], [-8.0, 344.0, -32672226.0], rtol=1e-6)
    assert path[-1] == -np.inf
    # learning rate 0.01 (TF exceeds 2000 iterations; the first 50 here)
    status, it, path = _convergence_test(_GradientDescent(learning_rate=1e-2), loss_fn=_loss, max_iters=50)
    assert (status, it) == ("exceeded", 50)
    np.testing.assert_allclose(path[:3], [1.0, 0.8299999833106995, 0.722256064414978], rtol=1e-6)
    np.testing.assert_allclose([path[9], path[-1]], [0.4157631993293762, 0.14551912248134613], rtol=1e-5)


def test_optimizers_momentum():
    # cell tA6oQL-sW2xg, learning rate 0.01: "Converged in 80 iterations" at the global minimum -9/8
    status, it, path = _convergence_test(_Momentum(learning_rate=1e-2), loss_fn=_loss, grad_fn=_grad)
    assert (status, it) == ("converged", 80)
    np.testing.assert_allclose(path[:3], [1.0, 0.12999999523162842, -0.48069673776626587], rtol=1e-6)
    np.testing.assert_allclose(path[-1], -1.124998688697815, rtol=1e-7)
    # learning rate 0.1: "Gradient exploded at iteration 6"
    status, it, path = _convergence_test(_Momentum(learning_rate=1e-1), loss_fn=_loss)
    assert (status, it) == ("exploded", 6)
    np.testing.assert_allclose(path[:3], [-8.0, 337.0, -30719836.0], rtol=1e-6)
    # learning rate 0.001, the first 50 iterations
    status, it, path = _convergence_test(_Momentum(learning_rate=1e-3), loss_fn=_loss, max_iters=50)
    np.testing.assert_allclose(path[:3], [1.899999976158142, 1.7426379919052124, 1.5628173351287842], rtol=1e-6)
    np.testing.assert_allclose([path[9], path[-1]], [0.7117352485656738, 0.2774088978767395], rtol=1e-5)


def test_optimizers_adam():
    # cell GXHCxtemFBpR, the first 50 iterations (TF: lr 0.1 converges in 1156, lr 0.01 exceeds 2000)
    status, it, path = _convergence_test(_Adam(learning_rate=1e-1), loss_fn=_loss, max_iters=50)
    assert (status, it) == ("exceeded", 50)
    np.testing.assert_allclose(path[:3], [1.899999976158142, 1.8005775213241577, 1.7021496295928955], rtol=1e-6)
    np.testing.assert_allclose([path[9], path[-1]], [1.0750689506530762, 0.01890326477587223], rtol=1e-5)
    status, it, path = _convergence_test(_Adam(learning_rate=1e-2), loss_fn=_loss, max_iters=50)
    np.testing.assert_allclose(path[:3], [1.9900000095367432, 1.9800037145614624, 1.9700134992599487], rtol=1e-6)
    np.testing.assert_allclose([path[9], path[-1]], [1.9004583358764648, 1.5423972606658936], rtol=1e-5)


def test_optimizers_adam_converges_as_tf():
    # cell GXHCxtemFBpR, learning rate 0.1: "Converged in 1156 iterations" (float32 arithmetic, bit for bit)
    status, it, path = _convergence_test(_Adam(learning_rate=1e-1), loss_fn=_loss)
    assert (status, it) == ("converged", 1156)
    np.testing.assert_allclose(path[-1], -1.1249970197677612, rtol=1e-7)
