"""Host memory and garbage-collector load of recording (issue "Lean recording").

What a tape costs on the host while it records, per op, and what that does to a training loop:

1. Per recorded op, the tape still open: Python heap bytes (``tracemalloc``) and objects tracked by the
   garbage collector (growth of ``len(gc.get_objects())``, counted after a collection), for tapejax
   deferred (the default) and
   strictly eager (``tj.config.lazy = False``), beside TF's eager tape and torch autograd when they
   are importable, on chains of 1k, 10k and 100k ops. One op is one of the 3 primitive ops of
   ``x = tanh(x * 1.01 + 0.1)`` on 16 floats (the op-overhead chain of benchmarks/chain.py). Flat
   figures across lengths mean the cost is per op, not per tape.
2. The long-tape loop: the 900-op chain's train step (record, then the gradient) repeated with
   Python's default garbage collector, no ``gc.freeze()``: step time mean / median / max and the
   number of full (generation-2) collections. A mean far above the median is collector pauses.

Run: ``.venv/bin/python benchmarks/memory.py [--lengths 1000,10000,100000] [--steps 100]``
"""
from __future__ import annotations

import argparse
import gc
import os
import statistics
import time
import tracemalloc
from typing import Callable, Dict, List, Optional

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np

N_ELEMS = 16
OPS_PER_ITER = 3
X0 = np.linspace(-1.0, 1.0, N_ELEMS).astype(np.float32)


# -- recorders: each returns (open, step, close) around one chain of `iters` iterations ---------------

def tapejax_recorder(lazy: bool):
    import tapejax as tj
    tnp = tj.numpy
    x0 = tj.constant(X0)
    state = {}

    def open_():
        state["old"] = tj.config.lazy
        tj.config.lazy = lazy
        state["tape"] = tj.GradientTape()
        state["tape"].__enter__()
        state["tape"].watch(x0)
        return x0

    def step(x):
        return tnp.tanh(x * 1.01 + 0.1)

    def close(x):
        tape = state.pop("tape")
        loss = tnp.sum(x)  # (inside the tape: a loss computed after it would have no gradient)
        tape.__exit__(None, None, None)
        g = tape.gradient(loss, x0)
        assert g is not None
        np.asarray(g)
        tj.config.lazy = state.pop("old")

    return open_, step, close


def torch_recorder():
    import torch
    x0 = torch.tensor(X0, requires_grad=True)

    def step(x):
        return torch.tanh(x * 1.01 + 0.1)

    def close(x):
        x.sum().backward()
        x0.grad = None

    return (lambda: x0), step, close


def tf_recorder():
    import tensorflow as tf
    x0 = tf.constant(X0)
    state = {}

    def open_():
        state["tape"] = tf.GradientTape()
        state["tape"].__enter__()
        state["tape"].watch(x0)
        return x0

    def step(x):
        return tf.tanh(x * 1.01 + 0.1)

    def close(x):
        tape = state.pop("tape")
        loss = tf.reduce_sum(x)
        tape.__exit__(None, None, None)
        tape.gradient(loss, x0).numpy()

    return open_, step, close


def contenders() -> Dict[str, Callable]:
    out = {"tapejax deferred (default)": lambda: tapejax_recorder(True),
           "tapejax strictly eager (lazy=False)": lambda: tapejax_recorder(False)}
    try:
        import tensorflow  # noqa: F401
        out["TF eager tape"] = tf_recorder
    except ImportError:
        pass
    try:
        import torch  # noqa: F401
        out["torch autograd"] = torch_recorder
    except ImportError:
        pass
    return out


# -- 1. per-op cost with the tape open ------------------------------------------------------------------

