"""Guards of the guide: every chapter in corpus/ passes these, now and later.

Run one chapter's checks with ``pytest tests/test_corpus.py -k performance-07``.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ingest.anchors import slugify
from ingest.corpus import load_plan, parse_chapter

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
PLAN = load_plan(CORPUS)
PART_TITLES = {str(p["part"]): p["title"] for p in PLAN["parts"]}
ENTRIES = {c["id"]: c for c in PLAN["chapters"]}
PAGES = sorted(ENTRIES) + ["parcours"]
MIN_WORDS, MAX_WORDS = 1000, 4000

_FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```\s*$", re.M | re.S)
_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _path(page_id: str) -> Path:
    return CORPUS / ("parcours.md" if page_id == "parcours" else ENTRIES[page_id]["path"])


def _load(page_id: str):
    path = _path(page_id)
    assert path.exists(), f"{path.relative_to(CORPUS)} n'existe pas encore"
    return parse_chapter(path.read_bytes(), path.relative_to(CORPUS).as_posix())


def _code_blocks(page_id: str) -> list[tuple[str, str]]:
    text = _path(page_id).read_text(encoding="utf-8")
    return [(m.group(1).strip(), m.group(2)) for m in _FENCE.finditer(text)]


def _prose(page_id: str) -> str:
    return _FENCE.sub("", _path(page_id).read_text(encoding="utf-8").split("\n---", 1)[-1])


@pytest.mark.parametrize("page_id", PAGES)
def test_front_matter_and_plan(page_id):
    chapter = _load(page_id)
    assert chapter.id == page_id
    if page_id == "parcours":
        return
    entry = ENTRIES[page_id]
    assert chapter.part == str(entry["part"])
    assert chapter.chapter == entry["chapter"]
    assert chapter.title == entry["title"]
    assert chapter.part_title == PART_TITLES[chapter.part]
    assert chapter.keywords, "keywords vides"


@pytest.mark.parametrize("page_id", sorted(ENTRIES))
def test_sections_and_sources(page_id):
    chapter = _load(page_id)
    headed = [s for s in chapter.sections if s.level == 2]
    assert len(headed) >= 4, "au moins quatre sections « ## » attendues"
    assert headed[-1].heading == "Sources", "la dernière section doit être « ## Sources »"
    assert re.search(r"^\s*[-*] ", headed[-1].text, re.M), "la section Sources doit lister ses sources"


@pytest.mark.parametrize("page_id", sorted(ENTRIES))
def test_word_count(page_id):
    words = len(re.findall(r"\w+(?:['’-]\w+)*", _prose(page_id)))
    assert MIN_WORDS <= words <= MAX_WORDS, f"{words} mots hors code ; attendu {MIN_WORDS}–{MAX_WORDS}"


@pytest.mark.parametrize("page_id", PAGES)
def test_links_and_anchors_resolve(page_id):
    source = _path(page_id)
    broken = []
    for target in _LINK.findall(_FENCE.sub("", source.read_text(encoding="utf-8"))):
        if re.match(r"^[a-z]+:", target):  # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        dest = (source.parent / file_part).resolve() if file_part else source
        if not dest.exists():
            broken.append(f"{target} (fichier absent)")
            continue
        if anchor and dest.suffix == ".md":
            rel = dest.relative_to(CORPUS).as_posix()
            anchors = {s.anchor for s in parse_chapter(dest.read_bytes(), rel).sections}
            if anchor not in anchors and anchor != slugify(parse_chapter(dest.read_bytes(), rel).title):
                broken.append(f"{target} (ancre absente)")
    assert not broken, "liens cassés : " + ", ".join(broken)


@pytest.mark.parametrize("page_id", PAGES)
def test_code_blocks_carry_a_language(page_id):
    missing = [body.splitlines()[0] if body.strip() else "(vide)" for lang, body in _code_blocks(page_id) if not lang]
    assert not missing, f"blocs de code sans langage : {missing}"


def _programs(language: str, marker: str, needle: str) -> list[tuple[str, int, str]]:
    found = []
    for page_id in PAGES:
        if not _path(page_id).exists():
            continue
        for n, (lang, body) in enumerate(_code_blocks(page_id)):
            first = body.lstrip().splitlines()[0] if body.strip() else ""
            if lang == language and needle in body and not first.startswith(marker):
                found.append((page_id, n, body))
    return found


TRITON_PROGRAMS = _programs("python", "# fragment", "import triton")
CUDA_UNITS = _programs("cuda", "// fragment", "")


@pytest.mark.slow
@pytest.mark.parametrize("page_id,n,body", TRITON_PROGRAMS,
                         ids=[f"{p}-bloc{n}" for p, n, _ in TRITON_PROGRAMS])
def test_triton_program_runs_in_interpreter(page_id, n, body, tmp_path):
    script = tmp_path / f"{page_id}_{n}.py"
    script.write_text(body, encoding="utf-8")
    env = {**os.environ, "TRITON_INTERPRET": "1", "CUDA_VISIBLE_DEVICES": ""}
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("page_id,n,body", CUDA_UNITS, ids=[f"{p}-bloc{n}" for p, n, _ in CUDA_UNITS])
def test_cuda_unit_compiles(page_id, n, body, tmp_path):
    nvcc = shutil.which("nvcc")
    if not nvcc:
        pytest.skip("nvcc absent : les unités CUDA ne sont pas compilées sur cette machine")
    unit = tmp_path / f"{page_id}_{n}.cu"
    unit.write_text(body, encoding="utf-8")
    proc = subprocess.run([nvcc, "-std=c++17", "-arch=sm_90a", "-c", str(unit), "-o", os.devnull],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_every_planned_chapter_exists():
    missing = [c["path"] for c in PLAN["chapters"] if not (CORPUS / c["path"]).exists()]
    assert len(PLAN["chapters"]) == 69
    assert not missing, f"{len(missing)} chapitres manquants : {missing[:10]}"
