"""A real Dask pool on loopback for the tests: one scheduler and workers, each its own
process (``python -m gpupool.cli …``), in the Triton interpreter (no GPU needed)."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Pool:
    """Starts and kills the pool's processes; every process is in a session of its own,
    killed by its group at the end."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.port = free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.procs: list[subprocess.Popen] = []
        self.env = dict(os.environ, TRITON_INTERPRET="1", CUDA_VISIBLE_DEVICES="",
                        TUILE_GPU_LOCK_DIR=str(tmp / "locks"), DASK_TEMPORARY_DIRECTORY=str(tmp / "dask"),
                        PYTHONPATH=str(REPO))

    def _start(self, args: list[str], log: str, ready: str) -> subprocess.Popen:
        path = self.tmp / log
        proc = subprocess.Popen([sys.executable, "-m", "gpupool.cli", *args], cwd=REPO, env=self.env,
                                stdout=subprocess.DEVNULL, stderr=path.open("w"), start_new_session=True)
        self.procs.append(proc)
        deadline = time.monotonic() + 60
        while ready not in path.read_text(errors="replace"):
            assert proc.poll() is None, path.read_text()
            assert time.monotonic() < deadline, f"{log} not ready:\n{path.read_text()}"
            time.sleep(0.1)
        return proc

    def start_scheduler(self) -> subprocess.Popen:
        return self._start(["scheduler", "--host", "127.0.0.1", "--port", str(self.port)],
                           "scheduler.log", "à l'écoute")

    def start_worker(self, i: int) -> subprocess.Popen:
        return self._start(["worker", "--scheduler", self.address, "--listen", "127.0.0.1"],
                           f"worker-{i}.log", "worker Tuile")

    def kill(self, proc: subprocess.Popen) -> None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=30)

    def stop(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                self.kill(proc)


@pytest.fixture(scope="module")
def pool(tmp_path_factory):
    p = Pool(tmp_path_factory.mktemp("pool"))
    p.start_scheduler()
    yield p
    p.stop()
