"""JAX's jax.numpy.linalg tests, ported to tj.numpy.linalg.

Source: jax-ml/jax tests/linalg_test.py, class NumpyLinalgTest (mirror commit cec06d11), run against the installed
jax 0.10.2, NumPy 2.4 and SciPy 1.17. ``jnp.linalg.<name>`` -> ``tj.numpy.linalg.<name>`` (same names and signatures);
``_CheckAgainstNumpy`` -> tj's values against NumPy's, computed at test time on the same inputs, and tj's shapes,
dtypes and values against jax.numpy's own result (x64 off: float32/complex64/int32); ``_CompileAndCheck`` -> one
tj.function computing every function at once, against jax.numpy (test_compiled_matches_jax). JAX's checks of
decompositions whose factors are not unique (eig, svd, qr: residuals, reconstruction, unitarity, Q up to a phase)
are kept as they are. ``jtu.check_grads`` -> tj.GradientTape's gradient (random cotangents) against jax.vjp of the
jax.numpy function, tj.ForwardAccumulator against jax.jvp, and nested tapes against jax.vjp of the vjp where JAX
asks for order 2 (float32; complex inputs in API.md's convention, tape.gradient = conj(jax's)). Singular vectors
are made unique first (_normalizing_svd, as JAX's test); eigenvectors are compared through |v|^2 (phase-invariant)
against ``lax.linalg.eig(..., enable_eigvec_derivs=True)``. Inputs: JAX's rand_default (normal * 3), seeded per
case. JAX's grids (float32/64, complex64/128, many shapes) are sampled down to float32 and complex64 on small shapes,
with an int32/bool/float16 case where the function takes them.

Ported: testCholesky (plus its gradient, which JAX checks in float64 only), testDet, testDetOfSingularMatrix
(jnp.linalg.det for jsp.linalg.det), testDetGrad, testDetGradIssue6121, testDetGradOfSingularMatrixCorank1/2,
testTensorsolve, testTensorsolveAxes, testSlogdet, testSlogdetGrad, testIssue1213, testEig (right eigenvectors:
jnp.linalg.eig computes no left ones), testEigHandlesNanInputs (through jnp.linalg.eig), testEigvalsGrad,
testEigGradComplexInputs / testEigGradRealInputs (right eigenvectors, |v|^2), testEigvals, testEigvalsInf,
testEigBatching (a batch, and jax.vmap over tj), testNorm, testStringInfNorm, testMatrixNorm, testEmptyMatrixNorm,
testVectorNorm, testEmptyVectorNorm, testVecdot, testMatmul, testTensordot (the jnp.linalg aliases and their
precision/preferred_element_type), testSVD, testSVDGrad, testNumpyQrModes, testQr, testQrInvalidDtypeCPU,
testQrBatching (a batch), testCond, testTensorinv, testSolve, testSolveBroadcasting, testInv,
testLinalgPrimitivesInvalidDtype, testPinv, testPinvRcond, testPinvGradIssue2792, testMatrixPower,
testMatrixPowerBool, testMatrixRank, testMatrixRankTol, testMultiDot, testLstsq, testLstsqZeroMatrix, testIssue669,
testIssue1151, testIssue1383 (third directional derivative by nested accumulators, not three jacfwd), testCross,
testOuter, testDiagonal, testTrace; and the signatures of the functions these use (test_signature_as_jax).

Left out: testCholeskyGradPrecision (jtu.assert_dot_precision inspects the jaxpr); testLuPivotsToPermutation and
...Batching (lax.linalg.lu_pivots_to_permutation, no jnp.linalg counterpart); testJspSVDBasic (jax.scipy);
testInvDtypeError (jaxlib >= 0.11.1 and jax.scipy.linalg.inv); the lax.linalg-only parts of testEig /
testEigGrad* (left eigenvectors, implementation=, CUSOLVER); testSVD's ``algorithm`` (lax.linalg.svd) and the
400000-row cases (time); float64/complex128 everywhere (x64 is off).

Not tj differences: jax 0.10.2's jnp.linalg raises NotImplementedError ("Unsupported dtype float16") for a float16
input; JAX's test (newer jaxlib) and TF expect TypeError, which tj raises: the tests expect TypeError. Error
messages differ from jax's; the exception classes are checked (and the words a message must name).

Differences from jax.numpy found and fixed in tapejax: pinv of an int32 matrix gave wrong values (silently); pinv
had no ``rcond`` keyword; qr had no mode='raw' nor mode='full'; norm / matrix_norm / vector_norm of an empty array with
ord=inf or 1 raised ValueError (jax: 0); vector_norm over several axes (not all) or axis=() raised NotImplementedError;
norm with ord=1/inf of an int32 array gave int32 (jax: float32), as did det of an empty int32 matrix; matrix_rank of a
1-D array raised ValueError; lstsq(numpy_resid=True) raised ValueError (jax: NumPy's residuals, eagerly); eigvalsh's
UPLO defaulted to None (jax: 'L') and its symmetrize_input was positional; svd had no subset_by_index; the second
derivative of det of 1x1 matrices was None (unconnected; TF 2.21 and jax: zeros).

Sanctioned (tested as tj behaves, with the reason): cholesky, eigh and eigvalsh default to symmetrize_input=False and
read the lower triangle (as NumPy, LAPACK and TF, whose gradient convention tj keeps; jax: True, (a + a^H) / 2);
qr(mode='complete') of a matrix with more rows than columns has no derivative (TF's QrGrad; jax differentiates it by
a convention of its own); the Jacobian of pinv at equal singular values is TF 2.21's SVD-based one.
(tensordot's signature is not compared: jax's has a sharding argument, out_sharding.)
"""
import inspect
import warnings
import zlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj

from conftest import jax_raises

