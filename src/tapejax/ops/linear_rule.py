"""How a tapejax derivative rule travels into JAX's own transforms (jax.grad, jax.jvp, jax.vmap, jax.jit).

Terminology: a *linear rule* is a pair of pure JAX functions of ``(residuals, linear arguments)``, linear in
the second argument: ``forward(res, tangents) -> output tangents`` (the JVP) and
``transpose(res, cotangents) -> input cotangents`` (the VJP in JAX's sense: the true linear transpose).

A tapejax op or custom gradient, when it runs on traced values, returns its outputs through
``jax.custom_jvp``, whose tangent is one ``linear_call`` primitive of the rule. JAX then:

1. forward mode: evaluates ``forward`` (the op's JVP kernel);
2. reverse mode: transposes the primitive, which calls ``transpose`` (the op's backward kernel), so
   tapejax's conventions, custom gradients and ``RegisterGradient`` overrides hold under ``jax.grad``;
3. higher orders: differentiates the primitive with respect to its residuals with ``jax.jvp`` of the
   rule's functions (plain JAX code), exactly as eager tapejax derives a backward op's derivatives;
4. ``jax.vmap``: batches the rule by vmapping its functions.

(JAX's own ``linear_call`` does 1 and 2 but neither 3 nor 4, hence this primitive.)
"""
from __future__ import annotations

from typing import Callable, Dict, Optional, Sequence, Tuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend.core import Literal, Primitive
from jax.custom_derivatives import SymbolicZero
from jax.interpreters import ad, batching, mlir

from . import dependence


def used_inputs(closed_jaxpr) -> list:
    """Which inputs of a jaxpr its live part reads (backward liveness from the outputs; effects live)."""
    jaxpr = closed_jaxpr.jaxpr
    live = {v for v in jaxpr.outvars if not isinstance(v, Literal)}
    for eqn in reversed(jaxpr.eqns):
        if any(o in live for o in eqn.outvars) or eqn.effects:
            live.update(v for v in eqn.invars if not isinstance(v, Literal))
    return [v in live for v in jaxpr.invars]


class LinearRule:
    """``forward``/``transpose`` of one op on one abstract signature (hashable by identity).

    ``lin_avals`` are the abstract values of the linear arguments of ``forward`` (the tangents), and
    ``out_avals`` those of its results (the output tangents), which are ``transpose``'s linear arguments.
    """

    def __init__(self, forward: Callable, transpose: Callable, lin_avals: Sequence, out_avals: Sequence,
                 zero_cts: frozenset = frozenset(), linear: bool = True) -> None:
        self.forward, self.transpose = forward, transpose
        # Whether ``transpose`` is known to be linear in its cotangents (tapejax's own backward kernels). A user's
        # backward (a custom_gradient's grad_fn, tj.op's vjp, a RegisterGradient function) may give a constant,
        # as TF allows (a grad_fn returning 0.5): a result it computes from no cotangent is then that constant.
        self.linear = linear
        self.lin_avals, self.out_avals = tuple(lin_avals), tuple(out_avals)
        # Positions of ``transpose``'s results that are always zero (a backward function's None): JAX gets
        # them as symbolic zeros, so nothing upstream of those inputs runs for them, as a tape skips an
        # unconnected input (a backward run on zeros can make NaN of 0 * inf where the tape gives 0).
        self.zero_cts = zero_cts
        self._batched: Dict[tuple, "LinearRule"] = {}
        # What other modules derive from the rule's code, kept as long as the rule (ops/dependence.py's paths)
        self.analyses: Dict[tuple, object] = {}

    def fn(self, transposed: bool) -> Callable:
        return self.transpose if transposed else self.forward

    def result_avals(self, transposed: bool) -> tuple:
        return self.lin_avals if transposed else self.out_avals

    def batched(self, res_axes: Tuple, size: int) -> "LinearRule":
        """The rule vmapped over a leading axis of every linear argument and the residuals at ``res_axes``."""
        key = (res_axes, size)
        b = self._batched.get(key)
        if b is None:
            def vm(f):
                return jax.vmap(lambda res, lin: tuple(f(res, lin)), in_axes=(list(res_axes), 0))
            add = lambda avs: tuple(jax.core.ShapedArray((size,) + tuple(a.shape), a.dtype, weak_type=a.weak_type)
                                    for a in avs)
            b = self._batched[key] = LinearRule(vm(self.forward), vm(self.transpose),
                                                add(self.lin_avals), add(self.out_avals), self.zero_cts, self.linear)
        return b


