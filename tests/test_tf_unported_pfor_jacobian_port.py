"""TensorFlow's pfor op tests, ported as Jacobians: tensorflow/python/ops/parallel_for/math_test.py (MathTest,
LinalgTest; stored version 3dabb79) and array_test.py (ArrayTest; stored version 2eb0e75). gradients_test.py is
ported in test_tf_jacobian_port.py.

TF's tests vectorize a loop body with pfor and compare it with a while loop. tapejax has no pfor API; what it
vectorizes is ``tape.jacobian(..., experimental_use_pfor=True)`` / ``tape.batch_jacobian``: one batched backward
pass. So each op family of those files becomes: the Jacobian of the op's output w.r.t. its float input(s) by the
vectorized jacobian, by the row-by-row one (``experimental_use_pfor=False`` on a persistent tape), and TF 2.21's
``tape.jacobian`` values (hard-coded, tiny seeded inputs), all three compared; the batch_jacobian of each op that
acts per example, both ways, against TF 2.21's; a few of them computed inside ``tj.function``; and for the
non-differentiable ops, TF's None (UnconnectedGradients.NONE) / zeros (ZERO). TF values: ``Diag`` is an
elementwise op's diagonal (TF's off-diagonal entries are exactly 0), ``D`` a digest (conftest) of a larger
Jacobian; TF's batch_jacobian equals its full Jacobian's per-example blocks (checked when recording), which the
tests take where the full one is listed.

TF ops -> tj: math_ops.X -> tj.numpy's NumPy name (acos -> arccos, atan2 -> arctan2, reciprocal/inv ->
reciprocal, rsqrt -> 1 / sqrt, floor_mod/mod -> mod, floor_div -> floor_divide, reduce_X -> X, cumsum(reverse)
-> flip(cumsum(flip)), bucketize -> digitize, approximate_equal -> |x - y| < tol, add_n -> +, cast -> astype);
nn.X -> tj.nn (softsign -> soft_sign, leaky_relu's alpha -> negative_slope); complex(x, y) -> x + 1j * y;
matmul(transpose_a/b) -> matmul of .T / swapaxes; bias_add -> broadcasting + (NCHW: b[:, None]); gather ->
take / advanced indexing (batch_dims=1 -> x[arange, idx]); gather_nd -> indexing; slice / strided_slice ->
indexing; pack / unpack -> stack / unstack; split(sizes) -> split(indices); reverse -> flip; band_part ->
triu / tril; matrix_diag / diag -> diag (of a vector); matrix_diag_part / diag_part -> diagonal(k);
matrix_set_diag -> fill_diagonal(inplace=False); linalg cholesky / slogdet / inv(adjoint) / solve(adjoint) /
eigh / einsum -> tj.numpy.linalg / einsum (adjoint -> swapaxes); fill -> full; zeros_like, identity,
stop_gradient -> tj.numpy.zeros_like, tj.identity, tj.stop_gradient. softmax / log_softmax come from the port's
brief (TF's pfor NN tests), not these two files.

Left out (and why):
- math_test: bessel_i0e, bessel_i1e, digamma, erf, erfc, erfinv, lgamma, ndtri (test_unary_cwise_real_ops_1),
  div_no_nan, igamma, igammac, igamma_grad_a, squared_difference, polygamma, zeta (test_binary_cwise_ops),
  test_unsorted_segment_reduction, test_sparse_segment, test_sparse_segment_grad, test_matrix_triangular_solve:
  no tj.numpy / tj.nn counterpart. cumsum / cumprod ``exclusive=True``: no counterpart. truncate_mod: TF 2.21 has
  no gradient for it (LookupError "gradient registry has no entry for: TruncateMod"), so no TF Jacobian: tj.numpy.fmod
  is checked against NumPy's derivative instead (test_truncate_mod_has_jax_numpys_gradient).
- array_test: test_shape, test_size, test_rank, test_shape_n (integer shape metadata, no Jacobian);
  test_tile_loop_dependent, test_strided_slice_loop_variant (pfor's loop-invariance errors: no pfor API here);
  test_identity_n (no tj counterpart; tj.identity is covered); test_depth_to_space, test_space_to_depth,
  test_batch_to_space_nd, test_space_to_batch_nd (no counterpart); test_check_numerics (tj.debug.check_numerics
  is a context, not an op); test_diag of a rank-2 input and test_diag_part of a rank-4 one (tf.linalg.tensor_diag:
  no counterpart); matrix_diag / matrix_set_diag / matrix_diag_part with a band k=(lo, hi), align and
  padding_value (no counterpart; single diagonals are ported).

Sanctioned differences:
- pow at a base of 0 with an exponent below 1: TF 2.21's Jacobian has NaN in the other elements' rows (0 * inf);
  API.md's rule for ops with an infinite derivative is 0 where the incoming gradient is 0 (TF's own rule for
  sqrt, checked at sqrt_at_0), so those entries are 0 here (TF_NAN_IS_ZERO).
- TF's row-by-row Jacobian (experimental_use_pfor=False) fails inside its while loop (InvalidArgumentError
  "TensorArray dtype is bool but Op is trying to write dtype float32") for a bool / int target with
  UnconnectedGradients.ZERO, and for a real target of a complex source; TF's vectorized one gives the values
  tested, and both paths here give them.
- TF's vectorized Jacobian fails on bias_add with data_format="NCHW" (pfor cannot convert BiasAddGrad); the
  values are TF's row-by-row ones (tj has no bias_add: the broadcasting add has no such limitation).
"""
import numpy as np
import pytest

import tapejax as tj
from conftest import D, close_to_tf

tnp = tj.numpy
nn = tj.nn
ZERO = tj.UnconnectedGradients.ZERO


class Diag(tuple):
    """TF's Jacobian of an elementwise op, recorded as its diagonal (TF's off-diagonal entries are exactly 0)."""

    def __new__(cls, *values):
        return super().__new__(cls, values)


def _u(shape, seed, lo=0.1, hi=0.9):
    return np.random.RandomState(seed).uniform(lo, hi, shape).astype(np.float32)


def _spd(n, seed, batch=()):
    z = np.random.RandomState(seed).uniform(-1, 1, batch + (n, n)).astype(np.float32)
    return (z @ np.swapaxes(z, -1, -2) + np.eye(n, dtype=np.float32)).astype(np.float32)


def _sym(n, seed, batch=()):
    z = np.random.RandomState(seed).uniform(-1, 1, batch + (n, n)).astype(np.float32)
    return (z + np.swapaxes(z, -1, -2)).astype(np.float32)


def _f32(a):
    return np.asarray(a, np.float32)


def _cplx(fn):
    # TF's complex(x, y) of two watched float tensors; the op then acts on the complex value
    return lambda x, y: fn(x + 1j * y)


def _tr(a):
    return tnp.swapaxes(a, -1, -2)


POS = _u((2, 3), 0)                      # in (0.1, 0.9): inside every unary op's domain
SYM = _u((2, 3), 51, -0.9, 0.9)          # both signs, for activations
KINK = _f32([[-1.0, 0.0, 2.0], [0.0, 0.5, -0.25]])  # zeros where abs / relu have a kink
SQ0 = _f32([[0.0, 0.25, 1.0], [4.0, 0.0, 0.5]])     # sqrt at 0 (infinite derivative)
X2, Y2 = _u((2, 3), 2, 0.5, 3.0), _u((3,), 3, 0.3, 0.9)
X2N = _u((2, 3), 4, -3.0, 3.0)           # negative numerators: floor_mod and truncate_mod differ
X2T = X2.copy()
X2T[0, 1], X2T[1, 2] = Y2[1], Y2[2]       # ties of maximum / minimum
XR, XI = _u((2, 3), 5), _u((2, 3), 6, -0.9, 0.9)
A, B = _u((2, 3), 7), _u((3, 2), 8)
BA, BB = _u((2, 2, 3), 9), _u((2, 3, 2), 10)
EX, EY = _u((3, 3), 11), _u((3, 1), 12)
CX, CY = _u((2, 3), 13), _u((2, 3), 14)
RX = _u((2, 3, 2), 15)                   # distinct values: no ties in max / min
RXT = _f32([[1.0, 3.0, 3.0], [2.0, 2.0, 0.5]])  # ties in each row
CS = _u((2, 3, 2), 16, 0.5, 1.5)
WA, WB, WA3 = _u((2, 3), 17), _u((2, 3), 18), _u((3,), 19)
CLIP = _f32([[0.5, 0.2, 1.0], [0.7, 1.3, 0.9]])     # at both bounds, below, above, inside
SPD = _spd(3, 20, (2,))
LD = _u((3, 2, 2), 21, -1.0, 1.0) + 2 * np.eye(2, dtype=np.float32)
IV = _u((2, 2, 2), 22) + 2 * np.eye(2, dtype=np.float32)
SA, SB = _u((2, 3, 3), 23) + 3 * np.eye(3, dtype=np.float32), _u((2, 3, 2), 24)
EIG = _sym(3, 25, (2,))
EIG2 = _sym(2, 38, (2,))
G3 = _u((3, 2, 3), 26)
S4 = _u((2, 1, 2, 1), 27)
T4 = _u((2, 2, 3, 2), 28)
BT = _u((2, 1, 3), 29)
SP6 = _u((2, 6, 3), 30)
M33, D3 = _u((3, 3), 31), _u((3,), 32)
BD = _u((2, 3, 4), 33)
SS = _u((2, 3, 4, 4, 2), 34)
SM = _u((2, 4), 35, -2.0, 2.0)
ZC = (XR + 1j * XI).astype(np.complex64)   # a complex source
ZC3 = (_u((2, 2, 2), 36) + 1j * _u((2, 2, 2), 37, -0.9, 0.9)).astype(np.complex64)
PX, PY = _f32([[0.0, 2.0, 0.0], [1.0, 0.0, 3.0]]), _f32([2.0, 0.5, 0.5])  # pow at base 0
AX = _f32(3.0)


