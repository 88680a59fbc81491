"""Differential test of ``tj.function`` against ``tf.function``: random small programs, written out as Python source,
wrapped by ``tj.function`` on one side and ``tf.function`` on the other, called action for action.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python tools/tf_function_differential.py [--first K] [--programs N] [--seconds S]
        [--verbose]

``Scenario(seed)`` draws (``numpy.random.default_rng(seed)``) the source of one to three functions ``f0``, ``f1``...
(its repr prints it: the same text is executed on both sides, with ``function`` = tf.function or tj.function and
the op names below bound to TF's or tapejax's) and 3-10 actions calling them. Each body first counts its Python
runs (``TRACES[name] += 1``), then runs 2-6 statements over its parameters, the Variables v0 (3,), v1 (), v2 (2, 3)
and v3 (3,) (trainable=False) and the constants c0 (2, 3), c1 (3,), c2 (), closed over as globals or as closure
cells of ``scope``: ops (sin, cos, square, tanh, neg, reduce_sum, sum_last, mul, add, sub, matmul ``a @ b.T`` (rank 2),
stop_gradient, ``cg``: a custom gradient with the true derivative, ``cg3``: one whose gradient is ``3 * dy``),
``assign``/``assign_add``/``assign_sub`` (sometimes of a wrong shape) and reads after them, Python branches on a
bool, a string, a ``None`` default and a Python number argument, a GradientTape block with ``tape.gradient``
inside, a ForwardAccumulator block with ``jvp``, ``gradients(ys, xs, grad_ys, stop_gradients,
unconnected_gradients)``, calls of an earlier function (nested tf.function / tj.function), ``raise Boom`` (a
Python exception, sometimes after an assignment, sometimes only when a flag is set) and a shape error. Parameters:
tensors of a declared shape (called with Tensors, NumPy arrays, Python lists or floats, now and then another
shape), "loose" tensors (any shape and dtype, reduced to a scalar first), Python numbers, bools, strings, an
optional tensor defaulting to None, a list / tuple / dict / namedtuple of two tensors and a Variable (v0 or v3,
now and then one of another shape); some have defaults, some are keyword-only, calls pass them by position, by
keyword or not at all, and now and then with a wrong number of arguments. A function may be a method
(``function`` applied in the class body; two instances holding v0 and v3 as ``self.w``). Returns: None, a
tensor, tuples, lists, dicts (keys in drawn order), namedtuples, nested ones, Python numbers, None inside, a
string, a Variable, the gradient lists.

Each call runs plainly, under a GradientTape (gradients of the float outputs w.r.t. the Tensor arguments, the
constants and the Variables), under two nested tapes (second order) or under a ForwardAccumulator (JVPs of the
float outputs, tangents for the Tensor arguments, constants and v0-v2); another action calls ``gradients``
eagerly (RuntimeError as TF). For each action it compares whether and where it raised (tapejax must raise TF's
class or a subclass, for TF's ``OpError`` classes the Python classes of tools/tf_differential.py's ``ACCEPTED``,
never JAX's internal errors), warnings (Python ``UserWarning``s and both libraries' logged warnings: the
retracing warning; each scenario's functions are new code objects, so its count is the scenario's own), result
trees (tools/result_trees.differ: structure, container types, dict key order, shapes, dtypes, values), the
Variables' values afterwards (then tapejax's are set to TF's, so a difference does not carry on), how many times
each body ran in Python (``traces``: TF traces once per new signature: a new shape or dtype of a Tensor, a new
value of a Python argument; tapejax's docstring claims the same) and the called function's
``experimental_get_tracing_count()`` (``count``). A trace count, retracing warning or Variable difference that
follows from an earlier difference of the same function (a trace-count difference, a call that raised on one side
only) is printed as following from it and left out of the closing table.

Where a value (result, gradient, second order, JVP) differs, or TF's call fails inside TF (``tf_fault``: mostly
a ForwardAccumulator over a call that uses Variables, "Internal error: Tried to take gradients (or similar) of a
variable without handle data"), the action is run again on TF eagerly (``tf.config.run_functions_eagerly``, from
the Variables' values before it): API.md's "one set of rules on every path" makes TF eager the reference for
TF's ``None`` of unconnected values, which TF's function call turns into zeros (``KNOWN`` "unconnected_none";
where the body calls tf.gradients TF cannot run eagerly, and a TF zero where tapejax says None counts as that,
unverified); where TF's call failed, tapejax is compared with TF eager ("vs TF eagerly"; ``TF_FAULTS``). A call
with a NumPy scalar argument, or after one, is marked in the closing table (TF traces NumPy scalars as Tensors;
tapejax keyed them by value until 22c8b9d, and what followed, retraces and a NumPy scalar reaching
``tape.watch`` or an accumulator inside, grouped there); so is a value where TF's function call and TF eager disagree (beyond None against zeros: TF has
no one answer there, e.g. derivatives near a ForwardAccumulator inside a function).

Not drawn: Python control flow on tensor values (``if x > 0:``): TF's autograph turns it into ``tf.cond``,
tapejax raises ``tapejax.tensor.TracedValueError`` (a TypeError) and API.md says nothing of it;
``input_signature=``, which ``tj.function`` does not take (printed once at the start); Variables created inside.
``KNOWN``: differences API.md makes on purpose; exit status 1 on any other difference. ``--seconds S`` stops after
S seconds (the seeds run are printed).
"""
from __future__ import annotations

import collections
import inspect
import linecache
import os
import re
import sys
import time
import warnings
from types import SimpleNamespace

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.platform import tf_logging  # noqa: E402

import tapejax as tj  # noqa: E402
from result_trees import differ  # noqa: E402
from seed_runs import print_seed_table, seed_parser  # noqa: E402
from tf_differential import ACCEPTED  # noqa: E402
# (TF's and tapejax's warnings logged into LOGS.records: the tape tool's capture)
from tf_tape_protocol_differential import LOGS  # noqa: E402

tnp = tj.numpy
F32, I32 = np.float32, np.int32

NT = collections.namedtuple("NT", "a b")


class Boom(Exception):
    """The Python exception a scenario's function raises: it must come out of both functions as it is."""


# -- the two libraries ---------------------------------------------------------------------------------------

def _custom(lib, sin, cos):
    """The scenarios' custom gradients in ``lib``: cg (grad_fn the true derivative) and cg3 (grad_fn 3 * dy)."""
    @lib.custom_gradient
    def cg(x):
        return sin(x), lambda dy: dy * cos(x)

    @lib.custom_gradient
    def cg3(x):
        return sin(x), lambda dy: dy * 3.0
    return cg, cg3


def _tj_matmul(a, b):
    """``a @ b.T`` with tf.matmul's rank check (tj.numpy.matmul, as jax.numpy's, also takes a vector)."""
    if min(len(getattr(x, "shape", np.shape(x))) for x in (a, b)) < 2:
        raise ValueError(f"Shape must be rank 2 (as tf.matmul), got {np.shape(a)} and {np.shape(b)}")
    return tnp.matmul(a, tnp.transpose(b))


_COMMON = {"mul": lambda a, b: a * b, "add": lambda a, b: a + b, "sub": lambda a, b: a - b,
           "read": lambda v: v.read_value()}
_plain = tf.autograph.experimental.do_not_convert  # (autograph cannot read a lambda's source: it would warn)
TF = SimpleNamespace(
    name="TF", function=tf.function, variable=tf.Variable, constant=tf.constant, tape=tf.GradientTape,
    accumulator=tf.autodiff.ForwardAccumulator, gradients=tf.gradients, tensor=tf.Tensor,
    is_float=lambda x: isinstance(x, tf.Tensor) and x.dtype == tf.float32,
    ops=dict({k: _plain(f) for k, f in _COMMON.items()}, sin=tf.sin, cos=tf.cos, square=tf.square, tanh=tf.tanh,
             neg=tf.negative, reduce_sum=tf.reduce_sum, sum_last=_plain(lambda a: tf.reduce_sum(a, axis=-1)),
             to_float=_plain(lambda a: tf.cast(a, tf.float32)),
             matmul=_plain(lambda a, b: tf.matmul(a, b, transpose_b=True)),
             stop_gradient=tf.stop_gradient, constant=tf.constant, GradientTape=tf.GradientTape,
             ForwardAccumulator=tf.autodiff.ForwardAccumulator, gradients=tf.gradients, function=tf.function,
             **dict(zip(("cg", "cg3"), _custom(tf, tf.sin, tf.cos)))))
