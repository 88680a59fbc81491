"""Does recording change a value? Every registered op on its samples, bit for bit (signed zeros told apart).

Checks, each against the same op run unrecorded (no tape, no accumulator):
  forward    the op's outputs on a tape (strictly eager and deferred) and under a ForwardAccumulator
  gradient   the first-order gradient with an outer tape recording the backward pass (higher order), against
             the same gradient with no outer tape; and the gradient deferred against strictly eager

``--grow`` repeats each float array argument 4 times along its last axis (where the op still accepts it), for
reductions and scans whose axes the samples keep short. Under the test suite's cheap XLA flags
(tests/conftest.py) two compiled programs of the same computation may round differently; run with XLA's
defaults, as here, to see tapejax's own differences.

Found with it: prod, cumprod and batch_norm's recorded values (fixed in 6b5e954). Known: with an outer tape, the
gradient is the backward op's recorded value, computed by another compiled program (the backward with its own
residuals), which XLA rounds differently for 24 samples (1 to 19 units in the last place).

Run: ``PYTHONPATH=src .venv/bin/python tools/recorded_values.py [--grow] [--only forward|gradient]``
"""
from __future__ import annotations

import argparse
import warnings

import jax
import jax.numpy as jnp
import numpy as np

import tapejax as tj
from tapejax.ops.core import apply, registry


def bits(t) -> bytes:
    return np.atleast_1d(np.asarray(t.value)).view(np.uint8).tobytes()


def ulps(a, b) -> float:
    a, b = np.asarray(a.value), np.asarray(b.value)
    if a.dtype.kind != "f":
        return float("nan")
    spacing = np.spacing(np.maximum(np.abs(a), np.abs(b)).astype(a.dtype)).astype(np.float64)
    return float(np.max(np.abs(a.astype(np.float64) - b) / spacing))


def grown(a):
    if isinstance(a, np.ndarray) and a.dtype.kind == "f" and a.ndim >= 1:
        reps = [1] * (a.ndim - 1) + [4]
        return np.tile(a, reps) * np.float32(1.0001) ** np.arange(a.shape[-1] * 4, dtype=a.dtype)
    return a


def float_outs(out) -> list:
    return [o for o in (out if isinstance(out, tuple) else (out,)) if jnp.issubdtype(o.dtype, jnp.floating)]


def as_sources(args) -> tuple:
    """The op's arguments with each float array a Tensor (what a tape watches), and those Tensors."""
    ts = [tj.constant(a) if isinstance(a, jax.Array) and jnp.issubdtype(a.dtype, jnp.floating) else a for a in args]
    return ts, [t for t in ts if isinstance(t, tj.Tensor)]


def forward_differences(op, args, static) -> list:
    plain = float_outs(apply(op, args, dict(static)))
    ts, srcs = as_sources(args)
    found = []
    for how in ("strictly eager", "deferred", "accumulator"):
        with tj.config.override(lazy=how == "deferred", replay=False):
            if how == "accumulator":
                with tj.ForwardAccumulator(srcs, [np.ones(t.shape, t.dtype) for t in srcs]):
                    got = float_outs(apply(op, ts, dict(static)))
            else:
                with tj.GradientTape() as tape:
                    tape.watch(srcs)
                    got = float_outs(apply(op, ts, dict(static)))
        found += [(f"forward {how}, output {k}", ulps(g, p)) for k, (g, p) in enumerate(zip(got, plain))
                  if bits(g) != bits(p)]
    return found


def gradient_differences(op, args, static) -> list:
    ts, srcs = as_sources(args)

    def gradients(outer: bool, lazy: bool):
        with tj.config.override(lazy=lazy, replay=False), tj.GradientTape(persistent=True) as o:
            if outer:
                o.watch(srcs)
            with tj.GradientTape() as t:
                t.watch(srcs)
                outs = float_outs(apply(op, ts, dict(static)))
            cts = [np.random.default_rng(1).normal(size=x.shape).astype(x.dtype) for x in outs]
            return t.gradient(outs, srcs, output_gradients=cts)

    plain = gradients(False, False)
    found = []
    for what, got in (("gradient under an outer tape", gradients(True, False)),
                      ("gradient deferred", gradients(False, True))):
        for k, (g, p) in enumerate(zip(got, plain)):
            if (g is None) != (p is None):
                found.append((f"{what}, source {k}: None on one side", float("nan")))
            elif g is not None and bits(g) != bits(p):
                found.append((f"{what}, source {k}", ulps(g, p)))
    return found


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--grow", action="store_true", help="float arguments 4x longer along their last axis")
    p.add_argument("--only", choices=("forward", "gradient"), help="one of the two checks")
    a = p.parse_args(argv)
    warnings.filterwarnings("ignore")
    ops = {n: op for n, op in sorted(registry().items()) if not op.user_defined}
    checks = [c for name, c in (("forward", forward_differences), ("gradient", gradient_differences))
              if a.only in (None, name)]
    count = 0
    for name, op in ops.items():
        for i, (args, static) in enumerate(op.samples()):
            args = tuple(grown(x) if a.grow else x for x in args)
            args = tuple(jax.device_put(x) if isinstance(x, (np.ndarray, np.generic)) else x for x in args)
            if not any(isinstance(x, jax.Array) and jnp.issubdtype(x.dtype, jnp.floating) for x in args):
                continue
            for check in checks:
                try:
                    found = check(op, args, static)
                except Exception as e:  # noqa: BLE001  (a grown argument the op refuses, an op with no gradient)
                    if not a.grow:
                        print(f"{name} sample {i}: {check.__name__} raised {type(e).__name__}: {str(e)[:100]}")
                    continue
                for what, u in found:
                    count += 1
                    print(f"{name} sample {i}: {what} differs ({u:.0f} units in the last place at most)")
    print(f"{count} differences over {len(ops)} ops")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