# name: (fn of Tensors, inputs, indices of the inputs that are sources, index of the batch_jacobian source or None)
# A batch_jacobian source is one that the op treats per example (row i of the output depends on row i of it).
CASES = {
    # math_test.py test_unary_cwise_real_ops_1 / _2 (elementwise: the Jacobian is diagonal)
    "acosh_1p_sq": (lambda x: tnp.arccosh(1 + tnp.square(x)), [SYM], (0,), 0),
    "abs": (tnp.abs, [SYM], (0,), 0),
    "acos": (tnp.arccos, [POS], (0,), 0),
    "asin": (tnp.arcsin, [POS], (0,), 0),
    "asinh": (tnp.arcsinh, [SYM], (0,), 0),
    "atan": (tnp.arctan, [SYM], (0,), 0),
    "atanh": (tnp.arctanh, [SYM], (0,), 0),
    "cos": (tnp.cos, [SYM], (0,), 0),
    "cosh": (tnp.cosh, [SYM], (0,), 0),
    "exp": (tnp.exp, [SYM], (0,), 0),
    "expm1": (tnp.expm1, [SYM], (0,), 0),
    "reciprocal": (tnp.reciprocal, [POS], (0,), 0),
    "log": (tnp.log, [POS], (0,), 0),
    "log1p": (tnp.log1p, [POS], (0,), 0),
    "negative": (tnp.negative, [SYM], (0,), 0),
    "rsqrt": (lambda x: 1 / tnp.sqrt(x), [POS], (0,), 0),
    "sigmoid": (nn.sigmoid, [SYM], (0,), 0),
    "sign": (tnp.sign, [SYM], (0,), 0),
    "sin": (tnp.sin, [SYM], (0,), 0),
    "sinh": (tnp.sinh, [SYM], (0,), 0),
    "sqrt": (tnp.sqrt, [POS], (0,), 0),
    "square": (tnp.square, [SYM], (0,), 0),
    "tan": (tnp.tan, [SYM], (0,), 0),
    "tanh": (tnp.tanh, [SYM], (0,), 0),
    "elu": (nn.elu, [SYM], (0,), 0),
    "relu": (nn.relu, [SYM], (0,), 0),
    "relu6": (nn.relu6, [SYM * 8], (0,), 0),
    "leaky_relu": (lambda x: nn.leaky_relu(x, 0.1), [SYM], (0,), 0),
    "selu": (nn.selu, [SYM], (0,), 0),
    "softplus": (nn.softplus, [SYM], (0,), 0),
    "softsign": (nn.soft_sign, [SYM], (0,), 0),
    # kinks (TF's conventions: abs' and relu' are 0 at 0; sqrt at 0 with a zero incoming gradient)
    "abs_at_0": (tnp.abs, [KINK], (0,), 0),
    "relu_at_0": (nn.relu, [KINK], (0,), 0),
    "sqrt_at_0": (tnp.sqrt, [SQ0], (0,), 0),
    # test_unary_cwise_complex_ops: z = complex(x, y); Jacobians w.r.t. x and y
    "c_angle": (_cplx(tnp.angle), [XR, XI], (0, 1), 0),
    "c_imag": (_cplx(tnp.imag), [XR, XI], (0, 1), 0),
    "c_abs": (_cplx(tnp.abs), [XR, XI], (0, 1), 0),
    "c_real": (_cplx(tnp.real), [XR, XI], (0, 1), 0),
    # ... and w.r.t. the complex value itself (TF's conjugate convention for complex gradients)
    "z_angle": (tnp.angle, [ZC], (0,), 0),
    "z_imag": (tnp.imag, [ZC], (0,), 0),
    "z_abs": (tnp.abs, [ZC], (0,), 0),
    "z_real": (tnp.real, [ZC], (0,), 0),
    "z_conj": (tnp.conj, [ZC], (0,), 0),
    # test_binary_cwise_ops (x (2, 3) with y (3,) broadcast, as TF's [7, 3, 5] with [3, 5])
    "add": (tnp.add, [X2, Y2], (0, 1), 0),
    "subtract": (tnp.subtract, [X2, Y2], (0, 1), 0),
    "multiply": (tnp.multiply, [X2, Y2], (0, 1), 0),
    "divide": (tnp.divide, [X2, Y2], (0, 1), 0),
    "atan2": (tnp.arctan2, [X2N, Y2], (0, 1), 0),
    "maximum": (tnp.maximum, [X2, Y2], (0, 1), 0),
    "minimum": (tnp.minimum, [X2, Y2], (0, 1), 0),
    "maximum_ties": (tnp.maximum, [X2T, Y2], (0, 1), 0),
    "minimum_ties": (tnp.minimum, [X2T, Y2], (0, 1), 0),
    "pow": (tnp.power, [X2, Y2], (0, 1), 0),
    "pow_at_0": (tnp.power, [PX, PY], (0, 1), 0),
    "floor_mod": (tnp.mod, [X2N, Y2], (0, 1), 0),
    "add_n": (lambda x, y, z: x + y + z, [CX, CY, A], (0, 1, 2), 0),
    "cross": (tnp.cross, [CX, CY], (0, 1), 0),
    "tanh_axpy": (lambda a, x, y: tnp.tanh(a * x + y), [AX, CX, CY], (0, 1, 2), None),
    "bias_add_nhwc": (lambda x, b: x + b, [BA, Y2], (0, 1), 0),
    "bias_add_nchw": (lambda x, b: x + b[:, None], [BB, Y2], (0, 1), 0),
    # test_matmul / test_batch_matmul / test_batch_matmul_broadcast
    "matmul": (tnp.matmul, [A, B], (0, 1), 0),
    "matmul_ta": (lambda a, b: tnp.matmul(a.T, b), [B, B], (0, 1), None),
    "matmul_tb": (lambda a, b: tnp.matmul(a, b.T), [A, A], (0, 1), 0),
    "matmul_ta_tb": (lambda a, b: tnp.matmul(a.T, b.T), [B, A], (0, 1), None),
    "batch_matmul": (tnp.matmul, [BA, BB], (0, 1), 0),
    "batch_matmul_ta_tb": (lambda a, b: tnp.matmul(_tr(a), _tr(b)), [BB, BA], (0, 1), 0),
    "batch_matmul_bcast_b": (tnp.matmul, [BA, B], (0, 1), 0),
    "batch_matmul_bcast_a": (lambda b, a: tnp.matmul(a, b), [BB, A], (0, 1), 0),
    # LinalgTest.test_einsum
    "einsum_ab_bc": (lambda x, y: tnp.einsum("ab,bc->ac", x, y), [EX, EY], (0, 1), 0),
    "einsum_cd_ce": (lambda y, x: tnp.einsum("cd,ce->de", y, x), [EY, EX], (0, 1), None),
    "einsum_batch": (lambda x, y: tnp.einsum("nab,nbc->nac", x, y), [BA, BB], (0, 1), 0),
    # test_reduction (x (2, 3, 2); the batch variant is the op on each example, axis 1)
    **{f"{name}_{ax}{'_keep' if keep else ''}": (
        (lambda f, a, k: lambda x: f(x, axis=a, keepdims=k))(f, axis, keep), [RX], (0,),
        0 if axis == 1 else None)
       for name, f in [("sum", tnp.sum), ("prod", tnp.prod), ("max", tnp.max), ("min", tnp.min),
                       ("mean", tnp.mean)]
       for ax, axis, keep in [("1", 1, False), ("none", None, False), ("02", (0, 2), False), ("1", 1, True)]},
    "max_ties": (lambda x: tnp.max(x, axis=1, keepdims=True), [RXT], (0,), 0),
    "min_ties": (lambda x: tnp.min(x, axis=1, keepdims=True), [RXT], (0,), 0),
    # test_clip_by_value (at the bounds the gradient passes, as TF)
    "clip": (lambda x: tnp.clip(x, 0.5, 1.0), [CLIP], (0,), 0),
    # test_cum_sum / test_cum_prod (reverse=True as flip-cumsum-flip; exclusive has no counterpart)
    "cumsum_1": (lambda x: tnp.cumsum(x, axis=1), [CS], (0,), 0),
    "cumsum_m1": (lambda x: tnp.cumsum(x, axis=-1), [CS], (0,), 0),
    "cumsum_1_rev": (lambda x: tnp.flip(tnp.cumsum(tnp.flip(x, 1), axis=1), 1), [CS], (0,), 0),
    "cumprod_1": (lambda x: tnp.cumprod(x, axis=1), [CS], (0,), 0),
    "cumprod_m1": (lambda x: tnp.cumprod(x, axis=-1), [CS], (0,), 0),
    "cumprod_1_rev": (lambda x: tnp.flip(tnp.cumprod(tnp.flip(x, 1), axis=1), 1), [CS], (0,), 0),
    # test_select / test_selectv2_*: where(cond, a, b), the condition and the arguments broadcast
    "where_cond_2x1": (lambda a, b: tnp.where(np.array([[True], [False]]), a, b), [WA, WB], (0, 1), 0),
    "where_cond_1x3": (lambda a, b: tnp.where(np.array([True, False, True]), a, b), [WA, WB], (0, 1), 0),
    "where_cond_2x3": (lambda a, b: tnp.where(WA > WB, a, b), [WA, WB], (0, 1), 0),
    "where_a_bcast": (lambda a, b: tnp.where(WA > 0.5, a, b), [WA3, WB], (0, 1), None),
    # LinalgTest
    "cholesky": (tnp.linalg.cholesky, [SPD], (0,), 0),
    "slogdet_logabsdet": (lambda x: tnp.linalg.slogdet(x)[1], [LD], (0,), None),
    "inv": (tnp.linalg.inv, [IV], (0,), 0),
    "inv_adjoint": (lambda x: tnp.linalg.inv(_tr(x)), [IV], (0,), 0),
    "solve": (tnp.linalg.solve, [SA, SB], (0, 1), 0),
    "solve_adjoint": (lambda a, b: tnp.linalg.solve(_tr(a), b), [SA, SB], (0, 1), 0),
    "eigh_values": (lambda x: tnp.linalg.eigh(x)[0], [EIG], (0,), 0),
    # eigenvectors squared: their signs are arbitrary (TF's and XLA's may differ), their squares are not
    "eigh_vectors_squared": (lambda x: tnp.square(tnp.linalg.eigh(x)[1]), [EIG2], (0,), 0),
    # array_test.py: test_gather / test_gather_nd
    "gather_2_axis0": (lambda x: tnp.take(x, 2, axis=0), [G3], (0,), None),
    "gather_2_axis_m1": (lambda x: tnp.take(x, 2, axis=-1), [G3], (0,), 0),
    "gather_list_axis0": (lambda x: tnp.take(x, np.array([1, 2]), axis=0), [G3], (0,), None),
    "gather_2d_axis_m1": (lambda x: tnp.take(x, np.array([[2, 0], [1, 1]]), axis=-1), [G3], (0,), 0),
    "gather_batch_dims_1": (lambda x: x[np.arange(3), np.array([0, 1, 1])], [G3], (0,), 0),
    "gather_nd": (lambda x: x[:, 1], [G3], (0,), 0),
    # test_reshape / test_broadcast_to / test_expand_dims / test_slice / test_tile / test_pack / test_unpack
    "reshape_flat": (lambda x: tnp.reshape(x, (3, -1)), [G3], (0,), 0),
    "reshape_5d": (lambda x: tnp.reshape(x, (3, 1, 3, 1, -1)), [G3], (0,), 0),
    "broadcast_to": (lambda x: tnp.broadcast_to(x, (2, 2, 3)), [BT], (0,), 0),
    "expand_dims_m1": (lambda x: tnp.expand_dims(x, -1), [G3], (0,), 0),
    "expand_dims_1": (lambda x: tnp.expand_dims(x, 1), [G3], (0,), 0),
    "slice": (lambda x: x[:, 0:2, 1:2], [G3], (0,), 0),
    "tile": (lambda x: tnp.tile(x, (1, 2, 1)), [G3], (0,), 0),
    "stack": (lambda x, y: tnp.stack([x, y], axis=-1), [CX, CY], (0, 1), 0),
    "unstack_m1": (lambda x: tnp.unstack(x, axis=-1)[1], [G3], (0,), 0),
    "unstack_1": (lambda x: tnp.unstack(x, axis=1)[0], [G3], (0,), 0),
    # test_pad / test_split / test_split_v / test_squeeze / test_reverse / test_transpose
    "pad": (lambda x: tnp.pad(x, ((0, 0), (1, 2), (3, 4))), [BA], (0,), 0),
    "split_2": (lambda x: tnp.split(x, 2, axis=1)[1], [G3], (0,), 0),
    "split_3_m1": (lambda x: tnp.split(x, 3, axis=-1)[0], [G3], (0,), 0),
    "split_v": (lambda x: tnp.split(x, [2, 3], axis=1)[2], [SP6], (0,), 0),
    "squeeze_1": (lambda x: tnp.squeeze(x, 1), [S4], (0,), 0),
    "squeeze_m1": (lambda x: tnp.squeeze(x, -1), [S4], (0,), 0),
    "squeeze_all": (tnp.squeeze, [S4], (0,), 0),
    "reverse_1": (lambda x: tnp.flip(x, 1), [RX], (0,), 0),
    "reverse_m1": (lambda x: tnp.flip(x, -1), [RX], (0,), 0),
    "reverse_1_m1": (lambda x: tnp.flip(x, (1, -1)), [RX], (0,), 0),
    "transpose": (lambda x: tnp.transpose(x, (0, 3, 2, 1)), [T4], (0,), 0),
    "conj_transpose_real": (_cplx(lambda z: tnp.real(tnp.conj(tnp.transpose(z)))), [XR, XI], (0, 1), None),
    "conj_transpose_imag": (_cplx(lambda z: tnp.imag(tnp.conj(tnp.transpose(z)))), [XR, XI], (0, 1), None),
    "conj_transpose": (lambda z: tnp.conj(tnp.transpose(z, (0, 2, 1))), [ZC3], (0,), 0),
    # test_concat_v2 / test_zeros_like / test_unary_cwise_ops (identity, stop_gradient) / test_fill
    "concat_0": (lambda x, y: tnp.concatenate([x, x, y], axis=0), [CX, CY], (0, 1), None),
    "concat_m1": (lambda x, y: tnp.concatenate([x, x, y], axis=-1), [CX, CY], (0, 1), 0),
    "zeros_like_plus_x": (lambda x: tnp.zeros_like(x) + x, [CX], (0,), 0),
    "identity_plus_x": (lambda x: tj.identity(x) + x, [CX], (0,), 0),
    "stop_gradient_plus_x": (lambda x: tj.stop_gradient(x) + x, [CX], (0,), 0),
    "fill": (lambda s: tnp.full((2, 3), s), [AX], (0,), None),
    # test_matrix_band_part / test_matrix_diag / test_matrix_diag_part / test_diag / test_diag_part
    "band_upper": (tnp.triu, [BA], (0,), 0),
    "band_lower": (tnp.tril, [BA], (0,), 0),
    "band_1_1": (lambda x: tnp.triu(tnp.tril(x, 1), -1), [BA], (0,), 0),
    "diag": (tnp.diag, [D3], (0,), None),
    "diag_part": (tnp.diagonal, [M33], (0,), None),
    "matrix_diag_part_0": (lambda x: tnp.diagonal(x, 0, -2, -1), [BD], (0,), 0),
    "matrix_diag_part_m1": (lambda x: tnp.diagonal(x, -1, -2, -1), [BD], (0,), 0),
    "matrix_diag_part_m2": (lambda x: tnp.diagonal(x, -2, -2, -1), [BD], (0,), 0),
    # test_matrix_set_diag / test_strided_slice
    "matrix_set_diag": (lambda m, d: tnp.fill_diagonal(m, d, inplace=False), [M33, D3], (0, 1), None),
    "strided_slice": (lambda x: x[:, :2, ::2, 1::3, ..., None, 1], [SS], (0,), 0),
    # softmax / log_softmax (the brief's op list; TF's pfor NN tests)
    "softmax": (nn.softmax, [SM], (0,), 0),
    "log_softmax": (nn.log_softmax, [SM], (0,), 0),
    "softmax_axis0": (lambda x: nn.softmax(x, axis=0), [SM], (0,), None),
}

