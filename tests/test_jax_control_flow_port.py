"""JAX's control-flow tests (tests/lax_control_flow_test.py in jax-ml/jax) ported to loop bodies written with tj ops.

Source: jax-ml/jax tests/lax_control_flow_test.py (LaxControlFlowTest). Each case writes its loop body (and condition,
branches, combine function) twice, with tj.numpy / tj.nn and with jax.numpy, runs both under the same jax.lax
construct (cond, switch, while_loop, fori_loop, scan, map, associative_scan) and transform (jax.jit, grad, jvp, vmap,
linearize, jacrev, hessian, checkpoint), and checks the same values, tree structure (Tensors read as their arrays),
shapes, dtypes, weak types and error classes. A tj body either works on the raw tracers jax passes and returns
``.value`` (where jax wants the carry an array), or gets Tensors (when the loop is given Tensors: a Tensor is a pytree
node and comes back as a Tensor) and returns Tensors; both forms are used. Derivatives are also checked against (a)
the same loop in a tj.function under an outer tj.GradientTape / tj.ForwardAccumulator and (b) the loop unrolled in
Python, eagerly, under a tape or accumulator (API.md, "One set of rules on every path"). No expected value comes from
tapejax: they are jax.numpy's under the same transform, NumPy formulas, or the values jax's test states.

Ported (jax's names): testWhileWithTuple, testNestedWhile, testWhileWithClosure, testWhileWithClosureJit, testIssue649,
testWhileLoopBatched, testWhileLoopAxisIndexBatched, testWhileLoopBatchedWithConstBody, testWhileLoopCondConstsBatched,
testWhileLoopBodyConstsBatched, testWhileLoopTupleBatched, test_issue_3204, test_vmaps_of_while_loop,
test_while_loop_fixed_point_with_batched_pred_and_consts, test_while_readonly_carry_optimization, testWhileJVP,
testWhileLinearize (plain, jit, checkpoint), testWhileJVPViaForiLoop, testWhileJVPWithGrowingNonzeroTangents,
testWhileGradError, testStaticForiGrad, testWhileTypeErrors, testWhileCondConstant, test_while_loop_init_weak_type,
test_grad_remat_while_fixpoint, test_while_constification_correctness_manually, testLoopWithConjunctionCondition,
testForiLoopBasic, testForiLoopClosure, testForiLoopTupleState, testForiLoopDictState, testForiLoopEmptyTupleInState,
testForiLoopScalarLimits, test_fori_loop_supports_unrolling, test_fori_loop_supports_unrolling_with_bool,
test_fori_loop_with_dynamic_indices_cannot_unroll, test_fori_loop_returns_init_with_nonpositive_length,
testForiLoopIssue8152, testForiLoopErrors, testForiLoopBatched, testCond, testCondTwoOperands, testCondThreeOperands,
testNestedCond, testCondOneBranchConstant, testCondOneBranchConstantTuple, testIssue514, test_cond_casting, testSwitch,
testSwitchMultiOperands, testOneBranchSwitch, testCondBatched, testSwitchBatched, testCondJVP, testCondJVP2,
testSwitchJVP, testCondGrad, testCondGrad2, testCondGrad3, testCondGrad4, testSwitchGrad, testCondLinearize,
testCondLinearize2, testSwitchLinearize, testCondJit, testSwitchJit, testCondJitDisabled, testCondWithConsts,
testCondJitWithConsts, testCondVmapGrad, testCondGradVmapNan, testSwitchGradWithForwarding (4 of its 64 cases),
testSwitchGradWithWeakTypeMismatch, test_cond_ad_batched_unit, test_cond_transformation_rule_with_consts,
test_custom_jvp_tangent_cond_transpose, test_cond_basic_vjp3, test_cond_vmap_forwarding_doesnt_promote,
testCondTypeErrors, testSwitchErrors, testIssue1379 (wrong predicate types), testScanImpl, testScanJVP,
testScanLinearize, testScanGrad (over jax's scan variants: unroll 0/2/True, checkpoint with nothing_saveable /
everything_saveable), testScanVmap (four in_axes), testScanVmapTuples, testScanVmapFixpoint, testScanRnn, testIssue711,
testIssue757, testIssue1361, testScanHigherOrderDifferentiation, test_scan_reverse, test_scan_unroll (values),
test_scan_xs_none, testScanLengthArg, test_scan_init_weak_type, test_scan_hoisting_consts,
test_xla_cpu_gpu_loop_cond_bug, test_scan_vjp_forwards_extensive_residuals (values), test_scan_fixpoint_instantiate,
test_scan_constification_correctness / test_scan_forwarding_correctness (two seeds
each), testScanBodyOutputError, testScanBodyCarryPytreeMismatchErrors, testScanBodyCarryTypeMismatchErrors,
testScanMetadataError, testScanLengthError, testIssue744, testScanInvalidUnrollRaises, test_scan_length_concrete_error,
test_scan_unroll_concrete_error, testMap, testMapEmpty, testAssociativeScanUnstructured (four shapes),
testAssociativeScanUnstructured1000Reverse (at 50), testAssociativeScanStructured3, testAssociativeScanOfBools,
testAssociativeScanSolvingRegressionTest (one shape). Added, as the brief asks: pytree carries of Tensors (tuples,
dicts), cond / switch / fori_loop with Tensor and Variable predicates, indices, bounds and operands, switch index
clamping with Tensor indices (eager, jit, vmap), one complex64 scan, TF's conventions at kinks and ties inside loop
bodies, and derivatives against tapes (a) and (b).

Left out: jaxpr / HLO / lowering inspection (testForiLoopBatchedIssue1190, testSwitchResidualsMerge, testIssue810,
test_scan_unroll's HLO sizes, test_scan_typecheck_param, test_cond_typecheck_param, test_scan_lowering_doesnt_*,
test_scan_input_to_output_forwarding, test_scan_diff_of_print), caching and compile counters (testCaching,
testCaching2, test_caches_depend_on_axis_env, test_cond_excessive_compilation, test_cond_memory_leak), pmap and
collectives (testIssue804, test_while_loop_of_pmap*, test_scan_vmap_collectives), platform_dependent (test_platform_*,
test_issue_29329), test_scan_readonly_carry_optimization (a pass-through carry with no op), PRNG-key carries
(testIssue1263, testIssue1316: no tj op), mutation under disable_jit (test_disable_jit_while_loop_with_mutation:
NumPy's in-place +=), bodies with no tj op to port (testCallableErrors,
testWhileWithManyArgs, testWhileLoopCustomPytreeDiffAuxData, testCondPredIsNone, testCondCallableOperands,
test_disable_jit_cond_with_vmap, test_disable_jit_while_loop_with_vmap), testNestedWhileWithDynamicUpdateSlice (a
lax.dynamic_update_slice body: no tj counterpart), residual bookkeeping of test_scan_vjp_forwards_extensive_residuals
and the parameter sweeps test_scan_vjp_forwarding_correctness / test_while_constification_correctness (their point is
jax's internal forwarding; two seeds of the scan ones are kept), float64 tolerances and dtype sweeps (float32, int32
and one complex64 case here).

Sanctioned differences (API.md / README), checked as such:
- A Tensor is a pytree node, so where jax wants an array leaf a tj result must be given as ``.value`` (README "JAX
  transforms over tj code"): a while_loop condition returning a bool Tensor, or a body returning a Tensor for a carry
  given as an array (or a branch returning a Python constant next to one returning a Tensor), raise jax's TypeError
  naming the Tensor node; with ``.value`` (or Tensor carries throughout) they work.
- TF's conventions inside bodies: maximum at a tie gives the whole gradient to the first argument, abs at 0 has
  derivative 0, clip passes the gradient at its bounds, sqrt under where gives 0 (no NaN): jax.grad / jvp of the tj
  loop give the tape's values there, not jax.numpy's.
- Complex: jax.grad over tj code keeps JAX's convention (the tape's gradient is its conjugate, README).

Differences found and fixed in tapejax: jax.lax.fori_loop with a traced Tensor bound (inside jax.jit or tj.function)
raised ValueError "Triggering __jax_array__() during abstractification is no longer supported" (jax's fori_loop applies
lax.lt to the bound: jax.lax functions take Tensors now, as jax.numpy's); jax.lax.scan with a traced Tensor ``length``
raised AttributeError ('Tensor' object has no attribute '_error_repr') from inside jax, where a traced jax array
raises jax's ConcretizationTypeError (it does now); jax.jvp of a loop of tj ops started from a weakly typed value (a
Python float) gave a strongly typed tangent, where jax.numpy's keeps the weak type (any tj op: jax.jvp(lambda x:
tnp.sin(x).value, (1.,), (1.,))): test_while_jvp_tangent_keeps_the_weak_type.
"""
from __future__ import annotations

import collections
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import tapejax as tj
from conftest import same_tree_as_jax, tree_arrays as arrays

tnp = tj.numpy
F32 = np.float32
Pair = collections.namedtuple("Pair", ["first", "second"])


# -- helpers ----------------------------------------------------------------------------------------------------------

def same(got, want, rtol=2e-5, atol=2e-6):
    return same_tree_as_jax(got, want, rtol, atol, weak_flags=True)


def both(run, jit=True):
    """``run(M)`` with M = tnp and M = jnp: (tj's result, jax.numpy's). jax.numpy's side runs inside one jax.jit (one
    XLA program for the reference, not one per primitive) unless ``jit=False``."""
    return run(tnp), (jax.jit(lambda: run(jnp))() if jit else run(jnp))


def out(M, y):
    """A tj result as the array jax wants (a carry given as an array, a condition); a jnp result as it is."""
    return y.value if M is tnp else y


def lift(M, x):
    """An input for the version written with M: a Tensor for tnp (the loop then hands the body Tensors), an array for
    jnp; the same strongly typed 32-bit dtype for both."""
    a = np.asarray(x)
    a = a.astype({np.dtype(np.float64): F32, np.dtype(np.int64): np.int32}.get(a.dtype, a.dtype))  # strong 32-bit
    return tj.constant(a) if M is tnp else jnp.asarray(a)


def raises_like(run, exc, match=None):
    """``run(jnp)`` raises ``exc`` (jax's side) and ``run(tnp)`` raises the same class as jax's exception."""
    with pytest.raises(exc, match=match) as want:
        run(jnp)
    with pytest.raises(type(want.value), match=match):
        run(tnp)


def tape_grads(f, *xs):
    """``f(*xs)`` and its gradient with respect to each of xs on one GradientTape (xs made Tensors)."""
    ts = [tj.constant(x) for x in xs]
    with tj.GradientTape() as tape:
        tape.watch(ts)
        y = f(*ts)
    return y, tape.gradient(y, ts)


def acc_jvp(f, xs, ts):
    """``f(*xs)`` and its tangent along ts on one ForwardAccumulator."""
    xs = [tj.constant(x) for x in xs]
    with tj.ForwardAccumulator(xs, [tj.constant(t) for t in ts]) as acc:
        y = f(*xs)
    return y, acc.jvp(y)


