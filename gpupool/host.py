"""Facts about this host's GPUs, read without importing torch: how many submissions it
runs at once, whether a GPU is there, the card's name, and where a report ran."""
from __future__ import annotations

import os

from sandbox.records import KernelReport


def local_capacity() -> int:
    """Submissions this host runs at once: one per visible GPU; without GPU, the
    interpreter runs on the CPU, one at a time per two cores (one run keeps ~1.6 cores
    busy: 4.5 s wall, 5.5 s CPU for the transposition in the interpreter, 2 cores)."""
    from sandbox.gpuqueue import visible_gpus

    if gpu_present():
        return max(1, len(visible_gpus()))
    return max(1, (os.cpu_count() or 2) // 2)


def gpu_present() -> bool:
    """A GPU this process may use, seen without importing torch (``TRITON_INTERPRET=1``
    forces the interpreter, as in the sandbox)."""
    from sandbox.gpuqueue import visible_gpus

    if os.environ.get("TRITON_INTERPRET") == "1":
        return False
    if "CUDA_VISIBLE_DEVICES" not in os.environ and os.path.exists("/dev/nvidiactl"):
        return True
    return bool(visible_gpus())


def card_name() -> str:
    """The first GPU's name as the driver reports it, without importing torch; "" if none."""
    import glob
    import subprocess

    for info in sorted(glob.glob("/proc/driver/nvidia/gpus/*/information")):
        try:
            for line in open(info, encoding="utf-8", errors="replace"):
                if line.startswith("Model:"):
                    return line.split(":", 1)[1].strip()
        except OSError:
            continue
    try:   # some VMs hide /proc/driver/nvidia; nvidia-smi still answers
        done = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=10)
        names = [l.strip() for l in done.stdout.splitlines() if l.strip()]
        return names[0] if done.returncode == 0 and names else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def where_of(report: KernelReport) -> tuple[str, str]:
    """(card, gpu index) from a report: its device name, and its GPU when it names one."""
    card = report.device_name or ("interpréteur Triton (CPU)" if report.mode == "interpreter" else "")
    gpu = getattr(report, "gpu", None)
    return card, ("" if gpu in (None, "") else str(gpu))
