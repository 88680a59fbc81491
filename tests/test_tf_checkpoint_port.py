"""TF's own checkpoint tests, ported to tapejax where they found a difference.

Sources (values and behaviour from TF 2.21, noted beside each; TF is not imported here):
tensorflow/python/checkpoint/checkpoint_management_test.py (CheckpointManagerTest) and
tensorflow/python/checkpoint/checkpoint_test.py (CheckpointingTests). ``checkpoint_management.checkpoint_exists``
is ``os.path.exists`` here (a checkpoint is a directory); TF's file format (object graph, ``.index``
files, the ``checkpoint`` state proto) is not ported.
"""
from __future__ import annotations

import copy
import gc
import logging
import os
import pathlib
import weakref
from unittest import mock

import pytest

import tapejax as tj
from tapejax.train import checkpoint as checkpoint_module

Checkpoint, CheckpointManager = tj.train.Checkpoint, tj.train.CheckpointManager
exists = os.path.exists


# -- CheckpointManager (checkpoint_management_test.py) --------------------------------------------------

def test_manager_of_an_empty_checkpoint_deletes_beyond_max_to_keep(tmp_path):
    # testDeletion: tf.train.Checkpoint() (no objects) saves; the first of four is deleted with max_to_keep=3.
    manager = CheckpointManager(Checkpoint(), tmp_path, max_to_keep=3)
    first, second, third, fourth = (manager.save() for _ in range(4))
    assert [os.path.basename(p) for p in (first, fourth)] == ["ckpt-1", "ckpt-4"]  # TF's names
    assert not exists(first) and exists(second) and exists(third) and exists(fourth)


def test_keep_all_and_a_reopened_manager_takes_over(tmp_path):
    # testKeepAll
    checkpoint = Checkpoint()
    manager = CheckpointManager(checkpoint, tmp_path, max_to_keep=None)
    first, second, third = manager.save(), manager.save(), manager.save()
    assert third == manager.latest_checkpoint and manager.checkpoints == [first, second, third]
    manager = CheckpointManager(checkpoint, tmp_path, max_to_keep=None)
    fourth = manager.save()
    assert manager.checkpoints == [first, second, third, fourth]
    manager = CheckpointManager(checkpoint, tmp_path, max_to_keep=3)
    assert manager.checkpoints == [first, second, third, fourth] and all(map(exists, manager.checkpoints))
    fifth = manager.save()
    assert manager.checkpoints == [third, fourth, fifth]
    assert not exists(first) and not exists(second) and exists(third)


def test_keep_checkpoint_every_n_hours_across_managers(tmp_path):
    # testSaveRestoreState, with the manager's clock mocked as TF's test does.
    directory = str(tmp_path)
    name = lambda n: os.path.join(directory, f"ckpt-{n}")  # noqa: E731
    with mock.patch.object(checkpoint_module, "time") as clock:
        clock.time.return_value = 3.0
        checkpoint = Checkpoint()
        first_manager = CheckpointManager(checkpoint, directory, max_to_keep=2)
        clock.time.return_value = first_time = 10000.0
        first_manager.save()
        clock.time.return_value = second_time = first_time + 3610.0
        first_manager.save()
        assert first_manager.checkpoints == [name(1), name(2)] and first_manager.latest_checkpoint == name(2)

        second_manager = CheckpointManager(checkpoint, directory, max_to_keep=2, keep_checkpoint_every_n_hours=1.5)
        assert second_manager.checkpoints == [name(1), name(2)] and second_manager.latest_checkpoint == name(2)
        clock.time.return_value = third_time = second_time + 3600.0 * 0.2
        second_manager.save()
        # ckpt-1 is kept (1.5 h after the last preserved one) and leaves the managed list
        assert exists(name(1)) and exists(name(2)) and second_manager.checkpoints == [name(2), name(3)]
        clock.time.return_value = fourth_time = third_time + 3600.0 * 0.5
        second_manager.save()
        assert exists(name(1)) and not exists(name(2)) and second_manager.checkpoints == [name(3), name(4)]
        clock.time.return_value = fourth_time + 3600.0 * 0.5
        second_manager.save()
        assert second_manager.checkpoints == [name(4), name(5)]

        third_manager = CheckpointManager(checkpoint, directory, max_to_keep=2, keep_checkpoint_every_n_hours=1.5)
        assert third_manager.latest_checkpoint == name(5)
        clock.time.return_value += 10.0
        third_manager.save()
        assert [exists(name(n)) for n in range(1, 7)] == [True, False, False, True, True, True]
        assert third_manager.checkpoints == [name(5), name(6)]


