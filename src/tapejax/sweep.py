"""The reverse sweep: prune a recorded graph to what a gradient needs, then run its backward functions
from the targets back to the sources. Written once; GradientTape.gradient, the replayed program
(deferred/replay.py traces it), tj.gradients and tj.differentiate's backward program all call it.

Terminology:

* graph    recorded ops as two mappings (a tape's ``op_tape`` is an op_table.OpTable, others are dicts).
           ``op_tape`` maps an op id to its entry: ``op_type``, ``outputs``
           (one (id, shape, dtype, sharding) per output), ``out_ids`` (their ids), ``input_ids`` and
           ``backward``. An op's id is its first output's id (or a fresh id where that one is taken or
           it has no output), so op ids grow in the order the ops ran and the op keyed by a tensor's
           own id made it. ``tensor_tape`` lists the other tensors the graph knows, with the id of the
           op that made them (-1 for a watched tensor or a variable handle): an op's later outputs, a
           tensor a second op recorded as its output, watched tensors. So the producer of a tensor is
           ``tensor_tape.get(tid, tid)`` when that is -1 or an op in ``op_tape`` (``producer``), and the
           graph knows a tensor listed in either mapping (``knows``). A graph may also list every tensor
           it knows, its ops keyed by ids no unlisted tensor has (replay's local graphs, tests). A
           GradientTape's tape and a tj.function trace's graph are both graphs (tape.py).
* target   what is differentiated (the ``y`` in dy/dx); source: what it is differentiated with respect
           to (the ``x``); stop: a tensor treated as a constant (tj.gradients' ``stop_gradients``).
* known    the tensors whose gradient can matter. A backward function is asked only for its inputs
           in ``known``: for a tape, every tensor the tape knows (an unwatched source gets None, as in
           TF); between sources and targets, the tensors reached from the sources.
* pending  the gradient contributions that arrived for a tensor and are not summed yet.
* usage    per tensor, how many kept ops use it as an input and have not run yet; missing: per op,
           how many of its outputs still wait for some of those uses.

The algorithm:

1. Prune (``prune``): walk back from the targets over their producers and keep the ops that lead to
   them, counting ``usage`` and ``missing``. ``prune_between`` keeps, of those, only the ops that
   are also descendants of a source, and crosses no stop tensor (tf.gradients, tj.differentiate).
2. Seed (``backprop``): each target gets its output gradient; a target given None gets ones (shaped
   as the op output it is, or as ``ones_for`` says for a target that is a source) or, for a
   symbolic-zero sweep (``ones_for=None``), nothing.
3. Ops with nothing missing go on a stack. Pop an op, sum the pending gradients of each output, call
   its backward function (through ``call``, by default ``call_backward``) for its known inputs
   unless no gradient reached it, and add the results to the pending lists of those inputs (a
   gradient given anyway for an input outside ``known`` is dropped). When all uses of an input have run, its
   producer has one output less missing; at zero the producer goes on the stack. A pending list
   longer than ``min_count`` and heavier than ``min_bytes`` is summed at once (early aggregation).
   A source's pending list is summed but kept when its producer runs. A linear chain skips the
   pending lists: when an op's one input has no other use, no other gradient and is no source, and
   its producer waits for that gradient alone, the producer runs next (as the stack would run it),
   that gradient its cotangent.
4. The sources' pending lists are summed (through ``aggregate``, the sweep's vector space); an empty
   one is None, unconnected. ``stats`` receives the peak pending bytes, the backward functions run and
   the early aggregations.
"""
from __future__ import annotations

import sys
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from . import vspace
from .config import config
from .tensor import Tensor


class GradientStats:
    """What the last backward pass did."""

    __slots__ = ("peak_pending_bytes", "ops_run", "early_aggregations")

    def __init__(self) -> None:
        self.peak_pending_bytes = 0
        self.ops_run = 0
        self.early_aggregations = 0

    def __repr__(self) -> str:
        return (f"GradientStats(peak_pending_bytes={self.peak_pending_bytes}, ops_run={self.ops_run}, "
                f"early_aggregations={self.early_aggregations})")


NEVER = sys.maxsize  # a min_count that never aggregates early
_FIRST, _NOTHING = (0,), ()  # needed_idx of an op of one input (never mutated)


