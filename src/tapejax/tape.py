"""The tape: recording ops, freeing what nothing can reach, and the reverse-mode gradient algorithm.

Terminology (as in TensorFlow's tape.h, which this ports):

* op      an entry on the tape: the op's name, its output tensors (id, shape, dtype), the ids of its
          float inputs and a backward function holding the residuals.
* target  what is differentiated (the ``y`` in dy/dx); source: what it is differentiated with respect
          to (the ``x``).
* ``tensor_tape`` maps each tensor id the tape knows to the op that produced it (-1 for watched
  tensors and variable handles); ``tensor_usage`` counts, for each tensor, one for the tensor being
  alive plus one per recorded op using it. When a Tensor dies its usage drops; at zero its producing op
  is dropped if none of that op's outputs is still in use, and the drop cascades to the op's inputs.

The gradient algorithm:

1. Prune: walk back from the targets over ``tensor_tape`` and collect only the ops that lead to them,
   counting how often each tensor is used as an input of those ops (``usage``) and, per op, how many of
   its outputs still wait for their gradient (``missing``). A non-persistent tape gives its backward
   functions away here and forgets everything else at once.
2. Seed: each target gets the given output gradient, or ones (also targets that are sources).
3. Ops with nothing missing go on a stack. Pop an op, sum the gradients pending for each of its outputs,
   call its backward function for the inputs whose gradient can matter (inputs known to the tape: an
   unknown input's gradient would be dropped, even for a source, so an unwatched source gets None as
   in TF), and add the results to the pending lists of those inputs. When all uses of an input are
   accounted for, the op that produced it has one output less missing; at zero it goes on the stack.
   When a pending list grows past a count and a byte threshold it is summed at once (early aggregation).
4. The sources' pending lists are summed; what is left is unconnected.
"""
from __future__ import annotations

import weakref
from typing import Any, Dict, List, Sequence

from . import lazy, tape_set, vspace
from .config import config
from .tensor import Tensor

from jax.core import Tracer


class OpEntry:
    __slots__ = ("op_type", "outputs", "input_ids", "backward")

    def __init__(self, op_type: str, outputs: tuple, input_ids: list, backward) -> None:
        self.op_type = op_type
        self.outputs = outputs  # ((id, shape, dtype, sharding), ...)
        self.input_ids = input_ids
        self.backward = backward


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


