"""tj.Tensor and tj.constant: identity, properties, conversion, pytree, operators, repr."""
import gc
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj


def test_ids_unique_and_never_reused():
    # CPython reuses the memory (and id()) of freed objects; Tensor ids must not follow.
    seen = set()
    py_ids = set()
    for _ in range(200):
        t = tj.constant(1.0)
        assert t.id not in seen
        seen.add(t.id)
        py_ids.add(id(t))
        del t
    gc.collect()
    assert len(py_ids) < len(seen)  # memory really was reused, so the check above meant something
    a = tj.constant([1.0, 2.0])
    b = a + 1.0
    assert a.id != b.id
    assert isinstance(a.id, int)


def test_properties():
    arr = jnp.arange(6, dtype=jnp.float32).reshape(2, 3)
    t = tj.Tensor(arr)
    assert t.value is arr
    assert isinstance(t.value, jax.Array)
    assert t.shape == (2, 3)
    assert isinstance(t.shape, tuple)
    assert t.dtype == jnp.float32
    assert t.ndim == 2
    assert t.size == 6
    assert t.device == jax.devices()[0]


def test_scalar_properties():
    t = tj.constant(3.5)
    assert t.shape == ()
    assert t.ndim == 0
    assert t.size == 1


def test_numpy_and_asarray():
    t = tj.constant([[1.0, 2.0], [3.0, 4.0]])
    n = t.numpy()
    assert isinstance(n, np.ndarray)
    np.testing.assert_array_equal(n, [[1, 2], [3, 4]])
    a = np.asarray(t)
    assert isinstance(a, np.ndarray) and a.dtype == np.float32
    np.testing.assert_array_equal(a, n)
    a64 = np.asarray(t, dtype=np.float64)
    assert a64.dtype == np.float64
    j = jnp.asarray(t)
    assert isinstance(j, jax.Array)
    np.testing.assert_array_equal(np.asarray(j), n)
    # jnp functions accept tensors directly
    np.testing.assert_allclose(np.asarray(jnp.sum(t)), 10.0)


