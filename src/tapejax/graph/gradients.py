"""tj.gradients: symbolic gradients over the ops recorded in the enclosing tj.function trace, with
``tf.gradients`` semantics (a port of the ideas of gradients_util.py).

Only ops between ``xs`` and ``ys`` run: ops that are ancestors of ``ys`` (not crossing a
``stop_gradients`` tensor) and descendants of ``xs`` (``sweep.prune_between``). The sweep itself is
sweep.py's: each op runs once all gradients of its outputs have arrived, with its backward function
dispatched as recorded ops, so gradients of gradients work. Contributions to one tensor are summed as
the aggregation method says: all at once (``ADD_N``) or pairwise as they arrive (the others).
"""
from __future__ import annotations

import enum
from typing import Any, List

import jax
import jax.numpy as jnp

from .. import sweep, tape_set, vspace
from ..nest import UnconnectedGradients, flatten, unconnected_gradients_of
from ..tensor import Tensor, Variable, is_float, convert_to_tensor
from ..ops import numpy as tnp
from .capture import InlineTrace, warn_raw_uses


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
        # TF tests ``method in [ADD_N, EXPERIMENTAL_TREE, EXPERIMENTAL_ACCUMULATE_N]``: any equal number.
        if isinstance(method, (int, float)) and method == m.value:
            return m
    raise ValueError(f"Invalid aggregation_method specified {method!r}; use tj.AggregationMethod.ADD_N, DEFAULT, "
                     "EXPERIMENTAL_TREE or EXPERIMENTAL_ACCUMULATE_N.")


def _id_of(x) -> int:
    return x._handle_id if isinstance(x, Variable) else x._id


def _check_grad_y(y, arr, gy) -> None:
    """TF's _DefaultGradYs checks: a real or integer y takes a real or integer gradient, a complex y a
    complex one (a Python ``1.0`` for a complex y, or ``True`` for a float one, is a TypeError)."""
    kind = jnp.dtype(gy.dtype if isinstance(gy, (Tensor, Variable)) else convert_to_tensor(gy).dtype)
    if jnp.issubdtype(arr.dtype, jnp.complexfloating):
        ok = jnp.issubdtype(kind, jnp.complexfloating)
    else:
        ok = jnp.issubdtype(kind, jnp.floating) or jnp.issubdtype(kind, jnp.integer)
    if not ok:
        want = "complex" if jnp.issubdtype(arr.dtype, jnp.complexfloating) else "real or integer"
        raise TypeError(f"tj.gradients: Gradient type {kind.name} generated for {want}-valued tensor {y!r} with "
                        f"type {arr.dtype} must be {want}.")


def _seed_of(y, arr, gy) -> Tensor:
    """``gy`` as a Tensor of y's dtype. A value with a dtype of its own (Tensor, Variable, numpy or jax array or
    scalar) must have y's: TF's graph feeds it to y's gradient ops, which raise TypeError on a float64 or int32
    gradient of a float32 y; converting it would hide the mismatch. Python numbers and lists take y's dtype.
    Its dtype is compared as JAX canonicalizes it (x64 off: a numpy float64 array is float32, as everywhere)."""
    own = getattr(gy, "dtype", None)
    if own is not None and jax.dtypes.canonicalize_dtype(own) != jnp.dtype(arr.dtype):
        raise TypeError(f"tj.gradients: grad_ys entry of dtype {jnp.dtype(own).name} (shape {tuple(gy.shape)}) "
                        f"for y {y!r} of dtype {jnp.dtype(arr.dtype).name} (shape {tuple(arr.shape)}): a gradient "
                        f"must have its y's dtype; convert it first, e.g. "
                        f"tj.numpy.astype(grad_y, {jnp.dtype(arr.dtype).name!r}).")
    return gy if isinstance(gy, Tensor) else convert_to_tensor(gy, dtype=arr.dtype)


