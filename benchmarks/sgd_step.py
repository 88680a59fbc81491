"""A hand-written SGD step side by side: the update fused into the replayed step, or not, against jax.jit.

The loop TF's guides write (``tape.gradient``, then ``v.assign_sub(lr * g)`` per Variable) on the MLP,
CNN and transformer workloads of ``adam_step.py`` (same losses, shapes, initial weights, data):

* ``tapejax fused``     the defaults: once the step recurs, forward, backward and the update's ops and
  assignments run as one compiled program (deferred/pending.py), dispatched ahead at the op that reads
  the step's last input (deferred/ahead.py); on request (``--only``) ``tapejax fused (not ahead)``, the
  same with ``tj.config.replay_ahead = False``
* ``tapejax unfused``   the same loop reading the gradients' values before the update: the replayed step
  runs as one program, then each multiply and assign_sub as its own kernel (what the loop did before
  the update could be fused)
* ``tapejax lazy=False`` every op of the step and of the update as its own kernel (no deferral, no replay)
* ``tj.function``       the same Python step traced into one XLA program
* ``jax.jit``           ``jax.jit`` of ``jax.value_and_grad`` + the SGD update of every parameter

Each step is timed until its updated variables are ready (``--pipelined``: ``--steps`` steps back to back,
blocking after the last, as a loop that reads nothing in between: a fused step is dispatched when the
next step's tape reads the weights, so its run overlaps the next step's Python). Contenders run round-robin
in one process, ``--steps`` timed steps each per round in a shuffled order; medians over all rounds, and
ratios to jax.jit and to ``tapejax unfused``. The contenders' variables are checked to agree after the run.

Run: ``.venv/bin/python benchmarks/sgd_step.py [--rounds 30] [--steps 5] [--workloads mlp,cnn,transformer]``
"""
from __future__ import annotations

import argparse
import contextlib
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent))

import jax  # noqa: E402
import numpy as np  # noqa: E402

import workloads as W  # noqa: E402
from adam_step import problem, tapejax_problem  # noqa: E402

LR = 0.01
CONTENDERS = ["tapejax fused", "tapejax unfused", "tapejax lazy=False", "tj.function", "jax.jit"]
# On request (--only) only: the fused step without dispatching the next one ahead (tj.config.replay_ahead)
EXTRA_CONTENDERS = ["tapejax fused (not ahead)"]
WORKLOADS = ["mlp", "cnn", "transformer"]


def build_tapejax(kind: str, size: str, device, mode: str):
    import tapejax as tj
    loss, B, params, x, y = tapejax_problem(kind, size, device)

    def step(x, y):
        with tj.GradientTape() as tape:
            lo = loss(B, params, x, y)
        grads = tape.gradient(lo, params)
        if mode == "unfused":
            for g in grads:
                g.value  # noqa: B018  (reading a gradient runs the replayed step now)
        for v, g in zip(params, grads):
            v.assign_sub(LR * g)
        return lo
    fn = tj.function(step) if mode == "function" else step
    cfg = {"lazy": False, "replay": False} if mode == "lazy=False" else \
        {"replay_ahead": False} if mode == "fused, not ahead" else {}

    def run(block=True):
        with tj.config.override(**cfg) if cfg else contextlib.nullcontext():  # (defaults: as users run them)
            lo = fn(x, y)
            if block:  # The step is over when the weights are updated (reading them runs a fused step).
                jax.block_until_ready([lo.value] + params)  # (Variables flatten to their current values)
        return lo
    return run, lambda: [v.numpy() for v in params]


def build_jax_jit(kind: str, size: str, device):
    loss, p0, x0, y0, _ = problem(kind, size)
    B = W._JAX()
    state = {"p": [W._place(device, p) for p in p0]}
    x, y = W._place(device, x0), W._place(device, y0)

    @jax.jit
    def step(params, x, y):
        lo, g = jax.value_and_grad(lambda ps: loss(B, ps, x, y))(params)
        return [p - LR * gi for p, gi in zip(params, g)], lo

    def run(block=True):
        state["p"], lo = step(state["p"], x, y)
        if block:
            jax.block_until_ready((state["p"], lo))
        return lo
    return run, lambda: [np.asarray(p) for p in state["p"]]


