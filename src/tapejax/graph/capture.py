"""What a tj.function trace keeps: traced Variable values and the graph of every op run in the trace."""
from __future__ import annotations

from typing import Any, Dict, List

from ..tape import Tape


class GraphRecorder(Tape):
    """A persistent tape that records every op with a float input (the trace's graph, for tj.gradients
    and tj.differentiate). Nothing is freed while the trace runs."""

    records_everything = True

    def __init__(self) -> None:
        super().__init__(persistent=True, watch_accessed_variables=False)

    def should_record(self, ids) -> bool:
        return True

    def _tensor_died(self, tensor_id: int) -> None:
        pass  # the graph keeps everything until the trace ends

    def record_variable(self, var) -> None:
        self.tensor_tape.setdefault(var._handle_id, -1)


class Capture:
    """Variable values inside one trace: reads see the traced value (including assignments made earlier
    in the same call); assignments are collected and written back after the call."""

    def __init__(self, variables: List[Any], values) -> None:
        self.values: Dict[int, Any] = {id(v): val for v, val in zip(variables, values)}
        self.inputs = {id(v) for v in variables}
        self.assigned: Dict[int, Any] = {}
        self.missing: Dict[int, Any] = {}
        self.graph = GraphRecorder()

    def read(self, var):
        key = id(var)
        if key in self.values:
            return self.values[key]
        self.missing[key] = var  # first seen in this trace: it becomes an input when retraced
        return var._value

    def write(self, var, value) -> None:
        key = id(var)
        if key not in self.inputs:
            self.missing[key] = var
        self.values[key] = value
        self.assigned[key] = var
