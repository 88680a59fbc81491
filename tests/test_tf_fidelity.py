"""Tape, accumulator and Jacobian behaviour checked value for value against TensorFlow 2.21 (issue 13).

Each test names the TF test (backprop_test, forwardprop_test, gradients_test) whose behaviour it pins.
"""
import gc
import math
import weakref

import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy


@pytest.fixture
def eager():
    with tj.config.override(lazy=False):
        yield


# -- item 1: only watched tensors (and what was computed from them) receive gradients -----------------

def _unwatched_source(persistent):
    x, c = tj.constant(3.), tj.constant(2.)
    with tj.GradientTape(persistent=persistent) as t:
        t.watch(x)
        y = x * x * c
    return t, x, c, y


@pytest.mark.parametrize("persistent", [True, False])
def test_unwatched_constant_source_gets_none(persistent):
    # backprop_test testGradientNoneForUnwatchedTensor-like: TF's tape deletes the gradient of an
    # input it does not know (tape.h ComputeGradient "has no associated op. Deleting gradient").
    t, x, c, y = _unwatched_source(persistent)
    gx, gc_ = t.gradient(y, [x, c])
    assert gc_ is None
    assert float(gx) == pytest.approx(12.0)
    if persistent:
        assert t.gradient(y, c) is None
        assert float(t.gradient(y, c, unconnected_gradients="zero")) == 0.0


def test_unwatched_constant_source_gets_none_eager(eager):
    t, x, c, y = _unwatched_source(True)
    assert t.gradient(y, c) is None
    assert float(t.gradient(y, x)) == pytest.approx(12.0)


@pytest.mark.parametrize("persistent", [True, False])
def test_unwatched_constant_source_gets_none_replayed(replay_now, persistent):
    for _ in range(4):
        t, x, c, y = _unwatched_source(persistent)
        gx, gc_ = t.gradient(y, [x, c])
        assert gc_ is None
        assert float(gx) == pytest.approx(12.0)
    assert t.last_replay.startswith("replayed"), t.last_replay


def test_unwatched_source_that_is_target_still_gets_ones():
    # TF: a target that is also a source seeds its own gradient (sources_that_are_targets).
    c = tj.constant(2.)
    with tj.GradientTape() as t:
        pass
    assert float(t.gradient(c, c)) == 1.0


# -- item 6: a tape sees the JVP computations of accumulators entered after it only ------------------

@pytest.mark.parametrize("forward_first", [True, False])
def test_forward_over_backward_tape_ignores_outer_accumulator(forward_first):
    # forwardprop_test testForwardOverBackwardMemoryEfficiency: nesting (order of entering), not
    # creation order, decides; re-entering a tape puts it innermost.
    c = tj.constant(1.)
    if forward_first:
        acc_cm, tape_cm = tj.ForwardAccumulator(c, .1), tj.GradientTape()
    else:
        tape_cm, acc_cm = tj.GradientTape(), tj.ForwardAccumulator(c, .1)
    with tape_cm:
        pass
    with acc_cm as acc:
        with tape_cm as tape:
            tape.watch(c)
            d = tnp.cos(c)
            e = tnp.cos(acc.jvp(d))
            tnp.cos(e)
            weak_e = weakref.ref(e)
            del e
            gc.collect()
            assert weak_e() is None
        assert tape.gradient(acc.jvp(d), c) is None


@pytest.mark.parametrize("forward_first", [True, False])
def test_backward_over_forward_tape_sees_inner_accumulator(forward_first):
    # forwardprop_test testBackwardOverForward
    c = tj.constant(1.)
    if forward_first:
        acc_cm, tape_cm = tj.ForwardAccumulator(c, .1), tj.GradientTape()
    else:
        tape_cm, acc_cm = tj.GradientTape(), tj.ForwardAccumulator(c, .1)
    with tape_cm as tape:
        with acc_cm as acc:
            tape.watch(c)
            d = tnp.cos(c)
        g = tape.gradient(acc.jvp(d), c)
    assert float(g) == pytest.approx(-.1 * math.cos(1.), rel=1e-5)


