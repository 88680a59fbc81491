"""tj.numpy functions against jax.numpy's own (shared by test_numpy_more.py, test_numpy_tail.py and
test_numpy_rest.py): values, dtypes and the gradient of one weighted sum of the outputs, jax.numpy's from
jax.value_and_grad, tapejax's from a GradientTape."""
from __future__ import annotations

import zlib

import jax
import jax.numpy as jnp
import numpy as np

import tapejax as tj

tnp = tj.numpy


def _planar_cross(m, a, b, axisa, axisb, axisc, axis):
    """``m.cross`` (``m``: numpy or jax.numpy) that also takes 2-component vectors, as NumPy computed them
    before 2.0 deprecated them: a missing third component is 0, and two 2-component vectors give the z
    component alone. Only 3-component vectors reach ``m.cross``."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = m.moveaxis(m.asarray(a), axisa, -1), m.moveaxis(m.asarray(b), axisb, -1)
    both_planar = a.shape[-1] == 2 and b.shape[-1] == 2

    def to_3(v):
        return m.concatenate([v, m.zeros(v.shape[:-1] + (1,), v.dtype)], -1) if v.shape[-1] == 2 else v
    c = m.cross(to_3(a), to_3(b))
    return c[..., 2] if both_planar else m.moveaxis(c, -1, axisc)


def numpy_cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None) -> np.ndarray:
    """``np.cross``, including the 2-component vectors NumPy refuses from 2.5 (tj.numpy and TF's NumPy API
    compute them)."""
    return _planar_cross(np, a, b, axisa, axisb, axisc, axis)


def jax_cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """``jnp.cross``, including the 2-component vectors jax.numpy refuses from jax 0.12 (traceable: a
    reference for shapes, dtypes and gradients)."""
    return _planar_cross(jnp, a, b, axisa, axisb, axisc, axis)


def as_list(y) -> list:
    return list(y) if isinstance(y, (list, tuple)) else [y]


def is_float(y) -> bool:
    return jnp.issubdtype(y.dtype, jnp.inexact)


def check_values_and_gradient(label: str, f, arg, *, value_tol: tuple, grad_tol: tuple, jit: bool = True) -> None:
    """``f(m, a)`` with ``m`` jax.numpy (on an array) and tj.numpy (on a watched Tensor): the same values and
    dtypes within ``value_tol`` (rtol, atol), and the same gradient of ``sum(output * weights)`` within
    ``grad_tol``. The weights are drawn from ``label`` (the same whatever the tests' order); the loss leaves out
    outputs that are not floats and NaN or inf entries (as a user masks them: their gradient must then be 0).
    ``jit=False`` for functions jax.numpy cannot trace (values known when called)."""
    a = jnp.asarray(arg)
    shapes = as_list(jax.eval_shape(lambda u: f(jnp, u), a) if jit else f(jnp, a))
    rng = np.random.default_rng(zlib.crc32(label.encode()))
    weights = [np.asarray(rng.normal(size=w.shape), np.float32) for w in shapes]

    def reference_loss(u):  # jax.numpy's values and gradient from one pass
        ys = as_list(f(jnp, u))
        return sum(jnp.sum(jnp.where(jnp.isfinite(y), y, 0.0) * w) for y, w in zip(ys, weights) if is_float(y)), ys
    reference = jax.value_and_grad(reference_loss, has_aux=True)
    (_, want), want_g = (jax.jit(reference) if jit else reference)(a)
    x = tj.constant(arg)
    with tj.GradientTape() as tape:
        tape.watch(x)
        got = as_list(f(tnp, x))
        loss = tnp.sum(tnp.stack([tnp.sum(tnp.where(tnp.isfinite(y), y, 0.0) * w)
                                  for y, w in zip(got, weights) if is_float(y)]))
    assert len(got) == len(want)
    for y, w in zip(got, want):
        assert y.shape == w.shape and y.dtype == w.dtype, (label, y.shape, y.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(y.numpy(), w, rtol=value_tol[0], atol=value_tol[1])
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), want_g, rtol=grad_tol[0], atol=grad_tol[1])


def check_values(want, got, tol: tuple = None) -> None:
    """jax.numpy's results ``want`` and tj.numpy's ``got`` (a value, or a list or tuple of them): the same count,
    shapes and dtypes, and the same values, exactly or within ``tol`` (rtol, atol)."""
    want, got = as_list(want), as_list(got)
    assert len(got) == len(want)
    for y, w in zip(got, want):
        y, w = np.asarray(y), np.asarray(w)
        assert y.shape == w.shape and y.dtype == w.dtype, (y.shape, y.dtype, w.shape, w.dtype)
        if tol is None:
            np.testing.assert_array_equal(y, w)
        else:
            np.testing.assert_allclose(y, w, rtol=tol[0], atol=tol[1])
