"""Which outputs of a JAX function depend, differentiably, on which of its inputs.

TF gives ``None`` for a derivative with no differentiable path: a backward op built from TF's small ops
connects an input gradient only to the tensors its formula reads through differentiable ops. A tapejax
backward kernel is one function of all the forward op's inputs and the cotangents, so, dispatched as
an op of its own (``OpDef.grad_op``, when an outer tape or accumulator records a backward pass), it
would connect every gradient it returns to every input: the second derivative of ``3 * x`` would be
zeros where TF says ``None``. This module reads the kernel's jaxpr to find the real paths, which the op
then declares as its ``connections``.

No path, as TF: through a shape (static in a jaxpr), an integer or boolean value (comparisons, argmax,
casts to int, ``select_n``'s predicate, ``cond``'s branch index), ``floor``/``ceil``/``round`` (TF: no
gradient) and ``stop_gradient``. ``sign`` keeps its path (TF's gradient of Sign is zeros, not None).
"""
from __future__ import annotations

from typing import Callable, List, Optional, Sequence

import jax
import jax.numpy as jnp
from jax.extend.core import Literal

# float results with no gradient at all
_NO_DERIVATIVE = frozenset({"floor", "ceil", "round", "stop_gradient"})
# calls whose inner jaxpr takes the call's operands one for one (loops do not; a conditional's branches take its
# operands after the branch index)
_CALLS = frozenset({"pjit", "jit", "closed_call", "core_call", "custom_jvp_call", "custom_vjp_call",
                    "custom_vjp_call_jaxpr", "remat", "checkpoint"})
_NONE = frozenset()


def connections(fn: Callable, avals: Sequence[jax.ShapeDtypeStruct]) -> Optional[tuple]:
    """For each output of ``fn(*inputs)`` (flattened), the positions of the inputs it depends on
    differentiably, as frozensets; None (every output on every input) when that cannot be found.

    Paths are structure, not sizes (TF's None for an unconnected empty tensor as for any other), but JAX folds
    some ops on empty arrays away (jnp.where returns a branch), so an empty input's paths are read off the same
    function on stand-ins of size 2 in its empty dimensions (tools/tf_second_order.py's empty cases, where the
    gradient of -x's gradient was an empty array and TF's is None); off the function at the real sizes where it
    does not trace on the stand-ins (a shape written into it: reshape's gradient); None where neither traces."""
    if any(0 in a.shape for a in avals):
        stand_ins = [jax.ShapeDtypeStruct(tuple(2 if d == 0 else d for d in a.shape), a.dtype) if 0 in a.shape
                     else a for a in avals]
        for tried in (stand_ins, avals):
            try:
                closed = jax.make_jaxpr(fn)(*tried)
            except Exception:
                continue
            avals = tried
            break
        else:
            return None
    else:
        closed = jax.make_jaxpr(fn)(*avals)
    return tuple(_flow(closed.jaxpr, [frozenset((i,)) if jnp.issubdtype(a.dtype, jnp.inexact) else _NONE
                                      for i, a in enumerate(avals)]))


def _flow(jaxpr, in_deps: List[frozenset]) -> List[frozenset]:
    env = dict(zip(jaxpr.invars, in_deps))
    read = lambda v: _NONE if isinstance(v, Literal) else env.get(v, _NONE)  # constvars: no input
    for eqn in jaxpr.eqns:
        ins = [read(v) for v in eqn.invars]
        name = eqn.primitive.name
        inner = eqn.params.get("jaxpr", eqn.params.get("call_jaxpr")) if name in _CALLS else None
        inner = getattr(inner, "jaxpr", inner)  # a ClosedJaxpr's jaxpr
        if name in _NO_DERIVATIVE:
            outs = [_NONE] * len(eqn.outvars)
        elif name == "cond":  # operands after the branch index, one for one; an output reads what any branch does
            flows = [_flow(b.jaxpr, ins[1:]) for b in eqn.params["branches"]]
            outs = [frozenset().union(*ds) for ds in zip(*flows)]
        elif inner is not None and len(inner.invars) == len(ins):
            outs = _flow(inner, ins)
        elif name == "tj_linear_rule":  # a tapejax op's JVP or transpose under a JAX trace: its own code's paths
            avals = tuple(jax.ShapeDtypeStruct(v.aval.shape, v.aval.dtype) for v in eqn.invars)
            paths = rule_paths(eqn.params["rule"], eqn.params["transposed"], eqn.params["n_res"], avals)
            outs = [frozenset().union(*(ins[i] for i in p)) for p in paths]
        else:  # any other primitive, loops included: every output may read every input
            outs = [frozenset().union(*ins)] * len(eqn.outvars)
        for v, d in zip(eqn.outvars, outs):
            env[v] = d if jnp.issubdtype(v.aval.dtype, jnp.inexact) else _NONE
    return [read(v) for v in jaxpr.outvars]


def rule_paths(rule, transposed: bool, n_res: int, avals: tuple) -> tuple:
    """For each output of a ``tj_linear_rule`` equation (ops/linear_rule.py), the positions of its operands it
    depends on through the rule's own code, its JVP or transposed kernel on ``(residuals, linear arguments)``.
    A backward kernel reads only some residuals (the transpose of ``x * y`` with respect to ``x`` reads ``y``,
    not ``x``): its outputs are connected to those alone, as the eager backward op they stand for. (Kept in
    the rule's ``analyses``: a nested trace meets the same rule at every level.)"""
    key = ("paths", transposed, n_res, avals)
    paths = rule.analyses.get(key)
    if paths is None:
        fn = rule.fn(transposed)
        closed = jax.make_jaxpr(lambda *a: tuple(fn(list(a[:n_res]), list(a[n_res:]))))(*avals)
        paths = rule.analyses[key] = tuple(_flow(closed.jaxpr, [frozenset((i,)) for i in range(len(avals))]))
    return paths
