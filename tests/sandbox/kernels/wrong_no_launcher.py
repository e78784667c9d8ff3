"""Faux exprès : un noyau, mais pas de lanceur custom_kernel."""
import triton
import triton.language as tl


@triton.jit
def transpose(x_ptr, out_ptr, M, N):
    pass


def lancer(x, out):
    transpose[(1,)](x, out, *x.shape)
