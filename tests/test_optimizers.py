"""tj.optimizers (Keras's optimizers on optax) and tj.clip_by_norm / tj.clip_by_global_norm (TF).

Reference values come from optax applied directly to the same arrays (and plain NumPy/JAX formulas for
clipping), or from running Keras 3.15.1 / TF 2.21 (written as literals, where a comment says so), never from
tapejax itself."""
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


def test_state_built_in_the_first_trace_from_variables_it_made_has_their_values():
    """An optimizer built inside a tj.function's first trace on Variables that trace made from values it computes
    (a lazy build from the argument) builds its state in the trace too: a transformation whose state is a copy of
    the parameters gets their initial values, as eagerly, not the zeros they hold while the trace runs."""
    copy_params = optax.GradientTransformation(lambda p: [x * 1.0 for x in p], lambda u, s, p=None: (u, s))
    states = []
    for compiled in (False, True):
        made, opt = [], tj.optimizers.from_optax(copy_params)

        def step(x):
            if not made:
                made.append(tj.Variable(x * 3.0))
            with tj.GradientTape() as tape:
                loss = tnp.sum(made[0] * x)
            opt.apply_gradients(zip(tape.gradient(loss, [made[0]]), [made[0]]))
            return loss
        (tj.function(step) if compiled else step)(tj.constant([1.0, 2.0]))
        states.append([np.asarray(v.numpy()).tolist() for v in opt.variables])
    assert states[0] == states[1] == [1, [3.0, 6.0]]


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


# -- corner cases checked against Keras 3.15.1 / TF 2.21 (TensorFlow backend) ---------------------------------
_ADAM_GRADS = [[0.5, -1.0, 2.0], [0.1, 0.3, -0.7], [1.0, 1e-4, 0.0]]
_ADAM_W0 = [1.0, 2.0, -3.0]


def _steps(opt, grads, w0, dtype=np.float32):
    v = tj.Variable(np.array(w0, dtype))
    for g in grads:
        opt.apply_gradients([(tj.constant(np.array(g, dtype)), v)])
    return v.numpy()


@pytest.mark.parametrize("beta_2,expected", [
    # Keras 3 / TF 2.21 gives these (beta_2=1: alpha = lr * sqrt(1 - 1) / ... = 0, the variable stays; tapejax
    # gave NaN, optax's v_hat = 0 / 0; 0.99999999 is 1.0 in float32, as in Keras)
    (1.0, [1.0, 2.0, -3.0]),
    (0.99999999, [1.0, 2.0, -3.0]),
    (0.1, [0.6796982, 2.3282578, -3.293376]),
    (0.5, [0.732876, 2.1988754, -3.188246]),
])
def test_adam_beta_2_one_and_small_as_keras(beta_2, expected):
    np.testing.assert_allclose(_steps(tj.optimizers.Adam(0.1, beta_2=beta_2), _ADAM_GRADS, _ADAM_W0), expected,
                               rtol=2e-6)
    if beta_2 == 1.0:
        # Keras 3 / TF 2.21 gives [1, 2, -3] with amsgrad too, and AdamW moves by its decay alone:
        # [0.99880046, 1.9976009, -2.9964015]
        np.testing.assert_allclose(_steps(tj.optimizers.Adam(0.1, beta_2=1.0, amsgrad=True), _ADAM_GRADS,
                                          _ADAM_W0), [1.0, 2.0, -3.0])
        np.testing.assert_allclose(_steps(tj.optimizers.AdamW(0.1, beta_2=1.0), _ADAM_GRADS, _ADAM_W0),
                                   [0.99880046, 1.9976009, -2.9964015], rtol=2e-6)


@pytest.mark.parametrize("kind", ["Adam", "AdamW", "RMSprop", "Adagrad"])
def test_epsilon_none_raises_value_error_as_keras(kind):
    # Keras 3 / TF 2.21: epsilon=None is kept, and the first step raises ValueError ("Attempt to convert a value
    # (None) with an unsupported type"); no fall back to keras.config.epsilon(). tapejax raised TypeError.
    with pytest.raises(ValueError, match=f"{kind}: epsilon=None"):
        getattr(tj.optimizers, kind)(0.1, epsilon=None)
    opt = getattr(tj.optimizers, kind)(0.1)
    with pytest.raises(ValueError, match="epsilon=None"):
        opt.epsilon = None
    assert opt.epsilon == 1e-7


