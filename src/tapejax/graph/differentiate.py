"""tj.differentiate: split a function into a compiled forward program ``inputs -> (outputs, residuals)``
and a compiled backward program ``(output gradients, residuals) -> input gradients`` (the ideas of
TorchScript's autodiff.cpp, over tapejax's recorded graph).

Captures are classified as in autodiff.cpp:

* values that are already inputs or outputs are referenced, not duplicated;
* constants (values that do not depend on the inputs) and zero-size shape tokens are lifted into the
  backward program instead of being captured;
* only temporaries the backward program actually reads are captured: each op's backward kernel is
  traced and residuals it never reads are dropped (dead-code elimination), and a temporary used by
  several ops is captured once.

The backward program is sweep.py's reverse sweep over the ops between the inputs and the outputs
(``sweep.prune_between``), traced once, each op's backward kernel reading its residuals from the
captures. Gradients are symbolic zeros (None) until something flows into them: an op whose incoming
gradients are all symbolic zero does not run, ``None`` output gradients are accepted, and an input
nothing flows to gets ``None``.

Variables ``f`` reads are inputs of the forward program, read each time it runs (their gradients are not
returned: pass a value as an argument to get its gradient); its assignments are written back when it returns,
as tj.function's. The outputs may be any nested structure: ``forward`` returns it, and ``backward`` takes
output gradients in it (None for parts with none) or as a flat list, one per leaf.

The programs, and the report of captures, are those of the example arguments' shapes and dtypes; a call of
``forward`` with others makes a pair of programs for them (as jit compiles one per signature), and its residuals
go back to that pair's backward program.
"""
from __future__ import annotations

import weakref
from typing import Any, Callable, Dict, List, Optional, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from .. import interrupts, nest, sweep, tape_set, vspace
from ..ops.core import BackwardFunction, IdentityBackward, NoGradient, OpBackward, is_no_gradient_error
from ..ops import linear_rule
from ..tape import OpEntry
from ..tensor import Tensor, Variable, as_array, strongly_typed
from .capture import Capture, warn_raw_uses


class CaptureInfo:
    """One value the forward program hands to the backward program."""

    __slots__ = ("op", "kind", "shape", "dtype", "nbytes", "index")

    def __init__(self, op: str, kind: str, shape, dtype, index: int) -> None:
        self.op, self.kind, self.shape, self.dtype, self.index = op, kind, tuple(shape), jnp.dtype(dtype), index
        self.nbytes = int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize

    def __repr__(self) -> str:
        return f"{self.kind}(op={self.op}, shape={self.shape}, dtype={self.dtype}, bytes={self.nbytes})"


class Residuals:
    """What the forward program returns for the backward program: the captured temporaries, plus
    references (not copies) to the inputs and outputs the backward program reads."""

    def __init__(self, temporaries: list, inputs: list, outputs: list, programs=None) -> None:
        self.temporaries, self.inputs, self.outputs = temporaries, inputs, outputs
        self.programs = programs  # the Differentiated whose forward program made them (one per signature)

    @property
    def nbytes(self) -> int:
        return sum(vspace.nbytes(t) for t in self.temporaries)


def _arrays(name: str, method: str, args: Sequence[Any]) -> list:
    """The arrays of ``args`` (Tensors, arrays, Python numbers); a clear TypeError for anything else."""
    arrays = []
    for k, a in enumerate(args):
        if isinstance(a, Tensor):
            arrays.append(a._value)
            continue
        try:
            if isinstance(a, (str, bytes, dict)):
                raise TypeError("it has no numbers.")
            arrays.append(as_array(a))
        except (TypeError, ValueError) as e:
            raise TypeError(f"differentiate('{name}').{method}: argument {k} ({type(a).__name__}) is not an array: "
                            f"{e} The arguments are Tensors or arrays, one per input: pass the leaves of a nested "
                            "structure as separate arguments.") from None
    return arrays


def _signature_of(arrays: list) -> tuple:
    return tuple((tuple(a.shape), a.dtype, getattr(a, "weak_type", False)) for a in arrays)


