"""Run the complete example programs of the chapters that say they ran on the project's
GPU (cuda-moderne-01…08, pratique-02, pratique-04, megakernels-08) and record, for each,
whether it built, its exit status and the last lines it printed.

CUDA blocks (``cuda`` fences not starting with ``// fragment``) are built with
``nvcc -std=c++17 -O3 -arch=sm_90a`` (retried with ``-lcuda`` when the link needs the driver
API); Python blocks that import torch and do not start with ``# fragment`` run with this
interpreter. Each program gets 60 s; after 110 s the rest are recorded as skipped.
"""
import re
import shutil
import time
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from guide_common import HERE, emit

CORPUS = HERE.parent.parent / "corpus"
CHAPTERS = [
    "04-cuda-moderne/01-hopper-et-blackwell.md", "04-cuda-moderne/02-clusters-dsmem.md",
    "04-cuda-moderne/03-mbarrier.md", "04-cuda-moderne/04-tma.md", "04-cuda-moderne/05-tensor-cores.md",
    "04-cuda-moderne/06-specialisation-des-warps.md", "04-cuda-moderne/08-lancer-moins-cher.md",
    "09-pratique/02-environnement.md", "09-pratique/04-integrer-dans-pytorch.md",
    "08-megakernels/08-ecrire-le-sien.md",
]
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```\s*$", re.M | re.S)
TIMEOUT = 60
BUDGET_S = 110      # programs not started by then are recorded as skipped (runner limit: 200 s)


def programs():
    for rel in CHAPTERS:
        text = (CORPUS / rel).read_text(encoding="utf-8")
        for n, m in enumerate(FENCE.finditer(text)):
            lang, body = m.group(1).strip(), m.group(2)
            first = body.lstrip().splitlines()[0] if body.strip() else ""
            if lang == "cuda" and not first.startswith("// fragment") and "int main" in body:
                yield rel, n, "cuda", body
            elif lang == "python" and not first.startswith("# fragment") and "import torch" in body:
                yield rel, n, "python", body


def tail(text: str, lines: int = 6) -> list[str]:
    return [ln for ln in text.strip().splitlines()[-lines:]]


def _link_variants():
    """No extra library first; then the driver API (cuTensorMapEncodeTiled), wherever it is."""
    yield []
    yield ["-lcuda"]
    for stubs in ("/usr/local/cuda/lib64/stubs", "/usr/local/cuda/targets/x86_64-linux/lib/stubs"):
        if Path(stubs).is_dir():
            yield ["-L" + stubs, "-lcuda"]
    for lib in sorted(Path("/usr/lib").glob("*/libcuda.so.1")) + sorted(Path("/usr/lib64").glob("libcuda.so.1")):
        yield ["-Xlinker", str(lib)]


def build(job, tmp: Path):
    rel, n, lang, body = job
    stem = f"{Path(rel).stem}_{n}"
    if lang == "python":
        script = tmp / f"{stem}.py"
        script.write_text(body, encoding="utf-8")
        return job, [sys.executable, str(script)], None
    src, exe = tmp / f"{stem}.cu", tmp / stem
    src.write_text(body, encoding="utf-8")
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    base = [nvcc, "-std=c++17", "-O3", "-arch=sm_90a", str(src), "-o", str(exe)]
    for extra in _link_variants():
        proc = subprocess.run(base + extra, capture_output=True, text=True, timeout=240)
        if proc.returncode == 0:
            return job, [str(exe)], None
    return job, None, tail(proc.stderr, 8)


def main() -> None:
    jobs = list(programs())
    results = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        with ThreadPoolExecutor(max_workers=8) as pool:
            built = list(pool.map(lambda j: build(j, Path(tmp)), jobs))
        for (rel, n, lang, _), cmd, build_error in built:
            entry = {"chapter": rel, "block": n, "language": lang}
            if cmd is None:
                entry.update(built=False, build_error=build_error, ok=False)
            elif time.perf_counter() - started > BUDGET_S:
                entry.update(built=True, rc="skipped", ok=False)
            else:
                try:
                    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, cwd=tmp)
                    entry.update(built=True, rc=proc.returncode, stdout_tail=tail(proc.stdout),
                                 stderr_tail=tail(proc.stderr, 4) if proc.returncode else [],
                                 ok=proc.returncode == 0)
                except subprocess.TimeoutExpired:
                    entry.update(built=True, rc="timeout", ok=False)
            results.append(entry)
    emit("chapter example programs on the GPU", {
        "programs": results, "ran_ok": sum(r["ok"] for r in results), "total": len(results),
    }, {
        "cuda_build": "nvcc -std=c++17 -O3 -arch=sm_90a (then -lcuda if the link needs it)",
        "python": sys.executable, "time_limit_per_program_s": TIMEOUT, "chapters": CHAPTERS,
    })


if __name__ == "__main__":
    main()
