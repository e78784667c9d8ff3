"""Map a free French (or English) answer to one of a question's options, with a confidence.

Each option carries weighted regular expressions (in ``corpus/parcours.yaml``) matched on
the answer lowercased with accents folded; an option's score is the sum of the weights that
match. ``confidence`` is top / (top + runner-up): two options that both match well give
~0.5, one clear match gives 1.0. The dialogue asks a clarifying question below
``CONFIDENT`` instead of guessing.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ingest.bm25 import fold

# Calibrated on evals/data/paths.yaml: at 0.7, every ambiguous or contradictory dialogue
# there gets a clarifying question and no clear answer does (0.6 let "je débute mais
# j'écris des noyaux Hopper" through as Hopper at 0.64).
CONFIDENT = 0.7
MIN_SCORE = 2.0


@dataclass(frozen=True)
class Match:
    option: str | None          # best option id, or None when nothing matched
    confidence: float
    ranked: tuple[tuple[str, float], ...]   # (option id, score), best first

    @property
    def sure(self) -> bool:
        return self.option is not None and self.confidence >= CONFIDENT and self.ranked[0][1] >= MIN_SCORE

    def likeliest(self, n: int = 2) -> list[str]:
        return [opt for opt, score in self.ranked[:n] if score > 0] or [opt for opt, _ in self.ranked[:n]]


def normalise(text: str) -> str:
    """Lowercase, fold accents and apostrophes, squeeze spaces: what the patterns see."""
    text = fold(text).replace("’", "'").replace("`", "'")
    return re.sub(r"\s+", " ", text).strip()


def match_option(text: str, options: list[dict]) -> Match:
    """Score ``text`` against each option's patterns ([regex, weight] pairs)."""
    norm = normalise(text)
    scores: list[tuple[str, float]] = []
    for opt in options:
        score = 0.0
        for pattern, weight in opt.get("patterns", []):
            if re.search(pattern, norm):
                score += float(weight)
        scores.append((opt["id"], score))
    ranked = tuple(sorted(scores, key=lambda s: -s[1]))
    top = ranked[0][1] if ranked else 0.0
    if top <= 0:
        return Match(None, 0.0, ranked)
    runner = ranked[1][1] if len(ranked) > 1 else 0.0
    return Match(ranked[0][0], top / (top + runner), ranked)


def direct_choice(text: str, options: list[dict], letters: dict[str, str] | None = None) -> str | None:
    """An explicit pick: the option id, its number (1-based), its label, or a path letter."""
    raw = text.strip()
    norm = normalise(raw).strip(" .!»«\"'")
    for opt in options:
        if norm == normalise(opt["id"]) or norm == normalise(opt["label"]).strip(" ."):
            return opt["id"]
    if norm.isdigit() and 1 <= int(norm) <= len(options):
        return options[int(norm) - 1]["id"]
    if letters:
        m = re.fullmatch(r"(?:parcours |path )?([a-f])", norm)
        if m and m.group(1).upper() in letters:
            return letters[m.group(1).upper()]
    return None
