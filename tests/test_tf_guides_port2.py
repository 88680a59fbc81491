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
    step = tj.Variable(0)
    tj.train.Checkpoint(step=step).restore(tj.train.latest_checkpoint(directory))
    assert int(step) == 100
    root = tj.train.Checkpoint()
    root.restore(tj.train.latest_checkpoint(directory))
    assert int(root.save_counter) == 10


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
    assert repr(restore.listed) == "ListWrapper([])"  # TF prints ListWrapper([])
    v1 = tj.Variable(0.0)
    restore.listed.append(v1)  # Restores v1, from restore() in the previous cell
    assert 1.0 == v1.numpy()
    # TF's list_variables: the dict entries are a second path to the list's Variables, saved once
    assert [k for k, _ in tj.train.list_variables(save_path)] == ["listed/0", "listed/1", "save_counter"]


def test_checkpoint_containers_restore_as_they_grow(tmp_path):
    # variations of cells rfaIbDtDHAr_/s0Uq1Hv5JCmm run with TF 2.21: containers (empty or not) assigned before
    # the restore take their values as Variables are added, through the list or through the dict's alias
    save = tj.train.Checkpoint()
    save.listed = [tj.Variable(1.0)]
    save.listed.append(tj.Variable(2.0))
    save.mapped = {"one": save.listed[0]}
    save.mapped["two"] = save.listed[1]
    save_path = save.save(str(tmp_path / "tf_list_example"))

    r = tj.train.Checkpoint()
    r.mapped = {}
    r.restore(save_path)
    v = tj.Variable(0.0)
    r.mapped["two"] = v
    assert float(v) == 2.0  # TF: 2.0
    r = tj.train.Checkpoint()
    r.listed = []
    r.restore(save_path)
    v = tj.Variable(0.0)
    r.listed.append(v)
    assert float(v) == 1.0  # TF: 1.0
    w = tj.Variable(0.0)
    r.listed.insert(0, w)  # TF: listed/0's value was taken by v already: w keeps 0.0, v its 1.0
    assert (float(w), float(v)) == (0.0, 1.0)
    r = tj.train.Checkpoint()
    r.listed = [tj.Variable(5.0)]
    r.restore(save_path)
    v = tj.Variable(0.0)
    r.listed.append(v)
    assert (float(r.listed[0]), float(v)) == (1.0, 2.0)  # TF: 1.0 2.0


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


# =====================================================================================================
# guide/basics -- TensorFlow basics
# =====================================================================================================

def test_basics_tensors():
    # cells after "Tensors": x, x + x, 5 * x, x @ transpose(x), concat, softmax, reduce_sum
    x = tj.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert x.shape == (2, 3) and x.dtype == np.float32
    np.testing.assert_array_equal(_np(x + x), [[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]])
    np.testing.assert_array_equal(_np(5 * x), [[5.0, 10.0, 15.0], [20.0, 25.0, 30.0]])
    np.testing.assert_array_equal(_np(x @ tnp.transpose(x)), [[14.0, 32.0], [32.0, 77.0]])
    assert tnp.concatenate([x, x, x], axis=0).shape == (6, 3)
    np.testing.assert_allclose(_np(tj.nn.softmax(x, axis=-1)), [[0.09003056585788727, 0.2447284758090973,
                                                                0.6652408838272095]] * 2, rtol=1e-6)
    assert float(tnp.sum(x)) == 21.0
    # tf.convert_to_tensor([1,2,3]) is int32; tf.reduce_sum([1,2,3]) is 6, int32
    assert tj.convert_to_tensor([1, 2, 3]).dtype == np.int32
    s = tnp.sum(tj.convert_to_tensor([1, 2, 3]))
    assert int(s) == 6 and s.dtype == np.int32


def test_basics_variables_and_automatic_differentiation():
    var = tj.Variable([0.0, 0.0, 0.0])
    var.assign([1, 2, 3])
    var.assign_add([1, 1, 1])
    np.testing.assert_array_equal(_np(var), [2.0, 3.0, 4.0])
    x = tj.Variable(1.0)

    def f(x):
        return x ** 2 + 2 * x - 5

    assert float(f(x)) == -2.0
    with tj.GradientTape() as tape:
        y = f(x)
    assert float(tape.gradient(y, x)) == 4.0  # g(x) = dy/dx