def test_forward_over_backward_hvp_still_works():
    # forwardprop_test: the accumulator outside the tape differentiates the tape's gradient (HVP).
    v = tj.Variable([1., 2.])
    with tj.ForwardAccumulator(v, tj.constant([1., 0.])) as acc:
        with tj.GradientTape() as tape:
            y = tnp.sum(v ** 3.)
        backward = tape.gradient(y, v)
    np.testing.assert_allclose(np.asarray(backward), [3., 12.])
    np.testing.assert_allclose(np.asarray(acc.jvp(backward)), [6., 0.])


# -- item 7: watched_variables() in order of creation ----------------------------------------------

def test_watched_variables_in_order_of_creation():
    # backprop_test testImplicitGradOrdering / GradientTape.watched_variables' docstring ("in order of
    # construction"): read order does not matter.
    v0, v1, v2 = tj.Variable(1.), tj.Variable(2.), tj.Variable(3.)
    with tj.GradientTape() as t:
        y = v2 * v1
        t.watch(v0)
        y = y + v0 * v0
    assert [v is w for v, w in zip(t.watched_variables(), (v0, v1, v2))] == [True] * 3
    t.gradient(y, [v0])
    # also once a non-persistent tape was used
    assert [v is w for v, w in zip(t.watched_variables(), (v0, v1, v2))] == [True] * 3


def test_watched_variables_in_order_of_creation_after_jacobian():
    v0, v1 = tj.Variable([1., 2.]), tj.Variable([3., 4.])
    with tj.GradientTape() as t:
        y = v1 * v0
    t.jacobian(y, v0, experimental_use_pfor=True)
    assert t.watched_variables()[0] is v0 and t.watched_variables()[1] is v1


# -- item 10: the accumulator drops the tangent of a watched primal once the primal dies -------------

def test_dead_watched_primal_tangent_cleared():
    # forwardprop_test testDeadTensorsJVPCleared
    x = tj.constant([1., 2.])
    tangent = tj.constant([.1, .2])
    weak_tangent = weakref.ref(tangent)
    with tj.ForwardAccumulator(x, tangent) as acc:
        y = x * 2.
        weak_y_tangent = weakref.ref(acc.jvp(y))
        np.testing.assert_allclose(np.asarray(acc.jvp(x)), [.1, .2])
        del tangent
        gc.collect()
        assert weak_tangent() is not None  # the primal is alive: its tangent stays
        del x, y
        gc.collect()
        assert weak_tangent() is None
        assert weak_y_tangent() is None


# -- item 11: batch_jacobian needs rank >= 2; tj.gradients of a complex y needs grad_ys -------------

@pytest.mark.parametrize("which", ["target", "source"])
def test_batch_jacobian_rank_one_raises(which):
    # backprop_test testBatchJacobianBadShapes-like: TF's with_rank_at_least(2) ValueError.
    x = tj.constant([1., 2., 3.])
    x2 = tj.constant([[1.], [2.], [3.]])
    with tj.GradientTape(persistent=True) as t:
        t.watch([x, x2])
        y = x * 2.
        y2 = x2 * 2.
    target, source = (y, x2) if which == "target" else (y2, x)
    with pytest.raises(ValueError, match=r"Shape \(3,\) must have rank at least 2") as info:
        t.batch_jacobian(target, source)
    assert "batch_jacobian" in str(info.value)


def test_batch_jacobian_mismatched_batch_wording():
    # backprop_test testBatchJacobianBadShapes: TF's wording, full shapes.
    x = tj.constant(np.ones((4, 2), np.float32))
    s = tj.constant(np.ones((3, 2), np.float32))
    with tj.GradientTape(persistent=True) as t:
        t.watch([x, s])
        y = x * 2.
    with pytest.raises(ValueError, match=r"Need first dimension of target shape \(4, 2\) and source shape "
                                         r"\(3, 2\) to match"):
        t.batch_jacobian(y, s)


def test_gradients_complex_y_without_grad_ys_raises():
    # gradients_test testDefaultGradYsComplex-like (gradients_util._DefaultGradYs): TypeError.
    @tj.function
    def f(x):
        z = tnp.exp(x * tj.constant(1j, dtype=np.complex64))
        return tj.gradients(z, x)

    with pytest.raises(TypeError, match=r"Gradients of complex tensors .* must set grad_ys"):
        f(tj.constant(1., dtype=np.complex64))


