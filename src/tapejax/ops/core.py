"""Op definition and dispatch: one jit-compiled forward, backward (VJP) and forward-mode (JVP) kernel per op.

An op is a pure JAX function ``fn(*arrays, **static)`` returning an array or a tuple of arrays. Kernels,
compiled once per set of static parameters:

* forward      ``fn`` jitted: used when nothing records (the fast path, no bookkeeping at all).
* forward_res  ``(outputs, residuals)``: a hand-written ``fwd``, or ``jax.vjp`` of ``fn`` whose ``VJP``
               object is a pytree of residual arrays. Residuals live in the backward closure, so the
               backward kernel never recomputes the forward.
* backward     ``(residuals, output cotangents) -> input cotangents``. ``None`` cotangents become zeros
               inside the compiled kernel (free), except at the op's ``accepts_none`` indices, where the
               rule gets ``None``. Only the input gradients asked for are returned, so XLA drops the rest.
* jvp          a hand-written rule, ``jax.jvp`` of ``fn``, or, for an op whose only rule is a custom
               backward, the transpose of that backward (tape.h's ForwardpropFromTape, done by XLA).

When an outer tape or accumulator records a backward pass, the backward kernel is not run on raw arrays
but dispatched as an op of its own (``grad_op``) whose inputs are the forward op's inputs and the
cotangents; its kernels are derived the same way, so derivatives exist to any order.

Dispatch (``apply``), the flow of one op on each path:

* nothing records          the forward kernel on raw arrays, a new Tensor; nothing else.
* deferred (the default    exactly one GradientTape records, no accumulator, no trace: the op goes to the
  while one tape records)  registered deferral (deferred/lazy.py ``defer``), which records it on the tape
                           without running it (LazyTensor outputs) and adds it to the tape's step record;
                           at ``gradient`` time the replayer (deferred/replay.py) may run the whole step
                           as one compiled program, else the sweep (sweep.py) runs it op by op.
* eager                    otherwise: ``record.recorders`` names the tapes and accumulators that take the
                           op; the forward runs with residuals (``forward_res``) and each tape records a
                           ``BackwardFunction``; each accumulator runs the JVP kernel now.
* traced                   inside tj.function or a JAX transform: the op runs through ``traced`` (its
                           outputs carry tapejax's rules as a ``custom_jvp``, ops/linear_rule.py) and is
                           recorded on the trace's graph (graph/capture.py) like an eager op.
"""
from __future__ import annotations

import functools
import operator
import os
import re
from typing import Any, Callable, Dict, Optional, Sequence, Union

import jax
import jax.numpy as jnp
import numpy as np

from .. import record, tape_set, vspace
from ..config import config
from ..tape import RecordedOp, output_infos
from ..tensor import (MAX_ARRAY_BYTES, ArrayImpl, ConversionError, LazyTensor, Tensor, TracedValueError, Variable,
                      array_bytes, as_array, convert_to_tensor, describe_value, is_float, is_weakly_typed,
                      refuse_narrowing, traced_argument_error)
from . import dependence, linear_rule
from .linear_rule import LinearRule
from .rules import tf_complex_vjp

ShapedArray = jax.core.ShapedArray

_registry: Dict[str, "OpDef"] = {}


# Bumped whenever an op's rules change (tj.RegisterGradient -> OpDef.set_backward). It is part of the
# key of every cache holding kernels beyond the op itself (deferred op types, replay programs,
# tj.function traces), so that the change takes effect at the next op on every path.
_rules_epoch = 0


def rules_changed() -> None:
    global _rules_epoch
    _rules_epoch += 1


def rules_epoch() -> int:
    return _rules_epoch


def registry() -> Dict[str, "OpDef"]:
    """All named ops (name -> OpDef)."""
    return dict(_registry)


# parameter values that key a kernel as they are: a bool equal to an int traces the same kernel (axis,
# keepdims, flags); floats and complex numbers do not (see static_key)
_UNTAGGED = frozenset({int, str, type(None), bool})


def _plain_tuple(v: tuple) -> bool:
    """Whether every entry of tuple or list ``v`` is an untagged atom (an axis list, a shape, strides: the common
    static parameter), hashable as it is (a loop, not ``all`` over a generator: this runs per op)."""
    for x in v:
        if type(x) not in _UNTAGGED:
            return False
    return True


def exactly(v: Any) -> Any:
    """``v`` (a number, or a tuple of them, nested) with each float and complex number as ``(type, repr)``: exact,
    tells -0.0 from 0.0, and one NaN equals another (``static_key``'s tagging)."""
    t = type(v)
    if t is float or t is complex:  # repr: exact, tells -0.0 from 0.0, and one NaN equals another
        return (t, repr(v))
    return tuple(map(exactly, v)) if t is tuple else v


def static_key(static: dict) -> tuple:
    """A cache key for an op's static parameters. Python calls ``0 == 0.0 == 0j`` and ``-0.0 == 0.0`` equal and
    hashes them alike, but a kernel traced with one differs from one traced with another (``pad``'s
    ``constant_values=-0.0`` gave a later ``0.0`` pad a negative zero), so floats and complex numbers in such
    parameters are tagged with their type and exact text."""
    items = sorted(static.items())
    for _, v in items:  # (every dispatch with parameters: the plain case, ints and flags, costs one pass, inline)
        t = type(v)
        if t not in _UNTAGGED and not (t is tuple and _plain_tuple(v)):
            return tuple([(k, exactly(v)) for k, v in items])
    return tuple(items)


def freeze(v: Any) -> Any:
    """Make a static parameter hashable (lists -> tuples, numpy scalars -> Python)."""
    t = type(v)
    if t in _UNTAGGED:  # (most parameters: an axis, a flag; asked per op, often more than once)
        return v
    if (t is tuple or t is list) and _plain_tuple(v):  # (the next most: axes, a shape, strides)
        return v if t is tuple else tuple(v)
    if isinstance(v, (list, tuple)):
        return tuple(freeze(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, freeze(x)) for k, x in v.items()))
    if isinstance(v, np.ndarray):
        return freeze(v.tolist())
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, (Tensor, Variable)):
        return _static_value(v)
    if isinstance(v, jax.Array) and not isinstance(v, jax.core.Tracer):
        return freeze(np.asarray(v).tolist())  # a concrete jax array given for a shape or axis
    return v


def static(v: Any) -> Any:
    """``freeze(v)`` for a parameter the op's own code needs as Python numbers now (a shape to build, a count):
    a traced Tensor or Variable in it raises ``TracedValueError`` carrying that value, which tj.numpy's functions
    turn into an error naming the argument (api.py accept_name); jax.numpy's own error would show no name."""
    out = freeze(v)
    traced = _first_tensor(out)
    if traced is not None:
        e = TracedValueError(f"a {type(traced).__name__} whose value is traced was given where a Python number is "
                             "expected (a shape, a count).")
        e.value = traced
        try:
            raise e
        finally:
            e = None  # (the traceback keeps this frame: its locals must not keep the error, a reference cycle)
    return out


def _first_tensor(v) -> Any:
    if isinstance(v, (Tensor, Variable)):
        return v
    if isinstance(v, tuple):
        return next((t for t in map(_first_tensor, v) if t is not None), None)
    return None


def as_index(value: Any, message: Union[str, Callable[[], str]]) -> int:
    """``operator.index(value)``: a Python int, or a concrete scalar integer Tensor or Variable; anything else
    raises ``TypeError(message)`` (never truncated: 2.5 is not 2, as TF), a sequence or an array of more than
    one dimension ``ShapeError`` (a TypeError too; TF and NumPy call a list where one integer goes a bad rank,
    ValueError). A traced Tensor keeps its own error (``TracedValueError``), which tj.numpy's functions turn into
    one naming the argument. ``message`` may be a function making it: the ops checking an axis or a size on
    every call then format nothing unless it fails."""
    if type(value) is int:
        return value
    try:
        return operator.index(value)
    except TracedValueError:
        raise
    except TypeError:
        kind = ShapeError if isinstance(value, (list, tuple)) or getattr(value, "ndim", 0) else TypeError
        raise kind(message() if callable(message) else message) from None


def refuse_array_dtype(op_name: str, dtype) -> None:
    """``ValueError`` for an array given as a dtype, as jax.numpy's (NumPy would take the array's dtype); for
    constructors that hand ``dtype`` on to jax.numpy before anything else reads it."""
    if hasattr(dtype, "shape") and hasattr(dtype, "dtype") and not isinstance(dtype, (type, np.dtype)):
        raise ValueError(f"tj op '{op_name}': Passing an array as a dtype argument is no longer supported (as "
                         "jax.numpy's); instead of dtype=arr use dtype=arr.dtype")


def inexact_dtype(*dtypes) -> np.dtype:
    """The operands' result dtype (``jnp.result_type``'s: a Python number weakly typed), an integer or bool one as
    the float jax.numpy promotes it to (its promote_dtypes_inexact: float16 stays float16; int32 is float32 also
    under x64, where the default float is float64): the dtype jnp.sin gives that type."""
    dt = jnp.result_type(*dtypes)
    return dt if jnp.issubdtype(dt, jnp.inexact) else jax.eval_shape(jnp.sin, jax.ShapeDtypeStruct((), dt)).dtype


def as_dtype(op_name: str, dtype) -> np.dtype:
    """``jnp.dtype(dtype)``; not a dtype raises ``TypeError`` (as TF) naming the op (NumPy's message names
    neither the op nor the fix, and for some values is about something else: ``object of type 'int' has no
    len()``); an array raises ``ValueError``, as jax.numpy's (NumPy would take its dtype)."""
    refuse_array_dtype(op_name, dtype)
    try:
        return jnp.dtype(dtype)
    except TypeError as e:
        raise TypeError(f"tj op '{op_name}': {dtype!r} is not a data type ({e}); pass a NumPy/JAX dtype such as "
                        "'float32' or jnp.float32.") from None


def _static_value(v) -> Any:
    """A Tensor given for a static parameter (shape, axis, constant_values) stands for its value when that
    is known now; a traced one is kept, and the op's error names it (named_error)."""
    arr = (v.read_value() if isinstance(v, Variable) else v).value
    if isinstance(arr, jax.core.Tracer):
        return v
    return freeze(np.asarray(arr).tolist())


def _zeros_for(x):
    return jnp.zeros(jnp.shape(x), jnp.result_type(x))


def _as_dtype_of(t, o):
    # (floating and complex tangents only: an integer output's float0 tangent stays as it is)
    if t is None or not jnp.issubdtype(o.dtype, jnp.inexact) or jnp.result_type(t) == o.dtype:
        return t
    return t.astype(o.dtype) if jnp.issubdtype(jnp.result_type(t), jnp.inexact) else t


def as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def _conj(x):
    return jnp.conj(x) if x is not None and jnp.iscomplexobj(x) else x


def _slim_rule(forward: Callable, transpose: Callable, dyn, lin, outs, linear: bool):
    """The LinearRule of ``forward``/``transpose`` over ``(dyn, ...)``, with as residuals only the arguments
    either of them reads (a reduction's backward needs its input's shape, not its values: JAX would keep
    every residual a rule takes). Returns the rule and the positions of ``dyn`` it keeps."""
    sds = linear_rule.struct_of  # (weak types kept: under x64 a traced Python 0.0 taken as a strong float64 made
    # where(c, x32, 0.0) float64 in this trace, and its cotangent, float32, did not fit)
    dyn_s, lin_s, out_s = [sds(x) for x in dyn], [sds(x) for x in lin], [sds(x) for x in outs]
    n = len(dyn)
    # A gradient ``transpose`` gives as None (a user's vjp may) is zeros in the rule's code and a symbolic zero
    # for JAX (LinearRule.zero_cts): nothing upstream of that input runs for it, as on a tape.
    transpose, no_gradient = linear_rule.zeros_for_none(transpose, lin_s)
    used_f = linear_rule.used_inputs(jax.make_jaxpr(forward)(dyn_s, lin_s))[:n]
    used_t = linear_rule.used_inputs(jax.make_jaxpr(transpose)(dyn_s, out_s))[:n]  # (fills no_gradient)
    keep = tuple(i for i in range(n) if used_f[i] or used_t[i])

    def full(res):
        d = [linear_rule.zeros_of(s) for s in dyn_s]  # never read: XLA drops them
        for i, r in zip(keep, res):
            d[i] = r
        return d
    # (a weakly typed value's tangent and cotangent are weakly typed too, as JAX's own rules give them)
    aval = lambda s, x: jax.core.ShapedArray(s.shape, s.dtype, weak_type=jax.typeof(x).weak_type)
    rule = LinearRule(lambda res, t: forward(full(res), t), lambda res, c: transpose(full(res), c),
                      [aval(s, x) for s, x in zip(lin_s, lin)], [aval(s, o) for s, o in zip(out_s, outs)],
                      frozenset(no_gradient), linear)
    return rule, keep


