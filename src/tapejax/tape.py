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

Deferred execution and replay (deferred/) sit above the tape and plug in through one registration
point, ``set_tape_type``: GradientTape makes its tapes with ``new_tape``, and deferred/ registers a
subclass that also keeps the step as data and may answer ``compute_gradient`` from a compiled program.
This module knows nothing of either.
"""
from __future__ import annotations

import weakref
from typing import Any, Dict, List, Optional, Sequence

from . import sweep, tape_set
from .tensor import Tensor, new_id

from jax.core import Tracer


class Entry:
    """A tape entry: the op's name (``op_type``), its outputs' ids (``out_ids``, a tuple of ints: what the
    sweep reads per op) and (shape, dtype, sharding) per output (``out_infos``, shared by all ops of one
    output signature), the ids of its inputs (``input_ids``) and its ``backward`` function."""

    __slots__ = ()

    @property
    def outputs(self) -> tuple:
        """((id, shape, dtype, sharding), ...) (built when asked)."""
        return tuple([(i,) + info for i, info in zip(self.out_ids, self.out_infos)])


class OpEntry(Entry):
    """A tape entry around a backward function that is not one (IdentityBackward, a custom gradient's,
    or a backward function a second tape records too)."""

    __slots__ = ("op_type", "out_ids", "out_infos", "input_ids", "backward")

    def __init__(self, op_type: str, out_ids: tuple, out_infos: tuple, input_ids: tuple, backward) -> None:
        self.op_type = op_type
        self.out_ids = out_ids
        self.out_infos = out_infos
        self.input_ids = input_ids
        self.backward = backward


class RecordedOp(Entry):
    """A backward function that is its own tape entry: the first tape recording it fills ``op_type``,
    ``out_ids``, ``out_infos`` and ``input_ids`` instead of allocating an OpEntry (one object per
    recorded op). The fields hold no new containers of objects, so the garbage collector stops tracking
    what an op adds besides the function itself. ``backward`` is the object itself; setting it to None
    (the sweep releasing a run op) drops the residuals, unless another tape records the same function
    (``shared``)."""

    __slots__ = ("op_type", "out_ids", "out_infos", "input_ids", "shared")

    @property
    def backward(self):
        return self

    @backward.setter
    def backward(self, value) -> None:
        if value is None and not self.shared:
            self.release()

    def release(self) -> None:
        raise NotImplementedError


_infos: Dict[tuple, tuple] = {}  # (shape, dtype, sharding) -> ((shape, dtype, sharding),), shared
_INFOS_MAX = 4096


def output_infos(v) -> tuple:
    """``((shape, dtype, sharding),)`` of one computed output, the same tuple for every output of that
    signature; the sharding is None for an array placed by default (uncommitted: the default device)."""
    if isinstance(v, Tracer):
        key = (v.shape, v.dtype, None)
    else:
        key = (v.shape, v.dtype, v.sharding if getattr(v, "_committed", True) else None)
    t = _infos.get(key)
    if t is None:
        if len(_infos) >= _INFOS_MAX:
            _infos.clear()
        t = _infos[key] = (key,)
    return t


class Tape:
    """The recording state of one GradientTape."""

    nesting_id = 0  # set by tape_set.push_tape

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self.persistent = persistent
        self.watch_accessed_variables = watch_accessed_variables
        self.tensor_tape: Dict[int, int] = {}
        self.tensor_usage: Dict[int, int] = {}
        self.op_tape: Dict[int, OpEntry] = {}  # op id (its first output's id: ids only grow) -> entry
        self.entries_recorded = 0
        self.watched_variables: Dict[int, Any] = {}  # handle id -> Variable, in order of watching
        self.paused = False
        self.last_replay = ""  # how the last backward pass ran (see deferred/replay.py)
        self._weak = weakref.ref(self)

    @property
    def recording(self) -> bool:
        return not self.paused

    # -- recording ------------------------------------------------------------------------------------
    def takes(self, ids: Sequence[int]) -> bool:
        """Whether this tape takes an op whose inputs have ``ids``: it records (not paused) and one of them is
        known to it (watched, or made by an op it took). record.recorders asks it."""
        if self.paused:
            return False
        tt = self.tensor_tape
        for i in ids:
            if i in tt:
                return True
        return False

    def watch(self, tensor_id: int) -> None:
        self.tensor_tape.setdefault(tensor_id, -1)

    def watch_variable(self, var) -> bool:
        """Watch a Variable's handle; True when it was not watched yet."""
        h = var.id
        if h in self.watched_variables:
            return False
        self.watched_variables[h] = var
        self.tensor_tape.setdefault(h, -1)
        return True

    def variables_by_creation(self) -> tuple:
        """The watched Variables in order of creation, as TF (handle ids come from a process-wide
        counter at creation, so they sort in that order)."""
        return tuple(v for _, v in sorted(self.watched_variables.items(), key=lambda kv: kv[0]))

    def record_read(self, handle_id: int, t: Tensor, backward) -> None:
        """Record ``t = read(variable)`` (an identity from the variable's handle)."""
        self.record_operation("ReadVariable", (t,), (handle_id,), backward)

    def finish(self) -> None:
        """A non-persistent tape after its gradient: forget everything; tensors dying later cost nothing."""
        self.op_tape = {}
        self.tensor_tape = {}
        self.tensor_usage = {}

    def record_operation(self, op_type: str, outputs: Sequence[Tensor], input_ids: Sequence[int], backward,
                         infos: Optional[tuple] = None) -> None:
        """Record one op: its outputs, the ids of its inputs, its backward function.

        ``infos`` is given for outputs not computed yet (deferred/lazy.py): each output's (shape, dtype,
        sharding); those outputs are new tensors. Without it the outputs' values are at hand."""
        usage = self.tensor_usage
        for i in input_ids:
            usage[i] = usage.get(i, 0) + 1
        self.entries_recorded += 1
        # The op's id is its first output's: unique and in recording order (tensor ids only grow), and the
        # same int object as the tensor's id (nothing allocated). A tensor recorded as the output of a
        # second op gets that op a fresh id.
        op_id = outputs[0]._id if outputs else new_id()
        if op_id in self.op_tape:
            op_id = new_id()
        tt = self.tensor_tape
        weak = self._weak
        if len(outputs) == 1:  # (the common case: no intermediate list)
            o = outputs[0]
            oid = o._id
            tt[oid] = op_id
            usage[oid] = 1
            out_ids = (oid,)
            if infos is None:
                o._track(weak)  # (it may be tracked by another tape already)
                infos = output_infos(o._value)
            else:  # a new tensor (deferred/lazy.py)
                o._trackers = weak
        else:
            out_ids = []
            for o in outputs:
                oid = o._id
                tt[oid] = op_id
                usage[oid] = 1
                out_ids.append(oid)
                if infos is None:
                    o._track(weak)
                else:
                    o._trackers = weak
            out_ids = tuple(out_ids)
            if infos is None:
                infos = tuple([output_infos(o._value)[0] for o in outputs])
        input_ids = tuple(input_ids)
        if isinstance(backward, RecordedOp):
            if backward.out_ids is None:  # the first tape to record it: it is the entry
                backward.op_type, backward.out_ids, backward.out_infos = op_type, out_ids, infos
                backward.input_ids = input_ids
                self.op_tape[op_id] = backward
                return
            backward.shared = True  # another tape has it: releasing it there must not drop its residuals
        self.op_tape[op_id] = OpEntry(op_type, out_ids, infos, input_ids, backward)

    def delete_trace(self, tensor_id: int) -> None:
        """A tensor died: free the ops that nothing can reach any more (iteratively, no recursion limit)."""
        usage = self.tensor_usage
        n = usage.get(tensor_id)
        if n is None:
            return
        if n > 1:  # (the common case: an op recorded on the tape still uses it)
            usage[tensor_id] = n - 1
            return
        stack = [tensor_id]
        tt, ops = self.tensor_tape, self.op_tape
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
            if any(i in usage for i in entry.out_ids):  # (rare: usage counts stay above 1 mostly)
                continue  # another output of the op is still in use
            del ops[op_id]
            stack.extend(entry.input_ids)

    _tensor_died = delete_trace  # (what a dying Tensor calls: one call, it runs for every recorded tensor)

    # -- the gradient algorithm ---------------------------------------------------------------------------
    def prune(self, target_ids: Sequence[int]) -> tuple:
        """sweep.prune of the tape to the ops leading to the targets. A non-persistent tape forgets the
        rest now: backward functions not on the path die, the needed ones are owned by the pruned ops."""
        pruned = sweep.prune(self.tensor_tape, self.op_tape, target_ids)
        if not self.persistent:
            self.op_tape = {}
        return pruned

    def sweep(self, pruned: tuple, target_ids: Sequence[int], source_ids: Sequence[int],
              sources_that_are_targets: Dict[int, Any], output_gradients: Sequence[Any], recording: bool,
              stats: sweep.GradientStats) -> List[Any]:
        """The reverse sweep over the pruned tape (``prune``'s answer)."""
        ops, usage, missing = pruned
        return sweep.backprop(ops, usage, missing, self.tensor_tape, target_ids, source_ids, output_gradients,
                              recording=recording, ones_for=sources_that_are_targets, release=not self.persistent,
                              stats=stats)

    def compute_gradient(self, target_ids: Sequence[int], source_ids: Sequence[int],
                         sources_that_are_targets: Dict[int, Any], output_gradients: Sequence[Any],
                         recording: bool, stats: sweep.GradientStats) -> List[Any]:
        """Gradients (raw arrays, or Tensors when ``recording``) of the targets w.r.t. the sources."""
        return self.sweep(self.prune(target_ids), target_ids, source_ids, sources_that_are_targets,
                          output_gradients, recording, stats)


# The registration point for the layer above (deferred/): the type of the tapes GradientTape makes.
_tape_type = Tape


def set_tape_type(tape_type: type) -> None:
    """Make ``new_tape`` build ``tape_type`` (a subclass of Tape)."""
    global _tape_type
    if not issubclass(tape_type, Tape):
        raise TypeError(f"set_tape_type: {tape_type!r} is not a subclass of tapejax.tape.Tape")
    _tape_type = tape_type


def new_tape(persistent: bool = False, watch_accessed_variables: bool = True) -> Tape:
    """A tape of the registered type (``Tape`` unless deferred/ registered its subclass)."""
    return _tape_type(persistent, watch_accessed_variables)
