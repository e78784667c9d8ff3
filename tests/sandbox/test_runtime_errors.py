"""Resource errors of a submission reach the report in French, naming the limit; and the
compile limit covers compilation only (an endless kernel is stopped by the run limit).
Numbers are French (decimal comma, U+202F between thousands, U+00A0 before the unit)."""
from __future__ import annotations

import time

import pytest
import torch

from sandbox import resource_errors
from sandbox.records import RunOptions
from sandbox.runner import run_submission

_GPU_OOM = ("CUDA out of memory. Tried to allocate 8.00 GiB. GPU 0 has a total capacity of "
            "139.81 GiB of which 3.12 GiB is free. Including non-PyTorch memory, this process "
            "has 136.68 GiB memory in use.")


def _real_host_oom() -> RuntimeError:
    try:
        torch.empty(1 << 52, dtype=torch.uint8)   # 4 PiB: the CPU allocator refuses it
    except RuntimeError as exc:
        return exc
    pytest.skip("allocation de 4 Pio acceptée sur cet hôte")


def test_host_allocator_error_becomes_french_with_the_request():
    exc = _real_host_oom()
    assert "allocate" in str(exc)   # torch's own English text, which must not reach the user
    msg = resource_errors.translate(exc)
    assert msg.startswith("mémoire de l'hôte épuisée") and "4\u202f096,0\u00a0Tio" in msg
    assert "allocate" not in msg


@pytest.mark.parametrize("exc,fragments", [
    (MemoryError(), ["mémoire de l'hôte épuisée"]),
    (torch.OutOfMemoryError(_GPU_OOM), ["mémoire du GPU épuisée", "8,00\u00a0Gio",
                                        "139,81\u00a0Gio", "3,12\u00a0Gio libres"]),
    (RuntimeError("CUDA error: out of memory\nCUDA kernel errors might be asynchronously "
                  "reported"), ["mémoire épuisée côté CUDA", "pin_memory"]),
    (RuntimeError("CUDA error: an illegal memory access was encountered"),
     ["accès mémoire illégal", "masques"]),
    (RuntimeError("Triton Error [CUDA]: misaligned address"), ["accès mémoire illégal"]),
    (RuntimeError("CUDA error: device-side assert triggered"), ["assertion du noyau"]),
    (RuntimeError("CUDA error: unspecified launch failure"), ["le noyau a planté"]),
    (BlockingIOError(11, "Resource temporarily unavailable"), ["limite de processus atteinte"]),
    (RuntimeError("can't start new thread"), ["limite de processus atteinte", "os.fork"]),
    (RuntimeError("Cannot re-initialize CUDA in forked subprocess. To use CUDA with "
                  "multiprocessing, you must use the 'spawn' start method"), ["os.fork"]),
])
def test_runtime_errors_translated(exc, fragments):
    msg = resource_errors.translate(exc)
    assert msg is not None
    for f in fragments:
        assert f in msg, msg


# Every CUDA error torch raises carries this sentence; it is not an assertion.
_DSA = ("CUDA error: initialization error\nCUDA kernel errors might be asynchronously reported"
        "\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")


@pytest.mark.parametrize("exc", [ValueError("x"), RuntimeError("shape mismatch"), KeyError("k"),
                                 RuntimeError(_DSA)])
def test_other_errors_left_alone(exc):
    assert resource_errors.translate(exc) is None


def test_host_memory_limit_named_end_to_end(tmp_path, monkeypatch):
    monkeypatch.setenv("TUILE_SANDBOX_MAX_MEMORY", str(1 << 30))
    source = ("import torch\nblocs = []\ndef custom_kernel(x, out):\n    for _ in range(64):\n"
              "        blocs.append(torch.ones(1 << 26))\n")
    report = run_submission(source, "copie", RunOptions(
        mode="interpreter", all_dtypes=False, scratch_root=str(tmp_path)))
    assert report.error_kind == "runtime", (report.error_kind, report.error)
    assert report.error.startswith("ligne 5 : mémoire de l'hôte épuisée"), report.error
    assert "1,0\u00a0Gio" in report.error and "256\u00a0Mio" in report.error, report.error
    assert "allocate" not in report.error


def test_endless_kernel_stopped_by_run_limit_not_compile_limit(tmp_path):
    source = ("import torch, triton, triton.language as tl\n@triton.jit\ndef k(x_ptr, o_ptr):\n"
              "    i = tl.abs(tl.load(x_ptr)) + 1.0\n    while i > 0:\n        i = i * 1.0000001\n"
              "    tl.store(o_ptr, i)\ndef custom_kernel(x, out):\n    k[(1,)](x, out)\n")
    t0 = time.monotonic()
    report = run_submission(source, "copie", RunOptions(
        mode="interpreter", all_dtypes=False, compile_timeout_s=60, run_timeout_s=3,
        scratch_root=str(tmp_path)))
    assert report.timed_out and report.error_kind == "timeout"
    assert "pendant l'exécution" in report.error and "3\u00a0s" in report.error, report.error
    assert time.monotonic() - t0 < 45   # far below the 60 s compile limit
