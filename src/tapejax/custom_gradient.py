"""custom_gradient, recompute_grad, grad_pass_through and stop_gradient (as TF's custom_gradient.py).

A custom-gradient call is recorded as one op whose backward function is the user's ``grad_fn``. As in
TF eager, ``f`` itself runs with recording on, so tensors it computes (and that ``grad_fn`` closes over)
stay connected for higher-order derivatives; its outputs get fresh ids, so the tape sees only the
custom op as their producer. Forward mode uses the transpose of ``grad_fn`` (ForwardpropFromTape),
so the custom gradient is honoured there too.

As TF: every output leaf of ``f`` (Python numbers and NumPy arrays included) comes back as a Tensor;
used as a method, the decorated function binds ``self``, which is then not an input of the op; a
Variable argument is an input (read like a tensor, so tapes watching accessed variables watch it).
Structures are flattened as tf.nest does, except that dicts whose keys cannot be sorted (``v.ref()``)
keep their insertion order. Errors raised while running ``grad_fn`` under a tape leave naming the op
to the tape ("in the backward kernel of op 'f': ..."), so it is said once.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, List, Optional

import jax
import jax.numpy as jnp

from . import record, tape_set, vspace
from .backprop import GradientTape
from .nest import UnconnectedGradients, rebuild, plain_containers
from .ops import linear_rule
from .ops.core import record_identity
from .ops.declare import stop_gradient as _stop_gradient
from .tensor import Tensor, Variable, convert_to_tensor


def _differentiable(dtype) -> bool:
    return bool(jnp.issubdtype(dtype, jnp.inexact))


class _InsertionOrderDict(dict):
    """A dict whose keys cannot be ordered (``v.ref()``, mixed types): jax sorts dict keys when it
    flattens, which raises for these, so they flatten in insertion order instead (TF accepts them)."""


jax.tree_util.register_pytree_node(
    _InsertionOrderDict,
    lambda d: (list(d.values()), tuple(d.keys())),
    lambda keys, values: dict(zip(keys, values)))  # unflattens to a plain dict


def _is_leaf(x) -> bool:
    return x is None or isinstance(x, (Tensor, Variable))


def _unsortable_dict(x) -> bool:
    if type(x) is not dict:  # (nest_flatten made every other Mapping a plain dict)
        return False
    try:
        sorted(x)
        return False
    except TypeError:
        return True


def _insertion_ordered(structure):
    """``structure`` with every dict whose keys cannot be sorted turned into an _InsertionOrderDict."""
    def convert(x):
        if _unsortable_dict(x):
            return _InsertionOrderDict((k, _insertion_ordered(v)) for k, v in x.items())
        return x
    return jax.tree_util.tree_map(convert, structure, is_leaf=lambda x: _is_leaf(x) or _unsortable_dict(x))


def nest_flatten(structure):
    """Leaves (Tensors, Variables, None and any non-pytree value) and treedef of a nested structure, as
    tf.nest: Mappings (dicts, OrderedDicts, ...) in sorted key order, or in insertion order where the keys
    cannot be sorted. ``nest.rebuild`` gives the structure back."""
    structure = plain_containers(structure)
    try:
        return jax.tree_util.tree_flatten(structure, is_leaf=_is_leaf)
    except (ValueError, TypeError):  # jax could not sort some dict's keys; the rewrite keeps sortable ones sorted
        return jax.tree_util.tree_flatten(_insertion_ordered(structure), is_leaf=_is_leaf)


def _accepts_variables(fn: Callable) -> bool:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return True
    for p in sig.parameters.values():
        if p.kind is p.VAR_KEYWORD:
            return True
        if p.name == "variables" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            return True
    return False


class CustomGradientBackward:
    """Backward function of a custom-gradient op: calls the user's ``grad_fn`` with one cotangent per
    flattened output (zeros where none arrived) and checks what it returns.

    ``error_prefix`` starts its error messages: empty under a tape, whose backward pass already names
    the op ("in the backward kernel of op 'f': "), the op's name under an accumulator, which does not."""

    def __init__(self, name: str, grad_fn: Callable, outputs: List[Tensor], input_positions: List[int],
                 arg_count: int, variables: List[Variable], error_prefix: str = "") -> None:
        self.name = name
        self.grad_fn = grad_fn
        self.out_specs = [(o._value.shape, o._value.dtype) for o in outputs]
        self.input_positions = input_positions  # flat-arg position of each recorded tensor input
        self.arg_count = arg_count
        self.variables = variables
        self.error_prefix = error_prefix
        self.traced_rule = None  # a TracedRule when recorded inside a JAX trace

    def connected_inputs(self, k: int, input_ids: List[int]) -> List[int]:
        """Of ``input_ids`` (one per recorded input), those output ``k`` depends on: inside a trace
        (graph/function.py's connections of a tj.function call), not those grad_fn returned None for, as
        TF's function graph has no gradient path through a None (a computed zero keeps its path)."""
        rule = self.traced_rule
        if rule is None or not rule.no_gradient:
            return input_ids
        return [i for j, i in enumerate(input_ids) if j not in rule.no_gradient]

    def residual_bytes(self) -> int:
        return 0  # the closure's captures are not visible

    def __call__(self, cts, needed_idx, recording):
        dys = []
        for c, (shape, dtype) in zip(cts, self.out_specs):
            if c is None:
                c = vspace.zeros_from_spec(tuple(shape), dtype)
            dys.append(c if isinstance(c, Tensor) else Tensor(c))
        if self.variables:
            result = self.grad_fn(*dys, variables=list(self.variables))
            if not (isinstance(result, (tuple, list)) and len(result) == 2):
                raise ValueError(f"{self.error_prefix}the custom_gradient function reads variables, so grad_fn "
                                 "must return a pair (input_gradients, variable_gradients); it returned "
                                 f"{type(result).__name__}.")
            input_grads, var_grads = result
            var_grads = list(var_grads) if isinstance(var_grads, (list, tuple)) else [var_grads]
            if len(var_grads) != len(self.variables):
                raise ValueError(f"{self.error_prefix}Must return gradient for each variable from "
                                 f"@custom_gradient grad_fn: expected {len(self.variables)} variable gradients "
                                 f"(one per variable read, in order of first read), got {len(var_grads)}.")
        else:
            input_grads = self.grad_fn(*dys)
            var_grads = []
        flat, _ = nest_flatten(input_grads if isinstance(input_grads, (list, tuple)) else [input_grads])
        if len(flat) != self.arg_count:
            # TF's wording; "returned N gradients" so the count reads the same whichever is larger
            raise ValueError(f"{self.error_prefix}custom_gradient function expected {self.arg_count} gradients "
                             f"(one per flattened input) but grad_fn returned {len(flat)} gradients instead.")
        grads = [flat[p] for p in self.input_positions] + list(var_grads)
        out = []
        for g in grads:
            if g is None:
                out.append(None)
                continue
            if isinstance(g, Variable):
                g = g.read_value()
            if not isinstance(g, Tensor):
                g = convert_to_tensor(g)
            out.append(g if recording else g._value)
        return out