def test_clock_reset_keeps_the_checkpoints_it_cannot_place(tmp_path, caplog):
    # testClockReset
    with mock.patch.object(checkpoint_module, "time") as clock:
        clock.time.return_value = 10000.0
        checkpoint = Checkpoint()
        first_manager = CheckpointManager(checkpoint, tmp_path, max_to_keep=1, keep_checkpoint_every_n_hours=1.0)
        first = first_manager.save()
        clock.time.return_value += 3600.0
        second = first_manager.save()
        clock.time.return_value += 3600.0
        third = first_manager.save()
        assert not exists(first) and exists(second) and exists(third) and first_manager.checkpoints == [third]
        clock.time.return_value = 5000.0
        with caplog.at_level(logging.WARNING, logger="tapejax"):
            second_manager = CheckpointManager(checkpoint, tmp_path, max_to_keep=1)
        assert "behind the last preserved checkpoint timestamp" in caplog.text
        # known (latest) but never deleted, so not managed
        assert exists(second) and second_manager.latest_checkpoint == third and second_manager.checkpoints == []
        clock.time.return_value += 10.0
        fourth = second_manager.save()
        assert exists(second) and exists(third) and second_manager.checkpoints == [fourth]
        clock.time.return_value += 10.0
        fifth = second_manager.save()
        assert exists(second) and exists(third) and not exists(fourth) and second_manager.checkpoints == [fifth]


def test_continue_from_unmanaged_save(tmp_path):
    # testContinueFromUnmanaged: the manager's latest_checkpoint is the last Checkpoint.save in its
    # directory; restoring it sets save_counter to 2, so the manager numbers from 3 and never deletes
    # the unmanaged checkpoints.
    prefix = os.path.join(tmp_path, "unusual_prefix")
    checkpoint = Checkpoint()
    first, second = checkpoint.save(prefix), checkpoint.save(prefix)
    checkpoint = Checkpoint()
    manager = CheckpointManager(checkpoint, tmp_path, max_to_keep=2)
    assert manager.latest_checkpoint == second
    checkpoint.restore(manager.latest_checkpoint).run_restore_ops()
    assert int(checkpoint.save_counter.numpy()) == 2
    third = manager.save()
    assert os.path.basename(third) == "ckpt-3" and manager.checkpoints == [third]
    fourth = manager.save()
    fifth = manager.save()
    assert manager.checkpoints == [fourth, fifth]
    assert exists(first) and exists(second) and not exists(third) and exists(fourth) and exists(fifth)


def test_custom_numbering_from_a_variable_still_counts_saves(tmp_path):
    # testCustomNumbering: save(checkpoint_number=step) with an int Variable; save_counter still counts
    # every save (5); an int works too.
    step = tj.Variable(0)
    checkpoint = Checkpoint(step=step)
    manager = CheckpointManager(checkpoint, tmp_path, max_to_keep=2)
    for i in range(5):
        path = manager.save(checkpoint_number=step)
        assert path.endswith("-%d" % (2 * i))
        step.assign_add(2)
    assert int(checkpoint.save_counter.numpy()) == 5
    last_path = manager.save(checkpoint_number=32)
    assert "-32" in last_path and last_path == manager.latest_checkpoint == tj.train.latest_checkpoint(tmp_path)
    assert manager.checkpoints == [path, last_path]
    assert int(checkpoint.save_counter.numpy()) == 6
    checkpoint.restore(path)  # the counter is saved with each checkpoint
    assert int(checkpoint.save_counter.numpy()) == 5 and int(step.numpy()) == 8


