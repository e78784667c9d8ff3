"""A second, local reading of what an answer says of each path-F prerequisite.

``check_facts(cleaned, facts, rules)`` keeps a prerequisite fact of ``read_answer`` only when
the words right around the prerequisite's name say the same; otherwise the fact is dropped and
the prerequisite is asked. The clause reader follows negation and concession across a whole
sentence, and when it goes wrong it takes a prerequisite as known that the reader denies ("les
warps je connais bien, mais la TMA jamais vu" read TMA as known; "I know what a warp is but the
rest (mbarrier, TMA) is a blur" read mbarrier as known): on paths_dev9 those were 2 of its 4
confident recommendations that contradicted the reader. The local reading is deliberately
narrow, so the two readers fail differently:

- the answer is cut at punctuation, brackets and concessions ("mais", "but", "sauf", "par
  contre" …) and at "et"/"and"; a piece that only names things ("mbarrier", "warp et") joins
  the piece after it, so a list takes the predicate that follows it ("mbarrier, TMA : jamais vu");
- a prerequisite stays known only when its piece affirms (a knowing, doing or "ok" word) with
  no negation, doubt, hedge, partial knowledge, learning or question mark in it;
- a prerequisite stays unknown unless its piece affirms it plainly: "la tma pas encore et la
  synchro entre noyaux ok" keeps TMA unknown and asks about the synchronisation.

A question too many costs the reader one click; a prerequisite wrongly taken as known sends
them into part 8 without it.
"""
from __future__ import annotations

import re

from assistant.paths.clauses import Rules

_CUT = re.compile(r"[.;!?()\[\]{},:]|\s[-–—]\s|\b(?:mais|but|sauf|except|excepte|hormis|par contre|however|cependant|"
                  r"pourtant|alors que|whereas|while|donc|so|though|although|bien que|ni|nor|plus)\b|"
                  # "je sais ce qu'est un warp et qu'il faut pas …": what follows is still known
                  r"\b(?:et|and)\b(?! (?:qu'|que\b|pourquoi|why|that|how|comment|ce qu|what))")
_NEGATIVE = re.compile(r"(?:\b(?:jamais|pas|ne|non|no|not|never|nope|nan|nah|aucun\w*|rien|sans|without|none|nothing|"
                       r"ni|nor|blur|flou\w*|mystere|mystery|chinois|greek|nul|zero|dunno|jsp|chepa|chais|"
                       r"moins|less|hmm+|euh+|mouais|mwais)\b|\bn'|n't\b|\?)")
_POSITIVE = re.compile(r"\b(?:oui|yes|yep|yeah|yup|ouais|ok|okay|connais\w*|connu|know\w*|sais|maitris\w*|master\w*|"
                       r"utilis\w*|j'utilise|uses?|used|using|ecri\w*|j'ecris|wr[io]t\w*|written|compris|comprends|"
                       r"understand\w*|clair\w*|clear|fine|good|bien|sure|obviously|evidemment|familier\w*|familiar|"
                       r"vu|seen|deja|already|fait|fais|done|did|pratique|confortable|comfortable|l'aise|solide|solid|"
                       r"nickel|pige|capte|gere|handle\w*|implement\w*|cod\w*|programm\w*|manipul\w*|travaill\w*|"
                       r"bosse|work\w*|optimi[sz]\w*|tous les jours|daily|every day|aussi|too|also|as well|pareil|idem|"
                       r"tout|all|everything|both|les deux|acquis|evident|obvious|of course|basique|basic|classique)\b")
# Words that are no predicate: a piece made only of these and prerequisite names is a list item.
_FILLER = re.compile(r"\b(?:les?|la|l'|des|du|de|d'|un|une|the|a|an|et|and|ou|or|aussi|ca|cette|ces|ce|cet|my|mes|"
                     r"mon|ma|their|leurs?|honnetement|honestly|perso|personnellement|alors|bon|ben|the rest|le reste)\b")


def check_facts(cleaned: str, facts: dict[str, bool], rules: Rules) -> dict[str, bool]:
    """The facts of ``facts`` that the piece of ``cleaned`` naming each prerequisite confirms."""
    pieces = _pieces(cleaned, rules)
    kept: dict[str, bool] = {}
    for pid, known in facts.items():
        found = rules.prerequisites[pid].search(cleaned)
        if found is None:
            # Settled by a pronoun or "the rest" ("le reste non"): the clause reader's word stands
            # only when it says not known.
            if known is False:
                kept[pid] = False
            continue
        piece = next((text for start, end, text in pieces if start <= found.start() < end), "")
        if known:
            if _affirms(piece, rules):
                kept[pid] = True
        elif not _affirms(piece, rules):
            kept[pid] = False
    return kept


def _affirms(piece: str, rules: Rules) -> bool:
    # "il ne faut pas appeler …", "bad idea": what is known, not a denial of knowing it
    piece = rules.neutral.sub(" ", piece)
    doubt = (_NEGATIVE, rules.partial, rules.unsure, rules.not_yet, rules.hedges, rules.vague, rules.wish)
    return bool(_POSITIVE.search(piece)) and not any(p.search(piece) for p in doubt)


def _pieces(cleaned: str, rules: Rules) -> list[tuple[int, int, str]]:
    """``(start, end, text)`` of each piece; a piece with no predicate joins the next one."""
    raw, start = [], 0
    for cut in _CUT.finditer(cleaned):
        raw.append((start, cut.start()))
        start = cut.end()
    raw.append((start, len(cleaned)))
    pieces: list[tuple[int, int, str]] = []
    pending: int | None = None
    for s, e in raw:
        text = cleaned[s:e]
        if not text.strip():
            continue
        begin = s if pending is None else pending
        if _bare(text, rules):
            pending = begin
            continue
        pieces.append((begin, e, cleaned[begin:e]))
        pending = None
    if pending is not None:
        pieces.append((pending, len(cleaned), cleaned[pending:]))
    return pieces


def _bare(text: str, rules: Rules) -> bool:
    """Only prerequisite names and filler words: a list item that takes the next piece's predicate."""
    rest = text
    for pattern in rules.prerequisites.values():
        rest = pattern.sub(" ", rest)
    rest = _FILLER.sub(" ", rest)
    return not re.sub(r"[\W_]+", "", rest)
