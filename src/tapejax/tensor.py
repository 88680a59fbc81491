"""Tensor (an immutable, identified jax.Array), Variable (mutable state) and conversion.

Every Tensor gets an id that is never reused in the process; tapes and accumulators refer to
tensors by id only. When a Tensor that a tape or accumulator knows about is garbage collected, they
are told (``_trackers``), so the tape can free the ops nothing can reach any more (tape.h DeleteTrace).
"""
from __future__ import annotations

import collections
import contextlib
import itertools
import operator
import sys
import threading
import warnings
import weakref
from typing import Any, Callable, Optional, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from . import tape_set

try:  # the concrete jax.Array class, without starting a backend at import (tapejax.distributed needs that)
    from jax._src.array import ArrayImpl
except ImportError:  # pragma: no cover - another jax layout: only LazyTensor arguments are deferred then
    ArrayImpl = None


class _Ids(threading.local):
    """Each thread's ids, consecutive in a block of its own: a step record names the step's tensors by their
    distance in ids (deferred/lazy.py), which another thread making Tensors meanwhile (a loader's) must not
    change; the main thread's block comes first."""

    def __init__(self) -> None:
        block = 0 if threading.current_thread() is threading.main_thread() else _next_block()
        self.take = itertools.count(block * ID_BLOCK + 1).__next__


ID_BLOCK = 1 << 40  # the ids of one thread: the k-th to take any (the main thread: 0) takes k * ID_BLOCK + 1, ...
_next_block = itertools.count(1).__next__
_ids = _Ids()


def new_id() -> int:
    """A fresh id, unique in the process. A thread's ids only grow, so a Tensor this thread made with an id
    below one taken now was made before now (another thread's Tensors are numbered in another block: the main
    thread's below all)."""
    return _ids.take()


next_id = new_id  # (the name the tensors' own code and deferred/lazy.py use)


_scope = threading.local()  # .prefix: the name scope Variables created now get ("" or "a/b/")


def current_name_scope() -> str:
    """The active name scope, "" or ending in "/" (as ``tf.name_scope``)."""
    return getattr(_scope, "prefix", "")


class name_scope:
    """A name scope (as ``tf.name_scope``): Variables created inside get ``scope/`` before their name.
    ``with`` gives the scope entered ("outer/name/"); scopes nest; a name ending in "/" is absolute (it
    replaces the active scope instead of nesting under it), and "" is the root scope. ``.name`` is the name
    as given. One object may be entered again, also while already inside it, and from several threads
    (the active scope is per thread)."""

    def __init__(self, name: str) -> None:
        if not isinstance(name, str):
            raise ValueError(f"name for name_scope must be a string, got {name!r} ({type(name).__name__}).")
        self._name = name
        self._saved: dict = {}  # thread id -> the scopes this object's active ``with`` blocks replaced

    @property
    def name(self) -> str:
        return self._name

    def __enter__(self) -> str:
        saved = current_name_scope()
        name = self._name
        _scope.prefix = scope = name if not name or name.endswith("/") else f"{saved}{name}/"
        self._saved.setdefault(threading.get_ident(), []).append(saved)
        return scope

    def __exit__(self, *exc_info) -> bool:
        thread = threading.get_ident()
        stack = self._saved[thread]
        _scope.prefix = stack.pop()
        if not stack:
            del self._saved[thread]
        return False

    def __repr__(self) -> str:
        return f"<tj.name_scope {self._name!r}>"


_float_dtypes: dict = {}  # dtype -> is trainable; jnp.issubdtype costs ~1 us and runs on every recorded op
# TF's trainable dtypes (backprop_util.IsTrainable): the 8-bit (and narrower) floats of ml_dtypes are not among
# them, so a float8 tensor gets a None gradient and a watch warning, as TF's tape gives it
_TRAINABLE_REAL = frozenset(np.dtype(d) for d in (jnp.float16, jnp.bfloat16, jnp.float32, jnp.float64))


def is_float(dtype) -> bool:
    """Whether values of ``dtype`` carry gradients (TF's trainable dtypes: float16, bfloat16, float32, float64,
    complex64, complex128)."""
    try:
        return _float_dtypes[dtype]
    except (KeyError, TypeError):
        r = bool(jnp.issubdtype(dtype, jnp.complexfloating)) or (
            jnp.issubdtype(dtype, jnp.floating) and np.dtype(dtype) in _TRAINABLE_REAL)
        try:
            _float_dtypes[dtype] = r
        except TypeError:  # unhashable dtype-like
            pass
        return r