TJ = SimpleNamespace(
    name="tj", function=tj.function, variable=tj.Variable, constant=tj.constant, tape=tj.GradientTape,
    accumulator=tj.ForwardAccumulator, gradients=tj.gradients, tensor=tj.Tensor,
    is_float=lambda x: isinstance(x, tj.Tensor) and x.dtype == F32,
    ops=dict(_COMMON, sin=tnp.sin, cos=tnp.cos, square=tnp.square, tanh=tnp.tanh, neg=tnp.negative,
             reduce_sum=tnp.sum, sum_last=lambda a: tnp.sum(a, axis=-1),
             to_float=lambda a: tnp.astype(a, "float32"), matmul=_tj_matmul,
             stop_gradient=tj.stop_gradient, constant=tj.constant, GradientTape=tj.GradientTape,
             ForwardAccumulator=tj.ForwardAccumulator, gradients=tj.gradients, function=tj.function,
             **dict(zip(("cg", "cg3"), _custom(tj, tnp.sin, tnp.cos)))))


# -- scenarios -----------------------------------------------------------------------------------------------

SHAPES = [(), (3,), (2, 3)]
VARS = [("v0", (3,), True), ("v1", (), True), ("v2", (2, 3), True), ("v3", (3,), False)]
CONSTS = [("c0", (2, 3)), ("c1", (3,)), ("c2", ())]
UNARY = ("sin", "cos", "square", "tanh", "neg", "reduce_sum", "sum_last", "stop_gradient")
BINARY = ("mul", "add", "sub", "matmul")


def pick(rng, seq):
    return seq[int(rng.integers(len(seq)))]


def draw(rng, shape, dtype=F32):
    if dtype == I32:
        return np.asarray(rng.integers(-3, 4, size=shape), I32)
    return np.asarray(np.round(rng.normal(size=shape), 2), F32)


def lit(a) -> str:
    """An array as the source's literal (``constant([...])``)."""
    return f"constant({py(a)!r})"


def py(a):
    """An array's values as Python numbers (floats rounded as drawn: 0.26, not 0.25999999046325684)."""
    return np.round(a.astype(np.float64), 4).tolist() if a.dtype.kind == "f" else a.tolist()


class Arg:
    """One argument of a call: ``kind`` tensor (a constant of ``a`` made on each side), numpy (``a`` itself),
    py (a Python value: a number, list, bool, string, None) or var (the Variable named ``a``)."""

    def __init__(self, kind: str, a) -> None:
        self.kind, self.a = kind, a

    def __repr__(self) -> str:
        if self.kind == "tensor":
            return f"{'f' if self.a.dtype == F32 else 'i'}32{list(self.a.shape)}"
        if self.kind == "numpy":
            return f"np.{self.a.dtype.name}({py(self.a)!r})" if self.a.ndim == 0 else \
                f"np.array({py(self.a)!r}, np.{self.a.dtype.name})"
        return self.a if self.kind == "var" else repr(self.a)


def fmt(x) -> str:
    if isinstance(x, NT):
        return f"NT(a={fmt(x.a)}, b={fmt(x.b)})"
    if isinstance(x, list):
        return "[" + ", ".join(map(fmt, x)) + "]"
    if isinstance(x, tuple):
        return "(" + ", ".join(map(fmt, x)) + ("," if len(x) == 1 else "") + ")"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k!r}: {fmt(v)}" for k, v in x.items()) + "}"
    if isinstance(x, np.ndarray):
        values = (x.astype(float).round(4) if x.dtype.kind == "f" else x).tolist() if x.size <= 6 else "..."
        return f"{x.dtype.name}{list(x.shape)} {values}"
    return repr(x)


def leaves(x) -> list:
    if isinstance(x, dict):
        return [y for v in x.values() for y in leaves(v)]
    if isinstance(x, (list, tuple)):
        return [y for v in x for y in leaves(v)]
    return [x]


class Param:
    def __init__(self, name, kind, shape=None, struct=None, default=None, has_default=False, kwonly=False):
        self.name, self.kind, self.shape, self.struct = name, kind, shape, struct
        self.default, self.has_default, self.kwonly = default, has_default, kwonly

    def text(self) -> str:
        return f"{self.name}={self.default!r}" if self.has_default else self.name


class Fn:
    """One function of a scenario: its source lines, parameters, and what a caller may take from its result."""

    def __init__(self, k: int, method: bool) -> None:
        self.k, self.name, self.method = k, f"f{k}", method
        self.params: list = []
        self.lines: list = []
        self.out_path = self.out_shape = None  # (a float tensor leaf of its result: where, of which shape)
        self.always_raises = False
        self.uses: set = set()  # (what it uses, nested calls included: "cg3", "acc"...)


