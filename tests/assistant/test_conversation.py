"""Follow-ups resolved against the history; the conversation is plain serialisable state."""
from __future__ import annotations

import pytest

from assistant.answer import answer
from assistant.answer_records import Conversation, Turn
from assistant.conversation import resolve

from answer_fixtures import TEST_THRESHOLD, run

FIRST = "Pourquoi la transposition naïve plafonne-t-elle ?"
HISTORY = Conversation((Turn(FIRST, FIRST, "answer", ("performance-07",), "…"),))


@pytest.mark.parametrize("question", ["et avec des tuiles de 64 ?", "Et en bf16 ?", "En FP8 ?",
                                      "Pourquoi est-elle si lente ?", "Comment corriger ça ?",
                                      "Tuiles de 64 ?", "What about on AMD?",
                                      "Quelles sont ses limites ?", "Qu'est-ce qui ne se porte pas ?",
                                      "Quels résultats rapporte-t-il ?", "Comment marche-t-il ?",
                                      "Pourquoi est-ce asynchrone ?", "Quel est le coût de cette opération ?",
                                      "Comment ça marche sur Blackwell ?", "Pourquoi ?", "Comment le mesurer ?",
                                      "Comment l'éviter ?", "quelles tolérances pour du bf16 alors ?",
                                      "why is batch-1 decode the worst case for that?", "and on AMD?",
                                      "comment on le mesure ?", "pourquoi c'est le thread 0 qui la lance ?",
                                      "on y accède comment ?", "donc le gain maximal est de combien ?",
                                      "combien de registres dedans ?", "what other libraries do the same?",
                                      "montre-moi le code avec les tuiles de 64", "show me the code",
                                      "so why is it slower?", "Pourquoi ne le voit-on pas dans Nsight Systems ?",
                                      "en quoi c'est différent de CUTLASS ?", "quelle différence avec la version naïve ?",
                                      "how does it compare to cuBLAS?", "which one is better?", "lequel est le plus rapide ?",
                                      "what is the speedup?", "explique davantage", "explain in more detail",
                                      "give me a worked example", "montre-moi un exemple de code",
                                      "y a un moyen de trouver les autres endroits de mon code qui font ce genre de synchro ?",
                                      "y a une version python de ce truc ?", "qui fait ça dans mon code ?",
                                      "what's the next step to go faster?",
                                      "wait, wasn't there a paper saying they are harmful?",
                                      "concrètement dans un pipeline à S étages, l'itération i attend avec quelle parité ?",
                                      "y a d'autres lignes qui font le même coup ?", "son autotuning prend combien de temps ?",
                                      "what pattern in it tells me my loads are vectorized?",
                                      "is there a Python way to use this instead of C++ templates?",
                                      "how many blocks can I put in one at most?",
                                      "quel outil me montrerait le problème ?", "which tool would show the bug?"])
def test_followups_carry_the_previous_topic(question):
    r = resolve(question, HISTORY)
    assert r.followup and r.how == "rule"
    assert r.query.startswith(FIRST) and r.query.endswith(question)


@pytest.mark.parametrize("question", ["Qu'est-ce qu'un warp ?", "Il faut combien de registres par thread ?",
                                      "Pourquoi l'addition flottante n'est-elle pas associative ?",
                                      "Pourquoi ma transposition plafonne-t-elle à 25 % ?",
                                      "Que se passe-t-il si on oublie __syncthreads ?",
                                      "Pourquoi est-il si difficile de battre cuBLAS ?",
                                      "Combien de banques compte la mémoire partagée et quand y a-t-il conflit ?",
                                      "Qu'est-ce que la mémoire partagée ?",
                                      "Qu'est-ce qu'un accès mémoire coalescé et pourquoi est-ce important ?",
                                      "What is a warp and why does it matter?",
                                      "Quelle est la bande passante de la HBM du H100 ?",
                                      "c koi la coalescence", "c'est quoi la coalescence ?",
                                      "give me an example of a GPU hash table",
                                      "what's the KV cache?",
                                      "Comment s'y prendre pour mesurer la bande passante de la HBM ?",
                                      "Y a-t-il des conflits de banques en mémoire partagée ?",
                                      "Comment le compilateur choisit-il le nombre de registres par thread ?",
                                      "Qui a écrit le papier FlashAttention ?",
                                      "Donne-moi un exemple de noyau Triton pour une réduction",
                                      "Quels sont les autres noms du warp chez AMD ?",
                                      "how does cuDF compare to pandas?", "Quelle différence entre un warp et un bloc ?",
                                      "Triton vs CUDA, lequel choisir pour débuter ?",
                                      "donne-moi le code d'une réduction en Triton",
                                      "explique-moi la quantification", "explain FlashAttention to me",
                                      "what speedup does FlashAttention give over the naive attention?",
                                      "ThunderKittens c'est quoi ce nom ?", "Que promet ce guide ?",
                                      "nccl ça sert à quoi ?", "mon noyau avec cudaMallocManaged est hyper lent au premier passage, c'est quoi le souci",
                                      "what's the problem of bank conflicts?", "un warp et une wavefront c'est la même chose ?",
                                      "what's the 'a' in sm_90a and why does my code compiled for it not run on blackwell?"])
