"""jax.numpy.vectorize against tj.numpy.vectorize: what the sampled port of JAX's vectorize tests leaves out.

Source: jax-ml/jax tests/lax_numpy_vectorize_test.py (VectorizeTest, 21 methods, at commit cec06d11), run against the
installed jax 0.10.2 and NumPy. All 21 methods are already ported, on a sample of their grids, by
test_jax_numpy_misc_port.py (its docstring lists them: test_matmat ... test_non_scalar_outputs_and_default_signature);
none is ported twice here. The entries of JAX's shape grids that file did not sample (test_matmat, test_matvec,
test_vecmat, test_magnitude, test_mean) were added to its CORE grid, whose test now also checks the values against
np.vectorize (JAX's test feeds zeros and checks only the shape). This file adds:
  * a dtype sample (bool, int32, complex64, float16, mixed int32 x float32, Python scalars);
  * zero-size loop dimensions (jax.numpy's vmap over an empty batch);
  * gradients, which JAX's file has none of: tape.gradient against jax.vjp of the jnp.vectorize version for a
    '(n),(n)->()' signature and an elementwise (no signature) case, both with broadcast loop dimensions; a
    ForwardAccumulator against jax.jvp; tape.jacobian against jax.jacrev; a Variable read inside the function and a
    Tensor passed through ``excluded``; complex inputs (API.md: tape.gradient = conj(jax.grad));
  * the vectorized function inside tj.function (values, and a tape inside and outside it) and under jax.vmap;
  * errors JAX's file does not reach (leading shapes that do not broadcast; a list where a signature asks for a
    tuple of outputs; a core dimension asked of a 0-d input).

Mapping: ``jnp.vectorize(f_jnp, excluded=..., signature=...)`` -> ``tnp.vectorize(f_tnp, ...)``, where ``f_tnp`` is
``f_jnp`` written with tj.numpy ops. Values: np.vectorize's (where NumPy computes the same function) and
jnp.vectorize's, on seeded random inputs, computed at test time; shapes and dtypes jax.numpy's (x64 off). tj runs
the function once per loop element, so the grids use small loops.

Left out: JAX's two largest grid entries, matmat (6, 5, 2, 3) x (3, 4) and matvec (5, 4, 2, 3) x (1, 3) (30 and
20 loop elements: one tj op call each, too slow for this file's budget; the same rule as their smaller entries).

Sanctioned differences (the first two asserted here on both sides):
  * a keyword argument not listed in ``excluded``: jax.numpy drops it silently (pyfunc runs with its default); tj
    raises TypeError saying so (API.md: clear errors, never silent wrong numbers);
  * a list returned where the signature asks for several outputs: jax.numpy crashes inside vmap with
    TracerArrayConversionError (a TypeError); tj raises a clear TypeError ("output must be a tuple");
  * ``inspect.signature`` of the vectorized function: tj's shows ``(*args, **kwargs)``, not pyfunc's (tj.function
    would otherwise fill in pyfunc's defaults; see test_jax_numpy_misc_port.py).

Differences from jax.numpy this port found, fixed in tapejax (each test failed before):
  * a Python scalar argument lost its weak type: float16 array x 2.5 gave float32 (jax: float16), int8 x 3 int32;
  * structured outputs without a signature (a list, a dict, a nested tuple): jax returns that structure of arrays,
    each with the loop shape; tj stacked a list or inner tuple into one Tensor, entries last, and raised on a dict;
  * the gradient of an input whose loop dimension is empty was None (jax.vjp: zeros of the input's shape);
  * a malformed signature raised when ``vectorize`` was called (jax.numpy: when the vectorized function is called);
  * a signature with spaces, ``'(n), (n) -> ()'``, was accepted (jax.numpy raises ValueError; NumPy accepts it);
  * ``excluded={True}`` raised TypeError (jax.numpy takes it as position 1, True being an int);
  * the vectorized function's ``__qualname__`` and ``__module__`` were tj's own (jax.numpy's functools.wraps copies
    pyfunc's).
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from conftest import same_tree_as_jax

tnp = tj.numpy


def _jax_side(ok, what):
    # (jax.numpy's own behaviour: a change there is not tj's failure)
    if not ok:
        raise RuntimeError(f"jax.numpy changed: {what}")


def _rand(shape, dtype=np.float32, seed=0):
    r = np.random.RandomState(seed)
    v = r.uniform(-2.0, 2.0, size=shape)
    if dtype == np.bool_:
        return v > 0
    if dtype == np.complex64:
        return (v + 1j * r.uniform(-2.0, 2.0, size=shape)).astype(dtype)
    if np.dtype(dtype).kind == "i":
        return np.round(v * 3).astype(dtype)
    return v.astype(dtype)


def _same(got, want, rtol=1e-5, atol=1e-6):
    """A tj result (Tensors) against jax.numpy's: one structure, and per entry the same shape, dtype and values."""
    leaves = jax.tree_util.tree_leaves(got, is_leaf=lambda x: isinstance(x, tj.Tensor))
    assert all(isinstance(t, tj.Tensor) for t in leaves), got
    same_tree_as_jax(got, want, rtol, atol)


