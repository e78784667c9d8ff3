"""Profiler feedback: Nsight Compute on one call of the user's kernel, then a diagnosis.

Public entry: ``profile_submission(source, exercise, *, dtype=None, ...) -> dict``, with
``available`` (False when ncu is missing or failed, and ``reason`` says why in French),
``metrics`` (the figures that explain a memory-bound kernel, by short name), ``raw``
(ncu's own metric names and values, for the record), ``command``, ``kernels`` and
``diagnosis`` (``diagnosis.diagnose`` items, with links into the guide).

How: the submission and a job file go into a fresh scratch directory; this module's
``__main__`` (the driver) runs under ``ncu`` inside ``jail.run_isolated``, as every
submission does. The driver builds the exercise's inputs at its timing shape, calls
``custom_kernel`` once outside the profiled range (compilation, autotuning), then once
between ``cudaProfilerStart``/``Stop`` (``--profile-from-start off``): ncu profiles the
first ``_LAUNCHES`` launches of that call, with ``--clock-control none`` (clocks as in
the timed run) and its default cache flush between replays.

Figures from ncu explain; they never score: kernels replayed under ncu run slower, and
the bandwidth and verdict come from ``timing`` only. (The submission runs as the same
user as ncu inside the sandbox, so it could forge its own figures: it would only mislead
its own feedback.) Run it under ``gpuqueue.gpu_slot``
like a timing, so that it does not disturb someone else's measurement.
"""
from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from sandbox.diagnosis import diagnose
from sandbox.jail import Limits, run_isolated

_LAUNCHES = 4   # a submission may launch a few kernels (two-pass reduction …)
_SECTIONS = ("SpeedOfLight", "MemoryWorkloadAnalysis", "Occupancy", "LaunchStats",
             "WarpStateStats")
# ncu metric -> short name used by diagnosis. Summed over the profiled launches where it
# is a count, taken from the longest launch otherwise.
_METRICS = {
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "dram_throughput_pct",
    "dram__bytes_read.sum": "dram_bytes_read",
    "dram__bytes_write.sum": "dram_bytes_write",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": "load_sectors",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": "load_requests",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": "store_sectors",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": "store_requests",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "shared_bank_conflicts_ld",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "shared_bank_conflicts_st",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum": "shared_wavefronts",
    "smsp__inst_executed_op_shared_ld.sum": "shared_ld_instructions",
    "smsp__inst_executed_op_shared_st.sum": "shared_st_instructions",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "achieved_occupancy_pct",
    "sm__maximum_warps_per_active_cycle_pct": "theoretical_occupancy_pct",
    "launch__waves_per_multiprocessor": "waves_per_sm",
    "launch__grid_size": "grid_size",
    "launch__block_size": "block_size",
    "launch__registers_per_thread": "registers_per_thread",
    "launch__occupancy_limit_registers": "occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem": "occupancy_limit_shared_mem",
    "launch__occupancy_limit_warps": "occupancy_limit_warps",
    "launch__occupancy_limit_blocks": "occupancy_limit_blocks",
    "gpu__time_duration.sum": "duration_ns_under_ncu",
}
_SUMMED = {"dram_bytes_read", "dram_bytes_write", "load_sectors", "load_requests",
           "store_sectors", "store_requests", "shared_bank_conflicts_ld",
           "shared_bank_conflicts_st", "shared_wavefronts", "shared_ld_instructions",
           "shared_st_instructions", "duration_ns_under_ncu"}
_STALL = re.compile(r"smsp__average_warps?_(?:latency_)?issue_stalled_(\w+?)"
                    r"(?:_per_issue_active)?\.ratio$")
_UNIT = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6,
         "GB": 1e9, "nsecond": 1, "usecond": 1e3, "msecond": 1e6, "second": 1e9}


def find_ncu() -> str | None:
    return (os.environ.get("TUILE_NCU") or shutil.which("ncu")
            or next((p for p in ("/usr/local/cuda/bin/ncu", "/opt/nvidia/nsight-compute/ncu")
                     if os.path.exists(p)), None))


