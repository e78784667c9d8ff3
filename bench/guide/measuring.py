"""Timing pitfalls (performance-05): the first ``copy_`` of a process, a host timer without
synchronisation over 100 copies of 1 GiB and of 8 MiB fp32, and an 8 MiB copy timed with an
event pair plus a synchronisation after every repetition vs ``do_bench``. Runs first thing
in a fresh process, so that the first copy pays the one-off costs it is meant to show.
"""
import time

import torch

from guide_common import emit, events_us, median

LOOP = 100


def host_loop_us(y, x) -> float:
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(LOOP):
        y.copy_(x)
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return 1e6 * (t1 - t0) / LOOP


def main() -> None:
    small = torch.empty(2 * 2**20, device="cuda")          # 8 MiB fp32
    small_out = torch.empty_like(small)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    small_out.copy_(small)
    torch.cuda.synchronize()
    first_ms = 1e3 * (time.perf_counter() - t0)
    later_us = median([host_sync_us(small_out, small) for _ in range(11)])

    big = torch.empty(2**28, device="cuda")                # 1 GiB fp32
    big_out = torch.empty_like(big)
    big_out.copy_(big)
    host_big = median([host_loop_us(big_out, big) for _ in range(3)])
    gpu_big = median(events_us(lambda: big_out.copy_(big), 3, 20))
    host_small = median([host_loop_us(small_out, small) for _ in range(3)])

    from triton.testing import do_bench
    sync_each = median(events_us(lambda: small_out.copy_(small), 10, 200, sync_each=True))
    bench = 1000.0 * do_bench(lambda: small_out.copy_(small), warmup=50, rep=300, return_mode="median")
    emit("timing pitfalls", {
        "first_copy_8MiB_ms": first_ms,
        "later_copy_8MiB_us": later_us,
        "host_loop_no_sync_1GiB_us_per_call": host_big,
        "gpu_time_1GiB_copy_us": gpu_big,
        "host_loop_no_sync_8MiB_us_per_call": host_small,
        "events_sync_each_8MiB_median_us": sync_each,
        "do_bench_8MiB_median_us": bench,
    }, {
        "dtype": "fp32", "sizes": "8 MiB and 1 GiB", "host_loop": f"{LOOP} calls, time.perf_counter, median of 3 loops",
        "first_copy": "first copy_ of the process, host timer with synchronisation",
        "later_copy": "median of 11 later copies, host timer with synchronisation",
        "sync_each": "200 repetitions after 10 warm-up, one event pair and a synchronisation each",
        "do_bench": "warmup 50 ms, rep 300 ms, median, L2 flushed",
    })


def host_sync_us(y, x) -> float:
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    y.copy_(x)
    torch.cuda.synchronize()
    return 1e6 * (time.perf_counter() - t0)


if __name__ == "__main__":
    main()
