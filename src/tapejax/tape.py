"""The tape: recording ops and freeing what nothing can reach. The gradient algorithm over it (prune,
then the reverse sweep) is sweep.py's.

Terminology (as in TensorFlow's tape.h, which this ports):

* op      an entry on the tape: the op's name, its output tensors (id, shape, dtype), the ids of its
          float inputs and a backward function holding the residuals.
* target  what is differentiated (the ``y`` in dy/dx); source: what it is differentiated with respect
          to (the ``x``).
* ``tensor_tape`` maps each tensor id the tape knows to the op that produced it (-1 for watched
  tensors and variable handles); ``tensor_usage`` counts, for each tensor, one for the tensor being
  alive plus one per recorded op using it. When a Tensor dies its usage drops; at zero its producing op
  is dropped if none of that op's outputs is still in use, and the drop cascades to the op's inputs.

A gradient (``compute_gradient``) runs sweep.py's algorithm over ``tensor_tape`` and ``op_tape``: prune
to the ops leading to the targets, seed the targets with ones, run the backward functions in reverse
and sum what reaches the sources. A non-persistent tape gives its pruned backward functions to the
sweep, forgets everything else at once, and drops each backward function as soon as it has run.

Deferred execution and replay (deferred/) sit above the tape and plug in through two registration
points: ``set_step_recorder`` (a per-tape record of the step's structure, kept in step by ``watch`` and
the recorders) and ``set_replayer`` (asked first by ``compute_gradient``; it answers with the gradients
of a compiled program or None, and the sweep runs).
"""
from __future__ import annotations

import weakref
from typing import Any, Dict, List, Optional, Sequence

from . import sweep, tape_set
from .config import config
from .tensor import Tensor

from jax.core import Tracer


# Registration points for deferred execution and replay (deferred/), a layer above the tape:
# ``_new_step_record()`` makes the per-tape record of a step's structure, and ``_replayer(tape, prepare,
# target_ids, source_ids, sources_that_are_targets, output_gradients, stats)`` answers a gradient from
# a compiled program, or None for the sweep.
_new_step_record = None
_replayer = None


def set_step_recorder(factory) -> None:
    global _new_step_record
    _new_step_record = factory


def set_replayer(replayer) -> None:
    global _replayer
    _replayer = replayer


class OpEntry:
    __slots__ = ("op_type", "outputs", "input_ids", "backward")

    def __init__(self, op_type: str, outputs: tuple, input_ids: list, backward) -> None:
        self.op_type = op_type
        self.outputs = outputs  # ((id, shape, dtype, sharding), ...)
        self.input_ids = input_ids
        self.backward = backward


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
        self.last_replay = ""  # how the last backward pass ran (see deferred/replay.py)
        self._weak = weakref.ref(self)
        # The tape's structure as data, for replay (deferred/deferred/lazy.py's StepRecord); only where a replay could
        # use it. ``record_operation`` and ``watch`` keep it in step; the tape knows it only through
        # its methods (add, ident, break_).
        self.step_record = _new_step_record() if (_new_step_record is not None and config.lazy and config.replay
                                            and not persistent) else None

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
        if self.step_record is not None:
            self.step_record.add(("watch", self.step_record.ident(tensor_id)))

    def watch_variable(self, var) -> None:
        h = var._handle_id
        if h not in self.watched_variables:
            self.watched_variables[h] = var
            self.tensor_tape.setdefault(h, -1)
            if self.step_record is not None:
                self.step_record.add(("watch", self.step_record.ident(h)))

    def variables_by_creation(self) -> tuple:
        """The watched Variables in order of creation, as TF (handle ids come from a process-wide
        counter at creation, so they sort in that order)."""
        return tuple(v for _, v in sorted(self.watched_variables.items(), key=lambda kv: kv[0]))

    def record_read(self, handle_id: int, t: Tensor, backward) -> None:
        """Record ``t = read(variable)`` (an identity from the variable's handle)."""
        record, self.step_record = self.step_record, None  # record_operation would break it
        self.record_operation("ReadVariable", (t,), [handle_id], backward)
        self.step_record = record
        if record is not None:
            record.add(("read", record.ident(handle_id), record.ident(t._id)))

    def finish(self) -> None:
        """A non-persistent tape after its gradient: forget everything; tensors dying later cost nothing."""
        self.op_tape = {}
        self.tensor_tape = {}
        self.tensor_usage = {}
        self.step_record = None

    def record_operation(self, op_type: str, outputs: Sequence[Tensor], input_ids: Sequence[int], backward,
                         infos: Optional[tuple] = None) -> None:
        """Record one op: its outputs, the ids of its inputs, its backward function.

        ``infos`` is given for outputs not computed yet (deferred/lazy.py): each output's (shape, dtype,
        sharding); those outputs are new tensors that the step record lists already. Without it the
        outputs' values are at hand, and anything recorded that way breaks the step record."""
        usage = self.tensor_usage
        for i in input_ids:
            usage[i] = usage.get(i, 0) + 1
        op_id = self.next_op_id
        self.next_op_id = op_id + 1
        tt = self.tensor_tape
        weak = self._weak
        if infos is None:
            if self.step_record is not None:
                self.step_record.break_()
            out_infos = []
            for o in outputs:
                oid = o._id
                tt[oid] = op_id
                usage[oid] = 1
                o._track(weak)  # (it may be tracked by another tape already)
                v = o._value
                out_infos.append((oid, v.shape, v.dtype, None if isinstance(v, Tracer) else v.sharding))
            self.op_tape[op_id] = OpEntry(op_type, tuple(out_infos), list(input_ids), backward)
            return
        if len(outputs) == 1:  # (the common case: no intermediate list)
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

    # -- the gradient algorithm ---------------------------------------------------------------------------
    def compute_gradient(self, target_ids: Sequence[int], source_ids: Sequence[int],
                         sources_that_are_targets: Dict[int, Any], output_gradients: Sequence[Any],
                         recording: bool, stats: sweep.GradientStats) -> List[Any]:
        """Gradients (raw arrays, or Tensors when ``recording``) of the targets w.r.t. the sources."""
        # Under check_numerics every kernel runs on its own, so each one is checked.
        replaying = (_replayer is not None and config.replay and not recording
                     and not (tape_set.numerics_checks and tape_set.state.debug_checking))
        prepared = []

        def prepare():
            if not prepared:
                prepared.append(sweep.prune(self.tensor_tape, self.op_tape, target_ids))
                if not self.persistent:
                    # Backward functions not on the path die now; the needed ones are owned by the pruned ops.
                    self.op_tape = {}
            return prepared[0]
        if replaying:
            result = _replayer(self, prepare, target_ids, source_ids, sources_that_are_targets, output_gradients,
                               stats)
            if result is not None:
                return result
        ops, usage, missing = prepare()
        return sweep.backprop(ops, usage, missing, self.tensor_tape, target_ids, source_ids, output_gradients,
                              recording=recording, ones_for=sources_that_are_targets, release=not self.persistent,
                              stats=stats)

