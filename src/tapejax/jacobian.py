"""GradientTape.jacobian and batch_jacobian, over the tape's ``gradient``.

With ``experimental_use_pfor=True`` the Jacobian is one batched backward pass: for fixed residuals the
tape's backward computation is a pure function of the output gradient, so it is traced once under
``jax.vmap`` over the basis of output gradients (every backward kernel is batched by XLA) instead of
being looped row by row. When an outer tape or accumulator records the computation (higher-order
Jacobians), the rows are computed one by one so that the outer tape sees ordinary recorded ops; under
``tj.debug.check_numerics()`` too, so that every backward kernel is checked.

The tape is reached only through two callables: ``gradient(target, sources, output_gradients=...)``
(``GradientTape.gradient``) and ``kept()``, a context inside which ``gradient`` may be called several
times (a non-persistent tape is used up when it exits).
"""
from __future__ import annotations

import functools
from typing import Any, Callable, ContextManager, List

import jax
import jax.numpy as jnp
import numpy as np

from . import record, tape_set
from .nest import UnconnectedGradients, flatten, rebuild
from .tensor import Tensor, TracedValueError, Variable, as_array
from .ops import numpy as tnp

Gradient = Callable[..., list]
Kept = Callable[[], ContextManager]


def _shape_dtype(x):
    if isinstance(x, (Tensor, Variable)):
        return tuple(x.shape), x.dtype
    arr = as_array(x)
    return tuple(arr.shape), arr.dtype


def _vectorizing_error(what: str) -> str:
    return (f"Encountered an exception while vectorizing the {what} computation. Vectorization can be disabled "
            "by setting experimental_use_pfor to False.")


# Failures of code that cannot run under jax.vmap with a batched output gradient, though it runs row by row
# eagerly: a Python branch on, or a conversion of, a traced value; a Variable assigned a value depending on it.
_VMAP_FAILURES = (jax.errors.JAXTypeError, jax.errors.JAXIndexError, TracedValueError)


def _check_row_shape(what: str, i: int, g, source) -> None:
    """A gradient of another shape than its source (a custom gradient or RegisterGradient returning one) has
    no place in the Jacobian: say so (TF fails reshaping it) instead of failing in a reshape."""
    shape = _shape_dtype(source)[0]
    if tuple(jnp.shape(g)) != shape:
        raise ValueError(f"GradientTape.{what}: the gradient with respect to source {i} has shape "
                         f"{tuple(jnp.shape(g))}, but the source has shape {shape}; a custom gradient (or a "
                         "registered gradient) on the path returns a gradient of the wrong shape.")


def _rows(gradient: Gradient, kept: Kept, target, flat_sources, basis_rows: Callable[[int], Any], n: int,
          use_pfor: bool, what: str = "jacobian"):
    """Gradients of ``target`` w.r.t. each source for each of n output gradients: a list (per source) of
    stacked results of shape (n,) + source.shape, or None where unconnected."""
    # Under tj.debug.check_numerics() the rows run one by one, as every op runs eagerly there: each backward
    # kernel is then checked on concrete values (under jax.vmap the check would see only tracers).
    checking = tape_set.numerics_checks and tape_set.current().debug_checking
    if use_pfor and not checking and not tape_set.any_user_recording():
        unconnected = set()

        def one(og):
            gs = gradient(target, flat_sources, output_gradients=[Tensor(og)])
            out = []
            for i, (g, s) in enumerate(zip(gs, flat_sources)):
                if g is None:
                    unconnected.add(i)
                    shape, dtype = _shape_dtype(s)
                    out.append(jnp.zeros(shape, dtype))
                else:
                    _check_row_shape(what, i, g.value, s)
                    out.append(g.value)
            return out
        basis = basis_rows(-1)
        # A fresh tape set, not stop_recording: tapes that backward functions open themselves (recompute_grad
        # re-runs its function under one) must record.
        with tape_set.isolated(tape_set.current().capture):
            try:
                stacked = jax.vmap(one)(basis)
            except _VMAP_FAILURES as err:
                if tape_set.current().capture is not None:  # inside a tj.function trace every row fails alike
                    raise
                # As TF when pfor cannot convert an op: the rows one by one (a persistent tape) would work.
                raise ValueError(f"{_vectorizing_error(what)} ({type(err).__name__}: "
                                 f"{str(err).splitlines()[0] if str(err) else ''})") from err
        result = [None if i in unconnected else Tensor(r) for i, r in enumerate(stacked)]
        _record_on_graph(target, flat_sources, [r for r in result if r is not None])
        return result
    per_source: List[List[Any]] = [[] for _ in flat_sources]
    with kept():
        for j in range(n):
            gs = gradient(target, flat_sources, output_gradients=[basis_rows(j)])
            for i, g in enumerate(gs):
                if g is not None:
                    _check_row_shape(what, i, g, flat_sources[i])
                per_source[i].append(g)
    result = []
    for i, rows in enumerate(per_source):
        if all(r is None for r in rows):
            result.append(None)
            continue
        shape, dtype = _shape_dtype(flat_sources[i])
        rows = [r if r is not None else Tensor(jnp.zeros(shape, dtype)) for r in rows]
        result.append(tnp.stack(rows))
    return result