# -- dtypes -------------------------------------------------------------------------------------------------------

DTYPES = [  # (label, pyfunc of the module, signature, arguments)
    ("bool", lambda m: m.logical_and, None,
     [_rand((3,), np.bool_, 0), _rand((2, 1), np.bool_, 1)]),
    ("int32 mean", lambda m: m.mean, "(n)->()", [_rand((2, 3), np.int32)]),
    ("int32 plus float", lambda m: (lambda x: x + 1.5), None, [_rand((3,), np.int32)]),
    ("complex64", lambda m: (lambda a, b: a * m.conj(b) + 1), None,
     [_rand((2, 2), np.complex64, 0), _rand((), np.complex64, 1)]),
    ("float16 mean", lambda m: m.mean, "(n)->()", [np.arange(6, dtype=np.float16).reshape(2, 3) / 4]),
    ("int32 x float32", lambda m: (lambda a, b: a * b), None, [_rand((3,), np.int32), np.float32(0.5)]),
    ("python scalars", lambda m: (lambda a, b: a + b), None, [1, 2.5]),
    ("python int, float32", lambda m: (lambda a, b: a * b), None, [_rand((3,)), 3]),
]


@pytest.mark.parametrize("label, fn, sig, args", DTYPES, ids=[d[0] for d in DTYPES])
def test_dtypes(label, fn, sig, args):
    want = jnp.vectorize(fn(jnp), signature=sig)(*args)
    # NumPy computes the same values (its dtypes follow NumPy's rules, not jax's)
    np.testing.assert_allclose(np.asarray(want), np.vectorize(fn(np), signature=sig)(*args).astype(want.dtype),
                               rtol=1e-3 if want.dtype == np.float16 else 1e-6)
    _same(tnp.vectorize(fn(tnp), signature=sig)(*args), want, rtol=1e-3 if want.dtype == np.float16 else 1e-6)


@pytest.mark.parametrize("dtype, scalar", [(np.float16, 2.5), (np.int8, 3)], ids=["float16", "int8"])
def test_python_scalar_stays_weakly_typed(dtype, scalar):
    x = np.arange(4, dtype=dtype)
    want = jnp.vectorize(lambda a, b: a * b)(x, scalar)
    _jax_side(want.dtype == dtype, want.dtype)
    assert tnp.multiply(x, scalar).dtype == dtype  # (tj's own op keeps the weak type)
    _same(tnp.vectorize(lambda a, b: a * b)(x, scalar), want)


# -- zero-size loop dimensions ------------------------------------------------------------------------------------

EMPTY = [  # (label, pyfunc of the module, signature, arguments)
    ("signature", lambda m: m.dot, "(n),(n)->()", [np.zeros((0, 3), np.float32), _rand((3,))]),
    ("elementwise", lambda m: (lambda a: m.sin(a) * 2), None, [np.zeros((2, 0), np.float32)]),
    ("two outputs", lambda m: (lambda a: (a, m.stack([a, -a]))), "()->(),(k)", [np.zeros((0,), np.float32)]),
    ("int32 to float", lambda m: (lambda a: a / 2), None, [np.zeros((0, 2), np.int32)]),
]


@pytest.mark.parametrize("label, fn, sig, args", EMPTY, ids=[e[0] for e in EMPTY])
def test_zero_size_loop(label, fn, sig, args):
    _same(tnp.vectorize(fn(tnp), signature=sig)(*args), jnp.vectorize(fn(jnp), signature=sig)(*args))


