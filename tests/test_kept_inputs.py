"""What a tape keeps of an op's inputs (issue "Lean recording").

An op one tape records strictly eagerly keeps only the inputs its backward reads, as TF's tape keeps only
the inputs and outputs an op's gradient function uses: tanh keeps its output, add keeps neither input,
``x * 2.0`` keeps the 2.0. The inputs let go die with the user's last reference, while the tape is still
open. The gradients, higher-order gradients and TF's None for values an outer tape cannot connect are
those of TF, checked here against jax's derivatives and against TF 2.21's results.
"""
import gc
import weakref

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from tapejax.ops.core import registry

tnp = tj.numpy
X = np.array([0.3, -0.7, 1.2], np.float32)


@pytest.fixture(params=[False, True], ids=["strictly_eager", "deferred"])
def lazy(request):
    """Both recording paths: a deferred op run one by one gives its backward the same arguments."""
    with tj.config.override(lazy=request.param):
        yield request.param


@pytest.fixture
def strictly_eager():
    with tj.config.override(lazy=False):
        yield


def test_inputs_the_backward_never_reads_die_while_the_tape_is_open(strictly_eager):
    x = tj.constant(X)
    with tj.GradientTape() as tape:
        tape.watch(x)
        a = x * 2.0  # mul's gradient for x reads only the 2.0
        b = a + 1.0  # add's reads neither input
        y = tnp.tanh(b)  # tanh's reads its output only
        refs = [weakref.ref(a._value), weakref.ref(b._value)]
        del a, b
        gc.collect()
        assert [r() for r in refs] == [None, None]  # (both were kept alive by the ops reading them before)
        loss = tnp.sum(y)
    g = tape.gradient(loss, x)
    want = jax.grad(lambda v: jnp.sum(jnp.tanh(v * 2.0 + 1.0)))(X)
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-6)


def test_inputs_the_backward_reads_stay(strictly_eager):
    x, w = tj.constant(X), tj.constant(X[::-1].copy())
    with tj.GradientTape() as tape:
        tape.watch([x, w])
        a = tnp.sin(x)
        p = a * w  # mul reads both inputs for both gradients
        ref = weakref.ref(a._value)
        del a
        gc.collect()
        assert ref() is not None
        loss = tnp.sum(p)
    gx, gw = tape.gradient(loss, [x, w])
    np.testing.assert_allclose(gx.numpy(), np.cos(X) * X[::-1], rtol=1e-6)
    np.testing.assert_allclose(gw.numpy(), np.sin(X), rtol=1e-6)


@pytest.mark.parametrize("name,f", [
    ("tanh", lambda m, v: m.tanh(v * 2.0 + 1.0)),
    ("exp_sin", lambda m, v: m.exp(m.sin(v))),
    ("sigmoid", lambda m, v: 1.0 / (1.0 + m.exp(-(v * 3.0)))),
    ("log_square", lambda m, v: m.log(v * v + 1.0) + 0.5),
    ("sqrt", lambda m, v: m.sqrt(v + 2.0) - v),
])
def test_second_order_through_ops_that_let_inputs_go(name, f, lazy):
    """The backward of an op that let its input go is recorded as a function of its kept inputs and its
    outputs; a persistent tape taking a gradient inside its own context records it, and the gradient of
    that gradient goes through the op's recorded output (as TF's gradient functions read op outputs)."""
    x = tj.constant(X)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tnp.sum(f(tnp, x))
        g = tape.gradient(y, x)
    h = tape.gradient(g, x)
    want_g = jax.grad(lambda v: jnp.sum(f(jnp, v)))(X)
    want_h = jax.grad(lambda v: jnp.sum(jax.grad(lambda u: jnp.sum(f(jnp, u)))(v)))(X)
    np.testing.assert_allclose(g.numpy(), want_g, rtol=1e-5)
    np.testing.assert_allclose(h.numpy(), want_h, rtol=1e-5, atol=1e-6)


def test_nested_tapes_second_order_through_ops_that_let_inputs_go(lazy):
    x = tj.constant(X)
    f = lambda m, v: m.tanh(v * 2.0 + 1.0)
    with tj.GradientTape() as outer:
        outer.watch(x)
        with tj.GradientTape() as inner:
            inner.watch(x)
            y = tnp.sum(f(tnp, x))
        g = inner.gradient(y, x)
    h = outer.gradient(g, x)
    want = jax.grad(lambda v: jnp.sum(jax.grad(lambda u: jnp.sum(f(jnp, u)))(v)))(X)
    np.testing.assert_allclose(h.numpy(), want, rtol=1e-5)


def test_a_later_tape_connects_only_through_what_the_backward_reads(lazy):
    """TF 2.21 (tf.GradientTape, the same programs): a tape made after ``tanh`` was recorded and watching its
    input sees tanh's gradient read tanh's output, which it did not record: None; ``x * x``'s gradient
    reads x itself: 2."""
    x = tj.constant(X)
    with tj.GradientTape() as t1:
        t1.watch(x)
        y = tnp.tanh(x)
    with tj.GradientTape() as t2:
        t2.watch(x)
        g = t1.gradient(y, x)
    assert t2.gradient(g, x) is None
    with tj.GradientTape() as t1:
        t1.watch(x)
        y = x * x
    with tj.GradientTape() as t2:
        t2.watch(x)
        g = t1.gradient(y, x)
    np.testing.assert_allclose(t2.gradient(g, x).numpy(), [2.0, 2.0, 2.0])


@pytest.fixture
def tanh_rules():
    op = registry()["tanh"]
    saved = (op.fwd, op.bwd, op.jvp_rule)
    yield op
    op.set_backward(saved[0], saved[1])  # (set_backward drops the JVP rule: put it back)
    op.jvp_rule = saved[2]


