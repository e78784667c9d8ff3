"""Quote a reader's own words back: the span of an answer that a read clause came from.

``source_span(clause, original, splitter)`` returns the piece of ``original`` (as the reader
typed it, accents and case kept) that the normalised clause ``clause`` was read from, so that
a question about two facts that do not go together can name them in the reader's words
(« je n'ai jamais programmé » et « je code en C++ depuis 10 ans »).

How: ``original`` is folded character by character (lowercase, accents dropped, one
character for one, so positions still point into ``original``), cut with the same splitter as
the reading, and the piece sharing the most words with ``clause`` wins. Limits: the reading's
spelling corrections and chat aliases change some words, so the match is by overlap, not
equality; with no overlap at all the clause itself is returned.
"""
from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"[\w']+")
_TRIM = " \t\n,;:.!?-–—()/"


def _fold_char(c: str) -> str:
    base = unicodedata.normalize("NFKD", c.lower())
    kept = "".join(x for x in base if not unicodedata.combining(x))
    if c in "’`":
        return "'"
    return kept[:1] if len(kept) >= 1 else " "


def _pieces(original: str, splitter: re.Pattern) -> list[tuple[int, int]]:
    folded = "".join(_fold_char(c) for c in original)
    spans, start = [], 0
    for m in splitter.finditer(folded):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(original)))
    return spans


def source_span(clause: str, original: str, splitter: re.Pattern) -> str:
    """The reader's own words for ``clause`` (see the module docstring)."""
    want = set(_WORD.findall(clause))
    best, best_score = "", 0.0
    for start, end in _pieces(original, splitter):
        text = original[start:end].strip(_TRIM)
        words = set(_WORD.findall("".join(_fold_char(c) for c in text)))
        if not words or not want:
            continue
        score = len(want & words) / len(want | words)
        if score > best_score:
            best, best_score = text, score
    return best if best_score > 0 else clause
