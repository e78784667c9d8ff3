"""What a question asks for decides the composed answer's lead."""
from __future__ import annotations

import pytest

from assistant.compose.blocks import section_blocks
from assistant.compose.intent import question_intent
from assistant.support import support


@pytest.mark.parametrize("question, kind, code", [
    ("Pourquoi la transposition naïve est-elle lente ?", "why", False),
    ("What causes shared memory bank conflicts?", "why", False),
    ("mon noyau ne fait rien et ne plante pas, le tableau de sortie reste à zéro", "why", False),
    ("my old warp-synchronous code broke on Volta, why?", "why", False),
    ("Combien de SM sur un H100 ?", "howmuch", False),
    ("how many TFLOP/s does FlashAttention-4 reach on B200?", "howmuch", False),
    ("C'est quoi la différence entre CUDA et Triton ?", "compare", False),
    ("Comment éviter les conflits de banques ?", "how", False),
    ("how do I write a vector add in Triton?", "how", True),
    ("Montre-moi le code de l'addition de vecteurs", "", True),
    ("Qu'est-ce que la coalescence ?", "what", False),
    ("c quoi la coalescence", "what", False),
    ("warp", "", False),
    ("mon kernel lit des valeurs pourries de temps en temps", "why", False),
    ("my job just hangs forever, one rank never gets there", "why", False),
])
def test_question_intent(question, kind, code):
    intent = question_intent(question)
    assert (intent.kind, intent.code) == (kind, code)


def test_definition_subject_ignores_the_bridge():
    assert question_intent("What is a warp? (warp)").subject == {"warp"}


def test_section_blocks():
    text = ("Intro.\n\n1. Lancer le noyau.\n2. Mesurer le temps.\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\n"
            "```python\nx = 1\n```\n")
    blocks = section_blocks(text)
    assert blocks.steps == ("Lancer le noyau.", "Mesurer le temps.")
    assert blocks.tables == (("| a | b |\n| --- | --- |", ("| 1 | 2 |",)),)
    assert blocks.codes == ("```python\nx = 1\n```",)


@pytest.mark.parametrize("claim, ok", [
    ("Le H100 SXM offre 3.35 TB/s de bande passante HBM [1].", True),      # decimal point, English unit
    ("Le H100 SXM offre 3,35 To/s de bande passante HBM [1].", True),
    ("Le H100 SXM offre 4,8 To/s de bande passante HBM [1].", False),       # the H200's figure
    ("Les cartes grand public n'ont pas de HBM du tout [1].", False),       # words the passage does not hold
])
def test_support_reads_words_and_figures(claim, ok):
    passage = "Le H100 SXM a 80 Go de HBM3 ; sa bande passante HBM est de 3,35 To/s."
    assert support(claim, [passage]).ok is ok


@pytest.mark.parametrize("question, subject, parts", [
    ("Qu'est-ce qu'une rupture de graphe dans torch.compile ?", {"ruptur", "graph"}, ()),
    ("À quoi sert la mémoire constante ?", {"memoir", "const"}, ()),
    ("Quelle différence entre mma.sync, wgmma et tcgen05 ?", set(), ("mma.sync", "wgmma", "tcgen05")),
    ("taille d'un secteur et d'une ligne de cache sur GPU ?", set(), ("secteur", "lign")),
    ("Combien de banques compte la mémoire partagée et quand y a-t-il conflit ?", set(), ("banqu", "confl")),
])
def test_subject_head_and_parts(question, subject, parts):
    intent = question_intent(question)
    assert set(intent.subject) == subject and intent.parts == parts


def test_names_and_asking_words():
    intent = question_intent("how do I give each thread its own random stream with cuRAND?")
    assert intent.named == {"curand"}
    assert "blelloch" in question_intent("Comment fonctionne un scan parallèle de Blelloch ?").named
    assert question_intent("Qu'appelle-t-on exactement un megakernel ?").frame == {"appel"}
    assert question_intent("Combien de threads au maximum dans un bloc ?").bound


