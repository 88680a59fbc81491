"""Long runs do not leak (issue 7): 10,000 eager training steps keep the count and bytes of live jax
arrays flat, measured at steps 1,000 and 10,000, tapes and accumulators included; so do the live
tapejax Tensors, tapes, tape entries, accumulators and deferred (lazy) nodes.

The 10,000 steps cycle through every way a training step holds arrays: a plain GradientTape step (the
default configuration: deferred ops and replay of the recurring backward pass), the same step op by op
(``tj.config.lazy`` and ``tj.config.replay`` off), a ForwardAccumulator step, a persistent tape with
two gradient calls dropped without ``reset``, an accumulator nested in a tape, and nested tapes (second
order). Shapes are tiny so the run costs seconds; the tolerances are a few objects, far below the 90
extra arrays that a leak of one array per 100 steps leaves between the two measurements.
"""
from __future__ import annotations

import gc
import sys

import jax
import numpy as np

import tapejax as tj
from tapejax import tape_set

tnp = tj.numpy
STEP_FIRST, STEP_LAST = 1_000, 10_000
# Allowed growth between the two measurements (9,000 steps apart).
MAX_NEW_ARRAYS, MAX_NEW_BYTES, MAX_NEW_OBJECTS = 20, 8 * 1024, 10


def _tracked_types():
    from tapejax import backprop, forwardprop, tape
    from tapejax.deferred import lazy
    return {"Tensor": tj.Tensor, "GradientTape": backprop.GradientTape, "Tape": tape.Tape,
            "OpEntry": tape.OpEntry, "ForwardAccumulator": forwardprop.ForwardAccumulator,
            "Accumulator": forwardprop.Accumulator, "lazy.Node": lazy.Node}


def _live():
    """(count of live jax arrays, their bytes, {name: live instances} of tapejax's per-step objects)."""
    gc.collect()
    arrays = jax.live_arrays()
    n_bytes = sum(a.nbytes for a in arrays)
    types = _tracked_types()
    objects = dict.fromkeys(types, 0)
    for o in gc.get_objects():
        for name, cls in types.items():
            if isinstance(o, cls):
                objects[name] += 1
    return len(arrays), n_bytes, objects


def _make_step():
    rng = np.random.default_rng(0)
    w = tj.Variable(rng.normal(size=(3, 4)).astype(np.float32) * 0.3)
    b = tj.Variable(np.zeros(4, np.float32))
    v = tj.Variable(rng.normal(size=(4, 1)).astype(np.float32) * 0.3)
    params = [w, b, v]
    x = tj.constant(rng.normal(size=(2, 3)).astype(np.float32))
    y = tj.constant(rng.normal(size=(2, 1)).astype(np.float32))
    tangent = tj.constant(np.full((3, 4), 0.01, np.float32))

    def loss_fn(act=tnp.tanh):
        return tnp.mean((act(x @ w + b) @ v - y) ** 2)

    def update(grads):
        for p, g in zip(params, grads):
            p.assign_sub(0.01 * g)

    def plain():
        with tj.GradientTape() as t:
            loss = loss_fn()
        update(t.gradient(loss, params))
        return loss

    def op_by_op():
        cfg = tj.config
        old = cfg.lazy, cfg.replay
        cfg.lazy = cfg.replay = False
        try:
            return plain()
        finally:
            cfg.lazy, cfg.replay = old

    def accumulator():
        with tj.ForwardAccumulator(w, tangent) as acc:
            loss = loss_fn(tj.nn.sigmoid)
        w.assign_sub(0.01 * acc.jvp(loss) * tangent)  # a step along the tangent
        return loss

    def persistent():  # two gradient calls, then dropped without reset
        with tj.GradientTape(persistent=True) as t:
            h = tnp.tanh(x @ w + b)
            loss = tnp.mean((h @ v - y) ** 2)
            side = tnp.sum(h)
        grads = t.gradient(loss, params)
        assert t.gradient(side, [w])[0] is not None
        update(grads)
        return loss

    def accumulator_in_tape():
        with tj.GradientTape() as t:
            with tj.ForwardAccumulator(w, tangent) as acc:
                loss = loss_fn(tj.nn.relu)
            total = loss + 0.0 * acc.jvp(loss)
        update(t.gradient(total, params))
        return loss

    def second_order():
        with tj.GradientTape() as outer:
            with tj.GradientTape() as inner:
                loss = loss_fn()
            g = inner.gradient(loss, v)
            total = loss + 0.01 * tnp.sum(g * g)
        update(outer.gradient(total, params))
        return loss

    # The plain default-configuration step most often, as in a training loop; every kind recurs.
    cycle = [plain, op_by_op, plain, accumulator, plain, persistent, plain, accumulator_in_tape, plain,
             second_order]
    return lambda i: cycle[i % len(cycle)]()


def run_steps(step):
    """Run STEP_LAST steps; measurements after steps STEP_FIRST and STEP_LAST."""
    first = None
    for i in range(STEP_LAST):
        loss = step(i)
        if i + 1 == STEP_FIRST:
            first = _live()
    assert np.isfinite(float(loss))
    return first, _live()


