"""tapejax: TensorFlow's eager autodiff semantics (GradientTape, ForwardAccumulator, custom gradients)
over JAX arrays, with every numeric kernel jit-compiled."""
from . import requirements as _requirements  # noqa: F401  (first: refuses a jax older than tapejax needs)
from .tensor import Tensor, TensorShape, Variable, constant, convert_to_tensor, name_scope
from . import ops as _ops  # noqa: F401  (installs the Tensor operators)
from . import deferred as _deferred  # noqa: F401  (installs deferred execution and replay)
from . import interrupts as _interrupts  # noqa: F401  (a Ctrl-C that hits a Tensor's finalizer is raised again)
from .ops import numpy
from .ops import nn
from .ops import random
import sys as _sys

# `import tapejax.numpy as tnp` / `from tapejax.nn import relu` work like jax.numpy / jax.nn.
_sys.modules[__name__ + ".numpy"] = numpy
_sys.modules[__name__ + ".numpy.linalg"] = numpy.linalg
_sys.modules[__name__ + ".numpy.fft"] = numpy.fft
_sys.modules[__name__ + ".nn"] = nn
_sys.modules[__name__ + ".nn.initializers"] = nn.initializers
_sys.modules[__name__ + ".random"] = random
from .ops.core import OpDef
from .ops.api import op, RegisterGradient
from .backprop import GradientTape, UnconnectedGradients
from .tape_set import stop_recording
from .forwardprop import ForwardAccumulator
from .custom_gradient import custom_gradient, recompute_grad, grad_pass_through, stop_gradient
from .config import config
from . import debug
from .graph.function import function, init_scope
from .graph.tensor_spec import TensorSpec


def identity(input, name=None):  # noqa: A002 (TF's argument name)
    """TF's ``tf.identity(input, name=None)``: a recorded copy of ``input`` (``name``: TF's op name, ignored). Of a
    value that is not a Tensor or Variable (a Python number, a NumPy array), the constant itself: inside a
    ``tj.function`` it stays known while tracing, so it may serve as a shape, as TF's folded constant does."""
    if not isinstance(input, (Tensor, Variable)):
        return constant(input)
    return numpy.copy(input)


from .graph.gradients import gradients, AggregationMethod
from .graph.differentiate import differentiate
from . import train
from .train import Module, optimizers, clip_by_norm, clip_by_global_norm

_sys.modules[__name__ + ".optimizers"] = optimizers  # `import tapejax.optimizers` works too

# TF's dtype names (`dtype=tj.float32`, `x.dtype == tj.int32`): tj.numpy's scalar types (JAX's, called as tj.numpy's),
# which compare equal to the arrays' NumPy dtypes.
from .ops.numpy import (bfloat16, bool_ as bool, complex64, complex128, float16, float32, float64,  # noqa: E402
                        int8, int16, int32, int64, uint8, uint16, uint32, uint64)
_DTYPE_NAMES = ("bfloat16", "bool", "complex64", "complex128", "float16", "float32", "float64", "int8", "int16",
                "int32", "int64", "uint8", "uint16", "uint32", "uint64")

newaxis = None  # TF's tf.newaxis (x[tj.newaxis, :]), as NumPy's and jax.numpy's

__version__ = "0.1.0"

__all__ = [
    "Tensor", "TensorShape", "Variable", "constant", "convert_to_tensor", "name_scope", "numpy", "nn", "random", "GradientTape", "UnconnectedGradients",
    "stop_recording", "config", "function", "TensorSpec", "init_scope", "identity", "gradients", "AggregationMethod", "differentiate", "OpDef", "op", "RegisterGradient", "ForwardAccumulator",
    "custom_gradient", "recompute_grad", "grad_pass_through", "stop_gradient", "debug",
    "train", "Module", "optimizers", "clip_by_norm", "clip_by_global_norm", "newaxis", *_DTYPE_NAMES,
]
