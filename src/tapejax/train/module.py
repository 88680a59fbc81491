"""tj.Module: a container that finds the Variables and Modules it holds, as ``tf.Module``.

Tracking is by walking, not by registration, in tf.Module's order: a Module's own attributes by name
(descending into lists, tuples and dicts, dict keys sorted), then each Module met there, walked the same
way in turn (depth first); each object once, so a Module that refers back to its parent is not walked
twice. ``.submodules`` lists the Modules in that order; ``.variables`` lists the Variables in order of
creation (API.md; a Keras layer's order, e.g. kernel before bias), not in the walk's order (tf.Module's).

Lazy building: a Variable may be created on the first call of a ``tj.function`` (a decorated method or
a Module called inside one), e.g. ``if self.w is None: self.w = tj.Variable(...)``; that first call traces
the function twice, as TF's (see graph/function.py), and creating a Variable on a later trace raises
``ValueError``.

A lazy build can be watched (``watch_build``): after every attribute assignment on any Module the
watchers run, so a checkpoint restored before the build gives each Variable its saved value as soon as
it appears (TF's deferred restoration), before the first call computes with it.

List and dict attributes are held as TF's wrappers hold them (``ListWrapper``, ``DictWrapper``: the same
list or dict, seen through a view): what is appended or assigned into them notifies the watchers too, so
``m.layers.append(layer)`` after a restore restores the layer's Variables, and a list whose Variables were
moved or removed (so that their saved positions no longer name them) refuses to be saved, as TF's.
"""
from __future__ import annotations

import collections
import collections.abc
import copy
import functools
import re
import weakref
from typing import Any, Callable, Dict, Iterator, List, Optional, Set, Tuple

import jax

from .. import tape_set
from ..ops.random import Generator
from ..tensor import Variable, current_name_scope, name_scope

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _snake_case(class_name: str) -> str:
    """``MyMLP`` -> ``my_mlp`` (tf.Module's default name)."""
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", class_name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


