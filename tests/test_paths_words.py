"""Words the reader does not know, hedges and terse answers: a prerequisite is known only from a
plain affirmation in words the reader knows, and a recommendation only from two confident
answers. Sentences here are written for the tests, not taken from the evaluation sets."""
from __future__ import annotations

import pytest

from assistant.paths.read.yesno import read_yes_no
from paths_steps import dialogue, run_turns  # noqa: F401 (dialogue: a fixture)

PRE = {"warp", "mbarrier", "tma", "sync"}


def _facts(dialogue, text):
    return {k: v for k, v in dialogue.read("level", text).facts.items() if k in PRE}


@pytest.mark.parametrize("text,facts", [
    # A word outside the reader's lexicon, in the clause or just after it: asked, not known.
    ("je code en Go, la TMA je connais tkt", {}),
    ("mbarrier ok chepa", {}),
    # The same words without it: known.
    ("je code en Go, la TMA je connais", {"tma": True}),
    ("mbarrier ok", {"mbarrier": True}),
    # "jsp" (je sais pas) denies.
    ("j'optimise des noyaux, je sais ce qu'est un warp, la synchro entre deux kernels jsp",
     {"warp": True, "sync": False}),
    # "tout"/"everything" before an exception affirms the list before it.
    ("j'optimise des noyaux. warps, TMA, device sync: everything except mbarriers",
     {"warp": True, "tma": True, "sync": True, "mbarrier": False}),
    # A negation after "I know why" is what is known; "je sais pas pourquoi" denies.
    ("hopper kernels, I get why people don't like cudaDeviceSynchronize between kernels", {"sync": True}),
    ("j'écris des noyaux hopper, je sais pas pourquoi cudaDeviceSynchronize entre deux noyaux est mauvais",
     {"sync": False}),
])
def test_a_prerequisite_is_known_only_in_plain_words_the_reader_knows(dialogue, text, facts):
    assert _facts(dialogue, text) == facts


def test_a_prerequisite_said_with_an_unknown_word_is_asked(dialogue):
    _, display = run_turns(dialogue, "j'écris des noyaux Hopper, warps ok, TMA ok, mbarrier ok tkt, sync ok",
                           "les megakernels")
    assert display.kind == "prerequisite" and display.topic == "pre:mbarrier"


@pytest.mark.parametrize("text,level", [
    ("tensorflow oui noyau cuda jamais", "pytorch"),               # a bare yes ends its clause
    ("j'entraîne des modèles keras jamais touché un kernel", "pytorch"),   # an elliptic denial
    ("Java all day, no GPU, not even via tensorflow", "programmer"),      # the level's own words denied
    ("data analyst, R and SQL every day, nothing on GPUs", "programmer"),  # a title is no claim
])
def test_terse_and_denied_level_answers(dialogue, text, level):
    match = dialogue.read("level", text).match
    assert match.option == level and match.sure


@pytest.mark.parametrize("goal", [
    "rendre PyTorch plus rapide ou écrire mon premier noyau",
    "calcul scientifique ou inférence, je sais pas",
])
def test_a_goal_answer_that_hesitates_between_goals_is_asked_again(dialogue, goal):
    state, display = run_turns(dialogue, "je code en Go, jamais de GPU", goal)
    assert display.kind in ("clarification", "question") and display.topic == "goal"
    assert state.get("goal") is None


def test_where_is_not_or(dialogue):
    match = dialogue.read("goal", "comprendre où part le temps dans l'inférence des LLM").match
    assert match.option == "inference-llm" and not dialogue.read("goal", "comprendre où part le temps dans "
                                                                          "l'inférence des LLM").hedged


def test_an_option_asked_and_turned_down_is_denied(dialogue):
    match = dialogue.read("goal", "understand GPUs? no, I want to write my first kernel").match
    assert match.option == "premier-noyau" and match.sure


@pytest.mark.parametrize("text,known", [
    ("ouais tkt", None), ("mouais", None), ("yep lol", None),
    ("yes, it stalls the host", True), ("oui", True), ("jsp", False),
])
def test_a_yes_with_a_word_the_reader_does_not_know_is_asked_again(dialogue, text, known):
    assert read_yes_no(text, dialogue.rules) is known


