"""JAX's batching tests (tests/batching_test.py in jax-ml/jax, BatchingTest) ported to tj code under jax.vmap.

Source: jax-ml/jax tests/batching_test.py (BatchingTest). Each case writes the test's function twice, with tj.numpy /
tj.nn on the values jax passes (raw tracers; a tj op on them returns a Tensor, which jax.vmap, jvp, jacfwd, jacrev and
hessian take as an output, while jax.grad and while_loop carries take ``.value``) and with jax.numpy / jax.lax, runs
both under the same transform (jax.vmap with in_axes / out_axes variants, nested vmap, vmap of grad / jvp / vjp,
jacfwd / hessian, grad of vmap, jit of vmap, vmap of while_loop / fori_loop) and checks one tree structure (Tensors
read as their arrays), shapes, dtypes and values. Most maps run under jax.jit (one program per call: an eager vmap
dispatches every primitive as its own program, too slow for this file's budget); a few stay eager. Values are also
checked against NumPy (the references jax's tests state) and derivatives against tj.GradientTape /
tj.ForwardAccumulator / tape.jacobian on the same tj function; some vmapped tj functions also run inside tj.function
and are compared with eager (jax's _CompileAndCheck analogue). No expected value comes from tapejax.

How jax's ops map to tj: lax.slice / lax.rev / dynamic_slice / gather -> indexing a Tensor (M.asarray(x)[...]),
tnp.flip, tnp.take; lax.dot_general -> tnp.matmul / tnp.dot / tnp.einsum; lax.pad -> tnp.pad (interior padding:
lax.pad of a tj result); lax.concatenate -> tnp.concatenate; lax.sort -> tnp.sort; lax.sort_key_val -> tnp.argsort +
tnp.take_along_axis; lax.select -> tnp.where; lax.conv_general_dilated -> tj.nn.conv_general_dilated;
lax.reduce_window max / min / add -> tj.nn.max_pool, -max_pool(-y), 4 * avg_pool (VALID windows of 4);
lax.linalg.cholesky -> tnp.linalg.cholesky; lax.linalg.triangular_solve -> tnp.linalg.solve of the same triangular
system (tj has no triangular solve); lax.dynamic_update_index_in_dim / jax.ops.index_add / dynamic_update_slice ->
Tensor.at[...].set / .add; random.PRNGKey / normal / uniform / split -> tj.random's.

Ported (jax's names): testConstantFunction, testNestedBatchingMatMat (values), testPerExampleGradients, testJacobians,
testBatchOfCompile, testSliceLax, testSliceNumpy, testRevLax, testRevNumpy, testNpMaximum, testNpGtrThan,
testNpMaximumPerExampleGrad, testDotGeneral, testDot, testDot2, testDot3, testDot4, testPad, testConcatenate,
testJacobianIssue54, testAny, testHessian, testDynamicSlice, testDynamicUpdateSlice, testRandom, testSort,
testSortKeyVal (four of its six axis pairs), testConvGeneralDilated, testConvGeneralDilatedBatchNotMajor,
testMinMaxPool, testSumPool, testCumProd, testSelect, testLaxLinalgCholesky, testLaxLinalgTriangularSolve,
testGatherBatchedOperand, testGatherGradBatchedOperand, testGatherBatchedIndices, testGatherGradBatchedIndices,
testGatherBatchedBoth, testGatherGradBatchedBoth (as tnp.take, one or two cases each), testNumpyIndexing1,
testNumpyIndexing2, testTranspose, testTransposePermutation, testIssue354, testIssue387, testIssue489,
testEmptyTuples, testIndexAddBatchedIndexesOnly, testIssue3883, testNegativeAxes, testVmapKwargs. Added: a
tj.GradientTape and a ForwardAccumulator inside jax.vmap, vmap of jacfwd and of hessian, the gradient of a dynamic
index, cumsum, a fori_loop with a tj body (values and vmap of grad), per-example conv filters with feature groups,
tnp.roll with a per-example shift and tj.nn.logsumexp with signed weights (the two differences below).

Left out: jaxpr inspection (testNestedBatchingMatMat's equation count, testDot5); pmap (testIssue1170); vmap
collectives, which have no tj counterpart (testCommAssocCollective, testPPermute, testAllToAllShape,
testAllToAllSplitAxis, testAxisIndex, testCollectivePdot, testCollectivePdotBatching, testPdotJvp, testPdotVjp,
testAllGatherToUnmapped, testBatchedAllGather, testAllGatherVjp, testAllGatherOfConst, testArgAllReduce);
testNonJaxTypedOutput (a function returning a string: no tj op involved); the gather tests' float64 half (x64 is
off) and their lax.gather dimension numbers with slices wider than one element (no single tnp indexing op; float32
and one int32 case here). test_jax_transforms_port.py's vmap cases (in_axes lists, structured in_axes, axis_size,
vmap errors, vmap of grad of tanh, grad of vmap of max) are not repeated.

Sanctioned differences (API.md), checked as such:
- maximum at a tie gives the whole gradient to the first argument: the Hessian of sum(maximum(x, 0) ** 2) at x = 0
  is 2 for tj (TF 2.21's nested tapes over tf.maximum give 2, run when this file was written), where jax.numpy's is
  0.5 (testHessian).
- tj functions return Tensors: jax.grad and while_loop carries take ``.value`` (README "JAX transforms over tj
  code").

Differences this port found, fixed in tapejax (the tests failed before):
- tnp.roll refused a shift traced by jax.jit or jax.vmap (TypeError "shift must be an integer or a sequence of
  integers"), so a per-example shift under vmap failed; jnp.roll takes a traced shift.
- tj.nn.logsumexp(a, b=..., return_sign=True) raised NotImplementedError; jax.nn.logsumexp returns
  (log|sum(b * exp(a))|, sign).
"""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import tapejax as tj
from conftest import accumulator_jvp, same_tree_as_jax, tape_gradients, tree_arrays

