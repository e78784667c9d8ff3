"""The per-GPU queue: mutual exclusion across processes, arrival order, positions."""
from __future__ import annotations

import json
import os
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
    lock_dir, out, hold, gate = Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    positions = []
    def seen(p):
        positions.append(p)
        Path(str(out) + ".arrived").touch()
    with gpu_slot(0, on_position=seen, directory=lock_dir, poll_s=0.01):
        t0 = time.time()
        while time.time() - t0 < hold or (gate and not Path(gate).exists()):
            time.sleep(0.01)
        t1 = time.time()
    out.write_text(json.dumps({"start": t0, "end": t1, "positions": positions}))
""")


def _clients(tmp_path: Path, n: int, hold: float) -> list[dict]:
    """Start n clients, each once the previous one is in the queue, while the first holds
    the GPU until all have arrived: arrival order and positions are then known even on a
    loaded CI machine, where starting Python takes anything from 0.05 to 2 s."""
    procs, outs = [], []
    gate = tmp_path / "release"
    for i in range(n):
        out = tmp_path / f"client-{i}.json"
        outs.append(out)
        procs.append(subprocess.Popen([sys.executable, "-c", _CLIENT, str(tmp_path / "locks"),
                                       str(out), str(hold), str(gate) if i == 0 else ""],
                                      cwd=REPO))
        deadline = time.monotonic() + 60
        while not Path(str(out) + ".arrived").exists() and time.monotonic() < deadline:
            time.sleep(0.01)
    gate.touch()
    for p in procs:
        assert p.wait(timeout=120) == 0
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


def _wait_for(path: Path) -> None:
    deadline = time.monotonic() + 60
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.01)


def test_dead_holder_frees_the_gpu(tmp_path):
    locks = tmp_path / "locks"
    holder = subprocess.Popen([sys.executable, "-c", _CLIENT, str(locks),
                               str(tmp_path / "h.json"), "600", ""], cwd=REPO)
    _wait_for(tmp_path / "h.json.arrived")
    holder.kill()
    holder.wait()
    t = time.monotonic()
    with gpu_slot(0, directory=locks, max_wait_s=10):
        pass
    assert time.monotonic() - t < 5


def test_max_wait(tmp_path):
    locks = tmp_path / "locks"
    holder = subprocess.Popen([sys.executable, "-c", _CLIENT, str(locks),
                               str(tmp_path / "h.json"), "30", ""], cwd=REPO)
    _wait_for(tmp_path / "h.json.arrived")
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


def test_a_submission_cannot_hold_the_gpu_past_its_limit(tmp_path):
    """The slot is held by the server around run_isolated, which kills the child at its
    limit: a submission that loops forever frees the GPU for the next one."""
    import threading

    from sandbox.jail import Limits, run_isolated

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    results = {}

    def hog():
        with gpu_slot(0, directory=tmp_path / "locks"):
            results["hog"] = run_isolated(
                [sys.executable, "-c", "while True: pass"], scratch=scratch,
                limits=Limits(compile_timeout_s=2, run_timeout_s=2))

    t = threading.Thread(target=hog)
    t.start()
    time.sleep(0.3)
    t0 = time.monotonic()
    positions = []
    with gpu_slot(0, directory=tmp_path / "locks", on_position=positions.append, max_wait_s=30):
        waited = time.monotonic() - t0
    t.join()
    assert results["hog"].timed_out
    assert positions[0] == 1 and positions[-1] == 0
    assert waited < 2 + 5


# ---------------------------------------------------------------- one slot per GPU

_ANY_CLIENT = textwrap.dedent("""
    import json, sys, time
    from pathlib import Path
    from sandbox.gpuqueue import gpu_slot
    lock_dir, out, hold, gate = Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    positions = []
    def seen(p):
        positions.append(p)
        Path(str(out) + ".arrived").touch()
    with gpu_slot(on_position=seen, directory=lock_dir, poll_s=0.01) as slot:
        t0 = time.time()
        while time.time() - t0 < hold or (gate and not Path(gate).exists()):
            time.sleep(0.01)
        t1 = time.time()
    out.write_text(json.dumps({"start": t0, "end": t1, "positions": positions,
                               "gpu": slot.gpu, "device": slot.device}))
""")


def test_visible_gpus_from_the_environment(monkeypatch):
    from sandbox.gpuqueue import visible_gpus

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2,3")
    assert visible_gpus() == [(2, "2"), (3, "3")]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert visible_gpus() == []
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,-1,1")
    assert visible_gpus() == [(0, "0")]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "GPU-8f2a,GPU-11c0")
    assert visible_gpus() == [(0, "GPU-8f2a"), (1, "GPU-11c0")]


@pytest.mark.parametrize("n_gpus", [1, 3])
def test_every_gpu_is_a_slot_and_none_is_shared(tmp_path, n_gpus):
    """N slots, 2N (then 3N) real processes: no two on one GPU at a time, all served, all
    GPUs used, and those who arrived first start first."""
    env = dict(os.environ, CUDA_VISIBLE_DEVICES=",".join(str(i) for i in range(n_gpus)))
    procs, outs = [], []
    gates = [tmp_path / f"release-{i}" for i in range(n_gpus)]
    total = 2 * n_gpus + n_gpus
    for i in range(total):
        out = tmp_path / f"client-{i}.json"
        outs.append(out)
        gate = str(gates[i]) if i < n_gpus else ""
        procs.append(subprocess.Popen([sys.executable, "-c", _ANY_CLIENT, str(tmp_path / "locks"),
                                       str(out), "0.25", gate], cwd=REPO, env=env))
        _wait_for(Path(str(out) + ".arrived"))
    for g in gates:
        g.touch()
    for p in procs:
        assert p.wait(timeout=120) == 0
    runs = [json.loads(o.read_text()) for o in outs]
    assert {r["gpu"] for r in runs} == set(range(n_gpus))
    assert all(r["device"] == str(r["gpu"]) for r in runs)
    for g in range(n_gpus):
        spans = sorted((r["start"], r["end"]) for r in runs if r["gpu"] == g)
        for (s0, e0), (s1, e1) in zip(spans, spans[1:]):
            assert s1 >= e0                        # never two on one GPU
    starts = [r["start"] for r in runs]
    # The first N had a GPU at once; the next N waited and start before the last N.
    assert max(starts[:n_gpus]) < min(starts[n_gpus:])
    assert max(starts[n_gpus:2 * n_gpus]) <= min(starts[2 * n_gpus:])
    assert all(r["positions"] == [0] for r in runs[:n_gpus])
    last = runs[-1]["positions"]
    assert last[0] == 2 * n_gpus and last[-1] == 0   # 2N - 1 waiting ahead, all GPUs busy
    assert last == sorted(last, reverse=True)
