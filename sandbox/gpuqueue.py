"""One measurement at a time per GPU, in arrival order, across processes.

Public entry: ``gpu_slot(gpu, on_position=...)``, a context manager. Inside the ``with``
block the caller has GPU ``gpu`` to itself (every other process using ``gpu_slot`` on
the same host waits), so timings never overlap. A waiting caller is told its position
through ``on_position(n)``: n submissions are ahead of it (the running one included);
0 when its turn comes.

How: each GPU has a lock file, held with ``fcntl.flock`` by the process measuring; each
waiter leaves a ticket file (named by arrival time) that it keeps locked while it waits,
so a ticket whose owner died is seen as stale (its lock can be taken) and removed. The
kernel drops flock locks when a process dies: a crashed server never blocks the GPU.

A submission cannot hold the GPU past its limit: the slot is held by the server-side
process, never by the submission (the lock file is opened close-on-exec, so the child
does not inherit it), and ``jail.run_isolated`` kills the child at its compile or
run limit, after which the ``with`` block ends. ``max_wait_s`` bounds the wait itself.

Directory of the lock files: ``TUILE_GPU_LOCK_DIR``, else /tmp/tuile-gpu-locks (it must
be shared by every process that measures on this host).
"""
from __future__ import annotations

import fcntl
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from sandbox.french import fr_number


class QueueTimeout(Exception):
    """The GPU did not become free within ``max_wait_s``."""


@dataclass(frozen=True)
class Slot:
    gpu: int
    waited_s: float
    position_at_arrival: int


def lock_dir() -> Path:
    return Path(os.environ.get("TUILE_GPU_LOCK_DIR", "/tmp/tuile-gpu-locks"))


@contextmanager
def gpu_slot(gpu: int = 0, *, on_position: Callable[[int], None] | None = None,
             max_wait_s: float | None = None, poll_s: float = 0.05,
             directory: Path | None = None) -> Iterator[Slot]:
    base = Path(directory) if directory is not None else lock_dir()
    queue = base / f"gpu-{gpu}.queue"
    queue.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    ticket = queue / f"{time.time_ns():020d}-{os.getpid()}-{os.urandom(4).hex()}"
    # Locked before it is visible under its name, so nobody takes it for a stale one.
    tmp = queue / f".new-{ticket.name}"
    tfd = os.open(tmp, os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
    fcntl.flock(tfd, fcntl.LOCK_EX)
    os.rename(tmp, ticket)
    gfd = os.open(base / f"gpu-{gpu}.lock", os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
    held, last, first_pos = False, None, None
    try:
        while True:
            ahead = _live_tickets_before(queue, ticket.name)
            if not ahead:
                try:
                    fcntl.flock(gfd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    held = True
                except BlockingIOError:
                    pass
            # The running one holds the lock and has dropped its ticket: count it apart.
            pos = 0 if held else max(1, len(ahead) + (1 if _locked(gfd) else 0))
            if first_pos is None:
                first_pos = pos
            if pos != last and on_position is not None:
                on_position(pos)
            last = pos
            if held:
                break
            if max_wait_s is not None and time.monotonic() - start > max_wait_s:
                raise QueueTimeout(f"GPU {gpu} occupé depuis plus de "
                                   f"{fr_number(max_wait_s, None)}\u00a0s")
            time.sleep(poll_s)
        _remove(ticket)
        yield Slot(gpu=gpu, waited_s=time.monotonic() - start, position_at_arrival=first_pos)
    finally:
        if held:
            fcntl.flock(gfd, fcntl.LOCK_UN)
        os.close(gfd)
        _remove(ticket)
        os.close(tfd)


def _locked(fd: int) -> bool:
    """Is the GPU lock held by someone else right now? (probe without keeping it)"""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    fcntl.flock(fd, fcntl.LOCK_UN)
    return False


def _live_tickets_before(queue: Path, mine: str) -> list[str]:
    live = []
    for name in sorted(os.listdir(queue)):
        if name.startswith("."):
            continue
        if name >= mine:
            break
        path = queue / name
        try:
            fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
        except FileNotFoundError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            # Nobody holds it: its owner died while waiting. Drop the stale ticket.
            _remove(path)
        except BlockingIOError:
            live.append(name)
        finally:
            os.close(fd)
    return live


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
