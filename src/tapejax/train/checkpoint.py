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
  arrays, keyed by path). A ``CheckpointManager`` step directory has the same layout, so
  ``Checkpoint.restore`` reads either.

Save
----
``write(path)`` writes exactly ``path``; ``save(prefix)`` (TF's) writes ``{prefix}-{n}``, numbered from the
Checkpoint's ``save_counter`` (stored beside the Variables as ``save_counter`` and restored with them).
1. Walk the objects into an ordered ``{path: Variable}``.
2. Read each value without recording it on any tape (saving is not part of the computation).
3. orbax writes everything into a temporary directory beside the target and renames it into place
   once complete; we wait for it (synchronous), so a save killed at any point leaves either no
   checkpoint at that path or a complete one, and never touches the previous checkpoints.

Restore (all or nothing)
------------------------
1. Walk the objects, as for a save.
2. Read the checkpoint's metadata and check every path: present, same shape, same dtype. Every
   problem is reported in one ``ValueError``; no Variable has been changed yet.
3. orbax reads each array straight into the Variable's current sharding (so a restore keeps how each
   Variable is laid out over devices, whatever the layout when saved).
4. Only then assign every Variable.
"""
from __future__ import annotations

import os
import shutil
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, Union
from urllib.parse import quote, unquote

import jax
import numpy as np

from .. import tape_set
from ..tensor import Tensor, Variable

__all__ = ["Checkpoint", "CheckpointManager", "LoadStatus", "latest_checkpoint", "list_variables"]

PathLike = Union[str, os.PathLike]
_ITEM = "variables"  # the orbax item name inside a checkpoint directory
_TRASH = "_deleted"  # CheckpointManager: where old steps go before being deleted (not a step name)
_SAVE_COUNTER = "save_counter"  # save()'s own entry: the number of the checkpoint (TF's save_counter)


def _ocp():
    # orbax (and tensorstore) take seconds to import: a save or restore pays for it, not `import tapejax`.
    import orbax.checkpoint
    return orbax.checkpoint


# -- objects -> {path: Variable} -----------------------------------------------------------------------

def _collect(objects: Mapping[str, Any]) -> Dict[Tuple[str, ...], Variable]:
    found: Dict[Tuple[str, ...], Variable] = {}

    def walk(obj: Any, path: Tuple[str, ...]) -> None:
        if isinstance(obj, Variable):  # before the attribute test: a Variable forwards unknown attributes
            if path in found:  # e.g. keys 1 and "1" in one dict: two Variables, one name
                raise ValueError(f"Checkpoint: two Variables would both be saved as '{_show(path)}'; give the "
                                 "dict distinct keys (1 and '1' name the same entry).")
            found[path] = obj
        elif isinstance(obj, Tensor):
            raise TypeError(f"Checkpoint: '{_show(path)}' is a tj.Tensor, which is immutable and cannot be "
                            "restored into; wrap it in tj.Variable to checkpoint it.")
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
            raise TypeError(f"Checkpoint: '{_show(path)}' is a {type(obj).__name__}, which holds no Variables. "
                            "Pass tj.Variables, objects with a .variables attribute (tj.Module, optimizers), "
                            "or dicts/lists/tuples of those.")

    for name, obj in objects.items():
        walk(obj, (name,))
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
    ``restore(path)`` assigns the saved values into the existing Variables, after checking every shape and
    dtype (all or nothing), keeping each Variable's sharding.
    """

    def __init__(self, **objects: Any) -> None:
        _reserved(objects)
        _collect(objects)  # report an object that holds no Variables now, not at the first save
        object.__setattr__(self, "_objects", dict(objects))

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
        _collect({name: value})
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

    def save(self, file_prefix: PathLike) -> str:
        """TF's ``Checkpoint.save``: write a new checkpoint numbered from ``save_counter``, at
        ``{file_prefix}-{n}``, and return that path (``restore`` takes it, or the prefix for the newest).

        Never overwrites: a number already taken on disk (by an earlier run) is skipped. The checkpoint
        appears only once complete (see ``write``), and ``save_counter`` moves only then.
        """
        _outside_traces("Checkpoint.save")
        prefix = os.path.abspath(os.fspath(file_prefix))
        n = int(self.save_counter.numpy()) + 1
        while os.path.exists(f"{prefix}-{n}"):
            n += 1
        flat = self._values("Checkpoint.save")
        flat[(_SAVE_COUNTER,)] = np.int32(n)
        path = self._write(f"{prefix}-{n}", flat, "Checkpoint.save")
        self.save_counter.assign(n)
        return path

    def write(self, path: PathLike) -> str:
        """Write every Variable's value to the new directory ``path`` (exactly there: unnumbered, as TF's
        ``Checkpoint.write``) and return its absolute path.

        The directory appears only once complete (orbax writes to a temporary directory and renames
        it). An existing ``path`` is never overwritten: an overwrite interrupted half way would lose
        the old checkpoint too.
        """
        _outside_traces("Checkpoint.write")
        return self._write(os.path.abspath(os.fspath(path)), self._values("Checkpoint.write"), "Checkpoint.write")

    def _write(self, path: str, flat: Dict[Tuple[str, ...], Any], what: str) -> str:
        if os.path.exists(path):
            raise FileExistsError(f"{what}: '{path}' already exists; checkpoints are never overwritten "
                                  "in place. Write to a new path, use save(prefix) for numbered checkpoints, or "
                                  "tj.train.CheckpointManager to keep the last max_to_keep.")
        _checkpointer().save(path, _save_args(flat))
        return path

    def read(self, path: Optional[PathLike], *, partial: bool = False) -> "LoadStatus":
        """TF's ``Checkpoint.read``: ``restore``."""
        return self.restore(path, partial=partial)

    def restore(self, path: Optional[PathLike], *, partial: bool = False) -> "LoadStatus":
        """Assign the values saved at ``path`` (a ``save`` directory or a CheckpointManager step
        directory) to the Variables, and return ``path`` as a ``LoadStatus`` (a ``str`` with TF's status
        methods). ``path=None`` restores nothing (as TF: ``ckpt.restore(manager.latest_checkpoint)``
        before the first save starts from the initial values).

        Every Variable must be in the checkpoint with its current shape and dtype; otherwise a
        ``ValueError`` lists each mismatch and no Variable is changed. Entries of the checkpoint that
        no Variable here matches are an error too, unless ``partial=True`` (e.g. restoring only a
        model from a checkpoint that also holds optimizer state).
        """
        _outside_traces("Checkpoint.restore")
        if path is None:
            return LoadStatus("", restored=False)
        ocp = _ocp()
        path = os.path.abspath(os.fspath(path))
        if not os.path.exists(path):
            path = _newest_numbered(path) or path  # a save() prefix: its newest checkpoint
        if not os.path.isdir(path) or not ocp.step.is_path_finalized(path):
            raise FileNotFoundError(f"Checkpoint.restore: no complete checkpoint at '{path}' (a directory written "
                                    "by Checkpoint.save or CheckpointManager.save; a '*.orbax-checkpoint-tmp-*' "
                                    "directory is an interrupted save and cannot be restored).")
        if not os.path.isdir(os.path.join(path, _ITEM)):  # e.g. a CheckpointManager's directory (of steps)
            raise FileNotFoundError(f"Checkpoint.restore: '{path}' is not a checkpoint written by Checkpoint.save "
                                    "or CheckpointManager.save (it holds no saved variables). For a "
                                    "CheckpointManager's directory, restore manager.latest_checkpoint (or one "
                                    "of manager.checkpoints).")
        checkpointer = _checkpointer()
        saved = _flatten(checkpointer.metadata(path).item_metadata[_ITEM].tree)
        targets = _collect(self._objects)
        if not targets:  # TF would defer the restore until the Variables exist; we restore into existing ones
            raise ValueError("Checkpoint.restore: the objects hold no Variables yet, so there is nothing to restore "
                             "into (a tj.Module builds its Variables on its first call: call it once, then restore).")
        current = {p: _read(p, v, "Checkpoint.restore") for p, v in targets.items()}
        # An optimizer before its first step has no state Variables yet: its saved state waits for its
        # build (TF's deferred restoration). (A Variable is not asked: it would forward `built` to its
        # value, a read.)
        unbuilt = [name for name, obj in self._objects.items()
                   if not isinstance(obj, (Variable, Tensor)) and getattr(obj, "built", True) is False
                   and callable(getattr(obj, "restore_on_build", None))]
        deferred = {name: sorted((p for p in saved if p not in targets and len(p) == 3 and p[:2] == (name, "variables")
                                  and p[2].isdigit()), key=lambda p: int(p[2])) for name in unbuilt}
        later = {p for paths in deferred.values() for p in paths}
        counter = (_SAVE_COUNTER,) if (_SAVE_COUNTER,) in saved else None  # (from save(); not an object's)
        _check(path, {p: m for p, m in saved.items() if p not in later and p != counter}, targets, current,
               partial)

        # Read each array straight into the sharding the Variable has now; one placed by default (not committed
        # to a device) stays so, as NumPy read onto the default device by its assign: committed to one device,
        # it could no longer meet sharded Variables in one computation.
        abstract = {p: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=a.sharding) if getattr(a, "committed", True)
                    else np.empty(a.shape, a.dtype) for p, a in current.items()}
        abstract.update({p: np.empty(tuple(saved[p].shape), np.dtype(saved[p].dtype))  # (on the host)
                         for p in later | ({counter} if counter else set())})
        tree = _nest(abstract)
        args = ocp.args.PyTreeRestore(tree, restore_args=ocp.checkpoint_utils.construct_restore_args(tree),
                                      partial_restore=True)
        restored = _flatten(checkpointer.restore(path, ocp.args.Composite(**{_ITEM: args}))[_ITEM])
        for p, var in targets.items():  # every check passed and every array is read: now assign them all
            var.assign(restored[p])
        for name, paths in deferred.items():
            if paths:
                self._objects[name].restore_on_build([restored[p] for p in paths], path)
        if counter is not None:
            self.save_counter.assign(np.int32(restored[counter]))
        return LoadStatus(path, restored=True)

    def _values(self, what: str) -> Dict[Tuple[str, ...], Any]:
        if not self._objects:
            raise ValueError(f"{what}: the Checkpoint holds no objects; give them by keyword "
                             "(Checkpoint(model=model, optimizer=opt)) or as attributes (ckpt.model = model).")
        flat = {p: _read(p, v, what) for p, v in _collect(self._objects).items()}
        if not flat:
            raise ValueError(f"{what}: the objects hold no Variables yet (a tj.Module builds its Variables on "
                             "its first call: call it once before saving).")
        return flat