class Body:
    """Draws one function's body: a pool of the values it may use (expression, shape, kind: v a Variable, c a
    constant, p a parameter, t an intermediate, g a gradient) and the lines."""

    def __init__(self, sc: "Scenario", fn: Fn) -> None:
        self.sc, self.rng, self.fn = sc, sc.rng, fn
        self.pool = [(n, s, "v") for n, s, _ in VARS] + [(n, s, "c") for n, s in CONSTS]
        if fn.method:
            self.pool.append(("self.w", (3,), "v"))
        self.extras: list = []  # gradient lists and JVPs: returned, not used
        self.n = 0
        self.lines = fn.lines
        self.ended = False

    def new(self, shape, kind="t") -> str:
        name = f"t{self.n}"
        self.n += 1
        self.pool.append((name, tuple(shape), kind))
        return name

    def ref(self, pred=lambda e: True, prefer_recent=True):
        cands = [e for e in self.pool if pred(e)]
        if not cands:
            return None
        recent = [e for e in cands if e[2] in "tg"][-3:]
        if prefer_recent and recent and self.rng.random() < 0.55:
            return pick(self.rng, recent)
        return pick(self.rng, cands)

    def emit(self, line: str, ind: int = 1) -> None:
        self.lines.append("    " * ind + line)

    # (statements)
    def op(self, ind=1, first=None) -> str:
        rng = self.rng
        a = first or self.ref()
        op = pick(rng, UNARY + BINARY * 2)
        shape = a[1]
        if op in BINARY:
            def fits(s):
                if op == "matmul":
                    return len(s) == 2 and len(shape) == 2 and s[1] == shape[1]
                try:
                    return np.broadcast_shapes(s, shape) is not None
                except ValueError:
                    return False
            if rng.random() < 0.15 and op != "matmul":
                return self._line(f"{op}({a[0]}, {pick(rng, ['2.0', '0.5', '3'])})", shape, ind)
            b = self.ref(lambda e: fits(e[1]))
            if b is None:
                op = "sin"
            else:
                out = (shape[0], b[1][0]) if op == "matmul" else np.broadcast_shapes(shape, b[1])
                return self._line(f"{op}({a[0]}, {b[0]})", out, ind)
        if op == "sum_last" and not shape:
            op = "reduce_sum"
        out = {"reduce_sum": (), "sum_last": shape[:-1]}.get(op, shape)
        return self._line(f"{op}({a[0]})", out, ind)

    def _line(self, expr, shape, ind) -> str:
        name = self.new(shape)
        self.emit(f"{name} = {expr}", ind)
        return name

    def custom(self) -> None:
        which = pick(self.rng, ["cg", "cg3"])
        self.fn.uses.add(which)
        a = self.ref(lambda e: e[2] != "v")
        self._line(f"{which}({a[0]})", a[1], 1)

    def assign(self) -> None:
        rng = self.rng
        v = self.ref(lambda e: e[2] == "v", prefer_recent=False)
        how = pick(rng, ["assign", "assign_add", "assign_sub"])
        r = rng.random()
        if r < 0.06:  # a wrong shape: TF's ValueError at trace time
            value = pick(rng, [f"constant({[0.5] * 4!r})", "c0" if v[1] != (2, 3) else "c1"])
        elif r < 0.45:
            same = [e for e in self.pool if e[1] == v[1] and e[0] != v[0]]
            value = pick(rng, same)[0] if same else lit(draw(rng, v[1]))
        elif r < 0.7:
            value = f"mul({v[0]}, 0.5)"
        else:
            value = lit(draw(rng, v[1]))
        self.emit(f"{v[0]}.{how}({value})")

    def read(self) -> None:
        v = self.ref(lambda e: e[2] == "v", prefer_recent=False)
        self._line(f"read({v[0]})", v[1], 1)

    def tape(self) -> None:
        rng, k = self.rng, self.n
        persistent = bool(rng.random() < 0.4)
        a = self.ref(lambda e: e[2] != "g")
        self.emit(f"with GradientTape(persistent={persistent}) as tp{k}:")
        if a[2] != "v" or rng.random() < 0.3:
            self.emit(f"tp{k}.watch({a[0]})", 2)
        y = self.op(2, first=a)
        if rng.random() < 0.4:
            y = self.op(2, first=self.pool[-1])
        sources = [a[0]] + [self.ref(lambda e: e[2] != "g")[0] for _ in range(int(rng.integers(0, 3)))]
        unc = pick(rng, ["none", "zero"])
        self.emit(f"g{k} = tp{k}.gradient({y}, [{', '.join(sources)}], unconnected_gradients={unc!r})")
        self.extras.append(f"g{k}")
        if unc == "zero":
            self.pool.append((f"g{k}[0]", a[1], "g"))

    def accumulate(self) -> None:
        rng, k = self.rng, self.n
        a = self.ref(lambda e: e[2] != "g")
        self.fn.uses.add("acc")
        self.emit(f"with ForwardAccumulator({a[0]}, {lit(draw(rng, a[1]))}) as ac{k}:")
        y = self.op(2, first=a)
        self.emit(f"j{k} = ac{k}.jvp({y})")
        self.extras.append(f"j{k}")

    def gradients(self) -> None:
        rng, k = self.rng, self.n
        made = [e for e in self.pool if e[2] == "t"]
        if not made:
            self.op()
            made = [e for e in self.pool if e[2] == "t"]
        ys = [pick(rng, made[-3:])] + ([pick(rng, made)] if rng.random() < 0.25 else [])
        xs = [self.ref(lambda e: e[2] != "g") for _ in range(int(rng.integers(1, 4)))]
        ys_text = ys[0][0] if len(ys) == 1 and rng.random() < 0.5 else "[" + ", ".join(y[0] for y in ys) + "]"
        text = f"g{k} = gradients({ys_text}"
        text += f", [{', '.join(x[0] for x in xs)}]"
        if rng.random() < 0.35:
            text += f", grad_ys=[{', '.join(lit(draw(rng, y[1])) for y in ys)}]"
        if rng.random() < 0.3:
            text += f", stop_gradients=[{pick(rng, made)[0]}]"
        unc = pick(rng, ["none", "zero", None])
        if unc is not None:
            text += f", unconnected_gradients={unc!r}"
        self.emit(text + ")")
        self.extras.append(f"g{k}")
        self.n += 1
        if unc == "zero":
            self.pool.append((f"g{k}[0]", xs[0][1], "g"))

    def branch(self, p: Param) -> None:
        a = self.ref()
        name = self.new(a[1])
        self.pool.pop()  # (defined once the branches are emitted)
        self.emit(f"if {p.name}:")
        self.emit(f"{name} = sin({a[0]})", 2)
        self.emit("else:")
        self.emit(f"{name} = square({a[0]})", 2)
        self.pool.append((name, a[1], "t"))

    def mode(self, p: Param) -> None:
        a = self.ref()
        self._line(f"sin({a[0]}) if {p.name} == 'a' else cos({a[0]})", a[1], 1)

    def optional(self, p: Param) -> None:
        a = self.ref(lambda e: e[1] == p.shape)
        if a is not None:
            self._line(f"{a[0]} if {p.name} is None else add({a[0]}, {p.name})", a[1], 1)
        else:
            self._line(f"c2 if {p.name} is None else reduce_sum({p.name})", (), 1)

    def scalar(self, p: Param) -> None:
        a = self.ref()
        self._line(f"mul({a[0]}, {p.name})", a[1], 1)

    def nested(self) -> None:
        rng = self.rng
        g = pick(rng, [f for f in self.sc.fns if not f.method and f.out_path is not None and not f.always_raises])
        args, kws = [], []
        for p in g.params:
            if p.has_default and (p.kwonly or rng.random() < 0.5):
                if rng.random() < 0.5 or p.kind == "d":
                    continue
            if p.kind == "x":
                e = self.ref(lambda e: e[1] == p.shape and e[2] != "v")
                value = e[0] if e else lit(draw(rng, p.shape))
            elif p.kind == "l":
                value = self.ref()[0]
            elif p.kind == "s":
                value = pick(rng, ["2", "0.5"])
            elif p.kind == "b":
                value = "False"
            elif p.kind == "m":
                value = pick(rng, ["'a'", "'b'"])
            elif p.kind == "d":
                value = "None"
            elif p.kind == "n":
                parts = []
                for s in p.struct[1]:
                    e = self.ref(lambda e: e[1] == s and e[2] != "v")
                    parts.append(e[0] if e else lit(draw(rng, s)))
                value = {"list": "[{}, {}]", "tuple": "({}, {})", "dict": "{{'a': {}, 'b': {}}}",
                         "nt": "NT(a={}, b={})"}[p.struct[0]].format(*parts)
            else:  # w: a Variable of shape (3,)
                value = self.ref(lambda e: e[2] == "v" and e[1] == (3,), prefer_recent=False)[0]
            if p.kwonly or kws:
                kws.append(f"{p.name}={value}")
            else:
                args.append(value)
        self.fn.uses |= g.uses
        self._line(f"{g.name}({', '.join(args + kws)}){g.out_path}", g.out_shape, 1)

    def statement(self) -> None:
        rng, fn = self.rng, self.fn
        kinds = {p.kind: p for p in fn.params}
        w = {"op": 4.0, "assign": 1.2, "read": 0.6, "custom": 0.6, "tape": 1.0, "accumulate": 0.6, "gradients": 1.0,
             "nested": 0.8 if any(not f.method and f.out_path is not None and not f.always_raises
                                  for f in self.sc.fns) else 0.0,
             "branch": 0.9 if "b" in kinds else 0.0, "mode": 0.8 if "m" in kinds else 0.0,
             "optional": 0.8 if "d" in kinds else 0.0, "scalar": 1.0 if "s" in kinds else 0.0,
             "shape_error": 0.08}
        names = list(w)
        p = np.array([w[k] for k in names]) / sum(w.values())
        kind = names[int(rng.choice(len(names), p=p))]
        if kind == "op":
            self.op()
        elif kind in ("branch", "mode", "optional", "scalar"):
            getattr(self, kind)(kinds[{"branch": "b", "mode": "m", "optional": "d", "scalar": "s"}[kind]])
        elif kind == "shape_error":
            a = self.ref(lambda e: e[1] in ((3,), (2, 3)))
            if a is not None:
                self._line(f"add({a[0]}, constant([1.0, 2.0, 3.0, 4.0]))", a[1], 1)
        else:
            getattr(self, kind)()

    def finish(self) -> None:
        """The raise (now and then) and the return statement."""
        rng, fn = self.rng, self.fn
        flag = [p for p in fn.params if p.kind == "b"]
        r = rng.random()
        if flag and r < 0.3:
            self.emit(f"if {flag[0].name}:")
            self.emit(f"raise Boom({fn.name!r})", 2)
        elif r < 0.06:
            self.emit(f"raise Boom({fn.name!r})")
            fn.always_raises = True
            return
        # the leaves: values (recent ones first), gradient lists, Python numbers, None, a string, a Variable
        tensors = [e for e in self.pool if e[2] in "tpg"]
        n = int(rng.integers(1, 4))
        items = []
        for _ in range(n):
            r = rng.random()
            if r < 0.55 and tensors:
                items.append(pick(rng, tensors[-4:] if rng.random() < 0.7 else tensors))
            elif r < 0.7 and self.extras:
                items.append((pick(rng, self.extras), None, "x"))
            elif r < 0.8:
                items.append((pick(rng, ["1", "2.5", "True", "-3"]), None, "x"))
            elif r < 0.87:
                items.append(("None", None, "x"))
            elif r < 0.885:
                items.append(("'s'", None, "x"))
            elif r < 0.95:
                items.append(self.ref(lambda e: e[2] == "v", prefer_recent=False))
            else:
                items.append(self.ref(lambda e: e[2] == "c"))
        how = pick(rng, ["single", "tuple", "list", "dict", "nt", "nested", "none"] if n > 1 else
                     ["single"] * 4 + ["tuple", "list", "dict", "none"])
        if how == "nt" and n < 2:
            how = "tuple"
        keys = [str(k) for k in rng.permutation(["z", "a", "m", "b"])[:n]]
        path = lambda i: {"single": "", "tuple": f"[{i}]", "list": f"[{i}]", "dict": f"[{keys[i]!r}]",  # noqa: E731
                          "none": None}[how]
        if how == "single":
            text = items[0][0]
        elif how == "tuple":
            text = "(" + ", ".join(e[0] for e in items) + ("," if n == 1 else "") + ")"
        elif how == "list":
            text = "[" + ", ".join(e[0] for e in items) + "]"
        elif how == "dict":
            text = "{" + ", ".join(f"{k!r}: {e[0]}" for k, e in zip(keys, items)) + "}"
        elif how == "nt":
            items = items[:2]
            text = f"NT(a={items[0][0]}, b={items[1][0]})"
            path = lambda i: f".{'ab'[i]}"  # noqa: E731
        elif how == "nested":
            text = f"{{'out': ({', '.join(e[0] for e in items[:-1])},), 'last': [{items[-1][0]}]}}"
            path = lambda i: f"['out'][{i}]" if i < len(items) - 1 else "['last'][0]"  # noqa: E731
        else:
            text = None
        if text is None:
            if rng.random() < 0.5:
                self.emit("return None")
        else:
            self.emit(f"return {text}")
            for i, e in enumerate(items):
                if e[2] in "tpcv":
                    fn.out_path, fn.out_shape = path(i), e[1]
                    break