def test_zero_size_loop_gradient():
    x, w = np.zeros((0, 3), np.float32), _rand((3,))
    _, vjp = jax.vjp(jnp.vectorize(jnp.dot, signature="(n),(n)->()"), x, w)
    want = vjp(np.zeros((0,), np.float32))
    ts = [tj.constant(x), tj.constant(w)]
    with tj.GradientTape() as tape:
        tape.watch(ts)
        y = tnp.vectorize(lambda a, b: tnp.sum(tnp.sin(a) * b), signature="(n),(n)->()")(*ts)
    for g, ww in zip(tape.gradient(y, ts), want):
        assert (g.shape, g.dtype) == (ww.shape, ww.dtype)  # (None.shape: AttributeError)
        np.testing.assert_array_equal(g.numpy(), np.asarray(ww))


# -- gradients ----------------------------------------------------------------------------------------------------

def _dot_tanh(m):  # a '(n),(n)->()' function
    return lambda a, b: m.sum(m.tanh(a) * b)


def _elementwise(m):  # no signature: scalars in, a scalar out
    return lambda a, b: m.sin(a) * m.exp(b) + a * b


GRAD_CASES = [  # (label, pyfunc of the module, signature, argument shapes: loop dimensions broadcast)
    ("(n),(n)->()", _dot_tanh, "(n),(n)->()", [(2, 3), (3,)]),
    ("elementwise", _elementwise, None, [(2, 1), (2,)]),
]


def _args(shapes):
    return [_rand(s, seed=k) for k, s in enumerate(shapes)]


def _tape_grads(f, args, cotangent):
    ts = [tj.constant(a) for a in args]
    with tj.GradientTape() as tape:
        tape.watch(ts)
        y = f(*ts)
    return y, tape.gradient(y, ts, output_gradients=cotangent)


