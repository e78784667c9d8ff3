"""French messages for the runtime errors a submission causes by exhausting a resource.

Private helper of ``guard.fault_from_exception`` and ``worker.main``: ``translate(exc)``
gives a French message naming the limit that was hit, or None for any other error.
torch and CUDA word these errors in English ("DefaultCPUAllocator: can't allocate memory",
"CUDA out of memory. Tried to allocate …", "an illegal memory access was encountered");
the learner should read what happened and which limit applies, not the allocator's text.
Standard library only (the GPU figures are read from the message torch wrote).
"""
from __future__ import annotations

import re
import resource

_HOST_OOM = ("can't allocate memory", "Cannot allocate memory", "std::bad_alloc",
             "DefaultCPUAllocator")
_ILLEGAL = ("illegal memory access", "misaligned address")


def _gib(n: float) -> str:
    if n < 2**30:
        return f"{n / 2**20:.0f} Mio"
    return f"{n / 2**30:.1f}".replace(".", ",") + " Gio"


def _comma(text: str) -> str:
    return text.replace(".", ",")


def _host_limit() -> int | None:
    """The heap cap in force: the jail sets RLIMIT_DATA to ``Limits.memory_bytes`` (the
    cgroup, when there is one, sits 1 GiB above it). None outside the sandbox."""
    soft = resource.getrlimit(resource.RLIMIT_DATA)[0]
    return None if soft == resource.RLIM_INFINITY else soft


def _host_message(text: str) -> str:
    m = re.search(r"tried to allocate (\d+) bytes", text)
    asked = f" (demande : {_gib(int(m.group(1)))})" if m else ""
    limit = _host_limit()
    where = (f"limite du bac à sable : {_gib(limit)} de mémoire de l'hôte par soumission"
             if limit else "la mémoire libre de l'hôte")
    return (f"mémoire de l'hôte épuisée : une allocation a été refusée{asked}, {where}. "
            "Gardez-vous des tenseurs d'un appel à l'autre ? Libérez-les, ou réduisez leur taille.")


def _gpu_message(text: str) -> str:
    m = re.search(r"Tried to allocate ([\d.]+ [KMGT]iB)", text)
    asked = f" (demande : {_comma(m.group(1)).replace('iB', 'io')})" if m else ""
    m = re.search(r"total capacity of ([\d.]+ [KMGT]iB) of which ([\d.]+ [KMGT]iB) is free", text)
    cap = (f", limite : la mémoire de la carte, {_comma(m.group(1)).replace('iB', 'io')} "
           f"(dont {_comma(m.group(2)).replace('iB', 'io')} libres à ce moment)" if m else
           ", limite : la mémoire de la carte")
    return (f"mémoire du GPU épuisée : une allocation a été refusée{asked}{cap}. "
            "Libérez les tenseurs gardés d'un appel à l'autre ou réduisez leur taille.")


def translate(exc: BaseException) -> str | None:
    """French message for a resource error of the submission, or None."""
    text = str(exc)
    name = type(exc).__name__
    if name == "OutOfMemoryError" or "CUDA out of memory" in text:
        return _gpu_message(text)
    if "CUDA error: out of memory" in text:   # cudaMalloc or cudaHostAlloc (pinned host memory)
        return ("mémoire épuisée côté CUDA (mémoire du GPU, ou mémoire de l'hôte épinglée, "
                "pin_memory) : une allocation a été refusée. Libérez les tenseurs gardés d'un "
                "appel à l'autre ou réduisez leur taille.")
    if isinstance(exc, MemoryError) or any(w in text for w in _HOST_OOM):
        return _host_message(text)
    if any(w in text for w in _ILLEGAL):
        return ("accès mémoire illégal pendant l'exécution du noyau : un chargement ou une "
                "écriture sort des tenseurs (vérifiez les masques et les décalages)")
    if "device-side assert" in text:
        return ("une assertion du noyau a échoué sur le GPU (tl.device_assert ou indice hors "
                "bornes) : le contexte CUDA est perdu pour la suite de cette soumission")
    if "unspecified launch failure" in text or "illegal instruction" in text:
        return ("le noyau a planté sur le GPU (échec de lancement non spécifié, souvent un "
                "accès hors des tenseurs) : vérifiez les masques et les décalages")
    return None