def build(contender: str, kind: str, size: str, device):
    if contender == "jax.jit":
        return build_jax_jit(kind, size, device)
    mode = {"tapejax fused": "fused", "tapejax fused (not ahead)": "fused, not ahead", "tapejax unfused": "unfused",
            "tapejax lazy=False": "lazy=False", "tj.function": "function"}[contender]
    return build_tapejax(kind, size, device, mode)


def run(workloads: List[str] = WORKLOADS, contenders: List[str] = CONTENDERS, rounds: int = 30, steps: int = 5,
        warmup: int = 5, size: str = "default", device=None, log=print, seed: int = 0,
        pipelined: bool = False) -> List[Dict]:
    from tapejax.deferred import background, pending
    device = device or jax.devices()[0]
    rows = []
    rng = random.Random(seed)
    for kind in workloads:
        fns, params = {}, {}
        for c in contenders:
            fn, params[c] = build(c, kind, size, device)
            for _ in range(warmup):
                fn()
            for _ in range(2):  # the replay program, then the fused one, compile in the background
                background.wait()
                fn()
            fns[c] = fn
        times: Dict[str, List[float]] = {c: [] for c in fns}
        order = list(fns)
        for _ in range(rounds):
            rng.shuffle(order)
            for c in order:
                fn = fns[c]
                if pipelined:  # steps back to back, blocking after the last: the time per step
                    t0 = time.perf_counter()
                    for _ in range(steps - 1):
                        fn(block=False)
                    fn()
                    times[c].append((time.perf_counter() - t0) / steps)
                    continue
                for _ in range(steps):
                    t0 = time.perf_counter()
                    fn()
                    times[c].append(time.perf_counter() - t0)
        if "tapejax fused" in fns:
            fns["tapejax fused"]()  # (every contender runs one more step: the same number still)
            log(f"{kind}: tapejax fused's last step: {pending.last_update!r}")
            for c in fns:
                if c != "tapejax fused":
                    fns[c]()
        # Every contender ran the same number of steps from the same weights: the same weights now.
        ref = params[contenders[-1]]()
        for c in fns:
            for a, b in zip(params[c](), ref):
                np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-4, err_msg=f"{kind}: {c}")
        med = {c: statistics.median(ts) for c, ts in times.items()}
        for c, ts in times.items():
            q = statistics.quantiles(ts, n=4, method="inclusive")
            row = {"workload": kind, "contender": c, "median_ms": med[c] * 1e3, "iqr_ms": (q[2] - q[0]) * 1e3}
            for base in ("jax.jit", "tapejax unfused"):
                if base in med:
                    row[f"vs {base}"] = med[c] / med[base]
            rows.append(row)
            log(f"{kind:12s} {c:20s} {med[c] * 1e3:8.3f} ms ±{row['iqr_ms'] / 2:.3f}" + "".join(
                f"  {row[k]:.2f}x {k[3:]}" for k in ("vs jax.jit", "vs tapejax unfused") if k in row))
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workloads", default=",".join(WORKLOADS))
    p.add_argument("--only", default="", help=f"comma-separated subset of: {','.join(CONTENDERS + EXTRA_CONTENDERS)}")
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--size", default="default", choices=list(W.SCALES))
    p.add_argument("--pipelined", action="store_true",
                   help="time --steps steps back to back, blocking after the last (as a loop reading nothing)")
    args = p.parse_args(argv)
    contenders = [c for c in args.only.split(",") if c] or CONTENDERS
    how = "back to back, blocked after the last" if args.pipelined else "each blocked"
    print(f"hand-written SGD step on {jax.devices()[0]}; median of {args.rounds} rounds x {args.steps} steps ({how})")
    run([w for w in args.workloads.split(",") if w], contenders, args.rounds, args.steps, args.warmup, args.size,
        pipelined=args.pipelined)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
