"""What a tj.function trace keeps: traced Variable values, the traced values of Tensors it closes over, and
the graph of every op run in the trace."""
from __future__ import annotations

import warnings
from typing import Any, Callable, Dict, List, Optional

import jax
import jax.numpy as jnp

from .. import sweep
from ..tape import Tape
from ..tensor import Tensor, new_id


SINGLETON_VARIABLES = ("tj.function only supports singleton tj.Variables created on the first call. Make sure "
                       "the tj.Variable is only created once or created outside tj.function.")


@jax.custom_jvp
def assigned_value(new, handle):
    """The value a Variable holds after an assignment inside a trace: ``new``, but differentiated as a fresh
    read of the Variable (TF: an assignment is not differentiable, and a later read's gradient goes to the
    Variable itself, i.e. to its value at the start of the call, ``handle``). Written as a select of ``new`` cut
    from what it was computed from, which reads ``handle`` too, so that a jaxpr's data flow (ops/dependence.py:
    TF's None at second order) connects it to the Variable only, as its derivative does."""
    return jax.lax.select(jnp.ones(jnp.shape(new), bool), jax.lax.stop_gradient(new), handle)


@assigned_value.defjvp
def _assigned_value_jvp(primals, tangents):
    # (the primal output is itself an assigned value: differentiated again, at second order, it still follows
    # the handle, not the assignment's computation)
    return assigned_value(*primals), tangents[1]


class InlineTrace(Exception):
    """Raised by tj.gradients in a nested trace when a gradient path runs through ops of an enclosing trace
    (a Tensor the nested function closes over was computed there from an ``xs``). TF's gradients cross
    function captures into the enclosing graph; here the nested tj.function then runs inline in the
    enclosing trace (its ops recorded there), so tj.gradients sees the whole path."""


class GraphRecorder(Tape):
    """A persistent tape that records every op with a float input (the trace's graph, for tj.gradients
    and tj.differentiate). Nothing is freed while the trace runs."""

    records_everything = True

    def __init__(self) -> None:
        super().__init__(persistent=True, watch_accessed_variables=False)
        self.first_id = new_id()  # Tensors with smaller ids were made before this graph began
        # Float Tensors/Variables (by id) that user code passed to a plain JAX function (jax.lax.cond,
        # jnp.sin, jax.jit(f)) during the trace -> (site, (filename, lineno, module)) of the first such use.
        # JAX's result is a value no recorded op made, so the graph has no path through that call.
        self.raw_uses: Dict[int, tuple] = {}
        # The ids of the Tensor arguments of the nested tj.functions now running inline in this trace (their
        # placeholders, InlineTrace): a tj.gradients called in them stops there, as TF's at a function's argument.
        self.boundaries: set = set()

    def note_raw_use(self, tensor_id: int, site: str, where: tuple) -> None:
        """Called by tensor.py when user code hands a float value of this trace to plain JAX."""
        self.raw_uses.setdefault(tensor_id, (site, where))

    def raw_uses_from(self, source_ids, stop_ids=()) -> List[tuple]:
        """``(tensor_id, site, where)`` of each raw JAX use of a value that ``source_ids`` reach through the
        recorded ops (crossing no ``stop_ids``): gradients with respect to those sources miss that path."""
        if not self.raw_uses:
            return []
        reached = sweep.prune_between(self.tensor_tape, self.op_tape, list(self.raw_uses), source_ids, stop_ids)[3]
        return [(i, *self.raw_uses[i]) for i in self.raw_uses if i in reached]

    def takes(self, ids) -> bool:
        return not self.paused

    def _tensor_died(self, tensor_id: int) -> None:
        pass  # the graph keeps everything until the trace ends


def warn_raw_uses(uses: List[tuple], what: str, hint: str = "") -> None:
    """The UserWarning of tensor.py's raw JAX use, for ``what`` (tj.gradients...) over a trace's graph:
    one per line that made such a use (``GraphRecorder.raw_uses_from``), issued at that line."""
    for site, (filename, lineno, module) in dict((site, where) for _, site, where in uses).items():
        warnings.warn_explicit(
            f"A tj.Tensor that {what} differentiates through was passed to a plain JAX function at {site}, while "
            "tracing. JAX computes with its raw value and returns a value no recorded op made, so "
            f"{what} cannot see the path through this call: its gradient leaves that path out (None where it is "
            "the only one). Use the tj.numpy equivalent (e.g. tj.numpy.sin instead of jax.numpy.sin, tj.numpy.where "
            "instead of jax.lax.cond), or wrap the JAX function with tj.op(fn) so it is recorded; take `.value` "
            "explicitly if no gradient is wanted." + hint,
            UserWarning, filename, lineno, module=module)


