"""Sweep of the whole public op surface through the contexts API.md promises, each against plain eager execution.

Every public function of ``tj.numpy``, ``tj.numpy.linalg`` and ``tj.nn`` (the argument factory of
``tests/test_interop_sweep.py``, plus its value-dependent cases) and of ``tj.numpy.fft`` is run:

* ``closed``     inside a ``tj.function`` that closes over its Tensors (known values, traced as the program's inputs)
* ``signature``  inside a ``tj.function`` with an ``input_signature`` of unknown dimensions, its Tensors passed
* ``jax.jit``    under ``jax.jit`` with its array arguments traced (tj code under a JAX transformation)
* ``kinds``      with Variables, NumPy arrays and jax arrays in place of its Tensors
* ``grad``       its gradient (a weighted sum of its float outputs; distinct tensors per argument) by a tape, a
                 strictly eager tape, a tape replayed after its warm-up, an outer tape over a ``tj.function`` call
                 and ``jax.grad`` over tj code; ``--complex`` casts the float arguments to complex64 (``jax.grad``'s
                 conjugate then, API.md's convention), here and in ``jvp`` (complex tangents), ``paths``
                 (``jax.jacrev``'s conjugate), ``exact`` and ``variables``
* ``jvp``        its forward-mode derivative by a ForwardAccumulator (deferred, strict, over a ``tj.function``
                 call) and ``jax.jvp``, against the reverse gradient contracted with the same tangents
* ``paths``      its gradient by the other reverse paths: a tape inside a ``tj.function``, ``tj.gradients``,
                 ``tj.differentiate``, and the Jacobian of its float outputs (``tape.jacobian`` with and without
                 pfor) against ``jax.jacrev`` over tj code
* ``vmap``       under ``jax.vmap`` over a batch of two (its float arguments stacked), against eager per example
* ``exact``      its value and gradient replayed under ``replay_exact`` after its warm-up, against op by op, bit
                 for bit (API.md)
* ``variables``  its gradient with respect to Variables holding its float arguments, watched by the tape itself:
                 by a tape, a strictly eager tape, a replayed tape, an outer tape over a ``tj.function`` closing
                 over them and a tape inside one, against a tape watching Tensors of the same values
* ``second``     its second order, reverse over reverse (the gradient of the gradient contracted with a direction)
                 by nested tapes, nested strictly eager tapes, nested tapes inside a ``tj.function`` and
                 ``jax.grad`` of ``jax.grad`` over tj code, and forward over reverse (the tangent of the gradient
                 along it) by a ForwardAccumulator around a tape and ``jax.jvp`` of ``jax.grad``; the two modes
                 agree where the rules' Hessian is symmetric (not for TF's cross-entropy: SECOND_ORDER_ASYMMETRIC)

A result must equal the eager one (values to float32 rounding of a compiled program, shapes and dtypes exactly), or
the call must raise tapejax's own error where a result's shape depends on values a trace does not know; a JAX
error, another error or a different value is flagged. Run from the repository root::

    PYTHONPATH=src .venv/bin/python tools/surface_sweep.py [--only closed,grad] [--complex] [--dtype float64]

``--dtype float64`` (x64 on), ``float16`` or ``bfloat16`` casts the derivative contexts' float arguments (grad, jvp,
paths, exact, variables, second); the paths are then compared within that precision (LOW_PRECISION).

(2-core CPU, 2026-12-07: about 16 minutes for every context, 4 for closed,signature,jax.jit,kinds,grad,jvp;
session 103's first runs found intersect1d's wrong values, jax.numpy staged on captured values, np.asarray of
tracers and spacing's gradient under jax.grad.)
"""
from __future__ import annotations

import argparse
import functools
import sys
import warnings
from pathlib import Path

import jax
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
warnings.filterwarnings("ignore")

import tapejax as tj  # noqa: E402
import test_interop_sweep as S  # noqa: E402

