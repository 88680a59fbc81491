"""What the test files share: comparison helpers, config isolation, the replay fixture.

Helpers (test files import them: ``from conftest import close``; pytest puts tests/ on sys.path):
  to_numpy(x)                 a Tensor's or Variable's value, or anything array-like, as a NumPy array
  close(a, b, rtol, atol)     elementwise within tolerances (np.testing.assert_allclose of to_numpy(a))
  jax_reference(f, *args)     a reference computed by JAX, ``f(*args)``, as one jitted program (``f`` static): run
                              eagerly, jax compiles one program per primitive
  close_scaled(got, want, what, rtol, atol, dtype)
                              a whole op's result: the same shape, and within rtol plus an atol scaled
                              by want's largest magnitude (outputs of any size are compared alike);
                              ``got`` None counts as zeros (an unconnected gradient)
  tape_value_and_gradient(f, x, output_gradients)
                              ``(f(x), gradient)`` of f at x (made a Tensor, watched) on one GradientTape
  accumulator_jvp(f, x, t)    f's tangent at x along t on one ForwardAccumulator
  forward_over_reverse(f, x, t)
                              the tangent along t of f's gradient at x (a ForwardAccumulator around a tape):
                              the forward-over-reverse twin of nested_tape_gradients's second order
  unconnected_second_input_at_zero_base(mul)
                              second order by nested tapes and by jax.grad of jax.grad, through a product
                              whose second argument gets no gradient (None) and is pow at a base of 0
  log1pexp                    TF's custom_gradient example: log(1 + e^x) with a gradient that stays
                              finite for large x (1 at x = 100, where the autodiff of the formula is NaN)
  tape_gradients(f, xs, output_gradients)
                              ``(f(*xs), gradients)`` of f with respect to each of xs (made Tensors) on one tape
  jacobian_matrix(f, x)       f's Jacobian at x by tape.jacobian, (output size, input size) as TF's checker
  D, digest(a), close_to_tf(got, want, rtol, atol)
                              a TF-port file's record of a large TF array (three sums) and the comparison
                              of a result with TF's values, listed or digested

Fixtures:
  freeze_older_objects (autouse)
                              the garbage collector stops scanning what earlier tests left alive
  config (autouse)            every test runs inside ``tj.config.override`` of all settings, so whatever
                              a test sets on tj.config (in its main thread) is put back after it
  replay_now                  replay on, compiled at once (not in a background thread) after the default
                              two op-by-op warm-up passes, so the third pass of a structure is replayed;
                              replay_exact, so replayed results equal op-by-op results bit for bit;
                              compiled programs forgotten before and after
"""
from __future__ import annotations

import functools
import gc
import importlib.metadata
import os
import re
import subprocess
import sys
import threading

# One persistent XLA compilation cache for the whole run, set before jax starts: the two xdist workers
# and the subprocesses tests start (notebooks, the demo, the 8-device worker) inherit it, so a kernel
# compiled by one is loaded by the others (the suite took ~12% less time on 2 cores). Results do not
# depend on it: a cache hit is the same executable. It lies in the checkout (.xla-cache, ignored by git): a
# rerun in the same checkout finds it warm, a fresh clone starts cold as CI's new machine does (one cache in
# /tmp for every clone made fresh-clone runs here ~40% faster than CI's: 561 s warm, 988 s cold, same code).
# Not with jaxlib 0.11: in 2 of 2 full runs (jax 0.11.2) a worker died of a segmentation fault inside jax's read
# of a cached executable (compilation_cache.get_executable_and_time), never with 0.10 or 0.12.
if not importlib.metadata.version("jaxlib").startswith("0.11."):
    os.environ.setdefault("JAX_COMPILATION_CACHE_DIR",
                          os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".xla-cache"))
    os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
    os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "0")

# The suite compiles some ten thousand small XLA programs, and on the CPU compiling is most of its time.
# Tests check tapejax's rules and bookkeeping, not XLA's code generation, so they compile with XLA:CPU's
# cheaper settings (the loop fusion emitters and no LLVM optimization: about 2.5x faster to compile, the
# same float semantics: neither setting allows fast-math reassociation; and each program's code generated
# as one LLVM module, not split for threads that two test workers on two cores leave no room for: 12-15%
# less compile time, measured cold on test_ops_registry.py and on two processes of 120 small gradients);
# users, benchmarks and the demo keep XLA's defaults. TAPEJAX_TEST_XLA_DEFAULTS=1 runs the suite with the defaults.
CHEAP_COMPILE_FLAGS = ("--xla_cpu_use_fusion_emitters=false", "--xla_backend_optimization_level=0",
                       "--xla_cpu_parallel_codegen_split_count=1")


