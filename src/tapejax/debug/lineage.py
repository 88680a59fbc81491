"""Lineage markers: what a GradientTape saw but did not record, kept so ``explain_gradient`` can say why.

Terms. A *marker* is left on a tape (its ``_debug_lineage`` dict) for an op that ran while the tape was
active but that the tape did not record: output id -> ``(op name, input ids, why, output dtype, input
dtypes)``, ``why`` being ``"unwatched"`` (no input watched), ``"stop_gradient"``, ``"non_differentiable"``
(e.g. a comparison) or ``"stop_recording"`` (a ``stop_recording()`` block, or the tape paused). A
*raw JAX use* is a call site where user code handed a value the tape follows to a plain JAX function
(``jnp.sin(x)``), which cuts the recorded path without any op being run (``_debug_raw_jax_uses``).

How it hooks in. Op dispatch (ops/core.py) calls ``tape_set.debug_hooks.note_unrecorded`` for an op it
did not record, only when this thread has a tape (``tape_set.current().tapes``): recorded ops and code run without a
tape pay nothing. tensor.py calls ``note_raw_jax_use`` when it warns about a plain JAX call. Both are
installed below, at import. The markers are bounded per tape (``LINEAGE_MAX``, ``RAW_USES_MAX``); past
the bound the tape is flagged so the explanation can say it may be incomplete.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from .. import tape_set
from ..tensor import Tensor

LINEAGE_MAX = 200_000  # markers per tape; past this, explanations may miss breaks (reported)
RAW_USES_MAX = 64  # raw JAX call sites kept per tape


def note_unrecorded(op, args, out) -> None:
    """Called by op dispatch for an op that ran while a GradientTape was active but was not recorded on it
    (every such op of a training step: one pass over the arguments and outputs, no comprehension frames)."""
    in_ids, in_dtypes = [], []
    for a in args:
        if isinstance(a, Tensor):
            in_ids.append(a._id)
            in_dtypes.append(a.dtype)  # (.dtype, not ._value: a deferred output must not run here)
    if not in_ids:
        return  # made from constants only: nothing can connect through it
    outs = [(o._id, o.dtype) for o in out if isinstance(o, Tensor)] if type(out) is tuple else \
        ([(out._id, out.dtype)] if isinstance(out, Tensor) else ())
    if not outs:
        return
    st = tape_set.current()
    in_ids, in_dtypes = tuple(in_ids), tuple(in_dtypes)
    for t in st.tapes:
        lin = t.__dict__.get("_debug_lineage")
        if lin is None:
            lin = t._debug_lineage = {}
        if len(lin) >= LINEAGE_MAX:
            t._debug_lineage_truncated = True
            continue
        if st.stopped or t.paused:
            why = "stop_recording"
        elif not op.differentiable:
            why = "stop_gradient" if op.name == "stop_gradient" else "non_differentiable"
        else:
            why = "unwatched"
        for oid, dt in outs:
            lin[oid] = (op.name, in_ids, why, dt, in_dtypes)


def note_raw_jax_use(tensor_id: int, site: str) -> None:
    """Called by tensor.py when user code handed a value the tapes follow to a plain JAX function (``jnp.sin(x)``):
    the tapes keep where, so explain_gradient can name the call that dropped the gradient."""
    for t in tape_set.current().tapes:
        uses = t.__dict__.get("_debug_raw_jax_uses")
        if uses is None:
            uses = t._debug_raw_jax_uses = []
        if len(uses) < RAW_USES_MAX and (tensor_id, site) not in uses:
            uses.append((tensor_id, site))


def markers(inner) -> Dict[int, Tuple]:
    """The markers left on a tape (the tape's internal ``Tape`` object); empty when none."""
    return inner.__dict__.get("_debug_lineage", {}) if inner is not None else {}


def markers_truncated(inner) -> bool:
    """True when the tape ran more unrecorded ops than ``LINEAGE_MAX`` and some markers were dropped."""
    return inner is not None and inner.__dict__.get("_debug_lineage_truncated", False)


def raw_jax_uses(inner) -> List[Tuple[int, str]]:
    """(tensor id, call site) of the plain JAX calls noted on a tape, oldest first."""
    return inner.__dict__.get("_debug_raw_jax_uses", []) if inner is not None else []


def raw_jax_hint(inner, source_id: int) -> Optional[str]:
    """Why a path is cut when a plain JAX call was noted on the tape (preferably one of ``source_id``)."""
    uses = raw_jax_uses(inner)
    if not uses:
        return None
    site = next((s for i, s in uses if i == source_id), uses[-1][1])
    return (f"a value the tape follows was passed to a plain JAX function at {site}; JAX computed with the raw "
            "array and returned a jax.Array the tape cannot see, which cuts the recorded path. Use the tj.numpy "
            "equivalent (tj.numpy.sin instead of jax.numpy.sin), or wrap the JAX function with tj.op(fn)")


tape_set.debug_hooks.note_unrecorded = note_unrecorded
tape_set.debug_hooks.note_raw_jax_use = note_raw_jax_use
