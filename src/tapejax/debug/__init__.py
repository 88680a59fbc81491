"""Diagnostics: what the tape did, and why a gradient is what it is (``tj.debug``).

* ``check_numerics()``  context: the first NaN or Inf produced by a backward (VJP) or forward-mode (JVP)
  kernel raises :class:`NumericsError` (a ``FloatingPointError``) naming the op and the file:line of the
  user code that called the forward op (in Jupyter: the cell, ``In [3], line 2``). Per thread; call
  sites are captured at forward time only while checking is on, otherwise the cost is one flag test
  per recorded op.
* ``gradcheck(f, *args)``  tape gradients against central finite differences; reports the worst element.
* ``explain_gradient(tape, target, source)``  why ``tape.gradient(target, source)`` is (or would be)
  ``None``: the source was never watched; no recorded path reaches the target; the path crosses
  ``stop_gradient`` / ``stop_recording``; it crosses a non-float dtype; or the tape was already used.
* ``summary(tape)``  ops in order with output shapes/dtypes and the bytes each backward closure keeps
  alive (text, and an HTML table in Jupyter, also a GradientTape's own ``_repr_html_``); a deferred op
  (deferred/lazy.py) counts the residuals it will keep, so the numbers do not depend on ``tj.config.lazy``.
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

Modules, one concept each: ``numerics`` (check_numerics), ``lineage`` (markers of unrecorded ops and
plain JAX calls), ``explain`` (explain_gradient), ``gradient_check`` (gradcheck), ``tapes`` (reading a
GradientTape), ``residuals`` (bytes kept by backward functions), ``summaries`` (summary tables, HTML),
``draw`` (DOT, Graphviz, matplotlib).

How it hooks in: the modules that run ops sit below this package and never import it. Importing it
installs its callables in ``tape_set.debug_hooks`` (see tape_set.py); whether ``check_numerics`` is on
is the per-thread flag ``tape_set.current().debug_checking``.
"""
from __future__ import annotations

from .draw import plot_tape, render_graph, to_dot
from .explain import GradientExplanation, explain_gradient
from .gradient_check import GradcheckError, GradcheckResult, gradcheck
from .numerics import NumericsError, check_numerics
from .summaries import AccumulatorSummary, TapeSummary, accumulator_summary, summary, tape_html

__all__ = [
    "check_numerics", "NumericsError", "gradcheck", "GradcheckResult", "GradcheckError",
    "explain_gradient", "GradientExplanation", "summary", "TapeSummary", "to_dot", "render_graph", "plot_tape",
    "tape_html", "accumulator_summary", "AccumulatorSummary",
]