def _reserved(objects: Mapping[str, Any]) -> None:
    if _SAVE_COUNTER in objects:
        raise ValueError(f"Checkpoint: '{_SAVE_COUNTER}' names the Checkpoint's own counter of save() (as TF); "
                         "give the object another name.")


def _newest_numbered(prefix: str) -> Optional[str]:
    """The newest complete ``{prefix}-{n}`` that ``save(prefix)`` wrote, or None."""
    folder, stem = os.path.split(prefix)
    if not os.path.isdir(folder):
        return None
    numbers = [int(name[len(stem) + 1:]) for name in os.listdir(folder)
               if name.startswith(stem + "-") and name[len(stem) + 1:].isdigit()
               and os.path.isdir(os.path.join(folder, name, _ITEM))]
    return f"{prefix}-{max(numbers)}" if numbers else None


class LoadStatus(str):
    """What ``Checkpoint.restore`` returns: the restored checkpoint's path (``""`` for ``restore(None)``),
    with the methods of TF's load status. A restore here is all or nothing and checked before it assigns
    anything, so once it has returned every Variable matched; the assertions only fail after
    ``restore(None)``, which restored nothing (as TF's)."""

    def __new__(cls, path: str, restored: bool) -> "LoadStatus":
        status = super().__new__(cls, path)
        status.restored = restored
        return status

    def _assert_restored(self) -> "LoadStatus":
        if not self.restored:
            raise AssertionError("No checkpoint specified (restore(None)); nothing was restored.")
        return self

    def assert_consumed(self) -> "LoadStatus":
        return self._assert_restored()

    def assert_existing_objects_matched(self) -> "LoadStatus":
        return self._assert_restored()

    def assert_nontrivial_match(self) -> "LoadStatus":
        return self._assert_restored()

    def expect_partial(self) -> "LoadStatus":
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        """Nothing to run: the values were assigned eagerly (TF's graph-mode method)."""


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


