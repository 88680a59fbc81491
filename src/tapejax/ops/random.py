"""``tj.random``: ``jax.random``'s functions on JAX keys and ``tf.random``'s (stateful, through TF's ``Generator``
and global seed, and stateless, on a seed of two integers).

Stateless ops take a key (``tj.random.key(seed)``, ``PRNGKey``, ``jax.random.key``, or one of those in a
Tensor) and return Tensors; every function of ``jax.random`` is here with its signature and defaults (the key
utilities ``key``, ``PRNGKey``, ``split``, ``fold_in``, ``clone``, ``key_data``, ``wrap_key_data``,
``key_impl``, ``key_dtype`` return what jax returns: keys, their data, an implementation; ``Key``, jax 0.12's type
name for keys in annotations, is jax's own object, where jax has it). Each sampler is jax's own function in an op
(declare.py), so its numbers are jax's, bit for bit, for the same key and arguments, eagerly and inside
``tj.function``. The signatures are the installed jax's, and one keyword of a newer jax is taken on any:
``gamma``, ``loggamma``, ``beta``, ``chisquare`` and ``poisson`` take ``method`` (``'exact'``, the default, or
``'approximate'``, jax's loop-free sampler), passed on where jax has it (0.11.2 and later; the signature shows it
there); on an older jax ``'exact'`` draws what that jax always draws and ``'approximate'`` raises
NotImplementedError saying to upgrade jax. What is differentiable follows TF's ops and JAX's reparameterization:

* no output is differentiable w.r.t. a key (an integer bit pattern, never on a tape); a draw is a constant
  of the step (TF's RandomStandardNormal/RandomUniform have no gradient);
* integer, boolean and count draws have no gradient w.r.t. their parameters either (None): ``randint``,
  ``bits``, ``bernoulli``, ``categorical`` (TF: ``NotDifferentiable("Multinomial")``), ``poisson``,
  ``binomial`` and ``multinomial`` (counts, even as floats), ``geometric``, ``rademacher``, ``choice`` of
  ``range(n)``; ``choice``'s ``p`` neither;
* ``uniform``'s ``minval``/``maxval`` and the TF-style draws' ``mean``/``stddev`` *are* differentiable,
  because TF builds them from the draw with ordinary ops (``u * (maxval - minval) + minval``,
  ``z * stddev + mean``): the reparameterization gradient. So are the location/scale-type parameters of
  jax's samplers whose draw is a smooth function of them for a fixed key (an inverse CDF or a transform of a
  fixed base draw): ``lognormal``'s ``sigma``, ``pareto``'s ``b``, ``rayleigh``'s and ``weibull_min``'s
  ``scale`` (and ``concentration``), ``double_sided_maxwell``'s ``loc``/``scale``, ``triangular``'s bounds and
  mode, ``wald``'s ``mean``, ``multivariate_normal``'s ``mean`` and ``cov``, ``truncated_normal``'s
  ``lower``/``upper``: JAX's derivative of the draw with the key fixed, exactly ``jax.grad``'s;
* the gamma family (``gamma``, ``loggamma``, ``beta``, ``dirichlet``, ``chisquare``, ``f``, ``t``,
  ``generalized_normal``, ``ball``; TF's ``gamma``/``stateless_gamma``) is differentiable w.r.t. its shape
  parameters by implicit reparameterization (JAX's gradient, TF's RandomGammaGrad): the derivative of the
  quantile at the drawn value, not of the rejection sampler's path for a fixed key, so finite differences of
  a draw do not reproduce it, and there is no second derivative (JAX has none: its while loop). These ops are
  not in the registry the finite-difference and second-order tests run over;
* ``permutation``/``shuffle`` of ``x`` and ``choice`` of an array ``a`` are gathers with fixed indices:
  differentiable w.r.t. ``x``/``a`` (TF's RandomShuffle has no gradient registered, JAX's permutation does:
  tapejax keeps it).

``normal``, ``uniform``, ``truncated_normal``, ``categorical``, ``gamma``, ``poisson``, ``shuffle``, ``split``
and ``fold_in`` exist in both libraries with other signatures: each takes either form, told apart by its
first argument (a key: jax's; a shape, logits or a seed: TF's).

TF's stateless functions (``stateless_uniform``, ``stateless_normal``, ``stateless_truncated_normal``,
``stateless_categorical``, ``stateless_binomial``, ``stateless_gamma``, ``stateless_poisson``,
``stateless_parameterized_truncated_normal``, TF-style ``split``/``fold_in``) take TF's ``seed``, a shape-[2]
int32/int64 Tensor or list, with TF's signatures, dtypes, shapes and argument errors. The seed makes a JAX key
(its two integers are the key's two 32-bit words when they fit in int32; larger values have their upper
halves folded in), and the numbers are JAX's from that key: the same seed gives the same numbers, different
seeds different ones, but not TF's numbers (TF's Philox bits cannot be reproduced). With JAX's x64 off, int64
and float64 results come back as int32 and float32. ``stateless_parameterized_truncated_normal``'s gradient is
TF's: the draw's for ``minvals``/``maxvals``, 1 for ``means`` and the standardized draw for ``stddevs`` (the
standardized bounds held fixed).

``Generator`` has TF's methods (``from_seed``, ``from_state``, ``from_non_deterministic_state``,
``from_key_counter``, ``Generator(copy_from)``, ``normal``, ``uniform``, ``truncated_normal``,
``uniform_full_int``, ``binomial``, ``make_seeds``, ``split``, ``skip``, ``reset``, ``reset_from_seed``,
``reset_from_key_counter``, ``state``, ``key``, ``algorithm``) and TF's argument rules; the numbers are
JAX's. Its state is a JAX key's data (``uint32[2]``, also what ``create_rng_state`` returns), not TF's int64
counter and key: ``from_key_counter(key, counter)`` puts the counter and the key in its two words
(``[counter, key]``, each as it is when it fits in 32 bits, else hashed to 32 bits) and ``key`` is the last
word, but a draw splits the whole state, so the key changes with every draw (TF's stays, and its counter
moves). ``make_seeds(count)`` gives a
``[2, count]`` integer tensor for the stateless functions with both rows random (TF's second row is zeros). A
generator holds its state in a non-trainable ``tj.Variable`` and advances it at every draw, so one generator
never returns the same numbers twice: eagerly; inside ``tj.function`` (the state is read and assigned in the
trace, so the compiled program takes it as an input and returns the advanced state, and each call draws anew);
and in a replayed eager step (each draw runs at once, outside the deferred ops, and enters the replayed program
as a new input array).

Left out: TF's candidate samplers (``all_candidate_sampler``, ``fixed_unigram_candidate_sampler``,
``learned_unigram_candidate_sampler``, ``log_uniform_candidate_sampler``, ``uniform_candidate_sampler``: they
sample classes for sampled-softmax losses, with vocabulary files and counting state, and belong with those
losses rather than with random draws) and ``tf.random.experimental`` (its Generator, ``create_rng_state`` and
``stateless_split``/``stateless_fold_in`` are here under their ``tf.random`` names; ``index_shuffle`` and
``stateless_shuffle`` are not); and
``jax.random.random_gamma_p``, a JAX primitive rather than a function.
"""
from __future__ import annotations

import enum
import inspect
import operator
import secrets
import warnings
import weakref
from typing import Any, Callable, Dict, List, Optional, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from .. import tape_set
from ..tensor import Tensor, Variable, convert_to_tensor, describe_value
from . import numpy as tnp
from .core import OpDef, apply, as_dtype, freeze
from .declare import not_differentiable as _not_differentiable, public_dir, stop_gradient as _stop_gradient

__all__ = [
    # jax.random
    "PRNGKey", "ball", "bernoulli", "beta", "binomial", "bits", "categorical", "cauchy", "chisquare", "choice",
    "clone", "dirichlet", "double_sided_maxwell", "exponential", "f", "fold_in", "gamma", "generalized_normal",
    "geometric", "gumbel", "key", "key_data", "key_dtype", "key_impl", "laplace", "loggamma", "logistic",
    "lognormal", "maxwell", "multinomial", "multivariate_normal", "normal", "orthogonal", "pareto", "permutation",
    "poisson", "rademacher", "randint", "rayleigh", "split", "t", "triangular", "truncated_normal",
    "uniform", "wald", "weibull_min", "wrap_key_data",
    # tf.random (normal, uniform, truncated_normal, categorical, gamma, poisson, shuffle, split and fold_in take
    # either form)
    "Algorithm", "Generator", "create_rng_state", "get_global_generator", "set_global_generator", "set_seed",
    "shuffle",
    "stateless_binomial", "stateless_categorical", "stateless_gamma", "stateless_normal",
    "stateless_parameterized_truncated_normal", "stateless_poisson", "stateless_truncated_normal",
    "stateless_uniform",
]


if hasattr(jax.random, "Key"):  # (jax 0.12 on)
    # jax.random's type name for keys in annotations (a typing.NewType of jax.Array: calling it returns its
    # argument), jax's own object, so that an annotation means the same with either module
    Key = jax.random.Key
    __all__.append("Key")

__dir__ = public_dir(__name__)  # (tab completion, dir(tj.random): the public API only)


def _value(x: Any) -> Any:
    """``x``'s value: a Variable read, a Tensor unwrapped, anything else as it is (keys, seeds, states, and
    arguments that get no gradient, as choice's ``p``)."""
    if isinstance(x, Variable):
        x = x.read_value()
    return x.value if isinstance(x, Tensor) else x


_TF_DRAW_HINT = ", or give a shape list first for TF's stateful draw (tj.random.normal([2, 3]))"


def raw_key(k: Any, who: str = "tj.random", hint: str = _TF_DRAW_HINT):
    """The jax key inside ``k`` (a key array, a raw uint32 PRNGKey, or a Tensor/Variable holding one); ``who``
    names the caller in errors, ``hint`` ends their advice (tj.nn.initializers draws with keys too)."""
    k = _value(k)
    if not isinstance(k, (jax.Array, jax.core.Tracer, np.ndarray)):
        raise TypeError(f"{who}: expected a key from tj.random.key(seed) or jax.random.key(seed), got "
                        f"{type(k).__name__} ({describe_value(k)}). Make one with tj.random.key(seed){hint}.")
    if jax.config.jax_legacy_prng_key != "allow" and k.dtype == np.uint32:
        # (jax checks a raw key when it traces a draw: a kernel already made would skip the check, so it is here)
        msg = ("Legacy uint32 key array passed as key to a tj.random function. Please create keys using "
               "tj.random.key() or jax.random.key(). If use of a raw key array was intended, set "
               "jax_legacy_prng_key=\"allow\".")
        if jax.config.jax_legacy_prng_key == "error":
            raise ValueError(msg)
        warnings.warn(msg, stacklevel=3)
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
    given = as_dtype(what, dtype)
    dt = jax.dtypes.canonicalize_dtype(given)
    if jnp.issubdtype(dt, jnp.floating):
        return dt
    if "int" in kinds and given in _TF_FULL_INT_DTYPES:  # (TF's: no 8- or 16-bit integers)
        return dt
    if dt == jnp.bool_ or (jnp.issubdtype(dt, jnp.integer) and "int" not in kinds):
        raise TypeError(f"tj.random.{what}: cannot draw {dt} values (as TF: Cannot convert the default bound to "
                        f"EagerTensor of dtype {dt}); use a float dtype")
    raise ValueError(f"tj.random.{what}: dtype {dt} is not supported (as TF: allowed are half, bfloat16, float, "
                     f"double{', int32, int64, uint32, uint64' if 'int' in kinds else ''})")


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
_randint = _not_differentiable("random_randint", lambda k, lo, hi, shape, dtype, out_sharding=None: jax.random.randint(
    k, shape, lo, hi, dtype, out_sharding=out_sharding))  # none: integers
_categorical = _not_differentiable("random_categorical", jax.random.categorical)  # NotDifferentiable("Multinomial")
_bernoulli = _not_differentiable("random_bernoulli", jax.random.bernoulli)  # a bool draw
_truncated_normal = _not_differentiable(  # none (TruncatedNormal): TF's bounds, two standard deviations
    "random_truncated_normal", lambda k, shape, dtype: jax.random.truncated_normal(k, -2.0, 2.0, shape, dtype))
_bits = _not_differentiable("random_bits", lambda k, shape, dtype: jax.lax.bitcast_convert_type(  # full-range ints
    jax.random.bits(k, shape, jnp.dtype(f"uint{jnp.dtype(dtype).itemsize * 8}")), dtype))


