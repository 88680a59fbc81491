"""Deferred execution of the ops a tape records.

While exactly one GradientTape records (no accumulator, no tj.function trace), an op whose arguments
are all plain device arrays on the default device does not run its kernel: its output is a
``LazyTensor`` whose shape and dtype are known at once (``jax.eval_shape`` of the op's kernel, cached
per op, static parameters and argument types, so shape and dtype errors still raise at the call) and
whose value is computed when first asked for. Because jax arrays are immutable, computing later gives
exactly the value computing now would have.

A value is asked for by anything that reads ``tensor.value`` (printing, ``numpy()``, an op outside the
tape, a Variable assign). Then the pending ops it depends on run one by one, each with the same kernel
as eager execution (``materialize``). At ``gradient`` time the replay (deferred/replay.py) instead runs the
pending forward ops and the backward pass of a recurring tape as one compiled program: a training step
becomes one dispatch, the targets' values coming back with the gradients.
"""
from __future__ import annotations

import operator
import threading
import weakref
from typing import Any, Dict, List, Optional, Tuple

import jax

from .. import record as record_module, tape_set
from ..config import config
from ..ops.core import BackwardFunction, OpDef, as_tuple, rules_epoch, set_deferral, static_key
from ..tensor import (ID_BLOCK, ArrayImpl, LazyTensor, Tensor, is_float, make_value_pending, next_id, pending_value,
                      set_lazy_assignment, settle_pending_value)
from . import ahead

_lock = threading.RLock()
_next_seq = iter(range(1, 1 << 62)).__next__
_NO_RES = object()  # residuals not computed (``None`` is a valid residual)


class OpType:
    """What one op produces for one set of static parameters and argument types: the kernels, the
    differentiable argument positions, the output abstract values and the tape's output records."""

    __slots__ = ("op", "static", "kernels", "diff", "avals", "multi", "spec", "infos", "uid", "epoch", "family")

    def __init__(self, op: OpDef, static: dict, kernels, diff: tuple, avals: tuple, multi: bool) -> None:
        self.op, self.static = op, static
        self.epoch = rules_epoch()  # (part of the key it is cached under)
        self.kernels = kernels
        self.diff = diff
        self.avals = avals
        self.multi = multi
        self.spec = (multi, tuple((a.shape, a.dtype, is_float(a.dtype)) for a in avals))
        self.infos = tuple((a.shape, a.dtype, None) for a in avals)  # (shape, dtype, sharding) per output
        self.uid = _next_seq()  # what step-record tokens name it by: an int keeps them untracked by gc
        # The op alone, not its arguments' types nor its static parameters (a slice's bounds, a reshape's shape
        # follow the batch's size): steps alike but for their shapes, or for how many times each op runs (a
        # recurrent net over sequences of many lengths), have the same set of families (replay.py counts the
        # shapes of a step it compiles)
        self.family = op


_TYPES_MAX = 1024  # OpTypes kept per op (a bound: each new shape or static parameter adds one)


def op_type(op, static: dict, tensor_mask: int, avals: list):
    """The cached OpType of ``op`` with ``static`` on arguments of abstract values ``avals`` (bit i of
    ``tensor_mask`` set when argument i is a Tensor); None when the op cannot be deferred (JAX cannot
    differentiate it: it must run now so that only asking for a gradient fails). A shape or dtype error
    raises here, as the eager call would."""
    types = op.op_types
    e = rules_epoch()
    key = (e, tensor_mask, *avals) if not static else (e, tensor_mask, *avals, static_key(static))
    t = types.get(key)
    if t is not None:
        return t or None
    kernels = op.kernels(static)
    diff = tuple(i for i, a in enumerate(avals) if (tensor_mask >> i) & 1 and is_float(a.dtype))
    structs = [jax.ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in avals]
    try:  # (the trace of the kernel that computes the op when it runs: jax keeps it for that call)
        out = kernels.run_forward_kept(diff, structs, call=jax.eval_shape)[0]
    except Exception:
        jax.eval_shape(kernels.forward, *structs)  # a user error raises here, as the eager call would
        t = False  # JAX cannot differentiate it (a callback...): it runs now, as in eager mode
    else:
        multi = isinstance(out, (tuple, list))
        outs = tuple(out) if multi else (out,)
        t = OpType(op, static, kernels, diff,
                   tuple(jax.core.ShapedArray(o.shape, o.dtype, weak_type=o.weak_type) for o in outs), multi)
    if len(types) >= _TYPES_MAX:
        types.clear()
    types[key] = t
    return t or None


