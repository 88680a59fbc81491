"""Replay: run the backward pass of a recurring tape as one compiled program.

One route (``gradient``) with two sources of a program's key: a tape whose every op was deferred is
keyed by its step record's tokens (lazy.StepRecord, made while recording), and its program runs the
forward ops too, when its results are first read or with an optimizer's update (pending.py); any other
non-persistent tape is keyed by the structure of its pruned ops, as follows.

In a training loop the pruned tape has the same structure every step. At ``gradient`` time a
structural signature of the pruned tape is computed (each op's kernels, static parameters, output
shapes and dtypes, residual structure, the connectivity in local ids, which inputs can take a
gradient, the targets, sources and output gradients given, and the aggregation thresholds). After
``tj.config.replay_warmup`` op-by-op passes of one signature, the backward algorithm itself
(``sweep.backprop``) is traced once under ``jax.jit`` as a function of all residual arrays and the
output gradients, and later passes are a single dispatch. The traced program calls the same kernels in
the same order with the same aggregation as the op-by-op pass.

Tapes holding arbitrary Python backward functions (custom_gradient ``grad_fn``s, ops that cannot be
differentiated) are not replayed; ``last_replay`` says why.

A key also holds what the program was built for beyond the tape: the default device (a compiled
program runs where it was compiled; arguments committed elsewhere make it fall back to its jitted
function, which compiles per placement) and the rules epoch (``ops.core.rules_changed``: a
``tj.RegisterGradient`` makes every older program unreachable). An interrupted compile removes its
program, so a later step compiles again. A structure whose program was dropped from the full cache
``_MAX_EVICTIONS`` times is compiled again only into free room (more recurring structures than
``tj.config.replay_cache_size`` would otherwise compile at every step); ``last_replay`` says so. Of the
structures of one family (the same set of ops, alike but for shapes, static parameters and how many times each op
runs: batches of many sizes, a recurrent net over sequences of many lengths), ``tj.config.replay_shapes`` are
compiled after the warm-up; a further one only once it recurs at nearly every step.
"""
from __future__ import annotations

import collections
import threading
import weakref
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence

import jax
import jax.numpy as jnp

from .. import vspace
from ..config import config
from ..ops.core import (BackwardFunction, IdentityBackward, NoGradient, OpBackward, ShapedArray, as_tuple,
                        rules_epoch)
from ..sweep import GradientStats, backprop, knows, producer
from ..tape import OpEntry
from . import ahead, background, lazy, pending
from .fence import TRUE, fence

_seen: "collections.Counter" = collections.Counter()
_programs: Dict[Any, "_Program"] = {}
# Held while the cache changes: threads replaying steps store and evict at the same time (looking a program
# up is one dict read and takes no lock)
_cache_lock = threading.Lock()
_SEEN_MAX = 4096
# Times each structure's program was dropped from the full cache. More recurring structures than
# tj.config.replay_cache_size would otherwise compile at every step forever (each compile evicting the
# program needed next): a structure dropped _MAX_EVICTIONS times is compiled again only into free room.
_evictions: Dict[Any, int] = {}
_MAX_EVICTIONS = 2
# Per family of step structures (the set of their ops, lazy.OpType.family's: alike but for shapes, static
# parameters and how many times each op runs, as a recurrent net's steps over sequences of many lengths), the
# structures compiled. Past tj.config.replay_shapes of them a further shape is compiled only once it has come
# back within _HOT_GAP passes _COLD_FACTOR times the warm-up in a row (_streaks: its last pass and its run): a new
# shape that stays (the batch size changed for good) is compiled, shapes drawn at random are not. A loop over a
# hundred batch sizes (unpadded variable-length batches) compiled two programs per size, each too rarely reused to
# repay its compile, and the cache churned (benchmarks/many_shapes.py: twice the loop's time with replay off; an
# RNN over 36 sequence lengths, a family per length then: 1.5 times, benchmarks/many_lengths.py).
_family_shapes: Dict[Any, set] = {}
_streaks: Dict[Any, tuple] = {}
_COLD_FACTOR = 16
_HOT_GAP = 4  # (passes of other steps between two of this one: a GAN's generator and discriminator alternate)
_next_pass = iter(range(1, 1 << 62)).__next__
_tick = iter(range(1, 1 << 62)).__next__  # use order of the programs (least recently used dropped)
# Per step structure (a record's key without this), the record indices of forward values read after a run of
# its program that did not return them (a metric computed from the logits after the update): its next
# program returns them too, instead of each read running their ops again one by one.
_wanted: Dict[Any, tuple] = {}


