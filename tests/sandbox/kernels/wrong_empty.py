"""Faux exprès : le noyau ne fait rien (transposition)."""
import triton
import triton.language as tl


@triton.jit
def vide(x_ptr, out_ptr, M, N, BLOCK: tl.constexpr):
    pass


def custom_kernel(x, out):
    M, N = x.shape
    vide[(triton.cdiv(M, 64), triton.cdiv(N, 64))](x, out, M, N, BLOCK=64)
