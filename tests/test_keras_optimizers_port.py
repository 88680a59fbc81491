"""Keras 3's own optimizer tests, ported to tj.optimizers, and the base-optimizer behaviour they exercise.

Sources: keras-team/keras keras/src/optimizers/{sgd,adam,adamw,rmsprop,adagrad,optimizer}_test.py and
keras/src/optimizers/base_optimizer.py (Keras 3.15.1). The golden values are those tests'; the others were
computed once with Keras 3.15.1 (KERAS_BACKEND=jax and tensorflow gave the same numbers) by the script
quoted above each table. Neither Keras nor TensorFlow is imported here.
"""
import copy
import pickle
import re

import numpy as np
import optax
import pytest

import tapejax as tj
from tapejax import optimizers

KERAS = {"sgd": optimizers.SGD, "adam": optimizers.Adam, "adamw": optimizers.AdamW,
         "rmsprop": optimizers.RMSprop, "adagrad": optimizers.Adagrad}


# -- {sgd,adam,adamw,rmsprop,adagrad}_test.test_single_step / test_correctness_with_golden ---------------

SINGLE_STEP = {"sgd": [0.5, -1.0, -0.5, 3.0], "adam": [0.5, 1.5, 2.5, 3.5], "adamw": [0.4980, 1.4960, 2.494, 3.492],
               "rmsprop": [-0.5811, 0.4189, 1.4189, 2.4189], "adagrad": [0.5233, 1.5007, 2.5005, 3.5061]}


@pytest.mark.parametrize("name", sorted(SINGLE_STEP))
def test_single_step(name):
    # <name>_test.test_single_step: <Class>(learning_rate=0.5), grads [1, 6, 7, 2] on [1, 2, 3, 4]
    optimizer = KERAS[name](learning_rate=0.5)
    v = tj.Variable([1.0, 2.0, 3.0, 4.0])
    optimizer.apply_gradients(zip([tj.constant([1.0, 6.0, 7.0, 2.0])], [v]))
    np.testing.assert_allclose(v.numpy(), SINGLE_STEP[name], rtol=1e-4, atol=1e-4)
    if name == "sgd":  # sgd_test: variables are [iterations, learning_rate] = [1, 0.5]
        assert len(optimizer.variables) == 2
        assert int(optimizer.variables[0].numpy()) == 1 and float(optimizer.variables[1].numpy()) == 0.5


