"""TensorFlow's gradients_test.py, ported to tapejax (tf.gradients -> tj.gradients inside a tj.function, as
API.md's "Compiled (graph) mode" says).

Each graph-mode test (``with ops.Graph().as_default(): ...``) becomes the body of a tj.function; TF1-only
machinery (sessions, colocation, graph op names, IndexedSlices, TensorLists, tf.while_loop internals) is out
of scope. The custom_gradient / recompute_grad / grad_pass_through (v2) parts are in
test_tf_customgrad_port.py. Expected values are TF 2.21's (the TF test's own, or TF 2.21 run on the same
program inside a tf.function), written here; TF is not imported.
"""
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from tapejax import numpy as tnp
from conftest import close


def _vals(grads):
    return [None if g is None else np.asarray(g).tolist() for g in grads]


# ------------------------------------------------------------------------------------------------------------
# GradientsTest
# ------------------------------------------------------------------------------------------------------------

def test_gradients_matmul_bias_add():
    # testGradients: h = bias_add(inp @ w, b) with ones inp (32, 100): d sum(h) / dw = inp^T @ ones = 32.
    @tj.function
    def f():
        inp, w, b = tnp.ones((32, 100)), tnp.ones((100, 10)), tnp.ones(10)
        return tj.gradients(tnp.matmul(inp, w) + b, w)

    (gw,) = f()
    close(gw, np.full((100, 10), 32.0))


def test_unused_output():
    # testUnusedOutput: c = sum(split(w @ x, 2)[1]) -> dc/dw = [[0, 0], [2, 2]] (TF 2.21)
    @tj.function
    def f():
        w, x = tnp.ones((2, 2)), tnp.ones((2, 2))
        split_wx = tnp.split(tnp.matmul(w, x), 2, axis=0)
        return tj.gradients(tnp.sum(split_wx[1]), [w])

    assert _vals(f()) == [[[0.0, 0.0], [2.0, 2.0]]]


def test_boundary_stop():
    # testBoundaryStop: x = identity(c); z = x + 1 + 1 -> gradients(z, [x]) is not None (1.0)
    @tj.function
    def f():
        c = tj.constant(1.0)
        x = tj.identity(c)
        y = x + 1.0
        z = y + 1
        return tj.gradients(z, [x])

    assert _vals(f()) == [1.0]


def test_boundary_continue():
    # testBoundaryContinue: x = 1, y = 2x, z = 3y: gradients(z, [x, y]) = [6, 3]
    @tj.function
    def f():
        x = tj.constant(1.0)
        y = x * 2.0
        z = y * 3.0
        return tj.gradients(z, [x, y])

    assert _vals(f()) == [6.0, 3.0]


@pytest.mark.parametrize("method", [tj.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N, tj.AggregationMethod.ADD_N,
                                    tj.AggregationMethod.EXPERIMENTAL_TREE, tj.AggregationMethod.DEFAULT, None,
                                    0, 1, 2, True, 1.0])
def test_aggregation_methods(method):
    # testAggregationMethodAccumulateN / AddN / Tree: z = ten times y, y = 2x -> [20, 10].
    # TF checks `method in [ADD_N, EXPERIMENTAL_TREE, EXPERIMENTAL_ACCUMULATE_N]` (ints 0, 1, 2), so any
    # equal number (True, 1.0) is accepted too (TF 2.21: [20.0, 10.0] for both).
    @tj.function
    def f():
        x = tj.constant(1.0)
        y = x * 2.0
        z = y + y + y + y + y + y + y + y + y + y
        return tj.gradients(z, [x, y], aggregation_method=method)

    assert _vals(f()) == [20.0, 10.0]


@pytest.mark.parametrize("method", [3, -1, 0.5, "add_n", object()])
def test_invalid_aggregation_method(method):
    # TF: ValueError "Invalid `aggregation_method` specified 3. ..." (TF 2.21, also for "add_n")
    @tj.function
    def f(x):
        return tj.gradients(x * 2.0, x, aggregation_method=method)

    with pytest.raises(ValueError, match="aggregation_method"):
        f(tj.constant(1.0))


def test_no_gradient_for_non_float_outputs():
    # testNoGradientForStringOutputs: a registered gradient of a two-output op whose second output is not a
    # float gets None for that output's gradient (TF: assertFalse(string_grad)), and the float one is float32.
    seen = []
    two_outputs = tj.op(lambda x: (x * 1.0, jnp.round(x).astype(jnp.int32)), name="tf_gradients_port_int_output")

    @tj.RegisterGradient("tf_gradients_port_int_output")
    def _grad(primals, cts):
        seen.append((cts[0].dtype, cts[1]))
        return (cts[0],)

    @tj.function
    def f(c):
        x, _ = two_outputs(c)
        z = x * 2.0
        w = z * 3.0
        return tj.gradients(z, [c]), tj.gradients(w, [c])

    gz, gw = f(tj.constant(1.0))
    assert isinstance(gz[0], tj.Tensor) and isinstance(gw[0], tj.Tensor)
    close(gz[0], 2.0)
    close(gw[0], 6.0)
    assert seen and all(d == jnp.float32 and s is None for d, s in seen)


