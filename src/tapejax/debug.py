"""Diagnostics: what the tape did, and why a gradient is what it is (``tj.debug``).

* ``check_numerics()``  context: the first NaN or Inf produced by a backward (VJP) or forward-mode (JVP)
  kernel raises :class:`NumericsError` (a ``FloatingPointError``) naming the op and the file:line of the
  user code that called the forward op (in Jupyter: the cell, ``In [3], line 2``). Call sites are captured at forward time only while checking is
  on; otherwise the cost is one flag test per recorded op.
* ``gradcheck(f, *args)``  tape gradients against central finite differences; reports the worst element.
* ``explain_gradient(tape, target, source)``  why ``tape.gradient(target, source)`` is (or would be)
  ``None``: the source was never watched; no recorded path reaches the target; the path crosses
  ``stop_gradient`` / ``stop_recording``; it crosses a non-float dtype; or the tape was already used.
* ``summary(tape)``  ops in order with output shapes/dtypes and the bytes each backward closure keeps
  alive (text, and an HTML table in Jupyter, also a GradientTape's own ``_repr_html_``); a deferred op
  (lazy.py) counts the residuals it will keep, so the numbers do not depend on ``tj.config.lazy``.
  ``accumulator_summary(acc)``: the tangents a ForwardAccumulator holds (its ``_repr_html_``).
* ``plot_tape(tape)``  the tape drawn with matplotlib (a Figure; shown inline in Jupyter);
  ``to_dot(tape)`` / ``render_graph(tape, path)`` draw it with Graphviz (PNG only when ``dot`` exists).

To explain broken paths, while a GradientTape is active the ops it does *not* record (nothing watched,
``stop_gradient``, comparisons, ``stop_recording`` blocks, ops without float inputs) leave a small
marker on it: output id -> (op name, input ids, why, output dtypes). Recorded ops cost nothing extra;
when no tape is active nothing at all happens.

Limits: numerics are checked on eager kernels (inside a ``tj.function`` trace values are symbolic; use
``jax.config.update("jax_debug_nans", True)`` there). A non-persistent tape forgets its ops at its first
``gradient`` call, so call ``explain_gradient`` / ``summary`` before it, or use ``persistent=True``.
"""
from __future__ import annotations

import contextlib
import functools
import html
import io
import linecache
import os
import re
import shutil
import subprocess
import sys
from collections import deque
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import jax
import jax.numpy as jnp
import numpy as np

from . import tape_set

__all__ = [
    "check_numerics", "NumericsError", "gradcheck", "GradcheckResult", "GradcheckError",
    "explain_gradient", "GradientExplanation", "summary", "TapeSummary", "to_dot", "render_graph", "plot_tape",
    "tape_html", "accumulator_summary", "AccumulatorSummary",
]

# ---------------------------------------------------------------------------------------------------
# check_numerics
# ---------------------------------------------------------------------------------------------------

_checking = False  # read on the hot path (ops/core.py, forwardprop.py): one module attribute test
_depth = 0
_PKG_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


class NumericsError(FloatingPointError):
    """A backward or forward-mode kernel produced NaN or Inf under ``tj.debug.check_numerics()``.

    Attributes (``None`` when unknown): ``op`` (op name), ``call_site`` (``"file:line"`` of the user code
    that called the forward op; in Jupyter/IPython the cell, ``"In [3], line 2"``), ``kind``
    (``"backward"`` or ``"jvp"``)."""

    def __init__(self, message: str, op: Optional[str] = None, call_site: Optional[str] = None,
                 kind: Optional[str] = None) -> None:
        super().__init__(message)
        self._info = (op, call_site, kind)

    def _get(self, k: int):
        # The tape re-raises kernel errors with the op named in front (``raise type(e)(...) from e``):
        # the details then live on the cause.
        v = self._info[k]
        if v is None and isinstance(self.__cause__, NumericsError):
            v = self.__cause__._get(k)
        return v

    op = property(lambda self: self._get(0))
    call_site = property(lambda self: self._get(1))
    kind = property(lambda self: self._get(2))


@contextlib.contextmanager
def check_numerics() -> Iterator[None]:
    """Context: raise :class:`NumericsError` at the first NaN/Inf a backward or JVP kernel produces.

    The error names the op and where its forward op was called (file:line and source line). Ops whose
    forward ran before the context was entered are still checked, but their call site is unknown.
    Checking syncs with the device after every kernel: use it to debug, not to train fast."""
    global _checking, _depth
    _depth += 1
    _checking = True
    try:
        yield
    finally:
        _depth -= 1
        _checking = _depth > 0


def _call_site() -> Optional[Tuple[str, int, str]]:
    """(filename, line, function) of the innermost frame outside the tapejax package."""
    f = sys._getframe(1)
    while f is not None:
        fn = f.f_code.co_filename
        if not os.path.abspath(fn).startswith(_PKG_DIR) and not fn.startswith("<frozen"):
            return fn, f.f_lineno, f.f_code.co_name
        f = f.f_back
    return None


def _format_site(site) -> Tuple[str, str]:
    """(``file:line``, multi-line description) of a call site."""
    if site is None:
        return None, ("the forward op ran before check_numerics() was entered (or outside any user code), so "
                      "its call site was not recorded; enter check_numerics() before the forward pass")
    fn, line, func = site
    src = linecache.getline(fn, line).strip()  # IPython puts cell sources in linecache too
    cell = _notebook_cell(fn)
    where = f"{cell}, line {line}" if cell else f"{fn}:{line}"
    in_func = "" if func == "<module>" and cell else f" in {func}()"
    return where, f"the forward op was called at {where}{in_func}" + (f":\n    {src}" if src else "")


_IPYTHON_INPUT = re.compile(r"<ipython-input-(\d+)-[0-9a-f]+>")  # IPython < 8's cell file names