def close(got, want, rtol=2e-5, atol=2e-6):
    np.testing.assert_allclose(np.asarray(arrays(got)), np.asarray(arrays(want)), rtol=rtol, atol=atol)


def cond_via_switch(pred, true_fun, false_fun, *ops):
    return lax.switch(lax.convert_element_type(pred, np.int32), [false_fun, true_fun], *ops)


def cond_with_checkpoint(pred, true_fun, false_fun, *ops):
    def fn(i, *a):
        return lax.switch(i, [false_fun, true_fun], *a)
    return jax.checkpoint(fn)(lax.convert_element_type(pred, np.int32), *ops)


COND_IMPLS = {"cond": lax.cond, "switch": cond_via_switch, "checkpoint": cond_with_checkpoint}


def _ckpt_scan(policy):
    def scan(f, *args, **kwargs):
        return jax.checkpoint(functools.partial(lax.scan, f, **kwargs), policy=policy)(*args)
    return scan


SCAN_IMPLS = {
    "unroll1": lax.scan,
    "unroll0": functools.partial(lax.scan, unroll=0),
    "unroll2": functools.partial(lax.scan, unroll=2),
    "unroll_all": functools.partial(lax.scan, unroll=True),
    "ckpt_nothing": _ckpt_scan(jax.checkpoint_policies.nothing_saveable),
    "ckpt_everything": _ckpt_scan(jax.checkpoint_policies.everything_saveable),
}


# -- while_loop -------------------------------------------------------------------------------------------------------

def test_while_integer_carries_tuple_nested_closure():
    # testWhileWithTuple / testWhileWithClosure(Jit) / testNestedWhile / testIssue649 / testWhileCondConstant: the
    # condition is a tj comparison read as an array, the carries raw int tracers
    def run(M):
        def count(init, limit, inc):
            def body(s):
                return (out(M, M.add(s[0], 1)), out(M, M.add(s[1], inc)))
            return lax.while_loop(lambda s: out(M, M.less(s[0], limit)), body, (init, 0))[1]

        def count_jit_body(init, limit, inc):
            def body(s):
                return jax.jit(lambda p, c: (out(M, M.add(p, 1)), out(M, M.add(c, inc))))(*s)
            return lax.while_loop(lambda s: out(M, M.less(s[0], limit)), body, (init, 0))[1]

        def inner(i, total):
            def body(s):
                return (s[0], out(M, M.add(s[1], 1)), out(M, M.add(s[2], 1)))
            return lax.while_loop(lambda s: out(M, M.less_equal(s[1], s[0])), body, (i, 0, total))[2]

        def outer(num):
            def body(s):
                return (s[0], out(M, M.add(s[1], 1)), inner(s[1], s[2]))
            _, i, total = lax.while_loop(lambda s: out(M, M.less(s[1], s[0])), body, (num, 0, 0))
            return i, total

        def issue649():
            return lax.while_loop(lambda s: out(M, M.less(s[1], 10)), lambda s: (7, out(M, M.add(s[1], 1))), (33, 4))

        return (count(2, 10, 1), jax.jit(count)(3, 10, 1), count_jit_body(2, 10, 2), jax.jit(count_jit_body)(3, 10, 1),
                outer(3), jax.jit(outer)(2), jax.jit(outer)(4), issue649(),
                lax.while_loop(lambda _: False, lambda _: (), ()))
    got, want = both(run)
    same(got, want)
    assert [int(a) for a in got[:4]] == [8, 7, 16, 7]
    assert [tuple(map(int, a)) for a in got[4:8]] == [(3, 6), (2, 3), (4, 10), (7, 10)]


def test_while_tensor_carries_and_a_tj_condition():
    # Tensor carries: the body gets Tensors and returns Tensors; the condition gives jax its array
    def loop(pos, limit):
        return lax.while_loop(lambda s: (s[0] < limit).value, lambda s: (s[0] + 1, s[1] + 2), (pos, tj.constant(0)))
    res = loop(tj.constant(2), 10)
    assert all(isinstance(r, tj.Tensor) for r in res)
    assert (res[0].dtype, int(res[0]), int(res[1])) == (np.int32, 10, 16)
    res = jax.jit(loop)(tj.constant(3), tj.constant(10))
    assert isinstance(res[1], tj.Tensor) and int(res[1]) == 14
    # jax.disable_jit runs the loop in Python: a bool Tensor is then a valid condition
    with jax.disable_jit():
        assert float(lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, tj.constant(1.5))) == 12.0


def test_while_condition_returning_a_tensor_is_a_pytree_error():
    # sanctioned (README: return .value where JAX wants an array): a bool Tensor is a pytree node, not jax's leaf
    for init in (tj.constant(1.5), jnp.float32(1.5)):
        with pytest.raises(TypeError, match="cond_fun must return a boolean scalar.*Tensor"):
            lax.while_loop(lambda c: tnp.less(c, 10.0), lambda c: out(tnp, tnp.multiply(c, 2.0)), init)
    # and a body returning a Tensor for a carry given as an array: jax's carry-structure TypeError
    with pytest.raises(TypeError, match="carry input and carry output must have the same pytree structure"):
        lax.while_loop(lambda c: c < 10.0, lambda c: tnp.multiply(c, 2.0), jnp.float32(1.5))


def test_while_loop_batched():
    # testWhileLoopBatched / AxisIndexBatched / BatchedWithConstBody / CondConstsBatched / BodyConstsBatched /
    # TupleBatched / test_issue_3204 / test_while_loop_fixed_point_with_batched_pred_and_consts /
    # test_while_readonly_carry_optimization / test_vmaps_of_while_loop
    def run(M):
        def fun(x):
            return lax.while_loop(lambda x: out(M, M.less(x, 3)), lambda x: out(M, M.add(x, 2)), x)
        x4 = np.array([0, 1, 2, 3], np.int32)

        def axis(x):
            return lax.while_loop(lambda x: out(M, M.less(x, lax.axis_index("i"))),
                                  lambda x: out(M, M.add(x, 2)), x)

        def const_body(x):
            return lax.while_loop(lambda _: out(M, M.logical_not(False)) == False,  # noqa: E712
                                  lambda _: out(M, M.asarray(0.0, F32)), x)

        def cond_consts(x, y):
            return lax.while_loop(lambda x: out(M, M.less(x, y)), lambda x: out(M, M.add(x, 2)), x)

        def body_consts(x, y):
            return lax.while_loop(lambda x: out(M, M.less(x, 3)), lambda x: out(M, M.add(x, y)), x)

        def tup(x, y):
            return lax.while_loop(lambda c: out(M, M.less(M.add(c[0], c[1]), 5)),
                                  lambda c: (out(M, M.add(c[0], 1)), c[1]), (x, y))

        def nested(a, b):
            def outer_body(s):
                val, i, j = s
                val = lax.while_loop(lambda t: out(M, M.less(t[2], b + 1)),
                                     lambda t: (out(M, M.add(t[0], M.add(t[1], t[2]))), t[1], out(M, M.add(t[2], 1))),
                                     (val, i, 0))[0]
                return val, out(M, M.add(i, 1)), j
            return lax.while_loop(lambda s: out(M, M.less(s[1], a + 1)), outer_body, (0, 0, 0))[0]

        def fixed_point(i, x):
            return lax.while_loop(lambda c: out(M, M.less(c[0], 5)),
                                  lambda c: (c[0] + 1, out(M, M.add(c[1], x))), (i, jnp.ones(3, F32)))[1]

        def readonly(w, x, c_max):
            _, x, w = lax.while_loop(lambda v: out(M, M.less(v[0], c_max)),
                                     lambda v: (v[0] + 1, out(M, M.matmul(v[1], v[2])), v[2]), (0, x, w))
            return w, x

        def fori(x, n):
            return lax.fori_loop(0, n, lambda _, x: out(M, M.add(x, 1)), x)
        return (jax.vmap(fun)(x4), jax.vmap(jax.jit(fun))(x4),
                jax.vmap(axis, axis_name="i")(np.zeros(4, np.int32)),
                jax.vmap(const_body)(np.arange(5, dtype=F32)),
                jax.vmap(cond_consts, in_axes=(None, 0))(0, np.array([2, 3], np.int32)),
                jax.vmap(body_consts, in_axes=(None, 0))(0, np.array([2, 3], np.int32)),
                jax.vmap(tup)(np.array([0, 0], np.int32), np.array([1, 2], np.int32)),
                jax.vmap(nested)(np.arange(3, dtype=np.int32), np.arange(3, dtype=np.int32)),
                jax.vmap(fixed_point, in_axes=(0, 1))(np.arange(4, dtype=np.int32), np.ones((3, 4), F32)),
                jax.vmap(readonly, in_axes=(None, 0, 0), out_axes=(None, 0))(
                    np.ones((2, 2), F32), np.ones((4, 2), F32), np.arange(4, dtype=np.int32)),
                jax.vmap(jax.vmap(fori, (None, 0)), (0, None))(np.arange(3, dtype=np.int32),
                                                               np.arange(4, dtype=np.int32)))
    got, want = both(run)
    same(got, want)
    np.testing.assert_array_equal(got[0], [4, 3, 4, 3])
    np.testing.assert_array_equal(got[2], [0, 2, 2, 4])
    np.testing.assert_array_equal(got[3], np.arange(5))  # the condition is False at once
    np.testing.assert_array_equal(got[4], [2, 4])
    np.testing.assert_array_equal(got[5], [4, 3])
    np.testing.assert_array_equal(got[6][0], [4, 3])
    np.testing.assert_array_equal(got[7], [0, 4, 18])  # sum over i <= a, j <= b of i + j
    np.testing.assert_array_equal(got[8], np.repeat(6.0 - np.arange(4), 3).reshape(4, 3))  # 5 - i steps
    np.testing.assert_array_equal(got[10], np.arange(3)[:, None] + np.arange(4)[None, :])
    # a Tensor batched by vmap stays a Tensor
    res = jax.vmap(lambda x: lax.while_loop(lambda c: (c < 3).value, lambda c: c + 2, x))(tj.constant([0, 1]))
    assert isinstance(res, tj.Tensor) and res.numpy().tolist() == [4, 3]


@pytest.mark.parametrize("impl", ["plain", "jit", "checkpoint"])
def test_while_jvp_and_linearize(impl):
    # testWhileJVP / testWhileLinearize (while_loop and its checkpointed form)
    def loop(M):
        f = functools.partial(lax.while_loop, lambda x: out(M, M.less_equal(x[0, 2], 8)),
                              lambda x: out(M, M.multiply(x, x)))
        return {"plain": f, "jit": jax.jit(f), "checkpoint": jax.checkpoint(f)}[impl]
    x = np.arange(9, dtype=F32).reshape(3, 3)
    got, want = both(lambda M: (jax.jvp(loop(M), (x,), (x,)), jax.linearize(loop(M), x)[1](x)))
    same(got, want)
    # two squarings (x[0, 2]: 2 -> 4 -> 16): y = x**4, dy = 4 x**3 dx
    np.testing.assert_allclose(got[0][0], x ** 4)
    np.testing.assert_allclose(got[0][1], 4 * x ** 4)
    np.testing.assert_allclose(got[1], 4 * x ** 4)


