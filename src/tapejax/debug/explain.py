"""``tj.debug.explain_gradient``: why ``tape.gradient(target, source)`` is None, or that it is not.

Terms. A *recorded edge* goes from an op's output to each of its inputs on the tape (tapes.py); an
*unrecorded edge* goes through a lineage marker (lineage.py), an op the tape saw but did not record; an
*unconnected edge* is a recorded one to an input the op declares its output does not depend on (an op
with no gradient, floor or zeros_like; a tj.function result ignoring an argument). A *break* is an
unrecorded or unconnected edge on the path from the source to the target.

Algorithm.

1. Checks that need no search, in order: the tape was already used; the source is not floating point;
   the source was never watched (nor produced by a recorded op), with the likely reason (a Variable not
   trainable, ``watch_accessed_variables=False``, computed by an unrecorded op); the target is not a
   tj.Tensor (a plain JAX call cut it); the target is not floating point; the source is the target.
2. A 0-1 breadth-first search from the targets towards the source, recorded edges costing 0 and
   breaks 1, so a fully recorded path is found whenever one exists, else the path with the
   fewest breaks. Non-float tensors the search cannot pass are kept as dead ends.
3. No path: a non-float dead end, a noted plain JAX call, or where the target came from. A path
   without breaks: connected (the gradient is not None). Otherwise the first break names the cause:
   an op with no derivative there, ``stop_gradient``, a ``stop_recording()`` block, a non-float dtype, or
   an unrecorded op.

It only reads the tape and its markers; nothing is computed, so deferred values stay deferred.
"""
from __future__ import annotations

from collections import deque
from typing import Any, Dict, List, Sequence, Tuple

from ..custom_gradient import CustomGradientBackward
from ..nest import flatten
from ..tensor import Tensor, Variable
from .lineage import markers, markers_truncated, raw_jax_hint
from .tapes import inner_tape, is_float, tape_used


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


def _id_dtype(x) -> Tuple[int, Any, str]:
    if isinstance(x, Variable):
        return x._handle_id, x.dtype, f"variable '{x.name}'"
    if isinstance(x, Tensor):
        return x._id, x.dtype, f"tensor (shape {tuple(x.shape)}, {x.dtype})"
    raise TypeError(f"explain_gradient: expected a tj.Tensor or tj.Variable, got {type(x).__name__}")


