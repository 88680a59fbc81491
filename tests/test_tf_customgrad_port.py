"""TensorFlow's own custom-gradient tests, ported to tapejax (tf.X -> tj.X as API.md says).

Sources: tensorflow/python/ops/gradients_test.py (CustomGradientTest, VariablesGradientTest,
GradPassThroughTest, GetDependentVariablesTest in its eager form), recompute_grad_test.py (values only) and
the tf.custom_gradient docstring. The graph-mode tests (tf.gradients inside a Graph) run inside a
tj.function with tj.gradients. Expected values are TF 2.21's, written here; TF is not imported.
"""
import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from tapejax import numpy as tnp
from conftest import close


def _f(t):
    return float(np.asarray(t))


# ------------------------------------------------------------------------------------------------------------
# Tapes that do not take the custom op see through to the ops f ran (TF eager: the outputs are
# identity(result), recorded like any op; record_operation of the custom op overrides them only on the tapes
# that watch one of its inputs).
# ------------------------------------------------------------------------------------------------------------

def _nested_op():
    # the tf.custom_gradient docstring's nesting example: grad_fn is itself a custom gradient of dy only
    @tj.custom_gradient
    def op(x):
        y = x * x * x

        @tj.custom_gradient
        def grad_fn(dy):
            gdy = 3.0 * x * x * dy

            def grad_grad_fn(ddy):  # "not the 2nd order gradient of op w.r.t. x" (docstring)
                return ddy * 1000.0
            return gdy, grad_grad_fn
        return y, grad_fn
    return op


def test_docstring_nested_custom_gradient_second_order_wrt_x():
    # TF eager: t2.gradient(t1.gradient(op(x), x), x) at x=2 is d(3x^2)/dx = 12.0: the outer tape does not
    # watch dy, so it does not take grad_fn's custom op and differentiates the ops grad_fn ran
    op = _nested_op()
    x = tj.constant(2.0)
    with tj.GradientTape() as t2:
        t2.watch(x)
        with tj.GradientTape() as t1:
            t1.watch(x)
            y = op(x)
        d = t1.gradient(y, x)
    close(d, 12.0)
    close(t2.gradient(d, x), 12.0)


def test_docstring_nested_custom_gradient_wrt_dy_uses_grad_grad_fn():
    # TF eager: watching dy too, t2 takes the inner op: [None, 1000.0] for [x, dy]
    op = _nested_op()
    x, dy = tj.constant(2.0), tj.constant(1.0)
    with tj.GradientTape() as t2:
        t2.watch([x, dy])
        with tj.GradientTape() as t1:
            t1.watch(x)
            y = op(x)
        d = t1.gradient(y, x, output_gradients=dy)
    gx, gdy = t2.gradient(d, [x, dy])
    assert gx is None
    close(gdy, 1000.0)


def test_docstring_nested_custom_gradient_forward_over_backward():
    # TF eager: the accumulator does not know dy, so it sees 3*x*x*dy: jvp 12.0
    op = _nested_op()
    x = tj.constant(2.0)
    with tj.ForwardAccumulator(x, tj.constant(1.0)) as acc:
        with tj.GradientTape() as t1:
            t1.watch(x)
            y = op(x)
        d = t1.gradient(y, x)
    close(acc.jvp(d), 12.0)


def test_docstring_nested_custom_gradient_tapes_inside_function():
    # the same program inside a tj.function gives the eager answer (one set of rules)
    op = _nested_op()

    @tj.function
    def f(x):
        with tj.GradientTape() as t2:
            t2.watch(x)
            with tj.GradientTape() as t1:
                t1.watch(x)
                y = op(x)
            d = t1.gradient(y, x)
        return d, t2.gradient(d, x)
    d, dd = f(tj.constant(2.0))
    close(d, 12.0)
    close(dd, 12.0)


def test_docstring_nested_custom_gradient_outer_tapes_over_function_call():
    # an outer tape over a tj.function call differentiates the same program: 12.0, as eager
    op = tj.function(_nested_op())
    x = tj.constant(2.0)
    with tj.GradientTape() as t2:
        t2.watch(x)
        with tj.GradientTape() as t1:
            t1.watch(x)
            y = op(x)
        d = t1.gradient(y, x)
    close(d, 12.0)
    close(t2.gradient(d, x), 12.0)


