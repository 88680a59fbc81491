"""Differential test of the tape protocol: random scenarios of tape and accumulator bookkeeping run on
``tj.GradientTape`` / ``tj.ForwardAccumulator`` and, action for action, on ``tf.GradientTape`` /
``tf.autodiff.ForwardAccumulator``.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python tools/tf_tape_protocol_differential.py [--first K] [--programs N] [--verbose]

tools/tf_differential.py and tools/tf_program_differential.py compare op numerics; this compares the rules of
the tapes themselves. ``Scenario(seed)`` draws (``numpy.random.default_rng(seed)``) 3-10 actions over twin
objects (constants, Variables, one trainable=False, one int32; a few ops: mul, add, sin, square, sums, an int
cast and back, matmul, stop_gradient): tapes persistent or not, with or without watch_accessed_variables,
nested, re-entered (resume recording), ``reset()`` inside and outside their context, ``tape.stop_recording()``
and the global stop (TF's ``tensorflow.python.eager.record.stop_recording``), watches of Tensors, Variables,
nested structures, int tensors and duplicates, Variable reads around ``assign``/``assign_add``, accumulators
(nested primals and tangents, wrong shapes and dtypes, inside and around tapes); and the queries ``gradient``
(nested targets and sources, unconnected, int, duplicate and target-itself sources, ``output_gradients``,
``unconnected_gradients``, ``gradient(None, ...)``, a second call on a non-persistent tape, a call inside the
context), ``jacobian``/``batch_jacobian`` (``experimental_use_pfor`` both ways), ``watched_variables()`` and
``acc.jvp``. Single gradient and JVP results join the pool of values, so later actions differentiate them
again (higher order, forward-over-reverse and reverse-over-forward). Reading a scenario: x0, x1 are float32
(2, 3) constants, x2 a scalar, x3 of shape (3,), x4 an int32 (2, 3); v0 (3,), v1 (3,) with trainable=False,
v2 () and v3 (3,) int32 are Variables; later x's are results; ``f32[2, 3]`` is a literal array drawn from the seed;
``unconnected_gradients=zero`` passes the string, ``=ZERO`` the enum.

For each action it compares whether it raised (tapejax must raise TF's class or a subclass; for TF's own
``OpError`` classes the Python classes of ``ACCEPTED``), whether it warned (Python ``UserWarning``s, and TF's
``logging`` warnings, whose log-first-n counters are cleared before each action), and for queries and ops the
result: its structure (list / tuple / dict, where ``None`` is), shapes, dtypes and values (float32 tolerance).
A scenario whose only differences are ``KNOWN`` (API.md says tapejax differs on purpose) counts as "known". A
difference in an action that uses what an earlier differing action made (its value, accumulator, or a tape one
side raised on) is printed as following from it, and left out of the closing table of mismatches by action and
problem (with their seeds), where each distinct difference shows once.

TF can die in an action (a signal: TF 2.21 segfaults in imperative_grad on a scalar output gradient for a target
of another shape, seed 109945), so the scenarios run in a child process forked from this one, which runs no op
itself: where the child dies, the scenario and action it was in are run again in a new child, TF's side of that
action as API.md documents it for tapejax (``documented``), and the rest go on there. Such a scenario shows
"crashed" for the action, known ("tf_crashed") where tapejax does what API.md says.
"""
from __future__ import annotations

import json
import logging
import os
import signal
import sys
import traceback
import warnings
from types import SimpleNamespace

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
warnings.filterwarnings("ignore")

import jax  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python import pywrap_tfe  # noqa: E402
from tensorflow.python.eager import record as tf_record  # noqa: E402
from tensorflow.python.platform import tf_logging  # noqa: E402

import tapejax as tj  # noqa: E402
from result_trees import differ  # noqa: E402
from seed_runs import print_seed_table, seed_arguments  # noqa: E402
from tapejax import backprop as tj_backprop, tape_set as tj_tape_set  # noqa: E402

tnp = tj.numpy
F32, I32 = np.float32, np.int32


# -- warnings: TF logs some (log_first_n), tapejax warns ---------------------------------------------------

LOGS = logging.Handler(logging.WARNING)
LOGS.records = []
LOGS.emit = LOGS.records.append
for _logger in (tf.get_logger(), logging.getLogger("tapejax")):
    _logger.handlers[:] = [LOGS]
    _logger.setLevel(logging.WARNING)
    _logger.propagate = False


# -- the two libraries ---------------------------------------------------------------------------------------

# One side: its twin objects, its ops, and whether its tape set is empty again (after a scenario)
TF = SimpleNamespace(
    name="TF", constant=tf.constant, variable=tf.Variable, tape=tf.GradientTape,
    accumulator=tf.autodiff.ForwardAccumulator, stop_all=tf_record.stop_recording, unconnected=tf.UnconnectedGradients,
    ops={"mul": lambda a, b: a * b, "add": lambda a, b: a + b, "sin": tf.sin, "square": tf.square,
         "sum": tf.reduce_sum, "sum_last": lambda a: tf.reduce_sum(a, axis=-1),
         "cast_round": lambda a: tf.cast(tf.cast(a, tf.int32), tf.float32),
         "to_int": lambda a: tf.cast(a, tf.int32), "matmul": lambda a, b: tf.matmul(a, b, transpose_b=True),
         "stop_gradient": tf.stop_gradient, "read": lambda v: v.read_value()},
    clean=lambda: pywrap_tfe.TFE_Py_TapeSetIsEmpty() and not pywrap_tfe.TFE_Py_TapeSetIsStopped())
