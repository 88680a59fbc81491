"""tj.Module (tf.Module's tracking and naming) and Variables created on the first call of a tj.function
(Keras-style lazy build; TF's ValueError when a later trace creates one)."""
from __future__ import annotations

import jax
import numpy as np
import pytest

import tapejax as tj
import tapejax.numpy as tnp

SINGLETON = "only supports singleton tj.Variables created on the first call"


def _is_concrete(v: tj.Variable) -> bool:
    return isinstance(v.read_value().value, jax.Array) and not isinstance(v.read_value().value, jax.core.Tracer)


# -- tracking ---------------------------------------------------------------------------------------------
def test_variables_in_attributes_lists_tuples_dicts_in_creation_order():
    # (API.md: in order of creation; tf.Module would give its walk's order, (d, a, c, b))
    m = tj.Module()
    d = tj.Variable(4.0)
    c = tj.Variable(3.0, trainable=False)
    b = tj.Variable(2.0)
    a = tj.Variable(1.0)
    m.z = d
    m.y = [c, (b,)]
    m.x = {"k2": a, "k1": d}   # d again: tracked once
    m.not_tracked = 5.0
    assert m.variables == (d, c, b, a)
    assert m.trainable_variables == (d, b, a)
    assert m.non_trainable_variables == (c,)
    assert isinstance(m.variables, tuple)


def test_submodules_nested_and_deduplicated_with_cycles():
    class Leaf(tj.Module):
        def __init__(self, value, name=None):
            super().__init__(name=name)
            self.v = tj.Variable(value)

    a, b, c = tj.Module(name="a"), Leaf(1.0, name="b"), Leaf(2.0, name="c")
    a.child = b
    b.child = c
    c.parent = a          # a cycle must not loop
    a.again = [b, {"c": c}]
    assert a.submodules == (b, c)
    assert a.variables == (b.v, c.v)
    assert b.submodules == (c, a)
    assert b.variables == (b.v, c.v)


def test_variables_of_an_mlp_in_creation_order_not_name_order():
    class Dense(tj.Module):
        def __init__(self, n_in, n_out, name=None):
            super().__init__(name=name)
            self.w = tj.Variable(np.ones((n_in, n_out), np.float32), name="w")
            self.b = tj.Variable(np.zeros(n_out, np.float32), name="b")

    class MLP(tj.Module):
        def __init__(self):
            super().__init__()
            self.second = Dense(3, 1)
            self.first = Dense(2, 3)

    m = MLP()
    # creation order (a Keras model's: each layer's kernel then bias); submodules by attribute name (TF)
    assert [v.shape for v in m.trainable_variables] == [(3, 1), (1,), (2, 3), (3,)]
    assert m.submodules == (m.first, m.second)


def test_tf_module_test_recursive_module():
    # TF's own module_test, with API.md's order for the Variables: creation order (TF's tf.Module gives its
    # walk's order, (m.w, m.child.w, m.child.child.w)); submodules in the walk's order, as TF
    class RecursiveModule(tj.Module):
        def __init__(self, depth, trainable=True):
            super().__init__(name="badger")
            with self.name_scope:
                self.child = None
                if depth > 1:
                    self.child = RecursiveModule(depth - 1, trainable=trainable)
                self.w = tj.Variable(1.0, trainable=trainable, name="mushroom")

    m = RecursiveModule(3)
    assert m.variables == (m.child.child.w, m.child.w, m.w)
    assert m.trainable_variables == (m.child.child.w, m.child.w, m.w)
    assert m.child.variables == (m.child.child.w, m.child.w)
    assert list(m.submodules) == [m.child, m.child.child]
    assert len(RecursiveModule(3, trainable=False).trainable_variables) == 0

    class Leaf(tj.Module):
        def __init__(self, name):
            super().__init__(name=name)
            self.v = tj.Variable(1.0)

    t = tj.Module()
    t.a, t.b = Leaf("x"), Leaf("y")
    t.a.sub = Leaf("z")
    assert t.variables == (t.a.v, t.b.v, t.a.sub.v)  # created in that order
    assert t.submodules == (t.a, t.b, t.a.sub)  # TF 2.21's order: own attributes first, then depth first


