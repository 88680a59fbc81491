"""``tj.nn``: neural-network ops, mirroring ``jax.nn`` names and defaults, plus TF's fused ops.

Ops are declared by family (declare.py says how), one line per op in each table, with the TF convention
it follows beside it. Ops without hand-written rules derive their kernels from ``jax.vjp``/``jax.jvp`` of
their function. The tables:

* activations: ``relu`` and ``relu6`` have hand-written rules with derivative 0 at their kinks (TF's
  ``ReluGrad``/``Relu6Grad``; ``relu`` keeps only the mask ``x > 0``, one byte per element: what XLA keeps
  for ``jax.nn.relu`` under ``jax.grad``, and kept as TF's output it cost XLA:CPU transposes of it into each
  consumer's layout, a CNN step 15% slower than jax.jit's); ``leaky_relu``'s function is written so that
  its derivative at 0 is ``negative_slope`` (TF's ``LeakyReluGrad``), ``elu``'s and ``selu``'s so that at 0
  they take the linear side (TF's ``EluGrad``/``SeluGrad``), and ``celu``'s likewise (where jax's maximum and
  minimum split the tie); ``soft_sign``'s so that abs has derivative 0 at 0 (TF's; it changes only the second
  derivative there), with TF's ``SoftsignGrad`` for its derivative (0 at +-inf, where the quotient rule gave
  NaN), and ``sparse_sigmoid``'s so that its clip passes the gradient at its bounds (TF's clip; jax's splits it);
  ``hard_sigmoid`` and ``hard_silu`` are jax's, built on its relu6 (derivative 0 at the kinks, as TF's
  ``Relu6Grad``), ``hard_tanh`` is jax's (the gradient passes at -1 and 1, as TF's clip); ``identity``
  hands the gradient on (``passthrough``); ``squareplus`` is jax's value without its cancellation below 0, with
  derivatives that do not divide inf by inf; the others (``gelu``, ``softplus``, ``mish``, ``log1mexp``,
  ``glu``...) are derived. The activations compute float16 and bfloat16 in float32 and round once
  (``_activation``), as tj.numpy's elementwise ops.
  ``sigmoid`` and ``tanh`` are ``tj.numpy``'s ops. At second order the relus', ``hard_sigmoid``'s and
  ``max_pool``'s gradients stay connected to the input (``backward_connected``: TF's ReluGradGrad,
  Relu6GradGrad and MaxPoolGradGrad give zeros, not None).
* softmax family (``_from_output``): ``softmax`` and ``log_softmax`` read only their output in both
  rules (TF's ``SoftmaxGrad``/``LogSoftmaxGrad``); ``logsumexp`` and ``logmeanexp`` are derived (``logmeanexp``
  takes jax's ``where`` mask as an argument of the op). ``one_hot`` has no gradient.
* convolution and pooling: derived (JAX's transposed convolutions and window scatters).
* normalization: ``layer_norm`` is derived (its variance as tf.nn.moments', around ``stop_gradient(mean)``: TF's
  second order); ``standardize`` is ``jax.nn.standardize``, derived (its optional ``mean``, ``variance`` and
  ``where`` are arguments of the op when given); ``batch_norm`` (TF's ``FusedBatchNorm``) has three outputs
  and a hand-written backward taking ``None`` for the last two (``accepts_none``, tape.h's entry); at second
  order its gradients stay connected to x and scale (zeros, not None: TF's FusedBatchNormGrad inputs).
* attention: ``dot_product_attention`` is ``jax.nn.dot_product_attention``, derived (its optional bias, mask and
  sequence lengths are arguments of the op when given).
* losses: TF's fused cross entropies, outputs ``(loss, backprop)``, with hand-written rules that take
  ``None`` for the backprop output's gradient. At second order the logits' gradient ``g * backprop`` is
  constant in the labels, as TF's (whose rule for the backprop output gives the labels nothing): zeros,
  not None (``backward_connected``), where the exact derivative is not 0.

``tj.nn.initializers`` (initializers.py) mirrors ``jax.nn.initializers``, drawing Tensors.

Every public function of ``jax.nn`` is mirrored but for ``scaled_matmul``, ``scaled_dot_general`` and
``get_scaled_dot_general_config``: block-scaled quantized (mxfp8/nvfp4) matrix products on jax's cuDNN kernels,
with no gradient story for a tape: ``scaled_matmul`` takes operands already quantized to 8 or 4 bits (no
derivative to follow), ``scaled_dot_general``'s backward is jax's own quantized custom VJP (reverse mode only;
TF has no counterpart whose convention to follow), and ``get_scaled_dot_general_config`` only builds their
configurations.

Complex inputs (where jax.nn accepts them) get TF's gradient convention: the fused rules are written as
JAX-convention derivatives and wrapped with ``rules.tf_complex_bwd`` (the derived kernels convert in core).
"""
from __future__ import annotations

import functools
import numbers
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from ..tensor import Tensor, Variable, convert_to_tensor
from . import initializers  # noqa: F401  (``tj.nn.initializers``)
from . import numpy as tnp
from .core import OpDef, ShapeError, as_dtype, as_index, freeze, static
from .declare import (HALF as _HALF, half_in_float32 as _half_in_float32, not_differentiable as _not_differentiable,
                      public_dir, samples as _samples)
from .rules import tf_complex_bwd as _tf_complex_bwd

__all__ = [
    "relu", "relu6", "gelu", "sigmoid", "log_sigmoid", "softplus", "silu", "swish", "elu", "selu", "leaky_relu",
    "tanh", "softmax", "log_softmax", "logsumexp", "one_hot", "conv", "conv_general_dilated", "max_pool",
    "avg_pool", "layer_norm", "dropout", "softmax_cross_entropy_with_logits",
    "sparse_softmax_cross_entropy_with_logits", "batch_norm", "celu", "glu", "hard_sigmoid", "hard_silu",
    "hard_swish", "hard_tanh", "identity", "log1mexp", "logmeanexp", "mish", "soft_sign", "sparse_plus",
    "sparse_sigmoid", "squareplus", "standardize", "dot_product_attention", "initializers",
]

# -- sample inputs (declare.py: drawn in declaration order) ------------------------------------------------
_rng = np.random.default_rng(1)


def _r(*shape, lo=-1.5, hi=1.5):
    return np.asarray(_rng.uniform(lo, hi, size=shape), np.float32)


def _away_from_zero(*shape, margin=0.2, hi=1.5):
    """Random values with |x| >= margin (samples must avoid kinks)."""
    mag = _rng.uniform(margin, hi, size=shape)
    sgn = np.where(_rng.uniform(size=shape) < 0.5, -1.0, 1.0)
    return np.asarray(mag * sgn, np.float32)


def _axis(axis, ndim, op: str):
    """A normalized static axis of op ``op``: an int, or a sorted tuple of ints (None: all axes). Given as
    tj.numpy's reductions take it: an int, a list or tuple, a numpy array or a concrete Tensor (TF's axis
    tensors). A float or string raises ``TypeError`` (as TF; never truncated: ``axis=1.5`` is not axis 1)."""
    axis = freeze(axis)
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    axes = tuple(as_index(a, lambda: f"tj op '{op}': axis must be an integer or a sequence of integers, got {axis!r}")
                 for a in axes)
    for a in axes:  # as TF (InvalidArgumentError) and jax: an axis out of range never wraps around silently
        if ndim and not -ndim <= a < ndim:
            raise np.exceptions.AxisError(f"tj op '{op}': axis {a} is out of bounds for an input of rank {ndim} "
                                          f"(valid: {-ndim} to {ndim - 1})")
    if isinstance(axis, (tuple, list)):
        if not ndim and axes:  # (a scalar has no axis to list)
            raise np.exceptions.AxisError(f"tj op '{op}': axis {axes[0]} is out of bounds for an input of rank 0 "
                                          "(a scalar has no axes: pass axis=None or a tensor of rank >= 1)")
        return tuple(sorted(a % ndim for a in axes))
    return axes[0] % ndim if ndim else 0


# -- activations ----------------------------------------------------------------------------------------

def _relu_fn(x):
    if jnp.result_type(x) == jnp.bool_:
        return jax.nn.relu(x)  # (a bool: jax.nn's result dtype, not the bool itself)
    return jnp.maximum(x, jnp.zeros_like(x))


def _relu6_fn(x):
    if jnp.result_type(x) == jnp.bool_:
        return jax.nn.relu6(x)
    return jnp.minimum(jnp.maximum(x, 0), 6).astype(jnp.result_type(x))


def _leaky_relu_fn(x, negative_slope=0.01):
    if jnp.result_type(x) == jnp.bool_:
        return jax.nn.leaky_relu(x, negative_slope)
    # TF LeakyReluGrad: slope at 0 (jax's where(x >= 0, ...) would give 1 there).
    y = jnp.where(x > 0, x, negative_slope * x)
    # integers give floats (-9 * 0.2 = -1.8), as jax.nn.leaky_relu and TF (relu_op_test testNumbersCPU)
    return y if jnp.issubdtype(jnp.result_type(x), jnp.integer) else y.astype(jnp.result_type(x))


