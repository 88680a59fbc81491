"""Residual accounting: the device bytes each backward function on a tape keeps alive.

Terms. The *residuals* of a recorded op are the arrays its backward function (VJP) holds until the
backward pass runs: often its own inputs or outputs, sometimes arrays its kernel makes. Two ops may hold
the same array (``sin`` keeps its input, which ``exp`` kept as its output): it is one allocation, so
each residual comes with an *identity* and the unique total counts each identity once. A *deferred* op
(deferred/lazy.py) has not run yet: it holds no residuals, but will.

Algorithm, per tape entry (``residuals_of``):

1. Ran eagerly: the leaves of its residuals as it holds them (``bf.held_residuals()``: not the inputs
   a tape let go because the backward never reads them), by object identity.
2. Deferred and already run (its value was read): the residuals its node holds, the same way.
3. Deferred, not run: its *residual layout*, found once per op type by tracing the kernel abstractly
   (``jax.eval_shape``), says which residual is argument ``i``, output ``j`` or a new array; a tensor not
   computed yet is identified by its tensor id, so sharing counts as it will once it runs. So summaries
   read the same with ``tj.config.lazy`` on or off, and nothing is computed.
4. Another kind of backward function (custom gradients) reports ``residual_bytes()``; else unknown.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import jax
import numpy as np

from ..deferred.lazy import scalar_aval
from ..tensor import LazyTensor

# Residual layouts of op types, found abstractly (see pending_layout); bounded like deferred/lazy.py's cache.
_layouts: Dict[Any, Any] = {}
_LAYOUTS_MAX = 4096


def pending_layout(node):
    """Where each residual of a deferred op will come from, without running it: a list of
    ``("in", i)`` (argument i itself), ``("out", j)`` (output j itself) or ``("new", aval)`` (an array the
    kernel makes). Traced once per op type with ``jax.eval_shape``, comparing tracer identities the way
    the op's residual plan does when it runs, so the bytes and sharing match eager execution."""
    typ = node.type
    layout = _layouts.get(typ)
    if layout is not None:
        return layout
    def struct(r):
        aval = r if hasattr(r, "shape") and hasattr(r, "dtype") else scalar_aval(r)
        weak = getattr(getattr(r, "_aval", None) or getattr(r, "aval", None) or aval, "weak_type", False)
        return jax.ShapeDtypeStruct(tuple(aval.shape), aval.dtype, weak_type=weak)

    found = []

    def trace(*dyn):
        out, res = typ.kernels.forward_res_impl(typ.diff, dyn)
        outs = jax.tree_util.tree_leaves(out)
        for leaf in jax.tree_util.tree_leaves(res):
            if not hasattr(leaf, "shape"):
                continue  # a Python constant in the residuals: no device array
            src = next((("in", i) for i, d in enumerate(dyn) if leaf is d), None)
            if src is None:
                src = next((("out", j) for j, o in enumerate(outs) if leaf is o), None)
            found.append(src or ("new", jax.core.ShapedArray(leaf.shape, leaf.dtype)))
        return outs

    jax.eval_shape(trace, *[struct(r) for r in node.raw])
    if len(_layouts) >= _LAYOUTS_MAX:
        _layouts.clear()
    _layouts[typ] = found
    return found


def array_key(x):
    """Identity of the array behind ``x`` for counting shared residuals once: a computed value by its
    object, a tensor not computed yet by its tensor id (its value will be one array)."""
    if isinstance(x, LazyTensor):
        pending = x._pending_node() is not None
        return ("tensor", x._id) if pending else id(x._value)
    return id(x)


def aval_bytes(shape, dtype) -> int:
    return int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize


def residuals_of(entry) -> Optional[List[Tuple[Any, int]]]:
    """(identity, bytes) of each array the backward function of a tape entry keeps (or will keep once
    its deferred forward runs); None when unknown."""
    bf = entry.backward
    if bf is None:
        return None
    node = getattr(bf, "node", None)
    if node is not None:
        if node.values is None:  # deferred, not run yet: what running it will keep
            try:
                layout = pending_layout(node)
            except Exception:  # never fail a summary over one op: its bytes are unknown
                return None
            outs = entry.outputs
            found = []
            for k, src in enumerate(layout):
                if src[0] == "in":
                    r = node.raw[src[1]]
                    if hasattr(r, "shape"):  # a Python scalar argument is kept as a number
                        found.append((array_key(r), aval_bytes(r.shape, r.dtype)))
                elif src[0] == "out":
                    oid, shape, dt = outs[src[1]][:3]
                    found.append((("tensor", oid), aval_bytes(shape, dt)))
                else:
                    found.append((("new", id(node), k), aval_bytes(src[1].shape, src[1].dtype)))
            return found
        res = node.res  # ran (its value was read), the tape has not taken the residuals yet
    elif hasattr(bf, "held_residuals"):
        res = bf.held_residuals()  # (not ``res``: an input the tape let go is no residual kept alive)
    else:
        res = getattr(bf, "res", None)
    if res is None:
        if hasattr(bf, "residual_bytes"):  # another kind of backward function (custom gradients)
            try:
                return [(("opaque", id(bf)), int(bf.residual_bytes()))]
            except Exception:
                return None
        return None
    return [(id(leaf), int(np.prod(leaf.shape, dtype=np.int64)) * np.dtype(leaf.dtype).itemsize)
            for leaf in jax.tree_util.tree_leaves(res)
            if hasattr(leaf, "shape") and hasattr(leaf, "dtype") and not isinstance(leaf, jax.core.Tracer)]