def test_non_differentiable_int_path_gives_none():
    # testNonDifferentiableSwitchInWhileLoop (its point, without tf.while_loop): a target reached from v only
    # through an integer cast has no gradient. TF 2.21 in a tf.function: every one of these is [None].
    @tj.function
    def f(n, v):
        return (tj.gradients(n * 3, n),
                tj.gradients(n.astype(tj.float32) * v, n),
                tj.gradients(v.astype(tj.int32).astype(tj.float32) * 2.0, v),
                tj.gradients(v.astype(tj.int32) * 4, v),
                tj.gradients(tj.identity(n), n))

    for g in f(tj.constant(2), tj.constant(1.5)):
        assert _vals(g) == [None]


def test_variable_read_value_and_variable_as_target():
    # testVariableReadValueGradient / testVariableAsGraphElementGradient / testVariableRefGradient:
    # gradients(var.read_value(), var) and gradients(var, var) are not None (TF 2.21: [1.0]).
    var = tj.Variable(100.0)

    @tj.function
    def f():
        return tj.gradients(var.read_value(), var), tj.gradients(var, var), tj.gradients([var, var * 3.0], [var])

    a, b, c = f()
    assert _vals(a) == [1.0] and _vals(b) == [1.0] and _vals(c) == [4.0]


def test_variable_default_grad():
    # testVariableDefaultGrad: gradients(const 0.0, var, unconnected=ZERO) is zeros of var's dtype
    # (float64 needs JAX's x64; with it off tj.float64 is float32, as every tj dtype).
    var = tj.Variable(tj.constant(100.0))

    @tj.function
    def f():
        return tj.gradients(tj.constant(0.0), var, unconnected_gradients=tj.UnconnectedGradients.ZERO)[0]

    g = f()
    assert g is not None and g.dtype == var.dtype
    close(g, 0.0)


def test_dependent_ys():
    # testDependentYs: y = x^2, y2 = y^4 at x = 3: d(y + y2)/dx = 6 + 8 x^7 = 17502, whichever way ys are given
    @tj.function
    def f():
        x = tj.constant(3.0)
        y = tnp.square(x)
        y1 = tnp.square(y)
        y2 = tnp.square(y1)
        return (tj.gradients([y, y2], x), tj.gradients(y + y2, x),
                tj.gradients([tj.identity(y), tj.identity(y2)], x))

    for g in f():
        close(g[0], 17502.0)


def test_partial_derivatives():
    # testPartialDerivatives: x = 1, y = 2x, z = x + y: total [3, 1]; stop_gradients=[x, y]: [1, 1]
    @tj.function
    def f():
        x = tj.constant(1.0)
        y = 2 * x
        z = x + y
        return tj.gradients(z, [x, y]), tj.gradients(z, [x, y], stop_gradients=[x, y])

    total, partial = f()
    assert _vals(total) == [3.0, 1.0] and _vals(partial) == [1.0, 1.0]


def test_stop_gradients_kwarg_matches_stop_gradient_ops():
    # testStopGradients: for every subset of {a, b, c, d} made constant, gradients(d, subset) with
    # tf.stop_gradient ops in the graph equals gradients(d, subset, stop_gradients=constants) (None -> 0 * x).
    subsets = [""] + "a b c d ab ac ad bc bd cd abc abd acd bcd abcd".split()
    # Every subset as constants; as xs a few (a gradient w.r.t. one x does not depend on the other xs
    # listed, so all 16 as xs would only repeat these: TF's loop does, at 4x the compile time here).
    xs_subsets = ["", "a", "bd", "abcd"]
    seed = 7

    def make_graph(rng, stops=""):
        def function_of(xs, k=3):
            return tj.convert_to_tensor(sum((tnp.matmul(rng.rand(k, k).astype(np.float32), x) for x in xs),
                                            tj.constant(rng.rand(k, k).astype(np.float32))))
        a = function_of([])
        a = tj.stop_gradient(a) if "a" in stops else a
        b = function_of([a])
        b = tj.stop_gradient(b) if "b" in stops else b
        c = function_of([a, b])
        c = tj.stop_gradient(c) if "c" in stops else c
        d = function_of([b, c])
        d = tj.stop_gradient(d) if "d" in stops else d
        return dict(a=a, b=b, c=c, d=d)

    def grads(ys, xs, **kwargs):
        return [0.0 * x if g is None else g for x, g in zip(xs, tj.gradients(ys, xs, **kwargs))]

    @tj.function
    def f():
        graph = make_graph(np.random.RandomState(seed))
        out = []
        for constants in subsets:
            with_stops = make_graph(np.random.RandomState(seed), constants)
            for variables in xs_subsets:
                g1 = grads([with_stops["d"]], [with_stops[v] for v in variables])
                g2 = grads([graph["d"]], [graph[v] for v in variables], stop_gradients=[graph[v] for v in constants])
                out.append((g1, g2))
        return out

    results = f()
    assert len(results) == 16 * len(xs_subsets)
    for g1, g2 in results:
        for a, b in zip(g1, g2):
            close(a, b, rtol=1e-5, atol=1e-5)


