"""Gradients through tj.function against TensorFlow's own tests of gradients through tf.function
(tensorflow/python/eager/polymorphic_function/gradients_test.py, FunctionGradientsTest).

TF is not imported: its values are hard-coded, each test names the TF test it ports. TF's
``backprop.implicit_grad`` / ``gradients_function`` are ported as a GradientTape (over watched variables
or arguments), a TF1 graph-mode ``tf.gradients`` as ``tj.gradients`` inside an enclosing ``tj.function``,
``tf.cond`` as ``tj.numpy.where`` and ``tf.while_loop`` as a Python loop."""
import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy

# _COS_DERIVATIVES: cos and its first four derivatives.
COS_DERIVATIVES = [np.cos, lambda x: -np.sin(x), lambda x: -np.cos(x), np.sin, np.cos]


def close(actual, expected):
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=1e-6, atol=1e-6)


def _tape_grad_of_variables(f, *args):
    """TF's backprop.implicit_grad(f)(*args): gradients of f with respect to the variables it reads."""
    with tj.GradientTape() as t:
        y = f(*args)
    return t.gradient(y, t.watched_variables())


# -- first order ----------------------------------------------------------------------------------------
def test_graph_mode_with_gradients():
    # testGraphModeWithGradients / testGraphFunctionWithGradients: implicit_grad(v * v) inside a function = 2
    v = tj.Variable(1.0, name="v")

    @tj.function
    def step():
        return _tape_grad_of_variables(lambda: v * v)[0]

    out = step()
    close(out, 2.0)
    assert out.dtype == tj.float32 and out.shape == ()


def test_graph_gradient_variable():
    # testGraphGradientVariable: tf.gradients(f(), v) with f() = 2 * v -> 2.0 with v's shape
    v = tj.Variable(1.0)
    f = tj.function(lambda: 2.0 * v)

    @tj.function
    def outer():
        (g,) = tj.gradients(f(), v)
        return g

    g = outer()
    close(g, 2.0)
    assert g.shape == v.shape


def test_defun_differentiable_twice():
    # testDefunDifferentiable / testDefunCanBeDifferentiatedTwice: implicit_grad(f)()[0][0] == 2, twice
    v = tj.Variable(1.0)
    f = tj.function(lambda: v * v)
    for _ in range(2):
        grads = _tape_grad_of_variables(f)
        assert len(grads) == 1
        close(grads[0], 2.0)


def test_gradient_tensor_conversion_with_defun():
    # testGradientTensorConversionWithDefun: implicit_grad(f)(1.0) with f(x) = x + three -> 1.0
    three = tj.Variable(3.0, name="v")
    f = tj.function(lambda x: tnp.add(x, three))
    (g,) = _tape_grad_of_variables(f, tj.constant(1.0))
    close(g, 1.0)


def test_gradient_of_gather_with_defun():
    # testGradientOfGatherWithDefun: the same gradient with and without tf.function (TF compares the
    # IndexedSlices; densely that is [0, 1, 1])
    v = tj.Variable([0.0, 1.0, 2.0])

    def sum_gather():
        return tnp.sum(tnp.take(v, tj.constant([1, 2])))

    eager = _tape_grad_of_variables(sum_gather)
    traced = _tape_grad_of_variables(tj.function(sum_gather))
    assert len(eager) == len(traced) == 1
    close(eager[0], [0.0, 1.0, 1.0])
    close(traced[0], [0.0, 1.0, 1.0])


def test_defun_cond_gradient():
    # testDefunCondGradient: cond(x > 0.5, 2x, 3x) at x = 1 -> gradient 2
    f = tj.function(lambda x: tnp.where(x > 0.5, 2 * x, 3 * x))
    x = tj.constant(1.0)
    with tj.GradientTape() as t:
        t.watch(x)
        y = f(x)
    close(t.gradient(y, x), 2.0)


def test_graph_loop_gradient():
    # testGraphLoopGradient: two doublings in a loop -> gradient 4
    @tj.function
    def f(x):
        i = 0
        while i < 2:
            x, i = 2 * x, i + 1
        return x

    x = tj.constant(1.0)
    with tj.GradientTape() as t:
        t.watch(x)
        y = f(x)
    close(t.gradient(y, x), 4.0)