def test_checkpoint_name_and_pathlib_directories(tmp_path):
    # testCustomCheckpointPrefix, testCheckpointManagerFSpathDirectory, testLatestCheckpointFSpathDirectory
    directory = pathlib.Path(tmp_path)
    manager = CheckpointManager(Checkpoint(), directory, max_to_keep=2, checkpoint_name="ckpt_name")
    assert os.path.basename(manager.save(checkpoint_number=5)) == "ckpt_name-5"
    other = CheckpointManager(Checkpoint(), directory, max_to_keep=2)
    assert os.path.basename(other.save(checkpoint_number=5)) == "ckpt-5"
    assert other.checkpoints == [str(directory / "ckpt-5")]  # each manager manages its own name

    v = tj.Variable(0.0)
    fresh = pathlib.Path(tmp_path / "fspath")
    manager = CheckpointManager(Checkpoint(v=v), fresh, max_to_keep=2, checkpoint_name="ckpt_name")
    assert manager.save() == str(fresh / "ckpt_name-1")
    assert manager.restore_or_initialize() == str(fresh / "ckpt_name-1")
    assert tj.train.latest_checkpoint(fresh) == str(fresh / "ckpt_name-1")


def test_restore_or_initialize_with_init_fn_restoring_another_checkpoint(tmp_path):
    # testRestoreOrInitialize
    init_path = Checkpoint(v=tj.Variable(2.0)).save(os.path.join(tmp_path, "init"))
    v = tj.Variable(1.0)
    checkpoint = Checkpoint(v=v)
    manager = CheckpointManager(checkpoint, os.path.join(tmp_path, "ckpt"), max_to_keep=None,
                                init_fn=lambda: checkpoint.restore(init_path).run_restore_ops())
    assert manager.restore_or_initialize() is None and float(v) == 2.0
    manager.save()
    assert manager.restore_or_initialize() is not None


def test_checkpoint_interval(tmp_path):
    # testCheckpointInterval, testCheckpointIntervalWithLastCheckpointStep, testCheckpointIntervalWithRestore
    step_counter = tj.Variable(0)
    manager = CheckpointManager(Checkpoint(v=tj.Variable(1.0)), tmp_path / "a", max_to_keep=None,
                                step_counter=step_counter, checkpoint_interval=2)
    assert manager.checkpoint_interval == 2
    assert exists(manager.save(check_interval=True))          # step 0: the first one is saved
    step_counter.assign_add(1)
    assert manager.save(check_interval=True) is None          # step 1
    step_counter.assign_add(1)
    assert exists(manager.save(check_interval=True))          # step 2
    assert manager.save(check_interval=True) is None          # step 2 again
    step_counter.assign_add(1)
    assert manager.save(check_interval=True) is None          # step 3
    assert exists(manager.save(check_interval=False))         # always

    step_counter = tj.Variable(1)
    manager = CheckpointManager(Checkpoint(v=tj.Variable(1.0)), tmp_path / "b", max_to_keep=None,
                                step_counter=step_counter, checkpoint_interval=2, last_checkpoint_step=1)
    assert manager.save(check_interval=True) is None
    step_counter.assign_add(1)
    assert manager.save(check_interval=True) is None
    step_counter.assign_add(1)
    assert exists(manager.save(check_interval=True))

    step_counter = tj.Variable(0)
    checkpoint = Checkpoint(v=tj.Variable(1.0))
    checkpoint.save(os.path.join(tmp_path, "c", "ckpt"))
    manager = CheckpointManager(checkpoint, tmp_path / "c", max_to_keep=None, step_counter=step_counter,
                                checkpoint_interval=2)
    assert manager.restore_or_initialize() is not None
    assert manager.save() is None  # restored at the same step


def test_manager_argument_errors_as_tf(tmp_path):
    # TF 2.21: ValueError "Expected a positive integer or `None` for `max_to_keep`, got 0." (and -1);
    # checkpoint_interval without step_counter: ValueError "`step_counter` should be passed if
    # `checkpoint_interval` is not None."
    for bad in (0, -1):
        with pytest.raises(ValueError, match="Expected a positive integer or `None` for `max_to_keep`"):
            CheckpointManager(Checkpoint(), tmp_path, max_to_keep=bad)
    with pytest.raises(ValueError, match="`step_counter` should be passed if `checkpoint_interval` is not None"):
        CheckpointManager(Checkpoint(), tmp_path, max_to_keep=1, checkpoint_interval=2)
    manager = CheckpointManager(Checkpoint(), tmp_path, 1, None, "ckpt")  # TF's positional order
    assert manager.directory == str(tmp_path) and manager.checkpoint_interval is None
    assert manager.save(None, True, None).endswith("ckpt-1")  # (checkpoint_number, check_interval, options)


