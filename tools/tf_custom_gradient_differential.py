"""Differential test of custom gradients: random functions under ``tj.custom_gradient`` (``tj.recompute_grad``,
``tj.grad_pass_through``) and, line for line, under ``tf.custom_gradient`` (``tf.recompute_grad``,
``tf.grad_pass_through``), differentiated in one of several contexts.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python tools/tf_custom_gradient_differential.py [--first K] [--programs N] [--verbose]

``Scenario(seed)`` draws (``numpy.random.default_rng(seed)``; its repr reads as Python): ``f`` with 1-3 arguments
(float32 tensors of shape (), (3,), (2, 3), a list or tuple of two, an int32 tensor, a Python float) and a body of
1-4 ops (mul, add, sin, exp, square, sum, matmul ``a @ b.T``, reshape, an int cast, ``cg``: a fixed inner custom
gradient), sometimes reading or assigning Variables that are not arguments (v0, v1, v2 not trainable), returning
a tensor, a tuple, a list or a nested structure, sometimes holding a Variable or an argument unchanged;
``grad_fn(*dys[, variables=None])`` with ``c = sum_k sum(dy_k [* y_k])`` (sometimes times ``cg(sum(a0))``: a custom
gradient inside grad_fn, linear in the dys as in TF's docstring), one gradient per flattened argument (``c * x``,
``c * sin(x)``, ``c`` times ones of its shape or of another, None, a Python float; bare, list, tuple or the
arguments' structure; sometimes one too many or too few), the variables' gradients (by name: TF's order is a
set's; list or tuple; sometimes a wrong count), ``variables=`` sometimes missing, or the exact gradient (the body
re-run under a tape); the wrapper (custom_gradient, recompute_grad or grad_pass_through of the same body); and
the context: ``tape`` (the gradient of ``sum_k sum(w_k * y_k)`` w.r.t. the tensor arguments and the Variables),
``persistent`` (two gradient calls), ``nested`` (second order), ``function`` (a tape inside tf.function /
tj.function), ``outer_function`` (a tape over a function of f), ``jacobian``, ``forward`` (ForwardAccumulator),
``output_gradients``, ``zero`` (``unconnected_gradients='zero'``).

It compares, stage by stage (the call, each gradient, the second order, the JVPs): values and structure,
gradients (``None`` exactly where TF gives ``None``, float32 tolerance, NaN where TF's NaN), where each side raised
(tapejax must raise TF's class or a subclass, for TF's ``OpError`` those of ``ACCEPTED``, never JAX's internal
errors; a wrong-count ValueError names both counts), and in the eager contexts how many times grad_fn (and
recompute_grad's body) ran. A stage after a differing one follows from it: printed, not counted. ``KNOWN``:
API.md's deliberate differences and TF accidents (TF then rerun without the accident); forward mode transposes
grad_fn (TF's side computes that transpose, ``d/du <grad_fn(u), t>`` by nested tapes: a JVP equal to it is
"known"); where TF's graph mode (tf.function, pfor) raises, TF eager is the reference (API.md: one set of rules on
every path). ``FOUND``: the genuine differences found, still mismatches, grouped by cause in the closing table;
where f assigns a Variable, TF's ``assign(read_value=False)`` (no read) is the reference if that explains more.
"""
from __future__ import annotations

import logging
import os
import sys
import warnings
from types import SimpleNamespace

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
warnings.filterwarnings("ignore")

import jax  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import tapejax as tj  # noqa: E402
from result_trees import differ  # noqa: E402
from seed_runs import print_seed_table, seed_arguments  # noqa: E402

tf.get_logger().setLevel("ERROR")
logging.getLogger("tapejax").setLevel(logging.ERROR)  # (the retracing warning: a new function per scenario)
tnp = tj.numpy
F32, I32 = np.float32, np.int32


# -- the two libraries ---------------------------------------------------------------------------------------

def _lib(name, m, np_, **kw):
    """One side: its module's classes, a few functions and the body's ops (``cg``: the fixed inner custom gradient,
    sin with the deliberately wrong gradient 2 dy cos(x))."""
    lib = SimpleNamespace(name=name, constant=m.constant, variable=m.Variable, tape=m.GradientTape,
                          function=m.function, custom_gradient=m.custom_gradient, recompute_grad=m.recompute_grad,
                          grad_pass_through=m.grad_pass_through, cos=np_.cos, ones=np_.ones, ones_like=np_.ones_like,
                          zeros_like=np_.zeros_like, **kw)
    lib.ops = {"mul": lambda a, b: a * b, "add": lambda a, b: a + b, "sin": np_.sin, "exp": np_.exp,
               "square": np_.square, "sum": lib.sum, "reshape": np_.reshape, "matmul": lib.matmul_t,
               "cast": lib.to_float}

    @lib.custom_gradient
    def cg(x):
        return np_.sin(x), lambda dy: dy * np_.cos(x) * 2.0
    lib.ops["cg"] = cg
    return lib


TF = _lib("TF", tf, tf, acc=tf.autodiff.ForwardAccumulator, sum=tf.reduce_sum,
          matmul_t=lambda a, b: tf.matmul(a, b, transpose_b=True), to_float=lambda a: tf.cast(a, tf.float32))
TJ = _lib("tj", tj, tnp, acc=tj.ForwardAccumulator, sum=tnp.sum, matmul_t=lambda a, b: tnp.matmul(a, tnp.transpose(b)),
          to_float=lambda a: tnp.astype(a, "float32"))