class _Program(background.Compilation):
    """One compiled step. ``compiled`` is None while XLA compiles it (in the background) and after a
    failed compile (``failed`` says why); until then the steps of its structure go op by op."""

    __slots__ = ("stats", "exported", "used", "extra", "key", "interrupted", "out_info", "fused",
                 "read_after_update", "structure", "positions", "__weakref__")

    def __init__(self, fn) -> None:
        super().__init__(fn)
        self.key = None  # its key in _programs (set by _install)
        self.interrupted = False  # its compile ended by a BaseException: it must not stay in _programs
        self.extra: tuple = ()  # arguments after (leaves, output gradients): the fences' predicate
        self.used = _tick()
        self.stats: Optional[GradientStats] = None
        self.exported: tuple = ()  # record indices of the deferred ops whose values it returns
        self.out_info = None  # the (exported values, gradients) shapes and dtypes, from lowering
        self.fused: Dict[Any, Any] = {}  # this program with an update after it (pending.py)
        self.read_after_update: tuple = ()  # gradients read after such an update: its program returns them
        # A record's program: its key in ``_wanted``, and the record index of each deferred op by the id of its
        # first output relative to the record's (the same in every step of the structure)
        self.structure: Any = None
        self.positions: Dict[int, int] = {}

    def want(self, relative_id: int) -> None:
        """The deferred op whose first output has ``relative_id`` (in the record's naming) was read after a
        run that did not return it: the structure's next program returns it. Not with several processes: one
        of them (the one that logs) would switch programs at a step the others do not."""
        j = self.positions.get(relative_id)
        if j is None or j in self.exported or self.structure is None or jax.process_count() > 1:
            return
        wanted = _wanted.get(self.structure, ())
        if j not in wanted:
            if len(_wanted) >= _SEEN_MAX:
                _wanted.clear()
            _wanted[self.structure] = tuple(sorted((*wanted, j)))

    def compile(self, leaves, og) -> None:
        super().compile(leaves, og, *self.extra)

    def on_lowered(self, lowered) -> None:
        self.out_info = lowered.out_info

    def on_interrupt(self) -> None:
        # As if the compile never started, so that a later step compiles again instead of waiting for
        # this program forever.
        self.interrupted = True  # (before _discard: _install checks it after storing)
        _discard(self)

    def __call__(self, leaves, og):
        return super().__call__(leaves, og, *self.extra)

    def state(self) -> str:
        """Why this program did not run (for last_replay), or "" when it is ready."""
        if self.compiled is not None:
            return ""
        if self.failed:
            return f"op by op: compiling the replay program failed ({self.failed})"
        return "op by op (the replay program is compiling in the background)"


wait = background.wait  # (tapejax.deferred.replay.wait: what tests and benchmarks call)


