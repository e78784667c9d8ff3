"""Somme des lignes : solution naïve (un programme par ligne, morceaux de 32 colonnes,
1 warp, une réduction complète à chaque morceau)."""
import triton
import triton.language as tl


@triton.jit
def _somme_ligne_naive(x_ptr, out_ptr, M, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    total = tl.sum(tl.zeros((BLOCK,), dtype=tl.float32), axis=0)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
        total += tl.sum(x.to(tl.float32), axis=0)
    tl.store(out_ptr + row, total)


def custom_kernel(x, out):
    M, N = x.shape
    _somme_ligne_naive[(M,)](x, out, M, N, BLOCK=32, num_warps=1)