# -- scenarios -----------------------------------------------------------------------------------------------

SHAPES = [(), (3,), (2, 3)]
VARS = [("v0", (3,), True), ("v1", (), True), ("v2", (3,), False)]
CONTEXTS = {"tape": 3.0, "persistent": 1.5, "nested": 2.0, "function": 1.5, "outer_function": 1.5, "jacobian": 1.5,
            "forward": 2.0, "output_gradients": 1.0, "zero": 1.0}
EAGER = ("tape", "persistent", "nested", "output_gradients", "zero")  # (where the grad_fn calls are compared)
WRAPPERS = {"custom": 0.7, "recompute": 0.15, "pass": 0.15}


def pick(rng, seq):
    return seq[int(rng.integers(len(seq)))]


def choose(rng, weights: dict):
    keys = list(weights)
    p = np.array([weights[k] for k in keys], float)
    return keys[int(rng.choice(len(keys), p=p / p.sum()))]


def weights(shape, k):
    """Fixed weights (loss weights, output gradients, second-order directions, tangents) of a shape."""
    return np.asarray(np.random.default_rng(1000 + k).normal(size=shape), F32)


def _none_leaf(x) -> bool:
    return x is None or isinstance(x, (tj.Tensor, tj.Variable))  # (a tj.Tensor is a pytree: a leaf here)


def flat(x) -> list:
    """Leaves of a nested structure of lists, tuples and dicts (sorted keys, as tf.nest; None and Tensors leaves)."""
    return jax.tree_util.tree_leaves(x, is_leaf=_none_leaf)


def rebuild(spec, fn):
    """``spec`` with each leaf replaced by ``fn(leaf)`` (lists, tuples and dicts kept)."""
    return jax.tree_util.tree_map(fn, spec, is_leaf=_none_leaf)


