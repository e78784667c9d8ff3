"""GPU validation of the sandbox's part 2 (issue 9): queue under load, profiler feedback.

Run on the H200, from the repo root:  python3 bench/sandbox_part2_gpu.py OUTDIR
Writes OUTDIR/part2-gpu.json (every figure, raw ncu metrics included) and
OUTDIR/part2-gpu.md (the summary committed under bench/results/).

1. Ten submissions (reference and naive solutions of five exercises) run one after the
   other, alone; then the same ten sent at once from ten threads through
   ``runner.run_submission`` (GPU queue on). Each must complete, the GPU slots must not
   overlap, and each bandwidth must be within 2 % of its figure alone.
2. Profiler feedback for the naive and the tiled (reference) transposition, through
   ``run_submission(..., RunOptions(profile=True))``: timing, then one ncu pass.
"""
from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sandbox.exercises import get_exercise  # noqa: E402
from sandbox.jail import isolation_layers  # noqa: E402
from sandbox.profile import find_ncu  # noqa: E402
from sandbox.records import RunOptions  # noqa: E402
from sandbox.runner import run_submission  # noqa: E402

EXERCISES = ("copie", "addition", "transposition", "reduction", "softmax")
TOLERANCE = 0.02
MODE = os.environ.get("TUILE_BENCH_MODE", "gpu")   # "interpreter": a dry run of this script


def _submissions():
    for name in EXERCISES:
        ex = get_exercise(name)
        for kind in ("reference", "naive"):
            yield f"{name}/{kind}", name, ex.source(kind)


def _one(label, exercise, source, log):
    events = []
    opts = RunOptions(mode=MODE, all_dtypes=False,
                      on_position=lambda p: events.append((time.time(), p)))
    t0 = time.time()
    r = run_submission(source, exercise, opts)
    t1 = time.time()
    acquired = next((t for t, p in events if p == 0), None)
    rec = {"label": label, "correct": r.correct, "error_kind": r.error_kind,
           "error": r.error[:300], "median_us": r.median_us, "p10_us": r.p10_us,
           "p90_us": r.p90_us, "gbps": r.gbps, "pct_of_peak": r.pct_of_peak,
           "copy_ceiling_gbps": r.copy_ceiling_gbps, "positions": [p for _, p in events],
           "submitted": t0, "acquired": acquired, "returned": t1, "wall_s": round(t1 - t0, 2),
           "timing_shape": r.timing_shape, "dtype": r.dtype}
    log(f"{label:28s} correct={r.correct} {r.error_kind or ''} median={r.median_us} us "
        f"gbps={r.gbps} positions={rec['positions']} wall={rec['wall_s']} s")
    return rec


def queue_under_load(log, res, save):
    subs = list(_submissions())
    alone = []
    res["queue_partial"] = {"alone": alone}
    for sub in subs:
        alone.append(_one(*sub, log))
        save()
    log("-- ten at once")
    with ThreadPoolExecutor(len(subs)) as pool:
        futs = []
        for s in subs:
            futs.append(pool.submit(_one, *s, log))
            time.sleep(0.02)   # a known arrival order, still all waiting together
        together = [f.result() for f in futs]
    spans = sorted((r["acquired"] or r["submitted"], r["returned"]) for r in together)
    overlaps = sum(1 for (a0, a1), (b0, b1) in zip(spans, spans[1:]) if b0 < a1 - 0.05)
    rows = []
    for a, t in zip(alone, together):
        dev = (t["gbps"] / a["gbps"] - 1) if a["gbps"] and t["gbps"] else None
        rows.append({"label": a["label"], "alone_gbps": a["gbps"], "together_gbps": t["gbps"],
                     "alone_median_us": a["median_us"], "together_median_us": t["median_us"],
                     "deviation": dev, "within_2pct": dev is not None and abs(dev) <= TOLERANCE,
                     "positions_seen": t["positions"], "correct": t["correct"]})
    return {"alone": alone, "together": together, "comparison": rows,
            "overlapping_slots": overlaps,
            "all_completed": all(t["correct"] for t in together)}