def latest_checkpoint(directory: PathLike) -> Optional[str]:
    """The path of the newest complete checkpoint a ``CheckpointManager`` saved in ``directory``, or None
    (as TF's ``tf.train.latest_checkpoint``); ``Checkpoint.restore`` accepts either."""
    directory = os.path.abspath(os.fspath(directory))
    if not os.path.isdir(directory):
        return None
    ocp = _ocp()
    fmt = ocp.step.standard_name_format()
    steps = []
    for name in os.listdir(directory):
        full = os.path.join(directory, name)
        if name.isdigit() and os.path.isdir(os.path.join(full, _ITEM)) and ocp.step.is_path_finalized(full):
            steps.append(int(name))
    return os.path.join(directory, fmt.build_name(max(steps))) if steps else None


def _check(path: str, saved: Mapping[Tuple[str, ...], Any], targets: Mapping[Tuple[str, ...], Variable],
           current: Mapping[Tuple[str, ...], jax.Array], partial: bool) -> None:
    problems: List[str] = []
    for p, var in targets.items():
        label = f"'{_show(p)}' (Variable '{var.name}')"
        meta = saved.get(p)
        if meta is None:
            problems.append(f"{label} is not in the checkpoint")
            continue
        shape, dtype = tuple(meta.shape), np.dtype(meta.dtype)
        have_shape, have_dtype = tuple(current[p].shape), np.dtype(current[p].dtype)
        if shape != have_shape or dtype != have_dtype:
            problems.append(f"{label}: saved shape {shape} dtype {dtype}, current shape {have_shape} "
                            f"dtype {have_dtype}")
    if not partial:
        problems += [f"the checkpoint's '{_show(p)}' matches no Variable here" for p in saved if p not in targets]
    if problems:
        raise ValueError(f"Checkpoint.restore('{path}'): nothing was restored, because\n  - "
                         + "\n  - ".join(problems)
                         + "\nRestore into objects built as when saving (same keyword names, same structure, "
                           "Variables created in the same order, same shapes and dtypes); pass partial=True to "
                           "ignore checkpoint entries on purpose. Checkpoint.variables() lists the paths.")


