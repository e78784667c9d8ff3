"""ptxas reports and SASS instruction counts read in pratique-05 (no GPU needed, but run
with the GPU host's toolchain so that the record matches what the guide's readers get):
registers, stack and spills of ``sources/sass_kernels.cu`` (and under -maxrregcount=24),
LDG/STL/LDL/HMMA counts from cuobjdump, and a Triton fp16 GEMM tile (128 x 128, K = 256 by
64, 8 warps) compiled for sm_80 and sm_90a, with and without 16-byte divisibility hints.
"""
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

from guide_common import HERE, emit, tool

SOURCES = HERE / "sources"
PATTERNS = {
    "LDG.E.128.CONSTANT": r"\bLDG\.E\.128\.CONSTANT\b",
    "LDG.E.128": r"\bLDG\.E\.128\b",
    "LDG.E (32-bit)": r"\bLDG\.E(\.CONSTANT)? ",
    "LDG.E.U16": r"\bLDG\.E\.U16\b",
    "STG.E.128": r"\bSTG\.E\.128\b",
    "STL": r"\bSTL\b",
    "LDL": r"\bLDL\b",
    "HMMA.16816.F32": r"\bHMMA\.16816\.F32\b",
    "HGMMA": r"\bHGMMA\.",
    "HGMMA.64x128x16.F32": r"\bHGMMA\.64x128x16\.F32\b",
    "LDSM": r"\bLDSM\b",
    "LDGSTS.E.BYPASS.128": r"\bLDGSTS\.E\.BYPASS\.128\b",
    "LDGSTS": r"\bLDGSTS\b",
}


@triton.jit
def mm(a_ptr, b_ptr, c_ptr, K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


def cuobjdump() -> str:
    try:
        return tool("cuobjdump")
    except FileNotFoundError:
        bundled = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
        return str(bundled)


def sass(path: Path, function: str | None = None) -> str:
    cmd = [cuobjdump(), "--dump-sass", str(path)]
    if function:
        cmd[2:2] = ["--function", function]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-1000:])
    return proc.stdout


def counts(text: str) -> dict:
    return {name: len(re.findall(rx, text)) for name, rx in PATTERNS.items() if re.search(rx, text)}


def ptxas_report(text: str) -> dict:
    report = {}
    for block in re.split(r"(?=ptxas info\s+: Function properties for )", text):
        m = re.match(r"ptxas info\s+: Function properties for (\S+)", block)
        if not m:
            continue
        entry = {}
        for key, rx in (("stack_bytes", r"(\d+) bytes stack frame"), ("spill_stores_bytes", r"(\d+) bytes spill stores"),
                        ("spill_loads_bytes", r"(\d+) bytes spill loads"), ("registers", r"Used (\d+) registers"),
                        ("smem_bytes", r"(\d+) bytes smem")):
            found = re.search(rx, block)
            entry[key] = int(found.group(1)) if found else 0
        report[m.group(1)] = entry
    return report


def nvcc_object(src: Path, out: Path, extra: list[str]) -> dict:
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    cmd = [nvcc, "-std=c++17", "-arch=sm_90a", "-Xptxas", "-v", *extra, "-c", str(src), "-o", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    return ptxas_report(proc.stderr + proc.stdout)


def triton_gemm(arch: int, aligned: bool) -> dict:
    attrs = {(i,): [["tt.divisibility", 16]] for i in range(3)} if aligned else {}
    src = ASTSource(fn=mm, signature={"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "K": "constexpr",
                                      "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"},
                    constexprs={"K": 256, "BM": 128, "BN": 128, "BK": 64}, attrs=attrs)
    k = triton.compile(src, target=GPUTarget("cuda", arch, 32), options={"num_warps": 8})
    with tempfile.TemporaryDirectory() as tmp:
        cubin = Path(tmp) / "mm.cubin"
        cubin.write_bytes(k.asm["cubin"])
        return counts(sass(cubin))


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        plain = nvcc_object(SOURCES / "sass_kernels.cu", tmp / "k.o", [])
        capped = nvcc_object(SOURCES / "sass_kernels.cu", tmp / "k24.o", ["-maxrregcount=24"])
        nvcc_object(SOURCES / "wmma_tile.cu", tmp / "w.o", [])
        spill_sass = sass(tmp / "k24.o", "_Z5spillPKfPfi")
        sass_counts = {
            "scale4": counts(sass(tmp / "k.o", "_Z6scale4PK6float4PS_fi")),
            "scale1": counts(sass(tmp / "k.o", "_Z6scale1PKfPffi")),
            "spill_maxrregcount24": counts(spill_sass),
            "wmma_tile": counts(sass(tmp / "w.o")),
        }
    stl = re.search(r"\bSTL[^;]*;", spill_sass)
    spill_line = stl.group(0) if stl else None
    gemm = {f"sm_{arch}{'a' if arch == 90 else ''}_{'aligned' if aligned else 'unaligned'}": triton_gemm(arch, aligned)
            for arch in (80, 90) for aligned in (True, False)}
    nvcc_version = subprocess.run([shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc", "--version"],
                                  capture_output=True, text=True).stdout.strip().splitlines()[-1]
    emit("ptxas reports and SASS counts", {
        "ptxas": plain, "ptxas_maxrregcount24": capped, "sass": sass_counts, "triton_gemm_sass": gemm,
        "first_STL_line": spill_line,
    }, {
        "nvcc": nvcc_version, "flags": "-std=c++17 -arch=sm_90a -Xptxas -v (-maxrregcount=24)",
        "cuobjdump": cuobjdump(), "triton_gemm": "fp16 in, fp32 acc, 128 x 128 tile, K 256 by 64, 8 warps, "
                                                   "GPUTarget('cuda', 80|90, 32)",
    })


if __name__ == "__main__":
    main()
