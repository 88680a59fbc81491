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

``Generator`` has TF's methods (``from_seed``, ``from_state``, ``from_non_deterministic_state``,
``Generator(copy_from)``, ``normal``, ``uniform``, ``truncated_normal``, ``uniform_full_int``, ``binomial``,
``split``, ``skip``, ``reset``, ``reset_from_seed``, ``state``, ``algorithm``) and TF's argument rules; the
numbers are JAX's (TF's Philox bits cannot be reproduced). It holds its key in a non-trainable ``tj.Variable``
and advances it at every draw, so one
generator never returns the same numbers twice: eagerly; inside ``tj.function`` (the state is read and
assigned in the trace, so the compiled program takes it as an input and returns the advanced state, and
each call draws anew); and in a replayed eager step (each draw runs at once, outside the deferred ops, and
enters the replayed program as a new input array).
"""
from __future__ import annotations

import enum
import operator
import secrets
from typing import Any, Callable, Dict, List, Optional, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from .. import tape_set
from ..tensor import Tensor, Variable, describe_value
from . import numpy as tnp
from .core import OpDef, apply, as_dtype, freeze
from .declare import not_differentiable as _not_differentiable

__all__ = ["key", "split", "fold_in", "normal", "uniform", "truncated_normal", "categorical", "bernoulli",
           "permutation", "shuffle", "Generator", "Algorithm", "set_seed", "get_global_generator",
           "set_global_generator"]


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
    if any(d < 0 for d in shape):  # as TF (InvalidArgumentError "Dimension -2 must be >= 0"); XLA fails to compile it
        raise ValueError(f"tj.random.{what}: shape must not have negative dimensions, got {shape!r}")
    return shape


def _tf_shape(shape, what: str) -> tuple:
    """A shape given as TF takes it (a list, tuple, or 1-D integer Tensor/array): TF's errors for the rest
    (``InvalidArgumentError``, raised here as ``ValueError``): a scalar, non-integer or negative dimensions."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        raise ValueError(f"tj.random.{what}: shape must be a vector of {{int32,int64}}, got shape [] (a scalar "
                         f"{shape}); give [{shape}] for a 1-D result (as TF)")
    shape = freeze(shape)
    if shape is None:
        return ()
    if not isinstance(shape, tuple):
        raise ValueError(f"tj.random.{what}: shape must be a list, tuple or 1-D integer Tensor, got {shape!r}")
    for d in shape:
        if isinstance(d, bool) or not isinstance(d, int):
            raise ValueError(f"tj.random.{what}: shape must hold integers (TF: int32 or int64), got {shape!r}")
        if d < 0:
            raise ValueError(f"tj.random.{what}: Dimension {d} must be >= 0 (shape {shape!r}), as TF")
    return shape


def _out_dtype(dtype: Any, what: str, kinds: str) -> Any:
    """The result dtype of a TF-style draw (JAX's canonical one: float64 is float32 with x64 off), checked as
    TF checks it: a float draw with an integer or bool dtype is TF's ``TypeError`` (its default bound, e.g.
    ``0.0``, cannot be converted to that dtype), any other unsupported dtype (complex) its
    ``InvalidArgumentError``, raised here as ``ValueError``."""
    dt = jax.dtypes.canonicalize_dtype(as_dtype(what, dtype))
    if jnp.issubdtype(dt, jnp.floating):
        return dt
    if "int" in kinds and jnp.issubdtype(dt, jnp.integer):
        return dt
    if jnp.issubdtype(dt, jnp.integer) or dt == jnp.bool_:
        raise TypeError(f"tj.random.{what}: cannot draw {dt} values (as TF: Cannot convert the default bound to "
                        f"EagerTensor of dtype {dt}); use a float dtype")
    raise ValueError(f"tj.random.{what}: dtype {dt} is not supported (as TF: allowed are half, bfloat16, float, "
                     f"double{', int32, int64' if 'int' in kinds else ''})")


