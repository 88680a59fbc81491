"""``tj.debug.check_numerics()``: stop at the first NaN or Inf a derivative kernel produces.

Terms. A *backward kernel* (VJP) turns the gradient of an op's outputs into gradients of its inputs; a
*JVP kernel* turns input tangents into output tangents, at forward time, for a ForwardAccumulator. The
*call site* of an op is the innermost frame outside the tapejax package when the op ran: ``file:line``,
or in Jupyter/IPython the cell (``In [3], line 2``).

How it works. ``check_numerics()`` sets ``tape_set.current().debug_checking`` for the current thread only,
and restores its previous value on exit (so nesting works and other threads are unaffected); the hot
path tests it behind the process-wide count ``tape_set.numerics_checks``. While it is set:

1. op dispatch (ops/core.py) stores the call site on each recorded op's backward function
   (``debug_hooks.call_site``) and runs ops eagerly (no deferral, no replay), so every kernel is seen;
2. after each backward kernel, ``check_backward`` tests the gradients it made; after each JVP kernel,
   ``check_jvp`` tests the tangents. The first non-finite value raises :class:`NumericsError`, naming
   the op, the argument or output, whether the non-finite value came in or was made here, and the call
   site with its source line.

When checking is off the hooks are never called: the cost is one flag test per recorded op.
"""
from __future__ import annotations

import contextlib
import linecache
import os
import re
import sys
from typing import Iterator, Optional, Tuple

import jax
import jax.numpy as jnp
import numpy as np

from .. import tape_set

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # the tapejax package


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
    Checking is per thread (it covers the ops and gradients this thread runs) and syncs with the device
    after every kernel: use it to debug, not to train fast."""
    with tape_set.checking_numerics():
        yield


def call_site() -> Optional[Tuple[str, int, str]]:
    """(filename, line, function) of the innermost frame outside the tapejax package."""
    f = sys._getframe(1)
    while f is not None:
        fn = f.f_code.co_filename
        if not os.path.abspath(fn).startswith(_PKG_DIR) and not fn.startswith("<frozen"):
            return fn, f.f_lineno, f.f_code.co_name
        f = f.f_back
    return None


def format_site(site) -> Tuple[str, str]:
    """(``file:line``, multi-line description) of a call site."""
    if site is None:
        return None, ("the forward op ran before check_numerics() was entered (or outside any user code), so "
                      "its call site was not recorded; enter check_numerics() before the forward pass")
    fn, line, func = site
    src = linecache.getline(fn, line).strip()  # IPython puts cell sources in linecache too
    cell = notebook_cell(fn)
    where = f"{cell}, line {line}" if cell else f"{fn}:{line}"
    in_func = "" if func == "<module>" and cell else f" in {func}()"
    return where, f"the forward op was called at {where}{in_func}" + (f":\n    {src}" if src else "")


_IPYTHON_INPUT = re.compile(r"<ipython-input-(\d+)-[0-9a-f]+>")  # IPython < 8's cell file names


def notebook_cell(filename: str) -> Optional[str]:
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


def check_backward(bf, cts, grads, positions) -> None:
    """Hook of ``BackwardFunction.__call__``: ``grads[k]`` is the gradient of argument ``positions[k]``."""
    for pos, g in zip(positions, grads):
        if g is not None and _is_bad(g):
            where, site = format_site(getattr(bf, "site", None))
            incoming = [c for c in cts if c is not None]
            bad_in = any(_is_bad(c) for c in incoming)
            note = ("The incoming gradient was already non-finite (check output_gradients)." if bad_in else
                    "The incoming gradient was finite: this op made it.")
            raise NumericsError(
                f"check_numerics: the backward kernel of op '{bf.op.name}' produced {_describe(g)} in the gradient "
                f"of its argument {pos}. {note} {site[0].upper()}{site[1:]}", op=bf.op.name, call_site=where,
                kind="backward")


def check_jvp(op, outs, tangents, in_tangents) -> None:
    """Hook of ``Accumulator.accumulate``: the JVP runs at forward time, so the call site is the stack now."""
    for k, t in enumerate(tangents):
        if t is not None and _is_bad(t):
            where, site = format_site(call_site())
            bad_in = any(x is not None and _is_bad(x) for x in in_tangents)
            note = ("An input tangent was already non-finite." if bad_in else
                    "The input tangents were finite: this op made it.")
            raise NumericsError(
                f"check_numerics: the forward-mode (JVP) kernel of op '{op.name}' produced {_describe(t)} in the "
                f"tangent of output {k}. {note} {site[0].upper()}{site[1:]}", op=op.name, call_site=where, kind="jvp")


# Plug into the lower layers (they test state.debug_checking before calling these).
tape_set.debug_hooks.call_site = call_site
tape_set.debug_hooks.check_backward = check_backward
tape_set.debug_hooks.check_jvp = check_jvp