def _elu_fn(x, alpha=1.0):
    # TF's EluGrad/SeluGrad branch on TF's output, exp(x) - 1, being < 0: at 0, at a negative x too small for
    # exp(x) to round below 1 and at NaN the derivative is the linear side's (1, SELU's scale: not alpha) and
    # the second derivative 0; jax.nn.elu's where(x > 0, ...) takes the exponential side at 0. The value at such
    # an x is jax.nn's, alpha * expm1(x) (x itself was 1.67x too small for selu; TF's exp(x) - 1 gives 0): that
    # value with the linear side's derivative (``x - x``, zero, carries it)
    if not jnp.issubdtype(jnp.result_type(x), jnp.inexact):
        x = x.astype(jnp.result_type(x, 0.0))  # (integers and bools: jax.nn.elu's default float, float64 under x64)
    neg = jnp.where(x < 0, x, jnp.zeros_like(x))  # no expm1 overflow (or NaN gradient) on the unused side
    e = alpha * jnp.expm1(neg)
    xe = x.astype(e.dtype)  # (integers and bools: their float, which the result is anyway)
    linear = jnp.where(x < 0, jax.lax.stop_gradient(e) + (xe - jax.lax.stop_gradient(xe)), x)
    return jnp.where(jnp.exp(neg) < 1, e, linear)


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _selu_fn(x):
    # (integers and bools give floats, as jax.nn.selu: they were cast back, truncating -1.52 to -1)
    return (_SELU_SCALE * _elu_fn(x, _SELU_ALPHA)).astype(jnp.result_type(x, 0.0))


def _celu_fn(x, alpha=1.0):
    # jax.nn.celu's values, max(x, 0) + alpha * expm1(min(x, 0) / alpha), written as elu's above so that at 0 it
    # takes the linear side (CELU with alpha 1 is ELU: TF's EluGrad): derivative 1, as jax's, and second
    # derivative 0 (jax's maximum and minimum split their tie at 0 in halves: 1 / (4 * alpha))
    neg = jnp.where(x < 0, x, jnp.zeros_like(x))  # no expm1 overflow (or NaN gradient) on the unused side
    return jnp.where(x < 0, alpha * jnp.expm1(neg / alpha), x).astype(jnp.result_type(x, 0.0))


@jax.custom_jvp
def _soft_sign_real(x):
    return x / (x * jnp.sign(x) + 1)


@_soft_sign_real.defjvp
def _soft_sign_real_jvp(primals, tangents):
    # TF's SoftsignGrad, g / (1 + |x|)**2: 0 at +-inf, where the quotient rule of the value gives inf / inf (NaN)
    (x,), (t,) = primals, tangents
    return _soft_sign_real(x), t / jnp.square(x * jnp.sign(x) + 1)


def _soft_sign_fn(x):
    # jax.nn.soft_sign's values, x / (|x| + 1), with |x| written x * sign(x) (the same values: a product by +-1 is
    # exact) so that abs has derivative 0 at 0, TF's (API.md; jax's abs has 1 there): the derivative at 0 is 1
    # either way (TF's SoftsignGrad), the second one 0 (jax's formula gives -2, the right side's); the derivative is
    # TF's formula (_soft_sign_real_jvp), finite at +-inf. (A complex x: jax's formula, |z| being no product with a
    # sign)
    if jnp.iscomplexobj(x) or jnp.result_type(x) == jnp.bool_:
        return jax.nn.soft_sign(x)  # (a bool: jax's float values; jnp.sign refuses bools)
    return _soft_sign_real(x)


def _sparse_sigmoid_fn(x):
    # jax.nn.sparse_sigmoid's values, 0.5 * clip(x + 1, 0, 2), with TF's clip (ClipByValueGrad, API.md): the
    # gradient passes at the bounds, 0.5 at x = -1 and 1 (jax's clip splits the tie: 0.25 there)
    if jnp.iscomplexobj(x):
        return jax.nn.sparse_sigmoid(x)  # (which rejects complex values, as jnp.clip: its error, naming the op in core)
    y = x + 1.0
    return 0.5 * jnp.where(y < 0, 0.0, jnp.where(y > 2, 2.0, y))


def _squareplus_sides(x, b):
    """``(x < 0, x and its root on the negative side, x and its root on the other)``: each side's x a harmless
    constant where the other side is taken (-1, 1), so that neither side's unused value, ``b / 0`` where root - x
    rounds to 0, reaches a derivative as inf * 0."""
    negative = x < 0
    sqrt_b = jnp.sqrt(jnp.asarray(b, x.dtype))
    xn, xp = jnp.where(negative, x, -1), jnp.where(negative, 1, x)
    return negative, xn, jnp.hypot(xn, sqrt_b), xp, jnp.hypot(xp, sqrt_b)


@functools.partial(jax.custom_jvp, nondiff_argnums=(1,))
def _squareplus_real(x, b):
    # jax.nn.squareplus's (x + sqrt(x**2 + b)) / 2 cancels for negative x: 0 in float32 past x = -4e3, where the
    # value is about b / (4 |x|); below 0 it is b / (2 (sqrt(x**2 + b) - x)), the same value without a difference of
    # near-equals. The root as hypot(x, sqrt(b)), the halves added: x**2 overflowed past 1.8e19 in float32 (inf for
    # x = 1e20), x + root past 1.7e38.
    negative, xn, rn, xp, rp = _squareplus_sides(x, b)
    return jnp.where(negative, b / (2 * (rn - xn)), xp / 2 + rp / 2)


@_squareplus_real.defjvp
def _squareplus_real_jvp(b, primals, tangents):
    # (1 + x / root) / 2 without inf / inf (NaN at +-inf, where the limits are 0 and 1): b / (2 root (root - x))
    # below 0, 1 - b / (2 root (root + x)) above
    (x,), (t,) = primals, tangents
    negative, xn, rn, xp, rp = _squareplus_sides(x, b)
    # (b / (2 root) first: the product root * (root + x) overflowed past 1e19 in float32, and the next order's
    # derivative of b / inf was inf / inf)
    d = jnp.where(negative, b / (2 * rn) / (rn - xn), 1 - b / (2 * rp) / (rp + xp))
    return _squareplus_real(x, b), t * d.astype(t.dtype)


def _squareplus_fn(x, b=4):
    if not jnp.issubdtype(jnp.result_type(x), jnp.floating):
        return jax.nn.squareplus(x, b)  # (an integer x: jax's float values)
    return _squareplus_real(x, b)


def _relu6_mask(x):
    return (x > 0) & (x < 6)


def _activation(name: str, fn, **options) -> OpDef:
    """An activation's op: float16 and bfloat16 computed in float32 and rounded once, as tj.numpy's elementwise ops
    (jax.nn's half-precision formulas round at every step: selu was off by 1-2 ulps on 80% of the bfloat16 values,
    mish on a fifth of the float16 ones, squareplus by 300% past -100; TF's own activations round at every step
    too)."""
    return OpDef(name, _half_in_float32(fn), **options)


# name                   function          rules (none: derived by JAX) and samples             TF convention
_relu = OpDef("relu", _relu_fn, fwd=lambda x: (_relu_fn(x), x > 0),  # (the mask: see the module docstring)
              bwd=lambda m, g: (jnp.where(m, g, jnp.zeros_like(g)),),  # ReluGrad: 0 at 0
              jvp=lambda p, t, out: jnp.where(p[0] > 0, t[0], jnp.zeros_like(t[0])),
              samples=_samples(((_away_from_zero(3, 4),), {})), backward_connected=True)
_relu6 = OpDef("relu6", _relu6_fn, bwd=lambda res, g: (jnp.where(_relu6_mask(res[0][0]), g, 0 * g),),  # 0 at 0, 6
               jvp=lambda p, t, out: jnp.where(_relu6_mask(p[0]), t[0], 0 * t[0]),
               samples=_samples(((np.asarray([[-1.0, 0.5, 3.0], [5.5, 7.0, -0.3]], np.float32),), {})),
               backward_connected=True)
_gelu = _activation("gelu", jax.nn.gelu, samples=_samples(((_r(3, 4),), {"approximate": True}),
                                                          ((_r(3, 4),), {"approximate": False})))
_log_sigmoid = _activation("log_sigmoid", jax.nn.log_sigmoid, samples=_samples(((_r(3, 4, lo=-4, hi=4),), {})))
_softplus = _activation("softplus", jax.nn.softplus, samples=_samples(((_r(3, 4, lo=-4, hi=4),), {})))
_silu = _activation("silu", jax.nn.silu, samples=_samples(((_r(3, 4, lo=-3, hi=3),), {})))
_elu = _activation("elu", _elu_fn, samples=_samples(((_away_from_zero(3, 4),), {}),  # EluGrad: 1 at 0
                                                    ((_away_from_zero(3, 4),), {"alpha": 0.5})))
_selu = _activation("selu", _selu_fn, samples=_samples(  # SeluGrad: scale at 0 (fixed sample: no draw, see declare.py)
    ((np.asarray([[-2.0, -0.7, 0.3, 1.5], [0.8, -1.1, 2.2, -0.2]], np.float32),), {})))
_leaky_relu = OpDef("leaky_relu", _leaky_relu_fn, samples=_samples(  # LeakyReluGrad: negative_slope at 0
    ((_away_from_zero(3, 4),), {}), ((_away_from_zero(3, 4),), {"negative_slope": 0.2})), backward_connected=True)
_celu = _activation("celu", _celu_fn, samples=_samples(  # as EluGrad: linear side at 0
    ((_away_from_zero(3, 4),), {}), ((_away_from_zero(3, 4, hi=2.5),), {"alpha": 0.5})))
_glu = _activation("glu", jax.nn.glu, samples=_samples(((_r(3, 4),), {"axis": -1}), ((_r(4, 2, 3),), {"axis": 0})))
_hard_sigmoid = _activation("hard_sigmoid", jax.nn.hard_sigmoid, samples=_samples(  # Relu6Grad: 0 at -3 and 3
    ((np.asarray([[-4.0, -2.5, 0.3, 2.9], [3.5, -1.2, 1.7, -3.4]], np.float32),), {})), backward_connected=True)
_hard_silu = _activation("hard_silu", jax.nn.hard_silu, samples=_samples(  # (x * hard_sigmoid: its convention)
    ((np.asarray([[-4.0, -2.5, 0.3, 2.9], [3.5, -1.2, 1.7, -3.4]], np.float32),), {})))