def _tf_binomial(k, n, p, shape, dtype):
    """TF's binomial: counts below 1 draw 0, probabilities at or below 0 draw 0 and at or above 1 draw all the
    counts (jax.random.binomial gives NaN outside [0, 1]); a NaN probability with counts stays NaN, as TF's."""
    n = jnp.maximum(n, 0)
    draw = jax.random.binomial(k, n, jnp.clip(p, 0, 1), shape)
    draw = jnp.where(p >= 1, jnp.broadcast_to(n, draw.shape), jnp.where(p <= 0, 0, draw))
    return jnp.where(n == 0, 0, draw).astype(dtype)


_binomial = _not_differentiable("random_binomial", _tf_binomial)  # none: integer counts
_split = _not_differentiable("random_split", jax.random.split)
_fold_in = _not_differentiable("random_fold_in", jax.random.fold_in)  # data: a uint32 scalar argument (one kernel)

# Shuffles: a gather with a fixed permutation, differentiable w.r.t. x (JAX's derivative: the inverse scatter).
_PERM_X = np.asarray(np.random.default_rng(17).uniform(-1.5, 1.5, size=(4, 3)), np.float32)
_permutation = OpDef("random_permutation", lambda x, k, axis=0, independent=False, out_sharding=None:
                     jax.random.permutation(k, x, axis=axis, independent=independent, out_sharding=out_sharding),
    # keys made when the samples are asked for: a key made at import would start JAX's backend
    samples=lambda: [((_PERM_X, jax.random.key(1)), {}),
                     ((_PERM_X, jax.random.key(2)), {"axis": 1, "independent": True})])


def _seed_arg(seed: Any, what: str) -> Any:
    """A key's seed: a Python int (a float raises, see ``_int``), or a traced integer (inside ``tj.function``),
    which jax takes as it is."""
    seed = _value(seed)
    if hasattr(seed, "dtype") and jax.dtypes.issubdtype(seed.dtype, jax.dtypes.prng_key):
        raise TypeError(f"tj.random.{what}: {what} accepts a scalar seed, but was given a PRNG key; pass the key "
                        "itself to the draws, or a Python int seed here")
    if isinstance(seed, jax.core.Tracer):
        return seed
    return _int(np.asarray(seed)[()] if isinstance(seed, (jax.Array, np.ndarray)) else seed, what, "seed")


def key(seed: Any, *, impl: Any = None, dtype: Any = None):
    """A JAX key for ``seed`` (``jax.random.key``): the argument of every stateless op."""
    return jax.random.key(_seed_arg(seed, "key"), impl=impl, dtype=dtype)


def PRNGKey(seed: Any, *, impl: Any = None):
    """``jax.random.PRNGKey``: a raw key (its ``uint32`` data), which every stateless op takes as well."""
    return jax.random.PRNGKey(_seed_arg(seed, "PRNGKey"), impl=impl)


def split(*args, **kwargs):
    """New keys or seeds, called either way:

    * ``split(key, num=2)``: ``jax.random.split``, ``num`` new keys (a key array of shape ``(num,)``, or
      ``num`` itself when it is a tuple);
    * ``split(seed, num=2, alg='auto_select')``: ``tf.random.split`` of a TF seed (two integers): ``num`` new
      seeds, shape ``[num, 2]``, of the seed's integer dtype (see ``stateless_uniform``)."""
    return (_tf_split if _seed_style(args, kwargs) else _jax_split)(*args, **kwargs)


def _jax_split(key: Any, num: Any = 2):
    nums = tuple(num) if isinstance(num, (tuple, list)) else (num,)
    nums = tuple(_int(n, "split", "num") for n in nums)
    if any(n < 0 for n in nums):  # (XLA fails to compile it, with no word of the op)
        raise ValueError(f"tj.random.split: num must not be negative, got {num}")
    return apply(_split, (raw_key(key),), {"num": nums if isinstance(num, (tuple, list)) else nums[0]}).value


def fold_in(*args, **kwargs):
    """A new key or seed from an old one and an integer, called either way:

    * ``fold_in(key, data)``: ``jax.random.fold_in``, a new key;
    * ``fold_in(seed, data, alg='auto_select')``: ``tf.random.fold_in`` of a TF seed (two integers): the new
      seed ``[a draw of data's dtype from seed, data]``, as TF builds it."""
    return (_tf_fold_in if _seed_style(args, kwargs) else _jax_fold_in)(*args, **kwargs)


def _jax_fold_in(key: Any, data: Any):
    value = _value(data)
    if isinstance(value, (jax.Array, jax.core.Tracer, np.ndarray)) and not isinstance(value, np.generic):
        if np.ndim(value) != 0:
            raise TypeError(f"tj.random.fold_in: fold_in accepts a scalar, but was given an array of shape "
                            f"{np.shape(value)} != (). Use jax.vmap for batching.")
        if not jnp.issubdtype(value.dtype, jnp.integer):
            raise TypeError(f"tj.random.fold_in: data must be an integer, got {describe_value(data)}")
    else:
        value = _int(value, "fold_in", "data")
        if type(value) is int and not 0 <= value < 2 ** 32:  # (as jax's: a NumPy integer wraps, a Python one not)
            raise OverflowError(f"tj.random.fold_in: Python integer {value} out of bounds for uint32")
        value = np.asarray(value).astype(np.uint32)
    return apply(_fold_in, (raw_key(key), value), {}).value


def _seed_style(args: tuple, kwargs: dict) -> bool:
    """Whether a call of ``split``/``fold_in`` is TF's (a seed first: a list or tuple of two integers, or a
    signed integer array or Tensor) rather than JAX's (a key first)."""
    if not args:
        return "seed" in kwargs
    x = args[0]
    if isinstance(x, (list, tuple)):
        return True
    if _is_key(x):
        return False
    x = _value(x)
    dtype = getattr(x, "dtype", None)
    return dtype is not None and jnp.issubdtype(dtype, jnp.signedinteger)


def _tf_style(args: tuple, kwargs: dict, tf_keywords: tuple = ()) -> bool:
    """Whether a call of ``normal``/``uniform``/``truncated_normal``/``gamma``/``poisson`` is TF's (a shape
    first: a list or tuple, or a 1-D integer array or Tensor; or a keyword only TF's form has) rather than
    JAX's (a key first)."""
    if not args:
        return "key" not in kwargs
    if any(k in kwargs for k in tf_keywords):
        return True
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

    * ``normal(key, shape=(), dtype=None)``: ``jax.random.normal`` on a key (stateless; None: the default float,
      float64 under JAX's x64 mode, as jax's);
    * ``normal(shape, mean=0.0, stddev=1.0, dtype=float32, seed=None, name=None)``: ``tf.random.normal``, from
      the global generator (``set_seed``), or with ``seed`` from that seed's own stream (TF's op seed).

    No gradient w.r.t. the draw (TF's RandomStandardNormal has none); ``mean``/``stddev`` get theirs."""
    return (_tf_normal if _tf_style(args, kwargs) else _jax_normal)(*args, **kwargs)


def _jax_default_float(op_name: str, dtype) -> np.dtype:
    """jax.random's ``dtype=None``: the default float, float32, or float64 with JAX's x64 mode on."""
    return jnp.result_type(float) if dtype is None else as_dtype(op_name, dtype)


def _jax_normal(key: Any, shape: Sequence[int] = (), dtype: Any = None, *, out_sharding: Any = None) -> Tensor:
    return apply(_normal, (raw_key(key),), {"shape": _static_shape(shape, "normal"),
                                            "dtype": _jax_default_float("random_normal", dtype),
                                            "out_sharding": out_sharding})


def _tf_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = jnp.float32, seed: Optional[int] = None,
               name: Optional[str] = None) -> Tensor:
    return _stream(seed).normal(shape, mean, stddev, dtype)


def _is_default(v, default) -> bool:
    return type(v) in (int, float) and v == default


