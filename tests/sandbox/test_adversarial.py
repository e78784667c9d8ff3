"""Part 1 of the kernel sandbox: wrong and adversarial submissions are caught, precisely.

The submissions live in tests/sandbox/kernels/ (all for the transposition exercise). On
CPU they run in Triton's interpreter; the GPU test (``-m gpu``) runs the same set on the card.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from sandbox.hardware import DeviceInfo
from sandbox.records import KernelReport, RunOptions
from sandbox.runner import run_submission

KERNELS = Path(__file__).resolve().parent / "kernels"
ROOT = Path(__file__).resolve().parents[2]

# file -> (error kind, French fragments the message must hold, line or None)
CASES = {
    "wrong_empty.py": ("mismatch", ["aucun élément n'a été écrit", "NaN"], None),
    "wrong_off_by_one.py": ("mismatch", ["127 éléments faux sur 16\u00a0383", "jamais écrits",
                                         "(128, 0)", "masque"], None),
    "wrong_dtype.py": ("contract", ["type incorrect", "float16", "float32"], None),
    "wrong_no_launcher.py": ("contract", ["ne définit pas de lanceur custom_kernel"], None),
    "wrong_syntax.py": ("syntax", ["erreur de syntaxe ligne 9"], 9),
    "wrong_compile.py": ("compile", ["noyau « _t »", "ligne 10", "power of 2"], 10),
    "adv_torch_result.py": ("torch_ops", ["opérations PyTorch", "aten.copy_",
                                          "noyau Triton de la soumission"], None),
    "adv_input_mutated.py": ("input_modified", ["a modifié l'entrée « x »", "lecture seule"], None),
    "adv_result_reused.py": ("mismatch", ["appel répété n° 2", "recalculer à chaque appel"], None),
    "adv_warmup_cache.py": ("mismatch", ["appel répété n° 3", "recalculer à chaque appel"], None),
}


def _cuda() -> bool:
    try:
        import torch
        return torch.cuda.is_available()
    except ImportError:
        return False


def _run(name: str, mode: str) -> KernelReport:
    return run_submission((KERNELS / name).read_text(), "transposition", RunOptions(mode=mode, precheck=False))


@pytest.fixture(scope="module")
def interp_reports():
    names = list(CASES) + ["adv_side_stream.py"]
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(names, pool.map(lambda n: _run(n, "interpreter"), names)))


@pytest.mark.parametrize("name", list(CASES))
def test_wrong_and_adversarial_submissions_are_caught_in_the_interpreter(interp_reports, name):
    kind, fragments, line = CASES[name]
    r = interp_reports[name]
    assert not r.correct
    assert r.error_kind == kind, r.error
    for frag in fragments:
        assert frag in r.error, (frag, r.error)
    if line is not None:
        assert r.error_line == line
    assert r.verdict in ("incorrect", "error") and r.verdict_text


def test_side_stream_submission_is_refused_in_the_interpreter(interp_reports):
    # Without CUDA the submission cannot even create its stream; the GPU test below checks
    # that the guard names the side stream.
    r = interp_reports["adv_side_stream.py"]
    assert not r.correct and r.error_kind in ("runtime", "side_stream")


def test_mismatch_reports_carry_indices_and_errors_as_data(interp_reports):
    m = interp_reports["wrong_off_by_one.py"].mismatches[0]
    assert m.count == 127 and m.unwritten == 127 and m.total == 127 * 129
    assert m.first_indices[0] == [128, 0] and m.shape == [129, 127]


_GUARD_SCRIPT = textwrap.dedent('''
    import os, sys
    os.environ["TRITON_INTERPRET"] = "1"
    sys.path.insert(0, {root!r})
    import torch
    from sandbox.launcher.guard import Guard
    path = {path!r}
    import importlib.util
    spec = importlib.util.spec_from_file_location("sub", path)
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    x = torch.randn(5, 7); out = torch.empty(7, 5)
    streams = iter([1, 2])          # current stream ids seen at each launch
    guard = Guard(path, stream_id=lambda: next(streams), default_stream_id=1)
    guard.call(mod.custom_kernel, (x, out))
    print("first", guard.verdict())
    guard.reset(); guard.call(mod.custom_kernel, (x, out))
    v = guard.verdict(); print("second", v.kind, v.message)
''')


def test_guard_refuses_a_launch_on_another_stream(tmp_path):
    """The stream check itself, with stream ids given by a fake (no CUDA needed)."""
    path = tmp_path / "sub.py"
    path.write_text((ROOT / "sandbox/exercises/files/transposition/reference.py").read_text())
    script = _GUARD_SCRIPT.format(root=str(ROOT), path=str(path))
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       env={**os.environ, "TRITON_INTERPRET": "1"}, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "first None" in p.stdout
    assert "second side_stream" in p.stdout and "flux CUDA secondaire" in p.stdout


def test_time_under_the_physical_floor_is_rejected():
    from sandbox.judge.figures import fill_figures as _fill_figures
    from sandbox.records import Fault

    info = DeviceInfo("NVIDIA H200", 4814.4, 4800.0, "H200", 60 * 2**20, 132)
    r = KernelReport(exercise="transposition", bytes_counted=2 * 16384 * 16384 * 4,
                     median_us=100.0)      # 21 TB/s: impossible
    with pytest.raises(Fault) as err:
        _fill_figures(r, info)
    assert err.value.kind == "impossible_time" and "plancher physique" in err.value.message
    ok = KernelReport(exercise="transposition", bytes_counted=2 * 16384 * 16384 * 4,
                      median_us=530.0, copy_ceiling_gbps=4220.0)
    _fill_figures(ok, info)
    assert ok.gbps == pytest.approx(4051.9, rel=1e-3)
    assert ok.pct_of_peak == pytest.approx(100 * ok.gbps / 4814.4)
    assert ok.floor_us == pytest.approx(2 * 16384 * 16384 * 4 / 4814.4e9 * 1e6)
    small = KernelReport(exercise="copie", bytes_counted=8 * 2**20, median_us=1.0)
    _fill_figures(small, info)             # fits in L2: no floor verdict


def test_dispersed_timing_is_flagged_in_the_verdict():
    """Figures of two H200 runs of the row-sum reference (2026-11-29): one steady, one
    with half of its timed calls slow. Only the second gets the warning."""
    from sandbox.judge.figures import verdict as _verdict

    base = dict(exercise="reduction", mode="gpu", pct_of_peak=87.7)
    steady = KernelReport(median_us=254.3, p10_us=253.0, p90_us=255.7, **base)
    _verdict(steady, 80.0)
    assert steady.verdict == "pass" and "dispersées" not in steady.verdict_text
    wide = KernelReport(median_us=303.0, p10_us=254.2, p90_us=350.5,
                        **{**base, "pct_of_peak": 73.6})
    _verdict(wide, 80.0)
    assert wide.verdict == "fail"
    assert "mesures dispersées (p10 254,2 µs, p90 350,5 µs, soit 32 % de la médiane)" \
        in wide.verdict_text and "relancez" in wide.verdict_text
    interp = KernelReport(exercise="reduction", mode="interpreter")
    _verdict(interp, 80.0)
    assert "dispersées" not in interp.verdict_text


@pytest.mark.gpu
@pytest.mark.skipif(not _cuda(), reason="pas de GPU CUDA")
def test_adversarial_set_is_caught_on_the_gpu():
    expected = {name: kind for name, (kind, _, _) in CASES.items()}
    expected["adv_side_stream.py"] = "side_stream"
    for name, kind in expected.items():
        r = _run(name, "gpu")
        assert not r.correct and r.error_kind == kind, (name, r.error)
