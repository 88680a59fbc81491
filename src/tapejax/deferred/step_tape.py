"""The tape GradientTape records on once deferred/ is imported: the eager tape (tape.Tape) plus the step
as data (lazy.StepRecord) and the replayed gradient (replay.gradient).

The step record is kept only where a replay could use it (lazy execution and replay on, a
non-persistent tape). Every recording the eager tape does goes through the methods overridden here, so
the record stays in step with the tape: watches and variable reads become tokens, deferred ops add their
own tokens in lazy.defer, and anything recorded with its values at hand (an op that ran eagerly, a
custom gradient) breaks the record, which replay then keys on the pruned tape's structure instead.
"""
from __future__ import annotations

from typing import Any, Dict, List, Sequence

from .. import tape as tape_module, tape_set
from ..config import config
from ..sweep import GradientStats
from . import replay
from .lazy import StepRecord


class StepTape(tape_module.Tape):
    """tape.Tape, keeping a StepRecord of what it records and trying a compiled replay first."""

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        super().__init__(persistent, watch_accessed_variables)
        self.step_record = StepRecord() if (config.lazy and config.replay and not persistent) else None

    def watch(self, tensor_id: int) -> None:
        super().watch(tensor_id)
        record = self.step_record
        if record is not None:
            record.add(("watch", record.ident(tensor_id)))

    def watch_variable(self, var) -> bool:
        new = super().watch_variable(var)
        record = self.step_record
        if new and record is not None:
            record.add(("watch", record.ident(var.id)))
        return new

    def record_read(self, handle_id: int, t, backward) -> None:
        record, self.step_record = self.step_record, None  # a read is a token, not a break
        try:
            super().record_read(handle_id, t, backward)
        finally:
            self.step_record = record
        if record is not None:
            record.add(("read", record.ident(handle_id), record.ident(t.id)))

    def record_operation(self, op_type: str, outputs, input_ids, backward, infos=None) -> None:
        if infos is None and self.step_record is not None:
            self.step_record.break_()  # values at hand: an op the record cannot describe
        super().record_operation(op_type, outputs, input_ids, backward, infos)

    def finish(self) -> None:
        super().finish()
        self.step_record = None

    def compute_gradient(self, target_ids: Sequence[int], source_ids: Sequence[int],
                         sources_that_are_targets: Dict[int, Any], output_gradients: Sequence[Any],
                         recording: bool, stats: GradientStats) -> List[Any]:
        # Higher-order (recording) passes and passes under check_numerics (every kernel on its own, so
        # each is checked) are never replayed.
        if (not config.replay or recording
                or (tape_set.numerics_checks and tape_set.state.debug_checking)):
            return super().compute_gradient(target_ids, source_ids, sources_that_are_targets, output_gradients,
                                            recording, stats)
        pruned: list = []

        def prune():  # at most once: replay may need the pruned tape, and the sweep after it
            if not pruned:
                pruned.append(self.prune(target_ids))
            return pruned[0]
        result = replay.gradient(self, prune, target_ids, source_ids, sources_that_are_targets, output_gradients,
                                 stats)
        if result is not None:
            return result
        return self.sweep(prune(), target_ids, source_ids, sources_that_are_targets, output_gradients, recording,
                          stats)


tape_module.set_tape_type(StepTape)
