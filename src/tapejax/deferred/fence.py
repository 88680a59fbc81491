"""Fencing: one part of a compiled program computed exactly as it would be on its own."""
from __future__ import annotations

from typing import Callable

import jax
import jax.extend.core as jex
import numpy as np

from ..ops import linear_rule

TRUE = np.bool_(True)  # the run-time predicate fenced programs take as an argument


def fence(pred, f: Callable, *args):
    """``f(*args)`` as a separate XLA computation: XLA fuses nothing across a conditional whose predicate
    is only known at run time, so the program computes what the op-by-op kernels compute, bit for bit
    (a plain program would, e.g., contract one op's multiply and the next op's add into an FMA).
    ``pred`` is a traced boolean that is True when the program runs (``TRUE`` passed as an argument).
    XLA:GPU turns a cheap conditional into a select of both branches and fuses through it (an H200 summed
    a fenced reduction in another order than its kernel alone): optimization barriers around ``f`` inside
    the branch keep its inputs and outputs out of any fusion there too.
    A convolution is fenced by the barriers alone: inside a conditional's branch XLA:CPU keeps it in the
    layout it was written in (NCHW), where a program of its own (or the barriers alone) moves it to the
    NHWC layout its convolution code takes, and its sums come in another order (on a Zen 3 CPU a
    (2, 3, 5, 5) convolution's gradients were 2e-6 apart that way). So is a kernel that calls a LAPACK routine
    (a triangular solve, a factorization, an eigensolver: the same layout choice for the library's call): the
    gradient of a complex eig's eigenvectors fenced in a conditional was a float32 unit off its kernel's."""
    trees = []

    def flat(*a):
        a = jax.lax.optimization_barrier(a)
        leaves, tree = jax.tree_util.tree_flatten(f(*a))
        trees.append(tree)
        return jax.lax.optimization_barrier(leaves)
    closed = jax.make_jaxpr(flat)(*args)
    if _calls_a_library(closed.jaxpr):
        leaves = flat(*args)
    else:
        # (the other branch's zeros weakly typed where the outputs are: cond's outputs are weak only where both
        # branches' are, and a Python number's residual made strong computed an op's gradient in float64 under x64)
        leaves = jax.lax.cond(pred, flat, lambda *a: [linear_rule.zeros_of(s) for s in closed.out_avals], *args)
    # The tree of the branch that made these leaves (a VJP residual's tree names its own record).
    return jax.tree_util.tree_unflatten(trees[-1], leaves)


# The primitives XLA:CPU runs by a library call whose layout a conditional's branch keeps as written (see fence).
LIBRARY_CALLS = frozenset({"conv_general_dilated", "triangular_solve", "lu", "cholesky", "eig", "eigh", "svd", "qr",
                           "householder_product", "geqrf", "geqp3", "schur", "hessenberg", "tridiagonal",
                           "tridiagonal_solve"})


def _calls_a_library(jaxpr) -> bool:
    """Whether ``jaxpr`` or a jaxpr nested in it (a custom rule's, a checkpoint's) has a LIBRARY_CALLS primitive."""
    return (any(e.primitive.name in LIBRARY_CALLS for e in jaxpr.eqns)
            or any(_calls_a_library(sub) for sub in jex.subjaxprs(jaxpr)))
