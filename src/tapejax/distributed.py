"""Several processes: JAX's own multi-controller runtime, set up from the launcher's environment.

tapejax adds no communication of its own. Every process runs the same program; arrays are global
``jax.Array``s sharded over a ``jax.sharding.Mesh`` of all processes' devices, and XLA's collectives
(gloo over TCP on CPU, NCCL on GPU) move the data. This module only

* reads the coordinator address, process count and process id that ``python -m tapejax.launch`` (or a
  cluster manager) puts in the environment and calls ``jax.distributed.initialize`` with them,
* makes the XLA CPU client start enough threads for multi-process collectives (``PJRT_NPROC``, see
  ``cpu_client_threads_needed``: without it, eager op-by-op steps deadlock intermittently), and
* gives short names for building global arrays from per-process data (``shard_batch``), replicated
  parameters (``replicate``) and for bringing values back to the host (``to_numpy``).

Typical use (see ``examples/data_parallel.py``)::

    import tapejax as tj
    import tapejax.distributed as tjd

    tjd.initialize()                      # before any JAX computation; a no-op outside the launcher
    mesh = jax.sharding.Mesh(np.array(jax.devices()), ("data",))
    w = tj.Variable(tjd.replicate(w0, mesh))
    x = tjd.shard_batch(local_rows, mesh)   # this process's rows of the global batch

    python -m tapejax.launch -n 2 --local-devices 4 train.py
"""
from __future__ import annotations

import os
import re
from typing import Any, Optional

import numpy as np

ENV_COORDINATOR = "TAPEJAX_COORDINATOR_ADDRESS"
ENV_NUM_PROCESSES = "TAPEJAX_NUM_PROCESSES"
ENV_PROCESS_ID = "TAPEJAX_PROCESS_ID"

_initialized = False


def _env_int(name: str) -> Optional[int]:
    v = os.environ.get(name)
    if v is None or v == "":
        return None
    try:
        return int(v)
    except ValueError:
        raise ValueError(f"tapejax.distributed: environment variable {name}={v!r} is not an integer.") from None


def initialize(coordinator_address: Optional[str] = None, num_processes: Optional[int] = None,
               process_id: Optional[int] = None, **kwargs: Any) -> bool:
    """Join the multi-process JAX runtime: ``jax.distributed.initialize`` with the given values, or with
    ``TAPEJAX_COORDINATOR_ADDRESS`` / ``TAPEJAX_NUM_PROCESSES`` / ``TAPEJAX_PROCESS_ID`` from the environment
    (set by ``python -m tapejax.launch``). Extra keyword arguments go to ``jax.distributed.initialize``.

    Returns True when the process joined a multi-process run, False when there is nothing to join (no
    address given or in the environment: a single-process run, so scripts work with and without the
    launcher). Must run before any JAX computation (JAX's rule); calling it again is a no-op.
    """
    global _initialized
    if _initialized:
        return True
    coordinator_address = coordinator_address or os.environ.get(ENV_COORDINATOR) or None
    if num_processes is None:
        num_processes = _env_int(ENV_NUM_PROCESSES)
    if process_id is None:
        process_id = _env_int(ENV_PROCESS_ID)
    if coordinator_address is None:
        if num_processes not in (None, 1):
            raise ValueError(f"tapejax.distributed.initialize: {num_processes} processes but no coordinator "
                             f"address; set {ENV_COORDINATOR} (host:port) or start with python -m tapejax.launch.")
        return False
    if num_processes is None or process_id is None:
        raise ValueError(f"tapejax.distributed.initialize: coordinator {coordinator_address!r} but "
                         f"num_processes={num_processes}, process_id={process_id}; set {ENV_NUM_PROCESSES} and "
                         f"{ENV_PROCESS_ID} too (python -m tapejax.launch sets all three).")
    if not 0 <= process_id < num_processes:
        raise ValueError(f"tapejax.distributed.initialize: process_id {process_id} is not in "
                         f"[0, {num_processes}).")

    import jax
    from jax._src import xla_bridge

    if xla_bridge.backends_are_initialized():
        raise RuntimeError("tapejax.distributed.initialize() must be called before any JAX computation (JAX "
                           "has already started its backend in this process, so it cannot join a "
                           "multi-process run). Call it first thing in the script, right after the imports.")
    ensure_cpu_client_threads()
    jax.distributed.initialize(coordinator_address=coordinator_address, num_processes=num_processes,
                               process_id=process_id, **kwargs)
    # Every process must launch the same programs in the same order (each program's collectives pair up
    # across processes). A replay program compiled in a background thread is picked up at a step that
    # depends on compile timing, different in each process: the processes' collectives then mismatch
    # (gloo aborts with "Received data size doesn't match expected size", or they hang). Compiling in the
    # foreground switches every process at the same step. (tj.config is per thread: this covers the
    # thread that calls initialize() and, when that is the main thread, threads that first use
    # tj.config later; deferred/replay.py also compiles in the foreground whenever jax.process_count() > 1.)
    from .config import config
    config.replay_background = False
    _initialized = True
    return True


ENV_PJRT_NPROC = "PJRT_NPROC"
_DEVICE_COUNT_FLAG = re.compile(r"--xla_force_host_platform_device_count=(\d+)")