def test_while_forward_mode_matches_tapes():
    x = np.arange(9, dtype=F32).reshape(3, 3) / 4.0 + 1.0
    cond, body = (lambda x: (x[0, 2] <= 8).value), (lambda x: tnp.sin(x) + x * x)
    _, want = jax.jvp(lambda a: lax.while_loop(cond, body, tj.Tensor(a)).value, (x,), (x,))
    f = tj.function(lambda a: lax.while_loop(cond, body, a))
    _, got_a = acc_jvp(f, [x], [x])  # (a) the compiled loop under an outer accumulator

    def unrolled(a):
        while bool(a[0, 2] <= 8):
            a = body(a)
        return a
    _, got_b = acc_jvp(unrolled, [x], [x])  # (b) the Python loop, eagerly
    close(got_a, want, rtol=1e-5)
    close(got_b, want, rtol=1e-5)


def test_while_jvp_via_fori_loop_and_growing_tangents():
    # testWhileJVPViaForiLoop / testWhileJVPWithGrowingNonzeroTangents
    def run(M):
        def f(x):
            return lax.fori_loop(0, 3, lambda i, x: out(M, M.multiply(x, 2)), x)

        def g(x):
            return lax.fori_loop(0, 3, lambda i, x: out(M, M.multiply(x, i + 1)), x)

        def grow(x):
            def body(s):
                i, x, y, z = s
                y = out(M, M.multiply(x, x))
                return i + 1, x, y, out(M, M.multiply(y, y))
            return lax.while_loop(lambda s: out(M, M.less(s[0], 2)), body,
                                  (0, x, jnp.array([0.3, -1.0], F32), jnp.array([2.0, 0.5], F32)))[1:]
        x = np.array([0.5, 2.0], F32)
        return (jax.jvp(f, (F32(2),), (F32(1),)), jax.jvp(g, (F32(2),), (F32(1),)), jax.jvp(grow, (x,), (x,)))
    got, want = both(run)
    same(got, want)
    np.testing.assert_allclose(np.array(got[:2], F32).ravel(), [16, 8, 12, 6])
    np.testing.assert_allclose(got[2][1][2], 4 * np.array([0.5, 2.0]) ** 4)  # d(x^4) = 4 x^3 dx, dx = x


@pytest.mark.parametrize("loop", ["while", "fori_inside_cond", "fori_inside_scan"])
def test_while_grad_error_and_linearize(loop):
    # testWhileGradError / testStaticForiGrad: reverse mode through a dynamic loop is jax's ValueError either way
    def func(M):
        if loop == "while":
            return lambda x: lax.while_loop(lambda i: out(M, M.less(i, 5.0)), lambda i: out(M, M.add(i, 1.0)), x)
        if loop == "fori_inside_cond":
            def inner(x, _):
                return lax.fori_loop(x, x + 2.0, lambda i, c: out(M, M.multiply(c, M.sin(c))), x)
            return lambda x: lax.cond(True, inner, lambda _, x: x, x, 1.0)
        return lambda x: lax.scan(lambda c, x: (lax.fori_loop(x, x + 2.0, lambda i, c1: out(M, M.multiply(c1, c)), x),
                                                None), x, np.ones(2, F32))[0]
    raises_like(lambda M: jax.grad(func(M))(F32(1)), ValueError, "Reverse-mode differentiation does not work")
    got, want = both(lambda M: jax.linearize(func(M), F32(1))[1](F32(1)))
    same(got, want)
    # float bounds that are concrete under jax.grad (testStaticForiGrad): reverse mode works
    got, want = both(lambda M: jax.grad(lambda x: lax.fori_loop(x, x + 2.0, lambda i, c: out(M, M.sin(c)), x))(F32(1)),
                     jit=False)  # concrete bounds: not under jit
    same(got, want)


def test_while_type_errors():
    # testWhileTypeErrors, with tj results where jax's test returns arrays
    raises_like(lambda M: lax.while_loop(lambda c: (out(M, M.asarray(1.0)), out(M, M.asarray(1.0))), lambda c: c, 0.0),
                TypeError, "cond_fun must return a boolean scalar")
    raises_like(lambda M: lax.while_loop(lambda c: out(M, M.asarray(1.0, F32)), lambda c: c, F32(0)),
                TypeError, r"cond_fun must return a boolean scalar, but got output type\(s\) \[ShapedArray\(float32")
    raises_like(lambda M: lax.while_loop(lambda c: True, lambda c: (out(M, M.asarray(1.0)), out(M, M.asarray(1.0))),
                                         0.0), TypeError, "must have the same pytree structure")
    raises_like(lambda M: lax.while_loop(lambda c: True, lambda c: (out(M, M.logical_not(c[0])),
                                                                    out(M, M.logical_or(c[0], True))),
                                         (np.bool_(True), F32(0))),
                TypeError, r"c\[1\] has type float32\[\] but the corresponding output carry component has type bool")


def test_while_weak_init_fixpoint_and_forwarded_carries():
    # test_while_loop_init_weak_type / test_grad_remat_while_fixpoint / test_while_constification_correctness_manually
    def run(M):
        inc = jnp.array(1, np.int32)
        weak = lax.while_loop(lambda v: out(M, M.less(v, 2)), lambda v: out(M, M.add(v, inc)), 0)

        @jax.remat
        def swap(x, y):
            x, y = lax.while_loop(lambda _: False, lambda c: (c[1], c[0]), (x, y))
            return out(M, M.add(M.sin(x), y))
        lin = jax.linearize(swap, F32(1), F32(2))

        def body(c):
            for _ in range(2):
                M.sin(np.zeros(3, F32))
            return F32(0), F32(1), c[0]
        fwd = lax.while_loop(lambda c: out(M, M.equal(c[1], 0)), body, (F32(5), F32(0), F32(3.14)))
        return weak, lin[0], lin[1](F32(1), F32(1)), fwd
    got, want = both(run)
    same(got, want)
    assert int(got[0]) == 2 and got[0].dtype == np.int32
    np.testing.assert_allclose(got[2], np.cos(1.0) + 1.0, rtol=1e-6)
    np.testing.assert_allclose(np.array(got[3]), [0, 1, 5])


def test_while_jvp_tangent_keeps_the_weak_type():
    def loop(M):
        return (lambda x: lax.while_loop(lambda c: c < 10.0, lambda c: out(M, M.multiply(c, 2.0)), x))
    got, want = both(lambda M: jax.jvp(loop(M), (1.0,), (1.0,)))
    assert want[1].weak_type
    same(got, want)


# -- fori_loop --------------------------------------------------------------------------------------------------------

def test_fori_loop_basic_closure_and_traced_bounds():
    # testForiLoopBasic / testForiLoopClosure: the bound is traced under jit (fori_loop becomes a while_loop)
    def run(M):
        def count(num):
            return lax.fori_loop(0, num, lambda i, tot: out(M, M.add(tot, i)), 0)

        def closure(num):
            return lax.fori_loop(0, num, lambda i, tot: out(M, M.add(num, M.add(tot, i))), 0)
        return [count(n) for n in (2, 3, 4)] + [jax.jit(count)(4)] + [closure(2), jax.jit(closure)(3), closure(4)]
    got, want = both(run)
    same(got, want)
    assert [int(a) for a in got] == [1, 3, 6, 6, 5, 12, 22]


def test_fori_loop_tuple_dict_and_empty_states_on_tensors():
    # testForiLoopTupleState / testForiLoopDictState / testForiLoopEmptyTupleInState / testLoopWithConjunctionCondition:
    # Tensor state, indexed by the loop's traced counter
    x = np.random.RandomState(0).randn(10).astype(F32)

    def run(M):
        def tuple_state(arr, num):
            stop = M.minimum(arr.shape[0], num)
            return lax.fori_loop(0, stop, lambda i, s: (s[0], s[1] + s[0][i]), (arr, M.asarray(0.0)))[1]

        def dict_state(arr, num):
            def body(i, s):
                return {"arr": s["arr"], "total": s["total"] + s["arr"][i], "e": ()}
            return lax.fori_loop(0, M.minimum(arr.shape[0], num), body,
                                 {"arr": arr, "total": M.asarray(0.0), "e": ()})["total"]

        def conjunction(arr, num):
            def cond(s):
                return out(M, M.logical_and(s[2] < s[1], s[2] < arr.shape[0]))
            return lax.while_loop(cond, lambda s: (s[0], s[1], s[2] + 1, s[3] + s[0][s[2]]),
                                  (arr, num, lift(M, 0), lift(M, F32(0))))[3]
        arr = lift(M, x)
        res = []
        for num in (0, 5, 15):
            res += [tuple_state(arr, num), dict_state(arr, num), conjunction(arr, lift(M, num)),
                    jax.jit(conjunction)(arr, lift(M, num))]
        return res
    got, want = both(run)
    same(got, want, rtol=1e-6)
    for k, num in enumerate((0, 5, 15)):
        for r in got[4 * k:4 * k + 4]:
            assert isinstance(r, tj.Tensor)
            np.testing.assert_allclose(r.numpy(), x[:num].sum(), rtol=1e-6, atol=1e-6)


def test_fori_loop_with_a_traced_tensor_bound():
    def body(i, c):
        return c * 2.0
    assert float(jax.jit(lambda n: lax.fori_loop(0, n, body, tj.constant(1.0)))(jnp.int32(3))) == 8.0
    assert float(jax.jit(lambda n: lax.fori_loop(0, n, body, tj.constant(1.0)))(tj.constant(3))) == 8.0


@pytest.mark.parametrize("bound", [lambda n: n, lambda n: n.value], ids=["tensor", "value"])
def test_fori_loop_tensor_bound_in_tj_function(bound):
    f = tj.function(lambda n, x: lax.fori_loop(0, bound(n), lambda i, c: c * x, x))
    x = tj.constant(1.5)
    with tj.ForwardAccumulator(x, tj.constant(1.0)) as acc:
        y = f(tj.constant(3), x)
    np.testing.assert_allclose(y.numpy(), 1.5 ** 4)
    np.testing.assert_allclose(acc.jvp(y).numpy(), 4 * 1.5 ** 3, rtol=1e-6)


