"""The parent side of a jailed run: start the child script, supervise it, sweep after.

``run_isolated`` prepares scratch and the uid, starts ``child.py`` (under ``unshare`` when
the host allows it), then watches the phase pipe, the time limits, the memory (cgroup or
RSS) and scratch's size until the child ends, and leaves no process behind.
``isolation_layers`` reports which layers this host grants. The docstring of
``sandbox.jail`` says what is and is not isolated.
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
from functools import lru_cache
from pathlib import Path

from sandbox.jail.namespaces import (can_drop_uid, child_env, chown_tree, namespace_flags,
                                     pick_uid, reclaim_scratch, release_uid, ro_paths)
from sandbox.french import fr_number
from sandbox.jail.procs import kill, pids, tree_rss
from sandbox.jail.reasons import (exit_reason, file_size_reason, memory_reason, output_note,
                                  process_reason, timeout_reason)
from sandbox.jail.resources import (CGROUP_HEADROOM, Cgroup, cgroup_kind, file_at_limit,
                                    rlimit_table, scratch_overflow)
from sandbox.jail.spec import JAIL_FLAG, PHASE_FD_ENV, PHASES, IsolatedResult, Limits

__all__ = ["run_isolated", "isolation_layers"]

_CHILD_SCRIPT = Path(__file__).resolve().with_name("child.py")
# After "done" the child only writes its result and exits (50 ms usually).
_DONE_GRACE_S = 10.0


# ---------------------------------------------------------------- host capabilities

@lru_cache(maxsize=1)
def isolation_layers() -> dict[str, str]:
    """Which layers this host grants: layer -> "oui" or why not (French, for reports)."""
    layers = {"groupe de processus": "oui", "rlimits": "oui", "environnement nettoyé": "oui"}
    ns = namespace_flags()
    layers["espaces de noms (réseau, montage, PID)"] = "oui" if ns else \
        "non : unshare absent ou refusé sur cet hôte"
    layers["système de fichiers en lecture seule"] = "oui" if ns else "non (pas d'espace de montage)"
    layers["réseau coupé"] = "oui" if ns else "non (pas d'espace réseau)"
    layers["utilisateur non privilégié"] = (
        "oui (uid propre à chaque exécution)" if can_drop_uid() else
        "non : l'interpréteur n'est pas accessible à un autre utilisateur"
        if os.geteuid() == 0 else "oui (espace utilisateur)" if ns else "déjà non privilégié")
    cg = cgroup_kind()
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
    environ = child_env(scratch, env)
    uid = pick_uid() if can_drop_uid() else None
    if uid is not None:
        chown_tree(scratch, uid)
        os.chmod(scratch, 0o700)
    cgroup = Cgroup(f"tuile-{os.getpid()}-{random.getrandbits(32):08x}", limits)
    ns = namespace_flags()
    cfg = {"argv": argv, "env": environ, "scratch": str(scratch), "uid": uid,
           "cgroup_procs": cgroup.procs_files(), "namespaces": bool(ns),
           "ro": ro_paths(scratch) if ns else [],
           "rlimits": rlimit_table(limits)}
    rfd, wfd = os.pipe()
    cfg["env"][PHASE_FD_ENV] = str(wfd)
    cmd = [*ns, sys.executable, "-I", "-S", str(_CHILD_SCRIPT), JAIL_FLAG,
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
        reclaim_scratch(scratch, uid)
        release_uid(uid)
        return IsolatedResult(None, "", str(exc), False, "start",
                              f"impossible de lancer le processus isolé : {exc}", 0.0)
    os.close(wfd)
    try:
        result = _supervise(proc, rfd, limits, start, cgroup, uid, scratch)
        if not result.killed_reason and result.returncode and file_at_limit(scratch, limits):
            # CPython ignores SIGXFSZ: the write fails with EFBIG and the program dies of
            # whatever error its library makes of that.
            result = dataclasses.replace(result, killed_reason=file_size_reason(limits))
        return result
    finally:
        _sweep(proc, cgroup, uid)
        cgroup.remove()
        reclaim_scratch(scratch, uid)
        release_uid(uid)


def _sweep(proc: subprocess.Popen, cgroup: Cgroup, uid: int | None) -> None:
    """Leave nothing behind: the group, the cgroup's processes, every process of the uid."""
    for _ in range(3):
        _kill_group(proc)
        cgroup.kill_all()
        left = pids(uid=uid) if uid is not None else []
        for pid in left:
            kill(pid)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            continue
        if not left:
            return
        time.sleep(0.05)