def _known_to_xla(flags: tuple) -> tuple:
    """Those of ``flags`` the installed jaxlib knows. XLA ends the process at start on a flag it does not
    know (jaxlib 0.11 has no --xla_cpu_use_fusion_emitters: every test worker died at once), so they are
    tried in a subprocess, once per run: the answer reaches the workers and the subprocesses tests start
    through TAPEJAX_TEST_CHEAP_FLAGS."""
    known = os.environ.get("TAPEJAX_TEST_CHEAP_FLAGS")
    if known is not None:
        return tuple(known.split())

    def starts(fs) -> bool:
        env = {**os.environ, "XLA_FLAGS": " ".join(fs), "JAX_PLATFORMS": "cpu"}
        return subprocess.run([sys.executable, "-c", "import jax.numpy as jnp; jnp.zeros(1).block_until_ready()"],
                              env=env, capture_output=True, timeout=300).returncode == 0
    accepted = flags if starts(flags) else tuple(f for f in flags if starts((f,)))
    os.environ["TAPEJAX_TEST_CHEAP_FLAGS"] = " ".join(accepted)
    return accepted


def xla_flags(*extra: str) -> str:
    """XLA_FLAGS for this process and the subprocesses tests start: the caller's flags, the cheap-compile
    settings this jaxlib knows (unless TAPEJAX_TEST_XLA_DEFAULTS=1 or XLA_FLAGS already sets them) and
    ``extra``."""
    flags = os.environ.get("XLA_FLAGS", "").split()
    if os.environ.get("TAPEJAX_TEST_XLA_DEFAULTS") != "1":
        flags += [f for f in _known_to_xla(CHEAP_COMPILE_FLAGS)
                  if not any(g.startswith(f.split("=")[0] + "=") for g in flags)]
    names = {e.split("=")[0] for e in extra}
    return " ".join([f for f in flags if f.split("=")[0] not in names] + list(extra))


os.environ["XLA_FLAGS"] = xla_flags()

import jax  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import tapejax as tj  # noqa: E402

from tapejax.deferred import replay

tnp = tj.numpy

pytest_plugins = ["case_sampling"]


def _reuse_mlir_contexts(uses_per_context: int = 2000) -> None:
    """Lower each XLA program in a reused MLIR context, not a new one. jax makes a fresh context for every
    program it lowers and loads its dialects into it (~5 ms each), and the contexts stay alive with what
    was compiled from them: reused, a cold test_ops_registry.py took 108 s and 0.85 GB in one process
    against 127 s and 2.7 GB, and two cold files on two workers 50-56 s against 70-76 s. One context per
    thread serves many modules (a module lives and dies on its own); it is replaced every
    ``uses_per_context`` programs, since a context keeps the types and attributes it has seen. Tests only,
    like the cheap flags above: TAPEJAX_TEST_XLA_DEFAULTS=1 leaves jax as it is, and so does
    TAPEJAX_TEST_FRESH_MLIR=1 (to compare); a jax without this function is left as it is too."""
    from jax._src.interpreters import mlir
    make = getattr(mlir, "make_ir_context", None)
    if make is None or os.environ.get("TAPEJAX_TEST_XLA_DEFAULTS") == "1" or os.environ.get("TAPEJAX_TEST_FRESH_MLIR"):
        return
    from jax._src.lib.mlir import ir
    local = threading.local()

    def reused_context():
        # A lowering inside a lowering (jax.ensure_compile_time_eval: a lowering rule's jax.numpy runs, and compiles,
        # eagerly) gets a context of its own, as jax gives it: in the outer one its module was built inside the
        # outer module's function ("symbol's parent must have the SymbolTable trait").
        if getattr(local, "uses", 0) and ir.Context.current is local.context:
            return make()
        if getattr(local, "uses", uses_per_context) >= uses_per_context:
            local.context, local.uses = make(), 0
        local.uses += 1
        return local.context
    mlir.make_ir_context = reused_context


_reuse_mlir_contexts()


def to_numpy(x, dtype=None):
    """``x`` as a NumPy array (a Tensor's value, a Variable's current value); None stays None."""
    if x is None:
        return None
    return np.asarray(x.value if isinstance(x, tj.Tensor) else x, dtype)


