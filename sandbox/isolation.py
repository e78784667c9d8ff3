"""Run one untrusted submission in a fresh, contained process.

Public entry: ``run_isolated(argv, scratch=..., limits=..., env=...)`` runs ``argv`` and
returns an ``IsolatedResult`` (never raises for what the child does). Inside the child,
``mark_phase(name)`` tells the parent which phase is under way, so that the compile
limit applies until "run" and the run limit after. ``isolation_layers()`` says which
layers this host grants; ``python -m sandbox.isolation`` prints it. The child side
(building the jail) is ``sandbox/_jail.py``. Tests: ``tests/sandbox/test_isolation.py``
(each layer alone) and ``tests/sandbox/test_attacks.py`` (hostile submissions).

What IS isolated (each layer applied when the host allows it, and tested):
- a fresh process (no state inherited from the server) in its own session and process
  group, in its own PID namespace when ``unshare`` works: at the time limit the group is
  killed, the namespace dies with its first process (so a child that called ``setsid``
  dies too), and every process left under the run's own uid is killed;
- rlimits: CPU time, open files, file size, no core dumps, and processes (RLIMIT_NPROC,
  which binds only a non-root uid: hence the unprivileged uid below);
- host memory: RLIMIT_DATA at ``memory_bytes`` (heap and private mappings: a hog gets
  MemoryError at once; RLIMIT_AS would break CUDA, which reserves far more address space
  than it uses), under a cgroup (v2, else v1: ``memory.max`` 1 GiB higher, ``pids.max``)
  when /sys/fs/cgroup is writable, else a parent-side RSS watchdog; the environment
  variable TUILE_SANDBOX_MAX_MEMORY (bytes) lowers ``memory_bytes`` for a whole host;
- stdout/stderr: kept up to ``max_output_bytes`` each, the rest read and dropped;
- disk: RLIMIT_FSIZE bounds each file; the parent also caps scratch as a whole
  (16 × ``max_file_bytes``, at least 1 GiB, and 20 000 entries), checked twice a second;
- network: a fresh network namespace (only a loopback that is down): no address,
  127.0.0.1 included, is reachable;
- filesystem (done with unshare and pivot_root, as bubblewrap would: bubblewrap is not
  installed on our hosts): a new root built from a tmpfs with read-only binds of only what Python,
  torch, triton and CUDA need (/usr, /lib*, /bin, /sbin, the interpreter's prefixes, the
  ``sandbox`` package, /sys, a few files of /etc with a fake passwd), a fresh /proc,
  a minimal /dev (null, zero, urandom… and the /dev/nvidia* nodes), a small /tmp, and the
  scratch directory as the only writable place (it holds TRITON_CACHE_DIR);
- user: when run as root, the child drops to a uid of its own (no file on the host
  belongs to it) with no groups and no_new_privs; unprivileged hosts use a user
  namespace instead;
- environment: scrubbed to a short allow-list; HOME, TMPDIR and every cache point into
  scratch.

What is NOT isolated:
- the GPU itself: the child can use all of the card's memory and time while it runs
  (the queue in ``gpuqueue`` serialises measurements; the run limit bounds the time);
  what an earlier submission left in GPU memory is not cleared by us;
- the worker process itself: the submission runs inside it, so it could patch the
  worker's timer or checker at run time; the pre-check refuses the code that does,
  and the worker's impossible-time check is the backstop;
- the kernel is the host's: a kernel exploit escapes every layer above (no seccomp),
  and so could a flaw in the GPU driver, which the child reaches through /dev/nvidia*;
- /sys is readable (CUDA needs it), so is the installed software: the child can read
  the sandbox's own code, reference solutions included;
- without ``unshare`` (or when namespaces are refused) only the process group, rlimits,
  uid and environment layers remain: ``isolation_layers()`` says which apply, and the
  static pre-check (``precheck``) is then the main barrier, which it is not meant to be.
"""
from __future__ import annotations

import dataclasses
import json
import os
import random
import resource
import selectors
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

