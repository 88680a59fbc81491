"""tj.optimizers (Keras's optimizers on optax) and tj.clip_by_norm / tj.clip_by_global_norm (TF).

Reference values come from optax applied directly to the same arrays (and plain NumPy/JAX formulas for
clipping), never from tapejax itself."""
from __future__ import annotations

import copy
import inspect
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import tapejax as tj
import tapejax.numpy as tnp
from conftest import xla_flags

ROOT = Path(__file__).resolve().parents[1]
STEPS = 4

W0 = np.linspace(-1.0, 1.0, 6, dtype=np.float32).reshape(3, 2)
B0 = np.array([0.5, -0.25], np.float32)
X = np.linspace(0.1, 1.2, 12, dtype=np.float32).reshape(4, 3)


def _loss_jax(p):
    return jnp.sum(jnp.tanh(X @ p[0] + p[1]) ** 2) + 0.1 * jnp.sum(p[0] ** 2)


def _loss_tj(w, b):
    return tnp.sum(tnp.tanh(tj.constant(X) @ w + b) ** 2) + 0.1 * tnp.sum(w ** 2)


def _optax_run(tx, steps=STEPS):
    p = [jnp.asarray(W0), jnp.asarray(B0)]
    state = tx.init(p)
    for _ in range(steps):
        g = jax.grad(_loss_jax)(p)
        u, state = tx.update(g, state, p)
        p = optax.apply_updates(p, u)
    return p, state


def _keras_adam(make, lr, **kw):
    """optax's Adam with Keras's epsilon placement (the optimizer's documented construction)."""
    return optax.inject_hyperparams(make)(lr, eps=tj.optimizers.keras_epsilon(1e-7, 0.999), **kw)


schedule = optax.exponential_decay(0.1, transition_steps=1, decay_rate=0.5)

CASES = {
    "sgd": (lambda: tj.optimizers.SGD(0.1), lambda: optax.sgd(0.1)),
    "sgd_momentum": (lambda: tj.optimizers.SGD(0.1, momentum=0.9), lambda: optax.sgd(0.1, momentum=0.9)),
    "sgd_nesterov": (lambda: tj.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
                     lambda: optax.sgd(0.1, momentum=0.9, nesterov=True)),
    "adam": (lambda: tj.optimizers.Adam(0.05), lambda: _keras_adam(optax.adam, 0.05)),
    "adamw": (lambda: tj.optimizers.AdamW(0.05), lambda: _keras_adam(optax.adamw, 0.05, weight_decay=0.004)),
    "rmsprop": (lambda: tj.optimizers.RMSprop(0.01),
                lambda: optax.rmsprop(0.01, decay=0.9, eps=1e-7, eps_in_sqrt=True)),
    "rmsprop_centered_momentum": (
        lambda: tj.optimizers.RMSprop(0.01, momentum=0.5, centered=True),
        lambda: optax.rmsprop(0.01, decay=0.9, eps=1e-7, centered=True, momentum=0.5)),
    "adagrad": (lambda: tj.optimizers.Adagrad(0.1), lambda: optax.adagrad(0.1, 0.1, eps=1e-7)),
    "adam_schedule": (lambda: tj.optimizers.Adam(schedule), lambda: _keras_adam(optax.adam, schedule)),
    "from_optax_chain": (
        lambda: tj.optimizers.from_optax(optax.chain(optax.clip_by_global_norm(0.5), optax.adam(0.05))),
        lambda: optax.chain(optax.clip_by_global_norm(0.5), optax.adam(0.05))),
}


def _state_variables(opt):
    """The optimizer's optax state Variables: its variables after ``iterations`` and (a float rate) the
    ``learning_rate`` Variable, as Keras orders them."""
    head = [opt.iterations] + ([opt.learning_rate] if isinstance(opt.learning_rate, tj.Variable) else [])
    assert all(a is b for a, b in zip(opt.variables, head))
    return opt.variables[len(head):]


