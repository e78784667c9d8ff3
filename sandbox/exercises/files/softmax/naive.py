"""Softmax des lignes : solution naïve en trois passes (maximum, somme, écriture) : x est
lu trois fois, soit deux fois plus d'octets que le minimum."""
import triton
import triton.language as tl


@triton.jit
def _softmax_trois_passes(x_ptr, out_ptr, M, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = x_ptr + row * N
    m_vec = tl.full((BLOCK,), -float("inf"), tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(base + cols, mask=cols < N, other=-float("inf")).to(tl.float32)
        m_vec = tl.maximum(m_vec, x)
    m = tl.max(m_vec, axis=0)
    s_vec = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(base + cols, mask=cols < N, other=-float("inf")).to(tl.float32)
        s_vec += tl.exp(x - m)
    s = tl.sum(s_vec, axis=0)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(base + cols, mask=cols < N, other=0.0).to(tl.float32)
        tl.store(out_ptr + row * N + cols, tl.exp(x - m) / s, mask=cols < N)


def custom_kernel(x, out):
    M, N = x.shape
    _softmax_trois_passes[(M,)](x, out, M, N, BLOCK=128, num_warps=4)
