"""jax.Array's methods and properties on tj.Tensor and tj.Variable, and ``.at[index]`` (indexed updates).

Every expected value comes from jax itself (the jax.Array method on the same data, jax.grad, jax.jvp), never
from tapejax. The methods computing an array are tj.numpy's functions (recorded ops): their values, positional
and keyword arguments, gradients and tj.function traces are checked against jax.Array's. ``.at[...]`` is one op
per method (ops ``at_set``, ``at_add``...; the registry-wide tests cover their samples): here its index kinds,
jax's out-of-bounds modes and keywords, gradients, forward-mode tangents and second order against jax's, and
multiply/divide/power with a repeated index (where jax has no derivative in the values) against jax's derivative
of the same update written as a sequence of single-entry updates.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from conftest import jax_reference

tnp = tj.numpy

_rng = np.random.default_rng(1234)
X = np.asarray(_rng.normal(size=(3, 4)), np.float32)  # no ties: kinks (clip, ptp, sort) are away from it
X3 = np.asarray(_rng.normal(size=(2, 3, 4)), np.float32)
SORTED = np.sort(np.asarray(_rng.normal(size=(6,)), np.float32))
INTS = np.array([[2, 0, 1, 1], [0, 2, 2, 1], [1, 1, 0, 2]], np.int32)
CHOICES = [np.asarray(_rng.normal(size=(3, 4)), np.float32) for _ in range(3)]
W = np.asarray(_rng.normal(size=(64,)), np.float32)  # weights of the scalar losses


def _close(got, want, rtol=1e-5, atol=1e-6):
    got = got.numpy() if isinstance(got, (tj.Tensor, tj.Variable)) else got
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)


def _same(got, want):
    """A Tensor (or tuple of them) with jax's value, shape and dtype."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    assert isinstance(got, tj.Tensor), type(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    _close(got, want)


# -- the methods: (name, data, args, kwargs) -------------------------------------------------------------

CASES = [
    ("all", X > 0, (), {}), ("all", X > -1, (1,), {}), ("all", X > 0, (), {"axis": 0, "keepdims": True}),
    ("all", X > -1, (), {"where": X > 0}),
    ("any", X > 1, (), {}), ("any", X > 1, (0,), {}), ("any", X > 1, (), {"axis": 1, "keepdims": True}),
    ("argmax", X, (), {}), ("argmax", X, (1,), {}), ("argmax", X, (), {"axis": 0, "keepdims": True}),
    ("argmin", X, (), {}), ("argmin", X, (0,), {}), ("argmin", X, (), {"axis": 1, "keepdims": True}),
    ("argpartition", X, (2,), {}), ("argpartition", X, (1,), {"axis": 0}),
    ("argsort", X, (), {}), ("argsort", X, (0,), {}), ("argsort", X, (), {"axis": None, "descending": True}),
    ("choose", INTS, (CHOICES,), {}), ("choose", INTS + 1, (CHOICES,), {"mode": "clip"}),
    ("choose", INTS - 1, (CHOICES, None, "wrap"), {}),
    ("clip", X, (-0.5, 0.5), {}), ("clip", X, (), {"min": -0.3}), ("clip", X, (), {"max": 0.2}),
    ("clip", X, (None, 0.4), {}),
    ("compress", X, (np.array([True, False, True]),), {"axis": 0}),
    ("compress", X, (np.array([False, True, True, False]), 1), {}),
    ("compress", X, (), {"condition": np.array([True, False, True, True, False])}),
    ("compress", X, (np.array([True, False, True]),), {"axis": 0, "size": 3, "fill_value": 7.0}),
    ("copy", X, (), {}),
    ("cumprod", X, (), {}), ("cumprod", X, (1,), {}), ("cumprod", X, (), {"axis": 0, "dtype": jnp.float32}),
    ("cumsum", X, (), {}), ("cumsum", X, (0,), {}), ("cumsum", INTS, (), {"axis": 1, "dtype": jnp.float32}),
    ("diagonal", X, (), {}), ("diagonal", X, (1,), {}), ("diagonal", X3, (), {"offset": -1, "axis1": 2, "axis2": 1}),
    ("dot", X, (X.T,), {}), ("dot", X, (X[0],), {"precision": "highest"}),
    ("dot", X, (), {"b": X.T, "preferred_element_type": jnp.float32}),
    ("nonzero", X > 0, (), {}), ("nonzero", X > 0, (), {"size": 8, "fill_value": -1}),
    ("ptp", X, (), {}), ("ptp", X, (1,), {}), ("ptp", X, (), {"axis": 0, "keepdims": True}),
    ("repeat", X, (2,), {}), ("repeat", X, (np.array([1, 0, 3]), 0), {}), ("repeat", X, (), {"repeats": 2, "axis": 1}),
    ("repeat", X, (np.array([1, 2, 1]),), {"axis": 0, "total_repeat_length": 5}),
    ("round", X, (), {}), ("round", X, (1,), {}), ("round", X, (), {"decimals": 2}),
    ("searchsorted", SORTED, (np.float32(0.1),), {}), ("searchsorted", SORTED, (X, "right"), {}),
    ("searchsorted", SORTED[::-1], (), {"v": X[0], "side": "left", "sorter": np.arange(5, -1, -1)}),
    ("sort", X, (), {}), ("sort", X, (0,), {}), ("sort", X, (), {"axis": None}),
    ("sort", X, (), {"axis": 1, "descending": True, "stable": True}),
    ("std", X, (), {}), ("std", X, (1,), {}), ("std", X, (0, None, None, 1, True), {}),
    ("std", X, (), {"axis": 1, "ddof": 1, "keepdims": True}), ("std", X, (), {"correction": 1}),
    ("std", X, (), {"where": X > -0.5}),
    ("var", X, (), {}), ("var", X, (0,), {}), ("var", X, (), {"axis": 0, "ddof": 1}),
    ("var", X, (), {"dtype": jnp.float32, "keepdims": True}),
    ("swapaxes", X, (0, 1), {}), ("swapaxes", X3, (), {"axis1": 2, "axis2": 0}),
    ("take", X, (np.array([0, 5, 11]),), {}), ("take", X, (np.array([2, 0]), 1), {}),
    ("take", X, (), {"indices": np.array([[0, 2]]), "axis": 0}),
    ("take", X, (np.array([7, -9]),), {"axis": 1, "mode": "clip"}),
    ("take", X, (np.array([1, 9]),), {"axis": 1, "mode": "fill", "fill_value": 0.5}),
    ("trace", X, (), {}), ("trace", X, (1,), {}), ("trace", X3, (), {"offset": -1, "axis1": 1, "axis2": 2}),
]

