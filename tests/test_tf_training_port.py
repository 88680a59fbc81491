"""TF's and Keras's own tests for training, ported to tapejax, where they found a difference.

Sources (values hard-coded from TF 2.21 / Keras 3; TF is not imported here):
- tensorflow/python/module/module_test.py (tf.Module)
- tensorflow/python/kernel_tests/math_ops/clip_ops_test.py (clip_by_norm, clip_by_global_norm)
- tensorflow/python/kernel_tests/variables/resource_variable_ops_test.py (tf.Variable basics)
- keras/src/optimizers/{sgd,adam,adamw,rmsprop,adagrad}_test.py
"""
import itertools
import re

import numpy as np
import optax
import pytest

import tapejax as tj
from tapejax import optimizers


# -- tf.Module (module_test.py) -------------------------------------------------------------------------

def test_module_name_scope_is_memoized():
    # NameScopeTest.test_memoized_in_tf2: mod.name_scope is mod.name_scope
    mod = tj.Module(name="name")
    assert mod.name_scope is mod.name_scope
    assert mod.name_scope.name == "name/"

    class Returns(tj.Module):
        @tj.Module.with_name_scope
        def __call__(self):
            return tj.Variable(1.0, name="w").name

        @tj.Module.with_name_scope
        def nested(self):
            with self.name_scope:  # re-entered while inside it: still one level
                return self()

    m = Returns()
    assert [m() for _ in range(3)] == ["returns/w:0"] * 3
    assert m.nested() == "returns/w:0"
    assert tj.Variable(1.0, name="free").name == "free:0"


def test_module_name_scope_is_per_thread():
    # one (memoized) scope object entered by two threads at once: each thread's scope is its own
    import threading

    m = tj.Module(name="shared")
    inside, release, names = threading.Event(), threading.Event(), {}

    def first():
        with m.name_scope:
            inside.set()
            release.wait(10)
            names["first"] = tj.Variable(1.0, name="a").name
        names["first_after"] = tj.Variable(1.0, name="b").name

    t = threading.Thread(target=first)
    t.start()
    inside.wait(10)
    with m.name_scope:
        names["main"] = tj.Variable(1.0, name="c").name
    release.set()
    t.join(10)
    assert names == {"first": "shared/a:0", "first_after": "b:0", "main": "shared/c:0"}
    assert tj.Variable(1.0, name="d").name == "d:0"


def test_module_ignored_properties():
    # FlattenTest.test_attributes_to_ignore
    class DangerousModule(tj.Module):
        _TF_MODULE_IGNORED_PROPERTIES = frozenset(itertools.chain(
            ("dangerous_submodule", "dangerous_variable"), tj.Module._TF_MODULE_IGNORED_PROPERTIES))

    mod = DangerousModule()
    mod.dangerous_submodule = tj.Module()
    mod.dangerous_variable = tj.Variable(1.)
    mod.normal_variable = tj.Variable(2.)
    assert len(mod.submodules) == 0
    assert len(mod.variables) == 1
    assert mod.variables[0] is mod.normal_variable


def test_module_dict_with_unsortable_keys_raises():
    # FlattenTest.test_raises_error_with_path: m.layers = {object(): None, object(): None}; m.variables
    # raises ValueError "Error processing property 'layers'" (tf.nest sorts dict keys)
    m = tj.Module()
    m.layers = {object(): None, object(): None}
    with pytest.raises(ValueError, match="Error processing property 'layers'"):
        m.variables  # noqa: B018
    m.layers = {1: tj.Variable(1.0), "a": tj.Variable(2.0)}  # keys of mixed types do not sort either
    with pytest.raises(ValueError, match="Error processing property 'layers'"):
        m.submodules  # noqa: B018
    m.layers = {"b": tj.Variable(1.0), "a": tj.Variable(2.0)}
    assert len(m.variables) == 2


# -- clip_ops_test.py ---------------------------------------------------------------------------------

@pytest.mark.parametrize("make", [lambda: tj.constant([3, 4]), lambda: tj.constant([True, False]),
                                  lambda: tj.constant([3.0 + 0j, 4.0])])
def test_clip_by_norm_refuses_non_floating_tensors(make):
    # TF 2.21: tf.clip_by_norm(tf.constant([3, 4]), 4) raises InvalidArgumentError (Sqrt has no int32
    # kernel); before, tapejax returned [2.4, 3.2] as float32
    with pytest.raises(TypeError, match="floating-point"):
        tj.clip_by_norm(make(), 4)