def _search(inner, ops, lin, starts, sid):
    """0-1 breadth-first search from the target ids ``starts`` towards the source ``sid``: recorded edges cost
    0; unrecorded (marker) edges, and recorded ones to an input the op declares its output does not depend on
    (an op with no gradient, floor or zeros_like; a tj.function's output ignoring an argument: ``how`` is
    "unconnected"), cost 1, so a path without breaks is found whenever one exists, else the one with the
    fewest. ``(dist, parent, dead_ends)``: parent maps a tensor id to (child id, op name, how, child dtype);
    dead ends are the non-float tensors the search cannot go past."""
    dist: Dict[int, int] = {i: 0 for i in starts}
    parent: Dict[int, Tuple[int, str, str, Any]] = {}
    dead_ends: List[Tuple[str, Any]] = []
    dq = deque(starts)
    while dq:
        tid = dq.popleft()
        d = dist[tid]
        if tid == sid:
            continue
        op_id = inner.producer(tid)
        edges = []
        if op_id is not None and op_id != -1:
            entry = ops[op_id]
            dt = next((info[2] for info in entry.outputs if info[0] == tid), None)
            connected = getattr(entry.backward, "connected_inputs", None)
            linked = None if connected is None or tid not in entry.out_ids else \
                set(connected(list(entry.out_ids).index(tid), entry.input_ids))
            edges = [(i, 0, entry.op_type, "recorded", dt) if linked is None or i in linked else
                     (i, 1, entry.op_type, "unconnected", dt) for i in entry.input_ids]
        elif tid in lin:
            name, ins, why, dt, in_dts = lin[tid]
            edges = [(i, 1, name, why, dt) for i in ins]
            for i, idt in zip(ins, in_dts):
                if not is_float(idt) and not inner.knows(i) and i not in lin:
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
    return dist, parent, dead_ends


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
    E = GradientExplanation
    if target is None:  # (as tape.gradient(None, x): TF's TypeError)
        raise TypeError("explain_gradient: Argument `target` should be a list or nested structure of Tensors or "
                        "Variables to be differentiated, but received None.")
    sid, sdt, sdesc = _id_dtype(source)
    if tape_used(tape):
        return E(E.TAPE_USED, "The tape was already used: a non-persistent GradientTape forgets what it recorded at "
                              "its first gradient() call, and a second call raises RuntimeError. Use "
                              "tj.GradientTape(persistent=True), or compute all gradients in one call "
                              "(tape.gradient(target, [a, b, ...])).")
    if not is_float(sdt):
        return E(E.NON_FLOAT, f"The source is a {sdesc}: only floating-point tensors have gradients. Cast it "
                              "with .astype(tj.numpy.float32) before the computation and watch the cast tensor.")
    inner = inner_tape(tape)
    if inner is None or not inner.knows(sid):
        hint = "call tape.watch(x) inside the tape's context, before computing with it"
        if isinstance(source, Variable):
            if not source.trainable:
                hint = "the variable is not trainable (trainable=False): watch it explicitly with tape.watch(v)"
            elif inner is not None and not inner.watch_accessed_variables:
                hint = "the tape has watch_accessed_variables=False: watch it with tape.watch(v)"
            else:
                hint = "it was not read inside the tape's context; read it (or tape.watch(v)) while the tape records"
        lin = markers(inner)
        if sid in lin:
            entry = lin[sid]
            hint = (f"it was computed by op '{entry[0]}' under the tape but not recorded "
                    f"({_WHY_TEXT.get(entry[2], entry[2])}); watch the inputs of that op, or the result itself")
        return E(E.NOT_WATCHED, f"The source {sdesc} was never watched by this tape, nor produced by an op the tape "
                                f"recorded: {hint}.")
    targets = [t for t in flatten(target)[0] if t is not None]
    raw = next((t for t in targets if not isinstance(t, (Tensor, Variable))), None)
    if raw is not None:
        why = raw_jax_hint(inner, sid) or ("it was computed by JAX (or NumPy) directly, which no tape records. Use "
                                            "tj.numpy ops, or wrap the JAX function with tj.op(fn)")
        return E(E.NO_PATH, f"The target is a {type(raw).__name__}, not a tj.Tensor: {why}.")
    tinfo = [_id_dtype(t) for t in targets]
    if not tinfo:
        return E(E.NO_PATH, "The target holds no tensor (only None): there is nothing to differentiate.")
    if not any(is_float(dt) for _, dt, _ in tinfo):
        return E(E.NON_FLOAT, "The target has a non-float dtype " + ", ".join(str(dt) for _, dt, _ in tinfo) +
                              ": non-float targets contribute no gradient. Compute the loss in floating point.")
    if sid in {i for i, dt, _ in tinfo if is_float(dt)}:
        return E(E.CONNECTED, "The source is the target itself: its gradient is the output gradient (ones).")

    ops = inner.op_tape
    lin = markers(inner)
    starts = [i for i, dt, _ in tinfo if is_float(dt)]
    dist, parent, dead_ends = _search(inner, ops, lin, starts, sid)
    if sid not in dist and dead_ends:
        name, idt = dead_ends[0]
        return E(E.NON_FLOAT, f"The target is computed from a non-float tensor ({idt}, an input of op '{name}'), and no "
                              "recorded path leads from the source around it: gradients do not flow through integer "
                              "or boolean tensors (e.g. a cast to int, or a comparison). Keep the computation in "
                              "floating point (tj.numpy.where(x > 0, x, 0.) instead of casting a mask).")
    if sid not in dist:
        truncated = markers_truncated(inner)
        tgt_known = any(inner.knows(i) or i in lin for i, _, _ in tinfo)
        hint = raw_jax_hint(inner, sid) or (
                "the target was not computed by any op run while this tape was active (computed before the tape, "
                "or outside it)" if not tgt_known else
                "the target was computed from other tensors; a value may have left tapejax (e.g. through numpy or "
                "jax.numpy and back with tj.constant), which cuts the recorded path")
        return E(E.NO_PATH, f"The source {sdesc} is watched, but no op recorded by this tape leads from it to the "
                            f"target: {hint}. Compute the target from the source with tj ops inside the tape's "
                            "context." + (" (Markers were truncated: this tape ran very many unrecorded ops.)"
                                          if truncated else ""))
    # Walk the found path from the source to the target.
    path = []
    custom = []  # the custom gradients on the path, whose grad_fn may give None
    cur = sid
    while cur in parent:
        child, name, how, dt = parent[cur]
        path.append((name, how, dt))
        op_id = inner.producer(child) if how == "recorded" else None
        if op_id is not None and op_id != -1 and isinstance(ops[op_id].backward, CustomGradientBackward):
            custom.append(name)
        cur = child
    breaks = [(name, how, dt) for name, how, dt in path if how != "recorded"]
    desc = [(n, h) for n, h, _ in path]
    if not breaks:
        unless = (f", unless the custom gradient of {', '.join(repr(n) for n in custom)} returns None for it (its "
                  "grad_fn decides when it runs; this explanation runs nothing)") if custom else ""
        return E(E.CONNECTED, f"The source is connected to the target through {len(path)} recorded op(s) "
                              f"({' -> '.join(n for n, _, _ in path[:8])}{' ...' if len(path) > 8 else ''}): "
                              f"its gradient is not None{unless}.", desc)
    non_float = [(n, dt) for n, h, dt in path if dt is not None and not is_float(dt)]
    first = breaks[0]
    if first[1] == "unconnected":
        return E(E.NO_PATH, f"The path from the source to the target crosses op '{first[0]}', whose output does not "
                            "depend differentiably on that input: an op with no gradient (floor, ceil, round, "
                            "floor_divide, zeros_like: None, as TF's), or a tj.function call whose result ignores "
                            "that argument. Differentiate a path that does not go through it.", desc)
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
