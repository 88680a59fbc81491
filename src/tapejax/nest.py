"""Structure helpers shared by the public APIs: flattening nested arguments and the choice of what an
unconnected source gets.

* A structure is any pytree of Tensors and Variables (lists, tuples, dicts, ...). ``None`` is kept as
  a leaf, as ``tf.nest`` keeps it, so that a gradient list lines up with its sources one for one.
* jax rebuilds a plain dict with its keys sorted; tf.nest keeps the order of the structure given (a
  gradient's dict of sources, a jvp's, a tj.function's dict output): ``dict_order`` notes that order and
  ``in_dict_order`` puts it back.
* A source is unconnected when the target does not depend on it; ``UnconnectedGradients`` says whether
  its gradient is ``None`` or zeros (tf.UnconnectedGradients).
"""
from __future__ import annotations

import enum
from typing import Any

import jax

from .tensor import Tensor, Variable


class UnconnectedGradients(enum.Enum):
    """What ``gradient`` returns for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


def unconnected_gradients_of(value: Any) -> UnconnectedGradients:
    """The member named by ``value`` (a member, or its string value); a clear error otherwise."""
    if type(value) is UnconnectedGradients:  # (the default: no lookup by value at every gradient)
        return value
    try:
        return UnconnectedGradients(value)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}; use "
                         "tj.UnconnectedGradients.NONE ('none') or tj.UnconnectedGradients.ZERO ('zero').") from None


_LEAF_TYPES = (Tensor, Variable, type(None))  # what a structure's leaves are (None kept, as tf.nest)


def _is_leaf(x) -> bool:
    return isinstance(x, _LEAF_TYPES)


_flat_defs: dict = {}  # (list or tuple, length) -> its treedef
_LEAF_DEF = jax.tree_util.tree_structure(0)  # one leaf


def flatten(structure: Any):
    """Flatten a nested structure of Tensors/Variables (None kept as a leaf, like tf.nest): the leaves
    and the treedef that ``jax.tree_util.tree_unflatten`` rebuilds the structure from."""
    if isinstance(structure, _LEAF_TYPES):  # (a single target, as a loss)
        return [structure], _LEAF_DEF
    t = type(structure)
    if t is list or t is tuple:  # (the common case, a flat list of sources: no Python call per leaf)
        for x in structure:
            if not isinstance(x, _LEAF_TYPES):
                break
        else:
            key = (t, len(structure))
            treedef = _flat_defs.get(key)
            if treedef is None:
                if len(_flat_defs) >= 1024:
                    _flat_defs.clear()
                treedef = _flat_defs[key] = jax.tree_util.tree_structure(t(range(len(structure))))
            return list(structure), treedef
    return jax.tree_util.tree_flatten(structure, is_leaf=_is_leaf)


def rebuild(structure: Any, treedef: Any, leaves: list) -> Any:
    """``leaves`` in the structure of ``structure`` (``treedef``: its ``flatten``), its dicts' keys in its order."""
    return in_dict_order(jax.tree_util.tree_unflatten(treedef, leaves), dict_order(structure))


def dict_order(structure: Any) -> Any:
    """The key order of the plain dicts inside ``structure`` (lists, tuples, namedtuples and dicts walked), as a
    skeleton holding no leaf, for ``in_dict_order``; None when it holds no dict (nothing to put back)."""
    t = type(structure)
    if t is dict:
        return (dict, tuple([(k, dict_order(v)) for k, v in structure.items()]))
    if not isinstance(structure, (list, tuple)) or not (t is list or t is tuple or hasattr(t, "_fields")):
        return None
    for v in structure:
        if not isinstance(v, _LEAF_TYPES):
            break
    else:  # (a flat list of sources, the common case: one pass, no call per leaf)
        return None
    children = tuple([dict_order(v) for v in structure])
    return (t, children) if any(c is not None for c in children) else None


def in_dict_order(value: Any, order: Any) -> Any:
    """``value`` (a structure jax rebuilt, its dicts' keys sorted) with each dict's keys in ``order``
    (``dict_order`` of the structure it was flattened from), as tf.nest rebuilds structures."""
    if order is None:
        return value
    t, children = order
    if t is dict:
        return {k: in_dict_order(value[k], c) for k, c in children}
    items = [in_dict_order(v, c) for v, c in zip(value, children)]
    return t(*items) if hasattr(t, "_fields") else t(items)
