"""The guide shows its own work: every figure it states as measured on the project's GPU
names the script that measured it and the record of the run, and both exist.

A chapter cites a measurement with a line such as
``Mesuré par `bench/guide/launch_cuda.cu`, voir `bench/results/2026-12-01-guide-figures-h200.md`.``
Run one chapter's check with ``pytest tests/test_guide_figures.py -k performance-07``.
"""
from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ingest.corpus import load_plan

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
GUIDE = ROOT / "bench" / "guide"
ENTRIES = {c["id"]: c for c in load_plan(CORPUS)["chapters"]}

_CITATION = re.compile(r"Mesuré par ((?:`bench/guide/[^`]+`(?:, | et )?)+), voir `(bench/results/[^`]+\.md)`")
_SCRIPT = re.compile(r"`(bench/guide/[^`]+)`")
# Prose that presents a figure as measured on the project's own card.
_MEASURED_HERE = re.compile(r"(notre H200|H200 du projet|mesur\w* (?:faites? )?(?:pour ce guide )?sur (?:le |un |notre )?H200)")


def _runner():
    spec = importlib.util.spec_from_file_location("guide_run_all", GUIDE / "run_all.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _citations(page_id: str) -> list[tuple[list[str], str]]:
    text = (CORPUS / ENTRIES[page_id]["path"]).read_text(encoding="utf-8")
    return [(_SCRIPT.findall(m.group(1)), m.group(2)) for m in _CITATION.finditer(text)]


def _record(md_path: str) -> dict:
    return json.loads((ROOT / md_path).with_suffix(".json").read_text(encoding="utf-8"))


CITING = sorted(p for p in ENTRIES if _citations(p))


@pytest.mark.parametrize("page_id", CITING)
def test_citations_point_to_a_script_and_a_recorded_value(page_id):
    problems = []
    for scripts, record_md in _citations(page_id):
        if not (ROOT / record_md).exists():
            problems.append(f"{record_md} absent")
            continue
        if not (ROOT / record_md).with_suffix(".json").exists():
            problems.append(f"{record_md} sans son JSON")
            continue
        results = {r["script"]: r for r in _record(record_md)["results"]}
        for script in scripts:
            if not (ROOT / script).exists():
                problems.append(f"{script} absent")
            elif not results.get(script, {}).get("ok") or not results[script].get("figures"):
                problems.append(f"{script} sans valeur enregistrée dans {record_md}")
    assert not problems, " ; ".join(problems)


@pytest.mark.parametrize("page_id", sorted(ENTRIES))
def test_measured_figures_name_their_script(page_id):
    text = (CORPUS / ENTRIES[page_id]["path"]).read_text(encoding="utf-8")
    prose = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    if _MEASURED_HERE.search(prose):
        assert _citations(page_id), "chiffre mesuré sur le H200 du projet sans ligne « Mesuré par `bench/guide/…` »"


def test_manifest_lists_every_script_once():
    manifest = [name for name, _ in _runner().MANIFEST]
    on_disk = sorted(p.name for p in GUIDE.iterdir()
                     if p.suffix in {".py", ".cu"} and p.name not in {"run_all.py", "guide_common.py"})
    assert sorted(manifest) == on_disk
    assert len(set(manifest)) == len(manifest)


@pytest.mark.slow
@pytest.mark.parametrize("source", sorted(p.name for p in GUIDE.rglob("*.cu")))
def test_guide_cuda_sources_compile(source, tmp_path):
    nvcc = shutil.which("nvcc")
    if not nvcc:
        pytest.skip("nvcc absent")
    path = next(GUIDE.rglob(source))
    proc = subprocess.run([nvcc, "-std=c++17", "-O3", "-arch=sm_90a", "-I", str(GUIDE), "-c", str(path),
                           "-o", str(tmp_path / "unit.o")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.mark.slow
def test_runner_records_every_script_even_when_one_fails(tmp_path):
    if not shutil.which("nvcc"):
        pytest.skip("nvcc absent")
    proc = subprocess.run([sys.executable, str(GUIDE / "run_all.py"), str(tmp_path),
                           "--only", "device_props,bank_conflicts"], capture_output=True, text=True, timeout=300)
    record = json.loads((tmp_path / "guide-figures-h200.json").read_text(encoding="utf-8"))
    scripts = [r for r in record["results"] if r["script"] != "bench/guide/run_all.py"]
    assert [r["script"] for r in scripts] == ["bench/guide/device_props.cu", "bench/guide/bank_conflicts.cu"]
    assert record["results"][-1]["script"] == "bench/guide/run_all.py"  # the clock samples
    for r in scripts:
        assert r["command"].startswith("nvcc -std=c++17 -O3 -arch=sm_90a")
        assert r["ok"] == (r["rc"] == 0)
        assert r["ok"] or r["error"]
    assert proc.returncode == (0 if all(r["ok"] for r in scripts) else 1)
    md = (tmp_path / "guide-figures-h200.md").read_text(encoding="utf-8")
    assert "## bench/guide/device_props.cu" in md and "## bench/guide/bank_conflicts.cu" in md


def test_runner_rejects_unknown_script_names(tmp_path):
    proc = subprocess.run([sys.executable, str(GUIDE / "run_all.py"), str(tmp_path), "--only", "inconnu"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "inconnu" in proc.stderr and "launch_cuda.cu" in proc.stderr
