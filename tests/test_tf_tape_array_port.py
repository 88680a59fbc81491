"""TensorFlow's tape and array-gradient tests, ported to tapejax.

Sources: tensorflow/python/eager/tape_test.py, tensorflow/python/ops/array_grad_test.py, and the gradient tests of
tensorflow/python/kernel_tests/array_ops/gather_op_test.py and array_ops_test.py (StridedSliceGradTest,
StopGradientTest, PadTest's mirror-pad gradients, ReverseV2Test's axis errors). TF ops map to tj.numpy:
tf.gather -> take (batch_dims -> take_along_axis or advanced indexing), tf.slice / strided slices -> ``x[...]``,
tf.reverse -> flip, gen_array_ops.mirror_pad_grad -> the gradient of pad(mode="reflect"/"symmetric").
Expected values are TF 2.21's, hard-coded with the TF expression that gives them; TensorFlow is not imported.
TF's gradient_checker_v2 is replaced by ``_check_gradient``: the Jacobian read row by row from
``tape.gradient`` with one-hot output gradients (as the checker does), against central differences.
float64 becomes float32 here (JAX's x64 is off, API.md).
"""
from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy


def _grads(fn, args, watched):
    xs = [tj.constant(a) for a in args]
    with tj.GradientTape() as tape:
        for i in watched:
            tape.watch(xs[i])
        y = fn(*xs)
    return y, tape.gradient(y, [xs[i] for i in watched])


# -- tape_test.py -----------------------------------------------------------------------------------------

A = np.array([[1., 0.], [0., 1.]], np.float32)
B = np.array([[1., 2.], [3., 4.]], np.float32)


@pytest.mark.parametrize("axis", [0, 1])
def test_multi_output_split(axis):
    # testMultiOutput: c = x + y; d, f = tf.split(c, 2); gradients of d + f: ones for both
    def fn(x, y):
        d, f = tnp.split(x + y, 2, axis=axis)
        return d + f
    _, (da, db) = _grads(fn, [A, B], [0, 1])
    np.testing.assert_array_equal(da.numpy(), np.ones((2, 2)))
    np.testing.assert_array_equal(db.numpy(), np.ones((2, 2)))


def test_basic_functional_with_value():
    # testBasicFunctional / testBasicFunctionalWithValue: d reduce_sum(a @ b) / da = ones @ b^T, and the value
    def forward(a, b):
        return tnp.sum(tnp.matmul(a, b))
    val, (da,) = _grads(forward, [A, B], [0])
    np.testing.assert_array_equal(da.numpy(), np.ones_like(A) @ B.T)
    assert val.numpy() == forward(A, B).numpy() == 10.0


@tj.custom_gradient
def _two_outputs(a, b):
    mm = tnp.matmul(a, b)
    r = tnp.sum(mm)

    def grad(dmm, dr):
        return [tnp.matmul(dmm, tnp.transpose(b)) + tnp.matmul(tnp.ones_like(b * dr), tnp.transpose(b)),
                tnp.matmul(tnp.transpose(a), dmm) + tnp.matmul(tnp.transpose(a), tnp.ones_like(a) * dr)]
    return [mm, r], grad


def test_custom_gradient_two_outputs():
    # testTwoOutputs: the gradients of r + reduce_sum(mm) equal tf.gradients(2 * reduce_sum(a @ b), [a, b])
    _, (da, db) = _grads(lambda x, y: (lambda mm, r: r + tnp.sum(mm))(*_two_outputs(x, y)), [A, B], [0, 1])
    np.testing.assert_array_equal(da.numpy(), 2 * np.ones((2, 2)) @ B.T)
    np.testing.assert_array_equal(db.numpy(), 2 * A.T @ np.ones((2, 2)))


def test_sparse_xent_and_identity():
    # testGcTwoOutputs: sparse_softmax_cross_entropy_with_logits(logits=[[0.]], labels=[0])[0] -> [[0.]];
    # testTfTensor: the gradient of the identity function is 1.0
    _, (g,) = _grads(lambda x, y: tj.nn.sparse_softmax_cross_entropy_with_logits(y, x)[0], [[[0.0]], [0]], [0])
    np.testing.assert_array_equal(g.numpy(), [[0.0]])
    _, (g,) = _grads(lambda x: x, [1.0], [0])
    assert g.numpy() == 1.0


