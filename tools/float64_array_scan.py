"""First and second derivatives of tapejax's reductions and matrix functions against float64 JAX, on hard inputs.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python tools/float64_array_scan.py [NAME[,NAME...]]

The companion of float64_derivative_scan.py (elementwise functions) for functions of whole arrays: reductions,
cumulative ops, softmax-likes, norms and ``linalg``. Each function ``f`` of ``CASES`` is taken on hard float32
inputs (zeros, ties, values near float32's range, tiny values, a constant vector, singular and ill-conditioned
matrices; see ``INPUTS``) through the loss ``sum(w * f(x))`` with fixed random weights ``w``: its gradient on
nested ``GradientTape``s, and the gradient of ``sum(v * gradient)`` (a Hessian-vector product). The reference is
``jax.grad`` of the same jax.numpy function in float64 (a subprocess with x64 on); float32 ``jax.grad`` is run
beside it. A line is printed where tapejax's float32 derivative is further from float64 than float32 JAX's by
more than 10x (and than 1e-3 of the derivative's size), or is NaN or infinite where float64's and float32 JAX's
are finite: a rule of tapejax that loses what JAX's keeps. The report is for reading: TF's conventions where
JAX's differ (its ties, its gradients at singular points) show up too.

What it reports on 2026-12-06 (75 functions, 52 lines), each checked against TF 2.21 on the same inputs: TF's
conventions, which tapejax keeps: ``|x|``'s derivative 0 at 0 (``norm`` with ``ord=1``), clip's gradient passing
at the bounds (ClipByValueGrad; JAX halves it), ``eigvalsh`` reading the lower triangle (its gradient is
lower-triangular), the SVD's safe reciprocals ``x / (x^2 + 1e-20)`` (``svdvals``, the ``ord=2`` norm, ``pinv``,
``cond``: 0 rather than NaN at equal singular values, and an absolute 1e-20 that drops the terms between singular
values of 1e-15 or 1e15, as TF's), ``|x|**0.5``'s NaN at 0 (PowGrad times AbsGrad's 0); ``pinv``'s second
derivative at a rank-1 matrix (float32 rounding of the dropped singular values: TF, JAX and tapejax all differ);
and float32's range, where ``std``/``nanstd`` of values near 3e38 have gradient 0 (the truth is 0.28; TF and
float32 JAX give NaN), ``det``'s gradient at entries of 1e15 is +-inf (TF's; float32 JAX's 0) and its second
derivative at entries of 1e-15 is 0 (TF's; float32 JAX's NaN); ``layer_norm``'s second derivatives, TF's: its
variance is taken around ``stop_gradient(mean)``, as ``tf.nn.moments`` (Keras's LayerNormalization), which changes
the second order.
It found ``layer_norm``'s gradient at values of 1e13 and beyond (JAX's rsqrt rule underflowed; 7c647bb).
"""
from __future__ import annotations

import sys
import warnings

import numpy as np

import float64_reference  # (tools/: the script's own folder is on sys.path)

_rng = np.random.default_rng(7)
_N = _rng.standard_normal(6).astype(np.float32)
_M = _rng.standard_normal((4, 4)).astype(np.float32)
_RANK1 = np.outer([1.0, 2.0, -1.0, 0.5], [0.3, -1.0, 2.0, 1.0]).astype(np.float32)
_SING = _RANK1 + np.float32(1e-6) * np.eye(4, dtype=np.float32)
_SPD = (_M @ _M.T + np.float32(0.1) * np.eye(4, dtype=np.float32)).astype(np.float32)

