"""The versions pyproject.toml promises are the ones tapejax checks at import.

Found on a fresh machine: with ``jax>=0.4.30`` and ``requires-python >= 3.10`` declared, Python 3.10 got
jax 0.6.2 and ``import tapejax`` failed deep inside ops/nn.py (``jax.nn.log1mexp``), and jax 0.8.3 / 0.9.2
imported but never replayed a step (``jax.extend.core.subjaxprs`` is newer). An older jax is now refused
at import with a message naming the version it needs. jax is bounded above too (pyproject.toml says why):
Python 3.12+ got jax 0.12, whose newer jax.numpy names tj.numpy does not mirror yet.
"""
import os
import re
import subprocess
import sys

import pytest

from tapejax.requirements import JAX_MIN_VERSION, check_jax_version

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _pyproject() -> str:
    with open(os.path.join(ROOT, "pyproject.toml")) as f:
        return f.read()


def _jax_bound() -> tuple:
    found = re.search(r'"jax>=(\d+)\.(\d+)\.(\d+)[,"]', _pyproject())
    assert found, "pyproject.toml names no jax>=X.Y.Z lower bound"
    return tuple(map(int, found.groups()))


def _import_with_jax_version(version: str) -> subprocess.CompletedProcess:
    code = f"import jax; jax.__version__ = {version!r}; import tapejax"
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src") + os.pathsep + os.environ.get("PYTHONPATH", ""),
               JAX_PLATFORMS="cpu")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)


def test_jax_and_jaxlib_bounds_agree_with_the_import_check():
    assert _jax_bound() == JAX_MIN_VERSION
    # jaxlib is bounded as jax is, both ways (a jaxlib of another release than jax's fails at import)
    bounds = dict(re.findall(r'"(jax|jaxlib)(>=[^"]*)"', _pyproject()))
    assert bounds["jax"] == bounds["jaxlib"], bounds
    assert bounds["jax"].startswith(f">={'.'.join(map(str, _jax_bound()))},<"), bounds  # (tested releases only)


@pytest.mark.parametrize("version", ["0.10.0", "0.10.2", "0.12.0.1", "0.10.0rc1", "0.11.0.dev20261201", "1.0.0"])
def test_releases_at_or_past_the_bound_pass(version):
    check_jax_version(version)


@pytest.mark.parametrize("version", ["0.9.2", "0.8.3", "0.6.2", "0.4.30", "0.9.99.dev1"])
def test_older_releases_are_refused_naming_both_versions(version):
    with pytest.raises(ImportError, match=rf"tapejax needs jax >= 0\.10\.0, found jax {re.escape(version)}: "):
        check_jax_version(version)


@pytest.mark.parametrize("below", [True, False])
def test_a_jax_older_than_the_bound_is_refused_at_import(below):
    major, minor, patch = _jax_bound()
    version = f"{major}.{minor - 1}.9" if below else f"{major}.{minor}.{patch}"
    run = _import_with_jax_version(version)
    if below:
        assert run.returncode != 0
        assert "ImportError" in run.stderr
        assert f"tapejax needs jax >= {major}.{minor}.{patch}, found jax {version}" in run.stderr
    else:
        assert run.returncode == 0, run.stderr
