"""Helpers shared by the guide's Python measurements (torch, triton, stdlib only).

Each script prints ONE JSON line: its figures plus the conditions they were taken in
(device, driver, dtype, size, bytes counted, repetitions). ``run_all.py`` collects them.
"""
from __future__ import annotations

import json
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def smi_query(field: str) -> str:
    """One ``nvidia-smi --query-gpu`` field of GPU 0 (NVML underneath), or "unknown"."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return "unknown"
    proc = subprocess.run([smi, f"--query-gpu={field}", "--format=csv,noheader,nounits"],
                          capture_output=True, text=True, timeout=30)
    return proc.stdout.strip().splitlines()[0].strip() if proc.returncode == 0 and proc.stdout.strip() else "unknown"


def driver_version() -> str:
    return smi_query("driver_version")


def device_info() -> dict:
    import torch

    info = {"driver": driver_version(), "torch": torch.__version__, "python": sys.version.split()[0]}
    try:
        import triton
        info["triton"] = triton.__version__
    except ImportError:
        info["triton"] = "absent"
    if torch.cuda.is_available():
        p = torch.cuda.get_device_properties(0)
        info.update(name=p.name, sms=p.multi_processor_count, cc=f"{p.major}.{p.minor}",
                    cuda=torch.version.cuda)
    else:
        info["name"] = "no GPU"
    return info


def emit(figure: str, figures: dict, conditions: dict) -> None:
    print(json.dumps({"figure": figure, "device": device_info(), **figures,
                      "conditions": conditions}, ensure_ascii=False), flush=True)


def events_us(fn, warmup: int, reps: int, sync_each: bool = False) -> list[float]:
    """Per-call GPU times in µs, one event pair per call, one synchronisation at the end
    (or after every call when ``sync_each``)."""
    import torch

    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    pairs = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        pairs.append((a, b))
        if sync_each:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    return [1000.0 * a.elapsed_time(b) for a, b in pairs]


def median(values) -> float:
    return statistics.median(values)


def nvcc_build(source: Path, out: Path, extra: list[str] | None = None) -> Path:
    """Compile one .cu of this folder with the guide's flags; raise with nvcc's message."""
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    cmd = [nvcc, "-std=c++17", "-O3", "-arch=sm_90a", "-I", str(HERE), str(source), "-o", str(out)]
    cmd += extra or []
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    if proc.returncode != 0:
        raise RuntimeError(f"nvcc failed: {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    return out


def tool(name: str) -> str:
    """Path of a CUDA tool (ncu, compute-sanitizer, cuobjdump), PATH first."""
    found = shutil.which(name)
    if found:
        return found
    for base in ("/usr/local/cuda/bin", "/usr/local/cuda/compute-sanitizer", "/opt/nvidia/nsight-compute"):
        cand = Path(base) / name
        if cand.exists():
            return str(cand)
    raise FileNotFoundError(f"{name} not found on PATH nor under /usr/local/cuda")


# Nsight Compute may scale units even when asked for base ones: times to ns, sizes to bytes.
_UNIT_SCALE = {"nsecond": 1.0, "usecond": 1e3, "msecond": 1e6, "second": 1e9,
               "byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9,
               "KB": 1e3, "MB": 1e6, "GB": 1e9}


def ncu_metrics(cmd: list[str], metrics: list[str], kernel_regex: str, timeout: int = 240) -> dict:
    """Profile every launch of the kernels matching ``kernel_regex`` in ``cmd`` with Nsight
    Compute (``--clock-control none``, raw page, base units) and return {kernel: {metric:
    value}}, times in ns, sizes in bytes. A kernel launched several times keeps its last launch."""
    import csv
    import io
    import time

    ncu = tool("ncu")
    full = [ncu, "--clock-control", "none", "--print-units", "base", "--csv", "--page", "raw",
            "--target-processes", "all", "--kernel-name", f"regex:{kernel_regex}",
            "--metrics", ",".join(metrics), *cmd]
    t0 = time.perf_counter()
    proc = subprocess.run(full, capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"ncu failed ({proc.returncode}): {(proc.stderr or proc.stdout)[-2000:]}")
    rows = list(csv.reader(io.StringIO("\n".join(ln for ln in proc.stdout.splitlines() if ln.startswith('"')))))
    if not rows or "Kernel Name" not in rows[0]:
        raise RuntimeError("ncu printed no CSV table:\n" + proc.stdout[-2000:])
    header, body = rows[0], rows[1:]
    k = header.index("Kernel Name")
    units = body.pop(0) if body and not body[0][k] else [""] * len(header)
    out: dict = {}
    for row in body:
        name = row[k].split("(")[0].replace("void ", "").strip()
        values = {}
        for col, metric in enumerate(header):
            if metric in metrics:
                raw = row[col].replace(",", "")
                try:
                    values[metric] = float(raw) * _UNIT_SCALE.get(units[col], 1.0)
                except ValueError:
                    values[metric] = raw
        out[name] = values
    if not out:
        raise RuntimeError("ncu returned no kernel rows:\n" + proc.stdout[-2000:])
    passes = re.findall(r'==PROF== Profiling "([^"]+)".*?(\d+) pass', proc.stdout + proc.stderr)
    out["_passes"] = {name.split("(")[0].replace("void ", "").strip(): int(n) for name, n in passes}
    out["_ncu_wall_s"] = wall
    out["_ncu_command"] = " ".join(full[:-len(cmd)]) + " …"
    return out