def with_linear_rule(fn: Callable, jvp: Callable, transpose: Callable, linear: bool = True) -> Callable:
    """``fn`` as a ``jax.custom_jvp`` function whose derivatives are tapejax's: ``jvp(diff, dyn, tangents,
    out)`` (tangents of the float arguments at positions ``diff``) and ``transpose(diff, dyn, cts)`` (one
    cotangent per float output, in JAX's convention). JAX transforms of code calling it (jax.grad,
    jax.jvp, jax.vmap, and the VJP of a tj.function call) then use the same rules as a tape
    (linear_rule.py). ``linear``: whether ``transpose`` is known to be linear in its cotangents (a built-in rule,
    not a user's vjp, which may give a constant)."""
    rules: Dict[Any, tuple] = {}  # signature -> (LinearRule, positions of the arguments it keeps)

    @jax.custom_jvp
    def traced(*dyn):
        return fn(*dyn)

    @traced.defjvp
    def traced_jvp(primals, tangents):
        out = traced(*primals)
        outs = as_tuple(out)
        diff = tuple(i for i, x in enumerate(primals) if is_float(jnp.result_type(x)))
        float_out = tuple(k for k, o in enumerate(outs) if is_float(o.dtype))
        key = (diff, tuple((jnp.shape(x), jnp.result_type(x), jax.typeof(x).weak_type) for x in primals))
        hit = rules.get(key)
        if hit is None:
            n_out, zero = len(outs), {k: (outs[k].shape, outs[k].dtype) for k in float_out}  # no tracer kept

            def forward(dyn, tans):
                # (the outputs by ``traced``: a rule reading them is differentiated, at the next order, by this
                # op's rule, as TF differentiates its gradient functions, not by JAX's rule of ``fn``)
                t = as_tuple(jvp(diff, tuple(dyn), tuple(tans), traced(*dyn)))
                return [t[k] if t[k] is not None else jnp.zeros(*zero[k]) for k in float_out]

            def transposed(dyn, cts):
                full = [None] * n_out
                for k, c in zip(float_out, cts):
                    full[k] = c
                return transpose(diff, tuple(dyn), full)
            hit = rules[key] = _slim_rule(forward, transposed, primals, [primals[i] for i in diff],
                                          [outs[k] for k in float_out], linear)
        rule, keep = hit
        t_float = linear_rule.bind(rule, [primals[i] for i in keep], [tangents[i] for i in diff])
        t_out = [np.zeros(jnp.shape(o), jax.dtypes.float0) for o in outs]
        for k, t in zip(float_out, t_float):
            t_out[k] = t
        return out, (tuple(t_out) if isinstance(out, (tuple, list)) else t_out[0])
    return traced


def axis_error(label: str, axis: int, ndim: int) -> Exception:
    """NumPy's ``AxisError`` (an ``IndexError`` and a ``ValueError``) for ``axis`` of a tensor of rank ``ndim``, in
    TF's words and NumPy's, which tests of either match (``label``: the op, e.g. ``"tj op 'sort'"``)."""
    return np.exceptions.AxisError(f"{label}: axis {axis} is out of range for a tensor of rank {ndim} (out of bounds "
                                   f"for array of dimension {ndim}, in NumPy's words)")


def check_axis(op: str, axis, ndim: int, scalar: bool = True) -> int:
    """``axis`` (an int, or a scalar integer Tensor) in ``[0, ndim)``; out of ``[-ndim, ndim)`` raises NumPy's
    ``AxisError`` (never wrapped around): both an ``IndexError``, as NumPy, and a ``ValueError``, as TF and JAX.
    ``scalar``: axis 0 of a rank-0 tensor is taken as 0 (else it is out of range, as for a reduction)."""
    ax = as_index(axis, lambda: f"tj op '{op}': axis must be an integer (or a scalar integer Tensor), got "
                                f"{axis!r} of type {type(axis).__name__}")
    if not -ndim <= ax < max(ndim, 1 if scalar else 0):
        raise axis_error(f"tj op '{op}'", ax, ndim)
    return ax % ndim if ndim else 0


def check_result_size(op_name: str, out) -> None:
    """Raise ``ShapeError`` for an output (an array or abstract value, or a tuple of them) too large to exist,
    before XLA compiles it (``tensor.MAX_ARRAY_BYTES``: XLA would abort the process): tile, pad, diag,
    broadcast_to or a constructor asked for such a size. Runs where the outputs' shapes are first known (a
    trace), so it costs nothing per call."""
    for o in (out if isinstance(out, (tuple, list)) else (out,)):
        shape = getattr(o, "shape", None)
        if shape and array_bytes(shape, getattr(o, "dtype", None)) > MAX_ARRAY_BYTES:
            raise ShapeError(f"tj op '{op_name}': the result would have shape {tuple(shape)}, "
                             f"{array_bytes(shape, o.dtype)} bytes, more than any device can hold (the limit is "
                             "2**62 bytes); check the sizes, repetitions, paddings or offsets given.")


def _named(fn: Callable, name: str) -> Callable:
    """``fn``, named ``name`` for ``jax.jit``: its XLA programs carry the op's name (``jit_tanh``, ``jit_tanh_grad``
    in profiles, dumps and compile logs, not ``jit_traced``), and an op's kernels that lower to the same program
    (its forward recorded and unrecorded) are one program for a persistent compilation cache, keyed by the text."""
    fn.__name__ = fn.__qualname__ = name
    return fn


def _sized(op_name: str, f: Optional[Callable], has_residuals: bool = False) -> Optional[Callable]:
    """``f`` (an op's function, or its ``fwd`` returning ``(outputs, residuals)``) checking its outputs' sizes."""
    if f is None:
        return None

    def sized(*args):
        out = f(*args)
        check_result_size(op_name, out[0] if has_residuals else out)
        return out
    return sized


class _Kernels:
    """The jitted kernels of one op for one set of static parameters.

    ``spec`` (static) is ``(multi, ((shape, dtype, is_float), ...))`` for the outputs.
    ``diff`` (static) are the positions of the float Tensor arguments (the only ones a gradient can be
    asked for); ``needed`` (static) the positions whose gradient is wanted now.
    """

    __slots__ = ("forward", "traced", "forward_res", "backward", "jvp", "forward_res_impl", "backward_impl", "jvp_impl",
                 "_plans", "builtin_rules", "record_types", "tangent_paths", "name")

    def __init__(self, op: "OpDef", static: dict) -> None:
        fn = _sized(op.name, functools.partial(op.fn, **static) if static else op.fn)
        part = (lambda f: functools.partial(f, **static) if (f is not None and static) else f)
        fwd, bwd, jvp_rule = _sized(op.name, part(op.fwd), has_residuals=True), part(op.bwd), part(op.jvp_rule)
        accepts_none = op.accepts_none

        def with_diff(dyn, diff):
            """fn as a function of the arguments at positions ``diff`` only."""
            def f(*d):
                full = list(dyn)
                for i, v in zip(diff, d):
                    full[i] = v
                return fn(*full)
            return f

        def fill(cts, spec, keep_none):
            multi, outs = spec
            filled = []
            for i, (c, (shape, dtype, is_float)) in enumerate(zip(cts, outs)):
                if c is None and is_float and not (keep_none and i in accepts_none):
                    c = jnp.zeros(shape, dtype)
                filled.append(c)
            return filled

        if bwd is not None:
            def forward_res(diff, dyn):
                if fwd is not None:
                    return fwd(*dyn)
                out = fn(*dyn)
                return out, (tuple(dyn), out)

            def pullback(res, cts, spec, diff):
                filled = fill(cts, spec, keep_none=True)
                g = as_tuple(bwd(res, tuple(filled) if spec[0] else filled[0]))
                return g
        else:
            def forward_res(diff, dyn):
                def f(*d):
                    out = with_diff(dyn, diff)(*d)
                    return tuple(o for o in as_tuple(out) if is_float(o.dtype)), out
                _, vjp_fn, out = jax.vjp(f, *[dyn[i] for i in diff], has_aux=True)
                return out, vjp_fn

            def pullback(res, cts, spec, diff):
                filled = fill(cts, spec, keep_none=False)
                fl = tuple(c for c, (_, _, is_float) in zip(filled, spec[1]) if is_float)
                g = tf_complex_vjp(res, fl)  # complex values: TF's convention, conj(jax_vjp(conj(ct)))
                full = [None] * (max(diff) + 1 if diff else 0)
                for i, v in zip(diff, g):
                    full[i] = v
                return tuple(full)

        def backward(res, cts, spec, diff, needed):
            g = pullback(res, cts, spec, diff)
            return tuple(g[i] if i < len(g) else None for i in needed)

        if jvp_rule is not None:
            def jvp(diff, dyn, tangents, out):
                full_t = [_zeros_for(x) for x in dyn]
                for i, t in zip(diff, tangents):
                    if t is not None:
                        full_t[i] = t
                # A tangent has its primal's dtype (TF's): a Python scalar operand's zero tangent (float32)
                # must not promote a float16/bfloat16 output's tangent (x16 * 2.0) to float32.
                res = jvp_rule(tuple(dyn), tuple(full_t), out)
                if isinstance(out, (tuple, list)):
                    return type(res)(_as_dtype_of(t, o) for t, o in zip(res, out))
                return _as_dtype_of(res, out)
        elif bwd is not None:
            # Only a custom backward: the JVP is its transpose (a backward is linear in the cotangents).
            def jvp(diff, dyn, tangents, out):
                o, res = forward_res(diff, dyn)
                outs = as_tuple(o)
                float_idx = [k for k, x in enumerate(outs) if is_float(x.dtype)]
                spec = (isinstance(o, (tuple, list)),
                        tuple((x.shape, x.dtype, is_float(x.dtype)) for x in outs))

                def lin(cts_float):
                    cts = [None] * len(outs)
                    for k, c in zip(float_idx, cts_float):
                        cts[k] = c
                    # conj back to JAX's convention: the JVP is the transpose of JAX's VJP, not of TF's
                    g = tf_complex_vjp(lambda c: pullback(res, c, spec, diff), tuple(cts))
                    return tuple(g[i] if (i < len(g) and g[i] is not None) else _zeros_for(dyn[i]) for i in diff)
                example = tuple(_zeros_for(outs[k]) for k in float_idx)
                t = tuple(tg if tg is not None else _zeros_for(dyn[i]) for tg, i in zip(tangents, diff))
                (ct_float,) = jax.linear_transpose(lin, example)(t)
                result = [None] * len(outs)
                for k, c in zip(float_idx, ct_float):
                    result[k] = c
                return tuple(result) if spec[0] else result[0]
        else:
            def jvp(diff, dyn, tangents, out):
                def f(*d):
                    outs = as_tuple(with_diff(dyn, diff)(*d))
                    return tuple(o for o in outs if is_float(o.dtype))
                t = tuple(tg if tg is not None else _zeros_for(dyn[i]) for tg, i in zip(tangents, diff))
                _, tf = jax.jvp(f, tuple(dyn[i] for i in diff), t)
                outs = as_tuple(out)
                it = iter(tf)
                result = [next(it) if is_float(o.dtype) else None for o in outs]
                return tuple(result) if isinstance(out, (tuple, list)) else result[0]

        def transpose(diff, dyn, cts):
            # JAX's transpose of the backward kernel: the same kernel, conjugated for complex values
            # (tapejax's backward follows TF's convention, conj of JAX's).
            _, res = forward_res(diff, tuple(dyn))
            g = backward(res, tuple(_conj(c) for c in cts), spec_of(dyn), diff, diff)
            return [_conj(x) for _, x in zip(diff, g)]  # (None: no gradient, a symbolic zero for JAX)

        # (jax.jit(fn), made at the first spec_of and kept: jax.eval_shape(fn) wraps fn in a new jax.jit per call,
        # and jax's trace cache, weakly keyed by fn, kept an entry per wrapper, with its jaxpr, as long as fn
        # lives: each trace of a recorded tj.function call's gradient added ~38 objects, up to 2048 entries)
        fn_jit = []

        def spec_of(dyn):
            if not fn_jit:
                fn_jit.append(jax.jit(fn))
            out = fn_jit[0].eval_shape(*dyn)
            return (isinstance(out, (tuple, list)),
                    tuple((tuple(o.shape), o.dtype, is_float(o.dtype)) for o in as_tuple(out)))

        # A user's backward (tj.op's vjp, tj.RegisterGradient) runs only when a gradient is asked for, as in
        # TF: never traced ahead to find what it reads (it may count its calls, or fail); nor is it known to be
        # linear in its cotangents (linear_rule.LinearRule.linear).
        self.builtin_rules = not op.user_defined and (op.fwd, op.bwd) == op.original_rules
        if op.differentiable:
            self.traced = with_linear_rule(fn, jvp, transpose, linear=self.builtin_rules)
        else:  # no gradient: a symbolic zero for JAX transforms too, so nothing upstream of it runs for one (a
            # zero cotangent would reach sqrt's rule at 0, and jax.grad of jax.grad would form 0 * inf there). The
            # inputs are stopped, not only the output: JAX would otherwise linearize ``fn`` first, and a primitive
            # without a JVP rule (spacing's nextafter) raised NotImplementedError under jax.grad of tj code.
            self.traced = lambda *dyn: fn(*[jax.lax.stop_gradient(d) for d in dyn])
        self.name = name = re.sub(r"\W", "_", op.name)
        self.forward = jax.jit(_named(self.traced, name))
        self.forward_res = jax.jit(_named(forward_res, name), static_argnums=0)
        self.backward = jax.jit(_named(backward, name + "_grad"), static_argnums=(2, 3, 4))
        self.jvp = jax.jit(_named(jvp, name + "_jvp"), static_argnums=0)
        self.forward_res_impl, self.backward_impl, self.jvp_impl = forward_res, backward, jvp
        self._plans: Dict[tuple, Any] = {}
        self.record_types: Dict[tuple, "RecordType"] = {}  # (record_type's cache)
        self.tangent_paths: Dict[tuple, Optional[tuple]] = {}  # (OpDef.tangent_paths' cache)

    def run_forward_res(self, diff: tuple, raw: Sequence[Any]):
        """``forward_res(diff, raw)``, returning from the kernel only the residuals it computes.

        Residuals that are the op's own inputs or outputs (most hand-written ``fwd``s keep ``x`` and
        ``y``) are put back in Python: every array a jitted call returns costs ~2 us."""
        out, stored, plan = self.run_forward_kept(diff, raw)
        return out, (stored if plan is None else plan.residuals(raw, stored))

    def run_forward_kept(self, diff: tuple, raw: Sequence[Any], call: Optional[Callable] = None):
        """``(outputs, stored, plan)``: with a residual plan, ``stored`` is only the residual arrays that
        are not arguments (``plan.residuals(raw, stored)`` rebuilds the residuals); else ``plan`` is None
        and ``stored`` is the residuals.

        ``call=jax.eval_shape`` with abstract ``raw`` gives the same triple abstractly: it traces the very
        jitted kernel a later call on arrays of those types runs, and jax keeps that trace for the call (a
        deferred op's types cost no trace of their own)."""
        plans = self._plans
        key = diff
        plan = plans.get(key)
        if plan is None:
            plan = plans[key] = _ResidualPlan(self.forward_res_impl, self.backward_impl, diff, self.builtin_rules,
                                              self.name)
        elif plan is False:  # the layout depends on the arguments' signature: a plan per signature
            key = (diff, _signature(raw))
            plan = plans.get(key)
            if plan is None:
                if len(plans) < _PLANS_MAX:
                    plan = plans[key] = _ResidualPlan(self.forward_res_impl, self.backward_impl, diff,
                                                      self.builtin_rules, self.name)
                else:  # (bounded: past that many signatures, the kernel returning every residual)
                    plan = False
        if plan is not False:
            try:
                flat = plan.kernel(*raw) if call is None else call(plan.kernel, *raw)
            except _PlanMismatch:
                plans[key] = False
                if key is diff:
                    return self.run_forward_kept(diff, raw, call)
            else:
                if type(flat) is not tuple:  # (``split``'s common case, inline: one output, no new residual)
                    return flat, (flat if plan.kept else None), plan
                out, stored = plan.split(flat)
                return out, stored, plan
        # (no plan fits: the kernel returning every residual)
        out, res = (self.forward_res(diff, tuple(raw)) if call is None
                    else call(functools.partial(self.forward_res, diff), tuple(raw)))
        return out, res, None


