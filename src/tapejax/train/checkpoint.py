"""Checkpoints of Variables, on orbax-checkpoint.

Terminology
-----------
* objects: what ``Checkpoint(root, **objects)`` is given. Each is a ``tj.Variable``, a ``tj.Module``, an
  object with a ``.variables`` attribute (an optimizer; a method is called), a ``tj.random.Generator``
  (its state, as TF: ``gen/_state_var``), or a dict, list or tuple of those, nested to any depth. ``root`` (TF's): an object whose children are the top-level names.
* path: the stable name of one Variable in a checkpoint, as TF's object graph names it: its keyword name
  followed by where it sits inside that object, joined with ``/``: a Module's attribute name (its
  attributes that hold no Variables, Modules or containers are ignored, as TF), a dict key, a list/tuple
  position, a namedtuple's field name, or, in an object with ``.variables`` that is not a Module (an
  optimizer), ``variables`` then the position. ``Checkpoint(model=m, opt=o, step=v, extra={"ema": [a, b]})`` with ``m.dense.w`` gives
  ``model/dense/w``, ``opt/variables/0``, ``step``, ``extra/ema/0``, ``extra/ema/1``. A Variable reachable
  by several paths is saved once, under the first in breadth-first order over the keywords sorted (TF's);
  its other paths are stored too (the ``object_graph`` item), so a restore finds it by any of them.
  A restore follows each saved path by name through the objects it is given, as TF matches its object
  graph: objects built in another order, or combined, restore by name.
* layout: a checkpoint is a directory holding one orbax item named ``variables`` (a PyTree of the
  arrays, keyed by path) and, when some object is reachable by two paths, a JSON item ``object_graph``;
  zero-size values (which orbax does not write: their shape and dtype are all of them) are a JSON item
  ``empty_arrays`` of ``[path, shape, dtype]``.
  A ``CheckpointManager`` writes the same directories, named as TF's (``{directory}/ckpt-{n}``), so
  ``Checkpoint.restore`` reads either.

Save
----
``write(path)`` writes exactly ``path``; ``save(prefix)`` (TF's) writes ``{prefix}-{n}``, numbered from the
Checkpoint's ``save_counter`` (stored beside the Variables as ``save_counter`` and restored with them;
``write`` stores it once it exists). A Checkpoint with no Variables saves its ``save_counter`` alone.
1. Walk the objects into an ordered ``{path: Variable}``.
2. Read each value without recording it on any tape (saving is not part of the computation).
3. orbax writes everything into a temporary directory beside the target and renames it into place
   once complete; we wait for it (synchronous), so a save killed at any point leaves either no
   checkpoint at that path or a complete one, and never touches the other checkpoints. A checkpoint
   already at that path is replaced, as TF, atomically: the new one is written completely beside it, then
   the two swap names in one rename, so a kill leaves the old or the new one there, never neither.

Restore (as TF's: what matches is restored, the status tells what did not)
-------------------------------------------------------------------------
1. Match the checkpoint's paths to the objects by name (``_match``).
2. Read the checkpoint's metadata and check every path matched: same shape, same dtype. Every
   mismatch is reported in one ``ValueError``; no Variable has been changed yet.
3. orbax reads each of those arrays straight into the Variable's current sharding (so a restore keeps
   how each Variable is laid out over devices, whatever the layout when saved).
4. Only then assign them. Variables the checkpoint has no value for keep theirs, and checkpoint
   values no Variable matches wait: an object assigned to the Checkpoint later (``ckpt.v = v``) gets
   its saved values then (TF's restore on assignment; also one assigned to a Checkpoint nested in the
   one restored, and a Variable added to a list or dict attribute of the Checkpoint or of a tj.Module, as
   TF's ListWrapper/_DictWrapper restore it), and Variables created since at waiting paths
   get theirs when the returned ``LoadStatus`` is next used (TF restores them at creation). The status
   says what did not match (``assert_consumed``, ``assert_existing_objects_matched``), as TF's. When
   two restores wait for one Variable, the later restore's value wins (as TF). A tj.Module's waiting
   values go into its Variables as its lazy build creates them (TF's deferred restoration: the first
   call already computes with the restored values). Any other object (but a list or dict attribute of
   the Checkpoint, which takes its values as it grows) that holds no Variables yet while
   the checkpoint has values for it is a ``ValueError``: its Variables, created later, would silently
   keep their initial values.
"""
from __future__ import annotations

import collections
import collections.abc
import ctypes
import errno
import itertools
import json
import logging
import os
import re
import shutil
import time
import weakref
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, Union
from urllib.parse import quote, unquote

import jax
import jax.numpy as jnp
import numpy as np

from .. import interrupts, tape_set
from ..ops.random import Generator
from ..tensor import Tensor, Variable
from .module import DictWrapper, ListWrapper, Module, check_saveable, watch_build, wrap

__all__ = ["Checkpoint", "CheckpointManager", "LoadStatus", "latest_checkpoint", "list_variables"]

PathLike = Union[str, os.PathLike]
_ITEM = "variables"  # the orbax item name inside a checkpoint directory
_GRAPH = "object_graph"  # the orbax item of the other paths to saved objects (see _walk), when there are some
_EMPTY = "empty_arrays"  # the JSON item of the zero-size values' paths, shapes and dtypes (orbax refuses them)
_TRASH = "_deleted"  # CheckpointManager: where old steps go before being deleted (not a step name)
_SAVE_COUNTER = "save_counter"  # save()'s own entry: the number of the checkpoint (TF's save_counter)


class NotCheckpointable(TypeError, ValueError):
    """An object a Checkpoint cannot save (a Tensor, a number, a string...). TF raises ValueError ("expecting x
    to be a trackable object"); also a TypeError, as it is one, for code written to either."""


def _ocp():
    # orbax (and tensorstore) take seconds to import: a save or restore pays for it, not `import tapejax`.
    import orbax.checkpoint
    return orbax.checkpoint


# -- objects -> {path: Variable} -----------------------------------------------------------------------
# The objects form a graph, as TF's object graph: a node's children are named (a Checkpoint's objects by
# keyword, a Module's attributes by name, list/tuple items by position, dict entries by key, and an
# object with `.variables` has one child, "variables", the list of them). A Variable's path is the names
# along its first path in breadth-first order (TF's: each object is saved once, under its shortest path);
# a restore follows each saved path's names through the objects it is given (`_match`), as TF matches
# a checkpoint's object graph to the Python objects.

_MISSING = object()
_GENERATOR_STATE = "_state_var"  # a tj.random.Generator's one child (TF's name: gen/_state_var)
Alias = Tuple[Tuple[str, ...], str, Tuple[str, ...]]  # (parent path, name, path): see _walk


def _is_node(obj: Any) -> bool:
    """Whether a Module attribute (or a list/dict item under a Module) is walked: Variables, Modules,
    Checkpoints, lists, tuples, dicts, and objects with ``.variables`` (optimizers). Anything else (numbers,
    strings, Tensors, functions) is ignored, as TF ignores attributes that are not trackable."""
    if isinstance(obj, (Variable, Module, Checkpoint, list, tuple, Mapping, Generator)):
        return True
    if isinstance(obj, (Tensor, type)):
        return False
    try:
        return hasattr(obj, "variables")
    except Exception:  # (an attribute of any kind may answer with any error: it is then not walked)
        return False