# differentiable in the array (self): tape.gradient must be jax.grad (no kinks or ties at X)
DIFFERENTIABLE = {"clip", "compress", "copy", "cumprod", "cumsum", "diagonal", "dot", "ptp", "repeat", "sort", "std",
                  "var", "swapaxes", "take", "trace"}


def _ids(cases):
    return [f"{name}-{i}" for i, (name, *_) in enumerate(cases)]


def _jax_call(name, data, args, kwargs):
    return getattr(jnp.asarray(data), name)(*args, **kwargs)


@pytest.mark.parametrize("name,data,args,kwargs", CASES, ids=_ids(CASES))
def test_method_value_equals_jax_array(name, data, args, kwargs):
    want = _jax_call(name, data, args, kwargs)
    _same(getattr(tj.constant(data), name)(*args, **kwargs), want)
    v = tj.Variable(data)
    _same(getattr(v, name)(*args, **kwargs), want)


def _loss(out, xp=jnp):
    flat = out.reshape(-1)
    return xp.sum(flat * W[: flat.shape[0]])


_GRAD_CASES = [c for c in CASES if c[0] in DIFFERENTIABLE and c[1].dtype == np.float32]


@pytest.mark.parametrize("name,data,args,kwargs", _GRAD_CASES, ids=_ids(_GRAD_CASES))
def test_method_gradient_equals_jax_grad(name, data, args, kwargs):
    grad = jax.grad(lambda a: _loss(getattr(a, name)(*args, **kwargs)))
    # (compress without size= has a data-dependent shape: that reference stays eager)
    want = grad(jnp.asarray(data)) if name == "compress" and "size" not in kwargs else jax_reference(grad, data)
    x = tj.constant(data)
    with tj.GradientTape() as tape:
        tape.watch(x)
        loss = _loss(getattr(x, name)(*args, **kwargs), tnp)
    _close(tape.gradient(loss, x), want, rtol=1e-5, atol=1e-5)
    v = tj.Variable(data)
    with tj.GradientTape() as tape:
        loss = _loss(getattr(v, name)(*args, **kwargs), tnp)
    _close(tape.gradient(loss, v), want, rtol=1e-5, atol=1e-5)


def test_dot_gradient_in_its_argument_and_choose_in_its_choices():
    b = tj.constant(X.T)
    with tj.GradientTape() as tape:
        tape.watch(b)
        loss = _loss(tj.constant(X).dot(b), tnp)
    _close(tape.gradient(loss, b), jax_reference(jax.grad(lambda b: _loss(jnp.asarray(X).dot(b))), X.T))
    cs = [tj.constant(c) for c in CHOICES]
    with tj.GradientTape() as tape:
        tape.watch(cs)
        loss = _loss(tj.constant(INTS).choose(cs), tnp)
    want = jax.grad(lambda cs: _loss(jnp.asarray(INTS).choose(cs)))([jnp.asarray(c) for c in CHOICES])
    for g, w in zip(tape.gradient(loss, cs), want):
        _close(g, w)


# as under jax.jit: data-dependent shapes (nonzero without size, compress) cannot be traced, nor can choose's
# mode='raise' check the indices' values
_TRACEABLE = [c for c in CASES if not (c[0] == "compress" or (c[0] == "nonzero" and "size" not in c[3])
                                       or (c[0] == "choose" and len(c[2]) < 3 and "mode" not in c[3]))]


@pytest.mark.parametrize("name,data,args,kwargs", _TRACEABLE, ids=_ids(_TRACEABLE))
def test_method_inside_tj_function(name, data, args, kwargs):
    want = _jax_call(name, data, args, kwargs)
    f = tj.function(lambda t: getattr(t, name)(*args, **kwargs))
    _same(f(tj.constant(data)), want)
    v = tj.Variable(data)
    g = tj.function(lambda: getattr(v, name)(*args, **kwargs))
    _same(g(), want)


def test_compress_and_nonzero_inside_tj_function_as_jax_jit():
    # a condition known when tracing (a NumPy array) is fine; nonzero's fixed size is traceable
    f = tj.function(lambda t: t.compress(np.array([True, False, True]), axis=0))
    _same(f(tj.constant(X)), jnp.asarray(X).compress(np.array([True, False, True]), axis=0))


