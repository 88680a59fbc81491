"""``tj.random``: stateless random ops on JAX keys (as ``jax.random``) and TF's stateful ``Generator``.

Stateless ops take a key (``tj.random.key(seed)``, ``jax.random.key``/``PRNGKey``, or one of those in a
Tensor) and return Tensors. They are declared in two tables (declare.py): the draws, built with
``not_differentiable`` (never recorded), and the shuffle, whose kernels JAX derives. What is
differentiable follows TF's ops:

* no output is differentiable w.r.t. a key (an integer bit pattern); ``normal``/``uniform``'s draws are
  constants of the step (TF's RandomStandardNormal/RandomUniform have no gradient);
* ``uniform``'s ``minval``/``maxval`` and ``Generator.normal``'s ``mean``/``stddev`` *are* differentiable,
  because TF builds them from the draw with ordinary ops (``u * (maxval - minval) + minval``,
  ``z * stddev + mean``): the reparameterization gradient;
* ``categorical``'s logits and ``bernoulli``'s ``p`` are not (TF: ``NotDifferentiable("Multinomial")``;
  a Bernoulli draw is boolean): their gradient is None;
* ``permutation``/``shuffle`` of ``x`` is a gather with a fixed permutation: differentiable w.r.t. ``x``
  (a registered op; TF's RandomShuffle has no gradient registered, JAX's permutation does: tapejax keeps it).

``Generator`` holds its key in a non-trainable ``tj.Variable`` and advances it at every draw, so one
generator never returns the same numbers twice: eagerly; inside ``tj.function`` (the state is read and
assigned in the trace, so the compiled program takes it as an input and returns the advanced state, and
each call draws anew); and in a replayed eager step (each draw runs at once, outside the deferred ops, and
enters the replayed program as a new input array).
"""
from __future__ import annotations

import secrets
from typing import Any, Callable, Dict, List, Optional, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from .. import tape_set
from ..tensor import Tensor, Variable, describe_value
from . import numpy as tnp
from .core import OpDef, apply, freeze
from .declare import not_differentiable as _not_differentiable

__all__ = ["key", "split", "fold_in", "normal", "uniform", "categorical", "bernoulli", "permutation", "shuffle",
           "Generator", "set_seed", "get_global_generator", "set_global_generator"]


def _raw_key(k: Any):
    """The jax key inside ``k`` (a key array, a raw uint32 PRNGKey, or a Tensor/Variable holding one)."""
    if isinstance(k, Variable):
        k = k.read_value()
    if isinstance(k, Tensor):
        k = k.value
    if not isinstance(k, (jax.Array, jax.core.Tracer, np.ndarray)):
        raise TypeError(f"tj.random: expected a key from tj.random.key(seed) or jax.random.key(seed), got "
                        f"{type(k).__name__} ({describe_value(k)}). Make one with tj.random.key(seed), or give a shape list first "
                        "for TF's stateful draw (tj.random.normal([2, 3])).")
    return k


def _static_shape(shape, what: str) -> tuple:
    shape = freeze(shape)
    if shape is None:
        return ()
    if isinstance(shape, int):
        return (shape,)
    if not (isinstance(shape, tuple) and all(isinstance(d, int) for d in shape)):
        raise TypeError(f"tj.random.{what}: shape must be a tuple of Python ints, got {shape!r}")
    return shape


# Two families. Draws (``_not_differentiable``, declare.py): no output has a gradient, so none is recorded.
# name                                        function (key first; shape, dtype static)            TF's gradient
_normal = _not_differentiable("random_normal", jax.random.normal)  # none (RandomStandardNormal)
_uniform01 = _not_differentiable("random_uniform", jax.random.uniform)  # none (RandomUniform)
_randint = _not_differentiable("random_randint", lambda k, lo, hi, shape, dtype: jax.random.randint(k, shape, lo, hi,
                                                                                                   dtype))  # none
_categorical = _not_differentiable("random_categorical", jax.random.categorical)  # NotDifferentiable("Multinomial")
_bernoulli = _not_differentiable("random_bernoulli", jax.random.bernoulli)  # a bool draw
_split = _not_differentiable("random_split", jax.random.split)
_fold_in = _not_differentiable("random_fold_in", jax.random.fold_in)

# Shuffles: a gather with a fixed permutation, differentiable w.r.t. x (JAX's derivative: the inverse scatter).
_PERM_X = np.asarray(np.random.default_rng(17).uniform(-1.5, 1.5, size=(4, 3)), np.float32)
_permutation = OpDef("random_permutation", lambda x, k, axis=0, independent=False: jax.random.permutation(
    k, x, axis=axis, independent=independent),
    # keys made when the samples are asked for: a key made at import would start JAX's backend
    samples=lambda: [((_PERM_X, jax.random.key(1)), {}),
                     ((_PERM_X, jax.random.key(2)), {"axis": 1, "independent": True})])


