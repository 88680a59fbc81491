"""jax.numpy's index helpers (``r_``, ``c_``, ``mgrid``, ``ogrid``, ``s_``, ``index_exp``), ``fromfunction``,
``mask_indices``, ``isdtype``, ``iterable``, NumPy's abstract scalar types jax.numpy re-exports and the dtype name
``bool``, set on tj.numpy.

``r_``/``c_``/``mgrid``/``ogrid`` are built from tj.numpy's ops (``arange``, ``linspace``, ``reshape``,
``transpose``, ``concatenate``, ``meshgrid``, ``stack``), so a Tensor piece of ``r_[...]`` or ``c_[...]`` keeps its
gradient. Slice bounds are static (Python numbers, or scalar Tensors whose value is known), as in jax.numpy.
"""
from __future__ import annotations

import numbers
import operator

import jax.numpy as jnp
import numpy as np

from ..tensor import Tensor, TracedValueError, Variable, traced_argument_error
from . import numpy as _tnp
from .core import static


# -- slices as 1-d grids ------------------------------------------------------------------------------------------

def _slice_part(helper: str, what: str, value):
    """A slice's start, stop or step as a Python number (None kept); a traced Tensor or a non-number raises an
    error naming ``helper``."""
    try:
        value = static(value)
    except TracedValueError as e:
        raise traced_argument_error(f"tj.numpy.{helper}", what, e.value) from None
    if value is not None and not isinstance(value, numbers.Number):
        raise TypeError(f"tj.numpy.{helper}: the {what} must be a number, got {value!r}")
    return value


def _slice_grid(helper: str, s: slice) -> Tensor:
    """``start:stop:step`` as ``arange(start, stop, step)``; an imaginary step ``Nj`` as ``linspace(start, stop,
    N)`` (N points, both ends included)."""
    start = _slice_part(helper, "slice start", s.start) or 0
    stop = _slice_part(helper, "slice stop", s.stop)
    step = _slice_part(helper, "slice step", s.step) or 1
    for what, v in (("start", start), ("stop", stop)):
        if isinstance(v, complex):
            raise ValueError(f"tj.numpy.{helper}: the slice {what} must be real, got {v!r} (only the step may be "
                            "imaginary: start:stop:Nj gives N points)")
    if isinstance(step, complex):
        if step.imag == 0:
            raise ValueError(f"tj.numpy.{helper}: a complex slice step must be imaginary (start:stop:Nj gives N "
                            f"points), got {step!r}")
        num = abs(step)
        if num != int(num):
            raise ValueError(f"tj.numpy.{helper}: the imaginary step {step!r} of slice {s!r} counts points, so its "
                             "magnitude must be a whole number")
        if stop is None:
            raise ValueError(f"tj.numpy.{helper}: slice {s!r} with an imaginary step needs a stop")
        return _tnp.linspace(start, stop, int(num))
    return _tnp.arange(start, stop, step)


# -- r_ and c_ ----------------------------------------------------------------------------------------------------