def test_unconnected_gradients_none_zero_and_connected():
    # testUnconnectedGradientsNoneUnconnectedGradients / ...ZerosUnconnectedGradients / ...ZeroConnectedGradients
    @tj.function
    def f():
        x = tj.constant(1.0) * tnp.ones((2, 2))
        y = tj.constant(3.0) * tnp.ones((3, 1))
        c = tj.constant(1.0)
        return (tj.gradients([y], [x], unconnected_gradients="none"),
                tj.gradients([y], [x], unconnected_gradients="zero"),
                tj.gradients([c * 3.0], [c], unconnected_gradients="zero"))

    none, zero, connected = f()
    assert none == [None]
    assert _vals(zero) == [[[0.0, 0.0], [0.0, 0.0]]]
    assert _vals(connected) == [3.0]


def test_unknown_unconnected_gradients_value():
    # testUnknownUnconnectedGradientsValueGiven: the message TF's test matches
    @tj.function
    def f():
        x, y = tj.constant(1.0), tj.constant(1.0)
        return tj.gradients([y], [x], unconnected_gradients="nonsense")

    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients: 'nonsense'"):
        f()


@pytest.mark.parametrize("unconnected", [tj.UnconnectedGradients.ZERO, tj.UnconnectedGradients.NONE])
def test_unconnected_op_with_multiple_outputs(unconnected):
    # testUnconnectedOpWithMultipleOutputs (identity_n -> a two-output split): e = identity(c);
    # gradients(e, d): zeros with ZERO, None with NONE. ...StopGradient: e = stop_gradient(c) + d;
    # gradients(e, c) likewise (TF 2.21: [0.0] / [None] for both).
    @tj.function
    def f():
        c, d = tnp.split(tj.constant([1.0, 1.0]), 2)
        e1 = tj.identity(c)
        e2 = tj.stop_gradient(c) + d
        return (tj.gradients(e1, d, unconnected_gradients=unconnected),
                tj.gradients(e2, c, unconnected_gradients=unconnected))

    for (g,) in f():
        if unconnected is tj.UnconnectedGradients.ZERO:
            assert _vals([g]) == [[0.0]]
        else:
            assert g is None


# ------------------------------------------------------------------------------------------------------------
# tf.gradients argument semantics (checked against TF 2.21 inside a tf.function)
# ------------------------------------------------------------------------------------------------------------

def test_argument_semantics_match_tf():
    @tj.function
    def f(x, z, v):
        h = tnp.sin(v)
        y = v * 2.0
        return dict(
            duplicate_xs=tj.gradients(x * x, [x, x]),                          # [6, 6]
            not_on_path=tj.gradients(x * x, [z, x]),                          # [None, 6]
            unconnected_y=tj.gradients([z * 2.0, x * x], [x]),                # [6]
            ys_is_x=tj.gradients(x, x),                                       # [1]
            single_stop=tj.gradients(h * v, v, stop_gradients=h),             # [sin(0.5)]
            stop_is_x=tj.gradients(y * y, [v, y], stop_gradients=[v]),        # [4, 2]
            stop_is_y=tj.gradients(y, [v], stop_gradients=[y]),               # [None]
            grad_ys_none_entry=tj.gradients([x * x, x * 3.0], x, grad_ys=[None, 2.0]),  # [12]
            nested_ys=tj.gradients([[x * 2.0], x * 3.0], x),                  # [5]
            number_ys=tj.gradients(3.0, x),                                   # [None]
            empty_xs=tj.gradients(x * 2.0, []),                               # []
            empty_ys=tj.gradients([], [x]),                                   # [None]
            name_gate=tj.gradients(x * x, x, name="g", gate_gradients=True),  # [6]
        )

    r = f(tj.constant(3.0), tj.constant(1.0), tj.constant(0.5))
    expected = dict(duplicate_xs=[6.0, 6.0], not_on_path=[None, 6.0], unconnected_y=[6.0], ys_is_x=[1.0],
                    single_stop=[float(np.float32(np.sin(np.float32(0.5))))], stop_is_x=[4.0, 2.0],
                    stop_is_y=[None], grad_ys_none_entry=[12.0], nested_ys=[5.0], number_ys=[None], empty_xs=[],
                    empty_ys=[None], name_gate=[6.0])
    for k, want in expected.items():
        got = _vals(r[k])
        assert len(got) == len(want), k
        for g, w in zip(got, want):
            if w is None:
                assert g is None, k
            else:
                np.testing.assert_allclose(g, w, rtol=1e-6, err_msg=k)