class Module:
    """Base class for objects holding Variables and other Modules (as ``tf.Module``).

    ``name`` must be a valid Python identifier; it defaults to the class name in snake case.
    ``with module.name_scope:`` prefixes the names of Variables created inside with ``name/`` (nested
    under the name scope active when the Module was made).

    Attributes named in ``_TF_MODULE_IGNORED_PROPERTIES`` are not walked (as tf.Module: a subclass may
    add names to it, e.g. ``frozenset({"cache"}) | tj.Module._TF_MODULE_IGNORED_PROPERTIES``).
    """

    # Module's own bookkeeping, never walked (tf.Module's name for this class attribute).
    _TF_MODULE_IGNORED_PROPERTIES = frozenset({"_name", "_scope_name", "_name_scope"})

    def __init__(self, name: str = None) -> None:
        if name is None:
            name = _snake_case(type(self).__name__)
        elif not isinstance(name, str):  # (TF's TypeError, from matching the name)
            raise TypeError(f"tj.Module: name must be a string, got {type(name).__name__} {name!r}.")
        elif not _IDENTIFIER.match(name):
            raise ValueError(f"{name!r} is not a valid module name. Module names must be valid Python "
                             "identifiers (e.g. a valid class name).")
        self._name = name
        self._scope_name = f"{current_name_scope()}{name}/"

    # -- naming ---------------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        """The name given, or the class's name in snake_case (as tf.Module)."""
        return self._own_name()

    @property
    def name_scope(self) -> name_scope:
        """A ``tj.name_scope``: Variables created inside get this Module's scope before their name. Its
        ``.name`` is the absolute scope, ending in "/" (as ``tf.Module.name_scope.name``). The same object
        each time (as TF 2's memoized name scope)."""
        scope = self.__dict__.get("_name_scope")
        if scope is None:
            scope = name_scope(getattr(self, "_scope_name", None) or f"{self._own_name()}/")
            self.__dict__["_name_scope"] = scope
        return scope

    def _own_name(self) -> str:
        # A subclass that forgot super().__init__() still has a name.
        return getattr(self, "_name", None) or _snake_case(type(self).__name__)

    @classmethod
    def with_name_scope(cls, method: Callable) -> Callable:
        """Decorator: run ``method`` inside its Module's ``name_scope`` (as ``tf.Module.with_name_scope``)."""
        @functools.wraps(method)
        def wrapped(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)
        return wrapped

    # -- tracking -------------------------------------------------------------------------------------
    @property
    def variables(self) -> Tuple[Variable, ...]:
        """Every Variable this Module and its submodules hold, each once, in order of creation."""
        found = [x for x in self._walk() if isinstance(x, Variable)]
        return tuple(sorted(found, key=lambda v: v.id))  # (handle ids only grow)

    @property
    def trainable_variables(self) -> Tuple[Variable, ...]:
        """``variables`` that are trainable, in order of creation."""
        return tuple(v for v in self.variables if v.trainable)

    @property
    def non_trainable_variables(self) -> Tuple[Variable, ...]:
        """``variables`` that are not trainable, in order of creation."""
        return tuple(v for v in self.variables if not v.trainable)

    @property
    def submodules(self) -> Tuple["Module", ...]:
        """Every Module held by this one, directly or through other Modules, each once."""
        return tuple(x for x in self._walk() if isinstance(x, Module))

    def _walk(self) -> Iterator[Any]:
        """Variables and Modules reachable from this Module, excluding itself, each once: all of its own
        attributes first, then each submodule met there, walked the same way (depth first: TF's order)."""
        return self._flatten(predicate=_tracked)

    def _flatten(self, recursive: bool = True, predicate: Optional[Callable[[Any], bool]] = None,
                 attribute_traversal_key: Optional[Callable[[str], Any]] = None, with_path: bool = False,
                 expand_composites: bool = False) -> Iterator[Any]:
        """tf.Module's ``_flatten`` (the walk its ``variables`` and ``submodules`` are made of, which
        subclasses use): every leaf of this Module's attributes (as tf.nest flattens them: lists, tuples
        and namedtuples by position, dicts by sorted key) for which ``predicate`` is true, attributes in
        ``sorted(..., key=attribute_traversal_key)`` order, then the same for each submodule met
        (``recursive``), each leaf once; ``with_path``: ``(path, leaf)`` pairs, a leaf once per path."""
        return _flatten_module(self, recursive, predicate or (lambda _: True), attribute_traversal_key,
                               self._TF_MODULE_IGNORED_PROPERTIES, with_path, (), None, [])

    def __repr__(self) -> str:
        return f"<tj.Module '{self._own_name()}' ({type(self).__name__}, {len(self.variables)} variables)>"

    def __setattr__(self, name: str, value: Any) -> None:
        # A list, dict or tuple of them is held as TF's wrappers hold it (see ListWrapper): what is added to
        # it later is tracked, and restored when a restore waits for it.
        super().__setattr__(name, wrap(value))
        if _build_watchers:  # something waits for Variables: this assignment may have made one
            _notify_build_watchers()


# id(module) -> (weak reference to it, callback): see watch_build
_build_watchers: Dict[int, Tuple[Any, Callable[["Module"], bool]]] = {}


def watch_build(module: Any, callback: Callable[[Any], bool]) -> None:
    """Call ``callback(module)`` after each attribute assignment on any Module and each addition to a list or
    dict attribute (a ``ListWrapper`` or ``DictWrapper``), outside ``tj.function`` traces (a lazy build in one
    is seen once the trace that made its Variables is over: graph/function.py), while ``module`` (a Module, or
    any object that waits for Variables to appear in what it holds: a Checkpoint) lives, until it returns False
    or raises. The registration point for what waits for Variables to be created or added (a checkpoint's
    deferred restoration). A second call for one object replaces the first."""
    key = id(module)

    def forget(ref: Any) -> None:  # the module is gone: so is what waited for it (and what that holds)
        if _build_watchers.get(key, (None,))[0] is ref:
            del _build_watchers[key]

    _build_watchers[key] = (weakref.ref(module, forget), callback)


def _notify_build_watchers() -> None:
    if tape_set.current().capture is not None:
        return
    for key, (ref, callback) in list(_build_watchers.items()):
        module = ref()
        keep = False
        try:
            keep = module is not None and callback(module)
        finally:
            if not keep and _build_watchers.get(key, (None,))[0] is ref:
                del _build_watchers[key]


tape_set.record_hooks.variables_made = _notify_build_watchers  # (after a tj.function's first trace made them)