def _children(obj: Any, strict: bool) -> List[Tuple[str, Any, bool]]:
    """``(name, child, strict)`` for each child of the node ``obj``, in TF's order. ``strict``: a
    non-trackable child raises (what a Checkpoint is given); in a list, tuple or dict, and under a Module,
    such children are skipped (as TF ignores a Module's other attributes, and the numbers, strings and
    Tensors in a tracked list or dict: a loss history kept on the checkpoint)."""
    if isinstance(obj, Checkpoint):
        return [(name, child, strict) for name, child in obj._graph().items()]
    if isinstance(obj, Module):
        return [(name, child, False) for name, child in vars(obj).items() if _is_node(child)]
    if isinstance(obj, Generator):  # its state Variable, under TF's name for it
        return [(_GENERATOR_STATE, obj.state, strict)]
    if isinstance(obj, Mapping):
        found = []
        for key, child in obj.items():
            if not _is_node(child):
                continue
            if not isinstance(key, (str, int)) or isinstance(key, bool):
                raise TypeError(f"Checkpoint: dict key {key!r} cannot name a checkpoint entry; use str (or int) "
                                "keys.")
            found.append((str(key), child, False))
        return found
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a namedtuple: by field name (TF's)
        return [(name, child, False) for name, child in zip(obj._fields, obj) if _is_node(child)]
    if isinstance(obj, (list, tuple)):
        return [(str(i), child, False) for i, child in enumerate(obj) if _is_node(child)]
    try:
        variables = obj.variables
        variables = variables() if callable(variables) else variables
    except Exception:
        if strict:
            raise
        return []  # (an attribute of a Module whose .variables cannot be read: ignored, as what is not trackable)
    return [("variables", variables, strict)]


def _child(obj: Any, name: str) -> Any:
    """The child of ``obj`` named ``name`` (see ``_children``), or ``_MISSING``."""
    if isinstance(obj, (Variable, Tensor)):
        return _MISSING
    if isinstance(obj, Checkpoint):
        return obj._graph().get(name, _MISSING)
    if isinstance(obj, Module):
        if name == "variables":  # (no attribute has that name: checkpoints of earlier tapejax, by position)
            return obj.variables
        child = vars(obj).get(name, _MISSING)
        return child if child is not _MISSING and _is_node(child) else _MISSING
    if isinstance(obj, Generator):
        return obj.state if name == _GENERATOR_STATE else _MISSING
    if isinstance(obj, Mapping):
        if name in obj:
            return obj[name]
        return obj.get(int(name), _MISSING) if name.isdigit() and str(int(name)) == name else _MISSING
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return getattr(obj, name) if name in obj._fields else _MISSING
    if isinstance(obj, (list, tuple)):
        return obj[int(name)] if name.isdigit() and int(name) < len(obj) else _MISSING
    if name == "variables" and _is_node(obj):
        variables = obj.variables
        return variables() if callable(variables) else variables
    return _MISSING


def _match(objects: Mapping[str, Any], saved: Mapping[Tuple[str, ...], Any],
           aliases: List[Alias]) -> Tuple[Dict[Tuple[str, ...], Variable], Dict[Tuple[str, ...], Any]]:
    """Match a checkpoint's graph to ``objects``, as TF: from the top, each child of a checkpoint node (its
    saved paths' names, and the aliases) is looked up by name in the object matched to that node. Returns
    ``{saved path: Variable}`` and ``{checkpoint node: object}``. One object may take several checkpoint
    nodes (TF: objects combined); a checkpoint node takes the first object met (breadth first)."""
    children: Dict[Tuple[str, ...], Dict[str, Tuple[str, ...]]] = collections.defaultdict(dict)
    for p in saved:
        for i in range(len(p)):
            children[p[:i]][p[i]] = p[:i + 1]
    for parent, name, target in aliases:
        for i in range(len(parent)):  # (the nodes on the way to it, which may hold no saved value themselves)
            children[parent[:i]].setdefault(parent[i], parent[:i + 1])
        children[parent].setdefault(name, target)
    matched: Dict[Tuple[str, ...], Variable] = {}
    nodes: Dict[Tuple[str, ...], Any] = {}
    visited: Dict[Tuple[Tuple[str, ...], int], Any] = {}  # (held: a temporary's id is not reused)
    queue = collections.deque([((), objects)])
    while queue:
        node, obj = queue.popleft()
        if (node, id(obj)) in visited:
            continue
        visited[(node, id(obj))] = obj
        nodes.setdefault(node, obj)
        if isinstance(obj, Variable):
            if node in saved:
                matched.setdefault(node, obj)
            continue
        for name, child_node in children.get(node, {}).items():
            child = _child(obj, name)
            if child is not _MISSING:
                queue.append((child_node, child))
    return matched, nodes


def _collect(objects: Union[Mapping[str, Any], "Checkpoint"]) -> Dict[Tuple[str, ...], Variable]:
    """``{path: Variable}``: every Variable reachable from ``objects`` (``{name: object}``, or a
    Checkpoint's top-level names), once, under its first path in breadth-first order (TF's)."""
    return _walk(objects)[0]


def _walk(objects: Union[Mapping[str, Any], "Checkpoint"], saving: bool = False
          ) -> Tuple[Dict[Tuple[str, ...], Variable], List[Alias]]:
    """``_collect``'s ``{path: Variable}``, and the graph's other edges to what holds them: ``(parent path,
    name, path)`` where the object at ``path`` is also the child ``name`` of the object at ``parent path``
    (TF's object graph keeps them: ``mapped = {"two": v}`` restores a ``v`` saved under ``listed/1`` too)."""
    found: Dict[Tuple[str, ...], Variable] = {}
    primary: Dict[int, Tuple[str, ...]] = {}  # id(object walked, or Variable) -> its path
    edges: List[Tuple[Tuple[str, ...], str, int]] = []  # edges to an object already reached
    if isinstance(objects, Checkpoint):
        entries, walked = objects._entries(), {id(objects): objects}
    else:
        entries, walked = [(name, obj, True) for name, obj in objects.items()], {}
    # (walked holds each object walked: the id of a temporary, e.g. a list a .variables() made, is not reused)
    queue = collections.deque(((name,), obj, strict) for name, obj, strict in entries)
    while queue:
        path, obj, strict = queue.popleft()
        if isinstance(obj, Variable):  # before the attribute test: a Variable forwards unknown attributes
            if path in found and found[path] is not obj:  # e.g. keys 1 and "1" in one dict: two Variables, one name
                raise ValueError(f"Checkpoint: two Variables would both be saved as '{_show(path)}'; give the "
                                 "dict distinct keys (1 and '1' name the same entry).")
            if id(obj) not in primary:
                primary[id(obj)] = path
                found[path] = obj
            elif len(path) > 0:
                edges.append((path[:-1], path[-1], id(obj)))
        elif isinstance(obj, Tensor):
            if strict:
                raise NotCheckpointable(f"Checkpoint: '{_show(path)}' is a tj.Tensor, which is immutable and "
                                        "cannot be restored into; wrap it in tj.Variable to checkpoint it.")
        elif not _is_node(obj):
            if strict:
                raise NotCheckpointable(f"Checkpoint: '{_show(path)}' is a {type(obj).__name__}, which holds no "
                                        "Variables. Pass tj.Variables, objects with a .variables attribute "
                                        "(tj.Module, optimizers), or dicts/lists/tuples of those.")
        elif id(obj) not in walked:  # (each object once: a Module referring back to its parent is no loop)
            if saving:  # (as TF: a list whose Variables moved, or a container changed behind its wrapper)
                check_saveable(obj)
            walked[id(obj)] = obj
            primary[id(obj)] = path
            for name, child, child_strict in _children(obj, strict):
                queue.append((path + (name,), child, child_strict))
        elif id(obj) in primary and primary[id(obj)] != path:
            edges.append((path[:-1], path[-1], id(obj)))
    # Only the edges that lead to saved values are kept.
    holding = {p[:i] for p in found for i in range(1, len(p) + 1)}
    aliases = [(parent, name, primary[target]) for parent, name, target in edges if primary[target] in holding]
    return found, aliases


def _show(path: Tuple[str, ...]) -> str:
    return "/".join(path)


def _outside_traces(what: str) -> None:
    # A tj.function runs its Python once per trace, not once per call: a save there would happen at
    # trace time only (and a restore would assign traced values).
    if tape_set.current().capture is not None:
        raise RuntimeError(f"{what} inside a tj.function: its Python runs when traced, not on each call. "
                           "Call save/restore outside the tj.function, e.g. in the training loop after the step.")


def _read(path: Tuple[str, ...], var: Variable, what: str) -> jax.Array:
    with tape_set.stop_recording():  # a save or restore is not part of any computation being differentiated
        value = var.read_value().value
    if isinstance(value, jax.core.Tracer):
        raise RuntimeError(f"{what}: variable '{_show(path)}' holds a traced value (inside jax.jit?); checkpoints "
                           "read and write real values: call save/restore outside the traced function.")
    return value


# -- the orbax tree: nested dicts keyed by path components -------------------------------------------
# orbax names arrays by joining keys with '.', so keys are escaped (and '.' too) to keep every path distinct.

def _key(part: str) -> str:
    # (an empty key, which TF saves, is '%': quote never makes a lone '%', and orbax needs a name)
    return quote(part, safe="").replace(".", "%2E") if part else "%"


def _nest(flat: Mapping[Tuple[str, ...], Any]) -> Dict[str, Any]:
    tree: Dict[str, Any] = {}
    for path, leaf in flat.items():
        node = tree
        for part in path[:-1]:
            node = node.setdefault(_key(part), {})
        node[_key(path[-1])] = leaf
    return tree


def _flatten(tree: Mapping[str, Any], prefix: Tuple[str, ...] = ()) -> Dict[Tuple[str, ...], Any]:
    flat: Dict[Tuple[str, ...], Any] = {}
    for key, value in tree.items():
        path = prefix + ("" if key == "%" else unquote(key),)
        if isinstance(value, Mapping):
            flat.update(_flatten(value, path))
        else:
            flat[path] = value
    return flat


def _checkpointer():
    ocp = _ocp()
    # Synchronous: save() returns only once the checkpoint is renamed into place (finalized).
    handlers = {_ITEM: ocp.PyTreeCheckpointHandler(), _GRAPH: ocp.JsonCheckpointHandler(),
                _EMPTY: ocp.JsonCheckpointHandler()}
    return ocp.Checkpointer(ocp.CompositeCheckpointHandler(**handlers))


def _save_args(flat: Mapping[Tuple[str, ...], jax.Array], aliases: List[Alias]):
    ocp = _ocp()
    items = {_ITEM: ocp.args.PyTreeSave(_nest({p: v for p, v in flat.items() if np.size(v)}))}
    if aliases:  # (a JSON item beside the arrays, only when some object is reachable by two paths)
        items[_GRAPH] = ocp.args.JsonSave([[list(parent), name, list(path)] for parent, name, path in aliases])
    empty = [[list(p), list(np.shape(v)), jnp.dtype(v.dtype).name] for p, v in flat.items() if not np.size(v)]
    if empty:
        items[_EMPTY] = ocp.args.JsonSave(empty)
    return ocp.args.Composite(**items)


def _saved(path: str) -> Dict[Tuple[str, ...], Any]:
    """``{path: metadata with .shape and .dtype}`` of every value the checkpoint directory ``path`` holds."""
    tree = _flatten(_checkpointer().metadata(path).item_metadata[_ITEM].tree)
    tree.update({tuple(p): jax.ShapeDtypeStruct(tuple(shape), jnp.dtype(dtype))
                 for p, shape, dtype in _json_item(path, _EMPTY)})
    return tree


def _json_item(path: str, item: str) -> list:
    """What the JSON item ``item`` of the checkpoint directory ``path`` holds; [] where it has none."""
    if not os.path.isdir(os.path.join(path, item)):
        return []
    ocp = _ocp()
    return _checkpointer().restore(path, ocp.args.Composite(**{item: ocp.args.JsonRestore()}))[item]


def _zero_size(meta) -> bool:
    return 0 in tuple(meta.shape)


def _read_aliases(path: str) -> List[Alias]:
    """The aliases a checkpoint directory stores (see ``_walk``), or none."""
    return [(tuple(parent), name, tuple(target)) for parent, name, target in _json_item(path, _GRAPH)]


# -- replacing a checkpoint (TF's write to an existing path) ------------------------------------------------
# The new checkpoint is written completely at a staging path beside the old one; then the two swap names in
# one rename (Linux's renameat2 RENAME_EXCHANGE), and the old one, now at the staging path, is deleted. Where
# the filesystem cannot swap, the old one is renamed aside (`{path}.tapejax-replaced`) and the new one into
# place: a kill between the two renames leaves the old one aside, which `_recover` puts back.

_STAGING = ".tapejax-staging-"
_REPLACED = ".tapejax-replaced"


_RENAMEAT2: list = []  # [the C function, or None where there is none], looked up once


def _renameat2():
    """libc's renameat2, or None. Looked up once: each ``ctypes.CDLL`` is a reference cycle (its function
    pointer class), which a save would otherwise leave to the garbage collector."""
    if not _RENAMEAT2:
        try:
            fn = ctypes.CDLL(None, use_errno=True).renameat2
            fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
        except (AttributeError, OSError):
            fn = None
        _RENAMEAT2.append(fn)
    return _RENAMEAT2[0]


def _exchange(a: str, b: str) -> bool:
    """Swap the names of ``a`` and ``b`` atomically; False where this system or filesystem cannot."""
    renameat2 = _renameat2()
    if renameat2 is None:
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), b)