def test_docstring_nested_custom_gradient_jax_transforms():
    # jax.grad / jax.jvp over tj code follow the same rule: a custom op none of whose inputs is being
    # differentiated is seen through (jax.grad(jax.grad(f))(2.0) = 12.0)
    op = _nested_op()
    f = lambda a: op(tj.Tensor(a)).value  # noqa: E731
    close(jax.grad(f)(2.0), 12.0)
    close(jax.grad(jax.grad(f))(2.0), 12.0)
    close(jax.jvp(jax.grad(f), (2.0,), (1.0,))[1], 12.0)


def _closure_op(c):
    @tj.custom_gradient
    def F(x):
        return x * c * c, lambda dy: dy * 10.0
    return F


def test_unwatched_input_watched_closure_sees_forward_ops():
    # TF eager: y = F(x) with only the closed-over c watched: dy/dc = 2*x*c = 12.0 (grad_fn not used)
    c, x = tj.constant(2.0), tj.constant(3.0)
    with tj.GradientTape() as t:
        t.watch(c)
        y = _closure_op(c)(x)
    close(t.gradient(y, c), 12.0)


def test_watched_input_hides_forward_ops():
    # TF eager: watching x as well, the tape takes the custom op: [None, 10.0] for [c, x]
    c, x = tj.constant(2.0), tj.constant(3.0)
    with tj.GradientTape() as t:
        t.watch([c, x])
        y = _closure_op(c)(x)
    gc, gx = t.gradient(y, [c, x])
    assert gc is None
    close(gx, 10.0)


@pytest.mark.parametrize("x_tape_outer", [False, True])
def test_each_tape_decides_for_itself(x_tape_outer):
    # TF eager: a tape watching x uses grad_fn (10.0), a tape watching only c sees x*c*c (12.0), nested
    # either way
    c, x = tj.constant(2.0), tj.constant(3.0)
    with tj.GradientTape() as outer:
        outer.watch(x if x_tape_outer else c)
        with tj.GradientTape() as inner:
            inner.watch(c if x_tape_outer else x)
            y = _closure_op(c)(x)
    tx, tc = (outer, inner) if x_tape_outer else (inner, outer)
    close(tx.gradient(y, x), 10.0)
    close(tc.gradient(y, c), 12.0)


def test_accumulator_on_closure_sees_forward_ops():
    # TF eager: ForwardAccumulator(c, 1.0) over F(x): jvp 12.0
    c, x = tj.constant(2.0), tj.constant(3.0)
    with tj.ForwardAccumulator(c, tj.constant(1.0)) as acc:
        y = _closure_op(c)(x)
    close(acc.jvp(y), 12.0)


def test_closure_under_jax_grad():
    # jax.grad w.r.t. the closed-over c only sees x*c*c (12.0); w.r.t. both, x takes the rule (10.0) and c
    # gets zero (a tape's None)
    x = tj.constant(3.0)
    close(jax.grad(lambda c: _closure_op(tj.Tensor(c))(x).value)(2.0), 12.0)
    gc, gx = jax.grad(lambda c, x: _closure_op(tj.Tensor(c))(tj.Tensor(x)).value, argnums=(0, 1))(2.0, 3.0)
    close(gc, 0.0)
    close(gx, 10.0)


def test_recompute_grad_closure_stays_hidden():
    # TF eager: recompute_grad runs f under stop_recording, so a watched closure gets None
    c, x = tj.constant(2.0), tj.constant(3.0)
    g = tj.recompute_grad(lambda x: x * c * c)
    with tj.GradientTape() as t:
        t.watch(c)
        y = g(x)
    assert t.gradient(y, c) is None


def test_under_stop_recording_nothing_recorded():
    x = tj.constant(1.0)
    with tj.GradientTape() as t:
        t.watch(x)
        with t.stop_recording():
            y = _closure_op(tj.constant(2.0))(x)
    assert t.gradient(y, x) is None


# ------------------------------------------------------------------------------------------------------------
# CustomGradientTest (gradients_test.py)
# ------------------------------------------------------------------------------------------------------------

def test_custom_gradient_trivial_eager_and_function():
    # testCustomGradientTrivial: MyIdentity(MyIdentity(x)) with grad 3*dy -> 9.0
    @tj.custom_gradient
    def MyIdentity(x):
        return x, lambda dy: [3 * dy]

    x = tj.constant(3.0)
    with tj.GradientTape() as t:
        t.watch(x)
        y = MyIdentity(MyIdentity(x))
    close(t.gradient(y, x), 9.0)
    close(tj.function(lambda x: tj.gradients(MyIdentity(MyIdentity(x)), x)[0])(x), 9.0)