@functools.partial(jax.jit, static_argnums=0)
def jax_reference(f, *args):
    """``f(*args)`` as one jitted program: a reference computed by JAX compiles once, not once per primitive."""
    return f(*args)


def close(a, b, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(to_numpy(a), np.asarray(b), rtol=rtol, atol=atol)


def close_scaled(got, want, what, rtol=2e-4, atol=2e-5, dtype=None):
    """``got`` against ``want`` in ``dtype``: by default float64, or complex128 where either is complex (a real
    dtype would drop the imaginary parts unchecked)."""
    got = None if got is None else to_numpy(got)
    if dtype is None:
        dtype = np.complex128 if np.iscomplexobj(want) or np.iscomplexobj(got) else np.float64
    want = np.asarray(want, dtype)
    got = np.zeros_like(want) if got is None else np.asarray(got, dtype)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol * scale, err_msg=what)


class D(tuple):
    """A digest of a large TF array, as the TF-port files record one: its sum, its sum weighted by cos(0.7 * index)
    and its sum of magnitudes (``digest``)."""

    def __new__(cls, *values):
        return super().__new__(cls, values)


def digest(a):
    """``D``'s three numbers for the array ``a``."""
    a = np.asarray(a, np.float64)
    weights = np.cos(np.arange(a.size) * 0.7).reshape(a.shape)
    return np.array([a.sum(), (a * weights).sum(), np.abs(a).sum()])


def batch_norm_grad_grad(shape, axis, dtype, unconnected_gradients="none"):
    """TF's nn_fused_batchnorm_test ``_test_grad_grad`` program through ``tj.nn.batch_norm`` (is_training=True): x and
    grad_y of ``shape`` and ``dtype``, scale and offset (float32, one per channel of ``axis``) drawn in TF's order
    from ``np.random.seed(1)``, then an upstream gradient for each first gradient. Returns the x, scale and offset
    gradients for grad_y (an inner tape), and for each of them its gradients with respect to grad_y, x and scale
    (an outer tape, with ``unconnected_gradients``)."""
    np.random.seed(1)  # _test_grad_grad's order: x, grad_y, scale, offset; then the outer upstream gradients
    x, gy = (np.random.random_sample(shape).astype(dtype) for _ in range(2))
    scale, offset = (np.random.random_sample([shape[axis]]).astype(np.float32) for _ in range(2))
    ux = np.random.random_sample(shape).astype(dtype)
    us, uo = (np.random.random_sample([shape[axis]]).astype(np.float32) for _ in range(2))
    x, gy, scale, offset = tj.constant(x), tj.constant(gy), tj.constant(scale), tj.constant(offset)
    with tj.GradientTape(persistent=True) as outer:
        outer.watch([x, gy, scale])
        with tj.GradientTape() as inner:
            inner.watch([x, scale, offset])
            y, _, _ = tj.nn.batch_norm(x, scale, offset, epsilon=0.001, axis=axis)
        firsts = inner.gradient(y, [x, scale, offset], output_gradients=gy)
    seconds = [outer.gradient(f, [gy, x, scale], output_gradients=u, unconnected_gradients=unconnected_gradients)
               for f, u in zip(firsts, (ux, us, uo))]
    return firsts, seconds


def numpy_match(label, got, want, values=True):
    """``got`` (a Tensor, or a list or tuple of them) against NumPy's result ``want``: the same shape, NumPy's dtype
    under JAX's x64 setting, and (``values``) the same values (floats to 1e-6)."""
    if isinstance(want, (list, tuple)):  # (split, ix_: one result per piece)
        assert isinstance(got, (list, tuple)) and len(got) == len(want), label
        for g, w in zip(got, want):
            numpy_match(label, g, w, values)
        return
    want = np.asarray(want)
    dtype = jax.dtypes.canonicalize_dtype(want.dtype)
    assert isinstance(got, tj.Tensor), (label, type(got))
    assert (got.shape, got.dtype) == (want.shape, dtype), (label, got.shape, got.dtype, want.shape, dtype)
    if not values:
        return
    if np.issubdtype(dtype, np.inexact):
        np.testing.assert_allclose(got.numpy(), want.astype(dtype), rtol=1e-6, atol=1e-6, err_msg=label)
    else:
        np.testing.assert_array_equal(got.numpy(), want, err_msg=label)