def _swap_into_place(staging: str, target: str) -> None:
    """Put the complete checkpoint at ``staging`` at ``target`` in place of the one there."""
    if _exchange(staging, target):
        shutil.rmtree(staging, ignore_errors=True)  # (the old checkpoint now)
        return
    aside = target + _REPLACED
    os.rename(target, aside)
    os.rename(staging, target)
    shutil.rmtree(aside, ignore_errors=True)


def _recover(target: str, staging: bool = True) -> None:
    """Finish what a write killed while replacing the checkpoint at ``target`` left: the old checkpoint
    renamed aside goes back when nothing replaced it (else it is deleted), and (``staging``) staging
    directories are deleted."""
    aside = target + _REPLACED
    if os.path.isdir(aside):
        if os.path.lexists(target):
            shutil.rmtree(aside, ignore_errors=True)
        else:
            os.rename(aside, target)
    folder, name = os.path.split(target)
    if staging and os.path.isdir(folder):
        for entry in os.listdir(folder):
            if entry.startswith(name + _STAGING):
                shutil.rmtree(os.path.join(folder, entry), ignore_errors=True)


# -- Checkpoint -------------------------------------------------------------------------------------------

class Checkpoint:
    """Saves and restores the Variables of the objects given by keyword (see the module docstring for
    what an object may be and how each Variable is named). ``root`` (TF's first argument, also
    ``root=weakref.ref(obj)``): an object whose attributes are top-level names beside the keywords.

    ``save(prefix)`` writes a new numbered checkpoint directory (``write(path)`` an unnumbered one);
    ``restore(path)`` assigns the saved values into the existing Variables, after checking the shape and
    dtype of every one it restores (all or nothing), keeping each Variable's sharding.
    """

    def __init__(self, root: Any = None, **objects: Any) -> None:
        _reserved(objects)
        if root is not None:  # TF's root object: its children are the checkpoint's top-level names
            target = root() if isinstance(root, weakref.ref) else root
            if isinstance(target, (Variable, Tensor, Checkpoint)) or not _is_node(target):
                raise NotCheckpointable(f"Checkpoint: the root must be an object holding Variables (a tj.Module, "
                                        f"a dict, a list...), got a {type(target).__name__}; pass a single "
                                        "Variable by keyword: Checkpoint(v=v).")
            taken = {name for name, _, _ in _children(target, strict=False)}
            for name in objects:
                if name in taken:  # (TF's words)
                    raise ValueError(f"Cannot attach {name!r} to the Checkpoint: root.{name} already exists. Give "
                                     "the object another keyword.")
        object.__setattr__(self, "_root", root)  # (a weakref.ref to it, as TF, holds it weakly)
        object.__setattr__(self, "_objects", {})
        for name in sorted(objects):  # (TF's order: by keyword; the first path to a shared Variable names it)
            self._objects[name] = wrap(objects[name])  # (a list or dict as TF's wrappers: see module.ListWrapper)
        object.__setattr__(self, "_pending", None)  # the last restore, for objects assigned after it
        _collect(self)  # report an object that holds no Variables now, not at the first save

    def _entries(self) -> List[Tuple[str, Any, bool]]:
        """``(name, object, strict)`` for each top-level name: the root's children, then the objects given by
        keyword (strict: an object that holds no Variables raises)."""
        root = self.__dict__.get("_root")
        if isinstance(root, weakref.ref):
            root = root()
        entries = [] if root is None else _children(root, strict=False)
        return entries + [(name, obj, True) for name, obj in self._objects.items()]

    def _graph(self) -> Dict[str, Any]:
        """``{name: object}`` for each top-level name (see ``_entries``)."""
        return {name: obj for name, obj, _ in self._entries()}

    # The objects are attributes too, as TF's: ``ckpt.step.assign_add(1)``, ``ckpt.extra = [v]``.
    def __getattr__(self, name: str) -> Any:
        try:
            obj = self.__dict__["_objects"][name]
        except KeyError:
            raise AttributeError(f"'Checkpoint' object has no attribute {name!r} (its objects: "
                                 f"{sorted(self.__dict__.get('_objects', ()))})") from None
        return obj

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("_root", "_objects", "_pending", "_pending_at", "_save_counter"):
            raise AttributeError(f"Checkpoint: {name!r} is the Checkpoint's own state and cannot be set")
        if not _is_node(value):
            # As TF: only the constructor's objects must be trackable; an attribute set later that holds
            # no Variables (a number, a string, a Tensor) is an ordinary attribute, not saved.
            object.__setattr__(self, name, value)
            return
        if name.startswith("_"):
            raise AttributeError(f"Checkpoint: {name!r} cannot name an object (names starting with '_' are private)")
        _reserved({name: value})
        self.__dict__.pop(name, None)  # (an ordinary attribute of that name gives way to the object)
        value = wrap(value)  # (a list or dict as TF's wrappers: restored as it grows, see _watch_containers)
        self._restore_assigned(name, value)
        self._objects[name] = value
        if isinstance(value, (ListWrapper, DictWrapper)) and self._waiting(name):
            _watch_containers(self)

    def _waiting(self, name: str) -> bool:
        """Whether the last restore (of this Checkpoint, or of one holding it) has values waiting for ``name``."""
        pending = self.__dict__.get("_pending")
        if pending is not None and pending.waiting(name):
            return True
        nested = self.__dict__.get("_pending_at")
        return nested is not None and nested[0].waiting_at(nested[1] + (name,))

    def _restore_assigned(self, name: str, value: Any) -> None:
        """TF's restore on assignment: ``value``, assigned as ``name`` (or grown since), takes the values that
        the last restore holds for it and that no Variable took yet."""
        if not self._waiting(name) or not _collect({name: value}):
            return
        _outside_traces("Checkpoint: assigning an object after a restore")
        pending = self.__dict__.get("_pending")
        if pending is not None and pending.waiting(name):
            self._restore_into(pending, {name: value}, waiting=True)
        nested = self.__dict__.get("_pending_at")  # (this Checkpoint sits inside the one restored)
        if nested is not None and nested[0].waiting_at(nested[1] + (name,)):
            wrapped: Dict[str, Any] = {name: value}
            for part in reversed(nested[1]):  # (dict keys are path names: the value sits at its saved path)
                wrapped = {part: wrapped}
            self._restore_into(nested[0], wrapped, waiting=True, watch=False)

    def __delattr__(self, name: str) -> None:
        # As TF: deleting an object's attribute stops saving it.
        if name in self.__dict__ and not name.startswith("_"):
            object.__delattr__(self, name)
        elif name in self.__dict__.get("_objects", ()):
            del self._objects[name]
        else:
            raise AttributeError(f"'Checkpoint' object has no attribute {name!r}")

    def variables(self) -> Dict[str, Variable]:
        """``{path: Variable}`` in checkpoint order: the names a checkpoint stores values under."""
        return {_show(p): v for p, v in _collect(self).items()}

    @property
    def save_counter(self) -> Variable:
        """How many times ``save`` numbered a checkpoint (TF's ``save_counter``: an int32 Variable, saved with
        every numbered checkpoint and restored from it)."""
        counter = self.__dict__.get("_save_counter")
        if counter is None:
            with tape_set.isolated():
                counter = Variable(np.int32(0), trainable=False, name="save_counter")
            object.__setattr__(self, "_save_counter", counter)
        return counter

    def save(self, file_prefix: PathLike, options: Any = None) -> str:
        """TF's ``Checkpoint.save``: write a new checkpoint numbered from ``save_counter``, at
        ``{file_prefix}-{n}``, and return that path (``restore`` takes it, or the prefix for the newest).

        As TF, a checkpoint already at that path (an earlier run's, counting from 1 again) is replaced,
        atomically (see ``write``). The checkpoint appears only once complete, and ``save_counter`` moves only
        then. ``options`` (TF's ``CheckpointOptions``) is accepted and ignored.
        """
        _outside_traces("Checkpoint.save")
        prefix = os.fspath(file_prefix)  # (paths returned as spelled, relative ones too, as TF)
        n = int(self.save_counter.numpy()) + 1
        path = self._write(f"{prefix}-{n}", self._values("Checkpoint.save", counter=n), "Checkpoint.save")
        _note_latest(path)
        self.save_counter.assign(n)
        return path

    def write(self, file_prefix: PathLike, options: Any = None) -> str:
        """Write every Variable's value to the new directory ``file_prefix`` (exactly there: unnumbered, as
        TF's ``Checkpoint.write``) and return its absolute path. ``save_counter`` is written too once it
        exists (TF's), or when there is nothing else to write.

        The directory appears only once complete (orbax writes to a temporary directory and renames
        it). A checkpoint already at that path is replaced, as TF, atomically: the new one is written
        completely beside it, then the two directories swap names in one step, so a write killed at any
        point leaves the old checkpoint or the new one at that path, restorable.
        """
        _outside_traces("Checkpoint.write")
        return self._write(os.fspath(file_prefix), self._values("Checkpoint.write"),
                           "Checkpoint.write")

    def _write(self, path: str, values: Tuple[Dict[Tuple[str, ...], Any], List[Alias]], what: str) -> str:
        target = os.path.abspath(path)
        _recover(target)  # (what a write killed while replacing this checkpoint left)
        if not os.path.lexists(target):
            _checkpointer().save(target, _save_args(*values))
            return path
        if not os.path.isdir(os.path.join(target, _ITEM)):  # (only a checkpoint is replaced, never other files)
            raise FileExistsError(f"{what}: '{path}' exists and is not a checkpoint, so it is not replaced; "
                                  "give the path of a new (or an existing checkpoint's) directory.")
        staging = f"{target}{_STAGING}{os.urandom(6).hex()}.tmp"  # (ends in no number: never a save() name)
        _checkpointer().save(staging, _save_args(*values))
        _swap_into_place(staging, target)
        return path

    def read(self, save_path: Optional[PathLike], options: Any = None, *, partial: bool = False) -> "LoadStatus":
        """TF's ``Checkpoint.read``: ``restore``."""
        return self.restore(save_path, partial=partial)

    def restore(self, save_path: Optional[PathLike], options: Any = None, *, partial: bool = False) -> "LoadStatus":
        """Assign the values saved at ``save_path`` (a ``save``/``write`` directory, a CheckpointManager
        checkpoint, or a ``save`` prefix: its newest) to the Variables, and return the path as a
        ``LoadStatus`` (a ``str`` with TF's status methods). ``save_path=None`` restores nothing (as TF:
        ``ckpt.restore(manager.latest_checkpoint)`` before the first save starts from the initial values).

        As TF: each Variable whose path the checkpoint holds is restored; one the checkpoint has no value
        for keeps its value (``status.assert_existing_objects_matched()`` raises); checkpoint values that
        match no Variable are kept for objects assigned to this Checkpoint later (``ckpt.v = v`` restores
        ``v`` then), and ``status.assert_consumed()`` raises while some are left (``expect_partial()``, or
        ``partial=True``, says that is intended and silences the warning logged for them). A saved shape or
        dtype different from the Variable's raises ``ValueError`` listing each mismatch, before any
        Variable is changed.
        """
        _outside_traces("Checkpoint.restore")
        if save_path is None:
            return LoadStatus("", restored=False)
        path = _checkpoint_path(save_path)
        absolute = os.path.abspath(path)  # (what orbax reads, also for a deferred restore after a chdir)
        saved = _saved(absolute)
        record = _Restore(absolute, saved, _read_aliases(absolute))
        self._restore_into(record, self._graph(), counter=True)
        root = self.__dict__.get("_root")
        root = root() if isinstance(root, weakref.ref) else root
        if isinstance(root, Module) and record.unused():
            _watch_root(record, root)
        record.done = True
        object.__setattr__(self, "_pending", record)
        # A Checkpoint reached inside this one (TF's guide: Checkpoint(net=Checkpoint(l1=fake_layer))) restores
        # what is assigned to it later too, from its place in the checkpoint (TF's restore on assignment).
        for at, node in _match(self._graph(), record.saved, record.aliases)[1].items():
            if at and isinstance(node, Checkpoint) and node is not self:
                object.__setattr__(node, "_pending_at", (record, at))
                _watch_containers(node)
        if record.unused():
            _watch_containers(self)
        status = LoadStatus(path, restored=True, record=record, checkpoint=self)
        return status.expect_partial() if partial else status

    def _restore_into(self, record: "_Restore", objects: Mapping[str, Any], counter: bool = False,
                      waiting: bool = False, watch: bool = True) -> None:
        """Restore ``record``'s values into ``objects`` (see ``restore``). ``waiting``: only the values no
        Variable took yet, into Variables not restored yet (an object assigned after the restore, or
        Variables created since; objects with none yet keep waiting)."""
        ocp = _ocp()
        path, saved = record.path, record.saved
        if waiting:
            saved = {p: m for p, m in saved.items() if p not in record.used}
        # Each saved path is followed by name through the objects (TF matches a checkpoint's object graph so):
        # the Variable it leads to takes its value, wherever the objects were built or in which order.
        matched, nodes = _match(objects, saved, record.aliases)
        if waiting:
            matched = {p: v for p, v in matched.items() if v.id not in record.bound}
        # An optimizer before its first step has no state Variables yet: its saved state waits for its
        # build (TF's deferred restoration). (A Variable is not asked: it would forward `built` to its
        # value, a read.)
        deferred: Dict[int, Tuple[Any, List[Tuple[str, ...]]]] = {}
        for p in saved:
            if p not in matched and len(p) >= 3 and p[-2] == "variables" and p[-1].isdigit():
                owner = nodes.get(p[:-2], _MISSING)
                if (owner is not _MISSING and not isinstance(owner, (Variable, Tensor))
                        and getattr(owner, "built", True) is False
                        and callable(getattr(owner, "restore_on_build", None))):
                    deferred.setdefault(id(owner), (owner, []))[1].append(p)
        later = {p for _, paths in deferred.values() for p in paths}
        # A tj.Module's values wait for its lazy build, each assigned as its Variable appears (TF's deferred
        # restoration; see _watch_build). Any other object holding no Variables yet while the checkpoint has
        # values for it: TF would restore its Variables when created; here they would silently keep their
        # initial values, so this is an error.
        empty = [name for name in objects if not any(p[0] == name for p in matched.keys() | later)
                 and any(p[0] == name for p in saved) and not isinstance(objects[name], Module)
                 and not isinstance(objects[name], (list, dict))  # (they take their values as they grow)
                 and not (getattr(objects[name], "built", True) is False
                          and callable(getattr(objects[name], "restore_on_build", None)))]
        if empty and not waiting:
            raise ValueError(f"Checkpoint.restore('{path}'): {', '.join(repr(n) for n in empty)} hold(s) no "
                             "Variables yet, but the checkpoint has values for them; a tj.Module builds its "
                             "Variables on its first call: call it once, then restore.")
        current = {p: _read(p, v, "Checkpoint.restore") for p, v in matched.items()}
        _check(path, saved, matched, current)
        count = (_SAVE_COUNTER,) if counter and (_SAVE_COUNTER,) in saved else None  # (from save(); no object's)

        # Read each array straight into the sharding the Variable has now; one placed by default (not committed
        # to a device) stays so, as NumPy read onto the default device by its assign: committed to one device,
        # it could no longer meet sharded Variables in one computation.
        abstract = {p: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=a.sharding) if getattr(a, "committed", True)
                    else np.empty(a.shape, a.dtype) for p, a in current.items()}
        abstract.update({p: np.empty(tuple(saved[p].shape), np.dtype(saved[p].dtype))  # (on the host)
                         for p in later | ({count} if count else set())})
        # (a zero-size value is its shape and dtype: not in the orbax item, made here)
        empty = {p: np.zeros(tuple(saved[p].shape), jnp.dtype(saved[p].dtype))
                 for p in abstract if _zero_size(saved[p])}
        abstract = {p: a for p, a in abstract.items() if p not in empty}
        if not abstract and not empty:
            if watch:
                _watch_build(record, objects)
            return
        restored = dict(empty)
        if abstract:
            tree = _nest(abstract)
            args = ocp.args.PyTreeRestore(tree, restore_args=ocp.checkpoint_utils.construct_restore_args(tree),
                                          partial_restore=True)
            restored.update(_flatten(_checkpointer().restore(path, ocp.args.Composite(**{_ITEM: args}))[_ITEM]))
        # Every check passed and every array is read: now assign them all, Ctrl-C held back meanwhile (a restore
        # stopped halfway would leave a model of old and restored values)
        with interrupts.held():
            for p, var in matched.items():
                if _restored_by.get(var.id, 0) > record.seq:  # a later restore assigned it already: it wins (TF)
                    continue
                if var.id not in _restored_by:
                    weakref.finalize(var, _restored_by.pop, var.id, None)
                _restored_by[var.id] = record.seq
                var.assign(restored[p], read_value=False)  # (not an access a tape sees, as TF's restore)
            for owner, paths in deferred.values():
                owner.restore_on_build([restored[p] for p in sorted(paths, key=lambda p: int(p[-1]))], path)
            if count is not None:
                self.save_counter.assign(np.int32(restored[count]))
        record.used.update(matched, later, {count} if count else ())
        record.on_build.update(later)
        record.bound.update(v.id for v in matched.values())
        if watch:
            _watch_build(record, objects)

    def _values(self, what: str, counter: Optional[int] = None) -> Tuple[Dict[Tuple[str, ...], Any], List[Alias]]:
        """What a save writes: ``{path: value}`` and the aliases (see ``_walk``)."""
        found, aliases = _walk(self, saving=True)
        flat: Dict[Tuple[str, ...], Any] = {p: _read(p, v, what) for p, v in found.items()}
        if counter is not None:
            flat[(_SAVE_COUNTER,)] = np.int32(counter)
        elif not any(np.size(v) for v in flat.values()) or "_save_counter" in self.__dict__:
            # (TF's write saves the counter once it exists; here also when nothing else has a value to write:
            # orbax writes no checkpoint of zero-size values alone)
            flat[(_SAVE_COUNTER,)] = _read((_SAVE_COUNTER,), self.save_counter, what)
        return flat, aliases


