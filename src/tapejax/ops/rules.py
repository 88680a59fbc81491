"""Shared pieces of hand-written gradient rules (pure JAX, used inside jitted kernels)."""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from . import complex_c99, linear_rule
from .linear_rule import LinearRule


def unbroadcast(g, shape):
    """Sum a broadcast gradient back to ``shape`` (the shape of the input it flows to)."""
    shape = tuple(shape)
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape) if s == 1 and g.shape[lead + i] != 1)
    if axes:
        g = g.sum(axis=axes)
    return g.reshape(shape)


def cast_like(g, x):
    """Cotangent in the input's dtype (weakly typed Python scalars keep the cotangent's). A real input
    of an op with a complex result gets the real part of its gradient (as TF)."""
    dt = jnp.result_type(x)
    if not jnp.issubdtype(dt, jnp.inexact) or g.dtype == dt:
        return g
    if jnp.iscomplexobj(g) and not jnp.issubdtype(dt, jnp.complexfloating):
        g = jnp.real(g)  # an explicit real part: a complex -> real astype is deprecated in JAX
    return g.astype(dt)


def sign(x):
    """``jnp.sign``, with a complex sign written as TF computes it, ``div_no_nan(z, |z|)``, so that its derivative
    is TF's (JAX's complex sign has derivative 0; TF's is that of ``z / |z|``, and 0 at 0). Rules that multiply
    by a sign (``abs``'s derivative) use it so that their own derivative, the second order, is right too."""
    if not jnp.iscomplexobj(x):
        return jnp.sign(x)  # derivative 0 (TF's SignGrad)
    return _complex_sign(x)


def _sign_parts(z):
    """(z != 0, |z| (1 at 0), the complex sign z / |z| (0 at 0))."""
    nonzero = z != 0
    safe = jnp.where(nonzero, z, 1)  # (no 0 / 0)
    r = jnp.abs(safe)
    return nonzero, r, jnp.where(nonzero, safe / r, 0).astype(z.dtype)


@jax.custom_jvp
def _complex_sign(z):
    return _sign_parts(z)[2]


@_complex_sign.defjvp
def _complex_sign_jvp(primals, tangents):
    # The derivative of TF's div_no_nan(z, |z|) (its DivNoNanGrad divides by |z| twice): t / |z| - (s / |z|) *
    # Re(conj(s) t), 0 at z = 0. JAX's derivative of the quotient takes |z| ** 2, which underflows to 0 in
    # float32 below |z| ~ 1e-19: the second order of abs was NaN there where TF's is finite.
    (z,), (t,) = primals, tangents
    nonzero, r, s = _sign_parts(z)
    r = r.astype(s.dtype)
    t = t.astype(s.dtype)
    d = t / r - (s / r) * jnp.real(jnp.conj(s) * t).astype(s.dtype)
    return s, jnp.where(nonzero, d, 0).astype(s.dtype)


def times_sign(t, s):
    """``t * s`` for a sign ``s`` (``abs``'s derivative), but 0 where a complex ``s`` is 0 even for an infinite
    ``t``: TF's complex abs gradient is ``div_no_nan(g * z, |z|)``, 0 at z = 0 whatever ``g``; its real one is
    ``g * sign(x)`` (NaN for an infinite ``g`` at 0, kept)."""
    return mul_no_nan(s, t) if jnp.iscomplexobj(s) else t * s


@jax.custom_jvp
def mul_no_nan(g, d):
    """``g * d`` but 0 where ``g`` is 0, even where ``d`` is inf or NaN (TF's convention for sqrt, rsqrt...).

    Its own derivative is that of TF's kernels (``ReciprocalGrad``, ``RsqrtGrad``: their gradients), so that a
    backward written with it has TF's second order: with respect to ``g`` the same no-NaN product (a zero
    tangent or cotangent gives 0 where ``d`` is infinite), with respect to ``d`` the plain ``g * t``."""
    return jnp.where(g == 0, jnp.zeros_like(g), g * d)


