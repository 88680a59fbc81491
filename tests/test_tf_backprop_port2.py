"""TensorFlow's tensorflow/python/eager/backprop_test.py (BackpropTest), the cases not in
test_tf_backprop_port.py, ported to tapejax.

Each test names the TF test it ports. Expected values are TF 2.21's, computed once with the installed
TensorFlow and hard-coded here. Cases TF writes with its old eager helpers (`backprop.gradients_function`,
`implicit_grad`, `implicit_val_and_grad`, `val_and_grad_function`, `make_vjp`) are ported with
`tj.GradientTape`: the helper watches its arguments (or the Variables read), takes `tape.gradient` of the
function's outputs (summed) and, for `dy=`, passes `output_gradients` -- that is the semantics checked.
TF's `run_in_graph_and_eager_modes` cases are also run inside `tj.function` (the graph-mode half), and a
few tape cases as recurring steps (replayed as one compiled program).
"""
import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy


def close(a, b, rtol=1e-6):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol)


def grads_of(f, *args, dy=None):
    """What TF's backprop.gradients_function(f)(*args, dy=dy) computes: the gradient of f's outputs
    (summed) with respect to each argument, each argument watched apart."""
    xs = [tj.convert_to_tensor(a) for a in args]
    with tj.GradientTape() as t:
        t.watch(xs)
        y = f(*xs)
    return t.gradient(y, xs, output_gradients=dy)


# -- aggregation of several gradient contributions ------------------------------------------------------

VAR = np.arange(1, 9, dtype=np.float32).reshape(4, 2) / 10.


@pytest.mark.parametrize("min_count", [1, 4])
def test_aggregate_gradients(min_count):
    # testAggregateGradients: three embedding lookups (IndexedSlices in TF) of the same tensor, summed
    # (also with early aggregation of every pair of contributions).
    def fn(x):
        return tnp.take(x, tj.constant([0, 1]), axis=0) * tnp.take(x, tj.constant([2, 3]), axis=0) * \
            tnp.take(x, tj.constant([1, 3]), axis=0)
    with tj.config.aggregation(min_count=min_count, min_bytes=0):
        g, = grads_of(fn, VAR)
    close(g, [[0.15, 0.24], [0.54, 0.76], [0.03, 0.08], [0.42, 0.64]], rtol=1e-5)


@pytest.mark.parametrize("min_count", [1, 4])
def test_aggregate_gradients_with_tensor(min_count):
    # testAggregateGradientsWithTensor: a lookup's sparse gradient summed with a dense one.
    def fn(x):
        return tnp.take(x, tj.constant([0, 1]), axis=0) * tnp.sum(x * tj.constant(2.0))
    with tj.config.aggregation(min_count=min_count, min_bytes=0):
        g, = grads_of(fn, VAR)
    close(g, [[9.2, 9.2], [9.2, 9.2], [2.0, 2.0], [2.0, 2.0]], rtol=1e-5)


def test_implicit_grad_with_resource_variable():
    # testImplicitGradWithResourceVariable: implicit_grad = gradient w.r.t. the Variables read.
    x = tj.Variable(tj.constant(1.0), name="x")
    with tj.GradientTape() as t:
        c = tnp.add(x.value(), tj.constant(2.0))
        y = tnp.add(c, tj.constant(3.0))
    (v,) = t.watched_variables()
    assert v is x
    close(t.gradient(y, x), 1.0)


def test_where_gradient():
    # testWhereGradient: only some of where's inputs are differentiable.
    def f(x):
        return tnp.where(x < 10, x, x * x)
    close(grads_of(f, 5.)[0], 1.0)
    close(grads_of(f, 50.)[0], 100.0)


def test_two_targets():
    # testTwoTargets
    with tj.GradientTape() as t:
        x, y = tj.constant(3.0), tj.constant(2.0)
        t.watch([x, y])
        xx, yy = 2 * x, 3 * y
    dx, dy = t.gradient([xx, yy], [x, y])
    close(dx, 2.0)
    close(dy, 3.0)


def test_custom_gradient_empty_error_eager_variable():
    # testCustomGradientEmptyError (eager, through a Variable): ValueError.
    @tj.custom_gradient
    def identity(x):
        return x, lambda _: []
    x = tj.Variable(1.0)
    with tj.GradientTape() as t:
        y = identity(x)
    with pytest.raises(ValueError, match="1 gradients"):
        t.gradient(y, [x])


def test_output_grad_used_in_computation():
    # testOutputGradUsedInComputation
    with tj.GradientTape() as t:
        x, y = tj.constant(3.0), tj.constant(2.0)
        t.watch([x, y])
        loss = x * y
    dx, = t.gradient([loss, x], [x], output_gradients=[1.0, 2.0])
    close(dx, 4.0)


def test_dy():
    # testDy: gradients_function(f)(1., dy=2.) with f the identity.
    close(grads_of(lambda x: x, 1., dy=2.)[0], 2.0)


def test_gradient_integer():
    # testGradientInteger: an int argument's gradient is None (watching it warns, see API.md).
    with pytest.warns(UserWarning):
        g, = grads_of(lambda x: x + x, tj.constant(1))
    assert g is None


def test_errors_in_grad_fn_propagate():
    # testErrors: a grad_fn raising RuntimeError makes the gradient call raise RuntimeError.
    @tj.custom_gradient
    def f(x):
        def grad(_):
            raise RuntimeError("x")
        return x, grad
    with pytest.raises(RuntimeError, match="x"):
        grads_of(f, tj.constant(1.0))


def test_gradients_function_in_custom_gradient():
    # testGradientsFunctionInCustomGradient: a tape used inside a custom_gradient's forward.
    @tj.custom_gradient
    def f(x):
        with tj.GradientTape() as t:
            t.watch(x)
            yy = x * x
        y = t.gradient(yy, x)
        return y, lambda dy: [2 * dy]
    close(f(tj.constant(1.0)), 2.0)
    close(grads_of(f, 1.0)[0], 2.0)


def test_implicit_grad_over_embedding_lookup():
    # testImplicitGradOverEmbeddingLookup (smaller table, deterministic init): the gradient of
    # 1 - embedding_lookup(table, ones) is -3 on row 1, and one SGD(0.1) step adds 0.3 there.
    init = np.arange(20, dtype=np.float32).reshape(5, 4) / 7.
    emb = tj.Variable(init, name="embedding")
    ids = tnp.ones([3], dtype=tj.int32)
    with tj.GradientTape() as t:
        y = tj.constant(1.0) - tnp.take(emb, ids, axis=0)
    g = t.gradient(y, emb)
    expected = np.zeros((5, 4), np.float32)
    expected[1] = -3.0
    close(g, expected)
    tj.optimizers.SGD(0.1).apply_gradients([(g, emb)])
    after = init.copy()
    after[1] = [0.8714286684989929, 1.0142858028411865, 1.1571428775787354, 1.3000000715255737]
    close(emb.numpy(), after, rtol=1e-6)


