"""First and second derivatives of tapejax's complex elementwise functions against complex128 JAX, on hard points.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python tools/complex_derivative_scan.py [NAME[,NAME...]]

The complex companion of float64_derivative_scan.py. For each one-argument function of ``tj.numpy`` that maps a
complex64 array to a complex64 array of its shape, at complex64 points ``z = x + iy`` (x and y among 0, +-1e-20,
+-1e-6, +-0.5, +-1, +-2, +-10, +-1e10: branch cuts, near-cancellations, overflow), it takes the gradient of the
real loss ``L = sum(re(conj(c) * f(z)))`` (fixed complex weights ``c``) on nested ``GradientTape``s, and the
gradient of ``sum(re(conj(v) * gradient))``, a Hessian-vector product. TF's convention gives the gradient of a
real function as ``dL/dx + i dL/dy``, so the reference needs no complex convention: ``jax.grad`` of ``L`` as a
function of the real arrays ``x`` and ``y``, in float64 (a subprocess with x64 on), at the same complex64 points.
complex64 ``jax.grad`` (conjugated: JAX's convention is ``dL/dx - i dL/dy``) is run beside it. A line is printed
where tapejax's derivative is further from complex128's than complex64 JAX's by more than 10x (and than 1e-3 of
the derivatives' size), or is NaN or infinite where both JAX's are finite; and, for NumPy's ufuncs, where a
part of tapejax's value is off by more than 1e-3 relatively from NumPy's complex128 value.

It found (2026-12-06) that jax.numpy's complex sinh and cosh lose the small part for ``|re z| < 1`` (XLA's
``(e^z -+ e^-z) / 2``), and its log1p, arctanh and arctan are infinite next to -1, +-1 and +-i, where TF's values
are right; and, through sinh, arccosh's gradient near 1 (ops/complex_c99.py, tests/test_complex.py). What it
still reports: log1p's value at 1e-20 (NumPy's complex128 log1p is the one off there), exp2 at an imaginary part
of 1e10 (``z * log 2`` rounds in complex64), the second derivatives of arccosh near -1 and arcsinh near +-i
(TF's rules read y, whose imaginary part, pi or pi/2, rounds in float32: TF's values are as far off), and
sinc's second derivative at 1e-20 (float64 JAX's cancellation).
"""
from __future__ import annotations

import sys
import warnings

import numpy as np

import float64_reference  # (tools/: the script's own folder is on sys.path)

_PARTS = [0.0, 1e-20, 1e-6, 0.5, 1.0, 2.0, 10.0, 1e10]
_AXIS = np.array(sorted({s * p for p in _PARTS for s in (1, -1)}), np.float32)
_X, _Y = (g.ravel() for g in np.meshgrid(_AXIS, _AXIS))
POINTS = (_X + 1j * _Y).astype(np.complex64)
_rng = np.random.default_rng(11)
C = (_rng.uniform(0.5, 1.5, POINTS.shape) + 1j * _rng.uniform(-1, 1, POINTS.shape)).astype(np.complex64)
V = (_rng.uniform(0.5, 1.5, POINTS.shape) + 1j * _rng.uniform(-1, 1, POINTS.shape)).astype(np.complex64)
SKIP = {"conj", "conjugate", "real", "imag", "positive", "negative", "copy", "asarray", "array", "fix", "round",
        "around", "rint", "ceil", "floor", "trunc", "sign", "isfinite", "isnan", "isinf", "nan_to_num", "ravel",
        "squeeze", "atleast_1d", "atleast_2d", "atleast_3d", "flip", "fliplr", "flipud", "sort", "sort_complex",
        "unique", "unique_values"}


def names(tj) -> list:
    """The one-argument functions tj.numpy shares with jax.numpy that map complex64 to complex64 of that shape."""
    import jax.numpy as jnp
    found = []
    for n in sorted(dir(jnp)):
        if n.startswith("_") or n in SKIP or not hasattr(tj.numpy, n) or isinstance(getattr(jnp, n), type):
            continue
        try:
            y = getattr(tj.numpy, n)(tj.constant(POINTS))
            ok = getattr(y, "shape", None) == POINTS.shape and y.dtype == np.complex64
        except Exception:  # noqa: BLE001  (not a function of one array)
            ok = False
        if ok:
            found.append(n)
    return found


def _reference(names: list) -> dict:
    """Per function: [first, second] of complex128 (by the real parts) and of complex64 JAX, each as
    [real parts, imaginary parts] lists (TF's convention)."""
    import jax
    import jax.numpy as jnp
    out = {}
    x, y = jnp.asarray(POINTS.real, jnp.float64), jnp.asarray(POINTS.imag, jnp.float64)
    c, v = jnp.asarray(C, jnp.complex128), jnp.asarray(V, jnp.complex128)
    for n in names:
        f = getattr(jnp, n)

        def loss(x, y, f=f):
            return jnp.sum(jnp.real(jnp.conj(c) * f(x + 1j * y)))

        def hvp(x, y, loss=loss):
            gx, gy = jax.grad(loss, (0, 1))(x, y)
            return jnp.sum(v.real * gx + v.imag * gy)

        z32, c32, v32 = jnp.asarray(POINTS), jnp.asarray(C), jnp.asarray(V)

        def loss32(z, f=f):
            return jnp.sum(jnp.real(jnp.conj(c32) * f(z)))

        def hvp32(z, loss32=loss32):
            g = jnp.conj(jax.grad(loss32)(z))
            return jnp.sum(jnp.real(jnp.conj(v32) * g))
        try:
            first = [np.asarray(d).tolist() for d in jax.grad(loss, (0, 1))(x, y)]
            second = [np.asarray(d).tolist() for d in jax.grad(hvp, (0, 1))(x, y)]
            g32 = np.conj(np.asarray(jax.grad(loss32)(z32)))
            h32 = np.conj(np.asarray(jax.grad(hvp32)(z32)))
        except Exception:  # noqa: BLE001  (no complex derivative in JAX: nothing to compare)
            continue
        out[n] = [first, second, [g32.real.tolist(), g32.imag.tolist()], [h32.real.tolist(), h32.imag.tolist()]]
    return out