def test_pytree_roundtrip():
    t = tj.constant([1.0, 2.0, 3.0])
    tree = {"a": t, "b": [t * 2.0, (tj.constant(1),)]}
    leaves, treedef = jax.tree_util.tree_flatten(tree)
    assert len(leaves) == 3
    assert all(isinstance(l, jax.Array) for l in leaves)
    back = jax.tree_util.tree_unflatten(treedef, leaves)
    assert isinstance(back["a"], tj.Tensor)
    np.testing.assert_array_equal(back["a"].numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(back["b"][0].numpy(), [2.0, 4.0, 6.0])
    assert isinstance(back["b"][1], tuple) and back["b"][1][0].dtype == jnp.int32
    mapped = jax.tree_util.tree_map(lambda x: x + 1, tree)
    np.testing.assert_array_equal(mapped["a"].numpy(), [2.0, 3.0, 4.0])


def test_tensor_constructor_wraps_arrays_only():
    """tj.Tensor(value) holds a jax.Array (a NumPy array becomes one); anything else raises TypeError naming
    tj.constant (a tuple was wrapped unchecked and failed later on every attribute; TF's tf.Tensor((1, 1)) raises
    TypeError). A pytree leaf JAX fills with its own placeholders is not checked."""
    t = tj.Tensor(np.ones(2, np.float32))
    assert isinstance(t.value, jax.Array) and t.shape == (2,)
    for bad in [(1, 1), [1.0], 3.0, None, "a"]:
        with pytest.raises(TypeError, match="tj.constant"):
            tj.Tensor(bad)
    treedef = jax.tree_util.tree_structure(tj.constant(1.0))
    sentinel = object()
    assert jax.tree_util.tree_unflatten(treedef, [sentinel])._value is sentinel
    spec = jax.ShapeDtypeStruct((2,), jnp.float32)
    assert jax.tree_util.tree_unflatten(treedef, [spec])._value is spec


def test_tree_map_to_python_values_gives_them_as_on_jax_arrays():
    """``jax.tree_util.tree_map(lambda x: x.dtype, params)`` (a common way to look at a model) gives the dtypes,
    sizes, strings or None themselves, as it does on jax arrays: no Tensor can hold them (one did, and failed
    on every attribute, repr included)."""
    params = {"w": tj.constant(np.ones((2, 3), np.float32)), "b": tj.Variable(np.zeros(3, np.float32))}
    arrays = {"w": jnp.ones((2, 3), jnp.float32), "b": jnp.zeros(3, jnp.float32)}
    for f in (lambda x: x.dtype, lambda x: x.size, lambda x: x.shape, lambda x: str(x.dtype), lambda x: None,
              lambda x: float(np.sum(np.asarray(x))), lambda x: 1j):
        got, want = jax.tree_util.tree_map(f, params), jax.tree_util.tree_map(f, arrays)
        assert got == want, (got, want)
        assert repr(got) == repr(want)
    doubled = jax.tree_util.tree_map(lambda x: x * 2, params)  # (arrays are still wrapped)
    assert isinstance(doubled["w"], tj.Tensor) and isinstance(doubled["b"], tj.Tensor)


def test_tensor_through_jax_transform():
    t = tj.constant([1.0, 2.0, 3.0])
    out = jax.jit(lambda x: x.value * 2)(t)
    np.testing.assert_array_equal(np.asarray(out), [2.0, 4.0, 6.0])
    # tj ops on traced Tensors inside jit; the result comes back as a Tensor (pytree)
    r = jax.jit(lambda a: (a * 2.0 + 1.0).sum())(t)
    assert isinstance(r, tj.Tensor)
    np.testing.assert_allclose(r.numpy(), 15.0)


@pytest.mark.parametrize("dtype_in,expected", [
    (1.5, jnp.float32), (2, jnp.int32), (True, jnp.bool_),
    ([1.0, 2.0], jnp.float32), ([1, 2], jnp.int32), ([True, False], jnp.bool_),
    ([1, 2.5], jnp.float32), ([[1, 2], [3, 4]], jnp.int32),
])
def test_constant_dtype_defaults(dtype_in, expected):
    assert tj.constant(dtype_in).dtype == expected
    assert tj.convert_to_tensor(dtype_in).dtype == expected


# TF 2.21's dtype of tf.constant / tf.convert_to_tensor of NumPy scalars and of lists holding them (np.float64 is a
# Python float subclass, np.complex128 a complex one: they keep their NumPy dtype, as a NumPy array does, not
# the Python number's float32 / complex64)
NUMPY_SCALAR_DTYPES_TF = [
    (np.float64(0.1), "float64"), (np.float32(0.1), "float32"), (np.float16(0.5), "float16"),
    (np.complex128(1j), "complex128"), (np.int64(3), "int64"), (np.bool_(True), "bool"),
    ([np.float64(1.0), np.float64(2.0)], "float64"), ([np.float64(1.0), 2.0], "float64"),
    ([np.float32(1.0), 2.0], "float32"), ([np.bool_(True), False], "bool"), ([np.int32(1), 2], "int32"),
]


@pytest.mark.parametrize("x64", [False, True], ids=["x64_off", "x64_on"])
@pytest.mark.parametrize("value,tf_dtype", NUMPY_SCALAR_DTYPES_TF, ids=repr)
def test_numpy_scalars_keep_their_dtype_as_tf(value, tf_dtype, x64):
    """TF's dtype, as JAX holds it (x64 off: float64 is float32, int64 int32), eagerly and for a Variable."""
    import jax
    with jax.enable_x64(x64):
        want = jax.dtypes.canonicalize_dtype(np.dtype(tf_dtype))
        for make in (tj.constant, tj.convert_to_tensor, lambda v: tj.Variable(v).read_value()):
            assert make(value).dtype == want, (make, value)


def test_constant_explicit_dtype_and_sources():
    assert tj.constant(1, dtype=jnp.float32).dtype == jnp.float32
    assert tj.constant(np.array([1.0, 2.0], np.float64), dtype=jnp.float32).dtype == jnp.float32
    n = tj.constant(np.array([1, 2], np.int32))
    assert n.dtype == jnp.int32
    j = tj.constant(jnp.ones(3))
    assert isinstance(j, tj.Tensor) and j.shape == (3,)
    t = tj.constant([1.0])
    assert tj.constant(t).shape == (1,)
    assert tj.convert_to_tensor(t) is t
    v = tj.Variable([1.0, 2.0])
    np.testing.assert_array_equal(tj.constant(v).numpy(), [1.0, 2.0])


def test_arithmetic_operators_match_numpy():
    a_np = np.array([1.5, -2.0, 3.0], np.float32)
    b_np = np.array([0.5, 4.0, -2.5], np.float32)
    a, b = tj.constant(a_np), tj.constant(b_np)
    cases = [
        (a + b, a_np + b_np), (a - b, a_np - b_np), (a * b, a_np * b_np), (a / b, a_np / b_np),
        (a // b, a_np // b_np), (a % b, a_np % b_np), (abs(a) ** b, np.abs(a_np) ** b_np),
        (-a, -a_np), (abs(a), np.abs(a_np)),
        (a + 1.0, a_np + 1), (2.0 - a, 2 - a_np), (3.0 * a, 3 * a_np), (1.0 / b, 1 / b_np),
        (7.0 // b, 7 // b_np), (7.0 % b, np.mod(7, b_np)), (2.0 ** a, 2.0 ** a_np),
        (a_np * b, a_np * b_np),
    ]
    for got, want in cases:
        assert isinstance(got, tj.Tensor)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


def test_matmul():
    x_np = np.arange(6, dtype=np.float32).reshape(2, 3)
    y_np = np.arange(12, dtype=np.float32).reshape(3, 4)
    r = tj.constant(x_np) @ tj.constant(y_np)
    assert isinstance(r, tj.Tensor) and r.shape == (2, 4)
    np.testing.assert_allclose(r.numpy(), x_np @ y_np)
    r2 = x_np @ tj.constant(y_np)
    assert isinstance(r2, tj.Tensor)
    np.testing.assert_allclose(r2.numpy(), x_np @ y_np)


def test_comparisons_give_bool_tensors():
    a = tj.constant([1.0, 2.0, 3.0])
    b = tj.constant([3.0, 2.0, 1.0])
    for got, want in [(a < b, [True, False, False]), (a <= b, [True, True, False]),
                      (a > b, [False, False, True]), (a >= b, [False, True, True]),
                      (a == b, [False, True, False]), (a != b, [True, False, True]),
                      (a > 1.5, [False, True, True])]:
        assert isinstance(got, tj.Tensor)
        assert got.dtype == jnp.bool_
        np.testing.assert_array_equal(got.numpy(), want)


def test_comparison_not_recorded():
    x = tj.constant([1.0, 2.0])
    with tj.GradientTape() as tape:
        tape.watch(x)
        c = x > 1.0
        y = (x * x).sum()
    assert c.dtype == jnp.bool_
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 4.0])


def test_bool():
    assert bool(tj.constant(True)) is True
    assert bool(tj.constant([0.0])) is False
    assert bool(tj.constant([[2.0]])) is True
    assert bool(tj.constant(3.0) > 2.0) is True
    with pytest.raises(ValueError):
        bool(tj.constant([1.0, 2.0]))


def test_indexing_basic_and_advanced():
    m_np = np.arange(12, dtype=np.float32).reshape(3, 4)
    m = tj.constant(m_np)
    cases = [
        (m[1], m_np[1]), (m[1:], m_np[1:]), (m[:, 2], m_np[:, 2]), (m[-1, ::2], m_np[-1, ::2]),
        (m[None, 0], m_np[None, 0]), (m[..., 1], m_np[..., 1]), (m[1, 2], m_np[1, 2]),
        (m[[0, 2]], m_np[[0, 2]]), (m[np.array([2, 0]), np.array([1, 3])], m_np[[2, 0], [1, 3]]),
        (m[tj.constant([1, 1, 0])], m_np[[1, 1, 0]]), (m[np.array([True, False, True])], m_np[[0, 2]]),
    ]
    for got, want in cases:
        assert isinstance(got, tj.Tensor)
        assert got.shape == want.shape
        np.testing.assert_array_equal(got.numpy(), want)


def test_indexing_is_differentiable():
    x_np = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    x = tj.constant(x_np)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = (x[tj.constant([0, 0, 3])] * x[1:3].sum()).sum()
    g = tape.gradient(y, x)

    def f(v):
        return (v[jnp.array([0, 0, 3])] * v[1:3].sum()).sum()
    np.testing.assert_allclose(g.numpy(), np.asarray(jax.grad(f)(jnp.asarray(x_np))), rtol=1e-6)


def test_indexing_2d_boolean_mask():
    m_np = np.arange(12, dtype=np.float32).reshape(3, 4)
    got = tj.constant(m_np)[m_np > 5]
    assert got.shape == (6,)
    np.testing.assert_array_equal(got.numpy(), m_np[m_np > 5])


def test_indexing_bool_tensor_mask():
    x = tj.constant([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(x[x > 1.5].numpy(), [2.0, 3.0])


def test_T_reshape_astype():
    m_np = np.arange(6, dtype=np.float32).reshape(2, 3)
    m = tj.constant(m_np)
    np.testing.assert_array_equal(m.T.numpy(), m_np.T)
    assert m.reshape(3, 2).shape == (3, 2)
    assert m.reshape((6,)).shape == (6,)
    assert m.reshape(-1).shape == (6,)
    np.testing.assert_array_equal(m.reshape(3, 2).numpy(), m_np.reshape(3, 2))
    c = m.astype(jnp.int32)
    assert c.dtype == jnp.int32
    np.testing.assert_array_equal(c.numpy(), m_np.astype(np.int32))
    assert isinstance(m.T, tj.Tensor) and isinstance(c, tj.Tensor)


def test_reductions():
    m_np = np.array([[1.0, 5.0, -2.0], [4.0, 0.5, 3.0]], np.float32)
    m = tj.constant(m_np)
    np.testing.assert_allclose(m.sum().numpy(), m_np.sum())
    np.testing.assert_allclose(m.sum(axis=0).numpy(), m_np.sum(axis=0))
    np.testing.assert_allclose(m.mean().numpy(), m_np.mean(), rtol=1e-6)
    np.testing.assert_allclose(m.mean(axis=1, keepdims=True).numpy(), m_np.mean(axis=1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(m.max().numpy(), 5.0)
    np.testing.assert_allclose(m.max(axis=1).numpy(), [5.0, 4.0])
    np.testing.assert_allclose(m.min().numpy(), -2.0)
    np.testing.assert_allclose(m.min(axis=0).numpy(), [1.0, 0.5, -2.0])


def test_methods_are_recorded():
    x_np = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    x = tj.constant(x_np)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = (x.T.reshape(4) * x.reshape(-1)).sum() + x.sum(axis=0).max() * x.min() + abs(-x).min() + (x ** 2 @ x).sum()

    def f(v):
        return (v.T.reshape(4) * v.reshape(-1)).sum() + v.sum(axis=0).max() * v.min() + jnp.abs(-v).min() + (v ** 2 @ v).sum()
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.asarray(jax.grad(f)(jnp.asarray(x_np))), rtol=1e-5)


def test_mean_value_under_tape():
    # regression: mean() once computed the sum whenever a tape recorded it
    x_np = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    x = tj.constant(x_np)
    with tj.GradientTape() as tape:
        tape.watch(x)
        m = x.mean()
        y = m * x.max()
    np.testing.assert_allclose(m.numpy(), 2.5)

    def f(v):
        return v.mean() * v.max()
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.asarray(jax.grad(f)(jnp.asarray(x_np))), rtol=1e-6)


def test_repr_format():
    assert repr(tj.constant([1.0, 2.0, 3.0])) == "<tj.Tensor shape=(3,) dtype=float32 numpy=[1. 2. 3.]>"
    assert repr(tj.constant(2)) == "<tj.Tensor shape=() dtype=int32 numpy=2>"
    assert repr(tj.constant([True])) == "<tj.Tensor shape=(1,) dtype=bool numpy=[ True]>"


def test_tensor_unhashable_but_ref_is():
    t = tj.constant(1.0)
    with pytest.raises(TypeError):
        hash(t)
    d = {t.ref(): 1}
    assert d[t.ref()] == 1
    assert t.ref().deref() is t


def test_float_int_len_iter():
    assert float(tj.constant(2.5)) == 2.5
    assert int(tj.constant(3)) == 3
    t = tj.constant([[1.0, 2.0], [3.0, 4.0]])
    assert len(t) == 2
    rows = list(t)
    assert len(rows) == 2 and rows[1].shape == (2,)
    np.testing.assert_array_equal(rows[1].numpy(), [3.0, 4.0])


def test_jax_array_on_the_left_of_a_watched_tensor_refuses_instead_of_dropping_the_gradient():
    x = tj.constant([1.0, 2.0])
    a = jnp.ones(2)
    with tj.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(TypeError, match="silently drop its gradient"):
            a * x
        y = tj.numpy.multiply(a, x)
        # An explicit conversion asks for the raw value and is allowed (API.md: jnp.asarray(t) works).
        np.testing.assert_allclose(np.asarray(jnp.asarray(y)), [1.0, 2.0])
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [1.0, 1.0])
    # Outside any tape the conversion is allowed (no gradient can be lost).
    np.testing.assert_allclose(np.asarray(jnp.asarray(x)), [1.0, 2.0])


def test_shape_is_a_tuple_with_tfs_tensorshape_methods():
    # TF 2.21's answers for tf.constant([[1., 2., 3.], [4., 5., 6.]]).shape (run side by side)
    for s in (tj.constant(np.ones((2, 3), np.float32)).shape, tj.Variable(np.ones((2, 3), np.float32)).shape,
              tj.constant(np.ones((2, 3), np.float32)).get_shape()):
        assert isinstance(s, tuple) and isinstance(s, tj.TensorShape)
        assert s == (2, 3) and s == [2, 3] and s == tj.TensorShape([2, 3]) and not (s != [2, 3])
        assert s != [2, None] and hash(s) == hash((2, 3))
        assert s.as_list() == [2, 3] and s.rank == s.ndims == 2 and s.dims == [2, 3]
        assert s.num_elements() == 6 and s.is_fully_defined()
        assert s[0] == 2 and type(s[0]) is int and s[1:] == [3] and isinstance(s[1:], tj.TensorShape)
        assert s.is_compatible_with([2, None]) and not s.is_compatible_with([3, 3]) and s.is_compatible_with(None)
        assert s.merge_with([None, 3]) == (2, 3)
        with pytest.raises(ValueError, match=re.escape("Shapes (2, 3) and (3, 3) are not compatible")):
            s.merge_with([3, 3])
        assert s.concatenate([4]) == (2, 3, 4) == s + [4]
        with pytest.raises(ValueError, match=re.escape("Shape (2, 3) must have rank 3")):
            s.with_rank(3)
        assert repr(s) == "(2, 3)" and np.zeros(s).shape == (2, 3)
    partial = tj.TensorShape([None, 3])
    assert partial.num_elements() is None and not partial.is_fully_defined() and partial.as_list() == [None, 3]
    with pytest.raises(ValueError, match="unknown rank"):
        tj.TensorShape(None)
    with pytest.raises(TypeError, match="sequence of ints"):
        tj.TensorShape([2.5])


def test_a_shape_is_a_tuple_to_jax_pytrees_and_pickle():
    import pickle
    s = tj.constant(np.ones((2, 3), np.float32)).shape
    assert jax.tree_util.tree_leaves({"s": s}) == [2, 3]
    assert jax.tree_util.tree_map(lambda d: d * 2, s) == (4, 6)
    assert int(jax.jit(lambda s: s[0] + 1)(s)) == 3
    assert pickle.loads(pickle.dumps(s)) == s
    lazy = tj.config.lazy
    with tj.GradientTape() as tape:  # a deferred op's output: its shape without running it
        x = tj.constant(np.ones((4, 5), np.float32))
        tape.watch(x)
        y = x * 2.0
        assert y.shape.as_list() == [4, 5]
    assert lazy == tj.config.lazy


# A NumPy array large enough that the CPU client would share its memory rather than copy it (seen at 1000
# floats, not at 8), made ready before the write so no asynchronous copy can hide sharing.
def _shared_candidate(dtype=np.float32):
    return np.ones(1000, dtype)


def test_numpy_values_are_copied_when_converted_or_passed():
    """A later write to the caller's NumPy array changes no Tensor, Variable, pending op or tape residual
    (TF copies; on the CPU jnp.asarray(a, dtype) and jax.device_put(a) may share its memory)."""
    seen = {}
    a = _shared_candidate()
    seen["tj.constant"] = tj.constant(a)
    b = _shared_candidate()
    seen["tj.constant(dtype=)"] = tj.constant(b, dtype=tj.float32)
    c = _shared_candidate()
    seen["tj.Variable"] = tj.Variable(c)
    d = _shared_candidate()
    v = tj.Variable(np.zeros(1000, np.float32))
    v.assign(d)
    seen["Variable.assign"] = v
    for arr in seen.values():
        (arr.read_value() if isinstance(arr, tj.Variable) else arr).value.block_until_ready()
    for arr in (a, b, c, d):
        arr[0] = 5.0
    for what, t in seen.items():
        assert t.numpy()[0] == 1.0, what

    x = tj.constant(np.full(1000, 2.0, np.float32))
    for lazy in (True, False):
        with tj.config.override(lazy=lazy):
            e = _shared_candidate()
            with tj.GradientTape() as tape:
                tape.watch(x)
                y = x * e          # the tape keeps e for the gradient, the deferred op for its value
                e[0] = 5.0
                z = tj.numpy.sum(y)
            assert y.numpy()[0] == 2.0, lazy
            assert tape.gradient(z, x).numpy()[0] == 1.0, lazy


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint8, np.bool_, np.complex128])
def test_numpy_op_arguments_compile_only_the_op_and_are_copied(dtype, caplog):
    """A NumPy array given to an op (of a shape and dtype not fed before) becomes a device copy in jnp.asarray's
    dtype without an XLA program of its own: only the op's kernel compiles (jnp.array compiles a conversion
    program per new shape and dtype). Arrays of a shape fed again (a loop's batches) are copied by jnp.array's
    compiled program. Either way the result is jax.numpy's, bit for bit, and a later write to the array
    changes nothing."""
    with np.errstate(over="ignore"):
        a = (np.arange(5 * 19 * 4) % 11 - 4).astype(dtype).reshape(5, 19, 4)
    a = np.repeat(a, np.dtype(dtype).num + 1, axis=0)  # (a shape per dtype: float64 arrays become float32 ones)
    b = a[:1].copy()
    with jax.log_compiles(), caplog.at_level("WARNING"):
        got = tj.numpy.multiply(a, b)
        got.value.block_until_ready()
    compiled = [r.getMessage().split(" with ")[0] for r in caplog.records if r.getMessage().startswith("Compiling")]
    assert len(compiled) == 1 and "convert_element_type" not in compiled[0], compiled
    again = tj.numpy.multiply(a, b)  # (shapes fed before)
    want = np.asarray(jnp.multiply(jnp.asarray(a), jnp.asarray(b)))  # (after: jnp.asarray compiles a conversion)
    a[0, 0, 0] = 7
    b[0, 0, 1] = 7
    for t in (got, again):
        assert t.dtype == want.dtype and t.shape == want.shape
        np.testing.assert_array_equal(np.asarray(t.value).view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.int64, np.int32, np.uint8, np.bool_,
                                   np.complex128])
