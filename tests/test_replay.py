"""Replay of a recurring backward pass as one compiled program (tj.config.replay)."""
import numpy as np
import pytest

import tapejax as tj
from tapejax.deferred import replay

tnp = tj.numpy


# exact: each op fenced in the program, so results must equal op-by-op execution bit for bit;
# compiled at once, so the third step is replayed deterministically
pytestmark = pytest.mark.usefixtures("replay_now")


def _chain_grad(x0, n=20, persistent=False):
    with tj.GradientTape(persistent=persistent) as t:
        t.watch(x0)
        x = x0
        for _ in range(n):
            x = tnp.tanh(x * 1.01 + 0.1)
        y = tnp.sum(x * x)
    g = t.gradient(y, x0)
    return g, t


def test_replayed_results_equal_op_by_op_exactly():
    x0 = tj.constant(np.linspace(-1, 1, 16).astype(np.float32))
    tj.config.replay = False
    ref, _ = _chain_grad(x0)
    tj.config.replay = True
    modes = []
    for _ in range(5):
        g, t = _chain_grad(x0, persistent=True)
        np.testing.assert_array_equal(g.numpy(), ref.numpy())
        modes.append(t._tape.last_replay)
    assert modes[0].startswith("op by op (warm-up 1")
    assert modes[1].startswith("op by op (warm-up 2")
    assert all(m.startswith("replayed") for m in modes[2:]), modes


def test_replay_with_variables_multi_output_and_fanout():
    rng = np.random.default_rng(0)
    w = tj.Variable(rng.standard_normal((4, 3)).astype(np.float32))
    b = tj.Variable(np.zeros(3, np.float32))
    x = tj.constant(rng.standard_normal((5, 4)).astype(np.float32))

    def grads():
        with tj.GradientTape() as t:
            h = tnp.tanh(x @ w + b)
            parts = tnp.split(h, 3, axis=1)
            loss = tnp.sum(parts[0] * parts[2]) + tnp.mean(h) + tnp.sum(h * h)
        return [g.numpy() for g in t.gradient(loss, [w, b])], t

    tj.config.replay = False
    ref, _ = grads()
    tj.config.replay = True
    for _ in range(4):
        got, _ = grads()
        for a, r in zip(got, ref):
            np.testing.assert_array_equal(a, r)


def test_new_shape_or_structure_is_not_confused_with_a_cached_program():
    for n in (5, 6, 5, 6, 5, 6):
        x0 = tj.constant(np.linspace(-1, 1, n).astype(np.float32))
        g, _ = _chain_grad(x0, n=3)
        tj.config.replay = False
        ref, _ = _chain_grad(x0, n=3)
        tj.config.replay = True
        np.testing.assert_array_equal(g.numpy(), ref.numpy())
    for depth in (3, 4, 3, 4, 3, 4):
        x0 = tj.constant(np.ones(4, np.float32))
        g, _ = _chain_grad(x0, n=depth)
        tj.config.replay = False
        ref, _ = _chain_grad(x0, n=depth)
        tj.config.replay = True
        np.testing.assert_array_equal(g.numpy(), ref.numpy())


def test_custom_gradient_tapes_fall_back_and_say_why():
    @tj.custom_gradient
    def f(x):
        return x * 2.0, lambda dy: dy * 5.0

    x = tj.constant([1.0, 2.0])
    for _ in range(4):
        with tj.GradientTape(persistent=True) as t:
            t.watch(x)
            y = tnp.sum(f(x))
        np.testing.assert_allclose(t.gradient(y, x).numpy(), [5.0, 5.0])
        assert "Python backward function" in t._tape.last_replay


def test_higher_order_is_not_replayed_and_stays_correct():
    x = tj.constant(0.7)
    for _ in range(4):
        with tj.GradientTape() as outer:
            outer.watch(x)
            with tj.GradientTape() as inner:
                inner.watch(x)
                y = tnp.sin(x) * x
            g = inner.gradient(y, x)
        h = outer.gradient(g, x)
        np.testing.assert_allclose(h.numpy(), 2 * np.cos(0.7) - 0.7 * np.sin(0.7), rtol=1e-5)


