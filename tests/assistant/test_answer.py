"""The answer pipeline end to end on the fixture chapters: stream, refusal, English."""
from __future__ import annotations

import json

from assistant.answer import answer
from assistant.answer import lexicon_for
from assistant.search.query import analyse
from assistant.search.relevance import RefusalModel, decide

from answer_fixtures import TEST_THRESHOLD, run


def test_stream_then_answer_record(retriever):
    pieces, final = run(answer("Pourquoi ma transposition naïve plafonne-t-elle à 9 % ?",
                               retriever=retriever, threshold=TEST_THRESHOLD))
    assert final.kind == "answer" and final.generator == "composed"
    assert "".join(p.text for p in pieces if p.kind == "text") == final.text
    assert len(pieces) >= 2                          # streamed, not one block
    assert final.chapter_ids[0] == "performance-07"
    data = json.loads(final.to_json())
    assert data["citations"][0]["link"].startswith("corpus/03-performance/07-transposition.md#")


def test_nothing_relevant_is_refused_with_nearest_chapters(retriever):
    pieces, final = run(answer("Quelle est la meilleure recette de la tarte tatin ?",
                               retriever=retriever, threshold=TEST_THRESHOLD))
    assert final.kind == "refusal" and "ne traite pas" in final.text
    assert final.citations == ()


def test_weak_match_is_refused_and_suggests_chapters(retriever):
    # "mémoire" matches, the rest (FPGA, Verilog, synthèse) is nowhere in the guide
    pieces, final = run(answer("Comment programmer un FPGA en Verilog avec la synthèse de haut niveau et sa mémoire ?",
                               retriever=retriever, threshold=TEST_THRESHOLD))
    assert final.kind == "refusal"
    assert final.suggestions and final.suggestions[0].link.startswith("corpus/")
    assert "chapitres les plus proches" in final.text


def test_refusal_rule_reads_dense_score_and_known_words(retriever):
    class H:
        chapter_id, title, section, text, dense_score, bm25_score = "p-1", "Warps", "Shuffles", "Un warp regroupe 32 threads.", 0.9, 1.0
    lexicon = lexicon_for(retriever)
    model = RefusalModel.linear(0.5, 1.3)
    d = decide(analyse("warp 32 threads", "fr", lexicon), [H()], lexicon, model)
    assert d.known == 1.0 and d.verdict == "answer"
    d = decide(analyse("warp Verilog FPGA", "fr", lexicon), [H()], lexicon, model)   # 2 of 3 words unknown
    assert abs(d.known - 1 / 3) < 1e-9 and d.verdict == "refuse" and set(d.uncovered) == {"verilog", "fpga"}
    assert decide(analyse("warp", "fr", lexicon), [], lexicon, RefusalModel.linear(0.5, 0.0)).verdict == "refuse"


def test_english_question_is_answered_with_a_notice(retriever):
    pieces, final = run(answer("How do I avoid shared memory bank conflicts?", retriever=retriever,
                               threshold=TEST_THRESHOLD))
    assert final.kind == "answer" and final.language == "en"
    assert pieces[0].kind == "notice" and "French" in pieces[0].text
    assert any("banque" in q.text for q in final.quotes)


def test_partial_decision_says_so_then_gives_the_closest_passages(retriever):
    touches = RefusalModel({"dense": 0.0}, 0.0, {}, {}, refuse_below=0.1, partial_below=0.9)   # p = 0.5
    pieces, final = run(answer("Comment programmer la transposition sur un FPGA ?", retriever=retriever,
                               refusal=touches))
    assert final.kind == "answer" and final.decision == "partial" and final.quotes
    first = next(p.text for p in pieces if p.kind == "text")
    assert first.startswith("Le guide en parle dans «\u00a0Performance · 7.")
    assert "sans répondre exactement à «\u00a0" in first and "fpga\u00a0»\u202f; voici ses passages" in first
    assert final.text.startswith(first) and final.quotes[0].text in final.text
    # the section named is the one the first quote comes from, not merely the best hit
    lead_section = next(c.label for c in final.citations if c.n == final.quotes[0].n)
    assert f"«\u00a0{lead_section}\u00a0»" in first


def test_a_rule_follow_up_of_an_answer_is_never_refused_outright(retriever):
    from assistant.conversation import Conversation
    _, first = run(answer("Pourquoi ma transposition naïve plafonne-t-elle à 9 % ?", retriever=retriever,
                          threshold=TEST_THRESHOLD))
    refuses = RefusalModel({"dense": 0.0}, 0.0, {}, {}, refuse_below=0.9, partial_below=0.95)   # p = 0.5
    history = Conversation().with_answer(first)
    _, follow = run(answer("et avec des tuiles de 64 ?", history, retriever=retriever, refusal=refuses))
    assert follow.followup and follow.kind == "answer" and follow.decision == "partial"
    # the same model refuses a question that stands alone, and a follow-up of a refusal
    _, alone = run(answer("Quelle est la meilleure recette de la tarte tatin ?", history, retriever=retriever,
                          refusal=refuses))
    assert alone.kind == "refusal"
    _, after_refusal = run(answer("et avec des tuiles de 64 ?", Conversation().with_answer(alone),
                                  retriever=retriever, refusal=refuses))
    assert after_refusal.kind == "refusal"


def test_a_new_question_the_guide_only_touches_is_tried_as_carrying_on(retriever, monkeypatch):
    from assistant.conversation import Conversation
    from assistant.search.relevance import Decision
    import assistant.answer as pipeline
    _, first = run(answer("Pourquoi ma transposition naïve plafonne-t-elle à 9 % ?", retriever=retriever,
                          threshold=TEST_THRESHOLD))
    history = Conversation().with_answer(first)
    second = "Combien de banques a la mémoire partagée ?"
    _, alone = run(answer(second, history, retriever=retriever, threshold=TEST_THRESHOLD))
    assert not alone.followup and alone.decision == "answer"   # answered alone: read as new
    # a model under which the message alone is only touched on, and the joined reading answered
    real = pipeline.decide

    def touched_alone(query, runs, lexicon, model=None):
        d = real(query, runs, lexicon, model)
        joined_reading = "transposition" in query.text
        return Decision("answer" if joined_reading else "partial", d.score, d.features, d.uncovered)
    monkeypatch.setattr(pipeline, "decide", touched_alone)
    _, carried = run(answer(second, history, retriever=retriever, threshold=TEST_THRESHOLD))
    assert carried.followup and carried.decision == "answer"
    assert carried.resolved_question.startswith("Pourquoi ma transposition")
