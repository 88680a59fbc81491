"""Bad input and faults.

* A table of every error in API.md's "Errors users get", plus wrong dtypes, mismatched tangents,
  non-tensor Python objects passed to ops, bad shapes and bad tolerances: each raises its exception type
  with a message naming the op or shapes and saying what to do.
* Exceptions inside a tape or accumulator context, a backward kernel, a JVP kernel, a custom_gradient
  grad_fn or a tj.function leave no tape or accumulator active (``tapejax.tape_set.current()``) and nothing
  corrupted; a persistent tape stays usable after a failed ``gradient`` call.
"""
from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from tapejax import tape_set

tnp = tj.numpy


def _x():
    return tj.constant([1.0, 2.0, 3.0])


def _taped(f, persistent=False):
    """(tape, x, f(x)) with x watched."""
    x = _x()
    with tj.GradientTape(persistent=persistent) as t:
        t.watch(x)
        y = f(x)
    return t, x, y


# -- the cases ---------------------------------------------------------------------------------------------

def second_gradient_call():
    t, x, y = _taped(lambda x: x * x)
    t.gradient(y, x)
    t.gradient(y, x)


def output_gradients_wrong_shape():
    t, x, y = _taped(lambda x: x * x)
    t.gradient(y, x, output_gradients=tj.constant([1.0, 2.0]))


def output_gradients_wrong_count():
    t, x, y = _taped(lambda x: x * x)
    t.gradient(y, x, output_gradients=[tj.constant([1.0, 2.0, 3.0])] * 2)


def output_gradients_wrong_count_structure():
    t, x, y = _taped(lambda x: x * x)
    t.gradient([y, y], x, output_gradients=[None, None, None])


def custom_gradient_wrong_count():
    @tj.custom_gradient
    def mul(a, b):
        return a * b, lambda dy: dy  # one gradient for two inputs
    t, x, y = _taped(lambda x: mul(x, x))
    t.gradient(y, x)


def custom_gradient_without_variables_kwarg():
    v = tj.Variable([1.0, 2.0, 3.0])

    @tj.custom_gradient
    def scale(a):
        return a * v, lambda dy: dy * v
    scale(_x())


_while = tj.op(lambda v: jax.lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.0), (0, v))[1],
               name="doubling_loop")


def op_without_gradient():
    t, x, y = _taped(lambda x: tnp.sum(_while(x) * 3.0))
    t.gradient(y, x)


def unknown_aggregation_method():
    @tj.function
    def f(a):
        return tj.gradients(a * a, [a], aggregation_method="bogus")
    f(_x())


def unknown_unconnected_gradients():
    t, x, y = _taped(lambda x: x * x)
    t.gradient(y, x, unconnected_gradients="bogus")


def gradients_outside_function():
    x = _x()
    tj.gradients(x * x, [x])


def batch_jacobian_mismatched_batch():
    a = tj.constant(np.ones((3, 2), np.float32))
    with tj.GradientTape() as t:
        t.watch(a)
        y = tnp.sum(a) * tnp.ones((4, 2))
    t.batch_jacobian(y, a)


def jacobian_no_pfor_non_persistent():
    t, x, y = _taped(lambda x: x * x)
    t.jacobian(y, x, experimental_use_pfor=False)


def tangent_wrong_shape():
    tj.ForwardAccumulator(_x(), tj.constant([1.0, 2.0]))


def tangent_wrong_dtype():
    tj.ForwardAccumulator(_x(), tj.constant([1, 2, 3]))


def tangent_wrong_count():
    x = _x()
    tj.ForwardAccumulator([x, x * 2.0], [tj.constant([1.0, 2.0, 3.0])])


def tangent_nested_shape():
    x = _x()
    tj.ForwardAccumulator({"a": x, "b": x * 2.0}, {"a": np.ones(3, np.float32), "b": np.ones(4, np.float32)})


def primal_not_a_tensor():
    tj.ForwardAccumulator(np.ones(3, np.float32), np.ones(3, np.float32))


def op_given_object():
    tnp.add(_x(), object())


def op_given_none():
    tnp.exp(None)


def op_given_string():
    tnp.exp("abc")


def operator_with_string():
    _x() + "a"


