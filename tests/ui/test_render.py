"""The UI's render helpers and chapter viewer, without a browser (fast; real records)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from assistant.answer_records import Answer, Citation, Quote
from assistant.paths import PathDialogue
from assistant.ui import render
from assistant.ui.library import Library, describe_link, parse_link
from ingest.anchors import slugify
from sandbox.records import KernelReport

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus"
TRANSPOSE = "03-performance/07-transposition.md"


def _answer() -> Answer:
    c1 = Citation(1, "performance-07", "Performance · 7. Étude de cas › Version naïve",
                  f"corpus/{TRANSPOSE}#version-naive", "Version naïve", "version-naive", TRANSPOSE)
    c2 = Citation(2, "performance-02", "Performance · 2. Accès mémoire coalescés",
                  "corpus/03-performance/02-acces-coalesces.md", "", "", "03-performance/02-acces-coalesces.md")
    text = "La version naïve écrit à pas. [1]\n\n- Un secteur fait 32 octets. [2]\n"
    return Answer(question="q", kind="answer", text=text, citations=(c1, c2),
                  quotes=(Quote("La version naïve écrit à pas.", 1), Quote("Un secteur fait 32 octets.", 2)))


def test_citation_marks_become_links_to_their_sections():
    md = render.answer_markdown(_answer())
    assert f"[[1]](corpus/{TRANSPOSE}#version-naive)" in md
    assert "[[2]](corpus/03-performance/02-acces-coalesces.md)" in md
    assert "\\[" not in md   # an escaped bracket would be read as display math


def test_sources_panel_quotes_each_passage_under_its_citation():
    md = render.sources_markdown(_answer())
    assert md.index("**[1]**") < md.index("> La version naïve écrit à pas.") < md.index("**[2]**")
    refusal = Answer(question="q", kind="refusal", text="…", suggestions=_answer().citations)
    assert "ne traite pas" in render.sources_markdown(refusal)
    assert "s'afficheront ici" in render.sources_markdown(None)


@pytest.mark.skipif(not (CORPUS / TRANSPOSE).exists(), reason="chapitre absent")
def test_viewer_headings_carry_the_citation_anchors():
    lib = Library(CORPUS)
    md = lib.chapter_markdown(TRANSPOSE)
    headings = re.findall(r"^#{2,3} (.+)$", (CORPUS / TRANSPOSE).read_text(encoding="utf-8"), re.M)
    for h in headings:
        assert f'id="{slugify(h.strip())}"' in md, h
    assert 'id="version-naive"' in md
    assert "](corpus/03-performance/01-roofline.md)" in md   # relative links resolved
    assert "\\(" in md                                        # math left for KaTeX
    assert lib.heading_of(TRANSPOSE, "version-naive") == "Version naïve"
    assert "naïve" in lib.section_excerpt(TRANSPOSE, "version-naive")
    assert describe_link(lib, f"corpus/{TRANSPOSE}#version-naive").endswith("› Version naïve")


def test_viewer_never_reads_outside_the_corpus():
    with pytest.raises(FileNotFoundError):
        Library(CORPUS).chapter_markdown("../pyproject.toml")
    with pytest.raises(FileNotFoundError):
        Library(CORPUS).chapter_markdown("../README.md")


@pytest.mark.parametrize("link, expected", [
    (f"corpus/{TRANSPOSE}#version-naive", (TRANSPOSE, "version-naive")),
    (f"http://127.0.0.1:7860/corpus/{TRANSPOSE}", (TRANSPOSE, "")),
    (TRANSPOSE + "#a", (TRANSPOSE, "a")),
    ("https://example.org/page", None),
    ("", None),
])
def test_parse_link(link, expected):
    assert parse_link(link) == expected


def test_checklist_links_every_chapter_with_hours_and_ticks():
    dialogue = PathDialogue(CORPUS)
    rec = dialogue.recommend("pytorch", "premier-noyau")
    html = render.recommendation_html(rec, ["performance-07"])
    ids = [c["id"] for s in rec["steps"] for c in s["chapters"]]
    assert html.count('class="tuile-lu"') == len(ids)
    assert 'data-id="performance-07" checked' in html
    assert html.count('href="corpus/') == len(ids)
    assert "\u00a0h" in html
    progress = render.progress_markdown(rec, ["performance-07"])
    assert "1 chapitre lu sur" in progress


def _report(**kw) -> KernelReport:
    base = dict(exercise="transposition", mode="gpu", compiled=True, correct=True, dtype="float32",
                shapes_checked=[[127, 129]], dtypes_checked=["float32"], timing_shape=[16384, 16384],
                median_us=4770.0, p10_us=4760.0, p90_us=4790.0, repetitions=100, bytes_counted=2147483648,
                bytes_note="2 × M × N × 4", gbps=450.2, device_name="NVIDIA H200", peak_gbps_card=4814.0,
                peak_gbps_datasheet=4800.0, peak_source="carte", copy_ceiling_gbps=4220.0, pct_of_peak=9.35,
                pct_of_copy_ceiling=10.7, threshold_pct=80.0, verdict="fail", verdict_text="Juste, mais lent.")
    base.update(kw)
    return KernelReport(**base)


def test_report_table_states_conditions_and_chart_draws_the_threshold():
    rows = render.figures_rows(_report())
    table = {r[0]: r for r in rows}
    assert "16384 × 16384 float32" in table["Temps médian"][2]
    assert table["Débit effectif"][1].startswith("450")
    svg = render.bandwidth_svg(_report())
    assert svg.startswith("<svg") and svg.count("<rect") == 3
    assert "stroke-dasharray" in svg and "objectif 80" in svg


def test_report_without_gpu_says_correctness_only():
    r = _report(mode="interpreter", median_us=None, gbps=None, verdict="not_timed", verdict_text="Juste.")
    assert "justesse seulement" in render.verdict_markdown(r)
    assert "<svg" not in render.bandwidth_svg(r)
    assert "GPU" in render.diagnosis_markdown(r)


def test_diagnosis_links_into_the_guide():
    items = [{"code": "x", "severity": "alerte", "title": "Écritures non coalescées", "detail": "32 secteurs.",
              "figures": {}, "links": [f"{TRANSPOSE}#version-naive"]}]
    md = render.diagnosis_markdown(_report(), items, lambda link: "Version naïve")
    assert f"[Version naïve](corpus/{TRANSPOSE}#version-naive)" in md


def test_french_numbers():
    assert render.fr_number(4814.0, 0, "Go/s") == "4\u202f814\u00a0Go/s"
    assert render.fr_number(None) == "inconnu"



def test_progress_counts_hours_as_the_recommendation_writes_them():
    rec = {"steps": [{"chapters": [{"id": "a", "hours": 0.5, "optional": False}, {"id": "b", "hours": 0.5, "optional": False},
                                   {"id": "c", "hours": 0.25, "optional": True}]}]}
    assert "il reste environ 1\u00a0h de lecture" in render.progress_markdown(rec, [])
    assert "1 chapitre lu sur 2 · il reste environ 30\u00a0min" in render.progress_markdown(rec, ["a"])


def test_create_app_builds_without_launching(tmp_path, monkeypatch):
    monkeypatch.setenv("TUILE_HOME", str(tmp_path))
    from assistant.ui.app import create_app
    from ingest.config import load_config

    app = create_app(load_config(index_dir=tmp_path / "absent"), warm=False)
    assert not app.is_running
    labels = {b.label for b in app.blocks.values() if type(b).__name__ == "Tab"}
    assert labels == {"Discussion", "Parcours", "Bac à sable", "Le guide"}


def test_kernel_progress_and_where_lines():
    from gpupool.records import PoolRun
    from sandbox.records import KernelReport

    assert render.kernel_progress(3, "", True, 4.2).startswith(
        "En file d'attente pour le GPU\u00a0: **3** soumissions avant la vôtre")
    assert "précédente est encore en cours\u202f;" in render.kernel_progress("own", "", True, 1)
    line = render.kernel_progress(None, "gpu1 (gpu1/NVIDIA_H200/42)", True, 2, ["Hôte perdu."])
    assert line.startswith("ℹ Hôte perdu.") and "hôte **gpu1 (gpu1/NVIDIA_H200/42)**" in line
    run = PoolRun(report=KernelReport(exercise="copie"), host="gpu1", gpu="1", card="NVIDIA H200",
                  attempts=2, waited_s=12.0)
    assert render.kernel_where(run) == ("Exécutée sur\u00a0: **gpu1 · GPU 1 (NVIDIA H200)** (deuxième essai)"
                                        "\u202f; attente 12\u00a0s")
