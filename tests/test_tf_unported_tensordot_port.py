"""TensorFlow's tensordot, trace, cross and add_n / accumulate_n tests, ported to tapejax's ``tj.numpy``.

Sources (the TF test method is named at each test):
  tensorflow/python/kernel_tests/math_ops/tensordot_op_test.py: TensordotTest.test_invalid_shape,
    test_invalid_axes, test_valid_axis, and the generated test_tensordot_<dtype>_<rank_a>_<rank_b>_<num_dims>_False /
    test_tensordot_scalar_axes_<dtype>_..._False (static shapes; float16, float32, float64, complex64, complex128);
  tensorflow/python/kernel_tests/trace_op_test.py (the newest version the reference index holds): TraceTest.testTrace;
  tensorflow/python/kernel_tests/math_ops/cross_grad_test.py: CrossOpTest.testGradientRandomValues;
  tensorflow/compiler/tests/binary_ops_test.py: BinaryOpsTest.testCross (the Cross kernel's values per float type);
  tensorflow/python/kernel_tests/math_ops/aggregate_ops_test.py: AddNTest.testAddN;
  tensorflow/python/ops/math_ops_test.py: AddNTest.testPartials, testFloat, testInt, testGrad, test_iterable, and
    AccumulateNTest.testFloat / testInt (older versions of that file);
  tensorflow/python/kernel_tests/accumulate_n_test.py: AccumulateNV2Test.testFloat, testInt, testGrad, testSimple,
    testZeroArgs, testIncompatibleShapes;
  tensorflow/python/kernel_tests/accumulate_n_eager_test.py: AccumulateNV2EagerTest.testMinimalEagerMode, testFloat,
    testGrad.

TF ops map to tj.numpy: tf.tensordot -> tensordot (TF's ``axes`` forms, an int, a pair of ints or a pair of lists,
are jax.numpy's too); tf.linalg.trace (over the last two axes) -> trace(x, axis1=-2, axis2=-1); tf.linalg.cross ->
cross; tf.math.add_n and tf.math.accumulate_n (TF 2.21 still has it, deprecated, same values) -> add_n.
Expected values are TF 2.21's, obtained by running the same program (these inputs) in TF here and hard-coded
(large outputs as a ``D`` digest, conftest.py; complex ones as a digest of the real and of the imaginary part);
TensorFlow is not imported. Inputs are drawn with ``np.random.RandomState`` (stable across NumPy versions), not
with TF's test seeds. TF's gradient checker (cross) is replaced by TF 2.21's ``tape.jacobian`` hard-coded and
compared with tapejax's; TF's tests have no tensordot / trace gradient test, so the gradients (and JVPs) of TF's
programs are checked against TF 2.21's tape / ForwardAccumulator values as extensions of the value tests named.
TF's InvalidArgumentError is ValueError here. int64/float64/complex128 run under ``jax.enable_x64(True)`` for that
test only. To keep the file fast, the generated tensordot tests run all 50 rank/contraction combinations for
float32 and six of them for each other dtype; test_tensordot_scalar_axes runs every rank 1..5 for float32 (less
the 5**10-element outer product of rank 5 with axes=0) and rank 2 for the other dtypes.

Sanctioned differences (tj.numpy follows jax.numpy/NumPy), listed rather than xfailed:
  * tensordot(a, b, axes=-1): TF raises ValueError (test_invalid_axes); NumPy and jax.numpy accept a negative
    int (an outer product over no axes), and so does tapejax: that value of test_invalid_axes is left out;
  * cross accepts vectors of 2 components (NumPy's convention); TF's Cross kernel needs 3 (no TF test method
    asserts that);
  * add_n in bfloat16 rounds after each add in input order, TF's CPU kernel in its own order (N mod 8 first, then 8
    at a time): sums of 10 bfloat16 terms differ by up to 2 ulps (float rounding, not semantics; see ADD_N_TOL).

Left out, by reason:
  * TF1 graphs, placeholders and unknown shapes: TensordotTest.test_partial_shape_inference, the dynamic-shape
    halves of test_invalid_shape / test_invalid_axes, the test_tensordot*_True variants (placeholders; TF skips
    them eagerly), AddNTest.testUnknownShapes (aggregate_ops_test.py), AccumulateNV2Test.testUnknownShape;
  * variant and IndexedSlices inputs: AddNTest.testVariant (aggregate_ops_test.py), AddNTest.testIndexedSlices
    (math_ops_test.py);
  * TF-only arguments of accumulate_n: AccumulateNV2Test.testWrongShape (``shape=``), testWrongType and
    testWrongTypeOneInput (``tensor_dtype=``): tj.numpy.add_n takes only the list.

"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from conftest import D, close_to_tf

tnp = tj.numpy
pytestmark = pytest.mark.filterwarnings("ignore:Explicitly requested dtype")

F16, F32, F64, C64, C128 = np.float16, np.float32, np.float64, np.complex64, np.complex128
DTYPES = {"float32": F32, "float16": F16, "float64": F64, "complex64": C64, "complex128": C128}
X64 = (F64, C128)
# TF's tolerances in tensordot_op_test: 0.05 for float16, 1e-5 for float32/complex64, 1e-12 for the 64-bit types
# (here relative to the digest's magnitude; TF's digests are kept to 9 significant digits)
TOL = {"float16": 5e-2, "float32": 1e-5, "complex64": 1e-5, "float64": 1e-8, "complex128": 1e-8}


def _np(t):
    return np.asarray(t.numpy() if hasattr(t, "numpy") else t)


def _close(got, want, rtol):
    """``got`` against TF's ``want`` (a D digest, a pair of digests for a complex value, or values)."""
    got = _np(got)
    if isinstance(want, tuple) and len(want) == 2 and isinstance(want[0], D):
        close_to_tf(got.real, want[0], rtol, atol=1e-12)
        close_to_tf(got.imag, want[1], rtol, atol=1e-12)
    else:
        close_to_tf(got, want, rtol, atol=1e-12)


class _x64:
    """``jax.enable_x64(True)`` for the 64-bit dtypes, nothing otherwise."""

    def __init__(self, dtype):
        self.ctx = jax.enable_x64(True) if np.dtype(dtype) in (np.dtype(F64), np.dtype(C128), np.dtype(np.int64)) \
            else None

    def __enter__(self):
        if self.ctx is not None:
            self.ctx.__enter__()

    def __exit__(self, *exc):
        if self.ctx is not None:
            return self.ctx.__exit__(*exc)


# -- tensordot_op_test.py ------------------------------------------------------------------------------------------

def test_invalid_shape():
    """TensordotTest.test_invalid_shape (eager half): contracting a (2, 2) axis 1 with a (3, 2) axis 0. TF 2.21:
    InvalidArgumentError "Matrix size-incompatible: In[0]: [2,2], In[1]: [3,2]" (ValueError here)."""
    a = [[1, 2], [3, 4]]
    b = [[1, 2], [3, 4], [5, 6]]
    with pytest.raises(ValueError):
        tnp.tensordot(a, b, ([1], [0]))


