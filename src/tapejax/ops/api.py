"""The public op-definition API: ``tj.op`` and ``tj.RegisterGradient``."""
from __future__ import annotations

import functools
import inspect
from typing import Callable, Optional, Sequence

from .core import OpDef, freeze, registry


def _arity(f: Callable) -> int:
    try:
        params = inspect.signature(f).parameters.values()
    except (TypeError, ValueError):
        return 3
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return 3
    return sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty)


def _user_bwd(vjp: Callable, nondiff: tuple):
    """Adapt ``vjp(primals, outputs, cotangents)`` (or ``vjp(primals, cotangents)``) to an OpDef bwd."""
    three = _arity(vjp) >= 3

    def bwd(res, cts, _pos=(), **kw):
        dyn, out = res
        primals = _merge(dyn, _pos, nondiff)
        grads = vjp(primals, out, cts) if three else vjp(primals, cts)
        if not isinstance(grads, (tuple, list)):
            grads = (grads,)
        if len(grads) == len(primals):
            grads = tuple(g for i, g in enumerate(grads) if i not in nondiff)
        if len(grads) != len(dyn):
            raise ValueError(f"custom vjp returned {len(grads)} gradients, expected {len(primals)} (one per "
                             "positional argument).")
        return tuple(grads)
    return bwd


def _user_jvp(jvp: Callable, nondiff: tuple):
    three = _arity(jvp) >= 3

    def rule(primals_dyn, tangents_dyn, out, _pos=(), **kw):
        primals = _merge(primals_dyn, _pos, nondiff)
        tangents = _merge(tangents_dyn, tuple(None for _ in _pos), nondiff)
        return jvp(primals, tangents, out) if three else jvp(primals, tangents)
    return rule


def _merge(dyn: tuple, static_vals: tuple, nondiff: tuple) -> tuple:
    """All positional arguments: the dynamic ones with the static ones put back at ``nondiff``."""
    out, d, s = [], iter(dyn), iter(static_vals)
    for i in range(len(dyn) + len(static_vals)):
        out.append(next(s) if i in nondiff else next(d))
    return tuple(out)


def op(fn: Optional[Callable] = None, *, name: Optional[str] = None, vjp: Optional[Callable] = None,
       jvp: Optional[Callable] = None, nondiff_argnums: Sequence[int] = ()) -> Callable:
    """Lift a JAX function into a recorded op with jit-compiled forward, backward and forward-mode kernels.

    ``fn(*args, **kwargs)`` takes arrays (positional; those at ``nondiff_argnums`` and all keyword arguments
    are static, hashable parameters) and returns an array or a tuple of arrays. Kernels not given are
    derived with ``jax.vjp``/``jax.jvp``:

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

    def core_fn(*dyn, _pos=(), **kw):
        return fn(*_merge(dyn, _pos, nondiff), **kw)

    definition = OpDef(op_name, core_fn, bwd=_user_bwd(vjp, nondiff) if vjp is not None else None,
                       jvp=_user_jvp(jvp, nondiff) if jvp is not None else None)
    definition.user_defined = True  # not part of the built-in op surface (the registry test skips it)

    @functools.wraps(fn)
    def call(*args, **kwargs):
        static = {k: freeze(v) for k, v in kwargs.items()}
        if nondiff:
            static["_pos"] = tuple(freeze(args[i]) for i in nondiff)
            args = tuple(a for i, a in enumerate(args) if i not in nondiff)
        return definition(*args, **static)
    call.op = definition
    return call


class RegisterGradient:
    """Decorator replacing the backward kernel of the named op (as ``tf.RegisterGradient``).

    The decorated ``grad(primals, outputs, cotangents)`` returns one gradient per array argument; the
    op's forward-mode kernel becomes its transpose, so both modes agree.
    """

    def __init__(self, op_name: str) -> None:
        if not isinstance(op_name, str):
            raise TypeError(f"RegisterGradient expects an op name (str), got {type(op_name).__name__}")
        self._name = op_name

    def __call__(self, grad: Callable) -> Callable:
        ops = registry()
        if self._name not in ops:
            raise LookupError(f"RegisterGradient: no op named '{self._name}'. Known ops: {sorted(ops)[:40]}...")
        three = _arity(grad) >= 3

        def bwd(res, cts, **static):
            dyn, out = res
            return grad(tuple(dyn), out, cts) if three else grad(tuple(dyn), cts)
        ops[self._name].set_backward(None, bwd)
        return grad
