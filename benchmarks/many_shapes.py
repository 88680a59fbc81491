"""A training loop over many distinct batch shapes: what compiling per shape costs each contender.

A small MLP (8-16-4 tanh, mean squared error) trained by Adam on batches whose size is drawn at random from
1..``--shapes`` (unpadded variable-length batches: every size is a new shape for XLA). Every contender runs in a
fresh process (imports and the data made before the clock starts), ``--steps`` steps until its updated weights
are ready; the table gives the whole loop's seconds, the last ``--tail`` steps' milliseconds per step (by then
most shapes have been seen) and the process's peak resident memory:

* ``tapejax eager``               ``tj.GradientTape`` + ``tj.optimizers.Adam``, the defaults: each new shape compiles
                                  every op's kernel (as jax.numpy's op-by-op execution does), and a step structure
                                  that recurs compiles its replay program and the one with the update fused into it
                                  (in the background; ``tj.config.replay_cache_size`` of them kept)
* ``tapejax eager (replay off)``  the same with ``tj.config.replay = False``: op kernels only
* ``tj.function``                 the step traced and compiled once per shape
* ``jax.jit``                     ``jax.jit`` of value_and_grad + an optax.adam update: one program per shape
* ``torch eager`` / ``tf eager``  when importable: no compiles at all

Run: ``.venv/bin/python benchmarks/many_shapes.py [--shapes 100] [--steps 3000] [--only jax.jit,tj.function]``
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads as W  # noqa: E402  (the MLP loss, written once against each library's namespace)
from fresh_process import run_child  # noqa: E402

SIZES = [(8, 16), (16, 4)]
LR = 0.01
MODES = ["tapejax eager", "tapejax eager (replay off)", "tj.function", "jax.jit", "torch eager", "tf eager"]


def _problem(shapes: int, steps: int):
    """Initial weights, one (x, y) batch per size, and the sizes the steps take, the same for every contender."""
    rng = np.random.default_rng(0)
    ws = [(rng.standard_normal(s) * 0.3).astype(np.float32) for s in SIZES]
    data = {n: (rng.standard_normal((n, SIZES[0][0])).astype(np.float32),
                rng.standard_normal((n, SIZES[-1][1])).astype(np.float32)) for n in range(1, shapes + 1)}
    return ws, data, [int(n) for n in rng.integers(1, shapes + 1, steps)]


def _tapejax(compiled: bool, replay: bool, ws0, data):
    import jax

    import tapejax as tj
    tj.config.replay = replay
    B = W._TJ()
    ws = [tj.Variable(w) for w in ws0]
    opt = tj.optimizers.Adam(LR)
    batches = {n: (tj.constant(x), tj.constant(y)) for n, (x, y) in data.items()}

    def step(x, y):
        with tj.GradientTape() as tape:
            loss = W.mlp_loss(B, ws, x, y)
        opt.apply_gradients(zip(tape.gradient(loss, ws), ws))
        return loss
    fn = tj.function(step) if compiled else step

    def run(n):
        return fn(*batches[n])
    return run, lambda loss: float(jax.block_until_ready([loss.value] + ws + opt.variables)[0])


def _jax_jit(ws0, data):
    import jax
    import jax.numpy as jnp
    import optax
    tx = optax.adam(LR, eps=1e-7)  # (Keras's epsilon, as tj.optimizers.Adam's)
    state = {"w": [jnp.asarray(w) for w in ws0]}
    state["s"] = tx.init(state["w"])
    batches = {n: (jnp.asarray(x), jnp.asarray(y)) for n, (x, y) in data.items()}
    B = W._JAX()

    @jax.jit
    def step(ws, opt_state, x, y):
        loss, g = jax.value_and_grad(lambda ws: W.mlp_loss(B, ws, x, y))(ws)
        updates, opt_state = tx.update(g, opt_state, ws)
        return optax.apply_updates(ws, updates), opt_state, loss

    def run(n):
        state["w"], state["s"], loss = step(state["w"], state["s"], *batches[n])
        return loss
    return run, lambda loss: float(jax.block_until_ready((state["w"], state["s"], loss))[2])


def _torch(ws0, data):
    import torch
    torch.set_num_threads(1)
    ws = [torch.tensor(w, requires_grad=True) for w in ws0]
    opt = torch.optim.Adam(ws, lr=LR, eps=1e-7, foreach=True)
    batches = {n: (torch.from_numpy(x), torch.from_numpy(y)) for n, (x, y) in data.items()}
    B = W._Torch(torch)

    def run(n):
        opt.zero_grad()
        loss = W.mlp_loss(B, ws, *batches[n])
        loss.backward()
        opt.step()
        return loss
    return run, lambda loss: loss.item()  # (CPU tensors: each op ran synchronously)


def _tf(ws0, data):
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    ws = [tf.Variable(w) for w in ws0]
    opt = tf.keras.optimizers.Adam(LR)
    batches = {n: (tf.constant(x), tf.constant(y)) for n, (x, y) in data.items()}
    B = W._TF(tf)

    def run(n):
        with tf.GradientTape() as tape:
            loss = W.mlp_loss(B, ws, *batches[n])
        opt.apply_gradients(zip(tape.gradient(loss, ws), ws))
        return loss
    return run, lambda loss: [v.numpy() for v in ws] and float(loss.numpy())


def child(mode: str, shapes: int, steps: int, tail: int) -> dict:
    """The loop of ``mode`` in this process: its seconds, the last ``tail`` steps' ms per step, peak memory."""
    ws0, data, sizes = _problem(shapes, steps)
    make = {"tapejax eager": lambda: _tapejax(False, True, ws0, data),
            "tapejax eager (replay off)": lambda: _tapejax(False, False, ws0, data),
            "tj.function": lambda: _tapejax(True, True, ws0, data),
            "jax.jit": lambda: _jax_jit(ws0, data), "torch eager": lambda: _torch(ws0, data),
            "tf eager": lambda: _tf(ws0, data)}[mode]
    run, wait = make()  # (wait(loss): the loss as a float once the updated weights are ready)
    t0 = time.perf_counter()
    for n in sizes[:-tail]:
        loss = run(n)
    wait(loss)
    t1 = time.perf_counter()
    for n in sizes[-tail:]:
        loss = run(n)
    final = wait(loss)
    t2 = time.perf_counter()
    return {"total": t2 - t0, "tail_ms": (t2 - t1) / tail * 1e3, "loss": final,
            "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", type=int, default=100, help="batch sizes drawn from 1..shapes")
    p.add_argument("--steps", type=int, default=3000)
    p.add_argument("--tail", type=int, default=500, help="the last steps, timed apart")
    p.add_argument("--only", default=",".join(MODES), help=f"comma-separated subset of {','.join(MODES)}")
    p.add_argument("--child", default="", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if not 0 < args.tail < args.steps:
        p.error("--tail must be between 1 and --steps - 1")
    if args.child:
        print(json.dumps(child(args.child, args.shapes, args.steps, args.tail)))
        return 0
    print(f"## {args.steps} Adam steps of an MLP on batches of {args.shapes} random sizes (each contender in a fresh "
          "process)\n")
    print(f"| contender | loop s | last {args.tail} steps, ms/step | peak memory MB | final loss |")
    print("|---|---:|---:|---:|---:|")
    for m in [m for m in args.only.split(",") if m]:
        r, why = run_child(__file__, m, ["--shapes", str(args.shapes), "--steps", str(args.steps), "--tail",
                                         str(args.tail)])
        if r is None:
            print(f"| {m} | skipped: {why} | | | |")
            continue
        print(f"| {m} | {r['total']:.1f} | {r['tail_ms']:.3f} | {r['rss_mb']:.0f} | {r['loss']:.4f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