class Scenario:
    """What ``seed`` draws. Names: a0.. the argument leaves (flattened), v0 v1 v2 the Variables, b0.. the body's
    results; ``leaf``: name -> (kind, shape), kind f (float32), i (int32), p (Python float) or v (Variable)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.tf_graph_error = None  # what TF's graph mode raised, where TF eager is the reference instead
        rng = self.rng = np.random.default_rng(seed)
        self.leaf: dict = {n: ("v", s) for n, s, _ in VARS}
        self.args: list = []  # each: a name, or ("list" | "tuple", [names])
        self.values: dict = {}  # argument name -> its value (an array or a Python float)
        for k in range(int(rng.integers(1, 4))):
            kind = choose(rng, {"t": 5.0, "nest": 1.5, "int": 0.7, "py": 0.8} if k else {"t": 1.0, "nest": 0.4})
            if kind == "nest":
                self.args.append((pick(rng, ["list", "tuple"]), [self._arg("f"), self._arg("f")]))
            else:
                self.args.append(self._arg({"t": "f", "int": "i", "py": "p"}[kind]))
        self.names = flat([a[1] if isinstance(a, tuple) else a for a in self.args])
        self.var_init = {n: np.asarray(rng.normal(size=s), F32) for n, s, _ in VARS}
        reads = rng.random() < 0.35
        pool = [n for n in self.names if self.leaf[n][0] != "i"] + ([n for n, *_ in VARS] if reads else [])
        self.body: list = []  # (op, [arguments], result name or None); assign: ("assign"/"assign_add", [var, value])
        for _ in range(int(rng.integers(1, 5))):
            self._op(pool)
        self.assigns = any(op.startswith("assign") for op, *_ in self.body)
        if not any(out for *_, out in self.body):
            self._op(pool, unary_only=True)
        last = [out for *_, out in self.body if out][-1]
        self.output = self._outputs(last)
        self.wrapper = choose(rng, WRAPPERS)
        self.context = choose(rng, CONTEXTS)
        self.grad = self._grad(reads)

    def pack(self, leaves):
        """The arguments' structure, its leaves taken from the iterator ``leaves``."""
        return [(list if a[0] == "list" else tuple)(next(leaves) for _ in a[1]) if isinstance(a, tuple)
                else next(leaves) for a in self.args]

    def _arg(self, kind: str) -> str:
        rng, name = self.rng, f"a{len(self.leaf) - len(VARS)}"
        shape = () if kind == "p" else (3,) if kind == "i" else pick(self.rng, SHAPES)
        self.leaf[name] = (kind, shape)
        self.values[name] = (float(np.round(rng.normal(), 3)) if kind == "p" else
                             np.asarray(rng.integers(-2, 3, size=shape), I32) if kind == "i" else
                             np.asarray(rng.normal(size=shape), F32))
        return name

    def _ref(self, pool) -> str:  # (the last result more often: the body is mostly a chain)
        made = [n for n in pool if n[0] == "b"]
        return made[-1] if made and self.rng.random() < 0.6 else pick(self.rng, pool)

    def _op(self, pool, unary_only=False) -> None:
        rng = self.rng
        ints = [n for n in self.names if self.leaf[n][0] == "i"]
        op = choose(rng, {"mul": 3, "add": 2, "sin": 1.5, "exp": 1, "square": 1, "sum": 1, "matmul": 1, "reshape": 1,
                          "cg": 0.8, "cast": 1.0 if ints else 0.0, "assign": 0 if unary_only else 0.5})
        if unary_only and op in ("mul", "add", "matmul"):
            op = "sin"
        a = self._ref(pool)
        kind, shape = self.leaf[a]
        if op == "cast":  # (of an int argument)
            args, out = [pick(rng, ints)], (3,)
        elif op == "assign":
            var, vshape = pick(rng, [(n, s) for n, s, _ in VARS])
            same = [n for n in pool if n[0] != "v" and self.leaf[n] == ("f", vshape)]
            value = pick(rng, same) if same and rng.random() < 0.6 else np.asarray(rng.normal(size=vshape), F32)
            self.body.append((pick(rng, ["assign", "assign_add"]), [var, value], None))
            return
        elif op in ("mul", "add", "matmul"):
            def fits(n):
                k, s = self.leaf[n]
                if op == "matmul":
                    return s == shape == (2, 3) and "p" not in (k, kind)
                return not k == kind == "p" and all(p == q or 1 in (p, q) for p, q in zip(s[::-1], shape[::-1]))
            bs = [n for n in pool if fits(n)]
            if not bs:
                op, args, out = "sin", [a], shape
            else:
                b = pick(rng, bs)
                args = [a, b] if rng.random() < 0.5 else [b, a]
                out = (2, 2) if op == "matmul" else np.broadcast_shapes(shape, self.leaf[b][1])
        elif op == "reshape":
            out = shape[::-1] if len(shape) == 2 else (1,) + tuple(shape)
            args = [a, out]
        elif op == "cg" and kind == "p":
            op, args, out = "exp", [a], shape
        else:
            args, out = [a], (() if op == "sum" else shape)
        name = f"b{sum(n[0] == 'b' for n in self.leaf)}"
        self.leaf[name] = ("f", tuple(out))
        self.body.append((op, args, name))
        pool.append(name)

    def _outputs(self, last):
        rng = self.rng
        others = [n for n in self.leaf if n[0] == "b" and n != last] + \
                 [n for n in self.names if self.leaf[n][0] == "f"] + [n for n, *_ in VARS]
        kind = choose(rng, {"single": 3, "tuple": 1.5, "list": 1, "nested": 1})
        if kind == "single":
            return last
        extra = [pick(rng, others) for _ in range(int(rng.integers(1, 3)))]
        items = [last] + extra
        rng.shuffle(items)
        if kind == "nested":
            items = items + [pick(rng, others)] if len(items) < 3 else items
            return (items[0], [items[1], items[2]]) if rng.random() < 0.6 else {"z": items[0], "y": (items[1],)}
        return tuple(items) if kind == "tuple" else list(items)

    def _grad(self, reads) -> SimpleNamespace:
        rng = self.rng
        entries = []
        for n in self.names:
            kind, shape = self.leaf[n]
            e = choose(rng, {"x": 2, "sin": 2, "ones": 2, "none": 1, "shape": 0.8, "py": 0.5})
            if e in ("x", "sin") and kind != "f":
                e = "ones"
            if e == "shape":
                e = ("shape", pick(rng, [s for s in SHAPES + [(4,)] if s != shape]))
            entries.append(e)
        delta = choose(rng, {0: 14, 1: 0.5, -1: 0.5})
        structured = any(isinstance(a, tuple) for a in self.args)
        form = choose(rng, {"list": 2, "tuple": 2, "nested": 2 if structured else 0,
                            "bare": 1.5 if len(self.names) == 1 and delta == 0 else 0})
        return SimpleNamespace(
            entries=entries, delta=delta, form=form, kw=rng.random() < (0.9 if reads else 0.5),
            through=rng.random() < 0.5, cg=rng.random() < 0.15,
            exact=not self.assigns and rng.random() < 0.15,
            var_entries={n: pick(rng, ["x", "sin", "ones", "ones", "none"]) for n, *_ in VARS},
            var_form=pick(rng, ["list", "tuple"]), var_delta=choose(rng, {0: 14, 1: 0.5, -1: 0.5}))

    def __repr__(self) -> str:  # (Python, neutral between TF and tapejax)
        def arg(a):
            if isinstance(a, tuple):
                inner = ", ".join(arg(n) for n in a[1])
                return f"[{inner}]" if a[0] == "list" else f"({inner},)"
            kind, shape = self.leaf[a]
            return f"{a}: " + ("float" if kind == "p" else f"{kind}32{list(shape)}")

        def val(x):
            return f"{x.dtype.kind}32{list(x.shape)} {np.round(x.astype(float), 3).tolist()}" if \
                isinstance(x, np.ndarray) else repr(x)
        lines = [f"Scenario({self.seed}): context={self.context}, wrapper={self.wrapper}",
                 f"  args = {', '.join(f'{n}={val(v)}' for n, v in self.values.items())}; "
                 f"Variables {', '.join(f'{n}={val(v)}' for n, v in self.var_init.items())} (v2 not trainable)",
                 f"  def f({', '.join(arg(a) for a in self.args)}):"]
        lines += [f"    {a[0]}.{op}({val(a[1])})" if op.startswith("assign") else
                  f"    {out} = {op}({', '.join(map(str, a))})" for op, a, out in self.body]
        lines.append(f"    y = {rebuild(self.output, str)!r}".replace("'", ""))
        if self.wrapper == "custom":
            g = self.grad
            c = " + ".join(f"sum(dy{k}{f' * y{k}' if g.through else ''})" for k in range(len(flat(self.output))))
            lines.append(f"    def grad_fn(*dys{', variables=None' if g.kw else ''}):  c = ({c})"
                         + (" * cg(sum(a0))" if g.cg else ""))
            if g.exact:
                lines.append("      return the exact gradient (the body re-run under a tape, output_gradients=dys)")
            else:
                ent = ", ".join(e if isinstance(e, str) else f"ones{list(e[1])}" for e in g.entries)
                lines.append(f"      return {g.form} of [{ent}] (each times c; none: None; py: 0.5)"
                             + (f", count {g.delta:+d}" if g.delta else "")
                             + f"; variables: {g.var_form} of {g.var_entries}"
                             + (f" count {g.var_delta:+d}" if g.var_delta else ""))
        return "\n".join(lines)