class Action:
    def __init__(self, kind: str, text: str, **kw) -> None:
        self.kind, self.text, self.kw = kind, text, kw

    def __repr__(self) -> str:
        return self.text


CTX_TEXT = {"plain": "", "tape": "  under a GradientTape", "tape2": "  under two nested GradientTapes (2nd order)",
            "acc": "  under a ForwardAccumulator"}


class Scenario:
    """The functions and actions of ``seed``; its repr is the source both sides execute and the actions."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        rng = self.rng = np.random.default_rng(seed)
        self.consts = {n: draw(rng, s) for n, s in CONSTS}
        self.var_init = {n: draw(rng, s) for n, s, _ in VARS}
        self.closure = bool(rng.random() < 0.5)
        self.fns: list = []
        for k in range(1 if rng.random() < 0.45 else 2 if rng.random() < 0.8 else 3):
            self._function(k, method=bool(rng.random() < 0.2))
        self.source = self._source()
        self.actions: list = []
        self.np_scalar = False  # (whether a call so far passed a NumPy scalar)
        for _ in range(int(rng.integers(3, 11))):
            if rng.random() < 0.05:
                self.actions.append(Action("outside", "gradients(mul(c0, 2.0), [c0])  (eagerly)"))
            else:
                self._call(pick(rng, self.fns))

    def __repr__(self) -> str:
        init = ", ".join(f"{n}={fmt(self.var_init[n])}" for n, *_ in VARS)
        consts = ", ".join(f"{n}={fmt(a)}" for n, a in self.consts.items())
        return (f"Scenario({self.seed}):  (Variables {init}; v3 trainable=False; constants {consts})\n" +
                "\n".join("      | " + line for line in self.source.splitlines()) + "\n" +
                "\n".join(f"      {i}. {a}" for i, a in enumerate(self.actions)))

    def _function(self, k: int, method: bool) -> None:
        rng = self.rng
        fn = Fn(k, method)
        kinds = ["x", "l", "s", "b", "m", "d", "n", "w"]
        weights = np.array([5, 1.2, 1.2, 1, 0.6, 0.8, 1.2, 1.0])
        required, optional = [], []
        for i in range(int(rng.integers(1, 4))):
            kind = kinds[int(rng.choice(len(kinds), p=weights / weights.sum()))]
            name = {"x": "x", "l": "l", "s": "s", "b": "flag", "m": "mode", "d": "d", "n": "n", "w": "w"}[kind] + str(i)
            p = Param(name, kind)
            if kind in ("x", "d"):
                p.shape = pick(rng, SHAPES)
            if kind == "n":
                p.struct = (pick(rng, ["list", "tuple", "dict", "nt"]), [pick(rng, SHAPES), pick(rng, SHAPES)])
            if kind == "d" or (kind in ("s", "b", "m") and rng.random() < 0.5):
                p.has_default = True
                p.default = {"d": None, "s": pick(rng, [2, 1.5]), "b": False, "m": "a"}[kind]
            (optional if p.has_default else required).append(p)
        if optional and rng.random() < 0.25:
            for p in optional:
                p.kwonly = True
        fn.params = required + optional
        self.fns.append(fn)
        body = Body(self, fn)
        for p in fn.params:  # (the pool: parameters' tensors; loose ones reduced to a scalar first)
            if p.kind == "x":
                body.pool.append((p.name, p.shape, "p"))
            elif p.kind == "n":
                keys = {"list": "[0]|[1]", "tuple": "[0]|[1]", "dict": "['a']|['b']", "nt": ".a|.b"}[p.struct[0]]
                for key, s in zip(keys.split("|"), p.struct[1]):
                    body.pool.append((p.name + key, s, "p"))
            elif p.kind == "w":
                body.pool.append((p.name, (3,), "v"))
        body.emit(f"TRACES[{fn.name!r}] += 1")
        for p in fn.params:
            if p.kind == "l":
                body._line(f"reduce_sum(square(to_float({p.name})))", (), 1)
        for _ in range(int(rng.integers(2, 7))):
            body.statement()
        body.finish()

    def _source(self) -> str:
        out = []
        for fn in self.fns:
            params = [p.text() for p in fn.params if not p.kwonly]
            if any(p.kwonly for p in fn.params):
                params += ["*"] + [p.text() for p in fn.params if p.kwonly]
            if fn.method:
                out += [f"class M{fn.k}:", "    def __init__(self, w):", "        self.w = w", "",
                        f"    def {fn.name}({', '.join(['self'] + params)}):"]
                out += ["    " + line for line in fn.lines]
                out += [f"    {fn.name} = function({fn.name})", "",
                        f"m{fn.k}a, m{fn.k}b = M{fn.k}(v0), M{fn.k}(v3)"]
            else:
                out += [f"def {fn.name}({', '.join(params)}):"] + fn.lines + [f"{fn.name} = function({fn.name})"]
            out.append("")
        names = [n for fn in self.fns for n in ([f"m{fn.k}a", f"m{fn.k}b"] if fn.method else [fn.name])]
        if self.closure:
            out = [f"def scope({', '.join(n for n, *_ in VARS + CONSTS)}):"] + \
                ["    " + line if line else "" for line in out] + \
                [f"    return dict({', '.join(f'{n}={n}' for n in names)})"]
        return "\n".join(out) + "\n"

    def _arg(self, p: Param, wrong_ok=True):
        rng = self.rng
        if p.kind == "x":
            r = rng.random()
            shape = p.shape
            if r < 0.07 and wrong_ok:
                shape = pick(rng, [s for s in SHAPES if s != p.shape])
            a = draw(rng, shape)
            if 0.07 <= r < 0.22:
                return Arg("numpy", a[()] if a.ndim == 0 and rng.random() < 0.5 else a)
            if 0.22 <= r < 0.3:
                return Arg("py", py(a))
            return Arg("tensor", a)
        if p.kind == "l":
            a = draw(rng, pick(rng, SHAPES), F32 if rng.random() < 0.75 else I32)
            return Arg("numpy", a) if rng.random() < 0.2 else Arg("tensor", a)
        if p.kind == "s":
            r = rng.random()
            if r < 0.1:
                return Arg("tensor", draw(rng, ()))
            if r < 0.15:
                return Arg("numpy", draw(rng, ())[()])
            return Arg("py", pick(rng, [1, 2, 2.0, 0.5, 3]))
        if p.kind == "b":
            return Arg("py", bool(rng.random() < 0.4))
        if p.kind == "m":
            return Arg("py", pick(rng, ["a", "b"]))
        if p.kind == "d":
            return Arg("py", None) if rng.random() < 0.4 else Arg("tensor", draw(rng, p.shape))
        if p.kind == "n":
            elems = [Arg("numpy", draw(rng, s)) if rng.random() < 0.15 else Arg("tensor", draw(rng, s))
                     for s in p.struct[1]]
            return {"list": list, "tuple": tuple, "dict": lambda e: {"a": e[0], "b": e[1]},
                    "nt": lambda e: NT(*e)}[p.struct[0]](elems)
        r = rng.random()
        return Arg("var", "v0" if r < 0.55 else "v3" if r < 0.85 else "v1" if r < 0.95 else "v2")

    def _call(self, fn: Fn) -> None:
        rng = self.rng
        args, kwargs, keyword = [], {}, False
        for p in fn.params:
            if p.has_default:
                r = rng.random()
                if r < 0.4:
                    keyword = True  # (omitted: later ones by keyword)
                    continue
                if p.kwonly or keyword or r < 0.7:
                    kwargs[p.name] = self._arg(p)
                    keyword = True
                else:
                    args.append(self._arg(p))
            elif keyword or rng.random() < 0.12:
                kwargs[p.name] = self._arg(p)
                keyword = True
            else:
                args.append(self._arg(p))
        wrong = rng.random() < 0.04
        if wrong:
            if args and rng.random() < 0.5:
                args.pop(0)
            else:
                args.append(Arg("tensor", draw(rng, (3,))))
        ctx = pick(rng, ["plain"] * 10 + ["tape"] * 5 + ["tape2"] * 2 + ["acc"] * 3)
        target = pick(rng, [f"m{fn.k}a", f"m{fn.k}b"]) + f".{fn.name}" if fn.method else fn.name
        tangents = {}
        if ctx == "acc":  # one per possible primal: the Tensor arguments, the constants, v0-v2
            for i, a in enumerate(leaves((args, kwargs))):
                if isinstance(a, Arg) and a.kind == "tensor" and a.a.dtype == F32:
                    tangents[i] = draw(rng, a.a.shape)
            for n, s in CONSTS + [(n, s) for n, s, t in VARS if t]:
                tangents[n] = draw(rng, s)
        if any(isinstance(x, Arg) and isinstance(x.a, np.generic) for x in leaves((args, kwargs))):
            self.np_scalar = True  # (TF traces it as a Tensor, tapejax by value: see the closing table)
        text = f"{target}({', '.join([fmt(a) for a in args] + [f'{k}={fmt(v)}' for k, v in kwargs.items()])})"
        self.actions.append(Action("call", text + CTX_TEXT[ctx], fn=fn, target=target, args=args, kwargs=kwargs,
                                   ctx=ctx, tangents=tangents, wrong=wrong,
                                   np_scalar=self.np_scalar))


# -- running a scenario on one side --------------------------------------------------------------------------

class Side:
    """A scenario's twin objects on one library: Variables, constants, and the functions its source defines."""

    def __init__(self, lib, sc: Scenario, eager: bool = False) -> None:
        self.lib, self.sc, self.eager = lib, sc, eager
        self.vars = {n: lib.variable(sc.var_init[n], name=n, trainable=t) for n, _, t in VARS}
        self.consts = {n: lib.constant(a) for n, a in sc.consts.items()}
        self.traces = collections.Counter()
        ns = dict(lib.ops, NT=NT, Boom=Boom, TRACES=self.traces)
        # (a file name of its own: autograph reads the source through linecache, and each scenario's functions
        # are new code objects, so the retracing statistics, kept per code object, are its own)
        filename = f"<tf_function_differential seed {sc.seed} {lib.name}>"
        linecache.cache[filename] = (len(sc.source), None, sc.source.splitlines(True), filename)
        if not sc.closure:
            ns.update(self.vars)
            ns.update(self.consts)
        if eager and lib is TF:
            ns["function"] = _ReadingFunction.of
        exec(compile(sc.source, filename, "exec"), ns)  # noqa: S102
        self.objs = ns["scope"](**self.vars, **self.consts) if sc.closure else ns

    def target(self, name: str):
        obj, *rest = name.split(".")
        obj = self.objs[obj]
        for r in rest:
            obj = getattr(obj, r)
        return obj

    def arg(self, a, made: list):
        if isinstance(a, Arg):
            if a.kind == "tensor":
                t = self.lib.constant(a.a)
                made.append(t)
                return t
            if a.kind == "var":
                made.append(None)
                return self.vars[a.a]
            made.append(None)
            return a.a
        if isinstance(a, NT):
            return NT(*[self.arg(x, made) for x in a])
        if isinstance(a, (list, tuple)):
            return type(a)(self.arg(x, made) for x in a)
        if isinstance(a, dict):
            return {k: self.arg(v, made) for k, v in a.items()}
        return a

    def act(self, a: Action, out: "Outcome") -> None:
        """Run ``a``, filling ``out``'s parts; an exception propagates with ``out.stage`` saying where."""
        lib = self.lib
        if a.kind == "outside":
            out.stage = "gradients"
            lib.gradients(self.consts["c0"] * 2.0, [self.consts["c0"]])
            return
        kw = a.kw
        made: list = []
        args = [self.arg(x, made) for x in kw["args"]]
        kwargs = {k: self.arg(v, made) for k, v in kw["kwargs"].items()}
        f = self.target(kw["target"])
        before, count = dict(self.traces), f.experimental_get_tracing_count()
        tensors = [t for t in made if t is not None and lib.is_float(t)]
        watched = tensors + list(self.consts.values())
        sources = watched + list(self.vars.values())
        out.sources = len(tensors)
        try:
            out.stage = "call"
            if kw["ctx"] == "plain":
                result = f(*args, **kwargs)
            elif kw["ctx"] == "tape":
                with lib.tape(persistent=True) as t1:
                    t1.watch(watched)
                    result = f(*args, **kwargs)
                    targets = self.float_leaves(result)
                out.parts["out"] = tree(result)
                out.stage = "gradient"
                out.parts["gradient"] = tree(t1.gradient(targets, sources))
            elif kw["ctx"] == "tape2":
                with lib.tape(persistent=True) as t2:
                    t2.watch(watched)
                    with lib.tape(persistent=True) as t1:
                        t1.watch(watched)
                        result = f(*args, **kwargs)
                        targets = self.float_leaves(result)
                    out.parts["out"] = tree(result)
                    out.stage = "gradient"
                    g = t1.gradient(targets, sources)
                    out.parts["gradient"] = tree(g)
                out.stage = "2nd order"
                out.parts["2nd order"] = tree(t2.gradient([x for x in g if x is not None], sources))
            else:
                primals, tangents = [], []
                for i, t in enumerate(made):
                    if i in kw["tangents"] and t is not None:
                        primals.append(t)
                        tangents.append(lib.constant(kw["tangents"][i]))
                for n, x in list(self.consts.items()) + list(self.vars.items()):
                    if n in kw["tangents"]:
                        primals.append(x)
                        tangents.append(lib.constant(kw["tangents"][n]))
                with lib.accumulator(primals, tangents) as acc:
                    result = f(*args, **kwargs)
                    targets = self.float_leaves(result)
                out.parts["out"] = tree(result)
                out.stage = "jvp"
                out.parts["jvp"] = tree(acc.jvp(targets))
            out.parts["out"] = tree(result)
        finally:
            out.parts["traces"] = {k: v - before.get(k, 0) for k, v in sorted(self.traces.items())
                                   if v != before.get(k, 0)}
            out.parts["count"] = f.experimental_get_tracing_count() - count
            out.parts["vars"] = {n: np.asarray(v.numpy()) for n, v in self.vars.items()}

    def float_leaves(self, result) -> list:
        """The float32 tensors of a result: the targets of the outer gradient and JVP. Run eagerly (the TF reference)
        a function returns Variables, Python floats and NumPy arrays as they are, where tf.function returns their
        read and constants: those first (within the outer tape or accumulator)."""
        if self.eager:
            result = [tf.identity(x) if isinstance(x, tf.Variable) else
                      tf.constant(x, tf.float32) if isinstance(x, (float, np.floating)) or
                      isinstance(x, np.ndarray) and x.dtype == F32 else x for x in leaves(result)]
        return [x for x in leaves(result) if self.lib.is_float(x)]