def _call(rule: LinearRule, transposed: bool, n_res: int, args) -> list:
    res, lin = list(args[:n_res]), list(args[n_res:])
    return list(rule.fn(transposed)(res, lin))


linear_rule_p = Primitive("tj_linear_rule")
linear_rule_p.multiple_results = True


def bind(rule: LinearRule, res: Sequence, lin: Sequence, transposed: bool = False) -> list:
    """Apply ``rule.forward`` (or ``rule.transpose``) to ``(res, lin)`` as one primitive JAX can transform."""
    return linear_rule_p.bind(*res, *lin, rule=rule, transposed=transposed, n_res=len(res))


def _impl(*args, rule, transposed, n_res):
    return jax.jit(_call, static_argnums=(0, 1, 2))(rule, transposed, n_res, args)


def _abstract_eval(*args, rule, transposed, n_res):
    return list(rule.result_avals(transposed))


def _zeros(aval):
    return jnp.zeros(aval.shape, aval.dtype)


def zeros_for_none(fn: Callable, avals: Sequence) -> tuple:
    """``(dense, no_gradient)``: ``fn`` (a backward or transpose giving one gradient per ``avals``, None where
    there is none) as a function giving zeros of ``avals`` there, and the set of those positions, which each
    trace of ``dense`` fills (tracing it once, as a rule's code is, makes it complete): what a LinearRule takes
    as its ``zero_cts``."""
    no_gradient = set()

    def dense(*args):
        gs = list(fn(*args))
        no_gradient.update(k for k, g in enumerate(gs) if g is None)
        return [_zeros(a) if g is None else g for g, a in zip(gs, avals)]
    return dense, no_gradient


def _jvp(primals, tangents, *, rule, transposed, n_res):
    res, lin = primals[:n_res], primals[n_res:]
    t_res, t_lin = tangents[:n_res], tangents[n_res:]
    out = bind(rule, res, lin, transposed)
    lin_avals = rule.result_avals(not transposed)
    if all(type(t) is ad.Zero for t in t_lin):
        t_out = None
    else:  # linear in ``lin``: the same rule applied to the tangents
        t_lin = [_zeros(a) if type(t) is ad.Zero else t for t, a in zip(t_lin, lin_avals)]
        t_out = bind(rule, res, t_lin, transposed)
    if any(type(t) is not ad.Zero for t in t_res):
        # Through the residuals: plain JAX differentiation of the rule's own code.
        f = rule.fn(transposed)
        t_res = [(jnp.zeros(jnp.shape(r), jnp.result_type(r)) if _inexact(r)
                  else np.zeros(jnp.shape(r), jax.dtypes.float0)) if type(t) is ad.Zero else t
                 for t, r in zip(t_res, res)]
        _, t_more = jax.jvp(lambda *r: tuple(f(list(r), list(lin))), tuple(res), tuple(t_res))
        t_out = list(t_more) if t_out is None else [a + b for a, b in zip(t_out, t_more)]
    if t_out is None:
        t_out = [ad.Zero(jax.core.ShapedArray(a.shape, a.dtype)) for a in rule.result_avals(transposed)]
    return out, t_out


def _inexact(x) -> bool:
    return jnp.issubdtype(jnp.result_type(x), jnp.inexact)


