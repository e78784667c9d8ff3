"""One measurement at a time per GPU, in arrival order, across processes; one slot per GPU.

Public entry: ``gpu_slot(gpu=None, on_position=...)``, a context manager. ``gpu=None``
takes the first free GPU of this host (``visible_gpus()``); an integer takes that GPU.
Inside the ``with`` block the caller has ``slot.gpu`` to itself (every other process
using ``gpu_slot`` on the same host waits), so timings never overlap; the caller gives
its child ``CUDA_VISIBLE_DEVICES=slot.device`` so that the child sees only that GPU.
A waiting caller is told its position through ``on_position(n)``: n submissions are
ahead of it (those waiting before it, plus one while every GPU it could take is busy);
0 when its turn comes.

Visible GPUs: the entries of ``CUDA_VISIBLE_DEVICES`` when it is set ("" or "-1": none),
else one per ``/dev/nvidia[0-9]*`` device file; torch is never imported, so the server
process stays light. With no GPU seen, ``gpu=None`` falls back to GPU 0 (one slot).
Indices follow CUDA's enumeration; every process of a host must use the same
``CUDA_DEVICE_ORDER`` for the lock of GPU n to mean the same card.

How: each GPU has a lock file, held with ``fcntl.flock`` by the process measuring. One
queue directory serves the whole host: each waiter leaves a ticket file (named by
arrival time and by what it wants, a GPU or any) that it keeps locked while it waits,
so a ticket whose owner died is seen as stale (its lock can be taken) and removed. A
waiter tries the free GPUs only when fewer waiters ahead of it could take one of them
than there are free ones: arrival order is kept across all slots, and a waiter for GPU
1 never waits behind one for GPU 0. The kernel drops flock locks when a process dies: a
crashed server never blocks a GPU.

A submission cannot hold the GPU past its limit: the slot is held by the server-side
process, never by the submission (the lock file is opened close-on-exec, so the child
does not inherit it), and ``jail.run_isolated`` kills the child at its compile or
run limit, after which the ``with`` block ends. ``max_wait_s`` bounds the wait itself.

Directory of the lock files: ``TUILE_GPU_LOCK_DIR``, else /tmp/tuile-gpu-locks (it must
be shared by every process that measures on this host).
"""
from __future__ import annotations

import fcntl
import glob
import os
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from sandbox.french import fr_number


class QueueTimeout(Exception):
    """No GPU became free within ``max_wait_s``."""


@dataclass(frozen=True)
class Slot:
    gpu: int                   # the GPU index taken (CUDA's enumeration)
    waited_s: float
    position_at_arrival: int
    device: str = ""           # what the child's CUDA_VISIBLE_DEVICES must hold


def lock_dir() -> Path:
    return Path(os.environ.get("TUILE_GPU_LOCK_DIR", "/tmp/tuile-gpu-locks"))


def visible_gpus() -> list[tuple[int, str]]:
    """(index, CUDA_VISIBLE_DEVICES entry) of each GPU this process may use."""
    env = os.environ.get("CUDA_VISIBLE_DEVICES")
    if env is not None:
        entries = [e.strip() for e in env.split(",") if e.strip()]
        out = []
        for pos, entry in enumerate(entries):
            if entry == "-1":           # CUDA stops enumerating at an invalid entry
                break
            out.append((int(entry) if entry.isdigit() else pos, entry))
        return out
    found = sorted(int(m.group(1)) for p in glob.glob("/dev/nvidia[0-9]*")
                   if (m := re.fullmatch(r"/dev/nvidia(\d+)", p)))
    return [(n, str(n)) for n in found]


@contextmanager
def gpu_slot(gpu: int | None = None, *, on_position: Callable[[int], None] | None = None,
             max_wait_s: float | None = None, poll_s: float = 0.05,
             directory: Path | None = None) -> Iterator[Slot]:
    base = Path(directory) if directory is not None else lock_dir()
    queue = base / "queue"
    queue.mkdir(parents=True, exist_ok=True)
    if gpu is None:
        candidates = visible_gpus() or [(0, "0")]
        want = "any"
    else:
        candidates = [(int(gpu), str(gpu))]
        want = f"g{int(gpu)}"
    start = time.monotonic()
    ticket = queue / f"{time.time_ns():020d}-{os.getpid()}-{os.urandom(4).hex()}-{want}"
    # Locked before it is visible under its name, so nobody takes it for a stale one.
    tmp = queue / f".new-{ticket.name}"
    tfd = os.open(tmp, os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
    fcntl.flock(tfd, fcntl.LOCK_EX)
    os.rename(tmp, ticket)
    fds = {n: os.open(base / f"gpu-{n}.lock", os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
           for n, _ in candidates}
    mine = {n for n, _ in candidates}
    held, last, first_pos = None, None, None
    try:
        while True:
            ahead = [w for w in _live_tickets_before(queue, ticket.name)
                     if w == "any" or (w[1:].isdigit() and int(w[1:]) in mine)]
            free = [n for n, _ in candidates if not _locked(fds[n])]
            # Those ahead that could take one of the free GPUs go first.
            first = [w for w in ahead if w == "any" or int(w[1:]) in free]
            if free and len(first) < len(free):
                for n in free:
                    try:
                        fcntl.flock(fds[n], fcntl.LOCK_EX | fcntl.LOCK_NB)
                        held = n
                        break
                    except BlockingIOError:
                        continue
            pos = 0 if held is not None else max(1, len(ahead) + (0 if free else 1))
            if first_pos is None:
                first_pos = pos
            if pos != last and on_position is not None:
                on_position(pos)
            last = pos
            if held is not None:
                break
            if max_wait_s is not None and time.monotonic() - start > max_wait_s:
                which = f"GPU {gpu}" if gpu is not None else "tous les GPU"
                raise QueueTimeout(f"{which} occupé{'s' if gpu is None else ''} depuis plus de "
                                   f"{fr_number(max_wait_s, None)}\u00a0s")
            time.sleep(poll_s)
        _remove(ticket)
        device = dict(candidates)[held]
        yield Slot(gpu=held, waited_s=time.monotonic() - start, position_at_arrival=first_pos,
                   device=device)
    finally:
        if held is not None:
            fcntl.flock(fds[held], fcntl.LOCK_UN)
        for fd in fds.values():
            os.close(fd)
        _remove(ticket)
        os.close(tfd)


def _locked(fd: int) -> bool:
    """Is this GPU's lock held by someone else right now? (probe without keeping it)"""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    fcntl.flock(fd, fcntl.LOCK_UN)
    return False


def _live_tickets_before(queue: Path, mine: str) -> list[str]:
    """What each live ticket ahead of ``mine`` wants ("any" or "g<n>"), in arrival order."""
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
            live.append(name.rsplit("-", 1)[-1])
        finally:
            os.close(fd)
    return live


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
