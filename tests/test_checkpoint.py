"""tj.train.Checkpoint and CheckpointManager (on orbax-checkpoint).

* Round trips: Variables, objects with ``.variables``, nested dicts/lists; every dtype comes back bit
  for bit, into the same Variable objects; paths are the documented ones.
* Restore is all or nothing: a shape or dtype mismatch, a missing or an unexpected entry raises a
  ValueError naming the path and both shapes/dtypes, and no Variable changes.
* Shardings: with 8 simulated devices (a subprocess running this file as a script, since the device
  count is fixed when JAX starts), a restore keeps each Variable's current sharding.
* Crashes: worker processes saving in a loop are killed with SIGKILL at random moments; every
  checkpoint that is listed (or that exists at its final path) restores to exactly the values saved.
"""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import tapejax as tj
from tapejax.train.checkpoint import Checkpoint, CheckpointManager
from conftest import xla_flags

ROOT = Path(__file__).resolve().parents[1]


class Holder:
    """Stand-in for a tj.Module or an optimizer: anything with a ``.variables`` list."""

    def __init__(self, *variables):
        self.variables = list(variables)


class MethodHolder:
    """Stand-in for an optimizer whose ``variables`` is a method (as TF's legacy optimizers)."""

    def __init__(self, *variables):
        self._vs = list(variables)

    def variables(self):
        return self._vs


def _model(scale=1.0):
    return Holder(tj.Variable(np.arange(6, dtype=np.float32).reshape(2, 3) * scale, name="kernel"),
                  tj.Variable(np.float32(0.5) * scale, name="bias"))


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)


# -- round trips and paths ------------------------------------------------------------------------------

def test_paths_are_keyword_then_position_or_key():
    ckpt = Checkpoint(model=_model(), opt=MethodHolder(tj.Variable(1.0)), step=tj.Variable(0),
                      extra={"ema": [tj.Variable(1.0), tj.Variable(2.0)], "a.b/c": tj.Variable(3.0)})
    # (TF's order: keywords sorted, the graph walked breadth first)
    assert list(ckpt.variables()) == ["step", "extra/a.b/c", "extra/ema/0", "extra/ema/1", "model/variables/0",
                                      "model/variables/1", "opt/variables/0"]


def test_round_trip_restores_into_the_same_variables_bit_for_bit(tmp_path):
    import jax.numpy as jnp
    values = {
        "f32": np.array([1.5, -0.0, np.inf, np.nan], np.float32),
        "i32": np.array([[1, -2], [3, 2**31 - 1]], np.int32),
        "bool": np.array([True, False]),
        "bf16": jnp.array([1.0, 3.140625], jnp.bfloat16),
        "c64": np.array([1 + 2j], np.complex64),
        "scalar": np.float32(7.25),
        "u8": np.array([0, 255], np.uint8),
    }
    vs = {k: tj.Variable(v) for k, v in values.items()}
    model = _model()
    ckpt = Checkpoint(model=model, vs=vs, pair=(tj.Variable(1), [tj.Variable(2.0)]))
    path = ckpt.write(tmp_path / "c")
    assert path == str(tmp_path / "c")
    assert os.listdir(tmp_path) == ["c"]  # complete on return: renamed into place, no temporary left

    kernel = model.variables[0]
    for v in vs.values():
        v.assign(jnp.zeros(v.shape, v.dtype))
    kernel.assign(np.zeros((2, 3), np.float32))
    assert ckpt.restore(path) == path
    assert model.variables[0] is kernel  # restored into, not replaced
    for k, v in vs.items():
        got = v.numpy()
        assert got.tobytes() == np.asarray(values[k]).tobytes(), k  # bit for bit: NaN and -0.0 too
        assert got.dtype == np.asarray(values[k]).dtype
    _same(kernel.numpy(), np.arange(6, dtype=np.float32).reshape(2, 3))


