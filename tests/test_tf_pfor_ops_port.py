"""TensorFlow's pfor op tests, ported as Jacobians: tensorflow/python/ops/parallel_for/control_flow_ops_test.py
(stored version 0304934; PForTest, ReductionTest, BitwiseTest, ImageTest, NNTest, TensorTest, WhileV2Test,
NestedControlFlowTest, StatelessIfTest, IfTest, PartitionedCallTest, SpectralTest, VariableTest) and the segment
tests of math_test.py (test_unsorted_segment_reduction, test_sparse_segment, in the stored version that has them).
The rest of math_test.py and array_test.py is ported in test_tf_unported_pfor_jacobian_port.py, gradients_test.py
in test_tf_jacobian_port.py; nothing here repeats them.

TF's tests vectorize a loop body with pfor and compare it with a while loop. tapejax has no pfor API: what it
vectorizes is ``tape.jacobian`` / ``tape.batch_jacobian`` (one batched backward pass; experimental_use_pfor=False
is a loop of gradients on a persistent tape). So each loop body becomes a computation over the whole batch (a
Python loop and a stack where the body varies per example: loop-variant shifts, trip counts, branches, segment
ids), and each test checks: the vectorized and the row-by-row Jacobian w.r.t. every float input, the same two
batch_jacobians where the body is per example, and a ForwardAccumulator JVP along one-hot tangents (a sum of
Jacobian columns), all against TF 2.21's tape.jacobian / batch_jacobian / ForwardAccumulator on the same inputs
(hard-coded; ``D`` is a digest of a larger array, ``Cx`` a complex one's real and imaginary parts), and the two
tapejax paths against each other. Some bodies run inside tj.function (Jacobians taken in the trace, both ways,
and from an outer tape over the call), some with Variables as the sources, unconnected sources (None, or zeros
with UnconnectedGradients.ZERO), integer outputs, zero-size dimensions, and Jacobians of Jacobians (TF's pfor
nests). Loop bodies returning ``g.gradient(...)`` (avg_pool, max_pool, fused_batch_norm, the cross entropies,
PartitionedCallTest.test_gradients) are ported as that gradient taken on an inner tape: its Jacobian is a
Hessian.

TF ops -> tj: conv2d (NHWC / HWIO) -> nn.conv with dimension_numbers ("NHWC", "HWIO", "NHWC"), and once through
the NCHW / OIHW default by transposes; depthwise_conv2d_native(filter [h, w, in, m]) -> nn.conv with
feature_group_count=in and the filter reshaped to [h, w, 1, in * m]; conv2d_backprop_input / _filter and the
depthwise ones -> the gradient of that conv for its input / filter with output_gradients=the backprop; roll ->
tnp.roll; avg_pool / max_pool (2-D and 3-D, NHWC / NDHWC) -> nn.avg_pool / nn.max_pool; l2_loss -> sum(y * y) / 2;
fused_batch_norm(is_training=True) -> nn.batch_norm(epsilon=0.01) per example; softmax / log_softmax /
(sparse_)softmax_cross_entropy_with_logits -> tj.nn's; adjust_contrast -> (x - mean) * 2 + mean over height and
width; top_k(x, 2).values -> flip(sort(x))[..., :2]; tensordot -> tnp.tensordot; pfor_config.reduce* -> the
reduction over the batch axis; bitwise_ops -> tnp.invert / bitwise_and / _or / _xor / left_shift / right_shift;
unsorted_segment_sum / max / min / prod -> .at[rows, ids].add / .max / .min / .multiply on zeros / the lowest /
the highest float / ones (TF's values of an empty segment); sparse_segment_sum / mean / sqrt_n -> a gather, an
.at[].add, and a division by the segment sizes (at least 1) / their square roots; tensor_scatter_nd_update / _add
-> .at[].set / .add; while_loop / cond / indexed_case -> Python loops and branches (cond_v2 in pfor -> where);
tf.function -> tj.function; fft / fft2d / fft3d / ifft* / rfft / rfft2d / irfft / irfft2d -> tnp.fft's fft /
fft2 / fftn(axes=(-3, -2, -1)) / ifft* / rfft / rfft2 / irfft / irfft2; ResourceVariable -> tj.Variable.

Left out (and why):
- PForTest: test_parallel_iterations(_preserves_static_shape, _zero, _one) (pfor's parallel_iterations argument:
  no counterpart; gradients_test's one is in test_tf_jacobian_port.py); test_vectorized_map (mean(axis, keepdims)
  per example: "mean_1_keep" of test_tf_unported_pfor_jacobian_port.py); test_vectorized_map_with_dynamic_shape
  (placeholder).
- IndexedSlicesTest (IndexedSlices results; the Jacobian through a gather is test_jacobian_indexed_slices).
- ReductionTest: test_reduce_class, test_reduce_functools_partial (test_reduce_mean's computation; they test how
  pfor calls loop_fn); test_parallel_iterations, test_var_loop_len (pfor arguments, placeholders).
- ImageTest: test_adjust_hue, test_adjust_saturation (no tj counterpart; TF 2.21 registers no gradient for them).
- NNTest: *_nchw depthwise variants (GPU only in TF; the NCHW layout is covered by conv2d_via_nchw);
  test_ensure_shape (a shape assertion, no counterpart); test_max_pool_v2 (MaxPoolV2 = max_pool with the window
  as a tensor: max_pool's values); fused_batch_norm with is_training=False (tj.nn.batch_norm is training mode only).
- RandomTest, StatelessRandomTest (random ops: excluded from this port); LoggingTest (print / Assert).
- TensorArrayTest, TensorListTest, StackTest, OptionalTest, WhileV1Test, RNNTest (TF1 control flow and TF data
  structures run in sessions; LSTM Jacobians are in test_tf_jacobian_port.py); SparseTest, CompositeTensorTest,
  ParsingTest (sparse / composite / string values); Benchmarks.
- TensorTest: test_loop_variant_scatter_update_no_shape (a shape-less input_signature: no counterpart; its values
  are test_loop_variant_scatter_update_singles'); test_loop_variant_scatter_update_folded_indices (an update
  writing one index twice: TF leaves the order unspecified; repeated indices are ported with tensor_scatter_nd_add).
- WhileV2Test: test_while_outside_loop, test_invariant_while(_with_control_dependency), test_while_with_stateful_ops,
  test_while_unstacked_condition, test_while_change_input_invariance, test_while_shape_invariants (int32 loop
  counters only: nothing to differentiate; loops are Python loops here).
- StatelessIfTest.test_loop_invariant_cond, VariableTest.testStatelessCaseUnstacked (a loop-invariant branch is a
  plain Python branch here); PartitionedCallTest.test_nested_calls_loop_fn_autograph (autograph of a range loop);
  VariableTest: test_create_variable_repeated (vectorized_map's variable-creation error), test_variable_shape
  (int shape metadata).
- SpectralTest: rfft3d / irfft3d (TF 2.21 registers no gradient for RFFT3D / IRFFT3D: LookupError), float64 and
  complex128 (JAX's x64 is off).
- math_test: test_sparse_segment_grad (SparseSegmentMeanGrad / SqrtNGrad are backward kernels, not tj ops);
  int64 segment ids (x64 off).

Sanctioned differences (TF 2.21 against API.md):
- Zero-size dimensions: TF's row-by-row Jacobian raises ValueError for a zero-size target, its batch_jacobian of a
  batch of 0 dies in ZeroDivisionError; API.md: zero-size dimensions work in both modes (shapes tested).
- TF's row-by-row Jacobian fails for a real target of a complex source and the reverse (irfft, rfft) and for an
  int target with ZERO (InvalidArgumentError "TensorArray dtype is ..."); TF's vectorized values are tested on
  both paths.
- sparse_segment_sum / mean / sqrt_n: TF's vectorized Jacobian (and batch_jacobian) of the stacked per-example
  results is wrong (examples 1 and 2 lose entries or get them in another example's columns; checked against a
  NumPy reference); the values are TF's row-by-row ones. TF's ForwardAccumulator fails on them (no gradient for
  SparseSegmentSumGrad, ...): the JVPs are TF's Jacobian columns.
- unsorted_segment_max / min: TF's ForwardAccumulator gives NaN for an empty segment's JVP where its Jacobian gives
  0; API.md's one set of rules on every path: the JVPs are TF's Jacobian columns.
- scan_log_prob: TF's vectorized Jacobian of a tf.scan w.r.t. a Variable fails ("Encountered an exception while
  vectorizing"); the values are its row-by-row ones, which both paths here give.
- function_reads_variable_grads: the Jacobian w.r.t. v of a gradient taken through a function reading v is None in
  TF eager but zeros through tf.function (the call's gradient takes v as an input); API.md: TF's None on every path.
- adjust_contrast: TF registers no gradient for AdjustContrastv2; TF's values are the op's output and, the op being
  linear, its output on one-hot images (its Jacobian).
- TF's vectorized Jacobian of tensor_scatter_nd_update fails on int64 indices (ConcatV2 of int32 and int64); TF's
  values were computed with int32 indices.

Difference from TF 2.21 found and fixed in tapejax: tj.nn.batch_norm differentiated its batch_mean / batch_var
outputs; TF's FusedBatchNorm gradient drops their output gradients (their Jacobians are zeros, their JVPs None).
"""
import warnings

import numpy as np
import pytest

import tapejax as tj
from conftest import D, close_to_tf

tnp = tj.numpy
nn = tj.nn
ZERO = tj.UnconnectedGradients.ZERO
RTOL, ATOL = 2e-4, 2e-5


# -- inputs: small, seeded (TF's tests draw random_uniform; the values below were fed to TF 2.21 as they are) -----

def _u(seed, *shape, lo=0.0, hi=1.0):
    return np.random.RandomState(seed).uniform(lo, hi, shape).astype(np.float32)


def _z(seed, *shape):
    r = np.random.RandomState(seed)
    return (r.uniform(-1, 1, shape) + 1j * r.uniform(-1, 1, shape)).astype(np.complex64)


def _normalized(a, axis):
    return (a / a.sum(axis=axis, keepdims=True)).astype(np.float32)


