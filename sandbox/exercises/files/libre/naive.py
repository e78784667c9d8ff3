"""Mode libre : exemple complet (out = 2 x + y), version naïve à petits blocs.

Tuile appelle :
- make_inputs(generator, device) -> tuple de tenseurs : tirez vos entrées avec ce
  générateur (sa graine est tirée au hasard par Tuile, à chaque vérification) ;
- reference(*entrées) -> tenseur : le résultat attendu, en PyTorch (ici, c'est permis) ;
- custom_kernel(*entrées, out) : out est alloué par Tuile comme le résultat de reference
  (même forme, même type) et rempli de NaN ; votre noyau @triton.jit doit l'écrire.
Facultatif : TOLERANCE = (rtol, atol) ; sinon une tolérance selon le type.
Octets comptés : chaque entrée lue une fois et la sortie écrite une fois (borne inférieure).

Exemple ci-dessous : out = 2 * x + y sur des vecteurs.
"""
import torch
import triton
import triton.language as tl


def make_inputs(generator, device):
    n = 1 << 24 if device.type == "cuda" else 5000  # petit pour l'interpréteur
    x = torch.randn(n, generator=generator, device=device)
    y = torch.randn(n, generator=generator, device=device)
    return x, y


def reference(x, y):
    return 2 * x + y


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, 2 * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


def custom_kernel(x, y, out):
    n = x.numel()
    axpy_kernel[(triton.cdiv(n, 32),)](x, y, out, n, BLOCK=32, num_warps=1)
