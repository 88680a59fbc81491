"""Python operators and array methods of Tensor and Variable, as recorded ops.

The methods and properties of ``jax.Array`` are there too, with its signatures: those computing an array are
``tj.numpy``'s function of the same name (``t.cumsum(0)`` is ``tj.numpy.cumsum(t, 0)``, with its gradient; ``t.at``
is ``tj.numpy.at(t)``); ``item()``, ``tolist()``, ``nbytes``, ``itemsize`` and ``block_until_ready()`` give what
jax.Array's give. Of the placement queries, ``devices()``, ``is_ready()``, ``committed``, ``is_fully_addressable``,
``is_fully_replicated`` and ``addressable_shards`` ask the value (a Variable's current value, read unrecorded). Left
out, as operations on a buffer rather than on a value (a tape may still hold it): ``delete``, ``is_deleted``,
``unsafe_buffer_pointer``, ``unsafe_raw_buffer`` (a newer jax's handle to the device buffer itself: a Variable's
goes stale at its next assignment, or dangles once ``tj.function(donate_variables=True)`` donates it),
``copy_to_host_async``, ``on_device_size_in_bytes``, ``addressable_data``, ``global_shards``, ``to_device``,
``platform``, ``traceback``, ``format``, ``byteswap``, ``view``, ``tobytes``, ``flat``, ``aval``, ``weak_type``,
``clone`` and the removed ``device_buffer`` and ``device_buffers`` (a Tensor's ``.value``, its jax.Array, has them).
"""
from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
import numpy as np

from .. import tape_set
from ..tensor import (ArrayImpl, ConcretizationTypeError, ConversionError, Tensor, Variable, make_slice_assignable,
                      values_shape)
from . import numpy as tnp
from .core import NO_STATIC, apply


def _kind(dtype) -> int:
    # bool < integer < float < complex: a value converts to a dtype of its kind or a wider one without losing its kind
    return (0 if dtype == np.bool_ else 1 if jnp.issubdtype(dtype, jnp.integer) else
            2 if jnp.issubdtype(dtype, jnp.floating) else 3 if jnp.issubdtype(dtype, jnp.complexfloating) else 4)


_TYPED_OPERANDS = frozenset((Tensor, float, int))  # (the common operands: nothing to convert, one set lookup)


def _operand(self, other):
    """The operand ``other`` of an operator of ``self``, converted as TF's operators do: a NumPy array or scalar,
    or a list, takes ``self``'s dtype when its kind is no wider (``f16 * np.float32(3)`` is float16, as ``f16 * 3.``
    is; ``i8 + np.array([300])`` int8 45, wrapped, as ``i8 + 300``). Of a wider kind it promotes as jax.numpy
    (``i32 + np.float32(2.5)`` is float32 3.5), where TF would truncate it to 3 or drop an imaginary part.
    A Python number, a jax.Array or a Tensor is left as it is (weakly typed, or typed as a Tensor)."""
    if isinstance(other, (np.ndarray, np.generic)):
        if other.dtype != self.dtype and _kind(other.dtype) <= _kind(self.dtype) < 4:
            with np.errstate(over="ignore", invalid="ignore"):  # (past the range: inf, or wrapped, as TF)
                return other.astype(self.dtype)
    elif isinstance(other, (list, tuple)):
        try:
            v = tnp.asarray(other)
        except (TypeError, ValueError):
            return other  # (the op says what is wrong with it, naming itself)
        if v.dtype != self.dtype and _kind(v.dtype) <= _kind(self.dtype) < 4:
            return tnp.astype(v, self.dtype)
        return v
    return other


def _big_int_as_float(self, other):
    """A Python int past int32 (x64 off) as the float it is, where ``self`` is inexact: TF converts it to
    ``self``'s dtype (``f32 * 3_000_000_000``); an integer ``self`` still raises (TF would wrap it silently)."""
    if (type(other) is int and not -2 ** 31 <= other < 2 ** 31 and not jax.config.jax_enable_x64
            and jnp.issubdtype(self.dtype, jnp.inexact)):
        return float(other)
    return None


def _swap(f):
    def reflected(self, other):
        if type(other) not in _TYPED_OPERANDS:
            other = _operand(self, other)
        try:
            return f(other, self)
        except OverflowError:
            big = _big_int_as_float(self, other)
            if big is None:
                raise
            return f(big, self)
    return reflected