def test_graph_loop_gradient_closing_over_outer_tensor():
    # testGraphLoopGradientInsideSession: a function closing over x loops n = n * x from n = 2 until n >= 10
    # (three times at x = 2: TF's data-dependent while_loop, unrolled here); tf.gradients(l, [x]) -> 24
    @tj.function
    def outer(x):
        n = tj.constant(2.0)

        @tj.function
        def f():
            m = n
            for _ in range(3):
                m = m * x
            return m

        l = f()
        return l, tj.gradients(l, [x])[0]

    l, dx = outer(tj.constant(2.0))
    close(l, 16.0)
    close(dx, 24.0)


def test_symbolic_gradient_variable_none_not_zeros_like():
    # testSymbolicGradientVariableNoneNotZerosLike: a variable read but unused -> tf.gradients gives None
    v = tj.Variable(1.0)

    @tj.function
    def f(x, v):
        v.read_value()
        return x * x

    @tj.function
    def outer(x):
        dx, dv = tj.gradients(f(x, v), [x, v])
        assert dv is None
        return dx

    close(outer(tj.constant(1.0)), 2.0)


def test_variable_read_but_unused_under_outer_tape():
    # (same function under an eager tape) TF: tape.gradient(fv(x), [x, v]) at x=3 -> [6.0, None];
    # with unconnected_gradients=ZERO -> [6.0, 0.0]
    v = tj.Variable(1.0)

    @tj.function
    def fv(x):
        v.read_value()
        return x * x

    x = tj.constant(3.0)
    with tj.GradientTape(persistent=True) as t:
        t.watch(x)
        y = fv(x)
    dx, dv = t.gradient(y, [x, v])
    close(dx, 6.0)
    assert dv is None
    close(t.gradient(y, [x, v], unconnected_gradients=tj.UnconnectedGradients.ZERO), [6.0, 0.0])


def test_defun_call_backprop():
    # testDefunCallBackprop: gradients_function(f)(2.0)[0] inside a function, f(x) = x + x -> 2
    f = tj.function(lambda x: tnp.add(x, x))

    @tj.function
    def g(x):
        with tj.GradientTape() as t:
            t.watch(x)
            y = f(x)
        return t.gradient(y, x)

    close(g(tj.constant(2.0)), 2.0)


def test_defun_call_backprop_same_object_for_multiple_arguments():
    # testDefunCallBackpropUsingSameObjectForMultipleArguments: gradients_function(multiply, [0, 1])(x, x)
    # -> [1., 1.] (gradients_function makes the repeated argument two tensors), also for a Python float
    @tj.function
    def g(x):
        a, b = tj.identity(x), tj.identity(x)
        with tj.GradientTape() as t:
            t.watch([a, b])
            y = tnp.multiply(a, b)
        return t.gradient(y, [a, b])

    close([d.numpy() for d in g(tj.constant(1.0))], [1.0, 1.0])
    close([d.numpy() for d in g(1.0)], [1.0, 1.0])

    # A tape asked for the same source twice gives the whole gradient twice (TF: [6.0, 6.0] at x = 3).
    x = tj.constant(3.0)
    with tj.GradientTape() as t:
        t.watch(x)
        y = tnp.multiply(x, x)
    close(t.gradient(y, [x, x]), [6.0, 6.0])


def test_gradient_of_traced_matmul():
    # testGradient: matmul(x, x, transpose_a=True) through a function -> [[6, 6], [14, 14]]
    matmul = tj.function(lambda a, b: tnp.matmul(a.T, b))
    t = tj.constant([[1.0, 2.0], [3.0, 4.0]])
    with tj.GradientTape() as tape:
        tape.watch(t)
        y = matmul(t, t)
    close(tape.gradient(y, t), [[6.0, 6.0], [14.0, 14.0]])


def test_gradient_with_keyword_arguments():
    # testGradientWithKeywordArguments: the same gradient however the arguments are passed
    matmul = tj.function(lambda a, b, transpose_a=False: tnp.matmul(a.T if transpose_a else a, b))
    t = tj.constant([[1.0, 2.0], [3.0, 4.0]])
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(t)
        one = matmul(t, b=t, transpose_a=True)
        two = matmul(b=t, a=t, transpose_a=True)
        three = matmul(a=t, b=t, transpose_a=True)
    for output in [one, two, three]:
        close(tape.gradient(output, t), [[6.0, 6.0], [14.0, 14.0]])


