"""Search the guide by words, for the viewer's search box and the API.

``search_guide(retriever, query, k)`` returns a ``GuideSearch`` record: the sections that
use at least one word of the query (stemmed, accents folded: the BM25 side of
``Retriever.search``), ranked by the hybrid score, each with a plain-text snippet (no
Markdown, code blocks left out, formulas as text), or a French message saying why there
is nothing to show. Why words and not the dense side alone: multilingual-e5 gives every
French text a cosine above 0.8, so « xyzzy plugh » got eight « results »; a search box
should answer « aucun résultat » when the guide never uses the words. Limit: a synonym
that the guide never writes finds nothing (the Discussion tab answers such questions).
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from assistant.typography import fr_typography

MAX_QUERY = 500
SNIPPET_CHARS = 160

_FENCE_BLOCK = re.compile(r"^\s*(```|~~~).*?^\s*\1\s*$", re.S | re.M)
_LATEX = {r"\times": "×", r"\cdot": "·", r"\le": "≤", r"\leq": "≤", r"\ge": "≥", r"\geq": "≥",
          r"\approx": "≈", r"\neq": "≠", r"\to": "→", r"\infty": "∞", r"\min": "min", r"\max": "max",
          r"\log": "log", r"\sum": "Σ", r"\,": " ", r"\;": " ", r"\%": "%"}
_LATEX_CMD = re.compile(r"\\[A-Za-z]+|\\[,;%]")


@dataclass(frozen=True)
class GuideResult:
    label: str       # « Performance · 7. Étude de cas … › Version naïve »
    link: str        # corpus/<path>#anchor
    snippet: str     # plain text
    score: float


@dataclass(frozen=True)
class GuideSearch:
    query: str
    results: tuple[GuideResult, ...] = ()
    message: str = ""   # French: why nothing is listed ("" when results are there)

    def to_dict(self) -> dict:
        return asdict(self)


def search_guide(retriever, query: str, k: int = 8) -> GuideSearch:
    """The sections of the guide that use the words of ``query`` (at most ``k``)."""
    query = (query or "").strip() if isinstance(query, str) else ""
    if not query:
        return GuideSearch("", message=fr_typography(
            "Écrivez une notion à chercher, par exemple « coalescence » ou « tl.trans »."))
    if len(query) > MAX_QUERY:
        return GuideSearch(query[:80] + "…", message=fr_typography(
            f"La recherche est trop longue ({len(query)} caractères ; {MAX_QUERY} au plus)."))
    hits = [h for h in retriever.search(query, k=k) if h.bm25_score > 0]
    if not hits:
        return GuideSearch(query, message=fr_typography(
            f"Aucun résultat pour « {query} » : aucune section du guide n'emploie ces mots. "
            "Essayez une notion du guide, par exemple « coalescence » ou « mémoire partagée »."))
    results = tuple(GuideResult(fr_typography(h.label), h.link, snippet(h.text), round(float(h.score), 6))
                    for h in hits)
    return GuideSearch(query, results)


def snippet(markdown: str, limit: int = SNIPPET_CHARS) -> str:
    """The first ``limit`` characters of ``markdown`` as plain text."""
    text = plain_text(markdown)
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + " …"


def plain_text(markdown: str) -> str:
    """Markdown as text: no code blocks, no markup; inline code and formulas as their text."""
    text = _FENCE_BLOCK.sub(" ", markdown or "")
    text = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", text)              # images
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)               # links
    text = re.sub(r"<[A-Za-z/!][^>]*>", " ", text)                       # HTML tags
    text = re.sub(r"\\[()\[\]]|\$\$", "", text)                          # math delimiters
    text = _LATEX_CMD.sub(lambda m: _LATEX.get(m.group(0), ""), text)
    text = re.sub(r"\{([^{}]*)\}", r"\1", text)                          # LaTeX groups
    text = re.sub(r"`+([^`]*)`+", r"\1", text)                          # inline code
    text = re.sub(r"^\s{0,3}(#{1,6}|>|[-*+]|\d+\.)\s+", "", text, flags=re.M)   # block marks
    text = re.sub(r"(\*\*|\*)(?=\S)(.+?)(?<=\S)\1", r"\2", text)          # emphasis
    text = re.sub(r"(?<!\w)(__|_)(?=\S)(.+?)(?<=\S)\1(?!\w)", r"\2", text)
    text = re.sub(r"^\s*\|?[-:| ]+\|[-:| ]*$", " ", text, flags=re.M)    # table rules
    text = text.replace("|", " ")
    return fr_typography(" ".join(text.split()))
