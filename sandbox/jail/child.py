"""The child side of ``sandbox.jail.run_isolated``: build the jail, then run the submission.

Run by ``run_isolated`` as ``python -I -S sandbox/jail/child.py --tuile-jail CONFIG_JSON``,
under ``unshare`` (new network, mount and PID namespaces) when the host allows it, as
root or as the mapped root of a user namespace. Standard library only, and nothing
imported from the sandbox package: it runs before the jail exists, and ``-I`` keeps its
own directory off sys.path (so no module of ``sandbox/jail`` can shadow a standard one).

Steps: join the run's cgroup; build a new root (tmpfs + read-only binds, fresh /proc,
minimal /dev, small /tmp, scratch writable) and pivot into it; fork; the child sets the
rlimits, drops to the run's uid with no groups and no_new_privs, and execs the
submission's command; this process waits for it as the namespace's init and exits with
its status (128 + n for a signal n), which ends the PID namespace and every process
still in it.
"""
from __future__ import annotations

import ctypes
import glob
import json
import os
import resource
import signal
import sys

JAIL_FLAG = "--tuile-jail"   # the same as spec.JAIL_FLAG (this file is run, not imported)

_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 32, 4096, 16384, 1 << 18
_MNT_DETACH = 2
_PR_SET_PDEATHSIG, _PR_SET_NO_NEW_PRIVS = 1, 38
_SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}.get(os.uname().machine, 155)
_DEV_NODES = ("null", "zero", "full", "random", "urandom", "tty")


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    return libc