PHASE_FD_ENV = "TUILE_PHASE_FD"
_JAIL_FLAG = "--tuile-jail"   # the same as _jail.JAIL_FLAG (that file is run, not imported)
_UID_RANGE = (0x7F000000 - 0x10000, 0x7F000000)   # far above any real account's uid
_CGROUP_ROOT = Path("/sys/fs/cgroup")
# RLIMIT_DATA (heap) is the first memory cap; the cgroup, which also counts code pages,
# page cache and tmpfs, sits this much above it. With both equal, a hog stopped at its
# heap limit left the cgroup full and its exit spent > 6 s evicting pages (cgroup v1).
_CGROUP_HEADROOM = 1 << 30
_UIDS_IN_USE: set[int] = set()
_UIDS_LOCK = threading.Lock()
_SCRATCH_MAX_ENTRIES = 20000   # a Triton cache holds a few files per kernel
# After "done" the child only writes its result and exits (50 ms usually).
_DONE_GRACE_S = 10.0


@dataclass(frozen=True)
class Limits:
    compile_timeout_s: float = 60.0   # until the worker marks phase "run"
    run_timeout_s: float = 60.0       # after it
    cpu_time_s: int = 120
    max_processes: int = 64           # RLIMIT_NPROC where it applies
    max_open_files: int = 256
    max_file_bytes: int = 64 << 20
    max_output_bytes: int = 64 << 10  # stdout/stderr kept, rest truncated
    memory_bytes: int = 8 << 30       # via cgroup when available (RLIMIT_AS breaks CUDA)


@dataclass(frozen=True)
class IsolatedResult:
    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool
    phase: str            # last phase the child reported: "start", "compile", "run", "done"
    killed_reason: str    # "" or a short French explanation
    wall_s: float


def mark_phase(name: str) -> None:
    """Called inside the child: report the phase to the parent (no-op outside a sandbox)."""
    fd = os.environ.get(PHASE_FD_ENV)
    if not fd:
        return
    try:
        os.write(int(fd), (name + "\n").encode())
    except (OSError, ValueError):
        pass


# ---------------------------------------------------------------- host capabilities

@lru_cache(maxsize=1)
def isolation_layers() -> dict[str, str]:
    """Which layers this host grants: layer -> "oui" or why not (French, for reports)."""
    layers = {"groupe de processus": "oui", "rlimits": "oui", "environnement nettoyé": "oui"}
    ns = _namespace_flags()
    layers["espaces de noms (réseau, montage, PID)"] = "oui" if ns else \
        "non : unshare absent ou refusé sur cet hôte"
    layers["système de fichiers en lecture seule"] = "oui" if ns else "non (pas d'espace de montage)"
    layers["réseau coupé"] = "oui" if ns else "non (pas d'espace réseau)"
    layers["utilisateur non privilégié"] = (
        "oui (uid propre à chaque exécution)" if _can_drop_uid() else
        "non : l'interpréteur n'est pas accessible à un autre utilisateur"
        if os.geteuid() == 0 else "oui (espace utilisateur)" if ns else "déjà non privilégié")
    cg = _cgroup_kind()
    layers["mémoire de l'hôte"] = (f"oui (RLIMIT_DATA et cgroup {cg})" if cg else
                                   "partielle : RLIMIT_DATA et surveillance du RSS "
                                   "(pas de cgroup inscriptible)")
    return layers


@lru_cache(maxsize=1)
def _namespace_flags() -> tuple[str, ...]:
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


@lru_cache(maxsize=1)
def _cgroup_kind() -> str:
    if os.geteuid() != 0 or os.environ.get("TUILE_SANDBOX_NO_CGROUP"):
        return ""
    v2 = _CGROUP_ROOT / "cgroup.controllers"
    if v2.exists() and "memory" in v2.read_text() and os.access(_CGROUP_ROOT, os.W_OK):
        return "v2"
    v1 = _CGROUP_ROOT / "memory"
    if (v1 / "memory.limit_in_bytes").exists() and os.access(v1, os.W_OK):
        return "v1"
    return ""


# ---------------------------------------------------------------- cgroup per run

class _Cgroup:
    """A cgroup holding one run: memory and process caps, kill and OOM check."""

    def __init__(self, name: str, limits: Limits):
        self.kind = _cgroup_kind()
        self.dirs: list[Path] = []
        try:
            if self.kind == "v2":
                d = _CGROUP_ROOT / name
                d.mkdir()
                self.dirs = [d]
                (d / "memory.max").write_text(str(limits.memory_bytes + _CGROUP_HEADROOM))
                (d / "memory.swap.max").exists() and (d / "memory.swap.max").write_text("0")
                (d / "pids.max").exists() and (d / "pids.max").write_text(str(limits.max_processes))
            elif self.kind == "v1":
                mem = _CGROUP_ROOT / "memory" / name
                mem.mkdir()
                self.dirs = [mem]
                (mem / "memory.limit_in_bytes").write_text(str(limits.memory_bytes + _CGROUP_HEADROOM))
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

    def kill_all(self) -> None:
        for d in self.dirs:
            if (d / "cgroup.kill").exists():
                try:
                    (d / "cgroup.kill").write_text("1")
                except OSError:
                    pass
            try:
                for pid in (d / "cgroup.procs").read_text().split():
                    _kill(int(pid))
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


