"""The oldest jax tapejax works with, checked when tapejax is imported.

pyproject.toml declares the same bound (tests/test_requirements.py keeps the two together). An older jax
would fail deep inside the first module that uses a newer API, or import and never replay a step: the
import says so instead. jax 0.10 has no Python 3.10 release, hence tapejax's Python 3.11+."""
import re

import jax

JAX_MIN_VERSION = (0, 10, 0)


def check_jax_version(version: str = jax.__version__) -> None:
    """Raise ImportError naming the jax ``version`` found and the one needed, if it is older than the bound."""
    found = re.match(r"(\d+)\.(\d+)\.(\d+)", version)
    if found is not None and tuple(map(int, found.groups())) < JAX_MIN_VERSION:
        needed = ".".join(map(str, JAX_MIN_VERSION))
        raise ImportError(f"tapejax needs jax >= {needed}, found jax {version}: install tapejax with pip so that its "
                          "requirements hold (pip install -e . in its checkout picks the jax and jaxlib pyproject.toml "
                          "names), on Python 3.11 or newer (jax 0.10 has no Python 3.10 release).")


check_jax_version()
