"""The tape GradientTape records on once deferred/ is imported: the eager tape (tape.Tape) plus the step
as data (lazy.StepRecord) and the replayed gradient (replay.gradient).

The step record is kept only where a replay could use it (lazy execution and replay on, a
non-persistent tape). Watches and variable reads become tokens here, deferred ops add their own tokens
in lazy.defer; anything else recorded on the tape (an op that ran eagerly, a custom gradient) is an
entry the record did not count, which breaks it (StepRecord.describes), and replay then keys on the
pruned tape's structure instead.
"""
from __future__ import annotations

from typing import Any, Dict, List, Sequence

from .. import tape as tape_module, tape_set
from ..config import config
from ..sweep import GradientStats
from . import ahead, replay
from .lazy import StepRecord


class StepTape(tape_module.Tape):
    """tape.Tape, keeping a StepRecord of what it records and trying a compiled replay first."""

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        super().__init__(persistent, watch_accessed_variables)
        self.step_record = StepRecord() if (config.lazy and config.replay and not persistent) else None
        if self.step_record is None:
            ahead.started(0)  # (a tape between two steps: the next is not launched as its tape starts)

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
        super().record_read(handle_id, t, backward)
        record = self.step_record
        if record is not None:
            record.entries += 1  # an entry the record describes (see StepRecord.describes)
            record.add(("read", record.ident(handle_id), record.ident(t.id)))

    def finish(self) -> None:
        super().finish()
        self.step_record = None

    def compute_gradient(self, target_ids: Sequence[int], source_ids: Sequence[int],
                         sources_that_are_targets: Dict[int, Any], output_gradients: Sequence[Any],
                         recording: bool, stats: GradientStats) -> List[Any]:
        # Higher-order (recording) passes and passes under check_numerics (every kernel on its own, so
        # each is checked) are never replayed.
        if (not config.replay or recording
                or (tape_set.numerics_checks and tape_set.current().debug_checking)):
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