def test_int_xs_with_zero_unconnected_are_int_zeros():
    # TF 2.21: gradients(v * 2.0, [v, n], unconnected_gradients="zero") with n int32 [2, 3] -> [2.0, [0, 0]]
    # (int32), and gradients(n * 3, n, "zero") -> 0 (an integer y sends nothing).
    @tj.function
    def f(n, v):
        return tj.gradients(v * 2.0, [v, n], unconnected_gradients="zero"), \
            tj.gradients(n[0] * 3, n, unconnected_gradients="zero")

    (gv, gn), (gk,) = f(tj.constant([2, 3]), tj.constant(1.5))
    close(gv, 2.0)
    assert gn.dtype == jnp.int32 and _vals([gn]) == [[0, 0]]
    assert _vals([gk]) == [[0, 0]]


def test_grad_ys_must_have_a_compatible_type():
    # TF's _DefaultGradYs: a bool (or string) grad_y for a float y, or a real one for a complex y, is a
    # TypeError ("Gradient type bool generated for real or integer-valued tensor ...").
    @tj.function
    def bool_grad_y(x):
        return tj.gradients(x * x, x, grad_ys=True)

    @tj.function
    def real_grad_y_for_complex(x):
        return tj.gradients(tnp.square(x), x, grad_ys=1.0)

    @tj.function
    def complex_grad_y(x):
        return tj.gradients(tnp.square(x), x, grad_ys=tj.constant(1 + 0j, tj.complex64))

    with pytest.raises(TypeError, match="Gradient type bool"):
        bool_grad_y(tj.constant(2.0))
    with pytest.raises(TypeError, match="must be complex"):
        real_grad_y_for_complex(tj.constant(7 + 3j, tj.complex64))
    # TF 2.21: d(x^2) seeded with 1 is conj(2x) = 14 - 6j for x = 7 + 3j
    (g,) = complex_grad_y(tj.constant(7 + 3j, tj.complex64))
    close(g, 14 - 6j)


def test_grad_ys_count_mismatch():
    # TF: ValueError "Length mismatch. Passed 1 grad_ys for 2 ys"
    @tj.function
    def f(x):
        return tj.gradients([x * x, x], x, grad_ys=[1.0])

    with pytest.raises(ValueError, match="Passed 1 grad_ys for 2 ys"):
        f(tj.constant(2.0))


# ------------------------------------------------------------------------------------------------------------
# FunctionGradientsTest (Defun -> tj.function; a grad_func -> tj.custom_gradient)
# ------------------------------------------------------------------------------------------------------------

def _x_square_plus_b(x, b):
    return x * x + b


def test_function_gradients_basic_and_composition():
    # testFunctionGradientsBasic: [4], [1]; testFunctionGradientsComposition: f(f(x, b1), b2) -> [40], [10]
    g = tj.function(_x_square_plus_b)

    @tj.function
    def basic():
        x, b = tj.constant([2.0]), tj.constant([1.0])
        return tj.gradients(g(x, b), [x, b])

    @tj.function
    def composition():
        x, b1, b2 = tj.constant([2.0]), tj.constant([1.0]), tj.constant([1.0])
        return tj.gradients(g(g(x, b1), b2), [x, b1])

    assert _vals(basic()) == [[4.0], [1.0]]
    assert _vals(composition()) == [[40.0], [10.0]]


def test_function_gradients_with_grad_func():
    # testFunctionGradientsWithGradFunc: a gradient function that doubles the incoming gradient -> [8], [2];
    # testFunctionGradientWithRegistration: one that triples it -> [12], [3].
    def with_grad(scale):
        @tj.custom_gradient
        def f(x, b):
            def grad(g):
                g = g * scale
                return g * 2.0 * x, g
            return _x_square_plus_b(x, b), grad
        return tj.function(f)

    for scale, want in [(2.0, [[8.0], [2.0]]), (3.0, [[12.0], [3.0]])]:
        fn = with_grad(scale)

        @tj.function
        def grads():
            x, b = tj.constant([2.0]), tj.constant([1.0])
            return tj.gradients(fn(x, b), [x, b])

        assert _vals(grads()) == want


