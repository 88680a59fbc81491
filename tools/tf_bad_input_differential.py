"""Differential test of bad and unusual arguments: random calls of tapejax ops against TensorFlow 2.21's.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python tools/tf_bad_input_differential.py [--first K] [--programs N] [--verbose]

tools/tf_differential.py checks a fixed table of bad inputs, tests/test_bad_input_fuzz.py a fixed sweep; this
draws them. Each seed (``numpy.random.default_rng(seed)``) draws one call of an op of tf_differential.py's tables
(FAMILIES and ``op(...)`` below) with arguments bad or unusual in one drawn way: shapes that do not broadcast, a
wrong rank, a bad axis (out of range, repeated, float, string, list, None), odd or mixed dtypes, empty arrays,
scalars, Python lists (ragged or not), None, a string, NaN / inf, a bad target shape, bad indices. It runs in TF
eagerly and in tapejax eagerly, under a recording ``tj.GradientTape`` (float inputs watched, then the gradient
of the float outputs) and in a fresh ``tj.function``. An outcome is a value (compared as tf_differential.py
does: shape, dtype, values within a dtype-aware tolerance, NaN and inf positions) or an exception.

A seed is ``ok`` when both sides raise compatible classes (TF's mapped through ACCEPTED, or tapejax's a
subclass of TF's) or return equal values; else the first of ``leak`` (tapejax raised other than CLEAN's
classes, a KeyError or a jax class, from inside jax or NumPy, left the tape state dirty, or with a message that
does not name the op or is Python's BARE words), ``paths`` (tapejax's eager / taped / tj.function outcomes
differ: API.md's one set of rules on every path), ``class`` (both raise, classes not compatible),
``tj_accepts`` (TF raises, tapejax returns), ``tf_accepts`` (the reverse), ``value`` (both return, values
differ); or ``known`` when each difference has a KNOWN label (KNOWN holds the contract sentence allowing it):
  known_promotion      TF raises or differs on odd / mixed dtypes; tapejax returns jax.numpy's value;
  known_jax_semantics  TF raises or differs elsewhere (a rank, an index, a scalar); tapejax returns jax's value;
  known_x64            TF's float64/int64 result, tapejax's 32-bit one, the same values;
  known_traced_values  eager tapejax raises on an index or divisor value; in tj.function it is unknown;
  known_singular       TF raises for a singular matrix, tapejax gives inf / NaN (jax.numpy's);
  known_jax_rejects    TF accepts (a float or list axis...), tapejax raises as jax's own function does;
  known_empty_reduce   max / min over a zero-size axis raise (jax.numpy), TF gives -inf / +inf;
  known_no_strings     TF makes a string tensor of a Python str; tapejax has no string dtype.
It prints each seed not ok (``--verbose``: every seed): the call, each side's outcome, the problems; then a
summary line and the problems by op, kind and family with their seeds. Exit status 1 on a difference not KNOWN.
"""
from __future__ import annotations

import logging
import os
import sys
import traceback
import warnings
from dataclasses import dataclass
from typing import Callable, Optional

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
warnings.filterwarnings("ignore")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import jax.scipy.special  # noqa: E402,F401  (erf's jax function)
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import tapejax as tj  # noqa: E402
import tf_differential as TFD  # noqa: E402
from seed_runs import print_seed_table, seed_arguments  # noqa: E402
from tapejax import tape_set  # noqa: E402

logging.getLogger("tapejax").setLevel(logging.ERROR)  # (a fresh tj.function per call: retracing warnings)
tnp = tj.numpy

_MIRRORS = ("API.md: '`tj.numpy` | Mirrors `jax.numpy` names and signatures', "
            "'`tj.nn` | Mirrors `jax.nn` names and defaults'")
