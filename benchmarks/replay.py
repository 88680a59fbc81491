"""Issue-6 benchmark: eager execution op by op (every kernel dispatched at once, backward op by op)
versus deferred ops replayed as one compiled program, side by side with torch eager and TF eager in
one run.

1. The op-overhead chain (300 x `tanh(x * 1.01 + 0.1)` on 16 floats, gradient of the sum): us per op.
2. The MLP 64-256-256-256-10 eager train step (batch 128, tanh, MSE, SGD): ms per step, vs jax.jit,
   with torch eager and TF eager running the same step (benchmarks/workloads.py).

Run: .venv/bin/python benchmarks/replay.py [--rounds N]
"""
from __future__ import annotations

import argparse
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np

import tapejax as tj
from chain import setup_tapejax, setup_tf, setup_torch  # the same chain as benchmarks/chain.py
from tapejax.deferred import replay

tnp = tj.numpy


def mlp_setup():
    rng = np.random.default_rng(0)
    shapes = [(64, 256), (256, 256), (256, 256), (256, 10)]
    params = [(rng.standard_normal(s) / np.sqrt(s[0])).astype(np.float32) for s in shapes]
    x = rng.standard_normal((128, 64)).astype(np.float32)
    y = rng.standard_normal((128, 10)).astype(np.float32)
    return params, x, y


def mlp_tapejax(params, x, y):
    vs = [tj.Variable(p) for p in params]
    tx, ty = tj.constant(x), tj.constant(y)

    def run():
        with tj.GradientTape() as tape:
            h = tx
            for w in vs[:-1]:
                h = tnp.tanh(h @ w)
            loss = tnp.mean((h @ vs[-1] - ty) ** 2)
        for v, g in zip(vs, tape.gradient(loss, vs)):
            v.assign_sub(0.01 * g)
        # The step is over when the variables are updated (an op-by-op step returns with its backward
        # pass still running on the device; jax.jit's value and new parameters come out together).
        jax.block_until_ready(vs)  # (Variables flatten to their current values)
        return loss.numpy()
    return run


def mlp_jax(params, x, y):
    def loss(p):
        h = x
        for w in p[:-1]:
            h = jnp.tanh(h @ w)
        return jnp.mean((h @ p[-1] - y) ** 2)

    @jax.jit
    def step(p):
        value, g = jax.value_and_grad(loss)(p)
        return value, [a - 0.01 * b for a, b in zip(p, g)]
    state = [[jnp.asarray(p) for p in params]]

    def run():
        value, state[0] = step(state[0])
        return np.asarray(value)
    return run


def timed(rows, rounds):
    for _, fn, mode in rows:  # warm-up (and, for replay, pass the warm-up count so the program compiles)
        for _ in range(4):
            _with_mode(fn, mode)
    replay.wait()  # programs compiling in the background
    for _, fn, mode in rows:
        _with_mode(fn, mode)
    times = {name: [] for name, _, _ in rows}
    for _ in range(rounds):
        for name, fn, mode in rows:
            t0 = time.perf_counter()
            _with_mode(fn, mode)
            times[name].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in times.items()}


def _with_mode(fn, mode):
    """mode False: every op runs its kernel at once and the backward goes op by op; True: ops are
    deferred (tj.config.lazy) and a recurring step is replayed as one program (tj.config.replay)."""
    if mode is None:
        return fn()
    old = tj.config.replay, tj.config.lazy
    tj.config.replay = tj.config.lazy = mode
    try:
        return fn()
    finally:
        tj.config.replay, tj.config.lazy = old


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--iters", type=int, default=300)
    a = ap.parse_args()
    replay.clear()
    print(f"device: {jax.devices()[0]}  jax {jax.__version__}")
    rows = [("tapejax op by op", setup_tapejax(a.iters)[2], False),
            ("tapejax replay", setup_tapejax(a.iters)[2], True)]
    for name, setup in (("torch eager", setup_torch), ("TF eager", setup_tf)):
        try:
            rows.append((name, setup(a.iters)[2], None))
        except ImportError:
            print(f"({name} not installed: skipped; `make bench` installs it)")
    ref = rows[0][1]()
    for name, fn, mode in rows[1:]:
        np.testing.assert_allclose(_with_mode(fn, mode), ref, rtol=1e-4, atol=1e-6)
    med = timed(rows, a.rounds)
    n_ops = 3 * a.iters
    base = med["tapejax op by op"]
    print(f"\n### Op-overhead chain ({a.iters} x tanh(x*1.01+0.1), 16 floats), forward + backward\n")
    print("| implementation | us / op | time / op-by-op |")
    print("|---|---:|---:|")
    for name, t in med.items():
        print(f"| {name} | {t / n_ops * 1e6:.1f} | {t / base:.2f}x |")

    params, x, y = mlp_setup()
    rows = [("tapejax eager, op by op", mlp_tapejax(params, x, y), False),
            ("tapejax eager, replay", mlp_tapejax(params, x, y), True),
            ("jax.jit(value_and_grad) + update", mlp_jax(params, x, y), None)]
    import workloads  # the suite's MLP step (same shapes) for torch and TF
    for name, mode in (("torch eager", "torch"), ("TF eager", "tf")):
        try:
            rows.append((name, workloads.build_train_step("mlp", mode, "default", jax.devices()[0]), None))
        except (workloads.NotApplicable, ImportError) as e:
            print(f"({name}: {e})")
    med = timed(rows, a.rounds * 3)
    base = med["jax.jit(value_and_grad) + update"]
    print("\n### MLP 64-256-256-256-10 eager train step (batch 128)\n")
    print("| implementation | ms / step | time / jax.jit |")
    print("|---|---:|---:|")
    for name, t in med.items():
        print(f"| {name} | {t * 1e3:.2f} | {t / base:.2f}x |")


if __name__ == "__main__":
    main()
