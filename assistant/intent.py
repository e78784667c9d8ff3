"""What a question asks for: a cause, a figure, a comparison, steps, a definition; code or not.

``question_intent(question)`` returns an ``Intent``: ``kind`` is "why" (« pourquoi »,
"why", and symptoms such as « mon noyau ne fait rien »), "howmuch" (« combien », "how
many", « quelle taille »), "compare" (« différence », "vs"), "how" (« comment », "how do
I"), "what" (« qu'est-ce que », « c'est quoi », "what is") or "" when none applies;
``code`` is true when it asks for code (« code », « exemple », « montre », "show");
``subject`` holds the terms of X in « qu'est-ce que X ? », ``counted`` the term of X in
« combien de X » / "how many X". Checked in this order: the first
that matches wins (« pourquoi … combien » is a why). The composer reads it to choose its
lead (``assistant.compose``). Limits: patterns on words; an intent worded otherwise
(« à quoi bon … ») gets "".
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ingest.analyzer import normalise_space, terms

# « qu'est-ce qu'un megakernel ? » wants the sentence that defines it, not its history
_DEFINITION = re.compile(r"^(?:qu'est[- ]ce qu(?:e |')|c'est quoi |c quoi |c koi |ckoi |"
                         r"que (?:veut dire|signifie|désigne) |que sont |qu'appelle-t-on |définition d(?:e |'|u |es )|"
                         r"what(?: is|'s| are) (?:an? |the )?|define )(.+?)\s*\??$")
_WHY = re.compile(r"\bpourquoi\b|\bwhy\b|d'où vien|what causes|à cause de quoi|comment se fait|how come|"
                  r"\bcomes? from\b")
_SYMPTOM = re.compile(r"\b(mon|ma|mes|my|j'ai|i get|i got)\b.*\b(rien|plante\w*|crash\w*|faux|fausses?|wrong|"
                      r"erreurs?|errors?|lente?s?|slow\w*|bloque\w*|block\w*|garbage|n'importe quoi|diff\w+|"
                      r"fails?|failed|échoue\w*|broke\w*|zéro|zero|hang\w*|nan|inf|cass\w+|marche pas|"
                      r"fonctionne pas|works? not|doesn't work|normal)\b")
_HOWMUCH = re.compile(r"\bcombien\b|\bhow (much|many|fast|big|large|long)\b|\bwhat ?%|\bquel(le)?s? (est |sont )?"
                      r"(la |le |les )?(taille|débit|latence|bande passante|nombre|capacité|coût|gain|pic|"
                      r"tolérances?|fréquence|volume|intensité)\b|\bwhat(?:'s| is) the (size|throughput|latency|"
                      r"bandwidth|number|capacity|cost|peak|ridge)\b|\bça (coûte|rapporte|donne) (quoi|combien)\b")
_COMPARE = re.compile(r"\bdifférences?\b|\bdifference\b|\bvs\.?\b|\bversus\b|\bplutôt que\b|"
                      r"\bcompar\w*|\bmieux que\b|\bbetter than\b|\bou bien\b")
_HOW = re.compile(r"^(comment|how)\b|\bcomment\b|\bje fais comment\b|\bhow (do|can|should|to)\b|\bétapes\b|"
                  r"\bsteps\b|\bmarche à suivre\b")
# asking for code, not mentioning it: « mon vieux code warp-synchrone » does not ask for a block
_COUNTED = re.compile(r"\b(?:combien (?:de |d'|d’)|how (?:many|much) )(?:la |le |les )?([^\W\d_][\w-]*)")
_CODE = re.compile(r"\b(montre\w*|show|exemple|example|snippet|écris|écrire|write)\b|"
                   r"\b(le|du|un|the|some|de|en) code\b|\bcode (de|d'|du|pour|for|of)\b|^code\b")


@dataclass(frozen=True)
class Intent:
    kind: str                         # "why" | "howmuch" | "compare" | "how" | "what" | ""
    code: bool = False                # the question asks for code
    subject: frozenset = frozenset()  # terms of X in « qu'est-ce que X ? »
    counted: str = ""                 # the term of what « combien de X » counts


def question_intent(question: str) -> Intent:
    """What ``question`` asks for (see the module docstring)."""
    q = normalise_space(question.lower().replace("’", "'"))
    asked = q.split(" (")[0].strip()        # the bridge appends « (French words) » to English questions
    m = _DEFINITION.match(asked)
    subject = frozenset(terms(m.group(1))) if m else frozenset()
    code = bool(_CODE.search(q))
    if _WHY.search(q) or _SYMPTOM.search(q):
        kind = "why"
    elif _HOWMUCH.search(q):
        kind = "howmuch"
    elif _COMPARE.search(q):
        kind = "compare"
    elif m:
        kind = "what"
    elif _HOW.search(q):
        kind = "how"
    else:
        kind = ""
    counted = _COUNTED.search(q)
    counted_terms = terms(counted.group(1)) if counted else []
    return Intent(kind, code, subject, counted_terms[0] if counted_terms else "")
