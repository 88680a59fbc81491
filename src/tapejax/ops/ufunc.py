"""``tj.numpy.ufunc``: jax.numpy's universal functions (``add``, ``multiply``, ``maximum``...) with their methods
``reduce``, ``accumulate``, ``reduceat``, ``outer`` and ``at``, and ``tj.numpy.frompyfunc``.

Every method is written with tj ops, so it records its gradient like any other tj code and gives the same
derivative on every path. Where jax.numpy hands a method to an op of its own (``add.reduce`` is ``sum``,
``multiply.accumulate`` is ``cumprod``, ``add.at`` is ``x.at[i].add``), so does tj.numpy, and the method has that
op's gradient (TF's, where API.md says so). The other methods fold the ufunc itself over the axis, as jax.numpy's
do (one op call per step: meant for the modest sizes these methods see, and differentiable wherever the ufunc is).
The bitwise and logical reductions have no gradient and run as one op.
"""
from __future__ import annotations

import math
import operator
from typing import Any, Callable, Optional

import jax.numpy as jnp
import numpy as np

from ..tensor import convert_to_tensor
from . import nn as _nn
from . import numpy as _tnp
from .core import apply, as_dtype, check_axis, freeze, static
from .declare import not_differentiable

_AT_INPLACE = ("tj.numpy ufunc.at() with inplace=True is not supported: Tensors are immutable. Pass inplace=False "
               "and use the returned Tensor, as jax.numpy's: x = tj.numpy.add.at(x, indices, values, inplace=False).")


