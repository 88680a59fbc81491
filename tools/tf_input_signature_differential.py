"""Differential test of ``tj.function``'s ``input_signature`` against ``tf.function``'s (TF 2.21): random functions,
random signatures and random calls, bound by both, outcome for outcome.

Run from the repository root::

    PYTHONPATH=src TF_CPP_MIN_LOG_LEVEL=3 .venv/bin/python tools/tf_input_signature_differential.py [--first K]
        [--programs N] [--verbose]

``Case(seed)`` draws (``numpy.random.default_rng(seed)``) one function, written out as Python source: 0-3
positional parameters ``x0, x1...`` that take a spec each (the last ones sometimes with a default: a fitting Python
value, one that does not fit, or None), now and then a ``/`` after them, 0-2 positional parameters ``o0, o1...``
outside the signature with defaults (``OUT_DEFAULTS``: Python numbers, None, a string, a tuple, a list, a NumPy
scalar, a NumPy array; now and then one named ``self``), sometimes ``*args`` (taking 0-2 more specs), 0-2
keyword-only parameters ``k0, k1...`` with such defaults (now and then the first ones taking the specs left over, as
TF's ``add_type_constraints`` gives them), now and then ``**kw``, now and then a first parameter named ``self`` (a
plain function, not a method); and now and then a function the signature does not fit (a parameter without a
default and no spec for it, a spec too many, a keyword-only parameter without a default). The signature: per
parameter a TensorSpec (dtype float32, int32, bool, now and then float64 / int64; shape of rank 0-2 whose sizes are
0-3 or None, now and then None: any shape; now and then a name) or a list / tuple / dict (keys drawn in either
order) / namedtuple ``Pair(a, b)`` of them, nested up to twice.

The body, ``return show(x0=x0, ..., args=args, k0=k0, kw=kw)``, shows what came in: ``show`` (one per library,
below) walks each argument and returns ``(code, values)``: ``code`` a CRC of the structure it met (the container
types, dict keys in order, a Tensor's dtype, a Variable, a Python value's type), the structure text itself kept in
``STRUCTURES`` for printing; ``values`` a float32 vector, per Tensor its position-weighted sum (cast to float32), its
size, its rank and a code of its shape, all computed from the dynamic shape (a None size is static in tapejax's
trace, not in TF's: static shapes are not compared), and per Python number its value.

Each case has 2-5 calls, their arguments fitting (Tensors of the spec's dtype, Python numbers and lists, NumPy
arrays of that or another dtype, NumPy scalars and lists of them, Variables; None sizes any size, 0 included): as
they are (the first call 60% of the time, later ones 30%), else with one or two drawn faults: a wrong shape, a
wrong dtype (a Tensor or Variable of another dtype, a Python float for an int spec, a NumPy array or a list of
NumPy scalars of another kind...), None or a string or a ragged list for a Tensor, the wrong nesting (a list for a
tuple, a tuple for a namedtuple and back, a dict key missing, extra or renamed or the keys reversed, an entry too
many or too few, a leaf for a container, an argument wrapped in a list), too many or too few arguments, spec'd
arguments by keyword (positional-only ones too), an unknown keyword, an argument given twice, values for the
parameters outside the signature (the default, an equal value of another type, another value, an equal NumPy
value, an equal Tensor). Each call runs on TF's function (``tf.function(f, input_signature=..., autograph=False)``:
the body has no control flow on Tensors, the decided "no autograph" does not come in) and on tapejax's, and is
compared: both returned (the structure codes, then the values with ``np.allclose``), or the exception classes
(tapejax's must be TF's or a subclass; messages are not compared: tapejax prints dtypes as ``float32`` where TF
prints ``tf.float32``, a decided difference). Also compared: whether decorating raises (and its class; where one
side refuses the function, the other's calls are run and the row says whether each of them raised that class), and
at the end each function's ``experimental_get_tracing_count()``.

A case is ``ok`` with no difference, ``known`` when each difference has a label of ``KNOWN`` (the decided
differences of tests/test_function_input_signature.py's docstring; ``known()`` picks it) or follows from an earlier
call that raised on one side only (the trace count; the types of the Python numbers the body saw, 1 or 1.0 or True,
as the first trace was another call's), else ``mismatch``. Each
case not ok (``--verbose``: every case) is printed as a repro: the source, the signature, each call that differs
with both outcomes (``show`` is this file's); then a summary line, and the mismatches by problem with the kinds of
the call's faults and the function's rarer features (``self``, keyword-only specs, NumPy defaults...), with their
seeds. Decided differences this cannot show: no VariableSpec (a Variable given for a TensorSpec is read by both,
so the same), no autograph (not drawn). Exit status 1 on a mismatch.
"""
from __future__ import annotations

import collections
import copy
import logging
import os
import re
import sys
import warnings
import zlib
from types import SimpleNamespace

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
warnings.filterwarnings("ignore")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import tapejax as tj  # noqa: E402
from seed_runs import print_seed_table, seed_arguments  # noqa: E402

tnp = tj.numpy
tf.get_logger().setLevel(logging.ERROR)  # (retracing warnings: not compared here)
logging.getLogger("tapejax").setLevel(logging.ERROR)

Pair = collections.namedtuple("Pair", "a b")
NO = object()  # (no default / an argument not given)
DTYPES = ["float32", "int32", "bool", "float64", "int64"]
WIDE = {"float64": "float32", "int64": "int32"}  # (x64 off: JAX's canonical dtypes)
STRUCTURES = {}  # structure code -> the structure text show() met


# -- what the body shows --------------------------------------------------------------------------------------------

