"""First and second derivatives of tapejax's elementwise functions against float64 JAX, on hard points.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python tools/float64_derivative_scan.py [NAME[,NAME...]]

For each one-argument function of ``tj.numpy`` and ``tj.nn`` that ``jax.numpy`` / ``jax.nn`` also has (and each
two-argument one in ``BINARY``), it takes float32 gradients on nested ``GradientTape``s at 61 points from -1e38 to
1e38 (0, 1e-30, 1e-6 ... 1 +- 1e-6 ... 88, 89 ... 1e38 and their negatives; binary ones on a 19 x 19 grid), and
compares them with ``jax.grad`` of the same JAX function in float64 (a subprocess with x64 on), printing the points
where the two differ by more than 1e-3 relatively; and the one-argument functions' values where they differ so from
float64's and float32 JAX's do not. No table of known differences: the report is for reading, and
most lines are float32's range (1/x at 1e-30), rounding that TF's rules share (tanh's ``1 - y*y`` is 0 at x = 10),
TF's conventions at kinks and ties (relu at 0, maximum's ties), or float64's own cancellation (jax.numpy's sinc at
1e-19). It found sinc's derivative near 0, soft_sign's at +-inf and expm1's for x < -5, and selu's value at
x = -1e-10 (tests/test_tf_differential.py).
"""
from __future__ import annotations

import sys
import warnings

import numpy as np

import float64_reference  # (tools/: the script's own folder is on sys.path)

_BASE = [0.0, 1e-38, 1e-30, 1e-20, 1e-10, 1e-6, 1e-4, 1e-2, 0.1, 0.5, 0.9, 0.99, 0.999999, 1.0, 1.000001, 1.5, 2.0,
         3.0, 6.0, 10.0, 15.0, 20.0, 30.0, 50.0, 88.0, 89.0, 100.0, 1e4, 1e10, 1e20, 1e38]
POINTS = np.array(sorted(set(_BASE + [-b for b in _BASE])), np.float32)
_GRID = sorted({s * v for v in (0.0, 1e-30, 1e-6, 0.5, 1.0, 2.0, 3.0, 10.0, 100.0, 1e20) for s in (1, -1)})
GRID_A, GRID_B = (g.ravel() for g in np.meshgrid(np.array(_GRID, np.float32), np.array(_GRID, np.float32)))
BINARY = ["power", "arctan2", "hypot", "logaddexp", "logaddexp2", "divide", "floor_divide", "mod", "fmod",
          "maximum", "minimum", "fmax", "fmin", "copysign", "heaviside", "float_power", "nextafter", "ldexp"]


def unary_names(tj) -> list:
    """(module, name) of the one-argument functions tj.numpy / tj.nn share with jax.numpy / jax.nn that map a float32
    array to a float32 array of its shape (elementwise, or shape-preserving)."""
    import jax
    import jax.numpy as jnp
    names = []
    for mod, tmod, jmod in (("numpy", tj.numpy, jnp), ("nn", tj.nn, jax.nn)):
        for n in sorted(dir(jmod)):
            if n.startswith("_") or not hasattr(tmod, n) or isinstance(getattr(jmod, n), type):
                continue
            try:
                y = getattr(tmod, n)(tj.constant(POINTS))
                ok = getattr(y, "shape", None) == POINTS.shape and y.dtype == np.float32
            except Exception:  # noqa: BLE001  (not a function of one array)
                ok = False
            if ok:
                names.append((mod, n))
    return names


def _reference(unary: list, binary: list) -> dict:
    """float64 jax.grad (first and second) of each function: run in this process, which has x64 on."""
    import jax
    import jax.numpy as jnp
    out = {}
    x = jnp.asarray(POINTS, jnp.float64)
    for mod, n in unary:
        f = getattr(jnp if mod == "numpy" else jax.nn, n)
        try:  # (elementwise: the derivative at each point is the gradient of its one output)
            out[f"{mod}.{n}"] = [np.asarray(jax.vmap(jax.grad(f))(x)).tolist(),
                                 np.asarray(jax.vmap(jax.grad(jax.grad(f)))(x)).tolist(),
                                 np.asarray(f(x)).tolist(), np.asarray(f(x.astype(jnp.float32)), np.float64).tolist()]
        except Exception:  # noqa: BLE001  (not elementwise, or no derivative in JAX: nothing to compare)
            pass
    a, b = jnp.asarray(GRID_A, jnp.float64), jnp.asarray(GRID_B, jnp.float64)
    for n in binary:
        f = getattr(jnp, n)
        parts = [jax.grad(f, 0), jax.grad(f, 1), jax.grad(jax.grad(f, 0), 0), jax.grad(jax.grad(f, 0), 1),
                 jax.grad(jax.grad(f, 1), 1)]
        try:
            out[f"binary.{n}"] = [np.asarray(jax.vmap(p)(a, b)).tolist() for p in parts]
        except Exception:  # noqa: BLE001  (no float64 derivative in JAX: nothing to compare)
            pass
    return out