def _deferring(f, name: str, reflected: str):
    """The binary operator ``f(self, other)``; for an operand it cannot convert whose type has the reflected
    method, that method's answer (``t + obj`` is ``obj.__radd__(t)``; ``t < obj`` is ``obj.__gt__(t)`` where its
    type defines one), as TF's operators (and jax.Array's). Where it has none, raises TypeError or ValueError, or
    returns NotImplemented, the conversion's error stands (TF's ValueError "Attempt to convert a value ... with an
    unsupported type")."""
    opdef = getattr(f, "opdef", None)  # (a broadcasting op applied here: no call of its public function per use)

    def op(self, other):
        if type(other) not in _TYPED_OPERANDS:
            other = _operand(self, other)
        try:
            return f(self, other) if opdef is None else apply(opdef, (self, other), NO_STATIC)
        except OverflowError:
            big = _big_int_as_float(self, other)
            if big is None:
                raise
            return f(self, big)
        except ConversionError as e:
            method = getattr(type(other), reflected, None)
            if method is None or method is getattr(object, reflected, None):  # (object's own __gt__: no answer)
                raise
            try:
                result = method(other, self)
            except (TypeError, ValueError):
                raise e from None
            if result is NotImplemented:
                raise
            return result
    op.__name__ = op.__qualname__ = name
    return op


def _method_reduce(name: str):
    # (looked up when called: the public function, whose errors name a traced argument, ops/api.py accept_name)
    def m(self, axis=None, keepdims=False, **kw):
        return getattr(tnp, name)(self, axis=axis, keepdims=keepdims, **kw)
    m.__name__ = m.__qualname__ = name
    m.__doc__ = f"``tj.numpy.{name}(self, axis, keepdims)``: a recorded op."
    return m


def _method(f, name: str, doc: str):
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


def _tensor_eq(negate: bool):
    """``Tensor.__eq__``/``__ne__`` as TF's (``tensor_equals``): ``t == None`` is False and ``t != None`` True
    (Python code compares with None, and ``x in [None, ...]`` does); shapes that do not broadcast give a
    scalar False (True for ``!=``), as TF's ``equal(..., incompatible_shape_error=False)``. ``tj.numpy.equal``
    raises for them, as ``tf.equal``; a Variable compared with None raises, as TF's."""
    f = tnp.not_equal if negate else tnp.equal

    def cmp(self, other):
        if other is None and not isinstance(self, Variable):
            return negate
        if type(other) not in _TYPED_OPERANDS:
            other = _operand(self, other)
        oshape = getattr(other, "shape", None)  # (Tensors, Variables, arrays; checked only where shapes differ)
        if oshape is None and isinstance(other, (list, tuple)):  # (a list's shape as TF converts it)
            oshape = values_shape(other)
        if oshape is not None and tuple(oshape) != tuple(self.shape):
            try:
                np.broadcast_shapes(tuple(self.shape), tuple(oshape))
            except ValueError:
                return tnp.asarray(negate)
        return f(self, other)
    return cmp


def _variable_getitem(var: Variable, index):
    """``var[index]``: a Tensor (the read, then the indexing op) that also has TF's ``assign(value, name=None)``,
    which writes ``value`` into the entries it reads (the same indexing rules: the positions are found by
    indexing a grid of flat positions) and returns the variable. Not differentiable, as TF."""
    t = tnp.getitem(var, index)

    def assign(value, name=None):
        size = int(np.prod(var.shape, dtype=np.int64))
        grid = tnp.reshape(tnp.arange(size, dtype=np.int32 if size < 2 ** 31 else np.int64), var.shape)
        positions = tnp.getitem(grid, index).value
        # (an integer-array index may repeat an entry: which value lands there would be unspecified)
        if not isinstance(positions, jax.core.Tracer) and np.unique(np.asarray(positions)).size != positions.size:
            raise ValueError(f"Variable[...].assign: the index {index!r} names an entry of variable '{var.name}' more "
                             "than once; assign distinct entries (e.g. a slice). The variable is unchanged.")
        return var.assign_entries(positions, value, "Variable[...].assign")
    make_slice_assignable(t, assign)
    return t


def _sparse_read(var: Variable, indices, name=None) -> Tensor:
    """TF's ``Variable.sparse_read``: the rows ``indices`` (along the first axis), with their gradient; an
    index out of bounds, or negative, raises IndexError (TF's gather refuses both)."""
    idx = _non_negative(tnp.asarray(indices), "sparse_read", var)
    return tnp.getitem(var, idx)


