"""A sweep of API.md "Interoperability" and "Tensors and variables" over the whole public surface.

Expected values are TensorFlow 2.21's (NumPy's where TF defers to it, or where tj.numpy follows jax.numpy),
printed by ``tools/tf_interop_sweep.py`` and hard-coded here; where tapejax differs from TF on purpose the
test says so. Sections:

* ``name=``: every public tj.numpy / tj.numpy.linalg / tj.nn / tj.random function, tj.constant,
  tj.convert_to_tensor, tj.Variable (and its assignments) take it; only a Variable keeps it (``.name``).
* static arguments: a scalar Tensor or a 0-d int Variable stands for a Python number (axes, shapes, counts,
  ``constant_values``...) eagerly, under a GradientTape (deferred) and inside tj.function where its value is
  known when tracing; a traced one raises an error naming the argument.
* Python conversions, NumPy functions, format, repr/str: as TF's EagerTensor.
* JAX interop: jnp, jax.jit, jax.tree_util, optax, tj.op with pytrees.
* indexing: NumPy's semantics, TF's/NumPy's errors (never a clamped value), also under a tape.
* tj.config: per thread, from the main thread's values.
"""
import concurrent.futures
import inspect
import operator
import threading
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj

tnp, nn, la = tj.numpy, tj.nn, tj.numpy.linalg

X = np.arange(1, 13, dtype=np.float32).reshape(3, 4) / 4


# -- name= ------------------------------------------------------------------------------------------------------

