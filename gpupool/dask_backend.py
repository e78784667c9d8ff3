"""The ``dask`` backend: submissions go to a pool of GPU hosts through a Dask scheduler.

    backend = DaskBackend("tcp://gpu1:8786")     # or TUILE_SCHEDULER
    run = backend.run(source, "transposition", RunOptions(), learner=session_id, on_event=...)

Each submission is one Dask task, ``gpupool.task.run_on_worker``, with a key of its own
(``tuile-kernel-<uuid>``) and the resource ``GPU=1``; ``tuile worker`` advertises
``GPU=n`` for its n GPUs. Fair share (``gpupool.fairshare``) is kept here, in the server:
at most as many tasks in flight as the pool has GPUs, one per learner, arrival order
otherwise, so the position shown is the server's own count.

Faults, all returned as data (``PoolRun.error`` or ``notices``), never raised:
- scheduler unreachable: ``Client`` gives up after ``connect_timeout_s`` (3 s);
- no GPU worker connected, or none left for ``give_up_s`` (10 s) while waiting;
- a host lost mid-run: the scheduler puts the task back (``tuile scheduler`` allows one
  failure per task) and it starts on another worker; the start events show the second
  attempt, the user is told; a third start is cancelled here, whatever the scheduler's
  setting, so a submission runs at most twice;
- in the first two cases, when this server has a GPU of its own, the submission runs
  there (``LocalBackend``) and the user is told.
A result is read once, from the one future of its key: it is never counted twice.
"""
from __future__ import annotations

import os
import threading
import time
import uuid

from gpupool.text import fr
from gpupool.local_backend import LocalBackend
from gpupool.fairshare import FairShare, NoCapacity
from gpupool.records import PoolRun
from gpupool.task import TOPIC, options_to_dict, run_on_worker
from sandbox.records import KernelReport, RunOptions


def normalise_address(address: str) -> str:
    address = (address or "").strip()
    return address if "://" in address else f"tcp://{address}"


class _Watch:
    """What the worker side said about one key: starts (attempts), hosts, positions."""

    def __init__(self, tell):
        self.tell, self.starts, self.hosts, self.notices = tell, 0, [], []

    def handle(self, msg: dict) -> None:
        if msg.get("event") == "start":
            self.starts += 1
            where = f"{msg.get('host', '?')} ({msg.get('worker', '?')})"
            if self.starts == 2:
                text = fr(f"L'hôte qui exécutait votre soumission, {self.hosts[-1] if self.hosts else '?'}, "
                          f"a été perdu : elle est relancée une fois, sur {where}.")
                self.notices.append(text)
                self.tell("notice", text)
            self.hosts.append(where)
            self.tell("running", where)
        elif msg.get("event") == "position":
            self.tell("position", int(msg.get("position", 0)))