def _assert_state(opt):
    # the state Variables hold what optax's own run of the optimizer's transformation holds (written back)
    leaves = jax.tree_util.tree_leaves(_optax_run(opt.transformation)[1])
    state = _state_variables(opt)
    assert len(state) == len(leaves)
    for v, ref in zip(state, leaves):
        np.testing.assert_allclose(v.numpy(), np.asarray(ref), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", sorted(CASES))
def test_eager_steps_match_optax(case):
    make, make_ref = CASES[case]
    opt = make()
    w, b = tj.Variable(W0), tj.Variable(B0)
    for _ in range(STEPS):
        with tj.GradientTape() as tape:
            loss = _loss_tj(w, b)
        opt.apply_gradients(zip(tape.gradient(loss, [w, b]), [w, b]))
    (w_ref, b_ref), _ = _optax_run(make_ref())
    np.testing.assert_allclose(w.numpy(), w_ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b.numpy(), b_ref, rtol=1e-5, atol=1e-6)
    assert int(opt.iterations.numpy()) == STEPS
    _assert_state(opt)
    assert w.numpy().dtype == np.float32


@pytest.mark.parametrize("case", ["sgd_momentum", "adam", "rmsprop_centered_momentum", "adam_schedule",
                                  "from_optax_chain"])
def test_tj_function_train_step_matches_optax(case):
    make, make_ref = CASES[case]
    opt = make()
    w, b = tj.Variable(W0), tj.Variable(B0)
    traces = []

    @tj.function
    def step():
        traces.append(1)
        with tj.GradientTape() as tape:
            loss = _loss_tj(w, b)
        opt.apply_gradients(zip(tape.gradient(loss, [w, b]), [w, b]))
        return loss

    for _ in range(STEPS):
        step()
    (w_ref, b_ref), _ = _optax_run(make_ref())
    np.testing.assert_allclose(w.numpy(), w_ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b.numpy(), b_ref, rtol=1e-5, atol=1e-6)
    assert int(opt.iterations.numpy()) == STEPS
    _assert_state(opt)   # the state Variables were captured and written back
    n = len(traces)
    step()
    assert len(traces) == n     # later steps run the compiled program


def test_keras_defaults():
    expected = {
        tj.optimizers.SGD: dict(learning_rate=0.01, momentum=0.0, nesterov=False),
        tj.optimizers.Adam: dict(learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7),
        tj.optimizers.AdamW: dict(learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999, epsilon=1e-7),
        tj.optimizers.RMSprop: dict(learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False),
        tj.optimizers.Adagrad: dict(learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7),
    }
    for cls, defaults in expected.items():
        params = inspect.signature(cls).parameters
        for k, v in defaults.items():
            assert params[k].default == v, (cls.__name__, k)


def _keras_adam_reference(w, grads, lr, b1, b2, eps, wd=0.0):
    """Keras 3's Adam/AdamW update written out in NumPy (float64) from its documented formula."""
    m, v = np.zeros_like(w), np.zeros_like(w)
    for t, g in enumerate(grads, start=1):
        w = w - w * wd * lr
        alpha = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        m = m + (g - m) * (1 - b1)
        v = v + (g * g - v) * (1 - b2)
        w = w - alpha * m / (np.sqrt(v) + eps)
    return w


# TF 2.21's tf.keras.optimizers (Keras 3) on the CPU: the weights after six steps of _TF_GRADS from _TF_W0
# at learning rate 0.05, as float32 bit patterns (float.hex), and the same optimizer made here.
_TF_W0 = np.array([[1.0, -2.0, 0.5], [0.25, 3.0, -0.75]], np.float32)
_TF_GRADS = [np.array([[0.5, -0.25, 1e-4], [2.0, -3.0, 0.125]], np.float32) * s
             for s in (1.0, -0.5, 2.0, 0.25, -1.0, 1.5)]
_TF_WEIGHTS = {
    "Adam": (lambda: tj.optimizers.Adam(0.05),
             ("0x1.ad8a5p-1", "-0x1.d6c534p+0", "0x1.5e4d94p-2", "0x1.6c51f4p-4", "0x1.949d7p+1", "-0x1.d2757p-1")),
    "AdamW(weight_decay=0.01)": (
        lambda: tj.optimizers.AdamW(0.05, weight_decay=0.01),
        ("0x1.ac20a4p-1", "-0x1.d54cp+0", "0x1.5d0178p-2", "0x1.6a38f4p-4", "0x1.936f22p+1", "-0x1.d12fd8p-1")),
    "Adam(epsilon=1e-3, beta_1=0.8, beta_2=0.99)": (
        lambda: tj.optimizers.Adam(0.05, epsilon=1e-3, beta_1=0.8, beta_2=0.99),
        ("0x1.b0fb7ap-1", "-0x1.d8f9c8p+0", "0x1.fd081p-2", "0x1.81e46cp-4", "0x1.93f63ap+1", "-0x1.cc314ep-1")),
}


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "tj.function"])
@pytest.mark.parametrize("made", sorted(_TF_WEIGHTS))
def test_adam_float32_steps_are_tf_keras_to_a_few_ulps(made, compiled):
    # Keras's epsilon folded into optax's eps per step (keras_scale_by_adam): within 4 units in the last
    # place of TF's float32 weights here; optax.inject_hyperparams with the same epsilon schedule was 142.
    make, tf_hex = _TF_WEIGHTS[made]
    opt, w = make(), tj.Variable(_TF_W0)
    step = (lambda g: opt.apply_gradients([(g, w)]))
    step = tj.function(step) if compiled else step
    for g in _TF_GRADS:
        step(tj.constant(g))
    tf_w = np.array([float.fromhex(h) for h in tf_hex], np.float32).reshape(_TF_W0.shape)
    ulps = np.abs(w.numpy() - tf_w) / np.spacing(np.abs(tf_w))
    assert ulps.max() <= 8, ulps


