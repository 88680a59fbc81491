"""Where tj.function's Adam step loses to jax.jit's (a diagnostic, ``adam_step.py``'s contenders).

For each workload: the compiled programs' sizes (fusions and instructions of the optimized HLO's entry
computation, i.e. roughly the kernels launched), and the host time of each part of one step, medians of
``--calls`` calls, nothing blocking inside the timed part but the part itself:

* ``program``      the tj.function's compiled program called on its argument arrays (no Python of ours)
* ``run tj / jax``  that program, and jax.jit's, called and waited for (the device's time, launch included)
* ``call``         ``tj.function`` called as users do (argument checks, program, Variables written back)
* ``block``        ``jax.block_until_ready`` on the loss and every Variable, after the step has finished
* ``step``         the whole step as ``adam_step.py`` times it, against jax.jit's (its call + its block)

It reaches into tj.function's cache of compiled programs (``Function._fast``, an internal that may change):
a diagnostic to read, not a benchmark ``make bench`` runs.

Run: ``.venv/bin/python benchmarks/function_gap.py [--workloads mlp,cnn,transformer] [--hlo DIR]``
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import jax  # noqa: E402

import adam_step as A  # noqa: E402


def _closure(fn) -> dict:
    return {n: c.cell_contents for n, c in zip(fn.__code__.co_freevars, fn.__closure__)}


def _entry_sizes(compiled) -> tuple:
    text = compiled.as_text()
    entry = text[text.index("ENTRY"):]
    return entry.count(" fusion("), len([line for line in entry.splitlines() if " = " in line]), text


def _median_us(fn, calls: int, after=None) -> float:
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        r = fn()
        times.append(time.perf_counter() - t)
        if after is not None:
            after(r)
    return 1e6 * statistics.median(times)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workloads", default="mlp,cnn,transformer")
    p.add_argument("--calls", type=int, default=200)
    p.add_argument("--hlo", default="", help="a folder to write each optimized program's text to")
    a = p.parse_args(argv)
    dev = jax.devices()[0]
    print(f"{dev.device_kind}, jax {jax.__version__}; medians of {a.calls} calls, microseconds")
    print("| workload | fusions tj / jax | instructions tj / jax | program | run tj / jax | call | block |"
          " step tj.function | step jax.jit | step ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for kind in a.workloads.split(","):
        run_tj, _ = A.build_tapejax(kind, "default", dev, compiled=True)
        run_jx, _ = A.build_jax_jit(kind, "default", dev)
        for _ in range(5):
            run_tj(), run_jx()
        c = _closure(run_tj)
        fn, x, y, every = c["fn"], c["x"], c["y"], c["every"]
        (conc, variables), = fn._fast.values()
        var_vals = [v.value().value for v in variables]
        dyn = [x.value, y.value] + [t.value for t in conc.tensors]
        j = _closure(run_jx)
        state, step = j["state"], j["step"]
        f_tj, n_tj, text_tj = _entry_sizes(conc.jitted.lower(var_vals, dyn).compile())
        f_jx, n_jx, text_jx = _entry_sizes(step.lower(state["p"], state["s"], j["x"], j["y"]).compile())
        if a.hlo:
            Path(a.hlo).mkdir(parents=True, exist_ok=True)
            Path(a.hlo, f"{kind}_tj.txt").write_text(text_tj)
            Path(a.hlo, f"{kind}_jax.txt").write_text(text_jx)
        program = _median_us(lambda: conc.jitted(var_vals, dyn), a.calls, jax.block_until_ready)

        def run_program():
            return jax.block_until_ready(conc.jitted(var_vals, dyn))

        def run_jax():
            return jax.block_until_ready(step(state["p"], state["s"], j["x"], j["y"]))
        run_both = [(_median_us(run_program, 20), _median_us(run_jax, 20)) for _ in range(max(1, a.calls // 20))]
        r_tj, r_jx = (statistics.median(r[k] for r in run_both) for k in (0, 1))
        last = {}

        def call():
            last["lo"] = fn(x, y)
        call_us = _median_us(call, a.calls, lambda _: jax.block_until_ready([last["lo"].value] + every))
        block = _median_us(lambda: jax.block_until_ready([last["lo"].value] + every), a.calls)
        rounds = [(_median_us(run_tj, 20), _median_us(run_jx, 20)) for _ in range(max(1, a.calls // 20))]
        s_tj = statistics.median(r[0] for r in rounds)
        s_jx = statistics.median(r[1] for r in rounds)
        print(f"| {kind} | {f_tj} / {f_jx} | {n_tj} / {n_jx} | {program:.0f} | {r_tj:.0f} / {r_jx:.0f} |"
              f" {call_us:.0f} | {block:.0f} | {s_tj:.0f} | {s_jx:.0f} | {s_tj / s_jx:.2f}x |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
