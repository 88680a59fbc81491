"""TF's tests of the list, dict and tuple attributes of a tf.Module (its ListWrapper, _DictWrapper and
_TupleWrapper), ported to tapejax's ``tj.Module`` and ``tj.train.Checkpoint``.

Sources (values and exceptions from TF 2.21, noted beside each; TF is not imported here):
- tensorflow/python/trackable/data_structures_test.py (ListTests, ListWrapperTest, MappingTests, TupleTests),
  through a Module's attribute where the test builds a wrapper directly (``data_structures.ListWrapper(x)``
  is ``m.l = x; m.l``), and a checkpoint's save where it asks ``_trackable_children()`` (both raise the same
  ValueError, "Unable to save ...");
- tensorflow/python/module/module_test.py (TestModuleNaming, VariableTrackingTest, ModuleTrackingTest,
  AbcTest: the cases not already in test_module.py, test_tf_training_port.py or test_tf_checkpoint_port.py);
- tensorflow/python/checkpoint/checkpoint_test.py's deferred restoration, for lists and dicts held by Modules:
  a Variable appended (or assigned into a dict) after ``restore`` gets its saved value then.

``Module.variables`` is in order of creation (API.md), where tf.Module gives its walk's order: the order
cases below create their Variables in the order TF lists them, and say so where the two differ.
"""
from __future__ import annotations

import abc
import collections
import copy
import json
import os
import pickle

import jax
import numpy as np
import pytest

import tapejax as tj
from tapejax.tensor import current_name_scope

Checkpoint = tj.train.Checkpoint


def _values(variables):
    return [float(v.numpy()) for v in variables]


def _saves(tmp_path, name, **objects):
    return Checkpoint(**objects).write(os.path.join(tmp_path, name))


# -- ListWrapper (data_structures_test.py: ListTests, ListWrapperTest) -----------------------------------------

def test_list_attribute_compares_like_a_list():
    # ListWrapperTest.testListWrapperBasic, testMutateWithoutTrackableComponents, testAcceptsNonTrackableContent,
    # testNotHashable; TF 2.21: type(m.l).__name__ == "ListWrapper", repr "ListWrapper([1, 2])"
    a, b = tj.Module(), tj.Module()
    m = tj.Module()
    m.l = [1, 2]
    assert type(m.l).__name__ == "ListWrapper" and isinstance(m.l, list)
    assert repr(m.l) == "ListWrapper([1, 2])" and str(m.l) == "ListWrapper([1, 2])"
    m.l.insert(0, 0)
    assert m.l == [0, 1, 2] and [0, 1, 2] == m.l and not (m.l != [0, 1, 2])
    with pytest.raises(TypeError, match="unhashable type: 'ListWrapper'"):
        hash(m.l)
    m.x, m.y, m.z = [a, a], [b, a], [a]
    assert m.x == [a, a] and [a, a] == m.x and m.x != m.y and [a, a] != m.y
    m.w = [a, b]
    assert m.z < m.w and m.z <= m.w and m.w > m.z and m.w >= m.z
    assert m.z + [a] == [a, a] and [a] + m.z == [a, a]
    assert type(m.z + [a]) is list and type([a] + m.z) is list  # TF: plain lists
    # ListTests.testSlicing, testMul, testRMul: plain lists
    m.l = [1, 2, 3, 4]
    assert m.l[1:] == [2, 3, 4] and m.l[1:-1] == [2, 3] and m.l[:-1] == [1, 2, 3] and type(m.l[1:]) is list
    assert m.l * 2 == [1, 2, 3, 4] * 2 and 2 * m.l == [1, 2, 3, 4] * 2 and type(2 * m.l) is list
    assert len(m.l) == 4 and 3 in m.l and m.l.index(3) == 2 and m.l.count(3) == 1
    assert list(reversed(m.l)) == [4, 3, 2, 1] and bool(m.l) and sum(m.l) == 10
    m.e = []
    assert not m.e and m.e == []


def test_list_wrapper_overrides_all_list_methods():
    # ListWrapperTest.test_overrides_all_list_methods: every list method is the wrapper's own (the wrapped list
    # holds the items: a method left to `list` would see none)
    m = tj.Module()
    m.l = []
    wrapper = type(m.l)
    not_overridden = []
    for name in dir(list):
        if name in ("__new__", "__init__", "__subclasshook__", "__getattribute__"):
            continue
        list_method = getattr(list, name)
        if not callable(list_method):
            continue
        if getattr(object, name, None) is not None and getattr(object, name) == list_method:
            continue
        if list_method == getattr(wrapper, name):
            not_overridden.append(name)
    assert not_overridden == []


def test_list_wrapper_is_the_assigned_list():
    # ListWrapperTest.testWrapperChangesList, testListChangesWrapper (TF: the wrapper keeps the list itself)
    m = tj.Module()
    original = []
    m.l = original
    m.l.append(1)
    assert original == [1]
    original.append(2)
    assert m.l == [1, 2]


