"""``tj.numpy.fft``: jax.numpy.fft's transforms as recorded ops, with its names, signatures and defaults.

One family, one table (declare.py says how ops are declared): each transform is one ``OpDef`` whose function
is jax.numpy.fft's own, its ``n``/``s``, ``axis``/``axes`` and ``norm`` static parameters. The transforms are
linear, so their kernels are derived by JAX (core.py), which also turns JAX's VJP into TF's complex convention
(``grad * conj(dy/dx)``: for a real loss the gradient is ``conj(jax.grad)``; a real input's gradient is real).
Tangents are jax.jvp's.

``fftshift``/``ifftshift`` are ``tj.numpy.roll``; ``fftfreq``/``rfftfreq`` make Tensors of frequencies with no
gradient. Arguments are checked before any kernel runs: a float or non-positive length, an axis out of range
or repeated, ``s`` and ``axes`` of different lengths, a bad ``norm``, or an inverse real transform (``irfft``,
``hfft``...) of a length-1 axis with no output length (``2 * (m - 1) = 0``: NumPy raises, jax.numpy's gradient
divides by zero) raise an error naming the function (TypeError, ValueError, or NumPy's ``AxisError``, which is
both an IndexError and a ValueError).
"""
from __future__ import annotations

import sys

import jax
import jax.numpy as jnp
import numpy as np

from ..tensor import Tensor, Variable, traced_argument_error
from . import numpy as _tnp
from .core import OpDef, apply, as_dtype, as_index, check_axis, freeze
from .declare import not_differentiable, public_dir, samples as _samples

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn",
           "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

# -- sample inputs for the registry-wide gradient test (declare.py: drawn in declaration order) ------------
_rng = np.random.default_rng(31)


def _r(*shape):
    return np.asarray(_rng.uniform(-1.5, 1.5, size=shape), np.float32)


# -- the transforms: one op each, jax.numpy.fft's function; kernels derived (linear maps) ---------------------
# name                       function           samples (float inputs; test_complex.py makes complex ones)
_fft = OpDef("fft_fft", jnp.fft.fft, samples=_samples(
    ((_r(3, 4),), {}), ((_r(3, 4),), {"n": 6, "axis": 0, "norm": "ortho"})))
_ifft = OpDef("fft_ifft", jnp.fft.ifft, samples=_samples(
    ((_r(3, 4),), {}), ((_r(3, 5),), {"n": 3, "axis": 1, "norm": "forward"})))
_fft2 = OpDef("fft_fft2", jnp.fft.fft2, samples=_samples(
    ((_r(2, 3, 4),), {}), ((_r(3, 4),), {"s": (4, 3), "axes": (1, 0), "norm": "ortho"})))
_ifft2 = OpDef("fft_ifft2", jnp.fft.ifft2, samples=_samples(((_r(2, 3, 4),), {"axes": (0, 2)})))
_fftn = OpDef("fft_fftn", jnp.fft.fftn, samples=_samples(
    ((_r(2, 3, 4),), {}), ((_r(2, 3, 4),), {"s": (5,), "axes": (1,), "norm": "forward"})))
_ifftn = OpDef("fft_ifftn", jnp.fft.ifftn, samples=_samples(((_r(2, 3, 4),), {"s": (3, 2), "norm": "ortho"})))
_rfft = OpDef("fft_rfft", jnp.fft.rfft, samples=_samples(
    ((_r(3, 6),), {}), ((_r(5, 3),), {"n": 4, "axis": 0, "norm": "ortho"})))
_irfft = OpDef("fft_irfft", jnp.fft.irfft, samples=_samples(
    ((_r(3, 4),), {}), ((_r(4, 3),), {"n": 5, "axis": 0, "norm": "ortho"})))
