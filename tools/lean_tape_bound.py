"""How close to the raw-jit floor a Python tape could get on the op-overhead chain (a measurement, not a test).

``benchmarks/chain.py``'s strictly eager contender records each op through the general machinery (argument
unwrapping for every kind of input, differentiable positions, residual plans and trimming, record types,
the op table's relative ids, usage counts, death notices, the general sweep). This times, in one process,
round-robin, that contender, the floor (``chain.setup_raw_jit``: the same jitted kernels called directly)
and a tape that does only what this chain needs: a wrapper per result with an id, a slotted record per op
with its one residual, usage counts kept up to date as results die, and a backward walk that calls the
same two backward kernels as the floor. The gap between the last two is what the general machinery costs.

Run from the repository root: ``PYTHONPATH=src .venv/bin/python tools/lean_tape_bound.py [--rounds 30]``
"""
from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import chain  # noqa: E402

_next_id = itertools.count(1).__next__
_mul, _add, _tanh = jax.jit(jnp.multiply), jax.jit(jnp.add), jax.jit(jnp.tanh)
_tanh_bwd = jax.jit(lambda y, g: g * (1 - y * y))
_mul_bwd = jax.jit(lambda c, g: g * c)
_ones = jax.jit(jnp.ones_like)
_scalars: dict = {}
MUL, ADD, TANH = 0, 1, 2


def _scalar(a: float):
    v = _scalars.get(a)
    if v is None:
        v = _scalars[a] = jnp.asarray(a)
    return v


class _Tensor:
    __slots__ = ("value", "id", "tape")

    def __init__(self, value) -> None:
        self.value, self.id, self.tape = value, _next_id(), None

    def __del__(self) -> None:  # (as the real tape: a dying result gives back its use)
        tape = self.tape
        if tape is not None:
            usage = tape.usage
            n = usage.get(self.id)
            if n is not None:
                if n > 2:
                    usage[self.id] = n - 1
                else:
                    del usage[self.id]


class _Record:
    __slots__ = ("kind", "residual", "input_id")

    def __init__(self, kind: int, residual, input_id: int) -> None:
        self.kind, self.residual, self.input_id = kind, residual, input_id


class _Tape:
    def __init__(self) -> None:
        self.ops: dict = {}
        self.usage: dict = {}

    def record(self, kind: int, residual, out: _Tensor, input_id: int) -> _Tensor:
        n = self.usage.get(input_id)
        self.usage[input_id] = 2 if n is None else n + 1
        self.ops[out.id] = _Record(kind, residual, input_id)
        out.tape = self
        return out

    def gradient(self, target: _Tensor, source: _Tensor):
        g, tid = _ones(target.value), target.id
        while True:
            rec = self.ops.pop(tid, None)
            if rec is None:
                return g if tid == source.id else None
            if rec.kind == MUL:
                g = _mul_bwd(rec.residual, g)
            elif rec.kind == TANH:
                g = _tanh_bwd(rec.residual, g)
            tid = rec.input_id  # (ADD: the gradient passes through)


def setup_lean(iters: int):
    x0_value = jnp.asarray(chain.X0)

    def run():
        tape = _Tape()
        x0 = x = _Tensor(x0_value)
        for _ in range(iters):
            c = _scalar(1.01)
            x = tape.record(MUL, c, _Tensor(_mul(x.value, c)), x.id)
            x = tape.record(ADD, None, _Tensor(_add(x.value, _scalar(0.1))), x.id)
            y = _tanh(x.value)
            x = tape.record(TANH, y, _Tensor(y), x.id)
        return np.asarray(tape.gradient(x, x0).block_until_ready())
    return "lean Python tape (this chain only)", run


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iters", type=int, default=300)
    p.add_argument("--rounds", type=int, default=30)
    args = p.parse_args(argv)
    # (checked on chain.py's short chain: over hundreds of iterations the gradient underflows float32 to zeros)
    np.testing.assert_allclose(setup_lean(chain.CHECK_ITERS)[1](), chain.expected_gradient(chain.CHECK_ITERS),
                               rtol=1e-4)
    contenders = [setup_lean(args.iters), chain.setup_raw_jit(args.iters)[::2],
                  chain.setup_tapejax(args.iters, eager=True)[::2]]
    for _, run in contenders:
        run(), run()
    times: dict = {name: [] for name, _ in contenders}
    for _ in range(args.rounds):
        for name, run in contenders:
            t0 = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - t0)
    floor = statistics.median(times[contenders[1][0]])
    print(f"op-overhead chain, {args.iters} iterations, median of {args.rounds} round-robin rounds")
    for name, ts in times.items():
        m = statistics.median(ts)
        print(f"  {name:52s} {m * 1e3:7.2f} ms  {m / floor:5.2f}x the floor")


if __name__ == "__main__":
    main()