def op_given_dict():
    tnp.multiply(_x(), {"a": 1})


def matmul_shape_mismatch():
    tnp.matmul(np.ones((2, 3), np.float32), tj.constant(np.ones((4, 5), np.float32)))


def broadcast_mismatch_under_tape():
    _taped(lambda x: x + tj.constant(np.ones((4, 5), np.float32)))


def reshape_wrong_size():
    tnp.reshape(_x(), (2, 2))


def float_indices():
    tnp.take(_x(), tj.constant([0.5]))


def float_labels_sparse_xent():
    tj.nn.sparse_softmax_cross_entropy_with_logits(tj.constant([0.0, 1.0]), tj.constant(np.ones((2, 3), np.float32)))


def variable_assign_lossy_dtype():
    tj.Variable([1, 2]).assign([1.5, 2.5])


def variable_assign_wrong_dtype_tensor():
    tj.Variable([1.0, 2.0]).assign(tj.constant([1, 2]))


def variable_assign_wrong_shape():
    tj.Variable([1.0, 2.0]).assign_add([1.0, 2.0, 3.0])


def convert_with_wrong_dtype():
    tj.convert_to_tensor(_x(), dtype=jnp.int32)


def constant_from_string():
    tj.constant("abc")


def watch_object():
    with tj.GradientTape() as t:
        t.watch(object())


def source_not_a_tensor():
    t, x, y = _taped(lambda x: x * x)
    t.gradient(y, [x, "x"])


def truth_of_vector():
    bool(_x() > 1.0)


def tape_entered_twice():
    t = tj.GradientTape()
    with t:
        with t:
            pass


def gradcheck_nan_tolerance():
    tj.debug.gradcheck(lambda a: tnp.sum(a * a), _x(), atol=float("nan"))


def gradcheck_negative_eps():
    tj.debug.gradcheck(lambda a: tnp.sum(a * a), _x(), eps=-1e-3)


def aggregation_threshold_negative():
    tj.config.aggregation_min_bytes = -1


# (case, exception type, regexes that must all appear in the message)
CASES = [
    (second_gradient_call, RuntimeError, [r"non-persistent", r"persistent=True"]),
    (output_gradients_wrong_shape, ValueError, [r"\(2,\)", r"\(3,\)", r"output_gradients"]),
    (output_gradients_wrong_count, ValueError, [r"\b2\b.*\b1\b", r"one per flattened target"]),
    (output_gradients_wrong_count_structure, ValueError, [r"\b3\b.*\b2\b", r"one per flattened target"]),
    (custom_gradient_wrong_count, ValueError, [r"'mul'", r"returned 1 gradients", r"expected 2"]),
    (custom_gradient_without_variables_kwarg, TypeError, [r"'scale'", r"variables"]),
    (op_without_gradient, LookupError, [r"'doubling_loop'", r"gradient"]),
    (unknown_aggregation_method, ValueError, [r"bogus", r"AggregationMethod"]),
    (unknown_unconnected_gradients, ValueError, [r"bogus", r"UnconnectedGradients"]),
    (gradients_outside_function, RuntimeError, [r"tj.function", r"GradientTape"]),
    (batch_jacobian_mismatched_batch, ValueError, [r"\(4, 2\)", r"\(3, 2\)", r"first dimension"]),
    (jacobian_no_pfor_non_persistent, RuntimeError, [r"persistent=True", r"experimental_use_pfor"]),
    (tangent_wrong_shape, ValueError, [r"\(2,\)", r"\(3,\)", r"tangent"]),
    (tangent_wrong_dtype, ValueError, [r"int32", r"float32", r"astype"]),
    (tangent_wrong_count, ValueError, [r"2 primals", r"1 tangents"]),
    (tangent_nested_shape, ValueError, [r"\(4,\)", r"\(3,\)"]),
    (primal_not_a_tensor, ValueError, [r"ndarray", r"tj.constant"]),
    (op_given_object, TypeError, [r"'add'", r"argument 1", r"object", r"tj.constant"]),
    (op_given_none, TypeError, [r"'exp'", r"NoneType", r"tj.constant"]),
    (op_given_string, TypeError, [r"'exp'", r"str", r"tj.constant"]),
    (operator_with_string, TypeError, [r"'add'", r"str"]),
    (op_given_dict, TypeError, [r"'multiply'", r"dict"]),
    (matmul_shape_mismatch, TypeError, [r"'matmul'", r"\[2, 3\]", r"\[4, 5\]", r"Fix"]),
    (broadcast_mismatch_under_tape, (TypeError, ValueError), [r"'add'", r"\[3\]", r"\[4, 5\]"]),
    (reshape_wrong_size, TypeError, [r"'reshape'", r"\(2, 2\)", r"\[3\]"]),
    (float_indices, TypeError, [r"'take'", r"integer"]),
    (float_labels_sparse_xent, TypeError, [r"sparse_softmax_cross_entropy_with_logits", r"float32", r"int32"]),
    (variable_assign_lossy_dtype, TypeError, [r"int32", r"without loss", r"unchanged"]),
    (variable_assign_wrong_dtype_tensor, ValueError, [r"int32", r"float32", r"astype"]),
    (variable_assign_wrong_shape, ValueError, [r"\(3,\)", r"\(2,\)", r"unchanged"]),
    (convert_with_wrong_dtype, ValueError, [r"float32", r"int32", r"astype"]),
    (constant_from_string, TypeError, [r"str", r"tj.Tensor"]),
    (watch_object, ValueError, [r"object", r"tj.constant"]),
    (source_not_a_tensor, ValueError, [r"str", r"source"]),
    (truth_of_vector, ValueError, [r"\(3,\)", r"any|all"]),
    (tape_entered_twice, ValueError, [r"still recording"]),
    (gradcheck_nan_tolerance, ValueError, [r"atol", r"nan"]),
    (gradcheck_negative_eps, ValueError, [r"eps=-0.001", r"> 0"]),
    (aggregation_threshold_negative, ValueError, [r"aggregation_min_bytes", r"-1"]),
]


