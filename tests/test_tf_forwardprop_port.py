"""TensorFlow's forwardprop_test.py (tensorflow/python/eager) ported to tapejax.

Each test names the TF test it follows; TF's expected values are hard-coded (TF is not needed here).
TF's private helpers are ported with tj APIs: ``_jvp`` (an accumulator around ``f``), ``_jacfwd`` (one
JVP per one-hot tangent), ``_grad`` (a tape) and ``_hvp`` (an accumulator around a tape). Tests that only
exercise TF internals (``_jvp_dispatch``, ``pack_tangents``, ``record_operation_*``, distribution) are
not ported.
"""
import jax
import numpy as np
import pytest

import tapejax as tj
from tapejax import numpy as tnp
from conftest import close

ZERO = tj.UnconnectedGradients.ZERO


def _jvp(f, primals, tangents):
    with tj.ForwardAccumulator(primals, tangents) as acc:
        out = f(*primals)
    return out, acc.jvp(out, unconnected_gradients=ZERO)


def _jacfwd(f, primals):
    """Forward-mode Jacobian of f at a list of primals: per primal, [output size, primal size]."""
    jac, mask = [], [tnp.zeros_like(p) for p in primals]
    for i, p in enumerate(primals):
        n = int(np.prod(p.shape))
        cols = []
        for e in range(n):
            mask[i] = tnp.reshape(tj.nn.one_hot(e, n), p.shape)
            cols.append(tnp.reshape(_jvp(f, primals, list(mask))[1], [-1]))
        jac.append(tnp.stack(cols, axis=1))
        mask[i] = tnp.zeros_like(p)
    return jac


def _grad(f):
    def g(*params):
        with tj.GradientTape() as tape:
            tape.watch(params)
            out = f(*params)
        return tape.gradient(out, params[0], unconnected_gradients=ZERO)
    return g


def _hvp(f, primals, tangents):
    with tj.ForwardAccumulator(primals, tangents) as acc:
        with tj.GradientTape() as tape:
            tape.watch(primals)
            out = f(*primals)
        return acc.jvp(tape.gradient(out, primals))


# --- fixed differences -------------------------------------------------------------------------------

def test_recompute_grad_in_function_under_outer_accumulator_raises():
    # testExceptionCustomGradientRecomputeGradForward, with the recompute_grad call inside a tf.function
    # under the accumulator: TF raises NotImplementedError("recompute_grad tried to transpose grad of r.
    # ...") there too (the function's forward pass runs the accumulator's transposition); tapejax computed
    # a tangent through the traced program.
    @tj.recompute_grad
    def r(x):
        return tnp.prod(tnp.tanh(x) ** 2)

    x = tj.constant([1., 2.])
    with pytest.raises(NotImplementedError, match="recompute_grad tried to transpose"):
        with tj.ForwardAccumulator(x, tj.constant([1., 0.])):
            tj.function(r)(x)
    # the same rule on the jax.jvp path (API.md: one set of rules)
    with pytest.raises(NotImplementedError, match="recompute_grad tried to transpose"):
        jax.jvp(lambda a: r(tj.Tensor(a)).value, (x.value,), (x.value,))
    # reverse mode through the traced program is unaffected, first and second order
    with tj.GradientTape() as t2:
        t2.watch(x)
        with tj.GradientTape() as t1:
            t1.watch(x)
            y = tj.function(r)(x)
        g = t1.gradient(y, x)
    h = t2.jacobian(g, x)
    fn = lambda a: jax.numpy.prod(jax.numpy.tanh(a) ** 2)
    close(g, jax.grad(fn)(x.value), rtol=1e-5)
    close(h, jax.hessian(fn)(x.value), rtol=1e-4, atol=1e-6)


def test_exception_recompute_grad_forward_eager():
    # testExceptionCustomGradientRecomputeGradForward: _jacfwd(f, [tf.constant([1.])]) raises
    # NotImplementedError matching "recompute_grad tried to transpose"
    @tj.recompute_grad
    def f(x):
        return tnp.prod(tnp.tanh(x) ** 2)
    with pytest.raises(NotImplementedError, match="recompute_grad tried to transpose"):
        _jacfwd(f, [tj.constant([1.])])


