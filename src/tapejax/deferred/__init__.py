"""Deferred execution and replay: a layer over the eager tape, plugged in through registration points.

* ``lazy``: while one GradientTape records, ops are recorded without running (their outputs are
  ``LazyTensor``s) and the tape's step is described as data (``StepRecord``) — installed into the op
  dispatch (``ops.core.set_deferral``) and the tape (``tape.set_step_recorder``).
* ``replay``: at ``gradient`` time a recurring step runs as one compiled program — installed into
  the tape (``tape.set_replayer``).

Importing this package installs both; ``tapejax/__init__.py`` does.
"""
from . import lazy, replay  # noqa: F401  (importing installs the hooks)
