"""TF test methods not ported before, from four TF files, ported to tapejax.

Sources (each test names the TF test it comes from; expected values are TF 2.21's, from the same program
run in TF 2.21, hard-coded here; TF is not imported):

- tensorflow/python/eager/polymorphic_function/gradients_test.py: every FunctionGradientsTest method in
  scope was already ported (test_tf_function_gradients_port.py). Left out: testGraphModeEagerGradError
  (run_v1_only: context.graph_mode, variable_scope.get_variable, backprop.implicit_val_and_grad).
- tensorflow/python/ops/parallel_for/gradients_test.py (GradientsTest): ported here test_batch_jacobian_bad_shapes,
  test_batch_jacobian_bad_unknown_shapes (the placeholder is a tj.function argument: shapes are static in
  tapejax, so the mismatch is found when tracing; TF 2.21's tape.batch_jacobian in a tf.function raises
  ValueError for a known and for an unknown input shape alike), test_fc_per_eg_grad, test_lstm_per_eg_grad,
  test_mnist_per_eg_grad. pfor / for_loop themselves are not in API.md: the per-example gradients are
  computed here by the vectorized tape.jacobian of the per-example losses (pfor's side), by the same jacobian
  with experimental_use_pfor=False, by jax.vmap of a one-example tape gradient (API.md's jax.vmap path, the
  shape of pfor itself), and by a Python loop of one tape per example (for_loop's side); the
  models are the tests' (Dense + relu layers, a BasicLSTMCell written out, a smaller MNIST-style conv net as in
  test_tf_jacobian_port.py's test_mnist_per_eg_jacobian) with fixed NumPy weights and inputs in place of
  random initializers. The other GradientsTest methods were already ported (test_tf_jacobian_port.py).
- tensorflow/python/kernel_tests/variables/resource_variable_ops_test.py (ResourceVariableOpsTest): ported
  here testEagerNameNotNeeded, testUnconnectedGradientZeros (tj.gradients in a tj.function, and the eager
  tape), testInt4 (eager part), and the dtype / assign_add / assign_sub / numpy() parts of testGPUBfloat16 and
  testGPUInteger (without the GPU placement, and without int64 / uint64: API.md fixes JAX's x64 off).
  Left out, by reason:
    resource handles and handle ops: testHandleDtypeShapeMatch, testReadVariableDtypeMismatchEager,
      testVariableShape, testFetchHandle, testAssignVariableDtypeMismatchEager, testFormatResourceHandle,
      testDtypeSurvivesIdentity, testCreateRead, testManyAssigns, testAssignAdd, testScatterAdd/Sub/Mul/Div/
      Min/Max and their *Scalar forms, testDefaultGradientDtype, testDestroyResource, testDestruction,
      testContainerEager, testGatherWithBatchDims, testGatherWithBatchDimsMatchesTensor, testGatherWithDTypes,
      testGatherBatchDimsNeg, testGatherDtypeMismatch, testGatherNdDtypeMismatch, testInitFromHandle,
      testUniqueIdPreservedThroughPackAndUnpack, testHandleNamePreservedThroughPackAndUnpack;
    TF1 graphs / sessions / protos / initializers: testInitializeVariableUsingInitializedValue,
      testGraphDeepCopy, testDifferentAssignGraph, testCachedValueReadBeforeWrite, testUseResource,
      testEagerNoUseResource, testMetagraph, testGPU, testInitFn, testLoad (Variable.load),
      testToFromProtoCachedValue, testVariableDefInitializedInstances, testTrainableInProto, testToFromProto,
      testDtypeAfterFromProto, testAssignDifferentShapes, testCachingDevice, testSharedName,
      testSharedNameWithNamescope, testSetInitialValue, testControlFlowInitialization,
      testCopyToGraphUninitialized;
    graph op names: testUnreadOpName (the name of TF's _UnreadVariable wrapper; API.md has assign_add
      return the variable itself), testGroupDoesntForceRead, testUnreadVariableInsideFunction;
    IndexedSlices / scatter ops and sparse reads (not in API.md): testGradientGatherNdIndexedSlices,
      testScatter{Add,Sub,Max,Min,Mul,Div,Update}VariableMethod, testScatterBool, testScatterUpdate,
      testScatterAddStateOps, testScatterSubStateOps, testScatterNdAddStateOps, testScatterNdSubStateOps,
      testScatterUpdateCast, testScatterUpdateInvalidArgs, testScatterUpdateInvalidInnerShape,
      testScatterAddDeterministic, testShapePassedToGradient, testSparseRead, testGatherNd;
    string / variant tensors: testScatterUpdateString, testScatterUpdateStringScalar,
      testScatterUpdateVariant, testVariantInitializer;
    device placement only: testScatterUpdateDoesNotNarrowInt64Index (run_gpu_only, a scatter);
    tf.cond / tf.while_loop internals: testGradientCondInWhileLoop;
    not in API.md: testLocalVariables (experimental_enable_variable_lifting=False), testConstraintArg
      (constraint=), testCountUpTo, testCountUpToFunction, testStridedSliceAssign (v[0].assign),
      testAssignDifferentShapesAllowed (shape=TensorShape(None); also XLA-disabled),
      testInitValueWrongShape (Variable(shape=...)), testCompositeTensorTypeSpec,
      testVariableInExtensionType, testFlattenResourceVariable (composite tensors / ExtensionType / nest).
  The remaining methods were already ported (test_tf_variables_port.py, test_tf_training_port.py).
- tensorflow/python/kernel_tests/math_ops/clip_ops_test.py: ported here testClipByGlobalNormClipped (the
  Python-float clip_norm and tuple form) and testClipByGlobalNormInf (its exact 2x3 input); the other clip_by_norm /
  clip_by_global_norm tests were already ported (test_tf_training_port.py, test_keras_optimizers_port.py,
  some under abbreviated names such as "testClipByNormClipped / NotClipped / Zero / ClippedWithDim0").
  Left out: clip_by_value tests (testClipByValue*, testClipByValueGradient / BadShape / NonFinite /
  EmptyTensor: tf.clip_by_value is not in API.md, tj.numpy.clip mirrors jnp.clip), clip_by_average_norm
  tests (testClipByAverageNorm*: not in API.md, TF1-only), IndexedSlices (testClipByValueWithIndexedSlicesClipped,
  testClipByGlobalNormWithIndexedSlicesClipped, testClipByGlobalNormPreservesDenseShape).
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


# ------------------------------------------------------------------------------------------------------------
# parallel_for/gradients_test.py GradientsTest
# ------------------------------------------------------------------------------------------------------------

def test_batch_jacobian_bad_shapes():
    # test_batch_jacobian_bad_shapes: x uniform [2, 2], y uniform [3, 2] (not even connected to x):
    # ValueError "Need first dimension of ..." (TF 2.21's tape.batch_jacobian: "Need first dimension of target
    # shape ((3, 2)) and source shape ((2, 2)) to match."), before any None / zeros answer
    x = tj.random.uniform(tj.random.key(0), [2, 2])
    for use_pfor in PFOR:
        with tj.GradientTape(persistent=True) as g:
            g.watch(x)
            y = tj.random.uniform(tj.random.key(1), [3, 2])
        with pytest.raises(ValueError, match="Need first dimension"):
            g.batch_jacobian(y, x, experimental_use_pfor=use_pfor)


def test_batch_jacobian_bad_unknown_shapes():
    # test_batch_jacobian_bad_unknown_shapes: y = concat([x, x], axis=0) with x fed [[1, 2], [3, 4]]; TF's
    # placeholder run raises InvalidArgumentError ("assertion failed"); in a tf.function TF 2.21 raises
    # ValueError ("Need first dimension of target shape ((4, 2)) and source shape ((2, 2)) to match."), as
    # tapejax must (InvalidArgumentError <-> ValueError)
    @tj.function
    def f(x):
        with tj.GradientTape() as g:
            g.watch(x)
            y = tnp.concatenate([x, x], axis=0)
        return g.batch_jacobian(y, x)

    with pytest.raises(ValueError, match="Need first dimension"):
        f(tj.constant([[1., 2.], [3., 4.]]))


def _per_example_grads(per_example_losses, one_example_loss, examples, variables):
    """pfor's side: the jacobian of the per-example losses (vectorized, then row by row), and jax.vmap of the
    one-example gradient (pfor's own shape: a vectorized loop body that runs a tape); for_loop's side: one
    tape per example. ``examples``: NumPy arrays, batch first; ``one_example_loss`` takes one example of each
    (without the batch dimension). Returns the four lists of per-parameter stacks."""
    batch = examples[0].shape[0]
    with tj.GradientTape(persistent=True) as g:
        losses = per_example_losses()
    assert losses.shape == (batch,)
    vectorized = g.jacobian(losses, variables, experimental_use_pfor=True)
    rows = g.jacobian(losses, variables, experimental_use_pfor=False)

    def one_gradient(*example):
        with tj.GradientTape() as g1:
            loss = one_example_loss(*[tj.constant(e) for e in example])
        return g1.gradient(loss, variables)

    loop = [one_gradient(*[e[i] for e in examples]) for i in range(batch)]
    loop = [np.stack([np.asarray(grads[k]) for grads in loop]) for k in range(len(variables))]
    vmapped = jax.vmap(lambda *example: [d.value for d in one_gradient(*example)])(*examples)
    return vectorized, rows, loop, vmapped


def _norms(stacks):
    return np.stack([np.linalg.norm(np.asarray(s).reshape(s.shape[0], -1), axis=1) for s in stacks], 1)


def _check_per_example(vectorized, rows, loop, vmapped, shapes, rtol=1e-4, atol=1e-5):
    for k, shape in enumerate(shapes):
        for got in (vectorized, rows, loop, vmapped):
            assert got[k].shape == shape
        for got in (vectorized, rows, vmapped):
            close(got[k], loop[k], rtol=rtol, atol=atol)


def _l2_loss(x, axis=None):
    return tnp.sum(x * x, axis=axis) / 2.0


def test_fc_per_eg_grad():
    # test_fc_per_eg_grad (8, 4, 2): two Dense(4, relu) layers, a Dense(1) projection, l2_loss; per-example
    # gradients w.r.t. all six variables, pfor == for_loop. Weights: RandomState(0), inputs first, then
    # (W randn * 1.0, b randn * 0.1) per layer, then the projection's (randn * 0.5, randn * 0.1).
    rng = np.random.RandomState(0)
    bs, act, nl = 8, 4, 2
    inp = rng.randn(bs, act).astype(np.float32)
    params = []
    for _ in range(nl):
        params += [rng.randn(act, act).astype(np.float32) * 1.0, rng.randn(act).astype(np.float32) * 0.1]
    params += [rng.randn(act, 1).astype(np.float32) * 0.5, rng.randn(1).astype(np.float32) * 0.1]
    vs = [tj.Variable(p) for p in params]

    def fc(x):
        for k in range(nl):
            x = nn.relu(tnp.matmul(x, vs[2 * k]) + vs[2 * k + 1])
        return tnp.matmul(x, vs[-2]) + vs[-1]

    vectorized, rows, loop, vmapped = _per_example_grads(
        lambda: _l2_loss(fc(tj.constant(inp)), axis=1),
        lambda x: _l2_loss(fc(tnp.expand_dims(x, 0))), (inp,), vs)
    _check_per_example(vectorized, rows, loop, vmapped, [(bs,) + p.shape for p in params])
    # TF 2.21 (tf.vectorized_map of the tape gradient == the Python loop, max difference 0.0):
    # per-example L2 norms of the six gradients
    tf_norms = [[0.0634952, 0.0208754, 0.9298218, 0.2418199, 0.6866697, 0.3638139],
                [0.0370531, 0.0159919, 0.4375325, 0.1852503, 0.3215222, 0.2787059],
                [0.019063, 0.0125292, 0.1901466, 0.1451382, 0.1387017, 0.2183579],
                [0.0117018, 0.0123188, 0.177834, 0.1427009, 0.1296435, 0.2146911],
                [0.1428183, 0.0810911, 0.0127516, 0.0453723, 0.0175817, 0.1325106],
                [0., 0., 0., 0., 0., 0.0870797],
                [0.0291176, 0.0107739, 0.0969672, 0.1248043, 0.0704926, 0.187766],
                [0.0547191, 0.0253062, 0.0235373, 0.0546828, 0.033872, 0.1597021]]
    close(_norms(vectorized), tf_norms, rtol=1e-4, atol=1e-6)
    # and the projection's gradients themselves
    tf_bp = [-0.3638139, -0.2787059, -0.2183579, -0.2146911, -0.1325106, -0.0870797, -0.187766, -0.1597021]
    close(vectorized[-1], np.array(tf_bp)[:, None], rtol=1e-4, atol=1e-6)
    tf_wp = [[-0.2151929, 0., 0., -0.6520792], [-0.0915056, 0., 0., -0.308226],
             [-0.0309451, 0., 0., -0.1352056], [-0.0279912, 0., 0., -0.1265857],
             [0., 0., 0., -0.0175817], [0., 0., 0., 0.], [-0.0088479, 0., 0., -0.0699351],
             [0., 0., 0., -0.033872]]
    close(vectorized[-2], np.array(tf_wp)[:, :, None], rtol=1e-4, atol=1e-6)


def _lstm_cell(w, b, x, state, forget_bias=1.0):
    # BasicLSTMCell: [i, j, f, o] = split(concat([x, h]) @ kernel + bias, 4); c' = c sig(f + 1) + sig(i) tanh(j)
    c, h = state
    i, j, f, o = tnp.split(tnp.matmul(tnp.concatenate([x, h], axis=1), w) + b, 4, axis=1)
    new_c = c * nn.sigmoid(f + forget_bias) + nn.sigmoid(i) * tnp.tanh(j)
    return tnp.tanh(new_c) * nn.sigmoid(o), (new_c, tnp.tanh(new_c) * nn.sigmoid(o))


def test_lstm_per_eg_grad():
    # test_lstm_per_eg_grad (8, 4, 2): a BasicLSTMCell(4) over two steps from a zero state, l2_loss(state.c);
    # per-example gradients w.r.t. kernel and bias, pfor == for_loop. RandomState(1): the two inputs, then
    # kernel randn(8, 16) * 0.3, bias randn(16) * 0.1.
    rng = np.random.RandomState(1)
    bs, ss, steps = 8, 4, 2
    inputs = [rng.randn(bs, ss).astype(np.float32) for _ in range(steps)]
    w = tj.Variable(rng.randn(2 * ss, 4 * ss).astype(np.float32) * 0.3)
    b = tj.Variable(rng.randn(4 * ss).astype(np.float32) * 0.1)

    def final_c(xs, n):
        state = (tnp.zeros([n, ss]), tnp.zeros([n, ss]))
        for x in xs:
            _, state = _lstm_cell(w, b, x, state)
        return state[0]

    vectorized, rows, loop, vmapped = _per_example_grads(
        lambda: _l2_loss(final_c([tj.constant(x) for x in inputs], bs), axis=1),
        lambda *xs: _l2_loss(final_c([tnp.expand_dims(x, 0) for x in xs], 1)), tuple(inputs), [w, b])
    _check_per_example(vectorized, rows, loop, vmapped, [(bs, 2 * ss, 4 * ss), (bs, 4 * ss)])
    # TF 2.21 (pfor == loop within 7.5e-8)
    tf_norms = [[0.3459009, 0.2533892], [0.9626529, 0.4559013], [0.159588, 0.1321016], [0.3413255, 0.3119811],
                [0.0415724, 0.1594556], [0.643766, 0.4898933], [0.4873946, 0.4960378], [0.3920603, 0.3616039]]
    close(_norms(vectorized), tf_norms, rtol=1e-4, atol=1e-6)
    tf_bias_sum = [0.3099181, 0.2732446, 0.3280527, 0.13902, -0.2304998, 0.6263809, 0.4927503, 0.4387608,
                   0.0696817, 0.0657849, 0.0414684, 0.0170346, -0.0170261, -0.0045936, 0.0011499, 0.0190911]
    close(np.asarray(vectorized[1]).sum(0), tf_bias_sum, rtol=1e-4, atol=1e-6)
    tf_bias_0 = [5.2974978e-03, -1.5901285e-05, -5.3050369e-04, 2.5373967e-02, 7.5017124e-02, -5.3662024e-02,
                 -4.8748828e-02, -2.2863080e-01, 1.2134661e-02, 3.3920652e-03, 9.6025700e-03, 9.6341884e-03,
                 -1.4081261e-03, -3.0186868e-03, -4.3873166e-04, 4.8145838e-03]
    close(vectorized[1][0], tf_bias_0, rtol=1e-4, atol=1e-7)


def test_mnist_per_eg_grad():
    # test_mnist_per_eg_grad (a smaller net, as test_tf_jacobian_port.py's test_mnist_per_eg_jacobian: 10x10
    # images, conv 5x5 SAME + relu + max_pool 2x2 SAME twice, dense 54 -> 16 relu, dense 16 -> 10; dropout off
    # as TF's training=False), per-example softmax_cross_entropy with one-hot labels, batch 4; gradients
    # w.r.t. all eight weights, pfor == for_loop. RandomState(2): images rand(4, 10, 10), labels randint(0, 10),
    # then the weights.
    rng = np.random.RandomState(2)
    bs = 4
    images = rng.rand(bs, 10, 10).astype(np.float32)
    sparse = rng.randint(0, 10, size=[bs])
    labels = np.zeros((bs, 10), np.float32)
    labels[np.arange(bs), sparse] = 1.
    shapes = [((5, 5, 1, 4), .2), ((4,), .1), ((5, 5, 4, 6), .2), ((6,), .1), ((54, 16), .2), ((16,), .1),
              ((16, 10), .2), ((10,), .1)]
    params = [tj.Variable((rng.randn(*s) * sc).astype(np.float32)) for s, sc in shapes]
    dn = ("NHWC", "HWIO", "NHWC")

    def logits_of(image):
        y = tnp.reshape(image, (-1, 10, 10, 1))
        for k in (0, 2):
            y = nn.relu(nn.conv(y, params[k], (1, 1), "SAME", dimension_numbers=dn) + params[k + 1])
            y = nn.max_pool(y, (2, 2), (2, 2), "SAME")
        y = nn.relu(tnp.matmul(tnp.reshape(y, (y.shape[0], -1)), params[4]) + params[5])
        return tnp.matmul(y, params[6]) + params[7]

    vectorized, rows, loop, vmapped = _per_example_grads(
        lambda: nn.softmax_cross_entropy_with_logits(tj.constant(labels), logits_of(tj.constant(images))),
        lambda image, label: nn.softmax_cross_entropy_with_logits(label, tnp.reshape(logits_of(image), (-1,))),
        (images, labels), params)
    _check_per_example(vectorized, rows, loop, vmapped, [(bs,) + s for s, _ in shapes], rtol=1e-3, atol=1e-5)
    # TF 2.21 (pfor == loop within 3.6e-7)
    tf_norms = [[1.3685319, 0.5460038, 1.9675974, 0.3198387, 2.4206569, 0.4235675, 1.8750499, 0.9754568],
                [0.8422158, 0.2880383, 1.1251297, 0.1323797, 1.3990717, 0.2335667, 2.0742457, 0.9597633],
                [0.4745463, 0.1901844, 0.8501981, 0.107001, 0.9389925, 0.1329836, 2.6666934, 0.8999425],
                [0.9454675, 0.3700738, 2.0824385, 0.3259897, 1.9654098, 0.3114691, 2.2644141, 0.929948]]
    close(_norms(vectorized), tf_norms, rtol=1e-3, atol=1e-5)
    tf_last_bias = [[0.1236526, -0.9229351, 0.1034743, 0.1318286, 0.1411375, 0.0910943, 0.0664598, 0.0982809,
                     0.0767464, 0.0902607],
                    [0.1391053, 0.0761434, 0.0943368, 0.140022, 0.1486567, -0.9060446, 0.0586135, 0.0965579,
                     0.0702776, 0.0823313],
                    [0.1468491, 0.0799605, 0.090243, 0.1482956, -0.8488747, 0.0970621, 0.0478392, 0.0915218,
                     0.0611257, 0.0859778],
                    [0.134712, 0.0916273, -0.8767909, 0.138634, 0.143031, 0.1107429, 0.0454009, 0.0871417,
                     0.0590897, 0.0664112]]
    close(vectorized[-1], tf_last_bias, rtol=1e-3, atol=1e-5)
    tf_w4_sum = [0.544319, -0.6752038, -0.5887368, 0.5587801, -0.4160495, -0.6071453, 0.2183135, 0.3735022,
                 0.2672395, 0.3249811]
    close(np.asarray(vectorized[-1]).sum(0), tf_w4_sum, rtol=1e-3, atol=1e-5)


# ------------------------------------------------------------------------------------------------------------
# resource_variable_ops_test.py ResourceVariableOpsTest
# ------------------------------------------------------------------------------------------------------------

def test_eager_name_not_needed():
    # testEagerNameNotNeeded: a Variable without a name; TF 2.21: numpy() 1.0, name "Variable:0"
    v0 = tj.Variable(1.0)
    assert v0.numpy() == 1.0
    assert v0.name == "Variable:0"


def test_unconnected_gradient_zeros():
    # testUnconnectedGradientZeros: gradients(constant 0., [Variable [[3., 4.]]], unconnected_gradients="zero")
    # has the variable's shape [1, 2]; TF 2.21 (in a tf.function, and the eager tape): [[0., 0.]] float32
    b = tj.Variable([[3., 4.]])

    @tj.function
    def f():
        c = tj.constant(0.)
        return tj.gradients(c, [b], unconnected_gradients="zero")[0]

    g = f()
    assert g.shape == (1, 2) and g.dtype == jnp.float32
    np.testing.assert_array_equal(np.asarray(g), [[0., 0.]])
    with tj.GradientTape() as tape:
        c = tj.constant(0.)
    g = tape.gradient(c, b, unconnected_gradients=tj.UnconnectedGradients.ZERO)
    assert g.shape == (1, 2) and g.dtype == jnp.float32
    np.testing.assert_array_equal(np.asarray(g), [[0., 0.]])


@pytest.mark.parametrize("dtype", [jnp.int4, jnp.uint4])
def test_int4(dtype):
    # testInt4 (eager part; the GPU placement is left out): TF 2.21: numpy() 1 (an ml_dtypes int4 / uint4
    # scalar), after assign(2): 2
    v = tj.Variable(1, dtype=dtype)
    assert v.dtype == dtype
    a = v.numpy()
    assert a == 1 and a.dtype == np.dtype(dtype)
    v.assign(2)
    assert v.numpy() == 2


def test_bfloat16():
    # testGPUBfloat16 (without the GPU placement): TF 2.21: Variable(1, dtype=bfloat16).numpy() is 1, bfloat16
    v = tj.Variable(1, dtype=jnp.bfloat16)
    a = v.numpy()
    assert a == 1 and a.dtype == np.dtype(jnp.bfloat16)


@pytest.mark.parametrize("dtype", [jnp.int8, jnp.uint8, jnp.int16, jnp.uint16, jnp.uint32])
def test_integer_assign_add_sub(dtype):
    # testGPUInteger (the assign_add / assign_sub part, without GPU placement, scatter ops, and int64 / uint64):
    # TF 2.21: 1, assign_add(1) -> 2, assign_sub(1) -> 1, dtype kept
    v = tj.Variable(1, dtype=dtype)
    assert v.numpy() == 1
    v.assign_add(1)
    assert v.numpy() == 2
    v.assign_sub(1)
    assert v.numpy() == 1 and v.numpy().dtype == np.dtype(dtype) and v.dtype == dtype


# ------------------------------------------------------------------------------------------------------------
# clip_ops_test.py ClipTest
# ------------------------------------------------------------------------------------------------------------

def test_clip_by_global_norm_clipped():
    # testClipByGlobalNormClipped: (x0, x1) a tuple, clip_norm the Python float 4.0; global norm 5, the tensors
    # scaled by 4/5. TF 2.21: a list [[[-1.6, 0, 0], [3.2, 0, 0]], [0.8, -1.6]], norm 5.0
    x0 = tnp.reshape(tj.constant([-2.0, 0.0, 0.0, 4.0, 0.0, 0.0]), (2, 3))
    x1 = tj.constant([1.0, -2.0])
    ans, norm = tj.clip_by_global_norm((x0, x1), 4.0)
    assert isinstance(ans, list) and len(ans) == 2
    close(norm, 5.0)
    close(ans[0], [[-1.6, 0.0, 0.0], [3.2, 0.0, 0.0]], rtol=1e-6)
    close(ans[1], [0.8, -1.6], rtol=1e-6)


def test_clip_by_global_norm_inf():
    # testClipByGlobalNormInf: an inf in x0 (2x3): TF 2.21: norm inf, both results all NaN with their shapes
    x0 = tnp.reshape(tj.constant([-2.0, 0.0, np.inf, 4.0, 0.0, 0.0]), (2, 3))
    x1 = tj.constant([1.0, -2.0])
    ans, norm = tj.clip_by_global_norm([x0, x1], 6.0)
    assert float(norm) == float("inf")
    np.testing.assert_array_equal(np.asarray(ans[0]), np.full([2, 3], np.nan))
    np.testing.assert_array_equal(np.asarray(ans[1]), np.full([2], np.nan))
