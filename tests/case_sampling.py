"""A sample of each parametrized test's cases, for the time-bounded run (``make test``).

The suite's time is its number of distinct small XLA programs (README, "Tests"), and most of those come from
grids: one test function over every op, dtype, path or seed. ``--case-fraction F`` runs, of each test function
with n parametrized cases, max(2, ceil(F * n)) of them (all of them where that is n), chosen by a hash of each
case's id and ``--case-seed``: the same cases on every worker and every run with the same seed, other cases with
another seed. Tests that are not parametrized, and those of a module marked ``every_case`` (the path-consistency
safety net), always run. The cases left out are reported as deselected, never as passed; ``make test-full`` (or
pytest without ``--case-fraction``, the default 1) runs every case.
"""
from __future__ import annotations

import collections
import hashlib
import math

import pytest

_COUNTS = pytest.StashKey[tuple]()  # (tests run, tests collected) under --case-fraction


def pytest_addoption(parser):
    group = parser.getgroup("tapejax case sampling")
    group.addoption("--case-fraction", type=float, default=1.0,
                    help="run this fraction (at least 2) of each parametrized test's cases; 1 (the default): all")
    group.addoption("--case-seed", default="0",
                    help="which cases --case-fraction picks: another seed, other cases (default 0)")


def pytest_configure(config):
    config.addinivalue_line("markers", "every_case: run every parametrized case, even under --case-fraction")
    fraction = config.getoption("case_fraction")
    if not 0 < fraction <= 1:
        raise pytest.UsageError(f"--case-fraction must be in (0, 1], got {fraction}")


def _rank(seed: str, nodeid: str) -> str:
    return hashlib.sha256(f"{seed}\0{nodeid}".encode()).hexdigest()


def sampled(items, fraction: float, seed: str):
    """(kept, deselected): of each test function's parametrized cases in ``items``, those with the lowest ranks."""
    families = collections.defaultdict(list)
    for item in items:
        if getattr(item, "callspec", None) is not None and item.get_closest_marker("every_case") is None:
            families[(item.path, item.cls, item.originalname)].append(item)
    dropped = set()
    for cases in families.values():
        keep = min(len(cases), max(2, math.ceil(fraction * len(cases))))
        dropped.update(id(item) for item in sorted(cases, key=lambda i: _rank(seed, i.nodeid))[keep:])
    return ([item for item in items if id(item) not in dropped], [item for item in items if id(item) in dropped])


def pytest_collection_modifyitems(config, items):
    fraction = config.getoption("case_fraction")
    if fraction >= 1:
        return
    kept, deselected = sampled(items, fraction, config.getoption("case_seed"))
    config.stash[_COUNTS] = (len(kept), len(items))
    if hasattr(config, "workeroutput"):  # an xdist worker: its controller collects nothing, so it is told
        config.workeroutput["case_sampling"] = config.stash[_COUNTS]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    counts = getattr(node, "workeroutput", {}).get("case_sampling")
    if counts is not None:  # every worker collects every test, so each reports the same counts
        node.config.stash[_COUNTS] = tuple(counts)


def pytest_terminal_summary(terminalreporter, config):
    fraction = config.getoption("case_fraction")
    if fraction < 1:
        ran, total = config.stash.get(_COUNTS, ("?", "?"))
        terminalreporter.write_line(
            f"tapejax: {ran} of {total} tests selected: a sample of each parametrized test's cases (--case-fraction "
            f"{fraction}, --case-seed {config.getoption('case_seed')}); `make test-full` runs every case")