def _gather_nd(var: Variable, indices, name=None) -> Tensor:
    """TF's ``Variable.gather_nd``: the entries (or slices) named by the index tuples on the last axis of
    ``indices``, shape ``indices.shape[:-1] + var.shape[k:]``, with their gradient."""
    idx = _non_negative(tnp.asarray(indices), "gather_nd", var)
    if idx.ndim < 1 or idx.shape[-1] > len(var.shape):
        raise ValueError(f"Variable.gather_nd: indices of shape {tuple(idx.shape)} must have at least one axis, the "
                         f"last of length at most the variable's rank {len(var.shape)} (variable '{var.name}' of "
                         f"shape {var.shape})")
    if idx.shape[-1] == 0:  # (empty index tuples name the whole variable, once per tuple, as TF)
        return tnp.broadcast_to(var, tuple(idx.shape[:-1]) + tuple(var.shape))
    return tnp.getitem(var, tuple(idx[..., i] for i in range(idx.shape[-1])))


def _non_negative(idx: Tensor, method: str, var: Variable) -> Tensor:
    """``idx``; IndexError where a known index is negative (TF's gathers take none; getitem would count it
    from the end). A traced index is not known until the program runs."""
    raw = idx.value
    if not isinstance(raw, jax.core.Tracer) and np.issubdtype(raw.dtype, np.integer) and (np.asarray(raw) < 0).any():
        raise IndexError(f"Variable.{method}: index {int(np.asarray(raw).min())} is negative (variable '{var.name}' of "
                         f"shape {var.shape}): indices must be in [0, dimension)")
    return idx


# -- jax.Array's methods ------------------------------------------------------------------------------

def _array_method(name: str):
    """``jax.Array.<name>`` as ``tj.numpy.<name>(self, ...)``, with jax.Array's signature (the arguments after
    ``self`` are jax.numpy's function's, in the same order)."""
    def m(self, *args, **kwargs):
        # (looked up when called: the public function, whose errors name a traced argument, ops/api.py accept_name)
        return getattr(tnp, name)(self, *args, **kwargs)
    return _as_jax_method(m, name, f"As ``jax.Array.{name}``: ``tj.numpy.{name}(self, ...)``, recorded as that op "
                                   "(with its gradient where it has one).")


def _as_jax_method(f, name: str, doc: str):
    """``f`` named ``name``, documented by ``doc``, showing jax.Array's parameters (help(), IDEs); their
    annotations, which name jax's types (a result is a Tensor here), are left out."""
    _method(f, name, doc)
    try:  # (jax.Array declares most; its concrete class the rest, __dlpack__ among them)
        sig = inspect.signature(getattr(jax.Array, name, None) or getattr(ArrayImpl, name))
    except (AttributeError, TypeError, ValueError):  # (a jax without it: the plain signature)
        return f
    empty = inspect.Parameter.empty
    f.__signature__ = sig.replace(parameters=[p.replace(annotation=empty) for p in sig.parameters.values()],
                                  return_annotation=inspect.Signature.empty)
    return f


def _array_namespace(self, *, api_version=None):
    if api_version is not None:  # (jax.numpy's check of the version asked for, and its error)
        jnp.zeros(()).__array_namespace__(api_version=api_version)
    return tnp


def _compress(self, condition, axis=None, *, out=None, size=None, fill_value=0):
    return tnp.compress(condition, self, axis, out=out, size=size, fill_value=fill_value)


def _host_array(self, what: str):
    """The value as a NumPy array (a Variable's current value, read unrecorded); a traced one raises jax's
    ConcretizationTypeError, as jax.Array's methods do under a trace."""
    value = _current_value(self)
    if isinstance(value, jax.core.Tracer):
        kind = "tj.Variable" if isinstance(self, Variable) else "tj.Tensor"
        e = ConcretizationTypeError(
            f"{kind}.{what} needs the value on the host, but it is traced (inside tj.function or a jax transform): it "
            f"is not known until the compiled program runs. Return it from the function and call .{what} on the "
            "result, or compute with tj.numpy ops (tj.numpy.where rather than a Python if).")
        e.value = self
        try:
            raise e
        finally:
            e = None  # (the traceback keeps this frame: its locals must not keep the error, a reference cycle)
    return np.asarray(value)


def _current_value(self):
    """A Tensor's jax.Array, or a Variable's current value (read without recording: no gradient asked)."""
    if isinstance(self, Variable):
        with tape_set.stop_recording():
            return self.read_value().value
    return self.value


_PYTHON_SCALARS = ((jnp.bool_, bool), (jnp.integer, int), (jnp.floating, float), (jnp.complexfloating, complex))


def _item(self, *args):
    """As ``jax.Array.item``: the element (the only one, or the one ``args`` name, as NumPy's) as a Python
    ``bool``, ``int``, ``float`` or ``complex``; a size other than 1 without ``args`` raises NumPy's ValueError, a
    traced value jax's ConcretizationTypeError."""
    a = _host_array(self, "item()")
    v = a.item(*args)
    for kind, python in _PYTHON_SCALARS:
        if jnp.issubdtype(a.dtype, kind):
            return python(v)
    return v


