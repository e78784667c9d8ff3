"""Warp stall reasons, bank conflicts and DRAM throughput of the three CUDA transposes
(performance-04, performance-06, performance-07), one launch each under Nsight Compute
with ``--clock-control none``. Builds ``transpose_cuda.cu`` and runs it in profile mode.
"""
import tempfile
from pathlib import Path

from guide_common import HERE, emit, ncu_metrics, nvcc_build

STALLS = ["long_scoreboard", "lg_throttle", "mio_throttle", "short_scoreboard", "barrier"]
METRICS = [f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STALLS] + [
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "gpu__time_duration.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
]


def _kind(kernel: str) -> str | None:
    """ncu spells template arguments its own way (<0>, <(int)0>): classify by name."""
    if "naive" in kernel:
        return "naive"
    if "tiled" in kernel:
        return "tiled_pad1" if kernel.rstrip(">").endswith("1") else "tiled_pad0"
    return None


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        binary = nvcc_build(HERE / "transpose_cuda.cu", Path(tmp) / "transpose_cuda", ["-lineinfo"])
        found = ncu_metrics([str(binary), "profile"], METRICS, "transpose")
    figures = {}
    for key in ("naive", "tiled_pad0", "tiled_pad1"):
        m = next((v for k, v in found.items() if _kind(k) == key), {})
        figures[key] = {
            **{s: m.get(f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio") for s in STALLS},
            "shared_ld_bank_conflicts": m.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
            "shared_st_bank_conflicts": m.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
            "duration_ms": (m.get("gpu__time_duration.sum") or 0) / 1e6,
            "dram_pct_of_peak": m.get("dram__throughput.avg.pct_of_peak_sustained_elapsed"),
        }
    figures["ncu_wall_s"] = found["_ncu_wall_s"]
    figures["ncu_passes"] = found["_passes"]
    figures["metrics_collected"] = len(METRICS)
    emit("Nsight Compute on the CUDA transposes", figures, {
        "size": "16384 x 16384", "dtype": "fp32", "block": "32 x 8 threads, 32 x 32 tiles",
        "launches_profiled": "one per kernel", "ncu": found["_ncu_command"],
        "stall_metric": "smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio",
        "kernels_seen": sorted(k for k in found if not k.startswith("_")),
    })


if __name__ == "__main__":
    main()
