"""The op table of a tape: its recorded ops by op id, as a mapping (``op_tape``) that costs a list slot per
op instead of a dict entry and an id.

Op ids come from the tensor counter of the tape's thread and a tape records them in growing order, so a list
indexed by ``op_id - base`` holds them (8 bytes per op: a dict entry costs ~40 more, and its key keeps the
op's id alive, 28 bytes). A record in the list names its outputs and inputs relative to its op id
(``op_id - id``: 0 for the output an op is keyed by, 1 for the op just before it; CPython shares ints
that small, so once the tensors die nothing per op is left of their ids). Whoever reads an entry
through the mapping gets it with absolute ids: reading *binds* it, moving it to ``bound`` (a dict from op
id to entry, as a tape held every op before). Records several tapes share (their ids are absolute) and ops
the list cannot place (an id below ``base``, or far past its end) are in ``bound`` from the start.

Only the tape's own hot paths (record, the decision to record, freeing) read the list directly; they
never bind.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Dict, Iterator, List, Tuple

_ABSENT = object()
_MAX_GAP = 1024  # ids between the list's end and a new op past which the list does not grow (see ``add``)


def _mirror(op_id: int, x):
    """``op_id - x`` for an id, or for each id of a tuple: makes ids relative to ``op_id``, and back."""
    return op_id - x if type(x) is int else tuple([op_id - r for r in x])


class OpTable(Mapping):
    """op id -> tape entry (tape.py's Entry), ids in growing order. See the module docstring."""

    __slots__ = ("base", "slots", "holes", "bound")

    def __init__(self) -> None:
        self.base = 0  # the op id of ``slots[0]``
        self.slots: List[Any] = []  # records with relative ids, or None
        self.holes = 0  # the None slots in ``slots`` (recording an op at the list's end changes no count)
        self.bound: Dict[int, Any] = {}  # op id -> entry with absolute ids

    # -- adding -------------------------------------------------------------------------------------------
    def add(self, op_id: int, rec, out_ids: tuple, input_ids: tuple) -> None:
        """Add an entry (tape.py's: a RecordedOp that one tape records, or an OpEntry) under ``op_id``, its ids
        made relative.
        An id the list cannot place (below ``base``, or more than ``_MAX_GAP`` plus its length past its
        end: the None slots would cost more than they save) goes to ``bound`` with absolute ids."""
        slots = self.slots
        n = len(slots)
        if not n:
            self.base = op_id
            k = 0
        else:
            k = op_id - self.base
        if k == n:  # (the common case: the op after the last one recorded)
            slots.append(rec)
        elif k > n:
            if k - n > _MAX_GAP + n:
                self._bind_new(op_id, rec, out_ids, input_ids)
                return
            slots.extend([None] * (k - n))
            slots.append(rec)
            self.holes += k - n
        elif k >= 0 and slots[k] is None:
            slots[k] = rec
            self.holes -= 1
        else:
            self._bind_new(op_id, rec, out_ids, input_ids)
            return
        rec.outs = _mirror(op_id, out_ids[0] if len(out_ids) == 1 else out_ids)
        rec.ins = _mirror(op_id, input_ids[0] if len(input_ids) == 1 else input_ids)

    def _bind_new(self, op_id: int, rec, out_ids: tuple, input_ids: tuple) -> None:
        rec.out_ids = out_ids
        rec.input_ids = input_ids
        self.bound[op_id] = rec

    def __setitem__(self, op_id: int, entry) -> None:
        """An entry with absolute ids (a record several tapes share)."""
        self.bound[op_id] = entry

    # -- reading ------------------------------------------------------------------------------------------
    def __contains__(self, op_id) -> bool:
        try:
            k = op_id - self.base
        except TypeError:  # not an id (a dict answers False too)
            return False
        if 0 <= k < len(self.slots) and self.slots[k] is not None:
            return True
        return op_id in self.bound

    def __getitem__(self, op_id: int):
        """The entry of ``op_id``, with absolute ids (a record in the list is bound first)."""
        e = self.get(op_id, _ABSENT)
        if e is _ABSENT:
            raise KeyError(op_id)
        return e

    def get(self, op_id: int, default=None):
        """The entry of ``op_id`` with absolute ids (binding it), or ``default``."""
        e = self.pop(op_id, _ABSENT)
        if e is _ABSENT:
            return default
        self.bound[op_id] = e
        self._shrink()
        return e

    def pop(self, op_id: int, default=None):
        """Remove the op ``op_id`` and give its entry, with absolute ids, or ``default``. (What a tape that
        forgets its ops after a gradient prunes with: the list keeps its length until the next delete.)"""
        try:
            k = op_id - self.base
        except TypeError:  # not an id
            return default
        slots = self.slots
        rec = slots[k] if 0 <= k < len(slots) else None
        if rec is None:
            return self.bound.pop(op_id, default)
        slots[k] = None
        self.holes += 1
        o, i = rec.outs, rec.ins  # (_mirror, inline: a gradient pops each op it needs)
        rec.outs = op_id - o if type(o) is int else tuple([op_id - r for r in o])
        rec.ins = op_id - i if type(i) is int else tuple([op_id - r for r in i])
        return rec

    def ids(self, op_id: int) -> Tuple[tuple, tuple]:
        """(out_ids, input_ids) of the op ``op_id`` (KeyError if absent), without binding it."""
        k = op_id - self.base
        if 0 <= k < len(self.slots):
            rec = self.slots[k]
            if rec is not None:
                o, i = _mirror(op_id, rec.outs), _mirror(op_id, rec.ins)
                return (o,) if type(o) is int else o, (i,) if type(i) is int else i
        e = self.bound[op_id]
        return e.out_ids, e.input_ids

    def __len__(self) -> int:
        return len(self.slots) - self.holes + len(self.bound)

    def __iter__(self) -> Iterator[int]:
        """The op ids in growing order (as a list taken first: reading entries binds them)."""
        base = self.base
        ids = [base + k for k, rec in enumerate(self.slots) if rec is not None]
        if self.bound:
            ids = sorted(ids + list(self.bound))
        return iter(ids)

    def __repr__(self) -> str:
        return f"OpTable({len(self)} ops)"

    # -- removing -----------------------------------------------------------------------------------------
    def __delitem__(self, op_id: int) -> None:
        k = op_id - self.base
        slots = self.slots
        if 0 <= k < len(slots) and slots[k] is not None:
            slots[k] = None
            self.holes += 1
            self._shrink()
            return
        del self.bound[op_id]

    def _shrink(self) -> None:
        """Once holes are most of the list: drop its leading None slots, and when few records are left among
        the holes, bind them (into ``bound``) and start the list afresh; all of it goes when it holds no
        record. Amortized: each slot is dropped or scanned once.

        Trailing holes are never popped on their own: the next op's id is past them, so ``add`` would put
        them back (an op kept alive followed by many whose results die at once cost each new op a pop and
        an extension as long as the ops since the live one: quadratic)."""
        slots = self.slots
        n, holes = len(slots), self.holes
        if holes == n:
            if n:
                self.slots = []
                self.holes = 0
            return
        if n < 64 or holes * 2 < n:
            return
        if slots[0] is None:
            first = 1
            while slots[first] is None:
                first += 1
            del slots[:first]
            self.base += first
            self.holes = holes = holes - first
            n -= first
        if (n - holes) * 8 <= n:
            base = self.base
            for k in [k for k, rec in enumerate(slots) if rec is not None]:
                self.bound[base + k] = self.pop(base + k)
            self.slots = []
            self.holes = 0
