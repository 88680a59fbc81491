"""Forward mode against reverse mode: tapejax's JVPs and gradients of the same functions on hard inputs.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python tools/forward_reverse_scan.py [NAME[,NAME...]]

API.md asks for one rule in forward and reverse mode (TF's conventions at kinks and ties, the no-NaN rule of
sqrt-like ops); the path-consistency test checks it at ordinary points, this scan at the hard ones of the float64
scans, where separately written rules part (a forward rule that forms ``0 * inf``, a reverse one that overflows).
No reference but tapejax itself:

* each elementwise function of float64_derivative_scan.py at its 61 points (two-argument ones on its grid, for
  each argument): the derivative as a ``ForwardAccumulator``'s tangent (tangent 1) against the gradient (a
  ``GradientTape``), point by point; the second derivative three ways: forward over reverse (an accumulator around
  a tape), forward over forward (two accumulators) and reverse over reverse (nested tapes);
* each complex elementwise function of complex_derivative_scan.py at its 225 points: the directional derivative of
  ``L = re(conj(c) f(z))`` along a complex tangent forward and by TF's gradient (``re(conj(G) t)``), and the
  Hessian along it forward over reverse and reverse over reverse;
* each whole-array function of float64_array_scan.py on its inputs (those with infinities, or whose value
  overflows, left out: see below): ``<w, J t>`` (the JVP along random tangents ``t``, weighted) against
  ``<J^T w, t>`` (the gradient of the weighted loss, contracted), and the Hessian-vector product forward over
  reverse against reverse over reverse, entry by entry on the product's scale.

TF's forward mode gives an input without a tangent a zero one (tape.h's Accumulate: ``ZerosLike`` for unwatched
trainable inputs), so ``0 * inf`` makes NaN wherever an infinity or an overflow meets such a term: the JVP of
``x * 2.0`` at ``x = -inf`` is NaN in TF and tapejax (JAX's symbolic zeros give -2), as is exp's forward over
reverse at 89 (its reverse over reverse: inf). Those lines are TF's behaviour, kept; check a line against TF before
calling it a bug.

A line is printed where two ways differ: a finite value in one and NaN or an infinity in the other (not NaN against
an infinity, or infinities of other signs: an overflow either way, where TF's forward over reverse and reverse over
reverse differ as tapejax's: exp's second derivative at 89 is NaN and inf), or finite values further apart than
1e-3 of the larger (for a contraction: of the sum of its terms' magnitudes, its rounding scale), or where one way
raises and the other does not.

What it reports on 2026-12-06 (96 one-argument, 18 two-argument, 42 complex and 75 whole-array functions, 40
lines, ~7 min; none for the complex functions), each checked against TF 2.21: TF's own zero tangents (power,
float_power, divide, mod and fmod where the argument without a tangent meets an infinity: NaN in TF's forward mode
too); float32's range (squareplus's and hypot's cancellation
and underflow beyond 1e4 and 1e19, hypot being tapejax's composite: TF has none; cond and logsumexp's Hessians at
1e-15 and 1e18; arctan2's forward over forward at 1e20, where the sum of squares overflows); rounding that float64
settles for neither way (det at diag(1, 2, 1e-7, 3): 8.7 and 12 where float64 gives 10.5; pinv at (near-)singular
matrices; standardize at spread values); the no-NaN rule of sqrt in forward mode (std of a constant vector: 0,
where the reverse gradient, TF's too, is NaN); and det's Hessian at an exactly singular (rank 1) matrix, NaN by
reverse over reverse (JAX's cofactor solve; TF raises). It found arctan2's order of operations (NaN where TF's
Atan2Grad is 0) and det's second derivative at entries of 1e-7 (NaN; tests/test_tf_differential.py).
"""
from __future__ import annotations

import sys
import warnings

import numpy as np

import complex_derivative_scan as cplx  # (tools/: the script's own folder is on sys.path)
import float64_array_scan as arrays
import float64_derivative_scan as elementwise