TJ = SimpleNamespace(
    name="tj", constant=tj.constant, variable=tj.Variable, tape=tj.GradientTape, accumulator=tj.ForwardAccumulator,
    stop_all=tj.stop_recording, unconnected=tj.UnconnectedGradients,
    ops={"mul": lambda a, b: a * b, "add": lambda a, b: a + b, "sin": tnp.sin, "square": tnp.square,
         "sum": tnp.sum, "sum_last": lambda a: tnp.sum(a, axis=-1),
         "cast_round": lambda a: tnp.astype(tnp.astype(a, "int32"), "float32"),
         "to_int": lambda a: tnp.astype(a, "int32"), "matmul": lambda a, b: tnp.matmul(a, tnp.transpose(b)),
         "stop_gradient": tj.stop_gradient, "read": lambda v: v.read_value()},
    clean=lambda: not (tj_tape_set.current().tapes or tj_tape_set.current().accumulators
                       or tj_tape_set.current().stopped))


# -- scenarios -----------------------------------------------------------------------------------------------

class Val:
    """A literal array in a scenario (a tangent, an output gradient, an assigned value): each side makes its
    constant of it."""

    def __init__(self, a) -> None:
        self.a = a

    def __repr__(self) -> str:
        return f"{self.a.dtype.name[0]}{self.a.dtype.itemsize * 8}{list(self.a.shape)}"


def fmt(x) -> str:
    """A scenario's argument or a result, readably (results: NumPy arrays with their dtype and shape)."""
    if isinstance(x, np.ndarray):
        values = (x.astype(float).round(4) if x.dtype.kind == "f" else x).tolist() if x.size <= 12 else "..."
        return f"{x.dtype.name}{list(x.shape)} {values}"
    if isinstance(x, list):
        return "[" + ", ".join(map(fmt, x)) + "]"
    if isinstance(x, tuple):
        return "(" + ", ".join(map(fmt, x)) + ("," if len(x) == 1 else "") + ")"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k}: {fmt(v)}" for k, v in x.items()) + "}"
    return str(x)


def leaves(spec) -> list:
    if isinstance(spec, (list, tuple)):
        return [x for s in spec for x in leaves(s)]
    if isinstance(spec, dict):
        return [x for s in spec.values() for x in leaves(s)]
    return [spec]


class Action:
    """One step: ``kind`` with its arguments ``kw``; ``text`` is how it reads (TF/tapejax-neutral Python)."""

    def __init__(self, kind: str, text: str, **kw) -> None:
        self.kind, self.text, self.kw = kind, text, kw

    def __repr__(self) -> str:
        return self.text


VARS = [("v0", (3,), F32, True), ("v1", (3,), F32, False), ("v2", (), F32, True), ("v3", (3,), I32, True)]
CONSTS = [((2, 3), F32), ((2, 3), F32), ((), F32), ((3,), F32), ((2, 3), I32)]
UNARY = ("sin", "square", "sum", "sum_last", "cast_round", "to_int", "stop_gradient")
QUERIES = ("grad", "jac", "bjac", "watched", "jvp")


def draw(rng, shape, dtype):
    return np.asarray(rng.integers(-3, 4, size=shape) if dtype == I32 else rng.normal(size=shape), dtype)


def pick(rng, seq):
    return seq[int(rng.integers(len(seq)))]