def test_fori_loop_bounds_unrolling_and_errors():
    # testForiLoopScalarLimits / test_fori_loop_supports_unrolling(_with_bool) /
    # test_fori_loop_returns_init_with_nonpositive_length / testForiLoopIssue8152 / testForiLoopErrors /
    # test_fori_loop_with_dynamic_indices_cannot_unroll
    def run(M):
        def body(i, c):
            return out(M, M.add(c, 1))
        init = jnp.float32(10)
        res = [lax.fori_loop(np.int16(0), 10, body, init), lax.fori_loop(0, np.int16(10), body, init),
               lax.fori_loop(np.int16(0), 10, body, init, unroll=3),
               lax.fori_loop(0, np.int16(10), body, init, unroll=2),
               lax.fori_loop(0, 10, body, init, unroll=True), lax.fori_loop(0, 10, body, init, unroll=False),
               lax.fori_loop(0, 0, lambda i, x: out(M, M.add(x, i)), 1.0)]
        for upper in (0, -1):
            for unroll in (False, True):
                f = functools.partial(lax.fori_loop, 0, upper, body, unroll=unroll)
                res += [f(init), jax.jit(f)(init)]
        return res
    got, want = both(run)
    same(got, want)
    assert [float(a) for a in got] == [20.0] * 6 + [1.0] + [10.0] * 8

    def two(i, c):
        return c * 2.0
    # Tensor and Variable bounds, concrete: as Python ints
    assert float(lax.fori_loop(tj.constant(0), tj.constant(3), two, tj.constant(1.0))) == 8.0
    assert float(lax.fori_loop(0, tj.Variable(3), two, tj.constant(1.0), unroll=2)) == 8.0
    with pytest.raises(TypeError, match="must have equal types, got int16 and int32"):
        lax.fori_loop(np.int16(0), tj.constant(10), lambda i, c: c, jnp.float32(7))
    raises_like(lambda M: jax.jit(lambda u: lax.fori_loop(np.int16(0), u, lambda i, c: out(M, M.add(c, 1)),
                                                          jnp.float32(10), unroll=3))(np.int16(10)),
                ValueError, "Can only use `unroll`")


def test_fori_loop_batched():
    # testForiLoopBatched
    got, want = both(lambda M: jax.vmap(lambda x: lax.fori_loop(0, 10, lambda i, c: (out(M, M.add(c[0], 1)),
                                                                                     out(M, M.add(c[1], 2))),
                                                                (x, 0)))(np.array([0, 1], np.int32)))
    same(got, want)
    np.testing.assert_array_equal(got[0], [10, 11])
    np.testing.assert_array_equal(got[1], [20, 20])


def _fori_body(M, x):
    return lambda i, c: out(M, M.tanh(c * x) + M.sin(c) * (i + 1))


def test_fori_loop_derivatives_against_jnp_and_tapes():
    x0 = np.array([0.3, -0.7, 1.1], F32)

    def run(M):
        def f(x):
            return jnp.sum(lax.fori_loop(0, 3, _fori_body(M, x), x))
        return (f(x0), jax.grad(f)(x0), jax.jvp(f, (x0,), (np.ones(3, F32),))[1],
                jax.jacrev(lambda x: lax.fori_loop(0, 3, _fori_body(M, x), x))(x0))
    got, want = both(run)
    same(got, want, rtol=1e-5, atol=1e-5)

    def tj_loop(x):
        return tnp.sum(lax.fori_loop(0, 3, lambda i, c: tnp.tanh(c * x) + tnp.sin(c) * (i + 1), x))
    _, (ga,) = tape_grads(tj.function(tj_loop), x0)   # (a)
    _, ta = acc_jvp(tj.function(tj_loop), [x0], [np.ones(3, F32)])

    def unrolled(x):
        c = x
        for i in range(3):
            c = tnp.tanh(c * x) + tnp.sin(c) * (i + 1)
        return tnp.sum(c)
    _, (gb,) = tape_grads(unrolled, x0)   # (b)
    for g in (ga, gb):
        close(g, want[1], rtol=1e-5, atol=1e-5)
    close(ta, want[2], rtol=1e-5, atol=1e-5)


def test_fori_loop_clip_at_its_bound_passes_the_gradient():
    # sanctioned (TF's clip): 0.5 -> 1 -> 2 -> 4 = the upper bound; jnp.clip there gives 4 (half the gradient)
    def f(x):
        return lax.fori_loop(0, 3, lambda i, c: out(tnp, tnp.clip(c * 2.0, -1.0, 4.0)), x)
    _, (tape_g,) = tape_grads(lambda x: tnp.clip(tnp.clip(tnp.clip(x * 2.0, -1.0, 4.0) * 2.0, -1.0, 4.0) * 2.0,
                                                 -1.0, 4.0), F32(0.5))
    np.testing.assert_allclose(tape_g.numpy(), 8.0)
    np.testing.assert_allclose(jax.grad(f)(F32(0.5)), 8.0)
    np.testing.assert_allclose(jax.jvp(f, (F32(0.5),), (F32(1),))[1], 8.0)
    np.testing.assert_allclose(jax.grad(lambda x: lax.fori_loop(0, 3, lambda i, c: jnp.clip(c * 2.0, -1.0, 4.0), x))(
        F32(0.5)), 4.0)


# -- cond / switch ----------------------------------------------------------------------------------------------------

def test_cond_values_eager_and_jit():
    # testCond / testCondTwoOperands / testCondThreeOperands / testCondOneBranchConstant(Tuple) / testIssue514 /
    # testCondJit / testCondWithConsts / testCondJitWithConsts / test_cond_casting
    def run(M):
        def cfun(x):
            def false_fun(x):
                return (out(M, M.multiply(2, x)), out(M, M.multiply(4, x)))
            return lax.cond(out(M, M.less(x, 3)), lambda x: (x, x), false_fun, x)

        def two(x):
            return lax.cond(x == 0, lambda a, b: out(M, M.add(a, b)), lambda a, b: out(M, M.multiply(a, b)), x, x)

        def three(x):
            return lax.cond(x == 0, lambda a, b, c: out(M, M.add(a, M.add(b, c))),
                            lambda a, b, c: out(M, M.multiply(a, M.multiply(b, c))), x, x, x)

        def one_const(x):
            return lax.cond(out(M, M.less(x, 3)), lambda x: 5, lambda x: out(M, M.abs(x)), x)

        def const_tuple(x):
            return lax.cond(out(M, M.less(x, 3)), lambda x: (1, 2.0, 3.0),
                            lambda x: (out(M, M.abs(x)), 2.0, 4.0), x)

        def consts(x):
            return lax.cond(x < 2, lambda x: out(M, M.multiply(np.array([1.0, 2.0], F32), x)),
                            lambda x: out(M, np.array([3.0, 4.0], F32) * M.sin(x)), x)
        res = []
        for x in range(5):
            res += [cfun(x), jax.jit(cfun)(x)]
        for x in (0, 1):
            res += [two(x), jax.jit(two)(x), three(x), jax.jit(three)(x)]
        res += [jax.jit(one_const)(0), jax.jit(one_const)(4), jax.jit(const_tuple)(0), jax.jit(const_tuple)(4)]
        res += [consts(F32(1)), consts(F32(4)), jax.jit(consts)(F32(1)), jax.jit(consts)(F32(4))]
        res += [lax.cond(True, lambda x, _: (x[0], 0), lambda _, x: x, (0, 0), (1, 1)),
                lax.cond(True, lambda x: out(M, M.multiply(x, 1.0)), lambda x: x, 1.0)]
        return res
    got, want = both(run)
    same(got, want)
    assert [tuple(map(int, r)) for r in got[0:10:2]] == [(0, 0), (1, 1), (2, 2), (6, 12), (8, 16)]
    assert [int(r) for r in got[10:18]] == [0, 0, 0, 0, 1, 1, 1, 1]
    assert [int(r) for r in got[18:20]] == [5, 4]
    np.testing.assert_allclose(got[23], np.array([3.0, 4.0]) * np.sin(4.0), rtol=1e-6)
    assert isinstance(got[-1], jax.Array)


@pytest.mark.parametrize("impl", list(COND_IMPLS))
def test_nested_cond(impl):
    # testNestedCond
    cond = COND_IMPLS[impl]

    def run(M):
        @jax.jit
        def cfun(x):
            return cond(out(M, M.less(x, 2)), lambda x: out(M, M.multiply(2, x)),
                        lambda x: cond(out(M, M.less(x, 5)), lambda x, _: out(M, M.multiply(3, x)),
                                       lambda _, y: out(M, M.multiply(y, x)), x, 4), x)
        return [cfun(x) for x in (1, 3, 6)]
    got, want = both(run)
    same(got, want)
    assert [int(r) for r in got] == [2, 9, 24]


def test_cond_with_tensor_and_variable_predicates_and_operands():
    x = tj.constant(1.5)
    v = tj.Variable(2.0)
    res = lax.cond(x > 1.0, lambda a, b: a * b, lambda a, b: a + b, x, v)
    assert isinstance(res, tj.Tensor) and float(res) == 3.0
    res = lax.cond(tj.Variable(False), lambda a: tnp.sin(a), lambda a: a * 3.0, v)  # v arrives as a Tensor
    assert isinstance(res, tj.Tensor) and float(res) == 6.0 and float(v.numpy()) == 2.0
    res = jax.jit(lambda p, a: lax.cond(p, lambda a: a * 2.0, lambda a: a, a))(tj.constant(True), v)
    assert isinstance(res, tj.Tensor) and float(res) == 4.0
    # testCondJitDisabled: Python's if on the Tensor predicate
    with jax.disable_jit():
        assert float(lax.cond(x < 2.0, lambda a: 3.0 * a, lambda a: tnp.sin(a), x)) == 4.5
    # jax.grad through Tensor operands made of jax's tracers
    g = jax.grad(lambda a: lax.cond(a < 2.0, lambda t: 3.0 * t, lambda t: tnp.sin(t), tj.Tensor(a)).value)
    np.testing.assert_allclose([g(F32(1)), g(F32(4))], [3.0, np.cos(4.0)], rtol=1e-6)
    # sanctioned: a Python constant in one branch next to a Tensor in the other is a pytree mismatch
    with pytest.raises(TypeError, match="(?s)cond branch outputs must have the same pytree structure.*Tensor"):
        lax.cond(True, lambda a: a, lambda a: 5, tj.constant(1))


