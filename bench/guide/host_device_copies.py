"""Host↔device copy bandwidth from pageable and pinned memory (fondations-07).

256 MiB uint8 tensors, ``copy_`` between a host tensor and a GPU tensor, median of 11
copies timed by CUDA events after 3 warm-up copies; GB/s = 10^9 bytes per second.
"""
import torch

from guide_common import emit, events_us, median

MIB, REPS, WARMUP = 256, 11, 3


def main() -> None:
    nbytes = MIB * 2**20
    dev = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    pageable = torch.ones(nbytes, dtype=torch.uint8)
    pinned = torch.ones(nbytes, dtype=torch.uint8).pin_memory()
    figures = {}
    for name, host in (("pageable", pageable), ("pinned", pinned)):
        h2d = median(events_us(lambda: dev.copy_(host, non_blocking=True), WARMUP, REPS, sync_each=True))
        d2h = median(events_us(lambda: host.copy_(dev, non_blocking=True), WARMUP, REPS, sync_each=True))
        figures[f"h2d_{name}_GBps"] = nbytes / (h2d * 1e-6) / 1e9
        figures[f"d2h_{name}_GBps"] = nbytes / (d2h * 1e-6) / 1e9
    emit("host-device copies, pageable vs pinned", figures, {
        "size_bytes": nbytes, "size": f"{MIB} MiB", "dtype": "uint8",
        "repetitions": REPS, "warmup": WARMUP, "statistic": "median",
        "timing": "CUDA events around each copy_, synchronised after each",
        "bytes_counted": "one copy of the buffer",
    })


if __name__ == "__main__":
    main()