def profiles(log):
    """Through the runner's own path: RunOptions(profile=True) runs ncu after a correct
    GPU run, under the same GPU slot, and fills report.profile and report.diagnosis."""
    ex = get_exercise("transposition")
    out = {}
    for kind in ("naive", "reference"):
        t0 = time.time()
        report = run_submission(ex.source(kind), "transposition",
                                RunOptions(mode=MODE, all_dtypes=False, profile=True))
        prof = report.profile or {"available": False, "reason": "pas de profil", "metrics": {}}
        prof["diagnosis"] = report.diagnosis or []
        out[kind] = {"report": {k: getattr(report, k) for k in (
            "correct", "error", "median_us", "gbps", "pct_of_peak", "pct_of_copy_ceiling",
            "copy_ceiling_gbps", "peak_gbps_card", "timing_shape", "dtype", "device_name")},
            "profile": prof, "wall_s_with_profile": round(time.time() - t0, 1)}
        log(f"== {kind}: {report.gbps} GB/s ({report.pct_of_peak} % of peak), correct="
            f"{report.correct} {report.error[:200]}; profile available={prof.get('available')} "
            f"{prof.get('reason', '')}")
        for it in prof["diagnosis"]:
            log(f"   [{it['severity']}] {it['code']}: {it['detail']}  -> {', '.join(it['links'])}")
    return out


def _md(res) -> str:
    env, q, p = res["env"], res["queue"], res["profiles"]
    lines = [f"# Sandbox part 2 on the GPU: queue under load, profiler feedback",
             "", f"- date: {env['date']}", f"- device: {env['device']}",
             f"- software: {env['software']}", f"- ncu: {env['ncu']}",
             f"- command: `{env['command']}`", f"- isolation layers: {env['layers']}", "",
             "## Ten submissions at once (GPU queue)", "",
             f"All completed: {q['all_completed']}; overlapping GPU slots: "
             f"{q['overlapping_slots']}. Bandwidth from `run_submission` (median of its "
             "timed calls, bytes as the exercise counts them), alone then with the ten "
             "sent together from ten threads.", "",
             "| submission | alone GB/s | together GB/s | deviation | within 2 % | positions seen |",
             "| --- | --- | --- | --- | --- | --- |"]
    for r in q["comparison"]:
        dev = f"{100 * r['deviation']:+.2f} %" if r["deviation"] is not None else "n/a"
        lines.append(f"| {r['label']} | {r['alone_gbps']} | {r['together_gbps']} | {dev} | "
                     f"{r['within_2pct']} | {r['positions_seen']} |")
    lines += ["", "## Profiler feedback (transposition, ncu one launch, --clock-control none)", ""]
    for kind, d in p.items():
        rep, prof = d["report"], d["profile"]
        lines += [f"### {kind}", "",
                  f"Timing (not ncu): {rep['gbps']} GB/s, {rep['pct_of_peak']} % of the card's "
                  f"peak, {rep['pct_of_copy_ceiling']} % of the copy ceiling "
                  f"({rep['copy_ceiling_gbps']} GB/s); shape {rep['timing_shape']} {rep['dtype']}.",
                  "", f"ncu command: `{prof.get('command', '')}`", "",
                  "| metric (short name) | value |", "| --- | --- |"]
        for k, v in sorted(prof.get("metrics", {}).items()):
            lines.append(f"| {k} | {v} |")
        lines += ["", "Diagnosis:", ""]
        for it in prof["diagnosis"]:
            lines.append(f"- [{it['severity']}] **{it['title']}**: {it['detail']} "
                         f"({', '.join(it['links'])})")
        lines += ["", "Raw ncu figures (name: value unit):", ""]
        for rec in prof.get("raw", []):
            lines.append(f"- kernel `{rec['kernel']}` grid {rec['grid']} block {rec['block']}")
            for name, (val, unit) in sorted(rec["metrics"].items()):
                lines.append(f"  - `{name}`: {val} {unit}".rstrip())
        lines.append("")
    return "\n".join(lines) + "\n"


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    lock = threading.Lock()
    log_file = open(out / "part2-gpu.log", "w")

    def log(msg):
        with lock:
            print(msg, flush=True)
            log_file.write(msg + "\n")
            log_file.flush()

    import torch
    import triton
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                              "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
    except OSError:
        smi = "pas de GPU"
    ncu = find_ncu()
    ncu_v = subprocess.run([ncu, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1] if ncu else "absent"
    res = {"env": {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                   "device": smi, "software": f"python {platform.python_version()}, torch "
                   f"{torch.__version__}, triton {triton.__version__}", "ncu": ncu_v,
                   "command": "python3 bench/sandbox_part2_gpu.py $OUT",
                   "layers": isolation_layers()}}
    def save():   # after each phase: a run cut short by its time limit still reports
        (out / "part2-gpu.json").write_text(json.dumps(res, indent=1, ensure_ascii=False,
                                                       default=str))

    res["profiles"] = profiles(log)
    save()
    res["queue"] = queue_under_load(log, res, save)
    save()
    (out / "part2-gpu.md").write_text(_md(res))
    log(f"all completed: {res['queue']['all_completed']}, overlaps: {res['queue']['overlapping_slots']}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "part2-out"))