tnp = tj.numpy
F16, F32, C64, I32, BOOL = np.float16, np.float32, np.complex64, np.int32, np.bool_
INF = np.inf
pytestmark = [pytest.mark.filterwarnings("ignore::RuntimeWarning"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning")]


# -- inputs: jtu.rand_default (normal * 3), seeded per case -----------------------------------------------------------
def rand(shape, dtype, *key):
    g = np.random.default_rng(zlib.crc32(repr((shape, np.dtype(dtype).name) + key).encode()))
    x = g.standard_normal(shape) * 3
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return x > 0
    if dt.kind in "iu":
        return np.trunc(x).astype(dt)
    if dt.kind == "c":
        return (x + 3j * g.standard_normal(shape)).astype(dt)
    return x.astype(dt)


def herm(a):
    return (a + np.conj(np.swapaxes(a, -1, -2))) / 2


# -- comparisons ------------------------------------------------------------------------------------------------------
def leaves(x):
    return list(x) if isinstance(x, (tuple, list)) else [x]


def wide(a):
    a = np.asarray(a)
    return a.astype(np.complex128) if a.dtype.kind == "c" else a.astype(np.float64)


def near(got, want, tol, label=""):
    """Values within ``tol``, relative to the larger of 1 and the largest magnitude wanted."""
    got, want = wide(got), wide(want)
    assert got.shape == want.shape, (label, got.shape, want.shape)
    scale = max(1.0, float(np.nanmax(np.abs(want)))) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale, equal_nan=True, err_msg=label)


def check(label, fn, args, np_fn="same", tol=1e-3, jit=True):
    """``fn(tnp, *args)``: jax.numpy's shapes and dtypes (``fn(jnp, *args)``) and values, and NumPy's values
    (``np_fn(*args)``, by default ``fn(np, *args)``; None: none). jax.numpy's side runs inside one jax.jit (one XLA
    program, not one per primitive) unless ``jit=False``."""
    got = fn(tnp, *args)
    want = jax.jit(lambda: fn(jnp, *args))() if jit else fn(jnp, *args)
    assert len(leaves(got)) == len(leaves(want)), label
    for g, w in zip(leaves(got), leaves(want)):
        w = jnp.asarray(w)
        assert isinstance(g, tj.Tensor), (label, type(g))
        assert (tuple(g.shape), g.dtype) == (w.shape, w.dtype), (label, g.shape, g.dtype, w.shape, w.dtype)
        near(g.numpy(), w, tol, label)
    if np_fn is not None:
        ref = fn(np, *args) if np_fn == "same" else np_fn(*args)
        for g, n in zip(leaves(got), leaves(ref)):
            near(g.numpy(), n, tol, label)
    return got


def promote_like_jnp(np_fn):
    """jtu.promote_like_jnp: NumPy on inputs cast to jax.numpy's result dtype."""
    def f(*args):
        dt = jnp.result_type(*args)
        return np_fn(*(np.asarray(a).astype(dt) for a in args))
    return f


def _cotangents(outs, seed):
    g = np.random.default_rng(seed)
    cts = []
    for o in outs:
        o = np.asarray(o)
        c = g.standard_normal(o.shape)
        if o.dtype.kind == "c":
            c = c + 1j * g.standard_normal(o.shape)
        cts.append(c.astype(o.dtype))
    return cts


def check_grads(tf, jf, x, tol=2e-3, order=1, forward=True, seed=0):
    """tj's derivatives of ``tf`` at ``x`` against jax's of ``jf`` (jtu.check_grads): the tape's gradient under
    random cotangents against jax.vjp (conjugated, API.md), a ForwardAccumulator's JVP against jax.jvp, and with
    ``order=2`` nested tapes against jax.vjp of that vjp (real ``x``). jax's side runs as one jitted program."""
    x = np.asarray(x)
    shapes = jax.eval_shape(jf, jax.ShapeDtypeStruct(x.shape, x.dtype))
    structured = isinstance(shapes, (tuple, list))
    cts = _cotangents([np.zeros(o.shape, o.dtype) for o in leaves(shapes)], seed)
    t, v = _cotangents([x], seed + 1)[0], _cotangents([x], seed + 2)[0]

    @jax.jit
    def reference(a, cts, t, v):
        ct = tuple(cts) if structured else cts[0]
        first = lambda b: jax.vjp(jf, b)[1](ct)[0]  # noqa: E731
        jt = jax.jvp(jf, (a,), (t,))[1] if forward else None
        return first(a), jt, (jax.vjp(first, a)[1](v)[0] if order == 2 else None)
    jgrad, jt, jsecond = reference(x, cts, t, v)
    xt = tj.constant(x)
    with tj.GradientTape(persistent=True) as outer:
        outer.watch(xt)
        with tj.GradientTape() as tape:
            tape.watch(xt)
            outs = leaves(tf(xt))
        assert len(outs) == len(cts)
        g = tape.gradient(outs, xt, output_gradients=[np.conj(c) for c in cts])
    near(g.numpy(), np.conj(jgrad), tol, "tape gradient vs jax.vjp")
    if forward:
        with tj.ForwardAccumulator(xt, tj.constant(t)) as acc:
            outs = leaves(tf(xt))
        for o, w in zip(outs, leaves(jt)):
            got = acc.jvp(o, unconnected_gradients=tj.UnconnectedGradients.ZERO)
            near(got.numpy(), w, tol, "accumulator jvp vs jax.jvp")
    if order == 2:
        got = outer.gradient(g, xt, output_gradients=v, unconnected_gradients=tj.UnconnectedGradients.ZERO)
        near(got.numpy(), jsecond, tol, "nested tapes vs jax.vjp of the vjp")


# -- testCholesky -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape, dtype, upper", [((1, 1), F32, False), ((4, 4), F32, True), ((2, 5, 5), C64, False),
                                                 ((3, 0, 0), F32, True)])
def test_cholesky(shape, dtype, upper):
    f = rand(shape[:-1] + (2 * shape[-1],), dtype, "cholesky")
    a = np.matmul(f, np.conj(np.swapaxes(f, -1, -2)))
    check("cholesky", lambda m, x: m.linalg.cholesky(x, upper=upper, symmetrize_input=True), [a],
          lambda x: np.linalg.cholesky(x, upper=upper))


@pytest.mark.parametrize("dtype", [F32, C64])
def test_cholesky_grad(dtype):
    # JAX checks this gradient in 64 bits only; float32 on a well-conditioned x x^H here
    f = rand((3, 6), dtype, "cholesky grad")
    a = f @ np.conj(f.T) / 6
    check_grads(lambda x: tnp.linalg.cholesky(x, symmetrize_input=True), jnp.linalg.cholesky, a, tol=5e-3,
                forward=dtype == F32)


@pytest.mark.parametrize("name", ["cholesky", "eigh"])
def test_default_reads_the_lower_triangle_as_numpy_and_tf(name):
    # Sanctioned: tj's default symmetrize_input=False reads the lower triangle, as NumPy, LAPACK and TF (whose
    # gradient convention tj keeps); jax.numpy's default True averages a with a^H. symmetrize_input=True gives jax's.
    a = np.array([[4.0, 2.0, 0.5], [0.0, 3.0, 1.0], [0.0, 0.0, 5.0]], F32)
    lower = np.tril(a) + np.tril(a, -1).T
    if name == "cholesky":
        near(tnp.linalg.cholesky(a).numpy(), np.linalg.cholesky(lower), 1e-5)
        near(tnp.linalg.cholesky(a, symmetrize_input=True).numpy(), jnp.linalg.cholesky(a), 1e-5)
    else:
        near(tnp.linalg.eigh(a).eigenvalues.numpy(), np.linalg.eigvalsh(a), 1e-5)  # (NumPy reads 'L')
        near(tnp.linalg.eigh(a, symmetrize_input=True).eigenvalues.numpy(), jnp.linalg.eigh(a).eigenvalues, 1e-5)


# -- testDet, testDetOfSingularMatrix, testDetGrad* --------------------------------------------------------------------
@pytest.mark.parametrize("n, dtype", [(0, F32), (3, F32), (5, F32), (4, C64), (3, I32), (0, I32)])
def test_det(n, dtype):
    a = rand((n, n), dtype, "det")
    check("det", lambda m, x: m.linalg.det(x), [a])


def test_det_of_singular_matrix():
    x = np.array([[-1.0, 3.0 / 2], [2.0 / 3, -1.0]], F32)
    got = tnp.linalg.det(x)
    np.testing.assert_allclose(got.numpy(), 0.0, atol=1e-6)
    np.testing.assert_allclose(got.numpy(), jnp.linalg.det(x), atol=1e-6)


@pytest.mark.parametrize("shape, order", [((3, 3), 2), ((2, 3, 3), 1)])
def test_det_grad(shape, order):
    a = rand(shape, F32, "det grad")
    check_grads(tnp.linalg.det, jnp.linalg.det, a, order=order, forward=len(shape) == 2)
    # no NaN at a zero matrix (JAX: the 2-D case all zeros, a batch with one zero matrix)
    z = np.zeros_like(a)
    if len(shape) == 3:
        z = a.copy()
        z[0] = 0
    check_grads(tnp.linalg.det, jnp.linalg.det, z, forward=False)


def test_det_grad_issue6121():
    x = np.ones((4, 1, 1), F32)
    check_grads(lambda v: tnp.sum(tnp.linalg.det(v)), lambda v: jnp.sum(jnp.linalg.det(v)), x, order=2)
    xt = tj.constant(x)
    with tj.GradientTape() as tape:
        tape.watch(xt)
        y = tnp.sum(tnp.linalg.det(xt))
    np.testing.assert_array_equal(tape.gradient(y, xt).numpy(), np.ones((4, 1, 1)))  # d det[[x]] / dx = 1


