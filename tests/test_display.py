"""Rich display and the numbers behind it: tape summaries (deferred or not), HTML reprs, plot_tape,
gradcheck's report."""
import re

import numpy as np
import pytest

import tapejax as tj
from tapejax.tensor import LazyTensor

tnp = tj.numpy


@pytest.fixture
def lazy_mode(config):
    return lambda v: setattr(config, "lazy", v)  # (the conftest's config fixture puts it back)


def _classifier_tape():
    rng = np.random.default_rng(0)
    w = tj.Variable(rng.standard_normal((128, 64)).astype(np.float32), name="w")
    x = tj.constant(rng.standard_normal((32, 128)).astype(np.float32))
    labels = tj.constant(rng.integers(0, 64, 32))
    tape = tj.GradientTape(persistent=True)
    with tape:
        h = tj.nn.relu(x @ w)
        loss = tnp.mean(tj.nn.sparse_softmax_cross_entropy_with_logits(labels, h))
        y = tnp.sum(tnp.exp(tnp.exp(x)) * 2.0)
    return tape, (w, x, loss, y)


def _numbers(s):
    return [r["residual_bytes"] for r in s.rows], s.total_residual_bytes, s.unique_residual_bytes


def test_summary_bytes_same_with_and_without_deferred_execution(lazy_mode):
    lazy_mode(False)
    eager_tape, keep_e = _classifier_tape()
    eager = _numbers(tj.debug.summary(eager_tape))
    lazy_mode(True)
    tape, keep = _classifier_tape()
    assert any(isinstance(t, LazyTensor) for t in keep)  # the check means something only if ops were deferred
    deferred = _numbers(tj.debug.summary(tape))
    assert deferred == eager
    assert eager[2] > 0 and eager[1] >= eager[2]  # matmul keeps x and w: counted, shared arrays once
    # The summary computed nothing: the deferred tensors are still pending.
    assert keep[3]._pending_node() is not None
    keep[3].numpy()  # now the ops run: the counts stay the same
    assert _numbers(tj.debug.summary(tape)) == eager
    g_lazy = tape.gradient(keep[2], keep[0]).numpy()
    g_eager = eager_tape.gradient(keep_e[2], keep_e[0]).numpy()
    np.testing.assert_allclose(g_lazy, g_eager, rtol=1e-5, atol=1e-6)


def test_summary_counts_shared_residuals_once(lazy_mode):
    for mode in (False, True):
        lazy_mode(mode)
        big = tj.constant(np.ones((64, 64), np.float32))
        with tj.GradientTape() as t:
            t.watch(big)
            a = tnp.exp(big)   # keeps its output a
            b = tnp.sin(a)     # keeps a (its input: the same array)
            c = tnp.sum(b)
        s = tj.debug.summary(t)
        assert s.unique_residual_bytes < s.total_residual_bytes, mode
        del a, b, c


def test_tape_html_escapes_and_lists_what_is_watched():
    v = tj.Variable([1.0, 2.0], name="<b>&v")
    x = tj.constant([3.0, 4.0])
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tnp.sum(v * x)
    h = tape._repr_html_()
    assert "<b>&v" not in h and "&lt;b&gt;&amp;v" in h
    assert "<table>" in h and "ReadVariable" in h
    assert f"#{x._id}" in h
    assert tape.gradient(y, v) is not None


def test_tape_html_before_recording_and_after_use():
    tape = tj.GradientTape()
    assert "nothing recorded yet" in tape._repr_html_()
    x = tj.constant(2.0)
    with tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    assert "used" in tape._repr_html_()


def test_accumulator_html_lists_tangents():
    x = tj.constant(np.ones((3, 4), np.float32))
    with tj.ForwardAccumulator(x, tnp.ones_like(x)) as acc:
        y = tnp.sin(x)
        assert "recording" in tj.debug.accumulator_summary(acc)._head()
    h = acc._repr_html_()
    assert "(3,4)" in h and "float32" in h and f"#{x._id}" in h
    s = tj.debug.accumulator_summary(acc)
    assert s.tangent_bytes == sum(r[3] for r in s.rows) >= 2 * 48
    assert acc.jvp(y) is not None
    with pytest.raises(TypeError, match="ForwardAccumulator"):
        tj.debug.accumulator_summary(object())


def test_plot_tape_draws_every_op_as_a_box():
    matplotlib = pytest.importorskip("matplotlib")
    tape, keep = _classifier_tape()
    fig = tj.debug.plot_tape(tape)
    assert isinstance(fig, matplotlib.figure.Figure)
    ax = fig.axes[0]
    boxed = [t for t in ax.texts if t.get_bbox_patch() is not None]
    op_colour = matplotlib.colors.to_rgba("#cfe2ff")
    ops = [t.get_text().replace("\n", "") for t in boxed if t.get_bbox_patch().get_facecolor() == op_colour]
    rows = tj.debug.summary(tape).rows
    n_ops = len(rows)
    assert len(ops) == n_ops
    assert all(label.startswith(r["op"]) for label, r in zip(ops, rows))  # in recording order, names whole
    boxed = [t.get_text() for t in boxed]
    assert any(t == "w:0" for t in boxed)  # the variable is a source box
    assert len([c for c in ax.get_children() if type(c).__name__ == "Annotation"]) >= n_ops
    # Jupyter shows it as a picture without pyplot (IPython calls _repr_png_).
    assert fig._repr_png_()[:4] == b"\x89PNG"


def test_plot_tape_on_a_used_tape_says_why():
    pytest.importorskip("matplotlib")
    x = tj.constant(2.0)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(ValueError, match="persistent=True"):
        tj.debug.plot_tape(tape)


def test_gradcheck_line_names_one_element_for_error_and_values():
    # Element 0 is off by 0.05 on a gradient of 20 (within rtol); element 2 by 0.01 on 0.2 (fails).
    @tj.custom_gradient
    def f(x):
        def grad(dy):
            return dy * (2 * x + tj.constant(np.array([0.05, 0.0, 0.01], np.float32)))
        return x * x, grad

    r = tj.debug.gradcheck(f, np.array([10.0, 1.0, 0.1], np.float32))
    assert not r and r.failed == 1
    w = r.worst
    assert w["index"] == (2,)
    assert w["abs_error"] == pytest.approx(abs(w["analytic"] - w["numeric"]))
    line = str(r)
    m = re.search(r"worst: arg 0 element \(2,\): tape ([\d.]+) vs finite differences ([\d.]+) \(abs error ([\d.]+)",
                  line)
    assert m, line
    tape_v, fd_v, err = map(float, m.groups())
    assert err == pytest.approx(abs(tape_v - fd_v), rel=2e-2)  # the error shown is that of the values shown
    assert r.max_abs_error > w["abs_error"]  # element 0's larger (allowed) error is reported apart
    assert "over all elements: max abs error" in line


def test_gradcheck_passing_reports_closest_element():
    r = tj.debug.gradcheck(lambda a: tnp.tanh(a) * a, np.array([0.3, -1.0, 2.0], np.float32))
    assert r and r.failed == 0
    assert "closest to tolerance" in str(r)
    assert r.worst["abs_error"] <= r.worst["allowed"]
