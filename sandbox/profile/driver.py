"""The profiler's driver, run inside the jail under ncu: ``python -m sandbox.profile.driver JOB``.

It builds the exercise's inputs at the job's shape, calls ``custom_kernel`` once outside
the profiled range (compilation, autotuning), then once between
``cudaProfilerStart``/``Stop``; it writes ``profile-info.json`` (shape, dtype, ideal
bytes, or the submission's error and line) next to the job file. The submission is loaded
by the launcher's own ``load_submission`` (``sandbox.launcher.load``) and both calls go
through its ``Guard``, so a failing submission gets the same French message and line here
as in a judged run.
Phases are marked for the jail: "compile" while loading, "call" once the submission is
loaded, "run" once its first kernel is compiled (the guard's hook), "done" at the end.

The figures explain; they never score (``sandbox.profile``): inputs are drawn here with
a fixed seed, not by the judge.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path


def main(job_path: str) -> None:
    import torch

    from sandbox.exercises import get_exercise
    from sandbox.jail import mark_phase
    from sandbox.launcher.guard import fault_from_exception
    from sandbox.launcher.load import load_submission
    from sandbox.records import Fault

    job = json.loads(Path(job_path).read_text())
    info_path = Path(job_path).with_name("profile-info.json")
    ex = get_exercise(job["exercise"])
    dtype_name = job.get("dtype") or ex.dtypes[0]
    dtype = {"float32": torch.float32, "float16": torch.float16,
             "bfloat16": torch.bfloat16}[dtype_name]
    shape = tuple(job.get("shape") or ex.timing_shape)
    info = {"shape": list(shape), "dtype": dtype_name}
    elem = torch.empty((), dtype=dtype).element_size()
    if ex.bytes_moved:
        info["ideal_bytes"] = int(ex.bytes_moved(shape, elem))
    path = str(Path(job["submission"]).resolve())
    source = Path(path).read_text(encoding="utf-8")
    guard = None
    try:
        mark_phase("compile")
        loaded = load_submission(path, ex.signature, interpreter=False,
                                 on_first_compile=lambda: mark_phase("run"))
        mod, guard = loaded.module, loaded.guard
        mark_phase("call")
        gen = torch.Generator(device="cuda").manual_seed(1234)
        inputs = ex.make_inputs(shape, dtype, gen, "cuda")
        out = ex.make_output(inputs, shape, dtype)
        guard.call(mod.custom_kernel, (*inputs, out))   # compile, autotune: not profiled
        torch.cuda.synchronize()
        mark_phase("run")
        torch.cuda.profiler.start()
        guard.call(mod.custom_kernel, (*inputs, out))
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()
        mark_phase("done")
    except BaseException as exc:   # reported as data; the traceback stays in stderr
        fault = exc if isinstance(exc, Fault) else fault_from_exception(exc, guard, path, source, False)
        info["error"] = fault.message[:500]
        info["line"] = fault.line
        Path(info_path).write_text(json.dumps(info))
        raise
    Path(info_path).write_text(json.dumps(info))


if __name__ == "__main__":
    main(sys.argv[1])