# -- array_grad_test.py (gradient_checker_v2.compute_gradient, max error < 1e-4) ---------------------------

def _check_gradient(f, x, delta=0.5):
    """TF's gradient checker: the Jacobian from tape.gradient with one-hot output gradients (and from
    tape.jacobian) against central differences (exact for these linear ops up to float32 rounding, so a large
    delta keeps that rounding small)."""
    x = np.asarray(x, np.float32)
    xt = tj.constant(x)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(xt)
        y = f(xt)
    ny, nx = int(np.prod(y.shape)), x.size
    theoretical = np.zeros((ny, nx))
    for i in range(ny):
        dy = np.zeros(ny, np.float32)
        dy[i] = 1
        g = tape.gradient(y, xt, output_gradients=dy.reshape(y.shape))
        assert g.shape == x.shape
        theoretical[i] = g.numpy().reshape(-1)
    numerical = np.zeros((ny, nx))
    for j in range(nx):
        step = np.zeros(nx, np.float32)
        step[j] = delta
        hi, lo = (f(tj.constant((x.reshape(-1) + s * step).reshape(x.shape))).numpy() for s in (1, -1))
        numerical[:, j] = (hi.astype(np.float64) - lo).reshape(-1) / (2 * delta)
    np.testing.assert_allclose(theoretical, numerical, atol=1e-4)
    jac = tape.jacobian(y, xt)
    np.testing.assert_allclose(np.asarray(jac.numpy()).reshape(ny, nx), theoretical, atol=1e-6)


X5 = [1., 2., 3., 4., 5.]
X22 = [[1., 2.], [3., 4.]]
ARRAY_GRAD_CASES = {
    # test_gather_v2_simple / _more_index_dims / _more_param_dims / _axis: tf.gather_v2(x, indices, axis)
    "gather_v2_simple": (lambda x: tnp.take(x, tj.constant([2, 0, 2, 4], dtype=tj.int32)), X5),
    "gather_v2_more_index_dims": (lambda x: tnp.take(x, tj.constant([[2, 0], [2, 4]]), axis=0), X5),
    "gather_v2_more_param_dims": (lambda x: tnp.take(x, tj.constant([1, 0]), axis=0), X22),
    "gather_v2_axis": (lambda x: tnp.take(x, tj.constant([1, 0]), axis=1), X22),
    # test_gather_v2_batch_dims / _2batch_dims: gather_v2(..., axis=k, batch_dims=k) is take_along_axis
    "gather_v2_batch_dims": (lambda x: tnp.take_along_axis(x, tj.constant([[1, 0], [0, 0]]), axis=1), X22),
    "gather_v2_2batch_dims": (lambda x: tnp.take_along_axis(x, tj.constant([[[1, 0], [0, 0]]]), axis=2),
                              [[[1., 2.], [3., 4.]]]),
    # test_gather_v2_batch_dims_with_axis: gather_v2(x, [[0], [0]], axis=2, batch_dims=1), as x[i, j, idx[i, k]]
    "gather_v2_batch_dims_with_axis": (
        lambda x: x[np.arange(2)[:, None, None], np.arange(1)[None, :, None], np.array([[0], [0]])[:, None, :]],
        [[[1., 2.]], [[3., 4.]]]),
    # test_broadcast_to / _int64: the shape given as an int32 / int64 tensor
    "broadcast_to": (lambda x: tnp.broadcast_to(x, tj.constant([2, 3], dtype=tj.int32)), [1., 2., 3.]),
    "broadcast_to_int64": (lambda x: tnp.broadcast_to(x, tj.constant([2, 3], dtype=tj.int64)), [1., 2., 3.]),
    # test_slice_int64: array_ops.slice(x, begin=[1], size=[1]) with int64 begin and size
    "slice_int64": (lambda x: x[tj.constant(1, dtype=tj.int64):tj.constant(1, dtype=tj.int64) + 1], [1., 2., 3.]),
    # test_reshape_simple (int64 shape tensor), _one_unknown_dim, _two_unknown_dims, _and_zero_elements
    "reshape_simple": (lambda x: tnp.reshape(x, tj.constant([3, 1], dtype=tj.int64)), [1., 2., 3.]),
    "reshape_one_unknown_dim": (lambda x: tnp.reshape(x, [3, 2]), [[1., 2.], [3., 4.], [5., 6.]]),
    "reshape_two_unknown_dims": (lambda x: tnp.reshape(x, [6]), [[1., 2., 3.], [4., 5., 6.]]),
    "reshape_zero_elements": (lambda x: tnp.reshape(x, [0]), np.zeros((3, 0), np.float32)),
    # test_matrix_diag_v2_grad_ignores_diagonal_padding: matrix_diag_v2 of [[x*x, 7x], [x, 2x]], k=(0, 1),
    # padding -1 (the superdiagonal is right-aligned: x*x is padding) = [[x, 7x], [-1, 2x]]; gradient 10
    "matrix_diag_v2_padding": (
        lambda x: tnp.sum(tnp.diag(tnp.stack([x, 2. * x])) + tnp.diag(tnp.stack([x * x, 7. * x])[1:], k=1)
                          + tnp.array([[0., 0.], [-1., 0.]])), 0.7),
}


