"""The Training section of API.md against TensorFlow 2.21 / Keras 3.15 where they define the behaviour.

The expected values were computed once with TF/Keras (the script is quoted in each test's comment) and
are written here by hand: these tests do not need TensorFlow.
"""
from __future__ import annotations

import os
import warnings

import jax
import numpy as np
import optax
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
            assert tj.Variable(1.0, name="u").name == "enc/u:0"
        assert tj.Variable(1.0, name="w").name == "enc/w:0"
    assert inner.name_scope.name == "enc/dec/"
    assert tj.Variable(1.0, name="free").name == "free:0"
    scope = inner.name_scope  # one object, entered twice in turn
    for _ in range(2):
        with scope:
            assert tj.Variable(1.0, name="k").name == "enc/dec/k:0"
    assert tj.Variable(1.0, name="free").name == "free:0"


# -- optimizers ----------------------------------------------------------------------------------------
def test_a_variable_given_twice_to_apply_gradients_gets_both_updates_as_keras():
    # Keras 3 applies both pairs in turn at one step count: SGD(0.1) on [1, 2] with [1, 1] twice gives [0.8, 1.8]
    v = tj.Variable([1.0, 2.0], name="twice")
    opt = tj.optimizers.SGD(0.1)
    opt.apply_gradients([(tj.constant([1.0, 1.0]), v), (tj.constant([1.0, 1.0]), v)])
    np.testing.assert_allclose(v.numpy(), [0.8, 1.8], rtol=1e-6)
    assert int(opt.iterations.numpy()) == 1


def test_optimizer_built_flag():
    # Keras: optimizer.built is False until build() / the first apply_gradients
    opt = tj.optimizers.Adam()
    assert opt.built is False
    opt.build([tj.Variable([1.0])])
    assert opt.built is True