# input kind -> (label, float32 array) pairs
INPUTS = {
    "vector": [
        ("normal", _N),
        ("one zero", np.array([1.5, 0.0, -2.0, 0.5, 3.0, -1.0], np.float32)),
        ("two zeros", np.array([1.5, 0.0, -2.0, 0.0, 3.0, -1.0], np.float32)),
        ("ties", np.array([3.0, 1.0, 3.0, -2.0, 3.0, 0.5], np.float32)),
        ("constant", np.full(6, 0.7, np.float32)),
        ("large", _N * np.float32(1e18)),
        ("huge", np.array([3e38, -3e38, 1e38, 2.0, -1e38, 0.5], np.float32)),
        ("tiny", _N * np.float32(1e-30)),
        ("spread", np.array([1e10, 1.0, -1e10, 1e-10, 3.0, -2.0], np.float32)),
        ("-inf entry", np.array([1.0, -np.inf, 0.5, 2.0, -1.0, 0.0], np.float32)),
        ("all -inf", np.full(6, -np.inf, np.float32)),
        ("very negative", np.array([-1e4, -1e4 + 1, -1e4 - 2, -1e4, -1e4 + 3, -1e4 - 1], np.float32)),
    ],
    "matrix": [
        ("normal", _M),
        ("identity", np.eye(4, dtype=np.float32)),
        ("near-singular", _SING),
        ("singular", _RANK1),
        ("diagonal tiny", np.diag([1.0, 2.0, 1e-7, 3.0]).astype(np.float32)),
        ("large", _M * np.float32(1e15)),
        ("tiny", _M * np.float32(1e-15)),
        ("zeros row", _M * np.array([[1.0], [0.0], [1.0], [1.0]], np.float32)),
        ("ties", np.array([[2, 1, 2, 0], [1, 2, 1, 2], [2, 1, 2, 1], [0, 2, 1, 2]], np.float32)),
    ],
    "spd": [
        ("spd", _SPD),
        ("identity", np.eye(4, dtype=np.float32)),
        ("repeated eigenvalue", np.diag([2.0, 2.0, 1.0, 3.0]).astype(np.float32)),
        ("ill-conditioned", np.diag([1.0, 1e-6, 1.0, 2.0]).astype(np.float32)),
        ("large", _SPD * np.float32(1e18)),
    ],
}
_NAN_ENTRY = np.array([1.0, np.nan, -2.0, 0.5, 3.0, np.nan], np.float32)
INPUTS["vector with nan"] = INPUTS["vector"] + [("nan entry", _NAN_ENTRY)]
INPUTS["vector+matrix"] = ([("vector " + n, x) for n, x in INPUTS["vector"]] +
                           [("matrix " + n, x) for n, x in INPUTS["matrix"]])

_LABELS = [0.1, 0.2, 0.3, 0.1, 0.2, 0.1]  # softmax_cross_entropy_with_logits' labels (a distribution)
_KNOTS = [-2.0, -1.0, 0.0, 1.0, 2.0, 3.0]  # interp's sample points: the vector inputs hit some exactly