@pytest.mark.parametrize("name", sorted(ARRAY_GRAD_CASES))
def test_array_grad(name):
    f, x = ARRAY_GRAD_CASES[name]
    _check_gradient(f, x)


def test_gather_v2_zero_batch_size_grad_has_matching_shape():
    # test_gather_v2_zero_bsize_grad_has_matching_shapes: gather_v2(zeros([0, 1, 8, 16]), zeros([0, 1, 3]),
    # axis=2, batch_dims=2): the gradient has the params' shape
    params = tnp.zeros((0, 1, 8, 16))
    with tj.GradientTape() as tape:
        tape.watch(params)
        y = tnp.take_along_axis(params, tnp.zeros((0, 1, 3, 1), dtype=tj.int32), axis=2)
    assert tape.gradient(y, params).shape == (0, 1, 8, 16)


# -- gather_op_test.py ---------------------------------------------------------------------------------------

GATHER_TYPES = [np.int32, ml_dtypes.bfloat16, np.float32, np.complex64, ml_dtypes.float8_e5m2]  # TF's, x64 off


def _params(shape, dtype, rng):
    data = rng.standard_normal(shape).astype(dtype)
    return data + 10j * data if np.dtype(dtype).kind == "c" else data


def _gather_case(indices_shape, dtype, axis, rng):
    shape = (2, 1, 3, 2)
    params = _params(shape, dtype, rng)
    indices = rng.integers(shape[axis], size=indices_shape)
    out_grad = rng.standard_normal(shape[:axis] + indices.shape + shape[axis + 1:]).astype(dtype)
    if np.dtype(dtype).kind == "c":
        out_grad -= 1j * out_grad
    want = np.zeros(shape, dtype)  # the scatter-add TF's test builds
    flat = out_grad.reshape(shape[:axis] + (indices.size,) + shape[axis + 1:])
    for src, dst in enumerate(indices.flat):
        want[(slice(None),) * axis + (dst,)] += flat[(slice(None),) * axis + (src,)]
    return params, indices, out_grad, want


def _check_gather(dtype, params, indices, axis, out, out_neg, pg, ig, ag, want):
    expected = np.take(params, indices, axis)
    np.testing.assert_array_equal(out.numpy(), expected)
    np.testing.assert_array_equal(out_neg.numpy(), expected)
    assert ig is None and ag is None
    if np.dtype(dtype).kind == "i" or np.dtype(dtype).itemsize == 1:
        # TF: params_grad is None for integer and float8 params (not trainable dtypes)
        assert pg is None
        return
    assert pg.dtype == np.dtype(dtype)
    tol = 1e-2 if dtype == ml_dtypes.bfloat16 else 2e-6
    np.testing.assert_allclose(pg.numpy().astype(np.complex128), want.astype(np.complex128), atol=tol, rtol=tol)