@pytest.mark.parametrize("where", ["eager", "tj.function"])
def test_a_variable_given_twice_gets_both_updates_in_turn_as_keras(where):
    # Keras 3 / TF 2.21 (eagerly, in tf.function and with jit_compile alike) applies each pair in turn, at the
    # same step count: SGD(0.1, momentum=0.9), [1, 2] given [1, 1] then [10, 20], twice: [-0.19000006,
    # -0.18999994], then [-3.2438998, -5.9539]; Adam(0.1): [0.7915422, 1.795632], then [0.60850775, 1.6226231]
    for make, after in [(lambda: tj.optimizers.SGD(0.1, momentum=0.9),
                         ([-0.19000006, -0.18999994], [-3.2438998, -5.9539])),
                        (lambda: tj.optimizers.Adam(0.1), ([0.7915422, 1.795632], [0.60850775, 1.6226231]))]:
        opt, v = make(), tj.Variable([1.0, 2.0])

        def step():
            opt.apply_gradients([(tj.constant([1.0, 1.0]), v), (tj.constant([10.0, 20.0]), v)])
        step = tj.function(step) if where == "tj.function" else step
        for expected, count in zip(after, (1, 2)):
            step()
            np.testing.assert_allclose(v.numpy(), expected, rtol=2e-6)
            assert int(opt.iterations.numpy()) == count
    # Options whose Keras semantics a sequence of updates would not follow are refused, nothing applied
    opt, v = tj.optimizers.SGD(0.1, global_clipnorm=1.0), tj.Variable([1.0, 2.0], name="twice")
    with pytest.raises(ValueError, match="appears more than once.*global_clipnorm"):
        opt.apply_gradients([(tj.constant([1.0, 1.0]), v), (tj.constant([1.0, 1.0]), v)])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    assert int(opt.iterations.numpy()) == 0


@pytest.mark.parametrize("cfg", [{"replay_exact": True}, {}, {"lazy": False, "replay": False}],
                         ids=["replayed exact", "replayed", "op by op"])
def test_a_variable_given_twice_in_a_training_loop(cfg):
    # Keras 3 / TF 2.21: Adam(0.1), v = [1, 2], loss sum(v * v * [1, 3]), six steps of
    # apply_gradients(zip(tape.gradient(loss, [v, v]), [v, v])) -> [-0.19068462, 0.6687987], iterations 6
    x = tj.constant([1.0, 3.0])
    opt, v = tj.optimizers.Adam(0.1), tj.Variable([1.0, 2.0])
    with tj.config.override(replay_background=False, **cfg):
        tj.deferred.replay.clear()
        for _ in range(6):
            with tj.GradientTape() as tape:
                loss = tnp.sum(v * v * x)
            opt.apply_gradients(zip(tape.gradient(loss, [v, v]), [v, v]))
    np.testing.assert_allclose(v.numpy(), [-0.19068462, 0.6687987], rtol=2e-6)
    assert int(opt.iterations.numpy()) == 6