def test_clip_by_global_norm_refuses_int_tensors():
    # TF 2.21: tf.clip_by_global_norm([tf.constant([3, 4])], 4.0) and tf.linalg.global_norm of it raise
    # InvalidArgumentError (L2Loss has no int32 kernel); before, tapejax returned [0, 0] (the scale rounded)
    with pytest.raises(TypeError, match="floating-point"):
        tj.clip_by_global_norm([tj.constant([1.0]), tj.constant([3, 4])], 4.0)
    with pytest.raises(TypeError, match="floating-point"):
        optimizers.global_norm([tj.constant([3, 4])])


def test_clip_ops_test_cases():
    # testClipByNormClipped / NotClipped / Zero / ClippedWithDim0 / Dim1 / NotClippedWithAxes
    x = tj.numpy.reshape(tj.constant([-3.0, 0.0, 0.0, 4.0, 0.0, 0.0]), (2, 3))
    np.testing.assert_allclose(tj.clip_by_norm(x, 4.0), [[-2.4, 0.0, 0.0], [3.2, 0.0, 0.0]], rtol=1e-6)
    np.testing.assert_allclose(tj.clip_by_norm(x, 6.0), [[-3.0, 0.0, 0.0], [4.0, 0.0, 0.0]])
    np.testing.assert_allclose(tj.clip_by_norm(tj.numpy.zeros((2, 3)), 6.0), np.zeros((2, 3)))
    y = tj.numpy.reshape(tj.constant([-3.0, 0.0, 0.0, 4.0, 0.0, 3.0]), (2, 3))
    np.testing.assert_allclose(tj.clip_by_norm(y, 4.0, [0]), [[-2.4, 0.0, 0.0], [3.2, 0.0, 3.0]], rtol=1e-6)
    np.testing.assert_allclose(tj.clip_by_norm(y, 4.0, [1]), [[-3.0, 0.0, 0.0], [3.2, 0.0, 2.4]], rtol=1e-6)
    np.testing.assert_allclose(tj.clip_by_norm(y, 6.0, [1]), [[-3.0, 0.0, 0.0], [4.0, 0.0, 3.0]])
    # testClipByNormBadShape: ValueError
    with pytest.raises(ValueError):
        tj.clip_by_norm(tj.numpy.zeros((2, 3, 1)), tj.constant([1.0, 2.0]))
    # testClipByNormGradientZeros: gradient of clip_by_norm(zeros(3), 1.) is [1, 1, 1]
    z = tj.numpy.zeros(3)
    with tj.GradientTape() as tape:
        tape.watch(z)
        b = tj.clip_by_norm(z, 1.0)
    np.testing.assert_array_equal(tape.gradient(b, z), [1.0, 1.0, 1.0])
    # testClipByGlobalNormSupportsNone / Inf / Zero
    x0 = tj.numpy.reshape(tj.constant([-2.0, 0.0, 0.0, 4.0, 0.0, 0.0]), (2, 3))
    x1 = tj.constant([1.0, -2.0])
    ans, norm = tj.clip_by_global_norm((x0, None, x1, None), 4.0)
    assert ans[1] is None and ans[3] is None
    np.testing.assert_allclose(norm, 5.0)
    np.testing.assert_allclose(ans[0], [[-1.6, 0.0, 0.0], [3.2, 0.0, 0.0]], rtol=1e-6)
    np.testing.assert_allclose(ans[2], [0.8, -1.6], rtol=1e-6)
    ans, norm = tj.clip_by_global_norm([tj.constant([-2.0, np.inf]), x1], 6.0)
    assert float(norm) == np.inf and np.isnan(np.asarray(ans[0])).all() and np.isnan(np.asarray(ans[1])).all()
    ans, norm = tj.clip_by_global_norm([tj.numpy.zeros((2, 3)), tj.numpy.zeros(2)], 6.0)
    assert float(norm) == 0.0 and not np.asarray(ans[0]).any()


# -- resource_variable_ops_test.py ------------------------------------------------------------------

@pytest.mark.parametrize("op, start, after", [("assign", 1.0, 4.0), ("assign_add", 1.0, 4.0),
                                              ("assign_sub", 3.0, 0.0)])