tnp = tj.numpy
F32 = np.float32


def R(*shape, seed=0):
    return np.random.RandomState(seed).randn(*shape).astype(F32)


def same(got, want, rtol=1e-5, atol=1e-6):
    same_tree_as_jax(got, want, rtol, atol)


def both(run):
    """``run(M)`` with M = tnp and M = jnp: (tj's result, jax.numpy's)."""
    return run(tnp), run(jnp)


def out(M, y):
    """What jax.grad wants from a function written with ``M``: a tj result's array, a jnp result as it is."""
    return y.value if M is tnp else y


def nclose(got, want, rtol=1e-5, atol=1e-5):
    np.testing.assert_allclose(np.asarray(tree_arrays(got)), want, rtol=rtol, atol=atol)


def compiled_matches_eager(f, *args, rtol=1e-5, atol=1e-6):
    """``f`` (jax transforms of tj code) run inside tj.function gives what the same call gives eagerly."""
    ts = [tj.constant(a) for a in args]
    same(tj.function(f)(*ts), tree_arrays(f(*ts)), rtol, atol)


def jboth(make, *args):
    """``jax.jit(make(M))(*args)`` for M = tnp and jnp: (tj's result, jax.numpy's). Under jit a call is one program;
    an eager vmap runs each primitive as a program of its own, which would put this file far over its time budget."""
    return jax.jit(make(tnp))(*args), jax.jit(make(jnp))(*args)


def jit_ref(fn, *args):
    """A jax-only reference ``fn(*args)`` as one jitted program (op by op, eager jax compiles one per primitive);
    array arguments are traced, the others (Python numbers) stay static."""
    is_arr = [isinstance(a, (np.ndarray, jax.Array)) for a in args]

    def run(*arrays):
        it = iter(arrays)
        return fn(*[next(it) if m else a for a, m in zip(args, is_arr)])
    return jax.jit(run)(*[a for a, m in zip(args, is_arr) if m])


def vmap_both(f, *args, eager=False, **vmap_kwargs):
    """jax.vmap(f(M), **vmap_kwargs)(*args) for M = tnp and jnp (under jax.jit unless ``eager``: then tj's map runs
    eagerly, jax.numpy's reference still in one program), checked alike; returns tj's result."""
    if eager:
        got, want = jax.vmap(f(tnp), **vmap_kwargs)(*args), jit_ref(jax.vmap(f(jnp), **vmap_kwargs), *args)
    else:
        got, want = jboth(lambda M: jax.vmap(f(M), **vmap_kwargs), *args)
    same(got, want)
    return got


# -- maps, nested maps, per-example gradients ------------------------------------------------------------------------

def test_constant_function():
    # testConstantFunction: an unbatched tj result is broadcast along the mapped axis
    got = vmap_both(lambda M: lambda x: M.asarray(3), np.ones(4, F32), eager=True)
    nclose(got, 3 * np.ones(4))


def test_nested_batching_mat_mat():
    # testNestedBatchingMatMat (values; its jaxpr equation count is jax's business)
    A, B = R(4, 3), R(3, 2, seed=1)

    def matmat(M):
        return jax.vmap(jax.vmap(M.vdot, in_axes=(0, None)), in_axes=(None, 1), out_axes=1)

    got, want = both(lambda M: matmat(M)(A, B))
    same(got, want)
    nclose(got, A @ B)
    compiled_matches_eager(matmat(tnp), A, B)


def _predict(M, params, inputs):
    for W, b in params:
        outputs = M.dot(W, inputs) + b
        inputs = M.tanh(outputs)
    return outputs


def test_per_example_gradients():
    # testPerExampleGradients: vmap of grad over an (inputs, targets) batch; shapes (batch,) + the parameter's,
    # values as jax.numpy's and as a tj.GradientTape's run inside jax.vmap
    rs = np.random.RandomState(0)
    params = [(rs.randn(m, n).astype(F32), rs.randn(m).astype(F32)) for m, n in [(2, 3), (4, 2)]]
    batch = (rs.randn(5, 3).astype(F32), rs.randn(5, 4).astype(F32))

    def loss(M, params, data):
        return out(M, M.sum((_predict(M, params, data[0]) - data[1]) ** 2))

    got, want = jboth(lambda M: jax.vmap(functools.partial(jax.grad(functools.partial(loss, M)), params)), batch)
    same(got, want, atol=1e-5)
    for (dW, db), (W, b) in zip(got, params):
        assert dW.shape == (5,) + W.shape and db.shape == (5,) + b.shape

    # the same per-example gradients from a tj.GradientTape inside jax.vmap
    def tape_grads(inputs, targets):
        ps = [tj.Tensor(jnp.asarray(p)) for pair in params for p in pair]
        with tj.GradientTape() as tape:
            tape.watch(ps)
            y = tnp.sum((_predict(tnp, [ps[:2], ps[2:]], inputs) - targets) ** 2)
        return tape.gradient(y, ps)

    same(jax.vmap(tape_grads)(*batch), [a for pair in got for a in pair], rtol=1e-4, atol=1e-5)


