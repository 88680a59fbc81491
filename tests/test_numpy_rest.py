"""The last of jax.numpy in tj.numpy (rollaxis, unstack, ediff1d, put_along_axis, the windows, the set functions,
sort_complex, piecewise, the index helpers...): values, dtypes and gradients against jax.numpy's own (jax.grad of a
weighted sum, computed by JAX at test time), the functions of values value for value, tracing with and without
size=, the errors for bad arguments, and a program of them on the other paths (tj.function, jax.grad of tj code)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from numpy_reference import check_values, check_values_and_gradient

tnp = tj.numpy
X = np.random.default_rng(5).normal(size=(3, 4)).astype(np.float32)
# (repeated values: a set function's value is gathered from the entry where it first occurs)
S = np.array([0.5, -1.0, 2.0, 0.5, 3.0, -1.0, 4.0], np.float32)
IDX = np.array([[2, 0], [-1, 1], [3, -4]])


def _exact(m, k):
    """tj.numpy's set functions run without size= (eagerly); jax.numpy's with the exact size: the same values, and
    the gradient jax.numpy gives them (its size-less path concretizes the input, so jax.grad gets zeros there)."""
    return k if m is jnp else None


# (label, f(module, x), x): f applied to jax.numpy with a jax array and to tj.numpy with a Tensor
DIFFERENTIABLE = [
    ("rollaxis unstack ediff1d ix_", lambda m, a: [
        m.rollaxis(a.reshape(2, 3, 2), 2), m.rollaxis(a.reshape(2, 3, 2), 0, 3), m.rollaxis(a.reshape(2, 3, 2), 1, -3),
        *m.unstack(a, axis=1), m.ediff1d(a), m.ediff1d(a[0], to_end=a[1, :2] * 2, to_begin=3.0),
        *m.ix_(a[0], a[1, :2])], X),
    ("put_along_axis", lambda m, a: [
        m.put_along_axis(a, IDX[:, :1], a[:, 3:] * 2, 1, inplace=False),
        m.put_along_axis(a, np.array([[5, -7, 0, -1]]), a[2] - 1, 0, inplace=False),  # (out of bounds: dropped)
        m.put_along_axis(a, np.array([[5], [-9], [1]]), 4.0, 1, inplace=False, mode="clip")], X),
    ("sort_complex kaiser piecewise", lambda m, a: [
        m.real(m.sort_complex(a)), m.kaiser(6, a[3]),
        m.piecewise(a, [a < 0, a > 1], [lambda x: x * x, m.sin, 0.5]),
        m.piecewise(a, [a > 0.25], [lambda x, k, c=0.0: x * k + c, -1.0], 3.0, c=0.5)], S),
    # (b = a[::-1] + 1 shares 3.0 and 4.0 with a)
    ("set functions", lambda m, a: [
        m.unique_values(a, size=_exact(m, 5)), m.union1d(a, a[::-1] + 1, size=_exact(m, 8)),
        m.intersect1d(a, a[::-1] + 1, size=_exact(m, 2)), m.setdiff1d(a, a[::-1] + 1, size=_exact(m, 3)),
        m.setxor1d(a, a[::-1] + 1, size=_exact(m, 6)), m.setxor1d(a[1:4], a[4:], assume_unique=True, size=_exact(m, 4)),
        m.intersect1d(a[1:4], a[4:], assume_unique=True, size=_exact(m, 1)),
        m.setdiff1d(a[1:5], a[:2], assume_unique=True, size=_exact(m, 2))], S),
    ("set functions sized", lambda m, a: [
        m.unique_all(a, size=6, fill_value=-9.0).values, *m.intersect1d(a, a[::-1] + 1, size=3, return_indices=True),
        m.setdiff1d(a, a[::-1] + 1, size=4, fill_value=-3.0), m.setxor1d(a, a[::-1] + 1, size=7)], S),
]


@pytest.mark.parametrize("label, f, arg", DIFFERENTIABLE, ids=[c[0] for c in DIFFERENTIABLE])
def test_values_and_gradients_as_jax_numpy(label, f, arg):
    check_values_and_gradient(label, f, arg, value_tol=(2e-6, 2e-6), grad_tol=(1e-5, 1e-5))


I = np.array([[3, 1, 3], [7, 1, 2]], np.int32)
Z = np.array([1 + 0j, 2j, -0.5 + 1e-3j, 4], np.complex64)
VALUES_ONLY = [
    ("diag_indices", lambda m: [*m.diag_indices(3), *m.diag_indices(2, 3), *m.diag_indices(0, 1),
                                *m.diag_indices_from(np.ones((2, 2, 2)))]),
    ("tril triu indices_from", lambda m: [*m.tril_indices_from(X), *m.tril_indices_from(X, 1),
                                          *m.triu_indices_from(X, -1), *m.triu_indices_from(jnp.ones((4, 2)), 2)]),
    ("array_equiv", lambda m: [m.array_equiv(X, X), m.array_equiv(X[:1], np.repeat(X[:1], 3, 0)),
                               m.array_equiv(X, X + 1), m.array_equiv([1, 2], [[1, 2], [1, 2]])]),
    ("iscomplex isreal", lambda m: [m.iscomplex(Z), m.isreal(Z), m.iscomplex(I), m.isreal(X), m.isreal(2.0)]),
    ("ix_", lambda m: m.ix_(np.array([0, 2]), np.array([1, 3, 2]), np.array([5]))),
    ("windows", lambda m: [m.bartlett(5), m.blackman(6), m.hamming(2.7), m.hanning(0), m.kaiser(5, 3.0)]),
    ("unique_* int", lambda m: [*m.unique_all(I), *m.unique_inverse(I, size=2)]),
    ("set functions int", lambda m: [*m.intersect1d(I[0], I[1], return_indices=True),
                                     m.setdiff1d(I, np.array([2, 3])), m.intersect1d(I[0], np.array([], np.int32)),
                                     m.setdiff1d(np.array([], np.int32), I)]),
    ("sort_complex int complex", lambda m: [m.sort_complex(I), m.sort_complex(Z), m.sort_complex(np.array([2, 1]))]),
    ("ediff1d int", lambda m: [m.ediff1d(I, to_begin=np.array([0.5, 7.0])), m.ediff1d(I[0, :1])]),
    ("put_along_axis int", lambda m: m.put_along_axis(I, np.array([0, 4, -1]), 7, None, inplace=False)),
    ("piecewise int scalar", lambda m: [m.piecewise(I, [I > 2], [lambda x: x * 2.5, 0.5]),
                                        m.piecewise(np.float32(2.0), [True], [lambda x: x * 3])]),
]


@pytest.mark.parametrize("label, f", VALUES_ONLY, ids=[c[0] for c in VALUES_ONLY])
def test_functions_of_values_as_jax_numpy(label, f):
    check_values(f(jnp), f(tnp), tol=(1e-6, 1e-7))


def test_results_are_named_tuples_and_indices_have_no_gradient():
    x = tj.constant(S)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        u = tnp.unique_all(x)
        flags = tnp.isreal(x)
    assert type(u).__name__ == type(jnp.unique_all(S)).__name__ and u._fields == jnp.unique_all(S)._fields
    assert tnp.unique_counts(S)._fields == jnp.unique_counts(S)._fields
    assert tnp.unique_inverse(S)._fields == jnp.unique_inverse(S)._fields
    np.testing.assert_array_equal(u.inverse_indices.numpy(), jnp.unique_all(S).inverse_indices)
    for y in (u.indices, u.inverse_indices, u.counts, flags):
        assert tape.gradient(y, x) is None


def test_value_dependent_shapes_need_size_when_traced():
    for f in (tnp.unique_values, lambda a: tnp.union1d(a, a), lambda a: tnp.intersect1d(a, S),
              lambda a: tnp.setdiff1d(a, S), lambda a: tnp.setxor1d(S, a)):
        with pytest.raises(TypeError, match="size="):
            tj.function(f)(S)
    sized = tj.function(lambda a, b: [tnp.unique_counts(a, size=6).counts, tnp.setxor1d(a, b, size=3),
                                      *tnp.intersect1d(a, b, size=2, return_indices=True)])(S, S[2:] + 1)
    want = jax.jit(lambda a, b: [jnp.unique_counts(a, size=6).counts, jnp.setxor1d(a, b, size=3),
                                 *jnp.intersect1d(a, b, size=2, return_indices=True)])(S, S[2:] + 1)
    for y, w in zip(sized, want):
        np.testing.assert_array_equal(y.numpy(), w)


def test_other_paths_differentiate_with_tapejax_rules():
    def f(m, a):
        p = m.piecewise(a, [a > 0], [lambda x: x * x, lambda x: m.sin(x)])
        q = m.put_along_axis(a.reshape(3, 4), np.array([[1], [3], [0]]), a[:3, None] * 5, 1, inplace=False)
        u = m.union1d(a[:5], a[4:] * 2, size=6, fill_value=0.0)
        return m.sum(p * a) + m.sum(m.rollaxis(q, 1) ** 2) + m.sum(m.ediff1d(a) ** 2) + m.sum(u * m.arange(6.0))
    a = X.ravel()
    want, want_g = jax.jit(jax.value_and_grad(lambda u: f(jnp, u)))(a)
    np.testing.assert_allclose(tj.function(lambda u: f(tnp, u))(a).numpy(), want, rtol=1e-5)
    np.testing.assert_allclose(jax.jit(jax.grad(lambda u: f(tnp, tj.constant(u)).value))(a), want_g, rtol=1e-5,
                               atol=1e-5)


def test_bad_arguments_say_what_to_fix():
    assert not tnp.array_equiv(X, X[:, :2]).numpy() and not np.array_equiv(X, X[:, :2])  # (jax.numpy's raises)
    with pytest.raises(ValueError, match="inplace=False"):
        tnp.put_along_axis(X, IDX[:, :1], 1.0, 1)
    with pytest.raises(ValueError, match="same ndim"):
        tnp.put_along_axis(X, np.array([0, 1]), 1.0, 1, inplace=False)
    with pytest.raises(ValueError, match=r"values of shape \(4,\) must broadcast to the shape of indices \(3, 1\)"):
        tnp.put_along_axis(X, IDX[:, :1], X[0], 1, inplace=False)
    with pytest.raises(ValueError, match="indices must be 1-d"):
        tnp.put_along_axis(X, IDX, 1.0, None, inplace=False)
    with pytest.raises(ValueError, match="unknown mode 'wrap'"):
        tnp.put_along_axis(X, IDX, 1.0, 1, inplace=False, mode="wrap")
    with pytest.raises(TypeError, match="indices must be integers"):
        tnp.put_along_axis(X, IDX * 0.5, 1.0, 1, inplace=False)
    with pytest.raises(ValueError, match=r"start=5 must satisfy -2 <= start <= 2"):
        tnp.rollaxis(X, 1, 5)
    with pytest.raises(ValueError, match="out of range"):
        tnp.rollaxis(X, 2)
    with pytest.raises(ValueError, match="rank > 0"):
        tnp.unstack(1.0)
    with pytest.raises(ValueError, match="must be nonnegative"):
        tnp.diag_indices(-1)
    with pytest.raises(ValueError, match="equal length"):
        tnp.diag_indices_from(X)
    with pytest.raises(ValueError, match="at least 2-d"):
        tnp.diag_indices_from(S)
    with pytest.raises(ValueError, match="only 2-d inputs"):
        tnp.triu_indices_from(S)
    with pytest.raises(ValueError, match=r"must be 1-dimensional, got shape \(3, 4\)"):
        tnp.ix_(S, X)
    with pytest.raises(NotImplementedError, match="boolean argument inside a trace"):
        tj.function(tnp.ix_)(S > 0)  # (eagerly, a mask stands for its nonzero indices, as NumPy's)
    with pytest.raises(TypeError, match="M must be nonnegative"):
        tnp.hamming(-1)
    with pytest.raises(ValueError, match=r"with 2 condition\(s\), either 2 or 3 functions are expected; got 1"):
        tnp.piecewise(S, [S > 0, S < 1], [1.0])


def test_round_integers_to_negative_decimals_as_numpy():
    # jax.numpy raises NotImplementedError; NumPy rounds to multiples of 10**-decimals, halves to even, in the
    # input's dtype (TF 2.21's tnp.around gives [19, 29, -39] for the first case: wrong)
    np.testing.assert_array_equal(tnp.around(np.array([15, 25, -35], np.int32), -1).numpy(), [20, 20, -40])
    for dt in (np.int8, np.uint8, np.int16, np.int32):
        info = np.iinfo(dt)
        x = np.arange(max(int(info.min), -300), min(int(info.max), 300) + 1).astype(dt)
        for d in (-1, -2, -3):
            want = np.around(x.astype(np.int64), d)
            fits = (want >= info.min) & (want <= info.max)  # (where NumPy's own result would wrap: not compared)
            got = tnp.around(x, d)
            assert got.dtype == dt
            np.testing.assert_array_equal(got.numpy()[fits], want[fits])
    x = tj.constant([15, 25])
    with tj.GradientTape() as tape:
        tape.watch(x)  # (an int: no gradient, as round's)
        y = tnp.round(x, -1)
    assert tape.gradient(y, x) is None
