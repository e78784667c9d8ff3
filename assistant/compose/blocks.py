"""The Markdown blocks of a guide section that are not sentences: steps, tables, code.

``section_blocks(text)`` returns a ``Blocks`` record: the items of numbered lists (the
steps of a procedure), the tables (header line with its separator, then the rows, each
line verbatim) and the fenced code blocks (verbatim, fences included). The composer
quotes table rows and code blocks as they are written (``assistant.compose``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ingest.analyzer import normalise_space

_FENCE = re.compile(r"^\s*(```|~~~)")
_SEPARATOR = re.compile(r"\|?\s*:?-{3,}.*")
_NUMBERED = re.compile(r"^\s*\d+[.)]\s+")


@dataclass(frozen=True)
class Blocks:
    steps: tuple[str, ...]                              # numbered list items, spaces normalised
    tables: tuple[tuple[str, tuple[str, ...]], ...]     # (header + separator, rows)
    codes: tuple[str, ...]                              # fenced code blocks


def section_blocks(text: str) -> Blocks:
    """Numbered list items, tables and code blocks of a section's Markdown ``text``."""
    steps: list[str] = []
    tables: list[tuple[str, tuple[str, ...]]] = []
    codes: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
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
    return Blocks(tuple(steps), tuple(tables), tuple(codes))
