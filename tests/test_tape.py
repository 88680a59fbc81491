"""GradientTape semantics, checked against TF's documented behaviour and jax.grad."""
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from tapejax import tape_set
from conftest import close

tnp = tj.numpy


X_NP = np.array([0.3, -1.2, 2.0], np.float32)


def f_jax(x):
    return jnp.sum(jnp.sin(x) * x * x + jnp.exp(0.5 * x))


def f_tj(x):
    return (tnp.sin(x) * x * x + tnp.exp(0.5 * x)).sum()


# -- basics --------------------------------------------------------------------------------------

def test_gradient_matches_jax():
    x = tj.constant(X_NP)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = f_tj(x)
    g = tape.gradient(y, x)
    assert isinstance(g, tj.Tensor) and g.shape == (3,) and g.dtype == jnp.float32
    close(g.numpy(), jax.grad(f_jax)(jnp.asarray(X_NP)))


def test_unwatched_constant_gives_none():
    x = tj.constant(X_NP)
    with tj.GradientTape() as tape:
        y = f_tj(x)
    assert tape.gradient(y, x) is None


def test_watch_nested_structures():
    a, b, c = tj.constant(1.0), tj.constant(2.0), tj.constant(3.0)
    v = tj.Variable(4.0)
    with tj.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch({"a": [a, (b,)], "c": c, "v": v})
        y = a * b * c * v
    ga, gb, gc, gv = tape.gradient(y, [a, b, c, v])
    close(ga.numpy(), 24.0)
    close(gb.numpy(), 12.0)
    close(gc.numpy(), 8.0)
    close(gv.numpy(), 6.0)
    assert tape.watched_variables() == (v,)


def test_watch_rejects_non_tensors():
    with tj.GradientTape() as tape:
        with pytest.raises((ValueError, TypeError)):
            tape.watch(np.ones(3))


# -- persistence -----------------------------------------------------------------------------------

