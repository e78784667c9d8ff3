"""The guide as the web viewer shows it: table of contents, chapters as Markdown, excerpts.

``Library(corpus_dir)`` reads ``plan.yaml`` and the chapter files on disk (a chapter of
the plan not yet written is listed as « à paraître »). ``chapter_markdown(path)`` returns
the chapter's Markdown with its headings turned into ``<hN id="…">`` whose ids are
``ingest.anchors.slugify`` of the heading, the same function that makes citation
anchors, so ``corpus/03-performance/07-transposition.md#version-naive`` lands on its
section; relative links between chapters become ``corpus/<path>#anchor`` links, which
the page's script opens in the viewer. Math stays as written (``\\( … \\)``): the
Markdown component renders it with its bundled KaTeX.
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from markdown_it import MarkdownIt

from assistant.typography import fr_typography
from ingest.anchors import slugify
from ingest.corpus import load_plan

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_LINK = re.compile(r"\]\((?!https?:|mailto:|#|corpus/)([^)\s]+?\.md)(#[^)\s]*)?\)")
_CORPUS_LINK = re.compile(r"^(?:.*/)?corpus/([^?#]+\.md)(?:#(.*))?$")
_EXCERPT_CHARS = 600

_inline = MarkdownIt("commonmark")


@dataclass(frozen=True)
class TocEntry:
    id: str
    part: str
    chapter: int
    title: str
    path: str
    available: bool


@dataclass(frozen=True)
class TocPart:
    part: str
    title: str
    chapters: tuple[TocEntry, ...]


def guide_links(markdown: str, base: str) -> str:
    """``markdown`` with its relative links to chapters (``../01-fondations/x.md#a``, as
    written in the chapter ``base``) turned into ``corpus/01-fondations/x.md#a`` links,
    which the page opens in the viewer; other links are left as they are."""
    if "](" not in (markdown or ""):
        return markdown
    return _LINK.sub(lambda m: f"](corpus/{_resolve(base, m.group(1))}{m.group(2) or ''})", markdown)


def parse_link(link: str) -> tuple[str, str] | None:
    """``corpus/<path>.md#anchor`` (or ``<path>.md#anchor``) -> (path, anchor); None otherwise."""
    link = (link or "").strip()
    m = _CORPUS_LINK.match(link)
    if m:
        return m.group(1), (m.group(2) or "")
    if link.endswith(".md") or ".md#" in link:
        path, _, anchor = link.partition("#")
        return path.lstrip("/"), anchor
    return None


class Library:
    def __init__(self, corpus_dir: Path | str) -> None:
        self.root = Path(corpus_dir)
        plan = load_plan(self.root)
        parts = []
        for p in plan.get("parts", []):
            chapters = tuple(
                TocEntry(str(c["id"]), str(c["part"]), int(c["chapter"]), str(c["title"]), str(c["path"]),
                         (self.root / c["path"]).is_file())
                for c in plan.get("chapters", []) if str(c["part"]) == str(p["part"]))
            parts.append(TocPart(str(p["part"]), str(p["title"]), chapters))
        self.parts = tuple(parts)
        self.by_path = {c.path: c for p in self.parts for c in p.chapters}

    @property
    def available_count(self) -> int:
        return sum(c.available for c in self.by_path.values())

    def is_planned(self, path: str) -> bool:
        """True when ``path`` is a chapter of the plan (written or not)."""
        return path in self.by_path

    def title_of(self, path: str) -> str:
        entry = self.by_path.get(path)
        if entry:
            return entry.title
        return "Parcours de lecture" if path == "parcours.md" else path

    def _read(self, path: str) -> str:
        full = (self.root / path).resolve()
        if self.root.resolve() not in full.parents or full.suffix != ".md":
            raise FileNotFoundError(path)   # never outside the corpus
        return _cached_read(str(full), full.stat().st_mtime_ns)

    def chapter_markdown(self, path: str) -> str:
        """The chapter's Markdown for the viewer; raises ``FileNotFoundError`` when absent."""
        text = self._read(path)
        return _for_viewer(_body(text), path)

    def heading_of(self, path: str, anchor: str) -> str:
        """The heading whose anchor is ``anchor`` ("" when absent)."""
        try:
            lines = _body(self._read(path)).split("\n")
        except (FileNotFoundError, OSError):
            return ""
        fence = False
        for line in lines:
            if _FENCE.match(line):
                fence = not fence
            m = None if fence else _HEADING.match(line)
            if m and slugify(m.group(2)) == anchor:
                return m.group(2).strip()
        return ""

    def section_excerpt(self, path: str, anchor: str, limit: int = _EXCERPT_CHARS) -> str:
        """The first ``limit`` characters of a section's text ("" when not found)."""
        try:
            lines = _body(self._read(path)).split("\n")
        except (FileNotFoundError, OSError):
            return ""
        inside, fence, out = not anchor, False, []
        for line in lines:
            if _FENCE.match(line):
                fence = not fence
            m = None if fence else _HEADING.match(line)
            if m:
                if inside and out:
                    break
                inside = slugify(m.group(2)) == anchor if anchor else inside
                continue
            if inside:
                out.append(line)
        text = "\n".join(out).strip()
        return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


@lru_cache(maxsize=128)
def _cached_read(full: str, mtime_ns: int) -> str:
    return Path(full).read_text(encoding="utf-8")


def marker_id(path: str) -> str:
    """Id of the viewer's marker for a chapter: the script computes the same."""
    return "tuile-ch-" + re.sub(r"[^A-Za-z0-9]+", "-", path)


def _body(text: str) -> str:
    """The chapter without its YAML front matter."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        if end >= 0:
            return text[end + 4:].lstrip("\n")
    return text


def _resolve(current: str, target: str) -> str:
    return posixpath.normpath(posixpath.join(posixpath.dirname(current), target))


def _for_viewer(body: str, path: str) -> str:
    # A marker the page's script waits for before scrolling (ids survive the sanitizer,
    # data-* attributes do not).
    out, fence = [f'<div class="tuile-chapitre" id="{marker_id(path)}"></div>', ""], False
    for line in body.split("\n"):
        if _FENCE.match(line):
            fence = not fence
            out.append(line)
            continue
        m = None if fence else _HEADING.match(line)
        if m:
            level, heading = len(m.group(1)), m.group(2).strip()
            inner = _inline.renderInline(heading)
            out.append(f'<h{level} id="{slugify(heading)}">{inner}</h{level}>')
            out.append("")
            continue
        if not fence and "](" in line:
            line = guide_links(line, path)
        out.append(line)
    return fr_typography("\n".join(out))


def describe_link(library: "Library", link: str) -> str:
    """« Chapter title › Section heading » for a guide link (the link itself when unknown)."""
    parsed = parse_link(link)
    if not parsed:
        return link
    path, anchor = parsed
    title = library.title_of(path)
    if anchor:
        heading = library.heading_of(path, anchor)
        if heading:
            return f"{title} › {heading}"
    return title