def _tf_stats(x):
    x = tf.cast(x, tf.float32)
    flat = tf.reshape(x, [-1])
    n = tf.size(flat)
    weights = tf.cast(tf.range(1, n + 1), tf.float32)
    dims = tf.cast(tf.shape(x), tf.float32) + 1.0
    shape_code = tf.reduce_sum(dims * tf.pow(10.0, tf.cast(tf.range(tf.size(dims)), tf.float32)))
    return [tf.reduce_sum(flat * weights), tf.cast(n, tf.float32), tf.cast(tf.rank(x), tf.float32), shape_code]


def _tj_stats(x):
    x = tnp.astype(x, "float32")
    flat = tnp.reshape(x, [-1])
    n = int(flat.shape[0])
    weights = tnp.arange(1, n + 1, dtype="float32")
    shape_code = sum((int(d) + 1) * 10.0 ** i for i, d in enumerate(x.shape))
    return [tnp.sum(flat * weights), float(n), float(len(x.shape)), shape_code]


TF = SimpleNamespace(name="TF", spec=tf.TensorSpec, constant=tf.constant, variable=tf.Variable,
                     is_tensor=tf.is_tensor, variable_type=tf.Variable, stats=_tf_stats,
                     scalar=lambda v: tf.cast(v, tf.float32), stack=tf.stack, empty=lambda: tf.zeros([0]),
                     function=lambda f, sig: tf.function(f, input_signature=sig, autograph=False))
TJ = SimpleNamespace(name="tj", spec=tj.TensorSpec, constant=tj.constant, variable=tj.Variable,
                     is_tensor=lambda x: isinstance(x, tj.Tensor), variable_type=tj.Variable, stats=_tj_stats,
                     scalar=lambda v: tnp.astype(tj.constant(v), "float32") if not isinstance(v, tj.Tensor)
                     else tnp.astype(v, "float32"), stack=tnp.stack, empty=lambda: tnp.zeros([0]),
                     function=lambda f, sig: tj.function(f, input_signature=sig))


def _describe(lib, x, values) -> str:
    """The structure text of ``x`` (appending its numbers to ``values``)."""
    if isinstance(x, lib.variable_type):
        values.extend(lib.stats(x.read_value()))
        return f"Variable({x.dtype.name})"
    if lib.is_tensor(x):
        values.extend(lib.stats(x))
        return f"Tensor({x.dtype.name})"
    if isinstance(x, dict):
        return "dict{" + ", ".join(f"{k!r}: {_describe(lib, v, values)}" for k, v in x.items()) + "}"
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return f"{type(x).__name__}(" + ", ".join(_describe(lib, v, values) for v in x) + ")"
    if isinstance(x, (list, tuple)):
        inner = ", ".join(_describe(lib, v, values) for v in x)
        return f"[{inner}]" if isinstance(x, list) else f"({inner},)"
    if isinstance(x, np.generic):
        values.append(float(x))
        return f"np.{x.dtype.name}"
    if isinstance(x, np.ndarray):
        values.extend(np.asarray(x, np.float64).ravel().tolist())
        return f"ndarray({x.dtype.name}, {x.shape})"
    if isinstance(x, (bool, int, float)):
        values.append(float(x))
        return f"py {type(x).__name__}"
    if x is None or isinstance(x, str):
        return repr(x)
    return f"other {type(x).__name__}"


def _show(lib, named):
    values = []
    text = ", ".join(f"{k}={_describe(lib, v, values)}" for k, v in named.items())
    code = zlib.crc32(text.encode()) % 2 ** 30
    STRUCTURES[code] = text
    stacked = lib.stack([lib.scalar(v) for v in values]) if values else lib.empty()
    return code, stacked


def tf_show(**named):
    return _show(TF, named)


def tj_show(**named):
    return _show(TJ, named)


# -- specs and values ----------------------------------------------------------------------------------------------
# A spec: ("S", shape tuple or None, dtype, name) or (container, [items]) with container "list", "tuple", "Pair"
# or "dict" (then items are (key, spec) pairs). A value: the same containers, or a leaf ("T" Tensor / "V" Variable
# / "np" NumPy array, of an array; "py" a Python value; "nps" a NumPy scalar).

def _is_container(d) -> bool:
    return d[0] in ("list", "tuple", "Pair", "dict")


def build_spec(lib, d):
    if d[0] == "S":
        return lib.spec(d[1], d[2], d[3])
    items = d[1]
    if d[0] == "dict":
        return {k: build_spec(lib, s) for k, s in items}
    built = [build_spec(lib, s) for s in items]
    return built if d[0] == "list" else tuple(built) if d[0] == "tuple" else Pair(*built)


def spec_text(d) -> str:
    if d[0] == "S":
        shape = None if d[1] is None else list(d[1])
        return f"TensorSpec({shape}, {d[2]}" + (f", name={d[3]!r})" if d[3] else ")")
    if d[0] == "dict":
        return "{" + ", ".join(f"{k!r}: {spec_text(s)}" for k, s in d[1]) + "}"
    inner = ", ".join(spec_text(s) for s in d[1])
    return f"[{inner}]" if d[0] == "list" else f"Pair({inner})" if d[0] == "Pair" else f"({inner},)"


def build_value(lib, d):
    kind = d[0]
    if kind == "T":
        return lib.constant(d[1])
    if kind == "V":
        return lib.variable(d[1])
    if kind in ("np", "nps", "py"):
        return copy.deepcopy(d[1])
    if kind == "dict":
        return {k: build_value(lib, v) for k, v in d[1]}
    built = [build_value(lib, v) for v in d[1]]
    return built if kind == "list" else tuple(built) if kind == "tuple" else Pair(*built)


def value_text(d) -> str:
    kind = d[0]
    if kind in ("T", "V", "np"):
        name = {"T": "constant", "V": "Variable", "np": "np.array"}[kind]
        return f"{name}({d[1].tolist()!r}, {d[1].dtype.name})"
    if kind == "nps":
        return f"np.{d[1].dtype.name}({d[1].item()!r})"
    if kind == "py":
        return repr(d[1])
    if kind == "dict":
        return "{" + ", ".join(f"{k!r}: {value_text(v)}" for k, v in d[1]) + "}"
    inner = ", ".join(value_text(v) for v in d[1])
    return f"[{inner}]" if kind == "list" else f"Pair({inner})" if kind == "Pair" else f"({inner},)"