class AxisConcatenator:
    """``r_``/``c_``: ``obj[a, b, ...]`` concatenates the pieces along ``axis``, each first given at least
    ``ndmin`` dimensions (new leading ones, then moved as ``trans1d`` says). A piece is a Tensor, array, list,
    number, or a slice (``start:stop:step``: an arange; ``start:stop:Nj``: N points of a linspace). A first piece
    that is a string is a directive: ``'axis[,ndmin[,trans1d]]'``, or ``'r'``/``'c'`` (a 1-d result becomes a
    row / column matrix)."""

    def __init__(self, name: str, axis: int, ndmin: int, trans1d: int):
        self._name, self._axis, self._ndmin, self._trans1d = name, axis, ndmin, trans1d

    def __repr__(self):
        return f"tj.numpy.{self._name}"

    def __len__(self):
        return 0

    def _directive(self, text: str) -> tuple:
        """(axis, ndmin, trans1d, matrix axis or -1) of a directive string."""
        if text in ("r", "c"):
            return self._axis, self._ndmin, self._trans1d, 0 if text == "r" else 1
        fields = text.split(",")[:3]  # (as jax.numpy: fields after the third are ignored)
        try:
            numbers_given = [int(f) for f in fields]
        except ValueError:
            raise ValueError(f"tj.numpy.{self._name}: could not understand directive {text!r}; expected 'r', 'c' or "
                             "'axis[,ndmin[,trans1d]]' (integers)") from None
        params = numbers_given + [self._axis, self._ndmin, self._trans1d][len(numbers_given):]
        return (*params, -1)

    def _piece(self, item, ndmin: int, trans1d: int):
        if isinstance(item, slice):
            piece, nd = _slice_grid(self._name, item), 0
        elif isinstance(item, str):
            raise ValueError(f"tj.numpy.{self._name}: a string directive must come first, got {item!r} later")
        else:
            # Python numbers stay as they are (weakly typed, as in jax.numpy); the rest become Tensors
            piece = item if isinstance(item, (Tensor, Variable, numbers.Number)) else _tnp.asarray(item)
            nd = _tnp.ndim(piece)
        have = _tnp.ndim(piece)
        if have < ndmin:
            piece = _tnp.reshape(piece, (1,) * (ndmin - have) + _tnp.shape(piece))
        if trans1d != -1 and ndmin - nd > 0:
            shift = abs(ndmin + trans1d + 1) % ndmin  # (the item's own axes rotate right by this much)
            piece = _tnp.transpose(piece, [(i - shift) % ndmin for i in range(ndmin)])
        return piece

    def __getitem__(self, key) -> Tensor:
        items = list(key) if isinstance(key, tuple) else [key]
        axis, ndmin, trans1d, matrix = self._axis, self._ndmin, self._trans1d, -1
        if items and isinstance(items[0], str):
            axis, ndmin, trans1d, matrix = self._directive(items.pop(0))
        pieces = [self._piece(item, ndmin, trans1d) for item in items]
        if not pieces:
            raise ValueError(f"tj.numpy.{self._name}: nothing to concatenate (give at least one array, number or "
                             "slice)")
        try:
            out = _tnp.concatenate(pieces, axis=axis)
        except (ValueError, TypeError) as e:
            kind = ValueError if isinstance(e, ValueError) else TypeError
            raise kind(f"tj.numpy.{self._name}: the pieces cannot be concatenated along axis {axis}: {e}") from e
        if matrix != -1 and _tnp.ndim(out) == 1:
            out = _tnp.expand_dims(out, matrix)
        return out


r_ = AxisConcatenator("r_", axis=0, ndmin=1, trans1d=-1)
c_ = AxisConcatenator("c_", axis=-1, ndmin=2, trans1d=0)


# -- mgrid and ogrid ----------------------------------------------------------------------------------------------

class GridBuilder:
    """``mgrid``/``ogrid``: ``obj[s0, s1, ...]`` of slices (as in ``r_``) gives the grids of their values along
    axes 0, 1, ...: ``mgrid`` one stacked Tensor of the dense grids, ``ogrid`` a list of broadcastable ones. One
    slice gives its 1-d Tensor. The grids share one dtype (the slices' promoted together)."""

    def __init__(self, name: str, sparse: bool):
        self._name, self._sparse = name, sparse

    def __repr__(self):
        return f"tj.numpy.{self._name}"

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _slice_grid(self._name, key)
        keys = key if isinstance(key, tuple) else (key,)
        for k in keys:
            if not isinstance(k, slice):
                raise TypeError(f"tj.numpy.{self._name}: index it with slices (start:stop or start:stop:step), got "
                                f"{k!r}")
        axes = [_slice_grid(self._name, k) for k in keys]
        if axes:
            dtype = jnp.result_type(*[a.dtype for a in axes])
            axes = [a if a.dtype == dtype else _tnp.astype(a, dtype) for a in axes]
        grids = _tnp.meshgrid(*axes, indexing="ij", sparse=self._sparse)
        if self._sparse:
            return grids
        return _tnp.stack(grids, 0) if grids else _tnp.arange(0)


mgrid = GridBuilder("mgrid", sparse=False)
ogrid = GridBuilder("ogrid", sparse=True)

# plain index builders: s_[1:3, ::2] is (slice(1, 3), slice(None, None, 2)); index_exp always gives a tuple
s_ = jnp.s_
index_exp = jnp.index_exp


# -- functions ----------------------------------------------------------------------------------------------------