def test_default_name_and_invalid_name():
    class MyMLPModel(tj.Module):
        pass

    assert MyMLPModel().name == "my_mlp_model"
    assert tj.Module().name == "module"
    assert tj.Module(name="enc").name == "enc"
    with pytest.raises(ValueError, match="valid Python identifiers"):
        tj.Module(name="not a name")


def test_subclass_without_super_init_still_works():
    class NoInit(tj.Module):
        def __init__(self):
            self.v = tj.Variable(1.0)

    m = NoInit()
    assert m.name == "no_init" and m.variables == (m.v,)
    with m.name_scope:
        assert tj.Variable(1.0, name="u").name == "no_init/u:0"


def test_name_scope_prefixes_variable_names_and_nests():
    outer = tj.Module(name="outer")
    with outer.name_scope:
        v = tj.Variable(1.0, name="w")
        inner = tj.Module(name="inner")   # made inside outer's scope: its scope is outer/inner/
        with inner.name_scope:
            u = tj.Variable(1.0, name="k")
    with inner.name_scope:               # re-entered later: still the full path
        k2 = tj.Variable(1.0, name="k2")
    assert (v.name, u.name, k2.name) == ("outer/w:0", "outer/inner/k:0", "outer/inner/k2:0")
    assert tj.Variable(1.0, name="free").name == "free:0"  # scope restored on exit
    with outer.name_scope:
        assert tj.Variable(2.0).name.startswith("outer/Variable")


def test_with_name_scope_decorator():
    class Lazy(tj.Module):
        @tj.Module.with_name_scope
        def make(self):
            return tj.Variable(0.0, name="w")

    assert Lazy(name="lz").make().name == "lz/w:0"


# -- lazy build inside tj.function -------------------------------------------------------------------------
class LazyDense(tj.Module):
    traces = 0

    def __init__(self, units, name=None):
        super().__init__(name=name)
        self.units = units
        self.w = None
        self.b = None

    @tj.function
    def __call__(self, x):
        LazyDense.traces += 1
        if self.w is None:  # built from the input's shape on the first call (Keras)
            n_in = x.shape[-1]
            self.w = tj.Variable(tnp.reshape(tnp.arange(n_in * self.units, dtype="float32"), (n_in, self.units))
                                 / 10.0, name="w")
            self.b = tj.Variable(tnp.ones((self.units,)), name="b")
        return x @ self.w + self.b


def test_lazy_build_in_decorated_method():
    x = tj.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    layer = LazyDense(2)
    y1 = layer(x)
    assert _is_concrete(layer.w) and _is_concrete(layer.b)
    w = np.arange(6, dtype=np.float32).reshape(3, 2) / 10.0
    np.testing.assert_allclose(y1.numpy(), x.numpy() @ w + 1.0, rtol=1e-6)
    assert isinstance(y1, tj.Tensor)
    before = LazyDense.traces
    y2 = layer(x)             # traced program, built Variables as inputs
    y3 = layer(x)
    assert LazyDense.traces == before  # the first call already traced the program for this signature
    np.testing.assert_allclose(y2.numpy(), y1.numpy(), rtol=1e-6)
    np.testing.assert_allclose(y3.numpy(), y1.numpy(), rtol=1e-6)
    assert layer.trainable_variables == (layer.w, layer.b)
    # a new signature retraces without creating anything: fine
    assert layer(tj.constant(np.ones((5, 3), np.float32))).shape == (5, 2)
    # assignments after the build are seen by the compiled program
    layer.b.assign(np.zeros(2, np.float32))
    np.testing.assert_allclose(layer(x).numpy(), x.numpy() @ w, rtol=1e-6)


def test_each_instance_builds_its_own_variables():
    x = tj.constant(np.ones((1, 4), np.float32))
    a, b = LazyDense(2), LazyDense(3)
    assert a(x).shape == (1, 2)
    assert b(x).shape == (1, 3)   # a's first call done does not forbid b's build
    assert a(x).shape == (1, 2) and b.w.shape == (4, 3)


