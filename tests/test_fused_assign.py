"""A hand-written update fused into the replayed step (issue "Training loops", item 3).

The loop TF's guides write: ``tape.gradient``, then ``v.assign_sub(lr * g)`` per Variable (or
``v.assign(v - lr * g)``, ``v.assign_add(-lr * g)``). Once the step recurs, its forward and backward
pass, the update's ops and the assignments run as one compiled program (deferred/pending.py,
``pending.last_update`` says how the last one ran). Whatever is read and whenever, and whatever
raises, the values are those of op-by-op execution (``lazy=False``): bit for bit under replay_exact
(the ``replay_now`` fixture), and a failure leaves every Variable as it was.
"""
from __future__ import annotations

import numpy as np
import pytest

import tapejax as tj
from tapejax.deferred import background, pending

tnp = tj.numpy
STEPS = 6
LR = 0.1
FUSED = "fused into the replayed step"


def _model():
    rng = np.random.default_rng(0)
    w1 = tj.Variable(rng.standard_normal((4, 8)).astype(np.float32) * 0.5, name="w1")
    b1 = tj.Variable(np.zeros(8, np.float32), name="b1")
    w2 = tj.Variable(rng.standard_normal((8, 3)).astype(np.float32) * 0.5, name="w2")
    b2 = tj.Variable(np.full(3, 0.1, np.float32), name="b2")
    x = tj.constant(rng.standard_normal((16, 4)).astype(np.float32))
    y = tj.constant(rng.standard_normal((16, 3)).astype(np.float32))
    return [w1, b1, w2, b2], x, y


def _loss(variables, x, y):
    w1, b1, w2, b2 = variables
    return tnp.mean((tnp.tanh(x @ w1 + b1) @ w2 + b2 - y) ** 2)


UPDATES = {
    "assign_sub": lambda v, g: v.assign_sub(LR * g),
    "assign": lambda v, g: v.assign(v - LR * g),
    "assign_add": lambda v, g: v.assign_add(-LR * g),
}


def _train(update=UPDATES["assign_sub"], steps=STEPS, middle=None, **cfg):
    """The hand-written SGD loop. ``middle(step, k, loss, grads, variables)`` runs before the update of the
    k-th Variable. Returns losses, gradients, final Variables and, per step, how its update ran."""
    variables, x, y = _model()
    losses, grads, modes = [], [], []
    with tj.config.override(**cfg):
        for step in range(steps):
            pending.last_update = ""
            with tj.GradientTape() as tape:
                loss = _loss(variables, x, y)
            g = tape.gradient(loss, variables)
            for k, (v, gi) in enumerate(zip(variables, g)):
                if middle is not None:
                    middle(step, k, loss, g, variables)
                update(v, gi)
            losses.append(loss.numpy())  # (the first read: runs the step and its update)
            modes.append(pending.last_update)
            grads.append([gi.numpy() for gi in g])
    return losses, grads, [v.numpy() for v in variables], modes


def _op_by_op(**kw):
    return _train(lazy=False, replay=False, **kw)


def _assert_equal(got, want):
    for a, b in zip(got[0], want[0]):
        np.testing.assert_array_equal(a, b)
    for ga, gb in zip(got[1], want[1]):
        for a, b in zip(ga, gb):
            np.testing.assert_array_equal(a, b)
    for a, b in zip(got[2], want[2]):
        np.testing.assert_array_equal(a, b)


def _train_reading(reader):
    """``_train`` with ``reader(into)`` as the middle (it appends what it reads to ``into``), checked
    equal to op-by-op execution: the values read and the whole run. Returns the run."""
    seen, ref_seen = [], []
    got = _train(middle=reader(seen))
    want = _op_by_op(middle=reader(ref_seen))
    assert len(seen) == len(ref_seen)
    for a, b in zip(seen, ref_seen):
        np.testing.assert_array_equal(a, b)
    _assert_equal(got, want)
    return got


@pytest.mark.parametrize("form", sorted(UPDATES))
def test_hand_written_sgd_equals_op_by_op_bit_for_bit(replay_now, form):
    got = _train(UPDATES[form])
    _assert_equal(got, _op_by_op(update=UPDATES[form]))
    modes = got[3]
    assert modes[:2] == ["", ""], modes  # warm-up: op by op
    # from the first replayed step on: forward, backward and the 8 update ops as one program
    assert all(m.startswith(FUSED) and "(8 update ops)" in m for m in modes[2:]), modes