@pytest.mark.parametrize("kind,name,value,before,after", [
    # Keras 3 / TF 2.21: the optimizer's attribute set before the first step, or after one step of [1, 1], then
    # two steps of [1, 3] on [1, 2] (learning rate 0.1); the new value is used from the next step on
    ("SGD", "momentum", 0.9, [0.71, 1.13], None),
    ("SGD", "nesterov", True, [0.8, 1.4], [0.7, 1.3]),
    ("Adam", "beta_1", 0.5, [0.8000022, 1.8000017], [0.73809755, 1.704305]),
    ("Adam", "epsilon", 1.0, [0.99265504, 1.9795086], [0.89053106, 1.8800999]),
    ("Adam", "amsgrad", True, [0.8000022, 1.8000019], None),
    ("SGD", "clipnorm", 0.1, [0.9936755, 1.9810264], [0.89367545, 1.8810264]),
    ("SGD", "clipvalue", 0.1, [0.98, 1.98], [0.88, 1.88]),
    ("SGD", "global_clipnorm", 0.1, [0.9936755, 1.9810264], [0.89367545, 1.8810264]),
    ("SGD", "weight_decay", 0.5, [0.7074999, 1.2199998], [0.6172499, 1.1297498]),
    ("RMSprop", "rho", 0.1, [0.79408693, 1.7940869], [0.47849086, 1.4779298]),
    ("Adagrad", "initial_accumulator_value", 5.0, [0.92137873, 1.8572673], [0.778851, 1.741612]),
    ("SGD", "loss_scale_factor", 2.0, [0.9, 1.7], [0.8, 1.6]),
    ("SGD", "use_ema", True, [0.8, 1.4], None),
    ("SGD", "gradient_accumulation_steps", 2, [0.9, 1.7], None),
])
def test_setting_a_hyperparameter_changes_the_next_steps_as_keras(kind, name, value, before, after):
    for when, expected in (("before", before), ("after", after)):
        opt, v = getattr(tj.optimizers, kind)(0.1), tj.Variable([1.0, 2.0])
        if when == "after":
            opt.apply_gradients([(tj.constant([1.0, 1.0]), v)])
        if expected is None:
            # Keras 3 / TF 2.21 fails at the next step (IndexError for SGD's momentum, AttributeError for the
            # others): the optimizer was built without the state the new value needs. tapejax refuses the value.
            old = getattr(opt, name)
            with pytest.raises(AttributeError, match=name):
                setattr(opt, name, value)
            assert getattr(opt, name) == old
            continue
        setattr(opt, name, value)
        assert getattr(opt, name) == value and opt.get_config()[name] == value
        for _ in range(2):
            opt.apply_gradients([(tj.constant([1.0, 3.0]), v)])
        np.testing.assert_allclose(v.numpy(), expected, rtol=2e-6)


@pytest.mark.parametrize("where", ["eager", "tj.function"])
def test_setting_a_hyperparameter_between_steps_as_keras(where):
    # Keras 3 / TF 2.21: a step of [1, 1] on [1, 2], the attribute set, another step. Eagerly the new value is
    # used: SGD(0.1, momentum=0.5) -> momentum 0.9: [0.71, 1.71]; Adam(0.1) -> beta_1 0.5: [0.8266685,
    # 1.8266686]. A traced tf.function keeps the value it was traced with (a Python attribute read when traced),
    # as a traced tj.function does: [0.75, 1.75] and [0.8000022, 1.8000023]
    expected = {"eager": ([0.71, 1.71], [0.8266685, 1.8266686]),
                "tj.function": ([0.75, 1.75], [0.8000022, 1.8000023])}[where]
    for (make, name, value), values in zip([(lambda: tj.optimizers.SGD(0.1, momentum=0.5), "momentum", 0.9),
                                            (lambda: tj.optimizers.Adam(0.1), "beta_1", 0.5)], expected):
        opt, v = make(), tj.Variable([1.0, 2.0])

        def step():
            opt.apply_gradients([(tj.constant([1.0, 1.0]), v)])
        step = tj.function(step) if where == "tj.function" else step
        step()
        setattr(opt, name, value)
        step()
        np.testing.assert_allclose(v.numpy(), values, rtol=2e-6)


def test_a_variable_or_tensor_learning_rate_is_refused_as_keras():
    # Keras 3 / TF 2.21: Adam(keras.Variable(0.1)), SGD(tf.Variable(0.1)), SGD(tf.constant(0.1)) raise ValueError
    # "Argument `learning_rate` should be float, ..." (tapejax read a Variable's value once, silently)
    for lr in (tj.Variable(0.1), tj.constant(0.1)):
        for kind in ("SGD", "Adam"):
            with pytest.raises(ValueError, match="Argument `learning_rate` should be float"):
                getattr(tj.optimizers, kind)(lr)
    # Keras 3 / TF 2.21: a Variable set as the rate later is assigned its value: SGD(0.1), rate set to a
    # Variable of 0.3 then assigned 0.7, one step of [1, 1] on [1, 2] -> rate 0.3, [0.7, 1.7]
    opt, rate, v = tj.optimizers.SGD(0.1), tj.Variable(0.3), tj.Variable([1.0, 2.0])
    opt.learning_rate = rate
    rate.assign(0.7)
    opt.apply_gradients([(tj.constant([1.0, 1.0]), v)])
    np.testing.assert_allclose(float(opt.learning_rate), 0.3, rtol=1e-7)
    np.testing.assert_allclose(v.numpy(), [0.7, 1.7], rtol=1e-6)