def test_assign_read_value_false_returns_none(op, start, after):
    # testAssignMethod / testAssignAddMethod / testAssignSubMethod: eagerly,
    # v.assign(4.0, read_value=False) is None; with read_value=True (the default) the variable
    v = tj.Variable(start, name="var0")
    method = getattr(v, op)
    value = 4.0 if op == "assign" else 1.0
    assert method(value, read_value=True) is v
    assert method(value) is v
    assert method(value, read_value=False) is None
    assert float(v.value()) == after


def test_assign_read_value_false_inside_a_function_and_a_replayed_step():
    v = tj.Variable(1.0)

    @tj.function
    def f(x):
        r = v.assign_add(x, read_value=False)
        return tj.constant(1.0) if r is None else tj.constant(0.0)

    assert float(f(tj.constant(2.0))) == 1.0
    assert float(v.numpy()) == 3.0
    w = tj.Variable([1.0, 2.0])
    for _ in range(3):  # a training loop's assignments (deferred/fused after the first steps)
        with tj.GradientTape() as tape:
            loss = tj.numpy.sum(w * w)
        g = tape.gradient(loss, w)
        assert w.assign_sub(0.25 * g, read_value=False) is None
    np.testing.assert_allclose(w.numpy(), [0.125, 0.25])


def test_assign_shape_errors_use_tfs_words():
    # testAssignDifferentShapesEagerNotAllowed: ValueError matching "shape.*and.*are incompatible";
    # testAssignIncompatibleShape: Variable([0, 1, 2, 3]).assign_add(1) raises, matching "shapes must be
    # equal" (no broadcasting); both leave the variable unchanged
    var = tj.Variable(np.zeros((1, 1), np.float32))
    with pytest.raises(ValueError, match="shape.*and.*are incompatible"):
        var.assign(np.zeros(shape=[2, 2]))
    np.testing.assert_array_equal(var.numpy(), [[0.0]])
    v = tj.Variable([0, 1, 2, 3])
    with pytest.raises(ValueError, match=re.compile("shapes must be equal", re.IGNORECASE)):
        v.assign_add(1)
    np.testing.assert_array_equal(v.numpy(), [0, 1, 2, 3])


# -- Keras optimizers ---------------------------------------------------------------------------------

def test_adamw_weight_decay_none_message_is_keras():
    # adamw_test.test_weight_decay_is_none
    with pytest.raises(ValueError, match="Argument `weight_decay` must be a float. Received: weight_decay=None"):
        optimizers.AdamW(learning_rate=1.0, weight_decay=None)


KERAS = {"SGD": optimizers.SGD, "Adam": optimizers.Adam, "AdamW": optimizers.AdamW,
         "RMSprop": optimizers.RMSprop, "Adagrad": optimizers.Adagrad}


@pytest.mark.parametrize("name", sorted(KERAS))
def test_keras_weight_decay_with_exclusions(name):
    # {sgd,adam,adamw,rmsprop,adagrad}_test.test_weight_decay: var1 decayed by three optimizers (lr 1,
    # weight_decay 0.004, zero gradients) ends at 1.9760959; var2 (excluded by name) and var3 (by list) stay 2
    cls = KERAS[name]
    grads = tj.numpy.zeros(())
    var1, var2, var3 = tj.Variable(2.0), tj.Variable(2.0, name="exclude"), tj.Variable(2.0)
    optimizer_1 = cls(learning_rate=1.0, weight_decay=0.004)
    optimizer_1.apply_gradients(zip([grads], [var1]))
    optimizer_2 = cls(learning_rate=1.0, weight_decay=0.004)
    optimizer_2.exclude_from_weight_decay(var_names=["exclude"])
    optimizer_2.apply_gradients(zip([grads, grads], [var1, var2]))
    optimizer_3 = cls(learning_rate=1.0, weight_decay=0.004)
    optimizer_3.exclude_from_weight_decay(var_list=[var3])
    optimizer_3.apply_gradients(zip([grads, grads], [var1, var3]))
    assert abs(float(var1.numpy()) - 1.9760959) < 1e-6
    assert abs(float(var2.numpy()) - 2.0) < 1e-6
    assert abs(float(var3.numpy()) - 2.0) < 1e-6


