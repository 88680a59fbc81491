"""The public op-definition API: ``tj.op`` and ``tj.RegisterGradient``."""
from __future__ import annotations

import functools
import inspect
import sys
import weakref
from typing import Any, Callable, Optional, Sequence

import jax
import numpy as np

from ..tensor import ConversionError, Tensor, TracedValueError, Variable, traced_argument_error
from .core import OpDef, exactly, freeze, registry


def accept_name(*namespaces: Any) -> None:
    """Give every public op function of the op surface modules ``namespaces`` a ``name=`` keyword, accepted
    and ignored: a TF op's name only names its graph node, and tapejax has no graph names. Done once here
    rather than in each op's signature. A function one surface takes from another (``tj.nn.tanh`` is
    ``tj.numpy.tanh``) and aliases (``absolute`` of ``abs``) share one wrapper."""
    homes = {ns.__name__ for ns in namespaces}
    wrappers: dict = {}
    for ns in namespaces:
        for attr, f in list(vars(ns).items()):
            if attr.startswith("_") or not inspect.isfunction(f) or f.__module__ not in homes:
                continue  # classes, dtypes, and helpers imported from elsewhere (apply, freeze) stay as they are
            try:
                if "name" in inspect.signature(f).parameters:
                    continue
            except (TypeError, ValueError):
                continue
            if f not in wrappers:
                wrappers[f] = _ignoring_name(f)
            setattr(ns, attr, wrappers[f])


def _ignoring_name(f: Callable) -> Callable:
    @functools.wraps(f)
    def op_accepting_name(*args, name=None, **kwargs):
        try:
            return f(*args, **kwargs)
        except TracedValueError as e:  # (free when nothing raises)
            named = _traced_argument_error(f, args, kwargs, e)
            if named is None:
                raise
            try:
                raise named from e
            finally:
                named = None  # (the traceback keeps this frame: its locals must not keep the error, a reference cycle)
        except ConversionError as e:  # (an argument converted before the op's dispatch, which names the op)
            if str(e).startswith("tj op ") or _called_by_an_op(sys._getframe(1)):
                raise
            raise ConversionError(f"tj op '{f.__name__}': {e}") from None
    return op_accepting_name


_WRAPPER_CODE = _ignoring_name(len).__code__


def _called_by_an_op(frame) -> bool:
    """Whether a public op's wrapper is on the stack below ``frame``: an op's own helpers (``shape``, ``ndim``)
    are public ops too, and the error names the op the user called (read only when an error is raised)."""
    while frame is not None:
        if frame.f_code is _WRAPPER_CODE:
            return True
        frame = frame.f_back
    return False


_PUBLIC = {"numpy": "tj.numpy", "linalg": "tj.numpy.linalg", "fft": "tj.numpy.fft", "polynomial": "tj.numpy",
           "index_tricks": "tj.numpy", "nn": "tj.nn", "random": "tj.random"}  # module -> public name


def _traced_argument_error(f: Callable, args: tuple, kwargs: dict, e: TracedValueError):
    """The error for a traced Tensor passed where ``f`` needs a Python number (an axis, a shape, a count): it names
    the argument that held it. Where a value is asked for is deep inside an op's code, which knows no argument
    names; the signature does. None when the value asked for is none of the arguments (nor inside one)."""
    if e.value is None:
        return None
    try:
        bound = inspect.signature(f).bind(*args, **kwargs)
    except TypeError:
        return None
    for param, value in bound.arguments.items():
        if _holds(value, e.value):
            public = _PUBLIC.get(f.__module__.rpartition('.')[2], f.__module__)
            return traced_argument_error(f"{public}.{f.__name__}", param, e.value)
    return None


def _holds(value: Any, target: Any) -> bool:
    if value is target:
        return True
    if isinstance(value, (list, tuple)):
        return any(_holds(v, target) for v in value)
    if isinstance(value, dict):
        return any(_holds(v, target) for v in value.values())
    return False


def _arity(f: Callable) -> int:
    try:
        params = inspect.signature(f).parameters.values()
    except (TypeError, ValueError):
        return 3
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return 3
    return sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty)


def _user_bwd(vjp: Callable, nondiff: tuple, what: str = "custom vjp"):
    """Adapt ``vjp(primals, outputs, cotangents)`` (or ``vjp(primals, cotangents)``) to an OpDef bwd: it gets the
    tj.op's positional arguments as given (pytrees, ``nondiff_argnums`` values) and gives one gradient per
    positional argument (a pytree argument's in its structure)."""
    three = _arity(vjp) >= 3

    def bwd(res, cts, _pos=(), _tree=None, **kw):
        dyn, out = res
        args = _unflatten(dyn, _tree)
        primals = _merge(args, _pos, nondiff)
        grads = vjp(primals, out, cts) if three else vjp(primals, cts)
        if not isinstance(grads, (tuple, list)):
            grads = (grads,)
        if len(grads) == len(primals):
            grads = tuple(g for i, g in enumerate(grads) if i not in nondiff)
        if len(grads) != len(args):
            raise ValueError(f"{what} returned {len(grads)} gradients, expected {len(primals)} (one per "
                             "positional argument).")
        return _flatten_grads(grads, _tree)
    return bwd


