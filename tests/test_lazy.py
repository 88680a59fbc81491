"""Deferred execution (tj.config.lazy) and its replay (tj.config.replay).

While exactly one GradientTape records, ops on plain uncommitted arrays return LazyTensors whose value
is computed on first read; at gradient time a recurring all-deferred tape runs forward and backward as
one compiled program. Everything here is compared with op-by-op eager execution (lazy=False,
replay=False), bit for bit, and where it is cheap with jax.grad on raw jax."""
import contextlib
import gc
import subprocess
import sys
import textwrap
import threading

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from tapejax import tape_set
from tapejax.tensor import LazyTensor
from tapejax.tensor import Tensor

tnp = tj.numpy


def _settings(replay_=False):
    """This thread's config for these tests (tj.config is per thread)."""
    cfg = tj.config
    # exact replay: each op fenced in the program, so results must equal op-by-op execution bit for bit
    cfg.lazy, cfg.replay, cfg.replay_warmup, cfg.replay_exact = True, replay_, 2, True
    if hasattr(cfg, "replay_background"):
        cfg.replay_background = False  # compile when the structure recurs: replayed from the next step on


@pytest.fixture(autouse=True)
def lazy_config(replay_now):
    tj.config.replay = False  # (put back by replay_now) tests that replay turn it on


def mode(lazy, replay_=False):
    return tj.config.override(lazy=lazy, replay=replay_)


def eager(fn, *args, **kw):
    """``fn`` run op by op, nothing deferred, nothing replayed (the reference)."""
    with mode(False, False):
        return fn(*args, **kw)


def as_np(x):
    if x is None:
        return None
    if isinstance(x, (list, tuple)):
        return type(x)(as_np(v) for v in x)
    if isinstance(x, dict):
        return {k: as_np(v) for k, v in x.items()}
    return np.asarray(x.numpy() if isinstance(x, (Tensor, tj.Variable)) else x)


def assert_same(a, b):
    """Bitwise equality of nested results (None must match None)."""
    if a is None or b is None:
        assert a is None and b is None, (a, b)
        return
    if isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            assert_same(x, y)
        return
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            assert_same(a[k], b[k])
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, a.shape, b.dtype, b.shape)
    if a.tobytes() != b.tobytes():
        np.testing.assert_array_equal(a, b)
        raise AssertionError(f"equal values but different bits (sign of zero, NaN payload):\n{a!r}\n{b!r}")


def pending(t) -> bool:
    return type(t) is LazyTensor and t._pending_node() is not None


def from_program(t) -> bool:
    """``t``'s value came back with the gradients, or comes with them: it is known, or its node is
    exported by the replayed step's program (deferred/pending.py), which runs when either is read."""
    return not pending(t) or t._pending_node().step is not None


def _rand(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


# -- 1. deferred ops: LazyTensors, metadata without computing, values and gradients as eager ------------

def _mlp_program(x, w1, b1, w2, labels, checks=None, stop=True):
    with tj.GradientTape() as t:
        t.watch([w1, b1, w2])
        z = tnp.matmul(x, w1) + b1                      # broadcasting add
        h = tnp.tanh(z)
        parts = tnp.split(h, 3, axis=1)                 # multi-output op
        k = labels * 2 + 1                              # integer ops mixed in
        mask = (k % 3).astype(jnp.float32)
        flat = tnp.reshape(h, (-1,))
        back = flat.reshape(h.shape)
        o = (back * 0.5 + parts[0].sum(axis=1, keepdims=True)) @ w2
        first = o[:, 0]
        rest = o[1:, :]
        loss = tnp.mean(o * o) + tnp.sum(first * mask) + tnp.sum(tnp.tanh(rest)) + tnp.sum(parts[2] * parts[1])
        if checks is not None:
            checks["h"] = (type(h), h.shape, h.dtype, h.ndim, h.size, pending(h))
            checks["parts"] = [(type(p), p.shape, pending(p)) for p in parts]
            checks["k"] = (type(k), k.dtype, pending(k))
            checks["loss"] = (type(loss), loss.shape, loss.dtype, loss.ndim, pending(loss))
        # stop_gradient is not differentiable: it runs now (reading its argument), its gradient is None
        loss2 = loss + tnp.sum(tj.stop_gradient(parts[1]) * o[:, 1:2]) if stop else loss
    grads = t.gradient(loss2, [w1, b1, w2])
    exported = from_program(loss2)
    return as_np([loss2, h, parts, k, mask, o, grads]), (t.last_replay, exported)


def test_deferred_ops_are_lazy_and_metadata_does_not_compute():
    rng = np.random.default_rng(0)
    x = tj.constant(_rand(rng, 5, 4))
    w1 = tj.constant(_rand(rng, 4, 6))
    with tj.GradientTape() as t:
        t.watch(w1)
        z = x @ w1
        assert type(z) is LazyTensor
        node = z._pending_node()
        assert node is not None
        # shape/dtype/ndim/size come from the abstract value: still pending after asking
        assert z.shape == (5, 6) and z.dtype == jnp.float32 and z.ndim == 2 and z.size == 30
        a, b = tnp.split(z, 2, axis=1)
        assert type(a) is LazyTensor and type(b) is LazyTensor and a.shape == (5, 3)
        y = tnp.sum(tnp.tanh(a) * b)
        assert y.shape == () and y.dtype == jnp.float32
        assert z._pending_node() is node and pending(a) and pending(b) and pending(y)
        # an unwatched computation is deferred too (not recorded), and so are integer ops
        c = tnp.exp(x)
        i = tj.constant([1, 2, 3]) * 2
        assert pending(c) and pending(i) and i.dtype == jnp.int32
    assert pending(y)
    g = t.gradient(y, w1)
    ref_z = eager(lambda: (x @ w1).numpy())
    assert_same(z.numpy(), ref_z)
    assert not pending(z)
    assert_same(c.numpy(), eager(lambda: tnp.exp(x).numpy()))
    assert_same(i.numpy(), np.array([2, 4, 6], np.int32))

    def ref_grad():
        with tj.GradientTape() as t2:
            t2.watch(w1)
            a2, b2 = tnp.split(x @ w1, 2, axis=1)
            y2 = tnp.sum(tnp.tanh(a2) * b2)
        return t2.gradient(y2, w1).numpy()
    assert_same(g.numpy(), eager(ref_grad))


def test_a_deferred_op_traces_its_kernel_once():
    """Deferring an op needs its output types at once; they come from the trace of the very kernel (the op with
    its residuals, named after the op: ``jit(matmul)``) that computes it when its value is needed, which jax keeps
    for that call: running the deferred ops of a step on new shapes compiles their kernels without tracing them
    again."""
    events = []

    def listen(event, duration, **kw):
        if event.endswith(("jaxpr_trace_duration", "jaxpr_to_mlir_module_duration")):
            events.append((event.rsplit("/", 1)[1], kw.get("fun_name")))
    # (shapes no other test uses: at least the matmul's kernel is compiled here, whatever ran before)
    x = tj.constant(np.linspace(-1.0, 1.0, 13 * 29, dtype=np.float32).reshape(13, 29))
    w = tj.constant(np.linspace(0.5, 1.5, 29 * 11, dtype=np.float32).reshape(29, 11))
    jax.monitoring.register_event_duration_secs_listener(listen)
    try:
        with tj.GradientTape() as t:
            t.watch(w)
            y = tnp.sum(tnp.tanh(x @ w) * 2.0)
            assert pending(y)
        typed = len(events)  # (what deferring the four ops took: their types)
        g = t.gradient(y, w)
        g.numpy()
    finally:
        jax.monitoring.unregister_event_duration_listener(listen)
    run = events[typed:]
    assert ("jaxpr_trace_duration", "matmul") in events[:typed], events
    assert ("jaxpr_to_mlir_module_duration", "jit(matmul)") in run, run
    assert ("jaxpr_trace_duration", "matmul") not in run, run
    want = jax.grad(lambda w: jnp.sum(jnp.tanh(x.value @ w) * 2.0))(w.value)
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-5, atol=1e-6)


