"""French messages for the runtime errors a submission causes by exhausting a resource.

Used by ``launcher.guard.fault_from_exception``, the launcher's and the judge's last
resort: ``translate(exc)`` gives a French message naming the limit that was hit, or None
for any other error.
torch and CUDA word these errors in English ("DefaultCPUAllocator: can't allocate memory",
"CUDA out of memory. Tried to allocate …", "an illegal memory access was encountered");
the learner should read what happened and which limit applies, not the allocator's text.
Every CUDA error torch raises ends with "Compile with `TORCH_USE_CUDA_DSA` to enable
device-side assertions": only "device-side assert triggered" is an assertion. A refused
fork or thread (EAGAIN at RLIMIT_NPROC or pids.max) is the process limit. Standard
library only (the GPU figures are read from the message torch wrote).
"""
from __future__ import annotations

import errno
import re
import resource

from sandbox.french import fr_bytes, fr_number, fr_typo

_HOST_OOM = ("can't allocate memory", "Cannot allocate memory", "std::bad_alloc",
             "DefaultCPUAllocator")
_ILLEGAL = ("illegal memory access", "misaligned address")
_NO_THREAD = ("can't start new thread", "Resource temporarily unavailable", "pthread_create")


def _torch_size(text: str) -> str:
    """torch's "8.00 GiB" in French: "8,00 Gio" (the decimals torch printed are kept)."""
    value, unit = text.split()
    decimals = len(value.partition(".")[2])
    return f"{fr_number(float(value), decimals)}\u00a0{unit.replace('iB', 'io')}"


def _host_limit() -> int | None:
    """The heap cap in force: the jail sets RLIMIT_DATA to ``Limits.memory_bytes`` (the
    cgroup, when there is one, sits 1 GiB above it). None outside the sandbox."""
    soft = resource.getrlimit(resource.RLIMIT_DATA)[0]
    return None if soft == resource.RLIM_INFINITY else soft


def _host_message(text: str) -> str:
    m = re.search(r"tried to allocate (\d+) bytes", text)
    asked = f" (demande : {fr_bytes(int(m.group(1)))})" if m else ""
    limit = _host_limit()
    where = (f"limite du bac à sable : {fr_bytes(limit)} de mémoire de l'hôte par soumission"
             if limit else "la mémoire libre de l'hôte")
    return (f"mémoire de l'hôte épuisée : une allocation a été refusée{asked}, {where}. "
            "Gardez-vous des tenseurs d'un appel à l'autre ? Libérez-les, ou réduisez leur taille.")


def _gpu_message(text: str) -> str:
    m = re.search(r"Tried to allocate ([\d.]+ [KMGT]iB)", text)
    asked = f" (demande : {_torch_size(m.group(1))})" if m else ""
    m = re.search(r"total capacity of ([\d.]+ [KMGT]iB) of which ([\d.]+ [KMGT]iB) is free", text)
    cap = (f", limite : la mémoire de la carte, {_torch_size(m.group(1))} "
           f"(dont {_torch_size(m.group(2))} libres à ce moment)" if m else
           ", limite : la mémoire de la carte")
    return (f"mémoire du GPU épuisée : une allocation a été refusée{asked}{cap}. "
            "Libérez les tenseurs gardés d'un appel à l'autre ou réduisez leur taille.")


def _process_message() -> str:
    soft = resource.getrlimit(resource.RLIMIT_NPROC)[0]
    cap = (f" ({fr_number(soft, 0)} processus et threads au plus)"
           if soft != resource.RLIM_INFINITY else "")
    return ("limite de processus atteinte" + cap + " : un processus ou un thread n'a pas pu "
            "être créé. La soumission crée-t-elle des processus (os.fork) ou des threads "
            "sans fin ?")


def translate(exc: BaseException) -> str | None:
    """French message for a resource error of the submission, or None."""
    msg = _translate(exc)
    return fr_typo(msg) if msg else None


def _translate(exc: BaseException) -> str | None:
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
    if (isinstance(exc, OSError) and exc.errno == errno.EAGAIN) or \
            any(w in text for w in _NO_THREAD):
        return _process_message()
    if "Cannot re-initialize CUDA in forked subprocess" in text:
        return ("CUDA ne fonctionne pas dans un processus créé par os.fork : lancez le noyau "
                "depuis le processus de la soumission, sans créer de processus")
    if any(w in text for w in _ILLEGAL):
        return ("accès mémoire illégal pendant l'exécution du noyau : un chargement ou une "
                "écriture sort des tenseurs (vérifiez les masques et les décalages)")
    if "device-side assert triggered" in text:
        return ("une assertion du noyau a échoué sur le GPU (tl.device_assert ou indice hors "
                "bornes) : le contexte CUDA est perdu pour la suite de cette soumission")
    if "unspecified launch failure" in text or "illegal instruction" in text:
        return ("le noyau a planté sur le GPU (échec de lancement non spécifié, souvent un "
                "accès hors des tenseurs) : vérifiez les masques et les décalages")
    return None