class TensorShape(tuple):
    """A Tensor's or Variable's shape: a tuple of ints (``t.shape == (2, 3)``, indexing, unpacking, passing it
    to jax.numpy), with what TF code asks of TF's TensorShape: ``as_list()``, ``rank``/``ndims``, ``dims``,
    ``num_elements()``, ``is_fully_defined()``, ``is_compatible_with``/``assert_is_compatible_with``,
    ``merge_with``, ``concatenate`` and ``with_rank``; equal to the same sizes as a list too. A shape built by
    hand (``tj.TensorShape([None, 3])``) may have None for a size not known, as TF's."""

    __slots__ = ()

    def __new__(cls, dims=()):
        if isinstance(dims, TensorShape):
            return dims
        if dims is None:
            raise ValueError("tj.TensorShape(None): a shape of unknown rank is not supported (every tapejax value "
                             "has a known shape); give a list of sizes, None for a size not known.")
        try:
            return tuple.__new__(cls, [None if d is None else operator.index(d) for d in dims])
        except TypeError:
            raise TypeError(f"tj.TensorShape: expected a sequence of ints (or None), got {dims!r}") from None

    def __eq__(self, other):
        if isinstance(other, list):
            other = tuple(other)
        return tuple.__eq__(self, other)

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = tuple.__hash__

    def __getitem__(self, key):
        item = tuple.__getitem__(self, key)
        return TensorShape(item) if isinstance(key, slice) else item

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return TensorShape(other).concatenate(self)

    def as_list(self) -> list:
        """The dimensions as a list of ints (as TF's ``TensorShape.as_list``)."""
        return list(self)

    @property
    def rank(self) -> int:
        """The number of dimensions."""
        return len(self)

    ndims = rank

    @property
    def dims(self) -> list:
        """The dimensions as a list (as TF's ``TensorShape.dims``)."""
        return list(self)

    def num_elements(self):
        """The number of elements; None when a size is not known."""
        if any(d is None for d in self):
            return None
        return int(np.prod(self, dtype=np.int64))

    def is_fully_defined(self) -> bool:
        """Whether every dimension is known (always, for an eager Tensor's shape)."""
        return all(d is not None for d in self)

    def is_compatible_with(self, other) -> bool:
        """Whether ``other`` (None for any shape) could be this shape: the same rank, each size equal or None."""
        if other is None:
            return True
        other = TensorShape(other)
        return len(other) == len(self) and all(a is None or b is None or a == b for a, b in zip(self, other))

    def assert_is_compatible_with(self, other) -> None:
        """Raise ValueError unless ``is_compatible_with(other)``."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {TensorShape(other)} are incompatible")

    def merge_with(self, other) -> "TensorShape":
        """The shape both describe (each size known in either), as TF; ValueError when they differ."""
        if other is None:
            return self
        other = TensorShape(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([a if a is not None else b for a, b in zip(self, other)])

    def concatenate(self, other) -> "TensorShape":
        """This shape's dimensions followed by ``other``'s."""
        return TensorShape(tuple(self) + tuple(TensorShape(other)))

    def with_rank(self, rank: int) -> "TensorShape":
        """This shape, or ValueError when its rank is not ``rank``."""
        if len(self) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def __repr__(self) -> str:
        return tuple.__repr__(self)  # (as the tuple it is: printed shapes read as jax.numpy's)

    def __reduce__(self):
        return (TensorShape, (tuple(self),))


# To JAX's pytrees a TensorShape is the tuple it is (its sizes the leaves), not one opaque leaf.
jax.tree_util.register_pytree_node(TensorShape, lambda s: (tuple(s), None), lambda _, c: tuple.__new__(TensorShape, c))


class ArrayShape:
    """shape / dtype / ndim / size read from ``_value``: what Tensor and Variable share."""

    __slots__ = ()

    @property
    def shape(self) -> TensorShape:
        """The static shape, a ``tj.TensorShape`` (a tuple of ints, with TF's methods)."""
        return tuple.__new__(TensorShape, self._value.shape)  # (jax's sizes as they are: no checks)

    @property
    def dtype(self):
        """The element type (a NumPy dtype, as ``jax.Array.dtype``)."""
        return self._value.dtype

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return self._value.ndim

    @property
    def size(self) -> int:
        """The number of elements."""
        return int(np.prod(self._value.shape, dtype=np.int64))

    def get_shape(self) -> tuple:
        """``shape`` (TF's other name for it)."""
        return self.shape

    def set_shape(self, shape: Any) -> None:
        """As TF: a check, changing nothing (the shape is known): ``shape`` (None for any, or a sequence
        with None for any size) must be compatible with this shape, else ``ValueError``."""
        if shape is None:
            return
        try:
            dims = tuple(None if d is None else operator.index(d) for d in shape)
        except TypeError:
            raise TypeError(f"set_shape: the shape must be None or a sequence of ints and Nones, got {shape!r}") from None
        mine = self.shape
        if mine.is_compatible_with(dims):
            return
        shown = "(" + ", ".join(map(str, dims)) + ("," if len(dims) == 1 else "") + ")"
        if isinstance(self, Tensor):
            raise ValueError(f"Tensor's shape {mine} is not compatible with supplied shape {shown}.")
        raise ValueError(f"Shapes {mine} and {shown} are not compatible")

    def experimental_ref(self) -> "_Ref":
        """``ref()`` (TF's deprecated name for it)."""
        return self.ref()


def _tell_died(ref, tensor_id: int) -> None:
    """Tell the owner behind weak reference ``ref`` (a tape, an accumulator, a trace) that a tensor it tracks died."""
    owner = ref()
    if owner is not None:
        try:
            owner._tensor_died(tensor_id)
        except Exception:  # never raise from a finalizer (e.g. at interpreter exit)
            pass


def _wrapped_value(value):
    """What ``Tensor(value)`` holds: a JAX array or tracer as it is, a NumPy array as a JAX array; anything else
    is refused (a Tensor made of a tuple would fail later on every attribute)."""
    if isinstance(value, (jax.Array, jax.core.Tracer)):
        return value
    if isinstance(value, (np.ndarray, np.generic)):
        return jnp.asarray(value)
    raise TypeError(f"tj.Tensor(value) wraps a jax.Array, not a {type(value).__name__}; make a Tensor from Python "
                    f"numbers, lists or NumPy arrays with tj.constant(value).")


class Tensor(ArrayShape):
    """Immutable wrapper around one ``jax.Array``. Operators and methods are recorded ops."""

    __slots__ = ("_value", "_id", "_trackers", "_pending", "__weakref__")
    # numpy should defer to our reflected operators (np_array * tensor -> Tensor).
    __array_priority__ = 100

    def __init__(self, value: Any) -> None:
        self._trackers = None  # weak ref (or list of them) to the tapes/accumulators to tell when it dies
        if type(value) is not ArrayImpl:  # (the ops' outputs, the common case, pass this one test)
            value = _wrapped_value(value)
        self._value = value
        self._id = _ids.take()

    def __getattr__(self, name: str):
        # Reached only for a slot never set (no cost on the normal path): ``_value`` of a pending tensor
        # (see pending_tensor), computed now, and ``_pending`` of every other tensor.
        if name == "_pending":
            return None
        if name == "_value":
            source = self._pending
            if source is not None:
                node, index = source
                if node.values is None or node.values[index] is None:  # (not run, or its run left it out)
                    node.compute()
                value = self._value = node.values[index]
                self._pending = None
                return value
        if name == "assign":  # a slice of a Variable (make_slice_assignable), as TF's ``v[index].assign(x)``
            entry = _slice_assigners.get(self._id)
            if entry is not None:
                return entry[0]
        if name == "__cuda_array_interface__":  # (its property raised: the value's own AttributeError, jax's words)
            return getattr(self._value, name)
        if name == "name":  # TF's message for an eager tensor's name
            raise AttributeError("Tensor.name is undefined when eager execution is enabled (as TF: only a tj.Variable "
                                 "keeps the name it was given; ops and tj.constant accept name= and ignore it).")
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __del__(self, _tell_died=_tell_died) -> None:  # (bound here: module globals may be gone at exit)
        trackers = self._trackers
        if trackers is None:
            return
        if type(trackers) is not list:  # (one owner, the common case: _tell_died inline, a frame less per tensor)
            owner = trackers()
            if owner is not None:
                try:
                    owner._tensor_died(self._id)
                except Exception:  # never raise from a finalizer (e.g. at interpreter exit)
                    pass
        else:
            for ref in trackers:
                _tell_died(ref, self._id)

    # copy.copy and copy.deepcopy give the tensor itself, as TF's (it is immutable; a second object with its id
    # would, when it died, make the tapes and accumulators following the original forget it). Pickling gives a
    # new tensor of the same value, with an id of its own, as TF's (a pending tensor is computed first).
    def __copy__(self) -> "Tensor":
        return self

    def __deepcopy__(self, memo) -> "Tensor":
        return self

    def __reduce__(self):
        return Tensor, (self._value,)

    @classmethod
    def of_leaf(cls, value) -> "Tensor":
        """A Tensor holding ``value`` unchecked: a pytree's leaf, which JAX's transforms fill with what they
        carry (avals, sentinels, None), not only arrays."""
        t = cls.__new__(cls)
        t._value = value
        t._id = _ids.take()
        t._trackers = None
        return t

    @classmethod
    def standing_for(cls, tensor_id: int, value) -> "Tensor":
        """A Tensor with the id of one made earlier (perhaps dead since) and its value: what a recorded
        op's backward dispatches on, so that tapes that know the id record it. Its death tells nobody."""
        t = cls.__new__(cls)
        t._value = value
        t._id = tensor_id
        t._trackers = None
        return t

    def _track(self, ref) -> None:
        """Tell the owner of weak reference ``ref`` (a tape or accumulator) when this tensor dies."""
        tr = self._trackers
        if tr is None:
            self._trackers = ref  # one owner (the common case): the weak reference itself, no list
        elif type(tr) is list:
            if ref not in tr:
                # (a long-lived tensor each new accumulator or tape tracks, a watched primal: the dead owners'
                # references go, or the list would grow by one per owner for the tensor's whole life)
                tr[:] = [r for r in tr if r() is not None]
                tr.append(ref)
        elif tr is not ref:
            self._trackers = [tr, ref] if tr() is not None else ref

    # -- properties -----------------------------------------------------------------------------
    @property
    def value(self) -> jax.Array:
        """The wrapped ``jax.Array``."""
        return self._value

    @property
    def id(self) -> int:
        """A unique int, never reused in the process (what tapes name this tensor by)."""
        return self._id

    @property
    def device(self):
        """The device holding the value (for a sharded value, its first device)."""
        v = self._value
        try:
            return v.device
        except Exception:
            devs = getattr(v, "devices", None)
            return next(iter(devs())) if devs else None

    @property
    def sharding(self):
        """The value's ``jax.sharding.Sharding`` (None for a traced value)."""
        return getattr(self._value, "sharding", None)

    def numpy(self):
        """The value as a ``numpy.ndarray``, a writable copy (as TF's ``EagerTensor.numpy()``: writing to it leaves
        the Tensor as it was; ``np.asarray(t)`` may share the read-only buffer); a scalar (0-d) tensor gives a NumPy
        scalar (``np.float32``...), as TF's."""
        _require_concrete(self, "numpy()", TracerArrayConversionError)
        a = np.array(self._value)
        return a[()] if a.ndim == 0 else a

    def __array__(self, dtype=None, copy=None):
        """NumPy's conversion protocol (NumPy 2): ``np.asarray(t)`` may share the (read-only) buffer,
        ``np.array(t)``/``copy=True`` gives a new writable array, ``copy=False`` raises if a cast needs a copy."""
        _require_concrete(self, "np.asarray()", TracerArrayConversionError)
        a = np.asarray(self._value)
        if dtype is not None and np.dtype(dtype) != a.dtype:
            if copy is False:
                raise ValueError(f"np.asarray(tj.Tensor, copy=False): converting dtype {a.dtype} to {np.dtype(dtype)} "
                                 "needs a copy; allow one (copy=None) or ask for the tensor's own dtype.")
            return a.astype(dtype)
        return a.copy() if copy else a

    def __buffer__(self, flags: int) -> memoryview:
        """The buffer protocol (``memoryview(t)``; a Python class has it from Python 3.12, PEP 688): a read-only
        view of the value, as TF's EagerTensor."""
        _require_concrete(self, "memoryview()", TracerArrayConversionError)
        return memoryview(np.asarray(self._value))

    def __release_buffer__(self, buffer: memoryview) -> None:
        """The buffer protocol's other half (as jax.Array has it): the view ``__buffer__`` gave is let go."""
        buffer.release()

    def __bytes__(self) -> bytes:
        """``bytes(t)`` as TF's (CPython asks ``__index__`` first, then the buffer): an integer or bool scalar gives
        that many zero bytes, anything else its raw bytes. (Before Python 3.12 a Python class has no buffer for
        ``bytes`` to read: a float tensor fell through to iterating its elements and raised about indexing.)"""
        _require_concrete(self, "bytes()", TracerArrayConversionError)
        a = np.asarray(self._value)
        if a.ndim == 0 and (np.issubdtype(a.dtype, np.integer) or a.dtype == np.bool_):
            return bytes(int(a))
        return a.tobytes()

    def __array_function__(self, func, types, args, kwargs):
        return _numpy_function(func, args, kwargs)

    def __format__(self, spec: str) -> str:
        # as TF's EagerTensor: the NumPy value's format (f"{t}" is "1.5" or "[1. 2.]", not the repr); a traced
        # tensor has no value to format, so it shows its repr
        if not spec and isinstance(self._value, jax.core.Tracer):
            return str(self)
        _require_concrete(self, "__format__")
        return _format_value(np.asarray(self._value), spec, "tj.Tensor")

    def _repr_html_(self) -> str:
        return _html("tj.Tensor", None, self._value)

    def __jax_array__(self):
        st = tape_set.current()
        if st.tapes or st.accumulators:
            if _from_jax_operator():
                _refuse_untracked_use(self._id, "tj.Tensor")
            _warn_raw_jax_use(self, self._id, None, explicit_ok=True)
        return self._value

    # jax builds its ConcretizationTypeError from the value it was given (``scan``'s ``length`` a traced Tensor),
    # asking a tracer's descriptions: the traced value's
    def _error_repr(self) -> str:
        v = self._value
        return v._error_repr() if isinstance(v, jax.core.Tracer) else repr(self)

    def _origin_msg(self) -> str:
        v = self._value
        return v._origin_msg() if isinstance(v, jax.core.Tracer) else ""

    def ref(self) -> "_Ref":
        """A hashable reference to this tensor (Tensors themselves are unhashable, as in TF)."""
        return _Ref(self)

    def __hash__(self):
        raise TypeError("tj.Tensor is unhashable (== is elementwise). Use tensor.ref() as the key instead.")

    def __repr__(self) -> str:
        v = self._value
        if isinstance(v, jax.core.Tracer):
            return f"<tj.Tensor shape={self.shape} dtype={self.dtype} (traced)>"
        if jax.dtypes.issubdtype(v.dtype, jax.dtypes.prng_key):  # a key has no NumPy value: show its key data
            return f"<tj.Tensor shape={self.shape} dtype={self.dtype} key_data={np.asarray(jax.random.key_data(v))!s}>"
        # str(), not format(): a 0-d array formats as a Python float (0.10000000149011612 for a float32 0.1); NumPy's
        # summarisation elides big arrays, as TF's; a value of several lines starts on a line of its own (TF's rule)
        return f"<tj.Tensor shape={self.shape} dtype={self.dtype} numpy={_value_text(str(np.asarray(v)))}>"

    __str__ = __repr__

    def __bool__(self) -> bool:
        if self.size != 1:
            if self.size == 0:  # as TF's EagerTensor (``x.size > 0 and x``); NumPy and JAX raise instead
                return False
            raise ValueError(f"The truth value of a tj.Tensor of shape {self.shape} is ambiguous; "
                             "use tj.numpy.any(...) or tj.numpy.all(...), or compare a size-1 tensor.")
        _require_concrete(self, "bool()", TracerBoolConversionError if self.dtype == np.bool_ else
                          TracerNonBoolConditionError)
        return bool(np.asarray(self._value).reshape(()))

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("Scalar tensor has no `len()` (a 0-d tj.Tensor), as TF")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("Cannot iterate over a scalar tensor (a 0-d tj.Tensor), as TF")
        return (self[i] for i in range(self.shape[0]))

    def __reversed__(self):
        """``reversed(t)``, as jax.Array's (jax 0.12 defines it; before, Python's sequence fallback gave the same):
        the entries along the first axis, last first, each a recorded ``t[i]`` as ``iter(t)`` gives them; a 0-d
        tensor raises TypeError."""
        if not self.shape:
            raise TypeError("Cannot iterate over a scalar tensor (a 0-d tj.Tensor), as TF")
        return (self[i] for i in range(self.shape[0] - 1, -1, -1))

    # int(), float(), complex(): of the NumPy value, as TF's EagerTensor (a NumPy scalar for a 0-d tensor, so a
    # complex one gives its real part with NumPy's ComplexWarning, as TF; any other shape raises NumPy's TypeError)
    def __float__(self) -> float:
        return float(self._python_scalar("float()"))

    def __int__(self) -> int:
        return int(self._python_scalar("int()"))

    def __complex__(self) -> complex:
        # (without it Python falls back to __float__, which drops a complex value's imaginary part with an error)
        return complex(self._python_scalar("complex()"))

    def __index__(self) -> int:
        if not jnp.issubdtype(self.dtype, jnp.integer):
            raise TypeError(f"only integer tj.Tensors can be used as an index, got {self.dtype}")
        # (a non-scalar: NumPy's TypeError, as TF)
        return operator.index(self._python_scalar("__index__", TracerIntegerConversionError))

    def _python_scalar(self, what: str, error: Optional[type] = None):
        _require_concrete(self, what, error)
        a = np.asarray(self._value)
        return a[()] if a.ndim == 0 else a


def _from_jax_operator() -> bool:
    """True when a jax.Array operator (``jax_array * tensor``) is converting us: JAX calls ``__jax_array__``
    from its ``_operator_*`` methods. An explicit ``jnp.asarray(t)`` asks for the raw array and is allowed."""
    return sys._getframe(2).f_code.co_name.startswith("_operator_")


def _refuse_untracked_use(tensor_id: int, kind: str, variable=None) -> None:
    """JAX converts objects with ``__jax_array__`` itself (``jax_array * tensor``, ``jnp.asarray``): the
    result would silently lose its gradient. Refuse while a tape or accumulator follows this value."""
    if not _followed(tensor_id, variable):
        return
    raise TypeError(
        f"A {kind} recorded by an active GradientTape/ForwardAccumulator was converted to a raw jax array "
        "by a jax operator (e.g. `jax_array * tensor`), which would silently drop its gradient. Use tj.numpy "
        "ops or operators with the tj value (`tensor * jax_array`, tj.numpy.multiply(jax_array, tensor)), or "
        "take `.value` explicitly if no gradient is wanted.")


def _followed(tensor_id: int, variable=None) -> bool:
    """True when a recording tape (other than a tj.function trace's graph) or accumulator follows this value:
    its gradient or tangent would be lost if JAX computed with the raw array."""
    for t in tape_set.recording_tapes():
        if getattr(t, "records_everything", False):
            continue  # a tj.function trace's graph: not a user tape whose gradient would be lost
        if t.knows(tensor_id) or (
                variable is not None and t.watch_accessed_variables and variable.trainable):
            return True
    return any(tensor_id in a.tangents for a in tape_set.recording_accumulators())


# Modules JAX goes through between the user's call and our hooks (by top-level module name).
_PASS_THROUGH = frozenset({"jax", "jaxlib", "functools", "contextlib", "numpy"})
# JAX functions that are explicit conversions: asking for the raw value is the point (API.md: jnp.asarray(t)).
_EXPLICIT = frozenset({"asarray", "array"})


def _user_frame(explicit_ok: bool):
    """The frame of the code that handed a tj value to JAX, or None when that is tapejax itself (its own
    use of jax.tree_util / jnp on raw values) or an explicit conversion (jnp.asarray)."""
    f = sys._getframe(3)  # 0: here, 1: _warn_raw_jax_use, 2: the hook JAX called, 3: JAX or the user
    entry = None
    while f is not None:
        root = f.f_globals.get("__name__", "").partition(".")[0]
        if root in _PASS_THROUGH:
            entry = f.f_code.co_name
            f = f.f_back
            continue
        if root == "tapejax":
            return None
        if explicit_ok and entry in _EXPLICIT:
            return None
        return f
    return None


def _warn_raw_jax_use(obj, tensor_id: int, variable, explicit_ok: bool = False) -> None:
    """A plain JAX call (``jnp.sin(x)``, ``jax.jit(f)(x)``) on a value a tape follows computes on the raw
    array and returns a jax.Array: the gradient through it is silently None. Warn (once per call site:
    the warnings registry of the caller's module), and leave a note for tj.debug.explain_gradient.

    Inside a tj.function trace the trace's graph (a tape that ``records_everything``) is no user tape, but
    tj.gradients and the call's own derivative read it: each such graph is told of the use of a float value
    (``note_raw_use``), so that they can see the path it hides (graph/capture.py)."""
    graphs = [t for t in tape_set.recording_tapes() if getattr(t, "records_everything", False)] \
        if is_float(obj.dtype) else ()
    followed = _followed(tensor_id, variable)
    if not followed and not graphs:
        return
    frame = _user_frame(explicit_ok)
    if frame is None:
        return
    import linecache
    filename, lineno = frame.f_code.co_filename, frame.f_lineno
    line = linecache.getline(filename, lineno).strip()
    site = f"{filename}:{lineno}" + (f" ({line})" if line else "")
    for g in graphs:
        g.note_raw_use(tensor_id, site, (filename, lineno, frame.f_globals.get("__name__", "<unknown>")))
    if not followed:
        return
    tape_set.debug_hooks.note_raw_jax_use(tensor_id, site)
    what = f"tj.Variable '{variable.name}'" if variable is not None else "tj.Tensor"
    warnings.warn_explicit(
        f"A {what} of shape {obj.shape} and dtype {obj.dtype} followed by an active GradientTape/ForwardAccumulator "
        f"was passed to a plain JAX function at {site}. JAX computes with its raw value and returns a jax.Array "
        "the tape cannot see, so the gradient through this call is silently dropped (None). Use the tj.numpy "
        "equivalent (e.g. tj.numpy.sin instead of jax.numpy.sin), or wrap the JAX function with tj.op(fn) so it is "
        "recorded; take `.value` explicitly if no gradient is wanted.",
        UserWarning, filename, lineno, module=frame.f_globals.get("__name__", "<unknown>"),
        registry=frame.f_globals.setdefault("__warningregistry__", {}))


def _tree_flatten_tensor(t):
    st = tape_set.current()
    if st.tapes or st.accumulators:
        _warn_raw_jax_use(t, t._id, None)
    return (t._value,), None


# JAX pytree flattening of a Tensor (also registered for LazyTensor): its value, with a warning when user code
# hands a tensor a tape follows to a JAX function (jnp.sin, jax.jit), which would drop its gradient.
pytree_flatten = _tree_flatten_tensor


# Leaves a Tensor's node gives back as they are (pytree_unflatten).
_UNWRAPPED_LEAVES = (Tensor, list, tuple, dict, type(None), str, bytes, int, float, complex, np.dtype)


def pytree_unflatten(_, children):
    """A Tensor (also a LazyTensor's or Variable's node) rebuilt around its one leaf. A leaf that is itself a
    Tensor or a list, tuple or dict is returned as it is: JAX's Jacobians put the input's tree where each output
    leaf was, so the Jacobian of a Tensor-to-Tensor function is a Tensor (not a Tensor of a Tensor) and that of
    a function of a dict of Tensors returning a Tensor is a dict of Tensors, as jax.numpy's of arrays. So is a
    Python value no Tensor can hold (None, a number, a string, a dtype): ``jax.tree_util.tree_map(lambda x:
    x.dtype, params)`` gives dtypes, as it does on jax arrays. Anything else (an array, a tracer, the stand-ins
    JAX's own transforms put in a tree) is wrapped."""
    leaf = children[0]
    return leaf if isinstance(leaf, _UNWRAPPED_LEAVES) else Tensor.of_leaf(leaf)


def _numpy_function(func, args, kwargs):
    """``np.mean(t)``, ``np.sum(v, axis=0)``...: NumPy computes on the values and returns NumPy results, as TF.
    Without this NumPy would call the Tensor's own recorded ``.mean``/``.sum`` methods with ``out=``."""
    if func in (np.shape, np.ndim) and isinstance(args[0], (Tensor, Variable)) and not kwargs:
        return args[0].shape if func is np.shape else args[0].ndim  # traced tensors have them too
    return func(*_to_numpy(args), **_to_numpy(kwargs))


def _to_numpy(x):
    if isinstance(x, Tensor):
        return x.__array__()
    if isinstance(x, Variable):
        return x.__array__()  # a read, as ``np.asarray(v)`` and TF's (a tape watching accessed variables watches it)
    if isinstance(x, (list, tuple)):
        return type(x)(_to_numpy(v) for v in x) if type(x) in (list, tuple) else x
    if isinstance(x, dict):
        return {k: _to_numpy(v) for k, v in x.items()}
    return x


def _value_text(text: str) -> str:
    """A value's text in a repr: one of several lines starts on a line of its own (as TF's ``numpy_text``), so
    that its rows line up."""
    return "\n" + text if "\n" in text else text


def _format_value(a: np.ndarray, spec: str, kind: str) -> str:
    if not spec:
        return format(a[()] if a.ndim == 0 else a, "")  # NumPy's text of the value: "1.5", "[1. 2.]"
    if a.ndim != 0:
        raise TypeError(f"format spec {spec!r} applies to a scalar {kind}, but this one has shape {a.shape}; "
                        f"index one element first (f'{{t[0]:{spec}}}'), or format the array with "
                        "np.array2string(t.numpy(), ...).")
    return format(a[()], spec)


def _html(kind: str, name: Optional[str], value) -> str:
    """Jupyter's rich display: shape, dtype, device or sharding, and the values (NumPy's summarisation for
    big arrays), escaped."""
    import html
    esc = html.escape
    traced = isinstance(value, jax.core.Tracer)
    head = f"<b>{esc(kind)}</b>" + (f" <code>{esc(repr(name))}</code>" if name is not None else "")
    rows = [("shape", str(tuple(value.shape))), ("dtype", str(value.dtype))]
    if not traced:
        sharding = getattr(value, "sharding", None)
        devices = sorted(sharding.device_set, key=lambda d: d.id) if sharding is not None else []
        if len(devices) == 1:
            rows.append(("device", str(devices[0])))
        elif sharding is not None:
            rows.append(("sharding", str(sharding)))
    body = "".join(f"<tr><th style='text-align:left'>{esc(k)}</th><td><code>{esc(v)}</code></td></tr>"
                   for k, v in rows)
    values = "(traced: no value until the program runs)" if traced else np.array2string(np.asarray(value))
    return (f"<div class='tapejax-{esc(kind.split('.')[-1].lower())}'>{head}<table>{body}</table>"
            f"<pre>{esc(values)}</pre></div>")


class _Ref:
    __slots__ = ("_obj", "__weakref__")  # (a ref may key a weakref.WeakKeyDictionary, as TF's)

    def __init__(self, obj):
        self._obj = obj

    def deref(self):
        return self._obj

    def __hash__(self):
        return id(self._obj)

    def __eq__(self, other):
        return isinstance(other, _Ref) and other._obj is self._obj


class TracedValueError(TypeError):
    """A traced value where a concrete one is needed (``bool(t)``, ``t.numpy()``...), or a Variable assigned a
    traced value that would outlive its JAX transform. A TypeError, as JAX's tracer errors; its own class so
    that code running user functions under ``jax.vmap`` (a vectorized Jacobian) can tell such a failure from
    others. ``value``: the Tensor or Variable whose value was asked for, where one was."""

    value = None


def _as_jax_error(jax_class: type) -> type:
    """A TracedValueError that is also ``jax_class``, jax's error for the same use of a traced jax.Array (``bool``:
    TracerBoolConversionError...), so that code catching either catches it. Its message is tapejax's, followed by
    jax's page on the class (named as jax's for that link)."""
    def __init__(self, message: str) -> None:
        jax.errors.JAXTypeError.__init__(self, message)
    return type(jax_class.__name__, (TracedValueError, jax_class),
                {"__init__": __init__, "__module__": __name__,
                 "__doc__": f"jax's ``{jax_class.__name__}`` that is also tapejax's ``TracedValueError``."})


# A traced Tensor or Variable converted to a host value raises the class jax raises for a traced jax.Array
ConcretizationTypeError = _as_jax_error(jax.errors.ConcretizationTypeError)  # float(), int(), item(), tolist()
TracerBoolConversionError = _as_jax_error(jax.errors.TracerBoolConversionError)  # bool(), if t:
# (a traced number as a condition is also a ValueError, as TF's "condition of if statement expected to be
# `tf.bool` scalar" in a tf.function; a traced bool is jax's error only: TF's autograph would make it a tf.cond)
TracerNonBoolConditionError = type("TracerBoolConversionError", (TracerBoolConversionError, ValueError),
                                   {"__module__": __name__})
TracerIntegerConversionError = _as_jax_error(jax.errors.TracerIntegerConversionError)  # an index, range(t)
TracerArrayConversionError = _as_jax_error(jax.errors.TracerArrayConversionError)  # np.asarray(t), t.numpy()


def traced_argument_error(where: str, param: str, value) -> TracedValueError:
    """The error for a Tensor or Variable whose value is traced, given as argument ``param`` of ``where`` where a
    Python number is needed (a shape, an axis, a count: what fixes the program JAX compiles)."""
    kind = "tj.Variable" if isinstance(value, Variable) else "Tensor"
    e = TracedValueError(
        f"{where}: argument `{param}` is a {kind} where a Python number is expected (a static argument: it fixes "
        "the result's shape or the compiled program), and its value is not known here: it is traced, inside "
        "tj.function or a jax transform (a tj.Variable's value always is there: it may change between calls). "
        "Pass a Python number, or a Tensor computed outside the traced function.")
    e.value = value
    return e


def _require_concrete(t: Tensor, what: str, error: Optional[type] = None) -> None:
    """Raise ``error`` (default: ConcretizationTypeError) where ``t``'s value is traced."""
    if isinstance(t._value, jax.core.Tracer):
        e = (error or ConcretizationTypeError)(
            f"tj.Tensor.{what} needs a concrete value, but this tensor is being traced (inside tj.function "
            "or a jax transform). Return the tensor from the function and convert it outside, or use "
            "tj.numpy ops (e.g. tj.numpy.where instead of Python if).")
        e.value = t  # the tensor asked (tj.numpy ops name the argument that held it: ops/api.py)
        try:
            raise e
        finally:
            e = None  # (the traceback keeps this frame: its locals must not keep the error, a reference cycle)


jax.tree_util.register_pytree_node(Tensor, _tree_flatten_tensor, pytree_unflatten)


def pending_tensor(node, index: int) -> Tensor:
    """A Tensor whose value, ``node.values[index]``, is computed (``node.compute()``) when first read.
    Unlike a LazyTensor it is a plain Tensor to JAX's pytrees and to type checks: what deferred/pending.py
    gives as the gradients of a replayed step that has not run yet."""
    t = Tensor.__new__(Tensor)
    t._id = next_id()
    t._trackers = None
    t._pending = (node, index)
    return t


def pending_source(t) -> Optional[tuple]:
    """``(node, index)`` of a tensor made by ``pending_tensor`` whose node has not run yet; else None."""
    if type(t) is not Tensor:
        return None
    source = t._pending
    if source is None or source[0].values is not None:
        return None
    return source


def is_weakly_typed(t) -> bool:
    """Whether ``t`` is a Tensor holding a weakly typed value (jax's ``weak_type``: it promotes as a Python number
    does), known without running a pending op (a pending gradient counts as strongly typed, as gradients are)."""
    if type(t) is LazyTensor:
        c = t._concrete
        return bool((c if c is not None else t._aval).weak_type)
    if not isinstance(t, Tensor) or pending_source(t) is not None:
        return False
    return bool(getattr(t._value, "weak_type", False))


class LazyTensor(Tensor):
    """A Tensor whose value is produced on first read: the output of an op that deferred execution
    (deferred/lazy.py) recorded without running. Shape and dtype are known at once (``aval``); reading
    the value asks the pending op (``node``, any object with ``values`` and ``compute()``) to run."""

    __slots__ = ("_node", "_index", "_aval", "_concrete")

    def __init__(self, node, index: int, aval) -> None:
        self._id = next_id()
        self._trackers = None
        self._node = node
        self._index = index
        self._aval = aval
        self._concrete = None

    @classmethod
    def of_node(cls, tensor_id: int, node, index: int, aval) -> "LazyTensor":
        """A LazyTensor with the id of one made earlier (perhaps dead since) for output ``index`` of
        ``node``: how a deferred op's argument is shown once only its producer is kept. Its death tells
        nobody."""
        t = cls.__new__(cls)
        t._id = tensor_id
        t._trackers = None
        t._node = node
        t._index = index
        t._aval = aval
        t._concrete = None
        return t

    @property
    def _value(self):
        c = self._concrete
        if c is None:
            node = self._node
            if node.values is None:
                node.compute()
            v = node.values  # (a single-output node holds its array, not a tuple)
            c = self._concrete = v[self._index] if type(v) is tuple else v
            self._node = None
        return c

    def _pending_node(self):
        """The node still to run for this tensor's value, or None once it is known."""
        node = self._node
        if node is None or node.values is not None:
            return None
        return node

    @property
    def shape(self) -> TensorShape:
        """The static shape, a ``tj.TensorShape`` (a tuple of ints, with TF's methods)."""
        return tuple.__new__(TensorShape, self._aval.shape)

    @property
    def dtype(self):
        """The element type (a NumPy dtype, as ``jax.Array.dtype``)."""
        return self._aval.dtype

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return self._aval.ndim

    @property
    def size(self) -> int:
        """The number of elements."""
        return int(self._aval.size)


# A pytree like Tensor (flattening reads the value).
jax.tree_util.register_pytree_node(LazyTensor, pytree_flatten, pytree_unflatten)


def strongly_typed(value, dtype):
    """``value``, if weakly typed, as a strongly typed array of ``dtype``: a Variable's dtype is fixed, it never
    promotes as a Python number would (a weakly typed jnp.asarray(300) plus an int8 would be int8)."""
    if getattr(value, "weak_type", False):
        return jax.lax.convert_element_type(value, dtype)
    return value


class Variable(ArrayShape):
    """Mutable state. Reads inside an active tape are recorded against the variable's handle id, so a
    gradient with respect to the variable sums over all its reads; each read sees the value current then.

    Its value may be pending (``make_value_pending``: an assignment of a pending tensor, fused into a
    replayed step by deferred/pending.py): ``_value`` is then unset, and its first read (every read goes
    through ``_value``) asks the pending node to compute and store it (``settle_pending_value``)."""

    __array_priority__ = 100

    def __init__(self, initial_value: Any = None, trainable: bool = True, name: Optional[str] = None,
                 dtype: Any = None, *, constraint: Optional[Callable[[Any], Any]] = None) -> None:
        if initial_value is None:  # (TF's ValueError, also for a missing argument)
            raise ValueError("The `initial_value` arg to `tj.Variable` must be specified (a value, or a callable "
                             "returning one); got None.")
        if name is not None and not isinstance(name, str):
            raise ValueError(f"tj.Variable: name must be a string, got {type(name).__name__} {name!r} (as TF).")
        _check_constraint(constraint)
        cap = tape_set.current().capture
        # A traced value cannot outlive its trace: the trace in progress decides whether the Variable may be
        # made and gives the scope its initial value is computed in (graph/capture.py).
        with cap.new_variable(name, initial_value) if cap is not None else contextlib.nullcontext():
            if callable(initial_value):
                initial_value = initial_value()
            value = convert_to_tensor(initial_value, dtype=dtype).value
        self._value = strongly_typed(value, value.dtype)
        self._handle_id = next_id()
        self._trainable = True if trainable is None else bool(trainable)  # (None: the default, as TF)
        self._name = _variable_name(name)
        self._constraint = constraint
        if cap is not None:
            # (a traced initial value, made by the trace, is computed by the tj.function once traced)
            self._value = cap.made(self, self._value)

    # -- reads ------------------------------------------------------------------------------------
    def read_value(self) -> Tensor:
        """The current value as a Tensor; recorded on active tapes/accumulators as a read of this variable."""
        t = Tensor(self._current())
        st = tape_set.current()
        if st.variable_watchers:
            self._seen_by(st.variable_watchers)
        if (st.tapes or st.accumulators) and not st.stopped:  # (tape_set.active(), inlined: every read asks)
            tape_set.record_hooks.variable_read(self, t)
        return t

    def _seen_by(self, watchers: list) -> None:
        """Note this Variable in each open ``tape_set.watch_variable_reads()`` dict (a custom_gradient's f
        reading it, or assigning it with the variable returned: TF's lazy read, passes it to grad_fn)."""
        for w in watchers:
            w.setdefault(id(self), self)

    def value(self) -> Tensor:
        """``read_value()`` (TF's other name for it): the current value as a Tensor, a recorded read."""
        return self.read_value()

    def numpy(self):
        """As ``Tensor.numpy()``: an ndarray, or a NumPy scalar for a scalar variable."""
        return self.read_value().numpy()

    def __array__(self, dtype=None, copy=None):
        return self.read_value().__array__(dtype, copy)

    def __buffer__(self, flags: int) -> memoryview:
        return self.read_value().__buffer__(flags)

    def __bytes__(self) -> bytes:
        return self.read_value().__bytes__()

    def __release_buffer__(self, buffer: memoryview) -> None:
        buffer.release()

    def __array_function__(self, func, types, args, kwargs):
        return _numpy_function(func, args, kwargs)

    def __format__(self, spec: str) -> str:
        if not spec:
            return str(self)
        return format(Tensor(self._current()), spec)  # formatting is not a read a tape should record

    def _repr_html_(self) -> str:
        return _html("tj.Variable", self._name, self._current())

    def __jax_array__(self):
        st = tape_set.current()
        if st.tapes or st.accumulators:
            if _from_jax_operator():
                _refuse_untracked_use(self._handle_id, "tj.Variable", variable=self)
            _warn_raw_jax_use(self, self._handle_id, self, explicit_ok=True)
        return self._current()

    # -- writes -----------------------------------------------------------------------------------
    def _checked(self, value: Any, op: str):
        new = self._as_array(value, f"Variable.{op}")
        current = self._array()
        if new.dtype != current.dtype or tuple(new.shape) != tuple(current.shape):
            check_assignment(self, new.shape, new.dtype, op)
        new = strongly_typed(new, self.dtype)
        if type(new) is ArrayImpl and type(current) is ArrayImpl and new.sharding != current.sharding:
            # A Variable stays where it is (TF: on its device): a value on another device, or unsharded, is moved to
            # the Variable's placement; kept as it came, it moved the Variable, and a later op mixing it with arrays
            # of the old placement failed with "incompatible devices"
            new = jax.device_put(new, current.sharding)
        return new

    def _current(self):
        """The value now: inside a tj.function trace, the traced value (which sees earlier assignments)."""
        if tape_set.captures_open:  # (no trace capturing anywhere, the common case: no thread-local read)
            cap = tape_set.current().capture
            if cap is not None:
                return cap.read(self)
        return self._value

    def _set(self, value) -> None:
        cap = tape_set.current().capture
        if cap is not None:
            cap.write(self, value)  # written back when the tj.function call returns
        elif isinstance(value, jax.core.Tracer):
            # Inside jax.jit/jax.grad/jax.vmap (not tj.function) the value only exists while JAX traces: stored,
            # it would leak, and every later read of the variable fail deep inside JAX.
            raise TracedValueError(
                f"tj.Variable '{self._name}' was assigned inside a JAX transform (jax.jit, jax.grad, jax.vmap...), "
                "where the new value is traced and cannot outlive the trace. Use tj.function, which captures "
                "Variables and writes their final values back, or assign outside the transform (return the new value "
                "from it). The variable is unchanged.")
        else:
            self.write_back(value)

    def write_back(self, value) -> None:
        """Store the value a compiled program computed for this Variable (tj.function's assignments,
        already checked when they were traced): no conversion, no recording."""
        d = self.__dict__
        d["_value"] = value
        if "_pending_value" in d:  # a pending assignment before this one no longer applies
            del d["_pending_value"]

    # The assignments return the variable (as TF's eager ``v.assign(x)``, so they chain), or None with
    # ``read_value=False`` (as TF eager). TF's signature: ``use_locking`` and ``name`` are accepted and ignored
    # (one thread's assignment is never torn; an eager assignment has no graph node to name).
    def assign(self, value: Any, use_locking: Any = None, name: Optional[str] = None,
               read_value: bool = True) -> Optional["Variable"]:
        """Set the value: of the variable's shape exactly, and its dtype (Python values and NumPy arrays are
        converted; a Tensor or jax array of another dtype is refused), else ValueError and the variable
        unchanged. Returns the variable (None with ``read_value=False``), as TF."""
        if not self._made_pending(value, "assign", None):
            self._set(self._checked(value, "assign"))
        return self._returned(read_value)

    def assign_add(self, delta: Any, use_locking: Any = None, name: Optional[str] = None,
                   read_value: bool = True) -> Optional["Variable"]:
        """``assign(value + delta)``, with ``assign``'s checks."""
        self._check_arithmetic(delta, "assign_add")
        if not self._made_pending(delta, "assign_add", _add_kernel):
            d = self._checked(delta, "assign_add")
            self._set(_add_kernel(self._current(), d))
        return self._returned(read_value)

    def assign_sub(self, delta: Any, use_locking: Any = None, name: Optional[str] = None,
                   read_value: bool = True) -> Optional["Variable"]:
        """``assign(value - delta)``, with ``assign``'s checks."""
        self._check_arithmetic(delta, "assign_sub")
        if not self._made_pending(delta, "assign_sub", _sub_kernel):
            d = self._checked(delta, "assign_sub")
            self._set(_sub_kernel(self._current(), d))
        return self._returned(read_value)

    def _check_arithmetic(self, delta: Any, op: str) -> None:
        """A bool variable cannot be added to or subtracted from: TypeError, as TF (no kernel for bool; JAX's
        add would be a logical or), after ``assign``'s checks of ``delta`` (TF's ValueError comes first)."""
        if self.dtype == jnp.bool_:
            self._checked(delta, op)
            raise TypeError(f"Variable.{op}: variable '{self._name}' is bool, which has no addition or subtraction "
                            f"(as TF). Use assign() with tj.numpy.logical_or / logical_xor instead. The variable is "
                            f"unchanged.")

    def _made_pending(self, value: Any, op: str, kernel: Optional[Callable]) -> bool:
        """Whether ``self.<op>(value)`` was made without computing its value, which stays pending: ``value``
        a deferred op's output (``_lazy_assignment``) or a replayed step's pending gradient
        (``_assign_deferral``); ``kernel`` computes the new value from the old one and ``value`` (None for
        ``assign``)."""
        t = type(value)
        if t is LazyTensor:
            return _lazy_assignment is not None and _lazy_assignment(self, value, kernel)
        return t is Tensor and _assign_deferral is not None and _assign_deferral(self, value, op, kernel)

    def _returned(self, read_value: bool) -> Optional["Variable"]:
        """What an assignment returns. Returning the variable accesses it, as TF's ``_lazy_read`` calls
        ``variable_accessed``: tapes that watch accessed variables watch it (nothing is recorded: no value
        was read)."""
        if not read_value:
            return None
        st = tape_set.current()
        if st.variable_watchers:
            self._seen_by(st.variable_watchers)
        if st.tapes and not st.stopped:
            tape_set.record_hooks.variable_accessed(self)
        return self

    # -- TF's scatter updates: entries named by index tuples (the last axis of ``indices``) ---------------
    def scatter_nd_update(self, indices: Any, updates: Any, name: Optional[str] = None) -> "Variable":
        """As TF's: the entries (or slices) at ``indices`` (integers, shape ``[..., k]``) set to ``updates``
        (shape ``indices.shape[:-1] + variable.shape[k:]``); returns the variable. Not differentiable, as TF."""
        return self._scatter_nd("scatter_nd_update", indices, updates, lambda at, u: at.set(u))

    def scatter_nd_add(self, indices: Any, updates: Any, name: Optional[str] = None) -> "Variable":
        """As TF's: ``updates`` added at ``indices`` (a repeated index adds each of its updates)."""
        return self._scatter_nd("scatter_nd_add", indices, updates, lambda at, u: at.add(u))

    def scatter_nd_sub(self, indices: Any, updates: Any, name: Optional[str] = None) -> "Variable":
        """As TF's: ``updates`` subtracted at ``indices``."""
        return self._scatter_nd("scatter_nd_sub", indices, updates, lambda at, u: at.add(-u))

    def scatter_nd_max(self, indices: Any, updates: Any, name: Optional[str] = None) -> "Variable":
        """As TF's: the entries at ``indices`` become their maximum with ``updates``."""
        return self._scatter_nd("scatter_nd_max", indices, updates, lambda at, u: at.max(u))

    def scatter_nd_min(self, indices: Any, updates: Any, name: Optional[str] = None) -> "Variable":
        """As TF's: the entries at ``indices`` become their minimum with ``updates``."""
        return self._scatter_nd("scatter_nd_min", indices, updates, lambda at, u: at.min(u))

    def _scatter_nd(self, op: str, indices: Any, updates: Any, apply: Callable) -> "Variable":
        what = f"Variable.{op}"
        idx = _index_array(indices, what)
        shape = self.shape
        if idx.ndim < 1 or idx.shape[-1] > len(shape):
            raise ValueError(f"{what}: indices of shape {tuple(idx.shape)} must have at least one axis, the last of "
                             f"length at most the variable's rank {len(shape)} (variable '{self._name}' of shape "
                             f"{shape}). The variable is unchanged.")
        k = idx.shape[-1]
        # (TF: "Indices and updates specified for empty output"; a variable of no elements takes them, as TF's)
        if k == 0 and np.prod(shape, dtype=np.int64):
            raise ValueError(f"{what}: indices of shape {tuple(idx.shape)} name no entry of variable '{self._name}' "
                             f"of shape {shape} (TF: indices and updates specified for empty output). The variable "
                             "is unchanged.")
        _check_in_bounds(idx, shape[:k], what, self._name)
        want = tuple(idx.shape[:-1]) + shape[k:]
        new = self._update_value(updates, what)
        if tuple(new.shape) != want:
            raise ValueError(f"{what}: updates of shape {tuple(new.shape)} do not match indices of shape "
                             f"{tuple(idx.shape)} into variable '{self._name}' of shape {shape}: updates must have "
                             f"shape indices.shape[:-1] + variable.shape[{k}:] = {want}. The variable is unchanged.")
        current = self._current()
        self._set(apply(current.at[tuple(jnp.moveaxis(idx, -1, 0))], new))
        return self._returned(True)

    def assign_entries(self, positions, value: Any, what: str) -> "Variable":
        """``value``, broadcast to the shape of ``positions`` (flat positions of entries of the variable,
        distinct) and converted as ``assign`` converts, written at those entries: TF's ``v[index].assign(value)``
        (ops/_operators.py finds the positions ``v[index]`` reads). Returns the variable."""
        new = self._update_value(value, what)
        want = tuple(positions.shape)
        extra = new.ndim - len(want)
        if extra > 0 and all(d == 1 for d in new.shape[:extra]):  # (as TF and NumPy: leading size-1 axes dropped)
            new = new.reshape(new.shape[extra:])
        if not broadcasts_to(new.shape, want):
            raise ValueError(f"{what}: a value of shape {tuple(new.shape)} does not broadcast to the slice's shape "
                             f"{want} (variable '{self._name}' of shape {self.shape}). The variable is unchanged.")
        current = self._current()
        flat = current.reshape(-1).at[positions.reshape(-1)].set(jnp.broadcast_to(new, want).reshape(-1))
        self._set(flat.reshape(current.shape))
        return self._returned(True)

    def _as_array(self, value: Any, what: str):
        """``value`` as an array: a Tensor's or Variable's value, an array as it is (it has a dtype of its own,
        checked by the caller), Python and NumPy values converted to the variable's dtype without loss."""
        if isinstance(value, (Tensor, Variable)):
            return (value.read_value() if isinstance(value, Variable) else value).value
        if isinstance(value, (jax.Array, jax.core.Tracer)):
            return value
        _check_lossless(value, self.dtype, what, self._name)
        return convert_to_tensor(value, dtype=self.dtype).value

    def _update_value(self, value: Any, what: str):
        """``value`` as an array of the variable's dtype, as ``assign`` converts it (``_as_array``; a Tensor or
        array of another dtype refused), any shape."""
        new = self._as_array(value, what)
        if new.dtype != self.dtype:
            raise ValueError(f"{what}: value of dtype {new.dtype} does not match the variable '{self._name}' of dtype "
                             f"{self.dtype}; cast with .astype({self.dtype}) first. The variable is unchanged.")
        return new

    def _in_place_operator(self, other):
        """``v += x`` would rebind ``v`` to a new Tensor and leave the Variable unchanged (a Module attribute
        would silently stop being a Variable): refused, as TF."""
        raise RuntimeError("`variable += value` (or -=, *=, ...) with tj.Variables is not supported. Use "
                           "`variable.assign_add(value)` / `variable.assign(...)` to modify the variable, or "
                           "`out = variable + value` if you need a new Tensor.")

    __iadd__ = __isub__ = __imul__ = __itruediv__ = __ifloordiv__ = __imod__ = __ipow__ = __imatmul__ = \
        __iand__ = __ior__ = __ixor__ = _in_place_operator

    # -- properties -----------------------------------------------------------------------------
    def _array(self):
        """The value, or the shape and dtype of a pending value (which knowing them does not run)."""
        d = self.__dict__
        v = d.get("_value")
        if v is None:
            pending = d.get("_pending_value")
            return pending[3] if pending is not None else self._value
        return v

    @property
    def shape(self) -> TensorShape:
        """The static shape, a ``tj.TensorShape`` (a tuple of ints, with TF's methods)."""
        return tuple.__new__(TensorShape, self._array().shape)

    @property
    def dtype(self):
        """The element type (a NumPy dtype, as ``jax.Array.dtype``)."""
        return self._array().dtype

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self._array().shape)

    @property
    def size(self) -> int:
        """The number of elements."""
        return int(np.prod(self._array().shape, dtype=np.int64))

    @property
    def trainable(self) -> bool:
        """Whether tapes watch this variable when it is read (``watch_accessed_variables``) and Modules list it
        in ``trainable_variables``."""
        return self._trainable

    @property
    def constraint(self) -> Optional[Callable[[Any], Any]]:
        """The projection tj.optimizers apply after each update of this variable (``v.assign(constraint(v))``,
        as Keras), or None. Settable, as a Keras variable's."""
        return self._constraint

    @constraint.setter
    def constraint(self, fn: Optional[Callable[[Any], Any]]) -> None:
        _check_constraint(fn)
        self._constraint = fn

    @property
    def name(self) -> str:
        """The name given (with the name scope's prefix and TF's ``:0``)."""
        return self._name

    @property
    def device(self):
        """The device holding the value."""
        return Tensor(self._value).device

    @property
    def id(self) -> int:
        """The variable's handle id: what tapes record its reads against."""
        return self._handle_id

    def ref(self) -> _Ref:
        """A hashable reference to this variable (as TF's ``Variable.ref()``), for sets and dict keys."""
        return _Ref(self)

    def is_initialized(self) -> Tensor:
        """A scalar bool Tensor, True (as TF eagerly: a Variable has its value from creation on)."""
        return Tensor(jnp.asarray(True))

    def __getstate__(self):
        # (pickle, copy.deepcopy) a pending value is computed first: a copy never shares the pending step
        self._value  # noqa: B018
        return self.__dict__

    def __setstate__(self, state) -> None:
        # (pickle, copy.deepcopy) a copy is another variable, as TF's: a handle id of its own, or tapes would take
        # its reads for the original's and mix their gradients
        self.__dict__.update(state)
        self.__dict__.setdefault("_constraint", None)  # (pickled before variables had one)
        self._handle_id = next_id()

    def __copy__(self) -> "Variable":
        return self  # as TF's ``copy.copy(v)``: the same variable (a shallow copy would share its handle)

    def __hash__(self):
        # as TF 2 (where == is elementwise): a dict or set would compare values; the ref() is the key
        raise TypeError(f"Variable is unhashable. Instead, use variable.ref() as the key. (Variable: {self!r})")

    def __repr__(self) -> str:
        # TF's format: "<tf.Variable 'w:0' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>",
        # a scalar as a Python number ("numpy=1"); while a tj.function traces there is no value to show, as
        # TF's graph-mode repr; "numpy=<unavailable>" if the read fails
        head = f"<tj.Variable '{self._name}' shape={self.shape} dtype={self.dtype}"
        if tape_set.current().capture is not None:
            return head + ">"
        try:
            a = np.asarray(_unrecorded_read(self).value)
            text = repr(a.item()) if a.ndim == 0 else repr(a)
        except Exception:
            return head + ", numpy=<unavailable>>"
        return f"{head}, numpy={_value_text(text)}>"

    # The Python conversions act on a read, as a Tensor's. ``__index__`` too (TF's Variable has none): a 0-d int
    # Variable is accepted wherever a Python int is (an axis, a shape, a list index), as a scalar Tensor is.
    def __bool__(self) -> bool:
        return self._converted(bool)

    def __len__(self) -> int:
        return len(self.read_value())

    def __iter__(self):
        return iter(self.read_value())

    def __reversed__(self):
        """``reversed(v)``: a read's entries along the first axis, last first (``Tensor.__reversed__``)."""
        return reversed(self.read_value())

    def __float__(self) -> float:
        return self._converted(float)

    def __int__(self) -> int:
        return self._converted(int)

    def __complex__(self) -> complex:
        return self._converted(complex)

    def __index__(self) -> int:
        return self._converted(operator.index)

    def _converted(self, convert):
        try:
            return convert(self.read_value())
        except TracedValueError as e:
            e.value = self  # the value the caller passed (tj.numpy ops name the argument holding it)
            raise

    def __getattr__(self, name):
        # Tensor methods (reshape, sum, astype, T, ...) act on a recorded read.
        if name.startswith("_"):
            if name == "_value":  # unset: a pending value (no cost for the others, whose slot is set)
                pending = self.__dict__.get("_pending_value")
                if pending is not None:
                    pending[0].compute()  # stores this value (or, failing, the one before) and others
                    return self.__dict__["_value"]
            if name == "__cuda_array_interface__":  # (its property raised: the value's own AttributeError)
                return getattr(self._current(), name)
            raise AttributeError(name)
        if not hasattr(Tensor, name):  # (asked of the class: ``hasattr(v, "x")`` must not read, nor be watched)
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        return getattr(self.read_value(), name)