def _local_cpu_device_count(environ=None) -> int:
    """The number of CPU devices JAX will create in this process (``jax_num_cpu_devices`` or
    ``--xla_force_host_platform_device_count`` in ``XLA_FLAGS``; 1 by default)."""
    environ = os.environ if environ is None else environ
    if environ is os.environ:
        try:
            import jax
            n = jax.config.jax_num_cpu_devices
            if n is not None and n >= 0:
                return int(n)
        except AttributeError:
            pass
    m = _DEVICE_COUNT_FLAG.findall(environ.get("XLA_FLAGS", ""))
    return int(m[-1]) if m else 1


def _available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def cpu_client_threads_needed(local_devices: int) -> int:
    """Threads the XLA CPU client's launch/execute pool needs so that multi-process collectives cannot
    deadlock: ``2 * local_devices + 1``.

    Why: jaxlib's CPU client (``PjRtCpuClient``) runs every multi-device program by scheduling one launch
    task per local device on a pool of ``max(#cpus, #local devices)`` threads; a launch task first takes a
    slot of the device's in-flight limit (32 programs) and blocks while none is free, and a device's
    execution of a program with a collective (gloo all-reduce etc.) blocks its thread until every process
    joins. When eager op-by-op dispatch runs 32 programs ahead, a launch task can block on the in-flight
    limit of device d while the earlier program that would free the slot still needs a thread to run its
    collective on device d; with #local devices threads, the other threads are all inside that same
    collective, so nothing moves and every process waits forever (seen as a hang of about 1 run in 4
    with 2 processes x 4 devices on a 2-core machine). At most ``local_devices`` launch tasks and
    ``local_devices`` collective executions block at once, so one more thread than that always leaves a
    thread to finish the collective."""
    return 2 * max(1, int(local_devices)) + 1


def ensure_cpu_client_threads(local_devices: Optional[int] = None, environ=None) -> int:
    """Raise the XLA CPU client's thread count (``PJRT_NPROC``, read when JAX creates the client) to
    :func:`cpu_client_threads_needed` if the current setting (``PJRT_NPROC``, else ``NPROC``, else the
    number of usable CPUs) is lower. Only has an effect before JAX starts its backend; never lowers a
    setting. Returns the thread count in force."""
    environ = os.environ if environ is None else environ
    if local_devices is None:
        local_devices = _local_cpu_device_count(environ)
    current = None
    for name in (ENV_PJRT_NPROC, "NPROC"):
        v = environ.get(name)
        if v is not None and v.strip().isdigit():
            current = int(v)
            break
    if current is None:
        current = _available_cpus()
    needed = cpu_client_threads_needed(local_devices)
    if current < needed:
        environ[ENV_PJRT_NPROC] = str(needed)
        return needed
    return current


def shutdown() -> None:
    """Leave the multi-process runtime (``jax.distributed.shutdown``); a no-op if not initialized."""
    global _initialized
    if _initialized:
        import jax
        jax.distributed.shutdown()
        _initialized = False


def is_initialized() -> bool:
    return _initialized


def process_index() -> int:
    import jax
    return jax.process_index()


def process_count() -> int:
    import jax
    return jax.process_count()


def _tensor(arr):
    from .tensor import Tensor
    return Tensor(arr)


def replicate(value: Any, mesh):
    """A Tensor holding ``value`` (the same host value in every process) replicated on every device of
    ``mesh``: the placement of data-parallel parameters."""
    import jax
    from jax.sharding import NamedSharding, PartitionSpec

    host = np.asarray(value)
    sharding = NamedSharding(mesh, PartitionSpec())
    return _tensor(jax.make_array_from_callback(host.shape, sharding, lambda idx: host[idx]))


def shard_batch(local_value: Any, mesh, axis_name: Optional[str] = None, batch_axis: int = 0):
    """A Tensor of the global batch, built from this process's rows (``local_value``), sharded along
    ``batch_axis`` over the mesh axis ``axis_name`` (the mesh's first axis by default). In one process,
    ``local_value`` is the whole batch; with the launcher, each process passes its own contiguous slice
    (process ``i`` holds rows ``i*n:(i+1)*n`` when the mesh lists devices in process order, as
    ``jax.devices()`` does)."""
    import jax
    from jax.sharding import NamedSharding, PartitionSpec

    host = np.asarray(local_value)
    axis_name = axis_name or mesh.axis_names[0]
    spec = [None] * host.ndim
    spec[batch_axis] = axis_name
    sharding = NamedSharding(mesh, PartitionSpec(*spec))
    return _tensor(jax.make_array_from_process_local_data(sharding, host))


def to_numpy(x: Any) -> np.ndarray:
    """The full value of a Tensor / global array on the host of every process (gathered across processes
    with ``jax.experimental.multihost_utils.process_allgather`` when it is not all here)."""
    import jax

    from .tensor import Tensor, Variable
    if isinstance(x, Variable):
        x = x.read_value()
    arr = x.value if isinstance(x, Tensor) else x
    if isinstance(arr, jax.Array) and not arr.is_fully_addressable and not arr.is_fully_replicated:
        from jax.experimental import multihost_utils
        return np.asarray(multihost_utils.process_allgather(arr, tiled=True))
    return np.asarray(arr)