# (name, function path under tj / jax, keyword arguments, input kind). "numpy.x" is tj.numpy.x / jax.numpy.x,
# "nn.x" tj.nn.x / jax.nn.x; a "linalg" path is numpy.linalg's. In place of a path, ``root -> function of x``.
CASES = [
    ("sum", "numpy.sum", {}, "vector+matrix"),
    ("sum axis 0", "numpy.sum", {"axis": 0}, "matrix"),
    ("prod", "numpy.prod", {}, "vector+matrix"),
    ("prod axis 1", "numpy.prod", {"axis": 1}, "matrix"),
    ("mean", "numpy.mean", {}, "vector+matrix"),
    ("var", "numpy.var", {}, "vector+matrix"),
    ("var ddof 1", "numpy.var", {"ddof": 1}, "vector"),
    ("std", "numpy.std", {}, "vector+matrix"),
    ("std axis 0", "numpy.std", {"axis": 0}, "matrix"),
    ("max", "numpy.max", {}, "vector+matrix"),
    ("min axis 1", "numpy.min", {"axis": 1}, "matrix"),
    ("ptp", "numpy.ptp", {}, "vector"),
    ("median", "numpy.median", {}, "vector+matrix"),
    ("cumsum", "numpy.cumsum", {}, "vector"),
    ("cumprod", "numpy.cumprod", {}, "vector"),
    ("sort", "numpy.sort", {}, "vector"),
    ("nansum", "numpy.nansum", {}, "vector"),
    ("average weights", "numpy.average", {"weights": [1.0, 2.0, 0.5, 1.0, 3.0, 0.25]}, "vector"),
    ("logsumexp", "nn.logsumexp", {}, "vector+matrix"),
    ("logsumexp axis 1", "nn.logsumexp", {"axis": 1}, "matrix"),
    ("softmax", "nn.softmax", {}, "vector"),
    ("log_softmax", "nn.log_softmax", {}, "vector"),
    ("standardize", "nn.standardize", {}, "vector"),
    ("norm", "numpy.linalg.norm", {}, "vector+matrix"),
    ("norm ord 1", "numpy.linalg.norm", {"ord": 1}, "vector"),
    ("norm ord inf", "numpy.linalg.norm", {"ord": np.inf}, "vector"),
    ("norm ord 3", "numpy.linalg.norm", {"ord": 3}, "vector"),
    ("norm ord 0.5", "numpy.linalg.norm", {"ord": 0.5}, "vector"),
    ("matrix norm 2", "numpy.linalg.norm", {"ord": 2}, "matrix"),
    ("matrix norm nuc", "numpy.linalg.norm", {"ord": "nuc"}, "matrix"),
    ("matrix norm 1", "numpy.linalg.norm", {"ord": 1}, "matrix"),
    ("vector_norm", "numpy.linalg.vector_norm", {}, "vector"),
    ("det", "numpy.linalg.det", {}, "matrix"),
    ("slogdet", "numpy.linalg.slogdet", {}, "matrix"),
    ("inv", "numpy.linalg.inv", {}, "matrix"),
    ("pinv", "numpy.linalg.pinv", {}, "matrix"),
    ("matrix_power 3", "numpy.linalg.matrix_power", {"n": 3}, "matrix"),
    ("matrix_power -2", "numpy.linalg.matrix_power", {"n": -2}, "matrix"),
    ("trace", "numpy.trace", {}, "matrix"),
    ("svdvals", "numpy.linalg.svdvals", {}, "matrix"),
    ("cholesky", "numpy.linalg.cholesky", {}, "spd"),
    ("eigvalsh", "numpy.linalg.eigvalsh", {}, "spd"),
    ("solve", "numpy.linalg.solve", {"b": [1.0, -2.0, 0.5, 3.0]}, "matrix"),
    ("cond", "numpy.linalg.cond", {}, "matrix"),
    ("cumulative_prod", "numpy.cumulative_prod", {}, "vector"),
    ("diff", "numpy.diff", {}, "vector"),
    ("ediff1d", "numpy.ediff1d", {}, "vector"),
    ("gradient", "numpy.gradient", {}, "vector"),
    ("trapezoid", "numpy.trapezoid", {}, "vector"),
    ("clip", lambda m: lambda x: m.numpy.clip(x, 0.5, 3.0), {}, "vector"),
    ("interp", lambda m: lambda x: m.numpy.interp(x, m.numpy.asarray(_KNOTS, x.dtype),
                                                  m.numpy.asarray([0.0, 1.0, 4.0, 1.0, 0.0, 2.0], x.dtype)), {},
     "vector"),
    ("interp fp", lambda m: lambda x: m.numpy.interp(m.numpy.asarray([-2.5, -1.0, 0.3, 1.0, 2.9, 4.0], x.dtype),
                                                     m.numpy.asarray(_KNOTS, x.dtype), x), {}, "vector"),
    ("convolve", lambda m: lambda x: m.numpy.convolve(x, m.numpy.asarray([1.0, -2.0, 0.5], x.dtype)), {}, "vector"),
    ("correlate", lambda m: lambda x: m.numpy.correlate(x, m.numpy.asarray([1.0, -2.0, 0.5], x.dtype), mode="full"), {},
     "vector"),
    ("polyval p", lambda m: lambda x: m.numpy.polyval(x, m.numpy.asarray([1.5, -0.5, 2.0], x.dtype)), {}, "vector"),
    ("polyval x", lambda m: lambda x: m.numpy.polyval(m.numpy.asarray([1.0, -2.0, 0.5, 3.0], x.dtype), x), {},
     "vector"),
    ("kron", lambda m: lambda x: m.numpy.kron(x, x), {}, "vector"),
    ("outer", lambda m: lambda x: m.numpy.outer(x, x), {}, "vector"),
    ("x @ x.T", lambda m: lambda x: m.numpy.matmul(x, m.numpy.transpose(x)), {}, "matrix"),
    ("einsum trace", lambda m: lambda x: m.numpy.einsum("ii", x), {}, "matrix"),
    ("einsum ij,jk", lambda m: lambda x: m.numpy.einsum("ij,jk->ik", x, x), {}, "matrix"),
    ("quantile 0.3", lambda m: lambda x: m.numpy.quantile(x, 0.3), {}, "vector"),
    ("percentile 50", lambda m: lambda x: m.numpy.percentile(x, 50.0), {}, "vector"),
    ("nanmean", "numpy.nanmean", {}, "vector with nan"),
    ("nanvar", "numpy.nanvar", {}, "vector with nan"),
    ("nanstd", "numpy.nanstd", {}, "vector with nan"),
    ("nanmax", "numpy.nanmax", {}, "vector with nan"),
    ("nanprod", "numpy.nanprod", {}, "vector with nan"),
    ("fft", lambda m: lambda x: (m.numpy.real(m.numpy.fft.fft(x)), m.numpy.imag(m.numpy.fft.fft(x))), {},
     "vector"),
    ("rfft", lambda m: lambda x: (m.numpy.real(m.numpy.fft.rfft(x)), m.numpy.imag(m.numpy.fft.rfft(x))), {},
     "vector"),
    ("unwrap", "numpy.unwrap", {}, "vector"),
    ("softmax axis 0", "nn.softmax", {"axis": 0}, "matrix"),
    # (tj's function, then the float64 reference written with jax.numpy)
    ("softmax_cross_entropy_with_logits",
     (lambda m: lambda x: m.nn.softmax_cross_entropy_with_logits(m.numpy.asarray(_LABELS, x.dtype), x),
      lambda m: lambda x: -m.numpy.sum(m.numpy.asarray(_LABELS, x.dtype) * m.nn.log_softmax(x))), {}, "vector"),
    ("sparse_softmax_cross_entropy_with_logits",
     (lambda m: lambda x: m.nn.sparse_softmax_cross_entropy_with_logits(m.numpy.asarray([0, 3, 1, 2]), x),
      lambda m: lambda x: -m.numpy.take_along_axis(m.nn.log_softmax(x), m.numpy.asarray([[0], [3], [1], [2]]),
                                                   axis=1)[:, 0]), {}, "matrix"),
    ("layer_norm",
     (lambda m: lambda x: m.nn.layer_norm(x),
      lambda m: lambda x: (x - m.numpy.mean(x, -1, keepdims=True)) / m.numpy.sqrt(m.numpy.var(x, -1, keepdims=True)
                                                                                  + 1e-5)), {}, "vector+matrix"),
]