def test_det_second_derivative_of_1x1_is_connected():
    xt = tj.constant(np.ones((4, 1, 1), F32))
    with tj.GradientTape() as outer:
        outer.watch(xt)
        with tj.GradientTape() as inner:
            inner.watch(xt)
            y = tnp.sum(tnp.linalg.det(xt))
        g = inner.gradient(y, xt)
    np.testing.assert_array_equal(outer.gradient(g, xt).numpy(), np.zeros((4, 1, 1)))  # TF 2.21's value


@pytest.mark.parametrize("a", [
    # rank 2: the gradient, the adjugate's transpose, is not zero
    np.array([[50, -30, 45], [-30, 90, -81], [45, -81, 81]], F32),
    # rank 1: the adjugate is zero
    np.array([[36, -42, 18], [-42, 49, -21], [18, -21, 9]], F32)], ids=["corank1", "corank2"])
def test_det_grad_of_singular_matrix(a):
    check_grads(tnp.linalg.det, jnp.linalg.det, a, tol=1e-2, forward=False)
    adj_t = np.array([[(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(a.astype(np.float64), i, 0), j, 1))
                       for j in range(3)] for i in range(3)])
    xt = tj.constant(a)
    with tj.GradientTape() as tape:
        tape.watch(xt)
        y = tnp.linalg.det(xt)
    near(tape.gradient(y, xt).numpy(), adj_t, 1e-3)


# -- testTensorsolve, testTensorsolveAxes -----------------------------------------------------------------------------
@pytest.mark.parametrize("m, n, q", [(5, 4, (2, 2)), (2, 6, (1, 2, 3))])
def test_tensorsolve(m, n, q):
    a, b = rand((n, m) + q + (m,), F32, "tensorsolve"), rand((n, m), F32, "tensorsolve b")
    got = check("tensorsolve", lambda mod, x, y: mod.linalg.tensorsolve(x, y), [a, b], tol=1e-2)
    assert got.shape == q + (m,)


def test_tensorsolve_axes():
    a, b = rand((2, 1, 3, 6), F32, "axes"), rand((1, 6), F32, "axes b")
    check("tensorsolve axes", lambda m, x, y: m.linalg.tensorsolve(x, y, axes=(0, 2)), [a, b])


# -- testSlogdet, testSlogdetGrad, testIssue1213 ----------------------------------------------------------------------
@pytest.mark.parametrize("shape, dtype, method", [((0, 0), F32, "lu"), ((4, 4), F32, "lu"), ((3, 2, 2), F32, "qr"),
                                                  ((2, 2, 2), C64, "lu")])
def test_slogdet(shape, dtype, method):
    a = rand(shape, dtype, "slogdet")
    check("slogdet", lambda m, x: tuple(m.linalg.slogdet(x, **({} if m is np else {"method": method}))), [a])


def test_slogdet_qr_of_complex_raises_as_jax():
    a = rand((3, 3), C64, "slogdet qr")
    jax_raises(NotImplementedError, lambda: jnp.linalg.slogdet(a, method="qr"))
    with pytest.raises(NotImplementedError):
        tnp.linalg.slogdet(a, method="qr")


@pytest.mark.parametrize("shape, dtype, order", [((4, 4), F32, 2), ((3, 3), C64, 1)])
def test_slogdet_grad(shape, dtype, order):
    a = rand(shape, dtype, "slogdet grad")
    # (float32: the sign's derivative is zero; complex: sign = det / |det| has one)
    check_grads(lambda x: tuple(tnp.linalg.slogdet(x)), lambda x: tuple(jnp.linalg.slogdet(x)), a, order=order)


def test_issue1213():
    mat = np.array([np.diag(np.ones([5], F32)) * -0.01] * 2)
    check("slogdet", lambda m, x: tuple(m.linalg.slogdet(x)), [mat])


# -- testEig, testEigHandlesNanInputs, testEigvals*, testEigGrad*, testEigBatching -------------------------------------
def assert_right_eigenvectors(a, w, v):
    # JAX's check: |A v - v diag(w)| / ((n + 1) eps) < 100 (here relative to max(1, |A|), float32 in scale-3 entries)
    n = a.shape[-1]
    a, w, v = wide(a), wide(w), wide(v)
    res = np.linalg.norm(np.matmul(a, v) - w[..., None, :] * v, axis=(-2, -1))
    scale = np.maximum(1.0, np.linalg.norm(a, axis=(-2, -1)))
    assert np.all(res / scale / ((n + 1) * np.finfo(np.float32).eps) < 100), res


@pytest.mark.parametrize("shape, dtype", [((0, 0), F32), ((4, 4), F32), ((5, 5), C64)])  # (a batch: below)
def test_eig(shape, dtype):
    a = rand(shape, dtype, "eig")
    w, v = tnp.linalg.eig(a)
    jw, jv = jax.jit(jnp.linalg.eig)(a)
    assert (w.shape, w.dtype, v.shape, v.dtype) == (jw.shape, jw.dtype, jv.shape, jv.dtype)
    assert_right_eigenvectors(a, w.numpy(), v.numpy())
    # the same eigenvalues as NumPy (LAPACK's order may differ: sorted)
    key = lambda z: np.sort_complex(wide(z).round(3))  # noqa: E731
    near(key(w.numpy()), key(np.linalg.eigvals(a)), 1e-3)


@pytest.mark.parametrize("shape, dtype", [((4, 4), F32), ((2, 5, 5), C64)])
def test_eig_handles_nan_inputs(shape, dtype):
    a = np.full(shape, np.nan, dtype)
    assert all(np.all(np.isnan(np.asarray(r))) for r in jnp.linalg.eig(a))
    for r in tnp.linalg.eig(a):
        assert np.all(np.isnan(r.numpy()))


@pytest.mark.parametrize("shape, dtype", [((4, 4), C64)])  # (a real input: test_eig_grad's eigenvalues)
def test_eigvals_grad(shape, dtype):
    a = rand(shape, dtype, "eigvals grad")
    check_grads(tnp.linalg.eigvals, jnp.linalg.eigvals, a, tol=1e-2)


@pytest.mark.parametrize("dtype", [F32])
def test_eig_grad(dtype):
    # JAX differentiates eigenvectors only through lax.linalg.eig(enable_eigvec_derivs=True); compared through
    # |v|^2, which no phase of the unit eigenvectors changes (JAX's real-input test uses v * v for the same reason)
    a = rand((4, 4), dtype, "eig grad")

    def jf(x):
        w, v = jax.lax.linalg.eig(x, compute_left_eigenvectors=False, enable_eigvec_derivs=True)
        return w, jnp.abs(v) ** 2

    def tf(x):
        w, v = tnp.linalg.eig(x)
        return w, tnp.abs(v) ** 2
    check_grads(tf, jf, a, tol=1e-2)


@pytest.mark.parametrize("shape, dtype", [((5, 5), C64)])
def test_eigvals(shape, dtype):
    a = rand(shape, dtype, "eigvals")
    result = tnp.linalg.eig(a)
    assert result.eigenvalues is result[0] and result.eigenvectors is result[1]
    check("eigvals", lambda m, x: m.linalg.eigvals(x), [a], None, tol=1e-5)
    near(tnp.linalg.eigvals(a).numpy(), result.eigenvalues.numpy(), 1e-5)


def test_eigvals_inf():
    x = np.array([[np.inf]], F32)
    assert np.all(np.isnan(np.asarray(jnp.linalg.eigvals(x))))
    assert np.all(np.isnan(tnp.linalg.eigvals(x).numpy()))


def test_eig_batching():
    a = rand((10, 4, 4), F32, "eig batching")
    w, v = tnp.linalg.eig(a)
    assert_right_eigenvectors(a, w.numpy(), v.numpy())
    # jax.vmap over a function of tj ops (API.md: the same values on every path)
    vw, vv = jax.vmap(lambda m: tuple(tnp.linalg.eig(m)))(jnp.asarray(a))
    near(np.asarray(vw), w.numpy(), 1e-5)
    near(np.abs(np.asarray(vv)), np.abs(v.numpy()), 1e-5)