def _clean_state():
    s = tape_set.current()
    assert s.tapes == [] and s.accumulators == [], (s.tapes, s.accumulators)
    assert s.stopped == 0 and s.capture is None and s.variable_watchers == []


@pytest.mark.parametrize("case,exc,patterns", CASES, ids=[c[0].__name__ for c in CASES])
def test_error_table(case, exc, patterns):
    with pytest.raises(exc) as info:
        case()
    msg = str(info.value)
    for p in patterns:
        assert re.search(p, msg, re.IGNORECASE), f"{case.__name__}: {p!r} not in message:\n{msg}"
    assert "Traceback" not in msg
    _clean_state()


def test_watching_non_float_warns_then_none():
    i = tj.constant([1, 2])
    with tj.GradientTape() as t:
        with pytest.warns(UserWarning, match=r"int32.*None"):
            t.watch(i)
        y = i * 2
    assert t.gradient(y, i) is None
    v = tj.Variable([1, 2])
    with tj.GradientTape() as t:
        with pytest.warns(UserWarning, match=r"int32"):
            t.watch(v)
        y = v * 2
    assert t.gradient(y, v) is None


def test_non_float_primal_warns():
    with pytest.warns(UserWarning, match=r"int32"):
        acc = tj.ForwardAccumulator(tj.constant([1, 2]), tj.constant([1, 2]))
    assert acc is not None


def test_gradient_of_int_source_is_none_not_an_error():
    x = _x()
    i = tj.constant([1, 2, 3])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with tj.GradientTape() as t:
            t.watch([x, i])
            y = tnp.sum(x * i)
    gx, gi = t.gradient(y, [x, i])
    np.testing.assert_allclose(gx.numpy(), [1.0, 2.0, 3.0])
    assert gi is None


def test_no_error_leaves_a_variable_changed():
    v = tj.Variable([1.0, 2.0])
    for bad in ([1.0, 2.0, 3.0], tj.constant([1, 2]), "x"):
        with pytest.raises((ValueError, TypeError)):
            v.assign(bad)
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


# -- faults leave no state behind ----------------------------------------------------------------------

class Boom(Exception):
    pass


def test_exception_inside_tape_context():
    x = _x()
    with pytest.raises(Boom):
        with tj.GradientTape() as t:
            t.watch(x)
            y = x * x
            raise Boom()
    _clean_state()
    # the tape recorded up to the fault and still differentiates that
    np.testing.assert_allclose(t.gradient(y, x).numpy(), [2.0, 4.0, 6.0])