def _notebook_cell(filename: str) -> Optional[str]:
    """``"In [3]"`` when ``filename`` is the code of an IPython/Jupyter cell, else None.

    ipykernel compiles each cell under a temporary file name (``/tmp/ipykernel_<pid>/<hash>.py``) that
    means nothing to the reader; IPython's compiler remembers which execution count each name belongs
    to (it labels tracebacks ``Cell In[3]`` from it). Only consulted when IPython is already imported."""
    m = _IPYTHON_INPUT.match(filename)
    if m:
        return f"In [{m.group(1)}]"
    ipy = sys.modules.get("IPython")
    if ipy is None:
        return None
    try:
        shell = ipy.get_ipython()
        comp = getattr(shell, "compile", None)
        if comp is None:
            return None
        fmt = getattr(comp, "format_code_name", None)  # IPython >= 8: ("Cell", "In[3]")
        named = fmt(filename) if fmt is not None else None
        if named:
            n = re.fullmatch(r"In\s*\[(\d+)\]", named[1])
            return f"In [{n.group(1)}]" if n else str(named[1])
        count = getattr(comp, "_filename_map", {}).get(filename)  # older releases: the map only
        return f"In [{count}]" if count is not None else None
    except Exception:  # a foreign shell: keep the file name
        return None


_finite = jax.jit(lambda x: jnp.all(jnp.isfinite(x)))


def _is_bad(x) -> bool:
    v = getattr(x, "_value", x)
    if v is None or isinstance(v, jax.core.Tracer) or not hasattr(v, "dtype"):
        return False
    if not jnp.issubdtype(v.dtype, jnp.inexact):
        return False
    return not bool(_finite(v))


def _describe(x) -> str:
    v = np.asarray(getattr(x, "_value", x))
    n_nan = int(np.isnan(v).sum())
    n_inf = int(np.isinf(v).sum())
    what = " and ".join(w for w, n in (("NaN", n_nan), ("Inf", n_inf)) if n)
    return f"{what} ({n_nan} NaN, {n_inf} Inf of {v.size} elements; shape {tuple(v.shape)}, dtype {v.dtype})"


def _check_backward(bf, cts, grads, positions) -> None:
    """Hook of ``BackwardFunction.__call__``: ``grads[k]`` is the gradient of argument ``positions[k]``."""
    for pos, g in zip(positions, grads):
        if g is not None and _is_bad(g):
            where, site = _format_site(getattr(bf, "site", None))
            incoming = [c for c in cts if c is not None]
            bad_in = any(_is_bad(c) for c in incoming)
            note = ("The incoming gradient was already non-finite (check output_gradients)." if bad_in else
                    "The incoming gradient was finite: this op made it.")
            raise NumericsError(
                f"check_numerics: the backward kernel of op '{bf.op.name}' produced {_describe(g)} in the gradient "
                f"of its argument {pos}. {note} {site[0].upper()}{site[1:]}", op=bf.op.name, call_site=where,
                kind="backward")


def _check_jvp(op, outs, tangents, in_tangents) -> None:
    """Hook of ``Accumulator.accumulate``: the JVP runs at forward time, so the call site is the stack now."""
    for k, t in enumerate(tangents):
        if t is not None and _is_bad(t):
            where, site = _format_site(_call_site())
            bad_in = any(x is not None and _is_bad(x) for x in in_tangents)
            note = ("An input tangent was already non-finite." if bad_in else
                    "The input tangents were finite: this op made it.")
            raise NumericsError(
                f"check_numerics: the forward-mode (JVP) kernel of op '{op.name}' produced {_describe(t)} in the "
                f"tangent of output {k}. {note} {site[0].upper()}{site[1:]}", op=op.name, call_site=where, kind="jvp")


# ---------------------------------------------------------------------------------------------------
# Markers of unrecorded ops (for explain_gradient)
# ---------------------------------------------------------------------------------------------------

_LINEAGE_MAX = 200_000  # markers per tape; past this, explanations may miss breaks (reported)


def _note_unrecorded(op, args, out) -> None:
    """Called by op dispatch for an op that ran while a GradientTape was active but was not recorded on it."""
    st = tape_set.state
    outs = out if isinstance(out, tuple) else (out,)
    out_ids = tuple(o._id for o in outs if hasattr(o, "_id"))
    if not out_ids:
        return
    ins = [a for a in args if hasattr(a, "_id") and hasattr(a, "dtype")]
    if not ins:
        return  # made from constants only: nothing can connect through it
    in_ids = tuple(a._id for a in ins)
    in_dtypes = tuple(a.dtype for a in ins)  # .dtype, not ._value: a deferred output must not run here
    dtypes = tuple(o.dtype for o in outs if hasattr(o, "_id"))
    for t in st.tapes:
        lin = t.__dict__.get("_debug_lineage")
        if lin is None:
            lin = t._debug_lineage = {}
        if len(lin) >= _LINEAGE_MAX:
            t._debug_lineage_truncated = True
            continue
        if st.stopped or t.paused:
            why = "stop_recording"
        elif not op.differentiable:
            why = "stop_gradient" if op.name == "stop_gradient" else "non_differentiable"
        else:
            why = "unwatched"
        for oid, dt in zip(out_ids, dtypes):
            lin[oid] = (op.name, in_ids, why, dt, in_dtypes)


_RAW_USES_MAX = 64  # call sites kept per tape


def note_raw_jax_use(tensor_id: int, site: str) -> None:
    """Called by tensor.py when user code handed a value the tapes follow to a plain JAX function (``jnp.sin(x)``):
    the tapes keep where, so explain_gradient can name the call that dropped the gradient."""
    for t in tape_set.state.tapes:
        uses = t.__dict__.get("_debug_raw_jax_uses")
        if uses is None:
            uses = t._debug_raw_jax_uses = []
        if len(uses) < _RAW_USES_MAX and (tensor_id, site) not in uses:
            uses.append((tensor_id, site))


def _raw_jax_hint(inner, source_id: int) -> Optional[str]:
    uses = inner.__dict__.get("_debug_raw_jax_uses") if inner is not None else None
    if not uses:
        return None
    site = next((s for i, s in uses if i == source_id), uses[-1][1])
    return (f"a value the tape follows was passed to a plain JAX function at {site}; JAX computed with the raw "
            "array and returned a jax.Array the tape cannot see, which cuts the recorded path. Use the tj.numpy "
            "equivalent (tj.numpy.sin instead of jax.numpy.sin), or wrap the JAX function with tj.op(fn)")


# ---------------------------------------------------------------------------------------------------
# explain_gradient
# ---------------------------------------------------------------------------------------------------