def function_of(root, path: str, kwargs: dict, xp):
    """The function ``x -> f(x, **kwargs)`` at ``path`` under ``root`` (tj or jax); ``b`` and ``weights``, given as
    lists, become arrays of ``xp`` in x's dtype."""
    if isinstance(path, tuple):  # (tapejax's function, and the reference's: jax has none of that name)
        path = path[0] if root.__name__ == "tapejax" else path[1]
    if callable(path):  # (a function of tj or jax: arguments of its own besides x)
        return path(root)
    f = root
    for part in path.split("."):
        f = getattr(f, part)
    kw = {k: v for k, v in kwargs.items() if k not in ("b", "weights")}

    def call(x):
        extra = {k: xp.asarray(np.asarray(kwargs[k]), dtype=x.dtype) for k in ("weights",) if k in kwargs}
        if "b" in kwargs:
            return f(x, xp.asarray(np.asarray(kwargs["b"]), dtype=x.dtype), **kw)
        return f(x, **kw, **extra)
    return call


def weights(shapes, seed: int) -> list:
    r = np.random.default_rng(seed)
    return [r.uniform(0.5, 1.5, s).astype(np.float32) for s in shapes]


def _loss(xp, ys, ws):
    return sum(xp.sum(w * y) for w, y in zip(ws, ys) if y.dtype.kind in "fc")


def _jax_derivatives(case, x, dtype) -> list:
    """[gradient, Hessian-vector product] of float32 or float64 jax.numpy, as lists (or the error's words)."""
    import jax
    import jax.numpy as jnp
    _, path, kwargs, _ = case
    f = function_of(jax, path, kwargs, jnp)
    x = jnp.asarray(x, dtype)
    ys = f(x)
    ys = list(ys) if isinstance(ys, (tuple, list)) else [ys]
    ws = [jnp.asarray(w, dtype) for w in weights([y.shape for y in ys], 1)]
    v = jnp.asarray(weights([x.shape], 2)[0], dtype)

    def loss(x):
        out = f(x)
        return _loss(jnp, list(out) if isinstance(out, (tuple, list)) else [out], ws)
    try:
        g = jax.grad(loss)(x)
        h = jax.grad(lambda x: jnp.sum(v * jax.grad(loss)(x)))(x)
    except Exception as e:  # noqa: BLE001
        return str(e).splitlines()[0][:100]
    return [np.asarray(g, np.float64).tolist(), np.asarray(h, np.float64).tolist()]


