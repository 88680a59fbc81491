"""Op-overhead chain: eager reverse mode on tiny tensors, where only dispatch and bookkeeping count.

300 iterations of ``x = tanh(x * 1.01 + 0.1)`` on a 16-element float32 vector, then the gradient of
``sum(x)``. One "op" is one of the 3 primitive ops per iteration; the time per op covers its forward
(with recording) and its share of the backward pass. Side by side in one process, each when importable:

* tapejax          ``tj.GradientTape`` with the defaults: ops deferred while the tape records and,
                   after two warm-up steps, forward and backward replayed as one compiled program
* tapejax eager    the same with ``tj.config.lazy = replay = False``: every kernel a jitted JAX call
                   dispatched at once, the backward op by op
* raw jit (floor)  the same chain as direct calls of ``jax.jit``'ed mul/add/tanh on raw arrays, then
                   the matching jitted backward kernels (tanh: ``g * (1 - y*y)``, mul: ``g * 1.01``; the
                   add's VJP is the identity): 5 jitted calls per iteration and no bookkeeping at all,
                   the floor for any eager library built on jitted JAX kernels
* tf eager         ``tf.GradientTape`` (tensorflow / tensorflow-cpu)
* torch eager      autograd on ``requires_grad`` tensors
* HIPS autograd    ``autograd.grad`` over numpy

The frameworks are timed round-robin (one run of each per round) so that load on the machine affects
them alike; the table shows medians over the rounds, and each run ends with the gradient on the host
or ``block_until_ready``.

Run: ``.venv/bin/python benchmarks/chain.py [--iters 300] [--rounds 30] [--only tapejax,tf]``
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from typing import Callable, Dict, List, Optional, Tuple

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np

N_ELEMS = 16
OPS_PER_ITER = 3
CHECK_ITERS = 5  # the chain each contender's gradient is checked on (see main)
X0 = np.linspace(-1.0, 1.0, N_ELEMS).astype(np.float32)


def expected_gradient(iters: int) -> np.ndarray:
    """float64 reference: d sum(chain(x)) / dx."""
    x = X0.astype(np.float64)
    ys = []
    for _ in range(iters):
        x = np.tanh(x * 1.01 + 0.1)
        ys.append(x)
    g = np.ones_like(x)
    for y in reversed(ys):
        g = g * (1 - y * y) * 1.01
    return g


# -- the contenders: each setup returns (name, version, run) where run() returns the gradient ----------

def setup_tapejax(iters: int, eager: bool = False, tj=None):
    """tapejax with its defaults (ops deferred while the tape records, the recurring step replayed as
    one compiled program), or with ``eager`` every kernel dispatched at once and the backward op by op.
    ``tj``: the tapejax package to run (benchmarks/paired.py passes another revision's)."""
    if tj is None:
        import tapejax as tj
    tnp = tj.numpy
    x0 = tj.constant(X0)

    def chain():
        with tj.GradientTape() as tape:
            tape.watch(x0)
            x = x0
            for _ in range(iters):
                x = tnp.tanh(x * 1.01 + 0.1)
            s = tnp.sum(x)
        g = tape.gradient(s, x0)
        return np.asarray(g.value.block_until_ready())

    def run():
        if not eager:
            return chain()
        old = tj.config.lazy, tj.config.replay
        tj.config.lazy = tj.config.replay = False
        try:
            return chain()
        finally:
            tj.config.lazy, tj.config.replay = old
    if eager:
        return "tapejax eager op by op (lazy=False, replay=False)", tj.__version__, run
    return "tapejax GradientTape", tj.__version__, run


def setup_tapejax_eager(iters: int):
    return setup_tapejax(iters, eager=True)


def setup_raw_jit(iters: int):
    import jax
    import jax.numpy as jnp
    mul, add, tanh = jax.jit(jnp.multiply), jax.jit(jnp.add), jax.jit(jnp.tanh)
    tanh_bwd = jax.jit(lambda y, g: g * (1 - y * y))
    mul_bwd = jax.jit(lambda c, g: g * c)
    ones = jax.jit(jnp.ones_like)
    c1, c2 = jnp.asarray(1.01), jnp.asarray(0.1)  # weakly typed device scalars, made once
    x0 = jnp.asarray(X0)

    def run():
        x = x0
        ys = []
        for _ in range(iters):
            x = tanh(add(mul(x, c1), c2))
            ys.append(x)
        g = ones(x)  # d sum(x) / dx
        for y in reversed(ys):
            g = mul_bwd(c1, tanh_bwd(y, g))  # tanh, add (identity), mul
        return np.asarray(g.block_until_ready())
    return "raw jax.jit kernels (floor)", jax.__version__, run


def setup_tf(iters: int):
    import tensorflow as tf
    x0 = tf.constant(X0)

    def run():
        with tf.GradientTape() as tape:
            tape.watch(x0)
            x = x0
            for _ in range(iters):
                x = tf.tanh(x * 1.01 + 0.1)
            s = tf.reduce_sum(x)
        return tape.gradient(s, x0).numpy()
    return "TF eager GradientTape", tf.__version__, run


def setup_torch(iters: int):
    import torch
    x0 = torch.tensor(X0, requires_grad=True)

    def run():
        x = x0
        for _ in range(iters):
            x = torch.tanh(x * 1.01 + 0.1)
        (g,) = torch.autograd.grad(x.sum(), x0)
        return g.numpy()
    return "torch eager autograd", torch.__version__, run


def setup_autograd(iters: int):
    import autograd
    import autograd.numpy as anp
    try:
        from importlib.metadata import version
        ver = version("autograd")
    except Exception:
        ver = "?"

    def f(x):
        for _ in range(iters):
            x = anp.tanh(x * 1.01 + 0.1)
        return anp.sum(x)
    grad_f = autograd.grad(f)

    def run():
        return grad_f(X0)
    return "HIPS autograd", ver, run


CONTENDERS: Dict[str, Callable] = {
    "tapejax": setup_tapejax,
    "eager": setup_tapejax_eager,
    "jit": setup_raw_jit,
    "tf": setup_tf,
    "torch": setup_torch,
    "autograd": setup_autograd,
}


def measure(runs: List[Tuple[str, str, Callable]], rounds: int, warmup: int) -> Dict[str, List[float]]:
    for _, _, run in runs:
        for _ in range(warmup):
            run()
    if "tapejax" in sys.modules:  # tapejax's recurring step: let its replay program finish compiling
        import tapejax.deferred.replay
        tapejax.deferred.replay.wait()
        for _, _, run in runs:
            run()
    times: Dict[str, List[float]] = {name: [] for name, _, _ in runs}
    for _ in range(rounds):
        for name, _, run in runs:
            t0 = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - t0)
    return times


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iters", type=int, default=300, help="chain iterations (3 primitive ops each)")
    p.add_argument("--rounds", type=int, default=30, help="timed runs of each contender (median reported)")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--only", default="", help=f"comma-separated subset of {','.join(CONTENDERS)}")
    args = p.parse_args(argv)
    chosen = [c for c in args.only.split(",") if c] or list(CONTENDERS)
    unknown = set(chosen) - set(CONTENDERS)
    if unknown:
        p.error(f"unknown contender(s) {sorted(unknown)}; choose from {list(CONTENDERS)}")

    # Each contender's gradient is checked on a short chain: over hundreds of iterations it underflows
    # float32 to zeros for every contender, and a check there could not tell a wrong one.
    ref = expected_gradient(CHECK_ITERS)
    runs, skipped = [], []
    for key in chosen:
        try:
            name, ver, run = CONTENDERS[key](args.iters)
            check = CONTENDERS[key](CHECK_ITERS)[2]
        except ImportError as e:
            skipped.append(f"{key} ({e.name or e} not importable)")
            continue
        g = np.asarray(check(), np.float64)
        if not np.allclose(g, ref, rtol=1e-4, atol=0):
            raise SystemExit(f"{name}: wrong gradient on a {CHECK_ITERS}-iteration chain (max relative error "
                             f"{np.max(np.abs(g - ref) / np.abs(ref)):.3g})")
        runs.append((name, ver, run))

    times = measure(runs, args.rounds, args.warmup)
    n_ops = OPS_PER_ITER * args.iters
    med = {name: statistics.median(ts) for name, ts in times.items()}
    base = med.get("tapejax GradientTape")

    import jax
    print(f"## Op-overhead chain: {args.iters} x `x = tanh(x * 1.01 + 0.1)` on {N_ELEMS} float32, then grad of sum(x)")
    print()
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"jax backend {jax.default_backend()}; median of {args.rounds} round-robin rounds after {args.warmup} warm-up runs")
    print()
    print("| framework | version | us / op (fwd+bwd) | us / iteration | ms / run | time vs tapejax |")
    print("|---|---|---:|---:|---:|---:|")
    for name, ver, _ in runs:
        m = med[name]
        ratio = f"{m / base:.2f}x" if base else "-"
        print(f"| {name} | {ver} | {m * 1e6 / n_ops:.1f} | {m * 1e6 / args.iters:.1f} | {m * 1e3:.2f} | {ratio} |")
    for s in skipped:
        print(f"\nskipped: {s}")
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