class Tape:
    """The recording state of one GradientTape."""

    nesting_id = 0  # set by tape_set.push_tape

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self.persistent = persistent
        self.watch_accessed_variables = watch_accessed_variables
        self.tensor_tape: Dict[int, int] = {}
        self.tensor_usage: Dict[int, int] = {}
        self.op_tape: Dict[int, OpEntry] = {}
        self.next_op_id = 0
        self.watched_variables: Dict[int, Any] = {}  # handle id -> Variable, in order of watching
        self.paused = False
        self.last_replay = ""  # how the last backward pass ran (see replay.py)
        self._weak = weakref.ref(self)
        # The tape's structure as data, for replay (lazy.Trace); only where a replay could use it.
        self.trace = lazy.Trace() if (config.lazy and config.replay and not persistent) else None

    @property
    def recording(self) -> bool:
        return not self.paused

    # -- recording ------------------------------------------------------------------------------------
    def should_record(self, ids: Sequence[int]) -> bool:
        tt = self.tensor_tape
        for i in ids:
            if i in tt:
                return True
        return False

    def watch(self, tensor_id: int) -> None:
        self.tensor_tape.setdefault(tensor_id, -1)
        if self.trace is not None:
            self.trace.add(("watch", self.trace.ident(tensor_id)))

    def watch_variable(self, var) -> None:
        h = var._handle_id
        if h not in self.watched_variables:
            self.watched_variables[h] = var
            self.tensor_tape.setdefault(h, -1)
            if self.trace is not None:
                self.trace.add(("watch", self.trace.ident(h)))

    def variables_by_creation(self) -> tuple:
        """The watched Variables in order of creation, as TF (handle ids come from a process-wide
        counter at creation, so they sort in that order)."""
        return tuple(v for _, v in sorted(self.watched_variables.items(), key=lambda kv: kv[0]))

    def record_read(self, handle_id: int, t: Tensor, backward) -> None:
        """Record ``t = read(variable)`` (an identity from the variable's handle)."""
        trace, self.trace = self.trace, None  # record_operation would break it
        self.record_operation("ReadVariable", (t,), [handle_id], backward)
        self.trace = trace
        if trace is not None:
            trace.add(("read", trace.ident(handle_id), trace.ident(t._id)))

    def finish(self) -> None:
        """A non-persistent tape after its gradient: forget everything; tensors dying later cost nothing."""
        self.op_tape = {}
        self.tensor_tape = {}
        self.tensor_usage = {}
        self.trace = None

    def record_operation(self, op_type: str, outputs: Sequence[Tensor], input_ids: Sequence[int], backward) -> None:
        if self.trace is not None:
            self.trace.break_()
        usage = self.tensor_usage
        for i in input_ids:
            usage[i] = usage.get(i, 0) + 1
        op_id = self.next_op_id
        self.next_op_id += 1
        infos = []
        weak = self._weak
        for o in outputs:
            oid = o._id
            self.tensor_tape[oid] = op_id
            usage[oid] = 1
            o._track(weak)
            v = o._value
            infos.append((oid, v.shape, v.dtype, None if isinstance(v, Tracer) else v.sharding))
        self.op_tape[op_id] = OpEntry(op_type, tuple(infos), list(input_ids), backward)

    def record_deferred(self, op_type: str, outputs: tuple, input_ids: list, backward, infos: tuple) -> None:
        """``record_operation`` for outputs not computed yet (lazy.py): ``infos`` gives each output's
        (shape, dtype, sharding); the outputs are new tensors."""
        usage = self.tensor_usage
        for i in input_ids:
            usage[i] = usage.get(i, 0) + 1
        op_id = self.next_op_id
        self.next_op_id = op_id + 1
        tt = self.tensor_tape
        weak = self._weak
        if len(outputs) == 1:
            o = outputs[0]
            oid = o._id
            tt[oid] = op_id
            usage[oid] = 1
            o._trackers = weak
            out_infos = ((oid,) + infos[0],)
        else:
            out_infos = []
            for o, info in zip(outputs, infos):
                oid = o._id
                tt[oid] = op_id
                usage[oid] = 1
                o._trackers = weak
                out_infos.append((oid,) + info)
            out_infos = tuple(out_infos)
        self.op_tape[op_id] = OpEntry(op_type, out_infos, input_ids, backward)

    def _tensor_died(self, tensor_id: int) -> None:
        self.delete_trace(tensor_id)

    def delete_trace(self, tensor_id: int) -> None:
        """A tensor died: free the ops that nothing can reach any more (iteratively, no recursion limit)."""
        stack = [tensor_id]
        usage, tt, ops = self.tensor_usage, self.tensor_tape, self.op_tape
        while stack:
            tid = stack.pop()
            n = usage.get(tid)
            if n is None:
                continue
            if n > 1:
                usage[tid] = n - 1
                continue
            del usage[tid]
            op_id = tt.get(tid)
            if op_id is None or op_id == -1:
                continue  # unknown, or watched: watched tensors stay
            del tt[tid]
            entry = ops.get(op_id)
            if entry is None:
                continue
            if any(info[0] in usage for info in entry.outputs):
                continue  # another output of the op is still in use
            del ops[op_id]
            stack.extend(entry.input_ids)

    def clear(self) -> None:
        if self.trace is not None:
            self.trace.break_()
        self.tensor_tape.clear()
        self.tensor_usage.clear()
        self.op_tape.clear()
        self.watched_variables.clear()

    # -- the gradient algorithm ---------------------------------------------------------------------------
    def _prepare(self, target_ids: Sequence[int]):
        tt = self.tensor_tape
        ops: Dict[int, OpEntry] = {}
        usage: Dict[int, int] = {}
        stack = list(target_ids)
        while stack:
            tid = stack.pop()
            op_id = tt.get(tid)
            if op_id is None or op_id == -1 or op_id in ops:
                continue
            entry = self.op_tape.get(op_id)
            if entry is None:
                continue
            ops[op_id] = entry
            for i in entry.input_ids:
                if i in usage:
                    usage[i] += 1
                else:
                    usage[i] = 1
                    if i in tt:
                        stack.append(i)
        missing: Dict[int, int] = {}
        for tid in usage:
            op_id = tt.get(tid)
            if op_id is not None and op_id != -1:
                missing[op_id] = missing.get(op_id, 0) + 1
        if not self.persistent:
            # Backward functions not on the path die now; the needed ones are owned by `ops`.
            self.op_tape = {}
        return ops, usage, missing

    def compute_gradient(self, target_ids: Sequence[int], source_ids: Sequence[int],
                         sources_that_are_targets: Dict[int, Any], output_gradients: Sequence[Any],
                         recording: bool, stats: GradientStats) -> List[Any]:
        """Gradients (raw arrays, or Tensors when ``recording``) of the targets w.r.t. the sources."""
        from . import replay
        # Under check_numerics every kernel runs on its own, so each one is checked.
        replaying = config.replay and not recording and not (tape_set.numerics_checks and tape_set.state.debug_checking)
        prepared = []

        def prepare():
            if not prepared:
                prepared.append(self._prepare(target_ids))
            return prepared[0]
        traced = False
        if replaying and self.trace is not None and not self.persistent:
            result = replay.run_trace(self, prepare, target_ids, source_ids, sources_that_are_targets,
                                      output_gradients, stats)
            if result is not None and result is not replay.NOT_TRACED:
                return result
            traced = result is None  # op by op (warm-up, compiling...): not the slow replay path below
            self.trace = None  # not used: let its ops go as the backward pass runs
        ops, usage, missing = prepare()
        if replaying and not traced:
            result = replay.try_replay(self, ops, usage, missing, target_ids, source_ids,
                                       sources_that_are_targets, output_gradients, stats)
            if result is not None:
                return result
        return run_backprop(ops, usage, missing, self.tensor_tape, self.persistent, target_ids, source_ids,
                            sources_that_are_targets, output_gradients, recording, stats)