@pytest.mark.parametrize("wd", [0.0, 0.1])
def test_adam_matches_keras_formula_where_epsilon_matters(wd):
    # gradients near epsilon: optax's own epsilon placement would be off by ~30% here
    grads = [np.array([1e-3, -2e-3, 5e-4]) * s for s in (1.0, 0.5, -1.0, 2.0)]
    w0 = np.array([1.0, -1.0, 0.5])
    opt = tj.optimizers.AdamW(0.1, weight_decay=wd, epsilon=1e-3) if wd else tj.optimizers.Adam(0.1, epsilon=1e-3)
    v = tj.Variable(w0.astype(np.float32))
    for g in grads:
        opt.apply_gradients([(tj.constant(g.astype(np.float32)), v)])
    ref = _keras_adam_reference(w0, grads, 0.1, 0.9, 0.999, 1e-3, wd)
    np.testing.assert_allclose(v.numpy(), ref, rtol=1e-5)
    plain = optax.adam(0.1, eps=1e-3)
    p, st = [jnp.asarray(w0, jnp.float32)], None
    st = plain.init(p)
    for g in grads:
        u, st = plain.update([jnp.asarray(g, jnp.float32)], st, p)
        p = optax.apply_updates(p, u)
    if not wd:
        assert not np.allclose(p[0], ref, rtol=1e-3)  # the difference matching Keras removes


def test_keras_default_sgd_step_value():
    v = tj.Variable([1.0, 2.0])
    tj.optimizers.SGD().apply_gradients([(tj.constant([1.0, -1.0]), v)])
    np.testing.assert_allclose(v.numpy(), [0.99, 2.01], rtol=1e-6)