@mul_no_nan.defjvp
def _mul_no_nan_jvp(primals, tangents):
    g, d = primals
    tg, td = tangents
    out = mul_no_nan(g, d)
    t = jnp.zeros(out.shape, out.dtype)
    if _has_tangent(tg):
        t = t + scale_no_nan(jnp.broadcast_to(tg.astype(out.dtype), out.shape),
                             jnp.broadcast_to(jnp.asarray(d).astype(out.dtype), out.shape))
    if _has_tangent(td):
        t = t + (g * td).astype(out.dtype)
    return out, t


def _has_tangent(t) -> bool:
    return jnp.result_type(t) != jax.dtypes.float0


@functools.lru_cache(maxsize=None)
def _no_nan_rule(shape: tuple, dtype) -> LinearRule:
    aval = jax.core.ShapedArray(shape, dtype)

    def scale(res, lin):  # its own transpose (JAX's convention: t * c transposes to ct * c)
        return [jnp.where(lin[0] == 0, jnp.zeros_like(lin[0]), lin[0] * res[0])]
    return LinearRule(scale, scale, [aval], [aval])


def scale_no_nan(t, c):
    """``t * c``, 0 where ``t`` is 0 even where ``c`` is inf or NaN, as a map JAX treats as linear in ``t`` (its
    transpose is the same product): the tangent of an op whose TF gradient kernel is no-NaN (``tf_reciprocal``,
    ``tf_sqrt``, ``tf_rsqrt``), which JAX could not transpose if written with ``where(t == 0, ...)``. ``t`` and
    ``c`` have the same shape; both are taken in their promoted dtype (the rule's type must be its code's: a weakly
    typed float64 ``t``, a Python number's tangent under x64, times a float32 ``c`` is float32)."""
    dtype = jnp.result_type(t, c)
    t, c = jnp.asarray(t).astype(dtype), jnp.asarray(c).astype(dtype)
    (out,) = linear_rule.bind(_no_nan_rule(tuple(jnp.shape(t)), dtype), [c], [t])
    return out


def plain_primal(f):
    """``f(x, **static)`` whose value is ``f``'s own also where JAX differentiates it, the derivative JAX's.

    JAX's JVP of a product reduction or scan (``prod``, ``cumprod``) computes the value once more, as a pairwise
    tree of products: it differs from ``f``'s in the last bits (most entries of a float32 ``prod`` of 3 or more)
    and in the sign of a zero. A recorded op's value comes from the kernel that also keeps the residuals, so a
    tape changed the value of the program it records (in TF recording changes no value; tf_complex_differential
    seed 901768: ``angle(prod(z))`` was pi under a tape, 0 unrecorded and in TF)."""
    @functools.wraps(f)
    def with_plain_primal(x, **static):
        @jax.custom_jvp
        def fn(x):
            return f(x, **static)

        @fn.defjvp
        def fn_jvp(primals, tangents):
            return fn(*primals), jax.jvp(functools.partial(f, **static), primals, tangents)[1]
        return fn(x)
    return with_plain_primal


def _no_nan_derivative(f, d, name: str, tf_name: str):
    """``f`` whose derivative is ``d(x, y)`` (``y = f(x)``) applied with ``scale_no_nan``: TF's ``tf_name``
    kernel, 0 for a zero tangent or cotangent where the derivative is infinite (JAX's gives NaN there). A tuple
    from ``d`` is factors applied one after the other, in the order TF's kernel multiplies them (RsqrtGrad's
    ``(g * y) * (y * y)``: ``y**3`` alone underflows where the product with ``g`` does not)."""
    @jax.custom_jvp
    def fn(x):
        return f(x)

    @fn.defjvp
    def fn_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        y = fn(x)
        factors = d(x, y)
        for c in factors if isinstance(factors, tuple) else (factors,):
            t = scale_no_nan(t, c.astype(y.dtype))
        return y, t
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``{f.__name__.strip('_')}`` with TF's derivative (its ``{tf_name}``: 0 where the tangent is 0)."
    return fn