# -- no-op and identity gradients -------------------------------------------------------------------------

def test_tape_noop_gradients():
    # testTapeNoOpGradient, testTapeIdentityGradientIsIdentity, testTapeGradientMultiTargetOneIsSource,
    # testTapeNoOpGradientWithMultiTargetAllSource, testTapeNoOpGradientWithMultiTargetMultiSource
    x = tj.constant(3.0)
    with tj.GradientTape() as t:
        t.watch(x)
        y = x
    assert t.gradient(y, x).numpy() == 1.0
    with tj.GradientTape() as t:
        t.watch(x)
        y = tj.identity(x)
    assert t.gradient(y, x).numpy() == 1.0
    x2 = tj.constant(2.0)
    with tj.GradientTape() as t:
        t.watch(x2)
        y = x2 * x2
    assert t.gradient([x2, y], x2).numpy() == 5.0
    with tj.GradientTape() as t:
        t.watch(x)
        y = x
    assert t.gradient([y, y], x).numpy() == 2.0
    y5 = tj.constant(5.0)
    with tj.GradientTape() as t:
        t.watch(x)
        t.watch(y5)
        z = y5 * y5
    close(t.gradient([x, y5, z], [x, y5]), [1.0, 11.0])


def test_function_indexed_slices_gradient():
    # testFunctionIndexedSlicesGradient: gather after a tf.function call.
    @tj.function
    def f(x):
        return x + 1
    with tj.GradientTape() as t:
        x = tj.constant([1.0])
        t.watch(x)
        y = tnp.take(f(x), tj.constant([0]), axis=0)
    close(t.gradient(y, x), [1.0])


def test_tape_gradient_non_float_target():
    # testTapeGradientStringTarget, with an int32 target in place of the string one (tj has no string
    # tensors): a target of a non-differentiable dtype gives a None gradient.
    x, s = tj.constant(3.0), tj.constant(7)
    with tj.GradientTape() as t:
        t.watch(x)
        with pytest.warns(UserWarning):
            t.watch(s)
    assert t.gradient(s, x) is None


def test_invalid_backward_message():
    # testInvalidRecordOperationMessage: a backward function returning too few gradients fails naming the
    # op (TF: record_operation + InternalError "InvalidBackprop.*too few gradients"; tj: tj.op with a vjp,
    # ValueError naming the op and both counts, API.md's rule for gradient counts).
    bad = tj.op(lambda x: x * 2., name="InvalidBackprop", vjp=lambda primals, ct: ())
    x = tj.constant(1.)
    with tj.GradientTape() as g:
        g.watch(x)
        y = bad(x)
    with pytest.raises(ValueError, match="InvalidBackprop.*returned 0 gradients, expected 1"):
        g.gradient(y, x)


def test_tape_noop_on_variable_is_identity():
    # testTapeNoOpOnVariableIsIdentity
    v0 = tj.Variable(1.0)
    with tj.GradientTape() as t:
        y = v0.read_value()
    assert t.gradient(y, v0).numpy() == 1.0


def test_tape_noop_gradient_2by2():
    # testTapeNoOpGradient2By2, testTapeNoOpGradientMultiTarget2By2
    a = tnp.full([2, 2], 2.0)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(a)
    close(tape.gradient(a, [a])[0], np.ones((2, 2)))
    close(tape.gradient([a, a], [a])[0], np.full((2, 2), 2.0))


# -- stop_recording, reset, watched variables ----------------------------------------------------------------

def test_tape_stop_recording():
    # testTapeStopRecording
    with tj.GradientTape() as t:
        x = tj.Variable(1.0)
        with t.stop_recording():
            y = x * x
    assert t.gradient(y, x) is None


def test_tape_stop_start_recording():
    # testTapeStopStartRecording (and d z / d x = 8 through the recorded x * 2)
    with tj.GradientTape(persistent=True) as t:
        x = tj.Variable(1.0)
        x2 = x * 2
        with t.stop_recording():
            y = x2 * x2
        z = x2 * x2
    assert t.gradient(y, x2) is None
    assert t.gradient(z, x2).numpy() == 4.0
    assert t.gradient(z, x).numpy() == 8.0


def test_tape_reset():
    # testTapeReset
    with tj.GradientTape() as t:
        v = tj.Variable(1.0)
        loss = v * v
        t.reset()
        loss += v * v
    close(t.gradient(loss, v), 2.0)


def test_python_max():
    # testPythonMax: max() of Variables returns the Variable itself; its gradient w.r.t. the others is None.
    x = [tj.Variable(2.), tj.Variable(3.), tj.Variable(5.)]
    with tj.GradientTape() as t:
        f = max(x)
    assert f is x[2]
    grad = t.gradient(f, x)
    close(f.numpy(), 5.)
    assert grad[0] is None and grad[1] is None
    close(grad[2], 1.0)


def test_automatic_and_explicit_watched_variables():
    # testAutomaticWatchedVariables, testExplicitWatchedVariables
    with tj.GradientTape() as t:
        assert len(t.watched_variables()) == 0
        v = tj.Variable(1.0)
        loss = v * v
        assert t.watched_variables() == (v,)
        t.reset()
        assert len(t.watched_variables()) == 0
        loss += v * v
        assert t.watched_variables() == (v,)
    with tj.GradientTape() as t:
        assert len(t.watched_variables()) == 0
        v = tj.Variable(1.0)
        t.watch(v)
        assert t.watched_variables() == (v,)
        t.reset()
        assert len(t.watched_variables()) == 0
        t.watch(v)
        assert t.watched_variables() == (v,)


def test_watched_variables_after_gradient_and_from_last_tape():
    # testWatchedVariablesAfterNonPersistentGradientCall, testWatchedVariablesOnlyHasVariablesFromLastTape
    with tj.GradientTape(persistent=False) as tape:
        x = tj.Variable(1.0)
        tape.watch(x)
    close(tape.gradient(x, x), 1.0)
    assert tape.watched_variables() == (x,)
    with tj.GradientTape(persistent=False) as tape:
        x = tj.Variable(1.0)
        tape.watch(x)
    with tj.GradientTape(persistent=False) as tape:
        z = tj.Variable(2.0)
        tape.watch(z)
    tape.gradient(z, z)
    assert tape.watched_variables() == (z,)