class ufunc:
    """As ``jax.numpy.ufunc``: ``ufunc(func, /, nin, nout, *, name=None, nargs=None, identity=None, call=None,
    reduce=None, accumulate=None, at=None, reduceat=None)``. ``func`` takes Tensors and is written with tj ops;
    called, the ufunc maps it over the broadcast elements of its arguments (``tj.numpy.vectorize``) unless
    ``call`` gives a function that already broadcasts. ``reduce``, ``accumulate``, ``at`` and ``reduceat`` may
    give faster equivalents of those methods; by default each folds ``func`` over the axis."""

    def __init__(self, func: Callable[..., Any], /, nin: int, nout: int, *, name: Optional[str] = None,
                 nargs: Optional[int] = None, identity: Any = None, call: Optional[Callable] = None,
                 reduce: Optional[Callable] = None, accumulate: Optional[Callable] = None,
                 at: Optional[Callable] = None, reduceat: Optional[Callable] = None) -> None:
        if not callable(func):
            raise TypeError(f"tj.numpy.ufunc: func must be callable, got {type(func).__name__}")
        self.__name__ = name or getattr(func, "__name__", "ufunc")
        self.__doc__ = getattr(func, "__doc__", None)
        # (read-only properties, as jax.numpy's: the hash reads them; the attributes' names are mangled so that
        # functools.wraps, which copies an instance's __dict__ (tj.function(tj.numpy.add)), cannot clash with them)
        self.__props = {"func": func, "nin": operator.index(nin), "nout": operator.index(nout),
                        "nargs": operator.index(nargs if nargs is not None else nin), "identity": identity}
        self.__apply = call or _tnp.vectorize(func)
        self.__methods = {"reduce": reduce, "accumulate": accumulate, "at": at, "reduceat": reduceat}
        # (Tensor's Python operators apply a built-in ufunc's op directly: ops/_operators.py)
        if getattr(call, "opdef", None) is not None:
            self.opdef = call.opdef

    _func = property(lambda self: self.__props["func"], doc="The function the ufunc applies elementwise.")
    nin = property(lambda self: self.__props["nin"], doc="The number of inputs.")
    nout = property(lambda self: self.__props["nout"], doc="The number of outputs.")
    nargs = property(lambda self: self.__props["nargs"], doc="The number of arguments.")
    identity = property(lambda self: self.__props["identity"],
                        doc="The value a reduction over no elements gives (None: such a reduction raises).")

    def _key(self) -> tuple:
        return self._func, self.__name__, self.identity, self.nin, self.nout, self.nargs

    def __hash__(self) -> int:
        return hash(self._key())

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ufunc) and self._key() == other._key()

    def __repr__(self) -> str:
        return f"<tj.numpy.ufunc '{self.__name__}'>"

    def __call__(self, *args, out=None, where=None, name=None):
        if out is not None or where is not None:
            _refuse(f"{self.__name__}", "out" if out is not None else "where")
        if len(args) != self.nin:
            raise TypeError(f"tj.numpy.{self.__name__} takes {self.nin} array argument(s), got {len(args)}")
        return self.__apply(*args)

    def _binary_only(self, method: str) -> None:
        if self.nin != 2:
            raise ValueError(f"tj.numpy.{self.__name__}.{method}: {method} only supported for binary ufuncs "
                             f"(this one takes {self.nin} input(s))")
        if self.nout != 1:
            raise ValueError(f"tj.numpy.{self.__name__}.{method}: {method} only supported for functions returning "
                             f"a single value (this one returns {self.nout})")

    def _result_dtype(self, *dtypes) -> np.dtype:
        """The dtype ``func`` gives for one element of each of ``dtypes`` (as jax.numpy's: of two ones)."""
        return convert_to_tensor(self.__apply(*(jnp.ones((), d) for d in dtypes))).dtype

    # -- reduce ----------------------------------------------------------------------------------------------

    def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=None):
        """As ``jax.numpy.ufunc.reduce``: the ufunc folded over ``axis`` (None: all axes; an int or, where the
        ufunc has its own reduction, a tuple), starting from ``initial`` (default: the identity, else the first
        element); ``where`` (bool, broadcast to ``a``) picks the elements taking part."""
        self._binary_only("reduce")
        if out is not None:
            _refuse(f"{self.__name__}.reduce()", "out")
        if where is not None:
            if self.identity is None and initial is None:
                raise ValueError(f"reduction operation {self.__name__!r} does not have an identity, so to use a "
                                 "where mask one has to specify 'initial'.")
            where_dtype = convert_to_tensor(where).dtype
            if where_dtype != bool:
                raise ValueError(f"tj.numpy.{self.__name__}.reduce: where argument must have dtype=bool; got "
                                 f"dtype={where_dtype}")
        axis = freeze(axis)
        dtype = None if dtype is None else as_dtype(f"{self.__name__}.reduce", dtype)
        reduce = self.__methods["reduce"] or self._fold
        return reduce(a, axis=axis, dtype=dtype, keepdims=bool(keepdims), initial=initial, where=where)

    def _fold(self, a, axis, dtype, keepdims, initial, where):
        a = convert_to_tensor(a)
        if initial is None:
            initial = self.identity
        if dtype is None:
            dtype = self._result_dtype(a.dtype, a.dtype)
        if where is not None:
            where = _tnp.broadcast_to(where, a.shape)
        if isinstance(axis, tuple):
            raise NotImplementedError(f"tj.numpy.{self.__name__}.reduce: a tuple of axes is not supported for this "
                                      "ufunc (as jax.numpy's); reduce one axis at a time")
        if axis is None:
            final_shape = (1,) * a.ndim if keepdims else ()
            a = _tnp.ravel(a)
            where = None if where is None else _tnp.ravel(where)
            axis = 0
        else:
            axis = check_axis(f"{self.__name__}.reduce", axis, a.ndim)
            final_shape = a.shape[:axis] + ((1,) if keepdims else ()) + a.shape[axis + 1:]
            a = _tnp.moveaxis(a, axis, 0)
            where = None if where is None else _tnp.moveaxis(where, axis, 0)
        if a.shape[0] == 0:
            if initial is None:
                raise ValueError(f"zero-size array to reduction operation {self.__name__} which has no identity")
            return _tnp.full(final_shape, initial, dtype)
        start = 1 if initial is None else 0
        value = _tnp.broadcast_to(_tnp.astype(a[0] if initial is None else initial, dtype), a.shape[1:])
        for i in range(start, a.shape[0]):
            step = self.__apply(value, _tnp.astype(a[i], dtype))
            value = step if where is None else _tnp.where(where[i], step, value)
        return _tnp.reshape(value, final_shape) if keepdims else value

    # -- accumulate ------------------------------------------------------------------------------------------

    def accumulate(self, a, axis=0, dtype=None, out=None):
        """As ``jax.numpy.ufunc.accumulate``: the running fold along ``axis`` (an int), each prefix's result."""
        self._binary_only("accumulate")
        if out is not None:
            _refuse(f"{self.__name__}.accumulate()", "out")
        axis = freeze(axis)
        dtype = None if dtype is None else as_dtype(f"{self.__name__}.accumulate", dtype)
        accumulate = self.__methods["accumulate"] or self._running_fold
        return accumulate(a, axis=axis, dtype=dtype)

    def _running_fold(self, a, axis, dtype):
        a = convert_to_tensor(a)
        if dtype is None:
            dtype = self._result_dtype(a.dtype, a.dtype)
        if axis is None or isinstance(axis, (tuple, list)):
            raise ValueError(f"tj.numpy.{self.__name__}.accumulate: accumulate does not allow multiple axes "
                             f"(axis={axis!r}); give one int")
        axis = check_axis(f"{self.__name__}.accumulate", axis, a.ndim)
        if a.size == 0:
            return _tnp.zeros(a.shape, dtype)
        a = _tnp.moveaxis(a, axis, 0)
        value = _tnp.astype(a[0], dtype)
        running = [value]
        for i in range(1, a.shape[0]):
            value = self.__apply(value, _tnp.astype(a[i], dtype))
            running.append(value)
        return _tnp.moveaxis(_tnp.stack(running), 0, axis)

    # -- at --------------------------------------------------------------------------------------------------

    def at(self, a, indices, b=None, /, *, inplace=True):
        """As ``jax.numpy.ufunc.at`` (``inplace=False`` is required): ``a`` with the ufunc applied at
        ``indices`` (with ``b``'s values for a binary ufunc), once per time an index names an element, so a
        repeated index applies it repeatedly (``add.at`` accumulates)."""
        if inplace:
            raise NotImplementedError(_AT_INPLACE)
        if (b is None) != (self.nin == 1):
            raise TypeError(f"tj.numpy.{self.__name__}.at takes {self.nin - 1} value argument(s) after the indices "
                            f"({'none' if b is None else 'one'} given)")
        at = self.__methods["at"] or self._at_one_by_one
        return at(a, indices) if b is None else at(a, indices, b)

    def _at_one_by_one(self, a, indices, *values):
        # (an index out of bounds changes nothing, as jax.numpy's ufunc.at and add.at here: the read is clipped,
        # the write dropped)
        a = convert_to_tensor(a)
        values = tuple(convert_to_tensor(v) for v in values)
        dtype = self._result_dtype(a.dtype, *(v.dtype for v in values))
        a = _tnp.astype(a, dtype)
        values = tuple(_tnp.astype(v, dtype) for v in values)
        indices = indices if isinstance(indices, tuple) else (indices,)
        if not indices:
            return a
        arrays = [convert_to_tensor(i) if not isinstance(i, slice) else i for i in indices]
        shapes = [i.shape for i in arrays if not isinstance(i, slice)]
        shape = np.broadcast_shapes(*shapes) if shapes else ()
        if not shape:
            index = tuple(arrays)
            return a.at[index].set(self.__apply(a.at[index].get(mode="clip"), *values))
        count = math.prod(shape)
        flat = [i if isinstance(i, slice) else _tnp.ravel(_tnp.broadcast_to(i, shape)) for i in arrays]
        if values:
            v = values[0]
            values = (_tnp.reshape(_tnp.broadcast_to(v, shape + v.shape[len(shape):]),
                                   (count,) + v.shape[len(shape):]),)
        for k in range(count):
            index = tuple(i if isinstance(i, slice) else i[k] for i in flat)
            a = a.at[index].set(self.__apply(a.at[index].get(mode="clip"), *(v[k] for v in values)))
        return a

    # -- reduceat, outer -------------------------------------------------------------------------------------

    def reduceat(self, a, indices, axis=0, dtype=None, out=None):
        """As ``jax.numpy.ufunc.reduceat``: for each ``indices[i]``, the reduction of ``a`` along ``axis`` over
        ``indices[i]:indices[i+1]`` (the last to the end), or ``a[indices[i]]`` where ``indices[i+1]`` is not
        larger. ``dtype`` is accepted and, as in jax.numpy, does not change the result."""
        self._binary_only("reduceat")
        if out is not None:
            _refuse(f"{self.__name__}.reduceat()", "out")
        reduceat = self.__methods["reduceat"] or self._reduceat_by_masks
        return reduceat(a, indices, axis=freeze(axis), dtype=dtype)

    def _reduceat_by_masks(self, a, indices, axis, dtype):
        del dtype  # (as jax.numpy's)
        a, indices = convert_to_tensor(a), convert_to_tensor(indices)
        label = f"tj.numpy.{self.__name__}.reduceat"
        if a.ndim == 0:
            raise ValueError(f"{label}: a must have 1 or more dimension, got a.shape={a.shape}")
        if indices.ndim != 1:
            raise ValueError(f"{label}: indices must be one-dimensional, got indices.shape={indices.shape}")
        if axis is None or isinstance(axis, (tuple, list)):
            raise ValueError(f"{label}: reduceat requires a single integer axis, got axis={axis!r}")
        axis = check_axis(f"{self.__name__}.reduceat", axis, a.ndim)
        result = _tnp.take(a, indices, axis=axis)
        bounds = _tnp.append(indices, a.shape[axis])
        others = tuple(d for d in range(result.ndim) if d != axis)
        start = _tnp.expand_dims(bounds[:-1], others)
        end = _tnp.expand_dims(bounds[1:], others)
        for i in range(a.shape[axis]):
            inside = _tnp.logical_and(start < i, end > i)
            result = _tnp.where(inside, self.__apply(result, _tnp.take(a, np.array([i]), axis=axis)), result)
        return result

    def outer(self, A, B, /):
        """As ``jax.numpy.ufunc.outer``: the ufunc of every element of ``A`` with every element of ``B``, shape
        ``A.shape + B.shape``."""
        self._binary_only("outer")
        A, B = convert_to_tensor(A), convert_to_tensor(B)
        return self.__apply(_tnp.reshape(A, A.shape + (1,) * B.ndim), B)


