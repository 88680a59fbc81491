"""``tj.numpy.linalg``: matrix decompositions and solvers, mirroring ``jax.numpy.linalg``'s signatures.

One family, one table (declare.py says how ops are declared): each op is one ``OpDef`` line, its JAX
function, its sample inputs (well-conditioned: distinct eigen/singular values, far from singular) and a
comment on the derivative convention. Only the Euclidean ``norm`` has a hand-written rule: TF's
``tf.norm`` is ``sqrt(sum(x * conj(x)))``, whose gradient is 0 where the incoming gradient is 0, also at a
zero vector (SqrtGrad, as ``tj.numpy.sqrt``), where JAX's derivative is NaN. The other norms are derived
from a function whose ``|x|`` has TF's derivative, ``sign(x)`` (0 at 0; JAX's is 1 there). Where TensorFlow's gradient
(``tensorflow/python/ops/linalg_grad.py``) and JAX's agree, the kernels are derived from JAX
(``jax.vjp``/``jax.jvp`` of the op's function, core.py). Where they differ, the op's *function* is written
so that its exact derivative is TF's, so every path (tape, accumulator, tj.function, jax.grad of a call)
computes TF's convention from one definition:

* ``eigh``: TF's SelfAdjointEig reads only the lower triangle (as LAPACK and ``numpy.linalg.eigh``), and its
  gradient is that triangle's: ``tril(G + G^H)`` with the diagonal halved. JAX's default averages the input,
  ``(A + A^H) / 2``, and gives the symmetric gradient ``(G + G^H) / 2``. Both agree on symmetric
  perturbations; tapejax follows TF (the ``UPLO`` triangle is read; ``symmetrize_input=True`` gives JAX's).
* ``cholesky``: TF's Cholesky reads only the lower triangle (as LAPACK), and its gradient is symmetrized,
  ``(X + X^H) / 2`` (CholeskyGrad). tapejax reads the lower triangle too, through ``_read_lower``, whose value is
  the Hermitian matrix that triangle stands for and whose derivative is the symmetrization (so JAX's derivative
  of the factorization, taken there, is TF's). Along a non-Hermitian direction this gradient is a convention,
  not the derivative of the values (which ignore the upper triangle): TF's own, whose gradient checks perturb
  ``x x^H``. ``symmetrize_input=True`` is JAX's default: ``(A + A^H) / 2`` is factored (both triangles read),
  with the same symmetric gradient.
* ``svd``/``eigh`` eigenvector sign: for distinct eigen/singular values both libraries differentiate the
  branch the decomposition returns (``U^H dU`` antisymmetric), so the derivatives are the same. At equal
  eigen/singular values TF's ``_SafeReciprocal`` (``x / (x^2 + 1e-20)``, 0 at 0) replaces ``1 / (w_j - w_i)``:
  the gradient of the eigen/singular values alone, and of the vectors of the distinct ones, stays finite
  (JAX's zero cotangent times inf is NaN); tapejax's ``eigh`` and ``svd`` (``S`` alone too) use it, with TF's
  finite derivative of it, so the second derivative there is finite too.
  ``svd(full_matrices=True)`` of an ``m x n`` matrix with ``|m - n| == 1`` has TF's gradient (the one extra
  singular vector turns with the others); with ``|m - n| > 1`` it has none (the extra singular vectors are not
  unique; TF raises): asking for one raises LookupError; use ``full_matrices=False``. Likewise
  ``qr(mode='complete')`` of a matrix with more rows than columns (TF: "QrGrad not implemented"; JAX
  differentiates it by a convention of its own).
* ``det``/``slogdet`` values: TF computes them from an LU factorization for every size; jnp expands 2x2 (and
  3x3) determinants, which differs with inf/nan entries, and where a product of finite entries overflows (1e20 *
  1e20 in float32: inf - inf = nan, where the LU gives the determinant): there a 2x2 takes TF's LU value
  (``_det_lu_2x2``), a 3x3 the LU one. The derivative is JAX's (its cofactor solve; the adjugate at a singular
  matrix) on the matrix scaled by a power of two (its second derivative overflowed to NaN for entries of 1e-7),
  TF's ``det * A^-T`` where products of entries could overflow the cofactors. With inf or nan entries
  TF's sign is nan where log|det| is (jnp's stays +-1), and a complex matrix's det, sign and log|det| are nan
  (``_tf_slogdet_nonfinite``).
* ``eig``/``eigvals`` (general matrices; JAX's nonsymmetric eigendecomposition runs on the CPU only, as
  ``jnp.linalg.eig``): the eigenvalues' derivative is ``diag(V^-1 dA V)`` in both libraries. The eigenvectors,
  unit vectors fixed only up to a phase, have TF's derivative (EigGrad): ``dv_j = u_j - Re(v_j^H u_j) v_j``
  (``u = V (F * V^-1 dA V)``, ``F`` TF's safe reciprocals of ``w_j - w_i``), where JAX (opt-in
  ``enable_eigvec_derivs``) also turns the phase to keep LAPACK's largest entry real; the two agree on every
  loss that does not depend on the eigenvectors' phases (``|v|``, ``A v = w v``).
* ``solve``, ``inv``, ``det``, ``slogdet`` (sign has zero derivative), ``qr`` (TF supports reduced deep and
  wide matrices; JAX too), ``matrix_power``: derived from JAX. ``lstsq``'s ``x`` is differentiated as
  ``pinv(a) @ b`` by JAX's pseudo-inverse rule: TF's MatrixSolveLs differentiates the normal equations, the
  same function for a full-rank ``a``, where JAX's lstsq rule, through the SVD, is NaN at equal singular values
  (the identity). ``pinv`` is differentiated through the SVD it is computed with, as TF (JAX's pseudo-inverse
  rule has the same first derivative at distinct singular values; at equal ones, the identity among them, TF's
  safe reciprocals drop the terms between them; at a rank-deficient matrix the second derivatives differ), with
  the terms between two kept singular values combined before they are computed (``_pinv_svd_jvp``: a tie
  rounded apart is no large reciprocal). The ``ord=2``/``-2`` matrix norms are TF's ``max``/``min`` of
  ``|svd(x)|`` (gradient 0 at a zero matrix). ``lstsq``'s ``rank`` is an int output (no gradient).
  ``eigvalsh`` is ``eigh``'s eigenvalues.
"""
from __future__ import annotations

import collections
import functools
import math
import operator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..tensor import Tensor, convert_to_tensor
from .core import (NoKernelError, OpDef, ShapeError, apply, as_index, axis_error, freeze, inexact_dtype,
                   static as static_value)
from .declare import (HALF as _HALF, half_in_float32 as _half_in_float32, not_differentiable, public_dir,
                      samples as _samples)
from .rules import cast_like as _cast_like, mul_no_nan as _mul_no_nan, sign as _tf_sign, times_sign as _times_sign

# -- well-conditioned sample inputs ----------------------------------------------------------------------
_rng = np.random.default_rng(16)


def _f32(x):
    return np.asarray(x, np.float32)


def _orth(n):
    q, r = np.linalg.qr(_rng.normal(size=(n, n)))
    return q * np.sign(np.diag(r))


def _general(*batch, n=3):
    """A square matrix far from singular: random entries plus n on the diagonal."""
    return _f32(_rng.uniform(-1, 1, size=batch + (n, n)) + n * np.eye(n))


def _spd(n=3):
    """Symmetric positive definite with distinct eigenvalues 1, 2.5, 4 ..."""
    q = _orth(n)
    return _f32(q @ np.diag(1.0 + 1.5 * np.arange(n)) @ q.T)


def _distinct_sv(m, n):
    """An m x n matrix with singular values 3, 2, 1 (distinct and away from 0)."""
    k = min(m, n)
    u, v = _orth(m)[:, :k], _orth(n)[:, :k]
    return _f32(u @ np.diag(np.arange(k, 0, -1, dtype=np.float64) + 0.0) @ v.T)


def _rect(*shape):
    return _f32(_rng.uniform(-1.5, 1.5, size=shape))


# -- the ops' functions (what JAX differentiates: each exactly the convention documented above) ----------