def test_custom_gradient_with_variables_tj_gradients_in_grad_fn():
    # testCustomGradientWithVariables: grad_fn computes tf.gradients(out, [x, variables[0]]) and returns ones
    # (4, 3) for the variable: sum(dw) = 12.0
    w = tj.Variable(np.full((4, 3), 0.5, np.float32))

    @tj.custom_gradient
    def F(x):
        out = tnp.matmul(x, w)

        def Grad(out_grad, variables=None):
            assert len(variables) == 1
            grads = tj.gradients(out, [x, variables[0]], grad_ys=out_grad)
            return grads[0], [tnp.ones((4, 3))]
        return out, Grad

    grads = tj.function(lambda x: tj.gradients(F(x), [x, w]))(tnp.ones((2, 4)))
    assert all(g is not None for g in grads)
    close(tnp.sum(grads[1]), 12.0)


def test_custom_gradient_with_variables_no_false_positives_eager():
    # testCustomGradientWithVariablesNoFalsePositives: variables read before F are not F's variables;
    # sum of the last variable's gradient = 9.0, every gradient not None
    ws = [tj.Variable(np.full(s, 0.5, np.float32)) for s in [(4, 3), (3, 3), (3, 3), (3, 3)]]

    @tj.custom_gradient
    def F(x):
        out = tnp.matmul(x, ws[3])

        def Grad(out_grad, variables=None):
            assert variables == [ws[3]] or (len(variables) == 1 and variables[0] is ws[3])
            return tnp.matmul(out_grad, tnp.transpose(ws[3])), [tnp.ones((3, 3))]
        return out, Grad

    a = tnp.ones((2, 4))
    with tj.GradientTape() as t:
        b = tnp.matmul(a, ws[0])
        c = tnp.matmul(b, ws[1])
        x = tnp.matmul(b, ws[2]) + c
        y = F(x)
    grads = t.gradient(y, [x] + ws)
    assert all(g is not None for g in grads)
    close(tnp.sum(grads[-1]), 9.0)


@pytest.mark.parametrize("anonymous_varargs", [True, False])
def test_custom_gradient_variables_kwonly_args(anonymous_varargs):
    # testCustomGradientVariablesKwonlyArgs: grad_fn gets the very Variable object; dy/dx = 4*3 = 12.0
    x_captured = tj.Variable(3.0)

    @tj.custom_gradient
    def FuncMult(x):
        def ActualGrad(dy, variables):
            assert len(variables) == 1 and variables[0] is x_captured
            return 4.0 * x_captured * dy, [5.0 * x * dy]
        if anonymous_varargs:
            def GradMult(dy, *, variables=None):
                return ActualGrad(dy, variables)
        else:
            def GradMult(*dys, variables=None):
                return ActualGrad(dys[0], variables)
        return x * x_captured, GradMult

    x = tj.Variable(6.0)
    with tj.GradientTape(persistent=True) as g:
        y = FuncMult(x)
    close(g.gradient(y, x), 12.0)
    close(g.gradient(y, x_captured), 30.0)


def test_recursive_custom_gradient_in_function():
    # testRecursiveCustomGradient: DoubleF(x) = F(x), both reading the same variable; sum(dw) = 12.0
    w = tj.Variable(np.full((4, 3), 0.5, np.float32))

    def make(inner):
        @tj.custom_gradient
        def G(x):
            out = inner(x)

            def Grad(out_grad, variables=None):
                assert len(variables) == 1
                grads = tj.gradients(out, [x, variables[0]], grad_ys=out_grad)
                return grads[0], [tnp.ones((4, 3))]
            return out, Grad
        return G

    DoubleF = make(make(lambda x: x @ w))
    grads = tj.function(lambda x: tj.gradients(DoubleF(x), [x, w]))(tnp.ones((2, 4)))
    assert all(g is not None for g in grads)
    close(tnp.sum(grads[1]), 12.0)


def _map(f, s):
    # tf.nest.map_structure over tuples/lists, None a leaf
    if isinstance(s, (list, tuple)):
        return type(s)(_map(f, x) for x in s)
    return f(s)


def _flatten(s):
    if isinstance(s, (list, tuple)):
        return [y for x in s for y in _flatten(x)]
    return [s]


