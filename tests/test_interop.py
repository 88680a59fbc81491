"""Tensors and Variables where NumPy and JAX users expect them (API.md "Interoperability")."""
import importlib.util
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy


# -- NumPy functions ---------------------------------------------------------------------------------

@pytest.mark.parametrize("fn", [np.mean, np.sum, np.max, np.min, np.std, np.var, np.prod, np.amax])
@pytest.mark.parametrize("make", [tj.constant, tj.Variable], ids=["tensor", "variable"])
def test_numpy_reductions_give_numpy_results(fn, make):
    m = np.array([[1.0, 2.0], [3.0, 5.0]], np.float32)
    t = make(m)
    r = fn(t)
    assert isinstance(r, np.generic) and not isinstance(r, (tj.Tensor, tj.Variable))
    np.testing.assert_allclose(r, fn(m), rtol=1e-6)
    r0 = fn(t, axis=0)
    assert isinstance(r0, np.ndarray)
    np.testing.assert_allclose(r0, fn(m, axis=0), rtol=1e-6)


def test_numpy_functions_take_lists_of_tensors_and_return_ndarrays():
    a, b = tj.constant([1.0, 2.0]), tj.Variable([3.0, 4.0])
    s = np.stack([a, b])
    assert isinstance(s, np.ndarray) and s.shape == (2, 2)
    r = np.reshape(a, (2, 1))
    assert isinstance(r, np.ndarray) and r.shape == (2, 1)
    assert np.shape(a) == (2,) and np.ndim(b) == 1
    np.testing.assert_allclose(np.concatenate([a, b]), [1, 2, 3, 4])


def test_numpy_arithmetic_with_a_tensor_on_the_right_still_gives_a_tensor():
    r = np.ones(2, np.float32) * tj.constant([2.0, 3.0])
    assert isinstance(r, tj.Tensor)


# -- format and scalar numpy() --------------------------------------------------------------------------

def test_format_spec_on_scalar_tensor_and_variable():
    assert f"{tj.constant(1.23456):.4f}" == "1.2346"
    assert f"{tj.Variable(2.5):>6.2f}" == "  2.50"
    assert f"{tj.constant(7):03d}" == "007"
    assert f"{tj.constant([1.0])}" == "[1.]"  # no spec: the NumPy value's text, as TF (f"{tf.constant([1.0])}")


def test_format_spec_on_non_scalar_names_the_shape_and_the_fix():
    with pytest.raises(TypeError, match=r"scalar tj.Tensor.*shape \(2,\).*index one element"):
        f"{tj.constant([1.0, 2.0]):.3f}"


def test_format_of_a_variable_inside_a_tape_is_not_a_recorded_read():
    v = tj.Variable(1.5)
    with tj.GradientTape() as tape:
        s = f"{v:.1f}"
    assert s == "1.5" and tape.watched_variables() == ()


def test_scalar_numpy_is_a_numpy_scalar_and_arrays_stay_ndarrays():
    s = tj.constant(1.5).numpy()
    assert type(s) is np.float32 and s == 1.5
    assert type(tj.constant(3).numpy()) is np.int32
    assert type(tj.Variable(2.0).numpy()) is np.float32
    assert isinstance(tj.constant([1.0]).numpy(), np.ndarray)
    assert isinstance(np.asarray(tj.constant(1.0)), np.ndarray)  # __array__ still gives an array


# -- name= ----------------------------------------------------------------------------------------------

def test_name_is_accepted_by_constant_convert_to_tensor_and_variable():
    np.testing.assert_allclose(tj.constant(1.0, name="c").numpy(), 1.0)
    np.testing.assert_allclose(tj.convert_to_tensor([1.0], name="c").numpy(), [1.0])
    assert tj.Variable(1.0, name="w").name == "w:0"  # TF: "w:0"


def test_constant_takes_tf_shape():
    np.testing.assert_allclose(tj.constant(0.5, shape=[2, 3]).numpy(), np.full((2, 3), 0.5))
    assert tj.constant([1, 2, 3, 4], shape=(2, 2)).shape == (2, 2)
    with pytest.raises(ValueError, match="cannot take the shape"):
        tj.constant([1, 2, 3], shape=(2, 2))