def test_gradient_in_function():
    # testGradientInFunction / testGradientInFunctionWithKeywordArguments: d(y*y) at 1 -> 2
    @tj.function
    def f(x):
        with tj.GradientTape() as t:
            t.watch(x)
            y = x * x
        return t.gradient(y, x)

    close(f(tj.constant(1.0)), 2.0)
    close(f(x=tj.constant(1.0)), 2.0)


# -- None outputs ---------------------------------------------------------------------------------------
def test_differentiable_function_none_outputs():
    # testDifferentiableFunctionNoneOutputs: a None output stays None; the other output is differentiable
    my_function = tj.function(lambda x: (x, None))
    x0 = tj.constant(0.0)
    with tj.GradientTape() as t:
        t.watch(x0)
        y = my_function(x0)[0]
    close(t.gradient(y, x0), 1.0)

    foo = tj.function(lambda a: (None, a * a))
    x = tj.constant(5.0)
    with tj.GradientTape() as tp:
        tp.watch(x)
        none, r = foo(x)
    g = tp.gradient(r, x)
    assert none is None
    close(r, 25.0)
    close(g, 10.0)


def test_nested_differentiable_function_none_outputs():
    # testNestedDifferentiableFunctionNoneOutputs
    foo = tj.function(lambda a, b: (None, a * tnp.add(a, b), None, 2 * a))
    bar = tj.function(lambda x: foo(x, 1.0))
    x = tj.constant(5.0)
    with tj.GradientTape(persistent=True) as tp:
        tp.watch(x)
        none1, r1, none2, r2 = bar(x)
    close(r1, 30.0)
    close(r2, 10.0)
    assert none1 is None and none2 is None
    close(tp.gradient(r1, x), 11.0)
    close(tp.gradient(r2, x), 2.0)


# -- nested functions -----------------------------------------------------------------------------------
def test_sym_grad_gather_nd():
    # testSymGradGatherNd / testNoSymGradNestedDefun: tf.gradients(gather_nd(c, [[0]]), c) -> [[1.0]]
    # (TF returns IndexedSlices whose values are [[1.0]]; densely the same here)
    f = tj.function(lambda x: x[np.array([0])])

    @tj.function
    def outer(c):
        (g,) = tj.gradients(f(c), c)
        return g

    close(outer(tj.constant([[2.0]])), [[1.0]])

    @tj.function
    def outer_constant():
        c = tj.constant([[2.0]])
        (g,) = tj.gradients(tj.function(lambda x: x[np.array([0])])(c), c)
        return g

    close(outer_constant(), [[1.0]])


def _middle_fn():
    """inner_inner_fn(a, b) = a + b; inner_fn calls it; middle_fn(a, b) = a * inner_fn(a, b)."""
    inner_inner_fn = tj.function(lambda a, b: tnp.add(a, b))
    inner_fn = tj.function(lambda a, b: inner_inner_fn(a, b))
    return tj.function(lambda a, b: a * inner_fn(a, b))


def test_nested_differentiable_function():
    # testNestedDifferentiableFunction / testDeeplyNestedDifferentiableFunction: d/dx x * (x + 1) at 5 = 11
    inner_fn = tj.function(lambda a, b: a * tnp.add(a, b))
    middle_fn = _middle_fn()
    x = tj.constant(5.0)
    for outer_fn in (tj.function(lambda x: inner_fn(x, 1.0)), tj.function(lambda x: middle_fn(x, 1.0))):
        with tj.GradientTape() as tp:
            tp.watch(x)
            result = outer_fn(x)
        close(tp.gradient(result, x), 11.0)


