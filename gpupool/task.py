"""What a Dask worker runs for one submission: the sandbox's public entry, on its host.

``run_on_worker(source, exercise, options, key)`` rebuilds the ``RunOptions`` from plain
fields (a callable does not travel), calls ``sandbox.run_submission`` (judge, jail and
GPU slot of that host, as for a local run) and returns plain data: the report as a dict
and where it ran. Progress goes to the server as Dask events on the topic ``TOPIC``:
``{"key", "event": "start" | "position", ...}``. A start event per attempt is what lets
the server see that a lost host's submission was run again.
"""
from __future__ import annotations

import os
import socket
import time
from dataclasses import fields

from sandbox.records import RunOptions

TOPIC = "tuile-kernel"
# Plain fields that travel; scratch_root and keep_scratch are the worker host's business.
_FIELDS = ("dtype", "mode", "all_dtypes", "timing", "profile", "compile_timeout_s", "run_timeout_s")


def options_to_dict(options: RunOptions) -> dict:
    return {name: getattr(options, name) for name in _FIELDS}


def options_from_dict(data: dict, on_position=None) -> RunOptions:
    known = {f.name for f in fields(RunOptions)}
    return RunOptions(**{k: v for k, v in data.items() if k in known and k in _FIELDS},
                      on_position=on_position)


def run_on_worker(source: str, exercise: str, options: dict, key: str) -> dict:
    from distributed import get_worker

    from gpupool.host import card_name, where_of
    from sandbox import run_submission

    worker = get_worker()
    base = {"key": key, "worker": str(worker.name), "address": worker.address,
            "host": socket.gethostname(), "pid": os.getpid()}
    worker.log_event(TOPIC, dict(base, event="start"))

    def position(n: int) -> None:
        worker.log_event(TOPIC, dict(base, event="position", position=int(n)))

    started = time.time()
    report = run_submission(source, exercise, options_from_dict(options, position))
    card, gpu = where_of(report)
    return dict(base, report=report.to_dict(), card=card or card_name(), gpu=gpu,
                started_at=started, ended_at=time.time())