def test_numpy_conversion_matches_jnp_asarray_and_compiles_nothing(dtype, caplog):
    """tj.constant of a NumPy array (of a shape no earlier test used) gives jnp.asarray's dtype and values, bit
    for bit (float64 rounded to float32 on the host, NaN, -0.0, subnormals, underflow to 0, float32's largest
    value, and a float32 array's infinities included), without compiling an XLA program (jnp.asarray compiles
    one per shape and dtype). (A float64 value past float32's range raises:
    test_values_jax_s_32_bits_would_change_raise_instead.)"""
    wide = np.dtype(dtype).itemsize >= 8
    with np.errstate(over="ignore"):
        if np.issubdtype(dtype, np.inexact):
            big, small = (3.4028234e38, -1e-300) if wide else (1e300, -1e300)
            a = np.array([1.1, -0.0, np.nan, 1e-40, big, small, 3.0, 7.5, 0.1, 2.0, 9.0], dtype).reshape(11, 1)
        else:
            a = np.array([0, 1, 1, 0, 1, 0, 1, 1, 0, 1, 1], dtype).reshape(11, 1)
    want = jnp.asarray(a)
    with jax.log_compiles(), caplog.at_level("WARNING"):
        t = tj.constant(np.ascontiguousarray(a.reshape(1, 11, 1)))
    assert not [r for r in caplog.records if r.getMessage().startswith("Compiling")], caplog.text
    assert t.dtype == want.dtype and not t.value.weak_type
    np.testing.assert_array_equal(np.asarray(t.value).view(np.uint8), np.asarray(want).reshape(1, 11, 1).view(np.uint8))