def uniform(*args, **kwargs) -> Tensor:
    """Uniform draws in ``[minval, maxval)``, called either way:

    * ``uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0)``: ``jax.random.uniform`` on a key (None: the
      default float, float64 under JAX's x64 mode, as jax's);
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


def truncated_normal(*args, **kwargs) -> Tensor:
    """Truncated normal draws, called either way:

    * ``truncated_normal(key, lower, upper, shape=None, dtype=None, *, out_sharding=None)``:
      ``jax.random.truncated_normal`` on a key, in ``(lower, upper)``; ``lower``/``upper`` are differentiable
      (JAX's inverse-CDF draw: the reparameterization gradient);
    * ``truncated_normal(shape, mean=0.0, stddev=1.0, dtype=float32, seed=None, name=None)``:
      ``tf.random.truncated_normal``, normal draws redrawn beyond two standard deviations, from the global
      generator (``set_seed``) or ``seed``'s own stream, as ``normal(shape)``; ``mean``/``stddev`` are
      differentiable (``z * stddev + mean``, as TF)."""
    tf_style = _tf_style(args, kwargs, ("mean", "stddev", "seed", "name"))
    return (_tf_truncated_normal if tf_style else _jax_truncated_normal)(*args, **kwargs)


def _tf_truncated_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = jnp.float32,
                         seed: Optional[int] = None, name: Optional[str] = None) -> Tensor:
    return _stream(seed).truncated_normal(shape, mean, stddev, dtype)


def _jax_uniform(key: Any, shape: Sequence[int] = (), dtype: Any = None, minval: Any = 0.0,
                 maxval: Any = 1.0, *, out_sharding: Any = None) -> Tensor:
    dtype = _jax_default_float("random_uniform", dtype)
    if not jnp.issubdtype(dtype, jnp.floating):
        raise TypeError(f"tj.random.uniform: dtype must be a float dtype, got {dtype} (jax.random.uniform's rule); "
                        "for integers use tj.random.Generator.uniform(..., dtype=int32) or jax.random.randint")
    u = apply(_uniform01, (raw_key(key),), {"shape": _static_shape(shape, "uniform"), "dtype": dtype,
                                            "out_sharding": out_sharding})
    if _is_default(minval, 0) and _is_default(maxval, 1):
        return u
    out = u * (tnp.subtract(maxval, minval)) + minval
    if out.shape != u.shape:  # (jax.random.uniform's TypeError: bounds must broadcast to ``shape``)
        raise TypeError(f"tj.random.uniform: minval of shape {tnp.shape(minval)} and maxval of shape "
                        f"{tnp.shape(maxval)} must broadcast to shape {tuple(u.shape)} (as jax.random.uniform)")
    return tnp.maximum(minval, out)  # (as jax's: never below minval, which rounding (or maxval < minval) gives)


def categorical(*args, **kwargs) -> Tensor:
    """Indices drawn with probabilities ``softmax(logits)``, called either way:

    * ``categorical(key, logits, axis=-1, shape=None, replace=True, mode=None, *, out_sharding=None)``:
      ``jax.random.categorical`` on a key;
    * ``categorical(logits, num_samples, dtype=None, seed=None, name=None)``: ``tf.random.categorical``, a
      ``[batch, num_samples]`` draw for 2-D ``logits`` from the global generator (or ``seed``'s stream).

    The logits get no gradient (TF: ``NotDifferentiable("Multinomial")``)."""
    if "key" not in kwargs and ((args and not _is_key(args[0])) or (not args and "num_samples" in kwargs)):
        return _tf_categorical(*args, **kwargs)
    return _jax_categorical(*args, **kwargs)


def _jax_categorical(key: Any, logits: Any, axis: int = -1, shape: Optional[Sequence[int]] = None,
                     replace: bool = True, mode: Optional[str] = None, *, out_sharding: Any = None) -> Tensor:
    shape = None if shape is None else _static_shape(shape, "categorical")
    static = {"axis": _int(axis, "categorical", "axis"), "shape": shape}
    if not replace or mode is not None or out_sharding is not None:  # (jax's defaults: the kernels made before)
        static.update(replace=bool(replace), mode=mode, out_sharding=out_sharding)
    return apply(_categorical, (raw_key(key), logits), static)


def _tf_categorical(logits: Any, num_samples: Any, dtype: Any = None, seed: Optional[int] = None,
                    name: Optional[str] = None) -> Tensor:
    return _categorical_from(_stream(seed)._draw_key, "categorical", logits, num_samples, dtype)


def bernoulli(key: Any, p: Any = 0.5, shape: Optional[Sequence[int]] = None, mode: str = "low", *,
              out_sharding: Any = None) -> Tensor:
    """``jax.random.bernoulli``: booleans, True with probability ``p`` (no gradient)."""
    shape = None if shape is None else _static_shape(shape, "bernoulli")
    if mode not in ("low", "high"):
        raise ValueError(f"tj.random.bernoulli: mode must be 'high' or 'low', got {mode!r} (as jax.random)")
    static = {"shape": shape}
    if mode != "low" or out_sharding is not None:
        static.update(mode=mode, out_sharding=out_sharding)
    return apply(_bernoulli, (raw_key(key), p), static)


def permutation(key: Any, x: Any, axis: int = 0, independent: bool = False, *, out_sharding: Any = None) -> Tensor:
    """``jax.random.permutation``: ``x`` shuffled along ``axis`` (an int ``x``: a permutation of ``range(x)``).
    Differentiable w.r.t. ``x``."""
    if isinstance(x, (int, np.integer)):
        x = jnp.arange(int(x))
    elif np.ndim(_value(x)) == 0:  # a 0-d array or Tensor: as jax's, its value n (concrete) for range(n)
        n = _value(x)
        if not jnp.issubdtype(jnp.result_type(n), jnp.integer):
            raise TypeError(f"tj.random.permutation: x must be an integer or at least 1-dimensional, got a 0-d "
                            f"{jnp.result_type(n)} value (as jax.random.permutation)")
        x = jnp.arange(int(n))
    return apply(_permutation, (x, raw_key(key)), {"axis": int(axis), "independent": bool(independent),
                                                   "out_sharding": out_sharding})


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
    k = _value(k)
    dtype = getattr(k, "dtype", None)
    return dtype is not None and (jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key)
                                  or (dtype == np.uint32 and np.shape(k)[-1:] == (2,)))


def _jax_shuffle(key: Any, x: Any, axis: int = 0) -> Tensor:
    return permutation(key, x, axis=axis)


def _tf_shuffle(value: Any, seed: Optional[int] = None, name: Optional[str] = None) -> Tensor:
    if tnp.ndim(value) == 0:
        return tnp.asarray(value)
    return permutation(_stream(seed).make_key(), value, axis=0)


# -- the rest of jax.random ------------------------------------------------------------------------------
# Each op's function is jax.random's own sampler, so the numbers are jax's, bit for bit. The key is an argument
# with no gradient (an integer bit pattern, passed raw: never a Tensor on a tape). Three families:
#
# * draws (``_not_differentiable``, key first): the samplers with no parameter, and the integer, boolean and
#   count draws, whose parameters get None (TF: such a draw has no gradient);
# * reparameterized draws (``_reparameterized``, key last, registered with samples): location/scale-type
#   parameters of which the draw is a smooth function for a fixed key (an inverse CDF, or a transform of a
#   fixed base draw): JAX's derivative of that function is the reparameterization gradient, which the
#   registry's tests check against finite differences and to second order;
# * implicitly reparameterized draws (``_implicit``, key last, not registered): the gamma family, drawn by
#   rejection. JAX's derivative w.r.t. a shape parameter is the implicit reparameterization gradient (TF's
#   RandomGammaGrad), -(dF/da) / p(x) at the drawn x: the derivative of the quantile at the draw's level, not
#   of the rejection sampler's path for a fixed key, so finite differences of the draw do not check it; and
#   JAX has no second derivative (its while loop): tests/test_random_mirror.py checks it against jax.grad.

def _key_last(fn: Callable, real_only: bool = False) -> Callable:
    """``fn(key, *params, **static)`` as an op's function of ``(*params, key)``. With ``real_only`` (a draw defined
    for real parameters only, which jax.random casts to real, dropping an imaginary part), a complex parameter
    raises, as TF's kernels do."""
    if not real_only:
        return lambda *args, **static: fn(args[-1], *args[:-1], **static)

    def call(*args, **static):
        if any(jnp.iscomplexobj(a) for a in args[:-1]):
            raise TypeError("this draw's parameters are real numbers, and one is complex (jax would drop its "
                            "imaginary part; TF's kernels raise): pass the real parameters you mean.")
        return fn(args[-1], *args[:-1], **static)
    return call


def _reparameterized(name: str, fn: Callable, samples: Callable, real_only: bool = False) -> OpDef:
    return OpDef(name, _key_last(fn, real_only), samples=samples)


def _implicit(name: str, fn: Callable) -> OpDef:
    return OpDef(name, _key_last(fn, real_only=True), register=False)  # (shape parameters: real by definition)


_rng = np.random.default_rng(29)  # (the reparameterized draws' samples, drawn at import in declaration order)


def _r(*shape, lo, hi):
    return np.asarray(_rng.uniform(lo, hi, size=shape), np.float32)


def _spd(n: int) -> np.ndarray:
    a = _rng.uniform(-1, 1, size=(n, n))
    return np.asarray(a @ a.T + n * np.eye(n), np.float32)


_K = jax.random.key  # (called in the samples' lambdas: a key made at import would start JAX's backend)
_NONE = {"dtype": None, "out_sharding": None}
# Samples: the parameters as NumPy arrays first (the sample the registry-wide path test takes), then as Python
# numbers (jax arrays for multivariate_normal), as jax.random is mostly called. These draws take real parameters
# only (as TF's kernels: a complex one raises): test_complex.py's NO_COMPLEX lists them.

# name                                 jax.random function                  gradient
_cauchy = _not_differentiable("random_cauchy", jax.random.cauchy)  # none: no parameter
_exponential = _not_differentiable("random_exponential", jax.random.exponential)  # none
_laplace = _not_differentiable("random_laplace", jax.random.laplace)  # none
_logistic = _not_differentiable("random_logistic", jax.random.logistic)  # none
_maxwell = _not_differentiable("random_maxwell", jax.random.maxwell)  # none
_gumbel = _not_differentiable("random_gumbel", jax.random.gumbel)  # none
_orthogonal = _not_differentiable("random_orthogonal", jax.random.orthogonal)  # none (n, m static)
_rademacher = _not_differentiable("random_rademacher", jax.random.rademacher)  # none: +-1
_bits_jax = _not_differentiable("random_bits", jax.random.bits)  # none: unsigned integers
_geometric = _not_differentiable("random_geometric", jax.random.geometric)  # none: integer counts
_poisson = _not_differentiable("random_poisson", jax.random.poisson)  # none: integer counts
_binomial_jax = _not_differentiable("random_binomial_counts", jax.random.binomial)  # none: counts (as floats)
_multinomial = _not_differentiable("random_multinomial_counts", jax.random.multinomial)  # none: counts
_choice_n = _not_differentiable("random_choice_indices", lambda k, *p, a, **static: jax.random.choice(
    k, a, p=p[0] if p else None, **static))  # none: indices into range(a)

_lognormal = _reparameterized("random_lognormal", jax.random.lognormal, lambda: [  # exp(sigma z): sigma
    ((_LN_SIGMA, _K(1)), {"shape": None, **_NONE}), ((0.7, _K(1)), {"shape": (3,), **_NONE}),
    ((_LN_SIGMA[:1], _K(2)), {"shape": (2, 1), **_NONE})])
_pareto = _reparameterized("random_pareto", jax.random.pareto, lambda: [  # exp(e / b): b
    ((_PARETO_B, _K(3)), {"shape": None, **_NONE}), ((2.0, _K(3)), {"shape": (3,), **_NONE})])
_rayleigh = _reparameterized("random_rayleigh", jax.random.rayleigh, lambda: [  # scale sqrt(-2 log u): scale
    ((_RAYLEIGH_SCALE, _K(4)), {"shape": None, **_NONE}), ((1.5, _K(4)), {"shape": (3,), **_NONE})])
_weibull_min = _reparameterized("random_weibull_min", jax.random.weibull_min, lambda: [  # the inverse CDF: both
    ((_WEIBULL_SCALE, _WEIBULL_K, _K(5)), {"shape": (3,), "dtype": None})])
_double_sided_maxwell = _reparameterized("random_double_sided_maxwell", jax.random.double_sided_maxwell, lambda: [
    ((_DSM_LOC, _DSM_SCALE, _K(6)), {"shape": (), "dtype": None})])  # loc + scale * draw: both
_triangular = _reparameterized("random_triangular", jax.random.triangular, lambda: [  # the inverse CDF: all three
    ((_TRI_LEFT, _TRI_MODE, _TRI_RIGHT, _K(7)), {"shape": None, **_NONE}),
    ((-1.5, 0.25, 1.5, _K(7)), {"shape": (3,), **_NONE})])
_wald = _reparameterized("random_wald", jax.random.wald, lambda: [  # Michael-Schucany-Haas transform: mean
    ((_WALD_MEAN, _K(8)), {"shape": None, **_NONE}), ((1.2, _K(8)), {"shape": (3,), **_NONE})])
_multivariate_normal = _reparameterized("random_multivariate_normal", jax.random.multivariate_normal, lambda: [
    ((_MVN_MEAN, _MVN_COV, _K(9)), {"shape": None, "method": "cholesky", **_NONE}),
    ((jnp.asarray(_MVN_MEAN[:2]), jnp.asarray(_MVN_COV[:2, :2]), _K(9)), {"shape": None, "method": "cholesky",
                                                                          **_NONE}),
    ((_MVN_MEAN, _MVN_COV, _K(10)), {"shape": (2,), "method": "eigh", **_NONE}),
    ((_MVN_MEAN, _MVN_COV, _K(11)), {"shape": (2,), "method": "svd", **_NONE})])
# (mean + factor @ z: mean and cov, through cov's factor)
_truncated_normal_jax = _reparameterized("random_truncated_normal_bounds", jax.random.truncated_normal, lambda: [
    ((_TN_LOWER, _TN_UPPER, _K(12)), {"shape": None, "dtype": None, "out_sharding": None})],
    real_only=True)  # the inverse CDF


def _tail_truncated_normal(key, lower, upper, shape=None, dtype=None, out_sharding=None):
    """A standard normal truncated to ``[lower, upper]`` by the inverse CDF, taken on the side of 0 the interval
    lies on: far in a tail (bounds past about 5 in float32) jax's ``erf`` of the bounds rounds to 1 and its draws
    collapse onto a bound or float32's largest value, where the tail's own probabilities (``erfc``) stay exact
    down to about 13 standard deviations, as TF's sampler does. ``shape``/``dtype`` as jax.random's."""
    dtype = jnp.dtype(jnp.result_type(float) if dtype is None else dtype)
    lower, upper = jnp.asarray(lower, dtype), jnp.asarray(upper, dtype)
    if shape is None:
        shape = jnp.broadcast_shapes(jnp.shape(lower), jnp.shape(upper))
    u = 1 - jax.random.uniform(key, shape, dtype, out_sharding=out_sharding)  # (0, 1]: never a bound's 0
    root2 = np.sqrt(2).astype(dtype)
    # an interval below 0 is drawn reflected, from the right tail
    flip = upper <= 0
    a, b = jnp.where(flip, -upper, lower), jnp.where(flip, -lower, upper)
    tail = a >= 0
    qa = jax.scipy.special.erfc(jnp.where(tail, a, 0) / root2) / 2  # P(Z > a), exact in the tail
    qb = jax.scipy.special.erfc(jnp.where(tail, b, 0) / root2) / 2
    z_tail = -jax.scipy.special.ndtri(qb + u * (qa - qb))
    z_tail = jnp.where(flip, -z_tail, z_tail)
    # an interval around 0: erf is exact there (the tail's draws take bounds of -1 and 1 here, so that this unused
    # branch has finite derivatives: erf_inv at 1 would make the gradient NaN through the select)
    in_tail = tail | flip
    lo_mid, hi_mid = jnp.where(in_tail, -1, lower), jnp.where(in_tail, 1, upper)
    ea, eb = jax.lax.erf(lo_mid / root2), jax.lax.erf(hi_mid / root2)
    z_mid = root2 * jax.lax.erf_inv(ea + u * (eb - ea))
    return jnp.clip(jnp.where(in_tail, z_tail, z_mid), lower, upper)


_truncated_normal_tf = _reparameterized("random_parameterized_truncated_normal", _tail_truncated_normal, lambda: [
    ((_TN_LOWER, _TN_UPPER, _K(12)), {"shape": None, "dtype": None, "out_sharding": None}),
    ((_TN_UPPER + 4.0, _TN_UPPER + 6.0, _K(12)), {"shape": None, "dtype": None, "out_sharding": None})],
    real_only=True)
_choice = OpDef("random_choice", lambda a, k, *p, **static: jax.random.choice(k, a, p=p[0] if p else None, **static),
                samples=lambda: [  # a gather of a's entries: a (p, passed as a value, gets none)
                    ((_CHOICE_A, _K(13)), {"shape": (4,), "replace": True, "axis": 0, "mode": None}),
                    ((_CHOICE_A, _K(14)), {"shape": (2,), "replace": False, "axis": 1, "mode": None})])

_gamma = _implicit("random_gamma", jax.random.gamma)  # implicit: a
_loggamma = _implicit("random_loggamma", jax.random.loggamma)  # implicit: a
_beta = _implicit("random_beta", jax.random.beta)  # implicit: a and b (through two log-gammas)
_dirichlet = _implicit("random_dirichlet", jax.random.dirichlet)  # implicit: alpha
_chisquare = _implicit("random_chisquare", jax.random.chisquare)  # implicit: df
_f = _implicit("random_f", jax.random.f)  # implicit: dfnum and dfden
_t = _implicit("random_t", jax.random.t)  # implicit: df
_generalized_normal = _implicit("random_generalized_normal", jax.random.generalized_normal)  # implicit: p
_ball = OpDef("random_ball", lambda p, k, **static: jax.random.ball(k, p=p, **static), register=False)  # implicit: p

_LN_SIGMA = _r(3, lo=0.3, hi=1.2)
_PARETO_B = _r(3, lo=1.5, hi=3.0)
_RAYLEIGH_SCALE = _r(2, 3, lo=0.5, hi=2.0)
_WEIBULL_SCALE, _WEIBULL_K = _r(3, lo=0.5, hi=2.0), _r(3, lo=0.8, hi=2.5)
_DSM_LOC, _DSM_SCALE = _r(3, lo=-1.0, hi=1.0), _r(3, lo=0.5, hi=2.0)
_TRI_LEFT, _TRI_MODE, _TRI_RIGHT = _r(3, lo=-2.0, hi=-1.0), _r(3, lo=-0.5, hi=0.5), _r(3, lo=1.0, hi=2.0)
_WALD_MEAN = _r(3, lo=0.5, hi=2.0)
_MVN_MEAN, _MVN_COV = _r(3, lo=-1.0, hi=1.0), _spd(3)
_TN_LOWER, _TN_UPPER = _r(3, lo=-2.0, hi=-0.5), _r(3, lo=0.5, hi=2.0)
_CHOICE_A = _r(5, 3, lo=-1.5, hi=1.5)


def _shape_arg(shape: Any, what: str, optional: bool) -> Optional[tuple]:
    """jax.random's ``shape``: a tuple of ints (``_static_shape``); None, where jax takes it (the parameters'
    broadcast shape), stays None."""
    return None if shape is None and optional else _static_shape(shape, what)


_KINDS = {"float": jnp.floating, "complex": jnp.complexfloating, "int": jnp.integer,
          "unsigned int": jnp.unsignedinteger, "any": np.generic}


def _dtype_arg(dtype: Any, what: str, kinds: str = "float", error: type = ValueError) -> Any:
    """jax.random's ``dtype``: None (jax's default) or a dtype of ``kinds`` (``"float"``, ``"float complex"``,
    ``"int"``...); any other raises ``error``, the class jax.random raises, naming the function."""
    if dtype is None:
        return None
    dt = as_dtype(f"random_{what}", dtype)
    names = kinds.split(" ") if kinds != "unsigned int" else [kinds]
    if not any(jnp.issubdtype(dt, _KINDS[k]) for k in names):
        raise error(f"tj.random.{what}: dtype must be a {' or '.join(names)} dtype, got {dt} (as jax.random.{what})")
    return dt


def _sample(op: OpDef, key: Any, params: tuple, **static) -> Tensor:
    """``op`` on ``key`` and ``params``: the key first for a draw with no gradient (jax's own function), last
    for one whose parameters are differentiable."""
    k = raw_key(key)
    return apply(op, (*params, k) if op.differentiable else (k, *params), static)


def _plain(op: OpDef, what: str, key: Any, shape: Any, dtype: Any, kinds: str = "float", **static) -> Tensor:
    """A draw with no parameter (jax's ``shape=()`` default)."""
    return _sample(op, key, (), shape=_static_shape(shape, what), dtype=_dtype_arg(dtype, what, kinds), **static)


def cauchy(key: Any, shape: Sequence[int] = (), dtype: Any = None, *, out_sharding: Any = None) -> Tensor:
    """``jax.random.cauchy``: standard Cauchy draws (no gradient)."""
    return _plain(_cauchy, "cauchy", key, shape, dtype, out_sharding=out_sharding)


def exponential(key: Any, shape: Sequence[int] = (), dtype: Any = None, *, out_sharding: Any = None) -> Tensor:
    """``jax.random.exponential``: standard exponential draws (no gradient)."""
    return _plain(_exponential, "exponential", key, shape, dtype, out_sharding=out_sharding)


def laplace(key: Any, shape: Sequence[int] = (), dtype: Any = None, *, out_sharding: Any = None) -> Tensor:
    """``jax.random.laplace``: standard Laplace draws (no gradient)."""
    return _plain(_laplace, "laplace", key, shape, dtype, out_sharding=out_sharding)


def logistic(key: Any, shape: Sequence[int] = (), dtype: Any = None, *, out_sharding: Any = None) -> Tensor:
    """``jax.random.logistic``: standard logistic draws (no gradient)."""
    return _plain(_logistic, "logistic", key, shape, dtype, out_sharding=out_sharding)


def maxwell(key: Any, shape: Sequence[int] = (), dtype: Any = None, *, out_sharding: Any = None) -> Tensor:
    """``jax.random.maxwell``: one-sided standard Maxwell draws (no gradient)."""
    return _plain(_maxwell, "maxwell", key, shape, dtype, out_sharding=out_sharding)


def gumbel(key: Any, shape: Sequence[int] = (), dtype: Any = None, mode: Optional[str] = None, *,
           out_sharding: Any = None) -> Tensor:
    """``jax.random.gumbel``: standard Gumbel draws (no gradient); ``mode`` ``"low"``/``"high"`` as jax."""
    if mode not in (None, "low", "high"):
        raise ValueError(f"tj.random.gumbel: mode must be None, 'low' or 'high', got {mode!r} (as jax.random)")
    return _plain(_gumbel, "gumbel", key, shape, dtype, mode=mode, out_sharding=out_sharding)


def rademacher(key: Any, shape: Sequence[int] = (), dtype: Any = None, *, out_sharding: Any = None) -> Tensor:
    """``jax.random.rademacher``: -1 or +1 with equal probability, as ``dtype`` (default int; no gradient)."""
    return _plain(_rademacher, "rademacher", key, shape, dtype, "any", out_sharding=out_sharding)


def bits(key: Any, shape: Sequence[int] = (), dtype: Any = None, *, out_sharding: Any = None) -> Tensor:
    """``jax.random.bits``: uniform unsigned integers over the dtype's whole range (default uint32)."""
    return _plain(_bits_jax, "bits", key, shape, dtype, "unsigned int", out_sharding=out_sharding)


def orthogonal(key: Any, n: int, shape: Sequence[int] = (), dtype: Any = None, m: Optional[int] = None, *,
               out_sharding: Any = None) -> Tensor:
    """``jax.random.orthogonal``: Haar-distributed ``(n, m)`` (semi-)orthogonal matrices (unitary for a complex
    dtype), shape ``shape + (n, m)``; no gradient."""
    n = _int(n, "orthogonal", "n")
    m = None if m is None else _int(m, "orthogonal", "m")
    return _plain(_orthogonal, "orthogonal", key, shape, dtype, "float complex", n=n, m=m,
                  out_sharding=out_sharding)


def randint(key: Any, shape: Sequence[int], minval: Any, maxval: Any, dtype: Any = None, *,
            out_sharding: Any = None) -> Tensor:
    """``jax.random.randint``: integers uniform in ``[minval, maxval)`` (bounds broadcast with ``shape`` and are
    clipped to ``dtype``'s range, as jax); no gradient."""
    return _sample(_randint, key, (minval, maxval), shape=_static_shape(shape, "randint"),
                   dtype=_dtype_arg(dtype, "randint", "int", TypeError), out_sharding=out_sharding)


def geometric(key: Any, p: Any, shape: Optional[Sequence[int]] = None, dtype: Any = None, *,
              out_sharding: Any = None) -> Tensor:
    """``jax.random.geometric``: the number of trials to the first success (an integer, from 1); no gradient."""
    return _sample(_geometric, key, (p,), shape=_shape_arg(shape, "geometric", True),
                   dtype=_dtype_arg(dtype, "geometric", "int"), out_sharding=out_sharding)


def binomial(key: Any, n: Any, p: Any, shape: Optional[Sequence[int]] = None, dtype: Any = None) -> Tensor:
    """``jax.random.binomial``: successes in ``n`` trials of probability ``p``, as a float ``dtype`` (as jax);
    no gradient (a count: TF's binomial draws have none)."""
    return _sample(_binomial_jax, key, (n, p), shape=_shape_arg(shape, "binomial", True),
                   dtype=_dtype_arg(dtype, "binomial"))


def multinomial(key: Any, n: Any, p: Any, *, shape: Optional[Sequence[int]] = None, dtype: Any = None,
                unroll: Any = 1) -> Tensor:
    """``jax.random.multinomial``: counts of each outcome (the last axis of ``p``) in ``n`` trials, as ``dtype``
    (default float); no gradient."""
    if isinstance(unroll, bool):
        unroll = bool(unroll)
    else:
        unroll = _int(unroll, "multinomial", "unroll")
    return _sample(_multinomial, key, (n, p), shape=_shape_arg(shape, "multinomial", True),
                   dtype=_dtype_arg(dtype, "multinomial", "any"), unroll=unroll)


def poisson(*args, **kwargs) -> Tensor:
    """Poisson draws, called either way:

    * ``poisson(key, lam, shape=None, dtype=None, *, method='exact', out_sharding=None)``: ``jax.random.poisson``
      on a key (integers, default int32; ``method`` as ``loggamma``'s);
    * ``poisson(shape, lam, dtype=float32, seed=None, name=None)``: ``tf.random.poisson``, shape
      ``shape + lam.shape``, from the global generator (``set_seed``) or ``seed``'s own stream.

    No gradient (a count: TF registers none)."""
    return (_tf_poisson if _tf_style(args, kwargs, ("seed", "name")) else _jax_poisson)(*args, **kwargs)


def _jax_poisson(key: Any, lam: Any, shape: Optional[Sequence[int]] = None, dtype: Any = None, *,
                 method: str = "exact", out_sharding: Any = None) -> Tensor:
    return _sample(_poisson, key, (lam,), shape=_shape_arg(shape, "poisson", True),
                   dtype=_dtype_arg(dtype, "poisson", "int"), out_sharding=out_sharding,
                   **_method_arg("poisson", method))


def _tf_poisson(shape: Any, lam: Any, dtype: Any = jnp.float32, seed: Optional[int] = None,
                name: Optional[str] = None) -> Tensor:
    return _poisson_from(_stream(seed)._draw_key, "poisson", shape, lam, dtype, prepend=True)


def choice(key: Any, a: Any, shape: Sequence[int] = (), replace: bool = True, p: Any = None, axis: int = 0,
           mode: Optional[str] = None) -> Tensor:
    """``jax.random.choice``: entries of ``a`` (or of ``range(a)`` for an integer) drawn along ``axis``, with or
    without replacement, uniformly or with probabilities ``p``. A gather with fixed indices: differentiable
    w.r.t. a float ``a``; ``p`` gets no gradient (the indices are integers; jax's gradient is zero)."""
    if not isinstance(shape, (tuple, list)) and np.ndim(_value(shape)) == 0:  # (jax's rule: 2 is not (2,))
        raise TypeError(f"tj.random.choice: shape argument must be a sequence, got {shape!r}; give ({shape},)")
    static = {"shape": _static_shape(shape, "choice"), "replace": bool(replace),
              "axis": _int(axis, "choice", "axis"), "mode": mode}
    ps = () if p is None else (_value(p),)
    a = a.read_value() if isinstance(a, Variable) else a
    if np.ndim(a) == 0:  # (as jax: an integer n stands for range(n); a float one raises, see _int)
        n = _int(a.value if isinstance(a, Tensor) else a, "choice", "a")
        return _sample(_choice_n, key, ps, a=n, **static)
    return apply(_choice, (a, raw_key(key), *ps), static)


def lognormal(key: Any, sigma: Any = np.float32(1.0), shape: Optional[Sequence[int]] = None, dtype: Any = None, *,
              out_sharding: Any = None) -> Tensor:
    """``jax.random.lognormal``: ``exp(sigma * z)``; ``sigma`` is differentiable (reparameterization)."""
    return _sample(_lognormal, key, (sigma,), shape=_shape_arg(shape, "lognormal", True),
                   dtype=_dtype_arg(dtype, "lognormal", "float complex"), out_sharding=out_sharding)


def pareto(key: Any, b: Any, shape: Optional[Sequence[int]] = None, dtype: Any = None, *,
           out_sharding: Any = None) -> Tensor:
    """``jax.random.pareto``: ``exp(e / b)`` for a standard exponential ``e``; ``b`` is differentiable."""
    return _sample(_pareto, key, (b,), shape=_shape_arg(shape, "pareto", True), dtype=_dtype_arg(dtype, "pareto"),
                   out_sharding=out_sharding)


def rayleigh(key: Any, scale: Any, shape: Optional[Sequence[int]] = None, dtype: Any = None, *,
             out_sharding: Any = None) -> Tensor:
    """``jax.random.rayleigh``: ``scale * sqrt(-2 log u)``; ``scale`` is differentiable."""
    return _sample(_rayleigh, key, (scale,), shape=_shape_arg(shape, "rayleigh", True),
                   dtype=_dtype_arg(dtype, "rayleigh"), out_sharding=out_sharding)


def weibull_min(key: Any, scale: Any, concentration: Any, shape: Sequence[int] = (), dtype: Any = None) -> Tensor:
    """``jax.random.weibull_min``: the inverse CDF of a uniform draw; ``scale`` and ``concentration`` are
    differentiable."""
    return _sample(_weibull_min, key, (scale, concentration), shape=_static_shape(shape, "weibull_min"),
                   dtype=_dtype_arg(dtype, "weibull_min"))


def double_sided_maxwell(key: Any, loc: Any, scale: Any, shape: Sequence[int] = (), dtype: Any = None) -> Tensor:
    """``jax.random.double_sided_maxwell``: ``loc + scale * draw``; ``loc`` and ``scale`` are differentiable."""
    return _sample(_double_sided_maxwell, key, (loc, scale), shape=_static_shape(shape, "double_sided_maxwell"),
                   dtype=_dtype_arg(dtype, "double_sided_maxwell"))


def triangular(key: Any, left: Any, mode: Any, right: Any, shape: Optional[Sequence[int]] = None, dtype: Any = None,
               *, out_sharding: Any = None) -> Tensor:
    """``jax.random.triangular``: the inverse CDF of a uniform draw; ``left``, ``mode`` and ``right`` are
    differentiable."""
    return _sample(_triangular, key, (left, mode, right), shape=_shape_arg(shape, "triangular", True),
                   dtype=_dtype_arg(dtype, "triangular"), out_sharding=out_sharding)


def wald(key: Any, mean: Any, shape: Optional[Sequence[int]] = None, dtype: Any = None, *,
         out_sharding: Any = None) -> Tensor:
    """``jax.random.wald``: inverse Gaussian draws (a transform of a normal and a uniform draw); ``mean`` is
    differentiable."""
    return _sample(_wald, key, (mean,), shape=_shape_arg(shape, "wald", True), dtype=_dtype_arg(dtype, "wald"),
                   out_sharding=out_sharding)


def multivariate_normal(key: Any, mean: Any, cov: Any, shape: Optional[Sequence[int]] = None, dtype: Any = None,
                        method: str = "cholesky", *, out_sharding: Any = None) -> Tensor:
    """``jax.random.multivariate_normal``: ``mean + factor(cov) @ z`` (``method``: ``"cholesky"``, ``"eigh"``
    or ``"svd"``); ``mean`` and ``cov`` are differentiable (JAX's derivative of the factorization)."""
    if method not in ("svd", "eigh", "cholesky"):
        raise ValueError(f"tj.random.multivariate_normal: method must be one of {{'svd', 'eigh', 'cholesky'}}, "
                         f"got {method!r} (as jax.random)")
    return _sample(_multivariate_normal, key, (mean, cov), shape=_shape_arg(shape, "multivariate_normal", True),
                   dtype=_dtype_arg(dtype, "multivariate_normal"), method=method, out_sharding=out_sharding)


def _jax_truncated_normal(key: Any, lower: Any, upper: Any, shape: Optional[Sequence[int]] = None,
                          dtype: Any = None, *, out_sharding: Any = None) -> Tensor:
    return _sample(_truncated_normal_jax, key, (lower, upper), shape=_shape_arg(shape, "truncated_normal", True),
                   dtype=_dtype_arg(dtype, "truncated_normal"), out_sharding=out_sharding)


def gamma(*args, **kwargs) -> Tensor:
    """Gamma draws, called either way:

    * ``gamma(key, a, shape=None, dtype=None, *, method='exact', out_sharding=None)``: ``jax.random.gamma`` on a
      key (unit rate; ``method`` as ``loggamma``'s);
    * ``gamma(shape, alpha, beta=None, dtype=float32, seed=None, name=None)``: ``tf.random.gamma``, shape
      ``shape + broadcast(alpha, beta).shape``, rate ``beta``, from the global generator (``set_seed``) or
      ``seed``'s own stream.

    Differentiable w.r.t. ``a``/``alpha`` by implicit reparameterization (JAX's gradient, TF's
    RandomGammaGrad) and w.r.t. ``beta`` (``draw / beta``, as TF)."""
    return (_tf_gamma if _tf_style(args, kwargs, ("alpha", "beta", "seed", "name")) else _jax_gamma)(*args, **kwargs)


def _jax_gamma(key: Any, a: Any, shape: Optional[Sequence[int]] = None, dtype: Any = None, *,
               method: str = "exact", out_sharding: Any = None) -> Tensor:
    return _sample(_gamma, key, (a,), shape=_shape_arg(shape, "gamma", True), dtype=_dtype_arg(dtype, "gamma"),
                   out_sharding=out_sharding, **_method_arg("gamma", method))


def _tf_gamma(shape: Any, alpha: Any, beta: Any = None, dtype: Any = jnp.float32, seed: Optional[int] = None,
              name: Optional[str] = None) -> Tensor:
    return _gamma_from(_stream(seed)._draw_key, "gamma", shape, alpha, beta, dtype, prepend=True)


# The gamma family's ``method`` (jax.random's in jax 0.11.2 and later): ``'exact'``, the rejection sampler every
# jax has, or ``'approximate'``, loop-free and faster with a small bias (and another gradient). Each function takes
# it on every jax, so that code written for a newer jax runs on an older one as long as it asks for what that jax
# draws.
_METHOD_DRAWS = ("gamma", "loggamma", "beta", "chisquare", "poisson")
_JAX_TAKES_METHOD = frozenset(n for n in _METHOD_DRAWS
                              if "method" in inspect.signature(getattr(jax.random, n)).parameters)


def _method_arg(what: str, method: str) -> dict:
    """The static parameters that pass ``method`` on to ``jax.random.<what>``: none for ``'exact'`` (jax's default,
    what a jax without the parameter always draws; the kernels made before). ``'approximate'`` on a jax without it
    raises NotImplementedError naming the function, the jax installed and the fix; any other method ValueError."""
    if method == "exact":
        return {}
    if method != "approximate":
        raise ValueError(f"tj.random.{what}: method must be one of {{'exact', 'approximate'}}, got {method!r} "
                         f"(as jax.random)")
    if what not in _JAX_TAKES_METHOD:
        raise NotImplementedError(
            f"tj.random.{what}: method='approximate' needs a jax whose jax.random.{what} has the method parameter "
            f"(jax 0.11.2 and later have it); the installed jax {jax.__version__} has only the exact sampler. "
            "Upgrade jax and jaxlib (pip install -U jax jaxlib), or leave method='exact', the default.")
    return {"method": method}


def _shows_jax_signature(fn: Callable) -> Callable:
    """``fn``, whose signature shows ``method`` only where the installed jax's function has it (the mirror's
    signatures are jax's: tests/test_random_mirror.py); ``fn`` takes it either way (``_method_arg``)."""
    if fn.__name__ not in _JAX_TAKES_METHOD:
        sig = inspect.signature(fn)
        fn.__signature__ = sig.replace(parameters=[p for p in sig.parameters.values() if p.name != "method"])
    return fn


@_shows_jax_signature
def loggamma(key: Any, a: Any, shape: Optional[Sequence[int]] = None, dtype: Any = None, *,
             method: str = "exact", out_sharding: Any = None) -> Tensor:
    """``jax.random.loggamma``: the log of a gamma draw, computed in log space (accurate for small ``a``);
    ``a`` is differentiable (implicit reparameterization). ``method``: ``'exact'`` (the default, jax's rejection
    sampler) or ``'approximate'`` (jax's loop-free sampler: faster, with a small bias and another gradient; it needs
    a jax that has it, 0.11.2 or later)."""
    return _sample(_loggamma, key, (a,), shape=_shape_arg(shape, "loggamma", True),
                   dtype=_dtype_arg(dtype, "loggamma"), out_sharding=out_sharding, **_method_arg("loggamma", method))


@_shows_jax_signature
def beta(key: Any, a: Any, b: Any, shape: Optional[Sequence[int]] = None, dtype: Any = None, *,
         method: str = "exact", out_sharding: Any = None) -> Tensor:
    """``jax.random.beta``: from two gamma draws; ``a`` and ``b`` are differentiable (implicit
    reparameterization); ``method`` as ``loggamma``'s."""
    return _sample(_beta, key, (a, b), shape=_shape_arg(shape, "beta", True), dtype=_dtype_arg(dtype, "beta"),
                   out_sharding=out_sharding, **_method_arg("beta", method))


def dirichlet(key: Any, alpha: Any, shape: Optional[Sequence[int]] = None, dtype: Any = None, *,
              out_sharding: Any = None) -> Tensor:
    """``jax.random.dirichlet``: normalized gamma draws along ``alpha``'s last axis; ``alpha`` is
    differentiable (implicit reparameterization)."""
    return _sample(_dirichlet, key, (alpha,), shape=_shape_arg(shape, "dirichlet", True),
                   dtype=_dtype_arg(dtype, "dirichlet"), out_sharding=out_sharding)


@_shows_jax_signature
def chisquare(key: Any, df: Any, shape: Optional[Sequence[int]] = None, dtype: Any = None, *,
              method: str = "exact", out_sharding: Any = None) -> Tensor:
    """``jax.random.chisquare``: twice a gamma draw of ``df / 2``; ``df`` is differentiable (implicit
    reparameterization); ``method`` as ``loggamma``'s."""
    return _sample(_chisquare, key, (df,), shape=_shape_arg(shape, "chisquare", True),
                   dtype=_dtype_arg(dtype, "chisquare"), out_sharding=out_sharding, **_method_arg("chisquare", method))


def f(key: Any, dfnum: Any, dfden: Any, shape: Optional[Sequence[int]] = None, dtype: Any = None, *,
      out_sharding: Any = None) -> Tensor:
    """``jax.random.f``: a ratio of scaled chi-square draws; ``dfnum`` and ``dfden`` are differentiable
    (implicit reparameterization)."""
    return _sample(_f, key, (dfnum, dfden), shape=_shape_arg(shape, "f", True), dtype=_dtype_arg(dtype, "f"),
                   out_sharding=out_sharding)


def t(key: Any, df: Any, shape: Optional[Sequence[int]] = None, dtype: Any = None, *,
      out_sharding: Any = None) -> Tensor:
    """``jax.random.t``: Student's t draws (a normal over a gamma draw's root); ``df`` is differentiable
    (implicit reparameterization)."""
    return _sample(_t, key, (df,), shape=_shape_arg(shape, "t", True), dtype=_dtype_arg(dtype, "t"),
                   out_sharding=out_sharding)


def generalized_normal(key: Any, p: Any, shape: Sequence[int] = (), dtype: Any = None, *,
                       out_sharding: Any = None) -> Tensor:
    """``jax.random.generalized_normal``: density proportional to ``exp(-|x|^p)``, from a gamma draw of
    ``1 / p``; ``p`` is differentiable (implicit reparameterization)."""
    return _sample(_generalized_normal, key, (p,), shape=_static_shape(shape, "generalized_normal"),
                   dtype=_dtype_arg(dtype, "generalized_normal"), out_sharding=out_sharding)


def ball(key: Any, d: int, p: Any = 2, shape: Sequence[int] = (), dtype: Any = None, *,
         out_sharding: Any = None) -> Tensor:
    """``jax.random.ball``: points uniform in the unit ``p``-norm ball of dimension ``d`` (shape
    ``shape + (d,)``), from generalized normal draws; ``p`` is differentiable (implicit reparameterization)."""
    return _sample(_ball, key, (p,), d=_int(d, "ball", "d"), shape=_static_shape(shape, "ball"),
                   dtype=_dtype_arg(dtype, "ball"), out_sharding=out_sharding)


def clone(key: Any):
    """``jax.random.clone``: the same key, for reuse under jax's key-reuse checking."""
    return jax.random.clone(raw_key(key))


def key_data(keys: Any):
    """``jax.random.key_data``: the ``uint32`` data under a key array (a raw key comes back as it is)."""
    return jax.random.key_data(raw_key(keys))


def wrap_key_data(key_bits_array: Any, *, impl: Any = None, dtype: Any = None):
    """``jax.random.wrap_key_data``: a key array from its ``uint32`` data (what ``key_data`` returns)."""
    return jax.random.wrap_key_data(_value(key_bits_array), impl=impl, dtype=dtype)


def key_impl(keys: Any):
    """``jax.random.key_impl``: the PRNG implementation of a key array."""
    return jax.random.key_impl(raw_key(keys))


def key_dtype(impl_spec: Any = None):
    """``jax.random.key_dtype``: the dtype of keys of a PRNG implementation (the default one for None)."""
    return jax.random.key_dtype(impl_spec)


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
    seed = _value(seed)
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
    x = _value(x)
    return None if isinstance(x, jax.core.Tracer) else np.asarray(x)


def _state_data(state: Any):
    """A state given to ``Generator(state=...)`` or ``reset``: a JAX key, or a key's data (``uint32[2]``, what
    ``Generator.state`` holds). Any other shape raises ``ValueError`` (as TF for a state of the wrong size)."""
    state = _value(state)
    dtype = getattr(state, "dtype", None)
    if dtype is not None and jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key):
        state = jax.random.key_data(state)
    data = jnp.asarray(state).astype(jnp.uint32)
    if data.shape != (2,):
        raise ValueError(f"tj.random.Generator: a state is a JAX key's data, shape (2,) uint32 (Generator.state), "
                         f"got shape {tuple(data.shape)} (TF's Philox states, int64[3], do not carry over)")
    return data


