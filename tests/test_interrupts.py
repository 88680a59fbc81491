"""Ctrl-C (SIGINT) while Variables change: a KeyboardInterrupt lands before or after a group of Variable
updates, never inside it (tapejax/interrupts.py). Each test raises a real SIGINT at the worst moment (right after
an update's program is dispatched, or after its first store) with Python's default handler installed, and checks
that every Variable is readable and holds the value an uninterrupted run gives, and that the KeyboardInterrupt
still reaches the caller. A SIGINT that comes as a Tensor's finalizer starts is raised again, not lost. (Random
Ctrl-Cs in whole training loops: tools/interrupt_soak.py.)"""
from __future__ import annotations

import _thread
import signal
import sys
import threading
import time
import weakref

import numpy as np
import pytest

import tapejax as tj
from tapejax import interrupts
from tapejax.tensor import Variable
from tapejax.train.checkpoint import Checkpoint


@pytest.fixture(autouse=True)
def default_sigint():
    """Python's own SIGINT handler (a test runner's worker may ignore SIGINT), put back after."""
    before = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def _interrupt_after(monkeypatch, owner, name: str, calls: int = 1):
    """Make ``owner.name`` send this process a SIGINT once its ``calls``-th call has returned (never with 0);
    returns the list holding its count of calls."""
    real = getattr(owner, name)
    count = [0]

    def patched(*args, **kwargs):
        out = real(*args, **kwargs)
        count[0] += 1
        if count[0] == calls:
            signal.raise_signal(signal.SIGINT)
        return out
    monkeypatch.setattr(owner, name, patched)
    return count


def _values(variables):
    return [np.asarray(v.numpy()) for v in variables]


