"""Profile one submission: Nsight Compute on one call of ``custom_kernel``, then a diagnosis.

``profile_submission(source, exercise, *, dtype=None, ...) -> dict`` returns
``available`` (False when ncu is missing or failed, and ``reason`` says why in French),
``metrics`` (the figures that explain a memory-bound kernel, by short name), ``raw``
(ncu's own metric names and values, for the record), ``command``, ``kernels`` and
``diagnosis`` (``diagnosis.diagnose`` items, with links into the guide).

How: the submission and a job file go into a fresh scratch directory; the driver
(``python -m sandbox.profile.driver``) runs under ``ncu`` inside ``jail.run_isolated``, as
every submission does (``--profile-from-start off``): ncu profiles the first ``LAUNCHES``
launches of the second call, with ``--clock-control none`` (clocks as in the timed run)
and its default cache flush between replays.
"""
from __future__ import annotations

import dataclasses
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from sandbox.french import fr_number, fr_typo
from sandbox.jail import Limits, run_isolated
from sandbox.profile.diagnosis import diagnose
from sandbox.profile.ncu import (LAUNCHES, find_ncu, ncu_command, parse_ncu_csv, raw_record,
                                 summarise)


def profile_submission(source: str, exercise: str, *, dtype: str | None = None,
                       shape: tuple[int, ...] | None = None, report: dict | None = None,
                       limits: Limits | None = None, scratch_root: str | None = None,
                       ncu: str | None = None, keep_scratch: bool = False,
                       gpu_device: str | None = None) -> dict[str, Any]:
    """Profile one call of ``custom_kernel``; never raises for user faults.
    ``ncu``: its path; None looks for it, "" means none (feedback from timing only).
    ``gpu_device``: what the child's ``CUDA_VISIBLE_DEVICES`` holds (the slot's GPU)."""
    ncu = find_ncu() if ncu is None else ncu
    result: dict[str, Any] = {"available": False, "reason": "", "exercise": exercise,
                              "metrics": {}, "raw": [], "kernels": [], "command": ""}
    if not ncu:
        result["reason"] = "Nsight Compute (ncu) est introuvable sur cette machine"
        result["diagnosis"] = diagnose(result, report=report)
        return result
    scratch = Path(tempfile.mkdtemp(prefix="tuile-ncu-", dir=scratch_root))
    try:
        (scratch / "soumission.py").write_text(source, encoding="utf-8")
        job = {"exercise": exercise, "dtype": dtype, "shape": list(shape) if shape else None,
               "submission": str(scratch / "soumission.py")}
        (scratch / "profile-job.json").write_text(json.dumps(job))
        log = scratch / "ncu.csv"   # ncu's CSV goes there, apart from the program's output
        cmd = ncu_command(ncu) + ["--log-file", str(log), sys.executable, "-m",
                                  "sandbox.profile.driver", str(scratch / "profile-job.json")]
        result["command"] = " ".join(cmd)
        # ncu replays each launch once per counter pass (~40 passes for these sections):
        # a kernel of 1 ms costs well under a second; compile and start dominate.
        lim = limits or Limits(compile_timeout_s=120, run_timeout_s=120, cpu_time_s=300)
        # ncu adds its own processes and threads to the submission's.
        lim = dataclasses.replace(lim, max_processes=max(lim.max_processes, 256))
        repo = str(Path(__file__).resolve().parents[2])
        env = {"PYTHONPATH": repo, "TMPDIR": str(scratch / "tmp")}
        if gpu_device is not None:
            env["CUDA_VISIBLE_DEVICES"] = gpu_device
        run = run_isolated(cmd, scratch=scratch, limits=lim, env=env)
        for _ in range(3):   # an ncu older or newer than ours may lack a metric: drop it
            missing = re.findall(r"Failed to find metric (\S+)",
                                 run.stderr + run.stdout + _read_text(log))
            if not missing:
                break
            names = [n.strip("\"'.,") for n in missing]
            i = cmd.index("--metrics") + 1
            kept = [m for m in cmd[i].split(",") if m not in names]
            cmd[i] = ",".join(kept) or "gpu__time_duration.sum"
            result["command"] = " ".join(cmd)
            run = run_isolated(cmd, scratch=scratch, limits=lim, env=env)
        info = _read_json(scratch / "profile-info.json")
        result.update({k: v for k, v in info.items() if k in ("shape", "dtype", "ideal_bytes")})
        ncu_text = _read_text(log)
        rows = parse_ncu_csv(ncu_text) or parse_ncu_csv(run.stdout)
        if not rows:
            result["reason"] = _failure_reason(run, info, ncu_text)
        else:
            result["available"] = True
            result["kernels"] = [r.get("Kernel Name", "") for r in rows]
            result["raw"] = [raw_record(r) for r in rows]
            result["metrics"] = summarise(rows)
            if info.get("ideal_bytes"):
                result["metrics"]["ideal_bytes"] = info["ideal_bytes"]
            if len(rows) >= LAUNCHES:
                result["note"] = (f"seuls les {fr_number(LAUNCHES, 0)} premiers lancements "
                                  "de l'appel sont profilés")
    finally:
        if not keep_scratch:
            shutil.rmtree(scratch, ignore_errors=True)
    result["diagnosis"] = diagnose(result, report=report)
    return result


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def _read_text(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def _failure_reason(run, info: dict, ncu_text: str) -> str:
    return fr_typo(_failure_text(run, info, ncu_text))


def _failure_text(run, info: dict, ncu_text: str) -> str:
    text = run.stderr + run.stdout + ncu_text
    if "ERR_NVGPUCTRPERM" in text:
        return ("le profileur n'a pas accès aux compteurs du GPU (ERR_NVGPUCTRPERM : "
                "profilage réservé aux administrateurs sur cette machine)")
    if run.timed_out or run.killed_reason:
        return f"profilage interrompu : {run.killed_reason}"
    if info.get("error"):
        return f"la soumission a échoué pendant le profilage : {info['error']}"
    if "No kernels were profiled" in text:
        return "aucun noyau n'a été lancé pendant l'appel profilé"
    tail = text.strip().splitlines()[-3:]
    return "ncu n'a rendu aucun chiffre" + (f" ({' / '.join(tail)[:300]})" if tail else "")