def _output_tensor(name: str, i: int, value: Any) -> Any:
    """(output ``i`` under a new id, the Tensor it is an identity of or None), without recording the
    identity yet (see ``_record_identities``). Python numbers and NumPy/jax arrays become Tensors, as TF
    converts them, so the op is recorded and grad_fn decides."""
    if value is None:
        return None, None
    if isinstance(value, Variable):
        value = value.read_value()  # a recorded read, as TF's identity of a variable
    if isinstance(value, Tensor):
        return Tensor(value._value), value
    try:
        return Tensor(convert_to_tensor(value)._value), None
    except TypeError as e:
        raise TypeError(f"custom_gradient '{name}': output {i} (flattened) of type {type(value).__name__} "
                        f"cannot be converted to a Tensor; return Tensors, arrays or numbers. {e}") from None


class CustomGradientFunction:
    """What ``@custom_gradient`` returns. Like a function it binds ``self`` when it is a method (TF's
    ``Bind``), so ``self`` is not an input of the op and grad_fn returns gradients for the others only."""

    def __init__(self, f: Callable) -> None:
        functools.update_wrapper(self, f)
        self._f = f

    def __get__(self, instance, owner=None):
        bind = getattr(self._f, "__get__", None)
        if instance is None or bind is None:
            return self
        return CustomGradientFunction(bind(instance, owner))

    def __call__(self, *args, **kwargs):
        return _call_custom_gradient(self._f, args, kwargs)