_scalar_avals: Dict[type, Any] = {}


def replay_capacity() -> int:
    """The most ops a replayed step may have (XLA's compile time grows fast with more): the one reading
    of ``tj.config.replay_max_ops``, for deferring (``StepRecord.capacity``) and replaying."""
    return config.replay_max_ops


def over_replay_limit(n_ops: int) -> bool:
    """A step of ``n_ops`` ops is never replayed."""
    return n_ops > replay_capacity()


def scalar_aval(x):
    """The abstract value of a Python scalar argument (weakly typed, as jit sees it)."""
    t = type(x)
    av = _scalar_avals.get(t)
    if av is None:
        av = _scalar_avals[t] = jax.typeof(x)
    return av


class Node(BackwardFunction):
    """One deferred op: its kernels and arguments until it has run. When a tape records it, it is also
    the op's backward function and tape entry (one object per op): its residuals come from running it.
    Its op, static parameters, ``diff`` and ``spec`` are its op type's.

    Each argument (in BackwardFunction's slots: no list per op) is a device array or Python scalar, the
    producing Node of a pending single-output op (its output 0: the producer's LazyTensor itself need
    not stay alive, so an intermediate result dies as soon as the user drops it), or the LazyTensor of
    another output of a multi-output op. ``seq`` is the id of its first output: ids only grow, so it
    orders nodes as they were made."""

    __slots__ = ("type", "values", "seq", "record_uid", "step", "res_pending", "epoch", "plan")

    def __init__(self, type_: OpType, args: list, recorded: bool, input_ids: tuple = ()) -> None:
        self.type = type_
        self.stored = _NO_RES
        self.plan = None
        self.set_args(args)
        self.epoch = type_.epoch
        self.outs = None  # (a tape recording it fills the entry's fields: tape.RecordedOp)
        self.ins = input_ids  # (as given: the tape recording it keeps them compacted)
        self.res_pending = recorded  # its residuals come from running it (``node`` is itself until taken)
        # Its output once run: the array itself for a single-output op (no tuple per op for the garbage
        # collector to track), a tuple of them for a multi-output op.
        self.values: Any = None
        self.seq = 0  # (set by defer: the id of its first output)
        self.record_uid = 0  # the uid of the StepRecord that lists it
        self.step = None  # a weak reference to the pending replay step (deferred/pending.py) computing its value

    # BackwardFunction's fields, from the op type and the node's own state
    op = property(operator.attrgetter("type.op"))  # (getters in C: see OpBackward's)
    static = property(operator.attrgetter("type.static"))
    diff = property(operator.attrgetter("type.diff"))
    spec = property(operator.attrgetter("type.spec"))
    kernels = property(operator.attrgetter("type.kernels"))

    @property
    def recorded(self) -> bool:
        """Whether a tape records it (which then keeps its entry's fields in it)."""
        return self.outs is not None

    @property
    def node(self):
        return self if self.res_pending else None

    @node.setter
    def node(self, value) -> None:
        self.res_pending = value is not None

    @property
    def inputs(self) -> Optional[list]:
        return self.raw

    def raw_inputs(self) -> list:
        return [arg_value(r) for r in self.args()]

    def share(self) -> None:
        raise RuntimeError("tapejax internal error: a deferred op is recorded by its one tape only (defer runs "
                           "while exactly one tape records), yet a second tape records it")

    def release(self) -> None:
        self.res_pending = False
        if self.values is None:
            # Not run yet (no gradient reached it: an output with no path to the sources): its arguments still
            # make its value, which may be read after the gradient.
            return
        super().release()

    @property
    def raw(self) -> Optional[list]:
        """The arguments as the op got them (a pending argument as a LazyTensor standing for its
        producer's output); None once they are let go."""
        if self.n_args < 0:
            return None
        return [LazyTensor.of_node(r.seq, r, 0, r.type.avals[0]) if type(r) is Node else r for r in self.args()]

    def set_values(self, values, raw: list) -> None:
        """Its output (``values`` as ``self.values`` holds it), from running it op by op on the arguments'
        values ``raw``. A recorded op keeps those for its backward (a higher-order one too, until released),
        each the backward never reads as its abstract value, as a strictly eager op one tape records keeps
        them: it holds no producer node, whose output may then go (``settle_too_long``)."""
        self.values = values
        if not self.recorded:
            self.set_args(None)
            return
        plan = self.plan
        self.set_args(plan.trim(raw) if plan is not None and plan.trims else raw)

    def settle(self, values: tuple) -> None:
        """Its values, from a replayed step's program, which also ran its tape's backward pass: nothing will
        ask for its arguments or residuals again (a loss held unread keeps only its value, not its step)."""
        self.values = values if self.type.multi else values[0]
        self.res_pending = False
        self.set_args(None)

    def compute(self) -> None:
        """Run this op (and the pending ones it reads): what a LazyTensor asks when its value is read. A
        value that a pending replayed step exports comes from running that step."""
        ref = self.step
        step = ref() if ref is not None else None
        if step is not None:
            if step.exports(self):
                if step.exported_from_launch() and self.values is not None:
                    return  # (read before the step's update: from the update's call made ahead)
                step.compute()
                if self.values is not None:
                    return
            else:  # (a value its program does not return: op by op now, returned by the next one)
                step.want(self)
        materialize(self)

    def residuals(self):
        """The residuals of this recorded op (running it first if needed)."""
        self.run_if_pending()
        return self.res

    def run_if_pending(self) -> None:
        if self.res_pending:
            if self.values is None:
                materialize(self)
            self.res_pending = False

    def kernel_args(self) -> tuple:
        """The arguments' values; with a residual plan, those the backward never reads as their abstract
        values (``_ResidualPlan.trim``), as a strictly eager op one tape records keeps them."""
        raw = self.raw_inputs()
        plan = self.plan
        return tuple(plan.trim(raw) if plan is not None and plan.trims else raw)