def _adjoint(x):
    """The conjugate transpose of the last two axes (a batch of matrices')."""
    return jnp.conj(jnp.swapaxes(x, -1, -2))


@jax.custom_jvp
def _safe_reciprocal(x):
    """TF's ``_SafeReciprocal`` (linalg_grad.py): ``x / (x^2 + 1e-20)``, 0 (not inf) at 0."""
    return x / (x * x + 1e-20)


@_safe_reciprocal.defjvp
def _safe_reciprocal_jvp(primals, tangents):
    # d/dx = 1 / d - 2 q^2 with d = x^2 + 1e-20 and q = x / d. JAX's rule for the quotient squares d, and
    # 1e-40 is 0 in float32 (so is XLA's d * d for x / d / d), so at x = 0 (equal eigen or singular values) its
    # coefficient was 0 * inf = NaN, and every second derivative through it NaN (TF's: finite)
    (x,), (t,) = primals, tangents
    d = x * x + 1e-20
    q = x / d
    return q, t * (1 / d - 2 * q * q)


def _safe_reciprocal_offdiag(gap):
    """``_safe_reciprocal`` of a matrix of differences, with its diagonal set to 0 (TF's matrix_set_diag). The
    diagonal is masked before the division: a fused ``s_i^2 - s_i^2`` need not be exactly 0 under jit, and the
    derivative of ``x / (x^2 + 1e-20)`` at 0 (1e20) would give NaN at second order."""
    off = ~jnp.eye(gap.shape[-1], dtype=bool)
    return jnp.where(off, _safe_reciprocal(jnp.where(off, gap, 1)), 0)


@jax.custom_jvp
def _eigh_hermitian(a):
    """``eigh`` of a Hermitian ``a`` (read whole), with TF's derivative (SelfAdjointEigV2Grad). A matrix holding
    inf or NaN gives NaN eigenvalues and eigenvectors: LAPACK returns numbers for some (TF raises; a host check
    would sync and could not run under a trace, see ``inv``)."""
    w, v = jnp.linalg.eigh(a, symmetrize_input=False)
    finite = jnp.all(jnp.isfinite(a), axis=(-2, -1))
    return jnp.where(finite[..., None], w, jnp.nan), jnp.where(finite[..., None, None], v, jnp.nan)


@_eigh_hermitian.defjvp
def _eigh_hermitian_jvp(primals, tangents):
    # JAX's rule (nondegenerate perturbation theory) with TF's _SafeReciprocal, x / (x^2 + 1e-20), for
    # 1 / (w_j - w_i): between equal eigenvalues it is 0, not inf, so a gradient of the eigenvalues alone (or of
    # eigenvectors of distinct eigenvalues) at a degenerate spectrum (the identity) is finite, as TF's, where
    # JAX's zero cotangent times inf gives NaN
    (a,), (da,) = primals, tangents
    w, v = _eigh_hermitian(a)
    vh = _adjoint(v)
    vdag_da_v = vh @ da @ v
    gap = (w[..., None, :] - w[..., :, None]).astype(a.dtype)  # [i, j] = w_j - w_i
    f = _safe_reciprocal_offdiag(gap)
    dw = jnp.real(jnp.diagonal(vdag_da_v, axis1=-2, axis2=-1)).astype(w.dtype)
    return (w, v), (dw, v @ (f * vdag_da_v))


def _hermitian_from(a, lower=True):
    """The Hermitian matrix one triangle of ``a`` stands for, as LAPACK reads it: the strict triangle, its
    conjugate transpose, and the real part of the diagonal (LAPACK ignores the diagonal's imaginary part, so
    its derivative there is 0, as TF's gradients, whose diagonal is real)."""
    strict = jnp.tril(a, -1) if lower else jnp.triu(a, 1)
    d = jnp.diagonal(a, axis1=-2, axis2=-1)
    d = jnp.real(d).astype(a.dtype) if jnp.iscomplexobj(a) else d
    return strict + _adjoint(strict) + d[..., None] * jnp.eye(a.shape[-1], dtype=a.dtype)


@jax.custom_jvp
def _read_lower(a):
    """``_hermitian_from(a)`` (the lower triangle read), with the symmetrized tangent ``(da + da^H) / 2``: the
    derivative convention of TF's CholeskyGrad, ``(X + X^H) / 2``, for a factorization that reads one triangle."""
    return _hermitian_from(a)


@_read_lower.defjvp
def _read_lower_jvp(primals, tangents):
    (a,), (da,) = primals, tangents
    return _read_lower(a), (da + _adjoint(da)) / 2


def _cholesky_fn(a, upper=False, symmetrize_input=False):
    if not symmetrize_input:
        a = _read_lower(a)  # TF: only the lower triangle is read; the gradient is symmetric
    return jnp.linalg.cholesky(a, upper=upper, symmetrize_input=symmetrize_input)


def _eigh_fn(a, UPLO=None, symmetrize_input=False):
    if symmetrize_input:
        return _eigh_hermitian((a + _adjoint(a)) / 2)
    # the Hermitian matrix the read triangle stands for: its derivative puts the gradient on that triangle
    return _eigh_hermitian(_hermitian_from(a, lower=UPLO in (None, "L")))


@jax.custom_jvp
def _svd_reduced(a):
    """``svd(a, full_matrices=False)`` with TF's derivative (SvdGrad): JAX's rule with TF's safe reciprocals of
    ``s_j^2 - s_i^2`` and ``s``, so equal (or zero) singular values give a finite gradient of ``S`` and of the
    singular vectors of the distinct ones, as TF, where a zero cotangent times inf gave NaN."""
    return tuple(jnp.linalg.svd(a, full_matrices=False))


def _svd_tangents(a, da, u, s, vh):
    """The tangents ``(dU, dS, dVh)`` of the reduced SVD ``a = U diag(s) Vh`` along ``da``."""
    v = _adjoint(vh)
    sc = s.astype(a.dtype)
    dp = _adjoint(u) @ da @ v  # (k, k)
    ds = jnp.real(jnp.diagonal(dp, axis1=-2, axis2=-1)).astype(s.dtype)
    s2 = sc * sc
    f = _safe_reciprocal_offdiag(s2[..., None, :] - s2[..., :, None])  # [i, j]: 1 / (s_j^2 - s_i^2), 0 if equal
    s_inv = _safe_reciprocal(sc)
    dp_s, s_dp = dp * sc[..., None, :], sc[..., :, None] * dp  # dP S and S dP
    # the imaginary part of diag(dP) rotates the phases of u (0 for real matrices)
    phase = 0.5 * (dp - _adjoint(dp)) * jnp.eye(dp.shape[-1], dtype=a.dtype) * s_inv[..., None, :]
    du = u @ (f * (dp_s + _adjoint(dp_s)) + phase)
    dv = v @ (f * (s_dp + _adjoint(s_dp)))
    m, n = a.shape[-2:]
    if m > n:
        dav = da @ v
        du = du + (dav - u @ (_adjoint(u) @ dav)) * s_inv[..., None, :]
    elif n > m:
        dahu = _adjoint(da) @ u
        dv = dv + (dahu - v @ (vh @ dahu)) * s_inv[..., None, :]
    return du, ds, _adjoint(dv)


@_svd_reduced.defjvp
def _svd_reduced_jvp(primals, tangents):
    (a,), (da,) = primals, tangents
    u, s, vh = _svd_reduced(a)
    return (u, s, vh), _svd_tangents(a, da, u, s, vh)


@jax.custom_jvp
def _svd_full_rect(a):
    """``svd(a, full_matrices=True)`` of a non-square matrix. Where ``|m - n| == 1`` it has TF's derivative
    (SvdGrad): the one extra singular vector ``w`` (unique up to sign: the unit vector orthogonal to the others)
    turns with them, ``dw = -V1 (dV1^H w)``; where ``|m - n| > 1`` TF raises, and so does asking for a
    derivative here (the extra vectors are not unique)."""
    return tuple(jnp.linalg.svd(a, full_matrices=True))


