"""The refusal calibration of ``tuile eval answers`` on known data."""
from __future__ import annotations

from evals.answers import _fit, calibrate


def test_fit_separates_separable_scores():
    t, p, r = _fit(inside=[0.9, 0.95, 1.0], outside=[0.5, 0.6])
    assert 0.6 < t < 0.9 and (p, r) == (1.0, 1.0)


def test_calibrate_uses_the_known_term_share_when_cosine_alone_fails():
    # same cosines inside and outside; only the share of known terms tells them apart
    inside = [(0.86, 1.0), (0.87, 0.9), (0.85, 1.0), (0.88, 0.8)]
    outside = [(0.86, 0.3), (0.87, 0.2), (0.85, 0.0), (0.88, 0.25)]
    fit = calibrate(inside, outside)
    assert fit["weight"] > 0 and fit["precision"] == 1.0 and fit["recall"] == 1.0