def _transpose(cts, *args, rule, transposed, n_res):
    res, lin = args[:n_res], args[n_res:]
    if any(ad.is_undefined_primal(r) for r in res):
        raise NotImplementedError("tapejax linear rule: transposing with respect to a residual (the rule is "
                                  "linear only in its tangents).")
    out_avals = rule.result_avals(not transposed)
    given = [type(c) is not ad.Zero for c in cts]  # (the others are JAX's symbolic zeros)
    if not any(given):  # (linear: no cotangent, none out; nothing upstream runs on zeros)
        return [None] * n_res + [ad.Zero(jax.core.ShapedArray(a.shape, a.dtype)) for a in out_avals]
    cts = [_zeros(a) if type(c) is ad.Zero else c for c, a in zip(cts, rule.result_avals(transposed))]
    lin_cts = bind(rule, res, cts, not transposed)
    if rule.zero_cts and not transposed:
        lin_cts = [ad.Zero(a) if k in rule.zero_cts else c for k, (c, a) in enumerate(zip(lin_cts, rule.lin_avals))]
    return [None] * n_res + _zeros_as_symbolic(rule, not transposed, res, cts, lin_cts, out_avals, given)


def _zeros_as_symbolic(rule: LinearRule, transposed: bool, res, cts, results, avals, given: Sequence[bool]) -> list:
    """``results`` of ``rule.fn(transposed)`` on ``(res, cts)``, with a symbolic zero for each one its code
    computes from no cotangent that JAX gave (``given``: the others came as symbolic zeros, made dense only to
    run the code; the rule is linear in them: such a result is zero). Nothing upstream then runs on it, as a
    tape skips an input no gradient reaches; a dense zero would connect, at second order, whatever the upstream
    transposes read (zeros where the tape gives None; tf_function_differential seed 12872: the gradient an
    inner tape took in a tj.function, through an op's unused second output). Where the rule's code cannot be
    traced apart (a recompute_grad's, inside JAX's own transposition), or is a user's, not known to be linear (a
    grad_fn returning the constant 0.5: tf_custom_gradient_differential seed 9769), ``results`` as they are."""
    if not rule.linear:
        return list(results)
    shapes = tuple(struct_of(x) for x in (*res, *cts))
    try:
        paths = dependence.rule_paths(rule, transposed, len(res), shapes)
    except (AssertionError, NotImplementedError, TypeError, ValueError):
        return list(results)
    linear = frozenset(len(res) + k for k, g in enumerate(given) if g)
    return [r if type(r) is ad.Zero or paths[k] & linear else ad.Zero(jax.core.ShapedArray(a.shape, a.dtype))
            for k, (r, a) in enumerate(zip(results, avals))]


def _batch(args, dims, *, rule, transposed, n_res):
    size = next(a.shape[d] for a, d in zip(args, dims) if d is not None)
    res, lin = list(args[:n_res]), list(args[n_res:])
    res_dims = dims[:n_res]
    res = [r if d is None else jnp.moveaxis(r, d, 0) for r, d in zip(res, res_dims)]
    res_axes = tuple(None if d is None else 0 for d in res_dims)
    # Every linear argument batched on axis 0, so that the batched rule stays its own transpose.
    lin = [jnp.broadcast_to(x, (size,) + jnp.shape(x)) if d is None else jnp.moveaxis(x, d, 0)
           for x, d in zip(lin, dims[n_res:])]
    out = bind(rule.batched(res_axes, size), res, lin, transposed)
    return out, [0] * len(out)


linear_rule_p.def_impl(_impl)
linear_rule_p.def_abstract_eval(_abstract_eval)
ad.primitive_jvps[linear_rule_p] = _jvp
ad.primitive_transposes[linear_rule_p] = _transpose
batching.primitive_batchers[linear_rule_p] = _batch
mlir.register_lowering(linear_rule_p, mlir.lower_fun(
    lambda *args, rule, transposed, n_res: _call(rule, transposed, n_res, args), multiple_results=True))


# -- outputs whose derivative is a given backward function (custom_gradient under a JAX trace) ---------

