"""The one analyser (ingest.analyzer) and the bm25s-backed BM25 index on real text."""
from __future__ import annotations

import pytest

from ingest.analyzer import content_words, index_terms, normalise_space, terms, words
from ingest.bm25 import ANALYZER_VERSION, BM25Index
from ingest.sentences import is_verbatim, sentences


@pytest.mark.parametrize("a, b", [
    ("la mémoire partagée", "la memoire partagee"),           # typed without accents
    ("Qu’est-ce qu’un warp ?", "qu'est-ce qu'un warp?"),      # curly apostrophe
    ("débit\u202f?", "débit ?"),                               # narrow no-break space
    ("Réponse\u00a0: la bande passante", "Réponse : la bande passante"),
])
def test_same_terms_whatever_the_typography(a, b):
    assert terms(a) == terms(b)


def test_no_break_spaces_are_spaces():
    assert words("25\u202f% de la\u00a0bande") == ["25", "de", "la", "bande"]
    assert normalise_space("a\u00a0\u00a0b\n c") == "a b c"


def test_english_gpu_terms_kept_and_plural_folded():
    assert terms("Les warps et les kernels") == ["warp", "kernel"]
    assert "shared_memory" in index_terms("shared memory bank conflicts")
    assert "shared_memory" not in terms("shared memory")      # joined notions are for BM25 only


def test_stop_words_in_both_languages_are_dropped():
    assert terms("Pourquoi est-ce que c'est comme ça ?") == []
    assert terms("What is the reason why it does that?") == ["reason"]
    assert content_words("Comment éviter les conflits ?") == ["eviter", "conflits"]


def test_sentences_with_french_typography_stay_verbatim():
    text = "La bande passante plafonne\u202f: elle atteint 9\u00a0% du pic mesuré sur H200. Le tuilage la porte à 80\u00a0% et plus."
    found = sentences(text)
    assert len(found) == 2 and all(is_verbatim(s, text) for s in found)


def _index():
    ids = ["a", "b", "c"]
    texts = ["La transposition naïve plafonne à 9 % de la bande passante.",
             "Les conflits de banques de la mémoire partagée sérialisent les accès.",
             "Un warp regroupe 32 threads qui exécutent la même instruction."]
    return BM25Index.from_texts(ids, texts)


def test_bm25_ranks_and_filters():
    index = _index()
    assert index.search("conflits de banques")[0][0] == "b"
    assert [i for i, _ in index.search("combien de threads dans un warp", k=1)] == ["c"]
    assert index.search("conflits de banques", allowed={"a", "c"}) == []
    assert index.search("tarte tatin") == []                  # no known term: nothing, not an error
    assert index.search("") == []


def test_bm25_saves_and_loads_and_refuses_another_analyser(tmp_path):
    index = _index()
    index.save(tmp_path / "bm25")
    again = BM25Index.load(tmp_path / "bm25")
    assert again is not None and again.search("mémoire partagée") == index.search("mémoire partagée")
    meta = tmp_path / "bm25" / "tuile.json"
    meta.write_text(meta.read_text().replace(f'"analyzer": "{ANALYZER_VERSION}"', '"analyzer": "0"'))
    assert BM25Index.load(tmp_path / "bm25") is None          # rebuilt from the passages instead
    assert BM25Index.load(tmp_path / "absent") is None


def test_sentences_end_after_an_acronym_and_not_after_et_al():
    text = ("Le H100 SXM compte 132 SM. Chaque SM a quatre partitions de calcul. "
            "Dao et al. (2022) ont publié la première version du noyau.")
    assert sentences(text) == ["Le H100 SXM compte 132 SM.", "Chaque SM a quatre partitions de calcul.",
                               "Dao et al. (2022) ont publié la première version du noyau."]


def test_paragraphs_group_the_sentences_that_follow_each_other():
    from ingest.sentences import paragraphs
    text = ("Le premier paragraphe a deux phrases. Voici la seconde phrase du paragraphe.\n\n"
            "| a | b |\n| --- | --- |\n| 1 | 2 |\n\n"
            "- Un élément de liste est son propre groupe de phrases.\n\n"
            "Un autre paragraphe commence ici et il continue. Ok. Puis une phrase après le fragment.\n")
    groups = paragraphs(text)
    assert groups[0] == ["Le premier paragraphe a deux phrases.", "Voici la seconde phrase du paragraphe."]
    assert groups[1] == ["Un élément de liste est son propre groupe de phrases."]
    # « Ok. » is too short to quote: what follows it is not next to what precedes it
    assert groups[2] == ["Un autre paragraphe commence ici et il continue."]
    assert groups[3] == ["Puis une phrase après le fragment."]
    assert [s for g in groups for s in g] == sentences(text)


def test_pytorch_format_names_are_the_guides_terms():
    # the tolerance table's row says « BF16 »; learners write PyTorch's "bfloat16"
    assert terms("bfloat16 tensors") == terms("BF16 tensors")
    assert terms("float32 ou float16") == terms("FP32 ou FP16")