def test_switch_values_and_index_clamping():
    # testSwitch / testSwitchMultiOperands / testOneBranchSwitch / testSwitchJit
    def run(M):
        branches = [lambda x: (x, x), lambda x: (out(M, M.multiply(2, x)), out(M, M.multiply(4, x))),
                    lambda x: (x, out(M, M.negative(x)))]
        multi = [lambda a, b: out(M, M.add(a, b)), lambda a, b: out(M, M.multiply(a, b))]

        def one(i, x):
            return lax.switch(i, [lambda x: out(M, M.negative(x))], x)
        res = []
        for x in (-1, 0, 1, 2, 3):
            res += [lax.switch(x, branches, x), jax.jit(lambda x: lax.switch(x, branches, x))(x),
                    lax.switch(x, multi, x, x)]
        for i in (-1, 0, 1):
            res += [one(i, 7.0), jax.jit(one)(i, 7.0), jax.jit(one, static_argnums=0)(i, 7.0)]
        return res
    got, want = both(run)
    same(got, want)
    assert [tuple(map(int, r)) for r in got[0:15:3]] == [(-1, -1), (0, 0), (2, 4), (2, -2), (3, -3)]
    assert [int(r) for r in got[2:15:3]] == [-2, 0, 1, 4, 9]
    assert [float(r) for r in got[15:]] == [-7.0] * 9
    # a Tensor or Variable index is clamped as an int is: eagerly, under jit and under vmap
    br = [lambda a: a + 1.0, lambda a: tnp.sin(a), lambda a: a * 3.0]
    x = tj.constant(0.5)
    for idx, want_v in ((-3, 1.5), (1, np.sin(0.5)), (7, 1.5)):
        for index in (tj.constant(idx), tj.Variable(idx)):
            np.testing.assert_allclose(lax.switch(index, br, x).numpy(), want_v, rtol=1e-6)
        np.testing.assert_allclose(jax.jit(lambda i, a: lax.switch(i, br, a))(tj.constant(idx), x).numpy(), want_v,
                                   rtol=1e-6)
    got, want = both(lambda M: jax.vmap(lambda i, x: lax.switch(i, [lambda v: out(M, M.sin(v)),
                                                                    lambda v: out(M, M.negative(v)),
                                                                    lambda v: out(M, M.exp(v))], x))(
        np.array([-2, 0, 1, 2, 7], np.int32), np.arange(5, dtype=F32)))
    same(got, want)
    np.testing.assert_allclose(got, [0.0, np.sin(1.0), -2.0, np.exp(3.0), np.exp(4.0)], rtol=1e-6)
    res = jax.vmap(lambda i, a: lax.switch(i, br, a))(tj.constant([-1, 1, 9]), tj.constant([0.5, 0.5, 0.5]))
    assert isinstance(res, tj.Tensor)
    np.testing.assert_allclose(res.numpy(), [1.5, np.sin(0.5), 1.5], rtol=1e-6)


def test_cond_and_switch_batched():
    # testCondBatched / testSwitchBatched / test_cond_vmap_forwarding_doesnt_promote
    def run(M):
        def cfun(x, y, z):
            return lax.cond(out(M, M.less(x, 3)), lambda y, _: y, lambda _, z: out(M, M.negative(z)), y, z)

        def sfun(index, x, y, z):
            branches = [lambda xyz: xyz[0], lambda xyz: out(M, M.negative(xyz[1])), lambda xyz: out(M, M.sign(xyz[2]))]
            return lax.switch(index, branches, (x, y, z))
        y, z = jnp.array([1, 2]), jnp.array([3, 4])

        def fwd(x, y):
            return lax.cond(out(M, M.less(x, 3)), lambda x, y: (out(M, M.multiply(x, 2)), y),
                            lambda x, y: (out(M, M.multiply(x, 3)), y), x, y)
        return (jax.vmap(cfun, (None, 0, 0))(jnp.array(2), y, z), jax.vmap(cfun, (None, 0, 0))(jnp.array(4), y, z),
                jax.vmap(jax.jit(cfun), (None, 0, None))(jnp.array(4), y, jnp.array(5)),
                jax.vmap(cfun, (0, 0, None))(jnp.array([2, 4]), y, jnp.array(5)),
                jax.vmap(cfun)(jnp.array([2, 4]), y, z),
                jax.vmap(sfun, (None, 0, 0, None))(jnp.array(1), y, z, jnp.array(9)),
                jax.vmap(sfun, (0, 0, None, None))(jnp.array([0, 1]), y, jnp.array(5), jnp.array(9)),
                jax.vmap(sfun)(jnp.array([0, 1]), y, z, jnp.array([9, 9])),
                jax.vmap(fwd, in_axes=(0, None), out_axes=(0, None))(jnp.arange(3), jnp.array(3.0)))
    got, want = both(run)
    same(got, want)
    expected = [[1, 2], [-3, -4], [-5, -5], [1, -5], [1, -4], [-3, -4], [1, -5], [1, -4]]
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)
    np.testing.assert_array_equal(got[-1][0], [0, 2, 4])


@pytest.mark.parametrize("impl", list(COND_IMPLS))
def test_cond_derivatives(impl):
    # testCondJVP / testCondJVP2 / testCondGrad / testCondGrad2 / testCondGrad3 / testCondGrad4 / testCondLinearize /
    # testCondLinearize2
    cond = COND_IMPLS[impl]

    def run(M):
        def pair(x):
            return cond(x < 3, lambda x: (x, x),
                        lambda x: (out(M, M.multiply(2, x)), out(M, M.multiply(4, x))), x)

        def const(x):
            return cond(x < 3, lambda _: 2.0, lambda x: out(M, M.multiply(2.0, x)), x)
        sin = jax.jit(lambda x: cond(x < 2, lambda x: out(M, M.multiply(3.0, x)), lambda x: out(M, M.sin(x)), x))
        closed = jax.jit(lambda x, y: cond(x < 3, lambda _: out(M, M.multiply(2.0, M.sin(y))),
                                           lambda x: out(M, M.multiply(2.0, x)), x))

        def vec(x):
            return out(M, M.sum(cond(x[0] < 2, lambda x: out(M, M.multiply(np.array([1.0, 2.0], F32), x)),
                                     lambda x: out(M, M.cos(M.sin(x))), x)))
        res = []
        for x in (F32(3.14), F32(1.72)):  # each function's two branches
            res += [jax.jvp(pair, (x,), (x,)), jax.jvp(const, (x,), (x,)), jax.grad(const)(x), jax.grad(sin)(x),
                    jax.jvp(sin, (x,), (F32(2),)), jax.linearize(sin, x)[1](F32(2)),
                    jax.grad(closed, (0, 1))(x, F32(5.8))]
        for xv in (F32(2.14) * np.ones(2, F32), F32(1.72) * np.ones(2, F32)):
            res += [jax.grad(vec)(xv), jax.linearize(jax.jit(vec), xv)[1](xv)]
        if impl == "cond":  # second order, once
            res += [jax.grad(jax.grad(sin))(F32(3.14)), jax.hessian(vec)(F32(2.14) * np.ones(2, F32))]
        return res
    got, want = both(run)
    same(got, want)
    # jax's stated values: at 3.14 the 2x / sin branches, at 1.72 the identity / 3x ones
    np.testing.assert_allclose(got[0][1], [3.14 * 2, 3.14 * 4], rtol=1e-6)
    np.testing.assert_allclose(got[3], np.cos(3.14), rtol=1e-6)
    np.testing.assert_allclose(got[7 + 3], 3.0)
    np.testing.assert_allclose(got[7 + 6], [0.0, 2 * np.cos(5.8)], rtol=1e-6)


def test_cond_derivatives_against_tapes():
    def body(x, y):
        return lax.cond(x[0] < 2.0, lambda a, b: tnp.sum(a * b), lambda a, b: tnp.sum(tnp.cos(tnp.sin(a))) * b[1],
                        x, y)

    def python_if(x, y):
        return tnp.sum(x * y) if bool(x[0] < 2.0) else tnp.sum(tnp.cos(tnp.sin(x))) * y[1]
    y0 = np.array([1.0, 2.0], F32)
    for x0 in (np.array([1.7, -0.4], F32), np.array([2.5, 0.3], F32)):
        want = jax.grad(lambda x, y: body(tj.Tensor(x), tj.Tensor(y)).value, (0, 1))(x0, y0)
        want_t = jax.jvp(lambda x, y: body(tj.Tensor(x), tj.Tensor(y)).value, (x0, y0), (y0, x0))[1]
        _, ga = tape_grads(tj.function(body), x0, y0)   # (a)
        _, ta = acc_jvp(tj.function(body), [x0, y0], [y0, x0])
        _, gb = tape_grads(python_if, x0, y0)           # (b)
        _, tb = acc_jvp(python_if, [x0, y0], [y0, x0])
        for g in (ga, gb):
            close(g[0], want[0])
            close(g[1], want[1])
        close(ta, want_t)
        close(tb, want_t)