@pytest.mark.parametrize("kw,expected", [
    # Keras 3 / TF 2.21 (int32 Variable 10, a step of int32 3 then one of float32 3.7, for learning rates 1.5,
    # 0.4, -1.5): the rate, momentum, weight decay and gradient are cast to int32 (truncated)
    ({}, {1.5: (7, 4), 0.4: (10, 10), -1.5: (13, 16)}),
    ({"momentum": 0.5}, {1.5: (7, 4), 0.4: (10, 10), -1.5: (13, 16)}),
    ({"momentum": 1.0, "nesterov": True}, {1.5: (4, -5), 0.4: (10, 10), -1.5: (16, 25)}),
    ({"weight_decay": 0.5}, {1.5: (7, 4), 0.4: (10, 10), -1.5: (13, 16)}),
])
def test_sgd_on_integer_variables_as_keras(kw, expected):
    for lr, (first, second) in expected.items():
        opt, v = tj.optimizers.SGD(lr, **kw), tj.Variable(np.array([10], np.int32))
        opt.apply_gradients([(tj.constant(np.array([3], np.int32)), v)])
        assert v.numpy().tolist() == [first] and v.dtype == tj.int32
        opt.apply_gradients([(tj.constant(np.array([3.7], np.float32)), v)])
        assert v.numpy().tolist() == [second]
    # Keras 3 / TF 2.21: integer and float variables in one call of SGD(1.5, momentum=0.5), twice: [4] and
    # [-2.75, -1.75], momentums [-3] and [-2.25, -2.25]
    opt = tj.optimizers.SGD(1.5, momentum=0.5)
    i, f = tj.Variable(np.array([10], np.int32)), tj.Variable([1.0, 2.0])
    for _ in range(2):
        opt.apply_gradients([(tj.constant([3]), i), (tj.constant([1.0, 1.0]), f)])
    assert i.numpy().tolist() == [4]
    np.testing.assert_allclose(f.numpy(), [-2.75, -1.75])
    assert [s.numpy().tolist() for s in opt.variables[2:]] == [[-3], [-2.25, -2.25]]
    assert int(opt.iterations.numpy()) == 2


def test_variable_checks_follow_a_hyperparameter_set_between_steps():
    # apply checks a list of Variables once (a training loop gives the same list at every step); setting a
    # hyperparameter checks it again: SGD updates an int Variable, but not with clipnorm (TypeError, as on a
    # first step with clipnorm), and the Variable and step count stay as they were
    opt, v = tj.optimizers.SGD(1.0), tj.Variable(np.array([10], np.int32))
    for _ in range(2):
        opt.apply_gradients([(tj.constant(np.array([3], np.int32)), v)])
    assert v.numpy().tolist() == [4]
    opt.clipnorm = 1.0
    with pytest.raises(TypeError, match="SGD: .*int32.*clipnorm"):
        opt.apply_gradients([(tj.constant(np.array([3], np.int32)), v)])
    assert v.numpy().tolist() == [4] and int(opt.iterations.numpy()) == 2
    with pytest.raises(TypeError, match="SGD: .*int32.*clipnorm"):  # (and at every later step)
        opt.apply_gradients([(tj.constant(np.array([3], np.int32)), v)])
    opt.clipnorm = None
    opt.apply_gradients([(tj.constant(np.array([3], np.int32)), v)])
    assert v.numpy().tolist() == [1] and int(opt.iterations.numpy()) == 3
    # a Variable it was not built for is refused at every step, not only the first time it is given
    w = tj.Variable(np.array([1.0], np.float32))
    for _ in range(2):
        with pytest.raises(ValueError, match="Unknown variable"):
            opt.apply_gradients([(tj.constant([1.0]), w)])
    # a list with a Variable twice, after steps with it once: both its gradients are applied (Keras)
    opt, f = tj.optimizers.SGD(1.0), tj.Variable([1.0])
    opt.apply_gradients([(tj.constant([1.0]), f)])
    opt.apply_gradients([(tj.constant([1.0]), f), (tj.constant([2.0]), f)])
    assert f.numpy().tolist() == [-3.0] and int(opt.iterations.numpy()) == 2


