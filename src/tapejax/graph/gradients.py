"""tj.gradients: symbolic gradients over the ops recorded in the enclosing tj.function trace, with
``tf.gradients`` semantics (a port of the ideas of gradients_util.py).

Only ops between ``xs`` and ``ys`` run: ops that are ancestors of ``ys`` (not crossing a
``stop_gradients`` tensor) and descendants of ``xs``. Each op runs once all gradients of its outputs
have arrived (pending counts); contributions to one tensor are summed as the aggregation method says.
Backward functions are dispatched as recorded ops, so gradients of gradients work.
"""
from __future__ import annotations

import enum
from typing import Any, Dict, List

import jax.numpy as jnp

from .. import tape_set
from ..nest import UnconnectedGradients, flatten, unconnected_gradients_of
from ..tensor import Tensor, Variable, _is_float, convert_to_tensor


class AggregationMethod(enum.Enum):
    """How several gradient contributions to one tensor are summed (as tf.AggregationMethod)."""

    ADD_N = 0
    DEFAULT = 0
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


def _aggregation(method) -> AggregationMethod:
    if method is None:
        return AggregationMethod.ADD_N
    if isinstance(method, AggregationMethod):
        return method
    for m in AggregationMethod:
        if method == m.value and isinstance(method, int) and not isinstance(method, bool):
            return m
    raise ValueError(f"Invalid aggregation_method specified {method!r}; use tj.AggregationMethod.ADD_N, DEFAULT, "
                     "EXPERIMENTAL_TREE or EXPERIMENTAL_ACCUMULATE_N.")


def _sum(grads: List[Tensor]) -> Tensor:
    from ..ops import numpy as tnp
    return grads[0] if len(grads) == 1 else tnp.add_n(grads)


def _id_of(x) -> int:
    return x._handle_id if isinstance(x, Variable) else x._id


