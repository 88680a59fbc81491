"""First calls of a train step whose model builds its Variables on its first call (a Keras-style lazy build).

The MLP of the suite (64-256-256-256-10 tanh, batch 128) as layers that create their weights from the input's
width on their first call (normal initial values), trained by Adam. Timed, each in a fresh process (imports
done before the clock starts): the first call (which builds the model and the optimizer's state, traces and
compiles) and the second call (which runs what the first made), each until its updated Variables are ready:

* ``tj.function``   the step as a ``tj.function`` (its first call traces twice, as TF's: graph/function.py)
* ``tapejax eager`` the same step run eagerly (``tj.GradientTape`` + ``tj.optimizers.Adam``)
* ``jax.jit``       ``jax.jit`` of value_and_grad + an optax.adam update, the weights made first (jax has no
                    lazy build: its first call traces and compiles only)
* ``tf.function``   TF's, the layers built lazily as in tapejax (when TensorFlow is importable)

The processes run round-robin, ``--runs`` of each; the table gives medians and the extremes.

Run: ``.venv/bin/python benchmarks/first_call.py [--runs 5] [--only tj.function,jax.jit]``
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

SIZES = [(64, 256), (256, 256), (256, 256), (256, 10)]
BATCH, LR = 128, 1e-3
MODES = ["tj.function", "tapejax eager", "jax.jit", "tf.function"]


def _data():
    rng = np.random.default_rng(0)
    return rng.standard_normal((BATCH, 64)).astype(np.float32), rng.standard_normal((BATCH, 10)).astype(np.float32)


def _tapejax(compiled: bool):
    import tapejax as tj
    tnp = tj.numpy

    class Dense(tj.Module):
        def __init__(self, units, last=False):
            super().__init__()
            self.units, self.last, self.w = units, last, None

        def __call__(self, x):
            if self.w is None:
                self.w = tj.Variable(tj.random.normal([x.shape[-1], self.units]) * 0.1)
            y = x @ self.w
            return y if self.last else tnp.tanh(y)

    layers = [Dense(n, last=k == len(SIZES) - 1) for k, (_, n) in enumerate(SIZES)]
    opt = tj.optimizers.Adam(LR)

    def step(x, y):
        with tj.GradientTape() as tape:
            h = x
            for layer in layers:
                h = layer(h)
            loss = tnp.mean((h - y) ** 2)
        weights = [layer.w for layer in layers]
        opt.apply_gradients(zip(tape.gradient(loss, weights), weights))
        return loss

    fn = tj.function(step) if compiled else step
    x, y = (tj.constant(a) for a in _data())

    def run():
        import jax
        loss = fn(x, y)
        jax.block_until_ready([loss.value] + [layer.w for layer in layers] + opt.variables)
    return run


def _jax_jit():
    import jax
    import jax.numpy as jnp
    import optax
    x, y = (jnp.asarray(a) for a in _data())
    keys = jax.random.split(jax.random.key(0), len(SIZES))
    tx = optax.adam(LR)
    state = {}

    def loss_fn(ws):
        h = x
        for k, w in enumerate(ws):
            h = h @ w if k == len(ws) - 1 else jnp.tanh(h @ w)
        return jnp.mean((h - y) ** 2)

    @jax.jit
    def step(ws, opt_state):
        loss, g = jax.value_and_grad(loss_fn)(ws)
        updates, opt_state = tx.update(g, opt_state, ws)
        return optax.apply_updates(ws, updates), opt_state, loss

    def run():
        if not state:  # (the weights and Adam's state made on the first call, as the lazy builds do)
            ws = [jax.random.normal(k, s) * 0.1 for k, s in zip(keys, SIZES)]
            state["w"], state["s"] = ws, tx.init(ws)
        state["w"], state["s"], loss = step(state["w"], state["s"])
        jax.block_until_ready((state["w"], state["s"], loss))
    return run


def _tf():
    import tensorflow as tf

    class Dense(tf.Module):
        def __init__(self, units, last=False):
            super().__init__()
            self.units, self.last, self.w = units, last, None

        def __call__(self, x):
            if self.w is None:
                self.w = tf.Variable(tf.random.normal([x.shape[-1], self.units]) * 0.1)
            y = x @ self.w
            return y if self.last else tf.tanh(y)

    layers = [Dense(n, last=k == len(SIZES) - 1) for k, (_, n) in enumerate(SIZES)]
    opt = tf.keras.optimizers.Adam(LR)

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            h = x
            for layer in layers:
                h = layer(h)
            loss = tf.reduce_mean((h - y) ** 2)
        weights = [layer.w for layer in layers]
        opt.apply_gradients(zip(tape.gradient(loss, weights), weights))
        return loss

    x, y = (tf.constant(a) for a in _data())

    def run():
        loss = step(x, y)
        loss.numpy()
        for v in [layer.w for layer in layers] + list(opt.variables):
            v.numpy()
    return run


def child(mode: str) -> dict:
    """The first and second call of ``mode`` in this process, in seconds."""
    make = {"tj.function": lambda: _tapejax(True), "tapejax eager": lambda: _tapejax(False), "jax.jit": _jax_jit,
            "tf.function": _tf}[mode]
    run = make()
    times = []
    for _ in range(2):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return {"first": times[0], "second": times[1]}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5, help="fresh processes per contender")
    p.add_argument("--only", default=",".join(MODES), help=f"comma-separated subset of {','.join(MODES)}")
    p.add_argument("--child", default="", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child)))
        return 0
    modes = [m for m in args.only.split(",") if m]
    results = {m: [] for m in modes}
    skipped = {}
    for _ in range(args.runs):
        for m in modes:
            if m in skipped:
                continue
            proc = subprocess.run([sys.executable, __file__, "--child", m], capture_output=True, text=True,
                                  env={**os.environ, "PYTHONPATH": os.path.join(os.path.dirname(__file__), "..", "src")
                                       + os.pathsep + os.environ.get("PYTHONPATH", "")})
            if proc.returncode != 0:
                skipped[m] = (proc.stderr.strip().splitlines() or ["failed"])[-1][:120]
                continue
            results[m].append(json.loads(proc.stdout.strip().splitlines()[-1]))
    print(f"## First calls of a lazily built MLP Adam step ({args.runs} fresh processes each; seconds: median "
          "[min, max])\n")
    print("| contender | first call | second call |")
    print("|---|---:|---:|")
    for m in modes:
        if not results[m]:
            continue
        cells = []
        for k in ("first", "second"):
            v = [r[k] for r in results[m]]
            cells.append(f"{statistics.median(v):.3f} [{min(v):.3f}, {max(v):.3f}]")
        print(f"| {m} | {cells[0]} | {cells[1]} |")
    for m, why in skipped.items():
        print(f"\n{m}: skipped ({why})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