@pytest.mark.parametrize("value,dtype", [
    ([[0.1, -0.0, 1e-40, 3.5, 7.25, 1e6, 2.0, 1.0, 9.0, 4.0, 8.0, 6.0, 5.0]], None),
    ([[3, -7, 2 ** 31 - 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]], None),
    ([[True, False, True, True, False, True, False, True, True, False, True, False, True, True, False]], None),
    ([[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]], tj.float32),
    ([[0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5, 12.5, 13.5, 14.5, 15.5, 16.5]], tj.float16),
    (2.5, tj.bfloat16),
])
def test_python_values_convert_as_jnp_asarray_and_compile_nothing(value, dtype, caplog):
    """tj.constant of Python numbers (nested lists, shapes no earlier test used) gives jnp.asarray's values and
    dtype, without the XLA program jnp.asarray compiles for each new shape (~40 ms the first time)."""
    want_dtype = dtype if dtype is not None else {float: jnp.float32, int: jnp.int32, bool: jnp.bool_}[
        type(np.asarray(value, object).ravel()[0])]
    with jax.log_compiles(), caplog.at_level("WARNING"):
        t = tj.constant(value, dtype=dtype)
    want = jnp.asarray(value, dtype=want_dtype)  # after: it compiles the program a conversion would reuse
    assert not [r for r in caplog.records if r.getMessage().startswith("Compiling")], caplog.text
    assert t.dtype == want.dtype and not t.value.weak_type and t.shape == want.shape
    np.testing.assert_array_equal(np.atleast_1d(np.asarray(t.value)).view(np.uint8),
                                  np.atleast_1d(np.asarray(want)).view(np.uint8))