def test_restore_into_objects_built_the_same_way(tmp_path):
    ckpt = Checkpoint(model=_model(2.0), step=tj.Variable(5))
    ckpt.write(tmp_path / "c")
    fresh = _model(0.0)  # new Variables (their names do not matter, the paths do)
    step = tj.Variable(0)
    Checkpoint(model=fresh, step=step).restore(tmp_path / "c")
    _same(fresh.variables[0].numpy(), np.arange(6, dtype=np.float32).reshape(2, 3) * 2)
    _same(fresh.variables[1].numpy(), np.float32(1.0))
    assert int(step) == 5


def test_save_and_restore_are_not_recorded_on_tapes(tmp_path):
    v = tj.Variable(2.0)
    ckpt = Checkpoint(v=v)
    with tj.GradientTape() as tape:
        ckpt.write(tmp_path / "c")
        ckpt.restore(tmp_path / "c")
    assert len(tape.watched_variables()) == 0  # reading values to save them is not a use of the Variable
    with tj.GradientTape() as tape:
        y = v * 3.0
        ckpt.restore(tmp_path / "c")
    assert float(tape.gradient(y, v)) == 3.0


# -- all or nothing ------------------------------------------------------------------------------------

def _saved(tmp_path):
    first, model = tj.Variable(np.ones(4, np.float32)), _model()
    Checkpoint(first=first, model=model).write(tmp_path / "c")
    first.assign(np.full(4, 9, np.float32))
    return first, model


def test_shape_mismatch_names_the_variable_and_both_shapes_and_changes_nothing(tmp_path):
    first, _ = _saved(tmp_path)
    wrong = Holder(tj.Variable(np.zeros((3, 3), np.float32), name="kernel"), tj.Variable(np.float32(0)))
    with pytest.raises(ValueError) as e:
        Checkpoint(first=first, model=wrong).restore(tmp_path / "c")
    msg = str(e.value)
    assert "model/variables/0" in msg and "'kernel:0'" in msg and "(2, 3)" in msg and "(3, 3)" in msg
    assert "nothing was restored" in msg
    _same(first.numpy(), np.full(4, 9, np.float32))  # checked before anything was assigned
    _same(wrong.variables[1].numpy(), np.float32(0))


def test_dtype_mismatch_names_both_dtypes_and_changes_nothing(tmp_path):
    first, _ = _saved(tmp_path)
    wrong = Holder(tj.Variable(np.zeros((2, 3), np.float32)), tj.Variable(np.int32(0)))
    with pytest.raises(ValueError, match=r"model/variables/1.*float32.*int32"):
        Checkpoint(first=first, model=wrong).restore(tmp_path / "c")
    _same(first.numpy(), np.full(4, 9, np.float32))
    _same(wrong.variables[0].numpy(), np.zeros((2, 3), np.float32))


def test_every_problem_is_listed_at_once(tmp_path):
    first, _ = _saved(tmp_path)
    wrong = Holder(tj.Variable(np.zeros((1,), np.float32)), tj.Variable(np.int32(0)))
    with pytest.raises(ValueError) as e:
        Checkpoint(first=first, model=wrong).restore(tmp_path / "c")
    assert "model/variables/0" in str(e.value) and "model/variables/1" in str(e.value)


def test_missing_entry_keeps_its_value_and_the_status_says_so(tmp_path):
    # As TF: a Variable the checkpoint has no value for keeps its own; the status's assertions report it.
    first, model = _saved(tmp_path)
    model.variables.append(tj.Variable(1.0, name="new"))
    status = Checkpoint(first=first, model=model).restore(tmp_path / "c")
    _same(first.numpy(), np.ones(4, np.float32))
    _same(model.variables[2].numpy(), np.float32(1.0))
    with pytest.raises(AssertionError, match=r"not bound to checkpointed values.*'model/variables/2' \(Variable 'new:0'\)"):
        status.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match="not bound"):
        status.assert_consumed()


def test_unexpected_entry_is_left_and_reported_by_assert_consumed(tmp_path):
    # As TF: checkpoint values no Variable takes are left; assert_consumed() raises, the rest passes.
    first, _ = _saved(tmp_path)
    status = Checkpoint(first=first).restore(tmp_path / "c")
    _same(first.numpy(), np.ones(4, np.float32))
    status.assert_existing_objects_matched().assert_nontrivial_match()
    with pytest.raises(AssertionError, match=r"Unresolved object in checkpoint \(root\).model.variables.0"):
        status.assert_consumed()
    first.assign(np.full(4, 9, np.float32))
    Checkpoint(first=first).restore(tmp_path / "c", partial=True)
    _same(first.numpy(), np.ones(4, np.float32))


