"""The optimizer's update fused into the replayed step (issue "Training loops", item 3).

Once an eager step recurs, ``tape.gradient`` gives the gradients of the replayed step before its program
has run (deferred/pending.py), and ``apply_gradients`` runs the program and the optax update as one
compiled program. What a user can observe must be what op-by-op execution gives: the losses, the
gradients, the Variables before and after the update, bit for bit under replay_exact (the
``replay_now`` fixture), whatever is read in between, and an exception leaves every Variable as it was.
"""
from __future__ import annotations

import numpy as np
import optax
import pytest

import tapejax as tj

tnp = tj.numpy
STEPS = 6
FUSED = "fused into the replayed step"


def _train(make_opt, steps=STEPS, read=None, constraint=None, transform=None, **cfg):
    """A small tanh layer trained eagerly; ``read(step, loss, grads, variables)`` runs between
    ``tape.gradient`` and ``apply_gradients``; ``transform(grads)`` gives the gradients the optimizer gets
    (clipped, scaled); ``constraint``: the weight's. Returns losses, gradients, final variables, update
    modes."""
    rng = np.random.default_rng(0)
    w = tj.Variable(rng.standard_normal((4, 3)).astype(np.float32), name="w", constraint=constraint)
    b = tj.Variable(np.zeros(3, np.float32), name="b")
    x = tj.constant(rng.standard_normal((5, 4)).astype(np.float32))
    opt = make_opt()
    losses, grads, modes = [], [], []
    with tj.config.override(**cfg):
        for step in range(steps):
            with tj.GradientTape() as tape:
                loss = tnp.mean(tnp.tanh(x @ w + b) ** 2)
            g = tape.gradient(loss, [w, b])
            if read is not None:
                read(step, loss, g, (w, b))
            opt.apply_gradients(zip(g if transform is None else transform(g), [w, b]))
            modes.append(opt.last_update)
            losses.append(np.asarray(loss.numpy()))
            grads.append([gi.numpy() for gi in g])
    return losses, grads, [w.numpy(), b.numpy()], modes


def _op_by_op(make_opt, **kw):
    return _train(make_opt, lazy=False, replay=False, **kw)


def _assert_equal(got, want):
    losses, grads, params, _ = got
    r_losses, r_grads, r_params, _ = want
    for a, b in zip(losses, r_losses):
        np.testing.assert_array_equal(a, b)
    for ga, gb in zip(grads, r_grads):
        for a, b in zip(ga, gb):
            np.testing.assert_array_equal(a, b)
    for a, b in zip(params, r_params):
        np.testing.assert_array_equal(a, b)