def test_jacobians_by_vmap_of_vjp_and_jvp():
    # testJacobians: the Jacobian as vmap of a vjp's pullback over the standard basis (its rows) and as vmap of jvp
    # (out_axes (None, 1): its columns); also vmap of jacfwd, a tape's jacobian and a ForwardAccumulator inside vmap
    rs = np.random.RandomState(0)
    A, b, x = rs.randn(4, 3).astype(F32), rs.randn(4).astype(F32), rs.randn(3).astype(F32)

    def f(M):
        return lambda x: M.tanh(M.dot(A, x) + b)

    def jacbwd(M, x):
        _, pullback = jax.vjp(f(M), x)
        basis = np.eye(4, dtype=F32)
        if M is tnp:
            basis = tj.constant(basis)  # the cotangent of a Tensor output is a Tensor
        jac, = jax.vmap(pullback)(basis)  # rows: one pullback per output
        return jac

    def jacfwd(M):
        _, jac = jax.jit(jax.vmap(lambda v: jax.jvp(f(M), (x,), (v,)), out_axes=(None, 1)))(np.eye(3, dtype=F32))
        return jac

    got_b, want_b = jacbwd(tnp, x), jax.jit(functools.partial(jacbwd, jnp))(x)  # (jax's: one program)
    got_f, want_f = both(jacfwd)
    same(got_b, want_b)
    same(got_f, want_f)
    same(got_f, tree_arrays(got_b))
    x_t = tj.constant(x)
    with tj.GradientTape() as tape:
        tape.watch(x_t)
        y = f(tnp)(x_t)
    same(got_b, tape.jacobian(y, x_t).value)
    same(jax.vmap(lambda v: accumulator_jvp(f(tnp), x, v), out_axes=1)(np.eye(3, dtype=F32)), tree_arrays(got_f))
    same(*jboth(lambda M: jax.vmap(jax.jacfwd(f(M))), np.stack([x, -x])))


def test_batch_of_compile_traces_once():
    # testBatchOfCompile: jit(vmap(jit(tj body))) traces the body once for two calls of one signature
    side = []

    @jax.jit
    def f(x):
        side.append(None)
        return tnp.add(x, x)

    g = jax.jit(jax.vmap(f))
    nclose(g(np.ones(2, F32)), 2 * np.ones(2))
    nclose(g(2 * np.ones(2, F32)), 4 * np.ones(2))
    assert len(side) == 1


# -- slicing, reversing, indexing -----------------------------------------------------------------------------------

def test_slices_and_reversal():
    # testSliceLax / testSliceNumpy (x[2:4], x[:, 2] per example), testRevLax (flip, in/out axis 1), testRevNumpy
    x = R(5, 10)
    nclose(vmap_both(lambda M: lambda v: M.asarray(v)[2:4], x, eager=True), x[:, 2:4])
    x4 = R(4, 5, 3, 2)
    nclose(vmap_both(lambda M: lambda v: M.asarray(v)[:, 2], x4), x4[:, :, 2])
    x = R(2, 3)
    nclose(vmap_both(lambda M: lambda v: M.flip(v, 0), x, eager=True), x[:, ::-1])
    nclose(vmap_both(lambda M: lambda v: M.flip(v, 0), x, in_axes=(1,), out_axes=1), x[::-1, :])
    x = R(3, 2, 4)
    nclose(vmap_both(lambda M: lambda v: M.asarray(v)[:, ::-1], x), x[:, :, ::-1])
    nclose(vmap_both(lambda M: lambda v: M.asarray(v)[:, ::-1], x, in_axes=(1,), out_axes=1), x[:, :, ::-1])
    nclose(vmap_both(lambda M: lambda v: M.asarray(v)[:, ::-1], x, in_axes=(2,), out_axes=2), x[:, ::-1, :])


def test_dynamic_slice():
    # testDynamicSlice: x[i] with i unbatched, batched with x, and batched alone
    x = jnp.arange(30).reshape((10, 3))
    idx = jnp.array([0, 1, 2, 1, 0] * 2)
    nclose(vmap_both(lambda M: lambda a, i: M.asarray(a)[i], x, 1, in_axes=(0, None), eager=True), np.asarray(x)[:, 1])
    nclose(vmap_both(lambda M: lambda a, i: M.asarray(a)[i], x, idx), np.asarray(x)[np.arange(10), idx])
    nclose(vmap_both(lambda M: lambda a, i: M.asarray(a)[i], jnp.arange(3), idx, in_axes=(None, 0)), np.asarray(idx))
    # the gradient of a dynamically indexed float: one-hot rows
    got, want = jboth(lambda M: jax.vmap(jax.grad(lambda a, i: out(M, M.sin(M.asarray(a)[i])))), R(4, 3), idx[:4])
    same(got, want)


def test_dynamic_update_slice():
    # testDynamicUpdateSlice: x.at[i].set(y) with i unbatched, and with x unbatched and i batched
    x, y = R(10, 3), R(10, seed=1)
    want = x.copy()
    want[:, 1] = y
    nclose(vmap_both(lambda M: lambda a, b, i: M.asarray(a).at[i].set(b), x, y, 1, in_axes=(0, 0, None)), want)
    x3 = R(3, seed=2)
    idx = np.array([0, 1, 2, 1, 0] * 2)
    want = np.broadcast_to(x3, (10, 3)).copy()
    want[np.arange(10), idx] = y
    nclose(vmap_both(lambda M: lambda a, b, i: M.asarray(a).at[i].set(b), x3, y, idx, in_axes=(None, 0, 0)), want)


def test_index_add_batched_indexes_only_and_issue3883():
    # testIndexAddBatchedIndexesOnly: zeros(10).at[i].add(1) over i = 0..9 is the identity;
    # testIssue3883: x[()] and x.at[()].set(7) of a batched scalar
    nclose(vmap_both(lambda M: lambda a, i, v: M.asarray(a).at[i].add(v), np.zeros(10, F32), np.arange(10), 1.0,
                     in_axes=(None, 0, None)), np.eye(10))
    xs = jnp.array([1, 2, 3, 4])
    nclose(vmap_both(lambda M: lambda a: M.asarray(a)[()], xs), np.asarray(xs))
    nclose(vmap_both(lambda M: lambda a: M.asarray(a).at[()].set(7), xs), np.full(4, 7))


