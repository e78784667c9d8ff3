"""Copie : solution naïve (un programme par ligne, petits morceaux de 32 éléments, 1 warp).

Correcte, mais chaque programme fait peu de travail par itération : la latence mémoire
n'est pas masquée.
"""
import triton
import triton.language as tl


@triton.jit
def _copie_ligne(x_ptr, out_ptr, M, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        v = tl.load(x_ptr + row * N + cols, mask=mask)
        tl.store(out_ptr + row * N + cols, v, mask=mask)


def custom_kernel(x, out):
    M, N = x.shape
    _copie_ligne[(M,)](x, out, M, N, BLOCK=32, num_warps=1)
