"""TensorFlow's cast, gather_nd, scatter_nd and dense-update kernel tests not ported before, ported to tapejax.

Sources (tensorflow/python/kernel_tests/):
- array_ops/cast_op_test.py: CastOpTest.testBasic, testSmallValues, testRandom, testBfloat16, testFloat8,
  testIntToFloatBoundary, testInfNan, testCastToTypeOfVariable, testGradients (tf.cast -> ``tj.numpy.astype`` /
  ``Tensor.astype``).
- array_ops/gather_nd_op_test.py: GatherNdTest.testEmptyIndicesLastRankMeansCopyEntireTensor, testHigherRankParams,
  testHigherRankParamsAndIndices, testGatherNdResourceVariable (``Variable.gather_nd``, and indexing
  ``params[tuple(moveaxis(indices, -1, 0))]`` where that is the same gather). The other GatherNdTest methods are
  ported in test_tf_array_ops_port.py.
- array_ops/scatter_nd_ops_test.py: StatefulScatterNdTest (``Variable.scatter_nd_update/add/sub/min/max``; TF's
  ``scatter_min/max/add/sub`` with 1-d indices ``i`` are ``scatter_nd_*`` with ``i[:, None]``), its determinism
  subclass; ScatterNdTest / ScatterNdNonAliasingAddTest (``tf.scatter_nd(indices, updates, shape)`` ->
  ``zeros(shape).at[idx].add(updates)``, ``scatter_nd_non_aliasing_add(input, ...)`` -> ``input.at[idx].add``, and
  TF's shape checks on ``Variable.scatter_nd_*``, which keeps TF's indices layout); ScatterNdTensorTest
  (``tensor_scatter_nd_update/add/sub/min/max`` -> ``t.at[idx].set/add/subtract/min/max``), where ``idx`` is
  ``tuple(moveaxis(indices, -1, 0))`` (``tuple(indices.T)`` for 2-d indices).
- variables/dense_update_ops_test.py: AssignOpTest.testBasic (``assign``, ``assign_add``, ``assign_sub``).

Expected values are TF 2.21's (the same programs run in TF), hard-coded; where TF's test asserts an identity with
NumPy (``cast(x) == x.astype``, ``gather_nd(p, i) == p[tuple(i.T)]``, the NumPy scatter reference
``_NumpyScatterNd``) the identity is kept, on inputs for which TF 2.21 was checked to satisfy it. TensorFlow is
not imported. float64/int64/complex128 cases run under ``jax.enable_x64(True)`` inside their test only; random
inputs are smaller than TF's to keep the file fast.

Differences that API.md or tapejax's documented jax.numpy semantics sanction (asserted as tapejax's, or only
listed here):
- Out-of-range indices of ``Variable.scatter_nd_*`` raise IndexError (API.md: out of bounds is IndexError; TF:
  InvalidArgumentError), and the variable is unchanged (API.md: a failed assignment leaves the Variable as it was).
  TF 2.21's scatter_nd_add/sub apply the in-range updates before raising (testScatterOutOfRangeCpu, not asserted).
- ``x.at[idx]`` updates follow jax.Array's ``.at`` (tapejax's docs, ops/numpy.py): an update out of bounds is
  dropped, not an error (TF's tensor_scatter_* / scatter_nd raise: testEmptyOutputShape1, ported on
  ``Variable.scatter_nd_add`` instead, where it is IndexError); values broadcast to ``x[idx]`` as NumPy's (so
  testRank3InvalidShape2's updates of shape (2, 2) broadcast; ported on ``Variable.scatter_nd_update``, whose shape
  check is TF's); ``.at[idx].add`` on bool raises TypeError, as jax (testBool ported with ``.at[idx].set``, the
  same result for its values); a repeated index in ``.at[idx].set`` gets the last value on CPU, as TF's CPU kernel
  (TF skips testUpdateRepeatedIndices* on GPU; so does this file on non-CPU backends).
- Float to int casts of NaN, +-inf and values beyond the integer range are XLA's (jax.numpy's): saturating, NaN ->
  0. TF 2.21's CPU kernel gives C++'s undefined static_cast result (INT_MIN for all of NaN, inf, -inf, 3e9 to
  int32; 300.0 -> 44 for uint8); TF's own test does not assert these ("they behave differently on CPU and GPU").
- Complex to real casts keep the real part, as TF; jax warns (DeprecationWarning, "will soon raise"), silenced here.

Left out, by reason:
- string dtype: CastOpTest.testNotImplemented; StatefulScatterNdTest.testString; ScatterNdTest.testString;
  ScatterNdTensorTest.testTensorScatterUpdateWithStrings; ScatterNdNonAliasingAddTest.testString and
  testStringWithEagerOpAsFunctionEnabled (empty in TF).
- TF1 graphs, placeholders, ref variables/dtypes, graph op names: CastOpTest.testRefDtype; GatherNdTest.
  testUnknownIndices, testGatherNdRefVariable (run_v1_only; the ResourceVariable twin is ported);
  ScatterNdTest.testUndefinedIndicesShape, testUndefinedUpdatesShape, testUndefinedOutputShape,
  testEmptyOutputShape2.
- No tapejax counterpart: SparseTensorCastTest.testCast (SparseTensor); SaturateCastTest.testSaturate,
  testSaturateRealToComplex, testSaturateComplexToReal, testSaturateAvoidsUndefinedBehavior,
  testSaturateComplexToComplex, testSaturateHandlesInfs (tf.saturate_cast).
- GPU-only or disabled: GatherNdTest._disabledTestBadIndicesGPU, _disabledTestBadIndicesWithSlicesGPU;
  StatefulScatterNdTest._disabledTestScatterOutOfRangeGpu; GatherNdOpBenchmark (a benchmark).
- ScatterNdTest.testInvalidShape's mapping: ``tf.scatter_nd(indices=[0], updates=[0.0], shape=[1])`` is ported as
  ``zeros(1).at[0].add([0.0])`` (ValueError: (1,) does not broadcast to ()); ``Variable.scatter_nd_add([0],
  [0.0])`` is accepted by TF 2.21 itself, so that form is not a port.
"""
import warnings

