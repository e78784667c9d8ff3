"""Clear answers that must not be asked again: chat shorthand, lists with words the rules do not
name, adjectives in "non", reasons and purposes beside a goal; and the denials that must stay
denials. Sentences here are written for the tests, not taken from the evaluation sets."""
from __future__ import annotations

import pytest

from assistant.paths.read.yesno import read_yes_no
from paths_steps import dialogue, run_turns  # noqa: F401 (dialogue: a fixture)


def _sure(dialogue, stage, text):
    match = dialogue.read(stage, text).match
    return match.option if match.sure else None


@pytest.mark.parametrize("stage,text,option", [
    # "+ rapide" is "plus rapide", "0 GPU" is none, "prog" is programming.
    ("goal", "mes modèles PyTorch + rapides", "pytorch-rapide"),
    ("goal", "entraîner + vite sous PyTorch", "pytorch-rapide"),
    ("level", "de la prog en Java, 0 GPU", "programmer"),
    # "qui serve à quelque chose" says useful; serving models is still inference.
    ("goal", "coder un premier noyau qui sert à quelque chose", "premier-noyau"),
    ("goal", "servir des LLM en production", "inference-llm"),
    # A list item the rules have no word for, and a denial that takes the list back by a pronoun.
    ("level", "j'optimise des noyaux avec Nsight, mais Hopper, TMA, multicast, je ne les ai jamais abordés",
     "optimiser"),
    # Having used one prerequisite and never another is coherent.
    ("level", "j'optimise mes noyaux ; les mbarriers, j'en ai utilisé avec cp.async, mais TMA jamais vu", "optimiser"),
    # "non alignés" is an adjective, not a denial of the profiling.
    ("level", "j'optimise des noyaux, je traque les accès non alignés dans Nsight Compute", "optimiser"),
    # A reason that is not the reader's wish, a possessive purpose: the goal's why and where.
    ("goal", "comprendre les megakernels, parce qu'on répète que c'est l'avenir de l'inférence", "megakernels"),
    ("goal", "comprendre en détail les megakernels pour notre serveur d'inférence", "megakernels"),
])
def test_clear_answers_are_settled(dialogue, stage, text, option):
    assert _sure(dialogue, stage, text) == option


def test_the_list_denial_and_the_unused_prerequisite_are_kept(dialogue):
    reading = dialogue.read("level", "j'optimise des noyaux avec Nsight, mais Hopper, TMA, multicast, je ne les ai "
                                     "jamais abordés")
    assert reading.facts.get("tma") is False and not reading.contradiction
    assert dialogue.read("level", "je profile mes noyaux, TMA non utilisé").facts.get("tma") is False


def test_a_beginner_who_claims_tma_still_contradicts_himself(dialogue):
    # The narrow-denial rule leaves the broad ones alone: "je débute" against a TMA claim.
    assert dialogue.read("level", "je débute, mais j'écris des noyaux avec TMA").contradiction


def test_a_conditional_count_is_no_wish(dialogue):
    wish = dialogue.rules.wish
    assert not wish.search("sauf si on compte un tutoriel triton")
    assert wish.search("je compte apprendre triton")


@pytest.mark.parametrize("text", ["c koi ?", "c quoi ça ?", "nn", "nn jamais vu"])
def test_chat_answers_to_a_prerequisite_say_no(dialogue, text):
    assert read_yes_no(text, dialogue.rules) is False


def test_a_shorthand_dialogue_reaches_its_path_without_a_question(dialogue):
    _, display = run_turns(dialogue, "prog python mais 0 GPU", "que PyTorch aille + vite")
    assert display.kind == "recommendation" and display.recommendation["path"] == "C"
    assert display.recommendation["level"] == "programmer"
