"""custom_gradient, recompute_grad, grad_pass_through and stop_gradient (as TF's custom_gradient.py).

A custom-gradient call is recorded as one op whose backward function is the user's ``grad_fn``. As in
TF eager, ``f`` itself runs with recording on, so tensors it computes (and that ``grad_fn`` closes over)
stay connected for higher-order derivatives; its outputs get fresh ids, so the tape sees only the
custom op as their producer. Forward mode uses the transpose of ``grad_fn`` (ForwardpropFromTape),
so the custom gradient is honoured there too.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, List

import jax

from . import tape_set, vspace
from .backprop import GradientTape, UnconnectedGradients, flatten
from .ops.core import OpDef, record_identity
from .tensor import Tensor, Variable, _is_float, convert_to_tensor


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
    flattened output (zeros where none arrived) and checks what it returns."""

    def __init__(self, name: str, grad_fn: Callable, outputs: List[Tensor], input_positions: List[int],
                 arg_count: int, variables: List[Variable]) -> None:
        self.name = name
        self.grad_fn = grad_fn
        self.out_specs = [(o._value.shape, o._value.dtype) for o in outputs]
        self.input_positions = input_positions  # flat-arg position of each recorded tensor input
        self.arg_count = arg_count
        self.variables = variables

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
                raise ValueError(f"custom_gradient '{self.name}': grad_fn uses variables, so it must return "
                                 "(input_gradients, variable_gradients).")
            input_grads, var_grads = result
            var_grads = list(var_grads) if isinstance(var_grads, (list, tuple)) else [var_grads]
            if len(var_grads) != len(self.variables):
                raise ValueError(f"custom_gradient '{self.name}': grad_fn returned {len(var_grads)} variable "
                                 f"gradients, expected {len(self.variables)} (one per variable read).")
        else:
            input_grads = self.grad_fn(*dys)
            var_grads = []
        flat, _ = flatten(input_grads if isinstance(input_grads, (list, tuple)) else [input_grads])
        if len(flat) != self.arg_count:
            raise ValueError(f"custom_gradient '{self.name}': grad_fn returned {len(flat)} gradients, expected "
                             f"{self.arg_count} (one per flattened input).")
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


def _fresh(t: Any) -> Any:
    """The output under a new id (TF's identity), without recording anything."""
    if isinstance(t, Variable):
        t = t.read_value()
    if isinstance(t, Tensor):
        return Tensor(t._value)
    return t


def custom_gradient(f: Callable = None) -> Callable:
    """Decorator: ``f(*x)`` returns ``(y, grad_fn)``; ``grad_fn(*dys[, variables=...])`` gives the gradients."""
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        with tape_set.watch_variable_reads() as reads:
            result, grad_fn = f(*args, **kwargs)
        flat_args, _ = flatten(list(args) + list(kwargs.values()))
        arg_vars = {id(a) for a in flat_args if isinstance(a, Variable)}
        variables = [v for k, v in reads.items() if k not in arg_vars and v.trainable]
        if variables and not _accepts_variables(grad_fn):
            raise TypeError(f"@custom_gradient grad_fn of '{f.__name__}' must accept keyword argument 'variables', "
                            f"since the function reads variables: {[v.name for v in variables]}")
        flat_result, tree = flatten(result)
        outs = [_fresh(r) for r in flat_result]
        tensor_outs = [o for o in outs if isinstance(o, Tensor)]
        ids, positions = [], []
        for i, a in enumerate(flat_args):
            if isinstance(a, Variable):
                a_id, dt = a._handle_id, a.dtype
            elif isinstance(a, Tensor):
                a_id, dt = a._id, a.dtype
            else:
                continue
            if _is_float(dt):
                ids.append(a_id)
                positions.append(i)
        ids += [v._handle_id for v in variables]
        _record(f.__name__, tensor_outs, ids, positions, len(flat_args), variables, grad_fn)
        return jax.tree_util.tree_unflatten(tree, outs)
    return decorated


def _record(name, outs, ids, positions, arg_count, variables, grad_fn) -> None:
    if not outs or not ids or not tape_set.active():
        return
    for t in tape_set.recording_tapes():  # TF reads the variables as op inputs: tapes watch them (even if
        if t.watch_accessed_variables:     # f read them under stop_recording, as recompute_grad does)
            for v in variables:
                t.watch_variable(v)
    tapes = [t for t in tape_set.recording_tapes() if t.should_record(ids)]
    accs = [a for a in tape_set.recording_accumulators() if a.should_record(ids)]
    if not tapes and not accs:
        return
    bf = CustomGradientBackward(name, grad_fn, outs, positions, arg_count, variables)
    for t in tapes:
        t.record_operation(name, outs, ids, bf)
    for a in accs:
        a.accumulate_from_backward(outs, ids, bf)


def recompute_grad(f: Callable) -> Callable:
    """Same values and gradients as ``f``, but activations inside ``f`` are not kept: ``f`` is re-run in
    the backward pass. Forward mode through it raises ``NotImplementedError`` (as TF)."""

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        flat_args, _ = flatten(list(args))
        ids = [a._id for a in flat_args if isinstance(a, Tensor)] + \
              [a._handle_id for a in flat_args if isinstance(a, Variable)]
        for acc in tape_set.recording_accumulators():
            if acc.should_record(ids):
                raise NotImplementedError(
                    f"recompute_grad tried to transpose the gradient of {f.__name__}: activations are not "
                    "stored for recompute, so forward-mode autodiff through it is not supported. Call the "
                    "function without recompute_grad under a ForwardAccumulator.")
        return _recompute(f, args, kwargs)
    return wrapped


def _recompute(f, args, kwargs):
    @custom_gradient
    def inner(*a):
        with tape_set.stop_recording():
            result = f(*a, **kwargs)

        def grad(*dresult, variables=None):
            # Re-run f under a tape on fresh ids of the arguments; outer tapes recording this backward
            # pass see the re-run too (the fresh ids are recorded identities), giving higher orders.
            flat, tree = flatten(list(a))
            id_flat = []
            for x in flat:
                if isinstance(x, Tensor):
                    y = Tensor(x._value)
                    record_identity("Identity", x, y)
                    id_flat.append(y)
                else:
                    id_flat.append(x)
            id_args = jax.tree_util.tree_unflatten(tree, id_flat)
            watch = [x for x in id_flat if isinstance(x, Tensor) and _is_float(x.dtype)]
            with GradientTape() as t:
                t.watch(watch)
                if variables:
                    t.watch(variables)
                out = f(*id_args, **kwargs)
            srcs = [x if isinstance(x, Tensor) else None for x in id_flat]
            src_list = [s for s in srcs if s is not None and _is_float(s.dtype)] + list(variables or [])
            flat_out, _ = flatten(out)
            g = t.gradient(flat_out, src_list, output_gradients=list(dresult),
                           unconnected_gradients=UnconnectedGradients.ZERO)
            it = iter(g)
            arg_grads = [next(it) if (s is not None and _is_float(s.dtype)) else None for s in srcs]
            var_grads = list(it)
            if variables:
                return arg_grads, var_grads
            return arg_grads
        return result, grad
    return inner(*args)


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


_stop_gradient = OpDef("stop_gradient", jax.lax.stop_gradient, register=False)
_stop_gradient.differentiable = False


def stop_gradient(x: Any) -> Tensor:
    """Identity whose gradient is None (zero with UnconnectedGradients.ZERO)."""
    return _stop_gradient(x)
