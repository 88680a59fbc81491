"""The tape's bookkeeping where TF 2.21 has a rule of its own, found by tools/tf_tape_protocol_differential.py
(each expected value is TF's, from that tool's twin runs): when ``watch`` takes effect, what a tape's
``stop_recording()`` block does to the tape, the order of the checks of ``gradient``/``jacobian``/
``batch_jacobian``/``ForwardAccumulator`` (which error a call with two problems raises, and that a call that
raises leaves the tape recording), which reads make a Variable watched, and TF's advice when a persistent tape
computes inside its context."""
from __future__ import annotations

import logging
import warnings

import numpy as np
import pytest

import tapejax as tj
from tapejax import backprop


def _value(g):
    return None if g is None else np.asarray(g).tolist()


# -- watch: only while something records; never on a tape without its recording state ---------------------

def test_watch_on_a_tape_never_entered_raises_attribute_error():
    """TF: AttributeError (its tape object is None until the first ``with``)."""
    x = tj.constant(2.0)
    t = tj.GradientTape()
    with pytest.raises(AttributeError, match="never entered"):
        t.watch(x)
    with pytest.raises(ValueError, match="ndarray"):  # (the argument is checked first, as TF)
        t.watch(np.array(1.0))


def test_watch_while_no_tape_records_does_nothing():
    """TF: a watch between two ``with`` blocks of a persistent tape, inside the tape's own
    stop_recording(), or under the global stop, is dropped: the gradient is None."""
    x = tj.constant(2.0)
    t = tj.GradientTape(persistent=True)
    with t:
        pass
    t.watch(x)
    with t:
        y = x * x
    assert t.gradient(y, x) is None

    with tj.GradientTape() as t:
        with t.stop_recording():
            t.watch(x)
        y = x * x
    assert t.gradient(y, x) is None

    with tj.GradientTape() as t:
        with tj.stop_recording():
            t.watch(x)
        y = x * x
    assert t.gradient(y, x) is None

    v = tj.Variable(1.0)
    with tj.GradientTape(watch_accessed_variables=False) as t:
        with t.stop_recording():
            t.watch(v)
    assert t.watched_variables() == ()


def test_watch_while_another_tape_records_takes_effect():
    """TF watches whenever some tape records on the thread, not only this one."""
    x = tj.constant(2.0)
    t = tj.GradientTape(persistent=True)
    with t:
        pass
    with tj.GradientTape():
        t.watch(x)
    with t:
        y = x * x
    np.testing.assert_allclose(t.gradient(y, x).numpy(), 4.0)


def test_an_accumulator_does_not_make_a_watch_take_effect():
    """TF's watch looks at the tapes only (CouldBackprop): with nothing but a ForwardAccumulator recording (this
    tape exited, or inside its stop_recording()) it is dropped. TF 2.21: None, and no watched variable (tape
    protocol differential, seed 21990)."""
    x, v = tj.constant(2.0), tj.Variable(1.0)
    t = tj.GradientTape(persistent=True)
    with t:
        pass
    with tj.ForwardAccumulator(x, tj.constant(1.0)):
        t.watch(x)
    with t:
        y = x * x
    assert t.gradient(y, x) is None
    with tj.GradientTape() as t:
        with t.stop_recording():
            with tj.ForwardAccumulator(x, tj.constant(1.0)):
                t.watch([x, v])
        y = x * x
    assert t.watched_variables() == () and t.gradient(y, x) is None


# -- a tape's stop_recording(): the tape is not recording inside -----------------------------------------