def _structure(ops: Dict[int, OpEntry], tt, target_ids, source_ids, that_are_targets, output_gradients,
               fuse: bool):
    """(signature, leaves, plan) or (None, reason, None) when not replayable. Runs at every ``gradient``
    of a replay-enabled tape, so it is kept to a few dict operations per op.

    With ``fuse`` the ops whose forward is still deferred (deferred/lazy.py) are recomputed inside the program:
    their arguments become leaves and their residuals never leave it."""
    local: Dict[int, int] = {}
    setd = local.setdefault
    leaves: List[Any] = []
    node_sig: List[Any] = []
    nodes: List[lazy.Node] = []
    node_index: Dict[int, int] = {}
    if fuse:
        roots = []
        for e in ops.values():
            bf = e.backward
            if isinstance(bf, BackwardFunction) and bf.node is not None:
                roots.append(bf.node)
        nodes = lazy.pending_ancestors(roots)
        if nodes:
            recorded = {id(n) for n in roots}
            node_index = {id(n): j for j, n in enumerate(nodes)}
            leaf_pos: Dict[int, int] = {}
            for n in nodes:
                refs = []
                for r in n.args():
                    src = lazy.producer(r)
                    if src is not None and src[0].values is None:
                        refs.append((node_index[id(src[0])], src[1]))
                        continue
                    r = lazy.arg_value(r)
                    k = leaf_pos.get(id(r))
                    if k is None:
                        k = leaf_pos[id(r)] = len(leaves)
                        leaves.append(r)
                    refs.append(k)
                node_sig.append((n.kernels, n.diff, n.type, tuple(refs), id(n) in recorded))

    # The signature is one flat list of atoms and shared objects (kernels, shape tuples, tree structures),
    # with each op's field counts in it so that it reads back one way only: no tuple per op. Tuples
    # alive by the thousand (a 900-op strictly eager tape) cost collections of the garbage collector's
    # young generations, which promote the tape's objects to the oldest one (full collections: a long
    # step in a training loop); a flat list of atoms is one object.
    sig: List[Any] = []
    # Per op, how its backward runs: its deferred node's index (>= 0), -1 an identity, else -2 - p where
    # sig[p:p + 7] is (kernels, spec, diff, treedef, zeros, first leaf, end) of its residuals.
    kinds: List[int] = []
    for e in ops.values():
        bf = e.backward
        j = None
        if isinstance(bf, BackwardFunction):
            if bf.node is not None:
                j = node_index.get(id(bf.node))
            if j is not None:
                kinds.append(j)  # the node's type fixes the kernels and output shapes
                sig.append(j)
            else:
                res = bf.residual_tree()
                if isinstance(res, NoGradient):
                    return None, f"op '{e.op_type}' cannot be replayed", None
                flat, treedef = jax.tree_util.tree_flatten(res)
                zeros = ()
                for a in flat:
                    if type(a) is ShapedArray:  # an input the tape let go: zeros made in the program
                        zeros, flat = _zeros_of(flat)
                        break
                start = len(leaves)
                leaves.extend(flat)
                kinds.append(-2 - len(sig))
                sig += (bf.op.kernels(bf.static), bf.spec, bf.diff, treedef, zeros, start, len(leaves))
        elif isinstance(bf, IdentityBackward):
            kinds.append(-1)
            sig.append("identity")
        else:
            return None, f"op '{e.op_type}' has a Python backward function ({type(bf).__name__})", None
        out_ids = e.out_ids
        sig.append(len(out_ids))
        for o in out_ids:
            sig.append(setd(o, len(local)))
        if j is None:  # (a deferred node's outputs follow from its type)
            sig.append(e.out_infos)  # ((shape, dtype, sharding), ...): shared by every op of that signature
        ids = e.input_ids
        sig.append(len(ids))
        for i in ids:
            sig.append(setd(i, len(local)))
            sig.append(knows(tt, ops, i))  # (where each input comes from matters too: known to the tape or not)
    # The deferred ops making the targets: their values come back with the gradients.
    exported = []
    for t in target_ids:
        e = ops.get(producer(tt, ops, t))
        if e is not None and isinstance(e.backward, BackwardFunction) and e.backward.node is not None:
            j = node_index.get(id(e.backward.node))
            if j is not None and j not in exported:
                exported.append(j)
    tgt = tuple([setd(t, len(local)) for t in target_ids])
    src = tuple([setd(s, len(local)) for s in source_ids])
    og = tuple(None if g is None else (tuple(g.shape), g.dtype) for g in output_gradients) if output_gradients else ()
    sat = tuple(sorted((local[k], tuple(v[0]), v[1]) for k, v in that_are_targets.items()))
    # tensor_tape, usage and missing counts restricted to these ops follow from the structure above
    # (pruning is deterministic), so they are not part of the key; they are renamed only when compiling.
    # A compiled program runs on the device it was compiled for: where the step runs is part of the key.
    key = (tuple(node_sig), tuple(sig), tuple(exported), tgt, src, og, sat, config.aggregation_min_count,
           config.aggregation_min_bytes, config.replay_exact, jax.config.jax_default_device, rules_epoch())
    return key, leaves, StructurePlan(local, kinds, sig, node_sig, exported, nodes, tgt, src, sat)