_rfft2 = OpDef("fft_rfft2", jnp.fft.rfft2, samples=_samples(((_r(2, 3, 4),), {"norm": "forward"})))
_irfft2 = OpDef("fft_irfft2", jnp.fft.irfft2, samples=_samples(((_r(2, 3, 4),), {"s": (3, 5)})))
_rfftn = OpDef("fft_rfftn", jnp.fft.rfftn, samples=_samples(((_r(2, 3, 4),), {"axes": (2, 0)})))
_irfftn = OpDef("fft_irfftn", jnp.fft.irfftn, samples=_samples(
    ((_r(2, 3, 4),), {}), ((_r(3, 4),), {"s": (4, 6), "norm": "forward"})))
_hfft = OpDef("fft_hfft", jnp.fft.hfft, samples=_samples(
    ((_r(3, 4),), {}), ((_r(3, 4),), {"n": 7, "axis": 0, "norm": "ortho"})))
_ihfft = OpDef("fft_ihfft", jnp.fft.ihfft, samples=_samples(((_r(3, 6),), {}), ((_r(3, 5),), {"n": 4})))

# the frequencies: no gradient (``d`` may be a Tensor; ``n`` and ``dtype`` are static)
_fftfreq = not_differentiable("fft_fftfreq", lambda d, *, n, dtype: jnp.fft.fftfreq(n, d, dtype=dtype))
_rfftfreq = not_differentiable("fft_rfftfreq", lambda d, *, n, dtype: jnp.fft.rfftfreq(n, d, dtype=dtype))


# -- argument checks: errors name the function, before any kernel runs ----------------------------------------

def _known(name: str, param: str, v):
    """``v`` frozen; a Tensor whose value is traced raises, naming the argument."""
    v = freeze(v)
    held = next((x for x in (v if isinstance(v, tuple) else (v,)) if isinstance(x, (Tensor, Variable))), None)
    if held is not None:
        e = traced_argument_error(f"tj.numpy.fft.{name}", param, held)
        e.value = None  # (it names the argument already: api.py's wrapper need not, and lists no tj.numpy.fft)
        try:
            raise e
        finally:
            e = None  # (the traceback keeps this frame: its locals must not keep the error, a reference cycle)
    return v


def _length(name: str, param: str, v) -> int:
    """A transform length (``n`` or an entry of ``s``): a positive integer, never a truncated float."""
    n = as_index(v, f"tj op '{name}': {param} must be an integer, got {v!r} of type {type(v).__name__}")
    if n < 1:
        raise ValueError(f"tj op '{name}': {param} must be a positive length, got {n}")
    return n


def _norm(name: str, norm):
    if not (norm is None or (isinstance(norm, str) and norm in ("backward", "ortho", "forward"))):
        raise ValueError(f"tj op '{name}': norm must be None, 'backward', 'ortho' or 'forward', got {norm!r}")
    return norm


def _sequence(name: str, param: str, v) -> tuple:
    if not isinstance(v, tuple):
        raise TypeError(f"tj op '{name}': {param} must be a sequence of integers, got {v!r}")
    return v


def _half_length(name: str, a, axis: int) -> None:
    """An inverse real transform's default length, ``2 * (m - 1)``, is 0 for an axis of length 1: NumPy raises
    (jax.numpy returns an empty array, whose gradient divides by zero)."""
    if _tnp.shape(a)[axis] == 1:
        raise ValueError(f"tj op '{name}': the default output length 2 * (m - 1) is 0 for an input axis of length "
                         "m = 1; pass the output length (n or s)")


def _real_length(name: str, a, axis: int) -> None:
    """A real forward transform of an axis of length 0 (no length given): NumPy raises (a transform of 0 points),
    jax.numpy fails to compile its program."""
    if _tnp.shape(a)[axis] == 0:
        raise ValueError(f"tj op '{name}': the real axis to transform has length 0: there is no transform of 0 "
                         "points (NumPy raises too); pass a length (n or s) to zero-pad it")


