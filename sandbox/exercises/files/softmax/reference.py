"""Softmax des lignes : solution de référence (une ligne entière par programme, dans les
registres : x est lu une fois et out écrit une fois, comme le tutoriel Triton « fused softmax »)."""
import triton
import triton.language as tl


@triton.jit
def _softmax_lignes(x_ptr, out_ptr, M, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * N + cols, num / den, mask=mask)


def custom_kernel(x, out):
    M, N = x.shape
    BLOCK_N = max(32, triton.next_power_of_2(N))
    num_warps = 4 if BLOCK_N <= 2048 else 8 if BLOCK_N <= 8192 else 16
    _softmax_lignes[(M,)](x, out, M, N, BLOCK_N=BLOCK_N, num_warps=num_warps)
