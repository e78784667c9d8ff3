"""Two facts of one answer that cannot both be true, and what an answer claims.

``find_clash(read, compiled, rules, topics, contradicted)`` returns two clauses of an answer,
(denial, claim), whose facts do not go together, or ``()``; ``claims_of(clause, …)`` what an
affirmed clause claims, option by option. Both work on the clauses ``assistant.paths.read.reading`` has
read (``assistant.paths.read.clauses``); the reading turns a clash into the reader's own words.
Limits: one clause against one other; a fact spread over three clauses is not seen.
"""
from __future__ import annotations

import re

from assistant.paths.read.clauses import Clause, Rules, self_negating

# Evidence of a level that another clause rules out, from which the answer contradicts itself:
# one plain mention ("I know CUDA really well", 1.5) against "zero programming" is enough.
CLAIM_MIN = 1.5


def claims_of(clause: Clause, compiled: dict, rules: Rules, coding: bool = False) -> dict[str, str]:
    """What an affirmed clause claims, as {option: matched words}: a full-weight pattern of at
    least ``CLAIM_MIN``, not in a vague or partial clause, not a fact merely known. With
    ``coding``, only claims that suppose writing code: background ("up") evidence or any
    kernel level ("je code en C++", "développeur", "j'optimise des noyaux"), not "manager"."""
    if clause.negative or rules.partial.search(clause.text) or rules.vague.search(clause.text) or clause.weak:
        return {}
    names_prerequisite = any(p.search(clause.text) for p in rules.prerequisites.values())
    out: dict[str, str] = {}
    for oid, pats in compiled.items():
        for pattern, weight, kind in pats:
            m = pattern.search(clause.text)
            if not m or weight < CLAIM_MIN or ("fact" in kind and clause.knowing) or \
                    (names_prerequisite and clause.knowing) or "nocode" in kind:
                continue
            # The ladder's third rung on (simple kernels, optimising, Hopper) all write code.
            if coding and "up" not in kind and oid not in rules.ladder[2:]:
                continue
            out.setdefault(oid, m.group(0).strip())
    return out


def _stated_denial(clause: Clause, rules: Rules) -> bool:
    """A denied clause that states a fact about the reader's past or present ("jamais codé",
    "je ne programme pas", "I have never programmed"), not a wish ("je ne veux pas coder") and
    not a change over time ("je ne code plus", "not anymore": true before, so it contradicts no
    past claim)."""
    return clause.negative and not rules.wish.search(clause.text) and not rules.no_longer.search(clause.text)


def find_clash(read: list[tuple[Clause, Clause]], compiled: dict, rules: Rules, topics: list[re.Pattern],
               contradicted: str | None) -> tuple[str, ...]:
    """Two clauses of one answer that state facts which cannot both be true, (denial, claim):
    1. the option a contradiction is about: the clause whose denial rules it out and the one
       that claims it ("je débute" / "j'écris des noyaux Hopper");
    2. coding itself denied, with no object of its own ("je n'ai jamais programmé", "never wrote
       any code"), or knowing nothing at all ("rien du tout"), against any claim that supposes
       code ("je code en C++ depuis 10 ans");
    3. the same words denied as a fact and claimed ("jamais touché PyTorch" / "j'entraîne des
       modèles PyTorch");
    4. a wish to write no code against a wish to write some ("comprendre sans écrire la moindre
       ligne de code" / "écrire mon premier noyau cette semaine").
    A clause after "sauf"/"except" restricts the one before ("jamais codé sauf en Python"): no
    clash between them. On the dev dialogues (paths_dev3), cases 2 and 4 were the two
    confident recommendations that contradicted the reader."""
    if contradicted is not None:
        deny = next((c.text for _, c in read if any(
            p.search(c.text) and contradicted in out
            for p, out, _, _ in (rules.denials if c.negative else rules.novice))), "")
        if not deny and contradicted not in rules.ladder:     # a goal whose own words are denied
            deny = next((c.text for _, c in read if c.negative and any(
                p.search(c.text) for p, _, _ in compiled.get(contradicted, []))), "")
        claim = next((c.text for _, c in read if contradicted in claims_of(c, compiled, rules)), "")
        return (deny, claim) if deny and claim and deny != claim else ()
    levels = any(o in rules.ladder for o in compiled)
    for i, (raw, _) in enumerate(read):
        if not _stated_denial(raw, rules):
            continue
        rest = rules.no_code.sub(" ", raw.text)
        # "j'ai jamais programmé dessus": a pronoun object points back to what the answer named
        # (the GPU), so coding itself is not denied (paths_dev16: 1 backend developer of 45 asked).
        bare = levels and rules.no_code.search(raw.text) and not any(t.search(rest) for t in topics) and \
            not _POINTS_BACK.search(raw.text)
        # "rien du tout, je profile avec ncu": knowing nothing at all, said first (after a topic,
        # "le GPU ? rien du tout" is that topic's predicate).
        bare = bare or (levels and rules.knows_nothing.fullmatch(raw.text) and
                        not any(t.search(c.text) for c, _ in read[:i] for t in topics))
        words = {m.group(0).strip() for pats in compiled.values() for p, _, _ in pats
                 for m in [p.search(raw.text)] if m and not self_negating(p, raw.text)} if levels else set()
        for j, (_, c) in enumerate(read):
            if j == i or (c.exception and j == i + 1):
                continue
            if bare and claims_of(c, compiled, rules, coding=True):
                return raw.text, c.text
            if words & set(claims_of(c, compiled, rules).values()):
                return raw.text, c.text
    no_code = next((c.text for _, c in read if not c.negative and any(
        "nocode" in kind and p.search(c.text) for pats in compiled.values() for p, _, kind in pats)), "")
    if no_code:
        wish = next((c.text for _, c in read if c.text != no_code and not c.negative and
                     rules.writes.search(c.text) and not _OTHERS.search(c.text)), "")
        if wish:
            return no_code, wish
    return ()


# A pronoun object of the verb: "dessus", "là-dessus", "j'y", "on it", "with them".
_POINTS_BACK = re.compile(r"\b(?:dessus|la-dessus|la dessus|j'y|n'y|on (?:it|them)|with (?:it|them)|for (?:it|them))(?:\b|$)")
# A clause about someone else ("mon équipe, qui écrit des noyaux"): not the reader's wish.
_OTHERS = re.compile(r"\b(?:qui|who|ils|elles|they|he|she|il|elle|mon equipe|mes collegues|my team)\b")
