"""The Training section of API.md against TensorFlow 2.21 / Keras 3.15 where they define the behaviour.

The expected values were computed once with TF/Keras (the script is quoted in each test's comment) and
are written here by hand: these tests do not need TensorFlow.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

import tapejax as tj


# -- tj.Module ----------------------------------------------------------------------------------------------
def test_module_name_scope_is_an_object_with_the_scope_name():
    # TF: tf.Module(name="enc").name_scope.name == "enc/"; `with m.name_scope as s` gives "enc/"
    outer = tj.Module(name="enc")
    assert outer.name_scope.name == "enc/"
    with outer.name_scope as scope:
        assert scope == "enc/"
        inner = tj.Module(name="dec")
        with outer.name_scope:  # entered again while inside it: still the absolute scope
            assert tj.Variable(1.0, name="u").name == "enc/u"
        assert tj.Variable(1.0, name="w").name == "enc/w"
    assert inner.name_scope.name == "enc/dec/"
    assert tj.Variable(1.0, name="free").name == "free"
    scope = inner.name_scope  # one object, entered twice in turn
    for _ in range(2):
        with scope:
            assert tj.Variable(1.0, name="k").name == "enc/dec/k"
    assert tj.Variable(1.0, name="free").name == "free"


# -- optimizers ----------------------------------------------------------------------------------------
def test_a_variable_given_twice_to_apply_gradients_is_refused_and_left_unchanged():
    # TF/Keras 3 applies both pairs racing (SGD(0.1) on [1, 2] with [1, 1] twice gave [0.8, 1.8]); tapejax
    # stored only the last update (one gradient silently lost): it now refuses, naming the variable.
    v = tj.Variable([1.0, 2.0], name="twice")
    opt = tj.optimizers.SGD(0.1)
    with pytest.raises(ValueError, match="'twice' appears more than once"):
        opt.apply_gradients([(tj.constant([1.0, 1.0]), v), (tj.constant([1.0, 1.0]), v)])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    assert int(opt.iterations.numpy()) == 0


def test_optimizer_built_flag():
    # Keras: optimizer.built is False until build() / the first apply_gradients
    opt = tj.optimizers.Adam()
    assert opt.built is False
    opt.build([tj.Variable([1.0])])
    assert opt.built is True


# -- clipping ------------------------------------------------------------------------------------------
def test_clip_by_norm_treats_a_negative_clip_norm_as_zero():
    # tf.clip_by_norm([[3., 4.], [0., 0.]], -1.0) -> [[0., 0.], [0., 0.]] (TF documents: "treated as zero");
    # tapejax gave [[-0.6, -0.8], ...], the values flipped in sign.
    x = np.array([[3.0, 4.0], [0.0, 0.0]], np.float32)
    for clip in (-1.0, tj.constant(-1.0), 0.0):
        out = tj.clip_by_norm(x, clip).numpy()
        np.testing.assert_array_equal(out, np.zeros((2, 2), np.float32))
        assert not np.signbit(out[0]).any()
    # a positive clip_norm as before: tf.clip_by_norm([[3., 4.], [0., 0.]], 2.0, axes=[1])
    np.testing.assert_allclose(tj.clip_by_norm(x, 2.0, axes=[1]).numpy(), [[1.2, 1.6], [0.0, 0.0]], rtol=1e-6)


def test_clip_by_norm_gradient_with_respect_to_clip_norm():
    # TF: v = [3., 4.], c = 1.0, y = reduce_sum(clip_by_norm(v, c)): dy/dv = [0.032, -0.024], dy/dc = 1.4
    v, c = tj.Variable([3.0, 4.0]), tj.Variable(1.0)
    with tj.GradientTape() as tape:
        y = tj.clip_by_norm(v, c).sum()
    gv, gc = tape.gradient(y, [v, c])
    np.testing.assert_allclose(gv.numpy(), [0.032, -0.024], rtol=1e-5)
    np.testing.assert_allclose(gc.numpy(), 1.4, rtol=1e-6)


def test_clip_by_norm_refuses_a_clip_norm_that_would_enlarge_t():
    # TF: ValueError (values.shape.assert_is_compatible_with(intermediate.shape)); tapejax broadcast t to (2, 2)
    with pytest.raises(ValueError, match=r"clip_norm of shape \(2, 1\)"):
        tj.clip_by_norm([3.0, 4.0], [[1.0], [2.0]])
    # one clip_norm per row broadcasting against the norm is fine (TF: [[0.6, 1.6], [0., 0.]])
    out = tj.clip_by_norm([[3.0, 4.0], [0.0, 0.0]], tj.constant([1.0, 2.0]))
    np.testing.assert_allclose(out.numpy(), [[0.6, 1.6], [0.0, 0.0]], rtol=1e-6)


# -- checkpoints ---------------------------------------------------------------------------------------
def test_restoring_a_manager_directory_is_a_clear_error(tmp_path):
    # The manager's directory holds steps, not variables: orbax raised KeyError('Unknown key: variables...').
    v = tj.Variable([1.0, 2.0])
    ckpt = tj.train.Checkpoint(v=v)
    manager = tj.train.CheckpointManager(ckpt, tmp_path / "runs", max_to_keep=2)
    manager.save()
    os.makedirs(tmp_path / "empty")
    v.assign([5.0, 6.0])
    for path in (tmp_path / "runs", tmp_path / "empty"):
        with pytest.raises(FileNotFoundError, match="latest_checkpoint"):
            ckpt.restore(path)
    np.testing.assert_array_equal(v.numpy(), [5.0, 6.0])
    ckpt.restore(manager.latest_checkpoint)
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_restoring_into_an_optimizer_without_state_says_to_build_it(tmp_path):
    v, opt = tj.Variable([1.0]), tj.optimizers.Adam()
    opt.apply_gradients([(tj.constant([1.0]), v)])
    path = tj.train.Checkpoint(model=v, opt=opt).save(tmp_path / "a")
    fresh_v, fresh_opt = tj.Variable([0.0]), tj.optimizers.Adam()
    with pytest.raises(ValueError, match=r"'opt' is an optimizer that has no state yet: build it first"):
        tj.train.Checkpoint(model=fresh_v, opt=fresh_opt).restore(path)
    fresh_opt.build([fresh_v])
    tj.train.Checkpoint(model=fresh_v, opt=fresh_opt).restore(path)
    assert int(fresh_opt.iterations.numpy()) == 1
    np.testing.assert_array_equal(fresh_v.numpy(), v.numpy())
