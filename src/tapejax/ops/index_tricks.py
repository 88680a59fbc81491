"""jax.numpy's index helpers (``r_``, ``c_``, ``mgrid``, ``ogrid``, ``s_``, ``index_exp``), set on tj.numpy."""
from __future__ import annotations

from . import numpy as _tnp

__all__: list = []

for _name in __all__:  # (tj.numpy imports nothing of this module: it sits above it)
    setattr(_tnp, _name, globals()[_name])
