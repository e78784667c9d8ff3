"""The host's processes as /proc shows them: find a run's processes, kill one, sum RSS.

Used by ``resources`` (cgroup kill, RSS watchdog), ``namespaces`` (is a uid free) and
``run`` (the final sweep). One /proc scan serves all three. Standard library only.
"""
from __future__ import annotations

import os
import signal


def pids(*, uid: int | None = None, pgid: int | None = None) -> list[int]:
    """Live processes owned by ``uid``, or else in process group ``pgid``, from /proc."""
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            if (os.stat(f"/proc/{d}").st_uid == uid if uid is not None
                    else os.getpgid(int(d)) == pgid):
                found.append(int(d))
        except OSError:
            pass
    return found


def kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def tree_rss(uid: int | None, pgid: int) -> int:
    """Resident memory of the run's processes (by uid, else by process group), bytes."""
    total = 0
    for pid in pids(uid=uid, pgid=pgid):
        try:
            for line in open(f"/proc/{pid}/status"):
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except (OSError, ValueError):
            pass
    return total
