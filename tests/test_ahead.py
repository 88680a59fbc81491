"""A recurring fused training step dispatched ahead (deferred/ahead.py): its program starts as soon as the
step's inputs are known (or guessed), while Python records the rest of it.

A launch is only ever a way to make early the very call ``apply_gradients`` makes: its results are taken
only when that call is the same compiled program on the same arrays. So every test here compares what a
user can observe with launches on against the same loop with them off, bit for bit (and, under
``replay_exact``, against op-by-op execution), and checks from ``ahead.tally`` that launches were made
and used, or not used, where expected.
"""
from __future__ import annotations

import threading

import jax
import numpy as np
import pytest

import tapejax as tj
from tapejax.deferred import ahead

tnp = tj.numpy
STEPS = 8


def _loop(steps=STEPS, between=None, inside=None, data=None, make_opt=None, **cfg):
    """A two-layer tanh model trained eagerly with Adam. ``between(step, loss, grads, vars, opt)`` runs
    between ``tape.gradient`` and ``apply_gradients``; ``inside(step)`` at the end of the forward pass, in
    the tape; ``data(step)`` gives (x, y), new Tensors per step by default, of jax arrays (not made by
    tj.constant or from NumPy arrays, whose next batch is guessed: test_batches_converted_from_numpy...).
    Returns the losses, the final values of the weights and of the optimizer's state, and how many launches
    were made and used."""
    rng = np.random.default_rng(0)
    w1 = tj.Variable(rng.standard_normal((4, 8)).astype(np.float32), name="w1")
    w2 = tj.Variable(rng.standard_normal((8, 2)).astype(np.float32), name="w2")
    params = [w1, w2]
    batches = [(rng.standard_normal((5, 4)).astype(np.float32), rng.standard_normal((5, 2)).astype(np.float32))
               for _ in range(steps)]
    opt = make_opt() if make_opt is not None else tj.optimizers.Adam(learning_rate=0.05)
    before = dict(ahead.tally)
    losses = []
    with tj.config.override(**{"replay_background": False, "replay_warmup": 2, **cfg}):
        tj.deferred.replay.clear()
        for step in range(steps):
            if data is not None:
                x, y = data(step)
            else:
                x, y = (tj.convert_to_tensor(jax.numpy.asarray(a)) for a in batches[step])
            with tj.GradientTape() as tape:
                h = tnp.tanh(x @ w1)
                loss = tnp.mean((h @ w2 - y) ** 2)
                if inside is not None:
                    inside(step)
            grads = tape.gradient(loss, params)
            if between is not None:
                between(step, loss, grads, params, opt)
            opt.apply_gradients(zip(grads, params))
            losses.append(loss)
    losses = [np.asarray(lo.numpy()) for lo in losses]
    counts = _tally_since(before)
    return losses, [v.numpy() for v in params + opt.variables], counts


def _assert_same(got, want):
    for a, b in zip(got[0], want[0]):
        np.testing.assert_array_equal(a, b)
    assert len(got[1]) == len(want[1])
    for a, b in zip(got[1], want[1]):
        np.testing.assert_array_equal(a, b)


def test_a_recurring_step_is_launched_ahead_and_the_launch_is_used():
    on, off = _loop(), _loop(replay_ahead=False)
    _assert_same(on, off)
    assert off[2] == {"made": 0, "used": 0}
    # Steps 0-1 warm up, step 2 compiles the replay and its fused update: every later step launches at its
    # last leaf (y) and apply_gradients takes that launch.
    assert on[2] == {"made": STEPS - 3, "used": STEPS - 3}


def test_under_replay_exact_values_are_op_by_op_bit_for_bit():
    on = _loop(replay_exact=True)
    assert on[2] == {"made": STEPS - 3, "used": STEPS - 3}
    _assert_same(on, _loop(lazy=False, replay=False))