def _ties(seed, *shape):
    # integer-valued floats: pooling windows with several equal maxima
    return np.random.RandomState(seed).randint(0, 3, shape).astype(np.float32)


def _seg_data_with_ties():
    t = _u(31, 3, 3, 2)
    t[0, 1] = t[0, 0]        # example 0: rows 0 and 1 share segment 0, equal in both channels
    t[2, 2, 0] = t[2, 0, 0]  # example 2: all rows in segment 2, rows 0 and 2 tie in channel 0
    return t


def _seg_data_with_zeros():
    t = _u(32, 3, 3, 2, lo=0.5, hi=1.5)
    t[0, 0, 0] = 0.0         # one zero in a segment of two
    t[2, 0, 1] = 0.0         # two zeros in a segment of three
    t[2, 1, 1] = 0.0
    return t


IN = {
    "cx": _u(1, 2, 5, 5, 2), "cw": _u(2, 3, 3, 2, 3), "cg": _u(3, 2, 2, 2, 3),
    "dw": _u(4, 3, 3, 2, 2), "dg": _u(5, 2, 2, 2, 4),
    "rx": _u(6, 2, 3, 4), "rx4": _u(7, 3, 2, 3, 4),
    "px": _u(8, 2, 5, 5, 2), "pu": _u(9, 2, 2, 2, 2), "pt": _ties(10, 2, 4, 4, 1), "ptu": _u(11, 2, 2, 2, 1),
    "p3": _u(12, 2, 4, 4, 4, 1), "p3m": _u(13, 2, 2, 5, 5, 1),
    "bx": _u(14, 2, 1, 3, 3, 2), "bs": _u(15, 2), "bo": _u(16, 2),
    "lg": _u(17, 2, 2, 4), "lb": _normalized(_u(18, 2, 2, 4), -1),
    "im": _u(19, 2, 3, 3, 2),
    "wa": np.array([[1.0], [-2.0]], np.float32), "wb": np.array([1.5], np.float32),
    "ba": np.array([3.1], np.float32), "bb": np.array([-2.0, 6.0, 9.0], np.float32),
    "oa": _u(20, 2, 2, 2),
    "r3": _u(21, 3, 2, 2), "r3y": _u(22, 3, 2, 2), "r4": _u(23, 4, 3),
    "st": _u(24, 3, 3, 2), "stt": _seg_data_with_ties(), "stz": _seg_data_with_zeros(),
    "sd": _u(25, 3, 4, 2),
    "sb8": _u(26, 2, 8), "su4": _u(27, 2, 4), "sb53": _u(28, 2, 5, 3), "su23": _u(29, 2, 2, 3),
    "su2": _u(30, 2, 2), "su3": _u(33, 2, 3),
    "wx": _u(34, 3, 5), "jx": _u(35, 1, 3), "jy": _u(36, 3, 3),
    "nx": _u(37, 5, 5),
    "cfx": np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32), "cfy": np.array(2.5, np.float32),
    "cfy6": np.array(6.0, np.float32), "rs": _u(49, 3, 3, 4),
    "fz": _u(38, 4, 2), "fs": np.array(10.0, np.float32),
    "zc": _z(39, 2, 3, 4), "zc3": _z(40, 2, 2, 3, 2), "fr": _u(41, 2, 3, 4), "fr3": _u(42, 2, 2, 3, 2),
    "zh": _z(43, 2, 3, 3), "zh3": _z(44, 2, 2, 3, 3),
}
LABELS = np.array([[3, 0], [1, 2]], np.int32)  # sparse_softmax_cross_entropy_with_logits' class ids for "lg"


# -- the tapejax side of each op family ----------------------------------------------------------------------

NHWC = ("NHWC", "HWIO", "NHWC")  # tf.nn.conv2d's layout; tj.nn.conv defaults to NCHW / OIHW as jax.lax


def _conv(x, w, groups=1):
    return nn.conv(x, w, (2, 2), "VALID", dimension_numbers=NHWC, feature_group_count=groups)


def _conv_through_nchw(x, w):
    # the same convolution in tj.nn.conv's default layout: NHWC -> NCHW, HWIO -> OIHW, and back
    y = nn.conv(tnp.transpose(x, (0, 3, 1, 2)), tnp.transpose(w, (3, 2, 0, 1)), (2, 2), "VALID")
    return tnp.transpose(y, (0, 2, 3, 1))


def _depthwise(x, w):
    # tf.nn.depthwise_conv2d_native's filter [h, w, in, multiplier] is a grouped HWIO kernel [h, w, 1, in * mult]
    return _conv(x, tnp.reshape(w, (3, 3, 1, 4)), groups=2)


def _backprop_input(conv, x_shape):
    # Conv2DBackpropInput(x_shape, w, g) is the convolution's gradient for its input (it does not read x)
    def f(w, g):
        x0 = tnp.zeros(x_shape)
        with tj.GradientTape() as t:
            t.watch(x0)
            y = conv(x0, w)
        return t.gradient(y, x0, output_gradients=g)
    return f


def _backprop_filter(conv, w_shape):
    def f(x, g):
        w0 = tnp.zeros(w_shape)
        with tj.GradientTape() as t:
            t.watch(w0)
            y = conv(x, w0)
        return t.gradient(y, w0, output_gradients=g)
    return f


def _grad_of(fn, loss):
    # TF's loop bodies that return g.gradient(loss(fn(x)), x): the Jacobian of that is a Hessian
    def f(x, *rest):
        with tj.GradientTape() as t:
            t.watch(x)
            y = fn(x, *rest)
            s = loss(y)
        return t.gradient(s, x)
    return f


def _l2(y):
    return tnp.sum(y * y) / 2  # tf.nn.l2_loss


def _max_pool_grad(x, u):
    with tj.GradientTape() as t:
        t.watch(x)
        y = nn.max_pool(x, (3, 3), (2, 2), "VALID")
    return t.gradient(y, x, output_gradients=u)


def _max_pool_grad_ties(x, u):
    with tj.GradientTape() as t:
        t.watch(x)
        y = nn.max_pool(x, (2, 2), (2, 2), "VALID")
    return t.gradient(y, x, output_gradients=u)


def _batch_norm(k):
    # fused_batch_norm(is_training=True) inside the pfor loop: each example normalized on its own statistics
    def f(x, s, o):
        return tnp.stack([nn.batch_norm(x[i], s, o, epsilon=0.01)[k] for i in range(x.shape[0])])
    return f


def _batch_norm_grads(k):
    # TF's loop body: the gradients of l2_loss(y) w.r.t. [x_i, scale, offset]; k picks one
    def f(x, s, o):
        out = []
        for i in range(x.shape[0]):
            xi = x[i]
            with tj.GradientTape() as t:
                t.watch([xi, s, o])
                y = nn.batch_norm(xi, s, o, epsilon=0.01)[0]
                loss = _l2(y)
            out.append(t.gradient(loss, [xi, s, o])[k])
        return tnp.stack(out)
    return f


def _xent_grad(lg, lb):
    with tj.GradientTape() as t:
        t.watch(lg)
        loss = tnp.sum(nn.softmax_cross_entropy_with_logits(lb, lg))
    return t.gradient(loss, lg)


def _sparse_xent_grad(lg):
    with tj.GradientTape() as t:
        t.watch(lg)
        loss = tnp.sum(nn.sparse_softmax_cross_entropy_with_logits(LABELS, lg))
    return t.gradient(loss, lg)


def _adjust_contrast(im):
    # tf.image.adjust_contrast(images, 2.0): (x - mean) * 2 + mean, the mean over each image's height and width
    m = tnp.mean(im, axis=(1, 2), keepdims=True)
    return (im - m) * 2.0 + m


def _top_k_values(x):
    # tf.math.top_k(x, 2).values: the two largest along the last axis, largest first
    return tnp.flip(tnp.sort(x, axis=-1), -1)[..., :2]


def _roll_loop_variant(x):
    # test_loop_variant_roll_shift: example i rolled by (i - 2, -1, i) along its axes (1, 2, 2)
    return tnp.stack([tnp.roll(x[i], (i - 2, -1, i), axis=(1, 2, 2)) for i in range(x.shape[0])])


ROWS3, ROWS2 = np.arange(3)[:, None], np.arange(2)[:, None]
SEG = np.array([[0, 0, 2], [0, 1, 2], [2, 2, 2]])          # test_unsorted_segment_reduction's per-example ids
SP_IDX = np.array([[1, 2, 3], [0, 1, 2], [0, 2, 3]])       # test_sparse_segment's indices and segment ids
SP_SEG = np.array([[0, 0, 2], [1, 1, 1], [0, 1, 1]])
SP_COUNT = np.maximum((SP_SEG[:, :, None] == np.arange(3)).sum(1), 1).astype(np.float32)[:, :, None]
F32 = np.finfo(np.float32)


def _segment(kind):
    # unsorted_segment_X(data_i, seg_i, 3) for each example i: an .at[] update of the op's identity element
    def f(t):
        if kind == "sum":
            return tnp.zeros((3, 3, 2)).at[ROWS3, SEG].add(t)
        if kind == "sum_data0":  # reduction_op(data_0, seg_ids_i, num_segments)
            return tnp.zeros((3, 3, 2)).at[ROWS3, SEG].add(tnp.broadcast_to(t[0], (3, 3, 2)))
        if kind == "max":  # an empty segment holds the lowest float, as TF
            return tnp.full((3, 3, 2), F32.min).at[ROWS3, SEG].max(t)
        if kind == "min":
            return tnp.full((3, 3, 2), F32.max).at[ROWS3, SEG].min(t)
        return tnp.ones((3, 3, 2)).at[ROWS3, SEG].multiply(t)
    return f


def _sparse_segment(kind):
    # sparse_segment_X(data_i, indices_i, seg_ids_i, num_segments=3): a gather, then a segment sum
    def f(d):
        s = tnp.zeros((3, 3, 2)).at[ROWS3, SP_SEG].add(d[ROWS3, SP_IDX])
        if kind == "mean":
            return s / SP_COUNT
        if kind == "sqrt_n":
            return s / np.sqrt(SP_COUNT)
        return s
    return f


