"""GPU acceptance of the judge/launcher split: exploits, timing fidelity, queue, GPU tests.

Run as root on the GPU host, from the repo root:  python3 bench/sandbox_trust_gpu.py OUTDIR
(torch, triton and the standard library only; pytest for part 4 when installed). Writes
OUTDIR/trust-gpu.json (every figure) and OUTDIR/trust-gpu.md (the summary), rewritten
after each row, so a part that fails or runs out of time loses nothing of the others.
The whole run is bounded by ``BUDGET_S`` (470 s, ``--budget S`` to change it); each part
has its own share. ``TUILE_BENCH_WORKERS=W`` runs part 4's pytest commands on W processes
(pytest-xdist, when the host has it) for the attack suite only: its runtime cases are
independent jailed processes (82 in 31.7 s on 8 workers of the H200 host, 2026-12-01, where
one after the other they outlast the budget). The GPU tests stay one at a time: they fill
the one GPU on purpose (whole-memory attack, timed verdicts), and 2 of 9 failed when run
8 at once on it, the same 9 passing one after the other.

``--fidelity-only`` (within 150 s): part 2, then part 1 for the honest kernel and the
exploits that reach the clock (``FIDELITY_EXPLOITS``), nothing else; it writes
OUTDIR/trust-gpu-fidelity.json and .md.

0. A smoke run (honest kernel, untimed); if the judge under a uid of its own cannot
   share memory with the launcher, the rest runs with the judge kept root.
1. Every exploit of tests/sandbox/exploits/ through ``run_submission`` on the GPU with the
   pre-check OFF, next to the honest kernel (tests/sandbox/exploits/honest.py): outcome,
   figure, the launcher's own claim. Pass: every exploit incorrect/refused, or correct
   with a median no lower than 0.99 × the honest one (never above the honest figure).
2. The tiled reference transposition five times through ``python3 -m sandbox.cli run
   FILE -e transposition --json`` (fresh processes, as a user runs it), and a bare
   ``triton.testing.do_bench`` of the same kernel in this process. Pass: median of the five
   within 3 % of do_bench, the five within 2 % of each other, each report within 10 s.
3. Ten submissions of the same reference at once from ten threads (GPU queue on). Pass:
   all correct, their GPU slots never overlap, each within 2 % of the median of part 2.
4. ``python3 -m pytest tests/sandbox -m gpu -q`` (less the GPU exploit test, whose
   submissions part 1 ran), then ``python3 -m pytest tests/sandbox/test_attacks.py -m
   "not gpu" -q`` (its GPU attacks ran in the first): return codes and tails. What the
   budget leaves no time for is recorded as skipped.

Dry run on a CPU machine: TUILE_BENCH_MODE=interpreter (no figures; checks the plumbing).
"""
from __future__ import annotations

import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sandbox.exercises import get_exercise  # noqa: E402
from sandbox.records import RunOptions  # noqa: E402
from sandbox.runner import run_submission  # noqa: E402

MODE = os.environ.get("TUILE_BENCH_MODE", "gpu")
FIDELITY_ONLY = "--fidelity-only" in sys.argv[1:]
_BUDGET_ARG = sys.argv[sys.argv.index("--budget") + 1] if "--budget" in sys.argv[1:-1] else None
BUDGET_S = float(_BUDGET_ARG) if _BUDGET_ARG else (150.0 if FIDELITY_ONLY else 470.0)
# five CLI reports took 7.0-8.4 s each on the H200 (2026-12-01), a run of part 1 up to 9 s
SHARES = ({"fidelity": 70.0, "exploits": 75.0} if FIDELITY_ONLY else
          {"exploits": 170.0, "fidelity": 80.0, "queue": 110.0, "pytest_gpu": 0.0})  # 0: the rest
# the exploits whose end is a figure or a failure of the clock's own checks
FIDELITY_EXPLOITS = ("timer_patch.py", "lazy_sync.py", "batch_skip.py", "early_done.py")
EXPLOITS = REPO / "tests" / "sandbox" / "exploits"
T0 = time.monotonic()
_SAVE = [lambda: None]   # main() puts its writer here: rows are kept as they come


def _left() -> float:
    return BUDGET_S - (time.monotonic() - T0)