def test_deeply_nested_differentiable_function_with_multiple_grad_calls():
    # testDeeplyNestedDifferentiableFunctionWithMultipleGradCalls
    inner_fn = tj.function(lambda a, b: tnp.add(a, b))
    middle_fn = tj.function(lambda a, b: tnp.multiply(a, inner_fn(a, b)))
    outer_fn = tj.function(lambda x: middle_fn(x, 3.0))

    def grad(f, x, *args):
        with tj.GradientTape() as tp:
            tp.watch(x)
            result = f(x, *args)
        return tp.gradient(result, x)

    x, y = tj.constant(5.0), tj.constant(4.0)
    close(outer_fn(x), 40.0)
    close(grad(outer_fn, x), 13.0)
    close(outer_fn(x), 40.0)
    close(middle_fn(3.0, x), 24.0)
    close(grad(outer_fn, x), 13.0)
    close(grad(outer_fn, y), 11.0)
    close(grad(lambda y: inner_fn(y, y), y), 2.0)


@pytest.mark.parametrize("levels", [0, 1, 2])
@pytest.mark.parametrize("how", ["tape", "tf.gradients"])
def test_deeply_nested_gradient_in_defun(levels, how):
    # testDeeplyNestedDifferentiableFunction{GradientTape,TFGradient}In{Defun,NestedDefun,MultNestedDefun}:
    # the gradient taken inside a function, itself called 0, 1 or 2 functions deep -> 2 * 5 + 1
    middle_fn = _middle_fn()

    @tj.function
    def almost_outer_fn(x):
        if how == "tape":
            with tj.GradientTape() as tp:
                tp.watch(x)
                result = middle_fn(x, 1.0)
            return tp.gradient(result, x)
        return tj.gradients(middle_fn(x, 1.0), [x])[0]

    f = almost_outer_fn
    for _ in range(levels):
        f = (lambda g: tj.function(lambda x: g(x)))(f)
    close(f(tj.constant(5.0)), 11.0)


def test_deeply_nested_differentiable_function_with_variable():
    # testDeeplyNestedDifferentiableFunctionWithVariable: middle_fn(x, var) with var = 1 -> 11
    var = tj.Variable(tj.constant(1.0))
    inner_fn = tj.function(lambda a, b: tnp.add(a, b))
    middle_fn = tj.function(lambda a, b: a * inner_fn(a, b))
    outer_fn = tj.function(lambda x: middle_fn(x, var))
    x = tj.constant(5.0)
    with tj.GradientTape() as tp:
        tp.watch(x)
        result = outer_fn(x)
    close(tp.gradient(result, x), 11.0)


def test_deeply_nested_differentiable_function_with_variable_multiple_grad_calls():
    # testDeeplyNestedDifferentiableFunctionWithVariableMultipleGradCalls: an assignment between calls is
    # seen by the next call (2 * 4 + 1.5)
    v = tj.Variable(tj.constant(3.0))
    inner_fn = tj.function(lambda a, b: tnp.add(a, b))
    middle_fn = tj.function(lambda a, b: tnp.multiply(a, inner_fn(a, b)))
    outer_fn = tj.function(lambda x: middle_fn(x, v))

    def grad(f, x):
        with tj.GradientTape() as tp:
            tp.watch(x)
            result = f(x)
        return tp.gradient(result, x)

    x, y = tj.constant(5.0), tj.constant(4.0)
    close(outer_fn(x), 40.0)
    close(grad(outer_fn, x), 13.0)
    close(outer_fn(x), 40.0)
    close(middle_fn(v, x), 24.0)
    close(grad(outer_fn, x), 13.0)
    close(grad(outer_fn, y), 11.0)
    v.assign(tj.constant(1.5))
    close(grad(outer_fn, y), 9.5)
    close(grad(lambda y: inner_fn(y, v), y), 1.0)

    # (and with respect to the Variable passed as an argument: TF gives 2 * 3 + 5 = 11 for v = 3)
    w = tj.Variable(3.0)
    with tj.GradientTape() as tp:
        result = middle_fn(w, tj.constant(5.0))
    close(tp.gradient(result, w), 11.0)


