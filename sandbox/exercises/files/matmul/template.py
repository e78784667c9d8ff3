"""Exercice : multiplication de matrices par tuiles.

Tuile appelle custom_kernel(a, b, out) :
- a est (M, K), b est (K, N), toutes deux contiguës (float16 par défaut), sur le GPU ;
- out est (M, N), du même type, déjà allouée et remplie de NaN.
Écrivez out = a @ b, en accumulant en float32.

Règles : le résultat doit être calculé par un noyau @triton.jit de ce fichier ;
torch.matmul, a @ b ou toute opération PyTorch qui calcule sont refusés dans custom_kernel.
Le rapport donne le temps, les TFLOP/s (2·M·N·K opérations) et les octets minimaux.
"""
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    # TODO : pour k0 de 0 à K par pas de BLOCK_K :
    #   charger la tuile de a (rm, k0 + rk) et celle de b (k0 + rk, rn), masques compris
    #   (other=0.0 : les éléments hors bornes ne doivent rien ajouter)
    #   acc = tl.dot(tuile_a, tuile_b, acc)
    # TODO : ranger acc dans c_ptr + rm[:, None] * N + rn[None, :], avec un masque
    pass


def custom_kernel(a, b, out):
    M, K = a.shape
    _, N = b.shape
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32  # tl.dot demande des tuiles d'au moins 16
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    matmul_kernel[grid](a, b, out, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