def test_stats_and_cache_bound():
    tj.config.replay_cache_size = 2
    for n in (3, 4, 5):
        for _ in range(3):
            x0 = tj.constant(np.ones(4, np.float32))
            with tj.GradientTape() as t:
                t.watch(x0)
                x = x0
                for _ in range(n):
                    x = tnp.exp(x * 0.1)
                y = tnp.sum(x)
            t.gradient(y, x0)
            assert t.last_gradient_stats.ops_run == n * 2 + 1
    assert len(replay._programs) == 2


def test_output_gradients_and_persistent_tape_reuse():
    x0 = tj.constant(np.linspace(0, 1, 6).astype(np.float32))
    with tj.GradientTape(persistent=True) as t:
        t.watch(x0)
        y = tnp.exp(x0) * 3.0
    og = tj.constant(np.arange(6, dtype=np.float32))
    results = [t.gradient(y, x0, output_gradients=og).numpy() for _ in range(4)]
    for r in results:
        np.testing.assert_allclose(r, np.exp(np.linspace(0, 1, 6)) * 3.0 * np.arange(6), rtol=1e-6)


def test_unfenced_replay_is_close_to_op_by_op():
    tj.config.replay_exact = False  # XLA may fuse across ops: equal up to rounding, as jax.jit
    x0 = tj.constant(np.linspace(-1, 1, 16).astype(np.float32))
    tj.config.replay = False
    ref, _ = _chain_grad(x0, n=30)
    tj.config.replay = True
    for _ in range(4):
        g, t = _chain_grad(x0, n=30)
        np.testing.assert_allclose(g.numpy(), ref.numpy(), rtol=2e-6, atol=1e-7)
    assert t.last_replay.startswith("replayed"), t.last_replay


def test_background_compile_goes_op_by_op_until_ready_and_long_tapes_never_compile():
    tj.config.replay_background = True
    x0 = tj.constant(np.linspace(-1, 1, 8).astype(np.float32))
    tj.config.replay = False
    ref, _ = _chain_grad(x0, n=40)
    tj.config.replay = True
    modes = []
    for _ in range(3):
        g, t = _chain_grad(x0, n=40)
        modes.append(t.last_replay)
        np.testing.assert_array_equal(g.numpy(), ref.numpy())
    assert modes[2].startswith("op by op (the replay program is compiling") or modes[2].startswith("replayed"), modes
    replay.wait()
    g, t = _chain_grad(x0, n=40)
    assert t.last_replay.startswith("replayed"), t.last_replay
    np.testing.assert_array_equal(g.numpy(), ref.numpy())
    old = tj.config.replay_max_ops
    tj.config.replay_max_ops = 50
    try:
        for _ in range(4):
            g, t = _chain_grad(x0, n=40)  # 121 ops
        assert "replay_max_ops" in t.last_replay, t.last_replay
        np.testing.assert_array_equal(g.numpy(), ref.numpy())
    finally:
        tj.config.replay_max_ops = old


def test_a_program_that_fails_to_compile_falls_back_to_op_by_op(monkeypatch):
    x0 = tj.constant(np.linspace(-1, 1, 8).astype(np.float32))
    tj.config.replay = False
    ref, _ = _chain_grad(x0, n=5)
    tj.config.replay = True

    def broken(self, leaves, og):
        self.failed = "XlaRuntimeError: simulated"
    monkeypatch.setattr(replay._Program, "compile", broken)
    for _ in range(4):
        g, t = _chain_grad(x0, n=5)
        np.testing.assert_array_equal(g.numpy(), ref.numpy())
    assert "compiling the replay program failed" in t.last_replay, t.last_replay


def test_a_forward_value_read_after_its_step_is_returned_by_the_next_program(monkeypatch):
    # The Keras guide's loop: a metric from the logits after the update. The first such read runs the logits'
    # ops again one by one; from then on the structure's program returns the logits too (same values).
    from tapejax.deferred import lazy
    ran = []
    run = lazy._run

    def counting(nodes):
        ran.extend(n for n in nodes if n.values is None)
        return run(nodes)
    monkeypatch.setattr(lazy, "_run", counting)
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal((3, 4)).astype(np.float32)
    x = tj.constant(rng.standard_normal((5, 3)).astype(np.float32))

    def loop(steps=6, **cfg):
        w = tj.Variable(w0)
        seen, per_step = [], []
        with tj.config.override(**cfg):
            for _ in range(steps):
                before = len(ran)
                with tj.GradientTape() as tape:
                    logits = tnp.tanh(x @ w)
                    loss = tnp.sum(logits ** 2)
                g = tape.gradient(loss, w)
                w.assign_sub(0.1 * g)
                seen.append(np.argmax(logits.numpy(), axis=-1))  # (read after the update)
                per_step.append(len(ran) - before)
        return seen + [w.numpy()], per_step
    replay.clear()
    got, per_step = loop()
    # Two warm-up steps run their ops anyway; the first replayed step recomputes the logits (2 ops); the next
    # program returns them (compiled at once: the structure is warm)
    assert per_step == [4, 4, 2, 0, 0, 0], per_step
    want, _ = loop(lazy=False, replay=False)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_clear_forgets_the_values_read_after_their_steps():
    replay._wanted[("a structure",)] = (3,)
    replay.clear()
    assert replay._wanted == {}


