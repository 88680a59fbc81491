"""make test's sample of parametrized cases (tests/case_sampling.py): which cases it keeps."""
from __future__ import annotations

import math
import types

import pytest

from case_sampling import sampled

pytestmark = pytest.mark.every_case  # the sampler's own tests: each case checks another rule


def _item(name, case=None, every_case=False, path="tests/test_x.py"):
    return types.SimpleNamespace(
        path=path, cls=None, originalname=name, callspec=None if case is None else object(),
        nodeid=f"{path}::{name}" + ("" if case is None else f"[{case}]"),
        get_closest_marker=lambda marker: object() if every_case and marker == "every_case" else None)


def _suite(every_case=False):
    return ([_item("test_plain"), _item("test_other_plain")]
            + [_item("test_grid", i, every_case) for i in range(50)]
            + [_item("test_pair", i) for i in range(2)]
            + [_item("test_triple", i) for i in range(3)]
            + [_item("test_grid", i, path="tests/test_y.py") for i in range(7)])


@pytest.mark.parametrize("fraction", [0.2, 0.5, 0.99])
def test_each_function_keeps_its_share_of_its_cases_and_every_unparametrized_test(fraction):
    items = _suite()
    kept, deselected = sampled(items, fraction, "0")
    assert sorted(map(id, kept + deselected)) == sorted(map(id, items))
    assert [i for i in items if i in kept] == kept  # the order is kept

    def count(name, path="tests/test_x.py"):
        return sum(1 for i in kept if i.originalname == name and i.path == path)
    assert count("test_plain") == count("test_other_plain") == 1
    assert count("test_grid") == max(2, math.ceil(fraction * 50))
    assert count("test_pair") == 2
    assert count("test_triple") == max(2, math.ceil(fraction * 3))
    assert count("test_grid", "tests/test_y.py") == max(2, math.ceil(fraction * 7))  # functions of two files apart


def test_the_same_seed_keeps_the_same_cases_and_another_seed_others():
    ids = [[i.nodeid for i in sampled(_suite(), 0.2, seed)[0]] for seed in ("0", "0", "1")]
    assert ids[0] == ids[1]
    assert ids[0] != ids[2]
    grid_cases = [{n for n in s if "test_x.py::test_grid[" in n} for s in ids]
    assert grid_cases[0] != grid_cases[2] and len(grid_cases[0]) == len(grid_cases[2]) == 10


def test_a_module_marked_every_case_runs_every_case():
    kept, _ = sampled(_suite(every_case=True), 0.2, "0")
    assert sum(1 for i in kept if i.originalname == "test_grid" and i.path == "tests/test_x.py") == 50