@pytest.mark.parametrize("indices_shape", [(), (0,), (2, 0), (2, 3)])
def test_gather_higher_rank_gradient_tape(indices_shape):
    # testHigherRankGradientTape: tf.gather(params, indices, axis=tf.constant(axis)) (and the negative axis), all
    # three watched; gradients: the scatter-add of the output gradient for params, None for indices and axis
    rng = np.random.default_rng(0)
    for dtype in GATHER_TYPES:
        for axis in range(4):
            params, indices, out_grad, want = _gather_case(indices_shape, dtype, axis, rng)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # watching int (and float8) tensors warns, as TF logs
                with tj.GradientTape() as tape:
                    p, i, a = tj.constant(params), tj.constant(indices), tj.constant(axis)
                    tape.watch(p)
                    tape.watch(i)
                    tape.watch(a)
                    out = tnp.take(p, i, axis=a)
                    out_neg = tnp.take(p, i, axis=tj.constant(axis - 4))
                pg, ig, ag = tape.gradient(out, [p, i, a], output_gradients=out_grad)
            _check_gather(dtype, params, indices, axis, out, out_neg, pg, ig, ag, want)


@pytest.mark.parametrize("indices_shape", [(), (2, 3)])
def test_gather_higher_rank_graph(indices_shape):
    # testHigherRank (graph mode): the axis is a tf.constant made in the graph, gradients by tf.gradients;
    # a tj.constant made inside tj.function is concrete (TF folds graph constants), so it works as an axis
    rng = np.random.default_rng(1)
    for dtype in (np.float32, np.complex64, np.int32):
        for axis in range(4):
            params, indices, out_grad, want = _gather_case(indices_shape, dtype, axis, rng)

            @tj.function
            def run(p, i, out_grad):
                a = tj.constant(axis)
                out = tnp.take(p, i, axis=a)
                out_neg = tnp.take(p, i, axis=tj.constant(axis - 4))
                return (out, out_neg) + tuple(tj.gradients(out, [p, i, a], grad_ys=out_grad))

            _check_gather(dtype, params, indices, axis, *run(tj.constant(params), tj.constant(indices),
                                                             tj.constant(out_grad)), want)


def test_constant_inside_function_is_a_static_argument():
    # tf.reshape(x, tf.constant([3, 1])), tf.reverse(x, tf.constant([0])), tf.transpose(x, tf.constant([1, 0]))...
    # inside tf.function: graph constants serve as shapes, axes and permutations, and so do tj.constants
    @tj.function
    def f(x):
        m = tnp.reshape(x, tj.constant([3, 1]))
        with tj.GradientTape() as tape:
            tape.watch(m)
            t = tnp.transpose(m, tj.constant([1, 0]))
            y = tnp.sum(tnp.pad(tnp.tile(t, tj.constant([2, 1])), tj.constant([[0, 1], [1, 0]])) ** 2, tj.constant(0))
        return m, tnp.flip(x, tj.constant([0])), tnp.sum(x, tj.constant(0)), tape.gradient(y, m)

    r, v, s, g = f(tj.constant([1., 2., 3.]))
    assert r.shape == (3, 1)
    np.testing.assert_array_equal(v.numpy(), [3., 2., 1.])
    assert s.numpy() == 6.0
    np.testing.assert_array_equal(g.numpy(), [[4.], [8.], [12.]])  # d/dm of sum(2 m^2)


def test_float8_gradient_is_none_as_tf():
    # TF: float8_e5m2 / float8_e4m3fn are not trainable: tape.watch logs a warning, the gradient is None
    # (tf.gather and tf.identity alike); bfloat16 and float16 are
    for dtype in (ml_dtypes.float8_e5m2, ml_dtypes.float8_e4m3fn):
        x = tj.constant(np.ones((2, 3), dtype))
        with pytest.warns(UserWarning):
            with tj.GradientTape() as tape:
                tape.watch(x)
                y = tnp.take(x, [0, 1, 0], axis=0)
        assert tape.gradient(y, x) is None
    # tf.Variable(np.ones(2, float8_e5m2)) is watched but gets None; tf.cast(tf.cast(x, float8_e5m2), float32)
    # cuts the gradient (CastGrad: float8 is not a differentiable type)
    v = tj.Variable(np.ones(2, ml_dtypes.float8_e5m2))
    x = tj.constant([1., 2.])
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.astype(v, np.float32) * 2. + tnp.astype(tnp.astype(x, ml_dtypes.float8_e5m2), np.float32)
    assert tape.gradient(y, [v, x]) == [None, None]
    for dtype in (ml_dtypes.bfloat16, np.float16):
        x = tj.constant(np.ones(2, dtype))
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = tj.identity(x)
        np.testing.assert_array_equal(tape.gradient(y, x).numpy().astype(np.float32), [1., 1.])


