"""``tj.debug.gradcheck``: tape gradients checked against central finite differences.

Terms. The *analytic* derivative is what ``GradientTape.gradient`` gives; the *numeric* one is the
central difference ``(F(x + h e_i) - F(x - h e_i)) / 2h`` of ``F = sum(f(*args))`` along element ``i``,
with ``h = eps * max(1, |x_i|)``, computed in float64 on the host. An element passes when
``|analytic - numeric| <= atol + rtol * |numeric|``; the *worst* element is the one furthest outside
(or, when all pass, closest to) its own tolerance.

Algorithm. Normalise the arguments' leaves (inside lists, tuples and dicts of parameters; a list of
numbers is one array): float arrays become Tensors, Variables stay Variables, anything else passes
through; take every float leaf's gradient in one tape; then, leaf by leaf and element by element (all, or
a seeded random subset of ``max_elements``), evaluate ``F`` twice with the element moved by ``+h`` and
``-h`` (a Variable is assigned and restored afterwards, even on error) and compare. A complex element
moves along its real and its imaginary part (``F`` is the real part of the sum): the gradient of a real
loss is ``dF/dx + i dF/dy``, TF's convention. It uses only public tapejax API: it is an ordinary user of the tape.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import jax
import jax.numpy as jnp
import numpy as np

from ..backprop import GradientTape
from ..nest import UnconnectedGradients, flatten
from ..ops import numpy as tnp
from ..tensor import Tensor, Variable, convert_to_tensor
from .tapes import is_float


class GradcheckError(AssertionError):
    """``gradcheck`` found a gradient that disagrees with finite differences."""


class GradcheckResult:
    """Outcome of :func:`gradcheck`. Truthy when every checked element is within tolerance.

    ``ok``; ``max_abs_error`` / ``max_rel_error`` (each the largest over checked elements, possibly of
    different elements); ``worst``: the element furthest outside its tolerance (or, when all pass, the
    closest to it), a dict with ``arg`` (the argument's index among the arguments' leaves, in jax's order:
    the argument index when none is a structure), ``index`` (element index tuple), ``analytic``, ``numeric``
    (complex for a complex argument), and that element's own ``abs_error``, ``rel_error`` and ``allowed``
    (``atol + rtol * |numeric|``); per float leaf, arrays in ``analytic`` / ``numeric`` (NaN where an element
    was not checked); ``checked`` and ``failed`` (numbers of elements); ``shape_mismatches`` (one line per argument
    whose tape gradient has another shape than the argument: a failure, its elements not compared); ``eps``,
    ``atol``, ``rtol``."""

    def __init__(self, ok, max_abs_error, max_rel_error, worst, analytic, numeric, checked, eps, atol, rtol,
                 failed=0, shape_mismatches=()):
        self.ok, self.max_abs_error, self.max_rel_error, self.worst = ok, max_abs_error, max_rel_error, worst
        self.analytic, self.numeric, self.checked, self.failed = analytic, numeric, checked, failed
        self.eps, self.atol, self.rtol = eps, atol, rtol
        self.shape_mismatches = list(shape_mismatches)

    def __bool__(self) -> bool:
        return bool(self.ok)

    def __str__(self) -> str:
        status = "ok" if self.ok else f"FAILED ({self.failed} outside tolerance)"
        if self.shape_mismatches:
            status = f"FAILED ({'; '.join(self.shape_mismatches)}; {self.failed} elements outside tolerance)"
        s = f"gradcheck {status}: {self.checked} elements (eps={self.eps:g}, atol={self.atol:g}, rtol={self.rtol:g})"
        w = self.worst
        if w is not None:
            s += (f"; {'worst' if not self.ok else 'closest to tolerance'}: arg {w['arg']} element {w['index']}: "
                  f"tape {w['analytic']:.6g} vs finite differences {w['numeric']:.6g} (abs error "
                  f"{w['abs_error']:.3g}, allowed {w['allowed']:.3g}, rel error {w['rel_error']:.3g})")
        s += f"; over all elements: max abs error {self.max_abs_error:.3g}, max rel error {self.max_rel_error:.3g}"
        return s

    __repr__ = __str__

    def raise_if_failed(self) -> "GradcheckResult":
        if not self.ok:
            raise GradcheckError(str(self))
        return self


def _number_list(x) -> bool:
    """A list (nested) of Python numbers only: one array argument, as ``tj.constant`` reads it."""
    return isinstance(x, list) and all(_number_list(v) if isinstance(v, list) else
                                       isinstance(v, (int, float, complex)) and not isinstance(v, bool) for v in x)


def _scalar(v) -> Any:
    """An element as a Python float, or complex for a complex argument's."""
    return complex(v) if np.iscomplexobj(v) else float(v)


