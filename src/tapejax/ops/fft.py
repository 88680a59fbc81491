"""``tj.numpy.fft``: jax.numpy.fft's transforms as recorded ops (filled in by the module's functions below)."""
from __future__ import annotations

import sys

from . import numpy as _tnp

__all__: list = []

_tnp.fft = sys.modules[__name__]  # tj.numpy.fft is this module
