"""tj.debug: check_numerics, gradcheck, explain_gradient, summary / to_dot / render_graph."""
import inspect
import os
import shutil

import numpy as np
import pytest

import tapejax as tj
from tapejax import debug, tape_set
from tapejax.debug import draw

tnp = tj.numpy


def _line_of(marker: str) -> int:
    src, start = inspect.getsourcelines(inspect.getmodule(_line_of))
    for k, line in enumerate(src):
        if marker in line and "_line_of" not in line:
            return k + max(start, 1)
    raise AssertionError(marker)


# -- check_numerics -----------------------------------------------------------------------------------

def test_check_numerics_backward_names_op_and_call_site():
    x = tj.constant([1.0, 3.0, 4.0])
    with debug.check_numerics():
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = tnp.sqrt(x - 1.0)  # MARK-sqrt
            s = tnp.sum(y * 2.0)
        with pytest.raises(FloatingPointError) as info:
            tape.gradient(s, x)
    e = info.value
    msg = str(e)
    assert isinstance(e, debug.NumericsError)
    assert "'sqrt'" in msg and "backward" in msg
    assert f"{__file__}:{_line_of('MARK-sqrt')}" in msg
    assert "y = tnp.sqrt(x - 1.0)" in msg
    assert e.op == "sqrt" and e.kind == "backward"
    assert e.call_site == f"{__file__}:{_line_of('MARK-sqrt')}"


def test_check_numerics_first_bad_kernel_is_reported_not_later_ones():
    x = tj.constant([0.0, 2.0])
    with debug.check_numerics():
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = tnp.log(x)  # MARK-log: backward 1/x is Inf at 0
            z = tnp.exp(y) * 3.0  # finite backward given a finite input
            s = tnp.sum(z)
        with pytest.raises(debug.NumericsError) as info:
            tape.gradient(s, x)
    assert info.value.op == "log"
    assert f":{_line_of('MARK-log')}" in str(info.value)


def test_without_check_numerics_nan_passes_silently_and_no_site_is_recorded():
    x = tj.constant([1.0, 3.0])
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tnp.sqrt(x - 1.0)
        s = tnp.sum(y)
    g = tape.gradient(s, x)
    assert not np.all(np.isfinite(g.numpy()))
    bfs = [e.backward for e in tape._tape.op_tape.values()]
    assert bfs and not any(hasattr(bf, "site") for bf in bfs)  # zero cost: nothing captured
    assert tape_set.current().debug_checking is False


def test_check_numerics_forward_outside_context_says_site_unknown():
    x = tj.constant([1.0, 3.0])
    with tj.GradientTape() as tape:
        tape.watch(x)
        s = tnp.sum(tnp.sqrt(x - 1.0))
    with debug.check_numerics():
        with pytest.raises(FloatingPointError, match="not recorded") as info:
            tape.gradient(s, x)
    assert info.value.op == "sqrt" and info.value.call_site is None


def test_check_numerics_finite_gradients_do_not_raise_and_context_restores_flag():
    x = tj.constant([1.0, 3.0])
    with debug.check_numerics():
        with debug.check_numerics():
            pass
        assert tape_set.current().debug_checking is True  # nested exit keeps the outer one on
        with tj.GradientTape() as tape:
            tape.watch(x)
            s = tnp.sum(tnp.exp(x) * x)
        g = tape.gradient(s, x)
    assert tape_set.current().debug_checking is False
    np.testing.assert_allclose(g.numpy(), np.exp([1.0, 3.0]) * (1 + np.array([1.0, 3.0])), rtol=1e-5)


def test_check_numerics_jvp_kernel():
    x = tj.constant([1.0, 2.0])
    with debug.check_numerics():
        with tj.ForwardAccumulator(x, tj.constant([1.0, 1.0])) as acc:
            ok = tnp.exp(x)
            with pytest.raises(FloatingPointError) as info:
                tnp.log(x - 1.0)  # MARK-jvp
    assert acc.jvp(ok) is not None
    e = info.value
    assert e.op == "log" and e.kind == "jvp"
    assert f"{__file__}:{_line_of('MARK-jvp')}" in str(e)