def gradients(ys: Any, xs: Any, grad_ys: Any = None, stop_gradients: Any = None,
              unconnected_gradients: Any = UnconnectedGradients.NONE, aggregation_method: Any = None) -> List:
    """Symbolic gradients of ``sum(ys)`` w.r.t. ``xs`` inside a ``tj.function``; always a list."""
    cap = tape_set.state.capture
    if cap is None:
        raise RuntimeError("tj.gradients is only valid inside a tj.function (it differentiates the traced graph). "
                           "In eager code use tj.GradientTape.")
    unconnected = unconnected_gradients_of(unconnected_gradients)
    method = _aggregation(aggregation_method)
    ys_l, _ = flatten(ys)
    xs_l, _ = flatten(xs)
    ys_l = [y if isinstance(y, (Tensor, Variable)) else convert_to_tensor(y) for y in ys_l]
    for x in xs_l:
        if not isinstance(x, (Tensor, Variable)):
            raise TypeError(f"tj.gradients: xs must be Tensors or Variables, got {type(x).__name__}")
    if grad_ys is None:
        grad_ys_l = [None] * len(ys_l)
    else:
        grad_ys_l, _ = flatten(grad_ys)
        if len(grad_ys_l) != len(ys_l):
            raise ValueError(f"tj.gradients: {len(grad_ys_l)} grad_ys for {len(ys_l)} ys; pass one per y.")
    stop_ids = {_id_of(s) for s in flatten(stop_gradients)[0] if s is not None} if stop_gradients is not None else set()
    graph = cap.graph
    tt, ops_all = graph.tensor_tape, graph.op_tape

    # Ops between xs and ys: ancestors of ys (stopping at stop_gradients) ...
    y_ids = [_id_of(y) for y in ys_l]
    x_ids = [_id_of(x) for x in xs_l]
    x_set = set(x_ids)
    ancestors: Dict[int, Any] = {}
    stack = [i for i in y_ids if i not in stop_ids]
    seen = set()
    while stack:
        tid = stack.pop()
        if tid in seen:
            continue
        seen.add(tid)
        op_id = tt.get(tid)
        if op_id is None or op_id == -1 or op_id in ancestors:
            continue
        entry = ops_all.get(op_id)
        if entry is None:
            continue
        ancestors[op_id] = entry
        for i in entry.input_ids:
            if i not in stop_ids:
                stack.append(i)
    # ... that are descendants of xs.
    consumers: Dict[int, List[int]] = {}
    for op_id, entry in ancestors.items():
        for i in entry.input_ids:
            consumers.setdefault(i, []).append(op_id)
    between: Dict[int, Any] = {}
    reached = set(x_ids)
    stack = list(x_ids)
    while stack:
        tid = stack.pop()
        for op_id in consumers.get(tid, ()):
            if op_id in between:
                continue
            entry = ancestors[op_id]
            between[op_id] = entry
            for info in entry.outputs:
                if info[0] not in reached and info[0] not in stop_ids:
                    reached.add(info[0])
                    stack.append(info[0])

    # Pending counts: how many uses (by ops between) each tensor's gradient waits for.
    pending: Dict[int, int] = {}
    for entry in between.values():
        for i in entry.input_ids:
            pending[i] = pending.get(i, 0) + 1
    grads: Dict[int, List[Tensor]] = {}

    def add(tid: int, g: Tensor) -> None:
        lst = grads.setdefault(tid, [])
        lst.append(g)
        if method is not AggregationMethod.ADD_N and len(lst) > 1:
            lst[:] = [_sum(lst)]  # pairwise, as contributions arrive

    for y, gy in zip(ys_l, grad_ys_l):
        arr = y._current() if isinstance(y, Variable) else y._value
        if not _is_float(arr.dtype):
            continue
        if gy is None:
            if jnp.issubdtype(arr.dtype, jnp.complexfloating):  # ones would be an arbitrary direction (TF)
                raise TypeError(f"tj.gradients: Gradients of complex tensors ({y!r}) must set grad_ys (y.dtype = "
                                f"{arr.dtype}); pass grad_ys=[...] with one gradient per y.")
            from .. import vspace
            gy = Tensor(vspace.ones_like(arr))
        else:
            gy = gy if isinstance(gy, Tensor) else convert_to_tensor(gy, dtype=arr.dtype)
            if tuple(gy.shape) != tuple(arr.shape):
                raise ValueError(f"tj.gradients: grad_ys of shape {tuple(gy.shape)} does not match its y of shape "
                                 f"{tuple(arr.shape)}.")
        add(_id_of(y), gy)

    # Ready ops: all outputs' consumers (between) done. Count outputs' outstanding uses per op.
    waiting: Dict[int, int] = {}
    for op_id, entry in between.items():
        waiting[op_id] = sum(pending.get(info[0], 0) for info in entry.outputs)
    ready = [op_id for op_id, n in waiting.items() if n == 0]
    done = set()
    while ready:
        op_id = ready.pop()
        if op_id in done:
            continue
        done.add(op_id)
        entry = between[op_id]
        out_grads = []
        for info in entry.outputs:
            lst = grads.get(info[0])
            out_grads.append(_sum(lst) if lst else None)
        needed_idx = [j for j, i in enumerate(entry.input_ids) if i in reached or i in x_set]
        in_grads = [None] * len(entry.input_ids)
        if needed_idx and any(g is not None for g in out_grads):
            from ..tape import _call_backward  # names the op in a LookupError when it has no gradient
            in_grads = _call_backward(entry, out_grads, needed_idx, True)
        for j, i in enumerate(entry.input_ids):
            g = in_grads[j] if j < len(in_grads) else None
            if g is not None:
                add(i, g if isinstance(g, Tensor) else Tensor(g))
            producer = tt.get(i)
            if producer is not None and producer in waiting:
                waiting[producer] -= 1
                if waiting[producer] == 0:
                    ready.append(producer)
    result = []
    for x in xs_l:
        lst = grads.get(_id_of(x))
        g = _sum(lst) if lst else None
        if g is None and unconnected is UnconnectedGradients.ZERO:
            from ..ops import numpy as tnp
            g = tnp.zeros_like(x._current() if isinstance(x, Variable) else x._value)
        result.append(g)
    return result
