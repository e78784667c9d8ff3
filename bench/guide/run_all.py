"""Run every measurement of the guide on one GPU host and record the figures.

    python3 bench/guide/run_all.py OUTDIR [--only a,b] [--budget SECONDS]

Each script (``*.cu`` built with nvcc -std=c++17 -O3 -arch=sm_90a, or ``*.py`` run with this
interpreter) prints one JSON line; each runs under its own time limit, a failure is recorded
and the run goes on. Writes ``OUTDIR/guide-figures-h200.json`` (everything, full precision)
and ``OUTDIR/guide-figures-h200.md`` (date, device, command and figures of every script),
plus ``OUTDIR/logs/`` (each script's stdout and stderr); binaries are built in a temporary folder.
Needs torch, triton, nvcc, ncu, compute-sanitizer and cuobjdump; nothing else. The chapters
quote the record once it is committed as ``bench/results/<date>-guide-figures-h200.*``.
"""
from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
STEM = "guide-figures-h200"

# (script, time limit in s). Order: cheap and independent first; the whole list took
# about 2–3 min of a 6 min window in the estimate that set these limits.
MANIFEST: list[tuple[str, int]] = [
    ("device_props.cu", 60),
    ("launch_cuda.cu", 60),
    ("launch_torch.py", 60),
    ("measuring.py", 60),
    ("copy_ceiling.py", 90),
    ("host_device_copies.py", 60),
    ("divergence.cu", 60),
    ("atomics.cu", 60),
    ("coalescing.cu", 60),
    ("occupancy_ilp.cu", 60),
    ("waves.cu", 60),
    ("bank_conflicts.cu", 60),
    ("transpose_cuda.cu", 60),
    ("gemm_cuda.cu", 60),
    ("transpose_triton.py", 120),
    ("ncu_transpose_cuda.py", 120),
    ("ncu_transpose_triton.py", 120),
    ("sanitizer.py", 120),
    ("sass_counts.py", 120),
    ("chapter_programs.py", 200),
]


def _library_path() -> str:
    """CUDA libraries of the toolkit and of torch's wheels (cuBLAS is opened at run time)."""
    dirs = [Path("/usr/local/cuda/lib64")]
    spec = importlib.util.find_spec("nvidia")
    for base in (spec.submodule_search_locations or []) if spec else []:
        dirs += sorted(Path(base).glob("*/lib"))
    torch_spec = importlib.util.find_spec("torch")
    if torch_spec and torch_spec.origin:
        dirs.append(Path(torch_spec.origin).parent / "lib")
    found = [str(d) for d in dirs if d.is_dir()]
    old = os.environ.get("LD_LIBRARY_PATH")
    return ":".join(found + ([old] if old else []))


def _nvcc() -> str:
    return shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"


def _nvcc_flags(source: Path) -> list[str]:
    for line in source.read_text(encoding="utf-8").splitlines()[:3]:
        if line.startswith("// nvcc-flags:"):
            return line.split(":", 1)[1].split()
    return []


def _commands(name: str, build: Path) -> tuple[list[list[str]], list[str]]:
    """(build steps, run command) of one script."""
    src = HERE / name
    if name.endswith(".cu"):
        binary = build / src.stem
        compile_cmd = [_nvcc(), "-std=c++17", "-O3", "-arch=sm_90a", "-I", str(HERE), str(src), "-o", str(binary),
                       *_nvcc_flags(src)]
        return [compile_cmd], [str(binary)]
    return [], [sys.executable, str(src)]


def _last_json(text: str):
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                return None
    return None


def _rel(cmd: list[str], build: Path) -> str:
    """A command as the record shows it: repository-relative, BUILD for the binaries' folder."""
    shown = {_nvcc(): "nvcc", sys.executable: "python3"}
    text = " ".join(shown.get(c, c) for c in cmd)
    return text.replace(str(build), "BUILD").replace(str(ROOT) + "/", "")


