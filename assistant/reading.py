"""Read a free answer as a person would: clauses, what is affirmed and what is denied.

``read_answer(text, options, rules)`` returns a ``Reading``: the option the answer points
to (with a confidence, as ``choice.Match``), the options it contradicts itself on, and the
path-F prerequisites it says the reader knows (True) or does not know (False).

How an answer is read (rules and vocabulary live in ``corpus/parcours.yaml``, ``reading``):
1. normalised (lowercase, accents folded), misspelt words mapped to the vocabulary
   (``assistant.spelling``), filler phrases that look negative but are not ("rien de plus",
   "il ne faut pas appeler …") blanked;
2. cut into clauses at punctuation and at concessions ("mais", "sauf", "par contre",
   "but", "except" …) and at "et je …", "and never …";
3. each clause is affirmed or denied ("jamais", "pas encore", "n'ai … pas", "never",
   "not yet" …); a short clause with no verb of its own ("mbarrier, TMA : jamais vu")
   takes the polarity of the bare predicate that follows it;
4. affirmed clauses add their options' pattern weights; denied clauses add nothing for
   those patterns but apply the denial rules ("jamais touché un GPU" rules out the kernel
   levels and speaks for "programmer");
5. an option strongly affirmed and ruled out by another clause is a contradiction; levels
   form a ladder, so background evidence of a lower level ("je code en Python") moves up to
   the highest level the answer otherwise supports ("… et j'écris des noyaux CUDA").
Limits: no syntax tree; a negation scopes over its whole clause; nested clauses beyond
one concession per sentence are read clause by clause.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from assistant.choice import Match, normalise
from assistant.spelling import correct

_SPLIT = re.compile(
    r"[;!?()\n/]|[,:](?!\d)|\.(?=\s|$)|\s[-–—]\s|\b(?:mais|sauf|hormis|par contre|en revanche|cependant|pourtant|"
    r"toutefois|neanmoins|alors que|tandis que|but|except|however|though|although|whereas|apart from)\b|"
    r"\bet (?=(?:je|j'|on|nous|jamais|pas|rien|aucune?|par contre)\b)|\band (?=(?:i|i'\w+|never|not|no)\b)")
_NEGATION = re.compile(r"\b(?:jamais|pas|aucune?|rien|ni|non|nul|zero|never|not|no|nothing|none|nope|nada|"
                       r"neither|nor|without|que dalle)\b|n't\b|\bne \w+ plus\b|\bn'\w+ plus\b")
_AFFIRM = re.compile(r"\b(?:oui|yes|yep|ouais|bien sur|of course|sure|je (?:sais|connais|maitrise|comprends)|"
                     r"i (?:know|understand|get)|deja|already|connu|known|vu|seen)\b")


@dataclass(frozen=True)
class Clause:
    text: str
    negative: bool


@dataclass(frozen=True)
class Reading:
    match: Match
    contradiction: tuple[str, ...] = ()      # options the answer both affirms and rules out
    facts: dict[str, bool] = field(default_factory=dict)   # prerequisite id -> known
    understood: bool = False                  # some word of the answer was recognised
    hedged: bool = False                      # "je ne sais plus trop", "not sure", "les deux"


class Rules:
    """The ``reading`` block of parcours.yaml, compiled once."""

    def __init__(self, data: dict) -> None:
        self.vocabulary = frozenset(data.get("vocabulary", []))
        self.known_words = frozenset(data.get("known_words", []))
        self.neutral = re.compile(data["neutral"])
        self.hedges = re.compile(data["hedges"])
        self.ladder = list(data.get("ladder", []))
        self.denials = [(re.compile(d["pattern"]), list(d.get("rules_out", [])), dict(d.get("supports", {})))
                        for d in data.get("denials", [])]
        self.novice = [(re.compile(d["pattern"]), list(d.get("rules_out", [])), dict(d.get("supports", {})))
                       for d in data.get("novice", [])]
        self.prerequisites = {k: re.compile(v) for k, v in data.get("prerequisites", {}).items()}


def clean(text: str, rules: Rules) -> str:
    """Normalised, spelling-corrected text with the neutral phrases blanked."""
    norm = correct(normalise(text), rules.vocabulary, rules.known_words)
    return re.sub(r"\s+", " ", rules.neutral.sub(" ", norm)).strip()


def clauses(text: str, rules: Rules, topics: list[re.Pattern]) -> list[Clause]:
    """The clauses of a cleaned answer with their polarity (see the module docstring)."""
    parts = [p.strip() for p in _SPLIT.split(text) if p and p.strip()]
    parsed = [(p, bool(_NEGATION.search(p)), any(t.search(p) for t in topics)) for p in parts]
    out: list[Clause] = []
    carry = None
    for part, neg, has_topic in reversed(parsed):
        if not has_topic:
            carry = neg if (neg or _AFFIRM.search(part)) else None
            out.append(Clause(part, neg))
            continue
        if not neg and carry is not None and len(part.split()) <= 3 and not _AFFIRM.search(part):
            neg = carry     # a bare list item before its predicate: the carry goes on
        else:
            carry = None
        out.append(Clause(part, neg))
    return list(reversed(out))


def _self_negating(pattern: re.Pattern, clause: str) -> bool:
    """A pattern that matches the negation itself ("sans code", "je ne code pas")."""
    if not _NEGATION.search(pattern.pattern):
        return False
    m = pattern.search(clause)
    if not m:
        return False
    rest = clause[:m.start()] + " " + clause[m.end():]
    return bool(_NEGATION.search(m.group(0))) and not _NEGATION.search(rest)


def read_answer(text: str, options: list[dict], rules: Rules) -> Reading:
    """Score ``text`` against ``options`` (each with ``patterns`` and ``when_denied``)."""
    cleaned = clean(text, rules)
    compiled = {o["id"]: [(re.compile(p[0]), float(p[1]), len(p) > 2 and p[2] == "up") for p in o.get("patterns", [])]
                for o in options}
    denied_w = {o["id"]: [(re.compile(p), float(w)) for p, w in o.get("when_denied", [])] for o in options}
    ids = [o["id"] for o in options]
    topics = [p for pats in compiled.values() for p, _, _ in pats] + [p for d in denied_w.values() for p, _ in d]
    topics += [d[0] for d in rules.denials + rules.novice] + list(rules.prerequisites.values())
    own = dict.fromkeys(ids, 0.0)
    up = dict.fromkeys(ids, 0.0)
    ruled_out: set[str] = set()
    facts: dict[str, bool] = {}
    understood = False
    for clause in clauses(cleaned, rules, topics):
        for oid, pats in compiled.items():
            for pattern, weight, is_up in pats:
                if pattern.search(clause.text) and (not clause.negative or _self_negating(pattern, clause.text)):
                    (up if is_up else own)[oid] += weight
                    understood = True
        rule_sets = rules.novice if not clause.negative else rules.denials
        for pattern, out, supports in rule_sets:
            if pattern.search(clause.text):
                understood = True
                ruled_out.update(o for o in out if o in own)
                for oid, w in supports.items():
                    if oid in own:
                        own[oid] += float(w)
        if clause.negative:
            for oid, pats in denied_w.items():
                for pattern, weight in pats:
                    if pattern.search(clause.text):
                        own[oid] += weight
                        understood = True
        for pid, pattern in rules.prerequisites.items():
            if pattern.search(clause.text):
                understood = True
                facts[pid] = facts.get(pid, True) and not clause.negative
    contradiction = tuple(o for o in ids if o in ruled_out and own[o] + up[o] >= 2.5)
    allowed = [o for o in ids if o not in ruled_out]
    scores = {o: own[o] + up[o] for o in allowed}
    ladder = [o for o in rules.ladder if o in scores]
    for i, low in enumerate(ladder):
        higher = [h for h in ladder[i + 1:] if own[h] > 0]
        if higher and up[low]:
            scores[higher[-1]] += up[low]
            scores[low] -= up[low]
    if contradiction:
        best_allowed = max(allowed, key=lambda o: scores[o], default=None)
        pair = [best_allowed] if best_allowed and scores[best_allowed] > 0 else []
        contradiction = tuple(pair + [max(contradiction, key=lambda o: own[o] + up[o])])
    ranked = tuple(sorted(((o, scores.get(o, 0.0)) for o in ids), key=lambda s: -s[1]))
    hedged = bool(rules.hedges.search(cleaned))
    top = ranked[0][1] if ranked else 0.0
    if top <= 0:
        match = Match(None, 0.0, ranked)
    else:
        runner = ranked[1][1] if len(ranked) > 1 else 0.0
        confidence = top / (top + runner)
        match = Match(ranked[0][0], min(confidence, 0.6) if hedged or contradiction else confidence, ranked)
    return Reading(match, contradiction, facts, understood or top > 0, hedged)


def read_yes_no(text: str, rules: Rules) -> bool | None:
    """An answer to a yes/no question: True, False, or None when it says neither."""
    cleaned = clean(text, rules)
    first = cleaned.split(" ", 1)[0].strip(".,;:!") if cleaned else ""
    if first in {"oui", "yes", "yep", "ouais", "o", "y", "absolument", "evidemment", "certainement", "sure"}:
        rest = cleaned.split(" ", 1)[1] if " " in cleaned else ""
        return not re.match(r"\s*(?:et|and)?\s*(?:non|no)\b", rest)
    if _NEGATION.search(cleaned):
        return False
    if rules.hedges.search(cleaned):
        return False
    if _AFFIRM.search(cleaned) or re.search(r"\b(?:tout a fait|bien sur|exactement|parfaitement|affirmatif|"
                                            r"j'en ai|utilise|i do|i have|i've used)\b", cleaned):
        return True
    return None
