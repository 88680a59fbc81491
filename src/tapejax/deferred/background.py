"""XLA compiles of deferred/'s programs (replayed steps, steps fused with an update), in a background
thread where that is safe, and waiting for them."""
from __future__ import annotations

import atexit
import threading
from typing import Callable, List, Optional

import jax

from ..config import config

_threads: List[threading.Thread] = []


def run(compile_: Callable[[], None]) -> None:
    """Run ``compile_`` in a background thread (``tj.config.replay_background``), or now. Several
    processes must switch to a program at the same step (their collectives pair up), which a background
    compile's timing cannot promise: they compile in the foreground."""
    if config.replay_background and jax.process_count() == 1:
        t = threading.Thread(target=compile_, name="tapejax-replay-compile", daemon=True)
        _threads.append(t)
        t.start()
    else:
        compile_()


def failure(e: Exception) -> str:
    """A failed lowering or compile in one line (for ``last_replay``)."""
    text = str(e).splitlines()[0] if str(e) else ""
    return f"{type(e).__name__}: {text}"


class Compilation:
    """A jitted function compiled ahead of its calls: ``compiled`` is None while XLA compiles it (now or
    in the background, see ``run``) and after a failure (``failed`` says why); its callers run without
    it meanwhile. Subclasses keep what they need of the lowering (``on_lowered``) and forget an
    interrupted program (``on_interrupt``)."""

    __slots__ = ("fn", "compiled", "failed")

    def __init__(self, fn) -> None:
        self.fn = fn
        self.compiled = None
        self.failed = ""

    def compile(self, *args) -> None:
        """Lower on ``args`` now (tracing reads this thread's state: tj.config, the update's closure),
        compile now or in a background thread."""
        try:
            lowered = self.fn.lower(*args)
            self.on_lowered(lowered)
        except Exception as e:  # never fail the user's step: the caller runs without the program
            self.failed = failure(e)
            return

        def finish():
            try:
                self.compiled = lowered.compile()
            except Exception as e:
                self.failed = failure(e)
            except BaseException:  # interrupted (KeyboardInterrupt, SystemExit)
                self.on_interrupt()
                raise
        run(finish)

    def on_lowered(self, lowered) -> None:
        """What a subclass keeps of the lowering, before the compile starts."""

    def on_interrupt(self) -> None:
        """The compile was interrupted."""

    def __call__(self, *args):
        try:
            return self.compiled(*args)
        except (TypeError, ValueError):
            # Arguments committed otherwise than at compile time (resharded residuals; the default
            # device is in the key): the jitted function compiles for their placement instead.
            self.compiled = self.fn
            return self.fn(*args)


def wait(timeout: Optional[float] = None) -> None:
    """Block until the programs compiling in the background are ready (benchmarks, tests)."""
    while _threads:
        t = _threads[0]
        t.join(timeout)
        if t.is_alive():
            return
        _threads.remove(t)


# XLA aborts the process if the interpreter shuts down while it compiles: let compiles finish first.
atexit.register(wait)