def test_list_json_numpy_pickle_and_copy():
    # ListTests.testJSONSerialization (json.dumps(m.l) == "[1]" in TF), ListWrapperTest.testPickle,
    # ListTests.testCopy; np.array(m.l) as TF 2.21 ([0, 1, 2])
    m = tj.Module()
    m.l = [1]
    assert json.dumps(m.l) == "[1]"
    m.l = [0, 1, 2]
    np.testing.assert_array_equal(np.array(m.l), [0, 1, 2])
    restored = pickle.loads(pickle.dumps(m.l))
    assert restored == [0, 1, 2] and type(restored).__name__ == "ListWrapper"
    v1, v2, v3 = tj.Variable(1.0), tj.Variable(1.0), tj.Variable(1.0)
    m.l = [v1, v2]
    l2 = m.l.copy()
    assert type(l2).__name__ == "ListWrapper" and type(copy.copy(m.l)).__name__ == "ListWrapper"
    l2.append(v3)
    assert list(m.l) == [v1, v2] and list(l2) == [v1, v2, v3]


def test_list_shallow_and_deep_copies_keep_being_unsaveable(tmp_path):
    # MappingTests.testListShallowCopy, testListDeepCopy: copies are wrappers (of the same, or copied, items);
    # a list changed behind its wrapper cannot be saved (TF: ValueError "Unable to save"), nor its copies
    root = tj.Module()
    orig_list = [[1.0]]
    root.a = orig_list
    copied = copy.copy(root.a)
    assert copied == [[1.0]] and copied is not root.a and copied[0] is root.a[0]
    assert type(root.a[0]).__name__ == "ListWrapper"  # the inner list is wrapped too (TF)
    deep = copy.deepcopy(root.a)
    assert deep == [[1.0]] and deep is not root.a and deep[0] is not root.a[0]
    assert type(deep[0]).__name__ == "ListWrapper"
    _saves(tmp_path, "before", m=root)
    orig_list.append(1.0)  # behind the wrapper
    with pytest.raises(ValueError, match="Unable to save"):
        _saves(tmp_path, "after", m=root)
    holder = tj.Module()
    holder.l = copy.copy(root.a)
    with pytest.raises(ValueError, match="Unable to save"):
        _saves(tmp_path, "copy", m=holder)
    holder.l = copy.deepcopy(root.a)
    with pytest.raises(ValueError, match="Unable to save"):
        _saves(tmp_path, "deep", m=holder)


@pytest.mark.parametrize("change, saveable", [
    (lambda l: l.__delitem__(0), False),           # ListWrapperTest.testDelItem ("__delitem__")
    (lambda l: l.__delitem__(slice(2, 3)), False),  # testDelSlice
    (lambda l: l.sort(), False),                    # testSort: even when it moves nothing
    (lambda l: l.__imul__(-1), False),              # testIMulNegative
    (lambda l: l.pop(), False),                     # TF 2.21: pop, remove, clear, reverse too
    (lambda l: l.remove(l[0]), False),
    (lambda l: l.clear(), False),
    (lambda l: l.reverse(), False),
    (lambda l: l.insert(1, 5), False),
    (lambda l: l.append(5), True),
    (lambda l: l.extend([5]), True),
    (lambda l: l.__iadd__([5]), True),
], ids=["del", "delslice", "sort", "imul-1", "pop", "remove", "clear", "reverse", "insert", "append", "extend",
        "iadd"])
def test_list_mutations_that_cannot_be_saved(tmp_path, change, saveable):
    # ListWrapperTest.assertUnableToSave: a list holding trackables (its lists are wrapped) whose items moved
    m = tj.Module()
    m.l = [[1], [2], [3], [4]]
    change(m.l)
    if saveable:
        _saves(tmp_path, "c", m=m)
    else:
        with pytest.raises(ValueError, match="Unable to save"):
            _saves(tmp_path, "c", m=m)


def test_list_slice_assignment(tmp_path):
    # ListWrapperTest.testSetSlice_canSaveForNonTrackableItems, testSetSlice_cannotSaveIfTrackableModified,
    # testSetSlice_truncate, testSetSlice_extend
    m = tj.Module()
    m.l = [1, 2, 3, 4]
    m.l[:] = 2, 8, 9, 0
    assert m.l == [2, 8, 9, 0]
    _saves(tmp_path, "plain", m=m)
    v1, v2 = tj.Variable(1.0), tj.Variable(1.0)
    m.l = [1, 2, v1, v2]
    m.l[:] = 2, 8, 9, v2
    assert m.l == [2, 8, 9, v2]
    with pytest.raises(ValueError, match="Unable to save"):
        _saves(tmp_path, "replaced", m=m)
    m.l = [1, 2, 3, 4]
    m.l[:] = []
    assert m.l == []
    m.l = [1, 2, 3, 4]
    m.l[2:] = 1, 2, 3, 4
    assert m.l == [1, 2, 1, 2, 3, 4]