tnp = tj.numpy
CONTEXTS = ["closed", "signature", "jax.jit", "kinds", "grad", "jvp", "paths", "vmap", "exact", "variables", "second"]
SKIP = {"vectorize", "einsum_path", "from_dlpack"}  # (makes a function, a path; a read-only buffer DLPack refuses)
RTOL, ATOL = 1e-5, 1e-6  # (a compiled program's float32 rounding: tensordot and vdot differ by a unit)
DERIVATIVE_RTOL, DERIVATIVE_ATOL = 1e-4, 1e-5
# (a second order in float32 of an ill-conditioned op: QR's of the sweep's matrix, condition ~100, is 1e-3 of its
# largest entry from the float64 value on every path, each path another way; in float64 they agree to 1e-8)
SECOND_ORDER_RTOL = 1e-3
# TF's rule for softmax_cross_entropy_with_logits gives the labels no gradient through its second output (the
# backprop): its Hessian as TF computes it is not symmetric, and TF's own nested tapes and forward-over-reverse
# differ there (as tapejax's, value for value); each mode is still checked against its own paths.
SECOND_ORDER_ASYMMETRIC = {"softmax_cross_entropy_with_logits"}
ARG_DTYPE = None  # (--dtype: the derivative contexts' float arguments cast to it)
# --dtype float16 / bfloat16: the paths' results compared within that precision's rounding, not float32's
LOW_PRECISION = {"float16": 1e-2, "bfloat16": 5e-2}


def surface():
    """(name, function, arguments) for every function swept."""
    args_for = S.sweep_args()
    items = []
    for _, name, f in S.public_op_functions():
        if name not in SKIP:
            kw = {"inplace": False} if name in ("fill_diagonal", "place", "put") else {}
            items.append((name, lambda *a, f=f, kw=kw: f(*a, **kw), args_for(name, f)))
    for name in dir(tnp.fft):
        f = getattr(tnp.fft, name)
        if not name.startswith("_") and callable(f) and name not in ("fftfreq", "rfftfreq"):
            items.append(("fft." + name, f, [tj.constant([[0.5, 0.25], [0.75, 0.4]])]))
    for case, (f, *data) in S.VALUE_DEPENDENT.items():
        items.append((case, f, [S.tensor_of(d) for d in data]))
    return items


def leaves(x):
    return jax.tree_util.tree_leaves(x, is_leaf=lambda v: isinstance(v, tj.Tensor))


def differs(got, want, rtol=RTOL, atol=ATOL):
    """What differs between two results (structure, shape, dtype or values), or None."""
    a, b = leaves(got), leaves(want)
    if len(a) != len(b):
        return f"{len(a)} results, eagerly {len(b)}"
    for p, q in zip(a, b):
        p, q = np.asarray(p), np.asarray(q)
        if p.shape != q.shape or (p.dtype != q.dtype and np.ndim(p)):
            return f"{p.dtype}{list(p.shape)}, eagerly {q.dtype}{list(q.shape)}"
        if p.dtype.kind not in "biufc":  # (no values to compare: an object array)
            continue
        if not np.allclose(p.astype(np.complex128), q.astype(np.complex128), rtol=rtol, atol=atol, equal_nan=True):
            return f"values {np.ravel(p)[:4]}, eagerly {np.ravel(q)[:4]}"
    return None


def tapejax_error(e: Exception) -> bool:
    """An error tapejax raises on purpose for a value a trace does not know."""
    return type(e).__module__ == "builtins" and ("not known while tracing" in str(e) or "must be known" in str(e))


def is_float(a) -> bool:
    return isinstance(a, tj.Tensor) and np.dtype(a.dtype).kind in "fc"


def weighted_sum(out):
    """A real scalar of a function's float outputs (weights 1, 2, ...; complex parts 1 and 0.5), or None."""
    total = None
    for k, t in enumerate(t for t in leaves(out) if isinstance(t, tj.Tensor) and np.dtype(t.dtype).kind in "fc"):
        term = tnp.sum(tnp.real(t) * (k + 1.0))
        if np.dtype(t.dtype).kind == "c":
            term = term + tnp.sum(tnp.imag(t) * 0.5)
        total = term if total is None else total + term
    return total


def with_values(args, positions, values):
    a = list(args)
    for i, v in zip(positions, values):
        a[i] = v
    return a


def run_closed(f, args, want):
    return differs(tj.function(lambda: f(*args))(), want)


def run_signature(f, args, want):
    pos = [i for i, a in enumerate(args) if isinstance(a, tj.Tensor)]
    specs = [tj.TensorSpec([None] * args[i].ndim, args[i].dtype) for i in pos]
    got = tj.function(lambda *ts: f(*with_values(args, pos, ts)), input_signature=specs)(*[args[i] for i in pos])
    return differs(got, want)


