"""The op machinery (core) and the op surfaces (numpy, nn)."""
from . import core, numpy, nn  # noqa: F401
from ._operators import install as _install

_install()