def gradcheck(f: Callable, *args: Any, eps: float = 1e-3, atol: float = 1e-3, rtol: float = 1e-2,
              max_elements: Optional[int] = None, seed: int = 0, raise_on_failure: bool = False) -> GradcheckResult:
    """Compare ``GradientTape`` gradients of ``sum(f(*args))`` with central finite differences.

    Every float argument (Tensor, Variable, numpy/jax array or Python float) is differentiated; other
    arguments are passed through. The numeric derivative of element i is
    ``(F(x + h e_i) - F(x - h e_i)) / 2h`` with ``h = eps * max(1, |x_i|)``, evaluated in float64 on the
    host from float32 function values, so keep ``eps`` around 1e-3 for float32. An element passes when
    ``|analytic - numeric| <= atol + rtol * |numeric|``.

    Args:
      max_elements: check at most this many elements per argument (a seeded random subset).
      raise_on_failure: raise :class:`GradcheckError` (an ``AssertionError``) with the details instead
        of returning a failed result.
    Returns: a :class:`GradcheckResult` (truthy when ok; ``str`` gives a one-line report)."""
    for name, value, low in (("eps", eps, "> 0"), ("atol", atol, ">= 0"), ("rtol", rtol, ">= 0")):
        ok = isinstance(value, (int, float, np.floating, np.integer)) and np.isfinite(value) and \
            (value > 0 if low == "> 0" else value >= 0)
        if not ok:  # a NaN tolerance would make every comparison fail (or pass) silently
            raise ValueError(f"gradcheck: {name}={value!r} must be a finite number {low}; e.g. eps=1e-3, "
                             "atol=1e-3, rtol=1e-2 for float32.")
    if max_elements is not None and (not isinstance(max_elements, (int, np.integer)) or max_elements < 1):
        raise ValueError(f"gradcheck: max_elements={max_elements!r} must be a positive int or None.")

    def total(out) -> Any:
        leaves = [x for x in flatten(out)[0] if x is not None]
        s = None
        for leaf in leaves:
            v = tnp.sum(leaf.read_value() if isinstance(leaf, Variable) else leaf)
            s = v if s is None else s + v
        return s

    # Normalise the arguments (their leaves, inside lists, tuples and dicts of parameters): float arrays become
    # Tensors (Variables stay Variables); a list of Python numbers is one array.
    leaves, treedef = jax.tree_util.tree_flatten(
        tuple(args), is_leaf=lambda x: isinstance(x, (Tensor, Variable)) or _number_list(x))
    norm, diff = [], []
    for i, a in enumerate(leaves):
        if isinstance(a, Variable):
            norm.append(a)
            if is_float(a.dtype):
                diff.append(i)
            continue
        if isinstance(a, (Tensor, np.ndarray, jax.Array, float, complex, np.generic)) or _number_list(a):
            t = a if isinstance(a, Tensor) else convert_to_tensor(a)
            norm.append(t)
            if is_float(t.dtype):
                diff.append(i)
            continue
        norm.append(a)
    if not diff:
        raise ValueError("gradcheck: no floating-point argument to check; pass Tensors, arrays or floats (or "
                         "lists, tuples or dicts of them).")

    def call(new_leaves):
        out = total(f(*jax.tree_util.tree_unflatten(treedef, new_leaves)))
        # (a complex result: its real part, the real loss whose gradient TF's convention gives)
        return tnp.real(out) if out is not None and jnp.issubdtype(out.dtype, jnp.complexfloating) else out

    with GradientTape() as tape:
        for i in diff:
            tape.watch(norm[i])
        y = call(norm)
    if y is None:
        raise ValueError("gradcheck: f returned no tensor.")
    grads = tape.gradient(y, [norm[i] for i in diff], unconnected_gradients=UnconnectedGradients.ZERO)

    def value_with(i, arr):
        a = norm[i]
        if isinstance(a, Variable):
            a.assign(np.asarray(arr, dtype=a.dtype))
            return a
        return Tensor(jnp.asarray(arr, dtype=a.dtype))

    def eval_with(i, arr) -> float:
        new = list(norm)
        new[i] = value_with(i, arr)
        return float(np.asarray(call(new).value, np.float64))

    rng = np.random.default_rng(seed)
    analytic_all, numeric_all = [], []
    worst = None
    max_abs = max_rel = 0.0
    ok = True
    checked = failed = 0
    mismatches = []
    for k, i in enumerate(diff):
        a = norm[i]
        complex_arg = jnp.issubdtype(a.dtype, jnp.complexfloating)
        # (a complex element moves along its real and its imaginary part: the gradient of the real loss F is
        # dF/dx + i dF/dy, TF's convention)
        x0 = np.array(a.numpy(), dtype=np.complex128 if complex_arg else np.float64)
        ga = np.asarray(grads[k].numpy(), np.complex128 if complex_arg else np.float64)
        if ga.shape != x0.shape:  # (a wrong gradient, not one to reshape: TF's checker fails it too)
            ok = False
            mismatches.append(f"arg {i}: the tape's gradient has shape {ga.shape}, the argument {x0.shape}")
            analytic_all.append(np.full(x0.shape, np.nan))
            numeric_all.append(np.full(x0.shape, np.nan))
            continue
        num = np.full(x0.shape, np.nan, dtype=x0.dtype)
        n = x0.size
        idx = np.arange(n) if (max_elements is None or n <= max_elements) else \
            np.sort(rng.choice(n, max_elements, replace=False))
        try:
            for flat_i in idx:
                e = np.unravel_index(flat_i, x0.shape) if x0.ndim else ()
                h = eps * max(1.0, abs(x0[e]))
                num[e] = 0.0
                for step in ((1.0, 1j) if complex_arg else (1.0,)):
                    xp = x0.copy()
                    xp[e] += step * h
                    fp = eval_with(i, xp)
                    xp[e] -= 2 * step * h
                    fm = eval_with(i, xp)
                    num[e] += step * (fp - fm) / (2 * h)
                err = abs(ga[e] - num[e])
                rel = err / max(abs(num[e]), atol, 1e-12)  # relative to values above the noise floor
                allowed = atol + rtol * abs(num[e])
                bad = not (err <= allowed)  # NaN fails
                checked += 1
                if bad:
                    ok = False
                    failed += 1
                # The worst element is the one furthest outside (or closest to) its own tolerance: its
                # values and errors are reported together, so the line names one element throughout.
                score = err / allowed if np.isfinite(err) else np.inf
                if worst is None or score > worst["score"]:
                    worst = {"arg": i, "index": tuple(int(v) for v in e), "analytic": _scalar(ga[e]),
                             "numeric": _scalar(num[e]), "abs_error": float(err) if np.isfinite(err) else np.inf,
                             "rel_error": float(rel) if np.isfinite(rel) else np.inf, "allowed": float(allowed),
                             "bad": bad, "score": float(score)}
                max_abs = max(max_abs, float(err) if np.isfinite(err) else np.inf)
                max_rel = max(max_rel, float(rel) if np.isfinite(rel) else np.inf)
        finally:
            if isinstance(a, Variable):
                a.assign(np.asarray(x0, dtype=a.dtype))
        analytic_all.append(ga)
        numeric_all.append(num)
    if worst is not None:
        del worst["score"]
    res = GradcheckResult(ok, max_abs, max_rel, worst, analytic_all, numeric_all, checked, eps, atol, rtol, failed,
                          mismatches)
    if raise_on_failure:
        res.raise_if_failed()
    return res