def _unrecorded_read(var: Variable) -> Tensor:
    """``var.read_value()`` that no tape, accumulator or custom_gradient sees (what showing a value reads)."""
    st = tape_set.current()
    watchers, st.variable_watchers = st.variable_watchers, []
    try:
        with tape_set.stop_recording():
            return var.read_value()
    finally:
        st.variable_watchers = watchers


def current_values(variables: Sequence[Variable]) -> list:
    """The Variables' values now (inside a tj.function trace, the traced ones), read without recording: what
    an optimizer's update reads (it is no differentiated computation, and a read costs a Tensor each)."""
    if tape_set.captures_open:  # (``Variable._current`` of each, the thread's state read once)
        cap = tape_set.current().capture
        if cap is not None:
            return [cap.read(v) for v in variables]
    return [v._value for v in variables]


def broadcasts_to(shape: Sequence[int], target: Sequence[int]) -> bool:
    """Whether an array of ``shape`` broadcasts to ``target`` exactly (the result is ``target``'s shape)."""
    target = tuple(target)
    try:
        return np.broadcast_shapes(tuple(shape), target) == target
    except ValueError:
        return False


def _index_array(indices: Any, what: str):
    """``indices`` (a Tensor, array or nested list of integers) as an integer array; TypeError otherwise."""
    if isinstance(indices, Variable):
        indices = indices.read_value()
    idx = indices.value if isinstance(indices, Tensor) else indices
    if not isinstance(idx, (jax.Array, jax.core.Tracer)):
        idx = np.asarray(idx)
    if not jnp.issubdtype(idx.dtype, jnp.integer):
        raise TypeError(f"{what}: indices must be integers; got dtype {idx.dtype}")
    return idx


