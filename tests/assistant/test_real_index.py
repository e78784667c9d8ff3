"""The answer stage on a real index: ingest of the fixture chapters with the real embedder,
the real hybrid Retriever, then ``answer`` and ``tuile ask`` on it."""
from __future__ import annotations

import json

import pytest

from assistant.answer import answer
from assistant.answer_records import Conversation
from assistant.cli import main
from assistant.search.retrieve import Retriever
from ingest import ingest
from ingest.config import Config

from answer_fixtures import CORPUS, run

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    config = Config(corpus_dir=CORPUS, index_dir=tmp_path_factory.mktemp("index"))
    ingest(config)
    return config


def test_cited_answer_and_followup_on_the_real_retriever(index, sections):
    from ingest.sentences import is_verbatim
    retriever = Retriever(index)
    _, first = run(answer("Pourquoi la transposition naïve plafonne-t-elle ?", None, "composed",
                          retriever=retriever, config=index))
    assert first.kind == "answer" and first.chapter_ids[0] == "performance-07"
    by_n = {c.n: c for c in first.citations}
    assert all(is_verbatim(q.text, sections[(by_n[q.n].chapter_id, by_n[q.n].anchor)]) for q in first.quotes)
    _, second = run(answer("et avec des tuiles de 64 ?", Conversation().with_answer(first), "composed",
                           retriever=retriever, config=index))
    assert second.followup and "performance-07" in second.chapter_ids


def test_off_topic_is_refused_on_the_real_retriever(index):
    _, final = run(answer("Quelle est la recette de la tarte tatin ?", None, "composed",
                          retriever=Retriever(index), config=index))
    assert final.kind == "refusal" and final.suggestions


def test_tuile_ask_json(index, capsys):
    assert main(["ask", "--json", "--index", str(index.index_dir), "Qu'est-ce qu'un warp ?"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kind"] == "answer"
    assert data["citations"][0]["link"].startswith("corpus/02-programmation/04-warps-en-pratique.md")


def test_tuile_ask_streams_text(index, capsys):
    assert main(["ask", "--index", str(index.index_dir), "À quoi sert le padding contre les conflits de banques ?"]) == 0
    out = capsys.readouterr().out
    assert "Pour approfondir" in out and "[1]" in out


def test_bm25_on_disk_and_both_rankings(index):
    from assistant.answer import lexicon_for
    from assistant.search.query import analyse
    from ingest.index import generation_dir, read_manifest
    gen = generation_dir(index.index_dir, read_manifest(index.index_dir)["generation"])
    assert (gen / "bm25" / "tuile.json").exists()
    retriever = Retriever(index)
    query = analyse("How do I avoid shared memory bank conflicts?", "en", lexicon_for(retriever, index))
    assert "éviter" in query.bridged
    runs = retriever.search_runs(query, k=3)
    assert runs.hits and runs.dense and runs.sparse
    assert runs.sparse[0][0] == "performance-07"      # the padding section answers it, in French
    _, final = run(answer("How do I avoid shared memory bank conflicts?", None, "composed",
                          retriever=retriever, config=index))
    assert final.kind == "answer" and final.decision in ("answer", "partial") and final.language == "en"


def test_the_rerank_keeps_its_vectors_beside_the_index(index, sections):
    from ingest.sentences import is_verbatim
    retriever = Retriever(index)
    question = "Pourquoi la transposition naïve plafonne-t-elle ?"
    _, first = run(answer(question, None, "composed:rerank", retriever=retriever, config=index))
    kept = list(index.index_dir.glob("lead-vectors-*.npz"))
    assert first.kind == "answer" and len(kept) == 1
    by_n = {c.n: c for c in first.citations}
    assert all(is_verbatim(q.text, sections[(by_n[q.n].chapter_id, by_n[q.n].anchor)]) for q in first.quotes)
    stamp = kept[0].stat().st_mtime_ns
    _, again = run(answer(question, None, "composed:rerank", retriever=retriever, config=index))
    assert again.text == first.text and kept[0].stat().st_mtime_ns == stamp   # warm: nothing embedded, nothing written
