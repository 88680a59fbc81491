"""Run every benchmark script in this folder, one after another, each in its own Python process.

A benchmark is any ``benchmarks/*.py`` other than this file and names starting with ``_``: adding a
file is all it takes. ``ORDER`` puts the listed ones first; the rest follow alphabetically.

Run: ``.venv/bin/python benchmarks/run.py [NAME ...]`` (``make bench``); names select scripts by stem,
e.g. ``benchmarks/run.py chain``. Exits non-zero when any script fails.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ORDER = ["chain"]  # shown first; everything else alphabetically after


def discover() -> list:
    found = {p.stem: p for p in HERE.glob("*.py") if p.name != "run.py" and not p.name.startswith("_")}
    first = [found.pop(n) for n in ORDER if n in found]
    return first + [found[n] for n in sorted(found)]


def main(argv: list) -> int:
    scripts = discover()
    if argv:
        unknown = set(argv) - {p.stem for p in scripts}
        if unknown:
            print(f"unknown benchmark(s) {sorted(unknown)}; available: {[p.stem for p in scripts]}", file=sys.stderr)
            return 2
        scripts = [p for p in scripts if p.stem in argv]
    env = dict(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    failed = []
    for path in scripts:
        print(f"\n# benchmarks/{path.name}\n", flush=True)
        t0 = time.perf_counter()
        rc = subprocess.call([sys.executable, str(path)], cwd=HERE.parent, env=env)
        print(f"\n({path.name}: {time.perf_counter() - t0:.0f} s, exit {rc})", flush=True)
        if rc != 0:
            failed.append(path.name)
    if failed:
        print(f"\nfailed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