def test_none_gradients_are_skipped_and_their_state_kept():
    opt = tj.optimizers.Adam(0.1)
    a, b = tj.Variable([1.0, 2.0]), tj.Variable([3.0])
    opt.apply_gradients([(tj.constant([1.0, 1.0]), a), (tj.constant([2.0]), b)])
    b_after, b_state = b.numpy().copy(), [v.numpy().copy() for v in opt.variables[1:]]
    with pytest.warns(UserWarning, match="do not exist"):
        opt.apply_gradients([(tj.constant([0.5, -1.0]), a), (None, b)])
    np.testing.assert_array_equal(b.numpy(), b_after)
    # b's entries of the per-variable state are those of the first step; a's moved on as optax alone
    tx = optax.adam(0.1, eps=1e-7)
    pa = [jnp.array([1.0, 2.0])]
    st = tx.init(pa)
    for g in ([1.0, 1.0], [0.5, -1.0]):
        u, st = tx.update([jnp.array(g)], st, pa)
        pa = optax.apply_updates(pa, u)
    np.testing.assert_allclose(a.numpy(), pa[0], rtol=1e-6)
    shapes = [v.shape for v in opt.variables[1:]]
    for before, v, shape in zip(b_state, opt.variables[1:], shapes):
        if shape == (1,):
            np.testing.assert_array_equal(v.numpy(), before)
    assert int(opt.iterations.numpy()) == 2
    with pytest.raises(ValueError, match="No gradients provided"):
        opt.apply_gradients([(None, a), (None, b)])


def test_constraints_are_applied_after_the_update():
    # Keras's optimizer_test.test_constraints_are_applied: a NonNeg constraint set on the variable
    v = tj.Variable(np.random.default_rng(0).random((2, 2)).astype(np.float32) - 1.0)
    assert v.constraint is None
    v.constraint = lambda w: tnp.maximum(w, 0.0)
    tj.optimizers.SGD(learning_rate=0.0001).apply_gradients([(tnp.zeros((2, 2)), v)])
    assert v.numpy().min() == 0.0
    # given to the constructor; applied to the updated variables only (a None gradient: no update, no
    # projection), eagerly and inside tj.function alike; each projects the value the update made
    clip = lambda w: tnp.clip(w, -1.0, 1.5)  # noqa: E731
    for compiled in (False, True):
        a = tj.Variable([1.0, -1.0], constraint=clip)
        b = tj.Variable([5.0], constraint=clip)  # outside the bounds, never updated: left as it is
        opt = tj.optimizers.SGD(1.0)
        step = lambda: opt.apply_gradients([(tj.constant([-1.0, 0.5]), a), (None, b)])  # noqa: E731
        with pytest.warns(UserWarning, match="do not exist"):
            (tj.function(step) if compiled else step)()
        np.testing.assert_array_equal(a.numpy(), [1.5, -1.0])  # (2.0 and -1.5 projected)
        np.testing.assert_array_equal(b.numpy(), [5.0])
    with pytest.raises(ValueError, match="constraint must be None or a callable"):
        tj.Variable(1.0, constraint="non_neg")
    with pytest.raises(ValueError, match="constraint must be None or a callable"):
        v.constraint = 3
    assert v.constraint is not None  # (a refused value leaves the one set)
    copied = copy.deepcopy(tj.Variable([1.0], constraint=clip))
    assert copied.constraint is clip


def test_unknown_variable_and_bad_arguments():
    opt = tj.optimizers.SGD(0.1)
    a = tj.Variable([1.0])
    opt.apply_gradients([(tj.constant([1.0]), a)])
    with pytest.raises(ValueError, match="Unknown variable"):
        opt.apply_gradients([(tj.constant([1.0]), tj.Variable([2.0]))])
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        opt.apply_gradients([(tj.constant([1.0, 2.0]), a)])
    with pytest.raises(TypeError, match="tj.Variable"):
        tj.optimizers.SGD().apply_gradients([(tj.constant([1.0]), tj.constant([1.0]))])
    with pytest.raises(TypeError, match="GradientTransformation"):
        tj.optimizers.from_optax(lambda g: g)
    with pytest.raises(ValueError, match="momentum"):
        tj.optimizers.SGD(momentum=1.5)


