"""Records of the kernel sandbox: plain dataclasses that serialise to JSON.

``KernelReport`` is what ``run_submission`` returns and what ``tuile kernel run --json``
prints as it is. Every figure carries its conditions (device, dtype, shapes, bytes
counted); an unknown figure is ``None``, never a guess.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Callable

# error_kind values, from the earliest stage that can fail to the latest.
ERROR_KINDS = (
    "unknown_exercise",  # no such exercise
    "options",           # bad dtype or mode for this exercise
    "source",            # not text, empty, too long, NUL bytes
    "syntax",            # the source does not parse (line given)
    "precheck",          # the static pre-check refused it (lines given)
    "import",            # the module raised while being loaded
    "contract",          # no custom_kernel, wrong signature, returned another tensor
    "compile",           # Triton refused to compile a kernel (line given)
    "runtime",           # an exception while running the launcher or a kernel
    "torch_ops",         # the result came (partly) from PyTorch ops, not a Triton kernel
    "no_kernel",         # no Triton kernel of the submission was launched
    "side_stream",       # a kernel was launched on another CUDA stream than the current one
    "input_modified",    # an input tensor was changed by the call
    "mismatch",          # wrong values (count, first indices, max error)
    "impossible_time",   # faster than bytes / peak: the timer was escaped somehow
    "early_done",        # the launcher said "done" before its outputs were written
    "background_work",   # GPU work of the launcher still running when the judge measures
    "protocol",          # the launcher broke the judge's protocol (bad message, silence)
    "timeout",           # killed at the time limit
    "crashed",           # the launcher died before the judge was done (signal, OOM …)
    "internal",          # a fault of the sandbox itself
)


# error kinds that mean "computed something, but not what was asked": verdict "incorrect"
INCORRECT_KINDS = ("mismatch", "torch_ops", "no_kernel", "side_stream", "input_modified",
                   "impossible_time", "early_done", "background_work")


class Fault(Exception):
    """A fault found while judging a run: becomes error_kind, error and error_line."""

    def __init__(self, kind: str, message: str, line: int | None = None, mismatch=None):
        super().__init__(message)
        self.kind, self.message, self.line, self.mismatch = kind, message, line, mismatch


@dataclass
class Mismatch:
    """Where and by how much a result is wrong, for one checked call."""
    shape: list[int]
    dtype: str
    count: int                 # wrong elements (unwritten ones included)
    total: int
    unwritten: int             # still holding the poison value (NaN)
    first_indices: list[list[int]]
    first_got: list[float]
    first_expected: list[float]
    max_abs_error: float | None
    max_rel_error: float | None
    rtol: float
    atol: float
    context: str = ""          # "vérification", "appel chronométré n° 3" …
    message: str = ""          # the French sentence shown to the user


@dataclass
class KernelReport:
    exercise: str
    mode: str = "interpreter"              # "gpu" | "interpreter"
    mode_note: str = ""
    compiled: bool = False
    correct: bool = False
    error: str = ""                        # French, one or a few lines
    error_kind: str = ""                   # one of ERROR_KINDS, "" when all is well
    error_line: int | None = None          # line in the submission, when known
    timed_out: bool = False
    dtype: str = ""
    shapes_checked: list[list[int]] = field(default_factory=list)
    dtypes_checked: list[str] = field(default_factory=list)
    timing_shape: list[int] = field(default_factory=list)
    seed_hex: str = ""                     # drawn after the submission was loaded
    median_us: float | None = None
    p10_us: float | None = None
    p90_us: float | None = None
    repetitions: int = 0
    timing_note: str = ""
    claimed_median_us: float | None = None   # the launcher's own CUDA events: a claim, never the figure
    claimed_span_per_call_us: float | None = None   # its events from first flush to last call, / N (a claim)
    batches_us: list[float] = field(default_factory=list)   # per-call time of each timed round
    full_batches_us: list[float] = field(default_factory=list)    # each round's full batch, raw
    short_batches_us: list[float] = field(default_factory=list)   # each round's short batch, raw
    calls_per_batch: int = 0               # N, the sets of a full batch
    short_calls: int = 0                   # K, the sets of a short batch
    batch_fixed_us: float | None = None    # median fixed cost implied by the two batch sizes
    fixed_cap_us: float | None = None      # above it, a round is timed with the cap instead
    capped_rounds: int = 0                 # rounds whose implied fixed cost passed the cap
    flush_us: float | None = None          # one L2 flush as a batch pays it, timed by the judge
    idle_probe_us: float | None = None     # the judge's tiny kernel + sync before the last batch
    correctness_judged: bool = True        # False in free mode: declared by the module
    precheck: bool = True                  # whether the static pre-check ran
    gpu_index: int | None = None           # the GPU of the host that ran it
    judge_note: str = ""                   # how the judge ran (its uid, non-dumpable)
    bytes_counted: int | None = None
    bytes_note: str = ""
    flops: int | None = None
    gbps: float | None = None
    tflops: float | None = None
    floor_us: float | None = None          # bytes / peak: nothing can be faster
    device_name: str = ""
    peak_gbps_card: float | None = None    # memory clock × bus width, read from the card
    peak_gbps_datasheet: float | None = None
    peak_source: str = ""                  # which of the two the percentages use
    copy_ceiling_gbps: float | None = None # a large device copy, same card, same run
    pct_of_peak: float | None = None
    pct_of_copy_ceiling: float | None = None
    threshold_pct: float | None = None     # the exercise's goal, % of the card's peak
    verdict: str = ""                      # "pass" | "fail" | "incorrect" | "error" | "not_timed" | "no_target"
    verdict_text: str = ""
    mismatches: list[Mismatch] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)   # what was verified, in French
    profile: dict[str, Any] | None = None
    diagnosis: list[dict[str, Any]] | None = None
    stderr_tail: str = ""
    wall_s: float | None = None
    phases_s: dict[str, float] = field(default_factory=dict)   # judge: load, checks, timing …
    versions: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "KernelReport":
        known = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in known}
        kwargs["mismatches"] = [Mismatch(**m) for m in data.get("mismatches") or []]
        return cls(**kwargs)


@dataclass(frozen=True)
class RunOptions:
    """How to run one submission. ``mode``: "auto" (GPU when CUDA is there), "gpu",
    "interpreter". ``dtype``: None for the exercise's default."""
    dtype: str | None = None
    mode: str = "auto"
    all_dtypes: bool = True        # also check the other dtypes on one small odd shape
    timing: bool = True            # time on GPU (False: correctness only)
    keep_scratch: bool = False
    scratch_root: str | None = None
    use_queue: bool = True         # serialise GPU runs through sandbox.gpuqueue
    compile_timeout_s: float | None = None
    run_timeout_s: float | None = None
    on_position: Callable[[int], None] | None = None   # told its place in the GPU queue
    profile: bool = False          # GPU and correct: one ncu pass and a diagnosis (part 2)
    precheck: bool = True          # the static pre-check (defence in depth); off: tests and
                                   # the acceptance run, which show the judge holds alone