def key(seed: int):
    """A JAX key for ``seed`` (``jax.random.key``): the argument of every stateless op."""
    if isinstance(seed, (Tensor, Variable)):
        seed = int(np.asarray(seed.numpy()))
    return jax.random.key(int(seed))


def split(key: Any, num: int = 2):
    """``jax.random.split``: ``num`` new keys (a key array of shape ``(num,)``)."""
    return apply(_split, (_raw_key(key),), {"num": int(num)}).value


def fold_in(key: Any, data: int):
    """``jax.random.fold_in``: a new key from ``key`` and an integer."""
    return apply(_fold_in, (_raw_key(key),), {"data": int(data)}).value


def _tf_style(args: tuple, kwargs: dict) -> bool:
    """Whether a call of ``normal``/``uniform`` is TF's (a shape first: a list or tuple, or a 1-D integer
    array or Tensor) rather than JAX's (a key first)."""
    if not args:
        return "key" not in kwargs
    x = args[0]
    if isinstance(x, (list, tuple)):
        return True
    if isinstance(x, Variable):
        return False
    x = x.value if isinstance(x, Tensor) else x
    dtype = getattr(x, "dtype", None)
    return (dtype is not None and np.ndim(x) == 1 and not jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key)
            and jnp.issubdtype(dtype, jnp.signedinteger))


def normal(*args, **kwargs) -> Tensor:
    """Standard normal draws, called either way:

    * ``normal(key, shape=(), dtype=float32)``: ``jax.random.normal`` on a key (stateless);
    * ``normal(shape, mean=0.0, stddev=1.0, dtype=float32, seed=None, name=None)``: ``tf.random.normal``, from
      the global generator (``set_seed``), or with ``seed`` from that seed's own stream (TF's op seed).

    No gradient w.r.t. the draw (TF's RandomStandardNormal has none); ``mean``/``stddev`` get theirs."""
    return (_tf_normal if _tf_style(args, kwargs) else _jax_normal)(*args, **kwargs)


def _jax_normal(key: Any, shape: Sequence[int] = (), dtype: Any = jnp.float32) -> Tensor:
    return apply(_normal, (_raw_key(key),), {"shape": _static_shape(shape, "normal"), "dtype": jnp.dtype(dtype)})


def _tf_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = jnp.float32, seed: Optional[int] = None,
               name: Optional[str] = None) -> Tensor:
    return _stream(seed).normal(_static_shape(shape, "normal"), mean, stddev, dtype)


def _is_default(v, default) -> bool:
    return type(v) in (int, float) and v == default


def uniform(*args, **kwargs) -> Tensor:
    """Uniform draws in ``[minval, maxval)``, called either way:

    * ``uniform(key, shape=(), dtype=float32, minval=0.0, maxval=1.0)``: ``jax.random.uniform`` on a key;
    * ``uniform(shape, minval=0, maxval=None, dtype=float32, seed=None, name=None)``: ``tf.random.uniform``
      from the global generator (or ``seed``'s stream); an integer dtype needs ``maxval``, as TF.

    As TF, a float draw is ``u * (maxval - minval) + minval`` with ``u`` uniform in [0, 1):
    ``minval``/``maxval`` (Tensors, Variables) get its gradient; ``u`` has none."""
    return (_tf_uniform if _tf_style(args, kwargs) else _jax_uniform)(*args, **kwargs)


def _tf_uniform(shape: Any, minval: Any = 0, maxval: Any = None, dtype: Any = jnp.float32,
                seed: Optional[int] = None, name: Optional[str] = None) -> Tensor:
    return _stream(seed).uniform(_static_shape(shape, "uniform"), minval, maxval, dtype)


def _jax_uniform(key: Any, shape: Sequence[int] = (), dtype: Any = jnp.float32, minval: Any = 0.0,
                 maxval: Any = 1.0) -> Tensor:
    dtype = jnp.dtype(dtype)
    if not jnp.issubdtype(dtype, jnp.floating):
        raise TypeError(f"tj.random.uniform: dtype must be a float dtype, got {dtype} (jax.random.uniform's rule); "
                        "for integers use tj.random.Generator.uniform(..., dtype=int32) or jax.random.randint")
    u = apply(_uniform01, (_raw_key(key),), {"shape": _static_shape(shape, "uniform"), "dtype": dtype})
    if _is_default(minval, 0) and _is_default(maxval, 1):
        return u
    return u * (tnp.subtract(maxval, minval)) + minval