# -- running a scenario on one side --------------------------------------------------------------------------

class Side:
    """A scenario on one library: its Variables, the decorated function and the context's run."""

    def __init__(self, lib, sc: Scenario, fixes=frozenset()) -> None:
        self.lib, self.sc = lib, sc
        self.vars = {n: lib.variable(sc.var_init[n], name=n, trainable=t) for n, _, t in VARS}
        self.var_name = {id(v): n for n, v in self.vars.items()}
        self.calls = {"grad_fn": 0, "body": 0}
        self.stage = "call"
        # (TF's side only: after a TF accident "eager", "list_var_grads", "py_tensor"; "no_lazy_read")
        self.fixes = set(fixes)

    def arguments(self) -> list:
        values = self.sc.values
        return self.sc.pack(iter(v if isinstance(v, float) else self.lib.constant(v) for v in values.values()))

    def body(self, *args):
        """The body of f: its outputs."""
        self.calls["body"] += 1
        L, env = self.lib, dict(self.vars)
        env.update(zip(self.sc.names, flat(list(args))))
        for op, refs, out in self.sc.body:
            if op.startswith("assign"):
                kw = {"read_value": False} if "no_lazy_read" in self.fixes else {}
                getattr(env[refs[0]], op)(env[refs[1]] if isinstance(refs[1], str) else L.constant(refs[1]), **kw)
            else:
                env[out] = L.ops[op](*[env[r] if isinstance(r, str) else r for r in refs])
        return rebuild(self.sc.output, lambda n: env[n])

    def custom_body(self, *args):
        """``f`` of tf.custom_gradient / tj.custom_gradient: (outputs, grad_fn)."""
        L, g = self.lib, self.sc.grad
        y, leaves = self.body(*args), flat(list(args))

        def grad_fn(*dys, variables=None):
            self.calls["grad_fn"] += 1
            if g.exact:
                return self.exact(args, leaves, dys, variables)
            ys = flat(y)
            c = sum(L.sum(dy * ys[k] if g.through else dy) for k, dy in enumerate(dys))
            c = c * L.ops["cg"](L.sum(leaves[0])) if g.cg else c

            def entry(e, x):
                if e == "none":
                    return None
                if e == "py":
                    return L.constant(0.5) if "py_tensor" in self.fixes else 0.5
                if isinstance(e, tuple):
                    return c * L.ones(e[1])
                if e == "ones":
                    return c * (L.ones(()) if isinstance(x, float) else L.ones_like(L.ops["cast"](x)))
                return c * (x if e == "x" else L.ops["sin"](x))
            grads = [entry(e, x) for e, x in zip(g.entries, leaves)]
            grads = grads + [c * L.ones(())] if g.delta > 0 else grads[:len(grads) + g.delta]
            if g.form == "bare":
                grads = grads[0]
            elif g.form == "nested" and g.delta == 0:
                grads = self.sc.pack(iter(grads))
            elif g.form == "tuple":
                grads = tuple(grads)
            if variables is None:
                return grads
            vg = [entry(g.var_entries.get(self.var_name.get(id(v)), "ones"), v) for v in variables]
            vg = vg + [c * L.ones(())] if g.var_delta > 0 else vg[:len(vg) + g.var_delta]
            return grads, (tuple(vg) if g.var_form == "tuple" and "list_var_grads" not in self.fixes else vg)
        return y, (grad_fn if g.kw else lambda *dys: grad_fn(*dys))

    def exact(self, args, leaves, dys, variables):
        """The exact gradient: the body re-run under a tape (as recompute_grad does)."""
        srcs = [x for x in leaves if not isinstance(x, float)] + list(variables or [])
        with self.lib.tape() as t:
            t.watch(srcs)
            y = self.body(*args)
        it = iter(t.gradient(flat(y), srcs, output_gradients=list(dys)))
        grads = [None if isinstance(x, float) else next(it) for x in leaves]
        return grads if variables is None else (grads, list(it))

    def decorated(self):
        w, L = self.sc.wrapper, self.lib
        if w == "custom":
            return L.custom_gradient(self.custom_body)
        return (L.recompute_grad if w == "recompute" else L.grad_pass_through)(self.body)

    def loss(self, y):  # (sum_k sum(w_k * y_k))
        return sum(self.lib.sum(leaf * weights(np.shape(leaf), k)) for k, leaf in enumerate(flat(y)))

    def run(self) -> tuple:
        """(results: [(stage, value)], raised: (stage, exception) or None)."""
        out: list = []
        try:
            self._run(out)
        except Exception as e:  # noqa: BLE001
            return out, (self.stage, e)
        if self.sc.context in EAGER:
            out.append(("grad_fn calls", f"{self.calls['grad_fn']}" + (
                f" (body runs {self.calls['body']})" if self.sc.wrapper == "recompute" else "")))
        return out, None

    def _run(self, out: list) -> None:
        L, sc, ctx = self.lib, self.sc, self.sc.context
        if "eager" in self.fixes:  # (TF's function contexts run eagerly, its jacobian by a loop)
            L = SimpleNamespace(**{**vars(L), "function": lambda fn: fn})
        g, args = self.decorated(), self.arguments()
        xs = [x for x in flat(args) if not isinstance(x, float)]
        srcs = xs + list(self.vars.values())

        def step(stage, fn):
            self.stage = stage
            out.append((stage, tree(value := fn())))
            return value
        if ctx in ("tape", "persistent", "output_gradients", "zero", "jacobian", "outer_function"):
            call = L.function(g) if ctx == "outer_function" else g
            with L.tape(persistent=ctx == "persistent" or "eager" in self.fixes) as t:
                t.watch(xs)
                y = step("call", lambda: call(*args))
                loss = self.loss(y)
            if ctx == "output_gradients":
                ogs = [L.constant(weights(np.shape(leaf), 20 + k)) for k, leaf in enumerate(flat(y))]
                step("gradient", lambda: t.gradient(flat(y), srcs, output_gradients=ogs))
            elif ctx == "jacobian":
                floats = [x for x in srcs if x.dtype == F32]  # (an int source: int_source, seen elsewhere)
                step("jacobian", lambda: t.jacobian(flat(y)[0], floats,
                                                    experimental_use_pfor="eager" not in self.fixes))
            else:
                step("gradient", lambda: t.gradient(loss, srcs, unconnected_gradients="zero" if ctx == "zero"
                                                    else "none"))
            if ctx == "persistent":
                step("gradient 2", lambda: t.gradient(loss, srcs[::-1]))
        elif ctx == "nested":
            with L.tape() as outer:
                outer.watch(xs)
                with L.tape() as inner:
                    inner.watch(xs)
                    loss = self.loss(step("call", lambda: g(*args)))
                first = step("gradient", lambda: inner.gradient(loss, srcs))
                terms = [L.sum(d * weights(np.shape(d), 50 + i)) for i, d in enumerate(first)
                         if d is not None and d.dtype == F32]  # (TF's int zeros of an int source: int_source)
                dot = sum(terms) if terms else None
            if dot is None:
                out.append(("second order", "no first derivative"))
            else:
                step("second order", lambda: outer.gradient(dot, srcs))
        elif ctx == "function":
            def fn(*a):
                ts = [x for x in flat(list(a)) if not isinstance(x, float)]
                with L.tape() as t:
                    t.watch(ts)
                    loss = self.loss(y := g(*a))
                return y, t.gradient(loss, ts + list(self.vars.values()))
            step("function", lambda: L.function(fn)(*args))
        elif ctx == "forward":
            primals = [x for x in xs if x.dtype == F32]
            tangents = [L.constant(weights(x.shape, 70 + i)) for i, x in enumerate(primals)]
            with L.acc(primals, tangents) as acc:
                y = step("call", lambda: g(*args))
            step("jvp", lambda: [acc.jvp(leaf) for leaf in flat(y)])

    def transpose_reference(self) -> tuple:
        """Forward mode as API.md defines it (the transpose of grad_fn): ``d/du <grad_fn(u), t>`` by nested tapes,
        on this side's library; (value, None) or (None, exception)."""
        L = self.lib
        args = self.arguments()
        primals = [x for x in flat(args) if not isinstance(x, float) and x.dtype == F32]
        tangents = [weights(x.shape, 70 + i) for i, x in enumerate(primals)]
        try:
            with L.tape() as outer:
                with L.tape() as inner:
                    inner.watch(primals)
                    y = self.decorated()(*args)
                us = [L.zeros_like(leaf) for leaf in flat(y)]
                outer.watch(us)
                gx = inner.gradient(flat(y), primals, output_gradients=us)
                s = sum(L.sum(d * t) for d, t in zip(gx, tangents) if d is not None)
            return tree(outer.gradient(s, us) if not isinstance(s, int) else [None] * len(us)), None
        except Exception as e:  # noqa: BLE001
            return None, e


