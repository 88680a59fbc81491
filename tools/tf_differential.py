"""Differential test of tapejax against TensorFlow: every registered op with a TF counterpart, value for value.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python tools/tf_differential.py [--only NAME[,NAME...]] [--verbose]

For each case (an op, a TF counterpart, inputs) it compares

* the forward value (shape, dtype, values; NaN positions must match, infinities must match in sign);
* the reverse-mode gradient, ``tj.GradientTape`` vs ``tf.GradientTape``, with a non-trivial output gradient
  (random values; at corner inputs every third entry is 0, to exercise TF's ``mul_no_nan`` rules), and
  which gradients are ``None``;
* the forward-mode JVP, ``tj.ForwardAccumulator`` vs ``tf.autodiff.ForwardAccumulator``, with random tangents;

at ordinary inputs and at corner inputs (0, -0, negative, ties, inf, nan, very large and small values,
integer, float16 and complex64 dtypes, broadcasting and empty shapes). A second table checks the exception
raised for bad inputs where TF raises. Tolerances are dtype-aware (a few dozen ULPs, scaled by the largest
magnitude of the reference). It prints a table of mismatches, the ops skipped (no TF counterpart) and the
known, deliberate differences (``KNOWN``: why tapejax differs).

JAX runs with x64 off (API.md), so float64 inputs become float32 in tapejax: float64 is not compared.
"""
from __future__ import annotations

import argparse
import os
import sys
import traceback
import warnings
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import tapejax as tj  # noqa: E402
from tapejax.ops.core import registry  # noqa: E402

tnp = tj.numpy

F32, F16, C64, I32 = np.float32, np.float16, np.complex64, np.int32


# -- cases ----------------------------------------------------------------------------------------------------

@dataclass
class Case:
    """One comparison: ``tj_fn(*args)`` against ``tf_fn(*args)``; ``diff`` are the differentiable argument
    positions (default: every float/complex argument)."""
    op: str
    label: str
    tj_fn: Callable
    tf_fn: Callable
    args: Sequence[np.ndarray]
    diff: Optional[Sequence[int]] = None
    corner: bool = False
    checks: tuple = ("fwd", "grad", "jvp")
    tol: float = 1.0  # multiplies the dtype's tolerance (for long reductions / decompositions)


CASES: list = []
SKIPPED: dict = {}  # op -> why no TF comparison
KNOWN: dict = {}  # (op, case label prefix, check) -> why the mismatch is deliberate