def test_schedule_learning_rate_follows_iterations():
    opt = tj.optimizers.SGD(schedule)
    v = tj.Variable([0.0])
    seen = []
    for _ in range(3):
        seen.append(float(opt.learning_rate))
        opt.apply_gradients([(tj.constant([1.0]), v)])
    np.testing.assert_allclose(seen, [0.1, 0.05, 0.025], rtol=1e-6)
    np.testing.assert_allclose(v.numpy(), [-0.175], rtol=1e-6)


def test_minimize_with_callable_and_with_tape():
    w1, b1 = tj.Variable(W0), tj.Variable(B0)
    w2, b2 = tj.Variable(W0), tj.Variable(B0)
    o1, o2 = tj.optimizers.Adam(0.05), tj.optimizers.Adam(0.05)
    for _ in range(STEPS):
        o1.minimize(lambda: _loss_tj(w1, b1), [w1, b1])
        with tj.GradientTape() as tape:
            loss = _loss_tj(w2, b2)
        o2.minimize(loss, lambda: [w2, b2], tape=tape)
    (w_ref, _), _ = _optax_run(optax.adam(0.05, eps=1e-7))
    np.testing.assert_allclose(w1.numpy(), w_ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w2.numpy(), w_ref, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="tape"):
        o1.minimize(tj.constant(1.0), [w1])


def test_variables_before_and_after_build():
    opt = tj.optimizers.Adam()
    assert len(opt.variables) == 2  # as Keras: iteration and learning_rate
    assert opt.variables[0] is opt.iterations and opt.variables[1] is opt.learning_rate
    v = tj.Variable(np.ones((2, 2), np.float32))
    opt.apply_gradients([(tj.constant(np.ones((2, 2), np.float32)), v)])
    assert all(isinstance(s, tj.Variable) and not s.trainable for s in opt.variables)
    assert len(opt.variables) == 2 + len(jax.tree_util.tree_leaves(opt.transformation.init([v.numpy()])))
    # Keras's moments and nothing else of Adam's but optax's one step count (each state Variable is an
    # argument and a result of every compiled step): 2 + 1 + 2 per Variable
    assert [tuple(s.shape) for s in opt.variables[2:]] == [(), (2, 2), (2, 2)]


def test_optimizer_state_is_not_recorded_on_an_outer_tape():
    opt = tj.optimizers.SGD(0.1)
    v = tj.Variable([1.0])
    with tj.GradientTape(persistent=True) as tape:
        y = v * 2.0
        opt.apply_gradients([(tj.constant([1.0]), v)])
    assert tape.gradient(y, opt.iterations) is None
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [2.0])


def test_values_read_before_a_step_keep_their_values():
    # The update reuses the Variables' old buffers only when nothing else holds them.
    w, b = tj.Variable([1.0, 2.0]), tj.Variable(3.0)
    opt = tj.optimizers.Adam(0.1)
    grads = [tj.constant([0.5, -0.5]), tj.constant(1.0)]
    opt.apply_gradients(zip(grads, [w, b]))
    before_w, before_b, before_m = w.read_value(), b.numpy(), _state_variables(opt)[0].read_value()
    with tj.GradientTape() as tape:
        loss = tnp.sum(w * w) + b  # a forward value computed from the old weights
    snapshot = (before_w.numpy().copy(), np.array(before_b), before_m.numpy().copy(), loss.numpy().copy())
    for _ in range(3):
        opt.apply_gradients(zip(grads, [w, b]))
    np.testing.assert_array_equal(before_w.numpy(), snapshot[0])
    np.testing.assert_array_equal(before_b, snapshot[1])
    np.testing.assert_array_equal(before_m.numpy(), snapshot[2])
    np.testing.assert_array_equal(loss.numpy(), snapshot[3])
    assert not np.array_equal(w.numpy(), snapshot[0])
    # and the steps are optax's, whichever buffers they used
    tx = _keras_adam(optax.adam, 0.1)
    p = [jnp.array([1.0, 2.0]), jnp.array(3.0)]
    state = tx.init(p)
    for _ in range(4):
        u, state = tx.update([g.value for g in grads], state, p)
        p = optax.apply_updates(p, u)
    np.testing.assert_allclose(w.numpy(), p[0], rtol=1e-5)
    np.testing.assert_allclose(b.numpy(), p[1], rtol=1e-5)
    assert int(opt.iterations.numpy()) == 4 and opt.iterations.dtype == jnp.int32


