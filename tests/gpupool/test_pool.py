"""The GPU pool on a real Dask scheduler and real workers (loopback, Triton interpreter).

In file order: no worker yet → French message; two workers, 20 submissions from 20
threads, each completed once and correct; a worker killed mid-run → its submission
completed on the other, the user told; the scheduler down → the French message within
seconds. About a minute on 2 cores.
"""
from __future__ import annotations

import threading
import time

import pytest

from gpupool import get_backend
from gpupool.dask_backend import DaskBackend
from sandbox import get_exercise
from sandbox.records import RunOptions

OPTIONS = RunOptions(all_dtypes=False)   # one dtype: 2.5 s a run in the interpreter, 2 cores

# Correct, but its launcher spins ~3 s first: long enough to kill its worker mid-run.
_SLOW = get_exercise("transposition").source("reference").replace(
    "def custom_kernel(x, out):\n",
    "def custom_kernel(x, out):\n    n = 0\n    for _ in range(25_000_000):\n        n += 1\n")

NBSP = "\u00a0"


def _backend(pool, **kw) -> DaskBackend:
    return get_backend("dask", scheduler=pool.address, local_fallback=False, **kw)


def test_no_worker_yet_is_a_french_message(pool):
    backend = _backend(pool)
    t = time.monotonic()
    run = backend.run(get_exercise("copie").source("reference"), "copie", OPTIONS, learner="a")
    assert time.monotonic() - t < 10
    assert run.report is None
    assert run.error.startswith("Aucun hôte GPU n'est connecté au pool")
    assert " :" not in run.error and f"pool{NBSP}" not in run.error
    backend.close()


def test_twenty_submissions_from_twenty_threads_complete_once(pool):
    pool.start_worker(0)
    pool.start_worker(1)
    backend = _backend(pool)
    deadline = time.monotonic() + 30
    while len(backend.workers()) < 2:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    sources = {"reference": get_exercise("transposition").source("reference"),
               "naive": get_exercise("transposition").source("naive")}
    runs, events = {}, {}

    def submit(i):
        kind = "reference" if i % 2 else "naive"
        seen = events.setdefault(i, [])
        runs[i] = backend.run(sources[kind], "transposition", OPTIONS, learner=f"eleve-{i}",
                              on_event=lambda k, v: seen.append((time.monotonic(), k, v)))

    threads = [threading.Thread(target=submit, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=240)
    assert len(runs) == 20
    for i, run in runs.items():
        assert run.error == "", run.error
        assert run.report.correct and run.report.exercise == "transposition", run.report.error
        assert run.attempts == 1 and run.host and run.worker
    assert len({r.key for r in runs.values()}) == 20            # each counted once
    assert len({r.worker for r in runs.values()}) == 2           # both workers served
    for worker in {r.worker for r in runs.values()}:                # one slot each: never two at once
        spans = sorted((r.started_at, r.ended_at) for r in runs.values() if r.worker == worker)
        assert all(s1 >= e0 for (_, e0), (s1, _) in zip(spans, spans[1:]))
    # Two GPU slots in the pool: at most two runs in flight, the others were told a position.
    assert max(r.position_at_arrival for r in runs.values()) >= 2
    starts = sorted(t for ev in events.values() for t, k, _ in ev if k == "running")
    assert len(starts) == 20
    backend.close()


def test_a_worker_lost_mid_run_is_completed_elsewhere(pool):
    backend = _backend(pool)
    by_pid = {p.pid: p for p in pool.procs[1:] if p.poll() is None}
    assert len(by_pid) == 2
    seen, killed = [], {}

    def on_event(kind, value):
        seen.append((kind, value))

    def killer():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any(k == "running" for k, _ in seen):
            time.sleep(0.05)
        time.sleep(1.0)                                     # mid-run: spinning in the launcher
        names = {w["name"]: w for w in backend.workers()}
        running = [w for w in names.values() if w["running"]]
        assert running, names
        pid = int(running[0]["name"].rsplit("/", 1)[-1])
        killed["name"] = running[0]["name"]
        pool.kill(by_pid[pid])

    k = threading.Thread(target=killer)
    k.start()
    run = backend.run(_SLOW, "transposition", OPTIONS, learner="eleve-perdu", on_event=on_event)
    k.join()
    assert run.error == "", run.error
    assert run.report.correct
    assert run.attempts == 2 and run.worker != killed["name"]
    assert run.notices and "perdu" in run.notices[0] and "relancée une fois" in run.notices[0]
    assert [k for k, _ in seen].count("notice") == 1
    backend.close()


def test_scheduler_down_is_a_french_message_within_seconds(pool):
    pool.kill(pool.procs[0])                  # the scheduler
    for address in (pool.address, "tcp://127.0.0.1:9"):
        backend = get_backend("dask", scheduler=address, local_fallback=False)
        t = time.monotonic()
        run = backend.run(get_exercise("copie").source("reference"), "copie", OPTIONS, learner="b")
        elapsed = time.monotonic() - t
        assert elapsed < 8, elapsed
        assert run.report is None
        assert run.error.startswith(f"Le pool de GPU {address} est injoignable")
        assert "Ce serveur n'a pas de GPU" in run.error
        assert " :" not in run.error and " ;" not in run.error     # French typography


def test_unknown_backend_lists_the_known_ones():
    from gpupool.backends import UnknownBackend

    with pytest.raises(UnknownBackend, match="dask, local"):
        get_backend("ray")