def _param(x: Any, dtype: Any, what: str) -> Any:
    """A distribution parameter (mean, stddev, minval, maxval) as TF converts it to the draw's ``dtype``
    (``convert_to_tensor(x, dtype=dtype)``): a Tensor or Variable of another dtype raises TF's ``ValueError``
    (never a silently promoted result); a Python number stays weakly typed; anything else is converted."""
    if isinstance(x, (Tensor, Variable)):
        if jax.dtypes.canonicalize_dtype(x.dtype) != dtype:
            raise ValueError(f"{what}: Tensor conversion requested dtype {dtype} for Tensor with dtype {x.dtype}: "
                             f"{describe_value(x)} (as TF); cast it first")
        return x
    if isinstance(x, float) and jnp.issubdtype(dtype, jnp.integer):  # (also 5.0, as TF)
        raise TypeError(f"{what}: Cannot convert {x} to EagerTensor of dtype {dtype} (as TF)")
    if type(x) in (int, float):
        return x
    return tnp.asarray(x, dtype=dtype)


def _int(value, what: str, name: str) -> int:
    """A Python int for an integer parameter; a float raises ``TypeError`` (as jax.random: int() would truncate
    2.5 to 2 and give another key than the user asked for)."""
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"tj.random.{what}: {name} must be an integer, got {describe_value(value)}") from None


# Two families. Draws (``_not_differentiable``, declare.py): no output has a gradient, so none is recorded.
# name                                        function (key first; shape, dtype static)            TF's gradient
_normal = _not_differentiable("random_normal", jax.random.normal)  # none (RandomStandardNormal)
_uniform01 = _not_differentiable("random_uniform", jax.random.uniform)  # none (RandomUniform)
_randint = _not_differentiable("random_randint", lambda k, lo, hi, shape, dtype: jax.random.randint(k, shape, lo, hi,
                                                                                                   dtype))  # none
_categorical = _not_differentiable("random_categorical", jax.random.categorical)  # NotDifferentiable("Multinomial")
_bernoulli = _not_differentiable("random_bernoulli", jax.random.bernoulli)  # a bool draw
_truncated_normal = _not_differentiable(  # none (TruncatedNormal): TF's bounds, two standard deviations
    "random_truncated_normal", lambda k, shape, dtype: jax.random.truncated_normal(k, -2.0, 2.0, shape, dtype))
_bits = _not_differentiable("random_bits", lambda k, shape, dtype: jax.lax.bitcast_convert_type(  # full-range ints
    jax.random.bits(k, shape, jnp.dtype(f"uint{jnp.dtype(dtype).itemsize * 8}")), dtype))
_binomial = _not_differentiable("random_binomial", lambda k, n, p, shape, dtype: jax.random.binomial(
    k, n, p, shape).astype(dtype))  # none: integer counts
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
        seed = np.asarray(seed.numpy())
    return jax.random.key(_int(seed, "key", "seed"))


def split(key: Any, num: int = 2):
    """``jax.random.split``: ``num`` new keys (a key array of shape ``(num,)``)."""
    num = _int(num, "split", "num")
    if num < 0:  # (XLA fails to compile it, with no word of the op)
        raise ValueError(f"tj.random.split: num must not be negative, got {num}")
    return apply(_split, (_raw_key(key),), {"num": num}).value


def fold_in(key: Any, data: int):
    """``jax.random.fold_in``: a new key from ``key`` and an integer."""
    return apply(_fold_in, (_raw_key(key),), {"data": _int(data, "fold_in", "data")}).value


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
    return apply(_normal, (_raw_key(key),), {"shape": _static_shape(shape, "normal"),
                                             "dtype": as_dtype("random_normal", dtype)})


def _tf_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = jnp.float32, seed: Optional[int] = None,
               name: Optional[str] = None) -> Tensor:
    return _stream(seed).normal(shape, mean, stddev, dtype)


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


_TF_UNIFORM_DTYPES = tuple(map(jnp.dtype, (jnp.float16, jnp.bfloat16, jnp.float32, jnp.float64, jnp.int32,
                                             jnp.int64)))


def _tf_uniform(shape: Any, minval: Any = 0, maxval: Any = None, dtype: Any = jnp.float32,
                seed: Optional[int] = None, name: Optional[str] = None) -> Tensor:
    dt = jnp.dtype(dtype)
    if dt not in _TF_UNIFORM_DTYPES:
        raise ValueError(f"tj.random.uniform: Argument `dtype` got invalid value {dt}. Accepted dtypes are "
                         f"{tuple(str(d) for d in _TF_UNIFORM_DTYPES)} (as TF)")
    if maxval is None and jnp.issubdtype(dt, jnp.integer):  # (tf.random.uniform has no full-range ints)
        raise ValueError(f"tj.random.uniform: Must specify maxval for integer dtype {dt} (as TF)")
    return _stream(seed).uniform(shape, minval, maxval, dtype)


