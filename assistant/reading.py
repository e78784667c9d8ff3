"""Read a free answer as a person would: clauses, what is affirmed and what is denied.

``read_answer(text, options, rules)`` returns a ``Reading``: the option the answer points
to (with a confidence, as ``choice.Match``), the options it contradicts itself on, and the
path-F prerequisites it says the reader knows (True) or does not know (False).

How an answer is read (rules and vocabulary live in ``corpus/parcours.yaml``, ``reading``):
1. normalised (lowercase, accents folded), misspelt words mapped to the vocabulary
   (``assistant.spelling``), filler phrases that look negative but are not ("rien de plus",
   "il ne faut pas appeler …", "pas de souci", "c'est nul") blanked;
2. cut into clauses at punctuation, at concessions ("mais", "sauf", "par contre", "but",
   "except" …), at reasons ("vu que", "because") and at "et je …", "and never …";
3. each clause is affirmed or denied ("jamais", "pas encore", "n'ai … pas", "never",
   "not yet", "idk" …): the negation scopes over its own clause only. A topic with no predicate
   of its own ("mbarrier, TMA : jamais vu", "le coup de cudaDeviceSynchronize par contre je vois
   pas trop") takes the polarity of the bare predicate right after it; what follows an
   exception is denied after an affirmed clause ("tout sauf TMA") and affirmed after a denied
   one ("jamais écrit de noyau, sauf mes noyaux Hopper"); a pronoun ("j'en ai jamais écrit")
   stands for the topic of the clause before;
4. affirmed clauses add their options' pattern weights, at half weight in a vague clause ("un
   peu de CUDA", "des trucs", "de nom") and, for prerequisite words, at half in a clause that
   says what the reader knows and not at all in one that says they only heard of it ("entendu
   parler de TMA", "TMA vaguement"); denied clauses add nothing for those patterns but apply
   the denial rules ("jamais touché un GPU" rules out the kernel levels and speaks for
   "programmer"); a denial in a clause about experience, not a wish ("jamais écrit de noyau",
   not "sans coder"), is a stated fact: ``Reading.excludes``;
5. an option affirmed (1.5 or more of claim) and ruled out by another clause is a
   contradiction; two clauses whose facts cannot both be true are a clash, quoted in the
   reader's words (``Reading.clash``, see ``_clash``): coding denied outright against a claim
   that supposes code, the same words denied and claimed, no code wished against code wished; levels form a ladder, so background evidence of a lower level ("je code en
   Python") moves up to the highest level the answer otherwise supports;
6. hedged, never settled: a hesitation ("je sais plus trop") with a runner-up, two options at
   once or a self-correction ("les deux", "enfin non"), nothing but a job title or a field
   ("développeur", "data scientist", "l'IA"), a vague clause that speaks for another option
   than the best ("dev backend, et j'ai vaguement bidouillé des trucs sur GPU").
Prerequisites: each clause that names one says known (affirmed) or not (denied, partial,
heard of); "tout sauf TMA" settles TMA only.
Limits: no syntax tree; nested clauses beyond one concession per sentence are read clause by
clause; a pronoun reaches back one clause only.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from assistant.choice import Match, normalise
from assistant.quotes import source_span
from assistant.spelling import correct

_SPLIT = re.compile(
    r"([;!?()\n/]|[,:](?!\d)|\.(?=\s|$)|\s[-–—]\s|\b(?:mais|sauf|hormis|par contre|en revanche|cependant|pourtant|"
    r"toutefois|neanmoins|alors que|tandis que|but|except|however|though|although|whereas|apart from|"
    r"vu que|puisque|parce que|since|because)\b|"
    r"\bet (?=(?:je|j'|on|nous|jamais|pas|rien|aucune?|par contre)\b)|\band (?=(?:i|i'\w+|never|not|no)\b)|"
    # Two wishes coordinated, each with its own infinitive ("comprendre sans coder et écrire mon
    # premier noyau", "understand it and then write my own kernels").
    r"\bet (?:puis |ensuite |aussi |surtout |enfin )?(?=(?:ecrire|coder|programmer|developper|creer|apprendre)\b)|"
    r"\band (?:then |also |mainly )?(?=(?:write|code|build|program|create|learn)\b)|"
    # "sans"/"without" opens a phrase of its own: its negation scopes over what follows it, not
    # over the words before ("rendre PyTorch plus rapide sans réécrire mon code" wants speed);
    # but "sans comprendre" says how the words before are known ("je les copie sans comprendre").
    r"(?<=\w )(?=(?:sans|without)\b)(?!sans (?:vraiment |trop |bien |rien )?(?:savoir|comprendre|connaitre|maitriser)\b)"
    r"(?!without (?:really |fully )?(?:knowing|understanding)\b))")
_EXCEPT = re.compile(r"^(?:sauf|hormis|except|apart from)$")
_ANY = re.compile(r"(?:anything|everything|all|whatever|any of them|n'importe quoi|tout)")
# Separators a bare list item's predicate may reach across ("mbarrier, TMA : jamais vu");
# a concession or a full stop ends the list ("wrote some kernels, but TMA? never heard of it").
_LIST_SEPARATOR = re.compile(r"^(?:[,:/()]|et |and |\?)$")
# The words of a bare predicate ("jamais vu", "je connais pas", "never heard of it").
_BARE = frozenset("""jamais pas non nan no never nope rien aucun aucune idee encore yet not vraiment really trop du tout
    at all clue vu seen used utilise ecrit touche fait j'ai je ai i i've have n'ai ca c'est moi me pour for inconnu
    inconnus inconnue unknown nada zero of it them la les le y en j'en n'en ni heard entendu parler pareil same
    idem non plus either neither nor""".split())
_NEGATION = re.compile(r"\b(?:jamais|pas|aucune?|rien|ni|non|nan|nul|zero|never|idk|dunno|not|no|nothing|none|nope|nada|"
                       r"neither|nor|que dalle|inconnue?s?|unknown|unfamiliar|new to me|nouveaux? pour moi|"
                       r"nouvelles? pour moi|du chinois|chinese to me|no clue|aucune idee|no idea|j'ignore|hardly|"
                       r"yet to|pas encore|not yet|mystere|mystery|"
                       r"sans (?:vraiment |trop |bien )?(?:savoir|comprendre|connaitre)|"
                       r"without (?:really )?(?:knowing|understanding)|"
                       r"sans (?:aucune? |de |le |la |les |d'|du )?(?:gpus?|cuda|noyaux?|kernels?|experience|code|coder|"
                       r"programmer|ecrire|taper|toucher)|"
                       r"without (?:any )?(?:gpus?|cuda|kernels?|experience|cod\w+|writing|programming))\b|"
                       r"n't\b|\bne \w+ plus\b|\bn'\w+ plus\b")
# A clause that says what the reader knows ("je connais les mbarrier") states a fact; it is
# not a claim to write such kernels, so it cannot contradict a level.
_KNOWING = re.compile(r"\b(?:connai\w*|sai[st]|savoir|know\w*|understand\w*|compri\w*|maitris\w*|familiar|"
                      r"a l'aise|comfortable|"
                      r"entendu|heard|vu|seen|lu|read about|ok|oui|yes|yep|je vois|i see|vois|idee|idea|clue)\b")
_AFFIRM = re.compile(r"\b(?:oui|yes|yep|ouais|bien sur|of course|sure|je (?:sais|connais|maitrise|comprends)|"
                     r"i (?:know|understand|get)|deja|already|connu|known|vu|seen)\b")


# Own evidence a higher level needs before a lower level's background moves up to it: one
# passing word ("mémoire partagée", 1) must not lift a CUDA course to "optimiser".
_LADDER_MIN = 2.0
_FIRST_PERSON = re.compile(r"(?:^|\b)(?:je|j'|i|i'm|i've|we|nous|on)(?:\b|(?<=')|$)")
_SUBJECT = re.compile(r"(?:^|\b)(?:je|j'|tu|il|elle|on|nous|vous|ils|elles|i|i'm|i've|you|he|she|we|they|c'est)(?:\b|(?<=')|$)")
_CONCESSION = re.compile(r"^(?:mais|par contre|en revanche|but|however)$")
_PRONOUN = re.compile(r"(?:\bj'en\b|\bn'en\b|\ben (?:ai|avons|a)\b|\b(?:any|one)\b)")
_FILLER = frozenset("les la le l' des du de d' et alors the a an and or ou puis aussi also".split())
# Evidence of a level that another clause rules out, from which the answer contradicts itself:
# one plain mention ("I know CUDA really well", 1.5) against "zero programming" is enough.
_CLAIM_MIN = 1.5
# Words in a bare list item ("les mbarrier et TMA") that takes its verb from a neighbour.
_LIST_ITEM = 4


@dataclass(frozen=True)
class Clause:
    text: str
    negative: bool
    knowing: bool = False       # says what the reader knows, not what they do
    weak: bool = False          # takes a vague or partial predicate ("CUDA, je connais de nom")
    exception: bool = False     # follows "sauf", "except": it restricts the clause before


@dataclass(frozen=True)
class Reading:
    match: Match
    contradiction: tuple[str, ...] = ()      # options the answer both affirms and rules out
    facts: dict[str, bool] = field(default_factory=dict)   # prerequisite id -> known
    understood: bool = False                  # some word of the answer was recognised
    hedged: bool = False                      # "je ne sais plus trop", "not sure", "les deux", "un peu"
    excludes: tuple[str, ...] = ()            # options the answer's stated facts rule out ("jamais écrit de noyau")
    # Two facts of the answer that do not go together, in the reader's own words: the clause
    # that rules out or denies, and the clause that claims (see ``_clash``).
    clash: tuple[str, ...] = ()
    # What the reader says they do or did, option by option, in their words: a first-person
    # clause that is not a wish ("les noyaux Triton que j'ai écrits", not "je veux écrire").
    claims: tuple[tuple[str, str], ...] = ()
    denials: tuple[tuple[str, str], ...] = ()   # each excluded option with the words that deny it


class Rules:
    """The ``reading`` block of parcours.yaml, compiled once."""

    def __init__(self, data: dict, options: list[dict] = ()) -> None:
        # The spelling vocabulary: the listed words plus every plain word of five letters or
        # more that the options' patterns spell out ("traitement", "simulation", …).
        spelled = {w for o in options for p in o.get("patterns", []) + o.get("when_denied", [])
                   for w in re.findall(r"(?<![\\\w])[a-z]{5,}(?![\w])", p[0])}
        self.vocabulary = frozenset(data.get("vocabulary", [])) | frozenset(spelled)
        self.known_words = frozenset(data.get("known_words", []))
        self.aliases = dict(data.get("aliases", {}))
        self.neutral = re.compile(data["neutral"])
        self.hedges = re.compile(data["hedges"])
        self.undecided = re.compile(data["undecided"])
        self.partial = re.compile(data["partial"])
        self.vague = re.compile(data["vague"])
        self.experience = re.compile(data["experience"])
        self.wish = re.compile(data["wish"])
        self.ladder = list(data.get("ladder", []))
        self.no_code = re.compile(data["no_code"])
        self.narrowed = re.compile(data["narrowed"])
        self.interest = re.compile(data["interest"])
        self.knows_nothing = re.compile(data["knows_nothing"])
        self.no_longer = re.compile(data["no_longer"])
        self.writes = re.compile(data["writes"])
        self.denials = [(re.compile(d["pattern"]), list(d.get("rules_out", [])), dict(d.get("supports", {})),
                         bool(d.get("general")))
                        for d in data.get("denials", [])]
        self.novice = [(re.compile(d["pattern"]), list(d.get("rules_out", [])), dict(d.get("supports", {})), False)
                       for d in data.get("novice", [])]
        self.prerequisites = {k: re.compile(v) for k, v in data.get("prerequisites", {}).items()}
        self.level_needs = {k: list(v) for k, v in data.get("level_needs", {}).items()}
        self.level_denies = {k: list(v) for k, v in data.get("level_denies", {}).items()}


def clean(text: str, rules: Rules) -> str:
    """Normalised, spelling-corrected text with the neutral phrases blanked."""
    norm = re.sub(r"[\w']+", lambda m: rules.aliases.get(m.group(0), m.group(0)), normalise(text))
    norm = correct(norm, rules.vocabulary, rules.known_words)
    return re.sub(r"\s+", " ", rules.neutral.sub(" ", norm)).strip()


def clauses(text: str, rules: Rules, topics: list[re.Pattern]) -> list[Clause]:
    """The clauses of a cleaned answer with their polarity (see the module docstring)."""
    pieces = _SPLIT.split(text)
    parts: list[tuple[str, str]] = []           # (clause, separator that follows it)
    for i in range(0, len(pieces), 2):
        sep = pieces[i + 1].strip() if i + 1 < len(pieces) else "."
        if pieces[i].strip():
            parts.append((pieces[i].strip(), sep))
        elif parts and not _LIST_SEPARATOR.match(sep):
            parts[-1] = (parts[-1][0], sep)
    out: list[Clause] = []
    carry: tuple[bool, bool, bool] | None = None      # (negative, knowing, weak) of a bare predicate
    fresh = False                               # that predicate is the very next clause
    before = ["."] + [sep for _, sep in parts[:-1]]
    for part, sep in reversed(parts):
        # "le coup de cudaDeviceSynchronize par contre je vois pas trop": a topic with no subject
        # of its own takes the bare predicate that follows it, across a concession too.
        subjectless = not _SUBJECT.search(part) and fresh
        if not _LIST_SEPARATOR.match(sep) and not (subjectless and _CONCESSION.match(sep)):
            carry = None
        fresh = False
        neg = bool(_NEGATION.search(part))
        knowing = bool(_KNOWING.search(part))
        if not any(t.search(part) for t in topics):
            # Only a bare predicate ("jamais vu", "je connais pas", "oui") lends its polarity to
            # the list before it; "pas l'entraînement" speaks of something else.
            bare = knowing or _AFFIRM.search(part) or (neg and all(w in _BARE for w in re.findall(r"[\w']+", part)))
            carry = (neg, knowing, bool(rules.vague.search(part) or rules.partial.search(part))) if bare else None
            fresh = carry is not None
        elif carry is not None and not neg and (_content_words(part) <= _LIST_ITEM or subjectless) and \
                not _AFFIRM.search(part) and not knowing:
            neg, knowing, weak = carry[0], carry[1] or knowing, carry[2]    # a bare list item before its predicate
            out.append(Clause(part, neg, knowing, weak))
            continue
        else:
            carry = None
        out.append(Clause(part, neg, knowing))
    out.reverse()
    knowing = False
    for i, (c, prev) in enumerate(zip(out, before)):
        # "je connais les warps, les mbarrier et TMA": the list after a knowing verb.
        # A clause with a subject of its own ("…, j'écris des kernels warp-specialized") is no item.
        knowing = c.knowing or (knowing and _content_words(c.text) <= _LIST_ITEM and not _SUBJECT.search(c.text))
        negative = c.negative
        # "anything but LLM inference": after "anything", "but" is an exception, not a concession.
        exception = _EXCEPT.match(prev) or (prev == "but" and _ANY.fullmatch(out[i - 1].text))
        if i and exception and not c.text.startswith(("que ", "qu'", "that ")) and \
                not _NEGATION.search(c.text):
            # "tout sauf TMA" denies TMA; "jamais écrit de noyau, sauf mes noyaux Hopper" affirms them.
            negative = not out[i - 1].negative
            out[i] = Clause(c.text, negative, knowing, c.weak, exception=True)
            continue
        out[i] = Clause(c.text, negative, knowing, c.weak)
    return out


def _content_words(text: str) -> int:
    """Words of a clause but articles and linking words ("alors les mbarrier et la TMA": 2)."""
    return sum(1 for w in re.findall(r"[\w']+", text) if w not in _FILLER)


def _self_negating(pattern: re.Pattern, clause: str) -> bool:
    """A pattern that matches the negation itself ("sans code", "je ne code pas")."""
    if not _NEGATION.search(pattern.pattern):
        return False
    m = pattern.search(clause)
    if not m:
        return False
    rest = clause[:m.start()] + " " + clause[m.end():]
    return bool(_NEGATION.search(m.group(0))) and not _NEGATION.search(rest)


def _consume_negation(clause: Clause, patterns: list[re.Pattern]) -> Clause:
    """A clause whose only negation belongs to a self-negating pattern ("comprendre sans
    coder") affirms: the negation is the content, not the polarity."""
    if not clause.negative or not _NEGATION.search(clause.text):
        return clause       # affirmed, or denied by the predicate that follows it
    rest = clause.text
    for pattern in patterns:
        if _NEGATION.search(pattern.pattern):
            rest = pattern.sub(lambda m: " " if _NEGATION.search(m.group(0)) else m.group(0), rest)
    return clause if _NEGATION.search(rest) else Clause(clause.text, False, clause.knowing,
                                                        exception=clause.exception)


def read_answer(text: str, options: list[dict], rules: Rules) -> Reading:
    """Score ``text`` against ``options`` (each with ``patterns`` and ``when_denied``)."""
    cleaned = clean(text, rules)
    compiled = {o["id"]: [(re.compile(p[0]), float(p[1]), p[2] if len(p) > 2 else "") for p in o.get("patterns", [])]
                for o in options}
    denied_w = {o["id"]: [(re.compile(p), float(w)) for p, w in o.get("when_denied", [])] for o in options}
    ids = [o["id"] for o in options]
    topics = [p for pats in compiled.values() for p, _, _ in pats] + [p for d in denied_w.values() for p, _ in d]
    topics += [d[0] for d in rules.denials + rules.novice] + list(rules.prerequisites.values())
    denied = dict.fromkeys(ids, 0.0)      # an option's own words in a denied clause
    shared: list[tuple[list[str], float]] = []
    hits: dict[tuple[str, int], tuple[float, bool]] = {}
    own = dict.fromkeys(ids, 0.0)
    up = dict.fromkeys(ids, 0.0)
    claimed = dict.fromkeys(ids, 0.0)     # evidence that can contradict a denial
    ruled_out: set[str] = set()
    excludes: set[str] = set()
    vague_points: list[set[str]] = []
    facts: dict[str, bool] = {}
    understood = False
    previous = ""
    read: list[tuple[Clause, Clause]] = []     # (as cut, after a self-negating pattern is consumed)
    denied_by: dict[str, str] = {}              # option -> the clause that denies it
    for raw in clauses(cleaned, rules, topics):
        clause = _consume_negation(raw, [p for pats in compiled.values() for p, _, _ in pats])
        read.append((raw, clause))
        # "mon premier noyau, vu que j'en ai jamais écrit": the pronoun stands for the topic of
        # the clause before; the denial rules read them together.
        subject = clause.text
        if clause.negative and _PRONOUN.search(clause.text) and not any(t.search(clause.text) for t in topics):
            subject = previous + " " + clause.text
        previous = clause.text
        partial = bool(rules.partial.search(clause.text)) or clause.weak
        # "débutant en Hopper", "novice with TMA": the domain named is what the reader lacks;
        # its words are no evidence of its level, and a prerequisite named is not known.
        beginner = _beginner_in(clause.text, compiled, rules) if not clause.negative and \
            any(p.search(clause.text) for p, _, _, _ in rules.novice) else None
        partial = partial or beginner is not None
        names_prerequisite = any(p.search(clause.text) for p in rules.prerequisites.values())
        # "un peu de CUDA", "des trucs sur les GPU": the clause's evidence counts half.
        vague = bool(rules.vague.search(clause.text)) or clause.weak
        for oid, pats in compiled.items():
            for n, (pattern, weight, kind) in enumerate(pats):
                if beginner and oid in beginner and pattern.search(clause.text):
                    understood = True
                    continue
                if pattern.search(clause.text) and (not clause.negative or _self_negating(pattern, clause.text)):
                    understood = True
                    # "je connais TMA" is weaker than "j'écris des noyaux avec TMA", and a
                    # pattern counts once per answer, at its strongest.
                    # "je sais pourquoi cudaDeviceSynchronize entre deux noyaux est mauvais" states a
                    # prerequisite, it claims no level: it cannot make a contradiction.
                    full = not ("fact" in kind and clause.knowing) and not vague and not partial
                    is_claim = full and not (names_prerequisite and clause.knowing)
                    # Heard of, partly known ("entendu parler de TMA", "TMA vaguement"): no
                    # evidence of writing such kernels at all.
                    value = 0.0 if partial and "fact" in kind else weight if full else weight / 2
                    best = hits.get((oid, n), (0.0, False))
                    hits[(oid, n)] = max(best, (value, is_claim))
        if vague and not clause.negative and not names_prerequisite:
            # What a vague clause speaks of ("j'ai vaguement bidouillé des trucs sur GPU"): its
            # options, and the levels its topic words would stand for.
            points = {oid for oid, pats in compiled.items() for p, _, _ in pats if p.search(clause.text)}
            points |= {o for pattern, out, _, _ in rules.denials if pattern.search(clause.text) for o in out if o in own}
            vague_points.append(points)
        rule_sets = rules.novice if not clause.negative else rules.denials
        for pattern, out, supports, general in rule_sets:
            # "no clue why cudaDeviceSynchronize between kernels is bad" denies the prerequisite,
            # not kernel writing: general denials skip clauses that name a prerequisite, and
            # those whose kernels are narrowed ("pas de noyaux Hopper" denies Hopper only).
            if general and (names_prerequisite or (clause.negative and rules.narrowed.search(clause.text))):
                continue
            if pattern.search(subject):
                understood = True
                if beginner is not None:
                    ruled_out.update(beginner[1:])      # "débutant en CUDA": only what lies beyond CUDA
                    continue
                ruled_out.update(o for o in out if o in own)
                if clause.negative and rules.experience.search(clause.text) and not rules.wish.search(clause.text):
                    # A fact about the reader ("jamais écrit de noyau"), not a wish ("sans coder"):
                    # whatever else is picked, it must not contradict it.
                    excludes.update(o for o in out if o in own)
                    for o in out:
                        denied_by.setdefault(o, clause.text)
                for target, w in supports.items():
                    # "a|b": whichever of a and b the answer otherwise speaks for ("PyTorch,
                    # jamais touché un GPU" is the PyTorch level, "Python, jamais…" the first).
                    shared.append(([t for t in target.split("|") if t in own], float(w)))
        if clause.negative:
            for oid, pats in compiled.items():
                for pattern, weight, kind in pats:
                    if "fact" not in kind and pattern.search(clause.text) and not _self_negating(pattern, clause.text):
                        denied[oid] += weight
                        denied_by.setdefault(oid, clause.text)
            for oid, pats in denied_w.items():
                for pattern, weight in pats:
                    if pattern.search(clause.text):
                        own[oid] += weight
                        understood = True
        for pid, pattern in rules.prerequisites.items():
            if pattern.search(clause.text):
                understood = True
                facts[pid] = facts.get(pid, True) and not clause.negative and not partial
    for (oid, n), (value, is_claim) in hits.items():
        (up if "up" in compiled[oid][n][2] else own)[oid] += value
        claimed[oid] += value if is_claim else 0.0
    supported: set[str] = set()
    for targets, w in shared:
        if targets:
            target = max(targets, key=lambda t: (own[t] + up[t], -targets.index(t)))
            own[target] += w
            supported.add(target)
    if not any(o in rules.ladder for o in ids):
        # Goals: "accélérer PyTorch, mais je ne veux plus jamais toucher à PyTorch".
        ruled_out.update(o for o in ids if denied[o] >= 1.5)
    contradiction = tuple(o for o in ids if o in ruled_out and claimed[o] >= _CLAIM_MIN)
    allowed = [o for o in ids if o not in ruled_out]
    scores = {o: own[o] + up[o] for o in allowed}
    ladder = [o for o in rules.ladder if o in scores]
    for i, low in enumerate(ladder):
        higher = [h for h in ladder[i + 1:] if claimed[h] >= _LADDER_MIN]
        if higher and up[low]:
            scores[higher[-1]] += up[low]
            scores[low] -= up[low]
    if contradiction:
        best_allowed = max(allowed, key=lambda o: scores[o], default=None)
        pair = [best_allowed] if best_allowed and scores[best_allowed] > 0 else []
        contradiction = tuple(pair + [max(contradiction, key=lambda o: claimed[o])])
    ranked = tuple(sorted(((o, scores.get(o, 0.0)) for o in ids), key=lambda s: -s[1]))
    top_hits = [key for key in hits if ranked and key[0] == ranked[0][0]]
    top = ranked[0][1] if ranked else 0.0
    runner = ranked[1][1] if len(ranked) > 1 else 0.0
    # Hesitating between options ("un peu de CUDA, un peu d'optimisation, je sais plus trop").
    hedged = bool(rules.hedges.search(cleaned)) and runner > 0 or bool(rules.undecided.search(cleaned))
    # Nothing but a job title or a field ("développeur", "data scientist", "l'IA"): not clear enough.
    title_only = bool(top_hits) and ranked[0][0] not in supported and \
        all("title" in compiled[o][n][2] for o, n in top_hits)
    # A vague clause that speaks for another option than the best ("dev backend, et j'ai
    # vaguement bidouillé des trucs sur GPU"): the answer is not clear.
    elsewhere = bool(ranked) and any(p and ranked[0][0] not in p for p in vague_points)
    hedged = hedged or title_only or elsewhere
    if top <= 0:
        match = Match(None, 0.0, ranked)
    else:
        confidence = top / (top + runner)
        match = Match(ranked[0][0], min(confidence, 0.6) if hedged or contradiction else confidence, ranked)
    clash = _clash(read, compiled, rules, topics, contradiction[-1] if contradiction else None)
    if not any(o in rules.ladder for o in ids):
        excludes |= ruled_out       # a goal whose own words the answer denies
    claims: dict[str, str] = {}
    for _, c in read:
        if _FIRST_PERSON.search(c.text) and not rules.wish.search(c.text):
            for oid in _claims(c, compiled, rules):
                claims.setdefault(oid, source_span(c.text, text, _SPLIT))
    return Reading(match, contradiction, facts, understood or top > 0, hedged, tuple(o for o in ids if o in excludes),
                   tuple(source_span(c, text, _SPLIT) for c in clash), tuple(claims.items()),
                   tuple((o, source_span(denied_by[o], text, _SPLIT)) for o in ids if o in excludes and o in denied_by))


# A beginner in something ("débutant en CUDA", "new to Hopper", "novice with TMA"); an
# intensifier makes a beginner at everything ("débutant complet en CUDA" stays a beginner).
_BEGINNER_IN = re.compile(r"\b(?:debutan\w*|debute|novice|beginner|newbie|noob|nouveau|nouvelle|new|neophyte)\s+"
                          r"(?:en|sur|avec|dans|in|at|with|to|on)\s+(?P<what>.+)$")
_INTENSE = re.compile(r"\b(?:complet\w*|total\w*|grand|absolu\w*|complete\w*|vrai|true|pure|parfait\w*)\b")
_THE_FIELD = re.compile(r"\b(?:this|that|the field|this field|ce domaine|le domaine|ca|tout|everything|all this)\b")


def _beginner_in(text: str, compiled: dict, rules: Rules) -> list[str] | None:
    """The levels a beginner in a named domain lacks: the lowest that the domain's words point
    to and those beyond; the ones beyond are ruled out ("débutant en CUDA, j'ai écrit des noyaux
    simples" is coherent: optimising and Hopper are out, simple kernels are not). None for a
    beginner at everything ("débutant complet", "beginner at programming", "new to this"): the
    novice rule applies; [] for a domain that is no level ("nouveau dans l'équipe")."""
    m = _BEGINNER_IN.search(text)
    if not m or _INTENSE.search(text) or rules.no_code.search(m.group("what")) or \
            re.search(r"\b(?:programmation|informatique|computing|software)\b", m.group("what")):
        return None
    what = m.group("what")
    ladder = [o for o in rules.ladder if o in compiled]
    pointed = [i for i, o in enumerate(ladder) if any(p.search(what) for p, _, _ in compiled[o])]
    pointed += [ladder.index(out[0]) for p, out, _, _ in rules.denials if out and out[0] in ladder and p.search(what)]
    if not pointed:
        return None if _THE_FIELD.search(what) else []
    return ladder[min(pointed):]


def _claims(clause: Clause, compiled: dict, rules: Rules, coding: bool = False) -> dict[str, str]:
    """What an affirmed clause claims, as {option: matched words}: a full-weight pattern of at
    least ``_CLAIM_MIN``, not in a vague or partial clause, not a fact merely known. With
    ``coding``, only claims that suppose writing code: background ("up") evidence or any
    kernel level ("je code en C++", "développeur", "j'optimise des noyaux"), not "manager"."""
    if clause.negative or rules.partial.search(clause.text) or rules.vague.search(clause.text) or clause.weak:
        return {}
    names_prerequisite = any(p.search(clause.text) for p in rules.prerequisites.values())
    out: dict[str, str] = {}
    for oid, pats in compiled.items():
        for pattern, weight, kind in pats:
            m = pattern.search(clause.text)
            if not m or weight < _CLAIM_MIN or ("fact" in kind and clause.knowing) or \
                    (names_prerequisite and clause.knowing) or "nocode" in kind:
                continue
            if coding and "up" not in kind and oid not in rules.ladder[2:]:
                continue
            out.setdefault(oid, m.group(0).strip())
    return out


def _stated_denial(clause: Clause, rules: Rules) -> bool:
    """A denied clause that states a fact about the reader's past or present ("jamais codé",
    "je ne programme pas", "I have never programmed"), not a wish ("je ne veux pas coder") and not a change over time
    ("je ne code plus", "not anymore": it was true before, so it contradicts no past claim)."""
    return clause.negative and not rules.wish.search(clause.text) and not rules.no_longer.search(clause.text)


def _clash(read: list[tuple[Clause, Clause]], compiled: dict, rules: Rules, topics: list[re.Pattern],
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
        claim = next((c.text for _, c in read if contradicted in _claims(c, compiled, rules)), "")
        return (deny, claim) if deny and claim and deny != claim else ()
    levels = any(o in rules.ladder for o in compiled)
    for i, (raw, _) in enumerate(read):
        if not _stated_denial(raw, rules):
            continue
        rest = rules.no_code.sub(" ", raw.text)
        bare = levels and rules.no_code.search(raw.text) and not any(t.search(rest) for t in topics)
        # "rien du tout, je profile avec ncu": knowing nothing at all, said first (after a topic,
        # "le GPU ? rien du tout" is that topic's predicate).
        bare = bare or (levels and rules.knows_nothing.fullmatch(raw.text) and
                        not any(t.search(c.text) for c, _ in read[:i] for t in topics))
        words = {m.group(0).strip() for pats in compiled.values() for p, _, _ in pats
                 for m in [p.search(raw.text)] if m and not _self_negating(p, raw.text)} if levels else set()
        for j, (_, c) in enumerate(read):
            if j == i or (c.exception and j == i + 1):
                continue
            if bare and _claims(c, compiled, rules, coding=True):
                return raw.text, c.text
            if words & set(_claims(c, compiled, rules).values()):
                return raw.text, c.text
    no_code = next((c.text for _, c in read if not c.negative and any(
        "nocode" in kind and p.search(c.text) for pats in compiled.values() for p, _, kind in pats)), "")
    if no_code:
        wish = next((c.text for _, c in read if c.text != no_code and not c.negative and
                     rules.writes.search(c.text) and not _OTHERS.search(c.text)), "")
        if wish:
            return no_code, wish
    return ()


# A clause about someone else ("mon équipe, qui écrit des noyaux"): not the reader's wish.
_OTHERS = re.compile(r"\b(?:qui|who|ils|elles|they|he|she|il|elle|mon equipe|mes collegues|my team)\b")


_YES_WORDS = {"oui", "yes", "yep", "yup", "yeah", "ouais", "o", "y", "absolument", "absolutely", "evidemment",
              "certainement", "certainly", "sure", "definitely", "definitivement", "carrement", "grave", "ofc",
              "obviously", "si", "bah", "ben", "bien", "exactement", "exactly", "parfaitement", "affirmatif",
              "correct", "yess", "yas", "mouais", "naturellement", "of"}
_NO_WORDS = {"non", "no", "nope", "nan", "bof", "idk", "dunno", "na", "n", "jamais", "never", "pas", "nah", "negatif", "nein", "aucune",
             "aucun", "rien", "not", "nada", "niet"}
# Knowing the name is not knowing the thing: "j'en ai entendu parler", "c'est quoi ?".
_HEARD_OF = re.compile(r"\b(?:entendu parler|heard of|heard about|de nom|the name|only the name|le nom|le terme|the term|"
                       r"vu passer|croise le terme|seen it around|come across|c'est quoi|"
                       r"qu'est-ce que c'est|what is (?:that|it|this)|what'?s that|ca me dit (?:vaguement )?quelque chose|"
                       r"rings a bell)\b")
_THINK_YES = re.compile(r"\b(?:je (?:crois|pense) que oui|i think so|i believe so|je pense bien|il me semble que oui)\b")
_YES_ELSE = re.compile(r"\b(?:tout a fait|bien sur|of course|i think so|je pense|je crois|probably|probablement|"
                       r"j'en ai (?:deja )?(?:utilise|ecrit|fait)|i do|i have|i've used|used (?:it|them)|utilise|"
                       r"connu|known)\b")


def read_yes_no(text: str, rules: Rules) -> bool | None:
    """An answer to a yes/no question: True, False, or None when it says neither.

    "Partly" answers ("un peu", "vaguement", "kind of, no") and "I know the name" count as
    no: the page sends a reader who lacks a prerequisite to CUDA moderne first."""
    cleaned = clean(text, rules)
    words = re.findall(r"[\w']+", cleaned)
    if not words:
        return None
    if _HEARD_OF.search(cleaned):
        return False
    if _THINK_YES.search(cleaned) and not _NEGATION.search(cleaned):
        return True     # "je crois que oui, ça bloque le CPU": a yes that says why
    partial = bool(rules.partial.search(cleaned))
    if words[0] in _YES_WORDS and not (words[0] in {"bah", "ben", "bien", "of"} and len(words) == 1):
        # "of course not", "bien sûr que non", "oui mais pas vraiment": the denial wins.
        return not partial and not _NEGATION.search(" ".join(words[1:]))
    if words[0] in _NO_WORDS:
        return False
    if _NEGATION.search(cleaned) or partial or rules.hedges.search(cleaned):
        return False
    if _AFFIRM.search(cleaned) or _YES_ELSE.search(cleaned):
        return True
    return None
