"""`make demo`: train a small classifier on a generated two-class spiral, eagerly and compiled.

1. Eagerly: each step runs the forward pass under a ``tj.GradientTape``, asks it for the gradients of the
   loss with respect to the (automatically watched) trainable ``tj.Variable``s, and applies SGD with
   ``assign_sub``.
2. The same Python step wrapped in ``tj.function``: traced once into one XLA program, from the same
   initial weights (the loss curves agree).
3. ``tj.debug.gradcheck`` of the loss against central finite differences.
4. A timing table of one step: tapejax eager, tj.function, and ``jax.jit(jax.value_and_grad)``.
5. A training loop as users write it: the same classifier as a ``tj.Module``, a ``tj.optimizers.Adam``
   (Keras's Adam on optax), a checkpoint saved with ``tj.train.CheckpointManager`` into a temporary
   directory, resumed into a fresh model and optimizer (same loss, same next steps), and the Adam step
   timed eager vs ``tj.function`` vs ``jax.jit(value_and_grad + optax.adam)``, each step until its
   updated variables (weights and Adam moments) are ready.

No downloads; well under a minute on 2 CPU cores.

Run: ``make demo`` or ``.venv/bin/python examples/demo.py [--steps N]``
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time

import jax
import jax.numpy as jnp
import numpy as np
import optax

import tapejax as tj
from tapejax.deferred import replay as tj_replay

tnp = tj.numpy

LR = 0.3
HIDDEN = 64


def spiral(n_per_class: int = 256, noise: float = 0.15, seed: int = 0):
    """Two interleaved spirals in 2-D: (x float32 (2n, 2), one-hot labels float32 (2n, 2))."""
    rng = np.random.default_rng(seed)
    t = np.sqrt(rng.uniform(0.05, 1.0, n_per_class)) * 3 * np.pi
    arm = np.stack([t * np.cos(t), t * np.sin(t)], axis=1) / (3 * np.pi)
    x = np.concatenate([arm, -arm]) + rng.normal(0, noise / 3, (2 * n_per_class, 2))
    y = np.repeat([0, 1], n_per_class)
    return x.astype(np.float32), np.eye(2, dtype=np.float32)[y]


def init_params(seed: int = 1):
    rng = np.random.default_rng(seed)
    return {
        "w1": (rng.standard_normal((2, HIDDEN)) * 2.5).astype(np.float32),
        "b1": np.zeros(HIDDEN, np.float32),
        "w2": (rng.standard_normal((HIDDEN, 2)) / np.sqrt(HIDDEN)).astype(np.float32),
        "b2": np.zeros(2, np.float32),
    }


# -- tapejax ----------------------------------------------------------------------------------------------

def tj_logits(params, x):
    h = tnp.tanh(x @ params["w1"] + params["b1"])
    return h @ params["w2"] + params["b2"]


def tj_loss(params, x, y_onehot):
    return -tnp.mean(tnp.sum(tj.nn.log_softmax(tj_logits(params, x)) * y_onehot, axis=-1))


def tj_step(params, x, y):
    with tj.GradientTape() as tape:
        loss = tj_loss(params, x, y)
    grads = tape.gradient(loss, params)
    for k, v in params.items():
        v.assign_sub(grads[k] * LR)
    return loss


def accuracy(params, x, labels) -> float:
    return float(np.mean(np.argmax(np.asarray(tj_logits(params, x).value), axis=-1) == labels))


# -- the same step in plain JAX, jitted ---------------------------------------------------------------------

def jax_loss(params, x, y_onehot):
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    logits = h @ params["w2"] + params["b2"]
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y_onehot, axis=-1))


@jax.jit
def jax_step(params, x, y):
    loss, grads = jax.value_and_grad(jax_loss)(params, x, y)
    return jax.tree_util.tree_map(lambda p, g: p - LR * g, params, grads), loss


# -- 5. the same classifier as a tj.Module trained with tj.optimizers.Adam ---------------------------------

ADAM_LR = 0.02


class SpiralNet(tj.Module):
    """2-HIDDEN-2 tanh MLP; its Variables are found by tj.Module's tracking (model.trainable_variables)."""

    def __init__(self, seed: int = 1, name=None):
        super().__init__(name=name)
        with self.name_scope:
            self.params = {k: tj.Variable(v, name=k) for k, v in init_params(seed).items()}

    def __call__(self, x):
        return tj_logits(self.params, x)


def xent(logits, y_onehot):
    return -tnp.mean(tnp.sum(tj.nn.log_softmax(logits) * y_onehot, axis=-1))


def make_adam_step(model: SpiralNet, opt):
    def adam_step(x, y):
        with tj.GradientTape() as tape:
            loss = xent(model(x), y)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return adam_step


def jax_adam(params, opt_state, x, y, tx):
    loss, grads = jax.value_and_grad(jax_loss)(params, x, y)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