@pytest.mark.parametrize("x_struct,y_struct", list(itertools.product(
    [(None, ()), (((), ()), [None, None], [], (None, ()))],
    [[None, ()], (None, (), [], (None, ((), None)))])))
def test_custom_gradient_structural_input_output(x_struct, y_struct):
    # testCustomGradientStructuralInputOutput: structures (with empty tuples/lists) survive both ways
    def Zeros(s):
        return _map(lambda _: tnp.zeros([], "float32"), s)

    def GetStruct(s):
        return _map(lambda _: None, s)

    @tj.custom_gradient
    def F(*x):
        assert GetStruct(x) == x_struct

        def Vjp(*dy):
            assert len(dy) == len(_flatten(y_struct))
            return _flatten(Zeros(x_struct))
        return Zeros(y_struct), Vjp

    x, dy = Zeros([x_struct, y_struct])
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(_flatten(x))
        y = F(*x)
    dx = tape.gradient(y, x, output_gradients=dy)
    assert GetStruct(dx) == x_struct
    assert GetStruct(y) == y_struct


def test_with_numpy_inputs_smoke():
    # testWithNumpyInputs
    @tj.custom_gradient
    def F(x):
        return x, lambda _: (None, None)
    close(F(np.ones((3, 2), dtype=np.float32)), np.ones((3, 2)))


def test_grad_fn_none_for_an_input():
    # TF eager: grad_fn returning None for x gives None, zeros with UnconnectedGradients.ZERO
    @tj.custom_gradient
    def F(x, y):
        return x * y, lambda dy: (None, dy * x)

    x, y = tj.constant(2.0), tj.constant(3.0)
    with tj.GradientTape(persistent=True) as t:
        t.watch([x, y])
        z = F(x, y)
    gx, gy = t.gradient(z, [x, y])
    assert gx is None
    close(gy, 2.0)
    gx, gy = t.gradient(z, [x, y], unconnected_gradients=tj.UnconnectedGradients.ZERO)
    close(gx, 0.0)


def test_wrong_counts_name_both_counts():
    # TF: "custom_gradient function expected to return 2 gradients, but returned 1 instead." (a Python
    # float argument counts as an input, as TF's nest.flatten(args))
    @tj.custom_gradient
    def F(x, s):
        return x * s, lambda dy: (dy * s,)

    x = tj.constant(2.0)
    with tj.GradientTape() as t:
        t.watch(x)
        z = F(x, 3.0)
    with pytest.raises(ValueError, match=r"expected 2 gradients.*returned 1"):
        t.gradient(z, x)


def test_variable_output_is_not_a_variable_read_inside():
    # TF eager: returning a Variable reads it after f (identity), so it is not one of grad_fn's variables:
    # a grad_fn returning (dx, [dw]) has returned 2 gradients for 1 input -> ValueError
    w = tj.Variable(2.0)

    @tj.custom_gradient
    def F(x):
        return w, lambda dy, variables=None: (dy * 3.0, [dy * 4.0])

    x = tj.constant(1.0)
    with tj.GradientTape() as t:
        t.watch(x)
        y = F(x)
    with pytest.raises(ValueError, match=r"expected 1 gradients.*returned 2"):
        t.gradient(y, [x, w])


def test_variable_argument_and_closure_read():
    # TF eager: F(v) reads w and v; v is an input, so grad_fn gets variables=[w]: grads [3.0, 7.0]
    w, v = tj.Variable(2.0), tj.Variable(5.0)
    seen = []

    @tj.custom_gradient
    def F(a):
        def g(dy, variables=None):
            seen.append(list(variables))
            return dy * 3.0, [dy * 7.0]
        return a * w * v, g

    with tj.GradientTape() as t:
        z = F(v)
    gv, gw = t.gradient(z, [v, w])
    close(gv, 3.0)
    close(gw, 7.0)
    assert len(seen[0]) == 1 and seen[0][0] is w