def custom_gradient(f: Callable = None) -> Callable:
    """Decorator: ``f(*x)`` returns ``(y, grad_fn)``; ``grad_fn(*dys[, variables=...])`` gives the gradients."""
    if f is None:
        return custom_gradient
    return CustomGradientFunction(f)


def _call_custom_gradient(f: Callable, args: tuple, kwargs: dict) -> Any:
    name = getattr(f, "__name__", type(f).__name__)
    args = _tracers_as_tensors(args)
    with tape_set.watch_variable_reads() as reads:
        returned = f(*args, **kwargs)
    if not (isinstance(returned, (tuple, list)) and len(returned) == 2 and callable(returned[1])):
        what = f"a {type(returned).__name__}" + (f" of length {len(returned)}" if isinstance(returned, (tuple, list))
                                                 else "")
        raise TypeError(f"custom_gradient '{name}': the decorated function must return a pair (outputs, grad_fn) "
                        f"with grad_fn callable; it returned {what}.")
    result, grad_fn = returned
    # The inputs are the positional arguments; keyword arguments reach f but get no gradient, and a Variable
    # passed either way is not one of the variables grad_fn answers for (as TF).
    flat_args, _ = nest_flatten(list(args))
    arg_vars = {id(a) for a in flat_args + nest_flatten(list(kwargs.values()))[0] if isinstance(a, Variable)}
    variables = [v for k, v in reads.items() if k not in arg_vars and v.trainable]
    if variables and not _accepts_variables(grad_fn):
        raise TypeError(f"@custom_gradient grad_fn must accept keyword argument 'variables', since function "
                        f"'{name}' uses variables: {[v.name for v in variables]}. Define it as "
                        "grad_fn(*dys, variables=None) returning (input_gradients, variable_gradients).")
    flat_result, tree = nest_flatten(result)
    outs, srcs = zip(*[_output_tensor(name, i, r) for i, r in enumerate(flat_result)]) if flat_result else ((), ())
    outs = list(outs)
    traced_rule = None
    if _traced(flat_args, outs):
        outs, traced_rule = _carry_rule(name, grad_fn, outs, flat_args, variables)
    tensor_outs = [o for o in outs if o is not None]
    ids, positions, watched_args = [], [], []
    for i, a in enumerate(flat_args):
        if isinstance(a, Variable):
            a_id, dt = a._handle_id, a.dtype
            if a.trainable:
                watched_args.append(a)
        elif isinstance(a, Tensor):
            a_id, dt = a._id, a.dtype
        else:
            continue
        if _differentiable(dt):
            ids.append(a_id)
            positions.append(i)
    ids += [v._handle_id for v in variables]
    taken = _record(name, tensor_outs, ids, positions, len(flat_args), variables, watched_args, grad_fn,
                    traced_rule)
    _record_identities(srcs, outs, taken)
    return rebuild(result, tree, list(outs))


def _tracers_as_tensors(args: tuple) -> tuple:
    """``args`` with each raw JAX tracer among them a Tensor of it (jax.grad, jax.jvp or jax.vmap over tj code
    given arrays), as TF's graph-mode custom_gradient converts its arguments: an input grad_fn answers for. Left
    raw, it would be a constant to the rule, and JAX would differentiate the ops ``f`` ran instead of grad_fn."""
    flat, tree = nest_flatten(list(args))
    if not any(isinstance(x, jax.core.Tracer) for x in flat):
        return args
    return tuple(rebuild(list(args), tree, [Tensor(x) if isinstance(x, jax.core.Tracer) else x for x in flat]))


def _record_identities(srcs, outs, taken) -> None:
    """Each output is an identity of what ``f`` returned (TF's ``identity(result)``), recorded on the tapes
    and accumulators that did not take the custom op (``taken``): for them the op does not exist (none of
    its inputs is known to them), so they see through to the ops ``f`` ran, as in TF. This is what makes
    the docstring's nested custom gradient (a grad_fn that is itself a custom gradient of ``dy``)
    differentiable with respect to ``x`` by an outer tape."""
    if not tape_set.active():
        return
    for src, out in zip(srcs, outs):
        if src is not None and out is not None:
            record_identity("Identity", src, out, skip=taken)


