"""Stability of the row-sum (reduction) reference on the GPU, and of a few alternatives.

    python3 bench/reduction_stability.py OUTDIR

Why: in the ten-at-once run of 2026-11-29 17:27 the reference's figure *alone* was
320.7 µs, against 254.0 µs together and 254.2 µs an hour earlier. This script asks
whether that submission's timing is bimodal, and which launch configuration is both
fast and stable:
1. each configuration of the reference kernel (rows per program, columns per step,
   warps), timed by ``triton.testing.do_bench`` (median) on 16384 × 16384 fp32, with a
   fresh input allocated for each of TRIALS trials (a different physical placement);
2. the sandbox's own figure (``run_submission``: a fresh worker process, so a fresh CUDA
   context and fresh allocations, each time) for the reference file and for the
   candidate launch configurations in SANDBOX_CONFIGS, RUNS times each, alternating.
Writes OUTDIR/reduction-stability.json and prints one line per measurement.
``--sandbox-only`` skips step 1.
"""
from __future__ import annotations

import datetime as dt
import importlib.util
import json
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sandbox.exercises import get_exercise  # noqa: E402
from sandbox.records import RunOptions  # noqa: E402
from sandbox.runner import run_submission  # noqa: E402

SHAPE = (16384, 16384)
TRIALS = 4
RUNS = int(os.environ.get("TUILE_BENCH_RUNS", "4"))
# (BLOCK_M, BLOCK_N, num_warps): an alternative launch, then the reference file's own
SANDBOX_CONFIGS = [(1, 2048, 4), (4, 1024, 4)]
CONFIGS = [   # (BLOCK_M, BLOCK_N, num_warps); the first is the reference file's own
    (4, 1024, 4), (1, 2048, 4), (1, 4096, 8), (2, 2048, 8), (8, 512, 4), (16, 256, 4),
    (4, 512, 4), (8, 1024, 8),
]


def _load_reference():
    path = ROOT / "sandbox" / "exercises" / "files" / "reduction" / "reference.py"
    spec = importlib.util.spec_from_file_location("reduction_reference", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _with_config(source: str, bm: int, bn: int, nw: int) -> str:
    """The reference file's source with its launch constants replaced."""
    import re

    source = re.sub(r"BLOCK_M = \d+", f"BLOCK_M = {bm}", source)
    source = re.sub(r"BLOCK_N=\d+", f"BLOCK_N={bn}", source)
    return re.sub(r"num_warps=\d+", f"num_warps={nw}", source)


def main(out: Path, sandbox_only: bool = False) -> None:
    import torch
    import triton

    out.mkdir(parents=True, exist_ok=True)
    res = {"date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
           "device": torch.cuda.get_device_name(0),
           "command": "python3 bench/reduction_stability.py $OUT",
           "versions": {"torch": torch.__version__, "triton": triton.__version__},
           "shape": list(SHAPE), "dtype": "float32",
           "bytes_counted": (SHAPE[0] * SHAPE[1] + SHAPE[0]) * 4, "configs": {}, "sandbox": []}
    save = lambda: (out / "reduction-stability.json").write_text(json.dumps(res, indent=1))  # noqa: E731
    kernel = _load_reference()._somme_lignes
    M, N = SHAPE
    for bm, bn, nw in ([] if sandbox_only else CONFIGS):
        meds = []
        for _ in range(TRIALS):
            x = torch.randn(SHAPE, device="cuda")
            o = torch.empty(M, device="cuda")
            fn = lambda: kernel[(triton.cdiv(M, bm),)](x, o, M, N, BLOCK_M=bm, BLOCK_N=bn,  # noqa: E731
                                                       num_warps=nw)
            fn()
            torch.cuda.synchronize()
            err = (o - x.sum(1)).abs().max().item()
            meds.append(1e3 * triton.testing.do_bench(fn, warmup=25, rep=100,
                                                      return_mode="median"))
            del x, o
            torch.cuda.empty_cache()
        gbps = [res["bytes_counted"] / (m * 1e-6) / 1e9 for m in meds]
        key = f"BLOCK_M={bm} BLOCK_N={bn} num_warps={nw}"
        res["configs"][key] = {"median_us": meds, "gbps": gbps, "max_abs_err": err,
                               "spread_pct": 100 * (max(meds) - min(meds)) / statistics.median(meds)}
        print(f"{key:36s} medians {[round(m, 1) for m in meds]} µs  "
              f"GB/s {[round(g) for g in gbps]}  spread {res['configs'][key]['spread_pct']:.1f} %",
              flush=True)
        save()
    src = get_exercise("reduction").source("reference")
    subs = {f"BLOCK_M={bm} BLOCK_N={bn} num_warps={nw}": _with_config(src, bm, bn, nw)
            for bm, bn, nw in SANDBOX_CONFIGS}
    for i in range(RUNS):
        for label, source in subs.items():
            r = run_submission(source, "reduction", RunOptions(mode="gpu", all_dtypes=False))
            res["sandbox"].append({"source": label, "median_us": r.median_us, "p10_us": r.p10_us,
                                   "p90_us": r.p90_us, "gbps": r.gbps,
                                   "pct_of_peak": r.pct_of_peak, "verdict": r.verdict,
                                   "correct": r.correct, "error": r.error[:300]})
            print(f"sandbox run {i + 1} [{label}]: {r.median_us} µs (p10 {r.p10_us}, p90 "
                  f"{r.p90_us}) {r.gbps} GB/s {r.pct_of_peak} % {r.verdict} "
                  f"correct={r.correct} {r.error[:200]}", flush=True)
            save()


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(Path(args[0] if args else "reduction-out"), sandbox_only="--sandbox-only" in sys.argv)
