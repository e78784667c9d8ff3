"""Decide whether retrieval found something relevant, or the guide does not cover the question.

``judge(query, hits)`` returns a ``Relevance`` record. Its score is the best dense
cosine of the hits plus ``weight`` times the share of the query's terms that the top
sections contain; below ``threshold`` the assistant refuses and suggests the nearest
chapters. Cosine alone separates badly: multilingual-e5 gives 0.75-0.85 to nearly any
French technical sentence, so an absent-but-near topic (FPGA, Vulkan ray tracing) scores
like an in-scope one; the term share catches the word that the guide never uses.

``weight`` and ``threshold`` are not guessed: ``tuile eval answers --calibrate`` picks
them on the eval sets (in-scope vs out-of-scope questions) and writes
``assistant/data/refusal.yaml`` with the figures it reached.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import yaml

from assistant._text import terms

THRESHOLD_FILE = Path(__file__).parent / "data" / "refusal.yaml"
_TOP = 3   # sections whose terms count for coverage: the ones an answer quotes from


@dataclass(frozen=True)
class Relevance:
    relevant: bool
    score: float
    dense: float       # best cosine similarity among the hits
    coverage: float    # share of the query's terms found in the top sections


@lru_cache(maxsize=4)
def load_threshold(path: Path = THRESHOLD_FILE) -> tuple[float, float]:
    """(weight, threshold) from the calibration file."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return float(data["weight"]), float(data["threshold"])


def features(query: str, hits: Sequence) -> tuple[float, float]:
    """(best dense cosine, term coverage of the top sections) for ``query``."""
    if not hits:
        return 0.0, 0.0
    dense = max(float(h.dense_score) for h in hits)
    wanted = set(terms(query))
    if not wanted:
        return dense, 0.0
    found: set[str] = set()
    for h in list(hits)[:_TOP]:
        found |= set(terms(f"{h.title} {h.section} {h.text}"))
    return dense, len(wanted & found) / len(wanted)


def judge(query: str, hits: Sequence, weight: float | None = None, threshold: float | None = None) -> Relevance:
    if weight is None or threshold is None:
        w, t = load_threshold()
        weight = w if weight is None else weight
        threshold = t if threshold is None else threshold
    dense, coverage = features(query, hits)
    score = dense + weight * coverage
    return Relevance(bool(hits) and score >= threshold, score, dense, coverage)