# Ops whose outputs are not differentiable in TF (no gradient, or a bool / int output): name: (fn, input).
# TF's Jacobian w.r.t. the float input is None (UnconnectedGradients.NONE) / zeros (ZERO).
NONDIFF = {
    "rint": (tnp.rint, SYM * 3),
    "round": (tnp.round, SYM * 3),
    "floor": (tnp.floor, SYM * 3),
    "ceil": (tnp.ceil, SYM * 3),
    "floor_div": (lambda x: tnp.floor_divide(x, Y2), X2N),
    "is_finite": (tnp.isfinite, SYM),
    "is_inf": (tnp.isinf, SYM),
    "logical_not": (lambda x: tnp.logical_not(x > 0), SYM),
    "equal": (lambda x: tnp.equal(x, X2T), X2),
    "not_equal": (lambda x: tnp.not_equal(x, X2T), X2),
    "greater": (lambda x: tnp.greater(x, Y2), X2),
    "greater_equal": (lambda x: tnp.greater_equal(x, Y2), X2),
    "less": (lambda x: tnp.less(x, Y2), X2),
    "less_equal": (lambda x: tnp.less_equal(x, Y2), X2),
    "logical_and": (lambda x: tnp.logical_and(x > 0, x < 0.5), SYM),
    "logical_or": (lambda x: tnp.logical_or(x > 0, x < -0.5), SYM),
    "logical_xor": (lambda x: tnp.logical_xor(x > 0, x < 0.5), SYM),
    "approximate_equal": (lambda x: tnp.abs(x - WB) < 0.1, WA),
    "any": (lambda x: tnp.any(x > 0.5, axis=1), RX),
    "all": (lambda x: tnp.all(x > 0.2, axis=1), RX),
    "argmax": (lambda x: tnp.argmax(x, axis=1), RX),
    "argmin": (lambda x: tnp.argmin(x, axis=-1), RX),
    "bucketize": (lambda x: tnp.digitize(x, np.array([0.25, 0.5, 1.0], np.float32)), RX),
    "cast_to_int": (lambda x: (x * 4).astype(tnp.int32), RX),
    "searchsorted": (lambda x: tnp.searchsorted(tnp.cumsum(x), np.array([0.5, 2.0, 3.0], np.float32)), POS[0]),
    "one_hot_argmax": (lambda x: nn.one_hot(tnp.argmax(x, axis=-1), 4), SM),
    "zeros_like": (tnp.zeros_like, CX),
    "slogdet_sign": (lambda x: tnp.linalg.slogdet(x)[0], LD),
}

INF, NAN = float("inf"), float("nan")