_PLANS_MAX = 256  # residual plans per op and static parameters


class _PlanMismatch(Exception):
    pass


def _signature(raw) -> tuple:
    """The abstract values of an op's raw arguments (what its kernel's trace depends on); a
    ``jax.ShapeDtypeStruct`` (``run_forward_kept(call=jax.eval_shape)``) has the signature of its array."""
    return tuple([r.aval if type(r) is ArrayImpl else
                  jax.core.ShapedArray(r.shape, r.dtype, weak_type=r.weak_type) if type(r) is jax.ShapeDtypeStruct
                  else (type(r), getattr(r, "shape", None), getattr(r, "dtype", None)) for r in raw])


class _ResidualPlan:
    """Where each residual of ``forward_res`` comes from: input i, output j, a zero-size array (only its
    shape and dtype matter), or a new array the kernel returns. Found by the first trace; a later trace
    (another input signature) with a different layout raises ``_PlanMismatch``, and the op then keeps a
    plan per signature (``_Kernels.run_forward_kept``).

    Each trace also finds which residuals the backward kernel reads by value (``read_inputs``: the input
    positions among them, over every signature traced). A recorded op need not keep an input nobody reads
    (``trim``): as TF keeps only the inputs and outputs an op's gradient function uses, a tape keeps
    tanh's output, not its input, and neither input of an add. Only for built-in rules (``find_reads``):
    finding what a backward reads traces it."""

    __slots__ = ("kernel", "layout", "out_tree", "res_tree", "n_out", "single", "_empties", "kept", "kept_pos",
                 "_backward_impl", "_backwards", "last_backward", "read_inputs", "trims", "unread", "name")

    def __init__(self, impl: Callable, backward_impl: Callable, diff: tuple, find_reads: bool = True,
                 name: str = "slim") -> None:
        self.name = name  # (its kernels': the op's)
        self.layout = None
        self.kept = None
        self._empties: Dict[int, Any] = {}
        self._backward_impl = backward_impl
        self._backwards: Dict[tuple, Callable] = {}
        self.last_backward: tuple = (None, None, None, None)  # (spec, needed, dropped, kernel) asked last
        self.read_inputs: frozenset = frozenset()
        self.unread: tuple = ()  # the argument positions no backward traced so far reads (``_reads``)
        self.trims = False  # whether ``trim`` may drop an argument: ``unread`` is not empty

        def slim(*dyn):
            out, res = impl(diff, dyn)
            out_leaves, out_tree = jax.tree_util.tree_flatten(out)
            res_leaves, res_tree = jax.tree_util.tree_flatten(res)
            layout, new = [], []
            for leaf in res_leaves:
                src = next((("in", i) for i, d in enumerate(dyn) if leaf is d), None)
                if src is None:
                    src = next((("out", j) for j, o in enumerate(out_leaves) if leaf is o), None)
                if src is None:
                    shape = getattr(leaf, "shape", None)
                    aval = getattr(leaf, "aval", None)
                    if shape is not None and 0 in shape and aval is not None and not aval.weak_type:
                        src = ("empty", tuple(shape), leaf.dtype)
                    else:
                        src = ("new", len(new))
                        new.append(leaf)
                layout.append(src)
            sig = (out_tree, res_tree, tuple(layout))
            first = self.layout is None
            if first:
                self.out_tree, self.res_tree, self.layout = sig
                self.n_out = len(out_leaves)
                self.single = out_tree.num_leaves == 1 and out_tree.num_nodes == 1
                self._index()  # (``kept``, read per call)
            elif sig != (self.out_tree, self.res_tree, self.layout):
                raise _PlanMismatch()
            n_args = len(dyn)
            read = self._reads(diff, n_args, res_leaves, out_leaves) if find_reads else range(n_args)
            self.read_inputs = frozenset(read) if first else self.read_inputs.union(read)
            self.unread = tuple(i for i in range(n_args) if i not in self.read_inputs)
            self.trims = bool(self.unread)
            if self.single and not new:  # (one output array, nothing else: returned as itself, no tuple per call)
                return out_leaves[0]
            return tuple(out_leaves) + tuple(new)
        self.kernel = jax.jit(_named(slim, name))

    def _reads(self, diff: tuple, n_args: int, res_leaves: list, out_leaves: list):
        """The argument positions the backward kernel of this signature reads by value; every position when
        that is unknown or when it reads a new array (a backward that reads only op inputs and outputs, as
        TF's gradient functions do, is what lets it be recorded at a higher order without dropped inputs)."""
        reads = None
        if not any(src[0] == "in" for src in self.layout):  # (no argument to let go: nothing to find)
            reads = [True] * len(res_leaves)
        elif all(hasattr(r, "aval") for r in res_leaves):
            spec = (not self.single, tuple((tuple(o.shape), o.dtype, is_float(o.dtype)) for o in out_leaves))
            structs = [jax.ShapeDtypeStruct(r.aval.shape, r.aval.dtype, weak_type=r.aval.weak_type)
                       for r in res_leaves]
            cts = tuple(jax.ShapeDtypeStruct(o.shape, o.dtype) if is_float(o.dtype) else None for o in out_leaves)
            backward, res_tree = self._backward_impl, self.res_tree

            def run(leaves, cts):
                return backward(jax.tree_util.tree_unflatten(res_tree, leaves), cts, spec, diff, diff)
            try:
                reads = linear_rule.used_inputs(jax.make_jaxpr(run)(structs, cts))[:len(res_leaves)]
            except Exception:
                reads = None
        if reads is None or any(r and src[0] == "new" for src, r in zip(self.layout, reads)):
            return range(n_args)  # (a backward that cannot be traced on its own, or reads a new array)
        return {src[1] for src, r in zip(self.layout, reads) if r and src[0] == "in"}

    def trim(self, raw: Sequence[Any]) -> Sequence[Any]:
        """``raw`` with each argument the backward never reads replaced by its abstract value (shape and
        dtype: what the backward may still ask of it), if it is a device array; weakly typed arrays, whose
        type promotion a stand-in would change, stay. ``raw`` itself when none goes."""
        kept = raw
        n = len(raw)
        for i in self.unread:
            a = raw[i] if i < n else None
            if type(a) is ArrayImpl:
                av = a.aval
                if not av.weak_type:
                    if kept is raw:
                        kept = list(raw)
                    kept[i] = av
        return kept

    def split(self, flat):
        """(the outputs, what ``residuals`` needs besides the arguments) from the kernel's ``flat`` result, a
        tuple (``run_forward_kept`` takes the one array a kernel of one output and no new residual returns):
        the residual arrays that are outputs or new, one array as itself, several as a tuple, none as None."""
        kept = self.kept  # (found by the kernel's first trace)
        n_out = self.n_out
        out = flat[0] if self.single else jax.tree_util.tree_unflatten(self.out_tree, flat[:n_out])
        if not kept:
            return out, None
        if len(kept) == 1:
            return out, flat[kept[0]]
        return out, tuple([flat[i] for i in kept])

    def residuals(self, raw, stored, stand_ins: bool = True):
        """The residuals, from the op's raw arguments and ``split``'s ``stored``. An argument ``trim`` let go
        (its abstract value in ``raw``) becomes zeros of its shape, which the backward never reads; or,
        without ``stand_ins``, stays its abstract value (for a caller making the zeros in a program)."""
        leaves = []
        one = len(self.kept) == 1
        for k, src in enumerate(self.layout):
            kind = src[0]
            if kind == "in":
                a = raw[src[1]]
                leaves.append(jnp.zeros(a.shape, a.dtype) if stand_ins and type(a) is ShapedArray else a)
            elif kind == "empty":
                e = self._empties.get(k)
                if e is None:
                    e = jnp.zeros(src[1], src[2])
                    if not isinstance(e, jax.core.Tracer):
                        self._empties[k] = e
                leaves.append(e)
            else:
                leaves.append(stored if one else stored[self.kept_pos[k]])
        return jax.tree_util.tree_unflatten(self.res_tree, leaves)

    def backward_kernel(self, spec, diff: tuple, needed: tuple, dropped: tuple = ()) -> Callable:
        """The op's backward kernel as a function of ``(raw arguments, stored, cotangents)``: the residuals are
        rebuilt inside the trace, so a call passes a few flat arrays and rebuilds nothing in Python.
        ``dropped``: ``(position, abstract value)`` of the arguments ``trim`` let go, passed as None."""
        last = self.last_backward
        # (the kernel asked for last, without hashing a key: consecutive ops of a kind share the spec and
        # needed objects, their RecordType's)
        if last[0] is spec and last[1] is needed and last[2] == dropped:
            return last[3]
        key = (spec, needed, dropped) if dropped else (spec, needed)
        f = self._backwards.get(key)
        if f is None:
            backward, residuals = self._backward_impl, self.residuals

            def kernel(raw, stored, cts):
                # (under an accumulator the arguments are kept as Tensors, pytrees of their values: their
                # values, as the kernels take, at trace time only)
                raw = [r._value if isinstance(r, Tensor) else r for r in raw]
                for i, av in dropped:
                    raw[i] = av
                return backward(residuals(raw, stored), cts, spec, diff, needed)
            if len(self._backwards) >= _PLANS_MAX:
                self._backwards.clear()
            f = self._backwards[key] = jax.jit(_named(kernel, self.name + "_grad"))
        self.last_backward = (spec, needed, dropped, f)
        return f

    def _index(self) -> tuple:
        """Which entries of the kernel's flat result the residuals need (``kept``) and, per residual that
        is one of them, its position among them (``kept_pos``)."""
        flat_index = {}
        for k, src in enumerate(self.layout):
            if src[0] == "out":
                flat_index[k] = src[1]
            elif src[0] == "new":
                flat_index[k] = self.n_out + src[1]
        kept = tuple(sorted(set(flat_index.values())))
        self.kept_pos = {k: kept.index(i) for k, i in flat_index.items()}
        self.kept = kept
        return kept