@pytest.mark.parametrize("kind", ["Adam", "AdamW", "RMSprop", "Adagrad"])
def test_integer_variables_are_refused_by_the_adaptive_optimizers(kind):
    # Keras 3 / TF 2.21: Adam(1.5) on an int32 Variable raises InvalidArgumentError ("cannot compute Mul"),
    # RMSprop and Adagrad truncate every intermediate to int32 (e.g. Adagrad: 10 -> 9 -> 9): no optax rule
    # gives those, so tapejax raises TypeError naming the optimizer and dtype, the Variable unchanged
    opt, v = getattr(tj.optimizers, kind)(1.5), tj.Variable(np.array([10], np.int32))
    with pytest.raises(TypeError, match=f"{kind}: .*int32"):
        opt.apply_gradients([(tj.constant(np.array([3], np.int32)), v)])
    assert v.numpy().tolist() == [10] and int(opt.iterations.numpy()) == 0


@pytest.mark.parametrize("iav,eps,grads,expected", [
    # Keras 3 / TF 2.21 gives these: g / sqrt(accumulator + epsilon) everywhere (optax's scale_by_rss makes the
    # update 0 where the accumulator is not positive: tapejax gave 1.0 for the NaN, -3.0 for -315.3278)
    (0.0, 0.0, [[0.0, 1.0, 0.0], [0.0, 0.0, 3.0]], [np.nan, 1.9, np.nan]),
    (0.0, 1e-7, [[0.0, 1.0, 0.0], [0.0, 0.0, 3.0]], [1.0, 1.9, -3.1]),
    (-1.0, 1e-7, [[1.0, 0.0, 2.0], [0.5, 0.0, 0.0]], [-315.3278, np.nan, -3.1154702]),
])
def test_adagrad_where_the_accumulator_is_not_positive_as_keras(iav, eps, grads, expected):
    opt = tj.optimizers.Adagrad(0.1, initial_accumulator_value=iav, epsilon=eps)
    np.testing.assert_allclose(_steps(opt, grads, _ADAM_W0), expected, rtol=2e-6)


def test_complex_variables_sgd_as_keras_and_adaptive_ones_refused():
    # Keras 3 / TF 2.21: SGD(0.1) on complex64 [1+1j, 2-1j] with [1+2j, 0.5-1j] twice: [0.9+0.8j, 1.95-0.9j], then
    # [0.8+0.6j, 1.9-0.8j]. Its Adam, RMSprop and Adagrad square the gradient as g * g (no conjugate): Adam's
    # first step gives [0.90000075+0.9999999j, 1.9000008-0.99999976j] where optax's |g|**2 gave
    # [0.955279+0.910558j, ...]; tapejax refuses them (TypeError naming the optimizer and dtype)
    g = tj.constant(np.array([1 + 2j, 0.5 - 1j], np.complex64))
    opt, v = tj.optimizers.SGD(0.1), tj.Variable(np.array([1 + 1j, 2 - 1j], np.complex64))
    opt.apply_gradients([(g, v)])
    np.testing.assert_allclose(v.numpy(), [0.9 + 0.8j, 1.95 - 0.9j], rtol=1e-6)
    opt.apply_gradients([(g, v)])
    np.testing.assert_allclose(v.numpy(), [0.8 + 0.6j, 1.9 - 0.8j], rtol=1e-6)
    for kind in ("Adam", "AdamW", "RMSprop", "Adagrad"):
        w = tj.Variable(np.array([1 + 1j, 2 - 1j], np.complex64))
        with pytest.raises(TypeError, match=f"{kind}: .*complex64"):
            getattr(tj.optimizers, kind)(0.1).apply_gradients([(g, w)])
        np.testing.assert_array_equal(w.numpy(), [1 + 1j, 2 - 1j])