def test_batch_accumulator_unconnected_zero_has_primal_shape():
    # TF ForwardAccumulator.jvp: a missing JVP with unconnected_gradients="zero" is zeros_like(tensor),
    # also on a _batch_accumulator: TF gives [0., 0.] for a (2,) primal with a batch of 3 tangents.
    x = tj.constant([1., 2.])
    basis = tj.constant([[1., 0.], [0., 1.], [1., 1.]])
    with tj.ForwardAccumulator._batch_accumulator(x, basis) as acc:
        y = tj.constant([3., 4.])
        z = tnp.sin(x)
    close(acc.jvp(z), np.cos([1., 2.])[None] * basis.numpy(), rtol=1e-6)
    assert acc.jvp(y) is None
    z0 = acc.jvp(y, unconnected_gradients="zero")
    assert z0.shape == (2,)
    close(z0, [0., 0.])


def test_non_float_primal_keeps_its_tangent_but_nothing_propagates_it():
    # TF ForwardAccumulator._watch only logs for a non-float primal and watches it: with i = [3, 4] watched
    # with [1, 2], TF gives jvp(i) = [1, 2] (int32) and None for cast(i) * 2., identity(i) and a gather by i;
    # an int Variable watched with 5 gives jvp(v) = 5.
    i = tj.constant([3, 4])
    with pytest.warns(UserWarning):
        acc = tj.ForwardAccumulator(i, tj.constant([1, 2]))
    with acc:
        j = i.astype(tj.float32) * 2.
        g = tnp.take(tj.constant([1., 2., 3., 4., 5.]), i)
        k = i + 0
    ji = acc.jvp(i)
    assert ji.dtype == tj.int32
    close(ji, [1, 2])
    close(acc.jvp(i, unconnected_gradients="zero"), [1, 2])
    assert acc.jvp(j) is None and acc.jvp(g) is None and acc.jvp(k) is None
    v = tj.Variable(3)
    with pytest.warns(UserWarning):
        acc = tj.ForwardAccumulator(v, 5)
    close(acc.jvp(v), 5)


def test_function_python_number_outputs_are_tensors():
    # ControlFlowTests.testOfFunctionCond returns `0.` from a tf.function branch; tf.function returns every
    # Python number as a Tensor (TF: (x, 3, 2.5, True, None) -> (x, int32 3, float32 2.5, bool True, None)),
    # so acc.jvp / tape.gradient of it work: None (nothing reaches it), zeros with "zero".
    @tj.function
    def has_cond(k, y):
        return 3. * y if k > 1 else 0.
    y = tj.constant(1.)
    with tj.ForwardAccumulator(y, 1.) as acc:
        r5, r0 = has_cond(5, y), has_cond(0, y)
    assert isinstance(r0, tj.Tensor) and r0.dtype == tj.float32
    close(acc.jvp(r5), 3.)
    assert acc.jvp(r0) is None
    close(acc.jvp(r0, unconnected_gradients="zero"), 0.)
    out = tj.function(lambda x: (x, 3, 2.5, True, None, "s"))(tj.constant(1.))
    assert [o.dtype for o in out[1:4]] == [tj.int32, tj.float32, tj.bool]
    close(out[1], 3)
    close(out[2], 2.5)
    assert out[4] is None and out[5] == "s"


def test_function_returning_a_closed_over_tensor():
    # A tf.function returning a Tensor it closes over, as it is: TF makes the capture an input of the call,
    # so with x, c watched with tangents (1, 10), jvp(f(x)) = 10 for f = lambda a: c, and a tape gives
    # gradients [None, 1] for [x, c] (tapejax returned the captured value as a constant: None, or 0).
    x, c = tj.constant(2.), tj.constant(5.)
    f = tj.function(lambda a: c)
    g = tj.function(lambda a: (a, c * a))
    with tj.ForwardAccumulator([x, c], [1., 10.]) as acc:
        y, (y0, y1) = f(x), g(x)
    close(acc.jvp(y), 10.)
    close(acc.jvp(y0), 1.)
    close(acc.jvp(y1), 25.)
    with tj.GradientTape() as tape:
        tape.watch([x, c])
        y = f(x)
    gx, gc = tape.gradient(y, [x, c])
    assert gx is None
    close(gc, 1.)