_COUNTER_SIZE = {1: 2, 2: 1, 3: 2}  # TF's counter words per algorithm (Philox, ThreeFry; auto-select as Philox)


def _key_counter_data(key: Any, counter: Any, alg: int, what: str):
    """A state (a JAX key's data) for TF's key and counter, checked as TF checks them (``ValueError``): the two
    32-bit words ``[counter, key]``, each the value itself when it fits in 32 bits (the counter's value: its
    first integer, the others 0) and otherwise a 32-bit hash of all its 64-bit words."""
    key, counter = _value(key), _value(counter)
    if isinstance(key, jax.core.Tracer) or isinstance(counter, jax.core.Tracer):
        raise TypeError(f"tj.random.{what}: key and counter must be known values (Python or NumPy integers, or "
                        "eager Tensors), not values traced inside tj.function")
    k, c = np.asarray(key), np.asarray(counter)
    size = _COUNTER_SIZE[alg]
    if k.shape != ():
        raise ValueError(f"tj.random.{what}: Shapes {k.shape} and [] are incompatible: key must be a scalar (as TF)")
    if c.shape != (size,):
        raise ValueError(f"tj.random.{what}: Shapes {c.shape} and [{size}] are incompatible: the counter of "
                         f"algorithm {alg} has {size} integers (as TF)")
    for name, x in (("key", k), ("counter", c)):
        if not jnp.issubdtype(x.dtype, jnp.integer):
            raise TypeError(f"tj.random.{what}: {name} must hold integers, got {x.dtype}")

    def word(values: list) -> int:
        values = [int(v) % 2 ** 64 for v in values]  # (TF's int64 state words; an unsigned value as its bits)
        if values[0] <= 0xFFFFFFFF and not any(values[1:]):
            return values[0]
        with jax.ensure_compile_time_eval():
            h = jax.random.key(len(values))
            for v in values:
                h = jax.random.fold_in(jax.random.fold_in(h, np.uint32(v & 0xFFFFFFFF)), np.uint32(v >> 32))
            return int(jax.random.key_data(h)[-1])
    with jax.ensure_compile_time_eval():
        return jnp.asarray(np.asarray([word(c.tolist()), word([int(k)])], np.uint32))