def _brief(r) -> dict:
    return {"correct": r.correct, "error_kind": r.error_kind, "error": r.error[:400],
            "verdict": r.verdict, "verdict_text": r.verdict_text[:300],
            "median_us": r.median_us, "p10_us": r.p10_us, "p90_us": r.p90_us,
            "gbps": r.gbps, "pct_of_peak": r.pct_of_peak,
            "claimed_median_us": r.claimed_median_us, "batches_us": r.batches_us,
            "calls_per_batch": r.calls_per_batch, "short_calls": r.short_calls,
            "full_batches_us": r.full_batches_us, "short_batches_us": r.short_batches_us,
            "batch_fixed_us": r.batch_fixed_us, "fixed_cap_us": r.fixed_cap_us,
            "capped_rounds": r.capped_rounds, "flush_us": r.flush_us,
            "claimed_span_per_call_us": r.claimed_span_per_call_us,
            "idle_probe_us": r.idle_probe_us, "repetitions": r.repetitions,
            "precheck": r.precheck, "gpu_index": r.gpu_index, "wall_s": r.wall_s,
            "judge_note": r.judge_note, "stderr_tail": r.stderr_tail[-600:]}


def part_smoke(out: dict) -> None:
    """One untimed honest run; if sharing memory from a judge of its own uid fails, the
    judge stays root (TUILE_JUDGE_DROP_UID=0) for the rest of the run, and this says so."""
    opts = RunOptions(mode=MODE, precheck=False, all_dtypes=False, timing=False)
    src = (EXPLOITS / "honest.py").read_text()
    first = run_submission(src, "transposition", opts)
    out["own_uid"] = _brief(first)
    out["judge_drop_uid"] = True
    if not first.correct:
        os.environ["TUILE_JUDGE_DROP_UID"] = "0"
        out["judge_drop_uid"] = False
        out["judge_root"] = _brief(run_submission(src, "transposition", opts))


def part_exploits(out: dict) -> None:
    deadline = time.monotonic() + min(SHARES["exploits"], _left())
    opts = RunOptions(mode=MODE, precheck=False, all_dtypes=False)
    honest = run_submission((EXPLOITS / "honest.py").read_text(), "transposition", opts)
    out["honest"] = _brief(honest)
    rows = out["rows"] = []
    _SAVE[0]()
    for path in sorted(EXPLOITS.glob("*.py")):
        if path.name == "honest.py" or (FIDELITY_ONLY and path.name not in FIDELITY_EXPLOITS):
            continue
        if time.monotonic() > deadline:
            rows.append({"name": path.name, "skipped": "budget de temps épuisé"})
            continue
        t = time.monotonic()
        r = run_submission(path.read_text(), "transposition", opts)
        row = {"name": path.name, **_brief(r), "seconds": round(time.monotonic() - t, 2)}
        if r.correct and honest.median_us and r.median_us:
            row["ok"] = r.median_us >= 0.99 * honest.median_us
        else:
            row["ok"] = not r.correct or MODE != "gpu"
        rows.append(row)
        _SAVE[0]()
    out["all_ok"] = bool(honest.correct) and all(r.get("ok") for r in rows if "skipped" not in r)


