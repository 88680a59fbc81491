"""Holding Ctrl-C back while a group of Variables changes, so that a KeyboardInterrupt lands before or after
the change, never inside it.

An update that donates its Variables' buffers deletes their old values as soon as its program is dispatched;
the new ones exist only in the call's result until they are stored. A KeyboardInterrupt raised in between
(Python raises it at the next bytecode boundary after the signal, often right after the dispatch returns)
would leave every Variable holding a deleted array: a Jupyter "interrupt kernel" in a training loop would
destroy the model. Without donation it would leave some Variables updated and others not. Inside ``held()``,
SIGINT's Python handler only notes the signal; the handler that was installed runs once the block is over
(``signal.default_int_handler`` raises KeyboardInterrupt there), as if the signal came just after it.

Only the main thread runs Python's signal handlers, so elsewhere ``held()`` does nothing; nor where SIGINT has
no Python handler (ignored, or the default action). The C module ``_signal`` is used directly: ``signal``'s
wrappers convert handlers to and from enums, ~7 us per block against ~0.4 us.
"""
from __future__ import annotations

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

    __slots__ = ("_previous", "_caught")

    def __init__(self, active=True) -> None:
        self._previous = active  # (until entered: whether to hold)
        self._caught = None

    def __enter__(self) -> "held":
        active, self._previous = self._previous, None
        if not active or threading.get_ident() != _MAIN_THREAD:
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