@_svd_full_rect.defjvp
def _svd_full_rect_jvp(primals, tangents):
    (a,), (da,) = primals, tangents
    m, n = a.shape[-2:]
    if abs(m - n) > 1:
        raise NotImplementedError(
            f"tnp.linalg.svd with full_matrices=True on a matrix of shape {a.shape} (|m - n| > 1) is not "
            "differentiable (its extra singular vectors are not unique; TF's SvdGrad raises too); pass "
            "full_matrices=False")
    u, s, vh = _svd_full_rect(a)
    k = min(m, n)
    u1, vh1 = u[..., :, :k], vh[..., :k, :]
    du1, ds, dvh1 = _svd_tangents(a, da, u1, s, vh1)
    if m > n:  # the extra column of U
        w = u[..., :, k:]
        du = jnp.concatenate([du1, -u1 @ (_adjoint(du1) @ w)], axis=-1)
        return (u, s, vh), (du, ds, dvh1)
    w = vh[..., k:, :]  # the extra row of Vh
    dvh = jnp.concatenate([dvh1, -(w @ _adjoint(dvh1)) @ vh1], axis=-2)
    return (u, s, vh), (du1, ds, dvh)


def _svd_fn(a, full_matrices=True, compute_uv=True, hermitian=False, subset_by_index=None):
    if subset_by_index is not None:  # (jax.numpy's, derivative and all)
        out = jnp.linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv, hermitian=hermitian,
                             subset_by_index=subset_by_index)
        return tuple(out) if compute_uv else out
    if compute_uv and full_matrices and a.shape[-2] != a.shape[-1]:
        return _svd_full_rect(a)
    if not hermitian:
        # (square, or full_matrices=False: the same decomposition; S alone too, so that its second derivative
        # has TF's safe reciprocals: JAX's rule for S alone gives NaN at equal singular values)
        return _svd_reduced(a) if compute_uv else _svd_reduced(a)[1]
    out = jnp.linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv, hermitian=hermitian)
    return tuple(out) if compute_uv else out


def _lu_2x2(a):
    """Eigen's partial-pivot LU of a 2x2 matrix, the way TF factors it: ``(parity, u00, u11)``, with
    ``det = parity * u00 * u11``."""
    a00, a01, a10, a11 = a[..., 0, 0], a[..., 0, 1], a[..., 1, 0], a[..., 1, 1]
    swap = jnp.abs(a10) > jnp.abs(a00)  # the pivot row: the larger first entry
    p, q = jnp.where(swap, a10, a00), jnp.where(swap, a00, a10)
    b, c = jnp.where(swap, a11, a01), jnp.where(swap, a01, a11)
    low = jnp.where(p == 0, 0, q / jnp.where(p == 0, 1, p))  # a zero column: no elimination (LU skips it)
    return jnp.where(swap, -1, 1).astype(a.dtype), p, c - low * b


def _det_lu_2x2(a):
    """A 2x2 determinant the way TF computes it (Eigen's partial-pivot LU, ``sign * prod(diag(U))``). It differs
    from jnp's expanded ``a00 a11 - a01 a10`` only where an entry is inf or nan: ``[[inf, -inf], [1, 1]]`` gives
    nan (TF's determinant_op_test testInfAndNans), where the expanded form gives ``inf + inf = inf``."""
    parity, u00, u11 = _lu_2x2(a)
    return parity * u00 * u11


def _slogdet_lu_2x2(a):
    """TF's 2x2 ``slogdet`` from the same LU: ``log|u00| + log|u11|``, finite where the determinant itself
    overflows (``diag(fmax, fmax)``: 177.4, where jnp's ``log|a00 a11 - a01 a10|`` is inf)."""
    parity, u00, u11 = _lu_2x2(a)
    logabsdet = jnp.log(jnp.abs(u00)) + jnp.log(jnp.abs(u11))
    return parity * jnp.sign(u00) * jnp.sign(u11), logabsdet


def _nonfinite_as_tf(a, jnp_value, tf_value):
    """jnp's value (and derivative) where every entry of the matrix is finite; TF's value (no derivative: it is
    inf or nan there anyway) where one is not."""
    finite = jnp.all(jnp.isfinite(a), axis=(-2, -1))
    return jnp.where(finite, jnp_value, jax.lax.stop_gradient(tf_value))


def _tf_slogdet_nonfinite(a, sign, logabsdet):
    """TF's slogdet of a matrix with an inf or nan entry, from the LU one (``sign``, ``logabsdet``): Eigen's LU
    carries the nan into the sign (``sign(nan)`` is nan, where jnp's sign stays +-1), and a complex one is nan
    throughout (its complex divisions by an infinite pivot give nan; jnp's can give ``inf``, or ``0`` for a nan
    entry)."""
    if jnp.iscomplexobj(a):
        return jnp.full_like(sign, jnp.nan + 1j * jnp.nan), jnp.full_like(logabsdet, jnp.nan)
    return jnp.where(jnp.isnan(logabsdet), jnp.nan, sign).astype(sign.dtype), logabsdet


def _det_lu(a):
    """TF's determinant: the product of U's diagonal in a partial-pivot LU factorization, times the sign of its
    row permutation."""
    lu, pivots, _ = jax.lax.linalg.lu(a)
    swaps = jnp.sum(pivots != jnp.arange(a.shape[-1], dtype=pivots.dtype), axis=-1)
    sign = jnp.where(swaps % 2 == 1, -1, 1).astype(a.dtype)
    return sign * jnp.prod(jnp.diagonal(lu, axis1=-2, axis2=-1), axis=-1)


def _det_fn(a):
    a = _inexact(a)
    n = a.shape[-1]
    if n == 0:  # the empty product, 1 (as TF); jnp's det differentiates it with an index error (tj.function, tapes)
        return jnp.ones(a.shape[:-2], a.dtype)
    return _det_tf(a)


@jax.custom_jvp
def _det_tf(a):
    """The determinant: jnp's (an LU's, as TF's, for a real matrix past 3x3), TF's where jnp's is not TF's. jnp
    expands 2x2 and 3x3 determinants: a product of finite entries past the float range (1e20 * 1e20 in float32) is
    inf there, and ``inf - inf`` nan, where TF's LU gives the determinant; at an inf or nan entry TF's value is its
    LU's (a complex one nan)."""
    n = a.shape[-1]
    d = jnp.linalg.det(a)
    if n > 3 and not jnp.iscomplexobj(a):
        return d
    finite = jnp.all(jnp.isfinite(a), axis=(-2, -1))
    if n == 2:  # (an overflow, or an inf or nan entry: TF's LU value)
        d = jnp.where(finite & jnp.isfinite(d), d, _det_lu_2x2(a))
    elif n == 3:
        d = jnp.where(finite & ~jnp.isfinite(d), _det_lu(a), d)
    if jnp.iscomplexobj(a):
        return jnp.where(finite, d, jnp.full_like(d, jnp.nan + 1j * jnp.nan))
    if n == 3:  # (inf - inf = nan in the expanded form where TF's LU gives +-inf): TF's LU value
        sign, logabsdet = _tf_slogdet_nonfinite(a, *jnp.linalg.slogdet(a))
        return jnp.where(finite, d, sign * jnp.exp(logabsdet))
    return d


def _cofactor_jvp(a, da):
    """JAX's derivative of det along ``da`` (its cofactor solve: the adjugate at a singular matrix), taken at ``a / s``
    and times ``s**(n - 1)``, ``s`` a power of two: the same number (scaling by a power of two is exact), where at
    ``a`` itself JAX's rule, which divides by the product p of the LU's first n - 1 pivots, squares p in the second
    derivative: past the float range for entries of 1e-7 (n = 4), NaN where TF's is right. ``s`` is the geometric
    mean of those pivots, so that p is about 1 at ``a / s``, but at least ``a``'s largest magnitude over 2**reach,
    so that the cofactors (products of n - 1 entries, multiplied again in the second derivative) stay in range;
    scaled by its largest magnitude alone, a 9x9 matrix of entries up to 4e3 and a determinant of 7e9 had p = 2**-65
    at ``a / s`` and a NaN second derivative (tf_complex_differential seed 914982)."""
    n = a.shape[-1]
    m = jnp.max(jnp.abs(a), axis=(-2, -1))
    _, e = jnp.frexp(m)
    if n > 1:
        lu, _, _ = jax.lax.linalg.lu(jax.lax.stop_gradient(a))
        pivots = jnp.abs(jnp.diagonal(lu, axis1=-2, axis2=-1)[..., :-1])
        mean = jnp.round(jnp.mean(jnp.log2(pivots), axis=-1))  # (-inf at a zero pivot: then e - reach)
        reach = jnp.finfo(m.dtype).maxexp // (2 * (n - 1))
        top = e.astype(mean.dtype)
        e = jnp.where(jnp.isnan(mean), top, jnp.clip(mean, top - reach, top)).astype(e.dtype)
    scale = jnp.where(jnp.isfinite(m) & (m >= jnp.finfo(m.dtype).tiny), jnp.ldexp(jnp.ones_like(m), e), 1)
    scale = jax.lax.stop_gradient(scale)
    _, d_dot = jax.jvp(jnp.linalg.det, (a / scale[..., None, None].astype(a.dtype),), (da,))
    return d_dot * (scale ** (n - 1)).astype(d_dot.dtype)