def _check_in_bounds(idx, bounds: tuple, what: str, name: str) -> None:
    """IndexError for a known index tuple (last axis of ``idx``) outside ``bounds`` (negative ones too, as
    TF); a traced one is not known until the program runs."""
    if isinstance(idx, jax.core.Tracer) or not bounds:  # (no index columns: whole slices, nothing to check)
        return
    values = np.asarray(idx).reshape(-1, len(bounds))
    bad = (values < 0) | (values >= np.asarray(bounds, dtype=np.int64))
    if bad.any():
        row = values[np.nonzero(bad.any(axis=1))[0][0]]
        raise IndexError(f"{what}: index {row.tolist()} is out of bounds for variable '{name}' whose leading "
                         f"dimensions are {list(bounds)} (indices must be in [0, dimension)). The variable is unchanged.")


# TF's ``v[index].assign(value)``: the Tensor ``v[index]`` has an ``assign`` while it lives (Tensor.__getattr__).
# Tensor ids are never reused, so an entry can only be its own tensor's; a weak reference removes it.
_slice_assigners: dict = {}


def make_slice_assignable(t: Tensor, assign: Callable) -> None:
    """Give the Tensor ``t`` (a slice of a Variable) the method ``t.assign(value, name=None)`` = ``assign``."""
    tid = t._id
    _slice_assigners[tid] = (assign, weakref.ref(t, lambda _ref, tid=tid: _slice_assigners.pop(tid, None)))


