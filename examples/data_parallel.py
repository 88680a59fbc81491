"""Data-parallel training with tapejax: tj.function + GradientTape + jax.sharding.

The batch is sharded over a 1-D ``Mesh`` of every device ("data" axis); the parameters (tj.Variables) are
replicated. Nothing in the training step mentions devices: XLA inserts the all-reduce of the gradients
when it compiles the ``tj.function``. The same script runs

* on one device (the reference),
* on 8 simulated CPU devices in one process::

      XLA_FLAGS=--xla_force_host_platform_device_count=8 python examples/data_parallel.py

  (this is the default: the script sets that flag itself when XLA_FLAGS is unset), and
* on 2 processes with 4 devices each, JAX's multi-controller runtime doing the communication::

      python -m tapejax.launch -n 2 --local-devices 4 examples/data_parallel.py

In one process it trains twice, on one device and on all of them, and prints the largest difference of
losses and parameters. ``--mode eager`` runs the step op by op instead (same numbers); with ``--out FILE``
process 0 writes ``{"function": {"losses": [...], "params": [...]}, ...}`` as JSON.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import numpy as np  # noqa: E402

import tapejax as tj  # noqa: E402  (importing tapejax does not start JAX's backend)
import tapejax.distributed as tjd  # noqa: E402

D_IN, HIDDEN, D_OUT = 8, 16, 2
BATCH, N_BATCHES = 64, 4


def make_data(seed: int = 0):
    """A fixed regression data set: N_BATCHES batches of BATCH rows."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(N_BATCHES, BATCH, D_IN)).astype(np.float32)
    w = rng.normal(size=(D_IN, D_OUT)).astype(np.float32)
    y = np.tanh(x @ w) + 0.1 * rng.normal(size=(N_BATCHES, BATCH, D_OUT)).astype(np.float32)
    return x, y.astype(np.float32)


def init_params(seed: int = 1):
    rng = np.random.default_rng(seed)
    return [(rng.normal(size=(D_IN, HIDDEN)) / np.sqrt(D_IN)).astype(np.float32),
            np.zeros(HIDDEN, np.float32),
            (rng.normal(size=(HIDDEN, D_OUT)) / np.sqrt(HIDDEN)).astype(np.float32),
            np.zeros(D_OUT, np.float32)]


def train(devices=None, steps: int = 12, lr: float = 0.1, eager: bool = False):
    """Train the MLP with the batch sharded over ``devices`` (default: all devices of all processes);
    ``eager`` runs the step op by op instead of as one ``tj.function``. Returns (losses, parameters)
    as numpy values."""
    import jax
    from jax.sharding import Mesh

    tnp = tj.numpy
    devices = list(jax.devices() if devices is None else devices)
    mesh = Mesh(np.array(devices), ("data",))
    params = [tj.Variable(tjd.replicate(p, mesh), name=n)
              for p, n in zip(init_params(), ("w1", "b1", "w2", "b2"))]
    w1, b1, w2, b2 = params

    def step(x, y):
        with tj.GradientTape() as tape:
            h = tj.nn.relu(x @ w1 + b1)
            pred = h @ w2 + b2
            loss = tnp.mean((pred - y) ** 2)
        grads = tape.gradient(loss, params)
        for v, g in zip(params, grads):
            v.assign_sub(lr * g)
        return loss

    if not eager:
        step = tj.function(step)
    xs, ys = make_data()
    # This process's rows of each global batch (all of them in a single-process run).
    n_proc, me = jax.process_count(), jax.process_index()
    rows = slice(me * BATCH // n_proc, (me + 1) * BATCH // n_proc)
    batches = [(tjd.shard_batch(xs[i][rows], mesh), tjd.shard_batch(ys[i][rows], mesh))
               for i in range(N_BATCHES)]
    losses = []
    for s in range(steps):
        x, y = batches[s % N_BATCHES]
        losses.append(float(tjd.to_numpy(step(x, y))))
    return np.asarray(losses), [tjd.to_numpy(v) for v in params]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--mode", choices=("function", "eager", "both"), default="function",
                        help="run the step as one tj.function, op by op (eager), or both")
    parser.add_argument("--out", default=None, help="write losses and parameters (process 0) as JSON")
    parser.add_argument("--no-reference", action="store_true", help="skip the one-device run")
    ns = parser.parse_args(argv)

    multi = tjd.initialize()  # joins the launcher's processes; False in a plain single-process run
    import jax

    me = jax.process_index()
    record = {"process_count": jax.process_count(), "device_count": jax.device_count()}
    for mode in (("function", "eager") if ns.mode == "both" else (ns.mode,)):
        losses, params = train(steps=ns.steps, eager=(mode == "eager"))
        record[mode] = {"losses": losses.tolist(), "params": [p.tolist() for p in params]}
        if me == 0:
            print(f"[{mode}] {jax.process_count()} process(es), {jax.device_count()} devices "
                  f"({jax.local_device_count()} local): loss {losses[0]:.5f} -> {losses[-1]:.5f}")
        if not multi and not ns.no_reference:
            ref_losses, ref_params = train(devices=jax.devices()[:1], steps=ns.steps, eager=(mode == "eager"))
            dl = float(np.max(np.abs(losses - ref_losses)))
            dp = max(float(np.max(np.abs(a - b))) for a, b in zip(params, ref_params))
            print(f"[{mode}] vs one device: max |loss diff| {dl:.2e}, max |param diff| {dp:.2e}")
    if ns.out and me == 0:
        with open(ns.out, "w") as f:
            json.dump(record, f)
    tjd.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