class OpDef:
    """A named op: its JAX function, optional hand-written rules, and its cached kernels.

    Args:
      fn: ``fn(*arrays, **static)`` returning an array or a tuple of arrays.
      fwd/bwd: optional hand-written reverse rule. ``fwd(*arrays, **static) -> (outputs, residuals)``;
        ``bwd(residuals, cotangents, **static) -> one gradient (or None) per array argument``, where
        ``cotangents`` is one array for a single-output op and a tuple otherwise. With ``bwd`` and no
        ``fwd`` the residuals are ``(inputs, outputs)``.
      jvp: optional hand-written forward rule ``jvp(primals, tangents, outputs, **static) -> output tangents``.
      accepts_none: output indices whose cotangent the rule takes as ``None`` instead of zeros
        (tape.h's FunctionsAcceptingNoneForIndicesMap, declared per op).
      samples: ``() -> list of (args, static kwargs)``, used by the registry-wide gradient test.
      differentiable: False for an op whose outputs have no gradient (comparisons, argmax, random draws):
        it is never recorded.
      user_defined: made with ``tj.op`` (not part of the built-in op surface the registry tests cover).
      connections: for an op whose outputs need not depend on all its inputs (a tj.function call): per
        output, the argument positions it depends on. Gradients and tangents with no path are None, as
        TF's. None: every output depends on every input.
      backward_connected: the op's gradient and tangent count as depending on every input at higher
        orders, where TF's gradient of its backward op returns zeros rather than None (ReluGrad's for the
        features). Otherwise their connections are read from their formulas (``grad_op``, ``jvp_op``); a
        collection of input positions adds those inputs to what the formulas read (TF's backward op takes
        them as inputs and its gradient returns zeros for them, None for the others: FusedBatchNormGrad
        takes x and scale, not offset).
      passthrough: argument positions whose gradient is the cotangent itself when the argument has the
        output's shape and dtype (add's both, subtract's first): the eager backward pass then hands the
        cotangent on without calling the backward kernel, whose result would be that same value. A new
        reverse rule (``set_backward``) drops it.
    """

    def __init__(self, name: str, fn: Callable, *, fwd: Optional[Callable] = None, bwd: Optional[Callable] = None,
                 jvp: Optional[Callable] = None, accepts_none: Sequence[int] = (), samples=None,
                 register: bool = True, differentiable: bool = True,
                 user_defined: bool = False, connections: Optional[tuple] = None,
                 backward_connected: Union[bool, Sequence[int]] = False, passthrough: Sequence[int] = ()) -> None:
        if fwd is not None and bwd is None:
            raise ValueError(f"op '{name}': a custom fwd needs a bwd")
        self.name = name
        self.fn = fn
        self.fwd = fwd
        self.bwd = bwd
        self.jvp_rule = jvp
        self.accepts_none = frozenset(accepts_none)
        self.samples = samples
        self.differentiable = differentiable
        self.user_defined = user_defined
        self.connections = connections
        self.gradients_present: Optional[tuple] = None  # (a gradient op's: see _gradient_op)
        self.tangent_connected = False  # (a gradient op's: see tangent_paths)
        # Under an accumulator, every float output has a tangent: TF runs it as a function call (see jvp_op)
        self.call_connected = False
        self.jvp_of_call: Optional[tuple] = None  # (a tj.function call's jvp_op: (that op, static, diff))
        self.derived = False  # (grad_op's and jvp_op's)
        self.passthrough = frozenset(passthrough)
        self.backward_connected = (backward_connected if isinstance(backward_connected, bool)
                                   else frozenset(backward_connected))
        self._kernels: Dict[Any, _Kernels] = {}
        self._derived: Dict[Any, "OpDef"] = {}
        # (deferred.lazy.op_type's cache: on the op, not in a global dict, so that it dies with the op, as a
        # tj.function's call op does with its function)
        self.op_types: Dict[tuple, Any] = {}
        self.changed_at = 0  # the rules epoch its own rules last changed at (``set_backward``)
        self.original_rules = (fwd, bwd)  # (a reverse rule set back to these is built-in again)
        if register:
            _registry[name] = self

    def __repr__(self) -> str:
        return f"<tj op {self.name}>"

    def kernels(self, static: dict) -> _Kernels:
        key = static_key(static) if static else ()  # (every dispatch: no call for the common empty case)
        k = self._kernels.get(key)
        if k is None:
            k = self._kernels[key] = _Kernels(self, static)
        return k

    def traced(self, *args, **static):
        """This op applied inside a JAX-traced rule (its ``jax.custom_jvp`` function): what the rule computes with
        it is differentiated, at the next order, by this op's own rules, as TF's gradient functions reach the op,
        not by JAX's rule of its forward function."""
        return self.kernels(static).traced(*args)

    def set_backward(self, fwd: Optional[Callable], bwd: Callable) -> None:
        """Replace the reverse rule (``tj.RegisterGradient``). The JVP becomes its transpose, unless the op
        has a hand-written JVP rule; cached kernels are rebuilt."""
        self.fwd, self.bwd = fwd, bwd
        self.jvp_rule = None
        self.passthrough = frozenset()
        self._kernels.clear()
        self._derived.clear()
        rules_changed()  # deferred op types and replay programs built with the old rule: not used again
        self.changed_at = _rules_epoch

    def __call__(self, *args, **static):
        return apply(self, args, static)

    # -- ops computing this op's derivatives, dispatched when an outer tape/accumulator records --------
    def grad_op(self, static: dict, spec, diff: tuple, needed: tuple, none_mask: tuple, args: Sequence) -> "OpDef":
        """The op computing this op's input gradients ``needed`` from ``args``: ``(*op args, *cotangents not
        None)``. It connects each gradient only to the arguments its formula reads differentiably
        (ops/dependence.py): TF's None at second order."""
        avals = _avals(args)
        key = ("grad", static_key(static), spec, diff, needed, none_mask, avals)
        g = self._derived.get(key)
        if g is None:
            k = self.kernels(static)
            n_ct = sum(1 for m in none_mask if not m)

            def grad_fn(*args):
                dyn = args[:len(args) - n_ct]
                given = iter(args[len(args) - n_ct:])
                cts = tuple(None if m else next(given) for m in none_mask)
                _, res = k.forward_res_impl(diff, tuple(dyn))
                return k.backward_impl(res, cts, spec, diff, needed)
            g = self._derived[key] = self._gradient_op(grad_fn, avals)
        return g

    def residual_grad_op(self, static: dict, plan: "_ResidualPlan", spec, diff: tuple, needed: tuple,
                         none_mask: tuple, dropped: tuple, args: Sequence) -> "OpDef":
        """``grad_op`` for a recording that let inputs go (``_ResidualPlan.trim``): the op computing the
        gradients ``needed`` from ``args``: ``(*the arguments kept, *the stored residuals, *cotangents not
        None)``. The backward reads only the kept arguments and the op's outputs (``trims``), so with
        those standing for the op's inputs and outputs an outer tape differentiates through them as
        through TF's gradient functions, which read op inputs and outputs."""
        avals = _avals(args)
        key = ("grad_res", plan, static_key(static), spec, diff, needed, none_mask, dropped, avals)
        g = self._derived.get(key)
        if g is None:
            backward = self.kernels(static).backward_impl
            n_args = len(dropped) + len(args) - len(plan.kept) - sum(1 for m in none_mask if not m)
            dropped_at = dict(dropped)
            kept_pos = [i for i in range(n_args) if i not in dropped_at]

            def grad_fn(*a):
                given = iter(a)
                raw = [None] * n_args
                for i in kept_pos:
                    raw[i] = next(given)
                for i, av in dropped:
                    raw[i] = av
                stored = [next(given) for _ in plan.kept]
                stored = None if not stored else (stored[0] if len(stored) == 1 else tuple(stored))
                cts = tuple(None if m else next(given) for m in none_mask)
                return backward(plan.residuals(raw, stored), cts, spec, diff, needed)
            g = self._derived[key] = self._gradient_op(grad_fn, avals)
        return g

    def _gradient_op(self, grad_fn: Callable, avals: tuple) -> "OpDef":
        """The op of ``grad_fn`` (a backward kernel on op arguments). A gradient it gives as None (a user's vjp
        may, as a TF gradient function: no gradient for that input) is not an output: an op's outputs are
        arrays. ``gradients_present`` says which of the needed gradients are (None: all)."""
        present = tuple(g is not None for g in jax.eval_shape(lambda *a: tuple(grad_fn(*a)), *avals))
        fn = grad_fn
        if not all(present):
            def fn(*a):
                return tuple(g for g, p in zip(grad_fn(*a), present) if p)
        g = OpDef(f"{self.name}_grad", fn, register=False, connections=self._derived_connections(fn, avals))
        g.gradients_present = None if all(present) else present
        g.derived = True
        # (TF's gradient of its JVP call is a call too: forward over reverse over forward, zeros for relu)
        g.call_connected = self.call_connected or self.jvp_of_call is not None
        g.tangent_connected = bool(self.backward_connected) or g.call_connected
        return g

    def jvp_op(self, static: dict, diff: tuple, batched: bool, args: Sequence) -> "OpDef":
        """An op computing this op's output tangents from ``args``: ``(*op args, *tangents)``; with
        ``batched`` the tangents carry a leading batch axis (tape.h's use_batch) and the JVP kernel is
        vmapped. For a tape each tangent is connected only to the arguments it reads differentiably, as
        grad_op's. An outer accumulator gives every output a tangent (``call_connected``), zeros where it
        reads none of those it has: TF runs an op's JVP as a function call (forwardprop._jvp_dispatch) of
        the op's inputs, outputs and tangents, which that accumulator fills with zeros where they have
        none, and each output tangent reads the tangents (forward over forward through relu, abs or
        x + 1: zeros, not None). A tj.function call's JVP stands for its ops' JVPs one by one: an output
        has a tangent where its primal has one (``jvp_of_call``, Accumulator.accumulate), as eagerly."""
        avals = _avals(args)
        key = ("jvp", static_key(static), diff, batched, avals)
        j = self._derived.get(key)
        if j is None:
            jvp_fn = self._jvp_fn(static, diff, batched)
            conn = self._derived_connections(jvp_fn, avals)
            j = self._derived[key] = OpDef(f"{self.name}_jvp", jvp_fn, register=False, connections=conn)
            j.derived = True
            if self.connections is None or self.derived:
                j.call_connected = j.tangent_connected = True
            else:  # (a tj.function call: its connections declared)
                j.jvp_of_call = (self, static, diff)
        return j

    def _jvp_fn(self, static: dict, diff: tuple, batched: bool) -> Callable:
        """The output tangents as a function of ``(*op args, *tangents)`` (``jvp_op``'s)."""
        k = self.kernels(static)
        n = len(diff)
        fn = functools.partial(self.fn, **static) if static else self.fn

        def jvp_fn(*args):
            dyn, tans = tuple(args[:len(args) - n]), tuple(args[len(args) - n:])
            out = fn(*dyn)
            if batched:
                t_out = jax.vmap(lambda t: k.jvp_impl(diff, dyn, t, out))(tans)
            else:
                t_out = k.jvp_impl(diff, dyn, tans, out)
            if not isinstance(out, (tuple, list)):
                return t_out
            # an int output (lstsq's rank) has no tangent: zeros of its dtype, which nothing reads,
            # keep this op's outputs arrays
            return tuple(_zeros_for(o) if t is None else t for o, t in zip(out, t_out))
        return jvp_fn

    def tangent_paths(self, static: dict, diff: tuple, raw: Sequence) -> Optional[tuple]:
        """Per output, the positions in ``diff`` whose tangents the JVP reads; None: every one. TF's forward
        mode transposes each op's gradient function, so an output whose gradient function ignores the output
        gradient (Sign's zeros, ``abs``'s ``g * sign(x)`` at second order) gets the tangent None, where its
        reverse mode gives zeros; a tapejax JVP reads no tangent in exactly those places (JAX's zero
        derivative of sign). A backward op TF runs as one op (``tangent_connected``: ReluGrad) reads the
        output gradient, so every output of it has a tangent, zeros if need be."""
        if self.tangent_connected:
            return None
        known = self.kernels(static).tangent_paths  # (every op an accumulator sees: a cheap key first)
        try:
            key = (diff, tuple([a.aval for a in raw]))  # (a C++ attribute of a device array: shape and dtype)
        except AttributeError:  # (a NumPy scalar or a Python complex among the arguments)
            key = (diff, _avals(raw))
        try:
            return known[key]
        except KeyError:
            pass
        avals = _avals(raw)
        try:
            conn = self._derived_connections(self._jvp_fn(static, diff, False), avals + tuple(avals[i] for i in diff))
        except Exception:  # (a JVP that does not trace on abstract values alone: every tangent, as before)
            conn = None
        n = len(avals)
        paths = None if conn is None else tuple(frozenset(diff[p - n] for p in c if p >= n) for c in conn)
        if paths is not None and all(len(p) == len(diff) for p in paths):
            paths = None  # (every output reads every tangent: the common case, told by None)
        if len(known) >= _PLANS_MAX:
            known.clear()
        known[key] = paths
        return paths

    def _derived_connections(self, fn: Callable, avals: tuple) -> Optional[tuple]:
        """Connections of a derived op (``grad_op``, ``jvp_op``) computing ``fn``: None (all) for a
        ``backward_connected`` op, else what its formula reads, plus the declared inputs."""
        if self.backward_connected is True:
            return None
        conn = dependence.connections(fn, avals)
        if conn is None or not self.backward_connected:
            return conn
        return tuple(c | self.backward_connected for c in conn)

    def batched_jvp_kernel(self, static: dict, diff: tuple):
        """The JVP kernel vmapped over a leading tangent axis (compiled once per op, static and diff)."""
        key = ("bjvp", static_key(static), diff)
        f = self._derived.get(key)
        if f is None:
            k = self.kernels(static)
            f = self._derived[key] = jax.jit(
                lambda dyn, tans, out: jax.vmap(lambda t: k.jvp_impl(diff, dyn, t, out))(tans))
        return f


