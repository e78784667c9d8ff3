"""Resource limits of a jailed run: rlimits, the cgroup, the parent's disk checks.

Used by ``run`` (the docstring of ``sandbox.jail`` says what is and is not isolated):
the rlimit table the child script applies before it execs the submission; the per-run
cgroup (v2, else v1) with its memory and process caps; the parent's checks of scratch
(total size, entry count) and whether a file reached RLIMIT_FSIZE.
"""
from __future__ import annotations

import os
import resource
import time
from functools import lru_cache
from pathlib import Path

from sandbox.french import fr_bytes, fr_number, fr_typo
from sandbox.jail.procs import kill
from sandbox.jail.spec import Limits

_CGROUP_ROOT = Path("/sys/fs/cgroup")
# RLIMIT_DATA (heap) is the first memory cap; the cgroup, which also counts code pages,
# page cache and tmpfs, sits this much above it. With both equal, a hog stopped at its
# heap limit left the cgroup full and its exit spent > 6 s evicting pages (cgroup v1).
CGROUP_HEADROOM = 1 << 30
_SCRATCH_MAX_ENTRIES = 20000   # a Triton cache holds a few files per kernel


@lru_cache(maxsize=1)
def cgroup_kind() -> str:
    if os.geteuid() != 0 or os.environ.get("TUILE_SANDBOX_NO_CGROUP"):
        return ""
    v2 = _CGROUP_ROOT / "cgroup.controllers"
    if v2.exists() and "memory" in v2.read_text() and os.access(_CGROUP_ROOT, os.W_OK):
        return "v2"
    v1 = _CGROUP_ROOT / "memory"
    if (v1 / "memory.limit_in_bytes").exists() and os.access(v1, os.W_OK):
        return "v1"
    return ""


class Cgroup:
    """A cgroup holding one run: memory and process caps, kill and OOM check."""

    def __init__(self, name: str, limits: Limits):
        self.kind = cgroup_kind()
        self.dirs: list[Path] = []
        try:
            if self.kind == "v2":
                d = _CGROUP_ROOT / name
                d.mkdir()
                self.dirs = [d]
                (d / "memory.max").write_text(str(limits.memory_bytes + CGROUP_HEADROOM))
                (d / "memory.swap.max").exists() and (d / "memory.swap.max").write_text("0")
                (d / "pids.max").exists() and (d / "pids.max").write_text(str(limits.max_processes))
            elif self.kind == "v1":
                mem = _CGROUP_ROOT / "memory" / name
                mem.mkdir()
                self.dirs = [mem]
                (mem / "memory.limit_in_bytes").write_text(str(limits.memory_bytes + CGROUP_HEADROOM))
                pids = _CGROUP_ROOT / "pids" / name
                if (_CGROUP_ROOT / "pids").is_dir():
                    pids.mkdir()
                    self.dirs.append(pids)
                    (pids / "pids.max").write_text(str(limits.max_processes))
        except OSError:
            self.remove()
            self.kind, self.dirs = "", []

    def procs_files(self) -> list[str]:
        return [str(d / "cgroup.procs") for d in self.dirs]

    def usage(self) -> int:
        for d in self.dirs:
            for f in ("memory.current", "memory.usage_in_bytes"):
                try:
                    return int((d / f).read_text())
                except (OSError, ValueError):
                    pass
        return 0

    def oom_killed(self) -> bool:
        for d in self.dirs:
            for f, key in (("memory.events", "oom_kill"), ("memory.oom_control", "oom_kill")):
                try:
                    for line in (d / f).read_text().splitlines():
                        k, _, v = line.partition(" ")
                        if k == key and int(v) > 0:
                            return True
                except (OSError, ValueError):
                    pass
        return False

    def pids_limit_hit(self) -> bool:
        """Whether a fork was refused at ``pids.max`` (the "max" count of pids.events)."""
        for d in self.dirs:
            try:
                for line in (d / "pids.events").read_text().splitlines():
                    k, _, v = line.partition(" ")
                    if k == "max" and int(v) > 0:
                        return True
            except (OSError, ValueError):
                pass
        return False

    def kill_all(self) -> None:
        for d in self.dirs:
            if (d / "cgroup.kill").exists():
                try:
                    (d / "cgroup.kill").write_text("1")
                except OSError:
                    pass
            try:
                for pid in (d / "cgroup.procs").read_text().split():
                    kill(int(pid))
            except OSError:
                pass

    def remove(self) -> None:
        for d in self.dirs:
            for _ in range(50):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)






def rlimit_table(limits: Limits) -> list[tuple[int, int]]:
    table = [(resource.RLIMIT_CPU, limits.cpu_time_s),
             (resource.RLIMIT_NOFILE, limits.max_open_files),
             (resource.RLIMIT_FSIZE, limits.max_file_bytes),
             (resource.RLIMIT_CORE, 0),
             (resource.RLIMIT_NPROC, limits.max_processes)]
    # RLIMIT_DATA counts private writable mappings only, so CUDA's PROT_NONE address
    # reservations pass (checked on the H200: torch + Triton run under 8 GiB) while a
    # hog gets MemoryError at once. The cgroup, when there is one, stays the hard cap:
    # alone (v1 here), a hog near its limit spent 30 s evicting page cache before dying.
    table.append((resource.RLIMIT_DATA, limits.memory_bytes))
    return table


def _scratch_cap(limits: Limits) -> int:
    return max(16 * limits.max_file_bytes, 1 << 30)


def scratch_overflow(scratch: Path, limits: Limits) -> str:
    """scratch lives on the host's disk: cap its total size and its number of entries
    (checked twice a second, so a fast writer may pass the cap by about 1 GB)."""
    total, count = 0, 0
    for dirpath, dirnames, filenames in os.walk(scratch):
        count += len(dirnames) + len(filenames)
        if count > _SCRATCH_MAX_ENTRIES:
            return fr_typo(f"trop de fichiers dans l'espace de travail (plus de "
                           f"{fr_number(_SCRATCH_MAX_ENTRIES, 0)}) : processus arrêté")
        for name in filenames:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_blocks * 512
            except OSError:
                pass
    if total > _scratch_cap(limits):
        return fr_typo(f"espace disque de travail dépassé (limite "
                       f"{fr_bytes(_scratch_cap(limits))}) : processus arrêté")
    return ""


def file_at_limit(scratch: Path, limits: Limits) -> bool:
    for dirpath, _, filenames in os.walk(scratch):
        for name in filenames:
            try:
                if os.lstat(os.path.join(dirpath, name)).st_size >= limits.max_file_bytes:
                    return True
            except OSError:
                pass
    return False





