"""DOCSTRING PLACEHOLDER"""
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
    # integer-valued floats: pooling windows and segments with several equal maxima / minima
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

# TF_PLACEHOLDER
