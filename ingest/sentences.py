"""Quotable sentences of the guide's Markdown, and the verbatim check of a quote.

``sentences(section_text)`` cuts a section into the sentences an answer may quote
verbatim (code, tables and headings left out), ``paragraphs(section_text)`` the same
sentences grouped by paragraph; ``is_verbatim(quote, section_text)`` checks
that a quote is a piece of its section, line breaks and runs of spaces (no-break ones
included) aside.
"""
from __future__ import annotations

import re

from ingest.analyzer import normalise_space

_FENCE = re.compile(r"^\s*(```|~~~)")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*\S)\s*$")
_SKIP_LINE = ("|", "#", "<!--", "![", "<", "$$")
# A sentence ends at . ! ? … followed by a space and a capital, a digit, a quote or
# Markdown markup; abbreviations below do not end one.
_SPLIT = re.compile(r"(?<=[.!?…])\s+(?=[A-ZÀ-ÖØ-Þ0-9«\"“(\[`*_])")
_ABBREV = ("p. ex.", "ex.", "cf.", "etc.", "env.", "fig.", "e.g.", "i.e.", "vs.", "av.", "réf.", "M.", "éd.", "et al.")
# whole words only: « 132 SM. » or « la HBM. » end a sentence, « M. Dupont » does not
_ENDS_WITH_ABBREV = re.compile(r"(?:^|[\s(])(?:" + "|".join(re.escape(a) for a in _ABBREV) + r")$")
_MIN_WORDS, _MAX_WORDS = 5, 80


def _units(text: str) -> list[str]:
    """Paragraphs and list items of Markdown ``text``; code, tables and headings left out."""
    units: list[str] = []
    para: list[str] = []

    def flush() -> None:
        if para:
            units.append(" ".join(para))
            para.clear()

    in_code = False
    for line in text.splitlines():
        if _FENCE.match(line):
            flush()
            in_code = not in_code
            continue
        stripped = line.strip()
        if in_code or not stripped or stripped.startswith(_SKIP_LINE):
            flush()
            continue
        if stripped.startswith(">"):
            flush()
            units.append(stripped.lstrip(">").strip())
            continue
        item = _LIST_ITEM.match(line)
        if item:
            flush()
            para.append(item.group(1))
            continue
        para.append(stripped)
    flush()
    return units


def _split(unit: str) -> list[str]:
    parts = _SPLIT.split(unit)
    out: list[str] = []
    for part in parts:
        if out and (_ENDS_WITH_ABBREV.search(out[-1]) or out[-1].count("`") % 2 == 1
                    or out[-1].count("«") > out[-1].count("»") or out[-1].count("(") > out[-1].count(")")):
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return out


def paragraphs(text: str) -> list[list[str]]:
    """The quotable sentences of a Markdown section grouped by paragraph (or list item), in
    order: two sentences next to each other in one group follow each other in the text."""
    out = []
    for unit in _units(text):
        group = []
        for s in _split(unit):
            s = s.strip()
            n = len(s.split())
            if _MIN_WORDS <= n <= _MAX_WORDS and not s.endswith(":") and re.search(r"[^\W\d_]", s):
                group.append(s)
            elif group:            # a left-out piece breaks the run: what follows it is not next
                out.append(group)
                group = []
        if group:
            out.append(group)
    return out


def sentences(text: str) -> list[str]:
    """Quotable sentences of a Markdown section, each a verbatim piece of it (modulo line breaks).

    Left out: code blocks, tables, headings, sentences that announce a list (ending
    with ":") and fragments under five words, which do not stand on their own.
    """
    return [s for group in paragraphs(text) for s in group]


def is_verbatim(quote: str, section_text: str) -> bool:
    """True when ``quote`` appears in ``section_text``, line breaks and runs of spaces aside."""
    return normalise_space(quote) in normalise_space(section_text)