def test_numpy_indexing_and_transposes():
    # testNumpyIndexing1 (a[:, ind] with ind batched), testNumpyIndexing2 (a constant index array inside),
    # testTranspose (x + x.T per example), testTransposePermutation (axes permuted, in_axes 0 and 2)
    a = np.arange(2 * 3 * 4).reshape((2, 3, 4))
    ind = np.array([[0, 1], [2, 0]])
    got = vmap_both(lambda M: lambda v, i: M.asarray(v)[:, i], a, ind, in_axes=(None, 0))
    nclose(got, np.stack([a[:, ind[i]] for i in range(2)]))
    got = vmap_both(lambda M: lambda v: M.asarray(v)[:, M.array([0, 2])], a)
    nclose(got, np.stack([a[:, i, :][:, [0, 2]] for i in range(3)], axis=1))
    x = np.arange(4 * 3 * 3).reshape((4, 3, 3))
    nclose(vmap_both(lambda M: lambda v: M.asarray(v) + M.asarray(v).T, x), x + np.swapaxes(x, -1, -2))
    x = np.arange(6 * 3 * 4 * 5).reshape((6, 3, 4, 5))
    nclose(vmap_both(lambda M: lambda v: M.transpose(v, (1, 0, 2)), x), np.transpose(x, (0, 2, 1, 3)))
    nclose(vmap_both(lambda M: lambda v: M.transpose(v, (1, 2, 0)), x), np.transpose(x, (0, 2, 3, 1)))
    x = x.reshape((3, 4, 6, 5))
    nclose(vmap_both(lambda M: lambda v: M.transpose(v, (1, 2, 0)), x, in_axes=2), np.transpose(x, (2, 1, 3, 0)))


# gather cases: (operand shape, operand axis, index array, index axis, take axis); None means unbatched
GATHERS = [
    ("operand", (10, 5, 3), 2, np.array([[0, 2], [1, 0]]), None, 1),
    ("indices", (5,), None, np.array([[0, 1], [2, 3], [4, 0]]), 1, 0),
    ("both", (2, 5), 0, np.array([[0, 2], [1, 3]]), 0, 0),
    ("both", (10, 5, 2), 2, np.array([[0, 2, 4], [1, 0, 3]]), 0, 1),
]


@pytest.mark.parametrize("kind, shape, op_axis, idxs, idx_axis, take_axis", GATHERS)
def test_gather_batched(kind, shape, op_axis, idxs, idx_axis, take_axis):
    # testGatherBatchedOperand / testGatherBatchedIndices / testGatherBatchedBoth and their Grad variants: take along
    # an axis with the operand, the indices or both mapped; the values against a Python loop of NumPy's take, the
    # gradient of sum(sin(take)) against jax.numpy's (and, both mapped, a tape's on one example)
    x = R(*shape)
    size = x.shape[op_axis] if op_axis is not None else idxs.shape[idx_axis]

    def pick(a, axis, i):
        return a if axis is None else np.take(a, i, axis=axis)

    got = vmap_both(lambda M: lambda a, i: M.take(a, i, axis=take_axis), x, idxs, in_axes=(op_axis, idx_axis))
    nclose(got, np.stack([np.take(pick(x, op_axis, k), pick(idxs, idx_axis, k), axis=take_axis)
                          for k in range(size)]))
    if kind == "operand":  # one int32 operand
        vmap_both(lambda M: lambda a, i: M.take(a, i, axis=take_axis), x.astype(np.int32), idxs,
                  in_axes=(op_axis, idx_axis))

    def loss(M):
        return jax.grad(lambda a, i: out(M, M.sum(M.sin(M.take(a, i, axis=take_axis)))))

    got, want = jboth(lambda M: jax.vmap(loss(M), in_axes=(op_axis, idx_axis)), x, idxs)
    same(got, want)
    if kind != "both":
        return
    k = size - 1
    _, (g,) = tape_gradients(lambda a: tnp.sum(tnp.sin(tnp.take(a, pick(idxs, idx_axis, k), axis=take_axis))),
                             [pick(x, op_axis, k)])
    same(g.value, np.asarray(got)[k])


# -- elementwise, comparisons, reductions ---------------------------------------------------------------------------

def test_maximum_greater_any_and_select():
    # testNpMaximum, testNpGtrThan (a bool result), testAny, testSelect (where with each in_axes of jax's test)
    x = R(6, 5, 3)
    nclose(vmap_both(lambda M: lambda v: M.maximum(v, 0.0), x), np.maximum(x, 0.0))
    got = vmap_both(lambda M: lambda v: M.asarray(v) > 1.0, x)
    np.testing.assert_array_equal(np.asarray(got.value), x > 1.0)
    got = vmap_both(lambda M: M.any, jnp.array([[True, False], [False, False]]))
    np.testing.assert_array_equal(np.asarray(got.value), [True, False])
    f32 = functools.partial(np.array, dtype=F32)

    def where(M):
        return M.where

    nclose(vmap_both(where, np.array([True, False]), np.array([0, 1]), np.array([2, 3])), [0, 3])
    nclose(vmap_both(where, np.array([False, True]), np.array([0, 1]), np.array([2, 3]), in_axes=(0, None, None)),
           [[2, 3], [0, 1]])
    nclose(vmap_both(where, True, f32([0, 1]), f32(3), in_axes=(None, 0, None)), [0, 1])
    nclose(vmap_both(where, np.array([False, True]), f32([0, 1]), f32(3), in_axes=(0, 0, None)), [3, 1])
    nclose(vmap_both(where, np.array([False, True]), f32([2]), f32([[3, 4]]), in_axes=(0, None, 1), out_axes=1),
           [[3, 2]])