def _arg_leaf(x) -> bool:
    """One array argument of a tj.op: a Tensor, Variable or array, or a (nested) list of numbers, as jnp takes."""
    if isinstance(x, (Tensor, Variable, jax.Array, np.ndarray, np.generic)):
        return True
    if isinstance(x, (list, tuple)):
        return all(isinstance(v, (int, float, complex, bool)) or (isinstance(v, (list, tuple)) and _arg_leaf(v))
                   for v in x)
    return False


def _flatten_args(args: tuple):
    """Pytree arguments (a dict of params, a list of arrays) become their leaves, each differentiated on its
    own; the structure (a hashable static parameter) rebuilds them for ``fn``. None when every argument is
    an array already (no flattening: the common case costs one type check per argument)."""
    if all(type(a) in (Tensor, int, float, bool) or _arg_leaf(a) for a in args):
        return None, args
    leaves, tree = jax.tree_util.tree_flatten(tuple(args), is_leaf=_arg_leaf)
    return tree, tuple(leaves)


def _unflatten(dyn: tuple, tree) -> tuple:
    return tuple(dyn) if tree is None else jax.tree_util.tree_unflatten(tree, dyn)


def _flatten_grads(grads: tuple, tree) -> tuple:
    """A custom vjp's gradients, one per (structured) argument, as one per leaf; None for a whole argument
    stands for None for each of its leaves."""
    if tree is None:
        return tuple(grads)
    flat = []
    for g, sub in zip(grads, tree.children()):
        flat.extend([None] * sub.num_leaves if g is None else sub.flatten_up_to(g))
    return tuple(flat)


def _user_jvp(jvp: Callable, nondiff: tuple):
    three = _arity(jvp) >= 3

    def rule(primals_dyn, tangents_dyn, out, _pos=(), _tree=None, **kw):
        primals = _merge(_unflatten(primals_dyn, _tree), _pos, nondiff)
        tangents = _merge(_unflatten(tangents_dyn, _tree), tuple(None for _ in _pos), nondiff)
        return jvp(primals, tangents, out) if three else jvp(primals, tangents)
    return rule


def _merge(dyn: tuple, static_vals: tuple, nondiff: tuple) -> tuple:
    """All positional arguments: the dynamic ones with the static ones (as given) put back at ``nondiff``."""
    out, d, s = [], iter(dyn), iter(static_vals)
    for i in range(len(dyn) + len(static_vals)):
        out.append(_as_given(next(s)) if i in nondiff else next(d))
    return tuple(out)


class _Given:
    """A static argument of a tj.op that its hashable form (core.freeze) would change (a dict, a list, a NumPy
    array): ``fn`` receives it as given, while the kernels' cache keys it by that form, its type and dtype. fn got
    the frozen form: a dict as a tuple of pairs, an int8 array as a tuple of Python ints."""

    __slots__ = ("value", "key")

    def __init__(self, value: Any, frozen: Any) -> None:
        self.value = value
        self.key = (type(value), str(getattr(value, "dtype", "")), exactly(frozen))

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: Any) -> bool:
        return type(other) is _Given and other.key == self.key

    def __repr__(self) -> str:
        return repr(self.value)


def _static_arg(v: Any) -> Any:
    frozen = freeze(v)
    if frozen is v or isinstance(v, (Tensor, Variable)):  # (a Tensor given for a number: its value, as in every op)
        return frozen
    return _Given(v, frozen)


def _as_given(v: Any) -> Any:
    return v.value if type(v) is _Given else v


