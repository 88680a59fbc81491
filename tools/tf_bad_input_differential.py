"""Differential test of bad and unusual arguments: random calls of tapejax ops and of their TensorFlow 2.21
counterparts, outcome for outcome.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python tools/tf_bad_input_differential.py [--first K] [--programs N] [--verbose]

tools/tf_differential.py checks a fixed table of bad inputs (ERRORS) and tests/test_bad_input_fuzz.py a fixed
sweep; this draws them. Each seed (``numpy.random.default_rng(seed)``) draws one call of an op of
tf_differential.py's tables (elementwise unary and binary ops, activations, reductions with axis / keepdims,
softmax, cumsum, matmul, reshape / squeeze / broadcast_to, concatenate / stack, transpose, take (tf.gather),
where, linalg solve / inv / det / cholesky, clip_by_norm) whose arguments are bad or unusual in one drawn way,
its family: shapes that do not broadcast, a wrong rank, a bad axis (out of range, repeated, float, string),
odd or mixed dtypes (int32, bool, complex64, float16, Python scalars), empty arrays, scalars, Python lists
(ragged or not), None, a string, NaN / inf values, a bad target shape (wrong size, two -1, negative, float),
bad indices. The call runs in TF eagerly and in tapejax three ways: eagerly, under a recording
``tj.GradientTape`` (float inputs watched; the gradient of the float outputs is taken too) and inside a fresh
``tj.function``. An outcome is a value (compared as tf_differential.py compares: shape, dtype, values with a
dtype-aware tolerance, NaN and inf positions) or an exception (class, message, innermost frame).

A seed is ``ok`` when both sides raise compatible classes (TF's class mapped through ACCEPTED, or tapejax's a
subclass of TF's) or return equal values; otherwise the first of
  leak        tapejax raised other than TypeError/ValueError/IndexError/NotImplementedError/LookupError/
              ZeroDivisionError (a KeyError, a jax class...), raised from inside jax or NumPy, left the tape
              state dirty, or its message does not name the op;
  paths       tapejax's eager / taped / tj.function outcomes differ (API.md: one set of rules on every path);
  class       both raise, classes not compatible;
  tj_accepts  TF raises, tapejax returns a value;
  tf_accepts  tapejax raises, TF returns a value;
  value       both return, the values differ;
or ``known`` when every difference is a deliberate one of KNOWN:
  known_promotion      tapejax's value equals TF's on the inputs cast to tapejax's dtype, jax.numpy's
                       promotion of the inputs' dtypes (TF raises or computes in the narrower type);
  known_numpy_rank     tapejax's value equals NumPy's (matmul of vectors, solve with a vector, take with a
                       negative index) where TF's op wants other ranks or indices;
  known_x64            TF's float64/int64 result, tapejax's 32-bit one with the same values;
  known_traced_values  eager tapejax raises on an index or divisor value, inside tj.function it is unknown;
  known_singular       TF raises for a singular matrix, tapejax gives inf/NaN as jax.numpy;
  known_empty_reduce   max/min over a zero-size axis raise (jax.numpy), TF gives -inf/+inf.
It prints each seed that is not ok (``--verbose``: every seed) as a one-line call with the outcomes, a summary
line and a table of the problems by op and kind with their seeds; exit status 1 on a difference not KNOWN.
"""
from __future__ import annotations

import logging
import os
import sys
import traceback
import warnings
from dataclasses import dataclass, field
from typing import Callable, Optional

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
warnings.filterwarnings("ignore")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import tapejax as tj  # noqa: E402
import tf_differential as TFD  # noqa: E402
from seed_runs import print_seed_table, seed_arguments  # noqa: E402
from tapejax import tape_set  # noqa: E402

logging.getLogger("tapejax").setLevel(logging.ERROR)  # (a fresh tj.function per call: retracing warnings)
tnp = tj.numpy

KNOWN = {
    "known_promotion": "API.md: `tj.numpy` mirrors `jax.numpy` names and signatures -- jax.numpy promotes mixed "
                       "dtypes, weak Python scalars and integer inputs of float functions where TF raises",
    "known_numpy_rank": "API.md: `tj.numpy` mirrors `jax.numpy` -- NumPy's matmul of 1-D operands, solve with a "
                        "vector right-hand side and take with negative indices, where TF wants matrices / indices "
                        "in [0, n)",
    "known_x64": "README: 'x64 off gives float32/int32' (TF: float64/int64 for int / int), same values",
    "known_traced_values": "ops/numpy.py getitem: 'inside tj.function/jax.jit a traced index array is not known "
                           "until it runs, and JAX's gather then clamps'; README: integer // and % raise for 'a "
                           "zero whose value is known'",
    "known_singular": "tools/tf_differential.py: a singular matrix gives inf/NaN, as jax.numpy (no device sync "
                      "per call; nothing can raise inside a compiled program); TF raises",
    "known_empty_reduce": "tools/tf_differential.py KNOWN: jax.numpy raises ValueError reducing a zero-size axis "
                          "with max/min (TF returns -inf/+inf)",
}
CLEAN = (TypeError, ValueError, IndexError, NotImplementedError, LookupError, ZeroDivisionError)
# an exception class tapejax may raise for each TF class (beyond subclasses of TF's own); TF's AttributeError is
# a crash of TF's Python code on the bad argument (tf.experimental.numpy's), where any clean error will do
ACCEPTED = {**TFD.ACCEPTED, "NotFoundError": (TypeError,), "UnimplementedError": (TypeError, NotImplementedError),
            "AttributeError": CLEAN}
