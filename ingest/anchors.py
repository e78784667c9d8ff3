"""Section anchors: one slug function shared by the corpus tests, citations and the UI viewer."""
from __future__ import annotations

import re
import unicodedata

_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def slugify(heading: str) -> str:
    """Return the anchor of a Markdown heading.

    Accents are folded and every run of other characters becomes one dash, so
    "Version naïve" -> "version-naive" and "Pourquoi 100 % est hors d'atteinte"
    -> "pourquoi-100-est-hors-d-atteinte". Folding keeps links typeable in URLs.
    """
    decomposed = unicodedata.normalize("NFKD", heading)
    folded = "".join(c for c in decomposed if not unicodedata.combining(c))
    folded = folded.replace("œ", "oe").replace("Œ", "oe").replace("æ", "ae").replace("Æ", "ae")
    return _NON_ALNUM.sub("-", folded.lower()).strip("-")