def test_the_same_data_arrays_every_step_are_launched_too():
    rng = np.random.default_rng(1)
    x = tj.constant(rng.standard_normal((5, 4)).astype(np.float32))
    y = tj.constant(rng.standard_normal((5, 2)).astype(np.float32))
    on = _loop(data=lambda step: (x, y))
    # Step 3 is launched at its last leaf; it read the data step 2 did, right after it, so from step 4 on
    # each step is launched as its tape starts, on the data of the step before and the weights as they are.
    assert on[2] == {"made": 1, "guessed": STEPS - 4, "used": STEPS - 3}
    _assert_same(on, _loop(data=lambda step: (x, y), replay_ahead=False))
    _assert_same(_loop(data=lambda step: (x, y), replay_exact=True),
                 _loop(data=lambda step: (x, y), lazy=False, replay=False))


def test_data_that_changes_after_guesses():
    rng = np.random.default_rng(1)
    batches = [tuple(tj.constant(rng.standard_normal(s).astype(np.float32)) for s in [(5, 4), (5, 2)])
               for _ in range(2)]
    both = lambda step: batches[step >= 6]  # the same arrays for steps 0-5, others from step 6

    def label(step):
        return batches[0][0], batches[step >= 6][1]  # only y (the last leaf) changes at step 6
    for data in (both, label):
        on = _loop(steps=10, data=data)
        _assert_same(on, _loop(steps=10, data=data, replay_ahead=False))
        # Steps 4-6 guessed as their tapes start; step 6's guess is not its call, so the program guesses
        # again only after two steps in a row on the same data (not one): steps 7-8 are launched at their
        # last leaf, step 9 as its tape starts.
        assert on[2] == {"made": 3, "guessed": 4, "used": 6}