# ---------------------------------------------------------------------------------------------------
# Dispatch
# ---------------------------------------------------------------------------------------------------

def _avals(args: Sequence) -> tuple:
    """The abstract signature of op arguments (Tensors, Variables' reads or raw values), hashable, weak types
    included: a derived kernel traced on them promotes as the op did (under x64 a Python 0.0 is a weak float64,
    and ``where(c, x32, 0.0)`` is float32; taken as a strong float64 its gradient op's output was float64)."""
    return tuple(jax.ShapeDtypeStruct(tuple(a.shape), a.dtype, weak_type=is_weakly_typed(a)) if isinstance(a, Tensor)
                 else linear_rule.struct_of(a) for a in args)


def _bad_arg(op: OpDef, i: int, a: Any) -> TypeError:
    # (a ConversionError: a TypeError, and the ValueError TF raises for None or an object of an unsupported type)
    return ConversionError(f"tj op '{op.name}': argument {i} is a {type(a).__name__} ({describe_value(a)}); "
                           "expected a tj.Tensor, tj.Variable, jax/numpy array, Python number or list of numbers. "
                           "Convert it with tj.constant(...) first.")


# Python scalars as device arrays, made once per (type, value, x64 mode). A jitted kernel turns a Python
# scalar argument into a weakly typed array on every call (~5 us); a weakly typed jax.Array of the same value
# gives the kernel the same abstract value (dtype, weak type), so results are identical. The x64 mode is part
# of the key: 1.1 made while it was off is a float32 1.1, which would turn ``1.1 * x`` of a float64 x into
# 1.100000023841858 * x once it is on (TF and JAX keep the Python number's precision).
_SCALAR_CACHE_MAX = 4096
_scalars: Dict[Any, Any] = {}


def _scalar(a, x64: bool):
    key = (type(a), a, x64)
    v = _scalars.get(key)
    if v is not None:
        return v
    if a != a or (a == 0 and type(a) is float):
        return a  # NaN never hits a dict; -0.0 == 0.0 would share an entry
    try:
        v = jnp.asarray(a)
    except (OverflowError, TypeError):
        return a  # let the kernel raise its own error
    if isinstance(v, jax.core.Tracer):
        return a  # made inside a trace (tj.function): never cache a tracer
    if len(_scalars) >= _SCALAR_CACHE_MAX:
        _scalars.clear()
    _scalars[key] = v
    return v


_FED_MAX = 4096
_fed: Dict[tuple, bool] = {}  # (shape, dtype) of the NumPy arguments seen so far (bounded)


def _device_copy(a: np.ndarray):
    """A NumPy argument as a device array of its own (a later write to the caller's array must not reach a
    pending op or a tape's residual): one an op can wait on like any other, so a step fed NumPy batches is
    deferred and replayed with its update as one fed Tensors. A dtype JAX does not take stays a NumPy copy
    (the op's kernel then says what is wrong).

    The first array of a shape and dtype is copied on the host and transferred (``as_array``: no XLA program);
    from the second on (a training loop's batches) jnp.array copies it, with the program it compiles for that
    shape once: about 15 us less per call than jax.device_put's transfer. Both give the same bits."""
    if type(a) is not np.ndarray and isinstance(a, np.ma.MaskedArray):
        # (its mask would be dropped silently: sum([--, 2]) would be 3; jax's functions refuse it too)
        raise ConversionError("numpy masked arrays are not tj op arguments, as they are not jax.numpy's (the mask "
                              "would be dropped): pass arr.filled(value), or convert with tj.numpy.asarray(arr), "
                              "which takes the data")
    if a.dtype.kind in "biufc":
        key = (a.shape, a.dtype)
        if key in _fed:
            return jnp.array(a)  # (jnp.array copies: the device array shares nothing with the caller's)
        if len(_fed) >= _FED_MAX:
            _fed.clear()
        _fed[key] = True
        return as_array(np.asarray(a))
    return np.array(a, copy=True)


def _raw(op: OpDef, args: Sequence[Any], keep_lazy: bool = False):
    """Unwrap arguments: (raw values for the kernels, the argument list with Variables read). With
    ``keep_lazy`` a LazyTensor whose value is still pending stays in the raw list as itself."""
    raw = []
    conv = None
    x64 = None  # JAX's x64 mode, read at the first Python scalar
    for i, a in enumerate(args):
        t = type(a)
        if t is Tensor:
            raw.append(a._value)
        elif t is float or t is int or t is bool:
            if x64 is None:
                x64 = jax.config.jax_enable_x64
            v = _scalars.get((t, a, x64))
            raw.append(v if v is not None else _scalar(a, x64))
        elif t is LazyTensor:
            c = a._concrete
            raw.append(c if c is not None else (a if keep_lazy else a._value))
        elif isinstance(a, Tensor):
            raw.append(a._value)
        elif isinstance(a, Variable):
            r = a.read_value()
            if conv is None:
                conv = list(args)
            conv[i] = r
            raw.append(r._value)
        elif isinstance(a, (np.ndarray, np.generic)):
            refuse_narrowing(a, None, f"tj op '{op.name}': argument {i}")  # (never an int64 batch wrapped around)
            raw.append(_device_copy(a) if isinstance(a, np.ndarray) else a)
        elif isinstance(a, (jax.Array, complex)) or isinstance(a, jax.core.Tracer):
            raw.append(a)
        elif isinstance(a, (list, tuple)):
            try:
                v = convert_to_tensor(a)
            except TypeError as e:
                if "non-rectangular" in str(e):  # (a ragged list: say that, and which op it was given to)
                    raise ConversionError(f"tj op '{op.name}': argument {i}: {e}") from None
                raise _bad_arg(op, i, a) from None
            if conv is None:
                conv = list(args)
            conv[i] = v
            raw.append(v._value)
        elif a is None:
            raise _bad_arg(op, i, a)
        elif isinstance(a, (int, float)):  # (a subclass, an IntEnum: the weakly typed number it is, as jax's)
            if x64 is None:
                x64 = jax.config.jax_enable_x64
            raw.append(_scalar(int(a) if isinstance(a, int) else float(a), x64))
        else:
            jarr = getattr(a, "__jax_array__", None)
            if jarr is None:
                raise _bad_arg(op, i, a)
            raw.append(jarr())
    return raw, (conv if conv is not None else args)


def _wrap(out):
    if isinstance(out, (tuple, list)):
        return tuple(Tensor(o) for o in out)
    return Tensor(out)


# The deferred-execution layer (deferred/lazy.py) plugs in here: ``(op, args, raw, static)`` -> the op's
# pending outputs, or None when it must run now. It sits above the ops, so it installs itself at import.
_deferral: Optional[Callable] = None


def set_deferral(defer: Optional[Callable]) -> None:
    """Registration point for deferred execution (see ``_deferral``)."""
    global _deferral
    _deferral = defer


# deferred/pending.py plugs in here while a replayed step's gradients are pending: ``(op, args, static,
# unwrap)`` -> the op's outputs as pending tensors of that step's update, or None to run it now. Ops
# outside any tape and trace are offered to it (``unwrap`` is ``_raw``, for its other arguments).
_update_deferral: Optional[Callable] = None


def set_update_deferral(defer: Optional[Callable]) -> None:
    """Registration point for updates fused into a pending replayed step (see ``_update_deferral``)."""
    global _update_deferral
    _update_deferral = defer


NO_STATIC: dict = {}  # never mutated: the static parameters of an op that has none (pass it, not a new {})


def apply(op: OpDef, args: Sequence[Any], static: dict):
    """Run ``op`` on ``args``; record it on every tape/accumulator of this thread that watches an input.
    A ``name`` in ``static`` is TF's op name: accepted and ignored (it only names a graph node)."""
    if not static:
        static = NO_STATIC  # (kept by the op's record: one shared empty dict, not a new one per op)
    elif "name" in static:
        static = {k: v for k, v in static.items() if k != "name"}
    st = tape_set.current()
    # (each per-thread attribute read once: a threading.local attribute costs ~70 ns, and this runs per op;
    # the lists are the live ones, and nothing below pushes or pops a tape or opens a trace)
    tapes, accs, stopped, capture = st.tapes, st.accumulators, st.stopped, st.capture
    deferred = (_deferral is not None and config.lazy and len(tapes) == 1 and not accs and not stopped
                and op.differentiable and capture is None
                and not (tape_set.numerics_checks and st.debug_checking))
    if _update_deferral is not None and not tapes and not accs and capture is None:
        out = _update_deferral(op, args, static, _raw)
        if out is not None:
            return out
    raw, args = _raw(op, args, deferred)
    if capture is not None:  # a tj.function trace: Tensors it closes over are inputs of the program
        raw = capture.substitute(args, raw)
    elif st.lifted_before is not None:  # tj.init_scope inside a trace: the trace's values are out of scope
        _check_not_traced(op, args, st.lifted_before)
    try:
        if deferred:
            out = _deferral(op, args, raw, static)
            if out is not None:
                return out
            raw = [r._value if type(r) is LazyTensor else r for r in raw]
        if not ((tapes or accs) and not stopped) or not op.differentiable:
            out = _wrap(op.kernels(static).forward(*raw))
            if tapes:  # tj.debug: a marker of the unrecorded op, for explain_gradient
                tape_set.debug_hooks.note_unrecorded(op, args, out)
            return out
        return _apply_recorded(op, args, raw, static, st)
    except (TypeError, ValueError, IndexError, NameError, ZeroDivisionError) as e:  # free on the fast path
        if isinstance(e, ValueError) and "has been deleted or donated" in str(e):  # (XLA's words, on a compiled call)
            raise RuntimeError(f"tj op '{op.name}': an argument's array has been deleted (donated to a jax.jit call, "
                               "or deleted): jax.Array raises RuntimeError for it too. Pass a value that is alive."
                               ) from e
        if is_no_gradient_error(e):  # (under jax.grad of tj code: JAX asks for the gradient while tracing)
            raise NoGradient.of(op.name, e).error() from e
        concrete = _concrete_static(static)
        if concrete is not None:  # a scalar Tensor for an axis or shape: its value, as a Python number
            return apply(op, args, concrete)
        # a deferred argument is its producer's Node in ``raw``: its Tensor in ``args`` has the shape and dtype
        shown = [r if hasattr(r, "shape") else a for r, a in zip(raw, args)] if len(raw) == len(args) else raw
        named = named_error(op.name, shown, static, e)
        if named is None:
            raise
        try:
            raise named from e
        finally:
            named = None  # (the traceback keeps this frame: its locals must not keep the error, a reference cycle)
    except NotImplementedError as e:
        if "Unsupported dtype" not in str(e):  # (jaxlib's LAPACK bindings: float16 and bfloat16 have none)
            raise
        dtypes = ", ".join(sorted({str(r.dtype) for r in raw if hasattr(r, "dtype")}))
        raise NoKernelError(f"tj op '{op.name}': no kernel for dtype {dtypes} (JAX's LAPACK-based linear algebra "
                            "has none; TF has none either): cast the arguments to float32 first.") from e
    except OverflowError as e:
        big = next((a for a in args if type(a) is int and not -2 ** 31 <= a < 2 ** 31), None)
        if big is None or jax.config.jax_enable_x64:
            raise
        raise OverflowError(f"tj op '{op.name}': the Python integer {big} does not fit int32, the dtype JAX gives "
                            "Python ints while its x64 mode is off (jax.numpy raises too). Pass it as a float "
                            f"({float(big)!r}) or as an array of a dtype that holds it, or enable x64 "
                            "(jax.config.update('jax_enable_x64', True)).") from e