def _traced(flat_args, outs) -> bool:
    return any(isinstance(x._value if isinstance(x, Tensor) else x, jax.core.Tracer)
               for x in list(flat_args) + list(outs) if isinstance(x, (Tensor, Variable)))


def _value(x):
    """The raw value of an input as the current trace sees it: a Variable's captured value, and for a Tensor
    made before a tj.function's trace (closed over) its traced input, as ops get it (ops/core.apply)."""
    if isinstance(x, Variable):
        with tape_set.stop_recording():
            return x.read_value()._value
    cap = tape_set.current().capture
    if cap is not None:
        return cap.substitute([x], [x._value])[0]
    return x._value


def _carry_rule(name, grad_fn, outs, flat_args, variables) -> list:
    """Under a JAX trace (tj.function, jax.grad over tj code): the float outputs carry ``grad_fn`` as
    their derivative, so JAX transforms of the trace (an outer tape over a tj.function call, jax.grad)
    use it, as a tape does (ops/linear_rule.py)."""
    positions = [i for i, a in enumerate(flat_args) if isinstance(a, (Tensor, Variable)) and _differentiable(a.dtype)]
    xs = [_value(flat_args[p]) for p in positions] + [_value(v) for v in variables]
    out_pos = [k for k, o in enumerate(outs) if o is not None and _differentiable(o.dtype)]
    if not xs or not out_pos:
        return outs, None
    bf = CustomGradientBackward(name, grad_fn, [outs[k] for k in out_pos], positions, len(flat_args), variables)
    conj = lambda v: jnp.conj(v) if v is not None and jnp.iscomplexobj(v) else v

    reads: list = []  # (Variable, traced value) of each Variable grad_fn reads: fixed as of this call
    stale: List[str] = []  # the names of those the trace assigned after this call (known at its end)
    writes: List[str] = []  # the names of the Variables grad_fn assigns (see _refuse_assignments)

    def backward(*cts):  # JAX's convention: conj of tapejax's (TF's) for complex values
        cap = tape_set.current().capture
        with tape_set.isolated(cap):
            if cap is not None:  # (a custom gradient run inside grad_fn logs its own reads, then hands back)
                outer_log, cap.read_log = cap.read_log, reads
                values, assigned = dict(cap.values), dict(cap.assigned)
            try:
                grads = bf([Tensor(conj(c)) for c in cts], list(range(len(xs))), False)
            finally:
                if cap is not None:
                    cap.read_log = outer_log
                    # This trace of grad_fn only makes the rule: its assignments are not the function's (their
                    # values belong to this trace and would escape it), so they are taken back.
                    writes.extend(v.name for k, v in cap.assigned.items() if cap.values[k] is not values.get(k))
                    cap.values.clear()
                    cap.values.update(values)
                    cap.assigned.clear()
                    cap.assigned.update(assigned)
        return [conj(g) for g, _ in zip(grads, xs)]  # (None: no gradient, a symbolic zero for JAX)

    def guard():
        _refuse_stale_reads(name, stale)
        _refuse_assignments(name, writes)
    no_forward = backward.no_forward_mode = getattr(grad_fn, "no_forward_mode", None)  # recompute_grad's
    if no_forward is not None and tape_set.current().capture is not None:
        # (JAX runs a rule's tangent code in reverse mode too, so the rule refuses only where it cannot
        # transpose: the tj.function call holding this trace refuses forward mode itself)
        tape_set.current().capture.no_forward_mode = no_forward
    # (no_gradient: the inputs grad_fn returns None for; attach_backward traces it now)
    ys, (transpose, residuals), no_gradient = linear_rule.attach_backward(
        xs, [outs[k]._value for k in out_pos], backward, guard=guard, name=f"custom_gradient '{name}': grad_fn")
    cap = tape_set.current().capture
    if cap is not None and reads:
        values = cap.values

        def find_stale():  # (at the trace's end; a Variable the trace never assigned has no entry)
            stale.extend(v.name for v, seen in reads if values.get(id(v), seen) is not seen)
            reads.clear()
        cap.at_end.append(find_stale)  # (reads holds traced values until then, not past the trace)
    outs = list(outs)
    for k, y in zip(out_pos, ys):
        outs[k] = Tensor(y)
    # For tj.differentiate: grad_fn as a pure function of residuals of this trace, and which of the
    # recorded (non-None) outputs it takes cotangents for.
    recorded = [k for k, o in enumerate(outs) if o is not None]
    return outs, TracedRule(transpose, residuals, [recorded.index(k) for k in out_pos], no_gradient)