def _run(cmd: list[str], timeout: float, env: dict) -> tuple[int, str, str]:
    """Run in its own process group, so that a time-out also ends what it started (ncu's
    target, compute-sanitizer's child)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            cwd=ROOT, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise subprocess.TimeoutExpired(cmd, timeout, output=out, stderr=err)
    return proc.returncode, out, err


def run_one(name: str, limit: int, build: Path, logs: Path, env: dict) -> dict:
    steps, run_cmd = _commands(name, build)
    record = {"script": f"bench/guide/{name}", "time_limit_s": limit,
              "command": " && ".join(_rel(c, build) for c in [*steps, run_cmd])}
    t0 = time.perf_counter()
    out_text, err_text, rc = "", "", None
    try:
        for cmd in steps:
            code, _, build_err = _run(cmd, limit, env)
            if code != 0:
                rc, err_text = code, "build failed: " + build_err
                break
        if rc is None:
            left = max(5, limit - (time.perf_counter() - t0))
            rc, out_text, err_text = _run(run_cmd, left, env)
    except subprocess.TimeoutExpired as exc:
        rc = "timeout"
        out_text = exc.output or ""
        err_text = f"ran past its {limit} s limit\n" + (exc.stderr or "")[-1000:]
    record["wall_s"] = round(time.perf_counter() - t0, 2)
    record["rc"] = rc
    (logs / f"{name}.out").write_text(out_text[-200_000:], encoding="utf-8")
    (logs / f"{name}.err").write_text(err_text[-200_000:], encoding="utf-8")
    figures = _last_json(out_text) if rc == 0 else None
    record["ok"] = figures is not None
    record["figures"] = figures
    if not record["ok"]:
        record["error"] = (err_text or out_text or "no JSON line on stdout").strip()[-1500:]
    return record


class _ClockSampler:
    """Samples the GPU's SM clock, temperature and power every 2 s while the scripts run
    (nvidia-smi, i.e. NVML), so the record says what the card did during the measurements."""

    FIELDS = "clocks.sm,clocks.max.sm,temperature.gpu,power.draw"

    def __init__(self):
        self.samples: list[list[float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self):
        smi = shutil.which("nvidia-smi")
        while smi and not self._stop.is_set():
            q = subprocess.run([smi, f"--query-gpu={self.FIELDS}", "--format=csv,noheader,nounits"],
                               capture_output=True, text=True, timeout=30)
            try:
                self.samples.append([float(v) for v in q.stdout.strip().splitlines()[0].split(",")])
            except (ValueError, IndexError):
                pass
            self._stop.wait(2.0)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=35)

    def record(self, wall_s: float) -> dict:
        rec = {"script": "bench/guide/run_all.py", "time_limit_s": None, "wall_s": wall_s,
               "command": "nvidia-smi --query-gpu=" + self.FIELDS + " every 2 s during the run", "rc": 0}
        if not self.samples:
            return {**rec, "ok": False, "figures": None, "error": "nvidia-smi gave no samples"}
        cols = list(zip(*self.samples))
        figures = {"samples": len(self.samples),
                   "sm_clock_MHz_max": max(cols[0]), "sm_clock_MHz_median": statistics.median(cols[0]),
                   "sm_clock_max_of_card_MHz": max(cols[1]),
                   "temperature_C_max": max(cols[2]), "power_W_max": max(cols[3]),
                   "conditions": {"source": "nvidia-smi (NVML)", "period_s": 2}}
        return {**rec, "ok": True, "figures": figures}


def _host_facts() -> dict:
    facts = {"python": platform.python_version(), "host": platform.node()}
    smi = shutil.which("nvidia-smi")
    if smi:
        q = subprocess.run([smi, "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30)
        if q.returncode == 0 and q.stdout.strip():
            name, driver, memory = [s.strip() for s in q.stdout.strip().splitlines()[0].split(",")]
            facts.update(gpu=name, driver=driver, gpu_memory=memory)
    v = subprocess.run([_nvcc(), "--version"], capture_output=True, text=True) if Path(_nvcc()).exists() else None
    facts["nvcc"] = v.stdout.strip().splitlines()[-2] if v and v.returncode == 0 else "absent"
    for mod in ("torch", "triton"):
        try:
            facts[mod] = __import__(mod).__version__
        except ImportError:
            facts[mod] = "absent"
    return facts


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}" if abs(v) < 1e6 else f"{v:.6g}"
    return json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict)) else str(v)


def _flatten(prefix: str, value, rows: list) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(f"{prefix}.{k}" if prefix else k, v, rows)
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        for i, v in enumerate(value):
            _flatten(f"{prefix}[{i}]", v, rows)
    else:
        rows.append((prefix, _fmt(value)))


def write_markdown(path: Path, record: dict) -> None:
    h = record["host"]
    lines = [f"# Guide figures on {h.get('gpu', 'unknown GPU')}, {record['date']}", "",
             f"Command: `{record['command']}` ({record['total_wall_s']} s, "
             f"{sum(r['ok'] for r in record['results'])}/{len(record['results'])} scripts recorded).", "",
             "| host fact | value |", "| --- | --- |"]
    lines += [f"| {k} | {v} |" for k, v in h.items()]
    lines += ["", "Every chapter that quotes one of these figures names its script; the JSON beside this file "
              "holds the same values at full precision.", ""]
    for r in record["results"]:
        lines += [f"## {r['script']}", "", f"- command: `{r['command']}`",
                  f"- status: {'recorded' if r['ok'] else 'FAILED (rc ' + str(r['rc']) + ')'}, "
                  f"{r['wall_s']} s" + (f" of a {r['time_limit_s']} s limit" if r["time_limit_s"] else ""), ""]
        if r["ok"]:
            rows: list = []
            figures = dict(r["figures"])
            conditions = figures.pop("conditions", {})
            device = figures.pop("device", {})
            figures.pop("figure", None)
            _flatten("", figures, rows)
            lines += ["| figure | value |", "| --- | --- |"]
            lines += [f"| `{k}` | {v.replace('|', '/')} |" for k, v in rows]
            cond_rows: list = []
            _flatten("", {"device": device, **conditions}, cond_rows)
            lines += ["", "Conditions: " + "; ".join(f"{k} = {v}" for k, v in cond_rows), ""]
        else:
            lines += ["```text", r.get("error", "")[-800:], "```", ""]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir", type=Path)
    ap.add_argument("--only", default="", help="comma-separated script names (stem or file name)")
    ap.add_argument("--budget", type=float, default=340.0, help="stop starting scripts after this many seconds")
    args = ap.parse_args(argv)
    wanted = {s.strip() for s in args.only.split(",") if s.strip()}
    manifest = [(n, t) for n, t in MANIFEST if not wanted or n in wanted or Path(n).stem in wanted]
    unknown = wanted - {n for n, _ in MANIFEST} - {Path(n).stem for n, _ in MANIFEST}
    if unknown:
        print(f"unknown scripts: {sorted(unknown)}; known: {[n for n, _ in MANIFEST]}", file=sys.stderr)
        return 2
    out = args.outdir.resolve()
    # Binaries go to a temporary folder, so that only the record and the logs land in OUTDIR.
    build, logs = Path(tempfile.mkdtemp(prefix="guide-build-")), out / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "LD_LIBRARY_PATH": _library_path(), "PYTHONUNBUFFERED": "1"}
    started = time.perf_counter()
    results = []
    sampler = _ClockSampler()
    with sampler:
        _run_manifest(manifest, args.budget, started, build, logs, env, results)
    results.append(sampler.record(round(time.perf_counter() - started, 1)))
    shutil.rmtree(build, ignore_errors=True)
    record = {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": "python3 bench/guide/run_all.py " + " ".join(
            ([f"--only {args.only}"] if args.only else []) + ["OUTDIR"]),
        "total_wall_s": round(time.perf_counter() - started, 1),
        "host": _host_facts(),
        "results": results,
    }
    (out / f"{STEM}.json").write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    write_markdown(out / f"{STEM}.md", record)
    print(f"{sum(r['ok'] for r in results)}/{len(results)} recorded -> {out / (STEM + '.md')}")
    return 0 if all(r["ok"] for r in results if r["script"] != "bench/guide/run_all.py") else 1


def _run_manifest(manifest, budget, started, build, logs, env, results) -> None:
    for name, limit in manifest:
        spent = time.perf_counter() - started
        if spent > budget:
            results.append({"script": f"bench/guide/{name}", "time_limit_s": limit, "command": "", "wall_s": 0,
                            "rc": "skipped", "ok": False, "figures": None,
                            "error": f"not started: the run's budget of {budget:.0f} s was spent"})
            continue
        r = run_one(name, limit, build, logs, env)
        print(f"{'ok ' if r['ok'] else 'FAIL'} {name} ({r['wall_s']} s)", flush=True)
        results.append(r)


if __name__ == "__main__":
    sys.exit(main())