# --- ForwardpropTest, ported -------------------------------------------------------------------------

def test_multiple_watches_add():
    # testMultipleWatchesAdd: acc._watch(x, t) adds t to x's tangent: 3 -> 13 -> 24, jvp(3 * x) = 72
    x = tj.constant(-2.)
    with pytest.raises(ValueError, match="multiple times"):
        tj.ForwardAccumulator([x, x], [1., 2.])
    with tj.ForwardAccumulator([x], [3.]) as acc:
        close(acc.jvp(x), 3.)
        acc._watch(x, tj.constant(10.))
        close(acc.jvp(x), 13.)
        acc._watch(x, tj.constant(11.))
        close(acc.jvp(x), 24.)
        y = tj.constant(3.) * x
    close(acc.jvp(x), 24.)
    close(acc.jvp(y), 72.)


def test_reenter():
    # testReenter: jvp after exit, ValueError "already recording", and recording again after re-entering
    x = tj.constant(-2.)
    with tj.ForwardAccumulator(x, 1.5) as acc:
        close(acc.jvp(x), 1.5)
        y = 4. * x
        close(acc.jvp(y), 6.)
        with pytest.raises(ValueError, match="already recording"):
            with acc:
                pass
    z = 4. * x
    assert acc.jvp(z) is None
    with acc:
        yy = y * y
    close(acc.jvp(yy), 6. * -8. * 2.)


def test_exception_in_custom_gradient_not_swallowed():
    # testExceptionInCustomGradientNotSwallowed: grad_fn's ValueError surfaces from the forward call
    @tj.custom_gradient
    def f(unused_x):
        def grad(unused_dy):
            raise ValueError("test_error_string")
        return 1., grad
    c = tj.constant(1.)
    with tj.ForwardAccumulator(c, tj.constant(2.)):
        with pytest.raises(ValueError, match="test_error_string"):
            f(c)


def test_custom_gradient_numpy_output():
    # testCustomGradient: the forward returns a NumPy array (np.sin(x.numpy())); the JVP is the transpose
    # of grad_fn (cos(x) * tangent), and its derivative differentiates grad_fn's ops
    @tj.custom_gradient
    def f(x):
        def grad(dy):
            return dy * tnp.cos(x)
        return np.sin(x.numpy()), grad
    x = tj.constant([1., 2.])
    jf, = _jacfwd(f, [x])
    close(jf, np.diag(np.cos([1., 2.])), rtol=1e-6, atol=1e-7)
    jf2, = _jacfwd(_grad(f), [x])
    close(jf2, np.diag(-np.sin([1., 2.])), rtol=1e-6, atol=1e-7)


def test_grad_pure_forward_function():
    # testGradPureForward (Function): outer.jvp(inner.jvp(x ** 3.5)) = 3.5 * 2.5 * 1.1 ** 1.5; the reverse
    # order gives None
    f = tj.function(lambda x: x ** 3.5)
    primal = tj.constant(1.1)
    with tj.ForwardAccumulator(primal, tj.constant(1.)) as outer:
        with tj.ForwardAccumulator(primal, tj.constant(1.)) as acc:
            out = f(primal)
    inner_jvp = acc.jvp(out)
    close(out, 1.1 ** 3.5, rtol=1e-6)
    close(inner_jvp, 3.5 * 1.1 ** 2.5, rtol=1e-6)
    close(outer.jvp(inner_jvp), 3.5 * 2.5 * 1.1 ** 1.5, rtol=1e-6)
    assert acc.jvp(outer.jvp(out)) is None