def _one_axis(op: OpDef, name: str, a, n, axis, norm, half: bool = False, real: bool = False):
    """A 1-d transform of ``a`` along ``axis``, of length ``n`` (``half``: of ``2 * (m - 1)`` by default;
    ``real``: a transform of real input, whose axis must not be empty)."""
    n = _known(name, "n", n)
    axis = check_axis(name, _known(name, "axis", axis), _tnp.ndim(a), scalar=False)  # (rank 0: no axis)
    if n is not None:
        n = _length(name, "n", n)
    elif half:
        _half_length(name, a, axis)
    elif real:
        _real_length(name, a, axis)
    return apply(op, (a,), {"n": n, "axis": axis, "norm": _norm(name, norm)})


def _many_axes(op: OpDef, name: str, a, s, axes, norm, count=None, real: bool = False, half: bool = False):
    """A transform of ``a`` over ``axes`` (``count`` of them for the 2-d ones; none: ``a`` itself), of lengths
    ``s`` (``half``: the last one ``2 * (m - 1)`` by default)."""
    nd = _tnp.ndim(a)
    s, axes = _known(name, "s", s), _known(name, "axes", axes)
    if s is not None:
        s = tuple(_length(name, "s", v) for v in _sequence(name, "s", s))
    if axes is not None:
        axes = tuple(check_axis(name, ax, nd, scalar=False) for ax in _sequence(name, "axes", axes))
        if len(set(axes)) != len(axes):
            raise ValueError(f"tj op '{name}': axes {axes} name the same axis more than once")
        if s is not None and len(s) != len(axes):
            raise ValueError(f"tj op '{name}': s {s} and axes {axes} must have the same length")
    elif s is not None and len(s) > nd:
        raise ValueError(f"tj op '{name}': s {s} has more lengths than the tensor has axes (rank {nd})")
    if count is not None and (axes is None or len(axes) != count):
        raise ValueError(f"tj op '{name}': transforms exactly {count} axes, got axes {axes}")
    n_axes = len(axes) if axes is not None else (len(s) if s is not None else nd)
    if real and n_axes == 0:  # (no axis to transform: jax.numpy's answer, the input in the result's dtype)
        a = _tnp.asarray(a)
        out = jax.eval_shape(lambda x: getattr(jnp.fft, name)(x, s=s, axes=axes),
                             jax.ShapeDtypeStruct(a.shape, a.dtype))
        return _tnp.astype(a, out.dtype)
    if half and s is None:
        _half_length(name, a, -1 if axes is None else axes[-1])
    elif real and s is None:
        _real_length(name, a, -1 if axes is None else axes[-1])
    return apply(op, (a,), {"s": s, "axes": axes, "norm": _norm(name, norm)})


# -- the public functions ---------------------------------------------------------------------------------

def fft(a, n=None, axis=-1, norm=None):
    """``jax.numpy.fft.fft``: the discrete Fourier transform along ``axis``."""
    return _one_axis(_fft, "fft", a, n, axis, norm)


def ifft(a, n=None, axis=-1, norm=None):
    """``jax.numpy.fft.ifft``: the inverse of ``fft``."""
    return _one_axis(_ifft, "ifft", a, n, axis, norm)


def fft2(a, s=None, axes=(-2, -1), norm=None):
    """``jax.numpy.fft.fft2``: the transform over two axes."""
    return _many_axes(_fft2, "fft2", a, s, axes, norm, count=2)


def ifft2(a, s=None, axes=(-2, -1), norm=None):
    """``jax.numpy.fft.ifft2``: the inverse of ``fft2``."""
    return _many_axes(_ifft2, "ifft2", a, s, axes, norm, count=2)


def fftn(a, s=None, axes=None, norm=None):
    """``jax.numpy.fft.fftn``: the transform over ``axes`` (all, or the last ``len(s)``, by default)."""
    return _many_axes(_fftn, "fftn", a, s, axes, norm)


def ifftn(a, s=None, axes=None, norm=None):
    """``jax.numpy.fft.ifftn``: the inverse of ``fftn``."""
    return _many_axes(_ifftn, "ifftn", a, s, axes, norm)