class _VectorizedRows:
    """Backward function of the rows ``_rows`` computed under ``jax.vmap`` inside a tj.function trace: JAX
    differentiates them (an outer tape over the call), tj.gradients cannot."""

    def residual_bytes(self) -> int:
        return 0

    def __call__(self, cts, needed_idx, recording):
        raise NotImplementedError(
            "tj.gradients through a vectorized jacobian/batch_jacobian inside a tj.function is not supported: "
            "compute it with experimental_use_pfor=False (on a persistent tape), or differentiate with a "
            "GradientTape around the tj.function call.")


def _record_on_graph(target, flat_sources, rows: List[Tensor]) -> None:
    """Inside a tj.function trace the vectorized rows are computed off the graph the trace records (which
    decides, as TF, which outputs of the function are connected to which inputs): record them there as
    made from the target and the sources, so that an outer tape over the call gets their gradient."""
    if not rows:
        return
    ids = [x._handle_id if isinstance(x, Variable) else x._id for x in [target] + list(flat_sources)
           if isinstance(x, (Tensor, Variable))]
    tapes, _ = record.recorders(ids)
    if tapes:
        record.record_operation(tapes, "vectorized_jacobian", rows, ids, _VectorizedRows())


def _use_up(kept: Kept) -> None:
    """Nothing to compute: a non-persistent tape is used up all the same, as by any jacobian call."""
    with kept():
        pass


def _read_if_unconnected(results, flat_sources, use_pfor: bool, unconnected) -> None:
    """TF's Jacobian without pfor takes each row's gradient eagerly, whose zeros for an unconnected Variable
    source (``zeros_like(variable)``) read it: the tapes recording then watch it, as after ``gradient``. (With
    pfor the rows are taken inside a traced function, which no eager tape sees.)"""
    if use_pfor or unconnected is not UnconnectedGradients.ZERO or not tape_set.active():
        return
    for r, s in zip(results, flat_sources):
        if r is None and isinstance(s, Variable):
            tape_set.record_hooks.variable_accessed(s)


def _finish(results, flat_sources, out_shape_of, unconnected):
    out = []
    for r, s in zip(results, flat_sources):
        shape, dtype = _shape_dtype(s)
        want = out_shape_of(shape)
        if r is None:
            out.append(Tensor(jnp.zeros(want, dtype)) if unconnected is UnconnectedGradients.ZERO else None)
        else:
            out.append(tnp.reshape(r, want))
    return out


def _check_parallel_iterations(what: str, parallel_iterations, use_pfor: bool, persistent: bool, rows: int) -> None:
    """TF's checks of ``parallel_iterations`` (its pfor splits the rows into chunks of that many, computing
    the gradient once per chunk, which a non-persistent tape cannot do); the value is otherwise only a hint."""
    if parallel_iterations is None:
        return
    vectorizing = _vectorizing_error(what)
    if not use_pfor:
        if parallel_iterations < 1:
            raise TypeError(f"'parallel_iterations' must be a positive integer (got {parallel_iterations!r}).")
        return
    if parallel_iterations < 2:
        raise ValueError(f"{vectorizing} (parallel_iterations must be None or at least 2 when vectorizing; got "
                         f"{parallel_iterations!r}.)")
    if not persistent and rows >= parallel_iterations:
        if what == "batch_jacobian":
            raise RuntimeError("GradientTape must be created with persistent=True to compute the batch_jacobian "
                               f"with parallel_iterations ({parallel_iterations}, for {rows} rows).")
        raise ValueError(f"{vectorizing} (parallel_iterations={parallel_iterations} splits the {rows} rows into "
                         "chunks, each needing the tape again: create the GradientTape with persistent=True.)")


@functools.partial(jax.jit, static_argnums=(0, 1, 2, 3))
def _seeds(n: int, shape: tuple, dtype, batch: bool) -> jax.Array:
    """The ``n`` one-hot cotangents that pick a Jacobian's rows, ``(n,) + shape``: ``eye(n)`` reshaped, or
    for a batch Jacobian (``shape[0]`` the batch) each example's ``eye(n)`` broadcast over the batch. One
    compiled program per shape (``jnp.eye`` run eagerly compiles five)."""
    eye = jnp.eye(n, dtype=dtype)
    if not batch:
        return eye.reshape((n,) + shape)
    return jnp.broadcast_to(eye.reshape((n, 1) + shape[1:]), (n,) + shape)