# -- clipping ----------------------------------------------------------------------------------------
def test_clip_by_norm_values_and_axes():
    t = np.array([[3.0, 4.0], [0.3, 0.4]], np.float32)
    np.testing.assert_allclose(tj.clip_by_norm(t, 1.0).numpy(), t / np.linalg.norm(t), rtol=1e-6)
    np.testing.assert_allclose(tj.clip_by_norm(t, 10.0).numpy(), t, rtol=1e-6)
    rows = tj.clip_by_norm(t, 1.0, axes=[1]).numpy()
    np.testing.assert_allclose(rows, [[0.6, 0.8], [0.3, 0.4]], rtol=1e-6)


def test_clip_by_norm_is_differentiable_and_finite_at_zero():
    x = tj.Variable([3.0, 4.0])
    with tj.GradientTape() as tape:
        y = tnp.sum(tj.clip_by_norm(x, 1.0) * tj.constant([1.0, 2.0]))
    g = tape.gradient(y, x).numpy()

    def ref(x):
        return jnp.sum(x * 1.0 / jnp.maximum(jnp.linalg.norm(x), 1.0) * jnp.array([1.0, 2.0]))
    np.testing.assert_allclose(g, jax.grad(ref)(jnp.array([3.0, 4.0])), rtol=1e-5)
    z = tj.Variable([0.0, 0.0])
    with tj.GradientTape() as tape:
        y = tnp.sum(tj.clip_by_norm(z, 1.0))
    assert np.all(np.isfinite(tape.gradient(y, z).numpy()))


def test_clip_by_global_norm():
    a, b = np.array([3.0, 0.0], np.float32), np.array([[4.0]], np.float32)
    clipped, norm = tj.clip_by_global_norm([a, None, b], 1.0)
    assert float(norm) == pytest.approx(5.0)
    assert clipped[1] is None
    np.testing.assert_allclose(clipped[0].numpy(), a / 5.0, rtol=1e-6)
    np.testing.assert_allclose(clipped[2].numpy(), b / 5.0, rtol=1e-6)
    same, _ = tj.clip_by_global_norm((a, b), 10.0)
    np.testing.assert_allclose(same[0].numpy(), a, rtol=1e-6)
    nan, n = tj.clip_by_global_norm([np.array([np.inf, 1.0], np.float32)], 1.0)
    assert np.isinf(float(n)) and np.all(np.isnan(nan[0].numpy()))
    with pytest.raises(TypeError, match="sequence"):
        tj.clip_by_global_norm(tj.constant([1.0]), 1.0)
    # as optax.clip_by_global_norm (the same rule), and differentiable
    g = [jnp.asarray(a), jnp.asarray(b)]
    ref, _ = optax.clip_by_global_norm(1.0).update(g, optax.EmptyState())
    np.testing.assert_allclose(clipped[0].numpy(), ref[0], rtol=1e-6)
    v = tj.Variable(a)
    with tj.GradientTape() as tape:
        (c,), _ = tj.clip_by_global_norm([v], 1.0)
        y = tnp.sum(c)
    assert tape.gradient(y, v) is not None