def run_jax_jit(f, args, want):
    pos = [i for i, a in enumerate(args) if isinstance(a, tj.Tensor)]

    def unwrap(out):
        return jax.tree_util.tree_map(lambda x: x.value if isinstance(x, tj.Tensor) else x, out,
                                      is_leaf=lambda v: isinstance(v, tj.Tensor))
    got = jax.jit(lambda *vs: unwrap(f(*with_values(args, pos, vs))))(*[args[i].value for i in pos])
    return differs(jax.tree_util.tree_map(np.asarray, got), want)


def run_kinds(f, args, want):
    for kind, make in (("Variables", tj.Variable), ("NumPy arrays", np.asarray), ("jax arrays", lambda t: t.value)):
        problem = differs(f(*[make(a) if isinstance(a, tj.Tensor) else a for a in args]), want)
        if problem:
            return f"with {kind}: {problem}"
    return None


def run_grad(f, args, complex_args=False):
    ready = prepared(f, args, complex_args)
    if ready is None:
        return None
    args, pos, xs, loss = ready
    found = {}
    for path, lazy, replay, steps in (("tape", True, True, 1), ("strict", False, False, 1),
                                      ("replayed", True, True, 4)):
        for _ in range(steps):
            with tj.config.override(lazy=lazy, replay=replay), tj.GradientTape() as tape:
                tape.watch(xs)
                y = loss(*xs)
            found[path] = tape.gradient(y, xs)
    fn = tj.function(loss)
    with tj.GradientTape() as tape:
        tape.watch(xs)
        y = fn(*xs)
    found["outer tape over tj.function"] = tape.gradient(y, xs)
    jg = jax.grad(lambda vs: loss(*vs).value)([x.value for x in xs])
    found["jax.grad"] = [np.conj(g) if complex_args else g for g in jg]
    want = [None if g is None else np.asarray(g) for g in found.pop("tape")]
    # (TF's None for unconnected: jax.grad gives zeros)
    return compare_gradients(found, want, zeros_for_none={"jax.grad"}, scaled_atol=False)


def run_jvp(f, args, complex_args=False):
    ready = prepared(f, args, complex_args)
    if ready is None:
        return None
    args, pos, xs, loss = ready
    rng = np.random.default_rng(0)

    def tangent(x):  # (complex arguments: a complex direction, both parts drawn)
        t = rng.standard_normal(x.shape)
        return tj.constant((t + 1j * rng.standard_normal(x.shape) if complex_args else t).astype(x.dtype))
    tangents = [tangent(x) for x in xs]
    with tj.GradientTape() as tape:
        tape.watch(xs)
        y = loss(*xs)
    want = sum(float(np.real(np.sum(np.conj(np.asarray(g)) * np.asarray(t))))
               for g, t in zip(tape.gradient(y, xs), tangents) if g is not None)
    found = {}
    for path, lazy in (("accumulator", True), ("strict accumulator", False)):
        with tj.config.override(lazy=lazy), tj.ForwardAccumulator(xs, tangents) as acc:
            y = loss(*xs)
        found[path] = acc.jvp(y)
    fn = tj.function(loss)
    with tj.ForwardAccumulator(xs, tangents) as acc:
        y = fn(*xs)
    found["accumulator over tj.function"] = acc.jvp(y)
    found["jax.jvp"] = jax.jvp(lambda *vs: loss(*vs).value, tuple(x.value for x in xs),
                               tuple(t.value for t in tangents))[1]
    for path, j in found.items():
        j = 0.0 if j is None else float(np.real(np.asarray(j)))
        if not np.isclose(j, want, rtol=DERIVATIVE_RTOL, atol=DERIVATIVE_ATOL, equal_nan=True):
            return f"{path}: {j}, the reverse gradient contracted {want}"
    return None


def float_args(args, complex_args=False):
    """``args`` with each float Tensor a distinct new constant (``complex_args``: cast to complex64, times 1 + 0.5j;
    else cast to ARG_DTYPE where it is set), and the positions of those."""
    def fresh(a):
        if complex_args:
            return tj.constant(np.asarray(a).astype(np.complex64) * (1 + 0.5j))
        return tj.constant(np.asarray(a).astype(ARG_DTYPE) if ARG_DTYPE is not None else np.asarray(a))
    args = [fresh(a) if is_float(a) else a for a in args]
    return args, [i for i, a in enumerate(args) if is_float(a)]


