"""Paired same-process comparison of two revisions of tapejax: the chain (default and strictly eager) and
the replayed MLP train step, each run of one revision followed by a run of the other.

before_after.sh runs each revision in its own process, minutes apart; on a shared machine whose speed
changes from phase to phase the ratios of two such runs differ by several percent. Here both revisions
are imported into one process (the other revision's ``src/tapejax`` exported with ``git archive`` under
the package name ``tapejax_before``: tapejax imports itself relatively), and every sample is the ratio
of two runs made back to back, their order alternating, so a phase of the machine slows both. The table
gives the median ratio after / before and its interquartile range; a run of a revision against itself
gives 1.00 within about 1%.

Run: ``.venv/bin/python benchmarks/paired.py BEFORE_REV [--samples 300] [--only chain,eager,mlp]`` (also
``adam_mlp``, ``adam_cnn``, ``adam_transformer``: adam_step.py's eager step, fused and dispatched ahead;
``clip_mlp``: the MLP's with the gradients clipped by global norm first; ``read_mlp``: with the loss read
before the update; ``batch_mlp``, ``batch_transformer``: a new batch made by tj.constant before each step;
``numpy_mlp``: an MLP fed NumPy batches straight; ``function_mlp``, ``function_transformer``: the Adam step as a
``tj.function``; ``function_args``: that MLP step taking a dict of the model's Variables as an argument)
(the work tree is "after").
"""
from __future__ import annotations

import argparse
import importlib
import io
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List, Tuple

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import numpy as np  # noqa: E402

BEFORE_NAME = "tapejax_before"


def import_revision(rev: str, into: Path):
    """The tapejax package of ``rev`` imported as ``tapejax_before``."""
    data = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src/tapejax"], check=True,
                          capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    (into / "src" / "tapejax").rename(into / BEFORE_NAME)
    sys.path.insert(0, str(into))
    return importlib.import_module(BEFORE_NAME)


def wait_for_programs(tj) -> None:
    importlib.import_module(tj.__name__ + ".deferred.replay").wait()


# -- workloads: each returns run() -> seconds of one step -----------------------------------------------

def chain(tj, lazy: bool, iters: int = 300) -> Callable[[], float]:
    """benchmarks/chain.py's op-overhead chain (its tapejax contender): record, then the gradient on the host."""
    import chain as chain_benchmark
    step = chain_benchmark.setup_tapejax(iters, eager=not lazy, tj=tj)[2]

    def run() -> float:
        t0 = time.perf_counter()
        step()
        return time.perf_counter() - t0
    return run


