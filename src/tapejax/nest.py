"""Structure helpers shared by the public APIs: flattening nested arguments and the choice of what an
unconnected source gets.

* A structure is any pytree of Tensors and Variables (lists, tuples, dicts, ...). ``None`` is kept as
  a leaf, as ``tf.nest`` keeps it, so that a gradient list lines up with its sources one for one.
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