def _data(rng, shape, dtype):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith("int"):
        return rng.integers(-3, 4, shape).astype(dtype)
    return (rng.integers(-6, 7, shape) / 2).astype(dtype)


def _concrete_shape(rng, shape):
    if shape is None:
        return tuple(int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 3))))
    return tuple(int(d) if d is not None else int(rng.choice([0, 1, 2, 3], p=[0.1, 0.3, 0.3, 0.3])) for d in shape)


def leaf_value(rng, shape, dtype, tags, form=None):
    """A value of ``shape`` and ``dtype`` in a drawn form (a Tensor, Variable, Python value, NumPy array or
    scalar); ``tags`` gets what the call's classification needs."""
    arr = _data(rng, shape, dtype)
    form = form or str(rng.choice(["T", "py", "np", "V", "nps", "npl"], p=[0.33, 0.25, 0.18, 0.1, 0.08, 0.06]))
    if form == "nps" and shape != ():
        form = "np"
    if form == "npl" and len(shape) != 1:
        form = "py"
    if form in ("T", "V"):
        return (form, arr)
    if form == "py":
        return ("py", arr.tolist())
    other = {"float32": ["float64", "float16", "int32"], "float64": ["float32", "int64"],
             "int32": ["int64", "float32", "int8"], "int64": ["int32", "float64"], "bool": ["bool"]}[dtype]
    if rng.random() < 0.3:
        arr = arr.astype(str(rng.choice(other)))
    if form == "npl":  # (a Python list of NumPy scalars)
        return ("list", [("nps", a) for a in arr])
    return ("nps", arr[()]) if form == "nps" else ("np", arr)


def fit_value(rng, spec, tags):
    if spec[0] == "S":
        return leaf_value(rng, _concrete_shape(rng, spec[1]), spec[2], tags)
    if spec[0] == "dict":
        return ("dict", [(k, fit_value(rng, s, tags)) for k, s in spec[1]])
    return (spec[0], [fit_value(rng, s, tags) for s in spec[1]])


def draw_spec(rng, depth=0):
    if depth < 2 and rng.random() < 0.3:
        kind = str(rng.choice(["list", "tuple", "dict", "Pair"]))
        if kind == "dict":
            keys = ["a", "b"][:int(rng.integers(1, 3))]
            if rng.random() < 0.5:
                keys = keys[::-1]
            return ("dict", [(k, draw_spec(rng, depth + 1)) for k in keys])
        n = 2 if kind == "Pair" else int(rng.integers(1, 3))
        return (kind, [draw_spec(rng, depth + 1) for _ in range(n)])
    dtype = str(rng.choice(DTYPES, p=[0.42, 0.25, 0.18, 0.08, 0.07]))
    name = "n" if rng.random() < 0.1 else None
    if rng.random() < 0.1:
        return ("S", None, dtype, name)
    rank = int(rng.integers(0, 3))
    shape = tuple(None if rng.random() < 0.35 else int(rng.choice([0, 1, 2, 3], p=[0.05, 0.25, 0.35, 0.35]))
                  for _ in range(rank))
    return ("S", shape, dtype, name)


def _leaves(spec, value, path=()):
    """(path, spec leaf, value) of each leaf of ``spec`` whose value has the spec's structure."""
    if spec[0] == "S":
        yield path, spec, value
        return
    if value[0] != spec[0] or len(value[1]) != len(spec[1]):
        return
    if spec[0] == "dict":
        vals = dict(value[1])
        for k, s in spec[1]:
            if k in vals:
                yield from _leaves(s, vals[k], path + (k,))
        return
    for i, (s, v) in enumerate(zip(spec[1], value[1])):
        yield from _leaves(s, v, path + (i,))


def _replace(value, path, new):
    if not path:
        return new
    kind, items = value
    items = list(items)
    if kind == "dict":
        items = [(k, _replace(v, path[1:], new) if k == path[0] else v) for k, v in items]
    else:
        items[path[0]] = _replace(items[path[0]], path[1:], new)
    return (kind, items)


def _containers(value, path=()):
    if _is_container(value):
        yield path, value
        items = value[1] if value[0] != "dict" else [v for _, v in value[1]]
        keys = range(len(items)) if value[0] != "dict" else [k for k, _ in value[1]]
        for k, v in zip(keys, items):
            yield from _containers(v, path + (k,))


# -- cases ---------------------------------------------------------------------------------------------------------

# The defaults of the parameters outside the signature, as source text
OUT_DEFAULTS = ["2.0", "3", "True", "None", "0.5", "1", "'s'", "(1, 2)", "[1.0, 2.0]", "np.float32(1.0)",
                "np.array([1.0, 2.0], np.float32)"]


def _eval(text):
    return eval(text, {"np": np})  # (a default's source text: the tool's own table)


def _desc(obj):
    """The value description of a Python object."""
    if isinstance(obj, np.generic):
        return ("nps", obj)
    if isinstance(obj, np.ndarray):
        return ("np", obj)
    return ("py", obj)


class Call:
    def __init__(self, args, kwargs, faults, tags):
        self.args, self.kwargs, self.faults, self.tags = args, kwargs, faults, tags

    def __repr__(self) -> str:
        parts = [value_text(a) for a in self.args] + [f"{k}={value_text(v)}" for k, v in self.kwargs.items()]
        return f"f({', '.join(parts)})" + (f"   [{', '.join(self.faults)}]" if self.faults else "")


