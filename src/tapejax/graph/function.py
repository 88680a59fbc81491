"""tj.function: trace a tapejax program (tapes, accumulators, custom gradients, Variable assignments
included) into one XLA program per input signature with ``jax.jit``.

Variables read or assigned inside are lifted into explicit inputs and outputs: their current values
go in, their assignments come out and are written back when the call returns (nothing is written if
the call raises). Under an outer eager tape or accumulator, a call is recorded as one op whose
backward and forward-mode kernels are the compiled VJP/JVP of the traced function.

Variables created inside (a Keras-style lazy build: ``if self.w is None: self.w = tj.Variable(...)``)
are allowed on the first call only. A traced value cannot become a Variable's value (it dies with its
trace), so when the first trace creates one, that trace is abandoned and the first call runs eagerly,
once, as a Keras layer builds on its first call: the Variables get concrete initial values and the call
returns the eager results. The function is then traced (with the new Variables as inputs) for the next
calls; a trace that creates a Variable after the first call raises ``ValueError``, as TF.
"""
from __future__ import annotations

import functools
import weakref
from typing import Any, Callable, Dict, List, Optional

import jax
import numpy as np

from .. import tape_set
from ..ops.core import OpDef, apply, rules_epoch
from ..tensor import Tensor, Variable, constant
from .capture import SINGLETON_VARIABLES, BuildEagerly, Capture, GraphRecorder


def _is_leaf(x) -> bool:
    return x is None or type(x) is Tensor or isinstance(x, (Tensor, Variable))


def _is_array(x) -> bool:
    return isinstance(x, (Tensor, jax.Array, np.ndarray)) or isinstance(x, jax.core.Tracer)


def _strong(x):
    """The signature is shape and dtype (as tf.function): a weakly typed value (e.g. jnp.full(3, 2.0))
    must not make jax.jit retrace, so it is passed with a strong dtype."""
    return jax.lax.convert_element_type(x, x.dtype) if getattr(x, "weak_type", False) else x


def _static_key(x):
    try:
        hash(x)
        return (type(x), x)
    except TypeError:
        return ("id", id(x))


def _python_number(x) -> bool:
    return isinstance(x, (bool, int, float, complex, np.generic))


def _output_tensor(x):
    """An output leaf as the caller gets it: Variables as their read value, Python and NumPy numbers as
    Tensors (tf.function returns ``tf.constant(1)`` for ``return 1``), other objects as they are."""
    if isinstance(x, Variable):
        return x.read_value()
    if _python_number(x):
        return constant(x)
    return x


class _Concrete:
    """One traced signature: the compiled program and what the trace learned about its outputs."""

    def __init__(self) -> None:
        self.out_tree = None
        self.out_static: Dict[int, Any] = {}  # output leaf position -> non-array Python value
        self.out_arrays: List[int] = []
        self.assigned: List[Variable] = []
        self.jitted = None
        self.op: Optional[OpDef] = None
        self.tensors: List[Tensor] = []
        self.missing_tensors: List[Tensor] = []
        self.connections: tuple = ()


