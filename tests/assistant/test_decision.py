"""The question analysed once (bridge to French), the refusal decision and its fitting."""
from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from assistant.answer import answer, lexicon_for
from assistant.search.query import Lexicon, analyse, cognate, gloss_pairs, glossary_pairs
from assistant.search.relevance import FEATURES, RefusalModel, coverage, decide, load_model, named_words, trap_sense
from evals.calibrate import fit_refusal

from answer_fixtures import run

GLOSSARY = """- **Conflit de banques** (*bank conflict*) : un conflit de banques survient quand …
- **Accès coalescé** (*coalesced access*) : un accès coalescé est …
- **Warp** : un warp regroupe 32 threads.
"""


@dataclass
class Passage:
    title: str
    section: str
    text: str
    chapter_id: str = "annexes-01"


def test_glossary_gives_english_french_pairs():
    assert glossary_pairs(GLOSSARY) == [("bank conflict", "Conflit de banques"), ("coalesced access", "Accès coalescé")]


def test_english_phrases_are_bridged_to_the_guides_french_words():
    lexicon = Lexicon.from_passages([Passage("Glossaire", "C", GLOSSARY)])
    query = analyse("How do I avoid shared memory bank conflicts?", "en", lexicon)
    assert "Conflit de banques" in query.bridged and "éviter" in query.bridged
    assert {"confl", "banqu"} <= set(query.terms)               # French terms BM25 can match
    assert query.text == "How do I avoid shared memory bank conflicts?"   # the dense side reads the question
    french = analyse("Pourquoi mes bank conflicts ?", "fr", lexicon)
    assert french.bridged == ("Conflit de banques",)          # multi-word phrases only for French


CHAPTER = """Le **tri par base** (*radix sort*) range les clés chiffre par chiffre. Faute de
registres, le compilateur déverse (*spill*) des valeurs en mémoire locale ; les dispositions
des données (*layouts*) comptent aussi. Un ordonnancement statique fixe les tâches d'avance,
un ordonnancement dynamique les distribue au fil de l'eau ; la latence de la mémoire…
"""


def test_a_chapters_glosses_give_pairs():
    assert gloss_pairs(CHAPTER) == [("radix sort", "tri par base"), ("spill", "déverse")]   # not « données »


def test_chapter_glosses_and_cognates_bridge_english_questions():
    lexicon = Lexicon.from_passages([Passage("Tris", "Tri par base", CHAPTER, "domaines-02")])
    query = analyse("Static vs dynamic scheduling, and why does a radix sort spill?", "en", lexicon)
    assert {"statique", "dynamique", "tri par base", "déverse"} <= set(query.bridged)
    french = analyse("Un radix sort statique ?", "fr", lexicon)
    assert french.bridged == ("tri par base",)               # cognates are for English questions only


@pytest.mark.parametrize("word, french", [
    ("static", "statique"), ("latency", "latence"), ("memory", "memoire"),
    ("dynamics", "dynamiques"),   # the French stem « dynam » is the guide's
    ("music", None),           # the guide writes no « musique »: a cognate is a word it uses
])
def test_cognates_are_words_the_guide_writes(word, french):
    lexicon = Lexicon.from_passages([Passage("Tris", "Tri par base", CHAPTER, "domaines-02")])
    assert cognate(word, lexicon.french) == french


@pytest.mark.parametrize("question, trap", [
    ("Comment recompiler le noyau Linux pour une clé Wi-Fi ?", True),
    ("Comment devenir pilote de ligne ?", True),
    ("Comment s'inscrire au registre du commerce ?", True),
    ("How fast is warp drive in Star Trek?", True),
    ("Comment suivre un thread Twitter ?", True),
    ("Pourquoi mon noyau Triton est-il lent ?", False),
    ("Quel pilote NVIDIA installer pour CUDA 12 ?", False),
    ("Combien de registres par thread sur un H100 ?", False),
    ("Le coût de lancement d'un produit matriciel", False),
    ("Triton, c'est quel dieu de la mythologie grecque ?", True),     # a GPU word does not clear its own sense
    ("what is the stress-energy tensor in general relativity?", True),
    ("Les lois de Kepler, expliquées simplement ?", True),
    ("Quelle est la taille du noyau d'un atome ?", True),
    ("c koi la fission du noyau atomique ?", True),
    ("code d'un noyau persistant qui pioche ses tuiles dans un compteur atomique stp", False),
    ("Pourquoi mon noyau Triton accumule-t-il mal avec des atomiques ?", False),   # Triton clears « noyau »
    ("How do tensor cores work on Hopper?", False),
    ("Comment Pascal gère-t-il la mémoire unifiée ?", False),
    ("Pourquoi la pression sur les registres baisse l'occupation sur Pascal ?", False),
])
def test_trap_senses(question, trap):
    assert trap_sense(question) is trap


@pytest.mark.parametrize("question, missing, named", [
    ("Comment écrire un shader pour Unity ?", ["unity"], 1),          # capitalised inside the sentence
    ("how do I install OptiFine shaders?", ["optifine"], 1),          # a capital past the first letter
    ("j'ai un OOM à l'entraînement", ["oom"], 1),
    ("Unity, c'est quoi ?", ["unity"], 0),                            # first word: any word is capitalised
    ("ma pâte thermique est sèche", ["pate"], 0),
    ("Pourquoi mon GPU Rust est-il lent ?", ["rust", "lent"], 1),
])
def test_named_words_are_the_missing_words_written_as_names(question, missing, named):
    assert named_words(question, missing) == named