def test_non_persistent_second_call_raises():
    x = tj.constant(2.0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    close(tape.gradient(y, x).numpy(), 4.0)
    with pytest.raises(RuntimeError):
        tape.gradient(y, x)


def test_persistent_many_calls():
    x = tj.constant(2.0)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    close(tape.gradient(y, x).numpy(), 4.0)
    close(tape.gradient(z, x).numpy(), 4 * 2.0 ** 3)
    close(tape.gradient(z, y).numpy(), 8.0)
    close(tape.gradient(y, x).numpy(), 4.0)


# -- higher order ----------------------------------------------------------------------------------

def test_nested_tapes_second_and_third_derivatives():
    x = tj.constant(X_NP)
    with tj.GradientTape() as t3:
        t3.watch(x)
        with tj.GradientTape() as t2:
            t2.watch(x)
            with tj.GradientTape() as t1:
                t1.watch(x)
                y = f_tj(x)
            g1 = t1.gradient(y, x)
        g2 = t2.gradient(g1, x)  # sum over rows of the Hessian
    g3 = t3.gradient(g2, x)

    def d1(x):
        return jax.grad(f_jax)(x)

    def d2(x):
        return jax.grad(lambda u: jnp.sum(d1(u)))(x)

    def d3(x):
        return jax.grad(lambda u: jnp.sum(d2(u)))(x)
    xj = jnp.asarray(X_NP)
    close(g1.numpy(), d1(xj))
    close(g2.numpy(), d2(xj), rtol=1e-4)
    close(g3.numpy(), d3(xj), rtol=1e-4)


def test_nested_tapes_scalar_third_derivative():
    x = tj.constant(0.7)
    with tj.GradientTape() as t3:
        t3.watch(x)
        with tj.GradientTape() as t2:
            t2.watch(x)
            with tj.GradientTape() as t1:
                t1.watch(x)
                y = tnp.tanh(x) * x
            dy = t1.gradient(y, x)
        d2y = t2.gradient(dy, x)
    d3y = t3.gradient(d2y, x)
    f = lambda u: jnp.tanh(u) * u
    close(dy.numpy(), jax.grad(f)(0.7))
    close(d2y.numpy(), jax.grad(jax.grad(f))(0.7), rtol=1e-4)
    close(d3y.numpy(), jax.grad(jax.grad(jax.grad(f)))(0.7), rtol=1e-4)


def test_gradient_inside_context_non_persistent_stops_recording():
    x = tj.constant(3.0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        g = tape.gradient(y, x)
        assert tape._tape is None or tape._tape not in tape_set.current().tapes
        assert all(t is not tape._tape for t in tape_set.current().tapes)
        z = x * 5.0  # not recorded anywhere
    assert not tape_set.current().tapes
    close(g.numpy(), 6.0)
    with pytest.raises(RuntimeError):
        tape.gradient(z, x)


def test_gradient_inside_context_persistent_keeps_recording():
    # TF: the persistent tape records the gradient computation itself -> second derivative.
    x = tj.constant(1.3)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x * x
        g = tape.gradient(y, x)
        z = x * 5.0
    close(g.numpy(), 3 * 1.3 ** 2)
    close(tape.gradient(g, x).numpy(), 6 * 1.3, rtol=1e-5)
    close(tape.gradient(z, x).numpy(), 5.0)


# -- output_gradients --------------------------------------------------------------------------------

def test_output_gradients_per_target():
    x = tj.constant(X_NP)
    w_np = np.array([1.0, -2.0, 0.5], np.float32)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tnp.sin(x) * x
        z = x * x
    g = tape.gradient(y, x, output_gradients=tj.constant(w_np))
    _, vjp = jax.vjp(lambda u: jnp.sin(u) * u, jnp.asarray(X_NP))
    close(g.numpy(), vjp(jnp.asarray(w_np))[0])
    # as numpy / list, and one per flattened target with None meaning ones
    g2 = tape.gradient([y, z], x, output_gradients=[w_np, None])
    close(g2.numpy(), vjp(jnp.asarray(w_np))[0] + 2 * X_NP)
    g3 = tape.gradient({"y": y, "z": z}, x, output_gradients={"y": list(w_np), "z": [1.0, 1.0, 1.0]})
    close(g3.numpy(), g2.numpy())
    # a single target with its gradient as a Python list (ints converted to the target's dtype)
    g4 = tape.gradient(z, x, output_gradients=[1, 2, 3])
    assert g4.dtype == jnp.float32
    close(g4.numpy(), 2 * X_NP * np.array([1, 2, 3]))
    # the documented list of one gradient per target, for a single target, its gradient a Python list too (TF
    # flattens the nesting away and returns a gradient of the wrong shape)
    for one_per_target in ([[1, 2, 3]], ([1.0, 2.0, 3.0],), [np.array([1, 2, 3], np.float32)]):
        close(tape.gradient(z, x, output_gradients=one_per_target).numpy(), g4.numpy())
    close(tape.gradient(z, x, output_gradients=[[3.0]]).numpy(), 6 * X_NP)  # [a scalar]: broadcast


def test_output_gradients_scalar_broadcast():
    x = tj.constant(X_NP)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    g = tape.gradient(y, x, output_gradients=3.0)
    close(g.numpy(), 6 * X_NP)


def test_output_gradients_none_is_ones():
    x = tj.constant(X_NP)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    close(tape.gradient(y, x, output_gradients=None).numpy(), 2 * X_NP)
    close(tape.gradient(y, x, output_gradients=[None]).numpy(), 2 * X_NP)


def test_output_gradients_wrong_shape_raises_naming_shapes():
    x = tj.constant(X_NP)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(ValueError) as e:
        tape.gradient(y, x, output_gradients=tj.constant([1.0, 2.0]))
    assert "(2,)" in str(e.value) and "(3,)" in str(e.value)
    with pytest.raises(ValueError):
        tape.gradient(y, x, output_gradients=tj.constant([[1.0, 1.0, 1.0]]))
    # the persistent tape is still usable after the failed calls
    close(tape.gradient(y, x).numpy(), 2 * X_NP)


def test_output_gradients_wrong_count_raises():
    x = tj.constant(X_NP)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = x * 2.0
    with pytest.raises(ValueError):
        tape.gradient([y, z], x, output_gradients=[tj.constant(X_NP)])
    with pytest.raises(ValueError):
        tape.gradient(y, x, output_gradients=[None, None])
    close(tape.gradient([y, z], x).numpy(), 2 * X_NP + 2.0)


def test_failed_non_persistent_call_leaves_tape_usable():
    # TF checks output_gradients before it releases the tape.
    x = tj.constant(X_NP)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(ValueError):
        tape.gradient(y, x, output_gradients=tj.constant([1.0]))
    close(tape.gradient(y, x).numpy(), 2 * X_NP)


# -- structures ------------------------------------------------------------------------------------

def test_nested_target_is_summed():
    x = tj.constant(X_NP)
    with tj.GradientTape() as tape:
        tape.watch(x)
        targets = {"a": x * x, "b": [tnp.sin(x), (x * 3.0,)]}
    g = tape.gradient(targets, x)
    close(g.numpy(), 2 * X_NP + np.cos(X_NP) + 3.0)


def test_source_structures_preserved():
    a, b, c = tj.constant(1.0), tj.constant(2.0), tj.constant(3.0)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch([a, b, c])
        y = a * b + c * c
    gl = tape.gradient(y, [a, b])
    assert type(gl) is list and len(gl) == 2
    gt = tape.gradient(y, (a, b))
    assert type(gt) is tuple and len(gt) == 2
    gd = tape.gradient(y, {"a": a, "n": {"c": c, "b": [b]}})
    assert type(gd) is dict and set(gd) == {"a", "n"}
    assert type(gd["n"]) is dict and type(gd["n"]["b"]) is list
    close(gl[0].numpy(), 2.0)
    close(gl[1].numpy(), 1.0)
    close(gt[0].numpy(), 2.0)
    close(gd["a"].numpy(), 2.0)
    close(gd["n"]["c"].numpy(), 6.0)
    close(gd["n"]["b"][0].numpy(), 1.0)
    single = tape.gradient(y, c)
    assert isinstance(single, tj.Tensor)


class _Row(tuple):  # a tuple subclass that is not a namedtuple: a sequence for tf.nest, a leaf for JAX
    pass


def test_structures_tf_nest_takes_dict_views_attrs_and_tuple_subclasses():
    """As tf.nest (TF 2.21's values): ``params.values()`` is a list of sources (and of tensors to watch), an attrs
    instance a structure of its fields, a tuple subclass a tuple rebuilt as its type, as sources, targets,
    output gradients and an accumulator's primals and tangents. A tuple-subclass target was taken for a value
    and packed into a new constant: a None gradient, silently."""
    import attr

    @attr.s
    class Pair:
        a = attr.ib()
        b = attr.ib()

    params = {"w": tj.Variable(2.0), "b": tj.Variable(3.0)}
    x, y = tj.constant(2.0), tj.constant(3.0)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(_Row((x, y)))
        loss = params["w"] * params["b"]
        z = x * y
        pair, row = Pair(x * y, x * x), _Row((x * y, x * x))
    g = tape.gradient(loss, params.values())
    assert type(g) is list and [float(v.numpy()) for v in g] == [3.0, 2.0]
    g = tape.gradient(z, Pair(x, y))
    assert type(g) is Pair and (float(g.a.numpy()), float(g.b.numpy())) == (3.0, 2.0)
    g = tape.gradient(z, _Row((x, y)))
    assert type(g) is _Row and [float(v.numpy()) for v in g] == [3.0, 2.0]
    for target in (pair, row):
        assert float(tape.gradient(target, x).numpy()) == 7.0
    og = tape.gradient(row, x, output_gradients=_Row((tj.constant(2.0), tj.constant(1.0))))
    assert float(og.numpy()) == 10.0
    jac = tape.jacobian(z, Pair(x, y))
    assert type(jac) is Pair and float(jac.b.numpy()) == 2.0

    d = {"x": tj.constant(2.0)}
    with tj.GradientTape() as tape:
        tape.watch(d.values())
        out = d["x"] * 3.0
    assert float(tape.gradient(out, d["x"]).numpy()) == 3.0
    with tj.ForwardAccumulator(Pair(x, y), Pair(tj.constant(1.0), tj.constant(0.0))) as acc:
        out = x * y
    assert float(acc.jvp(out).numpy()) == 3.0
    with tj.ForwardAccumulator(_Row((x, y)), _Row((tj.constant(0.0), tj.constant(1.0)))) as acc:
        out = x * y
    assert float(acc.jvp(out).numpy()) == 2.0


def test_same_source_twice():
    x = tj.constant(2.0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = x * x * x
    g1, g2 = tape.gradient(y, [x, x])
    close(g1.numpy(), 12.0)
    close(g2.numpy(), 12.0)


# -- unconnected -----------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", [tj.UnconnectedGradients.ZERO, "zero"])
def test_unconnected_zero(mode):
    x = tj.constant(X_NP)
    u = tj.constant([[1.0, 2.0]])
    with tj.GradientTape() as tape:
        tape.watch([x, u])
        y = x * x
    gx, gu = tape.gradient(y, [x, u], unconnected_gradients=mode)
    close(gx.numpy(), 2 * X_NP)
    assert isinstance(gu, tj.Tensor) and gu.shape == (1, 2) and gu.dtype == jnp.float32
    np.testing.assert_array_equal(gu.numpy(), np.zeros((1, 2)))


@pytest.mark.parametrize("mode", [tj.UnconnectedGradients.NONE, "none"])
def test_unconnected_none(mode):
    x, u = tj.constant(1.0), tj.constant(2.0)
    with tj.GradientTape() as tape:
        tape.watch([x, u])
        y = x * x
    gx, gu = tape.gradient(y, [x, u], unconnected_gradients=mode)
    assert gu is None
    close(gx.numpy(), 2.0)


def test_unconnected_bad_value():
    x = tj.constant(1.0)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    for bad in ["zeros", "NONE_", 0, None]:
        with pytest.raises(ValueError):
            tape.gradient(y, x, unconnected_gradients=bad)
    close(tape.gradient(y, x).numpy(), 2.0)


def test_unconnected_gradient_through_integer_path():
    # TF: a path through a non-float cast carries no gradient.
    x = tj.constant(X_NP)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = x.astype(jnp.int32).astype(jnp.float32) * 2.0
    assert tape.gradient(y, x) is None


# -- non-float watches ---------------------------------------------------------------------------

@pytest.mark.parametrize("value", [tj.constant([1, 2]), tj.constant(True)])
def test_watch_int_or_bool_warns_and_gives_none(value):
    with tj.GradientTape() as tape:
        with pytest.warns(UserWarning):
            tape.watch(value)
        y = tnp.multiply(value, value) if value.dtype != jnp.bool_ else tnp.logical_and(value, value)
    assert tape.gradient(y, value) is None


def test_watch_float_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with tj.GradientTape() as tape:
            tape.watch(tj.constant(1.0))


def test_int_source_none_or_zeros():
    # API: non-float sources give None, or zeros with UnconnectedGradients.ZERO
    i = tj.constant([1, 2])
    with tj.GradientTape(persistent=True) as tape:
        with pytest.warns(UserWarning):
            tape.watch(i)
        y = tnp.multiply(i, 2)
    assert tape.gradient(y, i) is None
    z = tape.gradient(y, i, unconnected_gradients="zero")
    assert z.shape == (2,)
    np.testing.assert_array_equal(z.numpy(), [0, 0])


# -- stop_recording, reset, re-entry --------------------------------------------------------------------

def test_tape_stop_recording():
    x = tj.constant(2.0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        with tape.stop_recording():
            z = x * x * x  # not recorded
        w = y + z
    # only y carries a gradient, z is a constant to the tape
    close(tape.gradient(w, x).numpy(), 4.0)


def test_tape_stop_recording_only_that_tape():
    x = tj.constant(2.0)
    with tj.GradientTape() as outer:
        outer.watch(x)
        with tj.GradientTape() as inner:
            inner.watch(x)
            with inner.stop_recording():
                y = x * x
        assert inner.gradient(y, x) is None
    close(outer.gradient(y, x).numpy(), 4.0)


def test_tape_stop_recording_nested_same_tape():
    """TF 2.21: inside tape.stop_recording() the tape is not recording, so a nested tape.stop_recording()
    raises ValueError ('Tape is not recording.'); the outer block still resumes recording at its end."""
    x = tj.constant(2.0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        with tape.stop_recording():
            with pytest.raises(ValueError, match="not recording"):
                with tape.stop_recording():
                    pass
            y = x * x  # inside the block: not recorded
        z = x * 3.0  # recorded again
    assert tape._tape.takes([y.id]) is False
    g_z = tape.gradient(z, x)
    close(g_z.numpy(), 3.0)


def test_stop_recording_outside_context_raises():
    tape = tj.GradientTape()
    with pytest.raises((ValueError, RuntimeError)):
        with tape.stop_recording():
            pass


def test_global_stop_recording():
    x = tj.constant(2.0)
    with tj.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with tj.GradientTape(persistent=True) as inner:
            inner.watch(x)
            with tj.stop_recording():
                y = x * x
            z = x * 3.0
    assert outer.gradient(y, x) is None
    assert inner.gradient(y, x) is None
    close(outer.gradient(z, x).numpy(), 3.0)
    close(inner.gradient(z, x).numpy(), 3.0)


def test_reset():
    x = tj.constant(2.0)
    v = tj.Variable(5.0)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y1 = x * x * v
        assert tape.watched_variables() == (v,)
        tape.reset()
        assert tape.watched_variables() == ()
        y2 = x * 3.0  # x is no longer watched
        tape.watch(x)
        y3 = x * 7.0
    assert tape.gradient(y1, x) is None
    assert tape.gradient(y1, v) is None
    assert tape.gradient(y2, x) is None
    close(tape.gradient(y3, x).numpy(), 7.0)


def test_reset_rewatches_variables_after():
    v = tj.Variable(5.0)
    with tj.GradientTape() as tape:
        y = v * v
        tape.reset()
        z = v * 3.0
    assert tape.watched_variables() == (v,)
    close(tape.gradient(z, v).numpy(), 3.0)


def test_reenter_resumes_recording():
    x = tj.constant(2.0)
    tape = tj.GradientTape(persistent=True)
    with tape:
        tape.watch(x)
        y = x * x
    z = y * 10.0  # outside: not recorded
    with tape:
        w = y * 3.0
    close(tape.gradient(w, x).numpy(), 12.0)
    assert tape.gradient(z, x) is None
    close(tape.gradient(y, x).numpy(), 4.0)


def test_enter_while_active_raises():
    tape = tj.GradientTape()
    with tape:
        with pytest.raises(ValueError):
            with tape:
                pass


def test_stop_gradient():
    x = tj.constant(X_NP)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = (x * tj.stop_gradient(x * x)).sum()
    # d/dx [x * sg(x^2)] = x^2
    close(tape.gradient(y, x).numpy(), X_NP ** 2)
    close(jax.grad(lambda u: jnp.sum(u * jax.lax.stop_gradient(u * u)))(jnp.asarray(X_NP)), X_NP ** 2)


def test_stop_gradient_alone_gives_none():
    x = tj.constant(1.0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tj.stop_gradient(x * 2.0)
    assert tape.gradient(y, x) is None


# -- sources that are targets -----------------------------------------------------------------------

def test_source_is_target():
    x = tj.constant(X_NP)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    np.testing.assert_array_equal(tape.gradient(x, x).numpy(), np.ones(3))
    close(tape.gradient([x, y], x).numpy(), 1 + 2 * X_NP)
    close(tape.gradient(x, x, output_gradients=tj.constant([1.0, 2.0, 3.0])).numpy(), [1.0, 2.0, 3.0])


def test_intermediate_is_target_and_source():
    x = tj.constant(1.5)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    gy, gx = tape.gradient([y, z], [y, x])
    # d(y + z)/dy = 1 + 2y ; d(y + z)/dx = (1 + 2y) * 2x
    close(gy.numpy(), 1 + 2 * 2.25)
    close(gx.numpy(), (1 + 2 * 2.25) * 3.0)


def test_unwatched_source_that_is_target():
    # TF: gradient(x, x) is ones even if x was never watched (the target is its own source).
    x = tj.constant([1.0, 2.0])
    with tj.GradientTape() as tape:
        pass
    np.testing.assert_array_equal(tape.gradient(x, x).numpy(), [1.0, 1.0])


def test_zero_gradient_of_a_variable_source_is_an_access():
    # TF 2.21, inside a recording persistent tape: unconnected_gradients='zero' builds zeros_like(variable), a
    # read that the tape watches (float or int); an int Variable that is also the target TF answers without
    # reading (ones there; zeros here, API.md), so nothing is watched
    for dtype, target_is_source, watched in [("float32", False, 1), ("int32", False, 1), ("int32", True, 0)]:
        v = tj.Variable([1, 2, 3], dtype=dtype)
        x = tj.constant([1.0, 2.0, 3.0])
        with tj.GradientTape(persistent=True) as tape:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # (a gradient inside the context of a persistent tape)
                g = tape.gradient(v if target_is_source else x, (x, v), unconnected_gradients="zero")
        np.testing.assert_array_equal(g[1].numpy(), [0, 0, 0])
        assert len(tape.watched_variables()) == watched, (dtype, target_is_source)


# -- misc -----------------------------------------------------------------------------------------

def test_int_target_gives_none():
    x = tj.constant(2.0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = x.astype(jnp.int32)
    assert tape.gradient(y, x) is None


def test_multi_use_diamond_matches_jax():
    x = tj.constant(X_NP)
    with tj.GradientTape() as tape:
        tape.watch(x)
        a = tnp.sin(x)
        b = a * x
        c = a * a
        d = (b + c) * a
        y = d.sum() + (b * c).sum()

    def f(x):
        a = jnp.sin(x)
        b = a * x
        c = a * a
        d = (b + c) * a
        return d.sum() + (b * c).sum()
    close(tape.gradient(y, x).numpy(), jax.grad(f)(jnp.asarray(X_NP)))


def test_gradient_stats_populated():
    x = tj.constant(X_NP)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = (x * x).sum()
    tape.gradient(y, x)
    st = tape.last_gradient_stats
    assert st.ops_run == 2
    assert st.peak_pending_bytes >= 12


def _boom_bwd(res, g):
    raise ArithmeticError("no gradient here, on purpose")


_BOOM = tj.OpDef("test_tape_boom", lambda x: x * 2.0, bwd=_boom_bwd, register=False)


def test_failed_backward_leaves_persistent_tape_usable():
    x = tj.constant(X_NP)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        bad = _BOOM(x)
        good = x * x
        both = bad + good
    with pytest.raises(ArithmeticError) as e:
        tape.gradient(both, x)
    assert "test_tape_boom" in str(e.value)  # the error names the op
    close(tape.gradient(good, x).numpy(), 2 * X_NP)
    with pytest.raises(ArithmeticError):
        tape.gradient(both, x)
    close(tape.gradient([good, x], x).numpy(), 2 * X_NP + 1)


def test_inner_gradient_inside_its_own_context_under_outer_tape():
    x = tj.constant(0.9)
    with tj.GradientTape() as t2:
        t2.watch(x)
        with tj.GradientTape() as t1:
            t1.watch(x)
            y = tnp.sin(x) * x
            dy = t1.gradient(y, x)
        d2y = t2.gradient(dy, x)
    f = lambda u: jnp.sin(u) * u
    close(dy.numpy(), jax.grad(f)(0.9))
    close(d2y.numpy(), jax.grad(jax.grad(f))(0.9), rtol=1e-5)


def test_reset_outside_context_raises_like_tf():
    tape = tj.GradientTape()
    with pytest.raises(ValueError, match="inside the tape's context"):
        tape.reset()


def test_tape_producers_of_watched_and_twice_recorded_tensors():
    # An op is keyed by its first output's id and tensor_tape lists only the other tensors: a watched tensor
    # (-1), a tensor a second op recorded as its output (that op, under a fresh id), and none of them once
    # an op made it (watching it later changes nothing; an op making a watched tensor takes it over).
    from tapejax.tape import Tape
    from tapejax.tensor import Tensor
    tape = Tape()
    x, y, z = (Tensor(jnp.ones(3)) for _ in range(3))
    tape.watch(x.id)
    tape.record_operation("A", (y,), (x.id,), lambda *a: None)
    assert tape.producer(y.id) == y.id and tape.producer(x.id) == -1 and tape.producer(z.id) is None
    assert tape.tensor_tape == {x.id: -1} and tape.knows(y.id) and not tape.knows(z.id)
    tape.watch(y.id)
    assert tape.producer(y.id) == y.id and tape.watched_ids() == [x.id]
    tape.record_operation("B", (y,), (x.id,), lambda *a: None)  # y again: B gets a fresh id
    b_id = tape.producer(y.id)
    assert b_id > z.id and tape.tensor_tape[y.id] == b_id and tape.op_tape[b_id].op_type == "B"
    assert tape.op_tape[y.id].op_type == "A"
    tape.watch(z.id)
    tape.record_operation("C", (z,), (y.id,), lambda *a: None)
    assert tape.producer(z.id) == z.id and z.id not in tape.tensor_tape
    assert tape.takes([z.id]) and not tape.takes([Tensor(jnp.ones(3)).id])


@pytest.mark.parametrize("name", ["floor", "ceil", "round", "rint", "floor_divide", "zeros_like", "ones_like"])
def test_result_of_an_op_without_gradient_is_on_the_tape(name):
    # TF 2.21 (Floor, Ceil, Round, Rint, FloorDiv, ZerosLike, OnesLike have gradients of None): d(2 z)/dz is 2 and
    # jacobian(z, z) the identity, where z = op(x) of a watched x; dz/dx stays None (zeros with 'zero'), and a
    # ForwardAccumulator's tangent of z None. (tj.stop_gradient's result is on no tape, as TF's.)
    op = {"floor_divide": lambda x: tnp.floor_divide(x, 0.7)}.get(name, getattr(tnp, name))
    x = tj.constant([1.5, -2.0])
    with tj.ForwardAccumulator(x, tj.constant([1.0, 1.0])) as acc:
        with tj.GradientTape(persistent=True) as tape:
            tape.watch(x)
            z = op(x)
            y = z * 2.0
    np.testing.assert_array_equal(tape.gradient(y, z).numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(tape.jacobian(z, z).numpy(), np.eye(2))
    assert tape.gradient(z, x) is None
    np.testing.assert_array_equal(tape.gradient(z, x, unconnected_gradients="zero").numpy(), [0.0, 0.0])
    assert acc.jvp(z) is None
    with tj.GradientTape() as tape:
        tape.watch(x)
        s = tj.stop_gradient(x)
        y = s * 2.0
    assert tape.gradient(y, s) is None


def test_zeros_of_an_unconnected_source_are_on_the_tape():
    # TF 2.21: the zeros of an unconnected Variable source (tape.gradient or acc.jvp with 'zero') are
    # zeros_like(variable), an op on the tapes recording: a later tape's jacobian of them w.r.t. themselves is
    # 1 (tape protocol seeds 41802, 44507)
    v = tj.Variable(2.0)
    x = tj.constant(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (gradients inside a persistent tape's context)
        with tj.ForwardAccumulator(x, tj.constant(1.0)) as acc:
            with tj.GradientTape(persistent=True) as outer:
                with tj.GradientTape(persistent=True) as inner:
                    zeros = inner.gradient(x, v, unconnected_gradients="zero")
                tangent = acc.jvp(v, unconnected_gradients="zero")
        assert float(zeros) == 0.0 and float(tangent) == 0.0
        assert float(outer.jacobian(zeros, zeros, experimental_use_pfor=False)) == 1.0
        assert float(outer.jacobian(tangent, tangent, experimental_use_pfor=False)) == 1.0
