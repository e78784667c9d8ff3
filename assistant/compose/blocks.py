"""The Markdown blocks of a guide section that are not sentences: steps, tables, code.

``section_blocks(text)`` returns a ``Blocks`` record: the items of numbered lists (the
steps of a procedure), the tables (header line with its separator, then the rows, each
line verbatim), the fenced code blocks (verbatim, fences included) and the lists that a
sentence ending in « : » introduces (« Les raisons les plus fréquentes … sont les
suivantes : » and its items, each item's text with its line breaks joined). The composer
quotes table rows and code blocks as they are written (``assistant.compose``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ingest.analyzer import normalise_space

_FENCE = re.compile(r"^\s*(```|~~~)")
_SEPARATOR = re.compile(r"\|?\s*:?-{3,}.*")
_NUMBERED = re.compile(r"^\s*\d+[.)]\s+")
_ITEM = re.compile(r"^(?:[-*]|\d+[.)])\s+")
# the last sentence of a paragraph: what follows the last full stop before a capital
_LAST_SENTENCE = re.compile(r"(?:^|(?<=[.!?»)])\s+)(?=[A-ZÀ-ÖÙ-Ý«*`])(?!.*[.!?]\s+[A-ZÀ-ÖÙ-Ý«*`])(.*)$")


@dataclass(frozen=True)
class Blocks:
    steps: tuple[str, ...]                              # numbered list items, spaces normalised
    tables: tuple[tuple[str, tuple[str, ...]], ...]     # (header + separator, rows)
    codes: tuple[str, ...]                              # fenced code blocks
    lists: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (sentence ending in « : », its items)


def section_blocks(text: str) -> Blocks:
    """Numbered list items, tables and code blocks of a section's Markdown ``text``."""
    steps: list[str] = []
    tables: list[tuple[str, tuple[str, ...]]] = []
    codes: list[str] = []
    lists: list[tuple[str, tuple[str, ...]]] = []
    lines = text.splitlines()
    para: list[str] = []       # the lines of the paragraph being read
    i = 0
    while i < len(lines):
        line = lines[i]
        if _ITEM.match(line) and para and para[-1].rstrip().endswith(":"):
            intro = _LAST_SENTENCE.search(normalise_space(" ".join(para)))
            items, j = [], i
            while j < len(lines) and (_ITEM.match(lines[j]) or (items and lines[j].startswith((" ", "\t"))
                                                                and lines[j].strip())):
                if _ITEM.match(lines[j]):
                    items.append(_ITEM.sub("", lines[j]).strip())
                else:
                    items[-1] += " " + lines[j].strip()
                j += 1
            if intro is not None:
                lists.append((intro.group(1), tuple(normalise_space(t) for t in items)))
        if not line.strip():
            if not (i + 1 < len(lines) and _ITEM.match(lines[i + 1]) and para and para[-1].rstrip().endswith(":")):
                para = []      # a blank line between « … suivantes : » and its list keeps the paragraph
        elif _ITEM.match(line) or line.lstrip().startswith(("#", "|")) or _FENCE.match(line):
            para = []
        else:
            para.append(line.strip())
        if _FENCE.match(line):
            j = i + 1
            while j < len(lines) and not _FENCE.match(lines[j]):
                j += 1
            codes.append("\n".join(lines[i:j + 1]))
            i = j + 1
            continue
        stripped = line.strip()
        if stripped.startswith("|") and i + 1 < len(lines) and _SEPARATOR.fullmatch(lines[i + 1].strip()):
            header = f"{stripped}\n{lines[i + 1].strip()}"
            j = i + 2
            while j < len(lines) and lines[j].strip().startswith("|"):
                j += 1
            tables.append((header, tuple(r.strip() for r in lines[i + 2:j])))
            i = j
            continue
        if _NUMBERED.match(line):
            steps.append(normalise_space(_NUMBERED.sub("", line)))
        i += 1
    return Blocks(tuple(steps), tuple(tables), tuple(codes), tuple(lists))