def test_gradient_none_softmax_cross_entropy():
    # testGradientNone: the gradient w.r.t. the op's second output (backprop) is None in TF; the loss's
    # gradient w.r.t. the logits is [[-0.5, 0.5]].
    def loss(x, labels):
        return tnp.mean(tj.nn.softmax_cross_entropy_with_logits(labels=labels, logits=x), axis=0)
    logits = tj.constant([[0.0, 0.0]])
    labels = tj.constant([[1.0, 0.0]])
    with tj.GradientTape() as t:
        t.watch(logits)
        y = loss(logits, labels)
    close(t.gradient(y, logits), [[-0.5, 0.5]])


def test_gradient_within_tape_block():
    # testGradientWithinTapeBlock
    v1 = tj.Variable(1.)
    with tj.GradientTape() as t:
        loss = 2 * v1
        grad = t.gradient(loss, v1)
    close(grad, 2.0)
    with tj.GradientTape(persistent=True) as t:
        loss = 2 * v1
        grad = t.gradient(loss, v1)
    close(grad, 2.0)


def test_nested_self_contexts():
    # testNestedSelfContexts: re-entering a tape that is recording raises ValueError.
    with tj.GradientTape() as t:
        with pytest.raises(ValueError):
            with t:
                pass


def test_second_grad_softmax_cross_entropy():
    # testSecondGrad: with a single class the loss is constant: the gradient of the first gradient is 0.
    f = tj.constant([[0.1]])
    with tj.GradientTape() as t2:
        t2.watch(f)
        with tj.GradientTape() as t1:
            t1.watch(f)
            x = tj.nn.softmax_cross_entropy_with_logits(labels=tj.constant([[0.0]]), logits=f)
            x = tnp.sum(x, axis=0)
        g1 = tnp.sum(t1.gradient(x, f), axis=0)
    close(t2.gradient(g1, f), [[0.0]])


def test_make_vjp():
    # testMakeVJP, testPersistentMakeVJP: make_vjp(f)(3.)'s vjp(2.) = output_gradients=2.
    x = tj.constant(3.0)
    with tj.GradientTape() as t:
        t.watch(x)
        y = x * x
    close(y, 9.0)
    close(t.gradient(y, x, output_gradients=2.0), 12.0)
    with tj.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x
    close(t.gradient(y, x, output_gradients=2.0), 12.0)
    close(t.gradient(y, x, output_gradients=2.0), 12.0)


@pytest.mark.parametrize("fn,at,expected", [(lambda x: x * x, 3.0, 2.0), (tnp.exp, 0.0, 1.0)],
                         ids=["square", "exp"])
def test_grad_grad(fn, at, expected):
    # testGradGrad, testGradGradExp
    x = tj.constant(at)
    with tj.GradientTape() as t2:
        t2.watch(x)
        with tj.GradientTape() as t1:
            t1.watch(x)
            y = fn(x)
        g = t1.gradient(y, x)
    close(t2.gradient(g, x), expected)


def test_stop_gradient_of_argmax():
    # testStopGradient, testArgmax: stop_gradient(argmax(x)) -> None
    assert grads_of(lambda x: tj.stop_gradient(tnp.argmax(x)), [0.0]) == [None]
    assert grads_of(lambda x: tnp.argmax(x), [0.0]) == [None]


def test_cpu_and_empty_params():
    # testCPU, testEmptyParams
    def fn(x):
        return tnp.add(tnp.add(x, tj.constant(2.0)), tj.constant(3.0))
    close(grads_of(fn, tj.constant(1.0))[0], 1.0)
    x, y = tj.constant(1.0), tj.constant(2.0)
    dx, dy = grads_of(lambda a, b: a * b, x, y)
    close(dx, 2.0)
    close(dy, 1.0)


def test_unconnected_none():
    # testUnconnectedNone: a Variable read but not used gets a None gradient.
    v = tj.Variable(1.0, name="testUnconnectedNone")
    with tj.GradientTape() as t:
        v.read_value()
        y = tj.constant(1.0)
    assert t.watched_variables() == (v,)
    assert t.gradient(y, v) is None


# -- tapes: re-entering, repeated sources, structures, nesting, persistence --------------------------------------

def test_gradient_tape_reenter_context():
    # testGradientTapeReEnterContext
    g = tj.GradientTape()
    with g:
        x = tj.constant(3.0)
        g.watch(x)
        y = 2 * x
    with g:
        z = 2 * y
    close(g.gradient(target=z, sources=[x]), [4.0])


def test_gradient_tape_repeated_source():
    # testGradientTapeRepeatedSource, testPersistentGradientTapeRepeatedSource
    with tj.GradientTape(persistent=False) as g:
        x = tj.constant(3.0)
        g.watch(x)
        y = 2 * x
    close(g.gradient(target=y, sources=[x, x]), [2.0, 2.0])
    with tj.GradientTape(persistent=True) as g:
        x, y = tj.constant(3.0), tj.constant(5.0)
        g.watch(x)
        g.watch(y)
        z = x * x + x * y
    close(g.gradient(target=z, sources=[x, x]), [11.0, 11.0])
    close(g.gradient(target=z, sources=[y, x]), [3.0, 11.0])


def test_gradient_tape_structure():
    # testGradientTapeStructure: the result has the sources' structure.
    with tj.GradientTape(persistent=True) as g:
        x1, x2, x3 = tj.constant(3.0), tj.constant(3.1), tj.constant(3.2)
        g.watch(x1)
        g.watch(x2)
        g.watch(x3)
        y = x1 + 2 * x2 + 3 * x3
    assert float(g.gradient(y, x1)) == 1.0
    r = g.gradient(y, (x1,))
    assert isinstance(r, tuple) and [float(e) for e in r] == [1.0]
    r = g.gradient(y, (x1, x2))
    assert isinstance(r, tuple) and [float(e) for e in r] == [1.0, 2.0]
    r = g.gradient(y, [(x1, x2), (x2, x3)])
    assert isinstance(r, list) and all(isinstance(e, tuple) for e in r)
    assert [[float(e) for e in p] for p in r] == [[1.0, 2.0], [2.0, 3.0]]
    r = g.gradient(y, (x1, x2, [x1, x3]))
    assert isinstance(r, tuple) and isinstance(r[2], list)
    assert (float(r[0]), float(r[1]), [float(e) for e in r[2]]) == (1.0, 2.0, [1.0, 3.0])
    r = g.gradient(y, [x1, {"x2": x2, "x3": x3}])
    assert isinstance(r, list) and isinstance(r[1], dict)
    assert float(r[0]) == 1.0 and {k: float(v) for k, v in r[1].items()} == {"x2": 2.0, "x3": 3.0}