def _refuse_stale_reads(name: str, stale: List[str]) -> None:
    """The traced rule's grad_fn saw each Variable as it was at the call. TF runs grad_fn when the gradient is
    computed: differentiated from outside the trace (an outer tape or accumulator over the tj.function call,
    tj.differentiate), that is after the whole function, so a Variable the function assigned after the call
    would be read at another value. Refuse that rather than give a different number."""
    if stale:
        raise NotImplementedError(
            f"custom_gradient '{name}': its grad_fn reads Variable {stale[0]!r}, which the traced function "
            "assigns after calling it. Differentiated from outside the trace (an outer tape or accumulator over "
            "the tj.function call, tj.differentiate), grad_fn would see the value at the call, where TF reads "
            "the value current when the gradient is computed. Take the gradient with a GradientTape inside the "
            "tj.function, or give grad_fn the Variable's value from before the assignment.")


def _refuse_assignments(name: str, writes: List[str]) -> None:
    """TF runs grad_fn when the gradient is computed, its Variable assignments included (tj.recompute_grad
    re-runs a function that assigns). Differentiated from outside a tj.function's trace (an outer tape or
    accumulator over the call, tj.differentiate, jax.grad), grad_fn is a rule of that trace, which can no
    longer assign: refuse rather than leave the Variable as it was."""
    if writes:
        raise NotImplementedError(
            f"custom_gradient '{name}': its grad_fn assigns Variable {writes[0]!r} (tj.recompute_grad: the function "
            "it re-runs does), which the gradient of a tj.function call taken from outside its trace cannot do "
            "(TF assigns it when the gradient is computed). Take the gradient with a GradientTape inside the "
            "tj.function, or move the assignment out of the gradient function.")


class TracedRule:
    """grad_fn of a custom gradient traced into a pure function (see ops/linear_rule.attach_backward):
    ``transpose(residuals, cts)`` maps the cotangents of the float outputs at ``outputs`` (positions among
    the recorded outputs) to the inputs' cotangents, in JAX's convention (conj of TF's for complex).
    ``no_gradient``: the inputs (positions among the differentiable inputs, then the variables) grad_fn
    returned None for; the transpose gives zeros there."""

    def __init__(self, transpose: Callable, residuals: list, outputs: List[int],
                 no_gradient: frozenset = frozenset()) -> None:
        self.transpose, self.residuals, self.outputs = transpose, residuals, outputs
        self.no_gradient = no_gradient


def _record(name, outs, ids, positions, arg_count, variables, arg_variables, grad_fn, traced_rule=None) -> tuple:
    """Record the custom op on the tapes and accumulators that take it; returns them."""
    if not outs or not ids or not tape_set.active():
        return ()
    # TF reads the variables (read inside, or passed as arguments) as op inputs, so tapes watching
    # accessed variables watch them, even if f read them under stop_recording (recompute_grad) or not at all
    for t in tape_set.recording_tapes():
        if t.watch_accessed_variables:
            for v in list(variables) + list(arg_variables):
                t.watch_variable(v)
    tapes, accs = record.recorders(ids)
    if tapes:
        bf = CustomGradientBackward(name, grad_fn, outs, positions, arg_count, variables)
        bf.traced_rule = traced_rule
        record.record_operation(tapes, name, outs, ids, bf)
    if accs:
        no_forward = getattr(grad_fn, "no_forward_mode", None)
        if no_forward is not None:  # (recompute_grad: an accumulator following a Variable read inside f, as TF)
            raise NotImplementedError(no_forward)
        bf = CustomGradientBackward(name, grad_fn, outs, positions, arg_count, variables,
                                    error_prefix=f"custom_gradient '{name}' (grad_fn transposed for forward "
                                                 "mode): ")
        for a in accs:
            a.accumulate_from_backward(outs, ids, bf)
    return tuple(tapes) + tuple(accs)


