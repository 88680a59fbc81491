"""What returning the gradients costs a fused train step: the jax.jit Adam step of the MLP workload, once
returning only the new parameters, optimizer state and loss, once returning the gradients too.

tapejax's eager step, once replayed, runs forward, backward and the optimizer's update as one program
(deferred/pending.py's ``run_with_update``); the user may still read the gradient tensors ``tape.gradient``
handed out, and that program returns those read after an update of the step before (it computes the others
again if they are read). This measures what returning them costs, in jax.jit alone, side by side
(alternated, medians over the rounds).

Run: ``.venv/bin/python benchmarks/gradient_outputs.py [--rounds 60] [--workload mlp]``
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import jax  # noqa: E402
import optax  # noqa: E402

import adam_step as A  # noqa: E402
import workloads as W  # noqa: E402


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=60)
    p.add_argument("--workload", default="mlp", choices=A.WORKLOADS)
    args = p.parse_args(argv)
    loss, p0, x0, y0, desc = A.problem(args.workload, "default")
    backend, tx, device = W._JAX(), optax.adam(A.LR, b1=A.B1, b2=A.B2, eps=A.EPS), jax.devices()[0]
    x, y = W._place(device, x0), W._place(device, y0)

    def make(with_gradients: bool):
        @jax.jit
        def step(params, state):
            lo, g = jax.value_and_grad(lambda ps: loss(backend, ps, x, y))(params)
            updates, state = tx.update(g, state, params)
            out = (optax.apply_updates(params, updates), state, lo)
            return out + (g,) if with_gradients else out
        return step

    names = {False: "new parameters, state and loss", True: "the same and the gradients"}
    steps = {k: make(k) for k in names}
    carry = {k: [[W._place(device, q) for q in p0], None] for k in names}
    for k in names:
        carry[k][1] = tx.init(carry[k][0])
    times = {k: [] for k in names}
    for r in range(args.rounds + 5):
        for k in names:
            t0 = time.perf_counter()
            out = steps[k](*carry[k])
            jax.block_until_ready(out)
            carry[k] = [out[0], out[1]]
            if r >= 5:  # (compiles and warm-up first)
                times[k].append(time.perf_counter() - t0)
    print(f"## jax.jit Adam step returning ... ({desc}; median of {args.rounds} alternated steps)\n")
    print("| returns | ms / step | vs without gradients |\n|---|---:|---:|")
    base = statistics.median(times[False])
    for k, name in names.items():
        m = statistics.median(times[k])
        print(f"| {name} | {m * 1e3:.3f} | {m / base:.3f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