def module_section(x, y, labels, steps: int, timing_runs: int) -> None:
    model, opt = SpiralNet(), tj.optimizers.Adam(learning_rate=ADAM_LR)
    step = make_adam_step(model, opt)
    half = steps // 2
    with tempfile.TemporaryDirectory(prefix="tapejax-demo-") as tmp:
        manager = tj.train.CheckpointManager(tj.train.Checkpoint(model=model, optimizer=opt), tmp, max_to_keep=2)
        losses = []
        for i in range(1, half + 1):
            losses.append(float(step(x, y)))
            if i % max(1, half // 2) == 0:
                manager.save(step=i)
        saved_loss = float(xent(model(x), y))
        names = ", ".join(v.name for v in model.trainable_variables)
        print(f"  {len(model.trainable_variables)} trainable variables ({names}), "
              f"{len(opt.variables)} optimizer variables (iterations, learning rate, optax's step count and "
              "Adam's moments)")
        print(f"  trained {half} steps (loss {losses[0]:.4f} -> {losses[-1]:.4f}, accuracy "
              f"{accuracy(model.params, x, labels):.3f}); checkpoints kept: steps {manager.steps}")
        after = [float(step(x, y)) for _ in range(3)]  # the run goes on...

        # ... and a new process would resume like this: fresh model and optimizer, restored from disk.
        model2, opt2 = SpiralNet(seed=7), tj.optimizers.Adam(learning_rate=ADAM_LR)
        opt2.build(model2.trainable_variables)  # the optimizer's state exists before its first step: build it
        fresh_loss = float(xent(model2(x), y))
        manager2 = tj.train.CheckpointManager(tj.train.Checkpoint(model=model2, optimizer=opt2), tmp, max_to_keep=2)
        path = manager2.restore()
        restored_loss = float(xent(model2(x), y))
        print(f"  resumed from {path.replace(tmp, '<tmp>')} into a fresh model (loss before restore {fresh_loss:.4f}): "
              f"restored loss {restored_loss:.6f}, saved loss {saved_loss:.6f}, "
              f"iterations {int(opt2.iterations.numpy())}")
        step2 = make_adam_step(model2, opt2)
        resumed = [float(step2(x, y)) for _ in range(3)]
        print(f"  next 3 steps: original {' '.join(f'{v:.6f}' for v in after)}; resumed "
              f"{' '.join(f'{v:.6f}' for v in resumed)}; largest difference "
              f"{max(abs(a - b) for a, b in zip(after, resumed)):.2e}")
        for i in range(half + 4, steps + 1):
            loss = float(step2(x, y))
        print(f"  step {steps:5d}  loss {loss:.4f}  accuracy {accuracy(model2.params, x, labels):.3f} (resumed run)")

    print(f"\n  Adam train step, median of {timing_runs} (each step timed until its updated variables are ready):")
    eager_m, eager_o = SpiralNet(), tj.optimizers.Adam(learning_rate=ADAM_LR)
    eager_step = make_adam_step(eager_m, eager_o)
    fn_m, fn_o = SpiralNet(), tj.optimizers.Adam(learning_rate=ADAM_LR)
    fn_o.build(fn_m.trainable_variables)
    fn_step = tj.function(make_adam_step(fn_m, fn_o))

    def settled(loss, model, opt):
        # (a Variable is a pytree of its current value: waited on without a read op, as jax.jit's state is)
        jax.block_until_ready([loss.value, *model.variables, *opt.variables])

    tx = optax.adam(ADAM_LR, eps=1e-7)
    jit_step = jax.jit(lambda p, s, x, y: jax_adam(p, s, x, y, tx))
    jp = {k: jnp.asarray(v) for k, v in init_params().items()}
    jstate = {"p": jp, "s": tx.init(jp)}
    jx, jy = x.value, y.value

    def jitted():
        jstate["p"], jstate["s"], loss = jit_step(jstate["p"], jstate["s"], jx, jy)
        jax.block_until_ready((jstate, loss))

    names = ["tapejax eager (tape + Adam)", "tapejax tj.function (Adam)", "jax.jit(value_and_grad + optax.adam)"]
    rows = list(zip(names, median_times([lambda: settled(eager_step(x, y), eager_m, eager_o),
                                         lambda: settled(fn_step(x, y), fn_m, fn_o), jitted], timing_runs)))
    print_times(rows)


# -- helpers ----------------------------------------------------------------------------------------------

def sparkline(values) -> str:
    bars = "▁▂▃▄▅▆▇█"
    lo, hi = min(values), max(values)
    return "".join(bars[int((v - lo) / (hi - lo + 1e-12) * (len(bars) - 1))] for v in values)


def train(step, params, x, y, labels, steps: int, title: str):
    every = max(1, steps // 8)
    losses = []
    t0 = time.perf_counter()
    for i in range(1, steps + 1):
        loss = float(step(params, x, y))
        losses.append(loss)
        if i == 1 or i % every == 0 or i == steps:
            print(f"  step {i:5d}  loss {loss:.4f}  accuracy {accuracy(params, x, labels):.3f}")
    dt = time.perf_counter() - t0
    print(f"  {title}: {steps} steps in {dt:.2f} s; loss curve {sparkline(losses[::max(1, steps // 60)])}")
    return losses


def print_times(rows) -> None:
    """The timing table of ``(mode, seconds per step)`` rows, jax.jit's last: each mode's time, its ratio to
    jax.jit's and the host time it adds per step, which is what a step this small shows."""
    base = rows[-1][1]
    width = max(len(name) for name, _ in rows)
    print(f"  {'mode':{width}s} {'ms / step':>10s} {'vs jax.jit':>11s} {'ms added':>9s}")
    for name, t in rows:
        print(f"  {name:{width}s} {t * 1e3:10.3f} {t / base:10.1f}x {(t - base) * 1e3:+9.3f}")
    print(f"  (jax.jit's step of this {HIDDEN}-unit MLP takes {base * 1e3:.2f} ms: the ratios are mostly the host time "
          "each mode adds per step,\n   its dispatch and bookkeeping; benchmarks/adam_step.py (make bench) times the "
          "MLP, CNN and transformer workloads)")


def median_times(fns, n: int) -> list:
    """The median time of each of ``fns``, timed round-robin (one call of each per round) so that the
    machine's state (a core waking from idle, another process) weighs on all of them alike."""
    # An eager step's replay program compiles in the background, and then its program fused with the
    # optimizer's update: time the steady state.
    for fn in fns:
        for _ in range(3):
            for _ in range(3):
                fn()
            tj_replay.wait()
    for _ in range(3):  # (and a few rounds after the last compile, for a warm machine)
        for fn in fns:
            fn()
    ts = [[] for _ in fns]
    for _ in range(n):
        for fn, t in zip(fns, ts):
            t0 = time.perf_counter()
            fn()
            t.append(time.perf_counter() - t0)
    return [statistics.median(t) for t in ts]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=600, help="training steps per mode")
    ap.add_argument("--timing-runs", type=int, default=30, help="timed steps per mode in the table")
    args = ap.parse_args(argv)

    x_np, y_np = spiral()
    labels = np.argmax(y_np, axis=-1)
    x, y = tj.constant(x_np), tj.constant(y_np)
    print(f"2-class spiral, {len(x_np)} points; MLP 2-{HIDDEN}-2 (tanh), softmax cross-entropy, SGD lr={LR}; "
          f"jax {jax.__version__} on {jax.devices()[0].platform}")

    print("\n1. eager: tj.GradientTape + tj.Variable.assign_sub")
    eager_params = {k: tj.Variable(v, name=k) for k, v in init_params().items()}
    eager_losses = train(tj_step, eager_params, x, y, labels, args.steps, "eager")

    print("\n2. compiled: the same step in tj.function (one XLA program per input signature)")
    fn_params = {k: tj.Variable(v, name=k) for k, v in init_params().items()}
    compiled_step = tj.function(tj_step)
    fn_losses = train(compiled_step, fn_params, x, y, labels, args.steps, "tj.function")
    diff = max(abs(a - b) for a, b in zip(eager_losses, fn_losses))
    print(f"  largest difference between the eager and compiled loss curves: {diff:.2e}")

    print("\n3. gradient check (tj.debug.gradcheck: tape vs central finite differences, 24 elements per weight)")
    p0 = {k: tj.constant(v) for k, v in init_params().items()}
    xs, ys = tj.constant(x_np[::16]), tj.constant(y_np[::16])
    check = tj.debug.gradcheck(lambda w1, b1, w2, b2: tj_loss({"w1": w1, "b1": b1, "w2": w2, "b2": b2}, xs, ys),
                               p0["w1"], p0["b1"], p0["w2"], p0["b2"], max_elements=24)
    print(f"  {check}")

    print(f"\n4. one training step, median of {args.timing_runs}:")
    jstate = {"p": {k: jnp.asarray(v) for k, v in init_params().items()}}
    jx, jy = jnp.asarray(x_np), jnp.asarray(y_np)

    def jitted():
        jstate["p"], loss = jax_step(jstate["p"], jx, jy)
        loss.block_until_ready()

    def settled(loss, params):
        # A step is over when its variables are updated, not when its loss is known: an eager step
        # returns with its backward pass and updates still running (jax.jit's come out together).
        # (a Variable is a pytree of its current value: waited on without a read op, as jax.jit's state is)
        jax.block_until_ready([loss.value, *params.values()])

    names = ["tapejax eager (GradientTape)", "tapejax tj.function", "jax.jit(jax.value_and_grad)"]
    rows = list(zip(names, median_times([lambda: settled(tj_step(eager_params, x, y), eager_params),
                                         lambda: settled(compiled_step(fn_params, x, y), fn_params), jitted],
                                        args.timing_runs)))
    print_times(rows)

    print("\n5. a tj.Module trained with tj.optimizers.Adam, checkpointed and resumed (tj.train.CheckpointManager)")
    module_section(x, y, labels, max(8, args.steps // 3), args.timing_runs)
    if not check:
        raise SystemExit("gradcheck failed")


if __name__ == "__main__":
    main()
