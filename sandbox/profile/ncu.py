"""Nsight Compute: where it is, the command line, and what its CSV says.

Used by ``run`` (``profile_submission``) and the benchmarks: ``find_ncu()``,
``ncu_command(ncu)`` (sections and metrics read, launches profiled), ``parse_ncu_csv``
(rows of ``--csv --page raw``), ``summarise`` (short-named figures over the launches, as
``diagnosis`` reads them) and ``raw_record`` (ncu's own names, for the record).
Standard library only.
"""
from __future__ import annotations

import csv
import io
import os
import re
import shutil
from typing import Any

LAUNCHES = 4   # a submission may launch a few kernels (two-pass reduction …)
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
           "--launch-count", str(LAUNCHES), "--target-processes", "all"]
    for s in _SECTIONS:
        cmd += ["--section", s]
    return cmd + ["--metrics", ",".join(metrics), "--csv", "--page", "raw"]


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


def raw_record(row: dict[str, Any]) -> dict[str, Any]:
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