OPTIMIZERS = {
    "adam": lambda: tj.optimizers.Adam(0.05),
    "sgd_momentum": lambda: tj.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
    "rmsprop": lambda: tj.optimizers.RMSprop(0.01),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_fused_loop_equals_op_by_op_bit_for_bit(replay_now, name):
    got = _train(OPTIMIZERS[name])
    _assert_equal(got, _op_by_op(OPTIMIZERS[name]))
    modes = got[3]
    assert modes[:2] == ["one compiled update"] * 2, modes  # warm-up: op by op, then the update alone
    assert modes[2:] == [FUSED] * (STEPS - 2), modes


AFTER_OPS = "fused into the replayed step, after the ops on its gradients"
TRANSFORMS = {
    "clip_by_global_norm": lambda g: tj.clip_by_global_norm(g, 0.05)[0],
    "clip_by_norm": lambda g: [tj.clip_by_norm(gi, 0.02) for gi in g],
    "scaled": lambda g: [gi * 0.5 for gi in g],
}


@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
def test_gradients_transformed_before_the_optimizer_stay_fused_and_equal_op_by_op(replay_now, transform):
    """Clipping between tape.gradient and apply_gradients: ops on the pending gradients, then the optimizer's
    update after them, one program (its values pending until read), values as op by op."""
    got = _train(OPTIMIZERS["adam"], transform=TRANSFORMS[transform])
    _assert_equal(got, _op_by_op(OPTIMIZERS["adam"], transform=TRANSFORMS[transform]))
    assert got[3][2:] == [AFTER_OPS] * (STEPS - 2), got[3]
    # (the clipping was active: other weights than without it)
    assert not np.array_equal(got[2][0], _op_by_op(OPTIMIZERS["adam"])[2][0])


def test_transformed_gradients_read_before_the_update_run_the_step_first(replay_now):
    seen, ref = [], []

    def clipped(into):
        def transform(g):
            c, norm = tj.clip_by_global_norm(g, 0.05)
            into.append(float(norm))  # (reading the norm runs the step and the clipping: then the update alone)
            return c
        return transform
    got = _train(OPTIMIZERS["sgd_momentum"], transform=clipped(seen))
    _assert_equal(got, _op_by_op(OPTIMIZERS["sgd_momentum"], transform=clipped(ref)))
    assert seen == ref
    assert AFTER_OPS not in got[3], got[3]


def test_fused_loop_with_a_constrained_variable_equals_op_by_op(replay_now):
    # The constraint projects the fused update's value (Keras: v.assign(v.constraint(v)) after the step).
    nonneg = lambda w: tnp.maximum(w, 0.0)  # noqa: E731
    got = _train(OPTIMIZERS["adam"], constraint=nonneg)
    _assert_equal(got, _op_by_op(OPTIMIZERS["adam"], constraint=nonneg))
    assert got[3][2:] == [FUSED] * (STEPS - 2), got[3]
    w = got[2][0]
    assert w.min() == 0.0 and _train(OPTIMIZERS["adam"])[2][0].min() < 0  # (the constraint was active)


def test_fused_without_replay_exact_is_close(replay_now):
    with tj.config.override(replay_exact=False):
        got = _train(OPTIMIZERS["adam"])
    want = _op_by_op(OPTIMIZERS["adam"])
    assert got[3][2:] == [FUSED] * (STEPS - 2), got[3]
    for a, b in zip(got[2], want[2]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_reading_the_loss_before_the_update(replay_now):
    """Printing the loss before the update runs the step's program, then the update on its own, once: that
    update forecasts the next step's program and update as one, dispatched ahead, whose run gives the next
    loss read (deferred/ahead.py). Same values either way."""
    seen = []
    got = _train(OPTIMIZERS["adam"], read=lambda s, loss, g, v: seen.append(float(loss)))
    ref_seen = []
    want = _op_by_op(OPTIMIZERS["adam"], read=lambda s, loss, g, v: ref_seen.append(float(loss)))
    assert seen == ref_seen
    _assert_equal(got, want)
    assert got[3] == ["one compiled update"] * 3 + [FUSED] * (STEPS - 3), got[3]


def test_reading_gradients_before_the_update(replay_now):
    got = _train(OPTIMIZERS["adam"], read=lambda s, loss, g, v: [gi.numpy() for gi in g])
    _assert_equal(got, _op_by_op(OPTIMIZERS["adam"]))
    assert FUSED not in got[3], got[3]


def test_reading_variables_before_the_update_keeps_the_fusion(replay_now):
    """A Variable read between gradient and update is its value before the update; the step still fuses."""
    before, ref_before = [], []
    got = _train(OPTIMIZERS["adam"], read=lambda s, loss, g, v: before.append([x.numpy() for x in v]))
    want = _op_by_op(OPTIMIZERS["adam"], read=lambda s, loss, g, v: ref_before.append([x.numpy() for x in v]))
    for a, b in zip(before, ref_before):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
    _assert_equal(got, want)
    assert got[3][2:] == [FUSED] * (STEPS - 2), got[3]


def test_gradients_through_optax_directly(replay_now):
    """The replayed step's gradients are plain Tensors to JAX's pytrees: optax takes them with Tensor state."""
    tx = optax.adam(0.05)
    rng = np.random.default_rng(0)
    w = tj.Variable(rng.standard_normal((4, 3)).astype(np.float32))
    x = tj.constant(rng.standard_normal((5, 4)).astype(np.float32))
    state = tx.init([w.value()])
    for _ in range(4):
        with tj.GradientTape() as tape:
            loss = tnp.sum(tnp.tanh(x @ w) ** 2)
        g = tape.gradient(loss, [w])
        assert type(g[0]) is tj.Tensor
        updates, state = tx.update(g, state, [w.value()])
        w.assign(optax.apply_updates([w.value()], updates)[0])
    assert tape.last_replay.startswith("replayed"), tape.last_replay


def _failing_transformation():
    def init(params):
        return optax.EmptyState()

    def update(updates, state, params=None):
        raise FloatingPointError("update failed on purpose")
    return optax.GradientTransformation(init, update)


def test_an_exception_in_the_update_leaves_every_variable_as_it_was(replay_now):
    good = OPTIMIZERS["adam"]
    rng = np.random.default_rng(0)
    w = tj.Variable(rng.standard_normal((4, 3)).astype(np.float32))
    x = tj.constant(rng.standard_normal((5, 4)).astype(np.float32))
    opt, bad = good(), tj.optimizers.from_optax(_failing_transformation())
    for step in range(4):
        with tj.GradientTape() as tape:
            loss = tnp.sum(tnp.tanh(x @ w) ** 2)
        g = tape.gradient(loss, [w])
        if step < 3:
            opt.apply_gradients(zip(g, [w]))
            continue
        kept = w.numpy()
        iterations = int(bad.iterations.numpy())
        with pytest.raises(FloatingPointError, match="on purpose"):
            bad.apply_gradients(zip(g, [w]))
        np.testing.assert_array_equal(w.numpy(), kept)
        assert int(bad.iterations.numpy()) == iterations
        # the step itself is intact: its loss and gradient are what op by op gives
        with tj.config.override(lazy=False, replay=False):
            with tj.GradientTape() as ref_tape:
                ref_loss = tnp.sum(tnp.tanh(x @ w) ** 2)
            ref_g = ref_tape.gradient(ref_loss, [w])
        np.testing.assert_array_equal(loss.numpy(), ref_loss.numpy())
        np.testing.assert_array_equal(g[0].numpy(), ref_g[0].numpy())


def test_the_fused_program_compiles_in_the_background(replay_now):
    """With background compiles, the first replayed step runs its update on its own while the fused
    program compiles; once it is ready the steps are fused, with the same values throughout."""
    from tapejax.deferred import replay

    def wait_for_compiles(step, loss, grads, variables):
        replay.wait()  # (what compiled in the background during the step before is ready now)
    with tj.config.override(replay_background=True):
        got = _train(OPTIMIZERS["adam"], steps=STEPS + 1, read=wait_for_compiles)
    _assert_equal(got, _op_by_op(OPTIMIZERS["adam"], steps=STEPS + 1))
    modes = got[3]
    # steps 0-1: warm-up; 2: the step program compiling; 3: replayed, the fused program compiling (unless
    # this process compiled the same program already, for an earlier test: JAX's cache has it at once);
    # 4: fused, its gradients (read after the update) left out and computed again; 5: the fused program
    # returning them compiling; then fused
    assert modes[:3] == ["one compiled update"] * 3, modes
    assert modes[3] in ("one compiled update", FUSED), modes
    fused_from = modes.index(FUSED)
    assert fused_from <= 4, modes
    assert modes[fused_from + 1] in ("one compiled update", FUSED), modes
    assert modes[fused_from + 2:] == [FUSED] * (STEPS + 1 - fused_from - 2), modes


def test_gradients_read_after_the_update_are_computed_again_then_returned(replay_now, monkeypatch):
    """A fused program writes out only the gradients read after an update of its step before (writing
    the others costs time): the first read of one it left out runs the step's program again, with the
    values op by op gives; from then on the fused program returns them."""
    from tapejax.deferred import pending
    recomputed = []
    original = pending.PendingStep.recompute

    def counting(step):
        recomputed.append(step.values is not None and any(v is None for v in step.values))
        return original(step)
    monkeypatch.setattr(pending.PendingStep, "recompute", counting)
    reads = {6: "after", 7: "after", 8: "dropped"}

    def run(**cfg):
        rng = np.random.default_rng(0)
        w = tj.Variable(rng.standard_normal((4, 3)).astype(np.float32))
        x = tj.constant(rng.standard_normal((5, 4)).astype(np.float32))
        opt = tj.optimizers.Adam(0.05)
        seen, modes = [], []
        with tj.config.override(**cfg):
            for step in range(9):
                with tj.GradientTape() as tape:
                    loss = tnp.sum(tnp.tanh(x @ w) ** 2)
                g = tape.gradient(loss, [w])
                opt.apply_gradients(zip(g, [w]))
                modes.append(opt.last_update)
                if reads.get(step) == "after":
                    seen.append(g[0].numpy())
                del g
        return seen, w.numpy(), modes
    seen, final, modes = run()
    assert modes[2:] == [FUSED] * 7, modes
    assert recomputed == [True], recomputed  # step 6 only: step 7's program returned the gradient
    ref_seen, ref_final, _ = run(lazy=False, replay=False)
    for a, b in zip(seen, ref_seen):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(final, ref_final)


def test_two_optimizers_on_one_steps_gradients(replay_now):
    """The first optimizer's update is fused and leaves the second one's gradients out; reading them
    (the second update) computes them again: every value as op by op, bit for bit."""
    def run(**cfg):
        rng = np.random.default_rng(1)
        w = tj.Variable(rng.standard_normal((4, 3)).astype(np.float32))
        b = tj.Variable(rng.standard_normal(3).astype(np.float32))
        x = tj.constant(rng.standard_normal((5, 4)).astype(np.float32))
        first, second = tj.optimizers.Adam(0.05), tj.optimizers.SGD(0.1, momentum=0.9)
        losses, modes = [], []
        with tj.config.override(**cfg):
            for _ in range(6):
                with tj.GradientTape() as tape:
                    loss = tnp.sum(tnp.tanh(x @ w + b) ** 2)
                gw, gb = tape.gradient(loss, [w, b])
                first.apply_gradients([(gw, w)])
                second.apply_gradients([(gb, b)])
                modes.append(first.last_update)
                losses.append(loss.numpy())
        return losses, w.numpy(), b.numpy(), modes
    got, want = run(), run(lazy=False, replay=False)
    assert FUSED in got[3], got[3]
    for a, b in zip(got[0], want[0]):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(got[2], want[2])


def test_a_step_fed_numpy_arrays_is_fused_and_keeps_the_values_it_was_given(replay_now):
    """NumPy batches passed straight to ops (as TF takes them): each op takes a device copy of its own, so the
    step is deferred and fused with the update like one fed Tensors, and a later write to the caller's array
    changes nothing already recorded; values bit for bit op by op's."""
    def train(**cfg):
        rng = np.random.default_rng(4)
        w = tj.Variable(rng.standard_normal((4, 3)).astype(np.float32), name="w")
        opt = tj.optimizers.Adam(0.05)
        out, modes = [], []
        with tj.config.override(**cfg):
            for step in range(STEPS):
                x = rng.standard_normal((5, 4)).astype(np.float32)
                y = rng.standard_normal((5, 3)).astype(np.float32)
                with tj.GradientTape() as tape:
                    loss = tnp.mean((tnp.tanh(tnp.matmul(x, w)) - y) ** 2)
                x[:] = 100.0  # (the caller reuses its buffers)
                y[:] = -100.0
                g = tape.gradient(loss, [w])
                opt.apply_gradients(zip(g, [w]))
                modes.append(opt.last_update)
                out += [np.asarray(loss.numpy()), g[0].numpy()]
        return out + [w.numpy()], modes
    got, modes = train()
    assert modes[-1].startswith(FUSED), modes
    want, _ = train(lazy=False, replay=False)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