# The generators' state Variables, by id (a Variable is unhashable, as TF's): a tj.function whose first trace
# made Variables keeps that trace's draws (``is_generator_state``).
_STATES: "weakref.WeakValueDictionary[int, Variable]" = weakref.WeakValueDictionary()


def is_generator_state(v: Variable) -> bool:
    """Whether ``v`` is the state of a ``tj.random.Generator`` (the global one's included)."""
    return _STATES.get(id(v)) is v


def _state_variable(make_data: Callable[[], Any]) -> Variable:
    """A new generator's state Variable, its value made by ``make_data``. Inside ``tj.function`` a generator
    made on the first call is built as any Variable made there (from a traced seed or parent state too: the
    function computes it, graph/function.py), and one made on a later call raises TF's ``ValueError``; under a
    bare ``jax.jit`` the value stays traced, which cannot make a Variable."""
    data = make_data()
    if isinstance(data, jax.core.Tracer) and tape_set.current().capture is None:
        raise RuntimeError("tj.random.Generator: a generator cannot be made inside jax.jit, since its state "
                           "is a new tj.Variable; make it outside and draw from it inside (or use tj.function, "
                           "which builds Variables made on its first call)")
    v = Variable(data, trainable=False, name="StateVar")  # (TF's name, which Keras looks for)
    _STATES[id(v)] = v
    return v


