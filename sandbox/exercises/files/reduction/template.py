"""Exercice : somme de chaque ligne (une réduction).

Tuile appelle custom_kernel(x, out) :
- x est une matrice (M, N) contiguë (float32 par défaut), sur le GPU ;
- out est un vecteur (M,) du même type, déjà alloué et rempli de NaN.
Écrivez out[i] = x[i, 0] + x[i, 1] + … + x[i, N-1], en accumulant en float32.

Règles : le résultat doit être calculé par un noyau @triton.jit de ce fichier ;
x.sum(…) ou out.zero_() dans custom_kernel sont refusés (si vous utilisez des opérations
atomiques, mettez out à zéro avec un noyau Triton).
Objectif : plus de 80 % du débit mémoire crête de la carte.
"""
import triton
import triton.language as tl


@triton.jit
def somme_lignes_kernel(x_ptr, out_ptr, M, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)  # un programme par ligne, pour commencer
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    # TODO : boucler sur les colonnes par morceaux de BLOCK_N (masque cols < N !)
    #        et ajouter chaque morceau, converti en float32, à acc
    # TODO : ranger tl.sum(acc, axis=0) dans out_ptr + row
    pass


def custom_kernel(x, out):
    M, N = x.shape
    somme_lignes_kernel[(M,)](x, out, M, N, BLOCK_N=1024)