def test_exception_inside_nested_tapes_accumulators_and_stop_recording():
    x = _x()
    with pytest.raises(Boom):
        with tj.GradientTape() as outer:
            outer.watch(x)
            with tj.ForwardAccumulator(x, tj.constant([1.0, 0.0, 0.0])):
                with tj.GradientTape(persistent=True) as inner:
                    inner.watch(x)
                    with tj.stop_recording():
                        with inner.stop_recording():
                            raise Boom()
    _clean_state()
    assert not inner._tape.paused


def test_exception_inside_accumulator_context():
    x = _x()
    with pytest.raises(Boom):
        with tj.ForwardAccumulator(x, tj.constant([1.0, 1.0, 1.0])) as acc:
            y = x * 3.0
            raise Boom()
    _clean_state()
    np.testing.assert_allclose(acc.jvp(y).numpy(), [3.0, 3.0, 3.0])
    with acc:  # can be entered again
        z = y * 2.0
    np.testing.assert_allclose(acc.jvp(z).numpy(), [6.0, 6.0, 6.0])
    _clean_state()


def _flaky_op(fail: list):
    def vjp(primals, cts):
        if fail:
            fail.pop()
            raise Boom("backward kernel failed")
        return (2.0 * primals[0] * cts,)
    return tj.op(lambda a: a * a, name="flaky_square", vjp=vjp)


def test_persistent_tape_usable_after_failed_backward_kernel():
    fail = [True]
    sq = _flaky_op(fail)
    x = _x()
    with tj.GradientTape(persistent=True) as t:
        t.watch(x)
        y = tnp.sum(sq(x))
        z = tnp.sum(x * 3.0)
    with pytest.raises(Boom, match="flaky_square"):
        t.gradient(y, x)
    _clean_state()
    assert t._tape is not None and not t._tape.paused
    np.testing.assert_allclose(t.gradient(z, x).numpy(), [3.0, 3.0, 3.0])
    np.testing.assert_allclose(t.gradient(y, x).numpy(), [2.0, 4.0, 6.0])  # the same target, now working
    np.testing.assert_allclose(t.jacobian(y, x).numpy(), [2.0, 4.0, 6.0])


def test_failed_backward_kernel_under_outer_tape():
    fail = [True]
    sq = _flaky_op(fail)
    x = _x()
    with tj.GradientTape() as outer:
        outer.watch(x)
        with tj.GradientTape(persistent=True) as inner:
            inner.watch(x)
            y = tnp.sum(sq(x))
        with pytest.raises(Boom):
            inner.gradient(y, x)
        g = inner.gradient(y, x)
        s = tnp.sum(g)
    np.testing.assert_allclose(outer.gradient(s, x).numpy(), [2.0, 2.0, 2.0])
    _clean_state()


def test_non_persistent_tape_after_failed_gradient():
    sq = _flaky_op([True])
    t, x, y = _taped(lambda x: tnp.sum(sq(x)))
    with pytest.raises(Boom):
        t.gradient(y, x)
    _clean_state()
    with pytest.raises(RuntimeError, match="non-persistent"):  # consumed, as in TF
        t.gradient(y, x)


def test_exception_in_custom_gradient_grad_fn():
    calls = []

    @tj.custom_gradient
    def clip_grad(a):
        def grad(dy):
            calls.append(1)
            if len(calls) == 1:
                raise Boom("grad_fn failed")
            return tnp.clip(dy, -0.5, 0.5)
        return a * 1.0, grad

    x = _x()
    with tj.GradientTape(persistent=True) as t:
        t.watch(x)
        y = tnp.sum(clip_grad(x) * 2.0)
    with pytest.raises(Boom, match="grad_fn failed"):
        t.gradient(y, x)
    _clean_state()
    np.testing.assert_allclose(t.gradient(y, x).numpy(), [0.5, 0.5, 0.5])
    # and under an outer tape and an accumulator (grad_fn transposed for the JVP)
    calls.clear()
    with tj.GradientTape() as outer:
        outer.watch(x)
        with tj.GradientTape() as inner:
            inner.watch(x)
            y = tnp.sum(clip_grad(x))
        with pytest.raises(Boom):
            inner.gradient(y, x)
    _clean_state()
    calls.clear()
    with pytest.raises(Boom):
        with tj.ForwardAccumulator(x, tj.constant([1.0, 1.0, 1.0])):
            clip_grad(x)
    _clean_state()