def test_gradient_wrt_captured():
    # testGradientWrtCaptured / testCapturedResourceVariable: x (or a Variable) closed over -> 2.0
    x = tj.constant(1.0)
    var = tj.Variable(1.0)

    @tj.function
    def foo():
        return tj.gradients(tnp.multiply(x, 2.0), x)[0], tj.gradients(tnp.multiply(var, 2.0), var)[0]

    gx, gv = foo()
    close(gx, 2.0)
    close(gv, 2.0)


def test_captured_from_function():
    # testCapturedFromFunction: y = 2x in Outer; z = 3y in Inner; gradients(z, y) in Inner -> 3.0
    x = tj.constant(1.0)

    @tj.function
    def outer():
        y = x * 2.0

        @tj.function
        def inner():
            return tj.gradients(y * 3.0, y)[0]
        return inner()

    close(outer(), 3.0)


def test_captured_eager_tensors():
    # testCapturedEagerTensors: z = c * (x * c) with c eager, x made inside: dz/dx = c^2 = 4.0
    c = tj.constant(2.0)

    @tj.function
    def foo():
        x = tj.constant(10.0)
        y = tnp.multiply(x, c)
        z = tnp.multiply(c, y)
        return tj.gradients(z, x)[0]

    close(foo(), 4.0)


def test_gradients_of_eagerly_computed_captures():
    # testGradientOfCaptured / testCapturedNested with eager x, y (TF 2.21 eager: nothing of the eager
    # computation y = 2x is in any graph): gradients(y, x) inside a tf.function is [None]; the nested case
    # gives [1.0, 1.0] (only inner2 and x1 itself reach the xs).
    x = tj.constant(1.0)
    y = x * 2.0

    @tj.function
    def foo():
        return tj.gradients(y, x)

    assert foo() == [None]

    x1, x2 = tj.constant(1.0), tj.constant(2.0)
    x3 = x1 * x2

    @tj.function
    def outer():
        outer1 = tj.identity(x1)

        @tj.function
        def inner():
            return tj.gradients([tj.identity(outer1), tj.identity(x2), tj.identity(x3), x1], [x1, x2])
        return inner()

    assert _vals(outer()) == [1.0, 1.0]


def test_gradient_of_captured_in_graph():
    # testGradientOfCaptured, graph form (the TF test's Graph -> an outer tj.function): y = 2x made in the
    # enclosing function, gradients(y, x) in a nested one follows the capture back: 2.0 (TF 2.21, nested
    # tf.functions, gives 2.0 too, also when x is the outer function's argument).
    @tj.function
    def graph():
        x = tj.constant(1.0)
        y = tnp.multiply(x, 2.0)

        @tj.function
        def foo():
            return tj.gradients(y, x)[0]
        return foo()

    @tj.function
    def graph_arg(x):
        y = x * 2.0

        @tj.function
        def foo():
            return tj.gradients(y, x)
        return foo()

    close(graph(), 2.0)
    assert _vals(graph_arg(tj.constant(1.0))) == [2.0]


def test_captured_nested_in_graph():
    # testCapturedNested, graph form: x1, x2, x3 = x1 * x2 made in the enclosing function; Inner computes
    # gradients([identity(outer1), identity(x2), identity(x3), x1], [x1, x2]) -> 1 + 2 + 1 = 4.0 and
    # 1 + 1 = 2.0 (the TF test's values; TF 2.21 with nested tf.functions gives the same).
    @tj.function
    def graph():
        x1, x2 = tj.constant(1.0), tj.constant(2.0)
        x3 = tnp.multiply(x1, x2)

        @tj.function
        def outer():
            outer1 = tj.identity(x1)

            @tj.function
            def inner():
                return tj.gradients([tj.identity(outer1), tj.identity(x2), tj.identity(x3), x1], [x1, x2])
            return inner()
        return outer()

    assert _vals(graph()) == [4.0, 2.0]


def test_nested_gradients_cross_several_functions_and_orders():
    # TF 2.21: three levels, z = 3 x^2 with x the outermost argument -> 6x = 12; a second-order gradient
    # across the boundary: d2 sin(x)/dx2 = -sin(0.5); an outer tape over the whole call (d/dx of
    # d(x sin x)/dx = 2 cos x - x sin x = 1.5154524 at 0.5).
    @tj.function
    def three_levels(x):
        y = x * x

        @tj.function
        def mid():
            z = y * 3.0

            @tj.function
            def inn():
                return tj.gradients(z, x)
            return inn()
        return mid()

    @tj.function
    def second_order(x):
        y = tnp.sin(x)

        @tj.function
        def inner():
            (g,) = tj.gradients(y, x)
            return tj.gradients(g, x)
        return inner()

    @tj.function
    def first_order(x):
        y = tnp.sin(x)

        @tj.function
        def inner():
            return tj.gradients(y * x, x)[0]
        return inner()

    assert _vals(three_levels(tj.constant(2.0))) == [12.0]
    assert _vals(three_levels(tj.constant(3.0))) == [18.0]
    close(second_order(tj.constant(0.5))[0], -np.sin(0.5))
    x = tj.constant(0.5)
    with tj.GradientTape() as tape:
        tape.watch(x)
        r = first_order(x)
    close(r, 0.5 * np.cos(0.5) + np.sin(0.5))
    close(tape.gradient(r, x), 1.5154524)


