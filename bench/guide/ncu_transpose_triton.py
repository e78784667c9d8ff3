"""Nsight Compute on the Triton transposes, 8192 x 8192 fp32, tiled 64 x 64 and naive,
one launch each with ``--clock-control none`` (performance-05, -06, -07)."""
import sys

from guide_common import HERE, emit, ncu_metrics

METRICS = [
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "gpu__time_duration.sum",
]


def main() -> None:
    found = ncu_metrics([sys.executable, str(HERE / "transpose_triton.py"), "--profile"], METRICS, "transpose_")
    figures = {}
    for kernel, key in (("transpose_tiled_kernel", "tiled_64x64"), ("transpose_naive_kernel", "naive")):
        m = found.get(kernel, {})
        sectors = m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")
        requests = m.get("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum")
        figures[key] = {
            "dram_pct_of_peak": m.get("dram__throughput.avg.pct_of_peak_sustained_elapsed"),
            "dram_read_MB": (m.get("dram__bytes_read.sum") or 0) / 1e6,
            "dram_write_MB": (m.get("dram__bytes_write.sum") or 0) / 1e6,
            "store_sectors_M": (sectors or 0) / 1e6,
            "store_requests_M": (requests or 0) / 1e6,
            "store_sectors_per_request": sectors / requests if sectors and requests else None,
            "warps_active_pct": m.get("sm__warps_active.avg.pct_of_peak_sustained_active"),
            "duration_ms": (m.get("gpu__time_duration.sum") or 0) / 1e6,
        }
    figures["ideal_MB_each_way"] = 8192 * 8192 * 4 / 1e6
    figures["ncu_wall_s"] = found["_ncu_wall_s"]
    figures["ncu_passes"] = found["_passes"]
    figures["metrics_collected"] = len(METRICS)
    emit("Nsight Compute on the Triton transposes", figures, {
        "size": "8192 x 8192", "dtype": "fp32", "launches_profiled": "one per kernel",
        "ncu": found["_ncu_command"], "MB": "10^6 bytes",
        "kernels_seen": sorted(k for k in found if not k.startswith("_")),
    })


if __name__ == "__main__":
    main()