KNOWN = {
    "known_promotion": _MIRRORS + " -- jax.numpy's dtype rules: mixed dtypes promote, Python scalars are weak, "
                                  "int inputs of float functions become float, complex where TF has no kernel",
    "known_jax_semantics": _MIRRORS + "; README: tj.nn's softmax family takes axis as tj.numpy's reductions -- "
                                      "matmul of 1-D operands, solve with a vector, take with a negative index, "
                                      "softmax(axis=None) over all axes",
    "known_x64": "README: 'x64 off gives float32/int32 ... turn x64 on to get TF's dtypes'",
    "known_traced_values": "ops/numpy.py getitem: 'inside tj.function/jax.jit a traced index array is not known "
                           "until it runs, and JAX's gather then clamps'; README: integer // and % raise for 'a "
                           "zero whose value is known'",
    "known_singular": "tools/tf_differential.py: a singular matrix gives inf, as jax.numpy (a check would cost a "
                      "device sync per call and cannot raise inside a compiled program); TF raises",
    "known_jax_rejects": _MIRRORS + "; README: 'floats given for sizes, axes, counts or shifts raise TypeError "
                                    "and are never truncated' -- tapejax raises where jax's function raises too",
    "known_empty_reduce": "tools/tf_differential.py KNOWN: 'jax.numpy raises ValueError reducing a zero-size axis "
                          "(TF returns -inf)'",
    "known_no_strings": "API.md: tj.numpy 'Accepts Tensors, Variables, jax/numpy arrays and Python numbers' (no "
                        "string dtype in JAX); TF makes a tf.string tensor",
}
CLEAN = (TypeError, ValueError, IndexError, NotImplementedError, LookupError, ZeroDivisionError)
# Python's own words for a crash in the code under the call: a message made of them names no actual problem
BARE = ("tuple index out of range", "integer modulo by zero", "has no attribute", "is not subscriptable",
        "unhashable type", "is not iterable")
# an exception class tapejax may raise for each TF class (beyond subclasses of TF's own): TF's oneDNN kernels
# report a bad rank as AbortedError, and TF's Python code crashes with AttributeError on some bad arguments
ACCEPTED = {**TFD.ACCEPTED, "NotFoundError": (TypeError,), "UnimplementedError": (TypeError, NotImplementedError),
            "AbortedError": (ValueError,), "AttributeError": CLEAN}
ORDER = ("leak", "paths", "class", "tj_accepts", "tf_accepts", "value")
DTYPES = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "bool": np.bool_, "c64": np.complex64}


# -- the ops --------------------------------------------------------------------------------------------------

@dataclass
class Op:
    """``tj(*args, **kw)`` against ``tf(*args, **kw)`` (and jax's function of the same name); ``kind``: which
    arguments it takes; ``data``: the positions holding values (not indices, conditions or shapes)."""
    name: str
    tj: Callable
    tf: Callable
    kind: str
    data: tuple = (0, 1)

    @property
    def words(self) -> tuple:  # what its error message must name (any one)
        short = self.name.split(".")[-1]
        return short, short.replace("_", " ")

    @property
    def jax(self) -> Optional[Callable]:
        mod, _, short = self.name.rpartition(".")
        where = {"nn": [jax.nn], "linalg": [jnp.linalg]}.get(mod, [jnp, jax.nn, jax.scipy.special, jax.lax])
        return next((getattr(m, short) for m in where if hasattr(m, short)), None)


OPS: dict = {}


def op(name, tj_f, tf_f, kind, data=(0, 1)):
    OPS[name] = Op(name, tj_f, tf_f, kind, data)


for _n, _f in TFD.UNARY.items():
    op(_n, getattr(tnp, _n), _f, "unary")
for _n, (_a, _b) in TFD.ACT.items():
    if " " not in _n:  # ("gelu exact", "leaky_relu 0.2": variants)
        op("nn." + _n, _a, _b, "unary")
for _n, _f in TFD.BINARY.items():
    op(_n, getattr(tnp, _n), _f, "binary")
for _n, (_a, _b) in TFD.REDUCE.items():
    op(("nn." if _n == "logsumexp" else "") + _n, _a, _b, "reduce")
for _n, (_a, _b) in TFD.SOFT.items():
    op("nn." + _n, _a, _b, "softmax")
M, N = TFD.TJ_M, TFD.TF_M
op("cumsum", tnp.cumsum, tf.math.cumsum, "cumsum")
op("matmul", M["matmul"], N["matmul"], "matmul")
op("reshape", M["reshape"], N["reshape"], "reshape", data=(0,))
op("squeeze", M["squeeze"], N["squeeze"], "squeeze", data=(0,))
op("broadcast_to", M["broadcast_to"], N["broadcast_to"], "broadcast_to", data=(0,))
op("concatenate", lambda xs, axis=0: M["concat"](xs, axis=axis), lambda xs, axis=0: N["concat"](xs, axis), "join")
op("stack", lambda xs, axis=0: M["stack"](xs, axis=axis), lambda xs, axis=0: N["stack"](xs, axis=axis), "join")
op("transpose", M["transpose"], N["transpose"], "transpose", data=(0,))
op("take", lambda x, i, axis=0: tnp.take(x, i, axis=axis), lambda x, i, axis=0: tf.gather(x, i, axis=axis),
   "take", data=(0,))