def test_an_unclear_yes_asks_the_same_prerequisite_again(dialogue):
    state, display = run_turns(dialogue, "j'écris des noyaux Hopper avec TMA", "les megakernels")
    assert display.kind == "prerequisite"
    topic = display.topic
    state, display = dialogue.step(state, "ouais tkt")
    assert display.kind == "prerequisite" and display.topic == topic and display.notice


def test_a_goal_that_denies_the_level_claimed_in_words_is_asked_again(dialogue):
    # The level answer claims kernels in the reader's words; the goal answer says none were
    # ever written: the goal is the odd one, asked again with the claim quoted.
    state, display = run_turns(dialogue, "j'ai codé des petits kernels CUDA en TP, des additions de vecteurs",
                               "écrire un premier noyau, je n'en ai encore jamais écrit")
    assert display.kind == "clarification" and display.topic == "goal"
    assert state.get("level") == "cuda-simple" and "ne vont pas" in display.notice
    # Chosen again, the goal stands: the reader's last word.
    state, display = dialogue.step(state, "premier-noyau")
    assert display.kind == "recommendation" and display.recommendation["path"] == "B"


def test_a_level_picked_by_number_and_denied_by_the_goal_answer_is_asked_again(dialogue):
    _, display = run_turns(dialogue, "3", "écrire un premier noyau, je n'en ai encore jamais écrit")
    assert display.kind == "clarification" and display.topic == "level"


@pytest.mark.parametrize("answer,known", [("oui en gros", True), ("yes kind of, the gpu idles while the cpu waits", True),
                                          ("un groupe de threads ? je crois, oui", True), ("yes roughly", True),
                                          ("oui un peu", False), ("ouais bof", False), ("sort of", False),
                                          ("oui mais pas vraiment", False), ("vaguement oui", False)])
def test_an_explicit_yes_that_rounds_itself_off_is_a_yes(dialogue, answer, known):
    assert read_yes_no(answer, dialogue.rules) is known


def test_a_bare_no_after_a_prerequisite_denies_it(dialogue):
    state, _ = run_turns(dialogue, "j'écris des noyaux cuda simples, les mbarrier j'ai lu un truc dessus mais non")
    assert state.facts().get("mbarrier") is False


@pytest.mark.parametrize("answer", ["oui vite fait, 32 threads qui avancent ensemble",
                                    "oui vaguement, une copie asynchrone global vers shared"])
def test_a_yes_rounded_off_then_explained_is_a_yes(dialogue, answer):
    assert read_yes_no(answer, dialogue.rules) is True


def test_denied_kernel_writing_taken_by_a_no_code_wish_is_no_wish_for_kernels(dialogue):
    reading = dialogue.read("goal", "je veux pas coder de noyaux, je veux juste piger pourquoi tout le monde en parle")
    assert reading.match.option == "comprendre" and dict(reading.match.ranked)["premier-noyau"] == 0


def test_what_others_say_after_the_wish_is_no_second_goal(dialogue):
    _, display = run_turns(dialogue, "dev python, rien sur GPU",
                           "Je veux comprendre les megakernels précisément, on m'a dit que c'était l'avenir de l'inférence")
    assert display.kind == "prerequisite"
    # Said before the wish, it names what the wish is about.
    _, display = run_turns(dialogue, "dev python, rien sur GPU",
                           "on m'a dit que les megakernels c'était l'avenir, je veux comprendre précisément")
    assert display.kind == "prerequisite"


@pytest.mark.parametrize("answer,level", [
    ("J'écris des noyaux CUDA simples pour mon labo, je sais qu'il faut éviter de synchroniser entre deux noyaux "
     "(lu dans un blog, vérifié dans nsys)", "cuda-simple"),
    ("never wrote a kernel, only use pytorch. I've seen the gaps in nsys traces", "pytorch")])
def test_a_profiler_where_something_was_seen_claims_no_optimising(dialogue, answer, level):
    reading = dialogue.read("level", answer)
    assert reading.match.option == level and not reading.contradiction


def test_running_examples_is_no_claim_of_writing_such_kernels(dialogue):
    reading = dialogue.read("level", "Je profile mes noyaux avec Nsight et je les optimise, j'ai fait tourner les "
                                     "exemples CUTLASS. Par contre je n'écris pas encore de noyaux Hopper moi-même.")
    assert reading.match.option == "optimiser" and not reading.contradiction and reading.match.sure


