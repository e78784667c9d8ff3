"""Tricheur : lance un noyau Triton inutile et calcule le résultat avec PyTorch."""
import triton
import triton.language as tl


@triton.jit
def _rien(x_ptr):
    pass


def custom_kernel(x, out):
    _rien[(1,)](x)
    out.copy_(x.t())