def test_maximum_per_example_grad():
    # testNpMaximumPerExampleGrad: vmap of grad of sum(relu(x @ W) ** 2) with respect to W, per example
    x, W = R(10, 5), R(5, 5, seed=1)

    def fun(M):
        return jax.grad(lambda w, v: out(M, M.sum(M.maximum(M.dot(v, w), 0.0) ** 2)))

    got, want = jboth(lambda M: jax.vmap(functools.partial(fun(M), W)), x)
    same(got, want, atol=1e-5)
    for i in (0, 9):
        ex = x[i:i + 1]
        nclose(got[i], (2.0 * np.maximum(W.T @ ex.T, 0.0) @ ex).T)
    compiled_matches_eager(jax.vmap(functools.partial(fun(tnp), W)), x, atol=1e-5)


def test_cumprod_and_cumsum():
    # testCumProd (int32 result as NumPy's cumprod along the last axis), plus cumsum with in_axes 1
    x = np.arange(9, dtype=np.int32).reshape(3, 3) + 1
    nclose(vmap_both(lambda M: lambda v: M.cumprod(v, axis=-1), x), np.cumprod(x, axis=1))
    nclose(vmap_both(lambda M: lambda v: M.cumsum(v), x, in_axes=1), np.cumsum(x, axis=0).T)
    got, want = jboth(lambda M: jax.vmap(jax.grad(lambda v: out(M, M.sum(M.cumprod(v) ** 2)))), R(3, 4))
    same(got, want, rtol=1e-5, atol=1e-5)


def test_negative_axes():
    # testNegativeAxes: in_axes -3 / -2 / -1 of a sum; out_axes -3 / -2 / -1; -4 raises ValueError in both
    x = np.arange(3 * 4 * 5).reshape(3, 4, 5)
    for ax, red in [(-3, (1, 2)), (-2, (0, 2)), (-1, (0, 1))]:
        nclose(vmap_both(lambda M: M.sum, x, in_axes=ax), x.sum(axis=red))
    for ax, perm in [(-3, (0, 1, 2)), (-2, (1, 0, 2)), (-1, (1, 2, 0))]:
        nclose(vmap_both(lambda M: M.negative, x, in_axes=0, out_axes=ax), -x.transpose(perm))
    got = vmap_both(lambda M: lambda *xs: (M.negative(xs[0]), M.asarray(xs[1])), np.arange(5), 7,
                    in_axes=(0, None), out_axes=(0, -1))
    nclose(got[1], np.full((5,), 7))
    for kwargs, args in [({"in_axes": -4}, (x,)), ({"in_axes": 0, "out_axes": -4}, (x,)),
                         ({"in_axes": (0, None), "out_axes": (0, -2)}, (np.arange(5), 7))]:
        for M in (jnp, tnp):
            with pytest.raises(ValueError, match="-4|-2"):
                jax.vmap(lambda *xs: (M.negative(xs[0]),) + tuple(M.asarray(a) for a in xs[1:]), **kwargs)(*args)


def test_empty_tuples_and_kwargs():
    # testEmptyTuples: () among the mapped arguments and among the outputs; testVmapKwargs: arguments by keyword
    nclose(vmap_both(lambda M: lambda v, _: M.add(v, 1), np.array([0, 1]), ()), [1, 2])
    got = vmap_both(lambda M: lambda v: (M.add(v, 1), ()), np.array([0, 1]))
    assert got[1] == ()

    def f(M):
        return lambda a, b: (M.multiply(2, a), M.multiply(3, b))

    got, want = both(lambda M: jax.vmap(f(M))(a=jnp.array([1]), b=jnp.array([2])))
    same(got, want)
    same(got, tree_arrays(jax.vmap(f(tnp))(jnp.array([1]), jnp.array([2]))))


# -- dot, dot_general, pad, concatenate -----------------------------------------------------------------------------

def test_dot_general_as_matmul_and_einsum():
    # testDotGeneral: batch dimension 0, contraction x's 2 with y's 1, with the vmapped axis in different places
    def bmm(M):
        return M.matmul

    x, y = R(4, 3, 4, 5), R(4, 3, 5, 6, seed=1)
    nclose(vmap_both(bmm, x, y), np.einsum("nbij,nbjk->nbik", x, y), rtol=1e-4)
    x, y = R(3, 4, 4, 5), R(3, 4, 5, 6, seed=1)
    nclose(vmap_both(bmm, x, y, in_axes=(2, 1)),
           np.stack([x[:, :, i] @ y[:, i] for i in range(4)]), rtol=1e-4)
    x, y = R(3, 4, 5, 4), R(3, 5, 6, seed=1)
    nclose(vmap_both(bmm, x, y, in_axes=(3, None)), np.stack([x[..., i] @ y for i in range(4)]), rtol=1e-4)
    x, y = R(3, 4, 5), R(3, 5, 4, 6, seed=1)
    got = vmap_both(lambda M: lambda a, b: M.einsum("bij,bjk->bik", a, b), x, y, in_axes=(None, 2))
    nclose(got, np.stack([x @ y[:, :, i] for i in range(4)]), rtol=1e-4)
    x, y = R(4), R(4, 6, seed=1)
    nclose(vmap_both(lambda M: M.dot, x, y, in_axes=(None, 1)), x @ y, rtol=1e-4)