def _sqrt(x):
    """``jnp.sqrt``, whose complex root's imaginary part has the sign of ``x``'s, also for a signed zero (C99's
    csqrt, as TF and NumPy: ``sqrt(-1 - 0j)`` is ``-1j``; XLA's complex sqrt gives ``+1j``)."""
    y = jnp.sqrt(x)
    if jnp.iscomplexobj(y):
        y = jax.lax.complex(jnp.real(y), jnp.copysign(jnp.imag(y), jnp.imag(x)))
    return y


# TF's ops whose gradient kernels are no-NaN: written with them, a gradient rule's own derivative is TF's
tf_reciprocal = _no_nan_derivative(jnp.reciprocal, lambda x, y: -y * y, "tf_reciprocal", "ReciprocalGrad")
tf_sqrt = _no_nan_derivative(_sqrt, lambda x, y: 0.5 / y, "tf_sqrt", "SqrtGrad")
tf_rsqrt = _no_nan_derivative(jax.lax.rsqrt, lambda x, y: (y, -0.5 * y * y), "tf_rsqrt", "RsqrtGrad")


@jax.custom_jvp
def sqrt_grad(y, g):
    """TF's ``SqrtGrad(y, g)``, ``0.5 * g / conj(y)`` (0 where ``g`` is 0), with TF's derivative: the
    transpose of ``_SqrtGradGrad`` (``ga = w / y``; ``-conj(ga) * out``, ``0.5 * ga``), plain products."""
    return mul_no_nan(g, complex_c99.infinite_operand(0.5 / conj(y)))  # (at 0j: inf + nan j, as TF's)


@sqrt_grad.defjvp
def _sqrt_grad_jvp(primals, tangents):
    y, g = primals
    ty, tg = tangents
    out = sqrt_grad(y, g)
    # summed before the division, as TF's forward mode (the transpose of its gradient) computes it
    return out, ((0.5 * tg - conj(ty) * out) / conj(y)).astype(out.dtype)


# -- complex values: TensorFlow's convention ---------------------------------------------------------------
# For a real loss L of a complex z, TF's gradient is dL/dx + i dL/dy = conj(jax.grad(L)(z)): TF's rules
# read ``grad * conj(f'(z))`` where JAX's VJPs read ``ct * f'(z)``. The two are related op by op by
# conjugating the cotangent going in and the gradient coming out; the map is its own inverse, so the same
# helper turns a JAX-convention VJP into a TF one and back. On real arrays conj is the identity and these
# helpers add nothing to the compiled kernel (the dtype test happens at trace time).

def conj(x):
    """``conj(x)`` for a complex array; real arrays (and None) unchanged, with no op added."""
    if x is None or not jnp.iscomplexobj(x):
        return x
    return jnp.conj(x)


def conj_tree(tree):
    """``conj`` of every complex leaf of a pytree (None leaves stay None)."""
    return jax.tree_util.tree_map(conj, tree)


def tf_complex_vjp(vjp, cts):
    """``conj(vjp(conj(cts)))``: a JAX-convention VJP as TF's backward (and a TF backward as JAX's VJP)."""
    return conj_tree(vjp(conj_tree(cts)))


def tf_complex_bwd(bwd):
    """A hand-written ``bwd(res, cts, **static)`` whose formulas are JAX-convention derivatives
    (``ct * f'(z)``, analytic in every input), as a TF-convention backward."""
    def wrapped(res, cts, **static):
        return tf_complex_vjp(lambda c: bwd(res, c, **static), cts)
    wrapped.__name__ = getattr(bwd, "__name__", "bwd")
    wrapped.__doc__ = bwd.__doc__
    return wrapped