def test_an_ops_kernels_carry_its_name_and_compile_alike_recorded_or_not():
    """An op's XLA programs are named after it (``jit_tanh``, ``jit_tanh_grad``: what profiles and dumps show), and
    its forward is one program text, module name included, whether a tape records it or not: a persistent
    compilation cache (the test suite's) compiles it once."""
    from tapejax.ops import core
    x = tj.constant(np.linspace(-1.0, 1.0, 7, dtype=np.float32))
    with tj.config.override(lazy=False, replay=False), tj.GradientTape() as t:
        t.watch(x)
        y = tnp.tanh(x)
    t.gradient(y, x)
    tnp.tanh(x)  # (not recorded)
    kernels = core.registry()["tanh"].kernels({})
    unrecorded = kernels.forward.lower(x.value).as_text(debug_info=False)
    recorded = kernels._plans[(0,)].kernel.lower(x.value).as_text(debug_info=False)
    assert unrecorded.startswith("module @jit_tanh "), unrecorded[:80]
    assert recorded == unrecorded
    assert {f.__name__ for f in kernels._plans[(0,)]._backwards.values()} == {"tanh_grad"}


def test_mlp_values_and_gradients_bitwise_equal_to_eager_and_close_to_jax():
    rng = np.random.default_rng(1)
    x = tj.constant(_rand(rng, 6, 5))
    w1 = tj.constant(_rand(rng, 5, 9, scale=0.5))
    b1 = tj.constant(_rand(rng, 9))
    w2 = tj.constant(_rand(rng, 9, 3, scale=0.5))
    labels = tj.constant(np.arange(6, dtype=np.int32))
    checks = {}
    got, _ = _mlp_program(x, w1, b1, w2, labels, checks)
    ref, _ = eager(_mlp_program, x, w1, b1, w2, labels)
    assert_same(got, ref)
    # inside the tape: LazyTensors with the right metadata, still pending when asked for it
    assert checks["h"] == (LazyTensor, (6, 9), jnp.float32, 2, 54, True)
    assert checks["parts"] == [(LazyTensor, (6, 3), True)] * 3
    assert checks["k"] == (LazyTensor, jnp.int32, True)
    assert checks["loss"] == (LazyTensor, (), jnp.float32, 0, True)

    # the same program on raw jax
    def f(w1_, b1_, w2_):
        h = jnp.tanh(x.value @ w1_ + b1_)
        p0, p1, p2 = jnp.split(h, 3, axis=1)
        mask = ((labels.value * 2 + 1) % 3).astype(jnp.float32)
        o = (h * 0.5 + p0.sum(axis=1, keepdims=True)) @ w2_
        loss = jnp.mean(o * o) + jnp.sum(o[:, 0] * mask) + jnp.sum(jnp.tanh(o[1:, :])) + jnp.sum(p2 * p1)
        return loss + jnp.sum(jax.lax.stop_gradient(p1) * o[:, 1:2])
    jl, jg = jax.jit(jax.value_and_grad(f, argnums=(0, 1, 2)))(w1.value, b1.value, w2.value)
    np.testing.assert_allclose(got[0], jl, rtol=1e-5)
    for a, b in zip(got[-1], jg):
        np.testing.assert_allclose(a, b, rtol=2e-4, atol=1e-5)


def test_mlp_replayed_equals_eager_bitwise():
    tj.config.replay = True
    rng = np.random.default_rng(11)
    modes = []
    for step in range(3):
        args = (tj.constant(_rand(rng, 6, 5)), tj.constant(_rand(rng, 5, 9, scale=0.5)), tj.constant(_rand(rng, 9)),
                tj.constant(_rand(rng, 9, 3, scale=0.5)), tj.constant(np.arange(6, dtype=np.int32) + step))
        got, how = _mlp_program(*args, stop=False)
        ref, _ = eager(_mlp_program, *args, stop=False)
        assert_same(got, ref)
        modes.append(how)
    assert modes[0][0].startswith("op by op"), modes
    assert modes[2][0].startswith("replayed") and modes[2][1], modes


def test_variable_reads_see_the_value_current_at_the_read():
    v = tj.Variable(np.array([1.0, 2.0, 3.0], np.float32))

    def run():
        v.assign(np.array([1.0, 2.0, 3.0], np.float32))
        with tj.GradientTape() as t:
            a = tnp.exp(v * 0.5)
            v.assign(np.array([-1.0, 0.5, 4.0], np.float32))   # the deferred op above used the old value
            b = tnp.sin(v * a)
            y = tnp.sum(a * b)
            kinds = (type(a), type(b))
        g = t.gradient(y, v)
        return kinds, as_np([a, b, y, g])
    kinds, got = run()
    _, ref = eager(run)
    assert kinds == (LazyTensor, LazyTensor)
    assert_same(got, ref)


# -- 2. shape and dtype errors raise at the call ------------------------------------------------------