def test_standalone_questions_stay_as_they_are(question):
    alone, after = resolve(question, None), resolve(question, HISTORY)
    assert (after.query, after.followup, after.how, after.own) == (alone.query, False, "none", "")
    assert after.previous_chapters == HISTORY.turns[-1].chapter_ids


def test_no_history_no_followup():
    assert resolve("et avec des tuiles de 64 ?", Conversation()).query == "et avec des tuiles de 64 ?"


def test_rewriter_wins_and_a_failing_one_falls_back_to_the_rule():
    r = resolve("et avec 64 ?", HISTORY, rewriter=lambda q, turns: "Transposition avec des tuiles de 64 ?")
    assert (r.query, r.how) == ("Transposition avec des tuiles de 64 ?", "llm")

    def broken(q, turns):
        raise TimeoutError("serveur muet")
    r = resolve("et avec 64 ?", HISTORY, rewriter=broken)
    assert r.how == "rule" and r.query.startswith(FIRST)


def test_chains_of_followups_stay_bounded():
    conv = HISTORY
    for i in range(20):
        r = resolve(f"et avec {i} ?", conv)
        conv = Conversation(conv.turns + (Turn(f"et avec {i} ?", r.query, "answer"),))
    assert len(conv.turns[-1].resolved_question.split()) <= 40


def test_two_turn_conversation_end_to_end_and_json_round_trip(retriever):
    conv = Conversation()
    _, first = run(answer("Comment fonctionne la version tuilée de la transposition ?", conv,
                          retriever=retriever, threshold=TEST_THRESHOLD))
    conv = conv.with_answer(first)
    _, second = run(answer("et avec des tuiles de 64 ?", conv, retriever=retriever, threshold=TEST_THRESHOLD))
    assert second.followup and second.kind == "answer"
    assert "performance-07" in second.chapter_ids
    assert any("64" in q.text for q in second.quotes)
    conv = conv.with_answer(second)
    assert Conversation.from_json(conv.to_json()) == conv
    assert len(conv.turns) == 2 and conv.turns[1].resolved_question.endswith("tuiles de 64 ?")


def test_invalid_questions_are_not_kept_in_history(retriever):
    _, final = run(answer("   ", Conversation(), retriever=retriever))
    assert Conversation().with_answer(final) == Conversation()


def test_a_new_question_after_a_conversation_gets_a_new_answer(retriever):
    conv = Conversation()
    for q in ("Pourquoi la transposition naïve est-elle lente ?", "et avec des tuiles de 64 ?"):
        _, final = run(answer(q, conv, retriever=retriever, threshold=TEST_THRESHOLD))
        conv = conv.with_answer(final)
    # the fixture chapters write « padding », not « coalescence »: same shape of question
    _, new = run(answer("c koi le padding", conv, retriever=retriever, threshold=TEST_THRESHOLD))
    assert not new.followup and new.resolved_question == "c quoi le padding"
    assert new.kind == "answer"
    assert not {q.text for q in new.quotes} & {q.text for q in final.quotes}


@pytest.mark.parametrize("question", ["now explain the shared-memory version", "Maintenant, le même noyau en Triton ?",
                                      "ensuite on mesure comment ?", "why would anyone avoid one?",
                                      "is it worth writing my own ones?"])
def test_carrying_on_and_a_closing_one_are_followups(question):
    r = resolve(question, HISTORY)
    assert r.followup and r.query.startswith(FIRST)


@pytest.mark.parametrize("question", ["je devrais commencer direct avec ?", "je peux commencer qd même ?",
                                      "pk le 2e est limité par la mémoire ?", "why is the latter slower?"])