def jacobian(gradient: Gradient, kept: Kept, target, sources, unconnected: UnconnectedGradients,
             use_pfor: bool, parallel_iterations=None, persistent: bool = True) -> Any:
    """The Jacobian ``target.shape + source.shape`` of ``target`` w.r.t. each of ``sources`` (same structure)."""
    flat_sources, tree = flatten(sources)
    t_shape, t_dtype = _shape_dtype(target)
    n = int(np.prod(t_shape, dtype=np.int64))
    _check_parallel_iterations("jacobian", parallel_iterations, use_pfor, persistent, n)
    if n == 0:  # (no rows: zeros of the Jacobian's shape, None for a source the target does not depend on, as TF)
        with kept():
            connected = [True] * len(flat_sources) if unconnected is UnconnectedGradients.ZERO else \
                [g is not None for g in gradient(target, flat_sources,
                                                 output_gradients=[Tensor(jnp.zeros(t_shape, t_dtype))])]
        out = [Tensor(jnp.zeros(t_shape + _shape_dtype(s)[0], _shape_dtype(s)[1])) if c else None
               for s, c in zip(flat_sources, connected)]
        return rebuild(sources, tree, out)
    seeds = _seeds(n, tuple(t_shape), t_dtype, False)

    def basis(j):
        return seeds if j < 0 else Tensor(seeds[j])
    rows = _rows(gradient, kept, target, flat_sources, basis, n, use_pfor)
    _read_if_unconnected(rows, flat_sources, use_pfor, unconnected)
    out = _finish(rows, flat_sources, lambda s: t_shape + s, unconnected)
    return rebuild(sources, tree, out)


class _RankError(ValueError, IndexError):
    """A scalar batch_jacobian target: TF fails there indexing its shape (IndexError); a ValueError as any
    other shape that batch_jacobian refuses."""


def check_batch_shapes(target, source) -> None:
    """TF's checks of batch_jacobian's shapes: both of rank at least 2, the same first (batch) dimension."""
    t_shape, s_shape = _shape_dtype(target)[0], _shape_dtype(source)[0]
    for what, shape in (("target", t_shape), ("source", s_shape)):
        if len(shape) < 2:  # TF's with_rank_at_least(2) wording
            error = _RankError if what == "target" and not shape else ValueError
            raise error(f"batch_jacobian: Shape {shape} must have rank at least 2 (the {what} needs a batch "
                        "dimension and at least one more); for rank-1 tensors reshape them to (batch, 1), "
                        "or use jacobian().")
    if t_shape[0] != s_shape[0]:
        raise ValueError(f"batch_jacobian: Need first dimension of target shape {t_shape} and source shape "
                         f"{s_shape} to match (the batch dimension).")


def batch_jacobian(gradient: Gradient, kept: Kept, target, source, unconnected: UnconnectedGradients,
                   use_pfor: bool, parallel_iterations=None, persistent: bool = True) -> Any:
    """The per-example Jacobian ``(batch,) + target.shape[1:] + source.shape[1:]`` (shapes checked by
    ``check_batch_shapes``)."""
    t_shape, t_dtype = _shape_dtype(target)
    s_shape, s_dtype = _shape_dtype(source)
    b = t_shape[0]
    m = int(np.prod(t_shape[1:], dtype=np.int64))
    want = (b,) + t_shape[1:] + s_shape[1:]
    if isinstance(source, Variable) and tape_set.active():
        tape_set.record_hooks.variable_accessed(source)  # TF reads the source's shape (shape(source)): an access
    _check_parallel_iterations("batch_jacobian", parallel_iterations, use_pfor, persistent, m)
    if b == 0 or m == 0:
        _use_up(kept)
        return Tensor(jnp.zeros(want, s_dtype))
    full = _seeds(m, tuple(t_shape), t_dtype, True)

    def basis(j):
        return full if j < 0 else Tensor(full[j])
    (rows,) = _rows(gradient, kept, target, [source], basis, m, use_pfor, "batch_jacobian")
    if rows is None:
        # As TF: zeros even with UnconnectedGradients.NONE (its batch_jacobian kept returning zeros there for
        # compatibility), of the target's dtype; of the source's, as any zero gradient, with ZERO.
        return Tensor(jnp.zeros(want, s_dtype if unconnected is UnconnectedGradients.ZERO else t_dtype))
    # rows: (m, b) + source.shape[1:]  ->  (b, m) + source.shape[1:]  ->  want
    return tnp.reshape(tnp.moveaxis(rows, 0, 1), want)