def _entries(xs: Any) -> list:
    """The leaves of ``xs``, except that an entry of a list of xs holding only numbers (a Python list, no Tensor)
    stays one entry: TF converts it to one constant (``gradients(y, [[0.5, 1.5]])`` is ``[None]``; as a y, one
    unconnected constant taking one of grad_ys: tf_function_differential seed 2220)."""
    if not isinstance(xs, (list, tuple)):
        return flatten(xs)[0]
    out: list = []
    for x in xs:
        leaves = flatten(x)[0]
        if isinstance(x, (list, tuple)) and leaves and not any(isinstance(v, (Tensor, Variable)) for v in leaves):
            out.append(x)
        else:
            out.extend(leaves)
    return out


def _holds_tensors(structure: Any) -> bool:
    """Whether a nested structure of ys holds a Tensor or Variable (else it is one constant, as in ``_entries``)."""
    return any(isinstance(v, (Tensor, Variable)) for v in flatten(structure)[0])


def gradients(ys: Any, xs: Any, grad_ys: Any = None, stop_gradients: Any = None,
              unconnected_gradients: Any = UnconnectedGradients.NONE, aggregation_method: Any = None, *,
              name: Any = "gradients", gate_gradients: bool = False) -> List:
    """Symbolic gradients of ``sum(ys)`` w.r.t. ``xs`` inside a ``tj.function``; always a list.

    ``name`` and ``gate_gradients`` are accepted for TF code (``tf.gradients``'s signature) and change
    nothing: XLA schedules the whole program, so there is no graph name scope or gate to add."""
    del name, gate_gradients
    cap = tape_set.current().capture
    if cap is None:
        raise RuntimeError("tj.gradients is only valid inside a tj.function (it differentiates the traced graph). "
                           "In eager code use tj.GradientTape.")
    graph = cap.graph
    unconnected = unconnected_gradients_of(unconnected_gradients)
    method = _aggregation(aggregation_method)
    ys_l = _entries(ys)
    xs_l = _entries(xs)
    ys_l = [y if isinstance(y, (Tensor, Variable)) else convert_to_tensor(y) for y in ys_l]
    for x in xs_l:
        if x is None:
            raise TypeError("tj.gradients: xs must be Tensors or Variables, got None")
    # A Python number or array among xs is a fresh constant, as TF converts it: unconnected to ys.
    xs_l = [x if isinstance(x, (Tensor, Variable)) else convert_to_tensor(x) for x in xs_l]
    if grad_ys is None:
        grad_ys_l = [None] * len(ys_l)
    else:
        # As TF, a list of grad_ys holds one gradient per y, each of which may itself be a (nested) list of numbers
        # (never flattened into more entries: seed 8419, [[[a], [b]]] for two ys); a nested structure of ys (a
        # dict, lists in a list) takes its grad_ys as the same structure, one per leaf.
        nested = isinstance(ys, dict) or (isinstance(ys, (list, tuple)) and
                                          any(isinstance(y, (list, tuple, dict)) and _holds_tensors(y) for y in ys))
        if nested:
            grad_ys_l = flatten(grad_ys)[0]
        else:
            grad_ys_l = list(grad_ys) if isinstance(grad_ys, (list, tuple)) else [grad_ys]
        if len(grad_ys_l) != len(ys_l):
            raise ValueError(f"tj.gradients: Length mismatch. Passed {len(grad_ys_l)} grad_ys for {len(ys_l)} ys; "
                             "pass one per y.")
    stop_ids = {_id_of(s) for s in flatten(stop_gradients)[0] if s is not None} if stop_gradients is not None else set()
    stop_ids |= graph.boundaries  # (inside nested functions run inline: their arguments, capture.py)

    # Seed: one gradient per float y (ones unless given).
    y_ids: List[int] = []
    seeds: List[Tensor] = []
    for y, gy in zip(ys_l, grad_ys_l):
        arr = y._current() if isinstance(y, Variable) else y._value
        if not is_float(arr.dtype):
            continue
        if gy is None:
            if jnp.issubdtype(arr.dtype, jnp.complexfloating):  # ones would be an arbitrary direction (TF)
                raise TypeError(f"tj.gradients: Gradients of complex tensors ({y!r}) must set grad_ys (y.dtype = "
                                f"{arr.dtype}); pass grad_ys=[...] with one gradient per y.")
            gy = Tensor(vspace.ones_like(arr))
        else:
            _check_grad_y(y, arr, gy)
            gy = _seed_of(y, arr, gy)
            if gy.ndim == 0 and arr.ndim > 0:  # a scalar is broadcast, as TF's graph multiplies it in
                gy = tnp.broadcast_to(gy, arr.shape)
            if tuple(gy.shape) != tuple(arr.shape):
                raise ValueError(f"tj.gradients: grad_ys entry of shape {tuple(gy.shape)} does not match its y "
                                 f"{y!r} of shape {tuple(arr.shape)}; pass a gradient of y's shape (or a scalar).")
        y_ids.append(_id_of(y))
        seeds.append(gy)

    # Only ops between xs and ys run: the sweep over the trace's graph, its backward functions dispatched
    # as recorded ops (gradients of gradients work), summed as the aggregation method says.
    x_ids = [_id_of(x) for x in xs_l]
    if cap.outer_graphs and _crosses(graph, cap.outer_graphs, y_ids, x_ids, stop_ids):
        raise InlineTrace()  # the nested tj.function reruns inline in the enclosing trace (capture.py)
    ops, usage, missing, reached = sweep.prune_between(graph.tensor_tape, graph.op_tape, y_ids, x_ids, stop_ids)
    pairwise = method is not AggregationMethod.ADD_N  # sum as contributions arrive, not once all have
    grads = sweep.backprop(ops, usage, missing, graph.tensor_tape, y_ids, x_ids, seeds, recording=True,
                           known=reached, call=_call_recorded, min_count=1 if pairwise else sweep.NEVER,
                           min_bytes=-1)
    # A value on a path from xs that user code handed to plain JAX (jax.lax.cond, jnp.sin): the graph has no
    # path through that call, so the gradient may lack it. Never silently (API.md): say where.
    warn_raw_uses(graph.raw_uses_from(x_ids, stop_ids), "tj.gradients",
                  " (A GradientTape or ForwardAccumulator outside the tj.function call differentiates the compiled "
                  "program, this call included.)")
    result = []
    for x, g in zip(xs_l, grads):
        if g is None and unconnected is UnconnectedGradients.ZERO:
            g = tnp.zeros_like(x._current() if isinstance(x, Variable) else x._value)
        result.append(g)
    return result


