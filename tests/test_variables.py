"""tj.Variable: assignment, reads recorded on tapes, gradients summed over reads (TF semantics)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj


def test_basic_properties():
    v = tj.Variable([1.0, 2.0], name="w")
    assert v.name == "w:0"  # as TF
    assert v.shape == (2,)
    assert v.dtype == jnp.float32
    assert v.trainable is True
    assert tj.Variable(1).dtype == jnp.int32
    assert tj.Variable(1.0, dtype=jnp.float32).dtype == jnp.float32
    assert tj.Variable(1.0, trainable=False).trainable is False
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    r = v.read_value()
    assert isinstance(r, tj.Tensor)
    np.testing.assert_array_equal(r.numpy(), [1.0, 2.0])
    assert isinstance(v.value(), tj.Tensor)
    np.testing.assert_array_equal(np.asarray(v), [1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(jnp.asarray(v)), [1.0, 2.0])


def test_assign_family_returns_variable_and_updates():
    v = tj.Variable([1.0, 2.0])
    assert v.assign([5.0, 6.0]) is v
    np.testing.assert_array_equal(v.numpy(), [5.0, 6.0])
    assert v.assign_add([1.0, 1.0]) is v
    np.testing.assert_array_equal(v.numpy(), [6.0, 7.0])
    assert v.assign_sub(tj.constant([2.0, 3.0])) is v
    np.testing.assert_array_equal(v.numpy(), [4.0, 4.0])
    v.assign(tj.Variable([0.5, 0.25]))
    np.testing.assert_array_equal(v.numpy(), [0.5, 0.25])
    # chaining, as the methods return the variable
    v.assign([1.0, 1.0]).assign_add([1.0, 2.0])
    np.testing.assert_array_equal(v.numpy(), [2.0, 3.0])


@pytest.mark.parametrize("method", ["assign", "assign_add", "assign_sub"])
def test_wrong_shape_raises_and_leaves_unchanged(method):
    v = tj.Variable([1.0, 2.0])
    with pytest.raises(ValueError):
        getattr(v, method)([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    with pytest.raises(ValueError):
        getattr(v, method)(tj.constant([[1.0, 2.0]]))
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    assert v.shape == (2,)


@pytest.mark.parametrize("method", ["assign", "assign_add", "assign_sub"])
def test_wrong_dtype_raises_and_leaves_unchanged(method):
    v = tj.Variable([1.0, 2.0])
    with pytest.raises(ValueError):
        getattr(v, method)(tj.constant([1, 2]))
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    assert v.dtype == jnp.float32
    w = tj.Variable([1, 2])
    with pytest.raises(ValueError):
        getattr(w, method)(tj.constant([1.5, 2.5]))
    np.testing.assert_array_equal(w.numpy(), [1, 2])
    assert w.dtype == jnp.int32


def test_python_values_take_the_variables_dtype():
    v = tj.Variable([1.0, 2.0])
    v.assign([3, 4])  # Python ints into a float variable: converted, as TF
    assert v.dtype == jnp.float32
    np.testing.assert_array_equal(v.numpy(), [3.0, 4.0])


def test_read_is_recorded_and_gradient():
    v = tj.Variable(3.0)
    with tj.GradientTape() as tape:
        y = v * v
    g = tape.gradient(y, v)
    np.testing.assert_allclose(g.numpy(), 6.0)
    assert tape.watched_variables() == (v,)


def test_gradient_sums_over_reads():
    v = tj.Variable([1.0, 2.0])
    with tj.GradientTape() as tape:
        a = v.read_value()
        b = v * 3.0
        c = tj.numpy.sin(v)
        y = (a * a + b + c).sum()
    w = jnp.array([1.0, 2.0])
    expected = jax.grad(lambda u: (u * u + u * 3.0 + jnp.sin(u)).sum())(w)
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), np.asarray(expected), rtol=1e-6)


def test_assignment_between_reads():
    # each read sees the value current then; gradient w.r.t. v sums d/dread over the reads
    v = tj.Variable(2.0)
    with tj.GradientTape() as tape:
        y1 = v * v          # read at 2 -> contributes 2 * 2
        v.assign(5.0)
        y2 = v * v * v      # read at 5 -> contributes 3 * 25
        y = y1 + y2
    np.testing.assert_allclose(y.numpy(), 4.0 + 125.0)
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), 4.0 + 75.0)


def test_assign_add_inside_tape_not_differentiated_through():
    # As TF: assign ops cut the gradient; the later read is a fresh leaf of the variable.
    v = tj.Variable(1.0)
    with tj.GradientTape() as tape:
        v.assign_add(2.0)
        y = v * 4.0
    np.testing.assert_allclose(y.numpy(), 12.0)
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), 4.0)


def test_variable_as_target():
    v = tj.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tj.GradientTape() as tape:
        pass
    g = tape.gradient(v, v)
    np.testing.assert_array_equal(g.numpy(), np.ones((2, 2), np.float32))


def test_variable_as_target_with_other_read():
    v = tj.Variable(3.0)
    with tj.GradientTape() as tape:
        y = v * 2.0
    g = tape.gradient([v, y], v)  # d(v + 2v)/dv = 3
    np.testing.assert_allclose(g.numpy(), 3.0)


def test_variable_target_uses_current_value_shape_dtype():
    v = tj.Variable([1.0, 2.0, 3.0])
    x = tj.constant(2.0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = x * 5.0
    # v is not connected to x
    assert tape.gradient(v, x) is None


def test_watch_accessed_variables_false():
    v = tj.Variable(2.0)
    w = tj.Variable(3.0)
    with tj.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(w)
        y = v * w
    assert tape.watched_variables() == (w,)
    gv, gw = tape.gradient(y, [v, w])
    assert gv is None
    np.testing.assert_allclose(gw.numpy(), 2.0)


def test_watch_accessed_variables_false_nothing_watched():
    v = tj.Variable(2.0)
    with tj.GradientTape(watch_accessed_variables=False) as tape:
        y = v * v
    assert tape.watched_variables() == ()
    assert tape.gradient(y, v) is None


def test_watched_variables_order_and_after_gradient():
    a, b, c = tj.Variable(1.0), tj.Variable(2.0), tj.Variable(3.0)
    with tj.GradientTape() as tape:
        y = b * a
        y = y + c * b
    assert tape.watched_variables() == (a, b, c)  # order of creation, not of reads (as TF)
    tape.gradient(y, [a])
    assert tape.watched_variables() == (a, b, c)


def test_untrainable_not_auto_watched():
    v = tj.Variable(2.0, trainable=False)
    w = tj.Variable(3.0)
    with tj.GradientTape() as tape:
        y = v * w
    assert tape.watched_variables() == (w,)
    gv, gw = tape.gradient(y, [v, w])
    assert gv is None
    np.testing.assert_allclose(gw.numpy(), 2.0)


def test_untrainable_explicit_watch():
    v = tj.Variable(2.0, trainable=False)
    with tj.GradientTape() as tape:
        tape.watch(v)
        y = v * v * v
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), 12.0)


def test_unconnected_variable_zero():
    v = tj.Variable([1.0, 2.0])
    x = tj.constant(1.0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
    g = tape.gradient(y, v, unconnected_gradients=tj.UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(g.numpy(), [0.0, 0.0])
    assert g.dtype == jnp.float32


def test_variable_in_operators_and_numpy():
    v = tj.Variable([1.0, 4.0])
    np.testing.assert_allclose((v + 1.0).numpy(), [2.0, 5.0])
    np.testing.assert_allclose((2.0 * v).numpy(), [2.0, 8.0])
    np.testing.assert_allclose(tj.numpy.sqrt(v).numpy(), [1.0, 2.0])
    np.testing.assert_allclose((v @ v).numpy(), 17.0)
    np.testing.assert_allclose(v[1].numpy(), 4.0)
    np.testing.assert_allclose(v.sum().numpy(), 5.0)


def test_int_variable_not_differentiable():
    v = tj.Variable(3)
    with tj.GradientTape() as tape:
        y = tj.numpy.multiply(v, 2)
    assert tape.gradient(y, v) is None


def test_nested_tapes_variable_second_derivative():
    v = tj.Variable(1.5)
    with tj.GradientTape() as outer:
        with tj.GradientTape() as inner:
            y = v * v * v
        g = inner.gradient(y, v)
    h = outer.gradient(g, v)
    np.testing.assert_allclose(g.numpy(), 3 * 1.5 ** 2, rtol=1e-6)
    np.testing.assert_allclose(h.numpy(), 6 * 1.5, rtol=1e-6)


def test_lossy_python_values_raise_like_tf():
    # TF: v.assign([1.5, 2.5]) on an int32 Variable raises TypeError ("Cannot convert [1.5, 2.5] to EagerTensor of
    # dtype int32"), as does [1, 0] on a bool one. TF truncates a NumPy float array silently; we refuse it too.
    v = tj.Variable([1, 2])
    for bad in ([1.5, 2.5], np.array([0.5, 1.0])):
        with pytest.raises(TypeError):
            v.assign(bad)
        np.testing.assert_array_equal(v.numpy(), [1, 2])
    with pytest.raises(TypeError):
        v.assign_add([0.5, 0.5])
    np.testing.assert_array_equal(v.numpy(), [1, 2])
    b = tj.Variable([True, False])
    with pytest.raises(TypeError):
        b.assign([1, 0])
    np.testing.assert_array_equal(b.numpy(), [True, False])


def test_numpy_values_convert_to_float_variable():
    v = tj.Variable([1.0, 2.0])
    v.assign(np.array([3.0, 4.0]))  # float64 numpy: converted, as TF
    assert v.dtype == jnp.float32
    np.testing.assert_array_equal(v.numpy(), [3.0, 4.0])
    v.assign_add(np.array([1, 1]))
    np.testing.assert_array_equal(v.numpy(), [4.0, 5.0])


def test_jax_array_of_other_dtype_raises():
    v = tj.Variable([1.0, 2.0])
    with pytest.raises(ValueError):
        v.assign(jnp.array([1, 2], jnp.int32))
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    v.assign(jnp.array([5.0, 6.0], jnp.float32))
    np.testing.assert_array_equal(v.numpy(), [5.0, 6.0])


def test_bool_variable_has_no_addition():
    """TF has no AssignAddVariableOp / AssignSubVariableOp kernel for bool (InvalidArgumentError); JAX's add is a
    logical or, which assign_add applied silently."""
    v = tj.Variable([True, False])
    for op in ("assign_add", "assign_sub"):
        with pytest.raises(TypeError, match=f"Variable.{op}: .*bool"):
            getattr(v, op)([True, True])
    np.testing.assert_array_equal(v.numpy(), [True, False])


def test_empty_variable_name_takes_no_scope():
    """TF 2.21: Variable(name='') is ':0' inside any name scope (a module's too); the default name takes it."""
    with tj.name_scope("outer"):
        assert tj.Variable(1.0, name="").name == ":0"
        assert tj.Variable(1.0).name == "outer/Variable:0"
    m = tj.Module(name="m")
    with m.name_scope:
        assert tj.Variable(1.0, name="").name == ":0"


def test_variable_of_a_weakly_typed_value_keeps_its_dtype_strong():
    """A weakly typed jax value (jnp.asarray(300), the result of an op on Python numbers) becomes a Variable of
    its dtype, which then promotes as a typed value: int32 + int8 stays int32 (was int8 with a wrapped 45)."""
    v = tj.Variable(jnp.asarray(300))
    assert not v.read_value().value.weak_type
    r = v + tj.constant(1, "int8")
    assert r.dtype == np.int32 and int(r) == 301
    assert (tj.Variable(jnp.asarray(2.0)) * tj.constant([1.0], "float16")).dtype == np.float32


def test_variable_trainable_none_means_the_default():
    """TF: trainable=None is the default (True), so the Variable is watched and trained."""
    assert tj.Variable(1.0, trainable=None).trainable is True
    assert tj.Variable(1.0, trainable=False).trainable is False
