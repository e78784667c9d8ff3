"""The profiler's driver, run inside the jail under ncu: ``python -m sandbox.profile.driver JOB``.

It builds the exercise's inputs at the job's shape, calls ``custom_kernel`` once outside
the profiled range (compilation, autotuning), then once between
``cudaProfilerStart``/``Stop``; it writes ``profile-info.json`` (shape, dtype, ideal
bytes, or the submission's error) next to the job file. Phases are marked for the jail:
"compile" while loading and on the first call, "run" for the profiled call.
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

    job = json.loads(Path(job_path).read_text())
    info_path = Path(job_path).with_name("profile-info.json")
    ex = get_exercise(job["exercise"])
    dtype_name = job.get("dtype") or ex.dtypes[0]
    dtype = getattr(torch, dtype_name)
    shape = tuple(job.get("shape") or ex.timing_shape)
    info = {"shape": list(shape), "dtype": dtype_name}
    elem = torch.empty((), dtype=dtype).element_size()
    if ex.bytes_moved:
        info["ideal_bytes"] = int(ex.bytes_moved(shape, elem))
    try:
        mark_phase("compile")
        spec = importlib.util.spec_from_file_location("soumission", job["submission"])
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        gen = torch.Generator(device="cuda").manual_seed(1234)
        inputs = ex.make_inputs(shape, dtype, gen, "cuda")
        out = ex.make_output(inputs, shape, dtype)
        mod.custom_kernel(*inputs, out)     # compile, autotune: not profiled
        torch.cuda.synchronize()
        mark_phase("run")
        torch.cuda.profiler.start()
        mod.custom_kernel(*inputs, out)
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()
        mark_phase("done")
    except Exception as exc:   # reported as data; the traceback stays in stderr
        info["error"] = f"{type(exc).__name__} : {exc}"[:500]
        Path(info_path).write_text(json.dumps(info))
        raise
    Path(info_path).write_text(json.dumps(info))


if __name__ == "__main__":
    main(sys.argv[1])