@_det_tf.defjvp
def _det_tf_jvp(primals, tangents):
    # JAX's derivative of det (_cofactor_jvp: the LU's, finite where jnp's expanded value overflowed), none at an
    # inf or nan entry (TF's value there is its LU's, its derivative inf or nan anyway). Where products of n - 1
    # entries pass the float range, the cofactors can overflow (1e40 - 1e40 in float32): there TF's
    # det * tr(A^-1 dA) for a nonzero determinant, +-inf where it overflowed, as TF's (on the identity elsewhere, so
    # that the branch not taken has no inf or nan to carry into a gradient).
    (a,), (da,) = primals, tangents
    value = _det_tf(a)
    n = a.shape[-1]
    finite = jnp.all(jnp.isfinite(a), axis=(-2, -1))
    big = jnp.max(jnp.abs(a), axis=(-2, -1)) ** (n - 1) > jnp.finfo(a.dtype).max / n
    by_inverse = finite & big & ~jnp.isnan(value) & (value != 0)
    on = by_inverse[..., None, None]
    eye, no_da = jnp.broadcast_to(jnp.eye(n, dtype=a.dtype), a.shape), jnp.zeros_like(da)
    d_dot = _cofactor_jvp(jnp.where(on, eye, a), jnp.where(on, no_da, da))
    # (as sum(A^-T * dA), not tr(A^-1 dA): the transpose is then TF's g * det * A^-T, +-inf for an infinite det,
    # where a trace's transpose, infinities on the diagonal and zeros off it, solved, gives inf - inf)
    inv_t = jnp.swapaxes(jnp.linalg.inv(jnp.where(on, a, eye)), -1, -2)
    contracted = jnp.sum(inv_t * jnp.where(on, da, no_da), axis=(-2, -1))
    tf_dot = jnp.where(by_inverse, value, jnp.zeros_like(value)) * contracted
    d_dot = jnp.where(by_inverse, tf_dot, d_dot)
    return value, jnp.where(finite, d_dot, jnp.zeros_like(d_dot))


def _slogdet_fn(a, method=None):
    sign, logabsdet = jnp.linalg.slogdet(a, method=method)
    if method in (None, "lu") and a.shape[-1] > 0:
        if a.shape[-2:] == (2, 2):  # jnp's 2x2 is expanded (see _det_lu_2x2); TF: LU
            tf_sign, tf_logabsdet = _slogdet_lu_2x2(a)
            tf_logabsdet = tf_logabsdet.astype(logabsdet.dtype)
            # also where only the expanded determinant overflows (its log is then inf, TF's finite)
            overflow = jnp.isinf(logabsdet) & jnp.isfinite(tf_logabsdet)
            sign = jnp.where(overflow, jax.lax.stop_gradient(tf_sign), sign)
            logabsdet = jnp.where(overflow, jax.lax.stop_gradient(tf_logabsdet), logabsdet)
        else:
            tf_sign, tf_logabsdet = sign, logabsdet
        tf_sign, tf_logabsdet = _tf_slogdet_nonfinite(a, tf_sign, tf_logabsdet)
        sign = _nonfinite_as_tf(a, sign, tf_sign)
        logabsdet = _nonfinite_as_tf(a, logabsdet, tf_logabsdet)
    return sign, logabsdet


# TF inverts float16 matrices (matrix_inverse_op_test); JAX's LU has no 16-bit kernel: factor in float32
_inv_fn = _half_in_float32(jnp.linalg.inv)


def _inexact(x):
    """``x`` in an inexact dtype, integers and bools as the float jax.numpy.linalg promotes them to."""
    return x if jnp.issubdtype(x.dtype, jnp.inexact) else x.astype(inexact_dtype(x.dtype))


def _pinv_fn(a, rtol=None, hermitian=False):
    a = _inexact(a)
    rtol = None if rtol is None else jnp.asarray(rtol, a.real.dtype)
    if hermitian or 0 in a.shape[-2:]:
        return jnp.linalg.pinv(a, rtol=rtol, hermitian=hermitian)
    if rtol is None:
        rtol = 10.0 * max(a.shape[-2:]) * jnp.finfo(a.real.dtype).eps
    return _pinv_svd(a, jnp.asarray(rtol, a.real.dtype))


@jax.custom_jvp
def _pinv_svd(a, rtol):
    """As TF (and jax.numpy's forward pass): V diag(1/s) U^H from the reduced SVD, singular values at or below
    rtol * max(s) taken as inf (1/s = 0). Differentiated as TF differentiates it, through that SVD (SvdGrad's safe
    reciprocals, rather than JAX's pseudo-inverse rule: the same first derivative at distinct singular values, not
    at equal ones, nor the same second at a rank-deficient matrix), with the terms between two kept singular
    values combined before they are computed (``_pinv_svd_jvp``)."""
    return _pinv_of_svd(a, rtol, *_svd_reduced(a))[0]


def _pinv_of_svd(a, rtol, u, s, vh):
    """``(pinv, kept)``: the pseudo-inverse from ``a``'s reduced SVD, and which singular values it keeps."""
    keep = s > rtol[..., None] * jnp.max(s, axis=-1, keepdims=True)
    p = jnp.matmul(_adjoint(vh), _adjoint(u) / jnp.where(keep, s, jnp.inf).astype(a.dtype)[..., None],
                   precision=jax.lax.Precision.HIGHEST)  # (as jnp's)
    return p, keep


@_pinv_svd.defjvp
def _pinv_svd_jvp(primals, tangents):
    # dP = V C U^H + (the parts of dU and dV outside the singular subspaces), C = Om_V S+ + dS+ + S+ Om_U^H with
    # S+ the kept 1/s and Om_U, Om_V SvdGrad's rotations (_svd_tangents). Between two kept singular values the
    # rotations' terms, each f_ij = 1 / (s_j^2 - s_i^2) times dP_ij, cancel to C_ij = -h_ij dP_ij / (s_i s_j), where
    # h_ij = (s_j^2 - s_i^2) f_ij is 1, or 0 at equal singular values with TF's safe reciprocal: written so here.
    # Computed term by term, f_ij's rounding (s_i^2 - s_j^2 of a tie rounded apart, 3 and 2.9999998) was multiplied
    # by the large f_ij: 1.6e6 for -0.33 at [[2, 1, 0], [1, 2, 0], [0, 0, 3]] (TF's own order gives -0.53 there).
    (a, rtol), (da, _) = primals, tangents
    u, s, vh = _svd_reduced(a)
    p, keep = _pinv_of_svd(a, rtol, u, s, vh)
    v = _adjoint(vh)
    sc = s.astype(a.dtype)
    s_kept = jnp.where(keep, 1 / jnp.where(keep, sc, 1), 0)  # S+
    dp = _adjoint(u) @ da @ v
    s2 = sc * sc
    gap = s2[..., None, :] - s2[..., :, None]  # [i, j]: s_j^2 - s_i^2
    f = _safe_reciprocal_offdiag(gap)
    h = jnp.where(jnp.eye(s.shape[-1], dtype=bool), 1, gap * f)
    c = -h * dp * (s_kept[..., :, None] * s_kept[..., None, :])  # (0 unless both are kept)
    # one kept, the other not: SvdGrad's rotations as they are (no cancellation between them)
    om_u = f * (dp * sc[..., None, :] + _adjoint(dp * sc[..., None, :]))
    om_v = f * (sc[..., :, None] * dp + _adjoint(sc[..., :, None] * dp))
    mixed = keep[..., :, None] != keep[..., None, :]
    c = c + jnp.where(mixed, om_v * s_kept[..., None, :] + s_kept[..., :, None] * _adjoint(om_u), 0)
    dpinv = v @ c @ _adjoint(u)
    m, n = a.shape[-2:]
    w = s_kept * s_kept  # (the kept 1/s^2: dU's part outside U is (I - U U^H) dA V S^-1, then times S+)
    if m > n:
        dav = da @ v
        dpinv = dpinv + v @ (w[..., :, None] * _adjoint(dav - u @ (_adjoint(u) @ dav)))
    elif n > m:
        dahu = _adjoint(da) @ u
        dpinv = dpinv + ((dahu - v @ (vh @ dahu)) * w[..., None, :]) @ _adjoint(u)
    return p, dpinv.astype(p.dtype)


