"""What a question asks for: a cause, a figure, a comparison, steps, a definition; code or not.

``question_intent(question)`` returns an ``Intent``: ``kind`` is "why" (« pourquoi »,
"why", and symptoms such as « mon noyau ne fait rien »), "howmuch" (« combien », "how
many", « quelle taille »), "when" (« en quelle année », "what year"), "compare" (« différence », "vs"), "how" (« comment », "how do
I"), "what" (« qu'est-ce que », « c'est quoi », « à quoi sert », "what is") or "" when none applies;
``code`` is true when it asks for code (« code », « exemple », « montre », "show");
``subject`` holds the terms of X in « qu'est-ce que X ? » (its head: « une rupture de graphe
dans torch.compile » → rupture, graphe), ``counted`` the term of X in « combien de X » /
"how many X"; ``parts`` the key term of each side of a two-part question (« mma.sync, wgmma et
tcgen05 », « X vs Y », « … et comment … »); ``bound`` is true when it asks for a limit
(« au maximum », "max"); ``named`` holds the terms the question writes as names (cuRAND,
`torch.compile`, MI300X, Blelloch), which a sentence about something else will not hold;
``frame`` the terms of the asking words (« qu'appelle-t-on »); ``symptom`` is true for a
problem told in the first person (« mon noyau lit des valeurs pourries de temps en temps »),
``condition`` for a question on when a thing is worth it ("when is __constant__ memory a good
idea?", « dans quels cas … »), ``choice`` for one on which to take (« lequel prendre ? »,
"which one should I pick?"). Checked in this order: the
first that matches wins (« pourquoi … combien » is a why). The composer reads it to choose its
lead (``assistant.compose``). Limits: patterns on words; an intent worded otherwise
(« à quoi bon … ») gets "".
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ingest.analyzer import normalise_space, terms
from ingest.anchors import fold

# « qu'est-ce qu'un megakernel ? » wants the sentence that defines it, not its history
_DEFINITION = re.compile(r"^((?:qu'est[- ]ce qu(?:e |')|c'est quoi |c quoi |c koi |ckoi |"
                         r"que (?:veut dire|signifie|désigne) |que sont |qu'appelle-t-on (?:exactement )?|"
                         r"définition d(?:e |'|u |es )|à quoi ser(?:t|vent) (?:exactement )?|"
                         r"what(?: is|'s| are) (?:an? |the )?|what does |define ))(.+?)\s*\??$")
# « en quelle année … ? » wants a date: « publié en 2007 »
_WHEN = re.compile(r"\ben quelle année\b|\bde quand date\b|\bwhat year\b|\bwhen (?:was|were|did)\b|"
                   r"\bdepuis quand\b|\bquand (?:est|a|ont|sont)\b.*\b(?:apparu|sorti|introduit|publié|créé|arrivé)|"
                   # « quel article a introduit … », "which paper introduced …", « qui a inventé … »: the
                   # answer is a reference, with its year
                   r"\b(?:which|what) (?:paper|article|publication)\b|\bquel(?:le)? (?:article|papier|publication)\b|"
                   r"\bqui a (?:inventé|introduit|proposé)\b|\bwho (?:invented|introduced|proposed|came up with)\b")
_WHY = re.compile(r"\bpourquoi\b|\bwhy\b|d'où vien|what causes|à cause de quoi|comment se fait|how come|"
                  r"\bcomes? from\b")
_SYMPTOM = re.compile(r"\b(mon|ma|mes|my|j'ai|i get|i got)\b.*\b(rien|plante\w*|crash\w*|faux|fausses?|wrong|"
                      r"erreurs?|errors?|lente?s?|slow\w*|bloque\w*|block\w*|garbage|n'importe quoi|diff\w+|"
                      r"fails?|failed|échoue\w*|broke\w*|zéro|zero|hang\w*|nan|inf|cass\w+|marche pas|"
                      r"fonctionne pas|works? not|doesn't work|normal|pourri\w*|bizarre\w*|weird|incorrect\w*|"
                      r"attend\w*|wait\w*|stuck|coinc\w*|freez\w*|gel\w*|deadlock\w*|timeout|segfault|illegal|"
                      r"out of memory|oom|mauvais\w*|parfois|de temps en temps|sometimes|random\w*|aléatoire\w*)\b")
_HOWMUCH = re.compile(r"\bcombien\b|\bhow (much|many|fast|big|large|long)\b|\bwhat ?%|\bquel(le)?s? (est |sont )?"
                      r"(la |le |les )?(taille|débit|latence|bande passante|nombre|capacité|coût|gain|pic|"
                      r"tolérances?|fréquence|volume|intensité)\b|\bwhat(?:'s| is) the (size|throughput|latency|"
                      r"bandwidth|number|capacity|cost|peak|ridge)\b|\bça (coûte|rapporte|donne) (quoi|combien)\b|"
                      # "what's the largest value FP8 E4M3 can hold?": a figure, the limit
                      r"\bwhat(?:'s| is) the (?:largest|biggest|highest|smallest|lowest|maximum|minimum|max|min)\b|"
                      r"\b(?:what|which) (?:tolerances?|rtol|atol|size|bandwidth|latency|throughput)\b|"
                      r"\b(?:quelle est )?la (?:plus grande|plus petite) valeur\b|\bvaleur max\w*")
# « padding ou swizzling, lequel choisir ? »: a choice between the sides
_COMPARE = re.compile(r"\bdifférences?\b|\bdifference\b|\bdiff\b|\bvs\.?\b|\bversus\b|\bplutôt que\b|"
                      r"\bcompar\w*|\bmieux que\b|\bbetter than\b|\bou bien\b|\blequel\b|\blaquelle\b|"
                      r"\blesquel\w*|\bwhich one\b|\bwhich is better\b")
_HOW = re.compile(r"^(comment|how)\b|\bcomment\b|\bje fais comment\b|\bhow (do|can|should|to)\b|\bétapes\b|"
                  r"\bsteps\b|\bmarche à suivre\b")
# asking for code, not mentioning it: « mon vieux code warp-synchrone » does not ask for a block
_COUNTED = re.compile(r"\b(?:combien (?:de |d'|d’)|how (?:many|much) )(?:la |le |les )?([^\W\d_][\w-]*)")
# the head of « qu'est-ce que X dans Y ? »: what is defined is X, Y only places it
_SUBJECT_END = re.compile(r"\s(?:dans|en|sur|pour|avec|chez|in|on|for|with|within|et|and|,)\s.*$|\s*[,;:(].*$|"
                          r"\s(?:do|does|mean|means|work|works|fait|font)\b.*$")
# two-part questions: « X vs Y », « X, Y et Z », « … et comment … », "… and what …"
_ASKING = (r"(?:comment|pourquoi|quand|combien|quel\w*|lequel|laquelle|lesquel\w*|où|à quoi|ça|ca|c'est|c quoi|c koi|qu'|que\b|what\w*|why|how|when|which|"
           r"where|is|are|do|does|can|should)\b")
_SECOND_QUESTION = re.compile(r"\s+(?:et|and)\s+(?=" + _ASKING + r"|d'une?\b|de la\b|du\b|des\b)")
_TAIL_QUESTION = re.compile(r"\s*[,:]\s*" + _ASKING + r".*$|\s+(?:qui|that)\s.*$")
_SIDES = re.compile(r"\s+(?:vs\.?|versus|contre|ou bien|ou|or)\s+|\s*,\s*|\s+(?:et|and)\s+")
# what a side names first is its key, past these (« la taille d'un secteur » → secteur)
_GENERIC = frozenset(terms("taille tailles nombre nombres quantité valeur valeurs différence différences rôle "
                           "année size sizes number amount value role difference year"))
_BOUND = re.compile(r"\b(maximum|maximale?s?|max|au plus|at most|limite|limit|plafond|jusqu'où|upper bound|"
                    r"largest|biggest|highest|plus grande?)\b")
# "when is __constant__ memory a good idea?", « dans quels cas un megakernel ne vaut pas l'effort ? »:
# the answer is a condition (110 of the dev questions ask one)
_CONDITION = re.compile(r"\bwhen (?:is|are|should|does|do|would|to|must|can)\b|\bquand (?:utiliser|faut-il|vaut-il|"
                        r"est-ce|est ce|choisir|prendre|préférer|passer|ça vaut|ca vaut)\b|\bdans quels? cas\b|"
                        r"\bin (?:which|what) cases?\b|\bgood idea\b|\bbonne idée\b|\bworth (?:it|the)\b|"
                        r"\bvaut(?:-il)? (?:le coup|la peine|l'effort)\b|\bsert (?:à|a) rien\b")
# « padding ou swizzling, lequel prendre ? », "when should I prefer one over the other?": the
# answer is the guide's rule of choice (« dès que les accès sont vectorisés, … le swizzling s'impose »)
_CHOICE = re.compile(r"\b(?:lequel|laquelle|which one|which (?:should|to|do i|would)|choisir|choose|pick|"
                     r"prefer\w*|préférer|privilégier|prendre|opt for|go with|when should|quand utiliser|"
                     r"should i use|dois-je utiliser|je prends quoi|tu conseilles|recommand\w*|conseill\w*)\b")
# names: a capital after the first letter (cuRAND, MI300X, HGMMA), a digit with letters (H100,
# sm_90), code marks (torch.compile, __syncthreads, `ptxas`)
_NAMED = re.compile(r"`[^`]+`|\b(?=[\w.]*[a-z][\w.]*[A-Z]|\w*\d)(?=\w*[A-Za-z])[\w.]+|\b\w+[._]\w[\w.]*")
# a capitalised word after the first: Blelloch, Fleet, ThunderKittens (not the question's first word)
_PROPER = re.compile(r"(?<=[\w,;:] )[A-ZÀ-Ö][a-zà-ÿ]{2,}\b")
# asking how to do something (not how a thing works): the section's code block shows it
_DOING = re.compile(r"\bhow (?:do|can|should|would) (?:i|you|we|one)\b(?! (?:know|tell|see why))|\bhow to\b|"
                    r"\bcomment (?:je|j'|on|l'on|faire|faut-il|il faut|ecrire|declarer|capturer|lancer|utiliser|"
                    r"appeler|creer|mesurer|compiler|profiler|verifier|recuperer|obtenir|activer|coder|"
                    r"implementer|allouer|copier|charger|synchroniser|chronometrer)\b")   # read on folded text
_CODE = re.compile(r"\b(montre\w*|show|exemple|example|snippet|sample|écris|écrire|write)\b|"
                   r"\b(le|du|un|the|some|de|en|avec|with|in) code\b|\bcode (de|d'|du|pour|for|of)\b|^code\b|"
                   # « … ? code python stp », "(code please)": code asked after the question
                   r"(?:[?,;:(]|\s-)\s*code\b|\bcode\s+(?:python|pytorch|cuda|triton|c\+\+\s)?\s*(?:stp|svp|please|pls|plz)\b")


@dataclass(frozen=True)
class Intent:
    kind: str                         # "why" | "howmuch" | "when" | "compare" | "how" | "what" | ""
    code: bool = False                # the question asks for code
    doing: bool = False               # it asks how to do something (« comment déclarer … »)
    subject: frozenset = frozenset()  # terms of X in « qu'est-ce que X ? »
    counted: str = ""                 # the term of what « combien de X » counts
    parts: tuple = ()                 # the key term of each side of a two-part question
    bound: bool = False               # asks for a maximum or a limit
    named: frozenset = frozenset()    # terms written as names (cuRAND, torch.compile, H100)
    frame: frozenset = frozenset()    # terms of the asking words (« qu'appelle-t-on »), not of the subject
    symptom: bool = False             # « mon noyau … » with a problem: the cause or the fix is the answer
    condition: bool = False           # « quand … vaut-il le coup ? »: the condition under which it helps
    choice: bool = False              # « lequel prendre ? », "when should I prefer one?": the rule of choice


def _parts(asked: str, kind: str) -> list[str]:
    """The sides a comparison sets against each other, before any second question it asks
    (« gluon vs triton: what do you gain and what do you give up? » compares gluon and triton:
    in the round-8 hand-read, 5 of 7 comparisons judged partial had their sides read as the
    two questions), else two questions in one (« … et comment … »)."""
    questions = _SECOND_QUESTION.split(asked)
    if kind == "compare":
        head = _TAIL_QUESTION.sub("", questions[0]).strip(" ,;:")
        head = re.sub(r"^.*?\b(?:entre|between|différences?|difference|diff)\s+(?:(?:les?|la|the)\s+)?", "", head)
        sides = [p for p in _SIDES.split(head) if p.strip()]
        if len(sides) > 1:
            return sides
    return questions if len(questions) > 1 else []


def question_intent(question: str) -> Intent:
    """What ``question`` asks for (see the module docstring)."""
    q = normalise_space(question.lower().replace("’", "'"))
    asked = q.split(" (")[0].strip()        # the bridge appends « (French words) » to English questions
    m = _DEFINITION.match(asked)
    subject = frozenset(terms(_SUBJECT_END.sub("", m.group(2)) or m.group(2))) if m else frozenset()
    frame = frozenset(terms(m.group(1))) if m else frozenset()
    code = bool(_CODE.search(q))
    symptom = bool(_SYMPTOM.search(q))
    if _WHY.search(q) or symptom:
        kind = "why"
    elif _WHEN.search(q):
        kind = "when"
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
    sides = [next((t for t in terms(p) if t not in _GENERIC), "") for p in _parts(asked.rstrip(" ?"), kind)]
    sides = list(dict.fromkeys(t for t in sides if t))
    original = question.split(" (")[0]
    found = _NAMED.findall(original) + _PROPER.findall(original)
    named = frozenset(t for n in found for t in terms(n))
    return Intent(kind, code, bool(_DOING.search(fold(q))), subject, counted_terms[0] if counted_terms else "",
                  tuple(sides) if len(sides) > 1 else (), bool(_BOUND.search(q)), named, frame, symptom,
                  bool(_CONDITION.search(q)), bool(_CHOICE.search(q)))