@jax.jit
def _advance(data):
    """(the next state, a key for one draw) from a state's key data: one split, so no key is used twice."""
    nxt, sub = jax.random.split(jax.random.wrap_key_data(data))
    return jax.random.key_data(nxt), sub


# -- TF's draws, given where their key comes from --------------------------------------------------------
# ``draw_key(shape)`` gives the key for a draw of ``shape``: a Generator's ``_draw_key`` (which advances it) or,
# for the stateless functions, the key made from their seed. ``what`` names the caller in errors.

def _scaled(z: Tensor, mean: Any, stddev: Any) -> Tensor:
    """``z * stddev + mean`` as TF builds it (its ops are differentiable), without the ops that do nothing."""
    if not _is_default(stddev, 1):
        z = z * stddev
    if not _is_default(mean, 0):
        z = z + mean
    return z


def _normal_from(draw_key: Callable, what: str, shape: Any, mean: Any, stddev: Any, dtype: Any) -> Tensor:
    dtype = _out_dtype(dtype, what, "float")
    shape = _tf_shape(shape, what)
    mean, stddev = _param(mean, dtype, "mean"), _param(stddev, dtype, "stddev")
    z = _jax_normal(draw_key(shape), shape, _draw_dtype(dtype))
    return _scaled(z if z.dtype == dtype else z.astype(dtype), mean, stddev)


def _truncated_normal_from(draw_key: Callable, what: str, shape: Any, mean: Any, stddev: Any,
                           dtype: Any) -> Tensor:
    dtype = _out_dtype(dtype, what, "float")
    shape = _tf_shape(shape, what)
    mean, stddev = _param(mean, dtype, "mean"), _param(stddev, dtype, "stddev")
    z = apply(_truncated_normal, (draw_key(shape),), {"shape": shape, "dtype": _draw_dtype(dtype)})
    return _scaled(z if z.dtype == dtype else z.astype(dtype), mean, stddev)


def _uniform_from(draw_key: Callable, what: str, shape: Any, minval: Any, maxval: Any, dtype: Any) -> Tensor:
    dtype = _out_dtype(dtype, what, "float int")
    shape = _tf_shape(shape, what)
    if jnp.issubdtype(dtype, jnp.integer):
        if (minval is None) != (maxval is None):
            raise ValueError(f"For integer dtype {dtype}, minval and maxval must be both `None` or both "
                             f"non-`None`; got minval={minval} and maxval={maxval}")
        if minval is None:
            return _full_int_from(draw_key, what, shape, dtype)
        minval, maxval = _param(minval, dtype, "min"), _param(maxval, dtype, "max")
        for bound, b in (("minval", minval), ("maxval", maxval)):
            if np.ndim(b) != 0:  # (a Variable reads as its value)
                raise ValueError(f"{bound} must be a scalar; got a tensor of shape "
                                 f"[{','.join(map(str, np.shape(b)))}] (integer bounds do not broadcast, as TF)")
        lo, hi = _known(minval), _known(maxval)
        if 0 not in shape and lo is not None and hi is not None and not lo < hi:
            raise ValueError(f"Need minval < maxval, got {lo} >= {hi} (as TF)")
        return apply(_randint, (draw_key(shape), minval, maxval), {"shape": shape, "dtype": dtype})
    if minval is None:
        raise ValueError(f"tj.random.{what}: minval=None is only for integer dtypes (full range); "
                         f"a {dtype} draw needs a number (as TF, which cannot convert None)")
    minval = _param(minval, dtype, "min")
    maxval = _param(1 if maxval is None else maxval, dtype, "max")
    return _jax_uniform(draw_key(shape), shape, dtype, minval, maxval)


