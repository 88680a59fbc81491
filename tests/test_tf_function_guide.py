"""TF's "Better performance with tf.function" guide (tensorflow/docs site/en/guide/function.ipynb), ported by
renaming, and TF's rule behind it: the Python function runs once per traced signature.

tapejax makes inputs of the Variables and Tensors a function can plainly see before its first trace
(closures, globals it names, helper functions, ``self`` and other non-array arguments:
graph/reachable.py), and the recorded call under an outer tape evaluates the trace's jaxpr; so side effects
in the Python function happen once per signature, as TF's. Expected values are what TF 2.21 prints (noted
beside each; the tests do not import TensorFlow).
"""
from __future__ import annotations

import numpy as np

import tapejax as tj

tnp = tj.numpy

_W = tj.Variable(np.float32(3.0))


def _helper_model(x):
    return x * _W  # a global Variable seen only through a helper function


def test_guide_python_side_effects_run_once_per_signature():
    # guide cell w2sACuZ9TTRk: f(1); f(1); f(2) prints "Traced with 1", "Traced with 2".
    seen = []

    @tj.function
    def f(x):
        seen.append(x)
    f(1)
    f(1)
    f(2)
    assert seen == [1, 2]
    # guide cell 7aJD--9qTWmg: the list append only happened once
    external_list = []

    @tj.function
    def side_effect(x):
        external_list.append(x)
    side_effect(1)
    side_effect(1)
    side_effect(1)
    assert len(external_list) == 1


def test_guide_method_with_python_counter_assigns_on_every_call():
    # guide cell 5r6p7-9jk_3L: the assign_add traced on the first call runs on every call: prints 1, 2, 3.
    class Model(tj.Module):
        def __init__(self):
            self.v = tj.Variable(0)
            self.counter = 0

        @tj.function
        def __call__(self):
            if self.counter == 0:
                self.counter += 1
                self.v.assign_add(1)
            return self.v

    m = Model()
    assert [int(m().numpy()) for _ in range(3)] == [1, 2, 3]


def test_guide_recursive_function_traces_each_depth_once():
    # guide cell 7FlmTqfMUwmT: recursive_fn(5) prints 'tracing' 5 times (n = 5, 4, 3, 2, 1) and returns 1.
    traced = []

    @tj.function
    def recursive_fn(n):
        if n > 0:
            traced.append(n)
            return recursive_fn(n - 1)
        return 1
    assert recursive_fn(5) == 1
    assert traced == [5, 4, 3, 2, 1]


def test_guide_variables_seen_by_the_function_follow_their_assignments():
    # guide cells oeJMdXd3M0cc / L3q7sUJWZOSd: "Variable: 2", then after foo.assign(100) "Variable: 101";
    # cells daAP_lucwS6w / ktqwMJBqwTFj: 20.0, then 25.0 after better_model.bias.assign_add(5.0).
    foo = tj.Variable(1)
    traces = []

    @tj.function
    def variable_add():
        traces.append(1)
        return 1 + foo
    assert int(variable_add()) == 2
    foo.assign(100)
    assert int(variable_add()) == 101 and len(traces) == 1

    class BetterModel:
        def __init__(self):
            self.bias = tj.Variable(0.)
            self.weight = tj.Variable(2.)

    @tj.function
    def evaluate(model, x):
        traces.append(2)
        return model.weight * x + model.bias
    better_model = BetterModel()
    x = tj.constant(10.)
    assert float(evaluate(better_model, x)) == 20.0
    better_model.bias.assign_add(5.0)
    assert float(evaluate(better_model, x)) == 25.0 and traces.count(2) == 1