def _watch_containers(checkpoint: "Checkpoint") -> None:
    """TF's ListWrapper/_DictWrapper restore: while a restore has values waiting for a list or dict attribute of
    ``checkpoint`` (``ckpt.listed = []``, restored before or after), a Variable added to it (``append``,
    ``extend``, ``+=``, item assignment, ``update``, also inside a list or dict it holds) gets its saved value
    then. The wrappers notify every addition (module.watch_build), as a Module's lazy build does."""
    def restore(ckpt: "Checkpoint") -> bool:
        waiting = False
        for name, obj in list(ckpt.__dict__["_objects"].items()):
            if isinstance(obj, (ListWrapper, DictWrapper)) and ckpt._waiting(name):
                ckpt._restore_assigned(name, obj)
                waiting = waiting or ckpt._waiting(name)
        return waiting
    watch_build(checkpoint, restore)


def _watch_build(record: "_Restore", modules: Mapping[str, Any]) -> None:
    """TF's deferred restoration into a lazily built Module: while ``record`` holds values for a Module's
    paths that no Variable took yet, each Variable the Module creates gets its value as soon as it appears
    (module.watch_build), before the first call computes with it. Holds the Module weakly, and no
    Checkpoint (the one restored may be dropped): a Checkpoint of that Module alone does the restore."""
    for name, module in modules.items():
        if isinstance(module, Module) and record.waiting(name):
            def restore(module: Module, name: str = name) -> bool:
                Checkpoint(**{name: module})._restore_into(record, {name: module}, waiting=True, watch=False)
                return record.waiting(name)
            watch_build(module, restore)