def test_dot_gufunc_shapes_and_variants():
    # testDot (nested vmap of dot as a gufunc: shapes), testDot2 / testDot3 / testDot4 (values against einsum)
    def vecvec(M, a, b):
        dot = M.dot
        for ndim in range(1, max(a.ndim, b.ndim)):
            dot = jax.vmap(dot, in_axes=(0 if a.ndim > ndim else None, 0 if b.ndim > ndim else None))
        return dot(a, b)

    for sa, want in [((3,), ()), ((2, 3), (2,)), ((4, 2, 3), (4, 2))]:
        got, ref = both(lambda M: vecvec(M, jnp.zeros(sa), jnp.zeros((3,))))
        same(got, ref)
        assert got.shape == want
    xs, ys = R(10, 3), R(10, 3, seed=1)
    nclose(vmap_both(lambda M: M.dot, xs, ys), np.einsum("ni,ni->n", xs, ys))
    xs, ys = R(5, 8, 10), R(10, 1, seed=1)
    nclose(vmap_both(lambda M: M.dot, xs, ys, in_axes=(1, None)), np.einsum("inj,jk->nik", xs, ys), rtol=1e-4)
    xs, ys = R(3, 2), R(3, seed=1)
    nclose(vmap_both(lambda M: M.dot, xs, ys, in_axes=(1, None)), np.einsum("ij,i->j", xs, ys))


def test_pad_and_concatenate():
    # testPad (edge padding per example; interior padding through lax.pad), testConcatenate (mixed in_axes)
    x = R(5, 10)
    nclose(vmap_both(lambda M: lambda v: M.pad(v, (1, 2)), x), np.pad(x, ((0, 0), (1, 2))))
    x = R(5, 10, 3)
    nclose(vmap_both(lambda M: lambda v: M.pad(v, ((1, 2), (0, 1)), constant_values=-1.0), x),
           np.pad(x, ((0, 0), (1, 2), (0, 1)), constant_values=-1.0))
    # interior padding: lax.pad of a tj result (jax.lax functions take Tensors)
    got = vmap_both(lambda M: lambda v: lax.pad(M.sin(v), F32(0), [(1, 2, 1)]), R(5, 4))
    want = np.zeros((5, 10), F32)
    want[:, 1:8:2] = np.sin(R(5, 4))
    nclose(got, want)
    x, y, z = R(10, 2, 3), R(1, 10, 3), R(4, 3)
    got = vmap_both(lambda M: lambda *a: M.concatenate(a, axis=0), x, y, z, in_axes=(0, 1, None))
    nclose(got, np.concatenate([x, np.swapaxes(y, 0, 1), np.broadcast_to(z, (10, 4, 3))], 1))
    x, y, z = R(10, 2, 1), R(2, 3), R(2, 4, 10)
    got = vmap_both(lambda M: lambda *a: M.concatenate(a, axis=1), x, y, z, in_axes=(0, None, 2))
    nclose(got, np.concatenate([x, np.broadcast_to(y, (10, 2, 3)), np.moveaxis(z, 2, 0)], 2))


# -- sort -----------------------------------------------------------------------------------------------------------

def test_sort():
    # testSort: sort along axis 0 / -1 of each row, of each column (in_axes 1), and back at out_axes 1
    v = np.arange(12)[::-1].reshape(3, 4)
    nclose(vmap_both(lambda M: functools.partial(M.sort, axis=0), v), v[:, ::-1])
    nclose(vmap_both(lambda M: functools.partial(M.sort, axis=-1), v), v[:, ::-1])
    nclose(vmap_both(lambda M: functools.partial(M.sort, axis=0), v, in_axes=(1,)), v[::-1, :].T)
    nclose(vmap_both(lambda M: functools.partial(M.sort, axis=0), v, in_axes=(1,), out_axes=1), v[::-1, :])


def test_sort_key_val():
    # testSortKeyVal: values permuted by the order of the keys (argsort + take_along_axis), four of its six in/out axes
    k = np.arange(12)[::-1].reshape(3, 4)
    v = np.random.RandomState(0).permutation(12).reshape(3, 4)

    def skv(M):
        def f(keys, vals):
            order = M.argsort(keys, axis=0)
            return M.take_along_axis(keys, order, axis=0), M.take_along_axis(M.asarray(vals), order, axis=0)
        return f

    for args, kwargs, (wk, wv) in [
            ((k, v), {}, (k[:, ::-1], v[:, ::-1])),
            ((k, v), {"in_axes": (1, 1), "out_axes": 1}, (k[::-1, :], v[::-1, :])),
            ((k[0], v), {"in_axes": (None, 0)}, (np.broadcast_to(k[0, ::-1], (3, 4)), v[:, ::-1])),
            ((k.T, v[0]), {"in_axes": (1, None)}, (k[:, ::-1], np.broadcast_to(v[0, ::-1], (3, 4))))]:
        sk, sv = vmap_both(skv, *args, **kwargs)
        nclose(sk, wk)
        nclose(sv, wv)


# -- convolution and pooling ----------------------------------------------------------------------------------------

def _conv(M, params, x, dims=("NHWC", "HWIO", "NHWC")):
    conv = tj.nn.conv_general_dilated if M is tnp else lax.conv_general_dilated
    return conv(x, params, (1, 1), "SAME", (1, 1), (1, 1), dims)


def _pool(M, op, y):
    if M is tnp:
        if op == "max":
            return tj.nn.max_pool(y, (2, 2), (1, 1), "SAME")
        if op == "min":
            return -tj.nn.max_pool(-y, (2, 2), (1, 1), "SAME")
        return 4.0 * tj.nn.avg_pool(y, (2, 2), (1, 1), "VALID")
    unit, fn, pad = {"max": (-jnp.inf, lax.max, "SAME"), "min": (jnp.inf, lax.min, "SAME"),
                     "sum": (0.0, lax.add, "VALID")}[op]
    return lax.reduce_window(y, unit, fn, (1, 2, 2, 1), (1, 1, 1, 1), pad)