def check_assignment(var: Variable, shape, dtype, op: str) -> None:
    """The ValueError ``var.<op>`` raises for a value of another shape or dtype than ``var``'s."""
    if tuple(shape) != var.shape:
        # (worded so that TF's own tests' patterns match: "shape.*and.*are incompatible", "shapes must be equal")
        raise ValueError(f"Variable.{op}: value of shape {tuple(shape)} does not match the variable "
                         f"'{var.name}' of shape {var.shape} (shapes must be equal: the value's shape and the "
                         "variable's are incompatible, a value never broadcasts to a variable); reshape the "
                         "value first. The variable is unchanged.")
    if dtype != var.dtype:
        raise ValueError(f"Variable.{op}: value of dtype {dtype} does not match the variable "
                         f"'{var.name}' of dtype {var.dtype}; cast with .astype({var.dtype}) first. "
                         "The variable is unchanged.")


# deferred/pending.py plugs in here while a replayed step's gradients are pending:
# ``(variable, value, op, kernel)`` -> True when it recorded ``variable.<op>(value)`` (``kernel`` of the
# variable's value and ``value`` for assign_add/assign_sub, None for assign) into that step's update.
_assign_deferral = None


def set_assign_deferral(defer) -> None:
    """Registration point for assignments fused into a pending replayed step (see ``_assign_deferral``)."""
    global _assign_deferral
    _assign_deferral = defer