_zeros_seen: Dict[tuple, tuple] = {}


def _zeros_of(flat: list):
    """((position, shape, dtype) of each abstract value in ``flat``, one tuple shared by every op of that
    layout), and ``flat`` without them."""
    zeros = tuple([(k, a.shape, a.dtype) for k, a in enumerate(flat) if type(a) is ShapedArray])
    shared = _zeros_seen.get(zeros)
    if shared is None:
        if len(_zeros_seen) >= _SEEN_MAX:
            _zeros_seen.clear()
        shared = _zeros_seen[zeros] = zeros
    return shared, [a for a in flat if type(a) is not ShapedArray]


class StructurePlan(NamedTuple):
    """What ``_structure`` learns of a pruned tape besides its key: local ids, each op's backward kind (an
    int, see ``_structure``) and the flat signature it points into, the deferred nodes to recompute (their
    signatures and the nodes), which node values to export, and targets / sources / sources that are
    targets in local ids."""
    local: dict
    kinds: list
    sig: list
    node_sig: list
    exported: list
    nodes: list
    targets: tuple
    sources: tuple
    that_are_targets: tuple


class Snapshot(NamedTuple):
    """What compiling a replay program needs, taken from the pruned tape at build time.

    ``ops`` are (op_type, outputs, inputs, backward description) in local ids (``local``: tape id ->
    local id); ``tape_ops``, ``usage``, ``missing``, ``tensor_tape`` the pruned tape as the sweep sees
    it; ``targets``/``sources``/``that_are_targets`` in local ids; ``nodes`` the deferred forward ops the
    program recomputes (kernels, diff, type, argument refs, recorded); ``exported`` which of those
    nodes' values come back out."""
    ops: list
    local: dict
    tape_ops: dict
    usage: dict
    missing: dict
    tensor_tape: dict
    targets: tuple
    sources: tuple
    that_are_targets: tuple
    nodes: list
    exported: list


def _snapshot(ops: Dict[int, OpEntry], usage, missing, tt, plan: StructurePlan) -> Snapshot:
    """What compiling needs, in local ids (only when a structure is compiled)."""
    local, kinds, sig, node_sig, exported, nodes, tgt, src, sat = plan
    snap_ops = []
    for e, kind in zip(ops.values(), kinds):
        bf = e.backward
        outs = tuple((local[o[0]], tuple(o[1]), o[2]) for o in e.outputs)
        ins = tuple(local[i] for i in e.input_ids)
        if kind == -1:
            bdesc = ("identity",)
        elif kind >= 0:
            bdesc = ("lazy", bf.op, bf.static, bf.diff, bf.spec, kind)
        else:
            p = -2 - kind  # (where the op's residual fields start in the signature)
            treedef, zeros, a, b = sig[p + 3:p + 7]
            bdesc = ("res", bf.op, bf.static, bf.diff, bf.spec, treedef, a, b, zeros)
        snap_ops.append((e.op_type, outs, ins, bdesc))
    return Snapshot(snap_ops, local, ops, usage, missing, tt, tgt, src, sat, node_sig, exported)


def _localize(snapshot: Snapshot):
    """The snapshot's pruned tape in local ids: op k's id is ``first_op + k``, above every local tensor id,
    and ``tensor_tape`` lists the producer of every local tensor the tape knows."""
    snap_ops, local, ops, usage, missing, tt = (snapshot.ops, snapshot.local, snapshot.tape_ops, snapshot.usage,
                                                snapshot.missing, snapshot.tensor_tape)
    tgt, src, sat = snapshot.targets, snapshot.sources, snapshot.that_are_targets
    first_op = len(local)
    op_local = {op_id: first_op + k for k, op_id in enumerate(ops)}
    tt_local = {}
    for tid, l in local.items():
        p = producer(tt, ops, tid)
        if p is not None:
            tt_local[l] = op_local[p] if p != -1 else -1
    usage_local = {local[i]: n for i, n in usage.items() if i in local}
    missing_local = {op_local[o]: n for o, n in missing.items() if o in op_local}
    return snap_ops, first_op, tt_local, usage_local, missing_local, tgt, src, sat