def tree(x):
    """A result as NumPy arrays in its structure (lists, tuples, namedtuples, dicts, None, Python values kept;
    a Variable as ("Variable", its value); a TF string tensor as its bytes)."""
    if isinstance(x, NT):
        return NT(*[tree(e) for e in x])
    if isinstance(x, (list, tuple)):
        return type(x)(tree(e) for e in x)
    if isinstance(x, dict):
        return {k: tree(v) for k, v in x.items()}
    if isinstance(x, (tf.Variable, tj.Variable)):
        return "Variable", np.asarray(x.numpy())
    if isinstance(x, tf.Tensor) and x.dtype == tf.string:
        return x.numpy()
    if isinstance(x, (tf.Tensor, tj.Tensor)):
        return np.asarray(x)
    return x


class Outcome:
    def __init__(self) -> None:
        self.parts: dict = {}
        self.raised = None
        self.stage = None
        self.warned: list = []
        self.sources = 0

    def __repr__(self) -> str:
        what = [f"raised {type(self.raised).__name__} ({self.stage}): {_line(self.raised)}"] if self.raised else []
        what += [f"{k}={fmt(v)}" for k, v in self.parts.items() if k != "vars"]
        if self.warned:
            what.append(f"[warned: {'; '.join(w[:90] for w in self.warned)}]")
        return "; ".join(what)


