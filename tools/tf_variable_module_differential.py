"""Differential test of ``tj.Variable`` against ``tf.Variable`` and ``tj.Module`` against ``tf.Module``: random
scenarios of Variable creation, assignment, reads, operators and conversions, gradients of losses reading
Variables, trees of Modules holding Variables, and Modules whose ``tj.function`` / ``tf.function`` ``__call__``
builds Variables lazily, run action for action on both libraries.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python tools/tf_variable_module_differential.py [--first K] [--programs N] [--verbose]

tools/tf_tape_protocol_differential.py compares the tapes' rules; this compares the state around them.
``Scenario(seed)`` draws (``numpy.random.default_rng(seed)``) 3-12 actions over twin pools of Variables (v0,
v1...), Modules (m0, m1...) and literal values. Actions: ``create`` (a Variable from a Python number, list or
bool, a NumPy float32/float64/int32/bool array, a Tensor, another Variable or a callable, with or without
``dtype=``, ``trainable=``, ``name=``, maybe inside a Module's ``name_scope``); ``assign`` (``assign`` /
``assign_add`` / ``assign_sub``, ``read_value`` both ways, a value of the Variable's shape and dtype, a Python
value, a broadcastable or wrong shape, a NumPy array or Tensor of another dtype, another Variable); ``op`` (an
operator, ``float``, ``bool``, ``len``, iteration, indexing, ``read_value`` / ``value`` / ``numpy``,
``np.asarray``, ``tf.convert_to_tensor`` against ``tj.constant``, the properties ``shape``, ``dtype``,
``trainable``, ``name``, ``u = v; u += 1``, a Variable as a dict key, ``v[:1].assign(v[-1:])``); ``tape`` (a
GradientTape, ``watch_accessed_variables`` both ways, whose steps read Variables into a loss, assign to them and
watch them, then ``gradient`` with respect to some, and ``watched_variables()``); ``module`` (a Module subclass,
its name given, invalid or the class's, attributes holding pool Variables, new Variables, pool Modules, None,
numbers, and nested lists, tuples, namedtuples, dicts with str, int or mixed keys, and plain objects of them);
``setattr`` / ``delattr`` / ``append`` on a Module (replacing, deleting, cycles: a Module holding one that holds it);
``query`` (``variables``, ``trainable_variables``, ``non_trainable_variables``, ``submodules``, ``name``,
``name_scope.name``); ``fmodule`` / ``fcall`` / ``fgrad`` (a Module whose ``__call__`` is a ``tj.function`` /
``tf.function`` creating its Variables on the first call, always, or per input width, counting calls with
``assign_add``, maybe scaling by a pool Variable assigned between calls; calls with new input shapes, which
retrace; a tape over a call).

For each action it compares whether it raised (tapejax must raise TF's class or a subclass; for TF's own
``OpError`` classes the Python classes of the tape tool's ``ACCEPTED``), whether it warned, and its result
(kind of object: Tensor, Variable, NumPy scalar or array, Python number; shapes, dtypes and values with
``result_trees.differ``; Variables and Modules returned by queries as their twin's pool name, so identity and
order are compared), and then the value of every pool Variable (a failed assignment must leave it unchanged) and
of a called Module's Variables. An ``op`` is also run on a Tensor of the Variable's value on each side: where both
sides' Variables behave as their Tensors do, a difference is the Tensor's (KNOWN "tensor_level", left to the op
tools).
A scenario whose only differences are ``KNOWN`` (API.md makes tapejax differ on purpose) counts as "known"; a
difference in an action that uses what an earlier differing action made is printed as following from it and
left out of the closing tables: the known differences, then the distinct mismatches (with their seeds).
"""
from __future__ import annotations

import copy
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tf_tape_protocol_differential as tape_tool  # noqa: E402  (TF's logging captured, warnings, Outcome)

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import tapejax as tj  # noqa: E402
from result_trees import differ  # noqa: E402
from seed_runs import print_seed_table, seed_arguments  # noqa: E402

tnp = tj.numpy
pick, Outcome, run_action = tape_tool.pick, tape_tool.Outcome, tape_tool.run_action
F32, F64, I32, BOOL = np.float32, np.float64, np.int32, np.bool_
DT = {F32: "float32", F64: "float64", I32: "int32", BOOL: "bool"}


# -- literal values of a scenario ----------------------------------------------------------------------------

class Lit:
    """A value in a scenario, given to both libraries as ``how``: "py" (Python numbers, bools or nested lists),
    "np" (a NumPy array of ``a``'s dtype), "tensor" (each side's constant of it), "call" (``lambda: <py value>``)."""

    def __init__(self, how: str, a) -> None:
        self.how, self.a = how, np.asarray(a)

    def make(self, lib):
        if self.how == "py":
            return self.a.tolist()
        if self.how == "np":
            return self.a.copy()
        if self.how == "tensor":
            return lib.constant(self.a)
        return lambda: self.a.tolist()

    def __repr__(self) -> str:
        if self.how in ("py", "call") and self.a.size <= 4:
            s = repr(self.a.tolist())
            return f"lambda: {s}" if self.how == "call" else s
        what = f"{DT[self.a.dtype.type][0] if self.a.dtype != BOOL else 'b'}" \
               f"{self.a.dtype.itemsize * 8 if self.a.dtype != BOOL else ''}{list(self.a.shape)}"
        return {"py": f"py{what}", "np": f"np.{what}", "tensor": f"constant({what})",
                "call": f"lambda: py{what}"}[self.how]

    @property
    def x64(self) -> bool:  # (TF keeps a float64 Tensor; tapejax, JAX's x64 off, makes it float32)
        return self.how == "tensor" and self.a.dtype == F64


def draw(rng, shape, dtype):
    if dtype == BOOL:
        return rng.random(size=shape) < 0.5
    if dtype == I32:
        return np.asarray(rng.integers(-3, 4, size=shape), I32)
    return np.asarray(np.round(rng.normal(size=shape), 2), dtype)


