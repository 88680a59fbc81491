"""``tj.numpy``: the differentiable array API, mirroring ``jax.numpy`` names and signatures.

Ops are declared by family (declare.py says how): a factory, then a table with one line per op, its
derivative beside it and a comment on the TF convention it follows where TF's gradient is not simply the
derivative of the function. Hand-written rules keep only the residuals they need; the other ops' kernels
are derived by JAX from their function. The tables, in file order:

* elementwise unary (``_unary``): ``d(x, y)``, the derivative at ``x`` (``y = f(x)``); the gradient is
  ``g * conj(d)``, the tangent ``t * d``. TF's ``SqrtGrad``, ``RsqrtGrad``, ``ReciprocalGrad``... multiply
  with ``mul_no_nan`` (``no_nan=True``): a zero gradient gives 0 where the derivative is infinite; derivatives
  are written with TF's ops (``_tf_reciprocal``, ``_tf_sqrt``...) so that the second order is TF's too. ``abs``
  has derivative ``sign(x)``, 0 at 0; ``sign`` has derivative 0 (TF's ``SignGrad``). ``sigmoid``, ``rsqrt`` and ``erf``
  (TF's ``tf.math`` names) are here too; ``tj.nn.sigmoid`` is the same op.
* elementwise binary (``_binary``): the partial products ``dx(x, y, out, g)``, ``dy(...)``; gradients are
  summed back over broadcast axes. ``maximum``/``minimum`` give a tie's whole gradient to ``x`` (TF's
  ``MaximumGrad``); ``power``'s exponent gradient is 0 where ``x <= 0`` (``x == 0`` for complex ``x``: TF's
  ``PowGrad``); ``mod`` is TF's
  ``FloorMod`` (``d/dy = -floor(x / y)``).
* no gradient (``_no_gradient``): comparisons, logic, bit operations, and the rounding ops and ``floor_divide``
  (TF registers their gradients as None); never recorded, so their gradient is None.
* reductions (``_reduction``): ``sum``/``mean`` are linear (their backward keeps only the input's shape);
  ``max``/``min`` share a tie's gradient equally (TF's ``_MinOrMaxGrad``, NaN where the result is NaN); the others are derived.
* matrix products: ``matmul`` (backward on the conjugated operands, TF's complex convention), ``dot``,
  ``einsum``, ``outer``.
* shape ops: those that only move or copy elements (``_linear_shape_op``: reshape, transpose,
  broadcast_to, concatenate) have the tangent ``f(t)`` and a backward that reads only the inputs' shapes;
  the others are derived (the scatter-add of their gathers). ``clip`` passes the gradient to ``x`` at the
  bounds (TF's ``ClipByValueGrad``); ``sort(descending=True)`` keeps ties in their original order, so its
  gradient reaches them as TF's does.
* indexing: ``getitem``, whose backward scatter-adds into zeros of the input's shape; jax.Array's indexed
  updates ``x.at[index].set(values)``... (``at``, one op per method: ``at_set``, ``at_add``..., ``at_get``),
  with jax's derivatives and out-of-bounds modes.
* more of jax.numpy (at the end): functions composed of the ops above (``quantile``, ``cross``, ``cov``, the
  ``nan*`` reductions...), so every path differentiates them with the rules above, and functions of values with
  no gradient (``unique``, ``nonzero``, ``searchsorted``...).

Complex values follow TF's convention: a backward rule computes ``grad * conj(dy/dx)`` (JAX's VJPs compute
``ct * dy/dx``), so for a real loss the gradient is ``conj(jax.grad(L))``. Hand-written rules conjugate
explicitly (``rules.conj``, ``rules.tf_complex_vjp``); derived kernels are converted in core. Tangents
(JVP rules) are the same in both conventions.

Indexing (``getitem``, ``take``, ``take_along_axis``) raises ``IndexError`` for out-of-bounds indices
and ``TypeError`` for float ones, as TF and NumPy, whenever the index values are known (see ``getitem``).
"""
from __future__ import annotations

import builtins
import functools
import inspect
import math
import operator
import re
import warnings
from typing import Any, Callable, Optional, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from .. import tape_set, vspace
from ..tensor import (LazyTensor, Tensor, TracedValueError, Variable, broadcasts_to, convert_to_tensor, is_float,
                      is_weakly_typed, numpy_sequence_dtype, pending_source, pending_value, refuse_narrowing,
                      set_list_packer, traced_argument_error)
from . import linalg  # noqa: F401  (``tj.numpy.linalg``: norm, solve, inv, cholesky, det, ...)
from . import complex_c99 as _complex_c99
from .core import (OpDef, ShapeError, apply, as_dtype, as_index, check_axis as _check_axis,
                   check_result_size, freeze, inexact_dtype, named_error, record_identity, refuse_array_dtype,
                   static)
from .declare import (HALF as _HALF, half_in_float32 as _half_in_float32, no_gradient as _recorded_without_gradient,
                      not_differentiable as _not_differentiable, samples as _samples)
# (kernel helpers on raw arrays, under private names: tj.numpy's public names are recorded ops)
from .rules import (cast_like as _cast_like, conj as _conj_values, mul_no_nan as _mul_no_nan,
                    plain_primal as _plain_primal, scale_no_nan as _scale_no_nan, sign as _tf_sign,
                    sqrt_grad as _sqrt_grad, times_sign as _times_sign,
                    tf_complex_vjp as _tf_complex_vjp, tf_reciprocal as _tf_reciprocal, tf_rsqrt as _tf_rsqrt,
                    tf_sqrt as _tf_sqrt, unbroadcast as _unbroadcast)

# public names jax.numpy lacks: TF's ops and indexing, and jax.numpy's minmax and top_k, which tj.numpy has on every
# jax version (jax.numpy from 0.11): listed by tj.numpy.__all__ and dir() on jax 0.10 too
TF_EXTRAS = ("add_n", "erf", "rsqrt", "sigmoid", "getitem", "minmax", "top_k")

# -- sample inputs for the registry-wide gradient test (declare.py: drawn in declaration order) ------------
_rng = np.random.default_rng(0)


def _r(*shape, lo=-1.5, hi=1.5):
    return np.asarray(_rng.uniform(lo, hi, size=shape), np.float32)


def _pos(*shape):
    return _r(*shape, lo=0.3, hi=2.0)


def _between(lo, hi):
    return lambda *shape: _r(*shape, lo=lo, hi=hi)


def _token(x):
    """A zero-size array carrying x's shape and dtype: all a backward that reads only shapes needs."""
    return jnp.zeros((0,) + jnp.shape(x), jnp.result_type(x))


def _public(surface: Callable, name: str, doc: str) -> Callable:
    surface.__name__ = surface.__qualname__ = name
    surface.__doc__ = doc
    return surface


# -- elementwise unary ops ------------------------------------------------------------------------------

_infinite_operand = _complex_c99.infinite_operand


def _c99_mul(a, b):
    """``a * b`` of a derivative's factors, each infinite one as C99's product meets it (``_infinite_operand``)."""
    return _infinite_operand(_infinite_operand(a) * _infinite_operand(b))


def _unary(name: str, f, d, *, no_nan: bool = False, real_out: bool = False, grad=None, domain=_r,
           mul=None, ufunc: bool = False) -> Callable:
    """The public function of an elementwise op whose derivative is ``d(x, y)`` (y = f(x)); gradient
    g*conj(d), tangent t*d.

    ``no_nan``: the derivative may be infinite (sqrt...): a zero incoming gradient gives 0, not NaN.
    ``real_out``: the op maps complex to real (abs); ``d`` is then JAX's ``dy/dz`` (the tangent is
    ``real(t*d)``).
    ``mul``: how a gradient or tangent meets the derivative, ``mul(g, d)``, where neither plain product nor
    ``no_nan``'s is TF's (``abs``).
    ``grad``: TF's gradient kernel ``grad(y, g)``, the gradient where its own derivative (the second order)
    is not that of ``g * conj(d)`` (``SqrtGrad``'s).
    ``ufunc``: jax.numpy's function is a ``jnp.ufunc`` (``negative``): the surface takes its ``out=``/``where=``.

    The backward is differentiated by JAX for the second order: ``f`` and ``d`` are written with TF's ops
    (``_tf_reciprocal``, ``_tf_sqrt``... whose derivatives are TF's no-NaN kernels, rules.py) where TF's
    gradient uses them, so that a zero gradient of the gradient gives TF's 0 rather than ``0 * inf``."""
    mul = mul or (_mul_no_nan if no_nan else (lambda g, dd: g * dd))

    def fwd(x):
        # (y by the op's own function: the second order differentiates y by this op's rule, as TF's gradient of
        # its gradient function reaches y's op; JAX's rule of f can be less accurate, arccosh's near 1)
        y = op.traced(x)
        return y, (x, y)

    def bwd(res, g):
        x, y = res
        if grad is not None:
            return (_cast_like(grad(y, g), x),)
        # TF's complex convention: grad * conj(dy/dx) (a no-op on real values), an infinite derivative as C99's
        # product meets it (TF's kernels: 1 * (inf + nan j) is inf + nan j, not NaN)
        return (_cast_like(mul(g, _conj_values(_infinite_operand(d(x, y)))), x),)

    def jvp(primals, tangents, out):
        t = mul(tangents[0], _infinite_operand(d(primals[0], out)))
        if real_out and jnp.iscomplexobj(t):
            t = jnp.real(t)
        return t.astype(out.dtype)  # a derivative's constant (erf's 2/sqrt(pi)) must not promote float16

    of = f" (``jax.numpy.{name}``)" if getattr(jnp, name, None) is f else ""
    op = OpDef(name, _half_in_float32(f), fwd=fwd, bwd=bwd, jvp=jvp, samples=_samples(((domain(3, 4),), {})))
    doc = f"Elementwise ``{name}``{of}, recorded with its gradient."
    if ufunc:
        op_name = name

        def ufunc_surface(x, name=None, *, out=None, where=None):
            if out is not None or where is not None:
                _refuse_ufunc_options(op_name, out, where)
            return apply(op, (x,), {})
        return _public(ufunc_surface, name, doc + _UFUNC_DOC)
    # (``name=`` in the signature itself: api.accept_name then adds no wrapper around this per-op path)
    return _public(lambda x, name=None: apply(op, (x,), {}), name, doc)


_UFUNC_DOC = " ``out`` and ``where`` (NumPy's ufunc options) must be None, as jax.numpy's."


def _refuse_ufunc_options(name: str, out, where) -> None:
    """jax.numpy's ufuncs (``jnp.add``...) take NumPy's ``out=`` and ``where=`` and refuse anything but None
    (``NotImplementedError``); so do tapejax's. Called only when one of them is given (the per-op path checks
    ``is not None`` and no more)."""
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to tj.numpy.{name} is not supported, as jax.numpy.{name}'s "
                                  "(arrays are immutable: use the returned Tensor).")
    raise NotImplementedError(f"The 'where' argument to tj.numpy.{name} is not supported, as jax.numpy.{name}'s; "
                              f"select the entries afterwards: tj.numpy.where(mask, tj.numpy.{name}(...), other).")


# ``jnp.sign``, a complex sign written as TF computes it, ``div_no_nan(z, |z|)``, so that its derived derivative
# is TF's (JAX's complex sign has derivative 0, TF's is that of z / |z|, and 0 at 0)
_sign_fn = _tf_sign


# name                     function                 derivative d(x, y), y = f(x)                   TF convention
negative = _unary("negative", jnp.negative, lambda x, y: -jnp.ones_like(x), ufunc=True)
# (complex: C99's cexp, sin, cos and cabs at infinite and NaN parts, complex_c99.py)
exp = _unary("exp", _complex_c99.complex_exp, lambda x, y: y)
exp2 = _unary("exp2", _complex_c99.exp2, lambda x, y: y * jnp.log(2.0).astype(y.dtype))
# (TF's LogGrad: grad * reciprocal(x), whose second order is ReciprocalGrad's: 0 at x = 0 for a zero gradient)
log = _unary("log", _complex_c99.log, lambda x, y: _tf_reciprocal(x), domain=_pos)
log2 = _unary("log2", _complex_c99.log2, lambda x, y: _tf_reciprocal(x * jnp.log(2.0).astype(x.dtype)), domain=_pos)
log10 = _unary("log10", _complex_c99.log10, lambda x, y: _tf_reciprocal(x * jnp.log(10.0).astype(x.dtype)), domain=_pos)
log1p = _unary("log1p", _complex_c99.log1p, lambda x, y: _tf_reciprocal(1 + x), domain=_pos)
# TF's Expm1Grad, grad * exp(x): y + 1 (jax's) rounds to 1 - eps for x below about -5 (3% off at -15, 0 at -20)
expm1 = _unary("expm1", _complex_c99.expm1, lambda x, y: jnp.exp(x))
# SqrtGrad: 0 for g = 0; its own derivative is TF's _SqrtGradGrad (rules.sqrt_grad)
sqrt = _unary("sqrt", _tf_sqrt, lambda x, y: 0.5 / y, no_nan=True, grad=_sqrt_grad, domain=_pos)
# tf.math.rsqrt; RsqrtGrad's -0.5 * y**3 (-0.5 * y / x has the wrong sign of infinity at x = -0.0)
rsqrt = _unary("rsqrt", _tf_rsqrt, lambda x, y: _c99_mul(_c99_mul(_c99_mul(-0.5, y), y), y), no_nan=True,
               domain=_pos)
# (1/y * 1/(3y) by TF's ReciprocalGrad: at x = +-inf the second order is 0, as TF's PowGrad of pow(|x|, 1/3); the
# derivative of 1 / (3 * y * y) there meets 0 * inf)
cbrt = _unary("cbrt", jnp.cbrt, lambda x, y: _tf_reciprocal(y) * (_tf_reciprocal(y) / 3), no_nan=True, domain=_pos)
square = _unary("square", jnp.square, lambda x, y: 2 * x)
# ReciprocalGrad
reciprocal = _unary("reciprocal", _tf_reciprocal, lambda x, y: _c99_mul(-y, y), no_nan=True, domain=_pos)
tanh = _unary("tanh", _complex_c99.tanh, lambda x, y: 1 - y * y)
sin = _unary("sin", _complex_c99.sin, lambda x, y: _complex_c99.cos(x))
cos = _unary("cos", _complex_c99.cos, lambda x, y: -_complex_c99.sin(x))
tan = _unary("tan", _complex_c99.tan, lambda x, y: 1 + y * y, domain=_between(-1.0, 1.0))
# (TF's AsinGrad: grad * reciprocal(sqrt(1 - square(x))), no-NaN to second order at x = +-1)
arcsin = _unary("arcsin", _complex_c99.arcsin, lambda x, y: _tf_rsqrt(1 - jnp.square(x)), no_nan=True,
                domain=_between(-0.8, 0.8))
arccos = _unary("arccos", _complex_c99.arccos, lambda x, y: -_tf_rsqrt(1 - jnp.square(x)), no_nan=True,
                domain=_between(-0.8, 0.8))
arctan = _unary("arctan", _complex_c99.arctan, lambda x, y: _tf_reciprocal(1 + jnp.square(x)))
# (complex: C99's formulas where XLA's cancel, complex_c99.py; values and derivatives)
sinh = _unary("sinh", _complex_c99.sinh, lambda x, y: _complex_c99.cosh(x))
cosh = _unary("cosh", _complex_c99.cosh, lambda x, y: _complex_c99.sinh(x))
# TF's AsinhGrad, grad / cosh(y): finite at x = 3e38 to second order (rsqrt(x * x + 1)'s derivative is 0 * inf there)
arcsinh = _unary("arcsinh", _complex_c99.arcsinh, lambda x, y: 1 / _complex_c99.cosh(y),
                 grad=lambda y, g: g / _conj_values(_complex_c99.cosh(y)))
arctanh = _unary("arctanh", _complex_c99.arctanh, lambda x, y: _tf_reciprocal(1 - jnp.square(x)), no_nan=True,
                 domain=_between(-0.8, 0.8))
# TF: d|x|/dx = sign(x), 0 at 0; for complex z, TF's gradient is g * z/|z| (conj of JAX's conj(z)/|z|), the
# sign TF's div_no_nan(z, |z|), whose derivative (the second order of |z|) is not JAX's 0; 0 at z = 0 even for an
# infinite gradient or tangent (TF's div_no_nan)
abs = _unary("abs", _complex_c99.absolute, lambda x, y: _conj_values(_tf_sign(x)), real_out=True, mul=_times_sign)
_sign = OpDef("sign", _sign_fn, samples=_samples(((_r(3, 4),), {})))  # derived kernels (see _sign_fn)
sign = _public(lambda x: apply(_sign, (x,), {}), "sign", "Elementwise ``sign`` (``jax.numpy.sign``), recorded with "
               "its gradient: 0 for real values (TF's SignGrad; under a ForwardAccumulator the tangent is None, as "
               "TF's), that of ``z / |z|`` for complex ones (TF's).")
_rng.uniform(size=4 * 12)  # the draws of floor, ceil, round and trunc's samples (no gradient now): later samples stay
positive = _unary("positive", jnp.positive, lambda x, y: jnp.ones_like(x))
sigmoid = _unary("sigmoid", jax.nn.sigmoid, lambda x, y: y * (1 - y))  # tf.math.sigmoid; also tj.nn.sigmoid
erf = _unary("erf", jax.scipy.special.erf, lambda x, y: (2 / np.sqrt(np.pi)) * jnp.exp(-jnp.square(x)))  # tf.math.erf
absolute = abs


def fabs(x):
    """``jax.numpy.fabs``: ``abs`` of a real ``x``, as a float (an int or bool gives jax.numpy's float dtype for it;
    complex raises, as jax.numpy's)."""
    x = convert_to_tensor(x)
    if jnp.issubdtype(x.dtype, jnp.complexfloating):
        raise TypeError(f"tj op 'fabs': complex values are not supported (dtype {x.dtype}), as jax.numpy's; use "
                        "tj.numpy.abs")
    out = jax.eval_shape(jnp.fabs, jax.ShapeDtypeStruct(x.shape, x.dtype)).dtype
    return abs(x if out == x.dtype else astype(x, out))


# -- elementwise binary ops ------------------------------------------------------------------------------

def _partial_rules(f, dx, dy, own: Sequence = ()) -> dict:
    """Rules from the partial products ``dx(x, y, out, g)`` and ``dy(...)`` (JAX's convention, ``g * df/dx``,
    converted to TF's around them); the residuals are x, y and the output. ``own``: the op these rules are made
    for, once it is (a list it is appended to): the output is then its own function's, so that a second order,
    differentiating the output in the backward function, takes this op's rules (TF's gradient of its gradient reaches
    the op's output), not JAX's rule of ``f`` (power's at a base of 0 is 0 * inf: NaN forward over reverse)."""

    def fwd(x, y):
        out = own[0].traced(x, y) if own else f(x, y)
        return out, (x, y, out)

    def bwd(res, g):
        x, y, out = res
        gx = _tf_complex_vjp(lambda c: dx(x, y, out, c), g)
        gy = _tf_complex_vjp(lambda c: dy(x, y, out, c), g)
        return (_cast_like(_unbroadcast(gx, jnp.shape(x)), x),
                _cast_like(_unbroadcast(gy, jnp.shape(y)), y))

    def jvp(primals, tangents, out):
        x, y = primals
        tx, ty = tangents
        # An integer argument (power's int exponent) has no tangent: its term is dropped, not computed from zeros,
        # whose own tangent under nested forward mode is a float0 that no arithmetic takes.
        if not is_float(jnp.result_type(y)):
            return dx(x, y, out, tx)
        if not is_float(jnp.result_type(x)):
            return dy(x, y, out, ty)
        return dx(x, y, out, tx) + dy(x, y, out, ty)
    return {"fwd": fwd, "bwd": bwd, "jvp": jvp}


def _linear_rules(f, sx, sy) -> dict:
    """Rules of ``f(x, y) = sx * x + sy * y`` (add, subtract): the residuals are only the shapes."""

    def fwd(x, y):
        return f(x, y), (_token(x), _token(y))

    def bwd(res, g):
        tx, ty = res
        return (_cast_like(_unbroadcast(sx * g, tx.shape[1:]), tx),
                _cast_like(_unbroadcast(sy * g, ty.shape[1:]), ty))

    def jvp(primals, tangents, out):
        tx, ty = tangents
        return jnp.broadcast_to(sx * tx + sy * ty, out.shape).astype(out.dtype)
    return {"fwd": fwd, "bwd": bwd, "jvp": jvp}


def _mul_bwd(res, g):
    x, y = res
    # TF: grad * conj(y), grad * conj(x) (complex values)
    return (_cast_like(_unbroadcast(g * _conj_values(y), jnp.shape(x)), x),
            _cast_like(_unbroadcast(g * _conj_values(x), jnp.shape(y)), y))


_MULTIPLY_RULES = {"fwd": lambda x, y: (x * y, (x, y)), "bwd": _mul_bwd,  # the operands only, not the output
                   "jvp": lambda p, t, out: t[0] * p[1] + p[0] * t[1]}


def _masked_log(x):
    """TF PowGrad's ``log_x``: ``log(x)``, 0 where ``x <= 0`` (log undefined); a complex log is defined everywhere
    but at 0, so there only ``x == 0`` gives 0."""
    has_log = x != 0 if jnp.iscomplexobj(x) else x > 0
    return jnp.where(has_log, jnp.log(jnp.where(has_log, x, 1)), 0)


@jax.custom_jvp
def _pow_fn(x, y):
    """``jnp.power`` whose own derivative is TF's PowGrad (the exponent's is ``x**y * log_x``, masked): power's
    backward is written with it, so differentiating that backward (second order) at a base <= 0 gives TF's
    values where JAX's ``x**y * log(x)`` would give NaN. Complex powers are C99's (ops/complex_c99.py, TF's
    kernel): a complex zero to a power with a positive real part is 0, infinities give 0 or inf, not NaN."""
    if jnp.iscomplexobj(x) or jnp.iscomplexobj(y):
        dtype = jnp.result_type(x, y)
        return _complex_c99.power(x.astype(dtype), y.astype(dtype))
    return jnp.power(x, y)


@_pow_fn.defjvp
def _pow_fn_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    out = _pow_fn(x, y)
    return out, tx * _pow_partial_x(x, y) + ty * out * _masked_log(x)


def _tf_power(x, y):
    """``jnp.power`` with TF's derivative (``_pow_fn``) where both operands are inexact (an integer has none)."""
    if jnp.issubdtype(jnp.result_type(x), jnp.inexact) and jnp.issubdtype(jnp.result_type(y), jnp.inexact):
        return _pow_fn(*jnp.broadcast_arrays(x, y))
    return jnp.power(x, y)


def _pow_partial_x(x, y):
    # y * x**(y-1), written so that x == 0, y == 0 gives 0 rather than NaN (0 * inf), the value at y == 0 for
    # every other x; only there, so that its derivative in y at y == 0 stays x**(y-1) (a mixed second
    # derivative: TF's, and the Hessian's other side)
    undefined = (x == 0) & (y == 0)
    return jnp.where(undefined, 0, y * _tf_power(x, jnp.where(undefined, 1, y - 1)))


def _pow_dx(x, y, out, g):
    # TF: mul_no_nan(y * x**(y-1), g)
    return _mul_no_nan(g, _pow_partial_x(x, y))


def _exponent_grad(g, out, log_x):
    """``_exponent_grad_rule`` of its arguments broadcast to one shape (a custom_jvp's tangent has its primal's
    shape: a scalar exponent's broadcast inside the rule failed at forward over forward)."""
    return _exponent_grad_rule(*jnp.broadcast_arrays(g, out, log_x))


@jax.custom_jvp
def _exponent_grad_rule(g, out, log_x):
    """TF's PowGrad for the exponent, ``grad * z * log_x`` in TF's order (in float16 ``z * log_x`` alone can
    overflow where ``grad * z`` does not), 0 where ``grad`` is 0 (also where ``z`` is inf). Its derivative in
    ``grad`` is ``z * log_x`` (no-NaN: 0 for a zero tangent where that is infinite), as TF's plain product
    has, not the 0 that a ``where`` on ``grad`` gives at grad == 0: a second derivative through a zero
    gradient (a variance of equal rows) is not lost."""
    return jnp.where(g == 0, jnp.zeros_like(g), g * out * log_x)


@_exponent_grad_rule.defjvp
def _exponent_grad_jvp(primals, tangents):
    g, out, log_x = primals
    tg, tout, tlog = tangents
    value = _exponent_grad_rule(g, out, log_x)
    # (no NaN from a zero factor meeting an infinite one: a masked log_x (0 at a base <= 0) times an infinite or NaN
    # tangent of z, z = inf times log_x's zero tangent there; reverse over reverse gives 0 for them, its zero
    # cotangent meeting the no-NaN rules, and forward over reverse must agree: forward_reverse_scan, power's exponent
    # at (-0.5, -1e20))
    through_z = jnp.where(log_x == 0, jnp.zeros_like(tout), tout * log_x)
    t = _scale_no_nan(tg, (out * log_x).astype(value.dtype)) + _mul_no_nan(g, through_z + _scale_no_nan(tlog, out))
    return value, t.astype(value.dtype)


def _pow_dy(x, y, out, g):
    # TF: the gradient w.r.t. the exponent is 0 where log_x is masked (PowGrad)
    return _exponent_grad(g, out, _masked_log(x))


def _binary(name: str, f, dx=None, dy=None, *, rules=None, jvp=None, domain_x=_r, domain_y=_r, cases: int = 3,
            passthrough=(), ufunc: bool = False) -> Callable:
    """The public function of a broadcasting elementwise op ``f(x, y)``: rules from the partial products
    ``dx``/``dy`` (``_partial_rules``; ``jvp``: a forward rule of its own) unless ``rules`` gives fwd, bwd and
    jvp. Samples: the first ``cases``
    of (same shapes, a broadcast vector, an outer broadcast). ``ufunc``: jax.numpy's function is a ``jnp.ufunc``
    (``add``, ``maximum``...), whose arguments have no names (``*args``) and which takes ``out=``/``where=``;
    otherwise the arguments are named ``x1, x2``, as jax.numpy's."""
    shapes = (((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((3, 1), (1, 4)))[:cases]
    own: list = []
    if rules is None:
        rules = _partial_rules(f, dx, dy, own)
        if jvp is not None:
            rules["jvp"] = jvp
    op = OpDef(name, f, **rules, passthrough=passthrough,
               samples=_samples(*(((domain_x(*sx), domain_y(*sy)), {}) for sx, sy in shapes)))
    own.append(op)
    doc = f"Broadcasting ``jax.numpy.{name}``, recorded with its gradient."
    if ufunc:
        op_name = name

        def ufunc_surface(x, y, name=None, *, out=None, where=None):
            if out is not None or where is not None:
                _refuse_ufunc_options(op_name, out, where)
            return apply(op, (x, y), {})
        surface = _public(ufunc_surface, name, doc + _UFUNC_DOC)
    else:
        surface = _public(lambda x1, x2, name=None: apply(op, (x1, x2), {}), name, doc)  # (name=: as _unary's)
    surface.opdef = op  # (Tensor's operators apply it themselves: ops/_operators.py)
    return surface


_gx = lambda x, y, o, g: g  # noqa: E731

# name                       function          partial products dx, dy (g * df/dx)             TF convention
add = _binary("add", jnp.add, rules=_linear_rules(jnp.add, 1, 1), passthrough=(0, 1), ufunc=True)
subtract = _binary("subtract", jnp.subtract, rules=_linear_rules(jnp.subtract, 1, -1), cases=2, passthrough=(0,),
                   ufunc=True)
multiply = _binary("multiply", jnp.multiply, rules=_MULTIPLY_RULES, ufunc=True)
divide = _binary("divide", jnp.divide, lambda x, y, o, g: g / y, lambda x, y, o, g: -g * o / y, domain_y=_pos)
_power = _binary("power", _tf_power, _pow_dx, _pow_dy, domain_x=_pos)  # PowGrad: mul_no_nan, log_x = 0 at x <= 0
maximum = _binary("maximum", jnp.maximum, lambda x, y, o, g: jnp.where(x >= y, g, jnp.zeros_like(g)),
                  lambda x, y, o, g: jnp.where(x >= y, jnp.zeros_like(g), g), ufunc=True)  # MaximumGrad: tie to x
minimum = _binary("minimum", jnp.minimum, lambda x, y, o, g: jnp.where(x <= y, g, jnp.zeros_like(g)),
                  lambda x, y, o, g: jnp.where(x <= y, jnp.zeros_like(g), g), ufunc=True)  # MinimumGrad: tie to x
# Atan2Grad: grad / (x1**2 + x2**2) first, then times x2 and -x1 (g * x2 / ... overflowed to inf / inf = NaN where
# TF's is 0: a large g, or forward over reverse at x1 = x2 = 1e20). Its forward mode is TF's transpose of that:
# the two products summed, then divided (at x1 = 1e-30, x2 = 0, where the sum of squares underflows: -inf, not NaN).
arctan2 = _binary("arctan2", jnp.arctan2, lambda x, y, o, g: y * (g / (x * x + y * y)),
                  lambda x, y, o, g: -x * (g / (x * x + y * y)), domain_y=_pos,
                  jvp=lambda p, t, out: (t[0] * p[1] + t[1] * -p[0]) / (p[0] * p[0] + p[1] * p[1]))
mod = _binary("mod", jnp.mod, _gx, lambda x, y, o, g: -g * jnp.floor(x / y), domain_y=_pos)  # FloorMod
_rng.uniform(size=59)  # the draws of floor_divide's samples (no gradient now): later samples stay as they were
true_divide = divide
_mod = mod


def mod(x1, x2):
    """``jax.numpy.mod`` (``x1 % x2``, TF's ``FloorMod``: ``d/dx2 = -floor(x1 / x2)``). An integer divisor holding 0
    raises ``ValueError``, as TF."""
    _check_integer_divisor("mod", x1, x2)
    return _mod(x1, x2)


remainder = mod


def _ipow0_partial(x):
    """d(x ** 0)/dx: 0 (NaN at NaN), written as TF's ``0 * x ** -1`` but 0 at x = 0 (API.md's no-NaN rule), so
    that it reads x: its own derivative is zeros, as TF's, not None."""
    nonzero = x != 0
    return jnp.where(nonzero, 0 / jnp.where(nonzero, x, 1), 0)  # (no 0 / 0 in either branch's derivative)


def _ipow_partial(x, n: int):
    """d(x ** n)/dx, ``n * x ** (n - 1)`` with the power by this op itself: a second order differentiates it by this
    op's no-NaN rule, as TF's PowGrad of its PowGrad reaches Pow (JAX's rule of x ** 2 forms 0 * (2 * x), NaN where
    2 * x overflows: x = -3e38 with a zero gradient, where TF gives -0)."""
    if n == 0:
        return _ipow0_partial(x)
    return n * _integer_pow.traced(x, n=n - 1)


def _ipow_bwd(res, g, *, n):
    (x,), _ = res
    if n == 0:
        return (_cast_like(g * _ipow0_partial(x), x),)
    return (_cast_like(_mul_no_nan(g, _conj_values(_ipow_partial(x, n))), x),)


# x ** n for a Python int n: jax.numpy's integer_pow (x * x for n = 2), as jnp.power(x, 2) computes it.
_integer_pow = OpDef("integer_pow", lambda x, *, n: jnp.power(x, n), bwd=_ipow_bwd,
                     jvp=lambda p, t, out, *, n: t[0] * _ipow_partial(p[0], n),
                     # its own generator: drawing from _rng here would shift every later op's samples
                     samples=lambda: [((np.random.default_rng(n + 10).uniform(0.3, 1.5, (3, 4)).astype(np.float32),),
                                       {"n": n}) for n in (2, 3, -2, 0)])


def _check_integer_power(x, y) -> Optional[tuple]:
    """An integer to a negative integer power raises ``ValueError``, as TF (``InvalidArgumentError``) and NumPy:
    JAX computes a silent wrong number (5 ** -2 gives 0, or an overflowed value). Checked where the
    exponent's values are known now (not for a traced exponent). Returns the result's shape where it is empty
    (no element computed, as TF's; jax refuses the negative power even then), else None."""
    if not (jnp.issubdtype(_index_dtype(x), jnp.integer) and jnp.issubdtype(_index_dtype(y), jnp.integer)):
        return None
    v = _concrete(y)
    if v is not None and np.size(v) and np.min(np.asarray(v)) < 0:
        try:
            out_shape = np.broadcast_shapes(shape(x), shape(y))
            if not math.prod(out_shape):
                return out_shape
        except ValueError:
            pass  # (shapes that do not broadcast: the op's own error)
        raise ValueError(f"tj op 'power': integers to negative integer powers are not allowed (an integer base, "
                         f"exponent {int(np.min(np.asarray(v)))}); cast the base to a float dtype first.")


def power(x1, x2):
    """Broadcasting ``jax.numpy.power`` (a concrete integer exponent, a Python or NumPy int or a 0-d jax integer
    array, computes as jax.numpy's integer power, in the base's dtype). An integer base with a negative integer
    exponent raises ``ValueError``, as TF and NumPy."""
    empty = _check_integer_power(x1, x2)
    if empty is not None:
        return zeros(empty, result_type(x1, x2))
    if isinstance(x1, (Tensor, Variable)) or type(x1) in (int, float, complex):
        n = _concrete_integer(x2)
        if n is not None:  # (a Python number base stays weakly typed, as jax.numpy's)
            return apply(_integer_pow, (x1 if isinstance(x1, (Tensor, Variable)) else asarray(x1),), {"n": n})
    return _power(x1, x2)


def _concrete_integer(x):
    """``x`` as a Python int if it is a concrete integer scalar other than a Tensor (as jax.numpy's power tests its
    exponent), else None."""
    if type(x) is int or isinstance(x, np.integer):
        return int(x)
    if isinstance(x, (jax.Array, np.ndarray)) and not isinstance(x, jax.core.Tracer) and x.ndim == 0 \
            and jnp.issubdtype(x.dtype, jnp.integer):
        return int(x)
    return None


pow = power


# -- ops without a gradient: a gradient or tangent through them is None ---------------------------------
# Predicates (comparisons, logic, bit operations: bool or int results) are never recorded. The rounding ops
# and floor division TF registers with gradients of None (math_grad.py's FloorGrad, CeilGrad, RoundGrad,
# RintGrad, FloorDivGrad): recorded, with no path to their inputs (declare.no_gradient), so tape.gradient(
# floor(x), x) is None there too (zeros with UnconnectedGradients.ZERO) and floor(x) is on the tape.

def _no_gradient(f) -> Callable:
    op = _recorded_without_gradient(f.__name__, f)
    return _public(lambda *args, **kw: apply(op, args, {k: freeze(v) for k, v in kw.items()}), f.__name__,
                   f"``jax.numpy.{f.__name__}`` (not differentiable: its gradient is None, as TF's; its result is on "
                   "the tape, as TF's).")


floor, ceil, _round, rint, trunc, _floor_divide = map(_no_gradient, (jnp.floor, jnp.ceil, jnp.round, jnp.rint,
                                                                    jnp.trunc, _half_in_float32(jnp.floor_divide)))


def round(a, decimals=0, out=None):
    """``jax.numpy.round`` to ``decimals`` places (halves to even; not differentiable: its gradient is None, as
    TF's)."""
    _no_out("round", out)
    decimals = static(decimals)
    if isinstance(decimals, int) and decimals < 0 and jnp.issubdtype(_dtype_of(a), jnp.integer):
        return _round_int(a, decimals=decimals)
    return _round(a, decimals=decimals)


def _round_int_fn(x, decimals):
    # an integer to a multiple of 10**-decimals, halves to even, in integer arithmetic (NumPy's result; jax.numpy
    # raises NotImplementedError, and a float division would lose digits past 2**24)
    if 10 ** -decimals > jnp.iinfo(x.dtype).max:  # (every value of the dtype is nearer 0 than the multiple)
        return jnp.zeros_like(x)
    f = jnp.asarray(10 ** -decimals, x.dtype)
    q, r = jnp.floor_divide(x, f), jnp.remainder(x, f)
    up = (r > f - r) | ((r == f - r) & (q % 2 != 0))  # (r against f - r: 2 * r could overflow a narrow int)
    return (q + up.astype(x.dtype)) * f


_round_int = _recorded_without_gradient("round_int", _round_int_fn)
around = round


def _check_integer_divisor(op: str, x, y) -> None:
    """Integer division by zero raises ``ValueError``, as TF (``InvalidArgumentError`` "Integer division by zero");
    JAX computes a silent wrong number (``7 // 0`` gives -2 and ``7 % 0`` 0, from XLA's -1 quotient). Checked
    where the divisor's values are known now (not for a traced divisor), as ``power``'s negative exponents."""
    if not (jnp.issubdtype(_index_dtype(x), jnp.integer) and jnp.issubdtype(_index_dtype(y), jnp.integer)):
        return
    v = _concrete(y)
    if v is not None and np.size(v) and not np.all(np.asarray(v)):
        raise ValueError(f"tj op '{op}': integer division by zero (the integer divisor of shape {np.shape(v)} holds "
                         "a 0); make the divisor nonzero or divide as floats.")


def floor_divide(x1, x2):
    """``jax.numpy.floor_divide`` (``x1 // x2``; not differentiable: its gradient is None, as TF's). An integer
    divisor holding 0 raises ``ValueError``, as TF."""
    _check_integer_divisor("floor_divide", x1, x2)
    return _floor_divide(x1, x2)
(equal, not_equal, less, less_equal, greater, greater_equal, logical_and, logical_or, logical_not, logical_xor,
 isnan, isinf, isfinite, bitwise_and, bitwise_or, bitwise_xor, bitwise_not) = map(_no_gradient, (
    jnp.equal, jnp.not_equal, jnp.less, jnp.less_equal, jnp.greater, jnp.greater_equal, jnp.logical_and,
    jnp.logical_or, jnp.logical_not, jnp.logical_xor, jnp.isnan, jnp.isinf, jnp.isfinite, jnp.bitwise_and,
    jnp.bitwise_or, jnp.bitwise_xor, jnp.bitwise_not))
invert = bitwise_not
# index and truth reductions: static axis/keepdims
_argmax, _argmin, _argsort, _any, _all = (_not_differentiable(f.__name__, f) for f in (
    jnp.argmax, jnp.argmin, jnp.argsort, jnp.any, jnp.all))


def argmax(a, axis=None, out=None, keepdims=None):
    """``jax.numpy.argmax`` (not differentiable)."""
    _no_out("argmax", out)
    return apply(_argmax, (a,), {"axis": _scan_axis("argmax", a, axis), "keepdims": bool(keepdims)})


def argmin(a, axis=None, out=None, keepdims=None):
    """``jax.numpy.argmin`` (not differentiable)."""
    _no_out("argmin", out)
    return apply(_argmin, (a,), {"axis": _scan_axis("argmin", a, axis), "keepdims": bool(keepdims)})


def argsort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False, dtype=None):
    """``jax.numpy.argsort`` (not differentiable); ``descending=True`` keeps ties in their original order, as TF's
    ``argsort(direction="DESCENDING", stable=True)``; ``dtype``: the indices' integer dtype. ``kind`` and ``order``
    must be None (``TypeError``), as jax.numpy's."""
    if kind is not None or order is not None:
        _refuse_sort_options("argsort", kind, order)
    static = {"axis": freeze(axis), "stable": stable, "descending": descending}
    if dtype is not None:
        static["dtype"] = as_dtype("argsort", dtype)
    return apply(_argsort, (a,), static)


def _refuse_sort_options(name: str, kind, order) -> None:
    """NumPy's ``kind=`` and ``order=`` of sort and argsort, which jax.numpy's refuse (``TypeError``): ``stable``
    says whether ties keep their order, and there are no structured arrays whose fields ``order`` would name."""
    if kind is not None:
        raise TypeError(f"The 'kind' argument to tj.numpy.{name} is not supported, as jax.numpy.{name}'s; use "
                        f"stable=True or stable=False to choose whether ties keep their order (got kind={kind!r}).")
    raise TypeError(f"The 'order' argument to tj.numpy.{name} is not supported, as jax.numpy.{name}'s (there are no "
                    f"structured arrays; got order={order!r}).")


def _truth_reduction(name: str, op: OpDef, identity: bool, a, axis, out, keepdims, where):
    """any or all; ``where`` leaves entries out (as the reduction's identity). A complex entry is true where it is
    not 0, imaginary part included (NumPy's rule; jax.numpy's and TF's tnp read only the real part)."""
    _no_out(name, out)
    axis = _checked_axes(name, a, axis)
    if jnp.iscomplexobj(convert_to_tensor(a).value):
        a = not_equal(a, 0)
    if where is not None:
        a = _masked(name, a, where, identity)
    return apply(op, (a,), {"axis": axis, "keepdims": bool(keepdims)})


def any(a, axis=None, out=None, keepdims=False, *, where=None):
    """``jax.numpy.any`` (``where``: only the entries it selects count)."""
    return _truth_reduction("any", _any, False, a, axis, out, keepdims, where)


def all(a, axis=None, out=None, keepdims=False, *, where=None):
    """``jax.numpy.all`` (``where``: only the entries it selects count)."""
    return _truth_reduction("all", _all, True, a, axis, out, keepdims, where)


# -- reductions ------------------------------------------------------------------------------------------

def _norm_axis(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        axis = (axis,)
    return tuple(sorted(a % ndim if ndim else 0 for a in axis))


def _expand_back(g, shape, axis, keepdims):
    axes = _norm_axis(axis, len(shape))
    if not keepdims:
        g = jnp.expand_dims(g, axes) if axes else g
    return jnp.broadcast_to(g, shape)


def _reduction(name: str, f, samples=None, **rules) -> OpDef:
    """A reduction ``f(x, axis=None, keepdims=False, ...)``; samples: all axes, one axis, two kept axes."""
    return OpDef(name, f, **rules, samples=samples or _samples(
        ((_r(3, 4),), {}), ((_r(2, 3, 4),), {"axis": 1}), ((_r(2, 3, 4),), {"axis": (0, 2), "keepdims": True})))


def _linear_reduction(name: str, f, *, mean: bool, samples=None) -> OpDef:
    """A sum or mean: the backward broadcasts ``g`` back over the reduced axes (divided by their size for a
    mean), reading only the input's shape; the tangent is its transpose, the sum of ``t`` (divided by the
    size). Over a zero-size axis the Jacobian has no columns and the tangent is 0, as TF's (``mean(t)``
    would be ``0 / 0``)."""

    def count(shape, axis):
        return int(np.prod([shape[a] for a in _norm_axis(axis, len(shape))], dtype=np.int64))

    def bwd(tok, g, axis=None, keepdims=False):
        shape = tok.shape[1:]
        if mean:
            g = g / count(shape, axis)
        return (_expand_back(g, shape, axis, keepdims).astype(tok.dtype),)

    def jvp(p, t, out, axis=None, keepdims=False):
        if mean and count(jnp.shape(t[0]), axis) == 0:
            return jnp.zeros_like(out)
        return f(t[0], axis=axis, keepdims=keepdims)
    return _reduction(name, f, samples, fwd=lambda x, **static: (f(x, **static), _token(x)), bwd=bwd, jvp=jvp)


def _min_max_shared(x, y, axis, keepdims, use):
    """``use(weights)`` with TF's ``_MinOrMaxGrad`` weights: ``indicators / num_selected``, the elements equal to
    the result share its gradient equally. Where the result is NaN no element equals it and TF's ``0 / 0``
    makes every weight of that reduction NaN. Written out with ``where``: XLA simplifies ``indicators / n`` to 0
    there when it compiles a larger program (JAX's own rule gave NaN eagerly, 0 under jit or replay).

    Inside one larger compiled program (a tj.function, a replayed step) XLA:CPU may compute ``x`` twice, fused
    into the forward's reduction and into this comparison, with results that differ in the last bits, so that
    no element equals a result that is not NaN (path fuzz seed 349: the min of a layer_norm). There the
    elements within a few units in the last place (of the reduction's largest finite magnitude) of the nearest
    one share the gradient instead (eagerly ``x`` is one array: never the case). On the CPU that search runs
    only when needed (``lax.cond``; ``use`` and every broadcast inside each branch, so that the usual one stays
    the fused pass it was); on accelerators always (``_conditionals_are_cheap``)."""
    axes = _norm_axis(axis, jnp.ndim(x))
    num = jnp.sum(_expand_back(y, jnp.shape(x), axis, keepdims) == x, axis=axes, keepdims=True, dtype=y.dtype)
    missing = num == 0

    def weights(patch):
        yb = _expand_back(y, jnp.shape(x), axis, keepdims)
        ind = (yb == x).astype(y.dtype)
        lost = jnp.nan
        if patch:
            d = jnp.abs(x - yb)
            # (the units are those of the reduction's largest magnitude, not of the result's: a result at 0 of
            # values of order 1, as a layer_norm's, has copies that differ by units of order 1, path fuzz seed
            # 40424, where units of the result's own size found no element near and the gradient was NaN)
            finite = jnp.where(jnp.isfinite(x), jnp.abs(x), 0)  # (an infinite element would make every one near)
            scale = jnp.abs(yb) + jnp.max(finite, axis=axes, keepdims=True, initial=0.0)
            tol = 8 * jnp.finfo(y.dtype).eps * scale + jnp.finfo(y.dtype).tiny
            near = (d <= jnp.min(d, axis=axes, keepdims=True, initial=jnp.inf) + tol).astype(y.dtype)
            n_near = jnp.sum(near, axis=axes, keepdims=True)
            lost = jnp.where(jnp.isnan(yb) | (n_near == 0), jnp.nan, near / jnp.where(n_near == 0, 1, n_near))
        return use(jnp.where(missing, lost, ind / jnp.where(missing, 1, num)))
    if not _conditionals_are_cheap():
        # XLA:GPU runs a conditional by copying its predicate to the host and waiting for the device there: in
        # a compiled step, the host would stall until the device reached this backward. The search's weights
        # are the plain ones wherever no element is missing, so there they are computed always instead.
        return weights(True)
    y_kept = y if keepdims else jnp.expand_dims(y, axes)
    return jax.lax.cond(jnp.any(missing & ~jnp.isnan(y_kept)), lambda: weights(True), lambda: weights(False))


def _conditionals_are_cheap() -> bool:
    """Whether a ``lax.cond`` on a computed predicate costs the program nothing much: on the CPU (where it is
    a branch), not on accelerators (XLA:GPU reads the predicate back to the host, waiting for the device)."""
    return jax.default_backend() == "cpu"


def _min_max_bwd(res, g, axis=None, keepdims=False):
    (x,), y = res
    return (_cast_like(_min_max_shared(x, y, axis, keepdims,
                                       lambda w: w * _expand_back(g, jnp.shape(x), axis, keepdims)), x),)


def _min_max_jvp(p, t, out, axis=None, keepdims=False):
    axes = _norm_axis(axis, jnp.ndim(p[0]))
    return _min_max_shared(p[0], out, axis, keepdims,
                           lambda w: jnp.sum(w * t[0], axis=axes, keepdims=keepdims).astype(out.dtype))


# name                           function      rules / samples                        TF convention
_sum = _linear_reduction("sum", jnp.sum, mean=False)
_mean = _linear_reduction("mean", jnp.mean, mean=True, samples=_samples(
    ((_r(3, 4),), {}), ((_r(2, 3, 4),), {"axis": -1}), ((_r(2, 3, 4),), {"axis": (0, 1), "keepdims": True})))
_max = _reduction("max", jnp.max, bwd=_min_max_bwd, jvp=_min_max_jvp)  # _MinOrMaxGrad: ties share equally
_min = _reduction("min", jnp.min, bwd=_min_max_bwd, jvp=_min_max_jvp)  # the same rule
# TF's ProdGrad / CumprodGrad read x whatever the axis' length: over a length-1 axis, where JAX's derivative
# reads no x, the second derivative is zeros (TF), not None. Their values are the plain product's on every path
# (_plain_primal: JAX's derivative recomputes them as a tree of products).
_plain_prod = _plain_primal(jnp.prod)


def _prod_jvp(p, t, out, axis=None, keepdims=False):
    # The transpose of the reverse rule, sum(d * t) with d the gradient of ones, as TF's forward mode (which
    # transposes ProdGrad): JAX's own tangent pads the product tree with ones of tangent 0, and inf * 0 made it NaN
    # where the gradient is not (prod([inf, inf, 1]): gradient [inf, inf, inf], tangent of ones NaN; TF: inf).
    _, vjp = jax.vjp(lambda a: _plain_prod(a, axis=axis, keepdims=keepdims), p[0])
    (d,) = vjp(jnp.ones_like(out))
    return jnp.sum(d * t[0], axis=_norm_axis(axis, jnp.ndim(p[0])), keepdims=keepdims).astype(out.dtype)


_prod = _reduction("prod", _plain_prod, backward_connected=True, jvp=_prod_jvp)
_var = _reduction("var", jnp.var)


def _std_bwd(res, g, axis=None, keepdims=False, ddof=0):
    # As TF's reduce_std, sqrt(reduce_variance): SqrtGrad's 0.5 * g / std, 0 where g is 0 (API.md's sqrt rule:
    # a row of equal values, std 0, whose gradient is 0 gives 0, not 0 * inf), then the variance's gradient.
    (x,), y = res
    _, vjp = jax.vjp(lambda a: jnp.var(a, axis=axis, keepdims=keepdims, ddof=ddof), x)
    return _tf_complex_vjp(vjp, _sqrt_grad(y, g))


def _std_jvp(p, t, out, axis=None, keepdims=False, ddof=0):
    # the same rule forward: the variance's tangent times 0.5 / std, 0 where that tangent is 0
    _, tv = jax.jvp(lambda a: jnp.var(a, axis=axis, keepdims=keepdims, ddof=ddof), (p[0],), (t[0],))
    return _mul_no_nan(tv, 0.5 / out).astype(out.dtype)


_std = _reduction("std", jnp.std, bwd=_std_bwd, jvp=_std_jvp)
# (half precision accumulated in float32, each prefix rounded once, as jax.numpy's sum: accumulated in float16, the
# prefixes of 2,048 normal draws were off by up to 25,600 ulps, TF's and NumPy's alike)
_cumsum = _reduction("cumsum", _half_in_float32(jnp.cumsum), _samples(((_r(3, 4),), {"axis": 1}), ((_r(5),), {})))
_cumprod = _reduction("cumprod", _half_in_float32(_plain_primal(jnp.cumprod)), _samples(((_pos(3, 4),), {"axis": 0})),
                      backward_connected=True)


def _no_out(name: str, out) -> None:
    """jax.numpy's functions take ``out=`` for NumPy's signature and refuse anything but None; so does tapejax."""
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to tj.numpy.{name} is not supported (arrays are immutable: "
                                  "use the returned Tensor).")


def _masked(name: str, a, where, fill):
    """``a`` where the boolean mask ``where`` (broadcast to ``a``'s shape) holds, else ``fill``: jax.numpy's
    ``where=`` of a reduction, through the ``where`` op, so the masked-out entries get no gradient."""
    mask = where if isinstance(where, Tensor) else convert_to_tensor(where)
    if mask.dtype != np.bool_:
        raise ValueError(f"tj.numpy.{name}: where must be None or a boolean array; got where.dtype={mask.dtype}")
    shp = shape(a)
    if not broadcasts_to(mask.shape, shp):
        raise ValueError(f"tj.numpy.{name}: the where mask of shape {tuple(mask.shape)} does not broadcast to the "
                         f"input's shape {shp}")
    return _where(mask, a, fill)


def _reduce_dtypes(a, dtype, promote_integers: bool):
    """(the dtype to compute a sum or product in, the result's dtype), None for each left to the op: jax.numpy's
    ``dtype=`` casts the input first (``sum([0.5, 0.5], dtype=int32)`` is 0), computing float16 and bfloat16 in
    float32; ``promote_integers=False`` keeps an integer input's own dtype (else it widens)."""
    if dtype is None:
        if promote_integers:
            return None, None
        dtype = convert_to_tensor(a).dtype
        if np.dtype(dtype).kind == "b":  # (bools count in int32, also under x64, as jax.numpy's)
            dtype = np.dtype(np.int32)
        elif np.dtype(dtype).kind not in "iu":
            return None, None
    dtype = np.dtype(as_dtype("dtype", dtype))
    return (np.dtype(np.float32) if dtype in _HALF else dtype), dtype


def _reduced(op, name: str, a, axis, dtype, keepdims, where, fill, promote_integers):
    """``op`` (the sum or product op) of ``a`` with jax.numpy's ``dtype``, ``where`` and ``promote_integers``."""
    compute, result_dtype = _reduce_dtypes(a, dtype, promote_integers)
    if compute is not None:
        a = astype(a, compute)
    if where is not None:
        a = _masked(name, a, where, fill)
    result = op(a, axis=axis, keepdims=bool(keepdims))
    return result if result_dtype is None or result.dtype == result_dtype else astype(result, result_dtype)


def _mask_count(a, where, axis, keepdims):
    """How many entries of ``a`` the mask selects along ``axis`` (a mean's divisor), in ``a``'s float dtype (its
    real one for a complex ``a``: a variance divided by it stays real)."""
    mask = broadcast_to(convert_to_tensor(where), shape(a))
    dtype = convert_to_tensor(a).dtype
    dtype = jnp.finfo(dtype).dtype if jnp.issubdtype(dtype, jnp.inexact) else jnp.float32
    return _sum(astype(mask, dtype), axis=axis, keepdims=keepdims)


def _check_initial(name: str, initial) -> None:
    """A reduction's ``initial`` is one value (a scalar), as jax.numpy's: an array would broadcast the result."""
    if initial is not None and ndim(initial) != 0:
        raise ValueError(f"tj.numpy.{name}: initial value must be a scalar. Got array of shape {shape(initial)} (as "
                         "jax.numpy's)")


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None, promote_integers=True):
    """``jax.numpy.sum``: entries ``where`` masks out add nothing (and get no gradient); ``initial`` is added."""
    _no_out("sum", out)
    _check_initial("sum", initial)
    result = _reduced(_sum, "sum", a, _checked_axes("sum", a, axis), dtype, keepdims, where, 0, promote_integers)
    return result if initial is None else add(result, initial)


def _checked_axes(op: str, a, axis):
    """``axis`` frozen, each entry checked against ``a``'s rank and type: jax.numpy's mean, var and std index the
    shape with it first and raise a bare ``IndexError``, where TF raises ``ValueError`` (``AxisError`` is both);
    jax.numpy takes a string for a named (shard_map) axis and fails deep inside with ``NameError``; a float
    axis raises ``TypeError`` (as TF), never truncated."""
    axis = freeze(axis)
    if axis is not None and not isinstance(axis, Tensor):  # (a traced Tensor axis: the op names it)
        for ax in _axes(axis):
            _check_axis(op, ax, len(shape(a)), scalar=False)
    return axis


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """``jax.numpy.mean``; with ``where`` the mean of the entries it selects (NaN where it selects none). With
    ``dtype`` the entries are cast to it first, as jax.numpy's (float16 computed in float32; an integer dtype's
    mean is the sum's quotient truncated toward 0; bool raises ``TypeError``)."""
    _no_out("mean", out)
    axis = _checked_axes("mean", a, axis)
    if dtype is None:
        return _average(a, axis, keepdims, where)
    dtype = np.dtype(as_dtype("mean", dtype))
    if dtype == np.bool_:
        raise TypeError("tj.numpy.mean: a mean cannot be given in dtype bool (as jax.numpy's: its division takes no "
                        "bool); pass a numeric dtype")
    if dtype.kind in "fc":
        compute = np.dtype(np.float32) if dtype in _HALF else dtype
        return astype(_average(astype(astype(a, dtype), compute), axis, keepdims, where), dtype)
    total = sum(a, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
    count = astype(sum(ones_like(a, dtype=dtype), axis=axis, keepdims=keepdims, where=where), dtype)
    return astype(multiply(sign(total), floor_divide(abs(total), count)), dtype)  # (truncated, as lax.div)


def _average(a, axis, keepdims, where):
    """The mean of ``a`` along the (checked) ``axis``, of the entries the mask ``where`` selects if given."""
    if where is None:
        return _mean(a, axis=freeze(axis), keepdims=bool(keepdims))
    where = convert_to_tensor(where)  # (once: the mask serves the sum and the count)
    total = sum(_masked("mean", a, where, 0), axis=axis, keepdims=keepdims)
    return divide(total, _mask_count(a, where, axis, keepdims))


def _check_nonempty(name: str, a, axis, tf_value: Optional[str]) -> None:
    """jax.numpy's max/min of a zero-size axis raise (no identity); say so, and where TF differs, before
    the op runs (jax's message names neither the axis nor a way out). ``tf_value``: what TF's ``reduce_{name}``
    returns there (None: TF has no such op)."""
    shp = shape(a)
    axes = range(len(shp)) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    empty = [ax for ax in axes if isinstance(ax, int) and -len(shp) <= ax < len(shp) and shp[ax] == 0]
    if empty:
        tf = "" if tf_value is None else f" (TF's reduce_{name} returns {tf_value} there)"
        raise ValueError(f"tj.numpy.{name}: axis {empty[0]} of the input, shape {shp}, has size 0, and the {name} of "
                         f"no values is undefined: tj.numpy.{name} raises as jax.numpy.{name} does{tf}. Reduce a "
                         "non-empty axis, or test the size first.")


def _extreme(name: str, reduce, combine, a, axis, out, keepdims, initial, where, tf_value: str):
    """max or min: jax.numpy's ``initial`` takes part as one more entry (a tie with it gives the gradient to the
    input's extremes: ``maximum``'s first argument, TF's convention), and ``where`` needs it (no identity)."""
    _no_out(name, out)
    _check_initial(name, initial)
    axis = _checked_axes(name, a, axis)
    if initial is not None:  # (of the input's dtype, as jax.numpy's: max(bools, initial=2) is True, not 2)
        a = convert_to_tensor(a)
        initial = _cast(initial, a.dtype)
    if initial is None:
        if where is not None:
            raise ValueError(f"reduction operation {name} does not have an identity, so to use a where mask one has "
                             "to specify 'initial' (as jax.numpy)")
        _check_nonempty(name, a, axis, tf_value)
        return reduce(a, axis=axis, keepdims=bool(keepdims))
    shp = shape(a)
    reduced = _norm_axis(axis, len(shp))
    if builtins.any(shp[ax] == 0 for ax in reduced):  # nothing but ``initial``
        kept = tuple(1 if i in reduced else d for i, d in enumerate(shp)) if keepdims else \
            tuple(d for i, d in enumerate(shp) if i not in reduced)
        return full(kept, initial, dtype=convert_to_tensor(a).dtype)
    if where is not None:
        a = _masked(name, a, where, initial)
    return combine(reduce(a, axis=axis, keepdims=bool(keepdims)), initial)


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """``jax.numpy.max`` (gradient shared equally among tied maxima, as TF's reduce_max). A zero-size reduced
    axis raises ``ValueError`` without ``initial``, as jax.numpy (TF's reduce_max returns the dtype's lowest
    value)."""
    return _extreme("max", _max, maximum, a, axis, out, keepdims, initial, where, "-inf, or the dtype's lowest value")


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """``jax.numpy.min``. A zero-size reduced axis raises ``ValueError`` without ``initial``, as jax.numpy (TF's
    reduce_min returns the dtype's highest value)."""
    return _extreme("min", _min, minimum, a, axis, out, keepdims, initial, where,
                    "+inf, or the dtype's highest value")


def minmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """``jax.numpy.minmax``: ``(min(a, ...), max(a, ...))``, each with ``min``'s and ``max``'s gradient (tied
    extremes share it equally, as jax.numpy's and TF's). ``initial`` is one scalar for both, or a tuple
    ``(initial of the min, initial of the max)``; ``where`` needs both (no identity), and a zero-size reduced axis
    raises ``ValueError`` without them, as jax.numpy's. The same on every jax version (jax.numpy has minmax from
    0.11; jax 0.12 computes both in one reduction, tapejax with its min and max ops)."""
    _no_out("minmax", out)
    if isinstance(initial, tuple):
        if len(initial) != 2:
            raise ValueError(f"tj.numpy.minmax: a tuple initial is (initial of the min, initial of the max), two "
                             f"values; got {len(initial)}: {initial!r}")
        low, high = initial
    else:
        low = high = initial
    _check_initial("minmax", low)
    _check_initial("minmax", high)
    a = convert_to_tensor(a)  # (once: both reductions read it)
    axis = _checked_axes("minmax", a, axis)
    if low is None or high is None:  # (checked here, so that the message names minmax, not min or max)
        if where is not None:
            raise ValueError("reduction operation minmax does not have an identity, so to use a where mask one has to "
                             "specify 'initial' (one value, or a tuple of two: neither None), as jax.numpy's")
        _check_nonempty("minmax", a, axis, None)
    if where is not None:
        where = convert_to_tensor(where)
    return min(a, axis, None, keepdims, low, where), max(a, axis, None, keepdims, high, where)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None, promote_integers=True):
    """``jax.numpy.prod``: entries ``where`` masks out count as 1; ``initial`` multiplies the result."""
    _no_out("prod", out)
    _check_initial("prod", initial)
    result = _reduced(_prod, "prod", a, _checked_axes("prod", a, axis), dtype, keepdims, where, 1, promote_integers)
    return result if initial is None else multiply(result, initial)


def _ddof(name: str, ddof, correction):
    if correction is None:
        return ddof
    if ddof != 0:
        raise ValueError(f"tj.numpy.{name}: ddof and correction can't be provided simultaneously.")
    return correction


def _spread_dtypes(name: str, a, dtype):
    """var's and std's ``(compute, result)`` dtypes (``_reduce_dtypes``). A complex input with a real float
    ``dtype`` is measured in the complex dtype of that precision, its real result given in ``dtype`` (TF's tnp:
    the variance of [1+2j, 3j] is 0.5); casting the input first would drop its imaginary part (0.25)."""
    compute, result_dtype = _reduce_dtypes(a, dtype, True)
    if compute is None or compute.kind == "c" or not jnp.iscomplexobj(convert_to_tensor(a).value):
        return compute, result_dtype
    if compute.kind != "f":
        raise TypeError(f"tj.numpy.{name}: the {name} of complex values is real and fractional, it cannot be given "
                        f"in {result_dtype}; pass a float or complex dtype, or none.")
    return np.result_type(compute, np.complex64), result_dtype


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None, correction=None):
    """``jax.numpy.var``: ``correction`` is ``ddof``'s Array API name; ``where`` selects the entries counted;
    ``mean`` is the mean to measure from (broadcast with keepdims=True shapes), when already known. A complex
    input with a real ``dtype`` gives its (real) variance in that dtype, as TF's tnp (jax.numpy refuses)."""
    _no_out("var", out)
    axis = _checked_axes("var", a, axis)
    ddof = _ddof("var", ddof, correction)
    compute, result_dtype = _spread_dtypes("var", a, dtype)
    if compute is not None:
        a = astype(a, compute)
    result = _variance(a, axis, ddof, keepdims, where, mean)
    return result if result_dtype is None or result.dtype == result_dtype else astype(result, result_dtype)


def _variance(a, axis, ddof, keepdims, selected, mean, too_few_is_nan: bool = False):
    """``var`` (on the checked ``axis``); with jax.numpy's ``where`` (``selected``) or ``mean``, written out: the
    entries counted are counted once, for the mean and for the divisor. ``too_few_is_nan`` (``nanvar``): NaN where
    no more than ``ddof`` entries count, with a zero gradient (the divisor made safe, as jax.numpy's nanvar)."""
    if selected is None and mean is None:
        return _var(a, axis=axis, keepdims=bool(keepdims), ddof=ddof)
    axes = _norm_axis(axis, ndim(a))
    if selected is None:
        count = float(np.prod([shape(a)[ax] for ax in axes], dtype=np.int64))
    else:
        selected = convert_to_tensor(selected)  # (once: the mask serves three reductions)
        count = _mask_count(a, selected, axis, True)
    if mean is None:
        mean = divide(sum(a, axis=axis, keepdims=True, where=selected), count)
    centered = subtract(a, mean)
    squares = real(multiply(centered, conj(centered))) if jnp.iscomplexobj(convert_to_tensor(a).value) else \
        multiply(centered, centered)
    total, divisor = sum(squares, axis=axis, keepdims=True, where=selected), subtract(count, ddof)
    if too_few_is_nan:
        too_few = divisor <= 0
        total = where(too_few, full_like(total, np.nan), total)
        divisor = where(too_few, ones_like(divisor), divisor)
    result = divide(total, divisor)
    return result if keepdims or not axes else squeeze(result, axes)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None, correction=None):
    """``jax.numpy.std``: the square root of ``var`` (the same arguments)."""
    _no_out("std", out)
    if where is not None or mean is not None:
        return sqrt(var(a, axis, dtype, None, ddof, keepdims, where=where, mean=mean, correction=correction))
    axis = _checked_axes("std", a, axis)
    compute, result_dtype = _spread_dtypes("std", a, dtype)
    result = _std(a if compute is None else astype(a, compute), axis=axis, keepdims=bool(keepdims),
                  ddof=_ddof("std", ddof, correction))
    return result if result_dtype is None or result.dtype == result_dtype else astype(result, result_dtype)


def _scan_axis(op: str, a, axis):
    """A scan's axis: None (the flattened input) or one int in range (TF: "axis must be a scalar"; a list gave
    an unhashable-type error from the kernel cache)."""
    if axis is None:
        return None
    try:
        return _check_axis(op, axis, ndim(a))
    except TracedValueError:
        raise  # (a traced scalar Tensor: its own error, which names the argument)
    except TypeError:
        raise TypeError(f"tj op '{op}': axis must be one integer (a scalar), got {axis!r}") from None


def cumsum(a, axis=None, dtype=None, out=None):
    """``jax.numpy.cumsum`` (``dtype``: the input is cast first, as jax.numpy accumulates in it; ``out``: None
    only)."""
    _no_out("cumsum", out)
    if dtype is not None and as_dtype("cumsum", dtype) == jnp.bool_:  # (a running "any", bool, as jax.numpy's)
        return astype(_cumsum(astype(astype(a, jnp.bool_), jnp.int32), axis=_scan_axis("cumsum", a, axis)), jnp.bool_)
    return _cumsum(a if dtype is None else astype(a, dtype), axis=_scan_axis("cumsum", a, axis))


def cumprod(a, axis=None, dtype=None, out=None):
    """``jax.numpy.cumprod`` (``dtype``: the input is cast first, as jax.numpy accumulates in it; ``out``: None
    only)."""
    _no_out("cumprod", out)
    if dtype is not None and as_dtype("cumprod", dtype) == jnp.bool_:  # (a running "all", bool, as jax.numpy's)
        return astype(_cumprod(astype(astype(a, jnp.bool_), jnp.int32), axis=_scan_axis("cumprod", a, axis)),
                      jnp.bool_)
    return _cumprod(a if dtype is None else astype(a, dtype), axis=_scan_axis("cumprod", a, axis))


amax = max
amin = min


def _add_n_fn(*xs):
    total = xs[0]
    for x in xs[1:]:
        total = total + x
    return total


_add_n = OpDef("add_n", _add_n_fn,
               bwd=lambda res, g: tuple(_cast_like(_unbroadcast(g, jnp.shape(x)), x) for x in res[0]),
               jvp=lambda p, t, out: _add_n_fn(*t),
               samples=_samples(((_r(3), _r(3), _r(3)), {})))


def add_n(xs: Sequence[Any]):
    """Sum of a list of same-shape tensors in one op (TF's add_n)."""
    xs = list(xs)
    if not xs:
        raise ValueError("add_n: needs at least one tensor")
    shapes = [shape(x) for x in xs]
    if builtins.any(s != shapes[0] for s in shapes):  # as TF (InvalidArgumentError): never broadcast silently
        raise ValueError(f"tj op 'add_n': the inputs must have the same shape, got shapes {shapes}")
    return _add_n(*xs)


# -- matrix products ---------------------------------------------------------------------------------

def _matmul_bwd(res, g, precision=None, preferred_element_type=None, out_sharding=None):
    (x, y), _ = res
    xs, ys = jnp.shape(x), jnp.shape(y)
    x, y = _conj_values(x), _conj_values(y)  # TF's complex convention: products with the conjugated operands
    if len(xs) == 1 and len(ys) == 1:
        return _cast_like(g * y, x), _cast_like(g * x, y)
    x2 = x[None, :] if len(xs) == 1 else x
    y2 = y[:, None] if len(ys) == 1 else y
    g2 = g
    if len(xs) == 1:
        g2 = jnp.expand_dims(g2, -2)
    if len(ys) == 1:
        g2 = jnp.expand_dims(g2, -1)
    gx = _matmul_operand_grad(g2, y2, x2.shape, True, precision)
    gy = _matmul_operand_grad(x2, g2, y2.shape, False, precision)
    return _cast_like(gx.reshape(xs), x), _cast_like(gy.reshape(ys), y)


def _matmul_operand_grad(a, b, shape, left: bool, precision):
    """The gradient of one matmul operand of ``shape``: ``a @ b^T`` (``left``: the left operand's, from the
    cotangent ``a`` and the right operand ``b``) or ``a^T @ b`` (the right operand's), summed over the batch
    dimensions the operand was broadcast along. A matrix operand of batched products (a layer's weight
    applied to a batch of sequences) gets that sum as one contraction over the batch dimensions too, as
    jax's own VJP computes it: no per-batch products kept and summed after, one kernel less."""
    lead = a.ndim - 2
    if len(shape) == 2 and lead > 0 and b.ndim == a.ndim:
        batch = tuple(range(lead))
        inner = (a.ndim - 1,) if left else (a.ndim - 2,)  # (the dimension the two share besides the batch)
        return jax.lax.dot_general(a, b, ((batch + inner, batch + inner), ((), ())), precision=precision)
    g = jnp.matmul(a, jnp.swapaxes(b, -1, -2), precision=precision) if left else \
        jnp.matmul(jnp.swapaxes(a, -1, -2), b, precision=precision)
    return _unbroadcast(g, shape)


# name                   function       rules (matmul keeps its operands, not its output)   samples
_matmul = OpDef("matmul", jnp.matmul, fwd=lambda x, y, **kw: (jnp.matmul(x, y, **kw), ((x, y), None)), bwd=_matmul_bwd,
                jvp=lambda p, t, out, **kw: jnp.matmul(t[0], p[1], **kw) + jnp.matmul(p[0], t[1], **kw),
                samples=_samples(((_r(3, 4), _r(4, 5)), {}), ((_r(2, 3, 4), _r(4, 2)), {}),
                                 ((_r(3, 4), _r(2, 4, 5)), {}), ((_r(2, 1, 3, 4), _r(2, 4, 5)), {}),
                                 ((_r(4), _r(4, 3)), {}), ((_r(3, 4), _r(4)), {}), ((_r(4), _r(4)), {}),
                                 ((_r(3, 4), _r(4, 5)), {"precision": "highest"})))
_dot = OpDef("dot", jnp.dot, samples=_samples(((_r(3, 4), _r(4, 5)), {}), ((_r(4), _r(4)), {})))
_einsum = OpDef("einsum", lambda *ops, subscripts, **kw: jnp.einsum(subscripts, *ops, **kw),
                samples=_samples(((_r(3, 4), _r(4, 5)), {"subscripts": "ij,jk->ik"}),
                                 ((_r(2, 3),), {"subscripts": "ij->ji"})))
_outer = OpDef("outer", jnp.outer, samples=_samples(((_r(3), _r(4)), {})))


def _product_options(name: str, precision, preferred_element_type, optimize="auto", out_sharding=None) -> dict:
    """jax.numpy's options of a matrix product, as the op's static parameters (none given: none, so the
    common call shares its kernels with ``@``). ``precision`` matters on GPUs and TPUs (``"highest"``: no
    TF32 or bfloat16 passes for float32); ``preferred_element_type`` is the result's dtype; ``out_sharding`` the
    result's sharding (given to jax.numpy's function; the gradients go back to the operands' shardings)."""
    options = {}
    if out_sharding is not None:
        options["out_sharding"] = _placement(name, None, out_sharding)
    if precision is not None:
        options["precision"] = freeze(precision)
    if preferred_element_type is not None:
        options["preferred_element_type"] = as_dtype(name, preferred_element_type)
    if optimize != "auto":  # (a string, a bool, or an einsum_path's contraction list: frozen to tuples)
        options["optimize"] = freeze(optimize)
    return options


def matmul(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """``jax.numpy.matmul`` (also the ``@`` operator)."""
    return _matmul(a, b, **_product_options("matmul", precision, preferred_element_type, out_sharding=out_sharding))


def dot(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """``jax.numpy.dot``. A scalar operand (with no options given) is ``multiply``, as NumPy's and jax.numpy's
    definition (jax.numpy's own scalar path fails under x64 for a Python int and an int32 array)."""
    if precision is None and preferred_element_type is None and out_sharding is None and \
            (ndim(a) == 0 or ndim(b) == 0):
        return multiply(a, b)
    return _dot(a, b, **_product_options("dot", precision, preferred_element_type, out_sharding=out_sharding))


def einsum(subscripts, /, *operands, out=None, optimize="auto", precision=None, preferred_element_type=None,
           out_sharding=None):
    """``jax.numpy.einsum``: ``einsum('ij,jk->ik', x, y)`` or NumPy's interleaved form ``einsum(x, [0, 1], y, [1, 2],
    [0, 2])`` (jax.numpy's ``_dot_general``, its internal hook, is not taken)."""
    _no_out("einsum", out)
    subscripts, operands = _einsum_spec("einsum", subscripts, operands)
    return _einsum(*operands, subscripts=subscripts,
                   **_product_options("einsum", precision, preferred_element_type, optimize, out_sharding))


def einsum_path(subscripts, /, *operands, optimize="auto"):
    """``jax.numpy.einsum_path``: the contraction order ``einsum`` would take (``optimize``: as einsum's), and its
    description; only the operands' shapes are read."""
    subscripts, operands = _einsum_spec("einsum_path", subscripts, operands)
    shapes = [jax.ShapeDtypeStruct(shape(o), _operand_dtype(o)) for o in operands]
    return jnp.einsum_path(subscripts, *shapes, optimize=optimize)


_EINSUM_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _einsum_spec(op: str, subscripts, operands):
    """``(subscripts string, operands)`` from either einsum form: the interleaved one, ``x, [0, 1], y, [1, 2][,
    [0, 2]]`` (ints 0-51 name the axes, Ellipsis stands for '...'), written as the string form, as NumPy's parser."""
    if isinstance(subscripts, str):
        return subscripts, operands
    args = (subscripts,) + tuple(operands)

    def letters(sublist) -> str:
        out = []
        for s in sublist:
            if s is Ellipsis:
                out.append("...")
            elif isinstance(s, (int, np.integer)) and not isinstance(s, bool) and 0 <= s < len(_EINSUM_LETTERS):
                out.append(_EINSUM_LETTERS[s])
            else:
                raise TypeError(f"tj.numpy.{op}: an interleaved subscript list holds ints from 0 to 51 or Ellipsis; "
                                f"got {s!r} in {list(sublist)!r}")
        return "".join(out)
    arrays, specs = list(args[0::2]), list(args[1::2])
    output = None
    if len(arrays) > len(specs):  # an odd count: the last entry is the output's sublist
        output = arrays.pop()
    spec = ",".join(letters(s) for s in specs)
    return (spec if output is None else f"{spec}->{letters(output)}"), tuple(arrays)


def outer(a, b, out=None):
    """``jax.numpy.outer`` (``out``: None only)."""
    _no_out("outer", out)
    return _outer(a, b)


_rng.uniform(size=36)  # the draws of linalg.norm's samples (declared here once): later samples stay as they were


# -- shapes -----------------------------------------------------------------------------------------

def _linear_shape_op(name: str, f, transpose, samples, *, tokens: bool = True) -> OpDef:
    """An op that only moves or copies elements: its tangent is ``f`` of the tangents, and its backward
    ``transpose(tokens, g, **static)`` reads only the inputs' shapes (``_token``s; no residual at all with
    ``tokens=False``, where the static parameters say everything)."""

    def fwd(*xs, **static):
        return f(*xs, **static), (tuple(_token(x) for x in xs) if tokens else None)
    return OpDef(name, f, fwd=fwd, bwd=transpose, jvp=lambda p, t, out, **static: f(*t, **static), samples=samples)


def _concat_bwd(tokens, g, axis=0):
    sizes = np.cumsum([t.shape[1:][axis] for t in tokens])[:-1]
    # each piece in its input's dtype (the real part for a real input beside a complex one, float16 beside float32)
    return tuple(_cast_like(piece, t) for piece, t in zip(jnp.split(g, sizes, axis=axis), tokens))


# name                                function                                       backward from the shapes
# (``out_sharding``, given to jax.numpy only when asked for: ravel's and broadcast_to's; the gradient goes back to the
# input's sharding, backprop's placement of gradients)
_reshape = _linear_shape_op("reshape", lambda x, shape, **kw: jnp.reshape(x, shape, **kw),
                            lambda toks, g, shape, **kw: (jnp.reshape(g, toks[0].shape[1:]),),
                            _samples(((_r(3, 4),), {"shape": (2, 6)}), ((_r(3, 4),), {"shape": (-1,)})))
_transpose = _linear_shape_op("transpose", lambda x, axes=None: jnp.transpose(x, axes),
                              lambda _, g, axes=None: (jnp.transpose(g, axes and tuple(np.argsort(axes))),),
                              _samples(((_r(3, 4),), {}), ((_r(2, 3, 4),), {"axes": (1, 2, 0)})), tokens=False)
_broadcast_to = _linear_shape_op("broadcast_to", lambda x, shape, **kw: jnp.broadcast_to(x, shape, **kw),
                                 lambda toks, g, shape, **kw: (
                                     _unbroadcast(g, toks[0].shape[1:]).astype(toks[0].dtype),),
                                 _samples(((_r(3, 1),), {"shape": (2, 3, 4)}), ((_r(4),), {"shape": (3, 4)})))
_concatenate = _linear_shape_op("concatenate", lambda *xs, axis=0: jnp.concatenate(xs, axis=axis), _concat_bwd,
                                _samples(((_r(2, 3), _r(4, 3)), {"axis": 0}), ((_r(2, 3), _r(2, 1)), {"axis": 1})))
# derived by JAX (the gradient of a gather is the scatter-add of g: repeated indices accumulate)
_stack = OpDef("stack", lambda *xs, axis=0: jnp.stack(xs, axis=axis),
               samples=_samples(((_r(2, 3), _r(2, 3)), {"axis": 0}), ((_r(2, 3), _r(2, 3), _r(2, 3)), {"axis": 2})))
_split = OpDef("split", lambda x, indices_or_sections, axis=0: tuple(jnp.split(x, indices_or_sections, axis=axis)),
               samples=_samples(((_r(6, 2),), {"indices_or_sections": 3}),
                                ((_r(2, 5),), {"indices_or_sections": (1, 3), "axis": 1})))
_take = OpDef("take", jnp.take, samples=_samples(((_r(5, 3), np.array([0, 2, 2, 4])), {"axis": 0}),
                                                 ((_r(5, 3), np.array([[1, 0], [2, 2]])), {"axis": 1})))
_take_along_axis = OpDef("take_along_axis", jnp.take_along_axis,
                         samples=_samples(((_r(3, 4), np.array([[0, 1], [3, 3], [2, 0]])), {"axis": 1})))
# (``options``: jax.numpy's keywords of the mode: constant_values of every constant pad, the others where given)
_pad = OpDef("pad", lambda x, pad_width, mode="constant", **options: jnp.pad(x, pad_width, mode=mode, **options),
             samples=_samples(((_r(3, 4),), {"pad_width": ((1, 2), (0, 1))}),
                              ((_r(3, 4),), {"pad_width": ((1, 1), (2, 2)), "mode": "reflect"})))
_tile = OpDef("tile", jnp.tile, samples=_samples(((_r(2, 3),), {"reps": (2, 1)})))


def _repeat_fn(a, *given, repeats=None, axis=None, **options):
    """``jnp.repeat``: per-element repeats arrive frozen to a tuple (static), which jnp.repeat takes as a (concrete)
    array; or, with ``total_repeat_length`` (in ``options``, with ``out_sharding``), as an integer input array
    (``given``: traceable, as jax.numpy's)."""
    if given:
        repeats = given[0]
    elif isinstance(repeats, tuple):
        repeats = np.asarray(repeats)
    return jnp.repeat(a, repeats, axis=axis, **options)


_repeat = OpDef("repeat", _repeat_fn,
                samples=_samples(((_r(2, 3),), {"repeats": 2, "axis": 1}),
                                 # (not drawn from _rng: later ops' samples stay as they were)
                                 ((np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3),),
                                  {"repeats": (1, 0, 2), "axis": 1})))
_flip = OpDef("flip", jnp.flip, samples=_samples(((_r(3, 4),), {"axis": 1})))


def _sort_fn(a, axis=-1, descending=False, stable=True):
    if not stable:  # (ties in no promised order: jax.numpy's sort, descending or not)
        return jnp.sort(a, axis=axis, stable=False, descending=descending)
    if not descending:
        return jnp.sort(a, axis=axis)
    # TF's descending sort keeps tied elements in their original order, so its gradient reaches them in that
    # order; jnp.sort(descending=True) reverses them. The gather's derived gradient scatters to those positions.
    if axis is None:
        a, axis = jnp.ravel(a), 0
    return jnp.take_along_axis(a, jnp.argsort(a, axis=axis, stable=True, descending=True), axis=axis)


_sort = OpDef("sort", _sort_fn, samples=_samples(((_r(3, 5),), {"axis": -1}),
                                                 # (not drawn from _rng: later ops' samples stay as they were)
                                                 ((np.linspace(1, -1, 15, dtype=np.float32).reshape(3, 5)[:, ::-1]
                                                   * np.array([1, -1, 1, -1, 1], np.float32),), {"descending": True})))
_where = OpDef("where", jnp.where,
               samples=_samples(((np.array([[True, False, True, False]] * 3), _r(3, 4), _r(3, 4)), {}),
                                ((np.array([True, False, True, True]), _r(3, 4), _r(4)), {})))


def _clip_masks(x, lo, hi):
    """Which operand ``jnp.clip``'s value ``minimum(maximum(x, lo), hi)`` is, elementwise: ``(to_lo, to_hi)``, x where
    neither. Ties go to x (TF: at the bounds the gradient passes through to x); where ``lo > hi`` the value is hi,
    so only hi gets the gradient; where x or a bound is NaN, lo gets it, as TF's clip_by_value (maximum(minimum(x,
    hi), lo): a comparison with NaN sends each op's gradient to its second operand). Reverse and forward mode read
    the same masks."""
    nan = jnp.isnan(x) | jnp.isnan(lo) | jnp.isnan(hi)
    to_lo = (x < lo) | nan
    to_hi = ~nan & (jnp.where(to_lo, lo, x) > hi)
    return to_lo & ~to_hi, to_hi


def _clip_bwd(res, g):
    (x, lo, hi), _ = res
    to_lo, to_hi = _clip_masks(x, lo, hi)
    z = jnp.zeros_like(g)
    # (jnp.clip broadcasts x against the bounds: x's gradient is summed back to x's shape too)
    return (_cast_like(_unbroadcast(jnp.where(to_lo | to_hi, z, g), jnp.shape(x)), x),
            _cast_like(_unbroadcast(jnp.where(to_lo, g, z), jnp.shape(lo)), lo),
            _cast_like(_unbroadcast(jnp.where(to_hi, g, z), jnp.shape(hi)), hi))


def _clip_jvp(p, t, out):
    x, lo, hi = p
    tx, tlo, thi = t
    to_lo, to_hi = _clip_masks(x, lo, hi)
    return jnp.where(to_hi, thi, jnp.where(to_lo, tlo, tx)) * jnp.ones_like(out)


_clip = OpDef("clip", jnp.clip, bwd=_clip_bwd, jvp=_clip_jvp,  # ClipByValueGrad: bounds pass to x
              samples=_samples(((_r(3, 4), np.float32(-0.5), np.float32(0.7)), {})))
# float -> float casts pass gradients (cast back); casts to int/bool are not differentiable (JAX's float0)
def _cast_fn(x, dtype):
    with warnings.catch_warnings():  # (jax's complex -> real warning, at trace time only: astype gives it per call)
        warnings.simplefilter("ignore", DeprecationWarning)
        return x.astype(dtype)


_astype = OpDef("astype", _cast_fn, samples=_samples(((_r(3),), {"dtype": jnp.float16})))


def reshape(a, shape=None, order="C", **kw):
    """``jax.numpy.reshape``; ``order='F'`` reads and writes the elements in Fortran order (a reshape between two
    transposes), ``'A'`` and None are ``'C'``, as jax.numpy's."""
    if shape is None:
        shape = kw.pop("newshape", None)
        if shape is None:  # (TF: ValueError "Attempt to convert a value (None)"; jax.numpy: TypeError)
            raise ShapeError("tj op 'reshape': the new shape is missing (got None); give a tuple of ints, with "
                             "at most one -1")
    if order not in ("C", "F", "A", None):
        raise ValueError(f"tj op 'reshape': order must be 'C', 'F' or 'A' (as jax.numpy's), got {order!r}")
    if isinstance(shape, int):
        shape = (shape,)
    shape = freeze(shape)
    if order == "F":  # (Fortran order is C order of the axes reversed)
        t = transpose(a)
        reversed_shape = tuple(reversed(shape)) if isinstance(shape, tuple) else shape
        return transpose(_reshape(t, shape=_inferred_size(t, reversed_shape)))
    return _reshape(a, shape=_inferred_size(a, shape))


def _inferred_size(a, new):
    """``new`` with a ``-1`` among sizes whose product is 0 filled in as TF's Reshape fills it (jax divides by
    zero): for an empty tensor, the product of its nonzero sizes floor-divided by that of the other nonzero sizes
    asked for (``(0, 6)`` to ``(0, -1, 3)`` is ``(0, 2, 3)``: an empty batch keeps its row shape); for a tensor
    with values, TF's error (the value count against the requested shape)."""
    if not (isinstance(new, tuple) and builtins.all(type(d) is int for d in new) and new.count(-1) == 1):
        return new
    known = int(np.prod([d for d in new if d != -1], dtype=np.int64))
    size = int(np.prod(shape(a), dtype=np.int64))
    if known != 0:
        return new
    if size != 0:
        raise ShapeError(f"tj op 'reshape': a tensor with {size} values cannot take the shape {new}: its other "
                         "sizes multiply to 0, so the -1 has no size that fits; give every size explicitly.")
    nonzero = lambda sizes: int(np.prod([d for d in sizes if d not in (0, -1)], dtype=np.int64))  # noqa: E731
    return tuple(nonzero(shape(a)) // nonzero(new) if d == -1 else d for d in new)


def transpose(a, axes=None):
    """``jax.numpy.transpose``. ``axes`` must be a permutation of the dimensions (negative ones count from the
    end); anything else raises ``ValueError``, as TF (an axis out of range: ``AxisError``, never wrapped around,
    which could turn ``[1, 2, 3]`` of a rank-3 tensor into the permutation ``(1, 2, 0)``)."""
    if axes is not None:
        nd = ndim(a)
        axes = freeze(axes)  # (a Tensor's value: iterating it would record getitems)
        axes = axes if isinstance(axes, tuple) else (axes,)  # (one int: NumPy's, for a vector)
        if builtins.any(isinstance(x, tuple) for x in axes):
            raise ValueError(f"tj op 'transpose': axes must be one sequence of integers (rank 1), got {axes!r}")
        axes = tuple(_check_axis("transpose", x, nd) for x in axes)
        if sorted(axes) != list(range(nd)):
            raise ValueError(f"tj op 'transpose': axes {axes} are not a permutation of the {nd} dimensions of a "
                             f"tensor of shape {shape(a)}")
    return _transpose(a, axes=axes)


def swapaxes(a, axis1, axis2):
    """``jax.numpy.swapaxes`` (a transpose)."""
    nd = ndim(a)
    axis1, axis2 = _check_axis("swapaxes", axis1, nd), _check_axis("swapaxes", axis2, nd)
    perm = list(range(nd))
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return transpose(a, perm)


def moveaxis(a, source, destination):
    """``jax.numpy.moveaxis`` (a transpose): ``source`` and ``destination`` are axes, or sequences of as many
    distinct axes."""
    nd = ndim(a)
    src = [_check_axis("moveaxis", x, nd, scalar=False) for x in _axes(source)]
    dst = [_check_axis("moveaxis", x, nd, scalar=False) for x in _axes(destination)]
    if len(src) != len(dst):
        raise ValueError(f"tj op 'moveaxis': source {source!r} and destination {destination!r} must have the same "
                         "number of elements")
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError(f"tj op 'moveaxis': repeated axis in source {source!r} or destination {destination!r}")
    perm = [i for i in range(nd) if i not in src]
    for d, s_ in sorted(zip(dst, src)):
        perm.insert(d, s_)
    return transpose(a, perm)


def squeeze(a, axis=None):
    """``jax.numpy.squeeze`` (a reshape)."""
    shp = shape(a)
    axes = (tuple(sorted(_check_axis("squeeze", x, len(shp)) for x in _axes(axis))) if axis is not None
            else tuple(i for i, s in enumerate(shp) if s == 1))
    if len(set(axes)) != len(axes):
        raise ValueError(f"squeeze: repeated axis in {axis!r} (as NumPy and jax.numpy)")
    for ax in axes:
        if shp[ax] != 1:
            raise ValueError(f"squeeze: cannot squeeze axis {ax} of size {shp[ax]} (shape {shp})")
    return reshape(a, tuple(s for i, s in enumerate(shp) if i not in axes))


def expand_dims(a, axis):
    """``jax.numpy.expand_dims`` (a reshape)."""
    new = list(shape(a))
    axes = _axes(axis)
    nd = len(new) + len(axes)
    axes = sorted(_check_axis("expand_dims", x, nd) for x in axes)
    if len(set(axes)) != len(axes):  # (as NumPy and jax.numpy: ValueError "repeated axis"; it added one axis)
        raise ValueError(f"tj op 'expand_dims': axis {axis!r} names the same position more than once")
    for ax in axes:
        new.insert(ax, 1)
    return reshape(a, tuple(new))


def ravel(a, order="C", *, out_sharding=None):
    """``jax.numpy.ravel`` (a reshape): ``order='C'`` row by row, ``'F'`` column by column (of the transpose);
    ``'A'`` and ``'K'`` raise ``NotImplementedError`` and others ``ValueError``, as jax.numpy's. ``out_sharding``:
    the result's sharding, given to jax.numpy's reshape."""
    if order != "C":
        if order != "F":
            if order in ("A", "K"):
                raise NotImplementedError(f"tj.numpy.ravel: order={order!r} is not implemented, as jax.numpy.ravel's "
                                          "(use 'C' or 'F')")
            raise ValueError(f"tj.numpy.ravel: order must be 'C' or 'F' (as jax.numpy.ravel's), got {order!r}")
        a = transpose(a)
    if out_sharding is not None:
        return _reshape(a, shape=(-1,), out_sharding=_placement("ravel", None, out_sharding))
    return reshape(a, (-1,))


def broadcast_to(array, shape, *, out_sharding=None):
    """``jax.numpy.broadcast_to`` (``out_sharding``: the result's sharding, given to jax.numpy's)."""
    if isinstance(shape, int):
        shape = (shape,)
    if out_sharding is not None:
        return _broadcast_to(array, shape=freeze(shape), out_sharding=_placement("broadcast_to", None, out_sharding))
    return _broadcast_to(array, shape=freeze(shape))


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """``jax.numpy.meshgrid`` (TF's ``tf.meshgrid``): reshapes and broadcasts of the inputs, each keeping its
    dtype; ``indexing='xy'`` swaps the first two output axes. An input of another rank is flattened first, as TF
    and NumPy do (jax.numpy raises)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    xi = [x if len(shape(x)) == 1 else ravel(x) for x in xi]
    sizes = [shape(x)[0] for x in xi]
    if indexing == "xy" and len(xi) >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, x in enumerate(xi):
        axis = (1 - i if i < 2 else i) if indexing == "xy" and len(xi) >= 2 else i
        grid = reshape(x, tuple(-1 if k == axis else 1 for k in range(len(xi))))
        out.append(grid if sparse else broadcast_to(grid, tuple(sizes)))
    return out


def concatenate(arrays, axis=0, dtype=None):
    """``jax.numpy.concatenate`` (``axis=None``: of the flattened arrays; ``dtype``: each cast to it first). Shapes
    that do not fit raise ``ValueError`` (as TF and NumPy; jax.numpy raises ``TypeError``): no arrays, scalars,
    different ranks, or sizes that differ off the axis."""
    arrays = list(arrays)
    if not arrays:
        raise ValueError("tj op 'concatenate': needs at least one array (got an empty list)")
    if dtype is not None:
        arrays = [astype(a, dtype) for a in arrays]
    if axis is None:
        arrays, axis = [ravel(a) for a in arrays], 0
    shapes = [shape(a) for a in arrays]
    nd = len(shapes[0])
    if nd == 0:
        raise ValueError("tj op 'concatenate': can't concatenate scalars (use tj.numpy.stack instead)")
    ax = _check_axis("concatenate", axis, nd)
    for s in shapes[1:]:
        if len(s) != nd or builtins.any(a != b for i, (a, b) in enumerate(zip(s, shapes[0])) if i != ax):
            raise ValueError(f"tj op 'concatenate': shapes {shapes[0]} and {s} cannot be concatenated along axis {ax}"
                             + (f": their rank differs ({nd} and {len(s)})" if len(s) != nd else
                                ": every other dimension must match"))
    return _concatenate(*arrays, axis=ax)


concat = concatenate


def stack(arrays, axis=0, out=None, dtype=None):
    """``jax.numpy.stack`` (``dtype``: each array cast to it first)."""
    _no_out("stack", out)
    arrays = list(arrays)
    if dtype is not None:
        arrays = [astype(a, dtype) for a in arrays]
    axis = as_index(axis, lambda: f"tj op 'stack': axis must be an integer (or a scalar integer Tensor), got "
                                  f"{axis!r} of type {type(axis).__name__}")
    return _stack(*arrays, axis=axis)


def split(ary, indices_or_sections, axis=0):
    """``jax.numpy.split``: a list of tensors; an axis out of range raises ``AxisError`` (a ``ValueError``, as TF)."""
    axis = _check_axis("split", axis, ndim(ary))
    if isinstance(indices_or_sections, (list, tuple)) or (
            isinstance(indices_or_sections, np.ndarray) and indices_or_sections.ndim == 1):
        # split points past the end give empty pieces, as NumPy's (jax.numpy raises for them): clipped to the length
        n = shape(ary)[axis]
        points = [as_index(i, lambda: f"tj op 'split': split indices must be integers, got {indices_or_sections!r}")
                  for i in indices_or_sections]
        indices_or_sections = [builtins.min(builtins.max(i if i >= 0 else i + n, 0), n) for i in points]
        if indices_or_sections != sorted(indices_or_sections):  # (NumPy's pieces ary[p_k:p_k+1] then overlap)
            t = convert_to_tensor(ary)
            bounds = [0] + indices_or_sections + [n]
            lead = (slice(None),) * axis
            return [t[lead + (slice(lo, builtins.max(lo, hi)),)] for lo, hi in zip(bounds, bounds[1:])]
    return list(_split(ary, indices_or_sections=freeze(indices_or_sections), axis=axis))


def _gather_options(unique_indices=False, indices_are_sorted=False, fill_value=None, wrap_negative_indices=True):
    """jax.numpy's gather options, as static parameters of the op (only those given: the default call keeps its
    kernels)."""
    options = {}
    if unique_indices:
        options["unique_indices"] = True
    if indices_are_sorted:
        options["indices_are_sorted"] = True
    if fill_value is not None:
        options["fill_value"] = freeze(fill_value)
    if not wrap_negative_indices:
        options["wrap_negative_indices"] = False
    return options


def take(a, indices, axis=None, out=None, mode=None, unique_indices=False, indices_are_sorted=False, fill_value=None):
    """``jax.numpy.take`` (repeated indices accumulate their gradients).

    With the default ``mode=None``, concrete indices outside ``[-n, n)`` raise ``IndexError`` and float
    indices ``TypeError`` (as TF's gather and NumPy), where jax.numpy would fill with NaN. An explicit
    ``mode`` ('clip', 'wrap', 'fill' with its ``fill_value``, 'promise_in_bounds') keeps JAX's semantics, and
    so do traced indices (inside ``tj.function``/``jax.jit`` their values are not known: JAX's fill applies)."""
    _no_out("take", out)
    shp = shape(a)
    indices = _index_list(indices, "take")
    if mode is None:
        if axis is None:
            n, ax = int(np.prod(shp, dtype=np.int64)), "None (the flattened tensor)"
        else:
            ax = _check_axis("take", axis, len(shp), scalar=False)
            n = shp[ax]
        _check_index_array("take", indices, ax, n, shp)
    else:
        _check_index_dtype("take", indices)
    return _take(a, indices, axis=axis, mode=mode,
                 **_gather_options(unique_indices, indices_are_sorted, fill_value))


def take_along_axis(arr, indices, axis=-1, mode=None, fill_value=None, *, wrap_negative_indices=None):
    """``jax.numpy.take_along_axis``; with the default ``mode=None`` concrete out-of-bounds indices raise
    ``IndexError``, float indices ``TypeError`` (traced indices keep JAX's fill, as ``take``); an explicit
    ``mode`` keeps JAX's semantics, as ``take``'s. ``wrap_negative_indices``: None is jax.numpy's default (wrap,
    but not under ``mode='promise_in_bounds'``)."""
    shp = shape(arr)
    indices = _index_list(indices, "take_along_axis")
    options = _gather_options(fill_value=fill_value, wrap_negative_indices=wrap_negative_indices is not False)
    if wrap_negative_indices:  # (an explicit True: jax.numpy's None differs from it under promise_in_bounds)
        options["wrap_negative_indices"] = True
    if mode is not None:
        _check_index_dtype("take_along_axis", indices)
        return _take_along_axis(arr, indices, axis=axis, mode=mode, **options)
    if axis is not None:
        ax = _check_axis("take_along_axis", axis, len(shp))
        _check_index_array("take_along_axis", indices, ax, shp[ax], shp)
    else:
        _check_index_array("take_along_axis", indices, "None (the flattened tensor)",
                           int(np.prod(shp, dtype=np.int64)), shp)
    return _take_along_axis(arr, indices, axis=axis, **options)


class _UnknownPadMode(ValueError, NotImplementedError):
    """An unknown pad mode: TF's tf.pad raises ValueError, jax.numpy.pad NotImplementedError; this is both."""


_PAD_MODES = ("constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum", "reflect", "symmetric",
              "wrap", "empty")


# jax.numpy's keywords of each mode (others raise ValueError, as jax.numpy's)
_PAD_OPTIONS = {"constant": ("constant_values",), "linear_ramp": ("end_values",), "maximum": ("stat_length",),
                "mean": ("stat_length",), "median": ("stat_length",), "minimum": ("stat_length",),
                "reflect": ("reflect_type",), "symmetric": ("reflect_type",)}


def pad(array, pad_width, mode="constant", *, constant_values=None, end_values=None, stat_length=None,
        reflect_type=None, **kwargs):
    """``jax.numpy.pad``, with jax.numpy's keywords of each mode (None: the mode's default, as jax.numpy's):
    ``constant_values`` (constant; 0), ``end_values`` (linear_ramp; 0), ``stat_length`` (maximum, mean, median,
    minimum; the whole axis), ``reflect_type`` (reflect, symmetric; ``'even'``). A keyword the mode does not take
    raises ``ValueError``, as jax.numpy's; a callable ``mode`` receives them all (``kwargs`` too). As TF's
    ``tf.pad``: a scalar with paddings of shape ``(0, 2)`` is returned as it is, ``mode`` is case-insensitive and an
    unknown one raises ``ValueError``."""
    given = {k: v for k, v in (("constant_values", constant_values), ("end_values", end_values),
                               ("stat_length", stat_length), ("reflect_type", reflect_type)) if v is not None}
    given.update(kwargs)
    if isinstance(mode, str):  # (or a callable, as jax.numpy's)
        mode = mode.lower()  # TF's modes are upper case ("REFLECT")
        if mode not in _PAD_MODES:
            raise _UnknownPadMode(f"tj op 'pad': Unimplemented padding mode {mode!r}: the mode is not one of "
                                  f"{', '.join(map(repr, _PAD_MODES))}")
        unknown = set(given) - set(_PAD_OPTIONS.get(mode, ()))
        if unknown:
            raise ValueError(f"tj op 'pad': unsupported keyword arguments for mode {mode!r}: {sorted(unknown)} (as "
                             f"jax.numpy.pad's; mode {mode!r} takes {list(_PAD_OPTIONS.get(mode, ())) or 'none'})")
    if isinstance(pad_width, int):
        pad_width = ((pad_width, pad_width),) * ndim(array)
    pad_width = freeze(pad_width)
    if type(pad_width) is tuple and pad_width == () and ndim(array) == 0:  # (0, 2) paddings (frozen to ()): jnp.pad takes no such shape
        pad_width = 0
    if mode == "constant":
        given["constant_values"] = given.get("constant_values", 0)
    return _pad(array, pad_width=pad_width, mode=mode, **{k: freeze(v) for k, v in given.items()})


def _integers(op: str, name: str, v, nonnegative: bool = False):
    """A static integer parameter (an int or a tuple of ints, frozen), checked: a float raises ``TypeError``
    (jax.numpy would truncate ``roll(x, 2.5)`` to a shift of 2), a negative size ``ValueError`` (as TF's
    InvalidArgumentError and NumPy; XLA fails to compile it, with no word of the op)."""
    v = freeze(v)
    for x in (v if isinstance(v, tuple) else (v,)):
        if isinstance(x, Tensor):  # a traced Tensor (inside tj.function): the op's error names it
            continue
        as_index(x, lambda: f"tj op '{op}': {name} must be an integer or a sequence of integers, got {v!r}")
        if nonnegative and x < 0:
            raise ValueError(f"tj op '{op}': {name} must not be negative, got {v!r}")
    return v


def tile(A, reps):
    """``jax.numpy.tile``; negative or float ``reps`` raise (ValueError, TypeError), as TF and NumPy."""
    return _tile(A, reps=_integers("tile", "reps", reps if not isinstance(reps, int) else (reps,), True))


def repeat(a, repeats, axis=None, *, total_repeat_length=None, out_sharding=None):
    """``jax.numpy.repeat``. ``total_repeat_length``: the result's length along ``axis`` (longer or shorter than the
    repeats ask for: filled or cut as jax.numpy's), with which ``repeats`` may be an array whose values are not known
    now (traced); ``out_sharding``: the result's sharding, given to jax.numpy's."""
    if total_repeat_length is None and out_sharding is None:
        return _repeat(a, repeats=_integers("repeat", "repeats", repeats, True), axis=axis)
    options = {}
    if total_repeat_length is not None:
        options["total_repeat_length"] = _integers("repeat", "total_repeat_length", total_repeat_length, True)
    if out_sharding is not None:
        options["out_sharding"] = _placement("repeat", None, out_sharding)
    if total_repeat_length is not None and isinstance(repeats, (Tensor, Variable, jax.Array)) and \
            (ndim(repeats) or _is_traced(repeats)):
        return _repeat(a, repeats, axis=axis, **options)  # (an input: its values may be traced)
    return _repeat(a, repeats=_integers("repeat", "repeats", repeats, True), axis=axis, **options)


def flip(m, axis=None):
    """``jax.numpy.flip``; an axis out of range raises ``AxisError`` and a repeated axis ``ValueError`` (as NumPy
    and TF's reverse; JAX raises a TypeError for the repeat)."""
    axis = freeze(axis)
    if axis is not None:
        nd = ndim(m)
        axes = [_check_axis("flip", a, nd) for a in _axes(axis)]
        if len(set(axes)) != len(axes):
            raise ValueError(f"tj op 'flip': axis {axis} names the same axis more than once (tensor of rank {nd})")
    return _flip(m, axis=axis)


def sort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """``jax.numpy.sort``; ``descending=True`` keeps ties in their original order, as TF's
    ``sort(direction="DESCENDING")`` (and its gradient); ``stable=False`` lets XLA sort ties in any order, as
    jax.numpy's; an axis out of range raises ``AxisError``. ``kind`` and ``order`` must be None (``TypeError``),
    as jax.numpy's."""
    if kind is not None or order is not None:
        _refuse_sort_options("sort", kind, order)
    if axis is not None:
        axis = _check_axis("sort", axis, ndim(a))
    if not stable:  # (a static parameter only when asked for: the default call keeps its kernels)
        return _sort(a, axis=axis, descending=bool(descending), stable=False)
    return _sort(a, axis=axis, descending=bool(descending))


def where(condition, x=None, y=None, *, size=None, fill_value=None):
    """``jax.numpy.where``: the three-argument form selects (differentiable in ``x`` and ``y``); the one-argument
    form is ``nonzero(condition, size=size, fill_value=fill_value)``, the indices of the true elements (not
    differentiable). ``size``/``fill_value`` belong to the one-argument form only (``ValueError``, as jax.numpy's)."""
    if x is None or y is None or size is not None or fill_value is not None:  # (one test on the per-op path)
        return _where_other_forms(condition, x, y, size, fill_value)
    return _where(condition, x, y)


def _where_other_forms(condition, x, y, size, fill_value):
    """``where`` but for its three-argument form without options: the one-argument form, and the errors."""
    if x is None and y is None:
        c = convert_to_tensor(condition)
        if c.ndim == 0:  # (as NumPy: nonzero of a scalar is refused; jax's error named no op)
            raise ValueError("tj op 'where': the one-argument form (the indices of the true elements) needs an array "
                             f"of rank >= 1, got a scalar of shape {c.shape}")
        if size is not None:  # (a fixed number of indices, padded with fill_value: traceable)
            return nonzero(c, size=size, fill_value=fill_value)
        return tuple(Tensor(a) for a in jnp.where(c.value))
    if size is not None or fill_value is not None:  # as jax.numpy's
        raise ValueError("tj op 'where': size and fill_value belong to the one-argument form (the indices of the "
                         f"true elements), not to the selection where(condition, x, y); got size={size!r}, "
                         f"fill_value={fill_value!r}")
    # as TF and jax.numpy: ValueError, not a TypeError about a None argument
    raise ValueError("tj op 'where': x and y must both be given (a selection) or both be None (the indices of "
                     f"the true elements); got {'x' if y is None else 'y'} only")


def clip(a, a_min=None, a_max=None, **kw):
    """``jax.numpy.clip``; at the bounds the gradient passes through (TF's convention)."""
    a_min = kw.pop("min", a_min)
    a_max = kw.pop("max", a_max)
    if a_min is None or a_max is None:  # (the open side: the extreme of the dtype a and the other bound give)
        given = [v for v in (a_min, a_max) if v is not None]
        dt = jnp.result_type(*(_weak_dtype(v) for v in [a] + given))
        # (of that dtype, not a Python int: uint32's top does not fit the int32 a Python int becomes)
        if dt == np.bool_:  # (False and True: an infinite bound would make bools float, where jnp keeps them)
            low, high = np.False_, np.True_
        elif not jnp.issubdtype(dt, jnp.integer):
            low, high = -jnp.inf, jnp.inf
        else:
            low, high = np.array(jnp.iinfo(dt).min, dt)[()], np.array(jnp.iinfo(dt).max, dt)[()]
        a_min, a_max = low if a_min is None else a_min, high if a_max is None else a_max
    return _clip(a, a_min, a_max)


def astype(x, dtype, *, copy=False, device=None):
    """``jax.numpy.astype``: cast; float -> float casts pass gradients (cast back), casts to int/bool are not
    differentiable. ``dtype=None`` is the default float dtype, as jax.numpy's. ``copy``: the result is a new Tensor
    either way (Tensors are immutable). ``device`` places the result, as jax.numpy's."""
    dtype = as_dtype("astype", jnp.result_type(float) if dtype is None else dtype)
    if pending_source(x) is None and jnp.issubdtype(_dtype_of(x), jnp.complexfloating) and \
            not jnp.issubdtype(dtype, jnp.complexfloating) and np.dtype(dtype) != np.bool_:  # (bool: x != 0)
        # (as jax.Array.astype, on every call: the kernel is traced once per signature. Not of a pending value
        # of a replayed step, whose dtype would run it: an update fused into the step stays fused)
        warnings.warn(f"Casting from complex to real dtypes ({_dtype_of(x)} to {np.dtype(dtype)}, tj.numpy.astype) "
                      "drops the imaginary part and will soon raise a ValueError, as in jax.numpy: take "
                      "tj.numpy.real or tj.numpy.imag first.", DeprecationWarning, stacklevel=2)
    out = _astype(x, dtype=dtype)
    if device is None:
        return out
    return _placed(out, lambda v: jnp.astype(v, v.dtype, device=device))



# -- indexing -----------------------------------------------------------------------------------------
# Out-of-bounds and float indices raise, as TF and NumPy (JAX clamps a gather index, fills a take with NaN,
# and its gradient then lands on the clamped element). Static parts (ints, slices) are checked against the
# shape at the call; index arrays when their values are concrete. Under tracing (tj.function, jax.jit)
# an index array's values are unknown and JAX's behaviour applies: getitem clamps, take fills.

def _axes(axis) -> tuple:
    """An axis argument (an int, a scalar Tensor, or a sequence or 1-d Tensor of them) as a tuple."""
    axis = freeze(axis)
    return axis if isinstance(axis, tuple) else (axis,)


def _concrete(a):
    """The index array's value if it is known now (numpy or jax array), else None (a traced value). A jax array
    here may be a Tensor a trace closes over: jax.numpy on it inside the trace is staged (a tracer, not a number),
    so checks of its values read ``_concrete_on_host`` (or run under ``jax.ensure_compile_time_eval``)."""
    if isinstance(a, Variable):
        a = a.read_value()
    if isinstance(a, Tensor):
        a = a.value
    if isinstance(a, jax.core.Tracer):
        return None
    if isinstance(a, (list, tuple)) or np.isscalar(a):
        return np.asarray(a)
    return a


def _concrete_on_host(a):
    """``_concrete(a)`` as a NumPy array, or None (a traced value): what a check of the values reads."""
    values = _concrete(a)
    return None if values is None else np.asarray(values)


def _index_dtype(a):
    if isinstance(a, (Tensor, Variable, np.ndarray, np.generic, jax.Array)) or isinstance(a, jax.core.Tracer):
        return a.dtype
    try:
        return np.asarray(a).dtype
    except ValueError:  # (a ragged list: not an index array; the op's conversion says so)
        return np.dtype(object)


def _check_index_dtype(op: str, a) -> None:
    dt = _index_dtype(a)
    masks = op == "getitem"  # a boolean array is a mask only in x[...]
    if not (jnp.issubdtype(dt, jnp.integer) or (masks and dt == jnp.bool_)):
        kinds = "integers (or a boolean mask)" if masks else "integers"
        raise TypeError(f"tj op '{op}': indices must be {kinds}, got an index array of dtype {dt}. "
                        "Cast it with .astype(jnp.int32) (floats are never truncated silently, as TF and NumPy).")


class IndexMismatchError(IndexError, ValueError):
    """An index that does not fit the tensor it indexes (out of bounds, more indices than dimensions, a boolean mask
    of another size, two ellipses): an IndexError, as NumPy's and jax.numpy's, and a ValueError, as TF's inside a
    tf.function (where its shape checks raise ValueError; eagerly TF raises its InvalidArgumentError)."""


@jax.jit
def _min_max(a):
    return jnp.stack([jnp.min(a), jnp.max(a)])  # one small transfer instead of the whole index array


def _check_index_array(op: str, a, axis, n: int, shape: tuple) -> None:
    """Integer dtype always; values in [-n, n) when they are concrete, and, traced, none at all into an empty axis
    (whatever their values: JAX's ``take`` raises its AxisError there, which the eager path's check preempts)."""
    _check_index_dtype(op, a)
    v = _concrete(a)
    if v is None:
        count = size(a) if n == 0 else 0
        if count and _index_dtype(a) != np.bool_:
            raise IndexMismatchError(f"tj op '{op}': any index is out of bounds for axis {axis} with size 0 (tensor "
                                     f"of shape {shape}; {count} given)")
        return
    if v.size == 0 or v.dtype == np.bool_:
        return
    if isinstance(v, (np.ndarray, np.generic)):
        lo, hi = int(v.min()), int(v.max())
    else:
        with jax.ensure_compile_time_eval():  # a concrete array captured by a trace (tj.function, jax.jit)
            lo, hi = (int(b) for b in np.asarray(_min_max(v)))
    if lo < -n or hi >= n:
        bad = hi if hi >= n else lo
        raise IndexMismatchError(f"tj op '{op}': index {bad} is out of bounds for axis {axis} with size {n} (tensor "
                                 f"of shape {shape}); valid indices are {-n} to {n - 1}")


class TracedSliceBoundError(TracedValueError, IndexError):
    """A traced slice bound: an IndexError too, as jax.numpy's ("Slice entries must be static integers")."""


def _static_index(part, what: str, op: str = "getitem") -> int:
    """A Python int from a static index part (int, numpy or 0-d integer Tensor); floats raise TypeError."""
    if isinstance(part, (bool, np.bool_)):  # (a slice bound: an index is split off by _split_index)
        raise TypeError(f"tj op '{op}': a boolean as {what} ({part!r}) is not an integer")
    if isinstance(part, (Tensor, Variable)) and not jnp.issubdtype(part.dtype, jnp.integer):
        raise TypeError(f"tj op '{op}': {what} must be an integer, got a tensor of dtype {part.dtype}")
    try:
        return operator.index(part)
    except TracedValueError:
        raise (TracedSliceBoundError if what == "a slice bound" else TracedValueError)(
            f"tj op '{op}': {what} is a {type(part).__name__} whose value is traced (inside tj.function or a jax "
            "transform), but it must be a Python int known when tracing: it fixes the result's shape. Pass a Python "
            "int, or index with an integer array (x[tj.numpy.arange(n)]) or a scalar Tensor (x[i]), which may be "
            "traced.") from None
    except TypeError:
        allowed = ("an integer or None" if what == "a slice bound" else
                   "an integer, a slice, None, Ellipsis or an integer/boolean array")
        raise TypeError(f"tj op '{op}': {what} must be {allowed}; got {type(part).__name__} {part!r}. Convert "
                        "it with int(...) (floats are never truncated, as TF and NumPy).") from None


def _check_index(static, arrays, shape, op: str = "getitem", bounds: bool = True) -> None:
    """Bounds of the static ints and the concrete index arrays, for the axis each one indexes. ``bounds=False``
    (the indexed updates, whose ``mode`` says what an index out of bounds does): only the number of indices,
    the boolean masks' sizes and the index arrays' dtypes."""
    ndim = len(shape)
    consumed = builtins.sum(1 for s in static if s[0] in ("a", "s", "i"))
    if consumed > ndim:
        raise IndexMismatchError(f"tj op '{op}': too many indices for a tensor of shape {shape}: {consumed} were "
                                 f"given for {ndim} dimension(s)")
    axis = 0
    it = iter(arrays)
    for s in static:
        kind = s[0]
        if kind == "e":
            axis += ndim - consumed
        elif kind in ("n", "b"):
            continue
        elif kind == "i":
            n = shape[axis]
            if bounds and not -n <= s[1] < n:
                raise IndexMismatchError(f"tj op '{op}': index {s[1]} is out of bounds for axis {axis} with size "
                                         f"{n} (tensor of shape {shape}); valid indices are {-n} to {n - 1}")
            axis += 1
        elif kind == "a":
            if len(s) > 1 and s[1] != shape[axis]:  # a boolean mask must match the axes it indexes (NumPy, TF)
                raise IndexMismatchError(f"tj op '{op}': a boolean mask of size {s[1]} along axis {axis} does not "
                                         f"match the tensor's size {shape[axis]} there (tensor of shape {shape})")
            if bounds:
                _check_index_array(op, next(it), axis, shape[axis], shape)
            else:
                _check_index_dtype(op, next(it))
            axis += 1
        else:
            axis += 1


def _split_index(idx, op: str = "getitem"):
    """Static index structure plus the array leaves of an index (advanced indexing). ``op``: the op named in
    the errors."""
    if not isinstance(idx, tuple):
        idx = (idx,)
    arrays = []
    static = []
    for part in idx:
        if isinstance(part, list):
            part = _index_list(part, op)
        mask = np.asarray(part) if isinstance(part, (bool, np.bool_)) else _bool_mask(part, op)
        if mask is not None and mask.ndim == 0:
            # a boolean scalar (NumPy): a new axis of length 1 (True) or 0 (False), consuming none
            static.append(("b", bool(mask)))
        elif mask is not None:
            # A boolean mask of k dims selects like the k integer arrays of its nonzero positions (as numpy).
            for ax, n in zip(np.nonzero(mask), mask.shape):
                arrays.append(ax.astype(np.int32))
                # n: the mask's size along this axis, checked against the tensor's (not an empty mask's, which
                # selects nothing whatever its shape, as NumPy's and jax.numpy's)
                static.append(("a", n) if mask.size else ("a",))
        elif isinstance(part, (Tensor, Variable)):
            arrays.append(part)
            static.append(("a",))
        elif isinstance(part, (np.ndarray, jax.Array)):
            arrays.append(part)
            static.append(("a",))
        elif isinstance(part, slice):
            step = _static_int(part.step, op)
            if step == 0:  # (as NumPy and TF, ValueError; jax's own error showed this function's index encoding)
                raise ValueError(f"tj op '{op}': slice step cannot be zero, got {part!r}")
            static.append(("s", _static_int(part.start, op), _static_int(part.stop, op), step))
        elif part is None:
            static.append(("n",))
        elif part is Ellipsis:
            if ("e",) in static:  # (NumPy's IndexError; TF's ValueError "Multiple ellipses in slice spec not allowed")
                raise IndexMismatchError(f"tj op '{op}': an index can only have a single ellipsis ('...'), got "
                                         f"{idx!r}")
            static.append(("e",))
        else:
            static.append(("i", _static_index(part, "an index", op)))
    return tuple(static), arrays


def _index_list(part, op: str = "getitem"):
    """A list (or tuple) of indices as an array; an empty one selects nothing (NumPy's integer array, not
    float64), one holding Tensors is packed (they may be traced, inside tj.function). Anything else is kept."""
    if not isinstance(part, (list, tuple)):
        return part
    try:
        a = np.asarray(part)  # (on the host: checking its bounds costs no device round trip)
    except TypeError:  # it holds traced Tensors
        return convert_to_tensor(part)
    except ValueError:  # (NumPy's "inhomogeneous shape": as TF, a ValueError, naming the op and the index)
        raise ValueError(f"tj op '{op}': a nested list of indices must be rectangular, got {part!r}") from None
    return a.astype(np.int32) if a.size == 0 and a.dtype == np.float64 else a


def _bool_mask(part, op: str = "getitem"):
    """The numpy value of a boolean-mask index, or None if ``part`` is not one."""
    if isinstance(part, Variable):
        part = part.read_value()
    if isinstance(part, Tensor):
        if part.dtype != jnp.bool_:
            return None
        if isinstance(part.value, jax.core.Tracer):
            raise IndexError(f"{op}: a boolean mask that is being traced (inside tj.function) has a data-dependent "
                             "result shape; use tj.numpy.where(mask, x, 0) or index with a concrete mask.")
        return np.asarray(part.value)
    if isinstance(part, (np.ndarray, jax.Array)):
        arr = np.asarray(part) if not isinstance(part, jax.core.Tracer) else None
        if arr is not None and arr.dtype == bool:
            return arr
    return None


def _static_int(v, op: str = "getitem"):
    """A slice bound: None or an integer (a float raises TypeError, as NumPy)."""
    if v is None:
        return None
    return _static_index(v, "a slice bound", op)


def _build_index(static, arrays):
    it = iter(arrays)
    out = []
    for s in static:
        kind = s[0]
        if kind == "a":
            out.append(next(it))
        elif kind == "s":
            out.append(slice(s[1], s[2], s[3]))
        elif kind == "n":
            out.append(None)
        elif kind == "e":
            out.append(Ellipsis)
        else:
            out.append(s[1])
    return tuple(out)


def _getitem_fn(x, *arrays, index):
    return x[_build_index(index, arrays)]


def _getitem_fwd(x, *arrays, index):
    return x[_build_index(index, arrays)], (_token(x), arrays)


def _getitem_bwd(res, g, index):
    tok, arrays = res
    z = jnp.zeros(tok.shape[1:], tok.dtype)
    return (z.at[_build_index(index, arrays)].add(g.astype(tok.dtype)),) + (None,) * len(arrays)


_getitem = OpDef("getitem", _getitem_fn, fwd=_getitem_fwd, bwd=_getitem_bwd,
                 jvp=lambda p, t, out, index: t[0][_build_index(index, p[1:])],
                 samples=_samples(((_r(4, 5),), {"index": (("i", 1),)}),
                                  ((_r(4, 5),), {"index": (("s", 1, None, 2), ("s", None, 3, None))}),
                                  ((_r(4, 5), np.array([0, 3, 0])), {"index": (("a",),)}),
                                  ((_r(4, 5),), {"index": (("e",), ("n",), ("i", -1))})))


def getitem(x, idx):
    """``x[idx]``: basic and advanced (integer/boolean array) indexing.

    As TF and NumPy, an index out of bounds raises ``IndexError`` (naming the index, the axis and the
    shape) and a float index ``TypeError``; negative indices count from the end. Integer index arrays are
    checked when their values are concrete; inside ``tj.function``/``jax.jit`` a traced index array is not
    known until it runs, and JAX's gather then clamps out-of-bounds indices (TF's XLA gather does the
    same)."""
    static, arrays = _split_index(idx)
    _check_index(static, arrays, shape(x))
    return _getitem(x, *arrays, index=static)


# -- indexed updates: x.at[index].set(values) and the others ------------------------------------------------
# jax.Array's ``.at`` (``at(x)[index]``): a new array with the entries ``x[index]`` set, added to, multiplied...
# from ``values`` (broadcast to the shape of ``x[index]``), or read (``get``), with jax's keywords and semantics.
# The index takes what getitem takes and is split the same way (its arrays, Tensors among them, are op
# arguments, not differentiated); a float index raises TypeError and a wrong boolean mask IndexError, as getitem,
# but bounds are jax's ``mode``'s (the default drops an update out of bounds; ``get``: _IndexUpdateRef.get), not
# checked. One op per method (``at_set``, ``at_add``...): the derivatives are jax's, derived from jax's own method
# (TF's complex convention applied by core, as for every derived kernel), except where jax has none: multiply,
# divide and power with an index array that may repeat an entry (``unique_indices=False``), where jax's
# scatter_mul has no derivative in the values; there an entry's derivative in one of the values it receives is
# the product of the others (``_grouped_product``), to any order. ``apply(func)`` has no derivative (neither has
# jax's scatter_apply): asking for one raises LookupError naming ``at_apply``.

_at_rng = np.random.default_rng(1)  # (the samples' own draws: those of the ops declared after stay as they were)


def _at_r(*shape, lo=-1.5, hi=1.5):
    return np.asarray(_at_rng.uniform(lo, hi, size=shape), np.float32)


def _scatter_positions(shape, idx, options):
    """The flat position in an array of ``shape`` of each element of ``x[idx]`` (a 1-d array, and ``x[idx]``'s
    shape), where a scatter with ``options`` writes it; a distinct negative number for each it drops."""
    size = int(np.prod(shape, dtype=np.int64))
    grid = jnp.arange(size, dtype=jnp.int32 if size < 2 ** 31 else jnp.int64).reshape(shape)
    mode = jax.lax.GatherScatterMode.from_any(options.get("mode"))
    wrap = options.get("wrap_negative_indices", True)
    if mode == jax.lax.GatherScatterMode.FILL_OR_DROP:  # (dropped by the scatter: filled by the gather)
        pos = grid.at[idx].get(mode="fill", fill_value=-1, wrap_negative_indices=wrap)
    else:  # clipped (or promised in bounds) as the scatter's
        pos = grid.at[idx].get(mode=mode, wrap_negative_indices=wrap)
    flat = pos.ravel()
    return jnp.where(flat < 0, -1 - jnp.arange(flat.size, dtype=flat.dtype), flat), pos.shape


def _others_product(w, pos):
    """``w`` (1-d): for each k, the product of the ``w[j]``, ``j != k``, with ``pos[j] == pos[k]``, without a
    division (zeros are welcome). Sorts, gathers and two segmented scans: JAX differentiates it to any order."""
    if w.shape[0] < 2:
        return jnp.ones_like(w)
    order = jnp.argsort(pos, stable=True)
    p, ws = pos[order], w[order]
    new = p[1:] != p[:-1]
    yes = jnp.ones((1,), bool)
    first, last = jnp.concatenate([yes, new]), jnp.concatenate([new, yes])  # where each group starts, ends

    def product(a, b):  # a product restarted at each group's first element (in the scan's direction)
        return a[0] | b[0], jnp.where(b[0], b[1], a[1] * b[1])
    _, upto = jax.lax.associative_scan(product, (first, ws))  # w's of the group up to k, k included
    _, onwards = jax.lax.associative_scan(product, (last, ws), reverse=True)  # from k on, k included
    one = jnp.ones((1,), w.dtype)
    before = jnp.where(first, 1, jnp.concatenate([one, upto[:-1]]))
    after = jnp.where(last, 1, jnp.concatenate([onwards[1:], one]))
    return (before * after)[jnp.argsort(order)]


def _grouped_product(shape, dtype, values, arrays, index, options):
    """``ones(shape, dtype).at[index].multiply(values)``, jax's, whose entries are the products of the values
    each one receives; differentiable in ``values`` also where an entry receives several (jax's scatter_mul is
    only with ``unique_indices``): the derivative in each value is the product of the others."""
    @jax.custom_jvp
    def grouped(v, *arrs):
        return jnp.ones(shape, dtype).at[_build_index(index, arrs)].multiply(v, **options)

    @grouped.defjvp
    def grouped_jvp(primals, tangents):
        v, *arrs = primals
        idx = _build_index(index, arrs)
        ct = jnp.result_type(dtype, v)  # (jax's scatter computes in the promoted dtype)
        pos, out_shape = _scatter_positions(shape, idx, options)
        others = _others_product(jnp.broadcast_to(v.astype(ct), out_shape).ravel(), pos).reshape(out_shape)
        dv = jnp.broadcast_to(tangents[0].astype(ct), out_shape)
        dp = jnp.zeros(shape, ct).at[idx].add(others * dv, **options).astype(dtype)
        return grouped(v, *arrs), dp
    return grouped(values, *arrays)


def _repeats_possible(arrays, options) -> bool:
    """Whether an index may name an entry more than once (index arrays without ``unique_indices``)."""
    return builtins.bool(arrays) and not options.get("unique_indices", False)


def _at_multiply_fn(x, values, *arrays, index, **options):
    if not _repeats_possible(arrays, options):
        return x.at[_build_index(index, arrays)].multiply(values, **options)  # (jax's derivative)

    @jax.custom_jvp
    def multiply(x, v, *arrs):
        return x.at[_build_index(index, arrs)].multiply(v, **options)

    @multiply.defjvp
    def multiply_jvp(primals, tangents):  # x * (the product each entry receives)
        x, v, *arrs = primals
        m, dm = jax.jvp(lambda v: _grouped_product(x.shape, x.dtype, v, arrs, index, options), (v,), (tangents[1],))
        return multiply(x, v, *arrs), (tangents[0] * m + x * dm).astype(x.dtype)
    return multiply(x, values, *arrays)


def _at_quotient_fn(name: str, f):
    """``divide``/``power``: as jax's, ``f(x, ones.at[index].multiply(values))``."""
    def fn(x, values, *arrays, index, **options):
        if not _repeats_possible(arrays, options):
            return getattr(x.at[_build_index(index, arrays)], name)(values, **options)
        return f(x, _grouped_product(x.shape, x.dtype, values, arrays, index, options))
    return fn


def _at_update_fn(name: str):
    def fn(x, values, *arrays, index, **options):
        return getattr(x.at[_build_index(index, arrays)], name)(values, **options)
    return fn


def _at_get_fn(x, *arrays, index, **options):
    return x.at[_build_index(index, arrays)].get(**options)


def _at_apply_fn(x, *arrays, index, func, **options):
    def array_func(v):  # (func may be tj code, returning a Tensor: jax's scatter_apply wants its array)
        out = func(v)
        return out.value if isinstance(out, (Tensor, Variable)) else out

    @jax.custom_jvp
    def apply(x, *arrs):
        return x.at[_build_index(index, arrs)].apply(array_func, **options)

    @apply.defjvp
    def apply_jvp(primals, tangents):
        # (core takes "not differentiable" for an op JAX cannot differentiate: it fails only if a gradient is asked)
        raise NotImplementedError(
            "x.at[index].apply(func) is not differentiable (jax's scatter_apply has no derivative either). "
            "For unique indices, x.at[index].set(func(x[index])) is the same and has one.")
    return apply(x, *arrays)


_IDX = {"index": (("a",),)}  # x[array]
_AT = {
    "set": OpDef("at_set", _at_update_fn("set"), samples=_samples(
        ((_at_r(4, 5), _at_r(2, 5), np.array([3, 0])), _IDX),
        ((_at_r(4, 5), _at_r(2)), {"index": (("i", 1), ("s", 1, 5, 2))}),
        ((_at_r(3, 4), _at_r(3), np.array([0, 2, 5])), {"index": (("e",), ("a",))}),  # 5: dropped
        ((_at_r(3, 4), _at_r(2, 2), np.array([2, 0])), {"index": (("a",), ("s", 1, 3, None)), "mode": "clip"}))),
    "add": OpDef("at_add", _at_update_fn("add"), samples=_samples(
        ((_at_r(4, 5), _at_r(3, 5), np.array([1, 3, 1])), _IDX),
        ((_at_r(4, 5), _at_r(5)), {"index": (("s", None, None, -1),)}),
        ((_at_r(3, 4), _at_r(2, 4), np.array([-1, 7])), {**_IDX, "mode": "clip"}))),
    "subtract": OpDef("at_subtract", _at_update_fn("subtract"), samples=_samples(
        ((_at_r(4, 5), _at_r(3, 5), np.array([1, 3, 1])), _IDX),
        ((_at_r(4, 5), _at_r(1).reshape(())), {"index": (("i", -1), ("n",), ("s", 0, 4, None))}))),
    "multiply": OpDef("at_multiply", _at_multiply_fn, samples=_samples(
        ((_at_r(4, 5), _at_r(3, 5), np.array([1, 3, 1])), _IDX),  # entry 1 twice: _grouped_product
        ((_at_r(4, 5), _at_r(3, 5), np.array([2, 0, 3])), {**_IDX, "unique_indices": True}),
        ((_at_r(4, 5), _at_r(2)), {"index": (("s", 1, 3, None), ("i", 4))}),
        ((_at_r(3, 4), _at_r(4), np.array([0, 0, 2, 9]), np.array([1, 1, 1, 0])),  # 9: dropped
         {"index": (("a",), ("a",), ("e",))}))),
    "divide": OpDef("at_divide", _at_quotient_fn("divide", jnp.divide), samples=_samples(
        ((_at_r(4, 5), _at_r(3, 5, lo=0.5, hi=2.0), np.array([1, 3, 1])), _IDX),
        ((_at_r(4, 5), _at_r(5, lo=0.5, hi=2.0)), {"index": (("i", 2),)}))),
    "power": OpDef("at_power", _at_quotient_fn("power", jnp.power), samples=_samples(
        ((_at_r(4, 5, lo=0.5, hi=2.0), _at_r(3, 5, lo=0.5, hi=1.5), np.array([1, 3, 1])), _IDX),
        ((_at_r(4, 5, lo=0.5, hi=2.0), _at_r(5, lo=-1.0, hi=2.0)), {"index": (("i", 2),)}))),
    "min": OpDef("at_min", _at_update_fn("min"), samples=_samples(
        ((_at_r(4, 5), _at_r(3, 5), np.array([1, 3, 1])), _IDX),
        ((_at_r(4, 5), _at_r(5)), {"index": (("s", 1, 3, None),)}))),
    "max": OpDef("at_max", _at_update_fn("max"), samples=_samples(
        ((_at_r(4, 5), _at_r(3, 5), np.array([1, 3, 0])), _IDX),
        ((_at_r(4, 5), _at_r(5)), {"index": (("s", 1, 3, None),)}))),
}
_at_get = OpDef("at_get", _at_get_fn, samples=_samples(
    ((_at_r(4, 5), np.array([1, 3, 1])), _IDX),
    ((_at_r(4, 5), np.array([0, 7])), {**_IDX, "mode": "fill", "fill_value": 0.5}),
    ((_at_r(4, 5),), {"index": (("s", None, None, 2), ("i", -2))}),
    # (out of bounds with the default mode, jax's promise_in_bounds, the value is clamped but jax's gradient
    # drops it: no derivative to test there)
    ((_at_r(4, 5), np.array([-1, 6, 2])), {**_IDX, "mode": "clip"})))
_at_apply = OpDef("at_apply", _at_apply_fn, register=False)  # (no derivative: nothing for the registry to test)


def _scatter_mode(op: str, mode):
    """``mode`` as given (a string or ``jax.lax.GatherScatterMode``), checked now: an unknown one raises
    ``ValueError`` naming the op (jax's names none)."""
    try:
        jax.lax.GatherScatterMode.from_any(mode)
    except (ValueError, KeyError, AttributeError, TypeError):
        raise ValueError(f"tj op '{op}': mode must be one of 'clip', 'fill' (or 'drop'), 'promise_in_bounds' or a "
                         f"jax.lax.GatherScatterMode (None: jax's default), got {mode!r}") from None
    return mode


def _at_options(op: str, indices_are_sorted, unique_indices, mode, wrap_negative_indices, out_sharding=None,
                **more):
    """The keywords of jax's ``.at[...]`` methods as the op's static parameters, only those not at their default
    (the default call keeps its kernels)."""
    options = {k: freeze(v) for k, v in more.items() if v is not None}
    if indices_are_sorted:
        options["indices_are_sorted"] = True
    if unique_indices:
        options["unique_indices"] = True
    if mode is not None:
        options["mode"] = _scatter_mode(op, mode)
    if not wrap_negative_indices:
        options["wrap_negative_indices"] = False
    if out_sharding is not None:
        options["out_sharding"] = _placement(op, None, out_sharding)
    return options


def _update_method(name: str):
    op = _AT[name]

    def method(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None, out_sharding=None,
               wrap_negative_indices=True):
        options = _at_options(op.name, indices_are_sorted, unique_indices, mode, wrap_negative_indices, out_sharding)
        static, arrays = self._split(op.name)
        if type(values) is int:  # (jax's: a Python int the target's integer dtype holds is of that dtype: 2**32-1
            dtype = _dtype_of(self.array)  # into uint32, not an int32 overflow)
            if jnp.issubdtype(dtype, jnp.integer) and np.iinfo(dtype).min <= values <= np.iinfo(dtype).max:
                values = np.asarray(values, dtype)
        return op(self.array, values, *arrays, index=static, **options)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = (f"``x.at[index].{name}(values)``, as jax.Array's: a new Tensor (tj op ``{op.name}``), "
                      "recorded with its gradient in ``x`` and in ``values``.")
    return method


class _IndexUpdateRef:
    """``x.at[index]``: its methods return a new Tensor from ``x`` (a Variable is read, not assigned), as
    jax.Array's. ``set``, ``add``, ``subtract``, ``multiply`` (``mul``), ``divide``, ``power``, ``min``, ``max``
    take ``values``; ``get`` reads ``x[index]``; ``apply(func)`` applies a jax function to the entries named
    (once per time it is named), without a derivative. The keywords are jax's: ``mode`` (None: jax's default,
    an update out of bounds dropped, see ``get`` for a read; ``'clip'``, ``'fill'``/``'drop'``,
    ``'promise_in_bounds'``), ``indices_are_sorted``, ``unique_indices`` (promises, as jax's), ``fill_value``
    (``get`` with ``mode='fill'``), ``out_sharding``, ``wrap_negative_indices``. Gradients: in ``x`` and in
    ``values``, jax's (``set`` with a repeated index: to the value written; ``min``/``max``: ties share equally),
    also for multiply, divide and power with a repeated index, where jax has none in ``values``."""

    __slots__ = ("array", "index")

    def __init__(self, array, index) -> None:
        self.array, self.index = array, index

    def __repr__(self) -> str:
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def _split(self, op: str):
        static, arrays = _split_index(self.index, op)
        _check_index(static, arrays, shape(self.array), op, bounds=False)
        return static, arrays

    set = _update_method("set")
    add = _update_method("add")
    subtract = _update_method("subtract")
    multiply = mul = _update_method("multiply")
    divide = _update_method("divide")
    power = _update_method("power")
    min = _update_method("min")
    max = _update_method("max")

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None, fill_value=None, out_sharding=None,
            wrap_negative_indices=True):
        """``x.at[index].get()``: ``x[index]`` with jax's gather options, recorded with its gradient (tj op
        ``at_get``). An index out of bounds is not checked (``x[index]`` raises IndexError): the default ``mode``
        clamps a static int; for an index array it is jax's ``promise_in_bounds``, a promise broken by an index
        out of bounds (as jax's: the value clamped, its gradient dropped, its tangent the clamped entry's), so ask
        for ``mode='clip'`` or ``mode='fill'`` (``fill_value``: NaN for floats by default) where one may be."""
        options = _at_options("at_get", indices_are_sorted, unique_indices, mode, wrap_negative_indices, out_sharding,
                              fill_value=fill_value)
        static, arrays = self._split("at_get")
        return _at_get(self.array, *arrays, index=static, **options)

    def apply(self, func, *, indices_are_sorted=False, unique_indices=False, mode=None, wrap_negative_indices=True):
        """``x.at[index].apply(func)``, as jax.Array's: ``func`` (an elementwise function of jax arrays, as jax's
        ``jnp.sin``, or tj code, as ``tj.numpy.sin``) applied to the entries named, once per time the index names
        one. Not differentiable (jax's scatter_apply is not): a gradient through it raises LookupError. Each distinct ``func`` object compiles its
        own kernel: pass a function defined once rather than a new lambda per call."""
        if not callable(func):
            raise TypeError(f"tj op 'at_apply': func must be a callable (a function of jax arrays), got "
                            f"{type(func).__name__} {func!r}")
        options = _at_options("at_apply", indices_are_sorted, unique_indices, mode, wrap_negative_indices)
        static, arrays = self._split("at_apply")
        return _at_apply(self.array, *arrays, index=static, func=func, **options)


class _IndexUpdateHelper:
    """``x.at``: ``x.at[index]`` is an ``_IndexUpdateRef``, whose methods make the updated Tensor."""

    __slots__ = ("array",)

    def __init__(self, array) -> None:
        self.array = array

    def __getitem__(self, index) -> _IndexUpdateRef:
        return _IndexUpdateRef(self.array, index)

    def __repr__(self) -> str:
        return f"_IndexUpdateHelper({self.array!r})"


def at(x):
    """``x.at`` of jax.Array as a function: ``at(x)[index].set(values)`` (``.add``, ``.subtract``, ``.multiply``,
    ``.divide``, ``.power``, ``.min``, ``.max``, ``.get()``, ``.apply(func)``) is a new Tensor, recorded with its
    gradient; ``Tensor.at`` and ``Variable.at`` are this. Out-of-bounds indices follow jax's ``mode`` (the default
    drops such updates; ``get``'s docstring says what it does), float indices raise TypeError."""
    return _IndexUpdateHelper(x)


# -- misc -----------------------------------------------------------------------------------------

def _filled_like(name: str, tf_op: str, full, jnp_like):
    """``jax.numpy.zeros_like`` or ``ones_like`` (``full``: ``zeros`` or ``ones``; ``jnp_like``: jax.numpy's)."""
    def like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
        if shape is None and _duck_typed(a):
            shape = tuple(a.shape)
        if shape is not None:
            out = full(shape, dtype or _dtype_of(a), device=device, out_sharding=out_sharding)
            if device is not None or out_sharding is not None:
                return out
            return _placed(out, _kept_sharding(a, out, shape))
        if isinstance(a, (Tensor, Variable)) and (dtype is None or as_dtype(name, dtype) == a.dtype):
            out = apply(_LIKE_OPS[name], (a,), {})
            if device is None and out_sharding is None:
                return _placed(out, _kept_sharding(a, out))
            return _placed(out, lambda v: jnp_like(v, device=device, out_sharding=out_sharding))
        return _create(name, lambda a, dtype=None, **kw: jnp_like(jnp.asarray(a), dtype=dtype, **kw), a,
                       dtype=dtype, **_placement_options(device, out_sharding))
    like.__name__ = like.__qualname__ = name
    like.__doc__ = (f"``jax.numpy.{name}`` (``shape``: another shape, ``a``'s dtype). Of a Tensor or Variable, in "
                    f"its dtype, the result is on the tapes that know ``a``, with no gradient (TF's {tf_op}). "
                    "``device`` or ``out_sharding`` places the result, as jax.numpy's.")
    return like


def _kept_sharding(a, out, shape=None) -> Optional[Any]:
    """The sharding over several devices of ``a``'s value, which jax.numpy's ``*_like`` give their result, where
    ``out`` (the op's result, placed by its jitted kernel, whose constant output XLA places by default) lacks it;
    None otherwise, also for a value not computed yet (a step's pending one is not forced for its placement).
    With a ``shape`` given, jax.numpy keeps it only where that is ``a``'s shape or ``a`` is replicated."""
    if isinstance(a, LazyTensor) or pending_source(a) is not None or \
            (isinstance(a, Variable) and pending_value(a) is not None):
        return None
    sharding = getattr(a, "sharding", None)
    if sharding is None or len(sharding.device_set) < 2 or pending_source(out) is not None:
        return None
    if shape is not None and tuple(out.shape) != tuple(a.shape) and not sharding.is_fully_replicated:
        return None
    return None if getattr(out, "sharding", None) == sharding else sharding


_LIKE_OPS = {"zeros_like": _recorded_without_gradient("zeros_like", jnp.zeros_like),
             "ones_like": _recorded_without_gradient("ones_like", jnp.ones_like)}


def _create(name: str, make: Callable, *args, **kw) -> Tensor:
    """A constant from a jax.numpy constructor; a bad size (negative, a float, None) raises the error every op
    raises (core.named_error: the constructor, its arguments and the fix), never jax's bare one. A negative
    dimension is a ``ShapeError`` (TF's ``InvalidArgumentError``, NumPy's ``ValueError``), a non-integer
    one ``TypeError`` (as TF and NumPy). A Variable argument (``ones_like(v)``) is read, as TF's conversion
    reads it (a custom_gradient's function lists it among the variables it used)."""
    args = [a.read_value() if isinstance(a, Variable) else a for a in args]
    dtype = kw.get("dtype")
    refuse_array_dtype(name, dtype)
    numpy_args = [a for a in (*args, *kw.values()) if isinstance(a, (np.ndarray, np.generic))]
    if numpy_args:  # (a NumPy fill or bound JAX would wrap around, unless a dtype of its own is asked for)
        try:
            cast = dtype is not None and jax.dtypes.canonicalize_dtype(dtype) == jnp.dtype(dtype)
        except Exception:  # (not a dtype: jax.numpy's own error, below)
            cast = True
        if not cast:
            for a in numpy_args:
                refuse_narrowing(a, None, f"tj.numpy.{name}")
    if _may_be_huge(args, kw):  # (jax.numpy's constructors run at once: a size XLA cannot hold aborts the process)
        try:
            out = jax.eval_shape(lambda: make(*args, **kw))  # (the sizes stay Python numbers)
        except Exception:  # (bad arguments: the call below raises its own error)
            pass
        else:
            check_result_size(name, out)
    try:
        out = make(*args, **kw)
        return tuple(Tensor(o) for o in out) if isinstance(out, tuple) else Tensor(out)  # (linspace's retstep)
    except (TypeError, ValueError, ZeroDivisionError) as e:
        try:  # the arguments by their names in jax.numpy's signature (shape=, N=, num=...)
            given = dict(inspect.signature(make).bind(*args, **kw).arguments)
        except TypeError:
            given = {**{f"arg{i}": a for i, a in enumerate(args)}, **kw}
        if given.get("dtype") is not None:
            given["dtype"] = _dtype_name(given["dtype"])
        arrays = [v for v in given.values() if isinstance(v, (Tensor, Variable, np.ndarray, jax.Array))]  # (by shape)
        named = named_error(name, arrays, {k: v for k, v in given.items() if not builtins.any(v is a for a in arrays)},
                            e)
        if named is None:
            raise
        try:
            raise named from e
        finally:
            named = None  # (the traceback keeps this frame: its locals must not keep the error, a reference cycle)


def _may_be_huge(args, kw) -> bool:
    """Whether a constructor's numbers could ask for more than ``MAX_ARRAY_BYTES`` (``check_result_size``): a bound
    on any result's size (the product of the numbers given, small floats counted as their reciprocals, as a step
    is; squared, as eye's N by N), so that ordinary calls skip the abstract evaluation (~0.2 ms)."""
    bound = 1
    todo = list(args) + list(kw.values())
    while todo:
        v = todo.pop()
        if isinstance(v, (list, tuple)):
            todo.extend(v)
        elif isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
            a = builtins.abs(float(v))
            if a != a or a == float("inf"):
                continue
            bound *= builtins.max(a, 1.0 / a) if a else 1.0
            if bound > 2.0 ** 28:
                return True
    return False


def _placement_options(device, out_sharding) -> dict:
    """jax.numpy's ``device``/``out_sharding`` keywords for a constructor called with them (only those given: jax.numpy
    checks them, resolves a PartitionSpec on the mesh set with ``jax.set_mesh``, and places the array itself)."""
    if device is None and out_sharding is None:
        return {}
    options = {} if device is None else {"device": device}
    if out_sharding is not None:
        options["out_sharding"] = out_sharding
    return options


def _placement(name: str, device=None, out_sharding=None):
    """Where jax.numpy's ``device=``/``out_sharding=`` put a result computed by tapejax's ops: None (neither given),
    a ``jax.Device`` or a ``Sharding``. At most one may be given (``ValueError``, as jax.numpy's). A
    ``PartitionSpec`` is resolved on the mesh set with ``jax.set_mesh`` (outside one: ``ValueError``, as
    jax.numpy's), so that an op keyed by the placement does not depend on the context it runs in later (a deferred
    op runs at the gradient)."""
    if out_sharding is None:
        return device
    if device is not None:
        raise ValueError(f"tj.numpy.{name}: only one of device and out_sharding can be set (as jax.numpy.{name}'s); "
                         f"got device={device!r} and out_sharding={out_sharding!r}")
    if isinstance(out_sharding, jax.sharding.PartitionSpec):
        mesh = jax.sharding.get_mesh()
        if mesh.empty:
            raise ValueError(f"tj.numpy.{name}: out_sharding={out_sharding!r} is a PartitionSpec, which names axes of "
                             "the mesh set with jax.set_mesh, and none is set (as jax.numpy's); pass a NamedSharding "
                             "or call inside `with jax.set_mesh(mesh):`")
        return jax.sharding.NamedSharding(mesh, out_sharding)
    return out_sharding


def _placed(t: Tensor, place) -> Tensor:
    """``t`` placed by ``place``: a function of its array that only moves it (jax.numpy's own function called with
    the ``device``/``out_sharding`` given, so the result is placed exactly as jax.numpy places it), or a placement
    (``_placement``: a Device or Sharding; None: ``t`` itself) given to ``jax.device_put``. A new Tensor whose
    gradient passes straight back to ``t`` (recorded as an identity, as backprop's reshards); traced, the move is
    JAX's own differentiable placement."""
    if place is None:
        return t
    value = place(t.value) if callable(place) else jax.device_put(t.value, place)
    moved = Tensor(value)
    record_identity("device_put", t, moved)
    return moved


def _dtype_name(dtype):
    """A dtype as its name (``float32``, not ``<class 'jax.numpy.float32'>``) for messages."""
    try:
        return str(jnp.dtype(dtype))
    except TypeError:
        return dtype


# (shapes, counts and arange's bounds are static: scalar Tensors and Variables stand for their values, ``static``)
def zeros(shape, dtype=None, *, device=None, out_sharding=None):
    """``jax.numpy.zeros`` as a Tensor (float32 by default, as TF's ``tf.zeros``; float64 under JAX's x64 mode, as
    jax.numpy's), placed by ``device`` or ``out_sharding`` as jax.numpy's."""
    return _create("zeros", jnp.zeros, static(shape), dtype=dtype, **_placement_options(device, out_sharding))


def ones(shape, dtype=None, *, device=None, out_sharding=None):
    """``jax.numpy.ones`` as a Tensor (float32 by default, as TF's ``tf.ones``; float64 under JAX's x64 mode, as
    jax.numpy's), placed by ``device`` or ``out_sharding`` as jax.numpy's."""
    return _create("ones", jnp.ones, static(shape), dtype=dtype, **_placement_options(device, out_sharding))


zeros_like = _filled_like("zeros_like", "ZerosLike", zeros, jnp.zeros_like)
ones_like = _filled_like("ones_like", "OnesLike", ones, jnp.ones_like)


def full(shape, fill_value, dtype=None, *, device=None, out_sharding=None):
    """``jax.numpy.full``; a Tensor ``fill_value`` is differentiated (TF's ``tf.fill``: the gradient is the sum).
    ``device`` or ``out_sharding`` places the result, as jax.numpy's."""
    fill_value = _list_as_tensor(fill_value)
    if isinstance(fill_value, (Tensor, Variable)):
        if device is None and out_sharding is None:
            return apply(_fill, (fill_value,), {"shape": static(shape), "dtype": freeze(dtype)})
        fill = convert_to_tensor(fill_value)  # (a Variable read once)
        out = apply(_fill, (fill,), {"shape": static(shape), "dtype": freeze(dtype)})
        # placed by jax.numpy.full itself (a scalar fill and a broadcast one are placed differently)
        return _placed(out, lambda v: jnp.full(v.shape, fill.value, v.dtype, device=device, out_sharding=out_sharding))
    return _create("full", jnp.full, static(shape), fill_value, dtype=dtype,
                   **_placement_options(device, out_sharding))


def arange(start, stop=None, step=None, dtype=None, *, device=None, out_sharding=None):
    """``jax.numpy.arange`` as a Tensor; the bounds and step are static (a scalar Tensor stands for its value).
    ``device`` or ``out_sharding`` places it, as jax.numpy's."""
    if stop is None and step is None and _is_traced(start):
        # one argument is the stop, as jax.numpy's error names it (value None: api.py's naming by position keeps it)
        e = traced_argument_error("tj.numpy.arange", "stop", start)
        e.value = None
        try:
            raise e
        finally:
            e = None  # (the traceback keeps this frame: its locals must not keep the error, a reference cycle)
    bounds = [v for v in (start, stop, step) if v is not None]
    if dtype is None and builtins.any(type(v) not in (int, float, bool) for v in bounds):
        # (the bounds' promoted dtype, as jax.numpy's: an int16 start gives int16; they pass as Python numbers)
        dtype = jnp.result_type(*[_weak_dtype(v) for v in bounds])
    ints = [int(v) for v in bounds if isinstance(v, (int, np.integer)) and not isinstance(v, bool)]
    if ints and (dtype is None or jnp.dtype(dtype).kind in "iu"):  # (a bound past int32 is wrapped around by JAX)
        wide = np.uint64 if builtins.min(ints) >= 2 ** 63 else np.int64
        refuse_narrowing(np.array(ints, wide), None, "tj.numpy.arange")
    return _create("arange", jnp.arange, static(start), static(stop), static(step), dtype,
                   **_placement_options(device, out_sharding))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    """``jax.numpy.linspace``; Tensor ``start``/``stop`` are differentiated (as TF's ``tf.linspace``). ``device``
    places the values (not the step), as jax.numpy's."""
    params = {"num": static(num), "endpoint": bool(endpoint), "retstep": bool(retstep), "dtype": freeze(dtype),
              "axis": static(axis)}
    if isinstance(start, (Tensor, Variable)) or isinstance(stop, (Tensor, Variable)):
        out = apply(_linspace, (start, stop), params)
        if device is None:
            return out
        place = lambda v: jnp.asarray(v, device=device)  # noqa: E731  (jax.numpy's: a conversion to the device)
        return (_placed(out[0], place), out[1]) if params["retstep"] else _placed(out, place)
    return _create("linspace", jnp.linspace, start, stop, **params, **_placement_options(device, None))


def eye(N, M=None, k=0, dtype=None, *, device=None):
    """``jax.numpy.eye`` as a Tensor (float32 by default; float64 under JAX's x64 mode, as jax.numpy's), placed on
    ``device`` as jax.numpy's; ``k`` may be traced (inside a tj.function), as jax.numpy's."""
    N, M, dtype = static(N), static(M), dtype or jnp.result_type(float)
    if _is_traced(k):
        out = _band(k, kind="eye", N=N, M=M, dtype=as_dtype("eye", dtype))
        return out if device is None else _placed(out, lambda v: jax.device_put(v, device))
    return _create("eye", jnp.eye, N, M, static(k), dtype, **_placement_options(device, None))


def asarray(a, dtype=None, order=None, *, copy=None, device=None, out_sharding=None):
    """``jax.numpy.asarray``: ``a`` as a Tensor (a Tensor of that dtype comes back as itself: no copy, no op).
    ``copy=True``: a new Tensor, as ``array`` (a Tensor's copy is recorded as an identity); ``copy=False`` where a
    copy is needed raises ``ValueError`` as jax.numpy's (a buffer-protocol object, a NumPy array, for a device other
    than a CPU); ``order``: None or ``'K'`` (``NotImplementedError``, as jax.numpy's); ``device`` or
    ``out_sharding`` places the result, as jax.numpy's."""
    if order is not None:
        _check_order_k("asarray", order)
    if copy is False and not isinstance(a, (Tensor, Variable, jax.Array)) and _platform(device) != "cpu" \
            and _buffer_protocol(a):
        raise ValueError(f"tj.numpy.asarray: cannot convert an object of type {type(a).__name__} to a Tensor on "
                         f"platform {_platform(device)} with copy=False (it needs a copy, as jax.numpy's); use "
                         "copy=None or copy=True.")
    if copy:
        return array(a, dtype, copy=True, device=device, out_sharding=out_sharding)
    t = _converted(a, dtype, "asarray")
    return t if device is None and out_sharding is None else \
        _placed(t, lambda v: jnp.asarray(v, device=device, out_sharding=out_sharding))


def from_dlpack(x, /, *, device=None, copy=None):
    """``jax.numpy.from_dlpack``: a Tensor of the array ``x`` exports through DLPack (a NumPy array, a torch tensor,
    another Tensor); ``device`` and ``copy`` as jax.numpy's (``copy=False``: no copy, or ValueError)."""
    return convert_to_tensor(jnp.from_dlpack(x, device=device, copy=copy))


__array_namespace_info__ = jnp.__array_namespace_info__  # (the Array API's dtypes and devices: jax.numpy's)


def _converted(a, dtype, name: str) -> Tensor:
    """``a`` as a Tensor of ``dtype``, cast as jax.numpy's ``array`` and ``asarray`` cast: a Tensor of another dtype
    by a recorded cast (``float`` is float32 with x64 off, as jax.numpy's: a float32 Tensor stays itself), and Python
    floats given an int dtype are truncated (NumPy's and tf.experimental.numpy's rule; ``tj.constant`` refuses them,
    as ``tf.constant``)."""
    if dtype is not None:
        dt = as_dtype(name, dtype)  # (also refuses an array given as dtype, as jax.numpy's)
        if isinstance(a, (Tensor, Variable)):
            dt = jax.dtypes.canonicalize_dtype(dt)
            return convert_to_tensor(a) if dt == a.dtype else astype(a, dt)
    if isinstance(a, np.ma.MaskedArray):  # (its data, the mask dropped, as jax.numpy's and np.asarray)
        a = np.asarray(a)
    if dtype is None and type(a) in (int, float, complex):  # (weakly typed, as jax.numpy's: tj.constant's is not)
        t = convert_to_tensor(a)  # (its checks: an int beyond int32 raises)
        weak = jnp.asarray(a)
        return Tensor(weak) if weak.dtype == t.dtype else t  # (x64: tj's float32/int32 defaults, strongly typed)
    if dtype is None:
        dtype = numpy_sequence_dtype(a)  # ([np.int8(1), 2] is int8, as jax.numpy's; tj.constant's int32, as TF's)
    try:
        return convert_to_tensor(a, dtype)
    except TypeError as e:
        if dtype is None:
            raise
        try:
            return Tensor(jnp.asarray(a, dtype=as_dtype("array", dtype)))
        except Exception:
            raise e from None


def _platform(device) -> str:
    """The platform (``'cpu'``, ``'gpu'``, ``'tpu'``) a ``device=`` argument names (a Device, a Sharding, or None:
    the default backend)."""
    if device is None:
        return jax.default_backend()
    if isinstance(device, jax.sharding.Sharding):
        return next(iter(device.device_set)).platform
    return device.platform


def _buffer_protocol(a) -> bool:
    try:
        memoryview(a)
    except TypeError:
        return False
    return True


def array(object, dtype=None, copy: bool = True, order="K", ndmin=0, *, device=None, out_sharding=None):
    """``jax.numpy.array``: like ``asarray``, but a Tensor comes back as a new Tensor (a copy), recorded as
    an identity (TF's ``tf.identity``), so it can be watched and differentiated apart from the original.
    ``ndmin``: leading axes of size 1 added up to that rank (a recorded reshape); ``order``: ``'K'`` or None
    (``NotImplementedError``, as jax.numpy's); ``device`` or ``out_sharding`` places the result, as jax.numpy's.
    (``copy``, ``order`` and ``ndmin`` are taken by position too, as jax.numpy's, without its deprecation warning.)"""
    a = object
    if order is not None:
        _check_order_k("array", order)
    t = _converted(a, dtype, "array")
    if ndmin:
        ndmin, nd = as_index(ndmin, lambda: f"tj.numpy.array: ndmin must be an integer, got {ndmin!r}"), ndim(t)
        if ndmin > nd:  # (as jax.numpy's: leading axes of size 1)
            t = reshape(t, (1,) * (ndmin - nd) + tuple(shape(t)))
    if device is not None or out_sharding is not None:  # (a new Tensor, placed as jax.numpy.array places it)
        return _placed(t, lambda v: jnp.asarray(v, device=device, out_sharding=out_sharding))
    if copy and t is a:
        out = Tensor(t._value)
        record_identity("Identity", t, out)
        return out
    return t


def shape(a) -> tuple:
    """``jax.numpy.shape``: the static shape of a Tensor, Variable, array or nested list."""
    if isinstance(a, (Tensor, Variable)):
        return tuple(a.shape)
    if isinstance(a, (str, bytes)):  # (np.shape('abc') is (): text is no scalar; the error tj.constant gives it)
        convert_to_tensor(a, dtype=float32)
    try:
        return tuple(np.shape(a))
    except ValueError:  # a ragged nested list: the error tj.constant gives it (NumPy's names no op)
        convert_to_tensor(a)
        raise


_shape_of = shape  # (for functions with a ``shape`` parameter of their own, as jax.numpy's ``*_like``)


def ndim(a):
    """``jax.numpy.ndim``: the number of dimensions of a Tensor, Variable, array or nested list."""
    if isinstance(a, (Tensor, Variable)):  # (its rank, without building its shape: ops ask this per call)
        return a.ndim
    return len(shape(a))


def size(a, axis=None):
    """``jax.numpy.size``: the number of elements, or of ``axis``'s (an int or a tuple of ints)."""
    shp = shape(a)
    if axis is None:
        return int(np.prod(shp, dtype=np.int64))
    axes = [_check_axis("size", ax, len(shp)) for ax in ((axis,) if isinstance(axis, int) else tuple(axis))]
    if len(set(axes)) != len(axes):
        raise ValueError(f"tj.numpy.size: repeated axis in {axis!r} (as jax.numpy's)")
    return int(np.prod([shp[ax] for ax in axes], dtype=np.int64))


class _ScalarType(type(jnp.float32)):
    """jax.numpy's scalar types (``jnp.float32``: a dtype wherever one is taken, equal and hashing as jax's, and
    ``isinstance`` as numpy's scalar type), called as tj.numpy's: ``tnp.float32(x)`` is ``tnp.asarray(x, float32)``,
    a Tensor whose cast is recorded (jax's gives a jax.Array, out of sight of a tape)."""

    def __call__(self, x):
        return asarray(x, dtype=self.dtype)


_scalar_types: dict = {}  # jax.numpy's scalar type -> tj.numpy's (jax's aliases, single of float32, stay aliases)


def _scalar_type(jax_type) -> type:
    t = _scalar_types.get(jax_type)
    if t is None:
        t = _scalar_types[jax_type] = _ScalarType(
            jax_type.__name__, (object,),
            {"dtype": jax_type.dtype, "__module__": __name__,
             "__doc__": f"jax.numpy.{jax_type.__name__}, giving Tensors"})
    return t


# jax.numpy's dtype names and dtype helpers (tnp.complex64, tnp.finfo(tnp.float32).eps), as jax.numpy has them
float32, float16, bfloat16, float64 = (_scalar_type(t) for t in (jnp.float32, jnp.float16, jnp.bfloat16, jnp.float64))
int8, int16, int32, int64 = (_scalar_type(t) for t in (jnp.int8, jnp.int16, jnp.int32, jnp.int64))
uint8, uint16, uint32, uint64 = (_scalar_type(t) for t in (jnp.uint8, jnp.uint16, jnp.uint32, jnp.uint64))
complex64, complex128 = _scalar_type(jnp.complex64), _scalar_type(jnp.complex128)
bool_ = _scalar_type(jnp.bool_)
# and its other scalar types: NumPy's aliases (single, int_...), the narrow ints and floats (``bool``, Python's name
# inside this module, is tj.numpy's ``bool_``: index_tricks answers it)
globals().update({n: _scalar_type(getattr(jnp, n)) for n in (
    "cdouble", "complex_", "csingle", "double", "float_", "int_", "single", "uint", "int1", "int2", "int4", "uint1",
    "uint2", "uint4", "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4", "float8_e4m3",
    "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu")
    if isinstance(getattr(jnp, n, None), _ScalarType.__base__)})
dtype, finfo, iinfo, issubdtype, result_type = jnp.dtype, jnp.finfo, jnp.iinfo, jnp.issubdtype, jnp.result_type
number, inexact, floating, complexfloating, integer, signedinteger, unsignedinteger = (
    jnp.number, jnp.inexact, jnp.floating, jnp.complexfloating, jnp.integer, jnp.signedinteger, jnp.unsignedinteger)
pi = np.pi
e = np.e
inf = np.inf
nan = np.nan
newaxis = None

vspace.set_recorded_sum(add_n)  # sums of gradients recorded by an outer tape are this op


def _pack(parts: Sequence[Any], dtype) -> Tensor:
    """A list of tensors as one (TF's Pack): ``stack`` of the parts, each cast to ``dtype`` first if needed."""
    return stack([p if p.dtype == dtype else astype(p, dtype) for p in parts])


set_list_packer(_pack)  # tj.constant([x, 2 * x]) and op arguments like x * [x, 1.0] keep x's gradient


# -- more of jax.numpy (declared last: their samples' draws leave every earlier op's samples as they were) --
# Complex parts, recorded with derived kernels (put in TF's complex convention by core): for a real loss,
# real(z) passes the gradient on (TF's RealGrad), imag(z) times 1j (ImagGrad), conj(z) conjugated (ConjGrad),
# angle(z) as -g / (imag(z) + 1j * real(z)) (AngleGrad).
_real = OpDef("real", jnp.real, samples=_samples(((_r(3, 4),), {})))
_imag = OpDef("imag", jnp.imag, samples=_samples(((_r(3, 4),), {})))
_conj = OpDef("conj", jnp.conj, samples=_samples(((_r(3, 4),), {})))
_angle = OpDef("angle", jnp.angle, samples=_samples(((_pos(3, 4),), {})))
_real_angle = _recorded_without_gradient("angle_of_real", jnp.angle)  # (0 or pi: TF's select on the sign)


def real(val):
    """``jax.numpy.real``, recorded with its gradient (TF's RealGrad for complex inputs)."""
    return _real(val)


def imag(val):
    """``jax.numpy.imag``, recorded with its gradient (TF's ImagGrad: ``1j * g`` for complex inputs)."""
    return _imag(val)


def conj(x):
    """``jax.numpy.conj``, recorded with its gradient (TF's ConjGrad: the conjugated gradient)."""
    return _conj(x)


def angle(z, deg=False):
    """``jax.numpy.angle``, recorded with its gradient (TF's AngleGrad for complex inputs). A real input's angle
    (0 or pi) has no gradient (None, as TF's, whose angle of a real tensor is a select on its sign)."""
    a = _angle(z) if jnp.issubdtype(_operand_dtype(z), jnp.complexfloating) else _real_angle(z)
    return a * (180.0 / np.pi) if deg else a


conjugate = conj
arccosh = _unary("arccosh", _complex_c99.arccosh, lambda x, y: 1 / _complex_c99.sinh(y),  # AcoshGrad
                 domain=_between(1.2, 3.0))
deg2rad = _unary("deg2rad", jnp.deg2rad, lambda x, y: jnp.full_like(x, np.pi / 180))
rad2deg = _unary("rad2deg", jnp.rad2deg, lambda x, y: jnp.full_like(x, 180 / np.pi))
radians, degrees = deg2rad, rad2deg
# d/dx = sigmoid(x - y): exp(x - out) is inf - inf = NaN at x = inf > y (the limit, 1), and at y = inf
logaddexp = _binary("logaddexp", jnp.logaddexp, lambda x, y, o, g: g * jax.nn.sigmoid(x - y),
                    lambda x, y, o, g: g * jax.nn.sigmoid(y - x), ufunc=True)
# (base 2 computed as such: logaddexp of x * ln 2, divided by ln 2, was an ulp off on a fifth of float32 pairs)
_logaddexp2_rng = np.random.default_rng(2)  # (its samples' own draws: those of the ops declared after stay as they were)


def _logaddexp2_sample(*shape):
    return _logaddexp2_rng.uniform(-3, 3, shape).astype(np.float32)


logaddexp2 = _binary("logaddexp2", jnp.logaddexp2, lambda x, y, o, g: g * jax.nn.sigmoid((x - y) * math.log(2)),
                     lambda x, y, o, g: g * jax.nn.sigmoid((y - x) * math.log(2)), ufunc=True,
                     domain_x=_logaddexp2_sample, domain_y=_logaddexp2_sample)

# Structure: derived kernels (each is linear in its inputs, so JAX's VJP is exact and has no kinks).
_trace = OpDef("trace", lambda a, *, offset=0, axis1=0, axis2=1: jnp.trace(a, offset, axis1, axis2),
               samples=_samples(((_r(3, 4),), {}), ((_r(2, 3, 3),), {"offset": 1, "axis1": 1, "axis2": 2})))
_diagonal = OpDef("diagonal", lambda a, *, offset=0, axis1=0, axis2=1: jnp.diagonal(a, offset, axis1, axis2),
                  samples=_samples(((_r(3, 4),), {}), ((_r(2, 3, 3),), {"offset": -1, "axis1": 1, "axis2": 2})))
_diag = OpDef("diag", lambda v, *, k=0: jnp.diag(v, k), samples=_samples(((_r(3),), {"k": 1}), ((_r(3, 4),), {})))
_tril = OpDef("tril", lambda m, *, k=0: jnp.tril(m, k), samples=_samples(((_r(3, 4),), {"k": 0})))
_triu = OpDef("triu", lambda m, *, k=0: jnp.triu(m, k), samples=_samples(((_r(3, 4),), {"k": 1})))
_roll = OpDef("roll", lambda a, *, shift, axis=None: jnp.roll(a, shift, axis),
              samples=_samples(((_r(3, 4),), {"shift": 1, "axis": 1}),
                               ((_r(3, 4),), {"shift": (1, -2), "axis": (0, 1)})))
# (a shift known only inside a trace, an operand; not drawn from _rng: later ops' samples stay as they were)
_roll_by = OpDef("roll_by", lambda a, shift, *, axis=None: jnp.roll(a, shift, axis),
                 samples=_samples(((np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4),
                                    np.array([1, -2], np.int32)), {"axis": (0, 1)})))
_tensordot = OpDef("tensordot", lambda a, b, *, axes=2, **kw: jnp.tensordot(a, b, axes, **kw),
                   samples=_samples(((_r(2, 3, 4), _r(3, 4, 5)), {"axes": 2}),
                                    ((_r(2, 3), _r(4, 3)), {"axes": ((1,), (1,))})))
_vdot = OpDef("vdot", jnp.vdot, samples=_samples(((_r(3, 4), _r(3, 4)), {})))
_inner = OpDef("inner", jnp.inner, samples=_samples(((_r(3, 4), _r(2, 4)), {})))
_kron = OpDef("kron", jnp.kron, samples=_samples(((_r(2, 3), _r(2, 2)), {})))
_diff = OpDef("diff", lambda a, *, n=1, axis=-1: jnp.diff(a, n, axis),
              samples=_samples(((_r(3, 5),), {"n": 2, "axis": -1}), ((_r(3, 5),), {"n": 1, "axis": 0})))
# NaN-skipping reductions: a NaN entry gets gradient 0 (it did not count), the others as sum's and mean's.
_nansum = OpDef("nansum", lambda a, *, axis=None, keepdims=False: jnp.nansum(a, axis, keepdims=keepdims),
                samples=_samples(((_r(3, 4),), {"axis": 1})))
_nanmean = OpDef("nanmean", lambda a, *, axis=None, keepdims=False: jnp.nanmean(a, axis, keepdims=keepdims),
                 samples=_samples(((_r(3, 4),), {"axis": 0, "keepdims": True})))
_count_nonzero = _not_differentiable("count_nonzero", lambda a, *, axis=None, keepdims=False:
                                     jnp.count_nonzero(a, axis, keepdims=keepdims))
_isclose = _not_differentiable("isclose", lambda a, b, *, rtol=1e-05, atol=1e-08, equal_nan=False:
                               jnp.isclose(a, b, rtol, atol, equal_nan))


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """``jax.numpy.trace``."""
    _no_out("trace", out)
    if dtype is not None:  # (each element cast, then summed, as jax.numpy's and NumPy's)
        dtype = np.dtype(as_dtype("trace", dtype))
        a = astype(a, dtype)
    result = _trace(a, offset=_integers("trace", "offset", offset), axis1=_check_axis("trace", axis1, ndim(a)),
                    axis2=_check_axis("trace", axis2, ndim(a)))
    return result if dtype is None or result.dtype == dtype else astype(result, dtype)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """``jax.numpy.diagonal``."""
    return _diagonal(a, offset=_integers("diagonal", "offset", offset), axis1=_check_axis("diagonal", axis1, ndim(a)),
                     axis2=_check_axis("diagonal", axis2, ndim(a)))


def diag(v, k=0):
    """``jax.numpy.diag``: the diagonal of a matrix, or the matrix with a vector on its diagonal."""
    return _diag(v, k=_integers("diag", "k", k))


def tril(m, k=0):
    """``jax.numpy.tril``."""
    return _tril(m, k=_integers("tril", "k", k))


def triu(m, k=0):
    """``jax.numpy.triu``."""
    return _triu(m, k=_integers("triu", "k", k))


def roll(a, shift, axis=None):
    """``jax.numpy.roll``; a ``shift`` whose value is traced (computed inside a tj.function) is an operand of the op,
    as jax.numpy's."""
    if isinstance(shift, jax.core.Tracer) or (isinstance(shift, (tuple, list)) and
                                              builtins.any(isinstance(x, jax.core.Tracer) for x in shift)):
        shift = convert_to_tensor(shift)  # (traced by jax.jit or jax.vmap of tj code: an operand too)
    shift = _integers("roll", "shift", shift)
    if isinstance(shift, Tensor) or isinstance(shift, tuple) and builtins.any(isinstance(x, Tensor) for x in shift):
        return _roll_by(a, shift if isinstance(shift, Tensor) else stack(shift), axis=freeze(axis))
    return _roll(a, shift=shift, axis=freeze(axis))


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None, out_sharding=None):
    """``jax.numpy.tensordot``."""
    return _tensordot(a, b, axes=freeze(axes), **_product_options("tensordot", precision, preferred_element_type,
                                                                  out_sharding=out_sharding))


def vdot(a, b, *, precision=None, preferred_element_type=None):
    """``jax.numpy.vdot`` (conjugates ``a``)."""
    return _vdot(a, b, **_product_options("vdot", precision, preferred_element_type))


def inner(a, b, *, precision=None, preferred_element_type=None):
    """``jax.numpy.inner``."""
    return _inner(a, b, **_product_options("inner", precision, preferred_element_type))


def kron(a, b):
    """``jax.numpy.kron``."""
    return _kron(a, b)


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """``jax.numpy.diff`` (``prepend``/``append``: values joined to ``a`` along ``axis`` first, a scalar broadcast
    to one slice; they are differentiated as ``a``)."""
    axis = _check_axis("diff", axis, ndim(a))
    n = _integers("diff", "n", n, True)
    if n == 0:  # (the input as it is, prepend and append ignored, as jax.numpy and NumPy)
        return _diff(a, n=0, axis=axis)
    if prepend is not None or append is not None:
        slice_shape = tuple(1 if i == axis else d for i, d in enumerate(shape(a)))

        def joined(v):
            return broadcast_to(v, slice_shape) if ndim(v) == 0 else v
        a = concatenate(([joined(prepend)] if prepend is not None else []) + [a]
                        + ([joined(append)] if append is not None else []), axis=axis)
    return _diff(a, n=n, axis=axis)


def vstack(tup, dtype=None):
    """``jax.numpy.vstack``: ``concatenate`` along axis 0 of the arrays made at least 2-d."""
    parts = [reshape(t, (1, -1)) if ndim(t) < 2 else t for t in (asarray(x) for x in tup)]
    return concatenate(parts, axis=0, dtype=dtype)


def hstack(tup, dtype=None):
    """``jax.numpy.hstack``: ``concatenate`` along axis 1 (axis 0 for 1-d arrays)."""
    parts = [reshape(t, (1,)) if ndim(t) == 0 else t for t in (asarray(x) for x in tup)]
    return concatenate(parts, axis=0 if ndim(parts[0]) == 1 else 1, dtype=dtype)


def column_stack(tup):
    """``jax.numpy.column_stack``: 1-d arrays as columns, then ``concatenate`` along axis 1."""
    parts = [reshape(t, (-1, 1)) if ndim(t) < 2 else t for t in (asarray(x) for x in tup)]
    return concatenate(parts, axis=1)


def dstack(tup, dtype=None):
    """``jax.numpy.dstack``: ``concatenate`` along axis 2 of the arrays made at least 3-d."""
    return concatenate([atleast_3d(t) for t in tup], axis=2, dtype=dtype)


def _at_least(shapes, arys):
    """``arys`` reshaped by ``shapes`` (by rank, for ranks below the minimum): one array, or a list of them."""
    out = []
    for a in arys:
        t = asarray(a)  # (a Python number weakly typed, as jax.numpy's)
        make = shapes.get(t.ndim)
        out.append(reshape(t, make(tuple(t.shape))) if make is not None else t)
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys):
    """``jax.numpy.atleast_1d``: a scalar as shape (1,); several arrays give a list."""
    return _at_least({0: lambda s: (1,)}, arys)


def atleast_2d(*arys):
    """``jax.numpy.atleast_2d``: (n,) as (1, n), a scalar as (1, 1)."""
    return _at_least({0: lambda s: (1, 1), 1: lambda s: (1,) + s}, arys)


def atleast_3d(*arys):
    """``jax.numpy.atleast_3d``: (n,) as (1, n, 1), (m, n) as (m, n, 1), a scalar as (1, 1, 1)."""
    return _at_least({0: lambda s: (1, 1, 1), 1: lambda s: (1,) + s + (1,), 2: lambda s: s + (1,)}, arys)


def fliplr(m):
    """``jax.numpy.fliplr``: ``flip`` along axis 1."""
    if ndim(m) < 2:
        raise ValueError(f"tj.numpy.fliplr requires an array of rank >= 2, got shape {shape(m)}")
    return flip(m, axis=1)


def flipud(m):
    """``jax.numpy.flipud``: ``flip`` along axis 0."""
    if ndim(m) < 1:
        raise ValueError(f"tj.numpy.flipud requires an array of rank >= 1, got shape {shape(m)}")
    return flip(m, axis=0)


def rot90(m, k=1, axes=(0, 1)):
    """``jax.numpy.rot90``: rotated by 90 degrees ``k`` times in the plane of ``axes``, from the first towards
    the second."""
    nd = ndim(m)
    if len(axes) != 2:
        raise ValueError(f"tj.numpy.rot90: axes must be two axes, got {axes!r}")
    ax0, ax1 = _check_axis("rot90", axes[0], nd), _check_axis("rot90", axes[1], nd)
    if ax0 == ax1:
        raise ValueError(f"tj.numpy.rot90: the two axes must differ, got {axes!r}")
    k = _integers("rot90", "k", k) % 4
    if k == 0:
        return m if isinstance(m, Tensor) else convert_to_tensor(m)
    if k == 2:
        return flip(flip(m, axis=ax0), axis=ax1)
    if k == 1:
        return swapaxes(flip(m, axis=ax1), ax0, ax1)
    return flip(swapaxes(m, ax0, ax1), axis=ax1)


def permute_dims(a, axes):
    """``jax.numpy.permute_dims`` (the Array API's ``transpose``; ``axes`` is required)."""
    return transpose(a, axes)


def matrix_transpose(x):
    """``jax.numpy.matrix_transpose``: the last two axes swapped."""
    if ndim(x) < 2:
        raise ValueError(f"tj.numpy.matrix_transpose requires an array of rank >= 2, got shape {shape(x)}")
    return swapaxes(x, -1, -2)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """``jax.numpy.cumulative_sum`` (the Array API's ``cumsum``): ``axis`` may be left out for a 1-d array only;
    ``include_initial`` puts a 0 first. Integers and bools are summed in the default (unsigned) integer type, as
    jax.numpy's: (u)int32, or (u)int64 under x64."""
    if dtype is None:
        dt = convert_to_tensor(x).dtype
        if jnp.issubdtype(dt, jnp.unsignedinteger):
            dtype = jax.dtypes.canonicalize_dtype(jnp.uint64)
        elif jnp.issubdtype(dt, jnp.integer) or dt == jnp.bool_:
            dtype = jax.dtypes.canonicalize_dtype(jnp.int64)
    return _cumulative("cumulative_sum", cumsum, zeros, x, axis, dtype, include_initial)


def _cumulative(name: str, scan: Callable, first_of: Callable, x, axis, dtype, include_initial):
    """``scan`` (cumsum, cumprod) with the Array API's axis rule; ``include_initial`` puts the identity
    (``first_of(shape, dtype)``) first."""
    nd = ndim(x)
    if axis is None:
        if nd != 1:
            raise ValueError(f"tj.numpy.{name}: axis must be given for an array of rank {nd} (shape "
                             f"{shape(x)}); it may be left out for a 1-d array only")
        axis = 0
    axis = _check_axis(name, axis, nd)
    result = scan(x, axis=axis, dtype=dtype)
    if include_initial:
        first = first_of(tuple(1 if i == axis else d for i, d in enumerate(shape(result))), result.dtype)
        result = concatenate([first, result], axis=axis)
    return result


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    """``jax.numpy.average``: the ``weights``-weighted mean along ``axis`` (weights of ``a``'s shape, or of the
    lengths of the axes given, in their order); with ``returned``, also the sum of the weights (broadcast as the
    average)."""
    if weights is None:
        avg = mean(a, axis=axis, keepdims=keepdims)
        if not returned:
            return avg
        return avg, full(shape(avg), size(a, axis), dtype=avg.dtype)
    a_shape, w = shape(a), convert_to_tensor(weights)
    if tuple(w.shape) != a_shape:
        axes = (axis,) if isinstance(axis, (int, np.integer)) else (tuple(axis) if isinstance(axis, tuple) else None)
        if axes is None or w.ndim != len(axes):
            raise ValueError(f"tj.numpy.average: weights of shape {tuple(w.shape)} need the input's shape "
                             f"{a_shape}, or the axes given and weights of their lengths (1-d for one axis)")
        axes = tuple(_check_axis("average", ax, len(a_shape)) for ax in axes)
        if tuple(w.shape) != tuple(a_shape[ax] for ax in axes):
            raise ValueError(f"tj.numpy.average: weights of shape {tuple(w.shape)} do not match the lengths of axes "
                             f"{axes} of the input (shape {a_shape})")
        # (the weights' axes in the input's order, then broadcast over the other axes)
        order = sorted(range(len(axes)), key=lambda k: axes[k])
        w = reshape(transpose(w, order), tuple(a_shape[i] if i in axes else 1 for i in range(len(a_shape))))
    # (in the operands' inexact dtype, as jax.numpy's: integer weights' sum is returned as a float too)
    dtype = inexact_dtype(_weak_dtype(a), _weak_dtype(w))  # (int32 operands: float32 also under x64)
    a, w = astype(a, dtype), astype(w, dtype)
    total = sum(multiply(a, w), axis=axis, keepdims=keepdims)
    scale = sum(broadcast_to(w, a_shape), axis=axis, keepdims=keepdims)
    avg = divide(total, scale)
    return (avg, broadcast_to(scale, shape(avg))) if returned else avg


def array_split(ary, indices_or_sections, axis=0):
    """``jax.numpy.array_split``: as ``split``, but ``n`` sections need not be equal (the first ones one longer)."""
    if isinstance(indices_or_sections, (int, np.integer)) and not isinstance(indices_or_sections, bool):
        n = int(indices_or_sections)
        if n <= 0:
            raise ValueError(f"tj.numpy.array_split: the number of sections must be larger than 0, got {n}")
        length = shape(ary)[_check_axis("array_split", axis, ndim(ary))]
        each, extra = builtins.divmod(length, n)  # (divmod is this module's tj.numpy.divmod)
        indices_or_sections = [int(i) for i in np.cumsum([each + 1] * extra + [each] * (n - extra))[:-1]]
    return split(ary, indices_or_sections, axis=axis)


def hsplit(ary, indices_or_sections):
    """``jax.numpy.hsplit``: ``split`` along axis 1 (axis 0 for a 1-d array)."""
    return split(ary, indices_or_sections, axis=0 if ndim(ary) == 1 else 1)


def vsplit(ary, indices_or_sections):
    """``jax.numpy.vsplit``: ``split`` along axis 0 (of an array of rank >= 2)."""
    if ndim(ary) < 2:
        raise ValueError(f"tj.numpy.vsplit only works on arrays of rank 2 or more, got shape {shape(ary)}")
    return split(ary, indices_or_sections, axis=0)


def dsplit(ary, indices_or_sections):
    """``jax.numpy.dsplit``: ``split`` along axis 2 (of an array of rank >= 3)."""
    if ndim(ary) < 3:
        raise ValueError(f"tj.numpy.dsplit only works on arrays of rank 3 or more, got shape {shape(ary)}")
    return split(ary, indices_or_sections, axis=2)


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """``jax.numpy.nansum``: NaN entries count as 0 and get gradient 0 (so do those ``where`` leaves out)."""
    _no_out("nansum", out)
    _check_initial("nansum", initial)
    axis = _checked_axes("nansum", a, axis)
    if where is not None:
        a = _masked("nansum", a, where, 0)
    if dtype is not None:  # (NaNs zeroed, then sum's dtype rules: int8 stays int8, bool is any, as jax.numpy's)
        a = convert_to_tensor(a)
        if jnp.issubdtype(a.dtype, jnp.inexact):
            a = _nan_filled(a, 0)
        return sum(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial)
    result = _nansum(a, axis=axis, keepdims=keepdims)
    return result if initial is None else add(result, initial)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    """``jax.numpy.nanmean``: the mean of the entries that are not NaN (and that ``where`` selects)."""
    _no_out("nanmean", out)
    axis = _checked_axes("nanmean", a, axis)
    if where is not None:
        a = _masked("nanmean", a, where, jnp.nan)
    result = _nanmean(a, axis=axis, keepdims=keepdims)
    return result if dtype is None else astype(result, dtype)


def count_nonzero(a, axis=None, keepdims=False):
    """``jax.numpy.count_nonzero`` (not differentiable)."""
    return apply(_count_nonzero, (a,), {"axis": _checked_axes("count_nonzero", a, axis), "keepdims": keepdims})


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``jax.numpy.isclose`` (not differentiable)."""
    return apply(_isclose, (a, b), {"rtol": rtol, "atol": atol, "equal_nan": equal_nan})


def full_like(a, fill_value, dtype=None, shape=None, *, device=None, out_sharding=None):
    """``jax.numpy.full_like``: a constant of ``a``'s shape (or ``shape``; ``a`` is not differentiated); a Tensor
    ``fill_value`` is (as ``full``). ``device`` or ``out_sharding`` places the result, as jax.numpy's."""
    if shape is None and _duck_typed(a):
        shape = tuple(a.shape)
    if shape is not None:
        out = full(shape, fill_value, dtype=dtype or _dtype_of(a), device=device, out_sharding=out_sharding)
        if device is not None or out_sharding is not None or np.ndim(fill_value) != 0:
            return out  # (jax.numpy broadcasts a fill of several values, placed as it is)
        return _placed(out, _kept_sharding(a, out, shape))
    fill_value = _list_as_tensor(fill_value)
    if isinstance(fill_value, (Tensor, Variable)):
        if device is None and out_sharding is None:
            out = apply(_fill, (fill_value,), {"shape": _shape_of(a), "dtype": jnp.dtype(dtype or _dtype_of(a))})
            # (a scalar fill takes a's sharding, as jax.numpy's; a broadcast one is placed as it is)
            return out if np.ndim(fill_value) != 0 else _placed(out, _kept_sharding(a, out))
        fill = convert_to_tensor(fill_value)  # (a Variable read once)
        out = apply(_fill, (fill,), {"shape": _shape_of(a), "dtype": jnp.dtype(dtype or _dtype_of(a))})
        # placed by jax.numpy.full_like itself, on a's value (a scalar fill and a broadcast one are placed differently)
        like = (a.read_value() if isinstance(a, Variable) else a).value if isinstance(a, (Tensor, Variable)) else a
        return _placed(out, lambda v: jnp.full_like(like, fill.value, v.dtype, device=device,
                                                    out_sharding=out_sharding))
    return _create("full_like", lambda a, fill_value, dtype=None, **kw: jnp.full_like(jnp.asarray(a), fill_value,
                                                                                      dtype=dtype, **kw),
                   a, fill_value, dtype=dtype, **_placement_options(device, out_sharding))


def _list_as_tensor(value):
    """A list or tuple fill value as the Tensor tj.constant makes of it (API.md: lists are accepted wherever a
    Tensor is; jax.numpy's constructors refuse them): differentiated where it holds Tensors, as tf.fill; other
    values as they are."""
    if isinstance(value, (list, tuple)):
        return convert_to_tensor(value)
    return value


def _operand_dtype(a):
    """The dtype an op sees for ``a``: a Tensor's or Variable's, else tj.constant's for it (tj's conversion rules)."""
    return a.dtype if isinstance(a, (Tensor, Variable)) else convert_to_tensor(a).dtype


def _duck_typed(a) -> bool:
    """Whether ``a`` only describes an array, with ``shape`` and ``dtype`` (a ``jax.ShapeDtypeStruct``), which the
    like-functions take as jax.numpy's do."""
    return not isinstance(a, (Tensor, Variable, np.ndarray, np.generic, jax.Array, list, tuple)) and \
        hasattr(a, "shape") and hasattr(a, "dtype")


def _weak_dtype(a):
    """What ``jnp.result_type`` should see for an operand: a Python number itself (weakly typed, as jax.numpy
    promotes it: float16 array + 2.5 is float16), a weakly typed Tensor as a Python number of its kind (jax.numpy
    promotes its weakly typed arrays so), else its dtype."""
    if type(a) in (int, float, complex):
        return a
    if is_weakly_typed(a):
        return _WEAK_KIND[jnp.dtype(a.dtype).kind]
    return _dtype_of(a)


_WEAK_KIND = {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}  # (a weak value's kind, as a Python number)


def _dtype_of(a):
    if isinstance(a, (Tensor, Variable)):
        return a.dtype
    if isinstance(a, (list, tuple)):  # (jnp.result_type refuses a list; its array's dtype, as the like-functions')
        return jnp.asarray(a).dtype
    return jnp.result_type(a)


# Constants built from a value: differentiable in it when it is a Tensor (their surfaces, full and linspace above);
# kernels derived by JAX (fill's gradient is the sum, linspace's the weights of start and stop). Their samples are
# fixed values, not draws from _rng: the samples of the ops declared after them stay as they were.
_fill = OpDef("fill", lambda value, *, shape, dtype: jnp.full(shape, value, dtype),
              samples=_samples(((np.asarray(0.7, np.float32),), {"shape": (2, 3), "dtype": None}),
                               ((np.asarray([0.5, -1.0], np.float32),), {"shape": (3, 2), "dtype": None})))
_linspace = OpDef("linspace", lambda start, stop, **params: jnp.linspace(start, stop, **params),
                  samples=_samples(((np.asarray(0.5, np.float32), np.asarray(2.0, np.float32)),
                                    {"num": 4, "endpoint": True, "retstep": False, "dtype": None, "axis": 0}),
                                   ((np.asarray([0.0, 1.0], np.float32), np.asarray(3.0, np.float32)),
                                    {"num": 3, "endpoint": False, "retstep": True, "dtype": None, "axis": 1})))

# (declared last, like the ops above it: samples drawn from _rng at import keep the draws of earlier ops)
_copy = _unary("copy", jnp.copy, lambda x, y: jnp.ones_like(x))


def copy(a, order=None, name=None):
    """``jax.numpy.copy``: a new Tensor with ``a``'s value (TF's ``tf.identity``, also ``tj.identity``), recorded:
    its gradient passes through unchanged. ``order``: None or ``'K'``, as jax.numpy's (others raise
    ``NotImplementedError``)."""
    if order is not None:
        _check_order_k("copy", order)
    return _copy(a)


def _check_order_k(name: str, order) -> None:
    """jax.numpy's ``order=`` of ``array``, ``asarray`` and ``copy``: only ``'K'`` (or None) is implemented; any
    other value raises ``NotImplementedError``, as jax.numpy's."""
    if order is not None and order != "K":
        raise NotImplementedError(f"tj.numpy.{name}: only order='K' (or None) is implemented, as jax.numpy.{name}'s; "
                                  f"got order={order!r}. Arrays have no memory layout to choose: drop the argument.")


# -- more of jax.numpy, composed of the ops above (so every path differentiates them with tapejax's rules) ---------

def ptp(a, axis=None, out=None, keepdims=False):
    """``jax.numpy.ptp``: ``max - min`` along ``axis`` (ties share the gradient, as ``max``/``min``)."""
    _no_out("ptp", out)
    return subtract(max(a, axis=axis, keepdims=keepdims), min(a, axis=axis, keepdims=keepdims))


def _nan_filled(a, fill):
    """``a`` with its NaNs replaced by ``fill`` (their gradient is zero: they take no part)."""
    a = convert_to_tensor(a)
    return where(isnan(a), full_like(a, fill), a)


def _nan_extreme(name: str, reduce: Callable, fill: float, a, axis, out, keepdims, initial, where_):
    _no_out(name, out)
    a = convert_to_tensor(a)
    if not jnp.issubdtype(a.dtype, jnp.inexact):
        return reduce(a, axis=axis, keepdims=keepdims, initial=initial, where=where_)
    result = reduce(_nan_filled(a, fill), axis=axis, keepdims=keepdims, initial=initial, where=where_)
    if initial is not None:  # (the initial value counts: an all-NaN, empty or masked slice gives it, as jax.numpy's)
        return result
    # an all-NaN slice gives NaN (as jax.numpy), not the fill
    all_nan = all(isnan(a), axis=axis, keepdims=keepdims, where=where_)
    return where(all_nan, full_like(result, np.nan), result)


def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """``jax.numpy.nanmax``: ``max`` ignoring NaNs (NaN for an all-NaN slice)."""
    return _nan_extreme("nanmax", max, -np.inf, a, axis, out, keepdims, initial, where)


def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """``jax.numpy.nanmin``: ``min`` ignoring NaNs (NaN for an all-NaN slice)."""
    return _nan_extreme("nanmin", min, np.inf, a, axis, out, keepdims, initial, where)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """``jax.numpy.nanprod``: ``prod`` with NaNs counted as 1."""
    _no_out("nanprod", out)
    a = convert_to_tensor(a)
    if jnp.issubdtype(a.dtype, jnp.inexact):
        a = _nan_filled(a, 1)
    return prod(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None):
    """``jax.numpy.nanvar``: the variance of the entries that are not NaN (and selected by ``where``); NaN, with a
    zero gradient, where fewer than ``ddof + 1`` entries count. ``mean``: the mean to measure from (shaped as with
    keepdims=True), when already known, as jax.numpy's (differentiable in it too)."""
    _no_out("nanvar", out)
    if where is not None and convert_to_tensor(where).dtype != jnp.bool_:
        raise ValueError(f"tj.numpy.nanvar: where must be None or a boolean array, got "
                         f"{convert_to_tensor(where).dtype} (as jax.numpy's)")
    return _nanvar(convert_to_tensor(a), axis, dtype, ddof, keepdims, where, mean)


def _nanvar(a, axis, dtype, ddof, keepdims, selected, mean=None):
    if dtype is not None:  # (a complex a and a real dtype: measured in complex, given in dtype, as var's)
        compute, result_dtype = _spread_dtypes("nanvar", a, dtype)
        if compute != result_dtype:
            return astype(_nanvar(a, axis, compute, ddof, keepdims, selected, mean), result_dtype)
        a = astype(a, dtype)
    else:
        a = _inexact(a)
    counted = logical_not(isnan(a))
    if selected is not None:
        counted = logical_and(counted, selected)
    if mean is not None:  # (in the dtype the variance is computed in, as jax.numpy's)
        mean = convert_to_tensor(mean)
        mean = mean if mean.dtype == a.dtype else astype(mean, a.dtype)
    # NaNs as 0 before any arithmetic: an excluded NaN would make the gradient 0 * NaN
    axis = _checked_axes("nanvar", a, axis)
    result = _variance(_nan_filled(a, 0), axis, ddof, keepdims, counted, mean, too_few_is_nan=True)
    return result if dtype is None or result.dtype == dtype else astype(result, dtype)  # (in dtype, as jax.numpy's)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None):
    """``jax.numpy.nanstd``: ``sqrt(nanvar)`` (the same arguments)."""
    return sqrt(nanvar(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims, where=where, mean=mean))


def nancumsum(a, axis=None, dtype=None, out=None):
    """``jax.numpy.nancumsum``: ``cumsum`` with NaNs counted as 0."""
    _no_out("nancumsum", out)
    a = convert_to_tensor(a)
    return cumsum(_nan_filled(a, 0) if jnp.issubdtype(a.dtype, jnp.inexact) else a, axis=axis, dtype=dtype)


def nancumprod(a, axis=None, dtype=None, out=None):
    """``jax.numpy.nancumprod``: ``cumprod`` with NaNs counted as 1."""
    _no_out("nancumprod", out)
    a = convert_to_tensor(a)
    return cumprod(_nan_filled(a, 1) if jnp.issubdtype(a.dtype, jnp.inexact) else a, axis=axis, dtype=dtype)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """``jax.numpy.cumulative_prod``: as ``cumulative_sum``, with products (``include_initial`` puts a 1 first)."""
    return _cumulative("cumulative_prod", cumprod, ones, x, axis, dtype, include_initial)


_QUANTILE_METHODS = ("linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf")


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    """``jax.numpy.quantile``: the ``q`` quantiles (values in [0, 1]; a Tensor ``q`` is differentiable, and may be
    traced inside a tj.function, as jax.numpy's) along ``axis`` (an int, a tuple, or None for all), by ``method``
    (linear, lower, higher, nearest, midpoint, inverted_cdf).
    ``weights`` (of ``a``'s shape, or of the reduced axes'): each entry's weight, with ``method='inverted_cdf'``
    only (others raise ``NotImplementedError``, as jax.numpy's); a negative or NaN weight makes the slice's
    quantiles NaN. Built from ``sort``/``argsort`` and ``take``: the gradient reaches the sorted entries the result
    interpolates (the weights only choose entries: no gradient). ``out`` and ``overwrite_input=True`` raise
    ``ValueError``, as jax.numpy's."""
    return _quantile("quantile", a, q, axis, out, overwrite_input, method, keepdims, weights, skip_nan=False)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    """``jax.numpy.nanquantile``: ``quantile`` of the entries that are not NaN (NaN for an all-NaN slice)."""
    return _quantile("nanquantile", a, q, axis, out, overwrite_input, method, keepdims, weights, skip_nan=True)


def _quantile(name: str, a, q, axis, out, overwrite_input, method, keepdims, weights, skip_nan: bool):
    if overwrite_input or out is not None:
        raise ValueError(f"tj.numpy.{name} does not support overwrite_input=True or out != None (as jax.numpy's): "
                         "arrays are immutable, use the returned Tensor")
    if method not in _QUANTILE_METHODS:
        raise ValueError(f"tj.numpy.{name}: method must be one of {_QUANTILE_METHODS}, got {method!r}")
    a = convert_to_tensor(a)
    if weights is not None:
        weights = convert_to_tensor(weights)
        if jnp.issubdtype(weights.dtype, jnp.complexfloating):
            raise ValueError(f"tj.numpy.{name}: weights cannot be complex (as jax.numpy's), got {weights.dtype}")
        if method != "inverted_cdf":
            raise NotImplementedError(f"tj.numpy.{name}: method {method!r} doesn't support weights; only "
                                      "method='inverted_cdf' does (as jax.numpy's)")
        dt = inexact_dtype(a.dtype, weights.dtype)
        a, weights = _cast(a, dt), _cast(weights, dt)
    a = _inexact(a)
    # q given as a Tensor stays one (differentiable, and possibly traced); its values are checked when known
    # (a jax array, or a value traced by a JAX transformation of tapejax code, is an array operand too)
    q = astype(q, a.dtype) if isinstance(q, (Tensor, Variable, jax.Array, jax.core.Tracer)) \
        else np.asarray(q, dtype=a.dtype)
    known = q if isinstance(q, np.ndarray) else _concrete_on_host(q)
    if ndim(q) > 1:
        raise ValueError(f"tj.numpy.{name}: q must be a scalar or 1-d (as jax.numpy's), got shape {shape(q)}")
    if known is not None and not np.all((known >= 0) & (known <= 1)):
        raise ValueError(f"tj.numpy.{name}: q must be in [0, 1] (percentile: [0, 100]), got {known.tolist()}")
    nd, a_shape = ndim(a), shape(a)
    axes = tuple(range(nd)) if axis is None else tuple(
        _check_axis(name, ax, nd) for ax in (axis if isinstance(axis, (tuple, list)) else (axis,)))
    rest = [i for i in range(nd) if i not in axes]
    # the reduced axes last, as one: (kept dims..., n), sorted (NaNs last)
    flat = reshape(transpose(a, rest + list(axes)), tuple(a_shape[i] for i in rest) + (-1,))
    if method == "inverted_cdf":
        w = None if weights is None else _quantile_weights(name, weights, a_shape, axis, axes)
        result = _inverted_cdf(flat, None if w is None else reshape(transpose(w, rest + list(axes)), shape(flat)),
                               q, skip_nan)
    else:
        result = _interpolated_quantile(flat, q, method, skip_nan)
    # (kept dims..., q) -> q's shape, then the kept dims (with the reduced ones as 1 under keepdims)
    result = moveaxis(result, -1, 0)
    kept = [1 if i in axes else d for i, d in enumerate(a_shape)] if keepdims else [a_shape[i] for i in rest]
    return reshape(result, shape(q) + tuple(kept))


def _interpolated_quantile(flat, q, method: str, skip_nan: bool):
    """The ``q`` quantiles of each slice of ``flat`` (kept dims..., n) by an interpolating ``method``: (kept dims...,
    q)."""
    ordered = sort(flat, axis=-1)
    # each slice's entries counted (all, or those not NaN), and the positions of the quantiles among them, as index
    # Tensors (kept dims..., q), computed in a's dtype as jax.numpy's
    counts = sum(astype(logical_not(isnan(flat)), flat.dtype), axis=-1, keepdims=True) if skip_nan else \
        full(shape(flat)[:-1] + (1,), shape(flat)[-1], flat.dtype)
    last = subtract(counts, 1)
    pos = multiply(last, ravel(q))
    low_f = floor(pos)
    high_w = subtract(pos, low_f)
    low = astype(clip(low_f, 0, last), jnp.int32)
    high = astype(clip(ceil(pos), 0, last), jnp.int32)
    low_v, high_v = take_along_axis(ordered, low, -1), take_along_axis(ordered, high, -1)
    if method == "linear":
        result = add(multiply(low_v, subtract(1, high_w)), multiply(high_v, high_w))
    elif method == "lower":
        result = low_v
    elif method == "higher":
        result = high_v
    elif method == "nearest":
        result = where(high_w <= 0.5, low_v, high_v)
    else:  # midpoint
        result = multiply(add(low_v, high_v), 0.5)
    if not skip_nan:  # a slice holding a NaN has NaN quantiles (as NumPy and jax.numpy)
        result = where(any(isnan(flat), axis=-1, keepdims=True), full_like(result, np.nan), result)
    return result


def _quantile_weights(name: str, weights, a_shape: tuple, axis, axes: tuple):
    """``weights`` of ``a``'s shape, or of the reduced axes' (in ``axis``'s order), broadcast to ``a``'s shape; other
    shapes raise ``ValueError``, as jax.numpy's."""
    w_shape = shape(weights)
    if w_shape == a_shape:
        return weights
    if axis is None:
        raise ValueError(f"tj.numpy.{name}: weights of shape {w_shape} must have a's shape {a_shape} when axis is "
                         "None (as jax.numpy's)")
    if w_shape != tuple(a_shape[ax] for ax in axes):
        raise ValueError(f"tj.numpy.{name}: weights of shape {w_shape} must have a's shape {a_shape} or that of the "
                         f"reduced axes {tuple(a_shape[ax] for ax in axes)} (as jax.numpy's)")
    weights = transpose(weights, tuple(int(i) for i in np.argsort(axes)))  # (the reduced axes in a's order)
    weights = reshape(weights, tuple(d if i in axes else 1 for i, d in enumerate(a_shape)))
    return broadcast_to(weights, a_shape)


def _inverted_cdf(flat, w, q, skip_nan: bool):
    """The ``q`` quantiles of each slice of ``flat`` (kept dims..., n) by ``method='inverted_cdf'``, with the weights
    ``w`` of ``flat``'s shape (None: 1 each): the first entry, in sorted order, whose cumulative weight reaches ``q``
    of the slice's total, as jax.numpy's. NaN where a weight is negative or NaN, and where the slice holds a NaN
    (``skip_nan``: where it holds nothing else). Returns (kept dims..., q)."""
    order = argsort(flat, axis=-1)  # (stable: tied entries keep their order, with their weights)
    ordered = take_along_axis(flat, order, -1)
    w = ones_like(ordered) if w is None else take_along_axis(w, order, -1)
    nan_data = isnan(ordered)
    bad = logical_or(less(w, 0), isnan(w))
    cumulative = cumsum(where(logical_or(bad, nan_data), zeros_like(w), w), axis=-1)
    targets = multiply(cumulative[..., -1:], ravel(q))  # (kept dims..., q)
    before = less(expand_dims(cumulative, -2), expand_dims(targets, -1))  # (kept dims..., q, n)
    index = sum(astype(before, jnp.int32), axis=-1)
    n = shape(flat)[-1]
    valid = sum(astype(logical_not(nan_data), jnp.int32), axis=-1, keepdims=True) if skip_nan else n
    index = maximum(minimum(index, subtract(valid, 1)), 0)  # (in range: 0 for a slice with no entry counted)
    result = take_along_axis(ordered, index, -1)
    nan_slice = any(bad, axis=-1, keepdims=True)
    nan_slice = logical_or(nan_slice, equal(valid, 0) if skip_nan else any(nan_data, axis=-1, keepdims=True))
    return where(nan_slice, full_like(result, np.nan), result)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None,
               out_sharding=None):
    """``jax.numpy.percentile``: ``quantile`` at ``q / 100`` (``out_sharding``: the result's sharding, by
    ``jax.device_put``)."""
    result = quantile(a, _percent(q), axis=axis, out=out, overwrite_input=overwrite_input, method=method,
                      keepdims=keepdims, weights=weights)
    return result if out_sharding is None else _placed(result, _placement("percentile", None, out_sharding))


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                  weights=None):
    """``jax.numpy.nanpercentile``: ``nanquantile`` at ``q / 100``."""
    return nanquantile(a, _percent(q), axis=axis, out=out, overwrite_input=overwrite_input, method=method,
                       keepdims=keepdims, weights=weights)


def _percent(q):
    return divide(q, 100) if isinstance(q, (Tensor, Variable)) else np.asarray(q) / 100


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """``jax.numpy.nanmedian``: ``nanquantile`` at 0.5 by the midpoint method."""
    return nanquantile(a, 0.5, axis=axis, out=out, method="midpoint", keepdims=keepdims)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """``jax.numpy.median``: ``quantile`` at 0.5 by the midpoint method."""
    return quantile(a, 0.5, axis=axis, out=out, method="midpoint", keepdims=keepdims)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """``jax.numpy.cross``: the cross product of vectors of 3 (or 2: the z component) along ``axisa``/``axisb``,
    broadcast over the other axes; ``axis`` sets all three axes."""
    if axis is not None:
        axisa = axisb = axisc = axis
    dtype = jnp.result_type(_weak_dtype(a), _weak_dtype(b))
    if not (is_weakly_typed(a) and is_weakly_typed(b)):  # (promoted first, as jax.numpy's: strongly typed)
        a, b = (astype(x, dtype) if is_weakly_typed(x) or _dtype_of(x) != dtype else x for x in (a, b))
    a, b = moveaxis(convert_to_tensor(a), axisa, -1), moveaxis(convert_to_tensor(b), axisb, -1)
    if shape(a)[-1] not in (2, 3) or shape(b)[-1] not in (2, 3):
        raise ValueError(f"tj.numpy.cross: the vectors must have 2 or 3 components, got shapes {shape(a)} and "
                         f"{shape(b)} (the vector axis moved last)")
    # a missing third component is 0
    a0, a1, a2 = a[..., 0], a[..., 1], (a[..., 2] if shape(a)[-1] == 3 else None)
    b0, b1, b2 = b[..., 0], b[..., 1], (b[..., 2] if shape(b)[-1] == 3 else None)
    z = subtract(multiply(a0, b1), multiply(a1, b0))
    if a2 is None and b2 is None:
        return z
    if a2 is None:
        x, y = multiply(a1, b2), negative(multiply(a0, b2))
    elif b2 is None:
        x, y = negative(multiply(a2, b1)), multiply(a2, b0)
    else:
        x, y = subtract(multiply(a1, b2), multiply(a2, b1)), subtract(multiply(a2, b0), multiply(a0, b2))
    return moveaxis(stack([x, y, z], axis=-1), -1, axisc)


def hypot(x1, x2):
    """``jax.numpy.hypot``: ``sqrt(x1**2 + x2**2)`` computed as jax.numpy does (scaled by the larger magnitude, so
    that it neither overflows nor underflows; 0 at the origin, with gradient 0 there)."""
    weak = [_weak_dtype(a) for a in (x1, x2)]  # (before conversion: float16 x with 1.0 is float16, as jax.numpy's)
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    if jnp.iscomplexobj(x1.value) or jnp.iscomplexobj(x2.value):
        raise ValueError("tj.numpy.hypot is not well defined for complex-valued inputs (as jax.numpy's); pass "
                         "abs(x1) and abs(x2) for the magnitudes' hypotenuse")
    dt = inexact_dtype(*weak)
    # (float16 and bfloat16 in float32, rounded once, as NumPy's half hypot: in the half type the scaled sum was
    # 1.5 ulps off on 15% of pairs, hypot(-5.84, 0.961) 5.875 in bfloat16 where the value rounds to 5.9375)
    work = jnp.float32 if dt in _HALF else dt
    x1, x2 = (x if x.dtype == work else astype(x, work) for x in (x1, x2))
    # The operands keep their signs: |big| * sqrt(1 + (small / big)**2) is smooth where big is not 0, so every
    # order of derivative is hypot's (abs of the smaller one made its second derivative 0 where it is 0).
    # (selected, not maximum/minimum: at a tie those give x1 the whole gradient, TF's rule, where hypot's
    # derivative is shared)
    swap = abs(x2) > abs(x1)
    big, small = where(swap, x2, x1), where(swap, x1, x2)
    zero = big == 0
    safe = where(zero, ones_like(big), big)
    r = multiply(abs(safe), sqrt(add(1.0, square(divide(small, safe)))))
    # (at big == 0 small is 0 or NaN: a NaN is not larger than 0, so the comparison left it as small)
    r = where(zero, where(isnan(small), small, zeros_like(r)), r)
    r = where(logical_or(isinf(x1), isinf(x2)), full_like(r, np.inf), r)
    return r if work == dt else astype(r, dt)


@jax.custom_jvp
def _sinc_fn(x):
    return jnp.sinc(x)


def _sinc_derivative(x):
    """d sinc / dx. Away from 0, (cos(pi x) - sinc(x)) / x; within |pi x| < 1, where that difference cancels to
    rounding (jax.numpy's derivative of sinc, the quotient rule of sin(pi x) / (pi x), is -inf at 1e-30, -8.6e11 at
    1e-19 and 200x too large at 1e-5 in float32), the Maclaurin series pi * f'(pi x) of f(y) = sin(y) / y, whose
    terms past y**9 are below float32's rounding there: every order of derivative at and near 0 (the second
    -pi**2 / 3 at 0, the fourth pi**4 / 5) is right. Each branch runs on values safe for it (no NaN from the other
    in a derivative)."""
    y = jnp.pi * x
    small = jnp.abs(y) < 1
    ys = jnp.where(small, y, 0)
    y2 = ys * ys
    # (coefficients as products: a divisor past 65504 would overflow float16 when cast)
    series = jnp.pi * ys * (-1 / 3 + y2 * (1 / 30 + y2 * (-1 / 840 + y2 * (1 / 45360 - y2 * (1 / 3991680)))))
    xl = jnp.where(small, 1, x)
    return jnp.where(small, series, (jnp.cos(jnp.pi * xl) - _sinc_fn(xl)) / xl)


@_sinc_fn.defjvp
def _sinc_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _sinc_fn(x), t * _sinc_derivative(x)


# jax.numpy's values, with a derivative of its own (_sinc_derivative: jax.numpy's is rounding near 0, and TF's
# composite's too: 0 at 1e-5 where the derivative is -3.3e-5, NaN at 0); not drawn from _rng (later samples stay)
_sinc = OpDef("sinc", _sinc_fn, samples=_samples(
    ((np.array([[0.0, 0.3, -1.2], [2.5, -0.0, 0.7]], np.float32),), {}),
    ((np.array([1e-30, -1e-19, 1e-5, -0.31, 0.33, 1e-3], np.float32),), {})))


def sinc(x):
    """``jax.numpy.sinc``: ``sin(pi x) / (pi x)``, 1 at 0, with derivatives of every order accurate at and near 0
    (jax.numpy's own derivative cancels to rounding for small ``x``: -inf at 1e-30)."""
    return _sinc(_inexact(x))


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """``jax.numpy.nan_to_num``: NaN, +inf and -inf replaced (by default with 0 and the dtype's largest and
    smallest finite values); the gradient passes where the value was finite."""
    x = convert_to_tensor(x)
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        return x
    if jnp.issubdtype(x.dtype, jnp.complexfloating):
        return add(nan_to_num(real(x), nan=nan, posinf=posinf, neginf=neginf),
                   multiply(nan_to_num(imag(x), nan=nan, posinf=posinf, neginf=neginf), 1j))
    info = jnp.finfo(x.dtype)
    big = info.max if posinf is None else posinf
    small = info.min if neginf is None else neginf
    out = where(isnan(x), full_like(x, nan), x)
    out = where(out == np.inf, full_like(x, big), out)
    return where(out == -np.inf, full_like(x, small), out)


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    """``jax.numpy.cov``: the covariance matrix of the variables (rows, or columns with ``rowvar=False``) of
    ``m`` (and ``y``), with integer frequency weights ``fweights`` and analytic weights ``aweights`` per observation
    (their absolute values, as jax.numpy's), computed in ``dtype`` (an inexact dtype: others raise ``ValueError``,
    as jax.numpy's) when given. No observations give NaN, no variables a (0, 0) result, as jax.numpy's."""
    if dtype is not None and not jnp.issubdtype(as_dtype("cov", dtype), jnp.inexact):
        raise ValueError(f"tj.numpy.cov: dtype must be a float or complex dtype (as jax.numpy.cov's), got "
                         f"{_dtype_name(dtype)}")
    if ddof is not None and not isinstance(ddof, (int, np.integer)):
        raise TypeError(f"tj.numpy.cov: ddof must be an integer, got {ddof!r}")
    if ndim(m) > 2 or (y is not None and ndim(y) > 2):
        raise ValueError(f"tj.numpy.cov: m and y must have at most 2 dimensions (variables x observations), got "
                         f"shapes {shape(m)}" + ("" if y is None else f" and {shape(y)}"))
    m = convert_to_tensor(m)
    x = atleast_2d(m)
    if not rowvar and ndim(m) != 1:
        x = transpose(x)
    if shape(x)[0] == 0:  # (no variables: jax.numpy's and NumPy's empty array, of the default float whatever m's is)
        return zeros((0, 0), jnp.result_type(float))
    if y is not None:
        y = atleast_2d(convert_to_tensor(y))
        if not rowvar and shape(y)[0] != 1:
            y = transpose(y)
        x = concatenate([x, y], axis=0)
    x = _inexact(x)
    n_vars, n_obs = shape(x)
    if n_obs == 0:
        return full(() if n_vars == 1 else (n_vars, n_vars), np.nan, x.dtype)
    d = (0 if bias else 1) if ddof is None else ddof
    w = None
    if fweights is not None:
        fweights = convert_to_tensor(fweights)
        _check_cov_weights("fweights", fweights, n_obs)
        if not jnp.issubdtype(fweights.dtype, jnp.integer):
            raise TypeError(f"tj.numpy.cov: fweights must be integer, got dtype {fweights.dtype}")
        w = abs(fweights)
    if aweights is not None:
        aweights = convert_to_tensor(aweights)
        _check_cov_weights("aweights", aweights, n_obs)
        aweights = abs(aweights)
        w = aweights if w is None else multiply(w, aweights)
    if dtype is not None:
        x = astype(x, dtype)
        w = None if w is None else astype(w, dtype)
    if w is None:
        mu, f = mean(x, axis=1, keepdims=True), np.asarray(n_obs - d, x.dtype)
    else:
        x = _cast(x, inexact_dtype(x.dtype, w.dtype))  # (average's promotion, as jax.numpy's: float16, int16: float16)
        w_sum = sum(_cast(w, x.dtype))
        mu = expand_dims(divide(matmul(x, astype(w, x.dtype)), w_sum), 1)
        if d == 0:
            f = w_sum
        elif aweights is None:
            f = subtract(w_sum, d)
        else:
            f = subtract(w_sum, divide(multiply(d, sum(multiply(w, aweights))), w_sum))
    centered = subtract(x, mu)
    weighted = centered if w is None else multiply(centered, w)
    return squeeze(divide(matmul(centered, transpose(conj(weighted))), f))


def _check_cov_weights(name: str, w, n_obs: int) -> None:
    if ndim(w) > 1:  # (jax.numpy's class: RuntimeError)
        raise RuntimeError(f"tj.numpy.cov: cannot handle multidimensional {name} (shape {shape(w)})")
    if ndim(w) == 0 or shape(w)[0] != n_obs:
        raise RuntimeError(f"tj.numpy.cov: incompatible numbers of samples and {name}: {n_obs} observations, "
                           f"{name} of shape {shape(w)}")


def corrcoef(x, y=None, rowvar=True, dtype=None):
    """``jax.numpy.corrcoef``: ``cov`` normalized by the standard deviations (entries clipped to [-1, 1], as
    jax.numpy's), computed in ``dtype`` (inexact: others raise ``ValueError``, as jax.numpy's) when given."""
    if dtype is not None and not jnp.issubdtype(as_dtype("corrcoef", dtype), jnp.inexact):
        raise ValueError(f"tj.numpy.corrcoef: dtype must be a float or complex dtype (as jax.numpy.corrcoef's), got "
                         f"{_dtype_name(dtype)}")
    c = cov(x, y, rowvar, dtype=dtype)
    if ndim(c) == 0:
        return divide(c, c)
    d = diagonal(c)
    stddev = sqrt(real(d)) if jnp.issubdtype(c.dtype, jnp.complexfloating) else sqrt(d)
    c = divide(divide(c, stddev[:, None]), stddev[None, :])
    if jnp.issubdtype(c.dtype, jnp.complexfloating):
        return add(clip(real(c), -1, 1), multiply(clip(imag(c), -1, 1), 1j))
    return clip(c, -1, 1)


def fmax(x1, x2):
    """``jax.numpy.fmax``: ``maximum`` that ignores a NaN operand (NaN only where both are); a tie selects ``x2``,
    as jax.numpy's."""
    return where(logical_or(greater(x1, x2), isnan(x2)), x1, x2)


def fmin(x1, x2):
    """``jax.numpy.fmin``: ``minimum`` that ignores a NaN operand (NaN only where both are); a tie selects ``x2``,
    as jax.numpy's."""
    return where(logical_or(less(x1, x2), isnan(x2)), x1, x2)


def float_power(x, y):
    """``jax.numpy.float_power``: ``power`` computed in the inexact dtype of the operands (a Python number weakly
    typed: float_power(float16, 2.5) is float16, as jax.numpy's)."""
    dt = inexact_dtype(_weak_dtype(x), _weak_dtype(y))
    return power(_cast(x, dt), _cast(y, dt))


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """``jax.numpy.vecdot``: ``sum(conj(x1) * x2)`` along ``axis``, broadcast over the others."""
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    x1, x2 = moveaxis(x1, axis, -1), moveaxis(x2, axis, -1)
    return einsum("...i,...i->...", conj(x1), x2, precision=precision,
                  preferred_element_type=preferred_element_type)


def matvec(x1, x2, /):
    """``jax.numpy.matvec``: matrix (``x1[..., m, n]``) times vector (``x2[..., n]``), broadcast over the rest."""
    return squeeze(matmul(x1, expand_dims(x2, -1)), -1)


def vecmat(x1, x2, /):
    """``jax.numpy.vecmat``: conjugated vector (``x1[..., m]``) times matrix (``x2[..., m, n]``)."""
    return squeeze(matmul(expand_dims(conj(convert_to_tensor(x1)), -2), x2), -2)


def append(arr, values, axis=None):
    """``jax.numpy.append``: ``values`` after ``arr`` along ``axis`` (both flattened when it is None)."""
    if axis is None:
        return concatenate([ravel(arr), ravel(values)])
    return concatenate([arr, values], axis=axis)


def diagflat(v, k=0):
    """``jax.numpy.diagflat``: the matrix with the flattened ``v`` on its ``k``-th diagonal."""
    return diag(ravel(v), k)


def polyval(p, x, *, unroll=16):
    """``jax.numpy.polyval``: the polynomial with coefficients ``p`` (highest degree first) at ``x``, by Horner's
    scheme (``unroll`` is jax.numpy's compile hint, accepted)."""
    dtype = jnp.result_type(_weak_dtype(p), _weak_dtype(x))  # (a Python number x weakly typed, as jax.numpy's)
    p, x = _cast(p, dtype), _cast(x, dtype)
    y = zeros_like(x, dtype=dtype)
    for i in range(shape(p)[0]):
        y = add(multiply(y, x), p[i])
    return y


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """``jax.numpy.trapezoid``: the integral of ``y`` along ``axis`` by the trapezoidal rule, at sample points
    ``x`` (or spaced ``dx`` apart)."""
    if x is not None:  # (promoted together, as jax.numpy's promote_dtypes_inexact: int16 y, float16 x is float16)
        dt = inexact_dtype(_weak_dtype(y), _weak_dtype(x))
        y, x = _cast(y, dt), _cast(x, dt)
    y = _inexact(y)
    if x is None:
        widths = dx
        if ndim(dx) > 0:  # (an array of widths lines up with y's trailing axes, then moves as y's axis does)
            widths = reshape(dx, (1,) * (ndim(y) - ndim(dx)) + shape(dx))
            widths = moveaxis(widths, axis, -1)
            if shape(widths)[-1] == 1:  # (one width along the axis: each trapezoid's)
                widths = squeeze(widths, -1)
                y = moveaxis(y, axis, -1)
                return multiply(widths, subtract(sum(y, axis=-1), multiply(add(y[..., 0], y[..., -1]), 0.5)))
    else:
        x = convert_to_tensor(x)
        x = moveaxis(x, axis, -1) if ndim(x) > 1 else x
        widths = diff(x, axis=-1)
    y = moveaxis(y, axis, -1)
    return sum(multiply(multiply(add(y[..., 1:], y[..., :-1]), 0.5), widths), axis=-1)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``jax.numpy.logspace``: ``base ** linspace(start, stop)`` (differentiable in Tensor bounds, as linspace)."""
    exponents = linspace(start, stop, num, endpoint=endpoint, axis=axis)
    out = power(base, exponents) if isinstance(base, (Tensor, Variable)) else power(
        full_like(exponents, base), exponents)
    return out if dtype is None else astype(out, dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """``jax.numpy.geomspace``: ``num`` numbers spaced evenly on a log scale from ``start`` to ``stop`` (of one
    sign; a negative pair gives negative numbers)."""
    dt = inexact_dtype(_weak_dtype(start), _weak_dtype(stop))  # (promoted together: int16, float16 is float16)
    start, stop = _cast(start, dt), _cast(stop, dt)
    s = sign(start)
    out = multiply(s, logspace(log10(divide(start, s)), log10(divide(stop, s)), num, endpoint=endpoint, base=10.0))
    if axis != 0:
        out = moveaxis(out, 0, axis)
    return out if dtype is None else astype(out, dtype)


def select(condlist, choicelist, default=0):
    """``jax.numpy.select``: for each entry, the first choice whose condition holds, else ``default``."""
    if len(condlist) != len(choicelist):
        raise ValueError(f"tj.numpy.select: {len(condlist)} conditions for {len(choicelist)} choices; give one "
                         "condition per choice")
    if not condlist:
        raise ValueError("tj.numpy.select: condlist is empty")
    dt = jnp.result_type(*(_weak_dtype(c) for c in list(choicelist) + [default]))  # (jax.numpy's promotion)
    out = _cast(default, dt)
    for cond, choice in zip(reversed(condlist), reversed(choicelist)):
        out = where(cond, _cast(choice, dt), out)
    return out


def broadcast_arrays(*args):
    """``jax.numpy.broadcast_arrays``: each argument broadcast to their common shape (recorded: gradients are
    summed back)."""
    target = np.broadcast_shapes(*(shape(a) for a in args))
    return [broadcast_to(a, target) for a in args]


def broadcast_shapes(*shapes):
    """``jax.numpy.broadcast_shapes``."""
    return jnp.broadcast_shapes(*shapes)


def copysign(x1, x2):
    """``jax.numpy.copysign``: the magnitude of ``x1`` with the sign (bit) of ``x2``; differentiable in ``x1`` (as
    ``abs``: 0 at 0). Integers and bools give the default float, as jax.numpy's."""
    dtype = inexact_dtype(_weak_dtype(x1), _weak_dtype(x2))
    if jnp.issubdtype(dtype, jnp.complexfloating):
        raise TypeError("tj.numpy.copysign does not accept complex inputs (as jax.numpy's): the sign of a complex "
                        "number is not one bit")
    magnitude = abs(_cast(x1, dtype))
    return where(signbit(x2), negative(magnitude), magnitude)


# functions of values whose results have no gradient (indices, counts, booleans), as TF's NotDifferentiable ops
def _values_only(name: str, fn: Callable):
    op = _not_differentiable(name, fn)
    return lambda *args, **static: apply(op, args, {k: freeze(v) for k, v in static.items()})


_signbit = _values_only("signbit", jnp.signbit)
_heaviside = _values_only("heaviside", jnp.heaviside)
_allclose = _values_only("allclose", jnp.allclose)
_array_equal = _values_only("array_equal", jnp.array_equal)
_searchsorted = _values_only("searchsorted", jnp.searchsorted)
_digitize = _values_only("digitize", jnp.digitize)
_isin = _values_only("isin", jnp.isin)
_nanargmax = _values_only("nanargmax", jnp.nanargmax)
_nanargmin = _values_only("nanargmin", jnp.nanargmin)
_nonzero_sized = _values_only("nonzero", jnp.nonzero)
# (a fill_value array, a row with axis=, comes frozen as nested tuples: an array again for jax.numpy)
_unique_sized = _values_only("unique", lambda x, *, fill_value, **options: jnp.unique(
    x, fill_value=fill_value if fill_value is None or np.ndim(fill_value) == 0 else np.asarray(fill_value), **options))


def signbit(x):
    """``jax.numpy.signbit`` (not differentiable)."""
    return _signbit(x)


def heaviside(x1, x2):
    """``jax.numpy.heaviside``: 0 below 0, ``x2`` at 0, 1 above. Differentiable in ``x2``, which is the value where
    ``x1`` is 0 (as jax's and TF's tnp.heaviside); ``x1``'s gradient is None."""
    h = _heaviside(x1, x2)
    return where(equal(x1, 0), x2, h)


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``jax.numpy.allclose`` (a bool Tensor; not differentiable)."""
    return _allclose(a, b, rtol=rtol, atol=atol, equal_nan=bool(equal_nan))


def array_equal(a1, a2, equal_nan=False):
    """``jax.numpy.array_equal`` (a bool Tensor; not differentiable). Arrays of different shapes are not equal."""
    if shape(a1) != shape(a2):
        return convert_to_tensor(False)
    return _array_equal(a1, a2, equal_nan=bool(equal_nan))


def searchsorted(a, v, side="left", sorter=None, *, method="scan"):
    """``jax.numpy.searchsorted``: where the values ``v`` go in the sorted 1-d ``a`` (not differentiable)."""
    if side not in ("left", "right"):
        raise ValueError(f"tj.numpy.searchsorted: side must be 'left' or 'right', got {side!r}")
    if sorter is not None:
        a = take(a, sorter)
    return _searchsorted(a, v, side=side, method=method)


def digitize(x, bins, right=False, *, method=None):
    """``jax.numpy.digitize``: the bin of each value of ``x`` (not differentiable)."""
    return _digitize(x, bins, right=bool(right), method=method)


def isin(element, test_elements, assume_unique=False, invert=False, *, method="auto"):
    """``jax.numpy.isin`` (a bool Tensor; not differentiable)."""
    return _isin(element, test_elements, assume_unique=bool(assume_unique), invert=bool(invert), method=method)


def nanargmax(a, axis=None, out=None, keepdims=None):
    """``jax.numpy.nanargmax`` (not differentiable)."""
    _no_out("nanargmax", out)
    return _nanargmax(a, axis=_scan_axis("nanargmax", a, axis), keepdims=keepdims)


def nanargmin(a, axis=None, out=None, keepdims=None):
    """``jax.numpy.nanargmin`` (not differentiable)."""
    _no_out("nanargmin", out)
    return _nanargmin(a, axis=_scan_axis("nanargmin", a, axis), keepdims=keepdims)


def _concrete_values(name: str, a):
    """``a``'s values now (a result whose shape depends on them cannot be traced)."""
    values = _concrete_on_host(a)
    if values is None:
        raise TypeError(f"tj.numpy.{name}: its result's shape depends on the input's values, which are not known "
                        f"while tracing (inside tj.function or a JAX transformation); give size= to fix the "
                        "result's length")
    return values


def nonzero(a, *, size=None, fill_value=None):
    """``jax.numpy.nonzero``: a tuple of index Tensors, one per axis (not differentiable). Without ``size``, only
    where ``a``'s values are known (eagerly)."""
    if size is None:
        index = jax.dtypes.canonicalize_dtype(jnp.int64)  # (jax.numpy's index type: int32, or int64 under x64)
        return tuple(convert_to_tensor(i.astype(index)) for i in np.nonzero(_concrete_values("nonzero", a)))
    return tuple(_nonzero_sized(a, size=int(size), fill_value=freeze(fill_value)))


def flatnonzero(a, *, size=None, fill_value=None):
    """``jax.numpy.flatnonzero``: the indices of the nonzero entries of the flattened ``a``."""
    return nonzero(ravel(a) if size is not None else _known_flat("flatnonzero", a), size=size,
                   fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
    """``jax.numpy.argwhere``: the indices of the nonzero entries, one row each."""
    rows = stack(nonzero(atleast_1d(a), size=size, fill_value=fill_value), axis=-1)
    return rows if ndim(a) else rows[:, :0]  # (a 0-d input: one empty row if it is nonzero, as NumPy)


def _unique_gathered(name: str, ar, axis, equal_nan, size, fill_value, inverse: bool, known=None) -> list:
    """jax.numpy.unique's ``[values, index, (inverse,) counts]`` of ``ar``, the values gathered from the entries
    (rows, with ``axis``) where each first occurs, so they carry those entries' gradients, as jax.vjp of jax.numpy's
    gives; padding past ``size`` is ``fill_value``, which takes none. Unsized, ``ar``'s values must be known now
    (``known``, where the caller has them from the arguments ``ar`` was made of: see ``_known_flat``)."""
    options = {"return_index": True, "return_inverse": inverse, "return_counts": True, "axis": axis,
               "equal_nan": bool(equal_nan)}
    fill = None
    if size is not None:  # (a fixed length: traceable)
        size = as_index(static(size), f"tj.numpy.{name}: size must be an integer, got {size!r}")
        fill = freeze(fill_value)
        out = list(_unique_sized(ar, size=size, fill_value=fill, **options))
    else:  # (found now by jax.numpy's own unique: its order of complex NaNs is not NumPy's)
        values = _concrete_values(name, ar) if known is None else known
        try:
            found = jnp.unique(values, **options)
        except jax.errors.ConcretizationTypeError:  # (inside a trace closing over ``ar``: jax.numpy there is staged)
            with jax.ensure_compile_time_eval():
                found = jnp.unique(values, **options)
        out = [convert_to_tensor(o) for o in found]
    values, index, counts = out[0], out[1], out[-1]
    source = ar if axis is not None else ravel(ar)
    if _count_of(source) and _count_of(index):
        gathered = take(source, index, axis=0 if axis is None else axis)
        if fill is not None:  # (the padding is fill_value's, not an entry's)
            real = greater(counts, 0)
            if axis is not None:
                ax = _check_axis(name, axis, ndim(ar))
                real = reshape(real, tuple(-1 if k == ax else 1 for k in range(ndim(ar))))
            gathered = where(real, gathered, values)
        if jnp.issubdtype(values.dtype, jnp.complexfloating):  # (jax.numpy's unique makes each complex NaN nan+0j)
            gathered = where(isnan(gathered), values, gathered)
        out[0] = gathered
    return out


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True,
           size=None, fill_value=None, sorted=True):
    """``jax.numpy.unique``, where ``ar``'s values are known (eagerly: a traced input raises TypeError; ``size`` fixes
    the result's length as jax.numpy's). The values carry their first entries' gradients (``_unique_gathered``); the
    other results are not differentiable."""
    values, index, *rest = _unique_gathered("unique", ar, freeze(axis), equal_nan, size, fill_value,
                                            bool(return_inverse))
    counts = rest[-1]
    asked = [values]
    if return_index:
        asked.append(index)
    if return_inverse:
        asked.append(rest[0])
    if return_counts:
        asked.append(counts)
    return tuple(asked) if len(asked) > 1 else values


def _is_traced(v) -> bool:
    """Whether ``v`` is a Tensor or Variable whose value is traced (inside a tj.function or a jax transform)."""
    return isinstance(v, (Tensor, Variable)) and _concrete(v) is None


# eye and tri with a traced k (an operand: the shape is static, the band is not)
_band = _values_only("band", lambda k, *, kind, N, M, dtype: (jnp.eye if kind == "eye" else jnp.tri)(N, M, k,
                                                                                                        dtype=dtype))


def tri(N, M=None, k=0, dtype=None):
    """``jax.numpy.tri``: ones on and below the ``k``-th diagonal (``k`` may be traced, as jax.numpy's)."""
    N, M, dtype = static(N), static(M), dtype or jnp.float32
    if _is_traced(k):
        return _band(k, kind="tri", N=N, M=M, dtype=as_dtype("tri", dtype))
    return _create("tri", jnp.tri, N, M, static(k), dtype)


def triu_indices(n, k=0, m=None):
    """``jax.numpy.triu_indices``."""
    return tuple(convert_to_tensor(i) for i in jnp.triu_indices(int(n), int(k), None if m is None else int(m)))


def tril_indices(n, k=0, m=None):
    """``jax.numpy.tril_indices``."""
    return tuple(convert_to_tensor(i) for i in jnp.tril_indices(int(n), int(k), None if m is None else int(m)))


def identity(n, dtype=None):
    """``jax.numpy.identity``: the ``n`` x ``n`` identity matrix."""
    return eye(n, dtype=dtype)


def empty(shape, dtype=None, *, device=None, out_sharding=None):
    """``jax.numpy.empty``: zeros (JAX has no uninitialized memory), placed by ``device`` or ``out_sharding``."""
    return zeros(shape, dtype, device=device, out_sharding=out_sharding)


def empty_like(prototype, dtype=None, shape=None, *, device=None):
    """``jax.numpy.empty_like``: zeros, placed on ``device``."""
    return zeros_like(prototype, dtype=dtype, shape=shape, device=device)


_unravel_index = _values_only("unravel_index", jnp.unravel_index)
_ravel_multi_index = _values_only("ravel_multi_index", lambda *index, dims, mode, order, dtype:
                                  jnp.ravel_multi_index(index, dims, mode=mode, order=order, dtype=dtype))
_lexsort = _values_only("lexsort", lambda *keys, axis, **options: jnp.lexsort(keys, axis=axis, **options))
_argpartition = _values_only("argpartition", jnp.argpartition)
# jax.numpy.lexsort's batch_size (jax 0.12): how many keys one sort compares, which changes the program, not the result
_LEXSORT_BATCHES = "batch_size" in inspect.signature(jnp.lexsort).parameters


def _top_k_indices_fn(a, *, k, axis, smallest):
    """jax.numpy.top_k's indices, as jax 0.12 computes them: ``lax.top_k``'s (the lower index first among ties) of
    ``a``, or for the smallest of an order-reversing map of ``a``: ``bitwise_not`` for bools and integers (negation
    would overflow at the lowest integer: jax 0.11's top_k misplaced it), negation for floats (under lax.top_k's
    total order a NaN stays above every number, ``-0.0`` below ``0.0``)."""
    if smallest:
        a = -a if jnp.issubdtype(a.dtype, jnp.inexact) else jnp.bitwise_not(a)
    return jax.lax.top_k(a, k, axis=axis)[1]


_top_k_indices = _values_only("top_k", _top_k_indices_fn)


def unravel_index(indices, shape):
    """``jax.numpy.unravel_index``: the index in each axis of flat indices into an array of ``shape``. A size 0 in
    ``shape``, or an index outside ``[0, prod(shape))`` where the indices' values are known, raises ValueError, as
    TF and NumPy (jax.numpy clips it: a silent wrong index); inside a trace an index is clipped, as jax.numpy's."""
    shape = static(shape)
    dims = shape if isinstance(shape, tuple) else (shape,)
    if builtins.any(d == 0 for d in dims):
        raise ValueError(f"tj.numpy.unravel_index: shape {dims} holds a size 0, which no index fits (as TF)")
    values = _concrete_on_host(indices)
    if values is not None and np.size(values):
        lo, hi, size = np.min(values), np.max(values), math.prod(dims)
        if lo < 0 or hi >= size:
            bad = lo if lo < 0 else hi
            raise ValueError(f"tj.numpy.unravel_index: index {int(bad)} is out of bounds for an array of shape {dims} "
                             f"(size {size}), as TF and NumPy")
    return tuple(_unravel_index(indices, shape=shape))


def ravel_multi_index(multi_index, dims, mode="raise", order="C", *, dtype=None):
    """``jax.numpy.ravel_multi_index``: the flat index of per-axis indices into an array of shape ``dims``. With
    ``mode='raise'`` an index out of bounds raises ValueError, so the indices' values must be known (eagerly; inside
    a trace use mode 'wrap' or 'clip', as under jax.jit)."""
    dims = static(dims)
    if mode == "raise":
        values = [_concrete_on_host(i) for i in multi_index]
        if builtins.any(v is None for v in values):  # (``any`` is tj.numpy.any here)
            raise TypeError("tj.numpy.ravel_multi_index: mode='raise' checks the indices' values, which are not known "
                            "while tracing; use mode='wrap' or mode='clip'")
        for axis, (v, d) in enumerate(zip(values, dims)):
            if np.any((v < 0) | (v >= d)):
                raise ValueError(f"tj.numpy.ravel_multi_index: invalid entry in coordinates array: axis {axis} holds "
                                 f"an index out of [0, {d})")
        mode = "clip"  # (checked: the same result)
    return _ravel_multi_index(*multi_index, dims=dims, mode=mode, order=order, dtype=freeze(dtype))


def indices(dimensions, dtype=None, sparse=False):
    """``jax.numpy.indices``: the grid of each axis's indices (one array of them, or with ``sparse`` a tuple of
    broadcastable ones)."""
    out = jnp.indices(static(dimensions), dtype=dtype, sparse=bool(sparse))
    return tuple(convert_to_tensor(o) for o in out) if sparse else convert_to_tensor(out)


def divmod(x1, x2):
    """``jax.numpy.divmod``: ``(floor_divide(x1, x2), mod(x1, x2))`` (the quotient has no gradient)."""
    return floor_divide(x1, x2), mod(x1, x2)


def lexsort(keys, axis=-1, *, batch_size=16):
    """``jax.numpy.lexsort``: the indices that sort by the last key, then the one before... (no gradient).
    ``batch_size`` (a positive int): with more keys than that, jax 0.12 sorts by batches of that many keys (a
    smaller program to compile), with the same result; given to jax.numpy where it takes it (from jax 0.12),
    checked and otherwise without effect."""
    batch_size = as_index(batch_size, lambda: f"tj.numpy.lexsort: batch_size must be a positive integer (the most keys "
                                              f"one sort compares), got {batch_size!r}")
    if batch_size < 1:
        raise ValueError(f"tj.numpy.lexsort: batch_size must be a positive integer (the most keys one sort compares), "
                         f"got {batch_size}")
    options = {"batch_size": batch_size} if _LEXSORT_BATCHES else {}
    return _lexsort(*keys, axis=_integers("lexsort", "axis", axis), **options)


def argpartition(a, kth, axis=-1):
    """``jax.numpy.argpartition``: indices that put the ``kth`` smallest entry in its sorted place, the smaller
    ones before it and the larger after (no gradient)."""
    return _argpartition(a, kth=_integers("argpartition", "kth", kth), axis=_integers("argpartition", "axis", axis))


def partition(a, kth, axis=-1):
    """``jax.numpy.partition``: ``a`` reordered by ``argpartition`` (differentiable: a gather of its entries)."""
    return take_along_axis(a, argpartition(a, kth, axis), axis)


def top_k(a, k, /, *, axis=-1, mode="largest", sorted=True):
    """``jax.numpy.top_k``: ``(values, indices)`` of the ``k`` largest (``mode='largest'``) or smallest
    (``'smallest'``) entries along ``axis``, largest (smallest) first, the lower index first among ties; their
    shape is ``a``'s with ``k`` along ``axis``. ``sorted=False`` allows any order; they come sorted all the same, as
    jax.numpy's. The values are differentiable (a gather of ``a``: the gradient goes to the entries taken, as jax's),
    the int32 indices not. Ordered as jax 0.12's top_k on every jax version (jax.numpy has none before 0.11): a NaN
    above every number (one with its sign bit set below), ``-0.0`` below ``0.0``; complex values raise ``ValueError``,
    as jax.numpy's."""
    a = convert_to_tensor(a)
    if jnp.issubdtype(a.dtype, jnp.complexfloating):
        raise ValueError(f"tj.numpy.top_k: complex values have no order (as jax.numpy's top_k, which refuses them); "
                         f"got {a.dtype}. Take the top k of a real key instead, e.g. abs(a) or a.real, and gather a "
                         "with its indices (take_along_axis)")
    if mode not in ("largest", "smallest"):
        raise ValueError(f"tj.numpy.top_k: mode must be 'largest' or 'smallest', got {mode!r}")
    shp = shape(a)
    ax = _check_axis("top_k", axis, len(shp), scalar=False)
    k = as_index(k, lambda: f"tj.numpy.top_k: k must be an integer (how many entries to take), got {k!r} of type "
                            f"{type(k).__name__}")
    if not 0 <= k <= shp[ax]:
        raise ValueError(f"tj.numpy.top_k: k={k} is out of range for axis {ax} of size {shp[ax]} (input of shape "
                         f"{shp}); k must be between 0 and {shp[ax]}, as jax.numpy's")
    indices = _top_k_indices(a, k=k, axis=ax, smallest=mode == "smallest")
    # (the indices are in bounds by construction: no check of their values, which would read them back)
    return _take_along_axis(a, indices, axis=ax, mode="promise_in_bounds"), indices


def delete(arr, obj, axis=None, *, assume_unique_indices=False):
    """``jax.numpy.delete``: ``arr`` without the entries ``obj`` (an index, indices or a slice, known now) along
    ``axis`` (of the flattened ``arr`` when None); a gather of the others, so differentiable."""
    if axis is None:
        arr, axis = ravel(arr), 0
    n = shape(arr)[_check_axis("delete", axis, ndim(arr))]
    if _is_traced(obj):  # (traced indices: n - len(obj) entries stay)
        obj = convert_to_tensor(obj)
        if not assume_unique_indices or obj.ndim > 1 or not jnp.issubdtype(obj.dtype, jnp.integer):
            raise TypeError(f"tj.numpy.delete: traced indices obj (inside tj.function or a JAX transform) need "
                            f"assume_unique_indices=True and integers of at most one dimension (as jax.numpy's), "
                            f"got {obj.dtype} of shape {tuple(obj.shape)}; or pass obj known when called")
        return take(arr, _kept_entries(obj, n=n), axis=axis)
    if isinstance(obj, (Tensor, Variable)):
        obj = obj.numpy()
    drop = np.arange(n)[obj] if isinstance(obj, slice) else np.asarray(obj)
    if drop.dtype == bool:  # (a mask of the entries to delete, as jax.numpy's and NumPy's)
        if drop.shape != (n,):
            raise ValueError(f"tj.numpy.delete: a boolean mask must have the axis' length {n}, got shape "
                             f"{drop.shape}")
        drop = np.flatnonzero(drop)
    if drop.size and (drop.min() < -n or drop.max() >= n):
        raise IndexError(f"tj.numpy.delete: index {int(drop.max() if drop.max() >= n else drop.min())} is out of "
                         f"bounds for axis {axis} of size {n}")
    keep = np.setdiff1d(np.arange(n), np.where(drop < 0, drop + n, drop))
    return take(arr, keep, axis=axis)


def _kept_entries_fn(drop, *, n: int):
    """delete's gather for traced unique indices ``drop``: the positions of the ``n - len(drop)`` entries kept."""
    drop = jnp.where(drop < 0, drop + n, drop)
    kept = jnp.ones(n, bool).at[drop].set(False)
    return jnp.nonzero(kept, size=n - drop.size)[0].astype(jnp.int32)


_kept_entries = _values_only("delete_kept_entries", _kept_entries_fn)


def block(arrays):
    """``jax.numpy.block``: one array assembled from nested lists of blocks (the innermost lists joined along the
    last axis, the outer ones along earlier axes)."""
    if not isinstance(arrays, list):
        return convert_to_tensor(arrays)
    return _block_join(arrays, 0, _block_depth(arrays))


# (block's recursive helpers are module-level: a nested function calling itself is a reference cycle per call)
def _block_depth(x):
    return 1 + _block_depth(x[0]) if isinstance(x, list) and x else (0 if not isinstance(x, list) else 1)


def _block_join(x, level, levels):
    if not isinstance(x, list):
        return convert_to_tensor(x)
    items = [_block_join(e, level + 1, levels) for e in x]
    rank = builtins.max(levels, *(ndim(t) for t in items))
    items = [reshape(t, (1,) * (rank - ndim(t)) + shape(t)) for t in items]
    return concatenate(items, axis=level - levels)


def iscomplexobj(x) -> bool:
    """``jax.numpy.iscomplexobj``: whether ``x``'s dtype is complex (a list's: its elements', as NumPy's)."""
    if not isinstance(x, (Tensor, Variable)):
        return bool(jnp.iscomplexobj(x))
    return bool(jnp.issubdtype(x.dtype, jnp.complexfloating))


def isrealobj(x) -> bool:
    """``jax.numpy.isrealobj``: whether ``x``'s dtype is not complex."""
    return not iscomplexobj(x)


def isscalar(element) -> bool:
    """``jax.numpy.isscalar``: a Python or NumPy scalar, or a 0-d array or Tensor."""
    if isinstance(element, (Tensor, Variable)):
        return ndim(element) == 0
    return bool(jnp.isscalar(element))


promote_types = jnp.promote_types
can_cast = jnp.can_cast


def interp(x, xp, fp, left=None, right=None, period=None):
    """``jax.numpy.interp``: the piecewise-linear interpolant through ``(xp, fp)`` (``xp`` increasing) at ``x``;
    ``left``/``right`` below and above (``fp``'s ends by default, or ``'extrapolate'``), or periodic with
    ``period``. Differentiable in ``x``, ``xp`` and ``fp`` (a zero-width interval gives its left value, with no
    NaN gradient)."""
    x_dtype = _weak_dtype(x)  # (a Python number weakly typed: interp(2.5, float16 xp, fp) is float16)
    x, xp, fp = convert_to_tensor(x), convert_to_tensor(xp), convert_to_tensor(fp)
    if shape(xp) != shape(fp) or ndim(xp) != 1:
        raise ValueError(f"tj.numpy.interp: xp and fp must be one-dimensional arrays of equal size, got shapes "
                         f"{shape(xp)} and {shape(fp)}")
    if jnp.issubdtype(x.dtype, jnp.complexfloating) or jnp.issubdtype(xp.dtype, jnp.complexfloating):
        raise ValueError("tj.numpy.interp: complex x values are not supported (as jax.numpy's), in x nor in xp")
    for name, end in (("left", left), ("right", right)):
        if isinstance(end, str) and end != "extrapolate":
            raise ValueError(f"tj.numpy.interp: the only valid string value of `{name}` is 'extrapolate', got {end!r}")
    inexact = inexact_dtype(x_dtype, xp.dtype)
    x, xp, fp = astype(x, inexact), astype(xp, inexact), _inexact(fp)
    if period is not None:
        if np.ndim(period) != 0:
            raise ValueError(f"tj.numpy.interp: period must be a scalar, got {period!r}")
        period = abs(convert_to_tensor(period))
        x, xp = mod(x, period), mod(xp, period)
        order = argsort(xp)
        xp, fp = take(xp, order), take(fp, order)
        xp = concatenate([subtract(xp[-1:], period), xp, add(xp[:1], period)])
        fp = concatenate([fp[-1:], fp, fp[:1]])
    i = clip(searchsorted(xp, x, side="right"), 1, shape(xp)[0] - 1)
    fp_lo, xp_lo = take(fp, i - 1), take(xp, i - 1)
    df = subtract(take(fp, i), fp_lo)
    dx = subtract(take(xp, i), xp_lo)
    delta = subtract(x, xp_lo)
    flat = abs(dx) <= np.spacing(np.finfo(jnp.dtype(inexact)).eps)  # (no NaN gradient for a zero width)
    f = where(flat, fp_lo, add(fp_lo, multiply(divide(delta, where(flat, ones_like(dx), dx)), df)))
    if period is None:
        if not isinstance(left, str):
            f = where(less(x, xp[0]), fp[0] if left is None else left, f)
        if not isinstance(right, str):
            f = where(greater(x, xp[-1]), fp[-1] if right is None else right, f)
    return f


def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
    """``jax.numpy.convolve``: the discrete convolution of two 1-d arrays (``mode`` full, same or valid), as one
    gather of ``a``'s windows and one matrix product: differentiable in both."""
    return _correlate("convolve", a, v, mode, precision, preferred_element_type, convolving=True)


def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    """``jax.numpy.correlate``: the cross-correlation of two 1-d arrays (``v`` conjugated; ``mode`` valid, same or
    full), as ``convolve``."""
    return _correlate("correlate", a, v, mode, precision, preferred_element_type, convolving=False)


def _correlate(name: str, a, v, mode, precision, preferred_element_type, convolving: bool):
    a, v = convert_to_tensor(a), convert_to_tensor(v)
    dt = inexact_dtype(a.dtype, v.dtype)  # (integers and bools in the default float, as jax.numpy's)
    a, v = astype(a, dt), astype(v, dt)
    if ndim(a) != 1 or ndim(v) != 1:
        raise ValueError(f"tj.numpy.{name}: a and v must be 1-d, got shapes {shape(a)} and {shape(v)}")
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"tj.numpy.{name}: mode must be 'full', 'same' or 'valid', got {mode!r}")
    n, m = shape(a)[0], shape(v)[0]
    if n == 0 or m == 0:
        raise ValueError(f"tj.numpy.{name}: a and v must be non-empty, got lengths {n} and {m}")
    kernel = flip(v) if convolving else conj(v)
    # full correlation: out[k] = sum_j padded[k + j] * kernel[j], with m - 1 zeros on each side of a
    padded = pad(a, (m - 1, m - 1))
    windows = take(padded, np.arange(n + m - 1)[:, None] + np.arange(m)[None, :])
    out = matmul(windows, kernel, precision=precision, preferred_element_type=preferred_element_type)
    if mode == "full":
        return out
    if mode == "valid":
        lo, hi = builtins.min(n, m), builtins.max(n, m)
        return out[lo - 1:hi]
    length = builtins.max(n, m)
    # (NumPy's centring: a correlation with the longer v is reversed, which moves the centre when min(n, m) is even)
    start = (builtins.min(n, m) - 1) // 2 if convolving or n >= m else n // 2
    return out[start:start + length]


def bincount(x, weights=None, minlength=0, *, length=None, out_sharding=None):
    """``jax.numpy.bincount``: how many times each value of the non-negative int 1-d ``x`` occurs (summing
    ``weights`` instead when given: differentiable in them), over ``length`` bins (``max(x) + 1`` and at least
    ``minlength`` when not given, which needs ``x``'s values: give ``length`` inside a trace). A negative value
    raises ValueError where ``x``'s values are known, as TF and NumPy (inside a trace it counts in bin 0, as
    jax.numpy's); values past ``length`` are dropped. ``out_sharding``: the result's sharding
    (``jax.device_put``), fully replicated only, as jax.numpy's."""
    if out_sharding is not None:
        place = _placement("bincount", None, out_sharding)
        if not place.is_fully_replicated:  # (jax.numpy raises its ShardingTypeError, which jax does not export)
            raise ValueError(f"tj.numpy.bincount: out_sharding can only be fully replicated (as jax.numpy's), got "
                             f"{out_sharding!r}")
        return _placed(bincount(x, weights, minlength, length=length), place)
    x = convert_to_tensor(x)
    if x.dtype == jnp.bool_:  # (True counts in bin 1, as jax.numpy and NumPy)
        x = astype(x, jnp.int32)
    if ndim(x) != 1 or not jnp.issubdtype(x.dtype, jnp.integer):
        raise ValueError(f"tj.numpy.bincount: x must be a 1-d array of integers, got {x.dtype}{list(shape(x))}")
    values = _concrete_values("bincount", x) if length is None else _concrete_on_host(x)
    if values is not None and np.size(values) and np.min(values) < 0:
        raise ValueError(f"tj.numpy.bincount: x holds a negative value ({int(np.min(values))}); counts are of "
                         "non-negative integers (as TF and NumPy)")
    if length is None:
        length = builtins.max(int(minlength), int(values.max()) + 1 if values.size else 0)
    length = _integers("bincount", "length", length, nonnegative=True)
    hits = equal(expand_dims(clip(x, 0, None), 1), arange(length))  # (len(x), length): x[i] == bin
    if weights is None:
        return sum(astype(hits, jnp.int32), axis=0)
    weights = convert_to_tensor(weights)
    if shape(weights) != shape(x):
        raise ValueError(f"tj.numpy.bincount: weights of shape {shape(weights)} for x of shape {shape(x)}")
    # (in the weights' dtype, as jax.numpy's: int16 weights give int16 sums, not sum's int32; bools are counted)
    dtype = None if weights.dtype == jnp.bool_ else weights.dtype
    return sum(where(hits, expand_dims(weights, 1), zeros((), weights.dtype)), axis=0, dtype=dtype)


# -- the rest of jax.numpy: composed of the ops above (every path differentiates them with tapejax's rules), or
# functions of values with no gradient. Indices that decide where entries go are computed with NumPy when they are
# known now, else by the value-only ops below; the entries themselves move by gathers (take) and selections (where).

def _inexact(a) -> Tensor:
    """``a`` as a Tensor of an inexact dtype (integers and bools cast to the float jax.numpy promotes them to)."""
    a = convert_to_tensor(a)
    return a if jnp.issubdtype(a.dtype, jnp.inexact) else astype(a, inexact_dtype(a.dtype))


def _inexact_or_number(a) -> Tensor:
    """``_inexact(a)``; a Python int or float made at once in jax.numpy's float for it (float64 under x64, as its
    promote_dtypes_inexact), not first in tj.constant's float32."""
    return convert_to_tensor(a, dtype=inexact_dtype(a)) if type(a) in (int, float) else _inexact(a)


def _cast(a, dtype) -> Tensor:
    a = convert_to_tensor(a)
    return a if a.dtype == dtype else astype(a, dtype)


def _along(a, axis: int, start=None, stop=None) -> Tensor:
    """``a[start:stop]`` along ``axis``."""
    return a[(slice(None),) * axis + (slice(start, stop),)]


def _known(name: str, what: str, v) -> np.ndarray:
    """``v``'s values now, as a NumPy array; a traced value raises TypeError naming the argument."""
    values = _concrete_on_host(v)
    if values is None:
        raise TypeError(f"tj.numpy.{name}: {what} must be known when it is called (not a value traced inside "
                        "tj.function or a JAX transformation): the result's shape depends on it")
    return values


def _set_entries(flat, source, vals) -> Tensor:
    """``flat`` (1-d) with entry ``i`` replaced by ``vals[source[i]]`` where ``source[i] >= 0``: a scatter written as a
    gather and a selection, so the gradient reaches ``vals`` only from the entries it set (as jax's ``.at[].set``)."""
    vals = _cast(vals, flat.dtype)
    if isinstance(source, np.ndarray):
        return where(source >= 0, take(vals, np.maximum(source, 0)), flat)
    return where(source >= 0, take(vals, where(source >= 0, source, 0)), flat)


def insert(arr, obj, values, axis=None):
    """As jax.numpy.insert: ``values`` inserted before the indices ``obj`` (an int, a 1-d sequence or a slice, known
    when called) along ``axis`` (of the flattened ``arr`` when None); a gather, differentiable in arr and values."""
    a = convert_to_tensor(arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = _check_axis("insert", axis, ndim(a))
    n = shape(a)[axis]
    if isinstance(obj, slice):
        index = np.arange(*obj.indices(n))
    else:  # (its values now where known, else the traced Tensor: only its shape fixes the result's)
        index = _concrete_on_host(obj)
        index = index if index is not None else convert_to_tensor(obj)
    if index.ndim > 1:
        raise ValueError(f"tj.numpy.insert: obj must be a slice, a one-dimensional array or a scalar; got shape "
                         f"{tuple(index.shape)}")
    if not np.issubdtype(index.dtype, np.integer):
        if index.size == 0 and isinstance(index, np.ndarray) and not isinstance(obj, (Tensor, Variable, jax.Array)):
            index = index.astype(int)
        else:
            raise ValueError(f"tj.numpy.insert: the indices obj must be integers, got dtype {index.dtype}")
    vals = _cast(values, a.dtype)
    if ndim(vals) < ndim(a):
        vals = reshape(vals, (1,) * (ndim(a) - ndim(vals)) + shape(vals))
    if index.size == 1 and index.ndim == 0:  # (a scalar index inserts values' first axis as one slice, as jax.numpy)
        vals = moveaxis(vals, 0, axis)
    k = shape(vals)[axis] if index.size == 1 else np.broadcast_shapes(tuple(index.shape), (shape(vals)[axis],))[0]
    target = list(shape(a))
    target[axis] = k
    source = _insert_source(index, n=n, k=k)
    return take(concatenate([a, broadcast_to(vals, tuple(target))], axis=axis), source, axis=axis)


def _insert_source_fn(index, *, n: int, k: int):
    """insert's gather: for each entry of the result (length ``n + k``), its position in ``concatenate([a,
    values])``; ``index`` (one index, or ``k``) says before which of a's ``n`` entries each value goes."""
    index = jnp.broadcast_to(jnp.ravel(index)[0] if index.size == 1 else index, (k,))
    index = jnp.clip(jnp.where(index < 0, index + n, index), 0, n).astype(jnp.int32)
    landed = index.at[jnp.argsort(index, stable=True)].add(jnp.arange(k, dtype=jnp.int32))  # where each value lands
    taken = jnp.zeros(n + k, bool).at[landed].set(True)
    rest = jnp.nonzero(~taken, size=n)[0]
    return (jnp.zeros(n + k, jnp.int32).at[rest].set(jnp.arange(n, dtype=jnp.int32))
            .at[landed].set(n + jnp.arange(k, dtype=jnp.int32)))


_insert_source = _values_only("insert_source", _insert_source_fn)


def resize(a, new_shape):
    """As jax.numpy.resize: ``a``'s entries (flattened) repeated to fill ``new_shape`` (zeros for an empty ``a``)."""
    new_shape = static(new_shape)
    new_shape = tuple(as_index(d, f"tj.numpy.resize: new_shape must be an integer or a sequence of integers, got "
                                  f"{new_shape!r}") for d in (new_shape if isinstance(new_shape, tuple) else (new_shape,)))
    if builtins.any(d < 0 for d in new_shape):
        raise ValueError(f"tj.numpy.resize: all elements of new_shape must be non-negative, got {new_shape}")
    flat = ravel(a)
    n, count = shape(flat)[0], int(np.prod(new_shape, dtype=np.int64))
    if n == 0 or count == 0:
        return zeros_like(flat, shape=new_shape)
    return reshape(take(flat, np.arange(count) % n), new_shape)


def gradient(f, *varargs, axis=None, edge_order=None):
    """As jax.numpy.gradient: central differences inside, one-sided at the edges, along each axis (spacing: one
    scalar, or one scalar or 1-d coordinate array per axis). ``edge_order`` 1 (jax.numpy's result) or 2 (NumPy's
    second-order edges; jax.numpy refuses any edge_order)."""
    if edge_order not in (None, 1, 2):
        raise ValueError(f"tj.numpy.gradient: edge_order must be 1 or 2, got {edge_order!r}")
    order = edge_order or 1
    a = convert_to_tensor(f)
    spacing = [h if isinstance(h, (Tensor, Variable)) or np.ndim(h) == 0 else convert_to_tensor(h) for h in varargs]
    dt = inexact_dtype(*[a.dtype] + [h.dtype for h in spacing if isinstance(h, (Tensor, Variable))])
    a = _cast(a, dt)
    axes = tuple(range(ndim(a))) if axis is None else tuple(_check_axis("gradient", ax, ndim(a)) for ax in _axes(axis))
    if not axes:
        return []
    if builtins.min(shape(a)[ax] for ax in axes) < order + 1:
        raise ValueError(f"tj.numpy.gradient: the array of shape {shape(a)} is too small to calculate a numerical "
                         f"gradient along axes {axes}: at least {order + 1} elements are required (edge_order={order})")
    if not spacing:
        spacing = [1.0] * len(axes)
    elif len(spacing) == 1:
        spacing = spacing * len(axes)
    elif len(spacing) != len(axes):
        raise TypeError(f"tj.numpy.gradient: {len(spacing)} spacing arguments for {len(axes)} axes ({axes}); give "
                        "one for all axes or one per axis")
    out = [_gradient_along(a, _cast(h, dt) if isinstance(h, (Tensor, Variable)) else h, ax, order)
           for ax, h in zip(axes, spacing)]
    return out[0] if len(axes) == 1 else out


def _gradient_along(a, h, ax: int, order: int):
    def f(i, j=None):  # a[i:j] along the axis (j=0: to the end)
        return _along(a, ax, i, j if j != 0 else None)
    if np.ndim(h) == 0:
        inner = divide(multiply(subtract(f(2, 0), f(None, -2)), 0.5), h)
        if order == 1:
            first, last = divide(subtract(f(1, 2), f(0, 1)), h), divide(subtract(f(-1, 0), f(-2, -1)), h)
        else:
            first = divide(add(add(multiply(f(0, 1), -1.5), multiply(f(1, 2), 2.0)), multiply(f(2, 3), -0.5)), h)
            last = divide(add(add(multiply(f(-3, -2), 0.5), multiply(f(-2, -1), -2.0)), multiply(f(-1, 0), 1.5)), h)
        return concatenate([first, inner, last], axis=ax)
    if ndim(h) != 1:
        raise ValueError(f"tj.numpy.gradient: spacing arrays must be 1-d arrays or scalars, got shape {shape(h)}")
    if shape(h)[0] != shape(a)[ax]:
        raise ValueError(f"tj.numpy.gradient: a spacing array of length {shape(h)[0]} for axis {ax} of length "
                         f"{shape(a)[ax]}; the coordinates must have the axis's length")
    x = reshape(h, tuple(-1 if i == ax else 1 for i in range(ndim(a))))

    def c(i, j=None):
        return _along(x, ax, i, j if j != 0 else None)

    def three(d1, d2, first: bool, weights_at):
        """The second-order weights of f at three points spaced d1 and d2 (NumPy's formulas)."""
        s = add(d1, d2)
        if weights_at == "inner":
            return (negative(divide(d2, multiply(d1, s))), divide(subtract(d2, d1), multiply(d1, d2)),
                    divide(d1, multiply(d2, s)))
        if first:
            return (negative(divide(add(d1, s), multiply(d1, s))), divide(s, multiply(d1, d2)),
                    negative(divide(d1, multiply(d2, s))))
        return (divide(d2, multiply(d1, s)), negative(divide(s, multiply(d1, d2))), divide(add(d2, s), multiply(d2, s)))

    w0, w1, w2 = three(subtract(c(1, -1), c(0, -2)), subtract(c(2, 0), c(1, -1)), False, "inner")
    inner = add(add(multiply(w0, f(0, -2)), multiply(w1, f(1, -1))), multiply(w2, f(2, 0)))
    if order == 1:
        first = divide(subtract(f(1, 2), f(0, 1)), subtract(c(1, 2), c(0, 1)))
        last = divide(subtract(f(-1, 0), f(-2, -1)), subtract(c(-1, 0), c(-2, -1)))
    else:
        w0, w1, w2 = three(subtract(c(1, 2), c(0, 1)), subtract(c(2, 3), c(1, 2)), True, "edge")
        first = add(add(multiply(w0, f(0, 1)), multiply(w1, f(1, 2))), multiply(w2, f(2, 3)))
        w0, w1, w2 = three(subtract(c(-2, -1), c(-3, -2)), subtract(c(-1, 0), c(-2, -1)), False, "edge")
        last = add(add(multiply(w0, f(-3, -2)), multiply(w1, f(-2, -1))), multiply(w2, f(-1, 0)))
    return concatenate([first, inner, last], axis=ax)


def unwrap(p, discont=None, axis=-1, period=2 * np.pi):
    """As jax.numpy.unwrap: jumps between neighbours larger than ``discont`` (``period / 2``) taken back by whole
    periods along ``axis`` (a cumulative sum of corrections: the gradient passes each entry on to those after it)."""
    p = convert_to_tensor(p)
    if jnp.issubdtype(p.dtype, jnp.complexfloating):
        raise ValueError("tj.numpy.unwrap: complex inputs are not supported (as jax.numpy's)")
    period_dtype = period.dtype if isinstance(period, (Tensor, Variable)) else period
    p = _cast(p, jnp.result_type(p.dtype, period_dtype))
    axis = _check_axis("unwrap", axis, ndim(p))
    if shape(p)[axis] == 0:
        return p
    interval = floor_divide(period, 2) if jnp.issubdtype(p.dtype, jnp.integer) else divide(period, 2)
    discont = divide(period, 2) if discont is None else discont
    dd = diff(p, axis=axis)
    ddmod = subtract(mod(add(dd, interval), period), interval)
    ddmod = where(logical_and(equal(ddmod, negative(interval)), dd > 0), interval, ddmod)
    correction = where(less(abs(dd), discont), zeros_like(dd), subtract(ddmod, dd))
    return concatenate([_along(p, axis, 0, 1), add(_along(p, axis, 1), cumsum(correction, axis=axis))], axis=axis)


def vander(x, N=None, increasing=False):
    """As jax.numpy.vander: the powers of the 1-d ``x``, highest first (``increasing``: lowest first), computed with
    ``power`` as jax.numpy's (so its gradient at ``x == 0`` is NaN there too)."""
    x = convert_to_tensor(x)
    if ndim(x) != 1:
        raise ValueError(f"tj.numpy.vander: x must be a one-dimensional array, got shape {shape(x)}")
    n = shape(x)[0] if N is None else as_index(static(N), f"tj.numpy.vander: N must be an integer, got {N!r}")
    if n < 0:
        raise ValueError(f"tj.numpy.vander: N must be nonnegative, got {n}")
    exponents = np.arange(n) if increasing else np.arange(n)[::-1]
    return power(expand_dims(x, -1), exponents.astype(x.dtype))


def fill_diagonal(a, val, wrap=False, *, inplace=True):
    """As jax.numpy.fill_diagonal: ``a`` with ``val`` (repeated as needed) on its main diagonal; arrays are immutable,
    so ``inplace=False`` is required, and ``wrap=True`` is not supported, as jax.numpy's."""
    if inplace:
        raise NotImplementedError("tj.numpy.fill_diagonal: arrays are immutable, pass inplace=False (as "
                                  "jax.numpy.fill_diagonal) and use the returned Tensor")
    if wrap:
        raise NotImplementedError("tj.numpy.fill_diagonal: wrap=True is not implemented (as jax.numpy's), use "
                                  "wrap=False")
    a = convert_to_tensor(a)
    if ndim(a) < 2:
        raise ValueError(f"tj.numpy.fill_diagonal: the array must be at least 2-d, got shape {shape(a)}")
    if ndim(a) > 2 and len(set(shape(a))) != 1:
        raise ValueError(f"tj.numpy.fill_diagonal: all dimensions of a {ndim(a)}-d input must be of equal length, "
                         f"got shape {shape(a)}")
    n = builtins.min(shape(a))
    source = np.full(size(a), -1)
    source[np.ravel_multi_index((np.arange(n),) * ndim(a), shape(a))] = np.arange(n)
    vals = ravel(val)
    if shape(vals)[0] == 0:
        raise ValueError("tj.numpy.fill_diagonal: val is empty")
    return reshape(_set_entries(ravel(a), source, take(vals, np.arange(n) % shape(vals)[0])), shape(a))


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
    """As jax.numpy.compress: the slices of ``a`` along ``axis`` (of the flattened ``a`` when None) where the 1-d
    ``condition`` holds. Without ``size`` the condition must be known when called (the result's length depends on
    it); ``size`` fixes the length (missing entries are ``fill_value``), as jax.numpy's."""
    _no_out("compress", out)
    cond = _cast(condition, jnp.bool_)
    if ndim(cond) != 1:
        raise ValueError(f"tj.numpy.compress: condition must be a 1-d array, got shape {shape(cond)}")
    arr = ravel(a) if axis is None else moveaxis(a, axis, 0)
    axis = 0 if axis is None else axis
    n = shape(arr)[0]
    cond = cond[:n]
    arr = arr[:shape(cond)[0]]
    if size is None:
        known = _known("compress", "condition (without size=)", condition)
        if np.any(known[n:]):
            raise ValueError(f"tj.numpy.compress: condition of length {known.shape[0]} holds True past the axis's "
                             f"length {n}")
        result = take(arr, np.nonzero(known[:n])[0], axis=0)
    else:
        size = _integers("compress", "size", size)
        if not 0 <= size <= shape(arr)[0]:
            raise ValueError(f"tj.numpy.compress: size must be in [0, {shape(arr)[0]}] (the length of the axis), got "
                             f"{size}")
        mask = reshape(cond, (-1,) + (1,) * (ndim(arr) - 1))
        arr = where(mask, arr, _cast(fill_value, arr.dtype))
        result = take(arr, argsort(cond, stable=True, descending=True)[:size], axis=0)
    return moveaxis(result, 0, axis)


def extract(condition, arr, *, size=None, fill_value=0):
    """As jax.numpy.extract: the entries of ``arr`` where ``condition`` holds (both flattened), as ``compress``."""
    cond = ravel(condition) if size is not None else _known_flat("extract", condition)
    return compress(cond, ravel(arr), size=size, fill_value=fill_value)


def choose(a, choices, out=None, mode="raise"):
    """As jax.numpy.choose: each entry taken from the choice its index in ``a`` names (broadcast together);
    ``mode`` 'raise' (the indices must then be known when called), 'wrap' or 'clip'. Differentiable in the choices."""
    _no_out("choose", out)
    a = convert_to_tensor(a)
    if not jnp.issubdtype(a.dtype, jnp.integer):
        raise ValueError(f"tj.numpy.choose: the index array a must be integer typed, got {a.dtype}")
    choices = [convert_to_tensor(c) for c in choices]
    n = len(choices)
    if mode == "raise":
        values = _concrete_on_host(a)
        if values is None:
            raise TypeError("tj.numpy.choose: mode='raise' checks the indices' values, which are not known while "
                            "tracing; use mode='wrap' or mode='clip' (as under jax.jit)")
        if np.any((values < 0) | (values >= n)):
            raise ValueError(f"tj.numpy.choose: invalid entry in the choice array: indices must be in [0, {n}) for "
                             f"{n} choices")
        index = a
    elif mode == "wrap":
        index = mod(a, n)
    elif mode == "clip":
        index = clip(a, 0, n - 1)
    else:
        raise ValueError(f"tj.numpy.choose: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    dt = jnp.result_type(*[c.dtype for c in choices])
    index, *choices = broadcast_arrays(index, *[_cast(c, dt) for c in choices])
    return take_along_axis(stack(choices), expand_dims(index, 0), axis=0)[0]


def place(arr, mask, vals, *, inplace=True):
    """As jax.numpy.place: ``arr`` with the entries where ``mask`` holds replaced by ``vals`` in order (repeated as
    needed); ``inplace=False`` is required, as jax.numpy's. Differentiable in arr and vals."""
    if inplace:
        raise ValueError("tj.numpy.place cannot modify arrays in place (arrays are immutable): pass inplace=False, as "
                         "jax.numpy.place requires, and use the returned Tensor")
    data, vals = convert_to_tensor(arr), ravel(vals)
    if size(data) != size(mask):
        raise ValueError(f"tj.numpy.place: arr and mask must be the same size, got shapes {shape(data)} and "
                         f"{shape(mask)}")
    if not size(vals):
        raise ValueError("tj.numpy.place: cannot place values from an empty array")
    if not size(data):
        return data
    selected = _cast(ravel(mask), jnp.bool_)
    nth = subtract(cumsum(astype(selected, jnp.int32)), 1)  # the how-many-th selected entry each one is
    source = where(selected, mod(nth, size(vals)), -1)
    return reshape(_set_entries(ravel(data), source, vals), shape(data))


# which of ``n`` values jax.numpy.put writes where (-1: none), by jax.numpy.put itself: its index rules (negative
# indices, 'clip' and 'wrap', repeated indices) carry over
_put_source = _values_only("put", lambda ind, *, shape, mode: jnp.put(
    jnp.full(shape, -1, jnp.int32), ind, jnp.arange(jnp.size(ind), dtype=jnp.int32), mode=mode, inplace=False))


def put(a, ind, v, mode=None, *, inplace=True):
    """As jax.numpy.put: ``a`` with its flat entries ``ind`` replaced by ``v`` (repeated as needed); ``mode`` None
    (as jax.numpy's: an index past the end lands on the last entry), 'clip' or 'wrap'. ``inplace=False`` is required,
    as jax.numpy's."""
    if inplace:
        raise ValueError("tj.numpy.put cannot modify arrays in place (arrays are immutable): pass inplace=False, as "
                         "jax.numpy.put requires, and use the returned Tensor")
    if mode == "raise":
        raise NotImplementedError("tj.numpy.put: mode='raise' is not supported (as jax.numpy's); use None, 'clip' or "
                                  "'wrap'")
    if mode not in (None, "clip", "wrap"):
        raise ValueError(f"tj.numpy.put: mode must be None, 'clip' or 'wrap', got {mode!r}")
    arr, ind, v = convert_to_tensor(a), ravel(ind), ravel(v)
    if not jnp.issubdtype(ind.dtype, jnp.integer):
        raise TypeError(f"tj.numpy.put: the indices ind must be integers, got dtype {ind.dtype}")
    if not size(arr) or not size(ind) or not size(v):
        return arr
    source = ravel(_put_source(ind, shape=shape(arr), mode=mode))
    return reshape(_set_entries(ravel(arr), source, take(v, np.arange(size(ind)) % size(v))), shape(arr))


_CORE_DIMS = re.compile(r"\(([^()]*)\)")
_GUFUNC = re.compile(r"^\((?:\w+(?:,\w+)*)?\)(?:,\((?:\w+(?:,\w+)*)?\))*->\((?:\w+(?:,\w+)*)?\)(?:,\((?:\w+(?:,\w+)*)?\))*$")


@functools.lru_cache(maxsize=256)  # (parsed at each call of a vectorized function, as jax.numpy's: once per text)
def _gufunc_signature(signature: str) -> tuple:
    """``'(m,n),(n)->(m)'`` -> ``([('m', 'n'), ('n',)], [('m',)])``: the core dimensions of each input and
    output; ValueError for a malformed signature (as jax.numpy's)."""
    if not _GUFUNC.match(signature):  # (no spaces, as jax.numpy's: NumPy's allows them)
        raise ValueError(f"tj.numpy.vectorize: not a valid gufunc signature: {signature!r}")
    ins, outs = signature.split("->")
    return tuple([tuple(d for d in group.split(",") if d) for group in _CORE_DIMS.findall(part)]
                 for part in (ins, outs))


def _core_sizes(sizes: dict, shape_: tuple, core: tuple, what: str, context: str) -> None:
    """Check ``shape_``'s last ``len(core)`` dimensions (an output's: all of them) against the sizes named so far
    (adding new names)."""
    if what.startswith("output") and len(shape_) != len(core):
        raise ValueError(f"tj.numpy.vectorize: {what} shape {shape_} does not match core dimensions {core} {context}")
    if len(shape_) < len(core):
        raise ValueError(f"tj.numpy.vectorize: {what} with shape {shape_} does not have enough dimensions for all "
                         f"core dimensions {core} {context}")
    for name, n in zip(core, shape_[len(shape_) - len(core):]):
        if sizes.setdefault(name, n) != n:
            raise ValueError(f"tj.numpy.vectorize: inconsistent size for core dimension {name!r}: {n} vs {sizes[name]} "
                             f"{context}")


def _vectorized_call(pyfunc, args: list, cores: list, out_cores, context: str):
    """``pyfunc`` applied to each element (over the broadcast leading dimensions; ``cores[i]``: the trailing core
    dimensions of argument i) and the results stacked: one call of tj ops per element, so a Tensor or Variable it
    closes over is read at each call and differentiated, on every path (a JAX vmap of tj code would hide them from
    an eager tape)."""
    if len(args) != len(cores):
        raise TypeError(f"tj.numpy.vectorize: wrong number of positional arguments: expected {len(cores)}, got "
                        f"{len(args)} {context}")
    sizes: dict = {}
    for k, (a, core) in enumerate(zip(args, cores)):
        _core_sizes(sizes, shape(a), core, f"input {k}", context)
    loops = [shape(a)[:ndim(a) - len(core)] for a, core in zip(args, cores)]
    try:
        loop = np.broadcast_shapes(*loops)
    except ValueError:
        raise ValueError(f"tj.numpy.vectorize: the arguments' leading shapes {loops} do not broadcast "
                         f"{context}") from None
    full = [broadcast_to(a, loop + shape(a)[ndim(a) - len(core):]) for a, core in zip(args, cores)]
    count = int(np.prod(loop, dtype=np.int64))
    if count == 0:  # no element: the results' shapes and dtypes from one call on zeros
        with tape_set.stop_recording():
            sample = pyfunc(*[zeros(shape(a)[len(loop):], a.dtype) for a in full])
    outs = []
    for index in (np.ndindex(*loop) if count else ()):
        out = pyfunc(*[a[index] if index else a for a in full])
        outs.append(out)
    first = outs[0] if outs else sample
    if out_cores is None and not isinstance(first, (Tensor, Variable)):
        # Without a signature any structure of results (a list, a dict, nested tuples), each entry stacked over the
        # loop, as jax.numpy's (a vmap over pyfunc)
        leaf = lambda x: isinstance(x, (Tensor, Variable))
        leaves, tree = jax.tree_util.tree_flatten(first, is_leaf=leaf)
        columns = [jax.tree_util.tree_flatten(o, is_leaf=leaf)[0] for o in outs]
        stacked = _stacked(list(zip(*columns)) if outs else [[] for _ in leaves], leaves, loop, full)
        return jax.tree_util.tree_unflatten(tree, stacked)
    multi = isinstance(first, tuple)
    results = list(zip(*[o if isinstance(o, tuple) else (o,) for o in outs])) if outs else \
        [[] for _ in (first if multi else (first,))]
    if out_cores is not None:
        if len(out_cores) > 1 and not multi:
            raise TypeError(f"tj.numpy.vectorize: output must be a tuple when multiple outputs are expected {context}")
        if len(results) != len(out_cores):
            raise TypeError(f"tj.numpy.vectorize: wrong number of output arguments: expected {len(out_cores)}, got "
                            f"{len(results)} {context}")
        for k, (r, core) in enumerate(zip(first if multi else (first,), out_cores)):
            _core_sizes(dict(sizes), shape(r), core, f"output {k}", context)
    stacked = _stacked(results, first if multi else (first,), loop, full)
    return tuple(stacked) if multi else stacked[0]


def _stacked(results: list, firsts, loop: tuple, args: list) -> list:
    """Each output's per-element ``results`` stacked over the ``loop`` shape; with no element, an empty result of the
    shape and dtype of the output's sample in ``firsts``, computed from the (empty) ``args`` so that each gets a zero
    gradient, as jax.numpy's."""
    stacked = []
    for parts, first in zip(results, firsts):
        if parts:
            stacked.append(reshape(stack([convert_to_tensor(p) for p in parts]), loop + shape(parts[0])))
            continue
        r = convert_to_tensor(first)
        out = zeros(loop + shape(r), r.dtype)
        if jnp.issubdtype(r.dtype, jnp.inexact):
            for a in args:
                if jnp.issubdtype(a.dtype, jnp.inexact):
                    out = add(out, reshape(astype(a, r.dtype), shape(out)))  # (no element: a sum of nothing)
        stacked.append(out)
    return stacked


def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
    """As jax.numpy.vectorize: ``pyfunc`` (of Tensors, written with tj ops) mapped over the broadcast leading
    dimensions of its arguments (``signature``: their core dimensions, e.g. ``'(n),(n)->()'``; ``excluded``:
    positions or names of arguments passed as they are). It runs ``pyfunc`` once per element with tj ops (then
    stacks the results), so Tensors and Variables it closes over are read at each call and get their gradients, on
    every path; a large batch is as many op calls (use a batched formulation for speed). Keyword arguments must be
    ``excluded`` (jax.numpy's ignores the others: here a TypeError says so)."""
    excluded = frozenset(excluded)
    for e in excluded:
        if not isinstance(e, (int, str)):  # (a bool is an int: True is position 1, as jax.numpy's)
            raise TypeError(f"tj.numpy.vectorize can only exclude integer or string arguments, but "
                            f"excluded={set(excluded)!r}")
        if isinstance(e, int) and e < 0:
            raise ValueError(f"tj.numpy.vectorize: excluded={set(excluded)!r} contains negative numbers")
    context = f"on vectorized function with excluded={set(excluded) or '{}'} and signature={signature!r}"

    @functools.wraps(pyfunc)
    def vectorized(*args, **kwargs):
        # (a malformed signature raises here, when called, as jax.numpy's)
        cores = _gufunc_signature(signature) if signature is not None else None
        loose = [k for k in kwargs if k not in excluded]
        if loose:
            raise TypeError(f"tj.numpy.vectorize: keyword argument(s) {loose} are not in excluded (jax.numpy's vectorize "
                            f"ignores them); list them in excluded= to pass them as they are, or pass them "
                            f"positionally to vectorize over them")
        positions = [i for i in range(len(args)) if i not in excluded]
        in_cores, out_cores = cores if cores is not None else ([()] * len(positions), None)
        # None is passed as it is, as an excluded argument (jax.numpy's), where no core dimension is asked of it
        nones = {k for k, i in enumerate(positions) if args[i] is None}
        if nones and builtins.any(tuple(in_cores[k]) != () for k in nones if k < len(in_cores)):
            raise ValueError(f"tj.numpy.vectorize: Cannot pass None at locations {nones} with signature={signature!r}")
        in_cores = [c for k, c in enumerate(in_cores) if k not in nones]
        fixed = {i: a for i, a in enumerate(args) if i in excluded or a is None}
        # (a Python number weakly typed, as jax.numpy's: float16 x 2.5 stays float16)
        dynamic = [asarray(a) if type(a) in (int, float, complex) else convert_to_tensor(a)
                   for i, a in enumerate(args) if i not in fixed]
        _check_rank_promotion(dynamic, in_cores, signature)

        def call(*dyn):
            it = iter(dyn)
            full = [fixed[i] if i in fixed else next(it) for i in range(len(args))]
            return pyfunc(*full, **kwargs)
        return _vectorized_call(call, dynamic, list(in_cores), out_cores, context)
    # (its own signature, not pyfunc's which __wrapped__ would show: tj.function must not fill in pyfunc's defaults)
    vectorized.__signature__ = inspect.Signature([inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
                                                  inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)])
    return vectorized


def _check_rank_promotion(args, cores, signature) -> None:
    """jax's ``jax_numpy_rank_promotion`` ('warn'/'raise'): operands whose loop dimensions differ in rank."""
    mode = jax.config.jax_numpy_rank_promotion
    if mode == "allow":
        return
    ranks = {a.ndim - len(c) for a, c in zip(args, cores) if a.ndim != 0}
    if len(ranks) > 1:
        msg = (f"operands with shapes {[tuple(a.shape) for a in args]} require rank promotion for "
               f"tj.numpy.vectorize function with signature {signature}. Set the jax_numpy_rank_promotion config "
               "option to 'allow' to disable this message, or add the leading dimensions yourself.")
        if mode == "raise":
            raise ValueError(msg)
        warnings.warn(msg)


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """As jax.numpy.apply_along_axis: ``func1d`` (of a 1-d Tensor, written with tj ops) applied to each 1-d slice of
    ``arr`` along ``axis`` (further arguments passed to it as they are); the results take the place of that axis.
    One call of tj ops per slice, as ``vectorize``."""
    arr = convert_to_tensor(arr)
    axis = _check_axis("apply_along_axis", axis, ndim(arr))
    moved = moveaxis(arr, axis, -1)
    out = _vectorized_call(lambda row: func1d(row, *args, **kwargs), [moved], [("n",)], None,
                           "in tj.numpy.apply_along_axis")
    # The result's own dimensions (last) go where the axis was.
    lead, own = list(range(ndim(arr) - 1)), list(range(ndim(arr) - 1, ndim(out)))
    return transpose(out, lead[:axis] + own + lead[axis:]) if own else out


def apply_over_axes(func, a, axes):
    """As jax.numpy.apply_over_axes: ``a = func(a, axis)`` for each axis in turn (a result one rank short gets the
    axis back as 1); ``func`` runs on Tensors, so it is differentiated as the tj ops it calls."""
    a = convert_to_tensor(a)
    for axis in _axes(axes):
        b = convert_to_tensor(func(a, axis))
        if ndim(b) == ndim(a) - 1:
            b = expand_dims(b, axis)
        elif ndim(b) != ndim(a):
            raise ValueError(f"tj.numpy.apply_over_axes: func returned shape {shape(b)} for an input of shape "
                             f"{shape(a)} and axis {axis}; it must keep the rank or reduce it by one")
        a = b
    return a


_frexp_values = _values_only("frexp", jnp.frexp)


def _ldexp_bwd(res, g):
    (x1, x2), _ = res
    # (the gradient scaled exactly, by 2**x2 itself: inf only where that overflows)
    return _cast_like(_unbroadcast(jnp.ldexp(g, x2), jnp.shape(x1)), x1), None


# jax.numpy's exact function (0 and inf stay themselves where a product of powers of two would make 0 * inf = NaN,
# and no compiler reassociates it into an overflow), with the exact gradient; not drawn from _rng (later samples stay)
_ldexp = OpDef("ldexp", jnp.ldexp, bwd=_ldexp_bwd, jvp=lambda p, t, out: jnp.ldexp(t[0], p[1]),
               samples=_samples(((np.array([[0.5, -1.5, 3.0], [1.25, 2.25, -0.75]], np.float32),
                                  np.array([3, -2, 0], np.int32)), {})))


def ldexp(x1, x2, /):
    """As jax.numpy.ldexp: ``x1 * 2**x2`` for integer ``x2``, exact; differentiable in ``x1`` (``2**x2``)."""
    x1, x2 = _inexact_or_number(x1), convert_to_tensor(x2)
    if x2.dtype == jnp.bool_:  # (an exponent of 0 or 1: NumPy's and jax.numpy's take it)
        x2 = astype(x2, jnp.int32)
    if not jnp.issubdtype(x2.dtype, jnp.integer):
        raise TypeError(f"tj.numpy.ldexp: the exponent x2 must be integer typed (or bool), got {x2.dtype} (as "
                        "jax.numpy's)")
    return _ldexp(x1, x2)


def frexp(x, /):
    """As jax.numpy.frexp: ``(mantissa, exponent)`` with ``x == mantissa * 2**exponent``; the mantissa is
    differentiable (``2**-exponent``), the int exponent not. (Subnormal inputs: see jax.numpy's own result.)"""
    x = _inexact(x)
    if jnp.issubdtype(x.dtype, jnp.complexfloating):
        raise TypeError("tj.numpy.frexp does not support complex-valued inputs (as jax.numpy's)")
    exponent = _frexp_values(x)[1]
    return ldexp(x, negative(exponent)), exponent


def modf(x, /, out=None):
    """As jax.numpy.modf: ``(fractional, integral)`` parts, both with ``x``'s sign; the fractional part has
    gradient 1, the integral part none (as floor and ceil)."""
    _no_out("modf", out)
    x = _inexact(x)
    whole = where(greater_equal(x, 0), floor(x), ceil(x))
    return subtract(x, whole), whole


i0 = _unary("i0", jnp.i0, lambda x, y: jax.scipy.special.i1(x))  # jax.numpy's i0, derivative i1
# (C's fmod: the remainder with x1's sign; d/dx2 = -trunc(x1 / x2), as jax's rem)
fmod = _binary("fmod", jnp.fmod, _gx, lambda x, y, o, g: -g * jnp.trunc(x / y), domain_y=_pos)


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """As jax.numpy.histogram_bin_edges: ``bins`` (an array of edges), or ``bins + 1`` edges evenly spaced over
    ``range`` (``a``'s min and max by default; widened by 0.5 when empty), differentiable in ``a`` and ``range`` as
    jax.numpy's."""
    if isinstance(bins, str):
        raise NotImplementedError("tj.numpy.histogram_bin_edges: string values for bins are not implemented (as "
                                  "jax.numpy's); give a number of bins or the edges")
    a = convert_to_tensor(a)
    dt = inexact_dtype(a.dtype)
    if ndim(bins) == 1:
        return _cast(bins, dt)
    count = as_index(static(bins), f"tj.numpy.histogram_bin_edges: bins must be an integer or a 1-d array of "
                                   f"edges, got {bins!r}")
    if range is None:
        lo, hi = _cast(min(a), dt), _cast(max(a), dt)
    else:
        if not isinstance(range, (Tensor, Variable)) and builtins.any(isinstance(r, (Tensor, Variable)) for r in range):
            range = stack([_cast(r, dt) for r in range])  # (a pair holding Tensors: differentiable in them)
        range = _cast(range, dt)
        if shape(range) != (2,):
            raise ValueError(f"tj.numpy.histogram_bin_edges: range must be None or a pair of scalars, got shape "
                             f"{shape(range)}")
        lo, hi = range[0], range[1]
    empty = equal(lo, hi)
    lo, hi = where(empty, subtract(lo, 0.5), lo), where(empty, add(hi, 0.5), hi)
    return linspace(lo, hi, count + 1, dtype=dt)


def histogram(a, bins=10, range=None, weights=None, density=None, out_sharding=None):
    """As jax.numpy.histogram: ``(counts, bin_edges)``, counts as floats (summed ``weights``: differentiable in them;
    ``density``: divided by the total and the bin widths, differentiable in ``a`` through the edges, as jax's).
    ``out_sharding``: both results' sharding (``jax.device_put``, as jax.numpy's from jax 0.11 places both; one
    that does not divide their lengths raises ``ValueError``, as there)."""
    if out_sharding is not None:
        place = _placement("histogram", None, out_sharding)
        counts, edges = histogram(a, bins, range, weights, density)
        return _placed(counts, place), _placed(edges, place)
    if weights is None:
        a = _inexact(a)
        w = ones_like(a)
    else:
        a, w = convert_to_tensor(a), convert_to_tensor(weights)
        if shape(w) != shape(a):
            raise ValueError(f"tj.numpy.histogram: weights of shape {shape(w)} for a of shape {shape(a)}; they must "
                             "have the same shape")
        dt = inexact_dtype(a.dtype, w.dtype)  # (promoted together, as jax.numpy's: int16 with float16 is float16)
        a, w = _cast(a, dt), _cast(w, dt)
    edges = histogram_bin_edges(a, bins, range)
    n = shape(edges)[0]
    flat = ravel(a)
    index = where(equal(flat, edges[-1]), n - 1, searchsorted(edges, flat, side="right"))
    counts = bincount(index, ravel(w), length=n)[1:]
    if density:
        counts = divide(divide(counts, diff(edges)), sum(counts))
    return counts, edges


def histogramdd(sample, bins=10, range=None, weights=None, density=None):
    """As jax.numpy.histogramdd: ``(counts, [edges per dimension])`` of the ``(N, D)`` ``sample`` (int counts, or
    summed ``weights``: differentiable in them; ``density``: normalized by the total and the bin volumes)."""
    sample = convert_to_tensor(sample) if weights is not None else _inexact(sample)
    if ndim(sample) != 2:
        raise ValueError(f"tj.numpy.histogramdd: sample must be 2-d (N points x D dimensions), got shape "
                         f"{shape(sample)}")
    n, d = shape(sample)
    if weights is not None:
        weights = convert_to_tensor(weights)
        if shape(weights) != (n,):
            raise ValueError(f"tj.numpy.histogramdd: weights of shape {shape(weights)} for {n} points; give one "
                             "weight per point")
        dt = inexact_dtype(sample.dtype, weights.dtype)  # (promoted together, as jax.numpy's)
        sample, weights = _cast(sample, dt), _cast(weights, dt)
    if range is not None and (len(range) != d or builtins.any(r is not None and np.shape(r)[0] != 2 for r in range)):
        raise ValueError(f"tj.numpy.histogramdd: for a sample of shape {(n, d)}, range must be a sequence of {d} "
                         f"pairs or Nones; got {range!r}")
    try:
        per_dim = list(bins)
    except TypeError:
        per_dim = [bins] * d
    else:
        if len(per_dim) != d:
            raise ValueError(f"tj.numpy.histogramdd: {len(per_dim)} bins for {d} dimensions; give one per dimension")
    indices, edges = [], []
    for i in builtins.range(d):
        column = sample[:, i]
        e = histogram_bin_edges(column, per_dim[i], None if range is None else range[i])
        found = searchsorted(e, column, side="right")
        indices.append(where(equal(column, e[-1]), subtract(found, 1), found))
        edges.append(e)
    nbins = tuple(shape(e)[0] + 1 for e in edges)
    flat = ravel_multi_index(tuple(indices), nbins, mode="clip")
    hist = reshape(bincount(flat, weights, length=int(np.prod(nbins))), nbins)[(slice(1, -1),) * d]
    if density:
        hist = _cast(hist, sample.dtype)
        hist = divide(hist, sum(hist))
        for i, e in enumerate(edges):
            hist = divide(hist, reshape(diff(e), tuple(-1 if j == i else 1 for j in builtins.range(d))))
    return hist, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):
    """As jax.numpy.histogram2d: ``(counts, x_edges, y_edges)`` of the points ``(x, y)``, as ``histogramdd``."""
    try:
        n = len(bins)
    except TypeError:
        n = 1
    if n not in (1, 2):
        bins = [bins, bins]  # (one array of edges for both)
    counts, edges = histogramdd(transpose(stack([_inexact(x), _inexact(y)])), bins, range, weights, density)
    return counts, edges[0], edges[1]


def _magnitudes(x1, x2):
    """``|x1|, |x2|`` in the unsigned type of their signed integer type (|-2**31| is 2**31 there, -2**31 in int32),
    with that signed type; None for other types."""
    dtype = jnp.result_type(x1, x2)
    if not jnp.issubdtype(dtype, jnp.signedinteger):
        return None
    unsigned = jnp.dtype(f"uint{8 * dtype.itemsize}")
    return tuple(jnp.where(x < 0, -x, x).astype(unsigned) for x in (jnp.asarray(x1, dtype), jnp.asarray(x2, dtype)))


def _gcd_fn(x1, x2):
    # jax.numpy's gcd loops on abs(x), which is negative for the type's minimum: gcd(int32(-2**31), 6) never
    # returned (its while_loop swaps the pair for ever). On the magnitudes in the unsigned type it ends; the result
    # wraps back as NumPy's (gcd(-2**31, 0) is -2**31 in int32, 2**31 unrepresentable).
    magnitudes = _magnitudes(x1, x2)
    if magnitudes is None:
        return jnp.gcd(x1, x2)
    return jnp.gcd(*magnitudes).astype(jnp.result_type(x1, x2))


def _lcm_fn(x1, x2):
    # |x1| * (|x2| // gcd) on the magnitudes (jax.numpy's lcm calls its gcd: the same endless loop), wrapping on
    # overflow as NumPy's
    magnitudes = _magnitudes(x1, x2)
    if magnitudes is None:
        return jnp.lcm(x1, x2)
    a, b = magnitudes
    d = jnp.gcd(a, b)
    return jnp.where(d == 0, 0, a * (b // jnp.where(d == 0, 1, d))).astype(jnp.result_type(x1, x2))


# functions of values with no gradient (integers, bools, bit patterns; spacing's float result has none in jax
# either: its derivative is not defined there)
_gcd = _values_only("gcd", _gcd_fn)
_lcm = _values_only("lcm", _lcm_fn)
_spacing = _values_only("spacing", jnp.spacing)
_bitwise_count = _values_only("bitwise_count", jnp.bitwise_count)
_isneginf = _values_only("isneginf", jnp.isneginf)
_isposinf = _values_only("isposinf", jnp.isposinf)
_left_shift = _values_only("left_shift", jnp.left_shift)
_right_shift = _values_only("right_shift", jnp.right_shift)
_packbits = _values_only("packbits", jnp.packbits)
_unpackbits = _values_only("unpackbits", jnp.unpackbits)


def gcd(x1, x2):
    """As jax.numpy.gcd: the greatest common divisor of integers (no gradient)."""
    return _gcd(x1, x2)


def lcm(x1, x2):
    """As jax.numpy.lcm: the least common multiple of integers (no gradient)."""
    return _lcm(x1, x2)


@jax.custom_jvp
def _nextafter_fn(x, y):
    """``jnp.nextafter`` with TF's NextAfter derivative (jax.numpy's has no rule): 1 in ``x`` (the step is a
    rounding), 0 in ``y``."""
    return jnp.nextafter(x, y)


@_nextafter_fn.defjvp
def _nextafter_jvp(primals, tangents):
    out = _nextafter_fn(*primals)
    return out, jnp.broadcast_to(tangents[0], out.shape).astype(out.dtype)


# (y's gradient is zeros, connected, as TF's ``zeros``)
_nextafter = _binary("nextafter", _nextafter_fn, rules=_linear_rules(_nextafter_fn, 1, 0), cases=2, passthrough=(0,))


def nextafter(x, y, /):
    """As jax.numpy.nextafter: the next float after ``x`` towards ``y``. Its gradient is TF's: the incoming
    gradient for ``x`` (summed to its shape), zeros for ``y``; the same in forward mode."""
    return _nextafter(x, y)


def spacing(x, /):
    """As jax.numpy.spacing: the distance from ``x`` to the next float away from 0 (no gradient; jax.numpy's has no
    derivative rule)."""
    return _spacing(x)


def bitwise_count(x, /):
    """As jax.numpy.bitwise_count: the number of 1 bits in the magnitude of each integer (uint8; no gradient)."""
    return _bitwise_count(x)


def isneginf(x, /, out=None):
    """As jax.numpy.isneginf (a bool Tensor)."""
    _no_out("isneginf", out)
    return _isneginf(x)


def isposinf(x, /, out=None):
    """As jax.numpy.isposinf (a bool Tensor)."""
    _no_out("isposinf", out)
    return _isposinf(x)


def left_shift(x, y, /):
    """As jax.numpy.left_shift: ``x << y`` for integers (no gradient)."""
    return _left_shift(x, y)


def right_shift(x1, x2, /):
    """As jax.numpy.right_shift: ``x1 >> x2`` for integers (no gradient)."""
    return _right_shift(x1, x2)


bitwise_left_shift, bitwise_right_shift, bitwise_invert = left_shift, right_shift, invert  # the Array API's names
acos, acosh, asin, asinh, atan, atanh, atan2 = arccos, arccosh, arcsin, arcsinh, arctan, arctanh, arctan2


def _bit_axis(name: str, a, axis):
    return None if axis is None else _check_axis(name, axis, ndim(a))


def packbits(a, axis=None, bitorder="big"):
    """As jax.numpy.packbits: booleans (or integers, as nonzero) packed eight to a uint8 (no gradient)."""
    if bitorder not in ("big", "little"):
        raise ValueError(f"tj.numpy.packbits: bitorder must be 'big' or 'little', got {bitorder!r}")
    return _packbits(a, axis=_bit_axis("packbits", a, axis), bitorder=bitorder)


def unpackbits(a, axis=None, count=None, bitorder="big"):
    """As jax.numpy.unpackbits: each uint8 as its eight bits (``count``: how many to keep; no gradient)."""
    if bitorder not in ("big", "little"):
        raise ValueError(f"tj.numpy.unpackbits: bitorder must be 'big' or 'little', got {bitorder!r}")
    if _index_dtype(a) != np.uint8:
        raise TypeError(f"tj.numpy.unpackbits: a must be uint8, got {_index_dtype(a)} (as jax.numpy's)")
    return _unpackbits(a, axis=_bit_axis("unpackbits", a, axis), count=None if count is None else static(count),
                       bitorder=bitorder)


def trim_zeros(filt, trim="fb", axis=None):
    """As jax.numpy.trim_zeros: ``filt`` without its leading (``'f'``) and trailing (``'b'``) zero slices along
    ``axis`` (every axis when None). Its values must be known when called (the result's shape depends on them); the
    result is a slice of ``filt``, differentiable."""
    filt = convert_to_tensor(filt)
    values = _known("trim_zeros", "filt", filt)
    axes = set(range(ndim(filt))) if axis is None else {_check_axis("trim_zeros", ax, ndim(filt)) for ax in _axes(axis)}
    trim = trim.lower()
    if not axes or ("f" not in trim and "b" not in trim):
        return filt
    index = []
    for ax in range(ndim(filt)):
        if ax not in axes:
            index.append(slice(None))
            continue
        nonzero_at = np.asarray(values).any(axis=tuple(i for i in range(ndim(filt)) if i != ax))
        if not nonzero_at.any():
            index.append(slice(0, 0))
            continue
        start = int(nonzero_at.argmax()) if "f" in trim else None
        stop = len(nonzero_at) - int(nonzero_at[::-1].argmax()) if "b" in trim else None
        index.append(slice(start, stop))
    return filt[tuple(index)]


# -- tj.numpy.linalg's functions composed of this module's ops: linalg cannot import this module (which imports it),
# so they are defined here and set on it (linalg's __all__ lists them) --------------------------------------------

def _linalg_tensorinv(a, ind=2):
    """As jax.numpy.linalg.tensorinv: the inverse of ``a`` as a map from its last axes to its first ``ind``."""
    a = convert_to_tensor(a)
    ind = as_index(ind, f"tj.numpy.linalg.tensorinv: ind must be an integer, got {ind!r}")
    if ind <= 0:
        raise ValueError(f"tj.numpy.linalg.tensorinv: ind must be a positive integer, got {ind}")
    front, back = shape(a)[:ind], shape(a)[ind:]
    rows, cols = int(np.prod(front, dtype=np.int64)), int(np.prod(back, dtype=np.int64))
    if rows != cols:
        raise ValueError(f"tj.numpy.linalg.tensorinv: the product of the first ind={ind} dimensions of shape "
                         f"{shape(a)} ({rows}) must equal that of the others ({cols})")
    return reshape(linalg.inv(reshape(a, (rows, cols))), back + front)


def _linalg_tensorsolve(a, b, axes=None):
    """As jax.numpy.linalg.tensorsolve: ``x`` with ``tensordot(a, x, x.ndim) == b`` (``axes``: axes of ``a`` moved
    to the end first)."""
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    if axes is not None:
        axes = tuple(_axes(axes))
        a = moveaxis(a, axes, tuple(range(ndim(a) - len(axes), ndim(a))))
    out_shape = shape(a)[ndim(b):]
    if shape(a)[:ndim(b)] != shape(b):
        raise ValueError(f"tj.numpy.linalg.tensorsolve: after moving axes to the end, the leading shape of a "
                         f"{shape(a)} must match the shape of b {shape(b)}")
    if size(b) != int(np.prod(out_shape, dtype=np.int64)):
        raise ValueError(f"tj.numpy.linalg.tensorsolve: a of shape {shape(a)} must have prod(a.shape[:b.ndim]) == "
                         f"prod(a.shape[b.ndim:]) for b of rank {ndim(b)}")
    return reshape(linalg.solve(reshape(a, (size(b), -1)), ravel(b)), out_shape)


def _linalg_multi_dot(arrays, *, precision=None):
    """As jax.numpy.linalg.multi_dot: the product of the matrices in order (the first and last may be vectors),
    by one ``einsum``, which picks the cheapest order."""
    arrays = [convert_to_tensor(a) for a in arrays]
    if len(arrays) < 2:
        raise ValueError(f"tj.numpy.linalg.multi_dot requires at least two arrays, got {len(arrays)}")
    shapes = [shape(a) for a in arrays]
    if not (len(shapes[0]) in (1, 2) and len(shapes[-1]) in (1, 2) and builtins.all(len(s) == 2 for s in shapes[1:-1])):
        raise ValueError(f"tj.numpy.linalg.multi_dot: the arrays must be 2-d, except the first and last, which may be "
                         f"1-d; got shapes {shapes}")
    if builtins.any(s[-1] != t[0] for s, t in zip(shapes[:-1], shapes[1:])):
        raise ValueError(f"tj.numpy.linalg.multi_dot: the last dimension of each array must match the first of the "
                         f"next; got shapes {shapes}")
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    if len(arrays) + 1 > len(letters):
        raise ValueError(f"tj.numpy.linalg.multi_dot: at most {len(letters) - 1} arrays, got {len(arrays)}")
    terms = [letters[i:i + 2] for i in range(len(arrays))]
    if len(shapes[0]) == 1:
        terms[0] = terms[0][1:]
    if len(shapes[-1]) == 1:
        terms[-1] = terms[-1][:1]
    kept = [c for c in (terms[0][0] if len(shapes[0]) == 2 else "") + (terms[-1][-1] if len(shapes[-1]) == 2 else "")]
    return einsum(",".join(terms) + "->" + "".join(kept), *arrays, precision=precision)


def _linalg_cond(x, p=None):
    """As jax.numpy.linalg.cond: the condition number in the norm ``p`` (None or 2: the ratio of the extreme
    singular values; -2 its inverse; others: ``norm(x, p) * norm(inv(x), p)``, square matrices); inf where the
    matrix is singular."""
    x = convert_to_tensor(x)
    if ndim(x) < 2:
        raise ValueError(f"tj.numpy.linalg.cond: the input must be at least 2-d, got shape {shape(x)}")
    if shape(x)[-1] == 0 or shape(x)[-2] == 0:
        raise ValueError(f"tj.numpy.linalg.cond: the input must not be empty, got shape {shape(x)}")
    if p is None or p == 2:
        s = linalg.svdvals(x)
        return divide(s[..., 0], s[..., -1])
    if p == -2:
        s = linalg.svdvals(x)
        r = divide(s[..., -1], s[..., 0])
    else:
        if shape(x)[-1] != shape(x)[-2]:
            raise ValueError(f"tj.numpy.linalg.cond: for p={p!r} the matrices must be square, got shape {shape(x)}")
        r = multiply(linalg.norm(x, ord=p, axis=(-2, -1)), linalg.norm(linalg.inv(x), ord=p, axis=(-2, -1)))
    return where(logical_and(isnan(r), logical_not(any(isnan(x), axis=(-2, -1)))), full_like(r, np.inf), r)


def _linalg_cross(x1, x2, /, *, axis=-1):
    """As jax.numpy.linalg.cross: ``cross`` of vectors of 3 along ``axis``."""
    for x in (x1, x2):
        if shape(x)[_check_axis("linalg.cross", axis, ndim(x))] != 3:
            raise ValueError(f"tj.numpy.linalg.cross: both inputs must be (arrays of) 3-d vectors along axis {axis}, "
                             f"got shapes {shape(x1)} and {shape(x2)}")
    return cross(x1, x2, axis=axis)


def _linalg_matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
    """As jax.numpy.linalg.matmul (``matmul``)."""
    return matmul(x1, x2, precision=precision, preferred_element_type=preferred_element_type)


def _linalg_outer(x1, x2, /):
    """As jax.numpy.linalg.outer: the outer product of two 1-d arrays."""
    if ndim(x1) != 1 or ndim(x2) != 1:
        raise ValueError(f"tj.numpy.linalg.outer: the inputs must be 1-d, got shapes {shape(x1)} and {shape(x2)}")
    return outer(x1, x2)


def _linalg_vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """As jax.numpy.linalg.vecdot (``vecdot``)."""
    return vecdot(x1, x2, axis=axis, precision=precision, preferred_element_type=preferred_element_type)


def _linalg_matrix_transpose(x, /):
    """As jax.numpy.linalg.matrix_transpose: the last two axes swapped."""
    return matrix_transpose(x)


def _linalg_tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None):
    """As jax.numpy.linalg.tensordot (``tensordot``)."""
    return tensordot(x1, x2, axes, precision=precision, preferred_element_type=preferred_element_type)


def _linalg_trace(x, /, *, offset=0, dtype=None):
    """As jax.numpy.linalg.trace: the trace of each matrix (the last two axes)."""
    return trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def _linalg_diagonal(x, /, *, offset=0):
    """As jax.numpy.linalg.diagonal: the diagonal of each matrix (the last two axes)."""
    return diagonal(x, offset=offset, axis1=-2, axis2=-1)


for _f in (_linalg_tensorinv, _linalg_tensorsolve, _linalg_multi_dot, _linalg_cond, _linalg_cross, _linalg_matmul,
           _linalg_outer, _linalg_vecdot, _linalg_matrix_transpose, _linalg_tensordot, _linalg_trace,
           _linalg_diagonal):
    _f.__name__ = _f.__qualname__ = _f.__name__[len("_linalg_"):]
    _f.__module__ = linalg.__name__  # (its errors and the name= sweep count it as tj.numpy.linalg's)
    setattr(linalg, _f.__name__, _f)
del _f


# -- the last of jax.numpy: composed of the ops above (every path differentiates them with tapejax's rules); indices and
# booleans have no gradient; the values of the set functions (unique_*, union1d, intersect1d, ...) are gathers (take)
# of the input's entries, so the gradient reaches the entry each value was taken from, as jax.numpy's ---------------

def rollaxis(a, axis, start=0):
    """As jax.numpy.rollaxis: ``axis`` moved to sit before ``start``."""
    a = convert_to_tensor(a)
    n = ndim(a)
    axis = _check_axis("rollaxis", axis, n)
    start = as_index(start, f"tj.numpy.rollaxis: start must be an integer, got {start!r}")
    if not -n <= start <= n:
        raise ValueError(f"tj.numpy.rollaxis: start={start} must satisfy {-n} <= start <= {n} for an array of shape "
                         f"{shape(a)}")
    start = start + n if start < 0 else start
    return moveaxis(a, axis, start - 1 if start > axis else start)


def unstack(x, /, *, axis=0):
    """As jax.numpy.unstack: the slices of ``x`` along ``axis``, as a tuple."""
    x = convert_to_tensor(x)
    if ndim(x) == 0:
        raise ValueError("tj.numpy.unstack requires an array of rank > 0, got a scalar (shape ())")
    x = moveaxis(x, _check_axis("unstack", axis, ndim(x)), 0)
    return tuple(x[i] for i in range(shape(x)[0]))


def ediff1d(ary, to_end=None, to_begin=None):
    """As jax.numpy.ediff1d: the differences of the flattened ``ary``, with ``to_begin``/``to_end`` (cast to its dtype)
    around them."""
    a = ravel(ary)
    parts = [subtract(a[1:], a[:-1])]
    if to_begin is not None:
        parts.insert(0, ravel(_cast(to_begin, a.dtype)))
    if to_end is not None:
        parts.append(ravel(_cast(to_end, a.dtype)))
    return parts[0] if len(parts) == 1 else concatenate(parts)


def diag_indices(n, ndim=2):
    """As jax.numpy.diag_indices: the indices of the main diagonal of an ``(n,) * ndim`` array."""
    n = as_index(static(n), f"tj.numpy.diag_indices: n must be an integer, got {n!r}")
    rank = as_index(static(ndim), f"tj.numpy.diag_indices: ndim must be an integer, got {ndim!r}")
    if n < 0 or rank < 0:
        raise ValueError(f"tj.numpy.diag_indices: n and ndim must be nonnegative, got n={n}, ndim={rank}")
    return (convert_to_tensor(jnp.arange(n)),) * rank


def diag_indices_from(arr):
    """As jax.numpy.diag_indices_from: ``diag_indices`` for the (at least 2-d, square) ``arr``."""
    s = shape(arr)
    if len(s) < 2:
        raise ValueError(f"tj.numpy.diag_indices_from: the input array must be at least 2-d, got shape {s}")
    if len(set(s)) != 1:
        raise ValueError(f"tj.numpy.diag_indices_from: all dimensions of the input must be of equal length, got "
                         f"shape {s}")
    return diag_indices(s[0], len(s))


def _matrix_shape(name: str, arr) -> tuple:
    s = shape(arr) if isinstance(arr, (Tensor, Variable)) or not hasattr(arr, "shape") else tuple(arr.shape)
    if len(s) != 2:
        raise ValueError(f"tj.numpy.{name}: only 2-d inputs are accepted, got shape {s}")
    return s


def tril_indices_from(arr, k=0):
    """As jax.numpy.tril_indices_from: ``tril_indices`` for the shape of the 2-d ``arr``."""
    n, m = _matrix_shape("tril_indices_from", arr)
    return tril_indices(n, k=k, m=m)


def triu_indices_from(arr, k=0):
    """As jax.numpy.triu_indices_from: ``triu_indices`` for the shape of the 2-d ``arr``."""
    n, m = _matrix_shape("triu_indices_from", arr)
    return triu_indices(n, k=k, m=m)


def array_equiv(a1, a2):
    """As jax.numpy.array_equiv: whether ``a1`` and ``a2`` broadcast together and are equal everywhere (a bool Tensor;
    shapes that do not broadcast give False, as NumPy's: jax.numpy's raises TypeError there)."""
    a1, a2 = convert_to_tensor(a1), convert_to_tensor(a2)
    try:
        np.broadcast_shapes(shape(a1), shape(a2))
    except ValueError:
        return convert_to_tensor(False)
    return all(equal(a1, a2))


def iscomplex(x):
    """As jax.numpy.iscomplex: where the imaginary part is nonzero (a bool Tensor)."""
    return not_equal(imag(x), 0)


def isreal(x):
    """As jax.numpy.isreal: where the imaginary part is zero (a bool Tensor)."""
    return equal(imag(x), 0)


def ix_(*args):
    """As jax.numpy.ix_: the 1-d arrays reshaped to index an open mesh (one axis each). A boolean mask stands for
    its nonzero indices, as NumPy's, when its values are known (eagerly); inside a trace it raises, as jax.numpy's
    (the length would depend on the values)."""
    out = []
    for i, arg in enumerate(args):
        a = convert_to_tensor(arg)
        if ndim(a) != 1:
            raise ValueError(f"tj.numpy.ix_: the arguments must be 1-dimensional, got shape {shape(a)} for argument "
                             f"{i}")
        if a.dtype == jnp.bool_:
            mask = _concrete_on_host(a)
            if mask is None:
                raise NotImplementedError("tj.numpy.ix_: a boolean argument inside a trace (tj.function, jax.jit) "
                                          "is not supported, as jax.numpy's: its length depends on its values; pass "
                                          "flatnonzero(mask, size=...) instead")
            a = convert_to_tensor(np.flatnonzero(mask).astype(np.int32))
        out.append(reshape(a, (1,) * i + shape(a) + (1,) * (len(args) - i - 1)))
    return tuple(out)


def _window_length(name: str, M) -> int:
    M = static(M)
    try:
        M = int(M)
    except (TypeError, ValueError):
        raise TypeError(f"tj.numpy.{name}: M must be an integer known when called, got {M!r}") from None
    if M < 0:
        raise TypeError(f"tj.numpy.{name}: M must be nonnegative (the window's length), got {M}")
    return M


def bartlett(M):
    """As jax.numpy.bartlett: the Bartlett (triangular) window of ``M`` points."""
    return convert_to_tensor(jnp.bartlett(_window_length("bartlett", M)))


def blackman(M):
    """As jax.numpy.blackman: the Blackman window of ``M`` points."""
    return convert_to_tensor(jnp.blackman(_window_length("blackman", M)))


def hamming(M):
    """As jax.numpy.hamming: the Hamming window of ``M`` points."""
    return convert_to_tensor(jnp.hamming(_window_length("hamming", M)))


def hanning(M):
    """As jax.numpy.hanning: the Hann window of ``M`` points."""
    return convert_to_tensor(jnp.hanning(_window_length("hanning", M)))


def kaiser(M, beta):
    """As jax.numpy.kaiser: the Kaiser window of ``M`` points with shape ``beta`` (differentiable in beta)."""
    M = _window_length("kaiser", M)
    # (as jax.numpy's: the window's points in the default float, float64 under x64, promoted with beta's dtype)
    dtype = jnp.result_type(float)
    beta = _inexact_or_number(beta)
    if M <= 1:
        return ones((M,), dtype)
    alpha = 0.5 * (M - 1)
    t = divide(subtract(arange(M, dtype=dtype), alpha), alpha)
    return divide(i0(multiply(beta, sqrt(subtract(1, multiply(t, t))))), i0(beta))


def put_along_axis(arr, indices, values, axis, inplace=True, *, mode=None):
    """As jax.numpy.put_along_axis: ``arr`` with ``values`` (broadcast) written at ``indices`` along ``axis`` (of the
    flattened ``arr`` when None; the result keeps arr's shape). ``inplace=False`` is required, as jax.numpy's; ``mode``
    None/'fill'/'drop'/'promise_in_bounds' drop out-of-bounds indices, 'clip' clips them. Differentiable in arr and
    values (a written entry's gradient goes to its value)."""
    if inplace:
        raise ValueError("tj.numpy.put_along_axis cannot modify arrays in place (arrays are immutable): pass "
                         "inplace=False, as jax.numpy.put_along_axis requires, and use the returned Tensor")
    if mode not in (None, "fill", "drop", "promise_in_bounds", "clip"):
        raise ValueError(f"tj.numpy.put_along_axis: unknown mode {mode!r}; use None, 'fill', 'drop', "
                         "'promise_in_bounds' or 'clip'")
    a, ind = convert_to_tensor(arr), convert_to_tensor(indices)
    if not jnp.issubdtype(ind.dtype, jnp.integer):
        raise TypeError(f"tj.numpy.put_along_axis: indices must be integers, got dtype {ind.dtype}")
    out_shape, vals = shape(a), convert_to_tensor(values)
    if not broadcasts_to(shape(vals), shape(ind)):
        raise ValueError(f"tj.numpy.put_along_axis: values of shape {shape(vals)} must broadcast to the shape of "
                         f"indices {shape(ind)} (as jax.numpy's)")
    if axis is None:
        if ndim(ind) != 1:
            raise ValueError(f"tj.numpy.put_along_axis: with axis=None, indices must be 1-d, got shape {shape(ind)}")
        a, ax = ravel(a), 0
    else:
        if ndim(ind) != ndim(a):
            raise ValueError(f"tj.numpy.put_along_axis: arr and indices must have the same ndim, got shapes "
                             f"{shape(a)} and {shape(ind)}")
        ax = _check_axis("put_along_axis", axis, ndim(a))
    s, total = shape(a), int(np.prod(shape(a), dtype=np.int64))
    try:
        target = tuple(shape(ind)[d] if d == ax else np.broadcast_shapes((s[d],), (shape(ind)[d],))[0]
                       for d in range(len(s)))
    except ValueError:
        raise ValueError(f"tj.numpy.put_along_axis: indices of shape {shape(ind)} do not broadcast against arr of "
                         f"shape {s} outside axis {ax}") from None
    if not total or not int(np.prod(target, dtype=np.int64)):
        return reshape(a, out_shape)
    n, strides = s[ax], np.cumprod((1,) + s[:0:-1], dtype=np.int64)[::-1]
    at = where(less(ind, 0), add(ind, n), ind)  # (negative indices count from the end, once)
    if mode == "clip":
        at, dropped = clip(at, 0, n - 1), None
    else:
        dropped = logical_or(less(at, 0), greater_equal(at, n))
    flat = multiply(astype(at, jnp.int32), int(strides[ax]))
    for d in range(len(s)):
        if d != ax:
            along = np.arange(s[d], dtype=np.int32).reshape((-1,) + (1,) * (len(s) - d - 1))
            flat = add(flat, along * int(strides[d]))
    flat = broadcast_to(flat, target)
    if dropped is not None:  # (written to a spare entry past the end, then cut off)
        flat = where(broadcast_to(dropped, target), total, flat)
    source = _put_source(ravel(flat), shape=(total + 1,), mode="clip")[:total]
    vals = broadcast_to(broadcast_to(_cast(vals, a.dtype), shape(ind)), target)
    return reshape(_set_entries(ravel(a), source, ravel(vals)), out_shape)


# -- sets: unique_* and the *1d functions. Without size= their values must be known (eagerly); size= fixes the
# result's length (traceable), padding with fill_value as jax.numpy's.

from typing import NamedTuple as _NamedTuple  # noqa: E402  (this section's own import)


class _UniqueAllResult(_NamedTuple):
    """As jax.numpy.unique_all's result."""
    values: Any
    indices: Any
    inverse_indices: Any
    counts: Any


class _UniqueCountsResult(_NamedTuple):
    """As jax.numpy.unique_counts's result."""
    values: Any
    counts: Any


class _UniqueInverseResult(_NamedTuple):
    """As jax.numpy.unique_inverse's result."""
    values: Any
    inverse_indices: Any


def _count_of(a) -> int:
    return int(np.prod(shape(a), dtype=np.int64))


def _unique_parts(name: str, x, size, fill_value, equal_nan=False, known=None):
    """jax.numpy.unique(x, return_index, return_inverse, return_counts) of the flattened ``x``, its values gathered from
    the entries where each first occurs (so they carry those entries' gradients). ``known``: the flattened values
    when the caller has them from other arguments (union1d's), else read from ``x`` itself when unsized."""
    if known is None and size is None:
        known = _known_flat(name, x)
    values, index, inverse, counts = _unique_gathered(name, ravel(x), None, equal_nan, size, fill_value, True, known)
    return values, index, reshape(inverse, shape(x)), counts


def unique_values(x, /, *, size=None, fill_value=None):
    """As jax.numpy.unique_values: the sorted unique values of the flattened ``x`` (each NaN its own)."""
    return _unique_parts("unique_values", x, size, fill_value)[0]


def unique_counts(x, /, *, size=None, fill_value=None):
    """As jax.numpy.unique_counts: (values, counts), a named tuple."""
    values, _, _, counts = _unique_parts("unique_counts", x, size, fill_value)
    return _UniqueCountsResult(values, counts)


def unique_inverse(x, /, *, size=None, fill_value=None):
    """As jax.numpy.unique_inverse: (values, inverse_indices of x's shape), a named tuple."""
    values, _, inverse, _ = _unique_parts("unique_inverse", x, size, fill_value)
    return _UniqueInverseResult(values, inverse)


def unique_all(x, /, *, size=None, fill_value=None):
    """As jax.numpy.unique_all: (values, indices, inverse_indices, counts), a named tuple."""
    return _UniqueAllResult(*_unique_parts("unique_all", x, size, fill_value))


def _int_dtype():
    return jnp.result_type(int)  # (jax.numpy's index dtype: int32, or int64 with jax_enable_x64)


def _known_unique(v: np.ndarray, assume_unique: bool, sort: bool = True):
    """(values, their indices in ``v``): ``v``'s sorted unique values where each first occurs, or with
    ``assume_unique`` all of ``v`` (sorted if ``sort``)."""
    if not assume_unique:
        return np.unique(v, return_index=True)
    order = np.argsort(v, kind="stable") if sort else np.arange(v.size)
    return v[order], order


def _known_flat(name: str, a, dtype=None) -> np.ndarray:
    """The flattened values of ``a`` now, as a NumPy array (of ``dtype``): from ``a`` itself, not from a Tensor an op
    made of it, which inside a trace closing over ``a`` is traced even where ``a``'s values are known."""
    v = np.ravel(_concrete_values(name, a))
    return v if dtype is None else v.astype(dtype)


def _set_size(name: str, size, *arrays):
    if size is None:
        for a in arrays:
            _concrete_values(name, a)
        return None
    return as_index(static(size), f"tj.numpy.{name}: size must be an integer, got {size!r}")


def _set_operands(name: str, a, assume_unique: bool, sort: bool):
    """(values, their indices in the flattened ``a``, which are real): ``a``'s unique values sorted (padded to its
    length with its smallest), or with ``assume_unique`` ``a`` itself (sorted if ``sort``)."""
    a = ravel(a)
    n = _count_of(a)
    if assume_unique:
        order = argsort(a) if sort else convert_to_tensor(np.arange(n, dtype=np.int32))
        return take(a, order), order, ones((n,), jnp.bool_)
    values, index, _, counts = _unique_parts(name, a, n, None, equal_nan=True)  # (np.unique's default)
    return values, index, greater(counts, 0)


def _set_pick(keep, size):
    """The positions of the ``keep`` entries in order (``size`` of them, padded with 0; all of them when None) and
    which of those are real."""
    if size is None:
        positions = nonzero(keep)[0]
        return positions, ones(shape(positions), jnp.bool_)
    positions = nonzero(keep, size=size)[0]
    return positions, less(arange(size), sum(astype(keep, jnp.int32)))


def _set_fill(vals, real, fill_value, smallest: bool):
    """Padding: ``fill_value``, else the smallest value found (0 when none, as jax.numpy's) or 0. With
    ``smallest`` (intersect1d, setxor1d) the result's dtype is promoted with fill_value's, as jax.numpy's."""
    if fill_value is not None:
        return where(real, vals, fill_value if smallest else _cast(fill_value, vals.dtype))
    if not smallest or not _count_of(vals):
        return where(real, vals, zeros((), vals.dtype))
    return where(real, vals, where(real[0], vals[0], zeros((), vals.dtype)))


def _empty_set(size, fill_value, dtype) -> Tensor:
    return full((size or 0,), 0 if fill_value is None else fill_value, dtype)


def _common(ar1, ar2):
    a1, a2 = ravel(ar1), ravel(ar2)
    dtype = jnp.result_type(_weak_dtype(ar1), _weak_dtype(ar2))  # (a Python number promotes weakly, as jax's)
    return _cast(a1, dtype), _cast(a2, dtype)


def union1d(ar1, ar2, *, size=None, fill_value=None):
    """As jax.numpy.union1d: the sorted unique values of both (without ``size``, known when called)."""
    size = _set_size("union1d", size, ar1, ar2)
    a1, a2 = _common(ar1, ar2)
    known = None if size is not None else np.concatenate([_known_flat("union1d", ar1, a1.dtype),
                                                          _known_flat("union1d", ar2, a2.dtype)])
    return _unique_parts("union1d", concatenate([a1, a2]), size, fill_value, equal_nan=True, known=known)[0]


def setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """As jax.numpy.setdiff1d: the unique values of ``ar1`` not in ``ar2`` (sorted, unless ``assume_unique``)."""
    size = _set_size("setdiff1d", size, ar1, ar2)
    a1, a2 = ravel(ar1), ravel(ar2)
    if not _count_of(a1):
        return _empty_set(size, fill_value, a1.dtype)
    if size is None:  # (known values: the entries to keep found by NumPy now, then gathered)
        v1, i1 = _known_unique(_known_flat("setdiff1d", ar1), bool(assume_unique), sort=False)
        return take(a1, i1[~np.isin(v1, _known_flat("setdiff1d", ar2))])
    values, _, real = _set_operands("setdiff1d", a1, bool(assume_unique), sort=False)
    keep = logical_and(real, isin(values, a2, invert=True))
    positions, found = _set_pick(keep, size)
    return _set_fill(take(values, positions), found, fill_value, smallest=False)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None, fill_value=None):
    """As jax.numpy.intersect1d: the sorted values in both; with ``return_indices`` also where each first occurs in
    ``ar1`` and ``ar2`` (padding: their lengths). The values are gathered from ``ar1``."""
    size = _set_size("intersect1d", size, ar1, ar2)
    a1, a2 = _common(ar1, ar2)
    n1, n2 = _count_of(a1), _count_of(a2)
    if not n1 or not n2:
        vals = _empty_set(size, fill_value, a1.dtype)
        if not return_indices:
            return vals
        return vals, full(shape(vals), n1, _int_dtype()), full(shape(vals), n2, _int_dtype())
    if size is None:  # (known values: found by NumPy now, then gathered from ar1)
        v2 = _known_flat("intersect1d", ar2, a2.dtype)
        v1, i1 = _known_unique(_known_flat("intersect1d", ar1, a1.dtype), bool(assume_unique))
        found = np.isin(v1, v2)
        vals = take(a1, i1[found])
        if not return_indices:
            return vals
        in2 = np.argmax(v1[found][:, None] == v2[None, :], axis=1) if found.any() else np.zeros(0, int)
        return vals, convert_to_tensor(i1[found].astype(_int_dtype())), convert_to_tensor(in2.astype(_int_dtype()))
    values, index, real = _set_operands("intersect1d", a1, bool(assume_unique), sort=True)
    keep = logical_and(real, isin(values, a2))
    positions, found = _set_pick(keep, size)
    vals = _set_fill(take(values, positions), found, fill_value, smallest=True)
    if not return_indices:
        return vals
    in2 = argmax(equal(expand_dims(take(values, positions), 1), expand_dims(a2, 0)), axis=1)
    return (vals, where(found, astype(take(index, positions), _int_dtype()), n1),
            where(found, astype(in2, _int_dtype()), n2))


def setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """As jax.numpy.setxor1d: the sorted values that occur once among ``ar1``'s and ``ar2``'s unique values (with
    ``assume_unique``, among all their entries: a value repeated inside one goes too, as NumPy's and jax's)."""
    size = _set_size("setxor1d", size, ar1, ar2)
    a1, a2 = _common(ar1, ar2)
    if not _count_of(a1) and not _count_of(a2):
        return _empty_set(size, fill_value, a1.dtype) if size is not None else a1
    if size is None:  # (known values: found by NumPy now, then gathered from both)
        v1, v2 = _known_flat("setxor1d", ar1, a1.dtype), _known_flat("setxor1d", ar2, a2.dtype)
        (u1, i1), (u2, i2) = _known_unique(v1, bool(assume_unique)), _known_unique(v2, bool(assume_unique))
        values, source = np.concatenate([u1, u2]), np.concatenate([i1, v1.size + i2])
        order = np.argsort(values, kind="stable")
        aux = values[order]
        ends = np.concatenate([[True], aux[1:] != aux[:-1], [True]])
        return take(concatenate([a1, a2]), source[order][ends[1:] & ends[:-1]])
    parts = [_set_operands("setxor1d", a, bool(assume_unique), sort=True) for a in (a1, a2) if _count_of(a)]
    values, real = concatenate([p[0] for p in parts]), concatenate([p[2] for p in parts])
    order = lexsort([values, logical_not(real)])  # (the real values first, sorted)
    values, real = take(values, order), take(real, order)
    if _count_of(values) > 1:  # (a value equal to a real neighbour occurs more than once)
        same = logical_and(equal(values[1:], values[:-1]), logical_and(real[1:], real[:-1]))
        no = zeros((1,), jnp.bool_)
        keep = logical_and(real, logical_not(logical_or(concatenate([no, same]), concatenate([same, no]))))
    else:
        keep = real
    positions, found = _set_pick(keep, size)
    return _set_fill(take(values, positions), found, fill_value, smallest=True)


def sort_complex(a):
    """As jax.numpy.sort_complex: sorted along the last axis (by real part, then imaginary), as a complex dtype."""
    a = sort(a)
    return astype(a, jnp.sort_complex(jnp.zeros((0,), a.dtype)).dtype)


def piecewise(x, condlist, funclist, *args, **kw):
    """As jax.numpy.piecewise: where the ``k``-th condition holds (the last that holds wins), ``funclist[k](x, *args,
    **kw)`` or the constant ``funclist[k]``; elsewhere the extra last entry of funclist (or 0); cast to x's dtype.
    Each function is called once on the whole ``x`` (Tensors) and its values selected with ``where`` (jax.numpy's
    calls it per element): differentiable in x through the functions."""
    x = convert_to_tensor(x)
    conds = [condlist[i] for i in range(len(condlist))]
    nc, nf = len(conds), len(funclist)
    if nf == nc + 1:
        default, funcs = funclist[-1], list(funclist[:-1])
    elif nf == nc:
        default, funcs = 0, list(funclist)
    else:
        raise ValueError(f"tj.numpy.piecewise: with {nc} condition(s), either {nc} or {nc + 1} functions are expected; "
                         f"got {nf}")

    def piece(f):
        return _cast(f(x, *args, **kw) if callable(f) else f, x.dtype)
    out = piece(default)
    for cond, f in zip(conds, funcs):
        out = where(_cast(cond, jnp.bool_), piece(f), out)
    return broadcast_to(out, np.broadcast_shapes(shape(x), shape(out)))
