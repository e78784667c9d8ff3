"""The worker's checks: load the submission, build the cases, call it under watch.

Private helpers of ``sandbox.worker`` (its docstring states the order of the checks):
``_Context`` holds one run; ``_load`` imports the submission and checks its contract;
``_make_case`` draws inputs, the reference and an output to poison; ``_call_checked``
makes one watched call and raises a ``Fault`` on anything wrong; ``_correctness`` runs
it over the shapes and dtypes; ``_repeat_interpreter`` recalls it on rotating inputs.
"""
from __future__ import annotations

import importlib.util
import inspect
import os
import re
import sys
from pathlib import Path

from sandbox.guard import Fault, Guard, fault_from_exception
from sandbox.records import KernelReport

_SUBMISSION_MODULE = "soumission"


def _mark(phase: str) -> None:
    try:
        from sandbox.jail import mark_phase
    except ImportError:
        return
    mark_phase(phase)


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
            _mark("run")   # already marked by the guard unless no kernel was launched
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