def test_gradient_inside_tj_function():
    @tj.function
    def grads(x):
        with tj.GradientTape() as tape:
            tape.watch(x)
            loss = _loss(x.cumsum(1), tnp) + _loss(x.std(0), tnp) + _loss(x.at[1:, ::2].multiply(x[0, :2]), tnp)
        return tape.gradient(loss, x)

    want = jax_reference(jax.grad(lambda a: _loss(a.cumsum(1)) + _loss(a.std(0))
                                  + _loss(a.at[1:, ::2].multiply(a[0, :2]))), X)
    _close(grads(tj.constant(X)), want, atol=1e-5)


# -- item, tolist, nbytes, itemsize, mT, block_until_ready ---------------------------------------------------

@pytest.mark.parametrize("data", [np.float32(1.5), np.array([7], np.int32), np.array([[True]]),
                                  np.array(2 - 1j, np.complex64), np.array([0.25], jnp.bfloat16)])
def test_item_of_a_size_one_tensor_is_a_python_scalar_as_jax(data):
    want = jnp.asarray(data).item()
    for t in (tj.constant(data), tj.Variable(data)):
        got = t.item()
        assert type(got) is type(want) and got == want


def test_item_with_an_index_and_its_errors_as_jax():
    a = jnp.asarray(X)
    t = tj.constant(X)
    for args in ((5,), ((2, 1),), (2, 3)):
        assert t.item(*args) == a.item(*args) and type(t.item(*args)) is float
    assert tj.Variable(X).item(7) == a.item(7)
    with pytest.raises(ValueError) as want:
        a.item()
    with pytest.raises(ValueError) as got:
        t.item()
    assert str(got.value) == str(want.value)
    with pytest.raises(IndexError):
        a.item(12)
    with pytest.raises(IndexError):
        t.item(12)


@pytest.mark.parametrize("data", [X, INTS, X > 0, np.float32(2.5), np.zeros((0, 3), np.float32),
                                  np.array([1 + 2j], np.complex64), np.array([0.5, 1.5], jnp.bfloat16)])
def test_tolist_as_jax(data):
    want = jnp.asarray(data).tolist()
    assert tj.constant(data).tolist() == want
    assert tj.Variable(data).tolist() == want
    assert type(tj.constant(data).tolist()) is type(want)


def test_item_and_tolist_inside_tj_function_raise_jax_concretization_error():
    v = tj.Variable([1.5])

    for f in (tj.function(lambda t: t.item()), tj.function(lambda t: t.tolist()),
              tj.function(lambda t: v.item()), tj.function(lambda t: v.tolist())):
        with pytest.raises(jax.errors.ConcretizationTypeError) as e:
            f(tj.constant([2.0]))
        msg = str(e.value)
        assert ("item()" in msg or "tolist()" in msg) and "tj.function" in msg and "traced" in msg
        assert isinstance(e.value, TypeError)
    # as jax's own methods under jax.jit
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda a: a.item())(jnp.ones(1))


def test_nbytes_itemsize_and_mT_as_jax():
    for data in (X, INTS, X > 0, np.ones((2, 5), jnp.bfloat16), np.ones(3, np.int8), np.float32(1.0),
                 np.ones((2, 2), np.complex64)):
        a = jnp.asarray(data)
        for t in (tj.constant(data), tj.Variable(data)):
            assert t.nbytes == a.nbytes and t.itemsize == a.itemsize
    for data in (X, X3):
        _same(tj.constant(data).mT, jnp.asarray(data).mT)
        _same(tj.Variable(data).mT, jnp.asarray(data).mT)
    with pytest.raises(ValueError):
        tj.constant([1.0, 2.0]).mT  # noqa: B018  (as jax's: matrix_transpose needs two axes)
    x = tj.constant(X3)
    with tj.GradientTape() as tape:
        tape.watch(x)
        loss = _loss(x.mT, tnp)
    _close(tape.gradient(loss, x), jax_reference(jax.grad(lambda a: _loss(a.mT)), X3))


def test_block_until_ready_returns_itself_and_placement_queries_ask_the_value():
    t = tj.constant(X) * 2.0
    assert t.block_until_ready() is t
    v = tj.Variable(X)
    assert v.block_until_ready() is v
    a = jnp.asarray(X)
    for obj in (t, v):
        assert obj.devices() == a.devices() and obj.is_ready() is True
        assert obj.committed == (t.value.committed if obj is t else v.read_value().value.committed)
        assert obj.is_fully_addressable == a.is_fully_addressable
        assert obj.is_fully_replicated == a.is_fully_replicated
        assert [s.device for s in obj.addressable_shards] == [s.device for s in a.addressable_shards]
    # inside tj.function: nothing to wait for, the tensor itself
    f = tj.function(lambda x: x.block_until_ready() * 3.0)
    _close(f(tj.constant(X)), X * 3.0)


# jax.Array's public names left out (ops/_operators.py's docstring says why): buffer operations and internals
EXCLUDED = {"addressable_data", "aval", "byteswap", "clone", "copy_to_host_async", "delete", "device_buffer",
            "device_buffers", "flat", "format", "global_shards", "is_deleted", "on_device_size_in_bytes", "platform",
            "to_device", "tobytes", "traceback", "unsafe_buffer_pointer", "unsafe_raw_buffer", "view", "weak_type"}