def _do_bench_us() -> float | None:
    if MODE != "gpu":
        return None
    import importlib.util

    import torch
    from triton.testing import do_bench

    path = get_exercise("transposition").file("reference")
    spec = importlib.util.spec_from_file_location("ref_transposition", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x = torch.randn(16384, 16384, device="cuda")
    y = torch.empty(16384, 16384, device="cuda")
    mod.custom_kernel(x, y)
    torch.cuda.synchronize()
    ms = do_bench(lambda: mod.custom_kernel(x, y), warmup=25, rep=100, return_mode="median")
    x = y = None   # noqa: F841  (freed before the next part)
    torch.cuda.empty_cache()
    return ms * 1e3


def part_fidelity(out: dict) -> None:
    deadline = time.monotonic() + min(SHARES["fidelity"], _left())
    src = get_exercise("transposition").file("reference")
    runs = out["cli_runs"] = []
    for i in range(5):
        if time.monotonic() > deadline:
            runs.append({"skipped": "budget de temps épuisé"})
            continue
        cmd = [sys.executable, "-m", "sandbox.cli", "run", str(src), "-e", "transposition",
               "--json", "--mode", MODE]
        t = time.monotonic()
        try:
            p = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True,
                               timeout=max(10.0, min(deadline - time.monotonic() + 30,
                                                     _left() - 5)))
        except subprocess.TimeoutExpired:
            runs.append({"rc": None, "wall_s": round(time.monotonic() - t, 2),
                         "skipped": "délai dépassé"})
            continue
        wall = time.monotonic() - t
        try:
            data = json.loads(p.stdout)
        except ValueError:
            data = {}
        runs.append({"rc": p.returncode, "wall_s": round(wall, 2), "correct": data.get("correct"),
                     "median_us": data.get("median_us"), "p10_us": data.get("p10_us"),
                     "p90_us": data.get("p90_us"), "pct_of_peak": data.get("pct_of_peak"),
                     "verdict": data.get("verdict"), "claimed_median_us": data.get("claimed_median_us"),
                     "batches_us": data.get("batches_us"),
                     "full_batches_us": data.get("full_batches_us"),
                     "short_batches_us": data.get("short_batches_us"),
                     "batch_fixed_us": data.get("batch_fixed_us"),
                     "capped_rounds": data.get("capped_rounds"),
                     "flush_us": data.get("flush_us"),
                     "claimed_span_per_call_us": data.get("claimed_span_per_call_us"),
                     "calls_per_batch": data.get("calls_per_batch"),
                     "timing_note": data.get("timing_note"),
                     "phases_s": data.get("phases_s"), "stderr": p.stderr[-600:],
                     "command": " ".join(cmd[1:])})
        _SAVE[0]()
    out["command"] = f"python3 -m sandbox.cli run {src.relative_to(REPO)} -e transposition --json"
    out["do_bench_us"] = _do_bench_us()
    meds = [r["median_us"] for r in runs if r.get("median_us")]
    if meds:
        med = statistics.median(meds)
        out["median_of_runs_us"] = med
        out["spread_pct"] = 100 * (max(meds) - min(meds)) / med
        out["max_wall_s"] = max(r["wall_s"] for r in runs if "wall_s" in r)
        if out["do_bench_us"]:
            out["vs_do_bench_pct"] = 100 * (med - out["do_bench_us"]) / out["do_bench_us"]
        out["ok"] = (len(meds) == 5 and out["spread_pct"] <= 2.0 and out["max_wall_s"] <= 10.0
                     and abs(out.get("vs_do_bench_pct", 0.0)) <= 3.0)


def part_queue(out: dict, alone_us: float | None) -> None:
    source = get_exercise("transposition").source("reference")
    spans, lock = [], threading.Lock()
    n = 10 if MODE == "gpu" else 3

    def one(i):
        events = []
        t0 = time.time()
        r = run_submission(source, "transposition", RunOptions(
            mode=MODE, all_dtypes=False, on_position=lambda p: events.append((time.time(), p))))
        t1 = time.time()
        start = next((t for t, p in events if p == 0), None)
        with lock:
            spans.append((start, t1))
        return {"i": i, "correct": r.correct, "error_kind": r.error_kind,
                "median_us": r.median_us, "gbps": r.gbps, "positions": [p for _, p in events],
                "wall_s": round(t1 - t0, 2), "gpu_index": r.gpu_index}

    with ThreadPoolExecutor(max_workers=n) as pool:
        rows = list(pool.map(one, range(n)))
    out["rows"] = rows
    spans = sorted(s for s in spans if s[0] is not None)
    out["overlaps"] = sum(1 for a, b in zip(spans, spans[1:]) if b[0] < a[1] - 0.05)
    out["alone_us"] = alone_us
    if alone_us and MODE == "gpu":
        devs = [abs(r["median_us"] - alone_us) / alone_us * 100 for r in rows if r["median_us"]]
        out["max_dev_pct"] = max(devs) if devs else None
        out["ok"] = (all(r["correct"] for r in rows) and out["overlaps"] == 0
                     and len(devs) == n and max(devs) <= 2.0)
    else:
        out["ok"] = all(r["correct"] for r in rows) and out["overlaps"] == 0


