"""TensorFlow's training guides, ported to tapejax by a mechanical rename, checked against what TF 2.21 prints.

Sources (tensorflow/docs, ``site/en/guide/``; the stored notebooks carry no outputs, so every value below is
what the TF original printed when run with TF 2.21, recorded as a literal next to its cell):

* ``variable.ipynb`` -- "Introduction to Variables".
* ``intro_to_modules.ipynb`` -- "Introduction to modules, layers, and models" (the tf.Module parts; the
  Keras, TensorBoard and SavedModel parts are out of scope).
* ``basic_training_loops.ipynb`` -- "Basic training loops" (the hand-written loop; Keras parts out of scope).
* ``core/quickstart_core.ipynb`` -- "Quickstart for the TensorFlow Core APIs" (linear regression).
* ``core/mlp_core.ipynb`` -- "Multilayer perceptrons for digit recognition with Core APIs".

Each test names its cells by notebook cell id. The port is the rename only: ``tf.Module`` -> ``tj.Module``,
``tf.Variable`` -> ``tj.Variable``, ``tf.GradientTape`` -> ``tj.GradientTape``, ``tf.function`` ->
``tj.function``, ``tf.train.*`` -> ``tj.train.*``, ``tf.random.normal/uniform`` -> ``tj.random.normal/uniform``
(TF-style, shape first), ``tf.nn.*`` -> ``tj.nn.*``, ``tf.identity`` -> ``tj.identity``, and README's
"From TensorFlow" table for the array functions (``tf.matmul`` -> ``tnp.matmul``, ``tf.reduce_mean`` ->
``tnp.mean``, ``tf.math.reduce_std`` -> ``tnp.std``, ``tf.square`` -> ``tnp.square``, ``tf.cast(x, t)`` ->
``tnp.astype(x, t)``, ``tf.concat`` -> ``tnp.concatenate``, ``tf.one_hot`` -> ``tj.nn.one_hot``,
``tf.argmax(x, axis)`` -> ``tnp.argmax(x, axis)``, ``tf.math.argmax(x)`` (TF's default axis is 0) ->
``tnp.argmax(x, axis=0)``).

What is not a rename, and says so where used:

* the datasets (auto-mpg from a URL, MNIST from tensorflow_datasets, ``tf.random.normal`` noise) are small
  deterministic arrays, built the same way for the TF run (``_auto_mpg_like``, ``_mnist_like``, ``_noise``);
  ``tf.data`` batching is slicing; the training data is not shuffled (``tf.random.shuffle``'s order is TF's).
* random initial weights: TF's numbers are not JAX's, so where a cell's printed value depends on them the
  test gives the layer a deterministic initializer (the guide's own ``weight_init`` argument) or assigns
  fixed values after the build, and checks the random draw only for shape, dtype and bounds.
* ``tf.device('CPU:0')`` -> ``jax.default_device(jax.devices('cpu')[0])`` (tapejax has no device scope).

Deliberate differences (API.md / README), asserted as tapejax's and noted: ``Module.variables`` in order of
creation (tf.Module sorts by attribute name); dtypes with JAX's x64 off (a Python complex gives complex64 where
TF gives complex128, ``argmax`` int32 where TF gives int64); checkpoints name Variables by attribute path as TF
(``model/dense_1/w``) without TF's ``/.ATTRIBUTES/VARIABLE_VALUE`` suffix.
"""
from __future__ import annotations

import jax
import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy


def _val(t):
    return np.asarray(t.numpy())


# =====================================================================================================
# guide/variable -- Introduction to Variables
# =====================================================================================================

def test_variable_create_and_properties():
    # cells dsYXSqleojj7, GhNfPwCYpvlq
    my_tensor = tj.constant([[1.0, 2.0], [3.0, 4.0]])
    my_variable = tj.Variable(my_tensor)
    bool_variable = tj.Variable([False, False, False, True])
    complex_variable = tj.Variable([5 + 4j, 6 + 1j])
    # TF: Shape:  (2, 2) / DType:  <dtype: 'float32'> / As NumPy:  [[1. 2.] [3. 4.]]
    assert my_variable.shape == (2, 2)
    assert my_variable.dtype == tj.float32
    np.testing.assert_array_equal(my_variable.numpy(), [[1.0, 2.0], [3.0, 4.0]])
    assert isinstance(my_variable.numpy(), np.ndarray)
    assert bool_variable.dtype == tj.bool
    np.testing.assert_array_equal(bool_variable.numpy(), [False, False, False, True])
    # TF: complex128 (x64); tapejax with x64 off: complex64 (README, "From TensorFlow")
    assert complex_variable.dtype == tj.complex64
    np.testing.assert_array_equal(complex_variable.numpy(), [5 + 4j, 6 + 1j])


def test_variable_used_as_a_tensor_is_not_reshaped():
    # cell TrIaExVNp_LK
    my_variable = tj.Variable(tj.constant([[1.0, 2.0], [3.0, 4.0]]))
    as_tensor = tj.convert_to_tensor(my_variable)
    # TF: Viewed as a tensor: tf.Tensor([[1. 2.] [3. 4.]], shape=(2, 2), dtype=float32)
    assert isinstance(as_tensor, tj.Tensor) and not isinstance(as_tensor, tj.Variable)
    assert as_tensor.shape == (2, 2) and as_tensor.dtype == tj.float32
    np.testing.assert_array_equal(_val(as_tensor), [[1.0, 2.0], [3.0, 4.0]])
    # TF: Index of highest value: tf.Tensor([1 1], shape=(2,), dtype=int64)  (tf.math.argmax: axis=0)
    idx = tnp.argmax(my_variable, axis=0)
    np.testing.assert_array_equal(_val(idx), [1, 1])
    assert idx.dtype == tj.int32  # (TF: int64; x64 off)
    # TF: Copying and reshaping:  tf.Tensor([[1. 2. 3. 4.]], shape=(1, 4), dtype=float32)
    reshaped = tnp.reshape(my_variable, [1, 4])
    assert reshaped.shape == (1, 4)
    np.testing.assert_array_equal(_val(reshaped), [[1.0, 2.0, 3.0, 4.0]])
    assert my_variable.shape == (2, 2)  # "This creates a new tensor; it does not reshape the variable."