def test_inside_stop_recording_the_tape_is_not_recording():
    """TF: a nested stop_recording() and reset() raise ValueError('Tape is not recording.'); ``with tape:``
    enters it again; the block ends with the tape recording."""
    x = tj.constant(2.0)
    with tj.GradientTape(persistent=True) as t:
        t.watch(x)
        with t.stop_recording():
            with pytest.raises(ValueError, match="not recording"):
                t.reset()
            with t:
                y = x * x  # recorded: the tape was entered again
            u = x * 7.0  # not recorded: the block goes on after that ``with``
        z = x * 5.0
        s = y + z
    np.testing.assert_allclose(t.gradient(s, x).numpy(), 9.0)  # TF: 9.0 and None
    assert t.gradient(u, x) is None


def test_a_non_persistent_tape_used_inside_stop_recording_records_afresh():
    """TF: a non-persistent tape used up inside its stop_recording() block is a new tape at the block's end,
    so a later gradient is None (not a RuntimeError)."""
    x = tj.constant(2.0)
    with tj.GradientTape() as t:
        t.watch(x)
        y = x * x
        with t.stop_recording():
            np.testing.assert_allclose(t.gradient(y, x).numpy(), 4.0)
        z = x * 5.0
    assert t.gradient(z, x) is None


# -- which error a call with two problems raises, and no state lost on an error --------------------------

def test_batch_jacobian_that_raises_leaves_the_tape_recording():
    """TF: the shapes are checked before the tape stops recording."""
    x = tj.constant([1.0, 2.0])
    with tj.GradientTape() as t:
        t.watch(x)
        with pytest.raises(ValueError):
            t.batch_jacobian(x * 2.0, x)
        y = x * x
    assert _value(t.gradient(y, x)) == [2.0, 4.0]



@pytest.mark.parametrize("persistent", [False, True])
@pytest.mark.parametrize("what", ["jacobian", "batch_jacobian"])
def test_a_bad_unconnected_gradients_in_a_jacobian_stops_a_non_persistent_tape(what, persistent):
    """TF reads unconnected_gradients in the first row's gradient call, after that call stopped a
    non-persistent tape recording (TF 2.21: reset() then raises 'Tape is not recording'); a persistent tape
    goes on recording."""
    x = tj.constant([[1.0, 2.0]])
    with tj.GradientTape(persistent=persistent) as t:
        t.watch(x)
        with pytest.raises(ValueError, match="unconnected_gradients"):
            getattr(t, what)(x * 2.0, x, unconnected_gradients="bogus")
        if persistent:
            t.reset()
        else:
            with pytest.raises(ValueError, match="not recording"):
                t.reset()
def test_batch_jacobian_shape_errors_come_first():
    """TF: a scalar target fails indexing its shape (IndexError); a rank-1 target's ValueError comes before
    the non-persistent tape's RuntimeError for experimental_use_pfor=False."""
    x = tj.constant([1.0, 2.0])
    with tj.GradientTape() as t:
        t.watch(x)
        with pytest.raises(IndexError):
            t.batch_jacobian((x * x)[0], x)
        with pytest.raises(ValueError, match="rank at least 2"):
            t.batch_jacobian(x * x, x, experimental_use_pfor=False)


def test_check_order_of_gradient_and_jacobian():
    """TF: a used tape's RuntimeError before a bad unconnected_gradients, a None target's TypeError too, and
    the non-persistent RuntimeError of experimental_use_pfor=False before it."""
    x = tj.constant(1.0)
    with tj.GradientTape() as t:
        t.watch(x)
        y = x * x
    t.gradient(y, x)
    with pytest.raises(RuntimeError):
        t.jacobian(y, x, unconnected_gradients="bogus")
    with tj.GradientTape() as t:
        pass
    with pytest.raises(TypeError):
        t.gradient(None, x, unconnected_gradients="bogus")
    with tj.GradientTape() as t:
        t.watch(x)
        y = x * x
        with pytest.raises(RuntimeError):
            t.jacobian(y, x, unconnected_gradients="bogus", experimental_use_pfor=False)