@pytest.mark.parametrize("case", ["matmul", "reshape", "concatenate", "add"])
def test_shape_errors_raise_at_the_call_naming_the_op(case):
    a = tj.constant(np.ones((2, 3), np.float32))
    b = tj.constant(np.ones((4, 5), np.float32))
    call = {
        "matmul": lambda: tnp.matmul(a, b),
        "reshape": lambda: tnp.reshape(a, (7,)),
        "concatenate": lambda: tnp.concatenate([a, b], axis=0),
        "add": lambda: a + b,
    }[case]

    def eager_error():
        with tj.GradientTape() as t:
            t.watch(a)
            with pytest.raises(Exception) as ei:
                call()
        return ei.value
    ref = eager(eager_error)
    with tj.GradientTape() as t:
        t.watch([a, b])
        y = tnp.exp(a)
        assert pending(y)
        with pytest.raises(type(ref)) as ei:
            call()
        assert str(ei.value) == str(ref)
        assert case in str(ei.value)
        # the tape goes on recording after the error
        z = tnp.sum(y * 2.0)
        assert pending(y) and pending(z)
    g = t.gradient(z, a)
    assert_same(g.numpy(), eager(_exp_sum_grad, a))


def _exp_sum_grad(a):
    with tj.GradientTape() as t:
        t.watch(a)
        z = tnp.sum(tnp.exp(a) * 2.0)
    return t.gradient(z, a).numpy()


def test_dtype_error_raises_at_the_call():
    a = tj.constant(np.ones((3,), np.float32))
    i = tj.constant(np.ones((3,), np.int32))

    def call():
        return tnp.take(a, a)   # float indices: a dtype error in jax

    with pytest.raises(Exception) as ref:
        eager(call)
    with tj.GradientTape() as t:
        t.watch(a)
        with pytest.raises(type(ref.value)) as ei:
            call()
        assert "take" in str(ei.value)
        ok = tnp.take(a, i % 2)
        assert pending(ok)
    assert_same(ok.numpy(), np.ones(3, np.float32))


# -- 3. reading a pending tensor inside jax transformations ------------------------------------------------

def test_reading_pending_tensor_inside_jit_and_vmap_gives_concrete_values():
    rng = np.random.default_rng(2)
    x = tj.constant(_rand(rng, 4))
    batch = jnp.asarray(_rand(rng, 3, 4))
    ref_y = eager(lambda: (tnp.exp(x) * 2.0).numpy())
    ref_w = eager(lambda: tnp.sin(x).numpy())
    ref_u = eager(lambda: tnp.cos(x * 3.0).numpy())
    with tj.GradientTape() as t:
        t.watch(x)
        y = tnp.exp(x) * 2.0
        w = tnp.sin(x)
        u = tnp.cos(x * 3.0)
        assert pending(y) and pending(w) and pending(u)

        @jax.jit
        def f(a):
            return a + y.value        # first read of y happens while jit traces f

        out = f(jnp.ones(4, jnp.float32))
        assert not pending(y)
        assert not isinstance(y._value, jax.core.Tracer)
        np.testing.assert_array_equal(np.asarray(out), ref_y + 1.0)

        assert pending(w) and pending(u)
        vm = jax.vmap(lambda row: row * jnp.asarray(w))(batch)   # first read of w under vmap
        assert not isinstance(w._value, jax.core.Tracer)
        np.testing.assert_array_equal(np.asarray(vm), np.asarray(batch) * ref_w)

        assert pending(u)
        gj = jax.grad(lambda s: jnp.sum(s * u.numpy()))(1.0)     # under jax.grad
        assert not isinstance(u._value, jax.core.Tracer)
        np.testing.assert_allclose(gj, ref_u.sum(), rtol=1e-6)
        loss = tnp.sum(y * w * u)
    for tensor, ref in ((y, ref_y), (w, ref_w), (u, ref_u)):
        r = repr(tensor)
        assert "traced" not in r and "numpy=" in r, r
        assert_same(tensor.numpy(), ref)
    g = t.gradient(loss, x)

    def ref_grad():
        with tj.GradientTape() as t2:
            t2.watch(x)
            l2 = tnp.sum((tnp.exp(x) * 2.0) * tnp.sin(x) * tnp.cos(x * 3.0))
        return t2.gradient(l2, x).numpy()
    assert_same(g.numpy(), eager(ref_grad))


def test_pending_tensor_passed_to_jit_as_argument():
    x = tj.constant(np.linspace(-1, 1, 5).astype(np.float32))
    with tj.GradientTape() as t:
        t.watch(x)
        y = tnp.tanh(x) * 3.0
        assert pending(y)
        out = jax.jit(lambda a: a * 2.0)(y)      # a pytree: flattening reads the value
        loss = tnp.sum(y)
    assert isinstance(out, Tensor)
    assert_same(out.numpy(), eager(lambda: (tnp.tanh(x) * 3.0).numpy()) * np.float32(2.0))
    np.testing.assert_allclose(t.gradient(loss, x).numpy(), 3.0 * (1 - np.tanh(x.numpy()) ** 2), rtol=1e-6)


def test_pending_tensor_read_while_jax_traces_runs_its_kernels():
    # a pending tensor's value read inside a jax.jit trace (a closure): its kernels run (a concrete value, which
    # the trace then captures as a constant), they are not staged into the jitted function
    x = tj.constant(np.linspace(-1, 1, 5).astype(np.float32))
    with tj.GradientTape() as t:
        t.watch(x)
        y = tnp.sin(tnp.exp(x))
        assert pending(y)
        out = jax.jit(lambda a: a + y.value)(jnp.ones(5))
        loss = tnp.sum(y)
    assert not pending(y) and not isinstance(y.value, jax.core.Tracer)
    want = np.sin(np.exp(x.numpy()))
    np.testing.assert_allclose(np.asarray(out), want + 1.0, rtol=1e-6)
    np.testing.assert_allclose(t.gradient(loss, x).numpy(), np.cos(np.exp(x.numpy())) * np.exp(x.numpy()), rtol=1e-5)


def test_deferred_kernels_trace_as_eager_ones():
    # Running a deferred op's kernels (outside any trace) traces them as lazy=False does: no constant folding
    # (under jax.ensure_compile_time_eval each constant would be an XLA program of its own, and the kernel would
    # be keyed, traced and compiled apart from the same kernel called eagerly)
    folding = []

    def f(a):
        folding.append(bool(jax.config.eager_constant_folding))
        return a * jnp.ones(a.shape)
    op = tj.op(f)
    x = tj.constant(np.arange(3.0, dtype=np.float32))
    with tj.GradientTape() as t:
        t.watch(x)
        y = op(x)
    np.testing.assert_allclose(y.numpy(), [0.0, 1.0, 2.0])
    assert folding and not any(folding), folding


