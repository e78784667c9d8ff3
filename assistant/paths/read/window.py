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
  contre" …) and at "et"/"and" (not before "qu'…", "why …": "je sais ce qu'est un warp et qu'il
  ne faut pas …" is one piece); a piece with no predicate of its own ("mbarrier", "device sync")
  joins the next across a comma, a slash, a colon or "et", so a list takes the predicate that
  follows it ("mbarrier, TMA : jamais vu"), but not across a concession or a full stop;
- a prerequisite stays known only when its piece affirms (a knowing, doing or "ok" word, or
  "je sais pourquoi …") with no negation, doubt, hedge, partial knowledge, beginner's word,
  learning, wish or question mark in it;
- a prerequisite stays unknown unless its piece affirms it plainly and no piece after it, before
  the next name, takes it back ("je maîtrise TMA… enfin, à peu près"): "la tma pas encore et la
  synchro entre noyaux ok" keeps TMA unknown and asks about the synchronisation.

A question too many costs the reader one click; a prerequisite wrongly taken as known sends
them into part 8 without it.
"""
from __future__ import annotations

import re

from assistant.paths.read.clauses import DEFINED, IT_IS_KNOWN, WORDING, Rules

_CUT = re.compile(r"[.;!?()\[\]{},:]|\s[-–—]\s|\b(?:mais|but|sauf|except|excepte|hormis|par contre|however|cependant|"
                  r"pourtant|alors que|whereas|while|donc|so|though|although|bien que|ni|nor|plus)\b|"
                  # "je sais ce qu'est un warp et qu'il faut pas …": what follows is still known
                  # "mbarriers are my bread and butter" is one predicate
                  r"\b(?:et|and)\b(?! (?:qu'|que\b|pourquoi|why|that|how|comment|ce qu|what|butter\b))")
_NEGATIVE = re.compile(r"(?:\b(?:jamais|pas|ne|non|no|not|never|nope|nan|nah|aucun\w*|rien|sans|without|none|nothing|"
                       r"ni|nor|blur|flou\w*|mystere|mystery|chinois|greek|nul|zero|dunno|jsp|chepa|chais|"
                       r"moins|less|hmm+|euh+|mouais|mwais|novice|beginner|debutan\w*|debute|newbie|noob|new to)\b|\bn'|n't\b|\?)")
_POSITIVE = re.compile(r"\b(?:oui|yes|yep|yeah|yup|ouais|ok|okay|connais\w*|connu|know\w*|sais|maitris\w*|master\w*|"
                       r"utilis\w*|j'utilise|uses?|used|using|ecri\w*|j'ecris|wr[io]t\w*|written|compris|comprends|"
                       r"understand\w*|clair\w*|clear|fine|good|bien|sure|obviously|evidemment|familier\w*|familiar|"
                       r"vu|seen|deja|already|fait|fais|done|did|pratique|confortable|comfortable|l'aise|solide|solid|"
                       r"nickel|pige|capte|gere|gerer|handle\w*|manag(?:e|es|ed|ing)|implement\w*|cod\w*|programm\w*|manipul\w*|travaill\w*|"
                       r"bosse|work\w*|optimi[sz]\w*|tous les jours|daily|every day|aussi|too|also|as well|pareil|idem|"
                       r"tout|all|everything|both|les deux|acquis|evident|obvious|of course|basique|basic|classique|"
                       r"bread and butter|pain quotidien)\b")
# "je sais pourquoi il ne faut pas …", "I get why people don't like …": the negation is what is known.
_KNOWS_WHY = re.compile(r"(?:^|\b)(?:je|j'|i)\s+(?:\w+\s+){0,2}?(?:sais|comprends|vois|capte|know|get|understand|see)\s+"
                        r"(?:pourquoi|why|que|qu'|that|how|comment|ce qu)")


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
        at = next((i for i, (start, end, _) in enumerate(pieces) if start <= found.start() < end), None)
        piece = pieces[at][2] if at is not None else ""
        if known:
            # "noyaux hopper + TMA": kernels written with it, with no doubt in the piece
            # (``Rules.kernels_with``: the clause reader takes it so in level answers only)
            written = pid in rules.kernels_with and rules.kernels_with[pid].search(piece) and not _doubts(piece, rules)
            # "j'ai suivi une conf sur les warps donc je vois ce que c'est": the piece right after
            # knows what the thing it names is (paths_dev25: 1 warp of 45 asked)
            after = pieces[at + 1][2] if at is not None and at + 1 < len(pieces) else ""
            seen = bool(IT_IS_KNOWN.match(after.strip())) and not _doubts(after, rules) and \
                not any(p.search(after) for p in rules.prerequisites.values())
            if _affirms(piece, rules) or written or seen:
                kept[pid] = True
        elif not _affirms(piece, rules) or _taken_back(pieces[at + 1:], rules):
            kept[pid] = False
    return kept


def _affirms(piece: str, rules: Rules) -> bool:
    if DEFINED.search(piece):
        piece = WORDING.sub(" ", piece)     # the right definition, hedged in its wording only
    why = _KNOWS_WHY.search(piece)
    if why:
        return not _doubts(piece[:why.start()], rules)
    return bool(_POSITIVE.search(piece)) and not _doubts(piece, rules)


def _doubts(text: str, rules: Rules) -> bool:
    return any(p.search(text) for p in (_NEGATIVE, rules.partial, rules.unsure, rules.not_yet, rules.hedges,
                                        rules.vague, rules.wish))


def _taken_back(after: list[tuple[int, int, str]], rules: Rules) -> bool:
    """A piece naming no prerequisite right after doubts what was affirmed ("je maîtrise TMA…
    enfin, à peu près")."""
    for _, _, text in after:
        if any(p.search(text) for p in rules.prerequisites.values()):
            return False
        if _doubts(text, rules):
            return True
    return False


def _pieces(cleaned: str, rules: Rules) -> list[tuple[int, int, str]]:
    """``(start, end, text)`` of each piece; a piece with no predicate joins the next one."""
    raw, start, listed = [], 0, True
    for cut in _CUT.finditer(cleaned):
        raw.append((start, cut.start(), listed))
        start, listed = cut.end(), cut.group() in (",", "/", ":") or cut.group().strip() in ("et", "and")
    raw.append((start, len(cleaned), listed))
    pieces: list[tuple[int, int, str]] = []
    pending: int | None = None
    pending_end = 0
    listed = False                  # the pending list came after "," or "et"
    for s, e, joins in raw:
        text = cleaned[s:e]
        if not text.strip():
            continue
        if pending is not None and not joins:
            # a list stops at a concession or a full stop: "mbarrier, mais TMA ok" says nothing of mbarrier;
            # it ends with its last item, not with the concession ("…, les mbarriers et la TMA, sauf
            # que …": paths_dev26, 1 optimiser of 45 asked the two)
            _end_list(pieces, pending, pending_end, listed, cleaned, rules)
            pending = None
        begin = s if pending is None else pending
        if _bare(text, rules):
            listed = joins if pending is None else listed
            pending, pending_end = begin, e
            continue
        pieces.append((begin, e, cleaned[begin:e]))
        pending = None
    if pending is not None:
        _end_list(pieces, pending, len(cleaned), listed, cleaned, rules)
    return pieces


# What a list of names may hold besides the names ("les warps, les mbarrier et la TMA").
_LIST_WORDS = frozenset("et and les la le l' the des de du d' a an".split())
# How well, said after the list the knowing verb governs ("I know warps and mbarriers well"):
# paths_dev26, 1 optimiser of 45 asked mbarrier.
_LIST_WORDS |= frozenset("well bien too aussi both".split())


def _end_list(pieces: list, start: int, end: int, listed: bool, cleaned: str, rules: Rules) -> None:
    """A list with no predicate after it: made only of prerequisite names and "et", right after
    a piece ("I know warps, mbarrier and TMA"), it ends that piece's list and takes its predicate
    (paths_dev25: 1 optimiser of 45 asked the last two names of his list)."""
    text = cleaned[start:end]
    rest = text
    for pattern in rules.prerequisites.values():
        rest = pattern.sub(" ", rest)
    names = any(p.search(text) for p in rules.prerequisites.values())
    # "…, avec les mbarriers qui vont avec": a complement with no verb of its own goes on the
    # piece before too (paths_dev25: 1 optimiser of 45 asked the mbarriers he uses with TMA).
    complement = bool(re.match(r"\s*(?:avec|with)\b", text))
    if listed and pieces and names and (complement or all(w in _LIST_WORDS for w in re.findall(r"[\w']+", rest))):
        begin = pieces[-1][0]
        pieces[-1] = (begin, end, cleaned[begin:end])
    else:
        pieces.append((start, end, text))


def _bare(text: str, rules: Rules) -> bool:
    """No predicate, neither affirming nor doubting ("warps", "device sync"): a list item that
    takes the next piece's predicate."""
    return not _POSITIVE.search(text) and not _doubts(text, rules)