# -- testNorm, testStringInfNorm, testMatrixNorm, testEmptyMatrixNorm, testVectorNorm, testEmptyVectorNorm -----------
VECTOR_ORDS = [None, 0, 1, 2, 3, -1, -2, INF, -INF]
MATRIX_ORDS = [None, "fro", 1, 2, -1, -2, INF, -INF, "nuc"]


@pytest.mark.parametrize("axis, shape, dtype, ords", [
    (None, (7,), F32, VECTOR_ORDS[:5]), (0, (4, 5), C64, VECTOR_ORDS[5:]), ((1,), (4, 3, 2), F32, [None, 3, -INF]),
    ((-2,), (4, 8), F32, [0, -1]), (None, (5, 8), F32, MATRIX_ORDS[:5]), ((0, 2), (3, 4, 5), F32, MATRIX_ORDS[5:]),
    ((2, 0), (3, 4, 2), C64, ["fro", 2, -INF, "nuc"]), (None, (2, 3, 4), F32, [None])])
def test_norm(axis, shape, dtype, ords):
    # (JAX's grid: every ord for each axis; here each ord on one or two of them)
    a = rand(shape, dtype, "norm")
    for k, ord in enumerate(ords):
        kw = dict(ord=ord, axis=axis, keepdims=bool(k % 2))
        check(f"norm {kw}", lambda m, x: m.linalg.norm(x, **kw), [a])


def test_string_inf_norm():
    x = np.array([1.0, 2.0, 3.0], F32)
    jax_raises(ValueError, lambda: jnp.linalg.norm(x, ord="inf"), r"Invalid order 'inf' for vector norm.")
    with pytest.raises(ValueError, match="inf"):
        tnp.linalg.norm(x, ord="inf")


@pytest.mark.parametrize("shape, dtype, ords", [((2, 3), F32, [1, -1, 2, -2]),
                                                ((4, 2, 3), F32, [INF, -INF, "fro", "nuc"]),
                                                ((2, 3), C64, [-2, INF, "nuc"])])
def test_matrix_norm(shape, dtype, ords):
    a = rand(shape, dtype, "matrix_norm")
    for k, ord in enumerate(ords):
        kw = dict(ord=ord, keepdims=bool(k % 2))
        check(f"matrix_norm {kw}", lambda m, x: m.linalg.matrix_norm(x, **kw), [a])


@pytest.mark.parametrize("shape, ord", [
    ((0, 2), 1), ((0, 0), "fro"), ((2, 0), "nuc"), ((0, 2), C64), ((2, 0), 1), ((0, 2), INF)])
def test_empty_matrix_norm(shape, ord):
    dtype, ord = (C64, "fro") if ord is C64 else (F32, ord)
    x = np.zeros(shape, dtype)
    assert jax.jit(lambda: jnp.linalg.matrix_norm(x, ord=ord))() == 0
    got = tnp.linalg.matrix_norm(x, ord=ord)
    assert got.dtype == F32 and got.numpy() == 0


VECTOR_NORM = [((3,), None, 1), ((3,), 0, -1), ((3, 4), (), -INF), ((3, 4), 0, -2),
               ((3, 4), (-1,), 1), ((3, 4), (0, 1), -1), ((2, 3, 4), None, -2), ((2, 3, 4), 1, INF),
               ((2, 3, 4), (0, 1), INF), ((2, 3, 4), (-1, 0), 2), ((2, 3, 4), (-1, 0, 1), -1), ((2, 3, 4), (-1,), -INF)]


@pytest.mark.parametrize("shape, axis, ord, dtype", [(s, a, o, C64 if k % 3 == 1 else F32)
                                                     for k, (s, a, o) in enumerate(VECTOR_NORM)])
def test_vector_norm(shape, axis, ord, dtype):
    a = rand(shape, dtype, "vector_norm", axis)
    keepdims = (len(shape) + (ord if ord in (1, 2, -1, -2) else 0)) % 2 == 1
    check("vector_norm", lambda m, x: m.linalg.vector_norm(x, ord=ord, axis=axis, keepdims=keepdims), [a])


@pytest.mark.parametrize("ord", [1, 2, INF])
def test_empty_vector_norm(ord):
    for dtype in (F32, C64):
        x = np.zeros(0, dtype)
        assert jax.jit(lambda: jnp.linalg.vector_norm(x, ord=ord))() == 0
        assert tnp.linalg.vector_norm(x, ord=ord).numpy() == 0


@pytest.mark.parametrize("name, ord", [("norm", INF), ("matrix_norm", 1), ("norm", "fro"), ("matrix_norm", "nuc")])
def test_norm_of_int_matrix_is_float(name, ord):
    a = rand((3, 4), I32, "int norm")
    check(f"{name} int32", lambda m, x: getattr(m.linalg, name)(x, ord=ord), [a])


# -- testVecdot, testMatmul, testTensordot (the jnp.linalg aliases) ----------------------------------------------------
@pytest.mark.parametrize("axis, dtype", [(0, I32), (1, F32), (-1, C64)])
def test_linalg_vecdot(axis, dtype):
    a, b = rand((2, 2, 2), dtype, "vecdot"), rand((2, 2), dtype, "vecdot b")
    np_fn = promote_like_jnp(lambda x, y: np.linalg.vecdot(x, y, axis=axis))
    check("vecdot", lambda m, x, y: m.linalg.vecdot(x, y, axis=axis), [a, b], np_fn)
    check("vecdot kwargs", lambda m, x, y: m.linalg.vecdot(x, y, axis=axis, precision=jax.lax.Precision.HIGHEST,
                                                           preferred_element_type=dtype), [a, b], np_fn)


@pytest.mark.parametrize("lhs, rhs, dtype", [((3,), (3,), F32), ((2, 3), (3,), C64), ((3,), (3, 4), F32),
                                             ((2, 3), (3, 4), C64)])
def test_linalg_matmul(lhs, rhs, dtype):
    a, b = rand(lhs, dtype, "matmul"), rand(rhs, dtype, "matmul b")
    check("matmul", lambda m, x, y: m.linalg.matmul(x, y), [a, b])
    check("matmul kwargs", lambda m, x, y: m.linalg.matmul(x, y, precision=jax.lax.Precision.HIGHEST,
                                                           preferred_element_type=dtype), [a, b],
          lambda x, y: np.matmul(x, y))


@pytest.mark.parametrize("axes, dtype", [(0, F32), (1, C64), (2, F32)])
def test_linalg_tensordot(axes, dtype):
    a, b = rand((2, 2, 2), dtype, "tensordot"), rand((2, 2), dtype, "tensordot b")
    check("tensordot", lambda m, x, y: m.linalg.tensordot(x, y, axes=axes), [a, b])
    check("tensordot kwargs", lambda m, x, y: m.linalg.tensordot(x, y, axes=axes, precision=jax.lax.Precision.HIGHEST,
                                                                 preferred_element_type=dtype), [a, b],
          lambda x, y: np.linalg.tensordot(x, y, axes=axes))


# -- testSVD, testSVDGrad ---------------------------------------------------------------------------------------------
def backward_error(a, rebuilt):
    a, rebuilt = wide(a), wide(rebuilt)
    return np.amax(np.linalg.norm(a - rebuilt, axis=(-2, -1)) / np.linalg.norm(a, axis=(-2, -1)))


@pytest.mark.parametrize("b, m, n, full_matrices, compute_uv, hermitian, dtype", [
    ((), 0, 2, False, True, False, F32), ((), 2, 7, True, True, False, F32), ((3,), 7, 2, False, True, False, F32),
    ((2,), 3, 3, False, True, True, C64), ((), 3, 3, True, False, True, F32)])