def close_to_tf(got, want, rtol, atol=0.0):
    """``got`` (a Tensor or array) against TF's values: a list of every element, or a digest ``D`` (whose sums can
    cancel to ~0: its tolerance is relative to the magnitudes summed)."""
    got = np.asarray(got.numpy() if hasattr(got, "numpy") else got).astype(np.float64)
    if isinstance(want, D):
        np.testing.assert_allclose(digest(got), want, rtol=rtol, atol=rtol * want[2] + atol)
    else:
        np.testing.assert_allclose(got.ravel(), np.asarray(want, np.float64).ravel(), rtol=rtol, atol=atol)


def tape_value_and_gradient(f, x, output_gradients=None):
    x = tj.constant(x)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return y, tape.gradient(y, x, output_gradients=output_gradients)


def tape_gradients(f, xs, output_gradients=None):
    """``(f(*xs), tape.gradient(f(*xs), xs, output_gradients))`` on constants made from ``xs`` (a list)."""
    ts = [tj.constant(x) for x in xs]
    with tj.GradientTape() as tape:
        tape.watch(ts)
        y = f(*ts)
    return y, tape.gradient(y, ts, output_gradients=output_gradients)


def jacobian_matrix(f, x):
    """The Jacobian of ``f`` at ``x`` by ``tape.jacobian``, laid out as TF's gradient checker lays it out: (output
    size, input size)."""
    x = tj.constant(x)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    j = tape.jacobian(y, x)
    assert j is not None, "no Jacobian (the gradient is None)"
    return np.asarray(j.numpy()).reshape(int(np.prod(y.shape)), int(np.prod(x.shape)))


def nested_tape_gradients(f, x, output_gradients=None, outer_gradients=None):
    """(f(x), its gradient, the gradient of that gradient) by nested tapes, as TF's nested GradientTapes."""
    x = tj.constant(x)
    with tj.GradientTape() as outer:
        outer.watch(x)
        with tj.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x, output_gradients=output_gradients)
    return y, g, outer.gradient(g, x, output_gradients=outer_gradients)


def jax_raises(exc, fn, match=None):
    """jax.numpy's side of an error test (the JAX ports): RuntimeError, which no xfail accepts, unless jax raises
    ``exc`` (with a message matching ``match``)."""
    try:
        fn()
    except exc as e:
        if match is None or re.search(match, str(e)):
            return
        raise RuntimeError(f"jax.numpy's message changed: {e}") from e
    raise RuntimeError("jax.numpy no longer raises")


def assert_same_signature(ours, theirs):
    """``ours`` takes ``theirs``'s parameters: the same names in the same order, each of the same kind and
    default (a tj.nn or tj.random function against jax's)."""
    import inspect
    mine = inspect.signature(ours).parameters
    want = inspect.signature(theirs).parameters
    assert list(mine) == list(want)
    for n, p in want.items():
        assert mine[n].kind == p.kind, n
        assert mine[n].default == p.default or mine[n].default is p.default, n


def accumulator_jvp(f, x, t):
    x = tj.constant(x)
    with tj.ForwardAccumulator(x, tj.constant(t)) as acc:
        y = f(x)
    return acc.jvp(y)


def forward_over_reverse(f, x, t):
    """The tangent along ``t`` of the gradient of ``f`` at ``x`` (a ForwardAccumulator around a GradientTape)."""
    x = tj.constant(x)
    with tj.ForwardAccumulator(x, tj.constant(t)) as acc:
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        g = tape.gradient(y, x)
    return acc.jvp(g)


def unconnected_second_input_at_zero_base(mul):
    """``(nested tapes, jax.grad of jax.grad)`` of the path fuzz's seed 4969, reduced: ``g(a, b) = sum(mul(a,
    |b| ** a))`` with ``mul`` a product whose gradient for its second argument is None; the inner gradient with
    respect to a and b, the outer one (of ``sum(ga * va) + sum(gb * vb)``) with respect to a, at b = (0, 0, -1).
    Run on a zero cotangent, pow's backward for b (``a * b ** (a - 1)``, inf at b = 0) makes 0 * inf = NaN; the
    tape never runs it. Both should be 0 (|b| ** a log|b| va, the log masked at 0 as TF's PowGrad, log 1 = 0)."""
    import jax
    import jax.numpy as jnp
    a0, b0 = np.array([0.5, 1.0, 0.5], np.float32), np.array([0.0, 0.0, -1.0], np.float32)
    va, vb = np.array([1.0, -1.0, 0.5], np.float32), np.array([0.5, 2.0, 1.0], np.float32)

    def g(a, b):
        return tnp.sum(mul(a, tnp.abs(b) ** a))
    a, b = tj.constant(a0), tj.constant(b0)
    with tj.GradientTape() as outer:
        outer.watch(a)
        with tj.GradientTape() as inner:
            inner.watch([a, b])
            ga, gb = inner.gradient(g(a, b), [a, b], unconnected_gradients=tj.UnconnectedGradients.ZERO)
        s = tnp.sum(ga * va) + tnp.sum(gb * vb)
    tape = outer.gradient(s, a).numpy()

    def gdot(a_, b_):
        ja, jb = jax.grad(lambda u, w: g(tj.Tensor(u), tj.Tensor(w)).value, argnums=(0, 1))(a_, b_)
        return jnp.sum(ja * va) + jnp.sum(jb * vb)
    return tape, np.asarray(jax.jit(jax.grad(gdot))(jnp.asarray(a0), jnp.asarray(b0)))