def test_a_lost_object_going_on_anyway_and_a_rank_are_followups(question):
    r = resolve(question, HISTORY)
    assert r.followup and r.query.startswith(FIRST)


@pytest.mark.parametrize("question", ["c'est quoi le continuous batching et qu'est-ce qu'orca a gagné avec",
                                      "le premier chapitre du guide parle de quoi ?",
                                      "what is the first step of profiling?"])
def test_a_closing_preposition_or_a_rank_with_its_own_subject_is_new(question):
    assert not resolve(question, HISTORY).followup


@pytest.mark.parametrize("question, searched", [
    ("Autre question : c'est quoi un warp ?", "c'est quoi un warp ?"),
    ("rien à voir, mais combien de banques a la mémoire partagée ?", "combien de banques a la mémoire partagée ?"),
    ("sinon, la mémoire unifiée ça sert à quoi ?", "la mémoire unifiée ça sert à quoi ?"),
    ("Unrelated, but what is a warp?", "what is a warp?"),
    ("by the way, how big is the L2 on an H100?", "how big is the L2 on an H100?"),
    ("autre question : c koi un tenseur", "c quoi un tenseur"),
])
def test_a_declared_change_of_subject_is_a_new_question_without_its_marker(question, searched):
    for history in (HISTORY, None):
        r = resolve(question, history)
        assert not r.followup and r.query == searched


@pytest.mark.parametrize("question", ["sinon ?", "sinon, comment faire ?", "et sinon ça marche aussi ?",
                                      "autre question ?"])
def test_sinon_without_a_named_subject_is_not_a_change_of_subject(question):
    assert resolve(question, HISTORY).followup


@pytest.mark.parametrize("question", ["un exemple concret stp", "le code svp", "does it run on AMD too?",
                                      "ça marche sur AMD aussi ?", "comment je vérifie les deux ?",
                                      "c'est mieux que MXFP4 ?", "is it better than Triton?"])
def test_politeness_a_closing_too_both_and_a_one_sided_better_are_followups(question):
    r = resolve(question, HISTORY)
    assert r.followup and r.query.startswith(FIRST)


@pytest.mark.parametrize("first, second, searched_as", [
    ("How is the roofline ridge point computed?", "et pour un MI300X ?", "en"),
    ("Qu'est-ce qu'un conflit de banques ?", "and on AMD?", "en"),
    ("Qu'est-ce qu'un conflit de banques ?", "et sur AMD ?", "fr"),
])
def test_a_followup_joined_to_an_english_part_is_searched_as_english(first, second, searched_as):
    history = Conversation((Turn(first, first, "answer", ("performance-04",)),))
    r = resolve(second, history)
    assert r.followup and r.language == searched_as and r.previous_chapters == ("performance-04",)


@pytest.mark.parametrize("first,second,searched", [
    ("Quelle est la taille mémoire d'un paramètre en FP16 ?", "et en bf16 ?",
     "Quelle est la taille mémoire d'un paramètre en bf16 ?"),
    ("What is the HBM bandwidth of an H100?", "and the H200?", "What is the HBM bandwidth of an H200?"),
    ("Comment mesurer un noyau CUDA ?", "et en Triton ?", "Comment mesurer un noyau Triton ?"),
    # two names side by side are one thing; a form factor goes with its card
    ("What's the largest value in FP8 E4M3?", "and e5m2?", "What's the largest value in e5m2?"),
    ("What is the HBM bandwidth of an H100 SXM?", "and MI300X?", "What is the HBM bandwidth of an MI300X?"),
])
def test_a_followup_that_swaps_one_thing_searches_the_previous_question_with_it(first, second, searched):
    history = Conversation((Turn(first, first, "answer", ("fondations-06",), "…"),))
    r = resolve(second, history)
    assert r.followup and r.query == searched and r.own == second


def test_no_swap_when_the_previous_question_names_two_of_a_kind():
    first = "H100 ou A100 pour apprendre ?"
    r = resolve("et la H200 ?", Conversation((Turn(first, first, "answer", ("pratique-01",), "…"),)))
    assert r.followup and r.query == f"{first} et la H200 ?"


@pytest.mark.parametrize("question", ["pourquoi c plus rapide ?", "pourquoi c'est plus rapide ?", "c'est mieux en triton ?"])
def test_c_est_without_a_subject_points_back(question):
    assert resolve(question, HISTORY).followup