# -- the graph's producers --------------------------------------------------------------------------------
def producer(tensor_tape: Dict[int, int], op_tape: Dict[int, Any], tid: int) -> Optional[int]:
    """The id of the op in ``op_tape`` that made tensor ``tid``; -1 when it is watched; None when the graph does
    not know it (or no longer holds the op that made it)."""
    op_id = tensor_tape.get(tid, tid)  # (not listed: the op keyed by the tensor's own id made it, if any)
    return op_id if op_id == -1 or op_id in op_tape else None


def knows(tensor_tape: Dict[int, int], op_tape: Dict[int, Any], tid: int) -> bool:
    """Whether the graph knows tensor ``tid``: watched, or made by one of its ops."""
    return tid in op_tape or tid in tensor_tape


# -- 1. prune ---------------------------------------------------------------------------------------------
def prune(tensor_tape: Dict[int, int], op_tape: Dict[int, Any], target_ids: Iterable[int],
          take: Optional[Callable] = None):
    """The ops leading to the targets: ``(ops, usage, missing)``, ops in the order they were found.
    ``take(op_id)`` gives an op's entry or None (default ``op_tape.get``; a tape forgetting its ops
    passes its table's ``pop``)."""
    if take is None:
        take = op_tape.get
    ops: Dict[int, Any] = {}
    usage: Dict[int, int] = {}
    stack = list(target_ids)
    while stack:
        tid = stack.pop()
        op_id = tensor_tape.get(tid, tid)  # (producer, inline)
        if op_id == -1 or op_id in ops:
            continue  # watched, or seen
        entry = take(op_id)
        if entry is None:
            continue  # unknown or freed (nothing could reach it)
        ops[op_id] = entry
        ins = entry.ins  # (input_ids, inline)
        for i in ((ins,) if type(ins) is int else ins):
            if i in usage:
                usage[i] += 1
            else:  # (usage doubles as the set of tensors walked already)
                usage[i] = 1
                stack.append(i)
    return ops, usage, _missing(usage, tensor_tape, ops)


def prune_between(tensor_tape: Dict[int, int], op_tape: Dict[int, Any], target_ids: Iterable[int],
                  source_ids: Iterable[int], stop_ids: Iterable[int] = ()):
    """The ops that lead to the targets and descend from a source, crossing no stop tensor:
    ``(ops, usage, missing, reached)`` with ops in the order they ran and ``reached`` the tensors the
    sources reach (the sources included), which is the ``known`` of their sweep."""
    stop = set(stop_ids)
    if stop:  # a stop tensor is a constant: as for a watched one, the walk back does not go through it
        tensor_tape_ = {**tensor_tape, **dict.fromkeys(stop, -1)}
    else:
        tensor_tape_ = tensor_tape
    ancestors = prune(tensor_tape_, op_tape, target_ids)[0]
    reached = set(source_ids)
    ops: Dict[int, Any] = {}
    for op_id in sorted(ancestors):  # in the order they ran: one forward pass finds the descendants
        entry = ancestors[op_id]
        if any(i in reached for i in entry.input_ids):
            ops[op_id] = entry
            reached.update(i for i in entry.out_ids if i not in stop)
    usage: Dict[int, int] = {}
    for entry in ops.values():
        for i in entry.input_ids:
            usage[i] = usage.get(i, 0) + 1
    return ops, usage, _missing(usage, tensor_tape, ops), reached


def _missing(usage: Dict[int, int], tt: Dict[int, int], ops: Dict[int, Any]) -> Dict[int, int]:
    """Per kept op, how many of its outputs the kept ops use (``usage``)."""
    missing: Dict[int, int] = {}
    for tid in usage:
        op_id = tt.get(tid, tid)  # (producer, inline: this runs per tensor of the pruned graph)
        if op_id in ops:
            missing[op_id] = missing.get(op_id, 0) + 1
    return missing


# -- calling one backward function ------------------------------------------------------------------------
def call_backward(entry, out_grads: list, needed_idx: list, recording: bool) -> list:
    """``entry(out_grads, needed_idx, recording)`` (its backward function), with errors that name the op: a
    bare JAX error deep in a kernel tells the user nothing."""
    try:
        return entry(out_grads, needed_idx, recording)
    except Exception as e:
        raise_named(entry, e)


def raise_named(entry, e: Exception):
    """Raise ``e``, which ``entry``'s backward function raised, as an error that names the op."""
    wrapped = None
    try:
        if isinstance(e, LookupError):
            raise e
        msg = str(e)
        if "differentiation does not work" in msg or "not differentiable" in msg.lower():
            raise LookupError(f"No gradient defined for op '{entry.op_type}': {msg.splitlines()[0]}") from e
        try:
            wrapped = type(e)(f"in the backward kernel of op '{entry.op_type}': {msg}")
        except Exception:  # an exception type that cannot be rebuilt from a message
            raise e from None
        raise wrapped from e
    finally:
        # the raised error's traceback keeps this frame: its locals must not keep the error (a reference
        # cycle only the garbage collector frees, with everything the traceback's frames hold)
        e = wrapped = None