def test_basics_graphs_and_tf_function():
    traces = []

    @tj.function
    def my_func(x):
        traces.append("Tracing.")
        return tnp.sum(x)

    assert int(my_func(tj.constant([1, 2, 3]))) == 6
    assert int(my_func(tj.constant([10, 9, 8]))) == 27
    assert len(traces) == 1  # TF prints "Tracing." once for both int32 (3,) calls
    np.testing.assert_allclose(float(my_func(tj.constant([10.0, 9.1, 8.2], dtype=tj.float32))), 27.3, rtol=1e-6)
    assert len(traces) == 2  # a new signature traces again

    class MyModule(tj.Module):
        def __init__(self, value):
            self.weight = tj.Variable(value)

        @tj.function
        def multiply(self, x):
            return x * self.weight

    mod = MyModule(3)
    r = mod.multiply(tj.constant([1, 2, 3]))
    np.testing.assert_array_equal(_np(r), [3, 6, 9])
    assert r.dtype == np.int32


def test_basics_training_loop():
    # the quadratic model trained by hand; tf.random.uniform's initial weights and tf.random.normal's noise
    # are fixed ([0.5, 1.5, 4.0] and 0.5 sin(7x)), the dataset is unshuffled, 10 epochs (the guide runs 100)
    x = tnp.astype(tnp.linspace(-2, 2, 201), tj.float32)

    def f(x):
        return x ** 2 + 2 * x - 5

    y = f(x) + 0.5 * tnp.sin(7.0 * x)

    class Model(tj.Module):
        def __init__(self):
            rand_init = tj.constant([0.5, 1.5, 4.0])
            self.w_q = tj.Variable(rand_init[0])
            self.w_l = tj.Variable(rand_init[1])
            self.b = tj.Variable(rand_init[2])

        @tj.function
        def __call__(self, x):
            return self.w_q * (x ** 2) + self.w_l * x + self.b

    quad_model = Model()

    def mse_loss(y_pred, y):
        return tnp.mean(tnp.square(y_pred - y))

    np.testing.assert_allclose(float(mse_loss(quad_model(x), y)), 70.15738, rtol=1e-5)
    losses = []
    for epoch in range(10):
        for i in range(0, 201, 32):
            x_batch, y_batch = x[i:i + 32], y[i:i + 32]
            with tj.GradientTape() as tape:
                batch_loss = mse_loss(quad_model(x_batch), y_batch)
            grads = tape.gradient(batch_loss, quad_model.variables)
            for g, v in zip(grads, quad_model.variables):
                v.assign_sub(0.01 * g)
        losses.append(float(mse_loss(quad_model(x), y)))
    np.testing.assert_allclose(losses, [38.270538330078125, 27.6876220703125, 22.78093719482422, 19.741676330566406,
                                        17.484403610229492, 15.639874458312988, 14.058670043945312,
                                        12.669790267944336, 11.43412971496582, 10.327109336853027], rtol=1e-4)
    np.testing.assert_allclose([float(quad_model.w_q), float(quad_model.w_l), float(quad_model.b)],
                               [-0.7960718870162964, 2.451615810394287, -0.2903287410736084], rtol=1e-4)


# =====================================================================================================
# guide/tensor -- Introduction to Tensors (dtypes, shapes, indexing, reshaping, casting, broadcasting)
# =====================================================================================================

_RANK_3 = [[[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]], [[10, 11, 12, 13, 14], [15, 16, 17, 18, 19]],
           [[20, 21, 22, 23, 24], [25, 26, 27, 28, 29]]]


