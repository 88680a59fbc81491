"""Differential test of tapejax against TensorFlow on random programs over complex64 values.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python tools/tf_complex_differential.py [--first K] [--programs N] [--verbose]

Seed ``k`` draws (``numpy.random.default_rng(k)``) one or two complex64 inputs of small shapes, sometimes a float32
one, with entries from a small set (0, 1j, -1, 1+1j, 0.5-2j...: zeros and ties are common), and 3-8 steps, each an
op on earlier values with a tapejax version and a TF twin (``OPS``): arithmetic, powers, conj/real/imag/abs/angle,
elementwise functions, reductions, matmul/einsum, shape ops, gather, FFTs, ``complex(a, b)``, casts, inv, det,
solve, Hermitian eigh, cholesky, phase-normalized qr, singular values. The last value ``out`` is made real, ``L =
sum(w * real(out)) + sum(u * imag(out))`` (or ``sum(w * abs(out)**2)``). Compared: every step's value;
``tape.gradient(L, inputs)`` (TF's complex convention, ``conj(jax.grad)``: API.md; ``None`` exactly where TF's); the
last complex value's gradient for a complex ``output_gradients``; ``tape.jacobian(out, inputs)``; a second
derivative (nested tapes: the gradient of ``sum(real(conj(g) * v))``, ``g`` the first gradients); the
``ForwardAccumulator`` JVPs of ``out`` and ``L`` along complex tangents (a derivative TF refuses is not compared);
the exception class where TF raises (tools/tf_differential.py's ``ACCEPTED``); and once per run API.md's rule that
``tj.gradients`` of a complex target without ``grad_ys`` raises ``TypeError`` in ``tj.function``, as TF's.

Tolerances: tools/tf_differential.py's (64 float32 ulps relative to each value and to the largest magnitude, real
and imaginary parts apart) times ``TOL``; NaN and inf positions must match. A program that differs counts as
"known" when ``KNOWN`` (deliberate differences, TF rules that break TF's own complex convention) explains it all;
"found" when ``FOUND`` (tapejax differences this tool found, unexplained by API.md: to triage) does; "rounding"
when tapejax is as close as TF to TF's float64 result (or only a singular matrix's determinant differs, within
rounding of its entries' scale, or the derivatives of a solve(x, x), rounding, meet a pole); "branch_cut" when a
value on the negative real axis reaches sqrt/log/angle/pow with an imaginary part of another sign in each library
(+0 against -0, rounding); "degenerate" at tied or zero eigen- or singular values, a rank-deficient QR (undefined
derivatives) or an inverse or solve of a matrix singular to float32 rounding; "tf_nan" when only TF has NaN or inf
where tapejax has a number (API.md's mul_no_nan rule...); "nonfinite" when both are non-finite but differ (NaN
against inf); else "mismatch" (printed; exit status 1).
"""
from __future__ import annotations

import os
import re
import sys
import warnings
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Callable, NamedTuple

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
# Compiling dominates the run (each op, shape and parameter compiles its forward, backward and forward-mode kernels,
# and nested tapes their derivatives): XLA's optimization level 0 compiles them about a third faster, with the same
# IEEE float semantics (no fast-math either way). Set XLA_FLAGS to run with other settings.
os.environ.setdefault("XLA_FLAGS", "--xla_backend_optimization_level=0")
warnings.filterwarnings("ignore")

import jax  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tapejax as tj  # noqa: E402
from seed_runs import seed_arguments  # noqa: E402
import tf_differential as TFD  # noqa: E402  (its compare, tolerance and ACCEPTED)

tf.get_logger().setLevel("ERROR")  # (TF warns that forward-mode primals "must be floating": it works on complex)
tnp = tj.numpy
C64, F32 = np.complex64, np.float32
CVALUES = np.asarray([0, 1j, -1, 1 + 1j, 0.5 - 2j, 2, -0.5j, 1.5 + 0.5j], C64)
FVALUES = np.asarray([0, 1, -1, 0.5, -2, 1.5], F32)
SHAPES = [(2, 3), (3,), (3, 3), (2, 2)]
TOL = 2.0  # programs chain roundings: twice tf_differential's single-op tolerance (about 1.5e-5)


# -- the ops: each draws its arguments among earlier values and returns a Step (or None: no fitting value) ----

Meta = NamedTuple("Meta", [("shape", tuple), ("cplx", bool)])  # a value's shape and whether it is complex64


@dataclass
class Step:
    label: str
    args: list
    tj_fn: Callable
    tf_fn: Callable
    meta: Meta
    cut: bool = False  # a branch cut along the negative reals (its first argument's)
    degenerate: Callable = None  # of the arguments' values: where the derivative is undefined (see degenerate())


def pick(rng, pool, pred=lambda m: True):
    """An index of ``pool`` whose Meta satisfies ``pred`` (the newest value half the time, to make chains)."""
    ok = [i for i, m in enumerate(pool) if pred(m)]
    if not ok:
        return None
    return ok[-1] if rng.random() < 0.5 else int(rng.choice(ok))


def bshape(a, b):
    try:
        return tuple(np.broadcast_shapes(a, b))
    except ValueError:
        return None


# elementwise, dtype-preserving: name -> (tapejax, TF)
UNARY = {
    "conj": (tnp.conj, tf.math.conj), "exp": (tnp.exp, tf.exp), "log": (tnp.log, tf.math.log),
    "sqrt": (tnp.sqrt, tf.sqrt), "square": (tnp.square, tf.square), "sin": (tnp.sin, tf.sin),
    "cos": (tnp.cos, tf.cos), "tanh": (tnp.tanh, tf.tanh), "neg": (lambda x: -x, lambda x: -x),
    "reciprocal": (tnp.reciprocal, tf.math.reciprocal),
}
# complex -> float32 (TF's cast of complex to float drops the imaginary part, as jax.numpy's astype)
TO_REAL = {
    "real": (tnp.real, tf.math.real), "imag": (tnp.imag, tf.math.imag), "abs": (abs, abs),
    "angle": (tnp.angle, tf.math.angle),
    "cast_f32": (lambda z: tnp.astype(z, F32), lambda z: tf.cast(z, z.dtype.real_dtype)),
}
BINARY = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
          "div": lambda a, b: a / b, "pow": lambda a, b: a ** b}
REDUCE = {"sum": (tnp.sum, tf.reduce_sum), "mean": (tnp.mean, tf.reduce_mean), "prod": (tnp.prod, tf.reduce_prod)}
POWERS = [2, 3, 0.5, -1.0, 1.5, 0.5 + 0.5j, 1j]
CUT = ("sqrt", "log", "angle")


