"""The op machinery (core), how ops are declared (declare) and the op surfaces (numpy, numpy.linalg, numpy.fft, nn,
random)."""
import jax.numpy as _jnp

from . import core, numpy, linalg, nn, random  # noqa: F401
from . import fft, polynomial, index_tricks  # noqa: F401  (set on tj.numpy as they import)
from ._operators import install as _install

_install()
# (after the operators took the op functions themselves: Tensor's -t is negative's function, not its ufunc)
from . import ufunc  # noqa: E402  (makes tj.numpy's add, multiply... jax.numpy-style ufuncs)

from .api import accept_name as _accept_name  # noqa: E402

# After _install: the Python operators keep the ops themselves (no extra call layer on the hot path).
_accept_name(numpy, linalg, nn, random, fft, polynomial, index_tricks, ufunc)

# ``from tapejax.numpy import *``: the jax.numpy names tj.numpy mirrors (fft, polynomial and index_tricks
# added theirs above) and its TF-style extras, not the helpers and modules it imports, nor the dtype ``bool``
# (answered by its module __getattr__, which a star import would put over Python's bool).
numpy.__all__ = sorted({n for n in vars(numpy) if not n.startswith("_") and hasattr(_jnp, n)} | set(numpy.TF_EXTRAS))
