"""tj.differentiate: forward/backward split (TorchScript autodiff.cpp ideas) with symbolic zeros,
capture classification and residual sizes. Gradients are checked against jax.vjp / jax.grad."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from tapejax import numpy as tnp
from tapejax.graph.differentiate import jax_vjp_residual_bytes
from conftest import close, to_numpy


def _keys(n, seed=0):
    return jax.random.split(jax.random.PRNGKey(seed), n)


def _mlp_params(sizes=(64, 256, 256, 10), batch=32, seed=0):
    k = _keys(len(sizes) + 1, seed)
    x = jax.random.normal(k[0], (batch, sizes[0]), jnp.float32)
    ws = [jax.random.normal(k[i + 1], (sizes[i], sizes[i + 1]), jnp.float32) / np.sqrt(sizes[i])
          for i in range(len(sizes) - 1)]
    return x, ws


def tj_mlp(x, w1, w2, w3):
    h = tnp.tanh(x @ w1)
    h = tnp.tanh(h @ w2)
    return h @ w3


def jax_mlp(x, w1, w2, w3):
    h = jnp.tanh(x @ w1)
    h = jnp.tanh(h @ w2)
    return h @ w3


# --------------------------------------------------------------------------------------------------
# gradients equal jax's
# --------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def mlp():
    """The 64-256-256-10 tanh MLP, differentiated once for the module (compiling is the slow part)."""
    x, ws = _mlp_params(sizes=(64, 256, 256, 10), batch=32)
    return tj.differentiate(tj_mlp, x, *ws), x, ws


def test_mlp_forward_backward_match_jax_vjp(mlp):
    d, x, ws = mlp
    out, res = d.forward(x, *ws)
    ref_out, vjp = jax.vjp(jax_mlp, x, *ws)
    close(out, ref_out, rtol=1e-5, atol=1e-5)
    ct = jax.random.normal(_keys(1, 7)[0], ref_out.shape, jnp.float32)
    grads = d.backward((ct,), res)
    expected = vjp(ct)
    assert len(grads) == 4
    for g, e in zip(grads, expected):
        assert tuple(g.shape) == tuple(e.shape)
        close(g, e, rtol=1e-4, atol=1e-5)


def test_mlp_loss_backward_matches_jax_grad_and_accepts_python_scalar():
    x, ws = _mlp_params(sizes=(8, 16, 16, 4), batch=5, seed=3)

    def loss(x, w1, w2, w3):
        return tnp.mean(tj_mlp(x, w1, w2, w3) ** 2)

    def jloss(x, w1, w2, w3):
        return jnp.mean(jax_mlp(x, w1, w2, w3) ** 2)

    d = tj.differentiate(loss, x, *ws)
    out, res = d.forward(x, *ws)
    close(out, jloss(x, *ws), rtol=1e-6)
    grads = d.backward(1.0, res)  # a single output: a bare gradient is accepted
    for g, e in zip(grads, jax.grad(jloss, argnums=(0, 1, 2, 3))(x, *ws)):
        close(g, e, rtol=1e-4, atol=1e-6)
    # scaled output gradient scales the input gradients
    grads2 = d.backward((2.5,), res)
    for g, g2 in zip(grads, grads2):
        close(g2, 2.5 * to_numpy(g), rtol=1e-5, atol=1e-7)


def test_programs_are_reusable_with_new_values(mlp):
    d = mlp[0]
    x2, ws2 = _mlp_params(sizes=(64, 256, 256, 10), batch=32, seed=2)
    out, res = d.forward(x2, *ws2)
    ref, vjp = jax.vjp(jax_mlp, x2, *ws2)
    close(out, ref, rtol=1e-5, atol=1e-6)
    ct = jnp.ones(ref.shape)
    for g, e in zip(d.backward((ct,), res), vjp(ct)):
        close(g, e, rtol=1e-4, atol=1e-5)


def _multi(x, y):
    a = tnp.sin(x) * y
    b = tnp.exp(x) + y ** 2
    c = tnp.sum(x * y)
    return a, b, c


def _jmulti(x, y):
    return jnp.sin(x) * y, jnp.exp(x) + y ** 2, jnp.sum(x * y)


def test_multi_output_matches_jax_vjp():
    x = jnp.array([0.3, -1.2, 2.0])
    y = jnp.array([1.5, 0.5, -0.7])
    d = tj.differentiate(_multi, x, y)
    outs, res = d.forward(x, y)
    assert isinstance(outs, tuple) and len(outs) == 3
    ref, vjp = jax.vjp(_jmulti, x, y)
    for o, r in zip(outs, ref):
        close(o, r, rtol=1e-6)
    cts = (jnp.array([1.0, 2.0, -1.0]), jnp.array([0.5, -0.5, 3.0]), jnp.float32(2.0))
    gx, gy = d.backward(cts, res)
    ex, ey = vjp(cts)
    close(gx, ex, rtol=1e-5)
    close(gy, ey, rtol=1e-5)


def test_none_output_gradients_are_symbolic_zeros():
    x = jnp.array([0.3, -1.2, 2.0])
    y = jnp.array([1.5, 0.5, -0.7])
    d = tj.differentiate(_multi, x, y)
    _, res = d.forward(x, y)
    _, vjp = jax.vjp(_jmulti, x, y)
    zero3 = jnp.zeros(3)
    # all None -> all None
    assert d.backward((None, None, None), res) == [None, None]
    # partial None: same as zeros for those outputs
    ga = jnp.array([1.0, -2.0, 0.5])
    gx, gy = d.backward((ga, None, None), res)
    ex, ey = vjp((ga, zero3, jnp.float32(0.0)))
    close(gx, ex, rtol=1e-5)
    close(gy, ey, rtol=1e-5)
    gx, gy = d.backward((None, None, jnp.float32(3.0)), res)
    close(gx, 3.0 * np.asarray(y), rtol=1e-6)
    close(gy, 3.0 * np.asarray(x), rtol=1e-6)


def test_partial_none_gives_none_for_unreached_input():
    def f(x, y):
        return tnp.sin(x), tnp.exp(y)

    x = jnp.array([0.1, 0.2])
    y = jnp.array([1.0, -1.0])
    d = tj.differentiate(f, x, y)
    _, res = d.forward(x, y)
    gx, gy = d.backward((jnp.ones(2), None), res)
    close(gx, np.cos(np.asarray(x)), rtol=1e-6)
    assert gy is None
    gx, gy = d.backward((None, jnp.full(2, 2.0)), res)
    assert gx is None
    close(gy, 2.0 * np.exp(np.asarray(y)), rtol=1e-6)


def test_input_not_used_gets_none():
    def f(x, unused):
        return x * 3.0

    d = tj.differentiate(f, jnp.ones(2), jnp.ones(5))
    _, res = d.forward(jnp.ones(2), jnp.ones(5))
    gx, gu = d.backward((jnp.ones(2),), res)
    close(gx, [3.0, 3.0])
    assert gu is None


CONST = jnp.array([[1.0, -2.0, 0.5], [0.25, 4.0, -1.0]])


def test_function_with_constants_matches_jax_and_lifts_constants():
    def f(x):
        c = tj.constant(CONST)                       # closure constant
        k = tnp.ones((2, 3)) * 2.0                   # constant computed inside
        return tnp.sum(x * c + k * tnp.sin(x) + 3.0)

    def jf(x):
        return jnp.sum(x * CONST + 2.0 * jnp.sin(x) + 3.0)

    x = jnp.array([[0.1, 0.2, 0.3], [-0.4, 0.5, -0.6]])
    d = tj.differentiate(f, x)
    out, res = d.forward(x)
    close(out, jf(x), rtol=1e-6)
    (g,) = d.backward((1.0,), res)
    close(g, jax.grad(jf)(x), rtol=1e-5)
    # constants do not depend on the inputs: nothing of shape (2, 3) other than what sin's backward
    # needs may be captured as a temporary; x * c needs only c (a constant) for dx.
    temps = [c for c in d.captures if c.kind == "temporary"]
    assert d.residual_bytes <= x.size * 4, d.summary()
    assert all(c.shape == (2, 3) for c in temps)


def test_product_with_constant_captures_nothing():
    def f(x):
        return tnp.sum(x * CONST)

    d = tj.differentiate(f, jnp.ones((2, 3)))
    assert d.residual_bytes == 0, d.summary()
    assert [c for c in d.captures if c.kind == "temporary"] == []
    _, res = d.forward(jnp.ones((2, 3)))
    assert res.nbytes == 0
    (g,) = d.backward((2.0,), res)
    close(g, 2.0 * np.asarray(CONST))


# --------------------------------------------------------------------------------------------------
# captures
# --------------------------------------------------------------------------------------------------

def test_capture_report_kinds_shapes_dtypes_bytes():
    x, ws = _mlp_params(sizes=(8, 16, 16, 4), batch=5, seed=4)
    d = tj.differentiate(tj_mlp, x, *ws)
    _, res = d.forward(x, *ws)
    kinds = {c.kind for c in d.captures}
    assert kinds <= {"temporary", "input (referenced)", "output (referenced)"}
    for c in d.captures:
        assert c.nbytes == int(np.prod(c.shape, dtype=np.int64)) * jnp.dtype(c.dtype).itemsize
        assert jnp.dtype(c.dtype) == jnp.float32
    temps = [c for c in d.captures if c.kind == "temporary"]
    # the two tanh activations (each (5, 16)) are what the backward needs beyond inputs
    assert sorted(c.shape for c in temps) == [(5, 16), (5, 16)], d.summary()
    assert d.residual_bytes == sum(c.nbytes for c in temps) == 2 * 5 * 16 * 4
    # the residual object holds exactly the reported temporaries
    assert len(res.temporaries) == len(temps)
    assert sorted(tuple(t.shape) for t in res.temporaries) == sorted(c.shape for c in temps)
    assert res.nbytes == d.residual_bytes
    # all four inputs are read by the matmul backwards: referenced, not copied
    assert d.referenced_inputs == [0, 1, 2, 3]
    ref_in = [c for c in d.captures if c.kind == "input (referenced)"]
    assert sorted(c.shape for c in ref_in) == sorted([tuple(x.shape)] + [tuple(w.shape) for w in ws])
    summary = d.summary()
    assert "temporary" in summary and str(d.residual_bytes) in summary


def test_inputs_and_outputs_are_referenced_not_captured():
    def f(x, w):
        return tnp.tanh(x @ w)   # tanh's backward needs its output; matmul's needs x and w

    x = jnp.ones((4, 3)) * 0.1
    w = jnp.ones((3, 5)) * 0.2
    d = tj.differentiate(f, x, w)
    assert d.residual_bytes == 0, d.summary()
    assert [c for c in d.captures if c.kind == "temporary"] == []
    assert d.referenced_inputs == [0, 1]
    assert d.referenced_outputs == [0]
    out, res = d.forward(x, w)
    assert res.temporaries == [] or len(res.temporaries) == 0
    # the references are the very arrays passed in / returned, not copies
    assert res.outputs[0] is out.value
    ref, vjp = jax.vjp(lambda a, b: jnp.tanh(a @ b), x, w)
    ct = jnp.arange(20.0).reshape(4, 5) / 20
    for g, e in zip(d.backward((ct,), res), vjp(ct)):
        close(g, e, rtol=1e-5)


def test_unread_residual_is_not_captured():
    # tanh's backward reads only its output: its input (x * 3) must not be captured.
    n = 1000

    def f(x):
        return tnp.sum(tnp.tanh(x * 3.0))

    d = tj.differentiate(f, jnp.linspace(-1, 1, n))
    temps = [c for c in d.captures if c.kind == "temporary"]
    assert len(temps) == 1 and temps[0].shape == (n,), d.summary()
    assert d.residual_bytes == n * 4
    assert d.referenced_inputs == []   # x itself is not needed either (multiply by a constant)
    x = jnp.linspace(-1, 1, n)
    _, res = d.forward(x)
    (g,) = d.backward((1.0,), res)
    close(g, jax.grad(lambda z: jnp.sum(jnp.tanh(z * 3.0)))(x), rtol=1e-5, atol=1e-6)


def test_temporary_used_by_several_ops_is_captured_once():
    def f(x):
        h = tnp.exp(x) + 1.0      # h is read by two multiplies' backwards
        return tnp.sum(h * h * x)

    x = jnp.array([0.1, 0.2, 0.3, 0.4])
    d = tj.differentiate(f, x)
    _, res = d.forward(x)
    (g,) = d.backward((1.0,), res)
    close(g, jax.grad(lambda z: jnp.sum((jnp.exp(z) + 1.0) ** 2 * z))(x), rtol=1e-5)
    # jax's own vjp of the same function in plain JAX keeps at least as much; and no temporary is
    # reported twice for the same array
    _, vjp_fn = jax.vjp(lambda z: jnp.sum((jnp.exp(z) + 1.0) ** 2 * z), x)
    plain = sum(l.nbytes for l in jax.tree_util.tree_leaves(vjp_fn) if hasattr(l, "nbytes") and l is not x)
    assert d.residual_bytes <= plain
    assert len(res.temporaries) == len({id(t) for t in res.temporaries})


# --------------------------------------------------------------------------------------------------
# residual sizes vs jax.vjp
# --------------------------------------------------------------------------------------------------

def _tanh_chain(x):
    for _ in range(6):
        x = tnp.tanh(x)
    return x


def _jtanh_chain(x):
    for _ in range(6):
        x = jnp.tanh(x)
    return x


def _elementwise(x, y):
    a = tnp.exp(tnp.sin(x) * y)
    b = tnp.sqrt(1.0 + x ** 2) * tnp.cos(y)
    c = tnp.log1p(tnp.abs(a - b)) + tnp.tanh(a * b)
    return tnp.sum(c * x + a)


def _jelementwise(x, y):
    a = jnp.exp(jnp.sin(x) * y)
    b = jnp.sqrt(1.0 + x ** 2) * jnp.cos(y)
    c = jnp.log1p(jnp.abs(a - b)) + jnp.tanh(a * b)
    return jnp.sum(c * x + a)


def test_residual_bytes_not_more_than_jax_vjp_mlp(mlp):
    d, x, ws = mlp
    jax_bytes = jax_vjp_residual_bytes(tj_mlp, x, *ws)
    assert jax_bytes > 0
    assert d.residual_bytes <= jax_bytes, (d.residual_bytes, jax_bytes, d.summary())


def test_residual_bytes_not_more_than_jax_vjp_tanh_chain():
    x = jnp.linspace(-2, 2, 4096)
    d = tj.differentiate(_tanh_chain, x)
    jax_bytes = jax_vjp_residual_bytes(_tanh_chain, x)
    assert d.residual_bytes <= jax_bytes, (d.residual_bytes, jax_bytes, d.summary())
    # six tanh ops: the last output is referenced, so at most five intermediate activations
    assert d.residual_bytes <= 5 * x.size * 4
    out, res = d.forward(x)
    ref, vjp = jax.vjp(_jtanh_chain, x)
    close(out, ref, rtol=1e-6)
    ct = jnp.cos(x)
    (g,) = d.backward((ct,), res)
    close(g, vjp(ct)[0], rtol=1e-5, atol=1e-6)


def test_residual_bytes_not_more_than_jax_vjp_elementwise():
    k = _keys(2, 5)
    x = jax.random.normal(k[0], (2048,), jnp.float32)
    y = jax.random.normal(k[1], (2048,), jnp.float32)
    d = tj.differentiate(_elementwise, x, y)
    jax_bytes = jax_vjp_residual_bytes(_elementwise, x, y)
    assert d.residual_bytes <= jax_bytes, (d.residual_bytes, jax_bytes, d.summary())
    out, res = d.forward(x, y)
    close(out, _jelementwise(x, y), rtol=1e-5)
    gx, gy = d.backward((1.0,), res)
    ex, ey = jax.grad(_jelementwise, argnums=(0, 1))(x, y)
    close(gx, ex, rtol=1e-4, atol=1e-5)
    close(gy, ey, rtol=1e-4, atol=1e-5)


# --------------------------------------------------------------------------------------------------
# errors
# --------------------------------------------------------------------------------------------------

def test_backward_wrong_count_or_shape_raises():
    d = tj.differentiate(_multi, jnp.ones(3), jnp.ones(3))
    _, res = d.forward(jnp.ones(3), jnp.ones(3))
    with pytest.raises(ValueError):
        d.backward((jnp.ones(3), jnp.ones(3)), res)
    with pytest.raises(ValueError):
        d.backward((jnp.ones(4), None, None), res)


def test_other_signatures_get_programs_of_their_own():
    # the programs are specialized to the examples' shapes; a call with others (as jit's) gets its own pair
    def f(x, y):
        return tnp.sin(x) * y
    d = tj.differentiate(f, tj.constant([1.0, 2.0]), tj.constant([3.0, 4.0]))
    for n in (3, 2, 5, 3):
        x, y = np.linspace(0.1, 1.0, n).astype(np.float32), np.linspace(2.0, 3.0, n).astype(np.float32)
        out, res = d.forward(x, y)
        gx, gy = d.backward(np.ones(n, np.float32), res)
        want = jax.grad(lambda a, b: jnp.sum(jnp.sin(a) * b), argnums=(0, 1))(x, y)
        close(to_numpy(out), np.sin(x) * y)
        close(to_numpy(gx), want[0])
        close(to_numpy(gy), want[1])
    assert d.captures is not None and d.residual_bytes >= 0  # (the report stays the examples')


def test_bad_arguments_raise_naming_the_argument():
    d = tj.differentiate(lambda x, y: x * y, tj.constant([1.0, 2.0]), tj.constant([3.0, 4.0]))
    with pytest.raises(TypeError, match=r"argument 0 \(dict\) is not an array.*separate arguments"):
        d.forward({"a": 1.0}, 2.0)
    with pytest.raises(TypeError, match="got 1 arguments; its programs take 2"):
        d.forward(tj.constant([1.0, 2.0]))
    with pytest.raises(TypeError, match=r"argument 1 \(str\)"):
        tj.differentiate(lambda x, y: x * y, 1.0, "a")


# --------------------------------------------------------------------------------------------------
# Variables, nested outputs, ops without a gradient
# --------------------------------------------------------------------------------------------------

def test_variables_read_are_read_at_each_forward_call():
    """A Variable f reads is an input of the forward program, read when it runs: its value at differentiate()
    time was baked in before (outputs [2, 8, 18] and gradient [4, 8, 12] after v became 5)."""
    x = np.array([1.0, 2.0, 3.0], np.float32)
    v = tj.Variable([2.0, 2.0, 2.0], name="v")
    d = tj.differentiate(lambda a: a * a * v, x)
    assert [(c.kind, c.op) for c in d.captures if c.kind.startswith("variable")] == [("variable (referenced)", "v:0")]
    v.assign([5.0, 5.0, 5.0])
    out, res = d.forward(x)
    (g,) = d.backward(np.ones(3, np.float32), res)
    want_out, vjp = jax.vjp(lambda a: a * a * 5.0, jnp.asarray(x))
    close(out, want_out)
    close(g, vjp(jnp.ones(3))[0])  # [10, 20, 30]
    assert d.variables == [v]


def test_assignments_inside_are_written_back_at_each_forward_call():
    """An assignment inside f was dropped: w stayed 1.0 after two forward calls, and they used its old value."""
    x = np.ones(3, np.float32)
    w = tj.Variable(1.0, name="w")

    def h(a):
        w.assign_add(1.0)
        return a * w
    d = tj.differentiate(h, x)
    assert float(w.numpy()) == 1.0  # (making the programs runs nothing)
    out1, _ = d.forward(x)
    out2, res = d.forward(x)
    close(out1, x * 2.0)
    close(out2, x * 3.0)
    assert float(w.numpy()) == 3.0
    close(d.backward(np.ones(3, np.float32), res)[0], np.full(3, 3.0))


def test_nested_outputs_keep_their_structure_and_gradients():
    """A tuple inside the outputs was stacked into one new Tensor with no path back to the input: its output
    gradient was dropped silently (gradient [2, 4, 6] instead of jax's [7, 9, 11])."""
    x = np.array([1.0, 2.0, 3.0], np.float32)
    ct = np.ones(3, np.float32)
    f = lambda a: ((a * 2.0, a * 3.0), a * a)  # noqa: E731
    d = tj.differentiate(f, x)
    out, res = d.forward(x)
    assert isinstance(out, tuple) and isinstance(out[0], tuple) and len(out[0]) == 2
    close(out[0][1], x * 3)
    want = jax.vjp(f, jnp.asarray(x))[1](((ct, ct), ct))[0]  # [7, 9, 11]
    close(d.backward(((ct, ct), ct), res)[0], want)
    close(d.backward([ct, ct, ct], res)[0], want)  # (a flat list, one per output leaf)
    close(d.backward(((None, ct), None), res)[0], ct * 3)  # (None: no gradient for that output)
    with pytest.raises(ValueError, match="structure of the outputs"):
        d.backward((ct, ct), res)


def test_dict_outputs():
    x = np.array([1.0, 2.0], np.float32)
    d = tj.differentiate(lambda a: {"sq": a * a, "lin": a * 3.0}, x)
    out, res = d.forward(x)
    assert list(out) == ["sq", "lin"]  # (the function's key order, as tf.nest rebuilds it)
    close(out["sq"], x * x)
    close(d.backward({"sq": np.ones(2, np.float32), "lin": None}, res)[0], 2 * x)


def test_op_without_gradient_raises_lookup_error_naming_it():
    """tj.differentiate raised JAX's raw ValueError about while_loop, every other path LookupError."""
    loop = tj.op(lambda a: jax.lax.while_loop(lambda c: c[1] < 3, lambda c: (c[0] * 2.0, c[1] + 1), (a, 0))[0],
                 name="doubling_loop")
    with pytest.raises(LookupError, match="No gradient defined for op 'doubling_loop'"):
        tj.differentiate(lambda a: loop(a), np.ones(2, np.float32))