def _tolist(self):
    """As ``jax.Array.tolist``: the value as nested Python lists of Python scalars (NumPy's ``tolist``); a traced
    value raises jax's ConcretizationTypeError."""
    return _host_array(self, "tolist()").tolist()


def _tobytes(self, order="C"):
    """As ``jax.Array.tobytes``: the value's bytes (NumPy's ``tobytes``, in ``order`` 'C' or 'F'); a traced value
    raises jax's ConcretizationTypeError."""
    return _host_array(self, "tobytes()").tobytes(order=order)


def _block_until_ready(self):
    """As ``jax.Array.block_until_ready``: waits until the value is computed, and returns this Tensor (this
    Variable). A traced value (inside tj.function) has nothing to wait for."""
    value = _current_value(self)
    if not isinstance(value, jax.core.Tracer):
        value.block_until_ready()
    return self


def _forward_query(name: str, is_property: bool):
    """A placement query of jax.Array asked of the value (``devices()``, ``committed``...)."""
    doc = f"As ``jax.Array.{name}``, of the value (a Variable's current value)."
    if is_property:
        return property(lambda self: getattr(_current_value(self), name), doc=doc)
    return _as_jax_method(lambda self: getattr(_current_value(self), name)(), name, doc)


def _contains(self, other):
    """``x in t`` as TF's tensors, which leave it to Python's iteration protocol: whether an element along the first
    axis equals ``x`` (``any(e is x or bool(e == x) for e in t)``), so ``None in t`` is False and a row that compares
    to several values raises ValueError; a 0-d tensor is not iterable (TypeError). A Python bool, not recorded."""
    if not self.shape:
        raise TypeError("'in' needs an iterable: a 0-d tj.Tensor has no elements to search (as TF)")
    scalar = isinstance(other, (bool, int, float, complex, np.generic)) or (
        isinstance(other, (Tensor, Variable)) and not other.shape)
    if scalar and len(self.shape) == 1:  # (one comparison for all the elements, not one op per element)
        eq = self == other
        return bool(np.any(np.asarray(eq))) if isinstance(eq, Tensor) else bool(eq)
    return any(e is other or bool(e == other) for e in self)


def _jax_array_api() -> dict:
    methods = {n: _array_method(n) for n in (
        "all", "any", "argmax", "argmin", "argpartition", "argsort", "choose", "clip", "copy", "cumprod", "cumsum",
        "diagonal", "dot", "nonzero", "ptp", "repeat", "round", "searchsorted", "sort", "std", "var", "swapaxes",
        "take", "trace")}
    methods.update({
        "compress": _as_jax_method(_compress, "compress", "As ``jax.Array.compress``: ``tj.numpy.compress(condition, "
                                   "self, axis, ...)``, a recorded op."),
        "item": _as_jax_method(_item, "item", _item.__doc__),
        "tolist": _as_jax_method(_tolist, "tolist", _tolist.__doc__),
        "tobytes": _as_jax_method(_tobytes, "tobytes", _tobytes.__doc__),
        "block_until_ready": _as_jax_method(_block_until_ready, "block_until_ready", _block_until_ready.__doc__),
        "mT": property(lambda self: tnp.matrix_transpose(self),
                       doc="As ``jax.Array.mT``: the transpose of the last two axes (``tj.numpy.matrix_transpose``), "
                           "a recorded op."),
        "nbytes": property(lambda self: self.size * self.dtype.itemsize,
                           doc="As ``jax.Array.nbytes``: the bytes of the elements (``size * itemsize``)."),
        "itemsize": property(lambda self: self.dtype.itemsize,
                             doc="As ``jax.Array.itemsize``: the bytes of one element."),
        "at": property(tnp.at, doc="As ``jax.Array.at``: ``t.at[index].set(values)``, ``.add``, ``.subtract``, "
                                   "``.multiply``/``.mul``, ``.divide``, ``.power``, ``.min``, ``.max``, ``.get()``, "
                                   "``.apply(func)`` return a new Tensor (a Variable is read, not assigned), recorded "
                                   "with its gradient (``tj.numpy.at``)."),
    })
    for name in ("devices", "is_ready"):
        methods[name] = _forward_query(name, False)
    for name in ("committed", "is_fully_addressable", "is_fully_replicated", "addressable_shards",
                 "__cuda_array_interface__"):
        methods[name] = _forward_query(name, True)
    # DLPack export (torch.from_dlpack(t), np.from_dlpack(t)): the value's, as jax.Array's
    methods["__dlpack__"] = _as_jax_method(lambda self, *a, **kw: _current_value(self).__dlpack__(*a, **kw),
                                           "__dlpack__", "As ``jax.Array.__dlpack__``, of the value.")
    methods["__dlpack_device__"] = _forward_query("__dlpack_device__", False)
    methods["__array_namespace__"] = _as_jax_method(_array_namespace, "__array_namespace__",
                                                    "As ``jax.Array.__array_namespace__``: ``tj.numpy``, the Array "
                                                    "API's functions on Tensors.")
    methods["__contains__"] = _contains
    return methods


