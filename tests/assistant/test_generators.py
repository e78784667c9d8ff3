"""LLM generators through LangChain's own fake chat model: prompt, citation and support checks, fallback."""
from __future__ import annotations

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

from assistant.answer import answer
from assistant.answer_records import Conversation, Turn
from assistant.generators import ChatGenerator, build_messages, check_citations, check_support, get_generator
from ingest.config import Config
from ingest.errors import ConfigError

from answer_fixtures import TEST_THRESHOLD, run

Q = "Pourquoi la transposition naïve plafonne-t-elle ?"


class RecordingFake(GenericFakeChatModel):
    """The fake chat model, keeping the messages it was given."""
    seen: list = []

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append(messages)
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


class UnreachableFake(GenericFakeChatModel):
    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        raise ConnectionError("connexion refusée")


def fake(*replies: str) -> RecordingFake:
    return RecordingFake(messages=iter(replies), seen=[])


def ask(model, retriever, question=Q, conversation=None):
    return run(answer(question, conversation, ChatGenerator(model, "fake"), retriever=retriever,
                      threshold=TEST_THRESHOLD))


def test_prompt_numbers_the_sources_and_states_the_rules(retriever):
    hits = retriever.search(Q)
    history = (Turn("Qu'est-ce qu'un warp ?", "Qu'est-ce qu'un warp ?", "answer", (), "Un warp regroupe 32 threads [1]."),)
    (system, sys_text), (human, user_text) = build_messages(Q, hits, history)
    assert (system, human) == ("system", "human")
    assert "[2]" in sys_text or "[1, 3]" in sys_text        # the citation format is shown
    for i, hit in enumerate(hits, 1):
        assert f"[{i}] {hit.label}" in user_text
    assert user_text.rstrip().endswith(f"Question : {Q}")
    assert "Utilisateur : Qu'est-ce qu'un warp ?" in user_text


def test_valid_citations_are_kept_and_linked(retriever):
    model = fake("La version naïve écrit les colonnes avec un pas de N éléments [1]. "
                 "Elle plafonne ainsi vers 9 % de la bande passante [1].")
    pieces, final = ask(model, retriever)
    assert final.kind == "answer" and final.generator == "fake" and not final.notice
    assert [c.n for c in final.citations] == [1]
    assert final.citations[0].link.startswith("corpus/03-performance/07-transposition.md#")
    assert "Sources :" in final.text
    assert len(model.seen) == 1 and "[1] Performance · 7." in model.seen[0][1].content
    texts = [p.text for p in pieces if p.kind == "text"]
    # nothing is shown before the whole reply is checked: it comes in one piece, then the sources
    assert texts[0].startswith("La version naïve écrit les colonnes") and "9 %" in texts[0]
    assert texts[1].lstrip().startswith("Sources :")


@pytest.mark.parametrize("reply, why", [
    ("La version naïve écrit à pas de N éléments [7]. Elle plafonne à 9 % [1].", "pas été données ([7])"),
    ("La version naïve est lente parce que la mémoire est lente. Elle plafonne à 9 % [1].", "sans citation"),
    ("Les GPU sont rapides parce qu'ils ont beaucoup de cœurs et de mémoire.", "sans citation"),
    (" ", "vide"),
])
def test_bad_citations_fall_back_to_composed_saying_why(reply, why, retriever):
    pieces, final = ask(fake(reply), retriever)
    assert final.kind == "answer" and final.generator == "composed"
    assert why in final.notice and "réponse composée" in final.notice
    assert final.quotes                                          # the guide's own sentences
    assert "reset" not in [p.kind for p in pieces]               # nothing of the reply was shown
    if reply.strip():
        assert not any(reply[:25] in p.text for p in pieces), "the unchecked reply reached the reader"


SUPPORTED = ("La version naïve écrit les colonnes avec un pas de N éléments [1]. "
             "Sur le H200, elle plafonne à environ 9 % de la bande passante de la mémoire [1]. ")


def test_unsupported_sentences_are_dropped_and_said(retriever):
    reply = SUPPORTED + "Elle atteint pourtant 75 % de la bande passante grâce au cache L2 [1]."
    pieces, final = ask(fake(reply), retriever)
    assert final.generator == "fake" and final.kind == "answer"
    assert "75 %" not in final.text and "9 %" in final.text
    assert "retirée" in final.notice
    assert not any("75 %" in p.text for p in pieces)