def test_gradient_tape_nested():
    # testGradientTape: an inner tape's gradient used in the outer tape's computation.
    with tj.GradientTape() as g:
        x = tj.constant(3.0)
        g.watch(x)
        y = x * x
        with tj.GradientTape() as gg:
            gg.watch(y)
            z = 2 * y
        inner_grad = gg.gradient(z, [y])[0]
        close(inner_grad, 2.0)
        y += inner_grad
    close(g.gradient(y, [x])[0], 6.0)


def test_gradient_tape_called_on_constant_target():
    # testGadientTapeCalledOnConstantTarget: a Variable target, another Variable source -> None
    with tj.GradientTape() as g:
        x = tj.Variable([3.0])
        y = tj.Variable([2.0])
    assert g.gradient(x, y) is None


def test_gradient_tape_with_cond_and_while_loop_eager():
    # testGradientTapeWithCond, testGradientTapeWithWhileLoop (eager: tf.cond / tf.while_loop run the
    # branch / body in Python, as a Python `if` / `while` does): 6.0 and 4.0.
    x = tj.constant(3.0)
    with tj.GradientTape() as g:
        g.watch(x)
        y = x if bool(x < x) else x * x
    close(g.gradient(y, [x])[0], 6.0)
    i, x = tj.constant(1), tj.constant(2.)
    with tj.GradientTape() as g:
        g.watch([x])
        y = x
        while bool(i < 3):
            i, y = i + 1, y * 2
    close(g.gradient(y, [x])[0], 4.0)


def test_gradient_tape_gradient_called_multiple_times():
    # testGradientTapeGradientCalledMultipleTimes
    with tj.GradientTape() as g:
        x = tj.constant(3.0)
        g.watch(x)
        y = x * x
        z = y * y
    g.gradient(z, [x])
    with pytest.raises(RuntimeError, match="A non-persistent GradientTape can only"):
        g.gradient(y, [x])


def test_persistent_tape():
    # testPersistentTape
    with tj.GradientTape(persistent=True) as g:
        x = tj.constant(3.0)
        g.watch(x)
        y = x * x
        z = y * y
    assert float(g.gradient(z, [x])[0]) == 4 * 3 * 3 * 3
    assert float(g.gradient(y, [x])[0]) == 2 * 3


def test_higher_order_gradient():
    # testHigherOrderGradient: gradients taken inside the persistent tape's context are recorded by it.
    with tj.GradientTape(persistent=True) as g:
        x = tj.constant(3.0)
        g.watch(x)
        y = x ** 3
        dy_dx = g.gradient(y, x)
        d2y_dx2 = g.gradient(dy_dx, x)
    d3y_dx3 = g.gradient(d2y_dx2, x)
    close(y, 27.0)
    assert float(dy_dx) == 27.0
    assert float(d2y_dx2) == 18.0
    assert float(d3y_dx3) == 6.0


def test_persistent_nested_tape():
    # testPersistentNestedTape
    with tj.GradientTape(persistent=True) as g:
        x = tj.constant(3.0)
        g.watch(x)
        y = x * x
        with tj.GradientTape(persistent=True) as gg:
            gg.watch(y)
            z = 2 * y
        for _ in range(2):
            inner_grad = gg.gradient(z, [y])[0]
            assert float(inner_grad) == 2.0
        y += inner_grad
        del gg
    assert float(g.gradient(y, [x])[0]) == 6.0
    assert float(g.gradient(z, [x])[0]) == 12.0


def test_gradient_tape_variable_and_nested_gradients():
    # testGradientTapeVariable, testNestedGradients
    v = tj.Variable(1.0, name="v")
    with tj.GradientTape() as g:
        y = v * v
    close(g.gradient(y, [v])[0], 2.0)
    x = tj.constant(3.0)
    with tj.GradientTape() as g:
        g.watch(x)
        y = x * x
        z = y * y
    dz_dx, dz_dy = g.gradient(z, [x, y])
    assert float(dz_dx) == 108.0
    assert float(dz_dy) == 18.0


# -- unconnected gradients ----------------------------------------------------------------------------------

def test_unconnected_gradients_default_and_zeros():
    # testUnconnectedGradientsDefault, testUnconnectedGradientsZeros, testUnconnectedGradientsVariablesZeros
    x, y = tj.constant(1.0), tj.constant(3.0)
    with tj.GradientTape() as g:
        g.watch([x, y])
        z = y * 2
    assert g.gradient(z, x) is None
    x = tnp.full([2, 2], 1.0)
    with tj.GradientTape() as g:
        g.watch([x, y])
        z = y * 2
    r = g.gradient(z, x, unconnected_gradients="zero")
    assert r.shape == (2, 2) and r.dtype == np.float32
    close(r, np.zeros((2, 2)))
    xv, yv = tj.Variable(tnp.full([2, 2], 1.0)), tj.Variable(3.)
    with tj.GradientTape() as g:
        g.watch([xv, yv])
        z = yv * 2
    close(g.gradient(z, xv, unconnected_gradients="zero"), np.zeros((2, 2)))


def test_unknown_unconnected_gradients_value_given():
    # testUnknownUnconnectedGradientsValueGiven
    x, y = tj.constant(1.0), tj.constant(1.0)
    with tj.GradientTape() as g:
        g.watch([x, y])
        z = y * 2
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients: 'nonsense'"):
        g.gradient(z, x, unconnected_gradients="nonsense")


def test_unconnected_gradients_nested_function_zeros():
    # testUnconnectedGradientsNestedDefunZeros: stop_gradient inside nested tf.functions -> 0.0 with 'zero'
    # (and None by default).
    @tj.function
    def f(x):
        return x * x

    @tj.function
    def h(y):
        return tj.stop_gradient(f(y))
    x = tj.constant(1.0)
    with tj.GradientTape(persistent=True) as g:
        g.watch(x)
        k = x + 2.
        y = h(k)
    assert float(g.gradient(y, x, unconnected_gradients="zero")) == 0.0
    assert g.gradient(y, x) is None