def truncated_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = jnp.float32,
                     seed: Optional[int] = None, name: Optional[str] = None) -> Tensor:
    """``tf.random.truncated_normal``: normal draws redrawn beyond two standard deviations, from the global
    generator (``set_seed``) or ``seed``'s own stream, as ``normal(shape)``; ``mean``/``stddev`` are
    differentiable (``z * stddev + mean``, as TF)."""
    return _stream(seed).truncated_normal(shape, mean, stddev, dtype)


def _jax_uniform(key: Any, shape: Sequence[int] = (), dtype: Any = jnp.float32, minval: Any = 0.0,
                 maxval: Any = 1.0) -> Tensor:
    dtype = as_dtype("random_uniform", dtype)
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
    return apply(_categorical, (_raw_key(key), logits), {"axis": _int(axis, "categorical", "axis"), "shape": shape})


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
    if tnp.ndim(value) == 0:
        return tnp.asarray(value)
    return permutation(_stream(seed).make_key(), value, axis=0)


# -- TF's stateful Generator -----------------------------------------------------------------------------

class Algorithm(enum.Enum):
    """TF's ``tf.random.Algorithm`` ids, accepted (with their names and values) wherever TF takes ``alg``. They
    name the algorithm TF would use: the numbers always come from JAX's default PRNG (TF's Philox bits cannot
    be reproduced), so a generator's stream depends on its seed or state only."""
    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


def _alg_id(alg: Any) -> int:
    """TF's ``convert_alg_to_int``: a name (``"philox"``, ``"threefry"``, ``"auto_select"``), an id or an
    ``Algorithm``; ``None`` is TF's default (Philox). Anything else raises TF's ``ValueError``."""
    if alg is None:
        return Algorithm.PHILOX.value
    if isinstance(alg, Algorithm):
        return alg.value
    if isinstance(alg, str):
        canon = alg.strip().lower().replace("-", "").replace("_", "")
        for a in Algorithm:
            if canon == a.name.lower().replace("_", ""):
                return a.value
    elif isinstance(alg, (int, np.integer)) and not isinstance(alg, bool) and int(alg) in (1, 2, 3):
        return int(alg)
    raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are philox for the Philox "
                     "algorithm, threefry for the ThreeFry algorithm, and auto_select for auto-selection.")


def _seed_data(seed: Any):
    """A state (a JAX key's data) for a TF seed. TF's seeds are integers of any size (up to 1024 bits, also
    given as a vector of integers) and sign; one in [0, 2**32) is ``jax.random.key(seed)``'s (JAX itself keeps
    only 32 bits of a seed with x64 off, so 2**32 would repeat 0's stream); a larger or negative one has its
    32-bit words and its sign and length folded in, so different seeds give different streams. A traced
    integer (a seed computed inside ``tj.function``) is ``jax.random.key``'s."""
    if isinstance(seed, Variable):
        seed = seed.read_value()
    if isinstance(seed, Tensor):
        seed = seed.value
    if isinstance(seed, jax.core.Tracer):
        return jax.random.key_data(jax.random.key(seed))
    if not isinstance(seed, int):
        arr = np.asarray(seed)
        # (TF: a vector of integers is one big seed, its words low first; they are taken as unsigned 64-bit)
        seed = (sum((int(w) % 2 ** 64) << (64 * i) for i, w in enumerate(arr.ravel())) if arr.ndim == 1
                else int(arr))
    with jax.ensure_compile_time_eval():
        if 0 <= seed < 2 ** 32:
            return jax.random.key_data(jax.random.key(seed))
        words, rest = [], abs(seed)
        while rest:
            words.append(rest & 0xFFFFFFFF)
            rest >>= 32
        k = jax.random.key(words[0])
        for w in words[1:] + [2 * len(words) + (seed < 0)]:
            k = jax.random.fold_in(k, np.uint32(w))
        return jax.random.key_data(k)


def _draw_dtype(dtype: Any) -> Any:
    """The dtype a normal draw is made in: float32 for 16-bit floats, then rounded (as TF's kernels). JAX draws
    those from a 16-bit uniform: 10000 float16 draws hold about 1000 distinct values (TF's: about 6200;
    bfloat16: 128, TF's 1700), so two draws of 10000 share a value in about 10 places, where TF's
    RandomNormalTest.testDistinct allows fewer than 10."""
    return jnp.dtype(jnp.float32) if jnp.dtype(dtype).itemsize < 4 else dtype