def test_dependent_variables_eager_forms():
    # GetDependentVariablesTest, eager: the trainable variables read inside f, also through ones_like and
    # through a nested custom gradient taking the variable as its argument; non-trainable ones are not
    def seen_vars(body):
        seen = []

        @tj.custom_gradient
        def F(x):
            out = body(x)

            def grad(dy, variables=None):
                seen.append(variables)
                return (dy, [None] * len(variables)) if variables else dy
            return out, grad

        x = tj.constant(2.0)
        with tj.GradientTape() as t:
            t.watch(x)
            y = F(x)
        t.gradient(y, x)
        return seen[0]

    vt = tj.Variable(np.full(5, 100.0, np.float32))
    vn = tj.Variable(np.full(5, 100.0, np.float32), trainable=False)
    assert seen_vars(lambda x: x + 5.0) is None  # testNoVariables
    got = seen_vars(lambda x: vt + vn)  # testVariablesOutsideAndNonTrainable
    assert len(got) == 1 and got[0] is vt
    got = seen_vars(lambda x: x + 5.0 + tnp.ones_like(vt))  # eager reads vt (TF eager gives [var])
    assert len(got) == 1 and got[0] is vt

    @tj.custom_gradient
    def MyOnesLike(x):
        return tnp.ones_like(x), lambda dy: dy
    got = seen_vars(lambda x: x + 5.0 + MyOnesLike(vt))  # testVariablesOutsideAndCustomGradient
    assert len(got) == 1 and got[0] is vt


def test_custom_gradient_with_variables_in_function_under_outer_tape():
    # TF: tf.function(lambda x: F(x) * 3) under an outer tape: [30.0, 300.0] for [x, w]
    w = tj.Variable(2.0)

    @tj.custom_gradient
    def F(x):
        return x * w, lambda dy, variables=None: (dy * 10.0, [dy * 100.0])

    f = tj.function(lambda x: F(x) * 3.0)
    x = tj.constant(1.5)
    with tj.GradientTape() as t:
        t.watch(x)
        y = f(x)
    gx, gw = t.gradient(y, [x, w])
    close(gx, 30.0)
    close(gw, 300.0)


def test_custom_gradient_higher_order_with_variable():
    # TF eager: y = x*w*w with grad_fn (dy*w*w, [dy*2*x*w]) at x=2, w=1.5:
    # gx 2.25, gw 6.0, d(gx)/[x, w] = [None, 3.0], d(gw)/[x, w] = [None, 4.0]
    w = tj.Variable(1.5)

    @tj.custom_gradient
    def F(x):
        def g(dy, variables=None):
            return dy * w * w, [dy * 2.0 * x * w]
        return x * w * w, g

    x = tj.constant(2.0)
    with tj.GradientTape(persistent=True) as t2:
        with tj.GradientTape() as t1:
            t1.watch(x)
            y = F(x)
        gx, gw = t1.gradient(y, [x, w])
    close(gx, 2.25)
    close(gw, 6.0)
    a, b = t2.gradient(gx, [x, w])
    assert a is None
    close(b, 3.0)
    a, b = t2.gradient(gw, [x, w])
    assert a is None
    close(b, 4.0)


# ------------------------------------------------------------------------------------------------------------
# VariablesGradientTest: recompute_grad
# ------------------------------------------------------------------------------------------------------------

def _grad(f, argnums=0):
    def F(*params):
        with tj.GradientTape() as tape:
            tape.watch(params)
            outputs = f(*params)
        return tape.gradient(outputs, params[argnums], unconnected_gradients=tj.UnconnectedGradients.ZERO)
    return F


def test_recompute_grad_wrapped():
    def f(x):
        return 2 * x
    assert tj.recompute_grad(f).__wrapped__ is f


def test_recompute_grad_zero_size_input():
    def F(x):
        return 2 * x
    x = tj.constant(())
    for fn in (F, tj.function(F)):
        g = _grad(tj.recompute_grad(fn))(x)
        assert g.shape == (0,) and g.dtype == jnp.float32


def test_recompute_grad_different_dtypes_inputs():
    # TF: the int32 argument's gradient with UnconnectedGradients.ZERO is int32 0, with or without recompute
    def F(x1, x2):
        return 2 * x1, 2 * x2
    x1, x2 = tj.constant(1, dtype=tj.int32), tj.constant(1.0)
    with pytest.warns(UserWarning):
        for fn in (F, tj.function(F)):
            g = _grad(tj.recompute_grad(fn))(x1, x2)
            assert g.dtype == jnp.int32 and int(g) == 0


def test_recompute_grad_higher_order():
    # testCustomGradientRecomputeGradHigherOrder: reduce_prod(tanh(x)**2) at [1.]; TF's first three
    # derivatives 0.6397, -0.6216267, -0.6650909
    @tj.recompute_grad
    def F(x):
        return tnp.prod(tnp.tanh(x) ** 2)

    x = tj.constant([1.0])
    g1 = _grad(F)
    g2 = _grad(g1)
    g3 = _grad(g2)
    close(g1(x), [0.6397], rtol=1e-4)
    close(g2(x), [-0.6216267], rtol=1e-4)
    close(g3(x), [-0.6650909], rtol=1e-4)