def op_elementwise(rng, pool):
    """A dtype-preserving function (UNARY), a complex -> float32 one (TO_REAL) or a power by a constant."""
    kind = str(rng.choice(["unary", "to_real", "power"], p=[4 / 7, 2 / 7, 1 / 7]))
    i = pick(rng, pool, lambda m: m.cplx or kind != "to_real")
    if i is None:
        return None
    if kind == "power":
        p = POWERS[int(rng.integers(len(POWERS) if pool[i].cplx else 5))]  # (a complex power of a float: TF raises)
        cut = not (isinstance(p, (int, float)) and float(p).is_integer())
        return Step(f"pow({p})", [i], lambda x: x ** p, lambda x: x ** p, pool[i], cut=cut)
    table = UNARY if kind == "unary" else TO_REAL
    name = str(rng.choice(list(table)))
    return Step(name, [i], *table[name], Meta(pool[i].shape, pool[i].cplx and kind == "unary"), cut=name in CUT,
                degenerate=_rounding_residue if name in ("abs", "angle") else None)


def _rounding_residue(z) -> bool:
    """Whether ``z`` holds a value that is 0 but for rounding (|z| within 1e-5 of its largest, not 0): abs's and
    angle's derivatives there are the residue's direction, which each library's rounding picks (seed 2526: an
    entry of a QR's Q, 0 in exact arithmetic, -3e-8 - 8e-8j in tapejax); likewise a division's derivatives by such a
    residue (its pole: seed 908444, q / q at a Q entry of -8e-8 + 2e-8j in tapejax, 3e-8 + 5e-8j in TF, where the
    derivatives, 0 in exact arithmetic, are each library's rounding over the residue squared)."""
    a = np.abs(np.asarray(z, np.complex128))
    if not np.all(np.isfinite(a)):
        return False
    return bool(np.any((a > 0) & (a <= 1e-5 * max(1.0, float(np.max(a, initial=0))))))


def op_binary(rng, pool):
    i = pick(rng, pool)
    name = str(rng.choice(list(BINARY)))
    j = pick(rng, pool, lambda m: m.cplx == pool[i].cplx and bshape(m.shape, pool[i].shape) is not None)
    a, b = (i, j) if rng.random() < 0.5 else (j, i)
    f = BINARY[name]
    return Step(name, [a, b], f, f, Meta(bshape(pool[a].shape, pool[b].shape), pool[i].cplx), cut=name == "pow",
                degenerate=(lambda x, y: _rounding_residue(y)) if name == "div" else None)


def _ctype(x):  # TF's complex dtype of a float tensor's precision
    return tf.complex128 if x.dtype == tf.float64 else tf.complex64


TJ_COMPLEX = tj.op(jax.lax.complex, name="complex")  # (tj.numpy has no complex(a, b))


def op_to_complex(rng, pool):
    """A cast to complex64, or complex(a, b) from two float32 values: tf.complex against tj.op(jax.lax.complex), or
    a + 1j * b in both (whose real part is NaN where b is not finite: 1j * inf = nan + inf j)."""
    i = pick(rng, pool, lambda m: not m.cplx)
    if i is None:
        return None
    kind = str(rng.choice(["cast_c64", "complex", "a+1j*b"]))
    if kind == "cast_c64":
        return Step(kind, [i], lambda x: tnp.astype(x, C64), lambda x: tf.cast(x, _ctype(x)), Meta(pool[i].shape, True))
    j = pick(rng, pool, lambda m: not m.cplx and bshape(m.shape, pool[i].shape) is not None)
    shape = bshape(pool[i].shape, pool[j].shape)
    if kind == "complex":  # (jax.lax.complex does not broadcast)
        return Step(kind, [i, j], lambda a, b: TJ_COMPLEX(tnp.broadcast_to(a, shape), tnp.broadcast_to(b, shape)),
                    tf.complex, Meta(shape, True))
    return Step(kind, [i, j], lambda a, b: a + 1j * b, lambda a, b: tf.cast(a, _ctype(a)) + tf.cast(b, _ctype(b)) * 1j,
                Meta(shape, True))


def op_reduce(rng, pool):
    i = pick(rng, pool, lambda m: len(m.shape) >= 1)
    if i is None:
        return None
    m = pool[i]
    name = str(rng.choice(list(REDUCE) + ["cumsum"]))
    axis = int(rng.integers(len(m.shape)))
    if name == "cumsum":
        return Step(f"cumsum(axis={axis})", [i], lambda x: tnp.cumsum(x, axis=axis),
                    lambda x: tf.math.cumsum(x, axis=axis), m)
    f, g = REDUCE[name]
    shape = m.shape[:axis] + m.shape[axis + 1:]
    return Step(f"{name}(axis={axis})", [i], lambda x: f(x, axis=axis), lambda x: g(x, axis=axis), Meta(shape, m.cplx))


def op_matmul(rng, pool):
    i = pick(rng, pool, lambda m: len(m.shape) == 2)
    if i is None:
        return None
    a = pool[i]
    j = pick(rng, pool, lambda m: m.cplx == a.cplx and len(m.shape) == 2 and m.shape[0] == a.shape[1])
    if j is not None and rng.random() < 0.5:
        return Step("matmul", [i, j], lambda x, y: x @ y, lambda x, y: x @ y,
                    Meta((a.shape[0], pool[j].shape[1]), a.cplx))
    specs = [("ij,j->i", lambda m: m.shape == (a.shape[1],), (a.shape[0],)),
             ("ij,kj->ik", lambda m: len(m.shape) == 2 and m.shape[1] == a.shape[1], None),
             ("ij,ij->j", lambda m: m.shape == a.shape, (a.shape[1],))]
    spec, pred, shape = specs[int(rng.integers(3))]
    j = pick(rng, pool, lambda m: m.cplx == a.cplx and pred(m))
    if j is None:
        return None
    shape = shape or (a.shape[0], pool[j].shape[0])
    return Step(f"einsum({spec})", [i, j], lambda x, y: tnp.einsum(spec, x, y), lambda x, y: tf.einsum(spec, x, y),
                Meta(shape, a.cplx))