# -- value-and-gradient helpers, argument handling ----------------------------------------------------------------

def test_value_and_grad_function():
    # testEmptyParamsForValueAndGradFunction, testNonEmptyParamsForValueAndGradFunction
    x, y = tj.constant(2.0), tj.constant(3.0)
    with tj.GradientTape(persistent=True) as g:
        g.watch([x, y])
        val = x * y
    close(val, 6.0)
    close(g.gradient(val, [x, y]), [3.0, 2.0])
    grads = g.gradient(val, [y])
    assert len(grads) == 1
    close(grads[0], 2.0)


def test_mul_args_partial_return_same_thing():
    # testMulType, testArgsGradientFunction, testPartial, testReturnSameThing, testOutput
    close(grads_of(lambda x: tnp.multiply(x, x), 3.0)[0], 6.0)
    close(grads_of(lambda *args: args[0] * args[0], 1.0)[0], 2.0)

    def f(x, y):
        return x * y
    import functools
    close(grads_of(functools.partial(f, tj.constant(2.0)), tj.constant(1.0))[0], 2.0)
    close(grads_of(lambda x: (x, 2 * x), 1.0)[0], 3.0)
    close(grads_of(lambda x: (x + 2, x * x), tj.constant([0.0, 1.0, 2.0]))[0], [1.0, 3.0, 5.0])


def test_exception_safety():
    # testExceptionSafety: an exception raised inside a tape's context leaves tapes usable afterwards.
    def f(unused_x):
        raise ValueError()
    with pytest.raises(ValueError):
        grads_of(f, 1.0)
    close(grads_of(lambda x: x * x, 1.0)[0], 2.0)


def test_multi_value_convert_to_tensor():
    # testMultiValueConvertToTensor: stack of a list of recorded tensors.
    x = tj.Variable(tj.constant([1.0]), name="x")
    with tj.GradientTape() as t:
        a = tnp.add(x.value(), 1.0)
        b = tnp.stack([a, a], axis=0)
        y = tnp.mean(b)
    close(t.gradient(y, x), [1.0])


def test_multi_value_preserves_if_not_diffed_against():
    # testMultiValuePreservesIfNotDiffedAgainst: a 1x1 conv (NCHW/OIHW here; a 1x1x1x1 tensor is the same)
    # differentiated w.r.t. the image only: [[[[2.0]]]].
    i = tj.constant([[[[1.0]]]])
    k = tj.constant([[[[2.0]]]])
    with tj.GradientTape() as t:
        t.watch(i)
        y = tj.nn.conv(i, k, (1, 1), "SAME")
    close(t.gradient(y, i), [[[[2.0]]]])


@pytest.mark.parametrize("kind", ["tensor", "float", "tensor2d", "list2d", "variable"])
def test_same_object_for_multiple_arguments(kind):
    # testSameObjectForMultipleArguments: gradients_function(multiply)(x, x) differentiates each argument
    # position apart: [1., 1.] (each of x's shape). With one tape and the same tensor as both sources the
    # gradient of x * x is [2., 2.] (TF 2.21).
    x = {"tensor": tj.constant(1.), "float": 1., "tensor2d": tj.constant([[1.]]), "list2d": [[1.]],
         "variable": tj.Variable(1.)}[kind]
    shape = (1, 1) if kind in ("tensor2d", "list2d") else ()
    a, b = tnp.array(x), tnp.array(x)
    dx, dy = grads_of(tnp.multiply, a, b)
    close(dx, np.ones(shape))
    close(dy, np.ones(shape))
    if kind == "variable":
        with tj.GradientTape() as t:
            y = tnp.multiply(x, x)
        close(t.gradient(y, [x, x]), [2.0, 2.0])
    else:
        xt = tj.convert_to_tensor(x)
        with tj.GradientTape() as t:
            t.watch(xt)
            y = tnp.multiply(xt, xt)
        close(t.gradient(y, [xt, xt]), [np.full(shape, 2.0)] * 2)


# -- custom gradients --------------------------------------------------------------------------------------------

def test_custom_gradient_and_cached_variable_value():
    # testImplicitGradientsCustomGradientAndCachedVariableValue: grad 2 * dr * x + 1 at x = 3 -> 7.
    @tj.custom_gradient
    def my_square(x):
        return tnp.square(x), lambda dr: 2 * dr * x + 1
    x = tj.Variable(3., name="X")
    with tj.GradientTape() as t:
        y = my_square(x)
    assert t.watched_variables() == (x,)
    close(t.gradient(y, x), 7.0)


def test_custom_gradient_training_loop():
    # testCustomGradient: implicit_val_and_grad + assign_sub over 5 steps: losses [4, 3, 2, 1, 0].
    @tj.custom_gradient
    def my_mul(x, y):
        return x * y, lambda dr: [dr * y, dr * x]
    x = tj.Variable(2., name="x")
    losses = []
    for _ in range(5):
        with tj.GradientTape() as t:
            loss = my_mul(2., x.read_value())
        losses.append(float(loss))
        x.assign_sub(0.25 * t.gradient(loss, x))
    assert losses == [4.0, 3.0, 2.0, 1.0, 0.0]


def test_custom_gradient_identity():
    # testCustomGradientIdentity
    @tj.custom_gradient
    def my_identity(x):
        return x, lambda dresult: [2 * dresult]
    close(grads_of(my_identity, 1.0)[0], 2.0)


def test_differentiating_function_that_returns_none():
    # testDifferentiatingFunctionThatReturnsNone: TF's helpers raise ValueError for a None result; the tape
    # API's counterpart is tape.gradient(None, ...), which raises TypeError (TF 2.21).
    x, y = tj.constant(1.), tj.constant(2.)
    with tj.GradientTape() as t:
        t.watch([x, y])
        result = None
    with pytest.raises(TypeError):
        t.gradient(result, [x, y])


@pytest.mark.parametrize("in_function", [False, True])
def test_zeros_cache_doesnt_leak(in_function):
    # testZerosCacheDoesntLeakAcrossGraphs (smaller): split, square one half, concat with a constant;
    # the same gradient on every call, eagerly and inside tj.function.
    def get_grad():
        t0 = tnp.full((2, 4), 1.0)
        x = tnp.full((2, 4), 2.0)
        with tj.GradientTape() as tape:
            tape.watch(x)
            x1, _ = tnp.split(x, 2, axis=1)
            y = tnp.concatenate([x1 ** 2, t0], axis=1)
        return tape.gradient(y, x)
    fn = tj.function(get_grad) if in_function else get_grad
    expected = [[4.0, 4.0, 0.0, 0.0], [4.0, 4.0, 0.0, 0.0]]
    close(fn(), expected)
    close(fn(), expected)