# -- Checkpoint (checkpoint_test.py) ----------------------------------------------------------------------

def test_status_survives_its_checkpoint_and_deepcopy(tmp_path):
    # testAssertConsumedNoCheckpoint: status = ckpt.restore(save_path=...); del ckpt; status.assert_consumed()
    prefix = os.path.join(tmp_path, "ckpt")
    checkpoint = Checkpoint(v=tj.Variable(0.0))
    status = checkpoint.restore(save_path=checkpoint.save(file_prefix=prefix))
    del checkpoint
    status.assert_consumed()
    # testDeepCopyCheckpoint: the copy holds copies of the Variables
    v = tj.Variable(1.0)
    original = Checkpoint(v=v)
    copied = copy.deepcopy(original)
    copied.v.assign(2.0)
    assert float(v) == 1.0
    original.restore(save_path=copied.save(file_prefix=prefix)).assert_consumed()
    assert float(v) == 2.0


def test_partial_restore_keeps_unused_values_and_reports_them(tmp_path, caplog):
    # testPartialRestoreWarningAttribute / testAttributeException / testSilencePartialWarning: restoring a
    # checkpoint of (v1, v2) into a Checkpoint with only one of them restores it; assert_consumed() raises
    # AssertionError naming (root).v1; a warning naming it is logged when the restore is dropped, unless
    # expect_partial(); the partial Checkpoint is freed at once.
    save_path = Checkpoint(v1=tj.Variable(2.0), v2=tj.Variable(3.0)).save(os.path.join(tmp_path, "ckpt"))
    partial_root = Checkpoint(v1=tj.Variable(0.0))
    weak_root, weak_v1 = weakref.ref(partial_root), weakref.ref(partial_root.v1)
    with caplog.at_level(logging.WARNING, logger="tapejax"):
        partial_root.restore(save_path).expect_partial()
        assert float(partial_root.v1) == 2.0
        del partial_root
        assert weak_root() is None and weak_v1() is None
    assert caplog.text == ""

    partial_root = Checkpoint(v2=tj.Variable(0.0))
    status = partial_root.restore(save_path)
    assert float(partial_root.v2) == 3.0
    status.assert_existing_objects_matched().assert_nontrivial_match()
    with pytest.raises(AssertionError, match=r"Unresolved object in checkpoint \(root\).v1"):
        status.assert_consumed()
    with caplog.at_level(logging.WARNING, logger="tapejax"):
        del partial_root, status
        gc.collect()
    assert "(root).v1" in caplog.text and "(root).v2" not in caplog.text and "expect_partial()" in caplog.text


def test_restore_on_assignment(tmp_path):
    # testRestoreOnAssign: a Variable assigned to the Checkpoint after the restore gets its saved value then.
    first = Checkpoint()
    first.var1 = tj.Variable(0.0, name="outside_var")
    first.var2 = tj.Variable(0.0, name="blah")
    first.var1.assign(4.0)
    first.var2.assign(8.0)
    save_path = first.save(os.path.join(tmp_path, "ckpt"))
    second = Checkpoint()
    second.var2 = tj.Variable(0.0, name="blah")
    status = second.restore(save_path)
    recreated_var1 = tj.Variable(0.0, name="outside_var")
    status.run_restore_ops()
    assert float(second.var2) == 8.0
    recreated_var1.assign(-2.0)
    second.var1 = recreated_var1
    status.run_restore_ops()
    assert float(recreated_var1) == 4.0
    status.assert_consumed()


def test_restore_into_an_empty_checkpoint_then_assign(tmp_path):
    # testFreezing (object-based part): Checkpoint().restore(path) sets save_counter (12) at once; v
    # assigned afterwards is restored (3).
    v = tj.Variable(0)
    checkpoint = Checkpoint(v=v)
    v.assign(3)
    checkpoint.save_counter.assign(12)
    path = checkpoint.write(os.path.join(tmp_path, "ckpt"))  # (write stores save_counter once it exists)
    checkpoint = Checkpoint()
    status = checkpoint.restore(path)
    v = tj.Variable(0)
    assert int(checkpoint.save_counter.numpy()) == 12 and int(v.numpy()) == 0
    checkpoint.v = v
    status.assert_consumed().run_restore_ops()
    assert int(v.numpy()) == 3 and int(checkpoint.save_counter.numpy()) == 12


