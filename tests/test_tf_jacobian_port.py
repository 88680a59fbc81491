"""TensorFlow's jacobian tests, ported to tapejax: tensorflow/python/ops/parallel_for/gradients_test.py
(GradientsTest) and the JacobianTest / BatchJacobianTest classes of tensorflow/python/eager/backprop_test.py.

Each test names the TF test it comes from. Expected values are TF 2.21's (hard-coded or, where TF's test
compares two computations, the same comparison against a jax reference; TF is not installed here). Cases
already ported in test_tf_backprop_port.py / test_jacobian.py are not repeated. tf.vectorized_map/pfor
themselves, placeholders (graph mode) and tf.while_loop/scan internals are out of scope: loops are Python
loops here.
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from conftest import close

tnp = tj.numpy
nn = tj.nn
PFOR = [True, False]
rng = np.random.RandomState(0)


def _r(*shape, scale=1.0):
    return (rng.randn(*shape) * scale).astype(np.float32)


# -- fixes: where tapejax differed ---------------------------------------------------------------------------

@tj.custom_gradient
def _scalar_grad_identity(x):
    # testPforException's op (without its stateful assign): grad_fn returns a scalar for a (2, 1) input
    return x, lambda dy: tj.constant(1.)


@pytest.mark.parametrize("what", ["jacobian", "batch_jacobian"])
@pytest.mark.parametrize("use_pfor", PFOR)
def test_custom_gradient_of_the_wrong_shape_raises_value_error(what, use_pfor):
    # TF 2.21: tape.gradient passes the scalar through (1.0); tape.jacobian raises ValueError ("Tensor's shape
    # (2, 1) is not compatible with supplied shape (2, 1, 2, 1)"), batch_jacobian fails in a reshape. Was
    # IndexError (moveaxis) / TypeError (reshape) here; now a ValueError naming the problem.
    with tj.GradientTape(persistent=True) as g:
        x = tj.constant([[1.], [2.]])
        g.watch(x)
        y = _scalar_grad_identity(x)
    close(g.gradient(y, x), 1.0)
    with pytest.raises(ValueError, match=r"source 0 has shape \(\), but the source has shape \(2, 1\)"):
        getattr(g, what)(y, x, experimental_use_pfor=use_pfor)


@pytest.mark.parametrize("what", ["jacobian", "batch_jacobian"])
def test_pfor_exception_stateful_grad_fn(what):
    # BatchJacobianTest.testPforException: a grad_fn assigning a Variable cannot be vectorized. TF 2.21:
    # ValueError("Encountered an exception while vectorizing the batch_jacobian computation. Vectorization can
    # be disabled by setting experimental_use_pfor to False."); row by row it works. (Here the assigned value
    # depends on the output gradient; one that does not is simply assigned, as row by row.)
    var = tj.Variable([1.])

    @tj.custom_gradient
    def op(x):
        def grad(dy):
            var.assign(tnp.reshape(tnp.sum(dy), [1]))
            return dy * 1.
        return x, grad

    with tj.GradientTape(persistent=True) as g:
        x = tj.constant([[1.], [2.]])
        g.watch(x)
        y = op(x)
    with pytest.raises(ValueError, match=f"while vectorizing the {what} computation. Vectorization can be "
                                         "disabled by setting experimental_use_pfor to False"):
        getattr(g, what)(y, x, experimental_use_pfor=True)
    close(var, [1.])  # unchanged
    expected = [[[1.]], [[1.]]] if what == "batch_jacobian" else np.eye(2).reshape(2, 1, 2, 1)
    close(getattr(g, what)(y, x, experimental_use_pfor=False), expected)


def test_grad_fn_branching_on_the_output_gradient_says_vectorizing():
    # Python control flow on dy cannot run under the vectorized pass: TF's vectorizing ValueError (the
    # tracer error chained as its cause), and the Jacobian row by row.
    @tj.custom_gradient
    def op(x):
        def grad(dy):
            return dy * 2. if float(tnp.sum(dy)) > 0 else dy
        return x, grad

    with tj.GradientTape(persistent=True) as g:
        x = tj.constant([[1., 2.]])
        g.watch(x)
        y = op(x)
    with pytest.raises(ValueError, match="while vectorizing the batch_jacobian") as info:
        g.batch_jacobian(y, x)
    assert isinstance(info.value.__cause__, TypeError)
    close(g.batch_jacobian(y, x, experimental_use_pfor=False), [[[2., 0.], [0., 2.]]])


@pytest.mark.parametrize("use_pfor", PFOR)
def test_jacobian_of_an_unwatched_source_with_respect_to_itself(use_pfor):
    # TF 2.21 reads the target through a reshape recorded on the tape: with x not watched,
    # tape.jacobian(x, x) is None and tape.batch_jacobian(x, x) zeros [[[0, 0], [0, 0]]], although
    # tape.gradient(x, x) is ones. Watched, both are the identity. (Was the identity either way.)
    x = tj.constant([[1., 2.]])
    with tj.GradientTape(persistent=True) as g:
        pass
    close(g.gradient(x, x), [[1., 1.]])
    assert g.jacobian(x, x, experimental_use_pfor=use_pfor) is None
    assert g.jacobian(x, [x, x], experimental_use_pfor=use_pfor) == [None, None]
    close(g.batch_jacobian(x, x, experimental_use_pfor=use_pfor), np.zeros((1, 2, 2)))
    assert g.jacobian(x, x, unconnected_gradients="zero", experimental_use_pfor=use_pfor).shape == (1, 2, 1, 2)
    with tj.GradientTape(persistent=True) as g:
        g.watch(x)
    close(g.jacobian(x, x, experimental_use_pfor=use_pfor), np.eye(2).reshape(1, 2, 1, 2))
    close(g.batch_jacobian(x, x, experimental_use_pfor=use_pfor), [np.eye(2)])
    v = tj.Variable([1., 2.])  # a Variable target is read under the tape (watched): the identity, as TF
    with tj.GradientTape(persistent=True) as g:
        pass
    close(g.jacobian(v, v, experimental_use_pfor=use_pfor), np.eye(2))


def test_unknown_target_uses_up_a_non_persistent_tape():
    x = tj.constant([1., 2.])
    with tj.GradientTape() as g:
        pass
    assert g.jacobian(x, x) is None
    with pytest.raises(RuntimeError, match="non-persistent"):
        g.jacobian(x, x)


# -- backprop_test.py JacobianTest ---------------------------------------------------------------------------

def _jacobian(use_pfor):
    with tj.GradientTape(persistent=not use_pfor) as g:
        x = tj.constant([1., 2.])
        y = tj.constant([3., 4.])
        g.watch(x)
        g.watch(y)
        z = x * x * y
    return g.jacobian(z, [x, y], experimental_use_pfor=use_pfor)


@pytest.mark.parametrize("use_function", [False, True])
@pytest.mark.parametrize("use_pfor", PFOR)
def test_jacobian_pfor_while_loop_defun(use_pfor, use_function):
    # testPfor / testWhileLoop / testPforDefun / testWhileLoopDefun: [diag(2 x y), diag(x x)]
    f = tj.function(lambda: _jacobian(use_pfor)) if use_function else (lambda: _jacobian(use_pfor))
    jx, jy = f()
    np.testing.assert_array_equal(np.asarray(jx), np.diag([6., 16.]))
    np.testing.assert_array_equal(np.asarray(jy), np.diag([1., 4.]))


def test_jacobian_parallel_iterations():
    # JacobianTest.test_parallel_iterations: the same Jacobian of matmul(x, x) for 2 and 3
    with tj.GradientTape(persistent=True) as g:
        x = tj.constant([[1., 2], [3, 4]])
        g.watch(x)
        y = tnp.matmul(x, x)
    a = g.jacobian(y, x, parallel_iterations=2)
    close(a, g.jacobian(y, x, parallel_iterations=3))
    close(tnp.reshape(a, [4, 4]), [[2., 3., 2., 0.], [2., 5., 0., 2.], [3., 0., 5., 3.], [0., 3., 2., 8.]])


@pytest.mark.parametrize("use_function", [False, True])
def test_nested_jacobian(use_function):
    # test_nested_jacobian (graph only in TF, eager here too): batch_jacobian of a jacobian -> [[2, 0], [0, 2]]*10
    def f():
        x = tnp.ones((10, 2))
        with tj.GradientTape() as g:
            g.watch(x)
            with tj.GradientTape() as gg:
                gg.watch(x)
                y = tnp.sum(tnp.square(x))
            dy_x = gg.jacobian(y, x)
        return g.batch_jacobian(dy_x, x)
    close((tj.function(f) if use_function else f)(), [[[2., 0.], [0., 2.]]] * 10)


def test_nested_batch_jacobian_foldl():
    # test_nested_batch_jacobian_foldl (foldl as a Python loop): first and second batch_jacobian of
    # cos(x0 + x1), against the numeric values TF's gradient checker compares with; eagerly and in tj.function.
    def _grad(f):
        def _grad_function(primal):
            with tj.GradientTape() as tape:
                tape.watch(primal)
                primal_out = f(primal)
            return tape.batch_jacobian(primal_out, primal)
        return _grad_function

    def _func(x):
        xt = tnp.transpose(x)
        return tnp.reshape(tnp.cos(xt[0] + xt[1]), [1, 1])

    x = tj.constant([[1., 2.]])
    f = _func
    s, c = np.sin(3.), np.cos(3.)
    for expected in ([-s, -s], [-c, -c, -c, -c]):
        f = _grad(f)
        close(tnp.reshape(f(x), [-1]), expected, rtol=1e-5)
        close(tnp.reshape(tj.function(f)(x), [-1]), expected, rtol=1e-5)


def test_jacobian_indexed_slices():
    # test_indexed_slices: jacobian of an embedding lookup (gather), pfor == while_loop
    inp = tj.constant(_r(3, 2))
    with tj.GradientTape(persistent=True) as g:
        g.watch(inp)
        output = tnp.take(inp, tj.constant([0, 2]), axis=0)
    a = g.jacobian(output, inp, experimental_use_pfor=True)
    close(a, g.jacobian(output, inp, experimental_use_pfor=False))
    close(a, jax.jacrev(lambda v: v[jnp.array([0, 2])])(inp.value))


def _fold_add(x):
    a = x[0]
    for i in range(1, x.shape[0]):
        a = a + x[i]
    return a


def test_foldl_partial_function():
    # test_foldl_partial_function: jacobian through a tj.function call -> [1, 1, 1] (pfor and not)
    x = tnp.zeros([3])
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        result = tj.function(_fold_add)(x)
    close(tape.jacobian(result, x, experimental_use_pfor=True), [1., 1., 1.])
    close(tape.jacobian(result, x, experimental_use_pfor=False), [1., 1., 1.])
    with tj.GradientTape() as tape:
        tape.watch(x)
        result = tj.function(_fold_add)(x)
    close(tape.jacobian(result, x, experimental_use_pfor=True), [1., 1., 1.])


def test_foldl_pure_function():
    # test_foldl_pure_function: the same jacobian inside a tj.function, pfor and not
    @tj.function
    def compute_jacobian(use_pfor):
        x = tnp.zeros([3])
        with tj.GradientTape(persistent=True) as tape:
            tape.watch(x)
            result = _fold_add(x)
        return tape.jacobian(result, x, experimental_use_pfor=use_pfor)
    close(compute_jacobian(use_pfor=True), compute_jacobian(use_pfor=False))
    close(compute_jacobian(use_pfor=True), [1., 1., 1.])


def test_cond_func_grad_jacobian():
    # test_cond_func_grad_jacobian (tf.cond as tj.numpy.where): gradient 3, its jacobian 6 (pfor and not)
    @tj.function
    def f(x):
        return tnp.where(x > 0., x ** 3., x ** 2.)
    with tj.GradientTape(persistent=True) as tape:
        x = tj.constant(1.0)
        tape.watch(x)
        y = f(x)
        grad = tape.gradient(y, x)
    close(grad, 3.)
    close(tape.jacobian(grad, x, experimental_use_pfor=False), 6.)
    close(tape.jacobian(grad, x, experimental_use_pfor=True), 6.)


# -- backprop_test.py BatchJacobianTest ----------------------------------------------------------------------

@pytest.mark.parametrize("use_function", [False, True])
@pytest.mark.parametrize("use_pfor", PFOR)
def test_batch_jacobian_pfor_while_loop_defun(use_pfor, use_function):
    # BatchJacobianTest.testPfor / testWhileLoop / testPforDefun / testWhileLoopDefun
    def f():
        with tj.GradientTape(persistent=not use_pfor) as g:
            x = tj.constant([[1., 2.], [3., 4.]])
            y = tj.constant([[3., 4.], [5., 6.]])
            g.watch(x)
            z = x * x * y
        return g.batch_jacobian(z, x, experimental_use_pfor=use_pfor)
    got = (tj.function(f) if use_function else f)()
    np.testing.assert_array_equal(np.asarray(got), np.stack([np.diag([6., 16.]), np.diag([30., 48.])]))


def test_batch_jacobian_bad_shape_and_ranks():
    # testBadShape ('Need first dimension'), testBadInputRank / testBadOutputRank ('must have rank at least 2')
    x = tj.random.uniform(tj.random.key(0), [2, 3])
    with tj.GradientTape() as g:
        y = tnp.concatenate([x, x], axis=0)
    with pytest.raises(ValueError, match="Need first dimension"):
        g.batch_jacobian(y, x)
    for xs, ys in (([2], [2, 2]), ([2, 2], [2])):
        x = tj.random.uniform(tj.random.key(0), xs)
        with tj.GradientTape() as g:
            y = tj.random.uniform(tj.random.key(1), ys)
        with pytest.raises(ValueError, match="must have rank at least 2"):
            g.batch_jacobian(y, x)


def test_batch_jacobian_parallel_iterations():
    # BatchJacobianTest.test_parallel_iterations
    with tj.GradientTape(persistent=True) as g:
        x = tj.constant([[1., 2], [3, 4]])
        g.watch(x)
        w = tj.constant([[1., 2, 3, 4], [5, 6, 7, 8]])
        y = tnp.matmul(x, w)
    a = g.batch_jacobian(y, x, parallel_iterations=2)
    close(a, g.batch_jacobian(y, x, parallel_iterations=3))
    close(a, np.broadcast_to(np.asarray(w).T, (2, 4, 2)))


def test_batch_jacobian_strided_slice():
    # test_strided_slice (eagerly): a slice bound from reduce_max of a tensor; shape (2, 4, 2, 4, 2)
    x = tnp.ones([2, 4, 2])
    length = tj.constant([2, 3, 4, 4])
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.repeat(x, 2, axis=1)
        y = y[:, :tnp.max(length), :]
    bj = tape.batch_jacobian(y, x)
    assert bj.shape == (2, 4, 2, 4, 2)
    close(bj, jax.vmap(jax.jacrev(lambda a: jnp.repeat(a, 2, axis=0)[:4]))(x.value))


# -- parallel_for/gradients_test.py GradientsTest -----------------------------------------------------------

def test_no_path():
    # test_no_path (with tape.jacobian / tape.batch_jacobian): jacobian None; TF 2.21's tape.batch_jacobian
    # returns zeros [[[0.]]] for an unconnected target (see test_tf_backprop_port.py)
    for use_pfor in PFOR:
        with tj.GradientTape(persistent=True) as g:
            x = tj.constant([[1.0]])
            g.watch(x)
            y = tj.constant([[2.0]])
        assert g.jacobian(y, x, experimental_use_pfor=use_pfor) is None
        close(g.batch_jacobian(y, x, experimental_use_pfor=use_pfor), [[[0.]]])


def test_jacobian_fixed_shape():
    # test_jacobian_fixed_shape: jacobian of matmul(x, x, transpose_a=True) == per-element gradients
    with tj.GradientTape(persistent=True) as g:
        x = tj.constant(_r(2, 2))
        g.watch(x)
        y = tnp.matmul(tnp.transpose(x), x)
        elems = [[y[i][j] for j in range(2)] for i in range(2)]
    answer = tnp.stack([tnp.stack([g.gradient(elems[i][j], x) for j in range(2)]) for i in range(2)])
    for use_pfor in PFOR:
        close(g.jacobian(y, x, experimental_use_pfor=use_pfor), answer, rtol=1e-4, atol=1e-4)


def test_jacobian_unknown_shape():
    # test_jacobian_unknown_shape (a placeholder fed [[1, 2], [3, 4]]: a tj.function argument here)
    @tj.function
    def f(x):
        with tj.GradientTape(persistent=True) as g:
            g.watch(x)
            y = tnp.matmul(tnp.transpose(x), x)
        return g.jacobian(y, x, experimental_use_pfor=True), g.jacobian(y, x, experimental_use_pfor=False)
    answer = jax.jacrev(lambda x: x.T @ x)(jnp.array([[1., 2.], [3., 4.]]))
    for got in f(tj.constant([[1., 2.], [3., 4.]])):
        close(got, answer)


def test_jacobian_scan_and_while_loop_shape():
    # test_jacobian_scan_shape: y = scan(a + e, elems, initializer=x): jacobian shape [6, 3, 4, 3, 4];
    # test_jacobian_while_loop_shape: y = x[:2, :3] (the loop body never runs): shape [2, 3, 3, 4]
    x = tj.constant(_r(3, 4))
    elems = tj.constant(_r(6))
    with tj.GradientTape(persistent=True) as g:
        g.watch(x)
        a, ys = x, []
        for i in range(6):
            a = a + elems[i]
            ys.append(a)
        y = tnp.stack(ys)
        y2 = x[:2, :3]
    j = g.jacobian(y, x)
    assert j.shape == (6, 3, 4, 3, 4)
    close(j, np.broadcast_to(np.eye(12).reshape(3, 4, 3, 4), (6, 3, 4, 3, 4)))
    assert g.jacobian(y2, x).shape == (2, 3, 3, 4)


@pytest.mark.parametrize("use_function", [False, True])
def test_batch_jacobian_fixed_and_unknown_shape(use_function):
    # test_batch_jacobian_fixed_shape ([2, 3, 5]) / test_batch_jacobian_unknown_shape ([[1, 2], [3, 4]]):
    # batch_jacobian of x * x is stack([diag(2 x[0]), diag(2 x[1])])
    def f(x):
        with tj.GradientTape(persistent=True) as g:
            g.watch(x)
            y = x * x
        return [g.batch_jacobian(y, x, experimental_use_pfor=p) for p in PFOR]
    f = tj.function(f) if use_function else f
    for x0 in (_r(2, 3, 5), np.array([[1., 2.], [3., 4.]], np.float32)):
        answer = np.stack([np.diag(2 * x0[i].ravel()).reshape(x0.shape[1:] * 2) for i in range(2)])
        for got in f(tj.constant(x0)):
            close(got, answer, rtol=1e-6)


class _Dense(tj.Module):
    def __init__(self, nin, nout, activation=None):
        super().__init__()
        self.w = tj.Variable(_r(nin, nout, scale=0.5))
        self.b = tj.Variable(_r(nout, scale=0.1))
        self.activation = activation

    def __call__(self, x):
        y = tnp.matmul(x, self.w) + self.b
        return self.activation(y) if self.activation else y


def _fc_model(x, layers):
    for layer in layers:
        x = layer(x)
    return x


def _fc_reference(x, layers):
    for layer in layers:
        x = jax.nn.relu(x @ layer.w.value().value + layer.b.value().value)
    return x


def test_fc_batch_jacobian():
    # test_fc_batch_jacobian (8, 4, 2): pfor == while_loop (and jax.vmap(jax.jacrev))
    layers = [_Dense(4, 4, nn.relu) for _ in range(2)]
    inp = tj.constant(_r(8, 4))
    with tj.GradientTape(persistent=True) as g:
        g.watch(inp)
        out = _fc_model(inp, layers)
    p = g.batch_jacobian(out, inp, experimental_use_pfor=True)
    close(p, g.batch_jacobian(out, inp, experimental_use_pfor=False), rtol=1e-4, atol=1e-4)
    close(p, jax.vmap(jax.jacrev(lambda r: _fc_reference(r[None], layers)[0]))(inp.value), rtol=1e-4, atol=1e-5)


def test_fc_jacobian():
    # test_fc_jacobian: jacobian of the batch output w.r.t. the weights == per-example jacobians (pfor, while)
    layers = [_Dense(4, 4, nn.relu) for _ in range(2)]
    variables = [v for layer in layers for v in (layer.w, layer.b)]
    inp = tj.constant(_r(8, 4))
    with tj.GradientTape() as g:
        out = _fc_model(inp, layers)
    jacobians = g.jacobian(out, variables)
    for use_pfor in PFOR:
        per_example = []
        for i in range(8):
            with tj.GradientTape(persistent=not use_pfor) as g:
                o = tnp.reshape(_fc_model(tnp.expand_dims(inp[i], 0), layers), [-1])
            per_example.append(g.jacobian(o, variables, experimental_use_pfor=use_pfor))
        for k, j in enumerate(jacobians):
            close(j, np.stack([np.asarray(p[k]) for p in per_example]), rtol=2e-3, atol=1e-3)


def _lstm_cell(w, b, inp, state, forget_bias=1.0):
    # BasicLSTMCell: [i, j, f, o] = split(concat([inp, h]) @ w + b)
    c, h = state
    i, j, f, o = tnp.split(tnp.matmul(tnp.concatenate([inp, h], axis=1), w) + b, 4, axis=1)
    new_c = c * nn.sigmoid(f + forget_bias) + nn.sigmoid(i) * tnp.tanh(j)
    return tnp.tanh(new_c) * nn.sigmoid(o), (new_c, tnp.tanh(new_c) * nn.sigmoid(o))


def _lstm_weights(state_size):
    return tj.Variable(_r(2 * state_size, 4 * state_size, scale=0.3)), tj.Variable(_r(4 * state_size, scale=0.1))


def test_lstm_batch_jacobian():
    # test_lstm_batch_jacobian (8, 4, 2): d final c / d initial c, pfor == while_loop == diagonal blocks of
    # the full jacobian
    bs, ss = 8, 4
    w, b = _lstm_weights(ss)
    inputs = [tj.constant(_r(bs, ss)) for _ in range(2)]
    c0 = tnp.zeros([bs, ss])
    with tj.GradientTape(persistent=True) as g:
        g.watch(c0)
        state = (c0, tnp.zeros([bs, ss]))
        for x in inputs:
            _, state = _lstm_cell(w, b, x, state)
    p = g.batch_jacobian(state[0], c0, experimental_use_pfor=True)
    close(p, g.batch_jacobian(state[0], c0, experimental_use_pfor=False), rtol=1e-4, atol=1e-4)
    full = np.asarray(g.jacobian(state[0], c0))
    close(p, np.stack([full[i, :, i, :] for i in range(bs)]), rtol=1e-5, atol=1e-6)


def test_dynamic_lstm_batch_jacobian():
    # test_dynamic_lstm_batch_jacobian (8, 4, 3): dynamic_rnn with sequence lengths (a masked Python loop);
    # the pfor batch_jacobian's column i equals gradients(final_c[:, i], inputs)
    bs, ss, steps = 8, 4, 3
    w, b = _lstm_weights(ss)
    inputs = tj.constant(rng.rand(bs, steps, ss).astype(np.float32))
    seq = rng.randint(0, size=[bs], high=steps + 1)
    with tj.GradientTape(persistent=True) as g:
        g.watch(inputs)
        c, h = tnp.zeros([bs, ss]), tnp.zeros([bs, ss])
        for t in range(steps):
            _, (nc, nh) = _lstm_cell(w, b, inputs[:, t, :], (c, h))
            m = tj.constant((t < seq).astype(np.float32)[:, None])
            c, h = m * nc + (1 - m) * c, m * nh + (1 - m) * h
        columns = [c[:, i] for i in range(ss)]
    p = np.asarray(g.batch_jacobian(c, inputs, experimental_use_pfor=True))
    assert p.shape == (bs, ss, steps, ss)
    for i in range(ss):
        close(g.gradient(columns[i], inputs), p[:, i], rtol=1e-4, atol=1e-5)


def test_lstm_hessian():
    # test_lstm_hessian (2, 2, 2): jacobians of the jacobians w.r.t. the weights, pfor == while_loop, and
    # equal to jax's Hessian
    bs, ss = 2, 2
    w, b = _lstm_weights(ss)
    inputs = [tj.constant(_r(bs, ss)) for _ in range(2)]
    with tj.GradientTape(persistent=True) as outer:
        with tj.GradientTape() as inner:
            state = (tnp.zeros([bs, ss]), tnp.zeros([bs, ss]))
            for x in inputs:
                _, state = _lstm_cell(w, b, x, state)
        jacobians = inner.jacobian(state[0], [w, b])
    hessians = [outer.jacobian(j, [w, b]) for j in jacobians]
    # (the while_loop side row by row only for the jacobian w.r.t. b: 32 rows, not 128)
    close(outer.jacobian(jacobians[1], b, experimental_use_pfor=False), hessians[1][1], rtol=1e-4, atol=1e-5)

    def reference(wv, bv):
        c, h = jnp.zeros((bs, ss)), jnp.zeros((bs, ss))
        for x in inputs:
            i, j, f, o = jnp.split(jnp.concatenate([x.value, h], 1) @ wv + bv, 4, 1)
            c = c * jax.nn.sigmoid(f + 1.) + jax.nn.sigmoid(i) * jnp.tanh(j)
            h = jnp.tanh(c) * jax.nn.sigmoid(o)
        return c
    want = jax.jit(jax.jacfwd(jax.jacrev(reference, argnums=(0, 1)), argnums=(0, 1)))(w.value().value, b.value().value)
    for a in range(2):
        for c in range(2):
            close(hessians[a][c], want[a][c], rtol=1e-3, atol=1e-4)


def test_lstm_batch_hessian():
    # test_lstm_batch_hessian (2, 2, 2): batch_jacobian of the reshaped pfor batch_jacobian, pfor == while
    bs, ss = 2, 2
    w, b = _lstm_weights(ss)
    inputs = [tj.constant(_r(bs, ss)) for _ in range(2)]
    results = {}
    for use_pfor in PFOR:
        c0 = tnp.zeros([bs, ss])
        with tj.GradientTape(persistent=True) as outer:
            outer.watch(c0)
            with tj.GradientTape() as inner:
                inner.watch(c0)
                state = (c0, tnp.zeros([bs, ss]))
                for x in inputs:
                    _, state = _lstm_cell(w, b, x, state)
            pj = tnp.reshape(inner.batch_jacobian(state[0], c0), [bs, -1])
        results[use_pfor] = outer.batch_jacobian(pj, c0, experimental_use_pfor=use_pfor)
    assert results[True].shape == (bs, ss * ss, ss)
    close(results[True], results[False], rtol=1e-4, atol=1e-6)


def test_mnist_per_eg_jacobian():
    # test_mnist_per_eg_jacobian (a smaller net: 10x10 images, conv 5x5 SAME + relu + max_pool 2x2 SAME,
    # twice, then dense layers; dropout off as TF's training=False): per-example jacobians of the logits
    # w.r.t. every weight, pfor == while_loop == tj.function == jax.jacrev
    dn = ("NHWC", "HWIO", "NHWC")
    params = [tj.Variable(_r(5, 5, 1, 4, scale=.2)), tj.Variable(_r(4, scale=.1)),
              tj.Variable(_r(5, 5, 4, 6, scale=.2)), tj.Variable(_r(6, scale=.1)),
              tj.Variable(_r(54, 16, scale=.2)), tj.Variable(_r(16, scale=.1)),
              tj.Variable(_r(16, 10, scale=.2)), tj.Variable(_r(10, scale=.1))]

    def model(m, ops, image, p):
        y = m.reshape(image, (-1, 10, 10, 1))
        for k in (0, 2):
            y = ops.relu(ops.conv(y, p[k], (1, 1), "SAME", dimension_numbers=dn) + p[k + 1])
            y = ops.max_pool(y, (2, 2), (2, 2), "SAME")
        y = ops.relu(m.matmul(m.reshape(y, (y.shape[0], -1)), p[4]) + p[5])
        return m.reshape(m.matmul(y, p[6]) + p[7], (-1,))

    class JaxOps:
        relu = staticmethod(jax.nn.relu)

        @staticmethod
        def conv(x, w, s, pad, dimension_numbers):
            return jax.lax.conv_general_dilated(x, w, s, pad, dimension_numbers=dimension_numbers)

        @staticmethod
        def max_pool(x, window, strides, pad):
            return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1,) + window + (1,), (1,) + strides + (1,), pad)

    images = rng.rand(2, 10, 10).astype(np.float32)

    @tj.function
    def in_function(image):
        with tj.GradientTape() as g:
            logits = model(tnp, nn, image, params)
        return g.jacobian(logits, params)

    values = [p.value().value for p in params]
    for i in range(2):
        image = tj.constant(images[i])
        got = {}
        for use_pfor in PFOR:
            with tj.GradientTape(persistent=not use_pfor) as g:
                logits = model(tnp, nn, image, params)
            got[use_pfor] = g.jacobian(logits, params, experimental_use_pfor=use_pfor)
        want = jax.jit(jax.jacrev(lambda ps: model(jnp, JaxOps, images[i], ps)))(values)
        for k in range(len(params)):
            close(got[True][k], got[False][k], rtol=1e-3, atol=1e-5)
            close(got[True][k], want[k], rtol=1e-3, atol=1e-5)
        for a, b in zip(in_function(image), got[True]):
            close(a, b, rtol=1e-3, atol=1e-5)


# -- op jacobians: TF 2.21's conventions survive the vectorized backward pass ----------------------------------

_TIE = np.array([[1., 1., 0.5, 0.], [0., -2., -2., 3.], [0.5, 0., 0., -0.5]], np.float32)
_OTHER = np.array([[1., 0., 0.5, 0.], [1., -2., 0., 3.], [0.5, 0.1, 0., -0.5]], np.float32)
_S2, _S12 = 1 / np.sqrt(2.), 1 / np.sqrt(12.)
# (function, TF 2.21's elementwise derivative at _TIE: the diagonal of tape.batch_jacobian(f(x), x))
_ELEMENTWISE = {
    "relu": (nn.relu, [[1, 1, 1, 0], [0, 0, 0, 1], [1, 0, 0, 0]]),
    "abs": (tnp.abs, [[1, 1, 1, 0], [0, -1, -1, 1], [1, 0, 0, -1]]),
    "maximum": (lambda x: tnp.maximum(x, _OTHER), [[1, 1, 1, 1], [0, 1, 0, 1], [1, 0, 1, 1]]),
    "minimum": (lambda x: tnp.minimum(x, _OTHER), [[1, 0, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1]]),
    "clip": (lambda x: tnp.clip(x, -0.5, 1.0), [[1, 1, 1, 1], [1, 0, 0, 0], [1, 1, 1, 1]]),
    "where_sqrt": (lambda x: tnp.where(x > 0, tnp.sqrt(x), 0.), [[.5, .5, _S2, 0], [0, 0, 0, _S12], [_S2, 0, 0, 0]]),
}


@pytest.mark.parametrize("name", sorted(_ELEMENTWISE))
@pytest.mark.parametrize("use_pfor", PFOR)
def test_elementwise_jacobians_at_kinks_and_ties(name, use_pfor):
    f, derivative = _ELEMENTWISE[name]
    x = tj.constant(_TIE)
    with tj.GradientTape(persistent=True) as g:
        g.watch(x)
        y = f(x)
    want = np.stack([np.diag(row) for row in np.asarray(derivative, np.float32)])
    close(g.batch_jacobian(y, x, experimental_use_pfor=use_pfor), want, rtol=1e-6)
    full = np.asarray(g.jacobian(y, x, experimental_use_pfor=use_pfor))
    close(np.stack([full[i, :, i, :] for i in range(3)]), want, rtol=1e-6)


@pytest.mark.parametrize("use_pfor", PFOR)
def test_reduction_jacobians_with_ties(use_pfor):
    # TF 2.21: reduce_max / reduce_min split the gradient equally among ties; reduce_prod with zeros
    x = tj.constant(_TIE)
    z = tj.constant([[0., 0., 2.], [1., 2., 3.]])
    with tj.GradientTape(persistent=True) as g:
        g.watch([x, z])
        ymax, ymin, yprod, yprod0 = tnp.max(x, axis=1), tnp.min(x, axis=1), tnp.prod(x, axis=1), tnp.prod(z, axis=1)
    jmax = g.jacobian(ymax, x, experimental_use_pfor=use_pfor)
    close(np.stack([np.asarray(jmax)[i, i] for i in range(3)]), [[.5, .5, 0, 0], [0, 0, 0, 1], [1, 0, 0, 0]])
    jmin = g.jacobian(ymin, x, experimental_use_pfor=use_pfor)
    close(np.stack([np.asarray(jmin)[i, i] for i in range(3)]), [[0, 0, 0, 1], [0, .5, .5, 0], [0, 0, 0, 1]])
    jprod = g.jacobian(yprod, x, experimental_use_pfor=use_pfor)
    close(np.stack([np.asarray(jprod)[i, i] for i in range(3)]), [[0, 0, 0, .5], [12, 0, 0, 0], [0, 0, 0, 0]])
    close(g.jacobian(yprod0, z, experimental_use_pfor=use_pfor), [[[0, 0, 0], [0, 0, 0]], [[0, 0, 0], [6, 3, 2]]])


def _max_pool_ref(x):
    return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")


# name: (tj function, jax reference, inputs); TF 2.21 gave the same jacobians (tf.nn.conv2d NHWC,
# tf.nn.max_pool2d with ties, tf.nn.avg_pool2d SAME, fused_batch_norm y, layer norm, softmax, xent)
_OPS = {
    "conv": (lambda x, w: nn.conv(x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")),
             lambda x, w: jax.lax.conv_general_dilated(x, w, (2, 2), "SAME",
                                                       dimension_numbers=("NHWC", "HWIO", "NHWC")),
             [(2, 4, 4, 2), (3, 3, 2, 3)]),
    "max_pool_ties": (lambda x: nn.max_pool(x, (3, 3), (2, 2), "SAME"), _max_pool_ref, ["ties"]),
    "avg_pool_same": (lambda x: nn.avg_pool(x, (3, 3), (2, 2), "SAME", count_include_pad=False), None, [(2, 4, 4, 2)]),
    "batch_norm_y": (lambda x, s, o: nn.batch_norm(x, s, o)[0], None, [(4, 2, 2, 3), (3,), (3,)]),
    "layer_norm": (lambda x, s, o: nn.layer_norm(x, s, o), None, [(3, 4), (4,), (4,)]),
    "softmax": (nn.softmax, jax.nn.softmax, [(3, 4)]),
    "log_softmax": (nn.log_softmax, jax.nn.log_softmax, [(3, 4)]),
    "xent": (lambda z: nn.softmax_cross_entropy_with_logits(jax.nn.softmax(jnp.arange(12.).reshape(3, 4)), z),
             lambda z: -jnp.sum(jax.nn.softmax(jnp.arange(12.).reshape(3, 4)) * jax.nn.log_softmax(z), -1), [(3, 4)]),
}


@jax.custom_jvp
def _rsqrt_custom(v):
    return jax.lax.rsqrt(v)


@_rsqrt_custom.defjvp
def _rsqrt_custom_jvp(primals, tangents):
    (v,), (t,) = primals, tangents
    y = _rsqrt_custom(v)
    return y, -0.5 * (t * y) * (y * y)


@tj.op
def _norm_with_custom_jvp(x, s, o):
    """A layer norm whose function calls a jax.custom_jvp function: under jacobian's vectorized backward, JAX's
    batching wraps its unbatched values as BatchTracers, which the residuals of its recording inside tj.function
    kept (UnexpectedTracerError at the next jacobian: layer_norm written with tapejax's rules.tf_rsqrt did so)."""
    mean = jnp.mean(x, -1, keepdims=True)
    return (x - mean) * _rsqrt_custom(jnp.mean(jnp.square(x - mean), -1, keepdims=True) + 1e-5) * s + o


_OPS["norm_with_custom_jvp"] = (_norm_with_custom_jvp, None, [(3, 4), (4,), (4,)])


def _inputs(specs):
    out = []
    for s in specs:
        out.append(np.round(_r(2, 4, 4, 2)) if s == "ties" else _r(*s))
    return out


@pytest.mark.parametrize("name", sorted(_OPS))
def test_op_jacobians_pfor_loop_function_agree(name):
    f, reference, specs = _OPS[name]
    args = _inputs(specs)

    def compute(*xs):
        with tj.GradientTape(persistent=True) as g:
            g.watch(list(xs))
            y = f(*xs)
        out = [g.jacobian(y, list(xs), experimental_use_pfor=p) for p in PFOR]
        if y.ndim >= 2 and y.shape[0] == xs[0].shape[0]:
            out.append([g.batch_jacobian(y, xs[0], experimental_use_pfor=p) for p in PFOR])
        return out
    eager = compute(*[tj.constant(a) for a in args])
    traced = tj.function(compute)(*[tj.constant(a) for a in args])
    for a, b, c in zip(eager[0], eager[1], traced[0]):
        close(a, b, rtol=1e-4, atol=1e-5)
        close(a, c, rtol=1e-4, atol=1e-5)
    if len(eager) == 3:
        close(eager[2][0], eager[2][1], rtol=1e-4, atol=1e-5)
        # batch_jacobian[b, j] = d sum_b' y[b', j] / d x[b]: the diagonal blocks of the full jacobian where the
        # examples are independent (batch norm's are not, as TF's guide warns)
        full = np.asarray(eager[0][0])
        b = full.shape[0]
        per_row = full.reshape((b, -1, b, args[0][0].size)).sum(axis=0)  # (j, b, source features)
        close(np.asarray(eager[2][0]).reshape(b, per_row.shape[0], -1), per_row.transpose(1, 0, 2),
              rtol=1e-4, atol=1e-5)
    if reference is not None:
        want = jax.jit(jax.jacrev(reference, argnums=tuple(range(len(args)))))(*args)
        for a, w in zip(eager[0], want):
            close(a, w, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("what", ["jacobian", "batch_jacobian"])
def test_none_target_or_structured_source_says_so(what):
    # TF 2.21 fails with AttributeError ('NoneType' object has no attribute 'shape'; batch_jacobian of a list
    # source: 'list' object has no attribute 'shape'); here a TypeError naming the argument (was "None is not a
    # valid value for jnp.array" / AttributeError 'list' object has no attribute 'value'), tape not used up.
    x = tj.constant([[1., 2.]])
    with tj.GradientTape() as g:
        g.watch(x)
        y = x * 2.
    with pytest.raises(TypeError, match="target is None"):
        getattr(g, what)(None, x)
    if what == "batch_jacobian":
        for bad in (None, [x]):
            with pytest.raises(TypeError, match="source must be one Tensor or Variable"):
                g.batch_jacobian(y, bad)
    close(getattr(g, what)(y, x), [[[2., 0.], [0., 2.]]] if what == "batch_jacobian" else
          2 * np.eye(2).reshape(1, 2, 1, 2))


@pytest.mark.parametrize("what", ["jacobian", "batch_jacobian"])
@pytest.mark.parametrize("persistent", [True, False])
def test_check_numerics_sees_the_vectorized_jacobian(what, persistent):
    # tj.debug.check_numerics() raises at the first Inf a backward kernel makes, on every path: the vectorized
    # Jacobian ran its kernels under jax.vmap, where the check saw only tracers, and returned [[inf, 0], [nan,
    # .25]] silently (TF 2.21's value, which the rows one by one give outside check_numerics).
    x = tj.constant([[0., 4.]])
    with tj.GradientTape(persistent=persistent) as g:
        g.watch(x)
        y = tnp.log(x)
    with tj.debug.check_numerics():
        with pytest.raises(tj.debug.NumericsError, match="op 'log' produced Inf"):
            getattr(g, what)(y, x)
    if persistent:
        got = np.asarray(getattr(g, what)(y, x)).reshape(2, 2)
        np.testing.assert_array_equal(got, [[np.inf, 0.], [np.nan, .25]])