def _flatten_module(module: Module, recursive: bool, predicate: Callable[[Any], bool],
                    attribute_traversal_key: Optional[Callable[[str], Any]], ignored: Any, with_path: bool,
                    module_path: Tuple[Any, ...], seen: Optional[Set[int]], stack: List[int]) -> Iterator[Any]:
    # tf.Module's algorithm (module.py's _flatten_module): a Module met again while it is being walked
    # (a cycle) is not walked again.
    if seen is None:
        seen = {id(module)}
    if id(module) in stack:
        recursive = False
    submodules = []
    attrs = vars(module)
    for key in sorted(attrs, key=attribute_traversal_key):
        if key in ignored:
            continue
        try:
            leaves = list(_nest_leaves(attrs[key], (key,)))
        except _UnsortableKeys as e:  # as tf.Module, whose walk (tf.nest) sorts every dict's keys
            raise ValueError(f"Error processing property {key!r} of module '{module._own_name()}' "
                             f"({type(module).__name__}): {e}") from None
        for leaf_path, leaf in leaves:
            if not with_path:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (module_path + leaf_path, leaf) if with_path else leaf
            if recursive and isinstance(leaf, Module):
                submodules.append((module_path + leaf_path, leaf))
    stack.append(id(module))
    for path, submodule in submodules:
        yield from _flatten_module(submodule, recursive, predicate, attribute_traversal_key,
                                   getattr(submodule, "_TF_MODULE_IGNORED_PROPERTIES", ()), with_path, path, seen,
                                   stack)
    stack.pop()


def _nest_leaves(value: Any, path: Tuple[Any, ...]) -> Iterator[Tuple[Tuple[Any, ...], Any]]:
    """``(path, leaf)`` for each leaf of ``value`` as tf.nest flattens it: lists and tuples by position,
    namedtuples by field, dicts by sorted key; anything else (None, a Variable, a Module) is a leaf."""
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        for field in value._fields:
            yield from _nest_leaves(getattr(value, field), path + (field,))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _nest_leaves(v, path + (i,))
    elif isinstance(value, dict):
        try:
            keys = sorted(value)
        except TypeError as e:
            raise _UnsortableKeys(f"a dict in it has keys that cannot be sorted ({e}); a Module walks dicts in "
                                  "sorted key order (as tf.Module), so give the dict keys of one sortable type, "
                                  "or name the attribute in _TF_MODULE_IGNORED_PROPERTIES") from None
        for k in keys:
            yield from _nest_leaves(value[k], path + (k,))
    else:
        yield path, value


class _UnsortableKeys(TypeError):
    """A dict whose keys do not sort, so that it has no order to walk it in."""


def _tracked(x: Any) -> bool:
    """What ``variables`` and ``submodules`` are made of."""
    return isinstance(x, (Variable, Module))


# -- list, dict and tuple attributes (TF's ListWrapper, _DictWrapper, _TupleWrapper) ------------------------
# A list or dict assigned to a Module's attribute (or a Checkpoint's) is replaced by a wrapper around it, as
# tf.Module does: it is the same list or dict (changes through either are changes to both; ``==`` compares with
# plain lists and dicts) and it is a list or dict (``isinstance``), but what is added through it is seen: a
# list or dict added is wrapped in turn, and each addition notifies the build watchers, so a Variable appended
# after a restore gets its saved value then (TF's deferred restoration, see ``watch_build``). As TF, a list
# whose Variables moved or were replaced, removed or added other than at its end, or a container changed
# other than through its wrapper, cannot be saved (``check_saveable``): its Variables' saved names, their
# positions, would not name them any more.

def wrap(value: Any) -> Any:
    """``value`` as a Module attribute holds it (TF's ``wrap_or_unwrap``): a list (exactly, not a subclass) as
    a ``ListWrapper``, a dict or OrderedDict as a ``DictWrapper``, a tuple holding such containers as a tuple of
    the same type holding their wrappers; anything else as it is."""
    kind = type(value)
    if kind is list:
        return ListWrapper(value)
    if kind is dict or kind is collections.OrderedDict:
        return DictWrapper(value)
    if isinstance(value, tuple):
        items = [wrap(item) for item in value]
        if all(new is old for new, old in zip(items, value)):
            return value
        fields = getattr(value, "_fields", None)
        try:
            return kind(**dict(zip(fields, items))) if fields is not None else kind(items)
        except TypeError:  # a namedtuple whose __new__ takes other arguments: kept as it is
            return value
    return value