def ncu_command(ncu: str) -> list[str]:
    metrics = [m for m in _METRICS]
    cmd = [ncu, "--clock-control", "none", "--profile-from-start", "off",
           "--launch-count", str(_LAUNCHES), "--target-processes", "all"]
    for s in _SECTIONS:
        cmd += ["--section", s]
    return cmd + ["--metrics", ",".join(metrics), "--csv", "--page", "raw"]


def profile_submission(source: str, exercise: str, *, dtype: str | None = None,
                       shape: tuple[int, ...] | None = None, report: dict | None = None,
                       limits: Limits | None = None, scratch_root: str | None = None,
                       ncu: str | None = None, keep_scratch: bool = False) -> dict[str, Any]:
    """Profile one call of ``custom_kernel``; never raises for user faults.
    ``ncu``: its path; None looks for it, "" means none (feedback from timing only)."""
    ncu = find_ncu() if ncu is None else ncu
    result: dict[str, Any] = {"available": False, "reason": "", "exercise": exercise,
                              "metrics": {}, "raw": [], "kernels": [], "command": ""}
    if not ncu:
        result["reason"] = "Nsight Compute (ncu) est introuvable sur cette machine"
        result["diagnosis"] = diagnose(result, report=report)
        return result
    scratch = Path(tempfile.mkdtemp(prefix="tuile-ncu-", dir=scratch_root))
    try:
        (scratch / "soumission.py").write_text(source, encoding="utf-8")
        job = {"exercise": exercise, "dtype": dtype, "shape": list(shape) if shape else None,
               "submission": str(scratch / "soumission.py")}
        (scratch / "profile-job.json").write_text(json.dumps(job))
        log = scratch / "ncu.csv"   # ncu's CSV goes there, apart from the program's output
        cmd = ncu_command(ncu) + ["--log-file", str(log), sys.executable, "-m",
                                  "sandbox.profile", str(scratch / "profile-job.json")]
        result["command"] = " ".join(cmd)
        # ncu replays each launch once per counter pass (~40 passes for these sections):
        # a kernel of 1 ms costs well under a second; compile and start dominate.
        lim = limits or Limits(compile_timeout_s=120, run_timeout_s=120, cpu_time_s=300)
        # ncu adds its own processes and threads to the submission's.
        lim = dataclasses.replace(lim, max_processes=max(lim.max_processes, 256))
        repo = str(Path(__file__).resolve().parents[1])
        env = {"PYTHONPATH": repo, "TMPDIR": str(scratch / "tmp")}
        run = run_isolated(cmd, scratch=scratch, limits=lim, env=env)
        for _ in range(3):   # an ncu older or newer than ours may lack a metric: drop it
            missing = re.findall(r"Failed to find metric (\S+)",
                                 run.stderr + run.stdout + _read_text(log))
            if not missing:
                break
            names = [n.strip("\"'.,") for n in missing]
            i = cmd.index("--metrics") + 1
            kept = [m for m in cmd[i].split(",") if m not in names]
            cmd[i] = ",".join(kept) or "gpu__time_duration.sum"
            result["command"] = " ".join(cmd)
            run = run_isolated(cmd, scratch=scratch, limits=lim, env=env)
        info = _read_json(scratch / "profile-info.json")
        result.update({k: v for k, v in info.items() if k in ("shape", "dtype", "ideal_bytes")})
        ncu_text = _read_text(log)
        rows = parse_ncu_csv(ncu_text) or parse_ncu_csv(run.stdout)
        if not rows:
            result["reason"] = _failure_reason(run, info, ncu_text)
        else:
            result["available"] = True
            result["kernels"] = [r.get("Kernel Name", "") for r in rows]
            result["raw"] = [_raw_record(r) for r in rows]
            result["metrics"] = summarise(rows)
            if info.get("ideal_bytes"):
                result["metrics"]["ideal_bytes"] = info["ideal_bytes"]
            if len(rows) >= _LAUNCHES:
                result["note"] = (f"seuls les {_LAUNCHES} premiers lancements de l'appel "
                                  "sont profilés")
    finally:
        if not keep_scratch:
            shutil.rmtree(scratch, ignore_errors=True)
    result["diagnosis"] = diagnose(result, report=report)
    return result


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def _read_text(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def _failure_reason(run, info: dict, ncu_text: str) -> str:
    text = run.stderr + run.stdout + ncu_text
    if "ERR_NVGPUCTRPERM" in text:
        return ("le profileur n'a pas accès aux compteurs du GPU (ERR_NVGPUCTRPERM : "
                "profilage réservé aux administrateurs sur cette machine)")
    if run.timed_out or run.killed_reason:
        return f"profilage interrompu : {run.killed_reason}"
    if info.get("error"):
        return f"la soumission a échoué pendant le profilage : {info['error']}"
    if "No kernels were profiled" in text:
        return "aucun noyau n'a été lancé pendant l'appel profilé"
    tail = text.strip().splitlines()[-3:]
    return "ncu n'a rendu aucun chiffre" + (f" ({' / '.join(tail)[:300]})" if tail else "")


def parse_ncu_csv(text: str) -> list[dict[str, Any]]:
    """Rows of ``ncu --csv --page raw``: a header line, a units line, one line per launch.
    ncu's own messages (lines starting with ==) and the program's output are skipped."""
    lines = [l for l in text.splitlines() if l.startswith('"')]
    if len(lines) < 2:
        return []
    table = list(csv.reader(io.StringIO("\n".join(lines))))
    header = table[0]
    if "Kernel Name" not in header:
        return []
    kname = header.index("Kernel Name")
    units, rows = None, []
    for row in table[1:]:
        if len(row) != len(header):
            continue
        if units is None and not row[kname]:   # the units line has no kernel name
            units = row
            continue
        rec: dict[str, Any] = dict(zip(header, row))
        if units:
            rec["_units"] = dict(zip(header, units))
        rows.append(rec)
    return rows


def _raw_record(row: dict[str, Any]) -> dict[str, Any]:
    """ncu's own names, values and units for the metrics we read (a row has ~650)."""
    units = row.get("_units") or {}
    keep = {k: (v, units.get(k, "")) for k, v in row.items()
            if k in _METRICS or (isinstance(k, str) and _STALL.match(k))}
    return {"kernel": row.get("Kernel Name", ""), "grid": row.get("Grid Size", ""),
            "block": row.get("Block Size", ""), "metrics": keep}


def _number(value: str, unit: str = "") -> float | None:
    v = value.replace(",", "").replace('"', "").strip()
    if not v or v in ("n/a", "N/A"):
        return None
    try:
        x = float(v)
    except ValueError:
        return None
    return x * _UNIT.get(unit, 1)


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Short-named figures over the profiled launches (counts summed, rates of the longest)."""
    def dur(r):
        return _number(r.get("gpu__time_duration.sum", ""),
                       (r.get("_units") or {}).get("gpu__time_duration.sum", "")) or 0
    longest = max(rows, key=dur)
    out: dict[str, Any] = {"launches_profiled": len(rows)}
    for metric, short in _METRICS.items():
        if short in _SUMMED:
            vals = [_number(r.get(metric, ""), (r.get("_units") or {}).get(metric, ""))
                    for r in rows]
            vals = [v for v in vals if v is not None]
            if vals:
                out[short] = sum(vals)
        else:
            v = _number(longest.get(metric, ""), (longest.get("_units") or {}).get(metric, ""))
            if v is not None:
                out[short] = v
    ld, st = out.get("shared_ld_instructions"), out.get("shared_st_instructions")
    if ld is not None or st is not None:
        out["shared_requests"] = (ld or 0) + (st or 0)
    stalls = {}
    for k, v in longest.items():
        m = _STALL.match(k) if isinstance(k, str) else None
        if m and "not_issued" not in k:
            n = _number(v)
            if n:
                stalls[m.group(1)] = round(n, 2)
    if stalls:
        out["stalls"] = stalls
    for word in ("load", "store"):
        sec, req = out.get(f"{word}_sectors"), out.get(f"{word}_requests")
        if sec and req:
            out[f"{word}_sectors_per_request"] = round(sec / req, 2)
    return out


# ---------------------------------------------------------------- the driver (in the sandbox)

def _driver(job_path: str) -> None:
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
    _driver(sys.argv[1])
