"""Several devices and several processes.

* One process, 8 simulated CPU devices (a subprocess running this file as a script, since the device
  count is fixed when JAX starts): every registered op on sharded inputs, eagerly, under a tape, under
  a ForwardAccumulator and under tj.function, gives the unsharded numbers; gradients come back with
  their sources' sharding; ones/zeros-like keep the sharding; data-parallel training (batch sharded,
  parameters replicated) equals one-device training, with tj.function and eagerly.
* Two processes with 4 devices each under ``python -m tapejax.launch`` (JAX's multi-controller runtime,
  gloo collectives over loopback) give the single-process losses and parameters.
* The launcher itself: environment, failure propagation, timeout; ``tapejax.distributed.initialize``.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "data_parallel.py"
RTOL, ATOL = 1e-5, 1e-6


def _env(devices=None, **extra):
    env = dict(os.environ)
    for k in ("TAPEJAX_COORDINATOR_ADDRESS", "TAPEJAX_NUM_PROCESSES", "TAPEJAX_PROCESS_ID"):
        env.pop(k, None)
    if devices is not None:
        env["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={devices}"
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


# ---------------------------------------------------------------------------------------------------
# Processes started once per module. The two-process run starts first so it overlaps the 8-device run.
# ---------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def multiprocess_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("mp") / "result.json"
    cmd = [sys.executable, "-m", "tapejax.launch", "-n", "2", "--local-devices", "4", "--timeout", "240",
           str(EXAMPLE), "--mode", "both", "--out", str(out)]
    proc = subprocess.Popen(cmd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    yield proc, out
    if proc.poll() is None:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def sharded_run(multiprocess_run, tmp_path_factory):
    out = tmp_path_factory.mktemp("sharded") / "result.json"
    r = subprocess.run([sys.executable, __file__, "worker", str(out)], env=_env(devices=8),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"8-device worker failed:\n{r.stdout[-4000:]}\n{r.stderr[-8000:]}"
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def multiprocess_result(multiprocess_run):
    proc, out = multiprocess_run
    try:
        log, _ = proc.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        proc.kill()
        log, _ = proc.communicate()
    log = "\n".join(line for line in log.splitlines() if not line.startswith("[Gloo]"))
    assert proc.returncode == 0, f"two-process run failed (status {proc.returncode}):\n{log[-8000:]}"
    return json.loads(out.read_text()), log


def _assert_same_training(got, ref, what):
    np.testing.assert_allclose(got["losses"], ref["losses"], rtol=RTOL, atol=ATOL, err_msg=f"{what}: losses")
    assert len(got["params"]) == len(ref["params"])
    for i, (a, b) in enumerate(zip(got["params"], ref["params"])):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=RTOL, atol=ATOL,
                                   err_msg=f"{what}: parameter {i}")


# -- one process, 8 devices ---------------------------------------------------------------------------

def test_worker_saw_eight_devices(sharded_run):
    assert sharded_run["device_count"] == 8
    assert sharded_run["n_cases"] >= 90


def test_every_op_on_sharded_inputs_eagerly_and_under_tape(sharded_run):
    assert sharded_run["n_sharded_cases"] >= 40, "too few samples could be sharded: the test lost its teeth"
    assert sharded_run["op_failures"] == {}, json.dumps(sharded_run["op_failures"], indent=1)[:6000]


def test_every_op_on_sharded_inputs_under_function(sharded_run):
    assert sharded_run["function_failures"] == {}, json.dumps(sharded_run["function_failures"], indent=1)[:6000]


def test_gradients_and_vspace_keep_sharding(sharded_run):
    assert sharded_run["placement_failures"] == [], sharded_run["placement_failures"]


def test_data_parallel_function_matches_one_device(sharded_run):
    r = sharded_run["training"]
    assert r["function"]["batch_devices"] == 8 and r["function"]["param_replicated"]
    _assert_same_training(r["function"]["sharded"], r["function"]["one_device"], "tj.function, 8 devices")
    assert r["function"]["sharded"]["losses"][-1] < r["function"]["sharded"]["losses"][0]


def test_data_parallel_eager_matches_one_device(sharded_run):
    r = sharded_run["training"]["eager"]
    _assert_same_training(r["sharded"], r["one_device"], "eager, 8 devices")


# -- two processes, 4 devices each ------------------------------------------------------------------------

def test_two_processes_match_single_process(sharded_run, multiprocess_result):
    result, log = multiprocess_result
    assert result["process_count"] == 2 and result["device_count"] == 8, log
    ref = sharded_run["training"]
    for mode in ("function", "eager"):
        _assert_same_training(result[mode], ref[mode]["one_device"], f"2 processes ({mode}) vs one device")
        _assert_same_training(result[mode], ref[mode]["sharded"], f"2 processes ({mode}) vs 8 devices")


# -- the launcher and initialize() ------------------------------------------------------------------------

_CHILD = textwrap.dedent("""
    import json, os, sys, time
    pid = int(os.environ["TAPEJAX_PROCESS_ID"])
    out, behaviour = sys.argv[1], sys.argv[2]
    with open(os.path.join(out, f"env{pid}.json"), "w") as f:
        json.dump({k: os.environ.get(k) for k in ("TAPEJAX_COORDINATOR_ADDRESS", "TAPEJAX_NUM_PROCESSES",
                   "TAPEJAX_PROCESS_ID", "XLA_FLAGS")} | {"argv": sys.argv[1:]}, f)
    if behaviour == "fail" and pid == 1:
        sys.exit(3)
    if behaviour in ("fail", "hang"):
        time.sleep(60)