def tree(x):
    """A result as NumPy arrays in its structure (lists, tuples, dicts, None, strings and counts kept)."""
    return rebuild(x, lambda v: v if v is None or isinstance(v, (str, int)) else np.asarray(v))


# -- comparing -----------------------------------------------------------------------------------------------

# TF's own error classes (tf.errors.OpError) are not Python's: the Python classes tapejax may raise for them
ACCEPTED = {"InvalidArgumentError": (ValueError, TypeError), "UnimplementedError": (NotImplementedError,)}
ORDER = ("call", "function", "gradient", "jacobian", "jvp", "gradient 2", "second order", "grad_fn calls")


def fmt(x) -> str:
    if isinstance(x, np.ndarray):
        values = (x.astype(float).round(4) if x.dtype.kind == "f" else x).tolist() if x.size <= 12 else "..."
        return f"{x.dtype.name}{list(x.shape)} {values}"
    if isinstance(x, (list, tuple)):
        inner = ", ".join(map(fmt, x)) + ("," if isinstance(x, tuple) and len(x) == 1 else "")
        return f"[{inner}]" if isinstance(x, list) else f"({inner})"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k}: {fmt(v)}" for k, v in x.items()) + "}"
    return str(x)


def same_class(e, f) -> bool:
    """Whether tapejax's exception ``f`` stands for TF's ``e`` (its class or a subclass; ACCEPTED for OpErrors)."""
    return not type(f).__module__.startswith("jax") and isinstance(
        f, ACCEPTED.get(type(e).__name__, ()) if isinstance(e, tf.errors.OpError) else type(e))


