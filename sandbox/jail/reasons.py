"""French reasons for a jailed run that ended abnormally (``IsolatedResult.killed_reason``).

Used by ``run``: ``memory_reason`` when the cgroup or the RSS watchdog stopped the run,
``exit_reason`` for a non-zero exit status (the child script reports a fatal signal n as
128 + n) read together with the tail of stderr. Standard library only.
"""
from __future__ import annotations

import signal

from sandbox.jail.spec import Limits


def memory_reason(limits: Limits) -> str:
    return (f"mémoire de l'hôte dépassée (limite "
            f"{limits.memory_bytes / 2**30:.1f} Gio) : processus arrêté")


def exit_reason(rc: int, stderr: str, limits: Limits) -> str:
    sig = -rc if rc < 0 else rc - 128 if 128 < rc < 160 else 0
    if sig == signal.SIGXCPU:
        return "limite de temps CPU dépassée : processus arrêté"
    if sig == signal.SIGXFSZ or "File too large" in stderr:
        return "limite de taille de fichier dépassée (écriture interrompue)"
    if sig == signal.SIGKILL:
        return "processus tué (mémoire ou limite atteinte)"
    tail = stderr[-3000:]
    if "CUDA out of memory" in tail or "OutOfMemoryError" in tail:
        return "mémoire du GPU épuisée : allocation refusée"
    if any(w in tail for w in ("MemoryError", "Cannot allocate memory",
                               "can't allocate memory")):
        return (f"mémoire de l'hôte dépassée (limite {limits.memory_bytes / 2**30:.1f} Gio) : "
                "allocation refusée")
    if sig:
        try:
            return f"processus arrêté par le signal {signal.Signals(sig).name}"
        except ValueError:
            return f"processus arrêté par le signal {sig}"
    return ""