def test_without_replay_exact_is_close(replay_now):
    with tj.config.override(replay_exact=False):
        got = _train()
    want = _op_by_op()
    assert all(m.startswith(FUSED) for m in got[3][2:]), got[3]
    for a, b in zip(got[2], want[2]):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-6)
    for a, b in zip(got[0], want[0]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_the_fused_update_compiles_in_the_background(replay_now):
    """Until the fused program is compiled the update runs op by op, with the same values."""
    def wait(step, k, loss, grads, variables):
        if k == 0:
            background.wait()
    with tj.config.override(replay_background=True):
        got = _train(steps=STEPS + 2, middle=wait)
    _assert_equal(got, _op_by_op(steps=STEPS + 2))
    modes = got[3]
    assert any(m.startswith("op by op (the fused program is compiling)") for m in modes), modes
    assert modes[-1].startswith(FUSED), modes


@pytest.mark.parametrize("k", [1, 3])
def test_reading_an_updated_variable_in_the_middle(replay_now, k):
    """Reading a Variable already assigned runs the step and the update so far; the rest of the update
    runs op by op; every value as op by op."""
    def read(into):
        def middle(step, j, loss, grads, variables):
            if j == k:
                into.append(variables[k - 1].numpy())
        return middle
    got = _train_reading(read)
    assert all(m == f"{FUSED} ({2 * k} update ops)" for m in got[3][2:]), got[3]


def test_reading_a_variable_not_yet_assigned_keeps_the_fusion(replay_now):
    got = _train_reading(lambda into: lambda s, k, loss, g, v: k == 1 and into.append(v[3].numpy()))
    assert all("(8 update ops)" in m for m in got[3][2:]), got[3]


@pytest.mark.parametrize("what", ["loss", "gradient", "print"])
def test_reading_the_loss_or_a_gradient_in_the_middle(replay_now, what, capsys):
    def read(into):
        def middle(step, k, loss, grads, variables):
            if k == 2:
                if what == "loss":
                    into.append(float(loss))
                elif what == "gradient":
                    into.append(grads[3].numpy())
                else:
                    print(grads[0])
        return middle
    got = _train_reading(read)
    # the read ran the step with the first two updates; the last two ran op by op
    assert all(m == f"{FUSED} (4 update ops)" for m in got[3][2:]), got[3]


def test_a_python_branch_on_a_value_in_the_update(replay_now):
    def update(v, g):
        if float(tnp.max(tnp.abs(g))) > 0.05:  # (the first op on g is deferred; float() reads it)
            v.assign_sub(LR * g)
        else:
            v.assign_sub(LR / 2 * g)
    got = _train(update)
    _assert_equal(got, _op_by_op(update=update))


def test_chained_assignments_and_a_pending_variable_read_by_the_update(replay_now):
    """Two assignments to one Variable, and an update op reading a Variable assigned before, stay in
    the fused program."""
    def update(v, g):
        v.assign_sub(LR * g)
        v.assign_add(0.5 * LR * g)
        v.assign(v * 0.99 + 0.0 * g)
    got = _train(update)
    _assert_equal(got, _op_by_op(update=update))
    assert all(m == f"{FUSED} (28 update ops)" for m in got[3][2:]), got[3]


def _variables_left_pending():
    """The model's Variables after 4 steps of the hand-written loop: the last update still pending."""
    variables, x, y = _model()
    for _ in range(4):
        with tj.GradientTape() as tape:
            loss = _loss(variables, x, y)
        g = tape.gradient(loss, variables)
        for v, gi in zip(variables, g):
            v.assign_sub(LR * gi)
    pending.last_update = ""
    return variables


def test_shapes_of_a_pending_variable_do_not_run_it(replay_now):
    variables = _variables_left_pending()
    assert variables[0].shape == (4, 8) and variables[0].dtype == np.float32 and variables[0].ndim == 2
    assert pending.last_update == ""  # nothing ran
    variables[0].numpy()
    assert pending.last_update.startswith(FUSED)


def test_copying_a_pending_variable(replay_now):
    import copy
    variables = _variables_left_pending()
    twin = copy.deepcopy(variables[1])
    assert pending.last_update.startswith(FUSED)  # (copying ran the pending step)
    np.testing.assert_array_equal(twin.numpy(), variables[1].numpy())
    twin.assign_add(tnp.ones_like(twin))
    np.testing.assert_array_equal(twin.numpy(), variables[1].numpy() + 1)


@pytest.mark.parametrize("at", [0, 2])
def test_a_shape_error_in_the_update(replay_now, at):
    """``assign_sub`` of a value of the wrong shape raises at once, as op by op, and the Variables are
    those of op by op: all unchanged when it is the first assignment, the earlier ones updated else."""
    def run(**cfg):
        variables, x, y = _model()
        with tj.config.override(**cfg):
            for step in range(4):
                with tj.GradientTape() as tape:
                    loss = _loss(variables, x, y)
                g = tape.gradient(loss, variables)
                before = [v.numpy() for v in variables] if step == 3 else None
                for k, (v, gi) in enumerate(zip(variables, g)):
                    if step == 3 and k == at:
                        with pytest.raises(ValueError, match="does not match the variable"):
                            v.assign_sub(LR * tnp.reshape(gi, (-1,))[:3])
                        break
                    v.assign_sub(LR * gi)
        return before, [v.numpy() for v in variables], loss.numpy(), [gi.numpy() for gi in g]
    before, after, loss, grads = run()
    r_before, r_after, r_loss, r_grads = run(lazy=False, replay=False)
    for a, b in zip(after + [loss] + grads, r_after + [r_loss] + r_grads):
        np.testing.assert_array_equal(a, b)
    if at == 0:
        for a, b in zip(after, before):
            np.testing.assert_array_equal(a, b)


def test_an_op_that_cannot_wait_runs_when_called(replay_now):
    """A kernel with effects (a callback) is not deferred: it runs when called, as op by op."""
    import jax
    calls = []

    @tj.op
    def noted(g):
        jax.debug.callback(lambda: calls.append(1))
        return g * 1.0
    got = _train(lambda v, g: v.assign_sub(LR * noted(g)))
    assert len(calls) == 4 * STEPS
    assert got[3] == [""] * STEPS, got[3]  # (the first call read the gradients: nothing was left to fuse)
    _assert_equal(got, _op_by_op(update=lambda v, g: v.assign_sub(LR * noted(g))))


def test_a_failing_run_leaves_every_variable_as_it_was(replay_now, monkeypatch):
    """If running the fused step fails, the read raises and no Variable is half-updated. (Not dispatched
    ahead: the run that fails is the one the read makes; test_ahead.py covers a failing early run.)"""
    monkeypatch.setattr(tj.config, "replay_ahead", False)
    variables, x, y = _model()
    for step in range(4):
        with tj.GradientTape() as tape:
            loss = _loss(variables, x, y)
        g = tape.gradient(loss, variables)
        if step == 3:
            before = [v.numpy() for v in variables]
        for v, gi in zip(variables, g):
            v.assign_sub(LR * gi)
        if step < 3:
            variables[0].numpy()

    def broken(self, *args):
        raise RuntimeError("device lost on purpose")
    with monkeypatch.context() as m:
        m.setattr(background.Compilation, "__call__", broken)
        with pytest.raises(RuntimeError, match="on purpose"):
            variables[2].numpy()
    for v, b in zip(variables, before):
        np.testing.assert_array_equal(v.numpy(), b)
    # the step itself can still be read: its loss is op by op's
    with tj.config.override(lazy=False, replay=False):
        ref = _loss(variables, x, y)
    np.testing.assert_array_equal(loss.numpy(), ref.numpy())


def test_clipping_by_hand_then_an_optimizer(replay_now):
    """Ops on the gradients before ``apply_gradients`` (a hand-written clip): same values as op by op."""
    def run(**cfg):
        variables, x, y = _model()
        opt = tj.optimizers.SGD(LR)
        with tj.config.override(**cfg):
            for _ in range(STEPS):
                with tj.GradientTape() as tape:
                    loss = _loss(variables, x, y)
                g = tape.gradient(loss, variables)
                g = [gi * 0.5 for gi in g]
                opt.apply_gradients(zip(g, variables))
        return [v.numpy() for v in variables]
    for a, b in zip(run(), run(lazy=False, replay=False)):
        np.testing.assert_array_equal(a, b)


def test_momentum_written_by_hand(replay_now):
    """Velocity Variables updated and read by the update itself: all of it in the fused program."""
    def run(**cfg):
        variables, x, y = _model()
        velocity = [tj.Variable(np.zeros(v.shape, np.float32), trainable=False) for v in variables]
        modes = []
        with tj.config.override(**cfg):
            for _ in range(STEPS):
                pending.last_update = ""
                with tj.GradientTape() as tape:
                    loss = _loss(variables, x, y)
                g = tape.gradient(loss, variables)
                for v, m, gi in zip(variables, velocity, g):
                    m.assign(0.9 * m + gi)
                    v.assign_sub(LR * m)
                loss.numpy()
                modes.append(pending.last_update)
        return [v.numpy() for v in variables + velocity], modes
    got, modes = run()
    want, _ = run(lazy=False, replay=False)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    # (0.9 * m reads no pending value: it runs when called; "+ g", "LR * m" and assign_sub wait)
    assert all(m == f"{FUSED} (12 update ops)" for m in modes[2:]), modes


def test_the_next_steps_tape_runs_the_pending_update(replay_now):
    """Nothing read between steps: the next step's tape reading the Variables runs the update; the
    losses and gradients kept as tensors and read at the end are op by op's."""
    def run(**cfg):
        variables, x, y = _model()
        kept, runs = [], []
        with tj.config.override(**cfg):
            for _ in range(STEPS):
                pending.last_update = ""
                with tj.GradientTape() as tape:
                    loss = _loss(variables, x, y)
                runs.append(pending.last_update)  # (what reading the Variables ran)
                g = tape.gradient(loss, variables)
                for v, gi in zip(variables, g):
                    v.assign_sub(LR * gi)
                kept.append((loss, g))
        values = [v.numpy() for v in variables]
        return [loss.numpy() for loss, _ in kept], [[gi.numpy() for gi in g] for _, g in kept], values, runs
    got, want = run(), run(lazy=False, replay=False)
    _assert_equal(got, want)
    assert all(m == f"{FUSED} (8 update ops)" for m in got[3][3:]), got[3]
