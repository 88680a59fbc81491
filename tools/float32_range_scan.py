"""Every registered op's derivatives at its samples scaled toward float32's limits, against the same op in float64.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python tools/float32_range_scan.py [NAME[,NAME...]]

A rule can be right and still overflow or underflow inside float32 where the derivative itself is well within
range: det's second derivative divided by the square of a product of pivots (NaN for entries of 1e-7), layer_norm's
rsqrt rule cubed a small number (0 at values of 1e13). This scan takes each op of the registry (ops/core.py) at
its first sample with a float32 argument, every float argument scaled by 1e-12, 1e-6, 1e6 and 1e12, and
compares, in float32, the gradient of ``sum(w * out)`` and a Hessian-vector product (nested tapes) with the same
computed by tapejax itself with JAX's x64 mode on (a subprocess: the same rules in float64, so what differs is
float32's range and rounding). A line is printed where the float64 value is finite, within float32's range and
the float32 output finite too, and the float32 derivative is NaN or infinite where float64's is finite and within
range, or an entry is further from float64's than a tenth of the derivative's largest magnitude (a second
derivative's differences are measured against 1e-5 of the gradient's size at least: its rounding is on the
first's scale, sigmoid's 1 - 2 sigmoid(x) at 1e-12 being 0 in float32, as in TF).
The report is for reading: an op whose value itself loses float32's precision at such scales (a sum of large
and small terms) shows up too.

What it reports on 2026-12-06 (172 ops, 11 lines, ~12 min), each checked against TF 2.21: TF's own rules'
range (arctan2's second derivative at 1e-12, whose RealDiv rule forms g / (x1^2 + x2^2)^2, inf or NaN in TF
too), TF's conventions (elu's and selu's derivatives at -1e-12, where TF's exp(x) - 1 is 0, the linear side; pinv's
safe reciprocals' absolute 1e-20 at 1e12), the internal ``angle`` op on real numbers (tj.numpy.angle takes
another op for those: no gradient, TF's select), ``at_divide`` with repeated indices at 1e-12 (the product of the
divisors squared: jax.numpy's .at[].divide; TF has none) and sinc at 1e12 (rounding of sin(pi x)). It found
det's second derivative at entries of 1e-7 (tests/test_tf_differential.py) before that was fixed.
"""
from __future__ import annotations

import sys
import warnings

import numpy as np

import float64_reference  # (tools/: the script's own folder is on sys.path)

SCALES = (1e-12, 1e-6, 1e6, 1e12)
SKIP_PREFIXES = ("random_",)
SKIP = {"dropout"}  # (random draws)


def _cases(tj, only) -> list:
    """(name, sample index) of every registered op with a float argument in that sample."""
    from tapejax.ops.core import registry
    out = []
    for name, op in sorted(registry().items()):
        if op.samples is None or getattr(op, "user_defined", False) or name in SKIP or name.startswith(SKIP_PREFIXES):
            continue
        if only is not None and name not in only:
            continue
        for k, (args, _) in enumerate(op.samples()):
            if any(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in args):
                out.append((name, k))
                break  # (the first sample with a float32 argument: the others' scaled values are alike)
    return out


