"""An eager recurrent net over sequences of many lengths: what replay's compiles cost when the op count varies.

A tanh RNN cell (input 8, hidden 32, batch 16) run over a sequence whose length is drawn at random from
``--min-length``..``--max-length`` at every step, a mean squared error on the last state, ``tj.optimizers.Adam``.
Each length runs the cell's ops a different number of times, so each is a step structure of its own; replay counts
them as one family (the step's set of ops) against ``tj.config.replay_shapes``, as batch sizes
(``many_shapes.py``). Each setting runs in a fresh process (imports and data made before the clock starts):

* ``default``           replay on, the defaults (the first ``replay_shapes`` lengths compiled after the warm-up)
* ``replay_exact``      the same, each replayed op fenced: bit for bit op by op's values (the final loss shows it;
                        XLA's fusion across ops changes last bits, which 1,500 Adam steps on noise amplify)
* ``replay_shapes=0``   a length compiled only once it comes back at nearly every step
* ``replay off``        ``tj.config.replay = False``: every step op by op

The table gives the loop's seconds and the last ``--tail`` steps' milliseconds per step (until the updated weights
are ready).

Run: ``.venv/bin/python benchmarks/many_lengths.py [--steps 1500] [--min-length 5] [--max-length 40]``
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fresh_process import run_child  # noqa: E402

SETTINGS = {"default": {}, "replay_exact": {"replay_exact": True}, "replay_shapes=0": {"replay_shapes": 0},
            "replay off": {"replay": False}}
HIDDEN, INPUT, BATCH = 32, 8, 16


def child(setting: str, steps: int, lo: int, hi: int, tail: int) -> dict:
    import jax

    import tapejax as tj
    tnp = tj.numpy
    for k, v in SETTINGS[setting].items():
        setattr(tj.config, k, v)
    rng = np.random.default_rng(0)
    wx = tj.Variable((rng.standard_normal((INPUT, HIDDEN)) * 0.3).astype(np.float32))
    wh = tj.Variable((rng.standard_normal((HIDDEN, HIDDEN)) * 0.3).astype(np.float32))
    wo = tj.Variable((rng.standard_normal((HIDDEN, 1)) * 0.3).astype(np.float32))
    params = [wx, wh, wo]
    opt = tj.optimizers.Adam(1e-3)
    lengths = [int(n) for n in rng.integers(lo, hi + 1, steps)]
    data = {n: (tj.constant(rng.standard_normal((n, BATCH, INPUT)).astype(np.float32)),
                tj.constant(rng.standard_normal((BATCH, 1)).astype(np.float32))) for n in sorted(set(lengths))}

    def step(n):
        xs, y = data[n]
        with tj.GradientTape() as tape:
            h = tnp.zeros((BATCH, HIDDEN))
            for t in range(n):
                h = tnp.tanh(xs[t] @ wx + h @ wh)
            loss = tnp.mean((h @ wo - y) ** 2)
        opt.apply_gradients(zip(tape.gradient(loss, params), params))
        return loss

    t0 = time.perf_counter()
    for n in lengths[:-tail]:
        step(n)
    jax.block_until_ready(params)
    t1 = time.perf_counter()
    for n in lengths[-tail:]:
        loss = step(n)
    jax.block_until_ready(params)
    t2 = time.perf_counter()
    return {"total": t2 - t0, "tail_ms": (t2 - t1) / tail * 1e3, "loss": float(loss.numpy())}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=1500)
    p.add_argument("--min-length", type=int, default=5)
    p.add_argument("--max-length", type=int, default=40)
    p.add_argument("--tail", type=int, default=500, help="the last steps, timed apart")
    p.add_argument("--only", default=",".join(SETTINGS), help=f"comma-separated subset of {','.join(SETTINGS)}")
    p.add_argument("--child", default="", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if not 0 < args.tail < args.steps:
        p.error("--tail must be between 1 and --steps - 1")
    if not 1 <= args.min_length <= args.max_length:
        p.error("need 1 <= --min-length <= --max-length")
    chosen = [s for s in args.only.split(",") if s]
    unknown = [s for s in chosen if s not in SETTINGS]
    if unknown:  # (before any child runs: a typo last in --only no longer costs the runs before it)
        p.error(f"unknown setting(s) {unknown}; choose from {list(SETTINGS)}")
    if args.child:
        print(json.dumps(child(args.child, args.steps, args.min_length, args.max_length, args.tail)))
        return 0
    print(f"## {args.steps} Adam steps of a tanh RNN over sequences of random lengths {args.min_length}-"
          f"{args.max_length} (each setting in a fresh process)\n")
    print(f"| tapejax eager | loop s | last {args.tail} steps, ms/step | final loss |")
    print("|---|---:|---:|---:|")
    for s in chosen:
        r, why = run_child(__file__, s, ["--steps", str(args.steps), "--min-length", str(args.min_length),
                                         "--max-length", str(args.max_length), "--tail", str(args.tail)])
        if r is None:
            print(f"| {s} | failed: {why} | | |")
            continue
        print(f"| {s} | {r['total']:.1f} | {r['tail_ms']:.2f} | {r['loss']:.4f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
