"""Fair share between learners, through the local backend and a small real runner."""
from __future__ import annotations

import threading
import time

from gpupool import get_backend
from gpupool.fairshare import FairShare, NoCapacity
from sandbox.records import KernelReport, RunOptions


class SlowRunner:
    """Takes ``hold_s`` per submission and notes when each started and ended."""

    def __init__(self, hold_s: float):
        self.hold_s, self.spans, self.lock = hold_s, {}, threading.Lock()

    def __call__(self, source, exercise, options):
        t0 = time.monotonic()
        time.sleep(self.hold_s)
        with self.lock:
            self.spans[source] = (t0, time.monotonic())
        return KernelReport(exercise=exercise, correct=True, mode="interpreter", verdict="not_timed")


def _submit_all(backend, plan, gap_s=0.05):
    """plan: [(source, learner)] submitted in this order, a little apart."""
    events, runs, threads = {}, {}, []
    for source, learner in plan:
        seen = events.setdefault(source, [])

        def go(source=source, learner=learner, seen=seen):
            runs[source] = backend.run(source, "copie", RunOptions(), learner=learner,
                                       on_event=lambda k, v: seen.append((k, v)))

        t = threading.Thread(target=go)
        t.start()
        threads.append(t)
        time.sleep(gap_s)
    for t in threads:
        t.join(timeout=30)
    return runs, events


def test_one_submission_at_a_time_per_learner_others_pass():
    runner = SlowRunner(0.3)
    backend = get_backend("local", run=runner, capacity=1)
    # Alice sends three at once, then Bob one: Bob runs second (round robin), not fourth.
    runs, events = _submit_all(backend, [("a1", "alice"), ("a2", "alice"), ("a3", "alice"), ("b1", "bob")])
    order = sorted(runner.spans, key=lambda s: runner.spans[s][0])
    assert order == ["a1", "b1", "a2", "a3"]
    assert ("own", None) in events["a2"]            # told it waits for her previous one
    assert events["b1"][0] == ("position", 1)       # one ahead of Bob: the running one
    spans = sorted(runner.spans.values())
    assert all(s1 >= e0 for (_, e0), (s1, _) in zip(spans, spans[1:]))   # capacity 1: serial
    assert all(r.report.correct and r.host for r in runs.values())


def test_capacity_two_runs_two_learners_at_once():
    runner = SlowRunner(0.4)
    backend = get_backend("local", run=runner, capacity=2)
    _submit_all(backend, [("a", "alice"), ("b", "bob"), ("c", "carole")], gap_s=0.02)
    (sa, ea), (sb, eb), (sc, ec) = (runner.spans[k] for k in "abc")
    assert sb < ea and sc >= min(ea, eb) - 0.01        # two at once, the third after one ends


def test_no_capacity_gives_up():
    fair = FairShare(0, poll_s=0.05)
    t = time.monotonic()
    try:
        with fair.turn("alice", give_up_s=0.3):
            raise AssertionError("should not get a turn")
    except NoCapacity:
        pass
    assert time.monotonic() - t < 2
    assert fair.waiting() == 0 and fair.in_flight() == 0