def test_deferred_backward_of_a_trimmed_op_makes_no_stand_in_zeros(caplog):
    # tanh's backward reads its output, not its input, so the tape lets the input go: the backward kernel makes
    # the never-read stand-in inside its own program. A deferred op's backward built them eagerly as well, and
    # threw them away (a zeros array per op and backward pass, and an XLA program per new shape).
    x = tj.constant(np.linspace(-1.0, 1.0, 7 * 13 * 3).astype(np.float32).reshape(7, 13, 3))  # a shape of its own
    with tj.config.override(lazy=True):
        with tj.GradientTape() as t:
            t.watch(x)
            y = tnp.sum(tnp.tanh(x) * 2.0)
        with jax.log_compiles(), caplog.at_level("WARNING"):
            g = t.gradient(y, x)
    np.testing.assert_allclose(g.numpy(), 2.0 / np.cosh(x.numpy()) ** 2, rtol=1e-5)
    made = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Compiling jit(broadcast_in_dim)")]
    assert not made, made


# -- 4. nothing deferred where it must not be ----------------------------------------------------------------

def test_not_deferred_under_two_nested_tapes():
    x = tj.constant(np.linspace(0.1, 1.0, 4).astype(np.float32))

    def run():
        with tj.GradientTape() as outer:
            outer.watch(x)
            with tj.GradientTape() as inner:
                inner.watch(x)
                y = tnp.sin(x) * x
                sy = tnp.sum(y)
                kinds = [type(y)]
            g = inner.gradient(sy, x)
            kinds.append(type(g))
            gs = tnp.sum(g)
        h = outer.gradient(gs, x)
        return kinds, as_np([y, g, h])
    kinds, got = run()
    _, ref = eager(run)
    assert kinds[0] is Tensor
    assert_same(got, ref)
    xv = x.numpy()
    np.testing.assert_allclose(got[2], 2 * np.cos(xv) - xv * np.sin(xv), rtol=1e-5)


def test_not_deferred_under_forward_accumulator():
    x = tj.constant(np.linspace(0.1, 1.0, 4).astype(np.float32))
    v = tj.constant(np.ones(4, np.float32))

    def run():
        with tj.GradientTape() as t:
            t.watch(x)
            with tj.ForwardAccumulator(x, v) as acc:
                y = tnp.exp(x) * x
                kind = type(y)
            jvp = acc.jvp(y)
            s = tnp.sum(y)
        return kind, as_np([y, jvp, t.gradient(s, x)])
    kind, got = run()
    _, ref = eager(run)
    assert kind is Tensor
    assert_same(got, ref)
    xv = x.numpy()
    np.testing.assert_allclose(got[1], np.exp(xv) * (1 + xv), rtol=1e-6)


def test_stop_recording_blocks():
    x = tj.constant(np.linspace(0.1, 1.0, 4).astype(np.float32))

    def run():
        with tj.GradientTape() as t:
            t.watch(x)
            a = tnp.exp(x)
            with tj.stop_recording():
                b = tnp.sin(a) * 2.0
                kinds = [type(b)]
            with t.stop_recording():
                c = tnp.cos(a) * 3.0
                kinds.append(type(c))
            y = tnp.sum(a * b * c)
        return kinds, as_np([a, b, c, y, t.gradient(y, x)])
    kinds, got = run()
    _, ref = eager(run)
    assert kinds[0] is Tensor          # tj.stop_recording(): nothing records, nothing is deferred
    # (inside tape.stop_recording() ops are currently still deferred, unrecorded: only values are checked)
    assert_same(got, ref)
    # b and c are constants for the gradient (recorded neither way)
    xv = x.numpy()
    ea = np.exp(xv)
    np.testing.assert_allclose(got[4], ea * (np.sin(ea) * 2.0) * (np.cos(ea) * 3.0), rtol=1e-5)


def test_not_deferred_inside_tj_function():
    kinds = []

    @tj.function
    def f(x):
        with tj.GradientTape() as t:
            t.watch(x)
            y = tnp.tanh(x) * x
            kinds.append(type(y))
            s = tnp.sum(y)
        return s, t.gradient(s, x)

    x = tj.constant(np.linspace(-1, 1, 5).astype(np.float32))
    s, g = f(x)
    assert kinds and all(k is Tensor for k in kinds)
    xv = x.numpy()
    np.testing.assert_allclose(g.numpy(), np.tanh(xv) + xv * (1 - np.tanh(xv) ** 2), rtol=1e-5)
    np.testing.assert_allclose(s.numpy(), np.sum(np.tanh(xv) * xv), rtol=1e-5)

    # a tj.function called under an eager tape: recorded as one op; its result is correct either way
    def outer():
        with tj.GradientTape() as t:
            t.watch(x)
            a = tnp.exp(x)
            s2, _ = f(a)
            out = s2 * 2.0
        return as_np([out, t.gradient(out, x)])
    got = outer()
    ref = eager(outer)
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-6)
    np.testing.assert_allclose(got[1], ref[1], rtol=1e-6)


# -- 5. replay of a training loop ------------------------------------------------------------------------------

def _train(steps=6, lr=0.1, seed=3):
    rng = np.random.default_rng(seed)
    w = tj.Variable(_rand(rng, 8, 4, scale=0.3), name="w")
    b = tj.Variable(np.zeros(4, np.float32), name="b")
    losses, modes, loss_kinds, exported = [], [], [], []
    for _ in range(steps):
        xs = tj.constant(_rand(rng, 16, 8))      # fresh data every step
        ys = tj.constant(_rand(rng, 16, 4))
        with tj.GradientTape() as t:
            pred = tnp.tanh(xs @ w + b)
            err = pred - ys
            loss = tnp.mean(err * err) + 1e-3 * tnp.sum(w * w)   # w read twice
        loss_kinds.append(type(loss))
        gw, gb = t.gradient(loss, [w, b])
        exported.append(from_program(loss))
        modes.append(t.last_replay)
        losses.append(loss.numpy())
        w.assign_sub(lr * gw)
        b.assign_sub(lr * gb)
    return [w.numpy(), b.numpy()], losses, modes, loss_kinds, exported


def test_training_loop_replay_equals_eager_bitwise():
    tj.config.replay = True
    params, losses, modes, kinds, exported = _train()
    ref_params, ref_losses, _, ref_kinds, _ = eager(_train)
    assert all(k is LazyTensor for k in kinds) and all(k is Tensor for k in ref_kinds)
    assert_same(params, ref_params)
    assert_same(losses, ref_losses)
    assert "warm-up 1/2" in modes[0] and "warm-up 2/2" in modes[1], modes
    assert all(m.startswith("replayed") for m in modes[2:]), modes
    # the program returned the loss's value along with the gradients
    assert all(exported[2:]), exported