def test_a_step_of_many_shapes_compiles_its_first_shapes_and_a_further_one_only_when_it_stays():
    """tj.config.replay_shapes: a step alike but for its arguments' shapes is compiled for its first shapes after
    the warm-up, and for a further shape only once that shape comes back at nearly every step 16 x replay_warmup
    times in a row (a loop over a hundred batch sizes compiled two programs per size, each too rarely reused to
    repay its compile; a batch size that changed for good is still compiled). Values stay op-by-op's."""
    tj.config.replay_warmup = 1
    tj.config.replay_shapes = 2
    w = tj.Variable(np.linspace(-1, 1, 12).astype(np.float32).reshape(4, 3))

    def step(n, kind="tanh"):
        x = tj.constant(np.linspace(-1, 1, 4 * n).astype(np.float32).reshape(n, 4))
        with tj.GradientTape() as t:
            h = x @ w
            loss = tnp.sum(tnp.tanh(h) if kind == "tanh" else tnp.sin(h))
        return t.gradient(loss, w).numpy(), t.last_replay

    def check(n, kind="tanh"):
        g, mode = step(n, kind)
        np.testing.assert_array_equal(g, refs[(n, kind)])
        return mode

    tj.config.replay = False
    refs = {(n, k): step(n, k)[0] for n in (1, 2, 3, 4) for k in ("tanh", "sin")}
    tj.config.replay = True
    modes = {n: [check(n) for _ in range(3)][-1] for n in (1, 2, 3)}
    assert modes[1].startswith("replayed") and modes[2].startswith("replayed"), modes
    assert modes[3] == ("op by op (2 of this step's shapes are compiled, tj.config.replay_shapes = 2; this one is once "
                        "it comes back at nearly every step, 2/16 in a row: pad or bucket batches (and sequence "
                        "lengths) to fewer shapes, or raise replay_shapes)"), modes[3]
    # shapes 3 and 4 alternating with compiled ones, 5 passes apart: never in a row, never compiled
    for _ in range(20):
        for n in (1, 2, 1, 2, 3, 1, 2, 1, 2, 4):
            mode = check(n)
            assert mode.startswith("replayed" if n < 3 else "op by op"), (n, mode)
            assert "in a row" not in mode or "1/16 in a row" in mode, mode
    # shape 3 from now on (the batch size changed for good): compiled after 16 passes in a row
    modes = [check(3) for _ in range(17)]
    assert all("%d/16 in a row" % (k + 1) in m for k, m in enumerate(modes[:16])), modes
    assert modes[16].startswith("replayed"), modes[16]
    # another step (sin for tanh) counts its own shapes; a shape compiled stays compiled
    for n in (1, 2):
        assert [check(n, "sin") for _ in range(2)][-1].startswith("replayed"), n
    assert check(4).startswith("op by op (3 of this step's shapes")
    # a slice's bound following the batch's length (a static parameter) makes no other step
    big = tj.constant(np.linspace(-1, 1, 40).astype(np.float32).reshape(10, 4))

    def sliced(n):
        with tj.GradientTape() as t:
            loss = tnp.sum(tnp.tanh(big[:n] @ w))
        return t.gradient(loss, w).numpy(), t.last_replay
    modes = {n: [sliced(n) for _ in range(3)][-1][1] for n in (5, 6, 7)}
    assert modes[5].startswith("replayed") and modes[6].startswith("replayed"), modes
    assert modes[7].startswith("op by op (2 of this step's shapes are compiled"), modes
    with tj.config.override(replay=False):
        ref = sliced(7)[0]
    np.testing.assert_array_equal(sliced(7)[0], ref)
    # replay_shapes = 0: every shape waits for its run; tj.config.replay_warmup = 0 compiles at once
    replay.clear()
    tj.config.replay_shapes = 0
    modes = [check(2) for _ in range(3)]
    assert modes[0] == "op by op (warm-up 1/1)", modes
    assert "(0 of this step's shapes" in modes[1] and "2/16 in a row" in modes[2], modes
    replay.clear()
    tj.config.replay_warmup = 0
    assert check(2).startswith("replayed")