@jax.custom_jvp
def _qr_complete_deep(a):
    return tuple(jnp.linalg.qr(a, mode="complete"))


@_qr_complete_deep.defjvp
def _qr_complete_deep_jvp(primals, tangents):
    raise NotImplementedError(
        f"tnp.linalg.qr with mode='complete' on a matrix of shape {primals[0].shape} (more rows than columns) is "
        "not differentiable: its extra columns of Q are not unique (TF: \"QrGrad not implemented when nrows > "
        "ncols and full_matrices is true\"); use mode='reduced'")


def _qr_fn(a, mode="reduced"):
    if mode == "complete" and a.shape[-2] > a.shape[-1]:
        return _qr_complete_deep(a)  # (JAX differentiates it by a convention of its own; TF has no gradient)
    out = jnp.linalg.qr(a, mode=mode)
    return out if mode == "r" else tuple(out)


def _lstsq_fn(a, b, rcond=None):
    if a.ndim > 2:  # a batch of matrices (TF's MatrixSolveLs solves batches; jnp's lstsq takes one): map over it
        return jax.vmap(lambda x, y: _lstsq_fn(x, y, rcond))(a, b)
    return _lstsq_2d(a, b, rcond)


@functools.partial(jax.custom_jvp, nondiff_argnums=(2,))
def _lstsq_2d(a, b, rcond):
    """``jnp.linalg.lstsq`` of one matrix, differentiated as ``x = pinv(a) @ b`` (TF's MatrixSolveLs differentiates
    the normal equations, which is that same function where ``a`` has full rank; JAX's rule, through the SVD,
    gave NaN wherever two singular values are equal, as at the identity)."""
    return tuple(jnp.linalg.lstsq(a, b, rcond=rcond))


def _lstsq_smooth(a, b, rcond):
    """``(x, resid, s)`` of ``_lstsq_2d`` by functions whose derivatives are finite at equal singular values."""
    m, n = a.shape
    eps = float(jnp.finfo(a.dtype).eps)
    rtol = eps * max(m, n) if rcond is None else (eps if rcond < 0 else rcond)  # (jnp.linalg.lstsq's cutoff)
    b2 = b[:, None] if b.ndim == 1 else b  # (as jnp's: a vector b is one column, its resid of shape (1,))
    x = jnp.linalg.pinv(a, rtol=rtol) @ b2
    r = b2 - a @ x
    resid = jnp.sum(jnp.real(r * jnp.conj(r)), axis=0)  # (|r|^2 with no square root: a finite derivative at 0)
    return (x[:, 0] if b.ndim == 1 else x), resid, _svd_reduced(a)[1]


@_lstsq_2d.defjvp
def _lstsq_jvp(rcond, primals, tangents):
    x, resid, rank, s = _lstsq_2d(*primals, rcond)
    if primals[0].size == 0:  # (no matrix: x is zeros, resid |b|^2)
        dx, ds = jnp.zeros_like(x), jnp.zeros_like(s)
        b, db = (v[:, None] if v.ndim == 1 else v for v in primals[1:] + tangents[1:])
        dresid = jnp.sum(2 * jnp.real(jnp.conj(b) * db), axis=0)
    else:
        _, (dx, dresid, ds) = jax.jvp(lambda a, b: _lstsq_smooth(a, b, rcond), primals, tangents)
    return (x, resid, rank, s), (dx.astype(x.dtype), dresid.astype(resid.dtype),
                                 np.zeros(np.shape(rank), jax.dtypes.float0), ds.astype(s.dtype))


@jax.custom_jvp
def _eig_general(a):
    """``eig`` of a square matrix (complex results), with TF's derivative (EigGrad)."""
    return tuple(jnp.linalg.eig(a))


@_eig_general.defjvp
def _eig_general_jvp(primals, tangents):
    # nondegenerate perturbation theory: with P = V^-1 dA V, dw = diag(P) and u = V (F * P), F[i, j] = 1 / (w_j - w_i)
    # (TF's safe reciprocal: 0 between equal eigenvalues); the eigenvectors keep unit norm and get no phase change
    (a,), (da,) = primals, tangents
    w, v = _eig_general(a)
    p = jnp.linalg.solve(v, da.astype(v.dtype) @ v)
    f = _safe_reciprocal_offdiag(w[..., None, :] - w[..., :, None])
    u = v @ (f * p)
    c = -jnp.real(jnp.sum(jnp.conj(v) * u, axis=-2))
    return (w, v), (jnp.diagonal(p, axis1=-2, axis2=-1), u + v * c[..., None, :].astype(v.dtype))


@jax.custom_jvp
def _eigvals_general(a):
    """``eigvals`` (LAPACK without eigenvectors), differentiated through ``_eig_general`` (to any order)."""
    return jnp.linalg.eigvals(a)


@_eigvals_general.defjvp
def _eigvals_general_jvp(primals, tangents):
    (a,), (da,) = primals, tangents
    _, (dw, _) = jax.jvp(_eig_general, (a,), (da,))
    return _eigvals_general(a), dw


def _axis_count(axis, ndim: int) -> int:
    """How many axes ``norm(x, ord, axis)`` reduces (1: a vector norm, 2: a matrix norm); ``axis`` frozen: None,
    an int, a tuple or a Tensor."""
    return ndim if axis is None else (len(axis) if isinstance(axis, tuple) else 1)


def _is_euclidean(ord, axis, ndim: int) -> bool:
    """Whether ``norm(x, ord, axis)`` is ``sqrt(sum(|x|^2))`` over its axes: the vector 2-norm or the
    Frobenius norm (TF's ``'euclidean'``)."""
    n = _axis_count(axis, ndim)
    return (ord is None and (axis is None or n <= 2)) or (ord == 2 and n == 1) or (ord == "fro" and n == 2)


def _norm_axes(axis, ndim: int) -> tuple:
    if axis is None:
        return tuple(range(ndim))
    return tuple(a % ndim for a in ((axis,) if isinstance(axis, int) else axis))


@jax.custom_jvp
def _abs(x):
    return jnp.abs(x)


@_abs.defjvp
def _abs_jvp(primals, tangents):
    # TF's AbsGrad: sign(x), 0 at 0 (JAX's |x| has derivative 1 at 0); for complex x, Re(conj(x) t) / |x|
    (x,), (t,) = primals, tangents
    d = _tf_sign(x)  # (a complex sign whose derivative is not 0: the second order of |x|)
    tangent = jnp.real(_times_sign(t, jnp.conj(d))) if jnp.iscomplexobj(x) else d * t
    return jnp.abs(x), tangent