def test_gather_bad_indices():
    # testBadIndicesType: tf.gather([0], 0.) raises TypeError; testBadIndicesCPU: indices[0,0] = 7 out of range
    with pytest.raises(TypeError):
        tnp.take(tj.constant([0]), 0.)
    params = tj.constant([[0, 1, 2], [3, 4, 5]])
    for axis in (0, 1):
        with pytest.raises(IndexError, match="index 7 is out of bounds"):
            tnp.take(params, [[7]], axis=axis)


@pytest.mark.parametrize("bad_axis", [1, 2, -2, -(2 ** 63), 2 ** 63 - 1])
def test_gather_bad_axis_raises_value_error(bad_axis):
    # testBadAxis / testAxisExtremeBounds: an axis out of range raises ValueError (or InvalidArgumentError) in
    # TF, eagerly and in tf.function; tapejax raises NumPy's AxisError, a ValueError and an IndexError
    g = tj.function(lambda x, i, axis: tnp.take(x, i, axis=axis))
    for fn in (tnp.take, g):
        with pytest.raises(ValueError, match="out of range"):
            fn(tj.constant([0., 1., 2.]), 0, axis=bad_axis)
        with pytest.raises(IndexError):
            fn(tj.constant([0., 1., 2.]), 0, axis=bad_axis)


def test_gather_variable_gradient():
    # testGatherResourceVariable, and the gradient of a gather of a Variable (repeated indices add up)
    v = tj.Variable([[1., 2.], [3., 4.], [5., 6.]])
    np.testing.assert_array_equal(tnp.take(v, [0, 2], axis=0).numpy(), [[1, 2], [5, 6]])
    with tj.GradientTape() as tape:
        y = tnp.take(v, [0, 2, 0], axis=0)
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [[2, 2], [0, 0], [1, 1]])


# -- array_ops_test.py ---------------------------------------------------------------------------------------

def _grad_slice_check(var, varnp, spec):
    """GradSliceChecker: the gradient of (var * var)[spec] with output gradient dy = var[spec] (a Variable), and
    its gradient with respect to dy taken on the same persistent tape (recorded while it was active)."""
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(var)
        val = var * var
        slice_var = var[spec]
        slice_val = val[spec]
        analytic_grad2 = 2 * slice_val
        dy = tj.Variable(tnp.ones_like(slice_var, dtype=tj.float32))
        dy.assign(slice_var)
        slice_val_grad = tape.gradient(slice_val, var, [dy])
        slice_val_grad2 = tape.gradient(slice_val_grad, dy, [var])
    np.testing.assert_array_equal(slice_val_grad2.numpy(), analytic_grad2.numpy())
    want = np.zeros(var.shape)
    np_spec = spec.numpy() if isinstance(spec, tj.Tensor) else spec
    want[np_spec] = (2 * varnp * varnp)[np_spec]
    np.testing.assert_array_equal(slice_val_grad.numpy(), want)


def test_strided_slice_gradient():
    # StridedSliceGradTest.testGradient
    var = tj.Variable(tnp.reshape(tnp.arange(1, 97, 1, dtype=tj.float32), (6, 4, 4)))
    raw = np.arange(1, 97).reshape((6, 4, 4))
    for spec in [(slice(2, 6, 2), slice(1, 3), slice(1, 3)), (slice(3, 0, -2), slice(1, 3), slice(1, 3)),
                 (slice(3, 0, -2), None, slice(1, 3), 2, None), (slice(3, 0, -2), slice(1, 3), 2),
                 (slice(None), -1, slice(None)), (slice(None), -2, slice(None)),
                 raw > 51, tj.convert_to_tensor(raw) <= 76]:
        _grad_slice_check(var, raw, spec)
    for bad in (-200, 200):  # TF: (ValueError, InvalidArgumentError) "out of bounds"; API.md: IndexError
        with pytest.raises(IndexError, match="out of bounds"):
            _grad_slice_check(var, raw, (slice(None), bad, slice(None)))