# ---------------------------------------------------------------- parent side

_KEEP_ENV = ("PATH", "LANG", "LC_ALL", "CUDA_VISIBLE_DEVICES", "TRITON_INTERPRET",
             "PYTHONPATH", "TRITON_LIBCUDA_PATH", "LD_LIBRARY_PATH", "CUDA_HOME")


def _child_env(scratch: Path, extra: dict[str, str] | None) -> dict[str, str]:
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
        # Threads count against RLIMIT_NPROC / pids.max (64): torch would start one
        # OpenMP thread per core (16 on the H200 host, 128 on larger ones).
        "OMP_NUM_THREADS": "4",
    })
    env.update(extra or {})
    return env


def _ro_paths(scratch: Path) -> list[str]:
    """Paths the child needs to read: system dirs, the interpreter, the sandbox package."""
    want = ["/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/sys", "/opt/nvidia",
            "/usr/local/nvidia", "/usr/local/cuda", "/etc/alternatives"]
    for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
              os.path.dirname(os.path.realpath(sys.executable)),
              str(Path(__file__).resolve().parent)):
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
def _can_drop_uid() -> bool:
    """Root can give the child a uid of its own. Without the mount namespace the child
    sees the host's tree, so the interpreter and the package must be reachable by any
    user (here the interpreter lives under /root, mode 700: without namespaces the uid
    is then kept, and isolation_layers says so)."""
    if os.geteuid() != 0:
        return False
    if _namespace_flags():
        return True
    return all(_world_reachable(p) for p in (os.path.realpath(sys.executable),
                                             str(Path(__file__).resolve().parent)))


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


def _pick_uid() -> int:
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


def _uid_pids(uid: int) -> list[int]:
    pids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                if os.stat(f"/proc/{d}").st_uid == uid:
                    pids.append(int(d))
            except OSError:
                pass
    return pids


def _uid_has_processes(uid: int) -> bool:
    return bool(_uid_pids(uid))


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _chown_tree(root: Path, uid: int) -> None:
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [dirpath, *(os.path.join(dirpath, n) for n in dirnames + filenames)]:
            try:
                os.lchown(name, uid, uid)
            except OSError:
                pass


def run_isolated(argv: list[str], *, scratch: Path, limits: Limits = Limits(),
                 env: dict[str, str] | None = None) -> IsolatedResult:
    scratch = Path(scratch).resolve()
    cap = os.environ.get("TUILE_SANDBOX_MAX_MEMORY")   # deployment-wide ceiling, bytes
    if cap and cap.isdigit() and int(cap) < limits.memory_bytes:
        limits = dataclasses.replace(limits, memory_bytes=int(cap))
    for sub in ("tmp", "triton-cache", "cache"):
        (scratch / sub).mkdir(parents=True, exist_ok=True)
    child_env = _child_env(scratch, env)
    uid = _pick_uid() if _can_drop_uid() else None
    if uid is not None:
        _chown_tree(scratch, uid)
        os.chmod(scratch, 0o700)
    cgroup = _Cgroup(f"tuile-{os.getpid()}-{random.getrandbits(32):08x}", limits)
    ns = _namespace_flags()
    cfg = {"argv": argv, "env": child_env, "scratch": str(scratch), "uid": uid,
           "cgroup_procs": cgroup.procs_files(), "namespaces": bool(ns),
           "ro": _ro_paths(scratch) if ns else [],
           "rlimits": _rlimit_table(limits)}
    rfd, wfd = os.pipe()
    cfg["env"][PHASE_FD_ENV] = str(wfd)
    cmd = [*ns, sys.executable, "-I", "-S", str(Path(__file__).resolve().with_name("_jail.py")),
           _JAIL_FLAG,
           json.dumps(cfg)]
    start = time.monotonic()
    try:
        proc = subprocess.Popen(cmd, cwd=scratch, env={"PATH": "/usr/bin:/bin"},
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True,
                                pass_fds=(wfd,))
    except OSError as exc:
        os.close(rfd), os.close(wfd)
        cgroup.remove()
        _reclaim_scratch(scratch, uid)
        _UIDS_IN_USE.discard(uid)
        return IsolatedResult(None, "", str(exc), False, "start",
                              f"impossible de lancer le processus isolé : {exc}", 0.0)
    os.close(wfd)
    try:
        result = _supervise(proc, rfd, limits, start, cgroup, uid, scratch)
        if not result.killed_reason and result.returncode and _file_at_limit(scratch, limits):
            # CPython ignores SIGXFSZ: the write fails with EFBIG and the program dies of
            # whatever error its library makes of that.
            result = dataclasses.replace(
                result, killed_reason=f"limite de taille de fichier atteinte "
                                      f"({limits.max_file_bytes >> 20} Mio) : écriture refusée")
        return result
    finally:
        _sweep(proc, cgroup, uid)
        cgroup.remove()
        _reclaim_scratch(scratch, uid)
        _UIDS_IN_USE.discard(uid)


