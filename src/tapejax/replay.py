"""Replay: run the backward pass of a recurring tape as one compiled program.

In a training loop the pruned tape has the same structure every step. At ``gradient`` time a
structural signature of the pruned tape is computed (each op's kernels, static parameters, output
shapes and dtypes, residual structure, the connectivity in local ids, which inputs can take a
gradient, the targets, sources and output gradients given, and the aggregation thresholds). After
``tj.config.replay_warmup`` op-by-op passes of one signature, the backward algorithm itself
(``tape.run_backprop``) is traced once under ``jax.jit`` as a function of all residual arrays and the
output gradients, and later passes are a single dispatch. The traced program calls the same kernels in
the same order with the same aggregation as the op-by-op pass.

Tapes holding arbitrary Python backward functions (custom_gradient ``grad_fn``s, ops that cannot be
differentiated or are marked ``replayable=False``) are not replayed; ``last_replay`` says why.
"""
from __future__ import annotations

import collections
from typing import Any, Dict, List, Optional, Sequence

import jax

from .config import config
from .ops.core import BackwardFunction, IdentityBackward, NoGradient
from .tape import GradientStats, OpEntry, run_backprop

_seen: "collections.Counter" = collections.Counter()
_programs: "collections.OrderedDict[Any, _Program]" = collections.OrderedDict()
_SEEN_MAX = 4096


class _Program:
    __slots__ = ("fn", "stats")

    def __init__(self, fn) -> None:
        self.fn = fn
        self.stats: Optional[GradientStats] = None


def _structure(ops: Dict[int, OpEntry], usage, missing, tt, target_ids, source_ids, that_are_targets,
               output_gradients):
    """(signature, residual leaves, local snapshot) or (None, reason, None) when not replayable."""
    local: Dict[int, int] = {}

    def lid(i: int) -> int:
        k = local.get(i)
        if k is None:
            k = local[i] = len(local)
        return k

    sig: List[Any] = []
    leaves: List[Any] = []
    snap_ops = []
    for op_id, e in ops.items():
        bf = e.backward
        if type(bf) is BackwardFunction:
            if isinstance(bf.res, NoGradient) or not bf.op.replayable:
                return None, f"op '{e.op_type}' cannot be replayed", None
            flat, treedef = jax.tree_util.tree_flatten(bf.res)
            start = len(leaves)
            leaves.extend(flat)
            kernels = bf.op.kernels(bf.static)
            bsig = (kernels, bf.spec, bf.diff, treedef)
            bdesc = (bf.op, bf.static, bf.diff, bf.spec, treedef, start, len(leaves))
        elif isinstance(bf, IdentityBackward):
            bsig = bdesc = ("identity",)
        else:
            return None, f"op '{e.op_type}' has a Python backward function ({type(bf).__name__})", None
        outs = tuple((lid(info[0]), tuple(info[1]), info[2]) for info in e.outputs)
        ins = tuple(lid(i) for i in e.input_ids)
        # Where each input comes from matters (known to the tape, which op made it).
        prov = tuple(tt.get(i, None) is not None for i in e.input_ids)
        sig.append((bsig, outs, ins, prov))
        snap_ops.append((e.op_type, outs, ins, bdesc))
    tgt = tuple(lid(t) for t in target_ids)
    src = tuple(lid(s) for s in source_ids)
    og = tuple(None if g is None else (tuple(g.shape), g.dtype) for g in output_gradients) if output_gradients else ()
    sat = tuple(sorted((lid(k), tuple(v[0]), v[1]) for k, v in that_are_targets.items()))
    # tensor_tape, usage and missing counts restricted to these ops follow from the structure above
    # (pruning is deterministic), so they are not part of the key; they are renamed only when compiling.
    key = (tuple(sig), tgt, src, og, sat, config.aggregation_min_count, config.aggregation_min_bytes)
    return key, leaves, (snap_ops, local, ops, usage, missing, tt, tgt, src, sat)


def _localize(snapshot):
    snap_ops, local, ops, usage, missing, tt, tgt, src, sat = snapshot
    op_index = {op_id: k for k, op_id in enumerate(ops)}
    tt_local = {}
    for tid, l in local.items():
        p = tt.get(tid)
        if p is not None:
            tt_local[l] = op_index.get(p, -2) if p != -1 else -1
    usage_local = {local[i]: n for i, n in usage.items() if i in local}
    missing_local = {op_index[o]: n for o, n in missing.items() if o in op_index}
    return snap_ops, tt_local, usage_local, missing_local, tgt, src, sat


def _build(snapshot) -> _Program:
    snap_ops, tt_local, usage_local, missing_local, tgt, src, sat = _localize(snapshot)
    program = _Program(None)

    def backward_pass(leaves, out_grads):
        ops = {}
        for k, (op_type, outs, ins, bdesc) in enumerate(snap_ops):
            if bdesc[0] == "identity":
                bf = IdentityBackward()
            else:
                op, static, diff, spec, treedef, a, b = bdesc
                bf = BackwardFunction(op, static, jax.tree_util.tree_unflatten(treedef, leaves[a:b]), None, diff, spec)
            ops[k] = OpEntry(op_type, tuple((o[0], o[1], o[2], None) for o in outs), list(ins), bf)
        stats = GradientStats()
        that_are_targets = {l: (shape, dtype, None) for l, shape, dtype in sat}
        result = run_backprop(ops, dict(usage_local), dict(missing_local), tt_local, True, list(tgt), list(src),
                              that_are_targets, list(out_grads), False, stats)
        program.stats = stats
        return result
    program.fn = jax.jit(backward_pass)
    return program


def try_replay(tape, ops, usage, missing, target_ids: Sequence[int], source_ids: Sequence[int],
               that_are_targets, output_gradients, stats: GradientStats) -> Optional[List[Any]]:
    """Run the backward pass as one compiled program if its structure recurs; None to go op by op."""
    if not ops:
        return None
    key, leaves, snapshot = _structure(ops, usage, missing, tape.tensor_tape, target_ids, source_ids,
                                       that_are_targets, output_gradients)
    if key is None:
        tape.last_replay = f"op by op: {leaves}"
        return None
    program = _programs.get(key)
    if program is None:
        n = _seen[key] = _seen[key] + 1
        if len(_seen) > _SEEN_MAX:
            _seen.clear()
        if n <= config.replay_warmup:
            tape.last_replay = f"op by op (warm-up {n}/{config.replay_warmup})"
            return None
        program = _programs[key] = _build(snapshot)
        while len(_programs) > config.replay_cache_size:
            _programs.popitem(last=False)
    else:
        _programs.move_to_end(key)
    og = list(output_gradients) if output_gradients else []
    result = program.fn(leaves, og)
    ops.clear()  # the residuals have been consumed; a non-persistent tape lets them go now
    s = program.stats
    stats.peak_pending_bytes, stats.ops_run, stats.early_aggregations = s.peak_pending_bytes, s.ops_run, \
        s.early_aggregations
    tape.last_replay = f"replayed as one compiled program ({s.ops_run} backward ops)"
    return result


def clear() -> None:
    """Forget every compiled backward program and warm-up count."""
    _seen.clear()
    _programs.clear()