class Scenario:
    """The actions of ``seed``. While drawing them it keeps a model of the state (each value's shape and
    dtype, the tapes, accumulators and the stack of open contexts) so that most actions are valid; the
    invalid ones it means to draw (entering an active tape, a reset outside the context...) it draws rarely."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        rng = self.rng = np.random.default_rng(seed)
        self.consts = {f"x{i}": draw(rng, s, d) for i, (s, d) in enumerate(CONSTS)}
        self.var_init = {n: draw(rng, s, d) for n, s, d, _ in VARS}
        self.info = {n: (a.shape, a.dtype.type) for n, a in self.consts.items()}
        self.info.update({n: (s, d) for n, s, d, _ in VARS})
        self.tapes = self.accs = 0  # (how many)
        self.stack: list = []  # ("tape", k) / ("stop", k) / ("gstop",) / ("acc", j)
        self.actions: list = []
        self.out = None
        for _ in range(int(rng.integers(3, 11))):
            self._step()
        while self.stack:
            self._exit()
        if not any(a.kind in QUERIES for a in self.actions):  # (every scenario asks something)
            if not self.tapes:
                self._tape(enter=False)
            self._grad(int(rng.integers(self.tapes)))

    def __repr__(self) -> str:
        return f"Scenario({self.seed}):\n" + "\n".join(f"      {i}. {a}" for i, a in enumerate(self.actions))

    # (names of the values and Variables: recent values are drawn more often, they are the connected ones)
    def _names(self, float_only=True, vars_too=True) -> list:
        return [n for n, (_, d) in self.info.items() if (d == F32 or not float_only) and (vars_too or n[0] == "x")]

    def _ref(self, float_only=True, vars_too=True) -> str:
        names = self._names(float_only, vars_too)
        values = [n for n in names if n[0] == "x"]
        return pick(self.rng, values[-3:]) if self.rng.random() < 0.5 and values else pick(self.rng, names)

    def _new(self, shape, dtype) -> str:
        name = f"x{sum(n[0] == 'x' for n in self.info)}"
        self.info[name] = (tuple(shape), dtype)
        self.out = (name, tuple(shape), dtype)  # (the next action's output: a placeholder where none comes)
        return name

    def _add(self, kind, text, **kw) -> None:
        self.actions.append(Action(kind, text, out=self.out, **kw))
        self.out = None

    def _step(self) -> None:
        rng, active = self.rng, [e[1] for e in self.stack if e[0] == "tape"]
        w = {"tape": 3.0 if self.tapes < 3 else 0.0, "enter": 1.0 if self.tapes else 0.0,
             "exit": 1.5 if self.stack else 0.0, "stop": 0.6 if self.tapes else 0.0, "gstop": 0.3,
             "reset": 0.4 if self.tapes else 0.0, "watch": 2.0 if self.tapes else 0.0, "op": 3.0,
             "read": 0.6, "assign": 0.7, "acc": 0.7 if self.accs < 2 else 0.0, "grad": 2.5 if self.tapes else 0.0,
             "jac": 0.5 if self.tapes else 0.0, "bjac": 0.4 if self.tapes else 0.0,
             "watched": 0.4 if self.tapes else 0.0, "jvp": 1.5 if self.accs else 0.0}
        kinds = list(w)
        p = np.array([w[k] for k in kinds]) / sum(w.values())
        kind = kinds[int(rng.choice(len(kinds), p=p))]
        tape = int(rng.integers(self.tapes)) if self.tapes else 0
        if kind == "tape":
            self._tape(enter=rng.random() < 0.85)
        elif kind == "enter":  # resume recording; entering an active tape (an error) only rarely
            if tape not in active or rng.random() < 0.15:
                self._enter(tape)
        elif kind == "exit":
            self._exit()
        elif kind == "stop":  # mostly on a recording tape
            tape = pick(rng, active) if active and rng.random() < 0.8 else tape
            self._add("stop", f"enter t{tape}.stop_recording()", tape=tape)
            self.stack.append(("stop", tape))
        elif kind == "gstop":
            self._add("gstop", "enter stop_recording()  (TF: record.stop_recording)")
            self.stack.append(("gstop",))
        elif kind == "reset":
            self._add("reset", f"t{tape}.reset()", tape=tape)
        elif kind == "watch":
            self._watch(tape)
        elif kind == "op":
            self._op()
        elif kind == "read":
            v = pick(rng, [n for n, *_ in VARS])
            self._add("op", f"{self._new(self.info[v][0], self.info[v][1])} = {v}.read_value()", op="read", args=[v])
        elif kind == "assign":
            v = pick(rng, [n for n, *_ in VARS])
            shape, dtype = self.info[v]
            same = [n for n in self._names(False, False) if self.info[n] == (shape, dtype)]
            value = pick(rng, same) if same and rng.random() < 0.3 else Val(draw(rng, shape, dtype))
            how = pick(rng, ["assign", "assign_add"])
            self._add("assign", f"{v}.{how}({fmt(value)})", var=v, how=how, value=value)
        elif kind == "acc":
            self._acc()
        elif kind == "grad":
            self._grad(tape)
        elif kind in ("jac", "bjac"):
            self._jacobian(kind, tape)
        elif kind == "watched":
            self._add("watched", f"t{tape}.watched_variables()", tape=tape)
        else:
            self._jvp()

    def _tape(self, enter: bool) -> None:
        k, persistent, wav = self.tapes, bool(self.rng.random() < 0.5), bool(self.rng.random() < 0.75)
        self.tapes += 1
        self._add("tape", f"t{k} = GradientTape(persistent={persistent}, watch_accessed_variables={wav})",
                  tape=k, persistent=persistent, wav=wav)
        if enter:
            self._enter(k)

    def _enter(self, k: int) -> None:
        self._add("enter", f"enter t{k}", tape=k)
        if ("tape", k) not in self.stack:
            self.stack.append(("tape", k))

    def _exit(self) -> None:
        top = self.stack.pop()
        self._add("exit", "exit " + {"tape": "t{}", "stop": "t{}.stop_recording()", "gstop": "stop_recording()",
                                     "acc": "a{}"}[top[0]].format(*top[1:]), top=top)

    def _op(self) -> None:
        rng = self.rng
        op = pick(rng, UNARY + ("mul", "add", "matmul") * 2)
        a = self._ref()
        shape = self.info[a][0]
        if op in ("mul", "add", "matmul"):
            def fits(s):  # (the fixed shapes broadcast unless both are 1-D or 2-D with other last sizes)
                if op == "matmul":
                    return len(s) == 2 and len(shape) == 2 and s[1] == shape[1]
                return not s or not shape or s[-1] == shape[-1]
            bs = [n for n in self._names() if fits(self.info[n][0])]
            if not bs:
                op = "sin"
            else:
                b = self._ref() if rng.random() < 0.5 else pick(rng, bs)
                b = b if fits(self.info[b][0]) else pick(rng, bs)
                out = (shape[0], self.info[b][0][0]) if op == "matmul" else \
                    np.broadcast_shapes(shape, self.info[b][0])
                self._add("op", f"{self._new(out, F32)} = {op}({a}, {b})", op=op, args=[a, b])
                return
        if op == "sum_last" and not shape:
            op = "sum"
        out = {"sum": (), "sum_last": shape[:-1]}.get(op, shape)
        self._add("op", f"{self._new(out, I32 if op == 'to_int' else F32)} = {op}({a})", op=op, args=[a])

    def _structure(self, refs: list):
        """``refs`` as one value or a list, tuple, dict or nested structure of them."""
        how = pick(self.rng, ["single", "list", "tuple", "dict", "nested"] if len(refs) > 1 else
                   ["single"] * 3 + ["list", "tuple", "dict"])
        return {"single": lambda: refs[0], "list": lambda: list(refs), "tuple": lambda: tuple(refs),
                "dict": lambda: {f"k{i}": r for i, r in enumerate(refs)},
                "nested": lambda: {"a": [refs[0]], "b": tuple(refs[1:])}}[how]()

    def _watch(self, tape: int) -> None:
        rng = self.rng
        refs = [self._ref() for _ in range(int(rng.integers(1, 3)))]
        if rng.random() < 0.15:  # an int tensor or Variable (a warning, then None gradients)
            refs[0] = pick(rng, ["x4", "v3"])
        if rng.random() < 0.1:
            refs.append(refs[0])
        self._add("watch", f"t{tape}.watch({fmt(spec := self._structure(refs))})", tape=tape, spec=spec)

    def _grad(self, tape: int = 0) -> None:
        rng = self.rng
        n_t = 1 if rng.random() < 0.7 else 2
        targets = [self._ref(float_only=rng.random() < 0.9) for _ in range(n_t)]
        target = None if rng.random() < 0.03 else self._structure(targets)
        sources = []
        for _ in range(int(rng.integers(1, 4))):
            r = rng.random()
            sources.append(pick(rng, targets) if r < 0.1 else pick(rng, ["x4", "v3"]) if r < 0.15 else
                           pick(rng, sources) if r < 0.2 and sources else self._ref())
        sources = self._structure(sources)
        og = None
        if target is not None and rng.random() < 0.25:  # one per flattened target; wrong shapes or count rarely
            og = []
            for t in leaves(target):  # (no None entries: TF's gradient functions fail on them, or TF aborts)
                shape, dtype = self.info[t]
                r = rng.random()
                og.append(Val(draw(rng, (), dtype)) if r < 0.2 else Val(draw(rng, (5,), dtype)) if r < 0.3 else
                          Val(draw(rng, shape, dtype)))
            if rng.random() < 0.07:
                og.append(Val(draw(rng, (), F32)))
        unc = pick(rng, ["none", "zero", "NONE", "ZERO", "bogus" if rng.random() < 0.1 else "zero"])
        out = ""  # (a single gradient joins the pool; not with output_gradients: see KNOWN)
        if og is None and not isinstance(sources, (list, tuple, dict)) and self.info[sources][1] == F32:
            out = f"{self._new(self.info[sources][0], F32)} = "
        shapes = [self.info[t][0] for t in leaves(target)] if target is not None else []
        int_target_source = any(self.info[t][1] == I32 for t in set(leaves(target)) & set(leaves(sources))
                                if t is not None)
        self._add("grad", f"{out}t{tape}.gradient({fmt(target)}, {fmt(sources)}, output_gradients={fmt(og)}, "
                          f"unconnected_gradients={unc})", tape=tape, target=target, sources=sources, og=og,
                  unc=unc, target_shapes=shapes, int_target_source=int_target_source)

    def _jacobian(self, kind: str, tape: int) -> None:
        rng = self.rng
        target = self._ref()
        if kind == "jac":
            sources = self._structure([self._ref() for _ in range(int(rng.integers(1, 3)))])
        else:  # batch: mostly sources of the target's batch size
            shape = self.info[target][0]
            same = [n for n in self._names() if shape and self.info[n][0][:1] == shape[:1]]
            sources = pick(rng, same) if same and rng.random() < 0.8 else self._ref()
        unc, pfor = pick(rng, ["none", "zero"] * 8 + ["bogus"]), bool(rng.random() < 0.6)
        what = "jacobian" if kind == "jac" else "batch_jacobian"
        self._add(kind, f"t{tape}.{what}({target}, {fmt(sources)}, unconnected_gradients={unc}, "
                        f"experimental_use_pfor={pfor})", tape=tape, target=target, sources=sources, unc=unc,
                  pfor=pfor)

    def _acc(self) -> None:
        rng, j = self.rng, self.accs
        refs = [self._ref() for _ in range(int(rng.integers(1, 3)))]
        if rng.random() < 0.08:
            refs[0] = pick(rng, ["x4", "v3"])
        if rng.random() < 0.05:
            refs.append(refs[0])  # (TF: ValueError, a primal given twice)
        primals = self._structure(refs)
        tangent_of = {}
        for r in dict.fromkeys(refs):  # (not a set: its order changes with PYTHONHASHSEED)
            shape, dtype = self.info[r]
            x = rng.random()
            tangent_of[r] = Val(draw(rng, shape + (2,) if x < 0.05 else shape, I32 if 0.05 <= x < 0.1 else dtype))
        tangents = _map(lambda r: tangent_of[r], primals)
        if isinstance(tangents, list) and rng.random() < 0.1:
            tangents = tuple(tangents)  # (another container: TF's nest raises TypeError)
        self.accs += 1
        self._add("acc", f"a{j} = ForwardAccumulator({fmt(primals)}, {fmt(tangents)}); enter a{j}", acc=j,
                  primals=primals, tangents=tangents)
        self.stack.append(("acc", j))

    def _jvp(self) -> None:
        rng = self.rng
        j = int(rng.integers(self.accs))
        spec = self._structure([self._ref(float_only=rng.random() < 0.9) for _ in range(int(rng.integers(1, 3)))])
        unc = pick(rng, ["none", "zero"])
        out = ""
        if isinstance(spec, str) and self.info[spec][1] == F32:
            out = f"{self._new(self.info[spec][0], F32)} = "
        self._add("jvp", f"{out}a{j}.jvp({fmt(spec)}, unconnected_gradients={unc})", acc=j, spec=spec, unc=unc)


def _map(fn, spec):
    """``spec`` with each leaf replaced by ``fn(leaf)`` (lists, tuples and dicts kept; None and Tensors leaves: a
    tj.Tensor is a pytree)."""
    return jax.tree_util.tree_map(fn, spec, is_leaf=lambda x: x is None or isinstance(x, (tj.Tensor, tj.Variable)))


# -- running a scenario on one side --------------------------------------------------------------------------

class Side:
    """A scenario's twin objects on one library, and the contexts it has open (label, exit function)."""

    def __init__(self, lib, sc: Scenario) -> None:
        self.lib = lib
        self.vals = {n: lib.constant(a) for n, a in sc.consts.items()}
        self.vals.update({n: lib.variable(sc.var_init[n], name=n, trainable=t) for n, _, _, t in VARS})
        self.var_name = {id(self.vals[n]): n for n, *_ in VARS}
        self.tapes, self.accs, self.stack = {}, {}, []

    def resolve(self, spec):
        if isinstance(spec, str):
            return self.vals[spec]
        if isinstance(spec, Val):
            return self.lib.constant(spec.a)
        return _map(self.resolve, spec) if isinstance(spec, (list, tuple, dict)) else spec

    def unconnected(self, unc: str):
        # ("none"/"zero" as strings, "NONE"/"ZERO" as the enum, "bogus" as an invalid string)
        return getattr(self.lib.unconnected, unc) if unc.isupper() else unc

    def act(self, a: Action):
        """Run ``a``; its result as a comparable tree (tree()), or None."""
        kw, r = a.kw, self.resolve
        tape = self.tapes.get(kw.get("tape"))
        if a.kind == "tape":
            self.tapes[kw["tape"]] = self.lib.tape(persistent=kw["persistent"],
                                                   watch_accessed_variables=kw["wav"])
        elif a.kind == "enter":
            tape.__enter__()
            self.stack.append((("tape", kw["tape"]), tape.__exit__))
        elif a.kind == "exit":
            labels = [label for label, _ in self.stack]
            if kw["top"] not in labels:  # (its enter raised here: a difference already reported)
                return None
            while self.stack:  # (and whatever this side has open above it)
                label, leave = self.stack.pop()
                leave(None, None, None)
                if label == kw["top"]:
                    break
        elif a.kind in ("stop", "gstop"):
            cm = tape.stop_recording() if a.kind == "stop" else self.lib.stop_all()
            cm.__enter__()
            self.stack.append((("stop", kw["tape"]) if a.kind == "stop" else ("gstop",), cm.__exit__))
        elif a.kind == "reset":
            tape.reset()
        elif a.kind == "watch":
            tape.watch(r(kw["spec"]))
        elif a.kind == "op":
            return self.output(a, self.lib.ops[kw["op"]](*r(kw["args"])))
        elif a.kind == "assign":
            getattr(self.vals[kw["var"]], kw["how"])(r(kw["value"]))
        elif a.kind == "acc":
            acc = self.accs[kw["acc"]] = self.lib.accumulator(r(kw["primals"]), r(kw["tangents"]))
            acc.__enter__()
            self.stack.append((("acc", kw["acc"]), acc.__exit__))
        elif a.kind == "grad":
            return self.output(a, tape.gradient(r(kw["target"]), r(kw["sources"]), output_gradients=r(kw["og"]),
                                                unconnected_gradients=self.unconnected(kw["unc"])))
        elif a.kind in ("jac", "bjac"):
            f = tape.jacobian if a.kind == "jac" else tape.batch_jacobian
            return tree(f(r(kw["target"]), r(kw["sources"]), unconnected_gradients=kw["unc"],
                          experimental_use_pfor=kw["pfor"]))
        elif a.kind == "watched":
            got = tape.watched_variables()
            return type(got).__name__, [self.var_name.get(id(v), "?") for v in got]
        elif a.kind == "jvp":
            if kw["acc"] not in self.accs:  # (its constructor raised here)
                return "no accumulator"
            return self.output(a, self.accs[kw["acc"]].jvp(r(kw["spec"]), unconnected_gradients=kw["unc"]))
        return None

    def output(self, a: Action, value):
        if a.kw["out"] and value is not None:
            self.vals[a.kw["out"][0]] = value
        return tree(value)

    def placeholder(self, a: Action) -> None:
        """Where an action that should make a value made none (None, or it raised), zeros stand in for it."""
        if a.kw["out"] and a.kw["out"][0] not in self.vals:
            _, shape, dtype = a.kw["out"]
            self.vals[a.kw["out"][0]] = self.lib.constant(np.zeros(shape, dtype))

    def close(self) -> bool:
        """Leave whatever is still open (after errors); whether the library's tape set was clean."""
        while self.stack:
            try:
                self.stack.pop()[1](None, None, None)
            except Exception:  # noqa: BLE001
                pass
        for x in list(self.tapes.values()) + list(self.accs.values()):
            if getattr(x, "_recording", False):
                x.__exit__(None, None, None)
        return self.lib.clean()