ORDER = ("leak", "paths", "class", "tj_accepts", "tf_accepts", "value")
DTYPES = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "bool": np.bool_, "c64": np.complex64}
RAGGED = [[1.0, 2.0], [3.0]]


# -- the ops --------------------------------------------------------------------------------------------------

@dataclass
class Op:
    """``tj(*args, **kw)`` against ``tf(*args, **kw)``; ``kind`` says which arguments it takes, ``data`` the
    positions holding values (not indices, conditions or shapes), ``words`` what its message must name."""
    name: str
    tj: Callable
    tf: Callable
    kind: str
    data: tuple = (0, 1)
    np_ref: Optional[Callable] = None
    words: tuple = field(default=())


OPS: dict = {}


def op(name, tj_f, tf_f, kind, data=(0, 1), np_ref=None, words=()):
    short = name.split(".")[-1]
    OPS[name] = Op(name, tj_f, tf_f, kind, data, np_ref, words or (short, short.replace("_", " ")))


for _n, _f in TFD.UNARY.items():
    op(_n, getattr(tnp, _n), _f, "unary")
for _n, (_a, _b) in TFD.ACT.items():
    if " " not in _n:
        op("nn." + _n, _a, _b, "unary")
for _n, _f in TFD.BINARY.items():
    op(_n, getattr(tnp, _n), _f, "binary")
for _n, (_a, _b) in TFD.REDUCE.items():
    op(("nn." if _n == "logsumexp" else "") + _n, _a, _b, "reduce")
for _n, (_a, _b) in TFD.SOFT.items():
    op("nn." + _n, _a, _b, "softmax")
M, N = TFD.TJ_M, TFD.TF_M
op("cumsum", tnp.cumsum, tf.math.cumsum, "cumsum")
op("matmul", M["matmul"], N["matmul"], "matmul", np_ref=np.matmul)
op("reshape", M["reshape"], N["reshape"], "reshape", data=(0,))
op("squeeze", M["squeeze"], N["squeeze"], "squeeze", data=(0,))
op("broadcast_to", M["broadcast_to"], N["broadcast_to"], "broadcast_to", data=(0,))
op("concatenate", lambda xs, axis=0: M["concat"](xs, axis=axis), lambda xs, axis=0: N["concat"](xs, axis), "join")
op("stack", lambda xs, axis=0: M["stack"](xs, axis=axis), lambda xs, axis=0: N["stack"](xs, axis=axis), "join")
op("transpose", M["transpose"], N["transpose"], "transpose", data=(0,))
op("take", lambda x, i, axis=0: tnp.take(x, i, axis=axis), lambda x, i, axis=0: tf.gather(x, i, axis=axis),
   "take", data=(0,), np_ref=lambda x, i, axis=0: np.take(x, i, axis=axis))
op("where", tnp.where, tf.where, "where", data=(1, 2))
op("linalg.solve", M["solve"], N["solve"], "solve", np_ref=np.linalg.solve)
op("linalg.inv", tnp.linalg.inv, tf.linalg.inv, "square")
op("linalg.det", tnp.linalg.det, tf.linalg.det, "square")
op("linalg.cholesky", M["cholesky"], N["cholesky"], "square")
op("clip_by_norm", tj.clip_by_norm, tf.clip_by_norm, "clip")


# -- drawing a call -------------------------------------------------------------------------------------------

class Seq(list):
    """An argument that is a list of arrays (concatenate's, stack's): each side makes a list of its tensors."""


@dataclass
class Call:
    seed: int
    family: str
    op: Op
    args: list
    kw: dict
    what: str  # what is bad or unusual about it

    def __str__(self) -> str:
        parts = [show(a) for a in self.args] + [f"{k}={show(v)}" for k, v in self.kw.items()]
        return f"{self.op.name}({', '.join(parts)})   [{self.family}: {self.what}]"


