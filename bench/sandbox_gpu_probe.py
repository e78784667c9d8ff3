"""Probe on the GPU host what sandbox.jail can use there (part 2, issue 9).

Run on the H200:  python3 bench/sandbox_gpu_probe.py OUTDIR
Writes OUTDIR/probe.json; prints a summary. Standard library + torch/triton only.
"""
from __future__ import annotations

import json
import re
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from sandbox.jail import Limits, isolation_layers, run_isolated  # noqa: E402
from sandbox.jail.resources import cgroup_kind  # noqa: E402

KERNEL = '''
import torch, triton, triton.language as tl
@triton.jit
def add_kernel(x, y, o, n, B: tl.constexpr):
    offs = tl.program_id(0) * B + tl.arange(0, B)
    m = offs < n
    tl.store(o + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)
n = 1 << 24
x = torch.randn(n, device="cuda"); y = torch.randn_like(x); o = torch.empty_like(x)
add_kernel[(triton.cdiv(n, 1024),)](x, y, o, n, B=1024)
torch.cuda.synchronize()
print("gpu-ok", bool(torch.allclose(o, x + y)), torch.cuda.get_device_name(0))
'''
NCU = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
METRICS = ",".join([
    "dram__throughput.avg.pct_of_peak_sustained_elapsed", "dram__bytes_read.sum",
    "dram__bytes_write.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active", "launch__waves_per_multiprocessor"])
NCU_ARGS = [NCU, "--clock-control", "none", "--kernel-name", "regex:add_kernel",
            "--launch-count", "1", "--section", "SpeedOfLight", "--section", "Occupancy",
            "--section", "LaunchStats", "--section", "WarpStateStats",
            "--section", "MemoryWorkloadAnalysis", "--metrics", METRICS, "--csv",
            "--page", "raw"]


def sh(cmd, **kw):
    t = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)
    except (OSError, subprocess.SubprocessError) as exc:
        return {"cmd": str(cmd[0]), "rc": None, "out": "", "err": str(exc), "s": 0}
    return {"cmd": " ".join(map(str, cmd))[:300], "rc": p.returncode,
            "out": p.stdout[-6000:], "err": p.stderr[-3000:], "s": round(time.monotonic() - t, 2)}


def isolated(code: str, limits=Limits(), argv_prefix=()):
    d = Path(tempfile.mkdtemp(prefix="tuile-probe-"))
    (d / "k.py").write_text(code)
    r = run_isolated([*argv_prefix, sys.executable, str(d / "k.py")], scratch=d, limits=limits,
                     env={"PYTHONPATH": str(REPO)})
    return {"rc": r.returncode, "out": r.stdout[-6000:], "err": r.stderr[-3000:],
            "reason": r.killed_reason, "timed_out": r.timed_out, "s": round(r.wall_s, 2)}


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    res = {"layers": isolation_layers(), "euid": os.geteuid(),
           "cgroup": Path("/proc/self/cgroup").read_text(),
           "cgroup_root": sorted(os.listdir("/sys/fs/cgroup")),
           "unshare_user": sh(["unshare", "--user", "--map-root-user", "true"]),
           "setpriv": shutil.which("setpriv"), "ncu": NCU,
           "dev_nvidia": sorted(p.name for p in Path("/dev").glob("nvidia*"))}
    res["gpu_in_sandbox"] = isolated(KERNEL)
    res["ncu_root_bare"] = sh(NCU_ARGS + [sys.executable, "-c", KERNEL])
    res["ncu_in_sandbox"] = isolated(KERNEL, argv_prefix=NCU_ARGS)
    if shutil.which("setpriv"):
        res["ncu_root_nocaps"] = sh(["setpriv", "--inh-caps=-all", "--bounding-set=-all",
                                     *NCU_ARGS, sys.executable, "-c", KERNEL])
    os.environ["TUILE_SANDBOX_NO_CGROUP"] = "1"
    cgroup_kind.cache_clear()
    res["gpu_rlimit_data_no_cgroup"] = isolated(KERNEL)
    res["hog_no_cgroup"] = isolated("b=[]\nfor _ in range(64): b.append(bytearray(64<<20))\n"
                                    "print('alloué')", Limits(memory_bytes=1 << 30))
    del os.environ["TUILE_SANDBOX_NO_CGROUP"]
    cgroup_kind.cache_clear()
    res["hog_cgroup"] = isolated("b=[]\nfor _ in range(64): b.append(bytearray(64<<20))\n"
                                 "print('alloué')", Limits(memory_bytes=1 << 30))
    res["query_metrics"] = sh([NCU, "--query-metrics", "--chip", "gh100"])
    res["query_metrics"]["out"] = "\n".join(
        l for l in res["query_metrics"]["out"].splitlines() if re.search(
            r"bank_conflicts|wavefronts_mem_shared|maximum_warps|inst_executed_op_shared|"
            r"issue_stalled_long|waves_per|occupancy_limit", l))[:6000]
    try:
        from sandbox.exercises import get_exercise
        from sandbox.profile import profile_submission
        ex = get_exercise("transposition")
        for kind in ("naive", "reference"):
            p = profile_submission(ex.source(kind), "transposition", shape=(8192, 8192),
                                   keep_scratch=False)
            (out / f"profile-{kind}.json").write_text(json.dumps(p, indent=1, ensure_ascii=False))
            print(f"== profile {kind}: available={p['available']} reason={p['reason']}")
            print(json.dumps(p["metrics"], indent=0)[:1500])
            for it in p["diagnosis"]:
                print(" -", it["code"], ":", it["detail"][:200])
    except Exception as exc:
        import traceback; traceback.print_exc()
    out.mkdir(parents=True, exist_ok=True)
    (out / "probe.json").write_text(json.dumps(res, indent=1, ensure_ascii=False))
    for k, v in res.items():
        if isinstance(v, dict) and "rc" in v:
            print(f"== {k}: rc={v['rc']} {v.get('reason', '')} {v['s']}s")
            print((v["out"][-600:] + "\n" + v["err"][-800:]).strip())
        else:
            print(f"== {k}: {v}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "probe-out"))