def _watch_root(record: "_Restore", root: Module) -> None:
    """``_watch_build`` for the root Module of ``Checkpoint(root)``: its attributes are the top-level names,
    so a Variable assigned to it later (``root.v = tj.Variable(...)``) gets its saved value then (TF)."""
    def restore(module: Module) -> bool:
        objects = {name: child for name, child, _ in _children(module, strict=False)}
        Checkpoint()._restore_into(record, objects, waiting=True, watch=False)
        return bool(record.unused())
    watch_build(root, restore)


def _reserved(objects: Mapping[str, Any]) -> None:
    if _SAVE_COUNTER in objects:
        raise ValueError(f"Checkpoint: '{_SAVE_COUNTER}' names the Checkpoint's own counter of save() (as TF); "
                         "give the object another name.")


def _newest_numbered(prefix: str) -> Optional[str]:
    """The newest complete ``{prefix}-{n}`` that ``save(prefix)`` wrote, or None."""
    folder, stem = os.path.split(prefix)
    folder = folder or "."
    if not os.path.isdir(folder):
        return None
    numbers = [int(name[len(stem) + 1:]) for name in os.listdir(folder)
               if name.startswith(stem + "-") and name[len(stem) + 1:].isdigit()
               and os.path.isdir(os.path.join(folder, name, _ITEM))]
    return f"{prefix}-{max(numbers)}" if numbers else None