_hard_tanh = OpDef("hard_tanh", jax.nn.hard_tanh, samples=_samples(  # ClipByValue: passes at -1 and 1 (as jax)
    ((np.asarray([[-2.0, -0.6, 0.2, 0.9], [1.4, -1.3, 0.5, -0.1]], np.float32),), {})))
_identity = OpDef("identity", jax.nn.identity, samples=_samples(((_r(3, 4),), {})), passthrough=(0,))  # Identity
_log1mexp = _activation("log1mexp", jax.nn.log1mexp, samples=_samples(((_r(3, 4, lo=0.1, hi=3.0),), {})))  # (x > 0)
_mish = _activation("mish", jax.nn.mish, samples=_samples(((_r(3, 4, lo=-3, hi=3),), {})))
_soft_sign = _activation("soft_sign", _soft_sign_fn,  # SoftsignGrad
                         samples=_samples(((_away_from_zero(3, 4, hi=3.0),), {})))
_sparse_plus = _activation("sparse_plus", jax.nn.sparse_plus, samples=_samples(  # (continuous derivative at -1, 1)
    ((np.asarray([[-2.0, -0.6, 0.2, 0.9], [1.4, -1.3, 0.5, 2.5]], np.float32),), {})))
_sparse_sigmoid = _activation("sparse_sigmoid", _sparse_sigmoid_fn, samples=_samples(  # ClipByValue: passes at -1, 1
    ((np.asarray([[-2.0, -0.6, 0.2, 0.9], [1.4, -1.3, 0.5, -0.1]], np.float32),), {})))
_squareplus = _activation("squareplus", _squareplus_fn, samples=_samples(((_r(3, 4, lo=-3, hi=3),), {}),
                                                                         ((_r(3, 4, lo=-3, hi=3),), {"b": 0.5})))
sigmoid = tnp.sigmoid  # ``jax.nn.sigmoid``: the same op as tj.numpy's
tanh = tnp.tanh


def relu(x):
    """``jax.nn.relu``; derivative 0 at 0 (TF's ReluGrad)."""
    return _relu(x)


def relu6(x):
    """``jax.nn.relu6``; derivative 0 at 0 and 6 (TF's Relu6Grad)."""
    return _relu6(x)


def gelu(x, approximate: bool = True):
    """``jax.nn.gelu`` (tanh approximation by default, as jax)."""
    return _gelu(x, approximate=bool(approximate))


def log_sigmoid(x):
    """``jax.nn.log_sigmoid``."""
    return _log_sigmoid(x)


def softplus(x):
    """``jax.nn.softplus``: ``log(1 + exp(x))``."""
    return _softplus(x)


def silu(x):
    """``jax.nn.silu`` (``x * sigmoid(x)``)."""
    return _silu(x)


swish = silu


def elu(x, alpha=1.0):
    """``jax.nn.elu``; derivative 1 and second derivative 0 at 0 (TF's EluGrad)."""
    return _elu(x, alpha=float(alpha))


def selu(x):
    """``jax.nn.selu``; derivative ``scale`` at 0 (TF's SeluGrad)."""
    return _selu(x)


def leaky_relu(x, negative_slope=0.01):
    """``jax.nn.leaky_relu``; derivative ``negative_slope`` at 0 (TF's convention)."""
    return _leaky_relu(x, negative_slope=_number("leaky_relu", "negative_slope", negative_slope))


def celu(x, alpha=1.0):
    """``jax.nn.celu``: ``x`` for ``x > 0``, ``alpha * (exp(x / alpha) - 1)`` otherwise; at 0 the derivatives of the
    linear side (1, then 0), as ``elu``'s."""
    return _celu(x, alpha=_number("celu", "alpha", alpha))


def glu(x, axis=-1):
    """``jax.nn.glu``: ``x`` split in two halves along ``axis`` (its size must be even), ``a * sigmoid(b)``."""
    shape = tuple(tnp.shape(x))
    if not shape:
        raise ValueError("tj op 'glu': x must have at least one dimension to split, got a scalar")
    ax = _axis(as_index(freeze(axis), lambda: f"tj op 'glu': axis must be an integer, got {axis!r}"), len(shape),
               "glu")
    if shape[ax] % 2:
        raise ValueError(f"tj op 'glu': the size of axis {ax} of x (shape {shape}) must be even, to split it in "
                         f"two halves; got {shape[ax]}")
    return _glu(x, axis=ax)


def hard_sigmoid(x):
    """``jax.nn.hard_sigmoid``: ``relu6(x + 3) / 6``; derivative 0 at -3 and 3 (relu6's: TF's Relu6Grad, as jax)."""
    return _hard_sigmoid(x)


def hard_silu(x):
    """``jax.nn.hard_silu`` (``hard_swish``): ``x * hard_sigmoid(x)``, with ``hard_sigmoid``'s derivative at its
    kinks (0 at -3, 1 at 3, as jax)."""
    return _hard_silu(x)


hard_swish = hard_silu


def hard_tanh(x):
    """``jax.nn.hard_tanh``: ``x`` clipped to [-1, 1]; the gradient passes at -1 and 1 (TF's clip, as jax)."""
    return _hard_tanh(x)


def identity(x):
    """``jax.nn.identity``: ``x`` unchanged (a recorded op: its gradient is the incoming one)."""
    return _identity(x)


def log1mexp(x):
    """``jax.nn.log1mexp``: ``log(1 - exp(-x))``, for ``x > 0`` (derivative ``1 / expm1(x)``)."""
    return _log1mexp(x)


def mish(x):
    """``jax.nn.mish``: ``x * tanh(softplus(x))``."""
    return _mish(x)


def soft_sign(x):
    """``jax.nn.soft_sign``: ``x / (|x| + 1)`` (TF's softsign); second derivative 0 at 0 (abs's TF convention)."""
    return _soft_sign(x)


def sparse_plus(x):
    """``jax.nn.sparse_plus``: 0 for ``x <= -1``, ``(x + 1)**2 / 4`` between, ``x`` for ``x >= 1``."""
    return _sparse_plus(x)


def sparse_sigmoid(x):
    """``jax.nn.sparse_sigmoid``: ``(clip(x, -1, 1) + 1) / 2``; the gradient passes at -1 and 1 (TF's clip: 0.5
    there, where jax's clip gives half of it)."""
    return _sparse_sigmoid(x)


def squareplus(x, b=4):
    """``jax.nn.squareplus``: ``(x + sqrt(x**2 + b)) / 2``."""
    return _squareplus(x, b=_number("squareplus", "b", b))


def _number(op: str, name: str, v) -> "int | float":
    """A static real parameter as a Python float (a Python int as it is); anything else raises ``TypeError`` naming
    the op (float()'s own error names neither, and a string would be a ValueError)."""
    v = static(v)  # (a traced Tensor: its own error, naming the argument)
    if type(v) is int:  # (kept: jax.nn promotes an integer x with an int b to float32 also under x64)
        return v
    if isinstance(v, (numbers.Real, np.number)) and not isinstance(v, (bool, complex, np.complexfloating)):
        return float(v)
    raise TypeError(f"tj op '{op}': {name} must be a real number, got {v!r}")


# -- softmax family ---------------------------------------------------------------------------------------

def _from_output(name: str, f, grad, tangent, samples) -> OpDef:
    """An op of one array whose rules read only its output ``y``, its one residual: ``grad(y, g, **static)``
    (a JAX-convention product, made TF's by ``tf_complex_bwd``) and ``tangent(y, t, **static)``."""

    def fwd(x, **static):
        y = f(x, **static)
        return y, y
    return OpDef(name, f, fwd=fwd, bwd=_tf_complex_bwd(lambda y, g, **static: (grad(y, g, **static),)),
                 jvp=lambda p, t, y, **static: tangent(y, t[0], **static), samples=samples)


def _softmax_product(y, v, axis=-1):
    return y * (v - jnp.sum(v * y, axis=axis, keepdims=True))  # its Jacobian is symmetric: gradient = tangent


# name                               function               gradient (g) / tangent (t) from y      TF convention
_softmax = _from_output("softmax", _half_in_float32(jax.nn.softmax),  # SoftmaxGrad (computed as TF's kernel)
                        _softmax_product, _softmax_product, _samples(
    ((_r(3, 4),), {"axis": 1}), ((_r(2, 3, 4),), {"axis": 1}), ((_r(2, 3, 4),), {"axis": (0, 2)})))
_log_softmax = _from_output("log_softmax", jax.nn.log_softmax,  # LogSoftmaxGrad
                            lambda y, g, axis=-1: g - jnp.exp(y) * jnp.sum(g, axis=axis, keepdims=True),
                            lambda y, t, axis=-1: t - jnp.sum(jnp.exp(y) * t, axis=axis, keepdims=True),
                            _samples(((_r(3, 4),), {"axis": 1}), ((_r(2, 3, 4),), {"axis": 0})))
_logsumexp = OpDef("logsumexp", lambda a, *b, axis=None, keepdims=False, return_sign=False:
                   jax.nn.logsumexp(a, axis=axis, b=b[0] if b else None, keepdims=keepdims, return_sign=return_sign),
                   samples=_samples(((_r(3, 4),), {"axis": None, "keepdims": False}),
                                    ((_r(2, 3, 4),), {"axis": 1, "keepdims": True}),
                                    ((_r(3, 4), _r(3, 4, lo=0.5, hi=2.0)), {"axis": (1,), "keepdims": False}),
                                    # (log|sum| and the sign: a row of negative scale factors; fixed values, not
                                    # draws: the samples of the ops declared after stay as they were)
                                    ((np.linspace(-1.0, 1.2, 12, dtype=np.float32).reshape(3, 4),
                                      np.array([[1.0, 1.5, 0.7, 2.0], [-1.0, -0.5, -2.0, -1.2],
                                                [0.8, 1.1, 1.3, 0.6]], np.float32)),
                                     {"axis": 1, "keepdims": False, "return_sign": True})))
