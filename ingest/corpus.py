"""Load and validate the guide: ``load_corpus(dir)`` returns chapters or raises ``CorpusError``.

A chapter is one Markdown file with a YAML front matter (see ``corpus/plan.yaml`` and the
README's "Ajouter un chapitre"). Validation names the file, the line or field, and what is
expected, so a writer can fix a chapter from the message alone.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from ingest.anchors import slugify
from ingest.errors import CorpusError
from ingest.records import Chapter, Section

REQUIRED_FIELDS = ("id", "part", "part_title", "chapter", "title", "summary", "keywords")
PLAN_FILE = "plan.yaml"
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True)
class LoadResult:
    """Chapters that loaded, and the error of each file that did not."""
    chapters: tuple[Chapter, ...]
    errors: tuple[CorpusError, ...]


def load_corpus(corpus_dir: Path | str) -> list[Chapter]:
    """Load every chapter under ``corpus_dir``; raise the first ``CorpusError`` found."""
    result = scan_corpus(corpus_dir)
    if result.errors:
        raise result.errors[0]
    return list(result.chapters)


def scan_corpus(corpus_dir: Path | str) -> LoadResult:
    """Load every chapter, collecting one error per malformed file instead of stopping.

    Ingestion uses this so that one broken chapter never costs the others their place in
    the index.
    """
    root = Path(corpus_dir)
    if not root.is_dir():
        raise CorpusError(str(root), "le dossier du corpus n'existe pas")
    plan = _load_plan(root)
    chapters: list[Chapter] = []
    errors: list[CorpusError] = []
    seen: dict[str, str] = {}
    for path in sorted(root.rglob("*.md")):
        rel = path.relative_to(root).as_posix()
        try:
            chapter = parse_chapter(path.read_bytes(), rel)
            _check_against_plan(chapter, plan)
            if chapter.id in seen:
                raise CorpusError(rel, f"identifiant « {chapter.id} » déjà utilisé par {seen[chapter.id]} ; "
                                       "chaque chapitre doit avoir un id unique", field="id")
            seen[chapter.id] = rel
            chapters.append(chapter)
        except CorpusError as err:
            errors.append(err)
    return LoadResult(tuple(chapters), tuple(errors))


def parse_chapter(raw: bytes, rel: str) -> Chapter:
    """Parse one chapter file's bytes; ``rel`` is its path relative to the corpus dir."""
    if not raw.strip():
        raise CorpusError(rel, "fichier vide ; attendu : un en-tête YAML entre deux lignes « --- » puis le texte")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        raise CorpusError(rel, f"le fichier n'est pas en UTF-8 (octet 0x{raw[err.start]:02x} invalide)", line=line)
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    lines = text.split("\n")
    if lines[0].strip() != "---":
        raise CorpusError(rel, "l'en-tête YAML manque : la première ligne doit être « --- »", line=1)
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise CorpusError(rel, "l'en-tête YAML n'est pas fermé par une ligne « --- »", line=1) from None
    meta = _parse_front_matter("\n".join(lines[1:end]), rel)
    body_start = end + 1
    title_line, title = _find_title(lines, body_start, rel)
    if title != str(meta["title"]).strip():
        raise CorpusError(rel, f"le titre « # {title} » ne correspond pas au champ title « {meta['title']} »",
                          line=title_line + 1, field="title")
    sections = _split_sections(lines, title_line + 1, rel)
    keywords = meta["keywords"]
    if isinstance(keywords, str):
        keywords = [k.strip() for k in keywords.split(",") if k.strip()]
    return Chapter(
        id=str(meta["id"]).strip(),
        part=str(meta["part"]).strip(),
        part_title=str(meta["part_title"]).strip(),
        chapter=meta["chapter"],
        title=title,
        summary=str(meta["summary"]).strip(),
        keywords=tuple(str(k) for k in keywords),
        path=rel,
        sections=tuple(sections),
        sha256=hashlib.sha256(raw).hexdigest(),
    )