def sweep_args():
    """Arguments for each public op function; the default is one float matrix per required argument."""
    x = tj.constant([[0.5, 0.25], [0.75, 0.4]])
    v = tj.constant([0.5, 0.25, 0.125])
    i = tj.constant([[1, 2], [3, 4]])
    b = tj.constant([[True, False], [False, True]])
    spd = tj.constant([[2.0, 0.5], [0.5, 1.0]])
    img = tj.constant(np.ones((1, 4, 4, 1), np.float32))
    chw = tj.constant(np.ones((1, 1, 4, 4), np.float32))
    k2 = tj.constant(np.ones((1, 1, 2, 2), np.float32))
    binary = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "floor_divide"}
    special = {
        "add_n": ([x, x],), "arange": (3,), "array": ([1.0, 2.0],), "asarray": ([1.0, 2.0],), "astype": (x, jnp.int32),
        "bitwise_and": (i, i), "bitwise_or": (i, i), "bitwise_xor": (i, i), "bitwise_not": (i,), "invert": (i,),
        "broadcast_to": (v, (2, 3)), "concat": ([x, x],), "concatenate": ([x, x],), "einsum": ("ij,jk->ik", x, x),
        "einsum_path": ("ij,jk->ik", x, x),
        "expand_dims": (x, 0), "eye": (2,), "full": ((2,), 1.0), "full_like": (x, 2.0), "getitem": (x, 0),
        "hstack": ([x, x],), "vstack": ([x, x],), "linspace": (0.0, 1.0, 3), "meshgrid": (v, v), "ones": ((2,),),
        "zeros": ((2,),), "pad": (x, 1), "repeat": (x, 2), "reshape": (x, (4,)), "roll": (x, 1), "split": (x, 2),
        "take": (x, tj.constant([0])), "take_along_axis": (x, tj.constant([[0], [1]]), 1), "tile": (x, 2),
        "where": (b, x, x), "logical_and": (b, b), "logical_or": (b, b), "logical_xor": (b, b), "logical_not": (b,),
        "stack": ([x, x],), "moveaxis": (x, 0, 1), "swapaxes": (x, 0, 1), "diag": (v,), "kron": (x, x),
        "clip": (x, 0.3, 0.6), "matrix_power": (x, 2), "cholesky": (spd,), "eigh": (spd,), "eigvalsh": (spd,),
        "solve": (spd, x), "lstsq": (spd, x), "avg_pool": (img, (2, 2)), "max_pool": (img, (2, 2)),
        "batch_norm": (x, tj.constant([1.0, 1.0]), tj.constant([0.0, 0.0])), "conv": (chw, k2, (1, 1), "VALID"),
        "conv_general_dilated": (chw, k2, (1, 1), "VALID"), "dropout": (x, 0.5, jax.random.key(0)),
        "one_hot": (tj.constant([0, 1]), 3), "softmax_cross_entropy_with_logits": (x, x),
        "sparse_softmax_cross_entropy_with_logits": (tj.constant([0, 1]), x),
        "array_split": (x, 2), "hsplit": (x, 2), "vsplit": (x, 2), "dsplit": (img, 2), "column_stack": ([v, v],),
        "dstack": ([x, x],), "permute_dims": (x, (1, 0)), "cumulative_sum": (v,), "cumulative_prod": (v,),
        "quantile": (x, 0.5), "percentile": (x, 50.0), "cross": (v, v), "cov": (x,), "corrcoef": (x,),
        "select": ([b], [x]), "broadcast_shapes": ((2, 1), (3,)), "broadcast_arrays": (x, v[:2]),
        "searchsorted": (v, x), "digitize": (x, v), "isin": (i, i), "heaviside": (x, x), "nonzero": (b,),
        "flatnonzero": (b,), "argwhere": (b,), "unique": (i,), "tri": (2,), "triu_indices": (2,), "tril_indices": (2,),
        "identity": (2,), "empty": ((2,),), "logspace": (0.0, 1.0, 3), "geomspace": (1.0, 2.0, 3), "matvec": (x, x[0]),
        "vecmat": (x[0], x), "polyval": (v, x), "matrix_rank": (x,), "svdvals": (x,), "matrix_norm": (x,),
        "argpartition": (x, 1), "partition": (x, 1), "top_k": (x, 1), "delete": (x, 1), "block": ([x, x],),
        "lexsort": ([v, v],),
        "unravel_index": (i, (2, 3)), "nanquantile": (x, 0.5), "nanpercentile": (x, 50.0), "interp": (x, v, v), "convolve": (v, v), "correlate": (v, v), "bincount": (tj.constant([0, 2]),), "ravel_multi_index": ((i, i), (5, 5)), "indices": ((2, 2),),
        "apply_along_axis": (tnp.sum, 0, x), "apply_over_axes": (tnp.sum, x, (0,)), "bitwise_count": (i,),
        "bitwise_invert": (i,), "bitwise_left_shift": (i, i), "bitwise_right_shift": (i, i), "left_shift": (i, i),
        "right_shift": (i, i), "gcd": (i, i), "lcm": (i, i), "choose": (i % 2, [x, x]), "compress": (v > 0.2, x),
        "fill_diagonal": (x, 1.0), "place": (x, b, v), "put": (x, i, v),
        "histogram2d": (v, v), "insert": (x, 1, 2.0), "ldexp": (x, i), "packbits": (b,),
        "unpackbits": (tj.constant(np.array([3], np.uint8)),), "resize": (x, (3,)), "vander": (v,), "outer": (v, v),
        "tensorinv": (tj.constant(np.eye(4, dtype=np.float32).reshape(2, 2, 4)),), "tensorsolve": (spd, v[:2]),
        "vectorize": (tnp.sin,), "rollaxis": (x, 1), "diag_indices": (2,), "ix_": (v, v), "bartlett": (3,),
        "blackman": (3,), "hamming": (3,), "hanning": (3,), "kaiser": (3, 1.0), "piecewise": (x, [b], [tnp.sin]),
        "put_along_axis": (x, i % 2, x, 1, False),
    }

    def args_for(name, f):
        if name in special:
            return special[name]
        if name in binary:
            return (x, x)
        params = [p for p in inspect.signature(f).parameters.values()
                  if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        return tuple(x for _ in params) or (x,)
    return args_for


def public_op_functions():
    """(surface, name, function) for every public function defined by an op surface module (not the helpers and
    classes it imports)."""
    out = []
    for mod in (tnp, la, nn):
        for name in sorted(dir(mod)):
            f = getattr(mod, name)
            if name.startswith("_") or not inspect.isfunction(f) or f.__module__ not in (
                    tnp.__name__, la.__name__, nn.__name__):
                continue
            out.append((mod.__name__, name, f))
    return out


def _same(a, b):
    if isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for p, q in zip(a, b):
            _same(p, q)
    else:
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_every_public_op_function_accepts_name_and_ignores_it():
    # TF: every op takes name= (it names a graph node; an eager result has no name). The sweep covers each public
    # function of tj.numpy, tj.numpy.linalg and tj.nn, called with and without a name.
    args_for = sweep_args()
    funcs = public_op_functions()
    assert len(funcs) > 190  # the whole surface, not a few examples
    for surface, name, f in funcs:
        args = args_for(name, f)
        if name == "vectorize":  # (it makes a function: the function's results are compared)
            _same(f(*args, name="an_op")(args_for("sin", tnp.sin)[0]), f(*args)(args_for("sin", tnp.sin)[0]))
            continue
        if name == "einsum_path":  # (a path and its description: the paths are compared)
            assert f(*args, name="an_op")[0] == f(*args)[0]
            continue
        kw = {"inplace": False} if name in ("fill_diagonal", "place", "put") else {}  # (jax.numpy's required keyword)
        _same(f(*args, name="an_op", **kw), f(*args, **kw))


def test_random_functions_and_generator_methods_accept_name():
    k = tj.random.key(0)
    _same(tj.random.normal(k, (2,), name="n"), tj.random.normal(k, (2,)))
    _same(tj.random.uniform(k, (2,), name="u"), tj.random.uniform(k, (2,)))
    _same(tj.random.bernoulli(k, 0.5, (3,), name="b"), tj.random.bernoulli(k, 0.5, (3,)))
    g1, g2 = tj.random.Generator.from_seed(3), tj.random.Generator.from_seed(3)
    _same(g1.normal((2,), name="n"), g2.normal((2,)))
    _same(g1.uniform((2,), name="u"), g2.uniform((2,)))


def test_top_level_ops_accept_name():
    # TF: tf.stop_gradient(input, name), tf.clip_by_norm(t, clip_norm, axes, name), tf.clip_by_global_norm(t_list,
    # clip_norm, use_norm, name), tf.identity(input, name)
    x = tj.constant([3.0, 4.0])
    _same(tj.stop_gradient(x, name="s"), [3.0, 4.0])
    _same(tj.identity(x, name="i"), [3.0, 4.0])
    np.testing.assert_allclose(tj.clip_by_norm(x, 1.0, name="c").numpy(), [0.6, 0.8], rtol=1e-6)
    clipped, norm = tj.clip_by_global_norm([x], 1.0, name="g")
    np.testing.assert_allclose(clipped[0].numpy(), [0.6, 0.8], rtol=1e-6)
    assert float(norm) == 5.0


def test_constants_have_no_name_as_tf_eager_tensors():
    # TF 2.21: tf.constant(1.0, name="c").name -> AttributeError 'Tensor.name is undefined when eager execution is
    # enabled.' (the same for tf.convert_to_tensor); getattr with a default still works
    for t in (tj.constant(1.0, name="c"), tj.convert_to_tensor([1.0], name="q"), tnp.add(1.0, 2.0, name="a")):
        with pytest.raises(AttributeError, match="Tensor.name is undefined when eager execution is enabled"):
            t.name  # noqa: B018
        assert getattr(t, "name", None) is None
    assert float(tj.constant(1.0, name="c")) == 1.0


def test_convert_to_tensor_takes_tfs_dtype_hint():
    # TF 2.21: convert_to_tensor(value, dtype=None, dtype_hint=None, name=None); the hint applies where the conversion
    # is possible (Python values; arrays are cast), else it has no effect; a Tensor or Variable keeps its dtype
    cases = [((1.5,), {"dtype_hint": tj.int32}, "float32", 1.5), (([1, 2],), {"dtype_hint": tj.float32}, "float32", [1.0, 2.0]),
             ((1, None, tj.float32), {}, "float32", 1.0), ((True,), {"dtype_hint": tj.float32}, "float32", 1.0),
             (([1, 2.5],), {"dtype_hint": tj.int32}, "float32", [1.0, 2.5]), (([],), {"dtype_hint": tj.int32}, "int32", []),
             ((1,), {"dtype_hint": tj.bool}, "int32", 1), ((np.array([1.5]),), {"dtype_hint": tj.int32}, "int32", [1]),
             ((tj.constant([1, 2]),), {"dtype_hint": tj.float32}, "int32", [1, 2]),
             ((tj.Variable([1, 2]),), {"dtype_hint": tj.float32}, "int32", [1, 2]),
             ((1.5,), {"dtype_hint": tj.float16}, "float16", 1.5)]
    for args, kwargs, dtype, value in cases:
        t = tj.convert_to_tensor(*args, **kwargs, name="c")
        assert (t.dtype.name, t.numpy().tolist()) == (dtype, value), (args, kwargs)


def test_variables_keep_their_name_as_tf():
    # TF 2.21: 'w:0', 'Variable:0', inside tf.name_scope("outer"): 'outer/w:0', 'outer/Variable:0'
    assert tj.Variable(1.0, name="w").name == "w:0"
    assert tj.Variable(1.0).name == "Variable:0"
    with tj.name_scope("outer"):
        assert tj.Variable(1.0, name="w").name == "outer/w:0"
        assert tj.Variable(1.0).name == "outer/Variable:0"


def test_variable_assignments_take_tfs_use_locking_and_name():
    # TF 2.21: v.assign([3, 4], use_locking=True, name="a") -> [3, 4]; v.assign_add([1, 1], name="b") -> [4, 5];
    # v.assign_sub([1, 1], name="c", read_value=False) -> None
    v = tj.Variable([1.0, 2.0])
    assert v.assign([3.0, 4.0], use_locking=True, name="a") is v
    _same(v, [3.0, 4.0])
    _same(v.assign_add([1.0, 1.0], name="b"), [4.0, 5.0])
    assert v.assign_sub([1.0, 1.0], name="c", read_value=False) is None
    _same(v, [3.0, 4.0])


# -- scalar Tensors and 0-d int Variables as static arguments ---------------------------------------------------
# Each case is f(x, c): c(python_value) gives the static value as the test asks (a Python number, a scalar Tensor, a
# 0-d Variable). Expected: exactly the result with Python numbers (the contract: a scalar Tensor stands for its value).

STATIC = {
    "reshape": lambda x, c: tnp.reshape(x, (c(4), c(3))),
    "reshape_int": lambda x, c: tnp.reshape(x, c(12)),
    "method_reshape": lambda x, c: x.reshape(c(4), c(3)),
    "broadcast_to": lambda x, c: tnp.broadcast_to(x, (c(2), c(3), c(4))),
    "zeros": lambda x, c: x[0, 0] + tnp.zeros((c(2), c(3))),
    "ones": lambda x, c: x[0, 0] * tnp.ones(c(2)),
    "full": lambda x, c: x[0, 0] * tnp.full((c(2),), c(3.0)),
    "tile": lambda x, c: tnp.tile(x, (c(2), c(1))),
    "pad": lambda x, c: tnp.pad(x, ((c(1), c(0)), (c(0), c(2))), constant_values=c(5.0)),
    "pad_int": lambda x, c: tnp.pad(x, c(1)),
    "one_hot": lambda x, c: nn.one_hot(tj.constant([0, 2]), c(3), axis=c(0)) * x[0, 0],
    "split": lambda x, c: tnp.split(x, c(2), axis=c(1))[1],
    "split_sections": lambda x, c: tnp.split(x, [c(1), c(3)], axis=c(1))[1],
    "expand_dims": lambda x, c: tnp.expand_dims(x, (c(0), c(2))),
    "repeat": lambda x, c: tnp.repeat(x, c(2), axis=c(0)),
    "roll": lambda x, c: tnp.roll(x, (c(1), c(2)), axis=(c(0), c(1))),
    "clip": lambda x, c: tnp.clip(x, c(0.5), c(2.0)),
    "linspace": lambda x, c: x[0, 0] * tnp.linspace(0.0, 1.0, c(5)),
    "arange": lambda x, c: x[0, 0] * tnp.arange(c(1), c(7), c(2)),
    "eye": lambda x, c: x[0, 0] * tnp.eye(c(3)),
    "sum": lambda x, c: tnp.sum(x, axis=(c(0), c(1)), keepdims=c(True)),
    "mean_method": lambda x, c: x.mean(c(1)),
    "max": lambda x, c: tnp.max(x, axis=c(0)),
    "var": lambda x, c: tnp.var(x, axis=c(0), ddof=c(1)),
    "cumsum": lambda x, c: tnp.cumsum(x, axis=c(1)),
    "squeeze": lambda x, c: tnp.squeeze(tnp.expand_dims(x, 0), axis=c(0)),
    "flip": lambda x, c: tnp.flip(x, axis=c(1)),
    "sort": lambda x, c: tnp.sort(-x, axis=c(0)),
    "concatenate": lambda x, c: tnp.concatenate([x, x], axis=c(1)),
    "stack": lambda x, c: tnp.stack([x, x], axis=c(2)),
    "take": lambda x, c: tnp.take(x, tj.constant([0, 2]), axis=c(1)),
    "diff": lambda x, c: tnp.diff(x, n=c(2), axis=c(1)),
    "diagonal": lambda x, c: tnp.diagonal(x, offset=c(1)),
    "tril": lambda x, c: tnp.tril(x, k=c(1)),
    "moveaxis": lambda x, c: tnp.moveaxis(x, c(0), c(1)),
    "transpose_method": lambda x, c: x.transpose(c(1), c(0)),
    "tensordot": lambda x, c: tnp.tensordot(x, tnp.transpose(x), axes=c(1)),
    "norm": lambda x, c: la.norm(x, ord=c(2), axis=c(1)),
    "matrix_power": lambda x, c: la.matrix_power(x[:, :3], c(2)),
    "softmax": lambda x, c: nn.softmax(x, axis=c(0)),
    "logsumexp": lambda x, c: nn.logsumexp(x, axis=c(1)),
    "layer_norm": lambda x, c: nn.layer_norm(x, axis=c(0)),
    "max_pool": lambda x, c: nn.max_pool(tnp.reshape(x, (1, 3, 4, 1)), (c(2), c(2)), strides=(c(1), c(2))),
    "leaky_relu": lambda x, c: nn.leaky_relu(x - 1.0, c(0.2)),
    "getitem": lambda x, c: x[c(0):c(3):c(2), c(-1)],
    "constant_shape": lambda x, c: x[0, 0] * tj.constant(2.0, shape=(c(2), c(3))),
    "dropout_rate": lambda x, c: nn.dropout(x, c(0.0), jax.random.key(0)),
    "argsort": lambda x, c: x * tnp.argsort(-x, axis=c(1)),
    "all": lambda x, c: x * tnp.all(x > 0.5, axis=c(1), keepdims=c(True)),
    "trace": lambda x, c: tnp.trace(x, offset=c(1), axis1=c(0), axis2=c(1)),
    "conv": lambda x, c: nn.conv(tnp.reshape(x, (1, 1, 3, 4)), tj.constant(np.ones((1, 1, 2, 2), np.float32)),
                                 (c(1), c(2)), ((c(1), c(0)), (c(0), c(1))), feature_group_count=c(1)),
    "batch_norm": lambda x, c: nn.batch_norm(x, tnp.ones(4), tnp.zeros(4), epsilon=c(0.01), axis=c(-1))[0],
    "gelu": lambda x, c: nn.gelu(x, approximate=c(False)),
    "xent": lambda x, c: nn.softmax_cross_entropy_with_logits(nn.softmax(x), x, axis=c(0)),
    "svd": lambda x, c: la.svd(x, full_matrices=c(False))[1],
    "cholesky": lambda x, c: la.cholesky(x @ tnp.transpose(x) + tnp.eye(3), upper=c(True)),
}

# The argument each case's error names when its static value is traced (the first one the op asks for; roll's
# shift may be traced, as jax.numpy's: its axis is named).
TRACED_ARGUMENT = {
    "reshape": "shape", "reshape_int": "shape", "method_reshape": "shape", "broadcast_to": "shape",
    "zeros": "shape", "ones": "shape", "full": "shape", "tile": "reps", "pad": "pad_width", "pad_int": "pad_width",
    "one_hot": "num_classes", "split": "axis", "split_sections": "axis", "expand_dims": "axis", "repeat": "repeats",
    "roll": "axis", "linspace": "num", "arange": "start", "eye": "N", "sum": "axis", "mean_method": "axis",
    "max": "axis", "var": "axis", "cumsum": "axis", "squeeze": "axis", "flip": "axis", "sort": "axis",
    "concatenate": "axis", "stack": "axis", "take": "axis", "diff": "n", "diagonal": "offset", "tril": "k",
    "moveaxis": "source", "transpose_method": "axes", "tensordot": "axes", "norm": "ord", "matrix_power": "n",
    "softmax": "axis", "logsumexp": "axis", "layer_norm": "axis", "max_pool": "window_shape",
    "leaky_relu": "negative_slope", "getitem": "a slice bound", "constant_shape": "shape", "dropout_rate": "rate",
    "argsort": "axis", "all": "keepdims", "trace": "axis1", "conv": "feature_group_count", "batch_norm": "axis",
    "gelu": "approximate", "xent": "axis", "svd": "full_matrices", "cholesky": "upper",
}


def _as_variable(v):
    return tj.Variable(v)


@pytest.mark.parametrize("case", sorted(STATIC))
def test_scalar_tensors_and_int_variables_stand_for_python_numbers(case):
    # (clip's bounds are array arguments in jax.numpy: a Tensor there is an operand, with the same result)
    f, x = STATIC[case], tj.constant(X)
    want = np.asarray(f(x, lambda v: v))
    for convert in (tj.constant, _as_variable):
        _same(f(x, convert), want)
    # under a GradientTape (deferred execution: the default with one tape): the same value and gradient
    grads = []
    for convert in (lambda v: v, tj.constant, _as_variable):
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = tnp.sum(f(x, convert) ** 2)
        grads.append((np.asarray(y), tape.gradient(y, x)))
    for y, g in grads[1:]:
        np.testing.assert_allclose(y, grads[0][0], rtol=1e-6)
        if grads[0][1] is None:
            assert g is None
        else:
            np.testing.assert_allclose(np.asarray(g), np.asarray(grads[0][1]), rtol=1e-6)


@pytest.mark.parametrize("case", ["reshape", "pad", "one_hot", "split_sections", "arange", "linspace", "sum",
                                  "transpose_method", "norm", "max_pool", "getitem", "constant_shape", "zeros"])
def test_static_tensors_made_inside_a_function_are_concrete_at_trace_time(case):
    # As tf.constant inside tf.function: a constant made in the traced function is known when tracing, so it works as
    # a shape or an axis there; so does a Tensor the function closes over.
    f, x = STATIC[case], tj.constant(X)
    want = np.asarray(f(x, lambda v: v))
    _same(tj.function(lambda a: f(a, tj.constant))(x), want)
    made = {}

    def outside(v):  # tensors made before the trace, closed over
        return made.setdefault(repr(v), tj.constant(v))
    f(x, outside)
    _same(tj.function(lambda a: f(a, outside))(x), want)


# Functions whose result's shape (or whose check) depends on their arguments' values, with arguments that make each
# non-trivial (the set operations on arrays that differ).
VALUE_DEPENDENT = {
    "intersect1d": (lambda a, b: tnp.intersect1d(a, b), [3.0, 1.0, 2.0, 1.0], [2.0, 5.0, 1.0]),
    "intersect1d indices": (lambda a, b: tnp.intersect1d(a, b, return_indices=True), [3.0, 1.0, 2.0], [2.0, 3.0]),
    "setdiff1d": (lambda a, b: tnp.setdiff1d(a, b), [3.0, 1.0, 2.0, 4.0], [2.0, 5.0]),
    "setxor1d": (lambda a, b: tnp.setxor1d(a, b), [3.0, 1.0, 2.0], [2.0, 5.0]),
    "unique": (lambda a: tnp.unique(a, return_index=True, return_counts=True), [3, 1, 3, 2]),
    "unravel_index": (lambda i: tnp.unravel_index(i, (2, 3)), [[1, 2], [3, 5]]),
    "ravel_multi_index": (lambda i, j: tnp.ravel_multi_index((i, j), (3, 4)), [1, 2], [0, 3]),
    "bincount length": (lambda x: tnp.bincount(x, length=5), [0, 2, 1, 2]),
    "bincount": (lambda x: tnp.bincount(x), [0, 2, 1, 2]),
    "nonzero": (lambda x: tnp.nonzero(x), [0.0, 2.0, 0.0, 1.0]),
    "argwhere": (lambda x: tnp.argwhere(x), [[0.0, 2.0], [3.0, 0.0]]),
    "compress": (lambda c, x: tnp.compress(c, x), [0, 1, 1], [4.0, 5.0, 6.0]),
    "trim_zeros": (lambda x: tnp.trim_zeros(x), [0.0, 2.0, 3.0, 0.0]),
    "choose": (lambda i, a, b: tnp.choose(i, [a, b]), [0, 1, 1], [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]),
    "insert": (lambda x, i: tnp.insert(x, i, 9.0), [1.0, 2.0, 3.0], [1]),
    "take": (lambda x, i: tnp.take(x, i), [1.0, 2.0, 3.0], [2, 0]),
    "quantile": (lambda x, q: tnp.quantile(x, q), [0.1, 0.5, 0.3, 0.9], [0.25, 0.5]),
    # (an op made of the argument first: its values are the argument's)
    "flatnonzero": (lambda x: tnp.flatnonzero(x), [[0.0, 2.0], [3.0, 0.0]]),
    "extract": (lambda c, x: tnp.extract(c, x), [[0, 1], [1, 0]], [[4.0, 5.0], [6.0, 7.0]]),
    "union1d": (lambda a, b: tnp.union1d(a, b), [3.0, 1.0, 1.0], [2.0, 5.0]),
    "unique_values": (lambda x: tnp.unique_values(x), [[3, 1], [3, 2]]),
    "unique_counts": (lambda x: tuple(tnp.unique_counts(x)), [[3, 1], [3, 2]]),
    "unique_inverse": (lambda x: tuple(tnp.unique_inverse(x)), [[3, 1], [3, 2]]),
    "unique_all": (lambda x: tuple(tnp.unique_all(x)), [[3, 1], [3, 2]]),
}
# ... and values each of them refuses (ValueError or IndexError, as eagerly)
VALUE_DEPENDENT_BAD = {
    "unravel_index": (lambda i: tnp.unravel_index(i, (2, 3)), [[1, 6]]),
    "ravel_multi_index": (lambda i, j: tnp.ravel_multi_index((i, j), (3, 4)), [1, 3], [0, 3]),
    "bincount length": (lambda x: tnp.bincount(x, length=5), [0, -2]),
    "choose": (lambda i, a, b: tnp.choose(i, [a, b]), [0, 2], [1.0, 2.0], [4.0, 5.0]),
    "take": (lambda x, i: tnp.take(x, i), [1.0, 2.0, 3.0], [3]),
}


def tensor_of(values):
    v = np.asarray(values)
    return tj.constant(v.astype(np.int32 if v.dtype.kind == "i" else np.float32))


@pytest.mark.parametrize("case", sorted(VALUE_DEPENDENT))
def test_a_value_dependent_function_closing_over_tensors_in_a_function_gives_the_eager_result(case):
    # A Tensor the traced body closes over has known values (the program's input, immutable): where a result's shape
    # or a check depends on them, tapejax reads them there, and the result is the eager one (intersect1d gave one
    # value of four, setxor1d, unique, unravel_index, ravel_multi_index and bincount(length=) raised jax's tracer
    # errors: jax.numpy on such a value inside the trace is staged, not computed)
    f, *data = VALUE_DEPENDENT[case]
    args = [tensor_of(d) for d in data]
    want = f(*args)
    _same(tj.function(lambda: f(*args))(), want)


@pytest.mark.parametrize("case", sorted(VALUE_DEPENDENT_BAD))
def test_a_value_dependent_function_closing_over_bad_values_in_a_function_raises_as_eagerly(case):
    f, *data = VALUE_DEPENDENT_BAD[case]
    args = [tensor_of(d) for d in data]
    with pytest.raises((ValueError, IndexError)) as eager:
        f(*args)
    with pytest.raises((ValueError, IndexError)) as traced:
        tj.function(lambda: f(*args))()
    assert type(traced.value) is type(eager.value), (traced.value, eager.value)


@pytest.mark.parametrize("case", sorted(TRACED_ARGUMENT))  # (all but clip, whose bounds are operands: below)
def test_a_traced_static_argument_raises_naming_it(case):
    # A value traced by tj.function is known only when the program runs, but a shape, an axis or a count fixes the
    # program: the error says so and names the argument (a Variable inside tj.function is always traced).
    f, x = STATIC[case], tj.constant(X)
    used = []
    f(x, lambda v: (used.append(v), v)[1])

    def traced(a, *values):
        it = iter(values)
        return f(a, lambda v: next(it))
    name = TRACED_ARGUMENT[case]
    with pytest.raises(TypeError, match=rf"(`{name}`|{name}).*(Python number|Python int)"):
        tj.function(traced)(x, *[tj.constant(v) for v in used])


def test_a_tensor_fill_value_or_linspace_bound_is_differentiated():
    # TF 2.21: d/dv sum(tf.fill([3], v) * [1, 2, 3]) = 6.0 and d/dv sum(tf.linspace(v, 4, 3) * [1, 2, 3]) = 2.0 at
    # v = 2 (tapejax gave None: the Tensor was read as a constant)
    v = tj.constant(2.0)
    w = tj.constant([1.0, 2.0, 3.0])
    for make, want in [(lambda: tnp.full((3,), v), 6.0), (lambda: tnp.full_like(w, v), 6.0),
                       (lambda: tnp.linspace(v, 4.0, 3), 2.0), (lambda: tnp.linspace(v, 4.0, 3, retstep=True)[0], 2.0)]:
        with tj.GradientTape() as tape:
            tape.watch(v)
            y = tnp.sum(make() * w)
        assert float(tape.gradient(y, v)) == want
    _same(tnp.full((2,), 1.5), [1.5, 1.5])  # (a Python value: a constant, as before)
    _same(tj.function(lambda a: tnp.full((2,), a) + tnp.linspace(a, 3.0, 2))(v), [4.0, 5.0])


def test_traced_bounds_of_clip_and_a_traced_scalar_index_are_operands():
    # jax.numpy takes clip's bounds and a scalar index as arrays: traced values work there (as TF's dynamic ones)
    x = tj.constant(X)
    f = tj.function(lambda a, lo, hi, i: tnp.clip(a, lo, hi)[i])
    _same(f(x, tj.constant(0.5), tj.constant(2.0), tj.constant(1)), np.clip(X, 0.5, 2.0)[1])


def test_a_variable_closed_over_by_a_function_is_traced_and_named():
    v = tj.Variable(1)
    f = tj.function(lambda a: tnp.sum(a, axis=v))
    with pytest.raises(TypeError, match="`axis` is a tj.Variable where a Python number is expected"):
        f(tj.constant(X))
    g = tj.function(lambda a: tnp.expand_dims(a, v))
    with pytest.raises(TypeError, match=r"tj.numpy.expand_dims: argument `axis` is a tj.Variable"):
        g(tj.constant(X))


@pytest.mark.parametrize("make", [tj.constant, tj.Variable], ids=["tensor", "variable"])
def test_one_d_int_tensors_stand_for_shapes_and_axis_lists(make):
    # TF code passes shapes as tensors (tf.reshape(x, tf.constant([4, 3])), tf.zeros(tf.shape(x))); jax.numpy takes
    # sequences: a 1-d int Tensor or Variable is its list of values
    x = tj.constant(X)
    s = lambda v: make(np.asarray(v, np.int32))  # noqa: E731
    _same(tnp.reshape(x, s([4, 3])), X.reshape(4, 3))
    assert tnp.zeros(s([2, 3])).shape == (2, 3) and tnp.full(s([2]), 1.0).shape == (2,)
    assert tj.constant(1.0, shape=s([2, 3])).shape == (2, 3) and tj.constant(1.0, shape=3).shape == (3,)
    _same(tnp.broadcast_to(x, s([2, 3, 4])), np.broadcast_to(X, (2, 3, 4)))
    _same(tnp.tile(x, s([2, 1])), np.tile(X, (2, 1)))
    _same(tnp.pad(x, s([[1, 0], [0, 2]])), np.pad(X, ((1, 0), (0, 2))))
    _same(tnp.transpose(x, s([1, 0])), X.T)
    _same(tnp.sum(x, axis=s([0, 1])), X.sum())
    _same(tnp.roll(x, s([1, 2]), axis=s([0, 1])), np.roll(X, (1, 2), axis=(0, 1)))
    _same(tnp.flip(x, s([0, 1])), X[::-1, ::-1])
    assert tnp.expand_dims(x, s([0, 1])).shape == (1, 1, 3, 4)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.sum(tnp.tile(tnp.reshape(x, s([4, 3])), s([2, 1])) ** 2)
    _same(tape.gradient(y, x), 4 * X)


def test_an_int_variable_is_an_index_as_a_scalar_tensor():
    # tapejax: a 0-d int Variable converts with operator.index, as a scalar Tensor does (range(tf.constant(3)) ->
    # [0, 1, 2] in TF). TF's Variable has no __index__ ('ResourceVariable' object cannot be interpreted as an
    # integer): a difference on purpose (API.md: a Variable is usable wherever a Tensor is).
    v = tj.Variable(2)
    assert operator.index(v) == 2 and list(range(tj.constant(3))) == [0, 1, 2] and list(range(v)) == [0, 1]
    assert [10, 20, 30][v] == 30
    _same(tj.constant(X)[v], X[2])
    with pytest.raises(TypeError, match="only integer"):
        operator.index(tj.Variable(2.0))


# -- Python conversions, as TF's EagerTensor -----------------------------------------------------------------------

ZERO_D = "only 0-dimensional arrays can be converted to Python scalars"  # TF (NumPy's TypeError)


def test_python_conversions_of_scalars_as_tf():
    # TF 2.21: int/float/bool/complex of 1.5, 3, True, 1+2j
    for make in (tj.constant, tj.Variable):
        f, i, b = make(1.5), make(3), make(True)
        assert (int(f), float(f), bool(f), complex(f)) == (1, 1.5, True, 1.5 + 0j)
        assert (int(i), float(i), bool(i), complex(i)) == (3, 3.0, True, 3 + 0j)
        assert (int(b), float(b), bool(b), complex(b)) == (1, 1.0, True, 1 + 0j)
        assert type(int(f)) is int and type(float(i)) is float
    c = tj.constant(1 + 2j, tj.complex64)
    assert complex(c) == 1 + 2j and bool(c) is True
    with warnings.catch_warnings():  # TF: the real part, with NumPy's ComplexWarning
        warnings.simplefilter("ignore")
        assert (int(c), float(c)) == (1, 1.0)


@pytest.mark.parametrize("make", [tj.constant, tj.Variable], ids=["tensor", "variable"])
def test_python_conversions_of_non_scalars_as_tf(make):
    one, two = make([1.5]), make([1.5, 2.5])
    for t in (one, two):
        for convert in (int, float, complex):
            with pytest.raises(TypeError, match=ZERO_D):
                convert(t)
    assert bool(one) is True  # TF: a size-1 tensor has a truth value
    with pytest.raises(ValueError, match="ambiguous"):
        bool(two)
    empty = tj.constant(np.zeros(0, np.int32))
    assert bool(empty) is False  # TF 2.21: False (x.size > 0 and x), where NumPy and JAX raise
    with pytest.raises(TypeError, match="only integer scalar arrays can be converted to a scalar index"):
        operator.index(tj.constant([1]))


def test_len_and_iter_as_tf():
    # TF: 'Scalar tensor has no `len()`', 'Cannot iterate over a scalar tensor.'; len([1.5]) 1, len([]) 0
    assert len(tj.constant([1.5])) == 1 and len(tj.constant(np.zeros(0, np.int32))) == 0
    assert [float(e) for e in tj.constant([1.5, 2.5])] == [1.5, 2.5]
    assert [e.numpy().tolist() for e in tj.constant([[1.5]])] == [[1.5]]
    assert list(tj.constant(np.zeros(0, np.int32))) == []
    for make in (tj.constant, tj.Variable):
        with pytest.raises(TypeError, match="Scalar tensor has no `len\\(\\)`"):
            len(make(1.5))
        with pytest.raises(TypeError, match="Cannot iterate over a scalar tensor"):
            iter(make(1.5))
    # tapejax: len() of a Variable is its first dimension (TF's Variable has no len(): a difference on purpose,
    # a Variable is usable wherever a Tensor is); iterating it gives its elements, as TF's
    v = tj.Variable([1.5, 2.5])
    assert len(v) == 2 and [float(e) for e in v] == [1.5, 2.5]


def test_format_as_tf():
    # TF 2.21: format(t, spec) is the NumPy value's format: '1.5', '1.500', '   1.5'; 3 -> '3', '3.000', '     3';
    # True -> 'True', '1.000', '     1'; 1+2j -> '(1+2j)', '1.000+2.000j'; [1.5 2.5] -> '[1.5 2.5]' and a spec on
    # a non-scalar raises TypeError
    cases = [(tj.constant(1.5), ("1.5", "1.500", "   1.5")), (tj.constant(3), ("3", "3.000", "     3")),
             (tj.constant(True), ("True", "1.000", "     1")), (tj.constant(1 + 2j, tj.complex64), ("(1+2j)", "1.000+2.000j", "(1+2j)"))]
    for t, (plain, f3, right) in cases:
        assert (format(t), f"{t}", format(t, ".3f"), format(t, ">6")) == (plain, plain, f3, right)
    assert f"{tj.constant([1.5, 2.5])}" == "[1.5 2.5]" and format(tj.constant(np.zeros(0, np.int32))) == "[]"
    for spec in (".3f", ">6"):
        with pytest.raises(TypeError):
            format(tj.constant([1.5, 2.5]), spec)
    with pytest.raises(ValueError, match="Unknown format code 'd'"):  # TF: as Python's for a float
        format(tj.constant(1.5), "d")
    # A Variable without a spec formats as its repr (TF); with a spec as its value: tapejax only (TF's Variable
    # raises 'unsupported format string passed to ResourceVariable.__format__'; API.md wants f"{v:.4f}")
    v = tj.Variable(1.5, name="w")
    assert f"{v}" == repr(v) == "<tj.Variable 'w:0' shape=() dtype=float32, numpy=1.5>"
    assert f"{v:.3f}" == "1.500"


def test_round_gives_a_rounded_tensor():
    # TF 2.21 raises AttributeError for round(t) (its __round__ is tf.experimental.numpy's around, which needs numpy
    # behaviour enabled); tapejax gives that result, as jax.Array's __round__: a Tensor of t's dtype, half to even
    r = round(tj.constant([0.5, 1.5, 2.25]))
    assert isinstance(r, tj.Tensor) and r.dtype == jnp.float32
    _same(r, [0.0, 2.0, 2.0])
    _same(round(tj.constant(1.2345), 2), np.float32(1.23))
    _same(round(tj.Variable(2.5)), 2.0)


def test_conversions_of_deferred_values_under_a_tape_keep_the_gradient():
    # Under one tape ops are deferred (LazyTensor outputs): a conversion runs them, and the tape still differentiates
    x = tj.constant([1.5, 2.5])
    with tj.GradientTape() as tape:
        tape.watch(x)
        y, z = tnp.sum(x * 2), x * 3
        seen = (f"{y:.3f}", f"{y}", int(y), float(y), bool(y), float(round(y)), len(z), [float(e) for e in z],
                float(np.mean(z)), operator.index(tnp.sum(tj.constant([1, 2]))))
        total = y + tnp.sum(z)
    assert seen == ("8.000", "8.0", 8, 8.0, True, 8.0, 2, [4.5, 7.5], 6.0, 3)
    _same(tape.gradient(total, x), [5.0, 5.0])


def test_numpy_of_a_scalar_is_a_numpy_scalar_and_numpy_functions_give_numpy_results():
    # TF 2.21: .numpy() of 1.5 -> np.float32; np.mean/np.sum/np.max of int32 3 -> float64 3.0, int64 3, int32 3;
    # of [1.5, 2.5] -> float32 2.0, 4.0, 2.5; np.asarray -> ndarray; of an empty int32: nan, 0, ValueError
    for make in (tj.constant, tj.Variable):
        for value, kind in [(1.5, np.float32), (3, np.int32), (True, np.bool_)]:
            n = make(value).numpy()
            assert type(n) is kind and n == value
        i = make(3)
        got = (np.mean(i), np.sum(i), np.max(i))
        assert [type(r) for r in got] == [np.float64, np.int64, np.int32] and got == (3.0, 3, 3)
        f = make([1.5, 2.5])
        got = (np.mean(f), np.sum(f), np.max(f))
        assert all(type(r) is np.float32 for r in got) and got == (2.0, 4.0, 2.5)
        a = np.asarray(f)
        assert type(a) is np.ndarray and a.dtype == np.float32
        assert type(np.asarray(make(1.5))) is np.ndarray
    e = tj.constant(np.zeros(0, np.int32))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(np.mean(e)) and np.sum(e) == 0
    with pytest.raises(ValueError, match="zero-size array"):
        np.max(e)


# -- repr / str ----------------------------------------------------------------------------------------------------
# TF 2.21's value text (str(t) is "tf.Tensor(<text>, shape=..., dtype=...)"): NumPy's str, elided past 1000
# elements, a value of several lines starting on a line of its own. API.md's format puts it after "numpy=".

REPR_TEXT = [
    (lambda: tj.constant(0.1), "0.1"),
    (lambda: tj.constant([1.0, 2.5, -3.0]), "[ 1.   2.5 -3. ]"),
    (lambda: tj.constant([[1.0, 2.0], [3.0, 4.5]]), "\n[[1.  2. ]\n [3.  4.5]]"),
    (lambda: tj.constant([1, -2, 3]), "[ 1 -2  3]"),
    (lambda: tj.constant(True), "True"),
    (lambda: tj.constant([True, False]), "[ True False]"),
    (lambda: tj.constant([1 + 2j, 3 - 1j], tj.complex64), "[1.+2.j 3.-1.j]"),
    (lambda: tj.constant([], tj.float32), "[]"),
    (lambda: tj.constant(np.zeros((2, 0), np.int32)), "[]"),
    (lambda: tj.constant(np.arange(2000, dtype=np.float32)), "[0.000e+00 1.000e+00 2.000e+00 ... 1.997e+03 1.998e+03 1.999e+03]"),
    (lambda: tj.constant([float("nan"), float("inf"), -float("inf")]), "[ nan  inf -inf]"),
]


def test_tensor_repr_shows_tfs_value_text():
    for make, text in REPR_TEXT:
        t = make()
        assert repr(t) == str(t) == f"<tj.Tensor shape={t.shape} dtype={t.dtype} numpy={text}>"


def test_variable_repr_as_tf():
    # TF 2.21's repr with tf. -> tj.
    cases = [
        (0.1, "<tj.Variable 'w:0' shape=() dtype=float32, numpy=0.10000000149011612>"),
        ([1.0, 2.5, -3.0], "<tj.Variable 'w:0' shape=(3,) dtype=float32, numpy=array([ 1. ,  2.5, -3. ], dtype=float32)>"),
        ([[1.0, 2.0], [3.0, 4.5]], "<tj.Variable 'w:0' shape=(2, 2) dtype=float32, numpy=\n"
                                   "array([[1. , 2. ],\n       [3. , 4.5]], dtype=float32)>"),
        ([True, False], "<tj.Variable 'w:0' shape=(2,) dtype=bool, numpy=array([ True, False])>"),
        (np.array([1 + 2j, 3 - 1j], np.complex64),
         "<tj.Variable 'w:0' shape=(2,) dtype=complex64, numpy=array([1.+2.j, 3.-1.j], dtype=complex64)>"),
        (np.zeros(0, np.float32), "<tj.Variable 'w:0' shape=(0,) dtype=float32, numpy=array([], dtype=float32)>"),
    ]
    for value, text in cases:
        assert repr(tj.Variable(value, name="w")) == text


# -- JAX and NumPy interop -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("make", [tj.constant, tj.Variable], ids=["tensor", "variable"])
def test_jax_functions_take_tensors_and_variables(make):
    x = make([1.0, 2.0, 3.0])
    for r, want in [(jnp.sin(x), np.sin([1.0, 2.0, 3.0])), (jnp.sum(x), 6.0), (jnp.asarray(x), [1, 2, 3]),
                    (jnp.stack([x, x]), [[1, 2, 3]] * 2), (jax.jit(jnp.sum)(x), 6.0)]:
        assert isinstance(r, jax.Array)
        np.testing.assert_allclose(np.asarray(r), want, rtol=1e-6)
    out = jax.jit(lambda a: a * 2)(x)  # a Tensor (Variable) pytree comes back as a Tensor
    assert isinstance(out, tj.Tensor)
    _same(out, [2.0, 4.0, 6.0])
    _same(jax.grad(lambda a: jnp.sum(jnp.asarray(a) ** 2))(x), [2.0, 4.0, 6.0])
    _same(jax.vmap(lambda a: a * 2)(x), [2.0, 4.0, 6.0])
    assert (jnp.shape(x), jnp.ndim(x), jnp.size(x), jnp.result_type(x)) == ((3,), 1, 3, jnp.float32)
    leaves, tree = jax.tree_util.tree_flatten({"a": x, "b": [x]})
    assert len(leaves) == 2 and all(isinstance(leaf, jax.Array) for leaf in leaves)
    back = jax.tree_util.tree_unflatten(tree, leaves)
    assert isinstance(back["a"], tj.Tensor) and isinstance(back["b"][0], tj.Tensor)
    doubled = jax.tree_util.tree_map(lambda a: a * 2, {"a": x})
    _same(doubled["a"], [2.0, 4.0, 6.0])
    np.testing.assert_allclose(np.median(x), 2.0)
    assert np.allclose(x, [1.0, 2.0, 3.0]) and isinstance(np.exp(x), np.ndarray)


TRACED_BY_JAX_JIT = {  # (arguments jax.jit traces: tj code under a JAX transformation, one of API.md's paths)
    "quantile": (lambda a, q: tnp.quantile(a, q), [0.1, 0.5, 0.3, 0.9], [0.25, 0.5]),
    "sparse_softmax_cross_entropy_with_logits": (nn.sparse_softmax_cross_entropy_with_logits, [1, 0],
                                                 [[0.5, 1.5, -1.0], [2.0, 0.0, 1.0]]),
}


@pytest.mark.parametrize("case", sorted(TRACED_BY_JAX_JIT))
def test_a_function_takes_array_arguments_traced_by_jax_jit(case):
    # (both read a plain argument's dtype or values by np.asarray, which a tracer refuses: TracerArrayConversionError)
    f, *data = TRACED_BY_JAX_JIT[case]
    args = [tensor_of(d) for d in data]
    got = jax.jit(lambda *a: f(*a).value)(*[a.value for a in args])
    np.testing.assert_allclose(np.asarray(got), np.asarray(f(*args)), rtol=1e-6)


def test_optax_updates_on_a_pytree_of_variables():
    import optax
    params = {"w": tj.Variable([1.0, 2.0]), "b": tj.Variable(0.5)}
    tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adam(0.1))
    state = tx.init(params)
    with tj.GradientTape() as tape:
        loss = tnp.sum(params["w"] ** 2) + params["b"] ** 2
    grads = tape.gradient(loss, params)
    updates, state = tx.update(grads, state, params)
    for k, v in params.items():
        v.assign_add(updates[k])
    # adam's first step is -lr * sign(g) (up to its epsilon)
    np.testing.assert_allclose(params["w"].numpy(), [0.9, 1.9], rtol=1e-5)
    np.testing.assert_allclose(params["b"].numpy(), 0.4, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(optax.tree.norm(params)), np.sqrt(0.81 + 3.61 + 0.16), rtol=1e-6)


