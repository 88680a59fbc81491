"""GradientTape.jacobian / batch_jacobian: values vs jax, pfor vs loop, errors, empty shapes, nesting."""
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from tapejax import numpy as tnp
from conftest import close


X0 = jax.random.normal(jax.random.PRNGKey(0), (2, 4), jnp.float32)
W0 = jax.random.normal(jax.random.PRNGKey(1), (4, 3), jnp.float32) * 0.5
V0 = jnp.array([0.3, -1.1, 0.8], jnp.float32)


def f_scalar(m, v):
    return m.sum(m.sin(v) * v ** 2)


def f_layer(m, x, w):
    return m.tanh(m.matmul(x, w)) * 2.0


PFOR = [True, False]


@pytest.mark.parametrize("pfor", PFOR)
def test_scalar_target(pfor):
    v = tj.constant(V0)
    with tj.GradientTape(persistent=not pfor) as tape:
        tape.watch(v)
        y = f_scalar(tnp, v)
    j = tape.jacobian(y, v, experimental_use_pfor=pfor)
    assert j.shape == (3,)
    close(j, jax.jit(jax.jacrev(lambda a: f_scalar(jnp, a)))(V0), rtol=1e-5)


@pytest.mark.parametrize("pfor", PFOR)
def test_vector_target_vector_source(pfor):
    v = tj.constant(V0)
    with tj.GradientTape(persistent=not pfor) as tape:
        tape.watch(v)
        y = tnp.sin(v) * v ** 2
    j = tape.jacobian(y, v, experimental_use_pfor=pfor)
    assert j.shape == (3, 3)
    close(j, jax.jit(jax.jacrev(lambda a: jnp.sin(a) * a ** 2))(V0), rtol=1e-5)


@pytest.mark.parametrize("pfor", PFOR)
def test_matrix_target_list_of_sources(pfor):
    x, w = tj.constant(X0), tj.constant(W0)
    with tj.GradientTape(persistent=not pfor) as tape:
        tape.watch([x, w])
        y = f_layer(tnp, x, w)
    jx, jw = tape.jacobian(y, [x, w], experimental_use_pfor=pfor)
    assert jx.shape == (2, 3, 2, 4) and jw.shape == (2, 3, 4, 3)
    wx, ww = jax.jit(jax.jacrev(lambda a, b: f_layer(jnp, a, b), argnums=(0, 1)))(X0, W0)
    close(jx, wx, rtol=1e-5, atol=1e-6)
    close(jw, ww, rtol=1e-5, atol=1e-6)