def test_python_values_numpy_would_convert_still_raise():
    """The host conversion takes Python numbers only: NumPy would make NaN of None and wrap an integer out of
    the dtype's range, where TF (and jnp.asarray) refuse them."""
    with pytest.raises(TypeError, match="Cannot convert"):
        tj.constant([None, 1.0], dtype=tj.float32)
    for value, dtype in [([2 ** 40], tj.int32), ([300], tj.int8), ([-1], tj.uint8)]:
        with pytest.raises(OverflowError):
            tj.constant(value, dtype=dtype)


def test_values_jax_s_32_bits_would_change_raise_instead():
    """With x64 off JAX holds a 64-bit value in 32 bits: it wraps an integer past int32 around (2**35 becomes 0)
    and makes a float past float32's range inf, silently, where TF keeps the 64-bit value. tapejax raises
    OverflowError naming the value instead, wherever such a value enters: tj.constant and convert_to_tensor
    (NumPy arrays and scalars, Python floats; also with a 64-bit dtype asked for), Variables, op arguments
    (an operator's NumPy operand of no wider kind is cast to the Tensor's dtype, as TF's), tj.function arguments, lists packed with Tensors, and the fill values and bounds of tj.numpy's constructors.
    An explicit narrower dtype is a cast, as TF's; values that fit, NaN and inf pass."""
    big_int, big_float, B35 = np.array([7, 2 ** 35]), np.array([1.0, 1e300]), np.int64(2 ** 35)
    entries = [
        lambda v: tj.constant(v), lambda v: tj.convert_to_tensor(v), lambda v: tj.Variable(v),
        lambda v: tj.numpy.sum(v), lambda v: tj.function(lambda a: a * 2)(v),
    ]
    for value, words in [(big_int, "34359738368 does not fit int32"), (big_float, "1e+300 is past float32's range"),
                         (np.int64(-2 ** 40), "-1099511627776 does not fit int32"),
                         (np.uint64(2 ** 63), "9223372036854775808 does not fit uint32"),
                         (np.array([1e300j]), "1e+300 is past complex64's range")]:
        for enter in entries:
            with pytest.raises(OverflowError, match=re.escape(words)) as info:
                enter(value)
            assert "x64" in str(info.value)
    for value, dtype in [(1e300, None), ([2.0, -1e300], None), (1e300, tj.float64), (big_float, tj.float64),
                         (big_int, tj.int64), ([2 ** 35], tj.int64)]:
        with pytest.raises(OverflowError, match="1e\\+300|34359738368"):
            tj.constant(value, dtype=dtype)
    for make in [lambda: tj.numpy.full((2,), np.int64(2 ** 35)), lambda: tj.numpy.full_like(tj.constant([1]), B35),
                 lambda: tj.numpy.arange(2 ** 35, 2 ** 35 + 2), lambda: tj.numpy.arange(np.int64(-2 ** 35), 0),
                 lambda: tj.constant([tj.constant(1), B35]), lambda: tj.constant([1]) * [tj.constant(2), B35]]:
        with pytest.raises(OverflowError, match="does not fit int32"):
            make()
    np.testing.assert_array_equal(tj.numpy.full((1,), B35, dtype=tj.float32).numpy(), [2.0 ** 35])
    np.testing.assert_array_equal(tj.numpy.arange(2 ** 35, 2 ** 35 + 2, dtype=tj.float32).numpy(), [2.0 ** 35] * 2)
    # an operator converts a NumPy operand of no wider kind with the Tensor's dtype: TF's cast, as below
    np.testing.assert_array_equal((tj.constant([1]) + big_int).numpy(), 1 + big_int.astype(np.int32))
    with np.errstate(over="ignore"):
        assert np.isinf((tj.constant([1.0]) + big_float).numpy()[1])
    with pytest.raises(OverflowError, match="1e\\+300 is past complex64's range"):
        tj.constant([1.0]) + np.array([1e300j])  # a wider kind promotes, and complex64 cannot hold it
    # an explicit 32-bit dtype is a cast of the 64-bit values, as TF's (not of JAX's 32-bit copy of them)
    np.testing.assert_array_equal(tj.constant(big_int, dtype=tj.int32).numpy(), big_int.astype(np.int32))
    np.testing.assert_array_equal(tj.constant(big_int, dtype=tj.float32).numpy(), np.float32([7, 2 ** 35]))
    assert tj.constant(np.array([16777217.0]), dtype=tj.int32).numpy()[0] == 16777217
    with np.errstate(over="ignore"):
        assert np.isinf(tj.constant(big_float, dtype=tj.float32).numpy()[1])
    # values 32 bits hold, NaN and inf convert as before
    for value in [np.array([7, -2 ** 31, 2 ** 31 - 1]), np.array([np.nan, np.inf, -np.inf, 3.4e38]), np.int64(5),
                  np.float64(-1e-300), np.array([], np.int64), 3.4e38, float("inf")]:
        want = np.asarray(jnp.asarray(value))
        for got in (tj.constant(value), tj.numpy.negative(value), tj.function(lambda a: -a)(value)):
            np.testing.assert_array_equal(np.abs(got.numpy()), np.abs(want))


