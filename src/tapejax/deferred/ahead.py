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

A step that reads the same data arrays every step (full-batch training: the same inputs and labels, only the
weights change), or a new batch converted at the same places every step (a loader's loop: ``tj.constant``, or
``tj.convert_to_tensor`` / ``tj.numpy.asarray`` of NumPy arrays; the next batch is then the first arrays of
those shapes converted so after the batch the step before read), can be launched earlier still, at its first
op that reads an array: its other leaves are guessed, the update's parameters as they are then and the rest
the arrays the step before read (or that next batch) (``Forecast.then`` is the launch once all leaves are
known, made instead when the guess does not hold for the leaves read so far). A forecast guesses only after
two steps in a row read the same data arrays (``Forecast.data``), or new batches at the same places
(``Forecast.batch``), with the same program; after a guess that a step did not use, that program guesses again
only after twice as many such steps in a row (pending.py's ``_Fused``). A step whose tape follows two steps of
that program in a row (a loop of one step: no other tape between) is launched on that guess as soon as its
tape starts. A thread keeps the forecasts of its last ``MAX_FORECASTS`` programs (steps of two models trained
in turn, a GAN's, each have theirs): a step tries each forecast of its structure in turn, and two models of
one architecture (the same structure, not the same program) are launched at their last leaf, where their
Variables tell them apart, never on a guess.

Off with ``tj.config.replay_ahead = False``; never with several processes (a launch nobody uses would
leave the others' collectives unpaired).
"""
from __future__ import annotations

import collections
import operator
import threading
from typing import Any, Callable, Dict, List, Optional, Sequence

_state = threading.local()  # .forecasts: {tokens: Forecast} of this thread's steps, the latest last
MAX_FORECASTS = 4
# Calls made ahead ("made") and those a step used ("used"): what tests and diagnostics read.
tally: "collections.Counter[str]" = collections.Counter()


class Forecast:
    """The fused call the next step is expected to make: it is made once that step's record holds
    ``at`` tokens equal to the first ones of ``tokens`` and ``n_leaves`` leaves (``launch(leaves)``
    dispatches it, or returns None when it cannot be made now; ``then``, when given, is the forecast to
    follow in that case). ``data``: the ids of the leaves of the step forecast from that its update does
    not give the next step (what a guess of the next step's leaves takes as they were); ``batch``: where
    the step read a new batch converted (tensor.py's ``_made_lately``; pending.py's ``_new_batch``), None if
    it did not."""

    __slots__ = ("tokens", "at", "n_leaves", "launch", "then", "data", "uid", "again", "owner", "batch")

    def __init__(self, tokens: tuple, at: int, n_leaves: int, launch: Callable[[list], Optional["Launch"]],
                 then: Optional["Forecast"] = None, data: tuple = (), uid: int = 0, again: bool = False,
                 owner: Any = None, batch: Optional[tuple] = None) -> None:
        self.tokens, self.at, self.n_leaves, self.launch = tokens, at, n_leaves, launch
        self.then, self.data, self.batch = then, data, batch
        # The step forecast from: its record's uid, whether the tape before it was a step of the same structure
        # and program, and that program (two models of one architecture trained in turn share the structure,
        # not the program: neither guesses the other's call).
        self.uid, self.again, self.owner = uid, again, owner


class Launch:
    """A fused call made ahead: the callee (``fused``), its arguments (leaves, output gradients, the
    program's extra arguments, the update's own arrays) and what it returned."""

    __slots__ = ("fused", "leaves", "og", "extra", "own", "result", "guessed")

    def __init__(self, fused, leaves: Sequence[Any], og: Sequence[Any], extra: tuple, own: Sequence[Any],
                 result, guessed: bool = False) -> None:
        self.fused, self.leaves, self.og, self.extra, self.own = fused, tuple(leaves), tuple(og), extra, tuple(own)
        self.result, self.guessed = result, guessed  # (guessed: made before all its leaves were read)

    def runs(self, program, leaves: Sequence[Any], og: Sequence[Any]) -> bool:
        """Whether this launch runs the replay ``program`` (with an update after it) on the arguments ``(leaves,
        og)``: the same program, array objects and output gradients; what it computes of the step then is
        the step's (its forward values, its gradients)."""
        return (self.extra is program.extra and _same(leaves, self.leaves) and _same(og, self.og)
                and any(f is self.fused for f in program.fused.values()))

    def made(self, fused, leaves: Sequence[Any], og: Sequence[Any], extra: tuple, own: Sequence[Any]) -> bool:
        """Whether this launch was the call ``fused((leaves, og), extra, own)``: the same callee on the
        same array objects."""
        return (fused is self.fused and extra is self.extra and _same(leaves, self.leaves) and _same(og, self.og)
                and _same(own, self.own))


def _same(a: Sequence[Any], b: Sequence[Any]) -> bool:
    return len(a) == len(b) and all(map(operator.is_, a, b))  # (no generator resumed per element)


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
