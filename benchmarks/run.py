"""The benchmark suite: every workload, on every device JAX lists, in every mode that applies.

Workloads (``benchmarks/workloads.py``): the op-overhead chain; MLP, small-CNN and transformer-block
train steps; fan-out aggregation (peak pending gradient bytes with and without early aggregation);
deep chains of 1k/10k/100k ops (time per op, and the 100k/1k ratio); Jacobian pfor vs row loop;
Hessian-vector products; then ``adam`` (``benchmarks/adam_step.py``): the MLP/CNN/transformer Adam
train step, tapejax eager and tj.function against jax.jit + optax, torch eager + torch.optim.Adam and
TF eager + Keras Adam, round-robin in one table. Modes: tapejax eager, tj.function, jax.jit(value_and_grad), unjitted jax, and
TF eager / tf.function / torch eager when installed.

Each (workload, variant, device, mode) is built, warmed up (the first call compiles), then timed
``--repeats`` times; every timed call blocks on its results. Rows print as they finish, with the ratio
to the baseline mode (``--baseline``, default jax.jit; tapejax where the baseline does not apply).
Writes ``benchmarks/results/bench-<time>.{json,md}`` (+ ``latest.*``) and PNG plots.

Run: ``make bench`` or ``.venv/bin/python benchmarks/run.py [--workloads mlp,hvp] [--modes tapejax,jax.jit]
[--devices cpu:0] [--size small|default|large] [--repeats 7] [--warmup 2] [--deep-max 100000]``
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import statistics
import sys
import time
import traceback
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import jax  # noqa: E402

import tapejax.deferred.replay  # noqa: E402
import workloads as W  # noqa: E402
import adam_step  # noqa: E402

ADAM = "adam"  # the round-robin Adam table (adam_step.py), run after the per-row workloads


def versions() -> dict:
    out = {"python": platform.python_version(), "platform": platform.platform(), "cpus": os.cpu_count(),
           "processor": platform.processor() or platform.machine()}
    from importlib.metadata import PackageNotFoundError, version
    for pkg in ("tapejax", "jax", "jaxlib", "numpy", "tensorflow", "tensorflow-cpu", "torch", "matplotlib"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            pass
    return out


def device_name(d) -> str:
    return f"{d.platform}:{d.id}"


def time_it(fn, warmup: int, repeats: int, budget_s: float, settle: bool = False) -> list:
    for _ in range(warmup):
        fn()
    if settle:
        # A recurring tapejax step compiles in the background (as jit's compiles in its warm-up): its replay
        # program, then the one with the update fused into it; wait for each, then run a few steps, after which
        # the next is launched ahead (deferred/ahead.py), as in any loop of more than a handful of steps.
        for _ in range(2):
            fn()
            tapejax.deferred.replay.wait()
        for _ in range(3):
            fn()
    ts = []
    start = time.perf_counter()
    for k in range(repeats):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
        if k >= 2 and time.perf_counter() - start > budget_s:
            break  # slow row: fewer repeats (recorded in the JSON)
    return ts


def quartiles(ts):
    if len(ts) < 2:
        return ts[0], ts[0]
    q = statistics.quantiles(ts, n=4, method="inclusive")
    return q[0], q[2]


def fmt_time(s: float) -> str:
    if s < 1e-3:
        return f"{s * 1e6:.1f} us"
    if s < 1:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workloads", default="", help="comma-separated subset (default: all)")
    p.add_argument("--modes", default="", help=f"comma-separated subset of {','.join(W.MODES)}")
    p.add_argument("--devices", default="", help="comma-separated, e.g. cpu:0,gpu:0 (default: every jax.devices())")
    p.add_argument("--size", default="default", choices=list(W.SCALES), help="problem sizes")
    p.add_argument("--repeats", type=int, default=7, help="timed runs per row (median reported)")
    p.add_argument("--warmup", type=int, default=2, help="untimed runs first (compilation happens here)")
    p.add_argument("--row-budget", type=float, default=6.0, help="stop repeating a row after this many seconds")
    p.add_argument("--deep-max", type=int, default=100_000, help="largest deep chain (1k, 10k, 100k up to this)")
    p.add_argument("--adam-rounds", type=int, default=10, help="round-robin rounds of the adam table (5 steps each)")
    p.add_argument("--baseline", default="jax.jit", help="mode the ratios are relative to")
    p.add_argument("--tf-threads", type=int, default=1,
                   help="TF's intra- and inter-op threads on CPU (0: TF's default; see workloads.limit_tf_threads)")
    p.add_argument("--out", default=str(HERE / "results"), help="output folder")
    p.add_argument("--list", action="store_true", help="list workloads and modes, run nothing")
    args = p.parse_args(argv)

    deep_sizes = [n for n in (1_000, 10_000, 100_000) if n <= args.deep_max] or [args.deep_max]
    wls = W.workloads(deep_sizes)
    if args.list:
        for w in wls.values():
            print(f"{w.name:12s} {w.title}\n{'':12s} modes: {', '.join(w.modes)}; variants: {', '.join(w.variants)}")
        print(f"{ADAM:12s} Adam train step on mlp, cnn, transformer, round-robin (adam_step.py)\n{'':12s} "
              f"contenders: {', '.join(adam_step.CONTENDERS)}")
        return 0
    chosen = [x for x in args.workloads.split(",") if x] or list(wls) + [ADAM]
    run_adam = ADAM in chosen
    chosen = [x for x in chosen if x != ADAM]
    modes = [x for x in args.modes.split(",") if x] or list(W.MODES)
    for bad, known, what in ((set(chosen) - set(wls), wls, "workload"), (set(modes) - set(W.MODES), W.MODES, "mode")):
        if bad:
            p.error(f"unknown {what}(s) {sorted(bad)}; choose from {list(known)}")
    devs = jax.devices()
    if args.devices:
        want = args.devices.split(",")
        devs = [d for d in jax.devices() + jax.devices("cpu") if device_name(d) in want]
        devs = list({device_name(d): d for d in devs}.values())
        if not devs:
            p.error(f"no device among {want}; jax lists {[device_name(d) for d in jax.devices()]}")

    plan = [(w, v, d, m) for w in (wls[n] for n in chosen) for v in w.variants for d in devs
            for m in w.modes if m in modes]
    # (before any row starts TF's runtime: its default pools would take the cores from every row timed after)
    tf_note = W.limit_tf_threads(args.tf_threads) if any(d.platform == "cpu" for d in devs) else ""
    meta = {"started": _dt.datetime.now().isoformat(timespec="seconds"), "command": " ".join(sys.argv),
            "devices": [f"{device_name(d)} ({d.device_kind})" for d in devs], "versions": versions(),
            "size": args.size, "repeats": args.repeats, "warmup": args.warmup, "baseline": args.baseline,
            "tf_threads": tf_note}
    print(f"tapejax benchmark suite: {len(plan)} rows on {', '.join(meta['devices'])}; "
          f"size {args.size}, {args.warmup} warm-up + {args.repeats} timed runs per row", flush=True)
    rows = []
    t_all = time.perf_counter()
    for k, (w, v, d, m) in enumerate(plan, 1):
        label = f"{w.name}" + (f" [{v}]" if v != "-" else "") + f" · {m} · {device_name(d)}"
        prefix = f"[{k:3d}/{len(plan)} {time.perf_counter() - t_all:5.0f}s] {label}"
        tty = sys.stdout.isatty()
        if tty:
            print(f"{prefix} ...", end="", flush=True)
        row = {"workload": w.name, "variant": v, "device": device_name(d), "mode": m}
        stats: dict = {}
        try:
            fn = w.build(m, v, args.size, d, stats)
            big = w.name == "deep" and int(v.split()[0]) >= 100_000
            warm = 1 if w.name == "deep" else args.warmup
            reps = min(args.repeats, 3) if w.name == "deep" else args.repeats
            ts = time_it(fn, 0 if big else warm, 1 if big and m != "tapejax" else reps, args.row_budget,
                         settle=m == "tapejax" and w.name != "deep")
        except W.NotApplicable as e:
            print(("\r" if tty else "") + f"{prefix}: n/a ({e})", flush=True)
            continue
        except Exception as e:  # a failing mode must not take the suite down: report it
            row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            rows.append(row)
            print(("\r" if tty else "") + f"{prefix}: FAILED {row['error']}", flush=True)
            if os.environ.get("BENCH_TRACEBACK"):
                traceback.print_exc()
            continue
        med = statistics.median(ts)
        q1, q3 = quartiles(ts)
        row.update(median_s=med, iqr_s=q3 - q1, min_s=min(ts), max_s=max(ts), n=len(ts), times_s=ts, **stats)
        if w.ops:
            row["ops"] = w.ops(v, args.size)
            row["us_per_op"] = med * 1e6 / row["ops"]
        rows.append(row)
        base = next((r for r in rows if r["workload"] == w.name and r["variant"] == v and r["device"] == row["device"]
                     and r["mode"] == args.baseline and "median_s" in r), None)
        ratio = f"  {med / base['median_s']:.2f}x {args.baseline}" if base else ""
        extra = f"  {row['us_per_op']:.1f} us/op" if "us_per_op" in row else ""
        if "peak_pending_bytes" in stats:
            extra += f"  peak pending {stats['peak_pending_bytes'] / 2**20:.1f} MiB"
        print(("\r" if tty else "") + f"{prefix}: {fmt_time(med)} ±{fmt_time((q3 - q1) / 2)}{extra}{ratio}", flush=True)
        del fn
    adam = []
    if run_adam:
        for d in devs:
            print(f"\n[{time.perf_counter() - t_all:5.0f}s] adam: Adam train step, round-robin, {args.adam_rounds} "
                  f"rounds on {device_name(d)}", flush=True)
            try:
                adam.append(adam_step.run(rounds=args.adam_rounds, size=args.size, device=d,
                                          tf_threads=args.tf_threads))
            except Exception as e:  # reported like a failing row
                rows.append({"workload": ADAM, "variant": "-", "device": device_name(d), "mode": "all",
                             "error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"})
                print(f"adam on {device_name(d)}: FAILED {rows[-1]['error']}", flush=True)
                if os.environ.get("BENCH_TRACEBACK"):
                    traceback.print_exc()
    meta["elapsed_s"] = round(time.perf_counter() - t_all, 1)
    add_ratios(rows, args.baseline)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    md = markdown(meta, rows, wls) if rows else ""
    for a in adam:
        md += "\n### Adam train step (`benchmarks/adam_step.py`)\n\n" + a["markdown"]
    payload = {"meta": meta, "rows": rows, "adam": [{"rows": a["rows"], "skipped": a["skipped"]} for a in adam]}
    for name in (f"bench-{stamp}", "latest"):
        (out / f"{name}.json").write_text(json.dumps(payload, indent=1, default=str))
        (out / f"{name}.md").write_text(md)
    pngs = plots(rows, wls, out, args.baseline)
    print("\n" + md)
    print(f"wrote {out / f'bench-{stamp}.json'}, {out / f'bench-{stamp}.md'} (and latest.*), "
          f"{len(pngs)} plot(s) in {out}; {meta['elapsed_s']:.0f} s")
    return 1 if any("error" in r for r in rows) else 0


def add_ratios(rows, baseline: str) -> None:
    """``ratio``: median / the baseline's median in the same (workload, variant, device) group; the baseline
    is ``baseline`` where that mode ran, else tapejax."""
    groups = {}
    for r in rows:
        if "median_s" in r:
            groups.setdefault((r["workload"], r["variant"], r["device"]), {})[r["mode"]] = r
    for g in groups.values():
        base_mode = baseline if baseline in g else ("tapejax" if "tapejax" in g else None)
        if base_mode is None:
            continue
        for r in g.values():
            r["ratio"] = r["median_s"] / g[base_mode]["median_s"]
            r["ratio_vs"] = base_mode
    deep = {}
    for r in rows:
        if r["workload"] == "deep" and "us_per_op" in r:
            deep.setdefault((r["device"], r["mode"]), {})[r["ops"]] = r["us_per_op"]
    for r in rows:
        if r["workload"] == "deep" and "us_per_op" in r:
            d = deep[(r["device"], r["mode"])]
            if min(d) in d and r["ops"] != min(d):
                r["per_op_vs_smallest"] = r["us_per_op"] / d[min(d)]


def markdown(meta, rows, wls) -> str:
    v = meta["versions"]
    lines = [f"Run {meta['started']} on {', '.join(meta['devices'])}; {v.get('processor')}, {v.get('cpus')} CPUs, "
             f"Python {v.get('python')}, jax {v.get('jax')}, tapejax {v.get('tapejax')}"
             + (f", TF {v.get('tensorflow') or v.get('tensorflow-cpu')}" if (v.get('tensorflow') or v.get('tensorflow-cpu')) else "")
             + (f", torch {v['torch']}" if "torch" in v else "")
             + (f" ({meta['tf_threads']})" if meta.get("tf_threads") else "")
             + f". Size `{meta['size']}`; median of up to {meta['repeats']} timed runs after {meta['warmup']} warm-up "
             f"runs (deep chains: 1 warm-up, up to 3 runs); ± is half the interquartile range. Ratio: time / time of "
             f"`{meta['baseline']}` in the same row group (tapejax where {meta['baseline']} does not apply).", "",
             "| workload | variant | device | mode | median | ± | per op | ratio | notes |",
             "|---|---|---|---|---:|---:|---:|---:|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['workload']} | {r['variant']} | {r['device']} | {r['mode']} | - | - | - | - | "
                         f"failed: {r['error'][:80]} |")
            continue
        notes = []
        if "peak_pending_bytes" in r:
            notes.append(f"peak pending {r['peak_pending_bytes'] / 2**20:.1f} MiB, "
                         f"{r.get('early_aggregations', 0)} early sums")
        if "per_op_vs_smallest" in r:
            notes.append(f"per op {r['per_op_vs_smallest']:.2f}x the 1k chain")
        ratio = f"{r['ratio']:.2f}x" if "ratio" in r else "-"
        per_op = f"{r['us_per_op']:.1f} us" if "us_per_op" in r else ""
        lines.append(f"| {r['workload']} | {r['variant']} | {r['device']} | {r['mode']} | {fmt_time(r['median_s'])} | "
                     f"{fmt_time(r['iqr_s'] / 2)} | {per_op} | {ratio} | {'; '.join(notes)} |")
    return "\n".join(lines) + "\n"


def plots(rows, wls, out: Path, baseline: str) -> list:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib not installed: no plots)")
        return []
    written = []
    ok = [r for r in rows if "median_s" in r]
    for name in dict.fromkeys(r["workload"] for r in ok):
        rs = [r for r in ok if r["workload"] == name]
        fig, ax = plt.subplots(figsize=(8, 0.35 * len(rs) + 1.2))
        labels = [f"{r['mode']}" + (f" [{r['variant']}]" if r["variant"] != "-" else "") +
                  (f" {r['device']}" if len({x['device'] for x in rs}) > 1 else "") for r in rs]
        vals = [r["us_per_op"] if "us_per_op" in r else r["median_s"] * 1e3 for r in rs]
        errs = [(r["iqr_s"] / 2) * (1e6 / r["ops"] if "ops" in r else 1e3) for r in rs]
        colors = ["#1f77b4" if r["mode"] in ("tapejax", "tj.function") else "#aaaaaa" for r in rs]
        ax.barh(range(len(rs)), vals, xerr=errs, color=colors)
        ax.set_yticks(range(len(rs)), labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.set_xlabel("us per op" if "us_per_op" in rs[0] else "ms per iteration (log)")
        ax.set_title(wls[name].title, fontsize=9)
        fig.tight_layout()
        path = out / f"{name}.png"
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)
    deep = [r for r in ok if r["workload"] == "deep"]
    if deep:
        fig, ax = plt.subplots(figsize=(6, 4))
        for key in dict.fromkeys((r["mode"], r["device"]) for r in deep):
            pts = sorted((r["ops"], r["us_per_op"]) for r in deep if (r["mode"], r["device"]) == key)
            ax.plot([a for a, _ in pts], [b for _, b in pts], marker="o", label=f"{key[0]} {key[1]}")
        ax.set_xscale("log")
        ax.set_xlabel("ops in the chain")
        ax.set_ylabel("us per op (fwd + bwd)")
        ax.set_ylim(bottom=0)
        ax.set_title("time per op must stay flat")
        ax.legend()
        fig.tight_layout()
        path = out / "deep_scaling.png"
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)
    return written


if __name__ == "__main__":
    sys.exit(main())