def test_late_dependencies_are_restored_when_the_status_is_used(tmp_path):
    # testLateDependencyTracking / testDepAfterVar: an object assigned before its Variable exists gets its
    # value once it does (TF: at the Variable's creation; here at the next use of the status).
    class Dependency(tj.Module):
        def build(self):
            self.var = tj.Variable(0.0)

    class LateDependencies(Checkpoint):
        def add_dep(self):
            self.dep = Dependency()
            self.dep.build()

    original = LateDependencies()
    original.add_dep()
    original.dep.var.assign(123.0)
    save_path = original.save(os.path.join(tmp_path, "ckpt"))
    load_into = LateDependencies()
    status = load_into.restore(save_path)
    status.assert_existing_objects_matched()
    with pytest.raises(AssertionError):
        status.assert_consumed()
    load_into.add_dep()
    status.assert_consumed()
    status.assert_existing_objects_matched().run_restore_ops()
    assert float(load_into.dep.var) == 123.0


def test_overlapping_restores_the_last_restore_wins(tmp_path):
    # testOverlappingRestores: with two pending restores, the Variable ends with the value of the restore
    # made last, whatever the order of the assignments.
    save_root = Checkpoint()
    save_root.dep = tj.Module()
    save_root.dep.var = tj.Variable(0.0)
    save_root.dep.var.assign(12.0)
    first_path = save_root.save(os.path.join(tmp_path, "first"))
    save_root.dep.var.assign(13.0)
    second_path = save_root.save(os.path.join(tmp_path, "second"))

    for order, expected in ((("first", "second"), (12.0, 13.0)), (("second", "first"), (12.0, 12.0))):
        roots = {"first": Checkpoint(), "second": Checkpoint()}
        statuses = {}
        for which in order:
            statuses[which] = roots[which].restore(first_path if which == "first" else second_path)
        load_dep = tj.Module()
        load_dep.var = tj.Variable(0.0)
        roots["first"].dep = load_dep
        statuses["first"].assert_consumed()
        assert float(load_dep.var) == expected[0]
        roots["second"].dep = load_dep
        statuses["second"].assert_consumed()
        assert float(load_dep.var) == expected[1], order


def test_empty_containers_and_newly_added_variables(tmp_path):
    # testEmptyContainersIgnored: Checkpoint(a=[]).save(directory) works; restoring it into
    # Checkpoint(b=[]) + dep=[[]] passes every assertion (the save counter matched).
    path = Checkpoint(a=[]).save(str(tmp_path))
    load_root = Checkpoint(b=[])
    load_root.dep = []
    load_root.dep.append([])
    status = load_root.restore(path)
    status.assert_consumed()
    status.assert_existing_objects_matched()
    status.assert_nontrivial_match()
    # testCheckpointStateChangingVarList: Variables added after a save keep their values when it is restored.
    prefix = os.path.join(tmp_path, "vars", "ckpt")
    checkpoint = Checkpoint(obj=tj.Variable(0.0))
    looped = []
    for i in range(10):
        setattr(checkpoint, "var_%d" % i, tj.Variable(i))
        checkpoint.save(prefix)
        looped.append(getattr(checkpoint, "var_%d" % i))
    assert tj.train.latest_checkpoint(os.path.dirname(prefix)) == prefix + "-10"
    for v in looped:
        v.assign(314)
    checkpoint.restore(prefix + "-6").run_restore_ops()
    assert [int(checkpoint.var_9), int(checkpoint.var_8), int(checkpoint.var_6), int(checkpoint.var_5),
            int(checkpoint.var_1), int(checkpoint.var_0)] == [314, 314, 314, 5, 1, 0]
    checkpoint.restore(prefix + "-10").run_restore_ops()
    assert [int(checkpoint.var_9), int(checkpoint.var_8), int(checkpoint.var_1)] == [9, 8, 1]


