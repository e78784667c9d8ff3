"""Faux exprès : masque décalé d'un (cols < N - 1), la dernière colonne n'est jamais écrite."""
import triton
import triton.language as tl


@triton.jit
def _t(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N - 1)
    tile = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask)
    tl.store(out_ptr + cols[:, None] * M + rows[None, :], tl.trans(tile), mask=tl.trans(mask))


def custom_kernel(x, out):
    M, N = x.shape
    _t[(triton.cdiv(M, 32), triton.cdiv(N, 32))](x, out, M, N, BLOCK_M=32, BLOCK_N=32)
