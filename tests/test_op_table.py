"""The op table (op_table.py): a list slot per op, ids relative to the op's own, bound on reading."""
import numpy as np
import pytest

import tapejax as tj
from tapejax.op_table import OpTable
from tapejax.tape import RecordedOp

tnp = tj.numpy


class Rec(RecordedOp):
    __slots__ = ()
    op_type = "rec"
    out_infos = (((), np.float32, None),)

    def __init__(self) -> None:
        self.outs = self.ins = None

    def release(self) -> None:
        pass


def _table(op_ids, inputs_back=1):
    table, recs = OpTable(), {}
    for i in op_ids:
        rec = recs[i] = Rec()
        table.add(i, rec, (i,), (i - inputs_back,))
    return table, recs


def test_a_record_in_the_list_keeps_ids_relative_and_reading_it_binds_absolute_ids():
    table, recs = _table([1000, 1001, 1002])
    rec = recs[1001]
    assert (rec.outs, rec.ins) == (0, 1)  # small ints CPython shares: nothing kept per op of the ids
    assert table.ids(1001) == ((1001,), (1000,)) and (rec.outs, rec.ins) == (0, 1)  # (not bound by ids())
    assert 1001 in table and 999 not in table and 1003 not in table and len(table) == 3
    assert table[1001] is rec
    assert rec.out_ids == (1001,) and rec.input_ids == (1000,)
    assert table.bound == {1001: rec} and len(table.slots) - table.holes == 2 and len(table) == 3
    assert table[1001] is rec and table.ids(1001) == ((1001,), (1000,))  # read again: the same


def test_multi_output_and_multi_input_records_round_trip():
    table = OpTable()
    rec = Rec()
    table.add(50, rec, (50, 51, 52), (7, 49))
    assert rec.outs == (0, -1, -2) and rec.ins == (43, 1)
    assert table.ids(50) == ((50, 51, 52), (7, 49))
    assert table.pop(50) is rec and rec.out_ids == (50, 51, 52) and rec.input_ids == (7, 49)
    assert 50 not in table and len(table) == 0 and table.pop(50) is None


def test_gaps_cost_a_slot_far_ids_and_ids_below_the_base_go_to_the_dict():
    table, recs = _table([100, 105])
    assert table.slots[1:5] == [None] * 4 and table.holes == 4 and 103 not in table and table.get(103) is None
    table.add(103, Rec(), (103,), (102,))  # a gap's slot filled
    assert table.holes == 3 and table.ids(103) == ((103,), (102,)) and len(table) == 3
    del table[103]
    far = 106 + 1024 + 7  # past the list's end by more than the gap it may fill
    low = 90
    for i in (far, low):
        recs[i] = Rec()
        table.add(i, recs[i], (i,), (i - 3,))
    assert far in table.bound and low in table.bound and recs[low].out_ids == (low,)
    assert list(table) == [low, 100, 105, far]
    assert {i: e.input_ids for i, e in table.items()} == {low: (87,), 100: (99,), 105: (104,), far: (far - 3,)}


def test_deleting_ops_drops_the_slots_at_the_ends_and_an_empty_table_starts_afresh():
    table, recs = _table(range(1000, 1200))
    for i in range(1000, 1150):
        del table[i]
    assert table.base >= 1100 and len(table.slots) <= 100 and len(table) == 50
    assert [table.ids(i) for i in (1150, 1199)] == [((1150,), (1149,)), ((1199,), (1198,))]
    with pytest.raises(KeyError):
        del table[1000]
    for i in range(1150, 1200):
        del table[i]
    assert table.slots == [] and len(table) == 0 and table == {}
    table.add(5, Rec(), (5,), (4,))
    assert table.base == 5 and table.ids(5) == ((5,), (4,))


def test_ops_dying_after_a_live_one_cost_no_refill_and_the_list_stays_short():
    # One op kept alive, then each later op deleted as soon as it is added (results dropped at once): popping
    # the trailing holes made the next add put them back, a cost per op as long as the ops since the live one.
    # Now the few records left among many holes are bound and the list starts afresh: short, never refilled.
    table, recs = _table([1000])
    for i in range(1001, 1300):
        table.add(i, Rec(), (i,), (1000,))
        assert len(table.slots) <= 64  # (a list as long as the ops since the live one: the quadratic refill)
        del table[i]
    assert len(table) == 1 and 1000 in table.bound and table.ids(1000) == ((1000,), (999,))
    assert table[1000] is recs[1000] and list(table) == [1000]
    del table[1000]
    assert table.slots == [] and len(table) == 0 and table.bound == {}


def test_the_table_compares_and_reads_as_a_mapping():
    table, recs = _table([3, 4])
    assert table == {3: recs[3], 4: recs[4]} and table.get(4) is recs[4] and table.get(9, "no") == "no"
    assert None not in table and "3" not in table and table.get(None) is None
    with pytest.raises(KeyError):
        table[9]


def _sin_chain(x, n):
    y = x
    for _ in range(n):
        y = tnp.sin(y)
    return y


def _grad_of_sin_chain(xv, n):
    g = np.ones_like(xv)
    y = xv
    for _ in range(n):
        g = g * np.cos(y)
        y = np.sin(y)
    return g


@pytest.mark.parametrize("lazy", [False, True])
def test_a_persistent_tape_gives_the_same_gradient_twice_once_its_ops_are_bound(lazy):
    xv = np.array([0.3, -1.2, 2.0], dtype=np.float32)
    x = tj.constant(xv)
    with tj.config.override(lazy=lazy), tj.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = _sin_chain(x, 5)
    g1 = np.asarray(tape.gradient(y, x))
    g2 = np.asarray(tape.gradient(y, x))
    np.testing.assert_allclose(g1, _grad_of_sin_chain(xv, 5), rtol=1e-5)
    np.testing.assert_array_equal(g1, g2)


def test_ops_recorded_far_apart_in_ids_give_the_right_gradient():
    # Thousands of tensors made between recorded ops (gaps past what the list fills: those ops go to the
    # dict), and an input watched long before its use (a relative id too large for a shared int).
    xv = np.array([0.5, 1.5], dtype=np.float32)
    x = tj.constant(xv)
    with tj.config.override(lazy=False), tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.sin(x)
        junk = [tj.constant(1.0) for _ in range(3000)]
        z = y * x
        junk += [tj.constant(1.0) for _ in range(300)]
        w = tnp.sin(z)
    del junk
    g = np.asarray(tape.gradient(w, x))
    s = np.sin(xv)
    np.testing.assert_allclose(g, np.cos(s * xv) * (np.cos(xv) * xv + s), rtol=1e-5)