def test_gradients_through_a_lazily_built_layer():
    x = tj.constant(np.ones((2, 3), np.float32))
    layer = LazyDense(2)
    for _ in range(2):  # first call eager, second compiled: same gradients
        with tj.GradientTape() as tape:
            loss = tnp.sum(layer(x) ** 2)
        gw, gb = tape.gradient(loss, [layer.w, layer.b])
        y = x.numpy() @ layer.w.numpy() + layer.b.numpy()
        np.testing.assert_allclose(gw.numpy(), x.numpy().T @ (2 * y), rtol=1e-5)
        np.testing.assert_allclose(gb.numpy(), (2 * y).sum(0), rtol=1e-5)


def test_plain_module_called_inside_a_tj_function():
    class Scale(tj.Module):
        def __init__(self):
            super().__init__()
            self.s = None

        def __call__(self, x):
            if self.s is None:
                self.s = tj.Variable(tnp.full(x.shape[-1:], 2.0))
            return x * self.s

    m = Scale()
    calls = []

    @tj.function
    def f(x):
        calls.append(1)
        return tnp.sum(m(x))

    x = tj.constant([1.0, 2.0, 3.0])
    assert float(f(x)) == 12.0
    assert _is_concrete(m.s) and m.variables == (m.s,)
    n = len(calls)
    m.s.assign([1.0, 1.0, 1.0])
    assert float(f(x)) == 6.0 and len(calls) == n


def test_build_with_a_variable_initialised_from_another_variable_and_an_assignment():
    base = tj.Variable([1.0, 2.0])
    holder = {}

    @tj.function
    def f(x):
        if "v" not in holder:
            holder["v"] = tj.Variable(base * 3.0)
        holder["v"].assign_add(x)
        return holder["v"].read_value()

    np.testing.assert_allclose(f(tj.constant([1.0, 1.0])).numpy(), [4.0, 7.0])  # assignment runs once
    np.testing.assert_allclose(holder["v"].numpy(), [4.0, 7.0])
    np.testing.assert_allclose(f(tj.constant([1.0, 1.0])).numpy(), [5.0, 8.0])


def test_creating_a_variable_on_every_call_raises_on_the_first_call():
    @tj.function
    def f(x):
        v = tj.Variable(1.0)
        return v * x

    with pytest.raises(ValueError, match=SINGLETON):
        f(tj.constant(2.0))


def test_creating_a_variable_on_a_later_trace_raises():
    made = []

    @tj.function
    def f(x):
        if x.shape[0] == 3 and not made:
            made.append(tj.Variable(tnp.zeros(3)))
        return tnp.sum(x)

    assert float(f(tj.constant([1.0, 2.0]))) == 3.0   # first call: no Variable
    with pytest.raises(ValueError, match=SINGLETON) as err:
        f(tj.constant([1.0, 2.0, 3.0]))              # a new signature's trace creates one: TF's error
    assert not made
    assert "None" not in str(err.value)  # an unnamed Variable is said to be unnamed, not "Variable None"


def test_nested_functions_build_through_the_outermost_call():
    inner_layer = LazyDense(2)

    @tj.function
    def outer(x):
        return tnp.sum(inner_layer(x))

    x = tj.constant(np.ones((2, 3), np.float32))
    r1 = float(outer(x))
    assert inner_layer.w is not None and _is_concrete(inner_layer.w)
    assert float(outer(x)) == pytest.approx(r1)
    expected = (x.numpy() @ inner_layer.w.numpy() + inner_layer.b.numpy()).sum()
    assert r1 == pytest.approx(float(expected), rel=1e-6)


def test_an_initialised_outer_function_lets_a_new_inner_function_build():
    """The singleton rule is each tj.function's own, as TF's: a Module whose tj.function __call__ is first called
    in a later trace of an outer function builds there (TF 2.21: 7.0; tapejax raised ValueError)."""
    late = LazyDense(2)

    @tj.function
    def outer(x):
        if x.shape[0] == 2:
            return tnp.sum(late(x))
        return tnp.sum(x)

    assert float(outer(tj.constant(np.ones((1, 3), np.float32)))) == 3.0  # first call completes without building
    np.testing.assert_allclose(float(outer(tj.constant(np.ones((2, 3), np.float32)))), 7.0, rtol=1e-6)
    assert [v.name for v in late.variables] == ["w:0", "b:0"]


