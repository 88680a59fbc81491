"""A Variable assigned a deferred value inside the tape (a moving average, a step counter, a metric's total, by
assign, assign_add or assign_sub: lazy.assign_deferred):
the value stays pending, so the step's forward, backward and update remain one replayed program that also
returns the assigned value, and every read gives what op-by-op execution gives."""
from __future__ import annotations

import numpy as np
import pytest

import tapejax as tj
from tapejax.deferred.lazy import Node
from tapejax.tensor import pending_value

tnp = tj.numpy
STEPS = 7


def _loop(steps=STEPS, inside=None, after=None, **cfg):
    """A tanh model trained with Adam while a moving mean of its output and a step counter (non-trainable
    Variables, assigned in the tape) follow it. ``inside(step, out, variables)`` runs in the tape after the
    assignments, ``after(step, variables)`` after the update. Returns the values seen, the final Variables and
    how the last step ran (its replay, its update)."""
    rng = np.random.default_rng(0)
    w1 = tj.Variable(rng.standard_normal((3, 5)).astype(np.float32), name="w1")
    w2 = tj.Variable(rng.standard_normal((5, 2)).astype(np.float32), name="w2")
    mean = tj.Variable(np.zeros(2, np.float32), trainable=False, name="moving_mean")
    count = tj.Variable(0.0, trainable=False, name="count")
    total = tj.Variable(0.0, trainable=False, name="total_loss")
    square = tj.Variable(np.ones(2, np.float32), trainable=False, name="moving_square")
    variables = (w1, w2, mean, count, total, square)
    opt = tj.optimizers.Adam(learning_rate=0.05)
    x = tj.constant(rng.standard_normal((4, 3)).astype(np.float32))
    y = tj.constant(rng.standard_normal((4, 2)).astype(np.float32))
    seen = []
    with tj.config.override(replay_background=False, **cfg):
        tj.deferred.replay.clear()
        for step in range(steps):
            with tj.GradientTape() as tape:
                out = tnp.tanh(x @ w1) @ w2
                loss = tnp.mean((out - y) ** 2)
                mean.assign(0.9 * mean + 0.1 * tnp.mean(out, axis=0))
                count.assign(count + 1.0)  # (an op no tape records: its value is exported all the same)
                total.assign_add(loss)  # (a metric)
                square.assign_sub(0.1 * (square - tnp.mean(out * out, axis=0)))  # (Keras 2's moving averages)
                if inside is not None:
                    seen += inside(step, out, variables) or []
            grads = tape.gradient(loss, [w1, w2])
            opt.apply_gradients(zip(grads, [w1, w2]))
            if after is not None:
                seen += after(step, variables) or []
            seen.append(loss.numpy())
    return seen, [v.numpy() for v in variables + tuple(opt.variables)], (tape.last_replay, opt.last_update)


def _assert_same(got, want):
    assert len(got[0]) == len(want[0]) and len(got[1]) == len(want[1])
    for a, b in zip(got[0] + got[1], want[0] + want[1]):
        np.testing.assert_array_equal(a, b)


def test_the_step_stays_one_program_and_equals_op_by_op_bit_for_bit():
    got = _loop(replay_exact=True)
    replay, update = got[2]
    assert "forward included" in replay and update == "fused into the replayed step"
    _assert_same(got, _loop(lazy=False, replay=False))
    assert got[1][3] == STEPS


def test_with_the_defaults_the_values_are_op_by_op_up_to_rounding():
    got, want = _loop(), _loop(lazy=False, replay=False)
    for a, b in zip(got[0] + got[1], want[0] + want[1]):
        np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-7)


def test_the_assigned_value_is_pending_until_read():
    def inside(step, out, variables):
        mean = variables[2]
        if tj.config.lazy:  # (not read yet; its shape and dtype are known without running it)
            assert pending_value(mean) is not None and mean.shape == (2,) and mean.dtype == np.float32
        if step == 4:  # read in the tape: computed now (op by op), the same value
            return [mean.numpy()]
    got = _loop(inside=inside, replay_exact=True)
    _assert_same(got, _loop(inside=inside, lazy=False, replay=False))


def test_reads_after_the_step_and_assignments_over_a_pending_value():
    def after(step, variables):
        w1, w2, mean, count, total, square = variables
        if step == 3:
            return [mean.numpy(), count.numpy(), total.numpy(), square.numpy()]
        if step == 5:
            mean.assign(mean * 0.0 + 1.0)  # over a pending value: it is computed first, then replaced
    got = _loop(after=after, replay_exact=True)
    _assert_same(got, _loop(after=after, lazy=False, replay=False))


def _assigned_in_a_tape(value_of):
    """A Variable of ones assigned ``value_of(x)`` of a watched ``x`` inside a tape: (the Variable, the value);
    what the assignment raised, with the Variable, when it raised."""
    v = tj.Variable(np.ones(2, np.float32), trainable=False)
    x = tj.constant([0.5, 2.0])
    with tj.GradientTape() as tape:
        tape.watch(x)
        value = value_of(x)
        try:
            v.assign(value)
        except ValueError as e:
            return v, e
    return v, value


@pytest.mark.parametrize("bad", ["dtype", "shape"])
def test_a_value_assign_refuses_is_refused_as_before_and_leaves_the_variable(bad):
    v, error = _assigned_in_a_tape({"dtype": lambda x: tnp.sin(x).astype(np.int32),
                                    "shape": lambda x: tnp.sin(x)[:1]}[bad])
    assert isinstance(error, ValueError) and "unchanged" in str(error)
    np.testing.assert_array_equal(v.numpy(), [1.0, 1.0])


def test_a_failing_computation_leaves_the_value_from_before_and_raises(monkeypatch):
    v, value = _assigned_in_a_tape(tnp.sin)
    assert pending_value(v) is not None
    node, compute = value._node, Node.compute

    def failing(self):
        if self is node:
            raise RuntimeError("the op failed")
        compute(self)
    monkeypatch.setattr(Node, "compute", failing)
    with pytest.raises(RuntimeError, match="the op failed"):
        v.numpy()
    np.testing.assert_array_equal(v.numpy(), [1.0, 1.0])


def test_a_tj_function_and_a_checkpoint_read_the_pending_value(tmp_path):
    v, _ = _assigned_in_a_tape(tnp.sin)
    assert pending_value(v) is not None
    doubled = tj.function(lambda: v * 2.0)()
    np.testing.assert_allclose(doubled.numpy(), 2 * np.sin([0.5, 2.0]), rtol=1e-6)
    w, _ = _assigned_in_a_tape(tnp.cos)
    path = tj.train.Checkpoint(w=w).save(str(tmp_path / "ckpt"))
    restored = tj.Variable(np.ones(2, np.float32), trainable=False)
    tj.train.Checkpoint(w=restored).restore(path)
    np.testing.assert_allclose(restored.numpy(), np.cos([0.5, 2.0]), rtol=1e-6)
