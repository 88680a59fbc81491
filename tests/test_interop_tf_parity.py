"""Tensors, Variables and interop checked against TensorFlow 2.21 and NumPy 2 (API.md "Tensors and
variables", "Interoperability", "Errors users get"): where tapejax used to differ, crash or answer silently
wrong. Expected values were obtained by running the same expression in TF 2.21 / NumPy 2.4 eagerly (noted
beside each); the tests do not import TensorFlow.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy


# -- conversion: dtype= never truncates a Python number, as TF ------------------------------------------

@pytest.mark.parametrize("value,dtype", [
    (1.5, "int32"), (1.0, "int32"), ([1.5, 2], "int32"), (1, "bool"), ([0.0], "bool"), ((1 + 2j), "float32"),
])
def test_python_number_that_dtype_would_truncate_raises_type_error(value, dtype):
    # TF: tf.constant(1.5, dtype=tf.int32) -> TypeError "Cannot convert 1.5 to EagerTensor of dtype int32"
    # (also 1.0 -> int32, [1.5, 2] -> int32, 1 -> bool, [0.0] -> bool, 1+2j -> float32)
    for convert in (tj.constant, tj.convert_to_tensor):
        with pytest.raises(TypeError, match=f"to dtype {dtype} without loss"):
            convert(value, dtype=dtype)


def test_variable_with_a_dtype_that_would_truncate_raises_type_error():
    # TF: tf.Variable(1.5, dtype=tf.int32) -> TypeError (tapejax gave a Variable holding 1)
    with pytest.raises(TypeError, match="without loss"):
        tj.Variable(1.5, dtype="int32")


@pytest.mark.parametrize("value,dtype,expected", [
    (1, "float32", 1.0), (True, "int32", 1), (True, "float32", 1.0), (1.5, "complex64", 1.5 + 0j),
    (np.float64(1.5), "int32", 1), (np.array([1.5]), "int32", [1]),
])
def test_lossless_or_numpy_conversions_still_cast(value, dtype, expected):
    # TF casts these: constant(1, float32) = 1.0, constant(True, int32) = 1, constant(1.5, complex64) = 1.5+0j;
    # NumPy values are cast like arrays: constant(np.float64(1.5), int32) = 1, constant(np.array([1.5]), int32) = [1]
    t = tj.constant(value, dtype=dtype)
    assert t.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(t.numpy(), expected)


def test_ragged_list_raises_value_error_as_tf():
    # TF: tf.constant([[1, 2], [3]]) -> ValueError "Can't convert non-rectangular Python sequence to Tensor."
    for convert in (tj.constant, tj.convert_to_tensor, tj.Variable):
        with pytest.raises(ValueError, match="non-rectangular"):
            convert([[1, 2], [3]])


def test_python_int_beyond_int32_says_why_and_what_to_do():
    # TF: tf.constant(2**40) is int64; with JAX's x64 off there is no int64: a clear OverflowError, no wrap.
    for value in (2 ** 31, [1, 2 ** 40], -2 ** 31 - 1):
        with pytest.raises(OverflowError, match="jax_enable_x64"):
            tj.constant(value)
    assert tj.constant(-2 ** 31).dtype == np.int32  # the int32 range itself stays int32
    assert tj.constant([1, 2 ** 40, 0.5]).dtype == np.float32  # a float among them: float32, as TF
    # TF wraps tf.constant(300, dtype=tf.int8) to 44 silently; never here
    with pytest.raises(OverflowError, match="never wrapped"):
        tj.constant(300, dtype="int8")
    with pytest.raises(OverflowError, match="x64 mode is off"):
        tj.constant(2 ** 40, dtype="int64")


def test_with_x64_on_big_python_ints_are_int64_as_tf():
    import jax
    with jax.enable_x64(True):  # TF: tf.constant(2**40).dtype == int64, tf.constant([1, 2**40]) too
        assert tj.constant(2 ** 40).dtype == np.int64 and tj.constant(2 ** 40).numpy() == 2 ** 40
        assert tj.constant([1, 2 ** 40]).dtype == np.int64
        assert tj.constant(3).dtype == np.int32 and tj.constant(1.5).dtype == np.float32  # still TF's defaults
        assert tj.constant(np.array([1.5])).dtype == np.float64  # a float64 array keeps its dtype, as TF


# -- display --------------------------------------------------------------------------------------------

def test_scalar_repr_shows_the_float32_value_not_its_float64_expansion():
    # TF: repr(tf.constant(0.1)) == "<tf.Tensor: shape=(), dtype=float32, numpy=0.1>"
    assert repr(tj.constant(0.1)) == "<tj.Tensor shape=() dtype=float32 numpy=0.1>"
    assert str(tj.constant(7.4161983)) == "<tj.Tensor shape=() dtype=float32 numpy=7.4161983>"
    # TF: <tf.Variable 'v:0' shape=() dtype=float32, numpy=1.0>
    assert repr(tj.Variable(1.0, name="v")) == "<tj.Variable 'v:0' shape=() dtype=float32, numpy=1.0>"


# -- Variables -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["+=", "-=", "*=", "/="])
def test_in_place_operator_on_a_variable_raises_and_leaves_it(op):
    # TF: `v += 1.0` -> RuntimeError "`variable += value` with `tf.Variable`s is not supported. Use
    # `variable.assign_add(value)` ..." (tapejax silently rebound v to a Tensor, the Variable unchanged)
    v = tj.Variable(2.0)
    ref = v
    with pytest.raises(RuntimeError, match="assign_add"):
        exec(f"v {op} 1.0", {}, {"v": v})
    assert ref.numpy() == 2.0 and isinstance(ref, tj.Variable)


# -- operators ---------------------------------------------------------------------------------------------

def test_bit_operators_on_int_tensors_are_bitwise():
    # TF and NumPy: 6 & 3 = 2, 6 | 3 = 7, 6 ^ 3 = 5, ~6 = -7 (int32); tapejax gave logical bool results
    a, b = tj.constant(6), tj.constant(3)
    for got, want in ((a & b, 2), (a | b, 7), (a ^ b, 5), (~a, -7), (6 & b, 2), (6 | b, 7), (6 ^ b, 5),
                      (np.array(6) & b, 2)):
        assert isinstance(got, tj.Tensor) and got.dtype == np.int32 and got.numpy() == want
    # on bools they stay logical, as TF: True & False = False, True ^ False = True, ~True = False
    t, f = tj.constant(True), tj.constant(False)
    assert [bool(x) for x in (t & f, t | f, t ^ f, ~t, True & f)] == [False, True, True, False, False]
    np.testing.assert_array_equal((tj.constant([1, 2]) > 1) ^ tj.constant([True, True]), [True, False])


def test_bit_operators_on_floats_raise():
    # TF: tf.constant(1.0) & tf.constant(2.0) -> error (BitwiseAnd has no float kernel); tapejax gave True
    with pytest.raises(TypeError, match="bitwise_and"):
        tj.constant(1.0) & tj.constant(2.0)


# -- NumPy's conversion protocol -------------------------------------------------------------------------

@pytest.mark.parametrize("make", [lambda: tj.constant([1.0, 2.0]), lambda: tj.Variable([1.0, 2.0])])
def test_np_array_copies_and_copy_false_refuses_a_cast(make):
    x = make()
    a = np.array(x)  # NumPy 2: np.array asks __array__(copy=True): a new, writable array (TF's is writable)
    a[0] = 5.0
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(np.array(x, dtype=np.float64), [1.0, 2.0])
    assert np.asarray(x, copy=False).dtype == np.float32
    # (tapejax's words where NumPy passes the dtype to __array__; NumPy 2.5 asks for the value and refuses the
    # cast itself, in its own words)
    with pytest.raises(ValueError, match="needs a copy|Unable to avoid copy"):
        np.asarray(x, dtype=np.int32, copy=False)


# -- scalar Tensors as static arguments --------------------------------------------------------------------

def test_scalar_tensor_axis_is_accepted_by_every_shape_op():
    # TF: tf.expand_dims(x, tf.constant(0)), tf.concat(..., axis=tf.constant(0)) ... take tensor axes
    x = tj.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    zero, one = tj.constant(0), tj.constant(1)
    assert tnp.expand_dims(x, zero).shape == (1, 2, 3)
    assert tnp.squeeze(tnp.expand_dims(x, 2), axis=tj.constant(2)).shape == (2, 3)
    assert tnp.concatenate([x, x], axis=one).shape == (2, 6)
    assert tnp.stack([x, x], axis=one).shape == (2, 2, 3)
    assert tnp.stack([x, x], axis=tj.Variable(2)).shape == (2, 3, 2)
    np.testing.assert_array_equal(tnp.cumsum(x, axis=one).numpy(), np.cumsum(np.arange(6).reshape(2, 3), 1))
    np.testing.assert_array_equal(tnp.sort(x, axis=zero).numpy(), x.numpy())
    np.testing.assert_array_equal(tnp.take(x, tj.constant([2]), axis=one).numpy(), [[2.0], [5.0]])
    np.testing.assert_allclose(tnp.var(x, ddof=one).numpy(), np.var(np.arange(6), ddof=1))
    assert tnp.moveaxis(x, zero, one).shape == (3, 2)


def test_scalar_tensor_axis_under_a_tape_keeps_the_gradient():
    x = tj.constant([[1.0, 2.0], [3.0, 4.0]])
    with tj.GradientTape() as t:
        t.watch(x)
        y = tnp.sum(tnp.cumsum(x, axis=tj.constant(1)) ** 2)
    # d/dx sum(cumsum(x, 1)**2): row [a, a+b] -> [2a + 2(a+b), 2(a+b)]
    np.testing.assert_allclose(t.gradient(y, x).numpy(), [[8.0, 6.0], [20.0, 14.0]])


def test_traced_tensor_axis_still_names_the_problem():
    f = tj.function(lambda a, ax: tnp.stack([a, a], axis=ax))
    with pytest.raises(TypeError, match="where a Python number is expected"):
        f(tj.constant([1.0]), tj.constant(0))


@pytest.mark.parametrize("call", [
    lambda x: tnp.squeeze(x, axis=3), lambda x: tnp.expand_dims(x, 4), lambda x: tnp.concatenate([x, x], axis=2),
    lambda x: tnp.moveaxis(x, 2, 0), lambda x: tnp.swapaxes(x, 0, 2),
])
def test_axis_out_of_range_raises_instead_of_wrapping(call):
    # NumPy: np.squeeze(np.ones((3, 1)), axis=3) -> AxisError; tapejax wrapped 3 % 2 = 1 and squeezed axis 1
    with pytest.raises(IndexError, match="out of range"):
        call(tj.constant(np.ones((3, 1), np.float32)))


# -- indexing --------------------------------------------------------------------------------------------

def test_empty_list_index_selects_nothing():
    # NumPy: np.ones((3, 4))[[]].shape == (0, 4), [:, []] -> (3, 0) (tapejax raised: "index array of dtype float64")
    x = tj.constant(np.ones((3, 4), np.float32))
    assert x[[]].shape == (0, 4)
    assert x[:, []].shape == (3, 0)
    with tj.GradientTape() as t:
        t.watch(x)
        y = tnp.sum(x[[]])
    np.testing.assert_array_equal(t.gradient(y, x).numpy(), np.zeros((3, 4)))


# -- error messages never cut a value's repr off ----------------------------------------------------------

def test_long_values_in_errors_are_described_not_cut():
    v = tj.Variable([1] * 100)
    with pytest.raises(TypeError) as info:
        v.assign([1.5] * 100)
    msg = str(info.value)
    assert "list of shape (100,) and dtype float64" in msg and "[1.5, 1.5" not in msg
    with pytest.raises(TypeError) as info:
        tnp.add(tj.constant(1.0), {"key": "x" * 300})
    assert "<dict, repr of 311 characters>" in str(info.value)
    with pytest.raises(TypeError) as info:  # a short value: its whole repr
        tnp.add(tj.constant(1.0), {"key": "x" * 30})
    assert repr({"key": "x" * 30}) in str(info.value)


def test_index_tensor_captured_by_a_traced_function_is_checked_not_crashing():
    # An index Tensor a tj.function (or jax.jit) closes over has a known value: it is checked like an eager one
    # (tapejax crashed with jax's TracerArrayConversionError from its own bounds check)
    x = tj.constant(np.arange(6, dtype=np.float32))
    idx, bad = tj.constant([1, 1, 4]), tj.constant([1, 6])
    f = tj.function(lambda a: tnp.sum(a[idx] * a[idx]))
    with tj.GradientTape() as t:
        t.watch(x)
        y = f(x)
    np.testing.assert_allclose(y.numpy(), 1 + 1 + 16)
    np.testing.assert_allclose(t.gradient(y, x).numpy(), [0, 4, 0, 0, 8, 0])  # repeated indices accumulate
    assert jax.jit(lambda a: tnp.take(tj.Tensor(a), idx, axis=0).value)(x.value).tolist() == [1.0, 1.0, 4.0]
    with pytest.raises(IndexError, match="index 6 is out of bounds"):
        tj.function(lambda a: a[bad])(x)


def test_assigning_a_variable_inside_a_jax_transform_raises_and_keeps_it_usable():
    # A traced value stored into the Variable leaked: every later read failed inside JAX (UnexpectedTracerError)
    v = tj.Variable([1.0, 2.0])
    with pytest.raises(TypeError, match="inside a JAX transform.*tj.function"):
        jax.jit(lambda: v.assign([5.0, 5.0]))()
    with pytest.raises(TypeError, match="inside a JAX transform"):
        jax.jit(lambda: v.assign_add([1.0, 1.0]))()
    with pytest.raises(TypeError, match="inside a JAX transform"):
        jax.grad(lambda s: (v.assign(jnp.stack([s, s])), s)[1])(1.0)
    np.testing.assert_array_equal((v * 2.0).numpy(), [2.0, 4.0])  # unchanged and usable
    tj.function(lambda: v.assign([5.0, 5.0]))()  # the way to assign in compiled code
    np.testing.assert_array_equal(v.numpy(), [5.0, 5.0])


# -- lists holding Tensors are packed by a recorded op, as TF -----------------------------------------------

def _grad_at_3(f):
    x = tj.constant(3.0)
    with tj.GradientTape() as t:
        t.watch(x)
        y = tnp.sum(f(x))
    return t.gradient(y, x)


@pytest.mark.parametrize("f,want", [
    # TF 2.21, x = 3.0, y = reduce_sum(f(x)), tape.gradient(y, x):
    (lambda x: tj.convert_to_tensor([x, 2 * x]), 3.0),           # tf.convert_to_tensor([x, 2 * x]) -> 3.0
    (lambda x: x * [x, 1.0], 7.0),                                # x * [x, 1.0] -> 7.0 (tapejax gave 4.0)
    (lambda x: tnp.add([x, x], 1.0), 2.0),                        # tf.add([x, x], 1.0) -> 2.0
    (lambda x: tj.constant([[x, 1.0], [2.0, x]]), 2.0),           # tf.convert_to_tensor([[x, 1.], [2., x]]) -> 2.0
])
def test_list_holding_a_watched_tensor_keeps_its_gradient(f, want):
    g = _grad_at_3(f)
    assert g is not None and float(g) == want


def test_list_holding_variables_and_traced_tensors():
    v = tj.Variable(2.0)
    with tj.GradientTape() as t:
        y = tnp.sum(tj.convert_to_tensor([v, 3.0 * v]))
    assert float(t.gradient(y, v)) == 4.0  # TF: 4.0
    # inside tj.function the tensors are traced: packed, not converted through NumPy (tapejax raised)
    np.testing.assert_array_equal(tj.function(lambda a: tj.constant([a, 2 * a]))(tj.constant(1.0)).numpy(), [1, 2])
    # dtype: JAX's promotion (int tensor with 2.5 -> float32); a requested dtype never truncates a tensor
    assert tj.constant([tj.constant(1), 2.5]).dtype == np.float32
    assert tj.constant([tj.constant(1), 2], dtype="float32").dtype == np.float32
    with pytest.raises(ValueError, match="lose information"):
        tj.constant([tj.constant(1.5), 2.0], dtype="int32")


def test_index_list_of_traced_tensors_inside_a_function():
    # x[[k, k]] with k an argument of tj.function: tapejax converted the list through NumPy and raised
    x = tj.constant(np.arange(6, dtype=np.float32))
    k = tj.constant(2)
    np.testing.assert_array_equal(tj.function(lambda a, i: a[[i, i]])(x, k).numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(tj.function(lambda a, i: tnp.take(a, [i, 1]))(x, k).numpy(), [2.0, 1.0])
    np.testing.assert_array_equal(tj.function(lambda a, i: tnp.take_along_axis(a, [i, 0], axis=0))(x, k).numpy(),
                                  [2.0, 0.0])


def test_register_gradient_for_an_unknown_op_suggests_names_instead_of_a_cut_list():
    # The message listed the first 40 op names then "..." (a cut-off value); now it names the likely op.
    with pytest.raises(LookupError, match="no op named 'mutliply'. Did you mean 'multiply'") as info:
        tj.RegisterGradient("mutliply")(lambda primals, cts: cts)
    assert "Known ops" not in str(info.value) and "]..." not in str(info.value)


def test_python_int_beyond_int32_as_an_op_argument_names_the_op_and_the_fix():
    # TF: tf.constant(1.0) + 2**40 == 1.0995116e12 (the operator converts the int to the tensor's float dtype), and
    # so do tj's operators; jax.numpy (x64 off) raises an OverflowError about "parsing an argument to a jitted
    # computation", and so do tj's functions, naming the op and what to pass instead. An integer tensor's operator
    # raises too (TF wraps 2**31 * tf.constant([1, 2]) around to [-2147483648, 0] silently).
    x = tj.constant([1.0, 2.0])
    for run in (lambda: tnp.add(x, 2 ** 40), lambda: 2 ** 31 * tj.constant([1, 2]),
                lambda: tj.constant([1, 2]) - 2 ** 40):
        with pytest.raises(OverflowError, match=r"tj op '(add|multiply|subtract)'.*does not fit int32.*as a float"):
            run()
    with tj.GradientTape() as t:
        t.watch(x)
        with pytest.raises(OverflowError, match="tj op 'add'"):
            tnp.add(x, 2 ** 40)
        y = tnp.sum(x * 2.0 ** 40) + tnp.sum(3 * 2 ** 40 * x) + tnp.sum(x + 2 ** 40)  # (operators: TF's conversion)
        assert (x - 2 ** 40).dtype == (2 ** 40 - x).dtype == np.float32
    np.testing.assert_allclose(t.gradient(y, x).numpy(), [4 * 2.0 ** 40 + 1] * 2)
    np.testing.assert_allclose((x + 2 ** 40).numpy(), [1.0995116e12] * 2)  # (TF's values)
    np.testing.assert_array_equal(((x * 0 + 1) * 2 ** 40).numpy(), np.float32(2 ** 40))


@pytest.mark.parametrize("expr, dtype, values", [
    # (values measured with TF 2.21's operators)
    (lambda: tj.constant(1., "float16") * np.float32(3), np.float16, 3.0),
    (lambda: np.float32(3) * tj.constant(1., "float16"), np.float16, 3.0),
    (lambda: tj.constant([1.], "bfloat16") * np.float32(3.3), "bfloat16", [3.296875]),
    (lambda: tj.constant([1.], "float16") * np.float32(70000), np.float16, [np.inf]),
    (lambda: tj.constant([1], "int8") + np.array([300]), np.int8, [45]),
    (lambda: tj.constant([1], "int8") + [300], np.int8, [45]),
    (lambda: tj.constant([1], "uint8") - np.array([2]), np.uint8, [255]),
    (lambda: np.array([1], np.uint8) - tj.constant([2]), np.int32, [-1]),
    (lambda: tj.constant([1.], "float16") + [2.5], np.float16, [3.5]),
    (lambda: tj.constant([1.]) + np.array([True]), np.float32, [2.]),
    (lambda: tj.constant([1.]) * np.float64(1e40), np.float32, [np.inf]),
    (lambda: tj.Variable([1.], dtype="float16") - np.array([0.5]), np.float16, [0.5]),
    (lambda: tj.constant([1.], "float16") == np.array([1.]), np.bool_, [True]),
    (lambda: tj.constant([1.], "float16") < np.float32(1.0001), np.bool_, [False]),  # (1.0001 is 1 in float16)
    (lambda: tj.constant(1.) * 3_000_000_000, np.float32, 3e9),
])
def test_numpy_and_list_operands_take_the_tensor_dtype_as_tf(expr, dtype, values):
    got = expr()
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(np.asarray(got.numpy(), np.float64), values)


def test_numpy_operands_of_a_wider_kind_promote():
    # TF truncates (tf.constant([1]) + np.float32(2.5) is 3) or drops an imaginary part with a warning; tj's
    # operators promote as jax.numpy there instead of losing the value
    assert (tj.constant([1]) + np.array([2.5], np.float32)).numpy().tolist() == [3.5]
    assert (tj.constant([1.]) + np.array([1j], np.complex64)).numpy().tolist() == [1 + 1j]
    assert (tj.constant([True]) + np.array([2])).numpy().tolist() == [3]
    with tj.GradientTape() as t:  # (the converted operand leaves the gradient as it was)
        x = tj.constant([1., 2.], "float16")
        t.watch(x)
        y = tnp.sum(x * np.array([3., 4.]) + [[1.], [2.]])
    assert y.dtype == np.float16 and t.gradient(y, x).numpy().tolist() == [6., 8.]


def test_variable_name_must_be_a_string():
    # TF: tf.Variable(1.0, name=1) -> ValueError "name for name_scope must be a string."
    # (tapejax raised "can only concatenate str (not "int") to str")
    with pytest.raises(ValueError, match="name must be a string, got int 1"):
        tj.Variable(1.0, name=1)


def test_tf_dtype_names():
    # TF code says dtype=tf.float32 and compares x.dtype == tf.int32; the same names work here (TF's
    # tf.<name>.name is <name>)
    for name in ["bfloat16", "bool", "complex64", "float16", "float32", "int8", "int16", "int32", "uint8"]:
        t = tj.constant(np.zeros(2), dtype=getattr(tj, name))
        assert t.dtype == getattr(tj, name) and str(t.dtype) == name, name
    assert tj.numpy.astype(tj.constant([1.5]), tj.int32).dtype == tj.int32
    assert tj.Variable(1.0, dtype=tj.float16).dtype == np.float16
    assert {"float32", "int32", "bool"} <= set(tj.__all__)


def test_identity_is_a_recorded_copy_as_tf():
    # TF: y = tf.identity(x) is a new tensor whose gradient passes through; z computed from x alone does not
    # depend on y (tape.gradient(z, y) is None); tf.identity(v) of a Variable is a recorded read.
    x = tj.constant([1.0, 2.0])
    v = tj.Variable([3.0, 4.0])
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tj.identity(x)
        z = x * 2.0
        w = tj.identity(v) * 3.0
    assert y is not x and y.id != x.id
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [1.0, 1.0])
    assert tape.gradient(z, y) is None
    np.testing.assert_array_equal(tape.gradient(w, v).numpy(), [3.0, 3.0])
    with tj.ForwardAccumulator(x, tj.constant([1.0, -1.0])) as acc:
        y = tj.numpy.copy(x)
    np.testing.assert_array_equal(acc.jvp(y).numpy(), [1.0, -1.0])
    assert tj.numpy.copy(tj.constant([1, 2])).dtype == jnp.int32


@pytest.mark.parametrize("value, dtype", [
    # (dtypes measured with TF 2.21: a sequence's NumPy integers count as Python ints)
    ([np.int8(1), 2], np.int32), ([np.int8(1), 300], np.int32), ([np.uint8(1), np.uint8(2)], np.int32),
    ([np.array([1], np.int8), [2]], np.int32), ([[np.int8(1)], [2]], np.int32), ([np.int64(1), 2], np.int32),
    ([np.float16(1), 2.5], np.float16), ([np.int8(1), 1.5], np.float32), ([np.float32(1), np.float16(2)], np.float32),
])
def test_a_list_of_numpy_integers_converts_as_python_ints(value, dtype):
    for make in (tj.constant, tj.convert_to_tensor, lambda v: tj.Variable(v).read_value()):
        got = make(value)
        assert got.dtype == np.dtype(dtype), (make, got.dtype)
        np.testing.assert_array_equal(got.numpy(), np.asarray(value, np.float64).astype(dtype))
    # x64 off: one past int32 keeps the NumPy dtype that holds it (TF's int64 needs x64)
    assert tj.constant([np.uint32(4_000_000_000)]).numpy().tolist() == [4_000_000_000]
    # tj.numpy's conversions keep jax.numpy's inference
    for make in (tnp.array, tnp.asarray):
        assert make([np.int8(1), 2]).dtype == jnp.array([np.int8(1), 2]).dtype == np.int8


def test_a_dict_with_unsortable_keys_raises_type_error_as_tf():
    # TF: TypeError "'<' not supported between instances of 'str' and 'int'" from tf.nest (jax raises ValueError)
    x = tj.constant([1.])
    mixed = lambda v: {1: v, "b": v * 2}  # noqa: E731
    with tj.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * 3
    runs = {
        "tape target": lambda: t.gradient(mixed(y), x),
        "tape sources": lambda: t.gradient(y, mixed(x)),
        "jacobian sources": lambda: t.jacobian(y, mixed(x)),
        "tj.function argument": lambda: tj.function(lambda a: a[1])(mixed(x)),
        "tj.function result": lambda: tj.function(lambda: mixed(tj.constant(1.)))(),
        "accumulator primals": lambda: tj.ForwardAccumulator(mixed(x), mixed(x)),
        "tj.gradients ys": lambda: tj.function(lambda a: tj.gradients(mixed(a), a))(x),
    }
    for what, run in runs.items():
        with pytest.raises(TypeError, match="keys that cannot be sorted.*not supported between"):
            run()


def test_a_traced_number_as_a_condition_is_also_a_value_error():
    # TF's tf.function: ValueError "condition of if statement expected to be `tf.bool` scalar"; jax's class stays
    @tj.function
    def f(x):
        return x if x else -x
    with pytest.raises(ValueError, match="needs a concrete value") as info:
        f(tj.constant(1.))
    assert isinstance(info.value, jax.errors.TracerBoolConversionError)
    with pytest.raises(jax.errors.TracerBoolConversionError) as info:  # (a bool: TF's autograph would branch)
        f(tj.constant(True))
    assert not isinstance(info.value, ValueError)
