"""The default kernel backend, ``local``: this host's GPU slots through ``sandbox.run_submission``."""
from __future__ import annotations

import socket
import time
import uuid
from typing import Callable

from gpupool.fairshare import FairShare
from gpupool.host import local_capacity, where_of
from gpupool.records import PoolRun
from sandbox.records import RunOptions


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
