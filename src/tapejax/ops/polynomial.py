"""jax.numpy's polynomial functions (``poly``, ``polyadd``, ..., ``roots``) on tj.numpy's ops, set on tj.numpy.

Coefficients run from the highest degree to the constant (as NumPy's ``poly1d``). Each function is a composition of
tj.numpy's differentiable ops (``convolve``, ``pad``, ``linalg.lstsq``, ``linalg.eigvals`` ...), so gradients flow
on every path (tapes, tj.function, forward mode, jax transforms of tj code). ``tj.numpy.polyval`` is numpy.py's.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ..tensor import convert_to_tensor
from . import numpy as _tnp
from .core import as_index, inexact_dtype, static
from .numpy import (add, arange, argmin, argsort, astype, concatenate, convolve, divide, equal, expand_dims, less,
                    linalg, logical_not, matmul, mod, multiply, negative, ones, outer, pad, sqrt, stack, take,
                    transpose, trim_zeros, where, zeros)

__all__ = ["poly", "polyadd", "polysub", "polymul", "polydiv", "polyder", "polyint", "polyfit", "roots"]

_SCALARS = (bool, int, float, complex)


def _dtype_of(*xs, inexact: bool):
    """The dtype jax.numpy promotes ``xs`` to (Python scalars weakly), made inexact if asked."""
    types = [x if isinstance(x, _SCALARS) else x.dtype for x in xs]
    # (an integer one becomes jax.numpy's float for it: float32 for int32 also under x64, float64 for int64)
    return jnp.dtype(inexact_dtype(*types) if inexact else jnp.result_type(*types))


def _vector(name: str, what: str, x):
    """``x`` as a Tensor; a coefficient array must be 1-d (jax.numpy fails deep inside on others)."""
    x = convert_to_tensor(x)
    if x.ndim != 1:
        raise ValueError(f"tj.numpy.{name}: {what} must be a 1-d array of coefficients, got shape {tuple(x.shape)}")
    return x


def _order(name: str, m) -> int:
    m = as_index(static(m), f"tj.numpy.{name}: the order m must be an integer, got {m!r}")
    if m < 0:
        raise ValueError(f"tj.numpy.{name}: the order m must be nonnegative, got {m}")
    return m


def _promoted(name: str, a1, a2, inexact: bool, names=("a1", "a2")):
    a1, a2 = _vector(name, names[0], a1), _vector(name, names[1], a2)
    dt = _dtype_of(a1, a2, inexact=inexact)
    return astype(a1, dt), astype(a2, dt)


def poly(seq_of_zeros):
    """``jax.numpy.poly``: the coefficients of the monic polynomial with the given roots (or, for a square matrix,
    its characteristic polynomial: the roots are its eigenvalues, complex)."""
    z = convert_to_tensor(seq_of_zeros)
    z = astype(z, _dtype_of(z, inexact=True))
    if z.ndim == 0:
        z = z.reshape((1,))
    if z.ndim == 2 and z.shape[0] == z.shape[1] and z.shape[0] != 0:
        z = linalg.eigvals(z)
    if z.ndim != 1:
        raise ValueError(f"tj.numpy.poly: seq_of_zeros must be 1-d or a non-empty square 2-d array, got shape "
                         f"{tuple(z.shape)}")
    if z.shape[0] == 0:
        return ones((), z.dtype)
    a = ones((1,), z.dtype)
    for k in range(z.shape[0]):  # multiply by (x - z_k)
        a = convolve(a, stack([ones((), z.dtype), negative(z[k])]))
    return a


def polyadd(a1, a2):
    """``jax.numpy.polyadd``: the sum of two polynomials (the shorter padded with leading zeros)."""
    a1, a2 = _promoted("polyadd", a1, a2, inexact=False)
    n = max(a1.shape[0], a2.shape[0])
    return add(pad(a1, (n - a1.shape[0], 0)), pad(a2, (n - a2.shape[0], 0)))


def polysub(a1, a2):
    """``jax.numpy.polysub``: the difference of two polynomials."""
    a1, a2 = _promoted("polysub", a1, a2, inexact=False)
    return polyadd(a1, negative(a2))


def polymul(a1, a2, *, trim_leading_zeros=False):
    """``jax.numpy.polymul``: the product of two polynomials (a convolution). ``trim_leading_zeros=True`` drops
    their leading zeros first, which needs their values when called (not inside tj.function)."""
    a1, a2 = _promoted("polymul", a1, a2, inexact=True)
    if trim_leading_zeros and (a1.shape[0] > 1 or a2.shape[0] > 1):
        a1, a2 = trim_zeros(a1, trim="f"), trim_zeros(a2, trim="f")
    if a1.shape[0] == 0:
        a1 = zeros((1,), a1.dtype)
    if a2.shape[0] == 0:
        a2 = zeros((1,), a2.dtype)
    return convolve(a1, a2)


def polydiv(u, v, *, trim_leading_zeros=False):
    """``jax.numpy.polydiv``: ``(quotient, remainder)`` of ``u / v`` by long division. The remainder keeps
    ``len(u)`` coefficients (leading ones 0) unless ``trim_leading_zeros=True`` drops those below
    ``sqrt(eps)``, which needs its values when called (not inside tj.function)."""
    u, v = _promoted("polydiv", u, v, inexact=True, names=("u", "v"))
    m, n = u.shape[0] - 1, v.shape[0] - 1
    scale = divide(1.0, v[0])
    quotient = []
    for k in range(m - n + 1):
        d = multiply(scale, u[k])
        quotient.append(d)
        u = add(u, pad(multiply(negative(d), v), (k, m - n - k)))  # u[k:k + n + 1] -= d * v
    q = stack(quotient) if quotient else zeros((1,), u.dtype)
    if trim_leading_zeros:
        tol = float(np.sqrt(jnp.finfo(u.dtype).eps))
        kept = trim_zeros(logical_not(less(_tnp.abs(u), tol)), trim="f")
        u = u[u.shape[0] - kept.shape[0]:]
    return q, u


def polyder(p, m=1):
    """``jax.numpy.polyder``: the coefficients of the ``m``-th derivative."""
    p = _vector("polyder", "p", p)
    m = _order("polyder", m)
    p = astype(p, _dtype_of(p, inexact=True))
    if m == 0:
        return p
    length = p.shape[0]
    factors = np.arange(m, max(length, m))[None, :] - np.arange(m)[:, None]  # i (i - 1) ... (i - m + 1)
    coeff = np.prod(factors.astype(np.float64), axis=0)[::-1]
    return multiply(p[:max(length - m, 0)], np.asarray(coeff, p.dtype))


def polyint(p, m=1, k=None):
    """``jax.numpy.polyint``: the coefficients of the ``m``-th antiderivative, with integration constants ``k``
    (a scalar for all ``m`` or one per integration, the first the highest; default 0)."""
    p = _vector("polyint", "p", p)
    m = _order("polyint", m)
    k = 0 if k is None else k
    if not isinstance(k, _SCALARS):
        k = convert_to_tensor(k)
    dt = _dtype_of(p, k, inexact=True)
    p, k = astype(p, dt), astype(k, dt)
    if k.ndim == 0 or (k.ndim == 1 and k.shape[0] == 1):
        k = multiply(k.reshape(()), ones((m,), dt))
    if tuple(k.shape) != (m,):
        raise ValueError(f"tj.numpy.polyint: k must be a scalar or a 1-d array of length 1 or m = {m}, got shape "
                         f"{tuple(k.shape)}")
    if m == 0:
        return p
    grid = np.arange(p.shape[0] + m)[None, :] - np.arange(m)[:, None]
    coeff = np.prod(np.maximum(1, grid).astype(np.float64), axis=0)[::-1]
    return divide(concatenate([p, k]), np.asarray(coeff, dt))


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """``jax.numpy.polyfit``: the least-squares polynomial of degree ``deg`` through ``(x, y)`` (``y`` 1-d, or 2-d
    with one column per fit), differentiable in ``x``, ``y`` and ``w`` (through ``linalg.lstsq``). ``full=True``
    also returns ``(residuals, rank, singular values, rcond)``; ``cov=True`` (or ``'unscaled'``) the covariance."""
    deg = as_index(static(deg), f"tj.numpy.polyfit: deg must be an integer, got {deg!r}")
    x, y = convert_to_tensor(x), convert_to_tensor(y)
    if deg < 0:
        raise ValueError(f"tj.numpy.polyfit: deg must be nonnegative, got {deg}")
    if x.ndim != 1 or x.shape[0] == 0:
        raise TypeError(f"tj.numpy.polyfit: x must be a non-empty 1-d array, got shape {tuple(x.shape)}")
    if y.ndim not in (1, 2):
        raise TypeError(f"tj.numpy.polyfit: y must be a 1-d or 2-d array, got shape {tuple(y.shape)}")
    if x.shape[0] != y.shape[0]:
        raise TypeError(f"tj.numpy.polyfit: x and y must have the same length, got {x.shape[0]} and {y.shape[0]}")
    order = deg + 1
    x = astype(x, _dtype_of(x, inexact=True))
    rcond = x.shape[0] * float(jnp.finfo(x.dtype).eps) if rcond is None else float(static(rcond))
    lhs, rhs = _tnp.vander(x, order), y
    if w is not None:
        w = convert_to_tensor(w)
        w = astype(w, _dtype_of(w, inexact=True))
        if w.ndim != 1 or w.shape[0] != y.shape[0]:
            raise TypeError(f"tj.numpy.polyfit: w must be a 1-d array as long as y ({y.shape[0]}), got shape "
                            f"{tuple(w.shape)}")
        lhs = multiply(lhs, expand_dims(w, 1))
        rhs = multiply(rhs, expand_dims(w, 1) if rhs.ndim == 2 else w)
    scale = sqrt(_tnp.sum(multiply(lhs, lhs), axis=0))  # columns scaled to unit norm: a better conditioned problem
    lhs = divide(lhs, scale)
    c, resids, rank, s = linalg.lstsq(lhs, rhs, rcond)
    c = divide(c, expand_dims(scale, 1) if c.ndim == 2 else scale)
    if full:
        return c, resids, rank, s, _tnp.asarray(rcond)
    if not cov:
        return c
    base = divide(linalg.inv(matmul(transpose(lhs), lhs)), outer(scale, scale))
    if cov == "unscaled":
        fac = _tnp.asarray(1.0)
    else:
        if x.shape[0] <= order:
            raise ValueError("tj.numpy.polyfit: the number of data points must exceed order to scale the "
                             "covariance matrix")
        fac = divide(resids, x.shape[0] - order)
    if y.ndim == 1:
        return c, multiply(base, fac.reshape((1, -1)))
    return c, multiply(expand_dims(base, 2), fac.reshape((1, 1, -1)))


def _companion_roots(p):
    """The eigenvalues of ``p``'s companion matrix (``p[0]`` nonzero): its roots."""
    n = p.shape[0]
    if n < 2:
        return zeros((0,), _complex_of(p.dtype))
    first = expand_dims(divide(negative(p[1:]), p[0]), 0)
    below = np.eye(n - 1, k=-1)[1:].astype(p.dtype)  # ones under the diagonal
    return linalg.eigvals(concatenate([first, below], axis=0))


