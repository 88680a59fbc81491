"""Structure helpers shared by the public APIs: flattening nested arguments and the choice of what an
unconnected source gets.

* A structure is any pytree of Tensors and Variables (lists, tuples, dicts, ...). ``None`` is kept as
  a leaf, as ``tf.nest`` keeps it, so that a gradient list lines up with its sources one for one.
* tf.nest flattens every Mapping (dict, OrderedDict, defaultdict, a Module's dict, ...) in sorted key order,
  which pairs a flat list of output gradients or tangents, or a custom gradient's cotangents, with its
  values, and takes any list subtype for a list; jax sorts only plain dicts and tells list subtypes apart
  (``plain_containers`` makes them plain dicts and lists before flattening).
* jax rebuilds a plain dict with its keys sorted; tf.nest rebuilds each Mapping as its own type in the order
  of the structure given (a gradient's dict of sources, a jvp's, a tj.function's dict output):
  ``dict_order`` notes the types and orders and ``in_dict_order`` puts them back.
* Classes tf.nest takes as structures and JAX does not (attrs classes, TF's ``__tf_flatten__`` protocol) are
  made JAX pytrees when first met (``register_structure_classes``); a dict view (``params.values()``) is
  flattened as a list and a tuple subclass as a tuple (rebuilt as its own type), as tf.nest does.
* A source is unconnected when the target does not depend on it; ``UnconnectedGradients`` says whether
  its gradient is ``None`` or zeros (tf.UnconnectedGradients).
"""
from __future__ import annotations

import collections
import enum
import functools
from collections.abc import Mapping, MappingView, MutableMapping
from typing import Any, Callable

import jax
import numpy as np

from .tensor import ArrayImpl, Tensor, Variable


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
    plain = plain_containers(structure)
    leaves, treedef = tree_flatten(plain, _is_leaf)
    while register_structure_classes(leaves):  # (an attrs class met: flattened into its fields)
        leaves, treedef = tree_flatten(plain, _is_leaf)
    return leaves, treedef


_STRUCTURE_CLASSES: set = set()  # the classes register_structure_classes made JAX pytrees so far
# leaves that are never such classes: skipped at the cost of one set lookup (a call's leaves are mostly these)
_PLAIN_TYPES = frozenset({Tensor, Variable, type(None), bool, int, float, complex, str, np.ndarray, ArrayImpl})


def register_structure_classes(leaves) -> bool:
    """The classes tf.nest treats as structures that JAX does not: TF's nest protocol (``__tf_flatten__`` /
    ``__tf_unflatten__``) and ``attrs`` classes (their fields, in order). Found among ``leaves``, such a class
    becomes a JAX pytree, so its components are flattened like any nested Tensors (a tj.function traces them and
    keys its signature on the metadata, as TF's). Whether one was new (the caller flattens again)."""
    types = set(map(type, leaves))
    types -= _PLAIN_TYPES  # (leaves are mostly these: the common case ends here, ~0.3 us not ~2.5)
    if not types:
        return False
    new = {cls for cls in types
           if cls not in _STRUCTURE_CLASSES and not issubclass(cls, (Tensor, Variable))
           and (hasattr(cls, "__tf_flatten__") and hasattr(cls, "__tf_unflatten__")
                or hasattr(cls, "__attrs_attrs__"))}
    for cls in new:
        _STRUCTURE_CLASSES.add(cls)
        if hasattr(cls, "__tf_flatten__"):
            jax.tree_util.register_pytree_node(cls, _tf_flatten, functools.partial(_tf_unflatten, cls))
        else:
            jax.tree_util.register_pytree_node(cls, _attrs_flatten, functools.partial(_attrs_unflatten, cls))
    return bool(new)


def _attrs_flatten(x):
    return tuple(getattr(x, a.name) for a in type(x).__attrs_attrs__), None


def _attrs_unflatten(cls, _, fields):
    return cls(*fields)  # (as tf.nest rebuilds an attrs class)


def _tf_flatten(x):
    metadata, components = x.__tf_flatten__()
    return tuple(components), metadata


def _tf_unflatten(cls, metadata, components):
    return cls.__tf_unflatten__(metadata, tuple(components))


def tree_flatten(tree: Any, is_leaf: Callable):
    """``jax.tree_util.tree_flatten(tree, is_leaf=is_leaf)``; a dict whose keys do not sort (``{1: x, 'b': y}``)
    raises TypeError, as tf.nest's sorting of them does (jax raises ValueError)."""
    try:
        return jax.tree_util.tree_flatten(tree, is_leaf=is_leaf)
    except ValueError as e:
        if "sorting pytree dictionary keys" not in str(e):
            raise
        raise TypeError(f"A dict in the structure has keys that cannot be sorted ({e.__cause__}): a dict's entries "
                        "are taken in sorted key order, as tf.nest takes them. Use keys of one type.") from None