def test_function_grad_in_function_pure_forward():
    # testFunctionGradInFunctionPureForward: both accumulators inside a tf.function around a nested one
    @tj.function
    def take_gradients():
        f = tj.function(lambda x: x ** 3.5)
        primal = tj.constant(1.1)
        with tj.ForwardAccumulator(primal, tj.constant(1.)) as outer:
            with tj.ForwardAccumulator(primal, tj.constant(1.)) as acc:
                out = f(primal)
        inner_jvp = acc.jvp(out)
        assert acc.jvp(outer.jvp(out)) is None
        return out, inner_jvp, outer.jvp(inner_jvp)
    out, i, o = take_gradients()
    close(out, 1.1 ** 3.5, rtol=1e-6)
    close(i, 3.5 * 1.1 ** 2.5, rtol=1e-6)
    close(o, 3.5 * 2.5 * 1.1 ** 1.5, rtol=1e-6)


def test_jvp_packing():
    # testJVPPacking (the JVP values): the inner accumulator's tangent is a tensor the outer one watches
    two, primal_in, inner_t = tj.constant(2.), tj.constant(1.), tj.constant(3.)
    with tj.ForwardAccumulator([primal_in, inner_t], [tj.constant(2.), tj.constant(4.)]) as outer:
        with tj.ForwardAccumulator(primal_in, inner_t) as inner:
            out = primal_in * two
            close(inner.jvp(out), 6.)
            close(outer.jvp(out), 4.)
            close(outer.jvp(inner.jvp(out)), 8.)


def test_hvp_correctness_eager_and_function():
    # testHVPCorrectness: forward-over-back HVP, eager and in a tf.function, equals the back-over-back one
    fun = lambda x: tnp.prod(tnp.tanh(x) ** 2)
    primals, tangents = tj.constant([1., 2., 3.]), tj.constant([3., 4., 5.])
    eager, = _hvp(fun, (primals,), (tangents,))
    in_fn, = tj.function(_hvp)(fun, (primals,), (tangents,))
    want = jax.hessian(lambda a: jax.numpy.prod(jax.numpy.tanh(a) ** 2))(primals.value) @ tangents.value
    close(eager, want, rtol=1e-5, atol=1e-6)
    close(in_fn, want, rtol=1e-5, atol=1e-6)


def test_variable_read_in_function():
    # testVariableReadInFunction: acc.jvp((v.read_value(), 2 * v.read_value())) = (11., 22.)
    v = tj.Variable(1.)
    with tj.ForwardAccumulator(v, 11.) as acc:
        f = tj.function(lambda: (v.read_value(), 2. * v.read_value()))
        result = f()
        close(result[0], 1.)
        close(result[1], 2.)
        j = acc.jvp(result)
        close(j[0], 11.)
        close(j[1], 22.)


def test_op_with_no_trainable_outputs_and_assign_in_function():
    # testOpWithNoTrainableOutputs; and an assignment inside a tf.function under the accumulator: TF gives
    # y = 12 with jvp 6 (the read after the assignment is not differentiable through the assignment)
    v = tj.Variable(1.)
    with tj.ForwardAccumulator(v, 11.) as acc:
        v.assign_sub(0.5)
        close(v.numpy(), 0.5)
    close(acc.jvp(v), 11.)
    w = tj.Variable(1.)

    @tj.function
    def step(x):
        w.assign(x * 3.)
        return w * x
    x = tj.constant(2.)
    with tj.ForwardAccumulator(x, tj.constant(1.)) as acc:
        y = step(x)
    close(y, 12.)
    close(acc.jvp(y), 6.)
    assert acc.jvp(w) is None


def test_variable_watched_function():
    # testVariableWatchedFunction: a Variable created on the first call and watched inside the function
    class _Model(tj.Module):
        def __init__(self):
            super().__init__()
            self._v = None

        @tj.function
        def compute_jvps(self):
            if self._v is None:
                self._v = tj.Variable([1., 2., 3.])
            with tj.ForwardAccumulator(self._v, tj.constant([.1, -.2, .3])) as acc:
                x = self._v * 2.
                x2 = self._v + .1
            return acc.jvp((self._v, x, x2))
    model = _Model()  # kept alive: a tf.function method holds its instance weakly (TF fails alike)
    v_jvp, x_jvp, x2_jvp = model.compute_jvps()
    close(v_jvp, [.1, -.2, .3])
    close(x_jvp, [.2, -.4, .6])
    close(x2_jvp, [.1, -.2, .3])