def test_check_numerics_higher_order_backward_is_checked():
    x = tj.constant([0.0, 1.0])
    with debug.check_numerics():
        with tj.GradientTape() as outer:
            outer.watch(x)
            with tj.GradientTape() as inner:
                inner.watch(x)
                s = tnp.sum(tnp.sqrt(x))  # MARK-hi
            with pytest.raises(FloatingPointError, match="sqrt"):
                inner.gradient(s, x)  # recorded by `outer`: dispatched as an op, still checked



def test_check_numerics_is_per_thread():
    """Entering check_numerics in one thread neither checks nor slows another thread's gradients."""
    import threading
    entered, other_done = threading.Event(), threading.Event()
    seen = {}

    def checking_thread():
        try:
            with debug.check_numerics():
                entered.set()
                other_done.wait(60)
                seen["flag_inside"] = tape_set.current().debug_checking
                x = tj.constant([1.0, 3.0])
                with tj.GradientTape() as tape:
                    tape.watch(x)
                    s = tnp.sum(tnp.sqrt(x - 1.0))
                try:
                    tape.gradient(s, x)
                except debug.NumericsError as e:
                    seen["own_error"] = e.op
        finally:
            entered.set()

    t = threading.Thread(target=checking_thread)
    t.start()
    try:
        assert entered.wait(60)
        assert tape_set.current().debug_checking is False  # this thread: not checking
        x = tj.constant([1.0, 3.0])
        with tj.GradientTape() as tape:
            tape.watch(x)
            s = tnp.sum(tnp.sqrt(x - 1.0))
        g = tape.gradient(s, x)  # Inf at 0, silently: the other thread's check_numerics is not ours
        assert not np.all(np.isfinite(g.numpy()))
    finally:
        other_done.set()
        t.join(60)
    assert seen == {"flag_inside": True, "own_error": "sqrt"}  # the checking thread still checks its own


def test_modules_below_debug_reach_it_only_through_hooks():
    """No module outside tj.debug imports it (the per-op path reads tape_set's hooks instead)."""
    import ast
    import pathlib
    root = pathlib.Path(tj.__file__).parent
    offenders = []
    for path in root.rglob("*.py"):
        rel = path.relative_to(root).as_posix()
        if rel == "__init__.py" or rel.startswith("debug/"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] + [f"{node.module or ''}.{a.name}" for a in node.names]
                if any(n.split(".")[-1] == "debug" or ".debug." in f".{n}." for n in names):
                    offenders.append(f"{rel}:{node.lineno}")
            elif isinstance(node, ast.Import) and any("tapejax.debug" in a.name for a in node.names):
                offenders.append(f"{rel}:{node.lineno}")
    assert not offenders, offenders

# -- gradcheck ----------------------------------------------------------------------------------------

def test_gradcheck_passes_on_correct_gradients_several_args():
    x = np.array([0.3, -1.2, 2.0], np.float32)
    w = tj.constant(np.array([[0.5, -0.1], [0.2, 0.3], [1.0, 0.7]], np.float32))
    r = debug.gradcheck(lambda a, b: tnp.tanh(a @ b) * 2.0, x, w)
    assert r and r.ok and r.checked == 3 + 6
    assert r.max_abs_error < 1e-3
    assert r.analytic[1].shape == (3, 2)
    assert "ok" in str(r)


def test_gradcheck_reports_worst_element_of_a_wrong_gradient():
    @tj.custom_gradient
    def bad_square(a):
        def grad(dy):  # correct is 2a; wrong on the last element only
            return dy * 2.0 * a + tnp.where(tnp.arange(3) == 2, 5.0, 0.0)
        return a * a, grad

    x = np.array([0.5, 1.0, -2.0], np.float32)
    r = debug.gradcheck(lambda a: bad_square(a), x)
    assert not r
    assert r.worst["index"] == (2,) and r.worst["arg"] == 0
    assert r.worst["analytic"] == pytest.approx(-4.0 + 5.0, abs=1e-4)
    assert r.worst["numeric"] == pytest.approx(-4.0, abs=1e-2)
    assert "FAILED" in str(r) and "(2,)" in str(r)
    with pytest.raises(debug.GradcheckError, match="worst: arg 0 element"):
        debug.gradcheck(lambda a: bad_square(a), x, raise_on_failure=True)