def test_differentiating_scalar_cache_and_variables_vs_constants():
    # testDifferentiatingScalarCache, testVariablesAndConstantsProduceTheSameGradients
    with tj.GradientTape(persistent=False) as g:
        x1, x2 = tj.constant(3.0), tj.constant(3.0)
        g.watch(x1)
        g.watch(x2)
        y = x1 + x2
    close(g.gradient(target=y, sources=[x1]), [1.0])

    def get_grads(a, b):
        with tj.GradientTape() as tape:
            tape.watch([a, b])
            y = a ** 3
            z = b ** 2
        return tape.gradient([y, z], [a, b])
    close(get_grads(tj.constant(2.0), tj.constant(2.0)), [12.0, 4.0])
    close(get_grads(tj.Variable(2.0), tj.Variable(2.0)), [12.0, 4.0])


@pytest.mark.parametrize("in_function", [False, True])
def test_custom_gradient_in_eager_and_graph(in_function):
    # testCustomGradientInEagerAndGraph
    @tj.custom_gradient
    def f(x):
        return x * x, lambda dy: [4 * dy]

    def g(c):
        with tj.GradientTape() as t:
            t.watch(c)
            y = f(c)
        return t.gradient(y, c)
    close((tj.function(g) if in_function else g)(tj.constant(1.0)), 4.0)


def test_custom_gradient_forwardprop():
    # testCustomGradientForwardprop: a forward computed outside the tape's view (constant_value), a
    # first-order gradient that is itself a custom_gradient of (x, dz): gc 2.1, d gc / d c 2.2, and
    # d gc / d output_grad (the transpose) 3.1.
    @tj.custom_gradient
    def f(x):
        z = tj.constant(2. * x.numpy())

        def g(dz):
            @tj.custom_gradient
            def first_order(unused_x, unused_dz):
                return tj.constant(2.1), lambda unused_ddz: (tj.constant(2.2), tj.constant(3.1))
            return first_order(x, dz)
        return z, g
    with tj.GradientTape(persistent=True) as t:
        with tj.GradientTape() as tt:
            c = tj.constant(1.)
            t.watch(c)
            tt.watch(c)
            output_grad = tnp.ones([])
            t.watch(output_grad)
            output = f(c)
            close(output, 2.)
        gc = tt.gradient(output, c, output_gradients=output_grad)
        close(gc, 2.1)
    close(t.gradient(gc, c), 2.2)
    close(t.gradient(gc, output_grad), 3.1)


def test_watch_bad_thing():
    # testWatchBadThing: watching a NumPy array raises ValueError naming ndarray.
    g = tj.GradientTape()
    with pytest.raises(ValueError, match="ndarray"):
        g.watch(np.array(1.))


# -- recompute_grad ----------------------------------------------------------------------------------------------

def test_recompute_grad_with_different_shape():
    # testRecomputeGradWithDifferentShape: a list (and a dict) of Variables of different shapes through
    # recompute_grad: values [2., 3.] and 2.; TF 2.21's gradients of the list version [[1., 1.], 1.].
    @tj.recompute_grad
    def outer(x):
        return [x[0] + 1, x[1] + 1]
    x = [tj.Variable([1., 2.], name="a"), tj.Variable(1., name="b")]
    with tj.GradientTape() as t:
        y = outer(x)
        close(y[0], [2., 3.])
        close(y[1], 2.)
    g = t.gradient(y, x)
    close(g[0], [1., 1.])
    close(g[1], 1.)

    @tj.recompute_grad
    def outer_dict(x):
        for key in x.keys():
            x[key] = x[key] + 1
        return x
    with tj.GradientTape() as t:
        y = list(outer_dict({"a": x[0], "b": x[1]}).values())
        close(y[0], [2., 3.])
        close(y[1], 2.)
    # TF 2.21: when f rebinds the entries of the dict it was given, the Variables get zero gradients (not
    # None); without the rebinding, ones.
    g = t.gradient(y, x)
    close(g[0], [0., 0.])
    close(g[1], 0.)

    @tj.recompute_grad
    def outer_dict_pure(x):
        return {k: v + 1 for k, v in x.items()}
    with tj.GradientTape() as t:
        y = list(outer_dict_pure({"a": x[0], "b": x[1]}).values())
    g = t.gradient(y, x)
    close(g[0], [1., 1.])
    close(g[1], 1.)


def test_recompute_grad_with_nested_function_and_loop():
    # testRecomputeGradWithNestedFunctionAndWhileLoop (a Python loop of ten inner tf.function calls in
    # place of the while_loop): 11.0, and TF 2.21's gradient w.r.t. the Variable, 1.0.
    @tj.function
    def inner(z):
        return z + 1

    @tj.function
    def middle(y):
        for _ in range(10):
            y = inner(y)
        return y

    @tj.recompute_grad
    @tj.function
    def outer(x):
        return middle(x)
    for _ in range(2):
        x = tj.Variable(1.0, name="x")
        with tj.GradientTape() as t:
            y = outer(x)
            close(y, 11.0)
        close(t.gradient(y, x), 1.0)


# -- run_in_graph_and_eager_modes: the graph-mode half, inside tj.function -------------------------------------

def test_aggregate_gradients_in_function_and_symbolic():
    # testAggregateGradients / testAggregateGradientsWithTensor, graph mode: a tape inside tf.function, and
    # tf.gradients over the same ops, agree with the eager values.
    def fn(x):
        return tnp.take(x, tj.constant([0, 1]), axis=0) * tnp.take(x, tj.constant([2, 3]), axis=0) * \
            tnp.take(x, tj.constant([1, 3]), axis=0)

    def fn2(x):
        return tnp.take(x, tj.constant([0, 1]), axis=0) * tnp.sum(x * 2.0, axis=(0, 1))

    @tj.function
    def both(x):
        out = []
        for f in (fn, fn2):
            with tj.GradientTape() as t:
                t.watch(x)
                y = f(x)
            out += [t.gradient(y, x), tj.gradients(f(x), [x])[0]]
        return out
    g1, s1, g2, s2 = both(tj.constant(VAR))
    for g in (g1, s1):
        close(g, [[0.15, 0.24], [0.54, 0.76], [0.03, 0.08], [0.42, 0.64]], rtol=1e-5)
    for g in (g2, s2):
        close(g, [[9.2, 9.2], [9.2, 9.2], [2.0, 2.0], [2.0, 2.0]], rtol=1e-5)