def test_nested_gradients_do_not_cross_arguments_or_outside_captures():
    # TF 2.21, nested tf.functions: a nested function's argument is a placeholder of its own (gradients of
    # a * 3 w.r.t. the outer x, a = 2x passed as an argument: [None]; of the captured y = 2x w.r.t. x passed
    # as an argument: [None]); a Variable made outside every function is captured by each one separately
    # (gradients(var * 2 made in Outer, var) in Inner: [None]).
    var = tj.Variable(1.0)

    @tj.function
    def through_arg(x):
        @tj.function
        def inner(a):
            return tj.gradients(a * 3.0, x)
        return inner(x * 2.0)

    @tj.function
    def x_as_arg(x):
        y = x * 2.0

        @tj.function
        def inner(xa):
            return tj.gradients(y, xa)
        return inner(x)

    @tj.function
    def captured_var():
        y = var * 2.0

        @tj.function
        def inner():
            return tj.gradients(y, var)
        return inner()

    assert through_arg(tj.constant(1.0)) == [None]
    assert x_as_arg(tj.constant(1.0)) == [None]
    assert captured_var() == [None]


def test_nested_gradients_crossing_a_capture_stop_at_the_arguments():
    """TF 2.21: a nested function whose gradients cross into the enclosing graph through what it closes over (y,
    made from x) still sees its argument z = 2y as a placeholder: d(z*y)/dx = 3z = [18, 36], d/dy = z = [6, 12],
    d/dz = y = [3, 6]; the enclosing function's gradient of the result passes through the argument: 36x. tapejax
    ran the nested function inline and differentiated through z = 2y too: [36, 72] and [12, 24]."""
    @tj.function
    def outer(x):
        y = x * 3.0

        @tj.function
        def inner(z):
            r = z * y
            return r, tj.gradients(r, [x, y, z])
        r, g = inner(y * 2.0)
        return tj.gradients(r, [x]), g, tj.gradients(r * g[0], [x, y])

    (gx,), (g_x, g_y, g_z), (h_x, h_y) = outer(tj.constant([1.0, 2.0]))
    np.testing.assert_allclose(g_x.numpy(), [18.0, 36.0])
    np.testing.assert_allclose(g_y.numpy(), [6.0, 12.0])
    np.testing.assert_allclose(g_z.numpy(), [3.0, 6.0])
    np.testing.assert_allclose(gx.numpy(), [36.0, 72.0])
    np.testing.assert_allclose(h_x.numpy(), [972.0, 3888.0])  # (TF's values)
    np.testing.assert_allclose(h_y.numpy(), [324.0, 1296.0])


def test_nested_gradients_in_the_first_call_that_creates_variables():
    # The first call (it creates a Variable) and the later calls agree: d(x v)/dx = v = 3, and
    # d/dv = x = 2 (TF 2.21 traces both calls: [3.0, 2.0]).
    class Layer:
        v = None

    layer = Layer()

    @tj.function
    def f(x):
        if layer.v is None:
            layer.v = tj.Variable(3.0)
        y = x * layer.v

        @tj.function
        def inner():
            return tj.gradients(y, [x]), tj.gradients(y, [x, layer.v])
        return inner()

    for _ in range(2):
        gx, both = f(tj.constant(2.0))
        assert _vals(gx) == [3.0] and _vals(both) == [3.0, 2.0]


def test_nested_function_with_assignment_runs_inline_once():
    # A nested function whose gradient crosses runs inline in the enclosing trace: its assignment happens
    # once per call and is seen by the read after it (y = 3x; w += 1; d(y w)/dx = 3 w).
    w = tj.Variable(1.0)

    @tj.function
    def outer(x):
        y = x * 3.0

        @tj.function
        def inner():
            w.assign_add(1.0)
            return tj.gradients(y * w, x)[0]
        return inner(), w * 1.0

    for expected_w in (2.0, 3.0):
        g, seen = outer(tj.constant(1.0))
        assert _vals([g, seen, w]) == [3.0 * expected_w, expected_w, expected_w]


# ------------------------------------------------------------------------------------------------------------
# StopGradientTest, HessianVectorProductTest, HessianTest, IndexedSlicesToTensorTest (dense), OnlyRealGradientsTest,
# ResourceCondTest, CustomGradientTest (the tf.gradients parts not in test_tf_customgrad_port.py),
# GradPassThroughTest (v1)
# ------------------------------------------------------------------------------------------------------------