def test_tensor_basics_and_math():
    assert tj.constant(4).dtype == np.int32 and tj.constant(4).shape == ()
    assert tj.constant([2.0, 3.0, 4.0]).dtype == np.float32
    rank_2_tensor = tj.constant([[1, 2], [3, 4], [5, 6]], dtype=tj.float16)
    assert rank_2_tensor.dtype == np.float16 and np.array(rank_2_tensor).dtype == np.float16
    assert tj.constant(_RANK_3).shape == (3, 2, 5)
    a = tj.constant([[1, 2], [3, 4]])
    b = tj.constant([[1, 1], [1, 1]])
    np.testing.assert_array_equal(_np(tnp.add(a, b)), [[2, 3], [4, 5]])
    np.testing.assert_array_equal(_np(tnp.multiply(a, b)), [[1, 2], [3, 4]])
    np.testing.assert_array_equal(_np(tnp.matmul(a, b)), [[3, 3], [7, 7]])
    np.testing.assert_array_equal(_np(a @ b), [[3, 3], [7, 7]])
    c = tj.constant([[4.0, 5.0], [10.0, 1.0]])
    assert float(tnp.max(c)) == 10.0
    am = tnp.argmax(c, axis=0)  # tf.math.argmax's default axis is 0; TF's dtype int64, ours int32 (x64 off)
    np.testing.assert_array_equal(_np(am), [1, 0])
    np.testing.assert_allclose(_np(tj.nn.softmax(c)), [[0.2689414322376251, 0.7310585379600525],
                                                       [0.9998766183853149, 0.00012339458044152707]], rtol=1e-6)
    assert int(tnp.max(tj.convert_to_tensor([1, 2, 3]))) == 3
    assert int(tnp.max(np.array([1, 2, 3]))) == 3


def test_tensor_shapes():
    rank_4_tensor = tnp.zeros([3, 2, 4, 5])
    assert rank_4_tensor.dtype == np.float32
    assert rank_4_tensor.ndim == 4
    assert rank_4_tensor.shape == (3, 2, 4, 5)
    assert rank_4_tensor.shape[0] == 3 and rank_4_tensor.shape[-1] == 5
    assert rank_4_tensor.size == 120 and int(tnp.size(rank_4_tensor)) == 120


def test_tensor_indexing():
    rank_1_tensor = tj.constant([0, 1, 1, 2, 3, 5, 8, 13, 21, 34])
    assert int(rank_1_tensor[0]) == 0 and int(rank_1_tensor[1]) == 1 and int(rank_1_tensor[-1]) == 34
    np.testing.assert_array_equal(_np(rank_1_tensor[:]), [0, 1, 1, 2, 3, 5, 8, 13, 21, 34])
    np.testing.assert_array_equal(_np(rank_1_tensor[:4]), [0, 1, 1, 2])
    np.testing.assert_array_equal(_np(rank_1_tensor[4:]), [3, 5, 8, 13, 21, 34])
    np.testing.assert_array_equal(_np(rank_1_tensor[2:7]), [1, 2, 3, 5, 8])
    np.testing.assert_array_equal(_np(rank_1_tensor[::2]), [0, 1, 3, 8, 21])
    np.testing.assert_array_equal(_np(rank_1_tensor[::-1]), [34, 21, 13, 8, 5, 3, 2, 1, 1, 0])
    rank_2_tensor = tj.constant([[1, 2], [3, 4], [5, 6]], dtype=tj.float16)
    assert float(rank_2_tensor[1, 1]) == 4.0
    np.testing.assert_array_equal(_np(rank_2_tensor[1, :]), [3.0, 4.0])
    np.testing.assert_array_equal(_np(rank_2_tensor[:, 1]), [2.0, 4.0, 6.0])
    np.testing.assert_array_equal(_np(rank_2_tensor[-1, :]), [5.0, 6.0])
    assert float(rank_2_tensor[0, -1]) == 2.0
    np.testing.assert_array_equal(_np(rank_2_tensor[1:, :]), [[3.0, 4.0], [5.0, 6.0]])
    np.testing.assert_array_equal(_np(tj.constant(_RANK_3)[:, :, 4]), [[4, 9], [14, 19], [24, 29]])


def test_tensor_reshaping_and_its_error():
    x = tj.constant([[1], [2], [3]])
    assert x.shape == (3, 1)
    reshaped = tnp.reshape(x, [1, 3])
    assert x.shape == (3, 1) and reshaped.shape == (1, 3)
    rank_3_tensor = tj.constant(_RANK_3)
    np.testing.assert_array_equal(_np(tnp.reshape(rank_3_tensor, [-1])), np.arange(30))
    np.testing.assert_array_equal(_np(tnp.reshape(rank_3_tensor, [3 * 2, 5])), np.arange(30).reshape(6, 5))
    np.testing.assert_array_equal(_np(tnp.reshape(rank_3_tensor, [3, -1])), np.arange(30).reshape(3, 10))
    np.testing.assert_array_equal(_np(tnp.reshape(rank_3_tensor, [5, 6]))[0], [0, 1, 2, 3, 4, 5])
    # TF: InvalidArgumentError (an OpError, not a ValueError/TypeError); jax.numpy, which tnp mirrors, raises
    # TypeError for a size that does not divide
    with pytest.raises((TypeError, ValueError)):
        tnp.reshape(rank_3_tensor, [7, -1])