def _apart(a, b, scale=None) -> np.ndarray:
    """Per entry: whether ``a`` and ``b`` differ (see the module's docstring); ``scale`` replaces the larger
    magnitude as what 1e-3 is taken of."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    fin_a, fin_b = np.isfinite(a), np.isfinite(b)
    special = ~(fin_a & fin_b)
    special_apart = fin_a != fin_b  # (NaN against inf: an overflow either way, as TF's paths differ there too)
    if scale is None:
        scale = np.maximum(np.abs(a), np.abs(b))
    with np.errstate(invalid="ignore", over="ignore"):
        far = np.where(special, False, np.abs(a - b) > 1e-3 * scale + 1e-30)
    return special_apart | far


def _shown(where, values: dict, bad: np.ndarray, limit: int = 5) -> str:
    idx = np.flatnonzero(bad.ravel())
    parts = []
    for i in idx[:limit]:
        vals = ", ".join(f"{k} {np.asarray(v, np.float64).ravel()[i]:.6g}" for k, v in values.items())
        parts.append(f"{where[i] if where is not None else i}: {vals}")
    return f"({len(idx)} points) " + "; ".join(parts)


def _array(t):
    return None if t is None else np.asarray(t.numpy(), np.float64)


def elementwise_ways(tj, f, args, k: int) -> dict:
    """Derivatives of the elementwise ``f(*args)`` in its argument ``k``: first forward and reverse, second forward
    over reverse, forward over forward, reverse over reverse (one array each, or the error's words)."""
    xs = [tj.constant(a) for a in args]
    ones = tj.constant(np.ones_like(args[k]))  # (the other argument has no tangent: not a zero one, 0 * inf)
    out = {}

    def attempt(name, fn):
        try:
            out[name] = fn()
        except Exception as e:  # noqa: BLE001  (reported: one way raises)
            out[name] = f"raised {type(e).__name__}: {str(e).splitlines()[0][:80]}"

    def forward():
        with tj.ForwardAccumulator(xs[k], ones) as acc:
            y = f(*xs)
        return _array(acc.jvp(y, unconnected_gradients="zero"))

    def reverse():
        with tj.GradientTape() as tape:
            tape.watch(xs[k])
            y = f(*xs)
        return _array(tape.gradient(y, xs[k], unconnected_gradients="zero"))

    def forward_over_reverse():
        with tj.ForwardAccumulator(xs[k], ones) as acc:
            with tj.GradientTape() as tape:
                tape.watch(xs[k])
                y = f(*xs)
            g = tape.gradient(y, xs[k], unconnected_gradients="zero")
        return _array(acc.jvp(g, unconnected_gradients="zero"))

    def forward_over_forward():
        with tj.ForwardAccumulator(xs[k], ones) as outer:
            with tj.ForwardAccumulator(xs[k], ones) as inner:
                y = f(*xs)
            d = inner.jvp(y, unconnected_gradients="zero")
        return _array(outer.jvp(d, unconnected_gradients="zero"))

    def reverse_over_reverse():
        with tj.GradientTape() as outer:
            outer.watch(xs[k])
            with tj.GradientTape() as inner:
                inner.watch(xs[k])
                y = f(*xs)
            g = inner.gradient(y, xs[k], unconnected_gradients="zero")
        return _array(outer.gradient(g, xs[k], unconnected_gradients="zero"))

    for name, fn in (("fwd", forward), ("rev", reverse), ("fwd/rev", forward_over_reverse),
                     ("fwd/fwd", forward_over_forward), ("rev/rev", reverse_over_reverse)):
        attempt(name, fn)
    return out


def array_ways(tj, case, x) -> dict:
    """For a whole-array case: the contractions ``<w, J t>`` (fwd) and ``<J^T w, t>`` (rev) with their rounding
    scales, and the Hessian-vector products forward over reverse and reverse over reverse."""
    _, path, kwargs, _ = case
    f = arrays.function_of(tj, path, kwargs, tj.numpy)
    xt = tj.constant(x)
    t = tj.constant(arrays.weights([x.shape], 3)[0] * np.where(np.arange(x.size) % 2, -1, 1).reshape(x.shape))
    v = tj.constant(arrays.weights([x.shape], 2)[0])
    tnp = tj.numpy

    def outputs(y):
        return [o for o in (list(y) if isinstance(y, (tuple, list)) else [y]) if o.dtype.kind in "fc"]

    def loss_of(ys):
        ws = [tj.constant(w) for w in arrays.weights([tuple(o.shape) for o in ys], 1)]
        return sum(tnp.sum(w * o) for w, o in zip(ws, ys)), ws

    out = {}
    try:
        with tj.ForwardAccumulator(xt, t) as acc:
            ys = outputs(f(xt))
        loss, ws = loss_of(ys)
        terms = [np.asarray((w * acc.jvp(o, unconnected_gradients="zero")).numpy(), np.float64).ravel()
                 for w, o in zip(ws, ys)]
        terms = np.concatenate(terms) if terms else np.zeros(0)
        out["fwd"] = (float(np.sum(terms)), float(np.sum(np.abs(terms))))
    except Exception as e:  # noqa: BLE001
        out["fwd"] = f"raised {type(e).__name__}: {str(e).splitlines()[0][:80]}"
    try:
        with tj.GradientTape() as tape:
            tape.watch(xt)
            loss, _ = loss_of(outputs(f(xt)))
        g = tape.gradient(loss, xt, unconnected_gradients="zero")
        terms = (_array(g) * np.asarray(t.numpy(), np.float64)).ravel()
        out["rev"] = (float(np.sum(terms)), float(np.sum(np.abs(terms))))
    except Exception as e:  # noqa: BLE001
        out["rev"] = f"raised {type(e).__name__}: {str(e).splitlines()[0][:80]}"
    try:
        with tj.ForwardAccumulator(xt, v) as acc:
            with tj.GradientTape() as tape:
                tape.watch(xt)
                loss, _ = loss_of(outputs(f(xt)))
            g = tape.gradient(loss, xt, unconnected_gradients="zero")
        out["fwd/rev"] = _array(acc.jvp(g, unconnected_gradients="zero"))
    except Exception as e:  # noqa: BLE001
        out["fwd/rev"] = f"raised {type(e).__name__}: {str(e).splitlines()[0][:80]}"
    try:
        with tj.GradientTape() as outer:
            outer.watch(xt)
            with tj.GradientTape() as tape:
                tape.watch(xt)
                loss, _ = loss_of(outputs(f(xt)))
            g = tape.gradient(loss, xt, unconnected_gradients="zero")
            s = tnp.sum(v * g)
        out["rev/rev"] = _array(outer.gradient(s, xt, unconnected_gradients="zero"))
    except Exception as e:  # noqa: BLE001
        out["rev/rev"] = f"raised {type(e).__name__}: {str(e).splitlines()[0][:80]}"
    return out


def _finite_value(tj, case, x) -> bool:
    _, path, kwargs, _ = case
    y = arrays.function_of(tj, path, kwargs, tj.numpy)(tj.constant(x))
    return all(np.all(np.isfinite(np.asarray(o.numpy()))) for o in (y if isinstance(y, (tuple, list)) else [y]))


def complex_ways(tj, f) -> dict:
    """For a complex elementwise ``f`` at complex_derivative_scan.py's points, per point: the directional derivative
    of ``L = re(conj(c) f(z))`` along ``t`` forward (``re(conj(c) J t)``) and reverse (``re(conj(G) t)``, ``G`` TF's
    gradient ``dL/dx + i dL/dy``), and the Hessian of ``sum(L)`` along ``t`` forward over reverse (the tangent of
    ``G``) and reverse over reverse (the gradient of ``sum(re(conj(G) t))``), as real and imaginary parts."""
    z, c, t = (tj.constant(a) for a in (cplx.POINTS, cplx.C, cplx.V))
    tnp = tj.numpy
    out = {}

    def attempt(name, fn):
        try:
            out[name] = fn()
        except Exception as e:  # noqa: BLE001
            out[name] = f"raised {type(e).__name__}: {str(e).splitlines()[0][:80]}"

    def loss(y):
        return tnp.sum(tnp.real(tnp.conj(c) * y))

    def parts(x):
        x = np.asarray(x.numpy())
        return np.concatenate([x.real.astype(np.float64), x.imag.astype(np.float64)])

    def forward():
        with tj.ForwardAccumulator(z, t) as acc:
            y = f(z)
        return np.asarray(tnp.real(tnp.conj(c) * acc.jvp(y, unconnected_gradients="zero")).numpy(), np.float64)

    def reverse():
        with tj.GradientTape() as tape:
            tape.watch(z)
            L = loss(f(z))
        g = tape.gradient(L, z, unconnected_gradients="zero")
        return np.asarray(tnp.real(tnp.conj(g) * t).numpy(), np.float64)

    def forward_over_reverse():
        with tj.ForwardAccumulator(z, t) as acc:
            with tj.GradientTape() as tape:
                tape.watch(z)
                L = loss(f(z))
            g = tape.gradient(L, z, unconnected_gradients="zero")
        return parts(acc.jvp(g, unconnected_gradients="zero"))

    def reverse_over_reverse():
        with tj.GradientTape() as outer:
            outer.watch(z)
            with tj.GradientTape() as tape:
                tape.watch(z)
                L = loss(f(z))
            g = tape.gradient(L, z, unconnected_gradients="zero")
            s = tnp.sum(tnp.real(tnp.conj(g) * t))
        return parts(outer.gradient(s, z, unconnected_gradients="zero"))

    for name, fn in (("fwd", forward), ("rev", reverse), ("fwd/rev", forward_over_reverse),
                     ("rev/rev", reverse_over_reverse)):
        attempt(name, fn)
    return out


def _report(name: str, ways: dict, pairs, where=None, scalar: bool = False, whole: bool = False) -> int:
    """Print the pairs of ways that differ; the number of lines printed. ``whole``: the entries of a vector are
    compared on the vector's scale (its largest finite magnitude), not each on its own."""
    lines = 0
    for a, b in pairs:
        x, y = ways[a], ways[b]
        if isinstance(x, str) or isinstance(y, str):
            if isinstance(x, str) != isinstance(y, str):
                print(f"{name} {a} vs {b}: {x if isinstance(x, str) else y} ({b if isinstance(y, str) else a} "
                      f"gives a number)")
                lines += 1
            continue
        if scalar:
            (x, sx), (y, sy) = x, y
            if _apart(x, y, max(sx, sy)).any():
                print(f"{name} {a} vs {b}: {x:.6g} vs {y:.6g} (terms' size {max(sx, sy):.3g})")
                lines += 1
            continue
        scale = None
        if whole:
            both = np.abs(np.concatenate([np.ravel(x), np.ravel(y)]))
            scale = float(np.max(both[np.isfinite(both)], initial=0.0))
        bad = _apart(x, y, scale)
        if bad.any():
            print(f"{name} {a} vs {b}: {_shown(where, {a: x, b: y}, bad)}")
            lines += 1
    return lines


def _elementwise(f, x, tj) -> bool:
    """Whether the shape-preserving function ``f`` is elementwise: its values at the points ``x`` are the same
    with ``x`` as a column (one per row) and in reverse order (cumsum and log_softmax are not): its tangent along
    ones is then its derivative at each point, as its gradient is."""
    y = np.asarray(f(tj.constant(x)).numpy())
    try:
        ways = (np.asarray(f(tj.constant(x[::-1].copy())).numpy())[::-1],
                np.asarray(f(tj.constant(x[:, None])).numpy()))
    except ValueError:  # (a function of vectors: cumulative_prod without an axis)
        return False
    return all(w.size == y.size and np.all((w.ravel() == y) | (np.isnan(w.ravel()) & np.isnan(y))) for w in ways)


def main(argv: list) -> int:
    warnings.filterwarnings("ignore")
    import tapejax as tj
    only = set(argv[0].split(",")) if argv else None
    lines = 0
    seconds = (("fwd/rev", "rev/rev"), ("fwd/fwd", "rev/rev"))
    unary = [(mod, n) for mod, n in elementwise.unary_names(tj) if (only is None or n in only) and _elementwise(
        getattr(tj.numpy if mod == "numpy" else tj.nn, n), elementwise.POINTS, tj)]
    where = [f"x={p:g}" for p in elementwise.POINTS]
    for mod, n in unary:
        f = getattr(tj.numpy if mod == "numpy" else tj.nn, n)
        ways = elementwise_ways(tj, f, (elementwise.POINTS,), 0)
        lines += _report(f"{mod}.{n}", ways, (("fwd", "rev"),) + seconds, where)
    binary = [n for n in elementwise.BINARY if (only is None or n in only) and hasattr(tj.numpy, n)]
    grid = [f"({a:g}, {b:g})" for a, b in zip(elementwise.GRID_A, elementwise.GRID_B)]
    for n in binary:
        for k in (0, 1):
            ways = elementwise_ways(tj, getattr(tj.numpy, n), (elementwise.GRID_A, elementwise.GRID_B), k)
            lines += _report(f"binary.{n} d/d{'ab'[k]}", ways, (("fwd", "rev"),) + seconds, grid)
    complex_names = [n for n in cplx.names(tj) if (only is None or n in only) and _elementwise(
        getattr(tj.numpy, n), cplx.POINTS, tj)]
    where = [f"z={p:.3g}" for p in cplx.POINTS] * 2  # (real parts, then imaginary parts)
    for n in complex_names:
        ways = complex_ways(tj, getattr(tj.numpy, n))
        lines += _report(f"complex {n}", ways, (("fwd", "rev"), ("fwd/rev", "rev/rev")), where)
    cases = [c for c in arrays.CASES if only is None or c[0] in only]
    for case in cases:
        for label, x in arrays.INPUTS[case[3]]:
            if not np.all(np.isfinite(x)) or not _finite_value(tj, case, x):
                continue  # (an infinity or an overflow: TF's forward mode has NaN there too, see above)
            ways = array_ways(tj, case, x)
            lines += _report(f"{case[0]} [{label}]", ways, (("fwd", "rev"),), scalar=True)
            lines += _report(f"{case[0]} [{label}]", ways, (("fwd/rev", "rev/rev"),), whole=True)
    print(f"\n{len(unary)} one-argument, {len(binary)} two-argument, {len(complex_names)} complex and {len(cases)} "
          f"whole-array functions; {lines} lines of differences")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