def _parse_front_matter(source: str, rel: str) -> dict:
    try:
        meta = yaml.safe_load(source)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = mark.line + 2 if mark is not None else None  # +1 for 1-based, +1 for the opening ---
        raise CorpusError(rel, f"en-tête YAML invalide ({getattr(err, 'problem', None) or err})", line=line) from None
    if not isinstance(meta, dict):
        raise CorpusError(rel, "l'en-tête YAML doit être un dictionnaire de champs (id, part, title …)", line=2)
    for field in REQUIRED_FIELDS:
        value = meta.get(field)
        if value is None or (isinstance(value, str) and not value.strip()):
            raise CorpusError(rel, f"champ obligatoire absent ou vide ; attendus : {', '.join(REQUIRED_FIELDS)}",
                              field=field)
    if not isinstance(meta["chapter"], int) or isinstance(meta["chapter"], bool):
        raise CorpusError(rel, f"« chapter » doit être un entier, pas « {meta['chapter']} »", field="chapter")
    if not isinstance(meta["keywords"], (list, str)):
        raise CorpusError(rel, "« keywords » doit être une liste de mots-clés", field="keywords")
    return meta


def _find_title(lines: list[str], start: int, rel: str) -> tuple[int, str]:
    for i in range(start, len(lines)):
        stripped = lines[i].strip()
        if not stripped:
            continue
        match = _HEADING.match(stripped)
        if match and len(match.group(1)) == 1:
            return i, match.group(2).strip()
        break
    raise CorpusError(rel, "le texte doit commencer par un titre « # … » égal au champ title", line=start + 1)


def _split_sections(lines: list[str], start: int, rel: str) -> list[Section]:
    sections: list[Section] = []
    heading, level, line_no, buf = "", 1, start, []
    anchors: dict[str, int] = {}
    in_fence = False

    def flush() -> None:
        body = "\n".join(buf).strip()
        if heading or body:
            sections.append(Section(heading=heading, level=level, anchor=slugify(heading) if heading else "",
                                    text=body, line=line_no))

    for i in range(start, len(lines)):
        line = lines[i]
        if _FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        if match and len(match.group(1)) in (2, 3):
            flush()
            heading, level, line_no, buf = match.group(2).strip(), len(match.group(1)), i + 1, []
            anchor = slugify(heading)
            if anchor in anchors:
                raise CorpusError(rel, f"deux sections ont la même ancre « {anchor} » (lignes {anchors[anchor]} "
                                       f"et {i + 1}) ; les titres de section doivent être uniques", line=i + 1)
            anchors[anchor] = i + 1
        elif match and len(match.group(1)) == 1:
            raise CorpusError(rel, "un seul titre « # » par chapitre ; les sections utilisent « ## » et « ### »",
                              line=i + 1)
        else:
            buf.append(line)
    if in_fence:
        raise CorpusError(rel, "un bloc de code « ``` » n'est jamais fermé", line=len(lines))
    flush()
    return sections


def _load_plan(root: Path) -> dict[str, dict] | None:
    plan_path = root / PLAN_FILE
    if not plan_path.exists():
        return None
    try:
        plan = yaml.safe_load(plan_path.read_text(encoding="utf-8")) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as err:
        raise CorpusError(PLAN_FILE, f"plan illisible ({err})") from None
    return {str(c["id"]): c for c in plan.get("chapters", [])}


def load_plan(corpus_dir: Path | str) -> dict:
    """The plan file as data: ``{"parts": [...], "chapters": [...]}`` (empty when absent)."""
    path = Path(corpus_dir) / PLAN_FILE
    if not path.exists():
        return {"parts": [], "chapters": []}
    return yaml.safe_load(path.read_text(encoding="utf-8")) or {"parts": [], "chapters": []}


def _check_against_plan(chapter: Chapter, plan: dict[str, dict] | None) -> None:
    if plan is None or chapter.id == "parcours":
        return
    entry = plan.get(chapter.id)
    if entry is None:
        raise CorpusError(chapter.path, f"l'id « {chapter.id} » n'est pas dans {PLAN_FILE} ; ajoutez-y le chapitre",
                          field="id")
    for field, value in (("part", chapter.part), ("chapter", chapter.chapter), ("title", chapter.title),
                         ("path", chapter.path)):
        expected = entry.get(field)
        if str(expected) != str(value):
            raise CorpusError(chapter.path, f"« {value} » ne correspond pas au plan (attendu : « {expected} »)",
                              field=field)