def test_mostly_unsupported_reply_is_replaced_by_the_composed_answer(retriever):
    reply = ("Les warps divergent sur les GPU AMD à cause du cache L2 [1]. "
             "Une transposition naïve atteint 80 % de la bande passante sur B200 [1]. "
             "La version naïve écrit les colonnes avec un pas de N éléments [1].")
    pieces, final = ask(fake(reply), retriever)
    assert final.generator == "composed" and "n'étayent pas" in final.notice
    assert not any("80 %" in p.text or "AMD" in p.text for p in pieces)


@pytest.mark.parametrize("claim, ok", [
    ("La version naïve écrit les colonnes avec un pas de N éléments [1].", True),
    ("Sur le H200, la version naïve plafonne à environ 9 % de la bande passante [1].", True),
    ("Sur le H200, la version naïve plafonne à environ 19 % de la bande passante [1].", False),   # a figure invented
    ("Les Tensor Cores du B200 calculent en FP4 [1].", False),                                   # another subject
    ("La version naïve écrit les colonnes avec un pas de N éléments [2].", False),               # the wrong source
])
def test_check_support(claim, ok, retriever):
    hits = retriever.search(Q)
    sources = [f"{h.label}\n{h.text}" for h in hits]
    naive = next(i for i, h in enumerate(hits) if h.anchor == "version-naive")
    claim = claim.replace("[1]", f"[{naive + 1}]").replace("[2]", f"[{(naive + 1) % len(hits) + 1}]")
    _, _, kept, total = check_support(claim, sources)
    assert total == 1 and (kept == 1) is ok


def test_unreachable_model_gives_composed_answer_and_one_line_notice(retriever):
    pieces, final = ask(UnreachableFake(messages=iter([])), retriever)
    assert final.generator == "composed" and "injoignable" in final.notice
    assert pieces[0].kind == "notice" and "\n" not in pieces[0].text


def test_llm_rewrites_followups(retriever):
    model = fake("Comment la transposition se comporte-t-elle avec des tuiles de 64 × 64 ?",
                 "Avec des tuiles de 64 × 64, chaque bloc occupe 16 Ko de mémoire partagée [1].")
    conv = Conversation((Turn(Q, Q, "answer", ("performance-07",), "…"),))
    _, final = ask(model, retriever, "et avec des tuiles de 64 ?", conv)
    assert final.resolved_question.startswith("Comment la transposition")
    assert final.followup and final.generator == "fake"
    assert "Dernière question : et avec des tuiles de 64 ?" in model.seen[0][1].content


@pytest.mark.parametrize("text, n, ok", [
    ("Un warp compte 32 threads [1]. Un wavefront en compte 64 [2, 3].", 3, True),
    ("Un warp compte 32 threads. [1] Un wavefront en compte 64 [2][3].", 3, True),
    ("- Un warp compte 32 threads [1].\n- Un wavefront en compte 64 [2].\n", 2, True),
    ("Un warp compte 32 threads [0].", 3, False),
    ("Voici la réponse :\nUn warp compte 32 threads [1].", 1, True),
])
def test_check_citations(text, n, ok):
    assert (check_citations(text, n)[1] == "") is ok


def test_registry_names_the_known_generators():
    config = Config(llm_base_url="http://127.0.0.1:9", llm_timeout_s=1)
    assert get_generator("composed", config).name == "composed"
    assert get_generator(None, config).name == "composed"
    assert get_generator("openai:qwen", config).name == "openai:qwen"
    assert get_generator("ollama:qwen3:8b", config).name == "ollama:qwen3:8b"
    with pytest.raises(ConfigError, match="composed, openai:<modèle>, ollama:<modèle>"):
        get_generator("gpt5", config)
    with pytest.raises(ConfigError, match="demande un modèle"):
        get_generator("openai", config)


def test_reasoning_is_neither_shown_nor_checked(retriever):
    model = fake("<think>L'utilisateur veut savoir pourquoi ; je cite la source 1.</think>"
                 "La version naïve écrit les colonnes avec un pas de N éléments [1].")
    pieces, final = ask(model, retriever)
    assert final.generator == "fake" and "<think>" not in final.text and "utilisateur" not in final.text
    assert all("think" not in p.text for p in pieces)
