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


def compile_lowered(program, lowered, on_interrupt: Optional[Callable[[], None]] = None) -> None:
    """Compile ``lowered`` (now or in the background, see ``run``) into ``program.compiled``; a failure
    goes to ``program.failed`` (the caller runs without the program). An interruption of the compile
    (KeyboardInterrupt, SystemExit) calls ``on_interrupt`` and propagates."""
    def finish():
        try:
            program.compiled = lowered.compile()
        except Exception as e:
            program.failed = failure(e)
        except BaseException:
            if on_interrupt is not None:
                on_interrupt()
            raise
    run(finish)


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