@pytest.mark.parametrize("axes", [3, [1], [[1]], [[1], [0, 1]]])
def test_invalid_axes(axes):
    """TensordotTest.test_invalid_axes (static axes). TF 2.21 raises ValueError for each: 3 ("`axes` must not be
    larger than the number of dimensions"), [1] and [[1]] ("`axes` must be an integer or have length 2"), [[1],
    [0, 1]] ("Different number of contraction axes `a` and `b`, 1 != 2"). axes=-1 is left out (see the module
    docstring: NumPy's and jax.numpy's convention accepts it)."""
    a = [[1, 2], [3, 4]]
    b = [[1, 2], [3, 4]]
    with pytest.raises(ValueError):
        tnp.tensordot(a, b, axes)


def test_invalid_axes_out_of_range_index_error():
    """TensordotTest.test_invalid_axes: ``tensordot(a, b, [[0], [7]])`` of two 2x2 matrices. TF 2.21: IndexError
    ("list index out of range")."""
    a = [[1, 2], [3, 4]]
    b = [[1, 2], [3, 4]]
    with pytest.raises(IndexError):
        tnp.tensordot(a, b, [[0], [7]])


@pytest.mark.parametrize("axes", [[1, 2], [[1], [2]], [[], []], 0])
def test_valid_axis(axes):
    """TensordotTest.test_valid_axis (TF issue 11950): ones((3, 3)) with [2, 3, 1][None, None]. TF 2.21: axes
    [1, 2] and [[1], [2]] give shape (3, 1, 1), every value 6.0; [[], []] and 0 give shape (3, 3, 1, 1, 3), every
    row [2., 3., 1.]."""
    a = tnp.ones((3, 3), dtype=jnp.float32)
    b = tj.constant([2.0, 3.0, 1.0])[None, None]
    got = tnp.tensordot(a, b, axes)
    if axes in ([1, 2], [[1], [2]]):
        want = np.full((3, 1, 1), 6.0, np.float32)
    else:
        want = np.broadcast_to(np.array([2.0, 3.0, 1.0], np.float32), (3, 3, 1, 1, 3))
    assert got.shape == want.shape and got.dtype == jnp.float32
    np.testing.assert_array_equal(_np(got), want)


def _td_case(rank_a, rank_b, num_dims, dtype, seed):
    """TF's _generate_random_tensors_and_dims on a seeded RandomState: shapes of 1..5, ``num_dims`` random axes of
    each contracted (of a shared size); complex inputs get a random imaginary part too."""
    rng = np.random.RandomState(seed)
    a_shape = rng.randint(1, 6, rank_a)
    b_shape = rng.randint(1, 6, rank_b)
    shared = rng.randint(1, 6, num_dims)
    a_dims = rng.permutation(rank_a)[:num_dims].astype(np.int32)
    b_dims = rng.permutation(rank_b)[:num_dims].astype(np.int32)
    for i in range(num_dims):
        a_shape[a_dims[i]] = shared[i]
        b_shape[b_dims[i]] = shared[i]

    def draw(shape):
        x = rng.uniform(-1.0, 1.0, size=tuple(shape))
        if np.issubdtype(dtype, np.complexfloating):
            x = x + 1j * rng.uniform(-1.0, 1.0, size=tuple(shape))
        return x.astype(dtype)

    return draw(a_shape), draw(b_shape), a_dims.tolist(), b_dims.tolist()


# (rank_a, rank_b, num_dims) as TF's __main__ generates them: ranks 1, 2, 4, 5 and 0..min(rank_a, rank_b) axes
TD_PARAMS = [(ra, rb, nd) for ra in (1, 2, 4, 5) for rb in (1, 2, 4, 5) for nd in range(min(ra, rb) + 1)]