def test_dict_and_variable_sources():
    x = tj.constant(X0)
    w = tj.Variable(W0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = f_layer(tnp, x, w)
    out = tape.jacobian(y, {"x": x, "w": w})
    assert isinstance(out, dict) and set(out) == {"x", "w"}
    wx, ww = jax.jit(jax.jacrev(lambda a, b: f_layer(jnp, a, b), argnums=(0, 1)))(X0, W0)
    close(out["x"], wx, rtol=1e-5, atol=1e-6)
    close(out["w"], ww, rtol=1e-5, atol=1e-6)


def test_tuple_sources_keep_structure():
    x, w = tj.constant(X0), tj.constant(W0)
    with tj.GradientTape() as tape:
        tape.watch([x, w])
        y = f_layer(tnp, x, w)
    out = tape.jacobian(y, (x, w))
    assert isinstance(out, tuple) and len(out) == 2


def test_pfor_and_loop_agree():
    x, w = tj.constant(X0), tj.constant(W0)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch([x, w])
        y = f_layer(tnp, x, w)
    a = tape.jacobian(y, [x, w], experimental_use_pfor=True)
    b = tape.jacobian(y, [x, w], experimental_use_pfor=False)
    for p, q in zip(a, b):
        assert p.shape == q.shape
        close(p, q, rtol=1e-6, atol=1e-7)
    ba = tape.batch_jacobian(y, x, experimental_use_pfor=True)
    bb = tape.batch_jacobian(y, x, experimental_use_pfor=False)
    close(ba, bb, rtol=1e-6, atol=1e-7)


def test_pfor_is_one_vectorized_backward_pass():
    x, w = tj.constant(X0), tj.constant(W0)
    for pfor, want_calls in ((True, 1), (False, 6)):
        with tj.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = f_layer(tnp, x, w)
        calls = []
        real = tape.gradient

        def counting(*a, **k):
            calls.append(1)
            return real(*a, **k)
        tape.gradient = counting
        tape.jacobian(y, x, experimental_use_pfor=pfor)
        assert len(calls) == want_calls, (pfor, len(calls))


def test_loop_on_non_persistent_tape_raises():
    v = tj.constant(V0)
    with tj.GradientTape() as tape:
        tape.watch(v)
        y = v * 2.0
    with pytest.raises(RuntimeError):
        tape.jacobian(y, v, experimental_use_pfor=False)
    with tj.GradientTape() as tape:
        tape.watch(v)
        y2 = tnp.reshape(v * 2.0, (1, 3))
    with pytest.raises(RuntimeError):
        tape.batch_jacobian(y2, tnp.reshape(v, (1, 3)), experimental_use_pfor=False)


def test_non_persistent_tape_consumed_by_jacobian():
    v = tj.constant(V0)
    with tj.GradientTape() as tape:
        tape.watch(v)
        y = v * 3.0
    close(tape.jacobian(y, v), 3.0 * np.eye(3))
    with pytest.raises(RuntimeError):
        tape.jacobian(y, v)


@pytest.mark.parametrize("pfor", PFOR)
def test_zero_size_dimensions(pfor):
    # zero-size source and target
    e = tj.constant(jnp.zeros((0, 3), jnp.float32))
    with tj.GradientTape(persistent=not pfor) as tape:
        tape.watch(e)
        y = e * 2.0
    j = tape.jacobian(y, e, experimental_use_pfor=pfor)
    assert j.shape == (0, 3, 0, 3)
    # zero-size target from a non-empty source
    v = tj.constant(V0)
    with tj.GradientTape(persistent=not pfor) as tape:
        tape.watch(v)
        y = (v * 2.0)[:0]
    j = tape.jacobian(y, v, experimental_use_pfor=pfor)
    assert j.shape == (0, 3) and j.dtype == jnp.float32
    # zero-size source, non-empty target
    with tj.GradientTape(persistent=not pfor) as tape:
        tape.watch([e, v])
        y = v * 2.0 + tnp.sum(e)
    je, jv = tape.jacobian(y, [e, v], experimental_use_pfor=pfor, unconnected_gradients="zero")
    assert je.shape == (3, 0, 3)
    close(jv, 2.0 * np.eye(3))
    # batch_jacobian with an empty batch and with an empty feature dim
    with tj.GradientTape(persistent=not pfor) as tape:
        tape.watch(e)
        y = e * 2.0
    bj = tape.batch_jacobian(y, e, experimental_use_pfor=pfor)
    assert bj.shape == (0, 3, 3)
    x = tj.constant(X0)
    with tj.GradientTape(persistent=not pfor) as tape:
        tape.watch(x)
        y = x[:, :0]
    bj = tape.batch_jacobian(y, x, experimental_use_pfor=pfor)
    assert bj.shape == (2, 0, 4)


@pytest.mark.parametrize("pfor", PFOR)
def test_unconnected_none_and_zero(pfor):
    v = tj.constant(V0)
    u = tj.constant(X0)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch([v, u])
        y = v * 2.0
    jv, ju = tape.jacobian(y, [v, u], experimental_use_pfor=pfor)
    assert ju is None
    close(jv, 2.0 * np.eye(3))
    ju = tape.jacobian(y, u, unconnected_gradients=tj.UnconnectedGradients.ZERO, experimental_use_pfor=pfor)
    assert ju.shape == (3, 2, 4)
    close(ju, np.zeros((3, 2, 4)))
    with tj.GradientTape(persistent=True) as tape:
        tape.watch([u, v])
        yb = u * 3.0
    vb = tnp.reshape(tj.constant(jnp.arange(6, dtype=jnp.float32)), (2, 3))
    with tape:
        tape.watch(vb)
    # TF's batch_jacobian returns zeros (of the target's dtype) even with UnconnectedGradients.NONE
    zn = tape.batch_jacobian(yb, vb, experimental_use_pfor=pfor)
    assert zn.shape == (2, 4, 3)
    close(zn, np.zeros((2, 4, 3)))
    z = tape.batch_jacobian(yb, vb, unconnected_gradients="zero", experimental_use_pfor=pfor)
    assert z.shape == (2, 4, 3)
    close(z, np.zeros((2, 4, 3)))


def test_partially_connected_rows():
    # some target elements do not depend on the source: those rows are zero, not None
    v = tj.constant(V0)
    c = tj.constant([1.0, 2.0])
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(v)
        y = tnp.concatenate([v * v, c])
    for pfor in PFOR:
        j = tape.jacobian(y, v, experimental_use_pfor=pfor)
        want = jax.jit(jax.jacrev(lambda a: jnp.concatenate([a * a, jnp.array([1.0, 2.0])])))(V0)
        close(j, want)


@pytest.mark.parametrize("pfor", PFOR)
def test_batch_jacobian_vs_vmap_jacrev(pfor):
    x = tj.constant(X0)
    w = tj.constant(W0)
    with tj.GradientTape(persistent=not pfor) as tape:
        tape.watch(x)
        y = f_layer(tnp, x, w)
    bj = tape.batch_jacobian(y, x, experimental_use_pfor=pfor)
    assert bj.shape == (2, 3, 4)
    want = jax.jit(jax.vmap(jax.jacrev(lambda a: f_layer(jnp, a, W0))))(X0)
    close(bj, want, rtol=1e-5, atol=1e-6)


def test_batch_jacobian_higher_rank():
    x0 = jax.random.normal(jax.random.PRNGKey(3), (2, 2, 3), jnp.float32)
    x = tj.constant(x0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.sin(x) * tnp.sum(x, axis=2, keepdims=True)
    bj = tape.batch_jacobian(y, x)
    assert bj.shape == (2, 2, 3, 2, 3)
    f = lambda a: jnp.sin(a) * jnp.sum(a, axis=-1, keepdims=True)
    close(bj, jax.jit(jax.vmap(jax.jacrev(f)))(x0), rtol=1e-5, atol=1e-6)


def test_batch_jacobian_mismatched_first_dims_raises():
    x = tj.constant(X0)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tnp.reshape(x, (4, 2)) * 2.0
    with pytest.raises(ValueError):
        tape.batch_jacobian(y, x)
    with pytest.raises(ValueError):
        tape.batch_jacobian(y, x, experimental_use_pfor=False)


def test_hessian_via_jacobian_of_gradient():
    v = tj.constant(V0)
    for pfor in PFOR:
        with tj.GradientTape(persistent=not pfor) as outer:
            outer.watch(v)
            with tj.GradientTape() as inner:
                inner.watch(v)
                y = f_scalar(tnp, v)
            g = inner.gradient(y, v)
        h = outer.jacobian(g, v, experimental_use_pfor=pfor)
        assert h.shape == (3, 3)
        close(h, jax.jit(jax.hessian(lambda a: f_scalar(jnp, a)))(V0), rtol=1e-4, atol=1e-5)


def test_jacobian_inside_outer_tape_is_differentiable():
    v = tj.constant(V0)
    with tj.GradientTape() as outer:
        outer.watch(v)
        with tj.GradientTape() as inner:
            inner.watch(v)
            y = tnp.sin(v) * v ** 2
        j = inner.jacobian(y, v)
        s = tnp.sum(j * j)
    g = outer.gradient(s, v)

    def ref(a):
        jj = jax.jacrev(lambda b: jnp.sin(b) * b ** 2)(a)
        return jnp.sum(jj * jj)
    close(j, jax.jit(jax.jacrev(lambda b: jnp.sin(b) * b ** 2))(V0), rtol=1e-5)
    assert g is not None
    close(g, jax.jit(jax.grad(ref))(V0), rtol=1e-4, atol=1e-5)


def test_batch_jacobian_inside_outer_tape_is_differentiable():
    x = tj.constant(X0)
    w = tj.constant(W0)
    with tj.GradientTape() as outer:
        outer.watch(w)
        with tj.GradientTape() as inner:
            inner.watch(x)
            y = f_layer(tnp, x, w)
        bj = inner.batch_jacobian(y, x)
        s = tnp.sum(bj ** 2)
    g = outer.gradient(s, w)

    def ref(b):
        jj = jax.vmap(jax.jacrev(lambda a: f_layer(jnp, a, b)))(X0)
        return jnp.sum(jj ** 2)
    close(g, jax.jit(jax.grad(ref))(W0), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("pfor", [False, True])
@pytest.mark.parametrize("unconnected", ["zero", "none"])
def test_variable_source_reads_as_tf(pfor, unconnected):
    # TF 2.21 inside a persistent tape's context: jacobian without pfor reads an unconnected Variable source
    # (each row's gradient builds zeros_like(variable) with 'zero'), with pfor it does not (the rows are traced);
    # batch_jacobian always reads the source (array_ops.shape(source)); a read is watched
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (jacobians inside the context of a persistent tape)
        v = tj.Variable([1.0, 2.0, 3.0])
        x = tj.constant([1.0, 2.0, 3.0])
        with tj.GradientTape(persistent=True) as tape:
            tape.watch(x)
            tape.jacobian(x, v, unconnected_gradients=unconnected, experimental_use_pfor=pfor)
            read = tape.watched_variables()
        assert len(read) == (1 if not pfor and unconnected == "zero" else 0)
        v = tj.Variable([[1.0, 2.0, 3.0]])
        x = tj.constant([[1.0, 2.0, 3.0]])
        with tj.GradientTape(persistent=True) as tape:
            tape.watch(x)
            tape.batch_jacobian(x * 2.0, v, unconnected_gradients=unconnected, experimental_use_pfor=pfor)
            assert len(tape.watched_variables()) == 1


@pytest.mark.parametrize("pfor", [True, False])
def test_zero_size_target_gives_none_for_unconnected_sources(pfor):
    """TF 2.21 (pfor): the Jacobian of an empty target is None for a source it does not depend on (zeros were
    given for every source), zeros of the Jacobian's shape for one it does, zeros for all with
    unconnected_gradients='zero'. (TF's loop mode raises on an empty target; API.md makes it work.)"""
    x, w = tj.constant([1.0, 2.0, 3.0]), tj.constant([1.0, 2.0])
    with tj.GradientTape(persistent=True) as tape:
        tape.watch([x, w])
        y = (x * 2.0)[:0]
        empty = tnp.zeros((0, 2))
    jx, jw = tape.jacobian(y, [x, w], experimental_use_pfor=pfor)
    assert jx.shape == (0, 3) and jw is None
    assert tape.jacobian(empty, x, experimental_use_pfor=pfor) is None
    assert tape.jacobian(empty, x, unconnected_gradients="zero", experimental_use_pfor=pfor).shape == (0, 2, 3)
