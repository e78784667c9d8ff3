"""The per-GPU queue: mutual exclusion across processes, arrival order, positions."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from sandbox.gpuqueue import QueueTimeout, gpu_slot

REPO = Path(__file__).resolve().parents[2]

_CLIENT = textwrap.dedent("""
    import json, sys, time
    from pathlib import Path
    from sandbox.gpuqueue import gpu_slot
    lock_dir, out, hold = Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3])
    positions = []
    with gpu_slot(0, on_position=positions.append, directory=lock_dir, poll_s=0.01):
        t0 = time.time(); time.sleep(hold); t1 = time.time()
    out.write_text(json.dumps({"start": t0, "end": t1, "positions": positions}))
""")


def _clients(tmp_path: Path, n: int, hold: float) -> list[dict]:
    procs, outs = [], []
    for i in range(n):
        out = tmp_path / f"client-{i}.json"
        outs.append(out)
        procs.append(subprocess.Popen([sys.executable, "-c", _CLIENT, str(tmp_path / "locks"),
                                       str(out), str(hold)], cwd=REPO))
        time.sleep(0.05)   # arrival order
    for p in procs:
        assert p.wait(timeout=60) == 0
    return [json.loads(o.read_text()) for o in outs]


def test_slots_never_overlap_and_follow_arrival(tmp_path):
    runs = _clients(tmp_path, 5, 0.3)
    spans = sorted((r["start"], r["end"]) for r in runs)
    for (s0, e0), (s1, e1) in zip(spans, spans[1:]):
        assert s1 >= e0
    starts = [r["start"] for r in runs]
    assert starts == sorted(starts)          # first come, first served


def test_waiting_submission_sees_its_position(tmp_path):
    runs = _clients(tmp_path, 4, 0.4)
    assert runs[0]["positions"] == [0]
    last = runs[-1]["positions"]
    assert last[0] == 3 and last[-1] == 0
    assert last == sorted(last, reverse=True)  # only ever moves forward


def test_dead_holder_frees_the_gpu(tmp_path):
    locks = tmp_path / "locks"
    holder = subprocess.Popen([sys.executable, "-c", _CLIENT, str(locks),
                               str(tmp_path / "h.json"), "600"], cwd=REPO)
    time.sleep(1.0)
    holder.kill()
    holder.wait()
    t = time.monotonic()
    with gpu_slot(0, directory=locks, max_wait_s=10):
        pass
    assert time.monotonic() - t < 5


def test_max_wait(tmp_path):
    locks = tmp_path / "locks"
    holder = subprocess.Popen([sys.executable, "-c", _CLIENT, str(locks),
                               str(tmp_path / "h.json"), "30"], cwd=REPO)
    time.sleep(1.0)
    try:
        with pytest.raises(QueueTimeout):
            with gpu_slot(0, directory=locks, max_wait_s=0.5):
                pass
    finally:
        holder.kill()
        holder.wait()


def test_separate_gpus_do_not_wait_for_each_other(tmp_path):
    with gpu_slot(0, directory=tmp_path):
        t = time.monotonic()
        with gpu_slot(1, directory=tmp_path, max_wait_s=2):
            pass
        assert time.monotonic() - t < 1