def test_deeply_nested_differentiable_function_with_variable_multiple_tf_grads():
    # testDeeplyNestedDifferentiableFunctionWithVariableMultipleTFGrads (graph mode: tf.gradients)
    v = tj.Variable(3.0)
    inner_fn = tj.function(lambda a, b: tnp.add(a, b))
    middle_fn = tj.function(lambda a, b: tnp.multiply(a, inner_fn(a, b)))
    outer_fn = tj.function(lambda x: middle_fn(x, v))
    grad_outer = tj.function(lambda x: tj.gradients(outer_fn(x), x)[0])
    grad_inner = tj.function(lambda y: tj.gradients(inner_fn(y, v), y)[0])

    x, y = tj.constant(5.0), tj.constant(4.0)
    close(outer_fn(x), 40.0)
    close(grad_outer(x), 13.0)
    close(outer_fn(x), 40.0)
    close(middle_fn(v, x), 24.0)
    close(grad_outer(x), 13.0)
    close(grad_outer(y), 11.0)
    v.assign(tj.constant(1.5))
    close(grad_outer(y), 9.5)
    close(grad_inner(y), 1.0)


def test_function_has_no_second_order_gradient():
    # testFunctionHasNoSecondOrderGradient: the tape-in-function gradient of a traced sparse softmax
    # cross-entropy builds (shape [2]); its value is softmax(logits + 1) - one_hot(1)
    v = tj.Variable(1.0)

    @tj.function
    def f(labels, logits):
        return tj.function(tj.nn.sparse_softmax_cross_entropy_with_logits)(labels=labels, logits=logits + v)

    @tj.function
    def f_grad():
        with tj.GradientTape() as tape:
            logits = tj.constant([1.0, 2.0])
            tape.watch(logits)
            out = f(tj.constant(1), logits)
        return tape.gradient(out, logits)

    g = f_grad()
    assert g.shape == (2,)
    p = np.exp([1.0, 2.0]) / np.exp([1.0, 2.0]).sum()
    close(g, p - np.array([0.0, 1.0]))


# -- higher order ---------------------------------------------------------------------------------------
def test_symbolic_higher_order():
    # testSymbolicHigherOrder: tf.gradients applied `order` times to a nested function's cos(x)
    @tj.function
    def f(x, order):
        y = tj.function(lambda: tnp.cos(x))()
        for _ in range(order):
            (y,) = tj.gradients(y, [x])
        return y

    for order, expected in enumerate(COS_DERIVATIVES):
        close(f(tj.constant(1.0), order), expected(1.0))


@pytest.mark.parametrize("persistent", [True, False])
def test_symbolic_higher_order_under_tape(persistent):
    # testSymbolicHigherOrderUnderTape: tf.gradients under an active tape, and on the tape's gradient
    @tj.function
    def f(x, order):
        with tj.GradientTape(persistent=persistent) as tape:
            tape.watch(x)
            y = tj.function(lambda: tnp.cos(x))()
        tape_dy = tape.gradient(y, x)
        for _ in range(order):
            (y,) = tj.gradients(y, [x])
        if order > 0:
            y1 = tape_dy
            for _ in range(order - 1):
                (y1,) = tj.gradients(y1, [x])
        else:
            y1 = y
        return y, y1

    for order, expected in enumerate(COS_DERIVATIVES):
        y, y1 = f(tj.constant(1.0), order)
        close(y, expected(1.0))
        close(y1, expected(1.0))


def _grad(f):
    """testIteratedGradientsNested's wrapper: ``f``'s gradient, taken on a tape of its own."""
    def _grad_function(primal):
        with tj.GradientTape() as tape:
            tape.watch(primal)
            primal_out = f(primal)
        return tape.gradient(primal_out, primal)
    return _grad_function


def test_iterated_gradients_nested():
    # testIteratedGradientsNested: tapes nested by wrapping, traced and untraced, to the 4th derivative
    f = tj.function(lambda x: tnp.cos(x))
    traced_f = tj.function(f)
    one = tj.constant(1.0)
    for order, expected in enumerate(COS_DERIVATIVES):
        close(f(one), expected(1.0))
        close(traced_f(one), expected(1.0))
        close(tj.function(f)(one), expected(1.0))
        f = _grad(f)
        traced_f = tj.function(_grad(traced_f))