def test_every_jax_array_method_is_there_but_the_documented_exclusions():
    a = jnp.ones((2, 3))  # (two axes: mT of a vector raises ValueError, for jax.Array's hasattr too)
    names = [n for n in dir(a) if not n.startswith("_")]
    for obj in (tj.constant(np.ones((2, 3), np.float32)), tj.Variable(np.ones((2, 3), np.float32))):
        missing = {n for n in names if not hasattr(obj, n)}
        assert missing <= EXCLUDED, sorted(missing - EXCLUDED)
    from tapejax.ops import _operators
    for n in EXCLUDED:
        assert n in _operators.__doc__
    for n in set(names) - EXCLUDED:  # every method has a docstring (help(), IDEs)
        attr = getattr(tj.Tensor, n)
        assert (attr.__doc__ or "").strip(), n


# -- .at[index] ------------------------------------------------------------------------------------------

V34 = np.asarray(_rng.normal(size=(3, 4)), np.float32)
UPDATES = ["set", "add", "subtract", "multiply", "mul", "divide", "power", "min", "max"]
POS = np.asarray(_rng.uniform(0.5, 2.0, size=(3, 4)), np.float32)  # bases of power, divisors

# (index, values of the shape of X[index] or broadcasting to it); Tensors inside indices are op arguments
AT_INDICES = [
    (1, POS[0]),
    ((2, 3), np.float32(1.5)),
    ((slice(None), 1), POS[:, 0]),
    ((slice(None, None, -1), slice(1, 4, 2)), POS[:, :2]),
    ((Ellipsis, None, 2), POS[:, :1]),
    (np.array([2, 0]), POS[:2]),
    ((np.array([0, 2, 1]), np.array([3, 3, 0])), POS[0, :3]),
    ((slice(None), np.array([1, 0])), POS[:, :2]),
    (jnp.array([1, 2]), POS[1:]),
    ("tensor", POS[:2]),
    ([0, 2], POS[:2]),
    (X[:, 0] > 0, np.float32(0.75)),
    ((X[0] > 0.0, ), None),  # (a mask over axis 0 of the wrong size: see the IndexError test)
]
AT_INDICES = [c for c in AT_INDICES if c[1] is not None]


def _index(idx, tensor=False):
    if isinstance(idx, str):  # a Tensor index
        return tj.constant(np.array([2, 0], np.int32)) if tensor else jnp.array([2, 0], jnp.int32)
    if isinstance(idx, list) and not tensor:  # (tapejax takes a list, as its x[...]; jax asks for an array)
        return np.array(idx)
    return idx


@pytest.mark.parametrize("method", UPDATES)
@pytest.mark.parametrize("k", range(len(AT_INDICES)))
def test_at_update_values_equal_jax(method, k):
    idx, vals = AT_INDICES[k]
    base = POS if method in ("power", "divide") else X
    want = getattr(jnp.asarray(base).at[_index(idx)], method)(vals)
    for x in (tj.constant(base), tj.Variable(base)):
        got = getattr(x.at[_index(idx, tensor=True)], method)(vals)
        _same(got, want)
    # values as a Tensor or a Variable
    _same(getattr(tj.constant(base).at[_index(idx, tensor=True)], method)(tj.Variable(vals)), want)


@pytest.mark.parametrize("k", range(len(AT_INDICES)))
def test_at_get_and_apply_equal_jax(k):
    idx = AT_INDICES[k][0]
    a = jnp.asarray(X)
    _same(tj.constant(X).at[_index(idx, tensor=True)].get(), a.at[_index(idx)].get())
    _same(tj.Variable(X).at[_index(idx, tensor=True)].get(), a.at[_index(idx)].get())
    _same(tj.constant(X).at[_index(idx, tensor=True)].apply(jnp.sin), a.at[_index(idx)].apply(jnp.sin))


def test_at_on_a_variable_returns_a_tensor_and_does_not_assign():
    v = tj.Variable(X)
    out = v.at[1].set(0.0)
    assert isinstance(out, tj.Tensor) and not isinstance(out, tj.Variable)
    _close(v, X)
    _close(out, jnp.asarray(X).at[1].set(0.0))
    # the read is recorded: the gradient reaches the variable
    with tj.GradientTape() as tape:
        loss = _loss(v.at[np.array([0, 0, 2])].multiply(V34[:3] + 1.0), tnp)
    want = jax_reference(jax.grad(lambda a: _loss(a.at[np.array([0, 0, 2])].multiply(jnp.asarray(V34[:3]) + 1.0))), X)
    _close(tape.gradient(loss, v), want)


def test_at_repeated_indices_as_jax():
    idx = np.array([1, 1, 0, 1])
    vals = np.asarray(_rng.uniform(0.5, 1.5, size=(4, 4)), np.float32)
    for method in ("set", "add", "subtract", "multiply", "divide", "power", "min", "max"):
        base = POS if method in ("power", "divide") else X
        want = getattr(jnp.asarray(base).at[idx], method)(vals)
        _same(getattr(tj.constant(base).at[idx], method)(vals), want)
    a = jnp.asarray(X)
    _same(tj.constant(X).at[idx].apply(jnp.exp), a.at[idx].apply(jnp.exp))  # exp applied three times to row 1