def test_coding_denied_on_a_pronoun_is_not_coding_denied(dialogue):
    reading = dialogue.read("level", "je fais du Rust et du Go. J'ai lu des articles sur les GPU mais j'ai jamais "
                                     "programmé dessus")
    assert reading.match.option == "programmer" and not reading.clash


def test_a_goal_the_reader_is_here_for_against_the_goal_answer_is_asked(dialogue):
    _, display = run_turns(dialogue, "simple CUDA kernels. I'm here for scientific computing, nothing AI related",
                           "LLM inference")
    assert display.kind == "clarification" and display.topic == "goal"


def test_what_we_do_not_use_at_work_denies_the_goal(dialogue):
    _, display = run_turns(dialogue, "pytorch, jamais écrit de noyau",
                           "rendre PyTorch plus rapide, mais on n'utilise pas PyTorch chez nous")
    assert display.kind == "clarification" and display.topic == "goal"


def test_an_ordinary_word_one_edit_from_a_domain_word_is_left_alone(dialogue):
    # « manger » is not « manager »: a nonsense goal gets a question back, not path A.
    _, display = run_turns(dialogue, "utilisateur PyTorch, jamais écrit de noyau", "manger une pizza")
    assert display.kind == "question" and display.topic == "goal" and display.notice


def test_a_module_name_keeps_its_letters(dialogue):
    # "torch.nn": its "nn" is no « non » denying PyTorch.
    reading = dialogue.read("level", "pas de noyau, jamais, juste du torch.nn et du huggingface transformers")
    assert reading.match.option == "pytorch"


@pytest.mark.parametrize("answer,level", [
    ("Je fais de la data science (pandas, numpy, un peu de pytorch pour des petits réseaux), jamais écrit de noyau", "pytorch"),
    ("pytorch au quotidien + un peu de cuda simple", "cuda-simple"),
    ("data science background, pandas, sklearn, never used pytorch or anything gpu", "programmer"),
    ("basic cuda", "cuda-simple")])
def test_a_little_use_of_a_tool_is_use_and_sklearn_is_no_deep_learning(dialogue, answer, level):
    reading = dialogue.read("level", answer)
    assert reading.match.option == level and reading.match.sure


def test_only_the_first_of_a_list_is_known(dialogue):
    reading = dialogue.read("level", "j'optimise des noyaux depuis un moment mais warp / mbarrier / TMA, je connais que le premier")
    assert reading.facts == {"warp": True, "mbarrier": False, "tma": False}


def test_no_code_against_writing_kernels_in_one_goal_answer_is_asked(dialogue):
    _, display = run_turns(dialogue, "pytorch, jamais écrit de noyau",
                           "je veux rien coder, juste accélérer mes modèles pytorch en écrivant mes propres noyaux triton")
    assert display.kind == "clarification" and display.topic == "goal"


@pytest.mark.parametrize("answer", ["hein ?", "euh pourquoi c'est mauvais ? je le mets partout"])
def test_asking_back_what_or_why_is_not_knowing(dialogue, answer):
    assert read_yes_no(answer, dialogue.rules) is False


def test_a_prerequisite_said_the_same_as_a_denied_one_is_not_known(dialogue):
    reading = dialogue.read("level", "j'optimise des kernel, warp ok, TMA jamais vu, mbarrier pareil")
    assert reading.facts.get("tma") is False and reading.facts.get("mbarrier") is not True


def test_never_written_by_hand_but_known_is_not_denied(dialogue):
    reading = dialogue.read("level", "Noyaux Hopper avec TMA oui, sauf que les mbarrier je les ai jamais écrites "
                                     "à la main, par contre je sais ce que c'est")
    assert reading.facts.get("mbarrier") is not False


@pytest.mark.parametrize("answer,known", [("yeah it kills the overlap between kernels", True),
                                          ("oui, je sais ce que c'est même si je les écris pas", True),
                                          ("ouais tkt c bon", None)])
def test_a_yes_that_explains_itself_or_concedes_is_a_yes(dialogue, answer, known):
    assert read_yes_no(answer, dialogue.rules) is known