import jax
import ml_dtypes
import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy


def _idx(indices):
    """TF's ``indices`` (index tuples on the last axis) as a NumPy/jax index: ``tuple(indices.T)`` for 2-d."""
    return tuple(np.moveaxis(np.asarray(indices), -1, 0))


def _at(x, indices):
    return x.at[_idx(indices)]


def _scatter_nd(indices, updates, shape):
    """``tf.scatter_nd``: updates summed into zeros of ``shape``."""
    updates = tj.convert_to_tensor(updates)
    return _at(tnp.zeros(shape, updates.dtype), indices).add(updates)


def _astype(x, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # jax: complex -> real "will soon raise"
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        return tnp.astype(tj.constant(x), dtype)


def _np_astype(x, dtype):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        return x.astype(dtype)


# == cast_op_test.py ==========================================================================================

_SMALL = np.array([0, -1, 1, -np.finfo(np.float32).resolution, np.finfo(np.float32).resolution,
                   np.finfo(np.float64).resolution, -np.finfo(np.float64).resolution])


def _check_casts(x, types):
    # CastOpTest._testTypes: cast(x.astype(from), to) == x.astype(from).astype(to) (TF 2.21 checked on these inputs)
    for src in types:
        for dst in types:
            got = _astype(x.astype(src), dst)
            assert got.dtype == dst
            np.testing.assert_array_equal(got.numpy(), _np_astype(x.astype(src), dst))
    np.testing.assert_array_equal(_astype(x.astype(np.bool_), np.float32).numpy(), x.astype(np.bool_).astype(np.float32))
    np.testing.assert_array_equal(_astype(x.astype(np.uint8), np.float32).numpy(),
                                  _np_astype(_np_astype(x, np.uint8), np.float32))
    np.testing.assert_array_equal(_astype(x.astype(np.bool_), np.int32).numpy(), x.astype(np.bool_).astype(np.int32))
    np.testing.assert_array_equal(_astype(x.astype(np.int32), np.int32).numpy(), x.astype(np.int32))


def test_cast_basic_small_values_and_random():
    # CastOpTest.testBasic / testSmallValues / testRandom (_testAll over float32, int32, complex64; the 64-bit
    # types under x64 below)
    rs = np.random.RandomState(0)
    inputs = [np.arange(-10, 10).reshape(2, 10), np.linspace(-10, 10, 17), _SMALL,
              rs.normal(0, 10, 30).reshape([2, 3, 5]), rs.normal(0, 1e6, 30).reshape([2, 3, 5])]
    for x in inputs:
        _check_casts(x, (np.float32, np.int32, np.complex64))
    # TF 2.21: tf.cast(tf.constant(np.linspace(-10, 10, 17), tf.float32), tf.int32) (truncation toward 0), the same
    # from complex64; tf.cast(x.astype(np.uint8), tf.float32); tf.cast(x.astype(bool), tf.float32)
    lin = np.linspace(-10, 10, 17)
    trunc = [-10, -8, -7, -6, -5, -3, -2, -1, 0, 1, 2, 3, 5, 6, 7, 8, 10]
    assert tj.constant(lin.astype(np.float32)).astype(tj.int32).numpy().tolist() == trunc
    assert _astype(lin.astype(np.complex64), np.int32).numpy().tolist() == trunc
    assert _astype(lin.astype(np.uint8), np.float32).numpy().tolist() == [
        246.0, 248.0, 249.0, 250.0, 251.0, 253.0, 254.0, 255.0, 0.0, 1.0, 2.0, 3.0, 5.0, 6.0, 7.0, 8.0, 10.0]
    assert _astype(lin.astype(bool), np.float32).numpy().tolist() == [1.0] * 8 + [0.0] + [1.0] * 8
    # TF 2.21: tf.cast(tf.constant([1+2j, -3.5-1j], tf.complex64), tf.float32) keeps the real part
    assert _astype(np.array([1 + 2j, -3.5 - 1j], np.complex64), np.float32).numpy().tolist() == [1.0, -3.5]


def test_cast_64_bit_types():
    # CastOpTest.testBasic / testSmallValues / testRandom: the float64, int64, complex128 halves of _testTypes
    rs = np.random.RandomState(0)
    with jax.enable_x64(True):
        for x in (np.linspace(-10, 10, 17), _SMALL, rs.normal(0, 1e6, 30)):
            _check_casts(x, (np.float32, np.float64, np.int32, np.int64, np.complex64, np.complex128))
        # TF 2.21: tf.cast(tf.constant([1e-6, 1e-15, -1e-15], tf.float64), tf.float32)
        assert _astype(np.array([1e-6, 1e-15, -1e-15]), np.float32).numpy().tolist() == [
            9.999999974752427e-07, 1.0000000036274937e-15, -1.0000000036274937e-15]


def test_cast_bfloat16():
    # CastOpTest.testBfloat16: float32 -> bfloat16 -> float32 within rtol 1/128; TF 2.21's values for these inputs
    a = np.random.RandomState(1).uniform(-100, 100, 8).astype(np.float32)
    back = _astype(a, tj.bfloat16).astype(tj.float32)
    assert back.dtype == np.float32
    assert back.numpy().tolist() == [-16.625, 44.0, -100.0, -39.5, -70.5, -81.5, -62.75, -30.875]
    np.testing.assert_allclose(back.numpy(), a, rtol=1 / 128.0)


@pytest.mark.parametrize("f8, tf_values", [
    ("float8_e4m3fn", [-16.0, 44.0, -96.0, -40.0, -72.0, -80.0, -64.0, -30.0]),
    ("float8_e5m2", [-16.0, 48.0, -96.0, -40.0, -64.0, -80.0, -64.0, -32.0]),
])
def test_cast_float8(f8, tf_values):
    # CastOpTest.testFloat8: convert_to_tensor(a, float8) then cast(cast(b, dtype), float8) == b for dtype in
    # float32, bfloat16, float16, float8_e4m3fn (float64 in the next test); TF 2.21's float8 values of a
    a = np.random.RandomState(1).uniform(-100, 100, 8).astype(np.float32)
    b = _astype(a, f8)
    assert b.dtype == np.dtype(getattr(ml_dtypes, f8))
    assert _astype(b, np.float32).numpy().tolist() == tf_values
    for dtype in ("float32", "bfloat16", "float16", "float8_e4m3fn"):
        c = tnp.astype(tnp.astype(b, dtype), f8)
        assert c.dtype == b.dtype
        np.testing.assert_array_equal(c.numpy().astype(np.float32), tf_values)
    with jax.enable_x64(True):
        c = tnp.astype(tnp.astype(tj.constant(b.numpy()), "float64"), f8)
        np.testing.assert_array_equal(c.numpy().astype(np.float32), tf_values)


def test_cast_int_to_float_boundary():
    # CastOpTest.testIntToFloatBoundary: TF 2.21 tf.cast([int32 min, max], float32) == [-2147483648., 2147483648.]
    i4, i8 = np.iinfo(np.int32), np.iinfo(np.int64)
    assert _astype(np.array([i4.min, i4.max], np.int32), np.float32).numpy().tolist() == [-2147483648.0, 2147483648.0]
    with jax.enable_x64(True):
        for dst, i4_max in ((np.float32, 2147483648.0), (np.float64, 2147483647.0)):  # TF 2.21 (float32 rounds up)
            got = _astype(np.array([i4.min, i4.max], np.int32), dst)
            assert got.dtype == dst and got.numpy().tolist() == [-2147483648.0, i4_max]
            got = _astype(np.array([i8.min, i8.max], np.int64), dst)
            assert got.dtype == dst and got.numpy().tolist() == [-9.223372036854776e+18, 9.223372036854776e+18]


def test_cast_inf_nan():
    # CastOpTest.testInfNan: inf, -inf and nan survive float32 <-> float64 (TF 2.21: [inf, -inf, nan] both ways)
    special = np.array([np.inf, -np.inf, np.nan])
    with jax.enable_x64(True):
        for src, dst in ((np.float32, np.float32), (np.float32, np.float64), (np.float64, np.float32),
                         (np.float64, np.float64)):
            got = _astype(special.astype(src), dst).numpy()
            assert got.dtype == dst
            assert got[0] == np.inf and got[1] == -np.inf and np.isnan(got[2])


def test_cast_to_type_of_variable():
    # CastOpTest.testCastToTypeOfVariable: cast(Variable(True), Variable(5, float32).dtype) == 1.0
    x = tj.Variable(5, dtype=tj.float32)
    y = tj.Variable(True, dtype=tj.bool)
    cast = tnp.astype(y, x.dtype)
    assert cast.dtype == np.float32 and cast.numpy() == 1.0
    assert y.astype(x.dtype).numpy() == 1.0


def _cast_gradient(src, dst):
    x = tj.constant(1.5 + 0.5j if np.issubdtype(src, np.complexfloating) else 1.5, dtype=src)
    with tj.GradientTape() as tape:
        tape.watch(x)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            y = tnp.astype(tj.identity(x), dst)
    og = tj.constant(2.0 + 3.0j if np.issubdtype(dst, np.complexfloating) else 2.0, dtype=dst)
    return tape.gradient(y, x, output_gradients=og)


@pytest.mark.filterwarnings("ignore:Casting from complex to real:DeprecationWarning")  # (jax's, in backward kernels)
def test_cast_gradients():
    # CastOpTest.testGradients: the gradient of cast is the incoming gradient cast back to the source dtype (TF's
    # _CastGrad). TF 2.21, x = 1.5 (1.5+0.5j complex), output_gradients 2.0 (2+3j complex): a real source gets 2.0
    # from every destination; a complex source gets 2+0j from a real destination and 2+3j from a complex one.
    def check(types):
        for src in types:
            for dst in types:
                g = _cast_gradient(src, dst)
                assert g.dtype == src, (src, dst)
                if not np.issubdtype(src, np.complexfloating):
                    want = 2.0
                else:
                    want = 2 + 3j if np.issubdtype(dst, np.complexfloating) else 2 + 0j
                assert g.numpy() == want, (src, dst, g.numpy())
    check((np.float32, np.complex64))
    with jax.enable_x64(True):
        check((np.float32, np.float64, np.complex64, np.complex128))
    # gradient_checker_v2 in TF: the Jacobian of float32 -> complex64 -> float32 is the identity
    x = tj.constant([0.5, -2.0])
    with tj.GradientTape() as tape:
        tape.watch(x)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            y = tnp.astype(tnp.astype(x, tj.complex64), tj.float32)
    np.testing.assert_array_equal(tape.jacobian(y, x).numpy(), np.eye(2))


# == gather_nd_op_test.py =====================================================================================

_P3 = np.array([[[-8, -1, -2, -3, -7, -5], [8, 1, 2, 3, 7, 5]],
                [[-80, -10, -20, -30, -70, -50], [80, 10, 20, 30, 70, 50]]], dtype=np.float32).T


def test_gather_nd_empty_indices_last_rank_copies_the_entire_tensor():
    # GatherNdTest.testEmptyIndicesLastRankMeansCopyEntireTensor: indices [[], []] (shape (2, 0)) -> params twice
    v = tj.Variable(_P3)
    got = v.gather_nd(np.zeros((2, 0), np.int32))
    assert got.shape == (2, 6, 2, 2)
    np.testing.assert_array_equal(got.numpy(), np.stack([_P3, _P3]))


def test_gather_nd_higher_rank_params_and_indices():
    # GatherNdTest.testHigherRankParams / testHigherRankParamsAndIndices: gather_nd(params, indices) ==
    # params[tuple(indices.T)] (TF 2.21 checked on these inputs; 200 index tuples rather than TF's 2000)
    rs = np.random.RandomState(3)
    shape = (10, 20, 5, 1, 17)
    params = rs.rand(*shape).astype(np.float32)
    indices = np.vstack([rs.randint(0, s, size=200) for s in shape]).T
    expected = params[tuple(indices.T)]
    v = tj.Variable(params)
    for got in (v.gather_nd(indices), tj.constant(params)[_idx(indices)]):
        assert got.shape == (200,)
        np.testing.assert_array_equal(got.numpy(), expected)
    reshaped = indices.reshape([10, 4, 5, 5])
    for got in (v.gather_nd(reshaped), tj.constant(params)[_idx(reshaped)]):
        assert got.shape == (10, 4, 5)
        np.testing.assert_array_equal(got.numpy(), expected.reshape([10, 4, 5]))


def test_gather_nd_resource_variable():
    # GatherNdTest.testGatherNdResourceVariable: gather_nd(ResourceVariable([[1, 2], [3, 4], [5, 6]]),
    # [[0, 1], [2, 0]]) == [2, 5] (TF 2.21, int32)
    v = tj.Variable(tj.constant([[1, 2], [3, 4], [5, 6]]))
    got = v.gather_nd([[0, 1], [2, 0]])
    assert got.dtype == np.int32 and got.numpy().tolist() == [2, 5]
    assert v[_idx([[0, 1], [2, 0]])].numpy().tolist() == [2, 5]


# == scatter_nd_ops_test.py: StatefulScatterNdTest (Variable.scatter_nd_*) ====================================

def test_scatter_nd_update_simple():
    # StatefulScatterNdTest.testSimple / testSimpleResource: TF 2.21 gives [0, 11, 0, 10, 9, 0, 0, 12] for every
    # dtype (int32, int64, float32, float64, complex64, complex128, bfloat16)
    indices = tj.constant([[4], [3], [1], [7]], dtype=tj.int32)
    expected = [0, 11, 0, 10, 9, 0, 0, 12]

    def check(dtypes):
        for dtype in dtypes:
            ref = tj.Variable(np.zeros(8), dtype=dtype)
            out = ref.scatter_nd_update(indices, tnp.asarray([9, 10, 11, 12], dtype=dtype))
            assert out is ref and ref.dtype == dtype
            np.testing.assert_array_equal(ref.numpy(), np.array(expected, dtype))
    check((np.int32, np.float32, np.complex64, tj.bfloat16))
    with jax.enable_x64(True):
        check((np.int64, np.float64, np.complex128))


def test_scatter_nd_update_simple2_and_simple3():
    # StatefulScatterNdTest.testSimple2 (entries) / testSimple3 (a row): TF 2.21 [[0, 0], [11, 12], [0, 0]]
    ref = tj.Variable([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    assert ref.scatter_nd_update(tj.constant([[1, 0], [1, 1]]), tj.constant([11.0, 12.0])).numpy().tolist() == \
        [[0.0, 0.0], [11.0, 12.0], [0.0, 0.0]]
    ref = tj.Variable([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    assert ref.scatter_nd_update(tj.constant([[1]]), tj.constant([[11.0, 12.0]])).numpy().tolist() == \
        [[0.0, 0.0], [11.0, 12.0], [0.0, 0.0]]


def _numpy_scatter_nd(ref, indices, updates, op):
    # scatter_nd_ops_test._NumpyScatterNd: TF's reference, applied one index tuple after the other
    ixdim = indices.shape[-1]
    num_updates = indices.size // ixdim
    slice_size = int(np.prod(ref.shape[ixdim:], dtype=np.int64))
    flat_indices = indices.reshape(-1, ixdim)
    flat_updates = updates.reshape((num_updates, slice_size))
    output_flat = ref.reshape(ref.shape[:ixdim] + (slice_size,))
    for k, ix in enumerate(flat_indices):
        ix = tuple(ix)
        output_flat[ix] = op(output_flat[ix], flat_updates[k])
    return output_flat.reshape(ref.shape)


def _variable_rank_case(vtype, itype, ref_shape, indices_shape, repeat_indices, seed=8):
    # StatefulScatterNdTest._VariableRankTest's draws (np.random.seed(8) there; a RandomState here)
    rs = np.random.RandomState(seed)
    num_updates, ixdim = indices_shape[0], indices_shape[-1]
    all_indices = [list(c) for c, _ in np.ndenumerate(np.empty(ref_shape[:ixdim], np.float32))]
    rs.shuffle(all_indices)
    indices = np.array(all_indices[:num_updates])
    if num_updates > 1 and repeat_indices:
        indices = indices[:num_updates // 2]
        for _ in range(num_updates - num_updates // 2):
            indices = np.append(indices, [indices[rs.randint(num_updates // 2)]], axis=0)
        rs.shuffle(indices)
    indices = indices[:num_updates].astype(itype)
    updates = rs.randn(*((num_updates,) + tuple(ref_shape[ixdim:]))).astype(vtype)
    ref = rs.randn(*ref_shape).astype(vtype)
    return ref, indices, updates


_RANK_CASES = [((3, 6), (2,)), ((3, 6), (2, 2)), ((3, 6, 9), (2,)), ((3, 6, 9), (2, 2)), ((3, 6, 9), (2, 3)),
               ((3, 6, 9), (2, 3, 3))]
_NP_OPS = {"update": lambda p, u: u, "add": lambda p, u: p + u, "sub": lambda p, u: p - u}


@pytest.mark.parametrize("op, repeat", [("update", False), ("add", False), ("sub", False), ("add", True),
                                        ("sub", True)])
def test_scatter_nd_variable_rank(op, repeat):
    # StatefulScatterNdTest.testVariableRankUpdate / testVariableRankAdd / testVariableRankSub (repeat=False) and
    # testScatterRepeatIndices (add, sub with repeated indices): the variable equals _NumpyScatterNd's result (TF
    # 2.21 checked on these draws); dtypes int32, float16, float32, complex64, bfloat16 (float64 and complex128
    # need x64), indices int32 and int64
    vtypes = (np.int32, np.float16, np.float32, ml_dtypes.bfloat16) + (() if repeat else (np.complex64,))
    for vtype in vtypes:
        for itype in (np.int32, np.int64):
            for ref_shape, indices_shape in _RANK_CASES:
                ref, indices, updates = _variable_rank_case(vtype, itype, ref_shape, indices_shape, repeat)
                expected = _numpy_scatter_nd(ref.copy(), indices, updates, _NP_OPS[op])
                var = tj.Variable(ref)
                getattr(var, "scatter_nd_" + op)(indices, updates)
                tol = 1e-2 if vtype == ml_dtypes.bfloat16 else 1e-6
                np.testing.assert_allclose(var.numpy().astype(np.complex128), expected.astype(np.complex128),
                                           rtol=tol, atol=tol)


@pytest.mark.parametrize("op", ["scatter_nd_add", "scatter_nd_sub", "scatter_nd_update"])
def test_scatter_nd_out_of_range(op):
    # StatefulScatterNdTest.testScatterOutOfRangeCpu: TF 2.21 "indices[0] = [-1] does not index into shape [6]" and
    # "indices[2] = [6] does not index into shape [6]" (InvalidArgumentError); API.md: IndexError, and the failed
    # update leaves the variable as it was
    params = np.array([1, 2, 3, 4, 5, 6], np.float32)
    updates = np.array([-3, -4, -5], np.float32)
    ref = tj.Variable(params)
    getattr(ref, op)(np.array([[2], [0], [5]]), updates)  # in range
    after = {"scatter_nd_add": [-3.0, 2.0, 0.0, 4.0, 5.0, 1.0], "scatter_nd_sub": [5.0, 2.0, 6.0, 4.0, 5.0, 11.0],
             "scatter_nd_update": [-4.0, 2.0, -3.0, 4.0, 5.0, -5.0]}[op]  # TF 2.21
    assert ref.numpy().tolist() == after
    with pytest.raises(IndexError, match=r"\[-1\]"):
        getattr(ref, op)(np.array([[-1], [0], [5]]), updates)
    with pytest.raises(IndexError, match=r"\[6\]"):
        getattr(ref, op)(np.array([[2], [0], [6]]), updates)
    assert ref.numpy().tolist() == after


def test_scatter_nd_valid_and_invalid_shapes():
    # StatefulScatterNdTest.testRank3ValidShape: shape [2, 2, 2]
    ref = tj.Variable(tnp.zeros([2, 2, 2], tj.int32))
    assert ref.scatter_nd_update(tnp.zeros([2, 2, 2], tj.int32), tnp.zeros([2, 2, 2], tj.int32)).shape == (2, 2, 2)
    # testExtraIndicesDimensions: indices [1, 1, 2], updates [1, 1] into [2, 2] -> zeros (TF 2.21)
    ref = tj.Variable(tnp.zeros([2, 2], tj.int32))
    out = ref.scatter_nd_update(tnp.zeros([1, 1, 2], tj.int32), tnp.zeros([1, 1], tj.int32))
    assert out.shape == (2, 2) and out.numpy().tolist() == [[0, 0], [0, 0]]
    # testRank3InvalidShape1: "Dimensions [0,1) of indices[shape=[3,2,2]] = 3 must match dimensions [0,1) of
    # updates[shape=[2,2,2]]" / testRank3InvalidShape2: "Dimensions [1,3) of input[shape=[2,2,2]] must match
    # dimensions [1,2) of updates[shape=[2,2]]" (TF 2.21: InvalidArgumentError -> ValueError)
    ref = tj.Variable(tnp.zeros([2, 2, 2], tj.int32))
    with pytest.raises(ValueError):
        ref.scatter_nd_update(tnp.zeros([3, 2, 2], tj.int32), tnp.zeros([2, 2, 2], tj.int32))
    with pytest.raises(ValueError):
        ref.scatter_nd_update(tnp.zeros([2, 2, 1], tj.int32), tnp.zeros([2, 2], tj.int32))
    assert ref.numpy().tolist() == np.zeros([2, 2, 2], int).tolist()


def test_scatter_nd_into_a_scalar_variable_raises():
    # StatefulScatterNdTest.testResVarInvalidOutputShape: TF 2.21 "Output must be at least 1-D, got shape: []"
    # (InvalidArgumentError -> ValueError); the variable stays 0.0
    res = tj.Variable(tnp.zeros([], tj.float32))
    with pytest.raises(ValueError):
        res.scatter_nd_update([[0]], [0.22])
    assert res.numpy() == 0.0


def test_scatter_nd_concurrent_updates():
    # StatefulScatterNdTest.testConcurrentUpdates: 10000 updates of entry [0, 1] all added (float32 here; TF 2.21
    # on these values: 4964.5947265625; their exact sum 4964.5889...)
    values = np.random.RandomState(0).rand(10000).astype(np.float32)
    ref = tj.Variable(np.zeros([2, 2], np.float32))
    result = ref.scatter_nd_add(tj.constant([[0, 1]] * 10000), values).numpy()
    np.testing.assert_allclose(result, [[0.0, 4964.5947265625], [0.0, 0.0]], rtol=1e-5)


@pytest.mark.parametrize("op, updates, expected", [
    ("min", [0, 2, -1, 2], [1, -1, 1, 1, 0, 1, 1, 1]),  # testMin
    ("max", [0, 2, -1, 2], [1, 1, 1, 2, 1, 1, 1, 2]),  # testMax
    ("add", [0, 2, -1, 3], [1, 0, 1, 3, 1, 1, 1, 4]),  # testAdd
    ("sub", [0, 2, -1, 2], [1, 2, 1, -1, 1, 1, 1, -1]),  # testSub
])
def test_scatter_min_max_add_sub(op, updates, expected):
    # StatefulScatterNdTest.testMin / testMax / testAdd / testSub: scatter_<op>(ones([8], int32), [4, 3, 1, 7],
    # updates), TF 2.21's values (the returned variable and the variable); 1-d indices i are scatter_nd's i[:, None]
    ref = tj.Variable(tnp.ones([8], tj.int32))
    out = getattr(ref, "scatter_nd_" + op)(tj.constant([4, 3, 1, 7])[:, None], tj.constant(updates, dtype=tj.int32))
    assert out.numpy().tolist() == expected and ref.numpy().tolist() == expected


def test_stateful_scatter_nd_determinism():
    # StatefulScatterNdDeterminismTest.testDeterminism: scatter_nd_update of 100000 values at one entry gives the
    # same result every time
    indices = tnp.zeros([100000, 1], tj.int32)
    values = np.random.RandomState(0).randn(100000).astype(np.float32)
    first = tj.Variable(tnp.zeros([1])).scatter_nd_update(indices, values).numpy()
    if jax.default_backend() == "cpu":  # TF 2.21 (CPU): the last value, -1.2852076
        np.testing.assert_array_equal(first, np.array([-1.2852076], np.float32))
    for _ in range(3):
        np.testing.assert_array_equal(tj.Variable(tnp.zeros([1])).scatter_nd_update(indices, values).numpy(), first)


# == scatter_nd_ops_test.py: ScatterNdTest / ScatterNdNonAliasingAddTest (tf.scatter_nd) =========================

def test_scatter_nd_bool():
    # ScatterNdTest.testBool: TF 2.21 [F, F, F, T, F, F, F, T] both times (the second with index 3 given twice,
    # True both times); ported with .at[].set (jax's .at[].add refuses bool), and Variable.scatter_nd_update
    expected = [False, False, False, True, False, False, False, True]
    got = _at(tnp.zeros([8], tj.bool), [[4], [3], [1], [7]]).set(tj.constant([False, True, False, True]))
    assert got.dtype == np.bool_ and got.numpy().tolist() == expected
    got = _at(tnp.zeros([8], tj.bool), [[4], [3], [3], [7]]).set(tj.constant([False, True, True, True]))
    assert got.numpy().tolist() == expected
    ref = tj.Variable(tnp.zeros([8], tj.bool))
    assert ref.scatter_nd_update([[4], [3], [3], [7]], tj.constant([False, True, True, True])).numpy().tolist() == \
        expected


def test_scatter_nd_invalid_shape():
    # ScatterNdTest.testInvalidShape: scatter_nd(indices=[0], updates=[0.0], shape=[1]) (indices should be [[0]]);
    # TF 2.21 "Dimensions [1,1) of input[shape=[1]] must match dimensions [0,1) of updates[shape=[1]]"
    # (InvalidArgumentError -> ValueError)
    with pytest.raises(ValueError):
        _scatter_nd([0], [0.0], [1])


def test_scatter_nd_rank3_valid_shape_and_extra_indices_dimensions():
    # ScatterNdTest.testRank3ValidShape / testExtraIndicesDimensions (TF 2.21: zeros of the shape)
    got = _scatter_nd(tnp.zeros([2, 2, 2], tj.int32).numpy(), tnp.zeros([2, 2, 2], tj.int32), [2, 2, 2])
    assert got.shape == (2, 2, 2) and got.dtype == np.int32 and not got.numpy().any()
    got = _scatter_nd(np.zeros([1, 1, 2], np.int32), tnp.zeros([1, 1], tj.int32), [2, 2])
    assert got.numpy().tolist() == [[0, 0], [0, 0]]


def test_scatter_nd_empty_output_shape1():
    # ScatterNdTest.testEmptyOutputShape1: indices and updates [2, 2, 2] into shape [0, 3, 2]: TF 2.21 "Indices and
    # updates specified for empty output" (also ResourceScatterNdAdd); index [0, 0] is out of bounds -> IndexError
    # (API.md). (.at drops an out-of-bounds update, as jax.Array.at: see the module docstring.)
    ref = tj.Variable(tnp.zeros([0, 3, 2], tj.int32))
    with pytest.raises(IndexError):
        ref.scatter_nd_add(tnp.zeros([2, 2, 2], tj.int32), tnp.zeros([2, 2, 2], tj.int32))
    assert ref.shape == (0, 3, 2)


def test_scatter_nd_empty_output_shape3():
    # ScatterNdTest.testEmptyOutputShape3: scatter_nd(zeros([0], int32), zeros([0], int32), [0]) has size 0
    got = _scatter_nd(np.zeros([0], np.int32), tnp.zeros([0], tj.int32), [0])
    assert got.shape == (0,) and got.numpy().size == 0


def test_scatter_nd_empty_output_shape3_on_a_variable():
    # ScatterNdTest.testEmptyOutputShape3, with scatter_nd's values summed into a zero-size Variable
    ref = tj.Variable(tnp.zeros([0], tj.int32))
    ref.scatter_nd_add(tnp.zeros([0], tj.int32), tnp.zeros([0], tj.int32))
    assert ref.shape == (0,)


def test_scatter_nd_rank3_invalid_shapes():
    # ScatterNdTest.testRank3InvalidShape1: indices [3, 2, 2], updates [2, 2, 2] into [2, 2, 2]: TF 2.21
    # "Dimensions [0,2) of indices[shape=[3,2,2]] must match dimensions [0,2) of updates[shape=[2,2,2]]"
    # (InvalidArgumentError -> ValueError), on .at and on the Variable form; testRank3InvalidShape2 (updates [2, 2]
    # for indices [2, 2, 1]) on the Variable form only (.at broadcasts values, as jax: see the module docstring)
    with pytest.raises(ValueError):
        _scatter_nd(np.zeros([3, 2, 2], np.int32), tnp.zeros([2, 2, 2], tj.int32), [2, 2, 2])
    ref = tj.Variable(tnp.zeros([2, 2, 2], tj.int32))
    with pytest.raises(ValueError):
        ref.scatter_nd_add(tnp.zeros([3, 2, 2], tj.int32), tnp.zeros([2, 2, 2], tj.int32))
    with pytest.raises(ValueError):
        ref.scatter_nd_add(tnp.zeros([2, 2, 1], tj.int32), tnp.zeros([2, 2], tj.int32))


def test_scatter_nd_updates_rank_smaller_than_indices_outer_dims():
    # ScatterNdTest.testUpdatesRankSmallerThanIndicesOuterDimsInvalid and ScatterNdTensorTest's: indices
    # [4, 1, 1] (or [[[4]], [[3]], [[1]], [[7]]]) with updates of shape [4]: the test expects InvalidArgumentError or
    # ValueError ("rank at least|must match"). TF 2.21's ResourceScatterNdAdd raises "Dimensions [0,2) of
    # indices[shape=[4,1,1]] must match dimensions [0,2) of updates[shape=[4]]"; its ScatterNd and
    # TensorScatterUpdate kernels abort the process (CHECK failure in tensor_shape.cc, fixed after 2.21).
    with pytest.raises(ValueError):
        _scatter_nd(np.zeros([4, 1, 1], np.int32), tnp.zeros([4], tj.int32), [8])
    with pytest.raises(ValueError):
        _at(tnp.ones([8], tj.int32), [[[4]], [[3]], [[1]], [[7]]]).set(tj.constant([9, 10, 11, 12]))
    ref = tj.Variable(tnp.zeros([8], tj.int32))
    with pytest.raises(ValueError):
        ref.scatter_nd_add(tnp.zeros([4, 1, 1], tj.int32), tnp.zeros([4], tj.int32))


@pytest.mark.parametrize("indices, updates, shape, grad_vals, updates_grad", [
    # testGradientsRank2ElementUpdate
    ([[0, 0], [1, 1]], [1, 4], [2, 2], [[1, 2], [3, 4]], [1, 4]),
    # testGradientsRank2SliceUpdate
    ([[1], [0]], [[3, 4], [1, 2]], [2, 2], [[3, 4], [1, 2]], [[1, 2], [3, 4]]),
    # testGradientsRank3SliceUpdate
    ([[[0, 1], [1, 0]], [[0, 0], [1, 1]]], [[[5, 7], [2, 4]], [[1, 3], [6, 8]]], [2, 2, 2],
     [[[1, 2], [3, 4]], [[5, 6], [7, 8]]], [[[3, 4], [5, 6]], [[1, 2], [7, 8]]]),
    # testGradientsRank7SliceUpdate
    ([[[[[[[0, 0, 0, 0, 0, 1], [0, 0, 1, 0, 0, 0]]]], [[[[0, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, 1]]]]]]],
     [[[[[[[5, 6], [2, 4]]]], [[[[1, 3], [6, 8]]]]]]], [1, 1, 2, 1, 1, 2, 2],
     [[[[[[[1, 2], [3, 4]]]], [[[[5, 6], [7, 8]]]]]]], [[[[[[[3, 4], [5, 6]]]], [[[[1, 2], [7, 8]]]]]]]),
])
def test_scatter_nd_gradients(indices, updates, shape, grad_vals, updates_grad):
    # ScatterNdTest.testGradientsRank*Update and ScatterNdNonAliasingAddTest's (the input's gradient is grad_vals):
    # TF 2.21's values, for float32, float16 and bfloat16 (float64 needs x64)
    for dtype in (np.float32, np.float16, tj.bfloat16):
        u = tj.constant(updates, dtype=dtype)
        x = tnp.zeros(shape, dtype)
        gv = tj.constant(grad_vals, dtype=dtype)
        with tj.GradientTape(persistent=True) as tape:
            tape.watch([u, x])
            out = _scatter_nd(indices, u, shape)  # tf.scatter_nd
            out2 = _at(x, indices).add(u)  # scatter_nd_non_aliasing_add(input_, indices, updates)
        g, = tape.gradient([out], [u], [gv])
        assert g.dtype == dtype
        np.testing.assert_array_equal(g.numpy().astype(np.float32), updates_grad)
        g_u, g_x = tape.gradient([out2], [u, x], [gv])
        np.testing.assert_array_equal(g_u.numpy().astype(np.float32), updates_grad)
        np.testing.assert_array_equal(g_x.numpy().astype(np.float32), grad_vals)


def test_scatter_nd_repeated_indices_add():
    # ScatterNdTest.testScatterNdRepeatedIndicesAdd: 100000 values at entry 0 sum (float32 here, TF used float64)
    values = np.random.RandomState(0).randn(100000).astype(np.float32)
    got = _scatter_nd(np.zeros([100000, 1], np.int32), values, [1])
    np.testing.assert_allclose(got.numpy(), [np.sum(values.astype(np.float64))], rtol=1e-4)


@pytest.mark.parametrize("indices_shape, values_shape, shape", [
    ([3, 5, 2], [3, 5, 7], [4, 6, 7]),  # testSmokeScatterNdBatch2DSliceDim2
    ([0, 2], [0, 7], [4, 6, 7]),  # testSmokeScatterNdBatch1DSliceDim2
    ([1, 3], [1, 6, 7, 8, 9], [3, 4, 5, 6, 7, 8, 9]),  # testSmokeScatterNdBatch1DSliceDim3ShapeRank7
    ([1, 2, 3], [1, 2, 6, 7, 8, 9], [3, 4, 5, 6, 7, 8, 9]),  # testSmokeScatterNdBatch2DSliceDim3ShapeRank7
])
def test_scatter_nd_smoke(indices_shape, values_shape, shape):
    # ScatterNdTest.testSmokeScatterNd*: TF 2.21 returns zeros of ``shape``; the Variable form too
    got = _scatter_nd(np.zeros(indices_shape, np.int32), tnp.zeros(values_shape), shape)
    assert got.shape == tuple(shape) and not got.numpy().any()
    ref = tj.Variable(tnp.zeros(shape))
    ref.scatter_nd_add(np.zeros(indices_shape, np.int32), tnp.zeros(values_shape))
    assert not ref.numpy().any()


def test_scatter_nd_determinism():
    # ScatterNdDeterminismTest.testDeterminism / ScatterNdTensorDeterminismTest.testDeterminism: 100000 values at
    # one entry, scatter_nd (added) and tensor_scatter_update (set), the same result every time
    indices = np.zeros([100000, 1], np.int32)
    values = tj.constant(np.random.RandomState(1).randn(100000).astype(np.float32))
    added = _scatter_nd(indices, values, [1]).numpy()
    assigned = _at(tnp.zeros([1]), indices).set(values).numpy()
    if jax.default_backend() == "cpu":  # TF 2.21 (CPU) tensor_scatter_update: the last value, -0.74755627
        np.testing.assert_array_equal(assigned, np.array([-0.74755627], np.float32))
    for _ in range(3):
        np.testing.assert_array_equal(_scatter_nd(indices, values, [1]).numpy(), added)
        np.testing.assert_array_equal(_at(tnp.zeros([1]), indices).set(values).numpy(), assigned)


# == scatter_nd_ops_test.py: ScatterNdTensorTest (tensor_scatter_nd_*) ==========================================

def test_tensor_scatter_update_add_sub_min_max():
    # ScatterNdTensorTest.testUpdateAddSub / testUpdateMinMax (int32, float32): TF 2.21's values
    for dtype in (np.int32, np.float32):
        indices = [[4], [3], [1], [7]]
        t = tnp.ones([8], dtype)
        u = tj.constant([9, 10, 11, 12], dtype=dtype)
        for got, want in ((_at(t, indices).set(u), [1, 11, 1, 10, 9, 1, 1, 12]),
                          (_at(t, indices).add(u), [1, 12, 1, 11, 10, 1, 1, 13]),
                          (_at(t, indices).subtract(u), [1, -10, 1, -9, -8, 1, 1, -11])):
            assert got.dtype == dtype and got.numpy().tolist() == want
        u = tj.constant([0, 2, -1, 2], dtype=dtype)
        for got, want in ((_at(t, indices).set(u), [1, -1, 1, 2, 0, 1, 1, 2]),
                          (_at(t, indices).min(u), [1, -1, 1, 1, 0, 1, 1, 1]),
                          (_at(t, indices).max(u), [1, 1, 1, 2, 1, 1, 1, 2])):
            assert got.dtype == dtype and got.numpy().tolist() == want


def test_tensor_scatter_update_add_sub_gradients():
    # ScatterNdTensorTest.testUpdateAddSubGradients: gradient_checker_v2's Jacobians, TF 2.21's (tape.jacobian)
    indices = [[3], [1]]
    u = tj.constant([9.0, 10.0])
    x = tnp.ones([4])
    d_u = [[0.0, 0.0], [0.0, 1.0], [0.0, 0.0], [1.0, 0.0]]
    for method, jx, ju in (("set", np.diag([1.0, 0.0, 1.0, 0.0]), d_u),
                           ("add", np.eye(4), d_u),
                           ("subtract", np.eye(4), -np.asarray(d_u))):
        with tj.GradientTape(persistent=True) as tape:
            tape.watch([x, u])
            y = getattr(_at(x, indices), method)(u)
        np.testing.assert_allclose(tape.jacobian(y, x).numpy(), jx, atol=5e-4)
        np.testing.assert_allclose(tape.jacobian(y, u).numpy(), ju, atol=5e-4)


def test_tensor_scatter_min_max_gradients():
    # ScatterNdTensorTest.testUpdateMinMaxGradients: a tie's gradient is shared equally (TF 2.21: 0.33333334 for
    # the three-way tie at entry 3), indices int32 and int64
    third = 1.0 / 3.0
    for itype in (np.int32, np.int64):
        x = tnp.ones([4])
        indices = np.array([[1], [2], [3], [3]], itype)
        u = tj.constant([2.0, 0.5, 1.0, 1.0])
        for method, jx, ju in (
                ("max", np.diag([1.0, 0.0, 1.0, third]),
                 [[0, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0], [0, 0, third, third]]),
                ("min", np.diag([1.0, 1.0, 0.0, third]),
                 [[0, 0, 0, 0], [0, 0, 0, 0], [0, 1, 0, 0], [0, 0, third, third]])):
            with tj.GradientTape(persistent=True) as tape:
                tape.watch([x, u])
                y = getattr(_at(x, indices), method)(u)
            np.testing.assert_allclose(tape.jacobian(y, x).numpy(), jx, rtol=1e-6, atol=1e-6)
            np.testing.assert_allclose(tape.jacobian(y, u).numpy(), ju, rtol=1e-6, atol=1e-6)


def test_tensor_scatter_update_with_forwarding():
    # ScatterNdTensorTest.testTensorScatterUpdateWithForwarding: inside a tf.function, [1, 11, 1, 10, 9, 1, 1, 12]
    for dtype in (np.int32, np.float32):
        @tj.function
        def f():
            t = tnp.ones([8], dtype)
            return _at(t, [[4], [3], [1], [7]]).set(tj.constant([9, 10, 11, 12], dtype=dtype))
        got = f()
        assert got.dtype == dtype and got.numpy().tolist() == [1, 11, 1, 10, 9, 1, 1, 12]


@pytest.mark.skipif(jax.default_backend() != "cpu", reason="as TF: duplicate indices scatter is non-deterministic "
                                                          "on GPU")
def test_tensor_scatter_update_repeated_indices():
    # ScatterNdTensorTest.testUpdateRepeatedIndices1D: TF 2.21 (CPU) entry 5 gets the last value, 8
    got = _at(tnp.zeros([10, 1]), [[5], [5]]).set(tj.constant([[4.0], [8.0]]))
    assert got.numpy().ravel().tolist() == [0, 0, 0, 0, 0, 8, 0, 0, 0, 0]
    # testUpdateRepeatedIndices2D: row 6 gets range(10, 20), the last of its two updates
    rows = tnp.stack([tnp.arange(10.0), tnp.arange(11.0, 21.0), tnp.arange(10.0, 20.0)])
    got = _at(tnp.zeros([10, 10]), [[5], [6], [6]]).set(rows)
    assert got[6].numpy().tolist() == [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0]
    assert got[5].numpy().tolist() == list(range(10))


# == dense_update_ops_test.py =================================================================================

def test_assign_assign_add_assign_sub():
    # AssignOpTest.testBasic: Variable(zeros([4, 5])) assigned / added / subtracted arange(20).reshape(4, 5): the
    # variable and the returned value (TF 2.21: y, x + y, x - y) for float32, int32, bfloat16 (float64, int64 under
    # x64)
    vals = np.arange(0, 20).reshape([4, 5])

    def check(dtypes):
        for dtype in dtypes:
            x = np.zeros(vals.shape).astype(dtype)
            y = vals.astype(dtype)
            for method, want in (("assign", vals), ("assign_add", vals), ("assign_sub", -vals)):
                p = tj.Variable(x)
                out = getattr(p, method)(tj.constant(y))
                assert p.dtype == dtype
                np.testing.assert_array_equal(p.numpy(), want.astype(dtype))
                np.testing.assert_array_equal(out.numpy(), want.astype(dtype))
    check((np.float32, np.int32, ml_dtypes.bfloat16))
    with jax.enable_x64(True):
        check((np.float64, np.int64))