def test_switch_derivatives():
    # testSwitchJVP / testSwitchGrad / testSwitchLinearize
    def run(M):
        branches = [lambda x: out(M, M.multiply(3.0, x)), lambda x: out(M, M.sin(x)), lambda x: out(M, M.negative(x))]
        f = jax.jit(lambda x: lax.switch(lax.convert_element_type(out(M, M.floor_divide(x, 1)), np.int32),
                                         branches, x))
        pairs = [lambda x: (x, x), lambda x: (out(M, M.multiply(2, x)), out(M, M.multiply(4, x))),
                 lambda x: (x, out(M, M.negative(x)))]

        def g(x):
            return lax.switch(lax.convert_element_type(x // 1, np.int32), pairs, x)
        res = []
        for x in (-0.7, 0.7, 1.7, 2.7, 3.7):
            x = F32(x)
            res += [jax.grad(f)(x), jax.jvp(g, (x,), (x,)), jax.grad(jax.grad(f))(x)]
        for x in (-1.0, 0.0, 1.0, 2.0, 3.0):
            y, f_lin = jax.linearize(f, F32(x))
            res.append((y, f_lin(F32(2))))
        return res
    got, want = both(run)
    same(got, want)
    # branch 0 (index clamped from -1), 0, 1, 2, 2 (clamped from 3)
    np.testing.assert_allclose([got[k] for k in range(0, 15, 3)], [3.0, 3.0, np.cos(1.7), -1.0, -1.0], rtol=1e-6)
    np.testing.assert_allclose([r[1] for r in got[15:]], [6.0, 6.0, 2 * np.cos(1.0), -2.0, -2.0], rtol=1e-6)


@pytest.mark.parametrize("impl", list(COND_IMPLS))
def test_cond_vmap_grad(impl):
    # testCondVmapGrad: vmap of grad turns the cond into a select
    cond = COND_IMPLS[impl]
    x = np.linspace(-1, 1, 20).astype(F32)
    got = jax.vmap(jax.grad(lambda x: cond(x > 0, lambda v: out(tnp, tnp.power(v, 2)),
                                           lambda v: out(tnp, tnp.power(v, 3)), x)))(x)
    want = jax.jit(jax.vmap(jax.grad(lambda x: jnp.where(x > 0, x ** 2, x ** 3))))(x)
    same(got, want)


def test_cond_grad_vmap_nan_and_sqrt_under_where():
    # testCondGradVmapNan: the sqrt branch is evaluated at 0 under vmap with a zero cotangent
    eps = 1e-3
    got, want = both(lambda M: jax.grad(lambda x: jax.vmap(
        lambda x: lax.cond(x < eps, lambda _: eps, lambda _: out(M, M.sqrt(x)), ()))(x).sum())(np.zeros(10, F32)))
    same(got, want)
    assert not np.isnan(got).any()

    # sanctioned (TF's sqrt): where(v > 0, sqrt(v), 0) inside a branch has gradient 0 at 0; jax.numpy's is NaN
    def h(M):
        return (lambda x: lax.cond(x[1] >= 0, lambda v: out(M, M.sum(M.where(v > 0, M.sqrt(v), 0.0))),
                                   lambda v: out(M, M.sum(v)), x))
    x0 = np.array([0.0, 4.0], F32)
    _, (tape_g,) = tape_grads(lambda x: tnp.sum(tnp.where(x > 0, tnp.sqrt(x), 0.0)), x0)
    np.testing.assert_allclose(tape_g.numpy(), [0.0, 0.25])
    np.testing.assert_allclose(jax.grad(h(tnp))(x0), [0.0, 0.25])
    assert np.isnan(jax.grad(h(jnp))(x0)[0])


@pytest.mark.parametrize("seed,n_in,n_out", [(0, 0, 0), (1, 1, 2), (2, 3, 1), (3, 2, 3)])
def test_switch_grad_with_forwarding(seed, n_in, n_out):
    # testSwitchGradWithForwarding (4 of its cases): branches forwarding some inputs to outputs
    rng = np.random.RandomState(seed)
    in_perm, out_perm = rng.permutation(3), rng.permutation(3)

    def run(M):
        def branch(s, inputs):
            inputs = [inputs[i] for i in in_perm]
            outs = inputs[:n_in] + [out(M, M.multiply(s, M.exp(inputs[i]))) if i < n_out else out(M, M.sin(inputs[i]))
                                    for i in range(3 - n_in)]
            return [outs[i] for i in out_perm]
        branches = [functools.partial(branch, float(i)) for i in range(4)]
        f = jax.jit(lambda idx, xs: lax.switch(lax.convert_element_type(idx // 1, np.int32), branches, xs))
        xs = jnp.arange(3, dtype=F32)

        def loss(idx):
            return (lambda xs: sum(jnp.sum(o * (k + 1)) for k, o in enumerate(f(idx, xs))))
        return [(jax.grad(loss(idx))(xs), jax.jvp(lambda v: f(idx, v), (xs,), (xs + 1,))) for idx in range(4)]
    got, want = both(run)
    same(got, want)


def test_switch_grad_weak_type_mismatch_and_custom_rules():
    # testSwitchGradWithWeakTypeMismatch / test_cond_transformation_rule_with_consts /
    # test_custom_jvp_tangent_cond_transpose / test_cond_basic_vjp3 / test_cond_ad_batched_unit
    def run(M):
        branches = [lambda x: x, lambda x: out(M, M.add(x, F32(1)))]
        weak = [jax.grad(lambda x: lax.switch(x.astype(jnp.int32), branches, x))(x) for x in (0.0, 1.0)]

        @jax.custom_jvp
        def ident(x):
            return x

        @ident.defjvp
        def ident_jvp(primals, tangents):
            const = np.arange(3, dtype=F32)
            return out(M, M.multiply(primals[0], const)), out(M, M.multiply(tangents[0], const))
        xs = np.arange(3, dtype=F32)
        consts = jax.jvp(lambda x: lax.cond(True, ident, lambda x: x, x), (xs,), (xs,))

        def switch_fun(arr, choice):
            choice = jnp.floor(choice).astype(jnp.int32)
            return lax.switch(choice, [lambda x: out(M, M.sum(x)), lambda x: out(M, 1 - M.sum(x))], arr)
        bad = jax.custom_jvp(switch_fun)
        bad.defjvp(lambda p, t: (switch_fun(*p), switch_fun(t[0], p[1])))
        transposed = (jax.grad(switch_fun)(xs, F32(0)), jax.grad(bad)(xs, F32(0)))

        _, f_vjp = jax.vjp(lambda x: lax.cond(True, lambda v: out(M, M.sin(v)), lambda v: x, x), F32(1))
        _, h_vjp = jax.vjp(lambda x: lax.cond(True, lambda v: out(M, M.sin(v)), lambda v: F32(1), x), F32(1))

        def cid(x):
            return lax.cond(x < 0.0, lambda v: out(M, M.multiply(v, 1.0)), lambda v: out(M, M.sin(v)), x)
        return (weak, consts, transposed, f_vjp(F32(1)), h_vjp(F32(1)),
                jax.vmap(jax.jacrev(lambda x: cid(cid(x))))(jnp.array([0.5, -1.0], F32)))
    got, want = both(run)
    same(got, want)
    np.testing.assert_allclose(np.array(got[2]), np.ones((2, 3)))
    np.testing.assert_allclose(got[3][0], np.cos(1.0), rtol=1e-6)


def test_cond_and_switch_type_errors():
    # testCondTypeErrors / testSwitchErrors / testIssue1379, with tj outputs and Tensor predicates / indices
    raises_like(lambda M: lax.cond(True, lambda t: {"a": out(M, M.asarray(2.0))},
                                   lambda f: {"a": (out(M, M.asarray(3.0)), out(M, M.asarray(3.0)))}, 1.0),
                TypeError, "cond branch outputs must have the same pytree structure")
    raises_like(lambda M: lax.cond(True, lambda t: out(M, M.array([1.0], F32)), lambda f: out(M, M.asarray(1.0, F32)),
                                   1.0), TypeError, r"true_fun has type float32\[1\] but the corresponding output")
    raises_like(lambda M: lax.switch(1, [lambda _: {"a": out(M, M.array([1.0], F32))},
                                         lambda _: {"a": out(M, M.asarray(1.0, F32))}], 1.0),
                TypeError, "switch branches must have equal output types")
    raises_like(lambda M: lax.cond(lift(M, [True, False]), lambda _: 2.0, lambda _: 3.0, 1.0),
                TypeError, "Pred must be a scalar")
    raises_like(lambda M: lax.switch(lift(M, F32(1)), [lambda _: 2.0, lambda _: 3.0], 1.0),
                TypeError, "Index type must be an integer")
    raises_like(lambda M: lax.switch(lift(M, [1, 1]), [lambda _: 2.0, lambda _: 3.0], 1.0),
                TypeError, "Branch index must be scalar")
    raises_like(lambda M: jax.jit(lambda p: lax.cond(p, lambda x: (True, x), lambda x: (False, x), p))(
        lift(M, [1, 2])), TypeError)


# -- scan -------------------------------------------------------------------------------------------------------------

_RNG = np.random.RandomState(0)
_D = _RNG.randn(2).astype(F32)
_AS = _RNG.randn(5, 3).astype(F32)
_C = _RNG.randn(4).astype(F32)


def _scan_body(M):
    # testScanImpl's body; d a closed-over constant
    def f(c, a):
        assert a.shape == (3,) and c.shape == (4,)
        b = M.cos(M.sum(M.sin(a)) + M.sum(M.cos(c)) + M.sum(_D))
        return out(M, M.sin(M.multiply(c, b))), out(M, b)
    return f


def _scan_reference(f, c, xs):
    ys = []
    for x in xs:
        c, y = f(c, x)
        ys.append(y)
    return c, jnp.stack(ys)


@pytest.mark.parametrize("impl", list(SCAN_IMPLS))
def test_scan_impl_jvp_linearize_grad(impl):
    # testScanImpl / testScanJVP / testScanLinearize / testScanGrad over jax's scan variants (jit_scan for one)
    scan = SCAN_IMPLS[impl]
    if impl == "unroll1":
        scan = jax.jit(scan, static_argnums=0)

    def run(M):
        f = _scan_body(M)

        def loss(c, xs):
            c_t, ys = scan(f, c, xs)
            return jnp.sum(c_t) + jnp.sum(ys ** 2)
        res = [scan(f, _C, _AS), jax.jvp(lambda c, xs: scan(f, c, xs), (_C, _AS), (_C, _AS)),
               jax.grad(loss, (0, 1))(_C, _AS)]
        if impl in ("unroll1", "ckpt_nothing", "ckpt_everything"):  # linearize's partial evaluation, where it differs
            res.append(jax.linearize(lambda c, xs: scan(f, c, xs), _C, _AS)[1](_C, _AS))
        return res
    got, want = both(run, jit=impl not in ("unroll0", "unroll_all"))  # jit moves the unrolled ones past rtol=1e-5
    same(got, want, rtol=1e-5, atol=1e-6)
    # the values are those of the Python loop
    same(got[0], jax.jit(lambda: _scan_reference(_scan_body(jnp), _C, _AS))(), rtol=1e-5, atol=1e-6)


def test_scan_derivatives_against_tapes():
    def f(c, a):
        b = tnp.cos(tnp.sum(tnp.sin(a)) + tnp.sum(tnp.cos(c)) + tnp.sum(_D))
        return tnp.sin(c * b), b

    def loss(c, xs):
        c_t, ys = lax.scan(f, c, xs)
        return tnp.sum(c_t) + tnp.sum(ys ** 2)

    def unrolled(c, xs):
        ys = []
        for i in range(xs.shape[0]):
            c, b = f(c, xs[i])
            ys.append(b)
        return tnp.sum(c) + tnp.sum(tnp.stack(ys) ** 2)

    def raw(c, xs):
        return loss(tj.Tensor(c), tj.Tensor(xs)).value
    want_g = jax.grad(raw, (0, 1))(_C, _AS)
    want_t = jax.jvp(raw, (_C, _AS), (_AS[0, :1].repeat(4), _AS * 0.5))[1]
    for fn in (tj.function(loss), unrolled):   # (a), (b)
        _, g = tape_grads(fn, _C, _AS)
        _, t = acc_jvp(fn, [_C, _AS], [_AS[0, :1].repeat(4), _AS * 0.5])
        close(g[0], want_g[0])
        close(g[1], want_g[1])
        close(t, want_t)


def test_scan_vmap():
    # testScanVmap (four in_axes) / testScanVmapTuples / testScanVmapFixpoint
    rng = np.random.RandomState(1)
    as_ = (rng.randn(3, 7).astype(F32), rng.randn(3, 4, 7).astype(F32))
    c_tup = (rng.randn(7, 2).astype(F32), rng.randn(7).astype(F32))

    def run(M):
        f = _scan_body(M)
        res = []
        for c_ax, x_ax, jit in ((0, None, False), (None, 1, True), (1, 2, False), (0, 0, True)):
            c_shape, x_shape = [4], [5, 3]
            if c_ax is not None:
                c_shape.insert(c_ax, 2)
            if x_ax is not None:
                x_shape.insert(x_ax, 2)
            c = np.random.RandomState(len(res)).randn(*c_shape).astype(F32)
            xs = np.random.RandomState(9).randn(*x_shape).astype(F32)
            scan = jax.jit(lax.scan, static_argnums=0) if jit else lax.scan
            res.append(jax.vmap(lambda c, xs: scan(f, c, xs), (c_ax, x_ax))(c, xs))

        def tup(c, a):
            a1, a2 = a
            c1, c2 = c
            b = out(M, M.sum(M.cos(a1)) * M.sum(c2 * a2))
            return (out(M, M.multiply(c1, M.sin(M.sum(a1 * a2)))), out(M, M.multiply(c2, M.cos(M.sum(a1))))), b
        res.append(jax.vmap(lambda c, as_: lax.scan(tup, c, as_), (0, (1, 2)))(c_tup, as_))

        def shift(ci):
            return lax.scan(lambda c, _: ((c[1], c[2], c[3], out(M, M.multiply(c[0], 0.0))), None),
                            (0.0, 1.0, 2.0, ci), jnp.zeros(2))
        res.append(jax.vmap(shift)(jnp.array([3.0, 4.0, 5.0])))
        return res
    got, want = both(run)
    same(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[-1][0][1], [3.0, 4.0, 5.0])
    np.testing.assert_allclose(got[-1][0][0], [2.0, 2.0, 2.0])


def test_scan_rnn():
    # testScanRnn: grad, jvp, linearize and vmap of an RNN loss whose step is tj code
    r = np.random.RandomState(0)
    params = (r.randn(2, 6).astype(F32), r.randn(1, 6).astype(F32))
    inputs, targets = r.randn(3, 4).astype(F32), r.randn(3, 1).astype(F32)

    def make_loss(M):
        def step(params, state, x):
            w_trans, w_out = params
            stacked = M.concatenate([state, x])
            return out(M, M.tanh(M.dot(w_trans, stacked))), out(M, M.tanh(M.dot(w_out, stacked)))

        @jax.jit
        def loss(params, inputs, targets):
            _, preds = lax.scan(functools.partial(step, params), jnp.zeros(2, F32), inputs)
            return jnp.sum((preds - targets) ** 2)
        return loss

    def run(M):
        loss = make_loss(M)
        return (loss(params, inputs, targets), jax.grad(loss)(params, inputs, targets),
                jax.jvp(loss, (params, inputs, targets), (params, inputs, targets)),
                jax.linearize(loss, params, inputs, targets)[1](params, inputs, targets),
                jax.vmap(lambda x, y: loss(params, x, y))(r.randn(3, 3, 4).astype(F32), r.randn(3, 3, 1).astype(F32)))
    r0 = r.get_state()
    got = run(tnp)
    r.set_state(r0)
    want = jax.jit(lambda: run(jnp))()  # one XLA program for the reference
    same(got, want, rtol=1e-5, atol=1e-5)
    # (a): a tape over the same loss in a tj.function
    loss_tj = tj.function(lambda wt, wo: tnp.sum((lax.scan(
        lambda s, x: (tnp.tanh(tnp.dot(wt, tnp.concatenate([s, x]))), tnp.tanh(tnp.dot(wo, tnp.concatenate([s, x])))),
        tj.constant(np.zeros(2, F32)), tj.constant(inputs))[1] - targets) ** 2))
    _, g = tape_grads(loss_tj, *params)
    close(g[0], want[1][0], rtol=1e-5, atol=1e-5)
    close(g[1], want[1][1], rtol=1e-5, atol=1e-5)


def test_scan_pytree_carries_reverse_unroll_and_length():
    # test_scan_reverse / test_scan_unroll (values) / test_scan_xs_none / testScanLengthArg / test_scan_init_weak_type /
    # testIssue1361 / test_scan_fixpoint_instantiate, on tuples and dicts of Tensors
    x = np.array([3, 1, 4, 1, 5, 9], np.int32)

    def run(M):
        def cumsum(xs, reverse):
            return lax.scan(lambda c, x: (c + x, c + x), lift(M, 0), xs, reverse=reverse)[1]
        xs = lift(M, x)
        res = [cumsum(xs, False), cumsum(xs, True)]
        with jax.disable_jit():
            res.append(cumsum(xs, True))
        init = {"a": lift(M, np.array([1.0, 2.0], F32)), "b": (lift(M, F32(0.5)), lift(M, 0))}

        def body(c, v):
            return ({"a": c["a"] * v + c["b"][0], "b": (M.tanh(c["b"][0] + M.sum(c["a"])), c["b"][1] + 1)},
                    {"y": c["a"] * 2})
        seq = lift(M, np.array([1.0, 2.0, 3.0], F32))
        for unroll in (1, 2, True):
            res.append(lax.scan(body, init, seq, unroll=unroll))
        res.append(lax.scan(body, init, seq, reverse=True))
        res.append(lax.scan(lambda h, _: (h + 1, None), lift(M, 0), length=20))
        res.append(lax.scan(lambda c, _: (c + 1, c), lift(M, 0), None, length=5))
        res.append(lax.scan(lambda c, v: (out(M, M.add(c, v)), v), 0, jnp.ones(5, np.int32)))

        def dict_loss(a, b):
            c, ys = lax.scan(lambda c, v: ({"a": out(M, M.add(M.multiply(c["a"], v), c["b"])),
                                            "b": out(M, M.tanh(c["b"] + M.sum(c["a"])))},
                                           out(M, M.sum(c["a"] ** 2))), {"a": a, "b": b}, jnp.array([1.0, 2.0, 3.0]),
                             reverse=True)
            return jnp.sum(c["a"]) + c["b"] + jnp.sum(ys)
        res.append(jax.grad(dict_loss, (0, 1))(np.array([0.1, 0.2], F32), F32(0.5)))
        res.append(jax.grad(jax.jit(lambda x: lax.scan(lambda c, _: ((out(M, M.multiply(2, c[0])), 0.0), None),
                                                       (x, 0.0), jnp.arange(3))[0][0]))(F32(0.5)))
        res.append(jax.grad(lambda x: sum(lax.scan(lambda c, _: ((out(M, M.multiply(c[0], 0.0)), 0.0), ()),
                                                   (x, 0.0), (), length=5)[0]))(F32(1)))
        return res
    got, want = both(run)
    same(got, want)
    np.testing.assert_array_equal(got[0], np.cumsum(x))
    np.testing.assert_array_equal(got[1], np.cumsum(x[::-1])[::-1])
    np.testing.assert_array_equal(got[2], np.cumsum(x[::-1])[::-1])
    assert isinstance(got[3][0]["b"][1], tj.Tensor) and int(got[3][0]["b"][1]) == 3
    assert int(got[7][0]) == 20 and got[8][1].numpy().tolist() == [0, 1, 2, 3, 4]
    assert int(got[9][0]) == 5 and got[9][0].dtype == np.int32
    np.testing.assert_allclose(got[11], 8.0)
    np.testing.assert_allclose(got[12], 0.0)


def test_scan_higher_order():
    # testScanHigherOrderDifferentiation: second order by jax (hessian, jvp of grad) and by nested tapes
    as_ = np.arange(6, dtype=F32).reshape(3, 2) / 4.0

    def body(M):
        def f(c, a):
            b = M.sin(M.multiply(c, M.sum(M.cos(0.75 * a))))
            return out(M, 0.9 * M.cos(0.75 * M.sum(M.sin(c * a)))), out(M, b)
        return f

    def run(M):
        def loss(c, xs):
            c_t, ys = lax.scan(body(M), c, xs)
            return jnp.sum(ys) + c_t
        return jax.hessian(loss)(F32(1), as_), jax.jvp(jax.grad(loss, (0, 1)), (F32(1), as_), (F32(1), as_))
    got, want = both(run)
    same(got, want, rtol=1e-5, atol=1e-5)

    def tj_loss(c):
        cc, ys = lax.scan(lambda c, a: (0.9 * tnp.cos(0.75 * tnp.sum(tnp.sin(c * a))),
                                        tnp.sin(c * tnp.sum(tnp.cos(0.75 * a)))), c, tj.constant(as_))
        return tnp.sum(ys) + cc
    f = tj.function(tj_loss)
    c = tj.constant(F32(1))
    with tj.GradientTape() as outer:
        outer.watch(c)
        with tj.GradientTape() as inner:
            inner.watch(c)
            y = f(c)
        g = inner.gradient(y, c)
    close(outer.gradient(g, c), want[0], rtol=1e-5, atol=1e-5)


def test_scan_with_gradients_inside_the_body():
    # testIssue711 / testIssue757: jax.grad of tj code inside the scanned function, differentiated again
    def run(M):
        def minimize(p):
            def energy(conf):
                return out(M, M.sum(M.multiply(conf, p)))

            def step(carry, _):
                return ((carry[0] + 1, carry[1] - 0.1 * jax.grad(energy)(carry[1])), None)
            return lax.scan(step, (0, jnp.array([1.0, 2.0, 3.0])), jnp.zeros((7, 0)))[0][1]

        def loop(v):
            return lax.scan(lambda x, i: (jax.grad(lambda a: out(M, M.cos(a)))(x), i), v, jnp.arange(4))[0]
        return (minimize(F32(0.5)), jax.grad(lambda p: out(M, M.sum(M.sin(1.0 - minimize(p)))))(F32(0.25)),
                jax.jit(jax.jacfwd(loop))(F32(0.5)))
    got, want = both(run)
    same(got, want, rtol=1e-5)
    np.testing.assert_allclose(got[0], np.array([1.0, 2.0, 3.0]) - 0.35, rtol=1e-6)


def test_scan_consts_forwarding_and_loop_of_cond():
    # test_scan_hoisting_consts / test_xla_cpu_gpu_loop_cond_bug / test_scan_vjp_forwards_extensive_residuals /
    # test_scan_constification_correctness / test_scan_forwarding_correctness (seeds 0 and 1)
    A = np.arange(4, dtype=F32).reshape(2, 2)
    B = A + 1.0

    def run(M):
        def hoist(x):
            def body(c, _):
                return ((out(M, M.dot(A, c[0])), out(M, M.dot(B, c[1])), out(M, M.dot(M.sin(B), c[2]))), None)
            (c1, c2, c3), _ = lax.scan(body, (x * jnp.ones(2), x * jnp.ones(2), x * jnp.ones(2)), None, length=3)
            return jnp.sum(c1) + jnp.sum(c2) + jnp.sum(c3)

        def my_pow(x, n):
            def step(tup, _):
                return (lax.cond(tup[1], lambda v: (out(M, M.multiply(v, x)), True), lambda v: (v, False),
                                 tup[0]), None)
            return lax.scan(step, (1.0, True), None, length=n)[0][0]

        def cumprod(x):
            return lax.scan(lambda s, v: (out(M, M.multiply(v, s)), s), jnp.ones((2, 3), F32), x)
        x = np.random.RandomState(0).randn(4, 2, 3).astype(F32)
        ys, vjp = jax.vjp(cumprod, x)
        res = [jax.grad(hoist)(F32(1)), jax.linearize(lambda x: my_pow(x, 1), F32(3))[1](F32(1)),
               jax.linearize(lambda x: my_pow(x, 3), F32(3))[1](F32(1)), ys, vjp(ys)]
        for seed in (0, 1):
            rng = np.random.RandomState(seed)
            perm = rng.permutation(6)
            consts = [rng.randn(3).astype(F32) for _ in range(2)]
            init = list(rng.uniform(size=6).astype(F32))

            def body(c, v):
                c = [c[i] for i in np.argsort(perm)]
                keep, change = c[:2], [out(M, M.sin(e) * sum(M.sum(k) for k in consts)) for e in c[2:]]
                new = [*keep, *change]
                return [new[i] for i in perm], [v[0], out(M, M.cos(v[1]) * M.sum(consts[0])), 0]
            xs = [jnp.arange(2.0), jnp.arange(2.0) + 0.5]
            res.append(lax.scan(body, init, xs))
            res.append(jax.grad(lambda i: jnp.sum(jnp.stack(lax.scan(body, list(i), xs)[0])))(jnp.array(init)))
        return res
    got, want = both(run)
    same(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[1], 1.0)
    np.testing.assert_allclose(got[2], 27.0)


def test_scan_errors():
    # testScanBodyOutputError / testScanBodyCarryPytreeMismatchErrors / testScanBodyCarryTypeMismatchErrors /
    # testScanMetadataError / testScanLengthError / testIssue744 / testScanInvalidUnrollRaises /
    # test_scan_length_concrete_error / test_scan_unroll_concrete_error
    raises_like(lambda M: lax.scan(lambda c, x: out(M, M.asarray(0.0, F32)), 0, jnp.arange(5.0)),
                TypeError, r"scan body output must be a pair, got float32\[\]")
    raises_like(lambda M: lax.scan(lambda c, x: ((0, 0, 0), out(M, M.sin(x))), (1, (2, 3)), jnp.arange(5.0)),
                TypeError, "The input carry c is a tuple of length 2")
    raises_like(lambda M: lax.scan(lambda x, _: ({"a": x["a"], "b": out(M, M.add(x["a"], 1))}, None),
                                   {"a": jnp.array(0, "int32")}, None, length=1),
                TypeError, "The input carry x is a <class 'dict'> with 1 child but")
    raises_like(lambda M: lax.scan(lambda x, _: (out(M, M.astype(x, F32)), None), jnp.array(0, "int32"), None,
                                   length=1),
                TypeError, r"The input carry x has type int32\[\] but the corresponding output carry component has "
                           r"type float32\[\], so the dtypes do not match")
    raises_like(lambda M: lax.scan(lambda x, _: ((x[0], out(M, M.reshape(M.astype(x[1], F32), (1, 1)))), None),
                                   (jnp.array(0, "int32"),) * 2, None, length=1),
                TypeError, r"x\[1\] has type int32\[\] but .* float32\[1,1\], so the dtypes do not match, and the "
                           "shapes do not match")
    raises_like(lambda M: lax.fori_loop(0, 1, lambda i, x: {"T": out(M, M.array([0.5]))}, {"t": jnp.array([1.0])}),
                TypeError, r"with pytree metadata \('t',\).*with pytree metadata \('T',\)")
    raises_like(lambda M: lax.scan(lambda c, x: (c, out(M, M.sin(x))), 0.0, lift(M, np.arange(10, dtype=F32)),
                                   length=5),
                ValueError, "disagrees with leading axis sizes")
    raises_like(lambda M: lax.scan(lambda p, i: (Pair(out(M, M.add(p.first, 1)), p.second), i),
                                   Pair(lift(M, 1), lift(M, 2)), list(range(5))),
                ValueError, "scan got value with no leading axis to scan over")
    raises_like(lambda M: lax.scan(lambda x, _: (x, x), lift(M, 0), lift(M, np.arange(5)), unroll=-1),
                ValueError, "`unroll` must be")
    raises_like(lambda M: jax.jit(lambda n, x: lax.scan(lambda c, z: (out(M, M.sin(c)), z), x, (), 10, unroll=n))(
        lift(M, 3), F32(1)), jax.errors.ConcretizationTypeError)


def test_scan_traced_tensor_length_is_a_concretization_error():
    with pytest.raises(jax.errors.ConcretizationTypeError, match="The `length` argument to `scan`"):
        jax.jit(lambda n, x: lax.scan(lambda c, z: (c, z), x, (), n))(tj.constant(3), tj.constant(1.0))


def test_scan_ties_and_kinks_follow_tf():
    # sanctioned: maximum at a tie gives the gradient to its first argument and abs' derivative at 0 is 0 (the tape's
    # rules), so jax.grad / jvp of the tj scan differ from jax.numpy's here
    x0 = np.array([1.0, 1.0, 0.0, 2.0], F32)

    def run(M):
        def step(c, a):
            return (out(M, M.maximum(c, a)), out(M, M.abs(M.subtract(c, a))))
        return lambda x: out(M, M.sum(lax.scan(step, x[0], x)[1]))

    def unrolled(x):
        c, total = x[0], 0.0
        for i in range(4):
            c, total = tnp.maximum(c, x[i]), total + tnp.abs(c - x[i])
        return total
    _, (tape_g,) = tape_grads(unrolled, x0)
    np.testing.assert_allclose(tape_g.numpy(), [0.0, 0.0, -1.0, 1.0])
    np.testing.assert_allclose(jax.grad(run(tnp))(x0), tape_g.numpy())
    t = np.array([1.0, 2.0, 3.0, 4.0], F32)
    np.testing.assert_allclose(jax.jvp(run(tnp), (x0,), (t,))[1], np.dot(tape_g.numpy(), t))
    _, (fn_g,) = tape_grads(tj.function(lambda x: tnp.sum(lax.scan(lambda c, a: (tnp.maximum(c, a), tnp.abs(c - a)),
                                                                   x[0], x)[1])), x0)
    np.testing.assert_allclose(fn_g.numpy(), tape_g.numpy())
    assert not np.allclose(jax.grad(run(jnp))(x0), tape_g.numpy())


def test_scan_complex64():
    # one complex case: jax.grad over tj code keeps JAX's convention; a tape gives the conjugate (README)
    z0 = np.array([0.3 + 0.2j, -0.5 + 0.25j], np.complex64)
    xs = np.array([0.5 - 0.1j, 0.2 + 0.5j, -0.4 + 0.3j], np.complex64)

    def run(M):
        def loss(z):
            c, ys = lax.scan(lambda c, x: (out(M, M.sin(c) * x + c), out(M, M.abs(c) ** 2)), z, xs)
            return out(M, M.sum(M.real(c * M.conj(c)))) + jnp.sum(ys)
        return loss(z0), jax.grad(loss)(z0), jax.jvp(loss, (z0,), (np.ones(2, np.complex64),))
    got, want = both(run)
    same(got, want, rtol=1e-5, atol=1e-6)

    def tj_loss(z):
        c, ys = lax.scan(lambda c, x: (tnp.sin(c) * x + c, tnp.abs(c) ** 2), z, tj.constant(xs))
        return tnp.sum(tnp.real(c * tnp.conj(c))) + tnp.sum(ys)
    _, (g,) = tape_grads(tj.function(tj_loss), z0)
    close(g, np.conj(want[1]), rtol=1e-5, atol=1e-6)


# -- map / associative_scan -------------------------------------------------------------------------------------------

def test_map():
    # testMap / testMapEmpty, with batch_size and a Tensor sequence
    def run(M):
        xs = jnp.arange(10, dtype=F32)
        return (lax.map(lambda x: out(M, M.power(x, 2)), xs), lax.map(lambda x: out(M, M.multiply(x, x)),
                                                                      jnp.array([], F32)),
                lax.map(lambda x: out(M, M.sum(M.sin(x))), jnp.arange(12, dtype=F32).reshape(6, 2), batch_size=4),
                jax.grad(lambda x: jnp.sum(lax.map(lambda v: out(M, M.tanh(v) * v), x)))(xs),
                lax.map(lambda x: x * 2.0, lift(M, np.arange(3, dtype=F32))))
    got, want = both(run)
    same(got, want)
    np.testing.assert_allclose(got[0], np.arange(10) ** 2)
    assert got[1].shape == (0,) and isinstance(got[4], tj.Tensor)
    res = lax.map(lambda x: x * 2.0, tj.Variable([1.0, 2.0]))
    assert isinstance(res, tj.Tensor) and res.numpy().tolist() == [2.0, 4.0]


def test_associative_scan():
    # testAssociativeScanUnstructured (four shapes) / Unstructured1000Reverse (at 50) / Structured3 / OfBools /
    # SolvingRegressionTest (shape 2), and gradients of a product scan
    def run(M):
        def add(a, b):
            return out(M, M.add(a, b))
        res = []
        for shape, axis in (((0,), 0), ((5,), -1), ((2, 3), 1), ((3, 4, 5), -2)):
            data = np.arange(np.prod(shape), dtype=F32).reshape(shape) + 7
            res.append(lax.associative_scan(add, data, axis=axis))
        res.append(lax.associative_scan(add, np.arange(50, dtype=F32) + 32, reverse=True))
        res.append(lax.associative_scan(lambda a, b: Pair(a.first + b.first, M.maximum(a.second, b.second)),
                                        Pair(lift(M, np.array([0.0, 1.0, 2.0], F32)), lift(M, np.array([0.0, 10.0, 5.0],
                                                                                                       F32)))))
        res.append(lax.associative_scan(lambda a, b: out(M, M.logical_xor(a, b)),
                                        jnp.array([False, True, True, True, False, True])))
        solve = jax.vmap(lambda a, b: (out(M, M.add(a[0], b[0])),
                                       out(M, M.linalg.solve(a[0], b[1]) + M.linalg.solve(b[0], a[1]))))
        res.append(lax.associative_scan(solve, (np.repeat(np.eye(2, dtype=F32)[None], 2, 0), np.ones((2, 2), F32))))

        def prod(x):
            return jnp.sum(lax.associative_scan(lambda a, b: out(M, M.multiply(a, b)), x))
        x = np.array([1.0, 2.0, 3.0, 4.0], F32)
        res += [jax.grad(prod)(x), jax.jvp(prod, (x,), (x,))]
        return res
    got, want = both(run)
    same(got, want)
    np.testing.assert_allclose(got[3], np.cumsum(np.arange(60).reshape(3, 4, 5) + 7, axis=-2))
    np.testing.assert_allclose(got[4], np.cumsum((np.arange(50) + 32)[::-1])[::-1])
    np.testing.assert_allclose(got[5].first.numpy(), [0.0, 1.0, 3.0])
    np.testing.assert_allclose(got[5].second.numpy(), [0.0, 10.0, 10.0])
    np.testing.assert_array_equal(got[6], [False, True, False, True, True, False])
    np.testing.assert_allclose(got[8], [33.0, 16.0, 10.0, 6.0])  # d/dx of x1 + x1x2 + x1x2x3 + x1x2x3x4
    # (a) tape over the scan in a tj.function, (b) the products unrolled eagerly
    x = np.array([1.0, 2.0, 3.0, 4.0], F32)
    _, (ga,) = tape_grads(tj.function(lambda x: tnp.sum(lax.associative_scan(tnp.multiply, x))), x)
    _, (gb,) = tape_grads(lambda x: x[0] + x[0] * x[1] + x[0] * x[1] * x[2] + x[0] * x[1] * x[2] * x[3], x)
    close(ga, got[8])
    close(gb, got[8])