# TF 2.21: (dtype, index into TD_PARAMS) -> (shape, digest) of tf.tensordot(a, b, (a_dims, b_dims)) on _td_case(..., seed=
# 1000 * position of the dtype in DTYPES + index)
TD_EXPECTED = {
    ('float32', 0): ((5, 1), D(0.24255871, 0.171233639, 0.677451782)),
    ('float32', 1): ((), D(0.39524442, 0.39524442, 0.39524442)),
    ('float32', 2): ((1, 1, 4), D(0.0430821963, 0.0133052551, 0.0673448816)),
    ('float32', 3): ((1,), D(0.353190422, 0.353190422, 0.353190422)),
    ('float32', 4): ((3, 2, 1, 1, 3), D(-0.446599036, -1.18499915, 8.9062539)),
    ('float32', 5): ((1, 1, 5), D(2.50157192, 1.07027952, 3.33464262)),
    ('float32', 6): ((3, 2, 4, 5, 3, 3), D(-3.78572831, 2.49874359, 101.935096)),
    ('float32', 7): ((2, 4, 4, 5), D(-5.03725811, 3.62762453, 69.3059331)),
    ('float32', 8): ((4, 5, 2), D(0.087925625, 1.13203258, 9.20118883)),
    ('float32', 9): ((5,), D(-0.201266974, 1.54269856, 2.11069778)),
    ('float32', 10): ((2, 5, 1, 2), D(-1.54032207, -1.64561335, 4.64041307)),
    ('float32', 11): ((1, 2), D(-3.70649159, -3.27444798, 3.70649159)),
    ('float32', 12): ((), D(-1.82827818, -1.82827818, 1.82827818)),
    ('float32', 13): ((3, 1, 3, 1, 3, 5), D(-0.620630362, -1.06774202, 22.2132654)),
    ('float32', 14): ((4, 5, 2, 5), D(3.21844984, 1.45504689, 77.2785359)),
    ('float32', 15): ((1, 4), D(-1.70044021, -1.15281943, 2.19680761)),
    ('float32', 16): ((2, 2, 2, 4, 5, 5, 2), D(7.4783368, 5.26578511, 554.635514)),
    ('float32', 17): ((2, 1, 5, 5, 5), D(3.07792832, -6.42494636, 96.6391602)),
    ('float32', 18): ((1, 3, 1), D(0.401039749, 0.220383569, 0.401039749)),
    ('float32', 19): ((3, 1, 4, 5, 3), D(1.13765918, -0.820982491, 50.5427545)),
    ('float32', 20): ((3, 5, 3), D(-6.31354067, -1.07847409, 36.9787602)),
    ('float32', 21): ((2, 1, 5, 1, 1, 1), D(-0.978192307, 0.277296636, 4.49778447)),
    ('float32', 22): ((5, 5, 5, 4), D(0.641614522, 6.51150484, 150.394467)),
    ('float32', 23): ((2, 1), D(0.208621979, -0.029884151, 1.81985521)),
    ('float32', 24): ((3, 4, 1, 2, 2, 2, 5, 4), D(-6.26980157, 7.89910534, 417.817317)),
    ('float32', 25): ((3, 5, 3, 1, 5, 2), D(5.42180581, 5.99413041, 250.770703)),
    ('float32', 26): ((1, 4, 5, 3), D(5.49791854, 1.63597718, 51.1353205)),
    ('float32', 27): ((1, 1), D(-1.00095499, -1.00095499, 1.00095499)),
    ('float32', 28): ((), D(0.196758211, 0.196758211, 0.196758211)),
    ('float32', 29): ((4, 5, 3, 1, 1, 2, 2, 1, 4), D(1.22050128, -4.19047537, 291.819709)),
    ('float32', 30): ((5, 3, 4, 2, 2, 2, 2), D(-9.56631852, -7.61796982, 555.470208)),
    ('float32', 31): ((1, 3, 5, 5, 3), D(-18.7962071, -6.78237425, 177.250877)),
    ('float32', 32): ((4, 5, 3), D(-6.17864131, -13.8725412, 85.9638694)),
    ('float32', 33): ((2,), D(4.16209972, 2.82199357, 7.23540509)),
    ('float32', 34): ((2, 3, 3, 2, 5, 4), D(-6.29308083, -8.33788855, 239.018344)),
    ('float32', 35): ((2, 2, 5, 1), D(-1.06230995, 0.634053358, 8.80152679)),
    ('float32', 36): ((3, 1, 2, 3, 3, 5, 2), D(0.58676179, 3.75727734, 113.329746)),
    ('float32', 37): ((4, 5, 4, 3, 4), D(-13.2580474, -2.0059978, 443.746915)),
    ('float32', 38): ((2, 4, 5), D(4.80793718, 3.1306409, 28.4294865)),
    ('float32', 39): ((2, 2, 2, 1, 5, 4, 4, 1, 5), D(17.1500339, -8.04939932, 856.629544)),
    ('float32', 40): ((4, 1, 3, 2, 3, 4, 3), D(-7.63316666, -13.7046003, 480.7011)),
    ('float32', 41): ((5, 3, 1, 2, 3), D(0.0785433585, -4.12257161, 41.4750849)),
    ('float32', 42): ((5, 5, 3), D(16.0049458, 27.78583, 159.176631)),
    ('float32', 43): ((3,), D(-1.95058233, 0.564574036, 4.78290242)),
    ('float32', 44): ((5, 4, 2, 4, 4, 1, 5, 4, 3, 1), D(-2.07822121, 25.0781854, 9917.12934)),
    ('float32', 45): ((4, 4, 5, 4, 5, 2, 2, 2), D(-52.0281401, -14.473697, 3052.96298)),
    ('float32', 46): ((1, 3, 4, 4, 1, 4), D(15.4471876, 0.101071916, 96.1726393)),
    ('float32', 47): ((1, 4, 2, 3), D(-1.71426852, 6.53086772, 38.0436033)),
    ('float32', 48): ((2, 3), D(-8.72767256, 5.30537699, 16.1929469)),
    ('float32', 49): ((), D(4.4496727, 4.4496727, 4.4496727)),
    ('float16', 0): ((4, 1), D(-0.950683594, -1.18520166, 2.07275391)),
    ('float16', 10): ((5, 1, 3, 3), D(0.348926663, 0.282045908, 4.97747982)),
    ('float16', 20): ((2, 5, 1), D(-2.9552002, 1.46222955, 8.73278809)),
    ('float16', 30): ((2, 2, 2, 1, 1, 2, 4), D(-0.669337034, -2.3567677, 10.4581668)),
    ('float16', 40): ((1, 5, 5, 5, 5, 2, 5), D(-180.477945, 26.318383, 3812.46444)),
    ('float16', 49): ((), D(1.37402344, 1.37402344, 1.37402344)),
    ('float64', 0): ((1, 4), D(0.287446341, 0.141094415, 0.439934014)),
    ('float64', 10): ((1, 1, 2, 4), D(0.284498911, -0.115352973, 0.795690495)),
    ('float64', 20): ((1, 1, 4), D(-0.151836885, -0.246702274, 1.42254127)),
    ('float64', 30): ((4, 5, 4, 4, 2, 2, 3), D(14.7786949, -6.68521295, 891.194644)),
    ('float64', 40): ((2, 3, 4, 3, 3, 3, 1), D(-5.59189833, 1.00246562, 201.295249)),
    ('float64', 49): ((), D(3.39932509, 3.39932509, 3.39932509)),
    ('complex64', 0): ((5, 4), (D(-0.669855872, -1.00652864, 5.34362325), D(0.620237678, -0.111920353, 5.35810177))),
    ('complex64', 10): ((4, 2, 4, 1), (D(2.2782616, -0.90113016, 16.3973407), D(-2.32412107, -3.23375423, 15.7656425))),
    ('complex64', 20): ((3, 5, 5), (D(2.11176245, -0.0580288216, 20.198214), D(-3.29643789, 1.97067734, 17.5885539))),
    ('complex64', 30): ((4, 5, 3, 4, 1, 2, 3), (D(-39.4040677, 56.6688763, 1164.17232), D(-11.8234499, 7.71297831, 1184.06976))),
    ('complex64', 40): ((5, 2, 2, 3, 2, 3, 5), (D(-21.6317335, 12.1454119, 989.089409), D(4.56252866, -13.7294665, 1007.70895))),
    ('complex64', 49): ((), (D(-1.41075718, -1.41075718, 1.41075718), D(1.16963613, 1.16963613, 1.16963613))),
    ('complex128', 0): ((3, 5), (D(-0.522023208, 2.31397101, 3.66129276), D(2.74790493, 2.29231768, 6.77342491))),
    ('complex128', 10): ((5, 1, 5, 3), (D(0.483026052, 8.08075074, 21.6499246), D(1.45181473, 4.17978794, 23.3188153))),
    ('complex128', 20): ((4, 2, 2), (D(0.453467029, -2.49458906, 7.02529802), D(-1.31938248, -2.84790893, 9.55405622))),
    ('complex128', 30): ((4, 4, 4, 2, 5, 1, 2), (D(-10.6585024, -0.703285256, 419.522962), D(35.2527673, -3.90731624, 415.456081))),
    ('complex128', 40): ((1, 2, 3, 2, 4, 5, 2), (D(4.36108048, -2.60188182, 165.444317), D(-8.77401886, 3.69909691, 164.304418))),
    ('complex128', 49): ((), (D(14.0438986, 14.0438986, 14.0438986), D(-4.71435597, -4.71435597, 4.71435597))),
}


def _td_ids():
    return [f"{name}-{TD_PARAMS[i][0]}-{TD_PARAMS[i][1]}-{TD_PARAMS[i][2]}" for name, i in TD_EXPECTED]


@pytest.mark.parametrize("name,index", list(TD_EXPECTED), ids=_td_ids())
def test_tensordot(name, index):
    """TensordotTest.test_tensordot_<dtype>_<rank_a>_<rank_b>_<num_dims>_False: tf.tensordot of random tensors
    over random pairs of axes, against TF 2.21's values on the same inputs (TF's own test compares with NumPy)."""
    dtype = DTYPES[name]
    ra, rb, nd = TD_PARAMS[index]
    a, b, a_dims, b_dims = _td_case(ra, rb, nd, dtype, 1000 * list(DTYPES).index(name) + index)
    shape, want = TD_EXPECTED[(name, index)]
    with _x64(dtype):
        got = tnp.tensordot(a, b, (a_dims, b_dims))
        assert got.shape == shape
        assert got.dtype == np.dtype(dtype)
        _close(got, want, TOL[name])