def test_numpy_surface_has_jax_numpys_dtype_names():
    # tj.numpy mirrors jax.numpy's names: its dtypes (equal to jax.numpy's; tj's TF-style names are the same objects)
    # and dtype helpers (jax.numpy's own: tnp.complex64, tnp.finfo(...).eps)
    for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "bfloat16",
                 "float32", "float64", "complex64", "complex128", "bool_"):
        assert getattr(tnp, name) == getattr(jnp, name) and getattr(tnp, name) is getattr(tj, name.rstrip("_")), name
    for name in ("dtype", "finfo", "iinfo", "issubdtype", "result_type", "number", "inexact", "floating",
                 "complexfloating", "integer", "signedinteger", "unsignedinteger"):
        assert getattr(tnp, name) is getattr(jnp, name), name
    assert tnp.result_type(tj.Variable([1, 2])) == jnp.int32 and tnp.issubdtype(tj.constant(1.0).dtype, tnp.floating)


def test_op_takes_pytrees_of_tensors_and_arrays_and_says_outputs_are_flat():
    f = tj.op(lambda p, xs: p["w"] * xs[0] + p["b"] + xs[1])
    params = {"w": tj.Variable([1.0, 2.0]), "b": np.float32(0.5)}
    x0, x1 = tj.constant([1.0, 3.0]), jnp.array([0.25, 0.25])
    with tj.GradientTape() as tape:
        tape.watch(x0)
        y = tnp.sum(f(params, [x0, x1]))
    _same(y, 1.0 + 6.0 + 1.0 + 0.5)
    g = tape.gradient(y, {"w": params["w"], "x0": x0})
    _same(g["w"], [1.0, 3.0])
    _same(g["x0"], [1.0, 2.0])
    _same(tj.op(lambda xs: xs[0][0] + xs[1])(((x0,), x0)), [2.0, 6.0])
    _same(tj.op(lambda a: [a, a * 2])(x0)[1], [2.0, 6.0])  # a flat list of outputs is a tuple of Tensors
    with pytest.raises(TypeError, match=r"returns an array or a flat tuple of arrays"):
        tj.op(lambda a: {"a": a})(x0)