def test_exception_in_jvp_kernel():
    def bad_jvp(primals, tangents):
        raise Boom("jvp kernel failed")
    f = tj.op(lambda a: a * 2.0, name="bad_jvp_op", jvp=bad_jvp)
    x = _x()
    acc = tj.ForwardAccumulator(x, tj.constant([1.0, 1.0, 1.0]))
    with pytest.raises(Boom):
        with acc:
            f(x)
    _clean_state()
    assert not acc._acc.paused
    with acc:
        y = x * 5.0
    np.testing.assert_allclose(acc.jvp(y).numpy(), [5.0, 5.0, 5.0])


def test_exception_inside_function_leaves_no_state_and_variables_unchanged():
    v = tj.Variable([1.0, 2.0])

    @tj.function
    def step(x, fail):
        with tj.GradientTape() as t:
            y = tnp.sum(v * x)
        v.assign_sub(t.gradient(y, v))
        if fail:
            raise Boom()
        return y

    with tj.GradientTape() as outer:
        with pytest.raises(Boom):
            step(tj.constant([1.0, 1.0]), True)
        assert tape_set.current().tapes == [outer._tape] and tape_set.current().capture is None
    _clean_state()
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    step(tj.constant([1.0, 1.0]), False)
    np.testing.assert_array_equal(v.numpy(), [0.0, 1.0])


def test_exception_in_watched_variable_read_inside_custom_gradient():
    v = tj.Variable([1.0, 2.0, 3.0])

    @tj.custom_gradient
    def f(a):
        _ = a * v
        raise Boom()

    with pytest.raises(Boom):
        with tj.GradientTape():
            f(_x())
    _clean_state()


# -- found by tools/tf_bad_input_differential.py (TF 2.21 raises for each; tapejax crashed, or said nothing useful)

def test_text_is_not_parsed_as_numbers():
    # TF: TypeError; jnp.asarray('1.5', float32) would parse it
    for f in (lambda: tj.constant("1.5", dtype="float32"), lambda: tj.constant(["1.5", 2.0], dtype="float32"),
              lambda: tj.clip_by_norm(tj.constant([3.0, 4.0]), "1.5")):
        with pytest.raises(TypeError, match="holds text"):
            f()
    v = tj.Variable([1.0])
    with pytest.raises(TypeError, match="holds text"):
        v.assign(["2.5"])
    assert v.numpy().tolist() == [1.0]


def test_text_without_a_dtype_is_refused_before_jax_reads_it_as_a_dtype_name():
    # jnp.asarray('a') took 'a' for a dtype's name (NumPy 2's DeprecationWarning "Data type alias 'a'", then
    # jax's words about <U1): refused first, naming the text, as an error (TF makes a tf.string tensor; tapejax has
    # no string dtype); a number list still converts
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for value in ("a", b"a", ["a", "b"], [["float32"]]):
            with pytest.raises(TypeError, match="holds text: tapejax has no string dtype"):
                tj.constant(value)
        with pytest.raises(TypeError, match="holds text"):
            tj.clip_by_global_norm([tj.constant([3.0, 4.0]), "a"], 1.0)
        assert tj.constant([[1.0, 2.0]]).numpy().tolist() == [[1.0, 2.0]]


def test_half_precision_linear_algebra_names_the_op():
    # jaxlib's LAPACK calls raise a bare NotImplementedError(KeyError(float16)); TF has no kernel (NotFoundError)
    a = tj.constant(np.eye(3) * 2, dtype="float16")
    for name, f in (("det", tnp.linalg.det), ("cholesky", tnp.linalg.cholesky), ("svd", tnp.linalg.svd),
                    ("solve", lambda m: tnp.linalg.solve(m, m)), ("lstsq", lambda m: tnp.linalg.lstsq(m, m)),
                    ("norm", lambda m: tnp.linalg.norm(m, ord=2)),
                    ("norm", lambda m: tnp.linalg.matrix_norm(m, ord="nuc")),
                    ("eigvals", lambda m: tnp.roots(m[0]))):
        with pytest.raises(TypeError, match=f"{name}.*float16.*float32"):
            f(a)
        with tj.GradientTape() as tape:  # (deferred: the kernel would fail only when the step runs)
            tape.watch(a)
            with pytest.raises(TypeError, match="float16"):
                f(a)
    assert tnp.linalg.matrix_power(a, 2).dtype == np.float16  # (no LAPACK there)
    assert tnp.linalg.norm(a).dtype == np.float16 and tnp.linalg.norm(a, ord=1).dtype == np.float16