def test_gradient_within_tape_block_and_nested_self_context_in_function():
    # testGradientWithinTapeBlock, testNestedSelfContexts (graph mode)
    v1 = tj.Variable(1.)

    @tj.function
    def f():
        with tj.GradientTape() as t:
            loss = 2 * v1
            g1 = t.gradient(loss, v1)
        with tj.GradientTape(persistent=True) as t:
            loss = 2 * v1
            g2 = t.gradient(loss, v1)
        with tj.GradientTape() as t:
            try:
                with t:
                    pass
                raised = 0.
            except ValueError:
                raised = 1.
        return g1, g2, raised
    g1, g2, raised = f()
    close(g1, 2.0)
    close(g2, 2.0)
    close(raised, 1.0)


def test_tape_structure_and_repeated_sources_in_function():
    # testGradientTapeRepeatedSource, testPersistentGradientTapeRepeatedSource, testGradientTapeStructure,
    # testDifferentiatingScalarCache (graph mode)
    @tj.function
    def f():
        with tj.GradientTape(persistent=False) as g:
            x = tj.constant(3.0)
            g.watch(x)
            y = 2 * x
        rep = g.gradient(target=y, sources=[x, x])
        with tj.GradientTape(persistent=True) as g:
            x, y = tj.constant(3.0), tj.constant(5.0)
            g.watch(x)
            g.watch(y)
            z = x * x + x * y
        prep = (g.gradient(z, [x, x]), g.gradient(z, [y, x]))
        with tj.GradientTape(persistent=True) as g:
            x1, x2, x3 = tj.constant(3.0), tj.constant(3.1), tj.constant(3.2)
            g.watch(x1)
            g.watch(x2)
            g.watch(x3)
            y = x1 + 2 * x2 + 3 * x3
        struct = (g.gradient(y, [x1, {"x2": x2, "x3": x3}]), g.gradient(y, (x1, x2, [x1, x3])),
                  g.gradient(y, [(x1, x2), (x2, x3)]))
        with tj.GradientTape(persistent=False) as g:
            x1, x2 = tj.constant(3.0), tj.constant(3.0)
            g.watch(x1)
            g.watch(x2)
            y = x1 + x2
        return rep, prep, struct, g.gradient(target=y, sources=[x1])
    rep, prep, struct, scalar = f()
    close(rep, [2.0, 2.0])
    close(prep[0], [11.0, 11.0])
    close(prep[1], [3.0, 11.0])
    a, b, c = struct
    assert isinstance(a, list) and isinstance(a[1], dict) and float(a[0]) == 1.0
    assert {k: float(v) for k, v in a[1].items()} == {"x2": 2.0, "x3": 3.0}
    assert isinstance(b, tuple) and isinstance(b[2], list)
    assert (float(b[0]), float(b[1]), [float(e) for e in b[2]]) == (1.0, 2.0, [1.0, 3.0])
    assert isinstance(c, list) and all(isinstance(p, tuple) for p in c)
    assert [[float(e) for e in p] for p in c] == [[1.0, 2.0], [2.0, 3.0]]
    close(scalar, [1.0])


def test_nested_and_persistent_tapes_in_function():
    # testGradientTape, testPersistentTape, testHigherOrderGradient, testPersistentNestedTape,
    # testNestedGradients (graph mode)
    @tj.function
    def f():
        out = {}
        with tj.GradientTape() as g:
            x = tj.constant(3.0)
            g.watch(x)
            y = x * x
            with tj.GradientTape() as gg:
                gg.watch(y)
                z = 2 * y
            inner = gg.gradient(z, [y])[0]
            y += inner
        out["tape"] = (inner, g.gradient(y, [x])[0])
        with tj.GradientTape(persistent=True) as g:
            x = tj.constant(3.0)
            g.watch(x)
            y = x * x
            z = y * y
        out["persistent"] = (g.gradient(z, [x])[0], g.gradient(y, [x])[0])
        with tj.GradientTape(persistent=True) as g:
            x = tj.constant(3.0)
            g.watch(x)
            y = x ** 3
            d1 = g.gradient(y, x)
            d2 = g.gradient(d1, x)
        out["higher"] = (y, d1, d2, g.gradient(d2, x))
        with tj.GradientTape(persistent=True) as g:
            x = tj.constant(3.0)
            g.watch(x)
            y = x * x
            with tj.GradientTape(persistent=True) as gg:
                gg.watch(y)
                z = 2 * y
            i1 = gg.gradient(z, [y])[0]
            i2 = gg.gradient(z, [y])[0]
            y += i2
        out["pnested"] = (i1, i2, g.gradient(y, [x])[0], g.gradient(z, [x])[0])
        x = tj.constant(3.0)
        with tj.GradientTape() as g:
            g.watch(x)
            y = x * x
            z = y * y
        out["nested"] = tuple(g.gradient(z, [x, y]))
        return out
    out = f()
    expected = {"tape": [2.0, 6.0], "persistent": [108.0, 6.0], "higher": [27.0, 27.0, 18.0, 6.0],
                "pnested": [2.0, 2.0, 6.0, 12.0], "nested": [108.0, 18.0]}
    for k, v in expected.items():
        close(out[k], v)


def test_variables_watched_in_function():
    # testGradientTapeVariable, testGadientTapeCalledOnConstantTarget, testSelectivelyWatchVariables
    # (eager and graph mode)
    v = tj.Variable(1.0, name="v")
    a, b = tj.Variable([3.0]), tj.Variable([2.0])
    x1, x2 = tj.Variable(1.0), tj.Variable(1.0)

    def f():
        with tj.GradientTape() as g:
            y = v * v
        gv = g.gradient(y, [v])[0]
        with tj.GradientTape() as g:
            pass
        gc = g.gradient(a, b)
        with tj.GradientTape(watch_accessed_variables=False) as tape:
            tape.watch(x2)
            y = x1 ** 2
            z = x2 ** 3
        watched = tape.watched_variables()
        assert len(watched) == 1 and watched[0] is x2
        dy, dz = tape.gradient([y, z], [x1, x2])
        return gv, gc, dy, dz
    for fn in (f, tj.function(f)):
        gv, gc, dy, dz = fn()
        close(gv, 2.0)
        assert gc is None and dy is None
        close(dz, 3.0)