def tree(x):
    """A result as NumPy arrays in its structure (lists, tuples, dicts and None kept)."""
    if x is None or isinstance(x, str):
        return x
    if isinstance(x, (list, tuple)):
        return type(x)(tree(e) for e in x)
    if isinstance(x, dict):
        return {k: tree(v) for k, v in x.items()}
    return np.asarray(x)


class Outcome:
    def __init__(self, value, raised, warned) -> None:
        self.value, self.raised, self.warned = value, raised, warned

    def __repr__(self) -> str:
        what = f"raised {type(self.raised).__name__}: {_line(self.raised)}" if self.raised else fmt(self.value)
        return what + (f"  [warned: {'; '.join(w[:80] for w in self.warned)}]" if self.warned else "")


def _line(e) -> str:
    return (str(e).strip().splitlines() or [""])[0][:150]


def run_action(side: Side, a: Action) -> Outcome:
    LOGS.records.clear()
    tf_logging._log_counter_per_token.clear()  # (TF's log_first_n: every action may warn afresh)
    tj_backprop.persistent_in_context_warned = False  # (tapejax's, once per process likewise)
    value = raised = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = side.act(a)
        except Exception as e:  # noqa: BLE001
            raised = e
    side.placeholder(a)
    warned = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    # (TF's retracing warning about its own pfor function depends on how many jacobians the process ran before)
    logged = [r.getMessage() for r in LOGS.records if "calls to <function pfor.<locals>" not in r.getMessage()]
    return Outcome(value, raised, warned + logged)