# -- 2-4. the reverse sweep -------------------------------------------------------------------------------
def backprop(ops: Dict[int, Any], usage: Dict[int, int], missing: Dict[int, int], tensor_tape: Dict[int, int],
             target_ids: Sequence[int], source_ids: Sequence[int], output_gradients: Sequence[Any] = (), *,
             recording: bool = False, ones_for: Optional[Dict[int, Tuple]] = None, known=None,
             call: Optional[Callable] = None, aggregate: Optional[Callable] = None, release: bool = False,
             min_count: Optional[int] = None, min_bytes: Optional[int] = None,
             stats: Optional[GradientStats] = None) -> List[Any]:
    """Steps 2-4 over a pruned graph (``ops``, ``usage`` and ``missing`` are consumed): one gradient
    (or None) per source.

    Gradients are raw arrays, or Tensors when ``recording`` (an outer tape records the sweep: the
    backward functions run as recorded ops and sums are ``add_n``). ``ones_for``: None for a
    symbolic-zero sweep (a None output gradient seeds nothing), else ones seed the targets given None,
    and the dict gives (shape, dtype, sharding) of targets that are not outputs of a kept op.
    ``known`` defaults to the tensors the graph knows (``knows``, with ``ops`` for the graph's
    ``op_tape``: a tensor made by an op is an input of kept ops only while that op has not run yet, and
    ``tensor_tape`` is read as such, with those ops); ``call(entry, out_grads, needed_idx, recording)``
    runs one backward function (default: ``call_backward``, inline); ``aggregate(list)`` sums a pending
    list; ``release`` drops each backward function once it has run (a non-persistent tape frees residuals
    as it goes); ``min_count`` and ``min_bytes`` default to the tj.config aggregation thresholds."""
    tt = tensor_tape
    # (``knows``, inline: it runs per input of every op; an op's single input, the common case, is tested
    # without this call)
    is_known = known.__contains__ if known is not None else lambda tid: tid in ops or tid in tt
    if aggregate is None:
        aggregate = vspace.aggregate_tensors if recording else vspace.aggregate
    if min_count is None:
        min_count = config.aggregation_min_count
    if min_bytes is None:
        min_bytes = config.aggregation_min_bytes
    nbytes = vspace.nbytes
    sources_set = set(source_ids)
    gradients: Dict[int, List[Any]] = {}
    held: Dict[int, int] = {}  # tensor id -> bytes of its pending gradients (each array is measured once)
    pending_bytes = 0

    # 2. Seed the targets.
    for i, tid in enumerate(target_ids):
        g = output_gradients[i] if output_gradients else None
        if g is None:
            if ones_for is None:
                continue
            op_id = producer(tt, ops, tid)
            if op_id is not None and op_id != -1:
                info = next(x for x in ops[op_id].outputs if x[0] == tid)
                g = _ones(info[1], info[2], info[3], recording)
            elif tid in ones_for:
                g = _ones(*ones_for[tid], recording)
            else:
                continue  # not computed from anything the graph knows
        gradients.setdefault(tid, []).append(g)
        nb = nbytes(g)
        held[tid] = held.get(tid, 0) + nb
        pending_bytes += nb
    peak = pending_bytes

    # 3. Run the ops whose outputs' gradients are complete.
    stack = [op_id for op_id in ops if op_id not in missing]
    stack.reverse()
    ops_run = 0
    early = 0
    # A linear chain (below) hands an op's single gradient to the op it came from without pending it: only
    # when one pending gradient is never summed early, so that nothing but the peak could tell.
    chain = min_count >= 1
    while stack:
        op_id = stack.pop()
        entry = ops.pop(op_id, None)
        if entry is None:
            continue
        outs = entry.outs  # (out_ids and input_ids, inline: no property call per op)
        if type(outs) is int and outs not in sources_set:
            # One output, not a source (the common case): its pending list, summed, is the list of cotangents
            # (no list built, no loop)
            out_grads = gradients.pop(outs, None)
            if out_grads is None:
                out_grads = [None]
                any_grad = False
            else:
                pending_bytes -= held.pop(outs)
                if len(out_grads) > 1:
                    out_grads = [aggregate(out_grads)]
                any_grad = True
        else:
            out_grads = []
            any_grad = False
            for oid in ((outs,) if type(outs) is int else outs):
                gl = gradients.get(oid)
                if gl is None:
                    out_grads.append(None)
                    continue
                any_grad = True
                g = gl[0] if len(gl) == 1 else aggregate(gl)
                if oid in sources_set:
                    if len(gl) > 1:
                        nb = nbytes(g)
                        pending_bytes -= held[oid] - nb
                        held[oid] = nb
                        gl[:] = [g]
                else:
                    del gradients[oid]
                    pending_bytes -= held.pop(oid)
                out_grads.append(g)
        while True:  # (once, or along a linear chain)
            in_ids = entry.ins
            if type(in_ids) is int:  # (the common case: no comprehension, no call)
                needed_idx = _FIRST if (in_ids in known if known is not None else in_ids in ops or in_ids in tt) \
                    else _NOTHING
            else:
                needed_idx = [j for j, iid in enumerate(in_ids) if is_known(iid)]
            if any_grad and needed_idx:
                if call is None:  # (call_backward, inline: a frame less per op)
                    try:
                        in_grads = entry(out_grads, needed_idx, recording)
                    except Exception as e:
                        raise_named(entry, e)
                else:
                    in_grads = call(entry, out_grads, needed_idx, recording)
                ops_run += 1
            else:
                in_grads = ()  # symbolic zeros in, symbolic zeros out: the op does not run
            if release:
                entry.backward = None
            # A linear chain: the op's one input has no other use and no other gradient, and the op that made
            # it waits for that gradient alone, as its one output. The stack would run that op next, its
            # cotangent this gradient: it runs now, the gradient never pending (it counts in the peak only).
            g = in_grads[0] if in_grads and type(in_ids) is int else None
            if g is None or not chain or usage.get(in_ids) != 1 or in_ids in gradients or in_ids in sources_set:
                break
            maker = tt.get(in_ids, in_ids)  # (producer, inline)
            nxt = ops.get(maker) if missing.get(maker) == 1 else None
            if nxt is None or nxt.outs != in_ids:  # (an op of several outputs: the stack's way)
                break
            del ops[maker]
            entry = nxt
            nb = nbytes(g)
            if pending_bytes + nb > peak:
                peak = pending_bytes + nb
            out_grads = [g]
            any_grad = True
        for j, iid in enumerate((in_ids,) if type(in_ids) is int else in_ids):
            g = in_grads[j] if in_grads else None
            if g is not None:
                gl = gradients.get(iid)
                if gl is None:
                    gradients[iid] = gl = []
                gl.append(g)
                nb = nbytes(g)
                held[iid] = held.get(iid, 0) + nb
                pending_bytes += nb
                if pending_bytes > peak:
                    peak = pending_bytes
                if len(gl) > min_count and len(gl) * nb > min_bytes:
                    s = aggregate(gl)
                    nb = nbytes(s)
                    pending_bytes -= held[iid] - nb
                    held[iid] = nb
                    gl[:] = [s]
                    early += 1
            n = usage.get(iid)
            if n is None:
                continue
            n -= 1
            usage[iid] = n
            if n > 0:
                continue
            maker = tt.get(iid, iid)  # (producer, inline: this runs per input of every op)
            if maker == -1 or maker not in ops:  # (watched, or not made by a kept op)
                if not is_known(iid):
                    # Its gradient is dropped even when it is a source, so an unwatched source gets None
                    # (tape.h ComputeGradient).
                    if gradients.pop(iid, None):
                        pending_bytes -= held.pop(iid)
                continue
            m = missing.get(maker)
            if m is not None:
                m -= 1
                missing[maker] = m
                if m == 0:
                    stack.append(maker)

    # 4. Sum what reached the sources.
    result = []
    for sid in source_ids:
        gl = gradients.get(sid)
        if not gl:
            result.append(None)
        else:
            g = gl[0] if len(gl) == 1 else aggregate(gl)
            gl[:] = [g]
            result.append(g)
    if stats is not None:
        stats.peak_pending_bytes = peak
        stats.ops_run = ops_run
        stats.early_aggregations = early
    return result


def _ones(shape, dtype, sharding, recording: bool):
    arr = vspace.ones_from_spec(tuple(shape), dtype, vspace.placement(sharding))
    return Tensor(arr) if recording else arr
