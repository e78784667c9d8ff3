"""The chapter-level scoring and the fusion grid of ``tuile eval retrieval``."""
from __future__ import annotations

from assistant.search.retrieve import Runs
from evals.retrieval import _fuse, _leave_one_set_out, _score, chapter_ranks


def test_chapters_ranked_by_their_first_passage():
    assert chapter_ranks(["a", "a", "b", "a", "c"]) == ["a", "b", "c"]


def test_recall_and_mrr_at_chapter_level():
    scores = _score([["x", "gold"], ["gold"], ["x", "y", "z", "u", "v", "gold"]], [{"gold"}] * 3)
    assert scores == {"recall@1": round(1 / 3, 4), "recall@5": round(2 / 3, 4), "mrr": round((0.5 + 1 + 1 / 6) / 3, 4)}


def test_fusion_weights_and_chapter_grouping():
    # dense prefers p1 (chapter A), BM25 prefers p2 (chapter B) then p3 (chapter B)
    runs = Runs([], (("A", 0.9, "p1"), ("B", 0.8, "p2")), (("B", 9.0, "p2"), ("B", 8.0, "p3"), ("A", 1.0, "p1")), 3)
    assert _fuse(runs, 1.0, 5) == ["B", "A"]            # p2 is second in one list and first in the other
    assert _fuse(runs, 5.0, 5) == ["A", "B"]            # a heavy dense weight puts A first
    assert _fuse(runs, 1.0, 5, "sum")[0] == "B"          # two passages of B add up


def test_leave_one_writing_round_out_scores_each_round_with_the_others_choice():
    # dense says A, BM25 says B: round "r1" (two questions) has gold A, round "r2" (one) gold B
    runs = [Runs([], (("A", 0.9, "p1"), ("B", 0.8, "p2")), (("B", 9.0, "p2"), ("A", 1.0, "p1")), 2)] * 3
    golds = [{"A"}, {"A"}, {"B"}]
    grid = [(0.5, 5, "first"), (1.0, 5, "first"), (2.0, 5, "first")]
    table = {p: [_fuse(r, *p) for r in runs] for p in grid}
    out = _leave_one_set_out(grid, table, runs, golds, ["r1", "r1", "r2"])
    # fitted on r2 alone, the BM25-heavy point wins and misses both r1 questions at rank 1
    assert out["r1"]["chosen"]["dense_weight"] == 0.5 and out["r1"]["held_out"]["recall@1"] == 0.0
    assert out["r2"]["chosen"]["dense_weight"] >= 1.0 and out["r2"]["held_out"]["mrr"] == 0.5
    assert out["r1"]["dense"]["recall@1"] == 1.0 and out["r1"]["shipped"] is not None
    assert out["pooled"]["held_out"]["recall@1"] == 0.0