# -- comparing -----------------------------------------------------------------------------------------------

# TF's own error classes (tf.errors.OpError) are not Python's: the Python classes tapejax may raise for them
ACCEPTED = {"InvalidArgumentError": (ValueError, TypeError, IndexError)}


def problems_of(tf_out: Outcome, tj_out: Outcome) -> list:
    out = []
    e, f = tf_out.raised, tj_out.raised
    if e is not None or f is not None:
        if e is None or f is None:
            out.append(f"raised: TF {type(e).__name__ if e else 'nothing'}, tj {type(f).__name__ if f else 'nothing'}")
        elif type(f).__module__.startswith("jax") or not isinstance(
                f, ACCEPTED.get(type(e).__name__, ()) if isinstance(e, tf.errors.OpError) else type(e)):
            out.append(f"raised: TF {type(e).__name__}, tj {type(f).__name__}")
    elif (d := differ(tj_out.value, tf_out.value)) is not None:
        out.append(f"result: {d}")
    if bool(tf_out.warned) != bool(tj_out.warned):
        out.append(f"warned: TF {bool(tf_out.warned)}, tj {bool(tj_out.warned)}")
    return out


# Differences API.md makes on purpose: name -> why; known() says which one an action's problem is
KNOWN = {
    "output_gradients_check": "API.md: output_gradients are one per flattened target, each of the target's shape "
                              "(a scalar is broadcast), a wrong shape or count raises ValueError; TF checks neither "
                              "and passes an output gradient on as it is (where the target is a source, it is the "
                              "gradient, of its own shape)",
    "int_source": "API.md: non-float sources give None (zeros with ZERO); TF gives an int target's gradient with "
                  "respect to itself as ones",
    "tangent_check": "API.md: tangents whose shape differs from their primals raise ValueError (tapejax: when the "
                     "accumulator is made; TF: only where an op uses the tangent)",
    "tf_internal": "TF fails inside itself (ValueError \"Internal error: Tried to take gradients (or similar) of a "
                   "variable without handle data\": assigning a Variable whose read value an accumulator watches, "
                   "seed 25259); tapejax assigns",
    "tf_message_reads": "TF accident: TF's TypeError for an accumulator's tangents of another structure shows the "
                        "Variable primals' values (\"numpy=...\"), a read that the tapes recording then watch "
                        "(seeds 46830, 51452); tapejax's message reads nothing",
    "tf_crashed": "TF 2.21 dies (SIGSEGV in imperative_grad) on output_gradients with a scalar for a target of "
                  "another shape (seed 109945), where tapejax broadcasts the scalar as API.md documents: tapejax's "
                  "result is the one TF gives for the broadcast output gradient",
    "follows": "a consequence of a known difference earlier in the scenario (a value or accumulator it uses)",
    "state_kept_after_error": "Standards (an error leaves the state as it was): TF's jacobian/batch_jacobian stop a "
                              "non-persistent tape recording before they find a bad argument (unconnected_gradients), "
                              "so that entering it again works in TF; tapejax checks first and leaves it recording "
                              "(seed 17858; entering its stop_recording() raises in TF then, seed 28243, and its "
                              "watched_variables() stay as they were, seed 31392)",
}