def rng_for(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def rnd(shape, dtype=F32, lo=-1.5, hi=1.5, key=()):
    r = rng_for("rnd", shape, str(np.dtype(dtype)), lo, hi, key)
    x = r.uniform(lo, hi, size=shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * r.uniform(lo, hi, size=shape)
    if np.dtype(dtype).kind == "i":
        x = np.round(x * 3)
    return np.asarray(x, dtype)


CORNER_VALUES = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 3e38, -3e38, 1e-45, 88.0,
                 -88.0, 100.0, -100.0]


def corner(dtype=F32):
    vals = CORNER_VALUES
    if dtype == F16:
        vals = [v for v in vals if not (0 < abs(v) < 1e-7 or 1e5 < abs(v) < np.inf)] + [65504.0, 6e-8]
    return np.asarray(vals, dtype)


def add(op, label, tj_fn, tf_fn, *args, **kw):
    CASES.append(Case(op, label, tj_fn, tf_fn, [np.asarray(a) for a in args], **kw))


# elementwise unary ops: tj.numpy name -> TF function (None: no counterpart)
UNARY = {
    "negative": tf.math.negative, "exp": tf.math.exp, "log": tf.math.log, "log1p": tf.math.log1p,
    "expm1": tf.math.expm1, "sqrt": tf.math.sqrt, "rsqrt": tf.math.rsqrt, "square": tf.math.square,
    "reciprocal": tf.math.reciprocal, "tanh": tf.math.tanh, "sin": tf.math.sin, "cos": tf.math.cos,
    "tan": tf.math.tan, "arcsin": tf.math.asin, "arccos": tf.math.acos, "arctan": tf.math.atan,
    "sinh": tf.math.sinh, "cosh": tf.math.cosh, "arcsinh": tf.math.asinh, "arctanh": tf.math.atanh,
    "abs": tf.math.abs, "sign": tf.math.sign, "floor": tf.math.floor, "ceil": tf.math.ceil, "round": tf.math.round,
    "sigmoid": tf.math.sigmoid, "erf": tf.math.erf,
}
# no tf.math kernel: tf.experimental.numpy's (compositions of tf.math ops; trunc is its ``fix``)
_TFNP_UNARY = {"exp2": "exp2", "log2": "log2", "log10": "log10", "cbrt": "cbrt", "trunc": "fix", "positive": "positive"}
UNARY.update({name: getattr(tf.experimental.numpy, tf_name) for name, tf_name in _TFNP_UNARY.items()})

for name, tf_f in UNARY.items():
    tj_f = getattr(tnp, name)
    add(name, "f32 ordinary", tj_f, tf_f, rnd((3, 4), key=name, lo=0.1 if name in (
        "log", "log2", "log10", "sqrt", "rsqrt", "reciprocal") else -0.9,
        hi=0.9 if name in ("arcsin", "arccos", "arctanh") else 1.5))
    add(name, "f32 corner", tj_f, tf_f, corner(F32), corner=True)
    add(name, "f16 corner", tj_f, tf_f, corner(F16), corner=True)
    add(name, "f32 empty", tj_f, tf_f, np.zeros((0, 3), F32))
    add(name, "c64 ordinary", tj_f, tf_f, rnd((5,), C64, lo=-0.8, hi=0.8, key=name))
    add(name, "i32", tj_f, tf_f, np.asarray([-3, -1, 0, 2, 7], I32), checks=("fwd",))

# elementwise binary ops
BINARY = {
    "add": tf.math.add, "subtract": tf.math.subtract, "multiply": tf.math.multiply, "divide": tf.math.truediv,
    "power": tf.math.pow, "maximum": tf.math.maximum, "minimum": tf.math.minimum, "arctan2": tf.math.atan2,
    "mod": tf.math.floormod, "floor_divide": tf.math.floordiv,
}
_cx, _cy = np.meshgrid(np.asarray([0.0, -1.0, 2.0, -2.5, np.inf, -np.inf, np.nan, 1e-30], F32),
                       np.asarray([0.0, -1.0, 2.0, 0.5, np.inf, np.nan, -3.0], F32))
for name, tf_f in BINARY.items():
    tj_f = getattr(tnp, name)
    pos_y = name in ("divide", "mod", "floor_divide")
    add(name, "f32 same shape", tj_f, tf_f, rnd((3, 4), key=(name, 0)),
        rnd((3, 4), key=(name, 1), lo=0.3 if pos_y else -1.5))
    add(name, "f32 broadcast (3,1)x(4,)", tj_f, tf_f, rnd((3, 1), key=(name, 2), lo=0.2),
        rnd((4,), key=(name, 3), lo=0.3 if pos_y else -1.5))
    add(name, "f32 corner grid", tj_f, tf_f, _cx.ravel(), _cy.ravel(), corner=True)
    add(name, "f32 ties", tj_f, tf_f, np.asarray([1.0, 2.0, -3.0, 0.0], F32), np.asarray([1.0, 2.0, -3.0, 0.0], F32),
        corner=True)
    add(name, "f16", tj_f, tf_f, rnd((6,), F16, key=(name, 4), lo=0.2), rnd((6,), F16, key=(name, 5), lo=0.5))
    add(name, "f32 empty broadcast", tj_f, tf_f, np.zeros((0, 3), F32), np.ones((3,), F32))
    add(name, "i32", tj_f, tf_f, np.asarray([7, -7, 3, 0, -4], I32), np.asarray([2, 2, -3, 5, 3], I32), checks=("fwd",))
    if name not in ("maximum", "minimum", "arctan2", "mod", "floor_divide"):
        add(name, "c64", tj_f, tf_f, rnd((4,), C64, key=(name, 6)), rnd((4,), C64, key=(name, 7), lo=0.3))
# power: the integer-exponent op (x ** n with a Python int)
for n in (2, 3, 0, -2):
    add("integer_pow", f"f32 corner n={n}", lambda x, n=n: x ** n, lambda x, n=n: x ** n, corner(F32), corner=True)
# power with a scalar float exponent at 0 and negative bases (TF's PowGrad)
add("power", "f32 x**0.5 with zeros", lambda x: tnp.power(x, 0.5), lambda x: tf.pow(x, 0.5),
    np.asarray([0.0, 4.0, -1.0, 0.0], F32), corner=True)

# reductions: (tj function, TF function) with the same keyword signature
REDUCE = {
    "sum": (tnp.sum, tf.reduce_sum), "mean": (tnp.mean, tf.reduce_mean), "max": (tnp.max, tf.reduce_max),
    "min": (tnp.min, tf.reduce_min), "prod": (tnp.prod, tf.reduce_prod), "var": (tnp.var, tf.math.reduce_variance),
    "std": (tnp.std, tf.math.reduce_std),
    "logsumexp": (tj.nn.logsumexp, tf.reduce_logsumexp),
}
for name, (tj_r, tf_r) in REDUCE.items():
    def _mk(f, g, axis, keepdims):
        return (lambda x: f(x, axis=axis, keepdims=keepdims)), (lambda x: g(x, axis=axis, keepdims=keepdims))
    for axis, kd in ((None, False), (1, False), ((0, 2), True), (-1, True)):
        a, b = _mk(tj_r, tf_r, axis, kd)
        add(name, f"f32 axis={axis} keepdims={kd}", a, b, rnd((2, 3, 4), key=(name, str(axis))))
    a, b = _mk(tj_r, tf_r, 1, False)
    add(name, "f32 ties", a, b, np.asarray([[1.0, 3.0, 3.0, 2.0], [0.0, 0.0, 0.0, 0.0], [-1.0, -5.0, -5.0, 2.0]], F32),
        corner=True)
    add(name, "f32 zeros/inf/nan rows", a, b, np.asarray(
        [[0.0, 2.0, 3.0], [0.0, 0.0, 3.0], [np.inf, 1.0, 2.0], [np.nan, 1.0, 2.0], [-np.inf, -np.inf, 1.0],
         [1e30, 1e30, 1.0]], F32), corner=True)
    add(name, "f32 empty axis", a, b, np.zeros((2, 0), F32), checks=("fwd", "grad"))
    add(name, "f16", a, b, rnd((3, 5), F16, key=name))
    if name not in ("max", "min", "logsumexp"):
        add(name, "c64", a, b, rnd((3, 4), C64, key=name))
    if name in ("sum", "max", "min", "prod"):
        add(name, "i32", a, b, np.asarray([[1, -2, 3], [4, 0, -6]], I32), checks=("fwd",))
for name, tj_c, tf_c in (("cumsum", tnp.cumsum, tf.math.cumsum), ("cumprod", tnp.cumprod, tf.math.cumprod)):
    add(name, "f32 axis=1", lambda x, f=tj_c: f(x, axis=1), lambda x, f=tf_c: f(x, axis=1), rnd((3, 4), key=name))
    add(name, "f32 axis=0 with zeros", lambda x, f=tj_c: f(x, axis=0), lambda x, f=tf_c: f(x, axis=0),
        np.asarray([[1.0, 0.0], [0.0, 2.0], [3.0, 0.0], [2.0, 4.0]], F32), corner=True)
    add(name, "c64", lambda x, f=tj_c: f(x, axis=0), lambda x, f=tf_c: f(x, axis=0), rnd((4,), C64, key=name))
add("add_n", "f32 three", lambda *xs: tnp.add_n(xs), lambda *xs: tf.add_n(xs), rnd((3,), key=1), rnd((3,), key=2),
    rnd((3,), key=3))
add("euclidean_norm", "f32 fro", lambda x: tnp.linalg.norm(x), lambda x: tf.norm(x), rnd((3, 4), key="norm"))
add("euclidean_norm", "f32 axis=1", lambda x: tnp.linalg.norm(x, axis=1), lambda x: tf.norm(x, axis=1),
    rnd((3, 4), key="n2"))
add("euclidean_norm", "f32 zero vector", lambda x: tnp.linalg.norm(x, axis=1), lambda x: tf.norm(x, axis=1),
    np.asarray([[0.0, 0.0], [3.0, 4.0]], F32), corner=True)
add("norm", "f32 ord=1 axis=0 with zeros", lambda x: tnp.linalg.norm(x, ord=1, axis=0),
    lambda x: tf.norm(x, ord=1, axis=0), np.asarray([[0.0, 1.0, -2.0], [0.0, -3.0, 0.0]], F32), corner=True)
add("norm", "f32 ord=inf ties", lambda x: tnp.linalg.norm(x, ord=np.inf, axis=1),
    lambda x: tf.norm(x, ord=np.inf, axis=1), np.asarray([[1.0, -3.0, 3.0], [2.0, 2.0, 0.0]], F32), corner=True)
add("euclidean_norm", "c64 axis=1 (TF's complex result's real part)", lambda x: tnp.linalg.norm(x, axis=1),
    lambda x: tf.math.real(tf.norm(x, axis=1)), rnd((2, 3), C64, key="nc"))
add("norm", "c64 ord=1 axis=1 (TF's complex result's real part)", lambda x: tnp.linalg.norm(x, ord=1, axis=1),
    lambda x: tf.math.real(tf.norm(x, ord=1, axis=1)), rnd((2, 3), C64, key="nc"))
add("norm", "f32 matrix ord=1 and inf", lambda x: (tnp.linalg.norm(x, ord=1, axis=(0, 1)), tnp.linalg.norm(
    x, ord=np.inf, axis=(0, 1))), lambda x: (tf.norm(x, ord=1, axis=(0, 1)), tf.norm(x, ord=np.inf, axis=(0, 1))),
    np.asarray([[0.0, 1.0, -2.0], [0.0, -3.0, 1.0]], F32), corner=True)
add("norm", "f32 ord=3 axis=1", lambda x: tnp.linalg.norm(x, ord=3, axis=1), lambda x: tf.norm(x, ord=3, axis=1),
    rnd((2, 4), key="n3p"))
add("norm", "f32 ord=1 axis=0", lambda x: tnp.linalg.norm(x, ord=1, axis=0),
    lambda x: tf.norm(x, ord=1, axis=0), rnd((3, 4), key="n3"))

# matrix products
add("matmul", "f32 2d", tnp.matmul, tf.linalg.matmul, rnd((3, 4), key=1), rnd((4, 5), key=2))
add("matmul", "f32 batch broadcast", tnp.matmul, tf.linalg.matmul, rnd((2, 3, 4), key=3), rnd((4, 2), key=4))
add("matmul", "f32 corner", tnp.matmul, tf.linalg.matmul, np.asarray([[np.inf, 0.0], [1.0, np.nan]], F32),
    np.asarray([[0.0, 1.0], [2.0, 0.0]], F32), corner=True)
add("matmul", "c64", tnp.matmul, tf.linalg.matmul, rnd((2, 3), C64, key=5), rnd((3, 2), C64, key=6))
add("matmul", "f16", tnp.matmul, tf.linalg.matmul, rnd((2, 3), F16, key=5), rnd((3, 2), F16, key=6))
add("matmul", "f32 empty inner", tnp.matmul, tf.linalg.matmul, np.zeros((2, 0), F32), np.zeros((0, 3), F32))
add("matmul", "i32", tnp.matmul, tf.linalg.matmul, np.asarray([[1, 2], [3, 4]], I32), np.asarray([[1, 0], [2, 1]], I32),
    checks=("fwd",))
add("dot", "f32 vec", tnp.dot, lambda a, b: tf.tensordot(a, b, 1), rnd((4,), key=7), rnd((4,), key=8))
add("einsum", "f32 ij,jk->ik", lambda a, b: tnp.einsum("ij,jk->ik", a, b), lambda a, b: tf.einsum("ij,jk->ik", a, b),
    rnd((3, 4), key=9), rnd((4, 2), key=10))
add("einsum", "f32 bij,bjk->bik", lambda a, b: tnp.einsum("bij,bjk->bik", a, b),
    lambda a, b: tf.einsum("bij,bjk->bik", a, b), rnd((2, 3, 4), key=9), rnd((2, 4, 2), key=10))
add("outer", "f32", tnp.outer, lambda a, b: tf.tensordot(a, b, 0), rnd((3,), key=11), rnd((4,), key=12))

# activations and the softmax family
ACT = {
    "relu": (tj.nn.relu, tf.nn.relu), "relu6": (tj.nn.relu6, tf.nn.relu6),
    "gelu": (lambda x: tj.nn.gelu(x, approximate=True), lambda x: tf.nn.gelu(x, approximate=True)),
    "gelu exact": (lambda x: tj.nn.gelu(x, approximate=False), lambda x: tf.nn.gelu(x, approximate=False)),
    "log_sigmoid": (tj.nn.log_sigmoid, tf.math.log_sigmoid), "softplus": (tj.nn.softplus, tf.math.softplus),
    "silu": (tj.nn.silu, tf.nn.silu), "elu": (tj.nn.elu, tf.nn.elu),
    "leaky_relu": (tj.nn.leaky_relu, lambda x: tf.nn.leaky_relu(x, alpha=0.01)),
    "leaky_relu 0.2": (lambda x: tj.nn.leaky_relu(x, 0.2), lambda x: tf.nn.leaky_relu(x, alpha=0.2)),
    "soft_sign": (tj.nn.soft_sign, tf.nn.softsign), "identity": (tj.nn.identity, tf.identity),
}
for label, (tj_f, tf_f) in ACT.items():
    name = label.split()[0]
    add(name, f"{label}: f32 ordinary", tj_f, tf_f, rnd((3, 4), key=label, lo=-4, hi=4))
    add(name, f"{label}: f32 corner", tj_f, tf_f, np.concatenate([corner(F32), np.asarray([6.0, 0.0], F32)]),
        corner=True)
    add(name, f"{label}: f16", tj_f, tf_f, rnd((5,), F16, key=label, lo=-4, hi=4))
# activations TF has only in Keras (keras.activations on the TF backend: compositions of TF ops), at the kinks too
_KERAS_ACT = ("hard_sigmoid", "hard_silu", "hard_tanh", "mish", "squareplus", "sparse_plus", "sparse_sigmoid", "celu",
              "glu")
for name in _KERAS_ACT:
    tf_f = getattr(tf.keras.activations, name)
    add(name, "keras f32 ordinary", getattr(tj.nn, name), tf_f, rnd((3, 4), key=name, lo=-4, hi=4))
    add(name, "keras f32 kinks", getattr(tj.nn, name), tf_f,
        np.asarray([-3.0, 3.0, -1.0, 1.0, 0.0, -0.0, 6.0, -6.0, 2.5, -2.5], F32), corner=True)
SOFT = {"softmax": (tj.nn.softmax, tf.nn.softmax), "log_softmax": (tj.nn.log_softmax, tf.nn.log_softmax)}
# x.at[i].op(u) against tf.tensor_scatter_nd_*: repeated indices, and ties between x and u and among the u
_AT_IDX = np.asarray([1, 3, 1, 4], I32)
_AT = {"at_add": ("add", tf.tensor_scatter_nd_add), "at_subtract": ("subtract", tf.tensor_scatter_nd_sub),
       "at_set": ("set", tf.tensor_scatter_nd_update), "at_max": ("max", tf.tensor_scatter_nd_max),
       "at_min": ("min", tf.tensor_scatter_nd_min)}
for name, (method, tf_f) in _AT.items():
    tj_f = (lambda x, u, m=method: getattr(x.at[_AT_IDX], m)(u))
    tf_at = (lambda x, u, f=tf_f: f(x, _AT_IDX[:, None], u))
    add(name, "f32 repeated index", tj_f, tf_at, rnd((6,), key=name), rnd((4,), key=(name, 1)))
    if name != "at_set":  # (TF's update with repeated indices keeps an unspecified one of them)
        add(name, "f32 ties", tj_f, tf_at, np.asarray([0.5, 1.0, 2.0, -1.0, 3.0, 0.0], F32),
            np.asarray([1.0, -1.0, 1.0, 3.0], F32))
# jax.nn's attention (B, T, N, H) against keras.ops' on the TF backend: plain, causal, with a bias and a mask
_q, _k, _v = rnd((2, 3, 2, 4), key="q"), rnd((2, 5, 2, 4), key="k"), rnd((2, 5, 2, 4), key="v")
_bias = rnd((2, 2, 3, 5), key="bias")
_mask = np.asarray(np.random.default_rng(5).random((2, 2, 3, 5)) > 0.3)
_mask[0, 0, 1] = False  # (a query that sees no key: both libraries give it the plain mean of the values)
add("dot_product_attention", "f32", tj.nn.dot_product_attention,
    lambda q, k, v: tf.keras.ops.dot_product_attention(q, k, v), _q, _k, _v)
add("dot_product_attention", "f32 causal",
    lambda q, k, v: tj.nn.dot_product_attention(q, k[:, :3], v[:, :3], is_causal=True),
    lambda q, k, v: tf.keras.ops.dot_product_attention(q, k[:, :3], v[:, :3], is_causal=True), _q, _k, _v)
add("dot_product_attention", "f32 bias and mask",
    lambda q, k, v, b: tj.nn.dot_product_attention(q, k, v, bias=b, mask=_mask, scale=0.3),
    lambda q, k, v, b: tf.keras.ops.dot_product_attention(q, k, v, bias=b, mask=_mask, scale=0.3), _q, _k, _v, _bias)
add("at_get", "f32 repeated index", lambda x: x.at[_AT_IDX].get(), lambda x: tf.gather(x, _AT_IDX), rnd((6,), key="g"))
for name, (tj_f, tf_f) in SOFT.items():
    add(name, "f32 last axis", tj_f, tf_f, rnd((3, 5), key=name, lo=-3, hi=3))
    add(name, "f32 axis=0", lambda x, f=tj_f: f(x, axis=0), lambda x, f=tf_f: f(x, axis=0), rnd((3, 5), key=name))
    add(name, "f32 ties/large", tj_f, tf_f, np.asarray([[1.0, 1.0, 1.0], [1e30, 1e30, 0.0], [-1e30, 0.0, 0.0],
                                                       [88.0, -88.0, 0.0]], F32), corner=True)
    add(name, "f32 inf/nan", tj_f, tf_f, np.asarray([[np.inf, 0.0, 1.0], [np.nan, 0.0, 1.0], [-np.inf, 0.0, 1.0]],
                                                    F32), corner=True)
    add(name, "f16", tj_f, tf_f, rnd((2, 4), F16, key=name))
add("one_hot", "i32", lambda i: tj.nn.one_hot(i, 4), lambda i: tf.one_hot(i, 4), np.asarray([0, 3, -1, 5, 1], I32),
    checks=("fwd",))

_lab = rnd((3, 5), key="lab", lo=0, hi=1)
_lab = _lab / _lab.sum(-1, keepdims=True)
add("softmax_cross_entropy_with_logits", "f32", lambda l, z: tj.nn.softmax_cross_entropy_with_logits(l, z),
    lambda l, z: tf.nn.softmax_cross_entropy_with_logits(l, z), _lab, rnd((3, 5), key="z", lo=-3, hi=3))
add("softmax_cross_entropy_with_logits", "f32 labels not summing to 1",
    lambda l, z: tj.nn.softmax_cross_entropy_with_logits(l, z),
    lambda l, z: tf.nn.softmax_cross_entropy_with_logits(l, z), _lab * 2.0, rnd((3, 5), key="z2"))
add("softmax_cross_entropy_with_logits", "f32 axis=0",
    lambda l, z: tj.nn.softmax_cross_entropy_with_logits(l, z, axis=0),
    lambda l, z: tf.nn.softmax_cross_entropy_with_logits(l, z, axis=0), _lab.T.copy(), rnd((5, 3), key="z3"))
add("softmax_cross_entropy_with_logits", "f32 large logits",
    lambda l, z: tj.nn.softmax_cross_entropy_with_logits(l, z),
    lambda l, z: tf.nn.softmax_cross_entropy_with_logits(l, z), np.asarray([[1.0, 0, 0], [0, 0, 1.0]], F32),
    np.asarray([[1e4, 0.0, -1e4], [1e4, 0.0, -1e4]], F32), corner=True)
add("sparse_softmax_cross_entropy_with_logits", "f32",
    lambda l, z: tj.nn.sparse_softmax_cross_entropy_with_logits(l, z),
    lambda l, z: tf.nn.sparse_softmax_cross_entropy_with_logits(l, z), np.asarray([0, 4, 2], I32),
    rnd((3, 5), key="sz", lo=-3, hi=3))
add("sparse_softmax_cross_entropy_with_logits", "f32 large logits",
    lambda l, z: tj.nn.sparse_softmax_cross_entropy_with_logits(l, z),
    lambda l, z: tf.nn.sparse_softmax_cross_entropy_with_logits(l, z), np.asarray([0, 2], I32),
    np.asarray([[1e4, 0.0, -1e4], [1e4, 0.0, -1e4]], F32), corner=True)

# convolution, pooling, normalization
add("conv", "f32 NHWC SAME stride 2", lambda x, w: tj.nn.conv(x, w, (2, 2), "SAME", dimension_numbers=(
    "NHWC", "HWIO", "NHWC")), lambda x, w: tf.nn.conv2d(x, w, 2, "SAME"), rnd((2, 5, 5, 3), key="cx"),
    rnd((3, 3, 3, 4), key="cw"), tol=4)
add("conv", "f32 NHWC VALID dilated", lambda x, w: tj.nn.conv(x, w, (1, 1), "VALID", rhs_dilation=(2, 2),
    dimension_numbers=("NHWC", "HWIO", "NHWC")), lambda x, w: tf.nn.conv2d(x, w, 1, "VALID", dilations=2),
    rnd((1, 6, 6, 2), key="cx2"), rnd((2, 2, 2, 3), key="cw2"), tol=4, checks=("fwd", "jvp"))  # TF CPU: no backprop
add("conv", "f32 NHWC VALID stride 1", lambda x, w: tj.nn.conv(x, w, (1, 1), "VALID", dimension_numbers=(
    "NHWC", "HWIO", "NHWC")), lambda x, w: tf.nn.conv2d(x, w, 1, "VALID"), rnd((1, 6, 6, 2), key="cx3"),
    rnd((2, 2, 2, 3), key="cw3"), tol=4)
add("max_pool", "f32 2x2/2 VALID", lambda x: tj.nn.max_pool(x, (2, 2), (2, 2)),
    lambda x: tf.nn.max_pool2d(x, 2, 2, "VALID"), rnd((2, 4, 4, 3), key="mp"))
add("max_pool", "f32 3x3/1 SAME", lambda x: tj.nn.max_pool(x, (3, 3), (1, 1), "SAME"),
    lambda x: tf.nn.max_pool2d(x, 3, 1, "SAME"), rnd((1, 5, 5, 2), key="mp2"))
_ties = np.zeros((1, 4, 4, 1), F32)
_ties[0, 1:3, 1:3, 0] = 1.0
add("max_pool", "f32 ties 2x2/2", lambda x: tj.nn.max_pool(x, (2, 2), (2, 2)),
    lambda x: tf.nn.max_pool2d(x, 2, 2, "VALID"), _ties, corner=True)
add("max_pool", "f32 ties 2x2/1 overlapping", lambda x: tj.nn.max_pool(x, (2, 2), (1, 1)),
    lambda x: tf.nn.max_pool2d(x, 2, 1, "VALID"), np.ones((1, 3, 3, 1), F32), corner=True)
add("avg_pool", "f32 2x2/2 VALID", lambda x: tj.nn.avg_pool(x, (2, 2), (2, 2)),
    lambda x: tf.nn.avg_pool2d(x, 2, 2, "VALID"), rnd((2, 4, 4, 3), key="ap"))
add("avg_pool", "f32 3x3/1 SAME", lambda x: tj.nn.avg_pool(x, (3, 3), (1, 1), "SAME", count_include_pad=False),
    lambda x: tf.nn.avg_pool2d(x, 3, 1, "SAME"), rnd((1, 5, 5, 2), key="ap2"))


def _tf_batch_norm(x, s, o):
    y, m, v = tf.compat.v1.nn.fused_batch_norm(x, s, o, epsilon=1e-3, is_training=True)
    return y, m, v


add("batch_norm", "f32 NHWC y only", lambda x, s, o: tj.nn.batch_norm(x, s, o, epsilon=1e-3)[0],
    lambda x, s, o: _tf_batch_norm(x, s, o)[0], rnd((2, 3, 3, 4), key="bn"), rnd((4,), key="bs", lo=0.5),
    rnd((4,), key="bo"), tol=8)
add("batch_norm", "f32 NHWC all three outputs", lambda x, s, o: tj.nn.batch_norm(x, s, o, epsilon=1e-3),
    _tf_batch_norm, rnd((2, 3, 3, 4), key="bn"), rnd((4,), key="bs", lo=0.5), rnd((4,), key="bo"), tol=8)


def _tf_layer_norm(x, s, o):  # Keras LayerNormalization's formula over the last axis (no TF fused op)
    m, v = tf.nn.moments(x, axes=[-1], keepdims=True)
    return tf.nn.batch_normalization(x, m, v, o, s, 1e-5)


add("layer_norm", "f32 last axis (tf.nn.moments + batch_normalization)",
    lambda x, s, o: tj.nn.layer_norm(x, s, o), _tf_layer_norm, rnd((3, 5), key="ln"), rnd((5,), key="ls", lo=0.5),
    rnd((5,), key="lo"), tol=8)
add("layer_norm", "f32 a constant row (variance 0)", lambda x, s, o: tj.nn.layer_norm(x, s, o), _tf_layer_norm,
    np.asarray([[2.0, 2.0, 2.0, 2.0, 2.0], [0.0, 0.0, 0.0, 0.0, 0.0], [1.0, -1.0, 3.0, 0.5, 2.0]], F32),
    rnd((5,), key="ls", lo=0.5), rnd((5,), key="lo"), tol=8, corner=True)
add("batch_norm", "f32 NHWC a constant channel", lambda x, s, o: tj.nn.batch_norm(x, s, o, epsilon=1e-3)[0],
    lambda x, s, o: _tf_batch_norm(x, s, o)[0],
    np.concatenate([np.full((2, 3, 3, 1), 1.5, F32), rnd((2, 3, 3, 3), key="bnc")], axis=-1),
    rnd((4,), key="bs", lo=0.5), rnd((4,), key="bo"), tol=8, corner=True)

# shape ops, indexing, where / clip / cast / sort
X34 = rnd((3, 4), key="x34")
add("reshape", "f32", lambda x: tnp.reshape(x, (2, 6)), lambda x: tf.reshape(x, (2, 6)), X34)
add("reshape", "f32 empty", lambda x: tnp.reshape(x, (0, 5)), lambda x: tf.reshape(x, (0, 5)), np.zeros((5, 0), F32))
add("transpose", "f32 perm", lambda x: tnp.transpose(x, (1, 2, 0)), lambda x: tf.transpose(x, (1, 2, 0)),
    rnd((2, 3, 4), key="tp"))
add("transpose", "c64 (numpy transpose, no conjugation)", tnp.transpose, tf.transpose, rnd((2, 3), C64, key="tpc"))
add("broadcast_to", "f32", lambda x: tnp.broadcast_to(x, (2, 3, 4)), lambda x: tf.broadcast_to(x, (2, 3, 4)),
    rnd((3, 1), key="bt"))
add("concatenate", "f32 axis=1", lambda a, b: tnp.concatenate([a, b], axis=1), lambda a, b: tf.concat([a, b], 1),
    rnd((2, 3), key="c1"), rnd((2, 1), key="c2"))
add("concatenate", "f32 with empty", lambda a, b: tnp.concatenate([a, b], axis=0), lambda a, b: tf.concat([a, b], 0),
    rnd((2, 3), key="c3"), np.zeros((0, 3), F32))
add("stack", "f32 axis=1", lambda a, b: tnp.stack([a, b], axis=1), lambda a, b: tf.stack([a, b], 1),
    rnd((2, 3), key="s1"), rnd((2, 3), key="s2"))
add("split", "f32 3 sections", lambda x: tnp.split(x, 3, axis=1), lambda x: tf.split(x, 3, axis=1),
    rnd((2, 6), key="sp"))
add("split", "f32 sizes", lambda x: tnp.split(x, [1, 3], axis=0), lambda x: tf.split(x, [1, 2, 2], axis=0),
    rnd((5, 2), key="sp2"))
add("take", "f32 gather repeated", lambda x: tnp.take(x, np.asarray([0, 2, 2, -1]), axis=0),
    lambda x: tf.gather(x, [0, 2, 2, 3], axis=0), rnd((4, 3), key="tk"))
add("take", "f32 gather axis=1 2-d indices", lambda x: tnp.take(x, np.asarray([[1, 0], [2, 2]]), axis=1),
    lambda x: tf.gather(x, [[1, 0], [2, 2]], axis=1), rnd((4, 3), key="tk2"))
add("take_along_axis", "f32", lambda x: tnp.take_along_axis(x, np.asarray([[0, 1], [3, 3], [2, 0]]), axis=1),
    lambda x: tf.gather(x, [[0, 1], [3, 3], [2, 0]], axis=1, batch_dims=1), rnd((3, 4), key="taa"))
add("getitem", "f32 basic", lambda x: x[1:, ::2], lambda x: x[1:, ::2], X34)
add("getitem", "f32 int and newaxis", lambda x: x[..., None, -1], lambda x: x[..., None, -1], X34)
add("getitem", "f32 advanced repeated", lambda x: x[np.asarray([0, 2, 0])], lambda x: tf.gather(x, [0, 2, 0]), X34)
add("getitem", "f32 boolean mask", lambda x: x[np.asarray([True, False, True])],
    lambda x: tf.boolean_mask(x, [True, False, True]), X34)
add("pad", "f32 constant", lambda x: tnp.pad(x, ((1, 2), (0, 1))), lambda x: tf.pad(x, ((1, 2), (0, 1))), X34)
add("pad", "f32 constant value", lambda x: tnp.pad(x, ((1, 0), (2, 1)), constant_values=3.0),
    lambda x: tf.pad(x, ((1, 0), (2, 1)), constant_values=3.0), X34)
add("pad", "f32 reflect", lambda x: tnp.pad(x, ((1, 1), (2, 2)), mode="reflect"),
    lambda x: tf.pad(x, ((1, 1), (2, 2)), mode="REFLECT"), X34)
add("pad", "f32 symmetric", lambda x: tnp.pad(x, ((1, 1), (2, 2)), mode="symmetric"),
    lambda x: tf.pad(x, ((1, 1), (2, 2)), mode="SYMMETRIC"), X34)
add("tile", "f32", lambda x: tnp.tile(x, (2, 3)), lambda x: tf.tile(x, (2, 3)), X34)
add("repeat", "f32 axis=1", lambda x: tnp.repeat(x, 2, axis=1), lambda x: tf.repeat(x, 2, axis=1), X34)
add("repeat", "f32 flattened", lambda x: tnp.repeat(x, 2), lambda x: tf.repeat(x, 2), X34)
add("flip", "f32 axis=1", lambda x: tnp.flip(x, axis=1), lambda x: tf.reverse(x, [1]), X34)
add("sort", "f32", lambda x: tnp.sort(x), lambda x: tf.sort(x), X34)
add("sort", "f32 ties", lambda x: tnp.sort(x), lambda x: tf.sort(x), np.asarray([[2.0, 1.0, 2.0, 1.0, 2.0]], F32),
    corner=True)
add("sort", "f32 nan/inf", lambda x: tnp.sort(x), lambda x: tf.sort(x),
    np.asarray([[2.0, np.nan, -np.inf, 0.0, np.inf]], F32), corner=True)
add("sort", "f32 axis=0", lambda x: tnp.sort(x, axis=0), lambda x: tf.sort(x, axis=0), X34)
add("sort", "i32", lambda x: tnp.sort(x), lambda x: tf.sort(x), np.asarray([3, -1, 2, -1], I32), checks=("fwd",))
add("where", "f32 broadcast cond", lambda a, b: tnp.where(np.asarray([True, False, True, False]), a, b),
    lambda a, b: tf.where([True, False, True, False], a, b), rnd((3, 4), key="w1"), rnd((4,), key="w2"))
add("where", "f32 scalar branch", lambda a: tnp.where(np.asarray([True, False, True]), a, 0.0),
    lambda a: tf.where([True, False, True], a, 0.0), rnd((3,), key="w3"))
add("where", "f32 nan in unselected branch", lambda a, b: tnp.where(np.asarray([True, False]), a, b),
    lambda a, b: tf.where([True, False], a, b), np.asarray([1.0, np.nan], F32), np.asarray([np.inf, 2.0], F32),
    corner=True)
add("clip", "f32 bounds and ties", lambda x: tnp.clip(x, -1.0, 1.0), lambda x: tf.clip_by_value(x, -1.0, 1.0),
    np.asarray([-2.0, -1.0, 0.0, 1.0, 2.0, np.inf, -np.inf, np.nan], F32), corner=True)
add("clip", "f32 tensor bounds", tnp.clip, tf.clip_by_value, np.asarray([-2.0, -1.0, 0.0, 1.0, 2.0], F32),
    np.full((5,), -1.0, F32), np.full((5,), 1.0, F32), corner=True)
add("clip", "f32 broadcast scalar tensor bounds", tnp.clip, tf.clip_by_value, rnd((3, 4), key="cl", lo=-2, hi=2),
    np.asarray(-0.5, F32), np.asarray(0.7, F32))
add("clip", "i32", lambda x: tnp.clip(x, -1, 2), lambda x: tf.clip_by_value(x, -1, 2),
    np.asarray([-3, -1, 0, 2, 5], I32), checks=("fwd",))
add("astype", "f32->f16", lambda x: tnp.astype(x, np.float16), lambda x: tf.cast(x, tf.float16), X34)
add("astype", "f32->i32", lambda x: tnp.astype(x, np.int32), lambda x: tf.cast(x, tf.int32),
    np.asarray([-1.7, -0.5, 0.5, 1.7, 2.5], F32))
add("astype", "f32->c64", lambda x: tnp.astype(x, np.complex64), lambda x: tf.cast(x, tf.complex64), X34)
add("astype", "c64->f32", lambda x: tnp.astype(tnp.real(x) if hasattr(tnp, "real") else x, np.float32),
    lambda x: tf.cast(tf.math.real(x), tf.float32), rnd((3,), C64, key="ast"))

# linear algebra (well-conditioned inputs: distinct eigen/singular values)
_q, _ = np.linalg.qr(rng_for("orth").normal(size=(3, 3)))
SPD = np.asarray(_q @ np.diag([1.0, 2.5, 4.0]) @ _q.T, F32)
GEN = np.asarray(rng_for("gen").uniform(-1, 1, (3, 3)) + 3 * np.eye(3), F32)
add("linalg_solve", "f32", tnp.linalg.solve, tf.linalg.solve, GEN, rnd((3, 2), key="rhs"), tol=8)
add("linalg_inv", "f32", tnp.linalg.inv, tf.linalg.inv, GEN, tol=8)
add("linalg_det", "f32", tnp.linalg.det, tf.linalg.det, GEN, tol=8)
add("linalg_slogdet", "f32 negative det", lambda a: tuple(tnp.linalg.slogdet(a)), tf.linalg.slogdet, -GEN, tol=8)
add("linalg_cholesky", "f32 (symmetric input)", tnp.linalg.cholesky, tf.linalg.cholesky, SPD, tol=8)

# singular and rank-deficient matrices: TF raises for inv and solve (listed under TF REJECTS THE INPUT: tapejax
# gives inf, as jax.numpy, and raises nothing: a check would cost a device sync per call and cannot raise inside
# a compiled or replayed program); det's value is compared, TF's gradient raises there (MatrixInverse) where
# tapejax gives the adjugate, the derivative
SING = np.asarray([[1.0, 2.0], [2.0, 4.0]], F32)
add("linalg_inv", "f32 singular", tnp.linalg.inv, tf.linalg.inv, SING)
add("linalg_solve", "f32 singular", tnp.linalg.solve, tf.linalg.solve, SING, np.ones((2, 1), F32))
add("linalg_det", "f32 singular", tnp.linalg.det, tf.linalg.det, SING, checks=("fwd",))
add("linalg_pinv", "f32 rank-deficient", tnp.linalg.pinv, tf.linalg.pinv, SING, tol=16)
add("linalg_cholesky", "f32 not positive definite", tnp.linalg.cholesky, tf.linalg.cholesky,
    np.asarray([[1.0, 2.0], [2.0, 1.0]], F32), corner=True)
add("linalg_eigh", "f32 repeated eigenvalue (values)", lambda a: tnp.linalg.eigh(a)[0], lambda a: tf.linalg.eigh(a)[0],
    np.diag([1.0, 1.0, 2.0]).astype(F32), corner=True)
add("linalg_svd", "f32 repeated singular value", lambda a: tnp.linalg.svd(a, compute_uv=False),
    lambda a: tf.linalg.svd(a, compute_uv=False), np.diag([1.0, 1.0, 2.0]).astype(F32), corner=True)

def _sign_fixed(w, v, sign):  # eigenvectors with a positive first row: the sign LAPACK picks is arbitrary
    return w, v * sign(v[:1, :])


add("linalg_eigh", "f32 (lower triangle, signs fixed)", lambda a: _sign_fixed(*tnp.linalg.eigh(a), tnp.sign),
    lambda a: _sign_fixed(*tf.linalg.eigh(a), tf.sign), SPD + np.triu(rnd((3, 3), key="up"), 1), tol=16)
add("linalg_svd", "f32 values only", lambda a: tnp.linalg.svd(a, compute_uv=False),
    lambda a: tf.linalg.svd(a, compute_uv=False), rnd((4, 3), key="svd"), tol=16)
add("linalg_qr", "f32 reduced", lambda a: tuple(tnp.linalg.qr(a)), lambda a: tuple(tf.linalg.qr(a)),
    GEN, tol=16)
add("linalg_lstsq", "f32 solution", lambda a, b: tnp.linalg.lstsq(a, b)[0],
    lambda a, b: tf.linalg.lstsq(a, b, fast=True), rnd((5, 3), key="ls") + np.eye(5, 3, dtype=F32) * 3,
    rnd((5, 2), key="lsb"), tol=64)

# Fourier transforms (tf.signal works on the innermost axes; complex input for the complex transforms)
_FFT = {"fft_fft": ("fft", tf.signal.fft, 1), "fft_ifft": ("ifft", tf.signal.ifft, 1),
        "fft_fft2": ("fft2", tf.signal.fft2d, 2), "fft_ifft2": ("ifft2", tf.signal.ifft2d, 2),
        "fft_fftn": ("fftn", tf.signal.fft3d, 3), "fft_ifftn": ("ifftn", tf.signal.ifft3d, 3)}
_LAST3 = {"axes": (1, 2, 3)}  # (fftn's default is every axis; TF's fft3d takes the innermost three)
for _op, (_name, _tf_f, _rank) in _FFT.items():
    add(_op, f"c64 rank {_rank + 1}", lambda z, f=getattr(tnp.fft, _name), r=_rank: f(z, **(_LAST3 if r == 3 else {})),
        _tf_f, rnd((2, 3, 4, 5)[-_rank - 1:], C64, key=_op), tol=16)
_RFFT = {"fft_rfft": ("rfft", "irfft", tf.signal.rfft, tf.signal.irfft, 1),
         "fft_rfft2": ("rfft2", "irfft2", tf.signal.rfft2d, tf.signal.irfft2d, 2),
         "fft_rfftn": ("rfftn", "irfftn", tf.signal.rfft3d, tf.signal.irfft3d, 3)}
for _op, (_name, _iname, _tf_f, _tf_i, _rank) in _RFFT.items():
    _shape = (2, 3, 4, 6)[-_rank - 1:]
    # (TF 2.21 registers no gradient for RFFT3D / IRFFT3D: values only there)
    _checks = ("fwd",) if _rank == 3 else ("fwd", "grad", "jvp")
    add(_op, "f32 even length", lambda a, f=getattr(tnp.fft, _name), r=_rank: f(a, **(_LAST3 if r == 3 else {})),
        _tf_f, rnd(_shape, key=_op), tol=16, checks=_checks)
    add(_op, "f32 odd length, padded", lambda a, f=getattr(tnp.fft, _name), r=_rank: f(
        a, **({"n": 7} if r == 1 else {"s": (4,) * (r - 1) + (7,)})),
        lambda a, f=_tf_f, r=_rank: f(a, fft_length=(4,) * (r - 1) + (7,)), rnd(_shape[:-1] + (5,), key=_op), tol=16,
        checks=_checks)
    _half = (2, 3, 4, 4)[-_rank - 1:]  # the spectrum of a length-6 (even) or length-7 (odd) signal
    _iop = "fft_i" + _op[4:]
    add(_iop, "c64 even output length", lambda z, f=getattr(tnp.fft, _iname), r=_rank: f(
        z, **({"n": 6} if r == 1 else {"s": (4,) * (r - 1) + (6,)})),
        lambda z, f=_tf_i, r=_rank: f(z, fft_length=(4,) * (r - 1) + (6,)), rnd(_half, C64, key=_iop), tol=16,
        checks=_checks)
    add(_iop, "c64 odd output length", lambda z, f=getattr(tnp.fft, _iname), r=_rank: f(
        z, **({"n": 7} if r == 1 else {"s": (4,) * (r - 1) + (7,)})),
        lambda z, f=_tf_i, r=_rank: f(z, fft_length=(4,) * (r - 1) + (7,)), rnd(_half, C64, key=_iop + "odd"), tol=16,
        checks=_checks)
for _name in ("fft_hfft", "fft_ihfft"):
    SKIPPED[_name] = "no tf.signal counterpart"

# a general (non-symmetric) eigen-decomposition: sums of powers of the eigenvalues (LAPACK's order and an
# eigenvector's phase are arbitrary)
def _power_sums(w, m):
    return m.stack([m.reduce_sum(w ** k) if m is tf else tnp.sum(w ** k) for k in (1, 2, 3)])


add("linalg_eigvals", "f32 power sums", lambda a: _power_sums(tnp.linalg.eigvals(a), tnp),
    lambda a: _power_sums(tf.linalg.eigvals(a), tf), GEN, tol=16)
add("linalg_eigvals", "c64 power sums", lambda a: _power_sums(tnp.linalg.eigvals(a), tnp),
    lambda a: _power_sums(tf.linalg.eigvals(a), tf), rnd((3, 3), C64, key="eigc") + 3 * np.eye(3, dtype=C64), tol=16)
add("linalg_eig", "f32 eigenvalue power sums", lambda a: _power_sums(tnp.linalg.eig(a)[0], tnp),
    lambda a: _power_sums(tf.linalg.eig(a)[0], tf), GEN, tol=16)
add("polyval", "f32 coefficients and x", lambda p, x: tnp.polyval(p, x),
    lambda p, x: tf.math.polyval([p[i] for i in range(p.shape[0])], x), rnd((4,), key="pv"), rnd((5,), key="pvx"))

# the rest of the registry with a TF counterpart (tf.experimental.numpy is TF's own numpy, TF's gradients)
TFNP = tf.experimental.numpy
X33 = rnd((3, 3), key="x33")
add("angle", "c64", tnp.angle, tf.math.angle, rnd((5,), C64, key="angle"))
add("angle", "c64 corner (zero, axes, -0 imaginary)", tnp.angle, tf.math.angle,
    np.asarray([0, 1, -1, 1j, -1j, complex(-1, -0.0), complex(np.inf, 1), complex(1, np.nan)], C64), corner=True)
add("real", "c64", tnp.real, tf.math.real, rnd((5,), C64, key="real"))
add("imag", "c64", tnp.imag, tf.math.imag, rnd((5,), C64, key="imag"))
add("conj", "c64", tnp.conj, tf.math.conj, rnd((5,), C64, key="conj"))
add("arccosh", "f32 above 1", tnp.arccosh, tf.math.acosh, rnd((3, 4), lo=1.1, hi=3.0, key="acosh"))
add("arccosh", "f32 corner", tnp.arccosh, tf.math.acosh, corner(F32), corner=True)
add("copy", "f32", tnp.copy, tf.identity, X33)
add("deg2rad", "f32", tnp.deg2rad, TFNP.deg2rad, X33)
add("rad2deg", "f32", tnp.rad2deg, TFNP.rad2deg, X33)
add("diag", "f32 vector to matrix", tnp.diag, tf.linalg.diag, rnd((4,), key="diagv"))
add("diag", "f32 matrix to diagonal", tnp.diag, tf.linalg.diag_part, X33)
add("diagonal", "f32 batch of matrices", lambda a: tnp.diagonal(a, axis1=-2, axis2=-1), tf.linalg.diag_part,
    rnd((2, 3, 4), key="diagonal"))
add("diff", "f32 axis=0, n=2", lambda a: tnp.diff(a, n=2, axis=0), lambda a: TFNP.diff(a, n=2, axis=0),
    rnd((5, 3), key="diff"))
# (TF 2.21 registers no gradient for TruncateMod: values only; tapejax differentiates it as jax.numpy)
add("fmod", "f32 mixed signs", tnp.fmod, tf.truncatemod, rnd((3, 4), key="fmodx"),
    rnd((3, 4), lo=0.4, hi=1.5, key="fmody") * np.sign(rnd((3, 4), key="fmods")), checks=("fwd",))
add("i0", "f32", tnp.i0, tf.math.bessel_i0, rnd((3, 4), lo=-3.0, hi=3.0, key="i0"))
add("inner", "f32 (2,3)x(4,3)", tnp.inner, TFNP.inner, rnd((2, 3), key="in1"), rnd((4, 3), key="in2"))
add("kron", "f32 (2,3)x(2,2)", tnp.kron, TFNP.kron, rnd((2, 3), key="kr1"), rnd((2, 2), key="kr2"))
add("linalg_pinv", "f32 (4,3)", tnp.linalg.pinv, tf.linalg.pinv, rnd((4, 3), key="pinv") + np.eye(4, 3, dtype=F32),
    tol=16)
add("logaddexp", "f32 with large values", tnp.logaddexp, TFNP.logaddexp, rnd((3, 4), key="lae1") * 30,
    rnd((3, 4), key="lae2") * 30)
_NANS = np.where(rnd((3, 4), key="nanmask") > 0.5, np.nan, rnd((3, 4), key="nanv")).astype(F32)
add("nansum", "f32 with NaNs, axis=1", lambda a: tnp.nansum(a, axis=1), lambda a: TFNP.nansum(a, axis=1), _NANS)
add("nanmean", "f32 with NaNs, axis=0", lambda a: tnp.nanmean(a, axis=0), lambda a: TFNP.nanmean(a, axis=0),
    _NANS[:, :3])
_ALL_NAN = np.asarray([[np.nan, np.nan, np.nan], [1.0, np.nan, np.inf], [0.0, -2.0, 1.0]], F32)
add("nansum", "f32 an all-NaN row, inf", lambda a: tnp.nansum(a, axis=1), lambda a: TFNP.nansum(a, axis=1), _ALL_NAN,
    corner=True)
add("nanmean", "f32 an all-NaN row, inf", lambda a: tnp.nanmean(a, axis=1), lambda a: TFNP.nanmean(a, axis=1),
    _ALL_NAN, corner=True)
add("roll", "f32 shift (1, -2) on axes (0, 1)", lambda a: tnp.roll(a, (1, -2), axis=(0, 1)),
    lambda a: tf.roll(a, (1, -2), axis=(0, 1)), rnd((3, 4), key="roll"))
add("roll_by", "f32 shift a Tensor", lambda a, k: tnp.roll(a, k, axis=1), lambda a, k: tf.roll(a, k, axis=1),
    rnd((3, 4), key="roll_by"), np.asarray(-3, I32))
add("sinc", "f32", tnp.sinc, tf.experimental.numpy.sinc, rnd((3, 4), key="sinc", lo=-2.5, hi=2.5))
add("sinc", "f32 corner", tnp.sinc, tf.experimental.numpy.sinc, corner(F32), corner=True)
add("nextafter", "f32", tnp.nextafter, tf.math.nextafter, rnd((3, 4), key=("nextafter", 0)),
    rnd((3, 4), key=("nextafter", 1)))
add("selu", "f32", tj.nn.selu, tf.nn.selu, rnd((3, 4), lo=-3.0, hi=3.0, key="selu"))
add("selu", "f32 corner", tj.nn.selu, tf.nn.selu, corner(F32), corner=True)
add("i0", "f32 corner", tnp.i0, tf.math.bessel_i0, corner(F32), corner=True)
add("logaddexp", "f32 infinities", tnp.logaddexp, TFNP.logaddexp, _cx.ravel(), _cy.ravel(), corner=True)
add("logaddexp", "f32 ties", tnp.logaddexp, TFNP.logaddexp, np.asarray([0.0, 1.5, -2.0, 30.0], F32),
    np.asarray([0.0, 1.5, -2.0, 30.0], F32))
add("tensordot", "f32 axes=([1, 2], [0, 1])", lambda a, b: tnp.tensordot(a, b, axes=([1, 2], [0, 1])),
    lambda a, b: tf.tensordot(a, b, axes=([1, 2], [0, 1])), rnd((2, 3, 4), key="td1"), rnd((3, 4, 5), key="td2"))
add("trace", "f32 batch", lambda a: tnp.trace(a, axis1=-2, axis2=-1), tf.linalg.trace, rnd((2, 3, 3), key="trace"))
add("tril", "f32 k=-1", lambda a: tnp.tril(a, k=-1), lambda a: TFNP.tril(a, k=-1), rnd((3, 4), key="tril"))
add("triu", "f32 k=1", lambda a: tnp.triu(a, k=1), lambda a: TFNP.triu(a, k=1), rnd((3, 4), key="triu"))
add("vdot", "c64 (conjugates the first)", tnp.vdot, TFNP.vdot, rnd((4,), C64, key="vd1"), rnd((4,), C64, key="vd2"))
add("linspace", "f32 start and stop", lambda a, b: tnp.linspace(a, b, 5), lambda a, b: tf.linspace(a, b, 5),
    np.asarray(-1.0, F32), np.asarray(2.0, F32))
SKIPPED["linalg_matrix_power"] = "no tf.linalg counterpart"
SKIPPED["fill"] = "tj.numpy.full's op: compared through the ops built on it"

for _name in ("dropout", "random_permutation"):
    SKIPPED[_name] = "random draws: no value-for-value TF counterpart"
SKIPPED["linalg_svd (U, V)"] = "tf.linalg.svd returns V, not Vh, with an unrelated sign choice (values and S compared)"

# Deliberate differences: (op, case label prefix, check) -> why tapejax differs from TF 2.21 there.
_NO_NAN = ("API.md: ops whose derivative is infinite somewhere give 0 for a zero incoming gradient (mul_no_nan); "
           "TF 2.21's rule multiplies plainly (0 * inf = NaN)")
_POW = ("API.md's mul_no_nan rule (TF 2.21's PowGrad multiplies plainly: NaN for a zero gradient or at x = y = 0, "
        "where tapejax gives 0); TF's forward mode also gives NaN where the derivative is +-inf")
# exp2, log2, log10 and cbrt have no tf.math kernel: tf.experimental.numpy's are compositions, whose forward mode
# carries a constant's zero tangent times an inf or NaN partial (NaN) where tapejax gives the derivative (jax.jvp's)
_COMPOSITE = ("tf.experimental.numpy's {} is {}; TF's forward mode of it multiplies the constant's zero tangent by an "
              "inf or NaN partial (NaN), where tapejax gives the op's derivative, as jax.jvp")
for _op, _how in (("log2", "log(x) / log(2)"), ("log10", "log(x) / log(10)"), ("exp2", "pow(2, x)"),
                  ("cbrt", "a pow of |x|")):
    for _lab in ("f32 corner", "f16 corner"):
        KNOWN[(_op, _lab, "jvp")] = _COMPOSITE.format(_op, _how)
for _lab in ("f32 corner", "f16 corner"):
    KNOWN[("cbrt", _lab, "grad")] = _NO_NAN + " (cbrt: tf.experimental.numpy's pow of |x|, whose PowGrad this is)"
for _op in ("arcsin", "arccos", "arctanh"):
    for _lab in ("f32 corner", "f16 corner"):
        KNOWN[(_op, _lab, "grad")] = _NO_NAN
for _lab in ("f32 corner grid", "f32 ties", "f32 x**0.5 with zeros"):
    for _check in ("grad", "jvp"):
        KNOWN[("power", _lab, _check)] = _POW
for _n in (2, 3, 0, -2):
    for _check in ("grad", "jvp"):
        KNOWN[("integer_pow", f"f32 corner n={_n}", _check)] = _POW
KNOWN.update({
    ("divide", "i32", "fwd"): "tj.numpy mirrors jax.numpy: int / int is float32 (TF: float64; JAX's x64 is off)",
    ("floor_divide", "f32 corner grid", "fwd"): "jax.numpy's float floor_divide (NaN for +-inf // finite; TF's "
                                                "floor(x / y) gives +-inf)",
    ("max", "f32 empty axis", "fwd"): "jax.numpy raises ValueError reducing a zero-size axis (TF returns -inf)",
    ("min", "f32 empty axis", "fwd"): "jax.numpy raises ValueError reducing a zero-size axis (TF returns +inf)",
    ("std", "f32 ties", "jvp"): "API.md's sqrt rule in forward mode: a row of equal values has std 0 and the "
                                "variance's tangent 0, and tapejax's tangent is 0 there (TF's forward mode: 0 * inf "
                                "= NaN; its reverse mode gives 0 for a zero gradient, as tapejax's)",
    ("cumprod", "f32 axis=0 with zeros", "grad"): "TF's CumprodGrad divides by x (div_no_nan: 0 where x = 0), "
                                                  "not the derivative; tapejax's is exact",
    ("cumprod", "f32 axis=0 with zeros", "jvp"): "TF's forward mode transposes that CumprodGrad (see grad)",
    ("cumprod", "c64", "grad"): "TF's CumprodGrad does not conjugate (it breaks TF's own complex convention, "
                                "grad * conj(dy/dx), which tapejax follows)",
    ("cumprod", "c64", "jvp"): "TF's forward mode transposes that CumprodGrad (see grad)",
    ("euclidean_norm", "f32 zero vector", "jvp"): "TF's forward mode of sqrt gives NaN for a zero tangent at 0; "
                                                  "API.md: the same no-NaN rule in forward and reverse mode",
    ("batch_norm", "f32 NHWC all three outputs", "grad"): "TF's FusedBatchNormGrad ignores the gradients of "
                                                          "batch_mean and batch_var; tapejax differentiates all three",
    ("batch_norm", "f32 NHWC all three outputs", "jvp"): "TF's forward mode transposes that rule: None for "
                                                         "batch_mean and batch_var",
    ("sort", "f32 nan/inf", "fwd"): "TF's sort does not order NaN",
    ("sort", "f32 nan/inf", "grad"): "follows the forward order (see fwd)",
    ("sort", "f32 nan/inf", "jvp"): "follows the forward order (see fwd)",
    ("softmax", "f32 inf/nan", "fwd"): "TF's oneDNN softmax kernel (on by default on x86 CPUs) gives 0 beside the "
                                       "NaN of a row holding an inf or a NaN; its own kernel (TF_ENABLE_ONEDNN_OPTS=0) "
                                       "and log_softmax give NaN for the whole row, as tapejax",
    ("logaddexp", "f32 ties", "grad"): "tf.experimental.numpy.logaddexp is a composite of maximum (a tie's whole "
                                       "gradient to x1); tapejax gives the derivative, 1/2 to each (as jax.grad)",
    ("logaddexp", "f32 ties", "jvp"): "TF's forward mode of that composite (see grad)",
    ("logaddexp", "f32 infinities", "jvp"): "at a NaN input TF's forward mode of its composite gives t1 + t2 "
                                            "(its reverse mode gives NaN, as tapejax in both modes)",
    ("angle", "c64 corner", "grad"): "at z = inf + 1j TF's AngleGrad gives NaN (1 / (im + i re) at an infinite "
                                     "re); tapejax gives the limit, 0",
    ("linalg_cholesky", "f32 not positive definite", "fwd"): "TF leaves the upper triangle of a failed factorization "
                                                             "unwritten (whatever the memory held: 0, 1e-8, 6e20 from "
                                                             "run to run); its lower triangle is NaN, as tapejax's",
    ("linalg_cholesky", "f32 not positive definite", "jvp"): "a failed factorization (NaN): the output's structural "
                                                             "zero above the diagonal has tangent 0 in tapejax; TF's "
                                                             "forward mode (its reverse rule transposed) gives NaN",
    ("sinc", "f32 corner", "grad"): ("tf.experimental.numpy.sinc is where(x == 0, 1, sin(pi x) / (pi x)): TF's "
                                     "gradient at 0 is NaN (the other branch's), tapejax's sinc'(0) = 0"),
    **{("soft_sign", f"soft_sign: {lab}", "jvp"): (
        "TF's forward mode of Softsign needs the gradient of SoftsignGrad, which TF does not register (LookupError); "
        "tapejax's JVP is tangent / (1 + |x|)**2, the transpose of TF's SoftsignGrad")
       for lab in ("f32 ordinary", "f32 corner", "f16")},
    **{("sparse_sigmoid", "keras f32 kinks", c): (
        "Keras's sparse_sigmoid (TF backend) is where(x <= -1, 0, where(x >= 1, 1, (x + 1) / 2)): 0 at -1 and 1; "
        "tapejax's is jax.nn's 0.5 * clip(x + 1, 0, 2) with API.md's clip rule (the gradient passes at the bounds)")
       for c in ("grad", "jvp")},
    **{("celu", "keras f32 kinks", c): (
        "Keras's celu (TF backend) is maximum(x, 0) + alpha * expm1(minimum(x, 0) / alpha): at x = 0 both ties give "
        "x the whole gradient (TF's rule), a derivative of 2 where each side's is 1; tapejax's is 1 (the linear side)")
       for c in ("grad", "jvp")},
    ("at_set", "f32 repeated index", "grad"): (
        "TF's TensorScatterUpdate gradient gathers the output's gradient for every update, also one that a later "
        "update at the same index overwrote (it never reaches the output); tapejax's (JAX's scatter) gives it 0"),
    ("at_set", "f32 repeated index", "jvp"): "TF's forward mode of that rule sums the tangents of the updates at a "
                                             "repeated index; tapejax's tangent is the update that is kept",
    ("nanmean", "f32 an all-NaN row, inf", "jvp"): "a row with an inf: TF's forward mode of its composite gives NaN, "
                                                  "its reverse mode the finite gradient (as tapejax in both modes)",
})
KNOWN_ERRORS = {
    ("add", "float32 + int32 tensors"): "tj.numpy mirrors jax.numpy's type promotion (TF raises)",
    ("add", "float32 + float16 tensors"): "tj.numpy mirrors jax.numpy's type promotion (TF raises)",
    ("matmul", "float32 @ int32"): "tj.numpy mirrors jax.numpy's type promotion (TF raises)",
    ("concatenate", "float32 with int32"): "tj.numpy mirrors jax.numpy's type promotion (TF raises)",
}


# -- error cases: TF raises; tapejax must raise a clear Python exception ------------------------------------

ERRORS = [
    ("add", "shapes (3,) + (4,)", lambda m: m["add"](np.ones(3, F32), np.ones(4, F32))),
    ("matmul", "inner dims 3 vs 4", lambda m: m["matmul"](np.ones((2, 3), F32), np.ones((4, 2), F32))),
    ("reshape", "12 elements to (5, 3)", lambda m: m["reshape"](np.ones((3, 4), F32), (5, 3))),
    ("concatenate", "(2,3) with (2,4) on axis 0",
     lambda m: m["concat"]([np.ones((2, 3), F32), np.ones((2, 4), F32)], 0)),
    ("stack", "(2,) with (3,)", lambda m: m["stack"]([np.ones(2, F32), np.ones(3, F32)])),
    ("take", "index 5 of 4", lambda m: m["gather"](np.ones((4,), F32), [5])),
    ("take", "float index", lambda m: m["gather"](np.ones((4,), F32), np.asarray([1.0], F32))),
    ("getitem", "x[7] of 4", lambda m: m["getitem"](np.ones((4,), F32), 7)),
    ("softmax_cross_entropy_with_logits", "labels (3,4) logits (3,5)",
     lambda m: m["xent"](np.ones((3, 4), F32), np.ones((3, 5), F32))),
    ("sparse_softmax_cross_entropy_with_logits", "float labels",
     lambda m: m["sxent"](np.ones((3,), F32), np.ones((3, 5), F32))),
    ("linalg_cholesky", "non-square", lambda m: m["cholesky"](np.ones((2, 3), F32))),
    ("linalg_solve", "rhs rows 2 vs 3", lambda m: m["solve"](np.eye(3, dtype=F32), np.ones((2, 1), F32))),
    ("split", "6 into 4 sections", lambda m: m["split"](np.ones((6,), F32), 4)),
    ("squeeze", "axis of size 3", lambda m: m["squeeze"](np.ones((3, 1), F32), 0)),
    ("transpose", "perm of wrong length", lambda m: m["transpose"](np.ones((2, 3), F32), (1, 0, 2))),
    ("broadcast_to", "(3,) to (4,)", lambda m: m["broadcast_to"](np.ones(3, F32), (4,))),
    ("add", "float32 + int32 tensors", lambda m: m["add"](m["const"](np.ones(3, F32)), m["const"](np.ones(3, I32)))),
    ("add", "float32 + float16 tensors", lambda m: m["add"](m["const"](np.ones(3, F32)), m["const"](np.ones(3, F16)))),
    ("matmul", "float32 @ int32", lambda m: m["matmul"](m["const"](np.ones((2, 2), F32)),
                                                        m["const"](np.ones((2, 2), I32)))),
    ("concatenate", "float32 with int32", lambda m: m["concat"]([m["const"](np.ones(2, F32)),
                                                                 m["const"](np.ones(2, I32))], 0)),
]
TF_M = {"add": tf.add, "matmul": tf.linalg.matmul, "reshape": tf.reshape, "concat": tf.concat, "stack": tf.stack,
        "gather": tf.gather, "getitem": lambda x, i: tf.constant(x)[i],
        "xent": lambda l, z: tf.nn.softmax_cross_entropy_with_logits(l, z),
        "sxent": lambda l, z: tf.nn.sparse_softmax_cross_entropy_with_logits(l, z),
        "cholesky": tf.linalg.cholesky, "solve": tf.linalg.solve, "split": tf.split,
        "squeeze": tf.squeeze, "transpose": tf.transpose, "broadcast_to": tf.broadcast_to, "const": tf.constant}
TJ_M = {"add": tnp.add, "matmul": tnp.matmul, "reshape": tnp.reshape, "concat": tnp.concatenate, "stack": tnp.stack,
        "gather": lambda x, i: tnp.take(x, i, axis=0), "getitem": lambda x, i: tj.constant(x)[i],
        "xent": tj.nn.softmax_cross_entropy_with_logits, "sxent": tj.nn.sparse_softmax_cross_entropy_with_logits,
        "cholesky": tnp.linalg.cholesky, "solve": tnp.linalg.solve, "split": tnp.split, "squeeze": tnp.squeeze,
        "transpose": tnp.transpose, "broadcast_to": tnp.broadcast_to, "const": tj.constant}
# an exception type tapejax may raise for each TF exception type
ACCEPTED = {
    "InvalidArgumentError": (ValueError, TypeError, IndexError),
    "ValueError": (ValueError, TypeError),
    "TypeError": (TypeError,),
    "IndexError": (IndexError,),
}


# -- running one case --------------------------------------------------------------------------------------

def flat(out) -> list:
    if isinstance(out, (tuple, list)):
        return [y for o in out for y in flat(o)]
    return [out]


def to_np(t):
    if t is None:
        return None
    if isinstance(t, tf.IndexedSlices):
        t = tf.convert_to_tensor(t)
    return np.asarray(t.numpy() if hasattr(t, "numpy") else t)


def inexact(a) -> bool:
    return np.dtype(a.dtype).kind in "fc"


def tolerance(dtype) -> float:
    dt = np.dtype(dtype)
    if dt.kind not in "fc":
        return 0.0
    return 64 * float(np.finfo(dt).eps)


def compare(got, want, tol_mult=1.0) -> Optional[str]:
    """None if equal within tolerance, else a short description."""
    if got is None or want is None:
        if got is None and want is None:
            return None
        g = "None" if got is None else f"array (max|.|={np.max(np.abs(got)) if got.size else 0:.3g})"
        w = "None" if want is None else "array"
        return f"tj {g}, TF {w}"
    if got.shape != want.shape:
        return f"shape tj {got.shape} vs TF {want.shape}"
    if np.dtype(got.dtype) != np.dtype(want.dtype):
        return f"dtype tj {got.dtype} vs TF {want.dtype}"
    if got.size == 0:
        return None
    if np.dtype(want.dtype).kind not in "fc":
        bad = np.flatnonzero(got.ravel() != want.ravel())
        return None if not bad.size else f"{bad.size} values differ, e.g. [{bad[0]}] tj {got.ravel()[bad[0]]} TF " \
                                         f"{want.ravel()[bad[0]]}"
    g, w = got.astype(np.complex128).ravel(), want.astype(np.complex128).ravel()
    msgs = []
    for part, gp, wp in (("", g.real, w.real), ("imag ", g.imag, w.imag)):
        gn, wn = np.isnan(gp), np.isnan(wp)
        if (gn != wn).any():
            i = np.flatnonzero(gn != wn)[0]
            msgs.append(f"{part}NaN at [{i}]: tj {gp[i]:.6g} TF {wp[i]:.6g} ({int((gn != wn).sum())} positions)")
            continue
        gi, wi = np.isinf(gp), np.isinf(wp)
        bad_inf = (gi | wi) & ~gn & (gp != wp)
        if bad_inf.any():
            i = np.flatnonzero(bad_inf)[0]
            msgs.append(f"{part}inf at [{i}]: tj {gp[i]:.6g} TF {wp[i]:.6g} ({int(bad_inf.sum())} positions)")
            continue
        ok = ~(gn | gi | wi)
        if not ok.any():
            continue
        tol = tolerance(want.dtype) * tol_mult
        scale = max(1.0, float(np.max(np.abs(wp[ok]))))
        err = np.abs(gp[ok] - wp[ok])
        lim = tol * np.abs(wp[ok]) + tol * scale
        if (err > lim).any():
            j = np.argmax(err - lim)
            i = np.flatnonzero(ok)[j]
            msgs.append(f"{part}value at [{i}]: tj {gp[i]:.7g} TF {wp[i]:.7g} ({int((err > lim).sum())} positions)")
    return "; ".join(msgs) or None


def output_gradient(y: np.ndarray, key, zeros: bool) -> np.ndarray:
    g = rnd(y.shape, y.dtype, lo=0.5, hi=1.5, key=("og", key)) * np.where(
        rng_for("ogs", key).uniform(size=y.shape) < 0.5, -1, 1).astype(y.dtype)
    if zeros and g.size:
        g.ravel()[::3] = 0
    return np.asarray(g, y.dtype)


def run_case(c: Case) -> list:
    """Mismatches of one case: a list of (check, description)."""
    out = []
    diff = [i for i, a in enumerate(c.args) if inexact(a)] if c.diff is None else list(c.diff)
    # forward
    try:
        tf_y = [to_np(y) for y in flat(c.tf_fn(*[tf.constant(a) for a in c.args]))]
    except Exception as e:  # noqa: BLE001
        return [("skip", f"TF rejects: {type(e).__name__}")]
    try:
        tj_y = [to_np(y) for y in flat(c.tj_fn(*[tj.constant(a) for a in c.args]))]
    except Exception as e:  # noqa: BLE001
        return [("fwd", f"tj raised {type(e).__name__}: {str(e)[:100]}")]
    if len(tj_y) != len(tf_y):
        return [("fwd", f"{len(tj_y)} outputs vs TF {len(tf_y)}")]
    for k, (g, w) in enumerate(zip(tj_y, tf_y)):
        m = compare(g, w, c.tol)
        if m:
            out.append(("fwd", (f"out{k}: " if len(tf_y) > 1 else "") + m))
    outs_diff = [k for k, w in enumerate(tf_y) if inexact(w)]
    if not diff or not outs_diff:
        return out
    # reverse mode
    if "grad" in c.checks:
        ogs = [output_gradient(tf_y[k], (c.op, c.label, k), c.corner) for k in outs_diff]
        try:
            tf_x = [tf.constant(a) for a in c.args]
            with tf.GradientTape() as tape:
                for i in diff:
                    tape.watch(tf_x[i])
                ys = flat(c.tf_fn(*tf_x))
            tf_g = tape.gradient([ys[k] for k in outs_diff], [tf_x[i] for i in diff],
                                 output_gradients=[tf.constant(g) for g in ogs])
            tf_g = [to_np(g) for g in tf_g]
        except Exception as e:  # noqa: BLE001
            tf_g = f"TF raised {type(e).__name__}"
        try:
            tj_x = [tj.constant(a) for a in c.args]
            with tj.GradientTape() as tape:
                for i in diff:
                    tape.watch(tj_x[i])
                ys = flat(c.tj_fn(*tj_x))
            tj_g = tape.gradient([ys[k] for k in outs_diff], [tj_x[i] for i in diff],
                                 output_gradients=[tj.constant(g) for g in ogs])
            tj_g = [to_np(g) for g in tj_g]
        except Exception as e:  # noqa: BLE001
            tj_g = f"tj raised {type(e).__name__}: {str(e)[:80]}"
        if isinstance(tf_g, str) or isinstance(tj_g, str):
            if not (isinstance(tf_g, str) and isinstance(tj_g, str)):
                out.append(("grad", tf_g if isinstance(tf_g, str) else tj_g))
        else:
            for i, g, w in zip(diff, tj_g, tf_g):
                m = compare(g, w, c.tol * 2)
                if m:
                    out.append(("grad", f"arg{i}: {m}"))
    # forward mode
    if "jvp" in c.checks:
        tans = [rnd(c.args[i].shape, c.args[i].dtype, lo=0.5, hi=1.5, key=("tan", c.op, c.label, i)) for i in diff]
        try:
            tf_x = [tf.constant(a) for a in c.args]
            with tf.autodiff.ForwardAccumulator([tf_x[i] for i in diff], [tf.constant(t) for t in tans]) as acc:
                ys = flat(c.tf_fn(*tf_x))
            tf_t = [to_np(acc.jvp(ys[k])) for k in outs_diff]
        except Exception as e:  # noqa: BLE001
            tf_t = f"TF raised {type(e).__name__}"
        try:
            tj_x = [tj.constant(a) for a in c.args]
            with tj.ForwardAccumulator([tj_x[i] for i in diff], [tj.constant(t) for t in tans]) as acc:
                ys = flat(c.tj_fn(*tj_x))
            tj_t = [to_np(acc.jvp(ys[k])) for k in outs_diff]
        except Exception as e:  # noqa: BLE001
            tj_t = f"tj raised {type(e).__name__}: {str(e)[:80]}"
        if isinstance(tf_t, str) or isinstance(tj_t, str):
            if not (isinstance(tf_t, str) and isinstance(tj_t, str)):
                out.append(("jvp", tf_t if isinstance(tf_t, str) else tj_t))
        else:
            for k, g, w in zip(outs_diff, tj_t, tf_t):
                m = compare(g, w, c.tol * 2)
                if m:
                    out.append(("jvp", (f"out{k}: " if len(outs_diff) > 1 else "") + m))
    return out


def run_error(fn) -> tuple:
    tf_exc = tj_exc = None
    try:
        fn(TF_M)
    except Exception as e:  # noqa: BLE001
        tf_exc = e
    try:
        fn(TJ_M)
    except Exception as e:  # noqa: BLE001
        tj_exc = e
    return tf_exc, tj_exc


def known(op: str, label: str, check: str) -> Optional[str]:
    for (o, prefix, ch), why in KNOWN.items():
        if o == op and ch == check and label.startswith(prefix):
            return why
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="", help="comma-separated op names")
    ap.add_argument("--verbose", action="store_true", help="print every case")
    args = ap.parse_args(argv)
    only = set(filter(None, args.only.split(",")))
    cases = [c for c in CASES if not only or c.op in only]
    rows, known_rows, tf_rejects = [], [], []
    for c in cases:
        try:
            res = run_case(c)
        except Exception:  # noqa: BLE001
            res = [("crash", traceback.format_exc().strip().splitlines()[-1][:120])]
        if args.verbose:
            print(f"{c.op:40s} {c.label:45s} {'ok' if not res else res}")
        for check, msg in res:
            if check == "skip":
                tf_rejects.append((c.op, c.label, msg))
            elif known(c.op, c.label, check):
                known_rows.append((c.op, c.label, check, msg, known(c.op, c.label, check)))
            else:
                rows.append((c.op, c.label, check, msg))
    print(f"\n== MISMATCHES ({len(rows)} in {len(cases)} cases) ==")
    print(f"{'op':28s} {'case':34s} {'check':6s} detail")
    for op, label, check, msg in rows:
        print(f"{op[:28]:28s} {label[:34]:34s} {check:6s} {msg}")
    err_rows = []
    for op, label, fn in ERRORS:
        if only and op not in only:
            continue
        tf_e, tj_e = run_error(fn)
        tfn = type(tf_e).__name__ if tf_e else "no error"
        tjn = type(tj_e).__name__ if tj_e else "no error"
        ok = (tf_e is None) == (tj_e is None) and (tj_e is None or isinstance(tj_e, ACCEPTED.get(tfn, (Exception,))))
        ok = ok and not (tj_e is not None and type(tj_e).__module__.startswith("jax"))
        if not ok and (op, label) in KNOWN_ERRORS:
            known_rows.append((op, label, "raises", f"TF {tfn}, tj {tjn}", KNOWN_ERRORS[(op, label)]))
        elif not ok:
            err_rows.append((op, label, tfn, tjn, str(tj_e)[:90] if tj_e else ""))
    print(f"\n== EXCEPTION MISMATCHES ({len(err_rows)} of {len(ERRORS)}) ==")
    for op, label, tfn, tjn, msg in err_rows:
        print(f"{op[:28]:28s} {label[:34]:34s} TF {tfn}, tj {tjn} {msg}")
    print(f"\n== KNOWN, DELIBERATE DIFFERENCES ({len(known_rows)}) ==")
    for op, label, check, msg, why in known_rows:
        print(f"{op[:28]:28s} {label[:34]:34s} {check:6s} {msg[:60]}  -- {why}")
    print(f"\n== TF REJECTS THE INPUT (not compared: {len(tf_rejects)}) ==")
    print(", ".join(sorted({f'{o} [{lab}]' for o, lab, _ in tf_rejects})))
    covered = {c.op for c in CASES}
    missing = sorted(set(registry()) - covered - set(SKIPPED))
    print("\n== SKIPPED (no TF counterpart) ==")
    for name, why in sorted(SKIPPED.items()):
        print(f"{name:28s} {why}")
    if missing:
        print("registered but not covered: " + ", ".join(missing))
    return 1 if rows or err_rows else 0


if __name__ == "__main__":
    sys.exit(main())