# -- scenarios -----------------------------------------------------------------------------------------------

class Action:
    """One step: ``kind`` with its arguments ``kw``; ``text`` reads as (library-neutral) Python; ``sig`` names
    the variant in the closing table."""

    def __init__(self, kind: str, text: str, sig: str = "", **kw) -> None:
        self.kind, self.text, self.sig, self.kw = kind, text, sig or kind, kw

    def __repr__(self) -> str:
        return self.text


SHAPES = [(), (3,), (2, 3), (1,), (2,)]
NAMES = [None] * 6 + ["v", "w", "kernel", "a/b", "my var", "x:0", ""]
CLASSES = ["Dense", "MyMLP", "Block2", "HTTPLayer", "Layer", "M"]
ATTRS = ["a", "b", "w", "z", "layers", "_p", "kernel", "bias", "Zeta", "sub"]
MODULE_NAMES = [None] * 12 + ["enc", "dec", "Enc_2", "_x", "enc", "1bad", "a-b", "a b", "", "m/n"]
OPS = ["add1", "radd", "neg", "mul", "sub_py", "div2", "pow2", "matmul", "index1", "index_neg", "slice", "gt0",
       "eq", "abs", "float", "int", "bool", "len", "iter", "convert", "asarray", "numpy", "read_value", "value",
       "props", "name", "format", "astype_f32", "iadd", "hash", "slice_assign"]
QUERIES = ["variables", "trainable_variables", "non_trainable_variables", "submodules", "name", "scope"]


