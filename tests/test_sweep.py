"""sweep.py on hand-built graphs: what each prune keeps, the ready order's counts, symbolic zeros,
early aggregation thresholds, the drop of unknown inputs, and errors naming the op."""
import sys

import numpy as np
import pytest

from tapejax import sweep
from tapejax.tape import OpEntry

F32 = np.float32


def _entry(name, tid, input_ids, backward):
    """A tape entry of a scalar float32 op named ``name`` making tensor ``tid``."""
    return OpEntry(name, (tid,), (((), F32, None),), input_ids, backward)


class Scale:
    """Backward of ``y = sum(c_k * x_k)``: the gradient of input k is ``c_k * ct``; records its calls."""

    def __init__(self, *cs):
        self.cs, self.calls = cs, []

    def __call__(self, cts, needed_idx, recording):
        self.calls.append(list(needed_idx))
        return [F32(c) * cts[0] if j in needed_idx else None for j, c in enumerate(self.cs)]


def _graph(listed: bool = False):
    """x(1) and w(2) watched; a(10) = 2x [op A]; b(11) = 3a + w [op B]; c(12) = 5a [op C];
    d(13) = 7b + 11c [op D]; e(14) = 13w [op E] (not on the way to d); s(20) stops nothing yet.

    As a tape records it, each op keyed by its output's id (10 to 14) and ``tensor_tape`` listing only the
    watched tensors; ``listed``: ops keyed 100 to 104 and every tensor's producer listed."""
    tt = {1: -1, 2: -1}
    ops = {10: _entry("A", 10, [1], Scale(2)),
           11: _entry("B", 11, [10, 2], Scale(3, 1)),
           12: _entry("C", 12, [10], Scale(5)),
           13: _entry("D", 13, [11, 12], Scale(7, 11)),
           14: _entry("E", 14, [2], Scale(13))}
    if listed:
        ops = {90 + k: e for k, e in ops.items()}
        tt.update({k - 90: k for k in ops})
    return tt, ops


def test_prune_keeps_ancestors_and_counts_uses():
    tt, op_tape = _graph()
    ops, usage, missing = sweep.prune(tt, op_tape, [13])
    assert sorted(ops) == [10, 11, 12, 13]  # E does not lead to d
    assert usage == {11: 1, 12: 1, 10: 2, 2: 1, 1: 1}
    assert missing == {11: 1, 12: 1, 10: 1}  # D has nothing missing: it runs first


def test_prune_between_descendants_of_sources_and_stops():
    tt, op_tape = _graph()
    ops, usage, missing, reached = sweep.prune_between(tt, op_tape, [13], [2])
    assert sorted(ops) == [11, 13]  # only B and D descend from w
    assert reached == {2, 11, 13}
    ops, _, _, reached = sweep.prune_between(tt, op_tape, [13], [1], stop_ids=[11])
    assert sorted(ops) == [10, 12, 13]  # b is a constant: B is not walked back through
    assert 11 not in reached


@pytest.mark.parametrize("listed", [False, True], ids=["as_recorded", "listed"])
def test_backprop_matches_the_chain_rule_and_counts(listed):
    tt, op_tape = _graph(listed)
    stats = sweep.GradientStats()
    gx, gw = sweep.backprop(*sweep.prune(tt, op_tape, [13]), tt, [13], [1, 2], ones_for={}, stats=stats)
    # dd/dx = (7*3 + 11*5) * 2, dd/dw = 7
    assert float(gx) == pytest.approx((7 * 3 + 11 * 5) * 2)
    assert float(gw) == pytest.approx(7)
    assert stats.ops_run == 4 and stats.early_aggregations == 0
    assert stats.peak_pending_bytes >= 8  # a's two contributions were pending at once


def test_symbolic_zero_sweep_runs_nothing():
    tt, op_tape = _graph()
    stats = sweep.GradientStats()
    grads = sweep.backprop(*sweep.prune(tt, op_tape, [13]), tt, [13], [1, 2], [None], ones_for=None, stats=stats)
    assert grads == [None, None]
    assert stats.ops_run == 0
    assert all(not op.backward.calls for op in op_tape.values())


def test_early_aggregation_thresholds():
    tt, op_tape = _graph()
    stats = sweep.GradientStats()
    gx, _ = sweep.backprop(*sweep.prune(tt, op_tape, [13]), tt, [13], [1, 2], ones_for={}, min_count=1,
                           min_bytes=-1, stats=stats)
    assert stats.early_aggregations == 1  # a's second contribution
    assert float(gx) == pytest.approx((7 * 3 + 11 * 5) * 2)
    tt, op_tape = _graph()
    sweep.backprop(*sweep.prune(tt, op_tape, [13]), tt, [13], [1, 2], ones_for={}, min_count=sweep.NEVER,
                   stats=stats)
    assert stats.early_aggregations == 0


