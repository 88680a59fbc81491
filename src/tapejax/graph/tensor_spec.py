"""``tj.TensorSpec`` and a ``tj.function``'s ``input_signature`` (TF's): the shape and dtype each argument
must have, what a call's arguments are converted to, and the errors TF gives for a call that does not fit."""
from __future__ import annotations

import inspect
from typing import Any, Optional, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from ..tensor import Tensor, TensorShape, Variable, convert_to_tensor


class TensorSpec:
    """The shape and dtype of a Tensor (TF's ``tf.TensorSpec``): ``shape`` may hold None for a size not fixed,
    or be None for any shape; ``dtype`` defaults to float32. Equal specs (shape, dtype and name) hash alike."""

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape: Any, dtype: Any = jnp.float32, name: Optional[str] = None) -> None:
        try:
            if dtype is None or dtype is int or dtype is complex:  # (TF refuses these; jnp.dtype would widen them)
                raise TypeError
            self._dtype = jnp.dtype(np.float32 if dtype is float else dtype)  # (a Python float is float32, as TF)
        except TypeError:
            raise TypeError(f"tj.TensorSpec: cannot convert {dtype!r} to a dtype; give one as jnp.float32 or "
                            "'float32'") from None
        if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
            shape = (int(shape),)  # (as TF: TensorSpec(3) is a vector of 3)
        self._shape = None if shape is None else TensorShape(shape)
        for d in self._shape or ():
            if d is not None and d < 0:
                raise ValueError(f"tj.TensorSpec: Dimension {d} must be >= 0 (shape {tuple(self._shape)}), as TF")
        self._name = name

    @classmethod
    def from_tensor(cls, tensor: Any, name: Optional[str] = None) -> "TensorSpec":
        """The spec of ``tensor``'s shape and dtype (a Tensor; also a Variable or an array, where TF takes only
        Tensors); ``ValueError`` for anything else, as TF."""
        if not isinstance(tensor, (Tensor, Variable, jax.Array, np.ndarray)):
            raise ValueError(f"tj.TensorSpec.from_tensor: `tensor` should be a tj.Tensor, but got type "
                             f"{type(tensor)}.")
        return cls(tuple(tensor.shape), tensor.dtype, name)

    @classmethod
    def from_spec(cls, spec: "TensorSpec", name: Optional[str] = None) -> "TensorSpec":
        """A copy of ``spec``, renamed if ``name`` is given (an empty name keeps the spec's, as TF)."""
        return cls(spec.shape, spec.dtype, name or spec.name)

    @property
    def value_type(self) -> type:
        """The Python type of the values this spec describes: ``tj.Tensor``."""
        return Tensor

    @property
    def shape(self) -> Optional[TensorShape]:
        """The shape (None entries: sizes not fixed), or None for any shape."""
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self) -> Optional[str]:
        return self._name

    def admits(self, array: Any) -> bool:
        """Whether an array (a Tensor's value) has exactly this spec's dtype and a shape it admits: the per-call
        check of a tj.function's input_signature (no TensorShape made); False sends the call to the full check."""
        if array.dtype != self._dtype:  # (a float64 spec under x64 off: not here, _fits canonicalizes when called)
            return False
        spec, shape = self._shape, array.shape  # (a TensorShape is a tuple)
        return spec is None or (len(spec) == len(shape) and all(s is None or s == d for s, d in zip(spec, shape)))

    def _fits(self, shape, dtype) -> bool:
        return (jax.dtypes.canonicalize_dtype(dtype) == jax.dtypes.canonicalize_dtype(self._dtype)
                and (self._shape is None or shape is None or self._shape.is_compatible_with(shape)))

    def is_compatible_with(self, other: Any) -> bool:
        """Whether a TensorSpec or Tensor ``other`` has this dtype and a shape this one admits. Anything else is
        not, as TF's: a Variable (TF's VariableSpec is another kind), a NumPy array, a Python number."""
        if isinstance(other, TensorSpec):
            return self._fits(other._shape, other._dtype)
        if isinstance(other, Tensor):
            return self._fits(tuple(other.shape), other.dtype)
        return False

    def conform(self, value: Any) -> Tensor:
        """``value`` as the Tensor this spec asks for: a Tensor (or a Variable's read) of this dtype, or a value
        converted to it (Python numbers, lists, arrays; as TF converts them). ``TypeError`` with TF's reason
        (``Can not cast ...``) for anything else, or a shape this spec does not admit."""
        if isinstance(value, (Tensor, Variable)):
            t = value.read_value() if isinstance(value, Variable) else value
        else:
            try:
                t = convert_to_tensor(value, jax.dtypes.canonicalize_dtype(self._dtype))  # (float64: x64's)
            except (TypeError, ValueError) as e:
                raise TypeError(f"Cannot convert {value!r} to a Tensor of dtype {self._dtype} ({e})") from None
        if not self._fits(tuple(t.shape), t.dtype):
            raise TypeError(f"Can not cast {TensorSpec.from_tensor(t)!r} to {self!r}")
        return t

    def is_subtype_of(self, other: Any) -> bool:
        """Whether every value of this spec is one of ``other`` (a TensorSpec, as TF's rule): the same dtype, a
        name that is ``other``'s or none, and a shape ``other`` admits (its None sizes, or None shape, admit any)."""
        if not isinstance(other, TensorSpec) or self._dtype != other._dtype:
            return False
        if self._name and self._name != other._name:
            return False
        if other._shape is None:
            return True
        return self._shape is not None and len(self._shape) == len(other._shape) and all(
            b is None or a == b for a, b in zip(self._shape, other._shape))

    def most_specific_common_supertype(self, others: Sequence[Any]) -> Optional["TensorSpec"]:
        """The narrowest spec that this one and each of ``others`` are subtypes of (sizes that differ become None;
        ranks that differ, or an unknown one, an unknown shape), or None if a dtype or name differs, as TF's."""
        others = list(others)
        if any(not isinstance(o, TensorSpec) or o._dtype != self._dtype or o._name != self._name for o in others):
            return None
        shapes = [self._shape] + [o._shape for o in others]
        if any(sh is None or len(sh) != len(self._shape) for sh in shapes):
            return TensorSpec(None, self._dtype, self._name)
        dims = [dim[0] if all(d == dim[0] for d in dim) else None for dim in zip(*shapes)]
        return TensorSpec(dims, self._dtype, self._name)

    def __reduce__(self):
        return (TensorSpec, (None if self._shape is None else tuple(self._shape), self._dtype, self._name))

    def __eq__(self, other: Any) -> bool:
        return (type(other) is TensorSpec and self._shape == other._shape and self._dtype == other._dtype
                and self._name == other._name)

    def __hash__(self) -> int:
        return hash((self._shape, self._dtype, self._name))

    def __repr__(self) -> str:
        shape = "<unknown>" if self._shape is None else repr(tuple(self._shape))
        return f"TensorSpec(shape={shape}, dtype={self._dtype.name}, name={self._name!r})"