_logmeanexp = OpDef("logmeanexp", lambda x, *where, axis=None, keepdims=False:  # (derived, as logsumexp)
                    jax.nn.logmeanexp(x, axis=axis, where=where[0] if where else None, keepdims=keepdims),
                    samples=_samples(((_r(3, 4),), {"axis": None, "keepdims": False}),
                                     ((_r(2, 3, 4),), {"axis": 1, "keepdims": True}),
                                     ((_r(3, 4), np.array([[True, False, True, True], [False, True, False, False],
                                                           [True, True, True, True]])), {"axis": (1,)}),
                                     ((_r(2, 3, 4), np.array([[True, False, True, True]])),
                                      {"axis": (0, 2), "keepdims": True})))
def _one_hot_fn(x, *, num_classes, dtype=None, axis=-1):
    with warnings.catch_warnings():  # (one_hot warns of a float input on each call, not once per kernel traced)
        warnings.filterwarnings("ignore", "jax.nn.one_hot input should be integer-typed", DeprecationWarning)
        return jax.nn.one_hot(x, num_classes, dtype=dtype, axis=axis)


_one_hot = _not_differentiable("one_hot", _one_hot_fn)


def _where_mask(name: str, where):
    """jax.nn's ``where=`` as a boolean Tensor; another dtype raises ``ValueError`` naming the op (as jax.numpy)."""
    mask = convert_to_tensor(where)
    if mask.dtype != np.bool_:
        raise ValueError(f"tj.nn.{name}: where must be None or a boolean array; got where.dtype={mask.dtype}")
    return mask


def _masked_logits(name: str, x, where, axis):
    """jax.nn's ``where=``: ``x`` with the entries left out at -inf (outside the normalization, no gradient),
    the mask broadcast to ``x``'s shape, and whether each slice along ``axis`` selects any entry (a slice
    selecting none is filled with 0, so that no NaN appears; its outputs are replaced afterwards, as jax's)."""
    mask = tnp.broadcast_to(_where_mask(name, where), tnp.shape(x))
    selected = tnp.any(mask, axis=axis, keepdims=True)
    return tnp.where(mask, x, tnp.where(selected, -jnp.inf, 0.0)), mask, selected


def softmax(x, axis=-1, where=None):
    """``jax.nn.softmax`` over ``axis`` (an int or a tuple of ints); ``where``: the entries taking part (the others
    are 0 and get no gradient)."""
    axis = _axis(axis, tnp.ndim(x), "softmax")
    if where is None:
        return _softmax(x, axis=axis)
    x, mask, _ = _masked_logits("softmax", x, where, axis)
    return tnp.where(mask, _softmax(x, axis=axis), 0.0)


def log_softmax(x, axis=-1, where=None):
    """``jax.nn.log_softmax`` over ``axis``; ``where``: the entries taking part (the others are -inf)."""
    axis = _axis(axis, tnp.ndim(x), "log_softmax")
    if where is None:
        return _log_softmax(x, axis=axis)
    x, mask, _ = _masked_logits("log_softmax", x, where, axis)
    return tnp.where(mask, _log_softmax(x, axis=axis), -jnp.inf)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """``jax.nn.logsumexp`` (``b``: optional scale factors, broadcast against ``a``; ``where``: the entries taking
    part, -inf where none does; ``return_sign``: ``(log|sum|, sign of the sum)``, the sign without a gradient)."""
    axis = None if axis is None else _axis(axis, tnp.ndim(a), "logsumexp")
    selected = None
    if where is not None:
        a, _, selected = _masked_logits("logsumexp", a, where, axis)
        if not keepdims:
            selected = tnp.squeeze(selected, axis) if axis is not None else tnp.reshape(selected, ())
    args = (a,) if b is None else (a, b)
    if return_sign:
        result, sign = _logsumexp(*args, axis=axis, keepdims=bool(keepdims), return_sign=True)
        if selected is None:
            return result, sign
        return tnp.where(selected, result, -jnp.inf), tnp.where(selected, sign, tnp.zeros_like(sign))
    result = _logsumexp(*args, axis=axis, keepdims=bool(keepdims))
    return result if selected is None else tnp.where(selected, result, -jnp.inf)


def logmeanexp(x, axis=None, where=None, keepdims=False):
    """``jax.nn.logmeanexp``: ``logsumexp(x) - log(n)`` over ``axis`` (None: all axes), ``n`` the count of entries
    taking part (``where``: a boolean mask broadcast against ``x``; a slice selecting none gives NaN, as jax)."""
    axis = None if axis is None else _axis(axis, tnp.ndim(x), "logmeanexp")
    args = (x,) if where is None else (x, _where_mask("logmeanexp", where))
    return _logmeanexp(*args, axis=axis, keepdims=bool(keepdims))


def one_hot(x, num_classes, *, dtype=None, axis=-1):
    """``jax.nn.one_hot`` (not differentiable): ``dtype`` None is jax's default float dtype; a float ``x`` gets jax's
    DeprecationWarning on every call."""
    # (int() would truncate 2.5 to 2 classes; TF raises TypeError)
    n = as_index(freeze(num_classes), f"tj op 'one_hot': num_classes must be an integer, got {num_classes!r}")
    x = convert_to_tensor(x)
    if not jnp.issubdtype(x.dtype, jnp.integer):
        warnings.warn(f"jax.nn.one_hot input should be integer-typed; got dtype={x.dtype}", DeprecationWarning,
                      stacklevel=2)
    return _one_hot(x, num_classes=n, dtype=None if dtype is None else as_dtype("one_hot", dtype), axis=freeze(axis))


# -- convolution and pooling -------------------------------------------------------------------------

def _conv_fn(x, w, *, window_strides, padding, lhs_dilation=None, rhs_dilation=None, dimension_numbers=None,
             **options):
    """``jax.lax.conv_general_dilated``; a kernel more than a stride larger than its (dilated, padded) input is
    TF's error (checked when traced: jax would give an empty output)."""
    dn = jax.lax.conv_dimension_numbers(x.shape, w.shape, dimension_numbers)
    spatial = len(dn.lhs_spec) - 2
    lhs_d, rhs_d = lhs_dilation or (1,) * spatial, rhs_dilation or (1,) * spatial
    if not isinstance(padding, str) and len(padding) != spatial:  # (TF: ValueError; jax: TypeError)
        raise ShapeError(f"tj.nn.conv: padding {padding} has {len(padding)} (low, high) pairs for {spatial} spatial "
                         "dimensions; give one pair per spatial dimension")
    # the windows slide over the dilated input with the dilated kernel (SAME and SAME_LOWER: never negative)
    sizes = [x.shape[dn.lhs_spec[2 + i]] for i in range(spatial)]
    kernel = [w.shape[dn.rhs_spec[2 + i]] for i in range(spatial)]
    _check_output_size("tj.nn.conv", [(n - 1) * d + 1 if n else 0 for n, d in zip(sizes, lhs_d)],
                       [(k - 1) * d + 1 for k, d in zip(kernel, rhs_d)], window_strides,
                       "SAME" if isinstance(padding, str) and padding.upper() != "VALID" else padding)
    return jax.lax.conv_general_dilated(x, w, window_strides=window_strides, padding=padding,
                                        lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
                                        dimension_numbers=dimension_numbers, **options)


_conv = OpDef("conv", _conv_fn, samples=_samples(
    ((_r(2, 3, 5, 5), _r(4, 3, 3, 3)), {"window_strides": (1, 1), "padding": "SAME"}),
    ((_r(1, 2, 6, 5), _r(3, 2, 2, 3)), {"window_strides": (2, 1), "padding": ((1, 0), (0, 1)),
                                        "rhs_dilation": (1, 2)}),
    ((_r(2, 5, 5, 4), _r(3, 3, 2, 4)), {"window_strides": (1, 1), "padding": "VALID",
                                        "dimension_numbers": ("NHWC", "HWIO", "NHWC"),
                                        "feature_group_count": 2})))


def conv(x, w, window_strides, padding, lhs_dilation=None, rhs_dilation=None, dimension_numbers=None,
         feature_group_count=1, batch_group_count=1, precision=None, preferred_element_type=None):
    """``jax.lax.conv_general_dilated`` (NCHW inputs and OIHW kernels unless ``dimension_numbers`` says
    otherwise)."""
    if not isinstance(dimension_numbers, jax.lax.ConvDimensionNumbers):
        dimension_numbers = freeze(dimension_numbers)
    _check_kernel_window(tnp.shape(x), tnp.shape(w), dimension_numbers)
    _check_window_args("conv", freeze(window_strides), freeze(padding))
    return _conv(x, w, window_strides=freeze(window_strides), padding=freeze(padding),
                 lhs_dilation=freeze(lhs_dilation), rhs_dilation=freeze(rhs_dilation),
                 dimension_numbers=dimension_numbers, feature_group_count=int(feature_group_count),
                 batch_group_count=int(batch_group_count), precision=precision,
                 preferred_element_type=preferred_element_type)


conv_general_dilated = conv


def _check_kernel_window(x_shape, w_shape, dimension_numbers):
    """As TF (InvalidArgumentError "filter must not have zero elements"): a kernel with an empty spatial
    dimension is an error, which XLA would only report as a failed lowering."""
    if 0 not in tuple(w_shape):  # (no empty dimension at all: the common case, without jax's parsing per op)
        return
    try:
        dn = jax.lax.conv_dimension_numbers(x_shape, w_shape, dimension_numbers)
    except (TypeError, ValueError):
        return  # malformed shapes or dimension numbers: the op's own error says what is wrong
    empty = [d for d in dn.rhs_spec[2:] if w_shape[d] == 0]
    if empty:
        raise ValueError(f"tj.nn.conv: the kernel of shape {tuple(w_shape)} has an empty spatial dimension "
                         f"(dimension {empty[0]}); every window dimension needs at least one element")