def producer(r) -> Optional[tuple]:
    """``(node, output index)`` that makes argument ``r`` of a node; None for a concrete value."""
    t = type(r)
    if t is Node:
        return r, 0
    if t is LazyTensor and r._node is not None:
        return r._node, r._index
    return None


def arg_value(r):
    """The value of argument ``r`` of a node (computing its producer if needed)."""
    t = type(r)
    if t is Node:
        if r.values is None:
            r.compute()
        v = r.values
        return v[0] if type(v) is tuple else v  # (output 0 of a multi-output op, or the single output)
    if t is LazyTensor:
        return r._value
    return r


def pending_ancestors(nodes) -> List[Node]:
    """The not yet computed nodes ``nodes`` depend on (themselves included), oldest first."""
    seen: Dict[int, Node] = {}
    stack = [n for n in nodes if n.values is None]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen[id(n)] = n
        for r in n.args():
            src = producer(r)
            if src is not None and src[0].values is None and id(src[0]) not in seen:
                stack.append(src[0])
    return sorted(seen.values(), key=lambda n: n.seq)




def settle_too_long(tape, nodes: List[Node]) -> None:
    """Run the pending ops of a step that grew past tj.config.replay_max_ops (``nodes``: its deferred ops, in
    order) and let go of each output nothing can read any more, as a strictly eager tape holds no output
    nobody reads: that of a recorded single-output op whose tensor is dead and whose every use is by an op
    in ``nodes`` (which ran now, keeping what its backward reads and not its producer: ``set_values``). The
    tape's count of such an output (tape.py: one for the tensor alive, one per recorded op using it) equals
    its uses by the recorded ops in ``nodes``; a live tensor or a use elsewhere counts one more."""
    uses: Dict[int, int] = {}
    for n in nodes:
        if n.values is None and n.recorded:
            args = n.args()
            for d in n.type.diff:
                if type(args[d]) is Node:  # (output 0 of a pending single- or multi-output producer)
                    uses[id(args[d])] = uses.get(id(args[d]), 0) + 1
    pending = [n for n in nodes if n.values is None]
    _run_all(pending)
    counts = tape.tensor_usage
    for n in pending:
        if n.recorded and not n.type.multi and n.values is not None and counts.get(n.seq, 1) == uses.get(id(n), 0):
            n.values = None  # (nothing can ask for it: no tensor, no pending op holds the node)
            n.res_pending = False  # its residuals are its own now (``stored``, the arguments it kept)