class Case:
    """One drawn function, its input_signature and its calls (see the module docstring)."""

    def __init__(self, seed: int) -> None:
        rng = np.random.default_rng(seed)
        self.seed = seed
        n_pos = int(rng.integers(0, 4))
        specs = [draw_spec(rng) for _ in range(n_pos)]
        n_def = int(rng.integers(1, n_pos + 1)) if n_pos and rng.random() < 0.3 else 0
        self.positional = []  # (name, spec or None, default's source text or NO)
        self.self_first = rng.random() < 0.02  # (a plain function whose first parameter is named self)
        if self.self_first:
            self.positional.append(("self", None, NO))
        for i, sp in enumerate(specs):
            default = NO
            if i >= n_pos - n_def:
                default = self._spec_default(rng, sp)
            self.positional.append((f"x{i}", sp, default))
        fault = str(rng.choice(["", "missing", "extra", "kw_nodefault"], p=[0.88, 0.04, 0.04, 0.04]))
        self.fault = fault
        if fault == "missing" and not n_def:
            self.positional.append(("m0", None, NO))
        self.posonly = len(self.positional) if self.positional and rng.random() < 0.1 else 0  # (a / after them)
        self.varargs = rng.random() < 0.25
        n_var = int(rng.integers(0, 3)) if self.varargs else 0
        # (specs left over go to the parameters outside the signature first: with *args taking some, seldom any)
        for i in range(int(rng.integers(0, 3)) if rng.random() < (0.15 if n_var else 0.45) else 0):
            name = "self" if i == 0 and not self.self_first and rng.random() < 0.05 else f"o{i}"
            self.positional.append((name, None, OUT_DEFAULTS[int(rng.integers(len(OUT_DEFAULTS)))]))
        self.var_specs = [draw_spec(rng) for _ in range(n_var)]
        self.kwonly = []  # (name, spec or None, default's source text or NO)
        n_kw = int(rng.integers(1, 3)) if rng.random() < 0.4 else 0
        n_kw_specs = int(rng.integers(1, n_kw + 1)) if n_kw and not self.varargs and rng.random() < 0.2 else 0
        for i in range(n_kw):
            if i < n_kw_specs:  # (TF gives the specs left over to the keyword-only parameters, in order)
                sp = draw_spec(rng)
                self.kwonly.append((f"k{i}", sp, self._spec_default(rng, sp)))
            else:
                self.kwonly.append((f"k{i}", None, OUT_DEFAULTS[int(rng.integers(len(OUT_DEFAULTS)))]))
        if fault == "kw_nodefault":
            self.kwonly.append(("kn", None, NO))
        self.varkw = rng.random() < 0.1
        self.signature = [sp for _, sp, _ in self.positional if sp is not None] + self.var_specs + \
            [sp for _, sp, _ in self.kwonly if sp is not None]
        if fault == "extra" and not self.varargs:
            self.signature.append(draw_spec(rng))
        self.source = self._source()
        self.calls = [self._call(rng, i) for i in range(int(rng.integers(2, 6)))]

    @staticmethod
    def _spec_default(rng, sp) -> str:
        r = rng.random()
        if r < 0.15:
            return "None"
        if sp[0] == "S" and (sp[1] is None or sp[1] == ()) and r < 0.85:
            return {"float32": "1.5", "float64": "1.5", "int32": "2", "int64": "2", "bool": "True"}[sp[2]]
        return ["1.5", "2", "True", "[1.0, 2.0]"][int(rng.integers(4))]  # (may not fit)

    def _source(self) -> str:
        params, names = [], []
        for i, (name, _, default) in enumerate(self.positional):
            if self.posonly and i == self.posonly:
                params.append("/")
            params.append(name if default is NO else f"{name}={default}")
            names.append(name)
        if self.posonly and self.posonly == len(self.positional):
            params.append("/")
        if self.varargs:
            params.append("*args")
            names.append("args")
        elif self.kwonly:
            params.append("*")
        for name, _, default in self.kwonly:
            params.append(name if default is NO else f"{name}={default}")
            names.append(name)
        if self.varkw:
            params.append("**kw")
            names.append("kw")
        shown = ", ".join(f"{'self_' if n == 'self' else n}={n}" for n in names)
        return f"def f({', '.join(params)}):\n    return show({shown})\n"

    def signature_text(self) -> str:
        return "[" + ", ".join(spec_text(s) for s in self.signature) + "]"

    def _call(self, rng, index) -> Call:
        tags, faults = set(), []
        clean = rng.random() < (0.6 if index == 0 else 0.3)
        # the positional parameters: spec'd ones given (defaulted ones sometimes left out), the others sometimes
        must_fill = bool(self.var_specs)
        given = []
        for i, (name, sp, default) in enumerate(self.positional):
            if sp is not None:
                v = fit_value(rng, sp, tags) if (default is NO or must_fill or rng.random() < 0.6) else NO
            elif name == "m0" or (name == "self" and i == 0):
                v = ("py", 2.0) if rng.random() < 0.7 else ("py", "me")
            else:
                v = self._outside_value(rng, default, faults) if (must_fill or rng.random() < 0.25) else NO
            given.append((name, sp, v))
        # positions up to the first one left out; after it, by keyword
        first_gap = next((i for i, (_, _, v) in enumerate(given) if v is NO), len(given))
        args = [v for _, _, v in given[:first_gap]]
        kwargs = {name: v for name, _, v in given[first_gap:] if v is not NO}
        if first_gap < len(given) and kwargs:
            faults.append("after a default left out, by keyword")
        if self.var_specs:
            args += [fit_value(rng, sp, tags) for sp in self.var_specs]
        for name, sp, default in self.kwonly:
            if sp is not None and rng.random() < 0.5:
                kwargs[name] = fit_value(rng, sp, tags)
            elif sp is None and (default is NO or rng.random() < 0.3):
                kwargs[name] = self._outside_value(rng, default, faults)
        if not clean:
            for _ in range(1 if rng.random() < 0.75 else 2):
                self._fault(rng, args, kwargs, faults, tags)
        return Call(args, kwargs, faults, tags)

    @staticmethod
    def _outside_value(rng, default, faults):
        """A value for a parameter outside the signature whose default's source text is ``default``."""
        if default is NO:
            return ("py", 1.0)
        value = _eval(default)
        r = rng.random()
        if r < 0.35 or isinstance(value, str) or value is None:
            faults.append(f"outside: {default} as is")
            return _desc(value)
        if r < 0.6:
            if isinstance(value, np.ndarray):
                other = value.tolist()
            elif isinstance(value, np.generic):
                other = value.item()
            elif isinstance(value, (list, tuple)):
                other = tuple(value) if isinstance(value, list) else list(value)
            else:
                other = {bool: int, int: float, float: int}[type(value)](value)
                if other != value:
                    other = value  # (0.5: no equal int)
            faults.append(f"outside: equal {type(other).__name__} for {default}")
            return _desc(other)
        if r < 0.75:
            other = {bool: 7, int: 7, float: 7.5, tuple: (1, 3), list: [1.0, 3.0]}.get(type(value))
            if other is None:
                other = np.asarray(value) * np.float32(7.0)
            faults.append(f"outside: another value for {default}")
            return _desc(other)
        if r < 0.88:
            faults.append(f"outside: NumPy array equal to {default}")
            arr = np.asarray(value, np.float32)
            return ("nps", arr[()]) if arr.shape == () else ("np", arr)
        faults.append(f"outside: Tensor equal to {default}")
        return ("T", np.asarray(value, np.float32))

    def _spec_of_positions(self):
        """The spec of each positional argument position (None: outside the signature)."""
        return [sp for _, sp, _ in self.positional] + list(self.var_specs)

    def _fault(self, rng, args, kwargs, faults, tags):
        specs = self._spec_of_positions()
        names = [n for n, _, _ in self.positional]
        spec_of_name = {n: sp for n, sp, _ in self.positional + self.kwonly if sp is not None}
        # the spec'd arguments: (the list or dict holding it, its index or keyword, its spec)
        targets = [(args, i, specs[i]) for i in range(min(len(args), len(specs))) if specs[i] is not None]
        targets += [(kwargs, k, spec_of_name[k]) for k in kwargs if k in spec_of_name]
        kind = str(rng.choice(["shape", "dtype", "nesting", "bad_leaf", "too_many", "too_few", "keyword",
                               "unknown_kw", "twice", "outside"],
                              p=[0.16, 0.18, 0.16, 0.08, 0.07, 0.07, 0.1, 0.05, 0.04, 0.09]))
        if kind in ("shape", "dtype", "bad_leaf") and targets:
            holder, i, sp = targets[int(rng.integers(len(targets)))]
            leaves = list(_leaves(sp, holder[i]))
            if not leaves:
                return
            path, leaf_spec, value = leaves[int(rng.integers(len(leaves)))]
            new = self._bad_leaf(rng, kind, leaf_spec, value, tags, faults)
            if new is not None:
                holder[i] = _replace(holder[i], path, new)
        elif kind == "nesting" and targets:
            holder, i, sp = targets[int(rng.integers(len(targets)))]
            conts = list(_containers(holder[i]))
            if not conts or rng.random() < 0.2:
                faults.append(f"nesting: argument {i} wrapped in a list")
                holder[i] = ("list", [holder[i]])
                return
            path, cont = conts[int(rng.integers(len(conts)))]
            holder[i] = _replace(holder[i], path, self._bad_container(rng, cont, faults))
        elif kind == "too_many":
            faults.append("too many arguments")
            args.append(("py", 1.0))
        elif kind == "too_few" and args:
            faults.append("too few arguments")
            args.pop()
        elif kind == "keyword" and args:
            n = int(rng.integers(1, len(args) + 1))
            moved = list(range(len(args) - n, len(args)))
            for j in moved:
                name = names[j] if j < len(names) else f"args_{j - len(names)}"
                kwargs[name] = args[j]
            del args[len(args) - n:]
            faults.append(f"last {n} positional by keyword")
        elif kind == "unknown_kw":
            faults.append("unknown keyword z")
            kwargs["z"] = ("py", 1.0)
        elif kind == "twice" and args:
            j = int(rng.integers(len(args)))
            name = names[j] if j < len(names) else f"args_{j - len(names)}"
            kwargs[name] = args[j]
            faults.append(f"{name} given twice")
        elif kind == "outside":
            outside = [(n, d) for i, (n, sp, d) in enumerate(self.positional)
                       if sp is None and n != "m0" and not (n == "self" and i == 0)] + \
                [(n, d) for n, sp, d in self.kwonly if sp is None]
            if outside:
                n, d = outside[int(rng.integers(len(outside)))]
                kwargs[n] = self._outside_value(rng, d, faults)

    @staticmethod
    def _bad_leaf(rng, kind, leaf_spec, value, tags, faults):
        _, shape, dtype, _ = leaf_spec
        try:
            cur = tuple(value[1].shape) if value[0] in ("T", "V", "np", "nps") else \
                (len(value[1]),) if _is_container(value) else tuple(np.shape(value[1]))
        except ValueError:  # (a ragged list an earlier fault put there)
            cur = ()
        if kind == "shape":
            choice = int(rng.integers(3))
            if shape is None:
                new_shape = tuple(cur) + (2,)
            elif choice == 0 or not shape:
                new_shape = (2,) + tuple(cur)
            elif choice == 1:
                new_shape = tuple(cur)[1:]
            else:
                fixed = [j for j, d in enumerate(shape) if d is not None]
                if not fixed:
                    new_shape = tuple(cur) + (1,)
                else:
                    j = fixed[int(rng.integers(len(fixed)))]
                    new_shape = tuple(d + 1 if k == j else d for k, d in enumerate(cur))
            faults.append(f"shape {tuple(new_shape)} for {spec_text(leaf_spec)}")
            form = value[0] if value[0] in ("T", "V", "np", "py") else "np"
            return leaf_value(rng, new_shape, dtype, tags, form)
        if kind == "dtype":
            form = str(rng.choice(["T", "V", "py", "np"], p=[0.45, 0.15, 0.25, 0.15]))
            if form == "py":
                py = {"float32": True, "float64": True, "int32": 1.5, "int64": 2.0, "bool": 1}[dtype]
                faults.append(f"Python {py!r} for {spec_text(leaf_spec)}")
                return ("py", np.full(cur, py).tolist() if cur else py)
            others = [d for d in DTYPES if d != dtype]
            new = str(rng.choice(others))
            if WIDE.get(dtype) == new or WIDE.get(new) == dtype:
                tags.add("x64")
            arr = _data(rng, cur, new)
            if form == "np" and new.startswith("float") and not dtype.startswith("float") and rng.random() < 0.5:
                arr = arr + np.array(0.5, new)  # (a fraction for an int or bool spec)
            if form == "np" and len(cur) == 1 and rng.random() < 0.3:
                faults.append(f"list of NumPy {new} scalars for {spec_text(leaf_spec)}")
                return ("list", [("nps", a) for a in arr])
            faults.append(f"{form} {new} for {spec_text(leaf_spec)}")
            return (form, arr)
        pick = int(rng.integers(3))
        faults.append(["None", "a string", "a ragged list"][pick] + f" for {spec_text(leaf_spec)}")
        return [("py", None), ("py", "a"), ("py", [[1.0], [1.0, 2.0]])][pick]

    @staticmethod
    def _bad_container(rng, cont, faults):
        kind, items = cont
        options = []
        if kind == "list":
            options += ["to tuple"]
        if kind == "tuple":
            options += ["to list"] + (["to Pair"] if len(items) == 2 else [])
        if kind == "Pair":
            options += ["to tuple", "to list"]
        if kind == "dict":
            options += ["drop key", "extra key", "rename key", "reverse keys"]
        else:
            options += ["one more", "one fewer"]
        options += ["to leaf"]
        what = str(rng.choice(options))
        faults.append(f"nesting: {kind} {what}")
        if what.startswith("to ") and what != "to leaf":
            return (what[3:], list(items))
        if what == "to leaf":
            return ("T", np.float32(1.0) * np.ones((), np.float32))
        if what == "drop key":
            return ("dict", list(items)[1:])
        if what == "extra key":
            return ("dict", list(items) + [("c", ("py", 1.0))])
        if what == "rename key":  # (an empty dict has no key to rename: it gets one, "z", as the renamed one)
            return ("dict", [("z", items[0][1] if items else ("py", 1.0))] + list(items)[1:])
        if what == "reverse keys":
            return ("dict", list(items)[::-1])
        if what == "one more":
            return (kind, list(items) + [items[-1] if items else ("py", 1.0)])
        return (kind, list(items)[:-1])

    def __repr__(self) -> str:
        sig = self.signature_text()
        return f"seed {self.seed}:\n{self.source}  input_signature={sig}" + \
            (f"   [{self.fault}]" if self.fault else "")


