"""Shared pieces of hand-written gradient rules (pure JAX, used inside jitted kernels)."""
from __future__ import annotations

import jax
import jax.numpy as jnp


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
    nonzero = x != 0
    safe = jnp.where(nonzero, x, 1)  # no 0 / 0 in either branch's derivative
    return jnp.where(nonzero, safe / jnp.abs(safe), 0).astype(x.dtype)


def mul_no_nan(g, d):
    """``g * d`` but 0 where ``g`` is 0, even where ``d`` is inf or NaN (TF's convention for sqrt, rsqrt...)."""
    return jnp.where(g == 0, jnp.zeros_like(g), g * d)


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