def test_numbers_and_inflected_everyday_words_count_as_covered():
    lexicon = Lexicon.from_passages([Passage("Warps", "W", "Un warp regroupe 32 threads.")])
    share, missing = coverage(analyse("why is my warp 1.7x slower?", "en", lexicon), lexicon)
    assert share == 1.0 and missing == ()
    share, missing = coverage(analyse("the warp moves while moving", "en", lexicon), lexicon)
    assert missing == ()                       # "moves", "moving": the general "move" by stem
    share, missing = coverage(analyse("un warp pour Minecraft", "fr", lexicon), lexicon)
    assert missing == ("minecraft",) and share == 0.5


def test_english_slopes_are_zero_for_french_questions(retriever):
    lexicon = lexicon_for(retriever)
    french = decide(analyse("Pourquoi la transposition naïve plafonne-t-elle ?", "fr", lexicon),
                    retriever.search("Pourquoi la transposition naïve plafonne-t-elle ?"), lexicon)
    assert french.features["known_en"] == 0.0 and french.features["dense_en"] == 0.0
    english = decide(analyse("Why does the naive transpose plateau?", "en", lexicon),
                     retriever.search("Why does the naive transpose plateau?"), lexicon)
    assert english.features["known_en"] == english.features["known"]
    assert english.features["dense_en"] == english.features["dense"] > 0


def test_linear_rule_is_the_old_threshold():
    model = RefusalModel.linear(0.5, 1.3)
    assert model.verdict(model.probability({"dense": 0.9, "known": 1.0})) == "answer"    # 1.4 >= 1.3
    assert model.verdict(model.probability({"dense": 0.9, "known": 1 / 3})) == "refuse"  # 1.07 < 1.3


def test_calibrated_model_file_covers_every_feature():
    model = load_model()
    assert set(model.weights) == set(FEATURES)
    assert 0.0 < model.refuse_below <= model.partial_below < 1.0


def test_fit_separates_what_the_features_separate():
    rng = random.Random(1)
    inside = [{f: rng.gauss(0.0, 1.0) for f in FEATURES} | {"known": rng.uniform(0.8, 1.0)} for _ in range(60)]
    outside = [{f: rng.gauss(0.0, 1.0) for f in FEATURES} | {"known": rng.uniform(0.0, 0.5)} for _ in range(30)]
    fit = fit_refusal(inside, outside)
    assert fit["weights"]["known"] > 0
    assert fit["cv"]["precision"] >= 0.95 and fit["cv"]["recall"] >= 0.95
    assert fit["by_set"] == {}                 # no sets given: no leave-one-set-out figures
    model = RefusalModel.from_dict(fit)
    assert model.verdict(model.probability(inside[0])) != "refuse"
    assert model.verdict(model.probability(outside[0])) == "refuse"


def test_leave_one_set_out_holds_each_set_out_once():
    rng = random.Random(2)
    inside = [{f: rng.gauss(0.0, 1.0) for f in FEATURES} | {"known": rng.uniform(0.8, 1.0)} for _ in range(90)]
    outside = [{f: rng.gauss(0.0, 1.0) for f in FEATURES} | {"known": rng.uniform(0.0, 0.5)} for _ in range(45)]
    groups = (["a", "b", None] * 30, ["a", "b", "b"] * 15)    # None: always trained on
    fit = fit_refusal(inside, outside, groups=groups)
    assert set(fit["by_set"]["sets"]) == {"a", "b"}
    assert fit["by_set"]["recall"] >= 0.9 and fit["by_set"]["inscope_refused"] <= 0.1


def test_decision_on_the_fixture_retriever(retriever):
    lexicon = lexicon_for(retriever)
    model = RefusalModel.linear(0.3, 0.95)
    inside = decide(analyse("Pourquoi la transposition naïve plafonne-t-elle ?", "fr", lexicon),
                    retriever.search("Pourquoi la transposition naïve plafonne-t-elle ?"), lexicon, model)
    assert inside.verdict == "answer" and inside.features["known"] == 1.0
    outside = decide(analyse("Quelle recette de tarte tatin ?", "fr", lexicon),
                     retriever.search("Quelle recette de tarte tatin ?"), lexicon, model)
    assert outside.verdict == "refuse"


def test_partial_answer_says_what_the_guide_does_not_answer(retriever):
    # a model whose partial band holds every relevant question: the notice must appear
    model = RefusalModel({"dense": 1.0, "known": 0.3}, -0.95, {}, {}, 0.5, 0.9999)
    pieces, final = run(answer("Pourquoi la transposition naïve plafonne-t-elle avec Verilog ?",
                               retriever=retriever, refusal=model))
    assert final.kind == "answer" and final.decision == "partial"
    said = " ".join(p.text for p in pieces)
    assert "Le guide en parle dans" in said and "sans répondre exactement à" in said and "verilog" in said


def test_a_french_question_borrowing_a_run_of_english_words_gets_their_french():
    lexicon = Lexicon.from_passages([Passage("Glossaire", "C", GLOSSARY)])
    lexicon = Lexicon(lexicon.french, lexicon.english,
                      {**lexicon.pairs, ("pin",): "épinglée", ("memory",): "mémoire", ("coalescing",): "coalescence",
                       ("kernel",): "noyau"})
    assert set(analyse("pinned memory c quoi et pk c plus rapide", "fr", lexicon).bridged) == {"épinglée", "mémoire"}
    assert analyse("coalescing c quoi", "fr", lexicon).bridged == ("coalescence",)        # "-ing" is English
    assert analyse("mon kernel plante au lancement", "fr", lexicon).bridged == ()        # one word among French ones