def _scalar_case(nd, dtype, seed):
    """TF's test_tensordot_scalar_axes inputs: two tensors of shape [5] * nd, uniform in [-1, 1)."""
    rng = np.random.RandomState(seed)

    def draw():
        x = rng.uniform(-1.0, 1.0, size=[5] * nd)
        if np.issubdtype(dtype, np.complexfloating):
            x = x + 1j * rng.uniform(-1.0, 1.0, size=[5] * nd)
        return x.astype(dtype)

    return draw(), draw()


# TF 2.21: (dtype, nd, axes) -> (shape, digest) of tf.tensordot(a, b, axes=axes) on
# _scalar_case(nd, dtype, 5000 + 100 * position of the dtype in DTYPES + 10 * nd + axes)
SCALAR_AXES_EXPECTED = {
    ('float32', 1, 0): ((5, 5), D(-4.67883788, -2.06653934, 10.4696337)),
    ('float32', 1, 1): ((), D(1.09936965, 1.09936965, 1.09936965)),
    ('float32', 2, 0): ((5, 5, 5, 5), D(-7.8907476, 4.1186026, 193.536325)),
    ('float32', 2, 1): ((5, 5), D(-0.434635643, -4.64476976, 11.9440448)),
    ('float32', 3, 0): ((5, 5, 5, 5, 5, 5), D(-9.26253947, -31.3573207, 3846.09101)),
    ('float32', 3, 1): ((5, 5, 5, 5), D(-3.37031787, -10.7035901, 404.667395)),
    ('float32', 3, 2): ((5, 5), D(6.35247882, -1.78834117, 32.9913665)),
    ('float32', 4, 0): ((5, 5, 5, 5, 5, 5, 5, 5), D(72.3956265, -50.4428519, 103490.358)),
    ('float32', 4, 1): ((5, 5, 5, 5, 5, 5), D(-70.9352099, 158.497037, 9373.05132)),
    ('float32', 4, 3): ((5, 5), D(20.2597303, -4.48653416, 66.3376675)),
    ('float32', 5, 1): ((5, 5, 5, 5, 5, 5, 5, 5), D(-668.504401, 59.1071985, 232479.245)),
    ('float32', 5, 4): ((5, 5), D(-2.74581194, 17.5848651, 148.649628)),
    ('float16', 2, 0): ((5, 5, 5, 5), D(-10.771914, -5.08611042, 154.156394)),
    ('float16', 2, 1): ((5, 5), D(3.69873047, -1.86141592, 8.09051514)),
    ('float64', 2, 0): ((5, 5, 5, 5), D(0.78545245, 3.18618824, 182.222426)),
    ('float64', 2, 1): ((5, 5), D(0.58014805, 0.241718839, 11.8387014)),
    ('complex64', 2, 0): ((5, 5, 5, 5), (D(-0.976873277, 3.07520099, 242.976733), D(18.9705132, 0.727954636, 226.729396))),
    ('complex64', 2, 1): ((5, 5), (D(5.95311013, 3.07943887, 18.9907099), D(6.13160281, 0.810205123, 24.3659246))),
    ('complex128', 2, 0): ((5, 5, 5, 5), (D(-2.60774479, -13.9970071, 219.22717), D(-10.0616561, 0.924070115, 219.682993))),
    ('complex128', 2, 1): ((5, 5), (D(-4.30831312, -2.66462211, 22.6208459), D(5.2265416, 0.489241984, 24.9206684))),
}


@pytest.mark.parametrize("name,nd,axes", list(SCALAR_AXES_EXPECTED))
def test_tensordot_scalar_axes(name, nd, axes):
    """TensordotTest.test_tensordot_scalar_axes_<dtype>_..._False: an int ``axes`` (0, 1 and ndim - 1) on two
    tensors of shape [5] * nd."""
    dtype = DTYPES[name]
    a, b = _scalar_case(nd, dtype, 5000 + 100 * list(DTYPES).index(name) + 10 * nd + axes)
    shape, want = SCALAR_AXES_EXPECTED[(name, nd, axes)]
    with _x64(dtype):
        got = tnp.tensordot(a, b, axes=axes)
        assert got.shape == shape
        _close(got, want, TOL[name])


# TF 2.21: (dtype, index into TD_PARAMS) -> digests of tape.gradient(tf.tensordot(a, b, (a_dims, b_dims)), [a, b],
# output_gradients=w) on _td_case(..., seed=7000 + index), w uniform in [-1, 1) (complex: plus 1j * uniform) of the
# output's shape from RandomState(8000 + index)
GRAD_EXPECTED = {
    ('float32', 7): (D(24.1719998, -6.08777572, 24.1719998), D(16.1673286, 13.8087077, 423.242977)),
    ('float32', 20): (D(0.81982248, 0.302467129, 3.00541238), D(0.754819036, 0.754819036, 0.754819036)),
    ('float32', 33): (D(-1.82588, -1.16397118, 9.13276354), D(4.41220943, 1.01798684, 9.38044381)),
    ('float32', 45): (D(-96.0534849, -48.7511341, 3432.92736), D(505.561006, 140.006384, 4599.71712)),
    ('complex64', 20): ((D(-1.93268131, -1.0991858, 12.4988604), D(2.92019054, 0.219830421, 11.8308586)), (D(-1.07908654, -1.07908654, 1.07908654), D(-1.75029445, -1.75029445, 1.75029445))),
}


@pytest.mark.parametrize("name,index", list(GRAD_EXPECTED))
def test_tensordot_gradient(name, index):
    """Extends TensordotTest.test_tensordot (which checks values only) to gradients: TF 2.21's tape gradient of the
    same program with a random output gradient (complex64: TF's conjugate convention, API.md)."""
    dtype = DTYPES[name]
    ra, rb, nd = TD_PARAMS[index]
    a, b, a_dims, b_dims = _td_case(ra, rb, nd, dtype, 7000 + index)
    out_shape = np.tensordot(a, b, (a_dims, b_dims)).shape
    rng = np.random.RandomState(8000 + index)
    w = rng.uniform(-1, 1, size=out_shape)
    if np.issubdtype(dtype, np.complexfloating):
        w = w + 1j * rng.uniform(-1, 1, size=out_shape)
    w = w.astype(dtype)
    ta, tb = tj.constant(a), tj.constant(b)
    with tj.GradientTape() as tape:
        tape.watch([ta, tb])
        y = tnp.tensordot(ta, tb, (a_dims, b_dims))
    ga, gb = tape.gradient(y, [ta, tb], output_gradients=tj.constant(w))
    want_a, want_b = GRAD_EXPECTED[(name, index)]
    assert ga.shape == a.shape and gb.shape == b.shape
    _close(ga, want_a, 1e-5)
    _close(gb, want_b, 1e-5)


