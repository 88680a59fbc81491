"""A change of an op's rules (tj.RegisterGradient) takes effect at the next op on every path: strictly
eager, deferred (lazy.py) and replayed (replay.py), including after the old rule was deferred and
replayed (issue 12 item 3)."""
import numpy as np
import pytest

import tapejax as tj
from tapejax.deferred import replay
from tapejax.ops.core import registry

tnp = tj.numpy
X = [0.3, 0.7, 1.1]
ORIGINAL = np.sinh(np.array(X, np.float32))  # d/dx sum(cosh(x))
NEW = np.array(X, np.float32) * 10


@pytest.fixture(autouse=True)
def cosh_rules():
    op = registry()["cosh"]
    saved_rules = (op.fwd, op.bwd, op.jvp_rule)
    replay.clear()
    with tj.config.override(replay_warmup=2, replay_background=False):  # compiled at once: the 3rd step replays
        yield op
    op.set_backward(saved_rules[0], saved_rules[1])  # (set_backward drops the JVP rule: put it back)
    op.jvp_rule = saved_rules[2]
    replay.clear()


def _grad(x, persistent=False):
    with tj.GradientTape(persistent=persistent) as t:
        t.watch(x)
        y = tnp.sum(tnp.cosh(x))
    return t.gradient(y, x).numpy(), t.last_replay


def _on_every_path(x, want):
    """The gradient strictly eager, deferred op by op, and replayed (trace and pruned-tape programs)."""
    tj.config.lazy, tj.config.replay = False, False
    np.testing.assert_allclose(_grad(x)[0], want, rtol=1e-6)
    tj.config.lazy = True
    np.testing.assert_allclose(_grad(x)[0], want, rtol=1e-6)
    tj.config.replay = True
    for lazy, persistent in ((True, False), (True, True), (False, False)):
        tj.config.lazy = lazy
        modes = []
        for _ in range(4):
            g, mode = _grad(x, persistent)
            np.testing.assert_allclose(g, want, rtol=1e-6, err_msg=mode)
            modes.append(mode)
        assert modes[-1].startswith("replayed"), (lazy, persistent, modes)


def _register_times_ten():
    @tj.RegisterGradient("cosh")
    def _(primals, outputs, cts):
        return (cts * primals[0] * 10,)


def test_registered_gradient_takes_effect_after_the_old_rule_was_deferred_and_replayed(cosh_rules):
    x = tj.constant(X)
    _on_every_path(x, ORIGINAL)  # the old rule deferred, cached and replayed
    _register_times_ten()
    _on_every_path(x, NEW)
    np.testing.assert_allclose(NEW, [3, 7, 11], rtol=1e-6)


def test_restoring_the_rule_takes_effect_too(cosh_rules):
    op = cosh_rules
    fwd, bwd, jvp = op.fwd, op.bwd, op.jvp_rule
    x = tj.constant(X)
    _on_every_path(x, ORIGINAL)
    _register_times_ten()
    _on_every_path(x, NEW)
    op.set_backward(fwd, bwd)
    op.jvp_rule = jvp
    _on_every_path(x, ORIGINAL)


def test_the_first_step_after_registration_uses_the_new_rule(cosh_rules):
    x = tj.constant(X)
    tj.config.lazy, tj.config.replay = True, True
    for _ in range(4):
        _grad(x)
    assert _grad(x)[1].startswith("replayed")
    _register_times_ten()
    np.testing.assert_allclose(_grad(x)[0], NEW, rtol=1e-6)  # no warm-up step with the old program


@pytest.mark.parametrize("lazy", [False, True])
def test_op_recorded_before_the_registration_uses_the_rule_of_gradient_time(lazy):
    """As TF looks the gradient function up when the gradient is computed: never the old residuals with
    the new rule (which gave [3, 3, 3])."""
    tj.config.lazy, tj.config.replay = lazy, False
    x = tj.constant(X)
    with tj.GradientTape() as t:
        t.watch(x)
        y = tnp.sum(tnp.cosh(x))
    _register_times_ten()
    np.testing.assert_allclose(t.gradient(y, x).numpy(), NEW, rtol=1e-6)
