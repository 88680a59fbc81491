"""The Variables and Tensors a function can plainly see before it runs: what ``tj.function`` makes inputs of
its program up front, so that its first trace already has them and the Python function runs once per
signature (as ``tf.function``), not a second time when the trace meets a Variable it did not know.

Looked at: the function's closure cells and the globals its code names (also the code of functions
defined inside it), functions it can reach that way (a ``model`` or ``loss`` helper), the call's
non-array arguments (a Module, an optimizer, any object holding Variables), and the objects those hold:
attributes, lists, tuples, dicts, weak references. Variables are collected at any depth; Tensors only
near a root (a closed-over constant, ``self.mask``, a few in a list), so a dataset held in a global list
does not become thousands of program inputs. The walk is bounded (``_MAX_VISITS``); anything it misses is still found by the
trace itself, which then runs once more with it as an input (graph/function.py).
"""
from __future__ import annotations

import types
import weakref
from typing import Any, Iterable, List, Tuple

import jax

from ..tensor import Tensor, Variable

_MAX_VISITS = 20_000
_TENSOR_DEPTH = 1  # Tensors held directly (a closed-over constant, ``self.mask``) or in a small list/dict
_MANY = 16  # a bigger list or dict (a dataset) gives Variables only
# Functions and objects of these packages hold no user Variables (tapejax's own objects, a Module or an
# optimizer, are walked; its functions are not).
_LIBRARIES = frozenset({"jax", "jaxlib", "numpy", "scipy", "optax", "orbax", "flax", "chex", "torch", "tensorflow",
                        "keras", "functools", "typing", "collections", "abc"})
_SKIP = (type, types.ModuleType, types.BuiltinFunctionType, str, bytes, int, float, complex, bool, type(None),
         jax.Array)


def reachable(functions: Iterable[Any], objects: Iterable[Any]) -> Tuple[List[Variable], List[Tensor]]:
    """``(variables, tensors)`` reachable from ``functions`` (their closures and globals) and ``objects``,
    each once, in the order found."""
    variables: List[Variable] = []
    tensors: List[Tensor] = []
    seen = set()
    stack: List[Tuple[Any, int]] = [(o, 0) for o in objects][::-1] + [(f, 0) for f in functions][::-1]
    while stack and len(seen) < _MAX_VISITS:
        obj, depth = stack.pop()
        if isinstance(obj, _SKIP) or id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, Variable):
            variables.append(obj)
        elif isinstance(obj, Tensor):
            if depth <= _TENSOR_DEPTH and not isinstance(obj._value, jax.core.Tracer):
                tensors.append(obj)
        else:
            children, step = _children(obj)
            if step and len(children) > _MANY:
                step = _TENSOR_DEPTH + 1  # a big collection (a dataset): only its Variables
            stack.extend((child, depth + step) for child in reversed(list(children)))
    return variables, tensors


def _children(obj: Any) -> Tuple[Any, int]:
    """What ``obj`` holds, and how much deeper that is (functions, cells and references add nothing: the
    values a function closes over are as near as the function)."""
    if isinstance(obj, (list, tuple, set, frozenset)):
        return list(obj), 1
    if isinstance(obj, dict):
        return list(obj.values()), 1
    if isinstance(obj, weakref.ReferenceType):
        target = obj()
        return ([] if target is None else [target]), 0
    if isinstance(obj, types.MethodType):
        return [obj.__func__, obj.__self__], 0
    if isinstance(obj, types.FunctionType):
        return ([] if _package(obj.__module__) in _LIBRARIES | {"tapejax"} else _function_children(obj)), 0
    if _package(type(obj).__module__) in _LIBRARIES:
        return [], 0
    wrapped = getattr(type(obj), "python_function", None)
    if isinstance(wrapped, property):  # a tj.function: the function it wraps (not its compiled programs)
        return [obj.python_function], 0
    attributes = getattr(obj, "__dict__", None)
    return (list(attributes.values()) if isinstance(attributes, dict) else []), 1


def _package(module: Any) -> str:
    return module.split(".", 1)[0] if isinstance(module, str) else ""


def _function_children(f: types.FunctionType) -> List[Any]:
    out = [cell.cell_contents for cell in (f.__closure__ or ()) if _filled(cell)]
    g = f.__globals__
    out += [g[name] for name in _names(f.__code__) if name in g]
    return out


def _filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:  # a cell not assigned yet
        return False
    return True


def _names(code: types.CodeType) -> List[str]:
    names = list(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names += _names(const)
    return names