def _pass_ys(rule: LinearRule, n_x: int, n_y: int, *args):
    return list(args[n_x:n_x + n_y])


_attached = jax.custom_jvp(_pass_ys, nondiff_argnums=(0, 1, 2))


def _attached_jvp(rule, n_x, n_y, primals, tangents):
    ys = primals[n_x:n_x + n_y]
    consts = primals[n_x + n_y:]
    # The primal outputs carry the rule again: an outer derivative (jax.grad of jax.grad) of the ys that the
    # inner derivative uses must also be the rule's, not JAX's derivative of the code that computed them
    # (grad_pass_through(round): 1, not 0), as an outer tape takes the custom op again.
    out = _attached(rule, n_x, n_y, *primals)
    t_xs, t_ys = tangents[:n_x], tangents[n_x:n_x + n_y]
    if all(isinstance(t, SymbolicZero) for t in t_xs):
        # No input is being differentiated: like a tape that does not take the custom op (TF eager), the
        # derivative sees through to the code that computed ys (what they close over).
        return out, [_zeros(y) if isinstance(t, SymbolicZero) else t for t, y in zip(t_ys, _avals(ys))]
    # Otherwise the tangents JAX derived for ys are dropped: the rule decides.
    t_xs = [_zeros(a) if isinstance(t, SymbolicZero) else t for t, a in zip(t_xs, rule.lin_avals)]
    return out, bind(rule, consts, t_xs)


def struct_of(x) -> jax.ShapeDtypeStruct:
    """``x``'s shape and dtype, and its weak type: a trace on the result promotes as one on ``x`` (a weakly typed
    value promotes as a Python number; under x64 a Python 0.0 is a weak float64, and ``where(c, x32, 0.0)`` is
    float32: a strong float64 in its place makes it float64)."""
    weak = getattr(x, "weak_type", None)  # (a jax array's or tracer's own; a Python int, float or complex is weak)
    return jax.ShapeDtypeStruct(jnp.shape(x), jnp.result_type(x),
                                weak_type=bool(weak) if weak is not None else type(x) in (int, float, complex))


def zeros_of(s: jax.ShapeDtypeStruct) -> jax.Array:
    """Zeros of ``s``'s shape and dtype, weakly typed where ``s`` is (standing for a weak value, they promote as it
    does)."""
    if s.weak_type:
        z = jax.lax.full(s.shape, np.dtype(s.dtype).type(0).item())  # (a Python number's: weak, its kind's dtype)
        if z.dtype == s.dtype:
            return z
    return jnp.zeros(s.shape, s.dtype)


def _avals(ys) -> list:
    return [jax.core.ShapedArray(jnp.shape(y), jnp.result_type(y)) for y in ys]


_attached.defjvp(_attached_jvp, symbolic_zeros=True)


