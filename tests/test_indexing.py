"""Indexing out of bounds or with a float raises, as TF and NumPy (API.md, Interoperability).

JAX clamps an out-of-bounds gather index (``x[5]`` of a length-3 array is ``x[2]``, and the gradient
lands on element 2), fills ``take`` with NaN, and a float index used to be truncated. tapejax checks
static indices (ints, slices, tuples of them) at the call, and index arrays (numpy/jax arrays, Tensors,
Variables, lists) whenever their values are concrete: ``IndexError`` naming the index, the axis and the
shape; float indices raise ``TypeError``. Inside ``tj.function``/``jax.jit`` a traced index array's
values are unknown and JAX's behaviour applies (documented in ``getitem``/``take``).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy


def _x():
    return tj.constant([0.0, 1.0, 2.0])


# -- static indices -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("index,bad,axis", [(5, 5, 0), (3, 3, 0), (-4, -4, 0)])
def test_static_int_out_of_bounds_raises(index, bad, axis):
    with pytest.raises(IndexError, match=rf"index {bad} is out of bounds for axis {axis} with size 3.*\(3,\)"):
        _x()[index]


def test_static_index_names_the_axis_it_indexes():
    m = tj.constant(np.arange(12.0).reshape(3, 4))
    with pytest.raises(IndexError, match=r"index 4 is out of bounds for axis 1 with size 4.*\(3, 4\)"):
        m[0, 4]
    with pytest.raises(IndexError, match=r"index 7 is out of bounds for axis 1 with size 4"):
        m[..., 7]
    with pytest.raises(IndexError, match=r"index 3 is out of bounds for axis 0 with size 3"):
        m[None, 3, 1:]
    with pytest.raises(IndexError, match=r"index -5 is out of bounds for axis 1"):
        m[1:, -5]
    with pytest.raises(IndexError, match="too many indices for a tensor of shape \\(3, 4\\)"):
        m[0, 0, 0]


@pytest.mark.parametrize("where", ["eager", "tj.function"])
@pytest.mark.parametrize("value,index,words", [
    (1.0, 1, "too many indices for a tensor of shape \\(\\)"),  # (TF: "Attempting to slice scalar input")
    ([0.0, 1.0, 2.0], 3, "index 3 is out of bounds for axis 0"),
    ([[0.0, 1.0]], (0, 0, 0), "too many indices"),
    ([0.0, 1.0, 2.0], np.array([True, False]), "boolean mask of size 2"),
    ([[0.0, 1.0]], (Ellipsis, 0, Ellipsis), "single ellipsis"),
    ([0.0, 1.0, 2.0], np.array([0, 4]), "index 4 is out of bounds"),
])
def test_an_index_that_does_not_fit_is_an_index_error_and_a_value_error(where, value, index, words):
    """NumPy and jax.numpy raise IndexError; TF inside a tf.function raises ValueError from its shape checks (seed
    15903 of tools/tf_function_differential.py: ``n[1]`` of a scalar argument). The error is both, eagerly and
    traced, so that code written against either catches it."""
    x = tj.constant(value)
    f = (lambda x: x[index]) if where == "eager" else tj.function(lambda x: x[index])
    with pytest.raises(IndexError, match=words) as raised:
        f(x)
    assert isinstance(raised.value, ValueError)
    assert "tj op 'getitem'" in str(raised.value)


@pytest.mark.parametrize("name", ["take", "getitem", "take_along_axis"])
def test_indices_into_an_empty_axis_raise_on_every_path(name):
    """tools/tf_bad_input_differential.py seed 920098: ``take`` of an empty axis raised IndexError eagerly and
    JAX's AxisError inside tj.function (its index traced); ``x[i]`` a ShapeError; ``take_along_axis`` returned
    zeros. Any index into an axis of size 0 is out of bounds, whatever its value: the same IndexMismatchError on
    every path (TF raises InvalidArgumentError, indices not in [0, 0)). No index at all is fine."""
    if name == "take_along_axis":
        x, i = tj.constant(np.zeros((2, 0), np.float32)), tj.constant(np.zeros((2, 1), np.int32))
    else:
        x, i = tj.constant(np.zeros((0,), np.float32)), tj.constant([0])

    def f(x, i):
        if name == "take_along_axis":
            return tnp.take_along_axis(x, i, axis=1)
        return tnp.take(x, i, axis=0) if name == "take" else x[i]
    for g in (f, tj.function(f)):
        with pytest.raises(IndexError, match="out of bounds for axis . with size 0") as raised:
            g(x, i)
        assert isinstance(raised.value, ValueError) and f"tj op '{name}'" in str(raised.value)
    none = tj.constant(np.zeros(i.shape[:-1] + (0,), np.int32))
    for g in (f, tj.function(f)):
        assert g(x, none).shape == (x.shape[:-1] + (0,) if name == "take_along_axis" else (0,))


def test_variable_index_out_of_bounds_raises():
    v = tj.Variable([0.0, 1.0, 2.0])
    with pytest.raises(IndexError, match="index 3 is out of bounds"):
        v[3]


def test_negative_and_in_range_indices_keep_working_with_gradients():
    x = _x()
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = x[-1] * 10.0 + x[-3] + x[1]
    assert float(y) == 21.0
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [1.0, 1.0, 10.0])
    m = tj.constant(np.arange(12.0).reshape(3, 4))
    np.testing.assert_array_equal(m[-1, -4:].numpy(), [8.0, 9.0, 10.0, 11.0])
    np.testing.assert_array_equal(m[1:100].numpy(), m.numpy()[1:100])  # slices clip, as NumPy


@pytest.mark.parametrize("index", [1.5, 1.0, np.float32(1.0), np.float64(0.0)])
def test_float_index_raises_type_error(index):
    with pytest.raises(TypeError, match="must be an integer"):
        _x()[index]


def test_float_slice_bound_raises_type_error():
    with pytest.raises(TypeError, match="slice bound must be an integer or None"):
        _x()[1:2.5]
    with pytest.raises(TypeError, match="slice bound"):
        _x()[0.5:]


def test_integer_scalars_of_other_kinds_are_indices():
    x = _x()
    assert float(x[np.int64(2)]) == 2.0
    assert float(x[tj.constant(1)]) == 1.0
    assert float(x[1:np.int32(2)][0]) == 1.0


# -- index arrays -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("make", [jnp.asarray, np.asarray, list, tj.constant, tj.Variable],
                         ids=["jax", "numpy", "list", "tensor", "variable"])
def test_array_index_out_of_bounds_raises(make):
    """Issue 13: x[jnp.array([5, 0])] was [2., 0.] with gradient [1, 0, 0]."""
    with pytest.raises(IndexError, match=r"index 5 is out of bounds for axis 0 with size 3.*\(3,\)"):
        _x()[make([5, 0])]
    with pytest.raises(IndexError, match=r"index -4 is out of bounds for axis 0"):
        _x()[make([0, -4])]


def test_array_index_out_of_bounds_on_a_later_axis():
    m = tj.constant(np.arange(12.0).reshape(3, 4))
    with pytest.raises(IndexError, match=r"index 4 is out of bounds for axis 1 with size 4"):
        m[jnp.array([0, 1]), jnp.array([3, 4])]
    with pytest.raises(IndexError, match=r"index 9 is out of bounds for axis 1"):
        m[:, np.array([[0], [9]])]


def test_array_index_in_range_with_negatives_and_repeats_has_gradient():
    x = _x()
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.sum(x[jnp.array([-1, 0, -1])] * tj.constant([1.0, 2.0, 3.0]))
    assert float(y) == 8.0
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 0.0, 4.0])


@pytest.mark.parametrize("index", [jnp.array([1.0]), np.array([0.5, 1.0]), [1.5], tj.constant(1.0),
                                   tj.constant([1.0, 2.0])], ids=["jax", "numpy", "list", "scalar", "tensor"])
def test_float_index_array_raises_type_error(index):
    with pytest.raises(TypeError, match="tj op 'getitem': indices must be integers.*dtype float"):
        _x()[index]


def test_boolean_masks_still_select():
    x = _x()
    np.testing.assert_array_equal(x[np.array([True, False, True])].numpy(), [0.0, 2.0])
    np.testing.assert_array_equal(x[x > 0.5].numpy(), [1.0, 2.0])


def test_boolean_scalar_index_is_numpys_new_axis():
    # NumPy: x[True] is x[None] (a new axis of length 1), x[False] a new axis of length 0; never the integer 1
    # (TF 2.21 raises ValueError 'mask cannot be scalar.'; tj.numpy follows NumPy, as jax.numpy)
    x = _x()
    assert x[True].shape == (1, 3) and x[False].shape == (0, 3)
    np.testing.assert_array_equal(x[True].numpy(), [[0.0, 1.0, 2.0]])


# -- take / take_along_axis -------------------------------------------------------------------------------

def test_take_out_of_bounds_raises_instead_of_nan():
    x = tj.constant(np.arange(12.0).reshape(3, 4))
    with pytest.raises(IndexError, match=r"tj op 'take': index 12 is out of bounds for axis None.*size 12"):
        tnp.take(x, jnp.array([12]))
    with pytest.raises(IndexError, match=r"tj op 'take': index 4 is out of bounds for axis 1 with size 4"):
        tnp.take(x, [0, 4], axis=1)
    with pytest.raises(IndexError, match=r"tj op 'take': index -4 is out of bounds for axis 0"):
        tnp.take(x, tj.constant([-4]), axis=0)
    with pytest.raises(TypeError, match="tj op 'take': indices must be integers"):
        tnp.take(x, jnp.array([1.0]), axis=0)


def test_take_in_range_and_explicit_modes():
    x = tj.constant([0.0, 1.0, 2.0])
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.take(x, jnp.array([-1, 0, 2]))
    np.testing.assert_array_equal(y.numpy(), [2.0, 0.0, 2.0])
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [1.0, 0.0, 2.0])
    # an explicit mode keeps jax.numpy's semantics
    np.testing.assert_array_equal(tnp.take(x, jnp.array([5]), mode="clip").numpy(), [2.0])
    np.testing.assert_array_equal(tnp.take(x, jnp.array([4]), mode="wrap").numpy(), [1.0])
    assert np.isnan(tnp.take(x, jnp.array([5]), mode="fill").numpy()[0])


def test_take_along_axis_out_of_bounds_raises():
    a = tj.constant(np.arange(12.0).reshape(3, 4))
    with pytest.raises(IndexError, match=r"tj op 'take_along_axis': index 4 is out of bounds for axis 1 with size 4"):
        tnp.take_along_axis(a, jnp.array([[0], [4], [1]]), axis=1)
    with pytest.raises(TypeError, match="tj op 'take_along_axis': indices must be integers"):
        tnp.take_along_axis(a, np.array([[0.0], [1.0], [1.0]]), axis=1)
    np.testing.assert_array_equal(tnp.take_along_axis(a, jnp.array([[-1], [0], [1]]), axis=1).numpy(),
                                  [[3.0], [4.0], [9.0]])


# -- under tracing --------------------------------------------------------------------------------------------

def test_static_indices_are_checked_under_tracing():
    @tj.function
    def f(x):
        return x[5]
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 3"):
        f(_x())

    @jax.jit
    def g(v):
        return tnp.sum(tj.Tensor(v)[np.array([0, 7])]).value
    with pytest.raises(IndexError, match="index 7 is out of bounds"):
        g(jnp.zeros(3))


def test_traced_index_arrays_keep_jax_behaviour():
    """Inside tj.function a traced index's values are unknown: no check, JAX's gather clamps (documented)."""
    @tj.function
    def f(x, i):
        return x[i]
    np.testing.assert_array_equal(f(_x(), jnp.array([5, 0])).numpy(), [2.0, 0.0])
    np.testing.assert_array_equal(f(_x(), jnp.array([-1, 1])).numpy(), [2.0, 1.0])
    with pytest.raises(TypeError, match="indices must be integers"):
        f(_x(), jnp.array([1.0]))  # the dtype is known while tracing
