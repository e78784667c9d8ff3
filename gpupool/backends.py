"""The tiny interface of a kernel backend and its registry.

A backend runs one submission somewhere and returns a ``PoolRun``; it never raises for
a fault of the user nor for a missing host (those are data: ``report`` or ``error``).

    backend = get_backend("dask", scheduler="tcp://gpu1:8786")
    run = backend.run(source, "transposition", RunOptions(), learner=session_id,
                      on_event=lambda kind, value: ...)

Events told to ``on_event(kind, value)``: ``("position", n)`` n submissions go before this
one (0: its turn); ``("own", None)`` it waits for the same learner's previous one;
``("running", where)`` a host has started it; ``("notice", text)`` a French sentence
for the user (a lost host, a fallback to this server's GPU).

Registered: ``local`` (``gpupool.local_backend.LocalBackend``: this host's GPU slots
through ``sandbox.run_submission``), ``dask`` (``gpupool.dask_backend.DaskBackend``, imported
only when asked for). ``register_backend(name, factory)`` adds one.
"""
from __future__ import annotations

import os
from typing import Callable, Protocol

from gpupool.records import PoolRun
from sandbox.records import RunOptions

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


def _local_backend(**settings) -> KernelBackend:
    from gpupool.local_backend import LocalBackend

    return LocalBackend(**settings)


def _dask_backend(**settings) -> KernelBackend:
    from gpupool.dask_backend import DaskBackend

    return DaskBackend(**settings)


register_backend("local", _local_backend)
register_backend("dask", _dask_backend)