class _FencedBackward:
    """A backward function whose kernel runs fenced (see fence.py)."""

    __slots__ = ("bf", "pred")

    def __init__(self, bf, pred) -> None:
        self.bf, self.pred = bf, pred

    def __call__(self, cts, needed_idx, recording):
        return fence(self.pred, lambda c: self.bf(c, needed_idx, recording), list(cts))


def _build(snapshot: Snapshot, exact: bool) -> _Program:
    snap_ops, first_op, tt_local, usage_local, missing_local, tgt, src, sat = _localize(snapshot)
    node_sig, exported = snapshot.nodes, snapshot.exported
    program = _Program(None)
    # (the traced step reaches its program weakly: the program holds the jitted step, and that cycle kept a
    # program dropped from the cache, with its XLA executable, alive until the next full collection)
    program_ref = weakref.ref(program)

    def step(leaves, out_grads, pred):
        def fenced(f, *args):
            return fence(pred, f, *args) if exact else f(*args)
        values, residuals = [], {}
        for j, (kernels, diff, _, refs, recorded) in enumerate(node_sig):
            args = tuple(leaves[r] if type(r) is int else values[r[0]][r[1]] for r in refs)
            if recorded:
                out, residuals[j] = fenced(lambda *a: kernels.forward_res_impl(diff, a), *args)
            else:
                out = fenced(kernels.forward, *args)
            values.append(as_tuple(out))
        ops = {}
        for k, (op_type, outs, ins, bdesc) in enumerate(snap_ops):
            kind = bdesc[0]
            if kind == "identity":
                bf = IdentityBackward()
            elif kind == "lazy":
                _, op, static, diff, spec, j = bdesc
                bf = OpBackward.unrecorded(op, static, residuals[j], None, diff, spec)
            else:
                _, op, static, diff, spec, treedef, a, b, zeros = bdesc
                flat = list(leaves[a:b])
                for at, shape, dtype in zeros:  # (in increasing order: each lands where it was)
                    flat.insert(at, jnp.zeros(shape, dtype))
                bf = OpBackward.unrecorded(op, static, jax.tree_util.tree_unflatten(treedef, flat), None, diff, spec)
            if exact and kind != "identity":
                bf = _FencedBackward(bf, pred)
            ops[first_op + k] = OpEntry(op_type, tuple([o[0] for o in outs]), tuple([(o[1], o[2], None) for o in outs]),
                             list(ins), bf)
        stats = GradientStats()
        that_are_targets = {l: (shape, dtype, None) for l, shape, dtype in sat}
        result = backprop(ops, dict(usage_local), dict(missing_local), tt_local, list(tgt), list(src),
                          list(out_grads), ones_for=that_are_targets, stats=stats,
                          aggregate=(lambda gl: fenced(vspace.aggregate, gl)) if exact else None)
        traced_for = program_ref()
        if traced_for is not None:
            traced_for.stats = stats
        # The forward values first: XLA's CPU runtime ran jax.value_and_grad of the MLP step of
        # benchmarks/replay.py ~9% slower with the scalar loss after the gradients (shuffled A/B).
        return [values[j] for j in exported], result
    # The step is a call inside the compiled function, not the compiled function itself: with jax 0.10
    # on CPU the same optimized HLO ran 10-15% faster that way (the MLP step of benchmarks/replay.py,
    # shuffled A/B against jax.jit(jax.value_and_grad); the cause was not found).
    inner = jax.jit(step)
    if exact:
        program.fn = jax.jit(lambda leaves, out_grads, pred: inner(leaves, out_grads, pred))
        program.extra = (TRUE,)
    else:  # no predicate argument when nothing is fenced
        program.fn = jax.jit(lambda leaves, out_grads: inner(leaves, out_grads, None))
    return program