# -- errors -----------------------------------------------------------------------------------------------

def test_existing_path_is_replaced_as_tf(tmp_path):
    # TF's write() to an existing path replaces that checkpoint (here by swapping in a complete new one).
    v = tj.Variable(1.0)
    ckpt = Checkpoint(v=v)
    ckpt.write(tmp_path / "c")
    v.assign(2.0)
    assert ckpt.write(tmp_path / "c") == str(tmp_path / "c")
    assert os.listdir(tmp_path) == ["c"]  # the old one and the staging directory are gone
    v.assign(0.0)
    ckpt.restore(tmp_path / "c")
    assert float(v) == 2.0


def test_restore_of_a_missing_or_unfinished_checkpoint(tmp_path):
    ckpt = Checkpoint(v=tj.Variable(1.0))
    with pytest.raises(FileNotFoundError, match="no complete checkpoint"):
        ckpt.restore(tmp_path / "nothing")
    ckpt.write(tmp_path / "c")
    unfinished = tmp_path / "c.orbax-checkpoint-tmp-123"
    os.rename(tmp_path / "c", unfinished)  # what a save killed before its final rename leaves
    with pytest.raises(FileNotFoundError, match="interrupted save"):
        ckpt.restore(unfinished)


def test_bad_objects():
    with pytest.raises(TypeError, match=r"'w' is a tj.Tensor.*tj.Variable"):
        Checkpoint(w=tj.constant(1.0))
    with pytest.raises(TypeError, match=r"'lr' is a float"):
        Checkpoint(lr=0.1)
    with pytest.raises(TypeError, match="dict key"):
        Checkpoint(d={("a",): tj.Variable(1.0)})


def test_containers_holding_other_values_save_their_variables(tmp_path):
    """As TF (2.21's values): a list, tuple or dict given to a Checkpoint may also hold numbers, strings, None
    and Tensors, which are not saved (a loss history kept on the checkpoint saved while empty and raised once a
    float was appended)."""
    v, w = tj.Variable([1.0, 2.0]), tj.Variable(3.0)
    ckpt = Checkpoint(v=v, cfg={"lr": 0.1, "name": "run", "w": w}, t=(v, 3), ls=[tj.constant(1.0), None])
    ckpt.losses = []
    ckpt.losses.append(0.5)
    path = ckpt.save(tmp_path / "ckpt")
    assert sorted(ckpt.variables()) == ["cfg/w", "v"]
    v.assign([0.0, 0.0])
    w.assign(0.0)
    ckpt.restore(path).assert_consumed()
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    assert float(w.numpy()) == 3.0


def test_objects_without_variables_yet(tmp_path):
    # Saving one is fine (as TF); restoring values into one that has no Variables yet is refused (TF would
    # restore them when created; here they would silently keep their initial values).
    Checkpoint(model=Holder()).write(tmp_path / "empty")
    Checkpoint(model=Holder(tj.Variable(1.0))).write(tmp_path / "c")
    with pytest.raises(ValueError, match="no Variables yet.*call it once, then restore"):
        Checkpoint(model=Holder()).restore(tmp_path / "c", partial=True)


def test_two_variables_with_one_path_are_refused():
    with pytest.raises(ValueError, match="both be saved as 'd/1'"):
        Checkpoint(d={1: tj.Variable(1.0), "1": tj.Variable(2.0)})


def test_save_or_restore_inside_tj_function_is_refused(tmp_path):
    v = tj.Variable(1.0)
    ckpt = Checkpoint(v=v)
    ckpt.write(tmp_path / "c")

    @tj.function
    def step():
        ckpt.restore(tmp_path / "c")
        return v * 2.0

    with pytest.raises(RuntimeError, match="inside a tj.function.*outside"):
        step()

    @tj.function
    def step2():
        ckpt.write(tmp_path / "d")
        return v * 2.0

    with pytest.raises(RuntimeError, match="inside a tj.function"):
        step2()
    assert not (tmp_path / "d").exists()


