"""``tj.debug.summary`` / ``accumulator_summary``: what a tape or accumulator holds, as text and HTML.

Terms. A tape summary has one row per recorded op, in recording order: op type, input ids, outputs
``(id, shape, dtype)``, and the bytes its backward function keeps alive (residuals.py); totals count
every row (``total_residual_bytes``) and every distinct array once (``unique_residual_bytes``). An
accumulator summary lists the tensors that carry a tangent, with the tangents' shapes and bytes.

How it hooks in. ``str()`` of a summary is a text table and its ``_repr_html_`` an HTML table for
Jupyter. ``GradientTape._repr_html_`` and ``ForwardAccumulator._repr_html_`` (which cannot import this
package: it sits above them) call ``tape_set.debug_hooks.tape_html`` / ``accumulator_html``, installed
below; those never raise, since a notebook displays whatever it can.
"""
from __future__ import annotations

import html
from typing import Any, Dict, Optional

from .. import tape_set
from ..forwardprop import ForwardAccumulator
from .residuals import array_key, aval_bytes, residuals_of
from .tapes import tape_used, usable_inner


def fmt_bytes(n: Optional[int]) -> str:
    """``1.5 KiB``-style size; ``-`` when unknown."""
    if n is None:
        return "-"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def fmt_shape(shape) -> str:
    """A shape as Python writes a tuple, without spaces: ``(3,)``, ``(2,4)``."""
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
        return "; ".join(f"#{i} {fmt_shape(s)} {dt}" for i, s, dt in outs)

    def __str__(self) -> str:
        head = (f"GradientTape ({'persistent' if self.persistent else 'non-persistent'}): {self.num_ops} ops, "
                f"{len(self.watched)} watched tensors, {len(self.watched_variables)} watched variables"
                + (f" ({', '.join(self.watched_variables)})" if self.watched_variables else ""))
        table = [("#", "op", "inputs", "outputs (id shape dtype)", "kept alive")]
        for r in self.rows:
            table.append((str(r["index"]), r["op"], ",".join(f"#{i}" for i in r["inputs"]),
                          self._out_text(r["outputs"]), fmt_bytes(r["residual_bytes"])))
        widths = [max(len(row[c]) for row in table) for c in range(5)]
        lines = [head]
        for j, row in enumerate(table):
            lines.append("  ".join(cell.ljust(widths[c]) if c < 4 else cell.rjust(widths[c])
                                   for c, cell in enumerate(row)).rstrip())
            if j == 0:
                lines.append("  ".join("-" * w for w in widths))
        lines.append(f"total kept alive by backward closures: {fmt_bytes(self.total_residual_bytes)} "
                     f"({self.total_residual_bytes} bytes; {fmt_bytes(self.unique_residual_bytes)} in distinct "
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
            f"<td style='text-align:right'>{e(fmt_bytes(r['residual_bytes']))}</td></tr>" for r in shown)
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
                f"({e(fmt_bytes(self.unique_residual_bytes))} in distinct arrays)</td>"
                f"<td style='text-align:right'><b>{e(fmt_bytes(self.total_residual_bytes))}</b></td></tr></tfoot>"
                f"</table></div>")


def tape_html(tape) -> str:
    """HTML for a ``tj.GradientTape`` in Jupyter (its ``_repr_html_``): the :func:`summary` table, or one
    line saying why there is none (nothing recorded yet, or a non-persistent tape already used).
    Never raises: a notebook displays whatever it can."""
    kind = "persistent" if getattr(tape, "_persistent", False) else "non-persistent"
    if tape_used(tape):
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
                f"{fmt_bytes(self.tangent_bytes)} of tangents")

    def __str__(self) -> str:
        return "\n".join([self._head()] + [f"  #{i} tangent {fmt_shape(sh)} {dt} ({fmt_bytes(b)})"
                                           for i, sh, dt, b in self.rows])

    __repr__ = __str__

    def _repr_html_(self) -> str:
        e = html.escape
        cells = "".join(f"<tr><td>#{i}</td><td>{e(fmt_shape(sh))}</td><td>{e(str(dt))}</td>"
                        f"<td style='text-align:right'>{e(fmt_bytes(b))}</td></tr>" for i, sh, dt, b in self.rows[:200])
        if len(self.rows) > 200:
            cells += f"<tr><td colspan='4'>... {len(self.rows) - 200} more</td></tr>"
        return (f"<div>{e(self._head())}<table><thead><tr><th>tensor</th><th>tangent shape</th><th>dtype</th>"
                f"<th>bytes</th></tr></thead><tbody>{cells}</tbody></table></div>")


def accumulator_summary(acc) -> AccumulatorSummary:
    """The tangents a ``tj.ForwardAccumulator`` holds (see :class:`AccumulatorSummary`)."""
    if not isinstance(acc, ForwardAccumulator):
        raise TypeError(f"tj.debug.accumulator_summary: expected a tj.ForwardAccumulator, got {type(acc).__name__}")
    inner = acc._acc
    rows, seen = [], {}
    for tid, t in inner.tangents.items():
        shape, dt = tuple(t.shape), t.dtype  # shape and dtype only: a tangent not computed yet stays so
        b = aval_bytes(shape, dt)
        rows.append((tid, shape, str(dt), b))
        seen[array_key(t)] = b
    return AccumulatorSummary(rows, sum(seen.values()), inner.use_batch, acc._recording)


def summary(tape) -> TapeSummary:
    """Ops recorded on ``tape`` in order, their output shapes/dtypes, and the bytes each backward closure
    keeps alive (its residuals), with totals. ``print`` it, or display it in Jupyter (HTML table).

    Ops whose forward is still deferred (not computed yet) report the residuals they will keep, so the
    numbers are the same with ``tj.config.lazy`` on or off; nothing is computed by the summary."""
    inner = usable_inner(tape, "summary")
    rows = []
    total = 0
    seen: Dict[Any, int] = {}
    for k, (op_id, entry) in enumerate(sorted(inner.op_tape.items())):
        found = residuals_of(entry)
        nb = None
        if found is not None:
            nb = sum(b for _, b in found)
            total += nb
            for key, b in found:
                seen[key] = b
        rows.append({"index": k, "op": entry.op_type, "inputs": list(entry.input_ids),
                     "outputs": [(i, tuple(s), str(dt)) for i, s, dt, *_ in entry.outputs],
                     "residual_bytes": nb})
    watched = [i for i in inner.watched_ids() if i not in inner.watched_variables]
    names = [v.name for v in inner.watched_variables.values()]
    return TapeSummary(rows, watched, names, total, sum(seen.values()), inner.persistent)


def accumulator_html(acc) -> str:
    """HTML for a ``tj.ForwardAccumulator`` in Jupyter (its ``_repr_html_``)."""
    return accumulator_summary(acc)._repr_html_()


tape_set.debug_hooks.tape_html = tape_html
tape_set.debug_hooks.accumulator_html = accumulator_html
