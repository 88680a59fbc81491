"""Adam train step side by side: tapejax eager and tj.function against jax.jit, torch eager and TF eager.

The MLP, CNN and transformer workloads of the suite (``workloads.py``: same losses, shapes, initial
weights and data), each trained with Adam (learning rate 1e-3, betas 0.9/0.999, epsilon 1e-7):

* ``tapejax eager``   ``tj.GradientTape`` + ``tape.gradient`` + ``tj.optimizers.Adam.apply_gradients``,
  the defaults (ops deferred while the tape records, the recurring step replayed as one program with the
  update, dispatched ahead at the op that reads the step's last input); on request (``--only``)
  ``tapejax eager (not ahead)``, the same with ``tj.config.replay_ahead = False``
* ``tj.function``     the same Python step traced into one XLA program
* ``jax.jit``         ``jax.jit`` of ``jax.value_and_grad`` + ``optax.adam`` update + ``optax.apply_updates``
* ``torch eager``     the model translated to ``torch.nn`` (Linear/tanh MLP, Conv2d CNN, one-head attention
  block, no biases, same shapes and initial weights), ``loss.backward()`` + ``torch.optim.Adam(foreach=True)``
* ``tf eager``        ``tf.GradientTape`` + ``tf.keras.optimizers.Adam``, when TensorFlow is importable

Every step is timed until its updated variables are ready: the weights and the optimizer's state
(an eager tapejax step returns with its backward pass and update still running on the device;
jax.jit's new parameters, state and loss come out of one program; torch and TF eager on CPU run each
op synchronously, torch on CUDA is synchronized). Contenders run round-robin in one process: each
round runs ``--steps`` timed steps of every contender, in a shuffled order; the table gives medians
over all rounds and the ratios to jax.jit and to torch eager of the same workload. A framework that
is not installed is skipped with a note.

torch's CPU threads: ``--torch-threads`` (default 1; 0 keeps torch's default, one OpenMP thread per
core). Interleaved with JAX on a small shared machine, torch's default OpenMP pool collapses: on the
2-core development machine the MLP step went from ~4 ms (1 thread) to ~170 ms (2 threads) when
alternated with jax.jit steps, as XLA's own worker threads and other processes take the cores its
barrier waits on. One thread is the fair setting there; on a larger idle machine try 0. TF's thread
pools likewise (``--tf-threads``, default 1: ``workloads.limit_tf_threads``).

Run: ``.venv/bin/python benchmarks/adam_step.py [--rounds 30] [--steps 5] [--workloads mlp,cnn,transformer]``
(``make bench`` runs it after the suite, through ``run.py``.)
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Dict, List

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import jax  # noqa: E402
import numpy as np  # noqa: E402

import workloads as W  # noqa: E402

LR, B1, B2, EPS = 1e-3, 0.9, 0.999, 1e-7
CONTENDERS = ["tapejax eager", "tj.function", "jax.jit", "torch eager", "tf eager"]
# On request (--only) only: the eager step without dispatching the next fused step ahead (tj.config.replay_ahead)
EXTRA_CONTENDERS = ["tapejax eager (not ahead)"]
WORKLOADS = ["mlp", "cnn", "transformer"]
# The targets (ratios of medians): contender -> (baseline, at most).
TARGETS = {"tapejax eager": [("jax.jit", 1.15), ("torch eager", 0.8)], "tj.function": [("jax.jit", 1.05)]}


def problem(kind: str, size: str):
    """(loss, initial weights, x, y, description) of a workload, float32."""
    loss, p0, x, y, desc = W._train_problem(kind, W.SCALES[size])
    return loss, p0, x.astype(np.float32), y.astype(np.float32), desc


def tapejax_problem(kind: str, size: str, device):
    """(loss, tapejax backend, Variables, x, y) of a workload on ``device``."""
    import tapejax as tj
    loss, p0, x0, y0, _ = problem(kind, size)
    with jax.default_device(device):
        params = [tj.Variable(p, name=f"w{i}") for i, p in enumerate(p0)]
        x, y = tj.constant(x0), tj.constant(y0)
    return loss, W._TJ(), params, x, y


# -- contenders: build(kind, size, device) -> (step, first_loss) ------------------------------------------

def build_tapejax(kind: str, size: str, device, compiled: bool, ahead: bool = True):
    import tapejax as tj
    loss, B, params, x, y = tapejax_problem(kind, size, device)
    with jax.default_device(device):
        opt = tj.optimizers.Adam(learning_rate=LR, beta_1=B1, beta_2=B2, epsilon=EPS)
        opt.build(params)
    # (how the eager step ran; a dict, not an attribute of run: the step must not close over run, whose
    # closure holds x and y, or tj.function would find them and take them twice, as arguments and closures)
    report = {}

    def step(x, y):
        with tj.GradientTape() as tape:
            lo = loss(B, params, x, y)
        grads = tape.gradient(lo, params)
        opt.apply_gradients(zip(grads, params))
        if not compiled:
            report["how"] = f"{tape.last_replay}; update: {opt.last_update}"
        return lo
    fn = tj.function(step) if compiled else step
    every = params + opt.variables

    def run():
        if ahead:  # (the defaults, as users run them: no override around the step)
            lo = fn(x, y)
        else:
            with tj.config.override(replay_ahead=False):
                lo = fn(x, y)
        # The step is over when the weights and Adam's state are updated, not when the loss is known.
        jax.block_until_ready([lo.value] + every)  # (a Variable is a pytree of its current value: no read op)
        return lo
    run.report = report
    return run, lambda lo: float(lo.numpy())


def build_jax_jit(kind: str, size: str, device):
    import optax
    loss, p0, x0, y0, _ = problem(kind, size)
    B = W._JAX()
    tx = optax.adam(LR, b1=B1, b2=B2, eps=EPS)
    params = [W._place(device, p) for p in p0]
    state = {"p": params, "s": tx.init(params)}
    x, y = W._place(device, x0), W._place(device, y0)

    @jax.jit
    def step(params, opt_state, x, y):
        lo, g = jax.value_and_grad(lambda ps: loss(B, ps, x, y))(params)
        updates, opt_state = tx.update(g, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, lo

    def run():
        state["p"], state["s"], lo = step(state["p"], state["s"], x, y)
        jax.block_until_ready((state["p"], state["s"], lo))
        return lo
    return run, float


def _torch_model(torch, kind: str, p0):
    """The workload as a torch.nn.Module, with the same initial weights (Linear stores W transposed)."""
    nn, F = torch.nn, torch.nn.functional

    def linear(w):
        m = nn.Linear(w.shape[0], w.shape[1], bias=False)
        with torch.no_grad():
            m.weight.copy_(torch.from_numpy(np.ascontiguousarray(w.T)))
        return m

    def conv(w):
        m = nn.Conv2d(w.shape[1], w.shape[0], w.shape[2], padding="same", bias=False)
        with torch.no_grad():
            m.weight.copy_(torch.from_numpy(w))
        return m

    if kind == "mlp":
        layers = []
        for w in p0[:-1]:
            layers += [linear(w), nn.Tanh()]
        return nn.Sequential(*layers, linear(p0[-1]))

    if kind == "cnn":
        class CNN(nn.Module):
            def __init__(self):
                super().__init__()
                self.c1, self.c2, self.head = conv(p0[0]), conv(p0[1]), linear(p0[2])

            def forward(self, x):
                h = torch.relu(self.c2(torch.relu(self.c1(x))))
                return self.head(h.mean(dim=(2, 3)))
        return CNN()

    if kind == "transformer":
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.q, self.k, self.v, self.o, self.fc1, self.fc2 = (linear(w) for w in p0)

            def forward(self, x):
                d = x.shape[-1]
                h = F.layer_norm(x, (d,), eps=1e-5)
                att = torch.softmax((self.q(h) @ self.k(h).transpose(1, 2)) * 0.125, dim=-1)
                x = x + self.o(att @ self.v(h))
                h = F.layer_norm(x, (d,), eps=1e-5)
                return x + self.fc2(torch.relu(self.fc1(h)))
        return Block()
    raise KeyError(kind)


def build_torch(kind: str, size: str, device):
    torch, dev = W._torch(device)
    _, p0, x0, y0, _ = problem(kind, size)
    model = _torch_model(torch, kind, p0).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=LR, betas=(B1, B2), eps=EPS, foreach=True)
    x, y = torch.from_numpy(x0).to(dev), torch.from_numpy(y0).to(dev)

    def run():
        opt.zero_grad(set_to_none=True)
        lo = ((model(x) - y) ** 2).mean()
        lo.backward()
        opt.step()
        W._torch_sync(torch, dev)  # CPU ops are synchronous already
        return lo
    return run, lambda lo: float(lo.detach())


def build_tf(kind: str, size: str, device):
    tf, dev = W._tf(device)
    loss, p0, x0, y0, _ = problem(kind, size)
    B = W._TF(tf)
    with tf.device(dev):
        params = [tf.Variable(p) for p in p0]
        x, y = tf.constant(x0), tf.constant(y0)
        opt = tf.keras.optimizers.Adam(learning_rate=LR, beta_1=B1, beta_2=B2, epsilon=EPS)

    def run():
        with tf.GradientTape() as tape:
            lo = loss(B, params, x, y)
        grads = tape.gradient(lo, params)
        opt.apply_gradients(zip(grads, params))
        return lo.numpy()  # TF eager on CPU: the updates ran with the call
    return run, float


def build(contender: str, kind: str, size: str, device):
    if contender == "tapejax eager":
        return build_tapejax(kind, size, device, compiled=False)
    if contender == "tapejax eager (not ahead)":
        return build_tapejax(kind, size, device, compiled=False, ahead=False)
    if contender == "tj.function":
        return build_tapejax(kind, size, device, compiled=True)
    if contender == "jax.jit":
        return build_jax_jit(kind, size, device)
    if contender == "torch eager":
        return build_torch(kind, size, device)
    if contender == "tf eager":
        return build_tf(kind, size, device)
    raise KeyError(contender)


# -- the run ---------------------------------------------------------------------------------------------

def run(workloads: List[str] = WORKLOADS, contenders: List[str] = CONTENDERS, rounds: int = 30, steps: int = 5,
        warmup: int = 5, size: str = "default", device=None, log=print, seed: int = 0,
        torch_threads: int = 1, tf_threads: int = 1) -> Dict:
    """Time every contender on every workload, round-robin. Returns ``{"rows": [...], "skipped": [...],
    "markdown": str}``."""
    import tapejax.deferred.replay
    device = device or jax.devices()[0]
    torch_note = ""
    if "torch eager" in contenders and device.platform == "cpu":
        try:
            import torch
            if torch_threads:
                torch.set_num_threads(torch_threads)
            torch_note = f"torch on {torch.get_num_threads()} CPU thread(s)"
        except ImportError:
            pass
    if "tf eager" in contenders and device.platform == "cpu":
        tf_note = W.limit_tf_threads(tf_threads)
        torch_note = "; ".join(n for n in (torch_note, tf_note) if n)
    rows, skipped = [], []
    rng = random.Random(seed)
    for kind in workloads:
        desc = problem(kind, size)[4]
        fns, first = {}, {}
        for c in contenders:
            try:
                fn, to_float = build(c, kind, size, device)
            except (W.NotApplicable, ImportError) as e:
                note = f"{c} ({e.name + ' not installed' if isinstance(e, ImportError) and e.name else e})"
                if note not in skipped:
                    skipped.append(note)
                    log(f"skipped: {note}")
                continue
            first[c] = to_float(fn())  # the first step's loss: every translation computes the same loss
            for _ in range(warmup):
                fn()
            if c.startswith("tapejax eager"):  # (jax.jit compiles in the warm-up; tapejax in the background)
                for _ in range(2):  # the step's replay program, then the one with the update fused into it
                    tapejax.deferred.replay.wait()
                    fn()
            fns[c] = fn
        ref = first.get("jax.jit", next(iter(first.values()), None))
        for c, v in first.items():
            if not np.isclose(v, ref, rtol=1e-3):
                raise AssertionError(f"{kind}: {c}'s first loss {v} differs from {ref}: not the same workload")
        times: Dict[str, List[float]] = {c: [] for c in fns}
        tapejax.deferred.ahead.tally.clear()  # (only the eager tapejax contenders launch steps ahead)
        order = list(fns)
        for _ in range(rounds):
            rng.shuffle(order)
            for c in order:
                fn = fns[c]
                for _ in range(steps):
                    t0 = time.perf_counter()
                    fn()
                    times[c].append(time.perf_counter() - t0)
        med = {c: statistics.median(ts) for c, ts in times.items()}
        for c, fn in fns.items():
            how = getattr(fn, "report", {}).get("how")
            if how:  # how the eager step ran: a step that did not fuse is no fair figure
                log(f"{kind:12s} {c}: {how}")
        if any(c.startswith("tapejax eager") for c in fns):
            tally = tapejax.deferred.ahead.tally
            log(f"{kind:12s} steps launched ahead: {tally['made'] + tally['guessed']} made "
                f"({tally['guessed']} on a guess), {tally['used']} used, of {rounds * steps} timed eager steps")
        for c, ts in times.items():
            q = statistics.quantiles(ts, n=4, method="inclusive") if len(ts) > 1 else [ts[0]] * 3
            row = {"workload": kind, "desc": desc, "contender": c, "median_s": med[c], "iqr_s": q[2] - q[0],
                   "n": len(ts), "first_loss": first[c]}
            for base in ("jax.jit", "torch eager"):
                if base in med:
                    row[f"vs {base}"] = med[c] / med[base]
            rows.append(row)
            log(f"{kind:12s} {c:14s} {med[c] * 1e3:8.3f} ms" + "".join(
                f"  {row[k]:.2f}x {k[3:]}" for k in ("vs jax.jit", "vs torch eager") if k in row))
    return {"rows": rows, "skipped": skipped,
            "markdown": markdown(rows, skipped, rounds, steps, device, torch_note)}


def versions() -> str:
    from importlib.metadata import PackageNotFoundError, version
    out = []
    for pkg in ("tapejax", "jax", "optax", "torch", "tensorflow", "tensorflow-cpu"):
        try:
            out.append(f"{pkg} {version(pkg)}")
        except PackageNotFoundError:
            pass
    return ", ".join(out)


def markdown(rows, skipped, rounds, steps, device, torch_note: str = "") -> str:
    lines = [f"Adam train step on {device.platform}:{device.id} ({device.device_kind}), {os.cpu_count()} CPUs; "
             f"{versions()}{'; ' + torch_note if torch_note else ''}. Median of {rounds} rounds x {steps} steps per "
             "contender (round-robin, shuffled order), "
             "each step timed until its updated variables are ready; ± is half the interquartile range.", "",
             "| workload | contender | ms / step | ± | vs jax.jit | vs torch eager | targets |",
             "|---|---|---:|---:|---:|---:|---|"]
    for r in rows:
        checks = []
        for base, limit in TARGETS.get(r["contender"], []):
            key = f"vs {base}"
            if key in r:
                checks.append(f"{'met' if r[key] <= limit else 'missed'} (<= {limit}x {base})")
        ratio = lambda k: f"{r[k]:.2f}x" if k in r else "-"
        lines.append(f"| {r['workload']} | {r['contender']} | {r['median_s'] * 1e3:.3f} | {r['iqr_s'] * 5e2:.3f} | "
                     f"{ratio('vs jax.jit')} | {ratio('vs torch eager')} | {'; '.join(checks)} |")
    descs = dict.fromkeys(f"{r['workload']}: {r['desc']}" for r in rows)
    lines += ["", "Workloads: " + "; ".join(descs) + "."]
    if skipped:
        lines.append("Skipped: " + "; ".join(skipped) + ".")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workloads", default=",".join(WORKLOADS), help="comma-separated subset of mlp,cnn,transformer")
    p.add_argument("--only", default="", help="comma-separated subset of contenders: "
                   f"{','.join(CONTENDERS + EXTRA_CONTENDERS)}")
    p.add_argument("--rounds", type=int, default=30, help="round-robin rounds")
    p.add_argument("--steps", type=int, default=5, help="timed steps per contender per round")
    p.add_argument("--warmup", type=int, default=5, help="untimed steps per contender first")
    p.add_argument("--size", default="default", choices=list(W.SCALES))
    p.add_argument("--torch-threads", type=int, default=1, help="torch.set_num_threads on CPU (0: torch's default)")
    p.add_argument("--tf-threads", type=int, default=1,
                   help="TF's intra- and inter-op threads on CPU (0: TF's default; see workloads.limit_tf_threads)")
    p.add_argument("--device", default="", help="e.g. cpu:0, gpu:0 (default: jax.devices()[0])")
    args = p.parse_args(argv)
    wls = [w for w in args.workloads.split(",") if w]
    contenders = [c for c in args.only.split(",") if c] or CONTENDERS
    for bad, known in ((set(wls) - set(WORKLOADS), WORKLOADS),
                       (set(contenders) - set(CONTENDERS + EXTRA_CONTENDERS), CONTENDERS + EXTRA_CONTENDERS)):
        if bad:
            p.error(f"unknown {sorted(bad)}; choose from {known}")
    device = None
    if args.device:
        device = next((d for d in jax.devices() + jax.devices("cpu") if f"{d.platform}:{d.id}" == args.device), None)
        if device is None:
            p.error(f"no device {args.device}")
    t0 = time.perf_counter()
    out = run(wls, contenders, args.rounds, args.steps, args.warmup, args.size, device,
              torch_threads=args.torch_threads, tf_threads=args.tf_threads)
    print("\n" + out["markdown"])
    print(f"({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