def _checkpoint_path(save_path: PathLike) -> str:
    """The complete checkpoint directory that ``save_path`` names (a ``save()`` prefix: its newest)."""
    ocp = _ocp()
    path = os.fspath(save_path)
    if not os.path.exists(path):
        _recover(os.path.abspath(path), staging=False)  # (the old checkpoint, where a killed write put it aside)
    if not os.path.exists(path):
        path = _newest_numbered(path) or path  # a save() prefix: its newest checkpoint
    if not os.path.isdir(path) or not ocp.step.is_path_finalized(path):
        raise FileNotFoundError(f"Checkpoint.restore: no complete checkpoint at '{path}' (a directory written "
                                "by Checkpoint.save or CheckpointManager.save; a '*.orbax-checkpoint-tmp-*' "
                                "directory is an interrupted save and cannot be restored).")
    if not os.path.isdir(os.path.join(path, _ITEM)):  # e.g. a CheckpointManager's directory (of checkpoints)
        raise FileNotFoundError(f"Checkpoint.restore: '{path}' is not a checkpoint written by Checkpoint.save "
                                "or CheckpointManager.save (it holds no saved variables). For a "
                                "CheckpointManager's directory, restore manager.latest_checkpoint (or one "
                                "of manager.checkpoints).")
    return path


_restores = itertools.count(1)
_restored_by: Dict[int, int] = {}  # Variable id -> the restore that last assigned it (while it lives)


class _Restore:
    """One restore of a checkpoint: what it holds, which of its values were restored (``used``) and into
    which Variables (``bound``, by id). The Checkpoint keeps its last one, to restore objects assigned
    later; the LoadStatus reads it. Restores are numbered (``seq``): an object assigned after two
    restores keeps the later restore's value (as TF: the last restore determines the final value)."""

    def __init__(self, path: str, saved: Mapping[Tuple[str, ...], Any], aliases: List[Alias] = ()) -> None:
        self.path, self.saved, self.aliases = path, dict(saved), list(aliases)
        self.seq = next(_restores)
        self.used: set = set()
        self.bound: set = set()
        self.on_build: set = set()  # paths handed to an unbuilt optimizer: its build makes their Variables
        self.expect_partial = False
        self.done = False  # (a restore that raised warns of nothing)

    def unused(self) -> List[Tuple[str, ...]]:
        return [p for p in self.saved if p not in self.used]

    def waiting(self, name: str) -> bool:
        return self.waiting_at((name,))

    def waiting_at(self, path: Tuple[str, ...]) -> bool:
        """Whether a value no Variable took yet is saved under ``path``, or under an alias there (TF's second
        path to one object: ``ckpt.mapped = {'two': ckpt.listed[1]}`` saves ``mapped/two`` as an alias)."""
        unused = self.unused()
        if any(p[:len(path)] == path for p in unused):
            return True
        return any((parent + (name,))[:len(path)] == path and any(p[:len(target)] == target for p in unused)
                   for parent, name, target in self.aliases)

    def __del__(self) -> None:
        # TF logs the values nothing took when its restore is dropped, unless expect_partial() was called.
        try:
            unused = self.unused()
            if unused and self.done and not self.expect_partial:
                logging.getLogger("tapejax").warning(
                    "Checkpoint.restore('%s'): values in the checkpoint were not restored into any Variable: "
                    "%s. Call status.expect_partial() (or restore(..., partial=True)) if that is intended.",
                    self.path, ", ".join(_root(p) for p in unused))
        except Exception:  # (at interpreter exit logging may be gone)
            pass


def _root(path: Tuple[str, ...]) -> str:
    return "(root)." + ".".join(path)  # TF's spelling of an object's place in the checkpoint


class LoadStatus(str):
    """What ``Checkpoint.restore`` returns: the restored checkpoint's path (``""`` for ``restore(None)``),
    with the methods of TF's load status. They check the state now: values restored later by assigning an
    object to the Checkpoint count."""

    def __new__(cls, path: str, restored: bool, record: Optional[_Restore] = None,
                checkpoint: Optional[Checkpoint] = None) -> "LoadStatus":
        status = super().__new__(cls, path)
        status.restored = restored
        status._record = record
        status._checkpoint = checkpoint  # (whose last restore refers to no status: no cycle)
        return status

    def _assert_restored(self) -> _Restore:
        if not self.restored:
            raise AssertionError("No checkpoint specified (restore(None)); nothing was restored.")
        self._catch_up()
        return self._record

    def _catch_up(self) -> None:
        # Values still waiting go into the Variables at their paths created since the restore (TF restores
        # a Variable when it is created; here when the status is next used).
        record = self._record
        if record is not None and record.unused():
            waiting = {p[0] for p in record.unused()}
            objects = {n: o for n, o in self._checkpoint._graph().items() if n in waiting}
            if objects:
                self._checkpoint._restore_into(record, objects, waiting=True)

    def assert_consumed(self) -> "LoadStatus":
        """As TF: every value of the checkpoint was restored into a Variable, and every Variable of the
        Checkpoint's objects got one; ``AssertionError`` naming the first ones otherwise."""
        record = self._assert_restored()
        unused = record.unused()
        if unused:
            _, nodes = _match(self._checkpoint._graph(), record.saved, record.aliases)
            unresolved = [p for p in unused if p not in nodes]  # (TF reports these first)
            if unresolved:
                raise AssertionError(f"Unresolved object in checkpoint {_root(unresolved[0])}: no Variable took "
                                     f"the checkpoint's '{_show(unresolved[0])}' ({len(unused)} value(s) unused: "
                                     f"{', '.join(_show(p) for p in unused)}).")
            # An object is at that path, but not a Variable that could take the value (TF's words).
            raise AssertionError("Unused attributes in these objects (the attributes exist in the checkpoint but "
                                 "were not restored):\n" + "\n".join(f"{_root(p)} ({nodes[p]!r}): ['VARIABLE_VALUE']"
                                                                     for p in unused))
        return self.assert_existing_objects_matched()

    def assert_existing_objects_matched(self) -> "LoadStatus":
        """As TF: every Variable of the Checkpoint's objects got a value from the checkpoint."""
        record = self._assert_restored()
        unbound = [(p, v) for p, v in _collect(self._checkpoint).items()
                   if v.id not in record.bound and p not in record.on_build]  # (built from the saved state)
        if unbound:
            raise AssertionError(f"Found {len(unbound)} Python objects that were not bound to checkpointed "
                                 "values, likely due to changes in the Python program. Showing "
                                 f"{len(unbound)} of {len(unbound)} unmatched objects: "
                                 + ", ".join(f"'{_show(p)}' (Variable '{v.name}')" for p, v in unbound))
        return self

    def assert_nontrivial_match(self) -> "LoadStatus":
        """As TF: something in the checkpoint was restored (the save counter counts)."""
        if not self._assert_restored().used:
            raise AssertionError(f"Nothing in the checkpoint '{self}' matched the Checkpoint's objects.")
        return self

    def expect_partial(self) -> "LoadStatus":
        """As TF: values left unrestored are intended, so no warning is logged for them."""
        if self._record is not None:
            self._record.expect_partial = True
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        """The values were assigned eagerly (TF's graph-mode method); values still waiting go into Variables
        created since at their paths. After ``restore(None)``: ``AssertionError``, as TF."""
        if not self.restored:
            raise AssertionError("No checkpoint specified, so no restore ops are available (restore(None)).")
        self._catch_up()

    def initialize_or_restore(self, session: Any = None) -> None:
        """As ``run_restore_ops``; after ``restore(None)`` nothing (the Variables are initialized already)."""
        if self.restored:
            self._catch_up()