@pytest.mark.parametrize("spec", [(slice(2, 6, 2), slice(1, 3), slice(1, 3)),
                                  (slice(3, 0, -2), None, slice(1, 3), 2, None), "mask"])
def test_strided_slice_gradient_graph(spec):
    # StridedSliceGradTest.testGradient in graph mode (use_tape=False): tf.gradients(slice_val, var, [dy]) and
    # tf.gradients(that, dy, [var]), dy a Variable made in the graph (here on the first call)
    var = tj.Variable(tnp.reshape(tnp.arange(1, 97, 1, dtype=tj.float32), (6, 4, 4)))
    raw = np.arange(1, 97).reshape((6, 4, 4))
    spec = raw > 51 if isinstance(spec, str) else spec
    made = []

    @tj.function
    def run():
        val = var * var
        slice_var = var[spec]
        if not made:
            made.append(tj.Variable(tnp.ones_like(slice_var, dtype=tj.float32)))
        dy = made[0]
        dy.assign(slice_var)
        grad = tj.gradients(val[spec], var, [dy])[0]
        return grad, tj.gradients(grad, dy, [var])[0], 2 * val[spec]

    grad, grad2, analytic_grad2 = run()
    np.testing.assert_array_equal(grad2.numpy(), analytic_grad2.numpy())
    want = np.zeros(var.shape)
    want[spec] = (2 * raw * raw)[spec]
    np.testing.assert_array_equal(grad.numpy(), want)


def test_strided_slice_gradient_zero_and_int64_index():
    # StridedSliceGradTest.testGradientZero (a scalar Variable, empty spec) and testInt64Indices
    _grad_slice_check(tj.Variable(8.0), np.array(8), ())
    with tj.GradientTape() as tape:
        a = tnp.arange(3, dtype=tj.float32)
        tape.watch(a)
        b = 2.0 * a[tj.constant(1, dtype=tj.int64)]
    np.testing.assert_array_equal(tape.gradient(b, a).numpy(), [0.0, 2.0, 0.0])


def test_stop_gradient_gradient_tape():
    # StopGradientTest.testStopGradientGradientTape: x unwatched -> None (and None when watched, too)
    x = tnp.zeros(3)
    with tj.GradientTape() as tape:
        y = tj.stop_gradient(x)
    assert tape.gradient(y, x) is None
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tj.stop_gradient(x)
    assert tape.gradient(y, x) is None


@pytest.mark.parametrize("mode, x_shape, paddings, dy, want", [
    # PadTest.testSymmetricMirrorPadGrad: mirror_pad_grad(broadcast_to(arange(7), (3, 2, 1, 7)),
    # [[1, 1], [0, 0], [0, 0], [2, 2]], "SYMMETRIC") = broadcast_to([9, 27, 27], (1, 2, 1, 3))
    ("symmetric", (1, 2, 1, 3), [[1, 1], [0, 0], [0, 0], [2, 2]],
     np.broadcast_to(np.arange(0, 7), (3, 2, 1, 7)), np.broadcast_to(np.array([9, 27, 27]), (1, 2, 1, 3))),
    # PadTest.testReflectMirrorPadGrad: ... [[0, 0], [1, 1], [2, 2], [0, 0]], "REFLECT" = [16, 18, 8] per column
    ("reflect", (1, 2, 3, 1), [[0, 0], [1, 1], [2, 2], [0, 0]],
     np.broadcast_to(np.reshape(np.arange(0, 7), (7, 1)), (1, 4, 7, 1)),
     np.broadcast_to(np.reshape(np.array([16, 18, 8]), (3, 1)), (1, 2, 3, 1))),
])
def test_mirror_pad_gradient(mode, x_shape, paddings, dy, want):
    x = tj.constant(np.zeros(x_shape, np.float32))
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.pad(x, paddings, mode=mode)
    np.testing.assert_array_equal(tape.gradient(y, x, output_gradients=dy.astype(np.float32)).numpy(), want)