def test_constants_made_inside_a_function_stay_concrete():
    """tj.constant inside tj.function is a constant TF folds (usable as a shape there), NumPy values included."""
    @tj.function
    def f(x):
        return tj.numpy.reshape(x, tj.constant([2, 3], dtype=tj.int32)) + tj.constant(np.ones((2, 3), np.float32))
    np.testing.assert_array_equal(f(tj.constant(np.arange(6.0, dtype=np.float32))).numpy(),
                                  np.arange(6.0).reshape(2, 3) + 1)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.bool_, np.complex64])
def test_as_array_is_jnp_asarray_without_a_program_or_shared_memory(dtype, caplog):
    """tensor.as_array (what differentiate, jacobian and the zeros of sources and tangents use for NumPy values):
    jnp.asarray's dtype and bits, a copy (a later write to the caller's array changes nothing), and no XLA program
    (jnp.asarray compiles one per new shape)."""
    from tapejax.tensor import as_array
    a = (np.arange(1000) % 7 - 3).astype(dtype).reshape(8, 125)  # large enough that jax.device_put would share it
    want = np.array(jnp.asarray(a), copy=True)
    with jax.log_compiles(), caplog.at_level("WARNING"):
        got = as_array(a.reshape(125, 8))
    assert not [r for r in caplog.records if r.getMessage().startswith("Compiling")], caplog.text
    a[0, 0] = 5  # the caller's array changes: the array made from it does not
    assert got.dtype == want.dtype and got.shape == (125, 8) and not got.weak_type
    np.testing.assert_array_equal(np.asarray(got).reshape(8, 125).view(np.uint8), want.view(np.uint8))
    assert as_array(2.0).weak_type and as_array(2.0).dtype == jnp.asarray(2.0).dtype  # Python numbers: jnp.asarray's


