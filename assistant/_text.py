"""Text helpers shared by the answer stage: French/English term stems and Markdown sentences.

Private to ``assistant``. Terms are lower-cased, stemmed with Snowball (French, which
also leaves most English GPU words such as "warp" or "shared" usable) and accent-folded,
so "mémoires" and "memoire" meet. Code spans such as ``tl.trans`` or ``sm_90a`` stay one
term.
"""
from __future__ import annotations

import re
from functools import lru_cache

import Stemmer

from ingest.anchors import fold

_STEMMER = Stemmer.Stemmer("french")
_WORD = re.compile(r"\w+(?:\.\w+)*")

# Words that carry no topic: French and English function words, question words and the
# verbs people wrap questions in ("expliquer", "savoir", "faut-il").
STOPWORDS = frozenset("""
a à ai ainsi alors au aucun aussi autre autres aux avec avoir bien c ça car ce ceci cela
celle celles celui cependant ces cet cette ceux chaque chez ci comme comment comprendre
d dans de des deux dire dis doit doivent donc dont du elle elles en encore entre est
et étaient était été être eu explique expliquer expliquez fait faire faut fois font
il ils j je jusqu l la le les leur leurs lors lui m ma mais me même mes moi mon n ne ni
non nos notre nous on ont ou où par parce pas peu peut peuvent plus pour pourquoi
pourrais pouvez puis puisque qu quand que quel quelle quelles quels qui quoi rien s sa
sans savoir se sert servent ses si sinon son sont sous suis sur t ta te tes toi ton
toujours tous tout toute toutes très tu un une vers voir vos votre vous y
c'est qu'est-ce est-ce veut dire signifie sert-il sert-elle exactement concrètement
simplement rapidement vraiment quoi donc ok oui bon alors guide chapitre tuile
the of and or to in on at by for with from into is are was were be been being do does
did how why what which who whom when where whose this that these those it its an as
can could should would will shall may might must i you we they he she my your our
their me us them not no yes if then than so about explain tell please between vs
many much more most some any each such only very just there here get got make need
""".split())

# Markers of a question that only makes sense with the previous one.
ANAPHORA = frozenset("""
ça cela ce celui celle ceux celles celui-ci celle-ci ceux-ci celles-ci dernier dernière
même mêmes idem pareil pareille il elle ils elles le la les y en là-dessus
it this that these those they them same
""".split())


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return fold(_STEMMER.stemWord(word))


def words(text: str) -> list[str]:
    """Lower-cased words of ``text`` (apostrophes and dashes split them)."""
    return _WORD.findall(text.lower().replace("’", "'"))


def terms(text: str) -> list[str]:
    """Stems of the content words of ``text``, in order (stopwords and 1-letter words out)."""
    out = []
    for w in words(text):
        if w in STOPWORDS or (len(w) < 2 and not w.isdigit()):
            continue
        out.append(_stem(w))
    return out


def normalise_space(text: str) -> str:
    return " ".join(text.split())


_FENCE = re.compile(r"^\s*(```|~~~)")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*\S)\s*$")
_SKIP_LINE = ("|", "#", "<!--", "![", "<", "$$")
# A sentence ends at . ! ? … followed by a space and a capital, a digit, a quote or
# Markdown markup; abbreviations below do not end one.
_SPLIT = re.compile(r"(?<=[.!?…])\s+(?=[A-ZÀ-ÖØ-Þ0-9«\"“(\[`*_])")
_ABBREV = ("p. ex.", "ex.", "cf.", "etc.", "env.", "fig.", "e.g.", "i.e.", "vs.", "av.", "réf.", "M.", "éd.")
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
        if out and (out[-1].endswith(_ABBREV) or out[-1].count("`") % 2 == 1
                    or out[-1].count("«") > out[-1].count("»") or out[-1].count("(") > out[-1].count(")")):
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return out


def sentences(text: str) -> list[str]:
    """Quotable sentences of a Markdown section, each a verbatim piece of it (modulo line breaks).

    Left out: code blocks, tables, headings, sentences that announce a list (ending
    with ":") and fragments under five words, which do not stand on their own.
    """
    out = []
    for unit in _units(text):
        for s in _split(unit):
            s = s.strip()
            n = len(s.split())
            if _MIN_WORDS <= n <= _MAX_WORDS and not s.endswith(":") and re.search(r"[^\W\d_]", s):
                out.append(s)
    return out


def is_verbatim(quote: str, section_text: str) -> bool:
    """True when ``quote`` appears in ``section_text``, line breaks and runs of spaces aside."""
    return normalise_space(quote) in normalise_space(section_text)