def _full_int_from(draw_key: Callable, what: str, shape: Any, dtype: Any) -> Tensor:
    dt = _tf_dtype(dtype, what, _TF_FULL_INT_DTYPES, "int32, int64, uint32, uint64")
    shape = _tf_shape(shape, what)
    return apply(_bits, (draw_key(shape),), {"shape": shape, "dtype": dt})


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
        g._state = _state_variable(lambda: jax.random.key_data(raw_key(k)))
        return g

    def reset(self, state: Any) -> None:
        """Restart from ``state`` (a value of ``Generator.state``, or a JAX key): TF's ``reset``."""
        self._state.assign(_state_data(state))

    def reset_from_seed(self, seed: Any) -> None:
        """Restart the stream from ``seed``, as ``from_seed(seed)`` starts (TF's ``Generator.reset_from_seed``)."""
        self._state.assign(_seed_data(seed))

    @classmethod
    def from_key_counter(cls, key: Any, counter: Any, alg: Any) -> "Generator":
        """TF's ``from_key_counter``: a generator whose state is made from ``key`` (an integer scalar) and
        ``counter`` (a vector of the algorithm's counter size: 2 for Philox and auto-select, 1 for ThreeFry, as
        TF; ``alg=None`` is auto-select). The state's two words are ``[counter, key]``: each the value itself
        when it fits in 32 bits (so ``.key`` is ``key``), else a 32-bit hash of it. JAX's streams advance by
        splitting the whole state, so the first draw changes the key too (TF's only counts its counter up)."""
        alg = _alg_id(alg)
        data = _key_counter_data(key, counter, alg, "Generator.from_key_counter")
        g = cls.__new__(cls)
        g._alg = alg
        g._state = _state_variable(lambda: data)
        return g

    def reset_from_key_counter(self, key: Any, counter: Any) -> None:
        """Restart from ``key`` and ``counter``, as ``from_key_counter`` starts (TF's ``reset_from_key_counter``)."""
        self._state.assign(_key_counter_data(key, counter, self._alg, "Generator.reset_from_key_counter"))

    @property
    def key(self) -> Tensor:
        """TF's ``key``: the key part of the state, its last word (a ``uint32`` scalar; TF's is int64). The
        state is a JAX key's data, split at every draw: this word changes with each draw, where TF's key stays
        and its counter moves."""
        return self._state.read_value()[-1]

    def make_seeds(self, count: int = 1) -> Tensor:
        """TF's ``make_seeds``: ``count`` seeds for the stateless functions (``stateless_normal(shape,
        seed=seeds[:, i])``), a ``[2, count]`` integer tensor (int64, or int32 with JAX's x64 off); advances the
        generator (one step, as any draw). Both rows are random bits (TF's second row is zeros)."""
        count = _int(freeze(count), "Generator.make_seeds", "count")
        if count < 0:
            raise ValueError(f"tj.random.Generator.make_seeds: count must be >= 0, got {count} (as TF: Dimension "
                             f"{count} must be >= 0)")
        return _full_int_from(self._draw_key, "Generator.make_seeds", [2, count], jnp.int64)

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
        return _normal_from(self._draw_key, "Generator.normal", shape, mean, stddev, dtype)

    def truncated_normal(self, shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = jnp.float32,
                         name: Optional[str] = None) -> Tensor:
        """``tf.random.Generator.truncated_normal``: normal draws redrawn beyond two standard deviations, then
        ``z * stddev + mean`` (``mean``/``stddev`` differentiable, as TF)."""
        return _truncated_normal_from(self._draw_key, "Generator.truncated_normal", shape, mean, stddev, dtype)

    def uniform(self, shape: Any, minval: Any = 0, maxval: Any = None, dtype: Any = jnp.float32,
                name: Optional[str] = None) -> Tensor:
        """``tf.random.Generator.uniform`` in ``[minval, maxval)``: floats (``maxval`` defaults to 1;
        ``minval``/``maxval`` broadcast with the draw and are differentiable, as TF) or integers (scalar
        bounds, both given, ``minval < maxval``; both ``None``: the dtype's full range; no gradient)."""
        return _uniform_from(self._draw_key, "Generator.uniform", shape, minval, maxval, dtype)

    def uniform_full_int(self, shape: Any, dtype: Any = jnp.uint64, name: Optional[str] = None) -> Tensor:
        """Integers uniform over ``dtype``'s whole range (TF's ``uniform_full_int``; its default ``uint64`` is
        ``uint32`` with JAX's x64 off)."""
        return _full_int_from(self._draw_key, "Generator.uniform_full_int", shape, dtype)

    def binomial(self, shape: Any, counts: Any, probs: Any, dtype: Any = jnp.int32,
                 name: Optional[str] = None) -> Tensor:
        """``tf.random.Generator.binomial``: successes in ``counts`` trials of probability ``probs`` (both
        broadcast with the rightmost dimensions of ``shape``), as ``dtype``; no gradient."""
        shape = _tf_shape(shape, "Generator.binomial")
        dt = _tf_dtype(dtype, "Generator.binomial", _TF_COUNT_DTYPES, "half, float, double, int32, int64")
        counts, probs = (tnp.asarray(x, dtype=jnp.float32) for x in (counts, probs))
        _ends_with(shape, _broadcast("Generator.binomial", counts, probs), "Generator.binomial")
        return apply(_binomial, (self._draw_key(shape), counts, probs), {"shape": shape, "dtype": dt})

    def split(self, count: int = 1) -> List["Generator"]:
        """``count`` new generators with independent streams; advances this one (TF's ``Generator.split``).
        Inside ``tj.function``, on its first call only (they are new Variables, as TF)."""
        try:
            count = operator.index(count.numpy() if isinstance(count, (Tensor, Variable)) else count)
        except TypeError:  # (int() would truncate 2.5; TF refuses a float count)
            raise ValueError(f"tj.random.Generator.split: count must be an integer, got {describe_value(count)} "
                             "(as TF)") from None
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
_global_seed_set = [False]  # whether set_seed was called (unseeded draws in a tj.function are then reproducible)
_seeded: Dict[int, Generator] = {}  # op seed -> its stream (TF: reproducible per seed, new numbers per call)
# The generators of draws inside tj.function traces (``_stream``) -> their op seed, for set_seed to restart them
_traced: "weakref.WeakKeyDictionary[Generator, int]" = weakref.WeakKeyDictionary()
_UNSEEDED = 2 ** 30  # op seeds of unseeded draws inside a trace: this plus the draw's index in it


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
    _global_seed_set[0] = True
    gen = _global[0]
    if gen is None:
        _global[0] = _outside_traces(lambda: Generator.from_seed(seed))
    else:
        gen.reset_from_seed(seed)
    for op_seed, g in _seeded.items():
        g.reset_from_seed(_mix(seed, op_seed))
    for g, op_seed in list(_traced.items()):
        g.reset_from_seed(_mix(seed, op_seed))


def _mix(global_seed: int, op_seed: int) -> int:
    return (global_seed * 1_000_003 + op_seed) % (2 ** 31)


def _stream(seed: Optional[int]) -> Generator:
    """The generator a TF-style draw with op seed ``seed`` (or none) uses. Eagerly, one per op seed (the same
    seed draws on, new numbers per call) or the global generator. Inside a ``tj.function``, each draw of the
    traced program has its own, as each random op of a TF graph has (TF's ``tf.random.set_seed`` docstring):
    two draws with the same op seed give the same numbers, and new ones at the next call; with a global seed
    set, unseeded draws take op seeds from their place in the function, so two functions drawing alike give the
    same numbers."""
    capture = tape_set.current().capture
    streams = None if capture is None else capture.random_streams
    if streams is not None and (seed is not None or _global_seed_set[0]):
        index = capture.random_draws
        capture.random_draws = index + 1
        op_seed = int(seed) if seed is not None else _UNSEEDED + index
        g = streams.get((index, op_seed))
        if g is None:
            g = streams[(index, op_seed)] = _outside_traces(
                lambda: Generator.from_seed(_mix(_global_seed[0], op_seed)))
            _traced[g] = op_seed
        return g
    if seed is None:
        return get_global_generator()
    seed = int(seed)
    g = _seeded.get(seed)
    if g is None:
        g = _seeded[seed] = _outside_traces(lambda: Generator.from_seed(_mix(_global_seed[0], seed)))
    return g


# -- TF's stateless draws: a seed of two integers -------------------------------------------------------------
# TF's stateless functions take ``seed``, a shape-[2] int32 or int64 Tensor (or list). Here it makes a JAX key
# (``_seed_key``) and the draw is JAX's from that key, as the stateful draws: the same seed gives the same
# numbers, different seeds different ones; the numbers are not TF's (its Philox bits cannot be reproduced).

_WORD = 0xFFFFFFFF


@jax.jit
def _key_from_words(low, high):
    """A key's data from a seed's 32-bit words: the low words themselves when both integers fit in int32 (the
    high words are the low ones' sign extension), else the low words with the high ones folded in."""
    sign = jnp.where(low >= jnp.uint32(2 ** 31), jnp.uint32(_WORD), jnp.uint32(0))
    folded = jax.random.fold_in(jax.random.fold_in(jax.random.wrap_key_data(low), high[0]), high[1])
    return jnp.where(jnp.all(high == sign), low, jax.random.key_data(folded))


def _check_seed(dtype: Any, shape: tuple, what: str) -> None:
    """TF's rules for a stateless seed (its InvalidArgumentError, raised here as ``ValueError``)."""
    dt = np.dtype(dtype) if not jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key) else None
    if dt is None or not (jnp.issubdtype(dt, jnp.signedinteger) and dt.itemsize in (4, 8)):
        raise ValueError(f"tj.random.{what}: seed must be an int32 or int64 Tensor of shape [2], got dtype "
                         f"{dtype} (as TF; a JAX key goes to the functions that take one, e.g. "
                         "tj.random.normal(key, shape))")
    if tuple(shape) != (2,):
        raise ValueError(f"tj.random.{what}: seed must have shape [2], not [{','.join(map(str, shape))}] (as TF)")


def _seed_key(seed: Any, what: str):
    """The key a stateless draw uses for a TF seed: a threefry key whose data are the seed's two integers
    themselves (as 32-bit words) when they fit in int32, else those words with their upper halves folded in. A
    seed's value decides its key, whatever its dtype, eagerly and traced alike. (A typed key, not its raw data:
    ``jax.legacy_prng_key('warn'/'error')`` is about the user's keys, not these.)"""
    return jax.random.wrap_key_data(_seed_words(seed, what), impl="threefry2x32")


def _seed_words(seed: Any, what: str):
    seed = _value(seed)
    if isinstance(seed, jax.core.Tracer):  # (a seed computed inside tj.function: make_seeds, split)
        _check_seed(seed.dtype, seed.shape, what)
        if np.dtype(seed.dtype).itemsize == 4:
            low = jax.lax.bitcast_convert_type(seed, jnp.uint32)
            high = jnp.where(seed < 0, jnp.uint32(_WORD), jnp.uint32(0))
        else:
            low, high = (seed & _WORD).astype(jnp.uint32), ((seed >> 32) & _WORD).astype(jnp.uint32)
        return _key_from_words(low, high)
    arr = np.asarray(seed)
    _check_seed(arr.dtype, arr.shape, what)
    values = [int(v) % 2 ** 64 for v in arr.tolist()]
    return _key_from_words(np.asarray([v & _WORD for v in values], np.uint32),
                           np.asarray([v >> 32 for v in values], np.uint32))


def _ends_with(shape: tuple, params_shape: tuple, what: str) -> tuple:
    """``shape``, checked as TF's stateless draws check it: its last dimensions are the parameters'
    broadcast shape."""
    n = len(params_shape)
    if n > len(shape) or tuple(shape[len(shape) - n:]) != tuple(params_shape):
        raise ValueError(f"tj.random.{what}: Shape passed in must end with broadcasted shape (as TF): shape "
                         f"{list(shape)}, parameters' broadcast shape {list(params_shape)}")
    return shape


def _broadcast(what: str, *params: Any) -> tuple:
    try:
        return tuple(np.broadcast_shapes(*(tuple(np.shape(p)) for p in params)))
    except ValueError:
        raise ValueError(f"tj.random.{what}: Incompatible shapes: "
                         f"{' vs. '.join(str(list(np.shape(p))) for p in params)} (the parameters must broadcast, "
                         "as TF)") from None


_TF_FLOATS = tuple(map(jnp.dtype, (jnp.float16, jnp.float32, jnp.float64)))
_TF_COUNT_DTYPES = _TF_FLOATS + tuple(map(jnp.dtype, (jnp.int32, jnp.int64)))
_TF_FULL_INT_DTYPES = tuple(map(jnp.dtype, (jnp.int32, jnp.int64, jnp.uint32, jnp.uint64)))


def _tf_dtype(dtype: Any, what: str, allowed: tuple, names: str) -> Any:
    """``dtype`` if TF's op takes it (else TF's InvalidArgumentError, as ``ValueError``), canonical (JAX's
    x64 off: float64 is float32, int64 int32)."""
    dt = as_dtype(f"random_{what}", dtype)
    if dt not in allowed:
        raise ValueError(f"tj.random.{what}: dtype {dt} is not supported (as TF: allowed are {names})")
    return jax.dtypes.canonicalize_dtype(dt)


def _gamma_from(draw_key: Callable, what: str, shape: Any, alpha: Any, beta: Any, dtype: Any,
                prepend: bool) -> Tensor:
    """TF's gamma draws, ``maximum(tiny, draw(alpha) / beta)``: of shape ``shape + broadcast(alpha, beta)``
    (``gamma``) or ``shape``, which ends with it (``stateless_gamma``). ``alpha`` is differentiable by implicit
    reparameterization (JAX's gradient: TF's RandomGammaGrad), ``beta`` through the division."""
    dt = _tf_dtype(dtype, what, _TF_FLOATS, "half, float, double")
    shape = _tf_shape(shape, what)
    alpha = _param(alpha, dt, "alpha")
    beta = None if beta is None else _param(beta, dt, "beta")
    params_shape = _broadcast(what, alpha, 1.0 if beta is None else beta)
    full = shape + params_shape if prepend else _ends_with(shape, params_shape, what)
    if tuple(np.shape(alpha)) != params_shape:
        alpha = tnp.broadcast_to(alpha, params_shape)
    draw = _draw_dtype(dt)  # (16-bit floats: drawn in float32 and rounded, as TF's kernels compute wider)
    if draw != dt and type(alpha) not in (int, float):
        alpha = tnp.astype(alpha, draw)
    g = _sample(_gamma, draw_key(full), (alpha,), shape=full, dtype=draw, out_sharding=None)
    if g.dtype != dt:
        g = g.astype(dt)
    if beta is not None:
        g = g / beta
    return tnp.maximum(float(np.finfo(dt).tiny), g)


_poisson_counts = _not_differentiable("random_poisson_counts", lambda k, lam, shape, dtype: jax.random.poisson(
    k, lam, shape).astype(dtype))  # none: counts (TF's RandomPoissonV2 has no gradient)