# deferred/lazy.py plugs in here: ``(variable, value, kernel=None)`` -> True when it made
# ``variable.assign(value)`` of a LazyTensor whose op has not run pending in turn (the op does not run for it;
# with ``kernel``, the value is ``kernel(the variable's value, value)``: assign_add, assign_sub), else False.
_lazy_assignment = None


def set_lazy_assignment(assign) -> None:
    """Registration point for assignments of deferred values (see ``_lazy_assignment``)."""
    global _lazy_assignment
    _lazy_assignment = assign


def make_value_pending(var: Variable, node, slot: int, aval) -> None:
    """``var``'s value becomes ``node.values[slot]`` (shape and dtype those of ``aval``): unset until
    ``node`` stores it (``settle_pending_value``), which its first read asks with ``node.compute()``."""
    d = var.__dict__
    before = d.pop("_value") if "_value" in d else d["_pending_value"][2]
    d["_pending_value"] = (node, slot, before, aval)


def pending_value(var: Variable) -> Optional[tuple]:
    """``(node, slot, value before, aval)`` of a Variable whose value is pending, else None."""
    d = var.__dict__
    return None if "_value" in d else d.get("_pending_value")


def settle_pending_value(var: Variable, node, values: Optional[Sequence]) -> None:
    """Store ``values[slot]`` into ``var`` if its value is still pending on ``node``; with ``values``
    None (the node failed) put back the value it had before."""
    d = var.__dict__
    pending = d.get("_pending_value")
    if pending is None or pending[0] is not node:
        return
    del d["_pending_value"]
    d["_value"] = pending[2] if values is None else values[pending[1]]


def _tree_flatten_variable(v: Variable):
    st = tape_set.current()
    if st.tapes or st.accumulators:
        _warn_raw_jax_use(v, v._handle_id, v)
    return (v._current(),), None


# A Variable is a pytree node whose one leaf is its current value, so jax.jit(f)(v), jnp functions and optax
# take Variables (JAX 0.10 no longer converts arguments through __jax_array__). Unflattening gives a Tensor:
# a Variable passed to jax.jit is read when the call starts, not captured (assignments inside do not reach it;
# use tj.function for that), and a tree_map over Variables (optax's init) gives Tensors, not new Variables.
jax.tree_util.register_pytree_node(Variable, _tree_flatten_variable, pytree_unflatten)

_add_kernel = jax.jit(jnp.add)
_sub_kernel = jax.jit(jnp.subtract)


def values_shape(values: Any) -> Optional[tuple]:
    """The shape of ``values`` (nested Python lists of numbers or arrays) as an array would have it; None where it
    has none (ragged, or holding what NumPy cannot read)."""
    try:
        return np.shape(values)
    except (TypeError, ValueError):
        return None


def describe_value(value: Any, limit: int = 200) -> str:
    """What an error message shows of a value: its whole repr, or, for one longer than ``limit``, its type,
    shape and dtype. A repr is never cut off: half a value misleads more than none."""
    text = repr(value)
    if len(text) <= limit:
        return text
    try:
        a = np.asarray(value)
    except Exception:
        a = None
    if a is not None and a.dtype != object:
        return f"<{type(value).__name__} of shape {a.shape} and dtype {a.dtype}, repr of {len(text)} characters>"
    return f"<{type(value).__name__}, repr of {len(text)} characters>"


def _check_constraint(fn: Any) -> None:
    if fn is not None and not callable(fn):  # (TF's ValueError)
        raise ValueError(f"tj.Variable: the constraint must be None or a callable (a projection applied after each "
                         f"optimizer update), got {type(fn).__name__} {fn!r}.")


def _variable_name(name: Optional[str]) -> str:
    """TF's eager Variable name: the name scope, the given name (default "Variable") and ":0" (the output
    index TF names a variable's handle by: "m/w:0"). A name ending in "/" is absolute, as TF's scopes; so is the
    empty name (TF: ":0" in any scope)."""
    base = "Variable" if name is None else name
    if base == "" or base.endswith("/"):
        return base[:-1] + ":0"
    return current_name_scope() + base + ":0"


class ConversionError(TypeError, ValueError):
    """A value tj.constant/convert_to_tensor cannot turn into a Tensor. TF raises ValueError for a value of
    an unsupported type (None, an arbitrary object, a list holding one: "Attempt to convert a value (None)
    with an unsupported type ...", also for a None tangent of a ForwardAccumulator) and TypeError for a
    value its dtype cannot hold; one error that is both, so code written against either catches it."""


class OutOfRangeError(OverflowError, ValueError):
    """A Python number its dtype cannot hold (``tj.constant(2**72)``, ``tj.constant(10**310, float64)``):
    Python's and NumPy's OverflowError, and TF's ValueError ("Can't convert Python sequence with out-of-range
    integer"), one error that is both. Never wrapped around or rounded to inf, as TF."""


_F32_MAX = float(np.finfo(np.float32).max)


def refuse_narrowing(value: Any, dtype: Any, where: str) -> None:
    """Raise OutOfRangeError where JAX's 32-bit dtypes (its x64 mode off) would hold another number than the
    64-bit dtype ``value`` is converted as: ``dtype`` (None: a NumPy value's own dtype, float64 for a Python
    float, complex128 for a Python complex). JAX wraps an integer out of the 32-bit range around silently and
    turns a finite float past float32's range into inf; TF keeps the 64-bit value. Nothing is checked for a
    dtype of 32 bits or less asked for explicitly (a cast, as TF casts) or while x64 is on.

    ``value``: a NumPy array or scalar, a Python number, or (with a 64-bit ``dtype``) a list of numbers."""
    if dtype is None:
        if isinstance(value, (np.ndarray, np.generic)):
            wide = value.dtype
        elif type(value) is float:
            if -_F32_MAX <= value <= _F32_MAX:
                return  # (a Python float in float32's range, the common case: no NumPy)
            wide = np.dtype(np.float64)
        elif type(value) is complex:
            if -_F32_MAX <= value.real <= _F32_MAX and -_F32_MAX <= value.imag <= _F32_MAX:
                return
            wide = np.dtype(np.complex128)
        else:
            return
    else:
        wide = np.dtype(dtype)
    if wide.kind not in "iufc" or wide.itemsize < 8:
        return
    narrow = jax.dtypes.canonicalize_dtype(wide)
    if narrow == wide:
        return
    try:
        a = np.asarray(value)
    except (TypeError, ValueError):  # (a ragged list, text: the conversion says what is wrong)
        return
    if a.size == 0 or a.dtype.kind not in "iufc":
        return
    x64 = (f"its x64 mode is off, so {wide} values are held as {narrow} (TF keeps {wide}). Enable x64 "
           "(jax.config.update('jax_enable_x64', True)), or")
    if narrow.kind in "iu":
        if a.dtype.kind not in "iu":  # (floats to ints: the lossless-cast checks' business)
            return
        info = np.iinfo(narrow)
        lo, hi = a.min(), a.max()  # (two passes without a temporary array: a batch of labels fed every step)
        bad = lo if lo < info.min else hi if hi > info.max else None
        if bad is not None:
            raise OutOfRangeError(f"{where}: the integer {int(bad)} does not fit {narrow}, and JAX would wrap it "
                                  f"around: {x64} convert the values yourself (e.g. to float32).")
        return
    if a.dtype.kind not in "fc":  # (integers never pass float32's range: int64's largest is 9.2e18)
        return
    big = np.finfo(narrow).max
    for part in ((a.real, a.imag) if a.dtype.kind == "c" else (a,)):
        hi, lo = part.max(), part.min()
        if hi <= big and lo >= -big:  # (the common case; a NaN fails it, and is looked at below)
            continue
        with np.errstate(invalid="ignore"):
            over = (np.abs(part) > big) & np.isfinite(part)  # (an inf stays inf: not a change)
        if over.any():
            raise OutOfRangeError(f"{where}: the value {part[over].flat[0].item()!r} is past {narrow}'s range, and JAX "
                                  f"would make it inf: {x64} rescale the values.")


def _check_lossless(value: Any, dtype, what: str, name: str) -> None:
    """As TF's conversion with a requested dtype: Python/numpy floats do not silently become ints or
    bools (nor complex numbers reals); TypeError, as TF's "Cannot convert 1.5 to EagerTensor of dtype int32"."""
    try:
        kind = np.asarray(value).dtype.kind
    except Exception:
        return  # let the conversion report it
    if _loses(kind, jnp.dtype(dtype).kind):
        raise TypeError(f"{what}: value {describe_value(value)} (numpy kind '{kind}') cannot be converted to the "
                        f"variable '{name}' of dtype {jnp.dtype(dtype)} without loss. The variable is unchanged.")


def _default_dtype(value: Any):
    """TF's defaults with x64 off: Python float -> float32, int -> int32, bool -> bool. A NumPy scalar (np.float64
    is a float too) keeps its own dtype, as a NumPy array does: None."""
    if isinstance(value, np.generic):
        return None
    if isinstance(value, bool):
        return jnp.bool_
    if isinstance(value, int):
        return _int_dtype((value,))
    if isinstance(value, float):
        return jnp.float32
    if isinstance(value, complex):
        return jnp.complex64
    return None