def _specs_in(signature: Any) -> list:
    """The entries of a nested ``signature`` that are not TensorSpecs (lists, tuples and dicts nest)."""
    if isinstance(signature, TensorSpec):
        return []
    if isinstance(signature, (list, tuple)):
        return [bad for s in signature for bad in _specs_in(s)]
    if isinstance(signature, dict):
        return [bad for s in signature.values() for bad in _specs_in(s)]
    return [signature]


def check_input_signature(input_signature: Any) -> tuple:
    """``input_signature`` as a tuple, with TF's ``TypeError`` for one that is not a (nested) sequence of
    TensorSpecs."""
    if not isinstance(input_signature, (list, tuple)):
        raise TypeError(f"input_signature must be either a tuple or a list, got {type(input_signature)}.")
    bad = _specs_in(list(input_signature))
    if bad:
        raise TypeError(f"input_signature must be a possibly nested sequence of TensorSpec objects, got invalid "
                        f"args {bad} with types {[type(b) for b in bad]}.")
    return tuple(input_signature)


class SignatureBinding:
    """How calls of a function bind to its ``input_signature`` (as TF's): the first positional parameters each
    take a spec (a ``*args`` parameter the specs left over, as positional-only ``args_0``, ``args_1``...); the
    other parameters must have defaults: an array's (NumPy, JAX, a Tensor) gives its parameter the spec of its
    shape and dtype, any other is fixed (a call giving another value raises). ``bind`` returns the call's
    arguments converted to Tensors of the specs' shapes and dtypes."""

    def __init__(self, f_signature: inspect.Signature, input_signature: tuple) -> None:
        P = inspect.Parameter
        specs = list(input_signature)
        params, fixed = [], {}
        self._spec_of = {}
        var_positional = False
        for p in f_signature.parameters.values():
            if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD) and specs:
                self._spec_of[p.name] = specs.pop(0)
                params.append(p.replace(annotation=self._spec_of[p.name]))
            elif p.kind is P.VAR_POSITIONAL:
                var_positional = True
                for i in range(len(specs)):
                    name = f"{p.name}_{i}"
                    self._spec_of[name] = specs.pop(0)
                    params.append(P(name, P.POSITIONAL_ONLY, annotation=self._spec_of[name]))
            elif p.kind is P.VAR_KEYWORD:
                continue
            elif p.default is P.empty and p.kind is P.KEYWORD_ONLY:
                raise TypeError(f"Since input_signature is defined, keyword-only parameter `{p.name}` must have a "
                                "default value")
            elif p.default is P.empty:
                raise TypeError(f"input_signature missing type constraint for {p.name}")
            elif _is_array(p.default):  # (typed by its default's shape and dtype, as TF's; the default stays)
                self._spec_of[p.name] = TensorSpec(tuple(p.default.shape), p.default.dtype)
                params.append(p)
            else:
                fixed[p.name] = p.default
                params.append(p)
        if specs:
            raise TypeError(f"input_signature contains {len(specs)} extra type constraints.")
        if var_positional:  # (every positional parameter before them is positional-only too, as TF's)
            params = [p.replace(kind=P.POSITIONAL_ONLY) if p.kind is P.POSITIONAL_OR_KEYWORD else p for p in params]
        self._fixed = fixed
        self.signature = inspect.Signature(params)
        # The common call (a training step): every parameter a flat spec, given by position as a fitting Tensor
        flat = not fixed and all(isinstance(sp, TensorSpec) for sp in self._spec_of.values())
        self._flat_specs = tuple(self._spec_of.values()) if flat else None

    def bind(self, args: tuple, kwargs: dict) -> tuple:
        """``(args, kwargs)`` for the function: the spec'd arguments as Tensors; TF's ``TypeError`` for a call
        that does not fit (``Binding inputs to tj.function failed due to ...``)."""
        specs = self._flat_specs
        if specs is not None and not kwargs and len(args) == len(specs) and all(
                type(a) is Tensor and sp.admits(a._value) for a, sp in zip(args, specs)):
            return args, {}
        try:
            bound = self.signature.bind(*args, **kwargs)
            bound.apply_defaults()
            values = dict(bound.arguments)
            for name, default in self._fixed.items():
                if name in values and values[name] is not default and not _same_default(values[name], default):
                    raise TypeError(f"Can not cast {values[name]!r} to Literal[{default!r}]")
            for name, spec in self._spec_of.items():
                values[name] = _conform(spec, values[name])
        except TypeError as e:
            raise TypeError(f"Binding inputs to tj.function failed due to `{e}`. Received args: {args!r} and "
                            f"kwargs: {kwargs!r} for signature: {self.signature}.") from None
        out_args, out_kwargs = [], {}
        for p in self.signature.parameters.values():  # (in f's order: its positional ones, then its *args)
            if p.kind is p.KEYWORD_ONLY:
                out_kwargs[p.name] = values[p.name]
            else:
                out_args.append(values[p.name])
        return tuple(out_args), out_kwargs