def _scratch_cap(limits: Limits) -> int:
    return max(16 * limits.max_file_bytes, 1 << 30)


def _scratch_overflow(scratch: Path, limits: Limits) -> str:
    """scratch lives on the host's disk: cap its total size and its number of entries
    (checked twice a second, so a fast writer may pass the cap by about 1 GB)."""
    total, count = 0, 0
    for dirpath, dirnames, filenames in os.walk(scratch):
        count += len(dirnames) + len(filenames)
        if count > _SCRATCH_MAX_ENTRIES:
            return (f"trop de fichiers dans l'espace de travail (plus de "
                    f"{_SCRATCH_MAX_ENTRIES}) : processus arrêté")
        for name in filenames:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_blocks * 512
            except OSError:
                pass
    if total > _scratch_cap(limits):
        return (f"espace disque de travail dépassé (limite {_scratch_cap(limits) >> 20} Mio) : "
                "processus arrêté")
    return ""


def _file_at_limit(scratch: Path, limits: Limits) -> bool:
    for dirpath, _, filenames in os.walk(scratch):
        for name in filenames:
            try:
                if os.lstat(os.path.join(dirpath, name)).st_size >= limits.max_file_bytes:
                    return True
            except OSError:
                pass
    return False


def _reclaim_scratch(scratch: Path, uid: int | None) -> None:
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


def _rlimit_table(limits: Limits) -> list[tuple[int, int]]:
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


def _sweep(proc: subprocess.Popen, cgroup: _Cgroup, uid: int | None) -> None:
    """Leave nothing behind: the group, the cgroup's processes, every process of the uid."""
    for _ in range(3):
        _kill_group(proc)
        cgroup.kill_all()
        left = _uid_pids(uid) if uid is not None else []
        for pid in left:
            _kill(pid)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            continue
        if not left:
            return
        time.sleep(0.05)


def _tree_rss(uid: int | None, pgid: int) -> int:
    total = 0
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            if uid is not None and os.stat(f"/proc/{d}").st_uid != uid:
                continue
            if uid is None and os.getpgid(int(d)) != pgid:
                continue
            for line in open(f"/proc/{d}/status"):
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except (OSError, ValueError):
            pass
    return total