def test_guessing_backs_off_while_the_data_keeps_changing_and_resumes_on_one_batch():
    rng = np.random.default_rng(2)
    batches = [tuple(tj.constant(rng.standard_normal(s).astype(np.float32)) for s in [(5, 4), (5, 2)])
               for _ in range(4)]
    # One batch (steps 0-5), two batches alternating in runs of three steps (6-17), one batch again (18-27).
    which = lambda step: 0 if step < 6 else (1 + (step - 6) // 3 % 2 if step < 18 else 3)
    data = lambda step: batches[which(step)]
    seen = []

    def inside(step):
        seen.append(ahead.tally["guessed"])
    first = ahead.tally["guessed"]
    on = _loop(steps=28, data=data, inside=inside)
    _assert_same(on, _loop(steps=28, data=data, replay_ahead=False))
    guessed = [s for s, (a, b) in enumerate(zip([first] + seen, seen)) if b > a]
    # Guessed from step 4 (two steps on one batch after the compile). Step 6's guess misses (the data
    # changed): two steps in a row on one batch are needed now, which steps 7-8 give; step 9's guess misses
    # too: four then, which runs of three never give. Back on one batch from step 18, guessing resumes after
    # four steps on it, at step 23.
    assert guessed == [4, 5, 6, 9] + list(range(23, 28))
    assert on[2]["used"] == on[2]["made"] + on[2]["guessed"] - 2  # (all but the two misses)


def _constant_batches(steps, ahead_by=0, extra_at=None, make=tj.constant):
    """``data(step)`` for _loop: each step's batch made by tj.constant as a loader's loop makes it, just before
    the step (or ``ahead_by`` steps earlier, prefetched); at step ``extra_at``, another constant of the
    inputs' shape is made first (an evaluation batch, not trained on). ``make`` converts each array."""
    rng = np.random.default_rng(7)
    raw = [(rng.standard_normal((5, 4)).astype(np.float32), rng.standard_normal((5, 2)).astype(np.float32))
           for _ in range(steps + ahead_by)]
    made = {}

    def data(step):
        if step == extra_at:
            made["eval"] = tj.constant(np.ones((5, 4), np.float32))
        for k in range(step, min(step + ahead_by, steps - 1) + 1):
            if k not in made:
                made[k] = tuple(make(a) for a in raw[k])
        return made.pop(step)
    return data


CONVERTERS = {"tj.constant": tj.constant, "tj.convert_to_tensor": tj.convert_to_tensor,
              "tj.numpy.asarray": tnp.asarray}


@pytest.mark.parametrize("make", sorted(CONVERTERS))
@pytest.mark.parametrize("ahead_by", [0, 2])
def test_batches_converted_from_numpy_are_guessed(ahead_by, make):
    """Each batch made from NumPy arrays by tj.constant, tj.convert_to_tensor or tj.numpy.asarray."""
    make = CONVERTERS[make]
    data = lambda: _constant_batches(STEPS, ahead_by, make=make)
    on = _loop(data=data())
    # Steps 3-4 launched at their last leaf; each read a new batch made by tj.constant, in the same places, so
    # from step 5 on each is launched as its tape starts, on the first batch made after the one before
    # (prefetched batches too).
    assert on[2] == {"made": 2, "guessed": STEPS - 5, "used": STEPS - 3}
    _assert_same(on, _loop(data=data(), replay_ahead=False))
    _assert_same(_loop(data=data(), replay_exact=True), _loop(data=data(), lazy=False, replay=False))


def test_a_constant_of_the_batch_shape_made_in_between_makes_one_wrong_guess():
    on = _loop(steps=12, data=_constant_batches(12, extra_at=6))
    _assert_same(on, _loop(steps=12, data=_constant_batches(12, extra_at=6), replay_ahead=False))
    # Steps 3-4 at their last leaf, step 5 as its tape starts. Step 6's guess takes the evaluation batch for
    # its inputs: not its call. Two steps alike are needed then (steps 6-7): step 7 is launched at its last
    # leaf, steps 8-11 as their tapes start.
    assert on[2] == {"made": 3, "guessed": 6, "used": 8}


def test_constants_made_by_another_thread_meanwhile():
    """A thread making Tensors with tj.constant all along (of other shapes: reading tj.constant's memory of
    them while it grows raises nothing) changes no value and leaves no launch unused: each thread numbers
    its Tensors in a block of its own, so the step record's names for the step's tensors (distances in ids)
    stay. (Whether a step is guessed depends on its batch still being among the last 32 tj.constant made.)"""
    stop = threading.Event()

    def loader():
        while not stop.is_set():
            tj.constant(np.zeros(3, np.float32))
            stop.wait(1e-3)
    t = threading.Thread(target=loader)
    t.start()
    try:
        on = _loop(steps=12, data=_constant_batches(12))
    finally:
        stop.set()
        t.join()
    _assert_same(on, _loop(steps=12, data=_constant_batches(12), replay_ahead=False))
    assert on[2]["used"] == 9 == on[2]["made"] + on[2].get("guessed", 0)  # (steps 3-11)


def test_batches_made_by_a_loader_thread():
    """A loader thread makes each batch with tj.constant, two ahead (a queue): launched as the training
    thread's tapes start, on the batch it takes next; values as without launches."""
    import queue

    def loader_data(steps):
        rng = np.random.default_rng(8)
        raw = [(rng.standard_normal((5, 4)).astype(np.float32), rng.standard_normal((5, 2)).astype(np.float32))
               for _ in range(steps)]
        q = queue.Queue(maxsize=2)
        t = threading.Thread(target=lambda: [q.put(tuple(tj.constant(a) for a in b)) for b in raw], daemon=True)
        t.start()
        return lambda step: q.get()
    on = _loop(steps=12, data=loader_data(12))
    assert on[2] == {"made": 2, "guessed": 7, "used": 9}
    _assert_same(on, _loop(steps=12, data=loader_data(12), replay_ahead=False))


def test_a_loop_of_one_step_on_the_same_data_is_launched_as_its_tape_starts():
    rng = np.random.default_rng(1)
    x = tj.constant(rng.standard_normal((5, 4)).astype(np.float32))
    y = tj.constant(rng.standard_normal((5, 2)).astype(np.float32))
    w = tj.Variable(rng.standard_normal((4, 2)).astype(np.float32))
    opt = tj.optimizers.Adam(0.05)
    at_start = []
    with tj.config.override(replay_background=False, replay_warmup=2):
        tj.deferred.replay.clear()
        for step in range(8):
            before = ahead.tally["guessed"]
            with tj.GradientTape() as tape:
                at_start.append(ahead.tally["guessed"] - before)  # (no op recorded yet)
                loss = tnp.mean((tnp.tanh(x @ w) - y) ** 2)
            opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
        # Another tape between two steps: the next step is not launched as its tape starts (at its first op).
        with tj.GradientTape() as other:
            other.watch(x)
            tnp.sum(x * 2.0)
        before = ahead.tally["guessed"]
        with tj.GradientTape() as tape:
            at_start.append(ahead.tally["guessed"] - before)
            loss = tnp.mean((tnp.tanh(x @ w) - y) ** 2)
            at_start.append(ahead.tally["guessed"] - before)
        opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
    # Step 2 compiles, step 3 is launched at its last leaf; it followed step 2, of its structure, on the
    # same data: steps 4-7 are guessed as their tapes start.
    assert at_start == [0, 0, 0, 0, 1, 1, 1, 1, 0, 1]


def _assigned_in_a_guessed_loop(where: str, **cfg):
    """A two-layer model on the same data every step, whose second weight is assigned a new value at step
    6, ``where``: "before" the step or "inside" it, after its first op (a launch guessed there) and before
    the weight is read. Returns what _loop does."""
    rng = np.random.default_rng(5)
    w1 = tj.Variable(rng.standard_normal((4, 8)).astype(np.float32))
    w2 = tj.Variable(rng.standard_normal((8, 2)).astype(np.float32))
    x = tj.constant(rng.standard_normal((5, 4)).astype(np.float32))
    y = tj.constant(rng.standard_normal((5, 2)).astype(np.float32))
    # (a device array, as the optimizer's: a NumPy one would be another kind of leaf, another step structure)
    half = jax.numpy.asarray(rng.standard_normal((8, 2)).astype(np.float32))
    opt = tj.optimizers.Adam(learning_rate=0.05)
    before = dict(ahead.tally)
    losses = []
    with tj.config.override(**{"replay_background": False, "replay_warmup": 2, **cfg}):
        tj.deferred.replay.clear()
        for step in range(10):
            if where == "before" and step == 6:
                w2.assign(half)
            with tj.GradientTape() as tape:
                h = tnp.tanh(x @ w1)
                if where == "inside" and step == 6:
                    w2.assign(half)
                loss = tnp.mean((h @ w2 - y) ** 2)
            opt.apply_gradients(zip(tape.gradient(loss, [w1, w2]), [w1, w2]))
            losses.append(np.asarray(loss.numpy()))
    return losses, [v.numpy() for v in [w1, w2] + opt.variables], _tally_since(before)


@pytest.mark.parametrize("where", ["before", "inside"])
def test_a_weight_assigned_before_a_guessed_step_or_in_it(where):
    on = _assigned_in_a_guessed_loop(where)
    _assert_same(on, _assigned_in_a_guessed_loop(where, replay_ahead=False))
    _assert_same(_assigned_in_a_guessed_loop(where, replay_exact=True),
                 _assigned_in_a_guessed_loop(where, lazy=False, replay=False))
    if where == "before":  # the guess reads the weight as it is at the step's first op: used
        assert on[2] == {"made": 1, "guessed": 6, "used": 7}
    else:  # step 6's guess is not its call: guessed again after two steps on the data (steps 8-9)
        assert on[2] == {"made": 2, "guessed": 5, "used": 6}


def test_a_weight_assigned_after_the_launch_gets_the_update_of_its_new_value():
    def between(step, loss, grads, params, opt):
        if step == 6:
            params[0].assign(params[0] * 0.5)  # the update must start from this value, not the one read
    on = _loop(between=between)
    _assert_same(on, _loop(between=between, replay_ahead=False))
    # Step 6's launch was not its call; step 6 made another fused call (the weight no longer one of the
    # step's arrays), whose forecast step 7 tries first (the latest), then the usual one: launched and used.
    assert on[2] == {"made": 5, "used": 4}


def test_a_learning_rate_changed_after_the_launch_is_the_one_used():
    def between(step, loss, grads, params, opt):
        if step >= 5:
            opt.learning_rate = 0.01 * step  # a Variable of the optimizer: a new value, a new array
    on = _loop(between=between)
    _assert_same(on, _loop(between=between, replay_ahead=False))
    assert on[2]["made"] > on[2]["used"]


def test_the_loss_read_before_the_update():
    seen, ref = [], []

    def between(step, loss, grads, params, opt):
        seen.append(float(loss.numpy()))  # (the step's program alone, or the launch's run)
    on = _loop(steps=12, between=between)
    _assert_same(on, _loop(steps=12, between=between, replay_ahead=False))
    # Step 2's update, on its own after the step ran for its loss, forecasts the next step's program and
    # update as one: steps 3-11 launched at their last leaf, their loss read from the launch, their update
    # the launched call.
    assert on[2] == {"made": 9, "used": 9}
    assert seen[:12] == seen[12:]  # (the losses read: with launches, then without)

    def sometimes(into):
        def between(step, loss, grads, params, opt):
            if step >= 6 and step % 2 == 0:  # (a loss printed now and then, before the update)
                into.append(float(loss.numpy()))
        return between
    seen = []
    on = _loop(steps=14, between=sometimes(seen))
    _assert_same(on, _loop(steps=14, between=sometimes(ref), replay_ahead=False))
    assert seen == ref
    # Launches from step 3 on, every one used: a loss read before the update comes from the launch, whose
    # call the update then makes.
    assert on[2] == {"made": 11, "used": 11}
    ref = []
    _assert_same(_loop(steps=14, between=sometimes([]), replay_exact=True),
                 _loop(steps=14, between=sometimes(ref), lazy=False, replay=False))


def test_a_gradient_read_before_the_update_leaves_the_launch_unused():
    def between(step, loss, grads, params, opt):
        if step in (6, 7):
            float(loss.numpy())  # (from the launch)
            grads[0].numpy()  # the step's program runs alone: the update is not the launched call
    on = _loop(steps=10, between=between)
    _assert_same(on, _loop(steps=10, between=between, replay_ahead=False))
    assert on[2] == {"made": 7, "used": 5}, on[2]


def test_an_error_after_the_launch_leaves_every_variable_as_it_was():
    rng = np.random.default_rng(0)
    w = tj.Variable(rng.standard_normal((4, 2)).astype(np.float32), name="w")
    opt = tj.optimizers.Adam(learning_rate=0.05)
    x = tj.constant(rng.standard_normal((5, 4)).astype(np.float32))
    y = tj.constant(rng.standard_normal((5, 2)).astype(np.float32))

    def step(fail=False):
        with tj.GradientTape() as tape:
            d = x @ w - y
            loss = tnp.mean(d ** 2)  # (y is the last leaf: the launch is made at its op, d)
            if fail:
                raise RuntimeError("user error after the launch")
        opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
    with tj.config.override(replay_background=False):
        tj.deferred.replay.clear()
        for _ in range(6):
            step()
        made = ahead.tally["made"] + ahead.tally["guessed"]
        values = [v.numpy() for v in [w] + opt.variables]
        with pytest.raises(RuntimeError, match="user error"):
            step(fail=True)
        assert ahead.tally["made"] + ahead.tally["guessed"] == made + 1
        for v, before in zip([w] + opt.variables, values):
            np.testing.assert_array_equal(v.numpy(), before)
        used = ahead.tally["used"]
        step()
        step()
        assert ahead.tally["used"] == used + 2  # the loop goes on launching ahead


def test_turned_off_no_launch_is_made():
    assert _loop(replay_ahead=False)[2] == {"made": 0, "used": 0}


def _two_models(seed: int, second_optimizer, **cfg):
    """Two models trained in turn for 8 rounds (a GAN's pattern), the first with Adam, the second with
    ``second_optimizer()``. Returns the final values of both and of both optimizers' state, and how many
    launches were made and used."""
    rng = np.random.default_rng(seed)
    a = tj.Variable(rng.standard_normal((3, 3)).astype(np.float32))
    b = tj.Variable(rng.standard_normal((3, 1)).astype(np.float32))
    oa, ob = tj.optimizers.Adam(0.1), second_optimizer()
    x = tj.constant(rng.standard_normal((4, 3)).astype(np.float32))
    before = dict(ahead.tally)
    with tj.config.override(**{"replay_background": False, **cfg}):
        tj.deferred.replay.clear()
        for _ in range(8):
            with tj.GradientTape() as t:
                la = tnp.sum(tnp.tanh(x @ a) ** 2)
            oa.apply_gradients(zip(t.gradient(la, [a]), [a]))
            with tj.GradientTape() as t:
                lb = tnp.sum((x @ b) ** 2)
            ob.apply_gradients(zip(t.gradient(lb, [b]), [b]))
    return [v.numpy() for v in [a, b] + oa.variables + ob.variables], _tally_since(before)


def _tally_since(before: dict) -> dict:
    """Launches made (at the last leaf, and guessed at the first: ahead.py) and used since ``before``; a
    kind none was made of is left out."""
    counts = {k: ahead.tally[k] - before.get(k, 0) for k in ("made", "guessed", "used")}
    if not counts["guessed"]:
        del counts["guessed"]
    return counts


def test_two_optimizers_alternating_are_each_launched_ahead():
    """Two models trained in turn (a GAN's pattern): a forecast per step structure, each step launched at
    its own last leaf; values as without launches."""
    momentum = lambda: tj.optimizers.SGD(0.1, momentum=0.9)
    got, counts = _two_models(2, momentum)
    # (rounds 0-1 warm up, round 2 compiles both: rounds 3-7 launch both steps)
    assert counts == {"made": 10, "used": 10}
    for p, q in zip(got, _two_models(2, momentum, replay_ahead=False)[0]):
        np.testing.assert_array_equal(p, q)


def test_a_forecast_belongs_to_its_thread():
    _loop()
    assert len(ahead.forecasts()) == 1
    other = []
    t = threading.Thread(target=lambda: other.append(ahead.forecasts()))
    t.start()
    t.join()
    assert other == [[]]
    tj.deferred.replay.clear()
    assert ahead.forecasts() == []


def _sgd_by_hand(steps=STEPS, update=None, **cfg):
    """The two-layer model trained with an update written by hand (``update(v, g)`` per Variable; default
    ``v.assign_sub(0.05 * g)``), each step read at its end (``numpy()``: what runs the fused program)."""
    rng = np.random.default_rng(3)
    w1 = tj.Variable(rng.standard_normal((4, 8)).astype(np.float32), name="w1")
    w2 = tj.Variable(rng.standard_normal((8, 2)).astype(np.float32), name="w2")
    extra = [tj.Variable(np.zeros((4, 8), np.float32)), tj.Variable(np.zeros((8, 2), np.float32))]
    params = [w1, w2]
    update = update or (lambda v, g, m: v.assign_sub(0.05 * g))
    before = dict(ahead.tally)
    losses = []
    with tj.config.override(**{"replay_background": False, "replay_warmup": 2, **cfg}):
        tj.deferred.replay.clear()
        for step in range(steps):
            x = tj.constant(rng.standard_normal((5, 4)).astype(np.float32))
            y = tj.constant(rng.standard_normal((5, 2)).astype(np.float32))
            with tj.GradientTape() as tape:
                loss = tnp.mean((tnp.tanh(x @ w1) @ w2 - y) ** 2)
            for v, g, m in zip(params, tape.gradient(loss, params), extra):
                update(v, g, m)
            losses.append(np.asarray(loss.numpy()))
    counts = _tally_since(before)
    return losses, [v.numpy() for v in params + extra], counts


def test_an_update_written_by_hand_is_launched_ahead_too():
    on, off = _sgd_by_hand(), _sgd_by_hand(replay_ahead=False)
    _assert_same(on, off)
    assert off[2] == {"made": 0, "used": 0}
    # Steps 3-4 launched at their last leaf; each read a new batch tj.constant made, in the same places, so
    # from step 5 on each is launched as its tape starts, on the batch made after the one before.
    assert on[2] == {"made": 2, "guessed": STEPS - 5, "used": STEPS - 3}
    _assert_same(_sgd_by_hand(replay_exact=True), _sgd_by_hand(lazy=False, replay=False))


def test_momentum_by_hand_computed_before_the_update_is_never_the_same_call():
    """``m.assign(0.9 * m + g)``: ``0.9 * m`` runs at once (no pending value in it), a new array each
    step, so no launch matches and, three unused in a row (steps 3-4 at their last leaf, step 5 on a guess),
    none is made; values as without launches."""
    def momentum(v, g, m):
        m.assign(0.9 * m + g)
        v.assign_sub(0.05 * m)
    on = _sgd_by_hand(steps=12, update=momentum)
    _assert_same(on, _sgd_by_hand(steps=12, update=momentum, replay_ahead=False))
    assert on[2] == {"made": 2, "guessed": 1, "used": 0}


def test_a_failing_launch_is_no_launch(monkeypatch):
    """An early run that raises (here: the compiled call, once) leaves the step to make its call as usual."""
    from tapejax.deferred import pending
    real = pending._Fused.__call__
    calls = []

    def fails_once_ahead(self, *args):
        calls.append(1)
        if len(calls) == 2:  # (the first fused call is step 2's own; the second the launch of step 3)
            raise RuntimeError("device busy on purpose")
        return real(self, *args)
    monkeypatch.setattr(pending._Fused, "__call__", fails_once_ahead)
    on = _loop()
    _assert_same(on, _loop(replay_ahead=False))
    assert on[2] == {"made": STEPS - 4, "used": STEPS - 4}


def test_programs_dropped_from_the_cache_leave_values_as_without_launches():
    """Two step structures in turn with room for one program: each compile evicts the other's (until one
    is no longer compiled: replay's thrashing rule), so forecasts name programs the steps may no longer
    call; values as without launches, and only the kept structure's launches are used."""
    adam = lambda: tj.optimizers.Adam(0.1)
    small_cache = {"replay_cache_size": 1, "replay_warmup": 0}
    got, counts = _two_models(4, adam, **small_cache)
    assert 0 < counts["used"] < 8 and counts["used"] <= counts["made"], counts
    for p, q in zip(got, _two_models(4, adam, replay_ahead=False, **small_cache)[0]):
        np.testing.assert_array_equal(p, q)


def _twins(**cfg):
    """Two models of one architecture (the same step structure) trained in turn on the same data, each with
    its own Adam. The first op reads only the data (``x * 2.0``): a guess made from the other model's step
    would match it there."""
    rng = np.random.default_rng(6)
    models = [[tj.Variable(rng.standard_normal((4, 3)).astype(np.float32))] for _ in range(2)]
    opts = [tj.optimizers.Adam(0.05), tj.optimizers.Adam(0.05)]
    x = tj.constant(rng.standard_normal((5, 4)).astype(np.float32))
    y = tj.constant(rng.standard_normal((5, 3)).astype(np.float32))
    before = dict(ahead.tally)
    with tj.config.override(**{"replay_background": False, "replay_warmup": 2, **cfg}):
        tj.deferred.replay.clear()
        for _ in range(8):
            for params, opt in zip(models, opts):
                with tj.GradientTape() as tape:
                    loss = tnp.mean((tnp.tanh((x * 2.0) @ params[0]) - y) ** 2)
                opt.apply_gradients(zip(tape.gradient(loss, params), params))
    return [v.numpy() for ps, o in zip(models, opts) for v in ps + o.variables], _tally_since(before)


def test_two_models_of_one_architecture_in_turn_are_launched_but_never_guessed():
    got, counts = _twins()
    # A forecast per program: each model's step tries both (the other's launch is not made: its weights are
    # not the step's), and neither guesses (the data-only first op would match the other's guess): from
    # round 2 on, both steps launched at their last leaf.
    assert counts == {"made": 12, "used": 12}, counts
    for a, b in zip(got, _twins(replay_ahead=False)[0]):
        np.testing.assert_array_equal(a, b)


def _switched_optimizer(**cfg):
    """One model on the same data, trained with one Adam for 8 steps and another from step 8 (the same step
    structure, another fused program). Returns the values and the launches, and for each step whether it was
    launched as its tape started."""
    rng = np.random.default_rng(7)
    w = tj.Variable(rng.standard_normal((4, 3)).astype(np.float32))
    x = tj.constant(rng.standard_normal((5, 4)).astype(np.float32))
    y = tj.constant(rng.standard_normal((5, 3)).astype(np.float32))
    opts = [tj.optimizers.Adam(0.05), tj.optimizers.Adam(0.01)]
    before = dict(ahead.tally)
    at_start = []
    with tj.config.override(**{"replay_background": False, "replay_warmup": 2, **cfg}):
        tj.deferred.replay.clear()
        for step in range(16):
            n = ahead.tally["guessed"]
            with tj.GradientTape() as tape:
                at_start.append(ahead.tally["guessed"] - n)
                loss = tnp.mean((tnp.tanh(x @ w) - y) ** 2)
            opts[step >= 8].apply_gradients(zip(tape.gradient(loss, [w]), [w]))
    return [v.numpy() for v in [w] + opts[0].variables + opts[1].variables], _tally_since(before), at_start


def test_a_program_no_longer_used_does_not_keep_its_structure_from_being_guessed():
    got, counts, at_start = _switched_optimizer()
    for a, b in zip(got, _switched_optimizer(replay_ahead=False)[0]):
        np.testing.assert_array_equal(a, b)
    # Steps 4-8 are launched as their tapes start (step 8's launch is the first optimizer's call, not its own);
    # step 9 at its last leaf (the second optimizer's first forecast); from step 10 on as their tapes start:
    # the first optimizer's forecast, older than the second's, was dropped at step 9.
    assert at_start == [0] * 4 + [1] * 5 + [0] + [1] * 6, at_start
    assert counts["used"] == counts["made"] + counts["guessed"] - 1, counts


def test_a_step_whose_gradients_are_clipped_is_launched_ahead():
    """tape.gradient, tj.clip_by_global_norm, apply_gradients: the clipping and the update join the step's
    program (deferred/pending.py), whose next call is dispatched ahead like any fused step."""
    rng = np.random.default_rng(1)
    x = tj.constant(rng.standard_normal((5, 4)).astype(np.float32))
    y = tj.constant(rng.standard_normal((5, 2)).astype(np.float32))
    clipped = lambda step, loss, grads, params, opt: grads.__setitem__(  # noqa: E731
        slice(None), tj.clip_by_global_norm(grads, 0.5)[0])
    on = _loop(data=lambda step: (x, y), between=clipped)
    _assert_same(on, _loop(data=lambda step: (x, y), between=clipped, replay_ahead=False))
    _assert_same(_loop(data=lambda step: (x, y), between=clipped, replay_exact=True),
                 _loop(data=lambda step: (x, y), between=clipped, lazy=False, replay=False))
    assert on[2]["used"] >= STEPS - 4 and on[2]["used"] == on[2]["made"] + on[2].get("guessed", 0), on[2]


def _read_loss_loop(seed: int, out: dict, **cfg) -> None:
    """A model trained with Adam, its loss read before every update; its losses and weights into ``out``."""
    rng = np.random.default_rng(seed)
    w = tj.Variable(rng.standard_normal((4, 3)).astype(np.float32))
    x = tj.constant(rng.standard_normal((5, 4)).astype(np.float32))
    y = tj.constant(rng.standard_normal((5, 3)).astype(np.float32))
    opt = tj.optimizers.Adam(0.05)
    losses = []
    with tj.config.override(**{"replay_background": False, "replay_warmup": 2, **cfg}):
        for _ in range(10):
            with tj.GradientTape() as tape:
                loss = tnp.mean((tnp.tanh(x @ w) - y) ** 2)
            grads = tape.gradient(loss, [w])
            losses.append(float(loss.numpy()))
            opt.apply_gradients(zip(grads, [w]))
    out[seed] = (losses, w.numpy())


def test_loops_reading_their_loss_in_two_threads():
    """Each thread's steps forecast their own next step; the step whose record a forecast after its update
    needs is held once for the process, so the other thread may take it away first: then no forecast, never
    an error, values as each loop alone without launches."""
    got, want = {}, {}
    threads = [threading.Thread(target=_read_loss_loop, args=(seed, got)) for seed in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for seed in (1, 2):
        _read_loss_loop(seed, want, replay_ahead=False)
        assert got[seed][0] == want[seed][0]
        np.testing.assert_array_equal(got[seed][1], want[seed][1])
