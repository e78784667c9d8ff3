"""Passages of a follow-up: its own words, the previous question as context, the previous
answer's chapters (``assistant.search.followup``), on the two fixture chapters."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from assistant.answer import answer
from assistant.answer_records import Conversation, Turn
from assistant.conversation import resolve
from assistant.search.followup import CARRY, carried_hits, followup_hits

from answer_fixtures import LexicalRetriever, run

TRANSPOSE, WARPS = "performance-07", "programmation-04"


@dataclass
class _Runs:
    hits: list

    @property
    def dense(self):
        return tuple(sorted(((h.chapter_id, h.dense_score, h.chunk_id) for h in self.hits), key=lambda t: -t[1]))

    @property
    def sparse(self):
        return tuple(sorted(((h.chapter_id, h.bm25_score, h.chunk_id) for h in self.hits), key=lambda t: -t[1]))


class RunsRetriever(LexicalRetriever):
    """The lexical fixture retriever with the ``search_runs`` face of the real one
    (analysed query in, ``.hits`` out, optional chapter filter); it records what it is asked."""

    def __init__(self, chapters):
        super().__init__(chapters)
        self.runs: list[tuple[str, str | None]] = []

    def search_runs(self, query, k=5, *, chapter_id=None, **_):
        text = getattr(query, "expanded", query)
        self.runs.append((text, chapter_id))
        hits = self.search(text, k=len(self.chunks_))
        return _Runs([h for h in hits if chapter_id is None or h.chapter_id == chapter_id][:k])


@pytest.fixture
def runs_retriever(chapters):
    return RunsRetriever(chapters)


def _chapter_hits(retriever, chapter_id):
    return [h for h in retriever.search("transposition tuile warp shuffle padding banques", k=50)
            if h.chapter_id == chapter_id]


def test_a_followup_naming_its_own_subject_leads_with_it(runs_retriever):
    # the joined search leads with the previous topic (its words outnumber the follow-up's)
    own = "et les shuffles, ça sert à quoi ?"
    context = runs_retriever.search(f"Pourquoi la transposition naïve plafonne-t-elle ? {own}", k=12)
    assert context[0].chapter_id == TRANSPOSE
    top = followup_hits(runs_retriever, own, [TRANSPOSE], context, "fr", None, 5)
    assert top[0].chapter_id == WARPS


def test_the_previous_answers_chapter_outranks_a_chapter_that_only_shares_a_word(runs_retriever):
    context = _chapter_hits(runs_retriever, WARPS)[:1] + _chapter_hits(runs_retriever, TRANSPOSE)[:1]
    top = followup_hits(runs_retriever, "pourquoi ?", [TRANSPOSE], context, "fr", None, 2)
    assert top[0].chapter_id == TRANSPOSE


def test_the_chapter_the_previous_answer_cited_first_gets_the_larger_bonus(runs_retriever):
    context = _chapter_hits(runs_retriever, WARPS)[:1] + _chapter_hits(runs_retriever, TRANSPOSE)[:1]
    assert followup_hits(runs_retriever, "pourquoi ?", [TRANSPOSE, WARPS], context, "fr", None, 2)[0].chapter_id == TRANSPOSE
    assert followup_hits(runs_retriever, "pourquoi ?", [WARPS, TRANSPOSE], context, "fr", None, 2)[0].chapter_id == WARPS


def test_a_followup_without_words_of_its_own_is_not_searched_alone(runs_retriever):
    context = _chapter_hits(runs_retriever, TRANSPOSE)
    assert followup_hits(runs_retriever, "pourquoi ?", [TRANSPOSE], context, "fr", None, 3) == context[:3]
    assert runs_retriever.runs == []


def test_the_own_words_are_also_searched_inside_the_previous_chapters(runs_retriever):
    followup_hits(runs_retriever, "et les tuiles de 64 ?", [TRANSPOSE, WARPS, TRANSPOSE], [], "fr", None, 3)
    assert [chapter for _, chapter in runs_retriever.runs] == [None, TRANSPOSE, WARPS]


def test_a_question_read_as_new_leans_to_the_previous_chapter_only_between_close_ranks(runs_retriever):
    warps, transpose = _chapter_hits(runs_retriever, WARPS), _chapter_hits(runs_retriever, TRANSPOSE)
    close = [warps[0], transpose[0]]
    assert carried_hits(close, [TRANSPOSE], 2)[0].chapter_id == TRANSPOSE
    assert carried_hits(close, [TRANSPOSE], 2, weight=0)[0].chapter_id == WARPS
    assert carried_hits(close, [], 2) == close
    # a passage far down its own ranking stays below: the user may have changed the subject
    far = warps[:3] + [transpose[0]]
    assert carried_hits(far, [TRANSPOSE], 4)[0].chapter_id == WARPS
    assert 0 < CARRY < 1


def test_resolve_keeps_the_followups_own_words_and_the_previous_chapters():
    history = Conversation((Turn("Pourquoi la transposition naïve plafonne-t-elle ?",
                                 "Pourquoi la transposition naïve plafonne-t-elle ?", "answer",
                                 (TRANSPOSE, WARPS), "…"),))
    r = resolve("et avec des tuiles de 64 ?", history)
    assert r.how == "rule" and r.own == "et avec des tuiles de 64 ?" and r.previous_chapters == (TRANSPOSE, WARPS)
    new = resolve("Qu'est-ce qu'un warp ?", history)
    # a new question is searched alone, but still knows what the previous answer cited
    assert not new.followup and new.how == "none" and new.own == "" and new.previous_chapters == (TRANSPOSE, WARPS)
    fresh = resolve("autre question : qu'est-ce qu'un warp ?", history)
    assert fresh.previous_chapters == ()      # the user said the subject changes


@pytest.mark.parametrize("second, chapter", [("et les shuffles dans un warp, ça sert à quoi ?", WARPS),
                                             ("et avec des tuiles de 64 ?", TRANSPOSE)])
def test_two_turns_through_answer(runs_retriever, second, chapter):
    _, first = run(answer("Pourquoi la transposition naïve plafonne-t-elle ?", None,
                          retriever=runs_retriever, threshold=(0.3, 0.95)))
    assert first.chapter_ids[0] == TRANSPOSE
    _, final = run(answer(second, Conversation().with_answer(first), retriever=runs_retriever,
                          threshold=(0.3, 0.95)))
    assert final.followup and final.kind == "answer" and final.chapter_ids[0] == chapter