def _known(x: Any) -> Optional[np.ndarray]:
    """``x``'s value when it is known now (a number, an array, an eager Tensor or Variable), else None (traced)."""
    if isinstance(x, Variable):
        x = x.read_value()
    x = x.value if isinstance(x, Tensor) else x
    return None if isinstance(x, jax.core.Tracer) else np.asarray(x)


def _state_data(state: Any):
    """A state given to ``Generator(state=...)`` or ``reset``: a JAX key, or a key's data (``uint32[2]``, what
    ``Generator.state`` holds). Any other shape raises ``ValueError`` (as TF for a state of the wrong size)."""
    if isinstance(state, Variable):
        state = state.read_value()
    if isinstance(state, Tensor):
        state = state.value
    dtype = getattr(state, "dtype", None)
    if dtype is not None and jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key):
        state = jax.random.key_data(state)
    data = jnp.asarray(state).astype(jnp.uint32)
    if data.shape != (2,):
        raise ValueError(f"tj.random.Generator: a state is a JAX key's data, shape (2,) uint32 (Generator.state), "
                         f"got shape {tuple(data.shape)} (TF's Philox states, int64[3], do not carry over)")
    return data


def _state_variable(make_data: Callable[[], Any]) -> Variable:
    """A new generator's state Variable, its value made by ``make_data``. Inside ``tj.function`` the Variable
    is created before ``make_data`` runs, so a generator made on the first call is built as any Variable made
    there (that call runs eagerly, as TF's first trace), and one made on a later call raises TF's
    ``ValueError``; only under a bare ``jax.jit`` does the value stay traced, which cannot make a Variable."""
    def initial():
        data = make_data()
        if isinstance(data, jax.core.Tracer):
            raise RuntimeError("tj.random.Generator: a generator cannot be made inside jax.jit, since its state "
                               "is a new tj.Variable; make it outside and draw from it inside (or use tj.function, "
                               "which builds Variables made on its first call)")
        return data
    return Variable(initial, trainable=False, name="StateVar")  # (TF's name, which Keras looks for)


@jax.jit
def _advance(data):
    """(the next state, a key for one draw) from a state's key data: one split, so no key is used twice."""
    nxt, sub = jax.random.split(jax.random.wrap_key_data(data))
    return jax.random.key_data(nxt), sub