@pytest.mark.filterwarnings("ignore:Explicitly requested dtype float64")  # (x64 off: float64 is float32)
def test_tensor_dtypes_and_broadcasting():
    the_f64_tensor = tj.constant([2.2, 3.3, 4.4], dtype=tj.float64)
    the_f16_tensor = tnp.astype(the_f64_tensor, tj.float16)
    the_u8_tensor = tnp.astype(the_f16_tensor, tj.uint8)
    assert the_u8_tensor.dtype == np.uint8
    np.testing.assert_array_equal(_np(the_u8_tensor), [2, 3, 4])
    x = tj.constant([1, 2, 3])
    y = tj.constant(2)
    z = tj.constant([2, 2, 2])
    for r in (tnp.multiply(x, 2), x * y, x * z):
        np.testing.assert_array_equal(_np(r), [2, 4, 6])
    x = tnp.reshape(x, [3, 1])
    y = tnp.arange(1, 5)
    assert y.dtype == np.int32
    np.testing.assert_array_equal(_np(tnp.multiply(x, y)), [[1, 2, 3, 4], [2, 4, 6, 8], [3, 6, 9, 12]])
    x_stretch = tj.constant([[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]])
    y_stretch = tj.constant([[1, 2, 3, 4], [1, 2, 3, 4], [1, 2, 3, 4]])
    np.testing.assert_array_equal(_np(x_stretch * y_stretch), [[1, 2, 3, 4], [2, 4, 6, 8], [3, 6, 9, 12]])
    np.testing.assert_array_equal(_np(tnp.broadcast_to(tj.constant([1, 2, 3]), [3, 3])), [[1, 2, 3]] * 3)
    # a ragged list is not a tensor: TF raises ValueError
    with pytest.raises(ValueError):
        tj.constant([[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]])


# =====================================================================================================
# guide/tensor_slicing -- slicing (tf.slice as basic slicing) and gathering (tf.gather -> take,
# tf.gather_nd -> advanced indexing)
# =====================================================================================================

def test_tensor_slicing_slice():
    t1 = tj.constant([0, 1, 2, 3, 4, 5, 6, 7])
    np.testing.assert_array_equal(_np(t1[1:1 + 3]), [1, 2, 3])  # tf.slice(t1, begin=[1], size=[3])
    np.testing.assert_array_equal(_np(t1[1:4]), [1, 2, 3])
    np.testing.assert_array_equal(_np(t1[-3:]), [5, 6, 7])
    t2 = tj.constant([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11, 12, 13, 14], [15, 16, 17, 18, 19]])
    np.testing.assert_array_equal(_np(t2[:-1, 1:3]), [[1, 2], [6, 7], [11, 12]])
    t3 = tj.constant([[[1, 3, 5, 7], [9, 11, 13, 15]], [[17, 19, 21, 23], [25, 27, 29, 31]]])
    np.testing.assert_array_equal(_np(t3[1:2, 1:2, 0:2]), [[[25, 27]]])  # begin=[1, 1, 0], size=[1, 1, 2]