# -- CheckpointManager ---------------------------------------------------------------------------------

def test_manager_numbers_keeps_and_restores(tmp_path):
    v = tj.Variable(0.0)
    model = _model()
    ckpt = Checkpoint(v=v, model=model)
    manager = CheckpointManager(ckpt, tmp_path / "run", max_to_keep=2)
    assert manager.latest_checkpoint is None and manager.checkpoints == [] and manager.latest_step is None
    paths = []
    for i in range(1, 5):
        v.assign(float(i))
        paths.append(manager.save())
        # save() returns with the checkpoint finalized: at its final name, no temporary directory left
        names = sorted(set(os.listdir(tmp_path / "run")) - {"_ckpt.manager.json", "_latest_checkpoint.json"})  # (state)
        assert names[-1] == f"ckpt-{i}" and len(names) == min(i, 2)
    assert paths == [str(tmp_path / "run" / f"ckpt-{i}") for i in range(1, 5)]  # TF's names
    assert manager.steps == [3, 4] and manager.checkpoints == paths[2:]
    assert manager.latest_checkpoint == paths[3] and manager.latest_step == 4
    assert sorted(os.listdir(tmp_path / "run")) == ["_ckpt.manager.json", "_latest_checkpoint.json", "ckpt-3",
                                                    "ckpt-4"]  # older: deleted, trash too

    v.assign(-1.0)
    assert manager.restore() == paths[3] and float(v) == 4.0
    manager.restore(3)
    assert float(v) == 3.0
    ckpt.restore(manager.latest_checkpoint)  # the TF idiom: a step directory is a checkpoint
    assert float(v) == 4.0
    with pytest.raises(FileNotFoundError, match=r"step 1 .*\[3, 4\]"):
        manager.restore(1)

    v.assign(10.0)
    assert manager.save(step=10).endswith("/ckpt-10")
    v.assign(11.0)
    assert manager.save(step=10).endswith("/ckpt-10")  # as TF: the checkpoint under that number is replaced
    assert manager.steps == [4, 10]

    # A new manager (a restarted job) finds the same checkpoints.
    again = CheckpointManager(Checkpoint(v=v, model=model), tmp_path / "run", max_to_keep=2)
    assert again.steps == [4, 10]
    v.assign(0.0)
    assert again.restore_or_initialize() == str(tmp_path / "run" / "ckpt-10") and float(v) == 11.0


def test_restore_or_initialize_calls_init_fn_only_without_checkpoints(tmp_path):
    calls = []
    v = tj.Variable(1.0)
    manager = CheckpointManager(Checkpoint(v=v), tmp_path / "run", max_to_keep=None,
                                init_fn=lambda: calls.append(1))
    assert manager.restore_or_initialize() is None and calls == [1]
    with pytest.raises(FileNotFoundError, match="restore_or_initialize"):
        manager.restore()
    manager.save()
    v.assign(5.0)
    assert manager.restore_or_initialize() is not None and calls == [1] and float(v) == 1.0