def test_training_loop_lazy_without_replay_equals_eager_bitwise():
    params, losses, modes, _, _ = _train(steps=3)
    ref_params, ref_losses, _, _, _ = eager(_train, steps=3)
    assert_same(params, ref_params)
    assert_same(losses, ref_losses)
    assert not any(m.startswith("replayed") for m in modes), modes


# -- 6. replay variations are not confused with one another ---------------------------------------------------

def _variant(kind, x0, depth, og=None):
    with tj.GradientTape() as t:
        t.watch(x0)
        other = tj.constant(np.full(x0.shape, 0.5, np.float32))
        t.watch(other)
        x = x0
        for _ in range(depth):
            x = tnp.tanh(x * 1.01 + 0.1)
        y = tnp.sum(x * x)
        z = tnp.sum(tnp.exp(x) * 0.5)
    if kind in ("shape", "depth"):
        g = t.gradient(y, [x0, other])
    elif kind == "target_z":
        g = t.gradient(z, [x0, other])
    elif kind == "targets_yz":
        g = t.gradient([y, z], [x0])
    elif kind == "og":
        g = t.gradient(x, x0, output_gradients=og)
    elif kind == "no_og":
        g = t.gradient(x, x0)
    elif kind == "source_is_target":
        g = t.gradient([y, x], [x0, x])
    elif kind == "unconnected_none":
        g = t.gradient(y, {"x0": x0, "other": other})
    elif kind == "unconnected_zero":
        g = t.gradient(y, {"x0": x0, "other": other}, unconnected_gradients=tj.UnconnectedGradients.ZERO)
    else:
        raise AssertionError(kind)
    return as_np([g, y, z]), t.last_replay


def test_replay_variations_each_equal_eager():
    # No warm-up: every structure is compiled at its first gradient, so a structure wrongly taken for
    # an earlier one would run that one's program; the second round reuses each program on new values.
    tj.config.replay, tj.config.replay_warmup = True, 0
    rng = np.random.default_rng(4)
    kinds = ["shape", "depth", "target_z", "targets_yz", "og", "no_og", "source_is_target",
             "unconnected_none", "unconnected_zero"]
    last = {}
    for rep in range(2):
        for kind in kinds:
            for n, depth in (((5, 3), (6, 3)) if kind == "shape" else ((4, 3), (4, 4)) if kind == "depth"
                             else ((4, 3),)):
                x0 = tj.constant(_rand(rng, n))          # new values every time: nothing may be baked in
                og = tj.constant(_rand(rng, n)) if kind == "og" else None
                got, how = _variant(kind, x0, depth, og)
                ref, _ = eager(_variant, kind, x0, depth, og)
                assert_same(got, ref)
                last[(kind, n, depth)] = how
    assert all(m.startswith("replayed") for m in last.values()), last
    # and a spot check of the meaning of the results
    x0 = tj.constant(_rand(rng, 4))
    (g, _, _), _ = _variant("unconnected_none", x0, 3)
    assert g["other"] is None
    (g, _, _), _ = _variant("unconnected_zero", x0, 3)
    assert_same(g["other"], np.zeros(4, np.float32))
    (g, _, _), _ = _variant("source_is_target", x0, 3)
    assert g[1].shape == (4,)


# -- 7. fallbacks ----------------------------------------------------------------------------------------------

def test_persistent_tape_two_gradients():
    tj.config.replay = True
    x = tj.constant(np.linspace(-1, 1, 6).astype(np.float32))

    def run():
        with tj.GradientTape(persistent=True) as t:
            t.watch(x)
            h = tnp.tanh(x * 2.0)
            y = tnp.sum(h * h)
            z = tnp.sum(tnp.exp(h))
            kinds = (type(h), type(y))
        g1 = t.gradient(y, x)
        g2 = t.gradient(z, [x, h])
        g3 = t.gradient([y, z], x)
        return kinds, as_np([h, y, z, g1, g2, g3])
    for _ in range(3):
        kinds, got = run()
        assert kinds == (LazyTensor, LazyTensor)
        assert_same(got, eager(run)[1])


def test_custom_gradient_inside_a_lazy_tape():
    tj.config.replay = True

    @tj.custom_gradient
    def f(x):
        y = tnp.exp(x)
        return y, lambda dy: dy * y * 5.0

    x = tj.constant(np.linspace(-1, 1, 5).astype(np.float32))

    def run():
        with tj.GradientTape() as t:
            t.watch(x)
            a = tnp.sin(x)
            b = f(a)
            y = tnp.sum(b * a)
        return as_np([y, t.gradient(y, x)]), t.last_replay
    for _ in range(3):
        got, how = run()
        assert_same(got, eager(run)[0])
        assert not how.startswith("replayed"), how   # a Python grad_fn: op by op
    xv = x.numpy()
    s = np.sin(xv)
    np.testing.assert_allclose(got[1], (np.exp(s) * s * 5.0 + np.exp(s)) * np.cos(xv), rtol=1e-5)


@pytest.mark.parametrize("order", ["a_first", "b_first"])
def test_pending_tensor_from_tape_a_used_under_tape_b(order):
    tj.config.replay = True
    x = tj.constant(np.linspace(0.1, 1.0, 5).astype(np.float32))

    def run():
        with tj.GradientTape() as ta:
            ta.watch(x)
            y = tnp.exp(x) * 1.5
            mid = tnp.sin(y)          # not a target of A
            ya = tnp.sum(mid)
            kind = type(y)
        with tj.GradientTape() as tb:
            tb.watch([x, y])
            z = tnp.sum(tnp.sin(y) * y * x + mid)
        if order == "a_first":
            ga = ta.gradient(ya, x)
            gb = tb.gradient(z, [y, x, mid])
        else:
            gb = tb.gradient(z, [y, x, mid])
            ga = ta.gradient(ya, x)
        return kind, as_np([ga, gb, y, mid, z, ya])
    for _ in range(3):
        kind, got = run()
        assert kind is LazyTensor
        assert_same(got, eager(run)[1])