# -- running and comparing -----------------------------------------------------------------------------------------

class Outcome:
    def __init__(self, raised=None, code=None, values=None):
        self.raised, self.code, self.values = raised, code, values
        self.count = 0  # (the function's tracing count after it)

    def __repr__(self) -> str:
        if self.raised is not None:
            return f"raised {type(self.raised).__name__}: {str(self.raised)[:300]}"
        if self.values is None:
            return "no error"
        return f"{STRUCTURES.get(self.code, self.code)}  values {np.round(self.values, 4).tolist()}"


def _run(fn):
    try:
        code, values = fn()
        return Outcome(code=int(np.asarray(code)), values=np.asarray(values, np.float64))
    except Exception as e:  # noqa: BLE001 (the outcome compared)
        return Outcome(raised=e)


def _normalize64(text: str) -> str:
    for wide, narrow in WIDE.items():
        text = text.replace(wide, narrow)
    return text


# Decided differences (tests/test_function_input_signature.py's docstring): name -> why
KNOWN = {
    "x64_off": "with JAX's x64 off a float64 / int64 spec is float32 / int32 (JAX's canonical dtypes): a float32 "
               "/ int32 Tensor or Variable fits it (TF: TypeError, Can not cast), the body sees float32 / int32 "
               "Tensors where TF's sees float64 / int64; and a float64 / int64 Tensor or Variable is a float32 / int32 "
               "one in tapejax (tj.constant of a float64 array), so it fits a 32-bit spec where TF's refuses it",
    "none_size_traces": "a spec's None size (or unknown shape) admits any size, but each new size is a new XLA "
                        "program: the Python function runs once per size met, TF's once for the signature "
                        "(experimental_get_tracing_count differs; the values do not)",
    "keyword_only_specs": "specs left over for keyword-only parameters: tapejax refuses them when decorating "
                          "('input_signature contains N extra type constraints'); TF 2.21 takes them and then "
                          "raises TypeError at every call ('too many positional arguments')",
    "self_not_first": "TF skips a parameter named self wherever it stands (and in a plain function whose first "
                      "parameter is self converts it by the first spec); tapejax skips only a first one, a method's",
    "tf_keyword_only_array_default": "a keyword-only parameter with a NumPy default: TF 2.21 raises 'too many "
                                     "positional arguments' at every call; tapejax types it by its default, as TF "
                                     "does a positional one",
    "tf_numpy_bool_list": "TF refuses a list of NumPy bools for a float dtype ([np.True_], [np.False_]) though it "
                          "takes [True] and np.True_; tapejax takes all three (no value is lost)",
    "lossy_list_cast": "a list holding a Tensor or Variable, for a spec of a dtype that would lose its values (int "
                       "to bool, float to int): TF's packing casts the tensor; tapejax's never truncates a tensor "
                       "and raises (tests/test_interop_tf_parity.py)",
    "tf_empty_array_in_list": "a list holding an empty NumPy array: TF's conversion drops the array's trailing "
                              "sizes ([np.zeros((0, 3))] is a (1, 0) tensor; NumPy's and tapejax's shape is "
                              "(1, 0, 3)), so a spec of TF's rank takes it and tapejax's binding refuses it",
}