def run_backprop(ops: Dict[int, OpEntry], usage: Dict[int, int], missing: Dict[int, int], tt: Dict[int, int],
                 persistent: bool, target_ids: Sequence[int], source_ids: Sequence[int],
                 sources_that_are_targets: Dict[int, Any], output_gradients: Sequence[Any],
                 recording: bool, stats: GradientStats, aggregate=None) -> List[Any]:
    """Steps 2-4 of the algorithm over a pruned tape (also traced once by the replay of a recurring tape,
    which may pass its own ``aggregate``)."""
    sources_set = set(source_ids)
    gradients: Dict[int, List[Any]] = {}
    pending_bytes = 0
    peak = 0

    def make_ones(info_shape, info_dtype, sharding):
        arr = vspace.ones_from_spec(tuple(info_shape), info_dtype, _placement(sharding))
        return Tensor(arr) if recording else arr

    # Seed the targets.
    for i, tid in enumerate(target_ids):
        g = output_gradients[i] if output_gradients else None
        if g is None:
            op_id = tt.get(tid)
            if op_id is not None and op_id != -1 and op_id in ops:
                entry = ops[op_id]
                info = next(x for x in entry.outputs if x[0] == tid)
                g = make_ones(info[1], info[2], info[3])
            elif tid in sources_that_are_targets:
                shape, dtype, sharding = sources_that_are_targets[tid]
                g = make_ones(shape, dtype, sharding)
            else:
                continue
        gradients.setdefault(tid, []).append(g)
        pending_bytes += vspace.nbytes(g)
    peak = pending_bytes

    stack = [op_id for op_id in ops if op_id not in missing]
    stack.reverse()
    min_count = config.aggregation_min_count
    min_bytes = config.aggregation_min_bytes
    if aggregate is None:
        aggregate = vspace.aggregate_tensors if recording else vspace.aggregate
    ops_run = 0
    early = 0
    while stack:
        op_id = stack.pop()
        entry = ops.pop(op_id, None)
        if entry is None:
            continue
        out_grads = []
        any_grad = False
        for info in entry.outputs:
            oid = info[0]
            gl = gradients.get(oid)
            if gl is None:
                out_grads.append(None)
                continue
            any_grad = True
            g = gl[0] if len(gl) == 1 else aggregate(gl)
            if oid in sources_set:
                if len(gl) > 1:
                    pending_bytes -= sum(vspace.nbytes(x) for x in gl) - vspace.nbytes(g)
                    gl[:] = [g]
            else:
                del gradients[oid]
                pending_bytes -= sum(vspace.nbytes(x) for x in gl)
            out_grads.append(g)
        in_ids = entry.input_ids
        # Only inputs the tape knows can keep a gradient (an unknown one's is dropped below).
        needed_idx = [j for j, iid in enumerate(in_ids) if iid in tt]
        if any_grad and needed_idx:
            in_grads = _call_backward(entry, out_grads, needed_idx, recording)
            ops_run += 1
        else:
            in_grads = ()
        if not persistent:
            entry.backward = None  # release residuals as soon as the op has run
        for j, iid in enumerate(in_ids):
            g = in_grads[j] if in_grads else None
            if g is not None:
                gl = gradients.get(iid)
                if gl is None:
                    gradients[iid] = gl = []
                gl.append(g)
                nb = vspace.nbytes(g)
                pending_bytes += nb
                if pending_bytes > peak:
                    peak = pending_bytes
                if len(gl) > min_count and len(gl) * nb > min_bytes:
                    s = aggregate(gl)
                    pending_bytes -= sum(vspace.nbytes(x) for x in gl) - vspace.nbytes(s)
                    gl[:] = [s]
                    early += 1
            n = usage.get(iid)
            if n is None:
                continue
            n -= 1
            usage[iid] = n
            if n > 0:
                continue
            producer = tt.get(iid)
            if producer is None:
                # Not watched nor computed from a watched tensor: its gradient is dropped even when it
                # is a source, so an unwatched source gets None (tape.h ComputeGradient).
                gl = gradients.pop(iid, None)
                if gl:
                    pending_bytes -= sum(vspace.nbytes(x) for x in gl)
                continue
            if producer == -1:
                continue
            m = missing.get(producer)
            if m is not None:
                m -= 1
                missing[producer] = m
                if m == 0:
                    stack.append(producer)
    result = []
    for sid in source_ids:
        gl = gradients.get(sid)
        if not gl:
            result.append(None)
        else:
            g = gl[0] if len(gl) == 1 else aggregate(gl)
            gl[:] = [g]
            result.append(g)
    stats.peak_pending_bytes = peak
    stats.ops_run = ops_run
    stats.early_aggregations = early
    return result


def _placement(sharding):
    return vspace._sharding_of_spec(sharding)


def _call_backward(entry: OpEntry, out_grads: list, needed_idx: list, recording: bool):
    try:
        return entry.backward(out_grads, needed_idx, recording)
    except LookupError:
        raise
    except Exception as e:  # name the op: a bare jax error deep in a kernel tells the user nothing
        msg = str(e)
        if "differentiation does not work" in msg or "not differentiable" in msg.lower():
            raise LookupError(f"No gradient defined for op '{entry.op_type}': {msg.splitlines()[0]}") from e
        try:
            wrapped = type(e)(f"in the backward kernel of op '{entry.op_type}': {msg}")
        except Exception:
            raise e from None
        raise wrapped from e