@pytest.mark.parametrize("seq", [False, True])
@pytest.mark.parametrize("wrt_var", [False, True])
def test_fn_recompute(seq, wrt_var):
    # testFnRecompute: inputs * input_vars (and the 2-output form), w.r.t. the tensor or the Variable
    def TestFn(inputs, input_vars):
        out = inputs * input_vars
        return (out, out * 2.0) if seq else out

    test_var = tj.Variable(np.ones([10], np.float32))
    test_input = tj.constant(np.ones((10, 10), np.float32))
    target = test_var if wrt_var else test_input
    fre = tj.recompute_grad(TestFn)
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(target)
        out_re = fre(test_input, target)
        out = TestFn(test_input, target)
    g_re, g = tape.gradient(out_re, target), tape.gradient(out, target)
    assert g_re is not None
    close(g_re, g)


def test_fn_recompute_same_tensor():
    # testFnRecomputeSameTensor: f(x, x) -> x*y gives 2.0, x gives 1.0 everywhere
    x = tnp.ones((10,))
    for fn, want in ((lambda a, b: a * b, 2.0), (lambda a, b: a, 1.0)):
        fre = tj.recompute_grad(fn)
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = fre(x, x)
        close(tape.gradient(y, x), np.full(10, want))


def test_recompute_grad_second_order_wrt_variable_api_mandated():
    # TF eager raises NotImplementedError here (the inner custom op's "transpose"); API.md requires second
    # order w.r.t. Variables read inside: the values are those of f without recompute_grad
    w = tj.Variable(0.7)
    f = lambda x: tnp.sin(x * w) * w  # noqa: E731
    x = tj.constant(1.3)
    got = []
    for fn in (tj.recompute_grad(f), f):
        with tj.GradientTape(persistent=True) as t2:
            with tj.GradientTape() as t1:
                t1.watch(x)
                y = fn(x)
            gx, gw = t1.gradient(y, [x, w])
        got.append([gx, gw, t2.gradient(gx, w), t2.gradient(gw, w)])
    for a, b in zip(*got):
        close(a, b, rtol=1e-5)
    close(got[0][2], 0.35633, rtol=1e-4)
    close(got[0][3], 0.66176, rtol=1e-4)


def test_recompute_grad_kwargs_nested_args_and_function():
    # TF eager: kwargs reach f but get no gradient; nested arguments; in a tj.function under an outer tape
    g = tj.recompute_grad(lambda x, scale=1.0: tnp.sin(x) * scale)
    x, s = tj.constant(1.3), tj.constant(3.0)
    with tj.GradientTape() as t:
        t.watch([x, s])
        y = g(x, scale=s)
    gx, gs = t.gradient(y, [x, s])
    close(y, 2.89067, rtol=1e-5)
    close(gx, 0.8025, rtol=1e-4)
    assert gs is None
    g = tj.recompute_grad(lambda d, l: d["a"] * l[0] + tnp.sin(l[1]))
    a, b, c = tj.constant(2.0), tj.constant(3.0), tj.constant(0.5)
    with tj.GradientTape() as t:
        t.watch([a, b, c])
        y = g({"a": a}, [b, c])
    close(t.gradient(y, [a, b, c]), [3.0, 2.0, 0.87758], rtol=1e-4)
    w = tj.Variable(0.7)
    f = tj.function(tj.recompute_grad(lambda x: tnp.sin(x * w) * w))
    with tj.GradientTape() as t:
        t.watch(x)
        y = f(x)
    close(t.gradient(y, [x, w]), [0.30074, 1.34801], rtol=1e-4)