def test_a_sigint_inside_the_block_raises_when_it_ends():
    done = []
    with pytest.raises(KeyboardInterrupt):
        with interrupts.held():
            signal.raise_signal(signal.SIGINT)
            done.append("after the signal")  # (the block goes on)
            done.append("to its end")
    assert done == ["after the signal", "to its end"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # (the handler is put back)
    with interrupts.held():  # nothing caught: nothing raised
        done.append("quiet")
    assert done[-1] == "quiet"


def test_held_false_and_other_threads_hold_nothing():
    with pytest.raises(KeyboardInterrupt):
        with interrupts.held(False):
            signal.raise_signal(signal.SIGINT)
            for _ in range(1000):  # (the handler runs at the next bytecode check: inside the block)
                pass
        pytest.fail("held(False) held the interrupt back")  # pragma: no cover
    seen = []

    def in_thread():  # (only the main thread runs Python's signal handlers: nothing to swap, no error)
        with interrupts.held():
            seen.append(signal.getsignal(signal.SIGINT))
    t = threading.Thread(target=in_thread)
    t.start()
    t.join()
    assert seen == [signal.default_int_handler]


def test_nested_blocks_and_a_handler_of_the_users_own():
    calls = []

    def mine(signum, frame):
        calls.append(signum)
    signal.signal(signal.SIGINT, mine)
    with interrupts.held():
        with interrupts.held():
            signal.raise_signal(signal.SIGINT)
        assert calls == []  # (the outer block still holds it)
    assert calls == [signal.SIGINT]  # the user's handler, once, after the outer block
    assert signal.getsignal(signal.SIGINT) is mine
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with interrupts.held():  # (SIGINT ignored: nothing to hold, nothing swapped)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def _adam_setup():
    rng = np.random.default_rng(0)
    ws = [tj.Variable(rng.normal(size=(4, 3)).astype(np.float32)), tj.Variable(np.zeros(3, np.float32))]
    x = tj.constant(rng.normal(size=(5, 4)).astype(np.float32))
    return ws, x, tj.optimizers.Adam(0.1)


def _adam_step(ws, x, opt):
    with tj.GradientTape() as tape:
        loss = tj.numpy.sum(tj.numpy.tanh(x @ ws[0] + ws[1]) ** 2)
    grads = tape.gradient(loss, ws)
    opt.apply_gradients(zip(grads, ws))


@pytest.mark.parametrize("where", ["after the dispatch", "after the first store"])
def test_an_interrupted_donating_update_stores_every_new_value(monkeypatch, where):
    tj.config.replay = False  # (each update its own compiled call, donating the old buffers)
    ref_ws, ref_x, ref_opt = _adam_setup()
    ws, x, opt = _adam_setup()
    for _ in range(3):
        _adam_step(ref_ws, ref_x, ref_opt)
    for _ in range(2):  # (the update has run: compiled)
        _adam_step(ws, x, opt)
    # (the donating update runs: the case where stopping halfway left every Variable a deleted buffer)
    donating = _interrupt_after(monkeypatch, opt, "_step_donating", 1 if where == "after the dispatch" else 0)
    if where == "after the first store":
        _interrupt_after(monkeypatch, Variable, "write_back")
    with pytest.raises(KeyboardInterrupt):
        _adam_step(ws, x, opt)
    monkeypatch.undo()
    assert donating == [1] and opt.last_update == "one compiled update"
    for got, want in zip(_values(ws + opt.variables), _values(ref_ws + ref_opt.variables)):
        np.testing.assert_array_equal(got, want)
    _adam_step(ws, x, opt)  # and training goes on
    assert int(opt.iterations.numpy()) == 4


def test_an_interrupted_tj_function_writes_back_every_assignment(monkeypatch):
    def make():
        vs = [tj.Variable(np.float32(1.0)), tj.Variable(np.float32(2.0)), tj.Variable(np.float32(3.0))]

        @tj.function
        def bump(d):
            for v in vs:
                v.assign_add(d)
            return vs[0] * 1.0
        return vs, bump
    vs, bump = make()
    bump(tj.constant(1.0))  # (traced, compiled, run once)
    _interrupt_after(monkeypatch, Variable, "write_back")
    with pytest.raises(KeyboardInterrupt):
        bump(tj.constant(1.0))
    monkeypatch.undo()
    assert [float(v.numpy()) for v in vs] == [3.0, 4.0, 5.0]


def test_an_interrupted_restore_assigns_every_variable(monkeypatch, tmp_path):
    saved = [tj.Variable(np.arange(3, dtype=np.float32), name="a"), tj.Variable(np.float32(7.0), name="b")]
    path = Checkpoint(a=saved[0], b=saved[1]).save(str(tmp_path / "ckpt"))
    into = [tj.Variable(np.zeros(3, np.float32), name="a"), tj.Variable(np.float32(0.0), name="b")]
    _interrupt_after(monkeypatch, Variable, "assign")
    with pytest.raises(KeyboardInterrupt):
        Checkpoint(a=into[0], b=into[1]).restore(path)
    monkeypatch.undo()
    for got, want in zip(_values(into), _values(saved)):
        np.testing.assert_array_equal(got, want)


class _SigintRef(weakref.ref):
    """A weak reference whose callback, ``_thread.interrupt_main`` (C code that only marks the signal as arrived),
    is given SIGINT's number by ``__index__``: as its referent dies, SIGINT arrives with no Python check before the
    next finalizer starts."""

    def __index__(self):
        return int(signal.SIGINT)


class _Referent:
    pass


@pytest.fixture
def redelivering(monkeypatch):
    """tapejax's hook, as importing tapejax installs it (pytest puts a hook of its own around each test)."""
    monkeypatch.setattr(interrupts, "_previous_hook", sys.unraisablehook)
    monkeypatch.setattr(sys, "unraisablehook", interrupts.redeliver)


def test_importing_tapejax_installs_the_hook():
    import subprocess
    code = "import sys, tapejax.interrupts as i; assert sys.unraisablehook is i.redeliver"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_sigint_as_a_tensor_dies_is_raised_again_not_lost(redelivering):
    trigger = _Referent()
    ref = _SigintRef(trigger, _thread.interrupt_main)
    dying = [tj.constant(1.0), trigger]  # (a list drops its last item first: the signal, then the Tensor)
    caught = []
    try:
        del trigger
        dying.clear()  # the Tensor's finalizer starts with the signal pending: Python cannot raise it there
        for _ in range(100):  # (redelivered by a thread that runs once this one lets the GIL go)
            time.sleep(0.005)
    except KeyboardInterrupt:
        caught.append(True)
    assert caught == [True] and ref() is None


def test_other_unraisable_exceptions_go_to_the_hook_before(redelivering, monkeypatch):
    seen = []
    monkeypatch.setattr(interrupts, "_previous_hook", seen.append)

    class Failing:
        def __del__(self):
            raise ValueError("from a finalizer")
    Failing()
    assert [type(u.exc_value) for u in seen] == [ValueError]