TF_JAC = {
    "acosh_1p_sq": ((2, 3), [Diag(1.3801126, -1.2236115, -1.3868994, 1.3910363, -1.3637136, 1.2276247)]),
    "abs": ((2, 3), [Diag(1, -1, -1, 1, -1, 1)]),
    "acos": ((2, 3), [Diag(-1.1872631, -1.3505964, -1.229955, -1.1844449, -1.112936, -1.2703474)]),
    "asin": ((2, 3), [Diag(1.1872631, 1.3505964, 1.229955, 1.1844449, 1.112936, 1.2703474)]),
    "asinh": ((2, 3), [Diag(0.95343822, 0.77345055, 0.96244919, 0.9680025, 0.93215328, 0.77751696)]),
    "atan": ((2, 3), [Diag(0.9090445, 0.59822571, 0.92630839, 0.93702883, 0.86890978, 0.6045326)]),
    "atanh": ((2, 3), [Diag(1.1111804, 3.0451586, 1.08643, 1.0720446, 1.1776725, 2.891598)]),
    "cos": ((2, 3), [Diag(-0.31106797, 0.73081696, 0.27832848, -0.25634167, 0.37872344, -0.72346479)]),
    "cosh": ((2, 3), [Diag(0.3216179, -0.91438097, -0.28580806, 0.26214886, -0.39825708, 0.89992082)]),
    "exp": ((2, 3), [Diag(1.3720645, 0.44064397, 0.75423342, 1.295939, 0.67812979, 2.2452302)]),
    "expm1": ((2, 3), [Diag(1.3720645, 0.44064397, 0.75423342, 1.295939, 0.67812979, 2.2452302)]),
    "reciprocal": ((2, 3), [Diag(-3.441443, -2.2134292, -2.9501195, -3.4819446, -5.190649, -2.6292417)]),
    "log": ((2, 3), [Diag(1.8551127, 1.4877598, 1.7175912, 1.865997, 2.2782996, 1.6214937)]),
    "log1p": ((2, 3), [Diag(0.64975113, 0.59803194, 0.63202703, 0.65108126, 0.69496381, 0.61853808)]),
    "negative": ((2, 3), [Diag(-1, -1, -1, -1, -1, -1)]),
    "rsqrt": ((2, 3), [Diag(-1.2633553, -0.90733808, -1.1255109, -1.2744898, -1.7194369, -1.0323879)]),
    "sigmoid": ((2, 3), [Diag(0.24384932, 0.21231197, 0.24509305, 0.24584641, 0.24080293, 0.21319149)]),
    "sign": ((2, 3), [Diag(0, 0, 0, 0, 0, 0)]),
    "sin": ((2, 3), [Diag(0.95038766, 0.6825735, 0.96048594, 0.96658623, 0.92550987, 0.69036126)]),
    "sinh": ((2, 3), [Diag(1.0504466, 1.3550249, 1.0400414, 1.0337901, 1.0763869, 1.3453094)]),
    "sqrt": ((2, 3), [Diag(0.68101263, 0.60986876, 0.65528452, 0.68300748, 0.75470185, 0.63668942)]),
    "square": ((2, 3), [Diag(0.63263309, -1.6390362, -0.56410676, 0.518471, -0.77683318, 1.6176161)]),
    "tan": ((2, 3), [Diag(1.1071296, 2.146353, 1.0839716, 1.0703325, 1.1674489, 2.0982015)]),
    "tanh": ((2, 3), [Diag(0.9062584, 0.54463482, 0.92448252, 0.93569702, 0.86310416, 0.55252969)]),
    "elu": ((2, 3), [Diag(1, 0.44064397, 0.75423342, 1, 0.67812979, 1)]),
    "relu": ((2, 3), [Diag(1, 0, 0, 1, 0, 1)]),
    "relu6": ((2, 3), [Diag(1, 0, 0, 1, 0, 0)]),
    "leaky_relu": ((2, 3), [Diag(1, 0.1, 0.1, 1, 0.1, 1)]),
    "selu": ((2, 3), [Diag(1.050701, 0.77469587, 1.3260173, 1.050701, 1.1922195, 1.050701)]),
    "softplus": ((2, 3), [Diag(0.57842624, 0.30586597, 0.42995045, 0.56444836, 0.40409854, 0.69185543)]),
    "softsign": ((2, 3), [Diag(0.57713747, 0.30205584, 0.60839802, 0.63064665, 0.51875281, 0.30564341)]),
    "abs_at_0": ((2, 3), [Diag(-1, 0, 1, 0, 1, -1)]),
    "relu_at_0": ((2, 3), [Diag(0, 0, 1, 0, 1, 0)]),
    "sqrt_at_0": ((2, 3), [[INF, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0, 0, 0.25, 0, 0, 0, 0, 0, 0,
        INF, 0, 0, 0, 0, 0, 0, 0.70710677]]),
    "c_angle": ((2, 3), [Diag(-1.225311, 0.41656938, -1.4285538, 0.59883928, 0.95491803, -0.45423955),
        Diag(0.48100191, 1.0972003, 0.65564644, 0.60605681, 0.66354287, 1.5647949)]),
    "c_imag": ((2, 3), [Diag(0, 0, 0, 0, 0, 0), Diag(1, 1, 1, 1, 1, 1)]),
    "c_abs": ((2, 3), [Diag(0.36540866, 0.93488735, 0.41712391, 0.7113297, 0.57063097, 0.9603554), Diag(0.93084723,
        -0.35494468, 0.9088496, -0.70285851, -0.82120657, 0.27877867)]),
    "c_real": ((2, 3), [Diag(1, 1, 1, 1, 1, 1), Diag(0, 0, 0, 0, 0, 0)]),
    "z_angle": ((2, 3), [Diag(-1.225311+0.48100191j, 0.41656938+1.0972003j, -1.4285538+0.65564644j,
        0.59883928+0.60605681j, 0.95491803+0.66354287j, -0.45423955+1.5647949j)]),
    "z_imag": ((2, 3), [Diag(0+1j, 0+1j, 0+1j, 0+1j, 0+1j, 0+1j)]),
    "z_abs": ((2, 3), [Diag(0.36540866+0.93084723j, 0.93488735-0.35494468j, 0.41712391+0.9088496j,
        0.7113297-0.70285851j, 0.57063097-0.82120657j, 0.9603554+0.27877867j)]),
    "z_real": ((2, 3), [Diag(1+0j, 1+0j, 1+0j, 1+0j, 1+0j, 1+0j)]),
    "z_conj": ((2, 3), [Diag(1-0j, 1-0j, 1-0j, 1-0j, 1-0j, 1-0j)]),
    "add": ((2, 3), [Diag(1, 1, 1, 1, 1, 1), [1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1]]),
    "subtract": ((2, 3), [Diag(1, 1, 1, 1, 1, 1), [-1, 0, 0, 0, -1, 0, 0, 0, -1, -1, 0, 0, 0, -1, 0, 0, 0, -1]]),
    "multiply": ((2, 3), [Diag(0.63047874, 0.72488868, 0.47454286, 0.63047874, 0.72488868, 0.47454286), [1.5899873, 0,
        0, 0, 0.56481558, 0, 0, 0, 1.8741562, 1.588306, 0, 0, 0, 1.5509195, 0, 0, 0, 1.325837]]),
    "divide": ((2, 3), [Diag(1.5860963, 1.3795222, 2.1072912, 1.5860963, 1.3795222, 2.1072912), [-3.9999335, 0, 0, 0,
        -1.07489, 0, 0, 0, -8.3225212, -3.9957037, 0, 0, 0, -2.9515259, 0, 0, 0, -5.8876133]]),
    "atan2": ((2, 3), [Diag(0.076424338, 1.1966293, 0.057390336, 0.30624253, 0.37501785, 0.15175769), [-0.33966997, 0,
        0, 0, -0.46781936, 0, 0, 0, -0.34299344, -0.6260556, 0, 0, 0, -0.61376464, 0, 0, 0, 0.54476345]]),
    "maximum": ((2, 3), [Diag(1, 0, 1, 1, 1, 1), [0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]),
    "minimum": ((2, 3), [Diag(0, 1, 0, 0, 0, 0), [1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1]]),
    "maximum_ties": ((2, 3), [Diag(1, 1, 1, 1, 1, 1), [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]),
    "minimum_ties": ((2, 3), [Diag(0, 1, 0, 0, 0, 1), [1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0]]),
    "pow": ((2, 3), [Diag(0.53119165, 0.8482514, 0.34113613, 0.53139931, 0.64244813, 0.40917784), [0.62120634, 0, 0,
        0, -0.37756413, 0, 0, 0, 0.84630579, 0.61937571, 0, 0, 0, 0.60321224, 0, 0, 0, 0.32243606]]),
    "pow_at_0": ((2, 3), [[0, 0, NAN, 0, NAN, 0, 0, 0.35355338, NAN, 0, NAN, 0, 0, 0, INF, 0, NAN, 0, 0, 0, NAN, 2,
        NAN, 0, 0, 0, NAN, 0, INF, 0, 0, 0, NAN, 0, NAN, 0.28867513], [0, 0, 0, 0, 0.98025811, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 1.9028523]]),
    "floor_mod": ((2, 3), [Diag(1, 1, 1, 1, 1, 1), [-4, 0, 0, 0, 0, 0, 0, 0, -5, -2, 0, 0, 0, -1, 0, 0, 0, 4]]),
    "add_n": ((2, 3), [Diag(1, 1, 1, 1, 1, 1), Diag(1, 1, 1, 1, 1, 1), Diag(1, 1, 1, 1, 1, 1)]),
    "cross": ((2, 3), [[0, 0.79634213, -0.71853203, 0, 0, 0, -0.79634213, 0, 0.51115465, 0, 0, 0, 0.71853203,
        -0.51115465, 0, 0, 0, 0, 0, 0, 0, 0, 0.86608297, -0.34778875, 0, 0, 0, -0.86608297, 0, 0.10643756, 0, 0, 0,
        0.34778875, -0.10643756, 0], [0, -0.75942284, 0.29003298, 0, 0, 0, 0.75942284, 0, -0.72216195, 0, 0, 0,
        -0.29003298, 0.72216195, 0, 0, 0, 0, 0, 0, 0, 0, -0.46275941, 0.8780809, 0, 0, 0, 0.46275941, 0, -0.87259936,
        0, 0, 0, -0.8780809, 0.87259936, 0]]),
    "tanh_axpy": ((2, 3), [[0.013515494, 0.044581473, 0.0064582927, 0.01489043, 0.0089784805, 0.019942999],
        Diag(0.056145966, 0.46113521, 0.025512636, 0.051193357, 0.030675352, 0.12928748), Diag(0.018715322,
        0.15371174, 0.0085042119, 0.017064452, 0.010225117, 0.043095827)]),
    "bias_add_nhwc": ((2, 2, 3), [Diag(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), [1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1,
        0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1]]),
    "bias_add_nchw": ((2, 3, 2), [Diag(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), [1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0,
        1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1]]),
    "matmul": ((2, 2), [[0.79874355, 0.79535562, 0.28618267, 0, 0, 0, 0.87483251, 0.52468455, 0.10911904, 0, 0, 0, 0,
        0, 0, 0.79874355, 0.79535562, 0.28618267, 0, 0, 0, 0.87483251, 0.52468455, 0.10911904], [0.16104662, 0,
        0.72393501, 0, 0.45072737, 0, 0, 0.16104662, 0, 0.72393501, 0, 0.45072737, 0.67877215, 0, 0.88239163, 0,
        0.53079671, 0, 0, 0.67877215, 0, 0.88239163, 0, 0.53079671]]),
    "matmul_ta": ((2, 2), [[0.79874355, 0, 0.79535562, 0, 0.28618267, 0, 0.87483251, 0, 0.52468455, 0, 0.10911904, 0,
        0, 0.79874355, 0, 0.79535562, 0, 0.28618267, 0, 0.87483251, 0, 0.52468455, 0, 0.10911904], [0.79874355, 0,
        0.79535562, 0, 0.28618267, 0, 0, 0.79874355, 0, 0.79535562, 0, 0.28618267, 0.87483251, 0, 0.52468455, 0,
        0.10911904, 0, 0, 0.87483251, 0, 0.52468455, 0, 0.10911904]]),
    "matmul_tb": ((2, 2), [[0.16104662, 0.72393501, 0.45072737, 0, 0, 0, 0.67877215, 0.88239163, 0.53079671, 0, 0, 0,
        0, 0, 0, 0.16104662, 0.72393501, 0.45072737, 0, 0, 0, 0.67877215, 0.88239163, 0.53079671], [0.16104662,
        0.72393501, 0.45072737, 0, 0, 0, 0, 0, 0, 0.16104662, 0.72393501, 0.45072737, 0.67877215, 0.88239163,
        0.53079671, 0, 0, 0, 0, 0, 0, 0.67877215, 0.88239163, 0.53079671]]),
    "matmul_ta_tb": ((2, 2), [[0.16104662, 0, 0.72393501, 0, 0.45072737, 0, 0.67877215, 0, 0.88239163, 0, 0.53079671,
        0, 0, 0.16104662, 0, 0.72393501, 0, 0.45072737, 0, 0.67877215, 0, 0.88239163, 0, 0.53079671], [0.79874355,
        0.79535562, 0.28618267, 0, 0, 0, 0, 0, 0, 0.79874355, 0.79535562, 0.28618267, 0.87483251, 0.52468455,
        0.10911904, 0, 0, 0, 0, 0, 0, 0.87483251, 0.52468455, 0.10911904]]),
    "batch_matmul": ((2, 2, 2), [D(11.604201, -1.33043233, 11.604201), D(8.23043902, -0.28852992, 8.23043902)]),
    "batch_matmul_ta_tb": ((2, 2, 2), [D(8.23043902, -0.228743393, 8.23043902), D(11.604201, 0.914370614,
        11.604201)]),
    "batch_matmul_bcast_b": ((2, 2, 2), [D(13.5556718, 1.09937084, 13.5556718), [0.10829932, 0, 0.50149965, 0,
        0.49661863, 0, 0, 0.10829932, 0, 0.50149965, 0, 0.49661863, 0.20706363, 0, 0.21368887, 0, 0.27484694, 0, 0,
        0.20706363, 0, 0.21368887, 0, 0.27484694, 0.43480656, 0, 0.29848093, 0, 0.16724773, 0, 0, 0.43480656, 0,
        0.29848093, 0, 0.16724773, 0.37639892, 0, 0.23342107, 0, 0.80284727, 0, 0, 0.37639892, 0, 0.23342107, 0,
        0.80284727]]),
    "batch_matmul_bcast_a": ((2, 2, 2), [D(13.710678, -0.0118999928, 13.710678), [0.71705651, 0.60691857, 0.49880561,
        0, 0, 0, 0.11660156, 0.6990431, 0.27983731, 0, 0, 0, 0, 0, 0, 0.71705651, 0.60691857, 0.49880561, 0, 0, 0,
        0.11660156, 0.6990431, 0.27983731, 0.2584503, 0.23528866, 0.64828783, 0, 0, 0, 0.70842457, 0.17067185,
        0.86271465, 0, 0, 0, 0, 0, 0, 0.2584503, 0.23528866, 0.64828783, 0, 0, 0, 0.70842457, 0.17067185,
        0.86271465]]),
    "einsum_ab_bc": ((3, 1), [[0.22333027, 0.69203973, 0.31065202, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.22333027, 0.69203973,
        0.31065202, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.22333027, 0.69203973, 0.31065202], [0.24421576, 0.11558019,
        0.47057483, 0.67994714, 0.43616289, 0.48834169, 0.11022465, 0.48989728, 0.85344535]]),
    "einsum_cd_ce": ((1, 3), [[0.24421576, 0.67994714, 0.11022465, 0.11558019, 0.43616289, 0.48989728, 0.47057483,
        0.48834169, 0.85344535], [0.22333027, 0, 0, 0.69203973, 0, 0, 0.31065202, 0, 0, 0, 0.22333027, 0, 0,
        0.69203973, 0, 0, 0.31065202, 0, 0, 0, 0.22333027, 0, 0, 0.69203973, 0, 0, 0.31065202]]),
    "einsum_batch": ((2, 2, 2), [D(11.604201, -1.33043233, 11.604201), D(8.23043902, -0.28852992, 8.23043902)]),
    "sum_1": ((2, 2), [[1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
        0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 1]]),
    "sum_none": ((), [[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]]),
    "sum_02": ((3,), [[1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0,
        0, 0, 1, 1]]),
    "sum_1_keep": ((2, 1, 2), [[1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 1]]),
    "prod_1": ((2, 2), [[0.045963008, 0, 0.24954721, 0, 0.11178692, 0, 0, 0, 0, 0, 0, 0, 0, 0.20395698, 0, 0.12739322,
        0, 0.094628513, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.15797345, 0, 0.28754494, 0, 0.065290429, 0, 0, 0, 0, 0,
        0, 0, 0, 0.093370095, 0, 0.1069623, 0, 0.1030461]]),
    "prod_none": ((), [[3.9816823e-06, 1.2759082e-05, 2.161777e-05, 7.9694273e-06, 9.6838739e-06, 5.9197428e-06,
        8.9980558e-06, 9.028322e-06, 1.6378357e-05, 1.0342606e-05, 3.718897e-06, 9.9639337e-06]]),
    "prod_02": ((3,), [[0.028795701, 0.092274234, 0, 0, 0, 0, 0.06507434, 0.065293215, 0, 0, 0, 0, 0, 0, 0.02210932,
        0.0081506381, 0, 0, 0, 0, 0.016750772, 0.010577778, 0, 0, 0, 0, 0, 0, 0.13606772, 0.083178051, 0, 0, 0, 0,
        0.052254055, 0.14000279]]),
    "prod_1_keep": ((2, 1, 2), [[0.045963008, 0, 0.24954721, 0, 0.11178692, 0, 0, 0, 0, 0, 0, 0, 0, 0.20395698, 0,
        0.12739322, 0, 0.094628513, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.15797345, 0, 0.28754494, 0, 0.065290429, 0,
        0, 0, 0, 0, 0, 0, 0, 0.093370095, 0, 0.1069623, 0, 0.1030461]]),
    "max_1": ((2, 2), [[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0]]),
    "max_none": ((), [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0]]),
    "max_02": ((3,), [[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 1, 0]]),
    "max_1_keep": ((2, 1, 2), [[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0]]),
    "min_1": ((2, 2), [[0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0]]),
    "min_none": ((), [[0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]]),
    "min_02": ((3,), [[0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 1]]),
    "min_1_keep": ((2, 1, 2), [[0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0]]),
    "mean_1": ((2, 2), [[0.33333334, 0, 0.33333334, 0, 0.33333334, 0, 0, 0, 0, 0, 0, 0, 0, 0.33333334, 0, 0.33333334,
        0, 0.33333334, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.33333334, 0, 0.33333334, 0, 0.33333334, 0, 0, 0, 0, 0, 0,
        0, 0, 0.33333334, 0, 0.33333334, 0, 0.33333334]]),
    "mean_none": ((), [[0.083333336, 0.083333336, 0.083333336, 0.083333336, 0.083333336, 0.083333336, 0.083333336,
        0.083333336, 0.083333336, 0.083333336, 0.083333336, 0.083333336]]),
    "mean_02": ((3,), [[0.25, 0.25, 0, 0, 0, 0, 0.25, 0.25, 0, 0, 0, 0, 0, 0, 0.25, 0.25, 0, 0, 0, 0, 0.25, 0.25, 0,
        0, 0, 0, 0, 0, 0.25, 0.25, 0, 0, 0, 0, 0.25, 0.25]]),
    "mean_1_keep": ((2, 1, 2), [[0.33333334, 0, 0.33333334, 0, 0.33333334, 0, 0, 0, 0, 0, 0, 0, 0, 0.33333334, 0,
        0.33333334, 0, 0.33333334, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.33333334, 0, 0.33333334, 0, 0.33333334, 0, 0,
        0, 0, 0, 0, 0, 0, 0.33333334, 0, 0.33333334, 0, 0.33333334]]),
    "max_ties": ((2, 1), [[0, 0.5, 0.5, 0, 0, 0, 0, 0, 0, 0.5, 0.5, 0]]),
    "min_ties": ((2, 1), [[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]]),
    "clip": ((2, 3), [Diag(1, 0, 1, 1, 0, 1)]),
    "cumsum_1": ((2, 3, 2), [D(24, 0.356788844, 24)]),
    "cumsum_m1": ((2, 3, 2), [D(18, 3.48605128, 18)]),
    "cumsum_1_rev": ((2, 3, 2), [D(24, 0.600666938, 24)]),
    "cumprod_1": ((2, 3, 2), [D(19.908024, -0.184278258, 19.908024)]),
    "cumprod_m1": ((2, 3, 2), [D(16.4320346, 3.10409331, 16.4320346)]),
    "cumprod_1_rev": ((2, 3, 2), [D(19.5345954, 1.35298132, 19.5345954)]),
    "where_cond_2x1": ((2, 3), [Diag(1, 1, 1, 0, 0, 0), Diag(0, 0, 0, 1, 1, 1)]),
    "where_cond_1x3": ((2, 3), [Diag(1, 0, 1, 1, 0, 1), Diag(0, 1, 0, 0, 1, 0)]),
    "where_cond_2x3": ((2, 3), [Diag(0, 1, 0, 0, 0, 0), Diag(1, 0, 1, 1, 1, 1)]),
    "where_a_bcast": ((2, 3), [[0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1], Diag(1, 0, 1, 1, 0, 0)]),
    "cholesky": ((2, 3, 3), [D(6.04887562, 0.338115612, 9.03569409)]),
    "slogdet_logabsdet": ((3,), [[0.78362298, -0.33195728, 0.31682011, 0.82434821, 0, 0, 0, 0, 0, 0, -0, 0, 0, -0, 0,
        0, 0.79414636, 0.13491166, 0.3065114, 0.48165736, 0, 0, -0, 0, 0, -0, 0, 0, 0, 0, 0, 0, 0.59921354, 0.1886193,
        -0.036630727, 0.35412568]]),
    "inv": ((2, 2, 2), [[-0.20835519, 0.032623351, 0.036279723, -0.0056805215, -0, -0, -0, -0, 0.036279723,
        -0.16944185, -0.0063171852, 0.029503962, -0, -0, -0, -0, 0.032623351, -0.0051080226, -0.16944185, 0.026530469,
        -0, -0, -0, -0, -0.0056805215, 0.026530469, 0.029503962, -0.13779613, -0, -0, -0, -0, -0, -0, -0, -0,
        -0.20799601, 0.02480948, 0.029095493, -0.0034704707, -0, -0, -0, -0, 0.029095493, -0.17538698, -0.0040700189,
        0.024533983, -0, -0, -0, -0, 0.02480948, -0.0029592409, -0.17538698, 0.020919919, -0, -0, -0, -0,
        -0.0034704707, 0.020919919, 0.024533983, -0.1478903]]),
    "inv_adjoint": ((2, 2, 2), [[-0.20835519, 0.032623351, 0.036279723, -0.0056805215, -0, -0, -0, -0, 0.032623351,
        -0.0051080226, -0.16944185, 0.026530469, -0, -0, -0, -0, 0.036279723, -0.16944185, -0.0063171852, 0.029503962,
        -0, -0, -0, -0, -0.0056805215, 0.026530469, 0.029503962, -0.13779613, -0, -0, -0, -0, -0, -0, -0, -0,
        -0.20799601, 0.02480948, 0.029095497, -0.0034704709, -0, -0, -0, -0, 0.02480948, -0.0029592409, -0.17538698,
        0.020919919, -0, -0, -0, -0, 0.029095497, -0.17538698, -0.0040700198, 0.024533985, -0, -0, -0, -0,
        -0.0034704709, 0.020919919, 0.024533985, -0.1478903]]),
    "solve": ((2, 3, 2), [D(-0.90191144, -0.0398315735, 1.68852177), D(2.60423619, 0.359523414, 4.91657208)]),
    "solve_adjoint": ((2, 3, 2), [D(-0.904654705, -0.098112228, 1.68510945), D(2.6042363, 0.270814476, 4.91657221)]),
    "eigh_values": ((2, 3), [D(5.9999992, 1.64691488, 14.8466585)]),
    "eigh_vectors_squared": ((2, 2, 2), [[-0.12501766, 0, -0.098922074, 0.12501766, 0, 0, 0, 0, 0.12501766, 0,
        0.098922074, -0.12501766, 0, 0, 0, 0, 0.12501766, 0, 0.098922074, -0.12501766, 0, 0, 0, 0, -0.12501766, 0,
        -0.098922074, 0.12501766, 0, 0, 0, 0, 0, 0, 0, 0, -0.15264857, 0, -0.38769302, 0.15264858, 0, 0, 0, 0,
        0.15264858, 0, 0.38769302, -0.15264857, 0, 0, 0, 0, 0.15264857, 0, 0.38769302, -0.15264858, 0, 0, 0, 0,
        -0.15264858, 0, -0.38769302, 0.15264857]]),
    "gather_2_axis0": ((2, 3), [D(6, -1.55449069, 6)]),
    "gather_2_axis_m1": ((3, 2), [D(6, 0.120702582, 6)]),
    "gather_list_axis0": ((2, 2, 3), [D(12, 0.987154748, 12)]),
    "gather_2d_axis_m1": ((3, 2, 2, 2), [D(24, 1.60847389, 24)]),
    "gather_batch_dims_1": ((3, 3), [D(9, 4.54229242, 9)]),
    "gather_nd": ((3, 3), [D(9, 0.327627679, 9)]),
    "reshape_flat": ((3, 6), [D(18, 0.874740557, 18)]),
    "reshape_5d": ((3, 1, 3, 1, 2), [D(18, 0.874740557, 18)]),
    "broadcast_to": ((2, 2, 3), [D(12, 2.46855315, 12)]),
    "expand_dims_m1": ((3, 2, 3, 1), [D(18, 0.874740557, 18)]),
    "expand_dims_1": ((3, 1, 2, 3), [D(18, 0.874740557, 18)]),
    "slice": ((3, 2, 1), [D(6, 0.129965392, 6)]),
    "tile": ((3, 4, 3), [D(36, 3.39518569, 36)]),
    "stack": ((2, 3, 2), [D(6, 0.608334642, 6), D(6, 0.204538122, 6)]),
    "unstack_m1": ((3, 2), [D(6, 0.129965392, 6)]),
    "unstack_1": ((3, 3), [D(9, 0.157398082, 9)]),
    "pad": ((2, 5, 10), [D(12, 0.0835466907, 12)]),
    "split_2": ((3, 1, 3), [D(9, 0.327627679, 9)]),
    "split_3_m1": ((3, 2, 1), [D(6, 0.0781034483, 6)]),
    "split_v": ((2, 3, 3), [D(18, 1.499076, 18)]),
    "squeeze_1": ((2, 2, 1), [[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]]),
    "squeeze_m1": ((2, 1, 2), [[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]]),
    "squeeze_all": ((2, 2), [[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]]),
    "reverse_1": ((2, 3, 2), [D(12, -0.321474681, 12)]),
    "reverse_m1": ((2, 3, 2), [D(12, 4.32156182, 12)]),
    "reverse_1_m1": ((2, 3, 2), [D(12, -1.50997825, 12)]),
    "transpose": ((2, 2, 3, 2), [D(24, -0.643377141, 24)]),
    "conj_transpose_real": ((3, 2), [[1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1,
        0, 0, 0, 0, 0, 0, 0, 0, 1], [-0, -0, -0, -0, -0, -0, -0, -0, -0, -0, -0, -0, -0, -0, -0, -0, -0, -0, -0, -0,
        -0, -0, -0, -0, -0, -0, -0, -0, -0, -0, -0, -0, -0, -0, -0, -0]]),
    "conj_transpose_imag": ((3, 2), [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0], [-1, -0, -0, -0, -0, -0, -0, -0, -0, -1, -0, -0, -0, -1, -0, -0, -0, -0, -0, -0,
        -0, -0, -1, -0, -0, -0, -1, -0, -0, -0, -0, -0, -0, -0, -0, -1]]),
    "conj_transpose": ((2, 2, 2), [[1-0j, 0-0j, 0-0j, 0-0j, 0-0j, 0-0j, 0-0j, 0-0j, 0-0j, 0-0j, 1-0j, 0-0j, 0-0j,
        0-0j, 0-0j, 0-0j, 0-0j, 1-0j, 0-0j, 0-0j, 0-0j, 0-0j, 0-0j, 0-0j, 0-0j, 0-0j, 0-0j, 1-0j, 0-0j, 0-0j, 0-0j,
        0-0j, 0-0j, 0-0j, 0-0j, 0-0j, 1-0j, 0-0j, 0-0j, 0-0j, 0-0j, 0-0j, 0-0j, 0-0j, 0-0j, 0-0j, 1-0j, 0-0j, 0-0j,
        0-0j, 0-0j, 0-0j, 0-0j, 1-0j, 0-0j, 0-0j, 0-0j, 0-0j, 0-0j, 0-0j, 0-0j, 0-0j, 0-0j, 1-0j]]),
    "concat_0": ((6, 3), [D(12, 2.54547367, 12), D(6, 1.30424383, 6)]),
    "concat_m1": ((2, 9), [D(12, 2.40119093, 12), D(6, 1.21572912, 6)]),
    "zeros_like_plus_x": ((2, 3), [Diag(1, 1, 1, 1, 1, 1)]),
    "identity_plus_x": ((2, 3), [Diag(2, 2, 2, 2, 2, 2)]),
    "stop_gradient_plus_x": ((2, 3), [Diag(1, 1, 1, 1, 1, 1)]),
    "fill": ((2, 3), [[1, 1, 1, 1, 1, 1]]),
    "band_upper": ((2, 2, 3), [Diag(1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1)]),
    "band_lower": ((2, 2, 3), [Diag(1, 0, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0)]),
    "band_1_1": ((2, 2, 3), [Diag(1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1)]),
    "diag": ((3, 3), [[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]]),
    "diag_part": ((3,), [[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]]),
    "matrix_diag_part_0": ((2, 3), [D(6, -0.90168861, 6)]),
    "matrix_diag_part_m1": ((2, 2), [D(4, -1.34620244, 4)]),
    "matrix_diag_part_m2": ((2, 1), [[0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]]),
    "matrix_set_diag": ((3, 3), [Diag(0, 1, 1, 1, 0, 1, 1, 1, 0), [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 1]]),
    "strided_slice": ((2, 2, 2, 1, 1), [D(8, -0.384110178, 8)]),
    "softmax": ((2, 4), [[0.24190035, -0.092364892, -0.067917697, -0.081617758, 0, 0, 0, 0, -0.092364892, 0.17452846,
        -0.037317984, -0.0448456, 0, 0, 0, 0, -0.067917697, -0.037317984, 0.13821152, -0.032975841, 0, 0, 0, 0,
        -0.081617758, -0.0448456, -0.032975841, 0.15943919, 0, 0, 0, 0, 0, 0, 0, 0, 0.23800986, -0.022064464,
        -0.17317985, -0.042765565, 0, 0, 0, 0, -0.022064464, 0.034890447, -0.010285941, -0.0025400419, 0, 0, 0, 0,
        -0.17317985, -0.010285941, 0.20340209, -0.019936312, 0, 0, 0, 0, -0.042765565, -0.0025400419, -0.019936312,
        0.065241918]]),
    "log_softmax": ((2, 4), [[0.58999813, -0.22527918, -0.16565216, -0.19906677, 0, 0, 0, 0, -0.4100019, 0.77472079,
        -0.16565216, -0.19906677, 0, 0, 0, 0, -0.4100019, -0.22527918, 0.83434784, -0.19906677, 0, 0, 0, 0,
        -0.4100019, -0.22527918, -0.16565216, 0.80093324, 0, 0, 0, 0, 0, 0, 0, 0, 0.39050055, -0.036200956,
        -0.28413454, -0.070165053, 0, 0, 0, 0, -0.60949945, 0.96379906, -0.28413454, -0.070165053, 0, 0, 0, 0,
        -0.60949945, -0.036200956, 0.71586549, -0.070165053, 0, 0, 0, 0, -0.60949945, -0.036200956, -0.28413454,
        0.92983496]]),
    "softmax_axis0": ((2, 4), [[0.15516919, 0, 0, 0, -0.15516917, 0, 0, 0, 0, 0.21487962, 0, 0, 0, -0.21487963, 0, 0,
        0, 0, 0.14164296, 0, 0, 0, -0.14164297, 0, 0, 0, 0, 0.2499996, 0, 0, 0, -0.24999963, -0.15516917, 0, 0, 0,
        0.1551692, 0, 0, 0, 0, -0.21487963, 0, 0, 0, 0.21487962, 0, 0, 0, 0, -0.14164297, 0, 0, 0, 0.14164291, 0, 0,
        0, 0, -0.24999963, 0, 0, 0, 0.2499996]]),
}

