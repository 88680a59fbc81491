"""Which tapes and accumulators record an op: the one decision every recording goes through.

Terminology: a *recorder* is a GradientTape's tape or a ForwardAccumulator's state on this thread's
stacks (tape_set). A recorder *takes* an op when it is recording (not paused, not under
``stop_recording``) and one of the op's inputs is known to it (watched, or made by an op it took): its
``takes(ids)`` method. Ops (ops/core.py), Variable reads and identities (ops/core.py), custom gradients
(custom_gradient.py) and tj.function calls (an op like any other) all ask ``recorders`` and then
record on each tape it returns (``Tape.record_operation``, also for deferred ops, whose outputs
are not computed yet) and hand each accumulator its forward-mode work.

Recorders are reached duck-typed through tape_set, so this module sits below the tapes' and
accumulators' owners. The one-tape case (the common one) allocates nothing.
"""
from __future__ import annotations

from typing import Optional, Sequence, Tuple

from . import tape_set
from .tape import RecordedOp

_NONE: Tuple = ()


def recorders(ids: Sequence[int], st: Optional[tape_set.State] = None) -> Tuple[Sequence, Sequence]:
    """(tapes, accumulators) of this thread that take an op whose inputs have ``ids`` (``st``: this thread's
    ``tape_set.current()``, when the caller has it)."""
    if st is None:
        st = tape_set.current()
    if not ids or st.stopped:
        return _NONE, _NONE
    if len(st.tapes) == 1 and not st.accumulators:
        t = st.tapes[0]
        return ((t,) if t.takes(ids) else _NONE), _NONE
    tapes = [t for t in st.tapes if t.takes(ids)]
    accs = [a for a in st.accumulators if a.takes(ids)]
    return tapes, accs


def watch_read_variables(variables) -> None:
    """A read of ``variables`` happened: tapes that watch accessed variables watch them (TF), before
    ``recorders`` decides, so that the read itself is taken."""
    st = tape_set.current()
    if st.stopped:
        return
    for t in st.tapes:  # (no list built: this runs for every Variable read)
        if t.watch_accessed_variables and not t.paused:
            for v in variables:
                if v.trainable:
                    t.watch_variable(v)


def record_operation(tapes: Sequence, op_type: str, outputs, input_ids, backward) -> None:
    """Record one op on each of ``tapes`` (from ``recorders``). A backward function that is its own tape
    entry (tape.RecordedOp) and that several tapes record is shared by them first."""
    if len(tapes) > 1 and isinstance(backward, RecordedOp) and not backward.shared:
        backward.share(tuple([o._id for o in outputs]), tuple(input_ids))
    for t in tapes:
        t.record_operation(op_type, outputs, input_ids, backward)
