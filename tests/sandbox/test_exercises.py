"""Part 1 of the kernel sandbox: exercises, reference and naive solutions, report, CLI.

CPU tests run every solution in Triton's interpreter (small shapes, odd ones included).
GPU tests (``-m gpu``) run the flagship on the card and skip without CUDA.
"""
from __future__ import annotations

import argparse
import io
import json
from concurrent.futures import ThreadPoolExecutor
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from sandbox.exercises import UnknownExercise, get_exercise, list_exercises
from sandbox.exercises._check import compare
from sandbox.hardware import DeviceInfo, card_peak_gbps, datasheet_gbps
from sandbox.records import KernelReport, RunOptions
from sandbox.runner import run_submission
from sandbox.judge.figures import quantile as _quantile

NAMES = ["copie", "addition", "transposition", "reduction", "softmax", "matmul", "libre"]
INTERP = RunOptions(mode="interpreter")


def _cuda() -> bool:
    try:
        import torch
        return torch.cuda.is_available()
    except ImportError:
        return False


@pytest.fixture(scope="module")
def solution_reports():
    """Every reference and naive solution, run once in the interpreter, two at a time."""
    jobs = [(n, k) for n in NAMES for k in ("reference", "naive")]
    with ThreadPoolExecutor(max_workers=2) as pool:
        reports = pool.map(lambda job: run_submission(get_exercise(job[0]).source(job[1]),
                                                      job[0], INTERP), jobs)
        return dict(zip(jobs, reports))


# ---------------------------------------------------------------- registry and files

def test_registry_lists_the_seven_exercises_and_accepts_english_names():
    assert [e.name for e in list_exercises()] == NAMES
    assert get_exercise("transpose").name == "transposition"
    assert get_exercise("vector_add").name == "addition"
    assert get_exercise("GEMM").name == "matmul"
    with pytest.raises(UnknownExercise) as err:
        get_exercise("fft")
    assert "fft" in str(err.value) and "transposition" in str(err.value)


@pytest.mark.parametrize("name", NAMES)
def test_each_exercise_has_a_french_template_a_reference_and_a_naive_solution(name):
    ex = get_exercise(name)
    for kind in ("template", "reference", "naive"):
        source = ex.source(kind)
        compile(source, f"{name}/{kind}.py", "exec")
        assert "def custom_kernel(" in source and "@triton.jit" in source
    template = ex.template
    assert "Tuile appelle" in template and "# TODO" in template
    assert any(w in template for w in ("écrit", "Écrivez", "élément"))   # French, with accents
    assert ex.reference is None or ex.source("reference") != ex.source("naive")


def test_templates_and_solutions_pass_the_static_precheck():
    precheck = pytest.importorskip("sandbox.precheck").precheck
    for ex in list_exercises():
        for kind in ("template", "reference", "naive"):
            assert precheck(ex.source(kind)) == [], f"{ex.name}/{kind}"


def test_minimal_bytes_and_flops():
    t = get_exercise("transposition")
    assert t.bytes_moved((16384, 16384), 4) == 2 * 16384 * 16384 * 4
    assert get_exercise("addition").bytes_moved((1000,), 2) == 3 * 1000 * 2
    assert get_exercise("reduction").bytes_moved((10, 20), 4) == (10 * 20 + 10) * 4
    mm = get_exercise("matmul")
    assert mm.flops((4096, 4096, 4096)) == 2 * 4096 ** 3
    assert mm.bytes_moved((2, 3, 4), 2) == (2 * 4 + 4 * 3 + 2 * 3) * 2
    assert t.threshold_pct == 80.0
    # the timing shapes of the bandwidth exercises move far more than twice a 60 MiB L2;
    # matmul is bound by arithmetic (2·4096³ FLOP over 96 MiB), its figure is TFLOP/s
    for ex in list_exercises():
        if ex.threshold_pct is not None:
            assert ex.bytes_moved(ex.timing_shape, 2) > 4 * 60 * 2**20, ex.name