def _pytest(args: list[str], limit: float, parallel: bool = False) -> dict:
    if limit < 20:
        return {"skipped": "budget de temps épuisé"}
    if subprocess.run([sys.executable, "-c", "import pytest"], capture_output=True).returncode:
        return {"skipped": "pytest absent de cet hôte"}
    cmd = [sys.executable, "-m", "pytest", *args, "-q", "-p", "no:cacheprovider"]
    workers = os.environ.get("TUILE_BENCH_WORKERS") if parallel else None
    if workers and not subprocess.run([sys.executable, "-c", "import xdist"],
                                      capture_output=True).returncode:
        cmd += ["-n", workers]
    t = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=limit)
        return {"command": " ".join(cmd[1:]), "rc": p.returncode,
                "seconds": round(time.monotonic() - t, 1), "tail": p.stdout[-3000:]}
    except subprocess.TimeoutExpired as exc:
        tail = (exc.stdout or b"")
        tail = tail.decode(errors="replace") if isinstance(tail, bytes) else tail
        return {"command": " ".join(cmd[1:]), "rc": None, "timeout_s": limit, "tail": tail[-3000:]}


def part_pytest(out: dict) -> None:
    if os.environ.get("TUILE_BENCH_SKIP_PYTEST"):
        out["skipped"] = "TUILE_BENCH_SKIP_PYTEST"
        return
    # part 1 already ran the GPU exploit test's submissions: not twice
    out["gpu_tests"] = _pytest(["tests/sandbox", "-m", "gpu", "--deselect",
                                "tests/sandbox/test_exploits.py::"
                                "test_exploits_on_the_gpu_never_beat_the_honest_figure"],
                               _left() * 0.55)
    # its GPU attacks ran just above with -m gpu
    out["attacks"] = _pytest(["tests/sandbox/test_attacks.py", "-m", "not gpu"], _left() - 5,
                             parallel=True)


def _fmt(v, d=1):
    return "—" if v is None else (f"{v:.{d}f}" if isinstance(v, float) else str(v))


def _markdown(res: dict) -> str:
    title = "Judge clock fidelity on the GPU" if FIDELITY_ONLY else \
        "Judge/launcher trust acceptance on the GPU"
    flag = " --fidelity-only" if FIDELITY_ONLY else ""
    lines = [f"# {title} ({res['date']})", "",
             f"- device: {res.get('device')}; host: {res['host']}; python {res['python']}; "
             f"torch {res.get('torch')}; triton {res.get('triton')}",
             f"- command: `python3 bench/sandbox_trust_gpu.py{flag} OUTDIR` (mode {MODE}); "
             f"wall {res.get('wall_s')} s", ""]
    sm = res["parts"].get("smoke", {})
    if not FIDELITY_ONLY:
        lines += [f"Smoke run: judge with a uid of its own: {sm.get('own_uid', {}).get('correct')} "
                  f"({sm.get('own_uid', {}).get('error', '')[:200]}); judge kept root for the rest: "
                  f"{not sm.get('judge_drop_uid', True)}; "
                  f"{sm.get('own_uid', {}).get('judge_note', '')}", ""]
    ex = res["parts"].get("exploits", {})
    h = ex.get("honest", {})
    lines += ["## 1. Exploits, pre-check off (transposition fp32 16384²)", "",
              f"Honest kernel: median {_fmt(h.get('median_us'))} µs, "
              f"{_fmt(h.get('pct_of_peak'))} % of peak, claim {_fmt(h.get('claimed_median_us'))} µs, "
              f"span claim {_fmt(h.get('claimed_span_per_call_us'))} µs per call, "
              f"{h.get('calls_per_batch')} calls per full batch and {h.get('short_calls')} per short "
              f"one, implied fixed {_fmt(h.get('batch_fixed_us'))} µs (cap {_fmt(h.get('fixed_cap_us'), 0)}, "
              f"{h.get('capped_rounds')} rounds capped), flush {_fmt(h.get('flush_us'))} µs.", "",
              "| exploit | end | median µs | % peak | claim µs | ok |", "| --- | --- | --- | --- | --- | --- |"]
    for r in ex.get("rows", []):
        if "skipped" in r:
            lines.append(f"| {r['name']} | {r['skipped']} | | | | |")
            continue
        end = "correct" if r["correct"] else r["error_kind"]
        lines.append(f"| {r['name']} | {end} | {_fmt(r['median_us'])} | {_fmt(r['pct_of_peak'])} "
                     f"| {_fmt(r['claimed_median_us'])} | {'yes' if r.get('ok') else 'NO'} |")
    fi = res["parts"].get("fidelity", {})
    lines += ["", "## 2. Timing fidelity (CLI, five runs) against do_bench", "",
              f"Command: `{fi.get('command')}`; do_bench {_fmt(fi.get('do_bench_us'))} µs; median "
              f"of runs {_fmt(fi.get('median_of_runs_us'))} µs ({_fmt(fi.get('vs_do_bench_pct'), 2)} %); "
              f"spread {_fmt(fi.get('spread_pct'), 2)} %; longest report {_fmt(fi.get('max_wall_s'))} s; "
              f"ok: {fi.get('ok')}", "",
              "| run | median µs | p10 | p90 | claim µs | span claim µs/call | fixed µs | capped "
              "| flush µs | N | wall s |", "| --- " * 11 + "|"]
    for i, r in enumerate(fi.get("cli_runs", []), 1):
        lines.append(f"| {i} | {_fmt(r.get('median_us'))} | {_fmt(r.get('p10_us'))} | "
                     f"{_fmt(r.get('p90_us'))} | {_fmt(r.get('claimed_median_us'))} | "
                     f"{_fmt(r.get('claimed_span_per_call_us'))} | {_fmt(r.get('batch_fixed_us'))} | "
                     f"{r.get('capped_rounds')} | {_fmt(r.get('flush_us'))} | "
                     f"{r.get('calls_per_batch')} | {r.get('wall_s')} |")
    if FIDELITY_ONLY:
        for name, err in res.get("errors", {}).items():
            lines += ["", f"Part {name} failed: `{err.splitlines()[-1] if err else ''}`"]
        return "\n".join(lines) + "\n"
    q = res["parts"].get("queue", {})
    lines += ["", "## 3. Ten at once", "",
              f"overlaps {q.get('overlaps')}; max deviation from alone {_fmt(q.get('max_dev_pct'), 2)} %; "
              f"ok: {q.get('ok')}", ""]
    pt = res["parts"].get("pytest", {})
    for key in ("gpu_tests", "attacks"):
        r = pt.get(key, {})
        last = (r.get("tail") or "").strip().splitlines()[-1:] or [r.get("skipped", "")]
        lines.append(f"- `{r.get('command', key)}`: rc {r.get('rc')} — {last[0]}")
    for name, err in res.get("errors", {}).items():
        lines += ["", f"Part {name} failed: `{err.splitlines()[-1] if err else ''}`"]
    return "\n".join(lines) + "\n"