def test_svd(b, m, n, full_matrices, compute_uv, hermitian, dtype):
    a = rand(b + (m, n), dtype, "svd")
    if hermitian:
        a = a + np.conj(np.swapaxes(a, -1, -2))
    kw = dict(full_matrices=full_matrices, compute_uv=compute_uv, hermitian=hermitian)
    out = tnp.linalg.svd(a, **kw)
    want = jax.jit(lambda: jnp.linalg.svd(a, **kw))()  # one XLA program
    assert [(o.shape, o.dtype) for o in leaves(out)] == [(w.shape, w.dtype) for w in leaves(want)]
    tol = 100 * np.finfo(np.float32).eps
    if not compute_uv:
        near(out.numpy(), np.linalg.svd(a, compute_uv=False), 3e-4)
        return
    u, s, vh = (np.asarray(o.numpy()) for o in out)
    near(s, np.linalg.svd(a, compute_uv=False), 3e-4)
    s = s.astype(u.dtype)
    if m and n:
        k = min(m, n)
        rebuilt = np.matmul(s[..., None, :] * u[..., :, :k], vh[..., :k, :])
        assert backward_error(a, rebuilt) < 2 * tol
    eye = np.eye(u.shape[-1])
    np.testing.assert_allclose(np.real(np.matmul(np.conj(np.swapaxes(u, -1, -2)), u)),
                               np.broadcast_to(eye, b + eye.shape), rtol=3 * tol, atol=3 * tol)
    vh_h = np.conj(np.swapaxes(vh, -1, -2))
    gram = np.matmul(vh_h, vh) if m >= n else np.matmul(vh, vh_h)
    eye = np.eye(gram.shape[-1])
    np.testing.assert_allclose(np.real(gram), np.broadcast_to(eye, b + eye.shape), rtol=3 * tol, atol=3 * tol)
    if not full_matrices and m and n:
        # d/dx of U diag(S) V^H at a + x d is d (JAX's jvp check, by a ForwardAccumulator on x)
        d = rand(b + (m, n), dtype, "svd d")
        x = tj.constant(1.0)
        with tj.ForwardAccumulator(x, tj.constant(1.0)) as acc:
            uu, ss, vv = tnp.linalg.svd(a + x.astype(dtype) * d, full_matrices=False)
            y = tnp.real(tnp.matmul(uu * ss.astype(uu.dtype)[..., None, :], vv))
        near(acc.jvp(y).numpy(), np.real(d), 6e-4)


def normalizing_svd(m, full_matrices, complex_input):
    """JAX's _normalizing_svd in module ``m`` (tnp or jnp): the first row of U made real and positive."""
    def f(a):
        u, s, vt = m.linalg.svd(a, full_matrices=full_matrices, compute_uv=True)
        top = u[..., 0:1, :]
        if complex_input:
            phase = m.conj(top) / m.abs(top)
            return u * phase, s, vt * m.swapaxes(m.conj(phase), -1, -2)
        return u * m.sign(top), s, vt * m.swapaxes(m.sign(top), -1, -2)
    return f


@pytest.mark.parametrize("shape, dtype, full_matrices, compute_uv", [
    ((2, 5), F32, False, True), ((3, 3), C64, True, True), ((2, 5), F32, False, False)])
def test_svd_grad(shape, dtype, full_matrices, compute_uv):
    a = rand(shape, dtype, "svd grad")
    if compute_uv:
        cplx = dtype == C64
        # (forward mode: test_svd's JVP of U diag(S) V^H, and the singular values' below)
        check_grads(normalizing_svd(tnp, full_matrices, cplx), normalizing_svd(jnp, full_matrices, cplx), a,
                    tol=3.5e-2, forward=False)
    else:
        check_grads(lambda x: tnp.linalg.svd(x, full_matrices=False, compute_uv=False),
                    lambda x: jnp.linalg.svd(x, full_matrices=False, compute_uv=False), a, tol=2e-3,
                    order=2 if dtype == F32 else 1)


# -- testNumpyQrModes, testQr, testQrInvalidDtypeCPU, testLinalgPrimitivesInvalidDtype, testQrBatching --------------
@pytest.mark.parametrize("shape, mode", [
    ((0, 2), "reduced"), ((3, 4), "reduced"), ((4, 3), "r"), ((2, 0), "complete"), ((4, 3), "complete"),
    ((3, 4), "full"), ((4, 3), "raw")])
def test_numpy_qr_modes(shape, mode):
    a = rand(shape, F32, "qr modes")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # NumPy's mode='full'
        want = np.linalg.qr(a, mode=mode)
    got = tnp.linalg.qr(a, mode=mode)
    jwant = jax.jit(lambda: jnp.linalg.qr(a, mode=mode))()  # one XLA program
    for g, j, n in zip(leaves(got), leaves(jwant), leaves(want)):
        if mode != "raw":  # (JAX: no dtype check for raw)
            assert (g.shape, g.dtype) == (j.shape, j.dtype)
        near(g.numpy(), j, 1e-5)
        near(g.numpy(), n, 1e-5)


def _qr_norm(x, rank):
    return np.linalg.norm(wide(x), axis=(-2, -1)) / (max(1, rank) * np.finfo(np.float32).eps)


@pytest.mark.parametrize("shape, dtype, full_matrices", [((0, 0), F32, False), ((0, 2), C64, False),
                                                         ((3, 4), C64, True), ((2, 10, 5), F32, False),
                                                         ((2, 10, 5), F32, True)])
def test_qr(shape, dtype, full_matrices):
    m, n = shape[-2:]
    mode, k = ("complete", m) if full_matrices else ("reduced", min(m, n))
    a = rand(shape, dtype, "qr")
    lq, lr = (np.asarray(t.numpy()) for t in tnp.linalg.qr(a, mode=mode))
    nq = np.zeros(shape[:-2] + (m, k), dtype)
    for index in np.ndindex(*shape[:-2]):
        nq[index] = np.linalg.qr(a[index], mode=mode)[0]
    max_rank = max(m, n)
    assert np.all(_qr_norm(a - np.matmul(lq, lr), max_rank) < 60)
    # Q against NumPy's up to each column's phase
    q1, q2 = lq[..., :k].astype(np.complex128), nq[..., :k]
    ratio = np.divide(np.where(q2 == 0, 0, q1), np.where(q2 == 0, 1, q2))
    sums = ratio.sum(axis=-2, keepdims=True)
    phases = np.divide(sums, np.abs(sums), out=np.ones_like(sums), where=np.abs(sums) > 0)
    assert np.all(_qr_norm(q1 * phases - q2, max_rank) < 160)
    assert np.all(_qr_norm(np.eye(k) - np.matmul(np.conj(np.swapaxes(lq, -1, -2)), lq), max_rank) < 10)


def test_qr_complete_of_a_deep_matrix_has_no_derivative_as_tf():
    # Sanctioned (TF's QrGrad: "not implemented" for more rows than columns with full_matrices): jax differentiates
    # it by a convention of its own; tj raises rather than pick one
    a, t = rand((5, 3), F32, "qr jvp"), rand((5, 3), F32, "qr jvp tangent")
    xt = tj.constant(a)
    with pytest.raises((NotImplementedError, LookupError)):
        with tj.ForwardAccumulator(xt, tj.constant(t)) as acc:
            q, r = tnp.linalg.qr(xt, mode="complete")
            acc.jvp(q @ r)


@pytest.mark.parametrize("shape, dtype, mode", [((2, 4, 3), C64, "reduced"), ((3, 5), F32, "complete")])
def test_qr_jvp(shape, dtype, mode):
    # q @ r is the identity whichever way the tangent turns Q's columns (JAX's check_jvp of qr_and_mul)
    a = rand(shape, dtype, "qr jvp")
    t = rand(shape, dtype, "qr jvp tangent")
    xt = tj.constant(a)
    with tj.ForwardAccumulator(xt, tj.constant(t)) as acc:
        q, r = tnp.linalg.qr(xt, mode=mode)
        y = q @ r
    _, want = jax.jit(lambda a, t: jax.jvp(lambda v: jnp.matmul(*jnp.linalg.qr(v, mode=mode)), (a,), (t,)))(a, t)
    near(acc.jvp(y).numpy(), want, 3e-3)
    near(acc.jvp(y).numpy(), t, 3e-3)