def _supervise(proc: subprocess.Popen, phase_fd: int, limits: Limits, start: float,
               cgroup: _Cgroup, uid: int | None, scratch: Path) -> IsolatedResult:
    sel = selectors.DefaultSelector()
    bufs = {"stdout": bytearray(), "stderr": bytearray()}
    truncated = {"stdout": False, "stderr": False}
    sel.register(proc.stdout, selectors.EVENT_READ, "stdout")
    sel.register(proc.stderr, selectors.EVENT_READ, "stderr")
    sel.register(phase_fd, selectors.EVENT_READ, "phase")
    phase, phase_buf, phase_start = "start", b"", start
    timed_out, reason, exited_at, next_rss, next_disk = False, "", None, start, start
    while sel.get_map():
        now = time.monotonic()
        if exited_at is None and proc.poll() is not None:
            exited_at = now
            _kill_group(proc)   # stragglers holding the pipes open go with it
        if exited_at is not None and now - exited_at > 2.0:
            break
        limit = (limits.run_timeout_s if phase == "run" else
                 _DONE_GRACE_S if phase == "done" else limits.compile_timeout_s)
        if now >= phase_start + limit:
            # Past "done" the result is written: stopping a slow exit is no time-out.
            timed_out = phase != "done"
            reason = (f"délai dépassé pendant la phase « {phase} » "
                      f"(limite {limit:g} s) : processus arrêté" if timed_out else
                      "processus arrêté : il ne se terminait pas après avoir fini")
            break
        if now >= next_rss:   # memory outside RLIMIT_DATA (shared maps, tmpfs …)
            next_rss = now + 0.1
            used = cgroup.usage() if cgroup.kind else _tree_rss(uid, proc.pid)
            if used > (limits.memory_bytes + _CGROUP_HEADROOM) * 0.97:
                reason = (f"mémoire de l'hôte dépassée (limite "
                          f"{limits.memory_bytes / 2**30:.1f} Gio) : processus arrêté")
                break
        if now >= next_disk:   # RLIMIT_FSIZE bounds one file, not how many
            next_disk = now + 0.5
            why = _scratch_overflow(scratch, limits)
            if why:
                reason = why
                break
        wait = min(phase_start + limit - now, 0.1)
        for key, _ in sel.select(timeout=max(wait, 0.01)):
            fd = key.fileobj if isinstance(key.fileobj, int) else key.fileobj.fileno()
            data = os.read(fd, 1 << 16)
            if not data:
                sel.unregister(key.fileobj)
                continue
            if key.data == "phase":
                phase_buf += data
                *names, phase_buf = phase_buf.split(b"\n")
                for n in names:
                    new = n.decode(errors="replace").strip()[:20]
                    if new in ("run", "done") and new != phase:
                        phase_start = time.monotonic()   # each limit counts from its start
                    if new:
                        phase = new
                continue
            buf = bufs[key.data]
            room = limits.max_output_bytes - len(buf)
            if room > 0:
                buf += data[:room]
            if len(data) > max(room, 0):
                truncated[key.data] = True
    _kill_group(proc)
    cgroup.kill_all()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
    for f in (proc.stdout, proc.stderr):
        f.close()
    os.close(phase_fd)
    sel.close()
    out = {k: v.decode(errors="replace") for k, v in bufs.items()}
    for k in out:
        if truncated[k]:
            out[k] += f"\n[… sortie tronquée à {limits.max_output_bytes} octets]"
    rc = proc.returncode
    if not reason and cgroup.oom_killed():
        reason = (f"mémoire de l'hôte dépassée (limite "
                  f"{limits.memory_bytes / 2**30:.1f} Gio) : processus arrêté")
    if not reason and rc is not None and rc != 0:
        reason = _exit_reason(rc, out["stderr"], limits)
    return IsolatedResult(returncode=rc, stdout=out["stdout"], stderr=out["stderr"],
                          timed_out=timed_out, phase=phase, killed_reason=reason,
                          wall_s=time.monotonic() - start)


def _exit_reason(rc: int, stderr: str, limits: Limits) -> str:
    # The jail reports a fatal signal n as exit status 128 + n.
    sig = -rc if rc < 0 else rc - 128 if 128 < rc < 160 else 0
    if sig == signal.SIGXCPU:
        return "limite de temps CPU dépassée : processus arrêté"
    if sig == signal.SIGXFSZ or "File too large" in stderr:
        return "limite de taille de fichier dépassée (écriture interrompue)"
    if sig == signal.SIGKILL:
        return "processus tué (mémoire ou limite atteinte)"
    tail = stderr[-3000:]
    if "CUDA out of memory" in tail or "OutOfMemoryError" in tail:
        return "mémoire du GPU épuisée : allocation refusée"
    if any(w in tail for w in ("MemoryError", "Cannot allocate memory",
                               "can't allocate memory")):
        return (f"mémoire de l'hôte dépassée (limite {limits.memory_bytes / 2**30:.1f} Gio) : "
                "allocation refusée")
    if sig:
        try:
            return f"processus arrêté par le signal {signal.Signals(sig).name}"
        except ValueError:
            return f"processus arrêté par le signal {sig}"
    return ""


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


if __name__ == "__main__":
    for layer, state in isolation_layers().items():
        print(f"{layer} : {state}")