def known(a: Action, problem: str, tf_out: Outcome, tj_out: Outcome, stopped_by_tf: set = frozenset(),
          read_by_tf_message: bool = False):
    """The KNOWN name explaining ``problem`` of action ``a``, or None; ``stopped_by_tf``: the tapes that a
    jacobian/batch_jacobian with a bad unconnected_gradients stopped in TF, before raising;
    ``read_by_tf_message``: whether an earlier TF error message showed a Variable's value."""
    kw = a.kw
    if a.kind == "watched" and read_by_tf_message:
        return "tf_message_reads"
    if a.kind == "grad" and kw["og"] is not None and not problem.startswith("warned") and (
            len(kw["og"]) != len(kw["target_shapes"]) or
            any(g.a.shape != s for g, s in zip(kw["og"], kw["target_shapes"]))):
        return "output_gradients_check"
    if a.kind == "grad" and problem.startswith("result") and kw["int_target_source"]:
        return "int_source"
    if problem.startswith("raised") and isinstance(tf_out.raised, ValueError) and not tj_out.raised and \
            str(tf_out.raised).startswith("Internal error"):
        return "tf_internal"
    if a.kind == "enter" and not tf_out.raised and "still recording" in str(tj_out.raised):
        return "state_kept_after_error"
    if a.kind == "stop" and kw["tape"] in stopped_by_tf and not tj_out.raised and \
            "not recording" in str(tf_out.raised):
        return "state_kept_after_error"  # (TF: entering stop_recording() of a tape that no longer records)
    if a.kind == "watched" and kw["tape"] in stopped_by_tf:
        return "state_kept_after_error"  # (TF's stopped tape watched nothing since)
    if a.kind == "acc" and "tangent of shape" in str(tj_out.raised) and \
            (not tf_out.raised or problem.startswith("warned")):
        return "tangent_check"  # (also TF's warning for an int primal, which tapejax's check comes before)
    return None