def _check_not_traced(op: OpDef, args, lifted_before: int) -> None:
    """TF's error for a value of the enclosing trace used in ``tj.init_scope`` (code there runs eagerly, at
    trace time, where the trace's values do not exist yet)."""
    for a in args:
        if isinstance(a, Tensor) and a._id < lifted_before and isinstance(a._value, jax.core.Tracer):
            raise TypeError(
                f"A Tensor (shape {tuple(a.shape)}, dtype {a.dtype}) made inside the tj.function trace is out of "
                f"scope and cannot be used here, in tj.init_scope (op '{op.name}'): that code runs eagerly, once, "
                "at trace time. Compute the value outside init_scope, or from values made inside it.")


def _holds_tensor(v) -> bool:
    if isinstance(v, (Tensor, Variable)):
        return True
    return isinstance(v, tuple) and any(_holds_tensor(x) for x in v)


def _concrete_static(static: dict) -> Optional[dict]:
    """``static`` with its concrete Tensors and Variables replaced by their values (``freeze``), or None when
    it holds none, or a traced one (whose value is unknown until the program runs: ``named_error`` says so).
    Found only when hashing or using such a parameter failed, so it costs nothing on the normal path."""
    if not any(_holds_tensor(v) for v in static.values()):
        return None
    frozen = {k: freeze(v) for k, v in static.items()}
    return None if any(_holds_tensor(v) for v in frozen.values()) else frozen


class ShapeError(TypeError, ValueError):
    """A bad shape, size, axis or stride given to an op (``matmul`` of ``[2, 3]`` and ``[4, 5]``, ``reshape`` to
    a size that differs, a negative dimension). jax's lax raises ``TypeError`` for these and TF
    ``InvalidArgumentError``, which tapejax raises as ``ValueError``: this error is both, so code written
    against either catches it."""


class NoKernelError(TypeError, NotImplementedError):
    """A dtype an op has no kernel for (LAPACK's linear algebra on float16 or bfloat16). jax raises
    ``NotImplementedError`` ("Unsupported dtype"); a dtype error is a ``TypeError`` in TF's and NumPy's terms:
    this error is both, so code written against either catches it."""


# jax's TypeErrors are about a value's shape or size (a ShapeError) unless they name a dtype or a type
_TYPE_WORDS = re.compile(r"dtype|integer type|integral type|interpreted as an integer|valid JAX array type|complex"
                         r"|hashable|NoneType|object", re.IGNORECASE)
_SHAPE_WORDS = re.compile(r"shape|dimension|ndim|rank|negative|positive|axes|axis|size", re.IGNORECASE)
# a sequence where one integer goes, or a nested shape: a bad rank (TF's and NumPy's ValueError) as much as a type
_RANK_WORDS = re.compile(r"'(tuple|list)' object cannot be interpreted as an integer|must be 1D sequences")


def _error_kind(e: Exception, msg: str) -> type:
    """The exception class tapejax raises for a bare jax error ``e`` (its own class, unless TF's differs)."""
    if "incompatible shapes for broadcasting" in msg.lower():
        # Operands that do not broadcast are a bad value, not a bad type: ValueError for every op (TF's graph
        # mode raises ValueError, eager InvalidArgumentError, which tapejax raises as ValueError); jax.numpy
        # raises ValueError for some ops (add, power) and lax's TypeError for others (less, maximum, arctan2).
        return ValueError
    if isinstance(e, IndexError) or "out of bounds for array of dimension" in msg:
        # an axis out of range inside jax (argmax's shape[axis]; tensordot's ValueError): NumPy's AxisError, an
        # IndexError and a ValueError, as _check_axis (TF raises either)
        return np.exceptions.AxisError
    if isinstance(e, NameError):  # a string for an axis: jax looks it up as a named (pmap/shard_map) axis
        return TypeError
    if isinstance(e, ZeroDivisionError):  # a zero count or step (split into 0 parts, arange's step 0): TF's
        return ValueError  # InvalidArgumentError
    if type(e) is TypeError and (_SHAPE_WORDS.search(msg) and not _TYPE_WORDS.search(msg) or _RANK_WORDS.search(msg)):
        return ShapeError
    return type(e)


_LIBRARY_DIRS = tuple(os.path.dirname(m.__file__) + os.sep for m in (jax, np))


def _raised_in_jax(e: Exception) -> bool:
    """Whether ``e`` came from inside jax or NumPy (a bad argument they reject), not from the code of a
    ``tj.op`` function (whose own IndexError or NameError is a bug to report as it is)."""
    tb = e.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_filename.startswith(_LIBRARY_DIRS)


def named_error(op_name: str, raw, static: dict, e: Exception) -> Optional[Exception]:
    """A bare jax error from a kernel (``dot_general requires contracting dimensions...``) with the op,
    its arguments' dtypes and shapes and the fix in front; None to keep the error as it is (not a
    TypeError, ValueError, IndexError, NameError or ZeroDivisionError, or already written by tapejax). The one
    error path of every op (``apply``) and of the array constructors (tj.numpy.zeros...)."""
    msg = str(e)
    if type(e) not in (TypeError, ValueError, IndexError, NameError, ZeroDivisionError) or msg.startswith("tj op '"):
        return None
    if type(e) in (IndexError, NameError, ZeroDivisionError) and not _raised_in_jax(e):
        return None
    traced = next((k for k, v in static.items() if _holds_tensor(v)), None)
    if traced is not None:  # hashing the static parameters failed on it: say what is wrong instead
        return traced_argument_error(f"tj op '{op_name}'", traced, _first_tensor(static[traced]))
    def desc(r):
        shape = getattr(r, "shape", None)
        dtype = getattr(r, "dtype", None)
        if shape is None or dtype is None:
            return repr(r)
        return f"{dtype}{list(shape)}"
    shown = {k: v for k, v in static.items() if v is not None}
    params = f" with {', '.join(f'{k}={v!r}' for k, v in shown.items())}" if shown else ""  # whole values
    if isinstance(e, IndexError) and not msg:
        msg = "an index out of range"
    elif isinstance(e, IndexError) and msg == "tuple index out of range":  # (jax read shape[axis])
        msg = "an axis is out of range for an argument's rank (out of bounds for array of its dimension)"
    args = f" on arguments {', '.join(desc(r) for r in raw)}" if raw else ""
    return _error_kind(e, msg)(f"tj op '{op_name}'{args}{params}: {msg}\n"
                               f"Fix the arguments' shapes or dtypes (tj.numpy/tj.nn follow jax.numpy/jax.nn's rules).")


def _apply_recorded(op: OpDef, args, raw, static, st: tape_set.State):
    ids = []
    diff = []
    traced = False  # whether a raw argument is a JAX tracer (the op runs inside a JAX transform of tapejax code)
    for i, a in enumerate(args):
        r = raw[i]
        concrete = type(r) is ArrayImpl  # (its aval's dtype is a C++ attribute: ``dtype`` is a slower property)
        if isinstance(a, Tensor) and is_float(r.aval.dtype if concrete else a._value.dtype):
            ids.append(a._id)
            diff.append(i)
        if not concrete and isinstance(r, jax.core.Tracer):
            traced = True
    tapes, accs = st.tapes, st.accumulators
    if len(tapes) == 1 and not accs:  # (record.recorders' common case, inline: ``apply`` saw no stop_recording)
        if not tapes[0].takes(ids):
            tapes = ()
    else:
        tapes, accs = record.recorders(ids, st)
    k = op._kernels.get(()) if not static else None  # (``kernels``' common case, inline: a frame less per op)
    if k is None:
        k = op.kernels(static)
    if not tapes and not accs:
        out = _wrap(k.forward(*raw))
        if st.tapes:  # tj.debug: a marker of the unrecorded op, for explain_gradient
            tape_set.debug_hooks.note_unrecorded(op, args, out)
        return out
    diff = tuple(diff)
    d = _diffs.get(diff)  # (one tuple per distinct value, not one per op kept on a tape)
    if d is None:
        if len(_diffs) >= 4096:
            _diffs.clear()
        d = _diffs[diff] = diff
    diff = d
    ids = tuple(ids)
    try:
        # Inside a tj.function trace the kernel is inlined, so residuals that are the op's own inputs or
        # outputs stay the same traced values (tj.differentiate references them instead of copying).
        if st.capture is None and not traced:
            plan = k._plans.get(diff)
            flat = None
            if type(plan) is _ResidualPlan:  # (run_forward_kept's common case, inline: a frame less per op)
                try:
                    flat = plan.kernel(*raw)
                except _PlanMismatch:  # (another signature's layout: run_forward_kept's way, a plan per signature)
                    pass
            if flat is None:
                out, res, plan = k.run_forward_kept(diff, raw)
            elif type(flat) is not tuple:  # (one output, no new residual)
                out, res = flat, (flat if plan.kept else None)
            else:
                out, res = plan.split(flat)
        else:
            out = k.traced(*raw)
            res, plan = None, _TracedResiduals(op.name, k, diff, out)
    except Exception as e:
        if linear_rule.is_deferred(e):  # (a custom gradient's grad_fn that fails: where a gradient is asked for)
            out, res, plan = k.forward(*raw), NoGradient(op.name, str(e), raising=e), None
        elif not is_no_gradient_error(e):
            raise
        else:
            # JAX cannot differentiate this function: run it, and fail only if a gradient is asked for.
            out, res, plan = k.forward(*raw), NoGradient.of(op.name, e), None
    if type(out) is ArrayImpl or not isinstance(out, (tuple, list)):
        result = Tensor(out)
        outs = (result,)
    else:
        result = outs = tuple(Tensor(o) for o in out)
    if tapes:
        # (the raw arguments, not the Tensors: an input Tensor may die while its op stays recorded; with an
        # accumulator the Tensors stay, as its tangents are kept only for live tensors)
        # One tape and a plan: the inputs the backward never reads go (their abstract values stay).
        kept = plan.trim(raw) if len(tapes) == 1 and not accs and type(plan) is _ResidualPlan and plan.trims \
            else raw
        rt = record_type(k, op, static, diff, out, plan)
        if tape_set.numerics_checks and st.debug_checking:  # tj.debug.check_numerics: where the user called this op
            bf = SitedOpBackward(rt, res, args if accs else kept, ids)
            bf.site = tape_set.debug_hooks.call_site()
        else:
            bf = OpBackward(rt, res, args if accs else kept, ids)
        if len(tapes) == 1 and outs is not result:  # (one tape, one new output)
            tapes[0].record_new(result, ids, bf)
        else:
            record.record_operation(tapes, op.name, outs, ids, bf)
    for acc in accs:
        acc.accumulate(op, static, args, raw, diff, outs, out)
    return result


_diffs: Dict[tuple, tuple] = {}  # positions of float Tensor arguments -> that tuple, shared (bounded)


def _of_trace(leaves, raw) -> bool:
    """Whether every traced value among ``leaves`` belongs to a trace of the arguments ``raw``, and none to a
    transform running inside it (tape.jacobian's vectorized backward, where a jax.custom_jvp's batching wraps even
    unbatched values as BatchTracers: kept past that transform, they raised UnexpectedTracerError)."""
    trace = lambda v: id(getattr(v, "_trace", type(v)))  # (JAX's tracer's trace; its type where it has none)
    traces = {trace(r) for r in raw if isinstance(r, jax.core.Tracer)}
    return all(trace(v) in traces for v in leaves if isinstance(v, jax.core.Tracer))


class _TracedResiduals:
    """The residuals of an op recorded inside a JAX trace (a tj.function, jax.grad of tj code), made when
    first asked for, in the same trace: a backward dispatched as an op (an outer tape recording it: higher
    order) computes its own, so nested traces do not linearize each inner call once more per level (the
    cost of nesting grew ~8x per level). The outputs come from the op's rule-carrying function
    (``k.traced``), so that a JAX transform of the trace uses tapejax's rules; residuals that are outputs
    are those same values (tj.differentiate references, not copies, them). Used as an OpBackward's plan."""

    __slots__ = ("name", "kernels", "diff", "out", "made")
    trims = False  # (every argument kept: the trace's own values)
    last_backward = (None, None, None, None)  # (_ResidualPlan's memo of its last kernel: none here, per op)

    def __init__(self, name: str, kernels: _Kernels, diff: tuple, out) -> None:
        self.name, self.kernels, self.diff, self.out, self.made = name, kernels, diff, out, None

    def residuals(self, raw, stored):
        if self.made is None:
            try:
                out_r, res = self.kernels.forward_res_impl(self.diff, tuple(raw))
            except Exception as e:
                if not is_no_gradient_error(e):
                    raise
                # JAX cannot differentiate this function: only asking for a gradient fails
                raise NoGradient.of(self.name, e).error() from e
            same = {id(a): b for a, b in zip(as_tuple(out_r), as_tuple(self.out))}
            made = (jax.tree_util.tree_map(lambda leaf: same.get(id(leaf), leaf), res),)
            if not _of_trace(jax.tree_util.tree_leaves(made), raw):
                return made[0]  # (values of a transform nested in the recording trace: not kept past it)
            self.made = made
        return self.made[0]

    def backward_kernel(self, spec, diff: tuple, needed: tuple, dropped: tuple = ()) -> Callable:
        backward = self.kernels.backward_impl
        return lambda args, stored, cts: backward(
            self.residuals([a._value if isinstance(a, Tensor) else a for a in args], stored), cts, spec, diff, needed)