@pytest.mark.parametrize("where", ["eager", "function"])
@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW"])
def test_weight_decay_exclusion_matches_an_optimizer_without_decay(name, where):
    # the excluded variable moves as under the same optimizer without weight decay, the other as with it;
    # over several steps (replayed and fused eagerly, compiled in a tj.function), with a schedule too
    cls = KERAS[name]
    kw = {"momentum": 0.9} if name == "SGD" else {}
    no_decay = {"weight_decay": 0.0} if name == "AdamW" else {}
    for lr in (0.1, optax.exponential_decay(0.1, 1, 0.5)):
        kernel, bias = tj.Variable([1.0, -2.0], name="dense/kernel"), tj.Variable([0.5], name="dense/bias")
        ref_k, ref_b = tj.Variable([1.0, -2.0]), tj.Variable([0.5])
        opt = cls(learning_rate=lr, weight_decay=0.1, **kw)
        opt.exclude_from_weight_decay(var_names=["bias"])
        ref_decayed = cls(learning_rate=lr, weight_decay=0.1, **kw)
        ref_plain = cls(learning_rate=lr, **kw, **no_decay)

        def step(o, k, b):
            with tj.GradientTape() as tape:
                loss = tj.numpy.sum(k * k) + tj.numpy.sum(b * b * 3.0)
            gk, gb = tape.gradient(loss, [k, b])
            o.apply_gradients([(gk, k), (gb, b)])

        train = tj.function(step) if where == "function" else step
        ref_b2 = tj.Variable([0.5])
        ref_k2 = tj.Variable([1.0, -2.0])
        for _ in range(4):
            train(opt, kernel, bias)
            step(ref_decayed, ref_k, ref_b2)   # decayed: its kernel is the reference
            step(ref_plain, ref_k2, ref_b)     # not decayed: its bias is the reference
        np.testing.assert_allclose(kernel.numpy(), ref_k.numpy(), rtol=1e-6)
        np.testing.assert_allclose(bias.numpy(), ref_b.numpy(), rtol=1e-6)
        assert not np.allclose(ref_b.numpy(), ref_b2.numpy())  # (the exclusion made a difference)


def test_exclude_from_weight_decay_only_before_the_build():
    # Keras: "`exclude_from_weight_decay()` can only be configured before the optimizer is built."
    opt = optimizers.Adam(weight_decay=0.01)
    opt.build([tj.Variable(1.0)])
    with pytest.raises(ValueError, match="can only be configured before the optimizer is built"):
        opt.exclude_from_weight_decay(var_names=["bias"])
    with pytest.raises(TypeError, match="mask"):
        optimizers.from_optax(optax.adamw(1e-3)).exclude_from_weight_decay(var_names=["bias"])


def test_keras_callable_learning_rate_without_arguments():
    # keras optimizer_test.test_callable_learning_rate: SGD(learning_rate=lambda: 0.1), one step of ones
    # gives [[0.9, 1.9], [2.9, 3.9]] and iterations 1 (Keras: "a callable that takes no arguments and
    # returns the actual value to use"); before, tapejax called it with the step count (TypeError)
    v = tj.Variable([[1.0, 2.0], [3.0, 4.0]])
    grads = tj.constant([[1.0, 1.0], [1.0, 1.0]])
    optimizer = optimizers.SGD(learning_rate=lambda: 0.1)
    assert int(optimizer.iterations.numpy()) == 0
    optimizer.apply_gradients([(grads, v)])
    np.testing.assert_allclose(v.numpy(), [[0.9, 1.9], [2.9, 3.9]], rtol=1e-6)
    assert int(optimizer.iterations.numpy()) == 1
    # called at each step: a changed value reaches the next step (Adam's first steps move by ~lr)
    rate = [0.1]
    opt, w = optimizers.Adam(learning_rate=lambda: rate[0]), tj.Variable([1.0])
    opt.apply_gradients([(tj.constant([1.0]), w)])
    rate[0] = 0.5
    assert abs(float(opt.learning_rate) - 0.5) < 1e-7
    opt.apply_gradients([(tj.constant([1.0]), w)])
    np.testing.assert_allclose(w.numpy(), [0.4], atol=1e-4)
    opt.learning_rate = 0.25  # a float set later replaces the callable
    rate[0] = 1.0
    opt.apply_gradients([(tj.constant([1.0]), w)])
    np.testing.assert_allclose(w.numpy(), [0.15], atol=1e-4)


