"""Check a question before anything else touches it: a clear French message, never a crash.

``check_question(raw)`` returns a ``Checked`` record: the cleaned text and its language
when usable, else the message to show. Bytes are accepted and decoded as UTF-8 (what a
pipe or a form hands over); anything else is refused with the type named.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from ingest.analyzer import words
from ingest.anchors import fold
from assistant.data import general_words
from assistant.typography import fr_number

# A question, not a document: 2,000 characters is about 500 tokens, the most the
# embedder reads (multilingual-e5-small truncates at 512), and twenty times the longest
# of the 264 questions of the eval sets (96 characters).
MAX_CHARS = 2000
# Above 10 % control or unassigned characters the text is not language (NUL bytes, a
# binary file pasted or piped in); real questions with code hold tabs and newlines only.
_MAX_CONTROL_SHARE = 0.10

_EN_MARKERS = frozenset("the what why how is are does do which when where can should i my "
                        "with of and to in use using difference between for "
                        # chat spellings: "whats a cuda stream" was read as French and refused
                        "whats wats hows whys wheres whos im ive dont doesnt cant isnt wont".split())
_FR_MARKERS = frozenset("le la les un une des est sont pourquoi comment quel quelle quels "
                        "quelles qu que qui avec de du dans pour sur et ou mon ma mes "
                        "entre faut peut c koi pk ya jsp chui jsuis ca ça je tu".split())
# a message quoted in the question (« no kernel image is available for … ») is not its language
_QUOTED = re.compile(r"«[^»]*»|\"[^\"]*\"|`[^`]*`|“[^”]*”")
_ACCENTED = re.compile(r"[éèêëàâçîïôûùœ]")


@lru_cache(maxsize=1)
def _everyday() -> tuple[frozenset[str], frozenset[str]]:
    """The English and French everyday words (``assistant.data.general_words``), less the ones
    both share; the French ones folded."""
    data = general_words()
    en, fr = frozenset(data.get("en", ())), frozenset(fold(w) for w in data.get("fr", ()))
    return en - fr, fr - en


EXAMPLE = "« Pourquoi ma transposition plafonne-t-elle à 25 % de la bande passante ? »"


@dataclass(frozen=True)
class Checked:
    ok: bool
    text: str = ""
    language: str = "fr"
    message: str = ""      # French, shown as is when not ok


def _thousands(n: int) -> str:
    return fr_number(n)   # French groups digits with a narrow space: 50 000


def _refuse(message: str) -> Checked:
    return Checked(ok=False, message=message)


def _control_share(text: str) -> float:
    bad = 0
    for c in text:
        if c in "\n\r\t":
            continue
        cat = unicodedata.category(c)
        if cat in ("Cc", "Cs", "Co", "Cn") or c == "\ufffd":
            bad += 1
    return bad / max(len(text), 1)


def language(text: str) -> str:
    """"en" when English function words outnumber French ones (everyday words when it has
    neither, a quoted message set aside), else "fr"."""
    ws = words(_QUOTED.sub(" ", text)) or words(text)
    en = sum(w in _EN_MARKERS for w in ws)
    fr = sum(w in _FR_MARKERS for w in ws)
    if not en and not fr:
        # no function word at all ("explain memory coalescing pls", "MI300X vs MI350X specs: CUs,
        # memory, bandwidth?"): the everyday words decide. On the 7,471 labelled dev questions,
        # 72 were misread (70 of them English read as French), 10 with this and the quotes set aside
        # (an accented word is French whatever its folded form: « différence » is not "difference")
        en_words, fr_words = _everyday()
        en = sum(w in en_words for w in ws)
        fr = sum(fold(w) in fr_words or _ACCENTED.search(w) is not None for w in ws)
    return "en" if en > fr else "fr"


def check_question(raw: object) -> Checked:
    if raw is None:
        return _refuse(f"Aucune question reçue. Posez une question sur la programmation GPU, par exemple {EXAMPLE}")
    if isinstance(raw, (bytes, bytearray)):
        try:
            raw = bytes(raw).decode("utf-8")
        except UnicodeDecodeError:
            return _refuse("La question n'est pas du texte lisible (octets non UTF-8). "
                           f"Écrivez-la en toutes lettres, par exemple {EXAMPLE}")
    if not isinstance(raw, str):
        return _refuse(f"La question doit être du texte, pas un objet de type {type(raw).__name__}.")
    text = raw.strip()
    if not text:
        return _refuse("La question est vide. Posez une question sur la programmation GPU, "
                       f"par exemple {EXAMPLE}")
    if len(text) > MAX_CHARS:
        return _refuse(f"La question est trop longue ({_thousands(len(text))} caractères ; "
                       f"{_thousands(MAX_CHARS)} au plus). Posez-la en quelques phrases ; pour faire "
                       "analyser un noyau, utilisez le bac à sable (onglet « Bac à sable » ou « tuile kernel run »).")
    if "\x00" in text or _control_share(text) > _MAX_CONTROL_SHARE:
        return _refuse("La question contient des caractères de contrôle ou binaires : ce n'est "
                       f"pas du texte lisible. Écrivez-la en toutes lettres, par exemple {EXAMPLE}")
    if not any(ch.isalpha() for ch in text):
        return _refuse("La question ne contient aucun mot. Posez une question en toutes lettres, "
                       f"par exemple {EXAMPLE}")
    return Checked(ok=True, text=text, language=language(text))