def materialize(node: Node) -> None:
    """Run ``node`` and the pending nodes it depends on, one kernel each, oldest first (eager order)."""
    with _lock:
        _run_all(pending_ancestors([node]))


def _run_all(pending: List[Node]) -> None:
    """Run the nodes of ``pending`` not yet computed, oldest first, one kernel each."""
    with _lock:
        if not _run(pending):
            # Asked for while a jax transformation traces (a jitted function reading a pending tensor): the
            # kernels must run, not be staged into the caller's record. Only then: under
            # ensure_compile_time_eval, tracing a kernel folds its constants (each one an XLA program of its
            # own) and keys the kernel apart from the same kernel called elsewhere (traced and compiled twice).
            with jax.ensure_compile_time_eval():
                _run(pending)


def _run(pending: List[Node]) -> bool:
    """Run the nodes of ``pending`` not yet computed, oldest first; False (stopping there) when a kernel's
    result is a jax tracer: a transformation is tracing, and it staged the call instead of running it."""
    for n in pending:
        if n.values is not None:
            continue
        raw = n.raw_inputs()
        k = n.kernels
        if n.recorded:  # op_type() traced forward_res already: it differentiates
            # (the residuals as the op's backward keeps them: only those not among its arguments)
            out, stored, plan = k.run_forward_kept(n.diff, raw)
        else:
            out, stored, plan = k.forward(*raw), None, None
        if any(isinstance(o, jax.core.Tracer) for o in as_tuple(out)):
            return False
        if n.recorded:
            n.stored, n.plan = stored, plan
        n.set_values(as_tuple(out) if n.type.multi else out, raw)
    return True