def _normalize_numbers(text: str) -> str:
    return re.sub(r"py (int|float|bool)", "py number", text)


def known(case: Case, call, problem: str, tf_out: Outcome, tj_out: Outcome):
    """The KNOWN name explaining ``problem`` (of ``call``, None for the trace count), or None."""
    sig = case.signature_text()
    features = _features(case)
    for feature, label in (("keyword-only specs", "keyword_only_specs"), ("self not first", "self_not_first"),
                           ("keyword-only NumPy default", "tf_keyword_only_array_default")):
        if feature in features:
            return label
    if "self first" in features:  # (a plain function whose first parameter is named self)
        return "self_not_first"
    if problem.startswith("raised: TF TypeError, tj nothing") and re.search(r"np\.(True|False)_", str(tf_out.raised)):
        return "tf_numpy_bool_list"
    if problem.startswith("raised: TF nothing, tj TypeError"):
        if "would lose information" in str(tj_out.raised):
            return "lossy_list_cast"
        if re.search(r"Can not cast TensorSpec\(shape=\([^)]*\b0\b", str(tj_out.raised)) and \
                "nesting" in " ".join(getattr(call, "faults", ())):
            return "tf_empty_array_in_list"
    has64 = "64" in sig or (call is not None and "x64" in call.tags)
    if problem.startswith("structure"):
        tf_text, tj_text = STRUCTURES.get(tf_out.code, "?"), STRUCTURES.get(tj_out.code, "?")
        if has64 and _normalize64(tf_text) == _normalize64(tj_text):
            return "x64_off"
        # (a trace of a new size ran the body with that call's Python numbers: 1.0 for a default 1, where TF's one
        # trace has the first call's)
        if "None" in sig and tj_out.count > tf_out.count and \
                _normalize_numbers(_normalize64(tf_text)) == _normalize_numbers(_normalize64(tj_text)):
            return "none_size_traces"
    # (a 64-bit spec may bind a parameter the call's tags count as outside the signature: the signature says)
    if problem.startswith("raised: TF TypeError, tj nothing") and has64 and \
            re.search(r"(float|int)64", str(tf_out.raised)):
        return "x64_off"
    if problem.startswith("traces") and "None" in sig:
        tf_n, tj_n = (int(s) for s in problem.split(":")[1].replace("TF", "").split(", tj"))
        if tj_n > tf_n:
            return "none_size_traces"
    return None


