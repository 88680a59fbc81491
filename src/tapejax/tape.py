"""The tape: recording ops and freeing what nothing can reach. The gradient algorithm over it (prune,
then the reverse sweep) is sweep.py's.

Terminology (as in TensorFlow's tape.h, which this ports):

* op      an entry on the tape: the op's name, its output tensors (id, shape, dtype), the ids of its
          float inputs and a backward function holding the residuals.
* target  what is differentiated (the ``y`` in dy/dx); source: what it is differentiated with respect
          to (the ``x``).
* ``op_tape`` maps an op id (its first output's id) to the op's entry (an OpTable: op_table.py keeps an
  entry that this tape alone has in a list slot, its ids relative to the op's); ``tensor_tape`` maps the other
  tensors the tape knows to the op that made them (-1 for watched tensors and variable handles): an
  op's later outputs, a tensor a second op recorded as its output (sweep.py's Terminology: ``producer``,
  ``knows``). A single-output op costs no ``tensor_tape`` entry.
* ``tensor_usage`` counts, for each tensor an op on the tape made, one for the tensor being alive plus
  one per recorded op using it; a count of 1 (alive and unused, or dead and used once: most tensors) is
  no entry. When a Tensor dies its count drops; at zero its producing op is dropped if none of that op's
  outputs is still counted, and the drop cascades to the op's inputs (a dead first output of an op kept
  for its other outputs is a 0 entry, a dead later output leaves ``tensor_tape``). Tensors the tape did
  not make (watched, constants) are not counted: nothing is freed through them.

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
from .op_table import OpTable
from .tensor import ArrayImpl, Tensor, is_float, new_id

from jax.core import Tracer


def _compact(ids: Optional[tuple]):
    """A tuple of ids as an entry keeps it: one id as the int itself (no tuple, 48 bytes, per op), None and
    other tuples as they are."""
    return ids[0] if ids is not None and len(ids) == 1 else ids


class Entry:
    """A tape entry: the op's name (``op_type``), its outputs' ids (``out_ids``, a tuple of ints) and
    (shape, dtype, sharding) per output (``out_infos``, shared by all ops of one output signature), the ids
    of its inputs (``input_ids``) and its ``backward`` function; calling the entry calls that function.
    The ids are kept compact (``outs``, ``ins``: a single id as the int itself, else a tuple), which the
    sweep reads directly (it reads both per op); ``out_ids`` and ``input_ids`` read them back as tuples."""

    __slots__ = ("outs", "ins")

    @property
    def out_ids(self) -> tuple:
        o = self.outs
        return (o,) if type(o) is int else o

    @out_ids.setter
    def out_ids(self, ids) -> None:
        self.outs = _compact(ids)

    @property
    def input_ids(self) -> tuple:
        i = self.ins
        return (i,) if type(i) is int else i

    @input_ids.setter
    def input_ids(self, ids) -> None:
        self.ins = _compact(ids)

    @property
    def outputs(self) -> tuple:
        """((id, shape, dtype, sharding), ...) (built when asked)."""
        return tuple([(i,) + info for i, info in zip(self.out_ids, self.out_infos)])


class OpEntry(Entry):
    """A tape entry around a backward function that is not one (IdentityBackward, a custom gradient's)."""

    __slots__ = ("op_type", "out_infos", "backward")

    def __init__(self, op_type: str, out_ids: tuple, out_infos: tuple, input_ids: tuple, backward) -> None:
        self.op_type = op_type
        self.outs = _compact(out_ids)
        self.out_infos = out_infos
        self.ins = _compact(input_ids)
        self.backward = backward

    def __call__(self, out_grads: list, needed_idx, recording: bool) -> list:
        return self.backward(out_grads, needed_idx, recording)


class RecordedOp(Entry):
    """A backward function that is its own tape entry: the tape recording it fills ``out_ids`` and
    ``input_ids`` instead of allocating an OpEntry (one object per recorded op). Its ``op_type`` and
    ``out_infos`` are its own (a subclass derives them from what all ops of its kind share: no field per
    op). The fields hold no new containers of objects, so the garbage collector stops tracking what an op
    adds besides the function itself; a single id is kept as the int (``outs``, ``ins``), read back as a
    tuple. While an entry sits in its tape's op table list those ids are relative to its op id
    (op_table.py); read through the table they are absolute. ``backward`` is the object itself; setting it
    to None (the sweep releasing a run op) drops the residuals, unless several tapes record the same
    function (``share``: it is then an entry of each, with absolute ids, and costs no field per op)."""

    __slots__ = ()
    shared = False  # True once several tapes record it (``share``)

    @property
    def backward(self):
        return self

    @backward.setter
    def backward(self, value) -> None:
        if value is None and not self.shared:
            self.release()

    def share(self, out_ids: tuple, input_ids: tuple) -> None:
        """Several tapes record it (record.record_operation, before any of them): its ids are absolute, and
        releasing it on one tape keeps its residuals. The object becomes an instance of its class's shared
        twin (same fields, ``shared`` True)."""
        self.out_ids = out_ids
        self.input_ids = input_ids
        cls = type(self)
        twin = _shared_twins.get(cls)
        if twin is None:
            twin = _shared_twins[cls] = type(cls.__name__, (cls,), {"__slots__": (), "shared": True,
                                                                   "__module__": cls.__module__})
        self.__class__ = twin

    def release(self) -> None:
        raise NotImplementedError


_shared_twins: Dict[type, type] = {}  # a RecordedOp class -> its subclass whose instances two tapes record


_infos: Dict[tuple, tuple] = {}  # (shape, dtype, sharding) -> ((shape, dtype, sharding),), shared
_INFOS_MAX = 4096


def output_infos(v) -> tuple:
    """``((shape, dtype, sharding),)`` of one computed output, the same tuple for every output of that
    signature; the sharding is None for an array placed by default (uncommitted: the default device)."""
    if isinstance(v, Tracer):
        key = (v.shape, v.dtype, None)
    elif type(v) is ArrayImpl:  # (its ``aval`` is cheaper than its ``shape`` and ``dtype`` properties)
        av = v.aval
        key = (av.shape, av.dtype, v.sharding if v._committed else None)
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
        self.tensor_tape: Dict[int, int] = {}  # tensor id -> its op's id, where that op is not keyed by it
        self.tensor_usage: Dict[int, int] = {}  # tensor id -> its count, where that is not 1
        self.op_tape = OpTable()  # op id (its first output's id: ids only grow) -> entry
        self.entries_recorded = 0
        self.watched_variables: Dict[int, Any] = {}  # handle id -> Variable, in order of watching
        self.paused = False
        self.last_replay = ""  # how the last backward pass ran (see deferred/replay.py)
        self._weak = weakref.ref(self)

    @property
    def recording(self) -> bool:
        return not self.paused

    # -- what the tape knows ----------------------------------------------------------------------------
    def producer(self, tensor_id: int) -> Optional[int]:
        """The id of the op on the tape that made the tensor, -1 when it is watched, None when the tape does
        not know it."""
        return sweep.producer(self.tensor_tape, self.op_tape, tensor_id)

    def knows(self, tensor_id: int) -> bool:
        """Whether the tensor is watched or made by an op on the tape."""
        return sweep.knows(self.tensor_tape, self.op_tape, tensor_id)

    def watched_ids(self) -> list:
        """The ids of the watched tensors and variable handles, in order of watching."""
        return [i for i, op_id in self.tensor_tape.items() if op_id == -1]

    # -- recording ------------------------------------------------------------------------------------
    def takes(self, ids: Sequence[int]) -> bool:
        """Whether this tape takes an op whose inputs have ``ids``: it records (not paused) and one of them is
        known to it (watched, or made by an op it took). record.recorders asks it."""
        if self.paused:
            return False
        ops = self.op_tape
        slots, base = ops.slots, ops.base
        n = len(slots)
        for i in ids:  # (knows, inline: this runs for every op)
            k = i - base
            if (0 <= k < n and slots[k] is not None) or i in self.tensor_tape or i in ops.bound:
                return True
        return False

    def watch(self, tensor_id: int) -> None:
        self._watch_id(tensor_id)

    def watch_variable(self, var) -> bool:
        """Watch a Variable's handle; True when it was not watched yet."""
        h = var.id
        if h in self.watched_variables:
            return False
        self.watched_variables[h] = var
        self._watch_id(h)
        return True

    def _watch_id(self, tensor_id: int) -> None:
        if not self.knows(tensor_id):  # (a tensor an op on the tape made stays that op's)
            self.tensor_tape[tensor_id] = -1

    def variables_by_creation(self) -> tuple:
        """The watched Variables in order of creation, as TF (handle ids come from a process-wide
        counter at creation, so they sort in that order)."""
        return tuple([v for _, v in sorted(self.watched_variables.items())])  # (ids are distinct: never compares v)

    def record_read(self, handle_id: int, t: Tensor, backward) -> None:
        """Record ``t = read(variable)`` (an identity from the variable's handle)."""
        self.record_operation("ReadVariable", (t,), (handle_id,), backward)

    def read_variable(self, var, t: Tensor, backward) -> None:
        """``var`` was read as the new tensor ``t`` while this tape is the only recorder: what
        record.watch_read_variables, record.recorders and ``record_read`` do for it, in one call (every
        Variable read under a tape comes here). Watched when this tape watches accessed variables (as
        TF, also a non-float one), recorded when watched and float."""
        if self.paused:
            return
        h = var._handle_id
        if self.watch_accessed_variables and h not in self.watched_variables and var.trainable:
            self.watch_variable(var)
        if is_float(t._value.dtype) and self.takes((h,)):
            self.record_read(h, t, backward)

    def finish(self) -> None:
        """A non-persistent tape after its gradient: forget everything; tensors dying later cost nothing."""
        self.op_tape = OpTable()
        self.tensor_tape = {}
        self.tensor_usage = {}

    def record_new(self, output: Tensor, input_ids: tuple, entry: RecordedOp) -> None:
        """``record_operation(entry.op_type, (output,), input_ids, entry, entry.out_infos)`` for an op of one new
        output (an op that just ran, or a deferred op's pending result): ``output`` a Tensor made after every op
        on the tape; ``entry`` its backward function, made for this tape alone. The common case (every op a tape
        records as it runs) in fewer steps."""
        ops = self.op_tape
        slots = ops.slots
        n_slots = len(slots)
        op_id = output._id
        n_in = len(input_ids)
        if op_id - ops.base != n_slots or not 0 < n_in < 3:  # (not the list's next slot, or no input: the long way)
            self.record_operation(entry.op_type, (output,), input_ids, entry, entry.out_infos)
            return
        self._count_uses(input_ids, ops, n_slots)
        self.entries_recorded += 1
        output._trackers = self._weak  # (a new tensor: no other tape tracks it)
        slots.append(entry)
        entry.outs = 0
        entry.ins = op_id - input_ids[0] if n_in == 1 else (op_id - input_ids[0], op_id - input_ids[1])

    def _count_uses(self, input_ids: Sequence[int], ops: OpTable, n_slots: int) -> None:
        """One more recorded use of each input the tape knows (``tensor_usage``: no entry is a count of 1).
        ``ops`` is the tape's op table, ``n_slots`` the length of its list (the callers have it at hand)."""
        usage, tt = self.tensor_usage, self.tensor_tape
        slots, base = ops.slots, ops.base
        for i in input_ids:
            n = usage.get(i)
            if n is None:  # a count of 1, if the tape made it
                k = i - base
                # (producer(i) is an op, inline: this runs for every op)
                if (0 <= k < n_slots and slots[k] is not None) or tt.get(i, -1) != -1 or i in ops.bound:
                    usage[i] = 2
            elif n:
                usage[i] = n + 1
            else:  # a dead first output an op is kept for (used again by a backward pass): now 1
                del usage[i]

    def record_operation(self, op_type: str, outputs: Sequence[Tensor], input_ids: Sequence[int], backward,
                         infos: Optional[tuple] = None) -> None:
        """Record one op: its outputs, the ids of its inputs, its backward function.

        ``infos`` is given for new tensors (a deferred op's outputs, not computed yet: deferred/lazy.py; the
        one output of an op that just ran, on the only tape recording it: ops/core.py): each output's
        (shape, dtype, sharding). Without it the outputs' values are at hand."""
        ops, tt = self.op_tape, self.tensor_tape
        slots, base = ops.slots, ops.base
        n_slots = len(slots)
        self._count_uses(input_ids, ops, n_slots)
        self.entries_recorded += 1
        # The op's id is its first output's: unique and in recording order (tensor ids only grow), and the
        # same int object as the tensor's id (nothing allocated). A tensor recorded as the output of a
        # second op gets that op a fresh id.
        op_id = outputs[0]._id if outputs else new_id()
        k = op_id - base  # (its slot, if it takes the list's next one)
        if (0 <= k < n_slots and slots[k] is not None) or op_id in ops.bound:  # (op_id in ops, inline)
            op_id = new_id()
            k = -1
        weak = self._weak
        if len(outputs) == 1:  # (the common case: no intermediate list)
            o = outputs[0]
            oid = o._id
            if infos is None:
                if oid != op_id:
                    tt[oid] = op_id
                elif oid in tt:  # (watched, or another op's later output, before)
                    del tt[oid]
                o._track(weak)  # (it may be tracked by another tape already)
                infos = output_infos(o._value)
            else:  # a new tensor (deferred/lazy.py): its op is keyed by its id, its count is 1
                o._trackers = weak
            out_ids = (oid,)
        else:
            out_ids = []
            for o in outputs:
                oid = o._id
                if oid != op_id:
                    tt[oid] = op_id
                elif oid in tt:
                    del tt[oid]
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
            if backward.shared:  # several tapes record it (record.record_operation): its ids are absolute
                ops[op_id] = backward
                return
            if backward.outs is not None:
                raise RuntimeError(f"tapejax internal error: op '{op_type}' is recorded by a second tape after "
                                   "the first (tapes recording the same op record it together)")
            entry = backward  # this tape alone: it is the entry
        else:
            entry = OpEntry(op_type, (), infos, (), backward)  # (its ids: set below, relative)
        n_in = len(input_ids)
        if k == n_slots and len(out_ids) == 1 and 0 < n_in < 3:
            # (OpTable.add, inline for the common case: the next slot, one output, one or two inputs; an
            # empty list's base is that of an op gone, never this one's id)
            slots.append(entry)
            entry.outs = op_id - out_ids[0]
            entry.ins = op_id - input_ids[0] if n_in == 1 else (op_id - input_ids[0], op_id - input_ids[1])
        else:
            ops.add(op_id, entry, out_ids, input_ids)

    def delete_trace(self, tensor_id: int) -> None:
        """A tensor died: free the ops that nothing can reach any more (iteratively, no recursion limit)."""
        usage = self.tensor_usage
        n = usage.get(tensor_id)
        if n is not None:  # (the common case: an op recorded on the tape still uses it)
            if n > 2:
                usage[tensor_id] = n - 1
            elif n == 2:
                del usage[tensor_id]  # (a count of 1)
            return
        # Its count was 1 (if the tape made it): now 0.
        stack = [tensor_id]
        tt, ops = self.tensor_tape, self.op_tape
        while stack:
            tid = stack.pop()
            op_id = sweep.producer(tt, ops, tid)
            if op_id is None or op_id == -1:
                continue  # not made by an op on the tape (unknown, or watched: watched tensors stay)
            out_ids, in_ids = ops.ids(op_id)
            if tid != op_id:
                del tt[tid]  # (a later output of its op: dead and unused, it leaves the tape)
            if len(out_ids) > 1 and any(sweep.producer(tt, ops, o) == op_id and usage.get(o, 1)
                                        for o in out_ids if o != tid):
                if tid == op_id:
                    usage[tid] = 0  # (its op stays, keyed by its id: the count says it is dead and unused)
                continue  # another output of the op is still counted
            del ops[op_id]
            if usage.get(op_id) == 0:
                del usage[op_id]
            for i in in_ids:
                n = usage.get(i)
                if n is None:
                    stack.append(i)  # (a count of 1 now 0, if the tape made it)
                elif n > 2:
                    usage[i] = n - 1
                elif n == 2:
                    del usage[i]

    _tensor_died = delete_trace  # (what a dying Tensor calls: one call, it runs for every recorded tensor)

    # -- the gradient algorithm ---------------------------------------------------------------------------
    def prune(self, target_ids: Sequence[int]) -> tuple:
        """sweep.prune of the tape to the ops leading to the targets. A non-persistent tape forgets the
        rest now: backward functions not on the path die, the needed ones are owned by the pruned ops."""
        if self.persistent:
            return sweep.prune(self.tensor_tape, self.op_tape, target_ids)
        pruned = sweep.prune(self.tensor_tape, self.op_tape, target_ids, take=self.op_tape.pop)
        self.op_tape = OpTable()
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