def test_tensor_slicing_gather():
    t1 = tj.constant([0, 1, 2, 3, 4, 5, 6, 7])
    np.testing.assert_array_equal(_np(tnp.take(t1, [0, 3, 6])), [0, 3, 6])
    np.testing.assert_array_equal(_np(t1[::3]), [0, 3, 6])
    t4 = tj.constant([[0, 5], [1, 6], [2, 7], [3, 8], [4, 9]])
    # tf.gather_nd(t4, indices=[[2], [3], [0]])
    np.testing.assert_array_equal(_np(t4[tj.constant([2, 3, 0])]), [[2, 7], [3, 8], [0, 5]])
    np.testing.assert_array_equal(_np(tnp.take(t4, [2, 3, 0], axis=0)), [[2, 7], [3, 8], [0, 5]])
    t5 = tj.constant(np.reshape(np.arange(18), [2, 3, 3]))
    # tf.gather_nd(t5, indices=[[0, 0, 0], [1, 2, 1]])
    np.testing.assert_array_equal(_np(t5[[0, 1], [0, 2], [0, 1]]), [0, 16])
    # tf.gather_nd(t5, indices=[[[0, 0], [0, 2]], [[1, 0], [1, 2]]])
    np.testing.assert_array_equal(_np(t5[np.array([[0, 0], [1, 1]]), np.array([[0, 2], [0, 2]])]),
                                  [[[0, 1, 2], [6, 7, 8]], [[9, 10, 11], [15, 16, 17]]])
    # tf.gather_nd(t5, indices=[[0, 0], [0, 2], [1, 0], [1, 2]])
    np.testing.assert_array_equal(_np(t5[[0, 0, 1, 1], [0, 2, 0, 2]]),
                                  [[0, 1, 2], [6, 7, 8], [9, 10, 11], [15, 16, 17]])
    # take_along_axis picks one element per row (tf.gather with batch_dims=1)
    np.testing.assert_array_equal(_np(tnp.take_along_axis(t4, tj.constant([[1], [0], [1], [0], [1]]), axis=1)),
                                  [[5], [1], [7], [3], [9]])


# =====================================================================================================
# guide/core/matrix_core -- SVD for image compression (tf.random.uniform A and the downloaded image replaced
# by deterministic arrays)
# =====================================================================================================

def _svd(a):
    # tf.linalg.svd(a) returns (s, U, V); tnp.linalg.svd (jax.numpy's) returns (U, s, Vh)
    u, s, vh = tnp.linalg.svd(a, full_matrices=False)
    return s, u, tnp.swapaxes(vh, -1, -2)


def _rank_r_approx(s, U, V, r):
    # cell: rank_r_approx
    s_r, U_r, V_r = s[..., :r], U[..., :, :r], V[..., :, :r]
    A_r = tnp.einsum("...s,...us,...vs->...uv", s_r, U_r, V_r)
    A_r_size = tnp.size(U_r) + tnp.size(s_r) + tnp.size(V_r)
    return A_r, A_r_size


def _matrix_a():
    return tj.constant((((np.arange(1200) * 7919) % 101) / 101.0).reshape(40, 30).astype(np.float32))


def test_matrix_svd_reconstruction_and_low_rank_sizes():
    A = _matrix_a()
    s, U, V = _svd(A)
    assert (s.shape, U.shape, V.shape) == ((30,), (40, 30), (30, 30))
    np.testing.assert_allclose(_np(s[:5]), [17.14948081970215, 5.683213710784912, 5.393157005310059,
                                            2.9530293941497803, 2.6685030460357666], rtol=1e-5)
    np.testing.assert_allclose(float(s[-1]), 0.0019351027, rtol=1e-3)
    A_svd = tnp.einsum("s,us,vs -> uv", s, U, V)
    assert float(tnp.max(tnp.abs(A_svd - A))) < 1e-5  # TF: 2.52e-06
    assert int(tnp.size(A)) == 1200
    assert int(_rank_r_approx(s, U, V, 15)[1]) == 1065
    assert int(_rank_r_approx(s, U, V, 3)[1]) == 213


def test_matrix_eckart_young():
    # last cells: the squared Frobenius error of the rank-10 approximation is the sum of the squared
    # singular values left out (TF prints 10.052 and 10.052)
    A = _matrix_a()
    s, U, V = _svd(A)
    A_10, _ = _rank_r_approx(s, U, V, 10)
    np.testing.assert_allclose(float(tnp.linalg.norm(A - A_10) ** 2), 10.051562309265137, rtol=1e-4)
    np.testing.assert_allclose(float(tnp.sum(s[10:] ** 2)), 10.051584243774414, rtol=1e-4)