def growth(first, last):
    """Messages for every measure that grew beyond its tolerance between the two measurements."""
    (n0, b0, o0), (n1, b1, o1) = first, last
    bad = []
    if n1 > n0 + MAX_NEW_ARRAYS:
        bad.append(f"live jax arrays grew from {n0} at step {STEP_FIRST} to {n1} at step {STEP_LAST}")
    if b1 > b0 + MAX_NEW_BYTES:
        bad.append(f"bytes of live jax arrays grew from {b0} to {b1}")
    for name in o0:
        if o1[name] > o0[name] + MAX_NEW_OBJECTS:
            bad.append(f"live {name} objects grew from {o0[name]} to {o1[name]}")
    return bad


def test_ten_thousand_eager_steps_do_not_leak():
    first, last = run_steps(_make_step())
    assert tape_set.current().tapes == [] and tape_set.current().accumulators == []
    assert tj.config.lazy and tj.config.replay
    assert growth(first, last) == [], growth(first, last)
    # The count is not trivially flat: arrays are alive (parameters, data, caches) at both points.
    assert first[0] > 0 and first[2]["Tensor"] > 0


def test_dropped_tapes_free_their_residuals():
    x = tj.constant(np.ones((256, 256), np.float32))
    gc.collect()
    base = _live()
    for _ in range(50):
        with tj.GradientTape(persistent=True) as t:
            t.watch(x)
            y = tnp.tanh(x @ x)  # residuals: 256 KiB arrays kept by the tape
            _ = tnp.sum(y * y)
        del t, y, _
    after = _live()
    assert after[0] <= base[0] + 5 and after[1] <= base[1] + 2 * 256 * 256 * 4, (base, after)


def test_the_measurement_catches_a_leak(monkeypatch):
    # The flat-count test must be able to fail: a step that keeps one array every 10 steps is flagged.
    this = sys.modules[__name__]
    monkeypatch.setattr(this, "STEP_FIRST", 50)
    monkeypatch.setattr(this, "STEP_LAST", 400)  # 35 arrays kept between the measurements (20 allowed)
    step = _make_step()
    kept = []

    def leaky(i):
        loss = step(i)
        if i % 10 == 0:
            kept.append(jax.numpy.full((8,), float(i)))  # a fresh device array the loop forgets to drop
        return loss

    bad = growth(*run_steps(leaky))
    assert any("live jax arrays grew" in b for b in bad), bad


def test_a_tj_function_made_per_step_is_freed_with_its_call_op():
    # A tj.function recorded on a tape becomes an op of its own (its call): once the function is gone, so is
    # that op, with the trace and compiled programs it holds (a global cache of op types kept each one, ~3 MB
    # a function, when a loop or a notebook made functions anew).
    from tapejax.ops.core import OpDef
    from tapejax.deferred import replay

    def made_per_step(lazy):
        def leak_probe_fn(x):
            return x * x + x
        f = tj.function(leak_probe_fn)
        x = tj.constant(1.0)
        with tj.config.override(lazy=lazy, replay=lazy):
            with tj.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            assert float(tape.gradient(y, x)) == 3.0

    for lazy in (True, False):
        for _ in range(3):
            made_per_step(lazy)
        replay.wait()
        gc.collect()
        alive = [o for o in gc.get_objects() if isinstance(o, OpDef) and "leak_probe_fn" in o.name]
        assert alive == [], (lazy, alive)


def test_a_model_and_optimizer_made_again_let_the_old_ones_go():
    """A notebook cell run again makes a new model and optimizer: the old ones' Variables and Adam state must go
    with them. The programs compiled for the old step (its replay program, the one with the update fused into
    it, the forecast of its next step) stay cached for a step alike, and held the optimizer, its Variables and
    its state: each run of such a cell kept the whole model and optimizer alive."""
    import weakref

    from tapejax.deferred import replay

    def cell(seed):
        rng = np.random.default_rng(seed)
        ws = [tj.Variable(rng.standard_normal((8, 8)).astype(np.float32) * 0.3) for _ in range(3)]
        opt = tj.optimizers.Adam(1e-3)
        x = tj.constant(rng.standard_normal((4, 8)).astype(np.float32))
        for _ in range(6):
            with tj.GradientTape() as t:
                h = x
                for w in ws:
                    h = tnp.tanh(h @ w)
                loss = tnp.mean(h ** 2)
            opt.apply_gradients(zip(t.gradient(loss, ws), ws))
        assert opt.last_update == "fused into the replayed step", opt.last_update
        float(loss.numpy())
        return [weakref.ref(o) for o in [opt, *ws, *opt.variables]]

    replay.clear()
    with tj.config.override(lazy=True, replay=True, replay_warmup=2, replay_background=False, replay_ahead=True):
        for seed in range(2):
            refs = cell(seed)
            gc.collect()
            alive = [r() for r in refs if r() is not None]
            assert not alive, alive
    replay.clear()
