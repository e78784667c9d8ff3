"""Two facts of the reader's words that cannot both be true are asked about, never recommended on."""
from __future__ import annotations

import json
import re

import pytest

from assistant.cli import main as cli_main
from assistant.paths import DialogueState
from paths_steps import dialogue, run_turns  # noqa: F401 (dialogue: a fixture)


@pytest.mark.parametrize("text,first,second", [
    # Coding itself denied, then a claim that supposes code.
    ("je n'ai jamais programmé, je code en Rust depuis 3 ans", "je n'ai jamais programmé",
     "je code en Rust depuis 3 ans"),
    ("I have never written code; I work as a backend developer in Go", "I have never written code",
     "I work as a backend developer in Go"),
    ("je ne programme pas, j'écris du Java au travail", "je ne programme pas", "j'écris du Java au travail"),
    # The same words denied and claimed.
    ("jamais touché à TensorFlow, j'entraîne des modèles TensorFlow tous les jours", "jamais touché à TensorFlow",
     "j'entraîne des modèles TensorFlow tous les jours"),
])
def test_two_facts_of_a_level_answer_that_clash_are_quoted_back(dialogue, text, first, second):
    state, display = run_turns(dialogue, text)
    assert display.kind == "clarification" and display.topic == "level" and state.get("level") is None
    assert f"«\u00a0{first}\u00a0»" in display.notice and f"«\u00a0{second}\u00a0»" in display.notice
    assert "ne vont pas ensemble" in display.notice
    assert [v for v, _ in display.options] == [first, second]
    # A goal answer given anyway does not turn it into a recommendation.
    state, display = dialogue.step(state, "calcul scientifique")
    assert display.kind == "clarification" and display.recommendation is None


@pytest.mark.parametrize("text", [
    "comprendre sans taper une seule ligne de code, puis programmer mes propres noyaux",
    "understand it without writing any line of code and then write my own kernels",
    "je veux coder mes kernels, mais sans jamais toucher au code",
])
def test_a_goal_answer_that_wants_no_code_and_code_is_asked_about(dialogue, text):
    state, display = run_turns(dialogue, "Python", text)
    assert display.kind == "clarification" and display.topic == "goal" and display.recommendation is None
    assert "ne vont pas ensemble" in display.notice and state.get("goal") is None


@pytest.mark.parametrize("pick,level", [("2", "programmer"), ("je code en Rust depuis 3 ans", "programmer"),
                                        ("1", "programmer")])
def test_picking_one_fact_reads_the_answer_without_the_other(dialogue, pick, level):
    state, display = run_turns(dialogue, "je n'ai jamais programmé, je code en Rust depuis 3 ans", pick)
    assert state.get("level") == level and display.kind == "question" and display.topic == "goal"
    assert state.clash == []


def test_picking_a_goal_fact_settles_that_goal(dialogue):
    text = "comprendre sans taper une seule ligne de code, puis programmer mes propres noyaux"
    _, display = run_turns(dialogue, "Python", text, "1")
    assert display.kind == "recommendation" and display.recommendation["path"] == "A"
    _, display = run_turns(dialogue, "Python", text, "2")
    assert display.kind == "recommendation" and display.recommendation["path"] == "B"


def test_back_drops_the_question_about_two_facts(dialogue):
    state, display = run_turns(dialogue, "je n'ai jamais programmé, je code en Rust depuis 3 ans", "retour")
    assert state.clash == [] and display.kind == "question" and display.topic == "level"


@pytest.mark.parametrize("turns,level,goal", [
    # An exception restricts the denial before it: no clash.
    (["je n'ai jamais programmé sauf en Rust", "simulation"], "programmer", "calcul-scientifique"),
    # "ne … plus": true before, over now.
    (["je ne code plus, j'ai codé en Java pendant dix ans", "comprendre"], "programmer", "comprendre"),
    # Different words denied and claimed.
    (["je connais PyTorch mais pas TensorFlow", "accélérer pytorch"], "pytorch", "pytorch-rapide"),
    # Writing that is not code.
    (["Python", "comprendre pour écrire des articles, sans écrire de code"], "programmer", "comprendre"),
])
def test_facts_that_go_together_are_not_asked_about(dialogue, turns, level, goal):
    _, display = run_turns(dialogue, *turns)
    assert display.kind == "recommendation"
    assert (display.recommendation["level"], display.recommendation["goal"]) == (level, goal)