def test_axes_of_a_scalar():
    s = tj.constant(2.0)
    for f in (lambda: tj.nn.logsumexp(s, axis=(0, 1)), lambda: tj.nn.softmax(s, axis=(0,)),
              lambda: tnp.mean(s, axis=0), lambda: tnp.var(s, axis=0), lambda: tnp.take(s, 0, axis=0)):
        with pytest.raises(ValueError, match="out of (bounds|range).*rank 0"):
            f()
    with pytest.raises(ValueError, match="rank at least 2"):
        tnp.linalg.det(s)


def test_reshape_with_a_minus_one_among_zero_sizes():
    x = tj.constant(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="6 values cannot take the shape"):
        tnp.reshape(x, (0, -1))
    # an empty tensor: TF's inferred size (its nonzero sizes over the other nonzero ones; TF 2.21: (3, 0))
    assert tnp.reshape(tj.constant(np.ones((0, 3), np.float32)), (-1, 0)).shape == (3, 0)
    assert tnp.reshape(tj.constant(np.ones((0, 3), np.float32)), (-1, 3)).shape == (0, 3)
    # TF 2.21's shapes of tf.reshape(zeros(shape), new) for empty tensors
    for shape, new, tf_shape in (
            ((0, 6), (0, -1, 3), (0, 2, 3)), ((0, 6), (0, -1), (0, 6)), ((0, 6), (-1, 0), (6, 0)),
            ((0, 6), (0, -1, 4), (0, 1, 4)), ((0, 6), (0, -1, 7), (0, 0, 7)), ((2, 0, 3), (0, -1), (0, 6)),
            ((2, 0, 3), (-1, 0, 2), (3, 0, 2)), ((0,), (0, -1), (0, 1)), ((0, 0), (0, -1), (0, 1)),
            ((0, 6), (3, -1, 0), (3, 2, 0)), ((0, 6), (1, -1, 5), (1, 0, 5))):
        x = tj.constant(np.zeros(shape, np.float32))
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = tnp.reshape(x, new)
        assert y.shape == tf_shape and x.reshape(new).shape == tf_shape
        assert tape.gradient(y, x).shape == shape


def test_relus_of_bool_as_jax_nn():
    x = tj.constant([True, False])
    assert str(tj.nn.relu(x).dtype) == "int32" and tj.nn.relu(x).numpy().tolist() == [1, 0]
    assert str(tj.nn.relu6(x).dtype) == "float32" and str(tj.nn.leaky_relu(x).dtype) == "float32"


def test_selu_and_soft_sign_of_ints_and_bools_as_jax_nn():
    """jax.nn.selu gives floats for integer and bool inputs ([-1.5202, 0, 3.1521]); tj.nn.selu cast its result back
    to the input's dtype (int32 [-1, 0, 3]; bool [True, False, True]). jax.nn.soft_sign of bools gives [0.5, 0];
    tj.nn.soft_sign raised a TypeError from jnp.sign."""
    for x in (np.array([-2, 0, 3], np.int32), np.array([-2, 0, 3], np.int8), np.array([True, False])):
        for name in ("selu", "soft_sign"):
            got, want = getattr(tj.nn, name)(x), getattr(jax.nn, name)(x)
            assert got.dtype == want.dtype == np.float32, (name, x.dtype)
            np.testing.assert_allclose(got.numpy(), np.asarray(want), rtol=1e-6)


