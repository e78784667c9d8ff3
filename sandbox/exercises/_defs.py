"""The exercises themselves: inputs, reference, tolerance, bytes and FLOPs for each.

Shapes: 2-D exercises use (M, N), vector addition (n,), matrix multiplication (M, N, K).
Odd shapes (1 × 1, 127 × 129, 4095 × 4097) catch masks and grids that only work on
multiples of the block. Timing shapes move at least 512 MiB, over 8 × the H200's 60 MiB
L2, so the figure is DRAM bandwidth, not cache (a 1024 × 1024 fp32 transpose, which fits
in L2, reports 1.15 TB/s: launch latency and cache, see shared/gpu-reference.md).
"""
from __future__ import annotations

import math

from sandbox.exercises import Exercise

_FLOAT3 = ("float32", "float16", "bfloat16")
_ODD_2D_CPU = ((127, 129), (1, 1), (33, 200))   # the odd one first: it says the most
_ODD_2D_GPU = ((127, 129), (1, 1), (4095, 4097))
_CONTRACT = ("Le résultat doit venir d'un noyau @triton.jit de la soumission : dans "
             "custom_kernel, seules les allocations (torch.empty) et les vues sont permises.")


def _randn(shape, dtype, gen, device, scale=1.0):
    import torch

    x = torch.randn(shape, generator=gen, device=device, dtype=torch.float32)
    if scale != 1.0:
        x.mul_(scale)
    return x.to(dtype)


def _elem(dtype_name: str) -> int:
    return {"float32": 4, "float16": 2, "bfloat16": 2}[dtype_name]


# -------------------------------------------------------------------- tolerances
# Moves are exact. Arithmetic: one rounding of the output dtype (fp16 2^-11, bf16 2^-8)
# plus fp32 accumulation-order differences.
def _exact(shape, dtype):
    return 0.0, 0.0


def _elementwise_tol(shape, dtype):
    return {"float32": (1.3e-6, 1e-6), "float16": (1e-3, 1e-3), "bfloat16": (8e-3, 8e-3)}[dtype]


def _sum_tol(shape, dtype):
    # A row of N standard normals sums to about sqrt(N); fp32 summation in another order
    # differs by about eps32 · sqrt(N) · (partial sums ~ sqrt(N)).
    n = shape[1]
    rtol = {"float32": 1e-5, "float16": 2e-3, "bfloat16": 1.6e-2}[dtype]
    return rtol, 2e-6 * n + rtol * math.sqrt(n)


def _softmax_tol(shape, dtype):
    return {"float32": (1e-4, 1e-6), "float16": (4e-3, 1e-5), "bfloat16": (1.6e-2, 1e-4)}[dtype]


def _matmul_tol(shape, dtype):
    # tl.dot on fp32 uses tf32 on the GPU (10-bit mantissa): about 1e-3 relative per
    # product, so sqrt(K) · 1e-3 on a sum of K unit products.
    k = shape[2]
    tol = {"float32": 5e-3, "float16": 2e-3, "bfloat16": 1e-2}[dtype]
    return tol, tol * max(1.0, math.sqrt(k))


# -------------------------------------------------------------------- 2-D exercises

def _one_input(shape, dtype, gen, device):
    return (_randn(shape, dtype, gen, device),)


def _same_out(inputs, shape, dtype):
    import torch

    return torch.empty(shape, dtype=dtype, device=inputs[0].device)


def _copy_ref(inputs):
    return inputs[0].clone()


def _transpose_out(inputs, shape, dtype):
    import torch

    return torch.empty((shape[1], shape[0]), dtype=dtype, device=inputs[0].device)


def _transpose_ref(inputs):
    return inputs[0].t().contiguous()


def _rows_out(inputs, shape, dtype):
    import torch

    return torch.empty((shape[0],), dtype=dtype, device=inputs[0].device)


def _sum_ref(inputs):
    import torch

    x = inputs[0]
    return x.to(torch.float64).sum(dim=1).to(x.dtype)


