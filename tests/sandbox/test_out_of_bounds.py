"""A store past the end of ``out`` is caught by the judge's guard bytes, with the mask hint."""
from sandbox import run_submission
from sandbox.exercises import get_exercise
from sandbox.records import RunOptions


def test_a_store_one_past_the_end_is_refused_with_the_mask_hint():
    naive = get_exercise("transposition").source("naive")
    source = naive.replace("mask = cols < N", "mask = cols <= N")
    assert source != naive
    report = run_submission(source, "transposition", RunOptions(mode="interpreter"))
    assert not report.correct and report.error_kind == "mismatch"
    assert "après la fin de out" in report.error and "masque" in report.error