def test_matrix_image_compression_batched_over_channels():
    # compress_image and the energy cells on a (6, 4, 3) "image"; tf.map_fn -> a batched cumsum
    I = tj.constant((((np.arange(72) * 37) % 23) * 11.0).reshape(6, 4, 3).astype(np.float32))
    I_size = tnp.size(I)
    In = tj.convert_to_tensor(I) / 255
    s, U, V = _svd(tnp.transpose(In, [2, 0, 1]))
    I_r, I_r_size = _rank_r_approx(s, U, V, 2)
    I_r = tnp.transpose(I_r, [1, 2, 0])
    assert I_r.shape == (6, 4, 3)
    np.testing.assert_allclose(float(I_r_size / I_size), 0.9166666666666666, rtol=1e-6)
    np.testing.assert_allclose(float(tnp.linalg.norm(In - I_r)), 1.2328779697418213, rtol=1e-4)
    props_rgb = tnp.cumsum(s, axis=-1) / tnp.sum(s, axis=-1, keepdims=True)
    props_rgb_mean = tnp.mean(props_rgb, axis=0)
    np.testing.assert_allclose(_np(props_rgb_mean), [0.5638721585273743, 0.7982263565063477, 0.9485728144645691, 1.0],
                               rtol=1e-5)
    assert int(tnp.argmin(tnp.abs(props_rgb_mean - 0.75))) + 1 == 2


# =====================================================================================================
# guide/core/logistic_regression_core -- the tf.Module parts on a small synthetic dataset (the guide downloads
# the Wisconsin breast cancer data); tf.random.uniform's initial weights fixed, batches unshuffled
# =====================================================================================================

def _logistic_data():
    xs = ((np.arange(48 * 3) * 13 % 17) / 4.0 + np.repeat(np.arange(48) % 2, 3) * 1.5).reshape(48, 3)
    ys = (np.arange(48) % 2).astype(np.float32)
    xs = xs.astype(np.float32)
    return (tj.convert_to_tensor(xs[:36], dtype=tj.float32), tj.convert_to_tensor(ys[:36], dtype=tj.float32),
            tj.convert_to_tensor(xs[36:], dtype=tj.float32), tj.convert_to_tensor(ys[36:], dtype=tj.float32))


class _Normalize(tj.Module):
    def __init__(self, x):
        self.mean = tj.Variable(tnp.mean(x, axis=0))
        self.std = tj.Variable(tnp.std(x, axis=0))

    def norm(self, x):
        return (x - self.mean) / self.std

    def unnorm(self, x):
        return (x * self.std) + self.mean


def _sigmoid_cross_entropy_with_logits(labels, logits):
    # tf.nn.sigmoid_cross_entropy_with_logits, by its documented stable formula
    return tnp.maximum(logits, 0) - logits * labels + tnp.log1p(tnp.exp(-tnp.abs(logits)))


def _log_loss(y_pred, y):
    return tnp.mean(_sigmoid_cross_entropy_with_logits(labels=y, logits=y_pred))


class _LogisticRegression(tj.Module):
    def __init__(self):
        self.built = False

    def __call__(self, x, train=True):
        if not self.built:
            self.w = tj.Variable(tnp.reshape(tnp.arange(x.shape[-1], dtype=tj.float32) * 0.25 + 0.1,
                                             [x.shape[-1], 1]))
            self.b = tj.Variable(0.3)
            self.built = True
        z = tnp.add(tnp.matmul(x, self.w), self.b)
        z = tnp.squeeze(z, axis=1)
        if train:
            return z
        return tj.nn.sigmoid(z)


def _predict_class(y_pred, thresh=0.5):
    return tnp.astype(y_pred > thresh, tj.float32)


def _accuracy(y_pred, y):
    y_pred_class = _predict_class(tj.nn.sigmoid(y_pred))
    return tnp.mean(tnp.astype(y_pred_class == y, tj.float32))


def test_logistic_regression_normalize_and_loss():
    x_train, _, _, _ = _logistic_data()
    norm_x = _Normalize(x_train)
    np.testing.assert_allclose(_np(norm_x.mean), [2.6736111640930176, 2.7361111640930176, 2.7986111640930176],
                               rtol=1e-6)
    np.testing.assert_allclose(_np(norm_x.std), [1.4670209884643555, 1.4079936742782593, 1.446763038635254],
                               rtol=1e-5)
    assert float(tnp.max(tnp.abs(norm_x.unnorm(norm_x.norm(x_train)) - x_train))) < 1e-6
    ce = _sigmoid_cross_entropy_with_logits(labels=tj.constant([0.0, 1.0, 1.0, 0.0]),
                                            logits=tj.constant([-30.0, -2.0, 0.5, 40.0]))
    np.testing.assert_allclose(_np(ce), [9.357622912219837e-14, 2.1269280910491943, 0.4740769863128662, 40.0],
                               rtol=1e-6)


