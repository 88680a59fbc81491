"""Shared pieces of hand-written gradient rules (pure JAX, used inside jitted kernels)."""
from __future__ import annotations

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
    """Cotangent in the input's dtype (weakly typed Python scalars keep the cotangent's)."""
    dt = jnp.result_type(x)
    return g.astype(dt) if jnp.issubdtype(dt, jnp.inexact) and g.dtype != dt else g


def mul_no_nan(g, d):
    """``g * d`` but 0 where ``g`` is 0, even where ``d`` is inf or NaN (TF's convention for sqrt, rsqrt...)."""
    return jnp.where(g == 0, jnp.zeros_like(g), g * d)