def _line(e) -> str:
    """An exception's message in one line (TF's graph errors: the last line, after its "in user code:" trace)."""
    lines = [x.strip() for x in str(e).strip().splitlines() if x.strip()] or [""]
    return (lines[-1] if lines[0].startswith("in user code") else lines[0])[:200]


def run_action(side: Side, a: Action) -> Outcome:
    out = Outcome()
    LOGS.records.clear()
    tf_logging._log_counter_per_token.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            side.act(a, out)
        except Exception as e:  # noqa: BLE001
            out.raised = e
    out.warned = [str(w.message) for w in caught if issubclass(w.category, UserWarning)] + \
        [r.getMessage() for r in LOGS.records]
    return out


# -- comparing -----------------------------------------------------------------------------------------------

def problems_of(tf_out: Outcome, tj_out: Outcome) -> list:
    out = []
    e, f = tf_out.raised, tj_out.raised
    if e is not None or f is not None:
        if e is None or f is None:
            out.append(f"raised: TF {type(e).__name__ if e else 'nothing'}"
                       f"{f' ({tf_out.stage})' if e else ''}, tj {type(f).__name__ if f else 'nothing'}"
                       f"{f' ({tj_out.stage})' if f else ''}")
        elif tf_out.stage != tj_out.stage:
            out.append(f"raised: TF {type(e).__name__} ({tf_out.stage}), tj {type(f).__name__} ({tj_out.stage})")
        elif type(f).__module__.startswith("jax") or not isinstance(
                f, ACCEPTED.get(type(e).__name__, ()) if isinstance(e, tf.errors.OpError) else type(e)):
            out.append(f"raised: TF {type(e).__name__}, tj {type(f).__name__} ({tj_out.stage})")
    for part in tf_out.parts:
        if part not in tj_out.parts or (d := differ(tj_out.parts[part], tf_out.parts[part])) is None:
            continue
        if part in ("traces", "count"):  # (which side ran the Python body / counted a trace more often)
            n_tf, n_tj = (sum(o.parts["traces"].values()) if part == "traces" else o.parts["count"]
                          for o in (tf_out, tj_out))
            what = "ran the Python body" if part == "traces" else "counted a trace"
            d = f"tj {what} where TF did not" if n_tj > n_tf else f"TF {what} where tj did not" if n_tf > n_tj \
                else f"another function's body ran ({d})"
        out.append(f"{part}: {d}")
    if bool(tf_out.warned) != bool(tj_out.warned):
        out.append(f"warned: TF {bool(tf_out.warned)}, tj {bool(tj_out.warned)}")
    return out


# Differences API.md makes on purpose: name -> why; known() says which one an action's problem is
KNOWN = {
    "tangent_check": "API.md, Errors users get: \"tangents whose shape or dtype differ from their primals "
                     "(`ValueError`)\" "
                     "(tapejax checks when the ForwardAccumulator is made; TF only where an op uses the tangent)",
    "grad_ys_shape": "API.md, tape.gradient and Errors users get: \"`output_gradients` of the wrong shape or count "
                     "(`ValueError` naming both shapes)\", which tapejax applies to tj.gradients' grad_ys too (as "
                     "tools/tf_gradients_differential.py's KNOWN_GRAD_YS_SHAPE); TF checks no shape (here: a "
                     "Variable argument of another shape than the body was drawn for)",
    "custom_gradient_forward": "API.md, tj.custom_gradient: \"Forward mode honours the custom gradient: the tangent is "
                               "the transpose of grad_fn (... where TF eager, which differentiates the visible forward "
                               "ops, gives NaN)\": cg3's JVP is 3 * tangent in tapejax and in TF's function call, "
                               "cos(x) * tangent in TF eager (compared with TF eager where TF's call failed)",
    "string_output": "tapejax has no string dtype (JAX has none): a Python string a function returns is returned "
                     "as it is (graph/function.py's _output_tensor), where TF returns a string Tensor (bytes)",
    "string_input": "tapejax has no string dtype (JAX has none): a Python string argument the body converts to a "
                    "tensor raises tapejax's ConversionError when the call traces; TF traces a string tensor and "
                    "fails when the program runs (UnimplementedError: Cast string to float), having counted that trace",
    "unconnected_none": "API.md, One set of rules on every path: derivatives are the same \"by an outer tape or "
                        "accumulator over a tj.function call\" as eagerly, and that holds for \"TF's `None` for "
                        "unconnected values\"; TF's function call gives zeros where TF eager (run_functions_eagerly, "
                        "the reference here) gives None, tapejax gives TF eager's None",
    "int_promotion": "API.md, tj.numpy: 'Mirrors `jax.numpy`': an integer argument of a float function (sin of "
                     "an int32 a nested call returned) is promoted to float, a float times an int is a float and a "
                     "bool times an int an int, as jax.numpy; TF raises TypeError (\"DataType int32 not in list of "
                     "allowed values\", bool for Mul; \"has type int32 that does not match type float32\")",
    "tangent_connected": "API.md, One set of rules on every path (TF's `None` for unconnected values): TF computes "
                         "an accumulator's tangent by running the op's gradient function on ones and transposing "
                         "it (tape.h, ForwardpropFromTape), so what outer tapes and accumulators see connected "
                         "depends on the ops inside TF's gradient functions. tapejax follows TF one level deep (a "
                         "tape over acc.jvp(3 * x): zeros, the constant's zero tangent times x, "
                         "tests/test_second_order_connections.py) and gives None beyond: TF gives zeros for a tape "
                         "over a tape over acc.jvp(0.5 * x) and for an accumulator over acc.jvp(z + 5)",
}
# TF's own failures (an internal error of TF's graph mode): tapejax is compared with TF run eagerly instead
TF_FAULTS = {
    "tf_internal": "TF's function call fails inside TF (tf_fault(): mostly a ForwardAccumulator over a call "
                   "that uses Variables, \"Internal error: Tried to take gradients (or similar) of a variable without "
                   "handle data\"; tf.gradients of a Variable, \"Tensor.op is undefined\"): tapejax is compared "
                   "with TF run eagerly "
                   "(tf.config.run_functions_eagerly; differences printed as \"vs TF eagerly\"), or not at all "
                   "where the body calls tf.gradients, which TF cannot run eagerly",
}
VALUE_PARTS = ("out", "gradient", "2nd order", "jvp")


def tf_fault(e) -> bool:
    """Whether TF's exception ``e`` is TF failing inside itself, not a user's error: an AttributeError or
    SystemError from TF's internals ("'NoneType' object has no attribute '_id'", "Tensor.op is undefined when eager
    execution is enabled" for tf.gradients of a Variable, "ConcreteFunction.outputs returned a result with an
    exception set"), "Internal error: Tried to take gradients (or similar) of a variable without handle data",
    a TypeError about the TraceType of a NodeDef (a nested call under an accumulator), an IndexError at a nested
    call's line under an accumulator (seed 2329: the generated bodies index only g[0] of a gradients list, never empty)."""
    text = str(e)
    return isinstance(e, (AttributeError, SystemError)) or isinstance(e, ValueError) and "Internal error" in text or \
        "returned a result with an exception set" in text or \
        type(e).__name__ == "StagingError" and "IndexError: list index out of range" in text or \
        isinstance(e, TypeError) and "TraceType" in text and "attr {" in text


def none_as_zeros(fn, eager) -> bool:
    """Whether TF's function-call result tree ``fn`` is TF eager's ``eager`` with zeros where eager has None."""
    if eager is None and isinstance(fn, np.ndarray):
        return fn.dtype.kind == "f" and not np.any(fn)
    if isinstance(eager, (list, tuple)) and isinstance(fn, (list, tuple)) and len(fn) == len(eager):
        return all(none_as_zeros(x, y) for x, y in zip(fn, eager))
    if isinstance(eager, dict) and isinstance(fn, dict) and list(fn) == list(eager):
        return all(none_as_zeros(fn[k], eager[k]) for k in eager)
    return differ(fn, eager) is None