# -- indexing ----------------------------------------------------------------------------------------------------------

def test_indexing_values_as_numpy():
    x, xn = tj.constant(X), X
    assert tj.newaxis is None and tnp.newaxis is None  # TF's tf.newaxis, NumPy's np.newaxis
    idx = [3 - 4, (slice(None, None, 2), slice(None, None, -2)), (Ellipsis, -1), (None, 1, slice(None), None),
           (slice(1, None), tj.newaxis), [0, 2], ([0, 2], [1, -1]), xn > 1.5, tj.constant(xn > 1.5), tj.constant([2, 0]),
           (tj.constant(1), tj.Variable(-2)), slice(2, 10), (slice(None), [True, False, True, False]), (),
           True, False, (0, True), (Ellipsis, False), ([0, 1], True)]  # (a boolean scalar: NumPy's new axis)
    for i in idx:
        want = xn[tuple(np.asarray(p) if isinstance(p, (tj.Tensor, tj.Variable)) else p for p in i)
                  if isinstance(i, tuple) else (np.asarray(i) if isinstance(i, (tj.Tensor, tj.Variable)) else i)]
        _same(x[i], want)
        _same(tj.Variable(X)[i], want)


@pytest.mark.parametrize("index, error", [
    (3, IndexError), (-4, IndexError), ((0, 4), IndexError), (tj.constant(5), IndexError), ([0, 3], IndexError),
    (([0], [-5]), IndexError), (tj.constant([0, 3]), IndexError), ((0, 0, 0), IndexError),
    (1.0, TypeError), ((0, 1.0), TypeError), (slice(0, 1.5), TypeError), (np.float32(1), TypeError),
    (tj.constant(1.0), TypeError), (tj.constant([0.0]), TypeError), ("a", TypeError),
    (slice(None, None, 0), ValueError),
])
def test_out_of_bounds_and_float_indices_raise(index, error):
    # TF 2.21: out-of-bounds basic indices raise InvalidArgumentError (tapejax: IndexError, as NumPy and API.md), a
    # float or string index TypeError ('Only integers, slices ... are valid indices'; NumPy raises IndexError for a
    # float scalar and TypeError for a float slice bound), a zero step InvalidArgumentError (tapejax: ValueError, as
    # NumPy's 'slice step cannot be zero'); advanced indices out of bounds IndexError (NumPy). Never clamped, also
    # on a Variable and under a tape.
    x = tj.constant(X)
    with pytest.raises(error):
        x[index]
    with pytest.raises(error):
        tj.Variable(X)[index]
    with tj.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(error):
            x[index]