# -- CheckpointManager ----------------------------------------------------------------------------------

class CheckpointManager:
    """Numbered checkpoints of one ``Checkpoint`` in ``directory`` (``directory/<step>``), keeping the
    newest ``max_to_keep`` (``None``: all), on orbax's ``CheckpointManager``.

    Only complete checkpoints are listed: each save is synchronous and renamed into place when
    complete; temporary directories left by a save that was killed are removed when a manager opens
    the directory; and a checkpoint beyond ``max_to_keep`` is first renamed out of the step names
    (into ``directory/_deleted``), then deleted, so a kill during a deletion never leaves a
    half-deleted checkpoint that still looks like a step.
    """

    def __init__(self, checkpoint: Checkpoint, directory: PathLike, max_to_keep: Optional[int],
                 init_fn: Optional[Callable[[], Any]] = None) -> None:
        if not isinstance(checkpoint, Checkpoint):
            raise TypeError(f"CheckpointManager: expected a tj.train.Checkpoint, got {type(checkpoint).__name__}; "
                            "wrap the objects first: CheckpointManager(Checkpoint(model=m), directory, max_to_keep).")
        if max_to_keep is not None and (not isinstance(max_to_keep, int) or max_to_keep < 1):
            raise ValueError(f"CheckpointManager: max_to_keep={max_to_keep!r}; give a positive int, "
                             "or None to keep all.")
        self._checkpoint = checkpoint
        self._directory = os.path.abspath(os.fspath(directory))
        self._init_fn = init_fn
        ocp = _ocp()
        self._name_format = ocp.step.standard_name_format()  # directory/<step>, nothing else
        # On a local disk orbax deletes a step directory in place, and a step is "finalized" by its
        # name alone: killed mid-deletion, a half-deleted step would still be listed. Renaming it
        # away first (atomic) and emptying that folder ourselves keeps every listed step complete.
        self._trash = os.path.join(self._directory, _TRASH)
        options = ocp.CheckpointManagerOptions(
            max_to_keep=max_to_keep, step_name_format=self._name_format,
            enable_async_checkpointing=False,  # save() returns with the checkpoint finalized
            cleanup_tmp_directories=True,      # drop what a killed save left behind
            todelete_subdir=_TRASH)
        self._manager = ocp.CheckpointManager(self._directory, options=options)
        self._empty_trash()  # what a kill during an earlier deletion left

    @property
    def directory(self) -> str:
        return self._directory

    @property
    def checkpoint(self) -> Checkpoint:
        return self._checkpoint

    @property
    def steps(self) -> List[int]:
        """Steps of the complete checkpoints kept, oldest first."""
        return sorted(self._manager.all_steps())

    @property
    def checkpoints(self) -> List[str]:
        """Paths of the complete checkpoints kept, oldest first (as TF)."""
        return [self._path(s) for s in self.steps]

    @property
    def latest_step(self) -> Optional[int]:
        return self._manager.latest_step()

    @property
    def latest_checkpoint(self) -> Optional[str]:
        """Path of the newest complete checkpoint, or ``None``; ``Checkpoint.restore`` accepts it."""
        step = self.latest_step
        return None if step is None else self._path(step)

    def save(self, step: Optional[int] = None, *, checkpoint_number: Optional[int] = None) -> str:
        """Save a checkpoint numbered ``step`` (default: the latest step + 1, starting at 1) and return
        its path. Older checkpoints beyond ``max_to_keep`` are deleted once this one is complete.
        ``checkpoint_number`` is TF's name for ``step``."""
        _outside_traces("CheckpointManager.save")
        if checkpoint_number is not None:
            if step is not None:
                raise TypeError("CheckpointManager.save: give step or checkpoint_number (TF's name), not both")
            step = checkpoint_number
        if step is None:
            step = (self.latest_step or 0) + 1
        if isinstance(step, bool) or not isinstance(step, (int, np.integer)) or step < 0:
            raise ValueError(f"CheckpointManager.save: step={step!r}; give a non-negative int.")
        step = int(step)
        if step in self._manager.all_steps():
            raise ValueError(f"CheckpointManager.save: step {step} already exists in '{self._directory}'; "
                             "checkpoints are never overwritten. Save under a new step, or save(step=None) "
                             "for the next one.")
        flat = self._checkpoint._values("CheckpointManager.save")
        if not self._manager.save(step, args=_save_args(flat)):
            raise RuntimeError(f"CheckpointManager.save: orbax declined to save step {step} in '{self._directory}'.")
        self._empty_trash()
        return self._path(step)

    def restore(self, step: Optional[int] = None, *, partial: bool = False) -> LoadStatus:
        """Restore the checkpoint of ``step`` (default: the latest) into the Checkpoint's Variables, all
        or nothing, as ``Checkpoint.restore``; return its path."""
        steps = self.steps
        if step is None:
            if not steps:
                raise FileNotFoundError(f"CheckpointManager.restore: no checkpoint in '{self._directory}' yet; "
                                        "use restore_or_initialize() to start fresh when there is none.")
            step = steps[-1]
        elif step not in steps:
            raise FileNotFoundError(f"CheckpointManager.restore: no checkpoint for step {step} in "
                                    f"'{self._directory}'; the steps kept are {steps}.")
        return self._checkpoint.restore(self._path(step), partial=partial)

    def restore_or_initialize(self) -> Optional[str]:
        """Restore the latest checkpoint and return its path; with none, call ``init_fn`` (if given) and
        return ``None`` (as TF)."""
        if self.latest_step is not None:
            return self.restore()
        if self._init_fn is not None:
            self._init_fn()
        return None

    def _path(self, step: int) -> str:
        return os.path.join(self._directory, self._name_format.build_name(step))

    def _empty_trash(self) -> None:
        shutil.rmtree(self._trash, ignore_errors=True)