class Generator:
    """TF's ``tf.random.Generator``: a random stream whose state (a JAX key's data) is a non-trainable
    ``tj.Variable``, advanced at every draw, so it never returns the same numbers twice, also inside
    ``tj.function`` (the state is lifted as an input and output of the program) and in replayed steps.

    Make one with ``Generator.from_seed(seed)`` (or ``from_key``, ``from_state``,
    ``from_non_deterministic_state``, or ``Generator(copy_from)``); ``split(count)`` gives independent ones.
    Every draw (of any size but zero) advances the state by one step: ``skip(n)`` is one step, as TF's
    "the state after ``skip(n)`` is that after ``normal([n])``"."""

    def __init__(self, copy_from: Optional["Generator"] = None, state: Any = None, alg: Any = None) -> None:
        if isinstance(copy_from, Variable) and state is None:  # (tapejax's older form: Generator(state_variable))
            copy_from, state = None, copy_from
        if copy_from is not None:
            if not isinstance(copy_from, Generator) or state is not None or alg is not None:
                raise TypeError("tj.random.Generator(copy_from): copy_from must be a Generator, given alone")
            self._alg = copy_from.algorithm
            self._state = _state_variable(lambda: copy_from.state.read_value().value)  # a copy, as TF
            return
        if state is None:
            raise TypeError("tj.random.Generator: make one with Generator.from_seed(seed), from_state(state, alg), "
                            "from_key(key) or Generator(copy_from=other)")
        self._alg = _alg_id(alg)
        if isinstance(state, Variable):  # used as it is (as TF): this generator advances that Variable
            if tuple(state.shape) != (2,) or state.dtype != jnp.uint32:
                raise ValueError(f"tj.random.Generator: a state Variable must be uint32 of shape (2,) (a JAX key's "
                                 f"data), got {state.dtype} {tuple(state.shape)}")
            self._state = state
        else:
            self._state = _state_variable(lambda: _state_data(state))

    @classmethod
    def from_seed(cls, seed: Any, alg: Any = None) -> "Generator":
        """A generator whose stream is determined by ``seed`` (an integer of any size, or an integer Tensor);
        ``alg`` as TF's (checked and kept as ``algorithm``; JAX's default PRNG makes the numbers)."""
        alg = _alg_id(alg)
        g = cls.__new__(cls)
        g._alg = alg
        g._state = _state_variable(lambda: _seed_data(seed))
        return g

    @classmethod
    def from_state(cls, state: Any, alg: Any) -> "Generator":
        """TF's ``from_state``: a generator from a state (a Variable is used as it is; see ``__init__``)."""
        return cls(state=state, alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg: Any = None) -> "Generator":
        """A generator seeded from the operating system's entropy (TF's ``from_non_deterministic_state``)."""
        return cls.from_seed(secrets.randbits(64), alg)

    @classmethod
    def from_key(cls, k: Any) -> "Generator":
        """A generator starting from the JAX key ``k``."""
        g = cls.__new__(cls)
        g._alg = Algorithm.PHILOX.value
        g._state = _state_variable(lambda: jax.random.key_data(_raw_key(k)))
        return g

    def reset(self, state: Any) -> None:
        """Restart from ``state`` (a value of ``Generator.state``, or a JAX key): TF's ``reset``."""
        self._state.assign(_state_data(state))

    def reset_from_seed(self, seed: Any) -> None:
        """Restart the stream from ``seed``, as ``from_seed(seed)`` starts (TF's ``Generator.reset_from_seed``)."""
        self._state.assign(_seed_data(seed))

    @property
    def state(self) -> Variable:
        """The state: a ``tj.Variable`` holding the current key's data (checkpoint it to resume a stream)."""
        return self._state

    @property
    def algorithm(self) -> int:
        """TF's algorithm id given at creation (``Algorithm``; TF's default, Philox, is 1)."""
        return self._alg

    def make_key(self):
        """A fresh JAX key for one draw; advances the state."""
        data = self._state.read_value().value
        nxt, sub = _advance(data)
        self._state.assign(nxt)
        return sub

    def _draw_key(self, shape: tuple):
        """The key for a draw of ``shape``: a new one, except for an empty draw, which leaves the state as it
        is (as TF, whose counter advances by the number of values drawn)."""
        if 0 in shape:
            return jax.random.wrap_key_data(self._state.read_value().value)
        return self.make_key()

    def skip(self, delta: Any) -> Tensor:
        """Advance the state as a draw of ``delta`` values would (one step; none for 0), and return the state
        before (TF's ``skip``)."""
        old = self._state.read_value()
        d = delta.value if isinstance(delta, Tensor) else delta
        if isinstance(d, jax.core.Tracer):
            self._state.assign(jnp.where(d != 0, _advance(old.value)[0], old.value))
        elif int(np.asarray(d)) != 0:
            self._state.assign(_advance(old.value)[0])
        return old

    def normal(self, shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = jnp.float32,
               name: Optional[str] = None) -> Tensor:
        """``tf.random.Generator.normal``: ``z * stddev + mean``; ``mean``/``stddev`` are differentiable (TF)."""
        dtype = _out_dtype(dtype, "Generator.normal", "float")
        shape = _tf_shape(shape, "Generator.normal")
        mean, stddev = _param(mean, dtype, "mean"), _param(stddev, dtype, "stddev")
        z = _jax_normal(self._draw_key(shape), shape, _draw_dtype(dtype))
        return self._scaled(z if z.dtype == dtype else z.astype(dtype), mean, stddev)

    @staticmethod
    def _scaled(z: Tensor, mean: Any, stddev: Any) -> Tensor:
        if not _is_default(stddev, 1):
            z = z * stddev
        if not _is_default(mean, 0):
            z = z + mean
        return z

    def truncated_normal(self, shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = jnp.float32,
                         name: Optional[str] = None) -> Tensor:
        """``tf.random.Generator.truncated_normal``: normal draws redrawn beyond two standard deviations, then
        ``z * stddev + mean`` (``mean``/``stddev`` differentiable, as TF)."""
        dtype = _out_dtype(dtype, "Generator.truncated_normal", "float")
        shape = _tf_shape(shape, "Generator.truncated_normal")
        mean, stddev = _param(mean, dtype, "mean"), _param(stddev, dtype, "stddev")
        z = apply(_truncated_normal, (self._draw_key(shape),), {"shape": shape, "dtype": _draw_dtype(dtype)})
        z = z if z.dtype == dtype else z.astype(dtype)
        return self._scaled(z, mean, stddev)

    def uniform(self, shape: Any, minval: Any = 0, maxval: Any = None, dtype: Any = jnp.float32,
                name: Optional[str] = None) -> Tensor:
        """``tf.random.Generator.uniform`` in ``[minval, maxval)``: floats (``maxval`` defaults to 1;
        ``minval``/``maxval`` broadcast with the draw and are differentiable, as TF) or integers (scalar
        bounds, both given, ``minval < maxval``; both ``None``: the dtype's full range; no gradient)."""
        dtype = _out_dtype(dtype, "Generator.uniform", "float int")
        shape = _tf_shape(shape, "Generator.uniform")
        if jnp.issubdtype(dtype, jnp.integer):
            if (minval is None) != (maxval is None):
                raise ValueError(f"For integer dtype {dtype}, minval and maxval must be both `None` or both "
                                 f"non-`None`; got minval={minval} and maxval={maxval}")
            if minval is None:
                return self.uniform_full_int(shape, dtype)
            minval, maxval = _param(minval, dtype, "min"), _param(maxval, dtype, "max")
            for what, b in (("minval", minval), ("maxval", maxval)):
                if np.ndim(b) != 0:  # (a Variable reads as its value)
                    raise ValueError(f"{what} must be a scalar; got a tensor of shape "
                                     f"[{','.join(map(str, np.shape(b)))}] (integer bounds do not broadcast, as TF)")
            lo, hi = _known(minval), _known(maxval)
            if 0 not in shape and lo is not None and hi is not None and not lo < hi:
                raise ValueError(f"Need minval < maxval, got {lo} >= {hi} (as TF)")
            return apply(_randint, (self._draw_key(shape), minval, maxval), {"shape": shape, "dtype": dtype})
        if minval is None:
            raise ValueError("tj.random.Generator.uniform: minval=None is only for integer dtypes (full range); "
                             f"a {dtype} draw needs a number (as TF, which cannot convert None)")
        minval = _param(minval, dtype, "min")
        maxval = _param(1 if maxval is None else maxval, dtype, "max")
        return _jax_uniform(self._draw_key(shape), shape, dtype, minval, maxval)

    def uniform_full_int(self, shape: Any, dtype: Any = jnp.uint64, name: Optional[str] = None) -> Tensor:
        """Integers uniform over ``dtype``'s whole range (TF's ``uniform_full_int``; its default ``uint64`` is
        ``uint32`` with JAX's x64 off)."""
        dt = jax.dtypes.canonicalize_dtype(jnp.dtype(dtype))
        if not jnp.issubdtype(dt, jnp.integer):
            raise ValueError(f"tj.random.Generator.uniform_full_int: dtype must be an integer dtype, got {dt} "
                             "(as TF: allowed are int32, int64, uint32, uint64)")
        shape = _tf_shape(shape, "Generator.uniform_full_int")
        return apply(_bits, (self._draw_key(shape),), {"shape": shape, "dtype": dt})

    def binomial(self, shape: Any, counts: Any, probs: Any, dtype: Any = jnp.int32,
                 name: Optional[str] = None) -> Tensor:
        """``tf.random.Generator.binomial``: successes in ``counts`` trials of probability ``probs`` (both
        broadcast with the rightmost dimensions of ``shape``), as ``dtype``; no gradient."""
        shape = _tf_shape(shape, "Generator.binomial")
        dt = jax.dtypes.canonicalize_dtype(jnp.dtype(dtype))
        counts, probs = (tnp.asarray(x, dtype=jnp.float32) for x in (counts, probs))
        return apply(_binomial, (self._draw_key(shape), counts, probs), {"shape": shape, "dtype": dt})

    def split(self, count: int = 1) -> List["Generator"]:
        """``count`` new generators with independent streams; advances this one (TF's ``Generator.split``).
        Inside ``tj.function``, on its first call only (they are new Variables, as TF)."""
        count = int(count)
        if count < 0:
            raise ValueError(f"tj.random.Generator.split: count must be >= 0, got {count} (as TF)")
        if count == 0:
            return []
        keys = split(self.make_key(), count)
        return [Generator.from_key(keys[i]) for i in range(count)]

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


def set_global_generator(generator: Optional[Generator]) -> None:
    """Use ``generator`` for TF-style draws from now on (TF's ``tf.random.set_global_generator``); ``None``
    drops it, so the next draw makes a new one (as TF)."""
    if generator is not None and not isinstance(generator, Generator):
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
