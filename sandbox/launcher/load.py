"""Load a submission the one way the sandbox does, for the launcher and the profiler driver.

Public entry: ``load_submission(path, signature, *, interpreter, free, on_first_compile)``
imports the file as module ``soumission``, checks that it defines ``custom_kernel`` (and,
in free mode, ``make_inputs`` and ``reference``), and returns a ``Loaded`` with the module
and a ``Guard`` that watches its calls (``sandbox.launcher.guard``). A submission that
crashes while loading, or misses the contract, raises a ``Fault`` with a French message
and its line.

This runs in the jailed process and executes the submission's top level: whatever it
does here (patch torch, triton or this module) it does to its own process only; the
judge believes none of it (``sandbox.judge``), and the profiler's figures explain but
never score.
"""
from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass
from typing import Callable

from sandbox.launcher.guard import Guard, fault_from_exception
from sandbox.records import Fault

SUBMISSION_MODULE = "soumission"


@dataclass
class Loaded:
    module: object
    guard: Guard
    path: str
    source: str

    def fault(self, exc: BaseException, interpreter: bool) -> Fault:
        return fault_from_exception(exc, self.guard, self.path, self.source, interpreter)


def load_submission(path: str, signature: str, *, interpreter: bool, free: bool = False,
                    on_first_compile: Callable[[], None] | None = None) -> Loaded:
    path = os.path.realpath(path)
    with open(path, encoding="utf-8") as fh:
        source = fh.read()
    spec = importlib.util.spec_from_file_location(SUBMISSION_MODULE, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[SUBMISSION_MODULE] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:   # SystemExit from a submission too
        f = fault_from_exception(exc, None, path, source, interpreter)
        raise Fault("import", f"le module plante au chargement : {f.message}", f.line)
    if not callable(getattr(module, "custom_kernel", None)):
        raise Fault("contract", "la soumission ne définit pas de lanceur custom_kernel : "
                    f"Tuile appelle {signature}, qui lance votre noyau @triton.jit.")
    if free:
        for name in ("make_inputs", "reference"):
            if not callable(getattr(module, name, None)):
                raise Fault("contract", f"mode libre : la soumission doit définir {name}(…) "
                            "(voir « tuile kernel template libre »).")
    stream_id = default_id = None
    if not interpreter:
        import torch

        default_id = torch.cuda.default_stream().cuda_stream
        stream_id = lambda: torch.cuda.current_stream().cuda_stream   # noqa: E731
    guard = Guard(path, stream_id, default_id, on_first_compile=on_first_compile)
    return Loaded(module, guard, path, source)