def test_differentiate_converts_numpy_arguments_without_a_program_and_copies_them(caplog):
    """tj.differentiate turns NumPy arguments into arrays with as_array: only its own forward program compiles (no
    jnp.asarray program for the argument's shape), and the argument its forward keeps as a residual is a copy: a
    later write to the caller's array does not change the backward pass."""
    a = np.linspace(0.5, 2.0, 7 * 13 * 3).astype(np.float32).reshape(7, 13, 3)  # a shape no other test uses
    with jax.log_compiles(), caplog.at_level("WARNING"):
        d = tj.differentiate(lambda x: tj.numpy.sum(tj.numpy.sin(x) * x), a)
        y, res = d.forward(a)
    compiled = [r.getMessage().split(" with ")[0] for r in caplog.records if r.getMessage().startswith("Compiling")]
    assert compiled and not [c for c in compiled if "_forward_impl" not in c], compiled
    want = np.sin(a) + a * np.cos(a)
    a[:] = 0.0
    (g,) = d.backward(tj.constant(1.0), res)
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-5, atol=1e-6)


def test_copy_and_pickle_of_tensors_as_tf():
    """As TF's eager tensors: copy.copy and copy.deepcopy give the tensor itself (a copy sharing its id made the
    tapes and accumulators following it forget it when the copy died: a None gradient and jvp), also of a
    tensor a tape deferred; pickle gives a new tensor of the same value and an id of its own, which a tape
    does not take for the original."""
    import copy
    import pickle
    x = tj.constant(3.0)
    with tj.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with tj.GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
            for make in (copy.copy, copy.deepcopy, lambda t: copy.deepcopy({"t": [t]})["t"][0]):
                assert make(y) is y
                gc.collect()
        dy = inner.gradient(y, x)
    np.testing.assert_allclose(dy.numpy(), 27.0)
    np.testing.assert_allclose(outer.gradient(dy, x).numpy(), 18.0)
    with tj.ForwardAccumulator(x, tj.constant(1.0)) as acc:
        y = x * x
        assert copy.deepcopy(y) is y
        gc.collect()
    np.testing.assert_allclose(acc.jvp(y).numpy(), 6.0)

    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * tj.constant([1.0, 2.0])  # (a pending tensor while the tape records: computed to pickle it)
        clone = pickle.loads(pickle.dumps(y))
        z = 2.0 * clone
    assert type(clone) is tj.Tensor and clone.id != y.id and clone.dtype == y.dtype
    np.testing.assert_array_equal(clone.numpy(), [3.0, 6.0])
    assert tape.gradient(z, x) is None  # (TF: None; the clone is a constant the tape never saw)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), 3.0)
    assert pickle.loads(pickle.dumps({"g": [tj.constant(np.int32(4))]}))["g"][0].numpy() == 4


def test_bytes_of_tensors_as_tf():
    """``bytes(t)`` as TF 2.21's (values taken from it): the raw bytes of the values, and for an integer scalar that
    many zero bytes (CPython asks ``__index__`` first). A float tensor raised a TypeError about indexing (before
    Python 3.12 a class's buffer is not seen by ``bytes``). TF's float scalars raise AttributeError (numpy.float32
    has no __index__); tapejax gives their bytes, as NumPy's scalars do."""
    assert bytes(tj.constant([1.0, 2.0])) == np.array([1.0, 2.0], np.float32).tobytes()
    assert bytes(tj.constant([[1, 2]])) == np.array([1, 2], np.int32).tobytes()
    assert bytes(tj.constant(3)) == b"\x00\x00\x00"
    assert bytes(tj.constant(2.5)) == bytes(np.float32(2.5))
    assert bytes(tj.Variable([1.0, 2.0])) == np.array([1.0, 2.0], np.float32).tobytes()
    with pytest.raises(ValueError):
        bytes(tj.constant(-1))
