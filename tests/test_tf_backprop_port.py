"""TensorFlow's tensorflow/python/eager/backprop_test.py, ported to tapejax where we differed.

Each test names the TF test it comes from; the expected values are TF 2.21's (hard-coded: TF is not
installed here). Tests of that file that already passed are pinned briefly at the end.
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy


def close(a, b, rtol=1e-6):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol)


# -- BackpropTest --------------------------------------------------------------------------------------

@pytest.mark.parametrize("decorator", [tj.function, lambda f: f], ids=["function", "eager"])
def test_noop_behavior_consistent(decorator):
    # testNoOpBehaviorConsistent: x1 = tf.identity(x) is a tensor of its own (jnp.array copies, as TF's
    # identity): watched apart from x, d(loss)/dx1 = 3 and d(loss)/dx = 2 -> [2., 3., 3., 3., 3.]
    @decorator
    def f(x):
        x1, x2, x3, x4 = tnp.array(x), tnp.add(x, 0), tnp.subtract(x, 0), tnp.multiply(x, 1)
        with tj.GradientTape() as t:
            for v in (x, x1, x2, x3, x4):
                t.watch(v)
            loss = x * 2. + x1 * 3. + x2 * 3. + x3 * 3. + x4 * 3.
        return t.gradient(loss, [x, x1, x2, x3, x4])
    close(f(tj.constant(10.)), [2., 3., 3., 3., 3.])


def test_array_copy_is_recorded_identity():
    x = tj.constant([1., 2.])
    assert tnp.array(x) is not x and tnp.asarray(x) is x
    assert tnp.array(x, copy=False) is x
    with tj.GradientTape() as t:
        t.watch(x)
        y = tnp.array(x) * 3.
    close(t.gradient(y, x), [3., 3.])
    with tj.ForwardAccumulator(x, tj.constant([1., 1.])) as acc:
        y = tnp.array(x) * 3.
    close(acc.jvp(y), [3., 3.])
    assert tnp.array(x, dtype=tj.int32).dtype == jnp.int32  # as jnp.array: cast to the dtype asked for


@pytest.mark.parametrize("in_function", [True, False])
def test_stop_gradient_hides_downstream_ops(in_function):
    # test_stop_gradient_hides_downstream_ops: the backward function of a custom gradient downstream of
    # tf.stop_gradient never runs; tape.gradient(y, x) is None.
    @tj.custom_gradient
    def _backward_pass_error(x):
        def _grad(_):
            raise AssertionError("Unexpectedly ran the backward function.")
        return x, _grad

    f = tj.function(_backward_pass_error) if in_function else _backward_pass_error
    x = tj.constant(1.0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = f(tj.stop_gradient(x))
    assert tape.gradient(y, x) is None
    close(f(x), 1.0)  # and the forward alone works


def test_custom_gradient_error_inside_function_is_raised_when_differentiated():
    # testCustomGradientEmptyError under tj.function: a grad_fn returning the wrong count raises
    # ValueError when the gradient is taken (TF), not when the function is traced.
    @tj.custom_gradient
    def identity(x):
        return x, lambda _: []

    @tj.function
    def g(x):
        with tj.GradientTape() as t:
            t.watch(x)
            y = identity(x)
        return t.gradient(y, x)
    with pytest.raises(ValueError, match="expected 1 gradients"):
        g(tj.constant(1.0))
    close(tj.function(identity)(tj.constant(2.0)), 2.0)


# -- JacobianTest / BatchJacobianTest: differentiating a vectorized Jacobian inside tj.function ---------

def _cube_jacobian(x):
    with tj.GradientTape() as t:
        t.watch(x)
        y = x ** 3
    return t.jacobian(y, x)


def _cube_batch_jacobian(x):
    with tj.GradientTape() as t:
        t.watch(x)
        y = x ** 3
    return t.batch_jacobian(y, x)


@pytest.mark.parametrize("inner", [_cube_jacobian, _cube_batch_jacobian])
def test_outer_tape_over_function_computing_vectorized_jacobian(inner):
    # test_grad_jacobian_conv's pattern: gradient, from outside, of a tf.function that returns a pfor
    # (batch_)jacobian. d/dx sum(jacobian of x**3) = 6x (was None: the vmapped rows were not connected).
    x = tj.constant([[1., 2.]])
    with tj.GradientTape() as t:
        t.watch(x)
        y = tnp.sum(tj.function(inner)(x))
    close(t.gradient(y, x), [[6., 12.]])


def test_grad_jacobian_conv():
    # test_grad_jacobian_conv (NCHW/OIHW here; TF's is NHWC): the gradient of sum(batch_jacobian) through
    # a conv, from a tape inside a tf.function and from a tape around a tf.function call.
    def _inner(x):
        kernel = tnp.ones([9, 1, 3, 3])
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = tj.nn.conv(x, kernel, (1, 1), "SAME")
            reduced = tnp.sum(y ** 2.0, axis=[2, 3])
        return tnp.sum(tape.batch_jacobian(reduced, x))

    def reference(x):
        k = jnp.ones([9, 1, 3, 3])

        def red(xi):
            y = jax.lax.conv_general_dilated(xi[None], k, (1, 1), "SAME")[0]
            return jnp.sum(y ** 2, axis=[1, 2])
        return jnp.sum(jax.vmap(jax.jacobian(red))(x))
    xv = np.ones([3, 1, 4, 4], np.float32)
    expected = jax.grad(reference)(xv)

    @tj.function
    def _outer():
        with tj.GradientTape() as tape:
            x = tnp.ones([3, 1, 4, 4])
            tape.watch(x)
            y = _inner(x)
        return tape.gradient(y, x)
    close(_outer(), expected, rtol=1e-4)
    x = tj.constant(xv)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tj.function(_inner)(x)
    close(tape.gradient(y, x), expected, rtol=1e-4)


def test_symbolic_gradients_through_vectorized_jacobian_raise():
    @tj.function
    def f(x):
        j = _cube_jacobian(x)
        return tj.gradients(j, x)
    with pytest.raises(NotImplementedError, match="vectorized jacobian"):
        f(tj.constant([1., 2.]))


# -- BatchJacobianTest.test_zeros_type_correct: unconnected batch_jacobian --------------------------------

@pytest.mark.parametrize("use_pfor", [True, False])
@pytest.mark.parametrize("unconnected", [None, "zero"])
def test_batch_jacobian_zeros_type_correct(use_pfor, unconnected):
    # test_zeros_type_correct: y = f(x) with f a tf.function returning a constant: [[[0.]]] of x's dtype,
    # also with the default UnconnectedGradients.NONE (TF's batch_jacobian returns zeros there).
    @tj.function
    def f(x):
        del x
        return tj.constant([[1.0]])
    kw = {} if unconnected is None else {"unconnected_gradients": unconnected}
    with tj.GradientTape(persistent=True) as tape:
        x = tj.constant([[2.0]])
        tape.watch(x)
        y = f(x)
    jac = tape.batch_jacobian(y, x, experimental_use_pfor=use_pfor, **kw)
    assert jac.dtype == jnp.float32
    close(jac, [[[0.]]])


@pytest.mark.parametrize("use_pfor", [True, False])
def test_batch_jacobian_unconnected_none_gives_zeros(use_pfor):
    # TF 2.21: tape.batch_jacobian(tf.constant([[1., 3., 4.]]), x) with x of shape (1, 2) -> zeros (1, 3, 2)
    with tj.GradientTape(persistent=True) as t:
        x = tj.constant([[2.0, 1.0]])
        t.watch(x)
        y = tj.constant([[1.0, 3., 4.]])
    bj = t.batch_jacobian(y, x, experimental_use_pfor=use_pfor)
    assert bj.shape == (1, 3, 2)
    close(bj, np.zeros((1, 3, 2)))
    # (jacobian keeps None: TF's jacobian honours UnconnectedGradients.NONE)
    assert t.jacobian(y, x, experimental_use_pfor=use_pfor) is None


# -- parallel_iterations ----------------------------------------------------------------------------------

def test_batch_jacobian_parallel_iterations():
    # testBatchJacobianParallelIterations: a non-persistent tape with parallel_iterations raises
    # RuntimeError('persistent=True.*parallel_iterations'); with a persistent one, the Jacobian.
    @tj.function
    def f(persistent):
        with tj.GradientTape(persistent=persistent) as t:
            x = tj.constant([[3.0]])
            t.watch(x)
            y = x * x
            z = tnp.tile(y * y, [1, 16])
        return t.batch_jacobian(z, x, parallel_iterations=8)
    with pytest.raises(RuntimeError, match="persistent=True.*parallel_iterations"):
        f(persistent=False)
    close(f(persistent=True), [[[4.0 * 3.0 ** 3.0]] * 16])


@pytest.mark.parametrize("what", ["jacobian", "batch_jacobian"])
@pytest.mark.parametrize("rows,parallel_iterations,raises", [(16, 8, True), (16, 16, True), (16, 32, False),
                                                             (1, 8, False), (16, None, False)])
def test_parallel_iterations_non_persistent(what, rows, parallel_iterations, raises):
    # TF 2.21, eager, non-persistent tape, pfor: the rows are split in chunks of parallel_iterations
    # unless there are fewer rows; batch_jacobian raises RuntimeError, jacobian ValueError ("Encountered an
    # exception while vectorizing the jacobian computation ...").
    with tj.GradientTape() as t:
        x = tj.constant([[3.0]])
        t.watch(x)
        z = tnp.tile(x * x, [1, rows])
    call = lambda: getattr(t, what)(z, x, parallel_iterations=parallel_iterations)
    if not raises:
        assert call().shape == ((1, rows, 1) if what == "batch_jacobian" else (1, rows, 1, 1))
    elif what == "batch_jacobian":
        with pytest.raises(RuntimeError, match="persistent=True to compute the batch_jacobian with parallel"):
            call()
    else:
        with pytest.raises(ValueError, match="Encountered an exception while vectorizing the jacobian"):
            call()


@pytest.mark.parametrize("what", ["jacobian", "batch_jacobian"])
def test_parallel_iterations_values(what):
    # TF 2.21 (persistent tape): with pfor, parallel_iterations 1, 0 or -1 -> ValueError ("Encountered an
    # exception while vectorizing ..."); without pfor, 1 works and 0 or -1 -> TypeError ("'parallel_iterations'
    # must be a positive integer.")
    with tj.GradientTape(persistent=True) as t:
        x = tj.constant([[3.0, 1.]])
        t.watch(x)
        z = x * x
    for p in (1, 0, -1):
        with pytest.raises(ValueError, match=f"vectorizing the {what} computation"):
            getattr(t, what)(z, x, parallel_iterations=p)
    close(getattr(t, what)(z, x, parallel_iterations=1, experimental_use_pfor=False),
          getattr(t, what)(z, x))
    for p in (0, -1):
        with pytest.raises(TypeError, match="'parallel_iterations' must be a positive integer"):
            getattr(t, what)(z, x, parallel_iterations=p, experimental_use_pfor=False)


# -- already matching: pinned ------------------------------------------------------------------------------

def test_jacobian_called_multiple_times():
    # testGradientTapeJacobianCalledMultipleTimes / testGradientTapeBatchJacobianCalledMultipleTimes
    with tj.GradientTape() as g:
        x = tj.constant([[3.0]])
        g.watch(x)
        y = x * x
        z = y * y
    g.jacobian(z, [x])
    with pytest.raises(RuntimeError, match="A non-persistent GradientTape can only"):
        g.batch_jacobian(y, x)


def test_jacobian_inside_gradient_tape_scope():
    # testJacobianInsideGradientTapeScope / testBatchJacobianInsideGradientTapeScope
    with tj.GradientTape() as g:
        x = tj.constant(3.0)
        g.watch(x)
        z = (x * x) ** 2
        close(g.jacobian(z, x), 4.0 * 3.0 ** 3.0)
    with tj.GradientTape(persistent=True) as g:
        x = tj.constant([[3.0]])
        g.watch(x)
        z = (x * x) ** 2
        close(g.batch_jacobian(z, x), [[[4.0 * 3.0 ** 3.0]]])


@pytest.mark.parametrize("use_function", [True, False])
@pytest.mark.parametrize("use_pfor", [True, False])
def test_batch_jacobian_degenerate_shape(use_function, use_pfor):
    # test_degenerate_shape: shape [1, 0, 0]
    def f(x):
        with tj.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x ** 2
        return tape.batch_jacobian(y, x, experimental_use_pfor=use_pfor)
    if use_function:
        f = tj.function(f)
    assert tuple(f(tnp.zeros([1, 0])).shape) == (1, 0, 0)


def test_empty_tensor_consistent_jacobian():
    # test_empty_tensor_consistent_jacobian
    variable = tj.Variable(1.0)
    inputs = (tj.constant(np.zeros((0, 4), np.float32)), tj.constant(np.zeros((0, 3), np.float32)))
    with tj.GradientTape(persistent=True) as tape:
        outputs = variable * tnp.concatenate(inputs, axis=-1)
    a = tape.jacobian(outputs, variable, experimental_use_pfor=True)
    b = tape.jacobian(outputs, variable, experimental_use_pfor=False)
    assert a.shape == b.shape == (0, 7)


def test_jacobian_custom_gradient_in_function():
    # testJacobianCustomGradient: grad_fn returns () for the (absent) inputs: d y / d x is None
    class MyCallable:
        def __init__(self):
            self.a, self.b, self.c = tj.Variable(1.), tj.Variable(2.), tj.Variable(3.)

        def __call__(self, x):
            return self.a * x * x + self.b * x + self.c

    @tj.function
    def call(c, x):
        @tj.custom_gradient
        def _call():
            y = c(x)

            def grad(dy, variables=None):
                with tj.GradientTape(persistent=True) as g:
                    g.watch(variables)
                    y = c(x)
                return (), [2 * tnp.sum(dy * g.jacobian(y, v)) for v in variables]
            return y, grad
        return _call()
    c = MyCallable()
    x = tj.constant([1., 2., 3.])
    with tj.GradientTape(persistent=True) as g:
        g.watch([c.a, c.b, c.c])
        y = call(c, x)
    assert g.gradient(y, x) is None
    close(g.gradient(y, [c.a, c.b, c.c]), [28., 12., 6.])


def test_watching_is_tape_local_and_watched_variables():
    # testWatchingIsTapeLocal, testSelectivelyWatchVariables, testWatchedVariablesRespectReset
    x1 = tj.Variable(2.0, trainable=False)
    x2 = tj.Variable(2.0, trainable=False)
    with tj.GradientTape() as tape1:
        with tj.GradientTape() as tape2:
            tape1.watch(x1)
            tape2.watch([x1, x2])
            dy, dz = tape2.gradient([x1 ** 3, x2 ** 2], [x1, x2])
        d2y, d2z = tape1.gradient([dy, dz], [x1, x2])
    close(d2y, 12.0)
    assert d2z is None
    with tj.GradientTape(persistent=False) as tape:
        x = tj.Variable(1.0)
        tape.watch(x)
        assert tape.watched_variables() == (x,)
        tape.reset()
        z = tj.Variable(2.0)
        tape.watch(z)
    tape.gradient(z, z)
    assert tape.watched_variables() == (z,)


def test_override_second_order_with_custom_gradient():
    # testOverrideSecondOrderWithCustomGradient
    @tj.custom_gradient
    def f(x):
        def first_order_grad(dz):
            @tj.custom_gradient
            def first_order_custom(unused_x):
                return tj.constant(-1.1), lambda ddz: -2.1 * ddz
            return dz * first_order_custom(x)
        return x + 10., first_order_grad
    c = tj.constant(1.)
    with tj.GradientTape() as outer:
        outer.watch(c)
        with tj.GradientTape() as inner:
            inner.watch(c)
            d = f(c) ** 4.
        dd = inner.gradient(d, c)
        close(dd, 4. * 11. ** 3. * -1.1, rtol=1e-5)
    close(outer.gradient(dd, c), 3. * 4. * 11. ** 2. * -1.1 * -1.1 + 4. * 11. ** 3. * -2.1, rtol=1e-5)


# -- tape state and watched variables -----------------------------------------------------------------------

def test_stop_recording_on_a_tape_never_entered():
    # TF 2.21: GradientTape().stop_recording() -> RuntimeError("Trying to stop recording a tape which is not
    # recording."); after the context exited -> ValueError("Tape is not recording.")
    with pytest.raises(RuntimeError, match="Trying to stop recording a tape which is not recording"):
        with tj.GradientTape().stop_recording():
            pass
    with tj.GradientTape() as t:
        pass
    with pytest.raises(ValueError):
        with t.stop_recording():
            pass


def test_integer_variable_read_is_watched():
    # TF 2.21: reading a trainable int Variable under a tape lists it in watched_variables() (in order of
    # creation); its gradient is None.
    v = tj.Variable(3)
    w = tj.Variable(2.)
    with tj.GradientTape() as t:
        y = v * 2
        z = w * 3.
    assert t.watched_variables() == (v, w)
    gv, gw = t.gradient(z, [v, w])
    assert gv is None
    close(gw, 3.)


@pytest.mark.parametrize("what", ["jacobian", "batch_jacobian"])
def test_jacobian_of_a_list_target_says_so(what):
    # TF fails on target.shape (AttributeError); here a TypeError naming the problem, tape not used up.
    x = tj.constant([[2.]])
    with tj.GradientTape() as t:
        t.watch(x)
        y = x * x
    with pytest.raises(TypeError, match="target must be one Tensor, got a list"):
        getattr(t, what)([y, y], x)
    close(getattr(t, what)(y, x), [[[4.]]] if what == "batch_jacobian" else [[[[4.]]]])


@pytest.mark.parametrize("what", ["jacobian", "batch_jacobian"])
def test_non_vectorized_jacobian_non_persistent_inside_function(what):
    # TF 2.21: inside a tf.function a non-persistent tape computes jacobian/batch_jacobian with
    # experimental_use_pfor=False (the RuntimeError is only raised eagerly): [[2, 0], [0, 4]].
    @tj.function
    def f(x):
        with tj.GradientTape() as t:
            t.watch(x)
            y = x * x
        return getattr(t, what)(y, x, experimental_use_pfor=False)
    x = tj.constant([[1., 2.]])
    expected = [[[2., 0.], [0., 4.]]] if what == "batch_jacobian" else np.diag([2., 4.]).reshape(1, 2, 1, 2)
    close(f(x), expected)
    with tj.GradientTape() as t:
        t.watch(x)
        y = x * x
    with pytest.raises(RuntimeError, match="persistent=True"):
        getattr(t, what)(y, x, experimental_use_pfor=False)