def test_a_goal_the_reader_does_not_intend_to_start_is_asked(dialogue):
    _, display = run_turns(dialogue, "dev JS, GPU zéro, jamais touché à PyTorch et je compte pas m'y mettre",
                           "rendre PyTorch plus rapide")
    assert display.kind == "clarification" and display.topic == "goal"


def test_a_goal_answer_claiming_a_level_the_level_answer_denied_is_asked(dialogue):
    _, display = run_turns(dialogue, "je code en python mais je connais pas du tout pytorch, ni le gpu",
                           "rendre mon code pytorch plus rapide, je l'utilise tous les jours pour entraîner mes modèles")
    assert display.kind == "clarification" and display.topic == "goal"


def test_a_level_answer_that_corrects_itself_is_asked(dialogue):
    _, display = run_turns(dialogue, "I can write a simple CUDA kernel, no wait, I've never written one, I just use "
                                     "PyTorch... or maybe I have?")
    assert display.kind == "clarification" and display.topic == "level"


def test_kernels_named_by_a_pronoun_in_the_goal_answer_are_claimed(dialogue):
    # « j'en ai déjà écrit plein » stands for the kernels of the clause before
    _, display = run_turns(dialogue, "dev PHP, le GPU jamais", "mon premier noyau GPU, j'en ai déjà écrit plein")
    assert display.kind == "clarification" and display.topic == "goal"


def test_knowing_how_to_write_kernels_is_a_claim_a_denial_of_coding_contradicts(dialogue):
    reading = dialogue.read("level", "je sais écrire des noyaux hopper avec TMA mais j'ai jamais codé de ma vie")
    assert reading.contradiction and reading.match.confidence < 0.7
    _, display = run_turns(dialogue, "I know how to write Hopper kernels with TMA but I have never coded anything",
                           "LLM inference")
    assert display.kind == "clarification" and display.topic == "level"


def test_a_goal_without_code_then_a_wish_to_code_is_asked(dialogue):
    _, display = run_turns(dialogue, "I write simple CUDA kernels", "get the big picture without coding, but really I want to code")
    assert display.kind != "recommendation"


def test_a_short_scientific_computing_goal_is_read(dialogue):
    state, display = run_turns(dialogue, "je fais des noyaux cuda simples", "calcul sci")
    assert display.kind == "recommendation" and display.recommendation["path"] == "D"


def test_asking_what_a_prerequisite_is_again_does_not_know_it(dialogue):
    assert "warp" not in _facts(dialogue, "pytorch, jamais écrit de noyau, c koi un warp déjà")
    assert "warp" not in _facts(dialogue, "I tune kernels, what's a warp again")


def test_a_prerequisite_said_like_an_unsettled_one_is_asked_too(dialogue):
    facts = _facts(dialogue, "j'optimise des noyaux, les warps je connais. Les mbarrier j'ai lu la doc mais "
                             "jamais utilisé, disons que je sais pas trop. TMA pareil.")
    assert facts.get("warp") is True and "tma" not in facts and "mbarrier" not in facts


def test_a_language_learnt_at_university_is_no_kernel(dialogue):
    reading = dialogue.read("level", "Java developer, some C++ at uni, never touched a GPU")
    assert reading.match.option == "programmer" and not reading.contradiction
    assert dialogue.read("level", "j'ai fait du CUDA à la fac, des additions de vecteurs").match.option == "cuda-simple"


def test_kernels_named_with_tma_in_a_level_answer_know_tma(dialogue):
    # answering "what do you know?" with the kernels one writes: TMA is not asked again
    state, display = run_turns(dialogue, "kernels H100 avec TMA", "megakernels")
    asked = []
    while display.kind == "prerequisite":
        asked.append(display.topic)
        state, display = dialogue.step(state, "oui")
    assert display.kind == "recommendation" and asked and "pre:tma" not in asked
    assert "tma" not in _facts(dialogue, "kernels H100 avec TMA ?")
    assert dialogue.read("goal", "des noyaux TMA").facts == {}


@pytest.mark.parametrize("answer,facts", [
    ("I understand warps, mbarriers and TMA", {"warp": True, "mbarrier": True, "tma": True}),
    ("je ne connais pas les warps, les mbarrier et la TMA", {"warp": False, "mbarrier": False, "tma": False}),
])
def test_a_list_of_names_after_a_knowing_verb_takes_its_polarity(dialogue, answer, facts):
    assert _facts(dialogue, answer) == facts


