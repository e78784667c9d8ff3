"""The reading-path dialogue against the guide's reading-path page (its spec)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from assistant.cli import main as cli_main
from assistant.paths import DialogueState
from evals.common import load_set
from evals.paths import evaluate
from paths_steps import dialogue, run_turns  # noqa: F401 (dialogue: a fixture)

ROOT = Path(__file__).resolve().parent.parent
PAGE = (ROOT / "corpus" / "parcours.md").read_text(encoding="utf-8")
SEED = ROOT.parent / "shared" / "seed" / "parcours-de-lecture.txt"

LEVELS = ["programmer", "pytorch", "cuda-simple", "optimiser", "hopper"]
GOALS = {"comprendre": "A", "premier-noyau": "B", "pytorch-rapide": "C", "calcul-scientifique": "D",
         "inference-llm": "E", "megakernels": "F"}
LEVEL_START = {"programmer": "Fondations, chapitre 1", "pytorch": "Fondations, chapitre 2",
               "cuda-simple": "Performance", "optimiser": "CUDA moderne", "hopper": "Megakernels"}
# First chapter to read in the path once what the level masters is marked optional.
FIRST_CHAPTER = {
    "A": dict.fromkeys(LEVELS, "resume-01"),
    "B": {"programmer": "fondations-01", "pytorch": "fondations-02", "cuda-simple": "performance-01",
          "optimiser": "pratique-06", "hopper": "pratique-06"},
    "C": {"programmer": "fondations-01", "pytorch": "fondations-02", "cuda-simple": "performance-01",
          "optimiser": "ecosysteme-02", "hopper": "ecosysteme-02"},
    "D": {"programmer": "fondations-01", "pytorch": "fondations-02", "cuda-simple": "performance-01",
          "optimiser": "fondations-06", "hopper": "fondations-06"},
    "E": {"programmer": "fondations-01", "pytorch": "fondations-02", "cuda-simple": "performance-01",
          "optimiser": "cuda-moderne-01", "hopper": "ia-01"},
    "F": dict.fromkeys(LEVELS, "megakernels-01"),
}
LEVEL_QUESTION = "Qu'est-ce que vous savez déjà\u202f?"
GOAL_QUESTION = "Qu'est-ce que vous voulez en faire\u202f?"
HOURS = {"A": "≈ 5 h", "B": "≈ 12 h", "C": "≈ 10 h", "D": "≈ 12 h", "E": "≈ 15 h", "F": "≈ 8 h"}


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("goal", sorted(GOALS))
def test_every_pair_gives_the_page_path_and_start(dialogue, level, goal):
    letter = GOALS[goal]
    turns = [level, goal] + (["oui"] * 4 if letter == "F" else [])
    _, display = run_turns(dialogue, *turns)
    rec = display.recommendation
    assert display.kind == "recommendation"
    assert rec["path"] == letter and rec["level_start"] == LEVEL_START[level]
    assert rec["start"]["id"] == FIRST_CHAPTER[letter][level]
    assert HOURS[letter] in display.text.replace("\u00a0", " ")


def test_path_f_checks_the_four_prerequisites_and_sends_to_cuda_moderne(dialogue):
    state, display = run_turns(dialogue, "pytorch", "megakernels")
    asked = []
    while display.kind == "prerequisite":
        asked.append(display.text)
        state, display = dialogue.step(state, "non" if "mbarrier" in display.text else "oui")
    assert len(asked) == 4 and any("cudaDeviceSynchronize()" in q for q in asked)
    rec = display.recommendation
    assert rec["missing_prerequisites"] == ["mbarrier"]
    assert rec["steps"][0]["before"] and rec["steps"][0]["label"] == "CUDA moderne"
    assert rec["start"]["id"] == "cuda-moderne-01"
    assert "lisez d'abord CUDA moderne" in display.text


def test_every_level_is_asked_the_prerequisites_its_words_did_not_settle(dialogue):
    # "5" says nothing about the four: all are asked, and only then "Prérequis vérifiés".
    state, display = run_turns(dialogue, "hopper", "F")
    asked = []
    while display.kind == "prerequisite":
        assert "Prérequis vérifiés" not in display.notice + display.text
        asked.append(display.topic)
        state, display = dialogue.step(state, "oui")
    assert asked == ["pre:warp", "pre:mbarrier", "pre:tma", "pre:sync"]
    assert display.recommendation["missing_prerequisites"] == []
    assert "Prérequis vérifiés avec vous" in display.text


def test_path_b_shows_its_exit_test(dialogue):
    _, display = run_turns(dialogue, "1", "B")
    assert "plus de 80\u00a0% de la bande passante mémoire" in display.text
    assert "chiffres du profileur à l'appui" in display.recommendation["exit_test"]


def test_personalisation_marks_mastered_steps_optional_and_recomputes_hours(dialogue):
    rec = dialogue.recommend("cuda-simple", "inference-llm")
    fondations = rec["steps"][0]
    assert fondations["optional"] and all(c["optional"] for c in fondations["chapters"])
    assert rec["hours"] == 15 and rec["remaining_hours"] < 15
    assert "marqués facultatifs" in rec["text"] and "il reste environ" in rec["text"]
    # Path D keeps its floating-point chapter compulsory whatever the level.
    d = dialogue.recommend("hopper", "calcul-scientifique")
    reread = next(s for s in d["steps"] if s["label"].startswith("Fondations · Nombres flottants"))
    assert not reread["optional"]


def test_free_text_with_confidence_and_clarification(dialogue):
    _, display = run_turns(dialogue, "je fais du PyTorch depuis deux ans mais je n'ai jamais écrit de noyau")
    assert display.kind == "question" and display.text == GOAL_QUESTION
    state, display = run_turns(dialogue, "je débute mais j'écris des noyaux Hopper avec TMA")
    assert display.kind == "clarification" and len(display.options) == 2
    assert {v for v, _ in display.options} == {"programmer", "hopper"}
    state, display = dialogue.step(state, "2")
    assert display.kind == "question" and state.get("level") == "hopper"


def test_back_restart_and_serialisable_state(dialogue):
    state, _ = run_turns(dialogue, "1", "A")
    state = DialogueState.from_dict(json.loads(json.dumps(state.to_dict())))
    state, display = dialogue.step(state, "retour")
    assert display.kind == "question" and state.get("goal") is None and state.get("level") == "programmer"
    state, display = dialogue.step(state, "E")
    assert display.recommendation["path"] == "E"
    state, display = dialogue.step(state, "recommencer")
    assert state.answers == [] and display.text == LEVEL_QUESTION


def _page_paths(text: str) -> dict[str, dict]:
    """Paths, hours and step labels as written on the page (Markdown links removed)."""
    plain = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    plain = re.sub(r" \((?:\d+(?:, )?)+\)", "", plain)          # "(1, 2, 3)" chapter-number link lists
    out = {}
    for m in re.finditer(r"Parcours ([A-F]) — ([^\n]+)\n+(≈ [^.\n]+h)[^\n]*\n(.*?)(?=\n#+ |\nParcours [A-F] —|\Z)",
                         plain, re.S):
        steps = re.findall(r"^\s*\d+\.\s+(.+?)\s*$", m.group(4), re.M)
        out[m.group(1)] = {"title": m.group(2).strip(" #"), "hours": m.group(3), "steps": steps}
    return out


@pytest.mark.parametrize("source", ["page", "seed"])
def test_data_matches_the_reading_path_page(dialogue, source):
    if source == "seed" and not SEED.exists():
        pytest.skip("la page d'origine (../shared/seed) n'est pas à côté de ce dépôt")
    text = PAGE if source == "page" else SEED.read_text(encoding="utf-8")
    page = _page_paths(text)
    assert sorted(page) == list("ABCDEF")
    for letter, path in dialogue.data["paths"].items():
        assert page[letter]["title"] == path["title"]
        assert path["hours_text"].startswith(page[letter]["hours"].split(",")[0])
        labels = [re.sub(r"\s+", " ", s) for s in page[letter]["steps"]]
        assert [s["label"] for s in path["steps"]] == labels, letter
    plain = re.sub(r"\s+", " ", re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text).replace("`", ""))
    assert dialogue.data["paths"]["B"]["exit_test"] in plain
    assert dialogue.data["paths"]["F"]["prerequisites_text"] in plain
    for letter, path in dialogue.data["paths"].items():
        for key in ("audience", "outcome", "note"):
            assert path.get(key, "") in plain, (letter, key)
    for opt in dialogue.levels:
        assert opt["label"] in plain and opt["start"] in plain
    for opt in dialogue.goals:
        assert opt["label"] in text


def test_every_step_resolves_to_an_existing_chapter(dialogue):
    for path in dialogue.data["paths"].values():
        for step in path["steps"] + ([path["before"]] if "before" in path else []):
            for cid in step["chapters"]:
                assert (ROOT / "corpus" / dialogue.chapters[cid]["path"]).exists(), cid


@pytest.mark.parametrize("name,size", [("paths", 60), ("paths_heldout", 30), ("paths_dev_extra", 70),
                                       ("paths_dev2", 130), ("paths_dev3", 95), ("paths_dev4", 130), ("paths_dev5", 130), ("paths_dev6", 130),
                                       ("paths_dev_cases", 25)])
def test_free_text_eval_reaches_its_targets_on_dev(dialogue, name, size):
    result = evaluate(dialogue, load_set(name))
    assert result["dialogues"] >= size
    assert result["accuracy"] >= 0.9, result["failures"]
    assert result["confident_despite_ambiguity"] == 0
    # A prerequisite only named ("TMA, Hopper plus tard") is asked, by design: one more question,
    # where taking it as known would contradict a reader who does not know it; the Hopper
    # level's own label ("Hopper + TMA") is the exception. No goal on that count.


def test_words_the_rules_know_in_a_sentence_they_have_not_seen(dialogue):
    _, display = run_turns(dialogue, "je suis développeuse web et je ne connais pas du tout les GPU")
    assert display.kind == "question" and display.text == GOAL_QUESTION


def test_cli_flags_json(capsys):
    assert cli_main(["parcours", "--know", "3", "--want", "B", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kind"] == "recommendation" and out["recommendation"]["path"] == "B"
    assert cli_main(["parcours", "--know", "2", "--want", "F", "--sais", "warp,tma,sync"]) == 0
    text = capsys.readouterr().out
    assert "mbarrier" in text and "CUDA moderne" in text


# -- the examples of the reading-path defects, as a user wrote them -------------------------

def test_kernel_writer_who_never_saw_mbarrier_and_tma_is_not_placed_at_hopper(dialogue):
    state, display = run_turns(dialogue, "j'écris des kernels cuda, je sais ce qu'est un warp et qu'il faut pas mettre de "
                                    "cudaDeviceSynchronize entre deux kernels, mais mbarrier et TMA j'ai jamais vu",
                          "les megakernels en détail")
    assert state.get("level") != "hopper"
    # All four were answered by the words: no question, CUDA moderne first.
    assert display.kind == "recommendation"
    rec = display.recommendation
    assert rec["path"] == "F" and sorted(rec["missing_prerequisites"]) == ["mbarrier", "tma"]
    assert rec["steps"][0]["before"] and rec["start"]["id"] == "cuda-moderne-01"
    assert "Compris de votre réponse\u00a0: vous savez ce qu'est un warp" in display.text
    assert "TMA\u00a0: pas encore vu" in display.text


def test_only_the_prerequisites_not_stated_are_asked_and_the_stated_ones_are_named(dialogue):
    state, display = run_turns(dialogue, "J'optimise des noyaux CUDA, je sais ce qu'est un warp mais TMA jamais vu",
                          "megakernels")
    assert display.kind == "prerequisite"
    assert "Compris de votre réponse\u00a0: vous savez ce qu'est un warp\u202f; TMA\u00a0: pas encore vu" in display.notice
    assert "Prérequis vérifiés" not in display.notice + display.text
    asked = []
    while display.kind == "prerequisite":
        asked.append(display.topic)
        state, display = dialogue.step(state, "oui")
    assert asked == ["pre:mbarrier", "pre:sync"]
    assert display.recommendation["missing_prerequisites"] == ["tma"]


@pytest.mark.parametrize("text,options", [
    ("Je ne connais rien au GPU, mais j'écris des noyaux Hopper avec TMA tous les jours", {"programmer", "hopper"}),
    ("je débute mais j'écris des noyaux Hopper avec TMA", {"programmer", "hopper"}),
    ("never programmed a GPU, but I tune kernel occupancy with ncu every day", {"programmer", "optimiser"}),
])
def test_a_contradiction_is_asked_about_never_settled(dialogue, text, options):
    state, display = run_turns(dialogue, text)
    assert display.kind == "clarification" and {v for v, _ in display.options} == options
    assert "ne vont pas ensemble" in display.notice and state.get("level") is None


def test_a_later_answer_that_denies_the_chosen_level_reopens_it(dialogue):
    state, display = run_turns(dialogue, "5", "les megakernels, mais TMA jamais vu")
    assert display.kind == "clarification" and display.topic == "level"
    assert {v for v, _ in display.options} == {"optimiser", "hopper"}
    state, display = dialogue.step(state, "Optimiser un noyau, profiler")
    assert state.get("level") == "optimiser" and state.get("goal") == "megakernels"
    assert display.kind == "prerequisite" and display.topic != "pre:tma"


@pytest.mark.parametrize("turns,level,goal", [
    (["python", "premier kernel"], "programmer", "premier-noyau"),
    (["Je programme en C++ depuis des années mais je n'ai jamais touché au GPU", "comprendre"],
     "programmer", "comprendre"),
    (["I know PyTorch inside out, never wrote a CUDA kernel", "speed up my PyTorch code with custom fused kernels"],
     "pytorch", "pytorch-rapide"),
    (["Je fais de la mécanique des fluides en Fortran avec MPI", "Porter mes solveurs sur GPU"],
     "programmer", "calcul-scientifique"),
    (["numpy/scipy, never touched a GPU", "scientific computing"], "programmer", "calcul-scientifique"),
    (["je conné python et numpy mais pas le gpu", "simulation"], "programmer", "calcul-scientifique"),
])
def test_clear_answers_need_no_clarification(dialogue, turns, level, goal):
    state, display = dialogue.step(DialogueState())
    for text in turns:
        state, display = dialogue.step(state, text)
        assert display.kind != "clarification", text
    assert display.kind == "recommendation"
    assert (display.recommendation["level"], display.recommendation["goal"]) == (level, goal)


@pytest.mark.parametrize("text", ["banane", "asdf", "???"])
def test_unknown_words_get_i_did_not_understand_with_all_options(dialogue, text):
    state, display = run_turns(dialogue, text)
    assert display.kind == "question" and len(display.options) == 5
    assert display.notice.startswith("Je n'ai pas compris votre réponse") and state.answers == []


@pytest.mark.parametrize("text", ["", "   ", "\n"])
def test_an_empty_answer_says_so_and_loses_nothing(dialogue, text):
    state, _ = run_turns(dialogue, "pytorch")
    after, display = dialogue.step(state, text)
    assert after.answers == state.answers and display.kind == "question"
    assert display.notice.startswith("Votre réponse est vide")


def test_an_overlong_answer_is_refused_without_losing_anything(dialogue):
    state, _ = run_turns(dialogue, "pytorch")
    after, display = dialogue.step(state, "je connais PyTorch. " * 150 + "x")
    assert after.answers == state.answers and display.kind == "question"
    assert display.notice.startswith("Votre réponse est trop longue (3\u202f001 caractères")


@pytest.mark.parametrize("letter", list("ABCDEF"))
def test_chapter_times_add_up_to_the_page_figure(dialogue, letter):
    rec = dialogue.recommend("programmer", {v: k for k, v in GOALS.items()}[letter],
                             {"warp": True, "mbarrier": True, "tma": True, "sync": True})
    minutes = [c["minutes"] for s in rec["steps"] for c in s["chapters"]]
    assert sum(minutes) == dialogue.data["paths"][letter]["hours"] * 60
    assert rec["remaining_hours"] == pytest.approx(rec["hours"])


def test_chapters_put_in_front_count_in_the_hours_shown(dialogue):
    rec = dialogue.recommend("pytorch", "megakernels", {"warp": True, "mbarrier": False, "tma": True, "sync": True})
    before = [c for s in rec["steps"] if s["before"] for c in s["chapters"]]
    assert len(before) == 8 and all(c["minutes"] > 0 for c in before)
    total = sum(c["minutes"] for s in rec["steps"] for c in s["chapters"])
    # Path E shares its 15 h over 37 chapters: CUDA moderne's eight get 25 min each.
    assert sum(c["minutes"] for c in before) == 200 and total == 8 * 60 + 200
    assert rec["remaining_hours"] * 60 == pytest.approx(total)
    assert "plus 3\u00a0h\u00a020 de CUDA moderne à lire d'abord" in rec["hours_text"]
    assert "11\u00a0h\u00a020 en tout" in rec["text"]


def test_messages_use_french_typography(dialogue):
    _, display = run_turns(dialogue, "banane")
    for text in (display.text, display.notice):
        assert not re.search(r" [;?!:]", text) and "« " not in text and " »" not in text
    _, display = run_turns(dialogue, "2", "C")
    assert not re.search(r" [;?!]", display.text)


# -- when an answer is clear enough, and the invariant before every recommendation -----------

@pytest.mark.parametrize("text", ["un peu de CUDA", "développeur", "data scientist", "chercheuse",
                                  "dev backend, et j'ai vaguement bidouillé des trucs sur GPU"])
def test_vague_words_and_job_titles_alone_are_asked_about(dialogue, text):
    state, display = run_turns(dialogue, text)
    assert display.kind == "clarification" and display.topic == "level" and state.get("level") is None


@pytest.mark.parametrize("text,facts", [
    ("j'optimise des noyaux, je connais tout sauf TMA", {"tma": False}),
    ("I know everything except mbarriers", {"mbarrier": False}),
    ("j'ai entendu parler des warps, TMA vaguement", {"warp": False, "tma": False}),
    ("I sort of know mbarriers, warps yes", {"mbarrier": False, "warp": True}),
    ("je connais les warps mais pas les mbarrier ni TMA", {"warp": True, "mbarrier": False, "tma": False}),
    ("le reste (mbarrier, TMA) je connais pas", {"mbarrier": False, "tma": False}),
])
def test_prerequisites_read_clause_by_clause(dialogue, text, facts):
    assert dialogue.read("level", text).facts == facts


def test_heard_of_tma_is_no_evidence_of_writing_hopper_kernels(dialogue):
    assert dialogue.read("level", "j'ai entendu parler de TMA").match.option != "hopper"


@pytest.mark.parametrize("turns", [
    ["3", "écrire mon premier noyau, je n'ai jamais écrit de kernel"],
    ["4", "inférence LLM, mais je n'ai jamais touché un GPU"],
    ["Hopper, TMA", "megakernels, mais je ne sais pas ce qu'est un warp"],
])
def test_a_level_that_a_stated_fact_contradicts_is_never_recommended(dialogue, turns):
    state, display = run_turns(dialogue, *turns)
    assert display.kind == "clarification" and display.topic == "level"
    assert dialogue.conflicts(state) == ([], False) and state.get("level") is None
    # A state that carries the contradiction is caught before any recommendation is shown.
    bad = DialogueState(answers=[["level", turns[0] == "3" and "cuda-simple" or "optimiser"],
                                 ["goal", "premier-noyau", {"level:cuda-simple": False, "level:optimiser": False}]])
    _, shown = dialogue.step(bad)
    assert shown.kind == "clarification" and shown.recommendation is None


def test_a_contradicted_level_chosen_again_stands(dialogue):
    state, display = run_turns(dialogue, "5", "les megakernels, mais TMA jamais vu", "Écrire des noyaux Hopper avec TMA")
    assert state.get("level") == "hopper" and display.kind == "prerequisite"
    while display.kind == "prerequisite":
        state, display = dialogue.step(state, "oui")
    assert display.recommendation["missing_prerequisites"] == ["tma"]


def test_an_answer_to_the_next_question_after_a_misunderstanding_is_not_taken_as_a_level(dialogue):
    state, display = run_turns(dialogue, "I can bake a mean apple pie", "pytorch plus rapide")
    assert display.topic == "level" and state.get("level") is None