def test_stop_gradient():
    @tj.function
    def f():
        inp = tnp.ones((100, 32))
        return tj.gradients(tj.stop_gradient(inp), inp)

    assert f() == [None]


def test_hessian_vector_product():
    # testHessianVectorProduct: f(x) = x^T A x, H v = (A + A^T) v, as _hessian_vector_product computes it
    # (gradients of gradients * stop_gradient(v)).
    m = 4
    rng = np.random.RandomState([1, 2, 3])
    mat = rng.randn(m, m).astype("float32")
    v = rng.randn(m, 1).astype("float32")
    x = rng.randn(m, 1).astype("float32")

    @tj.function
    def hvp(x):
        x_mat_x = tnp.matmul(tnp.transpose(x), tnp.matmul(mat, x))
        (g,) = tj.gradients(x_mat_x, [x])
        return tj.gradients(g * tj.stop_gradient(tj.constant(v)), [x])[0]

    close(hvp(tj.constant(x)), (mat + mat.T) @ v, rtol=1e-5, atol=1e-5)


def _hessians(y, x):
    """tf.hessians(y, x)[0] with tj.gradients: the gradient of each component of the gradient."""
    (g,) = tj.gradients(y, x)
    flat = tnp.reshape(g, (-1,))
    rows = [tj.gradients(flat[i], x)[0] for i in range(flat.shape[0])]
    return tnp.reshape(tnp.stack(rows), tuple(x.shape) + tuple(x.shape))