def _sys_mount(libc, src, dst, fstype, flags, data=None) -> None:
    enc = lambda s: s.encode() if isinstance(s, str) else s
    if libc.mount(enc(src), enc(dst), enc(fstype), ctypes.c_ulong(flags), enc(data)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount {src} -> {dst}: {os.strerror(err)}")


def _bind(libc, src: str, dst: str, flags: int) -> None:
    if os.path.islink(src):
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if not os.path.lexists(dst):
            os.symlink(os.readlink(src), dst)
        return
    if os.path.isdir(src):
        os.makedirs(dst, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        open(dst, "a").close()
    _sys_mount(libc, src, dst, None, _MS_BIND | _MS_REC)
    # Remount read-only, keeping the flags the mount already had (a remount may not
    # drop nosuid/nodev/noexec when they are locked). A bind that cannot be made
    # read-only is taken away again, never left writable.
    for mnt in reversed(_mounts_under(dst)):
        keep = os.statvfs(mnt).f_flag & (_MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
        try:
            _sys_mount(libc, None, mnt, None,
                       _MS_REMOUNT | _MS_BIND | keep | flags)
        except OSError:
            if flags & _MS_RDONLY:
                libc.umount2(dst.encode(), _MNT_DETACH)
                raise


def _mounts_under(path: str) -> list[str]:
    out = []
    for line in open("/proc/self/mountinfo"):
        mnt = line.split()[4].replace("\\040", " ")
        if mnt == path or mnt.startswith(path.rstrip("/") + "/"):
            out.append(mnt)
    return out


def _build_root(libc, cfg: dict) -> None:
    root = "/tmp/.tuile-jail-root"   # only a mount point; each namespace has its own tmpfs
    os.makedirs(root, exist_ok=True)
    _sys_mount(libc, None, "/", None, _MS_REC | _MS_PRIVATE)
    _sys_mount(libc, "tuile", root, "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=755,size=16m")
    # The small /tmp goes first: a checkout or virtual environment that lives under /tmp
    # (a CI clone in /tmp/…) is bound on top of it, not hidden beneath it.
    os.makedirs(root + "/tmp", exist_ok=True)
    _sys_mount(libc, "tuile-tmp", root + "/tmp", "tmpfs", _MS_NOSUID | _MS_NODEV,
               "mode=1777,size=64m")
    for p in cfg["ro"]:
        try:
            _bind(libc, p, root + p, _MS_RDONLY | _MS_NOSUID)
        except OSError as exc:   # that path stays invisible; the run may still work
            sys.stderr.write(f"tuile-jail: {p} non monté ({exc.strerror})\n")
    etc = root + "/etc"
    os.makedirs(etc, exist_ok=True)
    for name in ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "nsswitch.conf",
                 "alternatives", "ssl", "os-release"):
        if os.path.exists("/etc/" + name) and not os.path.exists(etc + "/" + name):
            _bind(libc, "/etc/" + name, etc + "/" + name, _MS_RDONLY | _MS_NOSUID)
    uid = cfg["uid"] if cfg["uid"] is not None else 0
    with open(etc + "/passwd", "w") as f:
        f.write(f"root:x:0:0:root:/nonexistent:/usr/sbin/nologin\n"
                f"tuile:x:{uid}:{uid}:tuile:{cfg['scratch']}:/usr/sbin/nologin\n")
    with open(etc + "/group", "w") as f:
        f.write(f"root:x:0:\ntuile:x:{uid}:\n")
    with open(etc + "/hosts", "w") as f:
        f.write("127.0.0.1 localhost\n")
    dev = root + "/dev"
    os.makedirs(dev)
    _sys_mount(libc, "tuile-dev", dev, "tmpfs", _MS_NOSUID, "mode=755,size=64k")
    for name in _DEV_NODES + tuple(os.path.basename(p) for p in glob.glob("/dev/nvidia*")):
        if os.path.exists("/dev/" + name) and not os.path.isdir("/dev/" + name):
            _bind(libc, "/dev/" + name, dev + "/" + name, _MS_NOSUID)
    if os.path.isdir("/dev/nvidia-caps"):
        _bind(libc, "/dev/nvidia-caps", dev + "/nvidia-caps", _MS_NOSUID)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        os.symlink(target, f"{dev}/{name}")
    os.makedirs(dev + "/shm")
    _sys_mount(libc, "tuile-shm", dev + "/shm", "tmpfs", _MS_NOSUID | _MS_NODEV,
               "mode=1777,size=64m")
    os.makedirs(root + "/proc", exist_ok=True)
    _sys_mount(libc, "proc", root + "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
    scratch = cfg["scratch"]
    _bind(libc, scratch, root + scratch, _MS_NOSUID | _MS_NODEV)
    old = root + "/.old-root"
    os.makedirs(old)
    if libc.syscall(_SYS_PIVOT_ROOT, root.encode(), old.encode()) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"pivot_root: {os.strerror(err)}")
    os.chdir("/")
    if libc.umount2(b"/.old-root", _MNT_DETACH) != 0:
        raise OSError(ctypes.get_errno(), "umount old root")
    os.rmdir("/.old-root")
    _sys_mount(libc, None, "/", None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID)


def _jail_main(cfg: dict) -> None:
    """The first process of the new namespaces: contain, then fork the submission and
    wait for it as init. Its exit status is passed on (128 + n for a signal n), and its
    end ends the PID namespace, which kills every process left in it."""
    libc = _libc()
    for procs in cfg["cgroup_procs"]:
        with open(procs, "w") as f:
            f.write(str(os.getpid()))
    if cfg["namespaces"]:
        _build_root(libc, cfg)
    os.chdir(cfg["scratch"])
    child = os.fork()
    if child == 0:
        try:
            _become_submission(libc, cfg)
        except BaseException as exc:   # never return into the jail's code
            sys.stderr.write(f"tuile-jail: lancement impossible : {exc}\n")
        os._exit(126)
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(125)
        if pid == child:
            break
    os._exit(128 + os.WTERMSIG(status) if os.WIFSIGNALED(status)
             else os.WEXITSTATUS(status))


def _become_submission(libc, cfg: dict) -> None:
    os.setsid()
    for res, val in cfg["rlimits"]:
        # CPU: SIGXCPU at the soft limit (reported as such), SIGKILL 5 s later.
        hard = val + 5 if res == resource.RLIMIT_CPU else val
        resource.setrlimit(res, (val, hard))
    uid = cfg["uid"]
    if uid is not None:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    # A credential change clears the parent-death signal: set it again.
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    os.execvpe(cfg["argv"][0], cfg["argv"], cfg["env"])


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == JAIL_FLAG:
        try:
            _jail_main(json.loads(sys.argv[2]))
        except OSError as exc:
            sys.stderr.write(f"tuile-jail: mise en place de l'isolation impossible : {exc}\n")
            sys.exit(125)