def test_keras_hyperparameters_are_attributes():
    # keras optimizer_test.test_clip_args: SGD(learning_rate=1.0, clipnorm=0.1).clipnorm == 0.1, and so on
    assert optimizers.SGD(learning_rate=1.0, clipnorm=0.1).clipnorm == 0.1
    assert optimizers.SGD(learning_rate=1.0, clipvalue=0.1).clipvalue == 0.1
    assert optimizers.SGD(learning_rate=1.0, global_clipnorm=0.1).global_clipnorm == 0.1
    sgd = optimizers.SGD(momentum=0.9, nesterov=True)
    assert (sgd.momentum, sgd.nesterov, sgd.weight_decay, sgd.clipnorm) == (0.9, True, None, None)
    adamw = optimizers.AdamW()
    assert (adamw.beta_1, adamw.beta_2, adamw.epsilon, adamw.amsgrad, adamw.weight_decay) == \
        (0.9, 0.999, 1e-7, False, 0.004)
    rms = optimizers.RMSprop()
    assert (rms.rho, rms.momentum, rms.epsilon, rms.centered) == (0.9, 0.0, 1e-7, False)
    ada = optimizers.Adagrad()
    assert (ada.initial_accumulator_value, ada.epsilon) == (0.1, 1e-7)
    adamw.beta_1 = 0.5  # Keras 3 lets a hyperparameter be set; the next step uses it
    assert adamw.beta_1 == 0.5


def test_keras_iterations_and_empty_gradients():
    # keras optimizer_test.test_iterations_counter and test_empty_gradients
    v = tj.Variable([[1.0, 2.0], [3.0, 4.0]])
    grads = tj.constant([[1.0, 1.0], [1.0, 1.0]])
    optimizer = optimizers.Adam(learning_rate=1.0)
    assert int(optimizer.iterations.numpy()) == 0
    optimizer.apply_gradients([(grads, v)])
    optimizer.apply_gradients([(grads, v)])
    assert int(optimizer.iterations.numpy()) == 2
    v = tj.Variable([[3.0, 4.0], [5.0, 6.0]])
    with pytest.raises(ValueError, match="No gradients provided for any variable."):
        optimizers.SGD(learning_rate=1.0).apply_gradients([(None, v)])
    v2 = tj.Variable([[3.0, 4.0], [5.0, 6.0]])
    with pytest.warns(UserWarning, match="Gradients do not exist for variables"):
        optimizers.SGD(learning_rate=1.0).apply_gradients([(None, v), (grads, v2)])
    np.testing.assert_allclose(v.numpy(), [[3.0, 4.0], [5.0, 6.0]])
    np.testing.assert_allclose(v2.numpy(), [[2.0, 3.0], [4.0, 5.0]])


@pytest.mark.parametrize("name", sorted(KERAS))
def test_keras_gradient_clipping_through_a_step(name):
    # keras {sgd,adam,...}_test.test_clip_norm / test_clip_value and optimizer_test.test_global_clip_norm
    # (there on the private _clip_gradients): clipnorm=1 makes [100, 100] [sqrt(2)/2, sqrt(2)/2],
    # clipvalue=1 makes it [1, 1], global_clipnorm=1 makes [50, 100] [50, 100] / norm. Seen through one
    # plain SGD step of rate 1 (for the other optimizers: the same clipped gradients give the same step as
    # the unclipped optimizer given the clipped gradient)
    cls = KERAS[name]
    cases = [({"clipnorm": 1}, [100.0, 100.0], [2 ** 0.5 / 2, 2 ** 0.5 / 2]),
             ({"clipvalue": 1}, [100.0, 100.0], [1.0, 1.0]),
             ({"global_clipnorm": 1}, [50.0, 100.0], list(np.array([50.0, 100.0]) / np.linalg.norm([50.0, 100.0])))]
    for option, grad, clipped in cases:
        v, ref = tj.Variable([0.5, -0.5]), tj.Variable([0.5, -0.5])
        cls(learning_rate=1.0, **option).apply_gradients([(tj.constant(grad), v)])
        cls(learning_rate=1.0).apply_gradients([(tj.constant(clipped), ref)])
        np.testing.assert_allclose(v.numpy(), ref.numpy(), rtol=1e-6, atol=1e-7)
        if cls is optimizers.SGD:
            np.testing.assert_allclose(v.numpy(), np.array([0.5, -0.5]) - np.array(clipped), rtol=1e-6)


