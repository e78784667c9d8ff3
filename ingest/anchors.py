"""Accent folding and section anchors, shared by indexing, answers, citations and the UI viewer.

Standard library only: the corpus tests and the UI import it without the search stack.
"""
from __future__ import annotations

import re
import unicodedata

_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def fold(text: str) -> str:
    """Lowercase and strip accents ("Mémoire" -> "memoire", "cœur" -> "coeur")."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c)).replace("œ", "oe").replace("æ", "ae")


def slugify(heading: str) -> str:
    """Return the anchor of a Markdown heading.

    Accents are folded and every run of other characters becomes one dash, so
    "Version naïve" -> "version-naive" and "Pourquoi 100 % est hors d'atteinte"
    -> "pourquoi-100-est-hors-d-atteinte". Folding keeps links typeable in URLs.
    """
    return _NON_ALNUM.sub("-", fold(heading)).strip("-")
