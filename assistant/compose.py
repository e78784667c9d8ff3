"""The default generator's core: an answer composed of the guide's own sentences.

``compose(question, hits)`` picks, among the sentences of the best retrieved sections,
the one that answers the question best (the lead) and up to three supporting points,
each quoted verbatim and numbered with the section it comes from; it ends with
« Pour approfondir » links. Nothing is rephrased, so nothing can be invented: the
answer is only as good as the sentences the guide states plainly.

Sentences are scored by the share of the question's terms they contain, each term
weighted by its rarity among the candidate sentences, plus a little for a section whose
heading names the question's terms and for the first sentence of a section (where the
guide defines what it talks about), times the rank of the section in retrieval.
Limits: lexical matching only, so a question worded far from the guide gets the opening
sentences of the best sections rather than the best sentence.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Sequence

from ingest.analyzer import normalise_space, terms
from ingest.sentences import sentences
from assistant.answer_records import Citation, Quote

# Measured on the 145 in-scope eval questions, 69 chapters (gold chapter cited):
# reading 4 sections gives 0.966, 3 give 0.959, 5 no more (0.966) for longer answers;
# 3 points after the lead give 0.966, 2 give 0.959, 4 no more; a point must score at
# least 40 % of the lead: 60 % drops to 0.938, 25 % adds sentences (3.96 quotes an answer vs 3.74)
# without gain.
_MAX_HITS = 4
_MAX_POINTS = 3
_MAX_PER_SECTION = 2   # so that one long section does not fill the whole answer
_MIN_SHARE = 0.4
_RANK_WEIGHT = (1.0, 0.85, 0.75, 0.7)
_HEADING_BONUS = 0.2
_FIRST_SENTENCE_BONUS = 0.05
_LONG_WORDS, _LONG_PENALTY = 50, 0.8
_NEAR_DUPLICATE = 0.6  # Jaccard overlap of terms above which a point repeats another
_MAX_FURTHER = 5
# « qu'est-ce qu'un megakernel ? » wants the sentence that defines it, not its history
_DEFINITION = re.compile(r"^(?:qu'est[- ]ce qu(?:e |')|c'est quoi |que (?:veut dire|signifie|désigne) |"
                         r"que sont |qu'appelle-t-on |what (?:is|are) (?:an? |the )?|define )(.+?)\s*\??$")
_COPULA = re.compile(r"\b(est|sont|désigne|désignent|signifie|consiste|is|are)\b")
_DEFINITION_HEAD_WORDS = 6
_DEFINITION_BONUS = 0.5
# « Ce chapitre montre ce que coûte la divergence … » announces an answer, it is not one;
# a penalty of 0.6 also hid the only on-topic sentence of some chapters (gold chapter
# cited 0.959 vs 0.966 with 0.8 on the eval questions)
_META = re.compile(r"^(Ce|Cette|Le|La) (chapitre|section|partie|page)\b")
_META_PENALTY = 0.8


@dataclass(frozen=True)
class Composition:
    quotes: tuple[Quote, ...]
    citations: tuple[Citation, ...]
    further: tuple[Citation, ...]
    pieces: tuple[str, ...]        # Markdown, in order: lead, points, « Pour approfondir »

    @property
    def text(self) -> str:
        return "".join(self.pieces)


@dataclass
class _Candidate:
    rank: int
    position: int
    text: str
    stems: frozenset
    score: float = 0.0


def _candidates(hits: Sequence) -> list[_Candidate]:
    seen: set[str] = set()
    out = []
    for rank, hit in enumerate(hits):
        for position, s in enumerate(sentences(hit.text)):
            key = normalise_space(s)
            if key in seen:          # overlapping chunks of one section
                continue
            seen.add(key)
            out.append(_Candidate(rank, position, s, frozenset(terms(s))))
    return out


def _definition_subject(question: str) -> set[str]:
    """Terms of X in « qu'est-ce que X ? », « que veut dire X ? », « what is X? »; else empty."""
    m = _DEFINITION.match(question.strip().lower().replace("’", "'"))
    return set(terms(m.group(1))) if m else set()


