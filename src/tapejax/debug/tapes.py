"""What the diagnostics read from a ``tj.GradientTape``: its recorded data, and whether it is usable.

Terms. A ``GradientTape`` (backprop.py) is the user's handle; what it recorded lives in its internal
``Tape`` (tape.py): ``op_tape`` (op id -> entry with op type, input ids, output infos, backward function),
what made each tensor (``producer(tid)``: an op id, ``-1`` when watched, None when unknown; ``knows(tid)``)
and ``watched_variables``.
A non-persistent tape drops that internal tape at its first ``gradient()`` call: it is then *used*, and
nothing is left to explain or summarise.
"""
from __future__ import annotations

import jax.numpy as jnp

from ..backprop import GradientTape
from ..tape import Tape


def inner_tape(tape):
    """The internal ``Tape`` of a ``tj.GradientTape`` (None before it was entered); a ``Tape`` as is."""
    if isinstance(tape, Tape):
        return tape
    if not isinstance(tape, GradientTape):
        raise TypeError(f"expected a tj.GradientTape, got {type(tape).__name__}")
    return tape._tape


def tape_used(tape) -> bool:
    """True for a non-persistent GradientTape whose ``gradient()`` already ran (its ops are gone)."""
    return (getattr(tape, "_tape", 1) is None and not getattr(tape, "_persistent", True)
            and getattr(tape, "last_gradient_stats", None) is not None)


def usable_inner(tape, what: str):
    """The internal tape for ``tj.debug.<what>``, or a ValueError saying why there is none."""
    if tape_used(tape):
        raise ValueError(f"tj.debug.{what}: the tape was already used; a non-persistent GradientTape forgets its "
                         "ops at its first gradient() call. Call it before tape.gradient, or use persistent=True.")
    inner = inner_tape(tape)
    if inner is None:
        raise ValueError(f"tj.debug.{what}: the tape has recorded nothing yet (enter it with `with tape:`).")
    return inner


def is_float(dt) -> bool:
    """True for the dtypes gradients flow through (real and complex floating point)."""
    return jnp.issubdtype(dt, jnp.floating) or jnp.issubdtype(dt, jnp.complexfloating)