def test_gradcheck_variable_argument_is_restored_and_int_args_pass_through():
    v = tj.Variable([1.0, 2.0])
    r = debug.gradcheck(lambda var, k: tnp.sum(var * var) * k, v, 3)
    assert r and r.checked == 2
    np.testing.assert_allclose(r.analytic[0], [6.0, 12.0], rtol=1e-5)
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_gradcheck_max_elements_subsets():
    x = np.linspace(-1, 1, 50).astype(np.float32)
    r = debug.gradcheck(lambda a: tnp.sin(a), x, max_elements=7)
    assert r and r.checked == 7
    assert np.isnan(r.numeric[0]).sum() == 43


def test_gradcheck_of_parameter_structures_and_complex_arguments():
    """Parameters in a list, tuple or dict (a model's weights) are checked leaf by leaf and f gets the structure
    (a list of different shapes raised inside tj.numpy.stack, one of equal shapes reached f stacked, a tuple or
    dict had "no floating-point argument"); a list of numbers is still one array. A complex argument moves along
    its real and imaginary parts: the gradient of the real loss is dF/dx + i dF/dy, TF's (tf.test.compute_gradient
    agrees with the tape's [0.6+0.8j, 0.447-0.894j] for sum(abs(z)); gradcheck dropped the imaginary parts)."""
    w, b = tj.constant([[1.0, 2.0], [3.0, 4.0]]), tj.constant([0.5, -0.5])
    seen = []

    def loss(params, scale):
        seen.append(type(params))
        first, second = (params["w"], params["b"]) if isinstance(params, dict) else params
        return tnp.sum(tnp.tanh(first @ tnp.ones(2) * 0.1 + second)) * scale

    for params in ([w, b], (w, b), {"w": w, "b": b}):
        r = debug.gradcheck(loss, params, 2)
        assert r and r.checked == 6 and type(params) in seen
        assert [a.shape for a in r.analytic] == ([(2,), (2, 2)] if isinstance(params, dict) else [(2, 2), (2,)])
    r = debug.gradcheck(lambda v: tnp.sum(v * v), [1.0, 2.0])
    assert r and r.checked == 2
    np.testing.assert_allclose(r.analytic[0], [2.0, 4.0], rtol=1e-6)

    z = tj.constant(np.array([3 + 4j, 1 - 2j], np.complex64))
    r = debug.gradcheck(lambda a: tnp.sum(tnp.abs(a)), z)
    assert r and r.checked == 2
    np.testing.assert_allclose(r.analytic[0], [0.6 + 0.8j, (1 - 2j) / np.sqrt(5)], rtol=1e-5)
    np.testing.assert_allclose(r.numeric[0], r.analytic[0], atol=1e-3)
    r = debug.gradcheck(lambda a: tnp.sum(tnp.imag(a) ** 2), z)
    assert r
    np.testing.assert_allclose(r.numeric[0], [8j, -4j], atol=1e-2)

    @tj.custom_gradient
    def conj_dropped(a):
        return tnp.abs(a), lambda dy: dy * tnp.real(a) / tnp.abs(a)  # (the imaginary part's derivative lost)

    assert not debug.gradcheck(lambda a: tnp.sum(conj_dropped(a)), z)


# -- explain_gradient ---------------------------------------------------------------------------------

def _explain_and_check(tape, target, source, reason):
    e = debug.explain_gradient(tape, target, source)
    assert e.reason == reason, e.message
    if tape._persistent:  # the explanation agrees with what gradient() returns
        g = tape.gradient(target, source)
        assert (g is None) == (reason != debug.GradientExplanation.CONNECTED)
    return e


def test_explain_connected():
    x = tj.constant([1.0, 2.0])
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tnp.sum(tnp.exp(x) * 2.0)
    e = _explain_and_check(tape, y, x, "connected")
    assert not e.is_none and [n for n, _ in e.path] == ["exp", "multiply", "sum"]