def test_a_settled_answer_whose_words_clash_is_read_again_before_any_recommendation(dialogue):
    # A state written elsewhere (an API client, older rules) that settled a clashing answer.
    bad = DialogueState(answers=[["level", "programmer", {}, "je n'ai jamais programmé, je code en Rust"],
                                 ["goal", "calcul-scientifique"]])
    state, display = dialogue.step(bad.to_dict())
    assert display.kind == "clarification" and display.recommendation is None and display.topic == "level"
    assert state.get("level") is None and state.get("goal") == "calcul-scientifique"
    again = DialogueState.from_dict(json.loads(json.dumps(state.to_dict())))
    assert again.clash == state.clash and len(again.clash) == 3
    state, display = dialogue.step(again, "2")
    assert display.kind == "recommendation" and display.recommendation["path"] == "D"


@pytest.mark.parametrize("text", ["manager", "CTO", "chef de projet", "bof", "?"])
def test_a_job_title_or_a_shrug_alone_is_asked_about(dialogue, text):
    state, display = run_turns(dialogue, text)
    assert display.kind in ("clarification", "question") and display.topic == "level"
    assert display.notice or display.kind == "clarification"
    assert state.get("level") is None


def test_the_question_about_two_facts_uses_french_typography(dialogue):
    _, display = run_turns(dialogue, "je n'ai jamais programmé, je code en Rust depuis 3 ans")
    for text in (display.text, display.notice):
        assert not re.search(r" [;?!:]", text) and "« " not in text and " »" not in text
    assert "juste\u202f?" in display.text