def _softmax_inputs(shape, dtype, gen, device):
    # Scale 4: exp() overflows fp16 without the max subtraction (e^11 > 65504 happens).
    return (_randn(shape, dtype, gen, device, scale=4.0),)


def _softmax_ref(inputs):
    import torch

    x = inputs[0]
    return torch.softmax(x.to(torch.float64), dim=1).to(x.dtype)


def _add_inputs(shape, dtype, gen, device):
    return (_randn(shape, dtype, gen, device), _randn(shape, dtype, gen, device))


def _add_ref(inputs):
    import torch

    x, y = inputs
    return (x.to(torch.float64) + y.to(torch.float64)).to(x.dtype)


def _mm_inputs(shape, dtype, gen, device):
    m, n, k = shape
    return (_randn((m, k), dtype, gen, device), _randn((k, n), dtype, gen, device))


def _mm_out(inputs, shape, dtype):
    import torch

    return torch.empty((shape[0], shape[1]), dtype=dtype, device=inputs[0].device)


def _mm_ref(inputs):
    import torch

    a, b = inputs
    wide = torch.float64 if a.device.type == "cpu" else torch.float32   # fp32 on GPU: TF32 off
    return (a.to(wide) @ b.to(wide)).to(a.dtype)


EXERCISES = (
    Exercise(
        name="copie", aliases=("copy",), title="Copie d'une matrice",
        summary="out[i, j] = x[i, j] ; x et out sont des matrices (M, N) contiguës.",
        signature="custom_kernel(x, out)", dtypes=_FLOAT3,
        cpu_shapes=_ODD_2D_CPU, gpu_shapes=_ODD_2D_GPU, cpu_rotation_shape=(64, 96),
        timing_shape=(16384, 16384),
        make_inputs=_one_input, make_output=_same_out, reference=_copy_ref,
        tolerance=_exact, bytes_moved=lambda s, e: 2 * s[0] * s[1] * e,
        bytes_note="une lecture de x et une écriture de out : 2 × M × N × taille d'un élément",
        flops=None, threshold_pct=80.0,
        guide="Performance · 2. Accès mémoire coalescés"),
    Exercise(
        name="addition", aliases=("vector_add", "add", "vecadd"), title="Addition de deux vecteurs",
        summary="out[i] = x[i] + y[i] ; x, y et out sont des vecteurs de n éléments.",
        signature="custom_kernel(x, y, out)", dtypes=_FLOAT3,
        cpu_shapes=((16383,), (1,), (1000,)), gpu_shapes=((16383,), (1,), (16777215,)),
        cpu_rotation_shape=(4099,), timing_shape=(1 << 28,),
        make_inputs=_add_inputs, make_output=_same_out, reference=_add_ref,
        tolerance=_elementwise_tol, bytes_moved=lambda s, e: 3 * s[0] * e,
        bytes_note="deux lectures (x, y) et une écriture (out) : 3 × n × taille d'un élément",
        flops=lambda s: s[0], threshold_pct=80.0,
        guide="Modèle de programmation · 2. Premier noyau : l'addition de vecteurs"),
    Exercise(
        name="transposition", aliases=("transpose",), title="Transposition d'une matrice",
        summary="out[j, i] = x[i, j] ; x est (M, N), out est (N, M), toutes deux contiguës.",
        signature="custom_kernel(x, out)", dtypes=_FLOAT3,
        cpu_shapes=_ODD_2D_CPU, gpu_shapes=_ODD_2D_GPU, cpu_rotation_shape=(64, 96),
        timing_shape=(16384, 16384),
        make_inputs=_one_input, make_output=_transpose_out, reference=_transpose_ref,
        tolerance=_exact, bytes_moved=lambda s, e: 2 * s[0] * s[1] * e,
        bytes_note="une lecture de x et une écriture de out : 2 × M × N × taille d'un élément",
        flops=None, threshold_pct=80.0,
        guide="Performance · 7. Étude de cas : la transposition de matrice"),
    Exercise(
        name="reduction", aliases=("row_sum", "sum", "réduction"), title="Somme de chaque ligne",
        summary="out[i] = somme sur j de x[i, j] ; x est (M, N), out est (M,). "
                "Accumulez en float32.",
        signature="custom_kernel(x, out)", dtypes=_FLOAT3,
        cpu_shapes=_ODD_2D_CPU, gpu_shapes=_ODD_2D_GPU, cpu_rotation_shape=(64, 96),
        timing_shape=(16384, 16384),
        make_inputs=_one_input, make_output=_rows_out, reference=_sum_ref,
        tolerance=_sum_tol, bytes_moved=lambda s, e: (s[0] * s[1] + s[0]) * e,
        bytes_note="une lecture de x et une écriture de out : (M × N + M) × taille d'un élément",
        flops=lambda s: s[0] * s[1], threshold_pct=80.0,
        guide="Modèle de programmation · 5. Motifs parallèles : réduction, scan, histogramme"),
    Exercise(
        name="softmax", aliases=("row_softmax",), title="Softmax de chaque ligne",
        summary="out[i, :] = softmax(x[i, :]) ; x et out sont (M, N). Soustrayez le maximum "
                "de la ligne avant l'exponentielle et calculez en float32.",
        signature="custom_kernel(x, out)", dtypes=_FLOAT3,
        cpu_shapes=_ODD_2D_CPU, gpu_shapes=_ODD_2D_GPU, cpu_rotation_shape=(64, 96),
        timing_shape=(32768, 4096),
        make_inputs=_softmax_inputs, make_output=_same_out, reference=_softmax_ref,
        tolerance=_softmax_tol, bytes_moved=lambda s, e: 2 * s[0] * s[1] * e,
        bytes_note="une lecture de x et une écriture de out : 2 × M × N × taille d'un élément "
                   "(le minimum : une version en plusieurs passes relit x)",
        flops=None, threshold_pct=70.0,
        guide="IA · 2. Fusion de noyaux"),
    Exercise(
        name="matmul", aliases=("gemm", "matrix_multiplication", "tiled_matmul"),
        title="Multiplication de matrices par tuiles",
        summary="out = a @ b ; a est (M, K), b est (K, N), out est (M, N), toutes contiguës. "
                "Accumulez en float32 (tl.dot).",
        signature="custom_kernel(a, b, out)", dtypes=("float16", "bfloat16", "float32"),
        cpu_shapes=((127, 129, 65), (1, 1, 1), (33, 17, 200)),
        gpu_shapes=((127, 129, 65), (1, 1, 1), (1025, 2047, 513)),
        cpu_rotation_shape=(64, 48, 80), timing_shape=(4096, 4096, 4096),
        make_inputs=_mm_inputs, make_output=_mm_out, reference=_mm_ref,
        tolerance=_matmul_tol,
        bytes_moved=lambda s, e: (s[0] * s[2] + s[2] * s[1] + s[0] * s[1]) * e,
        bytes_note="a et b lus une fois, out écrit une fois : (M·K + K·N + M·N) × taille "
                   "d'un élément (borne basse : les tuiles relisent a et b)",
        flops=lambda s: 2 * s[0] * s[1] * s[2], threshold_pct=None,
        guide="Performance · 8. Étude de cas : la multiplication matricielle par tuiles"),
    Exercise(
        name="libre", aliases=("free",), title="Mode libre : vos entrées, votre référence",
        summary="Votre module définit make_inputs(generator, device) -> tuple de tenseurs, "
                "reference(*entrées) -> tenseur (en PyTorch) et custom_kernel(*entrées, out). "
                "Facultatif : TOLERANCE = (rtol, atol).",
        signature="custom_kernel(*entrées, out)", dtypes=("float32",),
        cpu_shapes=(), gpu_shapes=(), cpu_rotation_shape=(), timing_shape=(),
        make_inputs=None, make_output=None, reference=None, tolerance=None,
        bytes_moved=None,
        bytes_note="borne inférieure : chaque entrée lue une fois et la sortie écrite une fois",
        flops=None, threshold_pct=None, free=True,
        guide="Performance · 5. Mesurer correctement"),
)

ELEMENT_SIZE = _elem