def compare(tf_out: Outcome, tj_out: Outcome):
    if tf_out.raised is not None or tj_out.raised is not None:
        if tf_out.raised is None or tj_out.raised is None:
            tf_name = type(tf_out.raised).__name__ if tf_out.raised is not None else "nothing"
            tj_name = type(tj_out.raised).__name__ if tj_out.raised is not None else "nothing"
            return [f"raised: TF {tf_name}, tj {tj_name}"]
        if not isinstance(tj_out.raised, type(tf_out.raised)):
            return [f"class: TF {type(tf_out.raised).__name__}, tj {type(tj_out.raised).__name__}"]
        return []
    out = []
    if tf_out.code != tj_out.code:
        out.append("structure: the body saw other arguments")
    if tf_out.values.shape != tj_out.values.shape or not np.allclose(tf_out.values, tj_out.values, equal_nan=True):
        out.append("values")
    return out


def make(lib, case: Case):
    namespace = {"show": tf_show if lib is TF else tj_show, "np": np}
    exec(compile(case.source, f"<case {case.seed}>", "exec"), namespace)
    sig = [build_spec(lib, s) for s in case.signature]
    return lib.function(namespace["f"], sig)


def _numbers_only(problems, tf_out: Outcome, tj_out: Outcome) -> bool:
    """Whether the call's differences are only the types of Python numbers the body saw (1 where the other saw 1.0
    or True), its values the same."""
    if not problems or any(not p.startswith("structure") for p, _ in problems):
        return False
    texts = [_normalize_numbers(_normalize64(STRUCTURES.get(o.code, "?"))) for o in (tf_out, tj_out)]
    return texts[0] == texts[1]


def _call(lib, fn, call: Call) -> Outcome:
    out = _run(lambda: fn(*[build_value(lib, a) for a in call.args],
                          **{k: build_value(lib, v) for k, v in call.kwargs.items()}))
    out.count = fn.experimental_get_tracing_count()
    return out


