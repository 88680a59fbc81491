"""Keras 3's base-optimizer tests (keras/src/optimizers/optimizer_test.py) and the behaviour of
keras/src/optimizers/base_optimizer.py they exercise, ported to tj.optimizers: what
test_keras_optimizers_port.py did not port (EMA, constructor arguments, clipping, accumulation without a
gradient). Values are those tests' own, or were computed once with Keras 3.15.1 (KERAS_BACKEND=tensorflow;
the jax backend gave the same numbers unless a comment says otherwise) by the script quoted above them.
Neither Keras nor TensorFlow is imported here.
"""
import copy
import tempfile
import inspect
import os
import pickle
import warnings

import numpy as np
import pytest

import tapejax as tj
from tapejax import optimizers

KERAS = {"SGD": optimizers.SGD, "Adam": optimizers.Adam, "AdamW": optimizers.AdamW,
         "RMSprop": optimizers.RMSprop, "Adagrad": optimizers.Adagrad}


# -- optimizer_test.test_iterations_counter / test_empty_gradients / test_callable_learning_rate ------------

def test_iterations_counter():
    v = tj.Variable([[1.0, 2.0], [3.0, 4.0]])
    grads = tj.constant([[1.0, 1.0], [1.0, 1.0]])
    optimizer = optimizers.Adam(learning_rate=1.0)
    assert int(optimizer.iterations.numpy()) == 0
    optimizer.apply_gradients([(grads, v)])
    assert int(optimizer.iterations.numpy()) == 1
    optimizer.apply_gradients([(grads, v)])
    assert int(optimizer.iterations.numpy()) == 2


def test_empty_gradients():
    v = tj.Variable([[3.0, 4.0], [5.0, 6.0]])
    optimizer = optimizers.SGD(learning_rate=1.0)
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        optimizer.apply_gradients([(None, v)])
    v2 = tj.Variable([[3.0, 4.0], [5.0, 6.0]])
    optimizer = optimizers.SGD(learning_rate=1.0)
    with pytest.warns(UserWarning, match="Gradients do not exist for variables"):
        optimizer.apply_gradients([(None, v), (tj.constant([[1.0, 1.0], [1.0, 1.0]]), v2)])
    np.testing.assert_allclose(v.numpy(), [[3.0, 4.0], [5.0, 6.0]])
    np.testing.assert_allclose(v2.numpy(), [[2.0, 3.0], [4.0, 5.0]])


def test_callable_learning_rate():
    v = tj.Variable([[1.0, 2.0], [3.0, 4.0]])
    optimizer = optimizers.SGD(learning_rate=lambda: 0.1)
    assert int(optimizer.iterations.numpy()) == 0
    optimizer.apply_gradients([(tj.constant([[1.0, 1.0], [1.0, 1.0]]), v)])
    np.testing.assert_allclose(v.numpy(), [[0.9, 1.9], [2.9, 3.9]], rtol=1e-6)
    assert int(optimizer.iterations.numpy()) == 1


# -- optimizer_test.test_clip_args / test_clip_norm / test_clip_value / test_global_clip_norm ---------------

def test_clip_args():
    assert optimizers.SGD(learning_rate=1.0, clipnorm=0.1).clipnorm == 0.1
    assert optimizers.SGD(learning_rate=1.0, clipvalue=0.1).clipvalue == 0.1
    assert optimizers.SGD(learning_rate=1.0, global_clipnorm=0.1).global_clipnorm == 0.1
    for other in ({"clipvalue": 0.1}, {"global_clipnorm": 0.1}):
        with pytest.raises(ValueError, match="Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can"):
            optimizers.SGD(learning_rate=1.0, clipnorm=0.1, **other)