def _reference(names: list) -> dict:
    """float64 (this process has x64 on) and float32 jax derivatives of every case and input."""
    out = {}
    for case in CASES:
        if case[0] not in names:
            continue
        for label, x in INPUTS[case[3]]:
            out[f"{case[0]}|{label}"] = [_jax_derivatives(case, x, np.float64), _jax_derivatives(case, x, np.float32)]
    return out


def _tapejax_derivatives(tj, case, x) -> list:
    _, path, kwargs, _ = case
    f = function_of(tj, path, kwargs, tj.numpy)
    xt = tj.constant(x)
    v = tj.constant(weights([x.shape], 2)[0])
    with tj.GradientTape() as outer:
        outer.watch(xt)
        with tj.GradientTape() as inner:
            inner.watch(xt)
            ys = f(xt)
            ys = list(ys) if isinstance(ys, (tuple, list)) else [ys]
            ws = [tj.constant(w) for w in weights([tuple(y.shape) for y in ys], 1)]
            loss = _loss(tj.numpy, ys, ws)
        g = inner.gradient(loss, xt)
        s = tj.numpy.sum(v * g) if g is not None else None
    h = outer.gradient(s, xt) if s is not None else None
    return [None if g is None else np.asarray(g.numpy(), np.float64),
            None if h is None else np.asarray(h.numpy(), np.float64)]


def _error(got, want) -> float:
    """The largest difference, NaN where one is NaN or infinite and the other not (or infinite of another sign)."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    same_special = (np.isnan(got) & np.isnan(want)) | (np.isinf(got) & (got == want))
    if np.any(~same_special & ~(np.isfinite(got) & np.isfinite(want))):
        return float("nan")
    d = np.where(same_special, 0.0, np.abs(got - want))
    return float(np.max(d)) if d.size else 0.0


def main(argv: list) -> int:
    warnings.filterwarnings("ignore")
    served = float64_reference.serve(argv, _reference)
    if served is not None:
        return served
    import tapejax as tj
    only = set(argv[0].split(",")) if argv else None
    names = [c[0] for c in CASES if only is None or c[0] in only]
    ref = float64_reference.ask(__file__, names)
    lines = 0
    for case in CASES:
        if case[0] not in names:
            continue
        for label, x in INPUTS[case[3]]:
            want64, want32 = ref[f"{case[0]}|{label}"]
            if isinstance(want64, str):
                continue  # float64 JAX has no derivative here: nothing to compare
            try:
                gots = _tapejax_derivatives(tj, case, x)
            except Exception as e:  # noqa: BLE001  (reported: a function tapejax cannot differentiate twice)
                print(f"{case[0]} [{label}]: tapejax raised {type(e).__name__}: {str(e).splitlines()[0][:120]}")
                lines += 1
                continue
            for order, got, w64, w32 in zip(("first", "second"), gots, want64, want32 if
                                            not isinstance(want32, str) else [None, None]):
                if got is None:
                    got = np.zeros_like(np.asarray(w64))
                e_tj = _error(got, w64)
                e_jax = _error(w32, w64) if w32 is not None else float("nan")
                # (a second derivative's rounding is on the first's scale: a float64 zero is 1e-9 in float32)
                scale = max(float64_reference.largest_finite(w64), float64_reference.largest_finite(want64[0]))
                if np.isnan(e_tj) and not np.isnan(e_jax):
                    why = "not finite where float64 and float32 JAX are"
                elif not np.isnan(e_tj) and e_tj > 1e-3 * scale + 1e-30 and (np.isnan(e_jax) or e_tj > 10 * e_jax):
                    why = f"error {e_tj:.3g} (float32 JAX {e_jax:.3g}, size {scale:.3g})"
                else:
                    continue
                gap = np.nan_to_num(got - np.asarray(w64), nan=np.inf, posinf=np.inf, neginf=np.inf)
                i = int(np.argmax(np.abs(gap).ravel()))
                print(f"{case[0]} [{label}] {order}: {why}; at {i}: tj {got.ravel()[i]:.6g} "
                      f"f64 {np.asarray(w64).ravel()[i]:.6g} jax32 "
                      f"{np.asarray(w32).ravel()[i] if w32 is not None else float('nan'):.6g}")
                lines += 1
    print(f"\n{len(names)} functions; {lines} lines of differences")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
