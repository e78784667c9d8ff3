"""A path-F prerequisite is known only when the reader's words affirm it; a recommendation only
when both answers are clear and agree. Sentences here are written for the tests, not taken from
the evaluation sets."""
from __future__ import annotations

import pytest

from assistant.paths.read.yesno import read_yes_no
from paths_steps import dialogue, run_turns  # noqa: F401 (dialogue: a fixture)


@pytest.mark.parametrize("text,facts", [
    # Affirmed: first person, a knowing or affirming predicate.
    ("je connais bien la TMA", {"tma": True}),
    ("warp/mbarrier/TMA ok", {"warp": True, "mbarrier": True, "tma": True}),
    ("I use TMA every day; mbarriers fine; warps obviously", {"tma": True, "mbarrier": True, "warp": True}),
    ("les warps, pas de souci, la TMA par contre jamais", {"warp": True, "tma": False}),
    # Denied, in the clause or by a first-person denial right after it.
    ("les mbarrier, je n'y ai jamais rien compris", {"mbarrier": False}),
    ("warps yes, the rest no", {"warp": True}),
    ("PyTorch oui, mais TMA et mbarrier c'est du chinois pour moi", {"tma": False, "mbarrier": False}),
    # Kernels named with it, in a level answer: what the reader writes, so known.
    ("noyaux H100 + TMA", {"tma": True}),
    ("hopper kernels w/ TMA", {"tma": True}),
    # Only named, wished for or asked about: unsettled, so the question is asked.
    ("H100 + TMA", {}),
    ("noyaux H100 + TMA ?", {}),
    ("je veux apprendre la TMA", {}),
    ("cudaDeviceSynchronize entre deux kernels c'est bien, non ?", {}),
    ("the mbarriers are handled by the library", {}),
    # Learning, trying, struggling, meaning to: not known yet.
    ("I should learn TMA", {}),
    ("je galère avec les mbarrier", {}),
    ("I tried TMA once", {}),
    ("je vais me mettre à la TMA", {}),
    # Informal spelling of the first person.
    ("j utilise tma tous les jours", {"tma": True}),
    # Read again around each name: a denial next to it is never a known prerequisite, and a
    # name in a list takes the predicate after the list.
    ("les warps je maîtrise, mais la TMA pas vue et les mbarrier non plus", {"warp": True, "tma": False, "mbarrier": False}),
    ("I know warps well but the rest (mbarrier, TMA) is fuzzy to me", {"warp": True, "tma": False}),
    # The clause reader took TMA as known and the synchronisation as not; the words around
    # each name disagree, so both are asked.
    ("warps et mbarrier ok, la tma jamais et la synchro entre noyaux ok", {"warp": True, "mbarrier": True}),
])
def test_a_prerequisite_is_known_only_when_the_words_affirm_it(dialogue, text, facts):
    got = dialogue.read("level", text).facts
    assert {k: v for k, v in got.items() if k in {"warp", "mbarrier", "tma", "sync"}} == facts


def test_a_prerequisite_only_named_is_asked_and_the_answer_counts(dialogue):
    state, display = run_turns(dialogue, "H100 + TMA au boulot", "megakernels")
    assert display.kind == "prerequisite"
    asked = []
    while display.kind == "prerequisite":
        asked.append(display.topic[4:])
        state, display = dialogue.step(state, "non" if display.topic == "pre:mbarrier" else "oui")
    assert "tma" in asked and "mbarrier" in asked
    assert display.kind == "recommendation"
    assert display.recommendation["missing_prerequisites"] == ["mbarrier"]


@pytest.mark.parametrize("text,known", [
    ("oui, sinon le CPU attend pour rien", True),
    ("ok", True),
    ("yes, otherwise the host waits for nothing", True),
    ("oui mais pas vraiment", False),
    ("yes, learning it right now", False),
    ("oui, mais je galère encore avec", False),
    ("oui ?", None),
    ("ya", True),
    ("yeah bc the gpu sits idle", True),
    ("c'est quoi ?", False),
    ("euh pourquoi ce serait mal ?", False),
    ("un groupe de threads, c'est ça ? oui", True),
    ("non, pourquoi ?", False),
    ("oui, le CPU attend et on perd le recouvrement", True),
])
def test_yes_no_answers_that_explain_themselves(dialogue, text, known):
    assert read_yes_no(text, dialogue.rules) is known


def test_a_goal_the_level_answer_wishes_against_is_asked_again(dialogue):
    state, display = run_turns(dialogue, "je fais du Go et je veux seulement comprendre, pas coder",
                          "écrire mon premier noyau")
    assert display.kind == "clarification" and display.topic == "goal"
    assert {v for v, _ in display.options} == {"comprendre", "premier-noyau"}
    assert "comprendre" in display.notice
    # Chosen again when asked about it, it stands.
    state, display = dialogue.step(state, "premier-noyau")
    assert display.kind == "recommendation" and display.recommendation["path"] == "B"


def test_a_goal_the_level_answer_agrees_with_is_recommended(dialogue):
    _, display = run_turns(dialogue, "je fais du Go et je veux comprendre comment marchent les GPU",
                      "comprendre sans coder")
    assert display.kind == "recommendation" and display.recommendation["path"] == "A"


@pytest.mark.parametrize("stage,text,option", [
    # Someone else's ignorance is not the reader's.
    ("goal", "comprendre les grandes idées pour les expliquer à des clients qui n'y connaissent rien",
     "comprendre"),
    # "les deux dernières années" is a length of time, not two options at once.
    ("level", "ces deux dernières années j'ai profilé des noyaux avec Nsight Compute", "optimiser"),
    # Two supported rungs tied: the higher one, whose background the lower is.
    ("level", "je code en Go, j'entraîne des modèles avec PyTorch, jamais écrit de kernel", "pytorch"),
    # "ça" in a wish stands for what the clause before named.
    ("goal", "on parle des megakernels au boulot et j'aimerais comprendre ça en détail", "megakernels"),
])
def test_clear_answers_in_new_words_are_settled(dialogue, stage, text, option):
    match = dialogue.read(stage, text).match
    assert match.sure and match.option == option


@pytest.mark.parametrize("text", [
    "j'ai écrit des noyaux CUDA il y a des années",
    "I optimised CUDA kernels long ago",
])
def test_experience_long_past_is_asked(dialogue, text):
    _, display = run_turns(dialogue, text)
    assert display.kind == "clarification" and display.topic == "level"


@pytest.mark.parametrize("text", [
    "I code in C and want to write CUDA kernels",
    "dev Java, j'aimerais apprendre à écrire des kernels CUDA",
])
def test_a_wish_in_the_level_answer_is_no_level(dialogue, text):
    match = dialogue.read("level", text).match
    assert match.option == "programmer"