@pytest.mark.parametrize("label, fn, sig, shapes", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_tape_gradient_against_vjp(label, fn, sig, shapes):
    args = _args(shapes)
    want_y, vjp = jax.vjp(jnp.vectorize(fn(jnp), signature=sig), *args)
    ct = _rand(want_y.shape, seed=7)
    y, grads = _tape_grads(tnp.vectorize(fn(tnp), signature=sig), args, ct)
    _same(y, want_y)
    for g, w in zip(grads, vjp(ct)):  # (the broadcast argument's gradient summed over the loop)
        _same(g, w, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("label, fn, sig, shapes", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_accumulator_against_jvp(label, fn, sig, shapes):
    args = _args(shapes)
    tangents = [_rand(s, seed=10 + k) for k, s in enumerate(shapes)]
    want_y, want_t = jax.jvp(jnp.vectorize(fn(jnp), signature=sig), tuple(args), tuple(tangents))
    ts = [tj.constant(a) for a in args]
    with tj.ForwardAccumulator(ts, [tj.constant(t) for t in tangents]) as acc:
        y = tnp.vectorize(fn(tnp), signature=sig)(*ts)
    _same(y, want_y)
    _same(acc.jvp(y), want_t, rtol=1e-5, atol=1e-5)


def test_in_function_against_eager():
    # (the signature case: tj.function runs the same per-element tj ops as eager, the elementwise case adds nothing)
    _, fn, sig, shapes = GRAD_CASES[0]
    args = _args(shapes)
    f = tnp.vectorize(fn(tnp), signature=sig)
    eager_y = f(*args)
    ct = _rand(eager_y.shape, seed=7)
    _, eager_g = _tape_grads(f, args, ct)

    @tj.function
    def inside(a, b):  # a tape inside the compiled function
        with tj.GradientTape() as tape:
            tape.watch([a, b])
            y = f(a, b)
        return y, tape.gradient(y, [a, b], output_gradients=ct)

    y, g = inside(*args)
    _same(y, eager_y.numpy())
    _same(tuple(g), tuple(e.numpy() for e in eager_g), rtol=1e-5, atol=1e-5)
    # an outer tape over the tj.function call (recorded as one op)
    _, outer_g = _tape_grads(tj.function(f), args, ct)
    _same(tuple(outer_g), tuple(e.numpy() for e in eager_g), rtol=1e-5, atol=1e-5)


def test_jacobian_against_jacrev():
    # '(n)->(n)': a softmax per row; the Jacobian couples entries of a row only
    def softmax(m):
        return lambda r: m.exp(r) / m.sum(m.exp(r))
    x = _rand((2, 3))
    want = jax.jacrev(jnp.vectorize(softmax(jnp), signature="(n)->(n)"))(x)
    t = tj.constant(x)
    with tj.GradientTape() as tape:
        tape.watch(t)
        y = tnp.vectorize(softmax(tnp), signature="(n)->(n)")(t)
    _same(tape.jacobian(y, t), want, rtol=1e-5, atol=1e-6)


def test_variable_read_inside_and_variable_argument():
    # the Variable is read at each loop element: its gradient sums over them (jax: the same array, excluded)
    x, v0 = _rand((4, 3)), _rand((3,), seed=1)
    want_y, vjp = jax.vjp(jnp.vectorize(lambda r, v: jnp.sum(r * v), signature="(n)->()", excluded={1}), x, v0)
    ct = _rand((4,), seed=2)
    v = tj.Variable(v0)
    xv = tj.Variable(x)
    with tj.GradientTape() as tape:
        y = tnp.vectorize(lambda r: tnp.sum(r * v), signature="(n)->()")(xv)
    gx, gv = tape.gradient(y, [xv, v], output_gradients=ct)
    _same(y, want_y)
    wx, wv = vjp(ct)
    _same(gx, wx, rtol=1e-5, atol=1e-5)
    _same(gv, wv, rtol=1e-5, atol=1e-5)


def test_excluded_keyword_tensor_gets_its_gradient():
    # a Tensor passed by name through excluded= reaches every call as it is, and its gradient sums over them
    def body(m):
        return lambda x, scale: m.exp(x * scale) - scale
    x, s = _rand((2, 3)), np.float32(0.7)
    want_y, vjp = jax.vjp(lambda a, b: jnp.vectorize(body(jnp), excluded={"scale"})(a, scale=b), x, s)
    ct = _rand((2, 3), seed=3)
    tx, ts = tj.constant(x), tj.constant(s)
    with tj.GradientTape() as tape:
        tape.watch([tx, ts])
        y = tnp.vectorize(body(tnp), excluded={"scale"})(tx, scale=ts)
    _same(y, want_y)
    for g, w in zip(tape.gradient(y, [tx, ts], output_gradients=ct), vjp(ct)):
        _same(g, w, rtol=1e-5, atol=1e-5)


def test_complex_gradient_is_conjugate_of_jax_grad():
    # a real loss of complex inputs: tape.gradient = conj(jax.grad) (API.md, TF's convention)
    def body(m):
        return lambda z, w: m.abs(z * w + 1.0)
    z, w = _rand((3,), np.complex64, 0), _rand((), np.complex64, 1)
    weights = _rand((3,), seed=2)
    want = jax.grad(lambda a, b: jnp.sum(jnp.vectorize(body(jnp))(a, b) * weights), argnums=(0, 1))(z, w)
    tz, tw = tj.constant(z), tj.constant(w)
    with tj.GradientTape() as tape:
        tape.watch([tz, tw])
        loss = tnp.sum(tnp.vectorize(body(tnp))(tz, tw) * weights)
    for g, ww in zip(tape.gradient(loss, [tz, tw]), want):
        _same(g, np.conj(np.asarray(ww)), rtol=1e-5, atol=1e-5)


def test_under_jax_vmap():
    # jax.vmap of a function of tj ops (API.md: one set of rules on every path)
    xs, b = _rand((3, 2, 4)), _rand((4,), seed=1)
    want = jax.vmap(lambda a: jnp.vectorize(_dot_tanh(jnp), signature="(n),(n)->()")(a, b))(xs)
    got = jax.vmap(lambda a: tnp.vectorize(_dot_tanh(tnp), signature="(n),(n)->()")(a, b).value)(xs)
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)


# -- errors and conventions ---------------------------------------------------------------------------------------

ERRORS = [  # (label, call of the module, exception, words both messages share)
    ("loop shapes do not broadcast", lambda m: m.vectorize(m.add)(np.zeros(2), np.zeros(3)), ValueError,
     "broadcast"),
    ("core dimension of a 0-d input", lambda m: m.vectorize(m.sum, signature="(n)->()")(np.float32(1)), ValueError,
     r"with shape \(\) does not have enough dimensions"),
    # (jax's TypeError is a crash inside vmap, TracerArrayConversionError; tj's says what is wrong)
    ("list for two outputs", lambda m: m.vectorize(lambda a: [a, a], signature="()->(),()")(np.ones(2)),
     TypeError, None),
]


@pytest.mark.parametrize("label, call, exc, words", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(label, call, exc, words):
    with pytest.raises(exc, match=words):
        call(jnp)
    with pytest.raises(exc, match=words):
        call(tnp)


def test_list_for_two_outputs_message():
    with pytest.raises(TypeError, match="output must be a tuple"):
        tnp.vectorize(lambda a: [a, a], signature="()->(),()")(np.ones(2, np.float32))


def test_keyword_not_excluded():
    # jax.numpy drops it silently (pyfunc runs with its default s=1.0); tj refuses (sanctioned: no silent numbers)
    x = np.ones(2, np.float32)
    np.testing.assert_array_equal(np.asarray(jnp.vectorize(lambda a, s=1.0: a * s)(x, s=3.0)), x)
    with pytest.raises(TypeError, match="excluded"):
        tnp.vectorize(lambda a, s=1.0: a * s)(x, s=3.0)


def test_excluded_position_past_the_arguments():
    # (JAX's older test_exclude_errors raised here; jax 0.10.2 and tj let pyfunc's default fill it)
    x = _rand((2,))
    want = jnp.vectorize(lambda a, b=2.0: a * b, excluded={1})(x)
    _same(tnp.vectorize(lambda a, b=2.0: a * b, excluded={1})(x), want)


def test_name_and_doc_carried():
    def pyfunc(x):
        """Doubles x."""
        return x * 2
    f, g = jnp.vectorize(pyfunc), tnp.vectorize(pyfunc)
    assert (g.__name__, g.__doc__, g.__wrapped__) == (f.__name__, f.__doc__, f.__wrapped__)


def test_qualname_and_module_carried():
    def pyfunc(x):
        return x * 2
    f, g = jnp.vectorize(pyfunc), tnp.vectorize(pyfunc)
    _jax_side((f.__qualname__, f.__module__) == (pyfunc.__qualname__, pyfunc.__module__), f.__qualname__)
    assert (g.__qualname__, g.__module__) == (f.__qualname__, f.__module__)


PYTREE_OUTPUTS = [  # (label, pyfunc of the module): no signature, the output a structure of arrays
    ("list", lambda m: (lambda a: [a, a * 10])),
    ("dict", lambda m: (lambda a: {"y": a, "z": a * 10})),
    ("nested tuple", lambda m: (lambda a: (a, (a * 10, a - 1)))),
]


@pytest.mark.parametrize("label, fn", PYTREE_OUTPUTS, ids=[p[0] for p in PYTREE_OUTPUTS])
def test_structured_outputs_without_signature(label, fn):
    x = _rand((3,))
    want = jnp.vectorize(fn(jnp))(x)
    got = tnp.vectorize(fn(tnp))(x)
    want_leaves, want_tree = jax.tree.flatten(want)
    got_leaves, got_tree = jax.tree.flatten(got, is_leaf=lambda t: isinstance(t, tj.Tensor))
    assert got_tree == want_tree, (got_tree, want_tree)
    for g, w in zip(got_leaves, want_leaves):
        _same(g, w)


def test_malformed_signature_raises_at_call():
    f_jnp = jnp.vectorize(lambda x: x, signature="(n)->")  # (no error yet)
    with pytest.raises(ValueError, match="not a valid gufunc signature"):
        f_jnp(np.zeros(3))
    f_tj = tnp.vectorize(lambda x: x, signature="(n)->")
    with pytest.raises(ValueError, match="not a valid gufunc signature"):
        f_tj(np.zeros(3))


def test_signature_with_spaces_rejected():
    sig, args = "(n), (n) -> ()", (np.ones((2, 3), np.float32), np.ones(3, np.float32))
    with pytest.raises(ValueError, match="not a valid gufunc signature"):
        jnp.vectorize(jnp.dot, signature=sig)(*args)
    with pytest.raises(ValueError, match="not a valid gufunc signature"):
        tnp.vectorize(tnp.dot, signature=sig)(*args)


def test_excluded_true_is_position_one():
    x = _rand((2,))
    want = jnp.vectorize(lambda a, tag: a * 2 if tag == "double" else a, excluded={True})(x, "double")
    got = tnp.vectorize(lambda a, tag: a * 2 if tag == "double" else a, excluded={True})(x, "double")
    _same(got, want)