def forward_chain(tj, iters: int = 300) -> Callable[[], float]:
    """The op-overhead chain under one ``ForwardAccumulator`` (forward mode runs op by op), until its tangent
    is on the host."""
    import chain as chain_benchmark
    x0 = tj.constant(chain_benchmark.X0)
    t0 = tj.constant(np.ones_like(chain_benchmark.X0))
    tnp = tj.numpy

    def run() -> float:
        start = time.perf_counter()
        with tj.ForwardAccumulator(x0, t0) as acc:
            x = x0
            for _ in range(iters // 3):
                x = tnp.tanh(x * 1.01 + 0.1)
        np.asarray(acc.jvp(x).value)
        return time.perf_counter() - start
    return run


def mlp_step(tj) -> Callable[[], float]:
    """train_step.py's MLP: tape, gradient, ``assign_sub`` of each weight, until the weights are ready."""
    import jax
    import workloads as W
    loss, p0, x0, y0, _ = W._train_problem("mlp", 1.0)
    tnp = tj.numpy

    class Backend:
        tanh = staticmethod(tnp.tanh)
        mean = staticmethod(tnp.mean)
    b = Backend()
    params = [tj.Variable(p.astype(np.float32)) for p in p0]
    x, y = tj.constant(x0.astype(np.float32)), tj.constant(y0.astype(np.float32))

    def run() -> float:
        t0 = time.perf_counter()
        with tj.GradientTape() as tape:
            lo = loss(b, params, x, y)
        grads = tape.gradient(lo, params)
        for p, g in zip(params, grads):
            p.assign_sub(g * 1e-3)
        jax.block_until_ready([lo.value] + [p.read_value().value for p in params])
        return time.perf_counter() - t0
    return run


def adam_step(tj, kind: str, clip: bool = False, read_loss: bool = False, batches: bool = False,
              compiled: bool = False, scale: float = 1.0, params_in: bool = False) -> Callable[[], float]:
    """adam_step.py's eager contender on workload ``kind``: tape, gradient, ``tj.optimizers.Adam`` (fused into the
    replayed step and dispatched ahead, as by default), until the weights and Adam's state are ready. With
    ``batches``, each step reads a new batch made by ``tj.constant`` just before it (a loader's loop; the
    conversion is not timed), from 8 NumPy batches in turn. With ``compiled``, the step is a ``tj.function``
    (adam_step.py's tj.function contender); ``scale`` sizes the model (workloads.SCALES); with ``params_in`` the
    step takes the model's Variables as an argument (a dict of them), as well as the batch."""
    import jax
    import workloads as W
    loss, p0, x0, y0, _ = W._train_problem(kind, scale)
    b = W._TJ()
    b.np, b.nn = tj.numpy, tj.nn  # (this revision's ops)
    params = [tj.Variable(p.astype(np.float32)) for p in p0]
    x, y = tj.constant(x0.astype(np.float32)), tj.constant(y0.astype(np.float32))
    opt = tj.optimizers.Adam(learning_rate=1e-3)
    opt.build(params)
    every = params + opt.variables
    host = [(x0.astype(np.float32) + 0.01 * k, y0.astype(np.float32)) for k in range(8)]
    count = [0]

    named = {f"w{k}": p for k, p in enumerate(params)}

    def step(x, y, weights=None):
        ps = params if weights is None else [weights[f"w{k}"] for k in range(len(params))]
        with tj.GradientTape() as tape:
            lo = loss(b, ps, x, y)
        grads = tape.gradient(lo, ps)
        if read_loss:  # (the loss printed before the update)
            float(lo.numpy())
        if clip:
            grads = tj.clip_by_global_norm(grads, 1.0)[0]
        opt.apply_gradients(zip(grads, ps))
        return lo
    fn = tj.function(step) if compiled else step

    def run() -> float:
        nonlocal x, y
        if batches:
            count[0] += 1
            x, y = (tj.constant(a) for a in host[count[0] % 8])
        t0 = time.perf_counter()
        lo = fn(x, y, named) if params_in else fn(x, y)
        jax.block_until_ready([lo.value] + every)
        return time.perf_counter() - t0
    return run


def numpy_step(tj) -> Callable[[], float]:
    """A 64-256-256-10 tanh MLP's Adam step fed NumPy batches straight (``tnp.matmul(x, w)``, as TF takes
    them), 8 batches in turn, until the weights and Adam's state are ready."""
    import jax
    tnp = tj.numpy
    rng = np.random.default_rng(0)
    ws = [tj.Variable((rng.standard_normal(s) * 0.1).astype(np.float32)) for s in [(64, 256), (256, 256), (256, 10)]]
    opt = tj.optimizers.Adam(1e-3)
    batches = [(rng.standard_normal((128, 64)).astype(np.float32), rng.standard_normal((128, 10)).astype(np.float32))
               for _ in range(8)]
    count = [0]

    def run() -> float:
        count[0] += 1
        x, y = batches[count[0] % 8]
        t0 = time.perf_counter()
        with tj.GradientTape() as tape:
            h = tnp.tanh(tnp.tanh(tnp.matmul(x, ws[0])) @ ws[1])
            loss = tnp.mean((h @ ws[2] - y) ** 2)
        opt.apply_gradients(zip(tape.gradient(loss, ws), ws))
        jax.block_until_ready([loss.value] + ws + opt.variables)
        return time.perf_counter() - t0
    return run


WORKLOADS: Dict[str, Tuple[str, Callable]] = {
    "chain": ("chain, default (deferred, replayed)", lambda tj: chain(tj, True)),
    "eager": ("chain, strictly eager (lazy=False)", lambda tj: chain(tj, False)),
    "mlp": ("MLP train step, replayed", mlp_step),
    "forward": ("chain under a ForwardAccumulator (op by op)", forward_chain),
    # (on request: --only adam_mlp,adam_cnn,adam_transformer)
    "adam_mlp": ("MLP Adam step, fused (adam_step.py's eager)", lambda tj: adam_step(tj, "mlp")),
    "clip_mlp": ("MLP Adam step, gradients clipped by global norm first", lambda tj: adam_step(tj, "mlp", True)),
    "read_mlp": ("MLP Adam step, the loss read before the update",
                 lambda tj: adam_step(tj, "mlp", read_loss=True)),
    "batch_mlp": ("MLP Adam step, a new batch made by tj.constant each step",
                  lambda tj: adam_step(tj, "mlp", batches=True)),
    "batch_transformer": ("transformer Adam step, a new batch made by tj.constant each step",
                          lambda tj: adam_step(tj, "transformer", batches=True)),
    "numpy_mlp": ("MLP Adam step fed NumPy batches", numpy_step),
    "function_mlp": ("MLP Adam step as a tj.function, the model at a quarter of its width (the call's overhead shows)",
                     lambda tj: adam_step(tj, "mlp", compiled=True, scale=0.25)),
    "function_args": ("MLP Adam step as a tj.function taking a dict of the model's Variables, at a quarter of its "
                      "width", lambda tj: adam_step(tj, "mlp", compiled=True, scale=0.25, params_in=True)),
    "function_transformer": ("transformer Adam step as a tj.function",
                             lambda tj: adam_step(tj, "transformer", compiled=True)),
    "adam_cnn": ("CNN Adam step, fused (adam_step.py's eager)", lambda tj: adam_step(tj, "cnn")),
    "adam_transformer": ("transformer Adam step, fused (adam_step.py's eager)",
                         lambda tj: adam_step(tj, "transformer")),
}
DEFAULT = ["chain", "eager", "mlp"]


def paired(before: Callable[[], float], after: Callable[[], float], samples: int) -> List[float]:
    ratios = []
    for i in range(samples):
        if i % 2:
            b, a = before(), after()
        else:
            a, b = after(), before()
        ratios.append(a / b)
    return sorted(ratios)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("before", help="the revision to compare the work tree with (e.g. HEAD~3)")
    p.add_argument("--samples", type=int, default=300, help="paired runs per workload")
    p.add_argument("--only", default=",".join(DEFAULT), help=f"comma-separated subset of {','.join(WORKLOADS)}")
    args = p.parse_args(argv)
    import tapejax as after_tj
    with tempfile.TemporaryDirectory() as d:
        before_tj = import_revision(args.before, Path(d))
        print(f"after: the work tree; before: {args.before}; {args.samples} paired samples each\n")
        print("| workload | after / before, median | interquartile range | before, median ms |")
        print("|---|---:|---:|---:|")
        for key in [k for k in args.only.split(",") if k]:
            name, make = WORKLOADS[key]
            runs = {}
            for tj in (before_tj, after_tj):
                runs[tj] = make(tj)
                for _ in range(4):  # warm: kernels compiled, then the replay programs
                    runs[tj]()
                wait_for_programs(tj)
                for _ in range(4):
                    runs[tj]()
                wait_for_programs(tj)
            r = paired(runs[before_tj], runs[after_tj], args.samples)
            m, q = len(r) // 2, len(r) // 4
            base = sorted(runs[before_tj]() for _ in range(9))[4]
            print(f"| {name} | {r[m]:.3f} | {r[q]:.3f} - {r[m + q]:.3f} | {base * 1e3:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
