"""The GPU pool on one GPU host: a scheduler and one worker, ten submissions at once.

    python3 bench/pool_gpu.py OUTDIR          # OUTDIR defaults to $OUT

Needs only the standard library, torch, triton, and the wheels of dask/distributed and
their few dependencies on ``PYTHONPATH`` (it imports ``gpupool`` and ``sandbox``, never
``assistant`` nor gradio). On this host: ``tuile scheduler`` and one ``tuile worker``
(``python -m gpupool.cli …``, processes of their own, loopback), then through
``gpupool``'s ``dask`` backend:
1. the tiled reference transposition (``sandbox/exercises/files/transposition/
   reference.py``, float32, 16384 × 16384 on the GPU) three times alone, one after the
   other: its figure alone is the median of their medians;
2. ten submissions of it at once, from ten threads, ten learners.
Checks: all ten correct and timed on the GPU; serialised (the worker's start/end times
of the ten runs never overlap, and the sandbox's own GPU slot kept them apart); each
median within 2 % of the figure alone. Writes ``pool-gpu.json`` and ``pool-gpu.md`` in
OUTDIR; exit code 0 when every check holds.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pool_procs import LocalPool  # noqa: E402

TOLERANCE = 0.02


def _versions() -> dict:
    out = {"python": platform.python_version()}
    for name in ("torch", "triton", "dask", "distributed"):
        try:
            out[name] = __import__(name).__version__
        except Exception as err:   # reported, not fatal
            out[name] = f"absent ({err})"
    return out


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0] if argv else os.environ.get("OUT", "pool-gpu-out"))
    out.mkdir(parents=True, exist_ok=True)
    assert "assistant" not in sys.modules and "gradio" not in sys.modules
    from gpupool import get_backend
    from sandbox import get_exercise
    from sandbox.records import RunOptions

    source = get_exercise("transposition").source("reference")
    options = RunOptions()                      # float32, GPU timing, all dtypes checked
    result = {"date": dt.date.today().isoformat(),
              "utc": dt.datetime.now(dt.timezone.utc).strftime("%H:%M"),
              "command": "python3 bench/pool_gpu.py " + " ".join(argv), "versions": _versions(),
              "machine": f"{platform.machine()}, {os.cpu_count()} cœurs"}
    with tempfile.TemporaryDirectory(prefix="tuile-pool-gpu-") as tmp:
        pool = LocalPool(Path(tmp) / "logs")
        try:
            pool.start_scheduler()
            pool.start_worker(0)
            backend = get_backend("dask", scheduler=pool.address, local_fallback=False)
            deadline = time.monotonic() + 60
            while not backend.workers():
                if time.monotonic() > deadline:
                    raise RuntimeError("no worker joined")
                time.sleep(0.2)
            result["workers"] = backend.workers()
            alone = [backend.run(source, "transposition", options, learner="seul") for _ in range(3)]
            runs: dict[int, object] = {}
            t0 = time.monotonic()

            def go(i):
                runs[i] = backend.run(source, "transposition", options, learner=f"eleve-{i}")

            threads = [threading.Thread(target=go, args=(i,)) for i in range(10)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            result["ten_wall_s"] = round(time.monotonic() - t0, 2)
            backend.close()
        finally:
            pool.stop()
            logs = {p.name: p.read_text(errors="replace")[-3000:] for p in (Path(tmp) / "logs").glob("*.log")}
    result["logs_tail"] = logs

    def row(run) -> dict:
        r = run.report
        return {"error": run.error, "correct": bool(r and r.correct), "mode": r.mode if r else "",
                "device": r.device_name if r else "", "median_us": r.median_us if r else None,
                "p10_us": r.p10_us if r else None, "p90_us": r.p90_us if r else None,
                "gbps": r.gbps if r else None, "pct_of_peak": r.pct_of_peak if r else None,
                "verdict": r.verdict if r else "", "where": run.where, "attempts": run.attempts,
                "position_at_arrival": run.position_at_arrival, "waited_s": run.waited_s,
                "started_at": run.started_at, "ended_at": run.ended_at, "key": run.key,
                "wall_s": r.wall_s if r else None, "report_error": r.error if r else ""}

    result["alone"] = [row(r) for r in alone]
    result["ten"] = [row(runs[i]) for i in range(10)]
    medians = [a["median_us"] for a in result["alone"] if a["median_us"]]
    base = statistics.median(medians) if medians else None
    result["alone_median_us"] = base
    spans = sorted((t["started_at"], t["ended_at"]) for t in result["ten"] if t["started_at"])
    overlaps = sum(1 for (s0, e0), (s1, e1) in zip(spans, spans[1:]) if s1 < e0)
    for t in result["ten"]:
        t["deviation_pct"] = (round((t["median_us"] / base - 1) * 100, 3)
                              if base and t["median_us"] else None)
    checks = {
        "all_correct_on_gpu": all(t["correct"] and t["mode"] == "gpu" and t["median_us"] for t in result["ten"]),
        "ten_distinct_keys": len({t["key"] for t in result["ten"]}) == 10,
        "serialised": overlaps == 0 and len(spans) == 10,
        "each_within_2pct": bool(base) and all(t["deviation_pct"] is not None
                                               and abs(t["deviation_pct"]) <= TOLERANCE * 100
                                               for t in result["ten"]),
    }
    result["checks"] = checks
    (out / "pool-gpu.json").write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n")
    v = result["versions"]
    lines = [f"# Pool Dask sur un hôte GPU : dix soumissions à la fois ({result['date']}, {result['utc']} UTC)", "",
             f"Commande : `{result['command']}` ; machine : {result['machine']} ; python {v['python']}, torch "
             f"{v['torch']}, triton {v['triton']}, dask/distributed {v['dask']}/{v['distributed']}.",
             "Planificateur et un worker sur l'hôte (boucle locale) ; transposition tuilée de référence, "
             "float32, 16384 × 16384, chronométrée par le bac à sable.", "",
             f"Chiffre seul (médiane de 3 passages seuls) : {base} µs ; dix à la fois : {result['ten_wall_s']} s "
             f"au total.", "",
             "| # | juste | médiane µs | écart au seul | Go/s | % crête | position à l'arrivée | où |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for i, t in enumerate(result["ten"]):
        lines.append(f"| {i} | {'oui' if t['correct'] else 'non'} | {t['median_us']} | {t['deviation_pct']} % | "
                     f"{t['gbps']} | {t['pct_of_peak']} | {t['position_at_arrival']} | {t['where']} |")
    lines += ["", "Vérifications : " + ", ".join(f"{k} = {'oui' if ok else 'NON'}" for k, ok in checks.items())]
    (out / "pool-gpu.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