def test_watch_of_pending_intermediate_then_gradient_wrt_it():
    tj.config.replay = True
    rng = np.random.default_rng(5)

    def run(x):
        with tj.GradientTape() as t:
            t.watch(x)
            h = tnp.tanh(x * 2.0)
            with t.stop_recording():
                q = tnp.exp(x) * 0.5          # not recorded
            t.watch([h, q])
            hp = pending(h)
            out = tnp.sum(h * h * q) + tnp.sum(tnp.sin(q))
        return hp, as_np([t.gradient(out, [h, x, q]), out]), t.last_replay
    for _ in range(3):
        x = tj.constant(_rand(rng, 6))
        hp, got, how = run(x)
        assert hp
        _, ref, _ = eager(run, x)
        assert_same(got, ref)
    xv = x.numpy()
    h, q = np.tanh(xv * 2.0), np.exp(xv) * 0.5
    (g_h, g_x, g_q), _ = got
    np.testing.assert_allclose(g_h, 2 * h * q, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g_q, h * h + np.cos(q), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g_x, 2 * h * q * 2.0 * (1 - h * h), rtol=1e-5, atol=1e-6)


def test_committed_arrays_are_not_deferred_and_mix_with_pending():
    tj.config.replay = True
    rng = np.random.default_rng(12)
    dev = jax.devices()[0]

    def run(xv, cv):
        x = tj.constant(xv)
        c = tj.Tensor(jax.device_put(jnp.asarray(cv), dev))   # committed to a device: runs now
        with tj.GradientTape() as t:
            t.watch([x, c])
            y = tnp.exp(x)
            yc = y * c
            sc = tnp.sin(c)
            kinds = (type(y), type(yc), type(sc))
            z = tnp.sum(yc * sc)
        return kinds, as_np([t.gradient(z, [x, c]), z, y])
    for _ in range(3):
        xv, cv = _rand(rng, 5), _rand(rng, 5)
        kinds, got = run(xv, cv)
        assert kinds == (LazyTensor, Tensor, Tensor)
        assert_same(got, eager(run, xv, cv)[1])


# -- 8. memory -----------------------------------------------------------------------------------------------

_BIG = 1 << 20  # float32 elements: 4 MiB


def _big_live():
    gc.collect()
    return {id(a): a for a in jax.live_arrays() if a.nbytes >= _BIG * 4}


@pytest.mark.parametrize("with_replay", [False, True])
def test_memory_deferred_ops_allocate_nothing_until_needed(with_replay):
    tj.config.replay, tj.config.replay_warmup = with_replay, 0   # replayed at the first gradient
    rng = np.random.default_rng(6)
    x = tj.constant(rng.uniform(-1.0, 0.0, _BIG).astype(np.float32))
    before = _big_live()
    with tj.GradientTape() as t:
        t.watch(x)
        y = tnp.exp(tnp.exp(tnp.exp(x)))
        assert pending(y)
        assert _big_live().keys() == before.keys()     # nothing computed, nothing live
    g = t.gradient(y, x)
    assert t.last_replay.startswith("replayed" if with_replay else "op by op"), t.last_replay
    if with_replay:  # the replayed step runs when its gradient (or its loss) is first read
        assert _big_live().keys() == before.keys()
    g.value
    after = _big_live()
    new = set(after) - set(before)
    assert len(new) <= 2, [after[i].shape for i in new]   # the gradient, and the target's value if computed
    assert id(g.value) in new
    del after
    yv = y.value
    assert set(_big_live()) - set(before) == {id(g.value), id(yv)}
    xv = x.numpy().astype(np.float64)
    e1 = np.exp(xv)
    e2 = np.exp(e1)
    np.testing.assert_allclose(np.asarray(yv), np.exp(e2), rtol=1e-5)
    np.testing.assert_allclose(g.numpy(), np.exp(e2) * e2 * e1, rtol=1e-5)


@pytest.mark.parametrize("with_replay", [False, True])
def test_memory_dead_pending_branch_never_runs(with_replay):
    tj.config.replay, tj.config.replay_warmup = with_replay, 0   # replayed at the first gradient
    rng = np.random.default_rng(7)
    x = tj.constant(rng.uniform(-1.0, 1.0, _BIG).astype(np.float32))
    before = _big_live()
    with tj.GradientTape() as t:
        t.watch(x)
        dead = tnp.exp(x) * 3.0
        node = dead._pending_node()
        assert node is not None
        del dead
        y = tnp.sum(tnp.sin(x))
        assert _big_live().keys() == before.keys()
    g = t.gradient(y, x)
    assert t.last_replay.startswith("replayed" if with_replay else "op by op"), t.last_replay
    g.value
    assert node.values is None                  # the dead branch never ran
    assert set(_big_live()) - set(before) == {id(g.value)}
    np.testing.assert_allclose(g.numpy(), np.cos(x.numpy()), rtol=1e-6)
    np.testing.assert_allclose(y.numpy(), np.sum(np.sin(x.numpy().astype(np.float64))), rtol=1e-4)


def test_memory_gradient_wrt_a_pending_intermediate_does_not_compute_it():
    tj.config.replay, tj.config.replay_warmup = True, 0   # replayed at the first gradient
    rng = np.random.default_rng(13)
    x = tj.constant(rng.uniform(-1.0, 1.0, _BIG).astype(np.float32))
    before = _big_live()
    with tj.GradientTape() as t:
        t.watch(x)
        h = tnp.exp(x)
        y = tnp.sum(tnp.sin(h))
    gx, gh = t.gradient(y, [x, h])
    assert t.last_replay.startswith("replayed"), t.last_replay
    gx.value  # runs the step (both gradients)
    assert pending(h)
    assert set(_big_live()) - set(before) == {id(gx.value), id(gh.value)}
    ref = eager(lambda: as_np([tnp.exp(x)]))[0]
    assert_same(h.numpy(), ref)
    np.testing.assert_allclose(gh.numpy(), np.cos(ref), rtol=1e-6)
    np.testing.assert_allclose(gx.numpy(), np.cos(ref) * ref, rtol=1e-6)

# -- 9. threads ------------------------------------------------------------------------------------------------

def test_threads_each_with_their_own_lazy_tape():
    n_iter = 25
    rng = np.random.default_rng(8)
    data = [[_rand(rng, 6) for _ in range(n_iter)] for _ in range(2)]

    def step(xv, k):
        x = tj.constant(xv)
        with tj.GradientTape() as t:
            t.watch(x)
            h = tnp.tanh(x * (1.0 + k))
            y = tnp.sum(h * tnp.exp(x)) + tnp.mean(h)
            kind = type(y)
        return kind, as_np([y, t.gradient(y, x)])

    refs = [[eager(step, xv, k)[1] for xv in data[k]] for k in range(2)]
    errors, kinds = [], [[], []]
    barrier = threading.Barrier(2)

    def worker(k):
        try:
            _settings(replay_=k == 1)  # tj.config is per thread: set it here too
            barrier.wait()
            for i, xv in enumerate(data[k]):
                kind, got = step(xv, k)
                kinds[k].append(kind)
                assert_same(got, refs[k][i])
        except BaseException as e:  # noqa: B902 -- reported in the main thread
            errors.append(e)
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert not errors, errors
    assert kinds[0] == [LazyTensor] * n_iter and kinds[1] == [LazyTensor] * n_iter