def test_at_out_of_bounds_follows_jax_modes():
    a = jnp.asarray(X)
    t = tj.constant(X)
    cases = [
        (lambda r: r.at[5].set(9.0)), (lambda r: r.at[-4].add(9.0)),  # dropped (jax's default for updates)
        (lambda r: r.at[np.array([0, 7])].set(9.0)), (lambda r: r.at[:, np.array([-5, 1])].multiply(2.0)),
        (lambda r: r.at[5].set(9.0, mode="clip")), (lambda r: r.at[np.array([0, 7])].add(9.0, mode="clip")),
        (lambda r: r.at[np.array([0, 7])].set(9.0, mode="drop")),
        (lambda r: r.at[np.array([-1])].set(9.0, wrap_negative_indices=False)),
        (lambda r: r.at[np.array([-1, 1])].set(9.0, wrap_negative_indices=True)),
        (lambda r: r.at[5].get()), (lambda r: r.at[-7].get()),  # clamped (jax's default for get)
        (lambda r: r.at[np.array([4, 1])].get(mode="clip")),
        (lambda r: r.at[np.array([4, 1])].get(mode="fill")),  # NaN, jax's fill for floats
        (lambda r: r.at[np.array([4, 1])].get(mode="fill", fill_value=-2.0)),
        (lambda r: r.at[1, np.array([9, -1])].get(mode="fill", fill_value=3.0)),
        (lambda r: r.at[np.array([2, 0])].get(indices_are_sorted=False, unique_indices=True)),
        (lambda r: r.at[np.array([0, 2])].add(1.0, indices_are_sorted=True, unique_indices=True)),
        (lambda r: r.at[np.array([0, 2])].max(0.0, mode=jax.lax.GatherScatterMode.FILL_OR_DROP)),
    ]
    for f in cases:
        want = f(a)
        got = f(t)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got.numpy()), np.asarray(want))


def _check_gradient(f, x, v, jax_kw=None, tol=1e-5):
    """tape.gradient of sum(W * f(x, v)) in x and v equals jax.grad. ``jax_kw``: keywords for jax's call only
    (``unique_indices=True``, the promise jax needs to differentiate scatter_mul in the values; tapejax is not
    given it)."""
    want = jax_reference(jax.grad(lambda x, v: _loss(f(x, v, **(jax_kw or {}))), (0, 1)), x, v)
    xt, vt = tj.constant(x), tj.constant(v)
    with tj.GradientTape() as tape:
        tape.watch([xt, vt])
        loss = _loss(f(xt, vt), tnp)
    for g, w in zip(tape.gradient(loss, [xt, vt]), want):
        _close(g, w, rtol=tol, atol=tol)


@pytest.mark.parametrize("mode", [None, "clip", "drop", "promise_in_bounds"])
@pytest.mark.parametrize("method", ["set", "add", "subtract", "multiply", "min", "max", "get"])
def test_at_gradients_with_modes_equal_jax_grad(mode, method):
    # an index out of bounds (7) except for promise_in_bounds; unique after clip's clamping (7 -> 2)
    idx = np.array([0, 1, 2]) if mode == "promise_in_bounds" else np.array([0, 7, 1])
    vals = np.asarray(_rng.normal(size=(3, 4)), np.float32)
    if method == "get":
        def f(x, v, **kw):
            return x.at[idx].get(mode=mode, **kw) * v
    else:
        def f(x, v, **kw):
            return getattr(x.at[idx], method)(v, mode=mode, **kw)
    _check_gradient(f, X, vals, {"unique_indices": True} if method == "multiply" else None)


@pytest.mark.parametrize("method", ["set", "add", "subtract", "multiply", "divide", "power", "min", "max"])
@pytest.mark.parametrize("k", [0, 2, 3, 4, 6, 7, 9, 11])
def test_at_gradient_equals_jax_grad(method, k):
    idx, vals = AT_INDICES[k]
    base = POS if method in ("power", "divide") else X

    def f(x, v, **kw):
        return getattr(x.at[_index(idx, tensor=isinstance(x, tj.Tensor))], method)(v, **kw)
    _check_gradient(f, base, vals, {"unique_indices": True} if method in ("multiply", "divide", "power") else None)


@pytest.mark.parametrize("method", ["set", "add", "multiply", "min", "max"])
def test_at_forward_accumulator_equals_jax_jvp(method):
    for idx, vals in (AT_INDICES[3], AT_INDICES[6], AT_INDICES[7], AT_INDICES[9]):
        tx = np.asarray(_rng.normal(size=X.shape), np.float32)
        tv = np.asarray(_rng.normal(size=np.shape(vals)), np.float32)
        kw = {"unique_indices": True} if method == "multiply" else {}
        _, want = jax_reference(
            lambda *a: jax.jvp(lambda x, v: getattr(x.at[_index(idx)], method)(v, **kw), a[:2], a[2:]), X, vals, tx, tv)
        for options in ({}, kw):  # tapejax also without the promise
            x, v = tj.constant(X), tj.constant(vals)
            with tj.ForwardAccumulator([x, v], [tj.constant(tx), tj.constant(tv)]) as acc:
                out = getattr(x.at[_index(idx, tensor=True)], method)(v, **options)
            _close(acc.jvp(out), want, atol=1e-5)