def frompyfunc(func: Callable[..., Any], /, nin: int, nout: int, *, identity: Any = None) -> ufunc:
    """As ``jax.numpy.frompyfunc``: a ``tj.numpy.ufunc`` from ``func`` (of Tensors, written with tj ops), with
    ``reduce``, ``accumulate``, ``reduceat``, ``outer`` and ``at`` folding it."""
    return ufunc(func, nin, nout, identity=identity)


def _refuse(what: str, option: str):
    raise NotImplementedError(f"The '{option}' argument to tj.numpy.{what} is not supported, as jax.numpy's "
                              "(Tensors are immutable: use the returned Tensor; for where=, select afterwards "
                              "with tj.numpy.where).")


# -- jax.numpy's own methods of its built-in ufuncs -------------------------------------------------------------

def _with_dtype(reduction: Callable) -> Callable:
    """``max``/``min``/``logsumexp`` as a ufunc reduce: ``dtype`` casts the input first."""
    def reduce(a, axis, dtype, keepdims, initial, where):
        a = convert_to_tensor(a)
        if dtype is not None:
            a = _tnp.astype(a, dtype)
        return reduction(a, axis=axis, keepdims=keepdims, initial=initial, where=where)
    return reduce


def _logsumexp(a, axis, keepdims, initial, where, scale=1.0):
    """``logaddexp.reduce`` (``scale`` ln 2: ``logaddexp2``'s), ``logaddexp(initial, logsumexp(a))``."""
    a = _tnp.astype(a, jnp.result_type(a.dtype, jnp.float32)) if not jnp.issubdtype(a.dtype, np.inexact) else a
    result = _nn.logsumexp(a * scale if scale != 1.0 else a, axis=axis, keepdims=keepdims, where=where)
    if initial is not None:
        result = _tnp.logaddexp(_tnp.asarray(initial) * scale if scale != 1.0 else initial, result)
    return result / scale if scale != 1.0 else result