def test_registering_a_gradient_after_recording_an_op_that_let_its_input_go_says_so(tanh_rules, strictly_eager):
    """TF looks an op's gradient function up when the gradient is computed; a tape that let go of an input
    the old rule did not read cannot run a new rule that may read it: a clear error, not a wrong number."""
    x = tj.constant(X)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.sum(tnp.tanh(x * 2.0))  # tanh's rule reads its output: its input (x * 2.0) goes

    @tj.RegisterGradient("tanh")
    def _(primals, outputs, cts):
        return (cts * primals[0] * 10,)
    with pytest.raises(ValueError, match="'tanh' after the op was recorded.*register the gradient before"):
        tape.gradient(y, x)
    with tj.GradientTape() as tape:  # recorded after the registration: the new rule
        tape.watch(x)
        y = tnp.sum(tnp.tanh(x * 2.0))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), X * 2.0 * 10 * 2.0, rtol=1e-6)


def test_an_op_whose_rule_did_not_change_keeps_its_residuals_after_another_registration(tanh_rules, lazy):
    x = tj.constant(X)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.sum(tnp.sin(x * 2.0) * 3.0)

    @tj.RegisterGradient("tanh")
    def _(primals, outputs, cts):
        return (cts * 0.0,)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.cos(X * 2.0) * 6.0, rtol=1e-6)


def test_a_replayed_step_makes_the_stand_ins_itself(replay_now):
    """A recurring strictly eager step is replayed as one program: the inputs its ops let go are zeros made
    inside the program (not one device array per op and step), with the op-by-op gradient (bit for bit:
    replay_exact)."""
    x = tj.constant(X)
    results = []
    with tj.config.override(lazy=False):
        for _ in range(4):
            with tj.GradientTape() as tape:
                tape.watch(x)
                y = tnp.sum(tnp.tanh(x * 2.0 + 1.0) * 3.0)
            results.append((tape.gradient(y, x).numpy(), tape.last_replay))
    assert results[0][1].startswith("op by op") and results[-1][1].startswith("replayed"), results
    np.testing.assert_array_equal(results[-1][0], results[0][0])
    want = jax.grad(lambda v: jnp.sum(jnp.tanh(v * 2.0 + 1.0) * 3.0))(X)
    np.testing.assert_allclose(results[-1][0], want, rtol=1e-6)


def test_a_rule_set_back_lets_inputs_go_again(tanh_rules, strictly_eager):
    op = tanh_rules
    saved = (op.fwd, op.bwd, op.jvp_rule)

    @tj.RegisterGradient("tanh")
    def _(primals, outputs, cts):
        return (cts * 0.0,)
    op.set_backward(saved[0], saved[1])
    op.jvp_rule = saved[2]
    test_inputs_the_backward_never_reads_die_while_the_tape_is_open(None)


ONES_2x3, ONES_F64 = np.ones((2, 3), np.float32), np.ones(3, np.float64)
COMMON_CASES = [  # (name, f of the watched x, the same with jax.numpy): ops whose first argument a tape lets go
    ("tanh", lambda x: tnp.tanh(x), jnp.tanh),
    ("times a constant", lambda x: x * 1.01, lambda x: x * 1.01),
    ("plus a constant", lambda x: x + 0.1, lambda x: x + 0.1),  # add's pass-through: the cotangent is the gradient
    ("minus a constant", lambda x: x - 0.1, lambda x: x - 0.1),
    ("plus a broadcast constant", lambda x: x + tj.constant(ONES_2x3), lambda x: x + ONES_2x3),  # summed over rows
    ("plus a float64 constant", lambda x: x + tj.constant(ONES_F64), lambda x: x + jnp.asarray(ONES_F64)),
    ("constant first", lambda x: 0.1 + 2.0 * x, lambda x: 0.1 + 2.0 * x),  # the general way
    ("float16", lambda x: tnp.tanh(x.astype(tnp.float16) * 1.5 + 0.25),
     lambda x: jnp.tanh(x.astype(jnp.float16) * 1.5 + 0.25)),
    ("chain", lambda x: tnp.tanh(tnp.tanh(x * 1.01 + 0.1) * 1.01 + 0.1),
     lambda x: jnp.tanh(jnp.tanh(x * 1.01 + 0.1) * 1.01 + 0.1)),
]


@pytest.mark.parametrize("name,f,g", COMMON_CASES, ids=[c[0] for c in COMMON_CASES])
def test_the_backward_of_an_op_that_let_its_first_argument_go_is_jaxs(name, f, g):
    """The backward's common case (an op that ran, one cotangent, its first argument let go and the second
    kept, as in ``tanh(x * 1.01 + 0.1)``) gives jax's gradient, and bit for bit the deferred path's, whose ops
    take the general way; a pass-through whose cotangent has another shape or dtype (broadcast, promoted)
    takes the general way too. Twice per setting: the second time the op's kernel is the one asked last."""
    x = tj.constant(X)
    grads = {}
    for lazy in (False, True):
        with tj.config.override(lazy=lazy, replay=False):
            for k in range(2):
                with tj.GradientTape() as tape:
                    tape.watch(x)
                    s = tnp.sum(f(x).astype(tnp.float32) ** 2)
                grads[lazy, k] = tape.gradient(s, x).numpy()
    for k in range(2):
        np.testing.assert_array_equal(grads[False, k], grads[True, k])
    want = jax.grad(lambda v: jnp.sum(g(v).astype(jnp.float32) ** 2))(X)
    np.testing.assert_allclose(grads[False, 0], want, rtol=1e-2 if name == "float16" else 1e-6)
