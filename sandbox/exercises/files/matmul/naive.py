"""Multiplication de matrices : solution naïve (tuiles 32 × 32 de out, mais une colonne de a
et une ligne de b à la fois, produit extérieur sur les cœurs CUDA, sans tl.dot ni Tensor Cores)."""
import triton
import triton.language as tl


@triton.jit
def _matmul_naive(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K):
        a = tl.load(a_ptr + rm * K + k, mask=rm < M, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + k * N + rn, mask=rn < N, other=0.0).to(tl.float32)
        acc += a[:, None] * b[None, :]
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def custom_kernel(a, b, out):
    M, K = a.shape
    _, N = b.shape
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
    _matmul_naive[grid](a, b, out, M, N, K, BLOCK_M=32, BLOCK_N=32, num_warps=4)
