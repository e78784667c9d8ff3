"""Exercice : transposition d'une matrice (le test de sortie du parcours B).

Tuile appelle custom_kernel(x, out) :
- x est une matrice (M, N) contiguë (float32 par défaut), sur le GPU ;
- out est une matrice (N, M) contiguë du même type, déjà allouée et remplie de NaN :
  tout élément que votre noyau n'écrit pas sera compté faux.
Écrivez out[j, i] = x[i, j].

Règles : le résultat doit être calculé par un noyau @triton.jit de ce fichier ;
x.t().contiguous(), out.copy_(x.t()) ou toute opération PyTorch qui calcule sont refusés.
Objectif : plus de 80 % du débit mémoire crête de la carte (16384 × 16384 float32).
Piste : une version qui lit des lignes et écrit des colonnes plafonne vers 10 % ; chargez
une tuile 2-D, transposez-la (tl.trans) et écrivez-la par lignes de out.
"""
import triton
import triton.language as tl


@triton.jit
def transposition_kernel(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)  # quelle tuile de lignes de x
    pid_n = tl.program_id(1)  # quelle tuile de colonnes de x
    # TODO : rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M), idem pour cols
    # TODO : masque (rows[:, None] < M) & (cols[None, :] < N) : 127 × 129 doit passer
    # TODO : charger la tuile de x (adresse rows * N + cols)
    # TODO : ranger sa transposée dans out (adresse cols * M + rows)
    pass


def custom_kernel(x, out):
    M, N = x.shape
    BLOCK = 64
    grid = (triton.cdiv(M, BLOCK), triton.cdiv(N, BLOCK))
    transposition_kernel[grid](x, out, M, N, BLOCK_M=BLOCK, BLOCK_N=BLOCK)