def test_odd_shapes_are_checked():
    for name in ("copie", "transposition", "reduction", "softmax"):
        ex = get_exercise(name)
        assert (1, 1) in ex.cpu_shapes and (127, 129) in ex.cpu_shapes
        assert (4095, 4097) in ex.gpu_shapes


# ---------------------------------------------------------------- solutions in the interpreter

@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", ["reference", "naive"])
def test_every_solution_passes_in_the_interpreter(solution_reports, name, kind):
    r = solution_reports[(name, kind)]
    assert r.error_kind == "", r.error + r.stderr_tail
    assert r.correct and r.compiled
    assert r.mode == "interpreter" and r.verdict == "not_timed"
    assert r.gbps is None and r.median_us is None        # no bandwidth figure on CPU
    assert "interpréteur" in r.verdict_text
    assert len(r.checks) >= 3 + 5 and any("répété" in c for c in r.checks)
    if name != "libre":   # free mode: the shapes are the submission's own
        assert len(r.shapes_checked) >= 3
    json.loads(r.to_json())


def test_template_runs_but_is_reported_as_unwritten():
    r = run_submission(get_exercise("transposition").template, "transposition", INTERP)
    assert not r.correct and r.error_kind == "mismatch"
    assert "aucun élément n'a été écrit" in r.error


def test_other_dtypes_are_checked_unless_one_is_asked():
    r = run_submission(get_exercise("addition").source("reference"), "addition",
                       RunOptions(mode="interpreter", dtype="float16"))
    assert r.correct and r.dtypes_checked == ["float16"]


def test_bfloat16_arithmetic_in_the_interpreter_is_refused_with_a_reason():
    r = run_submission(get_exercise("softmax").source("reference"), "softmax",
                       RunOptions(mode="interpreter", dtype="bfloat16"))
    assert r.error_kind == "options" and "bfloat16" in r.error


def test_unknown_exercise_and_dtype_are_data_not_exceptions():
    r = run_submission("x = 1", "fft")
    assert r.error_kind == "unknown_exercise" and "transposition" in r.error
    r = run_submission("x = 1", "copie", RunOptions(dtype="int8"))
    assert r.error_kind == "options" and "float32" in r.error


# ---------------------------------------------------------------- checker, hardware, timing

def test_compare_says_where_and_how_much_in_french():
    import torch

    expected = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    assert compare(expected.clone(), expected, 0, 0) is None
    got = expected.clone()
    got[2, 3] = float("nan")
    got[1, 1] += 0.5
    bad = compare(got, expected, 0, 0, "vérification 3 × 4 float32")
    assert bad.count == 2 and bad.unwritten == 1 and bad.total == 12
    assert bad.first_indices == [[1, 1], [2, 3]]
    assert bad.max_abs_error == pytest.approx(0.5)
    assert "2 éléments faux sur 12" in bad.message and "jamais écrit" in bad.message
    assert compare(expected + 1e-7, expected, 1e-5, 1e-6) is None
    shape_bad = compare(expected.t(), expected, 0, 0)
    assert "forme du résultat 4 × 3 au lieu de 3 × 4" in shape_bad.message


class _Props:
    """What torch.cuda.get_device_properties gives for our H200 (NVML agrees)."""
    name = "NVIDIA H200"
    memory_clock_rate = 3_201_000   # kHz
    memory_bus_width = 6016         # bits


def test_peak_from_the_card_and_from_the_datasheet():
    assert card_peak_gbps(_Props()) == pytest.approx(4814.4, rel=1e-4)
    assert card_peak_gbps(object()) is None
    assert datasheet_gbps("NVIDIA H200")[0] == 4800.0
    assert datasheet_gbps("NVIDIA H100 80GB HBM3")[0] == 3350.0
    assert datasheet_gbps("NVIDIA H100 PCIe")[0] == 2000.0
    assert datasheet_gbps("NVIDIA A100-SXM4-80GB")[0] == 2039.0
    assert datasheet_gbps("NVIDIA GeForce RTX 4090")[0] == 1008.0
    assert datasheet_gbps("AMD Instinct MI300X")[0] == 5300.0
    assert datasheet_gbps("NVIDIA L4")[0] == 300.0
    assert datasheet_gbps("Carte Mystère 9000") == (None, "")
    unknown = DeviceInfo("Carte Mystère 9000", None, None, "", None, None)
    assert unknown.peak_gbps is None and unknown.peak_source == "inconnu"