def test_argument_unused_and_gather():
    # testArgumentUnused (None for an output no input reaches); testIndexSlicesGrad(InFunction)
    v = tj.constant(1.)
    with tj.ForwardAccumulator(v, 11.) as acc:
        result = tj.function(lambda x: tj.constant(1.))(v)
    assert acc.jvp(result) is None
    x = tj.constant([1.])
    with tj.ForwardAccumulator(x, tj.constant([3.])) as acc:
        y = tnp.take(x, 0)
        y2 = tj.function(lambda a: tnp.take(a, 0))(x)
    close(acc.jvp(y), 3.)
    close(acc.jvp(y2), 3.)


def test_variable_unwatched_zero_and_non_differentiable_op():
    # testVariableUnwatchedZero; testNonDifferentiableOpWithInputTangent (zeros_like: None in both)
    v = tj.Variable([1.])
    x = tj.constant(1.)
    with tj.ForwardAccumulator(x, tj.constant(2.)) as acc:
        pass
    assert acc.jvp(v) is None
    close(acc.jvp(v, unconnected_gradients="zero"), [0.])
    with tj.ForwardAccumulator(x, 2.) as acc1:
        with tj.ForwardAccumulator(x, 2.) as acc2:
            y = tnp.zeros_like(x)
        assert acc1.jvp(y) is None
    assert acc2.jvp(y) is None


# --- JacobianTests and HessianTests, ported ----------------------------------------------------------

def test_batch_correctness():
    # JacobianTests.testBatchCorrectness: jvp(x * y) for tangents ([1,0,1], [0,1,1]) at (2, 5) = [5, 2, 7]
    x, y = tj.constant(2.0), tj.constant(5.0)
    tangents = (tj.constant([1., 0., 1.]), tj.constant([0., 1., 1.]))
    with tj.ForwardAccumulator._batch_accumulator((x, y), tangents) as acc:
        z = x * y
    close(acc.jvp(z), [5.0, 2.0, 7.0])


@pytest.mark.parametrize("forward_prop_first", [True, False])
def test_batch_backward_over_forward(forward_prop_first):
    # JacobianTests.testBatchBackwardOverForward: d/dx of each batched JVP of cos = -t * cos(1)
    x = tj.constant(1.)
    tangents = tj.constant(np.random.RandomState(1).randn(10).astype(np.float32))
    if forward_prop_first:
        batch_acc = tj.ForwardAccumulator._batch_accumulator(x, tangents)
        tape_cm = tj.GradientTape(persistent=True)
    else:
        tape_cm = tj.GradientTape(persistent=True)
        batch_acc = tj.ForwardAccumulator._batch_accumulator(x, tangents)
    with tape_cm as tape:
        with batch_acc as acc:
            tape.watch(x)
            jvps = acc.jvp(tnp.cos(x))
        d2 = [tape.gradient(jvps[i], x) for i in range(10)]
    close(tnp.stack(d2), -tangents.numpy() * np.cos(1.), rtol=1e-5, atol=1e-6)


def test_batch_forward_over_backward():
    # JacobianTests.testBatchForwardOverBackward
    x = tj.constant(1.)
    tangents = tj.constant(np.random.RandomState(1).randn(10).astype(np.float32))
    with tj.ForwardAccumulator._batch_accumulator(x, tangents) as acc:
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = tnp.cos(x)
        dy = tape.gradient(y, x)
    close(acc.jvp(dy), -tangents.numpy() * np.cos(1.), rtol=1e-5, atol=1e-6)


