"""Run one submission end to end and return its report.

Public entry: ``run_submission(source, exercise, options) -> KernelReport``. It never
raises for a fault of the user (unknown exercise, bad dtype, syntax error, refused code,
wrong result, crash, time limit): each comes back as data in the report.

Steps: the exercise and options are validated; the source is parsed (a syntax error is
reported with its line) and pre-checked (``precheck``); the source and a job file are
written to a fresh scratch directory; ``python -m sandbox.worker SCRATCH/job.json`` runs
through ``jail.run_isolated`` (on the GPU, inside ``gpuqueue.gpu_slot`` so timings
never overlap); the report is read from ``SCRATCH/result.json``, never from stdout.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
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
    start = time.monotonic()
    report = KernelReport(exercise=str(exercise))
    try:
        ex = get_exercise(exercise)
    except UnknownExercise as err:
        return _failed(report, "unknown_exercise", str(err), start=start)
    report.exercise, report.bytes_note, report.threshold_pct = ex.name, ex.bytes_note, ex.threshold_pct
    if options.mode not in ("auto", "gpu", "interpreter"):
        return _failed(report, "options", f"mode inconnu : « {options.mode} » ; modes permis : "
                       "auto, gpu, interpreter", start=start)
    dtype = options.dtype or ex.dtypes[0]
    report.dtype = dtype
    if dtype not in ex.dtypes:
        return _failed(report, "options", f"type « {dtype} » non proposé pour l'exercice "
                       f"{ex.name} ; types permis : {', '.join(ex.dtypes)}", start=start)
    mode = _mode(options)
    report.mode = mode
    if mode == "interpreter" and dtype == "bfloat16" and ex.tolerance is not None \
            and ex.tolerance((1, 1, 1), "float32") != (0.0, 0.0):
        return _failed(report, "options", "bfloat16 n'est pas vérifiable dans l'interpréteur "
                       "Triton (il calcule faux en bfloat16, triton 3.9) ; essayez float16 ou "
                       "float32, ou lancez sur un GPU", start=start)
    try:
        compile(source, "soumission.py", "exec")
    except SyntaxError as err:
        where = f"ligne {err.lineno}" + (f", colonne {err.offset}" if err.offset else "")
        text = (err.text or "").strip()
        return _failed(report, "syntax", f"erreur de syntaxe {where} : {err.msg}"
                       + (f" ({text})" if text else ""), err.lineno, start)
    except ValueError as err:   # NUL bytes
        return _failed(report, "syntax", f"source illisible : {err}", start=start)
    try:
        from sandbox.precheck import precheck
    except ImportError:
        precheck = None
    if precheck is not None:
        problems = precheck(source)
        if problems:
            report = _failed(report, "precheck", "code refusé avant exécution :\n"
                             + "\n".join(f"- {p}" for p in problems), problems[0].line, start)
            return report
    scratch = Path(tempfile.mkdtemp(prefix="tuile-kernel-", dir=options.scratch_root))
    try:
        report = _run_worker(source, ex.name, dtype, mode, options, scratch)
    finally:
        if not options.keep_scratch:
            shutil.rmtree(scratch, ignore_errors=True)
    report.wall_s = time.monotonic() - start
    return report


def _run_worker(source: str, exercise: str, dtype: str, mode: str, options: RunOptions,
                scratch: Path) -> KernelReport:
    from sandbox.jail import Limits, run_isolated

    submission = scratch / "soumission.py"
    submission.write_text(source, encoding="utf-8")
    job = {"exercise": exercise, "dtype": dtype, "dtype_explicit": options.dtype is not None,
           # "auto" lets the worker fall back to the interpreter if CUDA fails to start
           "mode": "interpreter" if mode == "interpreter" else options.mode,
           "all_dtypes": options.all_dtypes, "timing": options.timing,
           "submission": str(submission)}
    (scratch / "job.json").write_text(json.dumps(job), encoding="utf-8")
    env = {"PYTHONPATH": str(_REPO_ROOT)}
    if mode == "interpreter":
        env["TRITON_INTERPRET"] = "1"
    limits = Limits()
    if options.compile_timeout_s:
        limits = replace(limits, compile_timeout_s=options.compile_timeout_s)
    if options.run_timeout_s:
        limits = replace(limits, run_timeout_s=options.run_timeout_s)
    argv = [sys.executable, "-m", "sandbox.worker", str(scratch / "job.json")]
    if mode == "gpu" and options.use_queue:
        from sandbox.gpuqueue import gpu_slot

        with gpu_slot(0, on_position=options.on_position):
            result = run_isolated(argv, scratch=scratch, limits=limits, env=env)
            report = _read_result(scratch / "result.json", exercise, dtype, mode)
            _profile(report, source, options, limits)   # still ours alone: ncu replays kernels
    else:
        result = run_isolated(argv, scratch=scratch, limits=limits, env=env)
        report = _read_result(scratch / "result.json", exercise, dtype, mode)
        _profile(report, source, options, limits)
    report.stderr_tail = (report.stderr_tail or result.stderr[-_STDERR_KEPT:]).strip()
    if result.timed_out:
        report.timed_out = True
        return _failed(report, "timeout", result.killed_reason or "délai dépassé")
    if report.error_kind == "" and not report.correct:
        why = result.killed_reason or (f"code de sortie {result.returncode}"
                                       if result.returncode else "aucun résultat écrit")
        return _failed(report, "crashed", f"le processus de la soumission s'est arrêté sans "
                       f"rendre de résultat : {why}. {_stderr_hint(result.stderr)}".strip())
    return report


def _profile(report: KernelReport, source: str, options: RunOptions, limits) -> None:
    """Profiler figures and a diagnosis (``sandbox.profile``), for a correct GPU run only."""
    if not (options.profile and report.correct and report.mode == "gpu"):
        return
    try:
        from sandbox.profile import profile_submission
    except ImportError:
        return
    result = profile_submission(source, report.exercise, dtype=report.dtype,
                                report=report.to_dict(), limits=limits,
                                scratch_root=options.scratch_root)
    report.diagnosis = result.pop("diagnosis", None)
    report.profile = result


def _read_result(path: Path, exercise: str, dtype: str, mode: str) -> KernelReport:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        report = KernelReport.from_dict(data)
    except (OSError, ValueError, TypeError):
        report = KernelReport(exercise=exercise, dtype=dtype, mode=mode)
    return report


def _stderr_hint(stderr: str) -> str:
    lines = [l for l in stderr.strip().splitlines() if l.strip()]
    return f"Dernière ligne d'erreur : {lines[-1][:300]}" if lines else ""