def test_tensordot_jvp():
    """Extends TensordotTest.test_tensordot to forward mode: TF 2.21's ForwardAccumulator JVP of tf.tensordot for
    TD_PARAMS[33] (ranks 4 and 5, 4 contracted axes) on _td_case(..., seed=9033), tangents uniform in [-1, 1)
    from RandomState(9034) (a's, then b's). TF: output shape (3,), JVP digest below."""
    ra, rb, nd = TD_PARAMS[33]
    a, b, a_dims, b_dims = _td_case(ra, rb, nd, F32, 9033)
    rng = np.random.RandomState(9034)
    da = rng.uniform(-1, 1, a.shape).astype(F32)
    db = rng.uniform(-1, 1, b.shape).astype(F32)
    ta, tb = tj.constant(a), tj.constant(b)
    with tj.ForwardAccumulator([ta, tb], [tj.constant(da), tj.constant(db)]) as acc:
        y = tnp.tensordot(ta, tb, (a_dims, b_dims))
    jvp = acc.jvp(y)
    assert jvp.shape == (3,)
    close_to_tf(jvp, D(10.9596181, 4.73534474, 10.9596181), 1e-5)


# -- trace_op_test.py ----------------------------------------------------------------------------------------------

TRACE_SHAPES = [[2, 2], [2, 3], [3, 2], [2, 3, 2], [2, 2, 2, 3]]
# TF 2.21: tf.linalg.trace(x) (over the last two axes) for x from _trace_input(dtype, k), k indexing TRACE_SHAPES
TRACE_EXPECTED = {
    "int32": [9, -7, -14, [12, 3], [[-4, 6], [-1, -5]]],
    "float32": [0.7418982982635498, 1.054935336112976, 1.3759205341339111, [1.5610402822494507, 0.7747443914413452],
                [[0.7638106346130371, 0.7912827730178833], [0.7241305708885193, 1.118269443511963]]],
    "float64": [0.7418982724664724, 1.054935381537316, 1.3759204683445085, [1.5610402828904217, 0.7747444038630489],
                [[0.7638106185204687, 0.7912827755094294], [0.7241305534196398, 1.1182695063752122]]],
}


def _trace_input(dtype, k):
    rng = np.random.RandomState(300 + k)
    shape = TRACE_SHAPES[k]
    if dtype == np.int32:  # TF's np.random.rand(...).astype(int32) is all zeros; small random ints instead
        return rng.randint(-9, 10, size=shape).astype(dtype)
    return rng.rand(*shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.int32, F32, F64])
def test_trace(dtype):
    """TraceTest.testTrace: tf.linalg.trace, the sum of the diagonal of the last two axes, of int32, float32 and
    float64 tensors of shapes [2, 2], [2, 3], [3, 2], [2, 3, 2], [2, 2, 2, 3]; here trace(x, axis1=-2, axis2=-1)
    (jax.numpy's default axes are the first two). TF keeps the input's dtype."""
    name = np.dtype(dtype).name
    with _x64(dtype):
        for k in range(len(TRACE_SHAPES)):
            got = tnp.trace(_trace_input(dtype, k), axis1=-2, axis2=-1)
            want = np.asarray(TRACE_EXPECTED[name][k])
            assert got.dtype == np.dtype(dtype)
            assert got.shape == want.shape
            if dtype == np.int32:
                np.testing.assert_array_equal(_np(got), want)
            else:
                np.testing.assert_allclose(_np(got), want, rtol=1e-6 if dtype == F32 else 1e-14)


def test_trace_gradient_and_jvp():
    """Extends TraceTest.testTrace to derivatives: the [2, 2, 2, 3] float32 input of test_trace (k = 4). TF 2.21:
    tape.gradient(tf.linalg.trace(x), x, output_gradients=[[1.5, -2], [0.25, 3]]) puts each output gradient on the
    diagonal of its (2, 3) matrix; the ForwardAccumulator JVP with tangent arange(24).reshape(x.shape) is
    [[4, 16], [28, 40]]."""
    x = tj.constant(_trace_input(F32, 4))
    w = np.array([[1.5, -2.0], [0.25, 3.0]], np.float32)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.trace(x, axis1=-2, axis2=-1)
    g = tape.gradient(y, x, output_gradients=w)
    want = [[[[1.5, 0.0, 0.0], [0.0, 1.5, 0.0]], [[-2.0, 0.0, 0.0], [0.0, -2.0, 0.0]]],
            [[[0.25, 0.0, 0.0], [0.0, 0.25, 0.0]], [[3.0, 0.0, 0.0], [0.0, 3.0, 0.0]]]]
    np.testing.assert_array_equal(_np(g), np.array(want, np.float32))
    with tj.ForwardAccumulator(x, tj.constant(np.arange(24, dtype=np.float32).reshape(2, 2, 2, 3))) as acc:
        y = tnp.trace(x, axis1=-2, axis2=-1)
    np.testing.assert_array_equal(_np(acc.jvp(y)), np.array([[4.0, 16.0], [28.0, 40.0]], np.float32))


# -- cross_grad_test.py, compiler/tests/binary_ops_test.py -----------------------------------------------------------

_U = [[0.854, -0.616, 0.767], [0.725, -0.927, 0.159]]
_V = [[-0.522, 0.755, 0.407], [-0.652, 0.241, 0.247]]
# TF 2.21: tape.jacobian(tf.linalg.cross(u, v), u) and (..., v), laid out (output element, input element); TF's
# gradient checker's theoretical Jacobians are their transposes and agree with its numeric ones to 3e-5
_JU = [[0.0, 0.407, -0.755, 0.0, 0.0, 0.0], [-0.407, 0.0, -0.522, 0.0, 0.0, 0.0],
       [0.755, 0.522, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.247, -0.241],
       [0.0, 0.0, 0.0, -0.247, 0.0, -0.652], [0.0, 0.0, 0.0, 0.241, 0.652, 0.0]]
_JV = [[0.0, -0.767, -0.616, 0.0, 0.0, 0.0], [0.767, 0.0, -0.854, 0.0, 0.0, 0.0],
       [0.616, 0.854, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, -0.159, -0.927],
       [0.0, 0.0, 0.0, 0.159, 0.0, -0.725], [0.0, 0.0, 0.0, 0.927, 0.725, 0.0]]