# Keras 3.15's options on every optimizer (weight_decay, clipnorm, clipvalue, global_clipnorm) and Adam's
# amsgrad; tapejax rejected them (TypeError: unexpected keyword argument). Expected values from:
#   K = keras.optimizers; o = <case>; w, b = tf.Variable(W0), tf.Variable(B0)
#   for gw, gb in GRADS: o.apply_gradients([(tf.constant(gw), w)] + ([] if gb is None else [(tf.constant(gb), b)]))
W0, B0 = [1.0, -2.0, 0.5], [0.3]
GRADS = [([0.5, -1.5, 2.0], [1.0]), ([0.01, 0.02, -0.03], [-0.5]), ([3.0, 0.0, -4.0], None), ([-0.2, 0.4, 0.1], [2.0])]
KERAS_OPTIONS = {
    "sgd_nesterov_wd_clipnorm": (
        lambda: tj.optimizers.SGD(0.1, momentum=0.9, nesterov=True, weight_decay=0.2, clipnorm=1.0),
        [0.719495415687561, -1.6958158016204834, 0.3571659028530121], [-0.10879838466644287]),
    "sgd_clipvalue": (
        lambda: tj.optimizers.SGD(0.1, clipvalue=0.3),
        [0.9589999914169312, -2.002000093460083, 0.4930000305175781], [0.27000001072883606]),
    "rmsprop_centered_wd_global_clipnorm": (
        lambda: tj.optimizers.RMSprop(0.01, momentum=0.5, centered=True, weight_decay=0.3, global_clipnorm=0.5),
        [0.8751761317253113, -1.9306259155273438, 0.4719499349594116], [0.2627331614494324]),
    "adagrad_wd_clipnorm": (
        lambda: tj.optimizers.Adagrad(0.1, weight_decay=0.3, clipnorm=0.5),
        [0.8311543464660645, -1.780684471130371, 0.4220913052558899], [0.20266197621822357]),
    "adam_amsgrad": (
        lambda: tj.optimizers.Adam(0.05, amsgrad=True),
        [0.8525176644325256, -1.878828763961792, 0.447694331407547], [0.20674997568130493]),
    "adam_amsgrad_wd_eps": (
        lambda: tj.optimizers.Adam(0.05, amsgrad=True, weight_decay=0.1, epsilon=1e-2),
        [0.8720815777778625, -1.8611587285995483, 0.4479158818721771], [0.22128351032733917]),
    "adamw_amsgrad_clipvalue": (
        lambda: tj.optimizers.AdamW(0.05, amsgrad=True, clipvalue=0.5),
        [0.849082350730896, -1.894093632698059, 0.42433682084083557], [0.2371983677148819]),
    "adam_wd": (
        lambda: tj.optimizers.Adam(0.05, weight_decay=0.1),
        [0.8339239954948425, -1.8402940034866333, 0.4387485384941101], [0.2028377503156662]),
    # Keras: SGD(keras.optimizers.schedules.ExponentialDecay(0.1, 1, 0.5), weight_decay=0.5)
    "sgd_schedule_wd": (
        lambda: tj.optimizers.SGD(optax.exponential_decay(0.1, transition_steps=1, decay_rate=0.5), weight_decay=0.5),
        [0.7885935306549072, -1.6803724765777588, 0.36271557211875916], [0.1790914237499237]),
}


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "tj_function"])
@pytest.mark.parametrize("case", sorted(KERAS_OPTIONS))
def test_keras_optimizer_options_match_keras(case, compiled):
    make, w_expected, b_expected = KERAS_OPTIONS[case]
    opt, w, b = make(), tj.Variable(W0), tj.Variable(B0)

    def step(gw, gb):
        opt.apply_gradients([(gw, w), (gb, b)])
    step = tj.function(step) if compiled else step
    for gw, gb in GRADS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the None gradient's warning
            step(tj.constant(gw), None if gb is None else tj.constant(gb))
    # TF's own float32 tolerance (assertAllClose's default): every case is within 2 ulps of Keras's values
    np.testing.assert_allclose(w.numpy(), w_expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(b.numpy(), b_expected, rtol=1e-6, atol=1e-6)
    assert int(opt.iterations.numpy()) == len(GRADS)


def test_keras_optimizer_option_errors():
    # Keras: ValueError "Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. Received: ..."
    with pytest.raises(ValueError, match="Only one of `clipnorm`, `clipvalue` and `global_clipnorm`"):
        tj.optimizers.SGD(clipnorm=1.0, clipvalue=1.0)
    with pytest.raises(ValueError, match="weight_decay"):  # Keras: "Argument `weight_decay` must be a float"
        tj.optimizers.AdamW(weight_decay=None)


def test_default_options_keep_the_plain_optax_state():
    # no option given: the optimizer's state is the bare transformation's (checkpoints keep their layout)
    v = tj.Variable([1.0, 2.0])
    for opt, bare in [(tj.optimizers.SGD(0.1, momentum=0.9), optax.sgd(0.1, momentum=0.9)),
                      (tj.optimizers.Adagrad(), optax.adagrad(0.001, 0.1, eps=1e-7))]:
        opt.build([v])
        # (iterations and the learning_rate Variable, then the state)
        assert len(opt.variables) == 2 + len(jax.tree_util.tree_leaves(bare.init([v.numpy()])))


def test_a_per_variable_optax_mask_with_a_none_gradient_is_a_clear_error():
    # optax.adamw(mask=[...]) / multi_transform(labels=[...]) hold a tree of all the variables: updating only
    # those with a gradient crashed inside jax.tree_util ("pytree structure error: different lengths of list").
    a, b = tj.Variable(np.ones((2, 2), np.float32)), tj.Variable(np.ones(3, np.float32))
    ga, gb = tj.constant(np.ones((2, 2), np.float32)), tj.constant(np.ones(3, np.float32))
    for tx in (optax.adamw(0.1, weight_decay=0.5, mask=[True, False]),
               optax.multi_transform({"a": optax.adam(0.1), "s": optax.sgd(0.1)}, ["a", "s"])):
        opt = tj.optimizers.from_optax(tx)
        opt.apply_gradients([(ga, a), (gb, b)])
        before = [a.numpy().copy(), b.numpy().copy()] + [v.numpy().copy() for v in opt.variables]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(ValueError, match="(?s)cannot update only the 1 of its 2 variables.*as callables"):
                opt.apply_gradients([(None, a), (gb, b)])
        after = [a.numpy(), b.numpy()] + [v.numpy() for v in opt.variables]
        for x, y in zip(before, after):
            np.testing.assert_array_equal(x, y)
    # the advice works: a callable mask is applied to the variables updated
    opt = tj.optimizers.from_optax(optax.adamw(0.1, weight_decay=0.5, mask=lambda p: [x.ndim > 1 for x in p]))
    opt.apply_gradients([(ga, a), (gb, b)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        opt.apply_gradients([(None, a), (gb, b)])
    assert int(opt.iterations.numpy()) == 2


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


def test_restoring_into_an_optimizer_without_state_defers_it_to_the_build(tmp_path):
    # TF restores an optimizer's slot variables when they are created (deferred restoration); restoring
    # into a built optimizer works as before.
    v, opt = tj.Variable([1.0]), tj.optimizers.Adam()
    opt.apply_gradients([(tj.constant([1.0]), v)])
    path = tj.train.Checkpoint(model=v, opt=opt).save(tmp_path / "a")
    m, s = (np.asarray(x.numpy()) for x in opt.variables[-2:])
    for build_first in (False, True):
        fresh_v, fresh_opt = tj.Variable([0.0]), tj.optimizers.Adam()
        if build_first:
            fresh_opt.build([fresh_v])
        tj.train.Checkpoint(model=fresh_v, opt=fresh_opt).restore(path)
        assert int(fresh_opt.iterations.numpy()) == 1 and fresh_opt.built == build_first
        fresh_opt.build([fresh_v])
        np.testing.assert_array_equal(fresh_v.numpy(), v.numpy())
        np.testing.assert_array_equal(fresh_opt.variables[-2].numpy(), m)
        np.testing.assert_array_equal(fresh_opt.variables[-1].numpy(), s)


def test_a_float_learning_rate_is_a_settable_variable_as_keras():
    # Keras: opt.learning_rate is a float32 Variable; `opt.learning_rate = x` and `.assign(x)` change later steps
    opt = tj.optimizers.SGD(0.1)
    assert isinstance(opt.learning_rate, tj.Variable) and opt.learning_rate.dtype == np.float32
    assert not opt.learning_rate.trainable and opt.learning_rate.name.endswith("learning_rate:0")
    v = tj.Variable([0.0])
    opt.apply_gradients([(tj.constant([1.0]), v)])
    opt.learning_rate = 0.5
    opt.apply_gradients([(tj.constant([1.0]), v)])
    opt.learning_rate.assign(0.25)
    opt.apply_gradients([(tj.constant([1.0]), v)])
    np.testing.assert_allclose(v.numpy(), [-0.85], rtol=1e-6)
    np.testing.assert_allclose(float(opt.learning_rate), 0.25)
    with pytest.raises(ValueError):  # a wrong shape leaves the rate as it was
        opt.learning_rate = [1.0, 2.0]
    np.testing.assert_allclose(float(opt.learning_rate), 0.25)
    # (a schedule set later is accepted, as Keras: tests/test_keras_optimizers_port.py)
    # Keras: TypeError "...created with a `LearningRateSchedule`... its learning rate is not settable"
    with pytest.raises(TypeError, match="not settable"):
        tj.optimizers.Adam(optax.constant_schedule(0.1)).learning_rate = 0.5
    with pytest.raises(AttributeError, match="cannot be set"):
        tj.optimizers.from_optax(optax.sgd(0.1)).learning_rate = 0.5
    for bad in ["fast", None, [0.1, 0.2]]:  # Keras: ValueError/TypeError at construction
        with pytest.raises(ValueError, match="Adam: learning_rate must be a float or an optax schedule"):
            tj.optimizers.Adam(bad)


@pytest.mark.parametrize("where", ["eager", "tj.function"])
def test_a_changed_learning_rate_reaches_adam_steps_eager_fused_and_compiled(where, replay_now):
    # reference: optax's Adam with its learning rate injected, changed in its state before step 4 (optax's way)
    grads = [np.array([0.5, -1.0], np.float32), np.array([0.2, 0.3], np.float32)] * 3
    ref = optax.inject_hyperparams(optax.adam)(learning_rate=0.1, eps=tj.optimizers.keras_epsilon(1e-7, 0.999))
    p = jax.numpy.array([1.0, 2.0])
    state = ref.init(p)
    for k, g in enumerate(grads):
        if k == 3:
            state.hyperparams["learning_rate"] = jax.numpy.asarray(0.01)
        u, state = ref.update(jax.numpy.asarray(g), state, p)
        p = optax.apply_updates(p, u)

    w = tj.Variable([1.0, 2.0])
    opt = tj.optimizers.Adam(0.1)
    gv = tj.Variable(grads[0])

    def step():
        with tj.GradientTape() as tape:
            loss = tj.numpy.sum(w * gv)  # gradient: gv
        opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
    if where == "tj.function":
        step = tj.function(step)
    for k, g in enumerate(grads):
        if k == 3:
            opt.learning_rate = 0.01
        gv.assign(g)
        step()
    if where == "eager":
        assert opt.last_update == "fused into the replayed step"
    np.testing.assert_allclose(w.numpy(), np.asarray(p), rtol=1e-5, atol=1e-7)
    # and TF 2.21's tf.keras.optimizers.Adam given the same steps and rate change, to a few float32 ulps
    tf_w = np.array([float.fromhex("0x1.607e56p-1"), float.fromhex("0x1.1cdc7p+1")], np.float32)
    assert (np.abs(w.numpy() - tf_w) / np.spacing(tf_w)).max() <= 8


@pytest.mark.parametrize("name, options, expected", [
    ("SGD", dict(momentum=0.9, nesterov=True), [1.0231496095657349, -1.541583776473999, -0.26078566908836365]),
    ("Adam", {}, [0.9332420825958252, -1.8335360288619995, 0.3256482183933258]),
    ("AdamW", {}, [0.9324822425842285, -1.831976294517517, 0.3252882659435272]),
    ("RMSprop", {}, [0.9645965099334717, -1.6861834526062012, -0.11517176032066345]),
    ("Adagrad", {}, [1.0095280408859253, -1.9023972749710083, 0.39939433336257935]),
    ("Adam", dict(global_clipnorm=0.5), [0.8932253122329712, -1.8332273960113525, 0.32585030794143677]),
])
def test_float16_gradients_of_a_float32_variable_are_updated_in_float32(name, options, expected):
    """Keras 3.15 (TF 2.21): a float32 Variable [1, -2, 0.5] given the float16 gradients [0.3, -1.7, 2.9e-3] then
    [-0.55, 0.0123, 4.0] at learning_rate=0.1: each update step casts the gradient to the Variable's dtype (after
    the clipping, which is in float16). tapejax updated with the float16 gradient: Adam's second moment of
    2.9e-3 underflowed to 0 in float16 and the third entry went to -91.25 (AdamW -91.22, global_clipnorm -26.1)."""
    v = tj.Variable(np.array([1.0, -2.0, 0.5], np.float32))
    opt = getattr(tj.optimizers, name)(learning_rate=0.1, **options)
    for g in ([0.3, -1.7, 2.9e-3], [-0.55, 0.0123, 4.0]):
        opt.apply_gradients([(tj.constant(np.array(g, np.float16)), v)])
    assert v.dtype == np.float32
    np.testing.assert_allclose(v.numpy(), expected, rtol=1e-6)