def per_op(make: Callable, ops: int) -> tuple:
    """(host bytes per op, gc-tracked objects per op) of recording ``ops`` ops, measured with the tape
    open (after a short warm-up chain so that caches and compiled kernels are not counted)."""
    open_, step, close = make()
    iters = max(1, ops // OPS_PER_ITER - 1)  # (with the first step: a 1k-op tape stays within replay_max_ops)
    x = open_()
    for _ in range(10):  # warm-up: kernel compiles, op-type caches
        x = step(x)
    close(x)
    gc.collect()
    gc.disable()
    try:
        x = open_()
        x = step(x)  # the first op of a tape allocates the tape's own tables
        before = {id(o) for o in gc.get_objects()}
        tracemalloc.start()
        bytes0 = tracemalloc.get_traced_memory()[0]
        for _ in range(iters):
            x = step(x)
        bytes1 = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        gc.collect()  # what the collector keeps tracking (it stops tracking tuples of atoms when it sees them)
        # (the objects made while recording and still tracked: counting by identity, objects of earlier
        # runs freed meanwhile do not lower the count)
        new_objects = sum(1 for o in gc.get_objects() if id(o) not in before) - 1  # (less ``before``)
        del before
        close(x)
    finally:
        gc.enable()
    n = iters * OPS_PER_ITER
    return (bytes1 - bytes0) / n, new_objects / n


# -- 2. the long-tape loop -------------------------------------------------------------------------------

def long_tape_loop(make: Callable, iters: int, steps: int) -> dict:
    open_, step, close = make()

    def one():
        x = open_()
        for _ in range(iters):
            x = step(x)
        close(x)

    for _ in range(3):  # warm-up (compiles; tapejax's replay program, compiled in the background)
        one()
    try:
        import tapejax.deferred.replay
        tapejax.deferred.replay.wait()
    except ImportError:
        pass
    one()
    full = [0]

    def on_gc(phase, info):
        if phase == "start" and info.get("generation") == 2:
            full[0] += 1

    times: List[float] = []
    gc.collect()
    gc.callbacks.append(on_gc)
    try:
        for _ in range(steps):
            t0 = time.perf_counter()
            one()
            times.append(time.perf_counter() - t0)
    finally:
        gc.callbacks.remove(on_gc)
    mean, med = statistics.fmean(times), statistics.median(times)
    return {"mean_ms": mean * 1e3, "median_ms": med * 1e3, "max_ms": max(times) * 1e3,
            "mean/median": mean / med, "max/median": max(times) / med, "full_collections": full[0]}


def main(argv: Optional[list] = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lengths", default="1000,10000,100000", help="chain lengths in ops")
    p.add_argument("--steps", type=int, default=100, help="steps of the long-tape loop")
    p.add_argument("--loop-iters", type=int, default=300, help="chain iterations per loop step (3 ops each)")
    p.add_argument("--only", default="", help="comma-separated substrings of contender names")
    args = p.parse_args(argv)
    lengths = [int(s) for s in args.lengths.split(",") if s]
    chosen = {k: v for k, v in contenders().items()
              if not args.only or any(s.strip() in k for s in args.only.split(","))}

    print("### Recording cost per op, tape open (tracemalloc bytes, gc-tracked objects)\n")
    print("| contender | " + " | ".join(f"{n:,} ops: bytes/op | objects/op" for n in lengths) + " |")
    print("|---|" + "---:|---:|" * len(lengths))
    for name, make in chosen.items():
        cells = []
        for n in lengths:
            b, o = per_op(make, n)
            cells += [f"{b:,.0f}", f"{o:.2f}"]
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)

    print(f"\n### Long-tape loop: {args.loop_iters * OPS_PER_ITER}-op chain, {args.steps} steps, default gc "
          "(no gc.freeze)\n")
    print("| contender | mean ms | median ms | max ms | mean/median | max/median | full collections |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, make in chosen.items():
        r = long_tape_loop(make, args.loop_iters, args.steps)
        print(f"| {name} | {r['mean_ms']:.2f} | {r['median_ms']:.2f} | {r['max_ms']:.2f} | "
              f"{r['mean/median']:.2f}x | {r['max/median']:.2f}x | {r['full_collections']} |", flush=True)


if __name__ == "__main__":
    main()