def test_variable_without_an_initial_value_is_a_value_error():
    # TF 2.21: tf.Variable() and tf.Variable(None) raise ValueError "The `initial_value` arg to
    # `tf.Variable` must be specified ..."; tapejax raised TypeError (a missing argument / None conversion)
    for make in (lambda: tj.Variable(), lambda: tj.Variable(None), lambda: tj.Variable(lambda: None)):
        with pytest.raises((ValueError, TypeError)):
            make()
    with pytest.raises(ValueError, match="initial_value"):
        tj.Variable()
    with pytest.raises(ValueError, match="initial_value"):
        tj.Variable(None, name="w")


# Keras 3.15 (TF backend), SGD(0.1, momentum=0.9, nesterov=...) on w = tf.Variable([1.0, -2.0, 0.5]):
#   for i, g in enumerate(SGD_GRADS): (o.learning_rate = 0.5 if i == 2); o.apply_gradients([(g, w)])
# and with keras.optimizers.schedules.ExponentialDecay(0.1, 1, 0.5) (optax.exponential_decay(0.1, 1, 0.5)).
SGD_GRADS = [[0.5, -1.5, 2.0], [0.01, 0.02, -0.03], [3.0, 0.0, -4.0], [-0.2, 0.4, 0.1]]
KERAS_SGD_MOMENTUM = {
    (False, "set"): ([-1.9246599674224854, -1.6895700693130493, 3.5703301429748535],
                     [-1.2872599363327026, -0.09227000921964645, 1.6066300868988037]),
    (True, "set"): ([-3.0831940174102783, -1.7726129293441772, 5.016297340393066],
                    [-1.2872599363327026, -0.09227000921964645, 1.6066300868988037]),
    (False, "schedule"): ([0.6866950392723083, -1.4918601512908936, 0.005015019327402115], None),
    (True, "schedule"): ([0.5950254201889038, -1.3986737728118896, -0.0452364906668663], None),
}


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "tj_function"])
@pytest.mark.parametrize("case", sorted(KERAS_SGD_MOMENTUM))
def test_sgd_momentum_keeps_each_steps_learning_rate_as_keras(case, compiled):
    # Keras's velocity v = momentum * v - lr * g holds each step's rate; tapejax used optax.sgd, whose trace
    # of raw gradients is scaled by the current rate (w was [-2.2393, -0.77985, 2.35965] for the first case)
    nesterov, how = case
    w_expected, velocity_expected = KERAS_SGD_MOMENTUM[case]
    lr = 0.1 if how == "set" else optax.exponential_decay(0.1, 1, 0.5)
    opt, w = optimizers.SGD(lr, momentum=0.9, nesterov=nesterov), tj.Variable([1.0, -2.0, 0.5])

    def step(g):
        opt.apply_gradients([(g, w)])
    step = tj.function(step) if compiled else step
    for i, g in enumerate(SGD_GRADS):
        if i == 2 and how == "set":
            opt.learning_rate = 0.5
        step(tj.constant(g))
    np.testing.assert_allclose(w.numpy(), w_expected, rtol=2e-6, atol=1e-6)
    if velocity_expected is not None:  # the state is Keras's momentum variable
        np.testing.assert_allclose(opt.variables[2].numpy(), velocity_expected, rtol=2e-6, atol=1e-6)


def test_sgd_nesterov_golden():
    # keras sgd_test.test_correctness_with_golden
    golden = np.array(
        [[0.9999] * 10, [0.9989, 0.9979, 0.9969, 0.9959, 0.9949, 0.9939, 0.9929, 0.9919, 0.9909, 0.9899],
         [0.9979, 0.9959, 0.9939, 0.9919, 0.9899, 0.9879, 0.9859, 0.9839, 0.9819, 0.9799],
         [0.9969, 0.9939, 0.9909, 0.9879, 0.9849, 0.9819, 0.9789, 0.9759, 0.9729, 0.9699],
         [0.9959, 0.9919, 0.9879, 0.9839, 0.9799, 0.9759, 0.9719, 0.9679, 0.9639, 0.9599]])
    optimizer = optimizers.SGD(nesterov=True)
    x = tj.Variable(np.ones([10], np.float32))
    grads, first_grads = tj.numpy.arange(0.1, 1.1, 0.1), tj.numpy.full((10,), 0.01)
    optimizer.apply_gradients(zip([first_grads], [x]))
    for i in range(5):
        np.testing.assert_allclose(x.numpy(), golden[i], rtol=5e-4, atol=5e-4)
        optimizer.apply_gradients(zip([grads], [x]))