def _norm_fn(x, ord=None, axis=None, keepdims=False):
    """``jnp.linalg.norm``, with the norms built from ``|x|`` (vector 1, inf, -inf and p-norms, matrix 1, inf,
    -1, -inf norms) written over an ``|x|`` whose derivative is TF's (0 at 0); the others are jnp's."""
    x = _inexact(x)
    axes = _norm_axes(axis, x.ndim) if axis is not None or ord is not None else None
    if axes is not None and len(axes) == 2 and not isinstance(ord, str) and ord in (2, -2):
        # the largest or smallest singular value, as TF's (reduce_max(abs(svd(x)))): the SVD with TF's derivative,
        # and |s| with TF's (0 at 0: a zero matrix has gradient 0; jnp's picked singular vectors, 0.25 * I at 2x2)
        s = _abs(_svd_reduced(jnp.moveaxis(x, axes, (-2, -1)))[1])
        if ord == 2 and not s.shape[-1]:  # (an empty matrix: 2-norm 0, jax.numpy's and NumPy's; -2 raises, as theirs)
            y = jnp.zeros(s.shape[:-1], s.dtype)
        else:
            y = jnp.max(s, axis=-1) if ord == 2 else jnp.min(s, axis=-1)
        return jnp.expand_dims(y, axes) if keepdims else y
    if axes is None or len(axes) not in (1, 2) or isinstance(ord, str) or ord in (None, 0, 2, -2):
        return jnp.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)
    a = _abs(x)
    if len(axes) == 1:
        if ord == np.inf:  # (initial 0: an empty vector's norm is 0, as jax.numpy's)
            y = jnp.max(a, axis=axes, keepdims=True, initial=0)
        elif ord == -np.inf:
            y = jnp.min(a, axis=axes, keepdims=True)
        elif ord == 1:
            y = jnp.sum(a, axis=axes, keepdims=True)
        else:
            y = jnp.sum(a ** ord, axis=axes, keepdims=True) ** (1.0 / ord)
    else:
        row, col = axes
        if ord not in (1, -1, np.inf, -np.inf):  # (jnp's check, which this branch replaces: 2.5 is no matrix norm)
            raise ValueError(f"invalid order {ord!r} for a matrix norm: use 1, -1, 2, -2, inf, -inf, 'fro' or 'nuc'")
        if ord in (np.inf, -np.inf):
            row, col = col, row  # the inf norms sum along rows, the 1 norms along columns
        sums = jnp.sum(a, axis=row, keepdims=True)
        y = jnp.max(sums, axis=col, keepdims=True, initial=0) if ord in (1, np.inf) else \
            jnp.min(sums, axis=col, keepdims=True)
    return y if keepdims else jnp.squeeze(y, axes)


def _euclidean_norm_fwd(x, ord=None, axis=None, keepdims=False):
    y = jnp.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)
    return y, (x, y)


def _euclidean_norm_bwd(res, g, ord=None, axis=None, keepdims=False):
    # TF differentiates sqrt(sum(x * conj(x))): SqrtGrad's 0.5 * g / y is 0 where g is 0 (even at y = 0,
    # a zero vector: 0, not NaN, as tj.numpy.sqrt), times 2 * x (TF's complex convention: x, not conj(x)).
    x, y = res
    axes = _norm_axes(axis, x.ndim)
    if not keepdims:
        g, y = jnp.expand_dims(g, axes), jnp.expand_dims(y, axes)
    return (_cast_like(_mul_no_nan(g, 1 / y) * x, x),)


def _euclidean_norm_jvp(primals, tangents, out, ord=None, axis=None, keepdims=False):
    # the same rule forward: the tangent of sum(|x|^2) / (2 y), 0 where that tangent is 0
    (x,), (t,) = primals, tangents
    half_dsq = jnp.sum(jnp.real(jnp.conj(x) * t), axis=_norm_axes(axis, x.ndim), keepdims=keepdims)
    return _mul_no_nan(half_dsq, 1 / out).astype(out.dtype)


# name                function                                                  samples (args, static)
_solve = OpDef("linalg_solve", jnp.linalg.solve, samples=_samples(
    ((_general(), _rect(3, 2)), {}), ((_general(2), _rect(2, 3, 1)), {})))  # TF: grad_b = A^-H g, grad_a = -grad_b x^H
_inv = OpDef("linalg_inv", _inv_fn, samples=_samples(
    ((_general(),), {}), ((_general(2),), {})))  # TF: -A^-H g A^-H
_cholesky = OpDef("linalg_cholesky", _cholesky_fn, samples=_samples(
    ((_spd(),), {}), ((_spd(4),), {"upper": True})))  # TF: lower triangle read, symmetrized (X + X^H)/2
# (backward_connected: TF's gradient op reads a, so a second derivative through it is zeros, never None)
_det = OpDef("linalg_det", _det_fn, backward_connected=True, samples=_samples(
    ((_general(),), {}), ((_general(2),), {}), ((_f32([[2.0, -0.5], [1.0, 3.0]]),), {})))  # TF: g * det * A^-T
_slogdet = OpDef("linalg_slogdet", _slogdet_fn, samples=_samples(
    ((_general(),), {}), ((-_general(2),), {}), ((_f32([[0.5, 2.0], [1.0, -1.5]]),), {})))  # TF: g * A^-T; sign: 0
_eigh = OpDef("linalg_eigh", _eigh_fn, samples=_samples(
    ((_spd(),), {}), ((_spd(4),), {"UPLO": "U"}), ((_spd(),), {"symmetrize_input": True})))  # TF: the read triangle's
_svd = OpDef("linalg_svd", _svd_fn, samples=_samples(
    ((_distinct_sv(3, 3),), {}), ((_distinct_sv(4, 3),), {"full_matrices": False}),
    ((_distinct_sv(3, 4),), {"full_matrices": False}), ((_distinct_sv(4, 3),), {"compute_uv": False}),
    ((_distinct_sv(4, 3),), {}), ((_distinct_sv(2, 3),), {})))  # TF = JAX; full |m - n| = 1: SvdGrad's extra vector
_qr = OpDef("linalg_qr", _qr_fn, samples=_samples(
    ((_general(),), {}), ((_rect(5, 3),), {}), ((_rect(3, 5),), {}), ((_rect(4, 3),), {"mode": "r"})))  # TF = JAX
_lstsq = OpDef("linalg_lstsq", _lstsq_fn, samples=_samples(
    ((_distinct_sv(5, 3), _rect(5, 2)), {}), ((_distinct_sv(4, 3), _rect(4, 1)[:, 0]), {}),
    ((np.stack([_distinct_sv(3, 2), _distinct_sv(3, 2)]), _rect(2, 3, 2)), {})))  # TF: normal eqs = JAX
_norm = OpDef("norm", _norm_fn, samples=_samples(
    ((_rect(3, 4),), {}), ((_rect(3, 4),), {"axis": 1}), ((_rect(3, 4),), {"ord": 1, "axis": 0})))  # TF = JAX
_euclidean_norm = OpDef("euclidean_norm", jnp.linalg.norm, fwd=_euclidean_norm_fwd, bwd=_euclidean_norm_bwd,
                        jvp=_euclidean_norm_jvp, samples=_samples(  # TF: sqrt(sum(x * conj(x))), SqrtGrad's 0
    ((_rect(3, 4),), {"ord": None, "axis": None, "keepdims": False}),
    ((_rect(3, 4),), {"ord": 2, "axis": 1, "keepdims": True}),
    ((_rect(2, 3, 4),), {"ord": "fro", "axis": (1, 2), "keepdims": False})))

_pinv = OpDef("linalg_pinv", _pinv_fn, samples=_samples(  # TF's pinv differentiates its SVD: the same derivative
    ((_f32([[1.0, 0.4, 0.5], [0.4, 2.0, 0.25], [0.5, 0.25, 3.0]]),), {}),
    ((_f32([[2.0, 0.0, 0.3, 1.0], [0.0, 1.5, 0.0, -0.4], [0.2, 0.0, 1.0, 0.5]]),), {})))
_matrix_power = OpDef("linalg_matrix_power", jnp.linalg.matrix_power, samples=_samples(  # products: TF = JAX
    ((_f32([[1.0, 0.4], [-0.3, 0.8]]),), {"n": 3}), ((_f32([[2.0, 0.5], [0.25, 1.0]]),), {"n": -2})))
_eig = OpDef("linalg_eig", _eig_general, samples=_samples(  # TF's EigGrad (unit eigenvectors, no phase turn)
    ((_general(),), {}), ((_f32([[1.0, -2.0], [3.0, 0.5]]),), {}), ((_general(2),), {})))
_eigvals = OpDef("linalg_eigvals", _eigvals_general, samples=_samples(  # TF = JAX: diag(V^-1 dA V)
    ((_general(),), {}), ((_f32([[0.0, -1.0], [1.0, 0.0]]),), {})))