def test_variable_assign_keeps_the_dtype_and_refuses_a_resize():
    # cell yeEpO309QbB2
    a = tj.Variable([2.0, 3.0])
    assert a.assign([1, 2]) is a  # "This will keep the same dtype, float32"
    assert a.dtype == tj.float32
    np.testing.assert_array_equal(a.numpy(), [1.0, 2.0])
    # TF: ValueError: Cannot assign value to variable ' Variable:0': Shape mismatch.The variable shape (2,), and
    # the assigned value shape (3,) are incompatible.
    with pytest.raises(ValueError, match=r"shape.*\(2,\).*and.*\(3,\).*incompatible|shape.*\(3,\).*\(2,\).*incompatible"):
        a.assign([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(a.numpy(), [1.0, 2.0])
    assert a.shape == (2,)


def test_variable_from_a_variable_copies_and_the_other_assigns():
    # cell 2CnfGc6ucbXc
    a = tj.Variable([2.0, 3.0])
    b = tj.Variable(a)
    a.assign([5, 6])
    # TF: [5. 6.] / [2. 3.]  ("a and b are different")
    np.testing.assert_array_equal(a.numpy(), [5.0, 6.0])
    np.testing.assert_array_equal(b.numpy(), [2.0, 3.0])
    assert b.dtype == tj.float32 and b is not a
    # TF: [7. 9.] / [0. 0.]
    np.testing.assert_array_equal(a.assign_add([2, 3]).numpy(), [7.0, 9.0])
    np.testing.assert_array_equal(a.assign_sub([7, 9]).numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(b.numpy(), [2.0, 3.0])


def test_variables_with_the_same_name_are_distinct():
    # cell VBFbzKj8RaPf
    my_tensor = tj.constant([[1.0, 2.0], [3.0, 4.0]])
    a = tj.Variable(my_tensor, name="Mark")
    b = tj.Variable(my_tensor + 1, name="Mark")  # "Note that the scalar add is broadcast"
    # TF: tf.Tensor([[False False] [False False]], shape=(2, 2), dtype=bool)
    eq = a == b
    assert eq.shape == (2, 2) and eq.dtype == tj.bool
    np.testing.assert_array_equal(_val(eq), [[False, False], [False, False]])
    assert a.name == b.name  # "they will have the same name but will be backed by different tensors"
    np.testing.assert_array_equal(b.numpy(), [[2.0, 3.0], [4.0, 5.0]])


def test_variable_name_as_tf_prints_it():
    # cell VBFbzKj8RaPf: TF's a.name, b.name -> 'Mark:0', 'Mark:0'
    my_tensor = tj.constant([[1.0, 2.0], [3.0, 4.0]])
    a = tj.Variable(my_tensor, name="Mark")
    b = tj.Variable(my_tensor + 1, name="Mark")
    assert (a.name, b.name) == ("Mark:0", "Mark:0")


def test_a_non_trainable_step_counter_is_not_watched():
    # cell B5Sj1DqhbZvx; TF: <tf.Variable 'Variable:0' shape=() dtype=int32, numpy=1>, trainable False
    step_counter = tj.Variable(1, trainable=False)
    assert step_counter.dtype == tj.int32 and step_counter.shape == () and not step_counter.trainable
    assert int(step_counter.numpy()) == 1 and step_counter.name == "Variable:0"  # (TF's default name)
    w = tj.Variable(2.0)
    with tj.GradientTape() as tape:
        y = w * tnp.astype(step_counter, tj.float32)
    assert tape.watched_variables() == (w,)
    assert float(tape.gradient(y, w)) == 1.0


def test_variables_placed_on_the_cpu():
    # cells 2SjpD7wVUSBJ, dgWHN3QSfNiQ: tf.device('CPU:0') -> jax.default_device(cpu); the 'GPU:0' block runs
    # wherever the values are (TF's soft placement: on the CPU when there is no GPU)
    cpu = jax.devices("cpu")[0]
    with jax.default_device(cpu):
        a = tj.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        b = tj.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        c = tnp.matmul(a, b)
    # TF: tf.Tensor([[22. 28.] [49. 64.]], shape=(2, 2), dtype=float32)
    np.testing.assert_array_equal(_val(c), [[22.0, 28.0], [49.0, 64.0]])
    assert cpu in a.read_value().value.devices()
    with jax.default_device(cpu):
        a = tj.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        b = tj.Variable([[1.0, 2.0, 3.0]])
    k = a * b  # "Element-wise multiply"
    # TF: tf.Tensor([[ 1.  4.  9.] [ 4. 10. 18.]], shape=(2, 3), dtype=float32)
    np.testing.assert_array_equal(_val(k), [[1.0, 4.0, 9.0], [4.0, 10.0, 18.0]])


# =====================================================================================================
# guide/intro_to_modules -- Introduction to modules, layers, and models (tf.Module parts)
# =====================================================================================================

class SimpleModule(tj.Module):
    # cell alhYPVEtAiSy
    def __init__(self, name=None):
        super().__init__(name=name)
        self.a_variable = tj.Variable(5.0, name="train_me")
        self.non_trainable_variable = tj.Variable(5.0, trainable=False, name="do_not_train_me")

    def __call__(self, x):
        return self.a_variable * x + self.non_trainable_variable


class Dense(tj.Module):
    # cell Efb2p2bzAn-V
    def __init__(self, in_features, out_features, name=None):
        super().__init__(name=name)
        self.w = tj.Variable(tj.random.normal([in_features, out_features]), name='w')
        self.b = tj.Variable(tnp.zeros([out_features]), name='b')

    def __call__(self, x):
        y = tnp.matmul(x, self.w) + self.b
        return tj.nn.relu(y)


class SequentialModule(tj.Module):
    # cell QQ7qQf-DFw74
    def __init__(self, name=None):
        super().__init__(name=name)
        self.dense_1 = Dense(in_features=3, out_features=3)
        self.dense_2 = Dense(in_features=3, out_features=2)

    def __call__(self, x):
        x = self.dense_1(x)
        return self.dense_2(x)


class FlexibleDenseModule(tj.Module):
    # cell XsGCLFXlnPum
    def __init__(self, out_features, name=None):
        super().__init__(name=name)
        self.is_built = False
        self.out_features = out_features

    def __call__(self, x):
        if not self.is_built:
            self.w = tj.Variable(tj.random.normal([x.shape[-1], self.out_features]), name='w')
            self.b = tj.Variable(tnp.zeros([self.out_features]), name='b')
            self.is_built = True
        y = tnp.matmul(x, self.w) + self.b
        return tj.nn.relu(y)


class MySequentialModule(tj.Module):
    # cell 8bjOWax9LOkP
    def __init__(self, name=None):
        super().__init__(name=name)
        self.dense_1 = FlexibleDenseModule(out_features=3)
        self.dense_2 = FlexibleDenseModule(out_features=2)

    def __call__(self, x):
        x = self.dense_1(x)
        return self.dense_2(x)


class MyFunctionModule(tj.Module):
    # cell WQTvkapUh7lk ("Saving functions": the same model with a tf.function __call__)
    def __init__(self, name=None):
        super().__init__(name=name)
        self.dense_1 = Dense(in_features=3, out_features=3)
        self.dense_2 = Dense(in_features=3, out_features=2)

    @tj.function
    def __call__(self, x):
        x = self.dense_1(x)
        return self.dense_2(x)


def _dense_reference(model, x):
    """The two relu layers in NumPy, from the model's current Variables."""
    h = np.maximum(np.asarray(x, np.float32) @ model.dense_1.w.numpy() + model.dense_1.b.numpy(), 0)
    return np.maximum(h @ model.dense_2.w.numpy() + model.dense_2.b.numpy(), 0)


def test_modules_simple_module_and_its_variables():
    # cells alhYPVEtAiSy, CyzYy4A_CbVf
    simple_module = SimpleModule(name="simple")
    out = simple_module(tj.constant(5.0))
    # TF: <tf.Tensor: shape=(), dtype=float32, numpy=30.0>
    assert out.shape == () and out.dtype == tj.float32 and float(out) == 30.0
    # TF: trainable variables: (<tf.Variable 'train_me:0' shape=() dtype=float32, numpy=5.0>,)
    # TF: all variables: (<... 'train_me:0' ... numpy=5.0>, <... 'do_not_train_me:0' ... numpy=5.0>)
    assert simple_module.trainable_variables == (simple_module.a_variable,)
    assert simple_module.variables == (simple_module.a_variable, simple_module.non_trainable_variable)
    assert isinstance(simple_module.variables, tuple)
    assert [float(v.numpy()) for v in simple_module.variables] == [5.0, 5.0]
    assert simple_module.name == "simple" and simple_module.name_scope.name == "simple/"


def test_modules_simple_module_variable_names_as_tf_prints_them():
    # cell CyzYy4A_CbVf: TF prints 'train_me:0', 'do_not_train_me:0'
    simple_module = SimpleModule(name="simple")
    assert [v.name for v in simple_module.variables] == ["train_me:0", "do_not_train_me:0"]


def test_modules_sequential_module_submodules_and_variables():
    # cells Efb2p2bzAn-V, QQ7qQf-DFw74, JLFA5_PEGb6C, 6lzoB8pcRN12
    tj.random.set_seed(0)
    my_model = SequentialModule(name="the_model")
    x = tj.constant([[2.0, 2.0, 2.0]])
    result = my_model(x)
    # TF: Model results: tf.Tensor([[...]], shape=(1, 2), dtype=float32) ("with random results")
    assert result.shape == (1, 2) and result.dtype == tj.float32
    np.testing.assert_allclose(_val(result), _dense_reference(my_model, [[2.0, 2.0, 2.0]]), rtol=1e-6)
    # TF: Submodules: (<__main__.Dense ...>, <__main__.Dense ...>) -- dense_1 then dense_2, both named 'dense'
    assert my_model.submodules == (my_model.dense_1, my_model.dense_2)
    assert [m.name for m in my_model.submodules] == ["dense", "dense"]
    # TF prints b (3,), w (3, 3), b (2,), w (3, 2) (attribute-name order); tapejax: creation order (API.md)
    assert my_model.variables == (my_model.dense_1.w, my_model.dense_1.b, my_model.dense_2.w, my_model.dense_2.b)
    assert [v.shape for v in my_model.variables] == [(3, 3), (3,), (3, 2), (2,)]
    assert [v.name for v in my_model.variables] == ["w:0", "b:0", "w:0", "b:0"]  # (TF's names, in its order b, w)
    np.testing.assert_array_equal(my_model.dense_1.b.numpy(), [0.0, 0.0, 0.0])


def test_modules_waiting_to_create_variables():
    # cells XsGCLFXlnPum, 8bjOWax9LOkP
    tj.random.set_seed(0)
    my_model = MySequentialModule(name="the_model")
    assert my_model.variables == ()  # (TF: () before the first call)
    result = my_model(tj.constant([[2.0, 2.0, 2.0]]))
    # TF: Model results: tf.Tensor([[...]], shape=(1, 2), dtype=float32)
    assert result.shape == (1, 2)
    np.testing.assert_allclose(_val(result), _dense_reference(my_model, [[2.0, 2.0, 2.0]]), rtol=1e-6)
    # TF: b (3,), w (3, 3), b (2,), w (3, 2); tapejax: creation order
    assert [v.shape for v in my_model.variables] == [(3, 3), (3,), (3, 2), (2,)]
    assert my_model.dense_1.is_built and my_model.dense_2.is_built
    w = my_model.dense_1.w
    my_model(tj.constant([[1.0, 2.0, 3.0]]))
    assert my_model.dense_1.w is w  # built once


def test_modules_checkpoint_write_and_list_variables(tmp_path):
    # cells pHXKRDk7OLHA, jBV3fprlTWqJ, o2QAdfpvS8tB
    tj.random.set_seed(0)
    my_model = MySequentialModule(name="the_model")
    my_model(tj.constant([[2.0, 2.0, 2.0]]))
    chkp_path = str(tmp_path / "my_checkpoint")
    checkpoint = tj.train.Checkpoint(model=my_model)
    assert checkpoint.write(chkp_path) == chkp_path  # (TF: returns the path written)
    # TF: [('_CHECKPOINTABLE_OBJECT_GRAPH', []), ('model/dense_1/b/.ATTRIBUTES/VARIABLE_VALUE', [3]),
    #      ('model/dense_1/w/.ATTRIBUTES/VARIABLE_VALUE', [3, 3]), ('model/dense_2/b/...', [2]),
    #      ('model/dense_2/w/...', [3, 2])] -- the same names, without TF's /.ATTRIBUTES/VARIABLE_VALUE
    listed = tj.train.list_variables(chkp_path)
    assert listed == [("model/dense_1/b", (3,)), ("model/dense_1/w", (3, 3)), ("model/dense_2/b", (2,)),
                      ("model/dense_2/w", (3, 2))]


def test_modules_restore_into_a_model_that_has_not_built_its_variables(tmp_path):
    # cells pHXKRDk7OLHA, UV8rdDzcwVVg: TF defers the restore of a Variable the model has not created yet and
    # gives it the saved value when it is created ("Should be the same result as above")
    tj.random.set_seed(0)
    my_model = MySequentialModule(name="the_model")
    x = tj.constant([[2.0, 2.0, 2.0]])
    expected = _val(my_model(x))
    chkp_path = str(tmp_path / "my_checkpoint")
    tj.train.Checkpoint(model=my_model).write(chkp_path)

    new_model = MySequentialModule()
    new_checkpoint = tj.train.Checkpoint(model=new_model)
    new_checkpoint.restore(chkp_path)
    assert new_model.variables == ()  # (TF: () until the first call)
    np.testing.assert_array_equal(_val(new_model(x)), expected)
    for saved, restored in zip(my_model.variables, new_model.variables):
        np.testing.assert_array_equal(restored.numpy(), saved.numpy())


def test_modules_tf_function_call_traces_once_per_signature():
    # cells WQTvkapUh7lk, H5zUfti3iR52 ("Each unique signature passed into the function creates a separate graph")
    tj.random.set_seed(0)
    my_model = MyFunctionModule(name="the_model")
    r1 = my_model([[2.0, 2.0, 2.0]])
    r2 = my_model([[[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]])
    # TF: tf.Tensor([[5.348898 0.]], shape=(1, 2)) and tf.Tensor([[[5.348898 0.] [5.348898 0.]]], shape=(1, 2, 2))
    # with TF's random weights: the same row three times
    assert r1.shape == (1, 2) and r2.shape == (1, 2, 2)
    np.testing.assert_allclose(_val(r1), _dense_reference(my_model, [[2.0, 2.0, 2.0]]), rtol=1e-6)
    np.testing.assert_allclose(_val(r2)[0, 0], _val(r1)[0], rtol=1e-6)
    np.testing.assert_allclose(_val(r2)[0, 1], _val(r1)[0], rtol=1e-6)
    assert my_model.__call__.experimental_get_tracing_count() == 2  # (TF: 2)
    # TF (run on a tf.function of a list): Python values are part of the signature, Tensors by shape and dtype
    my_model([[1.0, 2.0, 3.0]])
    assert my_model.__call__.experimental_get_tracing_count() == 3  # (TF: 3)
    my_model([[2.0, 2.0, 2.0]])
    assert my_model.__call__.experimental_get_tracing_count() == 3  # (TF: 3)
    my_model(tj.constant([[1.0, 2.0, 3.0]]))
    my_model(tj.constant([[1.0, 5.0, 3.0]]))
    assert my_model.__call__.experimental_get_tracing_count() == 4  # (TF: 4)


# =====================================================================================================
# guide/basic_training_loops -- the linear model trained by hand
# =====================================================================================================

TRUE_W = 3.0
TRUE_B = 2.0
NUM_EXAMPLES = 201


def _noise():
    """Stand-in for ``tf.random.normal(shape=[NUM_EXAMPLES])`` (cell NzivK2ATByOz), given to the TF run too."""
    return tj.constant(np.sin(np.arange(NUM_EXAMPLES) * 1.7).astype(np.float32))


class MyModel(tj.Module):
    # cell _WRu7Pze7wk8
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.w = tj.Variable(5.0)
        self.b = tj.Variable(0.0)

    def __call__(self, x):
        return self.w * x + self.b


def _btl_loss(target_y, predicted_y):
    # cell Y0ysUFGY924U
    return tnp.mean(tnp.square(target_y - predicted_y))


def _btl_train(model, x, y, learning_rate):
    # cell MBIACgdnA55X
    with tj.GradientTape() as t:
        current_loss = _btl_loss(y, model(x))
    dw, db = t.gradient(current_loss, [model.w, model.b])
    model.w.assign_sub(learning_rate * dw)
    model.b.assign_sub(learning_rate * db)


def _btl_data():
    # cell NzivK2ATByOz
    x = tnp.linspace(-2, 2, NUM_EXAMPLES)
    x = tnp.astype(x, tj.float32)

    def f(x):
        return x * TRUE_W + TRUE_B
    return x, f(x) + _noise()


def test_basic_training_model_and_loss():
    # cells _WRu7Pze7wk8, Y0ysUFGY924U, _eb83LtrB4nt
    model = MyModel()
    # TF: Variables: (<tf.Variable 'Variable:0' ... numpy=0.0>, <tf.Variable 'Variable:0' ... numpy=5.0>)
    # (b then w, by attribute name); tapejax: creation order, w then b (API.md)
    assert model.variables == (model.w, model.b)
    assert model(3.0).numpy() == 15.0
    x, y = _btl_data()
    assert x.dtype == tj.float32 and x.shape == (201,)
    # TF: Current loss: 9.911669
    assert "%1.6f" % _btl_loss(y, model(x)).numpy() == "9.911669"


def test_basic_training_loop_matches_tf():
    # cells XdfkR223D9dW, iRuNUghs1lHY, tpTEjWWex568
    x, y = _btl_data()
    model = MyModel()
    weights, biases, reports = [], [], []

    def report(model, loss):
        return f"W = {model.w.numpy():1.2f}, b = {model.b.numpy():1.2f}, loss={loss:2.5f}"

    reports.append(report(model, _btl_loss(y, model(x))))
    for epoch in range(10):
        _btl_train(model, x, y, learning_rate=0.1)
        weights.append(model.w.numpy())
        biases.append(model.b.numpy())
        reports.append(report(model, _btl_loss(y, model(x))))
    # TF's printed reports
    assert reports == [
        "W = 5.00, b = 0.00, loss=9.91167", "W = 4.46, b = 0.40, loss=5.94946", "W = 4.07, b = 0.72, loss=3.68098",
        "W = 3.78, b = 0.98, loss=2.37189", "W = 3.57, b = 1.18, loss=1.61027", "W = 3.41, b = 1.35, loss=1.16351",
        "W = 3.30, b = 1.48, loss=0.89931", "W = 3.22, b = 1.58, loss=0.74181", "W = 3.16, b = 1.67, loss=0.64720",
        "W = 3.12, b = 1.73, loss=0.58996", "W = 3.08, b = 1.79, loss=0.55509"]
    np.testing.assert_allclose(weights, [4.4604483, 4.0662155, 3.7781627, 3.5676923, 3.4139085, 3.3015437,
                                         3.2194426, 3.159454, 3.1156225, 3.0835962], rtol=1e-6)
    np.testing.assert_allclose(biases, [0.4004286, 0.72077143, 0.9770457, 1.1820651, 1.3460807, 1.4772931,
                                        1.5822631, 1.666239, 1.7334198, 1.7871644], rtol=1e-6)
    # TF: Current loss: 0.555086
    assert "%1.6f" % _btl_loss(model(x), y).numpy() == "0.555086"


# =====================================================================================================
# guide/core/quickstart_core -- linear regression with the Core APIs
# =====================================================================================================

def _auto_mpg_like(n=48):
    """Stand-in for the auto-mpg table (cell HglhDsUfrJ98), columns MPG, Cylinders, Displacement, Horsepower,
    Weight, Acceleration, Model Year, Origin (1..3); given to the TF run too."""
    i = np.arange(n, dtype=np.float64)
    cyl, disp, hp = 4 + 2 * (i % 3), 100 + 7 * ((i * 5) % 23), 60 + 3 * ((i * 7) % 31)
    wt, acc, year, origin = 2000 + 37 * ((i * 11) % 29), 12 + ((i * 3) % 9), 70 + (i % 13), 1 + (i % 3)
    mpg = 45 - 0.004 * wt - 0.05 * hp + 0.3 * (year - 70) + 1.5 * (origin - 1) + np.sin(i)
    return np.stack([mpg, cyl, disp, hp, wt, acc, year, origin], 1).astype(np.float32)


def _onehot_origin(x):
    # cell _B8N9IV1i6IV
    origin = tnp.astype(x[:, -1], tj.int32)
    origin_oh = tj.nn.one_hot(origin - 1, 3)
    x_ohe = tnp.concatenate([x[:, :-1], origin_oh], axis=1)
    return x_ohe


class Normalize(tj.Module):
    # cell dJJFdvqydhyp (no super().__init__(), as in the guide)
    def __init__(self, x):
        self.mean = tnp.mean(x, axis=0)
        self.std = tnp.std(x, axis=0)

    def norm(self, x):
        return (x - self.mean) / self.std

    def unnorm(self, x):
        return (x * self.std) + self.mean


class LinearRegression(tj.Module):
    # cell h3IKyzTCDNGo
    def __init__(self):
        self.built = False

    @tj.function
    def __call__(self, x):
        if not self.built:
            rand_w = tj.random.uniform(shape=[x.shape[-1], 1])
            rand_b = tj.random.uniform(shape=[])
            self.w = tj.Variable(rand_w)
            self.b = tj.Variable(rand_b)
            self.built = True
        y = tnp.add(tnp.matmul(x, self.w), self.b)
        return tnp.squeeze(y, axis=1)


def _quickstart_data():
    # cells HglhDsUfrJ98, 0mJU4kt6YiAp (without the shuffle), _B8N9IV1i6IV, 5BONV6fYYwZb
    dataset_tf = tj.convert_to_tensor(_auto_mpg_like(), dtype=tj.float32)
    train_data, test_data = dataset_tf[16:], dataset_tf[:16]
    x_train, y_train = train_data[:, 1:], train_data[:, 0]
    x_test, y_test = test_data[:, 1:], test_data[:, 0]
    x_train_ohe, x_test_ohe = _onehot_origin(x_train), _onehot_origin(x_test)
    norm_x, norm_y = Normalize(x_train_ohe), Normalize(y_train)
    return (x_train_ohe, norm_x, norm_y, norm_x.norm(x_train_ohe), norm_y.norm(y_train), norm_x.norm(x_test_ohe),
            norm_y.norm(y_test))


def test_quickstart_preprocessing():
    x_train_ohe, norm_x, norm_y, x_train_norm, *_ = _quickstart_data()
    # TF: shape (32, 9) float32, first rows [6, 177, 117, 2074, 15, 73, 0, 1, 0] and [8, 212, 138, 2481, 18, 74, 0, 0, 1]
    assert x_train_ohe.shape == (32, 9) and x_train_ohe.dtype == tj.float32
    np.testing.assert_array_equal(_val(x_train_ohe)[:2], [[6, 177, 117, 2074, 15, 73, 0, 1, 0],
                                                          [8, 212, 138, 2481, 18, 74, 0, 0, 1]])
    # TF: norm_y.std 2.443789, norm_y.mean 32.9903 (tf.math.reduce_std: the population std); no Variables
    np.testing.assert_allclose(float(norm_y.std), 2.443789, rtol=1e-6)
    np.testing.assert_allclose(float(norm_y.mean), 32.9903, rtol=1e-6)
    assert norm_x.variables == ()
    np.testing.assert_allclose(_val(tnp.mean(x_train_norm, axis=0)), np.zeros(9), atol=1e-5)


def test_quickstart_shuffle_and_split():
    # cell 0mJU4kt6YiAp: tf.random.shuffle(dataset_tf, seed=22) -> tj.random.shuffle(dataset_tf, seed=22), TF's
    # call (the value first, an op seed): the rows in another order (TF's order is not JAX's), the same order
    # again after tf.random.set_seed(22), a new one at the next call (TF, run: [[5,6],[1,2],[3,4]] then
    # [[3,4],[1,2],[5,6]] for a 3-row input); a scalar comes back unchanged (TF)
    tj.random.set_seed(22)
    dataset_tf = tj.convert_to_tensor(_auto_mpg_like(), dtype=tj.float32)
    dataset_shuffled = tj.random.shuffle(dataset_tf, seed=22)
    assert dataset_shuffled.shape == (48, 8) and dataset_shuffled.dtype == tj.float32
    rows = sorted(map(tuple, _val(dataset_shuffled).tolist()))
    assert rows == sorted(map(tuple, _auto_mpg_like().tolist()))
    again = tj.random.shuffle(dataset_tf, seed=22)
    assert not np.array_equal(_val(again), _val(dataset_shuffled))
    tj.random.set_seed(22)
    np.testing.assert_array_equal(_val(tj.random.shuffle(dataset_tf, seed=22)), _val(dataset_shuffled))
    train_data, test_data = dataset_shuffled[16:], dataset_shuffled[:16]
    x_train, y_train = train_data[:, 1:], train_data[:, 0]
    assert x_train.shape == (32, 7) and y_train.shape == (32,) and test_data.shape == (16, 8)
    assert float(tj.random.shuffle(tj.constant(5.0))) == 5.0
    # (the JAX call, a key first, is unchanged)
    key = tj.random.key(0)
    np.testing.assert_array_equal(_val(tj.random.shuffle(key, dataset_tf)), _val(tj.random.permutation(key, dataset_tf)))


def test_quickstart_linear_regression_trained_by_hand_matches_tf():
    # cells h3IKyzTCDNGo, OeOrNdnkEEcR, 8tYNVUkmw35s, y7suUbJXVLqP (batches of 8 by slicing, 20 epochs)
    _, _, norm_y, x_train_norm, y_train_norm, x_test_norm, y_test_norm = _quickstart_data()
    tj.random.set_seed(22)
    lin_reg = LinearRegression()
    prediction = lin_reg(x_train_norm[:1])
    assert prediction.shape == (1,)
    # TF: [TensorShape([]), TensorShape([9, 1])] (by attribute name); tapejax: creation order
    assert [v.shape for v in lin_reg.variables] == [(9, 1), ()]
    w0 = _val(lin_reg.w)
    assert np.all((w0 >= 0) & (w0 < 1)) and 0 <= float(lin_reg.b) < 1  # tf.random.uniform's [0, 1)
    # TF's draw is not JAX's: fix the initial values, then every printed number is TF's
    lin_reg.w.assign(np.linspace(0.1, 0.9, 9, dtype=np.float32).reshape(9, 1))
    lin_reg.b.assign(0.5)
    prediction_unnorm = norm_y.unnorm(lin_reg(x_train_norm[:1]))
    np.testing.assert_allclose(_val(prediction_unnorm), [31.82997], rtol=1e-6)

    def mse_loss(y_pred, y):
        return tnp.mean(tnp.square(y_pred - y))

    learning_rate, batch_size = 0.01, 8
    train_losses, test_losses = [], []
    for epoch in range(20):
        batch_losses_train, batch_losses_test = [], []
        for s in range(0, 32, batch_size):
            x_batch, y_batch = x_train_norm[s:s + batch_size], y_train_norm[s:s + batch_size]
            with tj.GradientTape() as tape:
                y_pred_batch = lin_reg(x_batch)
                batch_loss = mse_loss(y_pred_batch, y_batch)
            grads = tape.gradient(batch_loss, lin_reg.variables)
            for g, v in zip(grads, lin_reg.variables):
                v.assign_sub(learning_rate * g)
            batch_losses_train.append(batch_loss)
        for s in range(0, 16, batch_size):
            y_pred_batch = lin_reg(x_test_norm[s:s + batch_size])
            batch_losses_test.append(mse_loss(y_pred_batch, y_test_norm[s:s + batch_size]))
        train_losses.append(tnp.mean(batch_losses_train))
        test_losses.append(tnp.mean(batch_losses_test))
    np.testing.assert_allclose([float(t) for t in train_losses], [
        2.0835834, 1.6842706, 1.3827335, 1.1491373, 0.96449304, 0.8162681, 0.6958743, 0.59721065, 0.5157989,
        0.44826013, 0.39198565, 0.34492606, 0.30544877, 0.27223963, 0.24423207, 0.22055545, 0.200495, 0.18346192,
        0.16896924, 0.1566133], rtol=2e-6)
    np.testing.assert_allclose([float(t) for t in test_losses], [
        2.1124346, 1.8131062, 1.5732361, 1.3757224, 1.2098796, 1.0687184, 0.94743073, 0.8425388, 0.7514101,
        0.6719749, 0.6025584, 0.54177505, 0.48846245, 0.44163394, 0.40044624, 0.36417514, 0.33219624, 0.30396926,
        0.2790264, 0.2569616], rtol=2e-6)
    # TF: Final train loss: 0.157 / Final test loss: 0.257
    assert f"{train_losses[-1]:0.3f}" == "0.157" and f"{test_losses[-1]:0.3f}" == "0.257"
    np.testing.assert_allclose(_val(lin_reg.w).ravel(), [0.01449162, 0.12764093, -0.39934447, -0.32467264,
                                                         0.4144917, 0.45362288, 0.73023695, 0.88671905, 0.7837728],
                               rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(float(lin_reg.b), 0.10023162, rtol=1e-5)


# =====================================================================================================
# guide/core/mlp_core -- a multilayer perceptron with the Core APIs
# =====================================================================================================

def _mnist_like(n_batches=3, batch=16, dim=20, classes=10):
    """Stand-in for MNIST batches (cell Uiuh0B098_3p): uint8 images of ``dim`` pixels, int labels."""
    i = np.arange(n_batches * batch * dim, dtype=np.float64)
    x = ((np.sin(i * 0.37) + 1.0) * 127.5).round().astype(np.uint8).reshape(n_batches, batch, dim)
    y = ((np.arange(n_batches * batch) * 7) % classes).astype(np.int32).reshape(n_batches, batch)
    return x, y


def _det_init(shape):
    """A deterministic ``weight_init`` within xavier_init's bounds (TF's uniform draw is not JAX's)."""
    in_dim, out_dim = shape
    k = np.arange(in_dim * out_dim, dtype=np.float64).reshape(in_dim, out_dim)
    lim = np.sqrt(6.0) / np.sqrt(in_dim + out_dim)
    return (lim * np.sin(k * 1.3 + 0.5)).astype(np.float32)


def _xavier_init(shape):
    # cell re1SSFyBdMrS
    in_dim, out_dim = shape
    xavier_lim = tnp.sqrt(6.) / tnp.sqrt(tnp.astype(in_dim + out_dim, tj.float32))
    weight_vals = tj.random.uniform(shape=(in_dim, out_dim), minval=-xavier_lim, maxval=xavier_lim, seed=22)
    return weight_vals


class DenseLayer(tj.Module):
    # cell IM0yJos25FG5
    def __init__(self, out_dim, weight_init=_xavier_init, activation=tj.identity):
        self.out_dim = out_dim
        self.weight_init = weight_init
        self.activation = activation
        self.built = False

    def __call__(self, x):
        if not self.built:
            self.in_dim = x.shape[1]
            self.w = tj.Variable(self.weight_init(shape=(self.in_dim, self.out_dim)))
            self.b = tj.Variable(tnp.zeros(shape=(self.out_dim,)))
            self.built = True
        z = tnp.add(tnp.matmul(x, self.w), self.b)
        return self.activation(z)


class MLP(tj.Module):
    # cell 6XisRWiCyHAb
    def __init__(self, layers):
        self.layers = layers

    @tj.function
    def __call__(self, x, preds=False):
        for layer in self.layers:
            x = layer(x)
        return x


class Adam:
    # cell iGIBDk3cAv6a: the guide's own Adam, on Variables
    def __init__(self, learning_rate=1e-3, beta_1=0.9, beta_2=0.999, ep=1e-7):
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.learning_rate = learning_rate
        self.ep = ep
        self.t = 1.
        self.v_dvar, self.s_dvar = [], []
        self.built = False

    def apply_gradients(self, grads, vars):
        if not self.built:
            for var in vars:
                v = tj.Variable(tnp.zeros(shape=var.shape))
                s = tj.Variable(tnp.zeros(shape=var.shape))
                self.v_dvar.append(v)
                self.s_dvar.append(s)
            self.built = True
        for i, (d_var, var) in enumerate(zip(grads, vars)):
            self.v_dvar[i].assign(self.beta_1 * self.v_dvar[i] + (1 - self.beta_1) * d_var)
            self.s_dvar[i].assign(self.beta_2 * self.s_dvar[i] + (1 - self.beta_2) * tnp.square(d_var))
            v_dvar_bc = self.v_dvar[i] / (1 - (self.beta_1 ** self.t))
            s_dvar_bc = self.s_dvar[i] / (1 - (self.beta_2 ** self.t))
            var.assign_sub(self.learning_rate * (v_dvar_bc / (tnp.sqrt(s_dvar_bc) + self.ep)))
        self.t += 1.
        return


def _preprocess(x, y):
    # cell JSyCm2V2_AvI (784 pixels -> 20)
    x = tnp.reshape(x, shape=[-1, 20])
    x = x / 255
    return x, y


def _cross_entropy_loss(y_pred, y):
    # cell rskOYA7FVCwg
    sparse_ce = tj.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=y_pred)
    return tnp.mean(sparse_ce)


def _accuracy(y_pred, y):
    # cell jPJMWx2UgiBm
    class_preds = tnp.argmax(tj.nn.softmax(y_pred), axis=1)
    is_equal = tnp.equal(y, class_preds)
    return tnp.mean(tnp.astype(is_equal, tj.float32))


def test_mlp_activation_cells():
    # cells hYunzt3UyT9G, fVM8pvhWwuwI (the plotted curves, summarised)
    x = tnp.astype(tnp.linspace(-2, 2, 201), tj.float32)
    np.testing.assert_allclose(float(tnp.sum(tj.nn.relu(x))), 101.0, rtol=1e-6)  # TF: 101.0
    x = tnp.astype(tnp.linspace(-4, 4, 201), tj.float32)
    sm = _val(tj.nn.softmax(x, axis=0))
    # TF: sum 1.0, last 0.0392232, first 1.3157918e-05
    np.testing.assert_allclose([sm.sum(), sm[-1], sm[0]], [1.0, 0.0392232, 1.3157918e-05], rtol=1e-5)


def test_mlp_xavier_init_draw():
    # cell re1SSFyBdMrS; TF: shape (20, 16) float32, every value within +-sqrt(6)/sqrt(36) = 0.4082483
    wv = _xavier_init((20, 16))
    assert wv.shape == (20, 16) and wv.dtype == tj.float32
    lim = float(tnp.sqrt(6.) / tnp.sqrt(36.))
    np.testing.assert_allclose(lim, 0.40824830532073975, rtol=1e-7)
    assert float(tnp.max(tnp.abs(wv))) <= lim
    layer = DenseLayer(out_dim=16)
    assert layer(tnp.ones((2, 20))).shape == (2, 16) and layer.w.shape == (20, 16)


def test_mlp_trained_with_the_guides_adam_matches_tf():
    # cells IM0yJos25FG5, 6XisRWiCyHAb, VmlACuki3oPi (sizes 16, 12, 10 instead of 700, 500, 10), rskOYA7FVCwg,
    # jPJMWx2UgiBm, iGIBDk3cAv6a (learning_rate=0.01), CJLeY2ao1aw6, oC85kuZgmh3q, zPlT8QfxptYl (5 epochs)
    xs, ys = _mnist_like()
    train_data = [_preprocess(tj.constant(x), tj.constant(y)) for x, y in zip(xs[:2], ys[:2])]
    val_data = [_preprocess(tj.constant(x), tj.constant(y)) for x, y in zip(xs[2:], ys[2:])]
    assert train_data[0][0].dtype == tj.float32  # (TF: uint8 / 255 -> float32)
    mlp_model = MLP([
        DenseLayer(out_dim=16, activation=tj.nn.relu, weight_init=_det_init),
        DenseLayer(out_dim=12, activation=tj.nn.relu, weight_init=_det_init),
        DenseLayer(out_dim=10, weight_init=_det_init)])
    assert mlp_model.variables == ()
    optimizer = Adam(learning_rate=0.01)

    def train_step(x_batch, y_batch, loss, acc, model, optimizer):
        with tj.GradientTape() as tape:
            y_pred = model(x_batch)
            batch_loss = loss(y_pred, y_batch)
        batch_acc = acc(y_pred, y_batch)
        grads = tape.gradient(batch_loss, model.variables)
        optimizer.apply_gradients(grads, model.variables)
        return batch_loss, batch_acc

    def val_step(x_batch, y_batch, loss, acc, model):
        y_pred = model(x_batch)
        return loss(y_pred, y_batch), acc(y_pred, y_batch)

    history = [[], [], [], []]
    for epoch in range(5):
        batches_train = [train_step(x, y, _cross_entropy_loss, _accuracy, mlp_model, optimizer) for x, y in train_data]
        batches_val = [val_step(x, y, _cross_entropy_loss, _accuracy, mlp_model) for x, y in val_data]
        for i, batches in enumerate([batches_train, batches_val]):
            history[2 * i].append(float(tnp.mean([b[0] for b in batches])))
            history[2 * i + 1].append(float(tnp.mean([b[1] for b in batches])))
    train_losses, train_accs, val_losses, val_accs = history
    np.testing.assert_allclose(train_losses, [2.3045926, 2.3025541, 2.2953985, 2.2884777, 2.2771235], rtol=2e-6)
    np.testing.assert_allclose(train_accs, [0.125, 0.09375, 0.09375, 0.09375, 0.125])
    np.testing.assert_allclose(val_losses, [2.3053417, 2.3180194, 2.3314784, 2.3510885, 2.3768196], rtol=2e-6)
    np.testing.assert_allclose(val_accs, [0.0625] * 5)
    # TF: 6 Variables, b/w per layer by attribute name; tapejax: creation order (w, b per layer)
    assert [v.shape for v in mlp_model.variables] == [(20, 16), (16,), (16, 12), (12,), (12, 10), (10,)]
    assert optimizer.t == 11.0
    np.testing.assert_allclose(float(tnp.sum(mlp_model.layers[0].w)), -0.9293456077575684, rtol=1e-5)
    np.testing.assert_allclose(float(tnp.sum(mlp_model.layers[2].b)), 0.07247687876224518, rtol=1e-5)

    # cells p8x6gjTDVi5d, bmv0u6j_b5OC, UD8YiC1Vfeyp (the export module's pre- and post-processing, without
    # the SavedModel), and the accuracy breakdown by digit with boolean masks
    def preprocess_test(x):
        x = tnp.reshape(x, shape=[-1, 20])
        return x / 255

    def class_pred_test(y):
        return tnp.argmax(tj.nn.softmax(y), axis=1)

    def accuracy_score(y_pred, y):
        is_equal = tnp.equal(y_pred, y)
        return tnp.mean(tnp.astype(is_equal, tj.float32))

    y_test = tj.constant(ys[2])
    test_classes = class_pred_test(mlp_model(preprocess_test(tj.constant(xs[2]))))
    # TF: [7 0 0 0 0 7 0 0 0 0 7 7 0 0 0 0], accuracy 0.0625
    np.testing.assert_array_equal(_val(test_classes), [7, 0, 0, 0, 0, 7, 0, 0, 0, 0, 7, 7, 0, 0, 0, 0])
    assert float(accuracy_score(test_classes, y_test)) == 0.0625
    expected = {0: ([0], [0], 1.0), 1: ([0, 7], [1, 1], 0.0), 2: ([0, 0], [2, 2], 0.0)}
    for label, (preds, labels, acc) in expected.items():
        label_ind = (y_test == label)
        pred_label = test_classes[label_ind]
        np.testing.assert_array_equal(_val(pred_label), preds)
        np.testing.assert_array_equal(_val(y_test[label_ind]), labels)
        assert float(accuracy_score(pred_label, y_test[label_ind])) == acc


def test_modules_deferred_restore_status_and_errors(tmp_path):
    # TF (run on the guide's MySequentialModule, saved with save(): write() stores no save_counter, which TF's
    # status then reports as unmatched): status.assert_existing_objects_matched() passes at once;
    # assert_consumed() raises AssertionError ("Unresolved object in checkpoint (root).model.dense_1.w") while
    # values wait for Variables not created yet, and passes after the first call has created (and filled) them.
    # A partly built model gets the existing Variables at once; one built wider raises ValueError at the build
    # ("Received incompatible tensor with shape (3, 3) when attempting to restore variable with shape (3, 4)").
    tj.random.set_seed(0)
    my_model = MySequentialModule(name="the_model")
    x = tj.constant([[2.0, 2.0, 2.0]])
    expected = _val(my_model(x))
    path = tj.train.Checkpoint(model=my_model).save(str(tmp_path / "ck"))

    new_model = MySequentialModule()
    status = tj.train.Checkpoint(model=new_model).restore(path)
    status.assert_existing_objects_matched()
    with pytest.raises(AssertionError):
        status.assert_consumed()
    np.testing.assert_array_equal(_val(new_model(x)), expected)
    status.assert_consumed()

    part = MySequentialModule()
    part.dense_1(x)
    tj.train.Checkpoint(model=part).restore(path)
    np.testing.assert_array_equal(part.dense_1.w.numpy(), my_model.dense_1.w.numpy())
    np.testing.assert_array_equal(_val(part(x)), expected)

    class Wider(MySequentialModule):
        def __init__(self):
            super().__init__()
            self.dense_1 = FlexibleDenseModule(out_features=4)

    wider = Wider()
    tj.train.Checkpoint(model=wider).restore(path)
    with pytest.raises(ValueError, match=r"incompatible tensor with shape \(3, 3\).*has shape \(3, 4\)"):
        wider(x)


def test_quickstart_restore_into_an_unbuilt_tf_function_model(tmp_path):
    # The quickstart's LinearRegression builds inside its tj.function: a restore before its first call is
    # applied when that call creates the Variables (TF: the restored model predicts as the saved one).
    _, _, _, x_train_norm, *_ = _quickstart_data()
    lin_reg = LinearRegression()
    lin_reg(x_train_norm[:1])
    lin_reg.w.assign(np.linspace(0.1, 0.9, 9, dtype=np.float32).reshape(9, 1))
    lin_reg.b.assign(0.5)
    path = tj.train.Checkpoint(model=lin_reg).write(str(tmp_path / "lin"))
    restored = LinearRegression()
    tj.train.Checkpoint(model=restored).restore(path)
    np.testing.assert_array_equal(_val(restored(x_train_norm[:4])), _val(lin_reg(x_train_norm[:4])))
    np.testing.assert_array_equal(_val(restored(x_train_norm[4:8])), _val(lin_reg(x_train_norm[4:8])))


def test_mlp_restore_model_and_optimizer_before_either_is_built(tmp_path):
    # TF's deferred restoration of a lazily built model and of an optimizer's slots together (a custom training
    # loop resumed from a checkpoint into fresh objects): training resumes exactly where the saved run was.
    xs, ys = _mnist_like()
    x, y = _preprocess(tj.constant(xs[0]), tj.constant(ys[0]))

    def make():
        return MLP([DenseLayer(out_dim=8, activation=tj.nn.relu, weight_init=_det_init),
                    DenseLayer(out_dim=10, weight_init=_det_init)]), tj.optimizers.Adam(0.01)

    def train(model, opt, steps):
        for _ in range(steps):
            with tj.GradientTape() as tape:
                loss = _cross_entropy_loss(model(x), y)
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))

    model, opt = make()
    train(model, opt, 3)
    path = tj.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "ck"))
    train(model, opt, 2)
    model2, opt2 = make()
    status = tj.train.Checkpoint(model=model2, optimizer=opt2).restore(path)
    train(model2, opt2, 2)
    status.assert_consumed()
    assert len(model2.variables) == 4
    for a, b in zip(model.variables, model2.variables):
        np.testing.assert_array_equal(b.numpy(), a.numpy())
