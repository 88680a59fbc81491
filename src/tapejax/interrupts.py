"""Ctrl-C and tapejax's state: a KeyboardInterrupt lands before or after a group of Variable updates, never inside
it (``held``), and is never lost in a finalizer (``redeliver``).

An update that donates its Variables' buffers deletes their old values as soon as its program is dispatched;
the new ones exist only in the call's result until they are stored. A KeyboardInterrupt raised in between
(Python raises it at the next bytecode boundary after the signal, often right after the dispatch returns)
would leave every Variable holding a deleted array: a Jupyter "interrupt kernel" in a training loop would
destroy the model. Without donation it would leave some Variables updated and others not. Inside ``held()``,
SIGINT's Python handler only notes the signal; the handler that was installed runs once the block is over
(``signal.default_int_handler`` raises KeyboardInterrupt there), as if the signal came just after it.

A Ctrl-C can also arrive as a Tensor dies: Python checks for signals as each function starts, also a finalizer
(``Tensor.__del__``), and an exception raised there cannot propagate; Python would print "Exception ignored" and
drop the user's KeyboardInterrupt (about one Ctrl-C in five in an eager training loop). ``sys.unraisablehook``
raises it again soon after instead (``redeliver``; any other unraisable exception goes to
the hook that was installed before).

Only the main thread runs Python's signal handlers, so elsewhere ``held()`` does nothing; nor where SIGINT has
no Python handler (ignored, or the default action). The C module ``_signal`` is used directly: ``signal``'s
wrappers convert handlers to and from enums, ~7 us per block against ~0.4 us.
"""
from __future__ import annotations

import _thread
import sys
import threading

try:
    import _signal as _sig
except ImportError:  # pragma: no cover - an interpreter without CPython's module: signal's wrappers
    import signal as _sig

_MAIN_THREAD = threading.main_thread().ident
_SIGINT = int(_sig.SIGINT)


class held:
    """Context manager: a SIGINT arriving inside the block is handled when it ends. ``held(False)`` does
    nothing (for a caller whose block changes nothing that could be left half done)."""

    __slots__ = ("_active", "_previous", "_caught")

    def __init__(self, active=True) -> None:
        self._active = active
        self._previous = None  # the handler put back at the end (None: nothing was swapped)
        self._caught = None

    def __enter__(self) -> "held":
        if not self._active or threading.get_ident() != _MAIN_THREAD:
            return self
        previous = _sig.getsignal(_SIGINT)
        if not callable(previous):  # (SIG_IGN, SIG_DFL, or set outside Python: no KeyboardInterrupt to hold)
            return self
        self._caught = caught = []
        _sig.signal(_SIGINT, lambda signum, frame: caught.append((signum, frame)))
        self._previous = previous
        return self

    def __exit__(self, *exc) -> bool:
        previous = self._previous
        if previous is not None:
            self._previous = None
            _sig.signal(_SIGINT, previous)
            if self._caught:
                signum, frame = self._caught[0]
                self._caught = None
                previous(signum, frame)  # (the default handler raises KeyboardInterrupt: now, after the block)
        return False


def redeliver(unraisable) -> None:
    """``sys.unraisablehook``: a KeyboardInterrupt a tapejax finalizer could not raise is raised again, at the main
    thread's next check for signals (as if Ctrl-C came just then); anything else goes to the hook before it."""
    if issubclass(unraisable.exc_type, KeyboardInterrupt) and \
            getattr(unraisable.object, "__module__", "").startswith("tapejax."):
        # (from another thread: marked here, the signal would be raised by this hook's own next check, and lost
        # again; the new thread runs once this one lets the GIL go, and C code alone runs in it)
        _thread.start_new_thread(_thread.interrupt_main, ())
        return
    _previous_hook(unraisable)


_previous_hook = sys.unraisablehook
sys.unraisablehook = redeliver
