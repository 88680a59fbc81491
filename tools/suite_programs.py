"""Which test files compile the most XLA programs (a measurement of the suite, not a test).

The suite's time goes mostly to XLA programs: each distinct program is traced and lowered (a few ms) and then
compiled (tens of ms, with the suite's cheap flags) or loaded from the persistent cache (~2 ms). This runs
pytest (with the arguments given, ``tests`` by default, as ``make test`` does: two workers) with a plugin that
counts, per test, the programs lowered (``jax``'s ``lower_sharding_computation``: one per program a process
had not lowered yet) and the seconds spent lowering them and compiling or loading them, and prints per file:
tests, programs, those seconds and the tests' wall seconds, the heaviest first.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python tools/suite_programs.py                       # the whole suite
    PYTHONPATH=src .venv/bin/python tools/suite_programs.py tests/test_linalg.py  # one file, one process

The plugin (this module, loaded by each pytest process as ``-p suite_programs``) writes one JSON file per
process; a cold XLA cache (``JAX_COMPILATION_CACHE_DIR=<new dir>``) shows what a fresh machine pays.
"""
from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

_OUT_DIR = "TAPEJAX_SUITE_PROGRAMS_DIR"  # where each pytest process writes its rows
_counts = {"programs": 0, "seconds": 0.0}
_rows: list = []


def _count_lowerings() -> None:
    """Wrap jax's lowering of a program (it also compiles, or loads from the cache, what it lowers)."""
    from jax._src.interpreters import pxla
    lower = pxla.lower_sharding_computation

    def counted(*args, **kwargs):
        start = time.perf_counter()
        try:
            return lower(*args, **kwargs)
        finally:
            _counts["programs"] += 1
            _counts["seconds"] += time.perf_counter() - start
    pxla.lower_sharding_computation = counted


def pytest_configure(config) -> None:
    if os.environ.get(_OUT_DIR):
        _count_lowerings()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    programs, seconds, start = _counts["programs"], _counts["seconds"], time.perf_counter()
    yield
    _rows.append((item.nodeid, _counts["programs"] - programs, _counts["seconds"] - seconds,
                  time.perf_counter() - start))


def pytest_sessionfinish(session) -> None:
    out = os.environ.get(_OUT_DIR)
    if out and _rows:
        name = os.environ.get("PYTEST_XDIST_WORKER", "main")
        Path(out, f"{name}.json").write_text(json.dumps(_rows))


def main(argv: list) -> int:
    args = argv or ["tests", "-n", "2", "--dist", "worksteal"]
    with tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, **{_OUT_DIR: out})
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(Path(__file__).resolve().parent),
                                                        env.get("PYTHONPATH")) if p)
        start = time.perf_counter()
        rc = subprocess.call([sys.executable, "-m", "pytest", *args, "-q", "-p", "no:cacheprovider",
                              "--assert=plain", "-p", "suite_programs"], env=env)
        wall = time.perf_counter() - start
        rows = [r for f in sorted(Path(out).glob("*.json")) for r in json.loads(f.read_text())]
    per_file = collections.defaultdict(lambda: [0, 0, 0.0, 0.0])
    for nodeid, programs, seconds, test_wall in rows:
        f = per_file[nodeid.split("::")[0]]
        f[0] += 1
        f[1] += programs
        f[2] += seconds
        f[3] += test_wall
    print(f"\n{len(rows)} tests, {sum(r[1] for r in rows)} programs lowered (each process counts its own), "
          f"{sum(r[2] for r in rows):.0f} s lowering and compiling or loading them, "
          f"{sum(r[3] for r in rows):.0f} s in tests (all processes), {wall:.0f} s wall; pytest exit status {rc}")
    print("| file | tests | programs | lower + compile/load s | test s |")
    print("|---|---:|---:|---:|---:|")
    for name, (tests, programs, seconds, test_wall) in sorted(per_file.items(), key=lambda kv: -kv[1][3]):
        print(f"| {name} | {tests} | {programs} | {seconds:.1f} | {test_wall:.1f} |")
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
