"""A replayed step that has not run yet: its gradients are pending tensors, and an optimizer update
given only those gradients runs in the same compiled program.

``tape.gradient`` on a recurring step (replay's step-record source) does not run the step's program at once:
it answers with pending tensors of a ``PendingStep`` (tensor.pending_tensor: plain Tensors to JAX's
pytrees, so optax and tree_map take them as any gradient). Reading any of them, or a forward value the program
exports (the loss), runs the program, as running it at ``gradient`` time would have. An optimizer given
only gradients of one pending step (train/optimizers.py) runs the program and its update as one
compiled program instead (``run_with_update``): forward, backward and update in one dispatch, with the
values of running the program and then the update (bit for bit under ``tj.config.replay_exact``,
where the update is fenced like every kernel of the program).
"""
from __future__ import annotations

from typing import Any, Callable, Hashable, List, Optional, Sequence

import jax

from ..tensor import Tensor, pending_source, pending_tensor
from . import background
from .fence import fence


class PendingStep:
    """One call of a replay program, not run yet: ``args`` for it, the record nodes whose values it
    exports, and (once run) ``values``: the gradients, one per source (None for no gradient)."""

    __slots__ = ("program", "args", "nodes", "values", "keep")

    def __init__(self, program, args: tuple, nodes: list, keep: Any = None) -> None:
        self.program = program
        self.args = args
        self.nodes = nodes
        self.values: Optional[tuple] = None
        # What the step's tape held, let go only after the program is dispatched: freeing it (a Python
        # object or more per op) then overlaps the program's run instead of delaying its start.
        self.keep = keep

    def compute(self) -> None:
        """Run the program (what reading a gradient or an exported value asks)."""
        if self.values is None:
            exported, result = self.program(*self.args)
            self.finish(exported, result)

    def finish(self, exported, result) -> None:
        for node, values in zip(self.nodes, exported):
            node.step = None
            if node.values is None:  # (a value read before stays what was read)
                node.set_values(tuple(values))
        self.values = tuple(result)
        self.args = self.nodes = self.keep = None  # let the inputs go


def gradients(program, leaves, output_gradients: list, exported_nodes: list, keep: Any = None
              ) -> List[Optional[Tensor]]:
    """The gradients ``program(leaves, output_gradients)`` computes, as tensors of a PendingStep (None
    where there is no gradient); the nodes ``exported_nodes`` get their values from it too. ``keep`` is
    held until the program has been dispatched."""
    step = PendingStep(program, (leaves, output_gradients), exported_nodes, keep)
    for node in exported_nodes:
        node.step = step
    return [None if info is None else pending_tensor(step, i) for i, info in enumerate(program.out_info[1])]


def pending_step_of(tensors: Sequence[Any]) -> Optional[PendingStep]:
    """The one PendingStep, not run yet, that every tensor of ``tensors`` is a gradient of; else None."""
    step = None
    for t in tensors:
        source = pending_source(t)
        if source is None or type(source[0]) is not PendingStep or (step is not None and source[0] is not step):
            return None
        step = source[0]
    return step


def shape_of(step: PendingStep, t: Tensor) -> tuple:
    """The shape of ``t``, a gradient of ``step``, without running it."""
    return tuple(step.program.out_info[1][pending_source(t)[1]].shape)


def run_with_update(step: PendingStep, grads: Sequence[Tensor], key: Hashable, update: Callable,
                    args: tuple):
    """Run ``step``'s program and ``update([values of grads], *args)`` as one compiled program, cached
    per program under ``key`` (which must name ``update``), and set the step's gradients and exported
    values as its own run would. Returns ``update``'s result, or None when that program is not ready
    (compiling in the background, or it failed to compile): the caller then runs the update itself."""
    positions = tuple(pending_source(g)[1] for g in grads)
    program = step.program
    fused = program.fused.get((key, positions))
    if fused is None:
        fn = program.fn

        def run(step_args, extra, update_args):
            exported, result = fn(*step_args, *extra)
            grad_values = [result[p] for p in positions]
            if extra:  # replay_exact: the update as the op-by-op update computes it
                out = fence(extra[0], lambda g, a: update(g, *a), grad_values, update_args)
            else:
                out = update(grad_values, *update_args)
            return exported, result, out
        fused = program.fused[(key, positions)] = background.Compilation(jax.jit(run))
        fused.compile(step.args, program.extra, args)
    if fused.compiled is None:
        return None
    exported, result, out = fused(step.args, program.extra, args)
    step.finish(exported, result)
    return out