@pytest.mark.parametrize("method", ["set", "add", "multiply"])
def test_at_second_order_by_nested_tapes_equals_jax(method):
    idx = np.array([2, 0])
    vals = np.asarray(_rng.normal(size=(2, 4)), np.float32)
    ux = np.asarray(_rng.normal(size=X.shape), np.float32)
    uv = np.asarray(_rng.normal(size=vals.shape), np.float32)
    kw = {"unique_indices": True} if method == "multiply" else {}

    def loss(x, v, xp):
        return _loss(xp.sin(getattr(x.at[idx], method)(v, **kw)) * getattr(x.at[idx], method)(v, **kw), xp)

    def hvp(x, v):
        gx, gv = jax.grad(lambda x, v: loss(x, v, jnp), (0, 1))(x, v)
        return jnp.sum(gx * ux) + jnp.sum(gv * uv)
    want = jax_reference(jax.grad(hvp, (0, 1)), X, vals)
    for options in ({}, kw):
        x, v = tj.constant(X), tj.constant(vals)
        with tj.GradientTape() as outer:
            outer.watch([x, v])
            with tj.GradientTape() as inner:
                inner.watch([x, v])
                out = getattr(x.at[idx], method)(v, **options)
                y = _loss(tnp.sin(out) * out, tnp)
            gx, gv = inner.gradient(y, [x, v])
            h = tnp.sum(gx * ux) + tnp.sum(gv * uv)
        for g, w in zip(outer.gradient(h, [x, v]), want):
            _close(g, w, atol=1e-5)


# multiply, divide and power with a repeated index: jax's scatter_mul has no derivative in the values then (it
# asks for unique_indices=True); tapejax's equals jax's derivative of the same update made entry by entry


def _one_by_one(method, idx, x, v):
    """x.at[idx].method(v) as single-entry updates in turn (what the product of the values each entry gets is)."""
    if method == "multiply":
        for k, i in enumerate(idx):
            x = x.at[i].multiply(v[k])
        return x
    m = jnp.ones_like(x)
    for k, i in enumerate(idx):
        m = m.at[i].multiply(v[k])
    return x / m if method == "divide" else x ** m


@pytest.mark.parametrize("method", ["multiply", "divide", "power"])
def test_at_repeated_index_derivatives_in_the_values(method):
    idx = [1, 0, 1, 1, 2]
    x = POS if method != "multiply" else X
    v = np.asarray(_rng.uniform(0.5, 1.5, size=(5, 4)), np.float32)
    if method == "multiply":
        v[2, 1] = 0.0  # a zero among an entry's factors: the others' product, no division
        v[3, 1] = 0.0
        v[0, 3] = 0.0
    f = lambda x, v: _one_by_one(method, idx, x, v)  # noqa: E731
    tx = np.asarray(_rng.normal(size=x.shape), np.float32)
    tv = np.asarray(_rng.normal(size=v.shape), np.float32)
    u = np.asarray(_rng.normal(size=v.shape), np.float32)

    def references(x, v, tx, tv):
        want = jax.grad(lambda x, v: _loss(f(x, v)), (0, 1))(x, v)
        want_jvp = jax.jvp(f, (x, v), (tx, tv))[1]
        want_h = jax.grad(lambda x, v: jnp.sum(jax.grad(lambda v: _loss(f(x, v)))(v) * u), (0, 1))(x, v)
        return f(x, v), want, want_jvp, want_h
    want_value, want, want_jvp, want_h = jax_reference(references, x, v, tx, tv)

    xt, vt = tj.constant(x), tj.constant(v)
    index = tj.constant(np.array(idx, np.int32))
    with tj.GradientTape() as outer:
        outer.watch([xt, vt])
        with tj.GradientTape() as inner:
            inner.watch([xt, vt])
            out = getattr(xt.at[index], method)(vt)
            loss = _loss(out, tnp)
        gx, gv = inner.gradient(loss, [xt, vt])
        h = tnp.sum(gv * u)
    _close(out, want_value, rtol=1e-5, atol=1e-5)
    _close(gx, want[0], rtol=1e-5, atol=1e-5)
    _close(gv, want[1], rtol=1e-5, atol=1e-5)
    for g, w in zip(outer.gradient(h, [xt, vt]), want_h):
        _close(g, w, rtol=1e-4, atol=1e-5)
    with tj.ForwardAccumulator([xt, vt], [tj.constant(tx), tj.constant(tv)]) as acc:
        out = getattr(xt.at[index], method)(vt)
    _close(acc.jvp(out), want_jvp, rtol=1e-5, atol=1e-5)

    # the same through jax.grad of tj code and inside tj.function
    got = jax.grad(lambda v: _loss(getattr(tj.constant(x).at[index], method)(tj.Tensor(v)), tnp).value)(
        jnp.asarray(v))
    _close(got, want[1], rtol=1e-5, atol=1e-5)

    @tj.function
    def grad_in_function(x, v):
        with tj.GradientTape() as tape:
            tape.watch(v)
            loss = _loss(getattr(x.at[index], method)(v), tnp)
        return tape.gradient(loss, v)
    _close(grad_in_function(xt, vt), want[1], rtol=1e-5, atol=1e-5)


def test_at_inside_tj_function_with_a_traced_index():
    @tj.function
    def f(x, i, v):
        return x.at[i].add(v), x.at[:, i].get(), x.at[i, 1].multiply(v[:, 0]), x.at[i].set(v, mode="clip")

    i = np.array([2, 0], np.int32)
    vals = V34[:2]
    a = jnp.asarray(X)
    got = f(tj.constant(X), tj.constant(i), tj.constant(vals))
    want = (a.at[i].add(vals), a.at[:, i].get(), a.at[i, 1].multiply(vals[:, 0]), a.at[i].set(vals, mode="clip"))
    _same(tuple(got), want)