op("where", tnp.where, tf.where, "where", data=(1, 2))
op("linalg.solve", M["solve"], N["solve"], "solve")
op("linalg.inv", tnp.linalg.inv, tf.linalg.inv, "square")
op("linalg.det", tnp.linalg.det, tf.linalg.det, "square")
op("linalg.cholesky", M["cholesky"], N["cholesky"], "square")
op("clip_by_norm", tj.clip_by_norm, tf.clip_by_norm, "clip")


# -- drawing a call -------------------------------------------------------------------------------------------

class Seq(list):
    """An argument that is a list of arrays (concatenate's, stack's): each side makes a list of its tensors."""


@dataclass
class Call:
    family: str
    op: Op
    args: list
    kw: dict
    what: str  # what is bad or unusual about it

    def __str__(self) -> str:
        parts = [show(a) for a in self.args] + [f"{k}={show(v)}" for k, v in self.kw.items()]
        return f"{self.op.name}({', '.join(parts)})   [{self.family}: {self.what}]"


def show(v) -> str:
    """An argument or result readably: arrays as dtype[shape], with their values when small or non-finite."""
    if isinstance(v, np.ndarray):
        text = f"{next((k for k, d in DTYPES.items() if v.dtype == d), v.dtype.name)}{list(v.shape)}"
        finite = v.dtype.kind not in "fc" or np.isfinite(v).all()
        if v.size <= 4 and (v.dtype.kind in "iub" or not finite):
            text += f"={(np.round(v, 2) if v.dtype.kind in 'fc' else v).tolist()}"
        return text + ("" if finite or v.size <= 4 else "(with nan/inf)")
    if isinstance(v, Seq):
        return "[" + ", ".join(map(show, v)) + "]"
    if isinstance(v, list) and len(repr(v)) > 40:  # a long Python list: its nesting, not its numbers
        return f"list{list(np.shape(v))}"
    return repr(v)


def pick(rng, seq):
    return seq[int(rng.integers(len(seq)))]


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
    return m > 0 if dt == "bool" else m.astype(DTYPES[dt])


def base(rng, op: Op, dt="f32", dt2=None, shape=None, nonfinite=False):
    """An ordinary call of ``op`` (arguments, keywords), that a family then spoils."""
    dt2 = dt2 or dt
    shape = shape if shape is not None else pick(rng, [(3,), (2, 3), (2, 3, 4)])
    nd, k = len(shape), op.kind

    def A(s, d=dt):
        return arr(rng, s, d, nonfinite)

    if k == "reduce":
        axis = pick(rng, [None] + list(range(-nd, nd)) + ([(0, nd - 1)] if nd > 1 else []))
        return [A(shape)], {"axis": axis, "keepdims": bool(rng.integers(2))}
    if k == "take":
        return [A(shape), rng.integers(0, shape[0] if nd else 1, 2).astype(np.int32)], {"axis": 0}
    if k == "square":
        return [matrix(rng, 3, dt, spd=op.name.endswith("cholesky"), nonfinite=nonfinite)], {}
    axis = {"axis": int(rng.integers(-nd, nd)) if nd else -1}
    return {  # (lazy: only the drawn kind's arrays are drawn)
        "unary": lambda: ([A(shape)], {}), "binary": lambda: ([A(shape), A(shape, dt2)], {}),
        "softmax": lambda: ([A(shape)], axis), "cumsum": lambda: ([A(shape)], axis),
        "matmul": lambda: ([A((2, 3)), A((3, 4), dt2)], {}),
        "join": lambda: ([Seq([A(shape), A(shape, dt2)])], {"axis": int(rng.integers(nd)) if nd else 0}),
        "transpose": lambda: ([A(shape), tuple(int(i) for i in rng.permutation(nd))], {}),
        "reshape": lambda: ([A(shape), pick(rng, [(-1,), shape[::-1], (int(np.prod(shape)), 1)])], {}),
        "squeeze": lambda: ([A((3, 1))], {"axis": 1}), "broadcast_to": lambda: ([A((3, 1))], {"shape": (2, 3, 4)}),
        "where": lambda: ([arr(rng, shape, "bool"), A(shape), A(shape, dt2)], {}),
        "solve": lambda: ([matrix(rng, 3, dt, nonfinite=nonfinite), A((3, 2), dt2)], {}),
        "clip": lambda: ([A(shape), np.asarray(1.0, DTYPES[dt])], {}),
    }[k]()