def _trackable(value: Any) -> bool:
    """What TF's wrappers count as trackable when deciding whether a change breaks saving."""
    if isinstance(value, tuple):
        return any(_trackable(item) for item in value)
    return isinstance(value, (Variable, Module, ListWrapper, DictWrapper, Generator))


def _grown() -> None:
    if _build_watchers:  # something waits for Variables: one may just have been added
        _notify_build_watchers()


def _same_items(a: Any, b: Any) -> bool:
    # (by identity: == on Variables is elementwise)
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


class _StorageView:
    """What ListWrapper and DictWrapper share: reading, comparing, printing and copying go to the wrapped
    container (``_storage``). A copy is a wrapper again, detached, keeping whether it can be saved (the
    ``_copied_flags``), as TF's; pickling keeps the container only."""

    _copied_flags: Tuple[str, ...] = ()

    def __getitem__(self, key: Any) -> Any:
        return self._storage[key]

    def __len__(self) -> int:
        return len(self._storage)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._storage)

    def __reversed__(self) -> Iterator[Any]:
        return reversed(self._storage)

    def __contains__(self, item: Any) -> bool:
        return item in self._storage

    def __eq__(self, other: Any) -> bool:
        return self._storage == getattr(other, "_storage", other)

    def __ne__(self, other: Any) -> bool:
        return self._storage != getattr(other, "_storage", other)

    def __hash__(self) -> int:  # (a list or dict: not hashable, as TF's)
        raise TypeError(f"unhashable type: '{type(self).__name__}'")

    def __sizeof__(self) -> int:
        return object.__sizeof__(self) + self._storage.__sizeof__()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._storage!r})"

    def copy(self) -> Any:
        return copy.copy(self)

    def __copy__(self) -> Any:
        return self._copied(type(self)(copy.copy(self._storage)))

    def __deepcopy__(self, memo: Dict[int, Any]) -> Any:
        return self._copied(type(self)(copy.deepcopy(self._storage, memo)))

    def _copied(self, new: Any) -> Any:
        self._check_outside()
        for flag in self._copied_flags:
            setattr(new, flag, getattr(self, flag))
        return new

    def __reduce_ex__(self, protocol: Any) -> Any:
        return type(self), (self._storage,)


