"""The child process that runs one submission: load, check, time, write the result JSON.

Run as ``python -m sandbox.worker SCRATCH/job.json`` by ``runner.run_submission`` through
``jail.run_isolated``; it writes ``SCRATCH/result.json`` (a ``KernelReport`` as a
dict) and nothing else the parent trusts. It imports only torch, triton and the standard
library. The checks are in ``sandbox/_worker_checks.py``, the timing and the figures in
``sandbox/_worker_timing.py``.

Honest correctness, in order: fresh random inputs from a seed drawn after the submission
is loaded; outputs poisoned with NaN before every call; every call watched by ``guard.Guard``
(PyTorch ops that compute are refused, at least one Triton kernel of the submission must
run, no launch on another CUDA stream); inputs compared with a copy afterwards; several
shapes (odd ones included) and dtypes; every timed call's output rechecked; a time under
bytes / peak rejected as impossible.

Limits: the submission runs in this process, so it could tamper with this module; the
static pre-check and the isolation layers (part 2) are what stop that, not this file.
"""
from __future__ import annotations

import gc
import json
import os
import sys
import time
import traceback
from pathlib import Path

from sandbox import _errors
from sandbox._worker_checks import (_SUBMISSION_MODULE, _Context, _correctness, _load,
                                    _mark, _repeat_interpreter)
from sandbox._worker_timing import _fill_figures, _time_gpu, _verdict
from sandbox.guard import Fault, Guard, short
from sandbox.records import KernelReport

_START = time.monotonic()


def _run(job: dict, report: KernelReport) -> None:
    mode = job.get("mode", "auto")
    if mode == "interpreter":
        os.environ["TRITON_INTERPRET"] = "1"
    import torch

    if mode == "auto":
        mode = "gpu" if torch.cuda.is_available() and os.environ.get("TRITON_INTERPRET") != "1" \
            else "interpreter"
    if mode == "interpreter":
        os.environ["TRITON_INTERPRET"] = "1"
    elif not torch.cuda.is_available():
        raise Fault("options", "mode gpu demandé mais aucun GPU CUDA n'est visible.")
    report.mode = mode
    import triton

    report.versions = {"python": sys.version.split()[0], "torch": torch.__version__,
                       "triton": triton.__version__}
    torch.backends.cuda.matmul.allow_tf32 = False   # the reference matmul in true fp32
    ctx = _Context(job, report)
    if mode == "interpreter":
        report.device_name = "CPU (interpréteur Triton)"
        report.mode_note = ("interpréteur Triton (TRITON_INTERPRET=1) sur CPU : vérification de "
                            "justesse sur de petites formes, sans mesure de débit")
    info = None
    if mode == "gpu":
        from sandbox.hardware import describe_device

        info = describe_device(0)
        report.device_name = info.name
        report.peak_gbps_card, report.peak_gbps_datasheet = info.peak_gbps_card, info.peak_gbps_datasheet
        report.peak_source = info.peak_source
        report.mode_note = f"GPU {info.name}"
    _mark("compile")
    t0 = time.monotonic()
    report.phases_s["import_torch_triton"] = round(t0 - _START, 3)
    _load(ctx)
    seed = int.from_bytes(os.urandom(8), "little") >> 1   # drawn after the submission loaded
    report.seed_hex = f"{seed:016x}"
    ctx.gen = torch.Generator(device=ctx.device).manual_seed(seed)
    stream_id = default_id = None
    if mode == "gpu":
        default_id = torch.cuda.default_stream().cuda_stream
        stream_id = lambda: torch.cuda.current_stream().cuda_stream   # noqa: E731
    # "run" is marked once the first kernel is compiled, before its first launch: on the
    # H200 the compile takes most of checks_with_compile (1.2–3.7 s, bench/results/
    # 2026-11-29-sandbox-part1-h200.json), a launch microseconds; a kernel that never
    # ends is then stopped by the run limit, not after the whole compile limit.
    ctx.guard = Guard(ctx.path, stream_id, default_id,
                      on_first_compile=lambda: _mark("run"))
    report.compiled = True
    t1 = time.monotonic()
    report.phases_s["load"] = round(t1 - t0, 3)
    _correctness(ctx)
    t2 = time.monotonic()
    report.phases_s["checks_with_compile"] = round(t2 - t1, 3)
    if mode == "interpreter":
        _repeat_interpreter(ctx)
        report.phases_s["repeated_calls"] = round(time.monotonic() - t2, 3)
    elif job.get("timing", True):
        _time_gpu(ctx, info)
        t3 = time.monotonic()
        report.phases_s["timing"] = round(t3 - t2, 3)
        from sandbox.timing import copy_ceiling_gbps

        report.copy_ceiling_gbps = copy_ceiling_gbps(info.l2_bytes)
        report.phases_s["copy_ceiling"] = round(time.monotonic() - t3, 3)
        _fill_figures(report, info)
        if ctx.ex.free:
            report.bytes_note = ctx.ex.bytes_note
    report.correct = True
    if mode == "gpu" and not job.get("timing", True):
        report.verdict, report.verdict_text = "not_timed", "Juste (mesure du temps non demandée)."
    else:
        _verdict(report, ctx.ex.threshold_pct)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    job_path = Path(argv[0])
    job = json.loads(job_path.read_text(encoding="utf-8"))
    result_path = job_path.parent / "result.json"
    report = KernelReport(exercise=job["exercise"], dtype=job["dtype"])
    from sandbox.exercises import get_exercise

    ex = get_exercise(job["exercise"])
    report.bytes_note = ex.bytes_note
    report.threshold_pct = ex.threshold_pct
    start = time.monotonic()
    try:
        _run(job, report)
    except Fault as f:
        report.error_kind, report.error, report.error_line = f.kind, f.message, f.line
        if f.mismatch is not None:
            report.mismatches.append(f.mismatch)
    except BaseException as exc:
        resource_msg = _errors.translate(exc)
        if resource_msg:   # the submission exhausted memory or broke the CUDA context
            report.error_kind, report.error = "runtime", resource_msg
        else:   # a fault of ours: say so, with the traceback tail
            report.error_kind = "internal"
            report.error = f"erreur interne du bac à sable : {type(exc).__name__} : {short(exc)}"
        report.stderr_tail = traceback.format_exc()[-3000:]
    if report.error_kind:
        report.correct = False
        report.verdict = "incorrect" if report.error_kind in (
            "mismatch", "torch_ops", "no_kernel", "side_stream", "input_modified",
            "impossible_time") else "error"
        report.verdict_text = report.error
    report.wall_s = time.monotonic() - start
    # Let go of what the submission holds (a submission that filled host memory leaves
    # too little to write the result), then write, then say "done": the parent gives a
    # finished child only a short grace before killing it.
    sys.modules.pop(_SUBMISSION_MODULE, None)
    gc.collect()
    code = 0
    try:
        tmp = result_path.with_suffix(".tmp")
        tmp.write_text(report.to_json(), encoding="utf-8")
        os.replace(tmp, result_path)
        _mark("done")
        sys.stdout.flush()
    except BaseException:
        code = 3
    os._exit(code)   # skip interpreter teardown: a submission's atexit hooks do not run


if __name__ == "__main__":
    main()