""")


def _launch(tmp_path, behaviour, *extra):
    script = tmp_path / "child.py"
    script.write_text(_CHILD)
    from tapejax.launch import main
    t0 = time.monotonic()
    rc = main(["-n", "3", "--local-devices", "2", *extra, str(script), str(tmp_path), behaviour])
    return rc, time.monotonic() - t0


def test_launcher_sets_environment(tmp_path):
    rc, _ = _launch(tmp_path, "ok")
    assert rc == 0
    envs = [json.loads((tmp_path / f"env{i}.json").read_text()) for i in range(3)]
    addrs = {e["TAPEJAX_COORDINATOR_ADDRESS"] for e in envs}
    assert len(addrs) == 1
    host, port = addrs.pop().rsplit(":", 1)
    assert host == "127.0.0.1" and 0 < int(port) < 65536
    assert [e["TAPEJAX_PROCESS_ID"] for e in envs] == ["0", "1", "2"]
    assert all(e["TAPEJAX_NUM_PROCESSES"] == "3" for e in envs)
    assert all("--xla_force_host_platform_device_count=2" in e["XLA_FLAGS"] for e in envs)
    assert all(e["argv"] == [str(tmp_path), "ok"] for e in envs)


def test_launcher_propagates_failure_and_stops_the_others(tmp_path):
    rc, took = _launch(tmp_path, "fail")
    assert rc == 3
    assert took < 30, "the launcher waited for the surviving processes instead of stopping them"


def test_launcher_timeout(tmp_path):
    rc, took = _launch(tmp_path, "hang", "--timeout", "2")
    assert rc == 124 and took < 30


def test_initialize_without_launcher_is_single_process(monkeypatch):
    import tapejax.distributed as tjd
    for k in (tjd.ENV_COORDINATOR, tjd.ENV_NUM_PROCESSES, tjd.ENV_PROCESS_ID):
        monkeypatch.delenv(k, raising=False)
    assert tjd.initialize() is False
    assert not tjd.is_initialized()


@pytest.mark.parametrize("env,match", [
    ({"TAPEJAX_COORDINATOR_ADDRESS": "127.0.0.1:1"}, "TAPEJAX_NUM_PROCESSES"),
    ({"TAPEJAX_NUM_PROCESSES": "2", "TAPEJAX_PROCESS_ID": "0"}, "coordinator"),
    ({"TAPEJAX_COORDINATOR_ADDRESS": "127.0.0.1:1", "TAPEJAX_NUM_PROCESSES": "2", "TAPEJAX_PROCESS_ID": "2"},
     r"not in \[0, 2\)"),
    ({"TAPEJAX_COORDINATOR_ADDRESS": "127.0.0.1:1", "TAPEJAX_NUM_PROCESSES": "two", "TAPEJAX_PROCESS_ID": "0"},
     "not an integer"),
])
def test_initialize_bad_environment(monkeypatch, env, match):
    import tapejax.distributed as tjd
    for k in (tjd.ENV_COORDINATOR, tjd.ENV_NUM_PROCESSES, tjd.ENV_PROCESS_ID):
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    with pytest.raises(ValueError, match=match):
        tjd.initialize()


def test_initialize_after_jax_started_says_so(monkeypatch):
    import jax
    import tapejax.distributed as tjd
    jax.devices()  # JAX's backend is running in this process now
    monkeypatch.setenv(tjd.ENV_COORDINATOR, "127.0.0.1:1")
    monkeypatch.setenv(tjd.ENV_NUM_PROCESSES, "2")
    monkeypatch.setenv(tjd.ENV_PROCESS_ID, "0")
    with pytest.raises(RuntimeError, match="before any JAX computation"):
        tjd.initialize()


def test_import_does_not_start_jax():
    """jax.distributed.initialize must run before JAX starts its backend, so `import tapejax` must not
    start it (no arrays made at import time)."""
    code = ("import tapejax, tapejax.distributed, tapejax.launch\n"
            "from jax._src import xla_bridge\n"
            "assert not xla_bridge.backends_are_initialized(), 'import tapejax started the JAX backend'\n")
    r = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]


# ---------------------------------------------------------------------------------------------------
# The 8-device worker (run as `python tests/test_distributed.py worker OUT.json`).
# ---------------------------------------------------------------------------------------------------

def _worker(out_path: str) -> None:
    import traceback

    import jax
    import jax.numpy as jnp
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    import tapejax as tj
    from tapejax import vspace
    from tapejax.ops.core import registry

    assert jax.device_count() == 8, jax.devices()
    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("a", "b"))
    result = {"device_count": jax.device_count(), "op_failures": {}, "function_failures": {},
              "placement_failures": []}

    def is_float(a):
        return (isinstance(a, (np.ndarray, jax.Array)) and not jax.dtypes.issubdtype(a.dtype, jax.dtypes.prng_key)
                and jnp.issubdtype(a.dtype, jnp.floating))

    def spec_for(shape):
        spec = [None] * len(shape)
        if len(shape) >= 1 and shape[0] % 2 == 0 and shape[0] > 0:
            spec[0] = "a"
        if len(shape) >= 2 and shape[1] % 4 == 0 and shape[1] > 0:
            spec[1] = "b"
        return P(*spec)

    def tup(o):
        return tuple(o) if isinstance(o, (tuple, list)) else (o,)

    def close(a, b, what):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        assert a.shape == b.shape, f"{what}: shape {a.shape} != {b.shape}"
        scale = max(1.0, float(np.max(np.abs(b)))) if b.size else 1.0
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5 * scale, err_msg=what)

    def loss_of(outs, cts):
        tnp = tj.numpy
        fl = [o for o in outs if jnp.issubdtype(o.dtype, jnp.floating)]
        return tnp.add_n([tnp.sum(o * c) for o, c in zip(fl, cts)]) if len(fl) > 1 else tnp.sum(fl[0] * cts[0])

    cases = []
    reg = registry()
    for name in sorted(reg):
        op = reg[name]
        for i, (args, static) in enumerate(op.samples() if op.samples else []):
            cases.append((f"{name}-{i}", op, tuple(args), dict(static)))
    result["n_cases"] = len(cases)
    n_sharded = 0
    fn_inputs = []
    for cid, op, args, static in cases:
        try:
            diff = [i for i, a in enumerate(args) if is_float(np.asarray(a) if isinstance(a, np.ndarray) else a)]
            plain = [tj.constant(np.asarray(a)) if i in diff else a for i, a in enumerate(args)]
            shards = [NamedSharding(mesh, spec_for(np.shape(args[i]))) for i in diff]
            if any(any(p is not None for p in s.spec) for s in shards):
                n_sharded += 1
            sharded = list(plain)
            for i, s in zip(diff, shards):
                sharded[i] = tj.Tensor(jax.device_put(np.asarray(args[i]), s))
            ref = tup(op(*plain, **static))
            got = tup(op(*sharded, **static))
            for g, r in zip(got, ref):
                close(g, r, "forward")
            fl = [o for o in ref if jnp.issubdtype(o.dtype, jnp.floating)]
            if not diff or not fl:
                continue
            rng = np.random.default_rng(len(cid))
            cts = [np.asarray(rng.standard_normal(o.shape), o.dtype) for o in fl]
            srcs_ref = [plain[i] for i in diff]
            srcs = [sharded[i] for i in diff]
            with tj.GradientTape() as t:
                t.watch(srcs_ref)
                l_ref = loss_of(tup(op(*plain, **static)), cts)
            try:
                g_ref = t.gradient(l_ref, srcs_ref)
            except LookupError:
                continue  # no gradient defined: nothing to compare
            with tj.GradientTape() as t:
                t.watch(srcs)
                l = loss_of(tup(op(*sharded, **static)), cts)
            g = t.gradient(l, srcs)
            for k, (a, b, s) in enumerate(zip(g, g_ref, srcs)):
                assert (a is None) == (b is None), f"gradient {k}: {a} vs {b}"
                if a is not None:
                    close(a, b, f"gradient {k}")
                    assert a.sharding.is_equivalent_to(s.sharding, s.ndim), \
                        f"gradient {k} has sharding {a.sharding.spec}, its source {s.sharding.spec}"
            # forward mode on sharded inputs
            tans = [tj.Tensor(jax.device_put(np.asarray(rng.standard_normal(s.shape), s.dtype), s.sharding))
                    for s in srcs]
            tans_ref = [tj.constant(np.asarray(x.value)) for x in tans]
            with tj.ForwardAccumulator(srcs_ref, tans_ref) as acc:
                j_ref = [acc.jvp(o) for o in tup(op(*plain, **static))]
            with tj.ForwardAccumulator(srcs, tans) as acc:
                j = [acc.jvp(o) for o in tup(op(*sharded, **static))]
            for k, (a, b) in enumerate(zip(j, j_ref)):
                assert (a is None) == (b is None), f"jvp {k}"
                if a is not None:
                    close(a, b, f"jvp {k}")
            fn_inputs.append((cid, op, static, diff, sharded, cts, [np.asarray(x) for x in g]))
        except Exception as e:  # collect every failure, report them all
            result["op_failures"][cid] = f"{type(e).__name__}: {e}"[:600] + "\n" + traceback.format_exc()[-800:]
    result["n_sharded_cases"] = n_sharded

    # Every op with a gradient, under tj.function (one traced program per op: input signature differs).
    for cid, op, static, diff, sharded, cts, g_eager in fn_inputs:
        try:
            @tj.function
            def f(*xs):
                full = list(sharded)
                for i, x in zip(diff, xs):
                    full[i] = x
                with tj.GradientTape() as t:
                    t.watch(list(xs))
                    l = loss_of(tup(op(*full, **static)), cts)
                return l, t.gradient(l, list(xs))
            srcs = [sharded[i] for i in diff]
            _, g = f(*srcs)
            for k, (a, b) in enumerate(zip(g, g_eager)):
                if a is not None:
                    close(a, b, f"tj.function gradient {k}")
        except Exception as e:
            result["function_failures"][cid] = f"{type(e).__name__}: {e}"[:600] + "\n" + traceback.format_exc()[-800:]

    # Placement: vspace keeps sharding; gradient seeds, unconnected zeros, Variables.
    pf = result["placement_failures"]
    bs = NamedSharding(mesh, P("a", "b"))
    x = tj.Tensor(jax.device_put(np.arange(32, dtype=np.float32).reshape(4, 8), bs))
    for name, arr in (("ones_like", vspace.ones_like(x.value)), ("zeros_like", vspace.zeros_like(x.value))):
        if not arr.sharding.is_equivalent_to(bs, 2):
            pf.append(f"{name}: {arr.sharding}")
    v = tj.Variable(jax.device_put(np.ones((4, 8), np.float32), bs))
    u = tj.Tensor(jax.device_put(np.ones((4, 8), np.float32), bs))
    with tj.GradientTape(persistent=True) as t:
        t.watch(x)
        y = tj.numpy.sum(x * v)
    for name, g in (("d x / d x (seed)", t.gradient(x, x)), ("d sum / d x", t.gradient(y, x)),
                    ("d sum / d var", t.gradient(y, v)),
                    ("unconnected zero", t.gradient(y, u, unconnected_gradients="zero"))):
        if g is None or not g.sharding.is_equivalent_to(bs, 2):
            pf.append(f"{name}: {None if g is None else g.sharding}")
    # second order through a resharded gradient stays connected
    with tj.GradientTape() as outer:
        outer.watch(x)
        with tj.GradientTape() as inner:
            inner.watch(x)
            y = tj.numpy.sum(x ** 3)
        gx = inner.gradient(y, x)
        z = tj.numpy.sum(gx)
    h = outer.gradient(z, x)
    if h is None or not np.allclose(np.asarray(h), 6 * np.asarray(x)):
        pf.append(f"second order through a resharded gradient: {h}")

    # Data-parallel training: 8 devices vs 1, tj.function and eager.
    sys.path.insert(0, str(EXAMPLE.parent))
    import data_parallel as dp

    training = {}
    for mode in ("function", "eager"):
        entry = {}
        for key, devs in (("sharded", None), ("one_device", jax.devices()[:1])):
            losses, params = dp.train(devices=devs, eager=(mode == "eager"))
            entry[key] = {"losses": losses.tolist(), "params": [p.tolist() for p in params]}
        training[mode] = entry
    # Where the data and parameters live during a sharded step.
    dmesh = Mesh(np.array(jax.devices()), ("data",))
    import tapejax.distributed as tjd
    xb = tjd.shard_batch(np.zeros((64, 8), np.float32), dmesh)
    w = tj.Variable(tjd.replicate(np.ones((8, 2), np.float32), dmesh))

    @tj.function
    def step(x):
        with tj.GradientTape() as t:
            loss = tj.numpy.mean((x @ w) ** 2)
        w.assign_sub(0.1 * t.gradient(loss, w))
        return loss
    step(xb)
    training["function"]["batch_devices"] = len(xb.sharding.device_set)
    training["function"]["param_replicated"] = bool(w._value.sharding.is_fully_replicated
                                                    and len(w._value.sharding.device_set) == 8)
    result["training"] = training
    with open(out_path, "w") as f:
        json.dump(result, f)


if __name__ == "__main__" and len(sys.argv) > 2 and sys.argv[1] == "worker":
    _worker(sys.argv[2])