def op(fn: Optional[Callable] = None, *, name: Optional[str] = None, vjp: Optional[Callable] = None,
       jvp: Optional[Callable] = None, nondiff_argnums: Sequence[int] = ()) -> Callable:
    """Lift a JAX function into a recorded op with jit-compiled forward, backward and forward-mode kernels.

    ``fn(*args, **kwargs)`` takes arrays (positional; those at ``nondiff_argnums`` and all keyword arguments
    are static, hashable parameters) and returns an array or a tuple of arrays. A positional argument may be
    a pytree of arrays (a dict of parameters, a list of arrays): ``fn`` receives the same structure, each
    leaf is differentiated on its own, and a custom ``vjp`` returns the same structure for that argument.
    Kernels not given are derived with ``jax.vjp``/``jax.jvp``:

    * ``vjp(primals, outputs, cotangents)`` (or ``vjp(primals, cotangents)``) returns one gradient per
      positional argument (None allowed); cotangents is one array, or a tuple for several outputs.
    * ``jvp(primals, tangents)`` (or ``jvp(primals, tangents, outputs)``) returns the output tangent(s).
      Without ``jvp`` but with ``vjp``, the JVP is the transpose of ``vjp``.

    Usable as ``@tj.op`` or ``@tj.op(name=..., vjp=...)``.
    """
    if fn is None:
        return lambda f: op(f, name=name, vjp=vjp, jvp=jvp, nondiff_argnums=nondiff_argnums)
    nondiff = tuple(sorted(int(i) for i in nondiff_argnums))
    op_name = name or getattr(fn, "__name__", "op")
    taken = registry().get(op_name)
    if taken is not None and not taken.user_defined:
        # (it would take the name over: tj.RegisterGradient(op_name) would then change this op, not tapejax's, and
        # silently; TF refuses a second op of one name too. A tj.op defined again, as a notebook cell rerun, replaces
        # the earlier one.)
        raise ValueError(f"tj.op: '{op_name}' is the name of one of tapejax's own ops; give yours another with "
                         f"tj.op(fn, name=...) (e.g. name='my_{op_name}').")

    def core_fn(*dyn, _pos=(), _tree=None, **kw):
        out = fn(*_merge(_unflatten(dyn, _tree), _pos, nondiff), **{k: _as_given(v) for k, v in kw.items()})
        if isinstance(out, dict) or (isinstance(out, (list, tuple))
                                     and any(isinstance(o, (dict, list, tuple)) for o in out)):
            # (one Tensor wrapping a dict would follow, broken: say so while the trace shows what came back)
            raise TypeError(f"tj op '{op_name}': the function returned {jax.tree_util.tree_structure(out)}, but a "
                            "tj.op returns an array or a flat tuple of arrays (arguments may be pytrees, outputs may "
                            "not). Return a tuple (e.g. tuple(d.values())) and rebuild the structure outside.")
        return out

    definition = OpDef(op_name, core_fn, bwd=_user_bwd(vjp, nondiff) if vjp is not None else None,
                       jvp=_user_jvp(jvp, nondiff) if jvp is not None else None, user_defined=True)
    _NONDIFF[definition] = nondiff  # (a RegisterGradient of it gets what vjp= gets)

    @functools.wraps(fn)
    def call(*args, name=None, **kwargs):  # name: TF's op name, accepted and ignored (no graph to name)
        static = {k: _static_arg(v) for k, v in kwargs.items()}
        if nondiff:
            static["_pos"] = tuple(_static_arg(args[i]) for i in nondiff)
            args = tuple(a for i, a in enumerate(args) if i not in nondiff)
        tree, args = _flatten_args(args)
        if tree is not None:
            static["_tree"] = tree
        return definition(*args, **static)
    call.op = definition
    return call


# The nondiff_argnums of each op made with tj.op (weak keys: an op defined again under its name goes)
_NONDIFF: "weakref.WeakKeyDictionary[OpDef, tuple]" = weakref.WeakKeyDictionary()


class RegisterGradient:
    """Decorator replacing the backward kernel of the named op (as ``tf.RegisterGradient``).

    The decorated ``grad(primals, outputs, cotangents)`` (or ``grad(primals, cotangents)``) returns one
    gradient per array argument (None allowed); for an op made with ``tj.op`` it takes and returns what that
    op's ``vjp=`` does: the positional arguments as given (a pytree argument in its structure, the values at
    ``nondiff_argnums`` too) and one gradient per positional argument, a pytree argument's in its structure.
    The op's forward-mode kernel becomes its transpose, so both modes agree.
    """

    def __init__(self, op_name: str) -> None:
        if not isinstance(op_name, str):
            raise TypeError(f"RegisterGradient expects an op name (str), got {type(op_name).__name__}")
        self._name = op_name

    def __call__(self, grad: Callable) -> Callable:
        ops = registry()
        if self._name not in ops:
            import difflib
            close = difflib.get_close_matches(self._name, list(ops), n=5)
            hint = f"Did you mean {', '.join(repr(c) for c in close)}? " if close else ""
            raise LookupError(f"RegisterGradient: no op named '{self._name}'. {hint}There are {len(ops)} named ops "
                              "(tapejax.ops.core.registry()); name one of your own with tj.op(fn, name=...).")
        op_def = ops[self._name]
        nondiff = _NONDIFF.get(op_def)
        if nondiff is not None:  # (a tj.op: its pytree arguments are flattened into leaves, its nondiff ones static)
            op_def.set_backward(None, _user_bwd(grad, nondiff, f"the gradient registered for '{self._name}'"))
            return grad
        three = _arity(grad) >= 3

        def bwd(res, cts, **static):
            dyn, out = res
            return grad(tuple(dyn), out, cts) if three else grad(tuple(dyn), cts)
        op_def.set_backward(None, bwd)
        return grad
