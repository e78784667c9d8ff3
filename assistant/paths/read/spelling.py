"""Informal spelling: map a misspelt word to the nearest word of a known vocabulary.

``correct(text, vocabulary)`` rewrites the words of an already normalised answer
(lowercase, accents folded) that are not in the vocabulary but lie within a small
Damerau-Levenshtein distance of exactly one nearest vocabulary word: "pytroch" ->
"pytorch", "hoper" -> "hopper", "noyeau" -> "noyau", "inferance" -> "inference".
Short words are left alone: at four letters and under, one edit turns too many ordinary
words into domain words ("fait" -> "fast", "code" -> "cute").
"""
from __future__ import annotations

import re

_WORD = re.compile(r"[a-z0-9_+#]+")


def _max_edits(word: str) -> int:
    if len(word) >= 8:
        return 2
    return 1 if len(word) >= 5 else 0


def distance(a: str, b: str, limit: int) -> int:
    """Optimal-string-alignment distance (a swap of two letters is one edit), capped at limit + 1."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] | None = None
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if prev2 is not None and i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if min(cur) > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]


def nearest(word: str, vocabulary: frozenset[str]) -> str:
    """The vocabulary word nearest to ``word`` when it is unique and close enough, else ``word``."""
    limit = _max_edits(word)
    if not limit or word in vocabulary or word.isdigit():
        return word
    best, best_d, tie = word, limit + 1, False
    for cand in vocabulary:
        if len(cand) < 5:
            continue
        d = distance(word, cand, limit)
        if d < best_d:
            best, best_d, tie = cand, d, False
        elif d == best_d:
            tie = True
    return word if best_d > limit or tie else best


def correct(text: str, vocabulary: frozenset[str], known: frozenset[str] = frozenset()) -> str:
    """``text`` with each misspelt word replaced by its nearest vocabulary word.

    ``known`` lists ordinary words that are right as they are and must not be "corrected"
    towards a domain word that happens to be one edit away.
    """
    return _WORD.sub(lambda m: m.group(0) if m.group(0) in known else nearest(m.group(0), vocabulary), text)