def _crosses(graph, outer_graphs, y_ids, x_ids, stop_ids) -> bool:
    """Whether a path from xs to ys runs through ops of an enclosing trace's graph (TF's gradients follow a
    captured tensor back into the graph that made it). Only xs made inside the enclosing traces count: a
    Tensor made before all of them is captured by each function separately in TF (a placeholder of its
    own in each), so a path to it through an enclosing function's ops does not reach the inner's xs."""
    outermost = outer_graphs[-1]
    x_ids = [i for i in x_ids if i >= outermost.first_id]
    if not x_ids:
        return False
    tensor_tape, op_tape = {}, {}
    for g in reversed(outer_graphs):  # outermost first: an inner graph's entries win (ids are global)
        tensor_tape.update(g.tensor_tape)
        op_tape.update(g.op_tape)
    tensor_tape.update(graph.tensor_tape)
    op_tape.update(graph.op_tape)
    ops = sweep.prune_between(tensor_tape, op_tape, y_ids, x_ids, stop_ids)[0]
    return any(op_id not in graph.op_tape for op_id in ops)


def _call_recorded(entry, out_grads: list, needed_idx: list, recording: bool) -> list:
    """A backward function's gradients as Tensors (a Python backward function may return arrays)."""
    grads = sweep.call_backward(entry, out_grads, needed_idx, recording)
    return [g if g is None or isinstance(g, Tensor) else Tensor(g) for g in grads]