@pytest.mark.parametrize("name", ["qr", "cholesky", "eigh", "svd", "eig"])
def test_linalg_primitives_invalid_dtype(name):
    # JAX's test (newer jaxlib) and TF: TypeError naming float16; jax 0.10.2 itself raises NotImplementedError
    x = np.ones((3, 3), F16) if name != "qr" else rand((5, 6), F16, "qr f16")
    jax_raises((TypeError, NotImplementedError), lambda: getattr(jnp.linalg, name)(x))
    with pytest.raises(TypeError, match="float16"):
        getattr(tnp.linalg, name)(x)


def test_qr_batching():
    a = rand((10, 4, 5), F32, "qr batching")
    q, r = tnp.linalg.qr(a)
    assert np.linalg.norm(a - np.matmul(q.numpy(), r.numpy())) < 1e-3
    vq, vr = jax.vmap(lambda m: tuple(tnp.linalg.qr(m)))(jnp.asarray(a))
    near(np.asarray(vq), q.numpy(), 1e-5)
    near(np.asarray(vr), r.numpy(), 1e-5)


# -- testCond, testTensorinv ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape, dtype, ps", [((1, 1), F32, [2]), ((4, 4), F32, [-INF, -1, None]),
                                              ((4, 4), C64, ["fro"]), ((2, 3, 5), F32, [-2])])
def test_cond(shape, dtype, ps):
    a = rand(shape, dtype, "cond")
    for p in ps:
        check(f"cond p={p}", lambda m, x: m.linalg.cond(x, p), [a])


@pytest.mark.parametrize("p", [INF, "fro"])
def test_cond_of_non_square_raises(p):
    a = rand((2, 3, 5), F32, "cond")
    jax_raises(ValueError, lambda: jnp.linalg.cond(a, p))
    with pytest.raises(ValueError):
        tnp.linalg.cond(a, p)


@pytest.mark.parametrize("shape, dtype", [((1, 1), F32), ((3, 4, 2, 6), F32), ((6, 2, 3), C64)])
def test_tensorinv(shape, dtype):
    a = rand(shape, dtype, "tensorinv")
    check("tensorinv", lambda m, x: m.linalg.tensorinv(x, ind=len(shape) // 2), [a], tol=1e-4)


# -- testSolve, testSolveBroadcasting, testInv ------------------------------------------------------------------------
@pytest.mark.parametrize("lhs, rhs, dtype", [((4, 4), (4,), F32), ((8, 8), (8, 4), C64), ((2, 2), (3, 2, 2), F32),
                                             ((2, 1, 3, 3), (1, 4, 3, 4), F32), ((1, 0, 0), (1, 0, 2), F32)])
def test_solve(lhs, rhs, dtype):
    a, b = rand(lhs, dtype, "solve"), rand(rhs, dtype, "solve b")
    check("solve", lambda m, x, y: m.linalg.solve(x, y), [a, b])


@pytest.mark.parametrize("lhs, rhs", [((2, 2, 2), (2,)), ((2, 2, 2), (2, 2)), ((2, 2), (2, 2, 2, 2))])
def test_solve_broadcasting(lhs, rhs):
    # (NumPy 2: b is a stack of vectors only when it is 1-D)
    a, b = rand(lhs, F32, "solve bc"), rand(rhs, F32, "solve bc b")
    check("solve", lambda m, x, y: m.linalg.solve(x, y), [a, b])


@pytest.mark.parametrize("shape, dtype", [((2, 5, 5), F32), ((0, 0), F32), ((3, 3), C64)])
def test_inv(shape, dtype):
    a = rand(shape, dtype, "inv")
    check("inv", lambda m, x: m.linalg.inv(x), [a])


# -- testPinv, testPinvRcond, testPinvGradIssue2792 -------------------------------------------------------------------
@pytest.mark.parametrize("shape, hermitian, dtype", [
    ((1, 1), False, F32), ((4, 4), True, F32), ((3, 3), True, C64), ((7, 2), False, C64), ((2, 4, 3), False, F32),
    ((3, 0, 2), False, F32), ((3, 3), False, I32)])
def test_pinv(shape, hermitian, dtype):
    a = rand(shape, dtype, "pinv")
    if hermitian:
        a = herm(a) if dtype != I32 else a + a.T
    check("pinv", lambda m, x: m.linalg.pinv(x, hermitian=hermitian), [a], tol=1e-4)


@pytest.mark.parametrize("shape, hermitian, dtype", [((2, 5), False, F32)])  # (JAX: every testPinv case)
def test_pinv_grad(shape, hermitian, dtype):
    a = rand(shape, dtype, "pinv grad")
    if hermitian:
        a = herm(a)
    check_grads(lambda x: tnp.linalg.pinv(x, hermitian=hermitian),
                lambda x: jnp.linalg.pinv(x, hermitian=hermitian), a, tol=1e-2, forward=not hermitian)


def test_pinv_rcond():
    x = np.ones((3, 3), F32)
    jax_raises(ValueError, lambda: jnp.linalg.pinv(x, rcond=1e-2, rtol=1e-2), "only one of rtol and rcond")
    with pytest.raises(ValueError):
        tnp.linalg.pinv(x, rcond=1e-2, rtol=1e-2)
    np.testing.assert_array_equal(tnp.linalg.pinv(x, rcond=1e-2).numpy(), tnp.linalg.pinv(x, rtol=1e-2).numpy())


def test_pinv_grad_issue2792():
    # the Jacobian stays finite where the pseudo-inverse's rank drops (JAX's values)
    p = tj.constant(np.float32(2.0))
    with tj.GradientTape() as tape:
        tape.watch(p)
        a = tnp.array([[0.0, 0.0], [-1.0, 0.0]], dtype=F32) * p + tnp.array([[0.0, 0.0], [0.0, 1.0]], dtype=F32)
        y = tnp.linalg.pinv(a / (1 + p ** 2))
    np.testing.assert_allclose(tape.jacobian(y, p).numpy(), [[0.0, -1.0], [0.0, 0.0]], atol=1e-6)


def test_pinv_jacobian_at_identity_is_tf_s():
    # Sanctioned: at equal singular values tj differentiates pinv through its SVD with TF's safe reciprocals, as
    # TF 2.21 (whose Jacobian here is the one below: run here); jax's pseudo-inverse rule (and inv's derivative,
    # -A^-1 dA A^-1) also has -1 at [0, 1, 0, 1] and [1, 0, 1, 0]
    eye = tj.constant(np.eye(2, dtype=F32))
    with tj.GradientTape() as tape:
        tape.watch(eye)
        y = tnp.linalg.pinv(eye)
    tf_value = np.zeros((2, 2, 2, 2), F32)
    tf_value[0, 0, 0, 0] = tf_value[1, 1, 1, 1] = -1.0
    np.testing.assert_allclose(tape.jacobian(y, eye).numpy(), tf_value, atol=1e-6)
    jax_value = tf_value.copy()
    jax_value[0, 1, 0, 1] = jax_value[1, 0, 1, 0] = -1.0
    np.testing.assert_allclose(jax.jit(jax.jacobian(jnp.linalg.pinv))(np.eye(2, dtype=F32)), jax_value, atol=1e-6)


# -- testMatrixPower, testMatrixPowerBool -----------------------------------------------------------------------------
@pytest.mark.parametrize("shape, dtype, ns", [((2, 2), F32, [-5, 0, 10]), ((2, 3, 3), F32, [-2]), ((4, 4), C64, [3]),
                                              ((2, 2), I32, [3])])
def test_matrix_power(shape, dtype, ns):
    a = rand(shape, dtype, "matrix_power")
    for n in ns:
        check(f"matrix_power n={n}", lambda m, x: m.linalg.matrix_power(x, n), [a])


def test_matrix_power_bool():
    mat = np.array([[True, True], [False, True]])
    got = check("matrix_power bool", lambda m, x: m.linalg.matrix_power(x, 2), [mat], tol=0)
    assert got.dtype == BOOL


# -- testMatrixRank, testMatrixRankTol --------------------------------------------------------------------------------
@pytest.mark.parametrize("shape, hermitian, dtype", [
    ((1, 2), False, F32), ((8, 5), False, C64), ((4, 4), True, F32), ((5, 5), True, C64), ((2, 3, 4, 5), False, F32),
    ((3,), False, F32)])
def test_matrix_rank(shape, hermitian, dtype):
    a = rand(shape, dtype, "matrix_rank")
    if hermitian:
        a = herm(a)
    # (JAX: no dtype check against NumPy's int64; jax.numpy's int32 here)
    check("matrix_rank", lambda m, x: m.linalg.matrix_rank(x, hermitian=hermitian), [a], tol=0)


def test_matrix_rank_of_rank_deficient():
    # a rank-2 product: the tolerance decides (rand_default matrices are all full rank)
    a = rand((6, 2), F32, "deficient") @ rand((2, 5), F32, "deficient b")
    check("matrix_rank", lambda m, x: m.linalg.matrix_rank(x), [a], tol=0)
    check("matrix_rank tol", lambda m, x: m.linalg.matrix_rank(x, tol=1e3), [a], tol=0)


@pytest.mark.parametrize("shape", [(0, 0), (3, 0), (0, 4), (2, 0, 3)])
def test_matrix_rank_of_an_empty_matrix_is_zero(shape):
    """No singular values: rank 0, as NumPy's and TF's (jax.numpy's raised: the largest of no singular values)."""
    got = tnp.linalg.matrix_rank(np.zeros(shape, F32))
    np.testing.assert_array_equal(got.numpy(), np.linalg.matrix_rank(np.zeros(shape, F32)))
    assert got.shape == shape[:-2] and got.dtype == jnp.linalg.matrix_rank(np.ones((2, 2), F32)).dtype


@pytest.mark.parametrize("shape", [(0, 0), (3, 0), (2, 0, 3)])
def test_spectral_norm_of_an_empty_matrix_is_zero(shape):
    """norm(x, 2) of an empty matrix is 0, as jax.numpy's and NumPy's (the largest of no singular values raised);
    ord=-2 raises ValueError, as theirs."""
    x = np.zeros(shape, F32)
    got = tnp.linalg.norm(x, 2, axis=(-2, -1))
    np.testing.assert_array_equal(got.numpy(), np.linalg.norm(x, 2, axis=(-2, -1)))
    assert got.dtype == F32
    with pytest.raises(ValueError):
        tnp.linalg.norm(x, -2, axis=(-2, -1))


def test_matrix_rank_tol():
    x = np.ones((3, 3), F32)
    jax_raises(ValueError, lambda: jnp.linalg.matrix_rank(x, rtol=1e-2, tol=1e-2), "only one of tol or rtol")
    with pytest.raises(ValueError, match="tol"):
        tnp.linalg.matrix_rank(x, rtol=1e-2, tol=1e-2)
    np.testing.assert_array_equal(tnp.linalg.matrix_rank(x, rtol=1e-2).numpy(),
                                  tnp.linalg.matrix_rank(x, tol=1e-2).numpy())
    assert tnp.linalg.matrix_rank(x, rtol=1e-2).numpy() == 1


# -- testMultiDot -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shapes, dtype", [([(3,), (3, 1)], F32),  # the quick-out path
                                           ([(1, 3), (3, 5), (5, 2)], C64),  # three matrices
                                           ([(1, 3), (3, 5), (5, 2), (2, 7), (7,)], F32)])  # dynamic programming