@pytest.mark.parametrize("pool", [None, "max", "min", "sum"])
def test_conv_and_pool_per_example(pool):
    # testConvGeneralDilated / testMinMaxPool / testSumPool: vmap over examples of shape (1, 5, 5, 1) equals the
    # batched call; vmap of grad of mean(f ** 2) with respect to the filter equals per-example grads (jax.numpy's,
    # and for max pooling a tape's on one example)
    W = R(3, 3, 1, 2)
    X = R(4, 5, 5, 1, seed=1)

    def f(M):
        return lambda w, x: _conv(M, w, x) if pool is None else _pool(M, pool, _conv(M, w, x))

    per_example, want = jboth(lambda M: jax.vmap(functools.partial(f(M), W)), X.reshape(4, 1, 5, 5, 1))
    same(per_example, want, atol=1e-5)
    same(tnp.reshape(per_example, (4,) + per_example.shape[2:]).value, jax.jit(f(jnp))(W, X), atol=1e-5)

    def grad_loss(M):
        return jax.grad(lambda w, x: out(M, M.mean(f(M)(w, x) ** 2)))

    got, want = jboth(lambda M: jax.vmap(functools.partial(grad_loss(M), W)), X.reshape(4, 1, 5, 5, 1))
    same(got, want, rtol=1e-4, atol=1e-5)
    if pool != "max":
        return
    _, (g,) = tape_gradients(lambda w: tnp.mean(f(tnp)(w, X[2:3]) ** 2), [W])
    same(g.value, np.asarray(got)[2], rtol=1e-4, atol=1e-5)


def test_conv_batch_not_major():
    # testConvGeneralDilatedBatchNotMajor: ('HNWC', 'HWIO', 'HWNC') with vmap over the leading axis
    W, x = R(3, 3, 1, 2), R(3, 5, 7, 5, 1, seed=1)
    dims = ("HNWC", "HWIO", "HWNC")
    got = vmap_both(lambda M: functools.partial(_conv, M, W, dims=dims), x)
    direct = jax.jit(lambda v, w: lax.conv_general_dilated(  # (one program)
        jnp.reshape(jnp.transpose(v, (1, 0, 2, 3, 4)), (5, 21, 5, 1)), w, (1, 1), "SAME", (1, 1), (1, 1), dims))(x, W)
    nclose(tnp.reshape(tnp.transpose(got, (1, 2, 0, 3, 4)), (5, 5, 21, 2)), np.asarray(direct), atol=1e-5)


def test_conv_batched_filters():
    # Added: per-example filters (jax batches the filter through feature groups), with feature_group_count 2, and the
    # filter gradient under vmap
    X, W = R(3, 2, 4, 5, 5), R(3, 4, 2, 3, 3, seed=1)

    def conv(M):
        fn = tj.nn.conv_general_dilated if M is tnp else lax.conv_general_dilated
        return lambda x, w: fn(x, w, (1, 1), "SAME", feature_group_count=2)

    vmap_both(conv, X, W)
    got, want = jboth(lambda M: jax.vmap(jax.grad(lambda w, x: out(M, M.sum(conv(M)(x, w) ** 2)))), W, X)
    same(got, want, rtol=1e-4, atol=1e-4)


# -- linear algebra -------------------------------------------------------------------------------------------------

def test_cholesky_and_solve():
    # testLaxLinalgCholesky (in_axes 1 with out_axes 0); testLaxLinalgTriangularSolve as linalg.solve of an
    # upper-triangular system with in_axes (1, 2) and (None, 2)
    a = R(4, 3, 3)
    a = a @ np.swapaxes(a, -1, -2) + 0.1 * np.eye(3, dtype=F32)
    nclose(vmap_both(lambda M: M.linalg.cholesky, np.swapaxes(a, 0, 1), in_axes=1, out_axes=0),
           np.linalg.cholesky(a), rtol=1e-4)
    t = np.triu(R(3, 4, 3, seed=1).transpose(1, 0, 2)).transpose(1, 0, 2) + 2 * np.eye(3, dtype=F32)[:, None, :]
    b = R(3, 2, 4, seed=2)

    def solve(M):
        return M.linalg.solve

    for (ta, tb), ax in [((t, b), (1, 2)), ((t[:, 0], b), (None, 2))]:
        got = vmap_both(solve, ta, tb, in_axes=ax)
        want = np.stack([np.linalg.solve(ta if ax[0] is None else ta[:, i], tb if ax[1] is None else tb[..., i])
                         for i in range(4)])
        nclose(got, want, rtol=1e-4, atol=1e-4)


def test_issue354_grad_of_vmapped_cholesky():
    # testIssue354: grad of the sum of a vmapped function of a scaled PSD matrix's Cholesky factor (jax's reference,
    # the per-example grads, checked here as a tape's on one example)
    rs = np.random.RandomState(0)
    psd = rs.randn(6, 4).astype(F32)
    psd = psd.T @ psd
    vec = rs.randn(4).astype(F32)

    def f(M):
        return lambda s: -0.5 * M.sum(M.einsum("ij,j->i", M.linalg.cholesky(s * psd), vec) ** 2)

    scales = np.array([[0.1], [0.2], [0.3]], F32)
    got, want = jboth(lambda M: jax.grad(lambda s: out(M, M.sum(jax.vmap(f(M))(s)))), scales)
    same(got, want, rtol=1e-4, atol=1e-5)
    _, (g,) = tape_gradients(lambda s: tnp.sum(f(tnp)(s)), [scales[1]])
    same(g.value, np.asarray(got)[1], rtol=1e-4, atol=1e-5)