def test_a_manager_takes_over_only_the_checkpoints_a_manager_saved(tmp_path):
    """As TF (2.21's values): a manager opened on a directory where Checkpoint.save wrote ckpt-1..3 lists none
    of them and deletes none (a manager with max_to_keep=1 deleted all three, the user's data, at its first
    save); a second manager takes over the first one's, also one whose save was killed after it began."""
    v = tj.Variable(1.0)
    ckpt = Checkpoint(v=v)
    for _ in range(3):
        ckpt.save(tmp_path / "ckpt")
    manager = CheckpointManager(ckpt, tmp_path, max_to_keep=1)
    assert manager.checkpoints == []
    manager.save()
    assert [os.path.basename(p) for p in manager.checkpoints] == ["ckpt-4"]
    assert sorted(p.name for p in tmp_path.glob("ckpt-*")) == ["ckpt-1", "ckpt-2", "ckpt-3", "ckpt-4"]
    again = CheckpointManager(ckpt, tmp_path, max_to_keep=1)
    assert [os.path.basename(p) for p in again.checkpoints] == ["ckpt-4"]
    # A save killed once its checkpoint was complete, before the state said so: the state names it as saving.
    state_file = tmp_path / "_ckpt.manager.json"
    state = json.loads(state_file.read_text())
    ckpt.write(tmp_path / "ckpt-5")
    state_file.write_text(json.dumps({**state, "saving": "ckpt-5"}))
    third = CheckpointManager(ckpt, tmp_path, max_to_keep=1)
    assert [os.path.basename(p) for p in third.checkpoints] == ["ckpt-4", "ckpt-5"]
    third.save()
    assert sorted(p.name for p in tmp_path.glob("ckpt-*")) == ["ckpt-1", "ckpt-2", "ckpt-3", "ckpt-5"]  # (4 deleted)


def test_a_write_is_never_the_latest_checkpoint(tmp_path):
    """As TF (2.21's values): exporting the best weights with Checkpoint.write to a name ending in a number
    (``best-2``) does not change the directory's latest checkpoint, which stays the last save's; a manager
    reopened there resumes from it (it resumed from the export). Checkpoint.save's saves count, as TF's."""
    from tapejax.train.checkpoint import latest_checkpoint
    v = tj.Variable(0.0)
    ckpt = Checkpoint(v=v)
    manager = CheckpointManager(ckpt, tmp_path, max_to_keep=5)
    for i in range(1, 5):
        v.assign(float(i))
        manager.save()
    v.assign(2.0)
    ckpt.write(tmp_path / "best-2")
    assert os.path.basename(latest_checkpoint(tmp_path)) == "ckpt-4"
    again = CheckpointManager(ckpt, tmp_path, max_to_keep=5)
    assert os.path.basename(again.latest_checkpoint) == "ckpt-4"
    again.restore_or_initialize()
    assert float(v.numpy()) == 4.0
    ckpt.save(tmp_path / "other")  # (save_counter is 4: other-5)
    assert os.path.basename(latest_checkpoint(tmp_path)) == "other-5"


def test_manager_argument_errors(tmp_path):
    with pytest.raises(TypeError, match="tj.train.Checkpoint"):
        CheckpointManager({"v": tj.Variable(1.0)}, tmp_path, max_to_keep=1)
    with pytest.raises(ValueError, match="max_to_keep"):
        CheckpointManager(Checkpoint(v=tj.Variable(1.0)), tmp_path, max_to_keep=0)


# -- workers (this file run as a script) ----------------------------------------------------------------

def _env(devices=None):
    env = dict(os.environ)
    if devices is not None:
        env["XLA_FLAGS"] = xla_flags(f"--xla_force_host_platform_device_count={devices}")
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _sharded_worker(directory: str, out: str) -> None:
    import jax
    from jax.sharding import NamedSharding, PartitionSpec as P
    mesh = jax.make_mesh((4, 2), ("x", "y"))
    put = lambda a, spec: jax.device_put(a, NamedSharding(mesh, spec))  # noqa: E731
    w0 = np.arange(64, dtype=np.float32).reshape(8, 8)
    b0 = np.arange(8, dtype=np.int32)

    def build(w_spec, b_spec, fill):
        return {"w": tj.Variable(put(w0 * fill, w_spec)), "b": tj.Variable(put(b0 * int(fill), b_spec)),
                "one": tj.Variable(jax.device_put(np.float32(fill), jax.devices()[5]))}

    saved = build(P("x", "y"), P("x"), 1)
    Checkpoint(m=Holder(saved["w"], saved["b"]), one=saved["one"]).write(os.path.join(directory, "c"))
    manager = CheckpointManager(Checkpoint(m=Holder(saved["w"], saved["b"]), one=saved["one"]),
                                os.path.join(directory, "run"), max_to_keep=1)
    manager.save()

    result = {}
    # Restore into Variables laid out differently from what was saved, from both layouts.
    for how in ("path", "manager"):
        target = build(P(None, "x"), P(), 0)  # column-sharded, replicated, another device
        before = {k: v.read_value().value.sharding for k, v in target.items()}
        ckpt = Checkpoint(m=Holder(target["w"], target["b"]), one=target["one"])
        if how == "path":
            ckpt.restore(os.path.join(directory, "c"))
        else:
            CheckpointManager(ckpt, os.path.join(directory, "run"), max_to_keep=1).restore()
        result[how] = {
            "values": bool(np.array_equal(target["w"].numpy(), w0) and np.array_equal(target["b"].numpy(), b0)
                           and float(target["one"]) == 1.0),
            "shardings": {k: bool(v.read_value().value.sharding == before[k]) for k, v in target.items()},
            "w_shards": sorted({tuple(s.data.shape) for s in target["w"].read_value().value.addressable_shards}),
            "one_device": str(list(target["one"].read_value().value.devices())[0]),
        }
    Path(out).write_text(json.dumps(result))


