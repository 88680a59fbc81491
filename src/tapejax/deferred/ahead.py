"""Dispatching a recurring fused training step ahead: its compiled program starts as soon as its inputs
are known, and Python records the rest of the step while the device runs it.

An eager step fused with its update (deferred/pending.py: an optimizer's, at ``apply_gradients``; one
written by hand, at the first read after it) is one dispatch made after Python has recorded the whole
forward pass, asked for the gradient and recorded the update; until then the device waits. After such
a step, a ``Forecast`` says what the next one will likely call: the same fused program, on the arrays
the next step's deferred ops read (its step record's leaves, all of them known once the op that read
the last one is recorded: ``at``) and on the update's own arguments as they are then (``launch`` reads
them: the optimizer's state, the Variables a hand-written update assigns). When the next step's record
reaches ``at`` with the same tokens so far and as many leaves, the program is dispatched there (a
``Launch``). The step goes on as it would, and where the fused call is made, the launch's results are
taken if it made that very call, the same compiled program with the same array objects (arrays are
immutable: the same values). Anything else (a different step, a Variable assigned or a learning rate
changed meanwhile, a gradient read before the update) makes the call as usual, and the launch's results
are dropped: values are never those of a guess, a wrong guess costs one discarded run. A forward value
read before the update (the loss, printed) is the launch's when it runs the step's program on the step's
arrays (``Launch.runs``). Three launches in a row that no step used stop launches of that program.

A step that reads the same data arrays every step (full-batch training: the same inputs and labels, only
the weights change) can be launched earlier still, at its first op that reads an array: its other leaves
are guessed, the update's parameters as they are then and the rest the arrays the step before read
(``Forecast.then`` is the launch once all leaves are known, made instead when the guess does not hold for
the leaves read so far). A forecast guesses only after two steps in a row read the same data arrays
(``Forecast.data``) with the same program; after a guess that a step did not use, that program guesses
again only after twice as many such steps in a row (pending.py's ``_Fused``). A step whose tape follows two steps of that program in a row (a loop of one step: no other tape
between) is launched on that guess as soon as its tape starts. A thread keeps the forecasts of its last
``MAX_FORECASTS`` programs (steps of two models trained in turn, a GAN's, each have theirs): a step tries
each forecast of its structure in turn, and two models of one architecture (the same structure, not the
same program) are launched at their last leaf, where their Variables tell them apart, never on a guess.

On a GPU or TPU a launch costs the host about as much as the device's run of a small step (XLA enqueues
each of the program's kernels: ~0.2-0.4 ms for these steps on an H200, more than jax.jit's whole step takes
there), and Python cannot record the step meanwhile. There a launch is made from a worker thread
(``tj.config.replay_ahead_thread``; one thread, launches in order): jax releases the GIL while it enqueues,
so the recording goes on. Its results are waited for where they are taken (``Launch.result``); one that
failed is no launch. A launch holds its arguments until it is made, so no update donates a buffer one in
flight reads (an optimizer donates only buffers nothing but its Variables holds).

Off with ``tj.config.replay_ahead = False``; never with several processes (a launch nobody uses would
leave the others' collectives unpaired).
"""
from __future__ import annotations

import collections
import os
import queue
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

import jax

from ..config import config

_state = threading.local()  # .forecasts: {tokens: Forecast} of this thread's steps, the latest last
MAX_FORECASTS = 4
# Calls made ahead ("made") and those a step used ("used"): what tests and diagnostics read.
tally: "collections.Counter[str]" = collections.Counter()


class Forecast:
    """The fused call the next step is expected to make: it is made once that step's record holds
    ``at`` tokens equal to the first ones of ``tokens`` and ``n_leaves`` leaves (``launch(leaves)``
    dispatches it, or returns None when it cannot be made now; ``then``, when given, is the forecast to
    follow in that case). ``data``: the ids of the leaves of the step forecast from that its update does
    not give the next step (what a guess of the next step's leaves takes as they were)."""

    __slots__ = ("tokens", "at", "n_leaves", "launch", "then", "data", "uid", "again", "owner")

    def __init__(self, tokens: tuple, at: int, n_leaves: int, launch: Callable[[list], Optional["Launch"]],
                 then: Optional["Forecast"] = None, data: tuple = (), uid: int = 0, again: bool = False,
                 owner: Any = None) -> None:
        self.tokens, self.at, self.n_leaves, self.launch = tokens, at, n_leaves, launch
        self.then, self.data = then, data
        # The step forecast from: its record's uid, whether the tape before it was a step of the same structure
        # and program, and that program (two models of one architecture trained in turn share the structure,
        # not the program: neither guesses the other's call).
        self.uid, self.again, self.owner = uid, again, owner


