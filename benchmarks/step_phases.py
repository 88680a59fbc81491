"""Where the eager Adam step's wall time goes, phase by phase (not a comparison; see adam_step.py for that).

For each workload of ``adam_step.py`` (same model, data, optimizer and warm-up: the replay program and the
one with the update fused into it compiled first), times ``--steps`` steps and prints the median of each
phase: the forward recorded (the ``with tj.GradientTape()`` block), ``tape.gradient``, ``apply_gradients``,
and the wait until the updated weights and optimizer state are ready, with the launch counts of
``deferred/ahead.py`` (a step dispatched ahead runs on the device while the phases before the wait record
it). On a GPU the first three are host work the device can overlap; the wait is what it did not.

Run: ``.venv/bin/python benchmarks/step_phases.py [--steps 300] [--workloads mlp,cnn,transformer]``; where the
host time of one goes: ``benchmarks/on_device.sh``'s profile line (``tools/sample_profile.py`` repeating
``one()`` after ``one = build('transformer', jax.devices()[0])``).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import jax  # noqa: E402

import adam_step as A  # noqa: E402

PHASES = ["forward recorded", "tape.gradient", "apply_gradients", "wait", "step"]


def build(kind: str, device):
    """A function running one eager Adam step of ``kind`` (warmed up: its replay and fused programs compiled)
    that returns the seconds each of PHASES took."""
    import tapejax as tj
    from tapejax.deferred import replay
    loss, B, params, x, y = A.tapejax_problem(kind, "default", device)
    with jax.default_device(device):
        opt = tj.optimizers.Adam(learning_rate=A.LR, beta_1=A.B1, beta_2=A.B2, epsilon=A.EPS)
        opt.build(params)
    every = params + opt.variables

    def one() -> tuple:
        t0 = time.perf_counter()
        with tj.GradientTape() as tape:
            lo = loss(B, params, x, y)
        t1 = time.perf_counter()
        grads = tape.gradient(lo, params)
        t2 = time.perf_counter()
        opt.apply_gradients(zip(grads, params))
        t3 = time.perf_counter()
        jax.block_until_ready([lo.value] + every)
        t4 = time.perf_counter()
        one.last_replay = tape.last_replay
        return t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0
    for i in range(10):
        if i in (5, 6):  # the replay program, then the fused one, compile in the background: wait for them
            replay.wait()
        one()
    return one


def phases(kind: str, steps: int, device) -> tuple:
    """(median microseconds of each of PHASES over ``steps`` steps, the launch tally, the last replay)."""
    from tapejax.deferred import ahead
    one = build(kind, device)
    ahead.tally.clear()
    rows = [one() for _ in range(steps)]
    return [statistics.median(c) * 1e6 for c in zip(*rows)], dict(ahead.tally), one.last_replay


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--workloads", default=",".join(A.WORKLOADS))
    args = p.parse_args(argv)
    device = jax.devices()[0]
    print(f"device {device}, jax {jax.__version__}, {args.steps} steps, median us per phase")
    print("| workload | " + " | ".join(PHASES) + " | launches (made, guessed, used) | last replay |")
    print("|---|" + "---:|" * len(PHASES) + "---|---|")
    for kind in args.workloads.split(","):
        med, tally, last = phases(kind, args.steps, device)
        counts = ", ".join(str(tally.get(k, 0)) for k in ("made", "guessed", "used"))
        print(f"| {kind} | " + " | ".join(f"{m:.0f}" for m in med) + f" | {counts} | {last} |")


if __name__ == "__main__":
    main()