def test_differentiate_refuses_variable_creation():
    def f(x):
        return x * tj.Variable(2.0)

    with pytest.raises(ValueError, match=SINGLETON):
        tj.differentiate(f, tj.constant(1.0))


def test_examples_models_train():
    """examples/models.py: lazily built MLP and CNN Modules trained by a compiled step (few steps)."""
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "examples" / "models.py"
    spec = importlib.util.spec_from_file_location("tapejax_example_models", path)
    models = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(models)
    for kind in ("mlp", "cnn"):
        model, losses = models.train(kind, 4, log=lambda *_: None)
        assert len(model.trainable_variables) == 6 and len(model.submodules) == 3
        assert losses[-1] < losses[0]


def test_tj_name_scope_prefixes_variables_as_tf_name_scope():
    # TF: with tf.name_scope("a") as s: s == "a/"; tf.Variable(1., name="v").name == "a/v:0"; "b/" is absolute
    with tj.name_scope("a") as scope:
        assert scope == "a/"
        assert tj.Variable(1.0, name="v").name == "a/v:0"
        with tj.name_scope("b/"):
            assert tj.Variable(1.0, name="v").name == "b/v:0"
    assert tj.Variable(1.0, name="v").name == "v:0"


def test_tj_name_scope_object_as_tf_name_scope_v2():
    # TF 2.21 (this host): tf.name_scope("foo").name == "foo"; inside "a", tf.name_scope("") gives "" (the root:
    # a Variable made there is "v:0"); one scope object entered twice nests ("r/", then "r/r/"); a name that is
    # not a string raises ValueError("name for name_scope must be a string.")
    scope = tj.name_scope("foo")
    assert scope.name == "foo"
    with tj.name_scope("a"):
        with tj.name_scope("") as root:
            assert root == "" and tj.Variable(1.0, name="v").name == "v:0"
        assert tj.Variable(1.0, name="v").name == "a/v:0"
    r = tj.name_scope("r")
    with r as outer:
        with r as inner:
            assert (outer, inner) == ("r/", "r/r/")
        assert tj.Variable(1.0, name="v").name == "r/v:0"
    assert tj.Variable(1.0, name="v").name == "v:0"
    for bad in (None, 3, b"x"):
        with pytest.raises(ValueError, match="name for name_scope must be a string"):
            tj.name_scope(bad)


def test_tj_name_scope_is_per_thread():
    # one scope object entered by two threads at once: each thread sees only its own scopes
    import threading
    shared = tj.name_scope("t")
    entered, release, seen = threading.Event(), threading.Event(), {}

    def worker():
        with tj.name_scope("w"):
            with shared as s:
                seen["worker"] = s
                entered.set()
                release.wait(10)
            seen["worker_after"] = tj.Variable(1.0, name="v").name

    th = threading.Thread(target=worker)
    th.start()
    assert entered.wait(10)
    with shared as s:
        seen["main"] = s
    seen["main_after"] = tj.Variable(1.0, name="v").name
    release.set()
    th.join(10)
    assert seen == {"worker": "w/t/", "main": "t/", "main_after": "v:0", "worker_after": "w/v:0"}


def test_overridden_module_name_scope_is_a_name_scope_with_a_name():
    # module_test.py's test_overridden_name_scope: a Module whose name_scope property returns
    # tf.name_scope("yolo/") has mod.name_scope.name == "yolo/", and its methods run in that scope
    class Overriding(tj.Module):
        @property
        def name_scope(self):
            return tj.name_scope("yolo/")

        @tj.Module.with_name_scope
        def __call__(self):
            return tj.Variable(1.0, name="v").name

    mod = Overriding()
    assert mod.name_scope.name == "yolo/"
    assert mod() == "yolo/v:0"
    assert isinstance(tj.Module(name="m").name_scope, tj.name_scope)


def test_a_module_name_that_is_not_a_string_raises_type_error_as_tf():
    """tf.Module(name=3): TypeError (matching the name needs a string); a string that is no identifier: ValueError."""
    with pytest.raises(TypeError, match="string"):
        tj.Module(name=3)
    with pytest.raises(TypeError, match="string"):
        tj.Module(name=b"x")
    with pytest.raises(ValueError, match="valid module name"):
        tj.Module(name="bad name")