def refs_of(a: Action) -> set:
    """The values, tapes and accumulators action ``a`` uses (``p:x`` for a value it runs ops on: an accumulator's
    primal, whose tangent TF checks there)."""
    kw = a.kw
    names = {x for k in ("spec", "target", "sources", "args", "primals", "value") for x in leaves(kw.get(k))}
    names = {x for x in names if isinstance(x, str)}
    names |= {f"p:{x}" for x in names} if a.kind not in ("watch", "assign", "acc") else set()
    return names | ({f"a{kw['acc']}"} if "acc" in kw else set()) | ({f"t{kw['tape']}"} if "tape" in kw else set())


def made_by(a: Action, problems: list, tapes: set = frozenset()) -> set:
    """What a difference in action ``a`` may leave different: its value, its accumulator, its tape's state; for a
    gradient that raised on one side only, every tape's (``tapes``): the other side's zeros for unconnected
    Variable sources read them, which the tapes watching accessed Variables watch (seed 64628)."""
    made = {a.kw["out"][0]} if a.kw["out"] else set()
    if a.kind == "acc":
        made |= {f"a{a.kw['acc']}"} | {f"p:{x}" for x in leaves(a.kw["primals"])}
    if "tape" in a.kw and any(p.startswith("raised") and "nothing" in p for p, _ in problems):  # (one side only)
        made.add(f"t{a.kw['tape']}")
        if a.kind in ("grad", "jac", "bjac"):
            made |= tapes
    return made


class TFCrashed(Exception):
    """TF's outcome of an action it died in (on an earlier run of the scenario), where it has no documented run."""


def documented(a: Action):
    """The action ``a`` that TF died in as API.md documents it for tapejax, for TF to run instead, or None: a
    gradient with one output gradient per target, each of the target's shape or a scalar, the scalars broadcast."""
    og, shapes = a.kw.get("og"), a.kw.get("target_shapes")
    if a.kind != "grad" or og is None or len(og) != len(shapes) or \
            any(g.a.shape not in (s, ()) for g, s in zip(og, shapes)):
        return None
    return Action(a.kind, a.text, **dict(a.kw, og=[Val(np.broadcast_to(g.a, s).copy()) for g, s in zip(og, shapes)]))


def crashed_action(sides, a: Action, sig: int):
    """(TF outcome, tj outcome, problems) of action ``a`` that TF died in from signal ``sig`` on an earlier run:
    TF runs it as ``documented`` instead, and the crash is known ("tf_crashed") where tapejax does what API.md
    says: the same as TF does there, or (no documented run: a wrong count or shape) ValueError."""
    ref = documented(a)
    tf_out = run_action(sides[0], ref) if ref else Outcome(None, TFCrashed(f"died from signal {sig}"), [])
    tj_out = run_action(sides[1], a)
    problems = [(p, None) for p in problems_of(tf_out, tj_out)] if ref else []
    as_documented = not problems if ref else isinstance(tj_out.raised, ValueError) and \
        known(a, "raised", tf_out, tj_out) == "output_gradients_check"
    crash = f"crashed: TF died from {signal.Signals(sig).name}" + ("; TF above: as API.md documents it" if ref else "")
    return tf_out, tj_out, [(crash, "tf_crashed" if as_documented else None)] + problems


