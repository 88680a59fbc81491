"""tj.function: trace a tapejax program (tapes, accumulators, custom gradients, Variable assignments
included) into one XLA program per input signature with ``jax.jit``.

Variables read or assigned inside are lifted into explicit inputs and outputs: their current values
go in, their assignments come out and are written back when the call returns (nothing is written if
the call raises). Under an outer eager tape or accumulator, a call is recorded as one op whose
backward and forward-mode kernels are the compiled VJP/JVP of the traced function.

Variables created inside (a Keras-style lazy build: ``if self.w is None: self.w = tj.Variable(...)``)
are allowed on the first call only, which traces the function twice, as TF's. The first trace makes
the Variables: a concrete initial value as it is, a callable one run in ``init_scope`` (as TF), and one
the trace computes (from the call's arguments, or by ops there) by running that trace's program once for
it, since a traced value cannot outlive its trace. The second trace takes them as inputs and is the
program of this call and the next; a trace that creates a Variable after the first raises ``ValueError``,
as TF. The rule is each function's own: a function first called inside another's trace may create
Variables there, even on a later call of the other (as TF); a value its trace computes from the enclosing
trace's values is computed by the enclosing function, as one of its own.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import logging
import os
import sys
import threading
import weakref
from collections.abc import Mapping
from typing import Any, Callable, Dict, Iterator, List, Optional

import jax
import numpy as np
from jax.extend.core import jaxpr_as_fun

from .. import interrupts, tape_set
from ..ops import dependence, nn, random
from ..nest import dict_order, in_dict_order, register_structure_classes, tree_flatten
from ..ops.core import OpDef, apply, rules_epoch
from ..tensor import (ArrayImpl, Tensor, TracedValueError, Variable, constant, make_value_pending, new_id,
                      refuse_narrowing)
from .capture import SINGLETON_VARIABLES, Capture, InlineTrace, Uninitialized
from .reachable import reachable
from .tensor_spec import SignatureBinding, check_input_signature


def _is_leaf(x) -> bool:
    return x is None or type(x) is Tensor or isinstance(x, (Tensor, Variable))


def _is_array(x) -> bool:
    """An argument traced as an input (by shape and dtype, as tf.function's Tensors): also a NumPy scalar of a
    number or bool type (np.float32(1): TF converts it; a Python number is static, traced by value)."""
    return isinstance(x, (Tensor, jax.Array, np.ndarray, np.number, np.bool_)) or isinstance(x, jax.core.Tracer)


def _holds_traced(value) -> bool:
    """Whether a Variable's initial value (a callable: none yet) holds a traced value (a Tensor the trace made,
    a jax tracer), which cannot outlive its trace."""
    if callable(value) and not isinstance(value, (Tensor, Variable)):
        return False
    leaves = jax.tree_util.tree_leaves(value, is_leaf=lambda x: isinstance(x, (Tensor, Variable)))
    return any(isinstance(x._value if isinstance(x, Tensor) else x, jax.core.Tracer) for x in leaves)


def _placed_as(v: Variable, new):
    """A sharded Variable's new value, constrained to its sharding: XLA's propagation would otherwise choose one
    (a replicated Variable came back sharded as the gradient that updated it, from the second call on)."""
    current = v.__dict__.get("_value")  # (a pending value has no placement yet: none asked for)
    sharding = getattr(current, "sharding", None)
    if type(current) is not ArrayImpl or len(sharding.device_set) < 2:
        return new
    return jax.lax.with_sharding_constraint(new, sharding)


def _strong(x):
    """A Variable's value (or a captured Tensor's) with a strong dtype: the signature holds its shape and dtype
    only (as TF's VariableSpec), so a weakly typed value (e.g. jnp.full(3, 2.0)) must not make jax.jit retrace.
    (An argument keeps its weak type, which is part of the signature, as under jax.jit: inside the trace it
    promotes as it does eagerly.)"""
    if type(x) is ArrayImpl:  # (per value of every call: its aval is a C++ attribute, weak_type a property)
        return jax.lax.convert_element_type(x, x.dtype) if x.aval.weak_type else x
    return jax.lax.convert_element_type(x, x.dtype) if getattr(x, "weak_type", False) else x


def _flatten(tree):
    """``tree``'s leaves and structure (Tensors and Variables are leaves; TF nest-protocol classes are nodes)."""
    leaves, treedef = tree_flatten(tree, _is_leaf)
    while register_structure_classes(leaves):
        leaves, treedef = tree_flatten(tree, _is_leaf)
    return leaves, treedef


def _static_key(x):
    """A non-array argument is part of the signature by value (as tf.function's Literal trace type), so it
    must be hashable; a weak reference is refused (TF: "weakref input ... not supported"). Python numbers
    are keyed by value alone, as TF's Literal compares them: ``f(2)`` after ``f(2.0)`` (or ``f(1)`` after
    ``f(True)``) reuses that trace, whose constant is the first call's."""
    if isinstance(x, weakref.ref):
        raise TypeError(f"weakref input {x!r} not supported for tj.function.")
    try:
        hash(x)
    except TypeError:
        raise TypeError(f"Could not generate a generic TraceType for {x!r}. Please verify that it is "
                        "immutable/hashable: a tj.function argument that is not an array is part of the "
                        "signature by value.") from None
    if type(x) in (bool, int, float, complex):
        if x != x:  # NaN (a float's, or a complex part's): never equal to itself, so keyed by its text (TF's
            return ("nan", repr(x))  # Literal reuses the trace; keyed by value, every call retraced)
        return x
    return (type(x), x)


def _variables_in_insertion_order(tree, found: Optional[Dict[int, int]] = None) -> Dict[int, int]:
    """``{id(Variable): rank}`` of the Variables in ``tree`` in the order a walk meets them, dicts in the order
    they hold their keys (jax's flattening sorts them): as TF's trace type numbers a call's Variables (their
    alias ids), a dict of Variables given in another order is another signature."""
    found = {} if found is None else found
    if isinstance(tree, Variable):
        found.setdefault(id(tree), len(found))
    elif isinstance(tree, Mapping):
        for v in tree.values():
            _variables_in_insertion_order(v, found)
    elif isinstance(tree, (list, tuple)):
        for v in tree:
            _variables_in_insertion_order(v, found)
    else:  # (another structure: its leaves in jax's order)
        for leaf in jax.tree_util.tree_leaves(tree, is_leaf=_is_leaf):
            if isinstance(leaf, Variable):
                found.setdefault(id(leaf), len(found))
    return found


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


def _signature(f) -> Optional[inspect.Signature]:
    try:
        return inspect.signature(f)
    except (TypeError, ValueError):  # a builtin or an object inspect cannot read: calls are not bound
        return None


def _is_method(signature: inspect.Signature) -> bool:
    """Whether a function's first parameter is ``self``: a method decorated in its class, whose input_signature
    binds without it (TF goes by the name too)."""
    return next(iter(signature.parameters), None) == "self"


def _same_inputs(before_tree, before_leaves, args, kwargs) -> bool:
    """TF's mutation check: the arguments keep their structure and each leaf is the same object."""
    leaves, tree = tree_flatten((args, kwargs), _is_leaf)
    return tree == before_tree and len(leaves) == len(before_leaves) and \
        all(a is b for a, b in zip(leaves, before_leaves))


_log = logging.getLogger("tapejax")


class _FrequentTracing:
    """TF's frequent-retracing warning: when 5 of the last (about) 10 eager calls of one Python function
    traced, log a warning saying "Tracing is expensive"; at most twice per function. Keyed by the
    function's code, so a tj.function re-created in a loop counts as one (as TF)."""

    THRESHOLD, HISTORY, MAX_WARNINGS = 5, 10, 2

    def __init__(self) -> None:
        self.calls_per_tracing: List[int] = []
        self.calls = 0
        self.warnings = 0

    def record(self, traced: bool, f) -> None:
        if not traced:
            if not self.calls_per_tracing:
                self.calls_per_tracing = [0]
            self.calls_per_tracing[-1] += 1
            self.calls += 1
            return
        self.calls += 1
        self.calls_per_tracing.append(1)
        while self.calls_per_tracing and self.calls - self.calls_per_tracing[0] > self.HISTORY:
            self.calls -= self.calls_per_tracing.pop(0)
        if self.warnings < self.MAX_WARNINGS and len(self.calls_per_tracing) >= self.THRESHOLD:
            self.warnings += 1
            _log.warning(
                "%d out of the last %d calls to %s triggered tj.function retracing. Tracing is expensive and "
                "the excessive number of tracings could be due to (1) creating a tj.function repeatedly in a "
                "loop, (2) passing tensors with different shapes, (3) passing Python objects (numbers "
                "included) instead of tensors.", len(self.calls_per_tracing), self.calls,
                getattr(f, "__qualname__", getattr(f, "__name__", repr(f))))


_detectors: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_detectors_lock = threading.Lock()


def _stats_key(f):
    target = f
    while hasattr(target, "__wrapped__"):
        target = target.__wrapped__
    target = getattr(target, "__func__", target)
    return getattr(target, "__code__", f)


def _detector(key) -> _FrequentTracing:
    """The statistics shared by every tj.function of one Python function."""
    with _detectors_lock:
        try:
            detector = _detectors.get(key)
            if detector is None:
                detector = _detectors[key] = _FrequentTracing()
        except TypeError:  # not weak-referenceable: statistics of this tj.function alone
            detector = _FrequentTracing()
        return detector


class _Concrete:
    """One traced signature: the compiled program and what the trace learned about its outputs."""

    def __init__(self) -> None:
        self.out_tree = None
        self.out_order = None  # the outputs' dicts' key order (nest.dict_order), None without a dict
        self.out_static: Dict[int, Any] = {}  # output leaf position -> non-array Python value
        self.out_arrays: List[int] = []
        self.assigned: List[int] = []  # positions, in the call's Variables, of those the trace assigned
        self.jitted = None
        self.ran = False  # whether ``jitted`` has run (its program is compiled)
        self.op: Optional[OpDef] = None
        self.tensors: List[Tensor] = []
        self.missing_tensors: List[Tensor] = []
        self.connections: tuple = ()
        self.used: set = set()  # positions of the Variables the trace read or assigned
        self.no_forward_mode: Optional[str] = None  # a tj.recompute_grad inside: forward mode refused
        self.arg_slots: List[int] = []  # which Variable arguments are inputs of their own (not closed over)
        self.raw_inputs: frozenset = frozenset()  # inputs whose values reached plain JAX code (see _trace)
        # The Variables whose values a run of this trace gives (made with traced initial values; see _pure)
        self.initialized: List[Variable] = []
        self.initializers: List[tuple] = []  # (its Capture's: the Variables made with traced initial values)


class Function:
    """A traced, compiled tapejax function (see ``tj.function``)."""

    def __init__(self, f: Callable, jit_compile: bool = True, donate_variables: bool = False,
                 input_signature: Optional[tuple] = None) -> None:
        if not callable(f):
            raise TypeError(f"{f!r} is not a callable object")  # as tf.function
        functools.update_wrapper(self, f)
        self._f = f
        self._input_signature = None if input_signature is None else check_input_signature(input_signature)
        # Calls are bound to f's signature (as tf.function): defaults are applied, an argument given by
        # keyword or by position is the same signature, and a wrong call raises inspect's TypeError.
        self._signature = _signature(f)
        if self._signature is not None:  # (inspect.getfullargspec reads it; it does not follow __wrapped__)
            self.__signature__ = self._signature
        # input_signature: how calls bind to it, checked now as TF's; a method's binds after its instance (called
        # through its class: on an instance, __get__'s bound function binds without it)
        self._binding: Optional[SignatureBinding] = None
        self._skips_instance = False
        if self._input_signature is not None:
            if self._signature is None:
                raise TypeError(f"tj.function: {f!r} has no signature to bind an input_signature to")
            sig = self._signature
            self._skips_instance = _is_method(sig)
            if self._skips_instance:
                sig = sig.replace(parameters=list(sig.parameters.values())[1:])
            self._binding = SignatureBinding(sig, self._input_signature)
        # A call giving every parameter by position binds to itself: no binding needed (the common case).
        params = self._signature.parameters.values() if self._signature is not None else ()
        self._arity = len(params) if all(
            p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params) else -1
        self._tracing_count = 0  # Python runs of f that built a program (experimental_get_tracing_count)
        self._stats = _stats_key(f)
        self._detector: Optional[_FrequentTracing] = None
        self._jit_compile = jit_compile
        self._donate = donate_variables
        self._variables: List[Variable] = []
        self._tensors: List[Tensor] = []  # Tensors made outside and used inside (closures): inputs too
        self._cache: Dict[Any, _Concrete] = {}
        # Per signature, the random state of each TF-style draw in it (Capture.random_streams): kept across the
        # traces that find new inputs, so the program's generators are found once
        self._random_streams: Dict[Any, Dict[Any, Any]] = {}
        # Calls whose positional arguments are all Tensors (a training step): a cheaper key, same programs.
        self._fast: Dict[Any, tuple] = {}
        # Other calls (a dict of Variables and the batch): the program by signature and the argument Variables
        # themselves, while the closures found are those known then (both lists only grow until clear_cache).
        self._by_signature: Dict[Any, "_Concrete"] = {}
        self._initialized = False  # a call has completed: Variables may no longer be created inside
        self._tracing_serial = 0  # the traces begun (each ``_trace``), naming the one in progress
        self._created_in = 0  # the trace that created Variables (0: none did)
        self._bound: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
        self._inline = False  # called inside another trace, it runs inline there (capture.InlineTrace)

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
            sig = _signature(f)
            if sig is not None and sig.parameters:
                method.__signature__ = sig.replace(parameters=list(sig.parameters.values())[1:])
            bound = self._bound[obj] = Function(method, self._jit_compile, self._donate, self._input_signature)
        return bound

    def __reduce__(self):
        # Pickled as its Python function and options (as tf.function's): the copy traces afresh. The cache
        # (programs, weak references, the code object keying the retracing statistics) is not picklable.
        return (Function, (self._f, self._jit_compile, self._donate, self._input_signature))

    def __repr__(self) -> str:
        return f"<tj.function {getattr(self._f, '__name__', self._f)} ({len(self._cache)} traced signatures)>"

    # -- calling ------------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if self._input_signature is not None:
            args, kwargs = self._conform(args, kwargs)
        before = self._tracing_count
        out = self._call(args, kwargs)
        if tape_set.current().capture is None:  # eager calls only (as TF): not calls made inside another trace
            detector = self._detector
            if detector is None:
                detector = self._detector = _detector(self._stats)
            detector.record(self._tracing_count != before, self._f)
        return out

    def _call(self, args, kwargs):
        if self._inline and self._enclosed():
            return self._run_inline(args, kwargs)
        if not kwargs and all(type(a) is Tensor for a in args):
            dyn_vals = [a._value for a in args]
            # (the values' abstract values: their shapes, dtypes and weak types, a C++ attribute each)
            fast_key = (tuple([v.aval for v in dyn_vals]), len(self._variables), len(self._tensors), rules_epoch())
            hit = self._fast.get(fast_key)
            if hit is not None and tape_set.current().capture is None and not tape_set.any_recording():
                conc, variables = hit
                if conc.tensors:
                    dyn_vals += [_strong(t._value) for t in conc.tensors]
                return self._run(conc, [_strong(v._value) for v in variables], dyn_vals, variables)
        else:
            fast_key = None
        n_args = len(args)
        if self._signature is not None and (kwargs or n_args != self._arity):
            args, kwargs = self._bind(args, kwargs)
        leaves, treedef = _flatten((args, kwargs))
        dyn_pos, dyn_vals, sig, arg_vars = [], [], [], []
        var_slot: Dict[int, int] = {}
        for i, x in enumerate(leaves):
            # (a Tensor, the common leaf, without isinstance checks; a Variable before _is_array's checks, which
            # include jax.Array's slow abstract-class check)
            if type(x) is Tensor or (not isinstance(x, Variable) and _is_array(x)):
                if type(x) is not Tensor and isinstance(x, (np.ndarray, np.generic)):
                    # (64 bits JAX would hold in 32: no value may change; a Tensor, the common leaf, is not asked)
                    refuse_narrowing(x, None, f"tj.function '{self.name}': a NumPy argument")
                v = x._value if isinstance(x, Tensor) else x
                # (an array's shape, dtype and weak type: C++ attributes; a weakly typed value is traced as one, so
                # that it promotes inside as it does eagerly and under jax.jit)
                av = v.aval if type(v) is ArrayImpl else getattr(v, "aval", v)
                dyn_pos.append(i)
                dyn_vals.append(v)
                sig.append((av.shape, av.dtype, getattr(av, "weak_type", False)))
            elif isinstance(x, Variable):
                # By shape, dtype and aliasing (TF's VariableSpec): another Variable of the same kind reuses
                # the program, its value going in and its assignments coming back out.
                j = var_slot.get(id(x))
                if j is None:
                    j = var_slot[id(x)] = len(arg_vars)
                    arg_vars.append(x)
                a = x._array()  # (its shape and dtype, also of a pending value, without a TensorShape)
                av = a.aval if type(a) is ArrayImpl else a  # (C++ attributes: jax.Array's are properties)
                sig.append(("var", j, tuple(av.shape), av.dtype, x._trainable))
            else:
                sig.append(_static_key(x))
        if fast_key is not None and (len(dyn_pos) != n_args or arg_vars):
            fast_key = None  # a default argument is an array or a Variable: the Tensors are not all the inputs
        # A RegisterGradient since the last trace retraces: the program carries the rules of its ops.
        base_key = (treedef, tuple(sig), rules_epoch())
        if len(arg_vars) > 1:  # (TF numbers Variables in the order a dict holds them: another order retraces)
            ranks = _variables_in_insertion_order((args, kwargs))
            base_key += (tuple([ranks.get(id(v), -1) for v in arg_vars]),)
        # (its dicts' key order is needed only by a trace: _pure)
        structure = (treedef, functools.partial(dict_order, (args, kwargs)))
        # (a Variable id cannot name another object here: a dead one was not a closure, and a closure found
        # since, which could reuse its id, changes the counts)
        sig_key = (base_key, tuple([id(v) for v in arg_vars]), len(self._variables), len(self._tensors))
        try:
            conc = self._by_signature.get(sig_key)
            if conc is None:
                conc = self._concrete(base_key, leaves, structure, dyn_pos, dyn_vals, arg_vars)
                if sig_key[2:] == (len(self._variables), len(self._tensors)):
                    if len(self._by_signature) >= 256:  # (new Variables every call: ids never seen again)
                        self._by_signature.clear()
                    self._by_signature[sig_key] = conc
        except InlineTrace:
            if not self._enclosed():
                raise
            self._inline = True  # its tj.gradients crosses into the enclosing trace: from now on run inline
            return self._run_inline(args, kwargs)
        self._initialized = True
        if fast_key is not None and fast_key[1:3] == (len(self._variables), len(self._tensors)):
            self._fast[fast_key] = (conc, list(self._variables))
        variables = self._variables + [arg_vars[j] for j in conc.arg_slots]
        # Inside an outer trace, the outer trace's values of the Variables (which see its assignments).
        var_vals = [_strong(v._current()) for v in variables]
        if tape_set.any_recording():
            outs, new_vals = self._call_recorded(conc, leaves, dyn_pos, variables)
            with interrupts.held(conc.assigned):
                return self._finish(conc, outs, new_vals, variables)
        return self._run(conc, var_vals, dyn_vals + [_strong(t._value) for t in conc.tensors], variables)

    def _run(self, conc: "_Concrete", var_vals: list, dyn_vals: list, variables: list):
        """Run ``conc``'s program on the Variables' values and the inputs, write its assignments back to
        ``variables`` and give the outputs. Ctrl-C is held back from the call to the last write-back
        (interrupts.held): a donated buffer is gone once the program is dispatched, and write-backs left half
        done would mix new and old values. Not on the first run of a trace, which compiles: an interrupt there
        stops it before anything is donated."""
        with interrupts.held(conc.assigned and conc.ran):
            outs, new_vals = conc.jitted(var_vals, dyn_vals)
            conc.ran = True
            return self._finish(conc, [Tensor(o) for o in outs], new_vals, variables)

    @staticmethod
    def _enclosed() -> bool:
        """Whether this call runs inside another tj.function's trace."""
        return tape_set.current().capture is not None

    def _run_inline(self, args, kwargs):
        """Run ``f`` as part of the enclosing trace (capture.InlineTrace): its ops are recorded in the
        enclosing graph, so its tj.gradients follow captured Tensors back to where they were made."""
        before = tree_flatten((args, kwargs), _is_leaf)[::-1]
        st = tape_set.current()
        graph = st.capture.graph
        # Its Tensor arguments enter through identities, as TF's placeholders: a tj.gradients inside stops at
        # them (no path back through an argument into the enclosing graph, only through what it closes over),
        # while the enclosing trace's gradients pass through them.
        placeholders = [nn.identity(a) if isinstance(a, Tensor) else a for a in before[1]]
        boundaries = {t._id for t in placeholders if isinstance(t, Tensor)} - graph.boundaries
        graph.boundaries |= boundaries
        try:
            call_args, call_kwargs = jax.tree_util.tree_unflatten(before[0], placeholders)
            out = self._f(*call_args, **call_kwargs)
        finally:
            graph.boundaries -= boundaries
        self._check_inputs(before, args, kwargs)
        return jax.tree_util.tree_map(
            lambda x: Tensor(x) if _is_array(x) and not isinstance(x, Tensor) else _output_tensor(x), out,
            is_leaf=_is_leaf)

    def _bind(self, args, kwargs):
        """``(args, kwargs)`` bound to the signature with defaults applied; TypeError as TF for a bad call."""
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            name = getattr(self._f, "__qualname__", getattr(self._f, "__name__", "f"))
            raise TypeError(f"{name}{self._signature}: {e}") from None
        bound.apply_defaults()
        return bound.args, bound.kwargs

    def _conform(self, args, kwargs):
        """The call's arguments converted to the ``input_signature``'s Tensors (TypeError as TF's if they do not
        fit). A method called through its class binds the signature to the arguments after its instance."""
        if not (self._skips_instance and args):
            return self._binding.bind(args, kwargs)
        rest, kwargs = self._binding.bind(args[1:], kwargs)
        return (args[0],) + rest, kwargs

    @property
    def input_signature(self) -> Optional[tuple]:
        """The ``input_signature`` given (TensorSpecs, nested as given), or None."""
        return self._input_signature

    def experimental_get_tracing_count(self) -> int:
        """How many times the Python function ran to build a program (as ``tf.function``'s): once per
        traced signature, plus the first trace of a function that creates Variables (which traces twice)."""
        return self._tracing_count

    def clear_cache(self) -> None:
        """Forget every traced program (as ``tf.function.clear_cache``); the next call traces again and may
        create Variables again. On a method accessed through its class, clears every instance's cache."""
        self._cache.clear()  # (the signature is f's and stays)
        self._random_streams.clear()
        self._fast.clear()
        self._by_signature.clear()
        self._variables, self._tensors = [], []
        self._initialized = False
        self._created_in = 0
        self._tracing_count = 0
        for bound in list(self._bound.values()):
            bound.clear_cache()

    def _check_inputs(self, before, args, kwargs) -> None:
        if not _same_inputs(before[0], before[1], args, kwargs):
            name = getattr(self._f, "__qualname__", getattr(self._f, "__name__", "f"))
            sig = self._signature if self._signature is not None else "(...)"
            raise ValueError(f"{name}{sig} should not modify its Python input arguments. Check if it "
                             "modifies any lists or dicts passed as arguments. Modifying a copy is allowed.")

    def _concrete(self, base_key, leaves, structure, dyn_pos, dyn_vals, arg_vars=()) -> "_Concrete":
        """The traced program for this signature and the Variables and closures known now (traced if new)."""
        discovered = False
        for _ in range(100):
            # A Variable argument the function also closes over is that input, not one of its own.
            known = {id(k): n for n, k in enumerate(self._variables)}
            aliases = tuple([known.get(id(a), -1) for a in arg_vars])
            key = base_key + (tuple([id(v) for v in self._variables]), tuple([t._id for t in self._tensors]), aliases)
            conc = self._cache.get(key)
            if conc is None:
                if not discovered:
                    discovered = True
                    if self._discover(leaves):
                        continue  # more inputs: perhaps a program traced with them already
                conc = self._trace(leaves, structure, dyn_pos, dyn_vals,
                                   [j for j, n in enumerate(aliases) if n < 0], arg_vars,
                                   self._random_streams.setdefault(base_key, {}))
                if conc is None:
                    continue  # new variables or closed-over tensors were found: retrace with them as inputs
                self._cache[key] = conc
            return conc
        raise RuntimeError(f"tj.function {getattr(self._f, '__name__', self._f)}: each trace found new Variables "
                           "or closed-over Tensors; create them once, outside the function or on its first call.")

    def _new_variable(self, name, initial_value):
        """A Variable is being created by the trace in progress: where it may be (the first trace of the first
        call, as TF), the context its initial value is computed in (``init_scope``, where TF evaluates a
        callable one); a ValueError as TF's where it may not."""
        if self._initialized or self._created_in not in (0, self._tracing_serial):
            what = f"Variable {name!r}" if name is not None else "A tj.Variable (with no name)"
            raise ValueError(f"{what} created after the function's first run (on a later call, or by the trace "
                             "that follows the first run, as TF traces such a function twice): " + SINGLETON_VARIABLES)
        self._created_in = self._tracing_serial
        # (a traced value, made by the trace, is computed there: Capture.made)
        return contextlib.nullcontext() if _holds_traced(initial_value) else init_scope()

    @staticmethod
    def _finish(conc: "_Concrete", outs: list, new_vals: list, variables: list):
        """Write the assignments back (to this call's ``variables``) and rebuild the outputs' structure."""
        cap = tape_set.current().capture
        for pos, new in zip(conc.assigned, new_vals):
            v = variables[pos]
            new = new.value if isinstance(new, Tensor) else new
            if cap is not None:
                cap.write(v, new)  # called inside an outer trace: that call writes it back
            else:
                v.write_back(new)
        static = conc.out_static
        if static:  # (merge the outputs that are not arrays back in)
            it = iter(outs)
            outs = [static[i] if i in static else next(it) for i in range(len(static) + len(conc.out_arrays))]
        return in_dict_order(jax.tree_util.tree_unflatten(conc.out_tree, outs), conc.out_order)

    def _know(self, v: Variable) -> None:
        if all(v is not k for k in self._variables):
            self._variables.append(v)

    def _discover(self, leaves) -> bool:
        """Make inputs of the Variables and Tensors the function can plainly see (graph/reachable.py), so its
        next trace needs no second run to find them; whether any was new."""
        static = [x for x in leaves if not isinstance(x, Variable) and not _is_array(x)]
        variables, tensors = reachable([self._f], static)
        before = (len(self._variables), len(self._tensors))
        for v in variables:
            self._know(v)
        known = {t._id for t in self._tensors}
        # (a Tensor holding a traced value is an outer trace's, or one that escaped a finished trace: that
        # one is no input; if the function uses it, the trace says so)
        outer = tape_set.current().capture is not None
        self._tensors += [t for t in tensors if t._id not in known and
                          (outer or not isinstance(t._value, jax.core.Tracer))]
        return (len(self._variables), len(self._tensors)) != before

    @property
    def python_function(self) -> Callable:
        """The Python function this traces (as ``tf.function``'s)."""
        return self._f

    @property
    def name(self) -> str:
        """The traced Python function's ``__name__`` (as ``tf.function``'s; "function" where it has none, e.g. a
        ``functools.partial``)."""
        return getattr(self._f, "__name__", "function")

    # -- tracing ------------------------------------------------------------------------------------
    def _pure(self, conc: _Concrete, leaves, structure, dyn_pos, variables, tensors, random_streams=None):
        """The traced program: (variable values, dynamic leaves + closed-over tensors' values) ->
        (output arrays, assigned values). ``structure``: the arguments' treedef and a function giving their
        ``dict_order``. jax rebuilds a dict with its keys sorted; the trace gets the caller's order back, as
        tf.nest's rebuilt structures keep it. As TF's, the order is not part of the signature: the first
        trace's order stays."""
        f = self._f
        treedef, order = structure[0], structure[1]()
        n_dyn = len(dyn_pos)
        weak_self = weakref.ref(self)  # the cached program must not keep its Function alive (a cycle)
        # nor its _Concrete (which holds the program: a cycle keeping the Variables alive until a collection)
        weak_conc = weakref.ref(conc)
        del conc

        def pure(var_vals, dyn_vals):
            conc = weak_conc()
            dyn_vals, tensor_vals = dyn_vals[:n_dyn], dyn_vals[n_dyn:]
            cap = Capture(variables, var_vals, {t._id: v for t, v in zip(tensors, tensor_vals)})
            outer = tape_set.current().capture
            cap.nested = outer is not None
            if outer is not None:
                cap.outer_graphs = [outer.graph] + outer.outer_graphs
            cap.on_new_variable = lambda name, initial_value: weak_self()._new_variable(name, initial_value)
            conc.initializers = cap.initializers  # (the same list: _trace reads it if the trace raises)
            cap.random_streams = random_streams
            call_leaves = list(leaves)
            for p, v in zip(dyn_pos, dyn_vals):
                call_leaves[p] = Tensor(v)
            args, kwargs = in_dict_order(jax.tree_util.tree_unflatten(treedef, call_leaves), order)
            with tape_set.isolated(cap):
                tape_set.push_tape(cap.graph)
                out = f(*args, **kwargs)
                cap.end()
                weak_self()._check_inputs((treedef, call_leaves), args, kwargs)
                out_leaves, out_tree = _flatten(out)
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
            conc.out_order = dict_order(out)
            position = {id(v): n for n, v in enumerate(variables)}
            assigned = list(cap.assigned.values())
            conc.assigned = [position[id(v)] for v in assigned if id(v) in position]
            in_ids = [v._handle_id for v in variables] + [call_leaves[p]._id for p in dyn_pos] + \
                [t._id for t in tensors]
            out_ids = [out_leaves[i]._id if isinstance(out_leaves[i], Tensor) else None for i in positions]
            # assigned Variables' new values count as reaching every input
            conc.connections = _connections(cap.graph, in_ids, out_ids + [None] * len(conc.assigned))
            # the inputs that reach a value user code handed to plain JAX (jax.lax.cond, jnp.sin): the graph
            # has no path through that call, the program has (see _trace)
            conc.raw_inputs = frozenset().union(*_connections(cap.graph, in_ids, list(cap.graph.raw_uses)))
            if _is_jax_transformation(f):  # (tj.function(jax.vmap(f)): JAX hides every path from the graph)
                conc.raw_inputs = frozenset(range(len(in_ids)))
            conc.used = {position[i] for i in cap.used if i in position}
            conc.no_forward_mode = cap.no_forward_mode
            conc.missing = list(cap.missing.values())
            conc.missing_tensors = list(cap.missing_tensors.values())
            new_vals = [_placed_as(v, cap.values[id(v)]) for v in assigned if id(v) in position]
            if cap.initializers:  # (a trace run once for these values only, see _trace: the Variables' initial
                # values and, after its draws, the states of the random generators made before it, so that the
                # next trace draws anew)
                drawn = [v for v in assigned if random.is_generator_state(v) and id(v) not in cap.made_here]
                conc.initialized = [v for v, _ in cap.initializers] + drawn
                return arrays, new_vals, [value for _, value in cap.initializers] + [cap.values[id(v)] for v in drawn]
            return arrays, new_vals
        return pure

    def _trace(self, leaves, structure, dyn_pos, dyn_vals, arg_slots=(), arg_vars=(),
               random_streams=None) -> Optional[_Concrete]:
        conc = _Concrete()
        conc.arg_slots = list(arg_slots)
        variables = self._variables + [arg_vars[j] for j in arg_slots]
        conc.tensors = tensors = list(self._tensors)
        pure = self._pure(conc, leaves, structure, dyn_pos, variables, tensors, random_streams)
        var_vals = [_strong(v._value) for v in variables]
        plain = jax.jit(pure)
        self._tracing_serial += 1
        serial = self._tracing_serial
        # One Python execution of f per signature (as tf.function): jit reuses this trace when called.
        dyn = dyn_vals + [_strong(t._value) for t in tensors]
        try:
            traced = plain.trace(var_vals, dyn)  # learns outputs, assignments, new variables and closures
            if conc.initialized:
                # The initial values the trace computed (from this call's arguments, as TF's initialization in
                # the first call) from running it once, as a program of those values only (XLA drops the rest of
                # the trace, as TF lifts the initializers). Inside an enclosing trace (a nested first call) they
                # are that trace's values: it computes them as its own (a generator's state it sees drawn itself).
                program, k = jaxpr_as_fun(traced.jaxpr), len(conc.initialized)
                values = jax.jit(lambda *flat: program(*flat)[-k:])(*jax.tree_util.tree_leaves((var_vals, dyn)))
                outer = tape_set.current().capture
                for n, (v, value) in enumerate(zip(conc.initialized, values)):
                    if not isinstance(value, jax.core.Tracer):
                        v.write_back(value)
                    elif n < len(conc.initializers):
                        if outer is None:  # (a bare jax transform around the call: nothing can compute it)
                            raise TracedValueError(
                                f"tj.function {self.name}: its first call, inside a JAX transform (jax.jit, "
                                f"jax.grad, jax.vmap...), made tj.Variable {v.name!r} from a value traced by that "
                                "transform, which cannot outlive it. Call the function once outside the transform "
                                "first (its Variables are made then), or make the Variable from a concrete value.")
                        outer.made(v, value)
        except BaseException:
            # The Variables it made from values it computes get none: reading one raises (TF: uninitialized)
            for v, _ in conc.initializers:
                make_value_pending(v, Uninitialized(v.name), 0, v._value.aval)
            raise
        if self._created_in == serial:
            # It created Variables: traced again without creating any, with those it reads as inputs, as TF's
            # first call traces twice (both count).
            self._tracing_count += 1
            self._initialized = True
        if conc.missing or conc.missing_tensors or self._created_in == serial:
            for v in conc.missing:
                self._know(v)
            self._tensors += conc.missing_tensors
            # What waits for new Variables (a checkpoint restored before a build, in this trace or a nested
            # function's) gives them their values now, before the next trace reads them.
            tape_set.record_hooks.variables_made()
            return None
        self._tracing_count += 1  # (a trace that only found new inputs does not count: TF finds them up front)
        # The trace's jaxpr: the donating program, the op's kernels (jitted, differentiated) and an outer trace
        # evaluate it instead of running the Python function again (once per signature, as TF).
        program = jaxpr_as_fun(traced.jaxpr)
        n_out = len(conc.out_arrays)
        if self._donate and conc.assigned and jax.default_backend() != "cpu":
            assigned_pos = set(conc.assigned)

            def split(assigned_vals, other_vals, dyn):
                it_a, it_o = iter(assigned_vals), iter(other_vals)
                full = [next(it_a) if n in assigned_pos else next(it_o) for n in range(len(variables))]
                flat = program(*full, *dyn)
                return flat[:n_out], flat[n_out:]
            compiled = jax.jit(split, donate_argnums=(0,))

            def call(var_vals, dyn):
                a = [x for n, x in enumerate(var_vals) if n in assigned_pos]
                # Donating deletes the buffer: only when nothing but the Variable holds it (CPython's count:
                # the Variable, var_vals, a and getrefcount's argument). A Tensor or a user's name still holding
                # the value (a gradient assigned to it, a shared constant) makes this call not donate.
                if any(sys.getrefcount(a[i]) > 4 for i in range(len(a))):
                    return plain(var_vals, dyn)
                o = [x for n, x in enumerate(var_vals) if n not in assigned_pos]
                return compiled(a, o, dyn)
            conc.jitted = call
        else:
            conc.jitted = plain

        def op_fn(*flat):
            return tuple(program(*flat))
        if conc.raw_inputs:
            # Plain JAX code (jax.lax.cond, jnp.sin) ran on values of inputs ``raw_inputs``: its result has no
            # recorded producer, so the graph misses those paths. The program has them, and JAX differentiates
            # it with tapejax's rules (ops inside carry them, ops/linear_rule.py): connect those inputs where
            # the program's jaxpr has a differentiable path, instead of TF's None.
            program_conn = dependence.connections(
                op_fn, [jax.ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in traced.jaxpr.in_avals])
            n_in = len(traced.jaxpr.in_avals)
            conc.connections = tuple(
                c | ((frozenset(range(n_in)) if program_conn is None else program_conn[k]) & conc.raw_inputs)
                for k, c in enumerate(conc.connections))
        # connections: TF's None between inputs and outputs with no path.
        refuse = None
        if conc.no_forward_mode is not None:
            message = conc.no_forward_mode

            def refuse(primals, tangents, out):  # forward mode through a traced tj.recompute_grad (as TF)
                raise NotImplementedError(message)
        conc.op = OpDef(f"function:{getattr(self._f, '__name__', 'f')}", op_fn, register=False,
                        connections=conc.connections, jvp=refuse)
        return conc

    def _call_recorded(self, conc: _Concrete, leaves, dyn_pos, variables):
        """Under an outer tape/accumulator: one recorded op of the variables' reads and the inputs."""
        # (a Variable the trace did not use is no read: an outer tape must not watch it)
        reads = [v.read_value() if n in conc.used else Tensor(v._current()) for n, v in enumerate(variables)]
        inputs = [leaves[p] for p in dyn_pos]
        result = apply(conc.op, reads + inputs + list(conc.tensors), {})
        result = result if isinstance(result, tuple) else (result,)
        n_out = len(conc.out_arrays)
        return list(result[:n_out]), list(result[n_out:])


_JAX_DIR = os.path.dirname(jax.__file__) + os.sep


def _is_jax_transformation(f) -> bool:
    """Whether ``f`` is a function JAX made (``jax.vmap(g)``, ``jax.jit(g)``, ``jax.grad(g)``...): traced as
    the function itself, its arguments reach plain JAX code with no user line between (no raw-use note), and
    every path through it is hidden from the trace's graph."""
    if type(f).__module__.startswith(("jax.", "jaxlib.")):  # (jax.jit's PjitFunction)
        return True
    code = getattr(f, "__code__", None)
    return code is not None and code.co_filename.startswith(_JAX_DIR)


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
                entry = graph.op_tape[op_id]
                # an op declaring which inputs each output depends on (a backward op: TF's None at
                # second order) is followed only along those
                connected = getattr(entry.backward, "connected_inputs", None)
                if connected is not None and i in entry.out_ids:
                    stack.extend(connected(entry.out_ids.index(i), entry.input_ids))
                else:
                    stack.extend(entry.input_ids)
        result.append(frozenset(p for p, i in enumerate(in_ids) if i in seen))
    return tuple(result)


@contextlib.contextmanager
def init_scope() -> Iterator[None]:
    """TF's ``tf.init_scope``: code inside runs as at the top level, eagerly, even while a ``tj.function`` is
    being traced: it runs once, at trace time (not on each call), no tape or accumulator records it, and its
    Variable reads and assignments act on the Variables' concrete values (e.g. a one-time initialization).
    Outside traces it only pauses recording. A Tensor the trace made before the block holds a traced value:
    using it inside raises TF's TypeError ("... is out of scope")."""
    saved = tape_set.current().lifted_before
    # (Tensors made from here on, inside the block, are its own: only older traced ones are refused)
    tape_set.current().lifted_before = new_id()
    try:
        with tape_set.isolated(), jax.ensure_compile_time_eval():
            yield
    finally:
        tape_set.current().lifted_before = saved


def function(f: Optional[Callable] = None, input_signature: Optional[Any] = None, autograph: bool = True,
             jit_compile: Optional[bool] = True, reduce_retracing: bool = False,
             experimental_implements: Optional[str] = None, experimental_autograph_options: Any = None,
             experimental_attributes: Optional[dict] = None, experimental_relax_shapes: Optional[bool] = None,
             experimental_compile: Optional[bool] = None, experimental_follow_type_hints: Optional[bool] = None, *,
             donate_variables: bool = False):
    """Trace ``f`` into one XLA program per input signature and run it (as ``tf.function``).

    Calls are bound to ``f``'s signature (defaults applied; a bad call raises ``TypeError``). Python scalars
    and other non-array arguments are part of the signature by value (a new value retraces; they must be
    hashable); Tensors and arrays are traced by shape and dtype, Variable arguments by shape, dtype and
    which arguments are the same Variable. Python numbers returned come back as Tensors; ``f`` must not
    modify its argument lists or dicts (``ValueError``). ``experimental_get_tracing_count()`` and
    ``clear_cache()`` as TF. Usable as ``@tj.function`` or ``@tj.function(donate_variables=True)``.

    ``input_signature`` (TF's): a list or tuple of ``tj.TensorSpec`` (nested in lists, tuples and dicts as the
    arguments are), one per leading positional parameter (the rest go to ``*args``); the other parameters
    keep their defaults (one whose default is an array is typed by that array's shape and dtype, as TF). Each call's arguments are converted to Tensors of the specs' dtypes (Python numbers,
    lists and arrays as TF converts them; a Variable is read) and checked against their shapes: a call that does
    not fit raises TF's ``TypeError`` ("Binding inputs to tj.function failed due to ..."). A spec's None size
    admits any size, but an XLA program has static shapes: each new size is traced (TF traces once), so
    ``experimental_get_tracing_count`` counts them.

    ``donate_variables``: on GPU/TPU the buffers of the Variables ``f`` assigns are donated to the program (it
    writes their new values in place), in each call where nothing but the Variable holds the old value (a Tensor
    read from it, or an array assigned to it that is still in use, keeps that call from donating).

    The parameters are TF's, in TF's order (``donate_variables``, tapejax's own, by keyword only). Accepted for TF
    code, with no effect: ``jit_compile`` (every tj.function is one XLA program; None, TF's
    default, and False included) and ``experimental_compile`` (its old name); ``autograph`` (tapejax has no
    AutoGraph: Python control flow runs as Python while tracing, so a branch on a traced Tensor raises either
    way) and ``experimental_autograph_options``; ``experimental_implements`` and ``experimental_attributes``
    (names and attributes of TF's function definition, which an XLA program has no place for);
    ``experimental_follow_type_hints`` (deprecated in TF, whose 2.21 retraces for new Python numbers either way);
    ``reduce_retracing`` and its old name ``experimental_relax_shapes``: an XLA program has static shapes, so
    each new input shape is traced (the values are those of TF; only the number of traces can differ).
    """
    if not isinstance(reduce_retracing, bool):
        raise TypeError(f"tj.function: reduce_retracing must be a bool, got {reduce_retracing!r}")
    options = dict(jit_compile=jit_compile is not False, donate_variables=donate_variables,
                   input_signature=input_signature)
    if f is None:
        return lambda g: Function(g, **options)
    return Function(f, **options)