@pytest.mark.parametrize("answer,pid", [
    ("I know a device sync between launches kills the overlap", "sync"),
    ("je gère les mbarrier à la main dans mes kernels", "mbarrier"),
    ("I manage the mbarriers myself", "mbarrier"),
    ("j'ai suivi une conf sur les warps donc je vois bien ce que c'est", "warp"),
    ("j'ai commencé à utiliser TMA sur H100", "tma"),
])
def test_a_prerequisite_said_in_ordinary_words_is_known(dialogue, answer, pid):
    assert _facts(dialogue, answer).get(pid) is True


def test_a_prerequisite_that_confuses_the_reader_is_not_known(dialogue):
    assert _facts(dialogue, "j'écris des noyaux Hopper, mais les mbarrier me rendent confus").get("mbarrier") is False


def test_a_name_taken_up_by_a_pronoun_is_what_its_clause_says(dialogue):
    reading = dialogue.read("level", "J'optimise des kernels avec ncu. TMA, je l'ai utilisé une fois sans vraiment "
                                     "regarder comment ça marche.")
    assert reading.facts.get("tma") is False and reading.match.option == "optimiser" and reading.match.sure


def test_tma_begun_beside_optimising_is_the_optimiser_level(dialogue):
    reading = dialogue.read("level", "J'optimise des kernels avec ncu, occupancy, coalescence. J'ai commencé à "
                                     "utiliser TMA sur H100, avec les mbarriers qui vont avec.")
    assert reading.match.option == "optimiser" and reading.match.sure
    assert reading.facts == {"tma": True, "mbarrier": True}


def test_rusty_below_the_claimed_level_is_no_hesitation(dialogue):
    reading = dialogue.read("level", "J'écris des noyaux H100 avec wgmma et TMA. Côté PyTorch je suis un peu rouillé.")
    assert reading.match.option == "hopper" and reading.match.sure


def test_whether_or_not_is_no_denial_of_the_goal(dialogue):
    reading = dialogue.read("goal", "je veux écrire un noyau utile et voir s'il va vite ou pas.")
    assert reading.match.option == "premier-noyau" and reading.match.sure


def test_or_the_others_offers_no_second_goal(dialogue):
    reading = dialogue.read("goal", "les megakernels précisément, comment Mirage ou d'autres fusionnent un modèle "
                                    "entier dans un seul noyau")
    assert reading.match.option == "megakernels" and not reading.hedged


@pytest.mark.parametrize("goal", ["surtout pas d'IA, l'inférence des LLM",
                                  "je veux coder un premier kernel, mais je ne veux pas en écrire"])
def test_a_goal_answer_that_takes_itself_back_is_asked(dialogue, goal):
    _, display = run_turns(dialogue, "je code en Go, rien sur GPU", goal)
    assert display.kind == "clarification" and display.topic == "goal"


def test_a_guess_put_as_a_question_is_no(dialogue):
    assert read_yes_no("je dirais qu'il fait attendre l'hôte ?", dialogue.rules) is False


@pytest.mark.parametrize("text,facts", [
    # Kernels written with the mbarriers, as with TMA.
    ("noyaux hopper avec TMA et mbarrier", {"tma": True, "mbarrier": True}),
    # A host sync between kernels, said in the reader's words.
    ("je sais que synchroniser l'hôte entre deux noyaux tue la latence", {"sync": True}),
    ("and yes I know why syncing the device between kernels is bad", {"sync": True}),
    ("je sais qu'un cudaDeviceSynchronize entre deux noyaux force l'hôte à attendre, ce qui crée un trou",
     {"sync": True}),
    # « quest » is « qu'est ».
    ("jecris des noyaux cuda simples, je sais ce quest un warp", {"warp": True}),
    # How well, after the list the knowing verb governs.
    ("I profile and tune kernels, I know warps and mbarriers well", {"warp": True, "mbarrier": True}),
    ("mbarriers are my bread and butter", {"mbarrier": True}),
    # A first-person knowing verb after the last item reaches the bare items before it.
    ("noyau hopper avec tma, mbariers, warps je connais", {"tma": True, "mbarrier": True, "warp": True}),
    # The list ends with its last item, not with the concession after it.
    ("je connais les warps, les mbarriers et la TMA, sauf que je ne vois pas trop pourquoi un "
     "cudaDeviceSynchronize entre deux noyaux serait si grave",
     {"warp": True, "mbarrier": True, "tma": True, "sync": False}),
    # The right definition, hedged in its wording only; a vague knowing stays unknown.
    ("though I know roughly that a warp is a group of 32 threads", {"warp": True}),
    ("je sais vaguement qu'un warp c'est 32 threads", {"warp": False}),
    ("I know roughly what a warp is", {"warp": False}),
    # Nothing but the Hopper level's own label.
    ("Hopper kernels, TMA", {"tma": True}),
    ("hopper, TMA, tout ça", {"tma": True}),
    ("Hopper, TMA, et les clusters aussi", {}),
])
def test_what_the_reader_states_of_the_prerequisites(dialogue, text, facts):
    assert _facts(dialogue, text) == facts