def compare_gradients(found, want, zeros_for_none=(), who="the tape", rtol=None, scaled_atol=True):
    """The first path of ``found`` (path -> gradients) whose gradients differ from ``want``, described, or None.
    Paths in ``zeros_for_none`` give zeros where ``want`` has None (JAX's transforms: no None). Values within
    ``rtol`` plus DERIVATIVE_ATOL and (``scaled_atol``) ``rtol`` of the largest magnitude of ``want``'s gradient
    (float32 rounding of a whole derivative is relative to its largest entry)."""
    rtol = DERIVATIVE_RTOL if rtol is None else rtol
    for path, gs in found.items():
        for w, g in zip(want, gs):
            if w is None and path in zeros_for_none:
                w = np.zeros_like(np.asarray(g))
            if (w is None) != (g is None):
                return f"{path}: None where {who} gives {np.ravel(w)[:4]}" if g is None else \
                    f"{path}: {np.ravel(np.asarray(g))[:4]} where {who} gives None"
            if w is None:
                continue
            atol = DERIVATIVE_ATOL + (rtol * float(np.max(np.abs(w), initial=0.0)) if scaled_atol else 0.0)
            if differs(np.asarray(g), w, rtol, atol):
                return f"{path}: {differs(np.asarray(g), w, rtol, atol)} ({who})"
    return None


def run_paths(f, args, complex_args=False):
    ready = prepared(f, args, complex_args)
    if ready is None:
        return None
    args, pos, xs, loss = ready
    with tj.GradientTape() as tape:
        tape.watch(xs)
        y = loss(*xs)
    want = [None if g is None else np.asarray(g) for g in tape.gradient(y, xs)]

    @tj.function
    def in_function(*vs):
        with tj.GradientTape() as t:
            t.watch(list(vs))
            out = loss(*vs)
        return t.gradient(out, list(vs))
    found = {"tape inside tj.function": in_function(*xs),
             "tj.gradients": tj.function(lambda *vs: tj.gradients(loss(*vs), list(vs)))(*xs)}
    d = tj.differentiate(loss, *xs)
    _, res = d.forward(*xs)
    found["tj.differentiate"] = d.backward([tj.constant(1.0)], res)
    problem = compare_gradients(found, want)
    if problem:
        return problem
    # The Jacobian of every float output (real outputs only: a complex one has no holomorphic Jacobian here).
    outs = [t for t in leaves(f(*args)) if isinstance(t, tj.Tensor) and np.dtype(t.dtype).kind == "f"]
    if not outs:
        return None

    def flat(*vs):
        ys = [t for t in leaves(f(*with_values(args, pos, vs)))
              if isinstance(t, tj.Tensor) and np.dtype(t.dtype).kind == "f"]
        return tnp.concatenate([tnp.reshape(tnp.asarray(t, "float32"), [-1]) for t in ys])
    jr = jax.jacrev(lambda *vs: flat(*[tj.Tensor(v) for v in vs]).value, argnums=tuple(range(len(xs))))(
        *[x.value for x in xs])
    for pfor in (True, False):
        with tj.GradientTape(persistent=not pfor) as tape:
            tape.watch(xs)
            y = flat(*xs)
        jac = tape.jacobian(y, xs, experimental_use_pfor=pfor)
        for j, r in zip(jac, jr):
            r = np.conj(r) if complex_args else np.asarray(r)  # (a row is a real output's gradient: API.md's conjugate)
            j = np.zeros_like(r) if j is None else np.asarray(j)
            if differs(j, r, DERIVATIVE_RTOL, DERIVATIVE_ATOL):
                return f"jacobian (pfor={pfor}) against jax.jacrev: {differs(j, r, DERIVATIVE_RTOL, DERIVATIVE_ATOL)}"
    return None


def run_vmap(f, args, want):
    pos = [i for i, a in enumerate(args) if is_float(a)]
    if not pos:
        return None
    other = [tnp.asarray(args[i]) * 0.5 for i in pos]  # (the second example: halved values)
    second = f(*with_values(args, pos, other))

    def unwrap(out):
        return jax.tree_util.tree_map(lambda x: x.value if isinstance(x, tj.Tensor) else x, out,
                                      is_leaf=lambda v: isinstance(v, tj.Tensor))
    batched = [np.stack([np.asarray(args[i]), np.asarray(o)]) for i, o in zip(pos, other)]
    got = jax.vmap(lambda *vs: unwrap(f(*with_values(args, pos, [tj.Tensor(v) for v in vs]))))(*batched)
    got = jax.tree_util.tree_map(np.asarray, got)
    first = jax.tree_util.tree_map(lambda g: g[0], got)
    problem = differs(first, want)
    if problem:
        return f"example 0: {problem}"
    problem = differs(jax.tree_util.tree_map(lambda g: g[1], got), second)
    return f"example 1: {problem}" if problem else None