class _Source(NamedTuple):
    """Where a replay program comes from: its cache key, its arguments, how to build it (``_build`` of a
    snapshot, not installed yet), how to hand out its results (``finish(program)``, the gradients), and
    what last_replay adds to "backward ops"; ``warm``, what its warm-up passes are counted by (the key, or for a
    record the step structure: a program returning more values than the last is compiled at once)."""
    key: Any
    leaves: list
    build: Callable[[], "_Program"]
    finish: Callable[["_Program"], List[Any]]
    what: str
    warm: Any = None
    family: Optional[Callable[[], Any]] = None  # the step's family: its structures alike but for shapes


def _structure_source(tape, pruned: tuple, target_ids, source_ids, that_are_targets, og: list):
    """Any tape: keyed by the structure of its pruned ops; the program computes the backward pass from
    the residuals (deferred ops among them are recomputed inside it). A str says why not."""
    ops, usage, missing = pruned
    if not ops:
        return ""
    if lazy.over_replay_limit(len(ops)):
        return f"op by op: {len(ops)} ops exceed tj.config.replay_max_ops ({config.replay_max_ops})"
    key, leaves, plan = _structure(ops, tape.tensor_tape, target_ids, source_ids, that_are_targets, og,
                                   fuse=not tape.persistent)
    if key is None:
        return f"op by op: {leaves}"

    def build():
        return _build(_snapshot(ops, usage, missing, tape.tensor_tape, plan), config.replay_exact)

    def finish(program):
        exported, result = program(leaves, og)
        nodes = plan.nodes
        for j, values in zip(plan.exported, exported):
            nodes[j].settle(tuple(values))
        for e in ops.values():  # deferred ops recomputed by the program: their residuals are not needed
            if isinstance(e.backward, lazy.Node):
                e.backward.node = None
        ops.clear()  # the residuals have been consumed; a non-persistent tape lets them go now
        return result
    return _Source(key, leaves, build, finish, "", None, lambda: frozenset([e.op_type for e in ops.values()]))


def _record_source(tape, tr: "lazy.StepRecord", prepare: Callable, target_ids, source_ids, that_are_targets,
                   og: list):
    """A tape whose every op was deferred (``tr`` intact): keyed by the step record's tokens, a hash
    instead of a walk over the tape; the program runs the forward ops too, when its results are first
    read or with an optimizer's update (pending.py). A str says why not."""
    if lazy.over_replay_limit(tr.count):
        return (f"op by op: {tr.count} recorded ops exceed tj.config.replay_max_ops "
                f"({config.replay_max_ops})")
    ident = tr.ident
    structure = ("record", tuple(tr.tokens), tuple([ident(t) for t in target_ids]),
                 tuple([ident(s) for s in source_ids]),
                 tuple(None if g is None else (tuple(g.shape), g.dtype) for g in og),
                 tuple(sorted((ident(k), tuple(v[0]), v[1]) for k, v in that_are_targets.items())),
                 config.aggregation_min_count, config.aggregation_min_bytes, config.replay_exact,
                 jax.config.jax_default_device, rules_epoch())  # (as in _structure)
    wanted = _wanted.get(structure, ())
    key = (structure, wanted)

    def build():
        ops, usage, missing = prepare()
        snapshot = _step_record_snapshot(tr, ops, usage, missing, tape.tensor_tape, target_ids, source_ids,
                                         that_are_targets, wanted)
        program = _build(snapshot, config.replay_exact)
        program.exported = tuple(snapshot.exported)
        program.structure = structure
        program.positions = {n.seq - tr.base: j for j, n in enumerate(tr.nodes)}
        return program

    def finish(program):
        result = pending.gradients(program, tr.leaves, og, [tr.nodes[j] for j in program.exported],
                                   keep=(tr, tape.op_tape, tape.tensor_tape, tape.tensor_usage), record=tr)
        tape.finish()
        return result
    return _Source(key, tr.leaves, build, finish, ", forward included", structure,
                   lambda: frozenset([n.type.family for n in tr.nodes]))