def test_at_apply_has_no_gradient():
    x = tj.constant(X)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = x.at[1].apply(jnp.sin)  # forward runs; only a gradient fails
        loss = tnp.sum(y)
    _close(y, jnp.asarray(X).at[1].apply(jnp.sin))
    with pytest.raises(LookupError, match="at_apply"):
        tape.gradient(loss, x)
    with pytest.raises(TypeError, match="callable"):
        x.at[1].apply(3.0)


def test_at_index_errors():
    t = tj.constant(X)
    with pytest.raises(TypeError):
        t.at[1.5].set(0.0)
    with pytest.raises(TypeError):
        t.at[np.array([0.0, 1.0])].add(1.0)
    with pytest.raises(TypeError):
        t.at[tj.constant([1.0])].get()
    with pytest.raises(TypeError):
        t.at[0:1.5].set(0.0)
    with pytest.raises(IndexError, match="too many indices"):
        t.at[0, 1, 2].set(0.0)
    with pytest.raises(IndexError):
        t.at[np.array([True, False])].set(0.0)  # a mask of the wrong size
    with pytest.raises(ValueError, match="mode"):
        t.at[0].set(1.0, mode="nearest")
    with pytest.raises(ValueError):
        t.at[0:3:0].set(1.0)


def test_at_complex_gradient_follows_tf_convention():
    z = (X + 1j * V34).astype(np.complex64)
    v = (V34[:3] - 0.5j * X[:3]).astype(np.complex64)
    idx = np.array([1, 1, 2])

    def loss(z, v, xp):
        return xp.sum(xp.abs(z.at[idx].multiply(v)) ** 2)
    # (jax cannot differentiate loss in v: a repeated index) the same product entry by entry, which jax can
    def by_entry(z, v):
        for k, i in enumerate(idx):
            z = z.at[i].multiply(v[k])
        return jnp.sum(jnp.abs(z) ** 2)
    want = jax_reference(jax.grad(by_entry, (0, 1)), z, v)
    zt, vt = tj.constant(z), tj.constant(v)
    with tj.GradientTape() as tape:
        tape.watch([zt, vt])
        y = loss(zt, vt, tnp)
    for g, w in zip(tape.gradient(y, [zt, vt]), want):
        _close(g, np.conj(np.asarray(w)), rtol=1e-5, atol=1e-5)


def test_at_helpers_repr_and_functional_form():
    t = tj.constant(X)
    assert "IndexUpdate" in repr(t.at) and "IndexUpdate" in repr(t.at[1])
    _same(tnp.at(t)[1:].add(1.0), jnp.asarray(X).at[1:].add(1.0))
    _same(tnp.at(X)[0].set(2.0), jnp.asarray(X).at[0].set(2.0))  # (an array: converted, as other ops)


# -- Python's operator protocols of jax.Array ------------------------------------------------------------------

# jax.Array's special names left out: Python 2's hex/oct, item assignment (jax.Array's raises too: ``.at[]``), NumPy's
# dtype protocol, and what every class has or Variable defines itself
EXCLUDED_SPECIAL = {"__annotations__", "__array_module__", "__copy__", "__deepcopy__",
                    "__del__", "__dict__", "__hex__", "__numpy_dtype__", "__oct__", "__setitem__"}


def test_every_jax_array_operator_protocol_is_there_but_the_documented_exclusions():
    names = {n for n in dir(jax.Array) if n.startswith("__")} | {
        n for n in dir(jnp.ones(2)) if n.startswith("__")}
    for cls in (tj.Tensor, tj.Variable):
        missing = {n for n in names if not hasattr(cls, n)}
        assert missing <= EXCLUDED_SPECIAL, sorted(missing - EXCLUDED_SPECIAL)


@pytest.mark.parametrize("make", [tj.constant, tj.Variable], ids=["Tensor", "Variable"])
def test_divmod_and_shifts_are_recorded_ops_with_jax_arrays_values(make):
    x, ints = make(X), make(INTS)
    for got, want in ((divmod(x, 0.3), divmod(jnp.asarray(X), 0.3)), (divmod(2.0, x), divmod(2.0, jnp.asarray(X))),
                      (ints << 2, jnp.asarray(INTS) << 2), (ints >> 1, jnp.asarray(INTS) >> 1),
                      (3 << ints, 3 << jnp.asarray(INTS)), (64 >> ints, 64 >> jnp.asarray(INTS))):
        _same(got, want)
    # divmod's quotient has no gradient (floor division, as TF's FloorDiv); its remainder x - 0.3 * floor(x / 0.3)
    # has gradient 1 with respect to x, as jax's
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        q, r = divmod(x, 0.3)
        loss = tnp.sum(r * W[:12].reshape(3, 4))
    _close(tape.gradient(loss, x),
           jax_reference(jax.grad(lambda a: jnp.sum(jnp.divmod(a, 0.3)[1] * W[:12].reshape(3, 4))), X))
    assert tape.gradient(q, x) is None