def test_nested_traces_evaluate_inner_programs_linearly(monkeypatch):
    # (regression) each nesting level of tj.function(gradient of tj.function(...)) evaluated every inner
    # program several times more: the 4th derivative took ~25 s of tracing, evaluating the innermost
    # program 145 times. A call recorded inside a trace now makes its residuals only when a backward
    # asks for them, and a backward recorded by an outer tape makes its own.
    import tapejax.graph.function as function_module
    evaluations = []
    original = function_module.jaxpr_as_fun

    def counting(jaxpr):
        program, k = original(jaxpr), len(evaluations)
        evaluations.append(0)

        def run(*args):
            evaluations[k] += 1
            return program(*args)
        return run
    monkeypatch.setattr(function_module, "jaxpr_as_fun", counting)

    f = tj.function(lambda x: tnp.cos(x))
    for _ in range(4):
        f = tj.function(_grad(f))
    close(f(tj.constant(1.0)), COS_DERIVATIVES[4](1.0))
    assert len(evaluations) == 5
    assert evaluations[0] <= 60, evaluations  # (145 before)


def test_iterated_gradients_nested_with_variable():
    # testIteratedGradientsNestedWithVariable: gradients with respect to tape.watched_variables()
    def _grad(f):
        def _grad_function():
            with tj.GradientTape() as tape:
                primal_out = f()
            (g,) = tape.gradient(primal_out, tape.watched_variables())
            return g
        return _grad_function

    v = tj.Variable(2.0)
    f = tj.function(lambda: tnp.cos(v))
    for expected in COS_DERIVATIVES:
        close(f(), expected(2.0))
        close(tj.function(f)(), expected(2.0))
        f = _grad(f)


def test_iterated_gradients_persistent():
    # testIteratedGradientsPersistent: one persistent tape differentiating its own gradients
    f = tj.function(lambda z: tnp.cos(z))
    with tj.GradientTape(persistent=True) as tape:
        start = tj.constant(1.0)
        tape.watch(start)
        x = f(start)
        for expected in COS_DERIVATIVES:
            close(x, expected(1.0))
            x = tape.gradient(x, start)


def test_higher_order_with_variable():
    # testHigherOrderWithVariable
    v = tj.Variable(1.0)
    f = tj.function(lambda: tnp.cos(v))
    with tj.GradientTape(persistent=True) as tape:
        x = f()
        for expected in COS_DERIVATIVES:
            close(x, expected(1.0))
            (x,) = tape.gradient(x, tape.watched_variables())


def test_gradients_chained():
    # testGradientsChained: the gradient is linear in output_gradients: d/d(doutputs) = -sin(x)
    f = tj.function(lambda z: tnp.cos(z))
    x = tj.constant(1.0)
    with tj.GradientTape() as t:
        t.watch(x)
        y = f(x)
    with tj.GradientTape() as tt:
        doutputs = tj.constant(2.0)
        tt.watch(doutputs)
        g = t.gradient(y, x, doutputs)
    close(g, -2.0 * np.sin(1.0))
    close(tt.gradient(g, doutputs), -np.sin(1.0))


def test_second_order_through_function_with_tape_inside():
    # (FunctionGradientsTest theme) a function returning a tape gradient, differentiated by outer tapes.
    # TF at x = 3 for y = x**3: 2nd order 18.0, 3rd order 6.0
    @tj.function
    def gfn(x):
        with tj.GradientTape() as t:
            t.watch(x)
            y = x * x * x
        return t.gradient(y, x)

    x = tj.constant(3.0)
    with tj.GradientTape() as t2:
        t2.watch(x)
        with tj.GradientTape() as t:
            t.watch(x)
            g = gfn(x)
        gg = t.gradient(g, x)
    close(gg, 18.0)
    close(t2.gradient(gg, x), 6.0)


def test_nested_tapes_inside_function_over_function():
    # (theme) TF: both tapes inside a function over a traced x**3, at x = 3 -> [27.0, 18.0]
    @tj.function
    def f(x):
        with tj.GradientTape() as t2:
            t2.watch(x)
            with tj.GradientTape() as t1:
                t1.watch(x)
                y = tj.function(lambda a: a * a * a)(x)
            g = t1.gradient(y, x)
        return g, t2.gradient(g, x)

    g, gg = f(tj.constant(3.0))
    close(g, 27.0)
    close(gg, 18.0)


def test_tf_gradients_second_order_with_respect_to_variable():
    # (theme) TF: tf.gradients twice w.r.t. a Variable through a nested function, y = cos(v) * x at v=1, x=3
    # -> [-2.5244131, -1.6209069]
    v = tj.Variable(1.0)

    @tj.function
    def f(x):
        y = tj.function(lambda: tnp.cos(v) * x)()
        g1 = tj.gradients(y, v)[0]
        return g1, tj.gradients(g1, v)[0]

    g1, g2 = f(tj.constant(3.0))
    close(g1, -3.0 * np.sin(1.0))
    close(g2, -3.0 * np.cos(1.0))


