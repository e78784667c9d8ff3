"""The card's bandwidth ceiling and L2 (performance-01, -05, -07, and every chapter that
quotes the copy ceiling): peak computed from the card's properties, ``copy_`` in torch and a
Triton copy (1024 elements per program, 8 warps) on 16384 x 16384 fp32, the L2 size, and the
effect of L2 flushing on a 32 MiB and a 1 GiB copy. Bytes counted: one read plus one write.
"""
import torch
import triton
import triton.language as tl
from triton.testing import do_bench

from guide_common import emit, events_us, median, smi_query

WARMUP_MS, REP_MS, PEAK_TBPS = 50, 300, 4.8


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def triton_copy(x, y):
    n = x.numel()
    copy_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024, num_warps=8)


def tbps(ms, x):
    return 2 * x.numel() * x.element_size() / (ms * 1e-3) / 1e12


def main() -> None:
    p = torch.cuda.get_device_properties(0)
    clock_khz = getattr(p, "memory_clock_rate", None)
    bus_bits = getattr(p, "memory_bus_width", None)
    peak = 2 * clock_khz * 1e3 * bus_bits / 8 / 1e12 if clock_khz and bus_bits else None
    nvml_clock = smi_query("clocks.max.memory")
    nvml_peak = (2 * float(nvml_clock) * 1e6 * bus_bits / 8 / 1e12
                 if bus_bits and nvml_clock.replace(".", "").isdigit() else None)
    x = torch.randn(16384, 16384, device="cuda")
    y = torch.empty_like(x)
    ms_torch = do_bench(lambda: y.copy_(x), warmup=WARMUP_MS, rep=REP_MS, return_mode="median")
    triton_copy(x, y)
    torch.testing.assert_close(y, x, rtol=0, atol=0)
    ms_triton = do_bench(lambda: triton_copy(x, y), warmup=WARMUP_MS, rep=REP_MS, return_mode="median")
    flush = {}
    for label, nbytes in (("32MiB", 32 * 2**20), ("1GiB", 2**30)):
        a = torch.empty(nbytes // 4, device="cuda")
        b = torch.empty_like(a)
        mean_flushed = do_bench(lambda: b.copy_(a), warmup=WARMUP_MS, rep=REP_MS, return_mode="mean")
        events_unflushed = median(events_us(lambda: b.copy_(a), 10, 100)) / 1000.0
        flush[label] = {"do_bench_mean_flushed_TBps": tbps(mean_flushed, a),
                        "events_median_unflushed_TBps": tbps(events_unflushed, a)}
        del a, b
    t_torch, t_triton = tbps(ms_torch, x), tbps(ms_triton, x)
    emit("copy ceiling, peak and L2", {
        "memory_clock_khz": clock_khz, "memory_bus_width_bits": bus_bits,
        "peak_from_properties_TBps": peak,
        "nvml_max_memory_clock_MHz": nvml_clock, "peak_from_nvml_clock_TBps": nvml_peak,
        "torch_copy_fp32_TBps": t_torch, "torch_copy_pct_of_4p8": 100 * t_torch / PEAK_TBPS,
        "triton_copy_fp32_TBps": t_triton, "triton_copy_pct_of_4p8": 100 * t_triton / PEAK_TBPS,
        "l2_cache_bytes": getattr(p, "L2_cache_size", None),
        "l2_cache_MiB": (getattr(p, "L2_cache_size", 0) or 0) / 2**20,
        "total_memory_bytes": p.total_memory,
        "flush_effect": flush,
    }, {
        "size": "16384 x 16384 fp32 (flush test: 32 MiB and 1 GiB fp32)",
        "bytes_counted": "one read plus one write",
        "timing": f"triton.testing.do_bench warmup={WARMUP_MS} ms rep={REP_MS} ms, median unless said; "
                  "events: 10 warm-up then 100 copies, one event pair each, one sync at the end, no flush",
        "peak_formula": "2 x memory clock x memory_bus_width / 8 (clock from torch properties, "
                        "and from nvidia-smi clocks.max.memory)",
        "triton_copy": "1024 elements per program, 8 warps",
    })


if __name__ == "__main__":
    main()