def test_multi_dot(shapes, dtype):
    arrays = [rand(s, dtype, "multi_dot", k) for k, s in enumerate(shapes)]
    check("multi_dot", lambda m, *xs: m.linalg.multi_dot(list(xs), **({} if m is np else {
        "precision": jax.lax.Precision.HIGHEST})), arrays, tol=1e-4)


# -- testLstsq, testLstsqZeroMatrix -----------------------------------------------------------------------------------
def check_lstsq(a, b, rcond, tol=1e-4):
    got = tnp.linalg.lstsq(a, b, rcond=rcond)
    want = jax.jit(lambda: jnp.linalg.lstsq(a, b, rcond=rcond))()  # one XLA program
    for g, w in zip(got, want):
        assert (g.shape, g.dtype) == (w.shape, w.dtype)
        near(g.numpy(), w, tol)
    x, _, rank, s = np.linalg.lstsq(a, b, rcond=rcond)  # (NumPy's resid: numpy_resid=True, below)
    near(got[0].numpy(), x, tol)
    assert int(got[2].numpy()) == rank
    near(got[3].numpy(), s, tol)


@pytest.mark.parametrize("lhs, rhs, rcond, dtype", [
    ((4, 6), (4,), -1, F32), ((6, 6), (6, 1), 0.5, F32), ((8, 6), (8, 4), None, C64), ((0, 3), (0,), None, F32),
    ((3, 1), (3, 0), None, C64)])
def test_lstsq(lhs, rhs, rcond, dtype):
    check_lstsq(rand(lhs, dtype, "lstsq"), rand(rhs, dtype, "lstsq b"), rcond)


@pytest.mark.parametrize("shape", [(2, 1), (1, 2)])
def test_lstsq_zero_matrix(shape):
    check_lstsq(np.zeros(shape, F32), np.ones(shape, F32), None)


def test_lstsq_numpy_resid():
    a, b = rand((8, 6), F32, "lstsq"), rand((8, 4), F32, "lstsq b")
    check("lstsq numpy_resid", lambda m, x, y: tuple(m.linalg.lstsq(x, y, **({} if m is np else {
        "numpy_resid": True}))), [a, b], tol=1e-4, jit=False)  # numpy_resid needs concrete values


# -- testIssue669, testIssue1151, testIssue1383 -----------------------------------------------------------------------
def test_issue669():
    # the gradient of the eigenvalues' sum of a complex Hermitian matrix is the identity (JAX: jit(grad(jit(f))))
    xc = np.eye(3, dtype=C64)

    def grad_of_trace(x):
        with tj.GradientTape() as tape:
            tape.watch(x)
            val, _ = tnp.linalg.eigh(x)
            y = tnp.real(tnp.sum(val))
        return tape.gradient(y, x)
    for g in (grad_of_trace(tj.constant(xc)), tj.function(grad_of_trace)(tj.constant(xc))):
        assert g.dtype == C64
        np.testing.assert_allclose(g.numpy(), xc, atol=1e-6)
    # API.md: tape.gradient = conj(jax.grad)
    want = np.conj(jax.jit(jax.grad(lambda x: jnp.real(jnp.sum(jnp.linalg.eigh(x)[0]))))(xc))
    np.testing.assert_allclose(grad_of_trace(tj.constant(xc)).numpy(), want, atol=1e-6)


def test_issue1151():
    g = np.random.default_rng(1151)
    a, b = g.standard_normal((4, 3, 3)).astype(F32), g.standard_normal((4, 3, 1)).astype(F32)
    x = tnp.linalg.solve(a, b)
    np.testing.assert_allclose(np.matmul(a, x.numpy()), b, atol=2e-3, rtol=1e-2)
    # Jacobians with respect to both arguments (JAX also takes them of one unbatched system: the same kernels)
    at, bt = tj.constant(a), tj.constant(b)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch([at, bt])
        y = tnp.linalg.solve(at, bt)
    for k, src in enumerate((at, bt)):
        want = jax.jit(jax.jacobian(jnp.linalg.solve, argnums=k))(a, b)
        near(tape.jacobian(y, src).numpy(), want, 1e-3)