def fam_broadcast(rng, op):
    sa, sb = pick(rng, [((3,), (4,)), ((2, 3), (3, 2)), ((2, 3), (2,)), ((2, 3, 4), (3, 3)), ((2, 1, 3), (4, 3, 1))])
    k = op.kind
    if k == "binary":
        return [arr(rng, sa), arr(rng, sb)], {}, f"shapes {sa} vs {sb}"
    if k == "where":
        return [arr(rng, sa, "bool"), arr(rng, sb), arr(rng, sb)], {}, f"condition {sa} vs branches {sb}"
    if k == "join":
        a, b = (sa, sb) if op.name == "stack" else ((2, 3), (2, 4))
        return [Seq([arr(rng, a), arr(rng, b)])], {"axis": 0}, f"shapes {a} vs {b} on axis 0"
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
        return [matrix(rng, 3) if a == (3, 3) else arr(rng, a), arr(rng, b)], {}, f"a {a}, b {b}"
    if k == "square":
        s = pick(rng, [(3,), (2, 3), (), (2, 3, 3)])
        x = np.stack([matrix(rng, 3, spd=True)] * 2) if s == (2, 3, 3) else arr(rng, s)
        return [x], {}, f"input {s}"
    if k == "transpose":
        s, perm = pick(rng, [(2, 3), (2, 3, 4)]), pick(rng, [(1, 0, 2), (0,), (1, 0, 2, 3)])
        return [arr(rng, s), perm], {}, f"perm {perm} for rank {len(s)}"
    return [arr(rng, ())], {"axis": -1}, "a scalar input"  # softmax


def fam_axis(rng, op):
    args, kw = base(rng, op)
    nd = (args[0][0] if op.kind == "join" else args[0]).ndim
    if op.kind == "transpose":
        args[1] = pick(rng, [(0,) * nd, tuple(range(1, nd + 1)), tuple(float(i) for i in range(nd)), None])
        return args, kw, f"perm {args[1]}"
    bad = [nd, nd + 2, -nd - 1, 1.0, 0.5, "0", np.int64(nd - 1), [0], -1, None]
    axis = pick(rng, bad + ([(0, 0), (0, -nd), (0, 1.0)] if op.kind in ("reduce", "clip") else []))
    kw["axes" if op.kind == "clip" else "axis"] = axis
    return args, kw, f"axis {axis!r} for rank {nd}"


PAIRS = [("f32", "i32"), ("f32", "f16"), ("f32", "bool"), ("f32", "c64"), ("i32", "bool"), ("f16", "c64"),
         ("i32", "i32"), ("bool", "bool"), ("c64", "c64"), ("f16", "f16")]


def fam_dtype(rng, op):
    k = op.kind
    if k == "binary" and rng.random() < 0.25:  # a Python scalar operand
        d = pick(rng, ["f32", "i32", "f16", "bool"])
        args, kw = base(rng, op, dt=d)
        args[1] = pick(rng, [2, 2.5, 1j, True])
        return args, kw, f"{d} with Python {args[1]!r}"
    if k in ("binary", "matmul", "join", "solve", "where"):
        d1, d2 = pick(rng, PAIRS)
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
    k, s = op.kind, pick(rng, [(0,), (0, 3), (2, 0)])
    if k == "matmul":
        a, b = pick(rng, [((0, 3), (3, 2)), ((2, 0), (0, 3)), ((2, 3), (3, 0))])
        return [arr(rng, a), arr(rng, b)], {}, f"{a} @ {b}"
    if k in ("solve", "square"):
        return [arr(rng, (0, 0))] + ([arr(rng, (0, 2))] if k == "solve" else []), {}, "0x0 matrix"
    if k == "take" and rng.random() < 0.5:
        return [arr(rng, (2, 3)), np.zeros((0,), np.int32)], {"axis": 0}, "no indices"
    if k == "take":
        return [arr(rng, s), np.asarray([0], np.int32)], {"axis": 0}, f"index 0 into {s}"
    if k in ("squeeze", "broadcast_to"):
        return [arr(rng, (0, 1))], base(rng, op)[1], "input (0, 1)"
    args, kw = base(rng, op, shape=s)
    if k == "reshape":
        args[1] = pick(rng, [(-1, 0), (0, -1), (-1,), (3, 0)])
    return args, kw, f"shape {s}"


