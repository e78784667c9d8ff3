"""The sandbox's exercises: what a submission must compute, on which shapes, and how it is judged.

Public entry: ``get_exercise(name) -> Exercise`` (French or English name), and
``list_exercises()``; the checker ``compare(got, expected, rtol, atol, context)`` (where and
by how much a result is wrong, in French) and the formatters ``fmt_int``, ``fmt_shape``.
The references here are trusted code: the judge (``sandbox.judge``) runs them, never the
submission's. The submission contract, in the spirit of gpu-mode/reference-kernels:
the user's module defines ``@triton.jit`` kernel(s) and a launcher
``custom_kernel(*inputs, out)`` that writes the result into ``out``, a tensor Tuile
allocates and poisons with NaN before every call. Tuile owns the input generator, the
reference, the checker, the shapes and the bytes counted.

Importing this package does not import torch; the functions that build tensors do.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

_FILES = Path(__file__).resolve().parent / "files"

Shape = tuple[int, ...]


@dataclass(frozen=True)
class Exercise:
    name: str                       # French, as on the CLI
    aliases: tuple[str, ...]        # English names accepted too
    title: str
    summary: str                    # what custom_kernel receives and must write, in French
    signature: str                  # "custom_kernel(x, out)"
    dtypes: tuple[str, ...]         # the first is the default
    cpu_shapes: tuple[Shape, ...]   # checked in the interpreter (small, odd ones included)
    gpu_shapes: tuple[Shape, ...]   # checked on the GPU (large odd ones included)
    cpu_rotation_shape: Shape       # repeated calls, rechecked, in the interpreter
    timing_shape: Shape             # timed on the GPU; its bytes are well over 2 × L2
    make_inputs: Callable | None    # (shape, torch dtype, generator, device) -> tuple of tensors
    make_output: Callable | None    # (inputs, shape, torch dtype) -> empty output tensor
    reference: Callable | None      # (inputs) -> expected output, computed in higher precision
    tolerance: Callable | None      # (shape, dtype name) -> (rtol, atol); (0, 0) is exact
    bytes_moved: Callable | None    # (shape, element size) -> minimal bytes through DRAM
    bytes_note: str
    flops: Callable | None          # (shape) -> floating-point operations, None when irrelevant
    threshold_pct: float | None     # the goal, % of the card's peak bandwidth; None: no goal
    guide: str = ""                 # the guide's chapter that teaches it
    free: bool = False              # free mode: inputs and reference come from the submission

    def file(self, kind: str) -> Path:
        """kind: "template", "reference" or "naive"."""
        return _FILES / self.name / f"{kind}.py"

    def source(self, kind: str) -> str:
        return self.file(kind).read_text(encoding="utf-8")

    @property
    def template(self) -> str:
        return self.source("template")


def _registry() -> dict[str, Exercise]:
    from sandbox.exercises._defs import EXERCISES

    return {ex.name: ex for ex in EXERCISES}


def list_exercises() -> list[Exercise]:
    return list(_registry().values())


class UnknownExercise(LookupError):
    """An exercise name that is not in the registry; the message lists the known ones."""


def get_exercise(name: str) -> Exercise:
    key = (name or "").strip().lower()
    for ex in _registry().values():
        if key == ex.name or key in ex.aliases:
            return ex
    known = ", ".join(ex.name for ex in _registry().values())
    raise UnknownExercise(f"exercice inconnu : « {name} » ; exercices connus : {known}")


from sandbox.exercises._check import compare, fmt_int, fmt_shape  # noqa: E402  (public names)