_INT32_MIN, _INT32_MAX = -2 ** 31, 2 ** 31 - 1


def _int_dtype(ints: Sequence[int]):
    """int32 for Python ints, as TF; TF takes int64 for one that does not fit, which JAX only has with x64 on."""
    big = next((i for i in ints if not _INT32_MIN <= i <= _INT32_MAX), None)
    if big is None:
        return jnp.int32
    if jax.config.jax_enable_x64:
        return jnp.int64
    if not -2 ** 63 <= big < 2 ** 64:
        raise OutOfRangeError(f"tj.constant: the Python integer {big} does not fit any integer dtype (TF: ValueError "
                              "\"Can't convert Python sequence with out-of-range integer\"); pass a float.")
    raise OutOfRangeError(f"tj.constant: the Python integer {big} does not fit int32, and int64 (TF's dtype for "
                          "it) needs JAX's x64 mode, which is off. Enable it (jax.config.update('jax_enable_x64', "
                          "True)) or pass a float (dtype=tj.numpy.float32).")


def _python_kind(value: Any) -> Optional[str]:
    """The NumPy kind ('b', 'i', 'f' or 'c') of a Python number or nested list/tuple of Python numbers (the
    widest of its elements); None when it holds anything else (Tensors, strings). NumPy scalars and arrays
    inside a list count by their dtype's kind: TF converts such a list as a Python sequence, refusing a lossy
    cast of it, where it casts a bare NumPy value (None here)."""
    kinds = {bool: "b", int: "i", float: "f", complex: "c"}
    widest = "b"
    stack = [value]
    while stack:
        v = stack.pop()
        if type(v) in (list, tuple):
            stack.extend(v)
            continue
        k = kinds.get(type(v))
        if k is None:
            if v is value or not isinstance(v, (np.generic, np.ndarray)) or v.dtype.kind not in "biufc":
                return None
            k = "i" if v.dtype.kind == "u" else v.dtype.kind
        widest = max(widest, k, key="bifc".index)
    return widest


def _loses(kind: str, target: str) -> bool:
    """Whether converting values of NumPy kind ``kind`` to kind ``target`` can lose information TF's conversions
    refuse to drop: floats or complex numbers to ints/bools, ints to bools, complex numbers to reals."""
    return (target in "iub" and kind in "fc") or (target == "b" and kind in "iu") or (target == "f" and kind == "c")


def _check_python_cast(value: Any, dtype, where: str) -> Optional[str]:
    """As TF's conversion with a requested dtype: Python floats do not silently become ints or bools, nor
    Python ints bools, nor complex numbers reals (``tf.constant(1.5, dtype=tf.int32)`` raises TypeError).
    NumPy and JAX arrays are cast, as TF casts them. Returns ``value``'s ``_python_kind``."""
    kind = _python_kind(value)
    if kind is not None and _loses(kind, dtype.kind):
        raise TypeError(f"{where}: cannot convert {describe_value(value)} to dtype {dtype} without loss (a Python "
                        f"{ {'i': 'int', 'f': 'float', 'c': 'complex'}[kind] } is never truncated, as TF). Convert "
                        "the value yourself (int(x), x.real, np.asarray(x).astype(...)), or ask for another dtype.")
    return kind


def _host_to_device(value: Any, dtype: Any = None):
    """A NumPy array, or Python numbers (nested lists of them) with a ``dtype``, as a new jax.Array: of
    ``dtype``, or (None) of the dtype ``jnp.asarray`` gives the array (float64 -> float32 with x64 off).
    None where only jnp.asarray converts it: a cast across kinds (float to int, complex to real), an
    integer out of the target's range, a dtype JAX does not hold, anything non-numeric (NumPy would make
    NaN of None and a number of '1.5'; jnp.asarray raises its error).

    Built on the host by NumPy, as jnp.asarray builds a value it cannot hold, and put on the device as it
    is: jnp.asarray compiles an XLA program for each new shape and dtype (jax 0.10's ``stage`` and
    ``convert_element_type``: 15-50 ms the first time, in every process). Always a copy: on the CPU
    ``jnp.asarray(a, dtype)`` and ``jax.device_put(a)`` may share a NumPy array's memory, so a later
    ``a[0] = 5`` would change a Tensor, a Variable or a tape's residual (TF copies)."""
    try:
        python = type(value) is not np.ndarray
        if python:
            if dtype is None:
                return None
            value = np.asarray(value)  # Python numbers: int64, float64, complex128 or bool (None, str: others)
        src = value.dtype
        target = jax.dtypes.canonicalize_dtype(src if dtype is None else dtype)
        if (src.kind not in "biufc" and not jnp.issubdtype(src, np.floating)) or not (
                target == np.bool_ or jnp.issubdtype(target, np.number)):
            return None
        if not np.can_cast(src, target, "same_kind") or (dtype is not None and target != np.dtype(dtype)):
            return None
        if python and src.kind in "iu" and target.kind in "iu" and value.size and not (
                np.iinfo(target).min <= value.min() and value.max() <= np.iinfo(target).max):
            return None
        host = np.array(value, dtype=target, copy=True)
    except (TypeError, ValueError, OverflowError):
        return None
    return jax.device_put(host)


def as_array(value: Any, dtype: Any = None) -> jax.Array:
    """``jnp.asarray(value, dtype)`` for a raw value (a NumPy array, Python numbers, a jax array), except that a
    NumPy array (or Python numbers with a ``dtype``) becomes a copy on the device made without an XLA program
    (``_host_to_device``): never the caller's memory, which a later write would change under a residual, and no
    compile per new shape. A jax array or tracer goes to jnp.asarray as it is (no round trip to the host)."""
    if not isinstance(value, (jax.Array, jax.core.Tracer)):
        arr = _host_to_device(value, dtype)
        if arr is not None:
            return arr
        if dtype is not None and _is_text(value):  # (jnp.asarray would parse '1.5' as a number)
            raise ConversionError(f"it holds text, which tapejax does not parse as {jnp.dtype(dtype)} numbers (it "
                                  "has no string dtype; TF raises too): convert the text yourself, e.g. float(s).")
        # (and would take 'a' for a dtype's name; a list is looked at only as far as its first element, so a number
        # list, the common case, is not walked twice)
        if dtype is None and _starts_with_text(value):
            raise ConversionError("it holds text: tapejax has no string dtype (JAX has none; TF would make a "
                                  "tf.string tensor). Convert the text to numbers yourself, e.g. float(s).")
    return jnp.asarray(value, dtype=dtype)


def _starts_with_text(value: Any) -> bool:
    """Whether ``value`` is a string, or a list or tuple whose first element (nested first elements) is one."""
    while isinstance(value, (list, tuple)) and value:
        value = value[0]
    return isinstance(value, (str, bytes))


def _is_text(value: Any) -> bool:
    """Whether ``value`` is a string, or an array or nested list holding strings."""
    if isinstance(value, (str, bytes)):
        return True
    if isinstance(value, (list, tuple, np.ndarray)):
        try:
            arr = np.asarray(value)
        except (TypeError, ValueError):  # (a ragged list: its own error follows)
            return False
        return arr.dtype.kind in "US" or arr.dtype.kind == "O" and any(isinstance(x, (str, bytes)) for x in arr.flat)
    return False


def convert_to_tensor(value: Any, dtype: Any = None, dtype_hint: Any = None, name: Optional[str] = None) -> Tensor:
    """A Tensor from a Tensor, Variable (its recorded read), jax/numpy array, Python number or list.
    ``name`` is accepted for TF code and ignored (an eager TF tensor has no name either).

    ``dtype_hint`` (TF's signature and rule): the dtype to use when ``dtype`` is None and the value has none of its
    own (Python numbers and lists; arrays are cast to it, as TF casts NumPy arrays), where that conversion is
    possible; else it has no effect (``convert_to_tensor(1.5, dtype_hint=int32)`` is float32, as TF)."""
    if dtype is None and dtype_hint is not None and not isinstance(value, (Tensor, Variable)):
        try:
            return convert_to_tensor(value, dtype_hint)
        except (TypeError, ValueError):  # (a Python float for an int hint...): as if there were no hint
            pass
    if dtype is not None:
        dtype = _as_dtype(dtype, "convert_to_tensor")
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype != jnp.dtype(dtype):
            raise ValueError(f"convert_to_tensor: tensor of dtype {value.dtype} requested as {jnp.dtype(dtype)}; "
                             "use tj.numpy.astype / Tensor.astype to cast.")
        return value
    if isinstance(value, Variable):
        return convert_to_tensor(value.read_value(), dtype)
    if isinstance(value, jax.Array) or isinstance(value, jax.core.Tracer):
        arr = value if dtype is None else value.astype(dtype)
        return Tensor(arr)
    refuse_narrowing(value, dtype, "tj.constant/convert_to_tensor")
    # (a list of Python numbers is walked once: holding Tensors is asked only of one that holds other things)
    if dtype is None:
        dtype = _default_dtype(value)
        if dtype is None and isinstance(value, (list, tuple)):
            dtype = _default_list_dtype(value)
            if dtype is None and _list_packer is not None and _holds_tensors(value):
                return _pack_list(value, None)
    elif (_check_python_cast(value, dtype, "tj.constant/convert_to_tensor") is None and isinstance(value, (list, tuple))
          and _list_packer is not None and _holds_tensors(value)):
        return _pack_list(value, dtype)
    try:
        if isinstance(value, (list, tuple)):
            value = _materialize_nested(value)
        # inside a tj.function trace a constant stays concrete (TF folds graph constants): tj.constant(1)
        # then works as an axis or shape there, as tf.constant does inside tf.function
        with (jax.ensure_compile_time_eval() if tape_set.current().capture is not None else contextlib.nullcontext()):
            arr = as_array(value, dtype)
    except OverflowError as e:
        held = jax.dtypes.canonicalize_dtype(dtype)
        x64 = f" (JAX's x64 mode is off, so {jnp.dtype(dtype)} means {held})" if held != jnp.dtype(dtype) else ""
        raise OutOfRangeError(f"tj.constant/convert_to_tensor: {e}{x64}; a value out of its dtype's range is "
                              "never wrapped around (TF wraps it silently). Pass a dtype that holds it.") from None
    except (TypeError, ValueError) as e:
        if isinstance(value, (list, tuple)) and "inhomogeneous" in str(e):  # as TF's error for ragged lists
            raise ConversionError(f"Can't convert a non-rectangular Python sequence to a tj.Tensor: {value!r}. "
                                  "Every nested list along one axis must have the same length; pad the rows "
                                  "first.") from None
        raise ConversionError(f"Cannot convert {type(value).__name__} {value!r} to a tj.Tensor"
                              + (f" of dtype {dtype}" if dtype is not None else "") + f": {e}") from None
    t = Tensor(arr)
    if type(value) is np.ndarray:  # (a batch from the host: see _made_lately)
        _note_made(t)
    return t


def _as_dtype(dtype: Any, where: str):
    """``dtype`` as a NumPy dtype, or a TypeError that blames the dtype (not the value being converted)."""
    try:
        return jnp.dtype(dtype)
    except TypeError as e:
        raise TypeError(f"{where}: dtype {dtype!r} is not a data type ({e}); pass a NumPy/JAX dtype such as "
                        "'float32' or jnp.float32.") from None


# ops/numpy.py plugs in here: a list of Tensors of one shape and dtype -> their stack along a new first axis, as a
# recorded op (TF's Pack), so a list holding watched tensors keeps their gradients.
_list_packer: Optional[Any] = None


def set_list_packer(pack) -> None:
    """Registration point for packing lists of Tensors (see ``_list_packer``)."""
    global _list_packer
    _list_packer = pack


def _holds_tensors(value) -> bool:
    # (any list or tuple, as _materialize_nested: a tj.Module's list attribute is a list subclass, ListWrapper)
    return any(isinstance(v, (Tensor, Variable)) or (isinstance(v, (list, tuple)) and _holds_tensors(v)) for v in value)


