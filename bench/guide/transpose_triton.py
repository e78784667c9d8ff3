"""Triton and PyTorch transposes (performance-01, -03, -05, -06, -07): naive 1-D Triton,
``y.copy_(x.t())``, tiled ``tl.trans`` at 32/64/128 tiles, fp32 and bf16, 16384 x 16384;
five back-to-back timings of the 64 x 64 kernel; a 1024 x 1024 fp32 transpose.
Bytes counted: one read plus one write (2 x M x N x element size). ``--profile`` runs the
tiled 64 x 64 and naive kernels once each on 8192 x 8192 fp32, for ncu_transpose_triton.py.
"""
import sys

import torch
import triton
import triton.language as tl
from triton.testing import do_bench

from guide_common import emit

WARMUP_MS, REP_MS, PEAK_TBPS = 50, 300, 4.8


@triton.jit
def transpose_naive_kernel(x_ptr, y_ptr, M, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    v = tl.load(x_ptr + row * N + cols, mask=mask)
    tl.store(y_ptr + cols * M + row, v, mask=mask)


@triton.jit
def transpose_tiled_kernel(x_ptr, y_ptr, M, N, stride_xm, stride_xn, stride_ym, stride_yn,
                           BM: tl.constexpr, BN: tl.constexpr):
    offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
    offs_n = tl.program_id(1) * BN + tl.arange(0, BN)
    mask_x = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tile = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :] * stride_xn, mask=mask_x)
    mask_y = (offs_n[:, None] < N) & (offs_m[None, :] < M)
    tl.store(y_ptr + offs_n[:, None] * stride_ym + offs_m[None, :] * stride_yn, tl.trans(tile), mask=mask_y)


def naive(x, y, BLOCK=128):
    M, N = x.shape
    transpose_naive_kernel[(M, triton.cdiv(N, BLOCK))](x, y, M, N, BLOCK=BLOCK)


def tiled(x, y, BM, BN, num_warps):
    M, N = x.shape
    transpose_tiled_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](
        x, y, M, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1), BM=BM, BN=BN, num_warps=num_warps)


VARIANTS = {
    "naive_1d": naive,
    "torch_copy_t": lambda x, y: y.copy_(x.t()),
    "tiled_32x32_4w": lambda x, y: tiled(x, y, 32, 32, 4),
    "tiled_64x64_8w": lambda x, y: tiled(x, y, 64, 64, 8),
    "tiled_128x128_8w": lambda x, y: tiled(x, y, 128, 128, 8),
}


def tbps(ms: float, x: torch.Tensor) -> float:
    return 2 * x.numel() * x.element_size() / (ms * 1e-3) / 1e12


def measure(fn, x, y) -> float:
    fn(x, y)
    torch.testing.assert_close(y, x.t().contiguous(), rtol=0, atol=0)
    return do_bench(lambda: fn(x, y), warmup=WARMUP_MS, rep=REP_MS, return_mode="median")


def profile() -> None:
    x = torch.randn(8192, 8192, device="cuda")
    y = torch.empty_like(x)
    tiled(x, y, 64, 64, 8)
    naive(x, y)
    torch.cuda.synchronize()


def main() -> None:
    figures = {}
    for dtype, label in ((torch.float32, "fp32"), (torch.bfloat16, "bf16")):
        x = torch.randn(16384, 16384, device="cuda").to(dtype)
        y = torch.empty_like(x)
        for name, fn in VARIANTS.items():
            ms = measure(fn, x, y)
            t = tbps(ms, x)
            figures.setdefault(name, {})[label] = {"ms": ms, "TBps": t, "pct_of_4p8": 100 * t / PEAK_TBPS}
        del x, y
    x = torch.randn(16384, 16384, device="cuda")
    y = torch.empty_like(x)
    runs = [do_bench(lambda: tiled(x, y, 64, 64, 8), warmup=WARMUP_MS, rep=REP_MS, return_mode="median")
            for _ in range(5)]
    figures["tiled_64x64_fp32_five_runs_ms"] = runs
    figures["five_runs_spread_pct"] = 100 * (max(runs) - min(runs)) / min(runs)
    small = torch.randn(1024, 1024, device="cuda")
    small_t = torch.empty_like(small)
    ms = measure(lambda a, b: tiled(a, b, 64, 64, 8), small, small_t)
    figures["small_1024_tiled_64x64_fp32"] = {"ms": ms, "TBps": tbps(ms, small)}
    emit("Triton transposes", figures, {
        "size": "16384 x 16384 unless said", "dtypes": ["fp32", "bf16"],
        "bytes_counted": "2 x M x N x element size (one read, one write)",
        "timing": f"triton.testing.do_bench warmup={WARMUP_MS} ms rep={REP_MS} ms, median, L2 flushed",
        "peak": "4.8 TB/s datasheet", "naive_block": 128, "checked": "exact against x.t().contiguous()",
    })


if __name__ == "__main__":
    profile() if "--profile" in sys.argv else main()