def test_gradients_complex_y_with_grad_ys_works():
    @tj.function
    def f(x):
        z = x * x
        return tj.gradients(z, x, grad_ys=tj.constant(1. + 0j, dtype=np.complex64))

    (g,) = f(tj.constant(2. + 1j, dtype=np.complex64))
    assert g is not None


# -- item 12: gradient(None, ...) is a TypeError naming the argument ------------------------------

def test_gradient_of_none_target_raises_type_error():
    # backprop_test testGradientNoneTarget-like: TF raises TypeError for target=None.
    x = tj.constant(3.)
    with tj.GradientTape() as t:
        t.watch(x)
    with pytest.raises(TypeError, match=r"Argument `target` should be a list or nested structure"):
        t.gradient(None, x)


# -- item 13: TF's wording for the errors users search for; values shown whole ----------------------

def test_tape_reentered_while_recording_wording():
    t = tj.GradientTape()
    with t:
        with pytest.raises(ValueError, match=r"Tape is still recording, This can happen if you try to "
                                             r"re-enter an already-active tape"):
            t.__enter__()


def test_accumulator_reentered_wording():
    x = tj.constant(1.)
    acc = tj.ForwardAccumulator(x, 1.)
    with acc:
        with pytest.raises(ValueError, match=r"Accumulator is already recording"):
            acc.__enter__()


def test_primal_given_twice_wording():
    # forwardprop_test testMultipleWatchesAdd's ValueError: "... specified as a primal multiple times"
    x = tj.constant(1.)
    with pytest.raises(ValueError, match=r"was specified as a primal multiple times"):
        tj.ForwardAccumulator([x, x], [1., 2.])


def test_constant_bad_dtype_blames_the_dtype():
    with pytest.raises(TypeError) as info:
        tj.constant([1.0], dtype="floaty")
    msg = str(info.value)
    assert "dtype" in msg and "'floaty'" in msg
    assert not msg.startswith("Cannot convert list")


def test_conversion_error_shows_the_whole_value():
    value = ["a" * 50, "b" * 50]
    with pytest.raises(TypeError) as info:
        tj.constant(value, dtype=np.float32)
    assert repr(value) in str(info.value)


def test_tensor_where_number_expected_names_that():
    # Inside a trace a Tensor's value is not known when the op is built: say so (not "unhashable").
    @tj.function
    def f(x, c):
        return tnp.pad(x, 1, constant_values=c)

    with pytest.raises(TypeError) as info:
        f(tj.constant([1., 2.]), tj.constant(0.))
    msg = str(info.value)
    assert "argument `constant_values` is a Tensor where a Python number is expected" in msg
    assert "unhashable" not in msg
    assert "pad" in msg


def test_concrete_scalar_tensor_as_static_argument():
    # API.md: a scalar Tensor is accepted wherever a Python number is expected as a static argument.
    x = tj.constant([1., 2.])
    np.testing.assert_allclose(np.asarray(tnp.pad(x, 1, constant_values=tj.constant(5.))), [5., 1., 2., 5.])


# -- dicts come back with their keys in the order given (tf.nest.pack_sequence_as), not sorted -------------