def fam_scalar(rng, op):
    k, py = op.kind, rng.random() < 0.4  # a Python number rather than a 0-d array
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


def replace_one(rng, op, make, what):
    """An ordinary call with one data argument (or an entry of a list argument) ``a`` replaced by ``make(a)``."""
    args, kw = base(rng, op)
    i = pick(rng, [p for p in op.data if p < len(args)])
    if isinstance(args[i], Seq):
        j = int(rng.integers(len(args[i])))
        args[i][j] = make(args[i][j])
    else:
        args[i] = make(args[i])
    return args, kw, f"{what} as argument {i}"


def fam_shape(rng, op):
    x = arr(rng, (2, 3))
    if op.name == "squeeze":
        axis = pick(rng, [0, 2, 1.0, (0, 0), -3])
        return [x], {"axis": axis}, f"squeeze axis {axis!r} of (2, 3)"
    if op.name == "broadcast_to":
        s = pick(rng, [(3, 2), (2,), (-1, 3), (2.0, 3), (4, 2, 3.5)])
        return [x], {"shape": s}, f"(2, 3) to {s}"
    s = pick(rng, [(4,), (-1, -1), (-2, 3), (2.0, 3), (None, 3), (7, -1), (0, -1), (np.int64(3), np.int64(2))])
    return [x, s], {}, f"(2, 3) to {show(s)}"


def fam_index(rng, op):
    idx = pick(rng, [np.asarray([5], np.int32), np.asarray([-5], np.int32), np.asarray([-1, 0], np.int32),
                     np.asarray([1.0], np.float32), np.asarray([[0, 3], [1, 2]], np.int32), [0, 7], 4, -1,
                     np.asarray([True, False], np.bool_)])
    axis = pick(rng, [0, 0, 1])
    return [arr(rng, (4, 3)), idx], {"axis": axis}, f"indices {show(idx)} on axis {axis} of (4, 3)"


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
    "ragged": (lambda rng, op: replace_one(rng, op, lambda a: [[1.0, 2.0], [3.0]], "a ragged list"), ALL),
    "list": (lambda rng, op: replace_one(rng, op, lambda a: a.tolist(), "a Python list"), ALL),
    "none": (lambda rng, op: replace_one(rng, op, lambda a: None, "None"), ALL),
    "string": (lambda rng, op: replace_one(rng, op, lambda a: pick(rng, ["abc", "1.5"]), "a string"), ALL),
    "nonfinite": (lambda rng, op: (*base(rng, op, nonfinite=True), "NaN / inf values"),
                  ("unary", "binary", "reduce", "softmax", "cumsum", "matmul", "solve", "square", "clip", "where",
                   "take")),
    "shape": (fam_shape, ("reshape", "squeeze", "broadcast_to")),
    "index": (fam_index, ("take",)),
}


def draw(seed: int) -> Call:
    rng = np.random.default_rng(seed)
    family = pick(rng, list(FAMILIES))
    spoil, kinds = FAMILIES[family]
    o = pick(rng, [o for o in OPS.values() if o.kind in kinds])
    return Call(family, o, *spoil(rng, o))


# -- running it four ways -------------------------------------------------------------------------------------

@dataclass
class Outcome:
    values: Optional[list] = None  # NumPy arrays, one per output
    exc: Optional[BaseException] = None
    stage: str = ""  # "gradient" when the taped call returned and its tape.gradient raised

    def __str__(self) -> str:
        if self.exc is None:
            return ", ".join(map(show, self.values))
        msg = (str(self.exc).strip().splitlines() or [""])[0][:150]
        pre = f"{', '.join(map(show, self.values))}; then tape.gradient raised " if self.stage else ""
        return f"{pre}{type(self.exc).__name__}: {msg}  @ {frame(self.exc)}"


def frame(e: BaseException) -> str:
    """The innermost traceback frame, file:line, its path from the package on."""
    tb = traceback.extract_tb(e.__traceback__)
    path = tb[-1].filename.replace("\\", "/").split("site-packages/")[-1].split("/src/")[-1] if tb else "?"
    return f"{path}:{tb[-1].lineno}" if tb else "?"