_PADDINGS = ("SAME", "VALID", "SAME_LOWER")


def _check_window_args(op: str, strides, padding) -> None:
    """As TF (InvalidArgumentError, raised here as ValueError): a padding name other than 'SAME'/'VALID' (jax
    raises a RuntimeError), explicit padding that is not (low, high) pairs, and a stride below 1
    (which XLA reports only when it lowers the program: under a tape or in tj.function, at the first read rather
    than at the call) are errors at the call."""
    pairs = isinstance(padding, tuple) and all(isinstance(p, tuple) and len(p) == 2 for p in padding)
    if not (pairs or isinstance(padding, str) and padding.upper() in _PADDINGS):
        raise ValueError(f"tj op '{op}': padding must be 'SAME', 'VALID' or one (low, high) pair per spatial "
                         f"dimension, got {padding!r}")
    if isinstance(strides, tuple) and any(isinstance(s, int) and s < 1 for s in strides):
        raise ValueError(f"tj op '{op}': strides must be positive, got {strides}")


def _pool_dims(x_ndim, window_shape, strides, padding):
    """Full window, strides and padding for an (N, *spatial, C) input (batch and channel untouched)."""
    n_spatial = len(window_shape)
    lead = x_ndim - n_spatial - 1  # batch dimensions (0 or more)
    if lead < 0:
        raise ValueError(f"pooling: a {n_spatial}-d window needs inputs of rank >= {n_spatial + 1} "
                         f"(spatial dims then channels), got rank {x_ndim}")
    strides = (1,) * n_spatial if strides is None else tuple(strides)
    if len(strides) != n_spatial:
        raise ValueError(f"pooling: strides {strides} must have one entry per window dimension {window_shape}")
    dims = (1,) * lead + tuple(window_shape) + (1,)
    strd = (1,) * lead + strides + (1,)
    if not isinstance(padding, str):
        padding = tuple(tuple(p) for p in padding)
        if len(padding) != n_spatial:
            raise ValueError(f"pooling: padding {padding} must have one pair per window dimension")
        padding = ((0, 0),) * lead + padding + ((0, 0),)
    return dims, strd, padding


def _check_output_size(op, shape, dims, strd, pad):
    """As TF (``Negative dimension size``, conv's ``Computed output size would be negative``): a window (a pool's,
    or a convolution's dilated kernel) more than a stride larger than its padded input is an error (XLA would give
    an empty output); one at most a stride larger gives an empty output, as TF's."""
    if isinstance(pad, str):
        if pad == "SAME":  # ceil(size / stride) outputs, never negative
            return
        pad = ((0, 0),) * len(shape)
    for n, k, s, (lo, hi) in zip(shape, dims, strd, pad):
        if n + lo + hi - k + s <= -s:  # TF's size (n + lo + hi - k + s) / s, truncated in C++, is negative
            raise ValueError(f"{op}: negative output size: a window of {k} on an input dimension of {n} "
                             f"(padded by {(lo, hi)}) with stride {s}")


def _max_pool_fn(x, window_shape, strides=None, padding="VALID"):
    dims, strd, pad = _pool_dims(x.ndim, window_shape, strides, padding)
    _check_output_size("pooling", x.shape, dims, strd, pad)
    init = -jnp.inf if jnp.issubdtype(x.dtype, jnp.floating) else jnp.iinfo(x.dtype).min
    return jax.lax.reduce_window(x, np.asarray(init, x.dtype), jax.lax.max, dims, strd, pad)


def _avg_pool_fn(x, window_shape, strides=None, padding="VALID", count_include_pad=False):
    dims, strd, pad = _pool_dims(x.ndim, window_shape, strides, padding)
    _check_output_size("pooling", x.shape, dims, strd, pad)
    s = jax.lax.reduce_window(x, np.asarray(0, x.dtype), jax.lax.add, dims, strd, pad)
    if count_include_pad or pad == "VALID" or (not isinstance(pad, str) and all(p == (0, 0) for p in pad)):
        return s / np.prod(window_shape)
    ones = jnp.ones(x.shape[-len(window_shape) - 1:-1] + (1,), x.dtype)
    dims_c, strd_c = dims[-len(window_shape) - 1:], strd[-len(window_shape) - 1:]
    pad_c = pad if isinstance(pad, str) else pad[-len(window_shape) - 1:]
    counts = jax.lax.reduce_window(ones, np.asarray(0, x.dtype), jax.lax.add, dims_c, strd_c, pad_c)
    return s / counts


_max_pool = OpDef("max_pool", _max_pool_fn, samples=_samples(
    ((_r(2, 4, 4, 3),), {"window_shape": (2, 2), "strides": (2, 2), "padding": "VALID"}),
    ((_r(1, 5, 4, 2),), {"window_shape": (3, 2), "strides": (1, 2), "padding": "SAME"})),
    backward_connected=True)  # (TF's MaxPoolGradGrad: zeros, not None, for the input)
_avg_pool = OpDef("avg_pool", _half_in_float32(_avg_pool_fn), samples=_samples(  # (half precision summed in float32)
    ((_r(2, 4, 4, 3),), {"window_shape": (2, 2), "strides": (2, 2), "padding": "VALID"}),
    ((_r(1, 5, 4, 2),), {"window_shape": (3, 3), "strides": None, "padding": "SAME",
                         "count_include_pad": False}),
    ((_r(1, 5, 4, 2),), {"window_shape": (2, 2), "strides": (1, 1), "padding": ((1, 0), (0, 1)),
                         "count_include_pad": True})))


def max_pool(x, window_shape, strides=None, padding="VALID"):
    """Max pooling over the spatial dimensions of an NHWC input (``flax.linen.max_pool``'s signature);
    ``padding`` is ``'VALID'``, ``'SAME'`` or one ``(low, high)`` pair per window dimension."""
    _check_window_args("max_pool", freeze(strides), freeze(padding))
    return _max_pool(x, window_shape=freeze(window_shape), strides=freeze(strides), padding=freeze(padding))


def avg_pool(x, window_shape, strides=None, padding="VALID", count_include_pad=False):
    """Average pooling over the spatial dimensions of an NHWC input (``flax.linen.avg_pool``'s signature).

    As TF's ``avg_pool`` (pooling_ops_test: ``'SAME'`` windows average only the real elements), padded
    elements are not counted by default; ``count_include_pad=True`` divides by the full window size
    (flax's default)."""
    _check_window_args("avg_pool", freeze(strides), freeze(padding))
    return _avg_pool(x, window_shape=freeze(window_shape), strides=freeze(strides), padding=freeze(padding),
                     count_include_pad=bool(count_include_pad))


def _require_floating(op: str, arg: str, x, error=TypeError) -> None:
    """``error`` (TypeError: TF's for an op's argument of a dtype it does not take) unless ``x`` is of a floating or
    complex dtype: normalizations and losses of integers would be computed in floats and cast back, truncated."""
    xdt = x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype  # Tensors, Variables, arrays, tracers
    if not jnp.issubdtype(xdt, jnp.inexact):
        raise error(f"tj.nn.{op}: {arg} must be a floating point tensor, got dtype {xdt}; cast it first, e.g. "
                    f"{arg}.astype(jnp.float32)")


# -- normalization ----------------------------------------------------------------------------------------

def _param_shape(x_ndim, axes, p_shape, x_shape):
    """Reshape a parameter of the normalized axes' shape so it broadcasts against x."""
    if tuple(p_shape) == tuple(x_shape[a] for a in axes):
        return tuple(x_shape[i] if i in axes else 1 for i in range(x_ndim))
    return None


def _layer_norm_fn(x, *params, axis=-1, epsilon=1e-5, has_scale=False, has_offset=False):
    axes = axis if isinstance(axis, tuple) else (axis,)
    out_dtype = jnp.result_type(x)
    if out_dtype in _HALF:  # (computed in float32, as Keras's LayerNormalization: in float16, x - mean cancelled)
        x = x.astype(jnp.float32)
    mean = jnp.mean(x, axis=axes, keepdims=True)
    # as tf.nn.moments (Keras's LayerNormalization on TF): the variance around stop_gradient(mean). The same
    # first derivative (that of var w.r.t. the mean is 0), TF's second one
    var = jnp.mean(jnp.square(x - jax.lax.stop_gradient(mean)), axis=axes, keepdims=True)
    # (a division by the square root: JAX's rsqrt rule, -0.5 * t * y / v, underflows once the variance passes
    # ~1e25, and the gradient lost its variance term, 50% off at values of 1e18 where TF's RsqrtGrad is right;
    # the quotient's rules keep it to values of ~1e18, TF's to ~1e19)
    y = (x - mean) / jnp.sqrt(var + epsilon)
    params = list(params)
    if has_scale:
        p = params.pop(0)
        shp = _param_shape(x.ndim, axes, jnp.shape(p), x.shape)
        y = y * (p.reshape(shp) if shp is not None else p)
    if has_offset:
        p = params.pop(0)
        shp = _param_shape(x.ndim, axes, jnp.shape(p), x.shape)
        y = y + (p.reshape(shp) if shp is not None else p)
    return y.astype(out_dtype)


_layer_norm = OpDef("layer_norm", _layer_norm_fn, samples=_samples(
    ((_r(3, 5),), {"axis": 1}),
    ((_r(3, 5), _r(5, lo=0.5, hi=1.5), _r(5)), {"axis": 1, "has_scale": True, "has_offset": True}),
    ((_r(2, 3, 4), _r(3, 4, lo=0.5, hi=1.5)), {"axis": (1, 2), "has_scale": True, "epsilon": 1e-3}),
    ((_r(2, 3, 4), _r(1, 3, 1)), {"axis": 1, "has_offset": True})))