class GradientExplanation:
    """Why ``tape.gradient(target, source)`` is what it is.

    ``reason`` is one of the class constants: ``CONNECTED`` (a recorded path exists: the gradient is not
    None), ``NOT_WATCHED``, ``NO_PATH``, ``STOP_GRADIENT``, ``STOP_RECORDING``, ``NON_FLOAT``,
    ``TAPE_USED``. ``message`` says it in words with the fix; ``path`` lists the ops on the path found
    from the source to the target (``(op name, how)`` pairs, ``how`` being ``"recorded"`` or why the op
    was not recorded). ``str()`` gives the message."""

    CONNECTED = "connected"
    NOT_WATCHED = "not_watched"
    NO_PATH = "no_path"
    STOP_GRADIENT = "stop_gradient"
    STOP_RECORDING = "stop_recording"
    NON_FLOAT = "non_float"
    TAPE_USED = "tape_used"

    def __init__(self, reason: str, message: str, path: Sequence[Tuple[str, str]] = ()) -> None:
        self.reason, self.message, self.path = reason, message, list(path)

    @property
    def is_none(self) -> bool:
        """True when the gradient is None (reason other than CONNECTED)."""
        return self.reason != self.CONNECTED

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"GradientExplanation(reason={self.reason!r}, message={self.message!r})"


def _inner_tape(tape):
    from .backprop import GradientTape
    from .tape import Tape
    if isinstance(tape, Tape):
        return tape
    if not isinstance(tape, GradientTape):
        raise TypeError(f"expected a tj.GradientTape, got {type(tape).__name__}")
    return tape._tape


def _tape_used(tape) -> bool:
    return (getattr(tape, "_tape", 1) is None and not getattr(tape, "_persistent", True)
            and getattr(tape, "last_gradient_stats", None) is not None)


def _id_dtype(x) -> Tuple[int, Any, str]:
    from .tensor import Tensor, Variable
    if isinstance(x, Variable):
        return x._handle_id, x.dtype, f"variable '{x.name}'"
    if isinstance(x, Tensor):
        return x._id, x.dtype, f"tensor (shape {tuple(x.shape)}, {x.dtype})"
    raise TypeError(f"explain_gradient: expected a tj.Tensor or tj.Variable, got {type(x).__name__}")


def _float(dt) -> bool:
    return jnp.issubdtype(dt, jnp.floating) or jnp.issubdtype(dt, jnp.complexfloating)


_WHY_TEXT = {
    "stop_gradient": "tj.stop_gradient",
    "stop_recording": "a stop_recording() block",
    "non_differentiable": "a non-differentiable op",
    "unwatched": "an op the tape did not record",
}


def explain_gradient(tape, target: Any, source: Any) -> GradientExplanation:
    """Explain why ``tape.gradient(target, source)`` is ``None`` (or confirm it is connected).

    Args:
      tape: the ``tj.GradientTape`` (call this before ``tape.gradient`` on a non-persistent tape, which
        forgets its ops at its first gradient call, or use ``persistent=True``).
      target: a Tensor or Variable, or a nested structure of them (as for ``gradient``).
      source: one Tensor or Variable.
    Returns: a :class:`GradientExplanation`; ``print`` it, or test ``.reason``."""
    from .nest import flatten
    E = GradientExplanation
    sid, sdt, sdesc = _id_dtype(source)
    if _tape_used(tape):
        return E(E.TAPE_USED, "The tape was already used: a non-persistent GradientTape forgets what it recorded at "
                              "its first gradient() call, and a second call raises RuntimeError. Use "
                              "tj.GradientTape(persistent=True), or compute all gradients in one call "
                              "(tape.gradient(target, [a, b, ...])).")
    if not _float(sdt):
        return E(E.NON_FLOAT, f"The source is a {sdesc}: only floating-point tensors have gradients. Cast it "
                              "with .astype(tj.numpy.float32) before the computation and watch the cast tensor.")
    inner = _inner_tape(tape)
    if inner is None or sid not in inner.tensor_tape:
        hint = "call tape.watch(x) inside the tape's context, before computing with it"
        from .tensor import Variable
        if isinstance(source, Variable):
            if not source.trainable:
                hint = "the variable is not trainable (trainable=False): watch it explicitly with tape.watch(v)"
            elif inner is not None and not inner.watch_accessed_variables:
                hint = "the tape has watch_accessed_variables=False: watch it with tape.watch(v)"
            else:
                hint = "it was not read inside the tape's context; read it (or tape.watch(v)) while the tape records"
        lin = inner.__dict__.get("_debug_lineage", {}) if inner is not None else {}
        if sid in lin:
            entry = lin[sid]
            hint = (f"it was computed by op '{entry[0]}' under the tape but not recorded "
                    f"({_WHY_TEXT.get(entry[2], entry[2])}); watch the inputs of that op, or the result itself")
        return E(E.NOT_WATCHED, f"The source {sdesc} was never watched by this tape, nor produced by an op the tape "
                                f"recorded: {hint}.")
    targets = [t for t in flatten(target)[0] if t is not None]
    from .tensor import Tensor, Variable
    raw = next((t for t in targets if not isinstance(t, (Tensor, Variable))), None)
    if raw is not None:
        why = _raw_jax_hint(inner, sid) or ("it was computed by JAX (or NumPy) directly, which no tape records. Use "
                                            "tj.numpy ops, or wrap the JAX function with tj.op(fn)")
        return E(E.NO_PATH, f"The target is a {type(raw).__name__}, not a tj.Tensor: {why}.")
    tinfo = [_id_dtype(t) for t in targets]
    if not any(_float(dt) for _, dt, _ in tinfo):
        return E(E.NON_FLOAT, "The target has a non-float dtype " + ", ".join(str(dt) for _, dt, _ in tinfo) +
                              ": non-float targets contribute no gradient. Compute the loss in floating point.")
    if sid in {i for i, dt, _ in tinfo if _float(dt)}:
        return E(E.CONNECTED, "The source is the target itself: its gradient is the output gradient (ones).")

    # 0-1 BFS from the targets towards the source: recorded edges cost 0, unrecorded (marker) edges 1,
    # so a fully recorded path is found whenever one exists.
    tt, ops = inner.tensor_tape, inner.op_tape
    lin = inner.__dict__.get("_debug_lineage", {})
    dist: Dict[int, int] = {}
    parent: Dict[int, Tuple[int, str, str, Any]] = {}  # tensor id -> (child id, op name, how, child dtype)
    dq = deque()
    dead_ends: List[Tuple[str, Any]] = []  # non-float tensors the search cannot go past
    for i, dt, _ in tinfo:
        if _float(dt):
            dist[i] = 0
            dq.append(i)
    while dq:
        tid = dq.popleft()
        d = dist[tid]
        if tid == sid:
            continue
        op_id = tt.get(tid)
        edges = []
        if op_id is not None and op_id != -1 and op_id in ops:
            entry = ops[op_id]
            dt = next((info[2] for info in entry.outputs if info[0] == tid), None)
            edges = [(i, 0, entry.op_type, "recorded", dt) for i in entry.input_ids]
        elif tid in lin:
            name, ins, why, dt, in_dts = lin[tid]
            edges = [(i, 1, name, why, dt) for i in ins]
            for i, idt in zip(ins, in_dts):
                if not _float(idt) and i not in tt and i not in lin:
                    dead_ends.append((name, idt))
        for nid, w, name, how, dt in edges:
            nd = d + w
            if nid not in dist or nd < dist[nid]:
                dist[nid] = nd
                parent[nid] = (tid, name, how, dt)
                if w == 0:
                    dq.appendleft(nid)
                else:
                    dq.append(nid)
    if sid not in dist and dead_ends:
        name, idt = dead_ends[0]
        return E(E.NON_FLOAT, f"The target is computed from a non-float tensor ({idt}, an input of op '{name}'), and no "
                              "recorded path leads from the source around it: gradients do not flow through integer "
                              "or boolean tensors (e.g. a cast to int, or a comparison). Keep the computation in "
                              "floating point (tj.numpy.where(x > 0, x, 0.) instead of casting a mask).")
    if sid not in dist:
        truncated = inner.__dict__.get("_debug_lineage_truncated", False)
        tgt_known = any(i in tt or i in lin for i, _, _ in tinfo)
        hint = _raw_jax_hint(inner, sid) or ("the target was not computed by any op run while this tape was active (computed before the tape, "
                "or outside it)" if not tgt_known else
                "the target was computed from other tensors; a value may have left tapejax (e.g. through numpy or "
                "jax.numpy and back with tj.constant), which cuts the recorded path")
        return E(E.NO_PATH, f"The source {sdesc} is watched, but no op recorded by this tape leads from it to the "
                            f"target: {hint}. Compute the target from the source with tj ops inside the tape's "
                            "context." + (" (Markers were truncated: this tape ran very many unrecorded ops.)"
                                          if truncated else ""))
    # Walk the found path from the source to the target.
    path = []
    cur = sid
    while cur in parent:
        child, name, how, dt = parent[cur]
        path.append((name, how, dt))
        cur = child
    breaks = [(name, how, dt) for name, how, dt in path if how != "recorded"]
    desc = [(n, h) for n, h, _ in path]
    if not breaks:
        return E(E.CONNECTED, f"The source is connected to the target through {len(path)} recorded op(s) "
                              f"({' -> '.join(n for n, _, _ in path[:8])}{' ...' if len(path) > 8 else ''}): "
                              "its gradient is not None.", desc)
    non_float = [(n, dt) for n, h, dt in path if dt is not None and not _float(dt)]
    first = breaks[0]
    if first[1] == "stop_gradient":
        return E(E.STOP_GRADIENT, "The path from the source to the target crosses tj.stop_gradient, whose gradient "
                                  "is None. Remove the stop_gradient (or differentiate the tensor before it).", desc)
    if first[1] == "stop_recording":
        return E(E.STOP_RECORDING, f"The path from the source to the target crosses op '{first[0]}', run inside a "
                                   "stop_recording() block (tj.stop_recording() or tape.stop_recording()), so the "
                                   "tape did not record it. Move that computation out of the block.", desc)
    if non_float or first[1] == "non_differentiable":
        n, dt = non_float[0] if non_float else (first[0], None)
        what = f"op '{n}' produces {dt}" if dt is not None else f"op '{n}' is not differentiable"
        return E(E.NON_FLOAT, f"The path from the source to the target crosses a non-float dtype ({what}); "
                              "gradients do not flow through integer or boolean tensors. Keep the computation in "
                              "floating point (e.g. use tj.numpy.where(x > 0, x, 0.) instead of casting a mask).",
                 desc)
    return E(E.NO_PATH, f"The source is watched, but the path to the target crosses op '{first[0]}' that the tape did "
                        f"not record ({_WHY_TEXT.get(first[1], first[1])}).", desc)