class Launch:
    """A fused call made ahead: the callee (``fused``), its arguments (leaves, output gradients, the
    program's extra arguments, the update's own arrays) and what it returned (``result``; made now, or by
    the worker thread when ``call`` is given: ``result`` then waits for it)."""

    __slots__ = ("fused", "leaves", "og", "extra", "own", "_result", "guessed", "_done", "_failed")

    def __init__(self, fused, leaves: Sequence[Any], og: Sequence[Any], extra: tuple, own: Sequence[Any],
                 result=None, guessed: bool = False, call: Optional[Callable[[], Any]] = None) -> None:
        self.fused, self.leaves, self.og, self.extra, self.own = fused, tuple(leaves), tuple(og), extra, tuple(own)
        self._result, self.guessed = result, guessed  # (guessed: made before all its leaves were read)
        self._failed = False
        self._done = None
        if call is not None:
            self._done = threading.Event()
            _submit(self, call)

    @property
    def result(self):
        """What the call returned (waiting for the worker thread to have made it)."""
        if self._done is not None:
            self._done.wait()
        return self._result

    def failed(self) -> bool:
        """Whether the call raised (in the worker thread; one made here raises to its maker): no launch."""
        if self._done is not None:
            self._done.wait()
        return self._failed

    def runs(self, program, leaves: Sequence[Any], og: Sequence[Any]) -> bool:
        """Whether this launch runs the replay ``program`` (with an update after it) on the arguments ``(leaves,
        og)``: the same program, array objects and output gradients; what it computes of the step then is
        the step's (its forward values, its gradients)."""
        return (self.extra is program.extra and _same(leaves, self.leaves) and _same(og, self.og)
                and any(f is self.fused for f in program.fused.values()) and not self.failed())

    def made(self, fused, leaves: Sequence[Any], og: Sequence[Any], extra: tuple, own: Sequence[Any]) -> bool:
        """Whether this launch was the call ``fused((leaves, og), extra, own)``: the same callee on the
        same array objects."""
        return (fused is self.fused and extra is self.extra and _same(leaves, self.leaves) and _same(og, self.og)
                and _same(own, self.own) and not self.failed())


# -- the worker thread launches are made from on accelerators -------------------------------------------

def threaded() -> bool:
    """Whether launches are made from the worker thread now (``tj.config.replay_ahead_thread``)."""
    choice = config.replay_ahead_thread
    if choice is None:
        choice = _on_accelerator()
    return choice


_accelerator: List[bool] = []


def _on_accelerator() -> bool:
    if not _accelerator:
        _accelerator.append(jax.default_backend() != "cpu")
    return _accelerator[0]


_jobs: "queue.SimpleQueue" = queue.SimpleQueue()
_worker: List[threading.Thread] = []


def _submit(launch: Launch, call: Callable[[], Any]) -> None:
    if not _worker or not _worker[0].is_alive():
        _worker[:] = [threading.Thread(target=_serve, name="tapejax-launch", daemon=True)]
        _worker[0].start()
    _jobs.put((launch, call))
    # Let the worker take the GIL now (it releases it while XLA enqueues the program), not at the next
    # forced switch, milliseconds later, when the step would be recorded already.
    time.sleep(0)


def _serve() -> None:
    while True:
        _run(*_jobs.get())


def _run(launch: Launch, call: Callable[[], Any]) -> None:
    # (a function of its own: the job's arguments, the step's arrays, are let go when it returns, not held
    # until the next job as a loop's variables would)
    try:
        launch._result = call()
    except Exception:  # (as a launch made here that fails: no launch; the step makes its call itself)
        launch._failed = True
    finally:
        launch._done.set()


def _after_fork() -> None:  # (a child process has no worker thread: the next launch starts one)
    _worker.clear()
    global _jobs
    _jobs = queue.SimpleQueue()


os.register_at_fork(after_in_child=_after_fork)


def _same(a: Sequence[Any], b: Sequence[Any]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def expect(tokens: tuple, owner: Any, forecast: Optional[Forecast]) -> None:
    """Set (None: forget) the forecast of this thread's next step recorded as ``tokens`` calling ``owner``."""
    table = _table()
    key = (tokens, id(owner))  # (the forecast holds the owner: its id is not reused while it is in the table)
    table.pop(key, None)
    if forecast is not None:
        table[key] = forecast
        while len(table) > MAX_FORECASTS:
            del table[next(iter(table))]  # (the least recently set)


def expected(tokens: tuple, owner: Any) -> Optional[Forecast]:
    """This thread's forecast of a step recorded as ``tokens`` calling ``owner``, if any."""
    return _table().get((tokens, id(owner)))


def others(tokens: tuple, owner: Any) -> List[Forecast]:
    """This thread's forecasts of steps recorded as ``tokens`` calling another program than ``owner``."""
    return [f for (t, o), f in _table().items() if o != id(owner) and t == tokens]


def started(uid: int) -> int:
    """Note that a tape whose step record is ``uid`` (0: none) starts in this thread; returns the uid noted
    before (0: none)."""
    before = getattr(_state, "started", 0)
    _state.started = uid
    return before


def forecasts() -> List[Forecast]:
    """This thread's forecasts, the latest last."""
    return list(_table().values())


def forget() -> None:
    """Forget this thread's forecasts."""
    _table().clear()


def _table() -> Dict[tuple, Forecast]:
    table = getattr(_state, "forecasts", None)
    if table is None:
        table = _state.forecasts = {}
    return table
