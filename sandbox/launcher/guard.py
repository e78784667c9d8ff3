"""Watch one call of a submission's ``custom_kernel``, and turn its failures into French faults.

Public entry: ``Guard(submission_file, stream_id, default_stream_id, on_first_compile)``;
``on_first_compile`` is called once, after the first kernel launched under watch is
compiled and before it runs (the launcher marks phase "run" there); ``guard.call(fn,
args)`` runs the launcher while counting the Triton launches of the submission's own
kernels (``JITFunction.run`` and the interpreter's ``InterpretedFunction.run`` are
wrapped), noting any launch on a CUDA stream other than the default one, and recording
the PyTorch ops it runs (a ``TorchDispatchMode``, deaf while a Triton launch is in
progress, since the interpreter and the autotuner use PyTorch themselves).
``guard.verdict()`` gives the ``Fault`` to report, or None. ``fault_from_exception``
maps an exception to a fault with the line in the submission (Triton's compile errors
count lines from the kernel's ``def``).

Limits: this runs in the launcher, the submission's own process; a submission that
reaches ``torch._C`` or patches triton can blind it. It is defence in depth only: its
findings are claims the judge accepts as failures, never as a pass (the judge checks
every output itself, see ``sandbox.judge``).
"""
from __future__ import annotations

import os
import re
import traceback

from sandbox import resource_errors
from sandbox.records import Fault

# PyTorch ops a launcher may use: allocations and views. Anything else computes or writes.
_ALLOWED_OPS = frozenset({
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "view",
    "_unsafe_view", "reshape", "_reshape_alias", "t", "transpose", "permute", "as_strided",
    "expand", "slice", "select", "unsqueeze", "squeeze", "detach", "alias", "split",
    "split_with_sizes", "chunk", "unbind", "narrow", "lift_fresh", "resolve_conj",
    "resolve_neg", "is_same_size", "sym_size", "sym_stride", "sym_numel",
    "sym_storage_offset", "is_contiguous", "_has_compatible_shallow_copy_type",
})


# ---------------------------------------------------------------- the guard

class Guard:
    """Watches every call of custom_kernel: Triton launches and PyTorch ops.

    Launches are counted by wrapping ``JITFunction.run`` (and the interpreter's
    ``InterpretedFunction.run``); PyTorch ops are seen by a ``TorchDispatchMode`` that is
    deaf while a Triton launch is in progress (the interpreter and the autotuner use
    PyTorch themselves). ``stream_id`` gives the current CUDA stream (None on CPU).
    """

    def __init__(self, submission_file: str, stream_id=None, default_stream_id=None,
                 on_first_compile=None):
        from torch.utils._python_dispatch import TorchDispatchMode

        guard = self
        self.file = os.path.realpath(submission_file)
        self.stream_id, self.default_stream_id = stream_id, default_stream_id
        self.depth = 0
        self.watching = False
        self.on_first_compile = on_first_compile
        self.reset()

        class _Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                if guard.watching and guard.depth == 0:
                    name = func.overloadpacket.__name__
                    if name not in _ALLOWED_OPS:
                        guard.torch_ops.append(str(func))
                return func(*args, **(kwargs or {}))

        self._mode_cls = _Mode
        self._patch()

    def reset(self) -> None:
        self.launches, self.foreign, self.torch_ops, self.side_streams = 0, [], [], []
        self.launch_error = None

    def _patch(self) -> None:
        import triton.runtime.autotuner as autotuner
        import triton.runtime.jit as jit

        classes = [jit.JITFunction]
        try:
            from triton.runtime.interpreter import InterpretedFunction
            classes.append(InterpretedFunction)
        except ImportError:
            pass
        for cls in classes:
            cls.run = self._wrap_launch(cls.run)
        for name in ("Autotuner", "Heuristics"):
            cls = getattr(autotuner, name, None)
            if cls is not None:
                cls.run = self._wrap_nested(cls.run)

    def _wrap_launch(self, orig):
        guard = self

        def run(fn_self, *args, grid=None, warmup=False, **kwargs):
            if guard.watching and not warmup:
                code = getattr(getattr(fn_self, "fn", None), "__code__", None)
                where = os.path.realpath(code.co_filename) if code else ""
                name = getattr(fn_self, "__name__", None) or getattr(code, "co_name", "?")
                if where == guard.file:
                    guard.launches += 1
                else:
                    guard.foreign.append(name)
                if guard.stream_id is not None:
                    current = guard.stream_id()
                    if current != guard.default_stream_id:
                        guard.side_streams.append(name)
            guard.depth += 1
            try:
                if guard.watching and not warmup and guard.on_first_compile is not None:
                    # Compile without launching (``run(warmup=True)``, the path of
                    # ``JITFunction.warmup``: compile and cache, skip the launch, the same
                    # code in the triton 3.6.0 and 3.9 sources; the interpreter's run
                    # returns at once on warmup), then tell the launcher, so that
                    # the compile limit covers compilation only and a kernel that never ends
                    # is stopped by the run limit, named as such.
                    hook, guard.on_first_compile = guard.on_first_compile, None
                    orig(fn_self, *args, grid=grid, warmup=True, **kwargs)
                    hook()
                return orig(fn_self, *args, grid=grid, warmup=warmup, **kwargs)
            except BaseException as exc:
                if guard.depth == 1 and guard.launch_error is None:
                    guard.launch_error = (getattr(fn_self, "__name__", "?"), exc)
                raise
            finally:
                guard.depth -= 1

        return run

    def _wrap_nested(self, orig):
        guard = self

        def run(self_, *args, **kwargs):
            guard.depth += 1
            try:
                return orig(self_, *args, **kwargs)
            finally:
                guard.depth -= 1

        return run

    def call(self, fn, args):
        self.watching = True
        try:
            with self._mode_cls():
                return fn(*args)
        finally:
            self.watching = False

    def verdict(self) -> Fault | None:
        if self.torch_ops:
            ops = ", ".join(dict.fromkeys(self.torch_ops))
            return Fault("torch_ops",
                         f"résultat refusé : custom_kernel a utilisé des opérations PyTorch qui "
                         f"calculent ou écrivent ({ops}) ; le résultat doit venir d'un noyau "
                         f"Triton de la soumission (seules les allocations comme torch.empty "
                         f"et les vues sont permises).")
        if self.side_streams:
            return Fault("side_stream",
                         f"noyau « {self.side_streams[0]} » lancé sur un flux CUDA secondaire : "
                         f"le chronomètre ne le verrait pas ; lancez vos noyaux sur le flux "
                         f"courant (pas de torch.cuda.stream(…) dans custom_kernel).")
        if self.launches == 0:
            extra = (f" (noyaux lancés qui ne viennent pas de la soumission : "
                     f"{', '.join(self.foreign)})") if self.foreign else ""
            return Fault("no_kernel",
                         "aucun noyau @triton.jit de la soumission n'a été lancé par "
                         f"custom_kernel{extra} : le résultat doit venir de votre noyau.")
        return None