def test_quantiles_match_numpy_linear_interpolation():
    vals = [1.0, 2.0, 3.0, 4.0, 5.0]
    assert _quantile(vals, 0.1) == pytest.approx(1.4)
    assert _quantile(vals, 0.9) == pytest.approx(4.6)
    assert _quantile([7.0], 0.5) == 7.0


def test_report_round_trips_through_json():
    r = KernelReport(exercise="transposition", gbps=4100.0, mismatches=[])
    assert KernelReport.from_dict(json.loads(r.to_json())) == r


# ---------------------------------------------------------------- CLI

def _cli(*argv) -> tuple[int, str]:
    from sandbox.cli import main

    buf = io.StringIO()
    with redirect_stdout(buf):
        rc = main(list(argv))
    return rc, buf.getvalue()


def test_cli_lists_exercises_and_prints_templates(capsys):
    rc, out = _cli("exercises")
    assert rc == 0 and all(n in out for n in NAMES)
    rc, out = _cli("template", "transposition")
    assert rc == 0 and out == get_exercise("transposition").template
    rc, out = _cli("template", "transposition", "--naive")
    assert out == get_exercise("transposition").source("naive")
    assert _cli("template", "fft")[0] == 2
    assert "exercice inconnu" in capsys.readouterr().err


def test_cli_run_json_and_user_errors(tmp_path, capsys):
    sub = tmp_path / "t.py"
    sub.write_text(get_exercise("copie").source("reference"))
    rc, out = _cli("run", str(sub), "-e", "copie", "--mode", "interpreter", "--json",
                   "--dtype", "float32")
    data = json.loads(out)
    assert rc == 0 and data["correct"] and data["mode"] == "interpreter"
    assert _cli("run", str(sub), "-e", "fft")[0] == 2
    assert _cli("run", str(sub), "-e", "copie", "--dtype", "int8")[0] == 2
    assert _cli("run", str(tmp_path / "absent.py"), "-e", "copie")[0] == 2
    err = capsys.readouterr().err
    assert "impossible de lire" in err and "types permis" in err


def test_cli_run_text_report_of_a_wrong_submission(tmp_path):
    sub = tmp_path / "t.py"
    sub.write_text("def custom_kernel(x, out):\n    return None\n")
    rc, out = _cli("run", str(sub), "-e", "transposition", "--mode", "interpreter")
    assert rc == 1 and "Refusé" in out and "aucun noyau" in out


def test_tuile_dispatcher_has_the_kernel_command():
    cli = pytest.importorskip("assistant.cli")
    buf = io.StringIO()
    with redirect_stdout(buf):
        rc = cli.main(["kernel", "exercises"])
    assert rc == 0 and "transposition" in buf.getvalue()


def test_register_adds_kernel_to_a_parser():
    from sandbox.cli import register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["kernel", "run", "f.py", "-e", "copie", "--json"])
    assert args.exercise == "copie" and args.json and callable(args.func)


# ---------------------------------------------------------------- GPU

@pytest.mark.gpu
@pytest.mark.skipif(not _cuda(), reason="pas de GPU CUDA")
@pytest.mark.parametrize("kind,verdict", [("reference", "pass"), ("naive", "fail")])
def test_gpu_transposition_verdicts(kind, verdict):
    r = run_submission(get_exercise("transposition").source(kind), "transposition",
                       RunOptions(mode="gpu"))
    assert r.correct, r.error
    assert r.mode == "gpu" and r.verdict == verdict
    assert r.median_us > 0 and r.p10_us <= r.median_us <= r.p90_us
    assert r.bytes_counted == 2 * 16384 * 16384 * 4
    assert r.copy_ceiling_gbps and r.pct_of_copy_ceiling
    assert r.peak_gbps_card or r.peak_gbps_datasheet
    assert [4095, 4097] in r.shapes_checked