class ListWrapper(_StorageView, list):
    """A list attribute of a Module or Checkpoint (TF's ``ListWrapper``): a view of the list assigned, which
    stays that list. Every list method is its own (the wrapped list holds the items)."""

    def __init__(self, wrapped_list: Any = None) -> None:  # pylint: disable=super-init-not-called
        storage = [] if wrapped_list is None else wrapped_list
        if type(storage) is not list:
            storage = list(storage)
        self._storage = storage
        self._moved = False  # a Variable moved, replaced, removed or inserted (TF's non-append mutation)
        self._outside = False  # the list was changed other than through this wrapper
        for i, item in enumerate(storage):
            storage[i] = wrap(item)
        self._snapshot: Optional[List[Any]] = list(storage)

    # -- bookkeeping ------------------------------------------------------------------------------------------
    def _check_outside(self) -> None:
        if not (self._outside or self._moved) and not _same_items(self._storage, self._snapshot):
            self._outside, self._snapshot = True, None

    def _done(self) -> None:
        if not (self._outside or self._moved):
            self._snapshot = list(self._storage)

    def _holds_trackable(self) -> bool:
        return self._moved or any(_trackable(item) for item in self._storage)

    def unsaveable(self) -> Optional[str]:
        """Why TF refuses to save this list, or None."""
        self._check_outside()
        if self._moved:
            return (f"Unable to save the object {self!r} (a list wrapper constructed to track trackable objects). "
                    "A list element was replaced (__setitem__), removed (__delitem__, pop, remove, clear), "
                    "inserted or moved (sort, reverse) while the list held Variables or Modules. A saved list "
                    "names its Variables by position, which only appending keeps; build the list by appending, "
                    "or keep it outside the Module if it need not be saved.")
        if self._outside:
            return (f"Unable to save the object {self!r} (a list wrapper constructed to track trackable objects). "
                    "The wrapped list was modified outside the wrapper (directly, not through the attribute), so "
                    "what was added there missed its restore. Change it through the attribute "
                    "(module.layers.append(...)).")
        return None

    # -- what only appends ---------------------------------------------------------------------------------------
    def append(self, value: Any) -> None:
        self._check_outside()
        self._storage.append(wrap(value))
        self._done()
        _grown()

    def extend(self, values: Any) -> None:
        self._check_outside()
        self._storage.extend(wrap(value) for value in list(values))
        self._done()
        _grown()

    def __iadd__(self, values: Any) -> "ListWrapper":
        self.extend(values)
        return self

    def __imul__(self, n: int) -> "ListWrapper":
        if n <= 0:
            self._check_outside()
            if self._holds_trackable():
                self._moved = True
            self._storage *= n
            self._done()
            return self
        self.extend(self._storage * (n - 1))
        return self

    # -- what changes what is there ----------------------------------------------------------------------------
    def __setitem__(self, key: Any, value: Any) -> None:
        self._check_outside()
        if isinstance(key, slice):
            before = list(self._storage)
            self._storage[key] = value
            for i in range(max(len(before), len(self._storage))):
                old = before[i] if i < len(before) else None
                if _trackable(old):
                    self._moved = True
                if i < len(self._storage) and self._storage[i] is not old:
                    self._storage[i] = wrap(self._storage[i])
        else:
            if _trackable(self._storage[key]):
                self._moved = True
            self._storage[key] = wrap(value)
        self._done()
        _grown()

    def __delitem__(self, key: Any) -> None:
        self._check_outside()
        if self._holds_trackable():
            self._moved = True
        del self._storage[key]
        self._done()

    def insert(self, index: int, value: Any) -> None:
        self._check_outside()
        if self._holds_trackable() or _trackable(value):
            self._moved = True
        self._storage.insert(index, wrap(value))
        self._done()

    def sort(self, *args: Any, **kwargs: Any) -> None:
        self._check_outside()
        if self._holds_trackable():
            self._moved = True
        self._storage.sort(*args, **kwargs)
        self._done()

    def reverse(self) -> None:
        self._check_outside()
        if self._holds_trackable():
            self._moved = True
        self._storage.reverse()
        self._done()

    def pop(self, index: int = -1) -> Any:
        value = self._storage[index]
        del self[index]
        return value

    def remove(self, value: Any) -> None:
        del self[self.index(value)]

    def clear(self) -> None:
        del self[:]

    # -- reading -----------------------------------------------------------------------------------------------
    def index(self, *args: Any) -> int:
        return self._storage.index(*args)

    def count(self, value: Any) -> int:
        return self._storage.count(value)

    def __add__(self, other: Any) -> List[Any]:
        return self._storage + list(other)

    def __radd__(self, other: Any) -> List[Any]:
        return list(other) + self._storage

    def __mul__(self, n: int) -> List[Any]:
        return self._storage * n

    __rmul__ = __mul__

    def __lt__(self, other: Any) -> bool:
        return self._storage < getattr(other, "_storage", other)

    def __le__(self, other: Any) -> bool:
        return self._storage <= getattr(other, "_storage", other)

    def __gt__(self, other: Any) -> bool:
        return self._storage > getattr(other, "_storage", other)

    def __ge__(self, other: Any) -> bool:
        return self._storage >= getattr(other, "_storage", other)

    _copied_flags = ("_moved", "_outside")