class _ReadingFunction:
    """A tf.function whose returned Variables are their values, read as it returns, for TF run eagerly: a graph
    function's outputs are tensors, where run_functions_eagerly hands the Variable itself back, so a nested call's
    Variable assigned afterwards by its caller read as the later value (seed 3009)."""

    def __init__(self, fn) -> None:
        self._fn = fn

    @classmethod
    def of(cls, fn=None, **kw):
        return (lambda f: cls(tf.function(f, **kw))) if fn is None else cls(tf.function(fn, **kw))

    def __call__(self, *args, **kwargs):
        return tf.nest.map_structure(lambda x: x.read_value() if isinstance(x, tf.Variable) else x,
                                     self._fn(*args, **kwargs))

    def __get__(self, obj, objtype=None):  # (a method: tf.function's own binding)
        return self if obj is None else _ReadingFunction(self._fn.__get__(obj, objtype))

    def __getattr__(self, name):  # (experimental_get_tracing_count and the rest)
        return getattr(self._fn, name)


def eager_reference(sc: Scenario, a: Action, snapshot: dict) -> "Outcome":
    """Action ``a`` run on a new TF side with every tf.function run eagerly, from the Variables' values
    ``snapshot`` (TF's before the action)."""
    side = Side(TF, sc, eager=True)
    for n, v in side.vars.items():
        v.assign(snapshot[n])
    tf.config.run_functions_eagerly(True)
    try:
        out = run_action(side, a)
    finally:
        tf.config.run_functions_eagerly(False)
    if "out" in out.parts:
        out.parts["out"] = as_returned(out.parts["out"])
    return out


def as_returned(x):
    """TF eager's result tree as a tf.function returns it: Variables as their values, Python numbers and strings
    as tensors (their NumPy arrays, strings as bytes)."""
    if isinstance(x, NT):
        return NT(*[as_returned(e) for e in x])
    if isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], str) and x[0] == "Variable":
        return x[1]
    if isinstance(x, (list, tuple)):
        return type(x)(as_returned(e) for e in x)
    if isinstance(x, dict):
        return {k: as_returned(v) for k, v in x.items()}
    if isinstance(x, (bool, int, float)):
        return np.asarray(tf.constant(x))
    if isinstance(x, np.generic):
        return np.asarray(x)
    return x.encode() if isinstance(x, str) else x


def eager_blocked(eager) -> bool:
    """Whether TF could not run the action eagerly: the body calls tf.gradients (graph mode only), TF fails
    inside itself there too, or an accumulator or tape there would watch a NumPy argument."""
    return eager is not None and (isinstance(eager.raised, RuntimeError) and
                                  "tf.gradients is not supported" in str(eager.raised) or tf_fault(eager.raised) or
                                  # (TF eager cannot watch the NumPy array a traced call made a Tensor of)
                                  isinstance(eager.raised, ValueError) and "not tf.Tensor or tf.Variable" in
                                  str(eager.raised))


def known(a: Action, problem: str, tf_out: "Outcome", tj_out: "Outcome", eager) -> str | None:
    """The KNOWN (or TF_FAULTS) name explaining ``problem`` of action ``a``, or None; ``eager``: TF's outcome
    run eagerly (None where not needed). Where the body calls tf.gradients TF cannot run it eagerly: then a
    JVP or gradient that TF's function call gives as zeros and tapejax as None counts as "unconnected_none",
    unverified (the printed TF eager outcome says so)."""
    # (TF may also check the shapes only when the traced graph runs: it raises InvalidArgumentError then, having
    # finished and counted the trace that tapejax's check ended: seed 7821; or while tracing, where an op's
    # gradient function meets the tangent, a ValueError for which TF counts the failed trace: seed 12858; or TF,
    # having passed the unchecked tangent on, reaches the body's own Boom: seed 13161)
    if a.kind == "call" and isinstance(tj_out.raised, ValueError) and "tangent of shape" in str(tj_out.raised) and (
            problem.startswith("raised") and (tf_out.raised is None or type(tf_out.raised).__name__ == "Boom")
            or problem.startswith("count: TF counted a trace")
            and (isinstance(tf_out.raised, tf.errors.InvalidArgumentError) or isinstance(tf_out.raised, ValueError)
                 and "Incompatible shapes" in str(tf_out.raised))):
        return "tangent_check"
    # (the same against TF run eagerly, where TF's call failed inside TF; the Variables the call would have
    # assigned after the accumulator follow from it: seed 2621)
    if a.kind == "call" and problem.startswith(("vs TF eagerly: raised", "vs TF eagerly: vars")) and \
            eager is not None and eager.raised is None and isinstance(tj_out.raised, ValueError) and \
            "tangent of shape" in str(tj_out.raised):
        return "tangent_check"
    # (TF may also go on to the body's own Boom, raised after the gradients call: seed 6836; or, having passed the
    # unchecked grad_ys on, fail later in the body with an error of its own: seed 7452, TypeError "can't multiply
    # sequence by non-int of type 'list'")
    if a.kind == "call" and problem.startswith("raised") and \
            (tf_out.raised is None or type(tf_out.raised).__name__ == "Boom" or
             isinstance(tf_out.raised, (TypeError, ValueError, tf.errors.InvalidArgumentError))) and \
            isinstance(tj_out.raised, ValueError) and \
            re.search(r"grad_ys (entry )?of shape", str(tj_out.raised)):
        return "grad_ys_shape"
    if problem.startswith("vs TF eagerly: jvp") and "cg3" in a.kw["fn"].uses:
        return "custom_gradient_forward"
    if re.search(r"(^|: )out: (\[\S+\] )*str vs bytes", problem):
        return "string_output"
    # (tapejax, having promoted, may go on to refuse a tangent drawn for another shape, as tangent_check: seed 9363,
    # a bool a nested call returned times 2, then an accumulator on it)
    # (or two operands of different dtypes, a float32 times the int32 a nested call returned: TF's "has type int32
    # that does not match type float32", where jax.numpy promotes: seed 17747)
    if problem.startswith("raised") and isinstance(tf_out.raised, TypeError) and \
            re.search(r"not in list of allowed values|has type \w+ that does not match type", str(tf_out.raised)) and \
            (tj_out.raised is None or (isinstance(tj_out.raised, ValueError) and "tangent of shape" in str(tj_out.raised))):
        return "int_promotion"
    if problem.startswith(("raised", "count: TF counted a trace")) and tf_out.raised is not None and \
            type(tj_out.raised).__name__ == "ConversionError" and \
            ("is a str" in str(tj_out.raised) or "holds text" in str(tj_out.raised)):  # (an op's, tj.constant's)
        return "string_input"  # (the trace TF finished, and counted, raised in tapejax)
    vs_eager = problem.startswith("vs TF eagerly: ")
    part = problem.removeprefix("vs TF eagerly: ").split(":")[0]
    tf_side = eager if vs_eager else tf_out
    if part in VALUE_PARTS and "acc" in a.kw["fn"].uses and part in tj_out.parts and tf_side is not None and \
            part in tf_side.parts and none_as_zeros(tf_side.parts[part], tj_out.parts[part]):
        return "tangent_connected"
    if eager is None:
        return None
    ok = eager.raised is None
    if part in VALUE_PARTS and part in tj_out.parts and part in tf_out.parts and \
            none_as_zeros(tf_out.parts[part], tj_out.parts[part]) and \
            (eager_blocked(eager) or
             ok and part in eager.parts and (differ(tj_out.parts[part], eager.parts[part]) is None or
                                             # (cg3's JVP differs from TF eager's: custom_gradient_forward)
                                             part == "jvp" and "cg3" in a.kw["fn"].uses and
                                             same_nones(tj_out.parts[part], eager.parts[part]))):
        return "unconnected_none"
    return None


