"""The tiny interface of a kernel backend, its registry, and the default one: ``local``.

A backend runs one submission somewhere and returns a ``PoolRun``; it never raises for
a fault of the user nor for a missing host (those are data: ``report`` or ``error``).

    backend = get_backend("dask", scheduler="tcp://gpu1:8786")
    run = backend.run(source, "transposition", RunOptions(), learner=session_id,
                      on_event=lambda kind, value: ...)

Events told to ``on_event(kind, value)``: ``("position", n)`` n submissions go before this
one (0: its turn); ``("own", None)`` it waits for the same learner's previous one;
``("running", where)`` a host has started it; ``("notice", text)`` a French sentence
for the user (a lost host, a fallback to this server's GPU).

Registered: ``local`` (``LocalBackend``: this host's GPU slots through
``sandbox.run_submission``), ``dask`` (``gpupool.dask_backend.DaskBackend``, imported
only when asked for). ``register_backend(name, factory)`` adds one.
"""
from __future__ import annotations

import os
import socket
import time
import uuid
from typing import Callable, Protocol

from gpupool.fairshare import FairShare
from gpupool.records import PoolRun
from sandbox.records import KernelReport, RunOptions

EventSink = Callable[[str, object], None]


class KernelBackend(Protocol):
    name: str

    def run(self, source: str, exercise: str, options: RunOptions = RunOptions(), *,
            learner: str = "", on_event: EventSink | None = None) -> PoolRun: ...

    def describe(self) -> str:
        """One French line on where runs go (shown in the UI and by ``tuile pool status``)."""
        ...


class UnknownBackend(ValueError):
    pass


_REGISTRY: dict[str, Callable[..., KernelBackend]] = {}


def register_backend(name: str, factory: Callable[..., KernelBackend]) -> None:
    _REGISTRY[name] = factory


def list_backends() -> list[str]:
    return sorted(_REGISTRY)


def get_backend(name: str | None = None, **settings) -> KernelBackend:
    """``name`` None: ``dask`` when a scheduler is given (``scheduler=`` or
    ``TUILE_SCHEDULER``), else ``local``."""
    if name is None:
        name = "dask" if (settings.get("scheduler") or os.environ.get("TUILE_SCHEDULER")) else "local"
    if name not in _REGISTRY:
        raise UnknownBackend(f"backend d'exécution inconnu : « {name} » ; backends connus : "
                             + ", ".join(list_backends()))
    return _REGISTRY[name](**settings)


def local_capacity() -> int:
    """Submissions this host runs at once: one per visible GPU; without GPU, the
    interpreter runs on the CPU, one at a time per two cores (one run keeps ~1.6 cores
    busy: 4.5 s wall, 5.5 s CPU for the transposition in the interpreter, 2 cores)."""
    from sandbox.gpuqueue import visible_gpus

    if gpu_present():
        return max(1, len(visible_gpus()))
    return max(1, (os.cpu_count() or 2) // 2)


def gpu_present() -> bool:
    """A GPU this process may use, seen without importing torch (``TRITON_INTERPRET=1``
    forces the interpreter, as in the sandbox)."""
    from sandbox.gpuqueue import visible_gpus

    if os.environ.get("TRITON_INTERPRET") == "1":
        return False
    if "CUDA_VISIBLE_DEVICES" not in os.environ and os.path.exists("/dev/nvidiactl"):
        return True
    return bool(visible_gpus())


def card_name() -> str:
    """The first GPU's name as the driver reports it, without importing torch; "" if none."""
    import glob
    import subprocess

    for info in sorted(glob.glob("/proc/driver/nvidia/gpus/*/information")):
        try:
            for line in open(info, encoding="utf-8", errors="replace"):
                if line.startswith("Model:"):
                    return line.split(":", 1)[1].strip()
        except OSError:
            continue
    try:   # some VMs hide /proc/driver/nvidia; nvidia-smi still answers
        done = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=10)
        names = [l.strip() for l in done.stdout.splitlines() if l.strip()]
        return names[0] if done.returncode == 0 and names else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def where_of(report: KernelReport) -> tuple[str, str]:
    """(card, gpu index) from a report: its device name, and its GPU when it names one."""
    card = report.device_name or ("interpréteur Triton (CPU)" if report.mode == "interpreter" else "")
    gpu = getattr(report, "gpu", None)
    return card, ("" if gpu in (None, "") else str(gpu))


class LocalBackend:
    """This host: ``sandbox.run_submission`` in a thread of this process, the GPU slots of
    ``sandbox.gpuqueue`` across processes, and fair share between learners."""
    name = "local"

    def __init__(self, run: Callable | None = None, capacity: int | None = None, **_ignored):
        self._run = run
        self._fair = FairShare(capacity if capacity is not None else local_capacity())
        self._host = socket.gethostname()

    def describe(self) -> str:
        return f"exécution locale sur {self._host}"

    def run(self, source, exercise, options=RunOptions(), *, learner="", on_event=None) -> PoolRun:
        from dataclasses import replace

        tell = on_event or (lambda kind, value: None)
        start = time.monotonic()
        with self._fair.turn(learner or f"anonyme-{uuid.uuid4().hex}",
                             lambda n: tell("own", None) if n is None else tell("position", n)) as pos:
            waited = time.monotonic() - start
            tell("running", self._host)
            run = self._run
            if run is None:
                from sandbox import run_submission as run
            started = time.time()
            report = run(source, exercise, replace(options, on_position=lambda n: tell("position", n)))
            ended = time.time()
        card, gpu = where_of(report)
        return PoolRun(report=report, backend=self.name, host=self._host, card=card, gpu=gpu,
                       position_at_arrival=pos, waited_s=round(waited, 3), started_at=started,
                       ended_at=ended)


def _dask_backend(**settings) -> KernelBackend:
    from gpupool.dask_backend import DaskBackend

    return DaskBackend(**settings)


register_backend("local", LocalBackend)
register_backend("dask", _dask_backend)