def _defines(c: _Candidate, subject: set[str]) -> bool:
    """« Un megakernel est un seul noyau … », « **Warp** : un warp est … »: before the
    first copula, the subject's terms and nothing else (« le mot megakernel est » is no
    definition, « la mémoire partagée distribuée est » defines something else)."""
    m = _COPULA.search(c.text)
    if m is None or len(c.text[:m.start()].split()) > _DEFINITION_HEAD_WORDS:
        return False
    return set(terms(c.text[:m.start()])) == subject


def _score(cands: list[_Candidate], hits: Sequence, question_terms: set[str], subject: set[str]) -> None:
    n = len(cands)
    df = {t: sum(t in c.stems for c in cands) for t in question_terms}
    weight = {t: math.log(1 + n / (1 + d)) for t, d in df.items() if d > 0}
    total = sum(weight.values())
    heading = []
    for hit in hits:
        h = set(terms(f"{hit.title} {hit.section}")) & set(weight)
        heading.append(sum(weight[t] for t in h) / total if total else 0.0)
    for c in cands:
        if total:
            base = sum(w for t, w in weight.items() if t in c.stems) / total
            base += _HEADING_BONUS * heading[c.rank] if base > 0 else 0.0
        else:  # no usable term: trust retrieval order and the section's opening
            base = 1.0 / (1 + c.position)
        if c.position == 0:
            base += _FIRST_SENTENCE_BONUS
        if subject and _defines(c, subject):
            base += _DEFINITION_BONUS
        if _META.match(c.text):
            base *= _META_PENALTY
        if len(c.text.split()) > _LONG_WORDS:
            base *= _LONG_PENALTY
        c.score = base * _RANK_WEIGHT[min(c.rank, len(_RANK_WEIGHT) - 1)]


def _jaccard(a: frozenset, b: frozenset) -> float:
    return len(a & b) / max(len(a | b), 1)


def _select(cands: list[_Candidate]) -> list[_Candidate]:
    ranked = sorted(cands, key=lambda c: (-c.score, c.rank, c.position))
    lead = ranked[0]
    chosen = [lead]
    per_section = {lead.rank: 1}
    for c in ranked[1:]:
        if len(chosen) > _MAX_POINTS or c.score < _MIN_SHARE * lead.score or c.score <= 0:
            break
        if per_section.get(c.rank, 0) >= _MAX_PER_SECTION:
            continue
        if any(_jaccard(c.stems, o.stems) > _NEAR_DUPLICATE for o in chosen):
            continue
        chosen.append(c)
        per_section[c.rank] = per_section.get(c.rank, 0) + 1
    points = sorted(chosen[1:], key=lambda c: (c.rank, c.position))
    return [lead] + points


def compose(question: str, hits: Sequence) -> Composition:
    """Compose a cited answer to ``question`` from ``hits`` (best first); empty if no sentence."""
    hits = list(hits)[:_MAX_HITS]
    cands = _candidates(hits)
    if not cands:
        return Composition((), (), (), ())
    _score(cands, hits, set(terms(question)), _definition_subject(question))
    chosen = _select(cands)

    number: dict[int, int] = {}          # hit rank -> citation number
    citations: list[Citation] = []
    by_section: dict[tuple[str, str], int] = {}
    quotes, pieces = [], []
    for i, c in enumerate(chosen):
        hit = hits[c.rank]
        key = (hit.chapter_id, hit.anchor)
        if key not in by_section:
            by_section[key] = len(citations) + 1
            citations.append(Citation.from_hit(hit, by_section[key]))
        n = number.setdefault(c.rank, by_section[key])
        quotes.append(Quote(c.text, n))
        pieces.append(f"{c.text} [{n}]\n\n" if i == 0 else f"- {c.text} [{n}]\n")

    further = list(citations)
    for hit in hits:
        if len(further) >= _MAX_FURTHER:
            break
        if (hit.chapter_id, hit.anchor) not in by_section:
            by_section[(hit.chapter_id, hit.anchor)] = 0
            further.append(Citation.from_hit(hit, 0))
    lines = ["\nPour approfondir :\n"]
    for c in further:
        mark = f"[{c.n}] " if c.n else ""
        lines.append(f"- {mark}[{c.label}]({c.link})\n")
    pieces.append("".join(lines))
    return Composition(tuple(quotes), tuple(citations), tuple(further), tuple(pieces))