def same_nones(tj_tree, eager) -> bool:
    """Whether the result trees ``tj_tree`` and ``eager`` have the same structure and None at the same places
    (seed 1887: TF's call gives zeros for a returned Variable's tangent, eager and tapejax None, while a cg3
    result beside it is custom_gradient_forward's known difference)."""
    if tj_tree is None or eager is None:
        return tj_tree is None and eager is None
    if isinstance(tj_tree, (list, tuple)) and isinstance(eager, (list, tuple)):
        return len(tj_tree) == len(eager) and all(same_nones(x, y) for x, y in zip(tj_tree, eager))
    if isinstance(tj_tree, dict) and isinstance(eager, dict):
        return list(tj_tree) == list(eager) and all(same_nones(tj_tree[k], eager[k]) for k in eager)
    return not isinstance(tj_tree, (list, tuple, dict)) and not isinstance(eager, (list, tuple, dict))


def check(seed: int):
    """("ok" | "mismatch" | "known" | "tf-fault", scenario, [(index, action, TF outcome, tj outcome, TF eager
    outcome or None, problems)]) of ``seed``; each problem is (text, label): None for a mismatch, a KNOWN or
    TF_FAULTS name, or "after #i" (a trace count or retracing warning of a function whose trace count already
    differed in action i)."""
    sc = Scenario(seed)
    sides = Side(TF, sc), Side(TJ, sc)
    rows, kind, traced_apart = [], "ok", {}  # (function name -> the action where its traces first differed)
    for i, a in enumerate(sc.actions):
        snapshot = {n: v.numpy() for n, v in sides[0].vars.items()}
        tf_out, tj_out = run_action(sides[0], a), run_action(sides[1], a)
        found = problems_of(tf_out, tj_out)
        eager = None
        if a.kind == "call" and (tf_fault(tf_out.raised) or any(p.split(":")[0] in VALUE_PARTS for p in found)):
            eager = eager_reference(sc, a, snapshot)
        problems = []
        if tf_fault(tf_out.raised) and eager is not None and not eager_blocked(eager):
            # (TF failed inside itself: tapejax against TF run eagerly, which returned or raised a user's error, as
            # seed 15586's None multiplied under an accumulator; the failure's own consequences are TF's)
            found = [p for p in found if not p.startswith(("raised", "vars"))]
            problems = [(f"raised: TF {type(tf_out.raised).__name__} (its fault), tj "
                         f"{type(tj_out.raised).__name__ if tj_out.raised else 'nothing'}", "tf_internal")]
            for p in problems_of(eager, tj_out):
                if p.startswith(("raised", "vars")) or p.split(":")[0] in VALUE_PARTS:
                    p = f"vs TF eagerly: {p}"
                    problems.append((p, known(a, p, tf_out, tj_out, eager)))
            found = [p for p in found if not p.split(":")[0] in VALUE_PARTS]
        elif tf_fault(tf_out.raised) and eager_blocked(eager):
            problems = [(p, "tf_internal") for p in found]
            found = []
        # (a call that raised on one side only: its trace count and the retracing statistics, kept over calls that
        # returned, differ from then on; they follow from it, as later ones follow from a trace-count difference)
        names = set(tf_out.parts["traces"]) | set(tj_out.parts["traces"]) | {a.kw["fn"].name} \
            if a.kind == "call" else set()
        # (where TF failed inside itself, also where TF eager's raise differs: seed 2621, tapejax's trace stopped
        # by a tangent check TF makes later, TF's trace counted before TF's own failure)
        eager_apart = tf_fault(tf_out.raised) and eager is not None and \
            (eager.raised is None) != (tj_out.raised is None)
        if (tf_out.raised is None) != (tj_out.raised is None) or eager_apart:
            for n in names:
                traced_apart.setdefault(n, i)
        for p in found:
            label = known(a, p, tf_out, tj_out, eager)
            if label is None and a.kind == "call" and p.startswith(("traces", "count", "warned")) and \
                    (not p.startswith("warned") or any("retracing" in w for w in tf_out.warned + tj_out.warned)):
                apart = [traced_apart[n] for n in names if n in traced_apart]
                label = f"after #{min(apart)}" if apart else None
            if label is None and p.startswith("vars") and (tf_out.raised is None) != (tj_out.raised is None):
                # (one side raised, so its assignments were not written back): as the raise is labelled
                label = next((k for q, k in problems if q.startswith("raised")), None) or f"after #{i}"
            problems.append((p, label))
        if any(p.startswith(("traces", "count")) for p, _ in problems):
            for n in names:
                traced_apart.setdefault(n, i)
        if "vars" in tf_out.parts:  # (tapejax's Variables take TF's values: a difference does not carry on)
            reference = tf_out
            if tf_fault(tf_out.raised):  # (TF failed: TF eager's values, or where it could not run, tapejax's)
                reference = eager if eager is not None and eager.raised is None else tj_out
            for side in sides:
                for n, v in side.vars.items():
                    if differ(np.asarray(v.numpy()), reference.parts["vars"][n]) is not None:
                        v.assign(reference.parts["vars"][n])
        rows.append((i, a, tf_out, tj_out, eager, problems))
        if any(k is None for _, k in problems):
            kind = "mismatch"
        elif any(k in TF_FAULTS for _, k in problems) and kind in ("ok", "known"):
            kind = "tf-fault"
        elif any(k in KNOWN for _, k in problems) and kind == "ok":
            kind = "known"
    return kind, sc, rows


OUTCOMES = ("ok", "mismatch", "known", "tf-fault")


def _signature(a: Action, problem: str, tf_out: "Outcome", eager) -> str:
    """The closing table's row of a problem: the action's kind and context, the problem without where in the
    result tree it was (``[0]``, ``['a']``...), so that each distinct difference shows once; marked where the
    action passed a NumPy scalar (or one did before), and where TF's own paths disagree on the part (TF's
    function call against TF eager, None and zeros aside: no reference there)."""
    part = problem.split(":")[0]
    problem = re.sub(r"^((?:vs TF eagerly: )?\w[\w ]*): (?:\[[^\]]*\] ?)+", r"\1: ", problem)
    if a.kind != "call":
        return f"{a.kind}: {problem}"
    tag = " (a NumPy scalar argument, here or in an earlier call)" if a.kw["np_scalar"] else ""
    if eager is not None and eager.raised is None and tf_out.raised is None and part in VALUE_PARTS and \
            part in eager.parts and part in tf_out.parts and not none_as_zeros(tf_out.parts[part], eager.parts[part]):
        tag += " (TF's function call and TF eager disagree here)"
    if problem.startswith(("traces", "count")):
        return f"call{tag}: {problem}"
    return f"call[{a.kw['ctx']}]{tag}: {problem}"


def main(argv=None) -> int:
    ap = seed_parser(__doc__, 200, "scenario")
    ap.add_argument("--seconds", type=float, default=0.0, help="stop after this many seconds (0: no limit)")
    args = ap.parse_args(argv)
    if "input_signature" not in inspect.signature(tj.function).parameters:
        print("note: tj.function takes no input_signature= (tf.function does): not drawn\n")
    counts, signatures = dict.fromkeys(OUTCOMES, 0), {}
    start, last = time.time(), args.first - 1
    for seed in range(args.first, args.first + args.programs):
        if args.seconds and time.time() - start > args.seconds:
            break
        last = seed
        kind, sc, rows = check(seed)
        counts[kind] += 1
        if kind == "ok" and not args.verbose:
            continue
        print(f"[{kind}] {sc!r}")
        for i, a, tf_out, tj_out, eager, problems in rows:
            if problems or args.verbose:
                print(f"    #{i} {a}\n        TF: {tf_out}\n        tj: {tj_out}")
                if eager is not None:
                    print(f"        TF eagerly: {eager}")
            for p, k in problems:
                note = f"  (known: {k})" if k in KNOWN else f"  (TF fault: {k})" if k in TF_FAULTS else \
                    f"  (follows from #{k[7:]}: trace count or raise differed there)" if k else ""
                print(f"        -> {p}{note}")
                if k is None:
                    signatures.setdefault(_signature(a, p, tf_out, eager), []).append(seed)
        sys.stdout.flush()
    n = last - args.first + 1
    print(f"\n{n} scenarios (seeds {args.first}-{last}, {time.time() - start:.0f} s): " +
          ", ".join(f"{v} {k}" for k, v in counts.items()))
    if signatures:
        print_seed_table("mismatches by action and problem (seeds):", signatures)
    for title, table in (("known", KNOWN), ("TF faults", TF_FAULTS)):
        print(f"\n{title}:")
        for k, why in table.items():
            print(f"  {k}: {why}")
    return 1 if counts["mismatch"] else 0


if __name__ == "__main__":
    sys.exit(main())