SC_SINGLE = np.array([[0, 1, 3, 2], [1, 2, 4, 3]])   # [[i], [i + 1], [i + 3], [i + 2]] for i = 0, 1
SC_SLICE = np.array([[2, 4], [3, 4]])                 # [[i + 2], [4]]
SC_COL = np.array([[1, 2], [1, 2]])                   # the second index column of [[i + 2, 1], [4, 2]]
SC_DUP = np.array([[1, 1, 3], [0, 2, 2]])             # repeated indices: tensor_scatter_nd_add sums them


LENGTHS = [4, 0, 2]      # test_while's per-example trip counts
NEST_Y = [4, -1, 2, -2, 2]  # NestedControlFlowTest's y


def _prefix_sums(x):
    out = []
    for i, n in enumerate(LENGTHS):
        t = tj.constant(0.0)
        for j in range(n):
            t = t + x[i, j]
        out.append(t)
    return tnp.stack(out)


def _matpow(x, y):
    out = x
    for _ in range(4):  # test_while_jacobian: x @ y @ y @ y @ y
        out = tnp.matmul(out, y)
    return out


def _ident(x, y):
    return x, y


def _cond(f=_ident):
    return lambda x, y: f(x, y) if y > 0 else (x + 1.0, y)


def _while(f=_ident):
    def g(x, y):
        t = x
        for j in range(max(y, 0)):
            t = t + f(x, y)[0][j]
        return t, y
    return g


def _per_example(f):
    return lambda x: tnp.stack([f(x[i], NEST_Y[i])[0] for i in range(x.shape[0])])


def _cond_where(x, y):
    # StatelessIfTest.test_loop_variant_cond, the cond vectorized as pfor does it: a select per output
    c = x < y
    return tnp.stack([tnp.where(c, y - x, x - y), tnp.where(c, y, 0.0), tnp.where(c, 1.0, y),
                      tnp.where(c, 2.0, 3.0)], axis=1)


CASE_IDS = [1, 0, 0, 0, 2, 1, 0, 2, 0, 1]  # testStatelessCase's branch indices


def _indexed_case(x):
    branches = (lambda: x, lambda: x + 1.0, lambda: x + 2.0)
    return tnp.stack([branches[k]() for k in CASE_IDS])


_square_plus_1 = tj.function(lambda x: tnp.square(x) + 1)
_inner_square = tj.function(tnp.square)
_outer_sum = tj.function(lambda y: tnp.sum(_inner_square(y)) + 2)


@tj.function
def _outer_defining_inner(y):
    inner = tj.function(lambda x: tnp.square(x) + 1)  # test_nested_definition: a function defined in a trace
    return tnp.sum(inner(y)) + 2


def _function_grad(z):
    with tj.GradientTape() as t:
        t.watch(z)
        out = _square_plus_1(z)
    return t.gradient(out, z)


# name -> (tapejax function, input names, index of the per-example source for batch_jacobian or None)
CASES = {
    # NNTest
    "conv2d": (_conv, ["cx", "cw"], 0),
    "conv2d_via_nchw": (_conv_through_nchw, ["cx", "cw"], 0),
    "conv2d_backprop_input": (_backprop_input(_conv, (2, 5, 5, 2)), ["cw", "cg"], 1),
    "conv2d_backprop_filter": (_backprop_filter(_conv, (3, 3, 2, 3)), ["cx", "cg"], None),
    "depthwise_conv2d": (_depthwise, ["cx", "dw"], 0),
    "depthwise_backprop_input": (_backprop_input(_depthwise, (2, 5, 5, 2)), ["dw", "dg"], 1),
    "depthwise_backprop_filter": (_backprop_filter(_depthwise, (3, 3, 2, 2)), ["cx", "dg"], None),
    "roll": (lambda x: tnp.roll(x, 3, axis=2), ["rx"], 0),
    "roll_loop_variant": (_roll_loop_variant, ["rx4"], 0),
    "roll_loop_variant_scalar": (lambda x: tnp.stack([tnp.roll(x[i], i, axis=0) for i in range(3)]), ["rs"], 0),
    "avg_pool": (lambda x: nn.avg_pool(x, (3, 3), (2, 2), "VALID"), ["px"], 0),
    "avg_pool_l2_grad": (_grad_of(lambda x: nn.avg_pool(x, (3, 3), (2, 2), "VALID"), _l2), ["px"], 0),
    "avg_pool3d": (lambda x: nn.avg_pool(x, (2, 2, 2), (2, 2, 2), "VALID"), ["p3"], 0),
    "max_pool": (lambda x: nn.max_pool(x, (3, 3), (2, 2), "VALID"), ["px"], 0),
    "max_pool_l2_grad": (_grad_of(lambda x: nn.max_pool(x, (3, 3), (2, 2), "VALID"), _l2), ["px"], 0),
    "max_pool_grad": (_max_pool_grad, ["px", "pu"], 1),
    "max_pool_ties": (lambda x: nn.max_pool(x, (2, 2), (2, 2), "VALID"), ["pt"], 0),
    "max_pool_grad_ties": (_max_pool_grad_ties, ["pt", "ptu"], 1),
    "max_pool3d": (lambda x: nn.max_pool(x, (1, 3, 3), (1, 2, 2), "VALID"), ["p3m"], 0),
    "batch_norm_y": (_batch_norm(0), ["bx", "bs", "bo"], 0),
    "batch_norm_mean": (_batch_norm(1), ["bx", "bs", "bo"], 0),
    "batch_norm_var": (_batch_norm(2), ["bx", "bs", "bo"], 0),
    "batch_norm_grad_x": (_batch_norm_grads(0), ["bx", "bs", "bo"], 0),
    "batch_norm_grad_scale": (_batch_norm_grads(1), ["bx", "bs", "bo"], 0),
    "softmax_axis1": (lambda x: nn.softmax(x, axis=1), ["rx"], 0),
    "log_softmax_axis1": (lambda x: nn.log_softmax(x, axis=1), ["rx"], 0),
    "softmax_xent": (lambda lg, lb: nn.softmax_cross_entropy_with_logits(lb, lg), ["lg", "lb"], 0),
    "softmax_xent_grad": (_xent_grad, ["lg", "lb"], 0),
    "sparse_softmax_xent": (lambda lg: nn.sparse_softmax_cross_entropy_with_logits(LABELS, lg), ["lg"], 0),
    "sparse_softmax_xent_grad": (_sparse_xent_grad, ["lg"], 0),
    # ImageTest, PForTest, ReductionTest
    "top_k": (_top_k_values, ["rx"], 0),
    "where_broadcast": (lambda a, b: tnp.where(a > 0, a, b), ["wa", "wb"], 0),
    "broadcast_unit_dims": (lambda a, b: a + b, ["ba", "bb"], None),
    "tensordot_outer": (lambda a: tnp.stack([tnp.tensordot(a[i], a[i], 0) for i in range(2)]), ["oa"], 0),
    "pfor_reduce": (lambda x, y: tnp.mean(x + y, axis=0) + x, ["r3", "r3y"], None),
    "pfor_reduce_mean": (lambda x: x - tnp.mean(x, axis=0), ["r4"], None),
    "pfor_reduce_sum": (lambda x: x - tnp.sum(x, axis=0), ["r4"], None),
    # math_test's segment reductions
    "unsorted_segment_sum": (_segment("sum"), ["st"], 0),
    "unsorted_segment_sum_data0": (_segment("sum_data0"), ["st"], None),
    "unsorted_segment_max": (_segment("max"), ["st"], 0),
    "unsorted_segment_min": (_segment("min"), ["st"], 0),
    "unsorted_segment_prod": (_segment("prod"), ["st"], 0),
    "unsorted_segment_max_ties": (_segment("max"), ["stt"], 0),
    "unsorted_segment_min_ties": (_segment("min"), ["stt"], 0),
    "unsorted_segment_prod_zeros": (_segment("prod"), ["stz"], 0),
    "sparse_segment_sum": (_sparse_segment("sum"), ["sd"], 0),
    "sparse_segment_mean": (_sparse_segment("mean"), ["sd"], 0),
    "sparse_segment_sqrt_n": (_sparse_segment("sqrt_n"), ["sd"], 0),
    # TensorTest: tensor_scatter_nd_update / _add
    "scatter_update_singles": (lambda b, u: b.at[ROWS2, SC_SINGLE].set(u), ["sb8", "su4"], 0),
    "scatter_update_slices": (lambda b, u: b.at[ROWS2, SC_SLICE].set(u), ["sb53", "su23"], 0),
    "scatter_update_multi_dim": (lambda b, u: b.at[ROWS2, SC_SLICE, SC_COL].set(u), ["sb53", "su2"], 0),
    "scatter_add_duplicates": (lambda b, u: b.at[ROWS2, SC_DUP].add(u), ["sb8", "su3"], 1),
    # WhileV2Test, NestedControlFlowTest, StatelessIfTest, VariableTest.testStatelessCase
    "while_prefix_sum": (_prefix_sums, ["wx"], None),
    "while_matpow": (_matpow, ["jx", "jy"], None),
    "cond_while": (_per_example(_cond(_while())), ["nx"], 0),
    "while_cond": (_per_example(_while(_cond())), ["nx"], 0),
    "while_while": (_per_example(_while(_while())), ["nx"], 0),
    "cond_cond": (_per_example(_cond(_cond())), ["nx"], 0),
    "cond_loop_variant": (_cond_where, ["cfx", "cfy"], None),
    "cond_one_branch_taken": (_cond_where, ["cfx", "cfy6"], None),  # test_empty_branch: y = 6, always the first
    "indexed_case": (_indexed_case, ["fs"], None),
    # PartitionedCallTest: tj.function calls inside the computation
    "function_simple": (lambda z: _square_plus_1(z), ["fz"], 0),
    "function_nested_calls": (lambda z: tnp.stack([_outer_sum(z[i]) for i in range(4)]), ["fz"], None),
    "function_nested_definition": (lambda z: tnp.stack([_outer_defining_inner(z[i]) for i in range(4)]), ["fz"],
                                   None),
    "function_gradients": (_function_grad, ["fz"], 0),
    # SpectralTest
    "fft": (tnp.fft.fft, ["zc"], 0),
    "fft2d": (tnp.fft.fft2, ["zc"], 0),
    "fft3d": (lambda z: tnp.fft.fftn(z, axes=(-3, -2, -1)), ["zc3"], 0),
    "ifft": (tnp.fft.ifft, ["zc"], 0),
    "ifft2d": (tnp.fft.ifft2, ["zc"], 0),
    "ifft3d": (lambda z: tnp.fft.ifftn(z, axes=(-3, -2, -1)), ["zc3"], 0),
    "rfft": (tnp.fft.rfft, ["fr"], 0),
    "rfft2d": (tnp.fft.rfft2, ["fr"], 0),
    "irfft": (tnp.fft.irfft, ["zh"], 0),
    "irfft2d": (tnp.fft.irfft2, ["zh"], 0),
}