def test_reverse_invalid_axis():
    # ReverseV2Test.testInvalidAxis: reverse_v2(x, [-30]) and [2] raise ValueError "is out of range" and
    # [0, -2] "axis 0 specified more than once" (ValueError); jax.numpy raised TypeError for the repeat
    x = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    for axis in ([-30], [2]):
        with pytest.raises(ValueError, match="out of range"):
            tnp.flip(x, axis)
    with pytest.raises(ValueError, match="more than once"):
        tnp.flip(x, [0, -2])
    np.testing.assert_array_equal(tnp.flip(x, [1, 0]).numpy(), x[::-1, ::-1])


def _batch_gather(params, indices, axis, batch_dims):
    """tf.gather(params, indices, axis=axis, batch_dims=batch_dims) by advanced indexing: the batch axes index
    themselves (aranges), the gathered axis takes ``indices`` minus its batch axes."""
    indices = np.asarray(indices)
    nb = batch_dims % indices.ndim if batch_dims is not None and batch_dims < 0 else (batch_dims or 0)
    axis = nb if axis is None else axis
    if nb == 0:
        return tnp.take(params, indices, axis=axis)
    rest = indices.ndim - nb  # the index axes past the batch ones
    nd = nb + (axis - nb) + rest  # batch axes, then params' axes before `axis`, then the index axes
    parts = []
    for b in range(nb):
        shape = [1] * nd
        shape[b] = params.shape[b]
        parts.append(np.arange(params.shape[b]).reshape(shape))
    for k in range(nb, axis):
        shape = [1] * nd
        shape[k] = params.shape[k]
        parts.append(np.arange(params.shape[k]).reshape(shape))
    parts.append(indices.reshape(indices.shape[:nb] + (1,) * (axis - nb) + indices.shape[nb:]))
    return params[tuple(parts)]


BATCH_DIMS_CASES = [
    # gather_op_test.testBatchDims parameters: (batch_dims, params, indices, expected, axis)
    (0, [6, 7, 8, 9], [[2, 1], [0, 3]], [[8, 7], [6, 9]], None),
    (0, [6, 7, 8, 9], [[[3, 1], [2, 0]], [[0, 3], [2, 2]]], [[[9, 7], [8, 6]], [[6, 9], [8, 8]]], None),
    (1, [[10, 11, 12, 13], [20, 21, 22, 23]], [[2, 1], [0, 3]], [[12, 11], [20, 23]], None),
    (2, [[[100, 101], [110, 111]], [[200, 201], [210, 211]]], [[[0, 1], [1, 0]], [[0, 0], [1, 1]]],
     [[[100, 101], [111, 110]], [[200, 200], [211, 211]]], None),
    (-1, [[10, 11, 12, 13], [20, 21, 22, 23]], [[2, 1], [0, 3]], [[12, 11], [20, 23]], None),
    (1, [[10, 11, 12, 13], [20, 21, 22, 23]], [2, 1], [12, 21], None),
    (2, [[[100, 101, 102, 103], [110, 111, 112, 113]], [[200, 201, 202, 203], [210, 211, 212, 213]]],
     [[2, 1], [0, 3]], [[102, 111], [200, 213]], None),
    (1, [[10, 11, 12, 13], [20, 21, 22, 23]], [[[3, 1], [2, 0]], [[0, 3], [2, 2]]],
     [[[13, 11], [12, 10]], [[20, 23], [22, 22]]], None),
    (2, [[[2, 3], [4, 5]], [[6, 7], [8, 9]]], [[[[0, 1], [1, 0]], [[0, 0], [1, 1]]], [[[1, 1], [0, 0]], [[0, 1], [1, 0]]]],
     [[[[2, 3], [3, 2]], [[4, 4], [5, 5]]], [[[7, 7], [6, 6]], [[8, 9], [9, 8]]]], None),
    (1, [[[10, 11, 12], [13, 14, 15]], [[20, 21, 22], [23, 24, 25]]], [[[0, 1, 2, 1, 0]], [[0, 1, 2, 1, 0]]],
     [[[[10, 11, 12, 11, 10]], [[13, 14, 15, 14, 13]]], [[[20, 21, 22, 21, 20]], [[23, 24, 25, 24, 23]]]], 2),
    (None, [[10, 11, 12], [13, 14, 15]], [1, 0], [[11, 10], [14, 13]], 1),
    (-3, [[0, 1, 2], [3, 4, 5]], [[[0, 1], [1, 0]]], [[[[0, 1], [1, 0]]], [[[3, 4], [4, 3]]]], 1),
]