def _poisson_from(draw_key: Callable, what: str, shape: Any, lam: Any, dtype: Any, prepend: bool) -> Tensor:
    """TF's Poisson draws of rate ``lam``, as ``dtype``: shape ``shape + lam.shape`` (``poisson``) or ``shape``,
    which ends with ``lam``'s (``stateless_poisson``); no gradient."""
    dt = _tf_dtype(dtype, what, _TF_COUNT_DTYPES, "half, float, double, int32, int64")
    shape = _tf_shape(shape, what)
    lam = convert_to_tensor(lam, dtype_hint=jnp.float32)
    if not (jnp.issubdtype(lam.dtype, jnp.floating) or jnp.issubdtype(lam.dtype, jnp.integer)):
        raise ValueError(f"tj.random.{what}: lam must be a float or integer tensor, got {lam.dtype} (as TF)")
    if not jnp.issubdtype(lam.dtype, jnp.floating):
        lam = lam.astype(jnp.float32)
    full = shape + tuple(lam.shape) if prepend else _ends_with(shape, tuple(lam.shape), what)
    return apply(_poisson_counts, (draw_key(full), lam), {"shape": full, "dtype": dt})


_multinomial_tf = _not_differentiable("random_multinomial", lambda k, logits, num_samples, dtype: jnp.transpose(
    jax.random.categorical(k, logits, axis=-1, shape=(num_samples, logits.shape[0]))).astype(dtype))  # none


def _categorical_from(draw_key: Callable, what: str, logits: Any, num_samples: Any, dtype: Any) -> Tensor:
    """TF's categorical draws: ``[batch, num_samples]`` class indices for 2-D ``logits``; no gradient (TF:
    ``NotDifferentiable("Multinomial")``)."""
    dt = as_dtype(f"random_{what}", jnp.int64 if dtype is None else dtype)
    if dt not in (jnp.dtype(jnp.int32), jnp.dtype(jnp.int64)):
        raise ValueError(f"tj.random.{what}: Argument `dtype` got invalid value {dt}. Accepted dtypes are "
                         "(int32, int64) (as TF)")
    logits = convert_to_tensor(logits)
    if logits.ndim != 2:
        raise ValueError(f"tj.random.{what}: logits should be a matrix, got shape "
                         f"[{','.join(map(str, logits.shape))}] (as TF)")
    if not jnp.issubdtype(logits.dtype, jnp.floating):
        raise TypeError(f"tj.random.{what}: logits must be a float tensor, got {logits.dtype} (TF has no kernel "
                        "for it)")
    n = _int(freeze(num_samples), what, "num_samples")
    if n < 0:
        raise ValueError(f"tj.random.{what}: num_samples should be non-negative, got {n} (as TF)")
    batch, classes = logits.shape
    if classes == 0:
        raise ValueError(f"tj.random.{what}: num_classes should be positive, got 0 (as TF)")
    return apply(_multinomial_tf, (draw_key((batch, n)), logits),
                 {"num_samples": n, "dtype": jax.dtypes.canonicalize_dtype(dt)})


def _fixed(key: Any) -> Callable:
    """A stateless function's ``draw_key``: its seed's key, for a draw of any shape."""
    return lambda shape: key


_TF_STATELESS_UNIFORM_DTYPES = _TF_UNIFORM_DTYPES + tuple(map(jnp.dtype, (jnp.uint32, jnp.uint64)))


def stateless_uniform(shape: Any, seed: Any, minval: Any = 0, maxval: Any = None, dtype: Any = jnp.float32,
                      name: Optional[str] = None, alg: Any = "auto_select") -> Tensor:
    """``tf.random.stateless_uniform``: as ``uniform(shape, ...)`` (floats in ``[minval, maxval)``, with their
    gradient; integers between scalar bounds; both bounds None: an integer dtype's full range, unsigned
    included), drawn from ``seed``'s key: the same seed, the same numbers."""
    dt = as_dtype("random_stateless_uniform", dtype)
    if dt not in _TF_STATELESS_UNIFORM_DTYPES:
        raise ValueError(f"tj.random.stateless_uniform: Argument `dtype` got invalid value {dt}. Accepted dtypes "
                         f"are {tuple(str(d) for d in _TF_STATELESS_UNIFORM_DTYPES)} (as TF)")
    if minval is not None and jnp.issubdtype(dt, jnp.unsignedinteger):
        raise ValueError(f"tj.random.stateless_uniform: Argument `dtype` got invalid value {dt} when argument "
                         "`minval` is not None. Please don't use unsigned integers in this case (as TF)")
    _alg_id(alg)
    return _uniform_from(_fixed(_seed_key(seed, "stateless_uniform")), "stateless_uniform", shape, minval, maxval,
                         dtype)


def stateless_normal(shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = jnp.float32,
                     name: Optional[str] = None, alg: Any = "auto_select") -> Tensor:
    """``tf.random.stateless_normal``: ``z * stddev + mean`` for ``seed``'s normal draw; ``mean``/``stddev`` are
    differentiable (as TF)."""
    _alg_id(alg)
    return _normal_from(_fixed(_seed_key(seed, "stateless_normal")), "stateless_normal", shape, mean, stddev, dtype)


def stateless_truncated_normal(shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = jnp.float32,
                               name: Optional[str] = None, alg: Any = "auto_select") -> Tensor:
    """``tf.random.stateless_truncated_normal``: normal draws redrawn beyond two standard deviations, then
    ``z * stddev + mean`` (``mean``/``stddev`` differentiable, as TF), from ``seed``'s key."""
    _alg_id(alg)
    return _truncated_normal_from(_fixed(_seed_key(seed, "stateless_truncated_normal")),
                                  "stateless_truncated_normal", shape, mean, stddev, dtype)


def stateless_categorical(logits: Any, num_samples: Any, seed: Any, dtype: Any = jnp.int64,
                          name: Optional[str] = None) -> Tensor:
    """``tf.random.stateless_categorical``: ``[batch, num_samples]`` class indices for 2-D ``logits`` from
    ``seed``'s key (dtype int32 or int64: int32 with JAX's x64 off); no gradient."""
    return _categorical_from(_fixed(_seed_key(seed, "stateless_categorical")), "stateless_categorical", logits,
                             num_samples, dtype)


def stateless_binomial(shape: Any, seed: Any, counts: Any, probs: Any, output_dtype: Any = jnp.int32,
                       name: Optional[str] = None) -> Tensor:
    """``tf.random.stateless_binomial``: successes in ``counts`` trials of probability ``probs`` (their
    broadcast shape ends ``shape``), as ``output_dtype``, from ``seed``'s key; no gradient."""
    what = "stateless_binomial"
    shape = _tf_shape(shape, what)
    dt = _tf_dtype(output_dtype, what, _TF_COUNT_DTYPES, "half, float, double, int32, int64")
    counts, probs = (tnp.asarray(x, dtype=jnp.float32) for x in (counts, probs))
    _ends_with(shape, _broadcast(what, counts, probs), what)
    return apply(_binomial, (_seed_key(seed, what), counts, probs), {"shape": shape, "dtype": dt})


def stateless_gamma(shape: Any, seed: Any, alpha: Any, beta: Any = None, dtype: Any = jnp.float32,
                    name: Optional[str] = None) -> Tensor:
    """``tf.random.stateless_gamma``: gamma draws of concentration ``alpha`` and rate ``beta`` (their broadcast
    shape ends ``shape``) from ``seed``'s key; differentiable w.r.t. ``alpha`` (implicit reparameterization,
    JAX's gradient: TF's) and ``beta``."""
    return _gamma_from(_fixed(_seed_key(seed, "stateless_gamma")), "stateless_gamma", shape, alpha, beta, dtype,
                       prepend=False)


def stateless_poisson(shape: Any, seed: Any, lam: Any, dtype: Any = jnp.int32, name: Optional[str] = None) -> Tensor:
    """``tf.random.stateless_poisson``: Poisson draws of rate ``lam`` (whose shape ends ``shape``) from
    ``seed``'s key, as ``dtype``; no gradient."""
    return _poisson_from(_fixed(_seed_key(seed, "stateless_poisson")), "stateless_poisson", shape, lam, dtype,
                         prepend=False)


def stateless_parameterized_truncated_normal(shape: Any, seed: Any, means: Any = 0.0, stddevs: Any = 1.0,
                                             minvals: Any = -2.0, maxvals: Any = 2.0,
                                             name: Optional[str] = None) -> Tensor:
    """``tf.random.stateless_parameterized_truncated_normal``: normal draws of mean ``means`` and standard
    deviation ``stddevs`` truncated to ``[minvals, maxvals]`` (broadcasting to the end of ``shape``; one float
    dtype for all four), from ``seed``'s key: ``means + stddevs * z`` for an inverse-CDF truncated normal
    ``z`` between the standardized bounds (taken in the tail's own probabilities beyond 0: it stays exact far in
    a tail, as TF's sampler, where jax.random.truncated_normal's draws collapse). All four are differentiable, as
    TF's (StatelessParameterizedTruncatedNormal's gradient): ``minvals``/``maxvals`` by the implicit
    reparameterization gradient of the draw, ``means`` by 1 and ``stddevs`` by the standardized draw ``z`` (TF's
    gradient holds the standardized bounds fixed; the exact derivative would also move them)."""
    what = "stateless_parameterized_truncated_normal"
    shape = _tf_shape(shape, what)
    params = [x if isinstance(x, (Tensor, Variable)) else convert_to_tensor(x)
              for x in (means, stddevs, minvals, maxvals)]
    dtypes = [jnp.dtype(p.dtype) for p in params]
    if len(set(dtypes)) > 1:
        raise ValueError(f"tj.random.{what}: means, stddevs, minvals and maxvals must have one dtype, got "
                         f"{', '.join(map(str, dtypes))} (as TF)")
    dt = _tf_dtype(dtypes[0], what, _TF_FLOATS, "half, float, double")
    _ends_with(shape, _broadcast(what, *params), what)
    key = _seed_key(seed, what)
    draw = _draw_dtype(dt)
    if draw != dt:
        params = [tnp.astype(p, draw) for p in params]
    m, s, lo, hi = params
    # The standardized bounds hold means and stddevs constant, as TF's gradient does (StatelessParameterizedTruncated
    # Normal's: 1 for means, the standardized draw for stddevs). (An infinite bound stays infinite: (inf - m) / s
    # would give a stddev gradient of 0 * inf = NaN.)
    m0, s0 = _stop_gradient(m), _stop_gradient(s)
    standard = [tnp.where(tnp.isfinite(b), (tnp.where(tnp.isfinite(b), b, 0) - m0) / s0, b) for b in (lo, hi)]
    z = _sample(_truncated_normal_tf, key, tuple(standard), shape=shape, dtype=draw, out_sharding=None)
    x = m + s * z
    return x if x.dtype == dt else x.astype(dt)


def create_rng_state(seed: Any, alg: Any) -> Tensor:
    """TF's ``tf.random.create_rng_state``: the state ``Generator.from_seed(seed, alg)`` starts from, for
    ``Generator.from_state(state, alg)`` or ``reset(state)``. A state here is a JAX key's data (``uint32[2]``),
    not TF's int64 counter and key (shape [3] for Philox, [2] for ThreeFry)."""
    _alg_id(alg)
    return tnp.asarray(_seed_data(seed))


def _tf_split(seed: Any, num: Any = 2, alg: Any = "auto_select") -> Tensor:
    _alg_id(alg)
    key = _seed_key(seed, "split")
    num = _int(freeze(num), "split", "num")
    if num < 0:
        raise ValueError(f"tj.random.split: num must not be negative, got {num}")
    if isinstance(seed, (Tensor, Variable)):
        dt = seed.dtype
    else:  # (TF: a list of ints that fit is int32, else int64; an array keeps its dtype)
        arr = np.asarray(seed)
        fits = all(-2 ** 31 <= int(v) < 2 ** 31 for v in arr.ravel().tolist())
        dt = np.int32 if isinstance(seed, (list, tuple)) and fits else arr.dtype
    return _full_int_from(_fixed(key), "split", [num, 2], dt)


def _tf_fold_in(seed: Any, data: Any, alg: Any = "auto_select") -> Tensor:
    _alg_id(alg)
    key = _seed_key(seed, "fold_in")
    data = convert_to_tensor(data)
    if data.ndim != 0 or not jnp.issubdtype(data.dtype, jnp.signedinteger):
        raise ValueError(f"tj.random.fold_in: data must be an int32 or int64 scalar, got {describe_value(data)} "
                         "(as TF)")
    return tnp.stack([_full_int_from(_fixed(key), "fold_in", [], data.dtype), data])
