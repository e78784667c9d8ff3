"""compute-sanitizer outputs quoted in pratique-03: the bounds bug run normally and under
memcheck (first report, number of errors), and the shared-memory race under racecheck,
without and with the barrier. Sources in ``sources/``, built with ``-lineinfo``.
"""
import re
import subprocess
import tempfile
from pathlib import Path

from guide_common import HERE, emit, nvcc_build, tool

SOURCES = HERE / "sources"


def run(cmd: list[str]) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    return (proc.stdout + proc.stderr).strip()


def first_report(text: str) -> list[str]:
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if re.match(r"=+ (Invalid|Error|Warning)", ln)), None)
    if start is None:
        return []
    report = [lines[start]]
    for ln in lines[start + 1:]:
        if not ln.startswith("=========     ") or "Saved host backtrace" in ln:
            break
        report.append(ln)
    return report


def summary(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if "SUMMARY" in ln or "hazard" in ln.lower()][-4:]


def main() -> None:
    sanitizer = tool("compute-sanitizer")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        oob = nvcc_build(SOURCES / "double_sans_bornes.cu", tmp / "double_sans_bornes", ["-lineinfo"])
        race = nvcc_build(SOURCES / "course_partagee.cu", tmp / "course", ["-lineinfo"])
        fixed = nvcc_build(SOURCES / "course_partagee.cu", tmp / "course_fixed", ["-lineinfo", "-DWITH_BARRIER"])
        plain = run([str(oob)])
        memcheck = run([sanitizer, "--tool", "memcheck", str(oob)])
        racecheck = run([sanitizer, "--tool", "racecheck", str(race)])
        racecheck_fixed = run([sanitizer, "--tool", "racecheck", str(fixed)])
    version = run([sanitizer, "--version"]).splitlines()
    emit("compute-sanitizer outputs", {
        "plain_run": plain,
        "memcheck_first_report": first_report(memcheck),
        "memcheck_summary": summary(memcheck),
        "racecheck_first_report": first_report(racecheck),
        "racecheck_summary": summary(racecheck),
        "racecheck_with_barrier_summary": summary(racecheck_fixed),
    }, {
        "sources": "bench/guide/sources/double_sans_bornes.cu, course_partagee.cu",
        "build": "nvcc -std=c++17 -O3 -arch=sm_90a -lineinfo", "compute_sanitizer": version[-1] if version else "?",
        "memcheck_input": "n = 1000 floats, grid 4 x 256", "racecheck_input": "one block of 256 threads",
    })


if __name__ == "__main__":
    main()
