"""Launch cost of a tiny PyTorch op (fondations-02, programmation-06, cuda-moderne-08).

``x.add_(1)`` on a one-element fp32 tensor: host time per op in eager mode, GPU time per op
in the same loop, per op replayed in a CUDA graph, and with ``torch.cuda.synchronize()``
after every op. Run: ``python bench/guide/launch_torch.py``.
"""
import time

import torch

from guide_common import emit, median

N_EAGER, N_SYNC, GRAPH_OPS, GRAPH_REPLAYS, REPEATS = 20000, 2000, 100, 50, 5


def main() -> None:
    x = torch.zeros(1, device="cuda")
    for _ in range(200):
        x.add_(1)
    torch.cuda.synchronize()
    host, gpu, graph, sync = [], [], [], []
    for _ in range(REPEATS):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        t0 = time.perf_counter()
        for _ in range(N_EAGER):
            x.add_(1)
        t1 = time.perf_counter()
        b.record()
        torch.cuda.synchronize()
        host.append(1e6 * (t1 - t0) / N_EAGER)
        gpu.append(1000.0 * a.elapsed_time(b) / N_EAGER)

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            x.add_(1)
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(GRAPH_OPS):
            x.add_(1)
    g.replay()
    torch.cuda.synchronize()
    for _ in range(REPEATS):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(GRAPH_REPLAYS):
            g.replay()
        b.record()
        torch.cuda.synchronize()
        graph.append(1000.0 * a.elapsed_time(b) / (GRAPH_REPLAYS * GRAPH_OPS))

    for _ in range(REPEATS):
        t0 = time.perf_counter()
        for _ in range(N_SYNC):
            x.add_(1)
            torch.cuda.synchronize()
        sync.append(1e6 * (time.perf_counter() - t0) / N_SYNC)

    emit("launch costs, PyTorch x.add_(1)", {
        "eager_host_us_per_op": median(host),
        "eager_gpu_us_per_op": median(gpu),
        "graph_us_per_op": median(graph),
        "sync_us_per_op": median(sync),
    }, {
        "op": "x.add_(1), x one fp32 element on cuda",
        "eager_ops": N_EAGER, "sync_ops": N_SYNC, "graph_ops": GRAPH_OPS,
        "graph_replays": GRAPH_REPLAYS, "repeats_median_of": REPEATS,
        "clock": "time.perf_counter for eager host and sync, CUDA events for GPU and graph",
    })


if __name__ == "__main__":
    main()
