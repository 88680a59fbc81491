"""How an op is declared: the conventions and helpers shared by the op surfaces (tj.numpy, tj.numpy.linalg,
tj.nn, tj.random).

Terms:

* op       an ``OpDef`` (core.py): a JAX function ``fn(*arrays, **static)``, optional hand-written rules
           (``fwd``/``bwd``/``jvp``) and sample inputs. Kernels not written by hand are derived by JAX.
* family   ops alike in arity and in the shape of their rules (elementwise unary, binary, reductions,
           shape ops, activations, losses, decompositions, random draws).
* factory  one function per family that calls ``OpDef(...)`` once, with everything the op needs.
* table    after the factory, one line per op: its name, its JAX function, its derivative and a comment on
           the TF convention it follows. ``numpy.py``'s elementwise unary table is the model.
* surface  the public function users call (``tj.numpy.exp``). Where it only passes the op its arrays
           (elementwise families) the factory returns it; otherwise a short ``def`` below the table turns
           the ``jax.numpy``/``jax.nn`` signature into static parameters (``freeze``) and calls the op.
* samples  ``() -> [(args, static), ...]``, the inputs of the registry-wide gradient test
           (tests/test_ops_registry.py, test_path_consistency.py). Each module draws them from its own
           seeded generator, at import and in declaration order: moving an op within a module changes the
           samples of the ops after it.

To declare an op:

1. Add one line to its family's table (each surface module's docstring lists its tables). An op with
   no family is one ``OpDef(name, fn, fwd=..., bwd=..., jvp=..., samples=...)``, its rules written just
   above it.
2. Give every option to the constructor (``differentiable=False``, ``accepts_none=...``): an op is never
   changed after it is built.
3. Write a rule by hand only to follow a TF convention JAX does not (kinks, ties, complex values: see
   rules.py) or to keep fewer residuals; otherwise the kernels derived from ``fn`` are its exact
   derivatives. Rule pieces used by several families live in rules.py.
4. Name the op (its registry key, which ``tj.RegisterGradient`` takes) as jax or TF names it. The surface
   has the name users call (``tj.numpy``/``tj.nn`` mirror ``jax.numpy``/``jax.nn``, with ``tf.math``/
   ``tf.nn`` names where jax has none); every other name the module defines, the OpDef included, starts with ``_``.
"""
from __future__ import annotations

import functools
import sys
from typing import Any, Callable, List

import jax
import jax.numpy as jnp
import numpy as np

from .core import OpDef

HALF = (np.dtype(jnp.float16), np.dtype(jnp.bfloat16))  # the dtypes TF's kernels compute in float32


def half_in_float32(f: Callable) -> Callable:
    """An op's function ``f(*arrays, **static)`` computing float16 and bfloat16 values in float32, rounded once to
    the result's dtype, as TF's kernels (Eigen's half functions) and NumPy's half loops do: XLA's half-precision
    expansions of arcsinh, arctanh, arcsin, expm1, log2, logistic... are off by many ulps on a sixth of the float16
    values (expm1(2e-7) was 2.4e-7, arcsin(6e-8) 0), jax.numpy's float16 floor_divide off by one on 1.5% of pairs
    (-0.501 // -0.0008183 gave 613, NumPy and TF 612), and softmax, rounded after every step, an ulp off TF's."""
    @functools.wraps(f)
    def in_float32(*args, **static):
        dtype = jnp.result_type(*args)
        if dtype in HALF:
            return f(*(jnp.asarray(a, jnp.float32) for a in args), **static).astype(dtype)
        return f(*args, **static)
    return in_float32


def samples(*cases: Any) -> Callable[[], list]:
    """An op's sample inputs: each case is ``(args tuple, static kwargs dict)``, drawn once (numpy only:
    nothing may start JAX's backend at import, or ``jax.distributed.initialize`` could not run after it)."""
    return lambda: list(cases)


def not_differentiable(name: str, fn: Callable) -> OpDef:
    """An op whose outputs have no gradient w.r.t. any input (comparisons, argmax, random draws): it is never
    recorded, so a gradient through it is None, as TF's ops registered ``NotDifferentiable``. Not in the
    registry (which lists the ops with derivatives to test)."""
    return OpDef(name, fn, register=False, differentiable=False)


# tj.stop_gradient's op (custom_gradient.py), also what ops built of ops use to hold a value constant (tj.random)
stop_gradient = not_differentiable("stop_gradient", jax.lax.stop_gradient)


def no_gradient(name: str, fn: Callable) -> OpDef:
    """An op TF registers with a gradient of None (Floor, Ceil, Round, Rint, FloorDiv, ZerosLike, OnesLike): it
    is recorded like any other, so its output is on the tape (a later op on it is recorded, it can be a
    source: ``tape.gradient(2 * floor(x), floor(x))`` is 2), but nothing connects it to its inputs: a gradient
    or tangent through it is None. (A ``not_differentiable`` op's output is on no tape.)"""
    return OpDef(name, fn, register=False, connections=(frozenset(),))


def public_dir(module_name: str) -> Callable[[], List[str]]:
    """A module's ``__dir__`` (PEP 562) showing its ``__all__`` only, as jax's modules show (tab completion,
    ``dir(tj.nn)``): the imports and helpers stay usable inside the module but are not shown. The module's
    ``__all__`` is read at each call."""
    return lambda: sorted(sys.modules[module_name].__all__)