def test_item_assignment_replacing_a_variable_cannot_be_saved(tmp_path):
    # TF 2.21: m.l = [a, b]; m.l[0] = c; save -> ValueError "Unable to save"; replacing a non-trackable item
    # by a Variable saves (m.l = [1, 2]; m.l[0] = a)
    a, b, c = tj.Variable(1.0), tj.Variable(2.0), tj.Variable(3.0)
    m = tj.Module()
    m.l = [a, b]
    m.l[0] = c
    with pytest.raises(ValueError, match="Unable to save"):
        _saves(tmp_path, "replaced", m=m)
    m.l = [1, 2]
    m.l[0] = a
    assert m.variables == (a,)
    _saves(tmp_path, "set", m=m)


def test_list_imul_positive_saves_and_restores(tmp_path):
    # ListWrapperTest.testIMulPositive: l *= 2 repeats v; the restore gives it the saved 1.0 (in a Module: a
    # Checkpoint refuses numbers in what it is given, where TF ignores them)
    v = tj.Variable(1.0)
    m = tj.Module()
    m.l = [1, 2, 3, 4, v]
    root = Checkpoint(m=m)
    path = root.save(os.path.join(tmp_path, "ckpt"))
    v.assign(5.0)
    m.l *= 2
    assert m.l == [1, 2, 3, 4, v, 1, 2, 3, 4, v] and m.variables == (v,)
    root.restore(path)
    assert float(v.numpy()) == 1.0


def test_list_held_by_a_checkpoint_is_a_list_wrapper(tmp_path):
    # TF 2.21: tf.train.Checkpoint(l=[v]).l and ckpt.l2 = [] are ListWrappers, their dicts _DictWrappers; a list
    # given to the Checkpoint and then changed directly cannot be saved ("Unable to save")
    a, b = tj.Variable(1.0), tj.Variable(2.0)
    ckpt = Checkpoint(l=[a], d={"a": a})
    ckpt.l2 = []
    assert type(ckpt.l).__name__ == "ListWrapper" and type(ckpt.l2).__name__ == "ListWrapper"
    assert isinstance(ckpt.d, dict) and repr(ckpt.d).startswith("DictWrapper(")
    given = [a]
    ckpt = Checkpoint(l=given)
    given.append(b)
    with pytest.raises(ValueError, match="Unable to save"):
        ckpt.save(os.path.join(tmp_path, "ckpt"))


# -- variables of a Module's lists (VariableTrackingTest, and TF 2.21's results) ---------------------------------

def test_variables_follow_the_list_through_its_changes():
    # TF 2.21 (names of m.variables after each change): append [a, b]; extend [a, b, c]; insert(0, d)
    # [d, a, b, c]; m.l[1] = e [d, e, b, c]; del m.l[0] [e, b, c]. tapejax lists them in order of creation
    # (API.md), so these Variables are created in TF's final order.
    e, b, c = tj.Variable(4.0, name="e"), tj.Variable(1.0, name="b"), tj.Variable(2.0, name="c")
    a, d = tj.Variable(0.0, name="a"), tj.Variable(3.0, name="d")

    def names(variables):
        return sorted(v.name for v in variables)

    m = tj.Module()
    m.l = [a]
    m.l.append(b)
    assert names(m.variables) == ["a:0", "b:0"]
    m.l.extend([c])
    assert names(m.variables) == ["a:0", "b:0", "c:0"]
    m.l.insert(0, d)
    assert names(m.variables) == ["a:0", "b:0", "c:0", "d:0"]
    m.l[1] = e
    assert names(m.variables) == names(m.trainable_variables) == ["b:0", "c:0", "d:0", "e:0"]
    del m.l[0]
    assert [v.name for v in m.variables] == ["e:0", "b:0", "c:0"]