def test_forward_accumulator_duplicate_primal_checked_first():
    """TF: a primal given twice is a ValueError before the tangents' structure (list against tuple) and
    before an int primal's warning."""
    x = tj.constant(1.0)
    with pytest.raises(ValueError, match="multiple times"):
        tj.ForwardAccumulator([x, x], (tj.constant(1.0), tj.constant(1.0)))
    i = tj.constant([1, 2])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match="multiple times"):
            tj.ForwardAccumulator([i, i], [i, i])
    assert not caught


# -- which reads watch a Variable --------------------------------------------------------------------------

def test_jacobian_of_a_variable_reads_it_on_the_tape():
    """TF reads a Variable target through a reshape recorded on the tape: not trainable, so not watched, its
    Jacobian with respect to itself is None (its gradient ones); trainable, it becomes watched."""
    v = tj.Variable([1.0, 2.0], trainable=False)
    with tj.GradientTape(persistent=True) as t:
        pass
    assert t.jacobian(v, v) is None
    assert _value(t.gradient(v, v)) == [1.0, 1.0]

    w = tj.Variable([1.0, 2.0])
    x = tj.constant([1.0, 2.0])
    with tj.GradientTape() as t:
        t.watch(x)
        t.jacobian(w, x)
    assert t.watched_variables() == (w,)

    w2 = tj.Variable([[1.0, 2.0]])
    t = tj.GradientTape()
    with t:
        with pytest.raises(RuntimeError):
            t.jacobian(w2, x, experimental_use_pfor=False)
    assert t.watched_variables() == (w2,)  # (read before the RuntimeError, as TF)


def test_jacobian_under_global_stop_recording_is_unconnected():
    """TF reads the target through a reshape recorded on the tape: under the thread's stop_recording it is not
    recorded, so every Jacobian is None (batch_jacobian: zeros), though gradient() works (seed 12836)."""
    x = tj.constant([[1.0, 2.0]])
    with tj.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x
        with tj.stop_recording():
            assert t.jacobian(y, [x, y]) == [None, None]
            assert not np.any(t.batch_jacobian(y, x).numpy())
            np.testing.assert_allclose(t.gradient(y, x).numpy(), [[2.0, 4.0]])
    np.testing.assert_allclose(t.jacobian(y, x).numpy().reshape(2, 2), [[2.0, 0.0], [0.0, 4.0]])


def test_zero_gradient_of_a_variable_inside_a_persistent_context_watches_it():
    """TF makes the zeros of an unconnected Variable source by reading it, on the recording tape."""
    v = tj.Variable([1.0, 2.0])
    x = tj.constant(1.0)
    with tj.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * 2.0
        gx, gv = t.gradient(y, [x, v], unconnected_gradients="zero")
    assert _value(gv) == [0.0, 0.0]
    assert t.watched_variables() == (v,)


def test_stop_gradient_of_a_variable_does_not_watch_it():
    """TF stops recording around stop_gradient's op, so the Variable's read there is not an access."""
    v = tj.Variable([1.0, 2.0])
    with tj.GradientTape() as t:
        y = tj.stop_gradient(v)
    assert t.watched_variables() == ()
    assert _value(y) == [1.0, 2.0]
    assert t.gradient(y, v) is None


# -- TF's advice --------------------------------------------------------------------------------------------

def test_gradient_on_a_persistent_tape_inside_its_context_logs_once(caplog):
    """TF logs (once per process) that computing inside a persistent tape's context records the computation."""
    x = tj.constant(2.0)
    backprop.persistent_in_context_warned = False
    with caplog.at_level(logging.WARNING, logger="tapejax"):
        for _ in range(2):
            with tj.GradientTape(persistent=True) as t:
                t.watch(x)
                y = x * x
                t.gradient(y, x)
        with tj.GradientTape(persistent=True) as t:  # (outside the context: nothing to say)
            t.watch(x)
            y = x * x
        t.gradient(y, x)
    said = [r for r in caplog.records if "persistent tape inside its context" in r.getMessage()]
    assert len(said) == 1