def _jit_method(obj, name: str):
    """``jax.jit`` of ``obj``'s method ``name``, for ``obj`` to keep: through a weak reference, as the jitted
    function of a bound method would refer back to ``obj`` (a cycle only the garbage collector frees)."""
    ref = weakref.ref(obj)
    fn = lambda *args: getattr(ref(), name)(*args)
    fn.__name__ = fn.__qualname__ = f"{type(obj).__name__}.{name}"
    return jax.jit(fn)


class Differentiated:
    """The forward and backward programs of ``f`` and the report of what crosses between them."""

    def __init__(self, f: Callable, example_args: Sequence[Any]) -> None:
        self._f = f
        self.name = getattr(f, "__name__", "f")
        example = _arrays(self.name, "differentiate", example_args)
        self._n_in = len(example)
        # The programs are specialized to the examples' shapes and dtypes (a plan per signature, as jit's
        # programs): other signatures get programs of their own, made when first seen.
        self._signature = _signature_of(example)
        self._others: Dict[tuple, "Differentiated"] = {}
        self._plan: Optional[dict] = None
        # The Variables f reads or assigns, in order of first use: inputs of the forward program, read at each call
        # (a value baked in at the first trace would go stale at the next assignment). The first trace finds
        # them; with any, f is traced again with them as inputs.
        self.variables: List[Any] = []
        self._found: List[Any] = []
        self._forward = _jit_method(self, "_forward_impl")
        self._forward(example, [])  # trace once: builds the plan and the report
        if self._found:
            self.variables, self._plan = self._found, None
            self._forward = _jit_method(self, "_forward_impl")
            self._forward(example, self._variable_values())
        self._backward = _jit_method(self, "_backward_impl")
        plan = self._plan
        self.captures: List[CaptureInfo] = plan["report"]
        self.residual_bytes = sum(c.nbytes for c in self.captures if c.kind == "temporary")
        self.referenced_inputs = sorted(k for k in plan["used_inputs"] if k < self._n_in)
        self.referenced_outputs = sorted(plan["used_outputs"])

    def _variable_values(self) -> list:
        return [strongly_typed(v._value, v.dtype) for v in self.variables]

    # -- forward --------------------------------------------------------------------------------------
    def _forward_impl(self, args, variable_values):
        cap = Capture(self.variables, variable_values)
        with tape_set.isolated(cap):
            tape_set.push_tape(cap.graph)
            inputs = [Tensor(a) for a in args]
            out = self._f(*inputs)
            cap.end()
        if cap.missing:  # (first trace: the Variables read or assigned become inputs of the program traced next)
            self._found = list(cap.missing.values())
        leaves, treedef = nest.flatten(out)
        outs = [o.read_value() if isinstance(o, Variable) else o if isinstance(o, Tensor)
                else Tensor(jnp.asarray(o)) for o in leaves]
        if self._plan is None:
            self._plan = self._make_plan(cap.graph, inputs, variable_values, outs, (treedef, nest.dict_order(out)))
            self._plan["assigned"] = [k for k, v in enumerate(self.variables) if id(v) in cap.assigned]
        plan = self._plan
        temps = [_leaf(cap.graph, ref) for ref in plan["temp_refs"]]
        new_values = [cap.values[id(self.variables[k])] for k in plan["assigned"]]
        return [o._value for o in outs], temps, [v._value if isinstance(v, Tensor) else v for v in new_values]

    def _make_plan(self, graph, inputs: List[Tensor], variable_values: list, outs: List[Tensor], structure) -> dict:
        in_ids = [t._id for t in inputs]
        out_ids = [t._id for t in outs]
        between, usage, missing, reached = sweep.prune_between(graph.tensor_tape, graph.op_tape, out_ids, in_ids)
        # the backward program sweeps the graph, which has no path through plain JAX code: say so (API.md)
        warn_raw_uses(graph.raw_uses_from(in_ids), "tj.differentiate")
        in_values = {id(a): k for k, a in enumerate([t._value for t in inputs] + list(variable_values))}
        out_values = {id(t._value): k for k, t in enumerate(outs)}
        temp_index: Dict[int, int] = {}
        temp_refs, report, op_plans = [], [], []
        used_inputs, used_outputs = set(), set()
        for op_id, e in between.items():
            bf = e.backward
            needed_idx = tuple(j for j, i in enumerate(e.input_ids) if i in reached)
            if isinstance(bf, IdentityBackward):
                op_plans.append((op_id, e, None, None, needed_idx))
                continue
            rule = getattr(bf, "traced_rule", None)
            if rule is not None:
                # A custom gradient: its grad_fn was traced into a pure function of residuals of this trace.
                leaves, treedef = list(rule.residuals), _CustomRule(rule, bf.out_specs)
                used = [True] * len(leaves)
            elif not isinstance(bf, BackwardFunction):
                raise NotImplementedError(
                    f"tj.differentiate: op '{e.op_type}' has a Python backward function "
                    f"({type(bf).__name__}) that cannot be split into a separate backward program. Use "
                    "tj.function with a GradientTape instead.")
            else:
                if isinstance(bf.res, NoGradient):
                    raise bf.res.error()
                leaves, treedef = jax.tree_util.tree_flatten(bf.res)
                used = self._used_residuals(bf, leaves, treedef, needed_idx)
            sources = []
            for leaf, u in zip(leaves, used):
                shape, dtype = jnp.shape(leaf), jnp.result_type(leaf)
                if not u or int(np.prod(shape, dtype=np.int64)) == 0:
                    sources.append(("zeros", shape, dtype))
                elif not isinstance(leaf, jax.core.Tracer):
                    sources.append(("const", leaf))
                elif id(leaf) in in_values:
                    sources.append(("input", in_values[id(leaf)]))
                    used_inputs.add(in_values[id(leaf)])
                elif id(leaf) in out_values:
                    sources.append(("output", out_values[id(leaf)]))
                    used_outputs.add(out_values[id(leaf)])
                else:
                    k = temp_index.get(id(leaf))
                    if k is None:
                        k = temp_index[id(leaf)] = len(temp_refs)
                        temp_refs.append((op_id, len(sources)))
                        report.append(CaptureInfo(e.op_type, "temporary", shape, dtype, k))
                    sources.append(("temp", k))
            op_plans.append((op_id, e, treedef, sources, needed_idx))
        for k in sorted(used_inputs):
            if k < len(inputs):
                report.append(CaptureInfo("input", "input (referenced)", inputs[k].shape, inputs[k].dtype, k))
            else:
                v = self.variables[k - len(inputs)]
                report.append(CaptureInfo(v.name, "variable (referenced)", v.shape, v.dtype, k - len(inputs)))
        for k in sorted(used_outputs):
            report.append(CaptureInfo("output", "output (referenced)", outs[k].shape, outs[k].dtype, k))
        return {"in_ids": in_ids, "out_ids": out_ids, "ops": op_plans, "usage": usage, "missing": missing,
                "reached": reached, "temp_refs": temp_refs, "report": report,
                "used_inputs": used_inputs, "used_outputs": used_outputs, "structure": structure, "graph": graph,
                "out_specs": [(o.shape, o.dtype) for o in outs], "in_specs": [(t.shape, t.dtype) for t in inputs]}

    @staticmethod
    def _used_residuals(bf: BackwardFunction, leaves, treedef, needed_idx) -> List[bool]:
        needed = tuple(bf.diff[j] for j in needed_idx)
        if not needed:
            return [False] * len(leaves)
        k = bf.op.kernels(bf.static)
        cts = tuple(jnp.zeros(shape, dtype) if is_f else None for shape, dtype, is_f in bf.spec[1])

        def run(*res_leaves):
            res = jax.tree_util.tree_unflatten(treedef, res_leaves)
            return k.backward_impl(res, cts, bf.spec, bf.diff, needed)
        avals = [linear_rule.struct_of(l) for l in leaves]
        try:
            jaxpr = jax.make_jaxpr(run)(*avals)
        except Exception as e:  # (JAX cannot differentiate the op: the LookupError of every other path)
            if not is_no_gradient_error(e):
                raise
            raise NoGradient.of(bf.op.name, e).error() from e
        return linear_rule.used_inputs(jaxpr)

    # -- backward -------------------------------------------------------------------------------------
    def _backward_impl(self, out_grads, temps, inputs, outputs):
        plan = self._plan
        values = {"temp": temps, "input": inputs, "output": outputs}
        ops = {}
        for op_id, e, treedef, sources, _ in plan["ops"]:
            step = e.backward if treedef is None else _Step(e.backward, treedef, sources, values)
            ops[op_id] = OpEntry(e.op_type, e.out_ids, e.out_infos, e.input_ids, step)
        # Symbolic zeros: a None output gradient seeds nothing, and an op nothing flows into does not run.
        return sweep.backprop(ops, dict(plan["usage"]), dict(plan["missing"]), plan["graph"].tensor_tape,
                              plan["out_ids"], plan["in_ids"], list(out_grads), known=plan["reached"])

    # -- public ---------------------------------------------------------------------------------------
    def forward(self, *args):
        """Run the compiled forward program: ``(outputs, residuals)``."""
        arrays = _arrays(self.name, "forward", args)
        if len(arrays) != self._n_in:
            raise TypeError(f"differentiate('{self.name}').forward: got {len(arrays)} arguments; its programs take "
                            f"{self._n_in}, as the example arguments.")
        sig = _signature_of(arrays)
        if sig != self._signature:
            other = self._others.get(sig)
            if other is None:
                other = self._others[sig] = Differentiated(self._f, arrays)
            return other.forward(*arrays)
        variable_values = self._variable_values()
        outs, temps, new_values = self._forward(arrays, variable_values)
        plan = self._plan
        cap = tape_set.current().capture
        with interrupts.held(cap is None and plan["assigned"]):  # (no Ctrl-C between two: as tj.function)
            for k, new in zip(plan["assigned"], new_values):  # (the assignments f made, as tj.function writes them)
                v = self.variables[k]
                if cap is not None:
                    cap.write(v, new)  # (inside a trace: its call writes it back)
                else:
                    v.write_back(new)
        every = arrays + variable_values
        res = Residuals(temps, [every[k] if k in plan["used_inputs"] else None for k in range(len(every))],
                        [outs[k] if k in plan["used_outputs"] else None for k in range(len(outs))], self)
        treedef, order = plan["structure"]
        return nest.in_dict_order(jax.tree_util.tree_unflatten(treedef, [Tensor(o) for o in outs]), order), res

    def backward(self, output_gradients, residuals: Residuals):
        """Run the compiled backward program: one gradient per input (None where symbolic zero).
        ``output_gradients``: in the structure of the outputs (None for an output, or a part of them, with no
        gradient); for a single output, the gradient or a one-element list of it."""
        if residuals.programs is not None and residuals.programs is not self:  # (another signature's forward)
            return residuals.programs.backward(output_gradients, residuals)
        og = self._flat_output_gradients(output_gradients)
        raw = []
        for g, (shape, dtype) in zip(og, self._plan["out_specs"]):
            if g is None:
                raw.append(None)
                continue
            g = g._value if isinstance(g, Tensor) else as_array(g, dtype)
            if tuple(g.shape) != tuple(shape):
                raise ValueError(f"differentiate('{self.name}').backward: output gradient of shape {tuple(g.shape)}"
                                 f" does not match its output of shape {tuple(shape)}.")
            raw.append(g)
        grads = self._backward(raw, residuals.temporaries, residuals.inputs, residuals.outputs)
        return [None if g is None else Tensor(g) for g in grads]

    def _flat_output_gradients(self, output_gradients) -> list:
        """One gradient (or None) per output leaf, from ``output_gradients`` in the outputs' structure (a flat
        list or tuple of one per leaf is taken too)."""
        treedef, _ = self._plan["structure"]
        n = treedef.num_leaves
        if treedef.num_nodes == 1:  # (a single output)
            og = list(output_gradients) if isinstance(output_gradients, (tuple, list)) else [output_gradients]
        else:
            try:
                og = treedef.flatten_up_to(nest.plain_containers(output_gradients))
            except (ValueError, TypeError):
                flat = isinstance(output_gradients, (tuple, list)) and len(output_gradients) == n and not any(
                    isinstance(g, (tuple, list, dict)) for g in output_gradients)
                if not flat:
                    raise ValueError(
                        f"differentiate('{self.name}').backward: the output gradients do not match the structure of "
                        f"the outputs ({treedef}): give one per output, in the outputs' structure, or a flat list of "
                        f"{n}.") from None
                og = list(output_gradients)
        if len(og) != n:
            raise ValueError(f"differentiate('{self.name}').backward: got {len(og)} output gradients for {n} outputs.")
        return og

    def summary(self) -> str:
        lines = [f"tj.differentiate('{self.name}'): {len(self.captures)} captures, "
                 f"{self.residual_bytes} bytes of captured temporaries"]
        for c in self.captures:
            lines.append(f"  {c.kind:22s} {c.op:24s} shape={c.shape} dtype={c.dtype} bytes={c.nbytes}")
        return "\n".join(lines)

    __repr__ = summary