def test_normalizations_and_losses_refuse_integer_inputs_as_tf():
    """TF 2.21 refuses int32 features of FusedBatchNorm, layer normalization's moments, and int32 logits of both
    softmax cross-entropies (InvalidArgumentError: "Value for attr 'T' of int32 is not in the list"), uint8 sparse
    labels ("Tlabels"), and logits with no class ("Must have at least one class"). tapejax normalized integers in
    floats and cast back, truncating (batch_norm gave [[0, 0, 0], [1, 1, 1], [-1, 0, 0]]), gave the dense loss of
    int logits, raised "cannot convert float NaN to integer" for sparse int logits, and NaN for no class."""
    xi = np.array([[1, 2, 3], [4, 5, 6], [-3, 1, 2]], np.int32)
    with pytest.raises(TypeError, match="batch_norm: x must be a floating point tensor, got dtype int32"):
        tj.nn.batch_norm(xi, np.ones(3, np.float32), np.zeros(3, np.float32))
    with pytest.raises(TypeError, match="layer_norm: x must be a floating point tensor"):
        tj.nn.layer_norm(xi)
    with pytest.raises(TypeError, match="softmax_cross_entropy_with_logits: logits must be a floating point"):
        tj.nn.softmax_cross_entropy_with_logits(np.eye(3, dtype=np.float32), xi)
    with pytest.raises(TypeError, match="sparse_softmax_cross_entropy_with_logits: logits must be a floating"):
        tj.nn.sparse_softmax_cross_entropy_with_logits(np.array([0, 1, 2], np.int32), xi)
    with pytest.raises(TypeError, match="labels must be int32 or int64"):
        tj.nn.sparse_softmax_cross_entropy_with_logits(np.array([0, 1, 2], np.uint8), xi.astype(np.float32))
    with pytest.raises(ValueError, match="at least one class"):
        tj.nn.sparse_softmax_cross_entropy_with_logits(np.array([0], np.int32), np.zeros((1, 0), np.float32))
    # (Python-list labels are int64 arrays: taken, as TF converts them)
    loss = tj.nn.sparse_softmax_cross_entropy_with_logits([0, 2], np.zeros((2, 3), np.float32))
    np.testing.assert_allclose(loss.numpy(), [np.log(3.0)] * 2, rtol=1e-6)


def test_stack_and_clip_by_norm_arguments_name_the_op():
    x = tj.constant([[3.0, 4.0]])
    with pytest.raises(TypeError, match="'stack': axis must be an integer"):
        tnp.stack([x, x], axis=[0])
    with pytest.raises(TypeError, match="clip_by_norm: axes=1.0"):
        tj.clip_by_norm(x, 1.0, axes=1.0)
    with pytest.raises(ValueError, match="clip_by_norm: axes=5"):
        tj.clip_by_norm(x, 1.0, axes=5)
    with pytest.raises(ValueError, match="clip_by_norm: t"):
        tj.clip_by_norm(None, 1.0)
    # (a complex clip_norm for a float t: the conversion's TypeError, named as the op's; seed 910277 of
    # tools/tf_bad_input_differential.py; TF raises TypeError too, from its comparison with 0)
    with pytest.raises(TypeError, match="clip_by_norm: clip_norm: .*1j"):
        tj.clip_by_norm(tj.constant(np.ones((2, 3), np.float16)), 1j)
    with pytest.raises(TypeError, match="clip_by_global_norm: clip_norm: .*1j"):
        tj.clip_by_global_norm([tj.constant(np.ones((2, 3), np.float16))], 1j)
    with pytest.raises(ValueError, match="clip_by_global_norm: clip_norm: .*None"):
        tj.clip_by_global_norm([x], None)


