"""Where the Python time of a tapejax loop goes, by sampling (not a test).

cProfile charges its own per-call cost to every frame it times, which on code made of many small calls (an
op's dispatch, recording, the sweep) inflates the small ones and hides where time really goes. This samples
the main thread's stack on a CPU-time timer instead and prints three tables:

* per function, the share of samples with it anywhere on the stack (inclusive: what removing the call would
  save at most);
* per function, the share of samples executing its own code (self: what speeding it up can win);
* per line, the share of samples executing it. CPython runs a signal handler only at its "eval breaker"
  checks (function entries, loop back-edges), so a sample lands on the next such point: read line shares as
  pointers, and function shares as the measure.

Run from the repository root, with the set-up and the statement to repeat (a function call)::

    PYTHONPATH=src .venv/bin/python tools/sample_profile.py --setup "import tapejax as tj ..." --stmt "step()"
    PYTHONPATH=src .venv/bin/python tools/sample_profile.py --file my_setup.py --stmt "step()" --seconds 20
"""
from __future__ import annotations

import argparse
import collections
import os
import signal
import sys
import time


def _where(frame, with_line: bool) -> str:
    name = f"{os.path.basename(frame.f_code.co_filename)}:"
    return name + (f"{frame.f_lineno} {frame.f_code.co_name}" if with_line else frame.f_code.co_name)


def sample(stmt, namespace: dict, seconds: float, interval_s: float, warmup: int = 5):
    """(inclusive shares per function, self shares per function, self shares per line, runs) of repeating
    ``stmt`` for ``seconds``."""
    code = compile(stmt, "<stmt>", "exec")
    for _ in range(warmup):  # (compiles and caches out of the samples)
        exec(code, namespace)
    functions: collections.Counter = collections.Counter()
    selves: collections.Counter = collections.Counter()
    lines: collections.Counter = collections.Counter()

    def on_sample(signum, frame) -> None:
        lines[_where(frame, True)] += 1
        selves[_where(frame, False)] += 1
        seen = set()
        while frame is not None:
            key = _where(frame, False)
            if key not in seen:  # (a recursive function counts once per sample)
                seen.add(key)
                functions[key] += 1
            frame = frame.f_back

    old = signal.signal(signal.SIGPROF, on_sample)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGPROF])  # (main() blocked it for the threads to come)
    signal.setitimer(signal.ITIMER_PROF, interval_s, interval_s)
    runs = 0
    try:
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            exec(code, namespace)
            runs += 1
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        signal.signal(signal.SIGPROF, old)
    total = sum(lines.values()) or 1
    return ({k: v / total for k, v in functions.items()}, {k: v / total for k, v in selves.items()},
            {k: v / total for k, v in lines.items()}, runs)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--setup", default="", help="Python code run once first")
    p.add_argument("--file", help="a Python file run once first (after --setup)")
    p.add_argument("--stmt", required=True, help="the statement repeated while sampling")
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--interval-us", type=float, default=300.0, help="CPU time between samples")
    p.add_argument("--top", type=int, default=40)
    args = p.parse_args(argv)
    # Threads started from here on (XLA's, a background compile) inherit a blocked SIGPROF, so the timer's
    # signal lands on this thread only: delivered in XLA's threads it interrupted their system calls, and
    # the process died of heap corruption.
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGPROF])
    namespace: dict = {"__name__": "__sample__"}
    exec(compile(args.setup, "<setup>", "exec"), namespace)
    if args.file:
        with open(args.file) as f:
            exec(compile(f.read(), args.file, "exec"), namespace)
    functions, selves, lines, runs = sample(args.stmt, namespace, args.seconds, args.interval_us * 1e-6)
    print(f"{runs} runs of {args.stmt!r} in {args.seconds:g} s")
    print("\n-- share of samples with the function on the stack")
    for k, v in sorted(functions.items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"{100 * v:5.1f}%  {k}")
    print("\n-- share of samples in the function's own code")
    for k, v in sorted(selves.items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"{100 * v:5.1f}%  {k}")
    print("\n-- share of samples at the line (see the module docstring)")
    for k, v in sorted(lines.items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"{100 * v:5.1f}%  {k}")


if __name__ == "__main__":
    sys.exit(main())
