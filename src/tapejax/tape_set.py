"""The per-thread set of active tapes and forward accumulators, and the dispatch of records to them.

Every op asks ``active()`` first; when it is false (nothing recording in this thread) the op takes the
fast path and no bookkeeping happens at all.

Debug hooks: ``tj.debug`` sits above every module that runs ops, so they never import it. It plugs in
here instead: ``debug_hooks`` (one object for the process: the same functions serve every thread) holds
the callables it installs at import, each a no-op until then; ``current().debug_checking`` says whether
``tj.debug.check_numerics()`` is on in this thread. The per-op hot path first tests the process-wide
count ``numerics_checks`` (a module attribute: a threading.local attribute costs a few times more), and
reads the per-thread flag only while some thread checks: ``numerics_checks and current().debug_checking``.
Likewise ``captures_open`` counts the tj.function traces capturing Variables (``isolated(capture)``) in all
threads, so that reading a Variable's value outside any trace (``Variable._current``) costs no thread-local.
"""
from __future__ import annotations

import contextlib
import itertools
import threading
from typing import Any, Callable, Iterator, List, Optional


def _ignore(*args) -> None:
    return None


class DebugHooks:
    """Where ``tj.debug`` plugs into the lower layers. Callers test ``current().debug_checking`` (or that a
    tape is active) before calling a hook, so an unused hook costs nothing."""

    def __init__(self) -> None:
        # (op, args, out): an op ran while a GradientTape was active but no tape recorded it.
        self.note_unrecorded: Callable[[Any, Any, Any], None] = _ignore
        # (tensor_id, site): user code handed a followed value to a plain JAX function at ``site``.
        self.note_raw_jax_use: Callable[[int, str], None] = _ignore
        # () -> where user code called the op running now (kept on its backward function while checking).
        self.call_site: Callable[[], Any] = _ignore
        # (backward_fn, cotangents, grads, positions) / (op, outs, tangents, input_tangents): raise at
        # the first NaN or Inf while checking.
        self.check_backward: Callable[[Any, Any, Any, Any], None] = _ignore
        self.check_jvp: Callable[[Any, Any, Any, Any], None] = _ignore
        # (GradientTape) / (ForwardAccumulator) -> HTML for Jupyter, or None (plain repr).
        self.tape_html: Callable[[Any], Optional[str]] = _ignore
        self.accumulator_html: Callable[[Any], Optional[str]] = _ignore


debug_hooks = DebugHooks()


class RecordHooks:
    """Where the op layer plugs recording into the base layer: a Variable (tensor.py) cannot import the
    recorder, which sits above it, so the recorder installs itself here at import. Likewise what waits for
    Variables to be made (train/module.py)."""

    def __init__(self) -> None:
        # (variable, tensor): ``tensor = read(variable)`` happened while something records (Variable.read_value).
        self.variable_read: Callable[[Any, Any], None] = _ignore
        # (variable): the variable was accessed without a read to record (an assignment that returns it).
        self.variable_accessed: Callable[[Any], None] = _ignore
        # (): a tj.function's first trace made Variables, and it is over (what waits for them looks again).
        self.variables_made: Callable[[], None] = _ignore


record_hooks = RecordHooks()

numerics_checks = 0  # open checking_numerics() blocks, all threads together (see the module docstring)
_counts_lock = threading.Lock()
captures_open = 0  # isolated(capture) blocks with a capture, all threads together (see the module docstring)


class State:
    """One thread's recording state (``current()``): a plain object, so that reading its fields on the
    per-op hot path costs a slot read, not a threading.local lookup each (~70 ns: an op reads several)."""

    __slots__ = ("tapes", "accumulators", "stopped", "variable_watchers", "capture", "debug_checking",
                 "lifted_before")

    def __init__(self) -> None:
        self.tapes: List = []          # GradientTape internals, outermost first
        self.accumulators: List = []   # ForwardAccumulator internals, outermost first
        self.stopped: int = 0          # depth of tj.stop_recording() blocks
        self.variable_watchers: List = []  # dicts collecting Variables read (custom_gradient)
        self.capture = None            # the tj.function trace in progress (Variable values), if any
        self.debug_checking: bool = False  # inside tj.debug.check_numerics() (this thread only)
        # Inside tj.init_scope: the first Tensor id made in the block (older Tensors with traced values belong
        # to an enclosing trace and are out of scope there); None outside.
        self.lifted_before = None

    # Cheap enough for the per-op hot path: two list truth tests and an int.
    def active(self) -> bool:
        return (bool(self.tapes) or bool(self.accumulators)) and not self.stopped


_local = threading.local()


def current() -> State:
    """This thread's State (made at its first use in the thread). Read it once per op and keep it in a
    local: the call and the thread-local lookup cost more than the fields read from it."""
    try:
        return _local.state
    except AttributeError:
        s = _local.state = State()
        return s


