"""TF-style uses of tj.train's checkpoints and tj.random, as TF's guides write them ("Training checkpoints",
"Introduction to modules"), checked against what TF 2.21 does (noted beside each; no TF import here).

* ``ckpt.restore(manager.latest_checkpoint)`` before any save is a no-op (TF: an initialization-only
  status); ``restore`` returns a status with TF's assertion methods; the Checkpoint's objects are its
  attributes (``ckpt.step.assign_add(1)``, ``ckpt.listed = [...]``); ``write``/``read``;
  ``tj.train.latest_checkpoint`` / ``list_variables``; ``manager.save(checkpoint_number=...)``.
* An optimizer restored before its first step gets its saved state when it builds (TF's deferred
  restoration of slot variables): training resumes exactly where it stopped.
* ``tj.random.normal(shape)`` / ``uniform(shape, ...)`` are TF's stateful draws from a global generator that
  ``tj.random.set_seed`` restarts; keyed (JAX-style) calls are unchanged.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy


def _model():
    class Net(tj.Module):
        def __init__(self):
            super().__init__()
            self.w = tj.Variable(np.arange(6, dtype=np.float32).reshape(3, 2) / 10, name="w")
            self.b = tj.Variable(np.zeros(2, np.float32), name="b")

        def __call__(self, x):
            return tnp.tanh(x @ self.w + self.b)
    return Net()


_X = tj.constant(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
_Y = tj.constant(np.linspace(0, 1, 8, dtype=np.float32).reshape(4, 2))


def _train(net, opt, steps):
    for _ in range(steps):
        with tj.GradientTape() as tape:
            loss = tnp.mean((net(_X) - _Y) ** 2)
        grads = tape.gradient(loss, net.trainable_variables)
        opt.apply_gradients(zip(grads, net.trainable_variables))


def _values(*objs):
    return [np.asarray(v.numpy()) for o in objs for v in o.variables]


# -- checkpoints --------------------------------------------------------------------------------------

def test_restore_none_is_a_no_op_with_an_initialization_status(tmp_path):
    # TF: ckpt.restore(manager.latest_checkpoint) with no checkpoint yet -> InitializationOnlyStatus; its
    # assert_consumed() raises AssertionError; expect_partial() is fine.
    v = tj.Variable(3.0)
    ckpt = tj.train.Checkpoint(v=v)
    manager = tj.train.CheckpointManager(ckpt, tmp_path / "ckpts", max_to_keep=3)
    assert manager.latest_checkpoint is None
    status = ckpt.restore(manager.latest_checkpoint)
    assert float(v) == 3.0 and not status
    status.expect_partial()
    with pytest.raises(AssertionError, match="nothing was restored"):
        status.assert_consumed()
    path = manager.save()
    v.assign(5.0)
    status = ckpt.restore(manager.latest_checkpoint)
    assert float(v) == 3.0 and status == path
    assert status.assert_consumed() is status and status.assert_existing_objects_matched() is status


def test_objects_are_attributes_and_can_be_added_as_attributes(tmp_path):
    # TF's guide: ckpt = tf.train.Checkpoint(step=tf.Variable(1), ...); ckpt.step.assign_add(1);
    # save = tf.train.Checkpoint(); save.listed = [tf.Variable(1.)]; save.listed.append(tf.Variable(2.));
    # save.mapped = {'one': save.listed[0]}; save.mapped['two'] = save.listed[1]; then a Checkpoint holding only
    # mapped={'two': v2} restores v2 == 2.0 (TF matches by name; here by structure, the rest is left).
    ckpt = tj.train.Checkpoint(step=tj.Variable(1))
    ckpt.step.assign_add(1)
    assert int(ckpt.step) == 2
    with pytest.raises(AttributeError, match="no attribute 'missing'"):
        ckpt.missing
    save = tj.train.Checkpoint()
    save.listed = [tj.Variable(1.)]
    save.listed.append(tj.Variable(2.))
    save.mapped = {"one": save.listed[0]}
    save.mapped["two"] = save.listed[1]
    save_path = save.save(tmp_path / "list_example")
    restore = tj.train.Checkpoint()
    v2 = tj.Variable(0.)
    restore.mapped = {"two": v2}
    status = restore.restore(save_path)
    assert float(v2) == 2.0
    with pytest.raises(AssertionError, match="Unresolved object"):  # (TF: the rest is unused)
        status.assert_consumed()
    status.expect_partial()
    restore.name = "not a variable"  # TF: an attribute that is not trackable is ordinary, not saved
    assert restore.name == "not a variable" and "name" not in restore.variables()
    # TF: an empty Checkpoint saves its save_counter
    assert tj.train.Checkpoint().save(tmp_path / "empty") == str(tmp_path / "empty-1")


def test_write_read_list_variables_and_latest_checkpoint(tmp_path):
    net = _model()
    ckpt = tj.train.Checkpoint(model=net, step=tj.Variable(7))
    path = ckpt.write(tmp_path / "ck")
    # TF's tf.train.list_variables: (name, shape) pairs sorted by name.
    # (TF's names end in /.ATTRIBUTES/VARIABLE_VALUE: model/b/.ATTRIBUTES/VARIABLE_VALUE ...)
    assert tj.train.list_variables(path) == [("model/b", (2,)), ("model/w", (3, 2)), ("step", ())]
    before = _values(net)
    net.w.assign(tnp.zeros((3, 2)))
    ckpt.read(path)
    for a, b in zip(before, _values(net)):
        np.testing.assert_array_equal(a, b)
    directory = tmp_path / "managed"
    assert tj.train.latest_checkpoint(directory) is None  # TF: None for a directory with no checkpoint
    manager = tj.train.CheckpointManager(ckpt, directory, max_to_keep=2)
    first = manager.save(checkpoint_number=5)
    assert manager.latest_step == 5 and tj.train.latest_checkpoint(directory) == first
    second = manager.save()
    assert tj.train.latest_checkpoint(directory) == second == manager.latest_checkpoint
    assert tj.train.list_variables(directory) == tj.train.list_variables(second)
    with pytest.raises(TypeError, match="not both"):
        manager.save(step=3, checkpoint_number=4)


def test_optimizer_restored_before_its_first_step_resumes_exactly(tmp_path):
    # TF: restoring a checkpoint into a fresh optimizer defers its slot variables until they are created, so
    # training resumes with the saved Adam moments, not fresh ones.
    # (replay_exact: the two runs' steps 4 and 5 may take different paths, e.g. one step's update fused into
    # its replayed program in the first run and compiled on its own in the second; without it those paths
    # may round one ulp apart, as XLA:CPU of jaxlib 0.11.2 did after this file's earlier tests)
    with tj.config.override(replay_exact=True):
        net, opt = _model(), tj.optimizers.Adam(0.05)
        _train(net, opt, 3)
        path = tj.train.Checkpoint(model=net, optimizer=opt).save(tmp_path / "ck")
        _train(net, opt, 2)  # the run that was not interrupted
        expected = _values(net, opt)

        net2, opt2 = _model(), tj.optimizers.Adam(0.05)
        assert not opt2.built
        tj.train.Checkpoint(model=net2, optimizer=opt2).restore(path).assert_consumed()
        assert int(opt2.iterations) == 3
        _train(net2, opt2, 2)
        got = _values(net2, opt2)
    assert len(got) == len(expected)
    for a, b in zip(expected, got):
        np.testing.assert_array_equal(a, b)


def test_deferred_optimizer_state_of_other_shapes_raises_at_build_and_builds_nothing(tmp_path):
    net, opt = _model(), tj.optimizers.Adam(0.05)
    _train(net, opt, 1)
    path = tj.train.Checkpoint(optimizer=opt).save(tmp_path / "ck")
    opt2 = tj.optimizers.Adam(0.05)
    tj.train.Checkpoint(optimizer=opt2).restore(path)
    other = tj.Variable(np.ones((5,), np.float32))
    with pytest.raises(ValueError, match=r"does not fit.*saved shape \(3, 2\)"):
        opt2.build([other, tj.Variable(np.ones((2,), np.float32))])
    assert not opt2.built and len(opt2.variables) == 2


# -- TF-style random draws ----------------------------------------------------------------------------

def test_tf_style_draws_repeat_after_set_seed():
    # TF: tf.random.set_seed(1); a = tf.random.normal([2]); b = tf.random.normal([2]); tf.random.set_seed(1);
    # c = tf.random.normal([2])  ->  a == c, a != b (the numbers themselves are TF's own PRNG's).
    tj.random.set_seed(1)
    a, b = tj.random.normal([2]), tj.random.normal([2])
    tj.random.set_seed(1)
    c = tj.random.normal([2])
    np.testing.assert_array_equal(a.numpy(), c.numpy())
    assert not np.array_equal(a.numpy(), b.numpy())
    # op seeds: each call with the same seed draws anew; set_seed restarts the sequence (TF).
    tj.random.set_seed(2)
    s1, s2 = tj.random.uniform([3], seed=7), tj.random.uniform([3], seed=7)
    tj.random.set_seed(2)
    np.testing.assert_array_equal(tj.random.uniform([3], seed=7).numpy(), s1.numpy())
    assert not np.array_equal(s1.numpy(), s2.numpy())


def test_tf_style_shapes_dtypes_and_arguments():
    tj.random.set_seed(0)
    assert tj.random.normal([2, 3]).shape == (2, 3) and tj.random.normal([2, 3]).dtype == jnp.float32
    assert tj.random.normal(tj.constant([4, 1])).shape == (4, 1)  # TF: a shape Tensor
    assert tj.random.normal(()).shape == () and tj.random.normal(shape=[5]).shape == (5,)
    z = tj.random.normal([2000], 5.0, 0.01)  # TF's positional order: shape, mean, stddev
    assert abs(float(tnp.mean(z)) - 5.0) < 0.01
    n = tj.random.uniform([2000], 0, 10, dtype=tj.int32)  # TF: ints in [0, 10)
    assert n.dtype == jnp.int32 and int(tnp.min(n)) >= 0 and int(tnp.max(n)) <= 9
    u = tj.random.uniform([2000], -2.0, 3.0)
    assert -2.0 <= float(tnp.min(u)) and float(tnp.max(u)) < 3.0
    with pytest.raises(ValueError, match="maxval"):  # TF: "Must specify maxval for integer dtype"
        tj.random.uniform([2], dtype=tj.int32)
    # (TF: a scalar shape is an error; here a bare int stays the JAX-style misuse of a seed as a key)
    with pytest.raises(TypeError, match="tj.random.key"):
        tj.random.normal(3, (2,))
    k = tj.random.key(0)  # the keyed calls are unchanged
    np.testing.assert_array_equal(tj.random.normal(k, (2,)).numpy(), tj.random.normal(key=k, shape=(2,)).numpy())
    with pytest.raises(TypeError):
        tj.random.normal(k, (2,), mean=1.0)


def test_tf_style_draws_are_differentiable_in_mean_and_new_in_each_function_call():
    m = tj.Variable(1.0)
    with tj.GradientTape() as tape:
        z = tj.random.normal([3], mean=m, stddev=2.0)
    assert float(tape.gradient(z, m)) == 3.0  # TF: z = draw * stddev + mean

    @tj.function
    def noisy(x):
        return x + tj.random.normal([2])

    @tj.function
    def seeded(x):
        return x + tj.random.uniform([2], seed=11)

    zero = tj.constant([0.0, 0.0])
    for f in (noisy, seeded):
        a, b = f(zero).numpy(), f(zero).numpy()
        assert not np.array_equal(a, b)


def test_save_numbers_checkpoints_from_save_counter_as_tf(tmp_path):
    # TF: ckpt.save(prefix) writes prefix-1, prefix-2, ... (save_counter); restoring one sets save_counter to
    # its number, so the next save continues the numbering.
    v = tj.Variable(1.0)
    ckpt = tj.train.Checkpoint(v=v)
    prefix = str(tmp_path / "ckpt")
    first = ckpt.save(prefix)
    v.assign(2.0)
    second = ckpt.save(prefix)
    assert (first, second) == (prefix + "-1", prefix + "-2") and int(ckpt.save_counter) == 2
    v.assign(3.0)
    ckpt.restore(first)
    assert float(v) == 1.0 and int(ckpt.save_counter) == 1
    ckpt.restore(prefix)  # (here: the prefix restores its newest checkpoint)
    assert float(v) == 2.0 and int(ckpt.save_counter) == 2
    fresh_v = tj.Variable(0.0)
    fresh = tj.train.Checkpoint(v=fresh_v)
    fresh.restore(second).assert_consumed()
    assert float(fresh_v) == 2.0 and int(fresh.save_counter) == 2
    assert fresh.save(prefix) == prefix + "-3"
    # A Checkpoint that starts counting again replaces an earlier run's checkpoint, as TF.
    again = tj.train.Checkpoint(v=tj.Variable(9.0))
    assert again.save(prefix) == prefix + "-1" and int(again.save_counter) == 1
    fresh.restore(first)
    assert float(fresh_v) == 9.0
    assert tj.train.list_variables(first) == [("save_counter", ()), ("v", ())]
    with pytest.raises(ValueError, match="save_counter"):
        tj.train.Checkpoint(save_counter=tj.Variable(1))
