"""French reasons for a jailed run that ended abnormally (``IsolatedResult.killed_reason``).

Used by ``run``: ``timeout_reason`` names the phase the run was in when its limit struck;
``process_reason`` the process cap (RLIMIT_NPROC / pids.max: a fork bomb); ``memory_reason``
the host memory cap (cgroup or RSS watchdog); ``file_size_reason`` RLIMIT_FSIZE;
``exit_reason`` reads a non-zero exit status (the child script reports a fatal signal n
as 128 + n) together with the tail of stderr, and for a segmentation fault gives the
submission's line from Python's fault handler; ``output_note`` says that stdout or stderr
was cut. Every number goes through ``sandbox.french``. Standard library only.
"""
from __future__ import annotations

import re
import signal

from sandbox.french import fr_bytes, fr_number, fr_typo
from sandbox.jail.spec import Limits

# What each phase means to the learner (spec.PHASES).
_PHASE_FR = {
    "start": "au démarrage du processus, avant le chargement de la soumission",
    "compile": "pendant le chargement de torch, de triton et de la soumission",
    "call": "pendant l'exécution de custom_kernel, avant le lancement de son premier noyau "
            "(une boucle Python sans fin ? une compilation très longue ?)",
    "run": "pendant l'exécution",
}
# Messages of a refused fork or thread (EAGAIN at RLIMIT_NPROC or pids.max).
_PROCESS_LIMIT_TEXTS = ("Resource temporarily unavailable", "can't start new thread",
                        "pthread_create", "fork: retry", "BlockingIOError")
_SEGV_HINT = ("le plus souvent un accès hors des tenseurs : un masque absent ou faux "
              "(cols <= N au lieu de cols < N ?) ou un décalage qui sort de la ligne")


def timeout_reason(phase: str, limit_s: float) -> str:
    where = _PHASE_FR.get(phase, f"pendant la phase « {phase} »")
    return fr_typo(f"délai dépassé {where} (limite {fr_number(limit_s, None)}\u00a0s) : "
                   "processus arrêté")


def process_reason(limits: Limits) -> str:
    return fr_typo(f"limite de processus atteinte ({fr_number(limits.max_processes, 0)} "
                   "processus et threads au plus) : la soumission en crée sans fin "
                   "(os.fork, threads ?)")


def memory_reason(limits: Limits) -> str:
    return fr_typo(f"mémoire de l'hôte dépassée (limite {fr_bytes(limits.memory_bytes)}) : "
                   "processus arrêté")


def file_size_reason(limits: Limits) -> str:
    return fr_typo(f"limite de taille de fichier atteinte ({fr_bytes(limits.max_file_bytes)}) : "
                   "écriture refusée")


def output_note(streams: tuple[str, ...], limits: Limits) -> str:
    if not streams:
        return ""
    names = " et ".join({"stdout": "la sortie standard", "stderr": "la sortie d'erreur"}
                        .get(s, s) for s in streams)
    return fr_typo(f"{names[:1].upper()}{names[1:]} de la soumission a été tronquée à "
                   f"{fr_bytes(limits.max_output_bytes)} (le reste a été lu puis jeté) : "
                   "trop de print ?")


def exit_reason(rc: int, stderr: str, limits: Limits, scratch: str = "") -> str:
    sig = -rc if rc < 0 else rc - 128 if 128 < rc < 160 else 0
    tail = stderr[-3000:]
    if sig == signal.SIGXCPU:
        return fr_typo(f"limite de temps CPU dépassée ({fr_number(limits.cpu_time_s, 0)}\u00a0s) : "
                       "processus arrêté")
    if sig == signal.SIGXFSZ or "File too large" in stderr:
        return fr_typo("limite de taille de fichier dépassée "
                       f"({fr_bytes(limits.max_file_bytes)}) : écriture interrompue")
    if sig == signal.SIGKILL:
        return "processus tué (mémoire ou limite atteinte)"
    if sig in (signal.SIGSEGV, signal.SIGBUS):
        line = _fault_line(stderr, scratch)
        name = "SIGSEGV" if sig == signal.SIGSEGV else "SIGBUS"
        where = f" à la ligne {line} de la soumission" if line else ""
        return fr_typo(f"le processus s'est arrêté sur une erreur de segmentation ({name}){where} "
                       f": {_SEGV_HINT}")
    if "CUDA out of memory" in tail or "OutOfMemoryError" in tail:
        return "mémoire du GPU épuisée : allocation refusée"
    if any(w in tail for w in ("MemoryError", "Cannot allocate memory",
                               "can't allocate memory")):
        return fr_typo(f"mémoire de l'hôte dépassée (limite {fr_bytes(limits.memory_bytes)}) : "
                       "allocation refusée")
    if any(w in tail for w in _PROCESS_LIMIT_TEXTS):
        return process_reason(limits)
    if sig:
        try:
            return f"processus arrêté par le signal {signal.Signals(sig).name}"
        except ValueError:
            return f"processus arrêté par le signal {fr_number(sig, 0)}"
    return ""


_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def _fault_line(stderr: str, scratch: str) -> int | None:
    """The innermost line of the submission in the fault handler's dump (it prints the
    most recent call first), when the dump is there."""
    dump = stderr[stderr.rfind("Fatal Python error"):] if "Fatal Python error" in stderr else ""
    for path, line in _FRAME.findall(dump):
        if (scratch and path.startswith(scratch.rstrip("/") + "/")) or \
                path.endswith("soumission.py"):
            return int(line)
    return None