def recompute_grad(f: Callable) -> Callable:
    """Same values and gradients as ``f``, but activations inside ``f`` are not kept: ``f`` is re-run in
    the backward pass. Forward mode through it raises ``NotImplementedError`` (as TF)."""

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        flat_args, _ = nest_flatten(list(args))
        ids = [a._id for a in flat_args if isinstance(a, Tensor)] + \
              [a._handle_id for a in flat_args if isinstance(a, Variable)]
        for acc in tape_set.recording_accumulators():
            if acc.takes(ids):
                raise NotImplementedError(_no_forward_message(f))
        return _recompute(f, args, kwargs)
    return wrapped


def _no_forward_message(f: Callable) -> str:
    return (f"recompute_grad tried to transpose the gradient of {getattr(f, '__name__', f)}: activations are "
            "not stored for recompute, so forward-mode autodiff through it is not supported. Call the "
            "function without recompute_grad under a ForwardAccumulator.")


def _recompute(f, args, kwargs):
    @custom_gradient
    def inner(*a):
        with tape_set.stop_recording():
            result = f(*a, **kwargs)

        def grad(*dresult, variables=None):
            # Re-run f under a tape on fresh ids of the arguments; outer tapes recording this backward
            # pass see the re-run too (the fresh ids are recorded identities), giving higher orders.
            flat, tree = nest_flatten(list(a))
            # a Variable argument is read (as TF's identity of it: a recorded read of its current value, so
            # its gradient flows to the variable and outer tapes see the read)
            id_flat = _fresh_after([x.read_value() if isinstance(x, Variable) else x for x in flat])
            id_args = rebuild(list(a), tree, id_flat)
            srcs = [x if isinstance(x, Tensor) and _differentiable(x.dtype) else None for x in id_flat]
            with GradientTape() as t:
                t.watch([s for s in srcs if s is not None])
                if variables:
                    t.watch(variables)
                out = f(*id_args, **kwargs)
            src_list = [s for s in srcs if s is not None] + list(variables or [])
            # dresult has one entry per non-None output leaf (those the op recorded)
            pairs = [(o, d) for o, d in zip([o for o in nest_flatten(out)[0] if o is not None], dresult)
                     if isinstance(o, (Tensor, Variable))]
            g = t.gradient([o for o, _ in pairs], src_list, output_gradients=[d for _, d in pairs],
                           unconnected_gradients=UnconnectedGradients.ZERO)
            it = iter(g)
            arg_grads = [next(it) if s is not None else None for s in srcs]
            var_grads = list(it)
            if variables:
                return arg_grads, var_grads
            return arg_grads
        # Traced (tj.function under an outer accumulator): its forward-mode rule raises as the eager check.
        grad.no_forward_mode = _no_forward_message(f)
        return result, grad
    return inner(*args)


def _fresh_after(values: list) -> list:
    """Each Tensor of ``values`` under a fresh id (a recorded identity), so the re-run of f is recorded
    apart from the forward run. Under a JAX trace (tj.function, jax.grad) the values also pass through an
    optimization barrier, so that XLA cannot merge the recomputation with the forward computation (CSE),
    which would keep the activations alive and undo recompute_grad (jax.checkpoint's prevent_cse; TF adds
    a data dependency for XLA). The cotangents stay out of the barrier: the traced backward must remain
    linear in them (its transpose is the forward-mode rule)."""
    pos = [i for i, x in enumerate(values) if isinstance(x, Tensor)]
    raw = [values[i]._value for i in pos]
    if any(isinstance(v, jax.core.Tracer) for v in raw):
        raw = jax.lax.optimization_barrier(raw)
    out = list(values)
    for i, v in zip(pos, raw):
        out[i] = Tensor(v)
        record_identity("Identity", values[i], out[i])
    return out


def grad_pass_through(f: Callable) -> Callable:
    """Forward is ``f``; the gradient is the identity (variables read inside get None)."""

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        @custom_gradient
        def pass_through(*a):
            def grad(*dys, variables=None):
                if variables is not None:
                    return list(dys), [None] * len(variables)
                return list(dys)
            return f(*a, **kwargs), grad
        return pass_through(*args)
    return wrapped


def stop_gradient(x: Any, name: Optional[str] = None) -> Tensor:
    """Identity whose gradient is None (zero with UnconnectedGradients.ZERO). ``name``: TF's op name, ignored.

    As TF (which stops recording around its op), a Variable's read here is not recorded: the Variable is not
    watched for it."""
    if isinstance(x, Variable):
        with tape_set.stop_recording():
            return _stop_gradient(x)
    return _stop_gradient(x)