@tj.custom_gradient
def mul_second_unconnected(a, b):
    """``a * b`` whose gradient reaches only ``a``: its grad_fn gives None for ``b`` (unconnected, as TF)."""
    def grad_fn(dy):
        return dy * b, None
    return a * b, grad_fn


@tj.custom_gradient
def log1pexp(x):
    e = tnp.exp(x)

    def grad(dy):
        return dy * (1 - 1 / (1 + e))
    return tnp.log(1 + e), grad


@pytest.fixture(autouse=True)
def freeze_older_objects():
    # A test worker ends up holding ~3 million objects (compiled programs, caches, module-level values of
    # ~50 test files), and every full collection, automatic or a test's gc.collect(), scanned all of them:
    # collections took ~15% of the suite's time (193 of ~1,320 worker-seconds; now 40). Each test starts
    # by collecting what the tests before it left (a scan of only that) and freezing what survives, so a
    # collection during a test scans what the test made. Frozen objects are never scanned again: cyclic
    # garbage whose last outside reference a later test drops stays (a worker's peak memory: 4.85 -> 5.14
    # GB). gc.get_objects() leaves frozen objects out, so counts a test takes before and after compare alike.
    gc.collect()
    gc.freeze()
    yield


@pytest.fixture(autouse=True)
def config():
    with tj.config.override(**tj.config.settings()) as cfg:
        yield cfg


@pytest.fixture
def replay_now():
    replay.clear()
    with tj.config.override(lazy=True, replay=True, replay_warmup=2, replay_exact=True, replay_background=False):
        yield
    replay.wait()
    replay.clear()


def jax_canonical(x):
    """``x`` with NumPy arrays and scalars cast to the dtype JAX gives them (x64 off: float64 to float32...); lists
    and tuples mapped. The NumPy reference of a jax.numpy-mirroring port computes in these dtypes."""
    if isinstance(x, (list, tuple)):
        return type(x)(jax_canonical(v) for v in x)
    if isinstance(x, (np.ndarray, np.generic)):
        return x.astype(jax.dtypes.canonicalize_dtype(x.dtype))
    return x


def is_tensor(a) -> bool:
    return isinstance(a, tj.Tensor)


def tree_arrays(tree):
    """``tree`` with each Tensor read as its array (a tj result as jax.numpy's would be)."""
    return jax.tree_util.tree_map(lambda a: a.value if is_tensor(a) else a, tree, is_leaf=is_tensor)


def same_tree_as_jax(got, want, rtol=1e-5, atol=1e-6, weak_flags: bool = False):
    """tj's result ``got`` against jax.numpy's ``want`` (the tests of tj code under jax's transforms): one tree
    structure (Tensors read as arrays), and per leaf the same shape, dtype and values (float0 leaves: dtype and shape
    only); the same weak type where both leaves have one, or with ``weak_flags`` always (a leaf without one: False)."""
    got = tree_arrays(got)
    assert jax.tree_util.tree_structure(got) == jax.tree_util.tree_structure(want), (got, want)
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        g_arr, w_arr = np.asarray(g), np.asarray(w)
        assert (g_arr.shape, g_arr.dtype) == (w_arr.shape, w_arr.dtype), (g, w)
        if weak_flags or (hasattr(g, "weak_type") and hasattr(w, "weak_type")):
            assert getattr(g, "weak_type", False) == getattr(w, "weak_type", False), (g, w)
        if w_arr.dtype != jax.dtypes.float0:
            np.testing.assert_allclose(g_arr, w_arr, rtol=rtol, atol=atol)