def prepared(f, args, complex_args=False):
    """``(args, positions, float Tensors, loss)`` for a derivative of ``f``: its float arguments fresh constants
    (complex with ``complex_args``, else of ARG_DTYPE where set) and ``loss(*values)`` the weighted sum of ``f``'s
    float outputs with those in their places; or None where it has none, gives no float output, or refuses cast
    arguments eagerly too (complex ones for a function of real values, float16 for LAPACK's linear algebra or an
    RFFT, both with tapejax's error). ``f`` runs once here."""
    args, pos = float_args(args, complex_args)
    if not pos:
        return None
    try:
        out = f(*args)
    except Exception:
        if complex_args or ARG_DTYPE is not None:
            return None
        raise
    if weighted_sum(out) is None:
        return None

    def loss(*vs):
        return weighted_sum(f(*with_values(args, pos, vs)))
    return args, pos, [args[i] for i in pos], loss


def run_exact(f, args, complex_args=False):
    ready = prepared(f, args, complex_args)
    if ready is None:
        return None
    args, pos, xs, loss = ready

    def step():
        with tj.GradientTape() as tape:
            tape.watch(xs)
            y = loss(*xs)
        return [y] + list(tape.gradient(y, xs)), tape.last_replay
    with tj.config.override(lazy=True, replay=False):
        want, _ = step()
    with tj.config.override(lazy=True, replay=True, replay_exact=True, replay_background=False, replay_warmup=2):
        for _ in range(4):
            got, how = step()
    if "replayed" not in how:
        return None  # (a step that does not replay: nothing to compare)
    for k, (g, w) in enumerate(zip(got, want)):
        if (g is None) != (w is None):
            return f"result {k}: None on one path only"
        if g is not None and not np.array_equal(np.asarray(g), np.asarray(w), equal_nan=True):
            return f"result {k} replayed {np.ravel(np.asarray(g))[:4]}, op by op {np.ravel(np.asarray(w))[:4]}"
    return None


def run_variables(f, args, complex_args=False):
    ready = prepared(f, args, complex_args)
    if ready is None:
        return None
    args, pos, xs, loss = ready
    with tj.GradientTape() as tape:
        tape.watch(xs)
        y = loss(*xs)
    want = [None if g is None else np.asarray(g) for g in tape.gradient(y, xs)]
    vs = [tj.Variable(x) for x in xs]

    def of_variables():
        return loss(*vs)
    found = {}
    for path, lazy, replay, steps in (("tape", True, False, 1), ("strict tape", False, False, 1),
                                      ("replayed tape", True, True, 4)):
        for _ in range(steps):
            with tj.config.override(lazy=lazy, replay=replay), tj.GradientTape() as tape:
                y = of_variables()
            found[path] = tape.gradient(y, vs)
    fn = tj.function(of_variables)
    with tj.GradientTape() as tape:
        y = fn()
    found["outer tape over a tj.function closing over them"] = tape.gradient(y, vs)

    @tj.function
    def inside():
        with tj.GradientTape() as t:
            out = of_variables()
        return t.gradient(out, vs)
    found["tape inside a tj.function"] = inside()
    return compare_gradients(found, want, who="a tape of Tensors")