def _step_record_snapshot(tr, ops: Dict[int, OpEntry], usage, missing, tt, target_ids, source_ids, that_are_targets,
                          wanted: tuple = ()):
    """_build's input for a record: every deferred op of the record (XLA drops those nothing uses) and the
    pruned tape's backward ops, in local ids; the values it exports are the targets', those Variables were
    assigned, and those ``wanted`` (read after earlier runs)."""
    local: Dict[int, int] = {}
    setd = local.setdefault
    snap_ops = []
    recorded = set()
    tix = {id(n): j for j, n in enumerate(tr.nodes)}  # a node's index in the record
    for e in ops.values():
        bf = e.backward
        if isinstance(bf, BackwardFunction) and bf.node is not None and bf.node.record_uid == tr.uid:
            j = tix[id(bf.node)]
            bdesc = ("lazy", bf.op, bf.static, bf.diff, bf.spec, j)
            recorded.add(j)
        elif isinstance(bf, IdentityBackward):
            bdesc = ("identity",)
        else:
            raise RuntimeError(f"tapejax internal error: op '{e.op_type}' is on a traced tape but not in its record")
        outs = tuple((setd(o[0], len(local)), tuple(o[1]), o[2]) for o in e.outputs)
        ins = tuple(setd(i, len(local)) for i in e.input_ids)
        snap_ops.append((e.op_type, outs, ins, bdesc))
    node_sig = []
    for j, n in enumerate(tr.nodes):
        refs = []
        for r in n.args():
            src = lazy.producer(r)
            refs.append(tr.leaf_pos[id(r)] if src is None else (tix[id(src[0])], src[1]))
        refs = tuple(refs)
        # (the token's refs also name the tensors; the program only needs where each value comes from)
        node_sig.append((n.kernels, n.diff, n.type, refs, j in recorded))
    exported = []
    for t in target_ids:
        e = ops.get(producer(tt, ops, t))
        if e is not None and isinstance(e.backward, BackwardFunction) and e.backward.node is not None:
            j = tix[id(e.backward.node)]
            if j not in exported:
                exported.append(j)
    exported += [j for j in dict.fromkeys((*tr.assigned, *wanted)) if j not in exported]
    tgt = tuple(setd(t, len(local)) for t in target_ids)
    src = tuple(setd(s, len(local)) for s in source_ids)
    sat = tuple(sorted((local[k], tuple(v[0]), v[1]) for k, v in that_are_targets.items()))
    return Snapshot(snap_ops, local, ops, usage, missing, tt, tgt, src, sat, node_sig, exported)


def _ready_program(tape, key, build: Callable, warm: Any = None, family: Optional[Callable] = None
                   ) -> Optional[_Program]:
    """The compiled program for ``key``, or None (op by op; ``tape.last_replay`` says why): counted
    warm-up passes first (counted by ``warm``, default ``key``; for a further shape of a step ``family()`` has
    tj.config.replay_shapes compiled of, a longer run of them in a row), then ``build()`` (which compiles and
    installs it), unless the key thrashes."""
    now = _next_pass()
    program = _programs.get(key)
    if program is None:
        warm = key if warm is None else warm
        n = _seen[warm] = _seen[warm] + 1
        if len(_seen) > _SEEN_MAX:
            _seen.clear()
        if n <= config.replay_warmup:
            tape.last_replay = f"op by op (warm-up {n}/{config.replay_warmup})"
            return None
        fam = family() if family is not None else None
        if fam is not None:
            shapes = _family_shapes.get(fam, ())
            if warm not in shapes and len(shapes) >= config.replay_shapes:
                last, run = _streaks.get(warm, (0, 0))
                run = run + 1 if now - last <= _HOT_GAP else 1
                if len(_streaks) >= _SEEN_MAX:
                    _streaks.clear()
                _streaks[warm] = (now, run)
                cold = config.replay_warmup * _COLD_FACTOR
                if run <= cold:
                    tape.last_replay = (
                        f"op by op ({len(shapes)} of this step's shapes are compiled, tj.config.replay_shapes = "
                        f"{config.replay_shapes}; this one is once it comes back at nearly every step, {run}/{cold} "
                        "in a row: pad or bucket batches (and sequence lengths) to fewer shapes, or raise "
                        "replay_shapes)")
                    return None
        why = _thrashing(key)
        if why:
            tape.last_replay = why
            return None
        program = build()
        if fam is not None:
            if len(_family_shapes) >= _SEEN_MAX:
                _family_shapes.clear()
            _family_shapes.setdefault(fam, set()).add(warm)
    else:
        program.used = _tick()  # (a key of a long tape is costly to hash: no second lookup to reorder)
    if program.compiled is None:
        tape.last_replay = program.state()
        return None
    return program


