"""Checkpoints of Variables, on orbax-checkpoint.

Terminology
-----------
* objects: what ``Checkpoint(**objects)`` is given. Each is a ``tj.Variable``, an object with a
  ``.variables`` attribute (a ``tj.Module``, an optimizer; a method is called), or a dict, list or
  tuple of those, nested to any depth.
* path: the stable name of one Variable in a checkpoint, its keyword name followed by where it sits
  inside that object, joined with ``/``: a dict key, a list/tuple position, or ``variables`` then the
  position in that object's ``.variables``. ``Checkpoint(model=m, opt=o, step=v, extra={"ema": [a, b]})``
  gives ``model/variables/0``, ``model/variables/1``, ..., ``opt/variables/0``, ..., ``step``,
  ``extra/ema/0``, ``extra/ema/1``. A checkpoint restores into objects built the same way (same
  keyword names, same structure, Variables created in the same order), whatever their names.
* layout: a checkpoint is a directory holding one orbax item named ``variables`` (a PyTree of the
  arrays, keyed by path). A ``CheckpointManager`` writes the same directories, named as TF's
  (``{directory}/ckpt-{n}``), so ``Checkpoint.restore`` reads either.

Save
----
``write(path)`` writes exactly ``path``; ``save(prefix)`` (TF's) writes ``{prefix}-{n}``, numbered from the
Checkpoint's ``save_counter`` (stored beside the Variables as ``save_counter`` and restored with them;
``write`` stores it once it exists). A Checkpoint with no Variables saves its ``save_counter`` alone.
1. Walk the objects into an ordered ``{path: Variable}``.
2. Read each value without recording it on any tape (saving is not part of the computation).
3. orbax writes everything into a temporary directory beside the target and renames it into place
   once complete; we wait for it (synchronous), so a save killed at any point leaves either no
   checkpoint at that path or a complete one, and never touches the previous checkpoints.

Restore (as TF's: what matches is restored, the status tells what did not)
-------------------------------------------------------------------------
1. Walk the objects, as for a save.
2. Read the checkpoint's metadata and check every path present in both: same shape, same dtype. Every
   mismatch is reported in one ``ValueError``; no Variable has been changed yet.
3. orbax reads each of those arrays straight into the Variable's current sharding (so a restore keeps
   how each Variable is laid out over devices, whatever the layout when saved).
4. Only then assign them. Variables the checkpoint has no value for keep theirs, and checkpoint
   values no Variable matches wait: an object assigned to the Checkpoint later (``ckpt.v = v``) gets
   its saved values then (TF's restore on assignment), and Variables created since at waiting paths
   get theirs when the returned ``LoadStatus`` is next used (TF restores them at creation). The status
   says what did not match (``assert_consumed``, ``assert_existing_objects_matched``), as TF's. When
   two restores wait for one Variable, the later restore's value wins (as TF). A tj.Module's waiting
   values go into its Variables as its lazy build creates them (TF's deferred restoration: the first
   call already computes with the restored values). Any other object that holds no Variables yet while
   the checkpoint has values for it is a ``ValueError``: its Variables, created later, would silently
   keep their initial values.
"""
from __future__ import annotations

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
import numpy as np

from .. import tape_set
from ..tensor import Tensor, Variable
from .module import Module, watch_build

__all__ = ["Checkpoint", "CheckpointManager", "LoadStatus", "latest_checkpoint", "list_variables"]

PathLike = Union[str, os.PathLike]
_ITEM = "variables"  # the orbax item name inside a checkpoint directory
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

def _collect(objects: Mapping[str, Any]) -> Dict[Tuple[str, ...], Variable]:
    found: Dict[Tuple[str, ...], Variable] = {}
    inside: set = set()  # ids of the Checkpoints being walked: one that holds itself (a loop) is walked once

    def walk(obj: Any, path: Tuple[str, ...]) -> None:
        if isinstance(obj, Checkpoint):  # a Checkpoint among the objects: its objects, under its name
            if id(obj) not in inside and obj._objects is not objects:  # (not the one being collected)
                inside.add(id(obj))
                walk(obj._objects, path)
                inside.discard(id(obj))
        elif isinstance(obj, Variable):  # before the attribute test: a Variable forwards unknown attributes
            if path in found:  # e.g. keys 1 and "1" in one dict: two Variables, one name
                raise ValueError(f"Checkpoint: two Variables would both be saved as '{_show(path)}'; give the "
                                 "dict distinct keys (1 and '1' name the same entry).")
            found[path] = obj
        elif isinstance(obj, Tensor):
            raise NotCheckpointable(f"Checkpoint: '{_show(path)}' is a tj.Tensor, which is immutable and cannot "
                                    "be restored into; wrap it in tj.Variable to checkpoint it.")
        elif isinstance(obj, Mapping):
            for key, value in obj.items():
                if not isinstance(key, (str, int)) or isinstance(key, bool) or key == "":
                    raise TypeError(f"Checkpoint: dict key {key!r} under '{_show(path)}' cannot name a "
                                    "checkpoint entry; use non-empty str (or int) keys.")
                walk(value, path + (str(key),))
        elif isinstance(obj, (list, tuple)):
            for i, value in enumerate(obj):
                walk(value, path + (str(i),))
        elif hasattr(obj, "variables"):
            variables = obj.variables
            walk(variables() if callable(variables) else variables, path + ("variables",))
        else:
            raise NotCheckpointable(f"Checkpoint: '{_show(path)}' is a {type(obj).__name__}, which holds no "
                                    "Variables. Pass tj.Variables, objects with a .variables attribute (tj.Module, "
                                    "optimizers), or dicts/lists/tuples of those.")

    try:
        for name, obj in objects.items():
            walk(obj, (name,))
    except RecursionError:
        raise ValueError("Checkpoint: the objects hold themselves (a loop through lists, dicts or .variables); "
                         "a Checkpoint can save only Variables reachable without a loop.") from None
    finally:
        walk = None  # (breaks walk's reference to itself, which would keep `found`, and so the Variables, alive)
    return found