def _tapejax_derivatives(tj, f) -> list:
    tnp = tj.numpy
    z, c, v = tj.constant(POINTS), tj.constant(C), tj.constant(V)
    with tj.GradientTape() as outer:
        outer.watch(z)
        with tj.GradientTape() as inner:
            inner.watch(z)
            loss = tnp.sum(tnp.real(tnp.conj(c) * f(z)))
        g = inner.gradient(loss, z)
        s = tnp.sum(tnp.real(tnp.conj(v) * g)) if g is not None else None
    h = outer.gradient(s, z) if s is not None else None
    return [None if d is None else np.asarray(d.numpy(), np.complex128) for d in (g, h)]


def _error(got, want) -> np.ndarray:
    """Per point: |got - want|, NaN where one is finite and the other not (or infinite in another direction)."""
    same = (np.isnan(got) & np.isnan(want)) | (np.isinf(got) & (got == want))
    both = np.isfinite(got) & np.isfinite(want)
    return np.where(same, 0.0, np.where(both, np.abs(np.where(both, got - want, 0)), np.nan))


def _value_lines(tj, names: list) -> int:
    """Print the functions (NumPy ufuncs) whose values (each part) are off by more than 1e-3 relatively from
    NumPy's complex128 ones at the points (where those are finite and within complex64's range); returns the
    number of lines printed."""
    z = POINTS.astype(np.complex128)
    lines = 0
    for n in names:
        if not isinstance(getattr(np, n, None), np.ufunc):  # (NumPy's elementwise functions: its reference values)
            continue
        try:
            with np.errstate(all="ignore"):
                want = getattr(np, n)(z)
        except TypeError:  # (NumPy's has no complex loop: deg2rad)
            continue
        got = getattr(tj.numpy, n)(tj.constant(POINTS)).numpy().astype(np.complex128)
        bad = np.zeros(z.shape, bool)
        for part in (np.real, np.imag):
            w, g = part(want), part(got)
            ok = np.isfinite(w) & (np.abs(w) < 3e38)
            with np.errstate(all="ignore"):
                bad |= ok & ~(np.abs(g - w) <= 1e-3 * np.abs(w) + 1e-37)
        if np.any(bad):
            where = np.flatnonzero(bad)
            shown = "; ".join(f"z={POINTS[i]:.3g}: tj {got[i]:.4g} c128 {want[i]:.4g}" for i in where[:4])
            print(f"{n} value ({len(where)} points): {shown}")
            lines += 1
    return lines


def main(argv: list) -> int:
    warnings.filterwarnings("ignore")
    served = float64_reference.serve(argv, _reference)
    if served is not None:
        return served
    import tapejax as tj
    only = set(argv[0].split(",")) if argv else None
    chosen = [n for n in names(tj) if only is None or n in only]
    ref = float64_reference.ask(__file__, chosen)
    lines = _value_lines(tj, chosen)
    for n, (first, second, g32, h32) in ref.items():
        try:
            gots = _tapejax_derivatives(tj, getattr(tj.numpy, n))
        except Exception as e:  # noqa: BLE001  (reported: a function tapejax cannot differentiate twice)
            print(f"{n}: tapejax raised {type(e).__name__}: {str(e).splitlines()[0][:120]}")
            lines += 1
            continue
        wants = [np.asarray(w[0]) + 1j * np.asarray(w[1]) for w in (first, second)]
        jax32 = [np.asarray(w[0]) + 1j * np.asarray(w[1]) for w in (g32, h32)]
        size = max(float(np.max(np.abs(w[np.isfinite(w)]), initial=0.0)) for w in wants)
        for order, got, want, j32 in zip(("first", "second"), gots, wants, jax32):
            if got is None:
                got = np.zeros_like(want)
            e_tj, e_jax = _error(got, want), _error(j32, want)
            # a point is reported where tapejax is not finite and complex64 JAX is, or far worse than it; the
            # tolerance is on the scale of the derivative at that point (near 1e10 the values are large)
            local = np.maximum(np.abs(np.where(np.isfinite(want), want, 0)), 1e-30)
            # (where complex128's derivative is not finite, a pole, there is nothing to compare: TF's C99
            # infinities, which tapejax keeps, against JAX's NaN)
            bad = np.isfinite(want) & (np.isnan(e_tj) & ~np.isnan(e_jax)) | np.isfinite(want) & (
                ~np.isnan(e_tj) & (e_tj > 1e-3 * local + 1e-6 * size) & (np.isnan(e_jax) | (e_tj > 10 * e_jax)))
            if np.any(bad):
                where = np.flatnonzero(bad)
                shown = "; ".join(f"z={POINTS[i]:.3g}: tj {got[i]:.4g} c128 {want[i]:.4g} jax64 {j32[i]:.4g}"
                                  for i in where[:4])
                print(f"{n} {order} ({len(where)} points): {shown}")
                lines += 1
    print(f"\n{len(ref)} functions; {lines} lines of differences")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