def _complex_of(dt):
    return jnp.dtype(jnp.result_type(dt, jnp.complex64))


def roots(p, *, strip_zeros=True):
    """``jax.numpy.roots``: the (complex) roots of the polynomial ``p``, the eigenvalues of its companion matrix
    (``linalg.eigvals``: CPU only; its gradient assumes distinct roots). ``strip_zeros=True`` drops leading zeros,
    which needs ``p``'s values when called; inside tj.function pass ``strip_zeros=False``: a leading zero then
    gives a NaN root (at the end), as jax.numpy's."""
    p = convert_to_tensor(p)
    p = astype(p, _dtype_of(p, inexact=True))
    if p.ndim == 0:
        p = p.reshape((1,))
    if p.ndim != 1:
        raise ValueError(f"tj.numpy.roots: p must be a 1-d array of coefficients, got shape {tuple(p.shape)}")
    n = p.shape[0]
    if n < 2:
        return zeros((0,), _complex_of(p.dtype))
    if strip_zeros:
        try:
            stripped = trim_zeros(p, trim="f")
        except TypeError as e:
            raise TypeError("tj.numpy.roots: with strip_zeros=True, p's values must be known when called (not "
                            "traced inside tj.function or a JAX transformation); pass strip_zeros=False") from e
        return _companion_roots(stripped)  # (its own errors as they are: eigvals of a float16 p)
    is_zero = astype(equal(p, 0), jnp.int32)
    leading = where(_tnp.all(equal(p, 0)), n, argmin(is_zero))  # the number of leading zeros
    p = where(equal(leading, n), ones((), p.dtype), p)
    found = _companion_roots(take(p, mod(add(arange(n), leading), n)))  # the leading zeros moved to the end
    found = take(found, argsort(astype(equal(found, 0), jnp.int32), stable=True))  # (their zero roots last)
    nan = jnp.asarray(complex(np.nan, np.nan), found.dtype)
    return where(less(arange(n - 1), n - 1 - leading), found, nan)


for _name in __all__:  # (tj.numpy imports nothing of this module: it sits above it)
    setattr(_tnp, _name, globals()[_name])