def categorical(key: Any, logits: Any, axis: int = -1, shape: Optional[Sequence[int]] = None) -> Tensor:
    """``jax.random.categorical``: indices drawn with probabilities ``softmax(logits)``; the logits get no
    gradient (TF: ``NotDifferentiable("Multinomial")``)."""
    shape = None if shape is None else _static_shape(shape, "categorical")
    return apply(_categorical, (_raw_key(key), logits), {"axis": int(axis), "shape": shape})


def bernoulli(key: Any, p: Any = 0.5, shape: Optional[Sequence[int]] = None) -> Tensor:
    """``jax.random.bernoulli``: booleans, True with probability ``p`` (no gradient)."""
    shape = None if shape is None else _static_shape(shape, "bernoulli")
    return apply(_bernoulli, (_raw_key(key), p), {"shape": shape})


def permutation(key: Any, x: Any, axis: int = 0, independent: bool = False) -> Tensor:
    """``jax.random.permutation``: ``x`` shuffled along ``axis`` (an int ``x``: a permutation of ``range(x)``).
    Differentiable w.r.t. ``x``."""
    if isinstance(x, (int, np.integer)):
        x = jnp.arange(int(x))
    return apply(_permutation, (x, _raw_key(key)), {"axis": int(axis), "independent": bool(independent)})


def shuffle(*args, **kwargs) -> Tensor:
    """``x`` shuffled along its first axis (as ``permutation``), called either way:

    * ``shuffle(key, x, axis=0)``: ``jax.random.shuffle`` on a key (stateless);
    * ``shuffle(value, seed=None, name=None)``: ``tf.random.shuffle``, from the global generator (``set_seed``)
      or ``seed``'s own stream, as ``normal(shape)``; a scalar comes back unchanged, as TF."""
    if ("value" in kwargs or "seed" in kwargs or "name" in kwargs
            or (len(args) == 1 and "x" not in kwargs) or (args and not _is_key(args[0]))):
        return _tf_shuffle(*args, **kwargs)
    return _jax_shuffle(*args, **kwargs)


def _is_key(k: Any) -> bool:
    """Whether ``k`` looks like a JAX key: a typed key array, or a raw uint32 key (last axis 2)."""
    k = k.read_value() if isinstance(k, Variable) else k
    k = k.value if isinstance(k, Tensor) else k
    dtype = getattr(k, "dtype", None)
    return dtype is not None and (jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key)
                                  or (dtype == np.uint32 and np.shape(k)[-1:] == (2,)))


def _jax_shuffle(key: Any, x: Any, axis: int = 0) -> Tensor:
    return permutation(key, x, axis=axis)


def _tf_shuffle(value: Any, seed: Optional[int] = None, name: Optional[str] = None) -> Tensor:
    if np.ndim(value.value if isinstance(value, Tensor) else value) == 0:  # (a Variable reads as its value)
        return tnp.asarray(value)
    return permutation(_stream(seed).make_key(), value, axis=0)


# -- TF's stateful Generator -----------------------------------------------------------------------------

@jax.jit
def _advance(data):
    """(the next state, a key for one draw) from a state's key data: one split, so no key is used twice."""
    nxt, sub = jax.random.split(jax.random.wrap_key_data(data))
    return jax.random.key_data(nxt), sub