def layer_norm(x, scale=None, offset=None, axis=-1, epsilon=1e-5):
    """Layer normalization: ``(x - mean) / sqrt(var + epsilon) * scale + offset``, with the moments taken
    over ``axis`` (an int or tuple). ``scale``/``offset`` have the shape of the normalized axes (or any
    shape broadcasting against ``x``). Derivatives are those of TF's formula (``tf.nn.moments`` and
    ``tf.nn.batch_normalization``, as Keras's LayerNormalization), to every order."""
    _require_floating("layer_norm", "x", x)
    ax = _axis(axis, tnp.ndim(x), "layer_norm")
    params = tuple(p for p in (scale, offset) if p is not None)
    return _layer_norm(x, *params, axis=ax, epsilon=float(epsilon), has_scale=scale is not None,
                       has_offset=offset is not None)


def _standardize_fn(x, *arrays, axis=-1, epsilon=1e-5, algorithm="fast", has_mean=False, has_variance=False,
                    has_where=False):
    given = iter(arrays)
    mean, variance, where = (next(given) if has else None for has in (has_mean, has_variance, has_where))
    return jax.nn.standardize(x, axis, mean, variance, epsilon, where, algorithm=algorithm)


# (the first sample is "stable": the "fast" variance is clipped at 0, which jax rejects for complex inputs, and
# test_complex.py differentiates each op's first sample at complex values)
# (derived: jax.nn.standardize itself; half precision computed in float32, as layer_norm)
_standardize = OpDef("standardize", _half_in_float32(_standardize_fn), samples=_samples(
    ((_r(2, 3, 4),), {"axis": (1, 2), "algorithm": "stable", "epsilon": 1e-3}),
    ((_r(3, 5),), {"axis": 1}),
    ((_r(3, 5), _r(3, 1), _r(3, 1, lo=0.5, hi=1.5)), {"axis": 1, "has_mean": True, "has_variance": True}),
    ((_r(4, 3), _r(1, 3, lo=0.5, hi=1.5)), {"axis": 0, "has_variance": True, "algorithm": "stable"}),
    ((_r(3, 5), np.array([[True, True, False, True, False], [True, False, True, True, True],
                          [False, True, True, False, True]])), {"axis": 1, "has_where": True})))


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *, algorithm="fast"):
    """``jax.nn.standardize``: ``(x - mean) / sqrt(variance + epsilon)``, the moments over ``axis`` (an int, a tuple,
    None: all axes) unless given (``mean``/``variance``: arrays broadcasting against ``x``, differentiable too);
    ``where``: the entries the moments are taken over; ``algorithm``: ``'fast'`` (``E[x^2] - E[x]^2``, clipped at 0)
    or ``'stable'`` (two passes), as jax."""
    ax = _axis(axis, tnp.ndim(x), "standardize")
    algorithm = static(algorithm)
    if algorithm not in ("fast", "stable"):
        raise ValueError(f"tj op 'standardize': unknown algorithm {algorithm!r}; expected 'fast' or 'stable'")
    arrays = tuple(a for a in (mean, variance) if a is not None)
    if where is not None:
        arrays += (_where_mask("standardize", where),)
    return _standardize(x, *arrays, axis=ax, epsilon=_number("standardize", "epsilon", epsilon), algorithm=algorithm,
                        has_mean=mean is not None, has_variance=variance is not None, has_where=where is not None)


def _bn_axes(shape, axis):
    """The reduced axes, their element count, and the shape a per-channel vector broadcasts with."""
    red = tuple(i for i in range(len(shape)) if i != axis)
    bs = tuple(-1 if i == axis else 1 for i in range(len(shape)))
    return red, int(np.prod([shape[i] for i in red], dtype=np.int64)), bs


def _bn_moments(x, epsilon, axis):
    red, n, bs = _bn_axes(x.shape, axis)
    mean = jnp.mean(x, axis=red)
    var = jnp.mean(jnp.square(x - mean.reshape(bs)), axis=red)
    return mean, var, jax.lax.rsqrt(var + epsilon), n, bs


def _bn_compute(x, scale, offset):
    """x in the compute dtype: the parameters' (TF's FusedBatchNorm: float16 x with float32 scale and offset is
    normalized in float32; y keeps x's dtype, the moments and parameter gradients are float32), float32 for half
    precision parameters too (TF's take float32 only)."""
    dtype = jnp.result_type(x, scale, offset)
    return x.astype(jnp.float32 if dtype in _HALF else dtype)


def _bn_statistics(mean, var, n):
    """The batch moments output, without a derivative: TF's FusedBatchNormGrad reads only y's gradient (those of
    batch_mean and batch_var, meant for running averages, are dropped), so they are constants to every path."""
    return jax.lax.stop_gradient(mean), jax.lax.stop_gradient(var * (n / max(n - 1, 1)))


def _bn_outputs(xc, x_dtype, scale, offset, mean, var, inv, n, bs):
    # (TF's FusedBatchNorm: the centered x times one factor, rsqrt(var + epsilon) * scale, plus the offset)
    y = (xc - mean.reshape(bs)) * (inv * scale).reshape(bs) + offset.reshape(bs)
    moments_dtype = jnp.result_type(scale, offset)  # (the parameters' dtype, also where computed in float32)
    return (y.astype(x_dtype),) + tuple(m.astype(moments_dtype) for m in _bn_statistics(mean, var, n))


def _bn_fn(x, scale, offset, epsilon=1e-3, axis=-1):
    xc = _bn_compute(x, scale, offset)
    mean, var, inv, n, bs = _bn_moments(xc, epsilon, axis)
    return _bn_outputs(xc, x.dtype, scale, offset, mean, var, inv, n, bs)


def _bn_fwd(x, scale, offset, epsilon=1e-3, axis=-1):
    # y as _bn_fn computes it (a recorded op's value is the unrecorded one's, bit for bit); xhat for the backward
    xc = _bn_compute(x, scale, offset)
    mean, var, inv, n, bs = _bn_moments(xc, epsilon, axis)
    xhat = (xc - mean.reshape(bs)) * inv.reshape(bs)
    return _bn_outputs(xc, x.dtype, scale, offset, mean, var, inv, n, bs), (xhat, inv, scale)


def _bn_bwd(res, cts, epsilon=1e-3, axis=-1):
    xhat, inv, scale = res
    gy = cts[0]  # (batch_mean's and batch_var's are ignored, as TF's: None where not asked, accepts_none)
    x_dtype = gy.dtype  # y's, which is x's; xhat is in the compute dtype
    gy = gy.astype(xhat.dtype)
    red, n, bs = _bn_axes(xhat.shape, axis)
    sum_gy = jnp.sum(gy, axis=red)
    sum_gy_xhat = jnp.sum(gy * xhat, axis=red)
    dx = (scale * inv).reshape(bs) / n * (n * gy - sum_gy.reshape(bs) - xhat * sum_gy_xhat.reshape(bs))
    return dx.astype(x_dtype), sum_gy_xhat.astype(scale.dtype), sum_gy.astype(scale.dtype)


# backward_connected=(0, 1): TF's FusedBatchNormGrad takes x and scale (not offset), and its gradient gives
# zeros, not None, for them (the offset gradient's derivative in x, the scale gradient's in scale)
_batch_norm = OpDef("batch_norm", _bn_fn, fwd=_bn_fwd, bwd=_tf_complex_bwd(_bn_bwd), accepts_none=(1, 2),
                    backward_connected=(0, 1), samples=_samples(
    ((_r(6, 3), _r(3, lo=0.5, hi=1.5), _r(3)), {"axis": 1}),
    ((_r(2, 3, 3, 4), _r(3, lo=0.5, hi=1.5), _r(3)), {"axis": 1, "epsilon": 1e-2})))


def batch_norm(x, scale, offset, epsilon=1e-3, axis=-1):
    """Training-mode fused batch normalization (TF's ``FusedBatchNorm``): normalizes ``x`` with the moments
    over every axis except ``axis`` (the channel axis), then scales and shifts per channel.

    Returns ``(y, batch_mean, batch_var)``; as TF's fused kernel, ``batch_var`` is the Bessel-corrected
    (``n / (n - 1)``) variance meant for running averages, while ``y`` uses the biased one. Gradients flow from
    ``y`` only, as TF's (its gradient function drops those of the moments: their gradients w.r.t. the inputs are
    zeros, their forward-mode tangents None); for differentiable moments use ``tj.numpy.mean``/``var``."""
    _require_floating("batch_norm", "x", x)  # (TF's FusedBatchNorm takes float16, bfloat16, float32)
    ax = _axis(axis, tnp.ndim(x), "batch_norm")
    channels = tnp.shape(x)[ax]
    for name, p in (("scale", scale), ("offset", offset)):
        # as TF (InvalidArgumentError "scale must have the same number of elements as the channels of x"): not a
        # broadcasting error from inside the op
        if tuple(tnp.shape(p)) != (channels,):
            raise ValueError(f"tj.nn.batch_norm: {name} must be a vector with one element per channel of x "
                             f"(axis {ax}: {channels}), got shape {tuple(tnp.shape(p))}")
    return _batch_norm(x, scale, offset, epsilon=float(epsilon), axis=ax)


# -- attention ----------------------------------------------------------------------------------------------

_ATTENTION_OPTIONAL = ("bias", "mask", "query_seq_lengths", "key_value_seq_lengths")