def test_known_limits_what_backward_functions_are_asked_for():
    tt, op_tape = _graph()
    del tt[2]  # w unwatched: B is asked for a only, and w's gradient is None
    ops, usage, missing = sweep.prune(tt, op_tape, [13])
    _, gw = sweep.backprop(ops, usage, missing, tt, [13], [1, 2], ones_for={})
    assert gw is None
    assert op_tape[11].backward.calls == [[0]]


def test_release_drops_backward_functions_as_they_run():
    tt, op_tape = _graph()
    sweep.backprop(*sweep.prune(tt, op_tape, [13]), tt, [13], [1], ones_for={}, release=True)
    assert [op_tape[k].backward is None for k in range(10, 15)] == [True, True, True, True, False]


def test_call_backward_names_the_op():
    def broken(cts, needed_idx, recording):
        raise ValueError("shapes (2,) and (3,) do not match")
    with pytest.raises(ValueError, match="in the backward kernel of op 'MatMul': shapes"):
        sweep.call_backward(_entry("MatMul", 5, [1], broken), [F32(1)], [0], False)

    def undifferentiable(cts, needed_idx, recording):
        raise TypeError("argument is not differentiable")
    with pytest.raises(LookupError, match="No gradient defined for op 'Floor'"):
        sweep.call_backward(_entry("Floor", 5, [1], undifferentiable), [F32(1)], [0], False)


def test_the_sweep_names_the_op_whose_backward_fails():
    """backprop calls backward functions inline (not through call_backward): the same errors name the op, and
    a LookupError (no gradient defined) passes through as it was raised."""
    def broken(cts, needed_idx, recording):
        raise ValueError("shapes (2,) and (3,) do not match")
    op_tape = {5: _entry("MatMul", 5, [1], broken)}
    with pytest.raises(ValueError, match="in the backward kernel of op 'MatMul': shapes") as info:
        sweep.backprop(*sweep.prune({1: -1}, op_tape, [5]), {1: -1}, [5], [1], ones_for={})
    assert isinstance(info.value.__cause__, ValueError)

    missing = LookupError("No gradient defined for operation 'Custom'")

    def no_rule(cts, needed_idx, recording):
        raise missing
    op_tape = {5: _entry("Custom", 5, [1], no_rule)}
    with pytest.raises(LookupError) as info:
        sweep.backprop(*sweep.prune({1: -1}, op_tape, [5]), {1: -1}, [5], [1], ones_for={})
    assert info.value is missing


# -- linear chains: an op's one gradient handed to the op that made its one input, never pending -----------
class Logged(Scale):
    """Scale that appends its op's name to a shared log when called."""

    def __init__(self, log, name, *cs):
        super().__init__(*cs)
        self.log, self.name = log, name

    def __call__(self, cts, needed_idx, recording):
        self.log.append(self.name)
        return super().__call__(cts, needed_idx, recording)


def _built(log, spec):
    """A graph of scalar float32 ops from ``(name, out, inputs, coefficients)`` rows, x(1) watched."""
    return {1: -1}, {out: _entry(name, out, ins, Logged(log, name, *cs)) for name, out, ins, cs in spec}


# x(1); a(10) = 2x [A]; b(11) = 3a [B]; c(12) = 5b [C]; d(13) = 7c [D]
CHAIN = [("A", 10, [1], (2,)), ("B", 11, [10], (3,)), ("C", 12, [11], (5,)), ("D", 13, [12], (7,))]


def _sweep(tt, op_tape, targets, sources, **kw):
    stats = sweep.GradientStats()
    grads = sweep.backprop(*sweep.prune(tt, op_tape, targets), tt, targets, sources, ones_for={}, stats=stats, **kw)
    return grads, stats


@pytest.mark.parametrize("release", [False, True])
def test_linear_chain(release):
    log = []
    tt, op_tape = _built(log, CHAIN)
    (gx,), stats = _sweep(tt, op_tape, [13], [1], release=release)
    assert float(gx) == pytest.approx(7 * 5 * 3 * 2)
    assert log == ["D", "C", "B", "A"]
    # one scalar float32 pending at a time
    assert (stats.ops_run, stats.early_aggregations, stats.peak_pending_bytes) == (4, 0, 4)
    assert all((e.backward is None) == release for e in op_tape.values())


def test_linear_chain_through_a_source():
    log = []
    tt, op_tape = _built(log, CHAIN)
    (gx, gb), stats = _sweep(tt, op_tape, [13], [1, 11])
    assert (float(gx), float(gb)) == pytest.approx((7 * 5 * 3 * 2, 7 * 5))
    assert log == ["D", "C", "B", "A"]
    # b's gradient stays while a's and then x's arrive
    assert (stats.ops_run, stats.early_aggregations, stats.peak_pending_bytes) == (4, 0, 8)


def test_linear_chain_through_a_target():
    log = []
    tt, op_tape = _built(log, CHAIN)
    (gx,), stats = _sweep(tt, op_tape, [13, 11], [1])  # d + b: b's seed waits for C's gradient
    assert float(gx) == pytest.approx((7 * 5 + 1) * 3 * 2)
    assert log == ["D", "C", "B", "A"]
    assert (stats.ops_run, stats.peak_pending_bytes) == (4, 8)