def list_variables(path: PathLike) -> List[Tuple[str, Tuple[int, ...]]]:
    """``(name, shape)`` of every value saved at ``path`` (a checkpoint directory, or a CheckpointManager's
    directory: its latest checkpoint), sorted by name, as TF's ``tf.train.list_variables``."""
    path = os.path.abspath(os.fspath(path))
    if not os.path.isdir(os.path.join(path, _ITEM)):
        latest = latest_checkpoint(path)
        if latest is None:
            raise FileNotFoundError(f"list_variables: no checkpoint at '{path}'")
        path = latest
    tree = _saved(path)
    return sorted((_show(p), tuple(meta.shape)) for p, meta in tree.items())


_NUMBERED = re.compile(r"^(.+)-(0|[1-9][0-9]*)$")  # what save(prefix) and CheckpointManager.save name: prefix-n


def _numbered(directory: str, name: Optional[str] = None) -> List[Tuple[int, int, str]]:
    """``(when written, n, path)`` of the complete ``{name}-{n}`` checkpoints in ``directory`` (any name
    when ``name`` is None), oldest first. When written: the directory's modification time, which its
    last file sets just before the save renames it into place."""
    if not os.path.isdir(directory):
        return []
    ocp = _ocp()
    found = []
    for entry in os.listdir(directory):
        match = _NUMBERED.match(entry)
        full = os.path.join(directory, entry)
        if (match and (name is None or match.group(1) == name) and os.path.isdir(os.path.join(full, _ITEM))
                and ocp.step.is_path_finalized(full)):
            found.append((os.stat(full).st_mtime_ns, int(match.group(2)), full))
    return sorted(found)


_LATEST = "_latest_checkpoint.json"  # a directory's latest save (TF's ``checkpoint`` state file)


def _write_json(path: str, value: Any) -> None:
    """``value`` as JSON at ``path``, atomically: a kill leaves the old file or the new one."""
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        # (json.dumps: json.dump's pure-Python encoder is closures referring to each other, a cycle per call)
        f.write(json.dumps(value))
    os.replace(tmp, path)


def _note_latest(path: str) -> None:
    """Record the checkpoint a save just completed at ``path`` as its directory's latest (what TF's
    Checkpoint.save and CheckpointManager.save write in the directory's ``checkpoint`` file;
    ``Checkpoint.write`` records nothing, as TF's)."""
    directory, name = os.path.split(os.path.abspath(path))
    _write_json(os.path.join(directory, _LATEST), {"latest": name})


def latest_checkpoint(checkpoint_dir: PathLike, latest_filename: Any = None) -> Optional[str]:
    """The path of the checkpoint last saved in ``checkpoint_dir`` by ``Checkpoint.save`` or a
    ``CheckpointManager`` (``{prefix}-{n}``), or None (as TF's ``tf.train.latest_checkpoint``: a
    ``Checkpoint.write`` there, even to a name ending in a number, does not count); ``Checkpoint.restore``
    takes it. A directory without that record (or whose latest was deleted): its newest ``{prefix}-{n}``."""
    directory = os.fspath(checkpoint_dir)
    found = _numbered(directory)
    try:
        with open(os.path.join(directory, _LATEST)) as f:
            name = json.load(f)["latest"]
    except (OSError, ValueError, KeyError, TypeError):
        name = None
    for _, _, path in reversed(found):
        if os.path.basename(path) == name:
            return path
    return found[-1][2] if found else None


def _check(path: str, saved: Mapping[Tuple[str, ...], Any], targets: Mapping[Tuple[str, ...], Variable],
           current: Mapping[Tuple[str, ...], jax.Array]) -> None:
    problems: List[str] = []
    for p, var in targets.items():
        meta = saved[p]
        shape, dtype = tuple(meta.shape), np.dtype(meta.dtype)
        have_shape, have_dtype = tuple(current[p].shape), np.dtype(current[p].dtype)
        if shape != have_shape or dtype != have_dtype:
            problems.append(f"'{_show(p)}' (Variable '{var.name}'): incompatible tensor with shape {shape} dtype "
                            f"{dtype} in the checkpoint, the Variable has shape {have_shape} dtype {have_dtype}")
    if problems:
        raise ValueError(f"Checkpoint.restore('{path}'): nothing was restored, because\n  - "
                         + "\n  - ".join(problems)
                         + "\nRestore into objects built as when saving (same keyword names, same structure, "
                           "Variables created in the same order, same shapes and dtypes). "
                           "Checkpoint.variables() lists the paths.")


# -- CheckpointManager ----------------------------------------------------------------------------------