def test_logistic_regression_training_and_export_module():
    x_train, y_train, x_test, y_test = _logistic_data()
    norm_x = _Normalize(x_train)
    x_train_norm, x_test_norm = norm_x.norm(x_train), norm_x.norm(x_test)
    log_reg = _LogisticRegression()
    np.testing.assert_allclose(_np(log_reg(x_train_norm[:5], train=False)),
                               [0.504493772983551, 0.7257243394851685, 0.2744053602218628, 0.7386847138404846,
                                0.637972354888916], rtol=1e-5)
    train_losses, train_accs, test_losses = [], [], []
    for epoch in range(20):
        batch_losses, batch_accs = [], []
        for i in range(0, 36, 16):
            x_batch, y_batch = x_train_norm[i:i + 16], y_train[i:i + 16]
            with tj.GradientTape() as tape:
                y_pred_batch = log_reg(x_batch)
                batch_loss = _log_loss(y_pred_batch, y_batch)
            batch_acc = _accuracy(y_pred_batch, y_batch)
            grads = tape.gradient(batch_loss, log_reg.variables)
            for g, v in zip(grads, log_reg.variables):
                v.assign_sub(0.01 * g)
            batch_losses.append(batch_loss)
            batch_accs.append(batch_acc)
        train_losses.append(float(tnp.mean(tnp.stack(batch_losses))))
        train_accs.append(float(tnp.mean(tnp.stack(batch_accs))))
        test_losses.append(float(_log_loss(log_reg(x_test_norm), y_test)))
    np.testing.assert_allclose(train_losses[::5], [0.5180100798606873, 0.5010759234428406, 0.48541414737701416,
                                                   0.47090962529182434], rtol=1e-5)
    np.testing.assert_allclose(train_losses[-1], 0.46006834506988525, rtol=1e-5)
    assert train_accs[-1] == 0.8125
    np.testing.assert_allclose(test_losses[-1], 0.4769251346588135, rtol=1e-5)

    class ExportModule(tj.Module):
        def __init__(self, model, norm_x, class_pred):
            self.model = model
            self.norm_x = norm_x
            self.class_pred = class_pred

        @tj.function
        def __call__(self, x):
            x = self.norm_x.norm(x)
            y = self.model(x, train=False)
            return self.class_pred(y)

    log_reg_export = ExportModule(model=log_reg, norm_x=norm_x, class_pred=_predict_class)
    np.testing.assert_array_equal(_np(log_reg_export(x_test)),
                                  [0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0])
    assert len(log_reg_export.variables) == 4 and len(log_reg_export.trainable_variables) == 4


def test_optimizers_viz_paths_loss_grid():
    # cell piffzGHI_u5G: tf.meshgrid(t_vals, x_vals) and the log-loss grid (on 5 x values and 3 iterations),
    # and the gradients through meshgrid (a broadcast: summed back to each input), as TF 2.21 gives them
    x_vals = tnp.astype(tnp.linspace(-2, 2, 5), tj.float32)
    t_vals = tnp.arange(1.0, 4.0)
    t_grid, x_grid = tnp.meshgrid(t_vals, x_vals)
    assert t_grid.shape == (5, 3) and x_grid.shape == (5, 3)
    np.testing.assert_array_equal(_np(t_grid), [[1.0, 2.0, 3.0]] * 5)
    np.testing.assert_array_equal(_np(x_grid), [[v] * 3 for v in (-2.0, -1.0, 0.0, 1.0, 2.0)])
    loss_grid = tnp.log(_loss(x_grid))
    np.testing.assert_allclose(_np(loss_grid), [[v] * 3 for v in (2.3025851249694824, 0.0, 0.6931471824645996,
                                                                  1.945910096168518, 4.060442924499512)], rtol=1e-6)
    with tj.GradientTape() as tape:
        tape.watch(x_vals)
        tape.watch(t_vals)
        a, b = tnp.meshgrid(t_vals, x_vals)
        y = tnp.sum(a * b * b)
    gt, gx = tape.gradient(y, [t_vals, x_vals])
    np.testing.assert_allclose(_np(gt), [10.0, 10.0, 10.0])
    np.testing.assert_allclose(_np(gx), [-24.0, -12.0, 0.0, 12.0, 24.0])
    assert tnp.meshgrid(t_vals, x_vals, indexing="ij")[0].shape == (3, 5)