def op_shape(rng, pool):
    """transpose, reshape, tile, pad, flip or take (an index out of range now and then: TF raises)."""
    i = pick(rng, pool, lambda m: len(m.shape) >= 1)
    if i is None:
        return None
    m = pool[i]
    n, kind = len(m.shape), str(rng.choice(["transpose", "reshape", "tile", "pad", "flip", "take"]))
    if kind == "transpose" and n == 2:
        return Step("transpose", [i], tnp.transpose, tf.transpose, Meta(m.shape[::-1], m.cplx))
    if kind == "reshape":
        size = int(np.prod(m.shape))
        shapes = [s for s in [(size,), (1, size), (size, 1), m.shape[::-1]] + [(d, size // d) for d in (2, 3)
                                                                                if size % d == 0] if s != m.shape]
        s = shapes[int(rng.integers(len(shapes)))]
        return Step(f"reshape{s}", [i], lambda x: tnp.reshape(x, s), lambda x: tf.reshape(x, s), Meta(s, m.cplx))
    if kind == "tile":
        reps = tuple(int(r) for r in rng.integers(1, 3, size=n))
        return Step(f"tile{reps}", [i], lambda x: tnp.tile(x, reps), lambda x: tf.tile(x, reps),
                    Meta(tuple(d * r for d, r in zip(m.shape, reps)), m.cplx))
    if kind == "pad":
        pads = [[(0, 1), (1, 0), (1, 1), (0, 0)][int(k)] for k in rng.integers(4, size=n)]
        return Step(f"pad{pads}", [i], lambda x: tnp.pad(x, pads), lambda x: tf.pad(x, pads),
                    Meta(tuple(d + sum(p) for d, p in zip(m.shape, pads)), m.cplx))
    axis = int(rng.integers(n))
    if kind == "flip":
        return Step(f"flip(axis={axis})", [i], lambda x: tnp.flip(x, axis), lambda x: tf.reverse(x, [axis]), m)
    idx = [int(k) for k in rng.integers(m.shape[axis], size=int(rng.integers(1, 5)))]
    if rng.random() < 0.03:
        idx[-1] = m.shape[axis]  # out of range
    return Step(f"take({idx}, axis={axis})", [i], lambda x: tnp.take(x, np.asarray(idx), axis=axis),
                lambda x: tf.gather(x, idx, axis=axis),
                Meta(m.shape[:axis] + (len(idx),) + m.shape[axis + 1:], m.cplx))


def op_join(rng, pool):
    """concatenate or stack two values of one dtype."""
    i = pick(rng, pool, lambda m: len(m.shape) >= 1)
    if i is None:
        return None
    m = pool[i]
    axis = int(rng.integers(len(m.shape)))
    if rng.random() < 0.5:
        j = pick(rng, pool, lambda q: q.cplx == m.cplx and len(q.shape) == len(m.shape) and all(
            a == b for k, (a, b) in enumerate(zip(q.shape, m.shape)) if k != axis))
        shape = m.shape[:axis] + (m.shape[axis] + pool[j].shape[axis],) + m.shape[axis + 1:]
        return Step(f"concatenate(axis={axis})", [i, j], lambda x, y: tnp.concatenate([x, y], axis),
                    lambda x, y: tf.concat([x, y], axis), Meta(shape, m.cplx))
    j = pick(rng, pool, lambda q: q == m)
    return Step(f"stack(axis={axis})", [i, j], lambda x, y: tnp.stack([x, y], axis),
                lambda x, y: tf.stack([x, y], axis), Meta(m.shape[:axis] + (2,) + m.shape[axis:], m.cplx))


def op_fft(rng, pool):
    """fft/ifft (complex), rfft (float32 signal) and irfft (complex half spectrum) along the last axis."""
    kind = str(rng.choice(["fft", "ifft", "rfft", "irfft"]))
    i = pick(rng, pool, lambda m: len(m.shape) >= 1 and m.shape[-1] >= 2 and m.cplx == (kind != "rfft"))
    if i is None:
        return None
    m = pool[i]
    if kind in ("fft", "ifft"):
        return Step(kind, [i], getattr(tnp.fft, kind), getattr(tf.signal, kind), m)
    if kind == "rfft":
        return Step("rfft", [i], tnp.fft.rfft, tf.signal.rfft, Meta(m.shape[:-1] + (m.shape[-1] // 2 + 1,), True))
    n = 2 * (m.shape[-1] - 1) + int(rng.integers(2))  # an even or an odd signal length
    return Step(f"irfft(n={n})", [i], lambda z: tnp.fft.irfft(z, n=n),
                lambda z: tf.signal.irfft(z, fft_length=[n]), Meta(m.shape[:-1] + (n,), False))


def _add(x, e):  # x + a NumPy constant, in x's precision
    return x + (tf.cast(e, x.dtype) if isinstance(x, tf.Tensor) else e)


def _herm(x, m):  # x + x^H (tf.linalg.adjoint is the conjugate transpose)
    return x + (tnp.conj(tnp.transpose(x)) if m is tnp else tf.linalg.adjoint(x))


def _qr_fixed(x, m, part):
    """Q or R of x's QR with R's diagonal made real positive (the phase LAPACK and Eigen choose differs)."""
    q, r = m.linalg.qr(x)
    d = (tnp.diagonal(r) if m is tnp else tf.linalg.diag_part(r))
    d = d / (tnp.abs(d) if m is tnp else tf.cast(tf.abs(d), d.dtype))
    return q * d[None, :] if part == "q" else (tnp.conj(d) if m is tnp else tf.math.conj(d))[:, None] * r


def _near(v, ties=True, zeros=True) -> bool:
    """Whether two of the values ``v`` are equal (``ties``), or one is 0 (``zeros``), to float32 rounding."""
    v = np.sort(np.asarray(v, np.float64))
    if not np.all(np.isfinite(v)):
        return True
    tol = 1e-3 * max(1.0, float(np.max(np.abs(v), initial=0)))
    return bool((ties and np.any(np.diff(v) <= tol)) or (zeros and np.min(np.abs(v), initial=1) <= tol))


def _singular_to_rounding(a) -> bool:
    """Whether the matrix ``a`` (TF's value) is singular to float32 rounding: its smallest singular value at most
    1e-6 of its largest (or an entry is not finite). Its determinant is then each library's rounding of a
    cancellation, and so are the derivatives through it. Seed 906443: det of a 3x3 matrix with entries of 1e21 and
    singular values 1.9e21, 2e5, 4 is 1.6e22 in tapejax, 2.3e22 in TF and NumPy's complex64 LU; its derivative
    is JAX's cofactor solve in tapejax, whose products of entries overflow (nan), and det * inv(A)^H in TF."""
    s = _svals(a)
    return not np.all(np.isfinite(s)) or float(np.min(s)) <= 1e-6 * float(np.max(s))


def _svals(x):  # (NumPy, in float64, on TF's value)
    return np.linalg.svd(np.asarray(x, np.complex128), compute_uv=False) if np.all(np.isfinite(x)) else [np.nan]


def _eigvals(x, e):
    return np.linalg.eigvalsh(x + np.conj(x).T + e) if np.all(np.isfinite(x)) else [np.nan]


def op_linalg(rng, pool):
    i = pick(rng, pool, lambda m: len(m.shape) == 2 and m.shape[0] == m.shape[1])
    kind = str(rng.choice(["inv", "det", "solve", "eigh", "eigh_vecs", "cholesky", "qr_r", "qr_q", "svdvals"]))
    if kind in ("qr_r", "qr_q", "svdvals"):
        i = pick(rng, pool, lambda m: len(m.shape) == 2)
    if i is None:
        return None
    m = pool[i]
    n, dt = m.shape[0], C64 if m.cplx else F32
    if kind in ("inv", "det", "solve"):  # well conditioned as x + 4 I, mostly: x itself may be singular
        shift = 0.0 if rng.random() < 0.2 else 4.0
        e, lab = np.eye(n, dtype=dt) * shift, "" if shift == 0 else "+4I"
        # (a matrix singular to float32 rounding: its inverse is rounding, each library's own, or inf and NaN;
        # seed 900614: solve(v0 / v0, ...), a matrix of ones to the last bit in jax, off by rounding in TF; its
        # determinant's value: ``singular_det_rounding``)
        singular = (lambda a, *_: _near(_svals(a + e), ties=False)) if shift == 0 else None
        if kind == "solve":
            j = pick(rng, pool, lambda q: q.cplx == m.cplx and len(q.shape) == 2 and q.shape[0] == n)
            # (solve(x, x) is the identity, its derivatives 0 in exact arithmetic: what each library computes is
            # its own rounding, amplified by x's condition. Seed 909765: gradients of 2e-5 in tapejax, -1e-5 in TF)
            same = i == j and shift == 0
            return Step(f"solve(x{lab}, b)", [i, j], lambda a, b: tnp.linalg.solve(a + e, b),
                        lambda a, b: tf.linalg.solve(_add(a, e), b), pool[j],
                        degenerate=(lambda *_: True) if same else singular)
        f, g = {"inv": (tnp.linalg.inv, tf.linalg.inv), "det": (tnp.linalg.det, tf.linalg.det)}[kind]
        return Step(f"{kind}(x{lab})", [i], lambda x: f(x + e), lambda x: g(_add(x, e)), Meta(() if kind == "det" else
                                                                                              m.shape, m.cplx),
                    degenerate=(lambda x: _singular_to_rounding(x + e)) if kind == "det" else
                    singular if kind == "inv" else None)
    if kind == "eigh":
        return Step("eigh(x + x^H).eigenvalues", [i], lambda x: tnp.linalg.eigh(_herm(x, tnp))[0],
                    lambda x: tf.math.real(tf.linalg.eigh(_herm(x, tf))[0]), Meta((n,), False),  # (TF's: complex)
                    degenerate=lambda x: _near(_eigvals(x, 0), zeros=False))
    if kind == "eigh_vecs":  # |eigenvectors| (phase-free) of a Hermitian matrix with its eigenvalues pulled apart
        e = np.diag(np.arange(n) * 3.0).astype(dt)
        return Step("eigh(x + x^H + diag(0,3,6)).|eigenvectors|", [i],
                    lambda x: abs(tnp.linalg.eigh(_herm(x, tnp) + e)[1]),
                    lambda x: abs(tf.linalg.eigh(_add(_herm(x, tf), e))[1]), Meta(m.shape, False),
                    degenerate=lambda x: _near(_eigvals(x, e), zeros=False))
    if kind == "cholesky":
        e = np.eye(n, dtype=dt)
        return Step("cholesky(x x^H + I)", [i], lambda x: tnp.linalg.cholesky(x @ tnp.conj(tnp.transpose(x)) + e),
                    lambda x: tf.linalg.cholesky(_add(x @ tf.linalg.adjoint(x), e)), m)
    if kind == "svdvals":
        return Step("svd(x).S", [i], lambda x: tnp.linalg.svd(x, compute_uv=False),
                    lambda x: tf.linalg.svd(x, compute_uv=False), Meta((min(m.shape),), False),
                    degenerate=lambda x: _near(_svals(x)))
    k = min(m.shape)
    part = kind[-1]
    return Step(f"qr(x).{part.upper()} (diag(R) > 0)", [i], lambda x: _qr_fixed(x, tnp, part),
                lambda x: _qr_fixed(x, tf, part), Meta((m.shape[0], k) if part == "q" else (k, m.shape[1]), m.cplx),
                degenerate=lambda x: _near(_svals(x[:, :k]), ties=False))


OPS = [(op_elementwise, 7), (op_binary, 4), (op_to_complex, 2), (op_reduce, 2), (op_matmul, 2), (op_shape, 3),
       (op_join, 1), (op_fft, 2), (op_linalg, 3)]


class Program:
    """Seed ``seed``'s inputs and steps; ``run(m, vals)`` appends every step's value in library ``m`` (tnp or tf)."""

    def __init__(self, seed: int):
        rng = np.random.default_rng(seed)
        self.seed, self.xs = seed, []
        for _ in range(int(rng.integers(1, 3))):
            self.xs.append(rng.choice(CVALUES, size=SHAPES[int(rng.integers(len(SHAPES)))]).astype(C64))
        if rng.random() < 0.4:
            self.xs.append(rng.choice(FVALUES, size=SHAPES[int(rng.integers(len(SHAPES)))]).astype(F32))
        pool = [Meta(x.shape, x.dtype == C64) for x in self.xs]
        self.steps = []
        ops, p = [o for o, _ in OPS], np.asarray([w for _, w in OPS], float)
        n_steps = int(rng.integers(3, 9))
        while len(self.steps) < n_steps:
            step = ops[int(rng.choice(len(ops), p=p / p.sum()))](rng, pool)
            if step is not None and step.args[-1] is not None:
                self.steps.append(step)
                pool.append(step.meta)
        self.pool = pool
        self.abs2 = rng.random() < 0.25  # L = sum(w * |out|**2) rather than weighing the real and imaginary parts
        # the last complex value: the target given a complex output gradient
        self.ctarget = max([k for k, m in enumerate(pool) if m.cplx], default=None)
        self.og = cnormal(rng, pool[self.ctarget].shape) if self.ctarget is not None else None
        self.tangents = [cnormal(rng, x.shape) if x.dtype == C64 else rng.normal(size=x.shape).astype(F32)
                         for x in self.xs]

    @property
    def labels(self):
        return {s.label.split("(")[0] for s in self.steps}

    def run(self, m, vals: list) -> list:  # (appends to ``vals``, the inputs: what ran is there if a step raises)
        for s in self.steps:
            vals.append((s.tj_fn if m is tnp else s.tf_fn)(*[vals[k] for k in s.args]))
        return vals

    def __repr__(self):
        ins = ", ".join(f"x{k}={x.tolist()}" for k, x in enumerate(self.xs))
        body = "; ".join(f"v{len(self.xs) + k} = {s.label}({', '.join(f'v{a}' for a in s.args)})"
                         for k, s in enumerate(self.steps))
        return f"seed {self.seed}: {ins}\n    {body}; L = {'abs2' if self.abs2 else 'w.re + u.im'}(last)"


def cnormal(rng, shape):
    return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(C64)


def weights(shape, k):
    return np.asarray(np.random.default_rng(100 + k).normal(size=shape), F32)


# -- running a program on both libraries ------------------------------------------------------------------------

# What running a program needs of each library: m, its ops (tnp or tf); top, its constant and GradientTape; f and c,
# the precision of its inputs, tangents and weights. TF64 runs the TF twins in float64 and complex128: the reference
# that tells float32 rounding (an ill-conditioned z ** w) from a difference (see ``kind``).
Lib = SimpleNamespace
TJ = Lib(m=tnp, top=tj, acc=tj.ForwardAccumulator, total=tnp.sum, real=tnp.real, imag=tnp.imag, conj=tnp.conj, f=F32,
         c=C64)
TF = Lib(m=tf, top=tf, acc=tf.autodiff.ForwardAccumulator, total=tf.reduce_sum, real=tf.math.real, imag=tf.math.imag,
         conj=tf.math.conj, f=F32, c=C64)
TF64 = Lib(**{**vars(TF), "f": np.float64, "c": np.complex128})


def const(lib: Lib, x):
    return lib.top.constant(np.asarray(x, lib.c if np.iscomplexobj(x) else lib.f))


def loss(lib: Lib, p: Program, out):
    w, u = (weights(out.shape, k).astype(lib.f) for k in (0, 1))
    if p.abs2:
        return lib.total(w * abs(out) ** 2)
    if not p.pool[-1].cplx:
        return lib.total(w * out)
    return lib.total(w * lib.real(out)) + lib.total(u * lib.imag(out))


def num(v):
    if isinstance(v, tf.IndexedSlices):  # (TF's gradient of a gather)
        v = tf.convert_to_tensor(v)
    return None if v is None else np.asarray(v.numpy() if hasattr(v, "numpy") else v)


def attempt(f):
    """f()'s result, or "raised <class>"."""
    try:
        return f()
    except Exception as e:  # noqa: BLE001
        return f"raised {type(e).__name__}"


def run(lib: Lib, p: Program) -> dict:
    """Everything compared, of program ``p`` in library ``lib``: a dict of name -> arrays (or "raised X")."""
    xs = [const(lib, x) for x in p.xs]
    res, vals = {}, list(xs)
    try:
        with lib.top.GradientTape(persistent=True) as tape:
            tape.watch(xs)
            L = loss(lib, p, p.run(lib.m, vals)[-1])
    except Exception as e:  # noqa: BLE001
        return {"forward": e, "partial": [num(v) for v in vals[len(xs):]]}
    res["values"] = [num(v) for v in vals[len(xs):]]
    res["gradient"] = attempt(lambda: [num(g) for g in tape.gradient(L, xs)])
    if p.ctarget is not None:
        res["complex target"] = attempt(lambda: [num(g) for g in tape.gradient(
            vals[p.ctarget], xs, output_gradients=[const(lib, p.og)])])
    res["jacobian"] = attempt(lambda: [num(j) for j in tape.jacobian(vals[-1], xs)])

    def jvp():
        with lib.acc(xs, [const(lib, t) for t in p.tangents]) as acc:
            vs = p.run(lib.m, list(xs))
            L2 = loss(lib, p, vs[-1])
        return [num(acc.jvp(vs[-1])), num(acc.jvp(L2))]
    res["jvp"] = attempt(jvp)
    res["second order"] = attempt(lambda: second_order(lib, p, xs))
    return res


def second_order(lib: Lib, p: Program, xs):
    """The gradient of ``sum(real(conj(g) * v))``, ``g`` the gradients of L (nested tapes), ``v`` the tangents."""
    with lib.top.GradientTape() as outer:
        outer.watch(xs)
        with lib.top.GradientTape() as inner:
            inner.watch(xs)
            L = loss(lib, p, p.run(lib.m, list(xs))[-1])
        gs = inner.gradient(L, xs)
        terms = [lib.total(lib.real(lib.conj(g) * const(lib, t))) for g, t in zip(gs, p.tangents) if g is not None]
        if not terms:  # (no first derivative)
            return [None] * len(xs)
        dot = sum(terms)  # (on the outer tape)
    return [num(g) for g in outer.gradient(dot, xs)]


def accepted(tf_exc, tj_exc) -> bool:
    """Whether tapejax's exception answers TF's: the same class, a subclass, or tf_differential's ACCEPTED."""
    ok = (type(tf_exc),) + TFD.ACCEPTED.get(type(tf_exc).__name__, ())
    return tj_exc is not None and not type(tj_exc).__module__.startswith("jax") and isinstance(tj_exc, ok)


# -- comparing ----------------------------------------------------------------------------------------------

def compare(what, got, want, ref=None, first=0, upstream_nan=False) -> list:
    """Problems between two results (lists of arrays or None, or "raised X"; ``ref``: TF64's, or None): a list of
    (text, ``kind``)."""
    if isinstance(want, str):  # TF refuses (a missing gradient, pfor): not compared
        return []
    if isinstance(got, str):
        return [(f"{what}: tj {got}, TF values", "value")]
    refs = ref if isinstance(ref, list) and len(ref) == len(want) else [None] * len(want)
    out = []
    for k, (g, w, r) in enumerate(zip(got, want, refs), first):
        g, w = _complex_nans_alike(g, w)
        m = TFD.compare(g, w, TOL)
        if m:
            out.append((f"{what} {k}: {m}", kind(g, w, r, not what.startswith("value"), upstream_nan)))
    return out


def _complex_nans_alike(g, w):
    """``g`` and ``w`` with each complex element that is NaN in both (a NaN real or imaginary part: NumPy's isnan)
    as NaN + NaN i in both: C99 (TF) keeps a zero imaginary part next to a NaN real one (cos(NaN + 0i) = NaN + 0i)
    where XLA gives NaN + NaN i; either is the complex NaN."""
    if not (isinstance(g, np.ndarray) and isinstance(w, np.ndarray) and g.shape == w.shape
            and np.iscomplexobj(g) and np.iscomplexobj(w)):
        return g, w
    both = np.isnan(g) & np.isnan(w)
    if not both.any():
        return g, w
    nan = np.array(complex(np.nan, np.nan))
    return np.where(both, nan, g).astype(g.dtype), np.where(both, nan, w).astype(w.dtype)


def _parts(a):
    return np.concatenate([np.real(a).ravel(), np.imag(a).ravel()])


def _as_close(gp, wp, rp, where) -> bool:
    """Whether tapejax's ``gp`` is at most 4 times as far as TF's ``wp`` from TF's float64 ``rp`` at ``where`` (equal
    infinities or two NaN: 0 apart; a number and a non-finite value: infinitely far), except where TF's float32 value
    is off by half the value or more (1 / a cancellation's rounding error: float32 resolves nothing there)."""
    def dist(x):
        with np.errstate(invalid="ignore"):
            d = np.abs(x.astype(np.float64) - rp)
        return np.where((x == rp) | (np.isnan(x) & np.isnan(rp)), 0.0, np.where(np.isfinite(d), d, np.inf))
    tol = TOL * TFD.tolerance(F32) * max(1.0, float(np.max(np.abs(rp[np.isfinite(rp)]), initial=0)))
    d_tf = dist(wp)
    with np.errstate(invalid="ignore"):
        unresolved = np.isfinite(rp) & (d_tf > 0.5 * np.abs(rp)) & (d_tf > tol)
    return bool(np.all(((dist(gp) <= 4 * d_tf + tol) | unresolved)[where]))


def kind(g, w, r, derivative: bool, upstream_nan: bool = False) -> str:
    """"value" (a number differs), "tj_nan" (tapejax's NaN or inf where TF has a number), "rounding" (tapejax is as
    close as TF to TF's float64 value ``r``: ``_as_close``), "tf_nan" (TF's NaN or inf where tapejax has a number)
    or "nonfinite" (NaN against inf; or, in a derivative, TF's own NaN or inf elsewhere too: an infinite derivative
    meets a zero one, and each library's kernels spread the NaN to other entries; or the derivative of a first
    derivative TF has NaN or inf in: ``upstream_nan``)."""
    if g is None or w is None or g.shape != w.shape or g.dtype != w.dtype:
        return "value"
    gp, wp = _parts(g), _parts(w)  # (float32 parts)
    rp = _parts(r) if r is not None and r.shape == g.shape else None
    if rp is not None and _as_close(gp, wp, rp, slice(None)):
        return "rounding"
    gn, wn = ~np.isfinite(gp), ~np.isfinite(wp)
    if TFD.compare(np.where(gn | wn, 0, gp).astype(gp.dtype), np.where(gn | wn, 0, wp).astype(gp.dtype), TOL) and (
            rp is None or not _as_close(gp, wp, rp, ~(gn | wn))):
        return "value"
    if np.any(gn & ~wn):
        return "nonfinite" if derivative and (np.any(wn) or upstream_nan) else "tj_nan"
    if np.any(wn & ~gn):
        return "tf_nan"
    same = (np.isnan(gp) & np.isnan(wp)) | (gp == wp)
    return "nonfinite" if np.any((gn & wn) & ~same) else "rounding"


# Steps whose TF rule differs from tapejax's on purpose, or is wrong: label -> (why, the problems it explains: a
# predicate on the problem text). A program holding one, all of whose problems it explains, counts as "known".
_SINGULAR = ("TF raises InvalidArgumentError for a singular matrix; tapejax gives inf, as jax.numpy, and raises "
             "nothing (tools/tf_differential.py's note on linalg_inv/solve 'f32 singular')")
KNOWN = {
    "inv": (_SINGULAR, lambda q: q.startswith("forward raises")),
    "solve": (_SINGULAR, lambda q: q.startswith("forward raises")),
    # (z = [1+1j, 0.5-2j, 2], L = real(prod z): TF's second derivative along v = [1, 1j, 0.5] is [0.25-3j, 2.5+0.5j,
    # -0.5-3j], tapejax's and jax's [0.25-1j, 2.5-0.5j, -0.5+1j])
    "prod": ("TF's ProdGrad is made of cumprods, so its own derivative goes through CumprodGrad, which does not "
             "conjugate (tools/tf_differential.py: cumprod c64) and divides by x (0 at a zero): TF's second "
             "derivative of prod is wrong for complex x and at zeros", lambda q: q.startswith("second order")),
    # d det / dA = det * A^-T: TF's rule is grad * det * inv(A)^H, where TF's own convention (conj of the derivative,
    # API.md's, tapejax's) needs conj(det) (A = [[1j]], L = real(det A): TF -1, tapejax 1, the derivative)
    # eigh([[nan, 1], [1, 2]]): TF raises InvalidArgumentError ("Self-adjoint eigen decomposition was not
    # successful"); tapejax returns NaN (LAPACK returned numbers, [-1.41, 1.41], until the next session fixed it)
    "eigh": ("TF raises InvalidArgumentError for a non-finite input; tapejax gives NaN eigenvalues and eigenvectors "
             "and raises nothing (no host check, as inv)", lambda q: q.startswith("forward raises")),
    "det": ("TF 2.21's MatrixDeterminant gradient does not conjugate det(A) (wrong for complex A; tapejax's is "
            "conj(jax.grad), API.md's convention)", lambda q: not q.startswith(("value", "forward"))),
}


# Differences found by this tool and not (yet) explained by API.md: label -> (what, whether a step with that label
# meets the case: a predicate on it and its argument values, the problems it explains: a predicate on their text,
# their kinds). Counted as "found", not fixed. What it held before (a complex zero to a power, the derivative of a
# complex |z| at 0 meeting an infinite gradient, eigh of a non-finite matrix, a complex power with infinite or
# overflowing arguments: ops/complex_c99.py) is fixed or KNOWN.
def _not_finite(s, *args) -> bool:
    """Whether an argument of the step holds inf or NaN."""
    return any(not np.all(np.isfinite(v)) for v in args)


def _complex_not_finite(s, *args) -> bool:
    """Whether a complex argument of the step holds an infinite or NaN part."""
    return any(np.iscomplexobj(v) and not np.all(np.isfinite(v)) for v in args)


_SPECIAL = ("an elementary complex function of an argument with an infinite or NaN part, or a step after one: the "
            "values of exp, sin, cos, tan, sinh, cosh, tanh, abs, log and power there are C99 Annex G's, TF's "
            "(ops/complex_c99.py, session 104; before, XLA's: cos(inf + 0j) NaN+NaNj against NaN+0j); what is left "
            "is in derivatives (the JVP of angle at inf + NaNj) and in the programs' other steps (0j ** 0j is 1, as "
            "TF's own test of it, where TF 2.21's kernel gives NaN)")

FOUND = {
    # seed 905604 (session 89): imag(cos(log(0j))) is NaN in tapejax, 0 in TF; seed 907602: the JVP of
    # angle(1 / 0j), angle of inf + NaNj along a zero tangent, NaN in tapejax (jax.numpy's derivative), -0 in TF (its
    # AngleGrad's 1 / (im + i re), a C99 division by an infinity: 0)
    **{name: (_SPECIAL, _complex_not_finite, lambda q: True, {"tj_nan", "nonfinite", "value", "tf_nan"})
       for name in ("exp", "log", "sqrt", "sin", "cos", "tanh", "angle")},
    # seed 1812: solve(A + 4I, b) with an infinite entry in A (a complex power that overflowed): TF's LU (Eigen)
    # gives numbers, JAX's (LAPACK) NaN, spread differently by each pivoting ([[1, inf], [1, 2]]: TF NaN in one
    # column, JAX in both)
    "solve": ("a solve with inf or NaN in its matrix: tapejax (LAPACK's LU) and TF (Eigen's) spread the NaN "
              "differently", _not_finite, lambda q: True, {"tj_nan", "nonfinite", "value", "tf_nan"}),
}


def found(p: Program, *values: list) -> set:
    """The FOUND labels whose case a step of ``p`` meets on either library's ``values`` (up to the step that raised,
    if one did)."""
    hits = set()
    for vals in (list(p.xs) + v for v in values):
        hits |= {s.label.split("(")[0] for s in p.steps if s.label.split("(")[0] in FOUND and len(vals) > max(s.args)
                 and FOUND[s.label.split("(")[0]][1](s, *[vals[k] for k in s.args])}
    return hits


def cut_differs(p: Program, got: list, want: list) -> bool:
    """Whether a step with a branch cut (sqrt, log, angle, a non-integer power) gets, in TF and in tapejax, an
    argument on the negative real axis whose imaginary part has different signs (+0 against -0 or a rounding
    error): each library then lands on its own side of the cut, both right."""
    tj_vals, tf_vals = list(p.xs) + got, list(p.xs) + want
    for s in p.steps:
        a, b = tj_vals[s.args[0]], tf_vals[s.args[0]]
        if s.cut and np.iscomplexobj(b) and a.shape == b.shape:
            near = (b.real < 0) & (np.abs(b.imag) <= 1e-4 * np.abs(b.real))
            # (which side: log, angle, pow and tapejax's sqrt go by the sign bit; TF's sqrt does for the elements
            # its vectorized kernel computes, not for the rest: sqrt(-1 - 0j) is -1j in the first 4, +1j after)
            if np.any(near & (((a.imag < 0) != (b.imag < 0)) | (np.signbit(a.imag) != np.signbit(b.imag)))):
                return True
            if s.label == "sqrt" and np.any(near & (b.imag == 0) & np.signbit(b.imag)):
                return True
    return False


def _pole_argument(s) -> int | None:
    """Which argument of step ``s`` has a pole or an infinite derivative at 0 (sqrt, log, reciprocal, a division's
    denominator, a power other than a non-negative integer); None if none has."""
    if s.label in ("sqrt", "log", "reciprocal"):
        return 0
    if s.label == "div":
        return 1
    if s.label.startswith("pow"):
        power = s.label[4:-1]  # ("pow(p)" by a constant; a bare "pow" has a tensor exponent)
        try:
            fixed = complex(power)
        except ValueError:
            return 0
        return None if fixed.imag == 0 and fixed.real >= 0 and fixed.real.is_integer() else 0
    return None


def rounded_zero_at_pole(p: Program, got: list, want: list) -> bool:
    """Whether a step with a pole at 0 gets, in one library, an exact zero where the other has a rounding error's
    worth: the results differ by far more than the arguments, and derivatives are infinite in one and finite in
    the other. Seed 1576: sqrt of a QR's Q entry that is 0 in exact arithmetic, -0 in TF, 1.8e-7 in tapejax. Seed
    2872: (-0.5j) ** 3 has the real part -0 in tapejax and 1.2e-8 in TF's cpow; sin keeps it, and its ** -1 is
    -inf against 8.4e7."""
    tj_vals, tf_vals = list(p.xs) + got, list(p.xs) + want
    for s in p.steps:
        k = _pole_argument(s)
        if k is None or len(tj_vals) <= s.args[k] or len(tf_vals) <= s.args[k]:
            continue
        a, b = np.asarray(tj_vals[s.args[k]]), np.asarray(tf_vals[s.args[k]])
        if a.shape == b.shape and np.any(((a == 0) | (b == 0)) & (a != b) & (np.abs(a - b) <= 1e-6)):
            return True
    return False


def solve_of_itself(p: Program, problems: list) -> bool:
    """Whether a ``solve(x, b)`` step has ``x`` for ``b`` too, and every problem is NaN or inf in one library only or
    rounding: ``solve(x, x)`` is the identity, so the derivatives through it are zero in exact arithmetic and each
    library's rounding in float32, and a pole upstream (sqrt, log, ** -1 at 0) makes that rounding inf in one and
    leaves the other's exact 0 (0 * inf: NaN, or 0 where no product is formed). Seed 907068: sqrt of an exact 0j
    entry, its real part through solve(v3, v3): tapejax's cotangent there 1.2e-7 (inf after sqrt's), TF's 0."""
    return (any(s.label.startswith("solve(") and s.args[0] == s.args[1] for s in p.steps)
            and all(kd in ("tj_nan", "tf_nan", "nonfinite", "rounding") for _, kd in problems))


def rounded_zero_at_kink(p: Program, got: list, want: list) -> bool:
    """Whether the loss's ``|out| ** 2`` (``abs2``) meets, in one library, an exact zero where the other has a
    rounding error's worth: |.| has the derivative 0 at 0 and +-1 next to it, so the second derivatives differ by
    2 (d out)**2 there, each right for its own value. Seed 906076: (-1 + 0j) ** 2 is 1 - 0j in tapejax, 1 + 1.7e-7j
    in TF's cpow (polar form), and the imaginary part of its own power is the output."""
    if not p.abs2 or not got or not want:
        return False
    a, b = np.asarray(got[-1]), np.asarray(want[-1])
    return a.shape == b.shape and bool(np.any(((a == 0) | (b == 0)) & (a != b) & (np.abs(a - b) <= 1e-6)))


def degenerate(p: Program, want: list) -> bool:
    """Whether a decomposition meets, in TF's values, a point where its derivative is undefined: tied (or, for
    singular values, zero) eigen- or singular values, a rank-deficient QR (R's diagonal phase); the gradients
    then depend on the bases each library's LAPACK picks. Likewise abs or angle of a rounding residue."""
    vals = list(p.xs) + want
    return any(s.degenerate is not None and s.degenerate(*[vals[k] for k in s.args]) for s in p.steps)


def singular_det_rounding(p: Program, problems: list, got: list, want: list) -> bool:
    """Whether every problem is the value of a determinant of a matrix singular to float32 rounding (no shift),
    the two libraries' values within float32 rounding of the entries' scale (Hadamard's bound, the product of
    the row norms): each LU's own rounding error. Seed 904672: two equal columns, entries of about 20, tj
    3.05e-5 and TF exactly 0."""
    n_x = len(p.xs)
    vals = list(p.xs) + want
    for text, _ in problems:
        m = re.match(r"value v (\d+):", text)
        if m is None:
            return False
        k = int(m.group(1))
        step = p.steps[k - n_x]
        if step.label != "det(x)":
            return False
        a = np.asarray(vals[step.args[0]], np.complex128)
        if not (np.all(np.isfinite(a)) and _near(_svals(a), ties=False)):
            return False
        scale = float(np.prod(np.linalg.norm(a, axis=1)))
        if not np.all(np.abs(np.asarray(got[k - n_x], np.complex128) - np.asarray(want[k - n_x], np.complex128))
                      <= TOL * TFD.tolerance(F32) * max(1.0, scale)):
            return False
    return bool(problems)


def problems_of(p: Program, got: dict, want: dict, ref) -> list:
    ref = ref if ref is not None and "forward" not in ref else {}
    problems = compare("value v", got["values"], want["values"], ref.get("values"), len(p.xs))
    g1 = want["gradient"] if isinstance(want["gradient"], list) else []
    upstream_nan = any(g is not None and not np.all(np.isfinite(g)) for g in g1)
    r1 = ref.get("gradient") if isinstance(ref.get("gradient"), list) else []
    # (TF's own float32 first derivative far from its float64 one: the second derivative, of that rounding, is noise)
    upstream_unresolved = any(_unresolved(w, r) for w, r in zip(g1, r1))
    for what in ("gradient", "complex target", "jacobian", "jvp", "second order"):
        if what in want:
            these = compare(what, got[what], want[what], ref.get(what), upstream_nan=what == "second order"
                            and upstream_nan)
            if what == "second order" and upstream_unresolved:
                these = [(text, "rounding") for text, _ in these]
            problems += these
    return problems


def _unresolved(w, r) -> bool:
    """Whether TF's float32 result ``w`` as a whole misses its float64 ``r`` by half of r's largest entry or more
    (seed 905188: tanh saturated at -8.6-39.6j, where 1 - y*y cancels in float32 and TF's gradient and tapejax's,
    which agree, have other signs than TF's float64 one)."""
    if w is None or r is None or np.shape(w) != np.shape(r):
        return False
    wp, rp = _parts(w).astype(np.float64), _parts(r)
    finite = np.isfinite(wp) & np.isfinite(rp)
    return bool(finite.any()) and np.max(np.abs(wp - rp)[finite]) > 0.5 * np.max(np.abs(rp[finite]))


def check(seed: int):
    """(outcome, details) of program ``seed``: see OUTCOMES."""
    p = Program(seed)
    want = run(TF, p)
    got = run(TJ, p)
    if "forward" in want:  # TF raises: tapejax must raise an accepted class
        tf_e, tj_e = want["forward"], got.get("forward")
        if accepted(tf_e, tj_e):
            return "raises", f"TF {type(tf_e).__name__}, tj {type(tj_e).__name__}"
        problems = [(f"forward raises: TF {type(tf_e).__name__} ({str(tf_e).splitlines()[0][:80]}), tj "
                     f"{type(tj_e).__name__ if tj_e else 'no error'}", "value")]
    elif "forward" in got:
        problems = [(f"forward: tj raised {type(got['forward']).__name__}: {str(got['forward'])[:100]}", "value")]
    else:
        problems = problems_of(p, got, want, None)
        if any(kd in ("value", "tj_nan") for _, kd in problems):  # (float32 rounding? TF in float64 tells)
            try:
                problems = problems_of(p, got, want, run(TF64, p))
            except Exception:  # noqa: BLE001  (a TF op without a float64 kernel: no reference)
                pass
    if not problems:
        return "ok", ""
    text = "; ".join(q for q, _ in problems)
    if "values" in got and "values" in want and cut_differs(p, got["values"], want["values"]):
        return "branch_cut", text
    if "values" in want and degenerate(p, want["values"]):
        return "degenerate", text
    if "values" in got and "values" in want and singular_det_rounding(p, problems, got["values"], want["values"]):
        return "rounding", text
    if "values" in got and "values" in want and rounded_zero_at_pole(p, got["values"], want["values"]):
        return "rounding", text
    if solve_of_itself(p, problems):
        return "rounding", text + "  -- solve(x, x): derivatives of rounding at a pole"
    if "values" in got and "values" in want and rounded_zero_at_kink(p, got["values"], want["values"]):
        problems = [(q, "rounding" if q.startswith("second order") else kd) for q, kd in problems]
    # (a known rule explains wrong numbers, not NaN or inf: those go on to tf_nan / nonfinite)
    rules = [(k, "known", KNOWN[k][1], {"value"}) for k in sorted(p.labels & set(KNOWN))] + [
        (k, "found", FOUND[k][2], FOUND[k][3])
        for k in sorted(found(p, want.get("values", want.get("partial")), got.get("values", got.get("partial"))))]
    used = [next((r for r in rules if kd in r[3] and r[2](q)), None) for q, kd in problems]
    rest = {kd for (q, kd), r in zip(problems, used) if r is None}
    zero = any(np.any((v == 0) | ~np.isfinite(v)) for v in list(p.xs) + want.get("values", []))
    if not (rest <= {"rounding"} or zero and rest <= {"tf_nan", "nonfinite", "rounding"}):
        return "mismatch", text
    why = {r[0]: (KNOWN if r[1] == "known" else FOUND)[r[0]][0] for r in used if r is not None}
    kinds = {r[1] for r in used if r is not None}  # (found, then known, take precedence over what is left)
    if kinds:
        return ("found" if "found" in kinds else "known"), text + "  -- " + "; ".join(why.values())
    return ("rounding" if rest == {"rounding"} else "tf_nan" if "tf_nan" in rest else "nonfinite"), text


def check_gradients_rule() -> str:
    """API.md: tj.gradients of a complex target without grad_ys raises TypeError (tf.gradients inside tf.function
    does); "" when both raise the same class, else the difference."""
    raised = []
    for function, gradients, const_ in ((tf.function, tf.gradients, tf.constant), (tj.function, tj.gradients,
                                                                                 tj.constant)):
        try:
            function(lambda x: gradients(x * x, [x]))(const_(np.asarray([1 + 1j, 0.5 - 2j], C64)))
            raised.append(None)
        except Exception as e:  # noqa: BLE001
            raised.append(e)
    tf_e, tj_e = raised
    ok = tf_e is not None and type(tj_e) is type(tf_e)
    return "" if ok else f"TF {type(tf_e).__name__}, tj {type(tj_e).__name__}"


OUTCOMES = ("ok", "mismatch", "found", "rounding", "tf_nan", "nonfinite", "branch_cut", "degenerate", "known",
            "raises")


def main(argv=None) -> int:
    args = seed_arguments(__doc__, argv, 200, "program")
    rule = check_gradients_rule()
    print("tj.gradients of a complex target without grad_ys in tj.function: " +
          (f"MISMATCH ({rule})" if rule else "TypeError, as tf.gradients in tf.function"))
    counts = dict.fromkeys(OUTCOMES, 0)
    for seed in range(args.first, args.first + args.programs):
        outcome, detail = check(seed)
        counts[outcome] += 1
        if outcome != "ok" and (outcome == "mismatch" or args.verbose):
            print(f"[{outcome}] {Program(seed)!r}\n    {detail}")
    print(f"\n{args.programs} programs (seeds {args.first}-{args.first + args.programs - 1}): " +
          ", ".join(f"{v} {k}" for k, v in counts.items()))
    return 1 if counts["mismatch"] or rule else 0


if __name__ == "__main__":
    sys.exit(main())