def test_cli_asks_about_two_facts_instead_of_recommending(capsys):
    assert cli_main(["parcours", "--know", "je n'ai jamais programmé, je code en Rust",
                     "--want", "calcul scientifique", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kind"] == "clarification" and out["recommendation"] is None
    assert out["state"]["clash"][:2] == ["je n'ai jamais programmé", "je code en Rust"]


@pytest.mark.parametrize("turns", [
    ["2", "accélérer les noyaux Triton que j'ai écrits l'an dernier"],
    ["1", "l'inférence LLM, j'écris déjà des noyaux CUDA pour vLLM"],
])
def test_a_goal_answer_that_claims_what_the_level_denies_reopens_the_level(dialogue, turns):
    state, display = run_turns(dialogue, *turns)
    assert display.kind == "clarification" and display.topic == "level" and display.recommendation is None
    offered = {v for v, _ in display.options}
    assert len(offered) == 2 and offered & {"cuda-simple", "optimiser", "hopper"}
    assert "ne vont pas ensemble" in display.notice
    # Chosen again, the level stands: the reader's last word.
    level = {"1": "programmer", "2": "pytorch"}[turns[0]]
    label = next(o["label"] for o in dialogue.levels if o["id"] == level)
    state, display = dialogue.step(state, label)
    assert display.kind == "recommendation" and display.recommendation["level"] == level


@pytest.mark.parametrize("turns", [["2", "je veux écrire mon premier noyau CUDA"],
                                   ["1", "calcul scientifique, je code des solveurs en Fortran"]])
def test_a_goal_answer_with_a_wish_or_a_claim_the_level_allows_is_recommended(dialogue, turns):
    _, display = run_turns(dialogue, *turns)
    assert display.kind == "recommendation"


def test_no_to_a_prerequisite_the_level_supposes_reopens_the_level(dialogue):
    state, display = run_turns(dialogue, "5", "megakernels")
    assert display.topic == "pre:warp"
    state, display = dialogue.step(state, "non")
    assert display.kind == "clarification" and display.topic == "level" and display.recommendation is None
    assert "warp" in display.notice and {v for v, _ in display.options} == {"optimiser", "hopper"}


@pytest.mark.parametrize("text", [
    "rien du tout, je profile avec ncu",
    "je n'ai jamais entendu parler des warps, j'écris des kernels warp-specialized",
])
def test_knowing_nothing_or_an_unknown_word_against_a_claim_is_asked_about(dialogue, text):
    state, display = run_turns(dialogue, text, "inférence LLM")
    assert display.kind == "clarification" and display.recommendation is None and state.get("level") is None


@pytest.mark.parametrize("turns,level,goal", [
    # A topic before it: "rien du tout" is that topic's predicate, not a claim about all.
    (["Python oui, le GPU ? rien du tout", "comprendre"], "programmer", "comprendre"),
    # Over now: no contradiction with a past claim.
    (["je n'ai pas programmé depuis longtemps, mais je faisais du Java", "comprendre"], "programmer", "comprendre"),
    (["I haven't coded in years, I used to write Java", "understand"], "programmer", "comprendre"),
    # "sans" scopes over what follows it; one's own code left as it is is a wish of path C.
    (["pytorch", "rendre PyTorch plus rapide sans réécrire mon code"], "pytorch", "pytorch-rapide"),
    (["pytorch", "make my PyTorch training faster without rewriting my code"], "pytorch", "pytorch-rapide"),
    (["pytorch", "accélérer mon entraînement sans toucher à mon code"], "pytorch", "pytorch-rapide"),
])
def test_negations_with_their_own_scope_are_not_contradictions(dialogue, turns, level, goal):
    _, display = run_turns(dialogue, *turns)
    assert display.kind == "recommendation"
    assert (display.recommendation["level"], display.recommendation["goal"]) == (level, goal)


@pytest.mark.parametrize("turns,level", [
    # A beginner in a named domain lacks that domain and what lies beyond, nothing below it.
    (["débutant en CUDA, j'ai écrit deux ou trois noyaux simples", "premier noyau"], "cuda-simple"),
    (["beginner at CUDA, I've done a vector add", "my first useful kernel"], "cuda-simple"),
    (["je suis nouveau sur Hopper mais j'optimise des noyaux avec ncu", "inférence LLM"], "optimiser"),
    # "expert" says how good, not at what.
    (["je suis expert PyTorch, jamais écrit de noyau", "accélérer pytorch"], "pytorch"),
    (["expert en C++, débutant en GPU", "premier noyau"], "programmer"),
])
def test_a_beginner_or_an_expert_in_a_named_domain_is_no_contradiction(dialogue, turns, level):
    _, display = run_turns(dialogue, *turns)
    assert display.kind == "recommendation" and display.recommendation["level"] == level


def test_a_beginner_with_a_prerequisite_does_not_know_it(dialogue):
    reading = dialogue.read("level", "novice with TMA, but I profile CUDA kernels with Nsight daily")
    assert reading.facts == {"tma": False} and reading.match.option == "optimiser"


@pytest.mark.parametrize("text", ["débutant complet, j'écris des noyaux CUDA simples",
                                  "total beginner, I wrote a couple of simple CUDA kernels"])
def test_a_beginner_at_everything_who_writes_kernels_is_asked_about(dialogue, text):
    state, display = run_turns(dialogue, text)
    assert display.kind == "clarification" and state.get("level") is None


@pytest.mark.parametrize("text", ["je connais le nom", "oui, vite fait", "j'ai déjà vu passer", "I know the term",
                                  "yes I've come across it"])
def test_knowing_the_name_of_a_prerequisite_is_not_knowing_it(dialogue, text):
    state, display = run_turns(dialogue, "pytorch", "megakernels")
    topic = display.topic
    state, display = dialogue.step(state, text)
    assert state.facts()[topic[4:]] is False


def test_a_prerequisite_seen_in_passing_in_a_free_answer_is_not_known(dialogue):
    reading = dialogue.read("level", "j'optimise des noyaux, TMA je connais le nom, mbarrier vu passer, warps oui")
    assert reading.facts == {"tma": False, "mbarrier": False, "warp": True}


@pytest.mark.parametrize("text", ["anything but LLM inference", "tout sauf l'inférence LLM"])
def test_everything_but_a_goal_never_recommends_that_goal(dialogue, text):
    state, display = run_turns(dialogue, "Python", text)
    assert display.recommendation is None and state.get("goal") is None
    assert "inference-llm" in dialogue.read("goal", text).excludes


def test_a_goal_the_level_answer_says_no_interest_in_is_asked_again_and_stands_when_chosen_again(dialogue):
    first = "je fais du PyTorch, l'inférence LLM ne m'intéresse pas"
    state, display = run_turns(dialogue, first, "E")
    assert display.kind == "clarification" and display.topic == "goal" and display.recommendation is None
    assert "«\u00a0l'inférence LLM ne m'intéresse pas\u00a0»" in display.notice
    state, display = dialogue.step(state, "inférence LLM")
    assert display.kind == "recommendation" and display.recommendation["path"] == "E"
    # A denial of experience speaks of the level, not of the goal.
    _, display = run_turns(dialogue, "ML engineer, I use PyTorch but never wrote a Triton kernel", "make my PyTorch training faster")
    assert display.kind == "recommendation" and display.recommendation["path"] == "C"


def test_a_prerequisite_one_answer_affirms_and_another_denies_is_asked(dialogue):
    state, display = run_turns(dialogue, "j'optimise des noyaux, je connais TMA", "megakernels, mais TMA jamais vu")
    assert state.contested() == {"tma"} and "tma" not in state.stated()
    asked = []
    while display.kind == "prerequisite":
        asked.append(display.topic)
        if display.topic == "pre:tma":
            assert "Une de vos réponses dit connaître TMA, une autre non." in display.notice
        state, display = dialogue.step(state, "oui")
    assert "pre:tma" in asked and display.recommendation["missing_prerequisites"] == []


@pytest.mark.parametrize("text", ["j'écris des noyaux CUDA, mais pas de noyaux Hopper",
                                  "I write CUDA kernels, but no Hopper kernels",
                                  "je n'ai jamais touché un GPU Hopper, j'écris des kernels CUDA simples"])
def test_kernels_denied_with_a_narrower_word_deny_that_level_only(dialogue, text):
    _, display = run_turns(dialogue, text, "inférence LLM")
    assert display.kind == "recommendation" and display.recommendation["level"] == "cuda-simple"


def test_the_same_narrowed_kernels_denied_and_claimed_are_asked_about(dialogue):
    state, display = run_turns(dialogue, "jamais écrit de noyau Hopper, mais j'écris des noyaux Hopper avec TMA")
    assert display.kind == "clarification" and state.get("level") is None


@pytest.mark.parametrize("text,kept", [("je code en Python tous les jours", "jours"),
                                       ("je dois prendre des décisions", "prendre"),
                                       ("pas de background technique", "technique"),
                                       ("I would like to understand", "would")])
def test_words_the_guide_uses_are_not_spelt_into_other_words(dialogue, text, kept):
    from assistant.paths.read.clauses import clean
    assert kept in clean(text, dialogue.rules).split()


@pytest.mark.parametrize("text", ["pas de background technique, j'écris du CUTLASS",
                                  "aucune notion de programmation, mais j'utilise Triton pour mes noyaux"])
def test_no_background_at_all_against_kernels_is_asked_about(dialogue, text):
    state, display = run_turns(dialogue, text)
    assert display.kind == "clarification" and state.get("level") is None


def test_without_a_goal_word_denies_it(dialogue):
    state, display = run_turns(dialogue, "Python", "rendre PyTorch plus rapide sans PyTorch")
    assert display.kind == "clarification" and display.recommendation is None


@pytest.mark.parametrize("turns,level,goal", [
    (["I don't write kernels myself; I use PyTorch and Hugging Face daily for fine-tuning",
      "make fine-tuning faster, maybe with Triton"], "pytorch", "pytorch-rapide"),
    (["J'entraîne des modèles de vision avec PyTorch ; je n'ai jamais écrit de noyau",
      "Mes entraînements sont lents, j'aimerais les accélérer sans réécrire tout mon code"], "pytorch", "pytorch-rapide"),
    (["I optimise CUDA kernels for a living (Nsight Compute every day), but I've never written Hopper-specific code "
      "and I don't know TMA", "LLM inference, serving models with low latency"], "optimiser", "inference-llm"),
])
def test_long_answers_with_negations_that_hold_together_are_recommended(dialogue, turns, level, goal):
    _, display = run_turns(dialogue, *turns)
    assert display.kind == "recommendation"
    assert (display.recommendation["level"], display.recommendation["goal"]) == (level, goal)


@pytest.mark.parametrize("text,facts", [
    ("j'optimise des noyaux ; warp oui, mbarrier pas vraiment, TMA je crois, sync non",
     {"warp": True, "mbarrier": False, "tma": False, "sync": False}),
    ("j'optimise des noyaux, je connais les warps mais les mbarriers, bof", {"warp": True, "mbarrier": False}),
    ("j'optimise des noyaux, TMA : j'ai lu un article dessus", {"tma": False}),
    ("j'optimise des noyaux, je maîtrise TMA... enfin, à peu près", {"tma": False}),
    ("I optimize kernels, warps and TMA are fine; mbarriers I am shaky on", {"warp": True, "tma": True, "mbarrier": False}),
])
def test_a_prerequisite_said_with_a_doubt_is_not_known(dialogue, text, facts):
    reading = dialogue.read("level", text)
    assert reading.facts == facts and reading.match.option == "optimiser"
