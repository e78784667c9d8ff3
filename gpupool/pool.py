"""Start the pieces of a Dask pool of GPU hosts: ``start_scheduler`` and ``start_worker``.

    tuile scheduler [--host 0.0.0.0] [--port 8786]
    tuile worker --scheduler tcp://HOST:8786 [--gpus N] [--listen HOST]

The scheduler allows one failure per task (``distributed.scheduler.allowed-failures`` 1):
a task whose worker is lost runs once more elsewhere, a second loss ends it. Any Dask
scheduler works (``dask scheduler``); the server caps attempts at two anyway.

A worker runs in this process, without a nanny: each submission already runs in a
process of its own (the sandbox's jail), so there is nothing for a nanny to restart
that the next task would not restart itself. It advertises ``GPU=n`` (n: ``--gpus``,
else the GPUs it sees, ``sandbox.gpuqueue.visible_gpus``; a host without GPU offers
one slot and runs the interpreter, correctness only), runs n tasks at once (one per
GPU slot) and is named ``<host>/<card>/<pid>``, so the server and ``tuile pool status``
show the card. It gives up with a French message when the scheduler cannot be reached
within ``death_timeout_s``. Limit: a worker killed mid-run leaves its jailed child to
its own time limits; the child's GPU slot is free as soon as the worker is gone.
"""
from __future__ import annotations

import asyncio
import os
import socket
import sys


def start_scheduler(host: str = "0.0.0.0", port: int = 8786, *, ready=None) -> int:
    import dask
    from distributed import Scheduler

    dask.config.set({"distributed.scheduler.allowed-failures": 1,
                     "distributed.scheduler.work-stealing": False})   # a task stays where it started

    async def main():
        async with Scheduler(host=host, port=port, dashboard=False,
                             dashboard_address=f"{host}:0") as s:
            print(f"planificateur Tuile à l'écoute : {s.address}", file=sys.stderr, flush=True)
            if ready:
                ready(s.address)
            await s.finished()

    asyncio.run(main())
    return 0


def worker_resources(gpus: int | None = None) -> tuple[int, str]:
    """(slots, card name) this host offers."""
    from gpupool.host import card_name
    from sandbox.gpuqueue import visible_gpus

    seen = len(visible_gpus())
    n = gpus if gpus else max(1, seen)
    return n, card_name() or ("GPU" if seen else "CPU-interpreteur")


def start_worker(scheduler: str, gpus: int | None = None, *, listen: str | None = None,
                 death_timeout_s: float = 20.0) -> int:
    from distributed import Worker

    from gpupool.dask_backend import normalise_address

    address = normalise_address(scheduler)
    n, card = worker_resources(gpus)
    name = f"{socket.gethostname()}/{card.replace(' ', '_')}/{os.getpid()}"

    async def main():
        kwargs = {"host": listen} if listen else {}
        async with Worker(address, nthreads=n, resources={"GPU": n}, name=name,
                          death_timeout=death_timeout_s, dashboard=False, **kwargs) as w:
            print(f"worker Tuile {name} : {n} GPU ({card}), relié à {address} ({w.address})",
                  file=sys.stderr, flush=True)
            await w.finished()

    try:
        asyncio.run(main())
    except (OSError, TimeoutError) as err:
        print(f"erreur\u00a0: impossible de joindre le planificateur {address} en "
              f"{death_timeout_s:g}\u00a0s ({' '.join(str(err).split())[:160]})", file=sys.stderr)
        return 2
    return 0