def test_restore_keeps_each_variables_sharding(tmp_path):
    out = tmp_path / "result.json"
    r = subprocess.run([sys.executable, __file__, "sharded", str(tmp_path), str(out)], env=_env(devices=8),
                       capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, f"8-device worker failed:\n{r.stdout[-4000:]}\n{r.stderr[-8000:]}"
    result = json.loads(out.read_text())
    for how in ("path", "manager"):
        assert result[how]["values"], how
        assert result[how]["shardings"] == {"w": True, "b": True, "one": True}, how
        assert result[how]["w_shards"] == [[8, 2]], how  # P(None, "x") over 4 devices: columns of 2
        assert result[how]["one_device"].endswith("5"), result[how]["one_device"]


def _expected(step: int) -> dict:
    # Every value depends on the step, so a checkpoint mixing two steps cannot pass for either.
    return {"w": np.arange(256 * 256, dtype=np.float32).reshape(256, 256) + step,
            "b": np.arange(4096, dtype=np.int32) * step,
            "s": np.int32(step)}


def _crash_objects():
    e = _expected(0)
    vs = {k: tj.Variable(v) for k, v in e.items()}
    return vs, Checkpoint(model=Holder(vs["w"], vs["b"]), step=vs["s"])


def _matches(vs, step) -> bool:
    return all(np.array_equal(vs[k].numpy(), v) for k, v in _expected(step).items())


def _crash_worker(directory: str) -> None:
    vs, ckpt = _crash_objects()
    manager = CheckpointManager(ckpt, os.path.join(directory, "run"), max_to_keep=2)
    manager.restore_or_initialize()
    step = manager.latest_step or 0
    if not _matches(vs, step):
        print(f"MISMATCH {step}", flush=True)
        sys.exit(3)
    print(f"restored {step}", flush=True)
    while True:  # until killed
        step += 1
        for k, v in _expected(step).items():
            vs[k].assign(v)
        manager.save(step)
        print(f"managed {step}", flush=True)  # printed only once save() has returned
        ckpt.write(os.path.join(directory, "single", str(step)))
        print(f"saved {step}", flush=True)


def test_a_save_killed_at_any_point_leaves_the_last_complete_checkpoint(tmp_path):
    seed = random.randrange(2**32)
    rng = random.Random(seed)
    last_managed = 0  # the last step whose CheckpointManager.save had returned before the kill
    singles_returned = set()  # steps whose Checkpoint.save had returned
    for run in range(3):
        proc = subprocess.Popen([sys.executable, __file__, "crash", str(tmp_path)], env=_env(),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            line = proc.stdout.readline()
            if not line.startswith("restored "):
                proc.kill()
                pytest.fail(f"seed {seed} run {run}: worker said {line!r}\n{proc.stderr.read()[-4000:]}")
            restored = int(line.split()[1])
            # A save that returned is complete (synchronous); the one after may have completed too.
            assert restored in (last_managed, last_managed + 1), (seed, run, restored, last_managed)
            time.sleep(rng.uniform(0.0, 0.6))
        finally:
            proc.send_signal(signal.SIGKILL)
            out, _ = proc.communicate()
        lines = out.splitlines()
        last_managed = max([int(x.split()[1]) for x in lines if x.startswith("managed ")], default=restored)
        singles_returned |= {int(x.split()[1]) for x in lines if x.startswith("saved ")}

    # Whatever the kills left: every listed checkpoint, and every checkpoint at its final path,
    # restores to exactly the values of its step.
    vs, ckpt = _crash_objects()
    manager = CheckpointManager(ckpt, tmp_path / "run", max_to_keep=2)
    # (no save may have completed under load: then there is no latest step, and last_managed is 0)
    assert (manager.latest_step or 0) in (last_managed, last_managed + 1), (seed, manager.steps, last_managed)
    for step in manager.steps:
        manager.restore(step)
        assert _matches(vs, step), (seed, step)
    single = tmp_path / "single"
    singles = {int(p.name) for p in single.iterdir() if p.name.isdigit()} if single.exists() else set()
    assert singles_returned <= singles, (seed, singles_returned - singles)  # a returned save is on disk
    for step in singles:
        ckpt.restore(single / str(step))
        assert _matches(vs, step), (seed, step)


if __name__ == "__main__":
    # Importing the checkpoint module (done above) must not import orbax: it takes seconds.
    if "orbax.checkpoint" in sys.modules:
        sys.exit("importing tapejax.train.checkpoint imported orbax.checkpoint")
    if sys.argv[1] == "sharded":
        _sharded_worker(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "crash":
        _crash_worker(sys.argv[2])


def test_zero_size_variables_save_and_restore(tmp_path):
    """A zero-size Variable (an empty bias, a (0, n) table) is saved and restored with its shape and dtype, as TF
    saves one; orbax refuses to write zero-size arrays ('Cannot save arrays with zero size'), which failed the
    whole save. A checkpoint of zero-size values only is written too, and a restore still checks their shapes."""
    import jax.numpy as jnp
    saved = {"w": tj.Variable(np.array([1.5, -2.25], np.float16)), "e": tj.Variable(np.zeros((0, 3), np.float32)),
             "b": tj.Variable(jnp.zeros((2, 0), jnp.bfloat16)), "i": tj.Variable(np.zeros(0, np.int32))}
    path = tj.train.Checkpoint(**saved).save(str(tmp_path / "ckpt"))
    assert ("e", (0, 3)) in tj.train.list_variables(path)
    into = {k: tj.Variable(jnp.zeros(v.shape, v.dtype)) for k, v in saved.items()}
    tj.train.Checkpoint(**into).restore(path).assert_consumed()
    for k, v in saved.items():
        assert into[k].dtype == v.dtype and into[k].shape == v.shape
        np.testing.assert_array_equal(np.asarray(into[k].numpy(), np.float32), np.asarray(v.numpy(), np.float32))
    with pytest.raises(ValueError, match="incompatible"):
        tj.train.Checkpoint(e=tj.Variable(np.zeros((0, 4), np.float32))).restore(path)
    only = tj.train.Checkpoint(e=tj.Variable(np.zeros(0, np.float32))).write(str(tmp_path / "only"))
    target = tj.Variable(np.zeros(0, np.float32))
    tj.train.Checkpoint(e=target).restore(only).assert_existing_objects_matched()
    assert target.shape == (0,)


def test_an_empty_dict_key_names_a_checkpoint_entry(tmp_path):
    """TF 2.21 saves and restores a dict entry under the key '' (tf.train.Checkpoint(d={'': v})); tapejax raised
    TypeError. The empty key stays distinct from a key '%' and from the dict's other entries."""
    saved = {"": tj.Variable(1.0), "%": tj.Variable(2.0), "a": tj.Variable(3.0)}
    path = tj.train.Checkpoint(d=saved).write(str(tmp_path / "ckpt"))
    into = {k: tj.Variable(0.0) for k in saved}
    tj.train.Checkpoint(d=into).read(path).assert_consumed()
    assert {k: float(v.numpy()) for k, v in into.items()} == {"": 1.0, "%": 2.0, "a": 3.0}
