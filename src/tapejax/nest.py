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
    try:
        return UnconnectedGradients(value.value if isinstance(value, UnconnectedGradients) else value)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}; use "
                         "tj.UnconnectedGradients.NONE ('none') or tj.UnconnectedGradients.ZERO ('zero').") from None


def _is_leaf(x) -> bool:
    return x is None or isinstance(x, (Tensor, Variable))


def flatten(structure: Any):
    """Flatten a nested structure of Tensors/Variables (None kept as a leaf, like tf.nest): the leaves
    and the treedef that ``jax.tree_util.tree_unflatten`` rebuilds the structure from."""
    return jax.tree_util.tree_flatten(structure, is_leaf=_is_leaf)