def _derivatives(name: str, k: int, scale: float, dtype) -> object:
    """[value, gradients, Hessian-vector products] of op ``name``'s sample ``k`` with its float32 arguments scaled
    and cast to ``dtype`` (each a list of flat lists), or the error's words."""
    import tapejax as tj
    from tapejax.ops.core import registry
    op = registry()[name]
    args, static = list(op.samples())[k]
    diff = [i for i, a in enumerate(args) if isinstance(a, np.ndarray) and a.dtype == np.float32]
    rng = np.random.default_rng(k + 1)
    try:
        # (the float32 values in both precisions: scaled in float64, rounded to float32 once)
        xs = [tj.constant((args[i].astype(np.float64) * scale).astype(np.float32).astype(dtype)) for i in diff]
        vs = [tj.constant(rng.uniform(0.5, 1.5, x.shape).astype(dtype)) for x in xs]

        def outputs(*ts):
            full = list(args)
            for i, t in zip(diff, ts):
                full[i] = t
            y = op(*full, **static)
            return [o for o in (y if isinstance(y, (tuple, list)) else [y]) if o.dtype.kind == "f"]
        with tj.GradientTape() as outer:
            outer.watch(xs)
            with tj.GradientTape() as inner:
                inner.watch(xs)
                ys = outputs(*xs)
                ws = [tj.constant(np.random.default_rng(7).uniform(0.5, 1.5, tuple(y.shape)).astype(dtype))
                      for y in ys]
                loss = sum(tj.numpy.sum(w * y) for w, y in zip(ws, ys))
            gs = inner.gradient(loss, xs, unconnected_gradients="zero")
            dot = sum(tj.numpy.sum(v * g) for v, g in zip(vs, gs))
        hs = outer.gradient(dot, xs, unconnected_gradients="zero")
    except Exception as e:  # noqa: BLE001  (reported by the caller where one precision raises and not the other)
        return f"{type(e).__name__}: {str(e).splitlines()[0][:100]}"

    def flat(ts):
        return [np.asarray(t.numpy(), np.float64).ravel().tolist() for t in ts]
    return [flat(ys), flat(gs), flat(hs)]


def _reference(request) -> dict:
    return {f"{n}|{k}|{s}": _derivatives(n, k, s, np.float64) for n, k in request["cases"] for s in SCALES}


def _problems(got, want, floor: float = 0.0) -> list:
    """(index, tapejax, float64) of the entries that differ (see the module's docstring); ``floor``: the least
    size the differences are measured against."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if got.shape != want.shape or want.size == 0:
        return []
    ok = np.isfinite(want) & (np.abs(want) <= 3.4e38)
    size = max(float(np.max(np.abs(want[ok]), initial=0.0)), floor)
    bad = ok & (~np.isfinite(got) | (np.abs(got - want) > 0.1 * size + 1e-37))
    return [(int(i), got[i], want[i]) for i in np.flatnonzero(bad)]


def main(argv: list) -> int:
    warnings.filterwarnings("ignore")
    served = float64_reference.serve(argv, _reference)
    if served is not None:
        return served
    import tapejax as tj
    only = set(argv[0].split(",")) if argv else None
    cases = _cases(tj, only)
    ref = float64_reference.ask(__file__, {"cases": cases})
    lines = 0
    for name, k in cases:
        for s in SCALES:
            want = ref[f"{name}|{k}|{s}"]
            if isinstance(want, str):
                continue  # (float64 raises: nothing to compare)
            values64, grads64, hvps64 = want
            if not all(np.all(np.isfinite(v)) and np.all(np.abs(np.asarray(v)) <= 3.4e38) for v in values64):
                continue  # (the value itself leaves float32's range at this scale)
            got = _derivatives(name, k, s, np.float32)
            if isinstance(got, str):
                print(f"{name} sample {k} x {s:g}: float32 raised {got}")
                lines += 1
                continue
            values, grads, hvps = got
            if not all(np.all(np.isfinite(v)) for v in values):
                continue  # (float32's value overflows: its derivatives with it)
            # (a second derivative's rounding is on the first's scale: terms of the gradient's size cancel in it)
            floor = 1e-5 * max((float64_reference.largest_finite(g) for g in grads64), default=0.0)
            for what, gl, wl in (("gradient", grads, grads64), ("second", hvps, hvps64)):
                for j, (g, w) in enumerate(zip(gl, wl)):
                    bad = _problems(g, w, floor if what == "second" else 0.0)
                    if bad:
                        shown = "; ".join(f"[{i}] tj {a:.6g} f64 {b:.6g}" for i, a, b in bad[:3])
                        print(f"{name} sample {k} x {s:g} {what} of argument {j} ({len(bad)} entries): {shown}")
                        lines += 1
    print(f"\n{len(cases)} samples of {len({n for n, _ in cases})} ops at {len(SCALES)} scales; {lines} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
