"""The child process that runs one submission: load, check, time, write the result JSON.

Run as ``python -m sandbox.worker SCRATCH/job.json`` by ``runner.run_submission`` through
``isolation.run_isolated``; it writes ``SCRATCH/result.json`` (a ``KernelReport`` as a
dict) and nothing else the parent trusts. It imports only torch, triton and the standard
library.

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
import importlib.util
import inspect
import json
import os
import re
import sys
import time
import traceback
from pathlib import Path

from sandbox.guard import Fault, Guard, fault_from_exception, short
from sandbox.records import KernelReport

_START = time.monotonic()
_SUBMISSION_MODULE = "soumission"
def _mark(phase: str) -> None:
    try:
        from sandbox.isolation import mark_phase
    except ImportError:
        return
    mark_phase(phase)


# ---------------------------------------------------------------- the run

class _Context:
    """Everything one run needs: exercise, submission, device, guard, generator."""

    def __init__(self, job: dict, report: KernelReport):
        import torch

        from sandbox.exercises import get_exercise

        self.job, self.report, self.torch = job, report, torch
        self.ex = get_exercise(job["exercise"])
        self.path = os.path.realpath(job["submission"])
        self.source = Path(self.path).read_text(encoding="utf-8")
        self.interpreter = report.mode == "interpreter"
        self.device = torch.device("cpu" if self.interpreter else "cuda")
        self.guard: Guard | None = None
        self.gen = None
        self.module = None

    def fault(self, exc: BaseException) -> Fault:
        return fault_from_exception(exc, self.guard, self.path, self.source, self.interpreter)


def _load(ctx: _Context) -> None:
    spec = importlib.util.spec_from_file_location(_SUBMISSION_MODULE, ctx.path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[_SUBMISSION_MODULE] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:   # SystemExit from a submission too
        f = ctx.fault(exc)
        raise Fault("import", f"le module plante au chargement : {f.message}", f.line)
    ctx.module = module
    fn = getattr(module, "custom_kernel", None)
    if not callable(fn):
        raise Fault("contract", f"la soumission ne définit pas de lanceur custom_kernel : Tuile "
                    f"appelle {ctx.ex.signature}, qui lance votre noyau @triton.jit.")
    if ctx.ex.free:
        for name in ("make_inputs", "reference"):
            if not callable(getattr(module, name, None)):
                raise Fault("contract", f"mode libre : la soumission doit définir {name}(…) "
                            "(voir « tuile kernel template libre »).")


def _arg_names(ctx: _Context, n_inputs: int) -> list[str]:
    m = re.search(r"\((.*)\)", ctx.ex.signature)
    names = [s.strip() for s in m.group(1).split(",")] if m else []
    if len(names) != n_inputs + 1:
        names = [f"entrée n° {i + 1}" for i in range(n_inputs)] + ["out"]
    return names


def _free_case(ctx: _Context):
    torch = ctx.torch
    inputs = ctx.module.make_inputs(ctx.gen, ctx.device)
    if isinstance(inputs, torch.Tensor):
        inputs = (inputs,)
    inputs = tuple(inputs)
    expected = ctx.module.reference(*[t.clone() for t in inputs])
    out = torch.empty_like(expected)
    tol = getattr(ctx.module, "TOLERANCE", None)
    if tol is None:
        tol = {torch.float32: (1e-5, 1e-6), torch.float16: (2e-3, 1e-3),
               torch.bfloat16: (1.6e-2, 1e-2)}.get(expected.dtype, (0.0, 0.0))
    return inputs, expected, out, (float(tol[0]), float(tol[1]))


def _make_case(ctx: _Context, shape, dtype: str):
    """(inputs, expected, poisoned-ready out, (rtol, atol)) for one shape and dtype."""
    if ctx.ex.free:
        return _free_case(ctx)
    tdtype = getattr(ctx.torch, dtype)
    inputs = ctx.ex.make_inputs(shape, tdtype, ctx.gen, ctx.device)
    expected = ctx.ex.reference(inputs)
    out = ctx.ex.make_output(inputs, shape, tdtype)
    return inputs, expected, out, ctx.ex.tolerance(shape, dtype)


def _poison(out) -> None:
    out.fill_(float("nan")) if out.is_floating_point() else out.fill_(-0x5A5A5A5A)


def _call_checked(ctx: _Context, case, context: str):
    """One watched call of custom_kernel on one case; raises Fault on anything wrong."""
    from sandbox.exercises._check import compare

    torch = ctx.torch
    inputs, expected, out, (rtol, atol) = case
    snapshots = [t.clone() for t in inputs]
    names = _arg_names(ctx, len(inputs))
    _poison(out)
    fn = ctx.module.custom_kernel
    try:
        inspect.signature(fn).bind(*inputs, out)
    except TypeError:
        raise Fault("contract", f"custom_kernel doit accepter {ctx.ex.signature} ; la vôtre est "
                    f"custom_kernel{inspect.signature(fn)}.")
    ctx.guard.reset()
    try:
        returned = ctx.guard.call(fn, (*inputs, out))
        if ctx.device.type == "cuda":
            torch.cuda.synchronize()
    except BaseException as exc:
        raise ctx.fault(exc)
    problem = ctx.guard.verdict()
    if problem:
        raise problem
    if isinstance(returned, torch.Tensor) and returned is not out:
        if returned.dtype != out.dtype:
            raise Fault("contract", f"type incorrect : custom_kernel renvoie un tenseur "
                        f"{str(returned.dtype).replace('torch.', '')} alors que le résultat "
                        f"attendu est {str(out.dtype).replace('torch.', '')} ; écrivez-le dans out.")
        raise Fault("contract", "custom_kernel renvoie un autre tenseur que out : le résultat "
                    "doit être écrit dans out (alloué par Tuile), pas dans un tenseur à vous.")
    for name, now, before in zip(names, inputs, snapshots):
        if not torch.equal(now, before):
            changed = int((now != before).sum())
            raise Fault("input_modified", f"custom_kernel a modifié l'entrée « {name} » "
                        f"({changed} élément{'s' if changed > 1 else ''} changé"
                        f"{'s' if changed > 1 else ''}) : les entrées sont en lecture seule.")
    bad = compare(out, expected, rtol, atol, context)
    if bad is not None:
        msg = bad.message[0].upper() + bad.message[1:]
        if context.startswith("appel répété") and not context.endswith("1"):
            msg += (" Les appels précédents étaient justes : le noyau doit recalculer à chaque "
                    "appel, un résultat gardé d'un appel précédent ne vaut rien pour de "
                    "nouvelles entrées.")
        raise Fault("mismatch", msg, mismatch=bad)
    ctx.report.checks.append(f"{context} : juste")


def _dtypes_to_check(ctx: _Context) -> list[tuple[str, tuple]]:
    ex, report = ctx.ex, ctx.report
    shapes = ex.cpu_shapes if ctx.interpreter else ex.gpu_shapes
    if ex.free:
        return [(report.dtype, ())] * 3
    plan = [(report.dtype, s) for s in shapes]
    if ctx.job.get("all_dtypes") and not ctx.job.get("dtype_explicit") and len(shapes) > 1:
        for d in ex.dtypes:
            if d != report.dtype and _dtype_usable(ctx, d):
                plan.append((d, shapes[0]))
    return plan


def _dtype_usable(ctx: _Context, dtype: str) -> bool:
    # The interpreter computes bfloat16 arithmetic wrongly (triton 3.9: x + x on bf16
    # returns values like 1e37); moves of bf16 are exact. Arithmetic exercises skip it.
    if ctx.interpreter and dtype == "bfloat16":
        return ctx.ex.tolerance is not None and ctx.ex.tolerance((1, 1, 1), "float32") == (0.0, 0.0)
    return True


def _correctness(ctx: _Context) -> None:
    from sandbox.exercises._check import fmt_shape

    first = True
    for dtype, shape in _dtypes_to_check(ctx):
        case = _make_case(ctx, shape, dtype)
        if ctx.ex.free:   # the submission's own inputs: name their dtype, not the default
            dtype = ctx.report.dtype = str(case[2].dtype).replace("torch.", "")
        shape_seen = list(shape) or list(case[0][0].shape)
        label = f"vérification {fmt_shape(shape_seen)} {dtype}"
        _call_checked(ctx, case, label)
        if first:
            _mark("run")   # the first kernel compiled and ran: the run limit applies now
            first = False
        if shape_seen not in ctx.report.shapes_checked:
            ctx.report.shapes_checked.append(shape_seen)
        if dtype not in ctx.report.dtypes_checked:
            ctx.report.dtypes_checked.append(dtype)
        del case


def _repeat_interpreter(ctx: _Context) -> None:
    """Interpreter: repeated calls on two rotating input sets, each output rechecked (what
    timing would do on the GPU, without a clock): catches outputs cached from a first call."""
    shape = ctx.ex.cpu_rotation_shape
    sets = [_make_case(ctx, shape, ctx.report.dtype) for _ in range(2)]
    for i in range(5):
        _call_checked(ctx, sets[i % 2], f"appel répété n° {i + 1}")


def _time_gpu(ctx: _Context, info) -> None:
    from sandbox import timing
    from sandbox.exercises._check import compare, fast_bad_count, fmt_shape

    torch, ex, report = ctx.torch, ctx.ex, ctx.report
    shape = ex.timing_shape
    sets = [_make_case(ctx, shape, report.dtype) for _ in range(2)]
    shape_seen = list(shape) or list(sets[0][0][0].shape)
    report.timing_shape = shape_seen
    if shape_seen not in report.shapes_checked:
        report.shapes_checked.append(shape_seen)
    for k, case in enumerate(sets):   # checked, and the compile for this shape happens here
        _call_checked(ctx, case, f"vérification {fmt_shape(shape_seen)} {report.dtype} (jeu {k + 1})")
    snapshots = [[t.clone() for t in case[0]] for case in sets]
    flags = []
    fn = ctx.module.custom_kernel
    ctx.guard.reset()

    def call(k):
        inputs, _, out, _ = sets[k]
        ctx.guard.call(fn, (*inputs, out))

    def after(k):
        _, expected, out, (rtol, atol) = sets[k]
        flags.append(fast_bad_count(out, expected, rtol, atol))

    try:
        t = timing.measure(call, n_sets=2, before=lambda k: _poison(sets[k][2]), after=after,
                           l2_bytes=info.l2_bytes)
    except BaseException as exc:
        raise ctx.fault(exc)
    problem = ctx.guard.verdict()
    if problem:
        raise problem
    bad = torch.stack(flags).cpu().tolist()
    wrong = [i for i, b in enumerate(bad) if b]
    if wrong:
        k = wrong[-1] % 2
        _, expected, out, (rtol, atol) = sets[k]
        detail = compare(out, expected, rtol, atol, "dernier appel chronométré")
        msg = (f"{len(wrong)} appel{'s' if len(wrong) > 1 else ''} sur les {len(bad)} de la "
               f"phase de mesure (échauffement compris ; le premier faux : n° {wrong[0] + 1}) "
               f"{'ont' if len(wrong) > 1 else 'a'} donné un "
               f"résultat faux alors que les vérifications passaient : le noyau doit calculer "
               f"à chaque appel (pas de résultat gardé d'un appel précédent).")
        if detail is not None:
            msg += " " + detail.message[0].upper() + detail.message[1:]
        raise Fault("mismatch", msg, mismatch=detail)
    for (inputs, *_), snaps in zip(sets, snapshots):
        for now, before in zip(inputs, snaps):
            if not torch.equal(now, before):
                raise Fault("input_modified", "une entrée a été modifiée pendant les appels "
                            "chronométrés : les entrées sont en lecture seule.")
    report.checks.append(f"{len(bad)} appels chronométrés revérifiés : justes")
    report.median_us, report.p10_us, report.p90_us = t.median_us, t.p10_us, t.p90_us
    report.repetitions = t.repetitions
    report.timing_note = (f"événements CUDA, {t.warmup_calls} appels d'échauffement exclus "
                          f"(compilation comprise), {t.repetitions} répétitions, L2 vidé avant "
                          f"chaque appel ({t.flush_bytes // 10**6} Mo écrits), 2 jeux d'entrées "
                          f"en alternance, sorties empoisonnées et revérifiées")
    elem = sets[0][2].element_size()
    if ex.free:
        report.bytes_counted = sum(x.numel() * x.element_size() for x in sets[0][0]) \
            + sets[0][2].numel() * elem
    else:
        report.bytes_counted = ex.bytes_moved(shape, elem)
        report.flops = ex.flops(shape) if ex.flops else None
    del sets, snapshots, flags
    torch.cuda.empty_cache()


def _fill_figures(report: KernelReport, info) -> None:
    from sandbox.exercises._check import fmt_int

    secs = report.median_us * 1e-6
    report.gbps = report.bytes_counted / secs / 1e9
    if report.flops:
        report.tflops = report.flops / secs / 1e12
    peak = info.peak_gbps
    report.peak_source = info.peak_source
    if peak:
        report.pct_of_peak = 100.0 * report.gbps / peak
    if report.copy_ceiling_gbps:
        report.pct_of_copy_ceiling = 100.0 * report.gbps / report.copy_ceiling_gbps
    fastest = max([p for p in (info.peak_gbps_card, info.peak_gbps_datasheet) if p] or [0.0])
    if fastest:
        report.floor_us = report.bytes_counted / (fastest * 1e9) * 1e6
        big = report.bytes_counted >= 2 * (info.l2_bytes or 0)   # else L2 may hold the data
        # 2 % above the peak: the widest margin event timing has shown us on 0.5 ms.
        if big and report.gbps > 1.02 * fastest:
            raise Fault("impossible_time",
                        f"temps impossible : {report.median_us:.1f} µs pour "
                        f"{fmt_int(report.bytes_counted)} octets, soit {report.gbps:.0f} Go/s, "
                        f"au-dessus de la crête de la carte ({fastest:.0f} Go/s) ; le plancher "
                        f"physique est {report.floor_us:.1f} µs. Le travail a échappé au "
                        f"chronomètre.")


def _verdict(report: KernelReport, threshold: float | None) -> None:
    def pct(v):
        return (f"{v:.0f}" if float(v).is_integer() else f"{v:.1f}").replace(".", ",")

    report.threshold_pct = threshold
    if report.mode == "interpreter":
        report.verdict = "not_timed"
        report.verdict_text = ("Juste. Vérification seulement, dans l'interpréteur Triton sur "
                               "CPU : aucun chiffre de débit (il faut un GPU pour cela).")
    elif threshold is None:
        report.verdict = "no_target"
        report.verdict_text = "Juste. Pas d'objectif de débit pour cet exercice."
    elif report.pct_of_peak is None:
        report.verdict = "no_target"
        report.verdict_text = ("Juste, mais la crête de cette carte est inconnue : pas de "
                               "verdict sur le débit.")
    elif report.pct_of_peak > threshold:
        report.verdict = "pass"
        report.verdict_text = (f"Réussi : {pct(report.pct_of_peak)} % de la crête de la carte "
                               f"(objectif : plus de {pct(threshold)} %).")
    else:
        report.verdict = "fail"
        report.verdict_text = (f"Juste mais trop lent : {pct(report.pct_of_peak)} % de la crête "
                               f"de la carte (objectif : plus de {pct(threshold)} %).")


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
    ctx.guard = Guard(ctx.path, stream_id, default_id)
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
    except BaseException as exc:   # a fault of ours: say so, with the traceback tail
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