def test_ops_accept_name_and_ignore_it():
    a, b = tj.constant([1.0, 2.0]), tj.constant([3.0, 4.0])
    np.testing.assert_allclose(tnp.add(a, b, name="x").numpy(), [4, 6])
    np.testing.assert_allclose(tnp.sum(a, name="s").numpy(), 3.0)
    np.testing.assert_allclose(tnp.linalg.norm(a, name="n").numpy(), np.sqrt(5.0), rtol=1e-6)
    assert tnp.equal(a, b, name="eq").dtype == np.bool_
    np.testing.assert_allclose(tj.nn.relu(a, name="r").numpy(), [1, 2])
    assert tnp.reshape(a, (2, 1), name="r").shape == (2, 1)
    sq = tj.op(lambda x: x * x)
    with tj.GradientTape() as tape:
        tape.watch(a)
        y = sq(a, name="square")
    np.testing.assert_allclose(tape.gradient(y, a).numpy(), [2, 4])


# -- scalar Tensors as static arguments --------------------------------------------------------------------

def test_scalar_tensors_as_shapes_and_constant_values():
    g = tj.constant([1.0, 2.0, 3.0, 4.0])
    n = tnp.sum(tj.constant([2, 2]))  # an int scalar Tensor computed by an op
    assert tnp.reshape(g, [n, 1]).shape == (4, 1)
    assert tnp.reshape(g, (n // 2, -1)).shape == (2, 2)
    assert tnp.reshape(g, jnp.array([2, 2])).shape == (2, 2)  # a concrete jax array too
    p = tnp.pad(g, [[tj.constant(1), 0]], constant_values=tj.constant(9.0))
    np.testing.assert_allclose(p.numpy(), [9, 1, 2, 3, 4])
    np.testing.assert_allclose(tnp.sum(tnp.reshape(g, (2, 2)), axis=tj.constant(0)).numpy(), [4, 6])
    with tj.GradientTape() as tape:
        tape.watch(g)
        y = tnp.sum(tnp.reshape(g, [n, 1]) * 2.0)
    np.testing.assert_allclose(tape.gradient(y, g).numpy(), [2, 2, 2, 2])


# -- plain JAX calls on values a tape follows ---------------------------------------------------------------

def test_plain_jnp_call_on_a_watched_tensor_warns_and_explain_gradient_says_why():
    x = tj.constant([1.0, 2.0])
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        with pytest.warns(UserWarning, match=r"plain JAX function .*jnp\.sin\(x\).*tj\.numpy.*tj\.op"):
            y = jnp.sin(x)  # noqa: the line the warning names
        loss = tnp.sum(y)
    assert isinstance(y, jax.Array)
    assert tape.gradient(loss, x) is None
    why = tj.debug.explain_gradient(tape, loss, x)
    assert why.reason == why.NO_PATH
    assert "plain JAX function" in why.message and "jnp.sin(x)" in why.message
    assert "outside" not in why.message
    raw = tj.debug.explain_gradient(tape, jnp.sum(y), x)  # the target itself is a raw jax.Array
    assert raw.reason == raw.NO_PATH and "not a tj.Tensor" in raw.message and "jnp.sin(x)" in raw.message


def test_plain_jnp_call_on_a_recorded_tensor_and_a_variable_warn():
    x = tj.constant([1.0, 2.0])
    v = tj.Variable([0.5, 0.5])
    with tj.GradientTape() as tape:
        tape.watch(x)
        h = x * 2.0  # recorded (a deferred tensor in lazy mode)
        with pytest.warns(UserWarning, match="silently dropped"):
            jnp.tanh(h)
        with pytest.warns(UserWarning, match="tj.Variable"):
            jnp.exp(v)
        with pytest.warns(UserWarning, match="plain JAX function"):
            jax.jit(lambda a: a * 2)(x)


def test_warning_is_once_per_call_site_and_absent_where_no_gradient_is_lost():
    x = tj.constant([1.0, 2.0])
    other = tj.constant([3.0])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("default")
        with tj.GradientTape() as tape:
            tape.watch(x)
            for _ in range(3):
                jnp.cos(x)
            jnp.cos(other)  # not watched: nothing is lost
            jnp.asarray(x)  # an explicit conversion asks for the raw value
            tnp.sin(x)  # tj ops flatten nothing
        jnp.cos(x)  # no tape
    assert len([m for m in w if "plain JAX function" in str(m.message)]) == 1


# -- Variables in the JAX ecosystem --------------------------------------------------------------------------

def test_jnp_functions_and_jax_jit_read_variables():
    v = tj.Variable([1.0, 2.0])
    np.testing.assert_allclose(np.asarray(jnp.sin(v)), np.sin([1.0, 2.0]), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jnp.dot(v, v)), 5.0)
    f = jax.jit(lambda a: a * 2.0)
    out = f(v)
    assert isinstance(out, tj.Tensor)  # the Variable arrives as a Tensor of its value: read, not captured
    np.testing.assert_allclose(out.numpy(), [2, 4])
    v.assign([3.0, 4.0])
    np.testing.assert_allclose(f(v).numpy(), [6, 8])  # the value at the call
    np.testing.assert_allclose(np.asarray(jax.grad(lambda a: jnp.sum(a * a))(v)), [6, 8])


def test_variables_are_pytree_nodes_whose_leaf_is_the_value():
    v1, v2 = tj.Variable([1.0, 2.0]), tj.Variable(3.0)
    leaves = jax.tree_util.tree_leaves({"w": v1, "b": v2})
    assert all(isinstance(l, jax.Array) for l in leaves)
    zeros = jax.tree_util.tree_map(jnp.zeros_like, [v1, v2])  # what an optimizer's init does
    assert all(isinstance(z, tj.Tensor) for z in zeros)
    # An update step in optax's style: gradients (Tensors) against state made from the Variables.
    grads = [tj.constant([0.5, 0.5]), tj.constant(1.0)]
    mom = jax.tree_util.tree_map(lambda m, g: 0.9 * m + g, zeros, grads)
    np.testing.assert_allclose(mom[0].numpy(), [0.5, 0.5])


def test_lax_functions_take_tensors_and_variables_and_warn_under_a_tape():
    # as jax.numpy's functions (JAX 0.10 no longer converts them through __jax_array__ in jax.lax)
    np.testing.assert_allclose(np.asarray(jax.lax.add(tj.constant(1.0), tj.Variable(2.0))), 3.0)
    np.testing.assert_allclose(np.asarray(jax.lax.sin(tj.constant([0.5]))), np.sin([0.5]), rtol=1e-6)
    x = tj.constant(1.0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        with pytest.warns(UserWarning, match="plain JAX function"):
            jax.lax.sin(x)


@pytest.mark.parametrize("transform", [jax.grad, jax.value_and_grad])
def test_jax_grad_of_a_function_returning_a_tensor_says_to_return_its_value(transform):
    f = lambda x: tj.numpy.sum(tj.numpy.sin(x))  # noqa: E731
    with pytest.raises(TypeError) as info:
        transform(f)(jnp.arange(3.0))
    # jax's TypeError, caused by tapejax's, which names the fix (jax's own said "register it as a pytree")
    assert ".value" in str(info.value.__cause__) and "tj.Tensor" in str(info.value.__cause__)
    g = transform(lambda x: f(x).value)(jnp.arange(3.0))
    np.testing.assert_allclose(np.asarray(g[1] if transform is jax.value_and_grad else g), np.cos(np.arange(3.0)),
                               rtol=1e-6)


@pytest.mark.skipif(importlib.util.find_spec("optax") is None,
                    reason="optax is not installed in this environment (pip install optax to run this test)")
def test_optax_takes_a_pytree_of_variables():
    import optax
    for tx, expected in [(optax.sgd(0.1), [[0.8, 1.6], 2.4]),
                         (optax.sgd(0.1, momentum=0.9), [[0.8, 1.6], 2.4]),  # state made from the Variables
                         (optax.adam(0.1), [[0.9, 1.9], 2.9])]:
        v1, v2 = tj.Variable([1.0, 2.0]), tj.Variable(3.0)
        state = tx.init([v1, v2])
        with tj.GradientTape() as tape:
            loss = tnp.sum(v1 * v1) + v2 * v2
        grads = tape.gradient(loss, [v1, v2])
        updates, state = tx.update(grads, state, params=[v1, v2])
        for v, u in zip([v1, v2], updates):
            v.assign_add(u)
        np.testing.assert_allclose(v1.numpy(), expected[0], rtol=1e-4)
        np.testing.assert_allclose(v2.numpy(), expected[1], rtol=1e-4)


@pytest.mark.skipif(importlib.util.find_spec("optax") is None,
                    reason="optax is not installed in this environment (pip install optax to run this test)")
@pytest.mark.parametrize("name", ["sgd_momentum", "adam", "adagrad"])
def test_optax_loop_on_variables_matches_optax_on_arrays(name):
    # init and update take the Variables; apply_updates takes their values (Tensors) and gives arrays.
    # (apply_updates(variables, updates) cannot work: JAX matches two trees' nodes by exact registered
    # type, and the updates are Tensors; README "From JAX".)
    import optax
    make = {"sgd_momentum": lambda: optax.sgd(0.1, momentum=0.9), "adam": lambda: optax.adam(0.1),
            "adagrad": lambda: optax.adagrad(0.1)}[name]
    w0, b0 = np.array([1.0, -2.0, 0.5], np.float32), np.float32(3.0)

    def grads_of(w, b):  # loss = sum(sin(w) * w) + b**2, by hand
        return [np.sin(w) + w * np.cos(w), 2 * b]

    tx = make()
    ref, state = [jnp.asarray(w0), jnp.asarray(b0)], None
    state = tx.init(ref)
    for _ in range(3):
        u, state = tx.update([jnp.asarray(g) for g in grads_of(*map(np.asarray, ref))], state, ref)
        ref = optax.apply_updates(ref, u)

    vs = [tj.Variable(w0), tj.Variable(b0)]
    tx = make()
    state = tx.init(vs)
    for _ in range(3):
        with tj.GradientTape() as tape:
            loss = tnp.sum(tnp.sin(vs[0]) * vs[0]) + vs[1] * vs[1]
        grads = tape.gradient(loss, vs)
        updates, state = tx.update(grads, state, vs)
        new = optax.apply_updates([v.value() for v in vs], updates)
        for v, n in zip(vs, new):
            v.assign(n)
    for v, r in zip(vs, ref):
        np.testing.assert_allclose(v.numpy(), np.asarray(r), rtol=1e-5, atol=1e-6)


# -- tj.op with pytree arguments -----------------------------------------------------------------------------

def test_op_takes_pytrees_and_differentiates_each_leaf():
    @tj.op
    def affine(params, xs):
        return jnp.sum(params["w"] * xs[0] + params["b"]) + jnp.sum(xs[1])

    w, b = tj.constant([1.0, 2.0]), tj.Variable(0.5)
    x0, x1 = tj.constant([3.0, 4.0]), jnp.ones(3)
    with tj.GradientTape() as tape:
        tape.watch([w, x0])
        y = affine({"w": w, "b": b}, [x0, x1])
    np.testing.assert_allclose(y.numpy(), 3 + 8 + 1.0 + 3)
    gw, gb, gx0 = tape.gradient(y, [w, b, x0])
    np.testing.assert_allclose(gw.numpy(), [3, 4])
    np.testing.assert_allclose(gb.numpy(), 2.0)
    np.testing.assert_allclose(gx0.numpy(), [1, 2])
    with tj.ForwardAccumulator(w, tj.constant([1.0, 0.0])) as acc:
        y = affine({"w": w, "b": b}, [x0, x1])
    np.testing.assert_allclose(acc.jvp(y).numpy(), 3.0)


def test_op_with_custom_vjp_returns_the_argument_structure():
    prod = tj.op(lambda d: d["a"] * d["b"],
                 vjp=lambda p, g: ({"a": g * p[0]["b"], "b": None},))
    a, b = tj.constant([1.0, 2.0]), tj.constant([3.0, 4.0])
    with tj.GradientTape() as tape:
        tape.watch([a, b])
        y = prod({"a": a, "b": b})
    ga, gb = tape.gradient(y, [a, b])
    np.testing.assert_allclose(ga.numpy(), [3, 4])
    assert gb is None


def test_op_keeps_lists_of_numbers_as_arrays():
    total = tj.op(lambda x: jnp.sum(x * x))
    np.testing.assert_allclose(total([1.0, 2.0]).numpy(), 5.0)
