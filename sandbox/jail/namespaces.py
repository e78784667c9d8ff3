"""What the jailed child sees: namespaces, filesystem view, uid, environment.

Used by ``run`` (the docstring of ``sandbox.jail`` says what is and is not isolated):
whether ``unshare`` grants network, mount and PID namespaces here; the read-only paths the
child script (``child.py``) binds into its new root; the scrubbed environment; the uid of
a run; giving scratch back to the server after the run.
"""
from __future__ import annotations

import os
import random
import shutil
import stat
import subprocess
import sys
import threading
from functools import lru_cache
from pathlib import Path

from sandbox.jail.procs import pids

_UID_RANGE = (0x7F000000 - 0x10000, 0x7F000000)   # far above any real account's uid
_UIDS_IN_USE: set[int] = set()
_UIDS_LOCK = threading.Lock()
# The sandbox package (two levels up from sandbox/jail/namespaces.py), bound read-only.
_PACKAGE_DIR = Path(__file__).resolve().parent.parent


@lru_cache(maxsize=1)
def namespace_flags() -> tuple[str, ...]:
    exe = shutil.which("unshare")
    if not exe or os.environ.get("TUILE_SANDBOX_NO_NAMESPACES"):
        return ()
    flags = ("--net", "--mount", "--pid", "--fork", "--kill-child")
    if os.geteuid() != 0:
        flags = ("--user", "--map-root-user") + flags
    try:
        ok = subprocess.run([exe, *flags, "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        ok = False
    return (exe, *flags) if ok else ()


_KEEP_ENV = ("PATH", "LANG", "LC_ALL", "CUDA_VISIBLE_DEVICES", "TRITON_INTERPRET",
             "PYTHONPATH", "TRITON_LIBCUDA_PATH", "LD_LIBRARY_PATH", "CUDA_HOME")


def child_env(scratch: Path, extra: dict[str, str] | None) -> dict[str, str]:
    env = {k: os.environ[k] for k in _KEEP_ENV if k in os.environ}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.update({
        "HOME": str(scratch),
        "TMPDIR": str(scratch / "tmp"),
        "TRITON_CACHE_DIR": str(scratch / "triton-cache"),
        "TRITON_HOME": str(scratch),
        "XDG_CACHE_HOME": str(scratch / "cache"),
        "TORCHINDUCTOR_CACHE_DIR": str(scratch / "cache" / "inductor"),
        "CUDA_CACHE_PATH": str(scratch / "cache" / "nv"),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        # On SIGSEGV, SIGBUS, SIGFPE or SIGABRT Python prints its stack to stderr: the
        # exit reason gives the submission's line from it.
        "PYTHONFAULTHANDLER": "1",
        # Threads count against RLIMIT_NPROC / pids.max (64): torch would start one
        # OpenMP thread per core (16 on the H200 host, 128 on larger ones).
        "OMP_NUM_THREADS": "4",
    })
    env.update(extra or {})
    return env


def ro_paths(scratch: Path) -> list[str]:
    """Paths the child needs to read: system dirs, the interpreter, the sandbox package."""
    want = ["/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/sys", "/opt/nvidia",
            "/usr/local/nvidia", "/usr/local/cuda", "/etc/alternatives"]
    for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
              os.path.dirname(os.path.realpath(sys.executable)),
              str(_PACKAGE_DIR)):
        want.append(p)
    for p in sys.path + os.environ.get("PYTHONPATH", "").split(os.pathsep):
        p = os.path.abspath(p) if p else ""
        if p and os.path.isdir(p) and not os.path.isdir(os.path.join(p, "sandbox")):
            want.append(p)   # site-packages yes; the repo root no (only sandbox/ from it)
    want += [os.path.realpath(p) for p in list(want)]
    out = []
    for p in sorted(set(want), key=len):
        p = os.path.normpath(os.path.abspath(p))
        if not os.path.exists(p) or p == "/" or str(scratch).startswith(p + "/"):
            continue
        if any(p == q or p.startswith(q + "/") for q in out if not os.path.islink(q)):
            continue
        out.append(p)
    return out


@lru_cache(maxsize=1)
def can_drop_uid() -> bool:
    """Root can give the child a uid of its own. Without the mount namespace the child
    sees the host's tree, so the interpreter and the package must be reachable by any
    user (here the interpreter lives under /root, mode 700: without namespaces the uid
    is then kept, and isolation_layers says so)."""
    if os.geteuid() != 0:
        return False
    if namespace_flags():
        return True
    return all(_world_reachable(p) for p in (os.path.realpath(sys.executable),
                                             str(_PACKAGE_DIR)))


def _world_reachable(path: str) -> bool:
    p = Path(path)
    for d in [*reversed(p.parents), p]:
        try:
            mode = d.stat().st_mode
        except OSError:
            return False
        if stat.S_ISDIR(mode) and not mode & stat.S_IXOTH:
            return False
    return True


def pick_uid() -> int:
    taken = set()
    try:
        for line in Path("/etc/passwd").read_text().splitlines():
            taken.add(int(line.split(":")[2]))
    except (OSError, ValueError, IndexError):
        pass
    with _UIDS_LOCK:   # two runs of this server never share a uid (the sweep kills by uid)
        while True:
            uid = random.randrange(*_UID_RANGE)
            if uid not in taken and uid not in _UIDS_IN_USE and not _uid_has_processes(uid):
                _UIDS_IN_USE.add(uid)
                return uid


def _uid_has_processes(uid: int) -> bool:
    return bool(pids(uid=uid))


def release_uid(uid: int | None) -> None:
    with _UIDS_LOCK:
        _UIDS_IN_USE.discard(uid)


def chown_tree(root: Path, uid: int) -> None:
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [dirpath, *(os.path.join(dirpath, n) for n in dirnames + filenames)]:
            try:
                os.lchown(name, uid, uid)
            except OSError:
                pass


def reclaim_scratch(scratch: Path, uid: int | None) -> None:
    """Give scratch back to the server and drop what is not a plain file or folder: the
    server reads result files there, and a symlink to a host file or a FIFO that blocks
    the reader must not be what it opens."""
    for dirpath, dirnames, filenames in os.walk(scratch):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
                try:
                    os.unlink(path)
                except OSError:
                    pass
            elif uid is not None:
                try:
                    os.lchown(path, os.geteuid(), os.getegid())
                    if stat.S_ISREG(st.st_mode):
                        os.chmod(path, st.st_mode & 0o755)   # no setuid bits kept
                except OSError:
                    pass
    if uid is not None:
        try:
            os.chown(scratch, os.geteuid(), os.getegid())
        except OSError:
            pass
