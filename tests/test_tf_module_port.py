"""TensorFlow's tensorflow/python/module/module_test.py, ported to tj.Module.

Each test names the TF test it comes from; the expected values are that file's. Tests of TF 1 graph mode,
distributed variables and tf.function's autograph are left out (tapejax has none of them).
"""
import abc
import collections
import itertools

import pytest

import tapejax as tj


def scope_now() -> str:
    """The enclosing name scope, "" or ending in "/" (TF's test helper get_name_scope)."""
    with tj.name_scope("x") as ns:
        outer = "/".join(ns.split("/")[:-2])
        return outer + "/" if outer else ""


class ReturnsNameScope(tj.Module):
    @tj.Module.with_name_scope
    def alternative_forward(self):
        return scope_now()

    @tj.Module.with_name_scope
    def __call__(self):
        return scope_now()


class Recursive(tj.Module):
    def __init__(self, depth, trainable=True):
        super().__init__(name="badger")
        with self.name_scope:
            self.child = Recursive(depth - 1, trainable=trainable) if depth > 1 else None
            self.w = tj.Variable(1.0, trainable=trainable, name="mushroom")


class Tree(tj.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self._leaves = []

    @tj.Module.with_name_scope
    def new_leaf(self, name=None):
        leaf = Tree(name=name)
        self._leaves.append(leaf)
        return leaf


class Failing(Exception):
    pass


class FailingModule(tj.Module):
    def __init__(self, call_super, raise_in_constructor=True):
        if call_super:
            super().__init__()
        if raise_in_constructor:
            raise Failing("deliberate")

    def __call__(self):
        raise Failing("deliberate")


# -- TestModuleNaming ---------------------------------------------------------------------------------------

def test_single_name_and_construct_in_scope():
    mod = tj.Module(name="simple")
    assert (mod.name, mod.name_scope.name) == ("simple", "simple/")
    with tj.name_scope("foo"):
        mod = tj.Module(name="bar")
    assert (mod.name, mod.name_scope.name) == ("bar", "foo/bar/")


def test_enters_name_scope_in_call_and_other_methods():
    class Sub(ReturnsNameScope):
        @tj.Module.with_name_scope
        def alternative_alternative_forward(self):
            return scope_now()
    mod = Sub()
    for _ in range(3):
        assert mod() == mod.alternative_forward() == mod.alternative_alternative_forward() == "sub/"
    assert scope_now() == ""


def test_submodule_created_late():
    m = Tree()
    assert (m.name, m.name_scope.name) == ("tree", "tree/")
    leaf = m.new_leaf()
    assert (leaf.name, leaf.name_scope.name) == ("tree", "tree/tree/")


def test_does_not_evaluate_property_methods():
    class Throws(tj.Module):
        @property
        def raise_assertion_error(self):
            raise AssertionError
    mod = Throws()
    with pytest.raises(AssertionError):
        mod.raise_assertion_error  # noqa: B018
    assert mod.variables == () and mod.submodules == ()  # (tracking never reads a property)


def test_overridden_name_scope():
    class Overriding(ReturnsNameScope):
        @property
        def name_scope(self):
            return tj.name_scope("yolo/")
    mod = Overriding()
    assert mod() == mod.alternative_forward() == "yolo/"


def test_patched_callable_does_not_enter_the_scope():
    with tj.name_scope("foo"):
        mod = tj.Module(name="bar")
    mod.foo = scope_now
    assert mod.foo() == ""


def test_property_getter_and_setter_with_name_scope():
    class WithProperty(tj.Module):
        def __init__(self):
            super().__init__()
            self._setter_scope = None

        @property
        @tj.Module.with_name_scope
        def scoped(self):
            return scope_now(), self._setter_scope

        @scoped.setter
        @tj.Module.with_name_scope
        def scoped(self, value):
            self._setter_scope = scope_now()

        @property
        def plain(self):
            return scope_now(), self._setter_scope

        @plain.setter
        def plain(self, value):
            self._setter_scope = scope_now()
    mod = WithProperty()
    mod.scoped = None
    assert mod.scoped == ("with_property/", "with_property/")
    mod = WithProperty()
    mod.plain = None
    assert mod.plain == ("", "")


def test_invalid_name():
    with pytest.raises(ValueError, match="is not a valid module name"):
        tj.Module(name="$Foo")


def test_modules_not_numbered_in_eager():
    for _ in range(2):
        mod = Recursive(2)
        assert (mod.name_scope.name, mod.child.name_scope.name) == ("badger/", "badger/badger/")


@pytest.mark.parametrize("call_super", [True, False])
def test_constructor_error_closes_the_name_scope(call_super):
    with pytest.raises(Failing):
        FailingModule(call_super=call_super)
    assert scope_now() == ""


def test_forward_method_error_closes_the_name_scope():
    mod = FailingModule(call_super=True, raise_in_constructor=False)
    with pytest.raises(Failing):
        mod()
    assert scope_now() == ""


def test_getattr_and_getattribute_do_not_enter_the_name_scope():
    seen = []

    class GetAttr(tj.Module):
        def __getattr__(self, name):
            seen.append((name, scope_now()))
            return super().__getattr__(name)

    class GetAttribute(tj.Module):
        def __getattribute__(self, name):
            seen.append((name, scope_now()))
            return super().__getattribute__(name)
    for cls in (GetAttr, GetAttribute):
        seen.clear()
        mod = cls()
        with pytest.raises(AttributeError):
            mod.does_not_exist  # noqa: B018
        assert ("does_not_exist", "") in seen


# -- VariableNamingTest, NameScopeTest, VariableTrackingTest, ModuleTrackingTest ---------------------------

def test_variable_names():
    m = Recursive(3)
    assert [m.w.name, m.child.w.name, m.child.child.w.name] == [
        "badger/mushroom:0", "badger/badger/mushroom:0", "badger/badger/badger/mushroom:0"]


def test_name_scope_memoized():
    mod = tj.Module(name="name")
    assert mod.name_scope is mod.name_scope


def test_variables_and_trainable_variables():
    m = Recursive(3)
    assert m.variables == (m.w, m.child.w, m.child.child.w)
    assert m.child.variables == (m.child.w, m.child.child.w)
    assert m.child.child.variables == (m.child.child.w,)
    assert m.trainable_variables == m.variables
    frozen = Recursive(3, trainable=False)
    assert frozen.trainable_variables == frozen.child.trainable_variables == frozen.child.child.trainable_variables == ()


def test_submodules():
    m = Recursive(3)
    assert list(m.submodules) == [m.child, m.child.child]
    assert list(m.child.submodules) == [m.child.child]
    assert list(m.child.child.submodules) == []
    t = Tree()
    first = t.new_leaf()
    assert set(t.submodules) == {first}
    second = t.new_leaf()
    assert set(t.submodules) == {first, second}


# -- AbcTest --------------------------------------------------------------------------------------------------

class Abstract(tj.Module, metaclass=abc.ABCMeta):
    @abc.abstractmethod
    def __call__(self, x):
        pass


def test_abstract_module_cannot_be_instantiated():
    with pytest.raises(TypeError, match="abstract method"):
        Abstract()


def test_concrete_module():
    class Concrete(Abstract):
        @tj.Module.with_name_scope
        def __call__(self, x):
            return x ** 2, scope_now()
    x, scope = Concrete()(2.0)
    assert (x, scope, scope_now()) == (4.0, "concrete/", "")


# -- FlattenTest ----------------------------------------------------------------------------------------------

class Member:
    pass


def is_member(v):
    return isinstance(v, Member)


Pair = collections.namedtuple("Pair", ("first", "second"))


class Simple(tj.Module):
    def __init__(self, container, create_child=True):
        super().__init__()
        self.z = Member()
        self.a = container([Member(), Member()])
        if create_child:
            self.c = Simple(container, create_child=False)


@pytest.mark.parametrize("container", [lambda v: Pair(*v), list, tuple, lambda v: dict(enumerate(v))],
                         ids=["namedtuple", "list", "tuple", "dict"])
def test_flatten(container):
    parent = Simple(container)
    child = parent.c
    assert list(parent._flatten(recursive=False, predicate=is_member)) == [parent.a[0], parent.a[1], parent.z]
    assert list(parent._flatten(predicate=is_member)) == [parent.a[0], parent.a[1], parent.z,
                                                          child.a[0], child.a[1], child.z]


def test_attribute_traversal_key():
    def is_variable(v):
        return isinstance(v, tj.Variable)

    class Layer(tj.Module):
        def __init__(self):
            super().__init__()
            self._trainable_variables = [tj.Variable(1.0, name="a"), tj.Variable(2.0, name="b")]
            self._non_trainable_variables = [tj.Variable(3.0, name="c"), tj.Variable(4.0, name="d")]
            self._bonus = tj.Variable(5.0, name="e")

        @property
        def variables(self):
            def key(name):
                return {"_trainable_variables": 0, "_non_trainable_variables": 1}.get(name, 2), name
            return list(self._flatten(predicate=is_variable, attribute_traversal_key=key))
    mod = Layer()
    assert mod.variables == mod._trainable_variables + mod._non_trainable_variables + [mod._bonus]


def test_attributes_to_ignore():
    class Dangerous(tj.Module):
        _TF_MODULE_IGNORED_PROPERTIES = frozenset(itertools.chain(
            ("dangerous_submodule", "dangerous_variable"), tj.Module._TF_MODULE_IGNORED_PROPERTIES))
    mod = Dangerous()
    mod.dangerous_submodule = tj.Module()
    mod.dangerous_variable = tj.Variable(1.0)
    mod.normal_variable = tj.Variable(2.0)
    assert mod.submodules == ()
    assert mod.variables == (mod.normal_variable,)


def test_with_path():
    mod = tj.Module()
    mod.w = tj.Variable(1.0)
    mod.encoder = tj.Module()
    mod.encoder.w = [({"k": mod.w}, {"k": mod.w})]
    mod.decoder = mod.encoder
    found = dict(mod._flatten(with_path=True, predicate=lambda v: isinstance(v, tj.Variable)))
    assert found == {("w",): mod.w,
                     ("encoder", "w", 0, 0, "k"): mod.w, ("encoder", "w", 0, 1, "k"): mod.w,
                     ("decoder", "w", 0, 0, "k"): mod.w, ("decoder", "w", 0, 1, "k"): mod.w}


def test_raises_error_with_path():
    m = tj.Module()
    m.layers = {object(): None, object(): None}
    with pytest.raises(ValueError, match="Error processing property 'layers'"):
        m.variables  # noqa: B018