@pytest.mark.parametrize("text,level", [
    # A vague clause about rungs the reader's stated facts rule out is no hesitation.
    ("J'utilise PyTorch mais je n'ai jamais écrit de noyau GPU, je sais vaguement ce qu'est CUDA sans plus.",
     "pytorch"),
    # A prerequisite used through a library is no Hopper kernel written.
    ("I profile and optimise kernels, know warps, TMA I've used via CUTLASS", "optimiser"),
    ("I do kernel optimisation, I know what a warp is, mbarrier no", "optimiser"),
    # « jopti » is « j'optimise ».
    ("jopti des kernels, jsp ce que cest une mbarrier", "optimiser"),
])
def test_level_read_from_what_the_reader_states(dialogue, text, level):
    reading = dialogue.read("level", text)
    assert reading.match.option == level and reading.match.confidence >= 0.8 and not reading.hedged


@pytest.mark.parametrize("text", [
    # A speed-up taken back in the same sentence is a contradiction, never a path C.
    "accélérer mes modèles sans que rien ne change de vitesse",
    "accélérer mes modèles sans que ça aille plus vite",
    "make my models faster without anything getting faster",
])
def test_a_goal_whose_own_words_are_taken_back_is_a_contradiction(dialogue, text):
    reading = dialogue.read("goal", text)
    assert reading.contradiction and not reading.match.sure


def test_a_goal_left_unchanged_elsewhere_is_still_the_goal(dialogue):
    reading = dialogue.read("goal", "accélérer mes modèles sans que ça change mon code")
    assert reading.match.option == "pytorch-rapide" and reading.match.sure and not reading.contradiction


@pytest.mark.parametrize("text,goal", [
    # The reader's manager is someone else, not the reader's title.
    ("Là mon manager me demande d'accélérer des modèles PyTorch de l'équipe recherche, sans réécrire "
     "tout le modèle.", "pytorch-rapide"),
    # "solves" is no misspelt "solvers".
    ("I want to write my first real kernel, something that solves an actual problem", "premier-noyau"),
    # A slow operation to replace, PyTorch named in the clause before.
    ("J'utilise PyTorch pour mon mémoire et j'aimerais remplacer une opération lente par un truc à moi "
     "pour que ça aille plus vite.", "pytorch-rapide"),
])
def test_clear_goal_answers_are_settled(dialogue, text, goal):
    reading = dialogue.read("goal", text)
    assert reading.match.option == goal and reading.match.sure and not reading.hedged


@pytest.mark.parametrize("answer,known", [
    ("ça bloque l'hôte et casse le recouvrement", True),
    ("ca bloque le cpu, le gpu attend pour rien", True),
    ("because it stalls the CPU until everything finishes, so no overlap", True),   # "no overlap" is no no
    ("parce que ça attend ?", False),              # a reason put as a question is a guess
    ("euh, parce que ça ralentit ?", False),
    ("je dirais que ça bloque le CPU", False),
    ("je crois que oui, ça bloque le CPU", True),  # a yes, read as before
    ("aucune idée", False),
])
def test_the_sync_question_answered_by_its_reason(dialogue, answer, known):
    assert read_yes_no(answer, dialogue.rules, "sync") is known
    if known and "oui" not in answer:   # the explanation alone says nothing of another prerequisite
        assert read_yes_no(answer, dialogue.rules, "tma") is not True