def test_a_year_question():
    intent = question_intent("En quelle année CUDA est-il apparu et qu'a-t-il changé par rapport au GPGPU ?")
    assert intent.kind == "when" and intent.parts == ("cuda", "chang")


@pytest.mark.parametrize("question, parts", [
    ("padding ou swizzling pour éviter les conflits de banques, lequel choisir ?", ("padding", "swizzling")),
    ("BF16 ou FP16, laquelle des deux précisions choisir ?", ("bf16", "fp16")),
])
def test_a_choice_between_two_is_a_comparison(question, parts):
    asked = question_intent(question)
    assert asked.kind == "compare" and asked.parts == parts


def test_what_does_x_do_has_x_as_subject():
    asked = question_intent("what does triton.testing.do_bench do under the hood?")
    assert asked.kind == "what" and asked.subject == frozenset({"triton.testing.do_bench"})


@pytest.mark.parametrize("question,doing", [
    ("comment capturer un graphe CUDA à partir d'un flux ?", True),
    ("comment declarer de la memoire partagee dynamique", True),       # no accents
    ("how do I create a TMA descriptor?", True),
    ("comment fonctionne le TMA ?", False),                            # how it works, not how to
    ("how does speculative decoding get more tokens per weight read?", False),
])
def test_how_to_do_is_told_from_how_it_works(question, doing):
    assert question_intent(question).doing is doing


@pytest.mark.parametrize("question", ["which paper introduced the online softmax trick?",
                                      "qui a inventé le tuilage en mémoire partagée ?",
                                      "quel article a proposé FlashAttention ?"])
def test_asking_for_a_reference_wants_its_year(question):
    assert question_intent(question).kind == "when"


@pytest.mark.parametrize("question,code", [("comment on calcule un softmax en ligne ? code python stp", True),
                                           ("write the kernel, code please", True),
                                           ("mon vieux code cuda ne compile plus", False)])
def test_code_asked_after_the_question(question, code):
    assert question_intent(question).code is code


@pytest.mark.parametrize("question, parts", [
    ("gluon vs triton: what do you gain and what do you give up?", ("gluon", "triton")),
    ("CUDA graphs vs PDL vs fusion: which cost does each one remove?", ("cuda", "pdl", "fusion")),
])
def test_a_comparison_keeps_its_sides_before_a_second_question(question, parts):
    assert question_intent(question).parts == parts


@pytest.mark.parametrize("question", ["what's the largest value FP8 E4M3 can hold?",
                                      "what tolerance should I use for a bf16 kernel?"])
def test_the_largest_value_or_a_tolerance_is_a_figure(question):
    assert question_intent(question).kind == "howmuch"
    assert question_intent("what's the largest value FP8 E4M3 can hold?").bound


@pytest.mark.parametrize("question, condition", [("When is __constant__ memory actually a good idea?", True),
                                                 ("dans quels cas un megakernel ne vaut pas l'effort ?", True),
                                                 ("quand utiliser cutlass plutot que cublas", True),
                                                 ("when was CUDA released?", False),
                                                 ("c'est quoi la mémoire constante ?", False)])
def test_asking_when_a_thing_is_worth_it_wants_the_condition(question, condition):
    assert question_intent(question).condition is condition


@pytest.mark.parametrize("question, choice", [("padding vs swizzling: when should I prefer one over the other?", True),
                                              ("instance spot vs à la demande pour apprendre, laquelle prendre ?", True),
                                              ("cuBLAS ou CUTLASS, tu conseilles quoi ?", True),
                                              ("quelles ops d'un transformer sont des gemm et lesquelles sont memory bound", False),
                                              ("c'est quoi la différence entre PTX et SASS ?", False)])
def test_asking_which_one_to_take_wants_the_rule_of_choice(question, choice):
    assert question_intent(question).choice is choice