def _is_array(value: Any) -> bool:
    """Whether ``value`` is a numeric array or scalar (NumPy, JAX, a Tensor): a default TF types by its spec."""
    return isinstance(value, (Tensor, jax.Array, np.ndarray, np.generic)) and np.dtype(value.dtype).kind in "biufc"


def _same_default(value: Any, default: Any) -> bool:
    """Whether ``value`` may stand for a fixed parameter's ``default``: a Python value equal to it (2 for 2.0, True
    for 1, as TF); never an array, Tensor or NumPy scalar (TF refuses those too)."""
    if hasattr(value, "shape"):
        return False
    try:
        return bool(value == default)
    except Exception:
        return False


def _conform(spec: Any, value: Any) -> Any:
    """``value`` shaped as the nested ``spec`` (lists, tuples, namedtuples, dicts; rebuilt as the spec's types, as
    TF: a namedtuple given for a plain tuple of specs comes in as a tuple), its leaves conformed to their specs."""
    if isinstance(spec, TensorSpec):
        return spec.conform(value)
    if isinstance(spec, dict):
        if not isinstance(value, dict) or set(value) != set(spec):
            raise TypeError(f"{value!r} has different keys than the signature's {spec!r}.")
        return type(spec)((k, _conform(spec[k], value[k])) for k in spec)  # (the signature's order, as TF's)
    kind = type(spec).__name__
    if hasattr(spec, "_fields") and type(value) is not type(spec):  # (a namedtuple: that very type, as TF)
        raise TypeError(f"Cannot cast {value!r} to type {type(spec)}.")
    if not isinstance(value, (list, tuple)) or isinstance(value, list) != isinstance(spec, list):
        raise TypeError(f"Can not cast {value!r} to {kind} type.")
    if len(value) != len(spec):
        raise TypeError(f"{value!r} has {len(value)} entries; the signature's {kind} has {len(spec)}.")
    items = [_conform(s, v) for s, v in zip(spec, value)]
    if isinstance(spec, list):
        return items
    return type(spec)(*items) if hasattr(spec, "_fields") else tuple(items)  # (the spec's type, as TF)