def test_indexing_gradients_as_tf():
    # TF 2.21: d/dx of sum(x[::2, ::-2] * [[1, 2]]) + sum(x[..., -1]**2) + sum(x[None, 1, :, None] * 3)
    # + sum(x[x > 9] * 5) at x = arange(12).reshape(3, 4)
    x = tj.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
    mask = np.arange(12).reshape(3, 4) > 9
    for persistent in (False, True):  # deferred, and recorded op by op
        with tj.GradientTape(persistent=persistent) as tape:
            tape.watch(x)
            y = (tnp.sum(x[::2, ::-2] * tj.constant([[1.0, 2.0]])) + tnp.sum(x[..., -1] ** 2)
                 + tnp.sum(x[None, 1, :, None] * 3.0) + tnp.sum(x[mask] * 5.0))
        _same(tape.gradient(y, x), [[0.0, 2.0, 0.0, 7.0], [3.0, 3.0, 3.0, 17.0], [0.0, 2.0, 5.0, 28.0]])
    # advanced indices: repeated ones add up (NumPy's np.add.at), negative ones count from the end; a boolean
    # scalar is a new axis (NumPy)
    for index in (([0, 0, -1], [1, 1, -1]), (True, 1), (0, False)):
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = tnp.sum(x[index] * 2.0)
        want = np.zeros((3, 4), np.float32)
        np.add.at(want, index, 2.0)
        _same(tape.gradient(y, x), want)


# -- tj.config per thread ------------------------------------------------------------------------------------------------

def test_config_in_pool_threads_starts_from_the_main_threads_values_and_stays_per_thread():
    cfg = tj.config
    cfg.replay_warmup = 7
    cfg.aggregation_min_count = 9
    barrier = threading.Barrier(2, timeout=30)

    def worker(i):
        start = (cfg.replay_warmup, cfg.aggregation_min_count)
        cfg.replay_warmup = 100 + i  # this thread's own
        with cfg.aggregation(min_count=i):
            barrier.wait()  # both threads are inside their blocks at once
            inside = (cfg.replay_warmup, cfg.aggregation_min_count)
        return start, inside, (cfg.replay_warmup, cfg.aggregation_min_count)

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        results = list(pool.map(worker, [1, 2]))
    assert results == [((7, 9), (101, 1), (101, 9)), ((7, 9), (102, 2), (102, 9))]
    assert (cfg.replay_warmup, cfg.aggregation_min_count) == (7, 9)  # the workers' settings stayed theirs