# Every push of a tape or accumulator gets a larger nesting id (re-entering one bumps it, as TF): a
# tape records an accumulator's JVP computation only when it was entered before that accumulator.
_nesting_ids = itertools.count(1).__next__


def active() -> bool:
    """True when an op executed now could be recorded by some tape or accumulator of this thread."""
    s = current()
    return (bool(s.tapes) or bool(s.accumulators)) and not s.stopped


def recording_tapes() -> list:
    s = current()
    if s.stopped:
        return []
    return [t for t in s.tapes if t.recording]


def recording_accumulators() -> list:
    s = current()
    if s.stopped:
        return []
    return [a for a in s.accumulators if a.recording]


def push_tape(tape) -> None:
    tape.nesting_id = _nesting_ids()
    current().tapes.append(tape)


def pop_tape(tape) -> None:
    try:
        current().tapes.remove(tape)
    except ValueError:
        pass


def push_accumulator(acc) -> None:
    acc.nesting_id = _nesting_ids()
    current().accumulators.append(acc)


def pop_accumulator(acc) -> None:
    try:
        current().accumulators.remove(acc)
    except ValueError:
        pass


def any_recording() -> bool:
    """True when some tape or accumulator of this thread would record an op now."""
    s = current()
    if s.stopped:
        return False
    return any(t.recording for t in s.tapes) or any(a.recording for a in s.accumulators)


def _user_tape_records(s: State) -> bool:
    """Whether a GradientTape of state ``s`` records (not the graph a tj.function trace records for tj.gradients)."""
    return any(t.recording and not getattr(t, "records_everything", False) for t in s.tapes)


def any_user_recording() -> bool:
    """Like any_recording, ignoring the graph a tj.function trace records for tj.gradients."""
    s = current()
    return not s.stopped and (_user_tape_records(s) or any(a.recording for a in s.accumulators))


def any_tape_recording() -> bool:
    """True when some GradientTape of this thread records now (not an accumulator, nor a tj.function trace's
    graph): when TF's ``watch`` takes effect (its CouldBackprop looks at the tapes only)."""
    s = current()
    return not s.stopped and _user_tape_records(s)


class stop_recording(contextlib.ContextDecorator):
    """Context: nothing executed inside is recorded on any tape or accumulator of this thread. (A class, not
    a generator: entered at every optimizer update, where a generator's context costs ~2 us.)"""

    def __enter__(self) -> None:
        current().stopped += 1

    def __exit__(self, *exc) -> bool:
        current().stopped -= 1
        return False


@contextlib.contextmanager
def paused(items) -> Iterator[None]:
    """Pause the given tapes/accumulators (e.g. a tape while its own backward pass runs)."""
    saved = [(x, x.paused) for x in items]
    for x in items:
        x.paused = True
    try:
        yield
    finally:
        for x, was in saved:
            x.paused = was


@contextlib.contextmanager
def checking_numerics() -> Iterator[None]:
    """Context: ``tj.debug.check_numerics()`` is on in this thread (``current().debug_checking``) until exit."""
    global numerics_checks
    s = current()
    was = s.debug_checking
    with _counts_lock:  # += from two threads at once could lose a count
        numerics_checks += 1
    s.debug_checking = True
    try:
        yield
    finally:
        s.debug_checking = was
        with _counts_lock:
            numerics_checks -= 1


@contextlib.contextmanager
def watch_variable_reads() -> Iterator[dict]:
    """Context yielding a dict (insertion-ordered) of every Variable read inside, recorded or not."""
    seen: dict = {}
    current().variable_watchers.append(seen)
    try:
        yield seen
    finally:
        # (this very dict: list.remove would take the first *equal* one, an enclosing watcher's, as two
        # empty dicts are equal: a custom_gradient inside another's f)
        watchers = current().variable_watchers
        for i in range(len(watchers) - 1, -1, -1):
            if watchers[i] is seen:
                del watchers[i]
                break


@contextlib.contextmanager
def isolated(capture=None) -> Iterator[None]:
    """A fresh tape set (no tapes, accumulators or stop_recording) for tracing a tj.function: outer
    eager tapes must never see traced values; ``capture`` becomes the active Variable capture."""
    global captures_open
    s = current()
    saved = (s.tapes, s.accumulators, s.stopped, s.capture)
    if capture is not None:
        with _counts_lock:
            captures_open += 1
    s.tapes, s.accumulators, s.stopped, s.capture = [], [], 0, capture
    try:
        yield
    finally:
        s.tapes, s.accumulators, s.stopped, s.capture = saved
        if capture is not None:
            with _counts_lock:
                captures_open -= 1
