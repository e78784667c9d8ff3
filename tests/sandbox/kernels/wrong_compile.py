"""Faux exprès : erreur de compilation Triton à la ligne 10 (tl.arange veut une puissance de 2)."""
import triton
import triton.language as tl


@triton.jit
def _t(x_ptr, out_ptr, M, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    # 100 n'est pas une puissance de 2 :
    cols = tl.arange(0, 100)
    mask = cols < N
    v = tl.load(x_ptr + row * N + cols, mask=mask)
    tl.store(out_ptr + cols * M + row, v, mask=mask)


def custom_kernel(x, out):
    M, N = x.shape
    _t[(M,)](x, out, M, N, BLOCK=128)
