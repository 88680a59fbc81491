"""Python operators and array methods of Tensor and Variable, as recorded ops."""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor, Variable
from . import numpy as tnp


def _swap(f):
    return lambda self, other: f(other, self)


def _method_reduce(name: str):
    # (looked up when called: the public function, whose errors name a traced argument, ops/api.py accept_name)
    def m(self, axis=None, keepdims=False, **kw):
        return getattr(tnp, name)(self, axis=axis, keepdims=keepdims, **kw)
    return m


def _tensor_eq(negate: bool):
    """``Tensor.__eq__``/``__ne__`` as TF's (``tensor_equals``): ``t == None`` is False and ``t != None`` True
    (Python code compares with None, and ``x in [None, ...]`` does); shapes that do not broadcast give a
    scalar False (True for ``!=``), as TF's ``equal(..., incompatible_shape_error=False)``. ``tj.numpy.equal``
    raises for them, as ``tf.equal``; a Variable compared with None raises, as TF's."""
    f = tnp.not_equal if negate else tnp.equal

    def cmp(self, other):
        if other is None and not isinstance(self, Variable):
            return negate
        oshape = getattr(other, "shape", None)  # (Tensors, Variables, arrays; checked only where shapes differ)
        if oshape is not None and tuple(oshape) != tuple(self.shape):
            try:
                np.broadcast_shapes(tuple(self.shape), tuple(oshape))
            except ValueError:
                return tnp.asarray(negate)
        return f(self, other)
    return cmp


def install() -> None:
    ops = {
        "__add__": tnp.add, "__radd__": _swap(tnp.add),
        "__sub__": tnp.subtract, "__rsub__": _swap(tnp.subtract),
        "__mul__": tnp.multiply, "__rmul__": _swap(tnp.multiply),
        "__truediv__": tnp.divide, "__rtruediv__": _swap(tnp.divide),
        "__floordiv__": tnp.floor_divide, "__rfloordiv__": _swap(tnp.floor_divide),
        "__mod__": tnp.mod, "__rmod__": _swap(tnp.mod),
        "__pow__": tnp.power, "__rpow__": _swap(tnp.power),
        "__matmul__": tnp.matmul, "__rmatmul__": _swap(tnp.matmul),
        "__neg__": tnp.negative, "__pos__": lambda self: self, "__abs__": tnp.abs,
        "__lt__": tnp.less, "__le__": tnp.less_equal, "__gt__": tnp.greater, "__ge__": tnp.greater_equal,
        "__eq__": _tensor_eq(False), "__ne__": _tensor_eq(True),
        # bitwise, as TF and NumPy: logical on bool tensors, bitwise on ints (never a bool result for ints)
        "__and__": tnp.bitwise_and, "__rand__": _swap(tnp.bitwise_and),
        "__or__": tnp.bitwise_or, "__ror__": _swap(tnp.bitwise_or),
        "__xor__": tnp.bitwise_xor, "__rxor__": _swap(tnp.bitwise_xor), "__invert__": tnp.bitwise_not,
        "__getitem__": tnp.getitem,
        "reshape": lambda self, *shape, **kw: tnp.reshape(self, shape[0] if len(shape) == 1 else shape, **kw),
        "astype": tnp.astype,
        "sum": _method_reduce("sum"), "mean": _method_reduce("mean"),
        "max": _method_reduce("max"), "min": _method_reduce("min"), "prod": _method_reduce("prod"),
        "transpose": lambda self, *axes: tnp.transpose(self, (axes[0] if len(axes) == 1 else axes) or None),
        "squeeze": lambda self, axis=None: tnp.squeeze(self, axis), "flatten": tnp.ravel, "ravel": tnp.ravel,
        # round(t), round(t, 2): a Tensor rounded half to even, of t's dtype, as jax.Array's and TF's numpy
        # behaviour (tnp.around; TF's plain tensors raise an AttributeError asking to enable it)
        "__round__": lambda self, ndigits=None: tnp.round(self, decimals=0 if ndigits is None else ndigits),
        "T": property(lambda self: tnp.transpose(self)),
        # as jax.Array's: the complex parts, recorded
        "real": property(tnp.real), "imag": property(tnp.imag), "conj": tnp.conj, "conjugate": tnp.conj,
    }
    for cls in (Tensor, Variable):
        for name, f in ops.items():
            setattr(cls, name, f)
