"""Run one untrusted submission in a fresh, contained process.

Public entry: ``run_isolated(argv, scratch=..., limits=..., env=...)`` runs ``argv`` and
returns an ``IsolatedResult`` (never raises for what the child does). Inside the child,
``mark_phase(name)`` tells the parent which phase is under way, so that the compile
limit applies until "run" and the run limit after. ``isolation_layers()`` says which
layers this host grants; ``python -m sandbox.isolation`` prints it. The child side
(building the jail) is ``sandbox/_jail.py``; private helpers live in
``sandbox/_namespaces.py`` (namespaces, filesystem view, uid, environment) and
``sandbox/_limits.py`` (rlimits, cgroup, disk and memory checks, exit reasons).
Tests: ``tests/sandbox/test_isolation.py`` (each layer alone) and
``tests/sandbox/test_attacks.py`` (hostile submissions).

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
import selectors
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from sandbox._limits import (_CGROUP_HEADROOM, _Cgroup, _cgroup_kind, _exit_reason,
                             _file_at_limit, _kill, _memory_reason, _pids, _rlimit_table,
                             _scratch_overflow, _tree_rss)
from sandbox._namespaces import (_can_drop_uid, _chown_tree, _child_env, _namespace_flags,
                                 _pick_uid, _reclaim_scratch, _release_uid, _ro_paths)

__all__ = ["Limits", "IsolatedResult", "run_isolated", "mark_phase", "isolation_layers",
           "PHASE_FD_ENV"]

PHASE_FD_ENV = "TUILE_PHASE_FD"
_JAIL_FLAG = "--tuile-jail"   # the same as _jail.JAIL_FLAG (that file is run, not imported)
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


# ---------------------------------------------------------------- parent side

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
        _release_uid(uid)
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
        _release_uid(uid)


def _sweep(proc: subprocess.Popen, cgroup: _Cgroup, uid: int | None) -> None:
    """Leave nothing behind: the group, the cgroup's processes, every process of the uid."""
    for _ in range(3):
        _kill_group(proc)
        cgroup.kill_all()
        left = _pids(uid=uid) if uid is not None else []
        for pid in left:
            _kill(pid)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            continue
        if not left:
            return
        time.sleep(0.05)


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
                reason = _memory_reason(limits)
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
        reason = _memory_reason(limits)
    if not reason and rc is not None and rc != 0:
        reason = _exit_reason(rc, out["stderr"], limits)
    return IsolatedResult(returncode=rc, stdout=out["stdout"], stderr=out["stderr"],
                          timed_out=timed_out, phase=phase, killed_reason=reason,
                          wall_s=time.monotonic() - start)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


if __name__ == "__main__":
    for layer, state in isolation_layers().items():
        print(f"{layer} : {state}")