def jax_internal(e) -> bool:
    return type(e).__module__.startswith("jax") or any(s in str(e) for s in ("jaxpr", "XlaRuntimeError", "Tracer"))


def _line(e) -> str:
    return (str(e).strip().splitlines() or [""])[0][:200]


def reconcile(g, w, notes: list):
    """``w`` with each Python float gradient of TF (a float64 scalar here; tapejax: a float32 Tensor of the same
    value) replaced by tapejax's, noted in ``notes``."""
    if isinstance(w, np.ndarray) and isinstance(g, np.ndarray):
        if w.dtype == np.float64 and g.dtype == F32 and w.shape == g.shape == () and np.isclose(g, w):
            notes.append("a Python float gradient: TF gives it back as it is, tj as a float32 Tensor")
            return g
        return w
    if isinstance(w, (list, tuple)) and type(g) is type(w) and len(g) == len(w):
        return type(w)(reconcile(x, y, notes) for x, y in zip(g, w))
    if isinstance(w, dict) and isinstance(g, dict) and sorted(g) == sorted(w):
        return {k: reconcile(g[k], w[k], notes) for k in w}
    return w


def mask_int_sources(sc: Scenario, stage, g, w, out: list):
    """``w`` with TF's gradients of int arguments (grad_fn's, where tapejax gives None, or int zeros with
    unconnected_gradients='zero': KNOWN int_source, noted in ``out``) replaced by tapejax's."""
    gs, ws = (g[1], w[1]) if stage == "function" else (g, w)
    if stage not in ("gradient", "gradient 2", "second order", "function") or not (
            isinstance(ws, list) and isinstance(gs, list) and len(gs) == len(ws)):
        return w
    ints = [i for i, n in enumerate(n for n in sc.names if sc.leaf[n][0] != "p") if sc.leaf[n][0] == "i"]
    ints = [len(gs) - 1 - i for i in ints] if stage == "gradient 2" else ints  # (its sources reversed)
    none = [i for i in ints if (gs[i] is None or gs[i].dtype.kind == "i" and not gs[i].any()) and differ(gs[i], ws[i])]
    if not none:
        return w
    out.append((stage, f"{stage}: an int argument's gradient: tj None (or int zeros), TF grad_fn's", "int_source"))
    ws = [gs[i] if i in none else x for i, x in enumerate(ws)]
    return (w[0], ws) if stage == "function" else ws


def problems_of(sc: Scenario, tf_run, tj_run) -> list:
    """[(stage, text, KNOWN name or None)] of the differences between the two sides' runs, in stage order."""
    (tf_out, tf_raised), (tj_out, tj_raised) = tf_run, tj_run
    out, mine = [], dict(tj_out)
    for stage, w in tf_out:
        if stage in mine:
            g, notes = mine[stage], []
            w = mask_int_sources(sc, stage, g, reconcile(g, w, notes), out)
            out += [(stage, f"{stage}: {n}", "python_float_gradient") for n in sorted(set(notes))]
            if (d := differ(g, w)) is not None:
                out.append((stage, f"{stage}: {d}", None))
    if tf_raised or tj_raised:
        (es, e), (fs, f) = tf_raised or (None, None), tj_raised or (None, None)
        late = sc.context == "outer_function" and (es, fs) == ("call", "gradient")  # (TF builds the function's
        # backward function when the tape records its call)
        if e is None or f is None or not same_class(e, f) or (es != fs and not late):
            text = f"raised: TF {f'{type(e).__name__} in {es}' if e else 'nothing'}, " \
                   f"tj {f'{type(f).__name__} in {fs}' if f else 'nothing'}"
            out.append((es or fs, text + (f"; JAX's internal error: {_line(f)[:100]}" if jax_internal(f) else ""),
                        None))
        elif jax_internal(f):  # (API.md: never a crash inside jax)
            out.append((fs, f"message: tj's {type(f).__name__} is JAX's internal error: {_line(f)[:100]}", None))
        elif isinstance(e, ValueError) and sc.wrapper == "custom" and sc.grad.delta and not sc.grad.exact and \
                "variable" not in str(f):
            n = len(sc.names)
            if not (str(n) in str(f) and str(n + sc.grad.delta) in str(f)):
                out.append((es, f"message: the ValueError does not name {n} and {n + sc.grad.delta}", None))
    return sorted(out, key=lambda p: ORDER.index(p[0]))


