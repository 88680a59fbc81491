"""Deferred execution and replay: a layer over the eager tape, plugged in through registration points.

* ``lazy``: while one GradientTape records, ops are recorded without running (their outputs are
  ``LazyTensor``s) and the tape's step is described as data (``StepRecord``) — installed into the op
  dispatch (``ops.core.set_deferral``).
* ``replay``: at ``gradient`` time a recurring step runs as one compiled program; ``pending``: its
  gradients before it has run, and an update fused into it; ``ahead``: the next fused step dispatched
  as soon as its inputs are known.
* ``step_tape``: the tape GradientTape records on (``tape.set_tape_type``): the eager tape keeping its
  StepRecord in step and asking ``replay.gradient`` before sweeping.

Importing this package installs them; ``tapejax/__init__.py`` does.
"""
from . import lazy, replay, step_tape  # noqa: F401  (importing installs the hooks)
