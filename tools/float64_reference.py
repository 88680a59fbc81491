"""The float64 side of the float64 scans (float64_derivative_scan.py, float64_array_scan.py,
complex_derivative_scan.py): each tool runs itself again in a subprocess with JAX's x64 mode on (set before jax
starts), hands it what to compute as JSON on stdin and reads its answer, JSON on stdout."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any, Callable, Optional

import numpy as np


def serve(argv: list, reference: Callable[[Any], Any]) -> Optional[int]:
    """In the subprocess (``argv`` starts with ``--reference``): print ``reference(request)`` and return 0; else
    None (the tool goes on)."""
    if argv[:1] != ["--reference"]:
        return None
    json.dump(reference(json.loads(sys.stdin.read())), sys.stdout)
    return 0


def ask(tool: str, request: Any) -> Any:
    """Run ``tool`` (a script's path) with ``--reference`` and x64 on, ``request`` on its stdin: its answer."""
    run = subprocess.run([sys.executable, tool, "--reference"], env=dict(os.environ, JAX_ENABLE_X64="1"), text=True,
                         input=json.dumps(request), capture_output=True)
    if run.returncode:
        raise RuntimeError(f"the float64 reference failed:\n{run.stderr[-3000:]}")
    return json.loads(run.stdout)


def largest_finite(values) -> float:
    """The largest finite magnitude among ``values`` (0 for none): the size the scans measure differences against."""
    a = np.asarray(values, np.float64)
    return float(np.max(np.abs(a[np.isfinite(a)]), initial=0.0))
