"""Plain records of the ingest stage; each serialises to JSON with ``dataclasses.asdict``."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Section:
    heading: str          # text of the ## or ### heading ("" for text before the first one)
    level: int            # 2 or 3 (1 for the chapter's lead before any ## heading)
    anchor: str           # ingest.anchors.slugify(heading)
    text: str             # Markdown body of the section, headings excluded
    line: int             # 1-based line of the heading in the file


@dataclass(frozen=True)
class Chapter:
    id: str               # "performance-07"
    part: str             # "0".."9", "A", "R"
    part_title: str       # "Performance"
    chapter: int          # 7
    title: str
    summary: str
    keywords: tuple[str, ...]
    path: str             # relative to the corpus dir: "03-performance/07-transposition.md"
    sections: tuple[Section, ...]
    sha256: str           # of the file's bytes: the ingest key


@dataclass(frozen=True)
class Chunk:
    id: str               # "<chapter id>#<anchor>#<n>"
    chapter_id: str
    part: str
    part_title: str
    chapter: int
    title: str
    section: str          # heading of the section ("" for the lead)
    anchor: str
    path: str
    text: str             # the section's own text (what answers quote)
    position: int         # order of the chunk in its chapter

    @property
    def context(self) -> str:
        """The "Partie · Chapitre · Section" line prepended before embedding."""
        return f"{self.part_title} · {self.chapter}. {self.title} · {self.section}".rstrip(" ·")
