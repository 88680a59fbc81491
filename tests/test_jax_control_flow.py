"""JAX control flow (jax.lax.cond / fori_loop / while_loop) and other plain JAX calls on tj Tensors inside a
tj.function: never a silent None (API.md, "Errors users get").

TF's tf.cond / tf.while_loop give real gradients. Here an outer GradientTape / ForwardAccumulator over the
tj.function call differentiates the compiled program (the JAX call included, tapejax's rules inside it);
tj.gradients, tj.differentiate and tapes inside the function sweep the recorded ops, which have no path
through a plain JAX call: they warn (UserWarning, naming the line and the fix).
"""
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj


def _cond(x):
    return jax.lax.cond(x > 0.0, lambda v: v * 2.0, lambda v: v * 3.0, x)


def test_outer_tape_through_lax_cond_in_function():
    # TF: tf.cond(x > 0, lambda: x * 2., lambda: x * 3.) under a tape over a tf.function: 2.0 (x > 0), 3.0
    f = tj.function(_cond)
    for x0, want in ((1.0, 2.0), (-1.0, 3.0)):
        x = tj.constant(x0)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with tj.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            g = tape.gradient(y, x)
        assert g is not None
        np.testing.assert_allclose(g.numpy(), want)


def test_outer_tape_through_fori_loop_in_function():
    # TF: tf.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, v * 2.), (0, x)) -> d v / d x = 4.0
    f = tj.function(lambda x: jax.lax.fori_loop(0, 2, lambda i, v: v * 2.0, x))
    x = tj.constant(1.5)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(y.numpy(), 6.0)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 4.0)


def test_outer_accumulator_through_while_loop_on_variable():
    v = tj.Variable(1.5)
    f = tj.function(lambda: jax.lax.while_loop(lambda a: (a < 10.0).value, lambda a: a * 2.0, v))
    with tj.ForwardAccumulator(v, tj.constant(1.0)) as acc:
        y = f()
    np.testing.assert_allclose(y.numpy(), 12.0)
    np.testing.assert_allclose(acc.jvp(y).numpy(), 8.0)  # 1.5 -> 3 -> 6 -> 12: three doublings
    # JAX has no reverse mode for a while_loop with a dynamic trip count: an error naming the op, never None
    with tj.GradientTape() as tape:
        y = f()
    with pytest.raises(LookupError, match="function:"):
        tape.gradient(y, v)


def test_outer_tapes_second_order_through_jnp_in_function():
    f = tj.function(lambda x: tj.numpy.multiply(jnp.sin(x), 1.0))  # a Tensor made from a raw array
    x = tj.constant(0.5)
    with tj.GradientTape() as t2:
        t2.watch(x)
        with tj.GradientTape() as t1:
            t1.watch(x)
            y = f(x)
        g = t1.gradient(y, x)
    np.testing.assert_allclose(g.numpy(), np.cos(0.5), rtol=1e-6)
    np.testing.assert_allclose(t2.gradient(g, x).numpy(), -np.sin(0.5), rtol=1e-6)


def test_jit_inside_function_under_outer_tape():
    f = tj.function(lambda x: jax.jit(lambda a: a * a)(x))
    x = tj.constant(0.5)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 1.0)


def test_unconnected_input_stays_none_next_to_plain_jax():
    # TF's None for an input no output depends on, also when another path went through jax.lax.cond
    f = tj.function(lambda x, z: (_cond(x), z * 3.0))
    a, b = tj.constant(1.0), tj.constant(2.0)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        p, q = f(a, b)
    ga, gb = tape.gradient(p, [a, b])
    np.testing.assert_allclose(ga.numpy(), 2.0)
    assert gb is None
    ga, gb = tape.gradient(q, [a, b])
    assert ga is None
    np.testing.assert_allclose(gb.numpy(), 3.0)


def test_tj_gradients_through_lax_cond_warns():
    @tj.function
    def f(x):
        return tj.gradients(_cond(x), x)
    with pytest.warns(UserWarning, match=r"tj.gradients cannot see the path.*jax.lax.cond.*tj.op"):
        g = f(tj.constant(1.0))
    assert g == [None]


def test_tj_gradients_through_jnp_sin_warns():
    @tj.function
    def f(x):
        return tj.gradients(jnp.sin(x), x)
    with pytest.warns(UserWarning, match=r"jnp.sin\(x\)"):
        f(tj.constant(1.0))


def test_tape_inside_function_through_lax_cond_warns():
    @tj.function
    def f(x):
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = _cond(x)
        return tape.gradient(y, x)
    with pytest.warns(UserWarning, match="plain JAX function"):
        f(tj.constant(1.0))


def test_eager_lax_cond_under_tape_warns():
    x = tj.constant(1.0)
    with pytest.warns(UserWarning, match="plain JAX function"):
        with tj.GradientTape() as tape:
            tape.watch(x)
            _cond(x)


def test_tj_differentiate_through_jnp_warns():
    with pytest.warns(UserWarning, match="tj.differentiate cannot see the path"):
        tj.differentiate(lambda x: jnp.sin(x) * 2.0, tj.constant(0.5))


def test_no_warning_where_no_gradient_is_lost():
    @tj.function
    def f(x, n):
        with tj.stop_recording():
            jnp.sin(x)            # not recorded: no path is lost
        jnp.sum(n)                # an integer tensor carries no gradient
        jnp.sin(x.value)          # an explicit raw value
        jnp.sin(tj.constant(2.0))  # a constant: not reached from xs
        return tj.gradients(x * 2.0, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = f(tj.constant(1.0), tj.constant([1, 2]))
    np.testing.assert_allclose(g[0].numpy(), 2.0)


def test_outer_tape_through_cond_branches_closing_over_tensors():
    f = tj.function(lambda x: jax.lax.cond(True, lambda: x * 2.0, lambda: x * 3.0))
    x = tj.constant(1.0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 2.0)

    @tj.function
    def g(x):
        return tj.gradients(jax.lax.cond(True, lambda: x * 2.0, lambda: x * 3.0), x)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g(x)
    assert len([w for w in caught if "tj.gradients cannot see" in str(w.message)]) == 1  # one per line


def test_outer_tape_through_scan_and_vmap_in_function():
    s = tj.function(lambda x: jax.lax.scan(lambda c, a: (c * a, c), x, tj.constant([1.0, 2.0, 3.0]))[0])
    x = tj.constant(1.0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = s(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 6.0)
    # tapejax's rules hold inside the JAX transform: maximum at a tie gives its whole gradient to the first argument
    v = tj.function(lambda x: tj.numpy.sum(jax.vmap(lambda a: tj.numpy.maximum(a, 0.0) + a)(x)))
    xv = tj.constant([0.0, 2.0])
    with tj.GradientTape() as tape:
        tape.watch(xv)
        y = v(xv)
    np.testing.assert_allclose(tape.gradient(y, xv).numpy(), [2.0, 2.0])  # jnp.maximum: 1.5 at the tie
