"""Exercice : addition de deux vecteurs.

Tuile appelle custom_kernel(x, y, out) :
- x et y sont deux vecteurs de n éléments (float32 par défaut), sur le GPU ;
- out est un vecteur de n éléments, déjà alloué et rempli de NaN : tout élément que
  votre noyau n'écrit pas sera compté faux.
Écrivez out[i] = x[i] + y[i].

Règles : le résultat doit être calculé par un noyau @triton.jit de ce fichier ;
torch.add, x + y ou out.copy_(…) dans custom_kernel sont refusés.
Objectif : plus de 80 % du débit mémoire crête de la carte.
"""
import triton
import triton.language as tl


@triton.jit
def addition_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    # TODO : offs = pid * BLOCK + tl.arange(0, BLOCK), et un masque offs < n
    # TODO : charger x et y, ranger leur somme dans out
    pass


def custom_kernel(x, y, out):
    n = x.numel()
    BLOCK = 1024
    grid = (triton.cdiv(n, BLOCK),)
    addition_kernel[grid](x, y, out, n, BLOCK=BLOCK)