def test_hessian_1d_and_of_variables():
    # HessianTests.testHessian1D (eager and in a tf.function) and testHessianOfVariables (symmetric)
    rng = np.random.RandomState([1, 2, 3])
    mat_value = rng.randn(4, 4).astype("float32")
    x_value = rng.randn(4).astype("float32")
    mat = tj.Variable(mat_value)
    f = lambda x: tnp.sum(x[:, None] * mat * x[None, :])

    def hessian(f, params):
        sizes = [int(np.prod(p.shape)) for p in params]
        rows = []
        for k in range(sum(sizes)):
            parts = tnp.split(tj.nn.one_hot(k, sum(sizes)), np.cumsum(sizes)[:-1].tolist())
            rows.append(_hvp(f, params, [tnp.reshape(v, p.shape) for p, v in zip(params, parts)]))
        return [tnp.stack([r[i] for r in rows]) for i in range(len(params))]
    h, = hessian(f, [tj.constant(x_value)])
    close(h, mat_value + mat_value.T, rtol=1e-5, atol=1e-6)
    h, = tj.function(hessian)(f, [tj.constant(x_value)])
    close(h, mat_value + mat_value.T, rtol=1e-5, atol=1e-6)

    kernel, bias = tj.Variable([[0.3], [-0.2]]), tj.Variable([0.1])
    inp, target = tj.constant([[-0.5, 1.], [0.5, -1.]]), tj.constant([[-1.], [2.]])
    loss = lambda *unused: tnp.sum((tnp.matmul(inp, kernel) + bias - target) ** 2.)
    kh, bh = hessian(loss, [kernel, bias])
    assert kh.shape == (3, 2, 1) and bh.shape == (3, 1)
    full = np.concatenate([np.reshape(kh.numpy(), [3, 2]), bh.numpy()], axis=1)
    close(full, full.T, rtol=1e-6)


class _Model(tj.Module):
    """testVariablesHVP's model: Dense(18), relu, BatchNormalization (training), Conv2D(2, 2), relu, Dense(1),
    with deterministic weights."""

    def __init__(self):
        super().__init__()
        r = lambda *s: tj.Variable(np.linspace(-1., 1., int(np.prod(s))).reshape(s).astype(np.float32))
        self.w1, self.b1 = r(2, 18), r(18)
        self.gamma, self.beta = tj.Variable(np.ones(18, np.float32)), tj.Variable(np.zeros(18, np.float32))
        self.k, self.kb = r(2, 2, 3, 2), r(2)
        self.w2, self.b2 = r(4, 1), r(1)

    def __call__(self, x):
        x = tj.nn.relu(tnp.matmul(x, self.w1) + self.b1)
        x = tj.nn.batch_norm(x, self.gamma, self.beta, epsilon=1e-3)[0]
        x = tnp.reshape(x, [-1, 2, 3, 3])
        x = tj.nn.conv(x, self.k, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC")) + self.kb
        x = tnp.reshape(tj.nn.relu(x), [x.shape[0], -1])
        return tnp.matmul(x, self.w2) + self.b2


@pytest.mark.parametrize("decorator", [tj.function, lambda f: f], ids=["Function", "NoFunction"])
def test_variables_hvp(decorator):
    # testVariablesHVP: forward-over-back HVP with the Variables as (nested) primals equals the
    # back-over-back one (output_gradients=vector)
    model = _Model()

    def _loss():
        inp, target = tj.constant([[-0.5, 1.], [0.5, -1.]]), tj.constant([[-1.], [2.]])
        return tnp.sum((model(inp) - target) ** 2.)

    @decorator
    def _compute_hvps():
        with tj.GradientTape() as tape:
            loss = _loss()
        vector = tape.gradient(loss, model.trainable_variables)
        forward_over_back, = _hvp(lambda unused: _loss(), [model.trainable_variables], [vector])
        with tj.GradientTape(persistent=True) as tape:
            tape.watch(model.trainable_variables)
            loss = _loss()
            first = tape.gradient(loss, model.trainable_variables)
        back_over_back = tape.gradient(first, model.trainable_variables, output_gradients=vector)
        return forward_over_back, back_over_back
    fob, bob = _compute_hvps()
    assert len(fob) == len(bob) == 8
    for a, b in zip(fob, bob):
        close(a, b, rtol=1e-5, atol=1e-5)
