"""Compare a result with the reference and say, in French, where and by how much it is wrong."""
from __future__ import annotations

import math

from sandbox.records import Mismatch

_SHOWN = 5   # first wrong elements listed in a report


def fmt_int(n: int) -> str:
    """12345678 -> "12 345 678" (French thousands separator, a no-break space)."""
    return f"{n:,}".replace(",", "\u00a0")


def fmt_shape(shape) -> str:
    return " × ".join(str(int(s)) for s in shape) or "scalaire"


def _fmt_val(v: float) -> str:
    if math.isnan(v):
        return "NaN"
    return f"{v:.6g}"


def compare(got, expected, rtol: float, atol: float, context: str = "") -> Mismatch | None:
    """None when every element of ``got`` is within atol + rtol·|expected| (exact when both are 0).

    NaN in ``got`` is always wrong: outputs are poisoned with NaN before every call, so a
    NaN left is an element the kernel never wrote.
    """
    import torch

    if tuple(got.shape) != tuple(expected.shape):
        return Mismatch(shape=list(expected.shape), dtype=str(expected.dtype).replace("torch.", ""),
                        count=expected.numel(), total=expected.numel(), unwritten=0,
                        first_indices=[], first_got=[], first_expected=[], max_abs_error=None,
                        max_rel_error=None, rtol=rtol, atol=atol, context=context,
                        message=(f"forme du résultat {fmt_shape(got.shape)} au lieu de "
                                 f"{fmt_shape(expected.shape)}"))
    wide = torch.float64 if got.device.type == "cpu" or got.dtype == torch.float32 else torch.float32
    g = got.to(wide)
    e = expected.to(wide)
    diff = (g - e).abs()
    bad = ~(diff <= atol + rtol * e.abs())        # NaN compares False, so it is bad
    count = int(bad.sum())
    if count == 0:
        return None
    total = got.numel()
    unwritten = int(torch.isnan(g).sum())
    idx = bad.nonzero()[:_SHOWN]
    first = [[int(i) for i in row] for row in idx.tolist()]
    flat_g = [float(g[tuple(i)]) for i in first]
    flat_e = [float(e[tuple(i)]) for i in first]
    finite = diff[bad & ~torch.isnan(diff)]
    max_abs = float(finite.max()) if finite.numel() else None
    max_rel = None
    if finite.numel():
        rel = (diff / e.abs().clamp_min(1e-30))[bad & ~torch.isnan(diff)]
        max_rel = float(rel.max())
    dtype = str(got.dtype).replace("torch.", "")
    where = f"{context}, sortie" if context else "sortie"
    parts = [f"résultat faux ({where} {fmt_shape(expected.shape)} {dtype}) : {fmt_int(count)} "
             f"élément{'s' if count > 1 else ''} faux sur {fmt_int(total)}"]
    if unwritten == total:
        parts.append("aucun élément n'a été écrit (tout est encore à NaN, la valeur "
                     "d'empoisonnement) : le noyau a-t-il été lancé et écrit-il dans out ?")
    elif unwritten:
        parts.append(f"dont {fmt_int(unwritten)} jamais écrit{'s' if unwritten > 1 else ''} "
                     "(encore à NaN, la valeur d'empoisonnement : vérifiez le masque et la grille)")
    shown = " ; ".join(f"({', '.join(map(str, i))}) obtenu {_fmt_val(a)} attendu {_fmt_val(b)}"
                       for i, a, b in zip(first, flat_g, flat_e))
    parts.append(f"premiers indices : {shown}")
    if max_abs is not None:
        parts.append(f"erreur max : absolue {max_abs:.3g}, relative {max_rel:.3g} "
                     f"(tolérance : rtol {rtol:g}, atol {atol:g})")
    return Mismatch(shape=list(expected.shape), dtype=dtype, count=count, total=total,
                    unwritten=unwritten, first_indices=first, first_got=flat_g,
                    first_expected=flat_e, max_abs_error=max_abs, max_rel_error=max_rel,
                    rtol=rtol, atol=atol, context=context, message=" ; ".join(parts) + ".")


def fast_bad_count(got, expected, rtol: float, atol: float):
    """A device tensor counting wrong elements, queued without synchronising (timed calls)."""
    import torch

    if rtol == 0 and atol == 0:
        return (got != expected).sum()
    return (~torch.isclose(got.float(), expected.float(), rtol=rtol, atol=atol)).sum()