# -- results, named like jax.numpy.linalg's ---------------------------------------------------------------
SlogdetResult = collections.namedtuple("SlogdetResult", ["sign", "logabsdet"])
EighResult = collections.namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
EigResult = collections.namedtuple("EigResult", ["eigenvalues", "eigenvectors"])
SVDResult = collections.namedtuple("SVDResult", ["U", "S", "Vh"])
QRResult = collections.namedtuple("QRResult", ["Q", "R"])


def _shape(a) -> tuple:
    """The shape of an op argument (a ragged nested list raises tj.constant's error, not NumPy's)."""
    if hasattr(a, "shape"):
        return tuple(a.shape)
    try:
        return np.shape(a)
    except ValueError:
        return tuple(convert_to_tensor(a).shape)


def _check_matrices(name: str, a, square: bool = True, lapack: bool = True) -> None:
    """A ValueError naming the shape, as TF's linalg ops raise for a rank < 2 or a non-square input (jnp raises
    TypeErrors from inside its kernels, or an IndexError); for a ``lapack`` op a TypeError for a half-precision
    input, which JAX's LAPACK calls (and TF's kernels) do not take (jaxlib raises a bare NotImplementedError,
    or, in a deferred step, only when the step runs)."""
    if isinstance(a, (str, bytes)):
        return  # (not a matrix at all: the op's conversion says so, a TypeError as TF's)
    if lapack:
        _check_lapack_dtype(name, a)
    shape = _shape(a)
    if len(shape) < 2:
        raise ValueError(f"tnp.linalg.{name}: the input must have rank at least 2 (a matrix or a batch of "
                         f"matrices), got shape {shape} (rank {len(shape)})")
    if square and shape[-1] != shape[-2]:
        raise ValueError(f"tnp.linalg.{name}: the input must be square matrices [..., n, n], got shape {shape}")


def _check_lapack_dtype(name: str, a) -> None:
    """A NoKernelError (a TypeError and jax's NotImplementedError) for a half-precision input of an op that calls
    LAPACK, which has no such kernels (nor TF's): jaxlib raises it bare, and in a deferred step only when it runs."""
    dtype = getattr(a, "dtype", None)
    if dtype is not None and jnp.dtype(dtype) in _HALF:
        raise NoKernelError(f"tnp.linalg.{name}: no kernel for dtype {jnp.dtype(dtype)} (LAPACK has none; TF has "
                            "none either): cast the input to float32 first.")


def norm(x, ord=None, axis=None, keepdims=False):
    """``jax.numpy.linalg.norm``. The vector 2-norm and the Frobenius norm have TF's gradient (that of
    ``sqrt(sum(x * conj(x)))``): 0 where the incoming gradient is 0, also at a zero vector."""
    static = {"ord": static_value(ord), "axis": static_value(axis), "keepdims": bool(keepdims)}  # (used here)
    for a in (() if static["axis"] is None else static["axis"] if isinstance(static["axis"], tuple)
              else (static["axis"],)):
        try:  # (TF: ValueError "'axis' must be None, an integer, or a tuple of 2 unique integers"; NumPy TypeError)
            as_index(a, f"tj op 'norm': axis must be an integer or a pair of integers, got {axis!r}")
        except TypeError as e:
            raise ShapeError(str(e)) from None
    ndim = len(_shape(x))
    if _axis_count(static["axis"], ndim) == 2 and static["ord"] in (2, -2, "nuc"):  # (singular values: LAPACK's SVD)
        _check_lapack_dtype("norm", x)
    return apply(_euclidean_norm if _is_euclidean(static["ord"], static["axis"], ndim) else _norm, (x,), static)


def solve(a, b):
    """``jax.numpy.linalg.solve``: ``x`` with ``a @ x == b``. A singular ``a`` gives inf/nan entries, as ``inv``
    (TF eager raises InvalidArgumentError: see ``inv``)."""
    _check_matrices("solve", a)
    return apply(_solve, (a, b), {})


def inv(a):
    """``jax.numpy.linalg.inv``. A singular matrix gives inf/nan entries, as jnp; TF eager raises
    InvalidArgumentError ("Input is not invertible") instead. tapejax does not check: the check needs the
    result on the host (a device sync per call), cannot run under ``tj.function``/``jax.jit`` or in a tape's
    deferred step (whose values exist only when the step runs), so it would raise on some paths and not on
    others; ``tj.debug.check_numerics`` finds the inf/nan where it reaches a gradient."""
    return apply(_inv, (a,), {})


def cholesky(a, *, upper: bool = False, symmetrize_input: bool = False):
    """``jax.numpy.linalg.cholesky``, with TF's conventions: only the lower triangle of ``a`` is read (as
    ``tf.linalg.cholesky`` and LAPACK; the upper one may hold anything), and the gradient is symmetric,
    ``(X + X^H) / 2`` (TF's CholeskyGrad). ``symmetrize_input=True`` (jnp's default) factors ``(a + a^H) / 2``
    instead: the same on a Hermitian input."""
    _check_matrices("cholesky", a)
    return apply(_cholesky, (a,), {"upper": bool(upper), "symmetrize_input": bool(symmetrize_input)})


def det(a):
    """``jax.numpy.linalg.det``."""
    _check_matrices("det", a)
    return apply(_det, (a,), {})


def slogdet(a, *, method: Any = None) -> SlogdetResult:
    """``jax.numpy.linalg.slogdet``: ``(sign, logabsdet)``; ``sign`` has zero derivative."""
    _check_matrices("slogdet", a)
    return SlogdetResult(*apply(_slogdet, (a,), {"method": method}))


def eigh(a, UPLO: Any = None, symmetrize_input: bool = False) -> EighResult:
    """``jax.numpy.linalg.eigh``: ``(eigenvalues, eigenvectors)`` of a symmetric matrix.

    As ``tf.linalg.eigh`` and ``numpy.linalg.eigh``, only the ``UPLO`` triangle (default lower) is read, and the
    gradient lies on that triangle (TF's convention). ``symmetrize_input=True`` reads ``(a + a^H) / 2`` instead,
    with the symmetric gradient (JAX's default). Where what is read holds inf or NaN, the result is NaN (TF eager
    raises InvalidArgumentError; see ``inv`` for why tapejax does not check on the host)."""
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"tnp.linalg.eigh: UPLO must be 'L' or 'U', got {UPLO!r}")
    _check_matrices("eigh", a)
    return EighResult(*apply(_eigh, (a,), {"UPLO": UPLO, "symmetrize_input": bool(symmetrize_input)}))


def eigvalsh(a, UPLO: Any = "L", *, symmetrize_input: bool = False):
    """``jax.numpy.linalg.eigvalsh``: the eigenvalues of ``eigh`` (as ``tf.linalg.eigvalsh``), with ``eigh``'s
    conventions (the ``UPLO`` triangle is read, and the gradient lies on it, as TF's)."""
    return eigh(a, UPLO=UPLO, symmetrize_input=symmetrize_input).eigenvalues


def eig(a) -> EigResult:
    """``jax.numpy.linalg.eig``: ``(eigenvalues, eigenvectors)`` of a general square matrix, complex (column
    ``v[:, i]`` belongs to ``w[i]``, unit norm). Runs on the CPU only (as JAX's). The gradient is TF's (EigGrad): it
    assumes distinct eigenvalues, and gives the eigenvectors no phase change (a loss should not depend on
    their phases, which LAPACK fixes by a convention)."""
    _check_matrices("eig", a)
    return EigResult(*apply(_eig, (a,), {}))


def eigvals(a):
    """``jax.numpy.linalg.eigvals``: the (complex) eigenvalues of a general square matrix, with ``eig``'s
    gradient (``diag(V^-1 dA V)``: TF's and JAX's). Runs on the CPU only (as JAX's)."""
    _check_matrices("eigvals", a)
    return apply(_eigvals, (a,), {})


