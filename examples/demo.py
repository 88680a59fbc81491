"""Train a 2-layer MLP on a generated two-class spiral, eagerly, with tj.GradientTape and tj.Variable.

Each step runs the forward pass under a tape, asks it for the gradients of the loss with respect to
the (automatically watched) trainable Variables and applies plain SGD with ``assign_sub``. At the end
the same step is timed against ``jax.jit(jax.value_and_grad(loss))`` (and ``tj.function`` where
available). No downloads; about 15 seconds on 2 CPU cores.

Run: ``make demo`` or ``.venv/bin/python examples/demo.py``
"""
from __future__ import annotations

import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np

import tapejax as tj

tnp = tj.numpy

STEPS = 1000
PRINT_EVERY = 100
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


# -- tapejax: eager ------------------------------------------------------------------------------------

def tj_loss(params, x, y_onehot):
    h = tnp.tanh(x @ params["w1"] + params["b1"])
    logits = h @ params["w2"] + params["b2"]
    return -tnp.mean(tnp.sum(tj.nn.log_softmax(logits) * y_onehot, axis=-1))


def tj_accuracy(params, x, labels):
    h = tnp.tanh(x @ params["w1"] + params["b1"])
    logits = h @ params["w2"] + params["b2"]
    return float(np.mean(np.argmax(np.asarray(logits), axis=-1) == labels))


def tj_step(params, x, y):
    with tj.GradientTape() as tape:
        loss = tj_loss(params, x, y)
    grads = tape.gradient(loss, params)
    for k, v in params.items():
        v.assign_sub(grads[k] * LR)
    return loss


# -- the same step in plain JAX, jitted --------------------------------------------------------------------

def jax_loss(params, x, y_onehot):
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    logits = h @ params["w2"] + params["b2"]
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y_onehot, axis=-1))


@jax.jit
def jax_step(params, x, y):
    loss, grads = jax.value_and_grad(jax_loss)(params, x, y)
    return jax.tree_util.tree_map(lambda p, g: p - LR * g, params, grads), loss


def median_step_time(step, n: int = 30) -> float:
    step()  # warm
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        step()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def main() -> None:
    x_np, y_np = spiral()
    labels = np.argmax(y_np, axis=-1)
    x, y = tj.constant(x_np), tj.constant(y_np)
    params = {k: tj.Variable(v, name=k) for k, v in init_params().items()}

    print(f"2-class spiral, {len(x_np)} points; MLP 2-{HIDDEN}-2 (tanh), softmax cross-entropy, SGD lr={LR}")
    t0 = time.perf_counter()
    for step in range(1, STEPS + 1):
        loss = tj_step(params, x, y)
        if step == 1 or step % PRINT_EVERY == 0:
            print(f"step {step:4d}  loss {float(loss):.4f}  accuracy {tj_accuracy(params, x, labels):.3f}")
    train_s = time.perf_counter() - t0
    print(f"trained {STEPS} eager steps in {train_s:.2f} s")

    # The same step, timed: eager tapejax vs jax.jit(jax.value_and_grad(...)) (and tj.function if present).
    def eager():
        jax.block_until_ready(tj_step(params, x, y).value)

    jparams = {k: jnp.asarray(v) for k, v in init_params().items()}
    jx, jy = jnp.asarray(x_np), jnp.asarray(y_np)
    state = {"p": jparams}

    def jitted():
        state["p"], loss = jax_step(state["p"], jx, jy)
        loss.block_until_ready()

    rows = [("tapejax eager GradientTape", median_step_time(eager)),
            ("jax.jit(jax.value_and_grad)", median_step_time(jitted))]
    if hasattr(tj, "function"):
        try:
            compiled = tj.function(tj_step)

            def tj_fn():
                jax.block_until_ready(getattr(compiled(params, x, y), "value", None))
            rows.append(("tj.function (compiled step)", median_step_time(tj_fn)))
        except Exception as e:  # optional: report, do not fail the demo
            print(f"(tj.function not timed: {type(e).__name__}: {e})")
    base = rows[0][1]
    print("\nper training step (median of 30):")
    for name, t in rows:
        print(f"  {name:30s} {t * 1e3:8.3f} ms   ({base / t:5.1f}x vs eager)")


if __name__ == "__main__":
    main()
