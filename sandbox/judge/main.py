"""One judged run: wait for the launcher, check, time, write the report to the parent.

``main([JOB_JSON])``: the job (from the trusted parent) names the exercise, dtype, mode,
limits, the descriptor of the parent's socket and the uid to drop to. The parent sends
the launcher's connection over that socket; the judge answers with ``freeze`` / ``thaw``
requests and, last, ``{"op": "report", "report": …}``. See the package docstring for what
is judged and what an attacker in the launcher can do.
"""
from __future__ import annotations

import ctypes
import os
import secrets
import socket
import sys
import time
import traceback

from sandbox.channel.wire import Wire, WireError
from sandbox.records import INCORRECT_KINDS, Fault, KernelReport

_PR_SET_DUMPABLE = 4
_PARENT_MAX_MESSAGE = 4 << 20   # the report, with its checks and mismatches


def _drop_privileges(uid: int | None) -> None:
    if uid is not None and os.geteuid() == 0:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    # not dumpable: no ptrace, no /proc/PID/mem, no core, from anyone but root
    ctypes.CDLL(None).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)


class Judge:
    def __init__(self, job: dict, session, report: KernelReport):
        import torch

        from sandbox.exercises import get_exercise

        self.job, self.session, self.report, self.torch = job, session, report, torch
        self.ex = get_exercise(job["exercise"])
        self.interpreter = job["mode"] == "interpreter"
        self.device = torch.device("cpu" if self.interpreter else "cuda")
        self.timeouts = session.timeouts
        self.gen = None
        self.probe_buf = None
        torch.backends.cuda.matmul.allow_tf32 = False   # the reference matmul in true fp32

    def draw_seed(self) -> int:
        return secrets.randbits(63)

    def sync(self) -> None:
        if not self.interpreter:
            self.torch.cuda.synchronize()

    def run(self) -> None:
        from sandbox.judge.checks import correctness, repeat_interpreter
        from sandbox.judge.figures import fill_figures, verdict

        torch, report, job = self.torch, self.report, self.job
        start = time.monotonic()
        hello = self.session.recv(self.timeouts["compile_s"])
        if hello.get("op") != "hello":
            self.session.expect_done(hello)
            raise Fault("protocol", "le processus de la soumission n'a pas dit bonjour")
        report.versions = {"python": sys.version.split()[0], "torch": torch.__version__}
        try:
            from importlib.metadata import version
            report.versions["triton"] = version("triton")
        except Exception:   # noqa: BLE001 - a version string is informative only
            pass
        info = None
        if self.interpreter:
            report.device_name = "CPU (interpréteur Triton)"
            report.mode_note = ("interpréteur Triton (TRITON_INTERPRET=1) sur CPU : vérification "
                                "de justesse sur de petites formes, sans mesure de débit")
        else:
            from sandbox.hardware import describe_device

            info = describe_device(0)
            report.device_name = info.name
            report.peak_gbps_card, report.peak_gbps_datasheet = (info.peak_gbps_card,
                                                                 info.peak_gbps_datasheet)
            report.peak_source = info.peak_source
            report.mode_note = f"GPU {info.name}"
            self.probe_buf = torch.zeros(1, device="cuda")
        t0 = time.monotonic()
        report.phases_s["judge_start"] = round(t0 - start, 3)
        loaded = self.session.recv(self.timeouts["compile_s"])
        if loaded.get("op") != "loaded":
            self.session.expect_done(loaded)
            raise Fault("protocol", "le processus de la soumission n'a pas chargé le module")
        report.compiled = True
        t1 = time.monotonic()
        report.phases_s["load"] = round(t1 - t0, 3)
        seed = self.draw_seed()   # drawn after the submission loaded, by the judge
        report.seed_hex = f"{seed:016x}"
        self.gen = torch.Generator(device=self.device).manual_seed(seed)
        if self.ex.free:
            report.correctness_judged = False
        correctness(self)
        t2 = time.monotonic()
        report.phases_s["checks_with_compile"] = round(t2 - t1, 3)
        if self.interpreter:
            repeat_interpreter(self)
            report.phases_s["repeated_calls"] = round(time.monotonic() - t2, 3)
            if job.get("cpu_batches"):   # rehearsal of the GPU protocol; its times mean nothing
                from sandbox.judge.clock import time_gpu

                self.probe_buf = torch.zeros(1)
                time_gpu(self, None)
                report.median_us = report.p10_us = report.p90_us = None
                report.phases_s["batch_rehearsal"] = round(time.monotonic() - t2, 3)
        elif job.get("timing", True):
            from sandbox.judge.clock import copy_ceiling_gbps, time_gpu

            time_gpu(self, info)
            t3 = time.monotonic()
            report.phases_s["timing"] = round(t3 - t2, 3)
            self.session.freeze()   # the judge's own copy, alone on the GPU
            report.copy_ceiling_gbps = copy_ceiling_gbps(self, info.l2_bytes)
            report.phases_s["copy_ceiling"] = round(time.monotonic() - t3, 3)
            fill_figures(report, info)
            if self.ex.free:
                report.bytes_note = self.ex.bytes_note
        report.correct = True
        if not self.interpreter and not job.get("timing", True):
            report.verdict, report.verdict_text = "not_timed", "Juste (mesure du temps non demandée)."
        else:
            verdict(report, self.ex.threshold_pct)