def test_unconnected_gradients_in_function():
    # testUnconnectedGradientsDefault, testUnconnectedGradientsZeros, testUnconnectedGradientsVariablesZeros,
    # testUnknownUnconnectedGradientsValueGiven (graph mode)
    xv, yv = tj.Variable(tnp.full([2, 2], 1.0)), tj.Variable(3.)

    @tj.function
    def f():
        x, y = tj.constant(1.0), tj.constant(3.0)
        with tj.GradientTape(persistent=True) as g:
            g.watch([x, y])
            z = y * 2
        d = g.gradient(z, x)
        x2 = tnp.full([2, 2], 1.0)
        with tj.GradientTape() as g2:
            g2.watch([x2, y])
            z2 = y * 2
        zeros = g2.gradient(z2, x2, unconnected_gradients="zero")
        with tj.GradientTape() as g3:
            g3.watch([xv, yv])
            z3 = yv * 2
        vzeros = g3.gradient(z3, xv, unconnected_gradients="zero")
        try:
            g.gradient(z, x, unconnected_gradients="nonsense")
            bad = 0.
        except ValueError as e:
            assert "Unknown value for unconnected_gradients: 'nonsense'" in str(e)
            bad = 1.
        return d, zeros, vzeros, bad
    d, zeros, vzeros, bad = f()
    assert d is None
    close(zeros, np.zeros((2, 2)))
    close(vzeros, np.zeros((2, 2)))
    close(bad, 1.0)


def test_custom_gradient_forwardprop_in_function():
    # testCustomGradientForwardprop (graph mode; stop_gradient stands for tensor_util.constant_value, which
    # hides the forward from the tape): 2.0, 2.1, 2.2, 3.1.
    @tj.custom_gradient
    def f(x):
        z = 2. * tj.stop_gradient(x)

        def g(dz):
            @tj.custom_gradient
            def first_order(unused_x, unused_dz):
                return tj.constant(2.1), lambda unused_ddz: (tj.constant(2.2), tj.constant(3.1))
            return first_order(x, dz)
        return z, g

    @tj.function
    def run():
        with tj.GradientTape(persistent=True) as t:
            with tj.GradientTape() as tt:
                c = tj.constant(1.)
                t.watch(c)
                tt.watch(c)
                output_grad = tnp.ones([])
                t.watch(output_grad)
                output = f(c)
            gc = tt.gradient(output, c, output_gradients=output_grad)
        return output, gc, t.gradient(gc, c), t.gradient(gc, output_grad)
    close(run(), [2.0, 2.1, 2.2, 3.1])


def test_watch_bad_thing_in_function():
    # testWatchBadThing (graph mode)
    @tj.function
    def f(x):
        g = tj.GradientTape()
        with pytest.raises(ValueError, match="ndarray"):
            g.watch(np.array(1.))
        return x
    close(f(tj.constant(1.)), 1.)


# -- the same cases as recurring steps: replayed as one compiled program after two op-by-op passes ---------------

def test_tape_cases_replayed(replay_now):
    # testPersistentNestedTape, testTapeStopStartRecording, testUnconnectedGradientsZeros and
    # testTapeReset, each run as three identical steps: the third is replayed and gives TF's values too.
    w = tj.Variable(1.)
    for step in range(3):
        with tj.GradientTape(persistent=True) as p:
            x = tj.constant(3.0)
            p.watch(x)
            y = x * x
            with tj.GradientTape(persistent=True) as gg:
                gg.watch(y)
                z = 2 * y
            inner = gg.gradient(z, [y])[0]
            y += inner
        close([inner, p.gradient(y, [x])[0], p.gradient(z, [x])[0]], [2.0, 6.0, 12.0])
        with tj.GradientTape(persistent=True) as t:
            x2 = w * 2
            with t.stop_recording():
                y = x2 * x2
            z = x2 * x2
        assert t.gradient(y, x2) is None
        close([t.gradient(z, x2), t.gradient(z, w)], [4.0, 8.0])
        xz, yz = tnp.full([2, 2], 1.0), tj.constant(3.0)
        with tj.GradientTape() as g:
            g.watch([xz, yz])
            z = yz * 2
        close(g.gradient(z, xz, unconnected_gradients="zero"), np.zeros((2, 2)))
        with tj.GradientTape() as r:
            loss = w * w
            r.reset()
            loss += w * w
        close(r.gradient(loss, w), 2.0)
        if step == 2:
            how = [tape.last_replay for tape in (p, t, g, r)]
            assert all(h.startswith("replayed") for h in how), how


# -- an assignment that returns the variable is an access (TF's _lazy_read -> variable_accessed) ----------------

@pytest.mark.parametrize("op", ["assign", "assign_add", "assign_sub"])
def test_assignment_under_tape_watches_variable(op):
    # testAutomaticWatchedVariables' rule for writes, TF 2.21: v.assign*(...) (read_value=True) under a tape
    # lists v in watched_variables(); with read_value=False, with watch_accessed_variables=False, under
    # stop_recording, or for a non-trainable Variable it does not. An int32 trainable Variable is listed.
    v, u, iv = tj.Variable(2.), tj.Variable(1., trainable=False), tj.Variable(1)
    with tj.GradientTape() as t:
        getattr(v, op)(1.)
    assert t.watched_variables() == (v,)
    with tj.GradientTape() as t:
        getattr(v, op)(1., read_value=False)
    assert t.watched_variables() == ()
    with tj.GradientTape(watch_accessed_variables=False) as t:
        getattr(v, op)(1.)
    assert t.watched_variables() == ()
    with tj.GradientTape() as t:
        with t.stop_recording():
            getattr(v, op)(1.)
    assert t.watched_variables() == ()
    with tj.GradientTape() as t:
        getattr(u, op)(1.)
    assert t.watched_variables() == ()
    with tj.GradientTape() as t:
        getattr(iv, op)(1)
    assert t.watched_variables() == (iv,)


def test_assignment_watches_variable_in_function():
    # TF 2.21: inside a tf.function, a tape around v.assign_add(1.) watches v (1 watched variable); a tape
    # around a call of a tf.function that assigns v watches it too.
    v = tj.Variable(2.)

    @tj.function
    def g():
        with tj.GradientTape() as t:
            v.assign_add(1.)
        return len(t.watched_variables())
    assert int(g()) == 1

    @tj.function
    def f():
        v.assign_add(1.)
        return 0
    with tj.GradientTape() as t:
        f()
    assert t.watched_variables() == (v,)