def test_explain_ops_with_no_gradient_and_unused_function_arguments():
    """TF gives None through floor/round/zeros_like and a tf.function result that ignores an argument, as
    tape.gradient does; explain_gradient said "connected, not None" (it followed every recorded input). A
    custom gradient on the path is named: its grad_fn may give None, which only running it shows. A None target
    raises TypeError, as tape.gradient(None, x)."""
    @tj.function
    def ignores_a(a, b):
        return tnp.sum(b * 2.0)

    @tj.custom_gradient
    def no_grad(x):
        return x * 2.0, lambda dy: None

    for make, op in ((lambda x: tnp.sum(tnp.floor(x)), "floor"), (lambda x: tnp.sum(tnp.round(x)), "round"),
                     (lambda x: tnp.sum(tnp.zeros_like(x)), "zeros_like"),
                     (lambda x: ignores_a(x, tj.constant([1.0, 2.0])), "function:ignores_a")):
        x = tj.constant([1.3, 2.7])
        with tj.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = make(x)
        e = _explain_and_check(tape, y, x, "no_path")
        assert f"crosses op '{op}'" in e.message and "does not depend" in e.message
    x = tj.constant([1.3, 2.7])
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tnp.sum(no_grad(x)) + tnp.sum(tnp.floor(x))
    e = debug.explain_gradient(tape, y, x)
    assert e.reason == "connected" and "unless the custom gradient of 'no_grad' returns None" in e.message
    with pytest.raises(TypeError, match="received None"):
        debug.explain_gradient(tape, None, x)
    assert debug.explain_gradient(tape, [None], x).reason == "no_path"


def test_explain_not_watched_tensor_and_variable():
    x = tj.constant([1.0, 2.0])
    v = tj.Variable([1.0], trainable=False)
    with tj.GradientTape(persistent=True) as tape:
        y = tnp.sum(x * 2.0) + tnp.sum(v * 1.0)
    e = _explain_and_check(tape, y, x, "not_watched")
    assert "tape.watch" in e.message
    e = _explain_and_check(tape, y, v, "not_watched")
    assert "trainable" in e.message


def test_explain_no_path():
    x = tj.constant([1.0, 2.0])
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tnp.sum(x * 2.0)
        z = tj.constant(np.asarray(y.value)) * 3.0  # left tapejax through jax and came back
        other = tnp.sum(tj.constant([3.0]) * 2.0)
    _explain_and_check(tape, z, x, "no_path")
    e = _explain_and_check(tape, other, x, "no_path")
    assert "no op recorded" in e.message


def test_explain_stop_gradient():
    x = tj.constant([1.0, 2.0])
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        h = tnp.exp(x)
        y = tnp.sum(tj.stop_gradient(h) * 3.0)
    e = _explain_and_check(tape, y, x, "stop_gradient")
    assert "stop_gradient" in e.message
    assert ("stop_gradient", "stop_gradient") in e.path


@pytest.mark.parametrize("how", ["tape", "global"])
def test_explain_stop_recording(how):
    x = tj.constant([1.0, 2.0])
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        h = tnp.exp(x)
        with (tape.stop_recording() if how == "tape" else tj.stop_recording()):
            u = h * 2.0
        y = tnp.sum(u + 1.0)
    e = _explain_and_check(tape, y, x, "stop_recording")
    assert "'multiply'" in e.message


def test_explain_non_float_path_comparison_and_cast():
    x = tj.constant([1.0, -2.0])
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        mask = (x > 0).astype(tnp.float32)
        y1 = tnp.sum(mask * 2.0)
        y2 = tnp.sum(x.astype(tnp.int32).astype(tnp.float32))  # the int tensor dies at once
    e1 = _explain_and_check(tape, y1, x, "non_float")
    assert "bool" in e1.message
    e2 = _explain_and_check(tape, y2, x, "non_float")
    assert "int32" in e2.message


def test_explain_non_float_source_and_target():
    i = tj.constant([1, 2])
    x = tj.constant([1.0, 2.0])
    with pytest.warns(UserWarning):
        with tj.GradientTape(persistent=True) as tape:
            tape.watch(i)
            tape.watch(x)
            y = tnp.sum(x * 2.0)
            k = tnp.argmax(x)
    assert debug.explain_gradient(tape, y, i).reason == "non_float"
    assert debug.explain_gradient(tape, k, x).reason == "non_float"