class DaskBackend:
    name = "dask"

    def __init__(self, scheduler: str | None = None, *, connect_timeout_s: float = 3.0,
                 give_up_s: float = 10.0, local_fallback: bool = True, **_ignored):
        self.address = normalise_address(scheduler or os.environ.get("TUILE_SCHEDULER", ""))
        self.connect_timeout_s, self.give_up_s = connect_timeout_s, give_up_s
        self.local_fallback = local_fallback
        self._client = None
        self._lock = threading.Lock()
        self._watches: dict[str, _Watch] = {}
        self._cap = (0.0, 0)
        self._fair = FairShare(self._capacity)
        self._local: LocalBackend | None = None

    # ------------------------------------------------------------------ the pool
    def _connect(self):
        with self._lock:
            if self._client is not None and self._client.status == "running":
                return self._client
            from distributed import Client

            if self._client is not None:
                try:
                    self._client.close(timeout=1)
                except Exception:
                    pass
                self._client = None
            client = Client(self.address, timeout=self.connect_timeout_s, set_as_default=False)
            client.subscribe_topic(TOPIC, self._on_event)
            self._client = client
            return client

    def _on_event(self, event) -> None:
        msg = event[1] if isinstance(event, tuple) else event
        watch = self._watches.get(msg.get("key", "")) if isinstance(msg, dict) else None
        if watch is not None:
            watch.handle(msg)

    def workers(self) -> list[dict]:
        """The GPU workers now connected: name, host, GPUs, tasks running (``[]`` if none)."""
        info = self._connect().scheduler_info(n_workers=-1)
        out = []
        for address, w in sorted(info.get("workers", {}).items()):
            gpus = int(w.get("resources", {}).get("GPU", 0))
            if gpus:
                out.append({"address": address, "name": str(w.get("name", "")), "host": w.get("host", ""),
                            "gpus": gpus, "running": w.get("metrics", {}).get("task_counts", {}).get("executing", 0)})
        return out

    def _capacity(self) -> int:
        now = time.monotonic()
        if now - self._cap[0] > 1.0:      # one scheduler round trip a second at most
            try:
                self._cap = (now, sum(w["gpus"] for w in self.workers()))
            except Exception:
                self._cap = (now, 0)
        return self._cap[1]

    def describe(self) -> str:
        try:
            workers = self.workers()
        except Exception as err:
            return fr(f"pool de GPU {self.address} injoignable ({_short(err)})")
        gpus = sum(w["gpus"] for w in workers)
        hosts = len({w["host"] for w in workers})
        return fr(f"pool de GPU {self.address} : {hosts} hôte{'s' if hosts > 1 else ''}, "
                  f"{gpus} GPU, {len(workers)} worker{'s' if len(workers) > 1 else ''}")

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    # ------------------------------------------------------------------ one run
    def run(self, source, exercise, options=RunOptions(), *, learner="", on_event=None) -> PoolRun:
        tell = on_event or (lambda kind, value: None)
        learner = learner or f"anonyme-{uuid.uuid4().hex}"
        start = time.monotonic()
        try:
            self._connect()
        except Exception as err:
            return self._fallback(source, exercise, options, learner, tell, fr(
                f"Le pool de GPU {self.address} est injoignable ({_short(err)})."))
        self._cap = (0.0, 0)              # a fresh look before judging that it is empty
        if self._capacity() == 0:
            return self._fallback(source, exercise, options, learner, tell, fr(
                f"Aucun hôte GPU n'est connecté au pool {self.address} (lancez « tuile worker "
                f"--scheduler {self.address} » sur un hôte GPU)."))
        try:
            with self._fair.turn(learner, lambda n: tell("own", None) if n is None else tell("position", n),
                                 give_up_s=self.give_up_s) as pos:
                waited = time.monotonic() - start
                run = self._submit(source, exercise, options, tell)
        except NoCapacity:
            return self._fallback(source, exercise, options, learner, tell, fr(
                f"Plus aucun hôte GPU n'est connecté au pool {self.address} depuis "
                f"{self.give_up_s:g} s."))
        run.position_at_arrival = pos
        run.waited_s = round(waited, 3)
        return run

    def _submit(self, source, exercise, options, tell) -> PoolRun:
        from distributed import KilledWorker

        client = self._connect()
        key = f"tuile-kernel-{uuid.uuid4().hex}"
        watch = _Watch(tell)
        self._watches[key] = watch
        future = client.submit(run_on_worker, source, exercise, options_to_dict(options), key,
                               key=key, resources={"GPU": 1}, pure=False)
        empty_since = None
        try:
            while True:
                try:
                    data = future.result(timeout=0.5)
                    break
                except TimeoutError:
                    pass
                except KilledWorker:
                    return self._lost(key, watch, "ses hôtes ont été perdus l'un après l'autre")
                except Exception as err:
                    return self._lost(key, watch, f"la liaison avec le pool a été coupée ({_short(err)})")
                if watch.starts > 2:
                    future.cancel()
                    return self._lost(key, watch, "son hôte a été perdu une deuxième fois")
                if self._capacity() == 0:
                    empty_since = empty_since or time.monotonic()
                    if time.monotonic() - empty_since > self.give_up_s:
                        future.cancel()
                        return self._lost(key, watch, f"plus aucun hôte GPU n'est connecté depuis "
                                                      f"{self.give_up_s:g} s")
                else:
                    empty_since = None
        finally:
            self._watches.pop(key, None)
            future.release()
        report = KernelReport.from_dict(data["report"])
        return PoolRun(report=report, backend=self.name, host=data.get("host", ""),
                       worker=data.get("worker", ""), card=data.get("card", ""), gpu=data.get("gpu", ""),
                       attempts=max(1, watch.starts), key=key, notices=list(watch.notices),
                       started_at=data.get("started_at"), ended_at=data.get("ended_at"))

    def _lost(self, key: str, watch: _Watch, why: str) -> PoolRun:
        return PoolRun(report=None, backend=self.name, attempts=watch.starts, key=key,
                       notices=list(watch.notices),
                       error=fr(f"Votre soumission n'a pas pu être mesurée : {why}. Rien n'a été "
                                "compté ; relancez-la."))

    def _fallback(self, source, exercise, options, learner, tell, why: str) -> PoolRun:
        from gpupool.host import gpu_present

        if self.local_fallback and gpu_present():
            note = fr(f"{why} Votre soumission passe sur le GPU de ce serveur.")
            tell("notice", note)
            if self._local is None:
                self._local = LocalBackend()
            run = self._local.run(source, exercise, options, learner=learner, on_event=tell)
            run.notices.insert(0, note)
            return run
        return PoolRun(report=None, backend=self.name, error=fr(
            f"{why} Ce serveur n'a pas de GPU : la soumission n'a pas été lancée ; réessayez "
            "dans quelques minutes ou prévenez la personne qui gère les GPU."))


def _short(err: BaseException) -> str:
    text = " ".join(str(err).split()) or type(err).__name__
    return text[:160]