@pytest.mark.parametrize("batch_dims, params, indices, expected, axis", BATCH_DIMS_CASES)
def test_gather_batch_dims(batch_dims, params, indices, expected, axis):
    # testBatchDims: the values, gradient_checker_v2 on float64 params, and the gradient's shape (params')
    params = np.asarray(params, np.float32)
    np.testing.assert_array_equal(_batch_gather(tj.constant(params), indices, axis, batch_dims).numpy(), expected)
    _check_gradient(lambda p: _batch_gather(p, indices, axis, batch_dims), params)
    zeros = tnp.zeros_like(params)
    with tj.GradientTape() as tape:
        tape.watch(zeros)
        result = _batch_gather(zeros * 2 + zeros, indices, axis, batch_dims)
    assert tape.gradient(result, zeros).shape == params.shape


def test_boolean_mask_shape_mismatch_names_the_mask():
    # BooleanMaskTest.testMaskShapeDifferentThanFirstPartOfTensorShapeRaises: boolean_mask([[1, 2], [3, 4]],
    # [True, True, True]) raises "incompatible" (ValueError); tapejax raises IndexError, as NumPy, naming the
    # mask's size (it said "index 2 is out of bounds", the mask's nonzero position), and masks that fit work
    x = tj.constant([[1., 2.], [3., 4.]])
    with pytest.raises(IndexError, match="boolean mask of size 3 along axis 0 does not match the tensor's size 2"):
        x[np.array([True, True, True])]
    with pytest.raises(IndexError, match="boolean mask of size 3 along axis 1"):
        x[:, tj.constant([True, False, True])]
    with pytest.raises(IndexError, match="too many indices"):  # testMaskHasMoreDimsThanTensorRaises
        tj.constant([1, 2, 3, 4])[np.array([[True, True], [False, False]])]
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = x[:, np.array([False, True])]
    np.testing.assert_array_equal(tape.gradient(y, x, output_gradients=[[5.], [7.]]).numpy(), [[0., 5.], [0., 7.]])


@pytest.mark.parametrize("array, repeats, axis", [
    (3, 4, None), ([[1, 2], [3, 4]], 2, None), ([[1, 2], [3, 4]], [1, 2], 0), ([[1, 2], [3, 4]], [1, 2], 1),
    ([[1, 2], [3, 4]], 3, 1), ([[1, 2], [3, 4]], [1, 2, 3, 4], None), (np.ones([0, 4]), 0, 1), (np.ones([1, 2]), [2], None),
])
def test_repeat(array, repeats, axis):
    # RepeatTest.testRepeat: tf.repeat(array, repeats, axis) == np.repeat (per-element repeats raised TypeError:
    # jnp.repeat refuses the tuple a list is frozen to); also inside tj.function with repeats a tj.constant, and the
    # gradient (the sum over each element's copies)
    a = np.array(array)
    np.testing.assert_array_equal(tnp.repeat(tj.constant(a), repeats, axis).numpy(), np.repeat(a, repeats, axis))
    f = tj.function(lambda x: tnp.repeat(x, tj.constant(repeats), axis))
    np.testing.assert_array_equal(f(tj.constant(a.astype(np.int32))).numpy(), np.repeat(a, repeats, axis))
    x = tj.constant(a.astype(np.float32))
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.repeat(x, repeats, axis)
    dy = np.arange(y.size, dtype=np.float32).reshape(y.shape)
    want = np.zeros(a.size if axis is None else a.shape[axis])
    owner = np.repeat(np.arange(want.size), np.broadcast_to(repeats, want.shape))
    flat = dy if axis is None else np.moveaxis(dy, axis, 0)
    for k, i in enumerate(owner):
        want[i] += flat[k].sum() if axis is not None else flat[k]
    got = tape.gradient(y, x, output_gradients=dy).numpy()
    if axis is None:
        np.testing.assert_array_equal(got.reshape(-1), want)
    else:
        np.testing.assert_array_equal(np.moveaxis(got, axis, 0).reshape(want.size, -1).sum(1), want)