def check(seed: int):
    """("ok" | "mismatch" | "known", case, [(call, "decorating" or "tracing count", TF outcome, tj outcome,
    [(problem, label)])]): label None for a mismatch, a KNOWN name, or "follows": after a call that raised on one
    side only, the trace count, and the types of the Python numbers the body saw (its first trace was another
    call's)."""
    case = Case(seed)
    fns, deco = [], []
    for lib in (TF, TJ):
        try:
            fns.append(make(lib, case))
            deco.append(None)
        except Exception as e:  # noqa: BLE001 (compared)
            fns.append(None)
            deco.append(e)
    rows = []
    if deco[0] is not None and deco[1] is not None:
        problems = [] if isinstance(deco[1], type(deco[0])) else \
            [f"decorating class: TF {type(deco[0]).__name__}, tj {type(deco[1]).__name__}"]
        rows.append(("decorating", Outcome(raised=deco[0]), Outcome(raised=deco[1]), [(p, None) for p in problems]))
    elif deco[0] is not None or deco[1] is not None:
        # one side refuses the function: the calls on the other, and whether each raises that class
        side = 1 if deco[0] is not None else 0
        error = deco[1 - side]
        outs = [_call((TF, TJ)[side], fns[side], call) for call in case.calls]
        names = [f"{lib.name} {type(e).__name__ if e is not None else 'nothing'}" for lib, e in zip((TF, TJ), deco)]
        if all(o.raised is not None and isinstance(o.raised, type(error)) for o in outs):
            p = f"decorating raised: {', '.join(names)} (the other raises {type(error).__name__} at every call)"
        else:
            p = f"decorating raised: {', '.join(names)} (the other's calls return)"
        deco_outs = [Outcome(raised=deco[0]), Outcome(raised=deco[1])]
        features = _features(case)
        label = "keyword_only_specs" if "keyword-only specs" in features and "every call" in p else \
            "self_not_first" if {"self not first", "self first"} & set(features) else None
        rows.append(("decorating", deco_outs[0], deco_outs[1], [(p, label)]))
        for call, out in zip(case.calls, outs):
            pair = (out, deco_outs[1]) if side == 0 else (deco_outs[0], out)
            rows.append((call, pair[0], pair[1], []))
    else:
        apart = False
        for call in case.calls:
            outs = [_call(lib, fn, call) for lib, fn in zip((TF, TJ), fns)]
            problems = [(p, known(case, call, p, *outs)) for p in compare(*outs)]
            if apart and _numbers_only(problems, *outs):
                # (the first trace was made by different calls: TF's one trace keeps its call's Python numbers)
                problems = [(p, k or "follows") for p, k in problems]
            apart = apart or any(p.startswith("raised") for p, _ in problems)
            rows.append((call, outs[0], outs[1], problems))
        counts = [fn.experimental_get_tracing_count() for fn in fns]
        if counts[0] != counts[1]:
            p = f"traces: TF {counts[0]}, tj {counts[1]}"
            label = known(case, None, p, None, None) or ("follows" if apart else None)
            rows.append(("tracing count", None, None, [(p, label)]))
    labels = [k for *_, problems in rows for _, k in problems]
    kind = "mismatch" if any(k is None for k in labels) else "known" if labels else "ok"
    return kind, case, rows


def report(kind, case, rows, verbose) -> None:
    print(f"[{kind}] {case!r}")
    every = verbose or rows[0][0] == "decorating"
    for call, tf_out, tj_out, problems in rows:
        if not problems and not every:
            continue
        print(f"    {call}" if isinstance(call, str) else f"    {call!r}")
        if tf_out is not None:
            print(f"        TF: {tf_out}\n        tj: {tj_out}")
        for p, k in problems:
            note = f"  (known: {k})" if k in KNOWN else "  (follows from an earlier call raised on one side only)" \
                if k == "follows" else ""
            print(f"        -> {p}{note}")
    sys.stdout.flush()


def _features(case: Case) -> list:
    """The function's rarer features, where most mismatches come from."""
    names = [n for n, _, _ in case.positional]
    n_positional = sum(n != "self" for n in names)
    return [name for name, on in (
        ("self first", case.self_first or names[:1] == ["self"]), ("self not first", "self" in names[1:]),
        ("keyword-only specs", case.kwonly and not case.varargs and len(case.signature) > n_positional),
        ("NumPy default", any("np." in str(d) for _, sp, d in case.positional if sp is None)),
        ("keyword-only NumPy default", any("np." in str(d) for _, sp, d in case.kwonly if sp is None)),
        ("*args", case.varargs), ("/", case.posonly), (case.fault, case.fault)) if on]


def _fault_kind(text: str) -> str:
    """The kind of a call's fault (its text names the details)."""
    for prefix, kind in (("outside", "outside value"), ("nesting", "nesting"), ("shape", "shape"),
                         (("None", "a string", "a ragged"), "bad leaf"),
                         (("T ", "V ", "np ", "Python", "list of NumPy"), "dtype")):
        if text.startswith(prefix):
            return kind
    return "by keyword" if "by keyword" in text else "given twice" if "twice" in text else text


def _table_row(case: Case, call, problem: str) -> str:
    """The closing table's row of a problem: the problem, the kinds of the call's faults and the function's rarer
    features, so that each cause shows about once."""
    features = _features(case)
    tag = f" {{{', '.join(features)}}}" if features else ""
    if isinstance(call, str):
        return problem + tag
    faults = "; ".join(sorted({_fault_kind(f) for f in call.faults})) or "fitting call"
    return f"{problem}  [{faults}]{tag}"


def main(argv=None) -> int:
    args = seed_arguments(__doc__, argv, 300, "case")
    counts = dict.fromkeys(("ok", "mismatch", "known"), 0)
    signatures, labels = {}, {}
    for seed in range(args.first, args.first + args.programs):
        kind, case, rows = check(seed)
        counts[kind] += 1
        if kind != "ok" or args.verbose:
            report(kind, case, rows, args.verbose)
        for call, _, _, problems in rows:
            for p, k in problems:
                if k is None:
                    signatures.setdefault(_table_row(case, call, p), []).append(seed)
                elif k in KNOWN:
                    labels[k] = labels.get(k, 0) + 1
    last = args.first + args.programs - 1
    print(f"\n{args.programs} programs (seeds {args.first}-{last}): " +
          ", ".join(f"{v} {k}" for k, v in counts.items()))
    print("known differences (showings): " + (", ".join(f"{k} {v}" for k, v in sorted(labels.items())) or "none"))
    if signatures:
        print_seed_table("mismatches by problem [faults of the call] (seeds):", signatures)
    print("\nKNOWN:\n" + "\n".join(f"  {k}: {v}" for k, v in KNOWN.items()))
    return 1 if counts["mismatch"] else 0


if __name__ == "__main__":
    sys.exit(main())