def _record_fault(report: KernelReport, f: Fault) -> None:
    report.error_kind, report.error, report.error_line = f.kind, f.message, f.line
    if f.mismatch is not None:
        report.mismatches.append(f.mismatch)


def main(argv: list[str] | None = None) -> int:
    import json

    argv = sys.argv[1:] if argv is None else argv
    job = json.loads(argv[0])
    _drop_privileges(job.get("uid"))
    parent = Wire(socket.socket(fileno=int(job["parent_fd"])))
    parent.max_message = _PARENT_MAX_MESSAGE
    report = KernelReport(exercise=job["exercise"], dtype=job["dtype"], mode=job["mode"])
    report.precheck = bool(job.get("precheck", True))
    report.gpu_index = job.get("gpu_index")
    report.judge_note = (f"juge : uid {os.geteuid()}, non inspectable (PR_SET_DUMPABLE 0)"
                         + ("" if job.get("uid") is not None or os.geteuid() != 0 else
                            " ; resté root : son code n'est pas lisible par un autre uid"))
    start = time.monotonic()
    session = None
    try:
        from sandbox.channel.buffers import get_backend
        from sandbox.exercises import get_exercise
        from sandbox.judge.session import Session

        ex = get_exercise(job["exercise"])
        report.bytes_note, report.threshold_pct = ex.bytes_note, ex.threshold_pct
        msg, fds = parent.recv_with_fds(float(job["compile_timeout_s"]) + 30.0)
        if msg.get("op") != "launcher" or len(fds) != 1:
            raise Fault("protocol", "le processus de la soumission ne s'est pas connecté au juge "
                        f"({msg.get('why', 'pas de connexion')})")
        launcher = Wire(socket.socket(fileno=fds[0]))
        timeouts = {"compile_s": float(job["compile_timeout_s"]) + 5.0,
                    "call_s": float(job["compile_timeout_s"]) + float(job["run_timeout_s"]) + 5.0}
        backend = get_backend("cpu-memfd" if job["mode"] == "interpreter" else "cuda-vmm")
        session = Session(launcher, parent, backend, timeouts)
        Judge(job, session, report).run()
    except Fault as f:
        _record_fault(report, f)
    except WireError as exc:
        _record_fault(report, Fault("protocol", f"le processus de la soumission ne répond plus "
                                    f"({exc})"))
    except BaseException as exc:   # a fault of ours, or a resource the launcher exhausted
        from sandbox import resource_errors

        resource_msg = resource_errors.translate(exc)
        if resource_msg:
            _record_fault(report, Fault("runtime", resource_msg))
        else:
            _record_fault(report, Fault("internal", f"erreur interne du bac à sable (juge) : "
                                        f"{type(exc).__name__} : {str(exc)[:600]}"))
        report.stderr_tail = traceback.format_exc()[-3000:]
    if report.error_kind:
        report.correct = False
        report.verdict = "incorrect" if report.error_kind in INCORRECT_KINDS else "error"
        report.verdict_text = report.error
    report.wall_s = time.monotonic() - start
    if session is not None:
        session.quit()
    try:
        parent.send({"op": "report", "report": report.to_dict()})
    except WireError:
        return 3
    return 0