def check(seed: int, crashed: dict = None, mark=None):
    """("ok" | "mismatch" | "known", scenario, [(index, action, TF outcome, tj outcome, problems)]) of ``seed``;
    each problem is (text, label): label None for a mismatch, a KNOWN name, or "after #i" (a consequence of the
    mismatch of action i: what it made is used). ``crashed``: {index: signal} of the actions TF died in on an
    earlier run (crashed_action); ``mark(index)`` is called before each action runs."""
    sc = Scenario(seed)
    sides = Side(TF, sc), Side(TJ, sc)
    rows, kind, origin = [], "ok", {}  # (origin: what a difference made -> "follows" or "after #i")
    stopped_by_tf, persistent, read_by_tf_message = set(), {}, False
    tapes = {f"t{b.kw['tape']}" for b in sc.actions if b.kind == "tape"}
    for i, a in enumerate(sc.actions):
        if mark:
            mark(i)
        if i in (crashed or {}):
            tf_out, tj_out, problems = crashed_action(sides, a, crashed[i])
            rows.append((i, a, tf_out, tj_out, problems))
            label = "follows" if all(k in KNOWN for _, k in problems) else f"after #{i}"
            # (without a documented run TF's side of the action did nothing: what it would make, its tape, differ)
            made = made_by(a, problems, tapes) | (set() if documented(a) else {f"t{a.kw['tape']}"} | tapes)
            origin.update(dict.fromkeys(made, label))
            kind = "mismatch" if any(k not in KNOWN for _, k in problems) or kind == "mismatch" else "known"
            continue
        tf_out, tj_out = run_action(sides[0], a), run_action(sides[1], a)
        if a.kind == "tape":
            stopped_by_tf.discard(a.kw["tape"])
            persistent[a.kw["tape"]] = a.kw["persistent"]
        if a.kind in ("jac", "bjac") and a.kw["unc"] == "bogus" and tf_out.raised and not persistent[a.kw["tape"]]:
            stopped_by_tf.add(a.kw["tape"])
        read_by_tf_message |= a.kind == "acc" and "tf.Variable" in str(tf_out.raised) and \
            "numpy=" in str(tf_out.raised)
        cause = next((origin[r] for r in sorted(refs_of(a)) if r in origin), None)
        problems = [(p, known(a, p, tf_out, tj_out, stopped_by_tf, read_by_tf_message) or cause)
                    for p in problems_of(tf_out, tj_out)]
        rows.append((i, a, tf_out, tj_out, problems))
        if any(not p.startswith("warned") for p, _ in problems) or cause:
            label = cause or ("follows" if all(k in KNOWN for _, k in problems) else f"after #{i}")
            origin.update(dict.fromkeys(made_by(a, problems, tapes), label))
        if any(k not in KNOWN for _, k in problems):
            kind = "mismatch"
        elif problems and kind == "ok":
            kind = "known"
    for side in sides:
        if not side.close():
            rows.append((len(sc.actions), f"({side.lib.name}'s tape set left open)", None, None,
                         [("tape set not clean after the scenario", None)]))
            kind = "mismatch"
    return kind, sc, rows


OUTCOMES = ("ok", "mismatch", "known")


def report(kind: str, sc: Scenario, rows: list, verbose: bool) -> list:
    """Print scenario ``sc``'s check (unless it is ok and not ``verbose``); the signatures of its mismatches."""
    sigs = []
    if kind == "ok" and not verbose:
        return sigs
    print(f"[{kind}] {sc!r}")
    for i, a, tf_out, tj_out, problems in rows:
        if problems or verbose:
            print(f"    #{i} {a}\n        TF: {tf_out}\n        tj: {tj_out}")
        for p, k in problems:
            print(f"        -> {p}" + (f"  (known: {k}: {KNOWN[k]})" if k in KNOWN else
                                       f"  (follows from the mismatch {k[6:]})" if k else ""))
            if k is None:
                sigs.append(f"{getattr(a, 'kind', a)}: {p}")
    return sigs


def run_child(seeds: list, crashed: dict, verbose: bool, out) -> int:
    """Fork a child that checks ``seeds`` (``crashed``: seed -> {index: signal}, see check) and prints them; it
    sends ``out`` one JSON line per action it begins (seed, index) and per scenario it ends (seed, kind,
    mismatch signatures). Its wait status (the parent runs no op, so that forking it is safe)."""
    sys.stdout.flush()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # (the child: it never returns)
        os.close(r)
        code = 0
        try:
            for seed in seeds:
                kind, sc, rows = check(seed, crashed.get(seed),
                                       lambda i, seed=seed: os.write(w, (json.dumps([seed, i]) + "\n").encode()))
                sigs = report(kind, sc, rows, verbose)
                sys.stdout.flush()
                os.write(w, (json.dumps([seed, kind, sigs]) + "\n").encode())
        except BaseException:  # noqa: BLE001  (a bug of this tool: shown, and the campaign ends)
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    os.close(w)
    with os.fdopen(r) as lines:
        for line in lines:
            out(json.loads(line))
    return os.waitpid(pid, 0)[1]


def main(argv=None) -> int:
    args = seed_arguments(__doc__, argv, 200, "scenario")
    counts, signatures = dict.fromkeys(OUTCOMES, 0), {}
    seeds, crashed, where = list(range(args.first, args.first + args.programs)), {}, [None, None]

    def out(msg):
        if len(msg) == 2:  # (the child began action msg[1] of scenario msg[0])
            where[:] = msg
            return
        seed, kind, sigs = msg
        counts[kind] += 1
        for sig in sigs:
            signatures.setdefault(sig, []).append(seed)
        del seeds[:seeds.index(seed) + 1]

    while seeds:
        where[:] = [None, None]
        status = run_child(list(seeds), crashed, args.verbose, out)
        if not os.WIFSIGNALED(status):
            if status:
                return 2  # (the child's traceback is printed)
            break
        seed, i = where
        if seed is None or i in crashed.get(seed, {}):  # (died again where it died before: given up on)
            print(f"[mismatch] Scenario({seed}): TF died again in action #{i} (signal {os.WTERMSIG(status)})")
            counts["mismatch"] += 1
            signatures.setdefault("TF died again where it died before", []).append(seed)
            if seed is None:
                break
            del seeds[:seeds.index(seed) + 1]
            continue
        # (TF died in action i of this scenario: it runs again, that action as documented, in a new child)
        crashed.setdefault(seed, {})[i] = os.WTERMSIG(status)
    print(f"\n{args.programs} scenarios (seeds {args.first}-{args.first + args.programs - 1}): " +
          ", ".join(f"{v} {k}" for k, v in counts.items()) +
          (f" ({len(crashed)} where TF died: seeds {sorted(crashed)})" if crashed else ""))
    if signatures:
        print_seed_table("mismatches by action and problem (seeds):", signatures)
    return 1 if counts["mismatch"] else 0


if __name__ == "__main__":
    sys.exit(main())