def install() -> None:
    # binary operators: (function, name of its reflected method); the reflected ones raise for what they cannot
    # convert (Python has tried the other operand's own method already), as TF's
    binary = {
        "add": (tnp.add, "__radd__"), "sub": (tnp.subtract, "__rsub__"), "mul": (tnp.multiply, "__rmul__"),
        "truediv": (tnp.divide, "__rtruediv__"), "floordiv": (tnp.floor_divide, "__rfloordiv__"),
        "mod": (tnp.mod, "__rmod__"), "pow": (tnp.power, "__rpow__"), "divmod": (tnp.divmod, "__rdivmod__"),
        "lshift": (tnp.left_shift, "__rlshift__"), "rshift": (tnp.right_shift, "__rrshift__"),
        "matmul": (tnp.matmul, "__rmatmul__"),
        # bitwise, as TF and NumPy: logical on bool tensors, bitwise on ints (never a bool result for ints)
        "and": (tnp.bitwise_and, "__rand__"), "or": (tnp.bitwise_or, "__ror__"), "xor": (tnp.bitwise_xor, "__rxor__"),
    }
    ops = {}
    for name, (f, reflected) in binary.items():
        ops[f"__{name}__"] = _deferring(f, f"__{name}__", reflected)
        ops[reflected] = _swap(f)
    ops.update({
        "__neg__": tnp.negative, "__pos__": lambda self: self, "__abs__": tnp.abs,
        # (comparisons defer to an operand whose type defines the reflected comparison, as jax.Array's)
        "__lt__": _deferring(tnp.less, "__lt__", "__gt__"),
        "__le__": _deferring(tnp.less_equal, "__le__", "__ge__"),
        "__gt__": _deferring(tnp.greater, "__gt__", "__lt__"),
        "__ge__": _deferring(tnp.greater_equal, "__ge__", "__le__"),
        "__eq__": _tensor_eq(False), "__ne__": _tensor_eq(True), "__invert__": tnp.bitwise_not,
        "__getitem__": tnp.getitem,
        "reshape": _method(lambda self, *shape, **kw: tnp.reshape(self, shape[0] if len(shape) == 1 else shape, **kw),
                           "reshape", "``tj.numpy.reshape``, the shape given as one tuple or as ints."),
        "astype": tnp.astype,
        "sum": _method_reduce("sum"), "mean": _method_reduce("mean"),
        "max": _method_reduce("max"), "min": _method_reduce("min"), "prod": _method_reduce("prod"),
        "transpose": _method(lambda self, *axes: tnp.transpose(self, (axes[0] if len(axes) == 1 else axes) or None),
                             "transpose", "``tj.numpy.transpose``, the axes given as one tuple or as ints (none: reversed)."),
        "squeeze": _method(lambda self, axis=None: tnp.squeeze(self, axis), "squeeze", "``tj.numpy.squeeze``."),
        "flatten": tnp.ravel, "ravel": tnp.ravel,
        # round(t), round(t, 2): a Tensor rounded half to even, of t's dtype, as jax.Array's and TF's numpy
        # behaviour (tnp.around; TF's plain tensors raise an AttributeError asking to enable it)
        "__round__": lambda self, ndigits=None: tnp.round(self, decimals=0 if ndigits is None else ndigits),
        "T": property(lambda self: tnp.transpose(self), doc="The transpose (axes reversed): a recorded op."),
        # as jax.Array's: the complex parts, recorded
        "real": property(tnp.real), "imag": property(tnp.imag), "conj": tnp.conj, "conjugate": tnp.conj,
        **_jax_array_api(),
    })
    for cls in (Tensor, Variable):
        for name, f in ops.items():
            setattr(cls, name, f)
    # (+v is the variable's value now, a Tensor: the variable itself would follow later assignments; TF's
    # variables have no unary +)
    Variable.__pos__ = lambda self: self.read_value()
    Variable.__getitem__ = _variable_getitem
    Variable.sparse_read = _sparse_read
    Variable.gather_nd = _gather_nd
