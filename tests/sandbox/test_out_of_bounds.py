"""A store past the end of ``out`` is caught by the judge's guard bytes, with the mask hint.

The interpreter case runs everywhere (memfd buffers); the GPU case checks the same guard in
the CUDA VMM buffers the judge shares with the launcher on a GPU host.
"""
import pytest

from sandbox import run_submission
from sandbox.exercises import get_exercise
from sandbox.records import RunOptions


def _cuda() -> bool:
    try:
        import torch
        return torch.cuda.is_available()
    except Exception:
        return False


def _one_past_the_end() -> str:
    naive = get_exercise("transposition").source("naive")
    source = naive.replace("mask = cols < N", "mask = cols <= N")
    assert source != naive
    return source


def _assert_refused(report) -> None:
    assert not report.correct and report.error_kind == "mismatch", (report.error_kind, report.error)
    assert "après la fin de out" in report.error and "masque" in report.error


def test_a_store_one_past_the_end_is_refused_with_the_mask_hint():
    _assert_refused(run_submission(_one_past_the_end(), "transposition", RunOptions(mode="interpreter")))


@pytest.mark.gpu
@pytest.mark.skipif(not _cuda(), reason="pas de GPU CUDA")
def test_a_store_one_past_the_end_is_refused_on_the_gpu():
    _assert_refused(run_submission(_one_past_the_end(), "transposition", RunOptions(mode="gpu")))