def wrap(args, make) -> list:
    def one(v):
        return make(v) if isinstance(v, np.ndarray) else v
    return [Seq(map(one, v)) if isinstance(v, Seq) else one(v) for v in args]


def outputs(out) -> list:
    return [TFD.to_np(y) for y in TFD.flat(out)]


def attempt(fn) -> Outcome:
    try:
        return Outcome(outputs(fn()))
    except Exception as e:  # noqa: BLE001
        return Outcome(exc=e)


def tensors(args) -> list:
    return [t for v in args for t in (v if isinstance(v, Seq) else [v]) if isinstance(t, tj.Tensor)]


def run_taped(call: Call) -> Outcome:
    """Under a recording tape watching the float inputs; the values are read after it (recording may defer the
    kernels), then the gradient of the real float outputs is taken."""
    args = wrap(call.args, tj.constant)
    watched = [t for t in tensors(args) if np.dtype(t.dtype).kind in "fc"]
    try:
        with tj.GradientTape() as tape:
            tape.watch(watched)
            out = TFD.flat(call.op.tj(*args, **call.kw))
        values = outputs(out)
    except Exception as e:  # noqa: BLE001
        return Outcome(exc=e)
    targets = [y for y, v in zip(out, values) if isinstance(y, tj.Tensor) and v.dtype.kind == "f"]
    if watched and targets:
        try:
            outputs(tape.gradient(targets, watched))
        except Exception as e:  # noqa: BLE001
            return Outcome(values, e, "gradient")
    return Outcome(values)


def run_function(call: Call) -> Outcome:
    """In a fresh tj.function: the tensors are its arguments, Python values (axes, lists, None) closed over."""
    args = wrap(call.args, tj.constant)

    def rebuild(ts):
        it = iter(ts)
        return [Seq(next(it) if isinstance(t, tj.Tensor) else t for t in v) if isinstance(v, Seq)
                else next(it) if isinstance(v, tj.Tensor) else v for v in args]

    return attempt(lambda: tj.function(lambda *ts: call.op.tj(*rebuild(ts), **call.kw))(*tensors(args)))


def run_all(call: Call) -> dict:
    o = call.op
    return {"TF": attempt(lambda: o.tf(*wrap(call.args, tf.constant), **call.kw)),
            "eager": attempt(lambda: o.tj(*wrap(call.args, tj.constant), **call.kw)),
            "taped": run_taped(call), "function": run_function(call)}


def clean_state() -> bool:
    s = tape_set.current()
    return not (s.tapes or s.accumulators or s.stopped or s.capture is not None)


# -- judging the outcomes -------------------------------------------------------------------------------------

def compare(got: list, want: list, tol=1.0):
    """(difference or None, "known_x64" when the only difference is TF's 64-bit dtype)."""
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
    if frame(e).startswith(("jax/", "jaxlib/", "numpy/")):
        return f"raised inside {frame(e).split('/')[0]}, not by tapejax"
    if not any(w.lower() in str(e).lower() for w in op.words):
        return f"the message does not name {op.words[0]!r}"
    bare = next((b for b in BARE if b in str(e)), None)
    return f"the message is Python's bare {bare!r}, not the problem" if bare else None


def as_jax(call: Call, tj_vals: list) -> bool:
    """Whether tapejax's values are those of jax's own function (jax.numpy, jax.nn) for the same call."""
    if call.op.jax is None:
        return False
    kw = {k: tuple(v) if isinstance(v, list) else v for k, v in call.kw.items()}  # (jax's axes are hashable)
    try:
        return compare(tj_vals, outputs(call.op.jax(*call.args, **kw)))[0] is None
    except Exception:  # noqa: BLE001
        return False


def known_tf_tj(call: Call, kind: str, tf_o: Outcome, tj_o: Outcome) -> Optional[str]:
    """The KNOWN label of a difference between TF and eager tapejax, or None."""
    if kind == "tj_accepts" and "invertible" in str(tf_o.exc):
        return "known_singular"
    if kind in ("tj_accepts", "value") and as_jax(call, tj_o.values):
        dtypes = call.family == "dtype" or any(w in str(tf_o.exc) for w in ("dtype", "attr 'T'", "expected to be"))
        return "known_promotion" if dtypes else "known_jax_semantics"
    if kind == "tf_accepts" and call.op.name in ("max", "min") and "size 0" in str(tj_o.exc):
        return "known_empty_reduce"
    if kind == "tf_accepts" and call.family == "string" and any(v.dtype.kind in "OSU" for v in tf_o.values):
        return "known_no_strings"
    if kind == "tf_accepts" and call.op.jax and attempt(lambda: call.op.jax(*call.args, **call.kw)).exc:
        return "known_jax_rejects"
    return None