def test_cross_gradient_random_values():
    """CrossOpTest.testGradientRandomValues: the Jacobians of tf.linalg.cross(u, v) for the (2, 3) u and v above,
    by tape.jacobian (vectorized and not) and by tape.gradient with an output gradient, and a ForwardAccumulator
    JVP, against TF 2.21's."""
    u, v = tj.constant(_U), tj.constant(_V)
    for pfor in (True, False):
        with tj.GradientTape(persistent=True) as tape:
            tape.watch([u, v])
            s = tnp.cross(u, v)
        ju = tape.jacobian(s, u, experimental_use_pfor=pfor)
        jv = tape.jacobian(s, v, experimental_use_pfor=pfor)
        np.testing.assert_allclose(_np(ju).reshape(6, 6), np.array(_JU, np.float32), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(_np(jv).reshape(6, 6), np.array(_JV, np.float32), rtol=1e-6, atol=1e-7)
    # TF 2.21: s, and tape.gradient(s, [u, v], output_gradients=w)
    np.testing.assert_allclose(_np(s), [[-0.8297970294952393, -0.7479519844055176, 0.3232179582118988],
                                        [-0.2672879993915558, -0.28274300694465637, -0.4296789765357971]], rtol=1e-6)
    w = [[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]]
    with tj.GradientTape() as tape:
        tape.watch([u, v])
        s = tnp.cross(u, v)
    gu, gv = tape.gradient(s, [u, v], output_gradients=w)
    np.testing.assert_allclose(_np(gu), [[1.191499948501587, 0.6679999828338623, 0.2890000343322754],
                                         [-0.30274999141693115, 0.08899998664855957, -0.8859999775886536]],
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(gv), [[-1.2260000705718994, -0.3400000333786011, 1.0920000076293945],
                                         [-0.8872500061988831, -1.2020000219345093, -2.962249994277954]],
                               rtol=1e-5, atol=1e-6)
    tu = tj.constant([[0.1, 0.2, 0.3], [-0.4, 0.5, -0.6]])
    tv = tj.constant([[1.0, 0.0, -1.0], [0.5, 0.5, 2.0]])
    with tj.ForwardAccumulator([u, v], [tu, tv]) as acc:
        s = tnp.cross(u, v)
    np.testing.assert_allclose(_np(acc.jvp(s)), [[0.4708999991416931, 1.4237000942230225, 0.7958999872207642],
                                                 [-1.6653999090194702, -0.880500078201294, 1.0555999279022217]],
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [F16, jnp.bfloat16, F32, F64], ids=["float16", "bfloat16", "float32", "float64"])
def test_cross_values(dtype):
    """BinaryOpsTest.testCross (compiler/tests/binary_ops_test.py) for each float type. TF 2.21: cross of zeros
    (4, 3) is zeros; cross([1, 2, 3], [4, 5, 6]) = [-3, 6, -3]; cross([[1, 2, 3], [10, 11, 12]], [[4, 5, 6],
    [40, 50, 60]]) = [[-3, 6, -3], [60, -120, 60]]; each in the input dtype."""
    with _x64(dtype):
        cases = [(np.zeros((4, 3)), np.zeros((4, 3)), np.zeros((4, 3))),
                 ([1, 2, 3], [4, 5, 6], [-3, 6, -3]),
                 ([[1, 2, 3], [10, 11, 12]], [[4, 5, 6], [40, 50, 60]], [[-3, 6, -3], [60, -120, 60]])]
        for a, b, want in cases:
            got = tnp.cross(np.asarray(a, dtype), np.asarray(b, dtype))
            assert got.dtype == np.dtype(dtype)
            np.testing.assert_array_equal(_np(got).astype(np.float64), np.asarray(want, np.float64))


# -- aggregate_ops_test.py, math_ops_test.py AddNTest / AccumulateNTest, accumulate_n_test.py, accumulate_n_eager_test.py

ADD_N_DTYPES = {"int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64, "bfloat16": jnp.bfloat16,
                "float16": F16, "float32": F32, "float64": F64, "complex64": C64, "complex128": C128}
# TF 2.21: tf.math.add_n of the first 1, 2, ..., 10 of _add_n_data(dtype) (each (2, 2)); complex: (real, imag)
ADD_N_EXPECTED = {  # dtype: TF's add_n of the first 1, 2, ..., 10 inputs
    'int8': [[[0, 0], [0, 0]], [[1, 1], [0, 0]], [[1, 2], [1, -1]], [[1, 2], [2, -1]], [[-1, 2], [3, -1]], [[-1, 2], [6, -2]], [[-1, 2], [6, -2]], [[-1, 3], [6, -2]], [[-3, 2], [6, -2]], [[-4, 2], [5, -2]]],
    'int16': [[[0, 0], [0, 0]], [[1, 1], [0, 0]], [[1, 2], [1, -1]], [[1, 2], [2, -1]], [[-1, 2], [3, -1]], [[-1, 2], [6, -2]], [[-1, 2], [6, -2]], [[-1, 3], [6, -2]], [[-3, 2], [6, -2]], [[-4, 2], [5, -2]]],
    'int32': [[[0, 0], [0, 0]], [[1, 1], [0, 0]], [[1, 2], [1, -1]], [[1, 2], [2, -1]], [[-1, 2], [3, -1]], [[-1, 2], [6, -2]], [[-1, 2], [6, -2]], [[-1, 3], [6, -2]], [[-3, 2], [6, -2]], [[-4, 2], [5, -2]]],
    'int64': [[[0, 0], [0, 0]], [[1, 1], [0, 0]], [[1, 2], [1, -1]], [[1, 2], [2, -1]], [[-1, 2], [3, -1]], [[-1, 2], [6, -2]], [[-1, 2], [6, -2]], [[-1, 3], [6, -2]], [[-3, 2], [6, -2]], [[-4, 2], [5, -2]]],
    'bfloat16': [[[-0.20507812, 0.47851562], [-0.51953125, -0.5546875]], [[1.765625, 1.8671875], [-0.42578125, -0.2734375]], [[2.53125, 3.125], [0.58203125, -1.5703125]], [[2.8125, 3.359375], [1.9375, -0.68359375]], [[0.8125, 2.984375], [3.609375, -1.125]], [[0.2734375, 3.46875], [6.875, -2.15625]], [[-0.3046875, 3.59375], [7.1875, -1.6328125]], [[-0.3046875, 4.9375], [6.46875, -2.46875]], [[-2.6875, 3.078125], [5.625, -1.90625]], [[-3.921875, 3.1875], [4.5, -1.5703125]]],
    'float16': [[[-0.20471191, 0.47900391], [-0.51953125, -0.55566406]], [[1.7607422, 1.8730469], [-0.42675781, -0.27392578]], [[2.5292969, 3.1191406], [0.58007812, -1.5703125]], [[2.8046875, 3.3476562], [1.9326172, -0.68408203]], [[0.80273438, 2.9765625], [3.6015625, -1.1230469]], [[0.26318359, 3.453125], [6.8515625, -2.1445312]], [[-0.31396484, 3.578125], [7.15625, -1.6210938]], [[-0.31298828, 4.921875], [6.4414062, -2.453125]], [[-2.6835938, 3.0625], [5.5820312, -1.8925781]], [[-3.9492188, 3.1796875], [4.515625, -1.5566406]]],
    'float32': [[[-0.20470765, 0.47894335], [-0.51943874, -0.55573028]], [[1.761073, 1.8723491], [-0.42653087, -0.27398413]], [[2.5300956, 3.118784], [0.58065856, -1.5702052]], [[2.8050871, 3.3476968], [1.9335754, -0.68377584]], [[0.80344987, 2.9758542], [3.6026006, -1.1223456]], [[0.26370841, 3.4528391], [6.8515444, -2.143573]], [[-0.31337887, 3.5769603], [7.1541581, -1.619801]], [[-0.31243861, 4.9207702], [6.4406142, -2.4509544]], [[-2.6826701, 3.0600095], [5.5798569, -1.8908091]], [[-3.9486046, 3.1798368], [4.5163445, -1.5579267]]],
    'float64': [[[-0.204707659484713, 0.478943338057548], [-0.519438715056738, -0.55573030434749]], [[1.761072913018, 1.87234917103054], [-0.42653083831302, -0.273984151517288]], [[2.53009548062984, 3.11878390741682], [0.580658519269984, -1.57020526062955]], [[2.80508711406196, 3.34769678635214], [1.93357535443543, -0.683775920037962]], [[0.803449804401567, 2.97585424921188], [3.6026006639603, -1.12234565587353]], [[0.263708358879904, 3.45283925962418], [6.85154458339106, -2.14357318022913]], [[-0.313378944160863, 3.57696053529759], [7.15415814530357, -1.61980111207871]], [[-0.31243866638553, 4.92077032891172], [6.44061416020719, -2.45095465093263]], [[-2.68267032034228, 3.06000954036099], [5.57985676177544, -1.89080935790459]], [[-3.94860481203597, 3.17983666502154], [4.5163443137219, -1.55792664229692]]],
    'complex64': ([[[-0.20470765, 0.47894335], [-0.51943874, -0.55573028]], [[1.761073, 1.8723491], [-0.42653087, -0.27398413]], [[2.5300956, 3.118784], [0.58065856, -1.5702052]], [[2.8050871, 3.3476968], [1.9335754, -0.68377584]], [[0.80344987, 2.9758542], [3.6026006, -1.1223456]], [[0.26370841, 3.4528391], [6.8515444, -2.143573]], [[-0.31337887, 3.5769603], [7.1541581, -1.619801]], [[-0.31243861, 4.9207702], [6.4406142, -2.4509544]], [[-2.6826701, 3.0600095], [5.5798569, -1.8908091]], [[-3.9486046, 3.1798368], [4.5163445, -1.5579267]]],
        [[[-2.0470765, 4.7894335], [-5.1943874, -5.557303]], [[17.610729, 18.723492], [-4.2653089, -2.7398415]], [[25.300955, 31.18784], [5.8065848, -15.702053]], [[28.050871, 33.476967], [19.335752, -6.837759]], [[8.0344982, 29.758541], [36.026005, -11.223456]], [[2.6370835, 34.528393], [68.515442, -21.43573]], [[-3.1337895, 35.769608], [71.54158, -16.198009]], [[-3.1243868, 49.207706], [64.406143, -24.509544]], [[-26.826702, 30.600098], [55.798569, -18.908091]], [[-39.486046, 31.798365], [45.163441, -15.579264]]]),
    'complex128': ([[[-0.204707659484713, 0.478943338057548], [-0.519438715056738, -0.55573030434749]], [[1.761072913018, 1.87234917103054], [-0.42653083831302, -0.273984151517288]], [[2.53009548062984, 3.11878390741682], [0.580658519269984, -1.57020526062955]], [[2.80508711406196, 3.34769678635214], [1.93357535443543, -0.683775920037962]], [[0.803449804401567, 2.97585424921188], [3.6026006639603, -1.12234565587353]], [[0.263708358879904, 3.45283925962418], [6.85154458339106, -2.14357318022913]], [[-0.313378944160863, 3.57696053529759], [7.15415814530357, -1.61980111207871]], [[-0.31243866638553, 4.92077032891172], [6.44061416020719, -2.45095465093263]], [[-2.68267032034228, 3.06000954036099], [5.57985676177544, -1.89080935790459]], [[-3.94860481203597, 3.17983666502154], [4.5163443137219, -1.55792664229692]]],
        [[[-2.04707659484713, 4.78943338057548], [-5.19438715056738, -5.5573030434749]], [[17.61072913018, 18.7234917103054], [-4.2653083831302, -2.73984151517288]], [[25.3009548062984, 31.1878390741682], [5.80658519269984, -15.7020526062955]], [[28.0508711406196, 33.4769678635214], [19.3357535443543, -6.83775920037962]], [[8.03449804401567, 29.7585424921188], [36.0260066396031, -11.2234565587353]], [[2.63708358879904, 34.5283925962418], [68.5154458339106, -21.4357318022913]], [[-3.13378944160863, 35.7696053529759], [71.5415814530357, -16.1980111207871]], [[-3.1243866638553, 49.2077032891172], [64.4061416020719, -24.5095465093263]], [[-26.8267032034228, 30.6000954036099], [55.7985676177544, -18.9080935790459]], [[-39.4860481203597, 31.7983666502154], [45.163443137219, -15.5792664229692]]]),
}


def _add_n_data(dtype):
    """TF's _buildData: randn (2, 2) cast to the dtype (ints truncate), complex ones plus 10j times that, ten of
    them from RandomState(12345)."""
    rng = np.random.RandomState(12345)
    data = [rng.randn(2, 2).astype(dtype) for _ in range(10)]
    if np.issubdtype(np.dtype(dtype), np.complexfloating):
        data = [d + 10j * d for d in data]
    return data


# TF's assertAllCloseAccordingToType: half_rtol/atol 5e-3 (set by the test), others 1e-6. bfloat16 (TF: 1e-2) gets
# 2 ulps of the largest sum (0.0625 near 4.5): TF's CPU kernel adds the first N mod 8 inputs, then 8 at a time,
# rounding to bfloat16 after each add, tapejax adds in order, and with 8 significant bits the two orders differ by
# up to 2 ulps (N = 10: TF 4.5, a sequential sum, as NumPy's, 4.5625; the exact sum of the inputs is 4.5205)
ADD_N_TOL = {"float16": 5e-3, "bfloat16": 6.25e-2, "float32": 1e-6, "complex64": 1e-6, "float64": 1e-12,
             "complex128": 1e-12}


@pytest.mark.parametrize("name", list(ADD_N_DTYPES))
def test_add_n(name):
    """AddNTest.testAddN (aggregate_ops_test.py): add_n of N = 1..10 (2, 2) tensors (TF's kernel special-cases
    N mod 8) in every dtype TF's CPU kernel supports, against TF 2.21's sums; the result keeps the dtype. All ten
    N for float32 and int32, N in (1, 2, 5, 9, 10) for the other dtypes, to keep the file fast."""
    dtype = ADD_N_DTYPES[name]
    data = _add_n_data(dtype)
    want = ADD_N_EXPECTED[name]
    counts = range(1, 11) if name in ("float32", "int32") else (1, 2, 5, 9, 10)
    with _x64(dtype):
        for count in counts:
            got = tnp.add_n([tj.constant(d) for d in data[:count]])
            assert got.dtype == np.dtype(dtype) and got.shape == (2, 2)
            g = _np(got)
            if name.startswith("int"):
                np.testing.assert_array_equal(g, np.asarray(want[count - 1]))
            elif name.startswith("complex"):
                tol = ADD_N_TOL[name]
                np.testing.assert_allclose(g.real, want[0][count - 1], rtol=tol, atol=tol)
                np.testing.assert_allclose(g.imag, want[1][count - 1], rtol=tol, atol=tol)
            else:
                tol = ADD_N_TOL[name]
                np.testing.assert_allclose(g.astype(np.float64), want[count - 1], rtol=min(tol, 1e-2), atol=tol)


def test_add_n_partials():
    """AddNTest.testPartials (math_ops_test.py; a buffer-forwarding bug in TF's AddN): 98 add_n([1]) and one
    add_n([1, 1]), summed by add_n, plus 0. TF 2.21: 100, int32."""
    partials = [tnp.add_n([tj.constant(1)]) for _ in range(98)]
    partials.append(tnp.add_n([tj.constant(1), tj.constant(1)]))
    res = tnp.add_n(partials) + tj.constant(0)
    assert res.dtype == jnp.int32
    assert int(res.numpy()) == 100


def test_add_n_iterable():
    """AddNTest.test_iterable (math_ops_test.py): add_n of a generator of 1, 2 and of {"a": 1, "b": 2}.values().
    TF 2.21: 3 and 3."""
    def fn():
        yield 1
        yield 2

    assert int(tnp.add_n(fn()).numpy()) == 3
    assert int(tnp.add_n({"a": 1, "b": 2}.values()).numpy()) == 3


def test_add_n_minimal_eager_mode():
    """AccumulateNV2EagerTest.testMinimalEagerMode: accumulate_n([40, 2]) of int32 constants. TF 2.21: 42."""
    answer = tnp.add_n([tj.constant(40), tj.constant(2)])
    assert answer.dtype == jnp.int32 and int(answer.numpy()) == 42


# TF 2.21 (add_n and accumulate_n agree exactly): n -> (digest of add_n(x), digest of add_n([x[0]] * n)), x drawn in
# turn for n = 1, 5, 9 (float64, random_sample((1, 2, 3, 4, 5)) - 0.5, RandomState(12345)) and n = 1, 6, 9 (int64,
# randint(-128, 128, (5, 4, 3, 2, 1)), RandomState(54321))
ADD_N_FLOAT = {
    1: (D(5.74114293775, 3.07088746788, 29.2826752584), D(5.74114293775, 3.07088746788, 29.2826752584)),
    5: (D(0.559908246094, -0.146067342656, 63.5516965476), D(-15.3332152523, 15.630829799, 152.826043699)),
    9: (D(-8.9616509081, -0.975777546197, 71.520691529), D(-16.2437321495, 0.926185880634, 260.287216511)),
}
ADD_N_INT = {
    1: (D(-447, -911.613184067, 8035), D(-447, -911.613184067, 8035)),
    6: (D(-302, 2886.40925331, 16338), D(-78, -2761.39275397, 44802)),
    9: (D(1209, 1621.87887373, 22739), D(-4644, -3053.79742358, 69696)),
}


def test_add_n_float():
    """AddNTest.testFloat (math_ops_test.py), AccumulateNTest.testFloat, AccumulateNV2Test.testFloat and
    AccumulateNV2EagerTest.testFloat (accumulate_n of 5 inputs): float64 tensors of shape (1, 2, 3, 4, 5), the
    sum of n of them and of n copies of the first, against TF 2.21's digests; float64 under x64."""
    rng = np.random.RandomState(12345)
    with jax.enable_x64(True):
        for n, (want, want_first) in ADD_N_FLOAT.items():
            x = [rng.random_sample((1, 2, 3, 4, 5)) - 0.5 for _ in range(n)]
            tx = [tj.constant(v) for v in x]
            got = tnp.add_n(tx)
            assert got.dtype == np.float64 and got.shape == (1, 2, 3, 4, 5)
            close_to_tf(got, want, 1e-11)
            close_to_tf(tnp.add_n([tx[0]] * n), want_first, 1e-11)


def test_add_n_int():
    """AddNTest.testInt (math_ops_test.py), AccumulateNTest.testInt and AccumulateNV2Test.testInt (6 inputs):
    int64 tensors of shape (5, 4, 3, 2, 1) (NumPy's randint), exact sums, against TF 2.21's digests."""
    rng = np.random.RandomState(54321)
    with jax.enable_x64(True):
        for n, (want, want_first) in ADD_N_INT.items():
            x = [rng.randint(-128, 128, (5, 4, 3, 2, 1)).astype(np.int64) for _ in range(n)]
            tx = [tj.constant(v) for v in x]
            got = tnp.add_n(tx)
            assert got.dtype == np.int64
            np.testing.assert_array_equal(_np(got), sum(x))  # integers: TF's sums are exact (its test: assertAllEqual)
            close_to_tf(got, want, 1e-12)
            close_to_tf(tnp.add_n([tx[0]] * n), want_first, 1e-12)


@pytest.mark.parametrize("mode", ["tape", "function"])
def test_add_n_grad(mode):
    """AddNTest.testGrad (math_ops_test.py; tape.gradient eagerly) and AccumulateNV2Test.testGrad (tf.gradients in
    a graph: here tj.gradients inside a tj.function), AccumulateNV2EagerTest.testGrad (3 inputs): the gradient of
    add_n of n = 1..9 float32 Variables (10 * random) with respect to each. TF 2.21: [1.0] * n."""
    rng = np.random.RandomState(42)
    for n in (range(1, 10) if mode == "tape" else (1, 3, 9)):
        input_vars = [tj.Variable(np.float32(10.0 * rng.random_sample())) for _ in range(n)]
        if mode == "tape":
            with tj.GradientTape() as tape:
                tape.watch(input_vars)
                addn = tnp.add_n(input_vars)
            grads = tape.gradient(addn, input_vars)
        else:
            @tj.function
            def f():
                return tj.gradients(tnp.add_n(input_vars), input_vars)

            grads = f()
        assert [float(g.numpy()) for g in grads] == [1.0] * n


def test_accumulate_n_simple():
    """AccumulateNV2Test.testSimple: twenty float32 (16, 16, 16, 16) tensors (rand, RandomState(2024)). TF 2.21
    (accumulate_n and add_n agree exactly): digest below."""
    rng = np.random.RandomState(2024)
    arrays = [rng.rand(16, 16, 16, 16).astype(np.float32) for _ in range(20)]
    got = tnp.add_n([tj.constant(a) for a in arrays])
    assert got.dtype == jnp.float32
    close_to_tf(got, D(654901.1698, 56.71526577, 654901.1698), 1e-6)


def test_accumulate_n_zero_args():
    """AccumulateNV2Test.testZeroArgs: accumulate_n([]). TF 2.21: ValueError ("inputs must be a list of at least
    one Tensor"); tf.add_n([]) too."""
    with pytest.raises(ValueError):
        tnp.add_n([])


def test_accumulate_n_incompatible_shapes():
    """AccumulateNV2Test.testIncompatibleShapes: Variables of shapes (2,) and (2, 1). TF 2.21: accumulate_n raises
    ValueError ("Shapes (2,) and (2, 1) are not compatible"), add_n InvalidArgumentError (ValueError here)."""
    a = tj.Variable(np.array([0.1, 0.2], np.float32))
    b = tj.Variable(np.array([[0.3], [0.4]], np.float32))
    with pytest.raises(ValueError):
        tnp.add_n([a, b])