# ---------------------------------------------------------------- errors → lines

def _line_in(tb, path: str) -> int | None:
    line = None
    for frame, lineno in traceback.walk_tb(tb):
        if os.path.realpath(frame.f_code.co_filename) == path:
            line = lineno
    return line


def _compile_error_line(exc, source: str) -> int | None:
    """Absolute line of a Triton CompilationError: its node's line is relative to the
    kernel's source, which starts at the ``def`` line."""
    node, src = getattr(exc, "node", None), getattr(exc, "src", None)
    lineno = getattr(node, "lineno", None)
    if not lineno or not src:
        return None
    m = re.search(r"def\s+(\w+)\s*\(", src)
    if not m:
        return None
    for i, text in enumerate(source.splitlines(), start=1):
        if re.match(rf"\s*def\s+{m.group(1)}\s*\(", text):
            return i + lineno - 1
    return None


def short(exc: BaseException, limit: int = 600) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text if len(text) <= limit else text[:limit] + " […]"


def _chain(exc: BaseException) -> list[BaseException]:
    """The exception and its causes, outermost first (the interpreter wraps kernel errors)."""
    out = []
    while exc is not None and exc not in out and len(out) < 10:
        out.append(exc)
        exc = exc.__cause__ or exc.__context__
    return out


def fault_from_exception(exc: BaseException, guard: Guard | None, path: str, source: str,
                          interpreter: bool) -> Fault:
    line = None
    for e in _chain(exc):   # the innermost frame in the submission is the most precise
        line = _line_in(e.__traceback__, path) or line
    inner = _chain(exc)[-1]
    if type(exc).__name__ == "InterpreterError" and inner is not exc:
        shown = inner
    else:
        shown = exc
    name = type(shown).__name__
    if guard is not None and guard.launch_error is not None and guard.launch_error[1] is exc:
        kernel = guard.launch_error[0]
        if name in ("CompilationError", "CompileTimeAssertionFailure",
                    "UnsupportedLanguageConstruct") or "CompilationError" in [
                c.__name__ for c in type(exc).__mro__]:
            line = _compile_error_line(exc, source) or line
            detail = (getattr(exc, "error_message", None) or short(exc)).strip()
            return Fault("compile", f"erreur de compilation Triton dans le noyau « {kernel} »"
                         + (f", ligne {line}" if line else "") + f" : {detail}", line)
        resource_msg = resource_errors.translate(shown)
        if resource_msg:
            return Fault("runtime", (f"ligne {line} : " if line else "") + resource_msg, line)
        if interpreter:
            return Fault("compile", f"le noyau « {kernel} » échoue dans l'interpréteur Triton"
                         + (f", ligne {line}" if line else "") + f" : {name} : {short(shown)}", line)
        if name in ("OutOfResources",):
            return Fault("compile", f"le noyau « {kernel} » demande trop de ressources : "
                         f"{short(exc)} (réduisez les tailles de bloc ou num_stages)", line)
        return Fault("compile", f"le lancement du noyau « {kernel} » a échoué"
                     + (f", ligne {line}" if line else "") + f" : {name} : {short(exc)}", line)
    resource_msg = resource_errors.translate(exc) or resource_errors.translate(shown)
    if resource_msg:
        return Fault("runtime", (f"ligne {line} : " if line else "") + resource_msg, line)
    return Fault("runtime", f"{name}" + (f" ligne {line}" if line else "")
                 + f" : {short(shown)}", line)