def test_one_trace_for_closures_globals_and_helpers_also_under_tapes_and_accumulators():
    # TF: a tf.function closing over a Variable and a Tensor traces once per signature, also when called
    # under a GradientTape (the recorded call reuses the trace) and a ForwardAccumulator.
    v = tj.Variable(2.0)
    c = tj.constant(0.5)
    traces = [0]

    @tj.function
    def f(x):
        traces[0] += 1
        return x * v * x * c + _helper_model(x)
    x = tj.constant(3.0)
    assert float(f(x)) == 9.0 + 9.0
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = f(x)
    gx, gv, gw = tape.gradient(y, [x, v, _W])
    assert (float(gx), float(gv), float(gw)) == (2 * 3.0 * 2.0 * 0.5 + 3.0, 9.0 * 0.5, 3.0)
    with tj.GradientTape() as outer:
        outer.watch(x)
        with tj.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    assert float(outer.gradient(g, x)) == 2.0 * 2.0 * 0.5
    with tj.ForwardAccumulator(x, tj.constant(1.0)) as acc:
        y = f(x)
    assert float(acc.jvp(y)) == 2 * 3.0 * 2.0 * 0.5 + 3.0
    assert traces[0] == 1
    # Python scalars are part of the signature: each new value traces again (TF: "Retracing occurs for
    # different Python arguments"), once.
    f(1.0)
    f(2.0)
    f(2.0)
    assert traces[0] == 3


def test_variables_seen_but_not_used_are_not_watched_by_an_outer_tape():
    # TF: only the Variables a function captures are read by its call; watched_variables() lists no other.
    used, unused = tj.Variable(1.0, name="used"), tj.Variable(5.0, name="unused")
    holder = {"unused": unused}

    @tj.function
    def f(x, which):
        return x * (used if which == "used" else holder[which])
    x = tj.constant(2.0)
    with tj.GradientTape(persistent=True) as tape:
        y = f(x, "used")
    assert [v.name for v in tape.watched_variables()] == ["used:0"]
    assert tape.gradient(y, unused) is None and float(tape.gradient(y, used)) == 2.0


def test_a_variable_the_walk_cannot_see_is_still_found():
    # Reached only through a value computed at call time: found by the trace itself (which then runs once
    # more with it as an input); the result is the same.
    registry = {}

    def lookup(name):
        return registry[name]
    registry["w"] = tj.Variable(4.0)
    key = ["w"]

    @tj.function
    def f(x):
        return x * globals_free_lookup(key[0])

    def globals_free_lookup(name):
        return lookup(name)
    assert float(f(tj.constant(2.0))) == 8.0
    registry["w"].assign(5.0)
    assert float(f(tj.constant(2.0))) == 10.0
    assert f.python_function.__name__ == "f"


def test_guide_init_scope_runs_once_at_trace_time():
    # guide cell An4MrIbrcvi8: with tf.init_scope() the assign_add runs once, when traced: prints 1, 1, 1.
    class Model(tj.Module):
        def __init__(self):
            self.v = tj.Variable(0)
            self.counter = 0

        @tj.function
        def __call__(self):
            if self.counter == 0:
                with tj.init_scope():
                    self.counter += 1
                    self.v.assign_add(1)
            return self.v

    m = Model()
    assert [int(m().numpy()) for _ in range(3)] == [1, 1, 1]
    # outside traces it only pauses recording
    x = tj.constant(2.0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        with tj.init_scope():
            y = x * x
    assert tape.gradient(y, x) is None


def test_method_reading_tensor_and_variable_attributes_traces_once():
    class Masked(tj.Module):
        def __init__(self):
            self.mask = tj.constant([1.0, 0.0])
            self.w = tj.Variable([2.0, 3.0])
            self.traces = 0

        @tj.function
        def __call__(self, x):
            self.traces += 1
            return x * self.w * self.mask + 3.0

    m = Masked()
    x = tj.constant([1.0, 1.0])
    np.testing.assert_array_equal(m(x).numpy(), [5.0, 3.0])
    m.w.assign([4.0, 4.0])
    np.testing.assert_array_equal(m(x).numpy(), [7.0, 3.0])
    with tj.GradientTape() as tape:
        y = m(x)
    np.testing.assert_array_equal(tape.gradient(y, m.w).numpy(), [1.0, 0.0])
    assert m.traces == 1


def test_reduce_retracing_is_accepted_and_changes_no_value():
    # guide cell 0403fae03a1f: @tf.function(reduce_retracing=True) def g(x): return x
    @tj.function(reduce_retracing=True)
    def g(x):
        return x * 2
    for n in (3, 5, 7):
        np.testing.assert_array_equal(g(tnp.arange(n)).numpy(), np.arange(n) * 2)
