"""Decide whether retrieval found something relevant, or the guide does not cover the question.

``judge(query, hits, vocabulary)`` returns a ``Relevance`` record. Its score is the best
dense cosine of the hits plus ``weight`` times the share of the query's terms that the
guide uses anywhere (``vocabulary``, built once from the indexed passages); below
``threshold`` the assistant refuses and suggests the nearest chapters.

Why these two: multilingual-e5 gives 0.84-0.89 to nearly any French technical question,
so cosine alone leaves in-scope and near-topic questions (FPGA, Unity, Mali GPUs)
interleaved: refusal precision 0.82 and recall 0.83 at best on the eval sets (153
in-scope, 62 out-of-scope questions, 69 chapters). Adding the known-term share, which
drops when a question's subject is a word the guide never uses, reaches 0.97 / 0.95
(0.94 / 0.95 two-fold cross-validated). The term share of the top sections, or of the
best sentence, added nothing to it. Limits: a near-topic question made only of words
the guide uses (« un pilote de périphérique dans le noyau Linux ») is still answered,
with the guide's nearest sentences; and the rule must be recalibrated as the guide grows.

``weight`` and ``threshold`` are not guessed: ``tuile eval answers --calibrate`` picks
them on the eval sets (in-scope vs out-of-scope questions) and writes
``assistant/data/refusal.yaml`` with the figures it reached.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Sequence

import yaml

from assistant._text import terms

THRESHOLD_FILE = Path(__file__).parent / "data" / "refusal.yaml"


@dataclass(frozen=True)
class Relevance:
    relevant: bool
    score: float
    dense: float       # best cosine similarity among the hits
    known: float       # share of the query's terms that the guide uses somewhere


@lru_cache(maxsize=4)
def load_threshold(path: Path = THRESHOLD_FILE) -> tuple[float, float]:
    """(weight, threshold) from the calibration file."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return float(data["weight"]), float(data["threshold"])


def vocabulary(passages: Iterable) -> frozenset[str]:
    """The terms of every passage (anything with ``title``, ``section`` and ``text``)."""
    vocab: set[str] = set()
    for p in passages:
        vocab.update(terms(f"{p.title} {p.section} {p.text}"))
    return frozenset(vocab)


def features(query: str, hits: Sequence, vocab: frozenset[str] | None = None) -> tuple[float, float]:
    """(best dense cosine, share of the query's terms in ``vocab``; the hits' terms if None)."""
    if not hits:
        return 0.0, 0.0
    dense = max(float(h.dense_score) for h in hits)
    wanted = set(terms(query))
    if not wanted:
        return dense, 0.0
    if vocab is None:
        vocab = vocabulary(hits)
    return dense, len(wanted & vocab) / len(wanted)


def judge(query: str, hits: Sequence, vocab: frozenset[str] | None = None,
          weight: float | None = None, threshold: float | None = None) -> Relevance:
    if weight is None or threshold is None:
        w, t = load_threshold()
        weight = w if weight is None else weight
        threshold = t if threshold is None else threshold
    dense, known = features(query, hits, vocab)
    score = dense + weight * known
    return Relevance(bool(hits) and score >= threshold, score, dense, known)