class _Step:
    """An op's backward function in the backward program: its kernel on residuals gathered from what the
    forward program handed over (``values``: temporaries, inputs, outputs) and from the plan."""

    __slots__ = ("bf", "treedef", "sources", "values")

    def __init__(self, bf, treedef, sources, values) -> None:
        self.bf, self.treedef, self.sources, self.values = bf, treedef, sources, values

    def __call__(self, cts, needed_idx, recording):
        leaves = []
        for src in self.sources:
            kind = src[0]
            if kind == "zeros":
                leaves.append(jnp.zeros(src[1], src[2]))
            elif kind == "const":
                leaves.append(src[1])
            else:
                leaves.append(self.values[kind][src[1]])
        if isinstance(self.treedef, _CustomRule):
            return self.treedef(leaves, cts)
        bf = self.bf
        res = jax.tree_util.tree_unflatten(self.treedef, leaves)
        return OpBackward.unrecorded(bf.op, bf.static, res, bf.inputs, bf.diff, bf.spec)(cts, needed_idx, False)


class _CustomRule:
    """A custom gradient's step of the backward program: its traced grad_fn on captured residuals."""

    def __init__(self, rule, out_specs) -> None:
        self.rule, self.out_specs = rule, out_specs

    def __call__(self, residuals, out_grads):
        conj = lambda v: jnp.conj(v) if jnp.iscomplexobj(v) else v  # the rule is in JAX's convention
        cts = []
        for k in self.rule.outputs:
            g, (shape, dtype) = out_grads[k], self.out_specs[k]
            cts.append(jnp.zeros(shape, dtype) if g is None else conj(g))
        none = self.rule.no_gradient  # grad_fn's None: no gradient (the traced transpose has zeros there)
        return [None if j in none else conj(g) for j, g in enumerate(self.rule.transpose(residuals, cts))]


