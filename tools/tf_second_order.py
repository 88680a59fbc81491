"""Second-order differential test of tapejax against TensorFlow, over tools/tf_differential.py's cases.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python tools/tf_second_order.py [NAME[,NAME...]]

For each case with a gradient check it computes, in both libraries, the gradient of the first-order gradient
(reverse over reverse: nested GradientTapes, output gradients on both levels, every third entry 0 at corner
inputs) and its JVP (forward over reverse: a ForwardAccumulator around the tape), and prints where they differ,
including ``None`` (TF: no differentiable path) against zeros. No KNOWN table: the report is for reading.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tf_differential as D  # noqa: E402  (the cases, comparison and inputs)

tf, tj = D.tf, D.tj


def second(c, lib):
    """{"rr": gradients of the gradient, "fr": JVPs of the gradient} for one case, or None."""
    T = tf if lib == "tf" else tj
    fn = c.tf_fn if lib == "tf" else c.tj_fn
    diff = [i for i, a in enumerate(c.args) if D.inexact(a)] if c.diff is None else list(c.diff)
    y0 = [D.to_np(y) for y in D.flat(c.tf_fn(*[tf.constant(a) for a in c.args]))]
    outs = [k for k, w in enumerate(y0) if D.inexact(w)]
    if not diff or not outs:
        return None
    ogs = [D.output_gradient(y0[k], (c.op, c.label, k), c.corner) for k in outs]
    ws = [D.output_gradient(c.args[i], (c.op, c.label, "w", i), c.corner) for i in diff]
    tans = [D.rnd(c.args[i].shape, c.args[i].dtype, lo=0.5, hi=1.5, key=("tan2", c.op, c.label, i)) for i in diff]
    res = {}
    xs = [T.constant(a) for a in c.args]
    with T.GradientTape(persistent=True) as outer:
        for i in diff:
            outer.watch(xs[i])
        with T.GradientTape() as inner:
            for i in diff:
                inner.watch(xs[i])
            ys = D.flat(fn(*xs))
        g = inner.gradient([ys[k] for k in outs], [xs[i] for i in diff], output_gradients=[T.constant(o) for o in ogs])
        kept = [(j, gj) for j, gj in enumerate(g) if gj is not None]
    if kept:
        h = outer.gradient([gj for _, gj in kept], [xs[i] for i in diff],
                           output_gradients=[T.constant(ws[j]) for j, _ in kept])
        res["rr"] = [D.to_np(x) for x in h]
    xs = [T.constant(a) for a in c.args]
    acc_type = tf.autodiff.ForwardAccumulator if lib == "tf" else tj.ForwardAccumulator
    with acc_type([xs[i] for i in diff], [T.constant(t) for t in tans]) as acc:
        with T.GradientTape() as inner:
            for i in diff:
                inner.watch(xs[i])
            ys = D.flat(fn(*xs))
        g = inner.gradient([ys[k] for k in outs], [xs[i] for i in diff], output_gradients=[T.constant(o) for o in ogs])
    res["fr"] = [None if gj is None else D.to_np(acc.jvp(gj)) for gj in g]
    return res


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    only = set(filter(None, (argv[0] if argv else "").split(",")))
    rows = []
    for c in D.CASES:
        if (only and c.op not in only) or "grad" not in c.checks:
            continue
        out = {}
        for lib in ("tf", "tj"):
            try:
                out[lib] = second(c, lib)
            except Exception as e:  # noqa: BLE001
                out[lib] = f"{type(e).__name__}: {str(e)[:100]}"
        a, b = out["tj"], out["tf"]
        if isinstance(a, str) or isinstance(b, str):
            if not (isinstance(a, str) and isinstance(b, str)):
                rows.append((c.op, c.label, "raise", f"tj: {a if isinstance(a, str) else 'ok'}; TF: "
                                                     f"{b if isinstance(b, str) else 'ok'}"))
            continue
        if a is None or b is None:
            continue
        for mode in ("rr", "fr"):
            ga, gb = a.get(mode), b.get(mode)
            if ga is None and gb is None:
                continue
            if ga is None or gb is None:
                rows.append((c.op, c.label, mode, f"tj {'None' if ga is None else 'values'}, TF "
                                                  f"{'None' if gb is None else 'values'}"))
                continue
            for i, (x, y) in enumerate(zip(ga, gb)):
                m = D.compare(x, y, c.tol * 8)
                if m:
                    rows.append((c.op, c.label, mode, f"arg{i}: {m}"))
    print(f"== SECOND-ORDER MISMATCHES ({len(rows)}; rr: reverse over reverse, fr: forward over reverse) ==")
    for op, label, mode, msg in rows:
        print(f"{op[:28]:28s} {label[:36]:36s} {mode:5s} {msg}")
    return 1 if rows else 0


if __name__ == "__main__":
    sys.exit(main())