class Function:
    """A traced, compiled tapejax function (see ``tj.function``)."""

    def __init__(self, f: Callable, jit_compile: bool = True, donate_variables: bool = False) -> None:
        functools.update_wrapper(self, f)
        self._f = f
        self._jit_compile = jit_compile
        self._donate = donate_variables
        self._variables: List[Variable] = []
        self._tensors: List[Tensor] = []  # Tensors made outside and used inside (closures): inputs too
        self._cache: Dict[Any, _Concrete] = {}
        # Calls whose positional arguments are all Tensors (a training step): a cheaper key, same programs.
        self._fast: Dict[Any, tuple] = {}
        self._initialized = False  # a call has completed: Variables may no longer be created inside
        self._bound: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()

    def __get__(self, obj, objtype=None):
        # One Function per instance (as tf.function on methods): each instance builds its own Variables
        # on its first call, and a call only lifts the Variables of its own instance.
        if obj is None:
            return self
        try:
            bound = self._bound.get(obj)
        except TypeError:  # unhashable or not weak-referenceable: one Function shared by all instances
            return functools.partial(self, obj)
        if bound is None:
            ref, f = weakref.ref(obj), self._f  # weak: the cache must not keep the instance alive

            def method(*args, **kwargs):
                return f(ref(), *args, **kwargs)
            functools.update_wrapper(method, f)
            bound = self._bound[obj] = Function(method, self._jit_compile, self._donate)
        return bound

    def __repr__(self) -> str:
        return f"<tj.function {getattr(self._f, '__name__', self._f)} ({len(self._cache)} traced signatures)>"

    # -- calling ------------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if not kwargs and all(type(a) is Tensor for a in args):
            dyn_vals = [_strong(a._value) for a in args]
            fast_key = (tuple((v.shape, v.dtype) for v in dyn_vals), len(self._variables), len(self._tensors),
                        rules_epoch())
            hit = self._fast.get(fast_key)
            if hit is not None and not tape_set.any_recording() and tape_set.state.capture is None:
                conc, variables = hit
                outs, new_vals = conc.jitted([_strong(v._value) for v in variables],
                                             dyn_vals + [_strong(t._value) for t in conc.tensors])
                return self._finish(conc, [Tensor(o) for o in outs], new_vals)
        else:
            fast_key = None
        leaves, treedef = jax.tree_util.tree_flatten((args, kwargs), is_leaf=_is_leaf)
        dyn_pos, dyn_vals, sig = [], [], []
        for i, x in enumerate(leaves):
            if isinstance(x, Variable):
                self._know(x)
                sig.append(("var", id(x)))
            elif _is_array(x):
                v = _strong(x._value if isinstance(x, Tensor) else x)
                dyn_pos.append(i)
                dyn_vals.append(v)
                sig.append((v.shape, v.dtype))
            else:
                sig.append(_static_key(x))
        # A RegisterGradient since the last trace retraces: the program carries the rules of its ops.
        base_key = (treedef, tuple(sig), rules_epoch())
        try:
            conc = self._concrete(base_key, leaves, treedef, dyn_pos, dyn_vals)
        except BuildEagerly:
            if self._initialized:  # a tj.function first called inside this one created a Variable
                raise ValueError(SINGLETON_VARIABLES) from None
            if tape_set.state.capture is not None:
                raise  # inside an outer trace: the outermost first call runs eagerly
            return self._build(args, kwargs, base_key, leaves, treedef, dyn_pos, dyn_vals)
        self._initialized = True
        if fast_key is not None and fast_key[1:3] == (len(self._variables), len(self._tensors)):
            self._fast[fast_key] = (conc, list(self._variables))
        # Inside an outer trace, the outer trace's values of the Variables (which see its assignments).
        var_vals = [_strong(v._current()) for v in self._variables]
        if tape_set.any_recording():
            outs, new_vals = self._call_recorded(conc, leaves, dyn_pos)
        else:
            outs, new_vals = conc.jitted(var_vals, dyn_vals + [_strong(t._value) for t in conc.tensors])
            outs = [Tensor(o) for o in outs]
        return self._finish(conc, outs, new_vals)

    def _concrete(self, base_key, leaves, treedef, dyn_pos, dyn_vals) -> "_Concrete":
        """The traced program for this signature and the Variables and closures known now (traced if new)."""
        for _ in range(100):
            key = base_key + (tuple(id(v) for v in self._variables), tuple(t._id for t in self._tensors))
            conc = self._cache.get(key)
            if conc is None:
                conc = self._trace(leaves, treedef, dyn_pos, dyn_vals)
                if conc is None:
                    continue  # new variables or closed-over tensors were found: retrace with them as inputs
                self._cache[key] = conc
            return conc
        raise RuntimeError(f"tj.function {getattr(self._f, '__name__', self._f)}: each trace found new Variables "
                           "or closed-over Tensors; create them once, outside the function or on its first call.")

    def _build(self, args, kwargs, base_key, leaves, treedef, dyn_pos, dyn_vals):
        """The first call, run eagerly because it creates Variables (see the module docstring). Its ops are
        recorded on a graph of their own, so tj.gradients inside works on this call as in the traced ones."""
        graph, saved = GraphRecorder(), tape_set.state.build_graph
        tape_set.state.build_graph = graph
        tape_set.push_tape(graph)
        try:
            out = self._f(*args, **kwargs)
        finally:
            tape_set.pop_tape(graph)
            tape_set.state.build_graph = saved
        self._initialized = True
        # Trace now (nothing runs): a function that creates a Variable on every call raises on its first
        # call, as in TF, instead of on its second; the next call finds the program cached.
        self._concrete(base_key, leaves, treedef, dyn_pos, dyn_vals)
        return jax.tree_util.tree_map(
            lambda x: Tensor(x) if _is_array(x) and not isinstance(x, Tensor) else _output_tensor(x), out,
            is_leaf=_is_leaf)

    def _new_variable(self, name) -> None:
        if self._initialized:
            what = f"Variable {name!r}" if name is not None else "A tj.Variable (with no name)"
            raise ValueError(f"{what} created on a later call: " + SINGLETON_VARIABLES)
        raise BuildEagerly(name)

    @staticmethod
    def _finish(conc: "_Concrete", outs: list, new_vals: list):
        """Write the assignments back and rebuild the outputs' structure."""
        cap = tape_set.state.capture
        for v, new in zip(conc.assigned, new_vals):
            new = new.value if isinstance(new, Tensor) else new
            if cap is not None:
                cap.write(v, new)  # called inside an outer trace: that call writes it back
            else:
                v.write_back(new)
        it = iter(outs)
        flat = [conc.out_static[i] if i in conc.out_static else next(it)
                for i in range(len(conc.out_static) + len(conc.out_arrays))]
        return jax.tree_util.tree_unflatten(conc.out_tree, flat)

    def _know(self, v: Variable) -> None:
        if all(v is not k for k in self._variables):
            self._variables.append(v)

    # -- tracing ------------------------------------------------------------------------------------
    def _pure(self, conc: _Concrete, leaves, treedef, dyn_pos, variables, tensors):
        """The traced program: (variable values, dynamic leaves + closed-over tensors' values) ->
        (output arrays, assigned values)."""
        f = self._f
        n_dyn = len(dyn_pos)

        def pure(var_vals, dyn_vals):
            dyn_vals, tensor_vals = dyn_vals[:n_dyn], dyn_vals[n_dyn:]
            cap = Capture(variables, var_vals, {t._id: v for t, v in zip(tensors, tensor_vals)})
            cap.on_new_variable = self._new_variable
            call_leaves = list(leaves)
            for p, v in zip(dyn_pos, dyn_vals):
                call_leaves[p] = Tensor(v)
            args, kwargs = jax.tree_util.tree_unflatten(treedef, call_leaves)
            with tape_set.isolated(cap):
                tape_set.push_tape(cap.graph)
                out = f(*args, **kwargs)
                out_leaves, out_tree = jax.tree_util.tree_flatten(out, is_leaf=_is_leaf)
                arrays, static, positions = [], {}, []
                for i, o in enumerate(out_leaves):
                    o = out_leaves[i] = _output_tensor(o)
                    if isinstance(o, Tensor):
                        # a closed-over Tensor returned as it is: its traced value (an input of the program)
                        arrays.append(cap.substitute([o], [o._value])[0])
                        positions.append(i)
                    elif _is_array(o):
                        arrays.append(o)
                        positions.append(i)
                    else:
                        static[i] = o
            conc.out_tree, conc.out_static, conc.out_arrays = out_tree, static, positions
            conc.assigned = list(cap.assigned.values())
            in_ids = [v._handle_id for v in variables] + [call_leaves[p]._id for p in dyn_pos] + \
                [t._id for t in tensors]
            out_ids = [out_leaves[i]._id if isinstance(out_leaves[i], Tensor) else None for i in positions]
            # assigned Variables' new values count as reaching every input
            conc.connections = _connections(cap.graph, in_ids, out_ids + [None] * len(conc.assigned))
            conc.missing = list(cap.missing.values())
            conc.missing_tensors = list(cap.missing_tensors.values())
            return arrays, [cap.values[id(v)] for v in conc.assigned]
        return pure

    def _trace(self, leaves, treedef, dyn_pos, dyn_vals) -> Optional[_Concrete]:
        conc = _Concrete()
        variables = list(self._variables)
        conc.tensors = tensors = list(self._tensors)
        pure = self._pure(conc, leaves, treedef, dyn_pos, variables, tensors)
        var_vals = [_strong(v._value) for v in variables]
        plain = jax.jit(pure)
        # One Python execution of f per signature (as tf.function): jit reuses this trace when called.
        plain.trace(var_vals, dyn_vals + [_strong(t._value) for t in tensors])  # learns outputs, assignments,
        if conc.missing or conc.missing_tensors:                                 # new variables and closures
            for v in conc.missing:
                self._know(v)
            self._tensors += conc.missing_tensors
            return None
        donate = ()
        if self._donate and conc.assigned and jax.default_backend() != "cpu":
            donate = (0,)
            assigned_ids = {id(v) for v in conc.assigned}

            def split(assigned_vals, other_vals, dyn):
                it_a, it_o = iter(assigned_vals), iter(other_vals)
                full = [next(it_a) if id(v) in assigned_ids else next(it_o) for v in variables]
                return pure(full, dyn)
            compiled = jax.jit(split, donate_argnums=donate)

            def call(var_vals, dyn):
                a = [x for v, x in zip(variables, var_vals) if id(v) in assigned_ids]
                o = [x for v, x in zip(variables, var_vals) if id(v) not in assigned_ids]
                return compiled(a, o, dyn)
            conc.jitted = call
        else:
            conc.jitted = plain
        n_vars = len(variables)

        def op_fn(*flat):
            var_vals, dyn = list(flat[:n_vars]), list(flat[n_vars:])
            outs, new_vals = pure(var_vals, dyn)
            return tuple(outs) + tuple(new_vals)
        # connections: TF's None between inputs and outputs with no path.
        conc.op = OpDef(f"function:{getattr(self._f, '__name__', 'f')}", op_fn, register=False,
                        connections=conc.connections)
        return conc

    def _call_recorded(self, conc: _Concrete, leaves, dyn_pos):
        """Under an outer tape/accumulator: one recorded op of the variables' reads and the inputs."""
        reads = [v.read_value() for v in self._variables]
        inputs = [leaves[p] for p in dyn_pos]
        result = apply(conc.op, reads + inputs + list(conc.tensors), {})
        result = result if isinstance(result, tuple) else (result,)
        n_out = len(conc.out_arrays)
        return list(result[:n_out]), list(result[n_out:])