def judge_tf_tj(call: Call, tf_o: Outcome, tj_o: Outcome):
    """(kind, detail, KNOWN label or None) of TF against eager tapejax, or None when they agree."""
    if tf_o.exc is not None and tj_o.exc is not None:
        if isinstance(tj_o.exc, (type(tf_o.exc),) + ACCEPTED.get(type(tf_o.exc).__name__, ())):
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
    """(kind, detail, KNOWN label or None) when ``path``'s outcome differs from the eager one, or None."""
    if eager.exc is not None and other.exc is not None:
        if isinstance(eager.exc, type(other.exc)) or isinstance(other.exc, type(eager.exc)):
            return None
        detail = f"eager {type(eager.exc).__name__}, {path} {type(other.exc).__name__}"
    elif eager.exc is not None or other.exc is not None:
        detail = f"eager: {eager}; {path}: {other}"
    else:
        m, _ = compare(other.values, eager.values, 4.0)  # (a fused program may round differently)
        if m is None:
            return None
        detail = f"{path} vs eager: {m}"
    traced = (path == "function" and eager.exc is not None and other.exc is None
              and call.op.name in ("take", "floor_divide", "mod", "power"))
    return "paths", detail, "known_traced_values" if traced else None


def check(seed: int):
    """(the seed's kind, its call, the four outcomes, its problems: [(kind, detail, KNOWN label or None)])."""
    call = draw(seed)
    outs = run_all(call)
    problems = [] if clean_state() else [("leak", "the tape state is not clean after the call", None)]
    leaks = {}  # the same leak on several paths shows once
    for path in ("eager", "taped", "function"):
        e = outs[path].exc
        why = e is not None and leak(e, call.op)
        if why:
            text = f"{why}: {type(e).__name__}: {str(e).strip()[:200]!r} @ {frame(e)}"
            leaks.setdefault(text, []).append(path + (f" ({outs[path].stage})" if outs[path].stage else ""))
    problems += [("leak", f"{', '.join(paths)}: {text}", None) for text, paths in leaks.items()]
    problems += [p for p in (judge_paths(call, outs["eager"], outs[path], path) for path in ("taped", "function"))
                 if p]
    p = judge_tf_tj(call, outs["TF"], outs["eager"])
    problems += [p] if p else []
    real = [k for k, _, label in problems if label is None]
    kind = min(real, key=ORDER.index) if real else "known" if problems else "ok"
    return kind, call, outs, problems


def report(seed: int, kind: str, call: Call, outs: dict, problems: list) -> None:
    print(f"[{kind}] seed {seed}: {call}")
    shown = {}  # the paths with the same outcome on one line
    for path, o in outs.items():
        shown.setdefault(str(o), []).append(path)
    for text, paths in shown.items():
        print(f"    {'='.join(paths):23s} {text}")
    for k, detail, label in problems:
        print(f"    -> {k}: {detail}" + (f"  ({label})" if label else ""))


def main(argv=None) -> int:
    args = seed_arguments(__doc__, argv, 300, "call")
    counts = dict.fromkeys(("ok", "known") + ORDER, 0)
    signatures, labels = {}, {}
    for seed in range(args.first, args.first + args.programs):
        kind, call, outs, problems = check(seed)
        counts[kind] += 1
        if kind != "ok" or args.verbose:
            report(seed, kind, call, outs, problems)
        for sig in {f"{call.op.name} {k} [{call.family}]" for k, _, label in problems if label is None}:
            signatures.setdefault(sig, []).append(seed)
        for label in {label for _, _, label in problems if label}:
            labels[label] = labels.get(label, 0) + 1
    last = args.first + args.programs - 1
    print(f"\n{args.programs} calls (seeds {args.first}-{last}): " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    print("known differences (seeds): " + ", ".join(f"{k} {v}" for k, v in sorted(labels.items())))
    if signatures:
        print_seed_table("problems by op, kind [family] (seeds):", signatures)
    print("\nKNOWN labels:\n" + "\n".join(f"  {k}: {v}" for k, v in KNOWN.items()))
    return 1 if any(counts[k] for k in ORDER) else 0


if __name__ == "__main__":
    sys.exit(main())