def rfft(a, n=None, axis=-1, norm=None):
    """``jax.numpy.fft.rfft``: the transform of a real ``a``, its ``n // 2 + 1`` non-negative frequencies."""
    return _one_axis(_rfft, "rfft", a, n, axis, norm, real=True)


def irfft(a, n=None, axis=-1, norm=None):
    """``jax.numpy.fft.irfft``: the inverse of ``rfft``, a real result of length ``n`` (``2 * (m - 1)``)."""
    return _one_axis(_irfft, "irfft", a, n, axis, norm, half=True)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    """``jax.numpy.fft.rfft2``."""
    return _many_axes(_rfft2, "rfft2", a, s, axes, norm, count=2, real=True)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    """``jax.numpy.fft.irfft2``."""
    return _many_axes(_irfft2, "irfft2", a, s, axes, norm, count=2, real=True, half=True)


def rfftn(a, s=None, axes=None, norm=None):
    """``jax.numpy.fft.rfftn``: the last axis transformed is the real one (no axis at all raises)."""
    return _many_axes(_rfftn, "rfftn", a, s, axes, norm, real=True)


def irfftn(a, s=None, axes=None, norm=None):
    """``jax.numpy.fft.irfftn``: the inverse of ``rfftn``."""
    return _many_axes(_irfftn, "irfftn", a, s, axes, norm, real=True, half=True)


def hfft(a, n=None, axis=-1, norm=None):
    """``jax.numpy.fft.hfft``: the (real) transform of a Hermitian-symmetric signal given by its first half."""
    return _one_axis(_hfft, "hfft", a, n, axis, norm, half=True)


def ihfft(a, n=None, axis=-1, norm=None):
    """``jax.numpy.fft.ihfft``: the inverse of ``hfft`` (of a real ``a``)."""
    return _one_axis(_ihfft, "ihfft", a, n, axis, norm, real=True)


def _frequencies(op: OpDef, name: str, n, d, dtype, device):
    n = as_index(_known(name, "n", n), f"tj op '{name}': n must be an integer, got {n!r}")
    if n < 0:
        raise ValueError(f"tj op '{name}': n must not be negative, got {n}")
    if _tnp.ndim(d) != 0:
        raise ValueError(f"tj op '{name}': d must be a scalar (the sample spacing), got shape {_tnp.shape(d)}")
    out = apply(op, (d,), {"n": n, "dtype": None if dtype is None else as_dtype(name, dtype)})
    return out if device is None else _tnp.asarray(jax.device_put(out.value, device))


def fftfreq(n, d=1.0, *, dtype=None, device=None):
    """``jax.numpy.fft.fftfreq``: the sample frequencies of an ``n``-point transform (a Tensor, no gradient)."""
    return _frequencies(_fftfreq, "fftfreq", n, d, dtype, device)


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
    """``jax.numpy.fft.rfftfreq``: the non-negative frequencies of ``rfft`` (a Tensor, no gradient)."""
    return _frequencies(_rfftfreq, "rfftfreq", n, d, dtype, device)


def _shift(name: str, x, axes, sign: int):
    nd = _tnp.ndim(x)
    axes = _known(name, "axes", axes)
    if axes is None:
        axes = tuple(range(nd))
    axes = tuple(check_axis(name, ax, nd, scalar=False) for ax in (axes if isinstance(axes, tuple) else (axes,)))
    size = _tnp.shape(x)
    return _tnp.roll(x, tuple(sign * (size[ax] // 2) for ax in axes), axes)


def fftshift(x, axes=None):
    """``jax.numpy.fft.fftshift``: the zero frequency moved to the centre (``tj.numpy.roll``)."""
    return _shift("fftshift", x, axes, 1)


def ifftshift(x, axes=None):
    """``jax.numpy.fft.ifftshift``: the inverse of ``fftshift``."""
    return _shift("ifftshift", x, axes, -1)


_tnp.fft = sys.modules[__name__]  # tj.numpy.fft is this module

__dir__ = public_dir(__name__)