def test_dicts_keep_their_key_order_in_gradients_jacobians_jvps_and_function_outputs():
    # TF 2.21 (this host): tape.gradient(z, {"b": x, "a": y}) and tape.jacobian(...) give keys ['b', 'a'];
    # acc.jvp({"z": .., "a": ..}) ['z', 'a']; a tf.function returning {"z": .., "a": ..} ['z', 'a']; nested
    # dicts inside lists, tuples and namedtuples alike
    import collections
    Pair = collections.namedtuple("Pair", "first second")
    x, y = tj.constant([1.0, 2.0]), tj.constant(3.0)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        z = x * y
    g = tape.gradient(z, {"b": x, "a": y})
    assert list(g) == ["b", "a"]
    np.testing.assert_allclose(g["b"].numpy(), [3.0, 3.0])
    np.testing.assert_allclose(g["a"].numpy(), 3.0)
    nested = tape.gradient(z, [{"b": x, "a": y}, Pair(x, {"z": [y, {"q": x, "c": y}]})])
    assert list(nested[0]) == ["b", "a"] and type(nested[1]) is Pair
    assert list(nested[1].second) == ["z"] and list(nested[1].second["z"][1]) == ["q", "c"]
    np.testing.assert_allclose(nested[1].second["z"][1]["c"].numpy(), 3.0)
    jac = tape.jacobian(z, {"b": x, "a": y})
    assert list(jac) == ["b", "a"] and jac["b"].shape == (2, 2) and jac["a"].shape == (2,)
    with tj.ForwardAccumulator({"b": x, "a": y}, {"b": tj.constant([1.0, 1.0]), "a": tj.constant(1.0)}) as acc:
        w = x * y
    t = acc.jvp({"w": w, "a": y})
    assert list(t) == ["w", "a"]
    np.testing.assert_allclose(t["w"].numpy(), [4.0, 5.0])

    @tj.function
    def f(v):
        return {"z": v, "a": v * 2.0, "m": [1, {"y": v, "b": None}]}
    for _ in range(2):  # the trace, then the compiled call
        out = f(x)
        assert list(out) == ["z", "a", "m"] and list(out["m"][1]) == ["y", "b"]
        np.testing.assert_allclose(out["a"].numpy(), [2.0, 4.0])
        assert out["m"][1]["b"] is None


def test_accumulator_tangents_must_have_the_primals_structure():
    # TF 2.21 (this host, nest.assert_same_structure): primals [x, y] with tangents (tx, ty) or {"a": x} with [t]
    # raise TypeError (another container type); {"a": x} with {"b": t} raises ValueError (other keys); tapejax
    # matched such tangents by position, silently. A tangent given as a list of numbers stays accepted.
    import collections
    Pair = collections.namedtuple("Pair", "a b")
    x, y, t = tj.constant(1.0), tj.constant(2.0), tj.constant(3.0)
    for primals, tangents, error in [([x, y], (t, t), TypeError), ({"a": x}, [t], TypeError),
                                     (Pair(x, y), (t, t), TypeError), ({"a": x}, {"b": t}, ValueError),
                                     ([x, y], [t], ValueError)]:
        with pytest.raises(error, match="ForwardAccumulator"):
            tj.ForwardAccumulator(primals, tangents)
    v = tj.constant([1.0, 2.0])
    with tj.ForwardAccumulator({"x": x, "v": v}, {"v": [1.0, 0.5], "x": 2.0}) as acc:
        out = x * v
    np.testing.assert_allclose(acc.jvp(out).numpy(), [3.0, 4.5])  # 2 * [1, 2] + 1 * [1, 0.5]


def test_every_mapping_flattens_in_sorted_key_order_as_tf_nest():
    # TF 2.21 (this host): tf.nest flattens an OrderedDict (any Mapping) in sorted key order, and rebuilds it as
    # its own type in its own order. So a flat list of output gradients pairs with the sorted keys (23, not
    # 32), a custom gradient's grad_fn gets its cotangents and returns its gradients in that order (701 and
    # [5, 1]), and an OrderedDict of primals takes a plain dict of tangents (53). jax flattens an OrderedDict
    # in insertion order, which tapejax followed before.
    import collections
    ordered = collections.OrderedDict
    a, b = tj.constant(1.0), tj.constant(2.0)
    with tj.GradientTape() as tape:
        tape.watch(a)
        y1, y2 = a * 2.0, a * 3.0
    assert float(tape.gradient(ordered([("z", y1), ("a", y2)]), a, output_gradients=[1.0, 10.0])) == 23.0

    @tj.custom_gradient
    def f(x):
        return ordered([("z", x * 2.0), ("a", x * 3.0)]), lambda dy_a, dy_z: dy_a * 100.0 + dy_z
    with tj.GradientTape() as tape:
        tape.watch(a)
        out = f(a)
        y = out["z"] * 1.0 + out["a"] * 7.0
    assert type(out) is ordered and list(out) == ["z", "a"]
    assert float(tape.gradient(y, a)) == 701.0

    @tj.custom_gradient
    def g(d):
        return d["z"] * 2.0 + d["a"] * 3.0, lambda dy: [dy * 1.0, dy * 5.0]  # (the gradients of 'a', then 'z')
    with tj.GradientTape() as tape:
        tape.watch([a, b])
        y = g(ordered([("z", a), ("a", b)]))
    assert [float(v) for v in tape.gradient(y, [a, b])] == [5.0, 1.0]

    with tj.ForwardAccumulator(ordered([("z", a), ("a", b)]), {"z": tj.constant(1.0), "a": tj.constant(10.0)}) as acc:
        y = a * 3.0 + b * 5.0
    tangents = acc.jvp(ordered([("q", y), ("b", a)]))
    assert type(tangents) is ordered and list(tangents) == ["q", "b"]
    assert [float(v) for v in tangents.values()] == [53.0, 1.0]

    grads = {}
    for mapping in (ordered([("z", a), ("a", b)]), collections.defaultdict(list, {"z": a, "a": b})):
        with tj.GradientTape() as tape:
            tape.watch(mapping)
            y = a * 3.0 + b * 5.0
        grads[type(mapping)] = tape.gradient(y, mapping)
        assert type(grads[type(mapping)]) is type(mapping) and list(grads[type(mapping)]) == ["z", "a"]
        assert [float(v) for v in grads[type(mapping)].values()] == [3.0, 5.0]
    assert grads[collections.defaultdict].default_factory is list