def test_clip_norm_tensor_of_another_dtype_as_tf():
    t = tj.constant([3.0, 4.0])
    # TF 2.21: tf.clip_by_norm casts clip_norm to t's dtype: int32 2, float16 2, float64 2 -> [1.2, 1.6] float32;
    # a float16 t with a float32 clip_norm -> float16 [1.2, 1.6]; a float16 [2, 3] clip_norm -> [1.2, 2.4]
    for clip in (tj.constant(2), tj.constant(np.float16(2.0)), tj.Variable(2)):
        out = tj.clip_by_norm(t, clip)
        assert out.dtype == tj.float32
        np.testing.assert_allclose(out.numpy(), [1.2, 1.6], rtol=1e-6)
    out = tj.clip_by_norm(t, tj.constant(np.array([2.0, 3.0], np.float16)))
    np.testing.assert_allclose(out.numpy(), [1.2, 2.4], rtol=1e-6)
    out = tj.clip_by_norm(tj.constant(np.array([3.0, 4.0], np.float16)), tj.constant(2.0))
    assert out.dtype == tj.float16
    np.testing.assert_allclose(out.numpy().astype(np.float32), [1.2, 1.6], rtol=1e-3)
    # TF 2.21: tf.clip_by_global_norm multiplies without a cast: TypeError "`x` and `y` must have the same dtype,
    # got tf.float32 != tf.int32" (and != tf.float16); Python and NumPy numbers are converted
    for clip in (tj.constant(2), tj.constant(np.float16(2.0))):
        with pytest.raises(TypeError, match="must have the same dtype"):
            tj.clip_by_global_norm([t], clip)
    for clip in (2, np.int32(2), np.float64(2.0), tj.constant(2.0)):
        clipped, norm = tj.clip_by_global_norm([t], clip)
        np.testing.assert_allclose(clipped[0].numpy(), [1.2, 1.6], rtol=1e-6)
        np.testing.assert_allclose(norm.numpy(), 5.0)
    # TF 2.21: tensors of different dtypes in t_list (float16 and float32, either order) raise (InvalidArgumentError,
    # "cannot compute Pack": its stack of their sums); tapejax raises TypeError naming the dtypes. One dtype with
    # None entries is fine: global_norm([h, None, h]) of h = [1, 2] float16 is sqrt(10) = 3.162 in float16
    h = tj.constant(np.array([1.0, 2.0], np.float16))
    for t_list in ([h, t], [t, None, h]):
        for fn in (tj.train.global_norm, lambda ts: tj.clip_by_global_norm(ts, 1.0)):
            with pytest.raises(TypeError, match="different dtypes.*float16.*float32|different dtypes.*float32.*float16"):
                fn(t_list)
    n = tj.train.global_norm([h, None, h])
    assert n.dtype == tj.float16
    np.testing.assert_allclose(float(n.numpy()), 3.162, rtol=1e-3)
    clipped, _ = tj.clip_by_global_norm([h, t], 1.0, use_norm=tj.constant(5.0))  # (no norm computed: as TF)
    assert clipped[0].dtype == tj.float16 and clipped[1].dtype == tj.float32
    # Keras 3 / TF 2.21: SGD(1, global_clipnorm=1) on a float16 and a float32 Variable raises InvalidArgumentError
    # (its clipping multiplies a float16 gradient by the float32 scale); tapejax raises TypeError before any update.
    # Each dtype on its own clips (gradient [3, 4] float16: steps 0.6 and 0.8).
    opt, v16, v32 = tj.optimizers.SGD(1.0, global_clipnorm=1.0), tj.Variable(np.zeros(2, np.float16)), tj.Variable([0.0])
    with pytest.raises(TypeError, match="SGD: global_clipnorm .*float16, float32"):
        opt.apply_gradients([(tj.constant(np.array([3.0, 0.0], np.float16)), v16), (tj.constant([4.0]), v32)])
    assert v16.numpy().tolist() == [0.0, 0.0] and v32.numpy().tolist() == [0.0] and int(opt.iterations.numpy()) == 0
    opt = tj.optimizers.SGD(1.0, global_clipnorm=1.0)
    opt.apply_gradients([(tj.constant(np.array([3.0, 4.0], np.float16)), v16)])
    assert v16.dtype == tj.float16
    np.testing.assert_allclose(v16.numpy().astype(np.float32), [-0.6, -0.8], rtol=1e-3)