# ---------------------------------------------------------------------------------------------------
# gradcheck
# ---------------------------------------------------------------------------------------------------

class GradcheckError(AssertionError):
    """``gradcheck`` found a gradient that disagrees with finite differences."""


class GradcheckResult:
    """Outcome of :func:`gradcheck`. Truthy when every checked element is within tolerance.

    ``ok``; ``max_abs_error`` / ``max_rel_error`` (each the largest over checked elements, possibly of
    different elements); ``worst``: the element furthest outside its tolerance (or, when all pass, the
    closest to it), a dict with ``arg`` (argument index), ``index`` (element index tuple), ``analytic``,
    ``numeric``, and that element's own ``abs_error``, ``rel_error`` and ``allowed`` (``atol + rtol *
    |numeric|``); per argument arrays in ``analytic`` / ``numeric`` (NaN where an element was not
    checked); ``checked`` and ``failed`` (numbers of elements); ``eps``, ``atol``, ``rtol``."""

    def __init__(self, ok, max_abs_error, max_rel_error, worst, analytic, numeric, checked, eps, atol, rtol,
                 failed=0):
        self.ok, self.max_abs_error, self.max_rel_error, self.worst = ok, max_abs_error, max_rel_error, worst
        self.analytic, self.numeric, self.checked, self.failed = analytic, numeric, checked, failed
        self.eps, self.atol, self.rtol = eps, atol, rtol

    def __bool__(self) -> bool:
        return bool(self.ok)

    def __str__(self) -> str:
        status = "ok" if self.ok else f"FAILED ({self.failed} outside tolerance)"
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
    from .backprop import GradientTape
    from .nest import UnconnectedGradients
    from .tensor import Tensor, Variable, convert_to_tensor

    def total(out) -> Any:
        from .nest import flatten
        leaves = [x for x in flatten(out)[0] if x is not None]
        from .ops import numpy as tnp
        s = None
        for leaf in leaves:
            v = tnp.sum(leaf.read_value() if isinstance(leaf, Variable) else leaf)
            s = v if s is None else s + v
        return s

    # Normalise the arguments: float arrays become Tensors (Variables stay Variables).
    norm, diff = [], []
    for i, a in enumerate(args):
        if isinstance(a, Variable):
            norm.append(a)
            if _float(a.dtype):
                diff.append(i)
            continue
        if isinstance(a, (Tensor, np.ndarray, jax.Array, float, list)) or (isinstance(a, np.generic)):
            t = a if isinstance(a, Tensor) else convert_to_tensor(a)
            norm.append(t)
            if _float(t.dtype):
                diff.append(i)
            continue
        norm.append(a)
    if not diff:
        raise ValueError("gradcheck: no floating-point argument to check; pass Tensors, arrays or floats.")

    with GradientTape() as tape:
        for i in diff:
            tape.watch(norm[i])
        y = total(f(*norm))
    if y is None:
        raise ValueError("gradcheck: f returned no tensor.")
    grads = tape.gradient(y, [norm[i] for i in diff], unconnected_gradients=UnconnectedGradients.ZERO)

    def value_with(i, arr):
        a = norm[i]
        if isinstance(a, Variable):
            a.assign(arr)
            return a
        return Tensor(jnp.asarray(arr, dtype=a.dtype))

    def eval_with(i, arr) -> float:
        new = list(norm)
        new[i] = value_with(i, arr)
        return float(np.asarray(total(f(*new)).value, np.float64))

    rng = np.random.default_rng(seed)
    analytic_all, numeric_all = [], []
    worst = None
    max_abs = max_rel = 0.0
    ok = True
    checked = failed = 0
    for k, i in enumerate(diff):
        a = norm[i]
        x0 = np.array(a.numpy(), dtype=np.float64)
        ga = np.asarray(grads[k].numpy(), np.float64).reshape(x0.shape)
        num = np.full(x0.shape, np.nan)
        n = x0.size
        idx = np.arange(n) if (max_elements is None or n <= max_elements) else \
            np.sort(rng.choice(n, max_elements, replace=False))
        try:
            for flat_i in idx:
                e = np.unravel_index(flat_i, x0.shape) if x0.ndim else ()
                h = eps * max(1.0, abs(float(x0[e])))
                xp = x0.copy()
                xp[e] += h
                fp = eval_with(i, xp)
                xp[e] -= 2 * h
                fm = eval_with(i, xp)
                num[e] = (fp - fm) / (2 * h)
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
                    worst = {"arg": i, "index": tuple(int(v) for v in e), "analytic": float(ga[e]),
                             "numeric": float(num[e]), "abs_error": float(err) if np.isfinite(err) else np.inf,
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
    res = GradcheckResult(ok, max_abs, max_rel, worst, analytic_all, numeric_all, checked, eps, atol, rtol, failed)
    if raise_on_failure:
        res.raise_if_failed()
    return res


# ---------------------------------------------------------------------------------------------------
# summary and graph
# ---------------------------------------------------------------------------------------------------

def _fmt_bytes(n: Optional[int]) -> str:
    if n is None:
        return "-"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def _fmt_shape(shape) -> str:
    return "(" + ",".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


class TapeSummary:
    """What a tape holds: one row per recorded op, in recording order, and totals.

    ``rows``: dicts with ``index``, ``op``, ``inputs`` (tensor ids), ``outputs`` (list of
    ``(id, shape, dtype)``), ``residual_bytes`` (bytes the op's backward closure keeps alive; ``None``
    when unknown or already released). ``total_residual_bytes`` sums them; ``unique_residual_bytes``
    counts each array once (an array kept by two closures is one allocation). ``watched``: ids of
    watched tensors; ``watched_variables``: names. ``str()`` is a text table; in Jupyter it renders as
    an HTML table."""

    def __init__(self, rows, watched, watched_variables, total, unique, persistent) -> None:
        self.rows, self.watched, self.watched_variables = rows, watched, watched_variables
        self.total_residual_bytes, self.unique_residual_bytes, self.persistent = total, unique, persistent

    @property
    def num_ops(self) -> int:
        return len(self.rows)

    def _out_text(self, outs) -> str:
        return "; ".join(f"#{i} {_fmt_shape(s)} {dt}" for i, s, dt in outs)

    def __str__(self) -> str:
        head = (f"GradientTape ({'persistent' if self.persistent else 'non-persistent'}): {self.num_ops} ops, "
                f"{len(self.watched)} watched tensors, {len(self.watched_variables)} watched variables"
                + (f" ({', '.join(self.watched_variables)})" if self.watched_variables else ""))
        table = [("#", "op", "inputs", "outputs (id shape dtype)", "kept alive")]
        for r in self.rows:
            table.append((str(r["index"]), r["op"], ",".join(f"#{i}" for i in r["inputs"]),
                          self._out_text(r["outputs"]), _fmt_bytes(r["residual_bytes"])))
        widths = [max(len(row[c]) for row in table) for c in range(5)]
        lines = [head]
        for j, row in enumerate(table):
            lines.append("  ".join(cell.ljust(widths[c]) if c < 4 else cell.rjust(widths[c])
                                   for c, cell in enumerate(row)).rstrip())
            if j == 0:
                lines.append("  ".join("-" * w for w in widths))
        lines.append(f"total kept alive by backward closures: {_fmt_bytes(self.total_residual_bytes)} "
                     f"({self.total_residual_bytes} bytes; {_fmt_bytes(self.unique_residual_bytes)} in distinct "
                     "arrays)")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    _HTML_MAX_ROWS = 200  # a long tape's table stays readable; totals still count every op

    def _repr_html_(self) -> str:
        e = html.escape
        shown = self.rows[:self._HTML_MAX_ROWS]
        cells = "".join(
            f"<tr><td>{r['index']}</td><td><code>{e(r['op'])}</code></td>"
            f"<td>{e(','.join(f'#{i}' for i in r['inputs']))}</td><td>{e(self._out_text(r['outputs']))}</td>"
            f"<td style='text-align:right'>{e(_fmt_bytes(r['residual_bytes']))}</td></tr>" for r in shown)
        if len(self.rows) > len(shown):
            cells += f"<tr><td colspan='5'>... {len(self.rows) - len(shown)} more ops</td></tr>"
        watched = [f"#{i}" for i in self.watched[:20]] + (["..."] if len(self.watched) > 20 else [])
        what = (f"{len(self.watched)} watched tensors" + (f" ({e(', '.join(watched))})" if watched else "") +
                f", {len(self.watched_variables)} watched variables" +
                (f" ({e(', '.join(self.watched_variables))})" if self.watched_variables else ""))
        return (f"<div><b>GradientTape</b> ({'persistent' if self.persistent else 'non-persistent'}): "
                f"{self.num_ops} ops, {what}<table><thead><tr><th>#</th><th>op</th><th>inputs</th>"
                f"<th>outputs (id shape dtype)</th><th>kept alive</th></tr></thead><tbody>{cells}</tbody><tfoot><tr>"
                f"<td colspan='4'>total kept alive by backward closures "
                f"({e(_fmt_bytes(self.unique_residual_bytes))} in distinct arrays)</td>"
                f"<td style='text-align:right'><b>{e(_fmt_bytes(self.total_residual_bytes))}</b></td></tr></tfoot>"
                f"</table></div>")


def tape_html(tape) -> str:
    """HTML for a ``tj.GradientTape`` in Jupyter (its ``_repr_html_``): the :func:`summary` table, or one
    line saying why there is none (nothing recorded yet, or a non-persistent tape already used).
    Never raises: a notebook displays whatever it can."""
    kind = "persistent" if getattr(tape, "_persistent", False) else "non-persistent"
    if _tape_used(tape):
        return (f"<div><b>GradientTape</b> ({kind}): used; a non-persistent tape releases its ops at its first "
                "gradient() call (use persistent=True to keep them)</div>")
    if getattr(tape, "_tape", None) is None:
        return f"<div><b>GradientTape</b> ({kind}): nothing recorded yet</div>"
    try:
        return summary(tape)._repr_html_()
    except Exception as err:  # a display must not fail: say what went wrong instead
        return f"<div><b>GradientTape</b> ({kind}): no summary ({html.escape(type(err).__name__)}: " \
               f"{html.escape(str(err))})</div>"


class AccumulatorSummary:
    """What a ``tj.ForwardAccumulator`` holds: the tensors that carry a tangent (the watched primals and
    what was computed from them while it recorded) with the tangents' shapes, dtypes and bytes.

    ``rows``: ``(tensor id, tangent shape, tangent dtype, bytes)``; ``tangent_bytes`` sums them,
    counting each array once; ``use_batch``; ``recording``. ``str()`` is text, Jupyter renders HTML."""

    def __init__(self, rows, tangent_bytes, use_batch, recording) -> None:
        self.rows, self.tangent_bytes, self.use_batch, self.recording = rows, tangent_bytes, use_batch, recording

    def _head(self) -> str:
        return (f"ForwardAccumulator ({'recording' if self.recording else 'not recording'}"
                f"{', batched tangents' if self.use_batch else ''}): {len(self.rows)} tensors carry a tangent, "
                f"{_fmt_bytes(self.tangent_bytes)} of tangents")

    def __str__(self) -> str:
        return "\n".join([self._head()] + [f"  #{i} tangent {_fmt_shape(sh)} {dt} ({_fmt_bytes(b)})"
                                           for i, sh, dt, b in self.rows])

    __repr__ = __str__

    def _repr_html_(self) -> str:
        e = html.escape
        cells = "".join(f"<tr><td>#{i}</td><td>{e(_fmt_shape(sh))}</td><td>{e(str(dt))}</td>"
                        f"<td style='text-align:right'>{e(_fmt_bytes(b))}</td></tr>" for i, sh, dt, b in self.rows[:200])
        if len(self.rows) > 200:
            cells += f"<tr><td colspan='4'>... {len(self.rows) - 200} more</td></tr>"
        return (f"<div>{e(self._head())}<table><thead><tr><th>tensor</th><th>tangent shape</th><th>dtype</th>"
                f"<th>bytes</th></tr></thead><tbody>{cells}</tbody></table></div>")


def accumulator_summary(acc) -> AccumulatorSummary:
    """The tangents a ``tj.ForwardAccumulator`` holds (see :class:`AccumulatorSummary`)."""
    from .forwardprop import ForwardAccumulator
    if not isinstance(acc, ForwardAccumulator):
        raise TypeError(f"tj.debug.accumulator_summary: expected a tj.ForwardAccumulator, got {type(acc).__name__}")
    inner = acc._acc
    rows, seen = [], {}
    for tid, t in inner.tangents.items():
        shape, dt = tuple(t.shape), t.dtype  # shape and dtype only: a tangent not computed yet stays so
        b = _aval_bytes(shape, dt)
        rows.append((tid, shape, str(dt), b))
        seen[_array_key(t)] = b
    return AccumulatorSummary(rows, sum(seen.values()), inner.use_batch, acc._recording)


def _usable_inner(tape, what: str):
    if _tape_used(tape):
        raise ValueError(f"tj.debug.{what}: the tape was already used; a non-persistent GradientTape forgets its "
                         "ops at its first gradient() call. Call it before tape.gradient, or use persistent=True.")
    inner = _inner_tape(tape)
    if inner is None:
        raise ValueError(f"tj.debug.{what}: the tape has recorded nothing yet (enter it with `with tape:`).")
    return inner


# Residual layouts of op types, found abstractly (see _pending_residuals); bounded like lazy.py's cache.
_layouts: Dict[Any, Any] = {}
_LAYOUTS_MAX = 4096


def _pending_layout(node):
    """Where each residual of a deferred op will come from, without running it: a list of
    ``("in", i)`` (argument i itself), ``("out", j)`` (output j itself) or ``("new", aval)`` (an array the
    kernel makes). Traced once per op type with ``jax.eval_shape``, comparing tracer identities the way
    the op's residual plan does when it runs, so the bytes and sharing match eager execution."""
    typ = node.type
    layout = _layouts.get(typ)
    if layout is not None:
        return layout
    from .lazy import scalar_aval

    def struct(r):
        aval = r if hasattr(r, "shape") and hasattr(r, "dtype") else scalar_aval(r)
        weak = getattr(getattr(r, "_aval", None) or getattr(r, "aval", None) or aval, "weak_type", False)
        return jax.ShapeDtypeStruct(tuple(aval.shape), aval.dtype, weak_type=weak)

    found = []

    def trace(*dyn):
        out, res = typ.kernels.forward_res_impl(typ.diff, dyn)
        outs = jax.tree_util.tree_leaves(out)
        for leaf in jax.tree_util.tree_leaves(res):
            if not hasattr(leaf, "shape"):
                continue  # a Python constant in the residuals: no device array
            src = next((("in", i) for i, d in enumerate(dyn) if leaf is d), None)
            if src is None:
                src = next((("out", j) for j, o in enumerate(outs) if leaf is o), None)
            found.append(src or ("new", jax.core.ShapedArray(leaf.shape, leaf.dtype)))
        return outs

    jax.eval_shape(trace, *[struct(r) for r in node.raw])
    if len(_layouts) >= _LAYOUTS_MAX:
        _layouts.clear()
    _layouts[typ] = found
    return found


def _array_key(x):
    """Identity of the array behind ``x`` for counting shared residuals once: a computed value by its
    object, a tensor not computed yet by its tensor id (its value will be one array)."""
    from .lazy import LazyTensor
    if isinstance(x, LazyTensor):
        pending = x._pending_node() is not None
        return ("tensor", x._id) if pending else id(x._value)
    return id(x)


def _aval_bytes(shape, dtype) -> int:
    return int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize


def _residuals_of(entry) -> Optional[List[Tuple[Any, int]]]:
    """(identity, bytes) of each array the backward function of a tape entry keeps (or will keep once
    its deferred forward runs); None when unknown."""
    bf = entry.backward
    if bf is None:
        return None
    node = getattr(bf, "node", None)
    if node is not None:
        if node.values is None:  # deferred, not run yet: what running it will keep
            try:
                layout = _pending_layout(node)
            except Exception:  # never fail a summary over one op: its bytes are unknown
                return None
            outs = entry.outputs
            found = []
            for k, src in enumerate(layout):
                if src[0] == "in":
                    r = node.raw[src[1]]
                    if hasattr(r, "shape"):  # a Python scalar argument is kept as a number
                        found.append((_array_key(r), _aval_bytes(r.shape, r.dtype)))
                elif src[0] == "out":
                    oid, shape, dt = outs[src[1]][:3]
                    found.append((("tensor", oid), _aval_bytes(shape, dt)))
                else:
                    found.append((("new", id(node), k), _aval_bytes(src[1].shape, src[1].dtype)))
            return found
        res = node.res  # ran (its value was read), the tape has not taken the residuals yet
    else:
        res = getattr(bf, "res", None)
    if res is None:
        if hasattr(bf, "residual_bytes"):  # another kind of backward function (custom gradients)
            try:
                return [(("opaque", id(bf)), int(bf.residual_bytes()))]
            except Exception:
                return None
        return None
    return [(id(leaf), int(np.prod(leaf.shape, dtype=np.int64)) * np.dtype(leaf.dtype).itemsize)
            for leaf in jax.tree_util.tree_leaves(res)
            if hasattr(leaf, "shape") and hasattr(leaf, "dtype") and not isinstance(leaf, jax.core.Tracer)]


def summary(tape) -> TapeSummary:
    """Ops recorded on ``tape`` in order, their output shapes/dtypes, and the bytes each backward closure
    keeps alive (its residuals), with totals. ``print`` it, or display it in Jupyter (HTML table).

    Ops whose forward is still deferred (not computed yet) report the residuals they will keep, so the
    numbers are the same with ``tj.config.lazy`` on or off; nothing is computed by the summary."""
    inner = _usable_inner(tape, "summary")
    rows = []
    total = 0
    seen: Dict[Any, int] = {}
    for k, (op_id, entry) in enumerate(sorted(inner.op_tape.items())):
        found = _residuals_of(entry)
        nb = None
        if found is not None:
            nb = sum(b for _, b in found)
            total += nb
            for key, b in found:
                seen[key] = b
        rows.append({"index": k, "op": entry.op_type, "inputs": list(entry.input_ids),
                     "outputs": [(i, tuple(s), str(dt)) for i, s, dt, *_ in entry.outputs],
                     "residual_bytes": nb})
    watched = [i for i, o in inner.tensor_tape.items() if o == -1 and i not in inner.watched_variables]
    names = [v.name for v in inner.watched_variables.values()]
    return TapeSummary(rows, watched, names, total, sum(seen.values()), inner.persistent)


def to_dot(tape, max_ops: int = 500) -> str:
    """The tape as a Graphviz DOT graph: ops as boxes (labelled with the bytes they keep alive), tensors as
    ellipses (id, shape, dtype), watched tensors and variables shaded. At most ``max_ops`` ops (the most
    recent)."""
    inner = _usable_inner(tape, "to_dot")
    items = sorted(inner.op_tape.items())[-max_ops:]
    produced = {}
    lines = ["digraph tape {", '  rankdir=LR;', '  node [fontname="Helvetica", fontsize=10];']
    tensors: Dict[int, str] = {}
    for op_id, entry in items:
        for info in entry.outputs:
            produced[info[0]] = op_id
            tensors[info[0]] = f"#{info[0]}\\n{_fmt_shape(info[1])} {info[2]}"
    var_names = {h: v.name for h, v in inner.watched_variables.items()}
    for op_id, entry in items:
        for i in entry.input_ids:
            if i not in tensors:
                tensors[i] = (f"{var_names[i]}" if i in var_names else f"#{i}")
    for tid, label in tensors.items():
        watched = inner.tensor_tape.get(tid) == -1
        style = ', style=filled, fillcolor="#ffe08a"' if watched else ""
        lines.append(f'  t{tid} [shape=ellipse, label="{label}"{style}];')
    for op_id, entry in items:
        found = _residuals_of(entry)
        nb = sum(b for _, b in found) if found else None
        label = entry.op_type.replace('"', "'") + (f"\\nkeeps {_fmt_bytes(nb)}" if nb else "")
        lines.append(f'  op{op_id} [shape=box, style="rounded,filled", fillcolor="#cfe2ff", label="{label}"];')
        for i in entry.input_ids:
            lines.append(f"  t{i} -> op{op_id};")
        for info in entry.outputs:
            lines.append(f"  op{op_id} -> t{info[0]};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def render_graph(tape, path: str = "tape.png", fmt: Optional[str] = None) -> Optional[str]:
    """Write the tape graph as ``path``: rendered with Graphviz's ``dot`` (format from the extension, e.g.
    ``.png``/``.svg``) when the binary is installed, and returns ``path``; otherwise writes the DOT text
    next to it (``path`` with suffix ``.dot``) and returns ``None``."""
    dot_src = to_dot(tape)
    exe = shutil.which("dot")
    if exe is None:
        base, _ = os.path.splitext(path)
        with open(base + ".dot", "w") as fh:
            fh.write(dot_src)
        return None
    fmt = fmt or (os.path.splitext(path)[1].lstrip(".") or "png")
    subprocess.run([exe, f"-T{fmt}", "-o", path], input=dot_src.encode(), check=True)
    return path


def _figure_png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    return buf.getvalue()


def _wrap_name(name: str, width: int = 16) -> str:
    """An op name on lines of about ``width`` characters, broken at underscores (boxes stay narrow)."""
    lines, cur = [], ""
    for part in name.split("_"):
        piece = part if not cur else "_" + part
        if cur and len(cur) + len(piece) > width:
            lines.append(cur + "_")
            cur = part
        else:
            cur += piece
    return "\n".join(lines + [cur])


def plot_tape(tape, max_ops: int = 60, ax=None):
    """Draw the tape with matplotlib (no Graphviz needed) and return the ``matplotlib.figure.Figure``.

    Ops are boxes (labelled with the bytes their backward keeps), laid out left to right by topological
    depth (an op sits one column right of the deepest op it reads from); tensors are arrows from the op
    that made them to each op that reads them, labelled with their shape; tensors made outside the tape
    are boxes in column 0 (watched tensors and variables shaded). At most ``max_ops`` ops (the most
    recent). In Jupyter, a cell ending with ``tj.debug.plot_tape(tape)`` shows the picture. Pass ``ax``
    to draw into an existing matplotlib Axes."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("tj.debug.plot_tape needs matplotlib: pip install matplotlib (or install tapejax with "
                          "the 'notebooks' extra); tj.debug.to_dot(tape) gives a Graphviz graph instead.") from None
    inner = _usable_inner(tape, "plot_tape")
    items = sorted(inner.op_tape.items())[-max_ops:]
    var_names = {h: v.name for h, v in inner.watched_variables.items()}
    producer: Dict[int, int] = {}
    tensor_shape: Dict[int, Tuple] = {}
    for op_id, entry in items:
        for info in entry.outputs:
            producer[info[0]] = op_id
            tensor_shape[info[0]] = (tuple(info[1]), info[2])
    # Depth: op ids grow in recording order, which is a topological order of the graph.
    depth: Dict[Any, int] = {}
    sources: List[int] = []
    for op_id, entry in items:
        d = 0
        for i in entry.input_ids:
            if i in producer:
                d = max(d, depth[("op", producer[i])])
            elif ("src", i) not in depth:
                depth[("src", i)] = 0
                sources.append(i)
        depth[("op", op_id)] = d + 1
    consumed = {i for _, entry in items for i in entry.input_ids}
    sinks = [(op_id, info[0]) for op_id, entry in items for info in entry.outputs if info[0] not in consumed]
    for op_id, tid in sinks:
        depth[("out", tid)] = depth[("op", op_id)] + 1
    columns: Dict[int, List[Any]] = {}
    for key, d in depth.items():
        columns.setdefault(d, []).append(key)
    n_cols = max(columns) + 1 if columns else 1
    n_rows = max((len(c) for c in columns.values()), default=1)
    pos = {}
    for d, keys in columns.items():
        for r, key in enumerate(keys):
            pos[key] = (d * 2.4, (len(keys) - 1) / 2.0 - r)  # each column centred vertically
    if ax is None:
        # A bare Figure, not pyplot's: nothing global, and no second copy drawn by an inline backend.
        fig = Figure(figsize=(min(2.0 + 1.9 * n_cols, 30), min(1.2 + 0.8 * n_rows, 30)))
        ax = fig.add_subplot()
        # IPython shows an object through its _repr_png_; pyplot's inline formatter, when active, wins.
        fig._repr_png_ = functools.partial(_figure_png, fig)
    else:
        fig = ax.figure
    boxes = {}
    for op_id, entry in items:
        found = _residuals_of(entry)
        nb = sum(b for _, b in found) if found else 0
        label = _wrap_name(entry.op_type) + (f"\nkeeps {_fmt_bytes(nb)}" if nb else "")
        x, y = pos[("op", op_id)]
        boxes[("op", op_id)] = ax.text(x, y, label, ha="center", va="center", fontsize=8, zorder=3,
                                       bbox=dict(boxstyle="round,pad=0.4", fc="#cfe2ff", ec="#3d6fb6"))
    for i in sources:
        watched = inner.tensor_tape.get(i) == -1
        label = var_names.get(i) or f"#{i}" + (" watched" if watched else "")
        x, y = pos[("src", i)]
        boxes[("src", i)] = ax.text(x, y, label, ha="center", va="center", fontsize=8, zorder=3,
                                    bbox=dict(boxstyle="round,pad=0.3", fc="#ffe08a" if watched else "#ffffff",
                                              ec="#a08020" if watched else "#888888"))
    for op_id, tid in sinks:
        x, y = pos[("out", tid)]
        shape, dt = tensor_shape[tid]
        boxes[("out", tid)] = ax.text(x, y, f"#{tid}\n{_fmt_shape(shape)} {dt}", ha="center", va="center",
                                      fontsize=7, color="#444444", zorder=3,
                                      bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="none"))
    label_edges = len(items) <= 40  # beyond that the shape labels overlap more than they inform
    edges = [(("op", producer[i]) if i in producer else ("src", i), ("op", op_id), i)
             for op_id, entry in items for i in entry.input_ids]
    edges += [(("op", op_id), ("out", tid), None) for op_id, tid in sinks]
    for a, b, tid in edges:
        # Above the boxes: drawn after them, the arrow is clipped to their outlines at their drawn size.
        ax.annotate("", xy=pos[b], xytext=pos[a], zorder=4,
                    arrowprops=dict(arrowstyle="-|>", color="#555555", lw=0.9, shrinkA=0, shrinkB=0,
                                    patchA=boxes[a].get_bbox_patch(), patchB=boxes[b].get_bbox_patch(),
                                    connectionstyle="arc3,rad=0.0"))
        if label_edges and tid is not None and tid in tensor_shape:
            (x0, y0), (x1, y1) = pos[a], pos[b]
            ax.text((x0 + x1) / 2, (y0 + y1) / 2 + 0.12, _fmt_shape(tensor_shape[tid][0]), ha="center",
                    va="bottom", fontsize=6, color="#666666", zorder=5)
    ax.set_xlim(-1.2, (n_cols - 1) * 2.4 + 1.2)
    ax.set_ylim(-(n_rows / 2.0) - 0.2, n_rows / 2.0 + 0.2)
    ax.axis("off")
    shown = f"last {len(items)} of {len(inner.op_tape)}" if len(inner.op_tape) > len(items) else str(len(items))
    ax.set_title(f"GradientTape: {shown} ops", fontsize=10)
    return fig