def test_strictly_eager_steps_of_many_shapes_are_counted_alike():
    """tj.config.lazy = False: a tape's backward pass is replayed by its pruned structure; its further shapes wait as
    a deferred step's do (a loop over 100 batch sizes: 44.8 s, 32.9 s with replay off, 30.5 s now)."""
    tj.config.lazy = False
    tj.config.replay_warmup = 1
    tj.config.replay_shapes = 1
    w = tj.Variable(np.linspace(-1, 1, 12).astype(np.float32).reshape(4, 3))

    def step(n):
        x = tj.constant(np.linspace(-1, 1, 4 * n).astype(np.float32).reshape(n, 4))
        with tj.GradientTape() as t:
            loss = tnp.sum(tnp.tanh(x @ w))
        return t.gradient(loss, w).numpy(), t.last_replay

    with tj.config.override(replay=False):
        refs = {n: step(n)[0] for n in (1, 2)}
    modes = {}
    for n in (1, 2):
        for _ in range(3):
            g, modes[n] = step(n)
            np.testing.assert_array_equal(g, refs[n])
    assert modes[1].startswith("replayed"), modes
    assert modes[2].startswith("op by op (1 of this step's shapes are compiled"), modes


@pytest.mark.parametrize("lazy", [True, False], ids=["deferred", "strictly_eager"])
def test_a_recurrent_step_over_many_lengths_is_one_family(lazy):
    """A recurrent net's step over sequences of many lengths runs its cell's ops a different number of times per
    length: one family (the set of its ops), whose first tj.config.replay_shapes lengths are compiled and a further
    one only when it stays, as a batch size is (benchmarks/many_lengths.py, 1,500 Adam steps over 36 random lengths:
    41-47 s with a family per length, 31-35 s now, 26-31 s with replay off). Values stay op-by-op's; another set of
    ops (sin for tanh) is another family."""
    tj.config.lazy = lazy
    tj.config.replay_warmup = 1
    tj.config.replay_shapes = 2
    wx = tj.Variable(np.linspace(-1, 1, 6).astype(np.float32).reshape(2, 3))
    wh = tj.Variable(np.linspace(-0.5, 0.5, 9).astype(np.float32).reshape(3, 3))
    xs = tj.constant(np.linspace(-1, 1, 2 * 5 * 2).astype(np.float32).reshape(5, 2, 2))

    def step(length, cell=tnp.tanh):
        with tj.GradientTape() as t:
            h = tnp.zeros((2, 3))
            for k in range(length):
                h = cell(xs[k] @ wx + h @ wh)
            loss = tnp.sum(h * h)
        return [g.numpy() for g in t.gradient(loss, [wx, wh])], t.last_replay

    with tj.config.override(replay=False):
        refs = {(n, c): step(n, c)[0] for n in (1, 2, 3, 4) for c in (tnp.tanh, tnp.sin)}

    def check(n, cell=tnp.tanh):
        g, mode = step(n, cell)
        for a, b in zip(g, refs[(n, cell)]):
            np.testing.assert_array_equal(a, b)
        return mode
    modes = {n: [check(n) for _ in range(3)][-1] for n in (1, 2, 3)}
    assert modes[1].startswith("replayed") and modes[2].startswith("replayed"), modes
    assert modes[3].startswith("op by op (2 of this step's shapes are compiled"), modes
    assert "sequence lengths" in modes[3], modes[3]
    # lengths 3 and 4 among compiled ones, never in a row: never compiled
    for _ in range(3):
        for n in (1, 2, 1, 2, 3, 1, 2, 1, 2, 4):
            assert check(n).startswith("replayed" if n < 3 else "op by op"), n
    # another set of ops counts its own lengths
    assert [check(2, tnp.sin) for _ in range(3)][-1].startswith("replayed")