def test_recompute_grad_recomputation_not_merged_by_xla():
    # recompute_grad_test.py (RecomputeGradXla): under jit_compile the recomputation must not be merged with
    # the forward pass (TF adds a data dependency on dresult; jax.checkpoint an optimization barrier on the
    # recomputation's inputs), else XLA's CSE keeps every activation alive. The traced backward carries the
    # barrier; values, first and second order (also through a tj.function call) are those of f.
    def f(x):
        for _ in range(3):
            x = tnp.sin(tnp.matmul(x, x))
        return x

    def step(fn):
        def run(a):
            x = tj.Tensor(a)
            with tj.GradientTape() as tape:
                tape.watch(x)
                out = fn(fn(x))[0][0]
            return out.value, tape.gradient(out, x).value
        return run

    a = jnp.full((8, 8), 0.1, jnp.float32)
    hlo = jax.jit(step(tj.recompute_grad(f))).lower(a).compiler_ir("hlo").as_hlo_text()
    assert "opt-barrier" in hlo
    (v_re, g_re), (v, g) = jax.jit(step(tj.recompute_grad(f)))(a), jax.jit(step(f))(a)
    close(v_re, v)
    close(g_re, g, rtol=1e-5)
    x = tj.constant(np.asarray(a))
    with tj.GradientTape() as t2:
        t2.watch(x)
        with tj.GradientTape() as t1:
            t1.watch(x)
            y = tnp.sum(tj.function(tj.recompute_grad(f))(x))
        d = t1.gradient(y, x)
        dd = tnp.sum(d * d)
    with tj.GradientTape() as u2:
        u2.watch(x)
        with tj.GradientTape() as u1:
            u1.watch(x)
            y = tnp.sum(f(x))
        e = u1.gradient(y, x)
        ee = tnp.sum(e * e)
    close(d, e, rtol=1e-5)
    close(t2.gradient(dd, x), u2.gradient(ee, x), rtol=1e-4, atol=1e-5)


def test_recompute_grad_under_accumulator_raises():
    # TF: NotImplementedError "recompute_grad tried to transpose grad of ..."
    g = tj.recompute_grad(tnp.sin)
    x = tj.constant(0.4)
    with pytest.raises(NotImplementedError, match="recompute_grad"):
        with tj.ForwardAccumulator(x, tj.constant(1.0)):
            g(x)


# ------------------------------------------------------------------------------------------------------------
# GradPassThroughTest
# ------------------------------------------------------------------------------------------------------------

def test_grad_pass_through_v2():
    # test_gradients_v2: assign is not differentiable (None); grad_pass_through(x.assign)(z**2) gives 6.0;
    # variables used inside get None
    x, z = tj.Variable(1.0, name="x"), tj.Variable(3.0, name="z")
    with tj.GradientTape() as tape:
        y = x.assign(z ** 2)
    assert tape.gradient(y, z) is None
    with tj.GradientTape() as tape:
        y = tj.grad_pass_through(x.assign)(z ** 2)
    close(tape.gradient(y, z), 6.0)
    close(x, 9.0)
    with tj.GradientTape() as tape:
        y = tj.grad_pass_through(lambda v: x * v)(z)
    assert tape.gradient(y, x) is None


def test_grad_pass_through_assign_in_function_and_assign_add():
    # TF: inside tf.function under an outer tape [6.0, None] for [z, x], x becomes 9.0;
    # grad_pass_through(x.assign_add)(z**2) * 2 gives [12.0, None], x becomes 10.0
    x, z = tj.Variable(1.0), tj.Variable(3.0)
    f = tj.function(lambda: tj.grad_pass_through(x.assign)(z ** 2))
    with tj.GradientTape() as t:
        y = f()
    gz, gx = t.gradient(y, [z, x])
    close(gz, 6.0)
    assert gx is None
    close(x, 9.0)
    x = tj.Variable(1.0)
    with tj.GradientTape() as t:
        y = tj.grad_pass_through(x.assign_add)(z ** 2) * 2.0
    gz, gx = t.gradient(y, [z, x])
    close(gz, 12.0)
    assert gx is None
    close(x, 10.0)


def test_grad_pass_through_second_order_and_kwargs():
    # TF eager: y = gpt(v*0)(z**3): dy/dz = 3z^2 = 27, d2 = 6z = 18; kwargs reach f
    z = tj.constant(3.0)
    with tj.GradientTape() as t2:
        t2.watch(z)
        with tj.GradientTape() as t1:
            t1.watch(z)
            y = tj.grad_pass_through(lambda v: v * 0.0)(z ** 3)
        d = t1.gradient(y, z)
    close(d, 27.0)
    close(t2.gradient(d, z), 18.0)
    with tj.GradientTape() as t:
        t.watch(z)
        y = tj.grad_pass_through(lambda a, scale=1.0: a * scale)(z, scale=5.0)
    close(y, 15.0)
    close(t.gradient(y, z), 1.0)