def test_a_modules_lists_and_dicts_take_plain_tangents_and_keep_their_type_in_gradients():
    # TF 2.21 (this host): a tf.Module's list and dict attributes (ListWrapper, _DictWrapper) as primals take a
    # plain list or dict of tangents (tf.nest takes any list subtype for a list, any Mapping for a dict), and
    # tape.gradient with them as sources gives a ListWrapper and a _DictWrapper in the dict's own key order.
    class Model(tj.Module):
        def __init__(self):
            super().__init__()
            self.ws = [tj.Variable(1.0), tj.Variable(2.0)]
            self.named = {"z": tj.Variable(3.0), "a": tj.Variable(4.0)}
    m = Model()
    with tj.ForwardAccumulator(m.ws, [tj.constant(1.0), tj.constant(1.0)]) as acc:
        y = m.ws[0] * m.ws[1]
    assert float(acc.jvp(y)) == 3.0
    with tj.ForwardAccumulator(m.named, {"z": tj.constant(1.0), "a": tj.constant(1.0)}) as acc:
        y = m.named["a"] * m.named["z"]
    assert float(acc.jvp(y)) == 7.0
    with pytest.raises(TypeError, match="ForwardAccumulator"):  # (a tuple is another container, in TF too)
        tj.ForwardAccumulator(m.ws, (tj.constant(1.0), tj.constant(1.0)))
    with tj.GradientTape() as tape:
        y = m.ws[0] * m.ws[1] * m.named["z"]
    g_ws, g_named = tape.gradient(y, [m.ws, m.named])
    assert type(g_ws) is type(m.ws) and [float(v) for v in g_ws] == [6.0, 3.0]
    assert type(g_named) is type(m.named) and list(g_named) == ["z", "a"]
    assert float(g_named["z"]) == 2.0 and g_named["a"] is None


def test_the_gradient_of_x_to_the_power_0_is_tfs_zero_times_its_reciprocal():
    # TF 2.21 (this host): x ** 0 at x = [inf, nan, 2, -3] with output gradients [1, 1, inf, 0] has gradient
    # [0, nan, nan, -0] (PowGrad: grad * 0 * pow(x, -1)); tapejax gave zeros whatever the gradient or x. At x = 0
    # TF's is NaN and tapejax's 0 (API.md's no-NaN rule). Forward mode gives the same partials.
    x = tj.constant([float("inf"), float("nan"), 2.0, -3.0, 0.0])
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = x ** 0
    g = tape.gradient(y, x, output_gradients=tj.constant([1.0, 1.0, float("inf"), 0.0, 1.0]))
    np.testing.assert_array_equal(g.numpy(), [0.0, np.nan, np.nan, 0.0, 0.0])
    with tj.ForwardAccumulator(x, tj.constant([1.0, 1.0, 1.0, 1.0, 1.0])) as acc:
        y = x ** 0
    np.testing.assert_array_equal(acc.jvp(y).numpy(), [0.0, np.nan, 0.0, 0.0, 0.0])