# -- sharded Variables over 8 simulated devices ----------------------------------------------------------
SHARDED_SCRIPT = textwrap.dedent("""
    import json, sys
    import jax, jax.numpy as jnp, numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    import tapejax as tj, tapejax.numpy as tnp
    assert jax.device_count() == 8
    mesh = Mesh(np.array(jax.devices()), ("d",))
    W = np.linspace(-1, 1, 32, dtype=np.float32).reshape(16, 2)
    X = np.linspace(0, 1, 48, dtype=np.float32).reshape(3, 16)

    def run(sharded, compiled, make):
        w0 = jax.device_put(jnp.asarray(W), NamedSharding(mesh, P("d"))) if sharded else jnp.asarray(W)
        w, opt = tj.Variable(w0), make()

        def step():
            with tj.GradientTape() as tape:
                loss = tnp.sum(tnp.tanh(tj.constant(X) @ w) ** 2)
            opt.apply_gradients([(tape.gradient(loss, w), w)])
            return loss
        step = tj.function(step) if compiled else step
        for _ in range(3):
            step()
        specs = [getattr(v.read_value().value.sharding, "spec", None) == P("d") for v in [w] + opt.variables
                 if v.shape == w.shape]
        return w.numpy().tolist(), [v.numpy().tolist() for v in opt.variables], specs

    out = {}
    for name, make in [("adam", lambda: tj.optimizers.Adam(0.1)),
                       ("sgd", lambda: tj.optimizers.SGD(0.1, momentum=0.9))]:
        for compiled in (False, True):
            out[f"{name}-{compiled}"] = [run(False, compiled, make), run(True, compiled, make)]
    print(json.dumps(out))
""")


def _run_on_eight_devices(script: str):
    """Run ``script`` in a process with 8 simulated CPU devices; the JSON its last line prints."""
    env = dict(os.environ)
    env["XLA_FLAGS"] = xla_flags("--xla_force_host_platform_device_count=8")
    env["JAX_PLATFORMS"] = "cpu"
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_sharded_variables_match_unsharded():
    out = _run_on_eight_devices(SHARDED_SCRIPT)
    assert len(out) == 4
    for key, ((w_plain, s_plain, _), (w_shard, s_shard, specs)) in out.items():
        np.testing.assert_allclose(w_shard, w_plain, rtol=1e-5, atol=1e-6, err_msg=key)
        for a, b in zip(s_shard, s_plain):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=key)
        assert len(specs) >= 2 and all(specs), (key, specs)  # the variable and its slots stay sharded


MIXED_SCRIPT = textwrap.dedent("""
    import json, os, sys, tempfile
    import jax, jax.numpy as jnp, numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    import tapejax as tj, tapejax.numpy as tnp
    mesh = Mesh(np.array(jax.devices()), ("d",))
    W = np.linspace(-1, 1, 16, dtype=np.float32)

    def run(sharded, lazy):
        # a sharded weight beside a Variable placed by default (a scalar bias, the optimizer's learning rate)
        w0 = jax.device_put(jnp.asarray(W), NamedSharding(mesh, P("d"))) if sharded else jnp.asarray(W)
        w, b, opt = tj.Variable(w0), tj.Variable(0.5), tj.optimizers.Adam(0.1)
        ckpt = tj.train.Checkpoint(model=[w, b], opt=opt)

        def step():
            with tj.GradientTape() as tape:
                loss = tnp.sum(tnp.tanh(w) ** 2) + b * b
            opt.apply_gradients(zip(tape.gradient(loss, [w, b]), [w, b]))
        with tj.config.override(lazy=lazy):
            for _ in range(3):
                step()
            path = ckpt.save(os.path.join(tempfile.mkdtemp(), "c"))
            opt.learning_rate = 0.01
            step()
            ckpt.restore(path)  # back to the rate 0.1 and the values after 3 steps
            for _ in range(2):
                step()
        spec = getattr(w.read_value().value.sharding, "spec", None)
        return [w.numpy().tolist(), b.numpy().tolist(), float(opt.learning_rate), str(spec)]

    print(json.dumps({str(lazy): [run(False, lazy), run(True, lazy)] for lazy in (True, False)}))
""")