class Cx(tuple):
    """TF's values of a complex Jacobian: (real parts, imaginary parts), each listed or a digest ``D``."""

    def __new__(cls, re, im):
        return super().__new__(cls, (re, im))


# TF 2.21: name -> (target shape, [(Jacobian dtype, values) per source], JVP along _one_hot_tangents, batch_jacobian)
TF = {
    'conv2d': (
        (2, 2, 2, 3),
        [('float32', D(196.08945, -14.886126, 196.08945)), ('float32', D(209.14066, 3.240783, 209.14066))],
        [
            0.87811744, 0, 0, 0.55868983, 0, 0, 0.53316528, 0, 0, 0.83462566, 0, 0, 0.85017419, 0.025926232,
            0.54966247, 0.51488912, 0, 0, 0.34889835, 0, 0, 0.96484005, 0, 0,
        ],
        D(196.08945, -0.9633929, 196.08945),
    ),
    'conv2d_via_nchw': (
        (2, 2, 2, 3),
        [('float32', D(196.08945, -14.886126, 196.08945)), ('float32', D(209.14066, 3.240783, 209.14066))],
        [
            0.87811744, 0, 0, 0.55868983, 0, 0, 0.53316528, 0, 0, 0.83462566, 0, 0, 0.85017419, 0.025926232,
            0.54966247, 0.51488912, 0, 0, 0.34889835, 0, 0, 0.96484005, 0, 0,
        ],
        D(196.08945, -0.9633929, 196.08945),
    ),
    'conv2d_backprop_input': (
        (2, 5, 5, 2),
        [('float32', D(183.37781, 1.2281438, 183.37781)), ('float32', D(196.08945, -17.207395, 196.08945))],
        D(11.609092, 2.5562062, 11.609092),
        D(196.08945, 1.1819722, 196.08945),
    ),
    'conv2d_backprop_filter': (
        (3, 3, 2, 3),
        [('float32', D(183.37781, 0.0043695617, 183.37781)), ('float32', D(209.14066, 4.3599995, 209.14066))],
        D(8.0855942, 1.5148972, 8.0855942),
        None,
    ),
    'depthwise_conv2d': (
        (2, 2, 2, 4),
        [('float32', D(150.09629, 1.8957051, 150.09629)), ('float32', D(139.4271, 6.1109074, 139.4271))],
        [
            0, 0, 0.87811744, 0, 0, 0, 0.55868983, 0, 0, 0, 0.53316528, 0, 0, 0, 0.83462566, 0, 0.96702981, 0.54723227,
            0.41417927, 0, 0, 0, 0.51488912, 0, 0, 0, 0.34889835, 0, 0, 0, 0.96484005, 0,
        ],
        D(150.09629, 4.1249483, 150.09629),
    ),
    'depthwise_backprop_input': (
        (2, 5, 5, 2),
        [('float32', D(125.65459, 0.32538284, 125.65459)), ('float32', D(150.09629, 6.047228, 150.09629))],
        D(7.6908073, 1.6684138, 7.6908073),
        D(150.09629, -0.73214081, 150.09629),
    ),
    'depthwise_backprop_filter': (
        (3, 3, 2, 2),
        [('float32', D(125.65459, -0.47985612, 125.65459)), ('float32', D(139.4271, 2.6466953, 139.4271))],
        [
            0.43360198, 0.29607993, 0, 0, 0.21162811, 0, 0, 0, 0.49157315, 0, 0, 0, 0.10233443, 0, 0, 0, 0.69440013, 0,
            0, 0, 0.049953461, 0, 0, 0, 0.90340191, 0, 0, 0, 0.13927634, 0, 0, 0, 0.39767683, 0, 0, 0,
        ],
        None,
    ),
    'roll': (
        (2, 3, 4),
        [('float32', D(24, -0.75270902, 24))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
        D(24, 3.3094732, 24),
    ),
    'roll_loop_variant': ((3, 2, 3, 4), [('float32', D(72, -1.027396, 72))], D(1, 0.81623852, 1), D(72, 3.9098415, 72)),
    'roll_loop_variant_scalar': (
        (3, 3, 4),
        [('float32', D(36, -0.25629279, 36))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        D(36, 0.25418524, 36),
    ),
    'avg_pool': (
        (2, 2, 2, 2),
        [('float32', D(16, 1.1410495, 16))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0.11111111, 0, 0, 0, 0, 0, 0, 0],
        D(16, -0.0053047221, 16),
    ),
    'avg_pool_l2_grad': (
        (2, 5, 5, 2),
        [('float32', D(16, -0.065317481, 16))],
        D(0.11111111, 0.034648422, 0.11111111),
        D(16, -0.0062214541, 16),
    ),
    'avg_pool3d': (
        (2, 2, 2, 2, 1),
        [('float32', D(16, -0.0072934559, 16))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0.125, 0, 0, 0, 0, 0, 0, 0],
        D(16, -0.74713916, 16),
    ),
    'max_pool': (
        (2, 2, 2, 2),
        [('float32', D(16, 3.1273218, 16))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        D(16, 3.9985301, 16),
    ),
    'max_pool_l2_grad': ((2, 5, 5, 2), [('float32', D(16, -3.344624, 16))], D(0, 0, 0), D(16, 2.7757584, 16)),
    'max_pool_grad': (
        (2, 5, 5, 2),
        [('float32', D(0, 0, 0)), ('float32', D(16, 1.6044287, 16))],
        D(1, 0.036270827, 1),
        D(16, 2.7763417, 16),
    ),
    'max_pool_ties': ((2, 2, 2, 1), [('float32', D(8, 3.0821351, 8))], [0, 0, 0, 0, 0, 0, 0, 0], D(8, -1.9438282, 8)),
    'max_pool_grad_ties': (
        (2, 4, 4, 1),
        [('float32', D(0, 0, 0)), ('float32', D(8, 0.77316765, 8))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        D(8, 0.45911761, 8),
    ),
    'max_pool3d': (
        (2, 2, 2, 2, 1),
        [('float32', D(16, -2.4419606, 16))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        D(16, -0.90303671, 16),
    ),
    'batch_norm_y': (
        (2, 1, 3, 3, 2),
        [
            ('float32', D(-6.2695472e-07, 5.1796016, 129.88164)),
            ('float32', D(3.7252903e-08, -5.7004913, 27.640379)),
            ('float32', D(36, 0.065174304, 36)),
        ],
        [
            0, 2.3088322, 0, -0.096008539, 0, 2.8885407, 0, 0.87909806, 0, 0.57412493, 0, 0.95443881, 0, -0.10283899,
            0, 0.53882587, 0, 1.0549868, 2.9449961, 2.3212454, -0.51221514, 0.034127235, -0.16092268, 1.3117578,
            -0.39054373, 0.55065513, -0.40792003, 1.949512, -0.088199049, 0.77645224, -0.52270824, -0.059602141,
            -0.43588808, -0.13314795, -0.42659903, 2.2490005,
        ],
        D(-6.2695472e-07, 3.6130947, 129.88164),
    ),
    'batch_norm_mean': (  # TF's ForwardAccumulator: None
        (2, 2),
        [('float32', D(0, 0, 0)), ('float32', [0, 0, 0, 0, 0, 0, 0, 0]), ('float32', [0, 0, 0, 0, 0, 0, 0, 0])],
        None,
        D(0, 0, 0),
    ),
    'batch_norm_var': (  # TF's ForwardAccumulator: None
        (2, 2),
        [('float32', D(0, 0, 0)), ('float32', [0, 0, 0, 0, 0, 0, 0, 0]), ('float32', [0, 0, 0, 0, 0, 0, 0, 0])],
        None,
        D(0, 0, 0),
    ),
    'batch_norm_grad_x': (
        (2, 1, 3, 3, 2),
        [
            ('float32', D(4.792586e-06, 5.4976168, 123.91981)),
            ('float32', D(4.529953e-06, -7.9640767, 20.691809)),
            ('float32', D(-1.4901161e-07, -1.6501301e-07, 2.8908253e-06)),
        ],
        [
            0, 0.14540774, 0, -0.12176316, 0, 0.20981151, 0, -0.013431639, 0, -0.047313303, 0, -0.0050614262, 0,
            -0.12252209, 0, -0.051234946, 0, 0.0061090887, 1.4822503, 0.20308813, -0.49541327, -0.14846362, 0.26068753,
            0.04792022, -0.23353508, -0.069068357, -0.27093473, 0.14594918, 0.41721359, -0.034361232, -0.51799798,
            -0.16287073, -0.33113146, -0.17417535, -0.31113827, 0.1919834,
        ],
        D(4.792586e-06, 2.7368658, 123.91981),
    ),
    'batch_norm_grad_scale': (
        (2, 2),
        [
            ('float32', D(3.5762787e-07, 3.9205639, 20.691807)),
            ('float32', [7.0645905, 0, 0, 8.1108837, 7.5691314, 0, 0, 7.8960338]),
            ('float32', [1.1920929e-07, 0, 0, 1.1920929e-07, -3.1292439e-07, 0, 0, 2.3841858e-07]),
        ],
        [0, 8.1108847, 0.44201291, 7.8960342],
        D(3.5762787e-07, 3.8580966, 20.691807),
    ),
    'softmax_axis1': (
        (2, 3, 4),
        [('float32', D(8.9406967e-08, 0.1550095, 10.424225))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.22291259, 0, 0, 0, -0.15214261, 0, 0, 0, -0.070769966, 0, 0, 0],
        D(8.9406967e-08, 1.0449918, 10.424225),
    ),
    'log_softmax_axis1': (
        (2, 3, 4),
        [('float32', D(3.2782555e-07, 0.8415619, 32))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.66458249, 0, 0, 0, -0.33541748, 0, 0, 0, -0.33541748, 0, 0, 0],
        D(3.2782555e-07, 1.7877337, 32),
    ),
    'softmax_xent': (
        (2, 2),
        [('float32', D(-1.1920929e-07, -0.12059078, 1.8465091)), ('float32', D(22.74194, -1.6391391, 22.74194))],
        [0, 0, 1.795254, 0],
        [
            -0.041259199, 0.091233313, -0.16895325, 0.11897911, 0, 0, 0, -0, -0, 0, -0, 0, 0.020123601, 0.016958117,
            0.038155168, -0.075236961, 0.024964735, 0.21820226, 0.062104851, -0.30527186, -0, 0, 0, -0, 0, 0, 0, -0,
            -0.32503423, 0.29240939, 0.040123954, -0.0074991137,
        ],
    ),
    'softmax_xent_grad': (
        (2, 2, 4),
        [('float32', D(3.7252903e-08, -0.28307298, 5.8581205)), ('float32', D(0, 0, 0))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0.14128716, -0.039882082, -0.071793705, -0.029611368, 0, 0, 0, 0],
        D(3.7252903e-08, 1.465488, 5.8581205),
    ),
    'sparse_softmax_xent': (
        (2, 2),
        [('float32', D(-1.4901161e-08, 0.15208622, 6.2942273))],
        [0, 0, 0.17028372, 0],
        [
            0.25219533, 0.31929827, 0.22747938, -0.79897296, -0, 0, 0, 0, 0, 0, 0, -0, -0.71816349, 0.24731803,
            0.24270883, 0.22813658, 0.17028372, -0.76579034, 0.42161232, 0.17389433, 0, 0, -0, 0, 0, -0, 0, 0,
            0.30616632, 0.31024954, -0.86418688, 0.24777101,
        ],
    ),
    'sparse_softmax_xent_grad': (
        (2, 2, 4),
        [('float32', D(3.7252903e-08, -0.28307298, 5.8581205))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0.14128716, -0.039882082, -0.071793705, -0.029611368, 0, 0, 0, 0],
        D(3.7252903e-08, 1.465488, 5.8581205),
    ),
    'top_k': (
        (2, 3, 2),
        [('float32', D(12, 3.037872, 12))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        D(12, -3.3719168, 12),
    ),
    'where_broadcast': ((2, 1), [('float32', [1, 0, 0, 0]), ('float32', [0, 1])], [0, 1], [1, 0]),
    'broadcast_unit_dims': ((3,), [('float32', [1, 1, 1]), ('float32', [1, 0, 0, 0, 1, 0, 0, 0, 1])], [1, 2, 1], None),
    'tensordot_outer': (
        (2, 2, 2, 2, 2),
        [('float32', D(38.544414, -0.96434194, 38.544414))],
        [
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.071779169, 0.69175756, 0.37868094, 0.51851094,
            0.69175756, 0, 0, 0, 0.37868094, 0, 0, 0, 0.51851094, 0, 0, 0,
        ],
        D(38.544414, -1.2559668, 38.544414),
    ),
    'pfor_reduce': (
        (3, 2, 2),
        [('float32', D(24.000001, 0.94673259, 24.000001)), ('float32', D(12, 0.026671155, 12))],
        [0, 0, 0.66666669, 0, 0, 0, 1.6666667, 0, 0, 0, 0.66666669, 0],
        None,
    ),
    'pfor_reduce_mean': (
        (4, 3),
        [('float32', D(0, 0.043622344, 18))],
        [-0.25, 0, 0, -0.25, 0, 0, 0.75, 0, 0, -0.25, 0, 0],
        None,
    ),
    'pfor_reduce_sum': ((4, 3), [('float32', D(-36, -2.5856948, 36))], [-1, 0, 0, -1, 0, 0, 0, 0, 0, -1, 0, 0], None),
    'unsorted_segment_sum': (
        (3, 3, 2),
        [('float32', D(18, 1.069298, 18))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
        D(18, 5.9144861, 18),
    ),
    'unsorted_segment_sum_data0': (
        (3, 3, 2),
        [('float32', D(18, -3.1502298, 18))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        None,
    ),
    'unsorted_segment_max': (
        (3, 3, 2),
        [('float32', D(12, -0.53367714, 12))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
        D(12, 1.8542098, 12),
    ),
    'unsorted_segment_min': (
        (3, 3, 2),
        [('float32', D(12, 0.33847762, 12))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
        D(12, 5.3714963, 12),
    ),
    'unsorted_segment_prod': (
        (3, 3, 2),
        [('float32', D(12.961219, 1.1335173, 12.961219))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
        D(12.961219, 5.1560356, 12.961219),
    ),
    'unsorted_segment_max_ties': (
        (3, 3, 2),
        [('float32', D(12, 0.023175714, 12))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
        D(12, 3.1613006, 12),
    ),
    'unsorted_segment_min_ties': (
        (3, 3, 2),
        [('float32', D(12, 1.4810982, 12))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
        D(12, 5.7498476, 12),
    ),
    'unsorted_segment_prod_zeros': (
        (3, 3, 2),
        [('float32', D(15.018313, 1.1178415, 15.018313))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
        D(15.018313, 6.5122903, 15.018313),
    ),
    'sparse_segment_sum': (
        (3, 3, 2),
        [('float32', D(18, -2.4901691, 18))],
        [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        D(18, -0.68802415, 18),
    ),
    'sparse_segment_mean': (
        (3, 3, 2),
        [('float32', D(10, -0.94460445, 10))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0.33333334, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        D(10, -0.30639504, 10),
    ),
    'sparse_segment_sqrt_n': (
        (3, 3, 2),
        [('float32', D(13.120956, -1.5311377, 13.120956))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0.57735026, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        D(13.120956, -0.4120077, 13.120956),
    ),
    'scatter_update_singles': (
        (2, 8),
        [('float32', D(8, -4.5540256, 8)), ('float32', D(8, 0.058838026, 8))],
        [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0],
        D(8, 6.486752, 8),
    ),
    'scatter_update_slices': (
        (2, 5, 3),
        [('float32', D(18, 1.216791, 18)), ('float32', D(12, 1.0632854, 12))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0],
        D(18, 1.818702, 18),
    ),
    'scatter_update_multi_dim': (
        (2, 5, 3),
        [('float32', D(26, 0.97090197, 26)), ('float32', D(4, -0.56059625, 4))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0],
        D(26, 0.5256705, 26),
    ),
    'scatter_add_duplicates': (
        (2, 8),
        [('float32', D(16, -0.70130688, 16)), ('float32', D(6, 0.15461719, 6))],
        [0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0],
        D(6, -3.629866, 6),
    ),
    'while_prefix_sum': ((3,), [('float32', D(6, -0.44340652, 6))], [0, 0, 0], None),
    'while_matpow': (
        (1, 3),
        [
            (
                'float32',
                [1.4071797, 0.65913397, 0.56437439, 2.637073, 1.3482125, 1.0673242, 2.9823189, 1.4226526, 1.2049563],
            ),
            (
                'float32',
                [
                    1.8885508, 0.40235645, 0.40512997, 2.7564597, 0.43693697, 0.46374118, 3.039597, 0.45449239,
                    0.49142551, 1.6370497, 1.9394171, 0.67741197, 1.7884595, 2.8457909, 0.7457912, 1.864393, 3.1454887,
                    0.77962089, 2.1089463, 0.91978943, 1.7131579, 2.4034128, 1.0189981, 2.5456028, 2.5430508,
                    1.0676088, 2.812511,
                ],
            ),
        ],
        [1.096071, 4.1940031, 2.4416506],
        None,
    ),
    'cond_while': (
        (5, 5),
        [('float32', D(65, 1.4872125, 65))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        D(65, -0.55854724, 65),
    ),
    'while_cond': (
        (5, 5),
        [('float32', D(65, 1.4872125, 65))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        D(65, -0.55854724, 65),
    ),
    'while_while': (
        (5, 5),
        [('float32', D(185, 4.2688403, 185))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        D(185, -3.0136896, 185),
    ),
    'cond_cond': (
        (5, 5),
        [('float32', D(25, 0.17925312, 25))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        D(25, 0.31365371, 25),
    ),
    'cond_loop_variant': (
        (5, 4),
        [
            ('float32', D(1, -0.53311965, 5)),
            ('float32', [1, 1, 0, 0, 1, 1, 0, 0, -1, 0, 1, 0, -1, 0, 1, 0, -1, 0, 1, 0]),
        ],
        [1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, -1, 0, 1, 0, -1, 0, 1, 0],
        None,
    ),
    'cond_one_branch_taken': (
        (5, 4),
        [('float32', D(-5, -0.39971158, 5)), ('float32', [1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0])],
        [1, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0],
        None,
    ),
    'indexed_case': ((10,), [('float32', [1, 1, 1, 1, 1, 1, 1, 1, 1, 1])], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], None),
    'function_simple': (
        (4, 2),
        [('float32', D(9.4372311, 9.4195904, 9.4372311))],
        [0, 0, 0, 0, 1.2672682, 0, 0, 0],
        [
            0.76954621, 0, 0, 1.7194157, 1.8883992, 0, 0, 1.4056498, 1.2672682, 0, 0, 1.2119225, 0.40025368, 0, 0,
            0.7747758,
        ],
    ),
    'function_nested_calls': (
        (4,),
        [
            (
                'float32',
                [
                    0.76954621, 1.7194157, 0, 0, 0, 0, 0, 0, 0, 0, 1.8883992, 1.4056498, 0, 0, 0, 0, 0, 0, 0, 0,
                    1.2672682, 1.2119225, 0, 0, 0, 0, 0, 0, 0, 0, 0.40025368, 0.7747758,
                ],
            ),
        ],
        [0, 0, 1.2672682, 0],
        None,
    ),
    'function_nested_definition': (
        (4,),
        [
            (
                'float32',
                [
                    0.76954621, 1.7194157, 0, 0, 0, 0, 0, 0, 0, 0, 1.8883992, 1.4056498, 0, 0, 0, 0, 0, 0, 0, 0,
                    1.2672682, 1.2119225, 0, 0, 0, 0, 0, 0, 0, 0, 0.40025368, 0.7747758,
                ],
            ),
        ],
        [0, 0, 1.2672682, 0],
        None,
    ),
    'function_gradients': (
        (4, 2),
        [('float32', D(16, 15.960448, 16))],
        [0, 0, 0, 0, 2, 0, 0, 0],
        [2, 0, 0, 2, 2, 0, 0, 2, 2, 0, 0, 2, 2, 0, 0, 2],
    ),
    'fft': (
        (2, 3, 4),
        [('complex64', Cx(D(24, -2.7648969, 72), D(0, 2.2082149, 24)))],
        Cx(
            [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        ),
        Cx(D(24, 8.4391759, 72), D(0, 1.6161388, 24)),
    ),
    'fft2d': (
        (2, 3, 4),
        [('complex64', Cx(D(24, -2.1494515, 195.71281), D(0, -3.6555844, 139.13844)))],
        Cx(
            [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
            [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        ),
        Cx(D(24, -7.9766106, 195.71281), D(0, 11.990868, 139.13844)),
    ),
    'fft3d': (
        (2, 2, 3, 2),
        [('complex64', Cx(D(24, -0.98368533, 224), D(0, -0.74485523, 110.85125)))],
        Cx(
            [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
            [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        ),
        Cx(D(24, -20.477877, 224), D(0, 17.168266, 110.85125)),
    ),
    'ifft': (
        (2, 3, 4),
        [('complex64', Cx(D(6, -0.69122421, 18), D(0, -0.55205374, 6)))],
        Cx(
            [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.25, 0.25, 0.25, 0.25, 0, 0, 0, 0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        ),
        Cx(D(6, 2.109794, 18), D(0, -0.40403471, 6)),
    ),
    'ifft2d': (
        (2, 3, 4),
        [('complex64', Cx(D(2.0000001, -0.17912095, 16.309401), D(0, 0.30463204, 11.59487)))],
        Cx(
            [
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.083333343, 0.083333343, 0.083333343, 0.083333343, 0.083333343,
                0.083333343, 0.083333343, 0.083333343, 0.083333343, 0.083333343, 0.083333343, 0.083333343,
            ],
            [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        ),
        Cx(D(2.0000001, -0.66471754, 16.309401), D(0, -0.99923904, 11.59487)),
    ),
    'ifft3d': (
        (2, 2, 3, 2),
        [('complex64', Cx(D(2.0000001, -0.08197378, 18.666667), D(0, 0.062071269, 9.2376041)))],
        Cx(
            [
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.083333343, 0.083333343, 0.083333343, 0.083333343, 0.083333343,
                0.083333343, 0.083333343, 0.083333343, 0.083333343, 0.083333343, 0.083333343, 0.083333343,
            ],
            [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        ),
        Cx(D(2.0000001, -1.7064898, 18.666667), D(0, -1.4306888, 9.2376041)),
    ),
    'rfft': (
        (2, 3, 3),
        [('float32', D(24, -1.6329606, 60))],
        Cx(
            [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        ),
        D(24, 2.7381095, 60),
    ),
    'rfft2d': (
        (2, 3, 3),
        [('float32', D(24, -5.8882577, 153.85641))],
        Cx(
            [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1],
            [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        ),
        D(24, 2.651908, 153.85641),
    ),
    'irfft': (
        (2, 3, 4),
        [('complex64', Cx(D(6, 0.36791515, 18), D(0, -0.0010732454, 6)))],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.25, 0.25, 0.25, 0.25, 0, 0, 0, 0, 0, 0, 0, 0],
        Cx(D(6, 0.16284315, 18), D(0, 0.00057554242, 6)),
    ),
    'irfft2d': (
        (2, 3, 4),
        [('complex64', Cx(D(2.0000001, 1.8316125, 16.309401), D(0, -0.18403162, 11.59487)))],
        [
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.083333343, 0.083333343, 0.083333343, 0.083333343, 0.083333343,
            0.083333343, 0.083333343, 0.083333343, 0.083333343, 0.083333343, 0.083333343, 0.083333343,
        ],
        Cx(D(2.0000001, 1.9791919, 16.309401), D(0, -0.093517115, 11.59487)),
    ),
}


def _same_as_tf(got, want, what):
    if want is None:
        assert got is None, f"{what}: TF gives None, got {got}"
        return
    assert got is not None, f"{what}: None, TF gives values"
    got = np.asarray(got.numpy() if hasattr(got, "numpy") else got)
    if isinstance(want, Cx):
        close_to_tf(got.real, want[0], RTOL, ATOL)
        close_to_tf(got.imag, want[1], RTOL, ATOL)
    else:
        assert not np.iscomplexobj(got), f"{what}: complex, TF's values are real"
        close_to_tf(got, want, RTOL, ATOL)


def _agree(a, b, what):
    # two paths of tapejax: the same numbers up to the rounding of differently fused programs
    assert (a is None) == (b is None), what
    if a is not None:
        assert a.shape == b.shape and a.dtype == b.dtype, (what, a.shape, b.shape, a.dtype, b.dtype)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6, err_msg=what)


def _watched(name):
    fn, names, _ = CASES[name]
    xs = [tj.constant(IN[n]) for n in names]
    with tj.GradientTape(persistent=True) as g:
        g.watch(xs)
        y = fn(*xs)
    return g, xs, y


def _one_hot_tangents(xs):
    # a one-hot tangent per source (its middle element): the JVP is the sum of those Jacobian columns
    out = []
    for x in xs:
        t = np.zeros(x.shape, x.dtype).ravel()
        t[t.size // 2] = 1
        out.append(tj.constant(t.reshape(x.shape)))
    return out


@pytest.mark.parametrize("name", CASES)
def test_jacobian_vectorized_and_row_by_row_match_tf(name):
    out_shape, want, _, want_batch = TF[name]
    g, xs, y = _watched(name)
    assert tuple(y.shape) == out_shape
    vec = g.jacobian(y, xs)
    rows = g.jacobian(y, xs, experimental_use_pfor=False)
    for k, (x, (dtype, w)) in enumerate(zip(xs, want)):
        for path, j in (("vectorized", vec[k]), ("row by row", rows[k])):
            what = f"{name}: {path} Jacobian, source {k}"
            if j is not None:
                assert tuple(j.shape) == out_shape + tuple(x.shape), what
                assert j.dtype == np.dtype(dtype), (what, j.dtype, dtype)
            _same_as_tf(j, w, what)
        _agree(vec[k], rows[k], f"{name}: source {k}, vectorized vs row by row")
    b = CASES[name][2]
    if b is None:
        return
    bvec = g.batch_jacobian(y, xs[b])
    brows = g.batch_jacobian(y, xs[b], experimental_use_pfor=False)
    for path, j in (("vectorized", bvec), ("row by row", brows)):
        assert tuple(j.shape) == out_shape + tuple(xs[b].shape[1:])
        _same_as_tf(j, want_batch, f"{name}: {path} batch_jacobian")
    _agree(bvec, brows, f"{name}: batch_jacobian, vectorized vs row by row")


@pytest.mark.parametrize("name", CASES)
def test_forward_accumulator_column_matches_tf(name):
    fn, names, _ = CASES[name]
    xs = [tj.constant(IN[n]) for n in names]
    with tj.ForwardAccumulator(xs, _one_hot_tangents(xs)) as acc:
        y = fn(*xs)
    jvp = acc.jvp(y)
    _same_as_tf(jvp, TF[name][2], f"{name}: JVP")
    assert jvp is None or tuple(jvp.shape) == TF[name][0]


FUNCTION_CASES = ["conv2d", "max_pool_ties", "softmax_xent_grad", "unsorted_segment_max_ties", "scatter_update_singles",
                  "cond_loop_variant", "function_simple", "irfft"]


@pytest.mark.parametrize("name", FUNCTION_CASES)
def test_jacobians_inside_and_over_a_tj_function_match_tf(name):
    fn, names, b = CASES[name]
    out_shape, want, _, want_batch = TF[name]
    n = len(names)

    @tj.function
    def inside(*xs):
        with tj.GradientTape(persistent=True) as g:
            g.watch(xs)
            y = fn(*xs)
        out = [g.jacobian(y, list(xs)), g.jacobian(y, list(xs), experimental_use_pfor=False)]
        if b is not None:
            out += [g.batch_jacobian(y, xs[b]), g.batch_jacobian(y, xs[b], experimental_use_pfor=False)]
        return out

    xs = [tj.constant(IN[k]) for k in names]
    got = inside(*xs)
    for path, js in zip(("vectorized", "row by row"), got[:2]):
        for k in range(n):
            _same_as_tf(js[k], want[k][1], f"{name}: {path} Jacobian inside tj.function, source {k}")
    for path, j in zip(("vectorized", "row by row"), got[2:]):
        _same_as_tf(j, want_batch, f"{name}: {path} batch_jacobian inside tj.function")

    compiled = tj.function(fn)  # the function's call is one recorded op of the outer tape
    with tj.GradientTape(persistent=True) as g:
        g.watch(xs)
        y = compiled(*xs)
    assert tuple(y.shape) == out_shape
    for use_pfor in (True, False):
        js = g.jacobian(y, xs, experimental_use_pfor=use_pfor)
        for k in range(n):
            _same_as_tf(js[k], want[k][1], f"{name}: Jacobian over a tj.function call, pfor={use_pfor}, source {k}")
    if b is not None:
        _same_as_tf(g.batch_jacobian(y, xs[b]), want_batch, f"{name}: batch_jacobian over a tj.function call")


# -- ImageTest.test_adjust_contrast ----------------------------------------------------------------------------

def test_adjust_contrast_values_and_jacobians():
    # TF 2.21 registers no gradient for AdjustContrastv2 (tape.jacobian raises LookupError), so TF's values here
    # are the op's own: its output, and (the op is linear) its output for each one-hot image, i.e. its Jacobian.
    im = tj.constant(IN["im"])
    with tj.GradientTape(persistent=True) as g:
        g.watch(im)
        y = _adjust_contrast(im)
    close_to_tf(y, TF_ADJUST_CONTRAST[0], RTOL, ATOL)
    vec, rows = g.jacobian(y, im), g.jacobian(y, im, experimental_use_pfor=False)
    bvec, brows = g.batch_jacobian(y, im), g.batch_jacobian(y, im, experimental_use_pfor=False)
    _same_as_tf(vec, TF_ADJUST_CONTRAST[1], "vectorized Jacobian")
    _agree(vec, rows, "Jacobian, vectorized vs row by row")
    _same_as_tf(bvec, TF_ADJUST_CONTRAST[2], "vectorized batch_jacobian")
    _agree(bvec, brows, "batch_jacobian, vectorized vs row by row")
    # the per-example blocks of the full Jacobian are the batch Jacobian
    full = vec.numpy().reshape(2, 18, 2, 18)
    np.testing.assert_allclose(bvec.numpy().reshape(2, 18, 18), full[[0, 1], :, [0, 1]], rtol=1e-6)


# -- Variables as sources: WhileV2Test.test_while_with_variable, test_scan, test_scan_captured_variable,
#    IfTest.test_read_var, PartitionedCallTest.test_stateful_with_gradients, VariableTest.test_create_variable_once,
#    VariableTest.test_variable_input ------------------------------------------------------------------------

SCAN_DATA = np.random.RandomState(42).randn(3).astype(np.float32)  # test_scan: np.random.seed(42); randn(3)


def _while_with_variable(vs):
    out = []
    for _ in range(3):
        t = tj.constant(0.0)
        for _ in range(4):
            t = t + vs[0]
        out.append(t)
    return tnp.stack(out)


def _scan_log_prob(vs):
    # vectorized_map(log_prob, x): log_prob(x_i) = sum of the scan's (x_i - y_j) ** 2
    x = vs[0]
    return tnp.stack([tnp.sum(tnp.stack([(x[i] - d) ** 2 for d in SCAN_DATA])) for i in range(2)])


def _scan_gather(vs):
    # each pfor iteration scans gather(v, j) over j = 0..9
    return tnp.stack([tnp.stack([vs[0][j] for j in range(10)]) for _ in range(2)])


def _cond_read_variable(vs):
    x = IN["cfx"]
    return tnp.stack([vs[0] - x[i] if x[i] < 2.5 else vs[0] + x[i] for i in range(5)])


def _function_reading_variable(grads):
    def f(vs):
        fn = tj.function(lambda x: tnp.square(x) + vs[0] + 1)
        outs, gs = [], []
        for i in range(4):
            zi = tj.constant(IN["fz"][i])
            with tj.GradientTape() as t:
                t.watch(zi)
                out = fn(zi)
            outs.append(out)
            gs.append(t.gradient(out, zi))
        return tnp.stack(gs if grads else outs)
    return f


# name -> (the Variables' initial values, function of the list of Variables)
VAR_CASES = {
    "while_with_variable": ([np.float32(5.0)], _while_with_variable),
    "scan_log_prob": ([np.ones(2, np.float32)], _scan_log_prob),
    "scan_captured_variable": ([np.arange(10, dtype=np.float32)], _scan_gather),
    "cond_read_variable": ([np.float32(5.0)], _cond_read_variable),
    "function_reads_variable": ([IN["fz"][0]], _function_reading_variable(False)),
    "function_reads_variable_grads": ([IN["fz"][0]], _function_reading_variable(True)),
    "matmul_variable": ([np.ones((2, 3), np.float32)], lambda vs: tnp.matmul(IN["r3"], vs[0] / 16)),
    "variable_input": ([np.array([1.0, 2.0], np.float32)], lambda vs: vs[0] + 1),
}


def _variables(name):
    return [tj.Variable(v) for v in VAR_CASES[name][0]]


@pytest.mark.parametrize("name", list(VAR_CASES))
def test_jacobian_with_respect_to_variables_matches_tf(name):
    out_shape, want, want_jvp = TF_VAR[name]
    f = VAR_CASES[name][1]
    vs = _variables(name)
    with tj.GradientTape(persistent=True) as g:  # reads of the Variables are watched (watch_accessed_variables)
        y = f(vs)
    assert tuple(y.shape) == out_shape
    for use_pfor in (True, False):
        js = g.jacobian(y, vs, experimental_use_pfor=use_pfor)
        for k, w in enumerate(want):
            _same_as_tf(js[k], w, f"{name}: pfor={use_pfor}, Variable {k}")
    zeros = g.jacobian(y, vs, unconnected_gradients=ZERO)
    for k, (v, w) in enumerate(zip(vs, want)):
        _same_as_tf(zeros[k], np.zeros(out_shape + tuple(v.shape)) if w is None else w, f"{name}: ZERO, {k}")
    with tj.ForwardAccumulator(vs, _one_hot_tangents(vs)) as acc:
        y = f(vs)
    _same_as_tf(acc.jvp(y), want_jvp, f"{name}: JVP")


@pytest.mark.parametrize("name", ["while_with_variable", "scan_log_prob", "cond_read_variable",
                                  "function_reads_variable", "matmul_variable"])
def test_variable_jacobians_inside_and_over_a_tj_function_match_tf(name):
    _, want, _ = TF_VAR[name]
    f = VAR_CASES[name][1]
    vs = _variables(name)

    @tj.function
    def inside():
        with tj.GradientTape(persistent=True) as g:
            y = f(vs)
        return g.jacobian(y, vs), g.jacobian(y, vs, experimental_use_pfor=False)

    for path, js in zip(("vectorized", "row by row"), inside()):
        _same_as_tf(js[0], want[0], f"{name}: {path} inside tj.function")
    compiled = tj.function(lambda: f(vs))  # closes over the Variables: they are inputs of the recorded call
    with tj.GradientTape(persistent=True) as g:
        y = compiled()
    assert [v.name for v in g.watched_variables()] == [v.name for v in vs]
    for use_pfor in (True, False):
        _same_as_tf(g.jacobian(y, vs, experimental_use_pfor=use_pfor)[0], want[0],
                    f"{name}: over a tj.function call, pfor={use_pfor}")


def test_variable_gradient_through_the_scan_is_two():
    # test_scan_captured_variable's own assertion: tape.gradient(result, v) == [2.] * 10
    v = tj.Variable(np.arange(10, dtype=np.float32))
    with tj.GradientTape() as g:
        y = _scan_gather([v])
    close_to_tf(g.gradient(y, v), [2.0] * 10, 0)


# -- unconnected sources -------------------------------------------------------------------------------------

UNC_X = np.array([[0.3, 1.7, 2.2], [3.9, -1.2, 0.6]], np.float32)


@pytest.mark.parametrize("use_function", [False, True])
def test_unconnected_sources_none_or_zeros_as_tf(use_function):
    # x is connected; y is not on the path; s reaches the target only through stop_gradient
    def run(x, y, s):
        with tj.GradientTape(persistent=True) as g:
            g.watch([x, y, s])
            out = tnp.sin(x) * 2 + tj.stop_gradient(s)
        res = [g.jacobian(out, [x, y, s], experimental_use_pfor=p) for p in (True, False)]
        res += [g.jacobian(out, [x, y, s], unconnected_gradients=ZERO, experimental_use_pfor=p) for p in (True, False)]
        res += [[g.batch_jacobian(out, t, unconnected_gradients=u, experimental_use_pfor=p) for t in (y, s)]
                for u in ("none", "zero") for p in (True, False)]
        return res

    if use_function:
        run = tj.function(run)
    res = run(tj.constant(UNC_X), tj.constant(UNC_X + 1), tj.constant(UNC_X - 1))
    jx = TF_UNCONNECTED_JX
    for k in range(2):  # NONE: TF's None for both unconnected sources
        _same_as_tf(res[k][0], jx, "x")
        assert res[k][1] is None and res[k][2] is None
    for k in range(2, 4):  # ZERO: float zeros of the full shape
        _same_as_tf(res[k][0], jx, "x")
        for j in res[k][1:]:
            _same_as_tf(j, np.zeros((2, 3, 2, 3)), "zeros")
            assert j.dtype == np.float32
    for bs in res[4:]:  # TF's batch_jacobian gives zeros, never None, with either setting
        for j in bs:
            assert tuple(j.shape) == (2, 3, 3) and j.dtype == np.float32
            _same_as_tf(j, np.zeros((2, 3, 3)), "batch zeros")


# -- integer outputs: BitwiseTest, test_disable_tf_function, testStatelessCase (int) ------------------------------

INT_OPS = {
    "invert": lambda a, b: tnp.invert(a),
    "bitwise_and": tnp.bitwise_and, "bitwise_or": tnp.bitwise_or, "bitwise_xor": tnp.bitwise_xor,
    "left_shift": tnp.left_shift, "right_shift": tnp.right_shift,
}
INT_B = np.array([1, 2, 3], np.int32)


@pytest.mark.parametrize("op", list(INT_OPS))
def test_integer_outputs_have_no_jacobian_as_tf(op):
    x = tj.constant(UNC_X)
    with tj.GradientTape(persistent=True) as g:
        g.watch(x)
        y = INT_OPS[op](tnp.floor(tnp.abs(x) * 4).astype(tnp.int32), INT_B)
    assert y.dtype == np.int32
    for use_pfor in (True, False):
        assert g.jacobian(y, x, experimental_use_pfor=use_pfor) is None
        # TF's row-by-row Jacobian with ZERO fails on an int target (InvalidArgumentError: TensorArray dtype is
        # int32 but Op is trying to write dtype float32); its vectorized one gives float32 zeros, as both here
        z = g.jacobian(y, x, unconnected_gradients=ZERO, experimental_use_pfor=use_pfor)
        assert z.dtype == np.float32 and tuple(z.shape) == (2, 3, 2, 3) and not z.numpy().any()
        # TF's batch_jacobian: zeros of the target's dtype (int32) with NONE, float32 zeros with ZERO
        b = g.batch_jacobian(y, x, experimental_use_pfor=use_pfor)
        assert b.dtype == np.int32 and tuple(b.shape) == (2, 3, 3) and not b.numpy().any()
        if use_pfor:  # (TF's row-by-row batch_jacobian with ZERO fails as above)
            bz = g.batch_jacobian(y, x, unconnected_gradients=ZERO)
            assert bz.dtype == np.float32 and tuple(bz.shape) == (2, 3, 3) and not bz.numpy().any()


def test_watched_integer_source_warns_and_has_no_jacobian():
    # test_disable_tf_function: x * x over range(4) (int32). TF logs that the watched int32 tensor is not
    # differentiable and gives None; tapejax's warning is a UserWarning (API.md)
    r = tnp.arange(4)
    with pytest.warns(UserWarning, match="int32"):
        with tj.GradientTape(persistent=True) as g:
            g.watch(r)
            y = r * r
    np.testing.assert_array_equal(y.numpy(), [0, 1, 4, 9])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert g.jacobian(y, r) is None
        assert g.jacobian(y, r, experimental_use_pfor=False) is None


def test_integer_indexed_case_has_no_jacobian():
    # testStatelessCase on int32: branches x, x + 1, x + 2 of x = 10, picked per element
    x = tj.constant(10)
    with pytest.warns(UserWarning):
        with tj.GradientTape(persistent=True) as g:
            g.watch(x)
            y = tnp.stack([(x, x + 1, x + 2)[k] for k in CASE_IDS])
    np.testing.assert_array_equal(y.numpy(), [11, 10, 10, 10, 12, 11, 10, 12, 10, 11])
    assert g.jacobian(y, x) is None and g.jacobian(y, x, experimental_use_pfor=False) is None


# -- zero-size dimensions: test_zero_loop_iters_basic / _tensor ---------------------------------------------------

@pytest.mark.parametrize("use_pfor", [True, False])
def test_zero_size_targets_and_sources(use_pfor):
    x = tj.constant(np.ones((2, 3), np.float32))
    x0 = tj.constant(np.zeros((0, 3), np.float32))
    xe = tj.constant(np.ones((2, 0), np.float32))
    with tj.GradientTape(persistent=True) as g:
        g.watch([x, x0, xe])
        empty_rows = x[0:0] * 2.0                      # a loop of zero iterations: target (0, 3)
        from_empty = tnp.sum(x0, axis=0) + 1.0         # a zero-size source
        empty_cols = tnp.concatenate([xe, xe], 1) * 2.0 + tnp.sum(xe, 1, keepdims=True)
        empty_batch = x0 * 2.0
    # TF 2.21's vectorized Jacobians have these shapes; its row-by-row one raises ValueError for a zero-size
    # target ("Tensor's shape (0, 3) is not compatible with supplied shape (0, 3, 2, 3)"): API.md: zero-size
    # dimensions work in both modes
    j = g.jacobian(empty_rows, x, experimental_use_pfor=use_pfor)
    assert tuple(j.shape) == (0, 3, 2, 3) and j.dtype == np.float32
    j = g.jacobian(from_empty, x0, experimental_use_pfor=use_pfor)
    assert tuple(j.shape) == (3, 0, 3)
    j = g.jacobian(empty_cols, xe, experimental_use_pfor=use_pfor)
    assert tuple(j.shape) == (2, 0, 2, 0)
    j = g.batch_jacobian(empty_cols, xe, experimental_use_pfor=use_pfor)
    assert tuple(j.shape) == (2, 0, 0)
    # TF crashes here (ZeroDivisionError inside batch_jacobian's reshape): a batch of zero examples has the
    # Jacobian (0,) + target.shape[1:] + source.shape[1:]
    j = g.batch_jacobian(empty_batch, x0, experimental_use_pfor=use_pfor)
    assert tuple(j.shape) == (0, 3, 3)
    with pytest.raises(ValueError, match="Need first dimension"):  # as TF: (0, 3) against a batch of 2
        g.batch_jacobian(empty_rows, x, experimental_use_pfor=use_pfor)


# -- nested Jacobians (TF's pfor vectorizes a Jacobian of a Jacobian) ---------------------------------------------

NEST_CX = _u(45, 1, 3, 3, 1)


def _conv_stride1(w):
    return tnp.tanh(nn.conv(NEST_CX, w, (1, 1), "VALID", dimension_numbers=NHWC))


NESTED = {
    "softmax": (nn.softmax, _u(46, 2, 3)),
    "tanh_conv": (_conv_stride1, _u(47, 2, 2, 1, 1, lo=-1.0)),
    "max_pool": (lambda x: nn.max_pool(x, (2, 2), (2, 2), "VALID"), _u(48, 1, 4, 4, 1)),
    "sparse_xent": (lambda lg: nn.sparse_softmax_cross_entropy_with_logits(LABELS, lg), IN["lg"]),
}


def _nested_jacobian(fn, x, inner_pfor, outer_pfor):
    with tj.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with tj.GradientTape(persistent=True) as inner:
            inner.watch(x)
            y = fn(x)
        j = inner.jacobian(y, x, experimental_use_pfor=inner_pfor)
    return outer.jacobian(j, x, experimental_use_pfor=outer_pfor)


@pytest.mark.parametrize("name", list(NESTED))
def test_nested_jacobians_match_tf(name):
    fn, value = NESTED[name]
    x = tj.constant(value)
    got = {(i, o): _nested_jacobian(fn, x, i, o) for i in (True, False) for o in (True, False)}
    for (i, o), j in got.items():
        assert tuple(j.shape) == TF_NESTED[name][0], (i, o, j.shape)
        _same_as_tf(j, TF_NESTED[name][1], f"{name}: inner pfor={i}, outer pfor={o}")
        _agree(j, got[True, True], f"{name}: inner pfor={i}, outer pfor={o} vs both vectorized")


def test_nested_batch_jacobian_and_nested_jacobian_in_tj_function_match_tf():
    fn, value = NESTED["softmax"]
    x = tj.constant(value)
    with tj.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with tj.GradientTape(persistent=True) as inner:
            inner.watch(x)
            y = fn(x)
        bj = inner.batch_jacobian(y, x)
    for use_pfor in (True, False):
        _same_as_tf(outer.batch_jacobian(bj, x, experimental_use_pfor=use_pfor), TF_NESTED_BATCH_SOFTMAX,
                    f"batch_jacobian of batch_jacobian, pfor={use_pfor}")
    nested = tj.function(lambda v: _nested_jacobian(fn, v, True, True))
    _same_as_tf(nested(x), TF_NESTED["softmax"][1], "nested Jacobian inside tj.function")


# -- TF 2.21's values for the tests above ---------------------------------------------------------------------

TF_ADJUST_CONTRAST = (
    [
        -0.1780389, 1.051379, 0.12076989, -0.19485709, 0.28978705, -0.30512139, 0.97084814, 1.1420671, 1.5923777,
        0.80020094, 0.058740437, 0.62693441, 0.71801382, -0.0029683709, -0.14565438, 0.528198, -0.06888923, 0.59425163,
        0.36608896, 0.73650593, 0.33792976, 1.2521713, 1.1467913, 0.57591981, 0.82253957, 0.6458264, 0.12904248,
        0.86016351, 0.16573641, 0.77860326, -0.27835104, 0.73956817, 0.69641113, 0.46750408, 0.28513268, -0.29492289,
    ],
    D(36.000002, 3.2513195, 100),
    D(36.000002, 3.1466071, 100),
)
TF_VAR = {
    'while_with_variable': ((3,), [[4, 4, 4]], [4, 4, 4]),
    'scan_log_prob': ((2,), [[3.9877234, 0, 0, 3.9877234]], [0, 3.9877234]),
    'scan_captured_variable': (
        (2, 10),
        [D(20, 1.715824, 20)],
        [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0],
    ),
    'cond_read_variable': ((5,), [[1, 1, 1, 1, 1]], [1, 1, 1, 1, 1]),
    'function_reads_variable': ((4, 2), [[1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1]], [0, 1, 0, 1, 0, 1, 0, 1]),
    'function_reads_variable_grads': ((4, 2), [None], None),  # TF eager's (tf.function's: zeros)
    'matmul_variable': (
        (3, 2, 3),
        [D(0.77474557, 0.17889465, 0.77474557)],
        [
            0.018069353, 0, 0, 0.0013510156, 0, 0, 0.0031733285, 0, 0, 0.041494392, 0, 0, 0.036474455, 0, 0,
            0.054212779, 0, 0,
        ],
    ),
    'variable_input': ((2,), [[1, 0, 0, 1]], [0, 1]),
}
TF_UNCONNECTED_JX = [
    1.910673, -0, -0, -0, 0, 0, 0, -0.25768909, -0, -0, 0, 0, 0, -0, -1.1770023, -0, 0, 0, 0, -0, -0, -1.4518645, 0, 0,
    0, -0, -0, -0, 0.72471541, 0, 0, -0, -0, -0, 0, 1.6506712,
]
TF_NESTED = {
    'softmax': ((2, 3, 2, 3, 2, 3), D(-5.6810677e-08, 0.016136525, 2.44801)),
    'tanh_conv': ((1, 2, 2, 1, 2, 2, 1, 1, 2, 2, 1, 1), D(2.3368659, -0.021669741, 3.770066)),
    'max_pool': ((1, 2, 2, 1, 1, 4, 4, 1, 1, 4, 4, 1), D(0, 0, 0)),
    'sparse_xent': ((2, 2, 2, 2, 4, 2, 2, 4), D(3.7252903e-08, 1.8679596, 5.8581205)),
}
TF_NESTED_BATCH_SOFTMAX = D(-5.6810677e-08, -0.0070008692, 2.44801)