def show(v) -> str:
    """An argument readably: arrays as dtype[shape], with their values when small or non-finite."""
    if isinstance(v, np.ndarray):
        name = {np.dtype(d): k for k, d in DTYPES.items()}.get(v.dtype, v.dtype.name)
        text = f"{name}{list(v.shape)}"
        finite = v.dtype.kind not in "fc" or np.isfinite(v).all()
        if v.size <= 4 and (v.dtype.kind in "iub" or not finite):
            text += f"={(np.round(v, 2) if v.dtype.kind in 'fc' else v).tolist()}"
        elif not finite:
            text += "(with nan/inf)"
        return text
    if isinstance(v, Seq):
        return "[" + ", ".join(map(show, v)) + "]"
    if isinstance(v, list) and len(repr(v)) > 40:  # a long Python list: its nesting, not its numbers
        return f"list{list(np.shape(v))}"
    return repr(v)


def arr(rng, shape, dt="f32", nonfinite=False) -> np.ndarray:
    if dt == "bool":
        return rng.random(shape) < 0.5
    if dt == "i32":
        return rng.integers(-3, 4, shape).astype(np.int32)
    a = rng.uniform(-2, 2, shape) + (1j * rng.uniform(-2, 2, shape) if dt == "c64" else 0)
    if nonfinite and a.size:
        a.ravel()[rng.choice(a.size, 1 + a.size // 3, replace=False)] = rng.choice([np.nan, np.inf, -np.inf])
    return np.asarray(a, DTYPES[dt])


def matrix(rng, n, dt="f32", spd=False, nonfinite=False) -> np.ndarray:
    """A well-conditioned n x n matrix (symmetric positive definite for cholesky)."""
    m = rng.uniform(-1, 1, (n, n))
    m = m @ m.T + np.eye(n) if spd else m + 3 * np.eye(n)
    if nonfinite:
        m[rng.integers(n), rng.integers(n)] = rng.choice([np.nan, np.inf])
    return m.astype(DTYPES[dt]) if dt != "bool" else m > 0


def pick(rng, seq):
    return seq[int(rng.integers(len(seq)))]


SHAPES = [(3,), (2, 3), (2, 3, 4)]


def base(rng, op: Op, dt="f32", dt2=None, shape=None, nonfinite=False):
    """An ordinary call of ``op`` (arguments, keywords) that a family then spoils."""
    dt2 = dt2 or dt
    shape = shape if shape is not None else pick(rng, SHAPES)
    nd = len(shape)

    def A(s, d=dt):
        return arr(rng, s, d, nonfinite)

    k = op.kind
    if k == "unary":
        return [A(shape)], {}
    if k == "binary":
        return [A(shape), A(shape, dt2)], {}
    if k == "reduce":
        axis = pick(rng, [None] + list(range(-nd, nd)) + ([(0, nd - 1)] if nd > 1 else []))
        return [A(shape)], {"axis": axis, "keepdims": bool(rng.integers(2))}
    if k in ("softmax", "cumsum"):
        return [A(shape)], {"axis": int(rng.integers(-nd, nd)) if nd else -1}
    if k == "matmul":
        return [A((2, 3)), A((3, 4), dt2)], {}
    if k == "join":
        return [Seq([A(shape), A(shape, dt2)])], {"axis": int(rng.integers(nd)) if nd else 0}
    if k == "transpose":
        return [A(shape), tuple(int(i) for i in rng.permutation(nd))], {}
    if k == "reshape":
        return [A(shape), pick(rng, [(-1,), shape[::-1], (int(np.prod(shape)), 1)])], {}
    if k == "squeeze":
        return [A((3, 1))], {"axis": 1}
    if k == "broadcast_to":
        return [A((3, 1))], {"shape": (2, 3, 4)}
    if k == "take":
        n = shape[0] if nd else 1
        return [A(shape), rng.integers(0, n, 2).astype(np.int32)], {"axis": 0}
    if k == "where":
        return [arr(rng, shape, "bool"), A(shape), A(shape, dt2)], {}
    if k == "solve":
        return [matrix(rng, 3, dt, nonfinite=nonfinite), A((3, 2), dt2)], {}
    if k == "square":
        return [matrix(rng, 3, dt, spd=op.name.endswith("cholesky"), nonfinite=nonfinite)], {}
    if k == "clip":
        return [A(shape), 1.0], {}
    raise AssertionError(k)


def fam_broadcast(rng, op):
    sa, sb = pick(rng, [((3,), (4,)), ((2, 3), (3, 2)), ((2, 3), (2,)), ((2, 3, 4), (3, 3)), ((2, 1, 3), (4, 3, 1))])
    k = op.kind
    if k == "binary":
        return [arr(rng, sa), arr(rng, sb)], {}, f"shapes {sa} vs {sb}"
    if k == "where":
        return [arr(rng, sa, "bool"), arr(rng, sb), arr(rng, sb)], {}, f"condition {sa} vs branches {sb}"
    if k == "join":
        if op.name == "stack":
            return [Seq([arr(rng, sa), arr(rng, sb)])], {"axis": 0}, f"shapes {sa} vs {sb}"
        return [Seq([arr(rng, (2, 3)), arr(rng, (2, 4))])], {"axis": 0}, "(2, 3) with (2, 4) on axis 0"
    if k == "matmul":
        a, b = pick(rng, [((2, 3), (4, 2)), ((2, 3, 4), (3, 4, 5)), ((3, 2), (3, 2))])
        return [arr(rng, a), arr(rng, b)], {}, f"{a} @ {b}"
    if k == "solve":
        return [matrix(rng, 3), arr(rng, (2, 1))], {}, "rhs rows 2 vs 3"
    return [arr(rng, (3,)), arr(rng, (4,))], {}, "clip_norm (4,) for t (3,)"


def fam_rank(rng, op):
    k = op.kind
    if k == "matmul":
        a, b = pick(rng, [((3,), (3,)), ((3,), (3, 2)), ((2, 3), (3,)), ((), (3, 3)), ((2, 2, 3), (3, 4)),
                          ((4,), (2, 4, 3)), ((1, 2, 3), (2, 3, 2))])
        return [arr(rng, a), arr(rng, b)], {}, f"{a} @ {b}"
    if k == "solve":
        a, b = pick(rng, [((2, 3), (2, 1)), ((3,), (3,)), ((3, 3), (3,)), ((3, 3), ())])
        am = matrix(rng, 3) if a == (3, 3) else arr(rng, a)
        return [am, arr(rng, b)], {}, f"a {a}, b {b}"
    if k == "square":
        s = pick(rng, [(3,), (2, 3), (), (2, 3, 3)])
        x = arr(rng, s)
        if s == (2, 3, 3):
            x = np.stack([matrix(rng, 3, spd=True)] * 2)
        return [x], {}, f"input {s}"
    if k == "transpose":
        s = pick(rng, [(2, 3), (2, 3, 4)])
        perm = pick(rng, [(1, 0, 2), (0,), (1, 0, 2, 3)])
        return [arr(rng, s), perm], {}, f"perm {perm} for rank {len(s)}"
    return [arr(rng, ())], {"axis": -1}, "a scalar input"  # softmax


def fam_axis(rng, op):
    args, kw = base(rng, op)
    x = args[0][0] if op.kind == "join" else args[0]
    nd = x.ndim
    bad = [nd, nd + 2, -nd - 1, 1.0, 0.5, "0", np.int64(nd - 1), [0], -1]
    if op.kind in ("reduce", "clip"):
        bad += [(0, 0), (0, -nd), (0, 1.0)]
    axis = pick(rng, bad)
    if op.kind == "transpose":
        args[1] = pick(rng, [(0,) * nd, tuple(range(1, nd + 1)), tuple(float(i) for i in range(nd))])
        return args, kw, f"perm {args[1]}"
    kw["axes" if op.kind == "clip" else "axis"] = axis
    return args, kw, f"axis {axis!r} for rank {nd}"


PAIRS = [("f32", "i32"), ("f32", "f16"), ("f32", "bool"), ("f32", "c64"), ("i32", "bool"), ("f16", "c64"),
         ("i32", "i32"), ("bool", "bool"), ("c64", "c64"), ("f16", "f16")]


def fam_dtype(rng, op):
    k = op.kind
    if k in ("binary", "matmul", "join", "solve", "where"):
        d1, d2 = pick(rng, PAIRS)
        if k == "binary" and rng.random() < 0.25:  # a Python scalar operand
            args, kw = base(rng, op, dt=d1)
            args[1] = pick(rng, [2, 2.5, 1j, True])
            return args, kw, f"{d1} with Python {args[1]!r}"
        args, kw = base(rng, op, dt=d1, dt2=d2)
        return args, kw, f"dtypes {d1}, {d2}"
    if k == "take" and rng.random() < 0.5:
        args, kw = base(rng, op)
        args[1] = args[1].astype(pick(rng, [np.float32, np.int64, np.uint8, np.bool_]))
        return args, kw, f"indices of {args[1].dtype}"
    d = pick(rng, ["i32", "bool", "c64", "f16"])
    args, kw = base(rng, op, dt=d)
    if k == "clip" and rng.random() < 0.5:
        args[1] = pick(rng, [1, np.int32(1), 1j])
    return args, kw, f"dtype {d}" + (f", clip_norm {args[1]!r}" if k == "clip" else "")


def fam_empty(rng, op):
    k = op.kind
    s = pick(rng, [(0,), (0, 3), (2, 0)])
    if k == "matmul":
        a, b = pick(rng, [((0, 3), (3, 2)), ((2, 0), (0, 3)), ((2, 3), (3, 0))])
        return [arr(rng, a), arr(rng, b)], {}, f"{a} @ {b}"
    if k in ("solve", "square"):
        args = [arr(rng, (0, 0))] + ([arr(rng, (0, 2))] if k == "solve" else [])
        return args, {}, "0x0 matrix"
    if k == "take":
        if rng.random() < 0.5:
            return [arr(rng, (2, 3)), np.zeros((0,), np.int32)], {"axis": 0}, "no indices"
        return [arr(rng, s), np.asarray([0], np.int32)], {"axis": 0}, f"index 0 into {s}"
    if k in ("squeeze", "broadcast_to"):
        args, kw = base(rng, op)
        return [arr(rng, (0, 1))], kw, "input (0, 1)"
    args, kw = base(rng, op, shape=s)
    if k == "reshape":
        args[1] = pick(rng, [(-1, 0), (0, -1), (-1,), (3, 0)])
    return args, kw, f"shape {s}"


def fam_scalar(rng, op):
    k = op.kind
    py = rng.random() < 0.4  # a Python number rather than a 0-d array
    if k in ("solve", "square", "matmul", "squeeze", "broadcast_to"):
        args, kw = base(rng, op)
        args[0] = 2.0 if py else arr(rng, ())
        return args, kw, "first argument a scalar"
    args, kw = base(rng, op, shape=())
    if py:
        args = [float(a) if isinstance(a, np.ndarray) and a.dtype.kind == "f" and a.ndim == 0 else a for a in args]
    if k == "join":
        args[0] = Seq([arr(rng, ()), arr(rng, ())])
    if k == "take":
        args[1] = pick(rng, [0, np.int32(0), -1])
    if k in ("softmax", "cumsum", "reduce"):
        kw["axis"] = pick(rng, [None, 0, -1])
    if k == "reshape":
        args[1] = pick(rng, [(1,), (-1,), (), (1, 1, -1)])
    return args, kw, "Python number" if py else "0-d array"


def replace_one(rng, op, value, what):
    """An ordinary call with one data argument replaced by ``value``."""
    args, kw = base(rng, op)
    i = pick(rng, [p for p in op.data if p < len(args)])
    if isinstance(args[i], Seq):
        args[i][int(rng.integers(len(args[i])))] = value
    else:
        args[i] = value
    return args, kw, f"{what} as argument {i}"


def fam_ragged(rng, op):
    return replace_one(rng, op, RAGGED, "a ragged list")


def fam_list(rng, op):
    args, kw = base(rng, op)
    i = pick(rng, [p for p in op.data if p < len(args)])
    args[i] = [a.tolist() for a in args[i]] if isinstance(args[i], Seq) else args[i].tolist()
    return args, kw, f"a Python list as argument {i}"


def fam_none(rng, op):
    if rng.random() < 0.3 and op.kind in ("softmax", "cumsum", "join", "take", "squeeze", "transpose"):
        args, kw = base(rng, op)
        if op.kind == "transpose":
            args[1] = None
        else:
            kw["axis"] = None
        return args, kw, "axis None"
    return replace_one(rng, op, None, "None")


def fam_string(rng, op):
    return replace_one(rng, op, pick(rng, ["abc", "1.5"]), "a string")


def fam_nonfinite(rng, op):
    args, kw = base(rng, op, nonfinite=True)
    return args, kw, "NaN / inf values"


def fam_shape(rng, op):
    x = arr(rng, (2, 3))
    if op.name == "squeeze":
        axis = pick(rng, [0, 2, 1.0, (0, 0), -3])
        return [x], {"axis": axis}, f"squeeze axis {axis!r} of (2, 3)"
    if op.name == "broadcast_to":
        s = pick(rng, [(3, 2), (2,), (-1, 3), (2.0, 3), (4, 2, 3.5)])
        return [x], {"shape": s}, f"(2, 3) to {s}"
    s = pick(rng, [(4,), (-1, -1), (-2, 3), (2.0, 3), (None, 3), (7, -1), (0, -1), np.asarray([3, 2], np.int64)])
    return [x, s], {}, f"(2, 3) to {show(s)}"


def fam_index(rng, op):
    x = arr(rng, (4, 3))
    idx = pick(rng, [np.asarray([5], np.int32), np.asarray([-5], np.int32), np.asarray([-1, 0], np.int32),
                     np.asarray([1.0], np.float32), np.asarray([[0, 3], [1, 2]], np.int32), [0, 7], 4, -1,
                     np.asarray([True, False], np.bool_)])
    axis = pick(rng, [0, 0, 1])
    return [x, idx], {"axis": axis}, f"indices {show(idx)} on axis {axis} of (4, 3)"


# family -> (how it spoils a call, the op kinds it applies to)
ALL = ("unary", "binary", "reduce", "softmax", "cumsum", "matmul", "join", "transpose", "reshape", "squeeze",
       "broadcast_to", "take", "where", "solve", "square", "clip")
FAMILIES = {
    "broadcast": (fam_broadcast, ("binary", "where", "join", "matmul", "solve", "clip")),
    "rank": (fam_rank, ("matmul", "solve", "square", "transpose", "softmax")),
    "axis": (fam_axis, ("reduce", "softmax", "cumsum", "join", "take", "transpose", "squeeze", "clip")),
    "dtype": (fam_dtype, ALL),
    "empty": (fam_empty, ALL),
    "scalar": (fam_scalar, ALL),
    "ragged": (fam_ragged, ALL),
    "list": (fam_list, ALL),
    "none": (fam_none, ALL),
    "string": (fam_string, ALL),
    "nonfinite": (fam_nonfinite, ("unary", "binary", "reduce", "softmax", "cumsum", "matmul", "solve", "square",
                                  "clip", "where", "take")),
    "shape": (fam_shape, ("reshape", "squeeze", "broadcast_to")),
    "index": (fam_index, ("take",)),
}


def draw(seed: int) -> Call:
    rng = np.random.default_rng(seed)
    family = pick(rng, list(FAMILIES))
    spoil, kinds = FAMILIES[family]
    o = pick(rng, [o for o in OPS.values() if o.kind in kinds])
    args, kw, what = spoil(rng, o)
    return Call(seed, family, o, args, kw, what)


# -- running it -----------------------------------------------------------------------------------------------

@dataclass
class Outcome:
    values: Optional[list] = None  # NumPy arrays, one per output
    exc: Optional[BaseException] = None
    stage: str = ""  # where tapejax raised: "", "read" or "gradient"

    def __str__(self) -> str:
        if self.exc is None:
            return ", ".join(show(v) for v in self.values)
        e = self.exc
        msg = str(e).strip().splitlines()[0][:150] if str(e).strip() else ""
        pre = f"{show_values(self.values)}; then tape.gradient raised " if self.stage == "gradient" else ""
        return f"{pre}{type(e).__name__}: {msg}  @ {frame(e)}"


def show_values(values) -> str:
    return ", ".join(show(v) for v in values or [])


def frame(e: BaseException) -> str:
    """The innermost traceback frame, file:line, the path from its package on."""
    tb = traceback.extract_tb(e.__traceback__)
    if not tb:
        return "?"
    f = tb[-1]
    path = f.filename.replace("\\", "/")
    for mark in ("site-packages/", "/src/"):
        path = path.split(mark)[-1]
    return f"{path}:{f.lineno}"


def wrap(args, make) -> list:
    def one(v):
        return make(v) if isinstance(v, np.ndarray) else v
    return [Seq(map(one, v)) if isinstance(v, Seq) else one(v) for v in args]


def outputs(out) -> list:
    return [TFD.to_np(y) for y in TFD.flat(out)]


def run_tf(call: Call) -> Outcome:
    try:
        return Outcome(outputs(call.op.tf(*wrap(call.args, tf.constant), **call.kw)))
    except Exception as e:  # noqa: BLE001
        return Outcome(exc=e)


def run_eager(call: Call) -> Outcome:
    try:
        return Outcome(outputs(call.op.tj(*wrap(call.args, tj.constant), **call.kw)))
    except Exception as e:  # noqa: BLE001
        return Outcome(exc=e)


def tensors(args) -> list:
    return [t for v in args for t in (v if isinstance(v, Seq) else [v]) if isinstance(t, tj.Tensor)]


def run_taped(call: Call) -> Outcome:
    """Under a recording tape watching the float inputs; the values are read after it (recording may defer the
    kernels), then the gradient of the float outputs is taken."""
    args = wrap(call.args, tj.constant)
    watched = [t for t in tensors(args) if np.dtype(t.dtype).kind in "fc"]
    try:
        with tj.GradientTape() as tape:
            tape.watch(watched)
            out = TFD.flat(call.op.tj(*args, **call.kw))
    except Exception as e:  # noqa: BLE001
        return Outcome(exc=e)
    try:
        values = [TFD.to_np(y) for y in out]
    except Exception as e:  # noqa: BLE001
        return Outcome(exc=e, stage="read")
    targets = [y for y, v in zip(out, values) if isinstance(y, tj.Tensor) and v.dtype.kind == "f"]
    if watched and targets:
        try:
            [TFD.to_np(g) for g in tape.gradient(targets, watched)]
        except Exception as e:  # noqa: BLE001
            return Outcome(values, e, "gradient")
    return Outcome(values)


def run_function(call: Call) -> Outcome:
    """In a fresh tj.function: the tensors are its arguments, Python values (axes, lists, None) closed over."""
    args = wrap(call.args, tj.constant)
    leaves = tensors(args)

    def rebuild(ts):
        it = iter(ts)
        return [Seq(next(it) if isinstance(t, tj.Tensor) else t for t in v) if isinstance(v, Seq)
                else next(it) if isinstance(v, tj.Tensor) else v for v in args]

    try:
        return Outcome(outputs(tj.function(lambda *ts: call.op.tj(*rebuild(ts), **call.kw))(*leaves)))
    except Exception as e:  # noqa: BLE001
        return Outcome(exc=e)


def clean_state() -> bool:
    s = tape_set.current()
    return not (s.tapes or s.accumulators or s.stopped or s.capture is not None)


# -- judging the outcomes -------------------------------------------------------------------------------------

def compare(got: list, want: list, tol=1.0):
    """(difference or None, KNOWN label when the only difference is TF's 64-bit dtype)."""
    if len(got) != len(want):
        return f"{len(got)} outputs vs {len(want)}", None
    label = None
    for g, w in zip(got, want):
        m = TFD.compare(g, w, tol)
        if m and g.dtype != w.dtype and w.dtype.itemsize == 8 and w.dtype.kind == g.dtype.kind and \
                not TFD.compare(g, w.astype(g.dtype), tol):
            m, label = None, "known_x64"
        if m:
            return m, None
    return None, label


def leak(e: BaseException, op: Op) -> Optional[str]:
    """Why tapejax's exception is not a clean one of the project standard, or None."""
    cls = type(e)
    if isinstance(e, KeyError) or not isinstance(e, CLEAN) or cls.__module__.split(".")[0] in ("jax", "jaxlib"):
        return f"raised {cls.__module__}.{cls.__qualname__}"
    where = frame(e)
    if where.startswith(("jax/", "jaxlib/", "numpy/")):
        return f"raised inside {where.split('/')[0]}, not by tapejax"
    if not any(w.lower() in str(e).lower() for w in op.words):
        return f"the message does not name {op.words[0]!r}"
    return None


def compatible(tf_e: BaseException, tj_e: BaseException) -> bool:
    return isinstance(tj_e, type(tf_e)) or isinstance(tj_e, ACCEPTED.get(type(tf_e).__name__, ()))


def cast_args(call: Call, dtype) -> list:
    """The call's data arguments cast to ``dtype`` (indices, conditions and shapes as they are)."""
    def cast(v):
        if isinstance(v, Seq):
            return Seq(cast(a) for a in v)
        try:
            return np.asarray(v).astype(dtype) if v is not None and not isinstance(v, str) else v
        except (ValueError, TypeError):
            return v
    return [cast(a) if i in call.op.data else a for i, a in enumerate(call.args)]


def promoted(call: Call, tj_vals: list) -> bool:
    """Whether tapejax's result is jax.numpy's promotion: its dtype is the inputs' result type (or the float or
    int type an int/bool input gets) and its values are TF's on the inputs cast to that dtype."""
    dt = tj_vals[0].dtype
    data = [a for i, a in enumerate(call.args) if i in call.op.data]
    data = [x for a in data for x in (a if isinstance(a, Seq) else [a])]
    try:
        rt = np.dtype(jnp.result_type(*[x for x in data if x is not None and not isinstance(x, (str, list))]))
    except Exception:  # noqa: BLE001
        return False
    if dt != rt and not (rt.kind in "iub" and dt in (np.float32, np.int32)):
        return False
    ref = run_tf(Call(call.seed, call.family, call.op, cast_args(call, dt), call.kw, call.what))
    return ref.exc is None and compare(tj_vals, ref.values, 4.0)[0] is None


def numpy_value(call: Call, tj_vals: list) -> bool:
    if call.op.np_ref is None:
        return False
    try:
        want = outputs(call.op.np_ref(*call.args, **call.kw))
        return compare(tj_vals, [np.asarray(w).astype(g.dtype) for g, w in zip(tj_vals, want)], 4.0)[0] is None
    except Exception:  # noqa: BLE001
        return False


def known_tf_tj(call: Call, kind: str, tf_o: Outcome, tj_o: Outcome) -> Optional[str]:
    """The KNOWN label of a TF-vs-tapejax difference, or None."""
    if kind in ("tj_accepts", "value") and call.family in ("dtype", "scalar", "list") and promoted(call, tj_o.values):
        return "known_promotion"
    if kind == "tj_accepts" and call.family in ("rank", "index") and numpy_value(call, tj_o.values):
        return "known_numpy_rank"
    if kind == "tj_accepts" and "invertible" in str(tf_o.exc) and call.op.kind in ("solve", "square"):
        return "known_singular"
    if kind == "tf_accepts" and call.op.name in ("max", "min") and "zero-size" in str(tj_o.exc):
        return "known_empty_reduce"
    return None


def judge_tf_tj(call: Call, tf_o: Outcome, tj_o: Outcome):
    """(kind, detail, KNOWN label) of TF against eager tapejax, or None when they agree."""
    if tf_o.exc is not None and tj_o.exc is not None:
        if compatible(tf_o.exc, tj_o.exc):
            return None
        kind, detail = "class", f"TF {type(tf_o.exc).__name__}, tj {type(tj_o.exc).__name__}"
    elif tf_o.exc is not None:
        kind, detail = "tj_accepts", f"TF raises {type(tf_o.exc).__name__}, tj returns {tj_o}"
    elif tj_o.exc is not None:
        kind, detail = "tf_accepts", f"tj raises {type(tj_o.exc).__name__}, TF returns {tf_o}"
    else:
        m, label = compare(tj_o.values, tf_o.values)
        if m is None:
            return None if label is None else ("value", "TF's 64-bit dtype", label)
        kind, detail = "value", m
    return kind, detail, known_tf_tj(call, kind, tf_o, tj_o)


def judge_paths(call: Call, eager: Outcome, other: Outcome, path: str):
    """(kind, detail, KNOWN label) when ``path``'s outcome differs from the eager one, or None."""
    if eager.exc is not None and other.exc is not None:
        if type(eager.exc) is type(other.exc):
            return None
        detail = f"eager {type(eager.exc).__name__}, {path} {type(other.exc).__name__}"
    elif eager.exc is not None or other.exc is not None:
        detail = f"eager: {eager}; {path}: {other}"
    else:
        m, _ = compare(other.values, eager.values, 4.0)
        if m is None:
            return None
        detail = f"{path} vs eager: {m}"
    label = ("known_traced_values" if path == "function" and eager.exc is not None and other.exc is None
             and call.op.name in ("take", "floor_divide", "mod", "power") else None)
    return "paths", detail, label


def check(seed: int):
    """(seed kind, call, outcomes, problems: [(kind, detail, KNOWN label or None)])."""
    call = draw(seed)
    outs = {"TF": run_tf(call), "eager": run_eager(call), "taped": run_taped(call), "function": run_function(call)}
    problems = []
    if not clean_state():
        problems.append(("leak", "the tape state is not clean after the call", None))
    leaks = {}  # the same leak on several paths shows once
    for path in ("eager", "taped", "function"):
        e = outs[path].exc
        why = e is not None and leak(e, call.op)
        if why:
            text = f"{why}: {type(e).__name__}: {str(e).strip()[:200]!r} @ {frame(e)}"
            leaks.setdefault(text, []).append(path + (f" ({outs[path].stage})" if outs[path].stage else ""))
    problems += [("leak", f"{', '.join(paths)}: {text}", None) for text, paths in leaks.items()]
    for path in ("taped", "function"):
        p = judge_paths(call, outs["eager"], outs[path], path)
        if p:
            problems.append(p)
    p = judge_tf_tj(call, outs["TF"], outs["eager"])
    if p:
        problems.append(p)
    real = [k for k, _, label in problems if label is None]
    kind = min(real, key=ORDER.index) if real else "known" if problems else "ok"
    return kind, call, outs, problems


def main(argv=None) -> int:
    args = seed_arguments(__doc__, argv, 300, "call")
    counts = dict.fromkeys(("ok", "known") + ORDER, 0)
    signatures = {}
    for seed in range(args.first, args.first + args.programs):
        kind, call, outs, problems = check(seed)
        counts[kind] += 1
        if kind == "ok" and not args.verbose:
            continue
        print(f"[{kind}] seed {seed}: {call}")
        shown = {}  # tapejax's paths with the same outcome on one line
        for path, o in outs.items():
            shown.setdefault(str(o), []).append(path)
        for text, paths in shown.items():
            print(f"    {'='.join(paths):23s} {text}")
        for k, detail, label in problems:
            print(f"    -> {k}: {detail}" + (f"  (known: {label})" if label else ""))
        for sig in {f"{call.op.name} {k} [{call.family}]" for k, _, label in problems if label is None}:
            signatures.setdefault(sig, []).append(seed)
    last = args.first + args.programs - 1
    print(f"\n{args.programs} calls (seeds {args.first}-{last}): " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    if signatures:
        print_seed_table("problems by op, kind [family] (seeds):", signatures)
    return 1 if any(counts[k] for k in ORDER) else 0


if __name__ == "__main__":
    sys.exit(main())