def test_linear_chain_stops_at_a_watched_tensor():
    log = []
    tt, op_tape = _built(log, CHAIN)
    tt[11] = -1  # b watched: its op is not the graph's
    (gx, gb), stats = _sweep(tt, op_tape, [13], [1, 11])
    assert gx is None and float(gb) == pytest.approx(7 * 5)
    assert log == ["D", "C"]
    assert (stats.ops_run, stats.peak_pending_bytes) == (2, 4)


def test_linear_chain_into_a_tensor_used_twice():
    """a(10) = 2x; b(11) = 3a; c(12) = 5b; e(14) = 13a; f(15) = 17e; d(13) = 7c + 11f: the chains b-c and e-f end
    at a, whose two gradients are summed (early with min_count=1)."""
    log = []
    spec = [("A", 10, [1], (2,)), ("B", 11, [10], (3,)), ("C", 12, [11], (5,)), ("E", 14, [10], (13,)),
            ("F", 15, [14], (17,)), ("D", 13, [12, 15], (7, 11))]
    for min_count, early in [(sweep.NEVER, 0), (1, 1)]:
        del log[:]
        tt, op_tape = _built(log, spec)
        (gx,), stats = _sweep(tt, op_tape, [13], [1], min_count=min_count, min_bytes=-1)
        assert float(gx) == pytest.approx((7 * 5 * 3 + 11 * 17 * 13) * 2)
        assert log == ["D", "F", "E", "C", "B", "A"]  # each chain to its end (the stack's order)
        # c and f pending at once; then a's first gradient beside c
        assert (stats.ops_run, stats.early_aggregations, stats.peak_pending_bytes) == (6, early, 8)


def test_linear_chain_agrees_with_the_stack():
    """min_count=0 turns the chain's shortcut off (one pending gradient may then be summed early): with a
    min_bytes nothing reaches, the sweep is the same, op by op."""
    spec = CHAIN + [("E", 14, [10], (13,)), ("F", 15, [14, 12], (17, 19))]
    runs = []
    for kw in ({}, dict(min_count=0, min_bytes=sys.maxsize)):
        log = []
        tt, op_tape = _built(log, spec)
        grads, stats = _sweep(tt, op_tape, [13, 15], [1, 11], **kw)
        runs.append((log, [float(g) for g in grads], repr(stats)))
    assert runs[0] == runs[1]


@pytest.mark.parametrize("persistent", [False, True])
def test_strict_eager_chain_matches_jax(persistent):
    """A strictly eager tape over a chain of 16 floats, a source in its middle: the gradients are jax.grad's,
    one 16-float gradient pending at a time until the source's stays."""
    import jax
    import jax.numpy as jnp
    import tapejax as tj

    def step(v):
        return jnp.tanh(v * 1.01 + 0.1)

    x_np = np.linspace(-1, 1, 16).astype(F32)
    with tj.config.override(lazy=False, replay=False):
        x = tj.constant(x_np)
        with tj.GradientTape(persistent=persistent) as tape:
            tape.watch(x)
            a = x
            for _ in range(3):
                a = tj.numpy.tanh(a * 1.01 + 0.1)
            b = a
            for _ in range(3):
                b = tj.numpy.tanh(b * 1.01 + 0.1)
            s = tj.numpy.sum(b)
        gx, ga = tape.gradient(s, [x, a])
        stats = tape.last_gradient_stats

    def tail(v):
        for _ in range(3):
            v = step(v)
        return jnp.sum(v)
    np.testing.assert_allclose(gx.numpy(), jax.grad(lambda v: tail(_head(v, step)))(x_np), rtol=1e-5)
    np.testing.assert_allclose(ga.numpy(), jax.grad(tail)(_head(x_np, step)), rtol=1e-5)
    assert stats.ops_run == 3 * 6 + 1
    assert stats.peak_pending_bytes == 2 * 16 * 4


def _head(v, step):
    for _ in range(3):
        v = step(v)
    return v


def test_strict_eager_chain_second_order():
    """The chain's shortcut under a recording sweep (an outer tape): second derivatives are jax's."""
    import jax
    import jax.numpy as jnp
    import tapejax as tj

    x_np = np.linspace(-1, 1, 16).astype(F32)
    with tj.config.override(lazy=False, replay=False):
        x = tj.constant(x_np)
        with tj.GradientTape() as outer:
            outer.watch(x)
            with tj.GradientTape() as inner:
                inner.watch(x)
                y = x
                for _ in range(4):
                    y = tj.numpy.tanh(y * 1.01 + 0.1)
                s = tj.numpy.sum(y)
            g = inner.gradient(s, x)
            t = tj.numpy.sum(g * g)
        gg = outer.gradient(t, x)

    def f(v):
        for _ in range(4):
            v = jnp.tanh(v * 1.01 + 0.1)
        return jnp.sum(v)
    np.testing.assert_allclose(gg.numpy(), jax.grad(lambda v: jnp.sum(jax.grad(f)(v) ** 2))(x_np), rtol=1e-4)
