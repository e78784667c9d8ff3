"""Start a Dask pool of Tuile on this host for the benchmarks: a scheduler and workers,
each a process of its own (``python -m gpupool.cli …``) in a session of its own, killed
by group at the end. Standard library only (the GPU host has nothing else to spare)."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalPool:
    def __init__(self, logs: Path, env: dict | None = None):
        self.logs = Path(logs)
        self.logs.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
        self.env = dict(os.environ, PYTHONPATH=path, **(env or {}))
        self.procs: list[subprocess.Popen] = []

    def _start(self, args, log, ready, env=None):
        path = self.logs / log
        proc = subprocess.Popen([sys.executable, "-m", "gpupool.cli", *args], cwd=REPO,
                                env=dict(self.env, **(env or {})), stdout=subprocess.DEVNULL,
                                stderr=path.open("w"), start_new_session=True)
        self.procs.append(proc)
        deadline = time.monotonic() + 90
        while ready not in path.read_text(errors="replace"):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{log} did not start:\n{path.read_text(errors='replace')[-2000:]}")
            time.sleep(0.1)
        return proc

    def start_scheduler(self):
        return self._start(["scheduler", "--host", "127.0.0.1", "--port", str(self.port)],
                           "scheduler.log", "à l'écoute")

    def start_worker(self, i: int, gpus: int | None = None, env: dict | None = None):
        args = ["worker", "--scheduler", self.address, "--listen", "127.0.0.1"]
        if gpus:
            args += ["--gpus", str(gpus)]
        return self._start(args, f"worker-{i}.log", "worker Tuile", env)

    def stop(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait(timeout=30)
        self.procs.clear()

    def __enter__(self):
        self.start_scheduler()
        return self

    def __exit__(self, *exc):
        self.stop()