def _thrashing(key) -> str:
    """Why the structure ``key`` is not compiled again (it keeps being evicted), or ""."""
    n = _evictions.get(key, 0)
    if n < _MAX_EVICTIONS or len(_programs) < config.replay_cache_size:
        return ""
    return (f"op by op: this structure's replay program was dropped from the full cache {n} times (more "
            f"recurring structures than tj.config.replay_cache_size = {config.replay_cache_size}), so it is "
            f"no longer compiled; raise tj.config.replay_cache_size to replay it")


def _install(key, program: _Program, leaves, og) -> None:
    """Compile ``program`` (now or in the background) and store it under ``key``; an interruption
    (KeyboardInterrupt...) leaves the cache as if the compile never started: nothing stored or evicted."""
    program.key = key
    program.compile(leaves, og)  # a BaseException propagates before anything is stored
    _store(key, program)
    if program.interrupted:  # the background compile already died: it discarded nothing, we do
        _discard(program)


def _discard(program: _Program) -> None:
    with _cache_lock:
        if program.key is not None and _programs.get(program.key) is program:
            del _programs[program.key]


def _store(key, program: _Program) -> None:
    with _cache_lock:
        _programs[key] = program
        while len(_programs) > config.replay_cache_size:
            old = min(_programs.items(), key=lambda kv: kv[1].used)[0]
            del _programs[old]
            if len(_evictions) >= _SEEN_MAX:
                _evictions.clear()
            _evictions[old] = _evictions.get(old, 0) + 1


def clear() -> None:
    """Forget every compiled program, warm-up, eviction and shape count (compiles under way finish unused), the
    values read after their steps (``_wanted``), and this thread's forecast of its next step (ahead.py)."""
    _seen.clear()
    _wanted.clear()
    _family_shapes.clear()
    _streaks.clear()
    ahead.forget()
    with _cache_lock:
        _programs.clear()
        _evictions.clear()


def gradient(tape, prepare: Callable, target_ids: Sequence[int], source_ids: Sequence[int], that_are_targets,
             output_gradients, stats: GradientStats) -> Optional[List[Any]]:
    """The tape's gradient from a compiled program, or None to go op by op (the tape then sweeps;
    ``tape.last_replay`` says why). The one route (step_tape.StepTape.compute_gradient calls it): a
    source gives the key (the step record's tokens when every op was deferred, else the pruned tape's
    structure), ``_ready_program`` the program after the warm-up, the source hands out its results.
    ``prepare()`` is the tape's memoized pruning step."""
    record, tape.step_record = tape.step_record, None  # used now or not at all: its ops may go as the sweep runs
    if output_gradients and any(isinstance(g, jax.core.Tracer) for g in output_gradients):
        return None  # the backward pass is being traced (a vmapped jacobian): it is compiled by that trace
    og = list(output_gradients) if output_gradients else []
    if record is not None and record.intact(tape) and not tape.persistent:
        source = _record_source(tape, record, prepare, target_ids, source_ids, that_are_targets, og)
    else:
        source = _structure_source(tape, prepare(), target_ids, source_ids, that_are_targets, og)
    if isinstance(source, str):
        tape.last_replay = source
        return None

    def build():
        program = source.build()
        _install(source.key, program, source.leaves, og)
        return program
    program = _ready_program(tape, source.key, build, source.warm, source.family)
    if program is None:
        return None
    result = source.finish(program)
    s = program.stats
    stats.peak_pending_bytes, stats.ops_run, stats.early_aggregations = s.peak_pending_bytes, s.ops_run, \
        s.early_aggregations
    tape.last_replay = f"replayed as one compiled program ({s.ops_run} backward ops{source.what})"
    return result