def test_trainable_and_submodules_of_appended_items():
    # TF 2.21: trainable_variables 1, non_trainable_variables 1; ModuleTrackingTest.test_non_ctor_submodule;
    # a list in a tuple, and a list in a dict, are tracked through their wrappers
    m = tj.Module()
    m.l = []
    m.l.append(tj.Variable(1.0, trainable=False))
    m.l.append(tj.Variable(2.0))
    assert len(m.trainable_variables) == 1 and len(m.non_trainable_variables) == 1
    m.t = ([],)
    x = tj.Variable(1.0)
    m.t[0].append(x)
    assert any(v is x for v in m.variables)
    m.d = {"a": []}
    y = tj.Variable(2.0)
    m.d["a"].append(y)
    assert len(m.variables) == 4

    class TreeModule(tj.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            self._leaves = []

        @tj.Module.with_name_scope
        def new_leaf(self, name=None):
            leaf = TreeModule(name=name)
            self._leaves.append(leaf)
            return leaf

    tree = TreeModule()
    leaf1 = tree.new_leaf()
    assert set(tree.submodules) == {leaf1}
    leaf2 = tree.new_leaf()
    assert set(tree.submodules) == {leaf1, leaf2}
    # TestModuleNaming.test_submodule_created_late
    assert tree.name == "tree_module" and tree.name_scope.name == "tree_module/"
    assert leaf1.name == "tree_module" and leaf1.name_scope.name == "tree_module/tree_module/"


def test_converting_a_list_attribute_of_variables():
    # TF 2.21: tf.convert_to_tensor(m.l) with m.l = [Variable([1., 2.]), Variable([3., 4.])] packs them
    # ([[1, 2], [3, 4]]); a gradient with respect to a ListWrapper/_DictWrapper keeps the wrapper
    m = tj.Module()
    m.l = [tj.Variable([1.0, 2.0]), tj.Variable([3.0, 4.0])]
    np.testing.assert_array_equal(tj.convert_to_tensor(m.l).numpy(), [[1.0, 2.0], [3.0, 4.0]])
    w = tj.Variable(2.0)
    m.p, m.q = [w], {"w": w}
    with tj.GradientTape(persistent=True) as tape:
        y = w * w
    g = tape.gradient(y, m.p)
    assert type(g).__name__ == "ListWrapper" and float(g[0]) == 4.0
    g = tape.gradient(y, m.q)
    assert repr(g).startswith("DictWrapper(") and isinstance(g, dict) and float(g["w"]) == 4.0


# -- dicts (MappingTests) ----------------------------------------------------------------------------------------

def test_dict_attribute_compares_like_a_dict():
    # MappingTests.testHashing (the dict wrapper part), testJSONSerialization; TF 2.21: repr "DictWrapper({...})",
    # an OrderedDict is wrapped too and keeps its order and methods
    a = tj.Module()
    a.d = {}
    assert {} == a.d and not ({} != a.d) and {1: 2} != a.d
    with pytest.raises(TypeError, match="unhashable"):
        set([a.d])
    a.d = {"a": 2}
    assert isinstance(a.d, dict) and repr(a.d) == "DictWrapper({'a': 2})"
    assert dict(a.d) == {"a": 2} and {**a.d} == {"a": 2}
    with pytest.raises(TypeError, match="Object of type dict is not JSON serializable"):  # TF 2.21's words
        json.dumps(a.d)
    assert json.dumps(a.d, default=dict) == '{"a": 2}'  # (TF's test passes its own default= for the wrapper)
    assert a.d | {"y": 2} == {"a": 2, "y": 2} and type(a.d | {"y": 2}) is dict
    a.o = collections.OrderedDict(b=1, a=2)
    assert list(a.o) == ["b", "a"] and isinstance(a.o, dict)
    a.o.move_to_end("b")
    assert list(a.o) == ["a", "b"]
    restored = pickle.loads(pickle.dumps(a.d))  # MappingTests.testPickle
    assert restored == {"a": 2}


def test_dict_wrapper_is_the_assigned_dict_and_wraps_what_is_added():
    # TF 2.21: a list stored by d[k] = [] or update is a ListWrapper; by setdefault a plain list (TF forwards it
    # to the dict); the wrapper keeps the dict itself
    m = tj.Module()
    original = {}
    m.d = original
    m.d["z"] = []
    m.d.update(y=[])
    m.d.setdefault("x", [])
    assert type(m.d["z"]).__name__ == "ListWrapper" and type(m.d["y"]).__name__ == "ListWrapper"
    assert type(m.d["x"]) is list
    assert original is not m.d and set(original) == {"x", "y", "z"}


def test_dict_copies(tmp_path):
    # MappingTests.testDictShallowCopy, testDictDeepCopy
    root = tj.Module()
    orig_dict = {"a": [1.0]}
    root.a = orig_dict
    copied = copy.copy(root.a)
    assert copied["a"] == [1.0] and copied is not root.a and copied["a"] is root.a["a"]
    copied = root.a.copy()
    assert copied["a"] == [1.0] and copied is not root.a and copied["a"] is root.a["a"]
    assert type(copied).__name__ == "DictWrapper"
    deep = copy.deepcopy(root.a)
    assert deep["a"] == [1.0] and deep is not root.a and deep["a"] is not root.a["a"]
    assert type(deep["a"]).__name__ == "ListWrapper"
    _saves(tmp_path, "before", m=root)
    orig_dict["b"] = []  # behind the wrapper
    with pytest.raises(ValueError, match="Unable to save"):
        _saves(tmp_path, "after", m=root)
    holder = tj.Module()
    holder.d = copy.copy(root.a)
    with pytest.raises(ValueError, match="Unable to save"):
        _saves(tmp_path, "copy", m=holder)
    holder.d = copy.deepcopy(root.a)
    with pytest.raises(ValueError, match="Unable to save"):
        _saves(tmp_path, "deep", m=holder)


@pytest.mark.parametrize("change, saveable", [
    (lambda d, v: d.__setitem__("a", v), True),    # TF 2.21: replacing an entry saves
    (lambda d, v: d.__delitem__("a"), True),       # deleting one too
    (lambda d, v: d.update(b=v), True),
    (lambda d, v: d.pop("a"), False),              # the rest change the dict behind the wrapper
    (lambda d, v: d.setdefault("b", v), False),
    (lambda d, v: d.clear(), False),
    (lambda d, v: d.popitem(), False),
    (lambda d, v: d.__ior__({"b": v}), False),
], ids=["set", "del", "update", "pop", "setdefault", "clear", "popitem", "ior"])
def test_dict_mutations_that_cannot_be_saved(tmp_path, change, saveable):
    m = tj.Module()
    m.d = {"a": tj.Variable(1.0)}
    change(m.d, tj.Variable(2.0))
    if saveable:
        _saves(tmp_path, "c", m=m)
    else:
        with pytest.raises(ValueError, match="Unable to save"):
            _saves(tmp_path, "c", m=m)


def test_copies_of_modules():
    # MappingTests.testShallowCopyTrackable, testDeepCopyTrackable (list_objects -> variables/submodules)
    original, original_sub = tj.Module(), tj.Module()
    original.a = [[1.0]]
    original.b = {"a": original_sub}
    shallow = copy.copy(original)
    assert shallow.b["a"] is original_sub and shallow is not original and shallow.a == [[1.0]]
    assert shallow.a is original.a  # TF 2.21: the same wrapper
    assert shallow.submodules == (original_sub,)
    assert isinstance(original.b, dict)
    deep = copy.deepcopy(original)
    assert isinstance(deep.b, dict) and deep is not original and deep.b["a"] is not original_sub
    assert deep.a == [[1.0]] and isinstance(deep.b["a"], tj.Module)
    assert type(deep.a).__name__ == "ListWrapper" and type(deep.a[0]).__name__ == "ListWrapper"
    assert deep.submodules == (deep.b["a"],)


def test_list_add_order():
    # MappingTests.testListAddOrder
    m = tj.Module()
    m.x, m.y = [1.0], [2.0]
    assert m.x + m.y == [1.0, 2.0] and m.x + [2.0] == [1.0, 2.0] and [1.0] + m.y == [1.0, 2.0]


# -- tuples (TupleTests) -----------------------------------------------------------------------------------------

def test_tuples_of_variables():
    # TupleTests.testCopy, testSlicing, testHash, testIMul, testIAdd, testMul, testRMul, testJSONSerialization,
    # testPickle, through a Module's attribute
    v1, v2 = tj.Variable(1.0), tj.Variable(1.0)
    m = tj.Module()
    m.t = (v1, v2)
    l2 = copy.copy(m.t)
    assert l2 == (v1, v2) and m.t == (v1, v2) and l2[0] is m.t[0]
    deep = copy.deepcopy(m.t)
    assert deep[0] is not m.t[0]
    with pytest.raises(AttributeError):
        l2.append(v1)
    v3, v4 = tj.Variable(1.0), tj.Variable(1.0)
    m.t = (v1, v2, v3, v4)
    assert m.t[1:] == (v2, v3, v4) and m.t[1:-1] == (v2, v3) and m.t[:-1] == (v1, v2, v3)
    m.e = ()
    assert len({m.e, ()}) == 1
    original = m.t = (v1,)
    t = m.t
    t *= 2
    assert t == (v1,) * 2 and original == (v1,)
    t = m.t
    t += (1,)
    assert t == (v1, 1) and m.t == (v1,)
    m.t = (v1, v1, v1)
    assert m.t * 2 == (v1, v1, v1) * 2 and 2 * m.t == (v1, v1, v1) * 2
    m.j = (1,)
    assert json.dumps(m.j) == "[1]" and pickle.loads(pickle.dumps((1, 2))) == (1, 2)
    m.t = ([],)
    assert type(m.t[0]).__name__ == "ListWrapper"  # TF 2.21: a tuple holding a list holds its wrapper


def test_named_tuples():
    # TupleTests.testNamedTuple, testNamedTupleConflictingAttributes, testNamedSubclassing, testUnnamedSubclassing
    named = collections.namedtuple("Named", ("x", "y"))
    v = tj.Variable(2)
    m = tj.Module()
    m.nt = named(x=v, y=2)
    assert m.nt.x is v and m.nt[0] is v and m.nt.y == 2 and m.variables == (v,)
    m.nt = collections.namedtuple("Named", ("x", "weights"))(x=v, weights=3)
    assert m.nt.weights == 3

    class NamedSubclass(named):
        def __new__(cls, x, y):
            del y
            return super().__new__(cls, x, 3)

        @property
        def summed(self):
            return self.x + self.y

    m.nt = NamedSubclass(x=v, y=2)
    assert m.nt.y == 3 and m.nt.x is v and int(m.nt.summed) == 5

    class UnnamedSubclass(tuple):
        @property
        def summed(self):
            return self[0] + self[1]

    m.unt = UnnamedSubclass([v, 2])
    assert int(m.unt.summed) == 4 and isinstance(m.unt, UnnamedSubclass)
    nested = collections.namedtuple("Nested", ("x", "y"))
    m.n = nested(x=[], y=1)
    assert isinstance(m.n, nested) and type(m.n.x).__name__ == "ListWrapper"


def test_named_tuple_with_custom_new_cannot_be_saved(tmp_path):
    # TupleTests.testNamedtupleSubclassWithCustomNew: its list cannot be wrapped, so saving raises ValueError
    class SubclassWithDifferentArgs(collections.namedtuple("A", ["x"])):
        def __new__(cls):
            return super().__new__(cls, [])

    m = tj.Module()
    m.nt = SubclassWithDifferentArgs()
    m.nt.x.append(tj.Variable(1.0))
    assert len(m.variables) == 1
    with pytest.raises(ValueError, match="Unable to save"):
        Checkpoint(m=m).save(os.path.join(tmp_path, "ckpt"))


def test_loop_assigned_module():
    # TupleTests.testLoopAssignedModule
    m = tj.Module()
    m.s = (m,)
    assert m.trainable_variables == () and m.submodules == ()


# -- deferred restoration into a Module's lists and dicts (checkpoint_test.py) ------------------------------------

class _Dense(tj.Module):
    def __init__(self, x):
        super().__init__()
        self.w = tj.Variable(x)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    src = tj.Module()
    src.l = [tj.Variable(10.0), tj.Variable(11.0), tj.Variable(12.0)]
    src.d = {"x": tj.Variable(20.0), "y": tj.Variable(21.0)}
    src.t = ([tj.Variable(30.0)],)
    src.nested = [[tj.Variable(40.0)], {"k": tj.Variable(41.0)}]
    src.sub = tj.Module()
    src.sub.layers = [_Dense(5.0), _Dense(6.0)]
    return Checkpoint(m=src).save(os.path.join(tmp_path_factory.mktemp("saved"), "ckpt"))


def test_restore_then_append(saved):
    # TF 2.21 (the deferred restoration of a ListWrapper/_DictWrapper): each Variable added after the restore
    # gets its saved value: append 10.0; extend [11.0, 12.0]; d["x"] = w 20.0; d.update(y=w) 21.0; the list in a
    # tuple 30.0; a list appended, then appended to, 40.0 (and a dict 41.0); Modules appended [5.0, 6.0];
    # then assert_consumed passes
    dst = tj.Module()
    dst.l, dst.d, dst.t, dst.nested = [], {}, ([],), []
    dst.sub = tj.Module()
    dst.sub.layers = []
    status = Checkpoint(m=dst).restore(saved)
    with pytest.raises(AssertionError):
        status.assert_consumed()
    v0 = tj.Variable(0.0)
    dst.l.append(v0)
    assert float(v0) == 10.0
    v1, v2 = tj.Variable(0.0), tj.Variable(0.0)
    dst.l.extend([v1, v2])
    assert _values([v1, v2]) == [11.0, 12.0]
    w = tj.Variable(0.0)
    dst.d["x"] = w
    assert float(w) == 20.0
    w2 = tj.Variable(0.0)
    dst.d.update(y=w2)
    assert float(w2) == 21.0
    t0 = tj.Variable(0.0)
    dst.t[0].append(t0)
    assert float(t0) == 30.0
    inner = []
    dst.nested.append(inner)
    n0 = tj.Variable(0.0)
    dst.nested[0].append(n0)
    assert float(n0) == 40.0 and inner == [n0]  # (the list appended is the one changed, as TF)
    dst.nested.append({})
    k = tj.Variable(0.0)
    dst.nested[1]["k"] = k
    assert float(k) == 41.0
    dst.sub.layers.append(_Dense(0.0))
    dst.sub.layers.extend([_Dense(0.0)])
    assert [float(layer.w) for layer in dst.sub.layers] == [5.0, 6.0]
    status.assert_consumed()
    extra = tj.Variable(9.0)  # beyond the checkpoint: keeps its value, and is reported (TF)
    dst.l.append(extra)
    assert float(extra) == 9.0
    with pytest.raises(AssertionError):
        status.assert_existing_objects_matched()


def test_restore_then_grow_other_ways(saved, tmp_path):
    # TF 2.21: += restores what it adds (one Variable already there restored at once, the next ones as added,
    # and 7.0 kept beyond the checkpoint); item assignment restores (10.0); insert and setdefault do not (0.0: TF
    # tracks neither); a copy of the list is not the Module's (0.0); the root's list (7.0 saved under l/0)
    dst = tj.Module()
    dst.l = [tj.Variable(0.0)]
    Checkpoint(m=dst).restore(saved).expect_partial()
    assert _values(dst.l) == [10.0]
    dst.l += [tj.Variable(0.0), tj.Variable(0.0), tj.Variable(7.0)]
    assert _values(dst.l) == [10.0, 11.0, 12.0, 7.0]
    dst = tj.Module()
    dst.l = [1]
    dst.d = {}
    Checkpoint(m=dst).restore(saved).expect_partial()
    q = tj.Variable(0.0)
    dst.l[0] = q
    assert float(q) == 10.0
    dst.d.setdefault("x", tj.Variable(0.0))
    assert float(dst.d["x"]) == 0.0
    dst = tj.Module()
    dst.l = []
    Checkpoint(m=dst).restore(saved).expect_partial()
    q = tj.Variable(0.0)
    dst.l.insert(0, q)
    assert float(q) == 0.0
    dst = tj.Module()
    dst.l = []
    Checkpoint(m=dst).restore(saved).expect_partial()
    detached = copy.copy(dst.l)
    x = tj.Variable(0.0)
    detached.append(x)
    assert float(x) == 0.0 and len(dst.l) == 0
    src = tj.Module()
    src.l = [tj.Variable(7.0)]
    path = Checkpoint(root=src).write(os.path.join(tmp_path, "root"))
    dst = tj.Module()
    dst.l = []
    Checkpoint(root=dst).restore(path)
    r = tj.Variable(0.0)
    dst.l.append(r)
    assert float(r) == 7.0


# -- tf.Module (module_test.py: the cases not ported elsewhere) -----------------------------------------------------

def _scope():
    return current_name_scope()  # module_test's get_name_scope(): "" or "outer/inner/"


def test_module_naming():
    # TestModuleNaming.test_single_name, test_construct_in_scope, test_enters_name_scope_in_call,
    # test_enters_name_scope_in_other_method, test_subclassed_module, test_patched_callable,
    # test_modules_not_numbered_in_eager
    mod = tj.Module(name="simple")
    assert mod.name == "simple" and mod.name_scope.name == "simple/"
    with tj.name_scope("foo"):
        mod = tj.Module(name="bar")
    assert mod.name == "bar" and mod.name_scope.name == "foo/bar/"

    class ReturnsNameScopeModule(tj.Module):
        @tj.Module.with_name_scope
        def alternative_forward(self):
            return _scope()

        @tj.Module.with_name_scope
        def __call__(self):
            return _scope()

    class SubclassedReturnsNameScopeModule(ReturnsNameScopeModule):
        @tj.Module.with_name_scope
        def alternative_alternative_forward(self):
            return _scope()

    mod = ReturnsNameScopeModule()
    for _ in range(3):
        assert mod() == mod.name_scope.name == "returns_name_scope_module/"
        assert mod.alternative_forward() == mod.name_scope.name
    mod = SubclassedReturnsNameScopeModule()
    for _ in range(3):
        assert mod.alternative_forward() == mod.name_scope.name
        assert mod.alternative_alternative_forward() == mod.name_scope.name
    with tj.name_scope("foo"):
        mod = tj.Module(name="bar")
    mod.foo = _scope  # not a method: the scope is not entered
    assert mod.foo() == ""

    class RecursiveModule(tj.Module):
        def __init__(self, depth, trainable=True):
            super().__init__(name="badger")
            with self.name_scope:
                self.child = None
                if depth > 1:
                    self.child = RecursiveModule(depth - 1, trainable=trainable)
                self.w = tj.Variable(1.0, trainable=trainable, name="mushroom")

    for _ in range(2):
        mod = RecursiveModule(2)
        assert mod.name_scope.name == "badger/" and mod.child.name_scope.name == "badger/badger/"
    # VariableTrackingTest.test_trainable_variables_ignores_non_trainable
    m = RecursiveModule(3, trainable=False)
    assert len(m.trainable_variables) == len(m.child.trainable_variables) == 0
    assert len(m.child.child.trainable_variables) == 0 and len(m.variables) == 3


def test_module_properties_and_overridden_name_scope():
    # TestModuleNaming.test_does_not_evaluate_property_methods, test_property, test_property_no_name_scope,
    # test_overridden_name_scope
    class PropertyThrowsWhenCalledModule(tj.Module):
        @property
        def raise_assertion_error(self):
            raise AssertionError

    mod = PropertyThrowsWhenCalledModule()
    assert mod.variables == () and mod.submodules == ()  # (the walk reads no property)
    with pytest.raises(AssertionError):
        mod.raise_assertion_error  # noqa: B018

    class PropertyModule(tj.Module):
        def __init__(self):
            super().__init__()
            self._setter_scope_name = None

        @property
        @tj.Module.with_name_scope
        def some_property(self):
            return _scope(), self._setter_scope_name

        @some_property.setter
        @tj.Module.with_name_scope
        def some_property(self, my_property):
            self._setter_scope_name = _scope()

        @property
        def no_name_scope_property(self):
            return _scope(), self._setter_scope_name

        @no_name_scope_property.setter
        def no_name_scope_property(self, my_property):
            self._setter_scope_name = _scope()

    mod = PropertyModule()
    mod.some_property = None, None
    assert mod.some_property == ("property_module/", "property_module/")
    mod = PropertyModule()
    mod.no_name_scope_property = None, None
    assert mod.no_name_scope_property == ("", "")

    class ModuleOverridingNameScope(tj.Module):
        @property
        def name_scope(self):
            return tj.name_scope("yolo/")

        @tj.Module.with_name_scope
        def __call__(self):
            return _scope()

    mod = ModuleOverridingNameScope()
    assert mod() == "yolo/"


class _ErrorModuleError(Exception):
    pass


def test_errors_close_name_scopes_and_attribute_lookups_do_not_enter_them():
    # TestModuleNaming.test_ctor_error_closes_name_scope, test_ctor_error_handles_ctor_not_opening_name_scope,
    # test_forward_method_closes_name_scope, test_get_attr_doesnt_enter_name_scope,
    # test_get_attribute_doesnt_enter_name_scope
    class ErrorModule(tj.Module):
        def __init__(self, call_super, raise_in_constructor=True):
            if call_super:
                super().__init__()
            if raise_in_constructor:
                raise _ErrorModuleError("Deliberate error!")

        @tj.Module.with_name_scope
        def __call__(self):
            raise _ErrorModuleError("Deliberate error!")

    for call_super in (True, False):
        with pytest.raises(_ErrorModuleError):
            ErrorModule(call_super=call_super)
        assert _scope() == ""
    mod = ErrorModule(call_super=True, raise_in_constructor=False)
    with pytest.raises(_ErrorModuleError):
        mod()
    assert _scope() == ""
    scope_names = []

    class GetAttrModule(tj.Module):
        def __getattr__(self, name):
            scope_names.append((name, _scope()))
            return super().__getattr__(name)

    with pytest.raises(AttributeError):
        GetAttrModule().does_not_exist  # noqa: B018
    assert ("does_not_exist", "") in scope_names

    class GetAttributeModule(tj.Module):
        def __getattribute__(self, name):
            scope_names.append((name, _scope()))
            return super().__getattribute__(name)

    with pytest.raises(AttributeError):
        GetAttributeModule().does_not_exist_either  # noqa: B018
    assert ("does_not_exist_either", "") in scope_names


def test_abstract_modules():
    # AbcTest.testAbstract, testConcrete
    class AbstractModule(tj.Module, metaclass=abc.ABCMeta):
        @abc.abstractmethod
        def __call__(self, x):
            pass

    class ConcreteModule(AbstractModule):
        @tj.Module.with_name_scope
        def __call__(self, x):
            return x ** 2, _scope()

    with pytest.raises(TypeError, match="Can't instantiate .* abstract method"):
        AbstractModule()
    x, scope_name = ConcreteModule()(2.0)
    assert x == 4.0 and scope_name == "concrete_module/" and _scope() == ""


# -- autotrackable_test.py (AutoTrackable -> tj.Module, util.list_objects -> what a save holds) --------------------

def test_remove_dependency_and_list_basic(tmp_path):
    # InterfaceTests.testRemoveDependency: del root.a stops tracking it; testListBasic: a list's items, appended
    # later too, are tracked
    root = tj.Module()
    root.a = tj.Module()
    root.a.v = tj.Variable(1.0)
    assert root.submodules == (root.a,) and len(root.variables) == 1
    del root.a
    assert not hasattr(root, "a") and root.submodules == () and root.variables == ()
    root.a = tj.Module()
    assert root.submodules == (root.a,)
    a, b, c = tj.Module(), tj.Module(), tj.Module()
    a.l = [b]
    a.l.append(c)
    assert b in a.submodules and c in a.submodules and b in a.l and c in a.l


def test_mutation_and_out_of_band_edit_dirty_the_list(tmp_path):
    # InterfaceTests.testMutationDirtiesList ("A list element was replaced"), testOutOfBandEditDirtiesList
    # ("The wrapped list was modified")
    a, b, c = tj.Module(), tj.Module(), tj.Module()
    b.v, c.v = tj.Variable(1.0), tj.Variable(2.0)
    a.l = [b]
    a.l.insert(0, c)
    with pytest.raises(ValueError, match="A list element was replaced"):
        Checkpoint(a=a).save(os.path.join(tmp_path, "moved"))
    a = tj.Module()
    held_reference = [b]
    a.l = held_reference
    held_reference.append(c)
    with pytest.raises(ValueError, match="The wrapped list was modified"):
        Checkpoint(a=a).save(os.path.join(tmp_path, "outside"))


def test_nested_lists(tmp_path):
    # InterfaceTests.testNestedLists (without NoDependency, not in tapejax): inner lists, appended or assigned,
    # are tracked; replacing an item of an inner list makes the root unsaveable
    a = tj.Module()
    a.l = []
    b, c, d, e, f = (tj.Module() for _ in range(5))
    for m in (b, c, d, e, f):
        m.v = tj.Variable(1.0)
    a.l.append([b])
    a.l[0].append(c)
    assert b in a.submodules and c in a.submodules
    a.l[0].append(1)
    a.l[0].append(d)
    assert all(m in a.submodules for m in (b, c, d)) and len(a.variables) == 3
    a.l1 = [[], [e]]
    a.l1[0].append(f)
    assert e in a.submodules and f in a.submodules
    checkpoint = Checkpoint(a=a)
    checkpoint.save(os.path.join(tmp_path, "ckpt"))
    a.l[0][1] = 2
    with pytest.raises(ValueError, match="A list element was replaced"):
        checkpoint.save(os.path.join(tmp_path, "ckpt"))


def test_dict_of_lists_compares_and_flattens_as_plain_ones():
    # InterfaceTests.testAssertions (tf.nest -> jax.tree_util, which sees the wrappers as their list and dict)
    a = tj.Module()
    a.l = {"k": [np.zeros([2, 2])]}
    leaves = jax.tree_util.tree_leaves(a.l)
    assert len(leaves) == 1 and np.array_equal(leaves[0], np.zeros([2, 2]))
    a.tensors = {"k": [tj.numpy.ones([2, 2]), tj.numpy.zeros([3, 3])]}
    np.testing.assert_array_equal(a.tensors["k"][0].numpy(), np.ones([2, 2]))
    np.testing.assert_array_equal(a.tensors["k"][1].numpy(), np.zeros([3, 3]))
