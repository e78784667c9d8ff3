"""The contract between the parent and the jailed child: limits, result, phase reports.

``Limits`` says what a run may use; ``IsolatedResult`` is what ``run_isolated`` returns;
``mark_phase(name)``, called inside the child, writes the phase to the pipe whose fd the
parent puts in ``PHASE_FD_ENV``. Phases only move forward, in the order of ``PHASES``
(a mark that would go back is ignored): "compile" while torch, triton and the submission
load; "call" once the submission is loaded and ``custom_kernel`` may run (its first
kernel is still to compile, so the compile limit still applies, but a time-out there is
reported as happening while the submission's code ran); "run" once the first kernel is
compiled (the run limit applies from then on); "done" when the result is written.
Standard library only, imports nothing of the package: every other module of
``sandbox.jail`` may import it.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

PHASE_FD_ENV = "TUILE_PHASE_FD"
PHASES = ("start", "compile", "call", "run", "done")
# The child script (child.py) is run, not imported: it spells this flag itself.
JAIL_FLAG = "--tuile-jail"


@dataclass(frozen=True)
class Limits:
    compile_timeout_s: float = 60.0   # until the worker marks phase "run"
    run_timeout_s: float = 60.0       # after it
    cpu_time_s: int = 120
    max_processes: int = 64           # RLIMIT_NPROC where it applies
    max_open_files: int = 256
    max_file_bytes: int = 64 << 20
    max_output_bytes: int = 64 << 10  # stdout/stderr kept, rest truncated
    memory_bytes: int = 8 << 30       # via cgroup when available (RLIMIT_AS breaks CUDA)


@dataclass(frozen=True)
class IsolatedResult:
    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool
    phase: str            # last phase the child reported, one of PHASES
    killed_reason: str    # "" or a short French explanation
    wall_s: float
    truncated: tuple[str, ...] = ()   # "stdout", "stderr": cut at max_output_bytes
    output_note: str = ""             # the French sentence that says so ("" when nothing cut)
    process_limit_hit: bool = False   # RLIMIT_NPROC / pids.max reached at some point


def mark_phase(name: str) -> None:
    """Called inside the child: report the phase to the parent (no-op outside a sandbox)."""
    fd = os.environ.get(PHASE_FD_ENV)
    if not fd:
        return
    try:
        os.write(int(fd), (name + "\n").encode())
    except (OSError, ValueError):
        pass