class Uninitialized:
    """The pending source (tensor.make_value_pending) of a Variable that a tj.function's first trace made with a
    value the trace computes, when that trace raised (graph/function.py): reading it is TF's error for an
    uninitialized variable, not the zeros it held."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def compute(self) -> None:
        raise RuntimeError(f"tj.Variable {self.name!r} has no value: it was created by the first trace of a "
                           "tj.function, which raised before computing its initial value (TF: an uninitialized "
                           "variable). Create it again, e.g. on the next first call.")


class Capture:
    """Variable values inside one trace: reads see the traced value (including assignments made earlier
    in the same call); assignments are collected and written back after the call. Tensors made before
    the trace and used by its ops (closures) are inputs of the traced program too, as in TF: ``tensors``
    maps their ids to traced values; those first seen in this trace are ``missing`` (a retrace adds them)."""

    def __init__(self, variables: List[Any], values, tensors: Dict[int, Any] = None) -> None:
        self.first_id = new_id()
        self.tensors: Dict[int, Any] = dict(tensors or {})
        self.missing_tensors: Dict[int, Any] = {}
        self.values: Dict[int, Any] = {id(v): val for v, val in zip(variables, values)}
        self.inputs = {id(v) for v in variables}
        self.initial: Dict[int, Any] = dict(self.values)  # each Variable's value when the call started
        self.assigned: Dict[int, Any] = {}
        self.missing: Dict[int, Any] = {}
        self.used: set = set()  # ids of the Variables read or assigned
        # Why forward mode through this trace is refused (a tj.recompute_grad inside), or None.
        self.no_forward_mode: Optional[str] = None
        self.graph = GraphRecorder()
        # Called when a Variable is created inside the trace; the tj.function sets it (see new_variable).
        # Elsewhere (tj.differentiate) a trace cannot create Variables.
        self.on_new_variable: Optional[Callable[[Optional[str], Any], Any]] = None
        # Whether this trace runs inside another one, whose traced Tensors it may close over; with none, a
        # Tensor holding a traced value escaped a finished trace (TF: "... is out of scope").
        self.nested = False
        # The graphs of the enclosing traces, innermost first: the ops that made the Tensors this trace closes
        # over (tj.gradients crosses into them, as TF's gradients do).
        self.outer_graphs: List[GraphRecorder] = []
        # While a custom gradient's grad_fn is traced into a rule (custom_gradient._carry_rule): a list that
        # each read of a Variable of this trace appends ``(variable, value read)`` to; else None.
        self.read_log: Optional[list] = None
        self.at_end: List[Callable[[], None]] = []  # checks to run once the traced function has returned
        # The tj.function's random state per TF-style draw of this signature (draw index -> generator: each random
        # op of a traced function keeps its own, as TF's), and the draws this trace has made; None outside one.
        self.random_streams: Optional[Dict[Any, Any]] = None
        self.random_draws = 0
        # The ids of the Variables made here; those with a traced initial value, each with that value (``made``).
        self.made_here: set = set()
        self.initializers: List[tuple] = []

    def end(self) -> None:
        """The traced function returned: run the checks that need the trace's final state."""
        checks, self.at_end = self.at_end, []
        for check in checks:
            check()

    def new_variable(self, name, initial_value):
        """A Variable named ``name`` is being created with ``initial_value`` in this trace: the context manager
        its initial value is computed in, or TF's ValueError where it may not be."""
        if self.on_new_variable is None:
            raise ValueError(f"Variable {name!r} created while tracing: " + SINGLETON_VARIABLES)
        return self.on_new_variable(name, initial_value)

    def made(self, var, value):
        """``var`` was just made in this trace with initial value ``value``; returns what it holds. A traced
        value (made by the trace) cannot outlive the trace: reads here see it, the tj.function computes it by
        running this trace once (``initializers``); it holds zeros of its type until then (none if the trace
        raises: ``Uninitialized``)."""
        key = id(var)
        self.made_here.add(key)
        if not isinstance(value, jax.core.Tracer):
            return value
        self.values[key] = value
        self.missing[key] = var  # an input of the next trace
        self.initializers.append((var, value))
        with jax.ensure_compile_time_eval():
            return jnp.zeros(value.shape, value.dtype)

    def computes(self, var) -> bool:
        """Whether ``var`` was made in this trace with a value the trace computes (its own value: zeros)."""
        return any(v is var for v, _ in self.initializers)

    def read(self, var):
        key = id(var)
        self.used.add(key)
        if key in self.values:
            value = self.values[key]
        else:
            self.missing[key] = var  # first seen in this trace: it becomes an input when retraced
            value = var._value
        if self.read_log is not None:
            self.read_log.append((var, value))
        return value

    def write(self, var, value) -> None:
        key = id(var)
        self.used.add(key)
        if key not in self.inputs:
            self.missing[key] = var  # retraced with it as an input
        else:
            value = assigned_value(value, self.initial[key])
        self.values[key] = value
        self.assigned[key] = var

    def substitute(self, args, raw: list) -> list:
        """``raw`` with the traced value of each Tensor argument made before the trace."""
        for i, a in enumerate(args):
            if isinstance(a, Tensor) and a._id < self.first_id:
                v = self.tensors.get(a._id)
                if v is not None:
                    raw[i] = v
                elif isinstance(a._value, jax.core.Tracer) and not self.nested:
                    raise TypeError(
                        f"A Tensor (shape {tuple(a.shape)}, dtype {a.dtype}) made inside another tj.function's "
                        "trace is out of scope and cannot be used here: it escaped that trace (kept in a "
                        "nonlocal, a global or an attribute). Pass it as a return value or an argument instead.")
                else:
                    self.missing_tensors[a._id] = a
        return raw
