"""Reading-path questions go to the path dialogue, not to retrieval."""
from __future__ import annotations

import pytest

from assistant.answer import answer
from assistant.paths import route

from answer_fixtures import ExplodingRetriever, run

PATHS = ["Par où commencer ?", "par quoi je dois commencer", "Quel parcours pour moi ?",
         "Quel parcours me conseilles-tu ?", "Je débute, que dois-je lire ?",
         "Dans quel ordre lire le guide ?", "Quel chapitre lire en premier ?",
         "Where should I start?", "What should I read first?"]
NOT_PATHS = ["Pourquoi ma transposition plafonne à 25 % de la bande passante ?",
             "Qu'est-ce qu'un warp ?", "Comment commencer un noyau CUDA par la vérification des bornes ?",
             "Quel ordre de grandeur pour la latence de la HBM ?", "et avec des tuiles de 64 ?",
             # words of the reading-path patterns in another sense (eval regressions)
             "Pourquoi faut-il un ordre mémoire release et acquire sur les compteurs ?",
             "Que faire face au déséquilibre de charge dans un parcours de graphe ?",
             "Quel parcours de graphe est le plus rapide sur GPU ?"]


@pytest.mark.parametrize("question", PATHS)
def test_reading_path_questions_are_routed(question):
    assert route(question).kind == "reading_path"
    pieces, final = run(answer(question, retriever=ExplodingRetriever()))
    assert final.kind == "reading_path"
    assert "parcours" in final.text


@pytest.mark.parametrize("question", NOT_PATHS)
def test_other_questions_are_answered(question):
    assert route(question).kind == "answer"