def _dpa_fn(query, key, value, *arrays, has_bias=False, has_mask=False, has_query_seq_lengths=False,
            has_key_value_seq_lengths=False, scale=None, is_causal=False, local_window_size=None,
            implementation=None, return_residual=False):
    given = iter(arrays)
    bias, mask, q_len, kv_len = (next(given) if has else None for has in (
        has_bias, has_mask, has_query_seq_lengths, has_key_value_seq_lengths))
    complex_args = [name for name, a in (("query", query), ("key", key), ("value", value), ("bias", bias))
                    if a is not None and jnp.iscomplexobj(a)]
    if complex_args:  # (jax casts the complex logits to real, dropping their imaginary part, and warns it will raise)
        raise TypeError(f"dot_product_attention takes real floating arguments; {', '.join(complex_args)} "
                        "complex: its softmax has no complex form. Attend over real and imaginary parts as you "
                        "mean them (e.g. on tj.numpy.real/imag, or on the logits' magnitude) with tj.nn.softmax.")
    if query.dtype == jnp.float16 and jax.default_backend() == "cpu":
        # XLA:CPU compiles no float16 dot with float32 accumulation (jax's logits), so a compiled kernel fails where
        # jax's op-by-op call works: computed in float32 there, the result given in float16
        wide = [a if a is None or a.dtype != jnp.float16 else a.astype(jnp.float32) for a in (query, key, value, bias)]
        out = _dpa_fn(*[a for a in wide if a is not None], *[a for a in (mask, q_len, kv_len) if a is not None],
                      has_bias=has_bias, has_mask=has_mask, has_query_seq_lengths=has_query_seq_lengths,
                      has_key_value_seq_lengths=has_key_value_seq_lengths, scale=scale, is_causal=is_causal,
                      local_window_size=local_window_size, implementation=implementation,
                      return_residual=return_residual)
        return tuple(o.astype(jnp.float16) for o in out) if return_residual else out.astype(jnp.float16)
    out = jax.nn.dot_product_attention(query, key, value, bias, mask, scale=scale, is_causal=is_causal,
                                       query_seq_lengths=q_len, key_value_seq_lengths=kv_len,
                                       local_window_size=local_window_size, implementation=implementation,
                                       return_residual=return_residual)
    return tuple(out) if return_residual else out


def _attention_sample(b, t, s, n, k, h, *, bias=False, mask=None, q_len=None, kv_len=None, **static):
    args = [_r(b, t, n, h), _r(b, s, k, h), _r(b, s, k, h)]
    if bias:
        args.append(_r(1, n, t, s))
    if mask is not None:
        args.append(mask)
    for lengths in (q_len, kv_len):
        if lengths is not None:
            args.append(np.asarray(lengths, np.int32))
    return tuple(args), dict(static, has_bias=bias, has_mask=mask is not None,
                             has_query_seq_lengths=q_len is not None, has_key_value_seq_lengths=kv_len is not None)


_CAUSAL_4X5 = np.tril(np.ones((4, 5), bool), 1)[None, None]  # (every row keeps a key: no row of -inf logits)

# derived: the kernels are jax.vjp/jax.jvp of jax's XLA implementation (its residual output is a stop_gradient, so
# its gradient is zeros, as under jax.grad). The samples keep at least one key per query row (a fully masked row's
# logits are all jax's large negative number; its residual is about -2.4e38, too large for finite differences)
_dot_product_attention = OpDef("dot_product_attention", _dpa_fn, samples=_samples(
    _attention_sample(2, 3, 4, 2, 2, 4),
    _attention_sample(1, 4, 5, 4, 2, 3, bias=True, mask=_CAUSAL_4X5, scale=0.5),
    _attention_sample(2, 4, 4, 2, 1, 3, is_causal=True, kv_len=[3, 4], local_window_size=(1, 2)),
    _attention_sample(2, 3, 5, 2, 2, 2, q_len=[2, 3], kv_len=[5, 2], bias=True)))


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None, is_causal=False,
                          query_seq_lengths=None, key_value_seq_lengths=None, local_window_size=None,
                          implementation=None, return_residual=False):
    """``jax.nn.dot_product_attention``: ``softmax(query @ key^T * scale + bias, masked) @ value`` per head, on
    ``(B, T, N, H)`` queries and ``(B, S, K, H)`` keys and values (or without the batch dimension; ``N`` a multiple of
    ``K``: grouped-query attention), ``scale`` by default ``1 / sqrt(H)``. ``bias`` (added to the logits) and
    ``mask`` (boolean, True where a query attends) broadcast to ``(B, N, T, S)``; ``query_seq_lengths`` and
    ``key_value_seq_lengths`` (int32, shape ``(B,)``) mask padding, ``is_causal`` and ``local_window_size`` (an int
    or ``(left, right)``) mask by position. Differentiable in query, key, value and bias. With ``return_residual``,
    returns ``(output, logsumexp)``, the logsumexp of each query's logits (``(B, T, N)``, a stop_gradient as in
    jax: its gradient is zeros). ``implementation``: None or ``'xla'`` (jax's XLA implementation); ``'cudnn'`` runs
    jax's cuDNN kernel, which needs a CUDA GPU (elsewhere a RuntimeError, as jax's) and, as in jax, has reverse mode
    only. Real floating arguments: a complex one raises TypeError (jax would drop the logits' imaginary part)."""
    implementation = static(implementation)
    if implementation not in (None, "xla", "cudnn"):
        raise ValueError(f"tj op 'dot_product_attention': unsupported implementation {implementation!r}; expected "
                         "None, 'xla' or 'cudnn'")
    if implementation == "cudnn" and jax.default_backend() != "gpu":  # (jax: RuntimeError 'cuDNN is not detected')
        raise RuntimeError("tj op 'dot_product_attention': implementation='cudnn' needs a CUDA GPU with cuDNN, and "
                           f"the default backend is {jax.default_backend()!r}; use implementation=None or 'xla'")
    optional = dict(zip(_ATTENTION_OPTIONAL, (bias, mask, query_seq_lengths, key_value_seq_lengths)))
    q_shape = tuple(tnp.shape(query))
    if len(q_shape) <= 4:
        heads = ((1,) * (4 - len(q_shape)) + q_shape)[2]
        for name in ("bias", "mask"):  # (jax asserts: an AssertionError, not an error naming the argument)
            shape = None if optional[name] is None else tuple(tnp.shape(optional[name]))
            if shape is not None and len(shape) <= 4 and ((1,) * (4 - len(shape)) + shape)[1] not in (1, heads):
                raise ValueError(f"tj op 'dot_product_attention': {name} of shape {shape} must broadcast to "
                                 f"(B, N, T, S) with N = {heads} query heads: its head dimension must be 1 or {heads}")
    if local_window_size is not None:
        window = freeze(local_window_size)
        window = (window, window) if not isinstance(window, tuple) else window
        msg = (f"tj op 'dot_product_attention': local_window_size must be an int or a pair of ints (left, right), "
               f"got {local_window_size!r}")
        if len(window) != 2:
            raise ValueError(msg)
        local_window_size = tuple(as_index(w, msg) for w in window)
    out = _dot_product_attention(
        query, key, value, *(a for a in optional.values() if a is not None),
        **{f"has_{name}": a is not None for name, a in optional.items()},
        scale=None if scale is None else _number("dot_product_attention", "scale", scale),
        is_causal=bool(is_causal), local_window_size=local_window_size, implementation=implementation,
        return_residual=bool(return_residual))
    return tuple(out) if return_residual else out


# -- dropout -----------------------------------------------------------------------------------------

def _dropout_fn(x, key, rate):
    keep = jax.random.bernoulli(key, 1.0 - rate, jnp.shape(x))
    return jnp.where(keep, x / (1.0 - rate), jnp.zeros_like(x)).astype(jnp.result_type(x))


# Samples built lazily: a PRNG key made at import would start JAX's backend, and then
# jax.distributed.initialize (tj.distributed.initialize) could no longer be called after `import tapejax`.
_dropout = OpDef("dropout", _dropout_fn, samples=lambda: [((_r(4, 5), jax.random.PRNGKey(0)), {"rate": 0.5}),
                                                          ((_r(3, 4), jax.random.key(3)), {"rate": 0.25})])


def dropout(x, rate, key):
    """Inverted dropout (``tf.nn.dropout``): each element is kept with probability ``1 - rate`` and scaled by
    ``1 / (1 - rate)``. ``key`` is a jax PRNG key; ``rate == 0`` returns ``x`` unchanged."""
    if not isinstance(rate, numbers.Real) or isinstance(rate, bool):
        r = np.asarray(static(rate))  # (a traced Tensor raises, and the error names the argument)
        if r.ndim:  # as TF: ValueError, not numpy's TypeError
            raise ValueError(f"tj.nn.dropout: rate must be a scalar, got shape {r.shape}")
        rate = _number("dropout", "rate", r[()] if r.dtype != object else rate)
    if not 0 <= rate < 1:
        raise ValueError(f"tj.nn.dropout: rate must be a number in [0, 1), got {rate}")
    # as TF (ValueError): integers scaled by 1 / (1 - rate) would be truncated
    _require_floating("dropout", "x", x, ValueError)
    if rate == 0:
        return x if isinstance(x, Tensor) else convert_to_tensor(x)
    if isinstance(key, (Tensor, Variable)):
        key = key.value if isinstance(key, Tensor) else key.read_value().value
    return _dropout(x, key, rate=float(rate))


# -- losses: TF's fused cross entropies, outputs (loss, backprop) --------------------------------------------
# Both rules take None for the backprop output's gradient (accepts_none): only a loss is usually differentiated.

def _xent_fwd(labels, logits, axis=-1):
    lsm = jax.nn.log_softmax(logits, axis=axis)
    loss = -jnp.sum(labels * lsm, axis=axis)
    # The backward reads this output as TF's does (grad_loss * backprop): TF differentiates it through its own
    # rule, which gives the labels nothing from it, so the second-order derivative w.r.t. the labels is 0
    backprop = jnp.exp(lsm) - jax.lax.stop_gradient(labels)
    return (loss, backprop), (backprop, lsm)