def _leaf(graph, ref):
    op_id, k = ref
    backward = graph.op_tape[op_id].backward
    rule = getattr(backward, "traced_rule", None)
    if rule is not None:
        return rule.residuals[k]
    return jax.tree_util.tree_leaves(backward.res)[k]


def differentiate(f: Callable, *example_args) -> Differentiated:
    """Split ``f`` into compiled forward and backward programs (see module docstring)."""
    return Differentiated(f, example_args)


def jax_vjp_residual_bytes(f: Callable, *args) -> int:
    """Bytes of the residuals ``jax.vjp`` keeps for the same tapejax function (for comparison). The ops
    carry tapejax's rules into ``jax.vjp``, so this is also what an outer tape keeps for a tj.function
    call of ``f``."""
    arrays = [a._value if isinstance(a, Tensor) else as_array(a) for a in args]

    def raw(*xs):
        with tape_set.isolated(None):
            out = f(*[Tensor(x) for x in xs])
        return jax.tree_util.tree_map(lambda t: t._value if isinstance(t, Tensor) else t, out,
                                      is_leaf=lambda t: isinstance(t, Tensor))
    _, vjp_fn = jax.vjp(raw, *arrays)
    in_ids = {id(a) for a in arrays}
    return sum(vspace.nbytes(l) for l in jax.tree_util.tree_leaves(vjp_fn)
               if hasattr(l, "shape") and id(l) not in in_ids)
