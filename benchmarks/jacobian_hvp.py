"""Issue-3 benchmarks, side by side in one run.

1. Jacobian of a 256-output function of a 256-vector: tape.jacobian with pfor (one vmapped backward
   pass) versus the row loop (experimental_use_pfor=False).
2. Hessian-vector product of an MLP loss: tapejax forward-over-reverse (ForwardAccumulator around a
   GradientTape) versus jax.jvp(jax.grad(...)) unjitted, and TF's ForwardAccumulator over GradientTape
   when TensorFlow is installed.

Run: .venv/bin/python benchmarks/jacobian_hvp.py
"""
from __future__ import annotations

import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np

import tapejax as tj

tnp = tj.numpy


def timeit(fn, repeats=7, warmup=2):
    for _ in range(warmup):
        fn()
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), (max(ts) - min(ts))


def _block(x):
    jax.block_until_ready(getattr(x, "value", x))
    return x


def bench_jacobian():
    rng = np.random.default_rng(0)
    x = tj.constant(rng.standard_normal(256).astype(np.float32))
    m1 = tj.constant((rng.standard_normal((256, 256)) / 16).astype(np.float32))
    m2 = tj.constant((rng.standard_normal((256, 256)) / 16).astype(np.float32))

    def f(x):
        return tnp.tanh(m2 @ tnp.tanh(m1 @ x))

    def run(pfor):
        with tj.GradientTape(persistent=True) as t:
            t.watch(x)
            y = f(x)
        return _block(t.jacobian(y, x, experimental_use_pfor=pfor))

    pfor, pfor_spread = timeit(lambda: run(True))
    loop, loop_spread = timeit(lambda: run(False), repeats=3, warmup=1)
    ref = jax.jacrev(lambda a: jnp.tanh(m2.value @ jnp.tanh(m1.value @ a)))(x.value)
    assert np.allclose(run(True).numpy(), ref, atol=1e-5)
    rows = [("tapejax jacobian, pfor (vmapped backward)", pfor, pfor_spread),
            ("tapejax jacobian, loop (use_pfor=False)", loop, loop_spread)]
    print("\n### Jacobian, 256 outputs x 256 inputs (2-layer tanh)\n")
    print("| mode | median ms | spread ms | loop / mode |")
    print("|---|---:|---:|---:|")
    for name, t, s in rows:
        print(f"| {name} | {t * 1e3:.1f} | {s * 1e3:.1f} | {loop / t:.1f}x |")


def bench_hvp():
    rng = np.random.default_rng(1)
    sizes = [64, 256, 256, 10]
    ws = [(rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32) for a, b in zip(sizes[:-1], sizes[1:])]
    xb = rng.standard_normal((128, 64)).astype(np.float32)
    yb = rng.standard_normal((128, 10)).astype(np.float32)
    vs = [rng.standard_normal(w.shape).astype(np.float32) for w in ws]

    def loss_j(params):
        h = jnp.asarray(xb)
        for w in params[:-1]:
            h = jnp.tanh(h @ w)
        return jnp.mean((h @ params[-1] - yb) ** 2)

    jparams = [jnp.asarray(w) for w in ws]
    jvs = [jnp.asarray(v) for v in vs]

    def hvp_jax():
        return _block(jax.jvp(jax.grad(loss_j), (jparams,), (jvs,))[1][0])

    tparams = [tj.constant(w) for w in ws]
    tvs = [tj.constant(v) for v in vs]
    x_t, y_t = tj.constant(xb), tj.constant(yb)

    def hvp_tj():
        with tj.ForwardAccumulator(tparams, tvs) as acc:
            with tj.GradientTape() as tape:
                tape.watch(tparams)
                h = x_t
                for w in tparams[:-1]:
                    h = tnp.tanh(h @ w)
                loss = tnp.mean((h @ tparams[-1] - y_t) ** 2)
            grads = tape.gradient(loss, tparams)
        return _block(acc.jvp(grads)[0])

    np.testing.assert_allclose(hvp_tj().numpy(), np.asarray(hvp_jax()), rtol=2e-3, atol=1e-5)
    rows = [("tapejax ForwardAccumulator over GradientTape", *timeit(hvp_tj)),
            ("jax.jvp(jax.grad(loss)) unjitted", *timeit(hvp_jax))]
    try:
        import tensorflow as tf
        tf_params = [tf.constant(w) for w in ws]
        tf_vs = [tf.constant(v) for v in vs]
        xtf, ytf = tf.constant(xb), tf.constant(yb)

        def hvp_tf():
            with tf.autodiff.ForwardAccumulator(tf_params, tf_vs) as acc:
                with tf.GradientTape() as tape:
                    tape.watch(tf_params)
                    h = xtf
                    for w in tf_params[:-1]:
                        h = tf.tanh(h @ w)
                    loss = tf.reduce_mean((h @ tf_params[-1] - ytf) ** 2)
                grads = tape.gradient(loss, tf_params)
            return acc.jvp(grads)[0].numpy()
        rows.append(("TF ForwardAccumulator over GradientTape (eager)", *timeit(hvp_tf)))
    except ImportError:
        print("(TensorFlow not installed: TF row skipped; `make bench` installs it)")
    base = rows[0][1]
    print("\n### Hessian-vector product, MLP 64-256-256-10, batch 128\n")
    print("| implementation | median ms | spread ms | time / tapejax |")
    print("|---|---:|---:|---:|")
    for name, t, s in rows:
        print(f"| {name} | {t * 1e3:.2f} | {s * 1e3:.2f} | {t / base:.2f}x |")


def main():
    print(f"device: {jax.devices()[0]}  jax {jax.__version__}")
    bench_jacobian()
    bench_hvp()


if __name__ == "__main__":
    main()