class Scenario:
    """The actions of ``seed``, drawn with a model of the pools (each Variable's shape, dtype as TF makes it,
    whether TF's is 64-bit; each Module's attributes) so that most actions are valid."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        rng = self.rng = np.random.default_rng(seed)
        self.vars: dict = {}  # name -> (shape, dtype, x64)
        self.mods: dict = {}  # name -> {attribute: spec} (None for a lazily built one: "lazy")
        self.lazy: dict = {}  # name -> variant
        self.lazy_refs: dict = {}  # name -> it and the Variable its call reads
        self.actions: list = []
        for _ in range(int(rng.integers(2, 4))):
            self._create()
        for _ in range(int(rng.integers(1, 10))):
            self._step()

    def __repr__(self) -> str:
        return f"Scenario({self.seed}):\n" + "\n".join(f"      {i}. {a}" for i, a in enumerate(self.actions))

    def _add(self, kind, text, sig="", **kw) -> None:
        self.actions.append(Action(kind, text, sig, **kw))

    def _step(self) -> None:
        rng = self.rng
        has_mod = any(m is not None for m in self.mods.values())
        w = {"create": 1.5, "assign": 3.0, "op": 3.0, "tape": 2.0, "module": 2.0 if len(self.mods) < 5 else 0.0,
             "setattr": 1.5 if has_mod else 0.0, "delattr": 0.5 if has_mod else 0.0,
             "append": 0.5 if has_mod else 0.0, "query": 4.0 if has_mod else 0.0,
             "fmodule": 0.6 if not self.lazy else 0.0, "fcall": 2.0 if self.lazy else 0.0,
             "fgrad": 0.8 if self.lazy else 0.0}
        kinds = list(w)
        p = np.array([w[k] for k in kinds]) / sum(w.values())
        getattr(self, "_" + kinds[int(rng.choice(len(kinds), p=p))])()

    # -- Variables ------------------------------------------------------------------------------------
    def _var_name(self) -> str:
        return f"v{len(self.vars)}"

    def _var_spec(self, float_only=False):
        """(initial value Lit, dtype argument or None, trainable, name, TF's dtype, shape)."""
        rng = self.rng
        shape = pick(rng, SHAPES)
        src = np.float32 if float_only else pick(rng, [F32] * 10 + [F64, I32, I32, I32, I32, BOOL, BOOL])
        how = "py" if float_only else pick(rng, ["py", "py", "np", "np", "tensor", "call"])
        a = draw(rng, shape, src)
        if how in ("py", "call") and src == F64:
            a = a.astype(F32)  # (a Python float is a float: float32 in both)
        dtype = None if float_only or rng.random() < 0.7 else pick(rng, [F32] * 4 + [I32, I32, I32, BOOL, BOOL, F64])
        trainable = bool(rng.random() < 0.75)
        name = pick(rng, NAMES)
        tf_dtype = dtype or (a.dtype.type if how in ("np", "tensor") else
                             {F64: F32, F32: F32, I32: I32, BOOL: BOOL}[a.dtype.type])
        if how in ("py", "call") and src in (F32, F64):  # Python floats: float32 unless dtype says otherwise
            tf_dtype = dtype or F32
        return Lit(how, a), dtype, trainable, name, tf_dtype, shape

    def _create(self, scope=None, float_only=False) -> str:
        rng = self.rng
        lit, dtype, trainable, name, tf_dtype, shape = self._var_spec(float_only)
        if scope is None and self.mods and rng.random() < 0.15:
            scope = pick(rng, list(self.mods))
        from_var = self._var() if self.vars and rng.random() < 0.06 else None
        if from_var:  # (initial_value another Variable: its value)
            shape, tf_dtype = self.vars[from_var][:2]
            tf_dtype = dtype or tf_dtype
        v = self._var_name()
        x64 = tf_dtype == F64 or lit.x64 or lit.a.dtype == F64 and dtype is None and lit.how == "np"
        self.vars[v] = (shape, tf_dtype, x64)
        args = [from_var or repr(lit)] + ([f"dtype={DT[dtype]}"] if dtype else []) + \
               ([] if trainable else ["trainable=False"]) + ([f"name={name!r}"] if name is not None else [])
        text = f"{v} = Variable({', '.join(args)})"
        if scope:
            text = f"with {scope}.name_scope: {text}"
        self._add("create", text, f"create[{lit.how} {lit.a.dtype.name}{'' if dtype is None else '->' + DT[dtype]}]",
                  var=v, lit=lit, dtype=dtype, trainable=trainable, name=name, scope=scope, from_var=from_var,
                  x64=x64 or bool(from_var and self.vars[from_var][2]),
                  refs={v} | ({scope} if scope else set()) | ({from_var} if from_var else set()))
        return v

    def _var(self, pred=lambda s, d: True):
        names = [n for n, (s, d, _) in self.vars.items() if pred(s, d)]
        return pick(self.rng, names) if names else None

    def _assign(self) -> None:
        rng = self.rng
        v = self._var()
        shape, dtype, x64 = self.vars[v]
        how = pick(rng, ["assign", "assign", "assign_add", "assign_sub"])
        kind = pick(rng, ["same"] * 4 + ["py", "py", "tensor", "var", "broadcast", "wrong", "int_into_float",
                                         "float_into_int", "f64_into_f32", "pyfloat_into_int", "other_tensor"])
        other = None
        if kind == "var":
            other = self._var(lambda s, d: s == shape and d == dtype)
            kind = "same" if other is None else kind
        if kind == "broadcast":
            s = () if shape != () else (1,)
            lit = Lit(pick(rng, ["py", "np"]), draw(rng, s if len(shape) < 2 else shape[1:], dtype))
        elif kind == "wrong":
            lit = Lit(pick(rng, ["py", "np"]), draw(rng, pick(rng, [(4,), (2, 2), (3, 2)]), dtype))
        elif kind == "int_into_float":
            lit = Lit(pick(rng, ["py", "np"]), draw(rng, shape, I32))
        elif kind == "float_into_int":
            lit = Lit(pick(rng, ["np", "tensor"]), draw(rng, shape, F32))
        elif kind == "pyfloat_into_int":
            lit = Lit("py", draw(rng, shape, F32) + np.float32(0.5))
        elif kind == "f64_into_f32":
            lit = Lit(pick(rng, ["py", "np"]), draw(rng, shape, F64))
        elif kind == "other_tensor":
            lit = Lit("tensor", draw(rng, shape, pick(rng, [F32, I32, BOOL])))
        else:
            lit = Lit({"same": "np", "py": "py", "tensor": "tensor"}.get(kind, "np"), draw(rng, shape, dtype))
        read_value = bool(rng.random() < 0.7)
        arg = other if other else repr(lit)
        self._add("assign", f"{v}.{how}({arg}{'' if read_value else ', read_value=False'})",
                  f"{how}[{kind} into {DT[dtype]}]", var=v, how=how, lit=lit, other=other, read_value=read_value,
                  kinds=(lit.a.dtype.kind, np.dtype(dtype).kind),
                  x64=x64 or (lit.x64 if other is None else self.vars[other][2]),
                  refs={v} | ({other} if other else set()))

    def _op(self) -> None:
        v = self._var()
        shape, dtype, x64 = self.vars[v]
        op = pick(self.rng, OPS)
        if op == "matmul" and len(shape) != 2:  # (TF's matmul wants rank 2; jnp's 1-D matmul is the op tools')
            op = "mul"
        m = draw(self.rng, (shape[-1] if shape else 3, 2), dtype if dtype != BOOL else F32)
        text = {"add1": "{v} + 1", "radd": "1 + {v}", "neg": "-{v}", "mul": "{v} * {v}", "sub_py": "2.5 - {v}",
                "div2": "{v} / 2", "pow2": "{v} ** 2", "matmul": "{v} @ {m}", "index1": "{v}[1]",
                "index_neg": "{v}[-1]", "slice": "{v}[:1]", "gt0": "{v} > 0", "eq": "{v} == {v}", "abs": "abs({v})",
                "float": "float({v})", "int": "int({v})", "bool": "bool({v})", "len": "len({v})",
                "iter": "list({v})", "convert": "tf.convert_to_tensor({v}) / tj.constant({v})",
                "asarray": "np.asarray({v})", "numpy": "{v}.numpy()", "read_value": "{v}.read_value()",
                "value": "{v}.value()", "props": "({v}.shape, {v}.dtype, {v}.trainable)", "name": "{v}.name",
                "format": "f'{{{v}:.2f}}'", "astype_f32": "cast({v}, float32)",
                "iadd": "u = {v}; u += 1", "hash": "{{{v}: 1}}[{v}]", "slice_assign": "{v}[:1].assign({v}[-1:])"}[op]
        self._add("op", text.format(v=v, m=f"np.{DT[m.dtype.type]}{list(m.shape)}"),
                  f"op[{op} {DT[dtype]}{list(shape)}]", var=v, op=op, m=m, x64=x64, refs={v})

    def _tape(self) -> None:
        rng = self.rng
        wav = bool(rng.random() < 0.75)
        steps, used = [], []
        for _ in range(int(rng.integers(1, 6))):
            v = self._var()
            shape, dtype, _ = self.vars[v]
            r = rng.random()
            if r < 0.45:
                steps.append(("read", v, draw(rng, shape, F32)))
            elif r < 0.6 and dtype == F32:
                steps.append(("square", v, None))
            elif r < 0.85 and dtype in (F32, I32):
                steps.append((pick(rng, ["assign", "assign_add", "assign_sub"]), v, draw(rng, shape, dtype)))
            else:
                steps.append(("watch", v, None))
            used.append(v)
        if not any(s[0] in ("read", "square") for s in steps):
            v = self._var()
            steps.append(("read", v, draw(rng, self.vars[v][0], F32)))
            used.append(v)
        sources = [pick(rng, used) if rng.random() < 0.8 else self._var() for _ in range(int(rng.integers(1, 4)))]
        target_var = bool(rng.random() < 0.1)
        text = "; ".join(f"{s}({v})" if c is None else f"{s}({v}, {DT[c.dtype.type][0]}{list(c.shape)})"
                         for s, v, c in steps)
        tgt = f"[loss, {sources[0]}]" if target_var else "loss"
        self._add("tape", f"with GradientTape(watch_accessed_variables={wav}) as t: {text}\n"
                          f"          t.gradient({tgt}, [{', '.join(sources)}])", "tape", wav=wav, steps=steps,
                  sources=sources, target_var=target_var, int_target=self.vars[sources[0]][1] != F32,
                  x64=any(self.vars[v][2] for v in used + sources),
                  refs=set(used + sources))

    # -- Modules --------------------------------------------------------------------------------------
    def _value_spec(self, depth=0, new_vars=None):
        """An attribute's value: ("var", v) | ("new", v, spec...) | ("mod", m) | ("const", c) | containers."""
        rng = self.rng
        r = rng.random()
        if depth < 2 and r < 0.3:
            n = int(rng.integers(0, 4))
            kind = pick(rng, ["list", "tuple", "dict", "dict", "intdict", "mixdict"] if rng.random() < 0.1 else
                        ["list", "tuple", "dict", "dict", "intdict", "namedtuple", "object"])
            items = [self._value_spec(depth + 1, new_vars) for _ in range(n)]
            if kind in ("namedtuple", "object"):  # (a namedtuple is walked as tf.nest walks it; an object is not)
                items = (items + [("const", None)] * 2)[:2]
                return ("nt" if kind == "namedtuple" else "obj", tuple(items))
            if kind == "list":
                return items
            if kind == "tuple":
                return tuple(items)
            keys = (pick(rng, [["b", "a", "c"], ["z", "a1", "A"]]) if kind == "dict" else [2, 0, 1] if kind == "intdict"
                    else [1, "a", 0])
            return dict(zip(keys[:n], items))
        if r < 0.55 and self.vars:
            return ("var", self._var())
        if r < 0.75 and new_vars is not None:
            v = self._create_quiet()
            new_vars.append(v)
            return ("new", v)
        if r < 0.9 and self.mods:
            return ("mod", pick(rng, list(self.mods)))
        return ("const", pick(rng, [None, 3, "s"]))

    def _create_quiet(self) -> str:
        """A new Variable made inside a Module's __init__ (always valid: float32, maybe not trainable)."""
        rng = self.rng
        v = self._var_name()
        shape = pick(rng, SHAPES[:3])
        trainable = bool(rng.random() < 0.7)
        self.vars[v] = (shape, F32, False)
        self.new_specs[v] = (draw(rng, shape, F32), trainable, pick(rng, [None, "w", "b", "kernel"]))
        return v

    def _module(self) -> None:
        rng = self.rng
        m = f"m{len(self.mods)}"
        cls, name = pick(rng, CLASSES), pick(rng, MODULE_NAMES)
        scope = pick(rng, list(self.mods)) if self.mods and rng.random() < 0.2 else None
        in_scope = bool(rng.random() < 0.5)  # (new Variables made inside the Module's own name_scope)
        self.new_specs = {}
        new_vars: list = []
        attrs = {}
        for _ in range(int(rng.integers(0, 5))):
            attrs[pick(rng, ATTRS)] = self._value_spec(0, new_vars)
        self.mods[m] = attrs
        text = f"class {cls}(Module); {m} = {cls}({'' if name is None else repr(name)})" + \
               "".join(f"; {m}.{k} = {fmt_spec(s)}" for k, s in attrs.items())
        if new_vars:
            text += f"  (new Variables {', '.join(new_vars)}{' in its name_scope' if in_scope else ''})"
        if scope:
            text = f"with {scope}.name_scope: {text}"
        self._add("module", text, f"module[name {'None' if name is None else 'given'}]", mod=m, cls=cls, name=name,
                  attrs=copy.deepcopy(attrs), new=dict(self.new_specs), in_scope=in_scope, scope=scope,
                  refs=spec_refs(attrs) | ({scope} if scope else set()), x64=False)

    def _mod(self) -> str:
        return pick(self.rng, [m for m, a in self.mods.items() if a is not None])

    def _setattr(self) -> None:
        m = self._mod()
        self.new_specs = {}
        new_vars: list = []
        key, spec = pick(self.rng, ATTRS), self._value_spec(0, new_vars)
        if self.rng.random() < 0.2 and len(self.mods) > 1:  # (often a cycle: a Module that holds this one)
            spec = ("mod", pick(self.rng, [x for x in self.mods if x != m]))
        self.mods[m][key] = spec
        self._add("setattr", f"{m}.{key} = {fmt_spec(spec)}", "setattr", mod=m, key=key, spec=copy.deepcopy(spec),
                  new=dict(self.new_specs), refs={m} | spec_refs(spec), x64=False)

    def _delattr(self) -> None:
        m = self._mod()
        keys = list(self.mods[m])
        key = pick(self.rng, keys) if keys and self.rng.random() < 0.85 else "missing"
        self.mods[m].pop(key, None)
        self._add("delattr", f"del {m}.{key}", f"delattr{'[missing]' if key == 'missing' else ''}", mod=m, key=key,
                  refs={m}, x64=False)

    def _append(self) -> None:
        m = self._mod()
        lists = [k for k, s in self.mods[m].items() if isinstance(s, list)]
        if not lists:
            self.mods[m]["layers"] = []
            self._add("setattr", f"{m}.layers = []", "setattr", mod=m, key="layers", spec=[], new={},  # (a new [])
                      refs={m}, x64=False)
            lists = ["layers"]
        key = pick(self.rng, lists)
        self.new_specs = {}
        new_vars: list = []
        spec = self._value_spec(1, new_vars)
        self.mods[m][key].append(spec)
        self._add("append", f"{m}.{key}.append({fmt_spec(spec)})", "append", mod=m, key=key, spec=copy.deepcopy(spec),
                  new=dict(self.new_specs), refs={m} | spec_refs(spec), x64=False)

    def _query(self) -> None:
        m = pick(self.rng, list(self.mods))
        q = pick(self.rng, QUERIES)
        text = {"scope": f"{m}.name_scope.name"}.get(q, f"{m}.{q}")
        self._add("query", text, f"query[{q}]", mod=m, q=q, refs=set(self.mods), x64=False)

    # -- tj.function / tf.function: lazily built Modules ---------------------------------------------------
    def _fmodule(self) -> None:
        m = f"m{len(self.mods)}"
        variant = pick(self.rng, ["lazy", "lazy", "lazy_scoped", "always", "per_width"])
        counter = pick(self.rng, [None, I32, F32])
        scale = self._var(lambda s, d: s == () and d == F32) if self.rng.random() < 0.6 else None
        self.mods[m] = None
        self.lazy[m] = variant
        self.lazy_refs[m] = {m} | ({scale} if scale else set())
        self._add("fmodule", f"{m} = Lazy(variant={variant!r}, counter={DT.get(counter)}, scale={scale})  "
                             "(__call__ a function: w = Variable(...) on the first call, ...; returns x @ w * scale)",
                  f"fmodule[{variant}]", mod=m, variant=variant, counter=counter, scale=scale,
                  refs=self.lazy_refs[m], x64=False)
        for _ in range(int(self.rng.integers(1, 3))):
            self._fcall(m)

    def _fcall(self, m=None) -> None:
        m = m or pick(self.rng, list(self.lazy))
        shape = pick(self.rng, [(2, 3), (2, 3), (1, 3), (2, 4)])
        x = draw(self.rng, shape, F32)
        self._add("fcall", f"{m}(np.f32{list(shape)})", f"fcall[{self.lazy[m]}]", mod=m, x=x, refs=self.lazy_refs[m],
                  x64=False)

    def _fgrad(self) -> None:
        m = pick(self.rng, list(self.lazy))
        x = draw(self.rng, (2, 3), F32)
        self._add("fgrad", f"with GradientTape() as t: y = {m}(np.f32[2, 3]); "
                           f"t.gradient(sum(y * y), sorted({m}.trainable_variables by name))",
                  f"fgrad[{self.lazy[m]}]", mod=m, x=x, refs=self.lazy_refs[m], x64=False)


NT = __import__("collections").namedtuple("NT", ["p", "q"])


class Obj:
    """A plain object holding two values (not a structure tf.nest walks)."""

    def __init__(self, p, q) -> None:
        self.p, self.q = p, q


def fmt_spec(spec) -> str:
    if isinstance(spec, list):
        return "[" + ", ".join(map(fmt_spec, spec)) + "]"
    if isinstance(spec, tuple) and (not spec or not isinstance(spec[0], str)):
        return "(" + ", ".join(map(fmt_spec, spec)) + ("," if len(spec) == 1 else "") + ")"
    if isinstance(spec, dict):
        return "{" + ", ".join(f"{k!r}: {fmt_spec(v)}" for k, v in spec.items()) + "}"
    if spec[0] in ("nt", "obj"):
        return f"{'NT' if spec[0] == 'nt' else 'Obj'}({fmt_spec(spec[1][0])}, {fmt_spec(spec[1][1])})"
    return repr(spec[1]) if spec[0] == "const" else spec[1]


def spec_refs(spec) -> set:
    if isinstance(spec, dict):
        return {r for s in spec.values() for r in spec_refs(s)}
    if isinstance(spec, list) or (isinstance(spec, tuple) and (not spec or not isinstance(spec[0], str))):
        return {r for s in spec for r in spec_refs(s)}
    if spec[0] in ("nt", "obj"):
        return spec_refs(list(spec[1]))
    return set() if spec[0] == "const" else {spec[1]}


# -- the two libraries ---------------------------------------------------------------------------------------

class Lib:
    def __init__(self, name, lib, dtypes, convert, cast, ssum, matmul, tensor_types, variable) -> None:
        self.name, self.lib, self.dtypes, self.convert, self.cast = name, lib, dtypes, convert, cast
        self.sum, self.matmul, self.tensor_types, self.Variable = ssum, matmul, tensor_types, variable
        self.constant, self.Module, self.function, self.tape = lib.constant, lib.Module, lib.function, \
            lib.GradientTape


TF = Lib("TF", tf, {F32: tf.float32, F64: tf.float64, I32: tf.int32, BOOL: tf.bool}, tf.convert_to_tensor,
         lambda x, d: tf.cast(x, {F32: tf.float32}[d]), tf.reduce_sum, tf.matmul, (tf.Tensor,), tf.Variable)
TJ = Lib("tj", tj, {F32: tj.float32, F64: tj.float64, I32: tj.int32, BOOL: tj.bool}, tj.constant,
         lambda x, d: tnp.astype(x, "float32"), tnp.sum, tnp.matmul, (tj.Tensor,), tj.Variable)


def kind_of(lib: Lib, x) -> str:
    if isinstance(x, lib.Variable):
        return "Variable"
    if isinstance(x, lib.tensor_types):
        return "Tensor"
    if isinstance(x, np.generic):
        return "np." + type(x).__name__
    return type(x).__name__


def tree(lib: Lib, x):
    """A result as a comparable tree: (kind, NumPy value) for arrays, Tensors and Variables; containers kept."""
    if x is None or isinstance(x, (str, bool, int, float)):
        return x
    if isinstance(x, (list, tuple)):
        return type(x)(tree(lib, e) for e in x)
    if isinstance(x, dict):
        return {k: tree(lib, v) for k, v in x.items()}
    return kind_of(lib, x), np.asarray(x)


def lazy_class(lib: Lib, variant: str, counter, scale=None):
    """A Module whose ``__call__`` (a function) makes its Variables lazily."""

    class Lazy(lib.Module):
        def __init__(self) -> None:
            super().__init__(name="lazy")
            self.w = None
            self.ws = {}
            if counter is not None:
                self.n = lib.Variable(np.zeros((), counter), trainable=False, name="n")

        @lib.function
        def __call__(self, x):
            k = int(x.shape[-1])
            init = np.linspace(-1.0, 1.0, 2 * k, dtype=F32).reshape(k, 2)
            if variant == "per_width":
                if f"w{k}" not in self.ws:
                    self.ws[f"w{k}"] = lib.Variable(init, name=f"w{k}")
                w = self.ws[f"w{k}"]
            else:
                if variant == "always":
                    self.extra = lib.Variable(np.ones((2,), F32), name="extra")
                if self.w is None:
                    if variant == "lazy_scoped":
                        with self.name_scope:
                            self.w = lib.Variable(init, name="w")
                    else:
                        self.w = lib.Variable(init, name="w")
                w = self.w
            if counter is not None:
                self.n.assign_add(np.ones((), counter))
            y = lib.matmul(x, w)
            return y if scale is None else y * scale

    return Lazy


# -- running a scenario on one side --------------------------------------------------------------------------

def iadd(v):
    u = v
    u += 1
    return u


class Side:
    """A scenario's twin objects on one library: Variables, Modules; the ids of both back to their pool names."""

    def __init__(self, lib: Lib, sc: Scenario) -> None:
        self.lib, self.sc = lib, sc
        self.vars, self.mods, self.state = {}, {}, {}

    def pool_name(self, x) -> str:
        for pool in (self.vars, self.mods):
            for n, y in pool.items():
                if y is x:
                    return n
        return f"<{'Variable' if isinstance(x, self.lib.Variable) else 'Module'} {getattr(x, 'name', '?')}>"

    def build(self, spec):
        if isinstance(spec, list):
            return [self.build(s) for s in spec]
        if isinstance(spec, tuple) and (not spec or not isinstance(spec[0], str)):
            return tuple(self.build(s) for s in spec)
        if isinstance(spec, dict):
            return {k: self.build(s) for k, s in spec.items()}
        if spec[0] == "const":
            return spec[1]
        if spec[0] in ("nt", "obj"):
            return (NT if spec[0] == "nt" else Obj)(*(self.build(x) for x in spec[1]))
        return (self.vars if spec[0] in ("var", "new") else self.mods)[spec[1]]

    def make_new(self, new: dict, scope=None) -> None:
        """The new Variables an action's Module holds (inside ``scope``, a name_scope, if given)."""
        for v, (a, trainable, name) in new.items():
            if scope is not None:
                with scope:
                    self.vars[v] = self.lib.Variable(a, trainable=trainable, name=name)
            else:
                self.vars[v] = self.lib.Variable(a, trainable=trainable, name=name)

    def act(self, a: Action):
        kw, lib = a.kw, self.lib
        if a.kind == "create":
            args = {"trainable": kw["trainable"]}
            if kw["dtype"] is not None:
                args["dtype"] = lib.dtypes[kw["dtype"]]
            if kw["name"] is not None:
                args["name"] = kw["name"]
            init = self.vars[kw["from_var"]] if kw["from_var"] else kw["lit"].make(lib)
            if kw["scope"]:
                with self.mods[kw["scope"]].name_scope:
                    v = self.vars[kw["var"]] = lib.Variable(init, **args)
            else:
                v = self.vars[kw["var"]] = lib.Variable(init, **args)
            return tree(lib, v), v.dtype.name, tuple(v.shape), v.trainable, v.name
        if a.kind == "assign":
            v = self.vars[kw["var"]]
            value = self.vars[kw["other"]] if kw["other"] else kw["lit"].make(lib)
            got = getattr(v, kw["how"])(value, read_value=kw["read_value"])
            return tree(lib, got)
        if a.kind == "op":
            v = self.vars[kw["var"]]
            try:  # (the same op on a Tensor of the Variable's value: where that behaves as the Variable does on
                #  both sides, a difference is the Tensor's, not the Variable's)
                self.twin = self.op(kw["op"], lib.constant(v.numpy()), kw["m"])
            except Exception as e:  # noqa: BLE001
                self.twin = Raised(type(e).__name__)
            return self.op(kw["op"], v, kw["m"])
        if a.kind == "tape":
            return self.tape(kw)
        if a.kind == "module":
            cls = type(kw["cls"], (lib.Module,), {})
            outer = self.mods[kw["scope"]].name_scope if kw["scope"] else None
            if outer is not None:
                outer.__enter__()
            try:
                m = cls() if kw["name"] is None else cls(name=kw["name"])
                self.make_new(kw["new"], m.name_scope if kw["in_scope"] else None)
            finally:
                if outer is not None:
                    outer.__exit__(None, None, None)
            self.mods[kw["mod"]] = m
            for k, s in kw["attrs"].items():
                setattr(m, k, self.build(s))
            return m.name
        if a.kind == "setattr":
            self.make_new(kw["new"])
            setattr(self.mods[kw["mod"]], kw["key"], self.build(kw["spec"]))
            return None
        if a.kind == "delattr":
            delattr(self.mods[kw["mod"]], kw["key"])
            return None
        if a.kind == "append":
            self.make_new(kw["new"])
            getattr(self.mods[kw["mod"]], kw["key"]).append(self.build(kw["spec"]))
            return None
        if a.kind == "query":
            m = self.mods[kw["mod"]]
            if kw["q"] == "name":
                return m.name
            if kw["q"] == "scope":
                return m.name_scope.name
            if not hasattr(m, kw["q"]):
                return f"<no attribute {kw['q']}>"
            got = getattr(m, kw["q"])
            return type(got).__name__, [self.pool_name(x) for x in got]
        if a.kind == "fmodule":
            scale = self.vars[kw["scale"]] if kw["scale"] else None
            self.mods[kw["mod"]] = lazy_class(lib, kw["variant"], kw["counter"], scale)()
            return None
        if a.kind == "fcall":
            m = self.mods[kw["mod"]]
            y = m(lib.constant(kw["x"]))
            return tree(lib, y), self.lazy_state(m)
        if a.kind == "fgrad":
            m = self.mods[kw["mod"]]
            with lib.tape() as t:
                y = m(lib.constant(kw["x"]))
                loss = lib.sum(y * y)
            srcs = sorted(m.trainable_variables, key=lambda v: v.name)
            return tree(lib, t.gradient(loss, srcs)), [v.name for v in srcs]
        raise AssertionError(a.kind)

    def lazy_state(self, m):
        """A lazily built Module's Variables (by name, sorted) and their values."""
        return sorted([(v.name, v.trainable, np.asarray(v.numpy())) for v in m.variables], key=lambda e: e[0])

    def op(self, op, v, m):
        lib = self.lib
        fns = {"add1": lambda: v + 1, "radd": lambda: 1 + v, "neg": lambda: -v, "mul": lambda: v * v,
               "sub_py": lambda: 2.5 - v, "div2": lambda: v / 2, "pow2": lambda: v ** 2,
               "matmul": lambda: v @ m, "index1": lambda: v[1], "index_neg": lambda: v[-1], "slice": lambda: v[:1],
               "gt0": lambda: v > 0, "eq": lambda: v == v, "abs": lambda: abs(v), "float": lambda: float(v),
               "int": lambda: int(v), "bool": lambda: bool(v), "len": lambda: len(v), "iter": lambda: list(v),
               "convert": lambda: lib.convert(v), "asarray": lambda: np.asarray(v), "numpy": lambda: v.numpy(),
               "read_value": lambda: v.read_value(), "value": lambda: v.value(),
               "props": lambda: (tuple(v.shape), v.dtype.name, v.trainable), "name": lambda: v.name,
               "format": lambda: f"{v:.2f}", "astype_f32": lambda: lib.cast(v, F32), "iadd": lambda: iadd(v),
               "hash": lambda: {v: 1}[v], "slice_assign": lambda: v[:1].assign(v[-1:])}
        got = tree(lib, fns[op]())
        if op in ("astype_f32", "convert") and isinstance(got, tuple):
            got = ("Tensor", got[1])  # (TF's cast and convert_to_tensor give a Variable of the dtype back as it is)
        return got

    def tape(self, kw):  # noqa: C901
        lib = self.lib
        with lib.tape(watch_accessed_variables=kw["wav"]) as t:
            loss = lib.constant(np.float32(0))
            for step, name, c in kw["steps"]:
                v = self.vars[name]
                if step == "read":
                    x = v if v.dtype.name == "float32" else lib.cast(v, F32)
                    loss = loss + lib.sum(x * c)
                elif step == "square":
                    loss = loss + lib.sum(v * v)
                elif step == "watch":
                    t.watch(v)
                else:
                    getattr(v, step)(c)
        target = [loss, self.vars[kw["sources"][0]]] if kw["target_var"] else loss
        watched = [self.pool_name(x) for x in t.watched_variables()]
        grads = t.gradient(target, [self.vars[s] for s in kw["sources"]])
        return tree(lib, loss), tree(lib, grads), watched

    def placeholder(self, a: Action) -> None:
        """After action ``a`` (run_action calls this whether it raised or not): where it should have made a
        Variable or Module and did not, a stand-in (zeros of the model's shape; an empty Module); then the values
        of every pool Variable, compared afterwards."""
        kw = a.kw
        vs = [kw["var"]] if a.kind == "create" else list(kw.get("new", {}))
        for v in vs:
            if v not in self.vars:
                shape, dtype, _ = self.sc.vars[v]
                self.vars[v] = self.lib.Variable(np.zeros(shape, dtype if dtype != F64 else F32))
        if a.kind in ("module", "fmodule") and kw["mod"] not in self.mods:
            self.mods[kw["mod"]] = self.lib.Module(name="placeholder")
        self.state = {n: tree(self.lib, v.numpy()) for n, v in self.vars.items()}
        if a.kind in ("fcall", "fgrad"):  # (also after a call that raised: what it built, and the counter)
            self.state[kw["mod"]] = self.lazy_state(self.mods[kw["mod"]])


# -- comparing -----------------------------------------------------------------------------------------------

# Differences API.md makes on purpose: name -> why; known() says which one an action's problem is
KNOWN = {
    "x64": "API.md (tj.constant): 'Defaults as TF with JAX's x64 off': tapejax has no float64 (a float64 value, "
           "Tensor or dtype=float64 gives float32), TF keeps float64; where an action involves one, TF's dtype, "
           "and so its checks, differ",
    "creation_order": "API.md (tj.Module): '.variables, .trainable_variables (in order of creation, as TF)': "
                      "tapejax lists Variables in order of creation; TF 2.21 does not (it walks attributes sorted by "
                      "name, dict keys sorted, then submodules): same Variables, other order",
    "dtype_check": "API.md (tj.Variable): '.assign(v), .assign_add(v), .assign_sub(v) (... a value of the wrong shape "
                   "or dtype raises and leaves the variable unchanged)': tapejax refuses a Python or NumPy value that "
                   "does not convert to the Variable's dtype without loss (floats into an int or bool Variable...); "
                   "TF casts it (1.59 -> 1, -0.4 -> True)",
    "tensor_like": "API.md (tj.Variable): 'Usable wherever a Tensor is' and (Interoperability) 'Tensors and Variables "
                   "work where JAX and NumPy users expect: ... f\"{t:.4f}\" on a scalar': len(v) and format(v, '.2f') "
                   "give what they give for a Tensor of v's value; a tf.Variable has no __len__ and refuses a format "
                   "spec (TypeError)",
    "int_source": "API.md (tape.gradient): 'Unconnected or non-float sources give None'; TF gives an int or bool "
                  "target's gradient with respect to itself as ones (the tape tool's KNOWN int_source)",
    "tensor_level": "not the Variable's: the same op on a Tensor of the Variable's value differs from TF's the same "
                    "way (tj.Tensor operator semantics, e.g. tj.numpy 'Mirrors jax.numpy', tf_differential's KNOWN "
                    "'tj.numpy mirrors jax.numpy's type promotion (TF raises)'): listed here, left to the op tools",
    "follows": "a consequence of a known difference earlier in the scenario (a value or Module it uses)",
}


def known(a: Action, problem: str, tf_out: Outcome, tj_out: Outcome, twins=(None, None)):
    """The KNOWN name explaining ``problem`` of action ``a``, or None (``twins``: for an op, each side's result
    of it on a Tensor of the Variable's value: a result tree, or the class name of what it raised)."""
    if a.kw.get("x64") or "vs float64" in problem:
        return "x64"
    if a.kind == "assign" and a.kw["other"] is None and a.kw["lit"].how in ("py", "np") and tf_out.raised is None \
            and tj_out.raised is not None and a.kw["kinds"][0] != a.kw["kinds"][1] and a.kw["kinds"] != ("i", "f"):
        return "dtype_check"
    if a.kind == "tape" and a.kw["target_var"] and a.kw["int_target"] and problem.startswith("result: [1]"):
        return "int_source"
    if a.kind == "op" and a.kw["op"] in ("len", "format") and tj_out.raised is None and tf_out.raised is not None \
            and same_outcome(tj_out, twins[1]):
        return "tensor_like"
    if a.kind == "op" and all(same_outcome(o, t) for o, t in zip((tf_out, tj_out), twins)):
        return "tensor_level"
    if a.kind == "query" and a.kw["q"] in ("variables", "trainable_variables", "non_trainable_variables") and \
            problem.startswith("result") and tf_out.value and tj_out.value and \
            sorted(tf_out.value[1]) == sorted(tj_out.value[1]) and tf_out.value[0] == tj_out.value[0]:
        return "creation_order"
    return None


class Raised(str):
    """What the op on a Tensor twin raised (its class name)."""


def same_outcome(out: Outcome, twin) -> bool:
    if out.raised is not None:
        return isinstance(twin, Raised) and type(out.raised).__name__ == twin
    return not isinstance(twin, Raised) and differ(strip_kind(out.value), strip_kind(twin)) is None


def strip_kind(x):
    return ("Tensor", x[1]) if isinstance(x, tuple) and len(x) == 2 and x[0] == "Variable" else x


def problems_of(a: Action, tf_out: Outcome, tj_out: Outcome, tf_state: dict, tj_state: dict, skip: set) -> list:
    """The tape tool's comparison (raised, result, warned), then the pool Variables' values after the action
    (those not already known to differ: ``skip``)."""
    out = tape_tool.problems_of(tf_out, tj_out)
    for n in tf_state:
        if n not in skip and (d := differ(tj_state.get(n), tf_state[n])) is not None:
            what = f"{n}'s Variables" if n[0] == "m" else "the Variable" if n == a.kw.get("var") else "another Variable"
            out.append(f"state of {what} after: {d}")
            break
    return out


def made_by(a: Action) -> set:
    """What a difference in action ``a`` may leave different: the Variables it made or assigned, its Module."""
    kw = a.kw
    made = {kw["var"]} if "var" in kw and a.kind in ("create", "assign") else set()
    made |= set(kw.get("new", {})) | ({kw["mod"]} if "mod" in kw and a.kind != "query" else set())
    if a.kind == "tape":
        made |= {v for s, v, _ in kw["steps"] if s.startswith("assign")}
    return made


def check(seed: int):
    """("ok" | "mismatch" | "known", scenario, [(index, action, TF outcome, tj outcome, problems)]), as the tape
    tool's ``check``."""
    sc = Scenario(seed)
    sides = Side(TF, sc), Side(TJ, sc)
    rows, kind, origin = [], "ok", {}
    for i, a in enumerate(sc.actions):
        tf_out, tj_out = run_action(sides[0], a), run_action(sides[1], a)
        cause = next((origin[r] for r in sorted(a.kw["refs"]) if r in origin), None)
        twins = tuple(getattr(s, "twin", None) for s in sides)
        problems = [(p, cause or known(a, p, tf_out, tj_out, twins))  # (a value already different: it follows)
                    for p in problems_of(a, tf_out, tj_out, sides[0].state, sides[1].state, set(origin))]
        rows.append((i, a, tf_out, tj_out, problems))
        if any(not p.startswith("warned") for p, _ in problems) or cause:
            label = cause or ("follows" if all(k in KNOWN for _, k in problems) else f"after #{i}")
            origin.update(dict.fromkeys(made_by(a), label))
        if any(k not in KNOWN for _, k in problems):
            kind = "mismatch"
        elif problems and kind == "ok":
            kind = "known"
    return kind, sc, rows


OUTCOMES = ("ok", "mismatch", "known")


def main(argv=None) -> int:
    args = seed_arguments(__doc__, argv, 200, "scenario")
    counts, signatures, known_sigs = dict.fromkeys(OUTCOMES, 0), {}, {}
    for seed in range(args.first, args.first + args.programs):
        kind, sc, rows = check(seed)
        counts[kind] += 1
        if kind == "ok" and not args.verbose:
            continue
        print(f"[{kind}] {sc!r}")
        for i, a, tf_out, tj_out, problems in rows:
            if problems or args.verbose:
                print(f"    #{i} {a}\n        TF: {tf_out}\n        tj: {tj_out}")
            for p, k in problems:
                print(f"        -> {p}" + (f"  (known: {k})" if k in KNOWN else
                                           f"  (follows from the mismatch {k[6:]})" if k else ""))
                if k is None:
                    signatures.setdefault(f"{a.sig}: {p}", []).append(seed)
                elif k in KNOWN and k != "follows":  # (x64: by kind of action only, it is everywhere)
                    sig = re.sub(r"\[[0-9, ]*\]", "", a.sig)  # (without the Variable's shape)
                    known_sigs.setdefault(f"x64: {a.kind}" if k == "x64" else f"{k}: {sig}: {p}", []).append(seed)
    print(f"\n{args.programs} scenarios (seeds {args.first}-{args.first + args.programs - 1}): " +
          ", ".join(f"{v} {k}" for k, v in counts.items()))
    if known_sigs:
        print("\nknown differences:\n" + "\n".join(f"  {k}: {why}" for k, why in KNOWN.items()))
        print_seed_table("known differences by action and problem (seeds):", known_sigs)
    if signatures:
        print_seed_table("mismatches by action and problem (seeds):", signatures)
    return 1 if counts["mismatch"] else 0


if __name__ == "__main__":
    sys.exit(main())