def _pack_list(value, dtype) -> Tensor:
    """A nested list holding Tensors or Variables as one Tensor built by recorded ops (TF packs it): gradients
    flow to the tensors in it, and it works on traced tensors inside tj.function. The dtype is ``dtype``, else
    JAX's promotion of the elements' dtypes (Python numbers weakly typed, as in ``tensor * 2.0``)."""
    leaves = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        else:
            leaves.append(v)
    tensors = [v for v in leaves if isinstance(v, (Tensor, Variable))]  # (a Variable is read once, by the pack)
    if dtype is None:
        others = [v for v in leaves if not isinstance(v, (Tensor, Variable))]
        for v in others:  # (the promoted dtype is JAX's 32-bit one: a NumPy int64 past it would wrap around)
            refuse_narrowing(v, None, "tj.constant/convert_to_tensor")
        dtype = jnp.result_type(*(t.dtype for t in tensors), *others)
    else:
        bad = next((t for t in tensors if _loses(t.dtype.kind, dtype.kind)), None)
        if bad is not None:
            raise ValueError(f"convert_to_tensor: a list holding a tensor of dtype {bad.dtype} requested as {dtype}, "
                             "which would lose information; cast the tensor with .astype first.")
    return _pack_nested(value, dtype)


def _pack_nested(v, dtype):
    # (module-level, not a closure calling itself: that closure is a reference cycle left per conversion)
    if isinstance(v, (list, tuple)):
        return _list_packer([_pack_nested(x, dtype) for x in v], dtype)
    return v if isinstance(v, (Tensor, Variable)) else convert_to_tensor(v, dtype)


def _materialize_nested(value):
    if isinstance(value, (list, tuple)):
        len(value)  # (a length below 0 raises ValueError, as TF's conversion asks it; iterating would not)
        return [_materialize_nested(v) for v in value]
    if isinstance(value, (Tensor, Variable)):
        return np.asarray(value)
    return value


def _leaves(value, flat=None) -> list:
    # (flat passed down, not a closure calling itself: that is a reference cycle left per list converted)
    flat = [] if flat is None else flat
    if isinstance(value, (list, tuple)):
        for v in value:
            _leaves(v, flat)
    else:
        flat.append(value)
    return flat


def _holds_numpy_integers(flat) -> bool:
    return bool(flat) and any(not isinstance(v, (int, bool)) for v in flat) and all(_integer_leaf(v) for v in flat)


def numpy_sequence_dtype(value):
    """The dtype jax.numpy gives a list or tuple of integers holding NumPy ones (``[np.int8(1), 2]`` is int8), where
    ``tj.constant`` counts them as Python ints (int32, as TF's); None for any other value (the two agree there)."""
    if not isinstance(value, (list, tuple)):
        return None
    flat = _leaves(value)
    return jnp.result_type(*flat) if _holds_numpy_integers(flat) else None


def _default_list_dtype(value):
    flat = _leaves(value)
    if _holds_numpy_integers(flat):
        # NumPy integers in a list count as Python ints, as TF's conversion of a sequence takes them: int32
        # ([np.int8(1), 300], [np.uint8(1)]), int64 past it (x64 off: their own dtypes, [np.uint32(4e9)] uint32)
        ints = [int(e) for v in flat for e in ((v,) if isinstance(v, int) else _extremes(v))]
        if jax.config.jax_enable_x64 or all(_INT32_MIN <= i <= _INT32_MAX for i in ints):
            return _int_dtype(ints)
    if any(isinstance(v, np.generic) for v in flat):  # NumPy scalars: JAX's inference, as TF's
        return None  # ([np.float64(1), 2.0] is float64, [np.float32(1), 2.0] float32)
    if flat and all(isinstance(v, bool) for v in flat):
        return jnp.bool_
    if flat and all(isinstance(v, (int, bool)) and not isinstance(v, float) for v in flat):
        return _int_dtype(flat)
    if flat and all(isinstance(v, (int, float, bool)) for v in flat):
        # (TF's float32 for Python floats refuses one past its range, as JAX's inf would be another number)
        big = next((v for v in flat if type(v) is float and not -_F32_MAX <= v <= _F32_MAX and v - v == 0), None)
        if big is not None:
            refuse_narrowing(big, None, "tj.constant/convert_to_tensor")
        return jnp.float32
    return None


def _integer_leaf(v) -> bool:
    return isinstance(v, int) or (isinstance(v, (np.generic, np.ndarray)) and v.dtype.kind in "iu")


def _extremes(a) -> tuple:
    # (a NumPy integer scalar or array: its least and greatest values, all _int_dtype needs)
    return (a.min(), a.max()) if np.size(a) else ()


def _static_shape(shape) -> tuple:
    """``tj.constant``'s ``shape=`` as a tuple of ints, as TF's: a float dimension raises ``TypeError`` (int()
    truncated 2.5 to 2), a negative one ``ValueError`` ("Dimension -1 must be >= 0")."""
    dims = []
    for d in (shape if isinstance(shape, (tuple, list)) else np.asarray(shape).reshape(-1).tolist()):
        try:
            d = operator.index(d)
        except TracedValueError:
            raise  # (a traced scalar Tensor: constant's own error names the argument)
        except TypeError:
            raise TypeError(f"tj.constant: shape {shape!r} must hold integers, got {d!r}") from None
        if d < 0:
            raise ValueError(f"tj.constant: shape {shape!r} has a negative dimension, {d}")
        dims.append(d)
    return tuple(dims)


# The Tensors tj.constant made lately, and those convert_to_tensor (tj.numpy.asarray, tj.numpy.array) made of
# NumPy arrays, newest last, weakly held, each with its number in order of making: a training loop that
# converts each batch so reads, at its next step, the ones made after the batch it read (deferred/pending.py
# guesses the next step's inputs from them).
_made_lately: "collections.deque" = collections.deque(maxlen=32)
_made_count = itertools.count(1).__next__


def _note_made(t: "Tensor") -> None:
    last = _made_lately[-1][1]() if _made_lately else None
    if last is not t:  # (tj.constant of a NumPy array made it through convert_to_tensor, which noted it)
        _made_lately.append((_made_count(), weakref.ref(t)))


def made_number(value) -> int:
    """The number (in order of making) of the Tensor made lately (``_made_lately``) that holds the array
    ``value``; 0 when there is none."""
    for n, ref in reversed(tuple(_made_lately)):  # (a copy: another thread, a loader's, may be making more)
        t = ref()
        if t is not None and t._value is value:
            return n
    return 0


def made_after(number: int) -> list:
    """The arrays held by the Tensors made lately (``_made_lately``) after the one numbered ``number`` (those
    still alive), in order of making."""
    out = []
    for n, ref in tuple(_made_lately):
        t = ref() if n > number else None
        if t is not None:
            out.append(t._value)
    return out


# XLA aborts the whole process (an abseil CHECK, not an exception) on an array whose byte size overflows a signed
# 64-bit product; nothing that large could be allocated anyway, so tapejax raises for it first
MAX_ARRAY_BYTES = 2 ** 62


def array_bytes(shape, dtype) -> int:
    """The bytes of an array of ``shape`` and ``dtype`` (exact: Python ints do not overflow)."""
    size = 1
    for d in shape:
        size *= int(d)
    return size * getattr(dtype, "itemsize", 1)


def constant(value: Any, dtype: Any = None, shape: Any = None, name: Optional[str] = None) -> Tensor:
    """A new Tensor holding ``value`` (TF's dtype defaults with x64 off). ``name`` is accepted for TF code and
    ignored (an eager TF tensor has no name either).

    Dtypes: Python floats give float32, ints int32 (int64 for one beyond int32, which needs x64 on; otherwise
    OverflowError), bools bool, as TF. NumPy arrays keep their dtype as JAX canonicalizes it: with JAX's x64
    mode off (the default) float64 becomes float32 and int64 int32, where TF keeps 64 bits; turn x64 on to keep
    them. A value those 32 bits would change (an integer past int32, which JAX wraps around; a finite number
    past float32's range, which JAX makes inf) raises OverflowError instead, for a NumPy value or a Python
    float, also with a 64-bit ``dtype`` asked for. A requested ``dtype`` never truncates a Python number
    (``constant(1.5, dtype=int32)`` raises TypeError, as TF); NumPy and JAX arrays are cast to it."""
    t = _constant(value, dtype, shape)
    if t is not value and type(t) is Tensor:
        _note_made(t)
    return t


def _constant(value: Any, dtype: Any = None, shape: Any = None) -> Tensor:
    if shape is not None:  # as tf.constant: a scalar is filled in, a value of the same size reshaped
        t = _constant(value, dtype)
        try:  # (a list of ints or scalar Tensors, an int, or a 1-d Tensor such as a tf.shape result)
            dims = np.asarray(shape).reshape(-1) if isinstance(shape, (Tensor, Variable)) else shape
            shape = _static_shape(dims if isinstance(dims, (list, tuple, np.ndarray)) else [dims])
        except TracedValueError as e:
            raise traced_argument_error(
                "tj.constant", "shape", shape if isinstance(shape, (Tensor, Variable)) else e.value) from e
        if t.size == 1:
            if array_bytes(shape, t.dtype) > MAX_ARRAY_BYTES:
                raise ValueError(f"tj.constant: shape {shape} would take {array_bytes(shape, t.dtype)} bytes, more "
                                 "than any device can hold (the limit is 2**62 bytes).")
            return Tensor(jnp.broadcast_to(t.value.reshape(()), shape))
        if t.size != int(np.prod(shape, dtype=np.int64)):  # (TF: TypeError "unsupported shape"; also ValueError)
            raise ConversionError(f"tj.constant: a value of shape {t.shape} ({t.size} elements) cannot take the "
                                  f"shape {shape}; give a scalar (filled in) or a value with as many elements.")
        return Tensor(t.value.reshape(shape))
    if dtype is not None:
        dtype = _as_dtype(dtype, "tj.constant")
    if isinstance(value, Tensor):
        return value if dtype is None else Tensor(value.value.astype(dtype))
    if isinstance(value, Variable):
        value = value._value
    if isinstance(value, (jax.Array, np.ndarray)) and dtype is not None:
        if type(value) is np.ndarray and jax.dtypes.canonicalize_dtype(value.dtype) != value.dtype:
            # A 64-bit array JAX holds in 32 bits: cast from its own values (JAX's 32-bit copy of 2**35 is 0, of
            # 16777217.0 16777216.0), to a 64-bit dtype only when its values fit 32 bits
            refuse_narrowing(value, dtype, "tj.constant")
            with np.errstate(all="ignore"):  # (the cast TF makes: a value out of an explicit dtype's range wraps)
                value = value.astype(jax.dtypes.canonicalize_dtype(dtype))
        return Tensor(jnp.asarray(value).astype(dtype))
    return convert_to_tensor(value, dtype)


def _not_a_jax_type(t) -> None:
    """What JAX's ``typeof`` answers for a Tensor or Variable (``jax.grad``'s check of its output, ``valid_jaxtype``):
    a TypeError saying the fix. Both are pytree nodes holding one array, not arrays, so jax.grad of a function
    returning one cannot seed its cotangent; jax's own message ("register your object as a pytree") misleads."""
    kind = "tj.Variable" if isinstance(t, Variable) else "tj.Tensor"
    raise TypeError(
        f"A {kind} (shape {tuple(t.shape)}, dtype {t.dtype}) is a pytree holding one jax.Array, not a JAX array "
        f"type: where JAX wants an array (the output of a function given to jax.grad or jax.value_and_grad), "
        f"return its .value, e.g. jax.grad(lambda x: tj.numpy.sum(x * x).value).")


try:  # (jax's registries by Python type; private, hence guarded)
    from jax._src import core as _jax_core
    from jax._src import dtypes as _jax_dtypes
    _jax_core.pytype_aval_mappings[Tensor] = _not_a_jax_type
    _jax_core.pytype_aval_mappings[Variable] = _not_a_jax_type
    # jax.lax functions (and jax's loops: fori_loop's bounds) take a Tensor or Variable as its value, as jax.numpy's
    # do through __jax_array__ (which jax 0.10 no longer calls there), with its warning under a tape
    # (a C-level call, no Python frame of tapejax's: the warning finds the user's line, as from jax.numpy)
    for _cls in (Tensor, Variable):
        _jax_dtypes.register_canonicalize_value_handler(_cls, operator.methodcaller("__jax_array__"))
except (ImportError, AttributeError):  # pragma: no cover - another jax layout: jax's own message then
    pass