# Differences API.md makes on purpose, and TF accidents: name -> why; known() says which one a problem is
KNOWN = {
    "forward_mode": "API.md (Custom gradients): forward mode transposes grad_fn, where TF eager differentiates the "
                    "visible forward ops (tapejax's JVP is TF's transpose of grad_fn, d/du <grad_fn(u), t>)",
    "recompute_second_order": "API.md (recompute_grad): same gradients as f, first and second order; TF's "
                              "recompute_grad raises NotImplementedError for a second derivative",
    "int_source": "API.md (Reverse mode): non-float sources give None (zeros with ZERO); TF gives grad_fn's "
                  "gradient for an int argument",
    "python_float_gradient": "TF accident: a Python float from grad_fn is TF's gradient as it is (its forward and "
                             "graph modes raise AttributeError on it: compared with TF given a constant); tapejax's "
                             "is a float32 Tensor",
    "tf_graph_mode": "API.md (One set of rules on every path): TF's graph-mode custom_gradient (tf.function, pfor) "
                     "checks what its eager mode does not (gradient shapes, IdentityN; a Python float; the count: "
                     "InternalError) and raises: compared with TF eager instead (jacobian: a loop of gradients)",
    "grad_fn_assigns_outside_trace": "a grad_fn that assigns a Variable (recompute_grad of a body that does), "
                                     "differentiated from outside a tj.function's trace (a tape over the call): "
                                     "tapejax's rule of the trace cannot assign, and raises NotImplementedError "
                                     "rather than leave the Variable as it was (TF assigns it again); likewise "
                                     "for a grad_fn reading a Variable the function assigns (seed 5466: the re-run "
                                     "of a recompute_grad body that assigns, then reads)",
    "tf_tuple_variable_grads": "TF accident: TF computes flat_grads + variable_grads, so variable gradients given "
                               "as a tuple raise TypeError (API.md: grad_fn returns (input_grads, variable_grads)): "
                               "compared with TF given a list",
}


def known(sc: Scenario, problem, tf_run, tj_run, reference):
    """The KNOWN name explaining ``problem`` (stage, text, label), or None."""
    stage, text, label = problem
    e, f = (tf_run[1] or (None, None))[1], (tj_run[1] or (None, None))[1]
    if label or text.startswith("message"):
        return label
    if isinstance(f, NotImplementedError) and ("assigns Variable" in str(f) or "which the traced function assigns"
                                               in str(f)) and sc.context == "outer_function":
        return "grad_fn_assigns_outside_trace"
    if sc.tf_graph_error is not None and f is not None and same_class(sc.tf_graph_error, f):
        return "tf_graph_mode"  # (tapejax's graph path raises where TF's does)
    if reference is not None and (  # (forward, not recompute_grad: tapejax's is TF's transpose of grad_fn)
            f is None and stage in ("call", "jvp") and "jvp" in dict(tj_run[0]) and
            differ(dict(tj_run[0])["jvp"], reference[0]) is None or
            f is not None and reference[1] is not None and same_class(reference[1], f)):
        return "forward_mode"
    if sc.context == "nested" and sc.wrapper == "recompute" and f is None and isinstance(e, NotImplementedError):
        return "recompute_second_order"
    return None


# Genuine differences this tool found (tapejax differed from TF, no API.md sentence said so), all fixed since (tests:
# tests/test_tf_custom_gradient_fidelity.py); kept so that a regression is named by its symptom in the closing table
# (still a mismatch). name -> what it was; found() recognizes one
FOUND = {
    "assign_is_a_read": "a Variable assigned in f (assign/assign_add, read_value=True: TF's lazy read) is one of "
                        "TF's `variables` (TypeError without the keyword; grad_fn's gradient for it), not tapejax's",
    "nested_watchers": "a custom_gradient called in another's f before f reads a Variable: ValueError 'list.remove(x):"
                       " x not in list' (tape_set.watch_variable_reads removes the first *equal* dict)",
    "traced_gradient_shape": "a grad_fn gradient of another shape than its input, a tape over a tj.function call: "
                             "JAX's 'Cannot lower jaxpr with verifier errors' (eager: the gradient as given, as TF)",
    "traced_grad_fn_assign": "a grad_fn that assigns a Variable (recompute_grad of a body that assigns), traced: inside"
                             " tj.function JAX's UnexpectedTracerError at the call, even with no tape; a tape over a "
                             "tj.function of it: ValueError 'foreach() argument 2 is shorter than argument 1'",
    "forward_other_shape": "under a ForwardAccumulator, a grad_fn gradient of another shape than its input: "
                           "ValueError about GradientTape.gradient's output_gradients (a call the user did not make); "
                           "TF gives a JVP where the gradient does not depend on the dys (0.5 for a (3,) x), else "
                           "InvalidArgumentError, or a tangent of another shape than its output",
}


def found(sc: Scenario, tf_run, tj_run):
    """The FOUND name of a mismatch, or None."""
    e, f = (tf_run[1] or (None, None))[1], (tj_run[1] or (None, None))[1]
    if "x not in list" in str(f):
        return "nested_watchers"
    if "Cannot lower jaxpr" in str(f) and sc.context == "outer_function":
        return "traced_gradient_shape"
    if f is not None and e is None and sc.assigns and sc.wrapper == "recompute" and "function" in sc.context:
        return "traced_grad_fn_assign"
    if e is None and sc.context == "forward" and "output_gradients of shape" in str(f):
        return "forward_other_shape"
    return None


def accident(sc: Scenario, e, fixes):
    """(fix, KNOWN name, what the fix is) for TF's error ``e``, where it is an accident, or None."""
    custom = sc.wrapper == "custom" and not sc.grad.exact
    if "concatenate list" in str(e) and custom and sc.grad.var_form == "tuple" and "list_var_grads" not in fixes:
        return "list_var_grads", "tf_tuple_variable_grads", "given the variable gradients as a list"
    if "'float' object has no attribute" in str(e) and custom and "py" in sc.grad.entries and "py_tensor" not in fixes:
        return "py_tensor", "python_float_gradient", "given tf.constant(0.5) for the Python float"
    if sc.context in ("function", "outer_function", "jacobian") and "eager" not in fixes:
        return "eager", "tf_graph_mode", "eager"
    return None