def _supervise(proc: subprocess.Popen, phase_fd: int, limits: Limits, start: float,
               cgroup: Cgroup, uid: int | None, scratch: Path) -> IsolatedResult:
    sel = selectors.DefaultSelector()
    bufs = {"stdout": bytearray(), "stderr": bytearray()}
    truncated = {"stdout": False, "stderr": False}
    sel.register(proc.stdout, selectors.EVENT_READ, "stdout")
    sel.register(proc.stderr, selectors.EVENT_READ, "stderr")
    sel.register(phase_fd, selectors.EVENT_READ, "phase")
    phase, phase_buf, phase_start = "start", b"", start
    timed_out, reason, exited_at, next_rss, next_disk = False, "", None, start, start
    procs_hit = False
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
            reason = (timeout_reason(phase, limit) if timed_out else
                      "processus arrêté : il ne se terminait pas après avoir fini")
            procs_hit = procs_hit or _at_process_cap(cgroup, uid, limits)
            break
        if now >= next_rss:   # memory outside RLIMIT_DATA (shared maps, tmpfs …)
            next_rss = now + 0.1
            used = cgroup.usage() if cgroup.kind else tree_rss(uid, proc.pid)
            if used > (limits.memory_bytes + CGROUP_HEADROOM) * 0.97:
                reason = memory_reason(limits)
                break
        if now >= next_disk:   # RLIMIT_FSIZE bounds one file, not how many
            next_disk = now + 0.5
            procs_hit = procs_hit or _at_process_cap(cgroup, uid, limits)
            why = scratch_overflow(scratch, limits)
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
                    if new not in PHASES or PHASES.index(new) <= PHASES.index(phase):
                        continue   # phases only move forward (a later "call" after "run")
                    if new in ("run", "done"):
                        phase_start = time.monotonic()   # each limit counts from its start
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
            out[k] += (f"\n[… sortie tronquée à {fr_number(limits.max_output_bytes, 0)} "
                       "octets]")
    rc = proc.returncode
    procs_hit = procs_hit or cgroup.pids_limit_hit()
    if not reason and cgroup.oom_killed():
        reason = memory_reason(limits)
    if not reason and rc is not None and rc != 0:
        reason = exit_reason(rc, out["stderr"], limits, str(scratch))
    if procs_hit and "limite de processus" not in reason:
        # A fork bomb ends in whatever broke first (a time-out, a CUDA error in a forked
        # child): the cap it hit is the cause worth naming.
        reason = process_reason(limits) + (f" ; {reason}" if reason else "")
    cut = tuple(k for k in ("stdout", "stderr") if truncated[k])
    return IsolatedResult(returncode=rc, stdout=out["stdout"], stderr=out["stderr"],
                          timed_out=timed_out, phase=phase, killed_reason=reason,
                          wall_s=time.monotonic() - start, truncated=cut,
                          output_note=output_note(cut, limits), process_limit_hit=procs_hit)


def _at_process_cap(cgroup: Cgroup, uid: int | None, limits: Limits) -> bool:
    """The run is at its process cap: pids.max refused a fork, or the run's own uid holds
    nearly RLIMIT_NPROC processes (threads are not seen in /proc's list; 2 spare)."""
    if cgroup.pids_limit_hit():
        return True
    return uid is not None and len(pids(uid=uid)) >= limits.max_processes - 2


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass

