"""Pictures of a tape: ``tj.debug.to_dot`` / ``render_graph`` (Graphviz) and ``plot_tape`` (matplotlib).

Terms. The picture is the tape's graph: ops are boxes labelled with their type and the bytes their
backward function keeps (residuals.py); tensors are the edges between them (``plot_tape``) or ellipses
(DOT). Tensors made outside the tape are sources, shaded when watched; outputs no recorded op reads are
sinks. Only the most recent ``max_ops`` ops are drawn.

Layout (``plot_tape``): op ids grow in recording order, which is a topological order, so one pass puts
each op one column right of the deepest op it reads from; sources sit in column 0 and sinks one column
right of their op; each column is centred vertically. Graphviz lays out the DOT text itself.
Graphviz's ``dot`` binary and matplotlib are optional: ``render_graph`` falls back to writing the DOT
text, and ``plot_tape`` imports matplotlib only when called, with an error naming the install.
"""
from __future__ import annotations

import functools
import io
import os
import shutil
import subprocess
from typing import Any, Dict, List, Optional, Tuple

from .residuals import residuals_of
from .summaries import fmt_bytes, fmt_shape
from .tapes import usable_inner


def _dot_text(text: str) -> str:
    """``text`` inside a DOT quoted string: its backslashes and quotes escaped (a Variable named 'w"1' is valid)."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def to_dot(tape, max_ops: int = 500) -> str:
    """The tape as a Graphviz DOT graph: ops as boxes (labelled with the bytes they keep alive), tensors as
    ellipses (id, shape, dtype), watched tensors and variables shaded. At most ``max_ops`` ops (the most
    recent)."""
    inner = usable_inner(tape, "to_dot")
    items = sorted(inner.op_tape.items())[-max_ops:]
    produced = {}
    lines = ["digraph tape {", '  rankdir=LR;', '  node [fontname="Helvetica", fontsize=10];']
    tensors: Dict[int, str] = {}
    for op_id, entry in items:
        for info in entry.outputs:
            produced[info[0]] = op_id
            tensors[info[0]] = f"#{info[0]}\\n{fmt_shape(info[1])} {info[2]}"
    var_names = {h: v.name for h, v in inner.watched_variables.items()}
    for op_id, entry in items:
        for i in entry.input_ids:
            if i not in tensors:
                tensors[i] = _dot_text(var_names[i]) if i in var_names else f"#{i}"
    for tid, label in tensors.items():
        watched = inner.producer(tid) == -1
        style = ', style=filled, fillcolor="#ffe08a"' if watched else ""
        lines.append(f'  t{tid} [shape=ellipse, label="{label}"{style}];')
    for op_id, entry in items:
        found = residuals_of(entry)
        nb = sum(b for _, b in found) if found else None
        label = _dot_text(entry.op_type) + (f"\\nkeeps {fmt_bytes(nb)}" if nb else "")
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
    inner = usable_inner(tape, "plot_tape")
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
        found = residuals_of(entry)
        nb = sum(b for _, b in found) if found else 0
        label = _wrap_name(entry.op_type) + (f"\nkeeps {fmt_bytes(nb)}" if nb else "")
        x, y = pos[("op", op_id)]
        boxes[("op", op_id)] = ax.text(x, y, label, ha="center", va="center", fontsize=8, zorder=3,
                                       bbox=dict(boxstyle="round,pad=0.4", fc="#cfe2ff", ec="#3d6fb6"))
    for i in sources:
        watched = inner.producer(i) == -1
        label = var_names.get(i) or f"#{i}" + (" watched" if watched else "")
        x, y = pos[("src", i)]
        boxes[("src", i)] = ax.text(x, y, label, ha="center", va="center", fontsize=8, zorder=3,
                                    bbox=dict(boxstyle="round,pad=0.3", fc="#ffe08a" if watched else "#ffffff",
                                              ec="#a08020" if watched else "#888888"))
    for op_id, tid in sinks:
        x, y = pos[("out", tid)]
        shape, dt = tensor_shape[tid]
        boxes[("out", tid)] = ax.text(x, y, f"#{tid}\n{fmt_shape(shape)} {dt}", ha="center", va="center",
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
            ax.text((x0 + x1) / 2, (y0 + y1) / 2 + 0.12, fmt_shape(tensor_shape[tid][0]), ha="center",
                    va="bottom", fontsize=6, color="#666666", zorder=5)
    ax.set_xlim(-1.2, (n_cols - 1) * 2.4 + 1.2)
    ax.set_ylim(-(n_rows / 2.0) - 0.2, n_rows / 2.0 + 0.2)
    ax.axis("off")
    shown = f"last {len(items)} of {len(inner.op_tape)}" if len(inner.op_tape) > len(items) else str(len(items))
    ax.set_title(f"GradientTape: {shown} ops", fontsize=10)
    return fig