def tf_reference(sc: Scenario, fixes: set):
    """TF's run of ``sc`` (with ``fixes``, and those its accidents call for), the notes saying which, and the forward
    reference (TF's transpose of grad_fn)."""
    tf_run, notes, reference = Side(TF, sc, fixes).run(), [], None
    while tf_run[1] and (fix := accident(sc, tf_run[1][1], fixes)):  # TF raised by accident: TF without it
        run = Side(TF, sc, fixes | {fix[0]}).run()
        if fix[0] == "eager" and run[1] and same_class(run[1][1], tf_run[1][1]):
            break  # (TF eager raises the same: no graph accident)
        if fix[0] == "eager":
            sc.tf_graph_error = tf_run[1][1]
        notes.append((tf_run[1][0], f"TF raised {type(tf_run[1][1]).__name__}: {_line(tf_run[1][1])[:80]}; "
                                    f"compared with TF {fix[2]}", fix[1]))
        tf_run, fixes = run, fixes | {fix[0]}
    if sc.context == "forward" and sc.wrapper != "recompute":
        reference = Side(TF, sc, fixes).transpose_reference()
    return tf_run, notes, reference


def label(sc: Scenario, notes, tf_run, tj_run, reference) -> list:
    """[(text, label, FOUND name)] of the problems: label None for a mismatch, a KNOWN name, or "follows" (a stage
    after a differing one)."""
    labelled, after = [], set()  # (after: the stages that follow from a difference already seen)
    for p in notes + problems_of(sc, tf_run, tj_run):
        kind = known(sc, p, tf_run, tj_run, reference)
        if p[0] in after:
            kind = kind or "follows"
        elif p[1].startswith("TF raised"):  # (says what TF's side is)
            pass
        elif kind in ("int_source", "python_float_gradient"):  # (masked: only a second order sums them in)
            after.add("second order")
        else:
            after.update(ORDER[ORDER.index(p[0]) + 1:])
        labelled.append((p[1], kind, found(sc, tf_run, tj_run) if kind is None else None))
    return labelled


def badness(labelled) -> tuple:
    """(mismatches of no FOUND cause, mismatches) of a list of labelled problems."""
    return sum(k is None and not c for _, k, c in labelled), sum(k is None for _, k, _ in labelled)


def check(seed: int):
    """("ok" | "mismatch" | "known", scenario, TF run, tj run, [(text, label, FOUND name)], forward reference)."""
    sc = Scenario(seed)
    tj_run = Side(TJ, sc).run()
    tf_run, notes, reference = tf_reference(sc, set())
    labelled = label(sc, notes, tf_run, tj_run, reference)
    if sc.assigns and any(k is None for _, k, _ in labelled):
        # FOUND assign_is_a_read: where TF's assign(read_value=False), which does not read, gives fewer mismatches,
        # they are that difference; what remains is compared with it
        run, notes, ref = tf_reference(sc, {"no_lazy_read"})
        other = label(sc, notes, run, tj_run, ref)
        if badness(other) < badness(labelled):
            text = "TF's assign reads the Variable (a `variables` entry): compared with TF's assign(read_value=False)"
            labelled, tf_run, reference = [(text, None, "assign_is_a_read")] + other, run, ref
    kind = "mismatch" if any(k is None for _, k, _ in labelled) else "known" if labelled else "ok"
    return kind, sc, tf_run, tj_run, labelled, reference


def show(run) -> str:
    out, raised = run
    text = "; ".join(f"{stage}: {fmt(v)}" for stage, v in out)
    return text + (f"; raised in {raised[0]} {type(raised[1]).__name__}: {_line(raised[1])}" if raised else "")


OUTCOMES = ("ok", "mismatch", "known")


def main(argv=None) -> int:
    args = seed_arguments(__doc__, argv, 200, "scenario")
    counts, signatures, known_seeds = dict.fromkeys(OUTCOMES, 0), {}, {}
    for seed in range(args.first, args.first + args.programs):
        kind, sc, tf_run, tj_run, problems, reference = check(seed)
        counts[kind] += 1
        if kind == "ok" and not args.verbose:
            continue
        print(f"[{kind}] {sc!r}\n    TF: {show(tf_run)}\n    tj: {show(tj_run)}")
        if reference is not None and args.verbose:
            print(f"    TF's transpose of grad_fn: {fmt(reference[0]) if reference[1] is None else reference[1]!r}")
        for p, k, cause in problems:
            print(f"    -> {p}" + (f"  (known: {k})" if k in KNOWN else "  (follows)" if k else
                                   f"  (found: {cause})" if cause else ""))
            if k is None:
                signatures.setdefault(f"found: {cause}" if cause else f"{sc.context}/{sc.wrapper}: {p}",
                                      set()).add(seed)
            elif k in KNOWN:
                known_seeds.setdefault(k, set()).add(seed)
    print(f"\n{args.programs} scenarios (seeds {args.first}-{args.first + args.programs - 1}): " +
          ", ".join(f"{v} {k}" for k, v in counts.items()))
    for k, seeds in known_seeds.items():
        print(f"  known {k} ({len(seeds)}: {sorted(seeds)[:8]}): {KNOWN[k]}")
    if signatures:
        print_seed_table("mismatches by cause (FOUND) or by context/wrapper and problem (seeds):", signatures)
        for name in sorted({s[7:] for s in signatures if s.startswith("found: ")}):
            print(f"  found {name}: {FOUND[name]}")
    return 1 if counts["mismatch"] else 0


if __name__ == "__main__":
    sys.exit(main())
