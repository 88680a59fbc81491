"""The comparison of two result trees the differential tools share: tapejax's against TensorFlow's."""
from __future__ import annotations

import numpy as np


def differ(g, w, rtol: float = 2e-4, atol: float = 1e-5):
    """Why tapejax's result tree ``g`` (NumPy arrays, None, numbers in lists, tuples and dicts) is not TF's ``w``,
    or None when they agree: the same structure (container types, lengths, dict keys in order), arrays of the
    same shape and dtype, NaN and infinities at the same places, finite values within ``rtol`` and ``atol``
    times the largest finite magnitude of ``w`` (at least 1)."""
    if isinstance(w, np.ndarray) and isinstance(g, np.ndarray):
        if g.shape != w.shape or g.dtype != w.dtype:
            return f"{g.dtype.name}{list(g.shape)} vs {w.dtype.name}{list(w.shape)}"
        if w.dtype.kind != "f":
            return None if np.array_equal(g, w) else "values"
        finite, nan = np.isfinite(w), np.isnan(w)
        if not np.array_equal(np.isnan(g), nan) or not np.array_equal(g[~finite & ~nan], w[~finite & ~nan]):
            return "NaN/inf positions"
        scale = max(1.0, float(np.max(np.abs(w[finite]), initial=0.0)))
        return None if np.allclose(g[finite], w[finite], rtol=rtol, atol=atol * scale) else "values"
    if type(g) is not type(w):
        return f"{'None' if g is None else type(g).__name__} vs {'None' if w is None else type(w).__name__}"
    if isinstance(w, (list, tuple)):
        if len(g) != len(w):
            return f"{len(g)} entries vs {len(w)}"
        return next((f"[{i}] {d}" for i, (x, y) in enumerate(zip(g, w)) if (d := differ(x, y, rtol, atol))), None)
    if isinstance(w, dict):
        if list(g) != list(w):
            return f"keys {list(g)} vs {list(w)}"
        return next((f"[{k!r}] {d}" for k in w if (d := differ(g[k], w[k], rtol, atol))), None)
    return None if g == w else f"{g!r} vs {w!r}"