def main() -> int:
    args = [a for a in sys.argv[1:] if a != "--fidelity-only"]
    if "--budget" in args:
        i = args.index("--budget")
        del args[i:i + 2]
    outdir = Path(args[0] if args else os.environ.get("OUT", "."))
    stem = "trust-gpu-fidelity" if FIDELITY_ONLY else "trust-gpu"
    outdir.mkdir(parents=True, exist_ok=True)
    res = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "host": platform.node(), "python": platform.python_version(), "mode": MODE,
           "parts": {}, "errors": {}}
    try:
        import torch
        import triton
        res["torch"], res["triton"] = torch.__version__, triton.__version__
        if MODE == "gpu":
            res["device"] = torch.cuda.get_device_name(0)
    except Exception as exc:   # noqa: BLE001 - recorded, the parts say the rest
        res["errors"]["versions"] = repr(exc)

    def save():
        res["wall_s"] = round(time.monotonic() - T0, 1)
        (outdir / f"{stem}.json").write_text(json.dumps(res, indent=1, ensure_ascii=False))
        (outdir / f"{stem}.md").write_text(_markdown(res))

    _SAVE[0] = save
    alone = None
    parts = ((("fidelity", part_fidelity), ("exploits", part_exploits)) if FIDELITY_ONLY else
             (("smoke", part_smoke), ("exploits", part_exploits), ("fidelity", part_fidelity),
              ("queue", lambda o: part_queue(o, alone)), ("pytest", part_pytest)))
    for name, fn in parts:
        part = res["parts"][name] = {}
        t = time.monotonic()
        try:
            if _left() < 15:
                part["skipped"] = "budget de temps épuisé"
            else:
                fn(part)
        except BaseException:   # noqa: BLE001 - one part's failure must not lose the others
            res["errors"][name] = traceback.format_exc()[-3000:]
        part["seconds"] = round(time.monotonic() - t, 1)
        if name == "fidelity":
            alone = part.get("median_of_runs_us")
        save()
    print(_markdown(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
