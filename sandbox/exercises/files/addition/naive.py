"""Addition de vecteurs : solution naïve (blocs de 32 éléments, 1 warp : trop peu de travail
par programme pour masquer la latence mémoire)."""
import triton
import triton.language as tl


@triton.jit
def _addition_petits_blocs(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


def custom_kernel(x, y, out):
    n = x.numel()
    _addition_petits_blocs[(triton.cdiv(n, 32),)](x, y, out, n, BLOCK=32, num_warps=1)