class DictWrapper(_StorageView, collections.abc.MutableMapping):
    """A dict attribute of a Module or Checkpoint (TF's ``_DictWrapper``): a view of the dict assigned, which
    stays that dict. Only ``d[k] = v``, ``del d[k]`` and ``update`` are changes through it (as TF's: ``pop``,
    ``setdefault``, ``clear``... change the dict directly, and such a dict cannot be saved).

    As TF's (a proxy of the dict), it is a dict to ``isinstance`` (its ``__class__`` is the wrapped dict's) but
    not to code that reads a dict's own storage in C (``json.dumps`` refuses it, as TF's), which a dict
    subclass would let read an empty dict."""

    def __init__(self, wrapped_dict: Any = None) -> None:
        storage = {} if wrapped_dict is None else wrapped_dict
        if not isinstance(storage, collections.abc.Mapping):
            storage = dict(storage)
        self._storage = storage
        self._outside = False
        for key, value in list(storage.items()):
            storage[key] = wrap(value)
        self._snapshot: Optional[Dict[Any, Any]] = dict(storage)

    def _check_outside(self) -> None:
        if self._outside:
            return
        same = (self._storage.keys() == self._snapshot.keys()
                and all(self._storage[k] is v for k, v in self._snapshot.items()))
        if not same:
            self._outside, self._snapshot = True, None

    def _done(self) -> None:
        if not self._outside:
            self._snapshot = dict(self._storage)

    def unsaveable(self) -> Optional[str]:
        """Why TF refuses to save this dict, or None."""
        self._check_outside()
        if self._outside:
            return (f"Unable to save the object {self!r} (a dictionary wrapper constructed automatically on "
                    "attribute assignment). The wrapped dictionary was modified outside the wrapper (other than by "
                    "d[key] = value, del d[key] or update: directly, or by pop, setdefault, clear...), so what was "
                    "added there missed its restore.")
        return None

    def __setitem__(self, key: Any, value: Any) -> None:
        self._check_outside()
        self._storage[key] = wrap(value)
        self._done()
        _grown()

    def __delitem__(self, key: Any) -> None:
        self._check_outside()
        del self._storage[key]
        self._done()

    def update(self, *args: Any, **kwargs: Any) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    # (changes straight to the wrapped dict, as TF's proxy forwards them)
    def pop(self, *args: Any) -> Any:
        return self._storage.pop(*args)

    def popitem(self) -> Any:
        return self._storage.popitem()

    def setdefault(self, key: Any, default: Any = None) -> Any:
        return self._storage.setdefault(key, default)

    def clear(self) -> None:
        self._storage.clear()

    def __ior__(self, other: Any) -> "DictWrapper":
        self._storage |= other
        return self

    def get(self, key: Any, default: Any = None) -> Any:
        return self._storage.get(key, default)

    def keys(self) -> Any:
        return self._storage.keys()

    def values(self) -> Any:
        return self._storage.values()

    def items(self) -> Any:
        return self._storage.items()

    def __or__(self, other: Any) -> Any:
        return self._storage | getattr(other, "_storage", other)

    def __ror__(self, other: Any) -> Any:
        return other | self._storage

    @property  # type: ignore[misc]
    def __class__(self) -> type:  # (isinstance(d, dict), as TF's proxy)
        return type(self._storage)

    def __getattr__(self, name: str) -> Any:  # (an OrderedDict's own methods: move_to_end...)
        if name.startswith("__") or name in ("_storage", "_outside", "_snapshot"):
            raise AttributeError(name)
        return getattr(self._storage, name)

    _copied_flags = ("_outside",)


def check_saveable(value: Any) -> None:
    """Raise ``ValueError`` (TF's, on save) for a list or dict attribute that a checkpoint could not restore as
    saved (see ``ListWrapper``); anything else passes."""
    reason = value.unsaveable() if isinstance(value, (ListWrapper, DictWrapper)) else None
    if reason is None and isinstance(value, tuple) and hasattr(value, "_fields") and any(
            type(item) in (list, dict, collections.OrderedDict) for item in value):
        # (wrap could not rebuild it with its containers wrapped, so what is added to them is not seen)
        reason = (f"Unable to save because the namedtuple {value!r} is not constructable from its _fields (its "
                  f"__new__ takes other arguments than {value._fields}), so the lists and dicts it holds could not "
                  "be wrapped to track what is added to them. Hold them in an object that is not a tuple.")
    if reason is not None:
        raise ValueError(reason)


# As pytrees the wrappers are their lists and dicts (TF's nest sees them so), rebuilt as wrappers (as TF's:
# a gradient with respect to a ListWrapper of Variables is a ListWrapper).
jax.tree_util.register_pytree_node(ListWrapper, lambda w: (list(w._storage), None),
                                   lambda _, children: ListWrapper(list(children)))


def _flatten_dict(w: DictWrapper) -> Tuple[List[Any], Tuple[Any, ...]]:
    keys = tuple(sorted(w._storage))  # (as jax's dicts: by sorted key)
    return [w._storage[k] for k in keys], keys


jax.tree_util.register_pytree_node(DictWrapper, _flatten_dict,
                                   lambda keys, children: DictWrapper(dict(zip(keys, children))))