def run_second(name, f, args):
    ready = prepared(f, args)
    if ready is None:
        return None
    args, pos, xs, loss = ready
    rng = np.random.default_rng(1)
    direction = [tj.constant(rng.standard_normal(x.shape).astype(x.dtype)) for x in xs]

    def grad_dot(vs):
        with tj.GradientTape() as inner:
            inner.watch(list(vs))
            y = loss(*vs)
        gs = inner.gradient(y, list(vs))
        terms = [tnp.sum(g * d) for g, d in zip(gs, direction) if g is not None]
        return None if not terms else functools.reduce(lambda a, b: a + b, terms)

    def nested(vs):
        with tj.GradientTape() as outer:
            outer.watch(list(vs))
            z = grad_dot(vs)
        return [None] * len(vs) if z is None else outer.gradient(z, list(vs))
    want = [None if g is None else np.asarray(g) for g in nested(xs)]
    found = {}
    with tj.config.override(lazy=False, replay=False):
        found["nested strict tapes"] = nested(xs)
    found["nested tapes inside tj.function"] = tj.function(lambda *vs: nested(list(vs)))(*xs)

    def raw_grad(*vs):
        return jax.grad(lambda *ws: loss(*[tj.Tensor(w) for w in ws]).value, argnums=tuple(range(len(vs))))(*vs)
    raw = tuple(x.value for x in xs)
    # (jax's zeros where a tape's None: unconnected)
    found["jax.grad of jax.grad"] = jax.grad(
        lambda *vs: sum(jax.numpy.sum(g * d.value) for g, d in zip(raw_grad(*vs), direction)),
        argnums=tuple(range(len(xs))))(*raw)
    problem = compare_gradients(found, want, zeros_for_none={"jax.grad of jax.grad"}, rtol=SECOND_ORDER_RTOL)
    if problem:
        return problem
    # Forward over reverse gives the Hessian times the direction, reverse over reverse its transpose times it: the
    # same where the rules are symmetric, not where TF's are not (SECOND_ORDER_ASYMMETRIC): each mode against its
    # own paths first.
    with tj.ForwardAccumulator(xs, direction) as acc:
        with tj.GradientTape() as tape:
            tape.watch(xs)
            y = loss(*xs)
        gs = tape.gradient(y, xs)
    forward = [np.zeros(x.shape, np.asarray(x).dtype) if g is None or acc.jvp(g) is None else np.asarray(acc.jvp(g))
               for g, x in zip(gs, xs)]
    _, hv = jax.jvp(raw_grad, raw, tuple(d.value for d in direction))
    problem = compare_gradients({"jax.jvp of jax.grad": hv}, forward, who="the accumulator around a tape",
                                rtol=SECOND_ORDER_RTOL)
    if problem or name in SECOND_ORDER_ASYMMETRIC:
        return problem
    return compare_gradients({"accumulator around a tape": forward}, want, zeros_for_none={"accumulator around a tape"},
                             rtol=SECOND_ORDER_RTOL)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", default="", help=f"comma-separated subset of {','.join(CONTEXTS)}")
    p.add_argument("--dtype", default="", choices=["", "float64", *LOW_PRECISION],
                   help="grad, jvp, paths, exact, variables, second: float arguments cast to it (float64: x64 on)")
    p.add_argument("--complex", action="store_true",
                   help="grad, jvp, paths, exact, variables: float arguments cast to complex64")
    a = p.parse_args(argv)
    contexts = [c for c in a.only.split(",") if c] or CONTEXTS
    global ARG_DTYPE, DERIVATIVE_RTOL, DERIVATIVE_ATOL, SECOND_ORDER_RTOL
    if a.dtype:
        ARG_DTYPE = jax.numpy.dtype(a.dtype)
        jax.config.update("jax_enable_x64", a.dtype == "float64")
        if a.dtype in LOW_PRECISION:
            DERIVATIVE_RTOL = DERIVATIVE_ATOL = SECOND_ORDER_RTOL = LOW_PRECISION[a.dtype]
    unknown = set(contexts) - set(CONTEXTS)
    if unknown:
        p.error(f"unknown context(s) {sorted(unknown)}; choose from {CONTEXTS}")
    runners = {"closed": run_closed, "signature": run_signature, "jax.jit": run_jax_jit, "kinds": run_kinds,
               "grad": lambda f, args, want: run_grad(f, args, a.complex),
               "jvp": lambda f, args, want: run_jvp(f, args, a.complex),
               "paths": lambda f, args, want: run_paths(f, args, a.complex),
               "vmap": run_vmap, "exact": lambda f, args, want: run_exact(f, args, a.complex),
               "variables": lambda f, args, want: run_variables(f, args, a.complex), "second": None}
    items = surface()
    flagged, counted = [], dict.fromkeys(contexts, 0)
    for name, f, args in items:
        try:
            want = f(*args)
        except Exception:
            continue
        for context in contexts:
            try:
                problem = run_second(name, f, args) if context == "second" else runners[context](f, args, want)
            except Exception as e:
                problem = None if tapejax_error(e) else f"raises {type(e).__module__}.{type(e).__name__}: {e}"
            counted[context] += 1
            if problem:
                flagged.append((name, context, " ".join(str(problem).split())[:200]))
    for name, context, problem in flagged:
        print(f"{name:40s} {context:10s} {problem}")
    print(f"{len(items)} functions; " + ", ".join(f"{c}: {n} run" for c, n in counted.items())
          + f"; {len(flagged)} flagged")
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