def test_a_result_no_device_can_hold_raises_instead_of_aborting_the_process():
    # XLA aborts the whole process (an abseil CHECK) on an array whose byte size overflows a 64-bit product, for
    # jax.numpy's own calls too (jnp.zeros((10**8,) * 3)); tapejax raises ShapeError (a ValueError, as TF's
    # InvalidArgumentError "Encountered overflow") before compiling it: ops when traced, constructors before they
    # run, tj.constant's fill. In a subprocess, as a regression would end the interpreter.
    code = textwrap.dedent("""
        import numpy as np, tapejax as tj
        tnp = tj.numpy
        x, v = tj.constant(np.ones((1, 1, 1), np.float32)), tj.constant(np.ones(2, np.float32))
        big = (10 ** 8,) * 3
        calls = {
            "tile": lambda: tnp.tile(x, list(big)), "diag": lambda: tnp.diag(v, k=10 ** 12),
            "pad": lambda: tnp.pad(x, 10 ** 8), "broadcast_to": lambda: tnp.broadcast_to(x, big),
            "zeros": lambda: tnp.zeros(big), "ones": lambda: tnp.ones((2 ** 31, 2 ** 31)),
            "full": lambda: tnp.full(big, 1.0), "fill": lambda: tnp.full(big, v[0]), "empty": lambda: tnp.empty(big),
            "eye": lambda: tnp.eye(10 ** 10), "tri": lambda: tnp.tri(10 ** 10),
            "zeros_like": lambda: tnp.zeros_like(x, shape=big),
            "arange": lambda: tnp.arange(0, 1, 1e-30), "linspace": lambda: tnp.linspace(0, 1, 10 ** 19),
            "rank 64": lambda: tnp.zeros((2,) * 64), "constant": lambda: tj.constant(1.0, shape=[2 ** 31, 2 ** 31]),
        }
        for name, call in calls.items():
            for how in ("eager", "tape", "function"):
                try:
                    if how == "tape":
                        with tj.GradientTape() as tape:
                            tape.watch([x, v])
                            call()
                    elif how == "function":
                        tj.function(call)()
                    else:
                        call()
                    print(name, how, "returned")
                except ValueError as e:
                    print(name, how, "ValueError", "2**62 bytes" in str(e))
        print("done")
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0 and lines[-1] == "done", (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    assert len(lines) == 16 * 3 + 1
    for line in lines[:-1]:
        assert line.endswith("ValueError True"), line


@pytest.mark.parametrize("og", [tj.constant([1 + 2j, 3j], jnp.complex64), np.array([1 + 2j, 3j]),
                                tj.constant([1, 2]), tj.constant([1.0, 2.0], jnp.float16),
                                tj.constant([True, False])])
def test_output_gradients_of_another_dtype_raise(og):
    """TF 2.21: tape.gradient(x * x, x, output_gradients=og) for float32 x = [1.5, 2.25] raises
    InvalidArgumentError ("cannot compute Mul as input #1 was expected to be a complex64 tensor but is a float
    tensor") for a complex64, int32, float16 or bool Tensor og and for a complex NumPy og. tapejax returned
    [3.0, 0.0] for og = [1+2j, 3j] (the imaginary part dropped, silently) and cast the others."""
    x = tj.constant([1.5, 2.25])
    with tj.GradientTape() as t:
        t.watch(x)
        y = x * x
    with pytest.raises(ValueError, match="output_gradients of dtype .* does not match its target of dtype float32"):
        t.gradient(y, x, output_gradients=og)


def test_output_gradients_values_are_converted_to_the_target_dtype():
    """Python numbers, lists and real NumPy arrays are values (API.md), converted to the target's dtype: a NumPy
    float64 array for a float32 target gives 2 * x * og = [3.0, 9.0] (TF, which wants a float32 tensor there,
    raises), and a float16 target takes a Python list."""
    x = tj.constant([1.5, 2.25])
    with tj.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x
    np.testing.assert_allclose(t.gradient(y, x, output_gradients=np.array([1.0, 2.0])), [3.0, 9.0])
    x16 = tj.constant([1.5, 2.25], jnp.float16)
    with tj.GradientTape() as t:
        t.watch(x16)
        y = x16 * x16
    g = t.gradient(y, x16, output_gradients=[1.0, 2.0])
    assert g.dtype == jnp.float16
    np.testing.assert_allclose(np.asarray(g, np.float32), [3.0, 9.0])


def test_output_gradients_for_an_int_target_are_not_checked():
    """An int target has no gradient whatever output gradient is given: cast(x, int32) with a float32 og gives
    None, not a dtype error (as before the check; TF 2.21 passes the og through, [1, 1], a known difference)."""
    x = tj.constant([1.5, 2.5])
    with tj.GradientTape() as t:
        t.watch(x)
        y = tj.numpy.astype(x, jnp.int32)
    assert t.gradient(y, x, output_gradients=tj.constant([1.0, 1.0])) is None
