"""Start a multi-process tapejax/JAX program on this machine.

    python -m tapejax.launch -n 2 [--local-devices 4] [--port PORT] [--timeout SECONDS] script.py [args...]
    python -m tapejax.launch -n 2 -m package.module [args...]

Picks a free port on the loopback address, starts ``n`` copies of the script with the environment

    TAPEJAX_COORDINATOR_ADDRESS=127.0.0.1:PORT   TAPEJAX_NUM_PROCESSES=n   TAPEJAX_PROCESS_ID=i

(read by ``tapejax.distributed.initialize()``, which hands them to ``jax.distributed.initialize``) and
waits for all of them. It also raises ``PJRT_NPROC`` (the XLA CPU client's thread count) to
``2 * local devices + 1`` when it is lower, which multi-process CPU collectives need to be deadlock-free
(see ``tapejax.distributed.cpu_client_threads_needed``). ``--local-devices k`` gives each process ``k`` simulated CPU devices
(``XLA_FLAGS=--xla_force_host_platform_device_count=k``). If one process fails, the others are stopped
and the launcher exits with the failing status (124 on ``--timeout``), so a CI job sees the failure.
Only the loopback address is used: this is for one machine; on a cluster, set the three variables
with the cluster's own launcher.
"""
from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
from typing import List, Optional, Sequence

from .distributed import ENV_COORDINATOR, ENV_NUM_PROCESSES, ENV_PROCESS_ID, ensure_cpu_client_threads

LOOPBACK = "127.0.0.1"


def free_port(host: str = LOOPBACK) -> int:
    """A TCP port nobody listens on now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _xla_flags(existing: str, local_devices: Optional[int]) -> str:
    if local_devices is None:
        return existing
    kept = [f for f in existing.split() if not f.startswith("--xla_force_host_platform_device_count")]
    return " ".join(kept + [f"--xla_force_host_platform_device_count={local_devices}"])


def child_env(process_id: int, num_processes: int, port: int, local_devices: Optional[int] = None,
              base: Optional[dict] = None) -> dict:
    env = dict(os.environ if base is None else base)
    env[ENV_COORDINATOR] = f"{LOOPBACK}:{port}"
    env[ENV_NUM_PROCESSES] = str(num_processes)
    env[ENV_PROCESS_ID] = str(process_id)
    flags = _xla_flags(env.get("XLA_FLAGS", ""), local_devices)
    if flags:
        env["XLA_FLAGS"] = flags
    # Enough XLA CPU client threads that collectives of eagerly dispatched programs cannot deadlock
    # (PJRT_NPROC; see tapejax.distributed.cpu_client_threads_needed). Never lowers a user's setting.
    ensure_cpu_client_threads(environ=env)
    return env


def _stop(procs: Sequence[subprocess.Popen], grace: float = 5.0) -> None:
    for p in procs:
        if p.poll() is None:
            try:
                p.send_signal(signal.SIGTERM)
            except OSError:
                pass
    deadline = time.monotonic() + grace
    for p in procs:
        if p.poll() is None:
            try:
                p.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def launch(command: Sequence[str], num_processes: int, local_devices: Optional[int] = None,
           port: Optional[int] = None, timeout: Optional[float] = None) -> int:
    """Run ``command`` (an argv list) as ``num_processes`` cooperating processes; the exit status: 0 when
    all succeed, else the first failure's status (a process killed by signal s gives 128 + s, a
    timeout 124)."""
    if num_processes < 1:
        raise ValueError(f"tapejax.launch: -n must be at least 1, got {num_processes}")
    if not command:
        raise ValueError("tapejax.launch: no script to run")
    port = port or free_port()
    procs: List[subprocess.Popen] = []
    try:
        for i in range(num_processes):
            procs.append(subprocess.Popen(list(command), env=child_env(i, num_processes, port, local_devices)))
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            codes = [p.poll() for p in procs]
            failed = [(i, c) for i, c in enumerate(codes) if c not in (None, 0)]
            if failed:
                i, c = failed[0]
                print(f"tapejax.launch: process {i} exited with status {c}; stopping the others.",
                      file=sys.stderr, flush=True)
                _stop(procs)
                return 128 - c if c < 0 else c
            if all(c == 0 for c in codes):
                return 0
            if deadline is not None and time.monotonic() > deadline:
                print(f"tapejax.launch: timed out after {timeout} s; stopping all processes.",
                      file=sys.stderr, flush=True)
                _stop(procs)
                return 124
            time.sleep(0.05)
    except BaseException:
        _stop(procs)
        raise


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tapejax.launch",
        description="Run a tapejax/JAX script as N cooperating processes on this machine "
                    "(jax.distributed over the loopback address).")
    parser.add_argument("-n", "--num-processes", type=int, required=True, help="number of processes")
    parser.add_argument("--local-devices", type=int, default=None,
                        help="simulated CPU devices per process (sets XLA_FLAGS)")
    parser.add_argument("--port", type=int, default=None, help="coordinator port (default: a free one)")
    parser.add_argument("--timeout", type=float, default=None, help="stop everything after this many seconds")
    parser.add_argument("-m", dest="module", default=None, help="run a module (as python -m) instead of a script")
    parser.add_argument("script", nargs="?", help="the Python script to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script")
    ns = parser.parse_args(argv)
    if ns.module is not None:
        rest = ([ns.script] if ns.script is not None else []) + list(ns.args)
        command = [sys.executable, "-m", ns.module] + rest
    elif ns.script is None:
        parser.error("a script (or -m module) to run is required")
    else:
        command = [sys.executable, ns.script] + list(ns.args)
    return launch(command, ns.num_processes, ns.local_devices, ns.port, ns.timeout)


if __name__ == "__main__":
    sys.exit(main())