@pytest.mark.parametrize("question", ["why tho", "tu peux montrer le code ?", "even the inline PTX asm?",
                                      "pk pas juste lancer plus de blocs ?", "combien de mémoire ça prend pour un 70B ?"])
def test_chat_followups_point_back(question):
    assert resolve(question, HISTORY).followup


@pytest.mark.parametrize("question, searched", [("nccl ça sert à quoi", "nccl ça sert à quoi"),
                                                ("et sinon event tensor c quoi", "event tensor c quoi")])
def test_a_named_subject_taken_up_by_ca_or_after_et_sinon_is_a_new_question(question, searched):
    r = resolve(question, HISTORY)
    assert not r.followup and r.query == searched


@pytest.mark.parametrize("question", ["pourquoi autant ??", "comment je fais mieux ?", "un exemple avec des vrais chiffres stp",
                                      "got a full example? like residual + rmsnorm", "t'as un exemple complet ?",
                                      "pk c trop strict pour une matmul ?", "would float4 loads help?",
                                      "would a bigger block size help?", "est-ce que ça aiderait ?",
                                      "why would I need to flush the L2 tho", "pourquoi autant ?? d'ou viennent les 16"])
def test_a_comparison_or_an_example_with_no_subject_of_its_own_points_back(question):
    assert resolve(question, HISTORY).followup


def test_an_example_of_a_named_thing_and_rien_a_voir_are_new_questions():
    assert not resolve("un exemple de table de hachage", HISTORY).followup
    assert not resolve("got an example of a hash table?", HISTORY).followup
    assert not resolve("does shared memory help with matmul performance on hopper gpus?", HISTORY).followup
    r = resolve("ok merci. autre truc: c quoi un all-to-all ?", HISTORY)
    assert not r.followup and r.query == "c quoi un all-to-all ?"
    r = resolve("sinon rien a voir, c koi wgmma", HISTORY)
    assert not r.followup and r.query == "c quoi wgmma"


@pytest.mark.parametrize("question", ["why shared memory and not just registers?", "pourquoi 128 et pas 256 ?",
                                      "c vraiment super lent, je fais comment ?"])
def test_a_choice_weighed_against_another_or_an_intensified_c_est_points_back(question):
    assert resolve(question, HISTORY).followup


@pytest.mark.parametrize("question", ["cutlass c bien ?", "is thunderkittens any good?"])
def test_an_opinion_of_a_thing_the_last_question_did_not_name_is_a_new_question(question):
    r = resolve(question, HISTORY)
    assert not r.followup and r.query == question


def test_an_opinion_of_the_thing_just_asked_about_points_back():
    history = Conversation((Turn("padding ou swizzling pour les conflits de banques ?",
                                 "padding ou swizzling pour les conflits de banques ?", "answer"),))
    assert resolve("le padding c bien ?", history).followup
    assert resolve("cette technique c bien ?", HISTORY).followup


@pytest.mark.parametrize("question", ["comment je sais si mon noyau en utilise ?", "je peux le mesurer moi-même comment ?",
                                      "j'en ai vraiment besoin ?"])
def test_a_pronoun_after_a_modal_or_en_before_a_verb_points_back(question):
    assert resolve(question, HISTORY).followup


def test_en_as_a_preposition_does_not_point_back():
    assert not resolve("comment je sais si mon noyau utilise de la mémoire locale en trop ?", HISTORY).followup


@pytest.mark.parametrize("question", ["whats NCCL", "speculative decoding how does it work"])
def test_a_subject_named_before_its_question_word_is_a_new_question(question):
    assert not resolve(question, HISTORY).followup


def test_how_does_it_work_alone_points_back():
    assert resolve("how does it work?", HISTORY).followup


def test_a_message_is_read_by_its_first_question_when_that_one_names_a_subject():
    assert not resolve("what's local memory on a GPU? is it fast?", HISTORY).followup
    assert resolve("comment on l'évite ? avec du padding ?", HISTORY).followup


def test_joined_reads_any_second_message_as_carrying_on_unless_it_changes_subject():
    from assistant.conversation import joined
    carried = joined("pourquoi on met +1 dans la taille du tableau partagé ?", HISTORY)
    assert carried.how == "evidence" and carried.followup
    assert FIRST in carried.query and carried.own.startswith("pourquoi on met +1")
    assert carried.previous_chapters == ("performance-07",)
    assert joined("autre question : c'est quoi la coalescence ?", HISTORY) is None
    assert joined("pourquoi on met +1 ?", Conversation()) is None