def _differences(got, want, where) -> list:
    """(point, tapejax, float64) where they differ: NaN against a number, inf against a finite float32 value, or
    more than 1e-3 relatively; values beyond float32's range only as infinities of the same sign."""
    got = np.zeros(len(want)) if got is None else np.asarray(got, np.float64)
    bad = []
    for p, g, w in zip(where, got, np.asarray(want, np.float64)):
        if np.isnan(g) and np.isnan(w):
            continue
        if abs(w) > 3.4e38 and not np.isnan(w):
            if not (np.isinf(g) and np.sign(g) == np.sign(w)):
                bad.append((p, g, w))
        elif not (np.isfinite(g) and np.isfinite(w)):
            if g != w:
                bad.append((p, g, w))
        elif abs(g - w) > 1e-3 * abs(w) + 1e-37:
            bad.append((p, g, w))
    return bad


def _tapejax_derivatives(tj, f, args) -> list:
    """First derivatives with respect to each argument, then the second ones (d/d0 d0, d/d1 d0, d/d1 d1 for two)."""
    xs = [tj.constant(a) for a in args]
    with tj.GradientTape(persistent=True) as outer:
        outer.watch(xs)
        with tj.GradientTape() as inner:
            inner.watch(xs)
            y = f(*xs)
        firsts = inner.gradient(y, xs)
    if len(xs) == 1:
        return [firsts[0], None if firsts[0] is None else outer.gradient(firsts[0], xs[0])]
    d0, d1 = firsts
    d00, d01 = (None, None) if d0 is None else outer.gradient(d0, xs)
    return [d0, d1, d00, d01, None if d1 is None else outer.gradient(d1, xs[1])]


def main(argv: list) -> int:
    warnings.filterwarnings("ignore")
    served = float64_reference.serve(argv, lambda spec: _reference([tuple(u) for u in spec["unary"]],
                                                                   spec["binary"]))
    if served is not None:
        return served
    import tapejax as tj
    only = set(argv[0].split(",")) if argv else None
    unary = [u for u in unary_names(tj) if only is None or u[1] in only]
    binary = [n for n in BINARY if (only is None or n in only) and hasattr(tj.numpy, n)]
    ref = float64_reference.ask(__file__, {"unary": unary, "binary": binary})
    lines = 0
    for key, wants in ref.items():
        mod, n = key.split(".")
        binary_op = mod == "binary"
        f = getattr(tj.numpy if mod in ("numpy", "binary") else tj.nn, n)
        args = (GRID_A, GRID_B) if binary_op else (POINTS,)
        where = ([f"({a:g}, {b:g})" for a, b in zip(GRID_A, GRID_B)] if binary_op else
                 [f"x={a:g}" for a in POINTS])
        try:
            gots = _tapejax_derivatives(tj, f, args)
        except Exception as e:  # noqa: BLE001  (reported: a function tapejax cannot differentiate twice)
            print(f"{key}: raised {type(e).__name__}: {str(e).splitlines()[0][:100]}")
            lines += 1
            continue
        labels = ("d/da", "d/db", "d2/da2", "d2/dadb", "d2/db2") if binary_op else ("first", "second")
        if not binary_op:  # the values: reported where float32 JAX's are right and tapejax's are not
            want, j32 = wants[2:]
            wants = wants[:2]
            value = np.asarray(f(tj.constant(POINTS)).numpy(), np.float64)
            bad = [b for b in _differences(value, want, where) if b[0] not in
                   {p for p, _, _ in _differences(j32, want, where)}]
            if bad:
                shown = "; ".join(f"{p}: tj {g:.6g} f64 {w:.6g}" for p, g, w in bad[:6])
                print(f"{key} value ({len(bad)} points): {shown}")
                lines += 1
        for label, got, want in zip(labels, gots, wants):
            bad = _differences(None if got is None else got.numpy(), want, where)
            if bad:
                shown = "; ".join(f"{p}: tj {g:.6g} f64 {w:.6g}" for p, g, w in bad[:6])
                print(f"{key} {label} ({len(bad)} points): {shown}")
                lines += 1
    print(f"\n{len(unary)} one-argument and {len(binary)} two-argument functions; {lines} lines of differences")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