class StepRecord:
    """What one GradientTape recorded, as data: a token per deferred op, variable read and watch, and
    the device arrays the deferred ops read (``leaves``, each once, in order of first use); the nodes whose
    values Variables were assigned (``assigned``, each with a token: a replayed program returns their values).

    Tensors are named relative to the record (``id - base`` for tensors made while it records, a
    first-use index for older ones; a deferred op's output by the step of ids from the op before it, and
    an input a deferred op of the record made by that op's first output id, counted back from the op
    before), so the tokens of two steps of a training loop are equal exactly when the two tapes have the
    same structure. replay.py keys compiled programs on them, which makes the per-step cost of finding the
    program a hash of the token list instead of a walk over the tape.
    Anything else recorded on the tape (an op that ran eagerly, a custom gradient) breaks the record:
    ``entries`` counts the tape entries the record describes, so the tape's own count of entries
    (``Tape.entries_recorded``) differing from it says something else was recorded (``describes``)."""

    __slots__ = ("uid", "base", "end", "last", "tokens", "count", "nodes", "leaves", "leaf_pos", "outer", "broken",
                 "too_long", "entries", "capacity", "leaves_at", "first_at", "n_first", "forecasts", "ahead_at",
                 "ahead", "assigned", "after")

    def __init__(self) -> None:
        self.uid = _next_seq()  # what its nodes keep (not the record itself: no reference cycle)
        self.base = self.last = next_id()  # (last: the first output id of the last deferred op)
        self.end = (self.base // ID_BLOCK + 1) * ID_BLOCK  # (the first id past this thread's)
        self.tokens: List[Any] = []  # the tokens one after the other, as atoms (no tuple per op)
        self.count = 0  # tokens in it
        self.nodes: List[Node] = []
        self.leaves: List[Any] = []
        self.leaf_pos: Dict[int, int] = {}
        self.outer: Dict[int, int] = {}
        self.broken = False
        self.too_long = False  # past tj.config.replay_max_ops: never replayed, so ops stop being deferred
        self.entries = 0
        # The most tokens a replayable step has (read once per step: this is checked at every op).
        self.capacity = replay_capacity()
        self.leaves_at = 0  # the token count once the op that read the last leaf so far is in
        self.first_at = self.n_first = 0  # the same for the first leaf, and how many leaves that op read
        # The fused calls the step may make (ahead.py), one per step structure forecast: the one whose tokens
        # the step's are so far is made when its ``at`` tokens are in (``ahead_at``, the next such count,
        # checked at every op), its Launch kept in ``ahead``.
        self.forecasts = ahead.forecasts() if config.replay_ahead else ()
        self.ahead_at = min([f.at for f in self.forecasts], default=-1)
        self.ahead: Optional[ahead.Launch] = None
        self.assigned: List[int] = []  # the nodes (indices in ``nodes``) whose value a Variable was assigned
        self.after = ahead.started(self.uid)  # the record of the tape started before this one (0: none)
        if self.forecasts and tape_set.current().capture is None:
            f = self.forecasts[-1]
            if f.again and f.uid == self.after and f.then is not None:
                # After two steps in a row of the latest forecast's program (a loop of that step): its call is
                # guessed now, as the tape starts (never in a tj.function trace, which calls no such program).
                self.launch_now(f)

    def launch_now(self, f: "ahead.Forecast") -> None:
        """Make forecast ``f``'s call on guessed leaves now, before any is read."""
        try:
            self.ahead = f.launch([])
        except Exception:  # (as in launch_ahead)
            self.ahead = None
        if self.ahead is not None:
            self.ahead_at = -1

    def ident(self, tid: int) -> int:
        """A tensor id in the record's naming: >= 0 for tensors its thread made after the record began (ids
        are numbered per thread: one another thread made, a loader's batch, is named as one from before)."""
        if self.base < tid < self.end:
            return tid - self.base
        k = self.outer.get(tid)
        if k is None:
            k = self.outer[tid] = len(self.outer)
        return -1 - k

    def add_leaf(self, array) -> int:
        k = self.leaf_pos[id(array)] = len(self.leaves)
        self.leaves.append(array)
        at = self.leaves_at = self.count + 1  # (the op reading it is added next)
        if k == 0:
            self.first_at = at
        if at == self.first_at:
            self.n_first = k + 1
        return k

    def launch_ahead(self) -> None:
        """The forecast call, made now if the step so far is one forecast to reach ``ahead_at`` tokens
        with every leaf it reads known then. A launch that fails is no launch: the step goes on."""
        count, n = self.count, len(self.tokens)
        tokens = None
        for f in reversed(self.forecasts):  # (the latest first: of two programs of a structure, the one in use)
            if f.at != count or len(self.leaves) != f.n_leaves or n > len(f.tokens):
                continue
            if tokens is None:
                tokens = tuple(self.tokens)
            if tokens == f.tokens[:n]:
                try:
                    self.ahead = f.launch(self.leaves)
                except Exception:  # (the step's own fused call raises it again, or the step goes another way)
                    self.ahead = None
                if self.ahead is not None:
                    self.ahead_at = -1
                    return
                if f.then is not None:  # (a guess that did not hold: launch later)
                    self.forecasts = [f.then if g is f else g for g in self.forecasts]
                # (else another program's forecast, of a model of the same structure: the next one may be this step's)
        self.ahead_at = min([f.at for f in self.forecasts if f.at > count], default=-1)

    def add(self, token: tuple) -> None:
        """Add a token (a tuple of atoms: a str tag first, or for a deferred op its type's int uid, which fixes
        its length, so that the flat list reads back one way only)."""
        self.tokens += token
        self.count += 1

    def break_(self) -> None:
        """Something the record cannot describe was recorded: forget it all (replay takes the slow path)."""
        self.broken = True
        self.ahead_at = -1
        self.tokens = self.nodes = self.leaves = self.assigned = []
        self.leaf_pos = self.outer = {}

    def describes(self, tape) -> bool:
        """Whether every entry of ``tape`` (whose step this is) is one the record made or noted."""
        return not self.broken and self.entries == tape.entries_recorded

    def intact(self, tape) -> bool:
        """True while the record describes ``tape`` and every deferred op of it is still pending (none
        was computed eagerly)."""
        if not self.describes(tape):
            return False
        for n in self.nodes:
            if n.values is not None:
                return False
        return True


# -- recording an op without running it (ops/core.py's dispatch calls this through set_deferral) ----

_PY_SCALARS = (float,)  # raw Python floats: -0.0 and NaN, which the scalar cache leaves as they are


def defer(op: OpDef, args, raw, static):
    """Record ``op`` without running it (deferred/lazy.py); None when it must run now: an argument that is not
    a plain array on the default device, or an op JAX cannot differentiate. Also adds the op to the
    tape's step record (one loop over the arguments does both: this runs for every op)."""
    tape = tape_set.current().tapes[0]
    record = tape.step_record
    if record is not None:
        if record.broken:
            if record.too_long:
                return None
            record = None
        elif record.entries != tape.entries_recorded:  # something else was recorded on the tape
            record.break_()
            record = None
        elif record.count >= record.capacity:  # (over_replay_limit of one more token)
            # This step will never be replayed as one program: deferring the rest of its ops would
            # only delay them. They run at once from here, the pending ones now.
            nodes = record.nodes
            record.break_()
            record.too_long = True
            settle_too_long(tape, nodes)
            return None
    avals = []
    refs = []
    mask = 0
    bit = 1
    for k, (a, r) in enumerate(zip(args, raw)):
        if type(r) is LazyTensor:
            avals.append(r._aval)
            mask |= bit
            n = r._node
            if r._index == 0:
                raw[k] = n  # the producer, not its output tensor (which may die while this op waits)
            if record is not None:
                if n.record_uid == record.uid:
                    # output j of the op whose first output came `dist` ids before the last op's (the ids
                    # the record names tensors by: no index kept per node), as one int (small mostly:
                    # CPython shares those, nothing allocated per op), or a tuple past 7 outputs
                    dist, j = record.last - n.seq, r._index
                    refs.append((dist << 3) | j if j < 8 else (dist, j))
                else:
                    record.break_()
                    record = None
        elif (type(r) is ArrayImpl and not r._committed) or type(r) in _PY_SCALARS:
            avals.append(r.aval if type(r) is ArrayImpl else scalar_aval(r))
            is_tensor = isinstance(a, Tensor)
            if is_tensor:
                mask |= bit
            if record is not None:
                leaf = record.leaf_pos.get(id(r))
                if leaf is None:
                    leaf = record.add_leaf(r)
                refs.append((-1 - leaf, record.ident(a._id)) if is_tensor else -1 - leaf)
        else:
            return _undo(args, raw)
        bit <<= 1
    typ = op_type(op, static, mask, avals)
    if typ is None or not typ.avals:  # (an op with no outputs, a tj.function returning none: runs at once)
        return _undo(args, raw)
    d = typ.diff
    if len(d) == 1:
        ids = (args[d[0]]._id,)
    else:
        ids = tuple([args[i]._id for i in d])
    # The decision record.recorders makes, asked of the one recorder there is (ops/core.py defers only
    # then, never under stop_recording).
    recorded = tape.takes(ids)
    node = Node(typ, raw, recorded, ids if recorded else ())
    if typ.multi:
        outs = tuple(LazyTensor(node, j, av) for j, av in enumerate(typ.avals))
        result = outs
    else:
        result = LazyTensor(node, 0, typ.avals[0])
        outs = (result,)
    node.seq = outs[0]._id
    if recorded:  # (the node is the backward function; an op of one output takes the tape's short way)
        if typ.multi:
            tape.record_operation(op.name, outs, ids, node, typ.infos)
        else:
            tape.record_new(result, ids, node)
        if record is not None:
            record.entries += 1
    else:
        tape_set.debug_hooks.note_unrecorded(op, args, result)
    if record is not None:
        node.record_uid = record.uid
        record.nodes.append(node)
        oid = outs[0]._id
        # (record.add, inline: this runs per op) The type's uid fixes how many refs follow; the id step from the
        # last op, doubled, plus whether the tape recorded it, is small, as the refs: shared ints.
        record.tokens += (typ.uid, ((oid - record.last) << 1) | recorded, *refs)
        record.count += 1
        record.last = oid
        if record.count == record.ahead_at:
            record.launch_ahead()
    return result


class _Assigned:
    """The pending value of a Variable assigned a deferred op's output (``assign_deferred``): the Variable's
    first read computes it (nothing to run when a replayed step returned it; for assign_add and assign_sub,
    their kernel on the value from before), or, failing, gives the Variable back the value it had before and
    raises."""

    __slots__ = ("var", "value", "kernel", "before")

    def __init__(self, var, value: LazyTensor, kernel, before) -> None:
        self.var = weakref.ref(var)  # (the Variable holds this object: no cycle)
        self.value, self.kernel, self.before = value, kernel, before

    def compute(self) -> None:
        var = self.var()
        try:
            v = self.value._value
            if self.kernel is not None:
                v = self.kernel(self.before, v)
        except BaseException:
            if var is not None:
                settle_pending_value(var, self, None)
            raise
        if var is not None:
            settle_pending_value(var, self, (v,))


def assign_deferred(var, value: LazyTensor, kernel=None) -> bool:
    """``var.assign(value)`` of a deferred op's output that has not run (with ``kernel``, the add or subtract of
    ``assign_add``/``assign_sub``: ``kernel(var's value, value)``), made without running it: the
    Variable's value becomes pending on it (its first read computes it), and when the op is one of the step
    record of this thread's tape, the record says so (a token; a replayed step returns the value, and its
    forward stays one program with the backward pass and any update fused into it). False (nothing done: the
    caller assigns as usual) for a value of another shape or dtype or weakly typed (``assign`` converts or
    raises), a value already computed, a Variable whose value is pending on something else, or inside a
    tj.function trace."""
    node = value._node
    av = value._aval
    st = tape_set.current()
    if (value._concrete is not None or node is None or node.values is not None or st.capture is not None
            or av.weak_type or pending_value(var) is not None):
        return False
    current = var._array()
    if type(current) is not ArrayImpl or av.dtype != current.dtype or av.shape != current.shape:
        return False
    record = st.tapes[0].step_record if len(st.tapes) == 1 else None
    if record is not None and not record.broken and node.record_uid == record.uid:
        nodes = record.nodes
        j = len(nodes) - 1
        while nodes[j] is not node:  # (the node assigned is one of the last recorded, mostly)
            j -= 1
        record.add(("assign", j))
        record.assigned.append(j)
    make_value_pending(var, _Assigned(var, value, kernel, current), 0, av)
    return True


set_lazy_assignment(assign_deferred)


def _undo(args, raw) -> None:
    """``defer`` gives up: the producers it put in ``raw`` go back to the LazyTensors they stood for."""
    for k, r in enumerate(raw):
        if type(r) is Node:
            raw[k] = args[k]
    return None


set_deferral(defer)