def plain_containers(structure: Any) -> Any:
    """``structure`` with each Mapping that is not a plain dict (OrderedDict, defaultdict, ...) as a plain dict
    and each list subtype (a Module's list) as a list, inside lists, tuples, namedtuples and Mappings: jax
    flattens those in insertion order, or as nodes of their own, where tf.nest flattens them as a plain dict
    (keys sorted) and a list. ``structure`` itself when it holds none."""
    t = type(structure)
    if t is dict:
        items = [(k, plain_containers(v)) for k, v in structure.items()]
        return structure if all(v is structure[k] for k, v in items) else dict(items)
    if isinstance(structure, Mapping):
        return {k: plain_containers(v) for k, v in structure.items()}
    if isinstance(structure, list):
        items = [plain_containers(v) for v in structure]
        return structure if t is list and all(a is b for a, b in zip(items, structure)) else items
    if t is tuple or (isinstance(structure, tuple) and hasattr(t, "_fields")):
        items = [plain_containers(v) for v in structure]
        if all(a is b for a, b in zip(items, structure)):
            return structure
        return t(items) if t is tuple else t(*items)
    if isinstance(structure, MappingView):  # (tf.nest: a dict view is a sequence, rebuilt as a list)
        return [plain_containers(v) for v in structure]
    if _leaf_tuple(structure):  # (tf.nest: a tuple subclass is a sequence, rebuilt as its type: dict_order)
        return tuple([plain_containers(v) for v in structure])
    return structure


def _leaf_tuple(structure: Any) -> bool:
    """Whether ``structure`` is a tuple subclass that JAX takes for a leaf (not a namedtuple, not registered)."""
    return isinstance(structure, tuple) and jax.tree_util.all_leaves([structure])


def rebuild(structure: Any, treedef: Any, leaves: list) -> Any:
    """``leaves`` in the structure of ``structure`` (``treedef``: its ``flatten``), its dicts' keys in its order."""
    return in_dict_order(jax.tree_util.tree_unflatten(treedef, leaves), dict_order(structure))


def dict_order(structure: Any) -> Any:
    """The type and key order of the Mappings, and the type of the list and tuple subtypes, inside ``structure``
    (lists, tuples, namedtuples, dict views and Mappings walked), as a skeleton holding no leaf, for
    ``in_dict_order``; None when it holds neither (nothing to put back)."""
    t = type(structure)
    if t is dict or isinstance(structure, Mapping):
        build = functools.partial(collections.defaultdict, structure.default_factory) \
            if t is collections.defaultdict else t
        return (build, tuple([(k, dict_order(v)) for k, v in structure.items()]))
    if not isinstance(structure, (list, tuple)) or not (t is list or t is tuple or hasattr(t, "_fields")):
        if isinstance(structure, list) or _leaf_tuple(structure):  # (flattened as a list, a tuple: rebuilt)
            return (t, tuple([dict_order(v) for v in structure]))
        if isinstance(structure, MappingView):  # (flattened as a list, rebuilt as one, as tf.nest)
            children = tuple([dict_order(v) for v in structure])
            return (list, children) if any(c is not None for c in children) else None
        return None
    for v in structure:
        if not isinstance(v, _LEAF_TYPES):
            break
    else:  # (a flat list of sources, the common case: one pass, no call per leaf)
        return None
    children = tuple([dict_order(v) for v in structure])
    return (t, children) if any(c is not None for c in children) else None


def in_dict_order(value: Any, order: Any) -> Any:
    """``value`` (a structure jax rebuilt, its dicts' keys sorted) with each Mapping's type and key order
    those in ``order`` (``dict_order`` of the structure it was flattened from), as tf.nest rebuilds structures."""
    if order is None:
        return value
    t, children = order
    if t is dict:
        return {k: in_dict_order(value[k], c) for k, c in children}
    if not isinstance(t, type) or issubclass(t, Mapping):  # (``build`` of an OrderedDict, a defaultdict, ...)
        items = [(k, in_dict_order(value[k], c)) for k, c in children]
        if isinstance(t, type) and not issubclass(t, MutableMapping):
            return t(dict(items))  # (an immutable Mapping: made from a dict of its items)
        mapping = t()
        for k, v in items:
            mapping[k] = v
        return mapping
    items = [in_dict_order(v, c) for v, c in zip(value, children)]
    return t(*items) if hasattr(t, "_fields") else t(items)