@pytest.mark.parametrize("make", [tj.constant, tj.Variable], ids=["Tensor", "Variable"])
def test_in_is_pythons_iteration_protocol_as_tf(make):
    """``x in t``: TF's tensors define no ``__contains__``, so Python compares ``x`` with each element along the
    first axis (``e is x or bool(e == x)``); jax's own answers differ (a TypeError for None, a ValueError for a
    one-element list)."""
    t = make(np.array([1.0, 2.0, 3.0], np.float32))
    for q in (2.0, 5.0, tj.constant(3.0), np.float32(1.0)):
        qv = q.numpy() if isinstance(q, tj.Tensor) else q
        assert (q in t) is any(qv == e for e in [1.0, 2.0, 3.0])
    assert (None in t) is False  # (TF: each e == None is False)
    assert ([2.0] in t) is True and (tj.constant([7.0]) in t) is False  # (a size-1 comparison per element)
    with pytest.raises(ValueError, match="ambiguous"):  # a row compared with a scalar: several truth values
        _ = 1.0 in make(X)
    with pytest.raises(TypeError, match="0-d"):  # a 0-d tensor is not iterable (TF's TypeError)
        _ = 1.0 in make(np.float32(1.0))


@pytest.mark.parametrize("make", [tj.constant, tj.Variable], ids=["Tensor", "Variable"])
def test_reversed_is_jax_arrays_last_entry_first_each_recorded(make):
    """``reversed(t)`` as jax.Array's (jax 0.12's ``__reversed__``; an older jax's sequence fallback gives the same):
    the entries along the first axis, last first, each with its gradient (a tape watches a Variable's read); a 0-d
    tensor raises TypeError, as jax's."""
    for data in (X[0], X, X3):
        want = list(reversed(jnp.asarray(data)))
        got = list(reversed(make(data)))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)

    def loss(x, xp):  # (each entry weighted by its place in the reversed order: the order reaches the gradient)
        return sum((i + 1) * _loss(e, xp) for i, e in enumerate(reversed(x)))
    for data in (X[0], X3):
        want = jax_reference(jax.grad(lambda a: loss(a, jnp)), data)
        x = make(data)
        with tj.GradientTape() as tape:
            if isinstance(x, tj.Tensor):
                tape.watch(x)
            y = loss(x, tnp)
        _close(tape.gradient(y, x), want)
    with pytest.raises(TypeError):
        reversed(jnp.asarray(np.float32(1.5)))  # (the reference: jax refuses a 0-d array)
    with pytest.raises(TypeError, match="scalar"):
        reversed(make(np.float32(1.5)))


def test_reversed_inside_tj_function():
    f = tj.function(lambda x: tnp.stack(list(reversed(x))))
    _close(f(tj.constant(X)), np.asarray(jnp.stack(list(reversed(jnp.asarray(X))))))


def test_unsafe_raw_buffer_is_the_jax_arrays_only():
    """``unsafe_raw_buffer`` (jax 0.11's handle to the device buffer) is left out (``_operators``' docstring):
    a Tensor's ``.value`` has it where jax does."""
    a = jnp.asarray(X)
    if not hasattr(a, "unsafe_raw_buffer"):
        pytest.skip(f"jax {jax.__version__}'s arrays have no unsafe_raw_buffer")
    for obj in (tj.constant(X), tj.Variable(X)):
        assert not hasattr(obj, "unsafe_raw_buffer")
    t = tj.constant(X)
    assert type(t.value.unsafe_raw_buffer()) is type(a.unsafe_raw_buffer())


def test_dlpack_export_gives_the_value_to_numpy_and_torch():
    for obj in (tj.constant(X), tj.Variable(X)):
        np.testing.assert_array_equal(np.from_dlpack(obj), X)
        assert obj.__dlpack_device__() == jnp.asarray(X).__dlpack_device__()
    torch = pytest.importorskip("torch")  # (the bench extra)
    np.testing.assert_array_equal(torch.from_dlpack(tj.constant(X)).numpy(), X)


_OPERATORS = {"__add__": "__radd__", "__sub__": "__rsub__", "__mul__": "__rmul__", "__truediv__": "__rtruediv__",
              "__floordiv__": "__rfloordiv__", "__mod__": "__rmod__", "__pow__": "__rpow__", "__matmul__": "__rmatmul__",
              "__divmod__": "__rdivmod__", "__lshift__": "__rlshift__", "__rshift__": "__rrshift__",
              "__and__": "__rand__", "__or__": "__ror__", "__xor__": "__rxor__"}


@pytest.mark.parametrize("make", [tj.constant, tj.Variable], ids=["Tensor", "Variable"])
@pytest.mark.parametrize("name", sorted(_OPERATORS))
def test_an_operand_tapejax_cannot_convert_answers_by_its_reflected_method_as_in_tf(make, name):
    # TF's binary operators (math_ops_test BinaryOpsTest.testRHSDispatchingAndErrorRaising) and jax.Array's: the
    # other operand's reflected method answers; one that raises or returns NotImplemented leaves the conversion's
    # error (TF: ValueError "Attempt to convert a value ... with an unsupported type")
    answering = type("Answering", (), {_OPERATORS[name]: lambda self, other: ("answered", other)})
    refusing = type("Refusing", (), {_OPERATORS[name]: lambda self, other: NotImplemented})
    failing = type("Failing", (), {_OPERATORS[name]: lambda self, other: int("not a number")})  # (ValueError)
    x = make(np.ones((2, 2), np.int32))
    got = getattr(x, name)(answering())
    assert got[0] == "answered" and got[1] is x
    for other in (refusing(), failing(), object(), None):
        with pytest.raises(ValueError):
            getattr(x, name)(other)
