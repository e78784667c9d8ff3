"""Run one submission end to end and return the report its judge wrote.

Public entry: ``run_submission(source, exercise, options) -> KernelReport``. It never
raises for a fault of the user (unknown exercise, bad dtype, syntax error, refused code,
wrong result, crash, time limit): each comes back as data in the report.

Steps: the request is validated (``sandbox.validate``: exercise, dtype, mode, source size,
syntax with its line) and, unless ``options.precheck`` is off, pre-checked
(``sandbox.precheck``, defence in depth); on the GPU the rest happens inside
``gpuqueue.gpu_slot`` (one measurement at a time per GPU; ``CUDA_VISIBLE_DEVICES`` names
the slot's GPU for both processes below). This process, trusted and never running
submission code, starts two:
- the *judge* (``sandbox.judge``: trusted code only, its own uid when run as root,
  non-dumpable), which gets the launcher's connection from us, checks and times, and
  writes the report on a socket only we hold;
- the *launcher* (``python -m sandbox.launcher`` through ``sandbox.jail.run_isolated``:
  namespaces, own uid, rlimits), which connects to a socket in scratch, imports the
  submission and calls ``custom_kernel`` on the judge's buffers.
We stop and resume the launcher's processes when the judge asks (SIGSTOP / SIGCONT: only
root may signal the launcher's uid). Nothing the launcher writes is read as a result:
its outcome (time-out, crash, memory, output cut) can only add a failure to the judge's
report.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

from sandbox.exercises import UnknownExercise, get_exercise
from sandbox.records import KernelReport, RunOptions

_REPO_ROOT = Path(__file__).resolve().parent.parent
_STDERR_KEPT = 3000


def gpu_present() -> bool:
    """A cheap look for an NVIDIA device, without importing torch in the server process."""
    if os.environ.get("CUDA_VISIBLE_DEVICES", None) in ("", "-1"):
        return False
    return os.path.exists("/dev/nvidiactl") or os.path.exists("/dev/nvidia0")


def _failed(report: KernelReport, kind: str, message: str, line: int | None = None,
            start: float | None = None) -> KernelReport:
    report.error_kind, report.error, report.error_line = kind, message, line
    report.correct = False
    report.verdict, report.verdict_text = "error", message
    if start is not None:
        report.wall_s = time.monotonic() - start
    return report


def _mode(options: RunOptions) -> str:
    if options.mode in ("gpu", "interpreter"):
        return options.mode
    if os.environ.get("TRITON_INTERPRET") == "1" or not gpu_present():
        return "interpreter"
    return "gpu"


def run_submission(source: str, exercise: str, options: RunOptions = RunOptions()) -> KernelReport:
    from sandbox.validate import validate_request

    start = time.monotonic()
    report = KernelReport(exercise=str(exercise))
    try:
        ex = get_exercise(exercise)
        report.exercise, report.bytes_note, report.threshold_pct = (ex.name, ex.bytes_note,
                                                                    ex.threshold_pct)
        report.dtype = options.dtype or ex.dtypes[0]
    except UnknownExercise:
        ex = None
    # exercise, dtype, mode, source size and syntax: the rules every face shares
    invalid = validate_request(source, exercise, options.dtype, mode=options.mode)
    if invalid:
        return _failed(report, invalid[0].kind, invalid[0].message, invalid[0].line, start)
    dtype = report.dtype
    mode = _mode(options)
    report.mode = mode
    if mode == "interpreter" and dtype == "bfloat16" and ex.tolerance is not None \
            and ex.tolerance((1, 1, 1), "float32") != (0.0, 0.0):
        return _failed(report, "options", "bfloat16 n'est pas vérifiable dans l'interpréteur "
                       "Triton (il calcule faux en bfloat16, triton 3.9) ; essayez float16 ou "
                       "float32, ou lancez sur un GPU", start=start)
    if options.precheck:
        from sandbox.precheck import precheck

        problems = precheck(source)
        if problems:
            report = _failed(report, "precheck", "code refusé avant exécution :\n"
                             + "\n".join(f"- {p}" for p in problems), problems[0].line, start)
            return report
    scratch = Path(tempfile.mkdtemp(prefix="tuile-kernel-", dir=options.scratch_root))
    try:
        report = _run_judged(source, ex, dtype, mode, options, scratch)
    finally:
        if not options.keep_scratch:
            shutil.rmtree(scratch, ignore_errors=True)
    report.wall_s = time.monotonic() - start
    return report


_JUDGE_BOOT = ("import sys; sys.path.insert(0, sys.argv.pop(1)); "
               "from sandbox.judge import main; sys.exit(main(sys.argv[1:]))")
# uids of judges: a range of their own, below the jail's (0x7F000000 - 0x10000 and up)
_JUDGE_UIDS = (0x7E000000 - 0x10000, 0x7E000000)
_JUDGE_UIDS_IN_USE: set[int] = set()
_LOCK = threading.Lock()
_AFTER_REPORT_S = 10.0   # the launcher's time to exit once the judge said quit


def _run_judged(source: str, ex, dtype: str, mode: str, options: RunOptions,
                scratch: Path) -> KernelReport:
    from sandbox.jail import Limits

    (scratch / "soumission.py").write_text(source, encoding="utf-8")
    limits = Limits()
    if options.compile_timeout_s:
        limits = replace(limits, compile_timeout_s=options.compile_timeout_s)
    if options.run_timeout_s:
        limits = replace(limits, run_timeout_s=options.run_timeout_s)
    if mode == "gpu" and options.use_queue:
        from sandbox.gpuqueue import gpu_slot

        with gpu_slot(on_position=options.on_position) as slot:
            report = _judged(ex, dtype, mode, options, scratch, limits, slot.gpu, slot.device)
            _profile(report, source, options, limits, slot.device or str(slot.gpu))   # ours alone: ncu replays kernels
    else:
        gpu = 0 if mode == "gpu" else None
        report = _judged(ex, dtype, mode, options, scratch, limits, gpu)
        _profile(report, source, options, limits)
    return report


class _Launcher:
    """The launcher's side as the parent sees it: its run in a thread, its processes."""

    def __init__(self, argv, scratch: Path, limits, env: dict):
        from sandbox.jail import run_isolated

        self.result = None
        self.peer: tuple[int, int] | None = None   # (pid, uid) from SO_PEERCRED
        self.stopped: list[int] = []
        self.thread = threading.Thread(target=self._run, daemon=True,
                                       args=(run_isolated, argv, scratch, limits, env))
        self.thread.start()

    def _run(self, run_isolated, argv, scratch, limits, env) -> None:
        self.result = run_isolated(argv, scratch=scratch, limits=limits, env=env)

    def pids(self) -> list[int]:
        if self.peer is None:
            return []
        pid, uid = self.peer
        own = uid not in (0, os.geteuid())   # a uid of its own: every process of that uid
        found, parents = [], {}
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                if own:
                    if os.stat(f"/proc/{d}").st_uid == uid:
                        found.append(int(d))
                else:
                    with open(f"/proc/{d}/stat") as f:
                        parents[int(d)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass
        if own:
            return found
        tree, grew = {pid}, True   # same uid as ours (user namespace): the launcher's tree
        while grew:
            grew = False
            for child, ppid in parents.items():
                if ppid in tree and child not in tree:
                    tree.add(child)
                    grew = True
        return sorted(tree)

    def signal(self, sig: int) -> None:
        for _ in range(2):   # twice: a process forked during the first pass is caught
            for p in self.pids():
                try:
                    os.kill(p, sig)
                except (ProcessLookupError, PermissionError):
                    pass

    def freeze(self) -> None:
        self.stopped = sorted(set(self.stopped) | set(self.pids()))
        for p in self.stopped:
            try:
                os.kill(p, signal.SIGSTOP)
            except (ProcessLookupError, PermissionError):
                pass
        more = [p for p in self.pids() if p not in self.stopped]   # forked meanwhile
        for p in more:
            try:
                os.kill(p, signal.SIGSTOP)
            except (ProcessLookupError, PermissionError):
                pass
        self.stopped += more

    def thaw(self) -> None:
        # No /proc scan here: the judge's clock runs (a scan takes milliseconds); only
        # stopped processes need waking, and they could not fork while stopped.
        for p in self.stopped:
            try:
                os.kill(p, signal.SIGCONT)
            except (ProcessLookupError, PermissionError):
                pass
        self.stopped = []

    def finish(self) -> None:
        self.thread.join(_AFTER_REPORT_S)
        if self.thread.is_alive():
            self.signal(signal.SIGCONT)
            self.signal(signal.SIGKILL)
            self.thread.join(60)


def _listen(scratch: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    path = scratch / "juge.sock"
    if len(str(path)) < 100:
        sock.bind(str(path))
    else:   # AF_UNIX paths stop at 108 bytes: reach scratch through a descriptor
        dfd = os.open(scratch, os.O_PATH)
        try:
            sock.bind(f"/proc/self/fd/{dfd}/juge.sock")
        finally:
            os.close(dfd)
    os.chmod(path, 0o600)   # the jail gives the file to the launcher's uid
    sock.listen(1)
    return sock


def _judge_uid() -> int | None:
    """A uid for the judge when we are root and the judge's code is readable by anyone.
    TUILE_JUDGE_DROP_UID=0 keeps the judge root (still non-dumpable): a fallback for a
    driver that would refuse sharing device memory across uids (VMM descriptors carry no
    uid check by design; across two different uids this is not yet measured)."""
    if os.geteuid() != 0 or os.environ.get("TUILE_JUDGE_DROP_UID") == "0":
        return None
    import importlib.util

    torch_spec = importlib.util.find_spec("torch")
    paths = [os.path.realpath(sys.executable), str(_REPO_ROOT / "sandbox")]
    if torch_spec and torch_spec.origin:
        paths.append(os.path.dirname(torch_spec.origin))
    for p in paths:
        for d in [*reversed(Path(p).parents), Path(p)]:
            try:
                if d.is_dir() and not d.stat().st_mode & 0o001:
                    return None
            except OSError:
                return None
    with _LOCK:
        while True:
            uid = random.randrange(*_JUDGE_UIDS)
            if uid not in _JUDGE_UIDS_IN_USE:
                _JUDGE_UIDS_IN_USE.add(uid)
                return uid


def _fixed_cap_us() -> float | None:
    """TUILE_JUDGE_FIXED_CAP_US overrides the judge's cap on a batch's fixed cost, for a
    host other than the H200 it was measured on (``sandbox.judge.clock.FIXED_CAP_US``)."""
    try:
        value = float(os.environ.get("TUILE_JUDGE_FIXED_CAP_US", ""))
    except ValueError:
        return None
    return value if 0 < value < 1e5 else None


def _judge_env(mode: str, device: str | None, home: str) -> dict[str, str]:
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "TMPDIR": home,
           "OMP_NUM_THREADS": "4", "XDG_CACHE_HOME": home}
    for k in ("LANG", "LC_ALL", "LD_LIBRARY_PATH", "CUDA_HOME", "TRITON_LIBCUDA_PATH"):
        if k in os.environ:
            env[k] = os.environ[k]
    env["CUDA_VISIBLE_DEVICES"] = device if mode == "gpu" and device is not None else ""
    return env


def _judged(ex, dtype: str, mode: str, options: RunOptions, scratch: Path, limits,
            gpu: int | None, device: str | None = None) -> KernelReport:
    if not device and gpu is not None:
        device = str(gpu)
    listener = _listen(scratch)
    parent_sock, judge_sock = socket.socketpair()
    judge_uid = _judge_uid()
    home = tempfile.mkdtemp(prefix="tuile-juge-")
    if judge_uid is not None:
        os.chown(home, judge_uid, judge_uid)
    job = {"exercise": ex.name, "dtype": dtype, "dtype_explicit": options.dtype is not None,
           "mode": mode, "all_dtypes": options.all_dtypes, "timing": options.timing,
           "compile_timeout_s": limits.compile_timeout_s, "run_timeout_s": limits.run_timeout_s,
           "parent_fd": judge_sock.fileno(), "uid": judge_uid, "precheck": options.precheck,
           "gpu_index": gpu, "fixed_cap_us": _fixed_cap_us(),
           # a rehearsal of the GPU batch protocol in interpreter mode (tests only)
           "cpu_batches": mode == "interpreter" and os.environ.get("TUILE_JUDGE_CPU_BATCHES") == "1"}
    stderr = tempfile.TemporaryFile()
    judge = subprocess.Popen([sys.executable, "-I", "-c", _JUDGE_BOOT, str(_REPO_ROOT),
                              json.dumps(job)], pass_fds=(judge_sock.fileno(),),
                             env=_judge_env(mode, device, home), stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True)
    judge_sock.close()
    from sandbox.channel.wire import Wire, WireError

    wire = Wire(parent_sock, max_message=4 << 20)
    cfg = {"mode": mode, "backend": "cpu-memfd" if mode == "interpreter" else "cuda-vmm",
           "submission": str(scratch / "soumission.py"), "socket": "juge.sock",
           "signature": ex.signature, "free": ex.free}
    env = {"PYTHONPATH": str(_REPO_ROOT)}
    if mode == "interpreter":
        env["TRITON_INTERPRET"] = "1"
    else:
        env["CUDA_VISIBLE_DEVICES"] = device or "0"
    launcher = _Launcher([sys.executable, "-m", "sandbox.launcher", json.dumps(cfg)], scratch,
                         limits, env)
    data = None
    try:
        conn = _accept(listener, launcher, judge, limits.compile_timeout_s + 30)
        if conn is None:
            wire.send({"op": "no_launcher", "why": "pas de connexion"})
        else:
            pid, uid, _gid = struct.unpack("3i", conn.getsockopt(
                socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
            launcher.peer = (pid, uid)
            wire.send({"op": "launcher"}, fds=[conn.fileno()])
            conn.close()
        data = _serve_judge(wire, judge, launcher,
                            limits.compile_timeout_s + limits.run_timeout_s + 120)
    except WireError:
        data = None
    finally:
        listener.close()
        launcher.signal(signal.SIGCONT)
        launcher.finish()
        if judge.poll() is None:
            judge.kill()
        judge.wait()
        parent_sock.close()
        shutil.rmtree(home, ignore_errors=True)
        with _LOCK:
            _JUDGE_UIDS_IN_USE.discard(judge_uid)
    stderr.seek(0)
    judge_err = stderr.read()[-_STDERR_KEPT:].decode(errors="replace")
    stderr.close()
    return _merge(data, launcher.result, judge_err, ex, dtype, mode)


def _accept(listener: socket.socket, launcher: _Launcher, judge, timeout_s: float):
    """The launcher's one connection (the listener is closed after it), or None."""
    listener.settimeout(0.2)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and launcher.thread.is_alive() and judge.poll() is None:
        try:
            conn, _ = listener.accept()
        except socket.timeout:
            continue
        listener.close()
        return conn
    return None


def _serve_judge(wire, judge, launcher: _Launcher, timeout_s: float) -> dict | None:
    """Answer the judge's freeze / thaw requests until its report comes."""
    from sandbox.channel.wire import WireError

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            msg = wire.recv(1.0)
        except WireError as exc:
            if "deadline" in str(exc) and judge.poll() is None:
                continue
            return None
        op = msg.get("op")
        if op == "report":
            return msg.get("report") if isinstance(msg.get("report"), dict) else None
        if op in ("freeze", "thaw"):
            launcher.freeze() if op == "freeze" else launcher.thaw()
            wire.send({"op": "ok"})
        else:
            wire.send({"op": "refused", "why": f"unknown request {op!r}"})
    return None


def _merge(data: dict | None, result, judge_err: str, ex, dtype: str, mode: str) -> KernelReport:
    """The judge's report, with what the launcher's end adds: failures only."""
    try:
        report = KernelReport.from_dict(data) if data else None
    except (TypeError, ValueError):
        report = None
    if report is None:
        report = KernelReport(exercise=ex.name, dtype=dtype, mode=mode)
        report.bytes_note, report.threshold_pct = ex.bytes_note, ex.threshold_pct
        if not (result and (result.timed_out or result.killed_reason)):
            tail = _stderr_hint(judge_err)
            return _failed(report, "internal", "erreur interne du bac à sable : le juge n'a pas "
                           f"rendu de rapport. {tail}".strip())
    if result is None:
        return report
    launcher_err = result.stderr[-_STDERR_KEPT:].strip()
    report.stderr_tail = (report.stderr_tail or launcher_err).strip()[-_STDERR_KEPT:]
    note = getattr(result, "output_note", "")
    if note:   # said even when the run passes
        report.checks.append(note)
        if report.verdict_text:
            report.verdict_text += f" ({note})"
    if result.timed_out:
        report.timed_out = True
        return _failed(report, "timeout", result.killed_reason or "délai dépassé")
    silent = report.error_kind in ("", "protocol")
    if result.killed_reason and (report.correct or silent):
        return _failed(report, "crashed", "le processus de la soumission a été arrêté : "
                       f"{result.killed_reason}. {_stderr_hint(result.stderr)}".strip())
    if report.correct and result.returncode not in (0, None):
        return _failed(report, "crashed", f"le processus de la soumission s'est terminé en "
                       f"erreur (code de sortie {result.returncode}) après les vérifications : "
                       "le résultat ne compte pas.")
    return report


def _profile(report: KernelReport, source: str, options: RunOptions, limits,
             device: str | None = None) -> None:
    """Profiler figures and a diagnosis (``sandbox.profile``), for a correct GPU run only."""
    if not (options.profile and report.correct and report.mode == "gpu"):
        return
    try:
        from sandbox.profile import profile_submission
    except ImportError:
        return
    result = profile_submission(source, report.exercise, dtype=report.dtype,
                                report=report.to_dict(), limits=limits,
                                scratch_root=options.scratch_root, gpu_device=device)
    report.diagnosis = result.pop("diagnosis", None)
    report.profile = result


def _stderr_hint(stderr: str) -> str:
    lines = [l for l in stderr.strip().splitlines() if l.strip()]
    return f"Dernière ligne d'erreur : {lines[-1][:300]}" if lines else ""