TF_BATCH = {
    "batch_matmul": [0.71705651, 0.60691857, 0.49880561, 0, 0, 0, 0.11660156, 0.6990431, 0.27983731, 0, 0, 0, 0, 0, 0,
        0.71705651, 0.60691857, 0.49880561, 0, 0, 0, 0.11660156, 0.6990431, 0.27983731, 0.2584503, 0.23528866,
        0.64828783, 0, 0, 0, 0.70842457, 0.17067185, 0.86271465, 0, 0, 0, 0, 0, 0, 0.2584503, 0.23528866, 0.64828783,
        0, 0, 0, 0.70842457, 0.17067185, 0.86271465],
    "batch_matmul_ta_tb": [0.10829932, 0, 0.50149965, 0, 0.49661863, 0, 0.20706363, 0, 0.21368887, 0, 0.27484694, 0,
        0, 0.10829932, 0, 0.50149965, 0, 0.49661863, 0, 0.20706363, 0, 0.21368887, 0, 0.27484694, 0.43480656, 0,
        0.29848093, 0, 0.16724773, 0, 0.37639892, 0, 0.23342107, 0, 0.80284727, 0, 0, 0.43480656, 0, 0.29848093, 0,
        0.16724773, 0, 0.37639892, 0, 0.23342107, 0, 0.80284727],
    "batch_matmul_bcast_b": [0.79874355, 0.79535562, 0.28618267, 0, 0, 0, 0.87483251, 0.52468455, 0.10911904, 0, 0, 0,
        0, 0, 0, 0.79874355, 0.79535562, 0.28618267, 0, 0, 0, 0.87483251, 0.52468455, 0.10911904, 0.79874355,
        0.79535562, 0.28618267, 0, 0, 0, 0.87483251, 0.52468455, 0.10911904, 0, 0, 0, 0, 0, 0, 0.79874355, 0.79535562,
        0.28618267, 0, 0, 0, 0.87483251, 0.52468455, 0.10911904],
    "batch_matmul_bcast_a": [0.16104662, 0, 0.72393501, 0, 0.45072737, 0, 0, 0.16104662, 0, 0.72393501, 0, 0.45072737,
        0.67877215, 0, 0.88239163, 0, 0.53079671, 0, 0, 0.67877215, 0, 0.88239163, 0, 0.53079671, 0.16104662, 0,
        0.72393501, 0, 0.45072737, 0, 0, 0.16104662, 0, 0.72393501, 0, 0.45072737, 0.67877215, 0, 0.88239163, 0,
        0.53079671, 0, 0, 0.67877215, 0, 0.88239163, 0, 0.53079671],
    "einsum_batch": [0.71705651, 0.60691857, 0.49880561, 0, 0, 0, 0.11660156, 0.6990431, 0.27983731, 0, 0, 0, 0, 0, 0,
        0.71705651, 0.60691857, 0.49880561, 0, 0, 0, 0.11660156, 0.6990431, 0.27983731, 0.2584503, 0.23528866,
        0.64828783, 0, 0, 0, 0.70842457, 0.17067185, 0.86271465, 0, 0, 0, 0, 0, 0, 0.2584503, 0.23528866, 0.64828783,
        0, 0, 0, 0.70842457, 0.17067185, 0.86271465],
    "cumsum_1": D(24, 0.897178667, 24),
    "cumsum_m1": D(18, 2.36763147, 18),
    "cumsum_1_rev": D(24, 1.80114142, 24),
    "cumprod_1": D(19.908024, 1.78904894, 19.908024),
    "cumprod_m1": D(16.4320346, 2.44113259, 16.4320346),
    "cumprod_1_rev": D(19.5345954, 1.09952541, 19.5345954),
    "cholesky": D(6.04887562, 0.103829969, 9.03569409),
    "solve": D(-0.90191144, -0.0164338512, 1.68852177),
    "solve_adjoint": D(-0.904654705, -0.113697366, 1.68510945),
    "eigh_values": [0.026581885, 0, 0, 0.26377103, 0.65434748, 0, 0.18419012, 0.91385579, 0.3190707, 0.072017007, 0,
        0, 0.27618483, 0.26479185, 0, -0.43708608, -0.83811146, 0.6631915, 0.90140098, 0, 0, -0.53995562, 0.080860808,
        0, 0.25289586, -0.075744607, 0.017738029, 0.53206831, 0, 0, 0.68074179, 0.21773961, 0, 0.72970986, 0.46680474,
        0.25019178, 0.43276235, 0, 0, -0.89332616, 0.46101034, 0, -0.428817, 0.44259101, 0.10622691, 0.035169024, 0,
        0, 0.21258448, 0.32124972, 0, -0.30089277, -0.90939593, 0.64358103],
    "gather_2_axis_m1": [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0,
        0, 0, 0, 0, 1],
    "gather_2d_axis_m1": D(24, 0.1728884, 24),
    "gather_batch_dims_1": [1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0,
        0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1],
    "gather_nd": [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,
        0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1],
    "reshape_flat": D(18, 3.8497175, 18),
    "reshape_5d": D(18, 3.8497175, 18),
    "broadcast_to": [1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1,
        0, 0, 0, 1],
    "expand_dims_m1": D(18, 3.8497175, 18),
    "expand_dims_1": D(18, 3.8497175, 18),
    "slice": [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1,
        0],
    "tile": D(36, 7.8176045, 36),
    "stack": [1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0,
        0],
    "unstack_m1": [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
        0, 1, 0],
    "unstack_1": [1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1,
        0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
    "pad": D(12, -0.483583774, 12),
    "split_2": [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,
        0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1],
    "split_3_m1": [1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,
        1, 0, 0],
    "split_v": D(18, 0.876212365, 18),
    "reverse_1": D(12, -7.41538187, 12),
    "reverse_m1": D(12, 0.589070671, 12),
    "reverse_1_m1": D(12, -1.71605938, 12),
    "transpose": D(24, 18.7265705, 24),
    "concat_m1": [1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0,
        0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    "matrix_diag_part_0": D(6, 4.14605162, 6),
    "matrix_diag_part_m1": [0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0],
    "strided_slice": D(8, -0.398544233, 8),
}

# TF 2.21: the Jacobian of slogdet's sign is zeros even with UnconnectedGradients.NONE (the sign is an output of
# the differentiable LogMatrixDeterminant op, whose gradient ignores it); every other NONDIFF Jacobian is None.
NONDIFF_ZEROS = {"slogdet_sign"}
RTOL, ATOL = 2e-5, 2e-6
# API.md's rule for ops whose derivative is infinite somewhere: 0 where the incoming gradient is 0. TF 2.21's pow
# gives NaN there (0 * inf: the Jacobian rows of the other elements at a base of 0 with an exponent below 1); a
# sanctioned difference: TF's values with those NaN read as 0 (TF's inf on the diagonal stays).
TF_NAN_IS_ZERO = {"pow_at_0"}


def _want(rep, out_shape, src_shape):
    """TF's recorded Jacobian as an array of shape out_shape + src_shape (a digest D stays a digest)."""
    if isinstance(rep, D):
        return rep
    if isinstance(rep, Diag):
        return np.diag(np.asarray(rep)).reshape(tuple(out_shape) + tuple(src_shape))
    return np.asarray(rep).reshape(tuple(out_shape) + tuple(src_shape))


def _sanctioned(name, want):
    if name in TF_NAN_IS_ZERO:
        return np.where(np.isnan(want), 0.0, want)
    return want


def _batch_want(name, bsrc):
    """TF's batch_jacobian: recorded (TF_BATCH) where the full Jacobian is a digest, else TF's full Jacobian's
    per-example blocks (the generating script checked TF's batch_jacobian equals them)."""
    fn, inputs, wrt, _ = CASES[name]
    out_shape, reps = TF_JAC[name]
    if name in TF_BATCH:
        return TF_BATCH[name]
    full = _want(reps[wrt.index(bsrc)], out_shape, inputs[bsrc].shape)
    k = len(out_shape) - 1
    return np.stack([full[(b,) + (slice(None),) * k + (b,)] for b in range(out_shape[0])])


def _same(got, want, what, shape):
    assert got is not None, f"{what}: None"
    assert tuple(got.shape) == tuple(shape), f"{what}: shape {got.shape} != {shape}"
    if isinstance(want, D):
        close_to_tf(got, want, rtol=1e-5)
    elif np.iscomplexobj(want):
        assert np.iscomplexobj(got.numpy()), f"{what}: {got.dtype}, TF's is complex"
        np.testing.assert_allclose(got.numpy(), want, rtol=RTOL, atol=ATOL, err_msg=what)
    else:
        close_to_tf(got, want, rtol=RTOL, atol=ATOL)


def _tape_and_output(fn, inputs, wrt):
    xs = [tj.constant(v) for v in inputs]
    with tj.GradientTape(persistent=True) as g:
        g.watch([xs[i] for i in wrt])
        y = fn(*xs)
    return g, xs, y


@pytest.mark.parametrize("name", list(CASES))
def test_jacobian_vectorized_and_row_by_row_match_tf(name):
    fn, inputs, wrt, _ = CASES[name]
    out_shape, reps = TF_JAC[name]
    g, xs, y = _tape_and_output(fn, inputs, wrt)
    assert tuple(y.shape) == out_shape
    sources = [xs[i] for i in wrt]
    vec = g.jacobian(y, sources)
    rows = g.jacobian(y, sources, experimental_use_pfor=False)
    for k, (i, rep) in enumerate(zip(wrt, reps)):
        shape = out_shape + inputs[i].shape
        want = _sanctioned(name, _want(rep, out_shape, inputs[i].shape))
        _same(vec[k], want, f"{name}: vectorized, source {i}", shape)
        _same(rows[k], want, f"{name}: row by row, source {i}", shape)
        # the one batched backward pass and the loop of gradients agree beyond TF's rounding
        np.testing.assert_allclose(vec[k].numpy(), rows[k].numpy(), rtol=1e-6, atol=1e-7)


BATCH_CASES = [n for n, c in CASES.items() if c[3] is not None]


@pytest.mark.parametrize("name", BATCH_CASES)
def test_batch_jacobian_vectorized_and_row_by_row_match_tf(name):
    fn, inputs, wrt, bsrc = CASES[name]
    out_shape, _ = TF_JAC[name]
    g, xs, y = _tape_and_output(fn, inputs, wrt)
    want = _sanctioned(name, _batch_want(name, bsrc))
    shape = out_shape + inputs[bsrc].shape[1:]
    vec = g.batch_jacobian(y, xs[bsrc])
    rows = g.batch_jacobian(y, xs[bsrc], experimental_use_pfor=False)
    _same(vec, want, f"{name}: vectorized batch_jacobian", shape)
    _same(rows, want, f"{name}: row-by-row batch_jacobian", shape)
    np.testing.assert_allclose(vec.numpy(), rows.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", list(NONDIFF))
def test_non_differentiable_ops_give_none_or_zeros_as_tf(name):
    fn, inp = NONDIFF[name]
    x = tj.constant(inp)
    with tj.GradientTape(persistent=True) as g:
        g.watch(x)
        y = fn(x)
    full = tuple(y.shape) + inp.shape
    for use_pfor in (True, False):
        j = g.jacobian(y, x, experimental_use_pfor=use_pfor)
        if name in NONDIFF_ZEROS:
            _same(j, np.zeros(full), f"{name}: NONE, pfor={use_pfor}", full)
        else:
            assert j is None, f"{name}: NONE, pfor={use_pfor}: {j}"
        # TF's loop (pfor=False) with ZERO and a bool / int target fails inside its while loop
        # (InvalidArgumentError: TensorArray dtype is bool but Op is trying to write dtype float32); its
        # vectorized Jacobian gives float32 zeros: both paths here give those.
        z = g.jacobian(y, x, unconnected_gradients=ZERO, experimental_use_pfor=use_pfor)
        _same(z, np.zeros(full), f"{name}: ZERO, pfor={use_pfor}", full)
        assert z.dtype == tj.float32
        if y.ndim < 2:
            continue
        bshape = tuple(y.shape) + inp.shape[1:]
        # TF's batch_jacobian gives zeros for an unconnected source even with NONE, of the target's dtype
        b = g.batch_jacobian(y, x, experimental_use_pfor=use_pfor)
        _same(b, np.zeros(bshape), f"{name}: batch NONE, pfor={use_pfor}", bshape)
        assert b.dtype == y.dtype
        bz = g.batch_jacobian(y, x, unconnected_gradients=ZERO, experimental_use_pfor=use_pfor)
        _same(bz, np.zeros(bshape), f"{name}: batch ZERO, pfor={use_pfor}", bshape)
        assert bz.dtype == tj.float32


FUNCTION_CASES = ["matmul", "max_ties", "where_cond_2x1", "cumprod_1", "softmax", "solve", "gather_2d_axis_m1",
                  "c_abs", "sqrt_at_0"]


@pytest.mark.parametrize("name", FUNCTION_CASES)
def test_jacobians_inside_tj_function_match_tf(name):
    fn, inputs, wrt, bsrc = CASES[name]
    out_shape, reps = TF_JAC[name]

    @tj.function
    def jacobians(*xs):
        with tj.GradientTape(persistent=True) as g:
            g.watch([xs[i] for i in wrt])
            y = fn(*xs)
        sources = [xs[i] for i in wrt]
        return (g.jacobian(y, sources), g.jacobian(y, sources, experimental_use_pfor=False),
                g.batch_jacobian(y, xs[bsrc]), g.batch_jacobian(y, xs[bsrc], experimental_use_pfor=False))

    vec, rows, bvec, brows = jacobians(*[tj.constant(v) for v in inputs])
    for k, (i, rep) in enumerate(zip(wrt, reps)):
        shape = out_shape + inputs[i].shape
        want = _want(rep, out_shape, inputs[i].shape)
        _same(vec[k], want, f"{name}: vectorized in tj.function, source {i}", shape)
        _same(rows[k], want, f"{name}: row by row in tj.function, source {i}", shape)
    bshape = out_shape + inputs[bsrc].shape[1:]
    _same(bvec, _batch_want(name, bsrc), f"{name}: vectorized batch_jacobian in tj.function", bshape)
    _same(brows, _batch_want(name, bsrc), f"{name}: row-by-row batch_jacobian in tj.function", bshape)


@pytest.mark.parametrize("use_pfor", [True, False])
def test_truncate_mod_has_jax_numpys_gradient(use_pfor):
    # test_binary_cwise_ops's truncate_mod: TF 2.21 registers no gradient for TruncateMod (tape.jacobian raises
    # LookupError: gradient registry has no entry for: TruncateMod). tj.numpy.fmod follows jax.numpy:
    # d/dx = 1, d/dy = -trunc(x / y) (NumPy reference below).
    x, y = tj.constant(X2N), tj.constant(Y2)
    with tj.GradientTape(persistent=True) as g:
        g.watch([x, y])
        out = tnp.fmod(x, y)
    jx, jy = g.jacobian(out, [x, y], experimental_use_pfor=use_pfor)
    close_to_tf(jx, np.eye(6).reshape(2, 3, 2, 3), rtol=0)
    want_y = np.zeros((2, 3, 3))
    for i in range(2):
        for k in range(3):
            want_y[i, k, k] = -np.trunc(X2N[i, k] / Y2[k])
    close_to_tf(jy, want_y, rtol=0)