class CheckpointManager:
    """TF's ``tf.train.CheckpointManager``: numbered checkpoints ``{directory}/{checkpoint_name}-{n}`` of one
    ``Checkpoint``, keeping the newest ``max_to_keep`` (``None``: all).

    As TF: checkpoints are numbered from the Checkpoint's ``save_counter`` (``save()`` adds one to it, also
    when given ``checkpoint_number``), listed in the order saved, and the oldest beyond ``max_to_keep`` is
    deleted, unless ``keep_checkpoint_every_n_hours`` keeps it (it then leaves ``checkpoints``, for good);
    with ``step_counter`` and ``checkpoint_interval``, ``save()`` saves only every ``checkpoint_interval``
    steps. A manager opened on a directory takes over the ``{checkpoint_name}-{n}`` checkpoints a manager saved
    there (as TF's, those its state file lists; never those of ``Checkpoint.save``, which it leaves on disk).

    As TF, saving under a number already on disk replaces that checkpoint; here atomically (see
    ``Checkpoint.write``). Only complete checkpoints are listed: each save is renamed into place when complete;
    temporary directories left by a killed save are removed when a manager opens the directory; and a
    checkpoint beyond ``max_to_keep`` is first renamed out of the checkpoint names (into
    ``directory/_deleted``), then deleted, so a kill during a deletion never leaves a half-deleted
    checkpoint that still looks like one.
    """

    def __init__(self, checkpoint: Checkpoint, directory: PathLike, max_to_keep: Optional[int],
                 keep_checkpoint_every_n_hours: Optional[float] = None, checkpoint_name: str = "ckpt",
                 step_counter: Optional[Variable] = None, checkpoint_interval: Optional[int] = None,
                 init_fn: Optional[Callable[[], Any]] = None, last_checkpoint_step: Optional[int] = None) -> None:
        if not isinstance(checkpoint, Checkpoint):
            raise TypeError(f"CheckpointManager: expected a tj.train.Checkpoint, got {type(checkpoint).__name__}; "
                            "wrap the objects first: CheckpointManager(Checkpoint(model=m), directory, max_to_keep).")
        if max_to_keep is not None and (isinstance(max_to_keep, bool) or not isinstance(max_to_keep, int)
                                        or max_to_keep <= 0):
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got {max_to_keep!r}.")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        if not isinstance(checkpoint_name, str) or not checkpoint_name or "/" in checkpoint_name \
                or checkpoint_name.startswith("_"):
            raise ValueError(f"CheckpointManager: checkpoint_name={checkpoint_name!r}; give a file name (not "
                             "starting with '_').")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)  # (paths returned as spelled, relative ones too, as TF)
        self._max_to_keep = max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._name = checkpoint_name
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._last_checkpoint_step = last_checkpoint_step
        self._init_fn = init_fn
        self._trash = os.path.join(self._directory, _TRASH)
        os.makedirs(self._directory, exist_ok=True)
        self._clean()  # what a save or a deletion killed in an earlier run left
        # The checkpoints on disk are the truth; a small state file adds what they cannot say (TF's
        # CheckpointState fields): when each was saved, which were kept for keep_checkpoint_every_n_hours
        # (no longer managed: never deleted, not listed) and when the last of those was saved.
        self._state_file = os.path.join(self._directory, f"_{checkpoint_name}.manager.json")
        state = self._read_state()
        now = time.time()
        self._last_preserved = state.get("last_preserved_timestamp", now - 1.0)
        if now < self._last_preserved:  # the clock went back: keep what cannot be told apart (as TF)
            logging.getLogger("tapejax").warning(
                "time.time() returned a value %f seconds behind the last preserved checkpoint timestamp.",
                self._last_preserved - now)
            self._last_preserved = now
        self._preserved = set(state.get("preserved", ()))
        saved_at = state.get("timestamps", {})
        found = []
        for mtime_ns, _, path in _numbered(self._directory, checkpoint_name):
            name = os.path.basename(path)
            if name not in saved_at and name != state.get("saving"):
                continue  # not a manager's (Checkpoint.save's, a copy's): never deleted, as TF's
            when = min(saved_at.get(name, mtime_ns / 1e9), now)  # (a save killed before the state: its mtime)
            if name not in self._preserved and when > self._last_preserved:  # (TF's rule)
                found.append((when, mtime_ns, path))
        self._maybe_delete: Dict[str, float] = {path: when for when, _, path in sorted(found)}  # oldest first
        self._latest = latest_checkpoint(self._directory)

    @property
    def directory(self) -> str:
        """The directory the managed checkpoints are written to."""
        return self._directory

    @property
    def checkpoint(self) -> Checkpoint:
        """The ``tj.train.Checkpoint`` this manager saves and restores."""
        return self._checkpoint

    @property
    def checkpoint_interval(self) -> Optional[int]:
        """The least number of ``step_counter`` steps between saves, or None (each ``save()`` saves)."""
        return self._checkpoint_interval

    @property
    def checkpoints(self) -> List[str]:
        """Paths of the managed checkpoints, oldest first (as TF: not those kept for
        ``keep_checkpoint_every_n_hours``)."""
        return list(self._maybe_delete)

    @property
    def steps(self) -> List[int]:
        """The numbers of ``checkpoints``, oldest first."""
        return [self._number(p) for p in self._maybe_delete]

    @property
    def latest_checkpoint(self) -> Optional[str]:
        """Path of the checkpoint last saved in ``directory`` (by this manager, or found there when it
        opened), or ``None``; ``Checkpoint.restore`` takes it."""
        return self._latest

    @property
    def latest_step(self) -> Optional[int]:
        """The number of ``latest_checkpoint`` when this manager names it, else None."""
        if self._latest is None or not os.path.basename(self._latest).startswith(self._name + "-"):
            return None
        return self._number(self._latest)

    def save(self, checkpoint_number: Any = None, check_interval: bool = True, options: Any = None, *,
             step: Optional[int] = None) -> Optional[str]:
        """Save a checkpoint numbered ``checkpoint_number`` (an int, or an int Variable/Tensor; ``step`` is
        another name for it) or, by default, the Checkpoint's ``save_counter`` after adding one to it (as
        TF; a checkpoint already under that number is replaced, atomically, as ``Checkpoint.write``), and
        return its path. Older checkpoints beyond
        ``max_to_keep`` are deleted once this one is complete. With ``checkpoint_interval``, returns
        None without saving when ``step_counter`` moved less than that since the last save (or not at
        all, also with ``check_interval=False``), as TF."""
        _outside_traces("CheckpointManager.save")
        if step is not None:
            if checkpoint_number is not None:
                raise TypeError("CheckpointManager.save: give step or checkpoint_number (TF's name), not both")
            checkpoint_number = step
        current_step = None
        if self._checkpoint_interval is not None:
            current_step = _integer(self._step_counter, "step_counter")
            last = self._last_checkpoint_step
            if last is not None and (current_step == last or
                                     (check_interval and current_step < last + self._checkpoint_interval)):
                return None
        counter = int(self._checkpoint.save_counter.numpy()) + 1
        if checkpoint_number is None:
            number = counter
        else:
            number = _integer(checkpoint_number, "checkpoint_number")
            if number < 0:
                raise ValueError(f"CheckpointManager.save: checkpoint_number={number}; give a non-negative int.")
        values = self._checkpoint._values("CheckpointManager.save", counter=counter)
        self._record_state(saving=os.path.basename(self._path(number)))  # (a save killed after it: still ours)
        path = self._checkpoint._write(self._path(number), values, "CheckpointManager.save")
        _note_latest(path)
        self._checkpoint.save_counter.assign(counter)
        if current_step is not None:
            self._last_checkpoint_step = current_step
        self._maybe_delete.pop(path, None)  # (a number saved again: replaced, and now the newest, as TF)
        self._preserved.discard(os.path.basename(path))  # (a kept one replaced is a managed checkpoint again)
        self._maybe_delete[path] = time.time()
        self._latest = path
        self._sweep()
        self._record_state()
        return path

    def restore(self, step: Optional[int] = None, *, partial: bool = False) -> LoadStatus:
        """Restore the checkpoint numbered ``step`` (default: ``latest_checkpoint``) into the Checkpoint's
        Variables, as ``Checkpoint.restore``; return its status."""
        if step is None:
            if self._latest is None:
                raise FileNotFoundError(f"CheckpointManager.restore: no checkpoint in '{self._directory}' yet; "
                                        "use restore_or_initialize() to start fresh when there is none.")
            return self._checkpoint.restore(self._latest, partial=partial)
        if self._path(step) not in self._maybe_delete and not os.path.isdir(self._path(step)):
            raise FileNotFoundError(f"CheckpointManager.restore: no checkpoint for step {step} in "
                                    f"'{self._directory}'; the steps kept are {self.steps}.")
        return self._checkpoint.restore(self._path(step), partial=partial)

    def restore_or_initialize(self) -> Optional[str]:
        """Restore the latest checkpoint and return its path; with none, call ``init_fn`` (if given) and
        return ``None`` (as TF)."""
        if self._latest is not None:
            path = self.restore()
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = _integer(self._step_counter, "step_counter")
            return path
        if self._init_fn is not None:
            self._init_fn()
        return None

    def sync(self) -> None:
        """Nothing to wait for: every save is complete when it returns (TF's method for async saves)."""

    def _path(self, number: int) -> str:
        return os.path.join(self._directory, f"{self._name}-{number}")

    def _number(self, path: str) -> int:
        return int(os.path.basename(path)[len(self._name) + 1:])

    def _sweep(self) -> None:
        """Delete (or keep, for keep_checkpoint_every_n_hours) the oldest managed checkpoints beyond
        max_to_keep, as TF's."""
        if not self._max_to_keep:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            path = next(iter(self._maybe_delete))
            timestamp = self._maybe_delete.pop(path)
            if self._keep_hours and timestamp - self._keep_hours * 3600.0 >= self._last_preserved:
                self._last_preserved = timestamp
                self._preserved.add(os.path.basename(path))
                continue
            os.makedirs(self._trash, exist_ok=True)
            try:  # renamed out of the checkpoint names first: a kill now leaves nothing that looks complete
                os.rename(path, os.path.join(self._trash, os.path.basename(path)))
            except FileNotFoundError:
                continue
            self._empty_trash()

    def _clean(self) -> None:
        self._empty_trash()
        for entry in os.listdir(self._directory):
            if not entry.startswith(self._name + "-"):
                continue
            if entry.endswith(_REPLACED):  # a checkpoint a killed save was replacing: back if nothing replaced it
                _recover(os.path.join(self._directory, entry[:-len(_REPLACED)]), staging=False)
            elif ".orbax-checkpoint-tmp" in entry or _STAGING in entry:  # a killed save's temporary directory
                shutil.rmtree(os.path.join(self._directory, entry), ignore_errors=True)

    def _empty_trash(self) -> None:
        shutil.rmtree(self._trash, ignore_errors=True)

    def _record_state(self, saving: Optional[str] = None) -> None:
        """Write the state file; ``saving``: the checkpoint a save is about to write (a manager opened after a
        kill takes it over once complete)."""
        self._preserved = {name for name in self._preserved if os.path.isdir(os.path.join(self._directory, name))}
        state = {"timestamps": {os.path.basename(p): t for p, t in self._maybe_delete.items()},
                 "preserved": sorted(self._preserved), "last_preserved_timestamp": self._last_preserved}
        if saving is not None:
            state["saving"] = saving
        _write_json(self._state_file, state)

    def _read_state(self) -> Dict[str, Any]:
        try:
            with open(self._state_file) as f:
                return json.load(f)
        except (FileNotFoundError, ValueError):
            return {}



def _integer(value: Any, what: str) -> int:
    """An int from an int, a NumPy integer, or an integer Variable/Tensor (TF's checkpoint_number)."""
    array = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    if array.shape != () or not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"CheckpointManager: {what}={value!r}; give an integer (or an integer Variable).")
    return int(array)