def svd(a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False,
        subset_by_index: Any = None):
    """``jax.numpy.linalg.svd``: ``(U, S, Vh)``, or ``S`` alone with ``compute_uv=False``; ``subset_by_index``
    ``(start, end)`` keeps those singular values (largest first) and their vectors, as jax.numpy's. A gradient of
    ``full_matrices=True`` on an ``m x n`` matrix with ``|m - n| > 1`` is not defined (LookupError, as TF's
    SvdGrad raises): use ``full_matrices=False``."""
    _check_matrices("svd", a, square=False)
    static = {"full_matrices": bool(full_matrices), "compute_uv": bool(compute_uv), "hermitian": bool(hermitian)}
    if subset_by_index is not None:  # (jax's default None: the kernels made before)
        static["subset_by_index"] = tuple(operator.index(i) for i in freeze(subset_by_index))
    out = apply(_svd, (a,), static)
    return SVDResult(*out) if compute_uv else out


def qr(a, mode: str = "reduced"):
    """``jax.numpy.linalg.qr``: ``(Q, R)`` (``mode`` 'reduced', or its old name 'full', or 'complete'), ``R``
    alone (``mode='r'``), or LAPACK's Householder form (``mode='raw'``: the reflectors, ``(..., n, m)``, and their
    scales, as jax.numpy's). ``mode='complete'`` on a matrix with more rows than columns has no gradient
    (LookupError), as TF's QrGrad."""
    if mode not in ("reduced", "complete", "r", "raw", "full"):
        raise ValueError(f"tnp.linalg.qr: mode must be 'reduced', 'complete', 'r', 'raw' or 'full', got {mode!r}")
    _check_matrices("qr", a, square=False)
    out = apply(_qr, (a,), {"mode": mode})
    return out if mode == "r" else QRResult(*out)


def pinv(a, rtol: Any = None, hermitian: bool = False, *, rcond: Any = None):
    """``jax.numpy.linalg.pinv``: the Moore-Penrose pseudo-inverse (``tf.linalg.pinv``; jnp's default ``rtol``,
    ``max(m, n) * eps``, where TF's default ``rcond`` is ten times that). ``rtol`` (or its old name ``rcond``, not
    both) may hold one value per matrix."""
    if rcond is not None:
        if rtol is not None:
            raise ValueError("tnp.linalg.pinv: only one of rtol and rcond may be specified")
        rtol = rcond
    _check_matrices("pinv", a, square=False)
    return apply(_pinv, (a,), {"rtol": freeze(rtol), "hermitian": bool(hermitian)})


def matrix_power(a, n: int):
    """``jax.numpy.linalg.matrix_power``: ``a`` multiplied by itself ``n`` times (``n < 0``: of its inverse)."""
    _check_matrices("matrix_power", a, lapack=False)
    # (int() would truncate 2.5 to 2; NumPy and jax.numpy raise TypeError)
    n = as_index(freeze(n), f"tj op 'linalg_matrix_power': the exponent must be an integer, got {n!r}")
    return apply(_matrix_power, (a,), {"n": n})


def lstsq(a, b, rcond: Any = None, *, numpy_resid: bool = False):
    """``jax.numpy.linalg.lstsq``: ``(x, resid, rank, s)``; ``rank`` is an int (no gradient). As
    ``tf.linalg.lstsq``, ``a`` may be a batch of matrices ``[..., m, n]`` (``b``: ``[..., m, k]``). With
    ``numpy_resid=True`` the residuals are NumPy's: empty where ``a`` has rank below ``n`` or ``m <= n``, which needs
    the rank now (eagerly, as jax.numpy's: not inside tj.function)."""
    # (a and b are solved in their promoted dtype, as jax.numpy's: float32 with float16 is float32)
    dtype = jnp.promote_types(*(m.dtype if hasattr(m, "dtype") else np.asarray(m).dtype for m in (a, b)))
    _check_lapack_dtype("lstsq", jax.ShapeDtypeStruct((), dtype))
    x, resid, rank, s = apply(_lstsq, (a, b), {"rcond": freeze(rcond)})
    if numpy_resid:
        m, n = _shape(a)[-2:]
        known = rank.value if not isinstance(rank.value, jax.core.Tracer) else None
        if known is None:
            raise TypeError("tnp.linalg.lstsq: numpy_resid=True needs the rank now, and it is traced (inside "
                            "tj.function or a JAX transformation), as jax.numpy's; use numpy_resid=False there")
        if np.any(np.asarray(known) < n) or m <= n:
            resid = Tensor(jnp.asarray([]))  # (jax.numpy's empty residuals)
    return x, resid, rank, s


# -- the Array API's norms and the functions of values, as jax.numpy.linalg's ------------------------------------

def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """``jax.numpy.linalg.vector_norm``: ``norm`` of ``x`` as one vector (``axis=None``), along one ``axis``, or
    over a tuple of axes (their entries as one vector; ``()``: each entry alone)."""
    shape = _shape(x)
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else None if axis is None else (axis,)
    if axes is not None and len(axes) == 1:
        return norm(x, ord=ord, axis=axes[0], keepdims=keepdims)
    for a in axes or ():
        if not -len(shape) <= operator.index(a) < len(shape):
            raise axis_error("tnp.linalg.vector_norm", a, len(shape))
    axes = tuple(range(len(shape))) if axes is None else tuple(operator.index(a) % len(shape) for a in axes)
    others = tuple(d for d in range(len(shape)) if d not in axes)
    # (the axes moved last and made one: a vector norm along it)
    length = math.prod(shape[d] for d in axes)
    flat = convert_to_tensor(x).transpose(others + axes).reshape(tuple(shape[d] for d in others) + (length,))
    result = norm(flat, ord=ord, axis=-1)
    if keepdims:
        result = result.reshape(tuple(1 if d in axes else shape[d] for d in range(len(shape))))
    return result


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """``jax.numpy.linalg.matrix_norm``: ``norm`` of each matrix (the last two axes)."""
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def svdvals(x, /):
    """``jax.numpy.linalg.svdvals``: the singular values (``svd(x, compute_uv=False)``)."""
    return svd(x, compute_uv=False)


def _matrix_rank_fn(M, *tolerances, hermitian=False, given=()):
    if M.ndim >= 2 and 0 in M.shape[-2:]:
        # (no singular values: rank 0, NumPy's and TF's; jax.numpy's largest singular value of none raised), in
        # the default integer type, as jax.numpy's count of singular values
        return jnp.zeros(M.shape[:-2], int)
    return jnp.linalg.matrix_rank(M, hermitian=hermitian, **dict(zip(given, tolerances)))


_matrix_rank = not_differentiable("linalg_matrix_rank", _matrix_rank_fn)


def matrix_rank(M, rtol: Any = None, *, hermitian: bool = False, tol: Any = None):
    """``jax.numpy.linalg.matrix_rank``: the number of singular values above the tolerance (an int: no
    gradient). ``rtol`` and ``tol`` may be arrays, one tolerance per matrix of a batch or broadcast against the
    batch (arguments of the op, as jax.numpy's)."""
    if len(_shape(M)) >= 2:  # (a vector's rank is 0 or 1, as jax.numpy's and NumPy's)
        _check_matrices("matrix_rank", M, square=False)
    given = tuple(name for name, t in (("rtol", rtol), ("tol", tol)) if t is not None)
    tolerances = tuple(t for t in (rtol, tol) if t is not None)
    return apply(_matrix_rank, (M,) + tolerances, {"hermitian": bool(hermitian), "given": given})


# jax.numpy.linalg's functions composed of tj.numpy's ops (tensorinv, tensorsolve, multi_dot, cond, and the Array
# API's names of tj.numpy functions): tj.numpy imports this module, so this one cannot import it; they are defined at
# the end of numpy.py and set here by it, when tj.numpy is imported (before anything can use them).
_COMPOSED_IN_NUMPY = ["tensorinv", "tensorsolve", "multi_dot", "cond", "cross", "matmul", "outer", "vecdot",
                      "matrix_transpose", "tensordot", "trace", "diagonal"]

__all__ = ["norm", "solve", "inv", "cholesky", "det", "slogdet", "eigh", "eigvalsh", "eig", "eigvals", "svd", "qr",
           "lstsq", "pinv", "matrix_power", "vector_norm", "matrix_norm", "svdvals", "matrix_rank"] + _COMPOSED_IN_NUMPY

__dir__ = public_dir(__name__)