def test_dependency_loop(tmp_path):
    # testDependencyLoop (Checkpoints holding each other): saving ends (each Checkpoint walked once), and a
    # loaded loop gets both values, first deferred (assigned after the restore), then into existing Variables.
    first, second = Checkpoint(), Checkpoint()
    first.second = second
    second.first = first
    first.v = tj.Variable([3.0, 1.0, 4.0])
    second.v = tj.Variable([1.0, 1.0, 2.0, 3.0])
    assert list(first.variables()) == ["v", "second/v"]  # (breadth first, as TF)
    save_path = first.save(os.path.join(tmp_path, "ckpt"))

    first_load = Checkpoint()
    status = first_load.restore(save_path)
    second_load = Checkpoint()
    first_load.second = second_load
    second_load.first = first_load
    with pytest.raises(AssertionError):
        status.assert_consumed()
    first_load.v = tj.Variable([0.0, 0.0, 0.0])
    second_load.v = tj.Variable([0.0] * 4)
    status.assert_consumed()
    status.run_restore_ops()
    assert first_load.v.numpy().tolist() == [3.0, 1.0, 4.0] and second_load.v.numpy().tolist() == [1.0, 1.0, 2.0, 3.0]
    first_load.v.assign([2.0, 7.0, 1.0])
    second_load.v.assign([2.0, 7.0, 1.0, 8.0])
    first_load.restore(save_path).assert_consumed().run_restore_ops()
    assert first_load.v.numpy().tolist() == [3.0, 1.0, 4.0] and second_load.v.numpy().tolist() == [1.0, 1.0, 2.0, 3.0]


def test_restore_incompatible_shape_message(tmp_path):
    # test_restore_incompatible_shape: ValueError "incompatible tensor with shape"
    save_path = Checkpoint(v=tj.Variable([1.0, 1.0])).save(os.path.join(tmp_path, "ckpt"))
    w = tj.Variable([1.0])
    with pytest.raises(ValueError, match="incompatible tensor with shape"):
        Checkpoint(v=w).restore(save_path)
    assert w.numpy().tolist() == [1.0]


def test_restore_none_status_as_tf():
    # TF 2.21: restore(None).run_restore_ops() raises AssertionError ("No checkpoint specified, so no restore
    # ops are available"); initialize_or_restore() and expect_partial() are fine.
    status = Checkpoint(v=tj.Variable(1.0)).restore(None)
    with pytest.raises(AssertionError, match="No checkpoint specified"):
        status.run_restore_ops()
    status.initialize_or_restore()
    assert status.expect_partial() is status


def test_read_write_take_tfs_argument_names_and_paths(tmp_path):
    # test_save_restore_fspath / test_read_write_fspath / test_write_checkpoint_path_str (eagerly)
    v, w = tj.Variable(1.0), tj.Variable(0.0)
    prefix = pathlib.Path(tmp_path) / "ckpt"
    Checkpoint(v=w).restore(save_path=pathlib.Path(Checkpoint(v=v).save(file_prefix=prefix)))
    assert float(w) == 1.0
    w.assign(0.0)
    path = Checkpoint(v=v).write(file_prefix=prefix)
    status = Checkpoint(v=w).read(save_path=pathlib.Path(path))
    status.assert_existing_objects_matched().assert_consumed().run_restore_ops()
    assert float(w) == 1.0


# -- tf.Module._flatten (module_test.py, FlattenTest) ------------------------------------------------------

class _Member:
    pass


class _SimpleModule(tj.Module):
    def __init__(self, create_child=True, container_type=list):
        super().__init__()
        self.z = _Member()
        self.a = container_type([_Member(), _Member()])
        if create_child:
            self.c = _SimpleModule(create_child=False)


_NamedPair = __import__("collections").namedtuple("NamedPair", ("first", "second"))


@pytest.mark.parametrize("container_type", [lambda v: _NamedPair(*v), list, tuple, lambda v: dict(enumerate(v))])
def test_module_flatten(container_type):
    # FlattenTest.test_flatten
    is_member = lambda v: isinstance(v, _Member)  # noqa: E731
    parent = _SimpleModule(container_type=container_type)
    child = parent.c
    assert list(parent._flatten(recursive=False, predicate=is_member)) == [parent.a[0], parent.a[1], parent.z]
    assert list(parent._flatten(predicate=is_member)) == [parent.a[0], parent.a[1], parent.z,
                                                           child.a[0], child.a[1], child.z]


