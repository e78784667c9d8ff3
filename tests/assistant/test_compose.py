"""Composed answers quote the guide verbatim, each sentence with its section's citation."""
from __future__ import annotations

import re

import pytest

from ingest.sentences import is_verbatim, sentences
from assistant.compose import compose

QUESTIONS = ["Pourquoi la transposition naïve est-elle lente ?", "Comment éviter les conflits de banques ?",
             "Qu'est-ce qu'un warp ?", "Combien de mémoire partagée occupe une tuile de 32 × 32 ?",
             "Pourquoi n'atteint-on jamais 100 % de la bande passante ?", "divergence"]


@pytest.mark.parametrize("question", QUESTIONS)
def test_every_quote_is_verbatim_from_its_cited_section(question, retriever, sections):
    hits = retriever.search(question)
    comp = compose(question, hits)
    assert comp.quotes, question
    by_n = {c.n: c for c in comp.citations}
    for quote in comp.quotes:
        cited = by_n[quote.n]
        assert is_verbatim(quote.text, sections[(cited.chapter_id, cited.anchor)]), quote.text
        assert f"{quote.text} [{quote.n}]" in comp.text


def test_citations_have_label_and_link(retriever):
    comp = compose("Comment éviter les conflits de banques ?", retriever.search("conflits de banques"))
    first = comp.citations[0]
    assert first.label == ("Performance · 7. Étude de cas : la transposition de matrice "
                           "› Le padding contre les conflits de banques")
    assert first.link == "corpus/03-performance/07-transposition.md#le-padding-contre-les-conflits-de-banques"
    assert "Pour approfondir" in comp.pieces[-1] and first.link in comp.pieces[-1]


def test_lead_answers_the_question(retriever):
    comp = compose("Combien de mémoire partagée occupe une tuile de 32 × 32 ?",
                   retriever.search("mémoire partagée tuile 32 × 32"))
    assert "4 Ko" in comp.quotes[0].text


def test_code_and_tables_are_never_quoted():
    text = "Une phrase du guide qui compte assez de mots.\n\n```cuda\nint x; // Pas une phrase du guide.\n```\n| a | b c d e f |"
    assert sentences(text) == ["Une phrase du guide qui compte assez de mots."]


def test_answer_is_short(retriever):
    comp = compose("warp", retriever.search("warp shuffle divergence"))
    assert 1 <= len(comp.quotes) <= 4


def test_no_sentence_no_answer():
    assert compose("warp", []).quotes == ()


def test_numbers_follow_first_use(retriever):
    comp = compose("Qu'est-ce qu'un warp ?", retriever.search("warp shuffle divergence"))
    numbers = [int(n) for n in re.findall(r"\[(\d+)\]", "".join(comp.pieces[:-1]))]
    firsts = list(dict.fromkeys(numbers))
    assert firsts == sorted(firsts) and firsts[0] == 1


@pytest.mark.parametrize("text, expected", [
    ("Une bonne réponse ressemble à ceci : « Ma version atteint 85 %. Elle plafonne ensuite. » Fin de la phrase ici.",
     ["Une bonne réponse ressemble à ceci : « Ma version atteint 85 %. Elle plafonne ensuite. » Fin de la phrase ici."]),
    ("Le noyau lit les données (voir le chapitre 3. Tout y est dit) puis écrit le tout. Une autre phrase assez longue suit.",
     ["Le noyau lit les données (voir le chapitre 3. Tout y est dit) puis écrit le tout.",
      "Une autre phrase assez longue suit."]),
    ("La fonction `x. Y` garde ses points dans le code. Une deuxième phrase de cinq mots.",
     ["La fonction `x. Y` garde ses points dans le code.", "Une deuxième phrase de cinq mots."]),
])
def test_sentences_do_not_split_inside_quotes_parentheses_or_code(text, expected):
    assert sentences(text) == expected


def test_definition_questions_lead_with_the_definition():
    from assistant.records import Hit

    def hit(section, text, rank):
        return Hit(f"c#{rank}", "megakernels-02", "8", "Megakernels", 2, "Définition et généalogie", section,
                   section.lower(), "08-megakernels/02-definition-et-genealogie.md", text, 1 / (60 + rank), 0.9, 1.0)

    hits = [hit("Histoire", "Le mot megakernel est revenu au premier plan en 2025 avec les LLM. "
                            "Ce chapitre montre ce qu'est un megakernel et d'où il vient.", 0),
            hit("Définition", "Un megakernel est un noyau persistant unique qui exécute toute une passe avant.", 1)]
    comp = compose("Qu'est-ce qu'un megakernel ?", hits)
    assert comp.quotes[0].text.startswith("Un megakernel est un noyau persistant")
