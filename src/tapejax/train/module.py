"""tj.Module: a container that finds the Variables and Modules it holds, as ``tf.Module``.

Tracking is by walking, not by registration, in tf.Module's order: a Module's own attributes by name
(descending into lists, tuples and dicts, dict keys sorted), then each Module met there, walked the same
way in turn (depth first); each object once, so a Module that refers back to its parent is not walked
twice. ``.submodules`` lists the Modules in that order; ``.variables`` lists the Variables in order of
creation (API.md; a Keras layer's order, e.g. kernel before bias), not in the walk's order (tf.Module's).

Lazy building: a Variable may be created on the first call of a ``tj.function`` (a decorated method or
a Module called inside one), e.g. ``if self.w is None: self.w = tj.Variable(...)``; that first call runs
eagerly once (see graph/function.py), and creating a Variable on a later trace raises ``ValueError``.

A lazy build can be watched (``watch_build``): after every attribute assignment on any Module the
watchers run, so a checkpoint restored before the build gives each Variable its saved value as soon as
it appears (TF's deferred restoration), before the first call computes with it.
"""
from __future__ import annotations

import functools
import re
import threading
import weakref
from typing import Any, Callable, Dict, Iterator, List, Optional, Set, Tuple

from .. import tape_set
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
        elif not isinstance(name, str) or not _IDENTIFIER.match(name):
            raise ValueError(f"{name!r} is not a valid module name. Module names must be valid Python "
                             "identifiers (e.g. a valid class name).")
        self._name = name
        self._scope_name = f"{current_name_scope()}{name}/"

    # -- naming ---------------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._own_name()

    @property
    def name_scope(self) -> "ModuleNameScope":
        """A context manager: Variables created inside get this Module's scope before their name.
        Its ``.name`` is the scope, ending in "/" (as ``tf.Module.name_scope.name``). The same object
        each time (as TF 2's memoized name scope)."""
        scope = self.__dict__.get("_name_scope")
        if scope is None:
            scope = ModuleNameScope(getattr(self, "_scope_name", None) or f"{self._own_name()}/")
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
        return tuple(v for v in self.variables if v.trainable)

    @property
    def non_trainable_variables(self) -> Tuple[Variable, ...]:
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
        super().__setattr__(name, value)
        if _build_watchers:  # something waits for Variables: this assignment may have made one
            _notify_build_watchers()


# id(module) -> (weak reference to it, callback): see watch_build
_build_watchers: Dict[int, Tuple[Any, Callable[["Module"], bool]]] = {}


def watch_build(module: Module, callback: Callable[[Module], bool]) -> None:
    """Call ``callback(module)`` after each attribute assignment on any Module (outside ``tj.function``
    traces, where no Variable is created: a lazy build runs eagerly), while ``module`` lives, until it
    returns False or raises. The registration point for what waits for a lazy build to create Variables
    (a checkpoint's deferred restoration). A second call for one module replaces the first."""
    key = id(module)

    def forget(ref: Any) -> None:  # the module is gone: so is what waited for it (and what that holds)
        if _build_watchers.get(key, (None,))[0] is ref:
            del _build_watchers[key]

    _build_watchers[key] = (weakref.ref(module, forget), callback)


def _notify_build_watchers() -> None:
    if tape_set.state.capture is not None:
        return
    for key, (ref, callback) in list(_build_watchers.items()):
        module = ref()
        keep = False
        try:
            keep = module is not None and callback(module)
        finally:
            if not keep and _build_watchers.get(key, (None,))[0] is ref:
                del _build_watchers[key]


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


class ModuleNameScope:
    """A Module's name scope as an object (as the ``tf.name_scope`` that ``tf.Module.name_scope`` is):
    ``.name`` is the absolute scope ("outer/inner/"); ``with`` enters it and gives that name. It may be
    entered again, also while already inside it."""

    def __init__(self, name: str) -> None:
        self.name = name
        # One context per active `with`, innermost last, per thread: the Module (and so this object) may
        # be used by several threads at once, and name scopes are per thread.
        self._entered: Dict[int, List[Any]] = {}

    def __enter__(self) -> str:
        context = name_scope(self.name)
        scope = context.__enter__()
        self._entered.setdefault(threading.get_ident(), []).append(context)
        return scope

    def __exit__(self, *exc_info) -> Any:
        thread = threading.get_ident()
        stack = self._entered[thread]
        context = stack.pop()
        if not stack:
            del self._entered[thread]
        return context.__exit__(*exc_info)

    def __repr__(self) -> str:
        return f"<tj.Module name_scope {self.name!r}>"


class _UnsortableKeys(TypeError):
    """A dict whose keys do not sort, so that it has no order to walk it in."""


def _tracked(x: Any) -> bool:
    """What ``variables`` and ``submodules`` are made of."""
    return isinstance(x, (Variable, Module))