# -- higher order ---------------------------------------------------------------------------------------------------

def test_jacobian_issue54():
    # testJacobianIssue54: an array built from the iterated rows of the input, under jacrev and jacfwd
    xs = jnp.ones((5, 1))
    for transform in (jax.jacrev, jax.jacfwd):
        got, want = jboth(lambda M: transform(lambda v: M.array([r for r in v])), xs)
        same(got, want)
        nclose(got, np.eye(5).reshape(5, 1, 5, 1))


def test_hessian_at_the_relu_kink():
    # testHessian, under vmap: the hessian of sum(maximum(x, 0) ** 2) at jax's points and at points away from the kink.
    # At x = 0 jax.numpy's is 0.5 (the tie split in two); tj's is 2 (API.md: the whole gradient to maximum's first
    # argument; TF 2.21's nested tapes over tf.maximum give the same matrix)
    x = np.array([-1., -0.5, 0., 0.5, 1.0], F32)

    def fun(M):
        return lambda v: M.sum(M.power(M.maximum(v, 0.0), 2)) + 0.0

    got, want = jboth(lambda M: jax.vmap(jax.hessian(fun(M))), np.stack([x, x + 0.25]))
    nclose(want[0], np.diag([0., 0., 0.5, 2., 2.]))
    nclose(got[0], np.diag([0., 0., 2., 2., 2.]))
    same(got[1], want[1])
    nclose(got[1], np.diag([0., 0., 2., 2., 2.]))


def test_issue387_hessian_of_jit():
    # testIssue387: hessian of a jitted function that computes (and drops) a where/abs/sign expression
    pts = np.random.RandomState(0).rand(6, 2).astype(F32)

    def f(M):
        @jax.jit
        def g(r):
            dR = M.asarray(r)[:, None, :] - M.asarray(r)[None, :, :]
            dR = dR - M.where(M.abs(dR) < 0.5, M.zeros_like(dR), 0.5 * M.sign(dR))
            _ = M.sum(dR ** 2, axis=2)
            return M.sum(M.asarray(r) ** 2)
        return g

    got, want = jboth(lambda M: jax.hessian(f(M)), pts)
    same(got, want)
    nclose(got, 2 * np.eye(12).reshape(6, 2, 6, 2))


# -- random numbers and loops ---------------------------------------------------------------------------------------

def test_random_under_vmap():
    # testRandom: vmap of PRNGKey over seeds, then vmap of normal over the keys: the per-key draws, all distinct
    seeds = np.arange(6)
    keys = jax.vmap(tj.random.PRNGKey)(seeds)
    same(keys, jax.vmap(jax.random.PRNGKey)(seeds))
    got = jax.vmap(functools.partial(tj.random.normal, shape=(3, 2)))(keys)
    same(got, jax.vmap(functools.partial(jax.random.normal, shape=(3, 2)))(keys))
    same(got, np.stack([np.asarray(tj.random.normal(tj.random.PRNGKey(s), (3, 2)).value) for s in seeds]))
    assert len(np.unique(np.asarray(got.value))) == 6 * 3 * 2


def test_issue489_while_loop_with_random_body_and_fori_loop():
    # testIssue489: vmap of a while_loop whose body draws uniform numbers with a batched key (until one is <= 0.5)
    def f(M, rnd):
        def body(uk):
            key = uk[1]
            u = rnd.uniform(key, ())
            key, _ = rnd.split(key)
            return out(M, M.asarray(u)), key
        return lambda key: lax.while_loop(lambda uk: uk[0] > 0.5, body, (F32(1.0), key))[0]

    keys = jax.random.split(jax.random.PRNGKey(0), 3)
    got, want = jax.vmap(f(tnp, tj.random))(keys), jax.vmap(f(jnp, jax.random))(keys)
    same(got, want)
    assert np.all(np.asarray(got) <= 0.5)

    # a fori_loop with a tj body: a batched carry and an unbatched constant; values and vmap of grad
    def g(M):
        return lambda x, c: lax.fori_loop(0, 3, lambda i, s: out(M, M.sin(s) * c + i), x)

    got, want = jboth(lambda M: jax.vmap(g(M), in_axes=(0, None)), R(4, 2), F32(0.5))
    same(got, want)
    got, want = jboth(lambda M: jax.vmap(jax.grad(lambda x: out(M, M.sum(g(M)(x, F32(0.5)))))), R(4, 2))
    same(got, want)


# -- differences found (fixed) --------------------------------------------------------------------------------------

def test_roll_with_a_batched_shift():
    # Added (vmap with a per-example argument that jax.numpy takes traced): roll each row by its own shift
    x, shifts = np.arange(12, dtype=F32).reshape(3, 4), np.array([1, 2, -1])
    got = vmap_both(lambda M: M.roll, x, shifts)
    nclose(got, np.stack([np.roll(r, k) for r, k in zip(x, shifts)]))


def test_logsumexp_with_signed_weights_under_vmap():
    # Added: logsumexp with per-example weights b (some negative) and return_sign, under vmap
    a, b = R(3, 4), R(3, 4, seed=1)
    got = jax.vmap(lambda u, w: tj.nn.logsumexp(u, b=w, return_sign=True))(a, b)
    want = jax.jit(jax.vmap(lambda u, w: jax.nn.logsumexp(u, b=w, return_sign=True)))(a, b)  # (one program)
    same(got, want)
    s = (b * np.exp(a)).sum(axis=1)
    nclose(got[0], np.log(np.abs(s)))
    nclose(got[1], np.sign(s))
