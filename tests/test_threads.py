"""The tape set is per thread: tapes and accumulators of one thread never see another thread's ops, and
two threads recording and differentiating at once get correct, independent gradients."""
from __future__ import annotations

import sys
import threading

import numpy as np
import pytest

import tapejax as tj
from tapejax import tape_set

tnp = tj.numpy
ITERS = 150


@pytest.fixture(autouse=True)
def fast_switching():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: interleave the two tapes' ops
    yield
    sys.setswitchinterval(old)


def _run_threads(*targets):
    errors = []

    def wrap(f):
        def run():
            try:
                f()
            except BaseException as e:  # noqa: BLE001 - reported to the main thread
                errors.append(e)
        return run
    threads = [threading.Thread(target=wrap(f)) for f in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    if errors:
        raise errors[0]


def test_two_threads_record_and_differentiate_at_once():
    barrier = threading.Barrier(2)
    rng = np.random.default_rng(0)
    xa = rng.standard_normal((4, 3)).astype(np.float32)
    xb = rng.standard_normal((5,)).astype(np.float32)

    def worker_a():
        for i in range(ITERS):
            x = tj.constant(xa + i)
            barrier.wait()
            with tj.GradientTape() as t:
                t.watch(x)
                assert len(tape_set.current().tapes) == 1
                y = tnp.sum(x * x * 3.0)
            g = t.gradient(y, x)
            np.testing.assert_allclose(g.numpy(), 6.0 * (xa + i), rtol=1e-5)

    def worker_b():
        for i in range(ITERS):
            x = tj.constant(xb * i)
            barrier.wait()
            with tj.GradientTape(persistent=True) as t:
                t.watch(x)
                assert len(tape_set.current().tapes) == 1
                y = tnp.sum(tnp.sin(x))
                z = tnp.mean(x)
            np.testing.assert_allclose(t.gradient(y, x).numpy(), np.cos(xb * i), rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(t.gradient(z, x).numpy(), np.full(5, 0.2), rtol=1e-6)
    _run_threads(worker_a, worker_b)
    assert tape_set.current().tapes == []


def test_nested_tapes_and_accumulators_in_two_threads():
    def second_order(seed):
        def run():
            for i in range(ITERS // 3):
                v = np.float32(0.1 * i + seed)
                x = tj.constant(v)
                with tj.GradientTape() as outer:
                    outer.watch(x)
                    with tj.GradientTape() as inner:
                        inner.watch(x)
                        y = x ** 3
                    dy = inner.gradient(y, x)
                d2 = outer.gradient(dy, x)
                np.testing.assert_allclose(float(d2), 6 * v, rtol=1e-5)
                with tj.ForwardAccumulator(x, tj.constant(np.float32(1.0))) as acc:
                    z = tnp.exp(x * seed)
                np.testing.assert_allclose(float(acc.jvp(z)), seed * np.exp(v * seed), rtol=1e-5)
                assert tape_set.current().accumulators == []
        return run
    _run_threads(second_order(1.0), second_order(2.0))


def test_tape_of_one_thread_does_not_record_another_threads_ops():
    x = tj.constant([1.0, 2.0])
    other = {}
    entered = threading.Event()
    done = threading.Event()

    def worker():
        entered.wait(30)
        other["y"] = x * 5.0  # while the main thread's tape is active
        other["tapes"] = list(tape_set.current().tapes)
        done.set()
    th = threading.Thread(target=worker)
    th.start()
    with tj.GradientTape() as t:
        t.watch(x)
        entered.set()
        done.wait(30)
        mine = x * 2.0
    th.join(30)
    assert other["tapes"] == []
    # the other thread's op is not on the main tape: its gradient is None; the main thread's op is
    gy = t.gradient([other["y"], mine], [x])
    with tj.GradientTape(persistent=True) as t2:
        t2.watch(x)
        mine2 = x * 2.0
    assert t2.gradient(other["y"], x) is None
    np.testing.assert_allclose(t2.gradient(mine2, x).numpy(), [2.0, 2.0])
    np.testing.assert_allclose(gy[0].numpy(), [2.0, 2.0])  # only `mine` contributed, not x * 5


def test_function_called_from_two_threads():
    v = tj.Variable([1.0, 2.0])

    @tj.function
    def f(x):
        with tj.GradientTape() as t:
            t.watch(x)
            y = tnp.sum(x * x * v)
        return t.gradient(y, x)

    def run(scale):
        def go():
            for i in range(40):
                x = tj.constant([scale * i, scale])
                np.testing.assert_allclose(f(x).numpy(), 2 * np.array([scale * i, scale]) * [1.0, 2.0], rtol=1e-5)
                assert tape_set.current().capture is None
        return go
    _run_threads(run(1.0), run(3.0))



def test_variable_read_in_one_thread_while_another_traces_an_assignment():
    # Inside a trace a Variable reads as the trace's value (its assignment earlier in the call); another thread
    # reading the same Variable meanwhile gets its stored value, and after the trace nothing is left counted
    # (tape_set.captures_open: a Variable's read skips the thread's state only while no trace captures).
    v = tj.Variable([1.0, 2.0])
    inside, release = threading.Event(), threading.Event()

    @tj.function
    def f():
        v.assign(v * 10.0)
        seen = v.read_value()
        inside.set()
        release.wait(60)  # (at trace time: the other thread reads while this trace holds its capture)
        return seen + v

    def tracer():
        np.testing.assert_allclose(f().numpy(), [20.0, 40.0])

    def reader():
        assert inside.wait(60)
        try:
            assert tape_set.captures_open >= 1
            np.testing.assert_allclose(v.numpy(), [1.0, 2.0])
            np.testing.assert_allclose(tnp.sum(v).numpy(), 3.0)
        finally:
            release.set()
    _run_threads(tracer, reader)
    np.testing.assert_allclose(v.numpy(), [10.0, 20.0])
    assert tape_set.captures_open == 0

def test_stop_recording_is_per_thread():
    x = tj.constant([1.0, 2.0])
    ready, go_on = threading.Event(), threading.Event()
    seen = {}

    def worker():
        with tj.stop_recording():
            ready.set()
            go_on.wait(30)
            seen["stopped"] = tape_set.current().stopped
    th = threading.Thread(target=worker)
    th.start()
    ready.wait(30)
    with tj.GradientTape() as t:
        t.watch(x)
        y = x * x
    go_on.set()
    th.join(30)
    assert seen["stopped"] == 1 and tape_set.current().stopped == 0
    np.testing.assert_allclose(t.gradient(y, x).numpy(), [2.0, 4.0])


def test_config_is_per_thread_and_starts_from_the_main_threads_values():
    """tj.config: values the main thread set are where a new thread starts (not the library defaults);
    a thread's own changes, and a `with tj.config.aggregation(...)` block in it, stay its own."""
    cfg = tj.config
    old = (cfg.aggregation_min_count, cfg.replay_warmup, cfg.lazy, cfg.aggregation_min_bytes)
    seen = {}
    try:
        cfg.aggregation_min_count = 7
        cfg.replay_warmup = 5
        cfg.aggregation_min_bytes = 12345

        def first():
            seen["first"] = (cfg.aggregation_min_count, cfg.replay_warmup, cfg.aggregation_min_bytes, cfg.lazy)
            cfg.lazy = False  # this thread's own
            cfg.aggregation_min_count = 99
            with cfg.aggregation(min_count=1, min_bytes=1):
                seen["block"] = (cfg.aggregation_min_count, cfg.aggregation_min_bytes)
            seen["after"] = (cfg.aggregation_min_count, cfg.aggregation_min_bytes, cfg.lazy)

        def second():
            seen["second"] = (cfg.aggregation_min_count, cfg.replay_warmup, cfg.aggregation_min_bytes, cfg.lazy)

        _run_threads(first)
        _run_threads(second)
        assert seen["first"] == (7, 5, 12345, old[2])
        assert seen["block"] == (1, 1) and seen["after"] == (99, 12345, False)
        # The first thread's changes reached neither the main thread nor a later thread.
        assert (cfg.aggregation_min_count, cfg.lazy) == (7, old[2])
        assert seen["second"] == (7, 5, 12345, old[2])
    finally:
        cfg.aggregation_min_count, cfg.replay_warmup, cfg.lazy = old[:3]
        cfg.aggregation_min_bytes = old[3]