class BackwardFunction(RecordedOp):
    """What the tape keeps for one recorded op, and its tape entry (tape.RecordedOp): the residuals and
    what is needed to differentiate again. Two kinds: ``OpBackward`` (an op that ran) and a deferred
    op's node (deferred/lazy.py). Each reads its op, static parameters, ``diff`` and ``spec`` from its
    ``type``, which all ops of its kind share (a RecordType, a node's OpType), and keeps only the fields
    of its own (an object per recorded op: its size is the tape's).

    The op's raw arguments (what the kernels got: arrays, or a deferred op's pending values) sit in the
    object's own slots (``a0``, ``a1``; ``more``: how many there are, -1 once let go, or past two the
    others as a tuple: no list per op of up to two arguments) so that, under an outer
    recording tape, the backward pass can be dispatched as an op of those inputs (for higher-order
    gradients, as TF's gradient functions reference op inputs); the recorded inputs are named by
    ``input_ids``, so their Tensor objects need not stay alive. The residuals are ``stored`` as the
    kernel gave them, or, with a residual ``plan`` (_ResidualPlan), only the arrays that are neither
    arguments nor constants (one array is kept as itself, no tuple): ``res`` rebuilds them."""

    __slots__ = ("stored", "a0", "a1", "more")
    node = None  # a deferred op whose residuals come when it runs (deferred/lazy.py's node: itself)
    plan = None

    # The tape entry's op name and output records (tape.RecordedOp), from what all ops of its kind share
    # (``type``: a RecordType, or a deferred op's OpType).
    op_type = property(operator.attrgetter("type.op.name"))
    out_infos = property(operator.attrgetter("type.infos"))

    # -- arguments ------------------------------------------------------------------------------------
    def set_args(self, args: Optional[Sequence[Any]]) -> None:
        """Keep ``args`` (None: let them go). Slots past the count stay unset: ``args`` never reads them."""
        if args is None:
            self.more = -1
            self.a0 = self.a1 = None
            return
        n = len(args)
        if n == 2:
            self.a0, self.a1 = args
            self.more = 2
        elif n == 1:
            self.a0 = args[0]
            self.more = 1
        elif n:
            self.a0, self.a1 = args[0], args[1]
            self.more = tuple(args[2:])
        else:
            self.more = 0

    def args(self) -> tuple:
        """The arguments as stored; () once let go."""
        m = self.more
        if m == 1:  # (a tuple compares unequal to an int)
            return (self.a0,)
        if m == 2:
            return (self.a0, self.a1)
        if type(m) is tuple:
            return (self.a0, self.a1) + m
        return ()

    @property
    def n_args(self) -> int:
        """How many arguments are kept; -1 once let go."""
        m = self.more
        return 2 + len(m) if type(m) is tuple else m

    @property
    def inputs(self) -> Optional[list]:
        """The arguments as the op got them; None once let go."""
        return list(self.args()) if self.more != -1 else None

    def raw_inputs(self) -> list:
        """The arguments' values, as the kernels take them."""
        return [a._value if isinstance(a, Tensor) else a for a in self.args()]

    # -- residuals ------------------------------------------------------------------------------------
    @property
    def res(self):
        plan = self.plan
        if plan is None:
            return self.stored
        return plan.residuals(self.raw_inputs(), self.stored)

    @res.setter
    def res(self, value) -> None:
        self.stored = value
        if self.plan is not None:
            self.plan = None

    def release(self) -> None:
        """The op's backward ran and nothing will call it again: let its residuals and arguments go."""
        if self.plan is not None:
            self.plan = None
        self.drop_held()

    def drop_held(self) -> None:
        """Let the residuals and arguments go (``res = None`` and ``set_args(None)``, inline: this runs per op of
        a backward pass)."""
        self.stored = None
        self.more = -1
        self.a0 = self.a1 = None

    def input_tensors(self) -> list:
        """The op's arguments for dispatching its backward as an op: Tensors (with the recorded ids, so
        that an outer tape knows them) at the recorded positions, raw values elsewhere."""
        args = list(self.inputs)
        for i, tid in zip(self.diff, self.input_ids):
            if not isinstance(args[i], Tensor):
                args[i] = Tensor.standing_for(tid, args[i])
        return args

    def _kept_tensors(self) -> tuple:
        """For ``residual_grad_op``: ``(arguments, dropped)``: the arguments kept (Tensors with the recorded
        ids at the recorded positions), then the stored residuals (a Tensor with the output's id where it
        is an output); ``dropped``: ``(position, abstract value)`` of those let go."""
        ids = dict(zip(self.diff, self.input_ids))
        args, dropped = [], []
        for i, a in enumerate(self.kernel_args()):
            if type(a) is ShapedArray:
                dropped.append((i, a))
            elif i in ids and not isinstance(a, Tensor):
                args.append(Tensor.standing_for(ids[i], a))
            else:
                args.append(a)
        plan, stored, out_ids = self.plan, self.stored, self.out_ids or ()
        leaves = [] if not plan.kept else ([stored] if len(plan.kept) == 1 else list(stored))
        for f, v in zip(plan.kept, leaves):
            args.append(Tensor.standing_for(out_ids[f], v) if f < len(out_ids) else v)
        return args, tuple(dropped)

    def connected_inputs(self, k: int, input_ids: Sequence[int]) -> Sequence[int]:
        """Of ``input_ids`` (one per recorded input), those output ``k`` depends on: all of them unless the
        op declares its ``connections``."""
        conn = self.op.connections
        if conn is None:
            return input_ids
        return [tid for tid, i in zip(input_ids, self.diff) if i in conn[k]]

    def residuals(self):
        """The residuals (a deferred op's node runs first: deferred/lazy.py)."""
        return self.res

    def run_if_pending(self) -> None:
        """Run the op if it is a deferred one that has not run (deferred/lazy.py): its stored residuals and
        arguments are then there, without building the residuals themselves (``res`` makes zeros for an
        argument let go, which the backward kernel makes inside its own program)."""

    # The arguments the backward kernel takes: as stored (a deferred node overrides it: their values).
    kernel_args = args

    def residual_tree(self):
        """``residuals()``, with each input recording let go (``dropped_inputs``) as its abstract value rather
        than zeros (a replayed program makes those zeros itself: no device array per op and step)."""
        if not self._let_go():
            return self.residuals()
        return self.plan.residuals(self.raw_inputs(), self.stored, stand_ins=False)

    def held_residuals(self):
        """``res`` as this function holds it: an input recording let go (``dropped_inputs``) is None there,
        where ``res`` has zeros of its shape (which the backward never reads)."""
        if not self._let_go():
            return self.res
        return self.plan.residuals([None if type(a) is ShapedArray else a for a in self.raw_inputs()], self.stored)

    def residual_bytes(self) -> int:
        if self.node is not None:
            return sum(vspace.nbytes(a) for a in self.node.type.avals)  # not run yet: about its outputs' size
        return sum(vspace.nbytes(x) for x in jax.tree_util.tree_leaves(self.held_residuals()) if hasattr(x, "shape"))

    def __call__(self, cts: list, needed_idx: Sequence[int], recording: bool) -> list:
        """cts: one cotangent (or None) per output. needed_idx: indices into the recorded inputs whose
        gradient is wanted. Returns one gradient (or None) per recorded input."""
        t = self.type  # (op, diff... through it once: properties of it on the function)
        if not recording and len(cts) == 1 and type(self) is OpBackward and t.epoch == _rules_epoch:
            # The strictly eager common case, inline (a backward pass runs it per op, and each call costs): one
            # cotangent of an op that ran (not a deferred node, whose arguments are its own), of one or two
            # arguments, recorded with a residual plan that let the first go and kept the second; every
            # recorded input wanted; its kernel the one its kind asked for last. The gradient is that kernel's,
            # or the cotangent itself for a pass-through argument of its shape and dtype (add's). Anything else
            # takes the general way below, which gives the same values.
            plan = t.plan
            c = cts[0]
            if type(plan) is _ResidualPlan and type(c) is ArrayImpl and not tape_set.numerics_checks \
                    and t.op.connections is None and len(needed_idx) == len(t.diff):
                a = self.a0
                m = self.more
                if type(a) is ShapedArray and not a.weak_type and \
                        (m == 1 or (m == 2 and type(self.a1) is not ShapedArray)):
                    if t.op.passthrough:
                        if t.diff == (0,) and c.aval is a and 0 in t.op.passthrough:
                            return [c]
                    else:
                        last = plan.last_backward
                        dropped = last[2]
                        if last[0] is t.spec and last[1] is t.diff and len(dropped) == 1 and dropped[0][1] is a \
                                and dropped[0][0] == 0:
                            return list(last[3]((None,) if m == 1 else (None, self.a1), self.stored, (c,)))
        diff = t.diff
        op = t.op
        conn = op.connections
        if conn is not None:
            live = frozenset().union(*(conn[k] for k, c in enumerate(cts) if c is not None))
            needed_idx = [j for j in needed_idx if diff[j] in live]
        if len(needed_idx) == len(diff):
            needed = diff  # the common case: every recorded input (the tape asks in order)
        else:
            needed = tuple(diff[j] for j in needed_idx)
        if not needed:
            return [None] * len(diff)
        if self.node is not None:
            self.run_if_pending()
        if isinstance(self.stored, NoGradient):
            raise self.stored.error()
        checking = tape_set.numerics_checks and tape_set.current().debug_checking
        if not recording:
            grads = None
            if op.passthrough and len(cts) == 1 and self.epoch == _rules_epoch:
                grads = self._passed_through(cts[0], needed, op.passthrough)
            if grads is None:
                grads = self._run_backward(cts, diff, needed)
            if checking:
                tape_set.debug_hooks.check_backward(self, cts, grads, needed)
            if needed is diff:
                return grads if type(grads) is list else list(grads)
        else:
            none_mask = tuple(c is None for c in cts)
            if self.dropped_inputs():
                args, dropped = self._kept_tensors()
                args += [c for c in cts if c is not None]
                g_op = op.residual_grad_op(t.static, self.plan, t.spec, diff, needed, none_mask, dropped, args)
            else:
                args = self.input_tensors() + [c for c in cts if c is not None]
                g_op = op.grad_op(t.static, t.spec, diff, needed, none_mask, args)
            present = g_op.gradients_present
            try:
                grads = apply(g_op, args, {}) if present is None or any(present) else ()
            except Exception as e:
                if not is_no_gradient_error(e):
                    raise
                raise NoGradient.of(op.name, e).error() from e
            if not isinstance(grads, tuple):
                grads = (grads,)
            if present is not None:  # (the gradients the backward gives as None, back in their places)
                given = iter(grads)
                grads = tuple(next(given) if p else None for p in present)
            if checking:
                tape_set.debug_hooks.check_backward(self, cts, grads, needed)
        result = [None] * len(diff)
        for j, g in zip(needed_idx, grads):
            result[j] = g
        return result

    def _run_backward(self, cts, diff: tuple, needed: tuple):
        """The backward kernel's gradients of the ``needed`` arguments from the cotangents ``cts``."""
        if len(cts) == 1:
            c = cts[0]
            raw_cts = (c if type(c) is ArrayImpl else c._value if isinstance(c, Tensor) else c,)
        else:
            raw_cts = tuple(c._value if isinstance(c, Tensor) else c for c in cts)
        t = self.type
        if self.epoch != _rules_epoch and self.more != -1:
            if t.op.changed_at > self.epoch:
                # A RegisterGradient of this op since it ran: its gradient is the rule of now (as TF looks
                # the gradient function up at backward time), on residuals that rule makes.
                k = t.op.kernels(t.static)
                self.res = k.forward_res(diff, tuple(self._all_raw_inputs()))[1]
            self.epoch = _rules_epoch
        plan = self.plan
        if plan is not None:  # (the arguments may be Tensors: pytrees of their values)
            args = self.kernel_args()
            dropped = ()
            if plan.trims:
                # The arguments let go (their abstract values) go to the kernel as None, the values in its key
                # (one loop, no comprehension: each is a function call, and this runs per op)
                n = len(args)
                if n == 1:  # (one or two arguments, the common cases: no loop, no list)
                    a = args[0]
                    if type(a) is ShapedArray:
                        args, dropped = (None,), ((0, a),)
                elif n == 2:
                    a, b = args
                    if type(a) is ShapedArray:
                        if type(b) is ShapedArray:
                            args, dropped = (None, None), ((0, a), (1, b))
                        else:
                            args, dropped = (None, b), ((0, a),)
                    elif type(b) is ShapedArray:
                        args, dropped = (a, None), ((1, b),)
                else:
                    for i, a in enumerate(args):
                        if type(a) is ShapedArray:
                            if not dropped:
                                dropped, args = [], list(args)
                            dropped.append((i, a))
                            args[i] = None
                    if dropped:
                        dropped, args = tuple(dropped), tuple(args)
            spec = t.spec
            last = plan.last_backward  # (backward_kernel's first test, inline: a call less per op)
            if last[0] is spec and last[1] is needed and last[2] == dropped:
                return last[3](args, self.stored, raw_cts)
            return plan.backward_kernel(spec, diff, needed, dropped)(args, self.stored, raw_cts)
        return t.op.kernels(t.static).backward(self.res, raw_cts, t.spec, diff, needed)

    def dropped_inputs(self) -> bool:
        """Whether the backward takes an argument it does not read as its abstract value only
        (``_ResidualPlan.trim``): then an outer tape records it as a function of the arguments it reads and
        the op's outputs (``residual_grad_op``), on every path."""
        plan = self.plan
        return plan is not None and plan.trims and any(type(a) is ShapedArray for a in self.kernel_args())

    def _let_go(self) -> bool:
        """Whether recording let go of an argument (it holds its abstract value instead)."""
        return self.plan is not None and self.plan.trims and any(type(a) is ShapedArray for a in self.args())

    def _all_raw_inputs(self) -> list:
        """``raw_inputs()``; a clear error where recording let one go."""
        if self._let_go():
            raise ValueError(
                f"tj.RegisterGradient replaced the gradient of '{self.op.name}' after the op was recorded, and "
                f"the tape had let go of the inputs the old rule does not read ({self.op.name} recorded by one "
                f"tape keeps only what its gradient reads, as TF): register the gradient before recording the "
                f"op, or record it again.")
        return self.raw_inputs()

    def _passed_through(self, ct, needed: tuple, passthrough: frozenset) -> Optional[list]:
        """The cotangent as the gradient of each of the ``needed`` arguments when each is a pass-through
        argument of the op (``OpDef.passthrough``) with the cotangent's shape and dtype: the backward kernel
        would return that same value (add's ``1 * g``, already of the argument's shape and dtype); else None."""
        g = ct._value if type(ct) is Tensor else ct
        if type(g) is not ArrayImpl or self.more == -1:  # (arguments let go: nothing to compare with)
            return None
        av = g.aval  # (a C++ attribute: ``shape`` and ``dtype`` are slower Python properties)
        if av.weak_type:
            return None
        args = self.args()
        shape, dtype = av.shape, av.dtype
        for i in needed:
            a = args[i]
            if type(a) is Tensor:
                a = a._value
            if i not in passthrough:
                return None
            if type(a) is ArrayImpl:
                a = a.aval
            elif type(a) is not ShapedArray:  # (an argument recording let go: its abstract value)
                return None
            if a.shape != shape or a.dtype != dtype:
                return None
        return [g] * len(needed)