def _connections(graph, in_ids: List[int], out_ids: List[Optional[int]]) -> tuple:
    """For each output, the positions of the inputs it reaches through the ops the trace recorded (an
    output that is not a Tensor counts as reaching every input)."""
    result = []
    for oid in out_ids:
        if oid is None:
            result.append(frozenset(range(len(in_ids))))
            continue
        seen, stack = set(), [oid]
        while stack:
            i = stack.pop()
            if i in seen:
                continue
            seen.add(i)
            op_id = graph.producer(i)
            if op_id is not None and op_id != -1:
                stack.extend(graph.op_tape[op_id].input_ids)
        result.append(frozenset(p for p, i in enumerate(in_ids) if i in seen))
    return tuple(result)


def function(f: Optional[Callable] = None, *, jit_compile: bool = True, donate_variables: bool = False):
    """Trace ``f`` into one XLA program per input signature and run it (as ``tf.function``).

    Python scalars and other non-array arguments are part of the signature (a new value retraces);
    Tensors and arrays are traced by shape and dtype. Usable as ``@tj.function`` or
    ``@tj.function(donate_variables=True)``.
    """
    if f is None:
        return lambda g: Function(g, jit_compile=jit_compile, donate_variables=donate_variables)
    return Function(f, jit_compile=jit_compile, donate_variables=donate_variables)