def test_module_flatten_attribute_traversal_key_and_paths():
    # FlattenTest.test_attribute_traversal_key: a subclass's `variables` made of _flatten in its own order
    is_variable = lambda v: isinstance(v, tj.Variable)  # noqa: E731

    class LayerModule(tj.Module):
        def __init__(self):
            super().__init__()
            self._trainable_variables = [tj.Variable(1.0, name="a"), tj.Variable(2.0, name="b")]
            self._non_trainable_variables = [tj.Variable(3.0, name="c"), tj.Variable(4.0, name="d")]
            self._bonus = tj.Variable(5.0, name="e")

        @property
        def variables(self):
            def key_function(name):
                return {"_trainable_variables": 0, "_non_trainable_variables": 1}.get(name, 2), name
            return list(self._flatten(predicate=is_variable, attribute_traversal_key=key_function))

    mod = LayerModule()
    expected = mod._trainable_variables + mod._non_trainable_variables + [mod._bonus]
    assert [v.name for v in mod.variables] == ["a:0", "b:0", "c:0", "d:0", "e:0"]
    assert all(a is b for a, b in zip(mod.variables, expected))

    # FlattenTest.test_with_path: with paths, a leaf once per path (the same module under two names too)
    mod = tj.Module()
    mod.w = tj.Variable(1.0)
    mod.encoder = tj.Module()
    mod.encoder.w = [({"k": mod.w}, {"k": mod.w})]
    mod.decoder = mod.encoder
    state = dict(mod._flatten(with_path=True, predicate=is_variable))
    assert set(state) == {("w",), ("encoder", "w", 0, 0, "k"), ("encoder", "w", 0, 1, "k"),
                          ("decoder", "w", 0, 0, "k"), ("decoder", "w", 0, 1, "k")}
    assert all(v is mod.w for v in state.values())

    # FlattenTest.test_raises_error_with_path
    m = tj.Module()
    m.layers = {object(): None, object(): None}
    with pytest.raises(ValueError, match="Error processing property 'layers'"):
        list(m._flatten())


def test_module_flatten_cycles_end():
    # a module reached again while being walked is not walked again (tf.Module's recursion stack)
    a, b = tj.Module(), tj.Module()
    a.b, b.a = b, a
    a.v = tj.Variable(1.0)
    assert [p for p, _ in a._flatten(with_path=True)] == [("b",), ("v",), ("b", "a"), ("b", "a", "b"), ("b", "a", "v")]
    assert list(a._flatten(predicate=lambda x: isinstance(x, tj.Variable))) == [a.v]


def test_relative_paths_are_returned_as_spelled(tmp_path, monkeypatch):
    # TF 2.21 in a fresh directory: c.save('rel/ckpt') -> 'rel/ckpt-1', c.write('rel/w') -> 'rel/w';
    # CheckpointManager(c, 'mgr', 2).save() -> 'mgr/ckpt-2' (save_counter shared), .directory 'mgr',
    # tf.train.latest_checkpoint('mgr') -> 'mgr/ckpt-2', a reopened manager's checkpoints ['mgr/ckpt-2'].
    monkeypatch.chdir(tmp_path)
    checkpoint = Checkpoint(v=tj.Variable(1.0))
    assert (checkpoint.save("rel/ckpt"), checkpoint.write("rel/w")) == ("rel/ckpt-1", "rel/w")
    manager = CheckpointManager(checkpoint, "mgr", 2)
    assert manager.save() == "mgr/ckpt-2" and manager.directory == "mgr"
    assert manager.latest_checkpoint == tj.train.latest_checkpoint("mgr") == "mgr/ckpt-2"
    assert tj.train.latest_checkpoint("rel") == "rel/ckpt-1"
    assert CheckpointManager(checkpoint, "mgr", 2).checkpoints == ["mgr/ckpt-2"]
    checkpoint.v.assign(5.0)
    assert checkpoint.restore("rel/ckpt") == "rel/ckpt-1" and float(checkpoint.v) == 1.0  # (a prefix: its newest)


def test_a_non_trackable_object_raises_tfs_value_error():
    # TF: tf.train.Checkpoint(x=1) (also a Tensor or a str) raises ValueError "`Checkpoint` was expecting x to
    # be a trackable object"; ours is also a TypeError (code written to either catches it).
    for bad in (1, "s", tj.constant(1.0)):
        with pytest.raises(ValueError, match="'x' is a"):
            tj.train.Checkpoint(x=bad)
        with pytest.raises(TypeError):
            tj.train.Checkpoint(x=bad)