class RecordType:
    """What the recorded ops of one kind share, held once for all of them rather than in fields of each
    (a recorded op's size is the tape's): the op and its static parameters, ``diff``, the outputs'
    ``spec`` (the backward kernel's) and ``infos`` (the tape's: (shape, dtype, sharding) per output; None
    for a backward function no tape records), the residual ``plan`` and the rules ``epoch`` the residuals
    were made for. A recorded op that lets its plan go, or moves to another epoch, switches to a variant
    (``without_plan``, ``at_epoch``)."""

    __slots__ = ("op", "static", "diff", "spec", "infos", "plan", "epoch", "_planless")

    def __init__(self, op: OpDef, static: dict, diff: tuple, spec, infos: Optional[tuple], plan, epoch: int) -> None:
        self.op, self.static, self.diff, self.spec, self.infos = op, static, diff, spec, infos
        self.plan, self.epoch = plan, epoch
        self._planless = None  # (not ``self`` for a plan-less type: a reference cycle, freed only by the collector)

    def without_plan(self) -> "RecordType":
        """This type with no residual plan (made once: every op of this type releasing its residuals asks)."""
        if self.plan is None:
            return self
        t = self._planless
        if t is None:
            t = self._planless = RecordType(self.op, self.static, self.diff, self.spec, self.infos, None, self.epoch)
        return t

    def at_epoch(self, epoch: int) -> "RecordType":
        """This type for residuals made under the rules of ``epoch`` (after a tj.RegisterGradient: rare)."""
        return RecordType(self.op, self.static, self.diff, self.spec, self.infos, self.plan, epoch)


_RECORD_TYPES_MAX = 256  # record types per op and static parameters


def record_type(k: "_Kernels", op: OpDef, static: dict, diff: tuple, out, plan) -> RecordType:
    """The shared RecordType of an op that ran with kernels ``k`` (for ``op`` and ``static``), ``diff``, the
    outputs ``out`` (the kernel's result: an array, or a sequence of them) and residual ``plan``: one per
    kind, cached on the kernels (a plan made for one op, as a traced op's, gets its own type)."""
    types = k.record_types
    infos = None
    if type(out) is ArrayImpl and not out._committed:
        # (one array placed by default, the common case: keyed by its abstract value, a C++ attribute, and
        # the outputs' infos made only for a new type)
        key = (diff, out.aval, plan)
        multi = False
    else:
        multi = isinstance(out, (tuple, list))
        infos = tuple([output_infos(o)[0] for o in out]) if multi else output_infos(out)
        key = (diff, infos, plan, True) if multi else (diff, infos, plan)
    t = types.get(key)
    if t is not None and t.epoch == _rules_epoch:
        return t
    if infos is None:
        infos = output_infos(out)
    t = RecordType(op, static, diff, (multi, tuple((i[0], i[1], is_float(i[1])) for i in infos)), infos, plan,
                   _rules_epoch)
    if type(plan) is not _TracedResiduals:
        if len(types) >= _RECORD_TYPES_MAX:
            types.clear()
        types[key] = t
    return t


class OpBackward(BackwardFunction):
    """The backward function of an op that ran (eagerly, or traced into a tj.function's graph). Its op,
    static parameters, ``diff``, ``spec``, residual ``plan`` and rules ``epoch`` are its RecordType's."""

    __slots__ = ("type",)
    site = None  # where the user called the op (SitedOpBackward: tj.debug.check_numerics)

    def __init__(self, type_: RecordType, res, inputs, input_ids: tuple = ()) -> None:
        self.type = type_
        self.stored = res
        n = len(inputs) if inputs is not None else -1
        if n == 1:  # (set_args' common cases, inline: this runs per recorded op)
            self.a0 = inputs[0]
            self.more = 1
        elif n == 2:
            self.a0, self.a1 = inputs
            self.more = 2
        else:
            self.set_args(inputs)
        self.outs = None  # (set by the tape recording it first: tape.RecordedOp)
        self.ins = input_ids  # (the ids as given: the tape recording it keeps them compacted)

    @classmethod
    def unrecorded(cls, op: OpDef, static: dict, res, inputs, diff: tuple, spec) -> "OpBackward":
        """The backward function of ``op`` with residuals ``res``, to be called directly (no tape records it)."""
        return cls(RecordType(op, static, diff, spec, None, None, _rules_epoch), res, inputs)

    # (getters in C, operator.attrgetter: the backward pass reads them per op, and a Python getter's frame
    # costs twice as much)
    op = property(operator.attrgetter("type.op"))
    static = property(operator.attrgetter("type.static"))
    diff = property(operator.attrgetter("type.diff"))
    spec = property(operator.attrgetter("type.spec"))

    def _set_plan(self, value) -> None:
        if value is not None:
            raise ValueError("tapejax internal error: an OpBackward's residual plan is its RecordType's")
        self.type = self.type.without_plan()

    def _set_epoch(self, value: int) -> None:
        self.type = self.type.at_epoch(value)

    plan = property(operator.attrgetter("type.plan"), _set_plan)
    epoch = property(operator.attrgetter("type.epoch"), _set_epoch)

    def release(self) -> None:
        t = self.type  # (its plan is its type's: switched here, not through the plan property's get and set)
        if t.plan is not None:
            self.type = t._planless or t.without_plan()
        # (drop_held, inline: this runs per op of a backward pass)
        self.stored = None
        self.more = -1
        self.a0 = self.a1 = None

    def _set_backward(self, value) -> None:
        # (RecordedOp's setter with release inline: the sweep sets it to None for each op it runs, one frame)
        if value is None and not self.shared:
            t = self.type
            if t.plan is not None:
                self.type = t._planless or t.without_plan()
            self.stored = None
            self.more = -1
            self.a0 = self.a1 = None

    backward = property(RecordedOp.backward.fget, _set_backward)


class SitedOpBackward(OpBackward):
    """An OpBackward that knows where the user called its op (recorded under tj.debug.check_numerics)."""

    __slots__ = ("site",)


def is_no_gradient_error(e: Exception) -> bool:
    msg = str(e)
    return "differentiation does not work" in msg or "not differentiable" in msg.lower() or \
        "can't apply forward-mode" in msg.lower() or "Differentiation rule for" in msg


class NotImplementedGradientError(LookupError, NotImplementedError):
    """No gradient for an op whose derivative rule raised NotImplementedError: TF's gradient functions raise
    NotImplementedError for the cases they leave out (QrGrad, SvdGrad), so this is one, and a LookupError, as
    every missing gradient in tapejax."""


class NoGradient:
    """Residual stand-in for an op JAX cannot differentiate: asking for its gradient raises LookupError."""

    def __init__(self, name: str, why: str, not_implemented: bool = False,
                 raising: Optional[Exception] = None) -> None:
        self.name, self.why, self.not_implemented = name, why, not_implemented
        self.raising = raising  # the error to raise as it is (a custom gradient's grad_fn's), if any

    @classmethod
    def of(cls, name: str, e: Exception) -> "NoGradient":
        """The stand-in for op ``name`` from the error JAX raised differentiating it (``is_no_gradient_error``)."""
        return cls(name, str(e).splitlines()[0], isinstance(e, NotImplementedError))

    def error(self) -> Exception:
        if self.raising is not None:
            return self.raising
        cls = NotImplementedGradientError if self.not_implemented else LookupError
        return cls(f"No gradient defined for op '{self.name}' ({self.why}). Wrap the computation in "
                   "tj.stop_gradient, or give the op a gradient with tj.op(..., vjp=...) / tj.RegisterGradient.")


class IdentityBackward:
    """Backward function of ops whose gradient is the incoming gradient (variable reads, pass-through)."""

    __slots__ = ()
    diff = (0,)

    def residual_bytes(self) -> int:
        return 0

    def __call__(self, cts, needed_idx, recording):
        return [cts[0]]


IDENTITY_BACKWARD = IdentityBackward()


def record_variable_read(var: Variable, t: Tensor) -> None:
    """Record ``t = read(var)`` against the variable's handle id on the active tapes/accumulators."""
    st = tape_set.current()
    tapes = st.tapes
    if len(tapes) == 1 and not st.accumulators:  # (the common case, one tape: it decides alone)
        tapes[0].read_variable(var, t, IDENTITY_BACKWARD)
        return
    record.watch_read_variables((var,))  # as TF, also a non-float variable (listed, its gradient None)
    if not is_float(t._value.dtype):
        return
    handle = var._handle_id
    tapes, accs = record.recorders((handle,))
    for tape in tapes:
        tape.record_read(handle, t, IDENTITY_BACKWARD)
    for acc in accs:
        acc.record_identity(handle, t)


def record_identity(name: str, src: Tensor, dst: Tensor, skip: Sequence = ()) -> None:
    """Record ``dst = src`` (gradient and tangent pass straight through) on every tape and accumulator
    that takes it, except those in ``skip`` (recorders that record another op producing ``dst``)."""
    if not is_float(src._value.dtype):
        return
    tapes, accs = record.recorders((src._id,))
    if skip:
        tapes = [t for t in tapes if not any(t is s for s in skip)]
        accs = [a for a in accs if not any(a is s for s in skip)]
    record.record_operation(tapes, name, (dst,), [src._id], IDENTITY_BACKWARD)
    for acc in accs:
        acc.record_identity(src._id, dst)


def record_variable_accessed(var: Variable) -> None:
    """``var`` was accessed without a read (an assignment returning it): the tapes that watch accessed
    variables watch it, as TF's ``variable_accessed``."""
    record.watch_read_variables((var,))


tape_set.record_hooks.variable_read = record_variable_read  # Variable.read_value records through this
tape_set.record_hooks.variable_accessed = record_variable_accessed  # and Variable.assign* through this