def _jax_reduction(name: str) -> Callable:
    """A bitwise or logical reduction (no gradient): jax.numpy's own, run as one op."""
    jax_ufunc = getattr(jnp, name)

    def fn(a, *masks, axis, dtype, keepdims, initial):
        where = masks[0] if masks else None
        return jax_ufunc.reduce(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where)
    op = not_differentiable(f"{name}_reduce", fn)

    def reduce(a, axis, dtype, keepdims, initial, where):
        initial = None if initial is None else np.asarray(static(initial)).item()  # (a static: hashable)
        masks = () if where is None else (where,)
        return apply(op, (a, *masks), {"axis": axis, "dtype": dtype, "keepdims": keepdims, "initial": initial})
    return reduce


def _bool_as_int(update: str) -> Callable:
    """``add.at``/``multiply.at``: ``a.at[i].add/multiply(b)``; on bools, through int32, as jax.numpy's."""
    def at(a, indices, b):
        a = convert_to_tensor(a)
        if a.dtype == bool:
            b = _tnp.astype(_tnp.astype(b, bool), jnp.int32)
            return _tnp.astype(getattr(_tnp.astype(a, jnp.int32).at[indices], update)(b), bool)
        return getattr(a.at[indices], update)(b)
    return at


_JAX_METHODS = {
    "add": dict(identity=0, reduce=lambda a, **k: _tnp.sum(a, **k),
                accumulate=lambda a, axis, dtype: _tnp.cumsum(a, axis=axis, dtype=dtype), at=_bool_as_int("add")),
    "multiply": dict(identity=1, reduce=lambda a, **k: _tnp.prod(a, **k),
                     accumulate=lambda a, axis, dtype: _tnp.cumprod(a, axis=axis, dtype=dtype),
                     at=_bool_as_int("multiply")),
    "subtract": dict(identity=None, at=lambda a, indices, b: convert_to_tensor(a).at[indices].subtract(b)),
    "maximum": dict(identity=None, reduce=_with_dtype(_tnp.max)),
    "minimum": dict(identity=None, reduce=_with_dtype(_tnp.min)),
    "logaddexp": dict(identity=-np.inf, reduce=_with_dtype(_logsumexp)),
    "logaddexp2": dict(identity=-np.inf,
                       reduce=_with_dtype(lambda a, **k: _logsumexp(a, **k, scale=float(np.log(2))))),
    "bitwise_and": dict(identity=-1, reduce=_jax_reduction("bitwise_and")),
    "bitwise_or": dict(identity=0, reduce=_jax_reduction("bitwise_or")),
    "bitwise_xor": dict(identity=0, reduce=_jax_reduction("bitwise_xor")),
    "logical_and": dict(identity=True, reduce=_jax_reduction("logical_and")),
    "logical_or": dict(identity=False, reduce=_jax_reduction("logical_or")),
    "logical_xor": dict(identity=False, reduce=_jax_reduction("logical_xor")),
    "negative": dict(),
}


def _install() -> None:
    """Make tj.numpy's functions of jax.numpy's ufuncs ufuncs, with jax.numpy's identities and methods."""
    for name, methods in _JAX_METHODS.items():
        surface = getattr(_tnp, name)
        nin = getattr(jnp, name).nin
        setattr(_tnp, name, ufunc(surface, nin, 1, name=name, call=surface, **methods))
    _tnp.ufunc, _tnp.frompyfunc = ufunc, frompyfunc


_install()
__all__ = ["ufunc", "frompyfunc"]