GOLDEN = {
    "adam": (lambda: optimizers.Adam(amsgrad=True),
             np.tile([[0.999], [0.9982], [0.9974], [0.9965], [0.9955]], (1, 10))),
    "adamw": (lambda: optimizers.AdamW(learning_rate=1.0, weight_decay=0.5, epsilon=2), np.array(
        [[0.4998] * 10,
         [0.2486, 0.2475, 0.2463, 0.2451, 0.244, 0.2428, 0.2417, 0.2405, 0.2394, 0.2382],
         [0.1223, 0.1198, 0.1174, 0.1149, 0.1124, 0.11, 0.1075, 0.1051, 0.1027, 0.1003],
         [0.0586, 0.0549, 0.0512, 0.0475, 0.0439, 0.0402, 0.0366, 0.033, 0.0294, 0.0258],
         [0.0263, 0.0215, 0.0167, 0.012, 0.0073, 0.0026, -0.0021, -0.0067, -0.0113, -0.0159]])),
    "rmsprop": (lambda: optimizers.RMSprop(centered=True),
                np.tile([[0.9967], [0.9933], [0.9908], [0.9885], [0.9864]], (1, 10))),
    "adagrad": (lambda: optimizers.Adagrad(learning_rate=0.2, initial_accumulator_value=0.3, epsilon=1e-6), np.array(
        [[0.9963] * 10,
         [0.9604, 0.9278, 0.9003, 0.8784, 0.8615, 0.8487, 0.8388, 0.8313, 0.8255, 0.8209],
         [0.9251, 0.8629, 0.8137, 0.7768, 0.7497, 0.7298, 0.7151, 0.704, 0.6956, 0.6891],
         [0.8903, 0.8012, 0.7342, 0.6862, 0.6521, 0.6277, 0.6099, 0.5967, 0.5867, 0.579],
         [0.856, 0.7422, 0.6604, 0.6037, 0.5644, 0.5367, 0.5168, 0.5021, 0.491, 0.4825]])),
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_correctness_with_golden(name):
    # <name>_test.test_correctness_with_golden (sgd's is in test_tf_training_port.py)
    make, golden = GOLDEN[name]
    optimizer = make()
    x = tj.Variable(np.ones([10], np.float32))
    grads, first_grads = tj.numpy.arange(0.1, 1.1, 0.1), tj.numpy.full((10,), 0.01)
    optimizer.apply_gradients(zip([first_grads], [x]))
    for i in range(5):
        np.testing.assert_allclose(x.numpy(), golden[i], rtol=5e-4, atol=5e-4)
        optimizer.apply_gradients(zip([grads], [x]))


# -- clipping bounds (base_optimizer._clip_gradients) ---------------------------------------------------

@pytest.mark.parametrize("option", [{"clipnorm": 0}, {"clipvalue": 0}, {"global_clipnorm": 0},
                                    {"clipnorm": -1.0}, {"clipvalue": -1.0}, {"global_clipnorm": -1.0}])
def test_a_clip_bound_of_zero_or_less_does_not_clip(option):
    # Keras clips only `if self.clipnorm and self.clipnorm > 0` (likewise the others). Keras 3.15.1:
    #   w = keras.Variable([1., 2.]); o = SGD(0.1, **option)
    #   for g in [[100., -100.], [.5, .25]]: o.apply_gradients([(g, w)])   -> [-9.05, 11.975]
    # tapejax made the gradients zero (clipnorm, clipvalue 0), or NaN/garbage for negative bounds.
    w = tj.Variable([1.0, 2.0])
    opt = optimizers.SGD(0.1, **option)
    for g in ([100.0, -100.0], [0.5, 0.25]):
        opt.apply_gradients([(tj.constant(g), w)])
    np.testing.assert_allclose(w.numpy(), [-9.050000190734863, 11.975000381469727], rtol=1e-6)
    assert getattr(opt, next(iter(option))) == next(iter(option.values()))  # (kept as given, as Keras)


# -- optimizer_test.test_optimizer_auto_naming ----------------------------------------------------------

def test_default_names_are_keras_auto_names():
    # Keras 3.15.1: name=None -> the class name in snake case, then _1, _2... for later ones in the process
    # ("adam", "adam_1", "sgd", "sgd_1", "adam_w", "adam_w_1"; RMSprop -> "rm_sprop"); an explicit name is
    # kept as given. tapejax named every SGD "SGD" and every AdamW "adamw". (Keras's test starts from a
    # cleared session; here other tests made optimizers before, so the suffixes are checked relatively.)
    def number(name, base):
        m = re.fullmatch(re.escape(base) + r"(?:_(\d+))?", name)
        assert m, (name, base)
        return int(m.group(1) or 0)

    for cls, base in [(optimizers.Adam, "adam"), (optimizers.SGD, "sgd"), (optimizers.AdamW, "adam_w"),
                      (optimizers.RMSprop, "rm_sprop"), (optimizers.Adagrad, "adagrad")]:
        first, second = cls(), cls()
        assert number(second.name, base) == number(first.name, base) + 1
        assert first.variables[0].name.startswith(first.name + "/")
    assert optimizers.Adam(name="my_adam").name == "my_adam"
    assert optimizers.Adam(name="my_adam").name == "my_adam"


# -- base_optimizer.apply ---------------------------------------------------------------------------

def test_apply_without_variables_uses_the_built_ones():
    # Keras: o = SGD(0.5); o.build([w]); o.apply([ones(2)]) -> w = [0.5, 1.5] (tapejax: TypeError)
    w = tj.Variable([1.0, 2.0])
    opt = optimizers.SGD(0.5)
    with pytest.raises(ValueError, match="must already be built"):
        opt.apply([tj.numpy.ones(2)])
    opt.build([w])
    opt.apply([tj.numpy.ones(2)])
    np.testing.assert_allclose(w.numpy(), [0.5, 1.5])
    with pytest.raises(ValueError, match="1 variables"):
        opt.apply([tj.numpy.ones(2), tj.numpy.ones(2)])


def test_no_gradients_at_all_leaves_the_optimizer_unbuilt():
    # Keras: apply([]) does nothing (no build, iterations 0); apply_gradients([]) raises ValueError. tapejax
    # built the optimizer for no variables, so the next real step failed with "Unknown variable".
    opt = optimizers.Adam(0.1)
    assert int(opt.apply([]).numpy()) == 0
    with pytest.raises(ValueError, match="No gradients provided"):
        opt.apply_gradients([])
    assert not opt.built and int(opt.iterations.numpy()) == 0
    w = tj.Variable([1.0])
    opt.apply_gradients([(tj.constant([1.0]), w)])
    np.testing.assert_allclose(w.numpy(), [0.9], rtol=1e-5)


# -- optimizer_test.test_setting_lr_to_callable_untracks_lr_var ---------------------------------------

# Keras 3.15.1 (jax and tensorflow backends): w = Variable([1., -2., .5]); for i, g in enumerate(G):
#   (o.learning_rate = ExponentialDecay(0.2, 1, 0.5) if i == 2); o.apply_gradients([(g, w)])
# giving w, and learning_rate 0.00625 after the 5 steps (the schedule at the count of steps, 5).
G = [[0.5, -1.5, 2.0], [0.01, 0.02, -0.03], [3.0, 0.0, -4.0], [-0.2, 0.4, 0.1], [1.0, 1.0, 1.0]]
SCHEDULE_SET_LATER = {
    "sgd_m": (lambda: optimizers.SGD(0.1, momentum=0.9),
              [0.38230597972869873, -1.4241130352020264, 0.21604706346988678]),
    "adam": (lambda: optimizers.Adam(0.1), [0.7743393182754517, -1.803579568862915, 0.35930970311164856]),
    "rms": (lambda: optimizers.RMSprop(0.1, momentum=0.5, centered=True),
            [0.04216715693473816, -1.423187494277954, 0.10757672786712646]),
    "adagrad": (lambda: optimizers.Adagrad(0.1), [0.8624932765960693, -1.916438341140747, 0.44403940439224243]),
    "adamw": (lambda: optimizers.AdamW(0.1, weight_decay=0.1),
              [0.7484980821609497, -1.7492142915725708, 0.34744876623153687]),
}


@pytest.mark.parametrize("where", ["eager", "replayed", "tj_function"])
@pytest.mark.parametrize("case", sorted(SCHEDULE_SET_LATER))
def test_a_schedule_set_after_construction(case, where):
    # Keras accepts a schedule (or a callable) for a float-rate optimizer's learning_rate, and its rate
    # Variable leaves `variables`; tapejax raised TypeError.
    make, expected = SCHEDULE_SET_LATER[case]
    opt, w = make(), tj.Variable([1.0, -2.0, 0.5])

    def step(g):
        opt.apply_gradients([(g, w)])

    def replayed(g):
        with tj.GradientTape() as tape:
            loss = tj.numpy.sum(w * g)
        opt.apply_gradients([(tape.gradient(loss, w), w)])
    for i, g in enumerate(G):
        if i == 2:
            n = len(opt.variables)
            opt.learning_rate = optax.exponential_decay(0.2, 1, 0.5)
            function = tj.function(step)  # (traced after the change: see the test below for one traced before)
        run = {"eager": step, "replayed": replayed, "tj_function": function if i >= 2 else step}[where]
        run(tj.constant(g))
    np.testing.assert_allclose(w.numpy(), expected, rtol=1e-5, atol=1e-6)
    assert len(opt.variables) == n - 1 and all(v.name != opt.name + "/learning_rate" for v in opt.variables)
    np.testing.assert_allclose(float(opt.learning_rate), 0.00625, rtol=1e-6)


def test_setting_lr_to_a_schedule_untracks_the_rate_variable():
    # optimizer_test.test_setting_lr_to_callable_untracks_lr_var
    adam = optimizers.Adam(learning_rate=0.001)
    assert len(adam.variables) == 2
    adam.learning_rate = optax.polynomial_schedule(float(adam.learning_rate.numpy()), 0.0001, 1, 4)
    assert len(adam.variables) == 1
    # Keras: a float cannot be set any more ("... hence its learning rate is not settable")
    with pytest.raises(TypeError, match="not settable"):
        adam.learning_rate = 0.1
    with pytest.raises(ValueError, match="learning_rate must be a float or an optax schedule"):
        optimizers.Adam(0.1).learning_rate = lambda step: "fast"  # (checked when set)
    # a callable without arguments set later: called at each step (Keras)
    rate = [0.5]
    sgd, w = optimizers.SGD(0.1), tj.Variable([1.0])
    sgd.learning_rate = lambda: rate[0]
    sgd.apply_gradients([(tj.constant([1.0]), w)])
    rate[0] = 0.25
    sgd.apply_gradients([(tj.constant([1.0]), w)])
    np.testing.assert_allclose(w.numpy(), [0.25], rtol=1e-6)


def test_a_schedule_set_after_a_function_was_traced_is_seen_at_its_next_trace_as_tf():
    # TF 2.21 + Keras 3.15.1 (TF backend), the same steps with the step a @tf.function traced before the
    # change: the traced function keeps reading the rate Variable (0.1) -> [0.64399016, -1.7691319, 0.40561184]
    opt, w = optimizers.Adam(0.1), tj.Variable([1.0, -2.0, 0.5])

    @tj.function
    def step(g):
        opt.apply_gradients([(g, w)])
    for i, g in enumerate(G):
        if i == 2:
            opt.learning_rate = optax.exponential_decay(0.2, 1, 0.5)
        step(tj.constant(g))
    np.testing.assert_allclose(w.numpy(), [0.64399016, -1.7691319, 0.40561184], rtol=1e-5)


# -- optimizer_test.test_gradient_accumulation / test_static_loss_scaling ----------------------------------

def test_gradient_accumulation():
    # optimizer_test.test_gradient_accumulation (its _accumulated_gradients and _iterations are private;
    # the accumulators are among `variables` here, and apply_gradients returns the count of calls)
    v = tj.Variable([[1.0, 2.0], [3.0, 4.0]])
    grads = tj.constant([[1.0, 1.0], [1.0, 1.0]])
    optimizer = optimizers.SGD(learning_rate=1.0, gradient_accumulation_steps=3)
    assert optimizer.gradient_accumulation_steps == 3
    expected = [([[1.0, 2.0], [3.0, 4.0]], 0), ([[1.0, 2.0], [3.0, 4.0]], 0), ([[0.0, 1.0], [2.0, 3.0]], 1),
                ([[0.0, 1.0], [2.0, 3.0]], 1)]
    for calls, (value, iterations) in enumerate(expected, 1):
        assert int(optimizer.apply_gradients([(grads, v)]).numpy()) == calls
        np.testing.assert_allclose(v.numpy(), value)
        assert int(optimizer.iterations.numpy()) == iterations
    with pytest.raises(ValueError, match="`gradient_accumulation_steps` must be an integer >= 2"):
        optimizers.Adam(gradient_accumulation_steps=1)


@pytest.mark.parametrize("name", sorted(KERAS))
def test_gradient_accumulation_with_weight_decay(name):
    # optimizer_test.test_gradient_accumulation_with_weigth_decay: 3 accumulated calls move the variable as
    # one step with the mean gradient, weight decay included
    rng = np.random.default_rng(0)
    optimizer1 = KERAS[name](weight_decay=0.05)
    optimizer3 = KERAS[name](weight_decay=0.05, gradient_accumulation_steps=3)
    variable1, variable3 = tj.Variable([[0.9], [0.5]]), tj.Variable([[0.9], [0.5]])
    for _ in range(8):
        grads3 = rng.random([3, 2, 1]).astype("float32")
        optimizer1.apply_gradients([(tj.constant(grads3.mean(axis=0)), variable1)])
        for batch in range(3):
            optimizer3.apply_gradients([(tj.constant(grads3[batch]), variable3)])
    np.testing.assert_allclose(variable1.numpy(), variable3.numpy(), rtol=1e-6, atol=1e-6)


def test_static_loss_scaling():
    # optimizer_test.test_static_loss_scaling
    v = tj.Variable([[1.0, 2.0], [3.0, 4.0]])
    grads = tj.constant([[1.0, 2.0], [3.0, 4.0]]) * 1024.0
    optimizer = optimizers.SGD(learning_rate=1.0, loss_scale_factor=1024.0)
    optimizer.apply_gradients([(grads, v)])
    assert optimizer.scale_loss(1.0) == 1024.0
    np.testing.assert_allclose(v.numpy(), [[0.0, 0.0], [0.0, 0.0]])
    assert optimizers.SGD().scale_loss(3.0) == 3.0


# Keras 3.15.1 (jax and tensorflow backends): w = Variable([1., -2., .5]); for g in G7:
#   o.apply_gradients([(g, w)]); iterations.append(int(o.iterations))
# with S = ExponentialDecay(0.2, 1, 0.5) (optax.exponential_decay(0.2, 1, 0.5)). Keras evaluates a schedule
# at its count of calls (1, 3, 5 for the steps of gradient_accumulation_steps=2).
G7 = G + [[0.3, -0.7, 0.2], [2.0, 1.0, -1.0]]
S = lambda: optax.exponential_decay(0.2, 1, 0.5)  # noqa: E731
ACCUMULATION = {
    "sgd_m_acc3": (lambda: optimizers.SGD(0.1, momentum=0.9, gradient_accumulation_steps=3),
                   [0.7410333156585693, -1.9296000003814697, 0.5852333307266235], [0, 0, 1, 1, 1, 2, 2]),
    "adam_acc2_wd_clip": (lambda: optimizers.Adam(0.1, gradient_accumulation_steps=2, weight_decay=0.1,
                                                  clipnorm=1.0),
                          [0.6854427456855774, -1.7609392404556274, 0.3686780333518982], [0, 1, 1, 2, 2, 3, 3]),
    "adamw_acc2_sched": (lambda: optimizers.AdamW(S(), gradient_accumulation_steps=2),
                         [0.8727835416793823, -1.8862711191177368, 0.4094375669956207], [0, 1, 1, 2, 2, 3, 3]),
    "sgd_acc2_sched": (lambda: optimizers.SGD(S(), gradient_accumulation_steps=2),
                       [0.9354375004768372, -1.9319374561309814, 0.4465000033378601], [0, 1, 1, 2, 2, 3, 3]),
    "rms_lossscale": (lambda: optimizers.RMSprop(0.1, loss_scale_factor=8.0, global_clipnorm=0.5),
                      [0.009220629930496216, -2.0141873359680176, 0.44116199016571045], [1, 2, 3, 4, 5, 6, 7]),
    "adagrad_acc3_lossscale": (lambda: optimizers.Adagrad(0.1, loss_scale_factor=4.0, gradient_accumulation_steps=3),
                               [0.9112830758094788, -1.9806017875671387, 0.5182530283927917],
                               [0, 0, 1, 1, 1, 2, 2]),
}


@pytest.mark.parametrize("where", ["eager", "replayed", "tj_function"])
@pytest.mark.parametrize("case", sorted(ACCUMULATION))
def test_accumulation_and_loss_scale_match_keras(case, where):
    make, expected, iterations = ACCUMULATION[case]
    opt, w = make(), tj.Variable([1.0, -2.0, 0.5])

    def step(g):
        opt.apply_gradients([(g, w)])

    def replayed(g):
        with tj.GradientTape() as tape:
            loss = tj.numpy.sum(w * g)
        opt.apply_gradients([(tape.gradient(loss, w), w)])
    run = {"eager": step, "replayed": replayed, "tj_function": tj.function(step)}[where]
    seen = []
    for g in G7:
        run(tj.constant(g))
        seen.append(int(opt.iterations.numpy()))
    np.testing.assert_allclose(w.numpy(), expected, rtol=1e-5, atol=1e-6)
    assert seen == iterations


# -- optimizer_test.test_set_weights, test_pickleable_optimizers; <name>_test.test_config ------------------

def test_set_weights():
    # optimizer_test.test_set_weights
    x = tj.Variable([[1.0, 2.0], [3.0, 4.0]])
    optimizer_1 = optimizers.Adam()
    optimizer_1.apply_gradients(zip([tj.constant([[1.0, 2.0], [3.0, 4.0]])], [x]))
    optimizer_2 = optimizers.Adam()
    with pytest.raises(ValueError, match="You are calling"):
        optimizer_2.set_weights(optimizer_1.variables)
    optimizer_2.build([x])
    optimizer_2.set_weights(optimizer_1.variables)
    for a, b in zip(optimizer_1.variables, optimizer_2.variables):
        np.testing.assert_allclose(a.numpy(), b.numpy())
    with pytest.raises(ValueError, match="not compatible"):
        optimizer_2.set_weights([np.zeros(3)] + list(optimizer_1.variables[1:]))


CONFIGS = [
    # <name>_test.test_config (run_class_serialization_test: the config survives a round trip)
    (optimizers.SGD, dict(learning_rate=0.5, momentum=0.06, nesterov=True, weight_decay=0.004)),
    (optimizers.Adam, dict(learning_rate=0.5, beta_1=0.5, beta_2=0.67, epsilon=1e-5, amsgrad=True)),
    (optimizers.AdamW, dict(learning_rate=0.5, weight_decay=0.008, beta_1=0.5, beta_2=0.67, epsilon=1e-5,
                            amsgrad=True)),
    (optimizers.RMSprop, dict(learning_rate=0.5, rho=0.8, momentum=0.05, epsilon=1e-6, centered=True)),
    (optimizers.Adagrad, dict(learning_rate=0.5, initial_accumulator_value=0.2, epsilon=1e-5)),
]


@pytest.mark.parametrize("cls,kwargs", CONFIGS, ids=[c.__name__ for c, _ in CONFIGS])
def test_config_round_trip(cls, kwargs):
    optimizer = cls(**kwargs)
    config = optimizer.get_config()
    assert {k: config[k] for k in kwargs} == kwargs and config["name"] == optimizer.name
    assert cls.from_config(config).get_config() == config
    # optimizer_test.test_pickleable_optimizers
    assert pickle.loads(pickle.dumps(optimizer)).get_config() == config
    with pytest.raises(NotImplementedError, match="from_optax"):
        optimizers.from_optax(optax.sgd(0.1)).get_config()


COPIED = {"adam": lambda: optimizers.Adam(0.1), "sgd": lambda: optimizers.SGD(0.1, momentum=0.9),
          "adamw_accumulating": lambda: optimizers.AdamW(0.1, gradient_accumulation_steps=2),
          "from_optax": lambda: optimizers.from_optax(optax.adam(0.1))}


@pytest.mark.parametrize("case,how", [(c, h) for c in COPIED for h in ("pickle", "deepcopy")
                                      if (c, h) != ("from_optax", "pickle")])  # (optax's closures do not pickle)
def test_a_copied_optimizer_steps_as_the_original(case, how):
    # Keras optimizers pickle and deep-copy. A deep copy of a tj optimizer shared the original's compiled
    # update (bound to the original) and failed at its first step; pickling failed on optax's closures.
    copier = (lambda o: pickle.loads(pickle.dumps(o))) if how == "pickle" else copy.deepcopy
    make, grads = COPIED[case], tj.constant([1.0, -1.0])
    unbuilt, w, w2 = make(), tj.Variable([1.0, 2.0]), tj.Variable([1.0, 2.0])
    twin = copier(unbuilt)
    assert twin.name == unbuilt.name
    unbuilt.apply_gradients([(grads, w)])
    twin.apply_gradients([(grads, w2)])
    np.testing.assert_allclose(w2.numpy(), w.numpy())
    built = make()
    built.apply_gradients([(grads, w)])
    twin, w_copy = copier((built, w))  # (copied together: the copy is built for the copied Variable)
    assert w_copy is not w
    np.testing.assert_allclose(w_copy.numpy(), w.numpy())
    for _ in range(2):
        built.apply_gradients([(grads, w)])
        twin.apply_gradients([(grads, w_copy)])
    np.testing.assert_allclose(w_copy.numpy(), w.numpy(), rtol=1e-6)
    assert len(built.variables) == len(twin.variables)
    for a, b in zip(built.variables, twin.variables):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


# -- TF clip_ops_test.py cases not ported before ----------------------------------------------------------

def test_clip_by_global_norm_with_a_tensor_bound_and_not_clipped():
    # testClipByGlobalNormClippedTensor (clip_norm = tf.constant(4.0)) and testClipByGlobalNormNotClipped
    x0 = tj.numpy.reshape(tj.constant([-2.0, 0.0, 0.0, 4.0, 0.0, 0.0]), (2, 3))
    x1 = tj.constant([1.0, -2.0])
    (a0, a1), norm = tj.clip_by_global_norm((x0, x1), tj.constant(4.0))
    np.testing.assert_allclose(norm, 5.0)
    np.testing.assert_allclose(a0, [[-1.6, 0.0, 0.0], [3.2, 0.0, 0.0]], rtol=1e-6)
    np.testing.assert_allclose(a1, [0.8, -1.6], rtol=1e-6)
    (a0, a1), norm = tj.clip_by_global_norm([x0, x1], 6.0)
    np.testing.assert_allclose(norm, 5.0)
    np.testing.assert_allclose(a0, [[-2.0, 0.0, 0.0], [4.0, 0.0, 0.0]], rtol=1e-6)
    np.testing.assert_allclose(a1, [1.0, -2.0], rtol=1e-6)
    # testClipByNormClipped with a Tensor clip_norm
    x = tj.numpy.reshape(tj.constant([-3.0, 0.0, 0.0, 4.0, 0.0, 0.0]), (2, 3))
    np.testing.assert_allclose(tj.clip_by_norm(x, tj.constant(4.0)), [[-2.4, 0.0, 0.0], [3.2, 0.0, 0.0]], rtol=1e-6)