@pytest.mark.parametrize("option,grad,expected", [
    ({"clipnorm": 1}, [100.0, 100.0], [2 ** 0.5 / 2, 2 ** 0.5 / 2]),
    ({"clipvalue": 1}, [100.0, 100.0], [1.0, 1.0]),
    ({"global_clipnorm": 1}, [50.0, 100.0], np.array([50.0, 100.0]) / np.linalg.norm([50.0, 100.0])),
])
def test_clipped_gradients(option, grad, expected):
    # Keras asserts optimizer._clip_gradients([grad]) (private): here the step of SGD(1.0) from zero is
    # minus the clipped gradient
    w = tj.Variable([0.0, 0.0])
    optimizers.SGD(learning_rate=1.0, **option).apply_gradients([(tj.constant(grad), w)])
    np.testing.assert_allclose(-w.numpy(), expected, rtol=1e-6)


# -- optimizer_test.test_ema / test_ema_with_model_fit -----------------------------------------------------

def test_ema():
    # tapejax: TypeError "unexpected keyword argument 'use_ema'"
    v = tj.Variable([[3.0, 4.0], [5.0, 6.0]])
    grads = tj.constant([[1.0, 1.0], [1.0, 1.0]])
    optimizer = optimizers.SGD(learning_rate=1.0, use_ema=True, ema_momentum=0.9, ema_overwrite_frequency=3)
    optimizer.apply_gradients([(grads, v)])
    np.testing.assert_allclose(v.numpy(), [[2.0, 3.0], [4.0, 5.0]])
    np.testing.assert_allclose(optimizer._model_variables_moving_average[0].numpy(),
                               [[2.0, 3.0], [4.0, 5.0]])  # initialized after first step
    optimizer.apply_gradients([(grads, v)])
    np.testing.assert_allclose(v.numpy(), [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(optimizer._model_variables_moving_average[0].numpy(), [[1.9, 2.9], [3.9, 4.9]],
                               rtol=1e-6)
    optimizer.apply_gradients([(grads, v)])
    # Variables were overwritten with EMA
    np.testing.assert_allclose(v.numpy(), [[1.71, 2.71], [3.71, 4.71]], rtol=1e-6)
    np.testing.assert_allclose(optimizer._model_variables_moving_average[0].numpy(), [[1.71, 2.71], [3.71, 4.71]],
                               rtol=1e-6)
    # Keras: variables are [iteration, learning_rate, the average] (".../variable_average")
    names = [x.name for x in optimizer.variables]
    assert len(names) == 3 and names[2].endswith("_average:0")
    assert optimizer.variables[2] is optimizer._model_variables_moving_average[0]


def test_ema_with_model_fit():
    # model.fit of Dense(2, kernel_initializer="ones", use_bias=False) on x = [[1]], y = [[0]], mse, 2 epochs
    # of one batch, SGD(0.1, use_ema=True, ema_momentum=0.9); fit ends with finalize_variable_values
    kernel = tj.Variable(np.ones((1, 2), np.float32))
    optimizer = optimizers.SGD(learning_rate=0.1, use_ema=True, ema_momentum=0.9)
    x, y = tj.constant(np.ones((1, 1), np.float32)), tj.constant(np.zeros((1, 1), np.float32))
    for _ in range(2):
        optimizer.minimize(lambda: tj.numpy.mean((tj.numpy.matmul(x, kernel) - y) ** 2), [kernel])
    np.testing.assert_allclose(kernel.numpy(), [[0.81, 0.81]], rtol=1e-6)  # (not overwritten during training)
    optimizer.finalize_variable_values([kernel])
    np.testing.assert_allclose(optimizer._model_variables_moving_average[0].numpy(), [[0.891, 0.891]], atol=1e-5)
    np.testing.assert_allclose(kernel.numpy(), [[0.891, 0.891]], atol=1e-5)


# Keras 3.15.1: o = <cls>(**kw); w1 = Variable([1., -2., .5]); w2 = Variable([.3, .7])
#   for g, h in zip(G, H): o.apply_gradients([(g, w1), (h, w2)])      (H_ACC with gradient accumulation)
# -> [w1, w2, *o._model_variables_moving_average, int(o.iterations)]
G = [[0.5, -1.5, 2.0], [0.01, 0.02, -0.03], [3.0, 0.0, -4.0], [-0.2, 0.4, 0.1], [1.0, 1.0, 1.0], [0.3, -0.7, 0.2],
     [2.0, 1.0, -1.0]]
H = [[1.0, 2.0], None, [0.5, -0.5], [0.25, 0.1], None, [1.0, 1.0], [-2.0, 0.3]]
H_ACC = [[1.0, 2.0], [0.1, 0.2], [0.5, -0.5], [0.25, 0.1], [-1.0, 0.5], [1.0, 1.0], [-2.0, 0.3]]
EMA = {
    "sgd_m_f3": ("SGD", dict(learning_rate=0.1, momentum=0.9, use_ema=True, ema_momentum=0.8,
                             ema_overwrite_frequency=3),
                 [[0.007956266403198242, -1.8208359479904175, 0.5793108940124512],
                  [0.03882202133536339, 0.1462940275669098],
                  [0.42188626527786255, -1.7659361362457275, 0.45800426602363586],
                  [0.04867001995444298, 0.3245900273323059], 7]),
    "adam_nofreq": ("Adam", dict(learning_rate=0.1, use_ema=True),
                    [[0.5175679922103882, -1.7756248712539673, 0.4285358488559723],
                     [-0.04022066667675972, 0.4261901378631592],
                     [0.8866768479347229, -1.8929537534713745, 0.39948752522468567],
                     [0.1914205253124237, 0.5951545238494873], 7]),
    "adamw_f2": ("AdamW", dict(learning_rate=0.1, weight_decay=0.1, use_ema=True, ema_momentum=0.5,
                               ema_overwrite_frequency=2),
                 [[0.6003984808921814, -1.7443029880523682, 0.41301727294921875],
                  [0.0525517500936985, 0.4566078782081604],
                  [0.638373851776123, -1.745171070098877, 0.4068281054496765],
                  [0.05407077819108963, 0.48359715938568115], 7]),
    # with gradient accumulation the averages move at every call, with Keras's iterations (calls // k)
    "rms_acc2_f1": ("RMSprop", dict(learning_rate=0.1, use_ema=True, ema_momentum=0.7, ema_overwrite_frequency=1,
                                    gradient_accumulation_steps=2),
                    [[0.54908287525177, -1.7298486232757568, 0.24269288778305054],
                     [-0.07159319519996643, 0.34499916434288025],
                     [0.54908287525177, -1.7298486232757568, 0.24269288778305054],
                     [-0.07159319519996643, 0.34499916434288025], 3]),
    "adagrad_acc3_f2": ("Adagrad", dict(learning_rate=0.1, use_ema=True, ema_momentum=0.6, ema_overwrite_frequency=2,
                                        gradient_accumulation_steps=3),
                        [[0.891880989074707, -1.930608868598938, 0.5705221891403198],
                         [0.20865535736083984, 0.587279200553894],
                         [0.891880989074707, -1.930608868598938, 0.5705221891403198],
                         [0.20865535736083984, 0.587279200553894], 2]),
    # ema_overwrite_frequency=0 never overwrites (base_optimizer: `if self.ema_overwrite_frequency:`; Keras's
    # jax backend tests `is not None` and overwrites at every step: the tensorflow backend's values here)
    "sgd_f0": ("SGD", dict(learning_rate=0.1, use_ema=True, ema_momentum=0.5, ema_overwrite_frequency=0),
               [[0.3389999270439148, -2.0219998359680176, 0.6730000376701355],
                [0.2250000238418579, 0.4100000262260437],
                [0.4671405553817749, -1.97446870803833, 0.6285781860351562],
                [0.15312501788139343, 0.4490625262260437], 7]),
}


@pytest.mark.parametrize("where", ["eager", "replayed", "tj_function"])
@pytest.mark.parametrize("case", sorted(EMA))
def test_ema_matches_keras(case, where):
    # Averages of every built Variable move at each call, also of one without a gradient (w2 at calls 2 and 5).
    cls, kwargs, (w1_want, w2_want, a1_want, a2_want, iterations) = EMA[case]
    opt = KERAS[cls](**kwargs)
    w1, w2 = tj.Variable([1.0, -2.0, 0.5]), tj.Variable([0.3, 0.7])

    def step(g, h):
        opt.apply_gradients([(g, w1), (h, w2)])

    def replayed(g, h):
        with tj.GradientTape() as tape:
            loss = tj.numpy.sum(w1 * g) + (0.0 if h is None else tj.numpy.sum(w2 * h))
        opt.apply_gradients(zip(tape.gradient(loss, [w1, w2]), [w1, w2]))
    run = {"eager": step, "replayed": replayed, "tj_function": tj.function(step)}[where]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ("Gradients do not exist for variables")
        for g, h in zip(G, H_ACC if "acc" in case else H):
            run(tj.constant(g), None if h is None else tj.constant(h))
    tol = dict(rtol=1e-5, atol=5e-6)
    np.testing.assert_allclose(w1.numpy(), w1_want, **tol)
    np.testing.assert_allclose(w2.numpy(), w2_want, **tol)
    averages = opt._model_variables_moving_average
    np.testing.assert_allclose(averages[0].numpy(), a1_want, **tol)
    np.testing.assert_allclose(averages[1].numpy(), a2_want, **tol)
    assert int(opt.iterations.numpy()) == iterations
    opt.finalize_variable_values([w1, w2])  # (base_optimizer: the variables take their averages)
    np.testing.assert_allclose(w1.numpy(), a1_want, **tol)
    np.testing.assert_allclose(w2.numpy(), a2_want, **tol)


def test_ema_arguments_and_finalize():
    # base_optimizer.__init__ checks the EMA arguments only with use_ema=True
    with pytest.raises(ValueError, match=r"`ema_momentum` must be in the range \[0, 1\]"):
        optimizers.Adam(use_ema=True, ema_momentum=1.5)
    with pytest.raises(ValueError, match="`ema_overwrite_frequency` must be an integer >= 1 or None"):
        optimizers.SGD(use_ema=True, ema_overwrite_frequency=2.0)
    optimizers.SGD(ema_momentum=1.5)
    optimizers.SGD(use_ema=True, ema_overwrite_frequency=0)
    config = optimizers.RMSprop(use_ema=True, ema_overwrite_frequency=5).get_config()
    assert (config["use_ema"], config["ema_momentum"], config["ema_overwrite_frequency"]) == (True, 0.99, 5)
    assert optimizers.RMSprop.from_config(config).get_config() == config
    assert optimizers.SGD().get_config()["use_ema"] is False
    # finalize_variable_values: nothing without EMA; with, one variable per average (Keras's ValueError)
    w = tj.Variable([1.0])
    optimizers.SGD().finalize_variable_values([w])
    opt = optimizers.SGD(use_ema=True)
    with pytest.raises(ValueError, match="to override does not match"):
        opt.finalize_variable_values([w])
    opt.apply_gradients([(tj.constant([1.0]), w)])
    with pytest.raises(ValueError, match="to override does not match"):
        opt.finalize_variable_values([w, tj.Variable([2.0])])
    with pytest.raises(AttributeError):
        optimizers.SGD()._model_variables_moving_average  # noqa: B018


def test_ema_state_is_saved_copied_and_set_like_the_rest():
    # Keras 3.15.1: SGD(0.1, momentum=0.9, use_ema=True, ema_momentum=0.5), 3 steps of g = [1., -1.] on
    # w = [1., 2.] -> w [0.439, 2.561], average [0.622, 2.378]; Adam(0.1, use_ema=True, ema_momentum=0.5,
    # ema_overwrite_frequency=2), 5 steps -> w [0.6250036, 2.3749962]
    g = tj.constant([1.0, -1.0])
    opt, w = optimizers.SGD(0.1, momentum=0.9, use_ema=True, ema_momentum=0.5), tj.Variable([1.0, 2.0])
    for _ in range(2):
        opt.apply_gradients([(g, w)])
    path = tj.train.Checkpoint(opt=opt, w=w).save(os.path.join(tempfile.mkdtemp(), "c"))
    fresh, w_fresh = optimizers.SGD(0.1, momentum=0.9, use_ema=True, ema_momentum=0.5), tj.Variable([0.0, 0.0])
    tj.train.Checkpoint(opt=fresh, w=w_fresh).restore(path)  # (restored at its build: deferred)
    for o, v in ((opt, w), (fresh, w_fresh)):
        o.apply_gradients([(g, v)])
        np.testing.assert_allclose(v.numpy(), [0.439, 2.561], rtol=1e-6)
        np.testing.assert_allclose(o._model_variables_moving_average[0].numpy(), [0.622, 2.378], rtol=1e-6)

    def adam():
        return optimizers.Adam(0.1, use_ema=True, ema_momentum=0.5, ema_overwrite_frequency=2)
    opt, w = adam(), tj.Variable([1.0, 2.0])
    opt.apply_gradients([(g, w)])
    copies = [copy.deepcopy((opt, w)), pickle.loads(pickle.dumps((opt, w)))]
    other, w_other = adam(), tj.Variable(w.numpy())
    other.build([w_other])
    other.set_weights(opt.variables)
    for o, v in [(opt, w), (other, w_other)] + copies:
        for _ in range(4):
            o.apply_gradients([(g, v)])
        np.testing.assert_allclose(v.numpy(), [0.6250036, 2.3749962], rtol=1e-5)


def test_ema_with_weight_decay_exclusion():
    # Keras 3.15.1: AdamW(0.1, weight_decay=0.5, use_ema=True, ema_momentum=0.5, ema_overwrite_frequency=2),
    # exclude_from_weight_decay(var_names=["bias"]), 3 steps of g = [1., -1.] on a = b = [1., 2.]
    opt = optimizers.AdamW(0.1, weight_decay=0.5, use_ema=True, ema_momentum=0.5, ema_overwrite_frequency=2)
    a, b = tj.Variable([1.0, 2.0], name="a"), tj.Variable([1.0, 2.0], name="bias")
    opt.exclude_from_weight_decay(var_names=["bias"])
    g = tj.constant([1.0, -1.0])
    for _ in range(3):
        opt.apply_gradients([(g, a), (g, b)])
    np.testing.assert_allclose(a.numpy(), [0.6398146, 1.999998], rtol=1e-5)
    np.testing.assert_allclose(b.numpy(), [0.75000215, 2.2499976], rtol=1e-5)


# -- base_optimizer.__init__: arguments ----------------------------------------------------------------------

# inspect.signature(keras.optimizers.<cls>).parameters in Keras 3.15.1 (without its final **kwargs)
KERAS_SIGNATURES = {
    "SGD": ["learning_rate", "momentum", "nesterov", "weight_decay", "clipnorm", "clipvalue", "global_clipnorm",
            "use_ema", "ema_momentum", "ema_overwrite_frequency", "loss_scale_factor", "gradient_accumulation_steps",
            "name"],
    "Adam": ["learning_rate", "beta_1", "beta_2", "epsilon", "amsgrad", "weight_decay", "clipnorm", "clipvalue",
             "global_clipnorm", "use_ema", "ema_momentum", "ema_overwrite_frequency", "loss_scale_factor",
             "gradient_accumulation_steps", "name"],
    "AdamW": ["learning_rate", "weight_decay", "beta_1", "beta_2", "epsilon", "amsgrad", "clipnorm", "clipvalue",
              "global_clipnorm", "use_ema", "ema_momentum", "ema_overwrite_frequency", "loss_scale_factor",
              "gradient_accumulation_steps", "name"],
    "RMSprop": ["learning_rate", "rho", "momentum", "epsilon", "centered", "weight_decay", "clipnorm", "clipvalue",
                "global_clipnorm", "use_ema", "ema_momentum", "ema_overwrite_frequency", "loss_scale_factor",
                "gradient_accumulation_steps", "name"],
    "Adagrad": ["learning_rate", "initial_accumulator_value", "epsilon", "weight_decay", "clipnorm", "clipvalue",
                "global_clipnorm", "use_ema", "ema_momentum", "ema_overwrite_frequency", "loss_scale_factor",
                "gradient_accumulation_steps", "name"],
}


@pytest.mark.parametrize("cls", sorted(KERAS_SIGNATURES))
def test_arguments_in_keras_order(cls):
    params = list(inspect.signature(KERAS[cls]).parameters)
    assert params[:-1] == KERAS_SIGNATURES[cls] and params[-1] == "kwargs"


def test_unrecognized_arguments_raise_value_error():
    # base_optimizer: `raise ValueError(f"Argument(s) not recognized: {kwargs}")` (tapejax: Python's TypeError;
    # the error is both now), and `decay` is ignored with a warning
    for cls in KERAS.values():
        with pytest.raises(ValueError, match="Argument\\(s\\) not recognized: {'foo': 1}"):
            cls(foo=1)
        with pytest.raises(TypeError, match="not recognized"):
            cls(foo=1)
    with pytest.warns(UserWarning, match="Argument `decay` is no longer supported and will be ignored"):
        opt = optimizers.SGD(0.5, decay=0.1)
    assert "decay" not in opt.get_config()
    optimizers.Adam(decay=None)


def test_learning_rate_types():
    # Keras: "Argument `learning_rate` should be float, ... Received instead: learning_rate=0.1" (ValueError) for
    # a str or a bool. (Keras also refuses an int or a NumPy float; tapejax takes them as the float, as TF's
    # Keras 2 did: deliberately more lenient.)
    for bad in ("0.1", True):
        with pytest.raises(ValueError, match="learning_rate must be a float"):
            optimizers.SGD(learning_rate=bad)
    assert float(optimizers.SGD(learning_rate=1).learning_rate.numpy()) == 1.0
    opt = optimizers.SGD(0.1)
    opt.learning_rate = 1  # (Keras: assigned to the rate Variable)
    assert float(opt.learning_rate.numpy()) == 1.0
    # Keras 3.15's setter: TypeError "Cannot convert 'x' to EagerTensor of dtype float" on TF (also for '0.1'),
    # ValueError "could not convert string to float" on JAX: tapejax's error is both
    for bad in ("x", "0.1", b"0.1"):
        with pytest.raises(TypeError, match="learning_rate must be a float"):
            opt.learning_rate = bad
        with pytest.raises(ValueError):
            opt.learning_rate = bad
    assert float(opt.learning_rate.numpy()) == 1.0


# -- base_optimizer._backend_apply_gradients: accumulation with a missing gradient ------------------------

# Keras 3.15.1 (both backends): o = <cls>(0.1, gradient_accumulation_steps=3); w1, w2 as above;
#   for g, h in zip(G, H): o.apply_gradients([(g, w1), (h, w2)]); w2 after each call
ACCUMULATED_W2 = {
    "SGD": [[0.3, 0.7], [0.3, 0.7], [0.25, 0.6499999761581421], [0.25, 0.6499999761581421],
            [0.25, 0.6499999761581421], [0.2083333283662796, 0.6133332848548889],
            [0.2083333283662796, 0.6133332848548889]],
    "Adagrad": [[0.3, 0.7], [0.3, 0.7], [0.2154845893383026, 0.6154845952987671], [0.2154845893383026,
                0.6154845952987671], [0.2154845893383026, 0.6154845952987671],
                [0.15790291130542755, 0.5628041625022888], [0.15790291130542755, 0.5628041625022888]],
}


@pytest.mark.parametrize("cls", sorted(ACCUMULATED_W2))
def test_accumulation_counts_a_missing_gradient_as_zero(cls):
    # Keras sums the gradients and divides by k: w2, without a gradient at call 2, moves by 0.1 * (1 + .5) / 3
    # at call 3. tapejax averaged over the calls that had one (optax's running mean): 0.1 * (1 + .5) / 2.
    opt = KERAS[cls](0.1, gradient_accumulation_steps=3)
    w1, w2 = tj.Variable([1.0, -2.0, 0.5]), tj.Variable([0.3, 0.7])
    seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for g, h in zip(G, H):
            opt.apply_gradients([(tj.constant(g), w1), (None if h is None else tj.constant(h), w2)])
            seen.append(w2.numpy())
    np.testing.assert_allclose(seen, ACCUMULATED_W2[cls], rtol=1e-6)


# Keras 3.15.1 (TF backend): o = <cls>(0.1, gradient_accumulation_steps=2); v = [keras.Variable(1.0)] * 2 (two);
#   for g in DROPPED_GRADS: o.apply_gradients([(x, w) for x, w in zip(g, v) if x is not None]); v after each call.
# _backend_apply_gradients resets every accumulator at the step-making call (_backend_reset_gradient_accumulators),
# also the one of a variable filtered out for its None gradient there: its earlier calls' gradients are dropped.
DROPPED_GRADS = [(1., 1.), (1., None), (1., 1.), (1., 1.), (None, 2.), (3., None), (1., 1.), (1., 1.)]
DROPPED = {
    "SGD": [[1.0, 1.0], [0.8999999761581421, 1.0], [0.8999999761581421, 1.0], [0.7999999523162842, 0.8999999761581421],
            [0.7999999523162842, 0.8999999761581421], [0.6499999761581421, 0.8999999761581421],
            [0.6499999761581421, 0.8999999761581421], [0.5499999523162842, 0.7999999523162842]],
    "Adam": [[1.0, 1.0], [0.9000009894371033, 1.0], [0.9000009894371033, 1.0], [0.8000022172927856, 0.9255872964859009],
             [0.8000022172927856, 0.9255872964859009], [0.7004992961883545, 0.9255872964859009],
             [0.7004992961883545, 0.9255872964859009], [0.6017974019050598, 0.8474939465522766]],
}


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "tj.function"])
@pytest.mark.parametrize("cls", sorted(DROPPED))
def test_accumulation_drops_the_sum_of_a_variable_missing_at_the_step(cls, compiled):
    # The second variable has no gradient at call 2, which makes a step: its sum of call 1 is dropped, as Keras
    # (tapejax carried it into the next two calls: 0.85 after call 4, Keras 0.9).
    opt = KERAS[cls](0.1, gradient_accumulation_steps=2)
    v = [tj.Variable(1.0), tj.Variable(1.0)]

    def step(*g):
        opt.apply_gradients(zip(g, v))
    run = tj.function(step) if compiled else step
    seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for g in DROPPED_GRADS:
            run(*[None if x is None else tj.constant(x) for x in g])
            seen.append([float(w.numpy()) for w in v])
    np.testing.assert_allclose(seen, DROPPED[cls], rtol=1e-6)


# Keras 3.15.1: o = keras.optimizers.RMSprop(0.1, momentum=m); v = keras.Variable([1.0, 2.0]);
#   two o.apply_gradients([(tf.constant([0.5, -1.0]), v)]); v, len(o.variables)
RMSPROP_MOMENTUM = {-0.5: ([0.45435736, 2.5456433], 3), 1.5: ([-0.01998335, 3.0199847], 4)}


@pytest.mark.parametrize("momentum", sorted(RMSPROP_MOMENTUM))
def test_rmsprop_takes_any_momentum_as_keras(momentum):
    # Keras's RMSprop checks no range (SGD's does): a momentum <= 0 is none (no velocity slot), above 1 is used
    want, n_variables = RMSPROP_MOMENTUM[momentum]
    opt = tj.optimizers.RMSprop(0.1, momentum=momentum)
    v = tj.Variable([1.0, 2.0])
    for _ in range(2):
        opt.apply_gradients([(tj.constant([0.5, -1.0]), v)])
    np.testing.assert_allclose(v.numpy(), want, rtol=1e-6)
    assert len(opt.variables) == n_variables
