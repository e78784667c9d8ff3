"""The judge's per-call arithmetic from a full and a short batch, with made-up times.

An honest batch costs f + n × (c + flush): the two batch sizes give back c whatever f
is; a launcher that slows only its short batches gains at most (cap − f) / n per call.
"""
from __future__ import annotations

import pytest

from sandbox.judge.clock import FIXED_CAP_US, SHORT_SETS, per_call_us

N, K, FLUSH, CAP = 42, SHORT_SETS, 39.0, FIXED_CAP_US


def _batch(calls: int, per_call: float, fixed: float) -> float:
    return fixed + calls * (per_call + FLUSH)


@pytest.mark.parametrize("fixed", [0.0, 400.0, 1700.0, 1999.0])
def test_two_batch_sizes_give_back_the_per_call_time_whatever_the_fixed_cost(fixed):
    c, f, capped = per_call_us(_batch(N, 522.0, fixed), _batch(K, 522.0, fixed), N, K,
                               FLUSH, CAP)
    assert c == pytest.approx(522.0) and f == pytest.approx(fixed) and not capped


def test_a_slowed_short_batch_is_capped_and_gains_at_most_cap_minus_fixed_over_n():
    true_c, true_f = 522.0, 1700.0
    full = _batch(N, true_c, true_f)
    bound = (CAP - true_f) / N                               # 7.1 µs
    best = true_c
    for delay in (0.0, 50.0, 200.0, 280.0, 300.0, 1000.0, 10_000.0, 1e6):
        c, f, capped = per_call_us(full, _batch(K, true_c, true_f) + delay, N, K, FLUSH, CAP)
        assert f == pytest.approx(true_f + delay * N / (N - K))
        if not capped:
            assert c == pytest.approx(true_c - delay / (N - K))
        else:   # past the cap: (full − cap) / N − flush, whatever the delay
            assert c == pytest.approx((full - CAP) / N - FLUSH)
        assert c >= true_c - bound - 1e-9
        best = min(best, c)
    assert best == pytest.approx(true_c - bound, abs=0.05)


def test_a_fixed_cost_above_the_cap_makes_the_figure_slower_not_faster():
    true_c, true_f = 522.0, 2600.0
    c, f, capped = per_call_us(_batch(N, true_c, true_f), _batch(K, true_c, true_f), N, K,
                               FLUSH, CAP)
    assert capped and f == pytest.approx(true_f)
    assert c == pytest.approx(true_c + (true_f - CAP) / N)   # conservative: 14.3 µs slower


def test_a_slowed_full_batch_only_slows_the_figure():
    full, short = _batch(N, 522.0, 1700.0), _batch(K, 522.0, 1700.0)
    c, _, _ = per_call_us(full + 500.0, short, N, K, FLUSH, CAP)
    assert c > 522.0
