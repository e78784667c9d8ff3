"""The leave-one-round-out picker of the follow-up weights never looks at the file it scores."""
from __future__ import annotations

from evals.followups_cv import GRID, leave_one_out


def test_each_fold_picks_on_the_other_files_only():
    shipped, other = (1.0,) * 5, (2.0,) * 5
    # ``other`` is best on file b alone: it must not be picked when b is left out
    scores = {shipped: {"a": 9, "b": 5, "c": 9}, other: {"a": 8, "b": 9, "c": 8}}
    folds = leave_one_out(scores, {"a": 10, "b": 10, "c": 10})
    assert folds["b"] == {"picked": list(shipped), "left_out": 5, "of": 10, "shipped": 5}
    assert folds["a"]["picked"] == list(other) and folds["a"]["left_out"] == 8   # b decides it


def test_ties_go_to_the_shipped_setting_and_the_grid_starts_with_it():
    from assistant.search.followup import DECAY, WEIGHTS
    a, b = (1.0,) * 5, (2.0,) * 5
    folds = leave_one_out({a: {"x": 3, "y": 3}, b: {"x": 3, "y": 3}}, {"x": 4, "y": 4})
    assert all(f["picked"] == list(a) for f in folds.values())
    assert GRID[0] == (*WEIGHTS, DECAY)
