"""The rest of jax.numpy (and jax.numpy.linalg) in tj.numpy: functions composed of tj ops, checked value, dtype and
gradient against jax.numpy's own (jax.grad of a weighted sum, computed by JAX at test time), one program of them on
the other paths (tf.function, jax.grad and jax.vmap of tj code), the functions of values with no gradient value for
value, and the errors for bad arguments."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from numpy_reference import check_values, check_values_and_gradient

tnp = tj.numpy
_rng = np.random.default_rng(3)
X = _rng.normal(size=(3, 4)).astype(np.float32)
V = np.array([0.3, 1.7, -0.4, 2.6, 0.9], np.float32)
PHASE = np.array([0.0, 2.0, 4.5, 7.1, 1.0, -2.5], np.float32)

SQ = (_rng.normal(size=(6, 6)) + 4 * np.eye(6)).astype(np.float32)
H = np.array([0.0, 0.5, 1.5, 3.0], np.float32)  # uneven sample coordinates
IDX = np.array([[0, 2, 1, 1], [2, 0, 1, 5], [1, 1, 0, -1]])
MASK = X > 0.2


# (label, f(module, x), x): f applied to jax.numpy with a jax array and to tj.numpy with a Tensor
DIFFERENTIABLE = [
    ("insert", lambda m, a: [m.insert(a, 1, a[0, :3], axis=1), m.insert(a, np.array([0, 5, 5, -1]), a[1])], X),
    ("resize", lambda m, a: m.resize(a, (5, 3)), X),
    ("gradient", lambda m, a: m.gradient(a), X),
    ("gradient coordinates", lambda m, a: m.gradient(a, H, axis=-1), X),
    ("unwrap", lambda m, a: [m.unwrap(a), m.unwrap(a * 2, discont=4.0, period=5.0)], PHASE),
    ("vander", lambda m, a: [m.vander(a), m.vander(a, 3, True)], V),
    ("fill_diagonal", lambda m, a: [m.fill_diagonal(a, a[0, :2], inplace=False),
                                    m.fill_diagonal(a, 2.5, inplace=False)], X),
    ("compress", lambda m, a: [m.compress(np.array([True, False, True]), a, axis=0), m.extract(MASK, a)], X),
    ("compress size", lambda m, a: [m.compress(np.array([0, 1, 1, 0]), a, 1, size=3, fill_value=-2.0),
                                    m.extract(MASK, a, size=4, fill_value=7.0)], X),
    ("choose", lambda m, a: [m.choose(IDX % 3, [a, a * 2, a[0]]), m.choose(IDX, [a, a ** 2, -a], mode="wrap"),
                             m.choose(IDX, [a, a ** 2, -a], mode="clip")], X),
    ("place put", lambda m, a: [m.place(a, MASK, a[0, :3] * 3, inplace=False),
                                m.put(a, np.array([0, 5, -1, 20]), a[2, :4] * 2, inplace=False),
                                m.put(a, np.array([13, -2]), a[0, :2] + 1, mode="wrap", inplace=False),
                                m.put(a, np.array([13, 3]), a[1, :2] * 4, mode="clip", inplace=False)], X),
    ("ldexp frexp modf", lambda m, a: [m.ldexp(a, np.array([1, -3, 0, 40], np.int32)), *m.frexp(a * 5),
                                       *m.modf(a * 3)], X),
    ("i0 fmod", lambda m, a: [m.i0(a), m.fmod(a * 3, X[::-1] + 2.5)], X),
    ("histogram", lambda m, a: [*m.histogram(a, 3, density=True), m.histogram(X, 4, (-1.0, 1.0), weights=a)[0],
                                m.histogram(X, np.array([-2.0, -0.5, 0.0, 2.0]), weights=a * a)[0],
                                m.histogram_bin_edges(a, 5)], X),
    ("apply_along_axis apply_over_axes", lambda m, a: [m.apply_along_axis(lambda r: m.sum(r * r) - r[0], 1, a),
                                                       m.apply_over_axes(m.sum, a, [0, 1])], X),
    ("vectorize signature", lambda m, a: m.vectorize(lambda u, w: m.sum(m.maximum(u, 0.0) * w),
                                                     signature="(n),(n)->()")(a, a[0]), X),
    ("linalg tensorinv tensorsolve", lambda m, a: [
        m.linalg.tensorinv(a.reshape(2, 3, 6)), m.linalg.tensorsolve(a.reshape(6, 2, 3), a[0])], SQ),
    ("linalg multi_dot", lambda m, a: m.linalg.multi_dot([a[0], a[:, :5], a[:5, :2]]), SQ),
    ("linalg cond", lambda m, a: [m.linalg.cond(a), m.linalg.cond(a, "fro"), m.linalg.cond(a[:4], -2)], SQ),
]


@pytest.mark.parametrize("label, f, arg", DIFFERENTIABLE, ids=[c[0] for c in DIFFERENTIABLE])
def test_values_and_gradients_as_jax_numpy(label, f, arg):
    # (compress without size= and choose with mode="raise" cannot be traced by jax.numpy)
    check_values_and_gradient(label, f, arg, value_tol=(2e-5, 2e-5), grad_tol=(1e-4, 1e-4),
                              jit=label not in ("compress", "choose"))


def test_composed_functions_on_the_other_paths():
    # tj.function and jax.grad of tj code run the same tj ops (vectorize's calls included), and a tape over a
    # tj.function differentiates them
    def f(m, a):
        v = m.vectorize(lambda u: m.sum(m.maximum(u, 0.0) * u), signature="(n)->()")(a)
        h = m.histogram(a, 3, weights=a * a, range=(-2.0, 2.0))[0]
        return m.sum(m.insert(a, 1, a[:, 0] * 2, axis=1) * a[0, 0]) + m.sum(v * h)
    # (jax.numpy's side in one jax.jit each: one program per reference instead of one per primitive)
    want = jax.jit(lambda a: f(jnp, a))(X)
    np.testing.assert_allclose(tj.function(lambda a: f(tnp, a))(X).numpy(), want, rtol=1e-5)
    want_g = jax.jit(jax.grad(lambda a: f(jnp, a)))(X)
    np.testing.assert_allclose(jax.jit(jax.grad(lambda a: f(tnp, tj.constant(a)).value))(X), want_g, rtol=1e-5,
                               atol=1e-5)
    x = tj.constant(X)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tj.function(lambda a: f(tnp, a))(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), want_g, rtol=1e-5, atol=1e-5)


def test_vectorize_follows_tapejax_rules_and_second_order():
    # maximum at a tie gives the whole gradient to its first argument (TF's rule): jax.numpy's would give half
    f = tnp.vectorize(lambda u, c: tnp.maximum(u, c) * 2.0, excluded={1})
    x = tj.constant([0.0, 1.0, -1.0])
    with tj.GradientTape() as outer:
        outer.watch(x)
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = tnp.sum(f(x, 0.0) * (x + 1.0))  # d/dx: 2 max'(x) (x + 1) + 2 max(x, 0)
        g = tape.gradient(y, x)
    np.testing.assert_allclose(g.numpy(), [2.0, 6.0, 0.0])
    np.testing.assert_allclose(outer.gradient(g, x).numpy(), [4.0, 4.0, 0.0])
    with tj.ForwardAccumulator(x, tj.constant([1.0, 1.0, 1.0])) as acc:
        y = f(x, 0.0)
    np.testing.assert_allclose(acc.jvp(y).numpy(), [2.0, 2.0, 0.0])


def test_vectorize_reads_what_the_function_closes_over_at_each_call_with_its_gradient():
    # (as jax.numpy's vectorize under jax.grad: a Variable read inside sees its value now, and a Tensor or Variable
    # the function closes over gets its gradient, on the tape and through tj.function)
    w = tj.Variable([1.0, 2.0, 3.0])
    c = tj.constant([0.5, 0.5, 2.0])
    f = tnp.vectorize(lambda r: tnp.sum(r * w * c), signature="(n)->()")
    x = tj.constant(np.ones((2, 3), np.float32))
    np.testing.assert_allclose(f(x).numpy(), [7.5, 7.5])
    w.assign([10.0, 10.0, 10.0])
    np.testing.assert_allclose(f(x).numpy(), [30.0, 30.0])
    for g in (f, tj.function(f)):
        with tj.GradientTape() as tape:
            tape.watch([x, c])
            y = tnp.sum(g(x))
        gx, gw, gc = tape.gradient(y, [x, w, c])
        np.testing.assert_allclose(gx.numpy(), [[5.0, 5.0, 20.0]] * 2)
        np.testing.assert_allclose(gw.numpy(), [1.0, 1.0, 4.0])
        np.testing.assert_allclose(gc.numpy(), [20.0, 20.0, 20.0])
    with pytest.raises(TypeError, match="not in excluded"):  # (jax.numpy's would silently drop k)
        tnp.vectorize(lambda u, k=1: u * k)(x, k=3)
    with pytest.raises(ValueError, match="does not match core dimensions"):
        tnp.vectorize(lambda u: u, signature="(n)->()")(x)


I8 = np.array([12, -18, 7, 0, 255, -1], np.int32)
F = np.array([1.0, -0.0, np.inf, -np.inf, np.nan, 3e-3], np.float32)
VALUES_ONLY = [
    ("gcd", lambda m: m.gcd(I8, np.int32(8))), ("lcm", lambda m: m.lcm(I8[:4], np.array([4, 6, 2, 5], np.int32))),
    ("nextafter", lambda m: m.nextafter(F, np.float32(0.0))), ("spacing", lambda m: m.spacing(F)),
    ("bitwise_count", lambda m: m.bitwise_count(I8)), ("bitwise_count uint8", lambda m: m.bitwise_count(np.uint8(7))),
    ("isneginf", lambda m: m.isneginf(F)), ("isposinf", lambda m: m.isposinf(F)),
    ("left_shift", lambda m: m.left_shift(I8, 2)), ("right_shift", lambda m: m.bitwise_right_shift(I8, 1)),
    ("bitwise_invert", lambda m: m.bitwise_invert(I8)),
    ("trim_zeros", lambda m: m.trim_zeros(np.array([0, 0, 1.5, 0, 2, 0], np.float32))),
    ("trim_zeros f 2-d axis", lambda m: m.trim_zeros(np.array([[0, 0, 1], [0, 0, 0], [0, 2, 0]]), "f", axis=1)),
    ("trim_zeros all zero", lambda m: m.trim_zeros(np.zeros((2, 2)))),
    ("packbits", lambda m: m.packbits(X > 0)), ("packbits axis little", lambda m: m.packbits(X > 0, 0, "little")),
    ("unpackbits", lambda m: m.unpackbits(np.array([[5, 255], [128, 0]], np.uint8), 1, count=11)),
    ("unpackbits little", lambda m: m.unpackbits(np.array([5, 3], np.uint8), bitorder="little")),
    ("histogram counts", lambda m: m.histogram(np.array([1, 2, 2, 3, 7, 7]), 3)),
    ("histogramdd counts", lambda m: m.histogramdd(X[:, :3], (2, 3, 2))[0]),
    ("histogram2d density weights", lambda m: m.histogram2d(X[0], X[1], 2, weights=X[2], density=True)),
    ("frexp exponent", lambda m: m.frexp(F)), ("modf inf nan", lambda m: m.modf(F)),
    ("ldexp int", lambda m: m.ldexp(np.array([1, 3]), np.array([2, -1]))),
    ("aliases", lambda m: [m.acos(0.5), m.atan2(1.0, 2.0), m.asinh(0.5), m.atanh(0.25)]),
    ("linalg aliases", lambda m: [m.linalg.cross(SQ[:, :3], SQ[:, 3:]), m.linalg.outer(SQ[0], SQ[1]),
                                  m.linalg.matmul(SQ, SQ), m.linalg.vecdot(SQ, SQ[0]), m.linalg.matrix_transpose(SQ[:2]),
                                  m.linalg.tensordot(SQ, SQ, axes=1), m.linalg.trace(SQ, offset=1),
                                  m.linalg.diagonal(SQ, offset=-1)]),
]


@pytest.mark.parametrize("label, f", VALUES_ONLY, ids=[c[0] for c in VALUES_ONLY])
def test_functions_of_values_as_jax_numpy(label, f):
    # (float products in "linalg aliases" and "histogram2d density weights": the same ops, summed in another order)
    # (jax.numpy's values in one jax.jit: one program per reference instead of one per primitive; trim_zeros's
    # shape depends on the values, so it stays eager)
    tol = (1e-5, 1e-5) if label in ("linalg aliases", "histogram2d density weights") else None
    check_values(f(jnp) if label.startswith("trim_zeros") else jax.jit(lambda: f(jnp))(), f(tnp), tol=tol)


def test_value_only_results_have_no_gradient_and_value_dependent_shapes_need_known_values():
    x = tj.constant(F)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.spacing(x) + tnp.frexp(x)[1] + tnp.modf(x)[1]
    assert tape.gradient(y, x) is None
    with pytest.raises(TypeError, match="filt must be known"):
        tj.function(tnp.trim_zeros)(V)
    with pytest.raises(TypeError, match="condition .* must be known"):
        tj.function(lambda c: tnp.compress(c, X, axis=0))(np.array([True, False, True]))
    sized = tj.function(lambda c, a: tnp.compress(c, a, axis=1, size=2))(MASK[0], X)  # size= traces
    want = jax.jit(lambda c, a: jnp.compress(c, a, axis=1, size=2))(MASK[0], X)  # (one program, not one per op)
    np.testing.assert_array_equal(sized.numpy(), want)


def test_bad_arguments_say_what_to_fix():
    with pytest.raises(NotImplementedError, match="inplace=False"):
        tnp.fill_diagonal(X, 1.0)
    with pytest.raises(ValueError, match="inplace=False"):
        tnp.put(X, [0], [1.0])
    with pytest.raises(ValueError, match="inplace=False"):
        tnp.place(X, MASK, [1.0])
    with pytest.raises(ValueError, match="arr and mask must be the same size"):
        tnp.place(X, MASK[0], [1.0], inplace=False)
    with pytest.raises(ValueError, match=r"invalid entry in the choice array: indices must be in \[0, 3\)"):
        tnp.choose(IDX, [X, X, X])
    with pytest.raises(TypeError, match="mode='wrap' or mode='clip'"):
        tj.function(lambda i: tnp.choose(i, [X, X]))(IDX % 2)
    with pytest.raises(ValueError, match="must be integer typed"):
        tnp.choose(X, [X, X])
    with pytest.raises(TypeError, match="x2 must be integer typed"):
        tnp.ldexp(X, X)
    with pytest.raises(ValueError, match="edge_order must be 1 or 2"):
        tnp.gradient(X, edge_order=3)
    with pytest.raises(ValueError, match=r"too small .* at least 3 elements"):
        tnp.gradient(X[:2], axis=0, edge_order=2)
    with pytest.raises(ValueError, match="spacing array of length 3 for axis 1 of length 4"):
        tnp.gradient(X, H[:3], axis=1)
    with pytest.raises(TypeError, match="3 spacing arguments for 2 axes"):
        tnp.gradient(X, 1.0, 2.0, 3.0)
    with pytest.raises(ValueError, match="weights of shape"):
        tnp.histogram(X, weights=X[0])
    with pytest.raises(NotImplementedError, match="string values for bins"):
        tnp.histogram(X, "auto")
    with pytest.raises(ValueError, match="product of the first ind=2 dimensions"):
        tnp.linalg.tensorinv(np.ones((2, 3, 4)))
    with pytest.raises(ValueError, match="at least two arrays"):
        tnp.linalg.multi_dot([X])
    with pytest.raises(ValueError, match="3-d vectors"):
        tnp.linalg.cross(X, X)
    with pytest.raises(ValueError, match="must be square"):
        tnp.linalg.cond(X, 1)
    with pytest.raises(ValueError, match="obj must be a slice, a one-dimensional array or a scalar"):
        tnp.insert(X, np.ones((2, 2), int), 1.0)
    with pytest.raises(ValueError, match="new_shape must be non-negative"):
        tnp.resize(X, (-1, 2))
    with pytest.raises(TypeError, match="can only exclude integer or string arguments"):
        tnp.vectorize(tnp.sin, excluded={1.5})
    with pytest.raises(ValueError, match="keep the rank or reduce it by one"):
        tnp.apply_over_axes(lambda a, ax: tnp.sum(a), X, [0])
    with pytest.raises(NotImplementedError, match="'out' argument to tj.numpy.modf"):
        tnp.modf(X, np.zeros(4))


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "uint8", "uint32"])
def test_gcd_and_lcm_at_the_integer_limits_are_numpys(dtype):
    # jax.numpy's gcd and lcm loop on abs(x), negative for the signed minimum: gcd(int32(-2**31), 6) never returned
    # (a hung process); tapejax takes the magnitudes in the unsigned type, wrapping back as NumPy does
    info = np.iinfo(dtype)
    values = [v for v in (info.min, info.min + 1, -12, -7, -4, -1, 0, 1, 3, 4, 6, 12, info.max)
              if info.min <= v <= info.max]
    a = np.array(values, dtype)
    x, y = (v.ravel() for v in np.meshgrid(a, a))
    for name in ("gcd", "lcm"):
        got = getattr(tj.numpy, name)(tj.constant(x), tj.constant(y)).numpy()
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(got, getattr(np, name)(x, y), err_msg=name)
