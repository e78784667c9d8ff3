"""Decide whether the guide answers a question, only touches it, or does not cover it.

``decide(query, runs, lexicon)`` returns a ``Decision``: ``verdict`` is "answer",
"partial" (the guide talks about the subject without answering exactly: the composer
says « Le guide en parle dans … sans répondre exactement à … ») or "refuse" (the nearest
chapters are suggested). It is a small logistic model over evidence read from retrieval
and the guide's vocabulary (``features``):

- ``dense``: best cosine of the dense retriever;
- ``bm25``: best BM25 score per query term, ``log(1 + x)``;
- ``agree``: share of the dense top-5 chapters that BM25's top 5 also holds (of the top 2
  on a two-chapter index);
- ``known``: share of the question's content words that the guide's vocabulary holds,
  per language (an English word counts when the guide writes it or the bridge translates
  it; everyday words that name no subject, ``assistant/data/general_words.yaml``, count as
  known); ``unknown``: how many are not (at most 3);
- ``trap``: a word of the guide in an everyday sense (« le noyau Linux », « un pilote de
  ligne », « un thread Twitter »; ``assistant/data/traps.yaml``);
- ``english``: the question is in English (its words are matched through the bridge).

The weights, the standardisation and the cut points (refusal, English refusal, partial) live in
``assistant/data/refusal.yaml``, written by ``python -m evals.answers --calibrate``
(L2-regularised logistic regression fitted on the dev sets only, with 5-fold
cross-validated figures recorded beside the weights). Two more candidates, the gap
between the best and the tenth dense cosine and "both rankings put the same chapter
first", added nothing in cross-validation (precision/recall 0.930/0.936 with them, 0.929/
0.929 without, 603 in-scope and 141 out-of-scope dev questions) and were dropped: the gap
also changes meaning on a small index. ``RefusalModel.linear(w, t)``
reproduces a plain rule ``dense + w · known ≥ t`` (tests, small fixtures).
Limits: a near-topic question made only of words the guide uses, with nothing to betray
another sense, is still answered from the nearest sections.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import yaml

from ingest.analyzer import english_term, normalise, terms
from ingest.anchors import fold

MODEL_FILE = Path(__file__).parent / "data" / "refusal.yaml"
_TRAPS_FILE = Path(__file__).parent / "data" / "traps.yaml"
_GENERAL_FILE = Path(__file__).parent / "data" / "general_words.yaml"
FEATURES = ("dense", "bm25", "agree", "known", "unknown", "trap", "english")
_TOP = 5


@dataclass(frozen=True)
class Decision:
    verdict: str                  # "answer" | "partial" | "refuse"
    score: float                  # the model's probability that the guide answers
    features: dict = field(default_factory=dict)
    uncovered: tuple[str, ...] = ()   # content words of the question the guide never uses

    @property
    def relevant(self) -> bool:
        return self.verdict != "refuse"

    @property
    def dense(self) -> float:
        return self.features.get("dense", 0.0)

    @property
    def known(self) -> float:
        return self.features.get("known", 0.0)


@dataclass(frozen=True)
class RefusalModel:
    weights: dict                 # feature -> weight (on standardised features)
    bias: float
    mean: dict
    scale: dict
    refuse_below: float           # probability under which the question is refused
    partial_below: float          # ... and under which it is only touched on
    refuse_below_en: float | None = None   # the refusal cut of English questions (None: the same)

    def probability(self, feats: dict) -> float:
        z = self.bias + sum(w * (feats.get(f, 0.0) - self.mean.get(f, 0.0)) / (self.scale.get(f, 1.0) or 1.0)
                            for f, w in self.weights.items())
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))

    def verdict(self, p: float, english: bool = False) -> str:
        cut = self.refuse_below_en if english and self.refuse_below_en is not None else self.refuse_below
        return "refuse" if p < cut else "partial" if p < max(cut, self.partial_below) else "answer"

    @classmethod
    def linear(cls, weight: float, threshold: float) -> "RefusalModel":
        """The rule ``dense + weight · known ≥ threshold``, as a model (no partial band)."""
        return cls({"dense": 1.0, "known": weight}, -threshold, {}, {}, 0.5, 0.5)

    @classmethod
    def from_dict(cls, data: dict) -> "RefusalModel":
        return cls(dict(data["weights"]), float(data["bias"]), dict(data.get("mean", {})),
                   dict(data.get("scale", {})), float(data["refuse_below"]), float(data["partial_below"]),
                   float(data["refuse_below_en"]) if data.get("refuse_below_en") is not None else None)


@lru_cache(maxsize=4)
def load_model(path: Path = MODEL_FILE) -> RefusalModel:
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    if "weights" not in data:     # a file from the older two-number rule
        return RefusalModel.linear(float(data["weight"]), float(data["threshold"]))
    return RefusalModel.from_dict(data)


@lru_cache(maxsize=1)
def _traps() -> tuple[frozenset[str], dict[str, re.Pattern]]:
    data = yaml.safe_load(_TRAPS_FILE.read_text(encoding="utf-8"))
    senses = {fold(k): re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(fold(c)) for c in v) + r")s?(?![\w-])")
              for k, v in data["senses"].items()}
    return frozenset(fold(g) for g in data["gpu"]), senses


def trap_sense(question: str) -> bool:
    """True when a word of the guide is used in an everyday sense (``traps.yaml``)."""
    gpu, senses = _traps()
    text = " ".join(normalise(fold(question)).split())
    ws = set(re.findall(r"[\w.-]+", text))
    if ws & gpu:
        return False
    return any(any(w.startswith(word) for w in ws) and cue.search(text) for word, cue in senses.items())


@lru_cache(maxsize=1)
def _general() -> dict[str, frozenset[str]]:
    data = yaml.safe_load(_GENERAL_FILE.read_text(encoding="utf-8"))
    return {lang: frozenset(fold(w) for w in text.split()) for lang, text in data.items()}


def _chapters(ranked: Sequence[tuple[str, float]], n: int) -> list[str]:
    out: list[str] = []
    for chapter, *_ in ranked:
        if chapter not in out:
            out.append(chapter)
        if len(out) == n:
            break
    return out


def coverage(query, lexicon) -> tuple[float, tuple[str, ...]]:
    """(share of the question's content words the guide uses, the words it does not)."""
    ws = list(query.words)
    if not ws:
        return 0.0, ()
    pair_words = {w for key in lexicon.pairs for w in key} if query.language == "en" else set()
    general = _general().get(query.language, frozenset())
    missing = []
    for w in ws:
        if w in general:
            continue
        t = terms(w)
        if t and t[0] in lexicon.french:
            continue
        if query.language == "en" and (english_term(w) in lexicon.english or english_term(w) in pair_words):
            continue
        missing.append(w)
    return 1.0 - len(missing) / len(ws), tuple(missing)


def features(query, runs, lexicon) -> tuple[dict, tuple[str, ...]]:
    """The evidence of the decision (see the module docstring), and the uncovered words.

    ``runs``: anything with ``dense`` and ``sparse`` rankings of (chapter id, score, …), as
    ``assistant.retrieve.Retriever.search_runs`` returns, or a plain list of hits (then
    the rankings are read from the hits' own scores).
    """
    dense_ranked, sparse_ranked = _rankings(runs)
    dense_scores = [r[1] for r in dense_ranked]
    d_top = _chapters(dense_ranked, _TOP)
    s_top = _chapters(sparse_ranked, _TOP)
    n_terms = max(len(set(query.index_terms)), 1)
    known, missing = coverage(query, lexicon) if lexicon is not None else (0.0, ())
    feats = {
        "dense": dense_scores[0] if dense_scores else 0.0,
        "bm25": math.log1p((sparse_ranked[0][1] if sparse_ranked else 0.0) / n_terms),
        "agree": len(set(d_top) & set(s_top)) / len(d_top) if d_top else 0.0,
        "known": known,
        "unknown": float(min(len(missing), 3)),
        "trap": float(trap_sense(query.text)),
        "english": float(query.language == "en"),
    }
    return feats, missing


def _rankings(runs) -> tuple[list, list]:
    if hasattr(runs, "dense") and hasattr(runs, "sparse"):
        return list(runs.dense), list(runs.sparse)
    hits = list(runs)
    dense = sorted(((h.chapter_id, float(h.dense_score)) for h in hits if h.dense_score), key=lambda t: -t[1])
    sparse = sorted(((h.chapter_id, float(h.bm25_score)) for h in hits if h.bm25_score), key=lambda t: -t[1])
    return dense, sparse


def decide(query, runs, lexicon, model: RefusalModel | None = None) -> Decision:
    """The verdict for ``query`` given what retrieval found (``runs``) and the guide's ``lexicon``."""
    model = model or load_model()
    hits = getattr(runs, "hits", runs)
    if not hits:
        return Decision("refuse", 0.0, {}, tuple(query.words))
    feats, missing = features(query, runs, lexicon)
    p = model.probability(feats)
    return Decision(model.verdict(p, feats["english"] > 0.5), p, feats, missing)