def _show(path: Tuple[str, ...]) -> str:
    return "/".join(path)


def _outside_traces(what: str) -> None:
    # A tj.function runs its Python once per trace, not once per call: a save there would happen at
    # trace time only (and a restore would assign traced values).
    if tape_set.state.capture is not None:
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
    return quote(part, safe="").replace(".", "%2E")


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
        path = prefix + (unquote(key),)
        if isinstance(value, Mapping):
            flat.update(_flatten(value, path))
        else:
            flat[path] = value
    return flat


def _checkpointer():
    ocp = _ocp()
    # Synchronous: save() returns only once the checkpoint is renamed into place (finalized).
    return ocp.Checkpointer(ocp.CompositeCheckpointHandler(**{_ITEM: ocp.PyTreeCheckpointHandler()}))


def _save_args(flat: Mapping[Tuple[str, ...], jax.Array]):
    ocp = _ocp()
    return ocp.args.Composite(**{_ITEM: ocp.args.PyTreeSave(_nest(flat))})


# -- Checkpoint -------------------------------------------------------------------------------------------

class Checkpoint:
    """Saves and restores the Variables of the objects given by keyword (see the module docstring for
    what an object may be and how each Variable is named).

    ``save(prefix)`` writes a new numbered checkpoint directory (``write(path)`` an unnumbered one);
    ``restore(path)`` assigns the saved values into the existing Variables, after checking the shape and
    dtype of every one it restores (all or nothing), keeping each Variable's sharding.
    """

    def __init__(self, **objects: Any) -> None:
        _reserved(objects)
        _collect(objects)  # report an object that holds no Variables now, not at the first save
        object.__setattr__(self, "_objects", dict(objects))
        object.__setattr__(self, "_pending", None)  # the last restore, for objects assigned after it

    # The objects are attributes too, as TF's: ``ckpt.step.assign_add(1)``, ``ckpt.extra = [v]``.
    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["_objects"][name]
        except KeyError:
            raise AttributeError(f"'Checkpoint' object has no attribute {name!r} (its objects: "
                                 f"{sorted(self.__dict__.get('_objects', ()))})") from None

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_"):
            raise AttributeError(f"Checkpoint: {name!r} cannot name an object (names starting with '_' are private)")
        _reserved({name: value})
        held = _collect({name: value})
        pending = self.__dict__.get("_pending")
        if pending is not None and held and pending.waiting(name):  # TF's restore on assignment
            _outside_traces("Checkpoint: assigning an object after a restore")
            self._restore_into(pending, {name: value}, waiting=True)
        self._objects[name] = value

    def variables(self) -> Dict[str, Variable]:
        """``{path: Variable}`` in checkpoint order: the names a checkpoint stores values under."""
        return {_show(p): v for p, v in _collect(self._objects).items()}

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

        Never overwrites: a number already taken on disk (by an earlier run) is skipped. The checkpoint
        appears only once complete (see ``write``), and ``save_counter`` moves only then. ``options``
        (TF's ``CheckpointOptions``) is accepted and ignored.
        """
        _outside_traces("Checkpoint.save")
        prefix = os.fspath(file_prefix)  # (paths returned as spelled, relative ones too, as TF)
        n = int(self.save_counter.numpy()) + 1
        while os.path.exists(f"{prefix}-{n}"):
            n += 1
        path = self._write(f"{prefix}-{n}", self._values("Checkpoint.save", counter=n), "Checkpoint.save")
        self.save_counter.assign(n)
        return path

    def write(self, file_prefix: PathLike, options: Any = None) -> str:
        """Write every Variable's value to the new directory ``file_prefix`` (exactly there: unnumbered, as
        TF's ``Checkpoint.write``) and return its absolute path. ``save_counter`` is written too once it
        exists (TF's), or when there is nothing else to write.

        The directory appears only once complete (orbax writes to a temporary directory and renames
        it). An existing path is never overwritten: an overwrite interrupted half way would lose
        the old checkpoint too.
        """
        _outside_traces("Checkpoint.write")
        return self._write(os.fspath(file_prefix), self._values("Checkpoint.write"),
                           "Checkpoint.write")

    def _write(self, path: str, flat: Dict[Tuple[str, ...], Any], what: str) -> str:
        if os.path.exists(path):
            raise FileExistsError(f"{what}: '{path}' already exists; checkpoints are never overwritten "
                                  "in place. Write to a new path, use save(prefix) for numbered checkpoints, or "
                                  "tj.train.CheckpointManager to keep the last max_to_keep.")
        _checkpointer().save(os.path.abspath(path), _save_args(flat))
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
        saved = _flatten(_checkpointer().metadata(absolute).item_metadata[_ITEM].tree)
        record = _Restore(absolute, saved)
        self._restore_into(record, self._objects, counter=True)
        record.done = True
        object.__setattr__(self, "_pending", record)
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
        targets = _collect(objects)
        if waiting:
            targets = {p: v for p, v in targets.items() if v.id not in record.bound}
        # An optimizer before its first step has no state Variables yet: its saved state waits for its
        # build (TF's deferred restoration). (A Variable is not asked: it would forward `built` to its
        # value, a read.)
        unbuilt = [name for name, obj in objects.items()
                   if not isinstance(obj, (Variable, Tensor)) and getattr(obj, "built", True) is False
                   and callable(getattr(obj, "restore_on_build", None))]
        deferred = {name: sorted((p for p in saved if p not in targets and len(p) == 3 and p[:2] == (name, "variables")
                                  and p[2].isdigit()), key=lambda p: int(p[2])) for name in unbuilt}
        later = {p for paths in deferred.values() for p in paths}
        # A tj.Module's values wait for its lazy build, each assigned as its Variable appears (TF's deferred
        # restoration; see _watch_build). Any other object holding no Variables yet while the checkpoint has
        # values for it: TF would restore its Variables when created; here they would silently keep their
        # initial values, so this is an error.
        empty = [name for name in objects if name not in unbuilt and not any(p[0] == name for p in targets)
                 and any(p[0] == name for p in saved) and not isinstance(objects[name], Module)]
        if empty and not waiting:
            raise ValueError(f"Checkpoint.restore('{path}'): {', '.join(repr(n) for n in empty)} hold(s) no "
                             "Variables yet, but the checkpoint has values for them; a tj.Module builds its "
                             "Variables on its first call: call it once, then restore.")
        matched = {p: v for p, v in targets.items() if p in saved}
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
        if not abstract:
            if watch:
                _watch_build(record, objects)
            return
        tree = _nest(abstract)
        args = ocp.args.PyTreeRestore(tree, restore_args=ocp.checkpoint_utils.construct_restore_args(tree),
                                      partial_restore=True)
        restored = _flatten(_checkpointer().restore(path, ocp.args.Composite(**{_ITEM: args}))[_ITEM])
        for p, var in matched.items():  # every check passed and every array is read: now assign them all
            if _restored_by.get(var.id, 0) > record.seq:  # a later restore assigned it already: it wins (TF)
                continue
            if var.id not in _restored_by:
                weakref.finalize(var, _restored_by.pop, var.id, None)
            _restored_by[var.id] = record.seq
            var.assign(restored[p])
        for name, paths in deferred.items():
            if paths:
                objects[name].restore_on_build([restored[p] for p in paths], path)
        if count is not None:
            self.save_counter.assign(np.int32(restored[count]))
        record.used.update(matched, later, {count} if count else ())
        record.on_build.update(later)
        record.bound.update(v.id for v in matched.values())
        if watch:
            _watch_build(record, objects)

    def _values(self, what: str, counter: Optional[int] = None) -> Dict[Tuple[str, ...], Any]:
        flat: Dict[Tuple[str, ...], Any] = {p: _read(p, v, what) for p, v in _collect(self._objects).items()}
        if counter is not None:
            flat[(_SAVE_COUNTER,)] = np.int32(counter)
        elif not flat or "_save_counter" in self.__dict__:  # (TF's write saves the counter once it exists)
            flat[(_SAVE_COUNTER,)] = _read((_SAVE_COUNTER,), self.save_counter, what)
        return flat


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

    def __init__(self, path: str, saved: Mapping[Tuple[str, ...], Any]) -> None:
        self.path, self.saved = path, dict(saved)
        self.seq = next(_restores)
        self.used: set = set()
        self.bound: set = set()
        self.on_build: set = set()  # paths handed to an unbuilt optimizer: its build makes their Variables
        self.expect_partial = False
        self.done = False  # (a restore that raised warns of nothing)

    def unused(self) -> List[Tuple[str, ...]]:
        return [p for p in self.saved if p not in self.used]

    def waiting(self, name: str) -> bool:
        return any(p[0] == name for p in self.unused())

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
            objects = {n: o for n, o in self._checkpoint._objects.items() if n in waiting}
            if objects:
                self._checkpoint._restore_into(record, objects, waiting=True)

    def assert_consumed(self) -> "LoadStatus":
        """As TF: every value of the checkpoint was restored into a Variable, and every Variable of the
        Checkpoint's objects got one; ``AssertionError`` naming the first ones otherwise."""
        unused = self._assert_restored().unused()
        if unused:
            raise AssertionError(f"Unresolved object in checkpoint {_root(unused[0])}: no Variable took the "
                                 f"checkpoint's '{_show(unused[0])}' ({len(unused)} value(s) unused: "
                                 f"{', '.join(_show(p) for p in unused)}).")
        return self.assert_existing_objects_matched()

    def assert_existing_objects_matched(self) -> "LoadStatus":
        """As TF: every Variable of the Checkpoint's objects got a value from the checkpoint."""
        record = self._assert_restored()
        unbound = [(p, v) for p, v in _collect(self._checkpoint._objects).items()
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
    tree = _flatten(_checkpointer().metadata(path).item_metadata[_ITEM].tree)
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


def latest_checkpoint(checkpoint_dir: PathLike, latest_filename: Any = None) -> Optional[str]:
    """The path of the checkpoint last written in ``checkpoint_dir`` by ``Checkpoint.save`` or a
    ``CheckpointManager`` (``{prefix}-{n}``), or None (as TF's ``tf.train.latest_checkpoint``);
    ``Checkpoint.restore`` takes it."""
    found = _numbered(os.fspath(checkpoint_dir))
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
    steps. A manager opened on a directory takes over the ``{checkpoint_name}-{n}`` checkpoints there.

    Unlike TF, a checkpoint is never overwritten (a number already on disk is skipped, or refused when
    given), and only complete checkpoints are listed: each save is renamed into place when complete;
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
            when = min(saved_at.get(name, mtime_ns / 1e9), now)  # (a save killed before the state: its mtime)
            if name not in self._preserved and (not state or when > self._last_preserved):  # (TF's rule)
                found.append((when, mtime_ns, path))
        self._maybe_delete: Dict[str, float] = {path: when for when, _, path in sorted(found)}  # oldest first
        self._latest = latest_checkpoint(self._directory)

    @property
    def directory(self) -> str:
        return self._directory

    @property
    def checkpoint(self) -> Checkpoint:
        return self._checkpoint

    @property
    def checkpoint_interval(self) -> Optional[int]:
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
        TF; a number already on disk is skipped), and return its path. Older checkpoints beyond
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
            while os.path.exists(self._path(number)):
                number += 1
            counter = number
        else:
            number = _integer(checkpoint_number, "checkpoint_number")
            if number < 0:
                raise ValueError(f"CheckpointManager.save: checkpoint_number={number}; give a non-negative int.")
            if os.path.exists(self._path(number)):
                raise ValueError(f"CheckpointManager.save: '{self._path(number)}' already exists; checkpoints "
                                 "are never overwritten. Save under a new number, or save() for the next one.")
        path = self._checkpoint._write(self._path(number), self._checkpoint._values("CheckpointManager.save",
                                                                                    counter=counter),
                                       "CheckpointManager.save")
        self._checkpoint.save_counter.assign(counter)
        if current_step is not None:
            self._last_checkpoint_step = current_step
        self._maybe_delete.pop(path, None)
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
        for entry in os.listdir(self._directory):  # orbax's temporary directory of a killed save
            if entry.startswith(self._name + "-") and ".orbax-checkpoint-tmp" in entry:
                shutil.rmtree(os.path.join(self._directory, entry), ignore_errors=True)

    def _empty_trash(self) -> None:
        shutil.rmtree(self._trash, ignore_errors=True)

    def _record_state(self) -> None:
        self._preserved = {name for name in self._preserved if os.path.isdir(os.path.join(self._directory, name))}
        state = {"timestamps": {os.path.basename(p): t for p, t in self._maybe_delete.items()},
                 "preserved": sorted(self._preserved), "last_preserved_timestamp": self._last_preserved}
        tmp = f"{self._state_file}.tmp"
        with open(tmp, "w") as f:
            json.dump(state, f)
        os.replace(tmp, self._state_file)  # (atomic: a kill leaves the old state or the new one)

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
