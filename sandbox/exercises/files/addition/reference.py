"""Addition de vecteurs : solution de référence (blocs de 1024 éléments, 4 warps)."""
import triton
import triton.language as tl


@triton.jit
def _addition(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def custom_kernel(x, y, out):
    n = x.numel()
    BLOCK = 1024
    _addition[(triton.cdiv(n, BLOCK),)](x, y, out, n, BLOCK=BLOCK, num_warps=4)