def fromfunction(function, shape, *, dtype=float, name=None, **kwargs):
    """``jax.numpy.fromfunction``: ``function(i0, i1, ..., **kwargs)`` called once with Tensors of each axis's
    indices over the whole grid (of ``dtype``), so ``function`` should work elementwise on tj ops; a result (or
    each of a tuple or list of results) that is a scalar is broadcast to ``shape``. ``name`` (TF's) is ignored."""
    try:
        dims = static(shape)
        dims = (operator.index(dims),) if not isinstance(dims, tuple) else tuple(operator.index(d) for d in dims)
    except TracedValueError as e:
        raise traced_argument_error("tj.numpy.fromfunction", "shape", e.value) from None
    except TypeError:
        raise TypeError(f"tj.numpy.fromfunction: shape must be an int or a sequence of ints, got {shape!r}") from None
    if any(d < 0 for d in dims):
        raise ValueError(f"tj.numpy.fromfunction: shape {dims} has a negative dimension")
    grids = _tnp.meshgrid(*[_tnp.arange(d, dtype=dtype) for d in dims], indexing="ij")
    out = function(*grids, **kwargs)

    def full(y):
        return y if _tnp.shape(y) == dims else _tnp.broadcast_to(y, dims)
    if isinstance(out, (tuple, list)):
        return type(out)(full(y) for y in out)
    return full(out)


def mask_indices(n, mask_func, k=0, *, size=None, name=None):
    """``jax.numpy.mask_indices``: the (row, column) indices where ``mask_func(ones((n, n)), k)`` is nonzero (e.g.
    ``mask_func=tj.numpy.triu``); ``size`` fixes their number (needed inside tj.function). ``name`` (TF's) is ignored."""
    try:
        n = operator.index(static(n))
    except TracedValueError as e:
        raise traced_argument_error("tj.numpy.mask_indices", "n", e.value) from None
    except TypeError:
        raise TypeError(f"tj.numpy.mask_indices: n must be an int, got {n!r}") from None
    return _tnp.nonzero(mask_func(_tnp.ones((n, n)), k), size=size)


isdtype = jnp.isdtype
iterable = jnp.iterable
array_repr = jnp.array_repr
array_str = jnp.array_str
euler_gamma = np.euler_gamma
ComplexWarning = jnp.ComplexWarning

# NumPy's abstract scalar types that jax.numpy re-exports (its objects themselves), and ``bool``: tj.numpy's bool_
# (its scalar types are tj.numpy's own; set as a module attribute last, ``bool`` is not Python's here)
_SCALAR_TYPES = tuple(n for n in ("character", "flexible", "generic", "object_") if hasattr(jnp, n)) + ("bool",)
globals().update({n: getattr(jnp, n) for n in _SCALAR_TYPES[:-1]}, bool=_tnp.bool_)

__all__: list = ["r_", "c_", "mgrid", "ogrid", "s_", "index_exp", "fromfunction", "mask_indices", "isdtype",
                 "iterable", "array_repr", "array_str", "euler_gamma", "ComplexWarning", *_SCALAR_TYPES]

# ``bool`` set in tj.numpy's namespace would replace Python's ``bool`` inside tj.numpy's own functions (a global name
# is looked up there before the builtins): tj.numpy answers it from its module ``__getattr__`` instead
_BUILTIN_NAMES = {"bool"}
_tnp_getattr, _tnp_dir = vars(_tnp).get("__getattr__"), vars(_tnp).get("__dir__")  # (any already there)


def _numpy_getattr(name: str):
    if name in _BUILTIN_NAMES:
        return globals()[name]
    if _tnp_getattr is not None:
        return _tnp_getattr(name)
    raise AttributeError(f"module {_tnp.__name__!r} has no attribute {name!r}")


def _numpy_dir():
    # (its public names, as tab completion should offer them: ``__all__``, set once all of tj.numpy is in place,
    # and the module's dunders; not the helpers and modules it imports)
    if _tnp_dir is not None:
        return sorted(set(_tnp_dir()) | _BUILTIN_NAMES)
    public = getattr(_tnp, "__all__", None)
    names = set(vars(_tnp)) if public is None else set(public) | {n for n in vars(_tnp) if n.startswith("__")}
    return sorted(names | _BUILTIN_NAMES)


_tnp.__getattr__, _tnp.__dir__ = _numpy_getattr, _numpy_dir

for _name in __all__:  # (tj.numpy imports nothing of this module: it sits above it)
    if _name not in _BUILTIN_NAMES:
        setattr(_tnp, _name, globals()[_name])
