"""The profiler's driver, run inside the jail under ncu: ``python -m sandbox.profile.driver JOB``.

It builds the exercise's inputs at the job's shape, calls ``custom_kernel`` once outside
the profiled range (compilation, autotuning), then once between
``cudaProfilerStart``/``Stop``; it writes ``profile-info.json`` (shape, dtype, ideal
bytes, or the submission's error and line) next to the job file. Both calls go through
the launcher's ``Guard`` and its ``fault_from_exception`` (``sandbox.launcher.guard``),
so a failing submission gets the same French message and line here as in a judged run.
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
    import importlib.util

    import torch

    from sandbox.exercises import get_exercise
    from sandbox.jail import mark_phase
    from sandbox.launcher.guard import Guard, fault_from_exception

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
        spec = importlib.util.spec_from_file_location("soumission", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules["soumission"] = mod
        spec.loader.exec_module(mod)
        default_id = torch.cuda.default_stream().cuda_stream
        guard = Guard(path, lambda: torch.cuda.current_stream().cuda_stream, default_id,
                      on_first_compile=lambda: mark_phase("run"))
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
        fault = fault_from_exception(exc, guard, path, source, False)
        info["error"] = fault.message[:500]
        info["line"] = fault.line
        Path(info_path).write_text(json.dumps(info))
        raise
    Path(info_path).write_text(json.dumps(info))


if __name__ == "__main__":
    main(sys.argv[1])
