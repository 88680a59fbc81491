"""Replay faults (issue 13 items 14-16): placement is part of a program's key, an interrupted compile
leaves no trace in the cache, and more recurring structures than the cache holds settle to a bounded
number of compiles."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import tapejax as tj
from tapejax.deferred import replay
from conftest import xla_flags

ROOT = Path(__file__).resolve().parents[1]
tnp = tj.numpy


pytestmark = pytest.mark.usefixtures("replay_now")


def _step(x0, n=4, persistent=False):
    with tj.GradientTape(persistent=persistent) as t:
        t.watch(x0)
        x = x0
        for _ in range(n):
            x = tnp.tanh(x * 1.01 + 0.1)
        loss = tnp.sum(x * x)
    g = t.gradient(loss, x0)
    return loss, g, t


# -- 14: placement -----------------------------------------------------------------------------------

_PLACEMENT_WORKER = textwrap.dedent("""
    import json, sys
    import jax
    import numpy as np
    import tapejax as tj
    from tapejax.deferred import replay

    tj.config.replay_background, tj.config.replay_exact = False, True  # compiled at once; bitwise results
    tnp = tj.numpy
    devs = jax.devices()
    assert len(devs) == 2, devs
    x0 = tj.constant(np.linspace(-1, 1, 8).astype(np.float32))
    out = {}
    for persistent in (False, True):  # the step record's key and the pruned tape's structure (replay's two sources)
        rows = []
        for i in range(8):
            with jax.default_device(devs[i % 2]):
                with tj.GradientTape(persistent=persistent) as t:
                    t.watch(x0)
                    x = x0
                    for _ in range(3):
                        x = tnp.tanh(x * 1.01 + 0.1)
                    loss = tnp.sum(x * x)
                g = t.gradient(loss, x0)
                rows.append({"want": devs[i % 2].id, "loss": sorted(d.id for d in loss.value.devices()),
                             "value": float(loss.numpy()), "grad": g.numpy().tolist(), "mode": t.last_replay})
        out[str(persistent)] = rows
    json.dump(out, open(sys.argv[1], "w"))
""")


def test_replayed_step_runs_on_the_default_device_of_the_step(tmp_path):
    out = tmp_path / "placement.json"
    env = dict(os.environ)
    env["XLA_FLAGS"] = xla_flags("--xla_force_host_platform_device_count=2")
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-c", _PLACEMENT_WORKER, str(out)], env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, f"2-device worker failed:\n{r.stdout[-4000:]}\n{r.stderr[-8000:]}"
    for persistent, rows in json.loads(out.read_text()).items():
        for i, row in enumerate(rows):
            assert row["loss"] == [row["want"]], (persistent, i, row)
            assert row["value"] == rows[0]["value"] and row["grad"] == rows[0]["grad"], (persistent, i, row)
        # each device's structure warms up on its own, then both replay
        assert all(r["mode"].startswith("replayed") for r in rows[4:]), (persistent, [r["mode"] for r in rows])


# -- 15: an interrupted compile ------------------------------------------------------------------------

@pytest.mark.parametrize("persistent", [False, True])
@pytest.mark.parametrize("where", ["trace", "compile"])
def test_an_interrupted_compile_leaves_the_cache_as_if_it_never_started(monkeypatch, persistent, where):
    x0 = tj.constant(np.linspace(-1, 1, 8).astype(np.float32))
    tj.config.replay = False
    _, ref, _ = _step(x0)
    tj.config.replay = True
    tj.config.replay_cache_size = 1
    other = tj.constant(np.linspace(-1, 1, 5).astype(np.float32))
    for _ in range(3):
        _step(other, persistent=persistent)  # compiled: the cache is full
    kept = dict(replay._programs)
    assert len(kept) == 1
    if where == "trace":  # while the step is traced into the program (jit's lower)
        real = replay._Program.compile

        def interrupted(self, leaves, og):
            raise KeyboardInterrupt
    else:  # while XLA compiles the lowered program
        real = None
        import jax.stages

        def interrupted(self):
            raise KeyboardInterrupt
        monkeypatch.setattr(jax.stages.Lowered, "compile", interrupted)
    if real is not None:
        monkeypatch.setattr(replay._Program, "compile", interrupted)
    for _ in range(2):
        _step(x0, persistent=persistent)
    with pytest.raises(KeyboardInterrupt):
        _step(x0, persistent=persistent)  # the third step compiles: interrupted
    assert replay._programs == kept  # nothing stored, nothing evicted
    monkeypatch.undo()
    _, g, t = _step(x0, persistent=persistent)  # compiles now, then replays
    assert t.last_replay.startswith("replayed"), t.last_replay
    np.testing.assert_array_equal(g.numpy(), ref.numpy())
    _, g, t = _step(x0, persistent=persistent)
    assert t.last_replay.startswith("replayed"), t.last_replay


def test_an_interrupted_background_compile_is_forgotten(monkeypatch):
    import jax.stages
    tj.config.replay_background = True
    x0 = tj.constant(np.linspace(-1, 1, 8).astype(np.float32))

    def interrupted(self):
        raise SystemExit  # what reaches a thread: it ends, the program must not stay "compiling"
    monkeypatch.setattr(jax.stages.Lowered, "compile", interrupted)
    monkeypatch.setattr("threading.excepthook", lambda args: None)  # (the thread's traceback: expected)
    for _ in range(3):
        _step(x0)
    replay.wait()
    assert not replay._programs
    monkeypatch.undo()
    _step(x0)
    replay.wait()
    _, _, t = _step(x0)
    assert t.last_replay.startswith("replayed"), t.last_replay


# -- 16: more recurring structures than the cache holds -------------------------------------------------

@pytest.mark.parametrize("persistent", [False, True])
def test_cycling_structures_settle_to_a_bounded_number_of_compiles(monkeypatch, persistent):
    tj.config.replay_cache_size = 4
    compiles = []
    real = replay._Program.compile

    def counted(self, leaves, og):
        compiles.append(1)
        return real(self, leaves, og)
    monkeypatch.setattr(replay._Program, "compile", counted)
    xs = [tj.constant(np.linspace(-1, 1, n).astype(np.float32)) for n in range(3, 9)]  # 6 shapes
    tj.config.replay = False
    refs = [_step(x)[1].numpy() for x in xs]
    tj.config.replay = True
    per_cycle = []
    modes = []
    for cycle in range(12):
        before = len(compiles)
        modes = []
        for x, ref in zip(xs, refs):
            _, g, t = _step(x, persistent=persistent)
            np.testing.assert_array_equal(g.numpy(), ref)
            modes.append(t.last_replay)
        per_cycle.append(len(compiles) - before)
    # each structure is compiled at most twice (replay._MAX_EVICTIONS), then the cycle settles with no compiles
    assert sum(per_cycle) <= len(xs) * 2, per_cycle
    assert per_cycle[-4:] == [0, 0, 0, 0], per_cycle
    replayed = [m for m in modes if m.startswith("replayed")]
    dropped = [m for m in modes if "dropped from the full cache" in m]
    assert len(replayed) == 4 and len(dropped) == 2, modes  # the full cache is still used
    assert "tj.config.replay_cache_size = 4" in dropped[0], dropped[0]
    # a larger cache gives the dropped structures room again
    tj.config.replay_cache_size = 6
    for _ in range(2):
        modes = [_step(x, persistent=persistent)[2].last_replay for x in xs]
    assert all(m.startswith("replayed") for m in modes), modes
