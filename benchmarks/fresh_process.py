"""Running one contender of a benchmark in a fresh process (``many_shapes.py``, ``many_lengths.py``): its compiles,
caches and peak memory are its own. The script is run again with ``--child NAME`` and its other options; the child
prints one JSON line last, the parent reads it back."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Sequence, Tuple, Union


def run_child(script: str, name: str, options: Sequence[str]) -> Tuple[Union[dict, None], str]:
    """``(result, "")`` from ``script --child name *options`` run with this checkout's ``src`` first on the path, or
    ``(None, why)``: the last line of its error output."""
    src = os.path.join(os.path.dirname(os.path.abspath(script)), "..", "src")
    proc = subprocess.run([sys.executable, script, "--child", name, *options], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")})
    if proc.returncode != 0:
        return None, (proc.stderr.strip().splitlines() or ["failed"])[-1][:100]
    return json.loads(proc.stdout.strip().splitlines()[-1]), ""