def test_hessian_1d_and_multi():
    # testHessian1D / testHessian1D_multi: sum(x[:, None] * A * x[None, :]) has Hessian A + A^T
    m, n = 4, 3
    rng = np.random.RandomState([1, 2, 3])
    mats = [rng.randn(m, m).astype("float32") for _ in range(n)]
    xs = [rng.randn(m).astype("float32") for _ in range(n)]

    @tj.function
    def hess(*xs):
        return [_hessians(tnp.sum(x[:, None] * mat * x[None, :]), x) for x, mat in zip(xs, mats)]

    for got, mat in zip(hess(*[tj.constant(x) for x in xs]), mats):
        close(got, mat + mat.T, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("m, n", [(3, 3), (3, 4)])
def test_hessian_2d(m, n):
    # testHessian2D_square_matrix / _non_square_matrix: sum(x^T x * 0.5) has Hessian blocks eye(m) x ones(n, n)
    rng = np.random.RandomState([1, 2, 3])
    x = rng.randn(m, n).astype("float32")

    @tj.function
    def hess(x):
        return _hessians(tnp.sum(tnp.matmul(tnp.transpose(x), x) * 0.5), x)

    got = hess(tj.constant(x))
    want = np.block([[e * np.ones((n, n)) for e in row] for row in np.eye(m)]).astype("float32")
    assert tuple(got.shape) == (m, n, m, n)
    close(tnp.reshape(got, (m * n, m * n)), want)


def test_indexed_slices_dense_parts():
    # testIndexedSlicesToTensor / ...List (the dense values only): multiply(c, 1.0) == c; stack of them.
    vals = [np.random.RandomState(i).rand(4, 4, 4, 4).astype(np.float32) for i in range(3)]
    close(tnp.multiply(tj.constant(vals[0]), 1.0), vals[0])
    close(tnp.stack([tj.constant(v) for v in vals]), np.stack(vals))


def test_only_real_gradients():
    # testRealOnly: TypeError r"Gradients of complex tensors .* must set grad_ys \(y\.dtype = complex64\)"
    @tj.function
    def f():
        x = tj.constant(7 + 3j, dtype=tj.complex64)
        return tj.gradients(tnp.square(x), x)

    with pytest.raises(TypeError, match=r"Gradients of complex tensors .* must set grad_ys \(y\.dtype = complex64\)"):
        f()


def test_resource_cond():
    # ResourceCondTest.testBasic (tf.cond on a tensor predicate -> tnp.where): gradients(loss, [gamma]) has no
    # None; TF 2.21 gives ones when the predicate is True and zeros when it is False.
    gamma = tj.Variable(np.random.RandomState(0).random_sample(3).astype(np.float32))
    inputs = tnp.ones(3)

    @tj.function
    def f(training):
        output = tnp.where(training, inputs + gamma, inputs)
        return tj.gradients(output, [gamma])

    assert _vals(f(tj.constant(True))) == [[1.0, 1.0, 1.0]]
    assert _vals(f(tj.constant(False))) == [[0.0, 0.0, 0.0]]


def test_custom_gradient_switched_ordering_and_method():
    # testCustomGradient / testCustomGradientClass: Grad returns [dy * x1, dy * x2] (switched): [3, 5]
    @tj.custom_gradient
    def my_multiply(x1, x2):
        return x1 * x2, lambda dy: [dy * x1, dy * x2]

    class Model:
        @tj.custom_gradient
        def multiply(self, x1, x2):
            return x1 * x2, lambda dy: (dy * x1, dy * x2)

    @tj.function
    def f():
        x1, x2 = tj.constant(3.0), tj.constant(5.0)
        return tj.gradients(my_multiply(x1, x2), [x1, x2]), tj.gradients(Model().multiply(x1, x2), [x1, x2])

    a, b = f()
    assert _vals(a) == [3.0, 5.0] and _vals(b) == [3.0, 5.0]


def test_custom_gradient_errors_propagate():
    # testCustomGradientErrors: a grad_fn raising RuntimeError makes tf.gradients raise RuntimeError
    @tj.custom_gradient
    def F(x):
        def Grad(_):
            raise RuntimeError("x")
        return x, Grad

    @tj.function
    def f(x):
        return tj.gradients(F(x), x)

    with pytest.raises(RuntimeError):
        f(tj.constant(1.0))


def test_custom_gradient_with_capture():
    # testCustomGradientWithCapture: MyMultiply(x, y) with x captured, gradients(res, [y]) -> dy * x2 = 5
    x = tj.constant(3.0)

    @tj.custom_gradient
    def my_multiply(x1, x2):
        return x1 * x2, lambda dy: [dy * x1, dy * x2]

    @tj.function
    def F(y):
        return tj.gradients(my_multiply(x, y), [y])

    assert _vals(F(tj.constant(5.0))) == [5.0]


def test_grad_pass_through_v1():
    # GradPassThroughTest.test_gradients_v1 with tj.gradients: assign is not differentiable -> None;
    # grad_pass_through(x.assign)(z**2) -> 2z = 6; grad_pass_through(lambda v: x * v)(z) w.r.t. x -> None
    x = tj.Variable(1.0)
    z = tj.Variable(3.0)

    @tj.function
    def f():
        return (tj.gradients(x.assign(z ** 2), z),
                tj.gradients(tj.grad_pass_through(x.assign)(z ** 2), z),
                tj.gradients(tj.grad_pass_through(lambda v: x * v)(z), x))

    a, b, c = f()
    assert a == [None] and _vals(b) == [6.0] and c == [None]


def test_recompute_grad_with_tj_gradients():
    # VariablesGradientTest.testFnRecomputeWithScopeGradient (use_tape=False: tf.gradients in a graph) and
    # testCustomGradientRecomputeGradHigherOrder: recompute_grad(f) has f's gradients w.r.t. a Variable read
    # inside and w.r.t. its input, and its third-order derivative, through tj.gradients.
    var = tj.Variable(np.arange(10, dtype=np.float32))

    def test_fn(x):
        return tnp.sin(x * var)

    recomputed = tj.recompute_grad(test_fn)

    @tj.function
    def f(x):
        return tj.gradients(recomputed(x), [var, x]), tj.gradients(test_fn(x), [var, x])

    grads_re, grads = f(tj.constant(np.linspace(0, 1, 100, dtype=np.float32).reshape(10, 10)))
    for g_re, g in zip(grads_re, grads):
        close(g_re, g, atol=1e-6)

    @tj.function
    def orders(x):
        (g,) = tj.gradients(tj.recompute_grad(lambda x: tnp.prod(tnp.tanh(x) ** 2))(x), x)
        (gg,) = tj.gradients(g, x)
        return g, gg, tj.gradients(gg, x)[0]

    # d^k/dx^k tanh(x)^2 at 1: 2 t (1 - t^2), 2 (1 - t^2)(1 - 3 t^2), -8 t (1 - t^2)(2 - 3 t^2)
    t = np.tanh(1.0)
    g, gg, ggg = orders(tj.constant([1.0]))
    close(g, [2 * t * (1 - t ** 2)], rtol=1e-5)
    close(gg, [2 * (1 - t ** 2) * (1 - 3 * t ** 2)], rtol=1e-5)
    close(ggg, [-8 * t * (1 - t ** 2) * (2 - 3 * t ** 2)], rtol=1e-4)


def test_complex_sources_follow_tf_convention():
    # TF 2.21: tf.gradients(abs(z)**2, z) = 2z = [2+4j, 6-2j]; of sum(real(z*z)) = 2 conj(z) = [2-4j]
    @tj.function
    def f(z, w):
        return tj.gradients(tnp.abs(z) ** 2, z)[0], tj.gradients(tnp.sum(tnp.real(w * w)), w)[0]

    a, b = f(tj.constant([1 + 2j, 3 - 1j], tj.complex64), tj.constant([1 + 2j], tj.complex64))
    close(a, [2 + 4j, 6 - 2j])
    close(b, [2 - 4j])