def test_threads_same_structure_with_replay():
    n_iter = 20
    rng = np.random.default_rng(9)
    data = [[_rand(rng, 5) for _ in range(n_iter)] for _ in range(2)]

    def step(xv):
        x = tj.constant(xv)
        with tj.GradientTape() as t:
            t.watch(x)
            y = tnp.sum(tnp.sin(x * 1.3) * x)
        return as_np([y, t.gradient(y, x)])
    refs = [[eager(step, xv) for xv in d] for d in data]
    errors = []
    barrier = threading.Barrier(2)

    def worker(k):
        try:
            _settings(replay_=True)
            barrier.wait()
            for i, xv in enumerate(data[k]):
                assert_same(step(xv), refs[k][i])
        except BaseException as e:  # noqa: B902
            errors.append(e)
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert not errors, errors


def test_pending_tensor_read_from_another_thread():
    x = tj.constant(np.linspace(-1, 1, 7).astype(np.float32))
    with tj.GradientTape() as t:
        t.watch(x)
        y = tnp.exp(x) * 2.0
        assert pending(y)
        box = []
        th = threading.Thread(target=lambda: box.append(y.numpy()))
        th.start()
        th.join(30)
        loss = tnp.sum(y)
    ref = eager(lambda: (tnp.exp(x) * 2.0).numpy())
    assert_same(box[0], ref)
    assert_same(t.gradient(loss, x).numpy(), ref)


# -- 10. exceptions --------------------------------------------------------------------------------------------

def test_exception_inside_tape_leaves_no_tape_active_and_tensors_readable():
    x = tj.constant(np.linspace(-1, 1, 5).astype(np.float32))
    with pytest.raises(RuntimeError, match="boom"):
        with tj.GradientTape() as t:
            t.watch(x)
            y = tnp.exp(x)
            z = tnp.sum(y * y)
            assert pending(y) and pending(z)
            raise RuntimeError("boom")
    assert not tape_set.current().tapes
    after = tnp.exp(x)
    assert type(after) is Tensor           # no tape: nothing is deferred
    assert_same(y.numpy(), eager(lambda: tnp.exp(x).numpy()))
    assert_same(z.numpy(), eager(lambda: tnp.sum(tnp.exp(x) * tnp.exp(x)).numpy()))
    # the tape recorded until the exception: its gradient still works (as TF)
    assert_same(t.gradient(z, x).numpy(), eager(lambda: _exp_sq_grad(x)))


def _exp_sq_grad(x):
    with tj.GradientTape() as t:
        t.watch(x)
        y = tnp.exp(x)
        z = tnp.sum(y * y)
    return t.gradient(z, x).numpy()


def test_exception_with_replay_keeps_later_steps_correct():
    tj.config.replay = True
    rng = np.random.default_rng(10)

    def step(xv, fail):
        x = tj.constant(xv)
        with tj.GradientTape() as t:
            t.watch(x)
            y = tnp.sum(tnp.tanh(x) * x)
            if fail:
                tnp.matmul(x, tj.constant(np.ones((3, 3), np.float32)))   # shape error mid-tape
        return as_np([y, t.gradient(y, x)])
    for i in range(6):
        xv = _rand(rng, 4)
        if i % 2:
            with pytest.raises(TypeError):
                step(xv, True)
            assert not tape_set.current().tapes
        assert_same(step(xv, False), eager(step, xv, False))


def test_persistent_tape_usable_after_failed_gradient():
    tj.config.replay = True
    x = tj.constant(np.linspace(-1, 1, 5).astype(np.float32))

    def run(fail):
        with tj.GradientTape(persistent=True) as t:
            t.watch(x)
            h = tnp.tanh(x)
            y = h * 3.0
            s = tnp.sum(y)
            kinds = (type(h), pending(y))
        if fail:
            with pytest.raises(ValueError):
                t.gradient(y, x, output_gradients=tj.constant(np.ones(4, np.float32)))
            with pytest.raises(ValueError):
                t.gradient([y, s], x, output_gradients=[None])
            assert pending(y)
        g1 = t.gradient(y, x, output_gradients=tj.constant(np.arange(5, dtype=np.float32)))
        g2 = t.gradient(s, [x, h])
        return kinds, as_np([g1, g2, y, s])
    kinds, got = run(True)
    assert kinds == (LazyTensor, True)
    assert_same(got, eager(run, False)[1])


# -- bugs found while writing these tests ---------------------------------------------------------------

@pytest.mark.parametrize("recorded_inside", [False, True])
def test_check_numerics_still_checks_once_a_structure_is_replayed(recorded_inside):
    """tj.debug.check_numerics must raise at the first NaN/Inf of a backward kernel on every step, also
    once the tape's structure recurred and replay would run it as one compiled program."""
    tj.config.replay = True
    for step in range(4):
        x = tj.constant(np.array([0.0, 1.0 + step], np.float32))     # sqrt'(0) = inf
        with (tj.debug.check_numerics() if recorded_inside else contextlib.nullcontext()):
            with tj.GradientTape() as t:
                t.watch(x)
                s = tnp.sum(tnp.sqrt(x) * 2.0)
        with tj.debug.check_numerics():
            with pytest.raises(FloatingPointError, match="sqrt"):
                t.gradient(s, x)


_np_sin = tj.op(lambda a: jax.pure_callback(lambda v: np.sin(v).astype(v.dtype),
                                            jax.ShapeDtypeStruct(a.shape, a.dtype), a), name="lazy_test_np_sin")


def test_op_jax_cannot_differentiate_runs_on_an_unwatched_input_as_in_eager():
    """An op whose function JAX cannot differentiate (a pure_callback), applied inside a tape to a tensor
    the tape does not watch, is not recorded: eager runs it. Deferring it must not make it fail."""
    x = tj.constant(np.linspace(0, 1, 4).astype(np.float32))
    d = tj.constant(np.linspace(-1, 1, 4).astype(np.float32))

    def run():
        with tj.GradientTape() as t:
            t.watch(x)
            c = _np_sin(d)
            y = tnp.sum(x * c)
        return as_np([c, y, t.gradient(y, x)])
    ref = eager(run)
    assert_same(run(), ref)