# -- custom gradients, forward mode and closures through functions ----------------------------------------
def test_custom_gradient_inside_function_under_outer_tape():
    # (theme) TF at x = 3: cg(x) * x with cg's gradient 10 -> 10 * 3 + 2 * 3 = 36.0; a custom gradient
    # reading a Variable inside a function -> [7.0, 11.0]; second order through grad_fn (dy * x * x) -> 9, 6
    @tj.custom_gradient
    def cg(x):
        return x * 2.0, lambda dy: dy * 10.0

    x = tj.constant(3.0)
    fcg = tj.function(lambda x: cg(x) * x)
    with tj.GradientTape() as t:
        t.watch(x)
        y = fcg(x)
    close(t.gradient(y, x), 36.0)

    w = tj.Variable(2.0)

    @tj.custom_gradient
    def cgv(x):
        def grad(dy, variables=None):
            return dy * 7.0, [dy * 11.0 for _ in variables]
        return x * w, grad

    fcv = tj.function(lambda x: cgv(x))
    with tj.GradientTape() as t:
        t.watch(x)
        y = fcv(x)
    close(t.gradient(y, [x, w]), [7.0, 11.0])

    @tj.custom_gradient
    def cg2(x):
        return x * 2.0, lambda dy: dy * x * x

    fcg2 = tj.function(lambda x: cg2(x))
    with tj.GradientTape() as t2:
        t2.watch(x)
        with tj.GradientTape() as t1:
            t1.watch(x)
            y = fcg2(x)
        g = t1.gradient(y, x)
    close(g, 9.0)
    close(t2.gradient(g, x), 6.0)


def test_forward_accumulator_over_function():
    # (theme) TF at x = 3: jvp of cos(v) * x with tangents (1, 2) -> -4.5085235; of a function returning a
    # tape gradient d(sin(x) * x) -> -2.4033451
    v = tj.Variable(1.0)
    x = tj.constant(3.0)
    fwv = tj.function(lambda x: tnp.cos(v) * x)
    with tj.ForwardAccumulator([x, v], [tj.constant(1.0), tj.constant(2.0)]) as acc:
        y = fwv(x)
    close(acc.jvp(y), -4.508523464202881)

    @tj.function
    def ftape(x):
        with tj.GradientTape() as t:
            t.watch(x)
            y = tnp.sin(x) * x
        return t.gradient(y, x)

    with tj.ForwardAccumulator(x, tj.constant(1.0)) as acc:
        y = ftape(x)
    close(acc.jvp(y), -2.4033451080322266)


def test_closed_over_tensor_is_an_input():
    # (theme) TF: a Tensor a function closes over gets a gradient, from a tape (3.0) and from tf.gradients
    # in an enclosing function ([2.0, 3.0]), for x * c at x = 3, c = 2
    c = tj.constant(2.0)
    x = tj.constant(3.0)
    f = tj.function(lambda x: x * c)
    with tj.GradientTape() as t:
        t.watch(c)
        y = f(x)
    close(t.gradient(y, c), 3.0)
    g = tj.function(lambda x: tj.gradients(f(x), [x, c]))
    close(g(x), [2.0, 3.0])


def test_tf_gradients_unconnected_zero_and_grad_ys_in_function():
    # (theme) TF at x = 3: tf.gradients(x * x, [x, v], unconnected_gradients='zero') -> [6.0, 0.0];
    # tf.gradients(f(x), x, grad_ys=3.) through a nested function -> [18.0]
    v = tj.Variable(1.0)

    @tj.function
    def fz(x):
        y = x * x
        v.read_value()
        return tj.gradients(y, [x, v], unconnected_gradients="zero")

    x = tj.constant(3.0)
    close(fz(x), [6.0, 0.0])
    fgy = tj.function(lambda x: tj.gradients(tj.function(lambda a: a * a)(x), x, grad_ys=tj.constant(3.0)))
    close(fgy(x), [18.0])