class _Deferred:
    """An error of a backward function, raised when JAX asks for the derivative it could not give."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        error.tapejax_deferred_backward = True  # (see is_deferred)


def is_deferred(e: BaseException) -> bool:
    """Whether ``e`` is a backward function's error that attach_backward deferred: raised where JAX took a
    derivative, as when an op's residuals are made for a tape, which should raise it only where a gradient
    is asked for (TF runs a grad_fn only then)."""
    return getattr(e, "tapejax_deferred_backward", False) is True


def _pass_all(deferred: _Deferred, n_y: int, *xs_ys):
    return list(xs_ys[len(xs_ys) - n_y:])  # (the xs go in so that a tangent of any of them reaches the rule)


_failing = jax.custom_jvp(_pass_all, nondiff_argnums=(0, 1))


def _deferring(err: Exception, xs: Sequence, ys: Sequence) -> tuple:
    """attach_backward's result for a backward that cannot be used: ``ys`` whose derivative with respect to
    ``xs`` (or to what ``ys`` were computed from) raises ``err``, also where ``ys`` do not depend on ``xs`` (a
    custom gradient of an output computed from constants)."""
    def failed(res, cts):
        raise err
    return _failing(_Deferred(err), len(ys), *xs, *ys), (failed, []), frozenset()


@_failing.defjvp
def _failing_jvp(deferred, n_y, primals, tangents):
    raise deferred.error


def attach_backward(xs: Sequence, ys: Sequence, backward: Callable, guard: Optional[Callable] = None,
                    name: str = "backward function") -> tuple:
    """``ys`` (computed from ``xs`` by code JAX may see) as values whose derivative with respect to ``xs``
    is ``backward(*cotangents of ys) -> cotangents of xs`` (JAX's convention; None for an x that gets no
    gradient, a symbolic zero for JAX), and whose tangent is its transpose. ``backward`` is traced once, now:
    what it closes over (values of the current trace) becomes explicit residuals, so the rule stays valid when
    JAX transposes it later, in another trace.

    Returns ``(new ys, (transpose, residuals), no_gradient)``: ``transpose(residuals, cts)`` is ``backward`` as
    a pure function of those residuals, zeros for its None (tj.differentiate puts it in its backward program);
    ``no_gradient`` the positions of the xs it gives None. ``guard()``, if given, runs whenever the rule is
    used (reverse or forward mode) and may raise: the rule is no longer valid. A ``backward`` that fails, or
    gives a gradient of another shape or dtype than its x (which a tape takes as it is, as TF eagerly), raises
    only where JAX takes a derivative (``name`` says whose, in the message)."""
    aval = lambda x: jax.core.ShapedArray(jnp.shape(x), jnp.result_type(x))
    y_avals = [aval(y) for y in ys]
    x_avals = [aval(x) for x in xs]
    dense, no_gradient = zeros_for_none(backward, x_avals)  # (filled by the one trace of backward, below)
    try:
        closed = jax.make_jaxpr(dense)(
            *[jax.ShapeDtypeStruct(a.shape, a.dtype) for a in y_avals])
    except Exception as err:  # noqa: BLE001 - any error of the user's backward code
        # As TF, a backward function only runs when a gradient needs it: one that cannot be traced (say a
        # grad_fn that raises) leaves the forward usable, and its error is raised where a derivative is taken.
        return _deferring(err, xs, ys)
    for k, (got, want) in enumerate(zip(closed.out_avals, x_avals)):
        if (got.shape, got.dtype) != (want.shape, want.dtype):
            return _deferring(ValueError(
                f"{name} returned a gradient of shape {tuple(got.shape)} and dtype {got.dtype} for its input {k} "
                f"of shape {tuple(want.shape)} and dtype {want.dtype}. Differentiated by JAX (an outer tape or "
                "accumulator over a tj.function call, jax.grad of tj code), a gradient must have its input's shape "
                "and dtype, as in TF's tf.function: return it in that shape (e.g. broadcast it)."), xs, ys)
    jaxpr = closed.jaxpr
    consts = list(closed.consts)

    def transpose(res, cts):
        if guard is not None:
            guard()
        return jax.core.eval_jaxpr(jaxpr, list(res), *cts)

    def forward(res, tangents):
        try:
            (cts,) = jax.linear_transpose(lambda c: transpose(res, c), [jax.ShapeDtypeStruct(a.shape, a.dtype)
                                                                            for a in y_avals])(list(tangents))
        except Exception as err:
            # A ``backward`` with a ``no_forward_mode`` message (tj.recompute_grad: its re-run sits behind an
            # optimization barrier, which JAX cannot transpose) refuses forward mode as TF does. Only where the
            # transposition fails: JAX runs this rule in reverse mode too (second order), where it works.
            no_forward = getattr(backward, "no_forward_mode", None)
            if no_forward is not None:
                raise NotImplementedError(no_forward) from err
            raise
        return list(cts)
    no_gradient = frozenset(no_gradient)
    rule = LinearRule(forward, transpose, x_avals, y_avals, no_gradient, linear=False)
    return _attached(rule, len(xs), len(ys), *xs, *ys, *consts), (transpose, consts), no_gradient