def test_explain_tape_used():
    x = tj.constant([1.0, 2.0])
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.sum(x * 2.0)
    assert debug.explain_gradient(tape, y, x).reason == "connected"  # before use: fine
    tape.gradient(y, x)
    e = debug.explain_gradient(tape, y, x)
    assert e.reason == "tape_used" and "persistent=True" in e.message
    with pytest.raises(RuntimeError):
        tape.gradient(y, x)


def test_markers_only_while_a_tape_is_active():
    x = tj.constant([1.0])
    tnp.exp(x)  # no tape: nothing anywhere
    with tj.GradientTape() as tape:
        pass
    assert "_debug_lineage" not in tape._tape.__dict__
    with tj.GradientTape() as tape2:
        tnp.exp(x)  # unwatched: a marker
    assert len(tape2._tape.__dict__["_debug_lineage"]) == 1


# -- summary, DOT, render --------------------------------------------------------------------------------

def _recorded():
    x = tj.constant(np.ones(1000, np.float32))
    tape = tj.GradientTape(persistent=True)
    with tape:
        tape.watch(x)
        y = tnp.exp(x)
        z = tnp.sin(y)          # keeps its input y, which exp keeps too (the same array)
        s = tnp.sum(z)
    return tape, x, (y, z, s)


def test_summary_rows_bytes_and_totals():
    tape, x, keep = _recorded()
    sm = debug.summary(tape)
    assert [r["op"] for r in sm.rows] == ["exp", "sin", "sum"]
    assert sm.rows[0]["outputs"][0][1:] == ((1000,), "float32")
    assert sm.rows[2]["outputs"][0][1:] == ((), "float32")
    for r in sm.rows[:2]:  # exp and sin keep whole (1000,) float32 arrays (input and/or output)
        assert r["residual_bytes"] >= 4000 and r["residual_bytes"] % 4000 == 0
    assert sm.rows[2]["residual_bytes"] < 4000  # sum keeps at most a shape carrier
    assert sm.total_residual_bytes == sum(r["residual_bytes"] for r in sm.rows)
    assert sm.unique_residual_bytes < sm.total_residual_bytes  # exp's output is sin's input: one array
    assert sm.watched == [x.id]
    text = str(sm)
    assert "exp" in text and "(1000,) float32" in text and "3 ops" in text
    html = sm._repr_html_()
    assert html.count("<tr>") == 1 + 3 + 1 and "<table>" in html and "sin" in html


def test_summary_refuses_a_used_tape():
    x = tj.constant([1.0])
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.sum(x * 2.0)
    tape.gradient(y, x)
    with pytest.raises(ValueError, match="already used"):
        debug.summary(tape)


def test_to_dot_has_ops_tensors_and_edges():
    tape, x, (y, z, s) = _recorded()
    dot = debug.to_dot(tape)
    assert dot.startswith("digraph tape {") and dot.rstrip().endswith("}")
    assert dot.count("shape=box") == 3
    assert f"t{x.id} -> op" in dot and f"-> t{s.id};" in dot
    assert "fillcolor=\"#ffe08a\"" in dot  # the watched tensor is shaded


def test_to_dot_escapes_names():
    v = tj.Variable(1.0, name='w"1\\x')  # (a name TF accepts: quotes and a backslash)
    with tj.GradientTape() as tape:
        y = v * 2.0
    dot = debug.to_dot(tape)
    assert 'label="w\\"1\\\\x:0"' in dot and f"-> t{y.id};" in dot


def test_render_graph_without_dot_writes_dot_file(tmp_path, monkeypatch):
    tape, _, keep = _recorded()
    monkeypatch.setattr(draw.shutil, "which", lambda name: None)
    out = debug.render_graph(tape, str(tmp_path / "g.png"))
    assert out is None
    assert (tmp_path / "g.dot").read_text().startswith("digraph")
    assert not (tmp_path / "g.png").exists()


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` not installed")
def test_render_graph_png_with_dot(tmp_path):
    tape, _, keep = _recorded()
    out = debug.render_graph(tape, str(tmp_path / "g.png"))
    assert out and open(out, "rb").read(8) == b"\x89PNG\r\n\x1a\n"


def test_debug_is_exported():
    assert tj.debug is debug and "debug" in tj.__all__