def _xent_bwd(res, cts, axis=-1):
    backprop, lsm = res
    g_loss, g_bp = cts  # g_bp is None unless the backprop output itself is differentiated (accepts_none)
    g = jnp.expand_dims(g_loss, axis)
    # TF's gradient w.r.t. the logits is its backprop output, softmax - labels: the derivative of the loss
    # where the labels sum to 1, and TF's value where they do not (a single class, unnormalized labels)
    d_logits = g * backprop
    d_labels = -g * lsm
    if g_bp is not None:
        sm = jnp.exp(lsm)
        d_logits = d_logits + sm * (g_bp - jnp.sum(g_bp * sm, axis=axis, keepdims=True))
        d_labels = d_labels - g_bp
    return d_labels.astype(lsm.dtype), d_logits.astype(lsm.dtype)


def _xent_jvp(p, t, out, axis=-1):
    labels, logits = p
    t_labels, t_logits = t
    lsm = jax.nn.log_softmax(logits, axis=axis)
    sm = jnp.exp(lsm)
    t_lsm = t_logits - jnp.sum(sm * t_logits, axis=axis, keepdims=True)
    # the transpose of _xent_bwd: d loss = sum(backprop * d logits) - sum(log_softmax * d labels), with backprop
    # constant in the labels at higher orders, as the residual of _xent_fwd (JAX differentiates this rule)
    t_loss = jnp.sum((sm - jax.lax.stop_gradient(labels)) * t_logits - lsm * t_labels, axis=axis)
    return t_loss, sm * t_lsm - t_labels


@functools.partial(jax.custom_jvp, nondiff_argnums=(2,))
def _xent_fn(labels, logits, axis=-1):
    """The op's function, with TF's derivative (``_xent_jvp``: JAX transforms of it agree with the tape)."""
    return _xent_fwd(labels, logits, axis)[0]  # XLA drops the residuals nothing reads


@_xent_fn.defjvp
def _xent_fn_jvp(axis, primals, tangents):
    out = _xent_fn(*primals, axis)
    return out, _xent_jvp(primals, tangents, out, axis)


def _sparse_xent_fn(labels, logits):
    lsm = jax.nn.log_softmax(logits, axis=-1)
    onehot = jax.nn.one_hot(labels, logits.shape[-1], dtype=logits.dtype)
    loss = -jnp.sum(onehot * lsm, axis=-1)
    # a label outside [0, classes) gives NaN loss and gradient row, as TF on GPU and under XLA (TF's CPU kernel
    # raises, which a compiled kernel cannot); one_hot alone would silently give a zero label
    valid = (labels >= 0) & (labels < logits.shape[-1])
    nan = jnp.asarray(jnp.nan, logits.dtype)
    return jnp.where(valid, loss, nan), jnp.where(valid[..., None], jnp.exp(lsm) - onehot, nan)


def _sparse_xent_fwd(labels, logits):
    (loss, backprop) = _sparse_xent_fn(labels, logits)
    return (loss, backprop), (backprop, labels)


def _sparse_xent_bwd(res, cts):
    backprop, labels = res
    g_loss, g_bp = cts
    d_logits = g_loss[..., None] * backprop
    if g_bp is not None:
        sm = backprop + jax.nn.one_hot(labels, backprop.shape[-1], dtype=backprop.dtype)
        d_logits = d_logits + sm * (g_bp - jnp.sum(g_bp * sm, axis=-1, keepdims=True))
    return None, d_logits.astype(backprop.dtype)  # labels: integer class indices, no gradient


def _sparse_xent_jvp(p, t, out):
    labels, logits = p
    sm = out[1] + jax.nn.one_hot(labels, logits.shape[-1], dtype=logits.dtype)
    t_logits = t[1]
    t_lsm = t_logits - jnp.sum(sm * t_logits, axis=-1, keepdims=True)
    onehot = jax.nn.one_hot(labels, logits.shape[-1], dtype=logits.dtype)
    return -jnp.sum(onehot * t_lsm, axis=-1), sm * t_lsm


def _probs(*shape, axis=-1):
    z = _r(*shape, lo=-2, hi=2).astype(np.float64)  # numpy, not jax: nothing may start JAX's backend at import
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return np.asarray(e / e.sum(axis=axis, keepdims=True), np.float32)


# name                                              function       rules                                   TF op
_xent = OpDef("softmax_cross_entropy_with_logits", _xent_fn, fwd=_xent_fwd, bwd=_tf_complex_bwd(_xent_bwd),
              jvp=_xent_jvp, accepts_none=(1,), backward_connected=True,  # SoftmaxCrossEntropyWithLogits
              samples=_samples(((_probs(3, 5), _r(3, 5)), {"axis": 1}),
                               ((_probs(2, 4, 3, axis=0), _r(2, 4, 3)), {"axis": 0})))
_sparse_xent = OpDef("sparse_softmax_cross_entropy_with_logits", _sparse_xent_fn, fwd=_sparse_xent_fwd,
                     bwd=_tf_complex_bwd(_sparse_xent_bwd), jvp=_sparse_xent_jvp, accepts_none=(1,),  # Sparse...
                     samples=_samples(((np.array([0, 3, 2], np.int32), _r(3, 4)), {}),
                                      ((np.array([[1, 0], [2, 2]], np.int32), _r(2, 2, 3)), {})))


def softmax_cross_entropy_with_logits(labels, logits, axis=-1):
    """``tf.nn.softmax_cross_entropy_with_logits``: per-example ``-sum(labels * log_softmax(logits))`` over
    ``axis``. Differentiable in both arguments (one fused op, as TF's SoftmaxCrossEntropyWithLogits): as TF,
    the gradient w.r.t. the logits is ``softmax(logits) - labels`` (the derivative where the labels are
    distributions), and ``labels`` may broadcast against ``logits``."""
    _require_floating("softmax_cross_entropy_with_logits", "logits", logits)
    l_shape, z_shape = tnp.shape(labels), tnp.shape(logits)
    if l_shape != z_shape:  # as TF's kernel, labels broadcast against the logits (their gradient is summed back)
        try:
            ok = np.broadcast_shapes(l_shape, z_shape) == z_shape
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"softmax_cross_entropy_with_logits: labels of shape {l_shape} must have the shape of "
                             f"the logits, {z_shape}, or broadcast to it")
        labels = tnp.broadcast_to(labels, z_shape)
    ax = _axis(axis, tnp.ndim(logits), "softmax_cross_entropy_with_logits")
    z_dtype, precise = _precise_logits_dtype(logits)
    # As TF: the labels are cast to the (precise) logits' dtype, so the loss has the logits' dtype and the labels'
    # gradient comes back through the cast in the labels' own dtype (float32 labels with float16 logits gave a
    # float32 loss and a float16 labels gradient)
    if getattr(labels, "dtype", None) != precise:
        labels = tnp.astype(labels, precise)
    if precise != z_dtype:
        return tnp.astype(_xent(labels, tnp.astype(logits, precise), axis=ax)[0], z_dtype)
    return _xent(labels, logits, axis=ax)[0]


def _precise_logits_dtype(logits):
    """``(logits' dtype, the dtype the loss is computed in)``: float32 for float16 logits, as TF's cross entropies
    compute (then cast the loss back); bfloat16 is computed as it is, as TF's."""
    z_dtype = jnp.dtype(logits.dtype if hasattr(logits, "dtype") else convert_to_tensor(logits).dtype)
    return z_dtype, (jnp.dtype(jnp.float32) if z_dtype == jnp.float16 else z_dtype)


def sparse_softmax_cross_entropy_with_logits(labels, logits):
    """``tf.nn.sparse_softmax_cross_entropy_with_logits``: ``labels`` are class indices of shape
    ``logits.shape[:-1]``; returns the per-example losses. Not differentiable w.r.t. ``labels``."""
    if not tnp.ndim(logits):
        raise ValueError("sparse_softmax_cross_entropy_with_logits: `logits` cannot be a scalar (as TF): it needs a "
                         "class dimension")
    if tnp.shape(labels) != tnp.shape(logits)[:-1]:
        raise ValueError(f"sparse_softmax_cross_entropy_with_logits: labels of shape {tnp.shape(labels)} must have "
                         f"the shape of logits without its last dimension, {tnp.shape(logits)[:-1]}")
    _require_floating("sparse_softmax_cross_entropy_with_logits", "logits", logits)
    if tnp.shape(logits)[-1] == 0:  # (TF: InvalidArgumentError; the loss would be NaN)
        raise ValueError("sparse_softmax_cross_entropy_with_logits: logits must have at least one class, got shape "
                         f"{tnp.shape(logits)}")
    # (a jax array or a value traced by a JAX transformation of tapejax code has its dtype: no np.asarray of it)
    ldt = getattr(labels, "dtype", None)
    if ldt is None:
        ldt = np.asarray(labels).dtype
    if ldt not in (np.int32, np.int64):  # as TF (Tlabels): float labels would silently give a wrong loss
        raise TypeError(f"sparse_softmax_cross_entropy_with_logits: labels must be int32 or int64 class indices, "
                        f"got dtype {ldt}; cast them with .astype(jnp.int32), or use "
                        "softmax_cross_entropy_with_logits for probability labels.")
    z_dtype, precise = _precise_logits_dtype(logits)
    if precise != z_dtype:  # (float16 logits computed in float32, as TF)
        return tnp.astype(_sparse_xent(labels, tnp.astype(logits, precise))[0], z_dtype)
    return _sparse_xent(labels, logits)[0]

__dir__ = public_dir(__name__)