def test_default_placed_variables_train_beside_sharded_ones_and_restore():
    # The gradient of a Variable placed by default came back committed to device 0 and the update refused to
    # mix it with the sharded weight ("incompatible devices"); a restore committed such Variables too.
    out = _run_on_eight_devices(MIXED_SCRIPT)
    for lazy, (plain, sharded) in out.items():
        np.testing.assert_allclose(sharded[0], plain[0], rtol=1e-5, atol=1e-6, err_msg=lazy)
        np.testing.assert_allclose(sharded[1], plain[1], rtol=1e-5, atol=1e-6, err_msg=lazy)
        assert plain[2] == sharded[2] == np.float32(0.1)
        assert sharded[3] in ("P('d',)", "PartitionSpec('d',)"), sharded[3]  # the weight stays sharded


def test_weight_decay_name_patterns_match_the_name_without_tfs_output_index():
    # Keras 3 names a variable "bias" (no ":0"): an anchored pattern such as "bias$" must still exclude it.
    bias, kernel = tj.Variable([1.0, 2.0], name="bias"), tj.Variable([1.0, 2.0], name="kernel")
    assert bias.name == "bias:0"
    opt = tj.optimizers.AdamW(learning_rate=0.1, weight_decay=0.5)
    opt.exclude_from_weight_decay(var_names=["bias$"])
    plain = tj.optimizers.Adam(learning_rate=0.1)
    ref = tj.Variable([1.0, 2.0])
    g = tj.constant([0.5, -0.5])
    opt.apply_gradients([(g, bias), (g, kernel)])
    plain.apply_gradients([(g, ref)])
    np.testing.assert_allclose(bias.numpy(), ref.numpy(), rtol=1e-6)  # excluded: Adam's step only
    assert not np.allclose(kernel.numpy(), ref.numpy())  # decayed


def test_adamw_is_a_kind_of_adam_as_in_keras():
    # Keras's AdamW subclasses its Adam: isinstance checks written against Adam hold for it
    opt = tj.optimizers.AdamW(0.01, weight_decay=0.1)
    assert isinstance(opt, tj.optimizers.Adam) and type(opt).__name__ == "AdamW"
    assert opt.get_config()["weight_decay"] == 0.1 and not isinstance(tj.optimizers.Adam(), tj.optimizers.AdamW)


def _keras_adam_after(counts, lr=0.1, b1=0.9, b2=0.999, eps=1e-7, g=1.0):
    """Keras's Adam (float64) on a Variable starting at 1.0 with gradient ``g`` at each step, the step counts
    ``counts`` (the value of ``iterations`` before each step)."""
    var, m, v = 1.0, 0.0, 0.0
    for c in counts:
        t = c + 1
        m += (g - m) * (1 - b1)
        v += (g * g - v) * (1 - b2)
        var -= lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t) * m / (np.sqrt(v) + eps)
    return var


@pytest.mark.parametrize("where", ["eager", "replayed loop", "tj.function"])
def test_assigning_iterations_sets_the_step_count_of_the_next_update(where):
    """Keras reads ``iterations`` for Adam's bias correction and for schedules: assigning it (a reset, a resume)
    changes the next step (tapejax's optax counts stayed where they were: a silent other number)."""
    opt, v = tj.optimizers.Adam(0.1), tj.Variable(1.0)

    def step():
        with tj.GradientTape() as tape:
            loss = v * 1.0
        opt.apply_gradients(zip(tape.gradient(loss, [v]), [v]))
    run = tj.function(step) if where == "tj.function" else step
    counts = list(range(6)) if where == "replayed loop" else [0]
    for _ in counts:
        run()
    opt.iterations.assign(10)
    run()
    run()
    np.testing.assert_allclose(v.numpy(), _keras_adam_after(counts + [10, 11]), rtol=1e-5, atol=1e-5)
    assert int(opt.iterations.numpy()) == 12


def test_assigning_iterations_moves_a_schedule_given_to_the_constructor():
    opt, v = tj.optimizers.SGD(optax.exponential_decay(0.1, 1, 0.5)), tj.Variable(1.0)
    opt.iterations.assign(3)
    opt.apply_gradients([(tj.constant(1.0), v)])
    np.testing.assert_allclose(v.numpy(), 1.0 - 0.1 * 0.5 ** 3, rtol=1e-6)