def test_issue1383():
    # third derivatives through eigh stay finite (JAX: three jacfwd); here a third directional derivative by
    # nested ForwardAccumulators, against jax.jvp nested three times
    tmp = np.array([[0.3, 0.8], [0.55, 0.2]], F32)
    a = tmp @ tmp.T
    d = np.array([[1.0, 0.5], [0.5, -1.0]], F32)

    def f(m, inp):
        _, vec = m.linalg.eigh(inp)
        return m.matmul(m.matmul(vec, inp), vec.T)

    x = tj.constant(a)
    with tj.ForwardAccumulator(x, tj.constant(d)) as a3:
        with tj.ForwardAccumulator(x, tj.constant(d)) as a2:
            with tj.ForwardAccumulator(x, tj.constant(d)) as a1:
                y = f(tnp, x)
            d1 = a1.jvp(y)
        d2 = a2.jvp(d1)
    d3 = a3.jvp(d2).numpy()

    def jd(h):
        return lambda v: jax.jvp(h, (v,), (jnp.asarray(d),))[1]
    want = jd(jd(jd(lambda v: f(jnp, v))))(jnp.asarray(a))
    assert not np.any(np.isnan(d3))
    near(d3, want, 1e-3)


# -- testCross, testOuter, testDiagonal, testTrace --------------------------------------------------------------------
@pytest.mark.parametrize("lhs, rhs, axis, dtypes", [
    ((3,), (3,), -1, (I32, I32)), ((2, 3), (2, 3), -1, (F16, F16)), ((3, 4), (3, 4), 0, (I32, F32)),
    ((3, 5), (3, 4, 5), 0, (F32, C64))])
def test_linalg_cross(lhs, rhs, axis, dtypes):
    a, b = rand(lhs, dtypes[0], "cross"), rand(rhs, dtypes[1], "cross b")
    check("cross", lambda m, x, y: m.linalg.cross(x, y, axis=axis), [a, b],
          promote_like_jnp(lambda x, y: np.linalg.cross(x, y, axis=axis)), tol=1e-2 if dtypes[0] == F16 else 1e-5)


@pytest.mark.parametrize("lhs, rhs, dtypes", [((0,), (3,), (F32, F32)), ((3,), (5,), (I32, C64)),
                                              ((3,), (5,), (I32, I32))])
def test_linalg_outer(lhs, rhs, dtypes):
    a, b = rand(lhs, dtypes[0], "outer"), rand(rhs, dtypes[1], "outer b")
    check("outer", lambda m, x, y: m.linalg.outer(x, y), [a, b], promote_like_jnp(np.linalg.outer), tol=1e-6)


@pytest.mark.parametrize("shape, dtype, offsets", [((2, 3), F32, [-2, 2]), ((3, 2), BOOL, [-1]),
                                                   ((3, 3, 4), I32, [0]), ((2, 3, 4, 5), F16, [1])])
def test_linalg_diagonal(shape, dtype, offsets):
    a = rand(shape, dtype, "diagonal")
    for offset in offsets:
        check(f"diagonal {offset}", lambda m, x: m.linalg.diagonal(x, offset=offset), [a], tol=0)


def test_linalg_trace():
    a = rand((3, 4), F32, "trace")
    check("trace", lambda m, x: m.linalg.trace(x, offset=0, dtype=None), [a], tol=1e-6)


# -- signatures -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["cholesky", "det", "slogdet", "eig", "eigh", "eigvals", "eigvalsh", "norm",
                                  "matrix_norm", "vector_norm", "svd", "qr", "cond", "tensorinv", "tensorsolve",
                                  "solve", "inv", "pinv", "matrix_power", "matrix_rank", "multi_dot", "lstsq", "cross",
                                  "outer", "diagonal", "trace", "vecdot", "matmul"])
def test_signature_as_jax(name):
    # (tensordot is left out: jax's has a sharding argument, out_sharding)
    mine = inspect.signature(getattr(tnp.linalg, name)).parameters
    want = inspect.signature(getattr(jnp.linalg, name)).parameters
    assert list(mine) == list(want), name
    for n, p in want.items():
        assert mine[n].kind == p.kind, (name, n)
        if n == "symmetrize_input":  # (sanctioned: tj's default False reads one triangle, as NumPy and TF)
            assert mine[n].default is False and p.default is True
            continue
        assert mine[n].default == p.default or mine[n].default is p.default, (name, n, mine[n].default, p.default)


# -- _CompileAndCheck -------------------------------------------------------------------------------------------------
def test_compiled_matches_jax():
    # one tj.function computing every function above, against jax.numpy (eager tj against it: the tests above)
    a, s = rand((4, 4), F32, "compiled"), rand((4, 8), F32, "compiled s")
    spd, w, z = s @ s.T, rand((4, 3), F32, "compiled w"), rand((3, 3), C64, "compiled z")
    t6 = rand((6, 2, 3), F32, "compiled t")
    fns = [lambda m, x, p, v, c, t: m.linalg.cholesky(p, symmetrize_input=True),
           lambda m, x, p, v, c, t: m.linalg.det(x), lambda m, x, p, v, c, t: tuple(m.linalg.slogdet(c)),
           lambda m, x, p, v, c, t: m.linalg.eigvals(x), lambda m, x, p, v, c, t: m.linalg.eigh(p).eigenvalues,
           lambda m, x, p, v, c, t: m.linalg.norm(v, 2), lambda m, x, p, v, c, t: m.linalg.matrix_norm(c, ord="nuc"),
           lambda m, x, p, v, c, t: m.linalg.vector_norm(v, ord=3, axis=0),
           lambda m, x, p, v, c, t: m.linalg.svd(v, compute_uv=False),
           lambda m, x, p, v, c, t: m.linalg.qr(v, mode="r"), lambda m, x, p, v, c, t: m.linalg.cond(x, 1),
           lambda m, x, p, v, c, t: m.linalg.tensorinv(t, ind=1),
           lambda m, x, p, v, c, t: m.linalg.tensorsolve(m.reshape(t, (2, 3, 6)), v[:2, :3]),
           lambda m, x, p, v, c, t: m.linalg.solve(x, v), lambda m, x, p, v, c, t: m.linalg.inv(c),
           lambda m, x, p, v, c, t: m.linalg.pinv(v), lambda m, x, p, v, c, t: m.linalg.matrix_power(x, -3),
           lambda m, x, p, v, c, t: m.linalg.matrix_rank(v),
           lambda m, x, p, v, c, t: m.linalg.multi_dot([x, p, v]),
           lambda m, x, p, v, c, t: tuple(m.linalg.lstsq(v, x[:, 0])),
           lambda m, x, p, v, c, t: m.linalg.cross(v[:, :3], x[:, 1:]),
           lambda m, x, p, v, c, t: m.linalg.outer(v[0], c[1]),
           lambda m, x, p, v, c, t: m.linalg.diagonal(x, offset=1),
           lambda m, x, p, v, c, t: m.linalg.trace(x, offset=-1),
           lambda m, x, p, v, c, t: m.linalg.vecdot(v, v, axis=0),
           lambda m, x, p, v, c, t: m.linalg.tensordot(x, p, axes=1),
           lambda m, x, p, v, c, t: m.linalg.matmul(c, c)]
    args = (a, spd, w, z, t6)
    compiled = tj.function(lambda *xs: [f(tnp, *xs) for f in fns])(*args)
    for k, (c, j) in enumerate(zip(compiled, jax.jit(lambda: [f(jnp, *args) for f in fns])())):  # one XLA program
        assert len(leaves(c)) == len(leaves(j)), k
        for cl, jl in zip(leaves(c), leaves(j)):
            assert isinstance(cl, tj.Tensor) and (cl.shape, cl.dtype) == (jl.shape, jl.dtype), k
            near(cl.numpy(), jl, 1e-4, str(k))