class Generator:
    """TF's ``tf.random.Generator``: a random stream whose state (a JAX key's data) is a non-trainable
    ``tj.Variable``, advanced at every draw, so it never returns the same numbers twice, also inside
    ``tj.function`` (the state is lifted as an input and output of the program) and in replayed steps.

    Make one with ``Generator.from_seed(seed)`` (or ``from_key``); ``split(count)`` gives independent ones."""

    def __init__(self, state: Variable) -> None:
        if not isinstance(state, Variable):
            raise TypeError("tj.random.Generator: make one with Generator.from_seed(seed) or "
                            "Generator.from_key(key)")
        self._state = state

    @classmethod
    def from_seed(cls, seed: int, alg: Any = None) -> "Generator":
        """A generator whose stream is determined by ``seed`` (``alg`` is accepted for TF compatibility;
        JAX's default PRNG implementation is used)."""
        return cls.from_key(key(seed))

    @classmethod
    def from_key(cls, k: Any) -> "Generator":
        """A generator starting from the JAX key ``k``."""
        data = jax.random.key_data(_raw_key(k))
        if isinstance(data, jax.core.Tracer):
            raise RuntimeError("tj.random.Generator: a generator cannot be made (from_key, split) inside "
                               "tj.function or jax.jit, since its state is a new tj.Variable; make it outside "
                               "and draw from it inside (its state is then an input and output of the program)")
        return cls(Variable(data, trainable=False, name="random_generator_state"))

    def reset_from_seed(self, seed: int) -> None:
        """Restart the stream from ``seed`` (TF's ``Generator.reset_from_seed``)."""
        self._state.assign(jax.random.key_data(key(seed)))

    @property
    def state(self) -> Variable:
        """The state: a ``tj.Variable`` holding the current key's data (checkpoint it to resume a stream)."""
        return self._state

    def make_key(self):
        """A fresh JAX key for one draw; advances the state."""
        data = self._state.read_value().value
        nxt, sub = _advance(data)
        self._state.assign(nxt)
        return sub

    def normal(self, shape: Sequence[int], mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = jnp.float32,
               name: Optional[str] = None) -> Tensor:  # (name: TF's op name, ignored)
        """``tf.random.Generator.normal``: ``z * stddev + mean``; ``mean``/``stddev`` are differentiable (TF)."""
        z = _jax_normal(self.make_key(), shape, dtype)
        if not _is_default(stddev, 1):
            z = z * stddev
        if not _is_default(mean, 0):
            z = z + mean
        return z

    def uniform(self, shape: Sequence[int], minval: Any = 0, maxval: Any = None, dtype: Any = jnp.float32,
                name: Optional[str] = None) -> Tensor:
        """``tf.random.Generator.uniform`` in ``[minval, maxval)``: floats (``maxval`` defaults to 1;
        ``minval``/``maxval`` differentiable, as TF) or integers (``maxval`` required; no gradient)."""
        dtype = jnp.dtype(dtype)
        shape = _static_shape(shape, "Generator.uniform")
        if jnp.issubdtype(dtype, jnp.integer):
            if maxval is None:
                raise ValueError("tj.random.Generator.uniform: an integer dtype needs maxval (as TF)")
            return apply(_randint, (self.make_key(), minval, maxval), {"shape": shape, "dtype": dtype})
        return _jax_uniform(self.make_key(), shape, dtype, minval, 1.0 if maxval is None else maxval)

    def split(self, count: int = 1) -> List["Generator"]:
        """``count`` new generators with independent streams; advances this one (TF's ``Generator.split``).
        Call it outside ``tj.function``: it makes Variables."""
        keys = split(self.make_key(), int(count))
        return [Generator.from_key(keys[i]) for i in range(int(count))]

    def __repr__(self) -> str:
        return f"<tj.random.Generator state={self._state.numpy().tolist()}>"


# -- TF's global generator and op seeds ------------------------------------------------------------------

_global: List[Optional[Generator]] = [None]
_global_seed: List[int] = [0]  # the last set_seed (op-seed streams are made from it and their seed)
_seeded: Dict[int, Generator] = {}  # op seed -> its stream (TF: reproducible per seed, new numbers per call)


def _outside_traces(make: Callable[[], Generator]) -> Generator:
    """``make()`` run as at the top level even inside a ``tj.function`` trace (TF's ``init_scope``): the
    generator's state must be a concrete Variable, not a value of the trace that happens to draw first."""
    with tape_set.isolated(), jax.ensure_compile_time_eval():
        return make()


def get_global_generator() -> Generator:
    """The generator TF-style draws (``tj.random.normal(shape)``) use; seeded by ``set_seed``, else from the
    operating system's entropy (a new stream each process, as TF without a global seed)."""
    if _global[0] is None:
        seed = secrets.randbits(31)
        _global[0] = _outside_traces(lambda: Generator.from_seed(seed))
    return _global[0]


def set_global_generator(generator: Generator) -> None:
    """Use ``generator`` for TF-style draws from now on (TF's ``tf.random.set_global_generator``)."""
    if not isinstance(generator, Generator):
        raise TypeError(f"tj.random.set_global_generator: expected a tj.random.Generator, got "
                        f"{type(generator).__name__}")
    _global[0] = generator


def set_seed(seed: int) -> None:
    """TF's ``tf.random.set_seed``: TF-style draws repeat their sequence after each call with the same seed
    (the global generator and every op seed's stream restart; Variables keep their identity, so
    ``tj.function`` programs that draw stay valid)."""
    seed = _global_seed[0] = int(seed)
    gen = _global[0]
    if gen is None:
        _global[0] = _outside_traces(lambda: Generator.from_seed(seed))
    else:
        gen.reset_from_seed(seed)
    for op_seed, g in _seeded.items():
        g.reset_from_seed(_mix(seed, op_seed))


def _mix(global_seed: int, op_seed: int) -> int:
    return (global_seed * 1_000_003 + op_seed) % (2 ** 31)


def _stream(seed: Optional[int]) -> Generator:
    """The generator a TF-style draw with op seed ``seed`` (or none) uses."""
    if seed is None:
        return get_global_generator()
    seed = int(seed)
    g = _seeded.get(seed)
    if g is None:
        g = _seeded[seed] = _outside_traces(lambda: Generator.from_seed(_mix(_global_seed[0], seed)))
    return g