@pytest.mark.parametrize("scalar", [2.0, 0.0, -0.0, float("nan")])
def test_python_scalar_arguments_are_deferred_like_any_scalar(scalar):
    """``x * 2.0`` is deferred; ``x * 0.0``, ``tnp.maximum(x, 0.0)``, ``tnp.where(m, x, 0.0)`` (relu, masks,
    clip) must be too, or the tape's trace breaks and a training step never runs as one program."""
    x = tj.constant(np.array([-1.5, -0.0, 0.0, 2.0], np.float32))

    def run():
        with tj.GradientTape() as t:
            t.watch(x)
            outs = [x * scalar, tnp.maximum(x, scalar), tnp.where(x > 0, x, scalar), x - scalar]
            kinds = [type(o) for o in outs]
            y = tnp.sum(outs[0] + outs[1] + outs[2] + outs[3])
        return kinds, as_np([outs, y, t.gradient(y, x)])
    kinds, got = run()
    assert_same(got, eager(run)[1])
    assert kinds == [LazyTensor] * 4, kinds


_EXIT_SCRIPT = textwrap.dedent("""
    import numpy as np
    import tapejax as tj
    tnp = tj.numpy
    tj.config.lazy, tj.config.replay, tj.config.replay_warmup = True, True, 2
    if hasattr(tj.config, "replay_background"):
        tj.config.replay_background = True
    for step in range(3):
        x = tj.constant(np.linspace(-1, 1, 64).astype(np.float32) + step)
        with tj.GradientTape() as t:
            t.watch(x)
            y = x
            for _ in range(60):
                y = tnp.tanh(y * 1.01 + 0.1)
            y = tnp.sum(y)
        g = t.gradient(y, x)
    print("done", float(np.sum(g.numpy())))
""")


def test_process_exits_cleanly_while_a_replay_program_compiles():
    """A script whose last step started compiling a replay program (in the background, the default)
    must still exit with status 0, not abort in XLA at interpreter shutdown."""
    proc = subprocess.run([sys.executable, "-c", _EXIT_SCRIPT], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, (proc.returncode, proc.stdout[-500:], proc.stderr[-1500:])
    assert proc.stdout.startswith("done")


def test_ops_past_replay_max_ops_run_at_once_and_the_gradient_is_unchanged():
    # A tape longer than replay_max_ops is never replayed: deferring its later ops would only delay them.
    x0 = tj.constant(np.linspace(-1, 1, 8).astype(np.float32))

    def run():
        with tj.GradientTape() as tape:
            tape.watch(x0)
            xs = [x0]
            for _ in range(30):
                xs.append(tnp.sin(xs[-1]))
            s = tnp.sum(xs[-1])
        return tape, xs, tape.gradient(s, x0)

    with mode(False):
        _, _, ref = run()
    old = tj.config.replay_max_ops
    tj.config.replay_max_ops = 10
    try:
        with mode(True, True):
            for _ in range(4):  # past the warm-up: a program would exist if the tape were short enough
                tape, xs, g = run()
    finally:
        tj.config.replay_max_ops = old
    assert type(xs[1]) is LazyTensor
    assert [type(x) for x in xs[12:]] == [Tensor] * len(xs[12:])
    assert "replay_max_ops" in tape.last_replay, tape.last_replay
    np.testing.assert_array_equal(g.numpy(), ref.numpy())


def test_a_step_past_replay_max_ops_keeps_no_output_nothing_can_read():
    # Past the limit the step's pending ops run at once; each output whose tensor is dead and whose uses all ran
    # goes (as a strictly eager tape keeps none), while a live tensor's value stays readable and the gradient,
    # first and second order (the tape's gradient taken under a second tape), is the strictly eager one.
    from tapejax.deferred.lazy import Node
    x0 = tj.constant(np.linspace(-1, 1, 8).astype(np.float32))

    def run():
        with tj.GradientTape() as tape:
            tape.watch(x0)
            x = x0
            kept = None
            for i in range(20):
                x = tnp.tanh(x * 1.01 + 0.1)
                if i == 3:
                    kept = x  # alive through the step: its value must stay
            nodes = [e for e in tape._tape.op_tape.values() if type(e) is Node]
            s = tnp.sum(x * x)
        with tj.GradientTape() as outer:
            outer.watch(x0)
            g = tape.gradient(s, x0)
            gs = tnp.sum(g * g)
        return s, kept, nodes, g, outer.gradient(gs, x0)

    with mode(False):
        s_ref, kept_ref, _, g_ref, h_ref = run()
    old = tj.config.replay_max_ops
    tj.config.replay_max_ops = 30
    try:
        with mode(True, True):
            s, kept, nodes, g, h = run()
    finally:
        tj.config.replay_max_ops = old
    assert len(nodes) == 29  # the deferred ops (the watch is one more token; the rest ran at once)
    holding = [n for n in nodes if n.values is not None]
    # the outputs alive when the step passed the limit (at iteration 9's tanh): iteration 3's tanh (``kept``),
    # iteration 8's (still ``x``) and iteration 9's add (tanh's argument); not one per op
    assert len(holding) == 3, len(holding)
    assert type(kept) is LazyTensor
    for got, want in ((kept, kept_ref), (s, s_ref), (g, g_ref), (h, h_ref)):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_a_pending_output_no_gradient_reached_is_still_readable_after_the_gradient():
    # The gradient's sweep lets go of each op it passes; an op whose output has no path to the sources (here a
    # tj.function returning a stop_gradient value) did not run, and its value is read after the gradient.
    x = tj.constant(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    g = tj.function(lambda a: tj.stop_gradient(a) * 2.0)
    with tj.config.override(lazy=True), tj.GradientTape() as tape:
        tape.watch(x)
        y = g(x)
    assert tape.gradient(y, x) is None
    np.testing.assert_array_equal(y.numpy(), 2 * np.arange(6.0).reshape(2, 3))


def test_zeros_like_of_a_deferred_value_leaves_it_pending():
    # zeros_like / ones_like read their argument's placement (a value sharded over several devices keeps its
    # sharding, as jnp's): of a deferred value that read ran the pending op, one eager dispatch per call
    x = tj.constant([1.0, 2.0])
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.tanh(x)
        z, o = tnp.zeros_like(y), tnp.ones_like(y)
        assert pending(y) and pending(z) and pending(o)
        s = tnp.sum(y * o + z)
    np.testing.assert_allclose(tape.gradient(s, x).numpy(), 1 - np.tanh([1.0, 2.0]) ** 2, rtol=1e-6)
