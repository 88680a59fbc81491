"""The vector space of gradients: jit-compiled ones-like, zeros-like and aggregation, and byte counting.

Gradients inside a backward pass are raw ``jax.Array``s on the fast path, or Tensors when an outer
tape or accumulator records the backward pass (then the sums are recorded ops too).
"""
from __future__ import annotations

import collections
import math
import functools
from typing import Any, List, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from .tensor import ArrayImpl, Tensor

# Small constant arrays are immutable, so one per (kind, shape, dtype, sharding) can be shared.
_CACHE_MAX_BYTES = 1 << 20
_CACHE_MAX_ENTRIES = 512
_const_cache: "collections.OrderedDict[tuple, jax.Array]" = collections.OrderedDict()


@functools.partial(jax.jit, static_argnums=(0, 1))
def _ones(shape, dtype):
    return jnp.ones(shape, dtype)


@functools.partial(jax.jit, static_argnums=(0, 1))
def _zeros(shape, dtype):
    return jnp.zeros(shape, dtype)


_itemsize: dict = {}
_aval_bytes: dict = {}  # a device array's abstract value -> its bytes (``aval`` is a cheap C++ attribute;
_AVAL_BYTES_MAX = 4096  # ``shape`` and ``dtype`` are Python properties, ~4x slower)


def nbytes(x: Any) -> int:
    """Real bytes of an array or Tensor: elements x itemsize (runs twice per op of a backward pass: no numpy)."""
    # (a raw gradient, the sweep's common case, first: no Tensor test)
    v = x if type(x) is ArrayImpl else x._value if type(x) is Tensor else (x.value if isinstance(x, Tensor) else x)
    if type(v) is ArrayImpl:
        av = v.aval
        n = _aval_bytes.get(av)
        if n is None:
            if len(_aval_bytes) >= _AVAL_BYTES_MAX:
                _aval_bytes.clear()
            n = _aval_bytes[av] = _bytes_of(av)
        return n
    return _bytes_of(v)


def _bytes_of(v) -> int:
    dt = v.dtype
    size = _itemsize.get(dt)
    if size is None:
        size = _itemsize[dt] = jnp.dtype(dt).itemsize
    return math.prod(v.shape) * size


def _filled(kind: str, shape: tuple, dtype, sharding) -> jax.Array:
    dtype = jnp.dtype(dtype)
    key = (kind, shape, dtype, sharding)
    hit = _const_cache.get(key)
    if hit is not None:
        return hit
    make = _ones if kind == "ones" else _zeros
    arr = make(shape, dtype)
    if sharding is not None and not _is_tracer(arr) and getattr(arr, "sharding", None) != sharding:
        arr = jax.device_put(arr, sharding)
    if int(np.prod(shape, dtype=np.int64)) * dtype.itemsize <= _CACHE_MAX_BYTES and not _is_tracer(arr):
        _const_cache[key] = arr
        if len(_const_cache) > _CACHE_MAX_ENTRIES:
            _const_cache.popitem(last=False)
    return arr


def _is_tracer(x) -> bool:
    return isinstance(x, jax.core.Tracer)


def _sharding_of(v):
    if _is_tracer(v):
        return None
    s = getattr(v, "sharding", None)
    # The default single-device placement needs no explicit device_put.
    if s is not None and len(s.device_set) == 1 and next(iter(s.device_set)) == jax.devices()[0]:
        return None
    return s


def ones_like(v: Any) -> jax.Array:
    """Ones with the shape, dtype and sharding of an array (or a (shape, dtype) spec)."""
    if isinstance(v, tuple):
        return _filled("ones", v[0], v[1], None)
    return _filled("ones", tuple(v.shape), v.dtype, _sharding_of(v))


def zeros_like(v: Any) -> jax.Array:
    if isinstance(v, tuple):
        return _filled("zeros", v[0], v[1], None)
    return _filled("zeros", tuple(v.shape), v.dtype, _sharding_of(v))


def zeros_from_spec(shape: tuple, dtype, sharding=None) -> jax.Array:
    return _filled("zeros", tuple(shape), dtype, sharding)


def ones_from_spec(shape: tuple, dtype, sharding=None) -> jax.Array:
    return _filled("ones", tuple(shape), dtype, sharding)


@jax.jit
def _sum_n(xs):
    total = xs[0]
    for x in xs[1:]:
        total = total + x
    return total


def _device_key(v):
    if _is_tracer(v):
        return None
    s = getattr(v, "sharding", None)
    return s


def aggregate(grads: Sequence[Any]) -> Any:
    """Sum gradients (raw arrays) in one jitted call; arrays placed differently are summed per placement
    first, then moved to the first placement and summed (TF's _MultiDeviceAddN)."""
    if len(grads) == 1:
        return grads[0]
    groups: dict = {}
    for g in grads:
        groups.setdefault(_device_key(g), []).append(g)
    if len(groups) == 1:
        return _sum_n(list(grads))
    partials = [_sum_n(gs) if len(gs) > 1 else gs[0] for gs in groups.values()]
    target = next(iter(groups))
    moved = [partials[0]] + [jax.device_put(p, target) if target is not None else p for p in partials[1:]]
    return _sum_n(moved)


_recorded_sum = None  # tj.numpy.add_n, installed by the op layer (set_recorded_sum): ops sit above vspace


def set_recorded_sum(add_n) -> None:
    """Registration point for the op that sums Tensors on the tape (the ops layer calls it at import)."""
    global _recorded_sum
    _recorded_sum = add_n


def aggregate_tensors(grads: List[Tensor]) -> Tensor:
    """Recorded sum of Tensors (used while an outer tape or accumulator records the backward pass)."""
    if len(grads) == 1:
        return grads[0]
    return _recorded_sum(grads)


def placement(sharding):
    """The placement to give a new array: None for the default device (no device_put needed)."""
    if sharding is None:
        return None
    try:
        if len(sharding.device_set) == 1 and next(iter(sharding.device_set)) == jax.devices()[0]:
            return None
    except Exception:
        return None
    return sharding
