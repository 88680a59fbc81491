"""``tj.nn.initializers``: ``jax.nn.initializers``' names and signatures, drawing Tensors.

Each factory takes jax's arguments and returns an initializer ``init(key, shape, dtype=<the factory's>,
out_sharding=None)`` that returns a ``tj.Tensor``, ready for ``tj.Variable(init(key, shape))``. The numbers
are jax's own: the same key gives the same values as ``jax.nn.initializers`` (a key from ``tj.random.key``,
``jax.random.key``, a legacy uint32 ``PRNGKey``, or a Tensor or Variable holding one). ``zeros`` and
``ones`` are initializers themselves, as in jax.

A draw is one op with no gradient (as ``tj.random``'s draws), run by the factory's own jax initializer:
its kernel is cached by the factory's Python arguments, so a model that makes a new ``glorot_uniform()`` per
layer compiles each shape once, not once per layer; arrays and Tensors among the arguments (a ``stddev``,
``constant``'s value) are the kernel's operands. Inside a ``tj.function`` the draw is part of the program.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from ..tensor import Tensor, Variable
from .core import apply, as_dtype, freeze, static
from .declare import not_differentiable, public_dir
from .random import raw_key

Initializer = jax.nn.initializers.Initializer  # (a Protocol: a tj initializer is one too)

__all__ = [
    "Initializer", "constant", "delta_orthogonal", "glorot_normal", "glorot_uniform", "he_normal", "he_uniform",
    "kaiming_normal", "kaiming_uniform", "lecun_normal", "lecun_uniform", "normal", "ones", "orthogonal",
    "truncated_normal", "uniform", "variance_scaling", "xavier_normal", "xavier_uniform", "zeros",
]
__dir__ = public_dir(__name__)

_I = jax.nn.initializers


def _run(key, *values, factory: Callable, args: tuple, slots: tuple, shape: tuple, dtype, out_sharding):
    # ``values``: the factory's array arguments (a Tensor scale, constant's value), operands of the kernel rather
    # than baked into it (so a traced one works, and another value compiles nothing new), at ``slots`` in ``args``
    full = list(args)
    for i, v in zip(slots, values):
        full[i] = v
    return factory(*full)(key, shape, dtype, out_sharding=out_sharding)


_draw = not_differentiable("initializer", _run)


def _shape(shape: Any, name: str) -> tuple:
    shape = freeze(shape)
    if isinstance(shape, int):
        shape = (shape,)
    if not (isinstance(shape, tuple) and all(isinstance(d, int) and not isinstance(d, bool) for d in shape)):
        raise TypeError(f"tj.nn.initializers.{name}: shape must be a tuple of Python ints, got {shape!r}")
    if any(d < 0 for d in shape):
        raise ValueError(f"tj.nn.initializers.{name}: shape must not have negative dimensions, got {shape!r}")
    return shape


def _dtype(dtype: Any, name: str) -> Any:
    return None if dtype is None else as_dtype(f"initializers.{name}", dtype)


def _initializer(name: str, factory: Callable, arguments: tuple, default_dtype: Any) -> Callable:
    """The tj initializer drawing with jax's initializer ``factory(*arguments)``: Python values among the
    arguments key the kernel (made hashable), arrays, Tensors and Variables (their value now) are its operands."""
    args, values, slots = [], [], []
    for i, v in enumerate(arguments):
        if isinstance(v, Variable):
            v = v.read_value()
        if isinstance(v, (Tensor, jax.Array, np.ndarray, np.generic)):
            args.append(None)
            values.append(v)
            slots.append(i)
        else:
            args.append(static(v))
    values, static_args = tuple(values), {"factory": factory, "args": tuple(args), "slots": tuple(slots)}

    def init(key: Any, shape: Sequence[int], dtype: Any = default_dtype, out_sharding: Any = None) -> Tensor:
        shape = _shape(shape, name)
        try:
            return apply(_draw, (raw_key(key, f"tj.nn.initializers.{name}", hint=""),) + values,
                         {**static_args, "shape": shape, "dtype": _dtype(dtype, name), "out_sharding": out_sharding})
        except (TypeError, ValueError) as e:
            if not isinstance(e.__cause__, (TypeError, ValueError)):  # (tj's own check, or NoKernelError's words)
                raise
            # jax's words (a weight of too few axes for its fans, a bad mode), not the op's arguments' dump
            raise type(e)(f"tj.nn.initializers.{name} for shape {shape}: {e.__cause__}") from e.__cause__

    init.__name__ = init.__qualname__ = name
    init.__doc__ = (f"``jax.nn.initializers.{name}``'s draw as a Tensor: ``init(key, shape, dtype, "
                    "out_sharding=None)``.")
    return init


def _factory(jax_factory: Callable) -> Callable:
    """A tj factory with ``jax_factory``'s signature and arguments."""
    name, signature = jax_factory.__name__, inspect.signature(jax_factory)

    @functools.wraps(jax_factory, assigned=("__module__", "__name__", "__qualname__"))
    def make(*args, **kwargs) -> Callable:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        dtype = _dtype(bound.arguments.get("dtype"), name)
        if "dtype" in bound.arguments:
            bound.arguments["dtype"] = dtype
        return _initializer(name, jax_factory, bound.args, dtype)

    make.__doc__ = (f"``jax.nn.initializers.{name}`` with the same arguments; the initializer it returns draws a "
                    "``tj.Tensor``.")
    make.__signature__ = signature
    return make


def _zeros():
    return _I.zeros


def _ones():
    return _I.ones


zeros = _initializer("zeros", _zeros, (), None)
ones = _initializer("ones", _ones, (), None)

delta_orthogonal = _factory(_I.delta_orthogonal)
glorot_normal = xavier_normal = _factory(_I.glorot_normal)
glorot_uniform = xavier_uniform = _factory(_I.glorot_uniform)
he_normal = kaiming_normal = _factory(_I.he_normal)
he_uniform = kaiming_uniform = _factory(_I.he_uniform)
lecun_normal = _factory(_I.lecun_normal)
lecun_uniform = _factory(_I.lecun_uniform)
normal = _factory(_I.normal)
orthogonal = _factory(_I.orthogonal)
truncated_normal = _factory(_I.truncated_normal)
uniform = _factory(_I.uniform)
variance_scaling = _factory(_I.variance_scaling)


def constant(value: Any, dtype: Any = None) -> Callable:
    """``jax.nn.initializers.constant``: ``init(key, shape, dtype)`` fills ``shape`` with ``value`` (broadcast)
    as a Tensor. ``value`` may be a Tensor, Variable, array or list (its value now)."""
    if not isinstance(value, (Tensor, Variable)):
        value = jnp.asarray(value)  # (an operand of the kernel, never a static list)
    dtype = _dtype(dtype, "constant")
    return _initializer("constant", _I.constant, (value, dtype), dtype)
